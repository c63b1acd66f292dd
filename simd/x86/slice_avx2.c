/* Slicer kernels, AVX2: 8 lanes.  Each mirrors its namesake in
 * simd/generic/slice_c.c byte for byte (contracts in simd/slice.h); the
 * last n % 8 elements go through the scalar reference itself.  Built with
 * -mavx2 only (no -mfma): products and sums stay separately rounded. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../slice.h"

#include <immintrin.h>

#define VL 8

/* Gathers take signed 32-bit indices: a vector holding a vertex id of
 * 2^31 or more goes through the scalar code instead. */
static inline int any_high_bit(__m256i v)
{
    return _mm256_movemask_ps(_mm256_castsi256_ps(v)) != 0;
}

/* lev[id] for 8 ids: 32-bit gathers at scale 2 read lev[id] and the next
 * element (the padding of simd/slice.h), masked off. */
static inline __m256i gather_lev(const uint16_t *lev, __m256i id)
{
    return _mm256_and_si256(_mm256_i32gather_epi32((const int *)lev, id, 2),
                            _mm256_set1_epi32(0xFFFF));
}

/* 8 values below 65536 -> 8 uint16_t. */
static inline void store_u16(uint16_t *p, __m256i v)
{
    const __m128i w = _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    _mm_storeu_si128((__m128i *)p, w);
}

/* strata__level_of() for U vectors of 8 heights, interleaved so that the
 * probes' latencies overlap: a branch-free binary search for the same
 * count c of planes <= h (only comparisons: any search that counts the
 * same planes agrees).  c stays in [lo, lo + len]; each step probes
 * L[lo + half] and moves lo onto it when it is <= h.  So L[lo] <= h
 * whenever lo > 0, c = lo + 1 and the level is lo; and lo = 0 gives level
 * 0 whatever L[0] is (NaN: no compare holds).  The probe that moved lo
 * last is L[lo]: h == L[level] needs no second load.
 *
 * Probes read L at indices below nL: from ntab registers of 8 planes
 * (a permute per register, then a blend tree on index bits 3 and 4) when
 * nL <= 8 * ntab, else with a gather. */
#define U 4

static inline __attribute__((always_inline)) __m256 probe(const float *L, const __m256 *tab,
                                                           int ntab, __m256i idx)
{
    if (ntab == 0)
        return _mm256_i32gather_ps(L, idx, 4);
    __m256 r[4];
    for (int j = 0; j < ntab; j++)
        r[j] = _mm256_permutevar8x32_ps(tab[j], idx);
    for (int bit = 3, step = 1; step < ntab; bit++, step *= 2) {
        const __m256 sel = _mm256_castsi256_ps(_mm256_slli_epi32(idx, 31 - bit));
        for (int j = 0; j + step < ntab; j += 2 * step)
            r[j] = _mm256_blendv_ps(r[j], r[j + step], sel);
    }
    return r[0];
}

static inline __attribute__((always_inline)) void
levels(const float *L, uint32_t nL, const __m256 *tab, int ntab, const float *h, int u,
       __m256i *lev, __m256i *onm)
{
    __m256 hv[U], at[U];
    __m256i lo[U];
    for (int q = 0; q < u; q++) {
        hv[q] = _mm256_loadu_ps(h + q * VL);
        at[q] = _mm256_set1_ps(L[0]);
        lo[q] = _mm256_setzero_si256();
    }
    for (uint32_t len = nL; len > 1;) {
        const uint32_t half = len / 2;
        for (int q = 0; q < u; q++) {
            const __m256i idx = _mm256_add_epi32(lo[q], _mm256_set1_epi32((int)half));
            const __m256 p = probe(L, tab, ntab, idx);
            const __m256 le = _mm256_cmp_ps(p, hv[q], _CMP_LE_OQ);
            lo[q] = _mm256_castps_si256(
                _mm256_blendv_ps(_mm256_castsi256_ps(lo[q]), _mm256_castsi256_ps(idx), le));
            at[q] = _mm256_blendv_ps(at[q], p, le);
        }
        len -= half;
    }
    for (int q = 0; q < u; q++) {
        lev[q] = lo[q];
        /* level > 0 && h == L[level] */
        onm[q] = _mm256_andnot_si256(_mm256_cmpeq_epi32(lo[q], _mm256_setzero_si256()),
                                     _mm256_castps_si256(_mm256_cmp_ps(at[q], hv[q], _CMP_EQ_OQ)));
    }
}

/* Writes u vectors of levels and on-plane flags; returns the on count. */
static inline __attribute__((always_inline)) uint64_t
classify_u(const float *L, uint32_t nL, const __m256 *tab, int ntab, const float *h, int u,
           uint16_t *lev, uint8_t *on)
{
    __m256i k[U], onm[U];
    uint64_t non = 0;
    levels(L, nL, tab, ntab, h, u, k, onm);
    for (int q = 0; q < u; q++) {
        store_u16(lev + q * VL, k[q]);
        const __m256i o32 = _mm256_srli_epi32(onm[q], 31); /* 0 or 1 */
        const __m128i o16 = _mm_packus_epi32(_mm256_castsi256_si128(o32),
                                             _mm256_extracti128_si256(o32, 1));
        _mm_storel_epi64((__m128i *)(on + q * VL), _mm_packus_epi16(o16, o16));
        non += (uint64_t)__builtin_popcount(_mm256_movemask_ps(_mm256_castsi256_ps(onm[q])));
    }
    return non;
}

/* The body for one table size: U vectors at a time, then single ones. */
#define CLASSIFY_LOOP(ntab)                                                                     \
    do {                                                                                        \
        for (; i + U * VL <= n; i += U * VL)                                                    \
            non += classify_u(L, nL, tab, ntab, h + i, U, lev + i, on + i);                     \
        for (; i + VL <= n; i += VL)                                                            \
            non += classify_u(L, nL, tab, ntab, h + i, 1, lev + i, on + i);                     \
    } while (0)

void strata__classify_avx2(const float *L, uint32_t nL, const float *h, size_t n, uint16_t *lev,
                           uint8_t *on, uint64_t counts[2])
{
    /* Up to 32 planes in registers, padded (probes never read padding). */
    float pad[32] = {0};
    __m256 tab[4];
    for (uint32_t j = 0; j < nL && j < 32; j++)
        pad[j] = L[j];
    for (int j = 0; j < 4; j++)
        tab[j] = _mm256_loadu_ps(pad + 8 * j);
    uint64_t non = 0, nonfinite = 0;
    size_t i = 0;
    if (nL <= 8)
        CLASSIFY_LOOP(1);
    else if (nL <= 16)
        CLASSIFY_LOOP(2);
    else if (nL <= 32)
        CLASSIFY_LOOP(4);
    else
        CLASSIFY_LOOP(0);
    /* isfinite: exponent bits not all set */
    const __m256i expo = _mm256_set1_epi32(0x7F800000);
    for (size_t j = 0; j < i; j += VL) {
        const __m256i e = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(h + j)), expo);
        nonfinite += (uint64_t)__builtin_popcount(
            _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(e, expo))));
    }
    counts[0] += non;
    counts[1] += nonfinite;
    strata__classify_c(L, nL, h + i, n - i, lev + i, on + i, counts);
}

size_t strata__tri_levels_avx2(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n,
                               const uint16_t *lev, uint16_t *out)
{
    size_t multi = 0, t = 0;
    for (; t + VL <= n; t += VL) {
        const __m256i ia = _mm256_loadu_si256((const __m256i *)(a + t));
        const __m256i ib = _mm256_loadu_si256((const __m256i *)(b + t));
        const __m256i ic = _mm256_loadu_si256((const __m256i *)(c + t));
        if (STRATA_UNLIKELY(any_high_bit(_mm256_or_si256(_mm256_or_si256(ia, ib), ic)))) {
            multi += strata__tri_levels_c(a + t, b + t, c + t, VL, lev, out + t);
            continue;
        }
        const __m256i la = gather_lev(lev, ia), lb = gather_lev(lev, ib), lc = gather_lev(lev, ic);
        const __m256i one =
            _mm256_and_si256(_mm256_cmpeq_epi32(la, lb), _mm256_cmpeq_epi32(lb, lc));
        /* one ? la : 0xFFFF, as la | 0xFFFF is 0xFFFF */
        const __m256i multi_mark = _mm256_andnot_si256(one, _mm256_set1_epi32(0xFFFF));
        store_u16(out + t, _mm256_or_si256(la, multi_mark));
        multi += (size_t)(VL - __builtin_popcount(_mm256_movemask_ps(_mm256_castsi256_ps(one))));
    }
    return multi + strata__tri_levels_c(a + t, b + t, c + t, n - t, lev, out + t);
}

void strata__place_roofs_avx2(const strata_place *g, const float *L, const float *x,
                              const float *y, const float *z, const uint16_t *lev, size_t n,
                              float *ox, float *oy, float *oz)
{
    size_t i = 0;
    if (g->geometry == STRATA_FLAT) {
        for (; i + VL <= n; i += VL) {
            const __m256i k = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(lev + i)));
            const __m256 px = _mm256_loadu_ps(x + i), pz = _mm256_loadu_ps(z + i);
            _mm256_storeu_ps(ox + i, px);
            _mm256_storeu_ps(oy + i, _mm256_i32gather_ps(L, k, 4));
            _mm256_storeu_ps(oz + i, pz);
        }
    } else {
        const __m256 cx = _mm256_set1_ps(g->center[0]), cy = _mm256_set1_ps(g->center[1]),
                     cz = _mm256_set1_ps(g->center[2]), r = _mm256_set1_ps(g->radius);
        for (; i + VL <= n; i += VL) {
            const __m256i k = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(lev + i)));
            const __m256 level = _mm256_i32gather_ps(L, k, 4);
            const __m256 dx = _mm256_sub_ps(_mm256_loadu_ps(x + i), cx);
            const __m256 dy = _mm256_sub_ps(_mm256_loadu_ps(y + i), cy);
            const __m256 dz = _mm256_sub_ps(_mm256_loadu_ps(z + i), cz);
            const __m256 len2 = _mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)), _mm256_mul_ps(dz, dz));
            const __m256 s = _mm256_div_ps(_mm256_add_ps(r, level), _mm256_sqrt_ps(len2));
            _mm256_storeu_ps(ox + i, _mm256_add_ps(cx, _mm256_mul_ps(dx, s)));
            _mm256_storeu_ps(oy + i, _mm256_add_ps(cy, _mm256_mul_ps(dy, s)));
            _mm256_storeu_ps(oz + i, _mm256_add_ps(cz, _mm256_mul_ps(dz, s)));
        }
    }
    strata__place_roofs_c(g, L, x + i, y + i, z + i, lev + i, n - i, ox + i, oy + i, oz + i);
}

uint64_t strata__edge_spans_avx2(const uint32_t *ev0, const uint32_t *ev1, size_t n,
                                 const uint16_t *lev, uint64_t *cross)
{
    uint64_t sum = 0;
    size_t e = 0;
    while (e + 64 <= n) {
        /* 32-bit lane sums: at most 8 x 65534 per step, flushed every
         * 2^12 steps, below 2^32. */
        __m256i acc = _mm256_setzero_si256();
        for (size_t steps = 0; steps < 4096 && e + 64 <= n; steps++, e += 64) {
            uint64_t bits = 0;
            for (int j = 0; j < 64; j += VL) {
                const __m256i i0 = _mm256_loadu_si256((const __m256i *)(ev0 + e + j));
                const __m256i i1 = _mm256_loadu_si256((const __m256i *)(ev1 + e + j));
                if (STRATA_UNLIKELY(any_high_bit(_mm256_or_si256(i0, i1)))) {
                    uint64_t b;
                    sum += strata__spans_word(ev0 + e + j, ev1 + e + j, VL, lev, &b);
                    bits |= b << j;
                    continue;
                }
                const __m256i l0 = gather_lev(lev, i0), l1 = gather_lev(lev, i1);
                acc = _mm256_add_epi32(acc, _mm256_abs_epi32(_mm256_sub_epi32(l0, l1)));
                const unsigned same =
                    (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(l0, l1)));
                bits |= (uint64_t)(~same & 0xFFu) << j;
            }
            cross[e / 64] = bits;
        }
        const __m256i w = _mm256_add_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(acc)),
                                           _mm256_cvtepu32_epi64(_mm256_extracti128_si256(acc, 1)));
        const __m128i s2 = _mm_add_epi64(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
        sum += (uint64_t)_mm_cvtsi128_si64(s2) + (uint64_t)_mm_extract_epi64(s2, 1);
    }
    return sum + strata__edge_spans_c(ev0 + e, ev1 + e, n - e, lev, cross + e / 64);
}
