/* strata_mesh: allocation, views, construction from caller arrays and the
 * edge table built by sorting vertex pairs. */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/mesh.h"

#include <math.h>
#include <string.h>

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
    uint32_t **tv[] = {&m->a, &m->b, &m->c, &m->e0, &m->e1, &m->e2};
    for (size_t i = 0; i < 6; i++)
        if (!(*tv[i] = strata__alloc_array(al, ntris, sizeof(uint32_t))))
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
                      m->e0, m->e1, m->e2, m->ev0, m->ev1};
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
 * Edge table by sorting.  Each triangle side becomes a record (key, slot)
 * with key = min << 32 | max and slot = 3 * triangle + side.  An LSD radix
 * sort on 16-bit digits (skipping digits that are the same everywhere)
 * groups equal keys; each run of equal keys is one edge, numbered in key
 * order, so the numbering depends only on the triangles.
 * -------------------------------------------------------------------- */
typedef struct {
    uint64_t key;
    uint64_t slot;
} edge_rec;

static void radix_sort(edge_rec *rec, edge_rec *tmp, size_t *count, size_t n)
{
    static const int digits = 4;
    for (int d = 0; d < digits; d++) {
        const int shift = 16 * d;
        memset(count, 0, 65536 * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[(rec[i].key >> shift) & 0xffff]++;
        if (n == 0 || count[(rec[0].key >> shift) & 0xffff] == n)
            continue; /* this digit is equal in all records */
        size_t sum = 0;
        for (size_t k = 0; k < 65536; k++) {
            size_t c = count[k];
            count[k] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[count[(rec[i].key >> shift) & 0xffff]++] = rec[i];
        memcpy(rec, tmp, n * sizeof *rec);
    }
}

strata_status strata__mesh_build_edges(strata_mesh *m)
{
    const size_t n = (size_t)m->ntris * 3;
    edge_rec *rec = strata__alloc_array(&m->alloc, n, sizeof *rec);
    edge_rec *tmp = strata__alloc_array(&m->alloc, n, sizeof *tmp);
    size_t *count = strata__alloc_array(&m->alloc, 65536, sizeof *count);
    if (!rec || !tmp || !count) {
        strata__free(&m->alloc, rec);
        strata__free(&m->alloc, tmp);
        strata__free(&m->alloc, count);
        return STRATA_ERR_NOMEM;
    }
    for (uint32_t t = 0; t < m->ntris; t++) {
        const uint32_t v[3] = {m->a[t], m->b[t], m->c[t]};
        for (int s = 0; s < 3; s++) {
            uint32_t p = v[s], q = v[(s + 1) % 3];
            uint32_t lo = p < q ? p : q, hi = p < q ? q : p;
            rec[(size_t)t * 3 + s].key = (uint64_t)lo << 32 | hi;
            rec[(size_t)t * 3 + s].slot = (uint64_t)t * 3 + s;
        }
    }
    radix_sort(rec, tmp, count, n);
    strata__free(&m->alloc, tmp);
    strata__free(&m->alloc, count);

    size_t nedges = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || rec[i].key != rec[i - 1].key)
            nedges++;
    strata__free(&m->alloc, m->ev0);
    strata__free(&m->alloc, m->ev1);
    m->ev0 = strata__alloc_array(&m->alloc, nedges, sizeof(uint32_t));
    m->ev1 = strata__alloc_array(&m->alloc, nedges, sizeof(uint32_t));
    if (!m->ev0 || !m->ev1) {
        strata__free(&m->alloc, rec);
        return STRATA_ERR_NOMEM;
    }
    uint32_t *side[3] = {m->e0, m->e1, m->e2};
    uint32_t e = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && rec[i].key != rec[i - 1].key)
            e++;
        m->ev0[e] = (uint32_t)(rec[i].key >> 32);
        m->ev1[e] = (uint32_t)rec[i].key;
        side[rec[i].slot % 3][rec[i].slot / 3] = e;
    }
    m->nedges = (uint32_t)nedges;
    strata__free(&m->alloc, rec);
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
    st = strata__mesh_build_edges(m);
    if (st != STRATA_OK) {
        strata_mesh_destroy(m);
        return st;
    }
    strata__mesh_update_heights(m);
    *out = m;
    return STRATA_OK;
}
