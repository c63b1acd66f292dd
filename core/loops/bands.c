/* Band polygons of edge loops (bands.h): rings walked from the loops
 * and the domain's border, resolved where they touch, split into simple
 * rings, holes given their exteriors. */
#include "base/alloc.h"
#include "loops/bands.h"
#include "loops/loops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* ------------------------------------------------------------ rings */

/* Append a point; unless `keep`, not one equal to the last (a corner
 * where a polyline ends).  0 without memory. */
static int pts_push_(strata_ring_points *a, float X, float Y, uint32_t v, int keep)
{
    if (!keep && a->n && a->X[a->n - 1] == X && a->Y[a->n - 1] == Y)
        return 1;
    if (a->n == a->cap) {
        const size_t cap = a->cap ? 2 * a->cap : 1024;
        float *X2 = strata__alloc_array(a->al, cap, sizeof(float));
        float *Y2 = strata__alloc_array(a->al, cap, sizeof(float));
        uint32_t *v2 = strata__alloc_array(a->al, cap, sizeof(uint32_t));
        if (!X2 || !Y2 || !v2) {
            strata__free(a->al, X2);
            strata__free(a->al, Y2);
            strata__free(a->al, v2);
            a->nomem = 1;
            return 0;
        }
        if (a->n) {
            memcpy(X2, a->X, a->n * sizeof(float));
            memcpy(Y2, a->Y, a->n * sizeof(float));
            memcpy(v2, a->v, a->n * sizeof(uint32_t));
        }
        strata__free(a->al, a->X);
        strata__free(a->al, a->Y);
        strata__free(a->al, a->v);
        a->X = X2;
        a->Y = Y2;
        a->v = v2;
        a->cap = cap;
    }
    a->X[a->n] = X;
    a->Y[a->n] = Y;
    a->v[a->n] = v;
    a->n++;
    return 1;
}

static int pts_push(strata_ring_points *a, float X, float Y, uint32_t v)
{
    return pts_push_(a, X, Y, v, 0);
}

static void pts_free(strata_ring_points *a)
{
    strata__free(a->al, a->X);
    strata__free(a->al, a->Y);
    strata__free(a->al, a->v);
    memset(a, 0, sizeof *a);
}

/* An open piece: points a .. a + n - 1 (modulo) of a loop, reversed or
 * not, and the border positions of its ends. */
struct strata_band_piece {
    uint64_t loop;
    uint32_t a, n; /* its points a.. a+n-1 of the loop, modulo */
    int rev;
    double ts, te; /* border positions of its start and end */
    double as, ae; /* and their border_angle: the order at one point */
    int used;
};

/* Position along the border counter-clockwise from (X0, Y0), or -1 for a
 * point not on it; *side gets the side (0 south, 1 east, 2 north, 3
 * west). */
static double border_pos(const strata_band_region *g, float X, float Y, int *side)
{
    if (Y == g->Y0 && X < g->X1) {
        *side = 0;
        return (double)X - g->X0;
    }
    if (X == g->X1 && Y < g->Y1) {
        *side = 1;
        return g->W + ((double)Y - g->Y0);
    }
    if (Y == g->Y1 && X > g->X0) {
        *side = 2;
        return g->W + g->D + ((double)g->X1 - X);
    }
    *side = 3;
    if (X == g->X0)
        return 2 * g->W + g->D + ((double)g->Y1 - Y);
    return -1.0;
}

/* Where, infinitesimally, a polyline leaving border point (X, Y) on side
 * towards (Xn, Yn) meets the border: polylines through one vertex lying
 * exactly on its plane (one per wedge of lower neighbours) meet it in
 * the order of their directions, from backwards along the border through
 * the inside to forwards.  An angle in [0, pi]. */
static double border_angle(int side, float X, float Y, float Xn, float Yn)
{
    static const double tangent[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    const double dx = (double)Xn - X, dy = (double)Yn - Y;
    const double along = dx * tangent[side][0] + dy * tangent[side][1];
    const double inward = -dx * tangent[side][1] + dy * tangent[side][0]; /* left of the tangent */
    return atan2(inward, -along);
}

/* Corner i (0..3) counter-clockwise from (X0, Y0), and its position. */
static void corner(const strata_band_region *g, int i, float *X, float *Y, double *t)
{
    static const double f[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    *X = f[i][0] ? g->X1 : g->X0;
    *Y = f[i][1] ? g->Y1 : g->Y0;
    const double pos[4] = {0, g->W, g->W + g->D, 2 * g->W + g->D};
    *t = pos[i];
}

static int ring_add(strata_band_region *g, const strata_band_ring *r)
{
    if (g->nrings == g->cap) {
        const size_t cap = g->cap ? 2 * g->cap : 64;
        strata_band_ring *n = strata__alloc_array(g->al, cap, sizeof *n);
        if (!n) {
            g->nomem = 1;
            return 0;
        }
        if (g->nrings)
            memcpy(n, g->rings, g->nrings * sizeof *n);
        strata__free(g->al, g->rings);
        g->rings = n;
        g->cap = cap;
    }
    g->rings[g->nrings++] = *r;
    return 1;
}

/* Append x to a growing uint32 array. */
static int u32_push(strata_band_region *g, uint32_t **a, size_t *n, size_t *cap, uint32_t x)
{
    if (*n == *cap) {
        const size_t c = *cap ? 2 * *cap : 64;
        uint32_t *b = strata__alloc_array(g->al, c, sizeof *b);
        if (!b)
            return 0;
        if (*n)
            memcpy(b, *a, *n * sizeof *b);
        strata__free(g->al, *a);
        *a = b;
        *cap = c;
    }
    (*a)[(*n)++] = x;
    return 1;
}

/* Move points [from, from + n) of cur into a finished ring (if it has an
 * area). */
static void emit_ring(strata_band_region *g, size_t from, size_t n)
{
    if (n < 3)
        return;
    strata_band_ring r = {g->store.n, 0, 0.0, {INFINITY, INFINITY, -INFINITY, -INFINITY}, NONE};
    const strata_ring_points *c = &g->cur;
    double a = 0.0;
    for (size_t i = 0; i < n; i++) {
        const size_t p = from + i, q = from + (i + 1) % n;
        a += (double)c->X[p] * c->Y[q] - (double)c->X[q] * c->Y[p];
        r.box[0] = fminf(r.box[0], c->X[p]);
        r.box[1] = fminf(r.box[1], c->Y[p]);
        r.box[2] = fmaxf(r.box[2], c->X[p]);
        r.box[3] = fmaxf(r.box[3], c->Y[p]);
    }
    if (a == 0.0)
        return;
    for (size_t i = 0; i < n; i++)
        if (!pts_push_(&g->store, c->X[from + i], c->Y[from + i], c->v[from + i], 1))
            g->nomem = 1;
    r.n = g->store.n - r.first;
    r.area = 0.5 * a;
    ring_add(g, &r);
}

/* The ring in cur is complete: split it at repeated vertices (a stack:
 * when a vertex comes back, the points since its first visit are a ring
 * of their own) and emit the pieces.  After resolve's pairing such a
 * ring bounds one connected face touching itself at the vertex: its
 * pieces are an exterior and holes touching it at one point, which is
 * valid. */
static void split_emit(strata_band_region *g)
{
    strata_ring_points *c = &g->cur;
    g->gen++;
    size_t top = 0; /* the stack is c's prefix [0, top) */
    for (size_t i = 0; i < c->n; i++) {
        const uint32_t v = c->v[i];
        if (v != NONE && v < g->nstamp && (uint32_t)(g->stamp[v] >> 32) == g->gen) {
            const size_t at = (size_t)(g->stamp[v] & 0xffffffffu);
            if (at < top && c->v[at] == v) {
                emit_ring(g, at, top - at);
                top = at; /* v itself is pushed again below */
            }
        }
        c->X[top] = c->X[i];
        c->Y[top] = c->Y[i];
        c->v[top] = v;
        if (v != NONE && v < g->nstamp)
            g->stamp[v] = (uint64_t)g->gen << 32 | top;
        top++;
    }
    emit_ring(g, 0, top);
    c->n = 0;
}

/* The ring walked into cur is complete: move it to the pending rings. */
static void close_ring(strata_band_region *g)
{
    strata_ring_points *c = &g->cur;
    while (c->n > 1 && c->X[c->n - 1] == c->X[0] && c->Y[c->n - 1] == c->Y[0])
        c->n--;
    if (c->n >= 2) {
        const size_t first = g->pend.n;
        for (size_t i = 0; i < c->n; i++)
            if (!pts_push_(&g->pend, c->X[i], c->Y[i], c->v[i], 1))
                g->nomem = 1;
        if (!g->nomem && !u32_push(g, &g->pend_first, &g->npend, &g->cappend, (uint32_t)first))
            g->nomem = 1;
    }
    c->n = 0;
}

/* Clockwise angle from direction a to direction b, in [0, 2 pi). */
static double cw_angle(double ax, double ay, double bx, double by)
{
    double t = atan2(bx * ay - by * ax, bx * ax + by * ay); /* ccw from b to a */
    if (t < 0)
        t += 2 * M_PI;
    return t;
}

/* The pending rings as the boundary of the region: at a vertex that
 * rings pass more than once (a vertex lying exactly on a plane where
 * contours touch, or touch the border), each incoming side is joined to
 * the outgoing side bounding the same sector of the region (the first
 * clockwise from where it came), so the faces of the region that only
 * touch there come apart.  Then every cycle is split and emitted. */
static void resolve(strata_band_region *g)
{
    const size_t n = g->pend.n;
    if (g->nomem || n == 0)
        return;
    uint32_t *next = strata__alloc_array(g->al, n, sizeof(uint32_t));
    uint32_t *prev = strata__alloc_array(g->al, n, sizeof(uint32_t));
    uint32_t *link = strata__alloc_array(g->al, n, sizeof(uint32_t));
    uint32_t *heads = strata__alloc_array(g->al, n, sizeof(uint32_t));
    if (!next || !prev || !link || !heads) {
        g->nomem = 1;
        goto out;
    }
    for (size_t r = 0; r < g->npend; r++) {
        const size_t a = g->pend_first[r], b = r + 1 < g->npend ? g->pend_first[r + 1] : n;
        for (size_t i = a; i < b; i++) {
            next[i] = (uint32_t)(i + 1 < b ? i + 1 : a);
            prev[i] = (uint32_t)(i > a ? i - 1 : b - 1);
        }
    }
    /* visits of each vertex, chained through link[] from the last */
    size_t nheads = 0;
    g->gen++;
    const float *X = g->pend.X, *Y = g->pend.Y;
    const uint32_t *v = g->pend.v;
    for (size_t i = 0; i < n; i++) {
        link[i] = NONE;
        if (v[i] == NONE || v[i] >= g->nstamp)
            continue;
        if ((uint32_t)(g->stamp[v[i]] >> 32) == g->gen) {
            const uint32_t last = (uint32_t)(g->stamp[v[i]] & 0xffffffffu);
            link[i] = last;
            if (link[last] == NONE)
                heads[nheads++] = v[i];
        }
        g->stamp[v[i]] = (uint64_t)g->gen << 32 | i;
    }
    for (size_t h = 0; h < nheads; h++) {
        uint32_t vis[16], nv = 0;
        for (uint32_t i = (uint32_t)(g->stamp[heads[h]] & 0xffffffffu); i != NONE && nv < 16;
             i = link[i])
            vis[nv++] = i;
        if (nv < 2 || nv == 16)
            continue;
        /* incoming sides end at vis[j] (from prev), outgoing start there.
         * A side coming in from a point and one going straight back to it
         * are a slit (the region on both sides of a segment lying in the
         * plane): joined to each other they leave a cycle of no area and
         * the region whole.  The others: the first outgoing side
         * clockwise from where the incoming one came. */
        uint32_t out_of[16];
        int ok = 1;
        uint32_t taken = 0;
        for (uint32_t j = 0; j < nv; j++) {
            out_of[j] = NONE;
            const uint32_t p = vis[j];
            for (uint32_t m = 0; m < nv; m++) {
                const uint32_t q = vis[m];
                if (!(taken >> m & 1u) && X[next[q]] == X[prev[p]] && Y[next[q]] == Y[prev[p]]) {
                    out_of[j] = m;
                    taken |= 1u << m;
                    break;
                }
            }
        }
        for (uint32_t j = 0; j < nv && ok; j++) {
            if (out_of[j] != NONE)
                continue;
            const uint32_t p = vis[j];
            const double ax = (double)X[prev[p]] - X[p], ay = (double)Y[prev[p]] - Y[p];
            double best = INFINITY;
            uint32_t bj = NONE;
            for (uint32_t m = 0; m < nv; m++) {
                const uint32_t q = vis[m];
                if (taken >> m & 1u)
                    continue;
                const double bx = (double)X[next[q]] - X[q], by = (double)Y[next[q]] - Y[q];
                const double t = cw_angle(ax, ay, bx, by);
                if (t < best) {
                    best = t;
                    bj = m;
                }
            }
            if (bj == NONE)
                ok = 0;
            else
                taken |= 1u << bj;
            out_of[j] = bj;
        }
        if (!ok)
            continue;
        /* the side into vis[j] now continues from vis[out_of[j]] */
        uint32_t from[16];
        for (uint32_t j = 0; j < nv; j++)
            from[j] = prev[vis[j]];
        for (uint32_t j = 0; j < nv; j++) {
            const uint32_t q = vis[out_of[j]];
            next[from[j]] = q;
            prev[q] = from[j];
        }
    }
    /* every cycle, split and emitted */
    memset(link, 0, n * sizeof(uint32_t)); /* now: seen */
    for (size_t i = 0; i < n && !g->nomem; i++) {
        if (link[i])
            continue;
        for (uint32_t j = (uint32_t)i; !link[j]; j = next[j]) {
            link[j] = 1;
            if (!pts_push_(&g->cur, X[j], Y[j], v[j], 1))
                g->nomem = 1;
        }
        split_emit(g);
    }
out:
    strata__free(g->al, next);
    strata__free(g->al, prev);
    strata__free(g->al, link);
    strata__free(g->al, heads);
}

/* Append points [a, a + n) of loop li (indices modulo its count) to cur,
 * in reverse if rev. */
static void walk_loop(strata_band_region *g, uint64_t li, uint32_t a, uint32_t n, int rev)
{
    const strata_loops *l = g->fr->l;
    const strata_loop *lp = &l->loops[li];
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t j = a + (rev ? n - 1 - i : i);
        const uint64_t p = lp->first + j % lp->count;
        float X, Y;
        strata__map_point(g->fr, p, &X, &Y);
        if (!pts_push(&g->cur, X, Y, l->vertex[p]))
            g->nomem = 1;
    }
}

/* An end or a start of a piece on the border. */
struct event {
    double t, angle;
    int start;
    uint32_t piece;
};

static int cmp_event(const void *pa, const void *pb)
{
    const struct event *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->angle != b->angle)
        return a->angle < b->angle ? -1 : 1;
    if (a->start != b->start)
        return a->start - b->start;
    return a->piece < b->piece ? -1 : a->piece > b->piece;
}

/* Points [a, a + n) of loop li as an open piece (ends on the border). */
static void add_piece(strata_band_region *g, uint64_t li, uint32_t a, uint32_t n, int rev)
{
    const strata_loop *lp = &g->fr->l->loops[li];
    /* its first two and last two points as walked */
    uint64_t p[4];
    const uint32_t idx[4] = {a, a + 1, a + n - 2, a + n - 1};
    for (int i = 0; i < 4; i++)
        p[i] = lp->first + idx[rev ? 3 - i : i] % lp->count;
    float X[4], Y[4];
    for (int i = 0; i < 4; i++)
        strata__map_point(g->fr, p[i], &X[i], &Y[i]);
    int ss, se;
    const double ts = border_pos(g, X[0], Y[0], &ss), te = border_pos(g, X[3], Y[3], &se);
    if (ts < 0 || te < 0) {
        g->bad = 1; /* an end off the rectangle: not the domain */
        return;
    }
    const double as = border_angle(ss, X[0], Y[0], X[1], Y[1]);
    const double ae = border_angle(se, X[3], Y[3], X[2], Y[2]);
    if (g->nopen == g->capopen) {
        const size_t cap = g->capopen ? 2 * g->capopen : 256;
        struct strata_band_piece *np = strata__alloc_array(g->al, cap, sizeof *np);
        if (!np) {
            g->nomem = 1;
            return;
        }
        if (g->nopen)
            memcpy(np, g->open, g->nopen * sizeof *np);
        strata__free(g->al, g->open);
        g->open = np;
        g->capopen = cap;
    }
    g->open[g->nopen++] = (struct strata_band_piece){li, a, n, rev, ts, te, as, ae, 0};
}

/* A point the border walk passes: a corner (v NONE) or a point of a
 * contour touching the border (a vertex of the border lying exactly on
 * its plane, which the contour passes infinitesimally inside). */
typedef struct strata_border_point {
    double t;
    float X, Y;
    uint32_t v;
} border_point;

static int cmp_border_point(const void *pa, const void *pb)
{
    const border_point *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->v < b->v ? -1 : a->v > b->v; /* corners (NONE) last */
}

static void add_border_point(strata_band_region *g, double t, float X, float Y, uint32_t v)
{
    if (g->nbp == g->capbp) {
        const size_t cap = g->capbp ? 2 * g->capbp : 64;
        border_point *n = strata__alloc_array(g->al, cap, sizeof *n);
        if (!n) {
            g->nomem = 1;
            return;
        }
        if (g->nbp)
            memcpy(n, g->bp, g->nbp * sizeof *n);
        strata__free(g->al, g->bp);
        g->bp = n;
        g->capbp = cap;
    }
    g->bp[g->nbp++] = (border_point){t, X, Y, v};
}

/* Collect the pieces of plane k (reversed or not): closed loops become
 * rings at once, open polylines pieces to chain along the border.  The
 * points where a polyline touches the border between its ends become
 * points of the border walk: a ring that comes back to such a point is
 * split there (close_ring), so a contour running infinitesimally inside
 * the border leaves no ring touching itself, and a stretch of contour
 * along the border with the region outside it (a sliver of no area) goes
 * away. */
static void add_plane(strata_band_region *g, uint32_t k, int rev)
{
    const strata_loops *l = g->fr->l;
    for (uint64_t li = l->plane_first[k]; li < l->plane_first[k + 1] && !g->nomem; li++) {
        const strata_loop *lp = &l->loops[li];
        const uint32_t c = lp->count;
        for (uint32_t i = lp->closed ? 0 : 1; i + (lp->closed ? 0 : 1) < c; i++) {
            float X, Y;
            int side;
            strata__map_point(g->fr, lp->first + i, &X, &Y);
            const double t = border_pos(g, X, Y, &side);
            if (t >= 0)
                add_border_point(g, t, X, Y, l->vertex[lp->first + i]);
        }
        if (lp->closed) {
            walk_loop(g, li, 0, c, rev);
            close_ring(g);
        } else {
            add_piece(g, li, 0, c, rev);
        }
    }
}

/* The border points strictly after t0 and less than span ahead,
 * counter-clockwise, appended to the ring (bp sorted). */
static void walk_border(strata_band_region *g, double t0, double span)
{
    const double P = 2 * (g->W + g->D);
    size_t lo = 0, hi = g->nbp;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (g->bp[mid].t <= t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = 0; i < g->nbp; i++) {
        const border_point *b = &g->bp[(lo + i) % g->nbp];
        double d = b->t - t0;
        if (d < 0)
            d += P;
        if (!(d > 0 && d < span))
            break;
        if (!pts_push(&g->cur, b->X, b->Y, b->v))
            g->nomem = 1;
    }
}

/* Chain the open pieces along the border into rings; with none, the
 * whole border is a ring when `inside`. */
static void close_open(strata_band_region *g, int inside)
{
    for (int i = 0; i < 4; i++) {
        float X, Y;
        double t;
        corner(g, i, &X, &Y, &t);
        add_border_point(g, t, X, Y, NONE);
    }
    qsort(g->bp, g->nbp, sizeof *g->bp, cmp_border_point);
    if (g->nopen == 0) {
        if (inside) {
            for (size_t i = 0; i < g->nbp; i++)
                pts_push(&g->cur, g->bp[i].X, g->bp[i].Y, g->bp[i].v);
            close_ring(g);
        }
        return;
    }
    /* The pieces' ends and starts along the border, by position, then by
     * direction (polylines through one vertex on its plane), an end
     * before a start.  Walking counter-clockwise they alternate end,
     * start; each end is joined to the first free start after it (first
     * come, first served, so ties broken the other way still give every
     * start one end).  resolve() then joins the sides at such a vertex by
     * sectors. */
    const size_t N = 2 * g->nopen;
    struct event *ev = strata__alloc_array(g->al, N, sizeof *ev);
    uint32_t *queue = strata__alloc_array(g->al, g->nopen, sizeof(uint32_t));
    uint32_t *to = strata__alloc_array(g->al, g->nopen, sizeof(uint32_t));
    uint32_t *at = strata__alloc_array(g->al, N, sizeof(uint32_t));
    if (!ev || !queue || !to || !at) {
        g->nomem = 1;
        goto out;
    }
    for (size_t i = 0; i < g->nopen; i++) {
        ev[2 * i] = (struct event){g->open[i].te, g->open[i].ae, 0, (uint32_t)i};
        ev[2 * i + 1] = (struct event){g->open[i].ts, g->open[i].as, 1, (uint32_t)i};
        to[i] = NONE;
    }
    qsort(ev, N, sizeof *ev, cmp_event);
    for (size_t i = 0; i < N; i++)
        at[i] = NONE;
    size_t qh = 0, qt = 0;
    for (size_t k = 0; k < 2 * N; k++) {
        const struct event *e = &ev[k % N];
        if (e->start == 0 && k < N) {
            queue[qt++] = (uint32_t)k; /* an end waiting, by event index */
        } else if (e->start && at[k % N] == NONE && qh < qt) {
            const uint32_t ei = queue[qh++];
            to[ev[ei].piece] = (uint32_t)(k % N);
            at[k % N] = ei;
        }
    }
    const double P = 2 * (g->W + g->D);
    for (size_t s = 0; s < g->nopen && !g->nomem; s++) {
        if (g->open[s].used)
            continue;
        size_t cur = s;
        do {
            struct strata_band_piece *pc = &g->open[cur];
            pc->used = 1;
            walk_loop(g, pc->loop, pc->a, pc->n, pc->rev);
            const uint32_t j = to[cur];
            if (j == NONE) {
                g->bad = 1;
                break;
            }
            const uint32_t i = at[j]; /* the end's event */
            const double t0 = ev[i].t, t1 = ev[j].t;
            const int ahead = t1 > t0 || (t1 == t0 && j > i);
            walk_border(g, t0, ahead ? t1 - t0 : t1 + P - t0);
            cur = ev[j].piece;
        } while (!g->open[cur].used && !g->nomem);
        close_ring(g);
    }
out:
    strata__free(g->al, ev);
    strata__free(g->al, queue);
    strata__free(g->al, to);
    strata__free(g->al, at);
}

/* Is (X, Y) inside ring r (even-odd)? */
static int ring_contains(const strata_band_region *g, const strata_band_ring *r, double X,
                         double Y)
{
    const float *x = g->store.X + r->first, *y = g->store.Y + r->first;
    int in = 0;
    for (size_t i = 0, j = r->n - 1; i < r->n; j = i++) {
        if ((y[i] > Y) != (y[j] > Y)) {
            const double xc = x[i] + (Y - y[i]) * ((double)x[j] - x[i]) / ((double)y[j] - y[i]);
            if (X < xc)
                in = !in;
        }
    }
    return in;
}

/* Each hole's exterior: the smallest one around the midpoint of its
 * first side. */
static void assign_holes(strata_band_region *g)
{
    for (size_t h = 0; h < g->nrings; h++) {
        strata_band_ring *r = &g->rings[h];
        if (r->area > 0)
            continue;
        const float *x = g->store.X + r->first, *y = g->store.Y + r->first;
        const double X = 0.5 * ((double)x[0] + x[1]), Y = 0.5 * ((double)y[0] + y[1]);
        double best = INFINITY;
        for (size_t e = 0; e < g->nrings; e++) {
            const strata_band_ring *o = &g->rings[e];
            if (o->area <= 0 || o->area >= best || X < o->box[0] || X > o->box[2] ||
                Y < o->box[1] || Y > o->box[3])
                continue;
            if (ring_contains(g, o, X, Y)) {
                best = o->area;
                r->owner = (uint32_t)e;
            }
        }
        if (r->owner == NONE)
            g->bad = 1;
    }
}

static void region_reset(strata_band_region *g)
{
    g->store.n = 0;
    g->cur.n = 0;
    g->nrings = 0;
    g->nopen = 0;
    g->nbp = 0;
    g->pend.n = 0;
    g->npend = 0;
}

strata_status strata__band_region_init(strata_band_region *g, const strata_map_frame *fr,
                                       const strata_allocator *al)
{
    const strata_loops *l = fr->l;
    const strata_loops_write_options *opt = fr->o;
    memset(g, 0, sizeof *g);
    g->fr = fr;
    g->al = al;
    g->store.al = g->cur.al = g->pend.al = al;
    g->X0 = (float)(opt->origin[0] + opt->scale * opt->domain[0]);
    g->X1 = (float)(opt->origin[0] + opt->scale * opt->domain[2]);
    g->Y0 = (float)(opt->origin[1] - opt->scale * opt->domain[3]);
    g->Y1 = (float)(opt->origin[1] - opt->scale * opt->domain[1]);
    g->W = (double)g->X1 - g->X0;
    g->D = (double)g->Y1 - g->Y0;
    uint32_t nv = 0;
    for (uint64_t p = 0; p < l->npoints; p++)
        if (l->vertex[p] != NONE && l->vertex[p] >= nv)
            nv = l->vertex[p] + 1;
    g->nstamp = nv;
    g->stamp = strata__alloc_array(g->al, nv ? nv : 1, sizeof(uint64_t));
    if (!g->stamp)
        return STRATA_ERR_NOMEM;
    memset(g->stamp, 0, (size_t)(nv ? nv : 1) * sizeof(uint64_t));
    return STRATA_OK;
}

void strata__band_region_free(strata_band_region *g)
{
    pts_free(&g->store);
    pts_free(&g->cur);
    pts_free(&g->pend);
    strata__free(g->al, g->pend_first);
    strata__free(g->al, g->rings);
    strata__free(g->al, g->open);
    strata__free(g->al, g->bp);
    strata__free(g->al, g->stamp);
}

void strata__band_region_band(strata_band_region *g, uint32_t k, uint32_t corner_band)
{
    const uint32_t nplanes = g->fr->l->nplanes;
    region_reset(g);
    if (k > 0)
        add_plane(g, k, 1);
    if (k + 1 < nplanes)
        add_plane(g, k + 1, 0);
    close_open(g, corner_band == k);
    resolve(g);
    assign_holes(g);
}

void strata__band_region_above(strata_band_region *g, uint32_t k, uint32_t corner_band)
{
    region_reset(g);
    add_plane(g, k, 1);
    close_open(g, corner_band >= k);
    resolve(g);
}
