/* fBm batch kernels, AArch64 NEON: 4 lanes.  Mirrors core/mesh/noise.c bit for
 * bit through simd/noise_simd.h.  No vfmaq: products and sums stay
 * separately rounded.  fmax/fmin would return NaN for a NaN lane, so the
 * clamps are compare-and-select, like the scalar ?: . */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arm_neon.h>

#define VL 4
#define ISA_SUFFIX neon

typedef float32x4_t vf;
typedef uint32x4_t vi;
typedef uint32x4_t vm; /* all-ones / all-zeros lanes */

#define vf_load(p) vld1q_f32(p)
#define vf_store(p, v) vst1q_f32(p, v)
#define vf_set1(f) vdupq_n_f32(f)
#define vi_set1(u) vdupq_n_u32(u)
#define vf_add vaddq_f32
#define vf_sub vsubq_f32
#define vf_mul vmulq_f32
#define vf_max_lo(v, lo) vbslq_f32(vcgtq_f32(v, lo), v, lo)
#define vf_min_hi(v, hi) vbslq_f32(vcltq_f32(v, hi), v, hi)
/* FCVTZS truncates toward zero like the C cast (in range after clamping). */
#define vf_floor vrndmq_f32 /* FRINTM */
#define vf_cvtt(v) vreinterpretq_u32_s32(vcvtq_s32_f32(v))
#define vf_gt vcgtq_f32
#define vf_ge vcgeq_f32
#define vi_add vaddq_u32
#define vi_mul vmulq_u32
#define vi_xor veorq_u32
#define vi_and vandq_u32
#define VI_SRL(v, n) vshrq_n_u32(v, n)
#define VI_SLL(v, n) vshlq_n_u32(v, n)
#define vi_gt(a, b) vcgtq_s32(vreinterpretq_s32_u32(a), vreinterpretq_s32_u32(b))
#define vm_and vandq_u32
#define vm_or vorrq_u32
#define vm_andnot(a, b) vbicq_u32(b, a)
#define vm_all(m) (vminvq_u32(m) == 0xFFFFFFFFu)
#define vf_bits vreinterpretq_u32_f32
#define vi_asf vreinterpretq_f32_u32
#define vi_sel(m, a, b) vbslq_u32(m, a, b)
#define vi_sel_msb(v, a, b) vbslq_u32(vcltzq_s32(vreinterpretq_s32_u32(v)), a, b)

#include "../noise_simd.h"
