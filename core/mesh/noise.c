/* Gradient noise (simplex and Perlin, 2D and 3D) and fractal Brownian motion.
 *
 * This file is the scalar reference that SIMD kernels (AVX2, AVX-512, NEON)
 * must reproduce bit for bit, so the arithmetic is restricted to what a
 * vector unit does identically in every lane:
 *
 *  - the C expressions below fix the order of every float operation (the
 *    build uses -ffp-contract=off, so no fused multiply-add);
 *  - no libm calls, no tables: floor is a truncating float->int conversion
 *    corrected by one compare (cvttps2dq / vcvtq_s32_f32), gradients come
 *    from an integer hash (32-bit multiply, xor, shift) and are selected by
 *    compares and blends, sign flips are exact negations (xor of the sign
 *    bit);
 *  - max(t, 0) is an and with the mask t > 0 (maxps(t, 0) gives the same
 *    bits: +0 for t <= 0);
 *  - each result is multiplied by a constant scale and clamped to [-1, 1].
 *
 * Input coordinates are first clamped to [-2^24, 2^24] (NaN becomes -2^24)
 * so that every float->int conversion is defined; beyond 2^24 every float is
 * an integer and the noise carries no information anyway.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "base/ctx.h"
#include "base/par.h"
#include "base/topology.h"
#include "simd/noise.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* Written so that maxps(v, -L) / minps(v, L) (second operand returned for
 * NaN) give the same bits. */
static inline float clamp_coord(float v)
{
    v = v > -COORD_LIMIT ? v : -COORD_LIMIT;
    v = v < COORD_LIMIT ? v : COORD_LIMIT;
    return v;
}

/* floor(v) for |v| < 2^31: truncate toward zero, then step down if the
 * truncation went up (negative non-integers). */
static inline int32_t floor_int(float v)
{
    int32_t i = (int32_t)v;
    return i - (int32_t)(v < (float)i);
}

/* Float bits, for sign flips and blends without branches (the random
 * gradient choice would mispredict every branch). */
static inline uint32_t fbits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static inline float bitsf(uint32_t u)
{
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* mask ? a : b, mask all ones or all zeros. */
static inline uint32_t blend(uint32_t mask, uint32_t a, uint32_t b)
{
    return b ^ ((a ^ b) & mask);
}

/* Last step of every noise function: rounding in the float evaluation can
 * push the scaled value a few ulps past the analytic bound, so clamp. */
static inline float clamp_unit(float v)
{
    v = v > -1.0f ? v : -1.0f;
    v = v < 1.0f ? v : 1.0f;
    return v;
}

/* ------------------------------------------------------------------ */
/* Hash                                                                */
/* ------------------------------------------------------------------ */

/* Lattice point (i, j, k) maps to s ^ i*PX ^ j*PY ^ k*PZ (uint32 wrap-around,
 * s the mixed seed), then through mix().  Odd multipliers make each term a
 * bijection of the coordinate; mix() spreads every input bit over the high
 * half, from which the gradient is chosen. */
static inline uint32_t mix(uint32_t h)
{
    h *= HASH_M1;
    h ^= h >> 15;
    h *= HASH_M2;
    h ^= h >> 16;
    return h;
}

static inline uint32_t seed_mix(uint32_t seed) { return mix(seed + HASH_SEED); }

/* 2D gradients: the 8 unit vectors at multiples of 45 degrees.  Bit 31
 * chooses a diagonal (+-1, +-1)/sqrt2, else bit 30 chooses the x or y axis;
 * bits 0 and 1 are the signs of the x and y components. */
static inline float grad2(uint32_t h, float x, float y)
{
    const uint32_t u = fbits(x) ^ (h << 31), v = fbits(y) ^ ((h & 2u) << 30);
    const float diag = DIAG * (bitsf(u) + bitsf(v));
    const uint32_t axis = blend(0u - ((h >> 30) & 1u), u, v);
    return bitsf(blend(0u - (h >> 31), fbits(diag), axis));
}

/* 3D gradients: the 12 edge midpoints of the cube, (+-1, +-1, 0) and its
 * permutations.  The top 16 bits pick the zero axis a = 0, 1, 2 uniformly
 * (up to 2^-16) as ((h >> 16) * 3) >> 16; bits 0 and 1 are the signs of the
 * two remaining components u, v (in x, y, z order). */
static inline float grad3(uint32_t h, float x, float y, float z)
{
    const uint32_t a = ((h >> 16) * 3u) >> 16;
    const uint32_t u = blend(0u - (a == 0), fbits(y), fbits(x)) ^ (h << 31);
    const uint32_t v = blend(0u - (a == 2), fbits(y), fbits(z)) ^ ((h & 2u) << 30);
    return bitsf(u) + bitsf(v);
}

/* ------------------------------------------------------------------ */
/* Scale factors                                                       */
/* ------------------------------------------------------------------ */

/* The supremum of each unscaled noise over all hash values: at a fixed
 * point every corner contributes weight * (g . offset) with a weight that
 * does not depend on the gradient, so the worst case lets each corner pick
 * its best gradient independently.  Maximising that envelope over a cell
 * (dense grid in double precision plus pattern-search refinement) gives
 *   Perlin 2D  0.70710678 (= sqrt(1/2), cell centre, diagonal gradients)
 *   Perlin 3D  1.03635381 (near (0.5, 0.355, 0.481) in the cell)
 *   simplex 2D 0.01008020 (kernel (0.5 - r^2)^4, unit gradients)
 *   simplex 3D 0.01300716 (kernel (0.5 - r^2)^4, gradients of length sqrt2)
 * and the gradient sets are symmetric, so the minimum is minus that.  Each
 * scale is the largest float with scale * sup <= 1; every hash value occurs
 * somewhere, so outputs come within float rounding of +-1. */
/* (SCALE_PERLIN2, SCALE_PERLIN3, SCALE_SIMPLEX2, SCALE_SIMPLEX3 in
 * simd/noise.h.) */

/* ------------------------------------------------------------------ */
/* Perlin (gradient) noise                                             */
/* ------------------------------------------------------------------ */

/* 6t^5 - 15t^4 + 10t^3 */
static inline float fade(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }
static inline float lerp(float a, float b, float t) { return a + t * (b - a); }

static inline float perlin2(uint32_t s, float x, float y)
{
    x = clamp_coord(x);
    y = clamp_coord(y);
    const int32_t i = floor_int(x), j = floor_int(y);
    const float x0 = x - (float)i, y0 = y - (float)j;
    const float x1 = x0 - 1.0f, y1 = y0 - 1.0f;
    const uint32_t i0 = (uint32_t)i * HASH_PX, i1 = i0 + HASH_PX;
    const uint32_t j0 = (uint32_t)j * HASH_PY, j1 = j0 + HASH_PY;
    const float n00 = grad2(mix(s ^ i0 ^ j0), x0, y0);
    const float n10 = grad2(mix(s ^ i1 ^ j0), x1, y0);
    const float n01 = grad2(mix(s ^ i0 ^ j1), x0, y1);
    const float n11 = grad2(mix(s ^ i1 ^ j1), x1, y1);
    const float u = fade(x0), v = fade(y0);
    const float r = lerp(lerp(n00, n10, u), lerp(n01, n11, u), v);
    return clamp_unit(SCALE_PERLIN2 * r);
}

static inline float perlin3(uint32_t s, float x, float y, float z)
{
    x = clamp_coord(x);
    y = clamp_coord(y);
    z = clamp_coord(z);
    const int32_t i = floor_int(x), j = floor_int(y), k = floor_int(z);
    const float x0 = x - (float)i, y0 = y - (float)j, z0 = z - (float)k;
    const float x1 = x0 - 1.0f, y1 = y0 - 1.0f, z1 = z0 - 1.0f;
    const uint32_t i0 = (uint32_t)i * HASH_PX, i1 = i0 + HASH_PX;
    const uint32_t j0 = (uint32_t)j * HASH_PY, j1 = j0 + HASH_PY;
    const uint32_t k0 = (uint32_t)k * HASH_PZ, k1 = k0 + HASH_PZ;
    const float n000 = grad3(mix(s ^ i0 ^ j0 ^ k0), x0, y0, z0);
    const float n100 = grad3(mix(s ^ i1 ^ j0 ^ k0), x1, y0, z0);
    const float n010 = grad3(mix(s ^ i0 ^ j1 ^ k0), x0, y1, z0);
    const float n110 = grad3(mix(s ^ i1 ^ j1 ^ k0), x1, y1, z0);
    const float n001 = grad3(mix(s ^ i0 ^ j0 ^ k1), x0, y0, z1);
    const float n101 = grad3(mix(s ^ i1 ^ j0 ^ k1), x1, y0, z1);
    const float n011 = grad3(mix(s ^ i0 ^ j1 ^ k1), x0, y1, z1);
    const float n111 = grad3(mix(s ^ i1 ^ j1 ^ k1), x1, y1, z1);
    const float u = fade(x0), v = fade(y0), w = fade(z0);
    const float r0 = lerp(lerp(n000, n100, u), lerp(n010, n110, u), v);
    const float r1 = lerp(lerp(n001, n101, u), lerp(n011, n111, u), v);
    return clamp_unit(SCALE_PERLIN3 * lerp(r0, r1, w));
}

/* ------------------------------------------------------------------ */
/* Simplex noise                                                       */
/* ------------------------------------------------------------------ */

/* Each simplex corner contributes max(0, 0.5 - r^2)^4 (g . offset).  With
 * r^2 = 0.5 the kernel vanishes on the opposite face, so the sum is
 * continuous. */
static inline float kernel2(float x, float y)
{
    float t = 0.5f - x * x - y * y;
    t = bitsf(fbits(t) & (0u - (uint32_t)(t > 0.0f))); /* max(t, 0) */
    t = t * t;
    return t * t;
}

static inline float kernel3(float x, float y, float z)
{
    float t = 0.5f - x * x - y * y - z * z;
    t = bitsf(fbits(t) & (0u - (uint32_t)(t > 0.0f))); /* max(t, 0) */
    t = t * t;
    return t * t;
}

/* Skew factors F2, G2, F3, G3: simd/noise.h. */

static inline float simplex2(uint32_t s, float x, float y)
{
    x = clamp_coord(x);
    y = clamp_coord(y);
    /* Skew to find the lattice cell, unskew its origin back. */
    const float sk = (x + y) * F2;
    const int32_t i = floor_int(x + sk), j = floor_int(y + sk);
    const float fi = (float)i, fj = (float)j;
    const float t = (fi + fj) * G2;
    const float x0 = x - (fi - t), y0 = y - (fj - t);
    /* Middle corner: (1, 0) below the diagonal, (0, 1) above it. */
    const uint32_t lower = x0 > y0;
    const float x1 = x0 - (float)lower + G2, y1 = y0 - (float)(lower ^ 1u) + G2;
    const float x2 = x0 + G2X2M1, y2 = y0 + G2X2M1;
    const uint32_t i0 = (uint32_t)i * HASH_PX, j0 = (uint32_t)j * HASH_PY;
    const uint32_t im = i0 + (HASH_PX & (0u - lower));
    const uint32_t jm = j0 + (HASH_PY & (lower - 1u));
    const float n0 = kernel2(x0, y0) * grad2(mix(s ^ i0 ^ j0), x0, y0);
    const float n1 = kernel2(x1, y1) * grad2(mix(s ^ im ^ jm), x1, y1);
    const float n2 = kernel2(x2, y2) *
                     grad2(mix(s ^ (i0 + HASH_PX) ^ (j0 + HASH_PY)), x2, y2);
    return clamp_unit(SCALE_SIMPLEX2 * (n0 + n1 + n2));
}

static inline float simplex3(uint32_t s, float x, float y, float z)
{
    x = clamp_coord(x);
    y = clamp_coord(y);
    z = clamp_coord(z);
    const float sk = (x + y + z) * F3;
    const int32_t i = floor_int(x + sk), j = floor_int(y + sk), k = floor_int(z + sk);
    const float fi = (float)i, fj = (float)j, fk = (float)k;
    const float t = (fi + fj + fk) * G3;
    const float x0 = x - (fi - t), y0 = y - (fj - t), z0 = z - (fk - t);
    /* The two middle corners follow the order of x0, y0, z0 (ties broken
     * by >=): corner 1 steps along the largest axis, corner 2 along the two
     * largest. */
    const uint32_t xy = x0 >= y0, yz = y0 >= z0, xz = x0 >= z0;
    const uint32_t a1 = xy & xz, b1 = (xy ^ 1u) & yz, c1 = (xz | yz) ^ 1u;
    const uint32_t a2 = xy | xz, b2 = (xy ^ 1u) | yz, c2 = (xz & yz) ^ 1u;
    const float x1 = x0 - (float)a1 + G3, y1 = y0 - (float)b1 + G3, z1 = z0 - (float)c1 + G3;
    const float x2 = x0 - (float)a2 + G3X2, y2 = y0 - (float)b2 + G3X2, z2 = z0 - (float)c2 + G3X2;
    const float x3 = x0 - 0.5f, y3 = y0 - 0.5f, z3 = z0 - 0.5f; /* 3 G3 - 1 */
    const uint32_t i0 = (uint32_t)i * HASH_PX, j0 = (uint32_t)j * HASH_PY,
                   k0 = (uint32_t)k * HASH_PZ;
    const uint32_t h0 = mix(s ^ i0 ^ j0 ^ k0);
    const uint32_t h1 = mix(s ^ (i0 + (HASH_PX & (0u - a1))) ^ (j0 + (HASH_PY & (0u - b1))) ^
                            (k0 + (HASH_PZ & (0u - c1))));
    const uint32_t h2 = mix(s ^ (i0 + (HASH_PX & (0u - a2))) ^ (j0 + (HASH_PY & (0u - b2))) ^
                            (k0 + (HASH_PZ & (0u - c2))));
    const uint32_t h3 = mix(s ^ (i0 + HASH_PX) ^ (j0 + HASH_PY) ^ (k0 + HASH_PZ));
    const float n0 = kernel3(x0, y0, z0) * grad3(h0, x0, y0, z0);
    const float n1 = kernel3(x1, y1, z1) * grad3(h1, x1, y1, z1);
    const float n2 = kernel3(x2, y2, z2) * grad3(h2, x2, y2, z2);
    const float n3 = kernel3(x3, y3, z3) * grad3(h3, x3, y3, z3);
    return clamp_unit(SCALE_SIMPLEX3 * (n0 + n1 + n2 + n3));
}

float strata_noise2(strata_noise_kind kind, uint32_t seed, float x, float y)
{
    switch (kind) {
    case STRATA_NOISE_SIMPLEX: return simplex2(seed_mix(seed), x, y);
    case STRATA_NOISE_PERLIN: return perlin2(seed_mix(seed), x, y);
    default: return 0.0f;
    }
}

float strata_noise3(strata_noise_kind kind, uint32_t seed, float x, float y, float z)
{
    switch (kind) {
    case STRATA_NOISE_SIMPLEX: return simplex3(seed_mix(seed), x, y, z);
    case STRATA_NOISE_PERLIN: return perlin3(seed_mix(seed), x, y, z);
    default: return 0.0f;
    }
}

/* ------------------------------------------------------------------ */
/* fBm                                                                 */
/* ------------------------------------------------------------------ */

/* The per-octave plan (struct strata_fbm_plan) is in simd/noise.h: the
 * ISA kernels read it too. */
typedef strata_fbm_plan fbm_plan;

static strata_status plan_make(const strata_fbm *f, fbm_plan *p)
{
    if (!f || (f->kind != STRATA_NOISE_SIMPLEX && f->kind != STRATA_NOISE_PERLIN) ||
        f->octaves < 1 || f->octaves > FBM_MAX_OCTAVES)
        return STRATA_ERR_INVALID_ARG;
    if (!(f->frequency > 0.0f) || !(f->lacunarity > 0.0f) || !(f->gain >= 0.0f) ||
        !(f->amplitude >= 0.0f) || !isfinite(f->frequency) || !isfinite(f->lacunarity) ||
        !isfinite(f->gain) || !isfinite(f->amplitude))
        return STRATA_ERR_INVALID_ARG;
    p->kind = f->kind;
    p->octaves = f->octaves;
    float freq = f->frequency, amp = f->amplitude, bound = 0.0f;
    for (int o = 0; o < f->octaves; o++) {
        p->freq[o] = freq;
        p->amp[o] = amp;
        p->seed[o] = seed_mix(f->seed + (uint32_t)o);
        bound = bound + amp;
        freq = freq * f->lacunarity;
        amp = amp * f->gain;
    }
    /* Octave frequencies and the bound must not overflow. */
    if (!isfinite(p->freq[p->octaves - 1]) || !isfinite(bound))
        return STRATA_ERR_INVALID_ARG;
    p->bound = bound;
    return STRATA_OK;
}

strata_status strata__fbm_plan_make(const strata_fbm *f, fbm_plan *p) { return plan_make(f, p); }

/* |amp * n| <= amp for |n| <= 1 and float rounding is monotone, so the
 * running sum never exceeds the bound summed in the same order. */
static inline float fbm2_eval(const fbm_plan *p, float x, float y)
{
    float sum = 0.0f;
    if (p->kind == STRATA_NOISE_PERLIN) {
        for (int o = 0; o < p->octaves; o++)
            sum = sum + p->amp[o] * perlin2(p->seed[o], x * p->freq[o], y * p->freq[o]);
    } else {
        for (int o = 0; o < p->octaves; o++)
            sum = sum + p->amp[o] * simplex2(p->seed[o], x * p->freq[o], y * p->freq[o]);
    }
    return sum;
}

static inline float fbm3_eval(const fbm_plan *p, float x, float y, float z)
{
    float sum = 0.0f;
    if (p->kind == STRATA_NOISE_PERLIN) {
        for (int o = 0; o < p->octaves; o++)
            sum = sum + p->amp[o] * perlin3(p->seed[o], x * p->freq[o], y * p->freq[o],
                                            z * p->freq[o]);
    } else {
        for (int o = 0; o < p->octaves; o++)
            sum = sum + p->amp[o] * simplex3(p->seed[o], x * p->freq[o], y * p->freq[o],
                                             z * p->freq[o]);
    }
    return sum;
}

void strata_fbm_defaults(strata_fbm *f)
{
    if (!f)
        return;
    f->kind = STRATA_NOISE_SIMPLEX;
    f->seed = 1;
    f->octaves = 6;
    f->frequency = 1.0f;
    f->lacunarity = 2.0f;
    f->gain = 0.5f;
    f->amplitude = 1.0f;
}

strata_status strata_fbm_validate(const strata_fbm *f)
{
    fbm_plan p;
    return plan_make(f, &p);
}

float strata_fbm_bound(const strata_fbm *f)
{
    fbm_plan p;
    return plan_make(f, &p) == STRATA_OK ? p.bound : 0.0f;
}

float strata_fbm2(const strata_fbm *f, float x, float y)
{
    fbm_plan p;
    return plan_make(f, &p) == STRATA_OK ? fbm2_eval(&p, x, y) : 0.0f;
}

float strata_fbm3(const strata_fbm *f, float x, float y, float z)
{
    fbm_plan p;
    return plan_make(f, &p) == STRATA_OK ? fbm3_eval(&p, x, y, z) : 0.0f;
}

/* Batches: fixed blocks of BLOCK points, each point computed on its own,
 * so the bytes do not depend on the thread count; the threads take blocks
 * as they come (core/base/par.h), and the calling thread reports progress about
 * every SPAN points and checks the cancel flag. */
#define BLOCK ((size_t)1024)
#define SPAN (256 * BLOCK)

/* The scalar batch kernels, first entries of the dispatch table. */
void strata__fbm2_c(const strata_fbm_plan *p, const float *x, const float *y, const float *z,
                    size_t n, float *out)
{
    (void)z;
    for (size_t i = 0; i < n; i++)
        out[i] = fbm2_eval(p, x[i], y[i]);
}

void strata__fbm3_c(const strata_fbm_plan *p, const float *x, const float *y, const float *z,
                    size_t n, float *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = fbm3_eval(p, x[i], y[i], z[i]);
}

typedef struct {
    strata_fbm_kernel kern;
    const fbm_plan *p;
    const float *x, *y, *z;
    size_t n;
    float *out;
} batch_arg;

static strata_status batch_block(void *arg, size_t b, int thread)
{
    (void)thread;
    const batch_arg *a = arg;
    const size_t lo = b * BLOCK, hi = lo + BLOCK < a->n ? lo + BLOCK : a->n;
    a->kern(a->p, a->x + lo, a->y + lo, a->z ? a->z + lo : NULL, hi - lo, a->out + lo);
    return STRATA_OK;
}

static strata_status fbm_batch(strata_ctx *ctx, const fbm_plan *p, const float *x,
                               const float *y, const float *z, size_t n, float *out)
{
    /* One kernel for the whole batch, from the context's table. */
    batch_arg a = {z ? ctx->simd.fbm3 : ctx->simd.fbm2, p, x, y, z, n, out};
    strata_status st = strata__progress(ctx, "noise", 0.0);
    if (st == STRATA_OK)
        st = strata__par_blocks(ctx, (n + BLOCK - 1) / BLOCK, batch_block, &a, "noise", 0.0,
                                1.0, SPAN / BLOCK);
    return st != STRATA_OK ? st : strata__progress(ctx, "noise", 1.0);
}

strata_status strata_fbm2_batch(strata_ctx *ctx, const strata_fbm *f, const float *x,
                                 const float *y, size_t n, float *out)
{
    strata__bind_threads(ctx); /* no-op once bound */
    if (!ctx || (n && (!x || !y || !out)))
        return STRATA_ERR_INVALID_ARG;
    fbm_plan p;
    strata_status st = plan_make(f, &p);
    if (st != STRATA_OK)
        return st;
    return fbm_batch(ctx, &p, x, y, NULL, n, out);
}

strata_status strata_fbm3_batch(strata_ctx *ctx, const strata_fbm *f, const float *x,
                                 const float *y, const float *z, size_t n, float *out)
{
    strata__bind_threads(ctx); /* no-op once bound */
    if (!ctx || (n && (!x || !y || !z || !out)))
        return STRATA_ERR_INVALID_ARG;
    fbm_plan p;
    strata_status st = plan_make(f, &p);
    if (st != STRATA_OK)
        return st;
    return fbm_batch(ctx, &p, x, y, z, n, out);
}
