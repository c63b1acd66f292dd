/* 1->4 subdivision with shared midpoints, carrying the edge table along.
 *
 * Numbering (depends only on the input):
 *   vertex  V + e          midpoint of edge e
 *   edge    2e, 2e+1       the halves of edge e at ev0[e] and at ev1[e]
 *   edge    2E + 3t + k    the inner edges of triangle t
 *   tri     4t .. 4t+3     (a, mab, mca), (mab, b, mbc), (mca, mbc, c),
 *                          (mab, mbc, mca) - same winding as t
 */
#include "base/ctx.h"
#include "mesh/mesh.h"
#include "base/topology.h"
#include "mesh/lattice.h"

#include <math.h>
#include <string.h>

strata_status strata_subdivide_counts(uint32_t nverts, uint32_t ntris, uint32_t nedges,
                                      int depth, uint32_t *out_verts, uint32_t *out_tris,
                                      uint32_t *out_edges)
{
    if (depth < 0)
        return STRATA_ERR_INVALID_ARG;
    uint64_t v = nverts, t = ntris, e = nedges;
    for (int d = 0; d < depth; d++) {
        v += e;
        e = 2 * e + 3 * t;
        t *= 4;
        if (v > UINT32_MAX || e > UINT32_MAX || t > UINT32_MAX)
            return STRATA_ERR_OVERFLOW;
    }
    if (out_verts) *out_verts = (uint32_t)v;
    if (out_tris) *out_tris = (uint32_t)t;
    if (out_edges) *out_edges = (uint32_t)e;
    return STRATA_OK;
}

/* Half of edge e that touches vertex v. */
static inline uint32_t half(const strata_mesh *m, uint32_t e, uint32_t v)
{
    return 2 * e + (m->ev1[e] == v);
}

static inline void set_edge(strata_mesh *o, uint32_t e, uint32_t p, uint32_t q)
{
    o->ev0[e] = p < q ? p : q;
    o->ev1[e] = p < q ? q : p;
}

static strata_status subdivide_once(strata_ctx *ctx, const strata_mesh *m, bool project,
                                    strata_mesh **out)
{
    uint32_t nv, nt, ne;
    strata_status st = strata_subdivide_counts(m->nverts, m->ntris, m->nedges, 1, &nv, &nt, &ne);
    if (st != STRATA_OK)
        return st;
    strata_mesh *o;
    st = strata__mesh_alloc(&ctx->alloc, nv, nt, ne, &o);
    if (st != STRATA_OK)
        return st;
    o->geometry = m->geometry;
    memcpy(o->center, m->center, sizeof o->center);
    o->radius = m->radius;

    const uint32_t V = m->nverts;
    const int64_t V64 = V;
    const float R = m->radius;
    const int64_t E = m->nedges, T = m->ntris;

#pragma omp parallel num_threads(ctx->threads)
    {
        /* Old vertices keep their positions; heights are recomputed from
         * them, as for the midpoints. */
#pragma omp for schedule(static) nowait
        for (int64_t i = 0; i < V64; i++) {
            const float x = m->x[i], y = m->y[i], z = m->z[i];
            o->x[i] = x;
            o->y[i] = y;
            o->z[i] = z;
            o->h[i] = strata__height(o, x, y, z);
        }
#pragma omp for schedule(static)
        for (int64_t ei = 0; ei < E; ei++) {
            const uint32_t e = (uint32_t)ei, p = m->ev0[e], q = m->ev1[e], mid = V + e;
            float x, y, z;
            if (project) {
                strata__sphere_midpoint(m->center, R, m->x[p], m->y[p], m->z[p], m->x[q],
                                        m->y[q], m->z[q], &x, &y, &z);
            } else {
                x = (m->x[p] + m->x[q]) * 0.5f;
                y = (m->y[p] + m->y[q]) * 0.5f;
                z = (m->z[p] + m->z[q]) * 0.5f;
            }
            o->x[mid] = x;
            o->y[mid] = y;
            o->z[mid] = z;
            o->h[mid] = strata__height(o, x, y, z);
            o->ev0[2 * e] = p;     /* p < mid */
            o->ev1[2 * e] = mid;
            o->ev0[2 * e + 1] = q; /* q < mid */
            o->ev1[2 * e + 1] = mid;
        }
#pragma omp for schedule(static)
        for (int64_t ti = 0; ti < T; ti++) {
            const uint32_t t = (uint32_t)ti;
            const uint32_t a = m->a[t], b = m->b[t], c = m->c[t];
            const uint32_t eab = m->e0[t], ebc = m->e1[t], eca = m->e2[t];
            const uint32_t mab = V + eab, mbc = V + ebc, mca = V + eca;
            const uint32_t i0 = (uint32_t)(2 * E + 3 * (int64_t)t);
            const uint32_t i1 = i0 + 1, i2 = i0 + 2;
            set_edge(o, i0, mab, mca);
            set_edge(o, i1, mab, mbc);
            set_edge(o, i2, mbc, mca);
            const size_t k = 4 * (size_t)t;
            o->a[k] = a;     o->b[k] = mab;     o->c[k] = mca;
            o->e0[k] = half(m, eab, a); o->e1[k] = i0; o->e2[k] = half(m, eca, a);
            o->a[k + 1] = mab; o->b[k + 1] = b;   o->c[k + 1] = mbc;
            o->e0[k + 1] = half(m, eab, b); o->e1[k + 1] = half(m, ebc, b); o->e2[k + 1] = i1;
            o->a[k + 2] = mca; o->b[k + 2] = mbc; o->c[k + 2] = c;
            o->e0[k + 2] = i2; o->e1[k + 2] = half(m, ebc, c); o->e2[k + 2] = half(m, eca, c);
            o->a[k + 3] = mab; o->b[k + 3] = mbc; o->c[k + 3] = mca;
            o->e0[k + 3] = i1; o->e1[k + 3] = i2; o->e2[k + 3] = i0;
        }
    }
        *out = o;
    return STRATA_OK;
}

strata_status strata_mesh_subdivide(strata_ctx *ctx, const strata_mesh *m, int depth,
                                    unsigned flags, strata_mesh **out)
{
    strata__bind_threads(ctx); /* no-op once bound */
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !m || depth < 0 || (flags & ~STRATA_SUBDIVIDE_PROJECT))
        return STRATA_ERR_INVALID_ARG;
    const bool project = (flags & STRATA_SUBDIVIDE_PROJECT) != 0;
    if (project && m->geometry != STRATA_RADIAL)
        return STRATA_ERR_INVALID_ARG;
    strata_status st = strata_subdivide_counts(m->nverts, m->ntris, m->nedges, depth,
                                               NULL, NULL, NULL);
    if (st != STRATA_OK)
        return st;
    if ((st = strata__progress(ctx, "subdivide", 0.0)) != STRATA_OK)
        return st;
    if (depth == 0)
        return strata_mesh_clone(ctx, m, out);
    const strata_mesh *cur = m; /* not owned on the first pass */
    for (int d = 0; d < depth; d++) {
        strata_mesh *next;
        st = subdivide_once(ctx, cur, project, &next);
        if (cur != m)
            strata_mesh_destroy((strata_mesh *)cur);
        if (st != STRATA_OK)
            return st;
        cur = next;
        /* Pass d costs about 4^d: report the share of all the work done. */
        const double done = (ldexp(1.0, 2 * (d + 1)) - 1.0) / (ldexp(1.0, 2 * depth) - 1.0);
        if ((st = strata__progress(ctx, "subdivide", done)) != STRATA_OK) {
            strata_mesh_destroy(next);
            return st;
        }
    }
    *out = (strata_mesh *)cur;
    return STRATA_OK;
}
