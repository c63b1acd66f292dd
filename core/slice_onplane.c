/* The slicer's bookkeeping for vertices lying exactly on their plane:
 * wedges, their bottom copies and fins (see slice_onplane.h).  Scalar
 * only; the common path (core/slice.c) skips all of it when no vertex
 * lies on its plane. */
#include "ctx.h"
#include "mesh.h"
#include "par.h"
#include "slice_onplane.h"
#include "../simd/slice.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Triangles per block of the parallel filter. */
#define HOT_BLOCK 65536

/* The triangles with a corner on its plane, in triangle order, by a
 * parallel blocked filter (count per block, prefix sum, fill). */
static strata_status hot_triangles(strata_ctx *ctx, strata_scratch *sc, const strata_mesh *m,
                                   const uint8_t *on, uint32_t **out, uint32_t *nout)
{
    const int64_t T64 = m->ntris, nblk = (T64 + HOT_BLOCK - 1) / HOT_BLOCK;
    uint32_t *blk = strata__scratch_alloc(sc, (size_t)nblk + 1, sizeof(uint32_t));
    if (!blk)
        return STRATA_ERR_NOMEM;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t b = 0; b < nblk; b++) {
        uint32_t cnt = 0;
        const int64_t t1 = (b + 1) * HOT_BLOCK < T64 ? (b + 1) * HOT_BLOCK : T64;
        for (int64_t t = b * HOT_BLOCK; t < t1; t++)
            cnt += (on[m->a[t]] | on[m->b[t]] | on[m->c[t]]) != 0;
        blk[b] = cnt;
    }
    uint32_t nhot = 0;
    for (int64_t b = 0; b < nblk; b++) {
        const uint32_t cnt = blk[b];
        blk[b] = nhot;
        nhot += cnt;
    }
    uint32_t *hot = strata__scratch_alloc(sc, nhot, sizeof(uint32_t));
    if (!hot)
        return STRATA_ERR_NOMEM;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t b = 0; b < nblk; b++) {
        uint32_t at = blk[b];
        if (at == (b + 1 < nblk ? blk[b + 1] : nhot))
            continue; /* no hot triangle here (the usual case) */
        const int64_t t1 = (b + 1) * HOT_BLOCK < T64 ? (b + 1) * HOT_BLOCK : T64;
        for (int64_t t = b * HOT_BLOCK; t < t1; t++)
            if (on[m->a[t]] | on[m->b[t]] | on[m->c[t]])
                hot[at++] = (uint32_t)t;
    }
    *out = hot;
    *nout = nhot;
    return STRATA_OK;
}

static int cmp_u32(const void *pa, const void *pb)
{
    const uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

/* The wedge edges: those whose crossing at the high end is that end (a
 * vertex on its plane).  Each lies in a hot triangle: collect (count,
 * then fill), sort, drop repeats. */
static strata_status wedge_edges(strata_scratch *sc, const strata_mesh *m, const uint16_t *band,
                                 const uint8_t *on, const uint32_t *hot, uint32_t nhot,
                                 uint32_t **out, uint32_t *nout)
{
    uint32_t *wedge_e = NULL, ncand = 0;
    for (int pass = 0; pass < 2; pass++) {
        ncand = 0;
        for (uint32_t h = 0; h < nhot; h++) {
            const uint32_t t = hot[h];
            const uint32_t v[3] = {m->a[t], m->b[t], m->c[t]};
            const uint32_t e[3] = {m->e0[t], m->e1[t], m->e2[t]};
            for (int i = 0; i < 3; i++) {
                const uint32_t p = v[i], q = v[(i + 1) % 3];
                if (band[p] == band[q] || !on[band[p] < band[q] ? q : p])
                    continue;
                if (pass == 1)
                    wedge_e[ncand] = e[i];
                ncand++;
            }
        }
        if (pass == 0 && !(wedge_e = strata__scratch_alloc(sc, ncand, sizeof(uint32_t))))
            return STRATA_ERR_NOMEM;
    }
    qsort(wedge_e, ncand, sizeof(uint32_t), cmp_u32);
    uint32_t nw = 0;
    for (uint32_t i = 0; i < ncand; i++)
        if (nw == 0 || wedge_e[nw - 1] != wedge_e[i])
            wedge_e[nw++] = wedge_e[i];
    *out = wedge_e;
    *nout = nw;
    return STRATA_OK;
}

/* Wedges: a union-find over positions in wedge_e, parents in parent[];
 * two wedge edges from q into one triangle whose other corners are both
 * below q's plane bound the same wedge.  The smaller position becomes the
 * root, so a parent always comes before its children. */
static void join_wedges(const strata_onplane *op, const strata_mesh *m, const uint16_t *band,
                        const uint8_t *on, const uint32_t *hot, uint32_t nhot, uint32_t *parent)
{
    for (uint32_t i = 0; i < op->nwedge; i++)
        parent[i] = i;
    for (uint32_t h = 0; h < nhot; h++) {
        const uint32_t t = hot[h];
        const uint32_t v[3] = {m->a[t], m->b[t], m->c[t]};
        const uint32_t e[3] = {m->e0[t], m->e1[t], m->e2[t]};
        for (int i = 0; i < 3; i++) {
            const uint32_t q = v[i];
            const uint32_t p1 = v[(i + 1) % 3], p2 = v[(i + 2) % 3];
            if (!on[q] || band[p1] >= band[q] || band[p2] >= band[q])
                continue;
            uint32_t ra = strata__onplane_rank(op, e[i]); /* sides q-p1, p2-q */
            uint32_t rb = strata__onplane_rank(op, e[(i + 2) % 3]);
            while (parent[ra] != ra)
                ra = parent[ra] = parent[parent[ra]];
            while (parent[rb] != rb)
                rb = parent[rb] = parent[parent[rb]];
            if (ra != rb) {
                if (ra < rb)
                    parent[rb] = ra;
                else
                    parent[ra] = rb;
            }
        }
    }
}

/* Each wedge edge's root (join_wedges' parents come first, so each edge
 * finds its parent's root final), and the bottom copies: the wedges whose
 * root is an own edge are numbered from first_id in the order of their
 * roots, first[] marking the roots; the others (context wedges) get
 * UINT32_MAX.  Returns the number of copies. */
static uint32_t number_wedges(const strata_onplane *op, uint32_t own_edges, uint32_t first_id,
                              uint32_t *root, uint32_t *bot, uint8_t *first)
{
    uint64_t next = first_id;
    for (uint32_t i = 0; i < op->nwedge; i++) {
        if (root[i] != i) {
            root[i] = root[root[i]];
            bot[i] = bot[root[i]];
            first[i] = 0;
            continue;
        }
        first[i] = op->wedge_e[i] < own_edges;
        bot[i] = !first[i] ? UINT32_MAX : (uint32_t)(next > UINT32_MAX ? UINT32_MAX : next);
        next += first[i];
    }
    return (uint32_t)(next - first_id);
}

/* A possible fin side: an input edge lying in a plane with the third
 * corner of a triangle below it, and the wedge edges (their ranks) at its
 * two ends in that triangle. */
typedef struct {
    uint32_t edge;
    uint64_t wedges;
} fin_cand;

static int cmp_fin_cand(const void *pa, const void *pb)
{
    const fin_cand *a = pa, *b = pb;
    if (a->edge != b->edge)
        return a->edge < b->edge ? -1 : 1;
    return a->wedges < b->wedges ? -1 : a->wedges > b->wedges;
}

/* Join the wedges of a and b (the smaller root becomes the parent, as in
 * join_wedges). */
static void join_two(uint32_t *parent, uint32_t a, uint32_t b)
{
    while (parent[a] != a)
        a = parent[a] = parent[parent[a]];
    while (parent[b] != b)
        b = parent[b] = parent[parent[b]];
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

/* Fins: an input edge lying in plane k with the third corners of both its
 * triangles below.  Each triangle would stand a wall on it, back to back
 * with the other's, enclosing nothing: both are dropped, and the two
 * roofs below meet on the edge's bottom line.  So that they share it by
 * id as they do by position, the wedges on its two sides are joined at
 * each end (under a ridge lying in a plane, a vertex's lower neighbours
 * on both sides are one wedge): a ridge of several edges then keeps no
 * wall pair over distinct bottom copies at one spot, which welding by
 * position would find as two walls on one another.  Candidates (edge,
 * wedge edges at its ends in vertex id order) come from the hot
 * triangles, sorted by edge: an edge with exactly two candidates is a
 * fin.  Runs before number_wedges, on join_wedges' parents. */
static strata_status find_fins(strata_scratch *sc, const strata_mesh *m, const uint16_t *band,
                               const uint8_t *on, const uint32_t *hot, uint32_t nhot,
                               uint32_t *parent, strata_onplane *op)
{
    fin_cand *cand = NULL;
    uint32_t *fins = NULL, ncand = 0, nfins = 0;
    for (int pass = 0; pass < 2; pass++) {
        ncand = 0;
        for (uint32_t h = 0; h < nhot; h++) {
            const uint32_t t = hot[h];
            const uint32_t v[3] = {m->a[t], m->b[t], m->c[t]};
            const uint32_t e[3] = {m->e0[t], m->e1[t], m->e2[t]};
            for (int i = 0; i < 3; i++) {
                const uint32_t u = v[i], w = v[(i + 1) % 3], r3 = v[(i + 2) % 3];
                if (!on[u] || !on[w] || band[u] != band[w] || band[r3] >= band[u])
                    continue;
                if (pass == 1) {
                    const uint32_t wu = strata__onplane_rank(op, e[(i + 2) % 3]),
                                   ww = strata__onplane_rank(op, e[(i + 1) % 3]);
                    cand[ncand].edge = e[i];
                    cand[ncand].wedges = u < w ? (uint64_t)wu << 32 | ww
                                               : (uint64_t)ww << 32 | wu;
                }
                ncand++;
            }
        }
        if (pass == 0) {
            if (ncand == 0)
                return STRATA_OK;
            cand = strata__scratch_alloc(sc, ncand, sizeof *cand);
            fins = strata__scratch_alloc(sc, ncand, sizeof(uint32_t));
            if (!cand || !fins)
                return STRATA_ERR_NOMEM;
        }
    }
    qsort(cand, ncand, sizeof *cand, cmp_fin_cand);
    for (uint32_t i = 0; i < ncand;) {
        uint32_t j = i + 1;
        while (j < ncand && cand[j].edge == cand[i].edge)
            j++;
        if (j - i == 2) {
            join_two(parent, (uint32_t)(cand[i].wedges >> 32), (uint32_t)(cand[i + 1].wedges >> 32));
            join_two(parent, (uint32_t)cand[i].wedges, (uint32_t)cand[i + 1].wedges);
            fins[nfins++] = cand[i].edge;
        }
        i = j;
    }
    op->fins = fins;
    op->nfins = nfins;
    return STRATA_OK;
}

strata_status strata__onplane_build(strata_ctx *ctx, strata_scratch *sc, const strata_mesh *m,
                                    const uint16_t *band, const uint8_t *on, uint32_t own_edges,
                                    uint32_t first_id, strata_onplane *out)
{
    memset(out, 0, sizeof *out);
    uint32_t *hot, nhot, *wedge_e, nw;
    strata_status st = hot_triangles(ctx, sc, m, on, &hot, &nhot);
    if (st == STRATA_OK)
        st = wedge_edges(sc, m, band, on, hot, nhot, &wedge_e, &nw);
    if (st != STRATA_OK)
        return st;
    uint32_t *root = strata__scratch_alloc(sc, nw, sizeof(uint32_t));
    uint32_t *bot = strata__scratch_alloc(sc, nw, sizeof(uint32_t));
    uint8_t *first = strata__scratch_alloc(sc, nw, 1);
    if (!root || !bot || !first)
        return STRATA_ERR_NOMEM;
    out->nwedge = nw;
    out->wedge_e = wedge_e;
    join_wedges(out, m, band, on, hot, nhot, root);
    if (nw > 0 && (st = find_fins(sc, m, band, on, hot, nhot, root, out)) != STRATA_OK)
        return st;
    out->nbottom = number_wedges(out, own_edges, first_id, root, bot, first);
    out->wedge_bot = bot;
    out->wedge_first = first;
    return STRATA_OK;
}

/* ------------------------------------------------------------ snapping */

/* Crossings within this many ulps (of the largest coordinate; up to twice
 * as many) of an end in every coordinate are near it. */
#define NEAR_ULPS 16

/* Crossings within this many ulps (as NEAR_ULPS) of an end in every
 * coordinate land on it: no triangle keeps a side that short (the bound
 * of README.md, tests/poscheck.h). */
#define SNAP_ULPS 4

enum { FAR = 0, LANDS = 1, NEAR = 2 };

/* Where the crossing at (px, py, pz) on the edge from `other` to v, moved
 * to `level`, lies from v's own point at that level: LANDS on it (every
 * coordinate within SNAP_ULPS to twice that many ulps of the largest
 * coordinate, the level's included; FLAT, which keeps x and z, also one
 * of x, z that the edge changes when the crossing is near), NEAR it (within NEAR_ULPS to twice
 * that many ulps of the largest coordinate in every coordinate; then *nc
 * is filled but for its key), or FAR. */
static int crossing_at(const strata_place *g, float px, float py, float pz,
                       const strata_snap_end *v, const strata_snap_end *other, float level,
                       strata_near_cut *nc)
{
    const float xv = v->x, yv = v->y, zv = v->z;
    if (g->geometry == STRATA_FLAT) { /* y is the level for all */
        if (px == xv && pz == zv)
            return LANDS;
        const float big = fmaxf(fmaxf(fmaxf(fabsf(xv), fabsf(zv)), fmaxf(fabsf(px), fabsf(pz))),
                                fabsf(level));
        const float tol = NEAR_ULPS * 0x1p-23f * big; /* 16 to 32 ulps */
        if (!(fabsf(px - xv) <= tol && fabsf(pz - zv) <= tol))
            return FAR;
        const float stol = SNAP_ULPS * 0x1p-23f * big;
        if ((px == xv && other->x != xv) || (pz == zv && other->z != zv) ||
            (fabsf(px - xv) <= stol && fabsf(pz - zv) <= stol))
            return LANDS;
        *nc = (strata_near_cut){0, {px, level, pz}, {xv, level, zv},
                                {other->x - xv, 0.0f, other->z - zv}};
        return NEAR;
    }
    /* The projection keeps the direction from the centre: two points
     * project near one another only if their directions agree to a few
     * parts in 2^23.  Those farther apart (nearly every crossing) are not
     * projected. */
    const double a[3] = {(double)px - g->center[0], (double)py - g->center[1],
                         (double)pz - g->center[2]};
    const double b[3] = {(double)xv - g->center[0], (double)yv - g->center[1],
                         (double)zv - g->center[2]};
    const double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                         a[0] * b[1] - a[1] * b[0]};
    const double s2 = c[0] * c[0] + c[1] * c[1] + c[2] * c[2],
                 ab2 = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) *
                       (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    if (s2 > 0x1p-30 * ab2) /* sin^2 of their angle over (2^-15)^2 */
        return FAR;
    strata_near_cut n;
    strata__place_point(g, px, py, pz, level, &n.c[0], &n.c[1], &n.c[2]);
    strata__place_point(g, xv, yv, zv, level, &n.v[0], &n.v[1], &n.v[2]);
    if (n.c[0] == n.v[0] && n.c[1] == n.v[1] && n.c[2] == n.v[2])
        return LANDS;
    const float big = fmaxf(fmaxf(fabsf(n.v[0]), fabsf(n.v[1])), fabsf(n.v[2]));
    const float tol = NEAR_ULPS * 0x1p-23f * big;
    if (!(fabsf(n.c[0] - n.v[0]) <= tol && fabsf(n.c[1] - n.v[1]) <= tol &&
          fabsf(n.c[2] - n.v[2]) <= tol))
        return FAR;
    const float stol = SNAP_ULPS * 0x1p-23f * big;
    if (fabsf(n.c[0] - n.v[0]) <= stol && fabsf(n.c[1] - n.v[1]) <= stol &&
        fabsf(n.c[2] - n.v[2]) <= stol)
        return LANDS;
    n.d[0] = other->x - xv;
    n.d[1] = other->y - yv;
    n.d[2] = other->z - zv;
    *nc = n;
    return NEAR;
}

void strata__snap_edge(const strata_place *g, const float *L, const strata_snap_end *p,
                       const strata_snap_end *q, uint64_t *lands, strata_near_cut *near,
                       uint32_t *nl, uint32_t *nn)
{
    const uint32_t bp = p->band, bq = q->band;
    if (bq - q->on <= bp)
        return; /* its one crossing is q itself */
    const float hp = p->h, dh = q->h - hp;
    const float fmax = 0x1p-8f * dh;
    const float fq = q->on ? INFINITY : q->h - L[bq], fp = p->on ? INFINITY : L[bp + 1] - hp;
    const float dx = q->x - p->x, dy = q->y - p->y, dz = q->z - p->z;
    /* A crossing a fraction f = |L[k] - h_v| / |dh| of the edge from its
     * end v is about f * |d| from it, so it can come near v (16 to 32
     * ulps of the coordinates, plus the rounding of t * d) only if
     * |L[k] - h_v| * D <= |dh| * 2^-16 * (D + big), D the largest
     * coordinate change, big the largest coordinate.  (On RADIAL meshes
     * this misses edges steeper than about 10:1, whose crossings are near
     * their ends in the projection while far in space.) */
    const int flat = g->geometry == STRATA_FLAT;
    const float D = fmaxf(fmaxf(fabsf(dx), flat ? 0.0f : fabsf(dy)), fabsf(dz));
    const float big = fmaxf(fmaxf(fmaxf(fabsf(p->x), fabsf(p->z)), fmaxf(fabsf(q->x), fabsf(q->z))),
                            fmaxf(fabsf(p->y), fabsf(q->y)));
    const float reach = fabsf(dh) * 0x1p-16f * (D + big);
    for (int low = 0; low < 2; low++) {
        const strata_snap_end *v = low ? p : q, *other = low ? q : p;
        const uint32_t k = low ? bp + 1u : bq;
        const float f = low ? fp : fq;
        if (!(f <= fmax) || f * D > reach)
            continue;
        const float t = (L[k] - hp) / dh;
        const float px = p->x + t * dx, py = p->y + t * dy, pz = p->z + t * dz;
        strata_near_cut nc;
        const int at = crossing_at(g, px, py, pz, v, other, L[v->band], &nc);
        const uint64_t key = (uint64_t)v->id << 1 | (unsigned)low;
        if (at == LANDS) {
            if (lands)
                lands[*nl] = key;
            ++*nl;
        } else if (at == NEAR) {
            if (near) {
                nc.key = key;
                near[*nn] = nc;
            }
            ++*nn;
        }
    }
}

/* Edge e's ends that crossings land on or come near (strata__snap_edge),
 * the key of an end its vertex id: first by heights alone, the flags and
 * coordinates only then. */
static inline void snap_edge(const strata_place *g, const strata_mesh *m, const float *L,
                             const uint16_t *band, const uint8_t *on, uint32_t e,
                             uint64_t *lands, strata_near_cut *near, uint32_t *nl, uint32_t *nn)
{
    uint32_t p = m->ev0[e], q = m->ev1[e];
    if (band[p] == band[q])
        return;
    if (band[p] > band[q]) { /* canonical direction: low to high */
        const uint32_t tmp = p;
        p = q;
        q = tmp;
    }
    if (!strata__snap_may(L, m->h[p], m->h[q], band[p], band[q]))
        return;
    const strata_snap_end ep = {m->x[p], m->y[p], m->z[p], m->h[p], band[p], on[p], p};
    const strata_snap_end eq = {m->x[q], m->y[q], m->z[q], m->h[q], band[q], on[q], q};
    strata__snap_edge(g, L, &ep, &eq, lands, near, nl, nn);
}

/* Do crossings i and j near one end lie on one point or on one line with
 * it, as placed, though their edges leave the end in different directions
 * (and not in nearly opposite ones, which no triangle has both of: on a
 * grid, the crossings of a row's two edges at a vertex always lie on its
 * line)?  Then the triangle of the three would have no area, and so would
 * any triangle with both crossings if they are at one point. */
static int flat_with(const strata_near_cut *i, const strata_near_cut *j)
{
    double a[3], b[3], di[3], dj[3];
    for (int c = 0; c < 3; c++) {
        a[c] = (double)i->c[c] - i->v[c];
        b[c] = (double)j->c[c] - j->v[c];
        di[c] = i->d[c];
        dj[c] = j->d[c];
    }
    const double e[3] = {di[1] * dj[2] - di[2] * dj[1], di[2] * dj[0] - di[0] * dj[2],
                         di[0] * dj[1] - di[1] * dj[0]};
    const double e2 = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
    const double dd = di[0] * dj[0] + di[1] * dj[1] + di[2] * dj[2];
    const double n2 = (di[0] * di[0] + di[1] * di[1] + di[2] * di[2]) *
                      (dj[0] * dj[0] + dj[1] * dj[1] + dj[2] * dj[2]);
    if (e2 == 0 || (dd < 0 && e2 <= 0.01 * n2)) /* one line, or within 6 degrees of it */
        return 0;
    return a[1] * b[2] - a[2] * b[1] == 0 && a[2] * b[0] - a[0] * b[2] == 0 &&
           a[0] * b[1] - a[1] * b[0] == 0;
}

static int cmp_u64(const void *pa, const void *pb)
{
    const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

static int cmp_near(const void *pa, const void *pb)
{
    return cmp_u64(&((const strata_near_cut *)pa)->key, &((const strata_near_cut *)pb)->key);
}

uint32_t strata__snap_decide(uint64_t *snap, uint32_t ns, strata_near_cut *near, uint32_t nn)
{
    /* Crossings near one end of the same plane, two by two: an end with
     * two on one line with it (or at one point) snaps too. */
    qsort(near, nn, sizeof *near, cmp_near);
    for (uint32_t i = 0; i < nn;) {
        uint32_t j = i + 1, bad = 0;
        while (j < nn && near[j].key == near[i].key)
            j++;
        for (uint32_t x = i; x < j && !bad; x++)
            for (uint32_t y = x + 1; y < j && !bad; y++)
                bad = flat_with(&near[x], &near[y]);
        if (bad)
            snap[ns++] = near[i].key;
        i = j;
    }
    /* (vertex << 1 | below) sorted: a vertex's first entry says how it
     * snaps (above first). */
    qsort(snap, ns, sizeof *snap, cmp_u64);
    uint32_t n = 0;
    for (uint32_t i = 0; i < ns; i++)
        if (n == 0 || snap[i] >> 1 != snap[n - 1] >> 1)
            snap[n++] = snap[i];
    return n;
}

/* The placement of m's points. */
static strata_place place_of(const strata_mesh *m)
{
    return (strata_place){m->geometry, {m->center[0], m->center[1], m->center[2]}, m->radius};
}

/* snap_edge over the own edges of block b that cross a plane (by the
 * bitmap). */
static void snap_own_edges(const strata_snap_scan *s, const strata_place *g, size_t b,
                           uint64_t *lands, strata_near_cut *near, uint32_t *nl, uint32_t *nn)
{
    const size_t e0 = b * STRATA_SNAP_BLOCK;
    const size_t e1 = s->own_edges - e0 < STRATA_SNAP_BLOCK ? s->own_edges : e0 + STRATA_SNAP_BLOCK;
    for (size_t w = e0 / 64; w * 64 < e1; w++)
        for (uint64_t bits = s->cross[w]; bits; bits &= bits - 1)
            snap_edge(g, s->m, s->L, s->band, s->on,
                      (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits)), lands, near, nl, nn);
}

uint32_t strata__snap_count_own(const strata_snap_scan *s, size_t b)
{
    const strata_place g = place_of(s->m);
    uint32_t nl = 0, nn = 0;
    snap_own_edges(s, &g, b, NULL, NULL, &nl, &nn);
    return nl + nn;
}

strata_status strata__onplane_snap(strata_scratch *sc, const strata_snap_scan *s,
                                   const uint32_t *own, uint16_t *band, uint8_t *on,
                                   uint64_t *nsnap, uint64_t *nraised)
{
    *nsnap = *nraised = 0;
    const strata_mesh *m = s->m;
    const strata_place g = place_of(m);
    const size_t nown = ((size_t)s->own_edges + STRATA_SNAP_BLOCK - 1) / STRATA_SNAP_BLOCK;
    uint64_t nflag = 0;
    for (size_t b = 0; b < nown; b++)
        nflag += own[b];
    /* the context edges (few): all of them */
    uint32_t nl = 0, nn = 0;
    for (size_t e = s->own_edges; e < m->nedges; e++)
        snap_edge(&g, m, s->L, band, on, (uint32_t)e, NULL, NULL, &nl, &nn);
    nflag += nl + nn;
    if (nflag == 0)
        return STRATA_OK; /* the usual case */
    /* The rare blocks again, serially, in edge order. */
    uint64_t *snap = strata__scratch_alloc(sc, nflag, sizeof(uint64_t));
    strata_near_cut *near = strata__scratch_alloc(sc, nflag, sizeof(strata_near_cut));
    if (!snap || !near)
        return STRATA_ERR_NOMEM;
    uint32_t ns = 0;
    nn = 0;
    for (size_t b = 0; b < nown; b++)
        if (own[b])
            snap_own_edges(s, &g, b, snap, near, &ns, &nn);
    for (size_t e = s->own_edges; e < m->nedges; e++)
        snap_edge(&g, m, s->L, band, on, (uint32_t)e, snap, near, &ns, &nn);
    ns = strata__snap_decide(snap, ns, near, nn);
    for (uint32_t i = 0; i < ns; i++) {
        const uint32_t v = (uint32_t)(snap[i] >> 1);
        band[v] = (uint16_t)(band[v] + (snap[i] & 1u));
        on[v] = 1;
        *nraised += snap[i] & 1u;
    }
    *nsnap = ns;
    return STRATA_OK;
}

void strata__onplane_place(strata_ctx *ctx, const strata_onplane *op, const strata_mesh *m,
                           const uint16_t *band, const float *L, const strata_place *g, float *x,
                           float *y, float *z)
{
    const int64_t nw = op->nwedge;
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (nw > HOT_BLOCK)
    for (int64_t i = 0; i < nw; i++) {
        if (!op->wedge_first[i])
            continue;
        const uint32_t e = op->wedge_e[i], b = op->wedge_bot[i];
        const uint32_t p = m->ev0[e], q = m->ev1[e];
        const uint32_t top = band[p] > band[q] ? p : q; /* the end on its plane */
        strata__place_point(g, m->x[top], m->y[top], m->z[top], L[band[top] - 1], &x[b], &y[b],
                            &z[b]);
    }
}
