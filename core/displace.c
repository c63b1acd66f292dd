/* Displacement of mesh vertices by fBm noise, optionally reshaped by a
 * height curve.
 *
 * Both functions first compute every noise value into a temporary array
 * with the batch functions (so displacement uses exactly the bytes, the
 * threads and later the SIMD kernels of strata_fbm2/3_batch, and a cancel
 * leaves the mesh untouched), then move the vertices in a second pass that
 * cannot fail.  Every vertex is computed on its own: the result does not
 * depend on the thread count.  Temporary memory: 4 bytes a vertex (flat),
 * 16 (radial: the sample points d * R and the heights).
 *
 * Radial meshes: a radius R + v <= 0 is ruled out up front by requiring
 * B < R, since |v| <= B with or without a curve.
 */
#include "internal.h"

#include <float.h>
#include <math.h>

/* Defined in curve.c: the curve is the identity on [0, 1].  (Belongs in
 * internal.h, which this change does not touch.) */

#define BLOCK ((size_t)4096)

/* v in [-B, B]  ->  B * (2 curve((v / B + 1) / 2) - 1).  v / B lies in
 * [-1, 1] (float division is monotone), so the curve is read on [0, 1]. */
static inline float reshape(float v, float bound, const strata_curve *c)
{
    if (!c)
        return v;
    if (!(bound > 0.0f))
        return 0.0f;
    const float t = (v / bound + 1.0f) * 0.5f;
    return bound * (2.0f * strata_curve_eval(c, t) - 1.0f);
}

/* Shared checks; returns the curve to apply (NULL for none or identity). */
static strata_status prepare(strata_ctx *ctx, strata_mesh *m, const strata_fbm *f,
                             const strata_curve *curve, strata_geometry want,
                             const strata_curve **use)
{
    if (!ctx || !m || !f || m->geometry != want)
        return STRATA_ERR_INVALID_ARG;
    strata_status st = strata_fbm_validate(f);
    if (st != STRATA_OK)
        return st;
    *use = strata__curve_is_identity(curve) ? NULL : curve;
    return strata__progress(ctx, "displace", 0.0);
}

strata_status strata_displace_flat(strata_ctx *ctx, strata_mesh *m, const strata_fbm *f,
                                   const strata_curve *curve)
{
    strata__bind_threads(ctx); /* no-op once bound */
    const strata_curve *c;
    strata_status st = prepare(ctx, m, f, curve, STRATA_FLAT, &c);
    if (st != STRATA_OK)
        return st;
    const size_t n = m->nverts;
    if (n == 0)
        return STRATA_OK;
    float *v = strata__alloc_array(&ctx->alloc, n, sizeof(float));
    if (!v)
        return STRATA_ERR_NOMEM;
    st = strata_fbm2_batch(ctx, f, m->x, m->z, n, v);
    if (st != STRATA_OK) {
        strata__free(&ctx->alloc, v);
        return st;
    }
    const float bound = strata_fbm_bound(f);
    const ptrdiff_t nblocks = (ptrdiff_t)((n + BLOCK - 1) / BLOCK);
    float *y = m->y;
#ifdef _OPENMP
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (nblocks > 1)
#endif
    for (ptrdiff_t b = 0; b < nblocks; b++) {
        const size_t lo = (size_t)b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        for (size_t i = lo; i < hi; i++)
            y[i] = y[i] + reshape(v[i], bound, c);
    }
    strata__free(&ctx->alloc, v);
    strata__mesh_update_heights(m);
    strata__progress(ctx, "displace", 1.0); /* done: a late cancel changes nothing */
    return STRATA_OK;
}

/* Unit direction of vertex i from the centre; false at (or numerically
 * at) the centre. */
static inline bool direction(const strata_mesh *m, size_t i, float d[3])
{
    const float dx = m->x[i] - m->center[0], dy = m->y[i] - m->center[1],
                dz = m->z[i] - m->center[2];
    const float len = sqrtf(dx * dx + dy * dy + dz * dz);
    if (!(len > 0.0f && len <= FLT_MAX))
        return false;
    d[0] = dx / len;
    d[1] = dy / len;
    d[2] = dz / len;
    return true;
}

strata_status strata_displace_radial(strata_ctx *ctx, strata_mesh *m, const strata_fbm *f,
                                     const strata_curve *curve)
{
    strata__bind_threads(ctx); /* no-op once bound */
    const strata_curve *c;
    strata_status st = prepare(ctx, m, f, curve, STRATA_RADIAL, &c);
    if (st != STRATA_OK)
        return st;
    /* |v| <= B (also after the curve), so B < R keeps every radius R + v
     * positive; checked up front, before anything is computed. */
    const float bound = strata_fbm_bound(f), radius = m->radius;
    if (!(bound < radius))
        return STRATA_ERR_INVALID_ARG;
    const size_t n = m->nverts;
    if (n == 0)
        return STRATA_OK;
    float *sx = strata__alloc_array(&ctx->alloc, n, sizeof(float));
    float *sy = strata__alloc_array(&ctx->alloc, n, sizeof(float));
    float *sz = strata__alloc_array(&ctx->alloc, n, sizeof(float));
    float *v = strata__alloc_array(&ctx->alloc, n, sizeof(float));
    if (!sx || !sy || !sz || !v) {
        st = STRATA_ERR_NOMEM;
        goto done;
    }

    /* Pass 1: sample points d * R on the base sphere. */
    const ptrdiff_t nblocks = (ptrdiff_t)((n + BLOCK - 1) / BLOCK);
    int bad = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (nblocks > 1) \
    reduction(| : bad)
#endif
    for (ptrdiff_t b = 0; b < nblocks; b++) {
        const size_t lo = (size_t)b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        for (size_t i = lo; i < hi; i++) {
            float d[3] = {0.0f, 0.0f, 0.0f};
            bad |= !direction(m, i, d);
            sx[i] = d[0] * radius;
            sy[i] = d[1] * radius;
            sz[i] = d[2] * radius;
        }
    }
    if (bad) {
        st = STRATA_ERR_BAD_MESH;
        goto done;
    }
    st = strata_fbm3_batch(ctx, f, sx, sy, sz, n, v);
    if (st != STRATA_OK)
        goto done;

    /* Pass 2: move each vertex to radius R + v along d (recomputed, same
     * bits as in pass 1); h = v. */
    const float cx = m->center[0], cy = m->center[1], cz = m->center[2];
#ifdef _OPENMP
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (nblocks > 1)
#endif
    for (ptrdiff_t b = 0; b < nblocks; b++) {
        const size_t lo = (size_t)b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        for (size_t i = lo; i < hi; i++) {
            float d[3] = {0.0f, 0.0f, 0.0f};
            direction(m, i, d);
            const float h = reshape(v[i], bound, c), r = radius + h;
            m->x[i] = cx + d[0] * r;
            m->y[i] = cy + d[1] * r;
            m->z[i] = cz + d[2] * r;
            m->h[i] = h;
        }
    }
    strata__progress(ctx, "displace", 1.0); /* done: a late cancel changes nothing */
done:
    strata__free(&ctx->alloc, sx);
    strata__free(&ctx->alloc, sy);
    strata__free(&ctx->alloc, sz);
    strata__free(&ctx->alloc, v);
    return st;
}
