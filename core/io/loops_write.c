/* Writing edge loops (strata_loops_write): GeoJSON lines or band
 * polygons (RFC 7946), SVG layers, OBJ polylines.
 *
 * Band polygons.  Band k is L[k] <= h < L[k+1] (band 0 reaches down to
 * the lowest point, the top band up to the highest).  Plane k's loops
 * have band k on their right, plane k+1's on their left: plane k's
 * loops reversed and plane k+1's as they are have the band on their left,
 * which is how exterior rings wind counter-clockwise and holes clockwise.
 * Open polylines are closed along the domain's border, walked
 * counter-clockwise from each one's end to the next one's start (the
 * band lies ahead along the border there).  A band that no open
 * polyline reaches has the whole border or none of it, as the corner
 * height says.  Rings that touch themselves at a vertex lying exactly on
 * a plane (a saddle on the plane: the slicer's loops pass it once per
 * wedge) are split there, so every ring is simple; each hole goes to the
 * smallest exterior around it.  The SVG layer of plane k is the region
 * at or above it: plane k's loops reversed, closed the same way.
 *
 * Numbers are written as the shortest decimal that reads back as the
 * same float (put_float, core/base/shortest.h). */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/heightmap.h"
#include "loops/loops.h"
#include "mesh/mesh.h"
#include "base/output.h"
#include "base/shortest.h"
#include "io/write.h"
#include "simd/slice.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* ------------------------------------------------------------ numbers */

/* The shortest decimal that reads back as f (core/base/shortest.h). */
#define put_float strata__put_float

/* ------------------------------------------------------------ frames */

typedef struct {
    const strata_loops *l;
    const strata_loops_write_options *o;
} frame;

/* The map coordinates of point p: FLAT X = origin_x + scale x, Y =
 * origin_y - scale z (north is -z); RADIAL longitude, latitude in
 * degrees.  Rounded to float: what the file holds. */
static inline void map_point(const frame *fr, uint64_t p, float *X, float *Y)
{
    const strata_loops *l = fr->l;
    if (l->geometry == STRATA_FLAT) {
        *X = (float)(fr->o->origin[0] + fr->o->scale * l->x[p]);
        *Y = (float)(fr->o->origin[1] - fr->o->scale * l->z[p]);
        return;
    }
    const double dx = (double)l->x[p] - l->center[0], dy = (double)l->y[p] - l->center[1],
                 dz = (double)l->z[p] - l->center[2];
    *X = (float)(atan2(-dz, dx) * (180.0 / M_PI));
    *Y = (float)(atan2(dy, sqrt(dx * dx + dz * dz)) * (180.0 / M_PI));
}

/* ------------------------------------------------------------ rings */

/* A ring under construction or finished: map coordinates, and per point
 * the loop vertex it is (NONE for the border's corners). */
typedef struct {
    float *X, *Y;
    uint32_t *v;
    size_t n, cap;
    int nomem;
    const strata_allocator *al;
} pts;

/* Append a point; unless `keep`, not one equal to the last (a corner
 * where a polyline ends).  0 without memory. */
static int pts_push_(pts *a, float X, float Y, uint32_t v, int keep)
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

static int pts_push(pts *a, float X, float Y, uint32_t v) { return pts_push_(a, X, Y, v, 0); }

static void pts_free(pts *a)
{
    strata__free(a->al, a->X);
    strata__free(a->al, a->Y);
    strata__free(a->al, a->v);
    memset(a, 0, sizeof *a);
}

/* A finished ring: points [first, first + n) of the region's store. */
typedef struct {
    size_t first, n;
    double area; /* signed, counter-clockwise positive */
    float box[4]; /* Xmin, Ymin, Xmax, Ymax */
    uint32_t owner; /* holes: the exterior holding it */
} ring;

/* One region (a band, or the ground at or above a plane): its pieces,
 * its rings. */
typedef struct {
    const frame *fr;
    const strata_allocator *al;
    pts store;   /* finished rings' points, back to back */
    pts cur;     /* the ring being walked */
    pts pend;    /* walked rings waiting for resolve(), back to back */
    uint32_t *pend_first; /* their first points */
    size_t npend, cappend;
    ring *rings;
    size_t nrings, cap;
    /* open pieces: loop index, reversed, border positions */
    struct piece {
        uint64_t loop;
        uint32_t a, n; /* its points a.. a+n-1 of the loop, modulo */
        int rev;
        double ts, te; /* border positions of its start and end */
        double as, ae; /* and their border_angle: the order at one point */
        int used;
    } *open;
    size_t nopen, capopen;
    struct border_point_ *bp; /* corners and contacts, by position */
    size_t nbp, capbp;
    /* vertex stamps for splitting rings at repeated vertices */
    uint64_t *stamp; /* per loop vertex id: (generation << 32) | position */
    uint32_t nstamp, gen;
    int nomem, bad;
    double W, D; /* the domain's sides in map units */
    float X0, Y0, X1, Y1;
} region;

/* Position along the border counter-clockwise from (X0, Y0), or -1 for a
 * point not on it; *side gets the side (0 south, 1 east, 2 north, 3
 * west). */
static double border_pos(const region *g, float X, float Y, int *side)
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
static void corner(const region *g, int i, float *X, float *Y, double *t)
{
    static const double f[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    *X = f[i][0] ? g->X1 : g->X0;
    *Y = f[i][1] ? g->Y1 : g->Y0;
    const double pos[4] = {0, g->W, g->W + g->D, 2 * g->W + g->D};
    *t = pos[i];
}

static int ring_add(region *g, const ring *r)
{
    if (g->nrings == g->cap) {
        const size_t cap = g->cap ? 2 * g->cap : 64;
        ring *n = strata__alloc_array(g->al, cap, sizeof *n);
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
static int u32_push(region *g, uint32_t **a, size_t *n, size_t *cap, uint32_t x)
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
static void emit_ring(region *g, size_t from, size_t n)
{
    if (n < 3)
        return;
    ring r = {g->store.n, 0, 0.0, {INFINITY, INFINITY, -INFINITY, -INFINITY}, NONE};
    const pts *c = &g->cur;
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
static void split_emit(region *g)
{
    pts *c = &g->cur;
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
static void close_ring(region *g)
{
    pts *c = &g->cur;
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
static void resolve(region *g)
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
            if (link[last] == NONE && (last == 0 || 1)) {
                /* the second visit: a new group, found from its head */
            }
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
static void walk_loop(region *g, uint64_t li, uint32_t a, uint32_t n, int rev)
{
    const strata_loops *l = g->fr->l;
    const strata_loop *lp = &l->loops[li];
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t j = a + (rev ? n - 1 - i : i);
        const uint64_t p = lp->first + j % lp->count;
        float X, Y;
        map_point(g->fr, p, &X, &Y);
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
static void add_piece(region *g, uint64_t li, uint32_t a, uint32_t n, int rev)
{
    const strata_loop *lp = &g->fr->l->loops[li];
    /* its first two and last two points as walked */
    uint64_t p[4];
    const uint32_t idx[4] = {a, a + 1, a + n - 2, a + n - 1};
    for (int i = 0; i < 4; i++)
        p[i] = lp->first + idx[rev ? 3 - i : i] % lp->count;
    float X[4], Y[4];
    for (int i = 0; i < 4; i++)
        map_point(g->fr, p[i], &X[i], &Y[i]);
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
        struct piece *np = strata__alloc_array(g->al, cap, sizeof *np);
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
    g->open[g->nopen++] = (struct piece){li, a, n, rev, ts, te, as, ae, 0};
}

/* A point the border walk passes: a corner (v NONE) or a point of a
 * contour touching the border (a vertex of the border lying exactly on
 * its plane, which the contour passes infinitesimally inside). */
typedef struct border_point_ {
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

static void add_border_point(region *g, double t, float X, float Y, uint32_t v)
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
static void add_plane(region *g, uint32_t k, int rev)
{
    const strata_loops *l = g->fr->l;
    for (uint64_t li = l->plane_first[k]; li < l->plane_first[k + 1] && !g->nomem; li++) {
        const strata_loop *lp = &l->loops[li];
        const uint32_t c = lp->count;
        for (uint32_t i = lp->closed ? 0 : 1; i + (lp->closed ? 0 : 1) < c; i++) {
            float X, Y;
            int side;
            map_point(g->fr, lp->first + i, &X, &Y);
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
static void walk_border(region *g, double t0, double span)
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
static void close_open(region *g, int inside)
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
            struct piece *pc = &g->open[cur];
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
static int ring_contains(const region *g, const ring *r, double X, double Y)
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
static void assign_holes(region *g)
{
    for (size_t h = 0; h < g->nrings; h++) {
        ring *r = &g->rings[h];
        if (r->area > 0)
            continue;
        const float *x = g->store.X + r->first, *y = g->store.Y + r->first;
        const double X = 0.5 * ((double)x[0] + x[1]), Y = 0.5 * ((double)y[0] + y[1]);
        double best = INFINITY;
        for (size_t e = 0; e < g->nrings; e++) {
            const ring *o = &g->rings[e];
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

static void region_reset(region *g)
{
    g->store.n = 0;
    g->cur.n = 0;
    g->nrings = 0;
    g->nopen = 0;
    g->nbp = 0;
    g->pend.n = 0;
    g->npend = 0;
}

/* ------------------------------------------------------------ output */

typedef struct {
    strata_out *o;
    const frame *fr;
} writer;

static void put_str(strata_out *o, const char *s) { strata__out_str(o, s); }

/* "[X,Y]" at p, after a comma if comma; the end. */
static char *put_xy_raw(char *p, int comma, float X, float Y)
{
    if (comma)
        *p++ = ',';
    *p++ = '[';
    p = put_float(p, X);
    *p++ = ',';
    p = put_float(p, Y);
    *p++ = ']';
    return p;
}

/* ",[X,Y]" for a ring point (no comma first). */
static void put_xy(strata_out *o, int comma, float X, float Y)
{
    char *p0 = (char *)strata__out_room(o, 48);
    o->len += (size_t)(put_xy_raw(p0, comma, X, Y) - p0);
}

static void put_num(strata_out *o, float v)
{
    char buf[32];
    *put_float(buf, v) = '\0';
    put_str(o, buf);
}

/* GeoJSON lines are formatted in parallel: the polylines, cut into
 * pieces of at most LINE_PIECE points, go in batches of about
 * LINE_BATCH points; every piece is formatted by some thread into its
 * own stretch of the batch's buffer, and the stretches are written in
 * order, so the bytes never depend on the thread count. */
#define LINE_PIECE 8192u
#define LINE_BATCH (256u * 1024u)
/* Bytes of one position at most: ",[" + 2 numbers of 16 + "," + "]". */
#define LINE_POINT_MAX 40u
/* The feature's head and tail at most. */
#define LINE_HEAD_MAX 160u

/* A band's rings are formatted in parallel as the lines are: each ring's closed position list (its first point
 * repeated) cut into pieces of at most LINE_PIECE positions, batches of
 * about LINE_BATCH positions formatted into their own stretches of a
 * buffer by any thread, then written in order with the brackets and
 * commas between them, so the bytes never depend on the thread count. */
typedef struct {
    uint32_t ring;
    uint32_t from, to; /* positions [from, to) of the ring's n + 1 */
    uint8_t pre;       /* at from == 0: 1 a polygon's exterior, 2 the
                          first polygon's, 0 a hole */
    uint8_t last;      /* at the ring's end: its polygon's last ring */
    uint64_t at, len;  /* its stretch of the buffer, bytes formatted */
} ring_piece;

static void format_ring_piece(const region *g, ring_piece *pc, char *buf)
{
    const ring *r = &g->rings[pc->ring];
    const float *X = g->store.X + r->first, *Y = g->store.Y + r->first;
    char *p = buf + pc->at, *p0 = p;
    for (uint32_t i = pc->from; i < pc->to; i++) {
        const size_t j = i == r->n ? 0 : i;
        p = put_xy_raw(p, i > 0, X[j], Y[j]);
    }
    pc->len = (uint64_t)(p - p0);
}

/* The rings of a band in the order they are written (each exterior,
 * then its holes), with their pieces' marks; the number of rings. */
static size_t ring_order(const region *g, uint32_t *order, uint8_t *mark)
{
    size_t n = 0;
    for (size_t e = 0; e < g->nrings; e++) {
        if (g->rings[e].area <= 0)
            continue;
        const size_t first = n;
        order[n] = (uint32_t)e;
        mark[n++] = first == 0 ? 2 : 1;
        for (size_t h = 0; h < g->nrings; h++)
            if (g->rings[h].area < 0 && g->rings[h].owner == e) {
                order[n] = (uint32_t)h;
                mark[n++] = 0;
            }
        mark[n - 1] |= 4; /* the polygon's last ring */
    }
    return n;
}

/* The working memory of put_rings, kept from band to band. */
#define RING_BATCH_PIECES 4096
typedef struct {
    ring_piece *pcs; /* RING_BATCH_PIECES */
    char *buf;       /* LINE_BATCH positions */
    uint32_t *order; /* cap of them */
    uint8_t *mark;   /* cap */
    size_t cap;
} ring_batch;

static int ring_batch_init(ring_batch *rb, const strata_allocator *al)
{
    *rb = (ring_batch){strata__alloc_array(al, RING_BATCH_PIECES, sizeof(ring_piece)),
                       strata__alloc(al, (size_t)LINE_BATCH * LINE_POINT_MAX + LINE_POINT_MAX),
                       NULL, NULL, 0};
    return rb->pcs && rb->buf;
}

static void ring_batch_free(ring_batch *rb, const strata_allocator *al)
{
    strata__free(al, rb->pcs);
    strata__free(al, rb->buf);
    strata__free(al, rb->order);
    strata__free(al, rb->mark);
}

/* The polygons' position lists of a band, written batch by batch. */
static void put_rings(strata_out *o, const region *g, ring_batch *rb)
{
    if (g->nrings > rb->cap) {
        strata__free(o->al, rb->order);
        strata__free(o->al, rb->mark);
        rb->order = strata__alloc_array(o->al, g->nrings, sizeof *rb->order);
        rb->mark = strata__alloc(o->al, g->nrings);
        rb->cap = rb->order && rb->mark ? g->nrings : 0;
        if (!rb->cap) {
            if (!o->err)
                o->err = ENOMEM;
            return;
        }
    }
    ring_piece *const pcs = rb->pcs;
    char *const buf = rb->buf;
    const size_t nr = ring_order(g, rb->order, rb->mark);
    size_t ri = 0;
    uint32_t from = 0;
    while (ri < nr && strata__out_ok(o)) {
        size_t np = 0;
        uint64_t points = 0;
        while (ri < nr && points < LINE_BATCH && np < RING_BATCH_PIECES) {
            const uint32_t n = (uint32_t)g->rings[rb->order[ri]].n + 1;
            const uint32_t to = n - from > LINE_PIECE ? from + LINE_PIECE : n;
            if (to - from > LINE_BATCH - points && points > 0)
                break;
            pcs[np++] = (ring_piece){rb->order[ri], from, to, (uint8_t)(rb->mark[ri] & 3),
                                     (uint8_t)(rb->mark[ri] >> 2), points * LINE_POINT_MAX, 0};
            points += to - from;
            from = to;
            if (to == n) {
                ri++;
                from = 0;
            }
        }
        const int64_t nn = (int64_t)np;
#pragma omp parallel for num_threads(o->ctx->threads) schedule(dynamic, 1)
        for (int64_t i = 0; i < nn; i++)
            format_ring_piece(g, &pcs[i], buf);
        for (size_t i = 0; i < np && strata__out_ok(o); i++) {
            const ring_piece *pc = &pcs[i];
            if (pc->from == 0) /* "[[" a polygon (after a comma but the first), ",[" a hole */
                put_str(o, pc->pre == 0 ? ",[" : pc->pre == 2 ? "[[" : ",[[");
            strata__out_bytes(o, buf + pc->at, pc->len);
            if (pc->to == g->rings[pc->ring].n + 1)
                put_str(o, pc->last ? "]]" : "]");
        }
    }
}

/* The band-k feature (nothing for an empty band). */
static void put_band(strata_out *o, region *g, uint32_t k, int *first_feature,
                     ring_batch *rb)
{
    const strata_loops *l = g->fr->l;
    const strata_loops_write_options *opt = g->fr->o;
    size_t next = 0;
    for (size_t e = 0; e < g->nrings; e++)
        next += g->rings[e].area > 0;
    if (next == 0)
        return;
    const float lo = k == 0 ? opt->height_min : l->levels[k];
    const float hi = k + 1 == l->nplanes ? opt->height_max : l->levels[k + 1];
    put_str(o, *first_feature ? "\n" : ",\n");
    *first_feature = 0;
    put_str(o, "{\"type\":\"Feature\",\"properties\":{\"elev_min\":");
    put_num(o, lo);
    put_str(o, ",\"elev_max\":");
    put_num(o, hi);
    put_str(o, next == 1 ? "},\"geometry\":{\"type\":\"Polygon\",\"coordinates\":"
                         : "},\"geometry\":{\"type\":\"MultiPolygon\",\"coordinates\":[");
    put_rings(o, g, rb);
    put_str(o, next == 1 ? "}}" : "]}}");
}

static void write_polygons(strata_out *o, region *g, uint32_t corner_band)
{
    const strata_loops *l = g->fr->l;
    ring_batch rb;
    if (!ring_batch_init(&rb, o->al)) {
        ring_batch_free(&rb, o->al);
        if (!o->err)
            o->err = ENOMEM;
        return;
    }
    put_str(o, "{\"type\":\"FeatureCollection\",\"features\":[");
    int first = 1;
    for (uint32_t k = 0; k < l->nplanes && strata__out_ok(o) && !g->nomem && !g->bad; k++) {
        region_reset(g);
        if (k > 0)
            add_plane(g, k, 1);
        if (k + 1 < l->nplanes)
            add_plane(g, k + 1, 0);
        close_open(g, corner_band == k);
        resolve(g);
        assign_holes(g);
        if (!g->nomem && !g->bad)
            put_band(o, g, k, &first, &rb);
        strata__out_progress(o, k + 1, l->nplanes);
    }
    put_str(o, "\n]}\n");
    ring_batch_free(&rb, o->al);
}

typedef struct {
    uint64_t loop;
    uint32_t from, to; /* positions [from, to) of the feature's list */
    uint64_t at;       /* its stretch of the batch buffer */
    uint64_t len;      /* bytes formatted */
} line_piece;

/* Piece pc of its feature into buf; the feature's head after a comma
 * if `comma`. */
static void format_piece(const frame *fr, line_piece *pc, char *buf, int comma)
{
    const strata_loops *l = fr->l;
    const strata_loop *lp = &l->loops[pc->loop];
    char *p = buf + pc->at, *p0 = p;
    if (pc->from == 0) {
        static const char head[] = "{\"type\":\"Feature\",\"properties\":{\"elev\":";
        static const char mid[] = "},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[";
        if (comma)
            *p++ = ',';
        *p++ = '\n';
        memcpy(p, head, sizeof head - 1);
        p += sizeof head - 1;
        p = put_float(p, l->levels[lp->plane]);
        memcpy(p, mid, sizeof mid - 1);
        p += sizeof mid - 1;
    }
    for (uint32_t i = pc->from; i < pc->to; i++) {
        float X, Y;
        map_point(fr, lp->first + (i == lp->count ? 0 : i), &X, &Y);
        p = put_xy_raw(p, i > 0, X, Y);
    }
    if (pc->to == lp->count + (lp->closed ? 1u : 0u)) {
        memcpy(p, "]}}", 3);
        p += 3;
    }
    pc->len = (uint64_t)(p - p0);
}

static void write_lines(strata_out *o, const frame *fr)
{
    const strata_loops *l = fr->l;
    strata_ctx *ctx = o->ctx;
    const strata_allocator *al = o->al;
    const size_t maxp = 4096; /* pieces a batch */
    line_piece *pcs = strata__alloc_array(al, maxp, sizeof *pcs);
    char *buf = strata__alloc(al, (size_t)LINE_BATCH * LINE_POINT_MAX +
                                      (size_t)maxp * LINE_HEAD_MAX + LINE_POINT_MAX);
    if (!pcs || !buf) {
        strata__free(al, pcs);
        strata__free(al, buf);
        if (!o->err)
            o->err = ENOMEM;
        return;
    }
    put_str(o, "{\"type\":\"FeatureCollection\",\"features\":[");
    uint64_t li = 0;
    uint32_t from = 0;
    while (li < l->nloops && strata__out_ok(o)) {
        /* a batch of pieces */
        size_t np = 0;
        uint64_t points = 0, at = 0;
        while (li < l->nloops && points < LINE_BATCH && np < maxp) {
            const strata_loop *lp = &l->loops[li];
            const uint32_t n = lp->count + (lp->closed ? 1u : 0u);
            uint32_t to = n - from > LINE_PIECE ? from + LINE_PIECE : n;
            if (to - from > LINE_BATCH - points && points > 0)
                break;
            pcs[np] = (line_piece){li, from, to, at, 0};
            at += (uint64_t)(to - from) * LINE_POINT_MAX + LINE_HEAD_MAX;
            points += to - from;
            np++;
            from = to;
            if (to == n) {
                li++;
                from = 0;
            }
        }
        const int64_t nn = (int64_t)np;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 1)
        for (int64_t i = 0; i < nn; i++)
            format_piece(fr, &pcs[i], buf, pcs[i].loop != 0);
        for (size_t i = 0; i < np && strata__out_ok(o); i++)
            strata__out_bytes(o, buf + pcs[i].at, pcs[i].len);
        strata__out_progress(o, li, l->nloops);
    }
    put_str(o, "\n]}\n");
    strata__free(al, pcs);
    strata__free(al, buf);
}

static strata_loops_format format_of(const char *path, strata_loops_format f);

/* Lines streamed from a heightmap (strata_loops_write_heightmap): every
 * plane's features formatted into its slot's buffer, each after a comma,
 * written in plane order, the file's first comma dropped. */
typedef struct {
    char *buf;
    size_t len, cap;
    uint64_t nl, np, closed, open;
    double length;
} line_slot;

typedef struct {
    strata_out *o;
    const strata_loops_write_options *opt;
    const strata_allocator *al;
    line_slot *slots;
    strata_loops_stats *stats;
    uint32_t nplanes;
    int started; /* a feature is written */
} line_stream;

static strata_status stream_plane(void *arg, uint32_t slot, const strata_loops *l, uint32_t k)
{
    line_stream *ls = arg;
    line_slot *s = &ls->slots[slot];
    const frame fr = {l, ls->opt};
    s->len = 0;
    s->nl = l->nloops;
    s->np = s->closed = s->open = 0;
    s->length = 0.0;
    for (uint64_t li = l->plane_first[k]; li < l->plane_first[k + 1]; li++) {
        const strata_loop *lp = &l->loops[li];
        const uint32_t n = lp->count + (lp->closed ? 1u : 0u);
        const size_t need = s->len + (size_t)n * LINE_POINT_MAX + LINE_HEAD_MAX;
        if (need > s->cap) {
            const size_t cap = need > 2 * s->cap ? need : 2 * s->cap;
            char *b = strata__alloc(ls->al, cap);
            if (!b)
                return STRATA_ERR_NOMEM;
            if (s->len)
                memcpy(b, s->buf, s->len);
            strata__free(ls->al, s->buf);
            s->buf = b;
            s->cap = cap;
        }
        line_piece pc = {li, 0, n, s->len, 0};
        format_piece(&fr, &pc, s->buf, 1);
        s->len += pc.len;
        s->np += lp->count;
        s->closed += lp->closed != 0;
        s->open += lp->closed == 0;
        s->length += lp->length;
    }
    return STRATA_OK;
}

static strata_status stream_flush(void *arg, uint32_t slot, uint32_t k)
{
    line_stream *ls = arg;
    line_slot *s = &ls->slots[slot];
    strata_out *o = ls->o;
    if (s->len) {
        const size_t skip = ls->started ? 0 : 1; /* the first feature: no comma */
        strata__out_bytes(o, s->buf + skip, s->len - skip);
        ls->started = 1;
    }
    strata_loops_stats *st = ls->stats;
    if (st) {
        st->nloops += s->nl;
        st->npoints += s->np;
        if (st->length)
            st->length[k] = s->length;
        if (st->closed)
            st->closed[k] = s->closed;
        if (st->open)
            st->open[k] = s->open;
    }
    strata__out_progress(o, k + 1, ls->nplanes);
    return strata__out_ok(o) ? STRATA_OK : o->cancelled ? STRATA_ERR_CANCELLED : STRATA_ERR_IO;
}

strata_status strata_loops_write_heightmap(strata_ctx *ctx, const strata_heightmap *hm,
                                           float cell_size, float height_scale,
                                           const float *levels, uint32_t nlevels,
                                           const char *path, const strata_loops_write_options *opt,
                                           strata_loops_stats *stats)
{
    strata_loops_write_options def;
    if (!opt) {
        strata_loops_write_defaults(&def);
        opt = &def;
    }
    if (!ctx || !hm || !path || opt->polygons ||
        (opt->format != STRATA_LOOPS_AUTO && opt->format != STRATA_LOOPS_GEOJSON) ||
        format_of(path, opt->format) != STRATA_LOOPS_GEOJSON || !(opt->scale > 0) ||
        !isfinite(opt->scale) || !isfinite(opt->origin[0]) || !isfinite(opt->origin[1]) ||
        !(cell_size > 0.0f) || !isfinite(cell_size) || !isfinite(height_scale))
        return STRATA_ERR_INVALID_ARG;
    strata_status st = strata_levels_validate(levels, nlevels);
    if (st != STRATA_OK)
        return st;
    if ((st = strata__heightmap_check_dims(strata_heightmap_width(hm),
                                           strata_heightmap_height(hm))) != STRATA_OK)
        return st;
    if (stats) {
        stats->nloops = stats->npoints = 0;
        for (uint32_t k = 0; k < nlevels; k++) {
            if (stats->length)
                stats->length[k] = 0.0;
            if (stats->closed)
                stats->closed[k] = 0;
            if (stats->open)
                stats->open[k] = 0;
        }
    }
    const int saved_errno = errno;
    const strata_allocator *al = &ctx->alloc;
    strata__plane_sink sink = {stream_plane, stream_flush, NULL,
                               2 * (uint32_t)(ctx->threads > 0 ? ctx->threads : 1)};
    line_slot *slots = strata__alloc_array(al, sink.nslots, sizeof *slots);
    if (!slots)
        return STRATA_ERR_NOMEM;
    memset(slots, 0, sink.nslots * sizeof *slots);
    strata_out o = STRATA_OUT_INIT(ctx);
    line_stream ls = {&o, opt, al, slots, stats, nlevels, 0};
    sink.arg = &ls;
    if (strata__out_open(&o, path, ctx) == 0) {
        put_str(&o, "{\"type\":\"FeatureCollection\",\"features\":[");
        st = strata__loops_grid_stream(ctx, hm, cell_size, height_scale, levels, nlevels, &sink);
        if (st == STRATA_OK)
            put_str(&o, "\n]}\n");
        strata__out_finish(&o);
    }
    for (uint32_t i = 0; i < sink.nslots; i++)
        strata__free(al, slots[i].buf);
    strata__free(al, slots);
    if (st != STRATA_OK && strata__out_ok(&o)) { /* the loops failed: no file */
        const int err = errno;
        strata__out_discard(&o);
        errno = st == STRATA_ERR_IO ? err : saved_errno;
        return st;
    }
    const char *const paths[1] = {path};
    return strata__write_finish(ctx, &o, paths, 1, saved_errno);
}

/* Planets: longitude and latitude, every line that crosses the
 * antimeridian cut there into the parts of a MultiLineString (RFC 7946,
 * 3.1.9), the cut point at longitude 180 and -180 with the latitude
 * interpolated linearly in degrees.  Written on the calling thread:
 * planets' loops are few. */
static void write_lines_lonlat(strata_out *o, const frame *fr)
{
    const strata_loops *l = fr->l;
    put_str(o, "{\"type\":\"FeatureCollection\",\"features\":[");
    for (uint64_t li = 0; li < l->nloops && strata__out_ok(o); li++) {
        const strata_loop *lp = &l->loops[li];
        const uint32_t n = lp->count + (lp->closed ? 1 : 0);
        int cuts = 0;
        float pX = 0, pY = 0;
        for (uint32_t i = 0; i < n; i++) {
            float X, Y;
            map_point(fr, lp->first + (i == lp->count ? 0 : i), &X, &Y);
            cuts += i > 0 && fabsf(X - pX) > 180.0f;
            pX = X;
            pY = Y;
        }
        (void)pY;
        put_str(o, li ? ",\n{\"type\":\"Feature\",\"properties\":{\"elev\":"
                      : "\n{\"type\":\"Feature\",\"properties\":{\"elev\":");
        put_num(o, l->levels[lp->plane]);
        put_str(o, cuts ? "},\"geometry\":{\"type\":\"MultiLineString\",\"coordinates\":[["
                        : "},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[");
        int first = 1;
        for (uint32_t i = 0; i < n; i++) {
            float X, Y;
            map_point(fr, lp->first + (i == lp->count ? 0 : i), &X, &Y);
            if (i > 0 && fabsf(X - pX) > 180.0f) {
                /* from pX to X the short way passes +-180 */
                const double side = pX > 0 ? 180.0 : -180.0;
                const double span = 360.0 - fabs((double)X - pX);
                const double f = span > 0 ? (180.0 - fabs((double)pX)) / span : 0.5;
                const float Yc = (float)(pY + f * ((double)Y - pY));
                put_xy(o, 1, (float)side, Yc);
                put_str(o, "],[");
                put_xy(o, 0, (float)-side, Yc);
                first = 0;
            }
            put_xy(o, !first || i > 0, X, Y);
            first = 0;
            pX = X;
            pY = Y;
        }
        put_str(o, cuts ? "]]}}" : "]}}");
        if (li % 4096 == 0)
            strata__out_progress(o, li, l->nloops);
    }
    put_str(o, "\n]}\n");
}

static void write_svg(strata_out *o, region *g, uint32_t corner_band)
{
    const strata_loops *l = g->fr->l;
    const double s = g->fr->o->svg_scale;
    const double wmm = g->W * s, hmm = g->D * s;
    char buf[256];
    snprintf(buf, sizeof buf,
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.6fmm\" height=\"%.6fmm\" "
             "viewBox=\"0 0 %.6f %.6f\">\n",
             wmm, hmm, wmm, hmm);
    put_str(o, buf);
    for (uint32_t k = 1; k < l->nplanes && strata__out_ok(o) && !g->nomem && !g->bad; k++) {
        region_reset(g);
        add_plane(g, k, 1);
        close_open(g, corner_band >= k);
        resolve(g);
        if (g->nomem || g->bad)
            break;
        const int grey = 255 - (int)(200.0 * k / (l->nplanes > 1 ? l->nplanes - 1 : 1));
        put_str(o, "<g id=\"level-");
        put_num(o, l->levels[k]);
        snprintf(buf, sizeof buf, "\" data-elev=\"");
        put_str(o, buf);
        put_num(o, l->levels[k]);
        snprintf(buf, sizeof buf,
                 "\">\n<path fill=\"#%02x%02x%02x\" fill-rule=\"evenodd\" stroke=\"#000\" "
                 "stroke-width=\"0.1\" d=\"",
                 grey, grey, grey);
        put_str(o, buf);
        for (size_t e = 0; e < g->nrings; e++) {
            const ring *r = &g->rings[e];
            for (size_t i = 0; i < r->n; i++) {
                char *p0 = (char *)strata__out_room(o, 48), *p = p0;
                *p++ = i ? 'L' : 'M';
                p = put_float(p, (float)(((double)g->store.X[r->first + i] - g->X0) * s));
                *p++ = ' ';
                p = put_float(p, (float)(((double)g->Y1 - g->store.Y[r->first + i]) * s));
                o->len += (size_t)(p - p0);
            }
            put_str(o, "Z");
        }
        put_str(o, "\"/>\n</g>\n");
        strata__out_progress(o, k, l->nplanes);
    }
    put_str(o, "</svg>\n");
}

/* OBJ: every point as "v x y z", each polyline as an "l" record (a
 * closed one ends on its first point again), one group per plane. */
static void write_obj(strata_out *o, const strata_loops *l, strata_axis up)
{
    put_str(o, "# edge loops by strata " STRATA_VERSION "\n");
    for (uint64_t p = 0; p < l->npoints && strata__out_ok(o); p++) {
        char *p0 = (char *)strata__out_room(o, 64), *q = p0;
        float x = l->x[p], y = l->y[p], z = l->z[p];
        strata__from_y_up(&x, &y, &z, up);
        *q++ = 'v';
        *q++ = ' ';
        q = put_float(q, x);
        *q++ = ' ';
        q = put_float(q, y);
        *q++ = ' ';
        q = put_float(q, z);
        *q++ = '\n';
        o->len += (size_t)(q - p0);
    }
    for (uint32_t k = 0; k < l->nplanes && strata__out_ok(o); k++) {
        if (l->plane_first[k] == l->plane_first[k + 1])
            continue;
        char buf[64];
        snprintf(buf, sizeof buf, "g plane_%u\n", k);
        put_str(o, buf);
        for (uint64_t li = l->plane_first[k]; li < l->plane_first[k + 1]; li++) {
            const strata_loop *lp = &l->loops[li];
            put_str(o, "l");
            for (uint32_t i = 0; i <= lp->count; i++) {
                if (i == lp->count && !lp->closed)
                    break;
                const uint64_t id = lp->first + (i == lp->count ? 0 : i) + 1;
                char *p0 = (char *)strata__out_room(o, 24);
                o->len += (size_t)snprintf(p0, 24, " %llu", (unsigned long long)id);
            }
            put_str(o, "\n");
        }
    }
}

/* ------------------------------------------------------------ entry */

void strata_loops_write_defaults(strata_loops_write_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->format = STRATA_LOOPS_AUTO;
    opt->scale = 1.0;
    opt->svg_scale = 1.0;
    opt->up = STRATA_AXIS_Y;
}

static strata_loops_format format_of(const char *path, strata_loops_format f)
{
    if (f != STRATA_LOOPS_AUTO)
        return f;
    if (strata__has_suffix(path, ".geojson") || strata__has_suffix(path, ".json"))
        return STRATA_LOOPS_GEOJSON;
    if (strata__has_suffix(path, ".svg"))
        return STRATA_LOOPS_SVG;
    if (strata__has_suffix(path, ".obj"))
        return STRATA_LOOPS_OBJ;
    return STRATA_LOOPS_AUTO;
}

strata_status strata_loops_write(strata_ctx *ctx, const strata_loops *l, const char *path,
                                 const strata_loops_write_options *opt)
{
    strata_loops_write_options def;
    if (!opt) {
        strata_loops_write_defaults(&def);
        opt = &def;
    }
    if (!ctx || !l || !path)
        return STRATA_ERR_INVALID_ARG;
    const strata_loops_format f = format_of(path, opt->format);
    const int regions = f == STRATA_LOOPS_SVG || (f == STRATA_LOOPS_GEOJSON && opt->polygons);
    if (f == STRATA_LOOPS_AUTO || f > STRATA_LOOPS_OBJ || !(opt->scale > 0) ||
        (opt->up != STRATA_AXIS_X && opt->up != STRATA_AXIS_Y && opt->up != STRATA_AXIS_Z) ||
        !isfinite(opt->scale) || !isfinite(opt->origin[0]) || !isfinite(opt->origin[1]))
        return STRATA_ERR_INVALID_ARG;
    if (regions && (l->geometry != STRATA_FLAT || !opt->has_domain ||
                    !(opt->domain[2] > opt->domain[0]) || !(opt->domain[3] > opt->domain[1]) ||
                    !isfinite(opt->corner_height) || !(opt->svg_scale > 0) ||
                    !isfinite(opt->svg_scale)))
        return STRATA_ERR_INVALID_ARG;
    const int saved_errno = errno;
    strata_status st = strata__progress(ctx, "write", 0.0);
    if (st != STRATA_OK)
        return st;
    const frame fr = {l, opt};
    region g = {0};
    g.fr = &fr;
    g.al = &ctx->alloc;
    g.store.al = g.cur.al = g.pend.al = &ctx->alloc;
    if (regions) {
        g.X0 = (float)(opt->origin[0] + opt->scale * opt->domain[0]);
        g.X1 = (float)(opt->origin[0] + opt->scale * opt->domain[2]);
        g.Y0 = (float)(opt->origin[1] - opt->scale * opt->domain[3]);
        g.Y1 = (float)(opt->origin[1] - opt->scale * opt->domain[1]);
        g.W = (double)g.X1 - g.X0;
        g.D = (double)g.Y1 - g.Y0;
        uint32_t nv = 0;
        for (uint64_t p = 0; p < l->npoints; p++)
            if (l->vertex[p] != NONE && l->vertex[p] >= nv)
                nv = l->vertex[p] + 1;
        g.nstamp = nv;
        g.stamp = strata__alloc_array(g.al, nv ? nv : 1, sizeof(uint64_t));
        if (!g.stamp)
            return STRATA_ERR_NOMEM;
        memset(g.stamp, 0, (size_t)(nv ? nv : 1) * sizeof(uint64_t));
    }
    const uint32_t corner_band =
        l->has_corner && l->corner[0] == opt->domain[0] && l->corner[1] == opt->domain[1]
            ? l->corner_band
            : strata__level_of(l->levels, l->nplanes, opt->corner_height);
    strata_out o = STRATA_OUT_INIT(ctx);
    if (strata__out_open(&o, path, ctx) == 0) {
        switch (f) {
        case STRATA_LOOPS_GEOJSON:
            if (opt->polygons)
                write_polygons(&o, &g, corner_band);
            else if (l->geometry != STRATA_FLAT)
                write_lines_lonlat(&o, &fr);
            else
                write_lines(&o, &fr);
            break;
        case STRATA_LOOPS_SVG: write_svg(&o, &g, corner_band); break;
        default: write_obj(&o, l, (strata_axis)opt->up); break;
        }
        if (g.nomem && !o.err)
            o.err = ENOMEM;
        strata__out_finish(&o);
    }
    const int bad = g.bad;
    pts_free(&g.store);
    pts_free(&g.cur);
    pts_free(&g.pend);
    strata__free(g.al, g.pend_first);
    strata__free(g.al, g.rings);
    strata__free(g.al, g.open);
    strata__free(g.al, g.bp);
    strata__free(g.al, g.stamp);
    if (bad) { /* polylines that do not close along the rectangle */
        o.cancelled = 0;
        strata__out_discard(&o);
        errno = saved_errno;
        return STRATA_ERR_INVALID_ARG;
    }
    const char *const paths[1] = {path};
    return strata__write_finish(ctx, &o, paths, 1, saved_errno);
}
