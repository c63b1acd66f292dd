/* Displacement of mesh vertices by fBm noise, optionally reshaped by a
 * height curve.
 *
 * Two passes.  The first computes every vertex's height v into one
 * temporary array (4 bytes a vertex), in blocks of BLOCK vertices: each
 * thread runs the context's fBm kernel on its block (planets: on sample
 * points that the radial_samples kernel first writes to small buffers on
 * the thread's stack), then the curve.  Between spans of SPAN vertices
 * the calling thread reports progress ("noise", as strata_fbm2/3_batch)
 * and checks the cancel flag, so a cancel or an error leaves the mesh
 * untouched.  The second pass moves the vertices and cannot fail.  Every
 * vertex is computed on its own with the kernels of strata_fbm2/3_batch:
 * the bytes do not depend on the thread count, the ISA or the block
 * size.
 *
 * Radial meshes: a radius R + v <= 0 is ruled out up front by requiring
 * B < R, since |v| <= B with or without a curve.
 */
#include "alloc.h"
#include "ctx.h"
#include "mesh.h"
#include "topology.h"
#include "curve.h"
#include "../simd/displace.h"
#include "../simd/noise.h"

#define BLOCK ((size_t)1024) /* vertices a kernel call (12 KiB of sample points) */
#define SPAN (256 * BLOCK)   /* vertices between progress reports */

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

/* Pass 1: v[i] = reshape(fbm(sample point of vertex i)) for every
 * vertex: fbm2 at (x, z) on FLAT meshes, fbm3 at d * R on RADIAL ones.
 * STRATA_ERR_BAD_MESH when a radial vertex has no direction. */
static strata_status heights(strata_ctx *ctx, const strata_mesh *m, const strata_fbm_plan *p,
                             const strata_curve *c, float *v)
{
    const size_t n = m->nverts;
    const bool radial = m->geometry == STRATA_RADIAL;
    const strata_fbm_kernel fbm = radial ? ctx->simd.fbm3 : ctx->simd.fbm2;
    const strata_radial_samples_kernel samples = ctx->simd.radial_samples;
    for (size_t start = 0;; start += SPAN) {
        strata_status st =
            strata__progress(ctx, "noise", start < n ? (double)start / (double)n : 1.0);
        if (st != STRATA_OK || start >= n)
            return st;
        const size_t len = n - start < SPAN ? n - start : SPAN;
        const ptrdiff_t nblocks = (ptrdiff_t)((len + BLOCK - 1) / BLOCK);
        size_t bad = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (nblocks > 1) \
    reduction(+ : bad)
#endif
        for (ptrdiff_t b = 0; b < nblocks; b++) {
            const size_t lo = start + (size_t)b * BLOCK;
            const size_t cnt = lo + BLOCK < start + len ? BLOCK : start + len - lo;
            if (radial) {
                _Alignas(STRATA_ALIGN) float sx[BLOCK], sy[BLOCK], sz[BLOCK];
                bad += samples(m->center, m->radius, m->x + lo, m->y + lo, m->z + lo, cnt, sx,
                               sy, sz);
                fbm(p, sx, sy, sz, cnt, v + lo);
            } else {
                fbm(p, m->x + lo, m->z + lo, NULL, cnt, v + lo);
            }
            if (c)
                for (size_t i = lo; i < lo + cnt; i++)
                    v[i] = reshape(v[i], p->bound, c);
        }
        if (bad)
            return STRATA_ERR_BAD_MESH;
    }
}

/* Checks, then pass 1 into a new array *out (NULL, with STRATA_OK, for a
 * mesh without vertices).  Radial meshes: |v| <= B (also after the
 * curve), so B < R keeps every radius R + v positive; checked up front,
 * before anything is computed. */
static strata_status noise_pass(strata_ctx *ctx, strata_mesh *m, const strata_fbm *f,
                                const strata_curve *curve, strata_geometry want, float **out)
{
    *out = NULL;
    strata__bind_threads(ctx); /* no-op once bound */
    if (!ctx || !m || !f || m->geometry != want)
        return STRATA_ERR_INVALID_ARG;
    strata_fbm_plan p;
    strata_status st = strata__fbm_plan_make(f, &p);
    if (st != STRATA_OK)
        return st;
    const strata_curve *c = strata__curve_is_identity(curve) ? NULL : curve;
    if ((st = strata__progress(ctx, "displace", 0.0)) != STRATA_OK)
        return st;
    if (want == STRATA_RADIAL && !(p.bound < m->radius))
        return STRATA_ERR_INVALID_ARG;
    if (m->nverts == 0)
        return STRATA_OK;
    float *v = strata__alloc_array(&ctx->alloc, m->nverts, sizeof(float));
    if (!v)
        return STRATA_ERR_NOMEM;
    st = heights(ctx, m, &p, c, v);
    if (st != STRATA_OK) {
        strata__free(&ctx->alloc, v);
        return st;
    }
    *out = v;
    return STRATA_OK;
}

strata_status strata_displace_flat(strata_ctx *ctx, strata_mesh *m, const strata_fbm *f,
                                   const strata_curve *curve)
{
    float *v;
    strata_status st = noise_pass(ctx, m, f, curve, STRATA_FLAT, &v);
    if (st != STRATA_OK || !v)
        return st;
    const size_t n = m->nverts;
    const ptrdiff_t nblocks = (ptrdiff_t)((n + BLOCK - 1) / BLOCK);
    float *y = m->y;
#ifdef _OPENMP
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (nblocks > 1)
#endif
    for (ptrdiff_t b = 0; b < nblocks; b++) {
        const size_t lo = (size_t)b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        for (size_t i = lo; i < hi; i++)
            y[i] = y[i] + v[i];
    }
    strata__free(&ctx->alloc, v);
    strata__mesh_update_heights(m);
    strata__progress(ctx, "displace", 1.0); /* done: a late cancel changes nothing */
    return STRATA_OK;
}

strata_status strata_displace_radial(strata_ctx *ctx, strata_mesh *m, const strata_fbm *f,
                                     const strata_curve *curve)
{
    float *v;
    strata_status st = noise_pass(ctx, m, f, curve, STRATA_RADIAL, &v);
    if (st != STRATA_OK || !v)
        return st;
    const size_t n = m->nverts;
    /* Pass 2: each vertex to radius R + v along its direction (the same
     * bits as in pass 1); h = v. */
    const strata_radial_move_kernel move = ctx->simd.radial_move;
    const ptrdiff_t nblocks = (ptrdiff_t)((n + BLOCK - 1) / BLOCK);
#ifdef _OPENMP
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (nblocks > 1)
#endif
    for (ptrdiff_t b = 0; b < nblocks; b++) {
        const size_t lo = (size_t)b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
        move(m->center, m->radius, v + lo, hi - lo, m->x + lo, m->y + lo, m->z + lo, m->h + lo);
    }
    strata__free(&ctx->alloc, v);
    strata__progress(ctx, "displace", 1.0); /* done: a late cancel changes nothing */
    return STRATA_OK;
}
