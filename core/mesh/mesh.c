/* strata_mesh: allocation, views, construction from caller arrays and the
 * edge table built by a counting sort of vertex pairs. */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/mesh.h"
#include "base/par.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* e0, e1 and e2 in one block, each 64-byte aligned: the edge table's
 * sort keeps its buckets there (3 * ntris ids) before the sides' edges
 * overwrite them. */
static strata_status alloc_sides(const strata_allocator *al, strata_mesh *m, uint32_t ntris)
{
    const size_t stride = ((size_t)ntris + 15) & ~(size_t)15;
    if (!(m->e0 = strata__alloc_array(al, stride ? 3 * stride : 1, sizeof(uint32_t))))
        return STRATA_ERR_NOMEM;
    m->e1 = m->e0 + stride;
    m->e2 = m->e1 + stride;
    return STRATA_OK;
}

strata_status strata__mesh_alloc(const strata_allocator *al, uint32_t nverts,
                                 uint32_t ntris, uint32_t nedges,
                                 strata_mesh **out)
{
    *out = NULL;
    strata_mesh *m = strata__alloc(al, sizeof *m);
    if (!m)
        return STRATA_ERR_NOMEM;
    memset(m, 0, sizeof *m);
    m->alloc = *al;
    m->nverts = nverts;
    m->ntris = ntris;
    m->nedges = nedges;
    m->geometry = STRATA_FLAT;
    float **fv[] = {&m->x, &m->y, &m->z, &m->h};
    for (size_t i = 0; i < 4; i++)
        if (!(*fv[i] = strata__alloc_array(al, nverts, sizeof(float))))
            goto fail;
    uint32_t **tv[] = {&m->a, &m->b, &m->c};
    for (size_t i = 0; i < 3; i++)
        if (!(*tv[i] = strata__alloc_array(al, ntris, sizeof(uint32_t))))
            goto fail;
    if (alloc_sides(al, m, ntris) != STRATA_OK)
        goto fail;
    if (!(m->ev0 = strata__alloc_array(al, nedges, sizeof(uint32_t))) ||
        !(m->ev1 = strata__alloc_array(al, nedges, sizeof(uint32_t))))
        goto fail;
    *out = m;
    return STRATA_OK;
fail:
    strata_mesh_destroy(m);
    return STRATA_ERR_NOMEM;
}

void strata_mesh_destroy(strata_mesh *m)
{
    if (!m)
        return;
    strata_allocator al = m->alloc;
    void *arrays[] = {m->x, m->y, m->z, m->h, m->a, m->b, m->c,
                      m->e0 /* and e1, e2 */, m->ev0, m->ev1};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        strata__free(&al, arrays[i]);
    strata__free(&al, m);
}

void strata_mesh_get_view(const strata_mesh *m, strata_mesh_view *v)
{
    memset(v, 0, sizeof *v);
    if (!m)
        return;
    v->nverts = m->nverts;
    v->ntris = m->ntris;
    v->nedges = m->nedges;
    v->geometry = m->geometry;
    memcpy(v->center, m->center, sizeof v->center);
    v->radius = m->radius;
    v->x = m->x; v->y = m->y; v->z = m->z; v->h = m->h;
    v->a = m->a; v->b = m->b; v->c = m->c;
    v->e0 = m->e0; v->e1 = m->e1; v->e2 = m->e2;
    v->ev0 = m->ev0; v->ev1 = m->ev1;
}

uint32_t strata_mesh_vertex_count(const strata_mesh *m) { return m ? m->nverts : 0; }
uint32_t strata_mesh_triangle_count(const strata_mesh *m) { return m ? m->ntris : 0; }
uint32_t strata_mesh_edge_count(const strata_mesh *m) { return m ? m->nedges : 0; }

void strata__mesh_update_heights(strata_mesh *m)
{
    if (m->geometry == STRATA_FLAT) {
        memcpy(m->h, m->y, (size_t)m->nverts * sizeof(float));
        return;
    }
    for (uint32_t i = 0; i < m->nverts; i++)
        m->h[i] = strata__height(m, m->x[i], m->y[i], m->z[i]);
}

strata_status strata_mesh_set_geometry(strata_mesh *m, strata_geometry g,
                                       const float *center, float r)
{
    if (!m || (g != STRATA_FLAT && g != STRATA_RADIAL))
        return STRATA_ERR_INVALID_ARG;
    if (g == STRATA_RADIAL) {
        if (!(r > 0.0f) || !isfinite(r))
            return STRATA_ERR_INVALID_ARG;
        if (center && !(isfinite(center[0]) && isfinite(center[1]) && isfinite(center[2])))
            return STRATA_ERR_NOT_FINITE;
        m->center[0] = center ? center[0] : 0.0f;
        m->center[1] = center ? center[1] : 0.0f;
        m->center[2] = center ? center[2] : 0.0f;
        m->radius = r;
    } else {
        memset(m->center, 0, sizeof m->center);
        m->radius = 0.0f;
    }
    m->geometry = g;
    strata__mesh_update_heights(m);
    return STRATA_OK;
}

strata_status strata_mesh_clone(strata_ctx *ctx, const strata_mesh *m, strata_mesh **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !m)
        return STRATA_ERR_INVALID_ARG;
    strata_mesh *c;
    strata_status st = strata__mesh_alloc(&ctx->alloc, m->nverts, m->ntris, m->nedges, &c);
    if (st != STRATA_OK)
        return st;
    size_t fv = (size_t)m->nverts * sizeof(float);
    size_t ft = (size_t)m->ntris * sizeof(uint32_t);
    size_t fe = (size_t)m->nedges * sizeof(uint32_t);
    memcpy(c->x, m->x, fv); memcpy(c->y, m->y, fv);
    memcpy(c->z, m->z, fv); memcpy(c->h, m->h, fv);
    memcpy(c->a, m->a, ft); memcpy(c->b, m->b, ft); memcpy(c->c, m->c, ft);
    memcpy(c->e0, m->e0, ft); memcpy(c->e1, m->e1, ft); memcpy(c->e2, m->e2, ft);
    memcpy(c->ev0, m->ev0, fe); memcpy(c->ev1, m->ev1, fe);
    c->geometry = m->geometry;
    memcpy(c->center, m->center, sizeof c->center);
    c->radius = m->radius;
    c->ghost_verts = m->ghost_verts;
    c->ghost_edges = m->ghost_edges;
    c->ghost_tris = m->ghost_tris;
    *out = c;
    return STRATA_OK;
}

/* ----------------------------------------------------------------------
 * Edge table by a counting sort on the lower vertex.  Each triangle side
 * (p, q) is the pair lo = min, hi = max.  Bucket lo holds the hi of every
 * side whose lower vertex is lo (counted, then placed: one pass each over
 * the triangles); each bucket is sorted and its repeats dropped, so the
 * edges are numbered in (lo, hi) order, which depends only on the
 * triangles, whatever the thread count or the order in which threads
 * placed the sides.  The buckets live in the block of e0, e1 and e2 (3 *
 * ntris ids, what they hold), copied out as ev1 before each side's edge
 * is looked up in them and written over them: besides the mesh's own
 * arrays this takes two uint32 per vertex.  (A sort of 16-byte records
 * took 32 bytes per side, fresh memory whose first-touch page faults
 * cost more than the sort.)
 * -------------------------------------------------------------------- */
enum { EDGE_TRI_BLOCK = 1 << 15, EDGE_VERT_BLOCK = 1 << 14 };

typedef struct {
    strata_mesh *m;
    uint32_t *off;   /* nverts + 1: bucket starts (while placing: ends) */
    uint32_t *base;  /* nverts + 1: first edge id of each bucket */
    uint32_t *hi;    /* 3 * ntris: the buckets' contents (m->e0...) */
    int ranges;      /* vertex ranges counted and placed apart */
} edge_job;

static inline void side_ends(const strata_mesh *m, uint32_t t, int s, uint32_t *lo, uint32_t *hi)
{
    const uint32_t p = s == 0 ? m->a[t] : s == 1 ? m->b[t] : m->c[t];
    const uint32_t q = s == 0 ? m->b[t] : s == 1 ? m->c[t] : m->a[t];
    *lo = p < q ? p : q;
    *hi = p < q ? q : p;
}

/* Counting and placing: each block is a range of vertices (one per
 * thread), whose buckets it fills from a scan of all the triangles.  No
 * two threads write the same counter (atomic increments of shared ones
 * cost more than the scans they save), and each bucket is filled in
 * triangle order. */
static void vertex_range(const edge_job *j, size_t blk, uint32_t *lo, uint32_t *hi)
{
    const uint64_t nv = j->m->nverts;
    *lo = (uint32_t)(nv * blk / (uint64_t)j->ranges);
    *hi = (uint32_t)(nv * (blk + 1) / (uint64_t)j->ranges);
}

static strata_status edge_count(void *arg, size_t blk, int thread)
{
    (void)thread;
    const edge_job *j = arg;
    const strata_mesh *m = j->m;
    uint32_t from, to;
    vertex_range(j, blk, &from, &to);
    uint32_t *restrict off = j->off;
    for (uint32_t t = 0; t < m->ntris; t++)
        for (int s = 0; s < 3; s++) {
            uint32_t lo, hi;
            side_ends(m, t, s, &lo, &hi);
            if (lo >= from && lo < to)
                off[lo]++;
        }
    return STRATA_OK;
}

static strata_status edge_place(void *arg, size_t blk, int thread)
{
    (void)thread;
    const edge_job *j = arg;
    const strata_mesh *m = j->m;
    uint32_t from, to;
    vertex_range(j, blk, &from, &to);
    uint32_t *restrict off = j->off, *restrict h = j->hi;
    for (uint32_t t = 0; t < m->ntris; t++)
        for (int s = 0; s < 3; s++) {
            uint32_t lo, hi;
            side_ends(m, t, s, &lo, &hi);
            if (lo >= from && lo < to)
                h[--off[lo]] = hi;
        }
    return STRATA_OK;
}

static int cmp_u32(const void *p, const void *q)
{
    const uint32_t a = *(const uint32_t *)p, b = *(const uint32_t *)q;
    return (a > b) - (a < b);
}

/* Sort each bucket of the block's vertices, drop repeats, count its edges
 * into base[v]. */
static strata_status edge_sort(void *arg, size_t blk, int thread)
{
    (void)thread;
    const edge_job *j = arg;
    const uint32_t nv = j->m->nverts;
    const uint32_t from = (uint32_t)(blk * EDGE_VERT_BLOCK);
    const uint32_t to = nv - from < EDGE_VERT_BLOCK ? nv : from + EDGE_VERT_BLOCK;
    for (uint32_t v = from; v < to; v++) {
        uint32_t *h = j->hi + j->off[v];
        const uint32_t n = j->off[v + 1] - j->off[v];
        if (n > 32) {
            qsort(h, n, sizeof *h, cmp_u32);
        } else {
            for (uint32_t i = 1; i < n; i++) { /* insertion sort: most buckets hold 3 */
                const uint32_t x = h[i];
                uint32_t k = i;
                for (; k > 0 && h[k - 1] > x; k--)
                    h[k] = h[k - 1];
                h[k] = x;
            }
        }
        uint32_t u = 0;
        for (uint32_t i = 0; i < n; i++)
            if (u == 0 || h[i] != h[u - 1])
                h[u++] = h[i];
        j->base[v] = u;
    }
    return STRATA_OK;
}

/* The edges of the block's buckets: ev0 and ev1. */
static strata_status edge_ends(void *arg, size_t blk, int thread)
{
    (void)thread;
    const edge_job *j = arg;
    strata_mesh *m = j->m;
    const uint32_t from = (uint32_t)(blk * EDGE_VERT_BLOCK);
    const uint32_t to = m->nverts - from < EDGE_VERT_BLOCK ? m->nverts : from + EDGE_VERT_BLOCK;
    for (uint32_t v = from; v < to; v++) {
        const uint32_t *h = j->hi + j->off[v];
        for (uint32_t e = j->base[v], k = 0; e < j->base[v + 1]; e++, k++) {
            m->ev0[e] = v;
            m->ev1[e] = h[k];
        }
    }
    return STRATA_OK;
}

/* Each side's edge: its hi's place among the edges of lo in ev1. */
static strata_status edge_sides(void *arg, size_t blk, int thread)
{
    (void)thread;
    const edge_job *j = arg;
    strata_mesh *m = j->m;
    uint32_t *side[3] = {m->e0, m->e1, m->e2};
    const uint32_t from = (uint32_t)(blk * EDGE_TRI_BLOCK);
    const uint32_t to = m->ntris - from < EDGE_TRI_BLOCK ? m->ntris : from + EDGE_TRI_BLOCK;
    for (uint32_t t = from; t < to; t++)
        for (int s = 0; s < 3; s++) {
            uint32_t lo, hi;
            side_ends(m, t, s, &lo, &hi);
            const uint32_t *h = m->ev1 + j->base[lo];
            uint32_t l = 0, r = j->base[lo + 1] - j->base[lo]; /* hi is in h[0, r) */
            while (r - l > 1) {
                const uint32_t mid = (l + r) / 2;
                if (h[mid] <= hi)
                    l = mid;
                else
                    r = mid;
            }
            side[s][t] = j->base[lo] + l;
        }
    return STRATA_OK;
}

/* Exclusive prefix sums of a[0..n) into a[0..n], returning the total. */
static uint32_t prefix(uint32_t *a, size_t n)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t c = a[i];
        a[i] = sum;
        sum += c;
    }
    a[n] = sum;
    return sum;
}

strata_status strata__mesh_build_edges(strata_ctx *ctx, strata_mesh *m)
{
    const size_t nv = m->nverts, nsides = (size_t)m->ntris * 3;
    edge_job j = {.m = m, .hi = m->e0, .ranges = ctx->threads};
    j.off = strata__alloc_array(&m->alloc, nv + 1, sizeof *j.off);
    j.base = strata__alloc_array(&m->alloc, nv + 1, sizeof *j.base);
    strata_status st = STRATA_ERR_NOMEM;
    if (!j.off || !j.base)
        goto done;
    const size_t tblocks = (m->ntris + (size_t)EDGE_TRI_BLOCK - 1) / EDGE_TRI_BLOCK;
    const size_t vblocks = (nv + (size_t)EDGE_VERT_BLOCK - 1) / EDGE_VERT_BLOCK;
    memset(j.off, 0, (nv + 1) * sizeof *j.off);
    strata__par_blocks(ctx, (size_t)j.ranges, edge_count, &j, NULL, 0, 0, 0);
    /* Inclusive sums: placing counts each bucket's end down to its start. */
    prefix(j.off, nv);
    memmove(j.off, j.off + 1, nv * sizeof *j.off);
    j.off[nv] = (uint32_t)nsides;
    strata__par_blocks(ctx, (size_t)j.ranges, edge_place, &j, NULL, 0, 0, 0);
    strata__par_blocks(ctx, vblocks, edge_sort, &j, NULL, 0, 0, 0);
    const uint32_t nedges = prefix(j.base, nv);
    strata__free(&m->alloc, m->ev0);
    strata__free(&m->alloc, m->ev1);
    m->ev0 = strata__alloc_array(&m->alloc, nedges, sizeof(uint32_t));
    m->ev1 = strata__alloc_array(&m->alloc, nedges, sizeof(uint32_t));
    if (!m->ev0 || !m->ev1)
        goto done;
    strata__par_blocks(ctx, vblocks, edge_ends, &j, NULL, 0, 0, 0);
    strata__par_blocks(ctx, tblocks, edge_sides, &j, NULL, 0, 0, 0);
    m->nedges = nedges;
    st = STRATA_OK;
done:
    strata__free(&m->alloc, j.off);
    strata__free(&m->alloc, j.base);
    return st;
}

typedef struct {
    strata_mesh *m;
} copy_job;

static strata_status copy_heights(void *arg, size_t blk, int thread)
{
    (void)thread;
    strata_mesh *m = ((copy_job *)arg)->m;
    const size_t from = blk * EDGE_TRI_BLOCK;
    const size_t n = m->nverts - from < EDGE_TRI_BLOCK ? m->nverts - from : EDGE_TRI_BLOCK;
    memcpy(m->h + from, m->y + from, n * sizeof(float));
    return STRATA_OK;
}

strata_status strata__mesh_adopt(strata_ctx *ctx, float *x, float *y, float *z, uint32_t nverts,
                                 uint32_t *a, uint32_t *b, uint32_t *c, uint32_t ntris,
                                 strata_mesh **out)
{
    const strata_allocator *al = &ctx->alloc;
    *out = NULL;
    strata_mesh *m = strata__alloc(al, sizeof *m);
    if (m) {
        memset(m, 0, sizeof *m);
        m->alloc = *al;
        m->nverts = nverts;
        m->ntris = ntris;
        m->geometry = STRATA_FLAT;
        m->x = x, m->y = y, m->z = z;
        m->a = a, m->b = b, m->c = c;
    } else {
        void *arrays[] = {x, y, z, a, b, c};
        for (size_t i = 0; i < 6; i++)
            strata__free(al, arrays[i]);
        return STRATA_ERR_NOMEM;
    }
    strata_status st = STRATA_ERR_NOMEM;
    if ((m->h = strata__alloc_array(al, nverts, sizeof(float))) &&
        alloc_sides(al, m, ntris) == STRATA_OK)
        st = strata__mesh_build_edges(ctx, m);
    if (st != STRATA_OK) {
        strata_mesh_destroy(m);
        return st;
    }
    copy_job j = {m};
    strata__par_blocks(ctx, (nverts + (size_t)EDGE_TRI_BLOCK - 1) / EDGE_TRI_BLOCK, copy_heights,
                       &j, NULL, 0, 0, 0);
    *out = m;
    return STRATA_OK;
}

strata_status strata_mesh_create(strata_ctx *ctx, const float *xyz, uint32_t nverts,
                                 const uint32_t *tris, uint32_t ntris, strata_mesh **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || (nverts && !xyz) || (ntris && !tris))
        return STRATA_ERR_INVALID_ARG;
    /* 3 * ntris edge records must be countable; edges fit uint32 then. */
    if ((uint64_t)ntris * 3 > UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    for (size_t i = 0; i < (size_t)nverts * 3; i++)
        if (!isfinite(xyz[i]))
            return STRATA_ERR_NOT_FINITE;
    for (uint32_t t = 0; t < ntris; t++) {
        uint32_t a = tris[3 * (size_t)t], b = tris[3 * (size_t)t + 1], c = tris[3 * (size_t)t + 2];
        if (a >= nverts || b >= nverts || c >= nverts || a == b || b == c || a == c)
            return STRATA_ERR_BAD_MESH;
    }
    strata_mesh *m;
    strata_status st = strata__mesh_alloc(&ctx->alloc, nverts, ntris, 0, &m);
    if (st != STRATA_OK)
        return st;
    for (uint32_t i = 0; i < nverts; i++) {
        m->x[i] = xyz[3 * (size_t)i];
        m->y[i] = xyz[3 * (size_t)i + 1];
        m->z[i] = xyz[3 * (size_t)i + 2];
    }
    for (uint32_t t = 0; t < ntris; t++) {
        m->a[t] = tris[3 * (size_t)t];
        m->b[t] = tris[3 * (size_t)t + 1];
        m->c[t] = tris[3 * (size_t)t + 2];
    }
    st = strata__mesh_build_edges(ctx, m);
    if (st != STRATA_OK) {
        strata_mesh_destroy(m);
        return st;
    }
    strata__mesh_update_heights(m);
    *out = m;
    return STRATA_OK;
}
