/* Radial displacement kernels: the batch interface of the dispatch table
 * and the scalar piece every implementation mirrors.
 *
 * The scalar reference is simd/generic/displace_c.c; the ISA kernels
 * (simd/x86/displace_avx2.c, displace_avx512.c, simd/arm/displace_neon.c)
 * must give the same bytes on every input.  core/mesh/displace.c runs them on
 * blocks of vertices from its own threads; the kernels are
 * single-threaded.
 */
#ifndef STRATA_SIMD_DISPLACE_H
#define STRATA_SIMD_DISPLACE_H

#include "base.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Unit direction of the point (px, py, pz) from the centre c:
 * d = (p - c) / |p - c|, three divisions by the correctly rounded length
 * (not a multiplication by its reciprocal), no fused multiply-add.  False,
 * with d left alone, at (or numerically at) the centre and for a length
 * that is not finite. */
static inline bool strata__direction(const float c[3], float px, float py, float pz, float d[3])
{
    const float dx = px - c[0], dy = py - c[1], dz = pz - c[2];
    const float len = sqrtf(dx * dx + dy * dy + dz * dz);
    if (!(len > 0.0f && len <= FLT_MAX))
        return false;
    d[0] = dx / len;
    d[1] = dy / len;
    d[2] = dz / len;
    return true;
}

/* The kernels (types in simd/functable.h):
 *
 * radial_samples(c, radius, x, y, z, n, sx, sy, sz) -> number of bad i
 *   for i < n: d = (0, 0, 0); bad = !strata__direction(c, x[i], y[i],
 *   z[i], d); sx[i] = d[0] * radius, sy[i] = d[1] * radius,
 *   sz[i] = d[2] * radius: the noise sample points on the base sphere.
 *
 * radial_move(c, radius, v, n, x, y, z, h)
 *   for i < n: d = (0, 0, 0); strata__direction(c, x[i], y[i], z[i], d);
 *   r = radius + v[i]; x[i] = c[0] + d[0] * r, y[i] = c[1] + d[1] * r,
 *   z[i] = c[2] + d[2] * r; h[i] = v[i]: each vertex moved along its
 *   direction to radius + v.  x, y, z are read before they are written;
 *   v and h may be the same array.
 */
#define STRATA_DISPLACE_KERNELS(isa)                                                           \
    STRATA_HIDDEN size_t strata__radial_samples_##isa(const float c[3], float radius,          \
                                                      const float *x, const float *y,          \
                                                      const float *z, size_t n, float *sx,     \
                                                      float *sy, float *sz);                   \
    STRATA_HIDDEN void strata__radial_move_##isa(const float c[3], float radius, const float *v, \
                                                 size_t n, float *x, float *y, float *z,       \
                                                 float *h)

STRATA_DISPLACE_KERNELS(c); /* simd/generic/displace_c.c: the reference */
#ifdef HAVE_AVX2
STRATA_DISPLACE_KERNELS(avx2);
#endif
#ifdef HAVE_AVX512
STRATA_DISPLACE_KERNELS(avx512);
#endif
#ifdef HAVE_NEON
STRATA_DISPLACE_KERNELS(neon);
#endif

#endif
