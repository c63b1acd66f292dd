/* Slicer kernels, AArch64 NEON: 4 lanes, two vectors (8 elements) a
 * step.  Each mirrors its namesake in simd/generic/slice_c.c byte for byte
 * (contracts in simd/slice.h); the last n % 8 elements go through the
 * scalar reference itself.  NEON has no gather: table lookups (TBL) stand
 * in for small plane lists, lane loads for the rest.  No vfmaq: products
 * and sums stay separately rounded. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../slice.h"

#include <arm_neon.h>

#define VL 8 /* elements a step */

/* L at 4 indices below nL: from a 16-plane table (TBL on the bytes
 * 4 idx .. 4 idx + 3 of each lane), or by lane loads. */
static inline __attribute__((always_inline)) float32x4_t probe(const float *L,
                                                               const uint8x16x4_t *tab,
                                                               int use_tab, uint32x4_t idx)
{
    if (use_tab) {
        const uint32x4_t b = vmlaq_n_u32(vdupq_n_u32(0x03020100u), idx, 0x04040404u);
        return vreinterpretq_f32_u8(vqtbl4q_u8(*tab, vreinterpretq_u8_u32(b)));
    }
    float32x4_t r = vld1q_dup_f32(L + vgetq_lane_u32(idx, 0));
    r = vld1q_lane_f32(L + vgetq_lane_u32(idx, 1), r, 1);
    r = vld1q_lane_f32(L + vgetq_lane_u32(idx, 2), r, 2);
    return vld1q_lane_f32(L + vgetq_lane_u32(idx, 3), r, 3);
}

/* strata__level_of() for 8 heights: the branch-free search of
 * simd/x86/slice_avx2.c's levels() (see there why lo is the level and
 * the last probe that moved lo is L[level]). */
static inline __attribute__((always_inline)) uint64_t
classify8(const float *L, uint32_t nL, const uint8x16x4_t *tab, int use_tab, const float *h,
          uint16_t *lev, uint8_t *on)
{
    const float32x4_t h0 = vld1q_f32(h), h1 = vld1q_f32(h + 4);
    float32x4_t at0 = vdupq_n_f32(L[0]), at1 = at0;
    uint32x4_t lo0 = vdupq_n_u32(0), lo1 = lo0;
    for (uint32_t len = nL; len > 1;) {
        const uint32_t half = len / 2;
        const uint32x4_t i0 = vaddq_u32(lo0, vdupq_n_u32(half));
        const uint32x4_t i1 = vaddq_u32(lo1, vdupq_n_u32(half));
        const float32x4_t p0 = probe(L, tab, use_tab, i0), p1 = probe(L, tab, use_tab, i1);
        const uint32x4_t le0 = vcleq_f32(p0, h0), le1 = vcleq_f32(p1, h1);
        lo0 = vbslq_u32(le0, i0, lo0);
        lo1 = vbslq_u32(le1, i1, lo1);
        at0 = vbslq_f32(le0, p0, at0);
        at1 = vbslq_f32(le1, p1, at1);
        len -= half;
    }
    /* level > 0 && h == L[level], as 0 or 1 */
    const uint32x4_t on0 = vshrq_n_u32(vandq_u32(vtstq_u32(lo0, lo0), vceqq_f32(at0, h0)), 31);
    const uint32x4_t on1 = vshrq_n_u32(vandq_u32(vtstq_u32(lo1, lo1), vceqq_f32(at1, h1)), 31);
    vst1q_u16(lev, vcombine_u16(vmovn_u32(lo0), vmovn_u32(lo1)));
    vst1_u8(on, vmovn_u16(vcombine_u16(vmovn_u32(on0), vmovn_u32(on1))));
    return vaddvq_u32(vaddq_u32(on0, on1));
}

void strata__classify_neon(const float *L, uint32_t nL, const float *h, size_t n, uint16_t *lev,
                           uint8_t *on, uint64_t counts[2])
{
    /* Up to 16 planes as a TBL table, padded (probes never read padding). */
    float pad[16] = {0};
    for (uint32_t j = 0; j < nL && j < 16; j++)
        pad[j] = L[j];
    uint8x16x4_t tab;
    tab.val[0] = vreinterpretq_u8_f32(vld1q_f32(pad));
    tab.val[1] = vreinterpretq_u8_f32(vld1q_f32(pad + 4));
    tab.val[2] = vreinterpretq_u8_f32(vld1q_f32(pad + 8));
    tab.val[3] = vreinterpretq_u8_f32(vld1q_f32(pad + 12));
    uint64_t non = 0, nonfinite = 0;
    size_t i = 0;
    if (nL <= 16) {
        for (; i + VL <= n; i += VL)
            non += classify8(L, nL, &tab, 1, h + i, lev + i, on + i);
    } else {
        for (; i + VL <= n; i += VL)
            non += classify8(L, nL, &tab, 0, h + i, lev + i, on + i);
    }
    /* isfinite: exponent bits not all set */
    const uint32x4_t expo = vdupq_n_u32(0x7F800000u);
    for (size_t j = 0; j < i; j += 4) {
        const uint32x4_t e = vandq_u32(vreinterpretq_u32_f32(vld1q_f32(h + j)), expo);
        nonfinite += vaddvq_u32(vshrq_n_u32(vceqq_u32(e, expo), 31));
    }
    counts[0] += non;
    counts[1] += nonfinite;
    strata__classify_c(L, nL, h + i, n - i, lev + i, on + i, counts);
}

/* lev at 8 ids, lane by lane. */
static inline uint16x8_t load_lev8(const uint16_t *lev, const uint32_t *id)
{
    uint16x8_t v = vld1q_dup_u16(lev + id[0]);
    v = vld1q_lane_u16(lev + id[1], v, 1);
    v = vld1q_lane_u16(lev + id[2], v, 2);
    v = vld1q_lane_u16(lev + id[3], v, 3);
    v = vld1q_lane_u16(lev + id[4], v, 4);
    v = vld1q_lane_u16(lev + id[5], v, 5);
    v = vld1q_lane_u16(lev + id[6], v, 6);
    return vld1q_lane_u16(lev + id[7], v, 7);
}

size_t strata__tri_levels_neon(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n,
                               const uint16_t *lev, uint16_t *out)
{
    size_t multi = 0, t = 0;
    for (; t + VL <= n; t += VL) {
        const uint16x8_t la = load_lev8(lev, a + t), lb = load_lev8(lev, b + t),
                         lc = load_lev8(lev, c + t);
        const uint16x8_t one = vandq_u16(vceqq_u16(la, lb), vceqq_u16(lb, lc));
        /* one ? la : 0xFFFF */
        vst1q_u16(out + t, vornq_u16(la, one));
        multi += VL - vaddvq_u16(vshrq_n_u16(one, 15));
    }
    return multi + strata__tri_levels_c(a + t, b + t, c + t, n - t, lev, out + t);
}

void strata__place_roofs_neon(const strata_place *g, const float *L, const float *x,
                              const float *y, const float *z, const uint16_t *lev, size_t n,
                              float *ox, float *oy, float *oz)
{
    size_t i = 0;
    if (g->geometry == STRATA_FLAT) {
        for (; i + 4 <= n; i += 4) {
            float32x4_t level = vld1q_dup_f32(L + lev[i]);
            level = vld1q_lane_f32(L + lev[i + 1], level, 1);
            level = vld1q_lane_f32(L + lev[i + 2], level, 2);
            level = vld1q_lane_f32(L + lev[i + 3], level, 3);
            const float32x4_t px = vld1q_f32(x + i), pz = vld1q_f32(z + i);
            vst1q_f32(ox + i, px);
            vst1q_f32(oy + i, level);
            vst1q_f32(oz + i, pz);
        }
    } else {
        const float32x4_t cx = vdupq_n_f32(g->center[0]), cy = vdupq_n_f32(g->center[1]),
                          cz = vdupq_n_f32(g->center[2]), r = vdupq_n_f32(g->radius);
        for (; i + 4 <= n; i += 4) {
            float32x4_t level = vld1q_dup_f32(L + lev[i]);
            level = vld1q_lane_f32(L + lev[i + 1], level, 1);
            level = vld1q_lane_f32(L + lev[i + 2], level, 2);
            level = vld1q_lane_f32(L + lev[i + 3], level, 3);
            const float32x4_t dx = vsubq_f32(vld1q_f32(x + i), cx);
            const float32x4_t dy = vsubq_f32(vld1q_f32(y + i), cy);
            const float32x4_t dz = vsubq_f32(vld1q_f32(z + i), cz);
            const float32x4_t len2 =
                vaddq_f32(vaddq_f32(vmulq_f32(dx, dx), vmulq_f32(dy, dy)), vmulq_f32(dz, dz));
            const float32x4_t s = vdivq_f32(vaddq_f32(r, level), vsqrtq_f32(len2));
            vst1q_f32(ox + i, vaddq_f32(cx, vmulq_f32(dx, s)));
            vst1q_f32(oy + i, vaddq_f32(cy, vmulq_f32(dy, s)));
            vst1q_f32(oz + i, vaddq_f32(cz, vmulq_f32(dz, s)));
        }
    }
    strata__place_roofs_c(g, L, x + i, y + i, z + i, lev + i, n - i, ox + i, oy + i, oz + i);
}

uint64_t strata__edge_spans_neon(const uint32_t *ev0, const uint32_t *ev1, size_t n,
                                 const uint16_t *lev, uint64_t *cross)
{
    static const uint16_t lane_bit[8] = {1, 2, 4, 8, 16, 32, 64, 128};
    const uint16x8_t bit = vld1q_u16(lane_bit);
    uint64_t sum = 0;
    size_t e = 0;
    while (e + 64 <= n) {
        /* Each step adds at most 8 x 2 x 65534 to a 32-bit lane: flushed
         * every 2^11 steps, below 2^32. */
        uint32x4_t acc = vdupq_n_u32(0);
        for (size_t steps = 0; steps < 2048 && e + 64 <= n; steps++, e += 64) {
            uint64_t bits = 0;
            for (int j = 0; j < 64; j += VL) {
                const uint16x8_t l0 = load_lev8(lev, ev0 + e + j), l1 = load_lev8(lev, ev1 + e + j);
                acc = vpadalq_u16(acc, vabdq_u16(l0, l1));
                const uint16x8_t differ = vmvnq_u16(vceqq_u16(l0, l1));
                bits |= (uint64_t)vaddvq_u16(vandq_u16(differ, bit)) << j;
            }
            cross[e / 64] = bits;
        }
        sum += vaddlvq_u32(acc);
    }
    return sum + strata__edge_spans_c(ev0 + e, ev1 + e, n - e, lev, cross + e / 64);
}
