/* Radial displacement kernels, AVX2: 8 lanes.  Each mirrors its namesake
 * in simd/generic/displace_c.c byte for byte (contracts in
 * simd/displace.h); the last n % 8 vertices go through the scalar
 * reference itself.  Built with -mavx2 only (no -mfma). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../displace.h"

#include <immintrin.h>

#define VL 8

/* strata__direction() for 8 points: d, zero in the lanes where it fails
 * (*ok clear there). */
static inline void direction8(__m256 cx, __m256 cy, __m256 cz, const float *x, const float *y,
                              const float *z, __m256 d[3], __m256 *ok)
{
    const __m256 dx = _mm256_sub_ps(_mm256_loadu_ps(x), cx);
    const __m256 dy = _mm256_sub_ps(_mm256_loadu_ps(y), cy);
    const __m256 dz = _mm256_sub_ps(_mm256_loadu_ps(z), cz);
    const __m256 len = _mm256_sqrt_ps(_mm256_add_ps(
        _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)), _mm256_mul_ps(dz, dz)));
    *ok = _mm256_and_ps(_mm256_cmp_ps(len, _mm256_setzero_ps(), _CMP_GT_OQ),
                        _mm256_cmp_ps(len, _mm256_set1_ps(FLT_MAX), _CMP_LE_OQ));
    d[0] = _mm256_and_ps(*ok, _mm256_div_ps(dx, len));
    d[1] = _mm256_and_ps(*ok, _mm256_div_ps(dy, len));
    d[2] = _mm256_and_ps(*ok, _mm256_div_ps(dz, len));
}

size_t strata__radial_samples_avx2(const float c[3], float radius, const float *x, const float *y,
                                   const float *z, size_t n, float *sx, float *sy, float *sz)
{
    const __m256 cx = _mm256_set1_ps(c[0]), cy = _mm256_set1_ps(c[1]), cz = _mm256_set1_ps(c[2]);
    const __m256 r = _mm256_set1_ps(radius);
    size_t bad = 0, i = 0;
    for (; i + VL <= n; i += VL) {
        __m256 d[3], ok;
        direction8(cx, cy, cz, x + i, y + i, z + i, d, &ok);
        bad += (size_t)(VL - __builtin_popcount(_mm256_movemask_ps(ok)));
        _mm256_storeu_ps(sx + i, _mm256_mul_ps(d[0], r));
        _mm256_storeu_ps(sy + i, _mm256_mul_ps(d[1], r));
        _mm256_storeu_ps(sz + i, _mm256_mul_ps(d[2], r));
    }
    return bad + strata__radial_samples_c(c, radius, x + i, y + i, z + i, n - i, sx + i, sy + i,
                                          sz + i);
}

void strata__radial_move_avx2(const float c[3], float radius, const float *v, size_t n, float *x,
                              float *y, float *z, float *h)
{
    const __m256 cx = _mm256_set1_ps(c[0]), cy = _mm256_set1_ps(c[1]), cz = _mm256_set1_ps(c[2]);
    const __m256 rad = _mm256_set1_ps(radius);
    size_t i = 0;
    for (; i + VL <= n; i += VL) {
        __m256 d[3], ok;
        direction8(cx, cy, cz, x + i, y + i, z + i, d, &ok);
        const __m256 hv = _mm256_loadu_ps(v + i), r = _mm256_add_ps(rad, hv);
        _mm256_storeu_ps(x + i, _mm256_add_ps(cx, _mm256_mul_ps(d[0], r)));
        _mm256_storeu_ps(y + i, _mm256_add_ps(cy, _mm256_mul_ps(d[1], r)));
        _mm256_storeu_ps(z + i, _mm256_add_ps(cz, _mm256_mul_ps(d[2], r)));
        _mm256_storeu_ps(h + i, hv);
    }
    strata__radial_move_c(c, radius, v + i, n - i, x + i, y + i, z + i, h + i);
}
