/* Radial displacement kernels, AVX-512F: 16 lanes.  Each mirrors its
 * namesake in simd/generic/displace_c.c byte for byte (contracts in
 * simd/displace.h), as simd/x86/displace_avx2.c does with opmasks; the
 * last n % 16 vertices go through the scalar reference itself.  Built
 * with -mavx512f only. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../displace.h"

#include <immintrin.h>

#define VL 16

/* strata__direction() for 16 points: d, zero in the lanes where it fails
 * (clear in the returned mask). */
static inline __mmask16 direction16(__m512 cx, __m512 cy, __m512 cz, const float *x,
                                    const float *y, const float *z, __m512 d[3])
{
    const __m512 dx = _mm512_sub_ps(_mm512_loadu_ps(x), cx);
    const __m512 dy = _mm512_sub_ps(_mm512_loadu_ps(y), cy);
    const __m512 dz = _mm512_sub_ps(_mm512_loadu_ps(z), cz);
    const __m512 len = _mm512_sqrt_ps(_mm512_add_ps(
        _mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)), _mm512_mul_ps(dz, dz)));
    const __mmask16 ok =
        (__mmask16)(_mm512_cmp_ps_mask(len, _mm512_setzero_ps(), _CMP_GT_OQ) &
                    _mm512_cmp_ps_mask(len, _mm512_set1_ps(FLT_MAX), _CMP_LE_OQ));
    d[0] = _mm512_maskz_mov_ps(ok, _mm512_div_ps(dx, len));
    d[1] = _mm512_maskz_mov_ps(ok, _mm512_div_ps(dy, len));
    d[2] = _mm512_maskz_mov_ps(ok, _mm512_div_ps(dz, len));
    return ok;
}

size_t strata__radial_samples_avx512(const float c[3], float radius, const float *x,
                                     const float *y, const float *z, size_t n, float *sx,
                                     float *sy, float *sz)
{
    const __m512 cx = _mm512_set1_ps(c[0]), cy = _mm512_set1_ps(c[1]), cz = _mm512_set1_ps(c[2]);
    const __m512 r = _mm512_set1_ps(radius);
    size_t bad = 0, i = 0;
    for (; i + VL <= n; i += VL) {
        __m512 d[3];
        const __mmask16 ok = direction16(cx, cy, cz, x + i, y + i, z + i, d);
        bad += (size_t)(VL - __builtin_popcount(ok));
        _mm512_storeu_ps(sx + i, _mm512_mul_ps(d[0], r));
        _mm512_storeu_ps(sy + i, _mm512_mul_ps(d[1], r));
        _mm512_storeu_ps(sz + i, _mm512_mul_ps(d[2], r));
    }
    return bad + strata__radial_samples_c(c, radius, x + i, y + i, z + i, n - i, sx + i, sy + i,
                                          sz + i);
}

void strata__radial_move_avx512(const float c[3], float radius, const float *v, size_t n,
                                float *x, float *y, float *z, float *h)
{
    const __m512 cx = _mm512_set1_ps(c[0]), cy = _mm512_set1_ps(c[1]), cz = _mm512_set1_ps(c[2]);
    const __m512 rad = _mm512_set1_ps(radius);
    size_t i = 0;
    for (; i + VL <= n; i += VL) {
        __m512 d[3];
        direction16(cx, cy, cz, x + i, y + i, z + i, d);
        const __m512 hv = _mm512_loadu_ps(v + i), r = _mm512_add_ps(rad, hv);
        _mm512_storeu_ps(x + i, _mm512_add_ps(cx, _mm512_mul_ps(d[0], r)));
        _mm512_storeu_ps(y + i, _mm512_add_ps(cy, _mm512_mul_ps(d[1], r)));
        _mm512_storeu_ps(z + i, _mm512_add_ps(cz, _mm512_mul_ps(d[2], r)));
        _mm512_storeu_ps(h + i, hv);
    }
    strata__radial_move_c(c, radius, v + i, n - i, x + i, y + i, z + i, h + i);
}
