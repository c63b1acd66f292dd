/* Slicer kernels, AVX-512F: 16 lanes.  Each mirrors its namesake in
 * simd/generic/slice_c.c byte for byte (contracts in simd/slice.h) the
 * way simd/x86/slice_avx2.c does, with opmask registers for lane masks;
 * the last n % 16 elements go through the scalar reference itself.  Built
 * with -mavx512f only (F has every operation needed; no FMA is emitted
 * for the separate mul and add intrinsics). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../slice.h"

#include <immintrin.h>

#define VL 16

/* Gathers take signed 32-bit indices: a vector holding a vertex id of
 * 2^31 or more goes through the scalar code instead. */
static inline int any_high_bit(__m512i v)
{
    return _mm512_test_epi32_mask(v, _mm512_set1_epi32((int)0x80000000u)) != 0;
}

/* lev[id] for 16 ids: 32-bit gathers at scale 2, masked (see
 * simd/slice.h for the padding that makes this safe). */
static inline __m512i gather_lev(const uint16_t *lev, __m512i id)
{
    return _mm512_and_si512(_mm512_i32gather_epi32(id, lev, 2), _mm512_set1_epi32(0xFFFF));
}

/* 16 values below 65536 -> 16 uint16_t (VPMOVDW truncates). */
static inline void store_u16(uint16_t *p, __m512i v)
{
    _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16(v));
}

/* strata__level_of() for U vectors of 16 heights: the search of
 * slice_avx2.c's levels() (see there why lo is the level and the last
 * moving probe is L[level]).  Probes read L at indices below nL: one
 * register of 16 planes (VPERMPS), two (VPERMT2PS, index bit 4 picks the
 * register), else a gather. */
#define U 4

static inline __attribute__((always_inline)) __m512 probe(const float *L, __m512 t0, __m512 t1,
                                                           int ntab, __m512i idx)
{
    if (ntab == 1)
        return _mm512_permutexvar_ps(idx, t0);
    if (ntab == 2)
        return _mm512_permutex2var_ps(t0, idx, t1);
    return _mm512_i32gather_ps(idx, L, 4);
}

static inline __attribute__((always_inline)) uint64_t
classify_u(const float *L, uint32_t nL, __m512 t0, __m512 t1, int ntab, const float *h, int u,
           uint16_t *lev, uint8_t *on)
{
    __m512 hv[U], at[U];
    __m512i lo[U];
    for (int q = 0; q < u; q++) {
        hv[q] = _mm512_loadu_ps(h + q * VL);
        at[q] = _mm512_set1_ps(L[0]);
        lo[q] = _mm512_setzero_si512();
    }
    for (uint32_t len = nL; len > 1;) {
        const uint32_t half = len / 2;
        for (int q = 0; q < u; q++) {
            const __m512i idx = _mm512_add_epi32(lo[q], _mm512_set1_epi32((int)half));
            const __m512 p = probe(L, t0, t1, ntab, idx);
            const __mmask16 le = _mm512_cmp_ps_mask(p, hv[q], _CMP_LE_OQ);
            lo[q] = _mm512_mask_mov_epi32(lo[q], le, idx);
            at[q] = _mm512_mask_mov_ps(at[q], le, p);
        }
        len -= half;
    }
    uint64_t non = 0;
    for (int q = 0; q < u; q++) {
        /* level > 0 && h == L[level] */
        const __mmask16 onm = (__mmask16)(_mm512_test_epi32_mask(lo[q], lo[q]) &
                                          _mm512_cmp_ps_mask(at[q], hv[q], _CMP_EQ_OQ));
        store_u16(lev + q * VL, lo[q]);
        _mm_storeu_si128((__m128i *)(on + q * VL),
                         _mm512_cvtepi32_epi8(_mm512_maskz_mov_epi32(onm, _mm512_set1_epi32(1))));
        non += (uint64_t)__builtin_popcount(onm);
    }
    return non;
}

#define CLASSIFY_LOOP(ntab)                                                                    \
    do {                                                                                       \
        for (; i + U * VL <= n; i += U * VL)                                                   \
            non += classify_u(L, nL, t0, t1, ntab, h + i, U, lev + i, on + i);                 \
        for (; i + VL <= n; i += VL)                                                           \
            non += classify_u(L, nL, t0, t1, ntab, h + i, 1, lev + i, on + i);                 \
    } while (0)

void strata__classify_avx512(const float *L, uint32_t nL, const float *h, size_t n,
                             uint16_t *lev, uint8_t *on, uint64_t counts[2])
{
    /* Up to 32 planes in registers, padded (probes never read padding). */
    float pad[32] = {0};
    for (uint32_t j = 0; j < nL && j < 32; j++)
        pad[j] = L[j];
    const __m512 t0 = _mm512_loadu_ps(pad), t1 = _mm512_loadu_ps(pad + 16);
    uint64_t non = 0, nonfinite = 0;
    size_t i = 0;
    if (nL <= 16)
        CLASSIFY_LOOP(1);
    else if (nL <= 32)
        CLASSIFY_LOOP(2);
    else
        CLASSIFY_LOOP(0);
    /* isfinite: exponent bits not all set */
    const __m512i expo = _mm512_set1_epi32(0x7F800000);
    for (size_t j = 0; j < i; j += VL) {
        const __m512i e = _mm512_and_si512(_mm512_loadu_si512(h + j), expo);
        nonfinite += (uint64_t)__builtin_popcount(_mm512_cmpeq_epi32_mask(e, expo));
    }
    counts[0] += non;
    counts[1] += nonfinite;
    strata__classify_c(L, nL, h + i, n - i, lev + i, on + i, counts);
}

size_t strata__tri_levels_avx512(const uint32_t *a, const uint32_t *b, const uint32_t *c,
                                 size_t n, const uint16_t *lev, uint16_t *out)
{
    size_t multi = 0, t = 0;
    for (; t + VL <= n; t += VL) {
        const __m512i ia = _mm512_loadu_si512(a + t);
        const __m512i ib = _mm512_loadu_si512(b + t);
        const __m512i ic = _mm512_loadu_si512(c + t);
        if (STRATA_UNLIKELY(any_high_bit(_mm512_or_si512(_mm512_or_si512(ia, ib), ic)))) {
            multi += strata__tri_levels_c(a + t, b + t, c + t, VL, lev, out + t);
            continue;
        }
        const __m512i la = gather_lev(lev, ia), lb = gather_lev(lev, ib), lc = gather_lev(lev, ic);
        const __mmask16 one =
            (__mmask16)(_mm512_cmpeq_epi32_mask(la, lb) & _mm512_cmpeq_epi32_mask(lb, lc));
        store_u16(out + t, _mm512_mask_mov_epi32(_mm512_set1_epi32(0xFFFF), one, la));
        multi += (size_t)(VL - __builtin_popcount(one));
    }
    return multi + strata__tri_levels_c(a + t, b + t, c + t, n - t, lev, out + t);
}

void strata__place_roofs_avx512(const strata_place *g, const float *L, const float *x,
                                const float *y, const float *z, const uint16_t *lev, size_t n,
                                float *ox, float *oy, float *oz)
{
    size_t i = 0;
    if (g->geometry == STRATA_FLAT) {
        for (; i + VL <= n; i += VL) {
            const __m512i k =
                _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(lev + i)));
            const __m512 px = _mm512_loadu_ps(x + i), pz = _mm512_loadu_ps(z + i);
            _mm512_storeu_ps(ox + i, px);
            _mm512_storeu_ps(oy + i, _mm512_i32gather_ps(k, L, 4));
            _mm512_storeu_ps(oz + i, pz);
        }
    } else {
        const __m512 cx = _mm512_set1_ps(g->center[0]), cy = _mm512_set1_ps(g->center[1]),
                     cz = _mm512_set1_ps(g->center[2]), r = _mm512_set1_ps(g->radius);
        for (; i + VL <= n; i += VL) {
            const __m512i k =
                _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(lev + i)));
            const __m512 level = _mm512_i32gather_ps(k, L, 4);
            const __m512 dx = _mm512_sub_ps(_mm512_loadu_ps(x + i), cx);
            const __m512 dy = _mm512_sub_ps(_mm512_loadu_ps(y + i), cy);
            const __m512 dz = _mm512_sub_ps(_mm512_loadu_ps(z + i), cz);
            const __m512 len2 = _mm512_add_ps(
                _mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)), _mm512_mul_ps(dz, dz));
            const __m512 s = _mm512_div_ps(_mm512_add_ps(r, level), _mm512_sqrt_ps(len2));
            _mm512_storeu_ps(ox + i, _mm512_add_ps(cx, _mm512_mul_ps(dx, s)));
            _mm512_storeu_ps(oy + i, _mm512_add_ps(cy, _mm512_mul_ps(dy, s)));
            _mm512_storeu_ps(oz + i, _mm512_add_ps(cz, _mm512_mul_ps(dz, s)));
        }
    }
    strata__place_roofs_c(g, L, x + i, y + i, z + i, lev + i, n - i, ox + i, oy + i, oz + i);
}

uint64_t strata__edge_spans_avx512(const uint32_t *ev0, const uint32_t *ev1, size_t n,
                                   const uint16_t *lev, uint64_t *cross)
{
    uint64_t sum = 0;
    size_t e = 0;
    while (e + 64 <= n) {
        /* 32-bit lane sums: at most 4 x 65534 per step, flushed every
         * 2^13 steps, below 2^32. */
        __m512i acc = _mm512_setzero_si512();
        for (size_t steps = 0; steps < 8192 && e + 64 <= n; steps++, e += 64) {
            uint64_t bits = 0;
            for (int j = 0; j < 64; j += VL) {
                const __m512i i0 = _mm512_loadu_si512(ev0 + e + j);
                const __m512i i1 = _mm512_loadu_si512(ev1 + e + j);
                if (STRATA_UNLIKELY(any_high_bit(_mm512_or_si512(i0, i1)))) {
                    uint64_t b;
                    sum += strata__spans_word(ev0 + e + j, ev1 + e + j, VL, lev, &b);
                    bits |= b << j;
                    continue;
                }
                const __m512i l0 = gather_lev(lev, i0), l1 = gather_lev(lev, i1);
                acc = _mm512_add_epi32(acc, _mm512_abs_epi32(_mm512_sub_epi32(l0, l1)));
                bits |= (uint64_t)_mm512_cmpneq_epi32_mask(l0, l1) << j;
            }
            cross[e / 64] = bits;
        }
        const __m512i lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(acc));
        const __m512i hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64(acc, 1));
        sum += (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(lo, hi));
    }
    return sum + strata__edge_spans_c(ev0 + e, ev1 + e, n - e, lev, cross + e / 64);
}
