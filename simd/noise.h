/* Noise kernels: the constants every implementation shares and the batch
 * kernel interface of the dispatch table.
 *
 * The scalar reference is core/mesh/noise.c; the ISA kernels (simd/x86/,
 * simd/arm/) instantiate simd/noise_simd.h and must give the same bytes.
 */
#ifndef STRATA_SIMD_NOISE_H
#define STRATA_SIMD_NOISE_H

#include "base.h"

#include <stddef.h>
#include <stdint.h>

/* Coordinates are clamped to [-COORD_LIMIT, COORD_LIMIT], NaN to the low
 * end, before any float->int conversion. */
#define COORD_LIMIT 0x1p24f

/* Hash: lattice point (i, j, k) maps to s ^ i*PX ^ j*PY ^ k*PZ (uint32
 * wrap-around, s the mixed seed), then through mix(). */
#define HASH_PX 0xB5297A87u
#define HASH_PY 0x68E31DB5u
#define HASH_PZ 0x1B56C4F5u
#define HASH_M1 0x5F3564ABu
#define HASH_M2 0x2C1B3C93u
#define HASH_SEED 0x9E3779B9u

/* 2D diagonal gradient component, 1/sqrt2. */
#define DIAG 0.70710678f

/* Output scales (see core/mesh/noise.c for how they were found). */
#define SCALE_PERLIN2 0x1.6a09e6p+0f  /* 1.41421354 */
#define SCALE_PERLIN3 0x1.ee0a2ep-1f  /* 0.964921415 */
#define SCALE_SIMPLEX2 0x1.8cd13cp+6f /* 99.2043304 */
#define SCALE_SIMPLEX3 0x1.3385e2p+6f /* 76.8807449 */

/* Skew factors: F2 = (sqrt3 - 1)/2, G2 = (3 - sqrt3)/6, F3 = 1/3, G3 = 1/6. */
#define F2 0.36602540f
#define G2 0.21132487f
#define G2X2M1 -0.57735027f /* 2 G2 - 1 */
#define F3 0.33333333f
#define G3 0.16666667f
#define G3X2 0.33333333f /* 2 G3 */

#define FBM_MAX_OCTAVES 16

/* Per-octave fBm parameters, computed once per call in this fixed order:
 *   freq[0] = frequency,  freq[o] = freq[o-1] * lacunarity
 *   amp[0]  = amplitude,  amp[o]  = amp[o-1] * gain
 *   seed[o] = mixed (seed + o)
 * A point is then ((0 + amp[0] n_0) + amp[1] n_1) + ... with
 * n_o = noise(seed + o, x * freq[o], y * freq[o] (, z * freq[o])). */
struct strata_fbm_plan {
    strata_noise_kind kind;
    int octaves;
    float freq[FBM_MAX_OCTAVES];
    float amp[FBM_MAX_OCTAVES];
    uint32_t seed[FBM_MAX_OCTAVES];
    float bound;
};
typedef struct strata_fbm_plan strata_fbm_plan;

/* The plan of f (core/mesh/noise.c), for callers that run the fbm2/fbm3
 * kernels themselves; STRATA_ERR_INVALID_ARG as strata_fbm_validate. */
STRATA_HIDDEN strata_status strata__fbm_plan_make(const strata_fbm *f, strata_fbm_plan *p);

/* Batch kernels (type strata_fbm_kernel): out[i] = fbm(p, x[i], y[i]
 * (, z[i])) for i < n, single-threaded; core/mesh/noise.c splits the work into
 * blocks and threads.  The 2D kernels ignore z. */
#define STRATA_FBM_KERNELS(isa)                                                \
    STRATA_HIDDEN void strata__fbm2_##isa(const strata_fbm_plan *p,            \
                                          const float *x, const float *y,      \
                                          const float *z, size_t n,            \
                                          float *out);                         \
    STRATA_HIDDEN void strata__fbm3_##isa(const strata_fbm_plan *p,            \
                                          const float *x, const float *y,      \
                                          const float *z, size_t n, float *out)

STRATA_FBM_KERNELS(c); /* core/mesh/noise.c: the reference */
#ifdef HAVE_AVX2
STRATA_FBM_KERNELS(avx2);
#endif
#ifdef HAVE_AVX512
STRATA_FBM_KERNELS(avx512);
#endif
#ifdef HAVE_NEON
STRATA_FBM_KERNELS(neon);
#endif

#endif
