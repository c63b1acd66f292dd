/* fBm batch kernels, AVX-512F: 16 lanes.  Mirrors core/mesh/noise.c bit for
 * bit through simd/noise_simd.h; lane masks are opmask registers.  Built
 * with -mavx512f only (F has every operation needed). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <immintrin.h>
#include <stdint.h>

#define VL 16
#define ISA_SUFFIX avx512

typedef __m512 vf;
typedef __m512i vi;
typedef __mmask16 vm;

#define vf_load(p) _mm512_loadu_ps(p)
#define vf_store(p, v) _mm512_storeu_ps(p, v)
#define vf_set1(f) _mm512_set1_ps(f)
#define vi_set1(u) _mm512_set1_epi32((int)(u))
#define vf_add _mm512_add_ps
#define vf_sub _mm512_sub_ps
#define vf_mul _mm512_mul_ps
/* vmaxps/vminps: the second operand unless the compare holds. */
#define vf_max_lo(v, lo) _mm512_max_ps(v, lo)
#define vf_min_hi(v, hi) _mm512_min_ps(v, hi)
#define vf_floor(v) _mm512_roundscale_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define vf_cvtt _mm512_cvttps_epi32
/* vcvtps2dq with embedded round-down: floor and convert in one
 * instruction (vrndscaleps + vcvttps2dq are three uops on Intel cores);
 * vcvtdq2ps gives the reference's (float)i. */
#define vf_cvt_floor(v) _mm512_cvt_roundps_epi32(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC)
#define vi_cvtf _mm512_cvtepi32_ps
#define vf_gt(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ)
#define vf_ge(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ)
#define vi_add _mm512_add_epi32
#define vi_mul _mm512_mullo_epi32
#define vi_xor _mm512_xor_si512
#define vi_and _mm512_and_si512
#define VI_SRL(v, n) _mm512_srli_epi32(v, n)
#define VI_SLL(v, n) _mm512_slli_epi32(v, n)
#define vi_gt _mm512_cmpgt_epi32_mask
#define vm_and(a, b) ((vm)((a) & (b)))
#define vm_or(a, b) ((vm)((a) | (b)))
#define vm_andnot(a, b) _kandn_mask16(a, b)
#define vm_all(m) ((m) == (vm)0xFFFF)
#define vf_bits _mm512_castps_si512
#define vi_asf _mm512_castsi512_ps
#define vi_sel(m, a, b) _mm512_mask_blend_epi32(m, b, a)
#define vi_sel_msb(v, a, b) vi_sel(_mm512_cmplt_epi32_mask(v, _mm512_setzero_si512()), a, b)
/* vpternlogd: one instruction for any function of three bit vectors. */
#define vi_xor3(a, b, c) _mm512_ternarylogic_epi32(a, b, c, 0x96)
#define vi_xor_and(a, b, c) _mm512_ternarylogic_epi32(a, b, c, 0x78)

#include "../noise_simd.h"
