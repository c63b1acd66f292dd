/* Displacement of mesh vertices by fBm noise, optionally reshaped by a
 * height curve.
 *
 * Two passes.  The first computes every vertex's height v into one
 * temporary array (4 bytes a vertex), in blocks of BLOCK vertices: each
 * thread runs the context's fBm kernel on its block (planets: on sample
 * points that the radial_samples kernel first writes to small buffers on
 * the thread's stack), then the curve.  Threads take blocks as they come
 * (core/base/par.h); about every SPAN vertices the calling thread reports
 * progress ("noise", as strata_fbm2/3_batch) and checks the cancel flag,
 * so a cancel or an error leaves the mesh untouched.  The second pass moves the vertices and cannot fail.  Every
 * vertex is computed on its own with the kernels of strata_fbm2/3_batch:
 * the bytes do not depend on the thread count, the ISA or the block
 * size.
 *
 * Radial meshes: a radius R + v <= 0 is ruled out up front by requiring
 * B < R, since |v| <= B with or without a curve.
 */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/mesh.h"
#include "base/par.h"
#include "base/topology.h"
#include "base/curve.h"
#include "simd/displace.h"
#include "simd/noise.h"

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
typedef struct {
    const strata_mesh *m;
    const strata_fbm_plan *p;
    const strata_curve *c;
    strata_fbm_kernel fbm;
    strata_radial_samples_kernel samples;
    float *v;
} heights_arg;

static strata_status heights_block(void *arg, size_t b, int thread)
{
    (void)thread;
    const heights_arg *a = arg;
    const strata_mesh *m = a->m;
    const size_t lo = b * BLOCK, cnt = lo + BLOCK < m->nverts ? BLOCK : m->nverts - lo;
    float *v = a->v;
    if (m->geometry == STRATA_RADIAL) {
        _Alignas(STRATA_ALIGN) float sx[BLOCK], sy[BLOCK], sz[BLOCK];
        if (a->samples(m->center, m->radius, m->x + lo, m->y + lo, m->z + lo, cnt, sx, sy, sz))
            return STRATA_ERR_BAD_MESH;
        a->fbm(a->p, sx, sy, sz, cnt, v + lo);
    } else {
        a->fbm(a->p, m->x + lo, m->z + lo, NULL, cnt, v + lo);
    }
    if (a->c)
        for (size_t i = lo; i < lo + cnt; i++)
            v[i] = reshape(v[i], a->p->bound, a->c);
    return STRATA_OK;
}

static strata_status heights(strata_ctx *ctx, const strata_mesh *m, const strata_fbm_plan *p,
                             const strata_curve *c, float *v)
{
    const bool radial = m->geometry == STRATA_RADIAL;
    heights_arg a = {m, p, c, radial ? ctx->simd.fbm3 : ctx->simd.fbm2,
                     ctx->simd.radial_samples, v};
    strata_status st = strata__progress(ctx, "noise", 0.0);
    if (st == STRATA_OK)
        st = strata__par_blocks(ctx, (m->nverts + BLOCK - 1) / BLOCK, heights_block, &a,
                                "noise", 0.0, 1.0, SPAN / BLOCK);
    return st != STRATA_OK ? st : strata__progress(ctx, "noise", 1.0);
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

/* Pass 2, one block of vertices: it cannot fail, and runs without a
 * stage (no cancel check), so a mesh is never left half moved. */
typedef struct {
    strata_mesh *m;
    const float *v;
    strata_radial_move_kernel move;
} move_arg;

static strata_status move_flat_block(void *arg, size_t b, int thread)
{
    (void)thread;
    const move_arg *a = arg;
    const size_t n = a->m->nverts, lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
    float *y = a->m->y;
    for (size_t i = lo; i < hi; i++)
        y[i] = y[i] + a->v[i];
    return STRATA_OK;
}

static strata_status move_radial_block(void *arg, size_t b, int thread)
{
    (void)thread;
    const move_arg *a = arg;
    strata_mesh *m = a->m;
    const size_t n = m->nverts, lo = b * BLOCK, hi = lo + BLOCK < n ? lo + BLOCK : n;
    a->move(m->center, m->radius, a->v + lo, hi - lo, m->x + lo, m->y + lo, m->z + lo,
            m->h + lo);
    return STRATA_OK;
}

strata_status strata_displace_flat(strata_ctx *ctx, strata_mesh *m, const strata_fbm *f,
                                   const strata_curve *curve)
{
    float *v;
    strata_status st = noise_pass(ctx, m, f, curve, STRATA_FLAT, &v);
    if (st != STRATA_OK || !v)
        return st;
    move_arg a = {m, v, NULL};
    strata__par_blocks(ctx, (m->nverts + BLOCK - 1) / BLOCK, move_flat_block, &a, NULL, 0, 0,
                       0);
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
    /* Pass 2: each vertex to radius R + v along its direction (the same
     * bits as in pass 1); h = v. */
    move_arg a = {m, v, ctx->simd.radial_move};
    strata__par_blocks(ctx, (m->nverts + BLOCK - 1) / BLOCK, move_radial_block, &a, NULL, 0,
                       0, 0);
    strata__free(&ctx->alloc, v);
    strata__progress(ctx, "displace", 1.0); /* done: a late cancel changes nothing */
    return STRATA_OK;
}
