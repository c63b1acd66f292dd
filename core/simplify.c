/* strata_result_simplify_roofs: each terrace's roof re-triangulated with
 * fewer triangles, its border locked, by half-edge collapses checked with
 * exact-enough predicates.
 *
 * Why not meshoptimizer's simplifier (meshopt_simplify with
 * meshopt_SimplifyLockBorder, in Debian's 0.18): tried first, on a
 * 256-cell terrain with 16 terraces 13 of 16 flat roofs came out with
 * triangles of zero or slightly negative area (its flip test is a
 * non-strict sign test in float, on positions rescaled to the unit cube),
 * and on a level-6 planet every roof had a triangle facing inwards, even
 * at a target error of 6e-8, so nearly all
 * roofs failed the slicer's guarantees and had to be kept.  A collapse
 * needs only two things checked, here in double from the float
 * positions: every triangle of the vertex's star keeps a clearly positive
 * orientation with the vertex moved onto its neighbour (seen from above;
 * on planets from the centre), and on planets lies no deeper than err x R
 * below its sphere.  Then no vertex is moved or added (roofs stay
 * exactly on their planes and spheres, walls and neighbouring tiles keep
 * every vertex they share, bit for bit), the border is untouched, and the
 * roof covers what it covered (the star is re-triangulated as a fan).
 * Each result is checked again as a whole before it replaces the roof:
 *
 *   local ids     the roof renumbered densely
 *   border_of     its directed edges used once: what must not change
 *   collapse      inner vertices in id order, nearest neighbour first,
 *                 rounds until one changes nothing
 *   accept        no edge used twice one way, the same border edges, no
 *                 new triangle facing down (in) or of zero area, planets
 *                 within err (else the roof is kept)
 *
 * Ranges are independent and each is done by one thread, so the bytes do
 * not depend on the thread count. */
#include "alloc.h"
#include "ctx.h"
#include "mesh.h"
#include "result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define UNSEEN UINT32_MAX
#define RADIX 65536 /* the radix sort's 16-bit digits */

/* One thread's working memory, sized for the largest roof. */
typedef struct scratch {
    uint32_t *map;   /* nverts: global id -> local id, UNSEEN between roofs */
    uint32_t *back;  /* local id -> global id */
    uint32_t *local; /* the roof in local ids */
    uint32_t *dst;   /* the simplified roof */
    float *pos;      /* local positions, xyz interleaved */
    uint64_t *edges; /* directed edges, for borders */
    uint64_t *tmp;   /* the radix sort's other half */
    uint64_t *count; /* and its RADIX counters */
    uint64_t *border;
    uint8_t *fresh;  /* per triangle of dst: made by a collapse */
} scratch;

/* What became of one roof. */
typedef struct roof {
    uint64_t first, count; /* the range before */
    uint32_t *out;         /* its new triangles (global ids), or NULL: kept */
    uint64_t nout;
    double err;            /* planets: the deepest point below its sphere / R */
    strata_status st;
} roof;

static void scratch_free(const strata_allocator *al, scratch *s)
{
    void *p[] = {s->map,  s->back, s->local,  s->dst,  s->pos,
                 s->edges, s->tmp, s->count, s->border, s->fresh};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        strata__free(al, p[i]);
    memset(s, 0, sizeof *s);
}

static int scratch_alloc(const strata_allocator *al, scratch *s, uint32_t nverts, uint64_t max)
{
    memset(s, 0, sizeof *s);
    const size_t n = (size_t)max + 1;
    s->map = strata__alloc_array(al, nverts ? nverts : 1, sizeof *s->map);
    s->back = strata__alloc_array(al, n, sizeof *s->back);
    s->local = strata__alloc_array(al, n, sizeof *s->local);
    s->dst = strata__alloc_array(al, n, sizeof *s->dst);
    s->pos = strata__alloc_array(al, n, 3 * sizeof *s->pos);
    s->edges = strata__alloc_array(al, n, sizeof *s->edges);
    s->border = strata__alloc_array(al, 2 * n, sizeof *s->border);
    s->fresh = strata__alloc_array(al, n, 1);
    s->tmp = strata__alloc_array(al, n, sizeof *s->tmp);
    s->count = strata__alloc_array(al, RADIX, sizeof *s->count);
    if (!s->map || !s->back || !s->local || !s->dst || !s->pos || !s->edges || !s->border ||
        !s->fresh || !s->tmp || !s->count) {
        scratch_free(al, s);
        return 0;
    }
    memset(s->map, 0xff, (size_t)(nverts ? nverts : 1) * sizeof *s->map);
    return 1;
}

/* Sort n keys (LSD radix, 16-bit digits, passes whose digit is the same
 * for all keys skipped); tmp: room for n, count: RADIX counters. */
static void sort_u64(uint64_t *a, uint64_t *tmp, uint64_t *count, uint64_t n)
{
    for (int shift = 0; shift < 64; shift += 16) {
        memset(count, 0, RADIX * sizeof *count);
        for (uint64_t i = 0; i < n; i++)
            count[(a[i] >> shift) & 0xffff]++;
        if (n == 0 || count[(a[0] >> shift) & 0xffff] == n)
            continue;
        uint64_t sum = 0;
        for (int d = 0; d < RADIX; d++) {
            const uint64_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (uint64_t i = 0; i < n; i++)
            tmp[count[(a[i] >> shift) & 0xffff]++] = a[i];
        memcpy(a, tmp, (size_t)n * sizeof *a);
    }
}

/* The directed edges of n indices used once (their reverse unused), as
 * min << 33 | max << 1 | (from > to), sorted, into out; returns how many,
 * or UINT64_MAX if an edge is used twice the same way or more than twice
 * (not a manifold: the roof is left alone) or ids reach 2^31.  edges,
 * tmp: room for n; count: RADIX. */
static uint64_t border_of(const uint32_t *ix, uint64_t n, uint32_t nl, uint64_t *edges,
                          uint64_t *tmp, uint64_t *count, uint64_t *out)
{
    if (nl >= 1u << 31)
        return UINT64_MAX;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t a = ix[i], b = ix[i - i % 3 + (i % 3 + 1) % 3];
        edges[i] = a < b ? a << 33 | b << 1 : b << 33 | a << 1 | 1;
    }
    sort_u64(edges, tmp, count, n);
    uint64_t m = 0;
    for (uint64_t i = 0; i < n;) {
        if (i + 1 < n && edges[i] >> 1 == edges[i + 1] >> 1) {
            if (edges[i] == edges[i + 1] || (i + 2 < n && edges[i + 2] >> 1 == edges[i] >> 1))
                return UINT64_MAX;
            i += 2;
        } else {
            out[m++] = edges[i++];
        }
    }
    return m;
}

/* How far the triangle (a, b, d) (positions relative to the centre)
 * dips below the sphere through its farthest corner: that radius minus
 * the distance from the centre to the nearest point of the triangle (the
 * foot of the centre on its plane when that lies inside it, else a point
 * of an edge).  A sliver's plane is ill-defined, its edges are not, so
 * this is not the plane's depth. */
static double dip(const double a[3], const double b[3], const double d[3])
{
    const double *p[3] = {a, b, d};
    double rad = 0, nearest = INFINITY;
    for (int k = 0; k < 3; k++) {
        const double *u = p[k], *v = p[(k + 1) % 3];
        rad = fmax(rad, sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]));
        const double e[3] = {v[0] - u[0], v[1] - u[1], v[2] - u[2]};
        const double ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
        double t = ee > 0 ? -(u[0] * e[0] + u[1] * e[1] + u[2] * e[2]) / ee : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        const double q[3] = {u[0] + t * e[0], u[1] + t * e[1], u[2] + t * e[2]};
        nearest = fmin(nearest, sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]));
    }
    const double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const double v[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                         u[0] * v[1] - u[1] * v[0]};
    const double nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (nn > 0) { /* the foot f = n (a . n) / |n|^2, inside if on the left of every edge */
        const double s = (a[0] * n[0] + a[1] * n[1] + a[2] * n[2]) / nn;
        const double f[3] = {n[0] * s, n[1] * s, n[2] * s};
        int inside = 1;
        for (int k = 0; k < 3 && inside; k++) {
            const double *x = p[k], *y = p[(k + 1) % 3];
            const double e[3] = {y[0] - x[0], y[1] - x[1], y[2] - x[2]};
            const double g[3] = {f[0] - x[0], f[1] - x[1], f[2] - x[2]};
            const double c[3] = {e[1] * g[2] - e[2] * g[1], e[2] * g[0] - e[0] * g[2],
                                 e[0] * g[1] - e[1] * g[0]};
            inside = c[0] * n[0] + c[1] * n[1] + c[2] * n[2] >= 0;
        }
        if (inside)
            nearest = fmin(nearest, sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]));
    }
    return rad - nearest;
}

/* Every triangle a collapse made faces up (FLAT) or outwards (RADIAL)
 * with an area; on planets also the largest dip of one below its sphere,
 * relative to the radius, into *depth.  The roof's own triangles, left as
 * they were, are not judged (the slicer makes a few of zero area, a cut
 * point rounded onto the vertex next to it). */
static int faces_ok(const strata_result *r, const scratch *s, uint64_t n, double *depth)
{
    *depth = 0;
    for (uint64_t i = 0; i < n; i += 3) {
        if (!s->fresh[i / 3])
            continue;
        const uint32_t a = s->back[s->dst[i]], b = s->back[s->dst[i + 1]];
        const uint32_t c = s->back[s->dst[i + 2]];
        double nv[3];
        strata__tri_cross(r->x, r->y, r->z, a, b, c, nv);
        if (r->geometry == STRATA_FLAT) {
            if (!(nv[1] > 0) || nv[0] != 0 || nv[2] != 0)
                return 0;
            continue;
        }
        double q[3][3];
        for (int k = 0; k < 3; k++) {
            const uint32_t v = k == 0 ? a : k == 1 ? b : c;
            q[k][0] = (double)r->x[v] - r->center[0];
            q[k][1] = (double)r->y[v] - r->center[1];
            q[k][2] = (double)r->z[v] - r->center[2];
        }
        if (!(q[0][0] * nv[0] + q[0][1] * nv[1] + q[0][2] * nv[2] > 0))
            return 0;
        *depth = fmax(*depth, dip(q[0], q[1], q[2]) / r->radius);
    }
    return 1;
}

/* The collapses.  An inner vertex v (on no border edge) is merged into a
 * neighbour u when every triangle around v that does not hold u keeps a
 * clearly positive orientation with u in v's place (twice its area, seen
 * from above or from the centre, above 1e-10 x its longest edge squared and
 * THIN_ULPS ulps of its largest coordinate x its longest edge,
 * far above the rounding of the double sums), i.e. u sees v's whole star,
 * which becomes a fan from u with the same border.  Triangles are
 * (t, corner) slots; each vertex has a list of its corners (dead ones are
 * skipped). */
typedef struct planar {
    uint32_t *tri;   /* 3 per triangle: local vertex ids */
    uint32_t *next;  /* per corner: the next corner of the same vertex */
    uint32_t *head;  /* per vertex: its first corner, UNSEEN: none */
    uint8_t *dead;   /* per triangle: 0 as it was, 1 gone, 2 changed */
    uint8_t *locked; /* per vertex */
    uint8_t *dirty;  /* per vertex: its star changed since it last tried */
} planar;

/* The geometry a collapse is checked against. */
typedef struct shell {
    int radial;
    double c[3];  /* RADIAL: the centre */
    double R;     /* RADIAL: the base radius */
    double err;   /* RADIAL: the deepest a triangle may lie, x R */
} shell;

/* A new triangle's altitudes are at least this many ulps of its largest
 * coordinate (the slicer's bound, README.md: welded by position, no
 * triangle is thinner). */
#define THIN_ULPS 4

/* Whether triangle (a, b, d) of local positions p is clearly positive
 * and, on planets, within the error of its sphere. */
static int tri_ok(const shell *sh, const float *p, uint32_t a, uint32_t b, uint32_t d)
{
    const float *A = p + 3 * (size_t)a, *B = p + 3 * (size_t)b, *D = p + 3 * (size_t)d;
    const double u[3] = {(double)B[0] - A[0], (double)B[1] - A[1], (double)B[2] - A[2]};
    const double v[3] = {(double)D[0] - A[0], (double)D[1] - A[1], (double)D[2] - A[2]};
    const double w[3] = {v[0] - u[0], v[1] - u[1], v[2] - u[2]};
    const double longest = fmax(u[0] * u[0] + u[1] * u[1] + u[2] * u[2],
                                fmax(v[0] * v[0] + v[1] * v[1] + v[2] * v[2],
                                     w[0] * w[0] + w[1] * w[1] + w[2] * w[2]));
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                         u[0] * v[1] - u[1] * v[0]};
    /* and no altitude below THIN_ULPS ulps of its largest coordinate:
     * twice the area over the longest side (2^-23 big is 1 to 2 ulps) */
    float big = 0.0f;
    for (int k = 0; k < 3; k++)
        big = fmaxf(big, fmaxf(fabsf(A[k]), fmaxf(fabsf(B[k]), fabsf(D[k]))));
    const double least = fmax(1e-10 * longest, THIN_ULPS * 0x1p-23 * big * sqrt(longest));
    if (!sh->radial)
        return n[1] > least;
    double q[3][3];
    for (int k = 0; k < 3; k++) {
        const float *P = k == 0 ? A : k == 1 ? B : D;
        for (int j = 0; j < 3; j++)
            q[k][j] = (double)P[j] - sh->c[j];
    }
    /* twice the area seen from the centre: the normal along the radius */
    const double rad = sqrt(q[0][0] * q[0][0] + q[0][1] * q[0][1] + q[0][2] * q[0][2]);
    const double out = (q[0][0] * n[0] + q[0][1] * n[1] + q[0][2] * n[2]) / rad;
    return out > least && dip(q[0], q[1], q[2]) <= sh->err * sh->R;
}

/* Whether merging v into u keeps every surviving triangle of v's star
 * acceptable. */
static int collapse_ok(const planar *pl, const shell *sh, const float *pos, uint32_t v, uint32_t u)
{
    for (uint32_t c = pl->head[v]; c != UNSEEN; c = pl->next[c]) {
        const uint32_t t = c / 3;
        if (pl->dead[t] == 1 || pl->tri[c] != v)
            continue;
        const uint32_t *q = pl->tri + 3 * (size_t)t;
        if (q[0] == u || q[1] == u || q[2] == u)
            continue;
        const uint32_t a = q[0] == v ? u : q[0], b = q[1] == v ? u : q[1], d = q[2] == v ? u : q[2];
        if (!tri_ok(sh, pos, a, b, d))
            return 0;
    }
    return 1;
}

static void collapse(planar *pl, uint32_t v, uint32_t u)
{
    uint32_t c = pl->head[v];
    pl->head[v] = UNSEEN;
    while (c != UNSEEN) {
        const uint32_t nx = pl->next[c], t = c / 3;
        if (pl->dead[t] != 1 && pl->tri[c] == v) {
            uint32_t *q = pl->tri + 3 * (size_t)t;
            if (q[0] == u || q[1] == u || q[2] == u) {
                pl->dead[t] = 1;
            } else {
                pl->dead[t] = 2; /* alive, changed */
                pl->dirty[q[0]] = pl->dirty[q[1]] = pl->dirty[q[2]] = 1;
                pl->tri[c] = u;
                pl->next[c] = pl->head[u];
                pl->head[u] = c;
            }
        }
        c = nx;
    }
}

#define NEAREST 8 /* neighbours tried per vertex and round */

/* Simplify the roof s->local (n indices, nl vertices) into s->dst; returns
 * the indices written.  The border's vertices (border edges in s->border,
 * nb of them) stay. */
static uint64_t simplify_star(const strata_allocator *al, const shell *sh, scratch *s,
                              uint64_t n, uint32_t nl, uint64_t nb, strata_status *st)
{
    planar pl;
    pl.tri = s->dst;
    pl.next = strata__alloc_array(al, (size_t)n, sizeof *pl.next);
    pl.head = strata__alloc_array(al, nl, sizeof *pl.head);
    pl.dead = strata__alloc_array(al, (size_t)n / 3 + 1, 1);
    pl.locked = strata__alloc_array(al, nl, 1);
    pl.dirty = strata__alloc_array(al, nl, 1);
    uint64_t w = 0;
    if (!pl.next || !pl.head || !pl.dead || !pl.locked || !pl.dirty) {
        *st = STRATA_ERR_NOMEM;
        goto done;
    }
    memcpy(pl.tri, s->local, (size_t)n * sizeof *pl.tri);
    memset(pl.dead, 0, (size_t)n / 3 + 1);
    memset(pl.locked, 0, nl);
    memset(pl.dirty, 1, nl);
    for (uint32_t v = 0; v < nl; v++)
        pl.head[v] = UNSEEN;
    for (uint64_t c = n; c-- > 0;) {
        pl.next[c] = pl.head[pl.tri[c]];
        pl.head[pl.tri[c]] = (uint32_t)c;
    }
    for (uint64_t i = 0; i < nb; i++)
        pl.locked[s->border[i] >> 33] = pl.locked[(s->border[i] >> 1) & 0xffffffffu] = 1;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t v = 0; v < nl; v++) {
            if (pl.locked[v] || pl.head[v] == UNSEEN || !pl.dirty[v])
                continue;
            pl.dirty[v] = 0;
            /* the nearest neighbours, by insertion into a short list */
            uint32_t cand[NEAREST];
            double dist[NEAREST];
            int nc = 0;
            for (uint32_t *link = &pl.head[v], c; (c = *link) != UNSEEN; link = &pl.next[c]) {
                while (c != UNSEEN && pl.dead[c / 3] == 1) /* unlink the dead */
                    c = *link = pl.next[c];
                if (c == UNSEEN)
                    break;
                const uint32_t u = pl.tri[3 * (size_t)(c / 3) + (c % 3 + 1) % 3];
                double d = 0;
                for (int k = 0; k < 3; k++) {
                    const double dk = (double)s->pos[3 * (size_t)u + k] - s->pos[3 * (size_t)v + k];
                    d += dk * dk;
                }
                int j = nc < NEAREST ? nc++ : NEAREST;
                if (j == NEAREST && d >= dist[NEAREST - 1])
                    continue;
                if (j == NEAREST)
                    j = NEAREST - 1;
                while (j > 0 && (dist[j - 1] > d || (dist[j - 1] == d && cand[j - 1] > u))) {
                    dist[j] = dist[j - 1];
                    cand[j] = cand[j - 1];
                    j--;
                }
                dist[j] = d;
                cand[j] = u;
            }
            for (int j = 0; j < nc; j++)
                if (collapse_ok(&pl, sh, s->pos, v, cand[j])) {
                    collapse(&pl, v, cand[j]);
                    changed = 1;
                    break;
                }
        }
    }
    for (uint64_t t = 0; t < n / 3; t++)
        if (pl.dead[t] != 1) {
            memmove(s->dst + w, pl.tri + 3 * t, 3 * sizeof *s->dst);
            s->fresh[w / 3] = pl.dead[t] == 2;
            w += 3;
        }
done:
    strata__free(al, pl.next);
    strata__free(al, pl.head);
    strata__free(al, pl.dead);
    strata__free(al, pl.locked);
    strata__free(al, pl.dirty);
    return w;
}

static void simplify_roof(const strata_allocator *al, const strata_result *r, scratch *s,
                          roof *g, double err)
{
    const uint32_t *idx = r->indices + g->first;
    const uint64_t n = g->count;
    uint32_t nl = 0;
    g->st = STRATA_OK;
    for (uint64_t i = 0; i < n; i++) {
        const uint32_t v = idx[i];
        if (s->map[v] == UNSEEN) {
            s->map[v] = nl;
            s->back[nl] = v;
            s->pos[3 * (uint64_t)nl] = r->x[v];
            s->pos[3 * (uint64_t)nl + 1] = r->y[v];
            s->pos[3 * (uint64_t)nl + 2] = r->z[v];
            nl++;
        }
        s->local[i] = s->map[v];
    }
    for (uint32_t j = 0; j < nl; j++)
        s->map[s->back[j]] = UNSEEN;
    const uint64_t nb = border_of(s->local, n, nl, s->edges, s->tmp, s->count, s->border);
    if (nb == UINT64_MAX)
        return; /* kept */
    const shell sh = {r->geometry == STRATA_RADIAL,
                      {r->center[0], r->center[1], r->center[2]},
                      r->radius,
                      err};
    const size_t m = (size_t)simplify_star(al, &sh, s, n, nl, nb, &g->st);
    if (g->st != STRATA_OK || m >= n)
        return; /* nothing gained */
    double depth;
    if (!faces_ok(r, s, m, &depth) || (sh.radial && depth > err))
        return;
    /* the same border, no edge twice: dst's border after the roof's */
    uint64_t *nb2 = s->border + nb;
    if (border_of(s->dst, m, nl, s->edges, s->tmp, s->count, nb2) != nb ||
        memcmp(nb2, s->border, nb * sizeof *nb2))
        return;
    g->out = strata__alloc_array(al, m, sizeof *g->out);
    if (!g->out) {
        g->st = STRATA_ERR_NOMEM;
        return;
    }
    for (size_t i = 0; i < m; i++)
        g->out[i] = s->back[s->dst[i]];
    g->nout = m;
    g->err = depth;
}

typedef struct range_ref {
    uint64_t first, count;
    int is_roof;
    uint32_t k;
} range_ref;

static int cmp_ref(const void *p, const void *q)
{
    const range_ref *x = p, *y = q;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    /* empty ranges at one place: in layout order */
    return x->count != y->count ? (x->count > y->count) - (x->count < y->count)
                                : (x->is_roof < y->is_roof) - (x->is_roof > y->is_roof);
}

/* Rewrite the index array: roofs from their new triangles, walls moved,
 * ranges renumbered; then drop the vertices no triangle uses. */
static strata_status assemble(strata_result *r, roof *g, double *areas_before)
{
    const strata_allocator *al = &r->alloc;
    const uint32_t n = r->nterraces;
    range_ref *refs = strata__alloc_array(al, 2 * (size_t)n, sizeof *refs);
    uint32_t *ids = strata__alloc_array(al, r->nverts ? r->nverts : 1, sizeof *ids);
    if (!refs || !ids) {
        strata__free(al, refs);
        strata__free(al, ids);
        return STRATA_ERR_NOMEM;
    }
    for (uint32_t k = 0; k < n; k++) {
        refs[2 * k] = (range_ref){r->terraces[k].roof_first, r->terraces[k].roof_count, 1, k};
        refs[2 * k + 1] = (range_ref){r->terraces[k].wall_first, r->terraces[k].wall_count, 0, k};
    }
    qsort(refs, 2 * (size_t)n, sizeof *refs, cmp_ref);
    uint64_t w = 0;
    for (uint32_t i = 0; i < 2 * n; i++) {
        strata_terrace *t = &r->terraces[refs[i].k];
        const roof *gr = refs[i].is_roof ? &g[refs[i].k] : NULL;
        const uint64_t start = w;
        if (gr && gr->out) {
            memcpy(r->indices + w, gr->out, (size_t)gr->nout * sizeof *r->indices);
            w += gr->nout;
        } else {
            memmove(r->indices + w, r->indices + refs[i].first,
                    (size_t)refs[i].count * sizeof *r->indices);
            w += refs[i].count;
        }
        if (refs[i].is_roof) {
            t->roof_first = start;
            t->roof_count = w - start;
        } else {
            t->wall_first = start;
            t->wall_count = w - start;
        }
    }
    r->nindices = w;
    for (uint32_t v = 0; v < r->nverts; v++)
        ids[v] = UNSEEN;
    for (uint64_t i = 0; i < r->nindices; i++)
        ids[r->indices[i]] = 0;
    uint32_t nv = 0;
    for (uint32_t v = 0; v < r->nverts; v++) {
        if (ids[v] == UNSEEN)
            continue;
        r->x[nv] = r->x[v];
        r->y[nv] = r->y[v];
        r->z[nv] = r->z[v];
        if (r->nx) {
            r->nx[nv] = r->nx[v];
            r->ny[nv] = r->ny[v];
            r->nz[nv] = r->nz[v];
        }
        ids[v] = nv++;
    }
    for (uint64_t i = 0; i < r->nindices; i++)
        r->indices[i] = ids[r->indices[i]];
    r->nverts = nv;
    /* planets' roofs change their area a little: measure it again */
    for (uint32_t k = 0; k < n && areas_before; k++) {
        strata_terrace *t = &r->terraces[k];
        if (r->geometry == STRATA_FLAT || !g[k].out || !(areas_before[k] > 0))
            continue;
        double sum = 0;
        for (uint64_t i = t->roof_first; i < t->roof_first + t->roof_count; i += 3) {
            double c[3];
            strata__tri_cross(r->x, r->y, r->z, r->indices[i], r->indices[i + 1],
                              r->indices[i + 2], c);
            sum += 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
        }
        t->roof_area = sum;
    }
    strata__free(al, refs);
    strata__free(al, ids);
    return STRATA_OK;
}

strata_status strata_result_simplify_roofs(strata_ctx *ctx, strata_result *r, double err,
                                           strata_simplify_stats *stats)
{
    if (!ctx || !r || !(err > 0) || !isfinite(err) || r->water_count || r->shore_count)
        return STRATA_ERR_INVALID_ARG; /* water, shorelines: added after it */
    uint64_t max = 0, before = 0;
    for (uint32_t k = 0; k < r->nterraces; k++) {
        const strata_terrace *t = &r->terraces[k];
        if (t->roof_count % 3 || t->roof_first > r->nindices ||
            t->roof_count > r->nindices - t->roof_first)
            return STRATA_ERR_INVALID_ARG;
        max = t->roof_count > max ? t->roof_count : max;
        before += t->roof_count / 3;
    }
    if (max > UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    for (uint64_t i = 0; i < r->nindices; i++)
        if (r->indices[i] >= r->nverts)
            return STRATA_ERR_BAD_MESH;
    strata_status st = strata__progress(ctx, "simplify", 0.0);
    if (st != STRATA_OK)
        return st;
    const strata_allocator *al = &ctx->alloc;
    const uint32_t n = r->nterraces;
    roof *g = strata__alloc_array(al, n ? n : 1, sizeof *g);
    double *areas = strata__alloc_array(al, n ? n : 1, sizeof *areas);
    if (!g || !areas) {
        strata__free(al, g);
        strata__free(al, areas);
        return STRATA_ERR_NOMEM;
    }
    for (uint32_t k = 0; k < n; k++) {
        g[k] = (roof){r->terraces[k].roof_first, r->terraces[k].roof_count, NULL, 0, 0.0,
                      STRATA_ERR_CANCELLED};
        areas[k] = r->terraces[k].roof_area;
    }
    int nomem = 0;
#pragma omp parallel num_threads(ctx->threads)
    {
        scratch s;
        const int ok = scratch_alloc(al, &s, r->nverts, max);
        if (!ok) {
#pragma omp atomic write
            nomem = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t k = 0; k < (int64_t)n; k++)
            if (ok && !strata__cancelled(ctx) && g[k].count >= 6)
                simplify_roof(al, r, &s, &g[k], err);
            else if (ok && !strata__cancelled(ctx))
                g[k].st = STRATA_OK;
        if (ok)
            scratch_free(al, &s);
    }
    st = nomem ? STRATA_ERR_NOMEM : STRATA_OK;
    for (uint32_t k = 0; k < n && st == STRATA_OK; k++)
        st = g[k].st;
    strata_simplify_stats sum = {before, 0, 0, 0.0};
    if (st == STRATA_OK)
        st = assemble(r, g, areas);
    for (uint32_t k = 0; k < n; k++) {
        sum.roofs_kept += g[k].count >= 6 && !g[k].out;
        sum.max_error = fmax(sum.max_error, g[k].err);
        strata__free(al, g[k].out);
    }
    for (uint32_t k = 0; k < r->nterraces && st == STRATA_OK; k++)
        sum.roof_triangles_after += r->terraces[k].roof_count / 3;
    strata__free(al, g);
    strata__free(al, areas);
    if (st != STRATA_OK)
        return st;
    if (stats)
        *stats = sum;
    return strata__progress(ctx, "simplify", 1.0);
}
