/* Radial displacement kernels, AArch64 NEON: 4 lanes.  Each mirrors its
 * namesake in simd/generic/displace_c.c byte for byte (contracts in
 * simd/displace.h); the last n % 4 vertices go through the scalar
 * reference itself.  FSQRT and FDIV round correctly; no vfmaq. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../displace.h"

#include <arm_neon.h>

#define VL 4

/* strata__direction() for 4 points: d, zero in the lanes where it fails
 * (clear in the returned mask). */
static inline uint32x4_t direction4(float32x4_t cx, float32x4_t cy, float32x4_t cz,
                                    const float *x, const float *y, const float *z,
                                    float32x4_t d[3])
{
    const float32x4_t dx = vsubq_f32(vld1q_f32(x), cx);
    const float32x4_t dy = vsubq_f32(vld1q_f32(y), cy);
    const float32x4_t dz = vsubq_f32(vld1q_f32(z), cz);
    const float32x4_t len =
        vsqrtq_f32(vaddq_f32(vaddq_f32(vmulq_f32(dx, dx), vmulq_f32(dy, dy)), vmulq_f32(dz, dz)));
    const uint32x4_t ok =
        vandq_u32(vcgtq_f32(len, vdupq_n_f32(0.0f)), vcleq_f32(len, vdupq_n_f32(FLT_MAX)));
    d[0] = vreinterpretq_f32_u32(vandq_u32(ok, vreinterpretq_u32_f32(vdivq_f32(dx, len))));
    d[1] = vreinterpretq_f32_u32(vandq_u32(ok, vreinterpretq_u32_f32(vdivq_f32(dy, len))));
    d[2] = vreinterpretq_f32_u32(vandq_u32(ok, vreinterpretq_u32_f32(vdivq_f32(dz, len))));
    return ok;
}

size_t strata__radial_samples_neon(const float c[3], float radius, const float *x, const float *y,
                                   const float *z, size_t n, float *sx, float *sy, float *sz)
{
    const float32x4_t cx = vdupq_n_f32(c[0]), cy = vdupq_n_f32(c[1]), cz = vdupq_n_f32(c[2]);
    const float32x4_t r = vdupq_n_f32(radius);
    size_t bad = 0, i = 0;
    for (; i + VL <= n; i += VL) {
        float32x4_t d[3];
        const uint32x4_t ok = direction4(cx, cy, cz, x + i, y + i, z + i, d);
        bad += VL - vaddvq_u32(vshrq_n_u32(ok, 31));
        vst1q_f32(sx + i, vmulq_f32(d[0], r));
        vst1q_f32(sy + i, vmulq_f32(d[1], r));
        vst1q_f32(sz + i, vmulq_f32(d[2], r));
    }
    return bad + strata__radial_samples_c(c, radius, x + i, y + i, z + i, n - i, sx + i, sy + i,
                                          sz + i);
}

void strata__radial_move_neon(const float c[3], float radius, const float *v, size_t n, float *x,
                              float *y, float *z, float *h)
{
    const float32x4_t cx = vdupq_n_f32(c[0]), cy = vdupq_n_f32(c[1]), cz = vdupq_n_f32(c[2]);
    const float32x4_t rad = vdupq_n_f32(radius);
    size_t i = 0;
    for (; i + VL <= n; i += VL) {
        float32x4_t d[3];
        direction4(cx, cy, cz, x + i, y + i, z + i, d);
        const float32x4_t hv = vld1q_f32(v + i), r = vaddq_f32(rad, hv);
        vst1q_f32(x + i, vaddq_f32(cx, vmulq_f32(d[0], r)));
        vst1q_f32(y + i, vaddq_f32(cy, vmulq_f32(d[1], r)));
        vst1q_f32(z + i, vaddq_f32(cz, vmulq_f32(d[2], r)));
        vst1q_f32(h + i, hv);
    }
    strata__radial_move_c(c, radius, v + i, n - i, x + i, y + i, z + i, h + i);
}
