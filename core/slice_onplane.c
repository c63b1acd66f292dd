/* The slicer's bookkeeping for vertices lying exactly on their plane:
 * wedges, their bottom copies and fins (see slice_onplane.h).  Scalar
 * only; the common path (core/slice.c) skips all of it when no vertex
 * lies on its plane. */
#include "ctx.h"
#include "mesh.h"
#include "slice_onplane.h"
#include "../simd/slice.h"

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
 * corner of a triangle below it, and the wedges (their roots) at its two
 * ends. */
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

/* Fins: an input edge lying in plane k with the third corners of both its
 * triangles below.  Each triangle would stand a wall on it; when both
 * walls also share their bottom copies (lie in the same wedges at both
 * ends) they are the same quad twice, back to back - both are dropped,
 * and the two roofs below then share the bottom edge.  Candidates (edge,
 * wedges at its ends in vertex id order) come from the hot triangles,
 * sorted by edge: an edge with exactly two candidates in the same wedges
 * is a fin.  Wedges are compared by root, not by bottom copy, since a
 * context wedge has none. */
static strata_status find_fins(strata_scratch *sc, const strata_mesh *m, const uint16_t *band,
                               const uint8_t *on, const uint32_t *hot, uint32_t nhot,
                               const uint32_t *root, strata_onplane *op)
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
                    const uint32_t wu = root[strata__onplane_rank(op, e[(i + 2) % 3])],
                                   ww = root[strata__onplane_rank(op, e[(i + 1) % 3])];
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
        if (j - i == 2 && cand[i].wedges == cand[i + 1].wedges)
            fins[nfins++] = cand[i].edge;
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
    out->nbottom = number_wedges(out, own_edges, first_id, root, bot, first);
    out->wedge_bot = bot;
    out->wedge_first = first;
    return nw > 0 ? find_fins(sc, m, band, on, hot, nhot, root, out) : STRATA_OK;
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
