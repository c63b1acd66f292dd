/* fBm batch kernels, AVX2: 8 lanes.  Mirrors core/noise.c bit for bit
 * through simd/noise_simd.h.  Built with -mavx2 only (no -mfma): products
 * and sums stay separately rounded. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <immintrin.h>
#include <stdint.h>

#define VL 8
#define ISA_SUFFIX avx2

typedef __m256 vf;
typedef __m256i vi;
typedef __m256i vm; /* all-ones / all-zeros lanes */

#define vf_load(p) _mm256_loadu_ps(p)
#define vf_store(p, v) _mm256_storeu_ps(p, v)
#define vf_set1(f) _mm256_set1_ps(f)
#define vi_set1(u) _mm256_set1_epi32((int)(u))
#define vf_add _mm256_add_ps
#define vf_sub _mm256_sub_ps
#define vf_mul _mm256_mul_ps
/* maxps/minps return the second operand unless the compare holds: exactly
 * v > lo ? v : lo and v < hi ? v : hi, NaN included. */
#define vf_max_lo(v, lo) _mm256_max_ps(v, lo)
#define vf_min_hi(v, hi) _mm256_min_ps(v, hi)
#define vf_floor(v) _mm256_round_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define vf_cvtt _mm256_cvttps_epi32
#define vf_gt(a, b) _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_GT_OQ))
#define vf_ge(a, b) _mm256_castps_si256(_mm256_cmp_ps(a, b, _CMP_GE_OQ))
#define vi_add _mm256_add_epi32
#define vi_mul _mm256_mullo_epi32
#define vi_xor _mm256_xor_si256
#define vi_and _mm256_and_si256
#define VI_SRL(v, n) _mm256_srli_epi32(v, n)
#define VI_SLL(v, n) _mm256_slli_epi32(v, n)
#define vi_gt _mm256_cmpgt_epi32
#define vm_and _mm256_and_si256
#define vm_or _mm256_or_si256
#define vm_andnot _mm256_andnot_si256
#define vm_all(m) (_mm256_movemask_ps(_mm256_castsi256_ps(m)) == 0xFF)
#define vf_bits _mm256_castps_si256
#define vi_asf _mm256_castsi256_ps

/* blendvps looks at the sign bit of each lane only. */
#define vi_sel_msb(v, a, b)                                                    \
    _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(b), _mm256_castsi256_ps(a), \
                                         _mm256_castsi256_ps(v)))
#define vi_sel(m, a, b) vi_sel_msb(m, a, b)
#define vf_mask(m, a) _mm256_and_ps(_mm256_castsi256_ps(m), a)
#define vi_mask(m, a) _mm256_and_si256(m, a)
#define vf_maskn(m, a) _mm256_andnot_ps(_mm256_castsi256_ps(m), a)
#define vi_maskn(m, a) _mm256_andnot_si256(m, a)

#include "../noise_simd.h"
