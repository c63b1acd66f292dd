/* fBm batch kernels, AVX2.  Mirrors core/mesh/noise.c bit for bit through
 * simd/noise_simd.h.  Built with -mavx2 only (no -mfma): products and
 * sums stay separately rounded.
 *
 * Each vector value is two 8-lane registers (VL = 16), every operation
 * issued for both halves back to back.  The noise is a long dependency
 * chain per point, so one register's worth of points leaves the FP pipes
 * waiting; a second, independent chain interleaved with it fills them
 * (on Zen 3: simplex fbm3 5% faster, Perlin 9%; three registers spill too
 * much to gain more). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <immintrin.h>
#include <stdint.h>

#define VL 16
#define ISA_SUFFIX avx2
/* One corner after the other: four corners of two-register values would
 * not fit in 16 registers (step by step: fbm3 8% slower on Zen 5). */
#define NS_STEPWISE 0

typedef struct {
    __m256 r[2];
} vf;
typedef struct {
    __m256i r[2];
} vi;
typedef vi vm; /* all-ones / all-zeros lanes */

#define AI static inline __attribute__((always_inline))

/* A vocabulary function: res.r[k] = expr for k = 0, 1. */
#define BOTH(res, expr)                                                        \
    do {                                                                       \
        enum { k = 0 };                                                        \
        (res).r[k] = (expr);                                                   \
    } while (0);                                                               \
    do {                                                                       \
        enum { k = 1 };                                                        \
        (res).r[k] = (expr);                                                   \
    } while (0)
#define FN1(T, name, A, f)                                                     \
    AI T name(A a)                                                             \
    {                                                                          \
        T res;                                                                 \
        BOTH(res, f(a.r[k]));                                                  \
        return res;                                                            \
    }
#define FN2(T, name, A, f)                                                     \
    AI T name(A a, A b)                                                        \
    {                                                                          \
        T res;                                                                 \
        BOTH(res, f(a.r[k], b.r[k]));                                          \
        return res;                                                            \
    }

AI vf vf_load(const float *p)
{
    vf res;
    BOTH(res, _mm256_loadu_ps(p + 8 * k));
    return res;
}

AI void vf_store(float *p, vf v)
{
    _mm256_storeu_ps(p, v.r[0]);
    _mm256_storeu_ps(p + 8, v.r[1]);
}

AI vf vf_set1(float f)
{
    vf res;
    BOTH(res, _mm256_set1_ps(f));
    return res;
}

AI vi vi_set1(uint32_t u)
{
    vi res;
    BOTH(res, _mm256_set1_epi32((int)u));
    return res;
}

FN2(vf, vf_add, vf, _mm256_add_ps)
FN2(vf, vf_sub, vf, _mm256_sub_ps)
FN2(vf, vf_mul, vf, _mm256_mul_ps)
/* maxps/minps return the second operand unless the compare holds: exactly
 * v > lo ? v : lo and v < hi ? v : hi, NaN included. */
FN2(vf, vf_max_lo, vf, _mm256_max_ps)
FN2(vf, vf_min_hi, vf, _mm256_min_ps)
#define FLOOR1(v) _mm256_round_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
FN1(vf, vf_floor, vf, FLOOR1)
FN1(vi, vf_cvtt, vf, _mm256_cvttps_epi32)
#define GT1(a, b) _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_GT_OQ))
#define GE1(a, b) _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_GE_OQ))
FN2(vm, vf_gt, vf, GT1)
FN2(vm, vf_ge, vf, GE1)
FN2(vi, vi_add, vi, _mm256_add_epi32)
FN2(vi, vi_mul, vi, _mm256_mullo_epi32)
FN2(vi, vi_xor, vi, _mm256_xor_si256)
FN2(vi, vi_and, vi, _mm256_and_si256)
FN2(vm, vi_gt, vi, _mm256_cmpgt_epi32)
FN2(vm, vm_and, vm, _mm256_and_si256)
FN2(vm, vm_or, vm, _mm256_or_si256)
FN2(vm, vm_andnot, vm, _mm256_andnot_si256)
FN1(vi, vf_bits, vf, _mm256_castps_si256)
FN1(vf, vi_asf, vi, _mm256_castsi256_ps)

/* Shift counts are constants once inlined: vpsrld/vpslld immediates. */
AI vi vi_srl(vi v, int n)
{
    vi res;
    BOTH(res, _mm256_srli_epi32(v.r[k], n));
    return res;
}

AI vi vi_sll(vi v, int n)
{
    vi res;
    BOTH(res, _mm256_slli_epi32(v.r[k], n));
    return res;
}
#define VI_SRL(v, n) vi_srl(v, n)
#define VI_SLL(v, n) vi_sll(v, n)

/* blendvps looks at the sign bit of each lane only. */
AI vi vi_sel_msb(vi m, vi a, vi b)
{
    vi res;
    BOTH(res, _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(b.r[k]),
                                                   _mm256_castsi256_ps(a.r[k]),
                                                   _mm256_castsi256_ps(m.r[k]))));
    return res;
}
#define vi_sel(m, a, b) vi_sel_msb(m, a, b)

AI int vm_all(vm m)
{
    return _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_and_si256(m.r[0], m.r[1]))) == 0xFF;
}

#include "../noise_simd.h"
