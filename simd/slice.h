/* Slicer kernels: the batch interface of the dispatch table and the
 * scalar pieces every implementation mirrors.
 *
 * The scalar reference is simd/generic/slice_c.c; the ISA kernels
 * (simd/x86/slice_avx2.c, slice_avx512.c, simd/arm/slice_neon.c) must give
 * the same bytes on every input.  core/slice/slice.c chooses them once per call
 * through ctx->simd and runs them on blocks of vertices, triangles or
 * edges from its own threads; the kernels themselves are single-threaded.
 */
#ifndef STRATA_SIMD_SLICE_H
#define STRATA_SIMD_SLICE_H

#include "base.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* tri_levels' mark for a triangle spanning more than one band.  Levels are
 * below 65535 (strata_levels_validate), so it never is a level. */
#define STRATA_MULTI_BAND 0xFFFFu

/* Level of a height: the number of planes L[0..n) that are <= h, minus one,
 * at least 0 (NaN: 0).  A binary search; only comparisons, so any
 * implementation that counts the same planes gives the same level. */
static inline uint32_t strata__level_of(const float *L, uint32_t n, float h)
{
    uint32_t lo = 0, len = n; /* first index with L[i] > h */
    while (len > 0) {
        const uint32_t half = len / 2;
        if (L[lo + half] <= h) {
            lo += half + 1;
            len -= half + 1;
        } else {
            len = half;
        }
    }
    return lo > 0 ? lo - 1 : 0;
}

/* Where the slicer puts points (the geometry of a mesh, see strata.h). */
typedef struct strata_place {
    strata_geometry geometry;
    float center[3];
    float radius;
} strata_place;

/* The point p = (px, py, pz) moved to height `level`: FLAT replaces y;
 * RADIAL projects p from the centre onto the sphere of radius
 * R + level, as d * ((R + level) / |d|) with d = p - centre, in exactly
 * this order of single-precision operations (no fused multiply-add). */
static inline void strata__place_point(const strata_place *g, float px, float py, float pz,
                                       float level, float *ox, float *oy, float *oz)
{
    if (g->geometry == STRATA_FLAT) {
        *ox = px;
        *oy = level;
        *oz = pz;
        return;
    }
    const float dx = px - g->center[0], dy = py - g->center[1], dz = pz - g->center[2];
    const float s = (g->radius + level) / sqrtf(dx * dx + dy * dy + dz * dz);
    *ox = g->center[0] + dx * s;
    *oy = g->center[1] + dy * s;
    *oz = g->center[2] + dz * s;
}

/* The kernels (types in simd/functable.h):
 *
 * classify(L, nL, h, n, lev, on, counts)
 *   for i < n: lev[i] = strata__level_of(L, nL, h[i]);
 *              on[i]  = lev[i] > 0 && h[i] == L[lev[i]]   (0 or 1);
 *   counts[0] += the number of on[i] == 1, counts[1] += the number of h[i]
 *   that are NaN or infinite.  nL is 1..65534, L strictly ascending and
 *   finite.
 *
 * tri_levels(a, b, c, n, lev, out) -> number of STRATA_MULTI_BAND marks
 *   for t < n: out[t] = lev[a[t]] when lev[a[t]] == lev[b[t]] == lev[c[t]]
 *   (the triangle lies in one band), else STRATA_MULTI_BAND.  lev must be
 *   readable one element past the largest vertex id (kernels may load it
 *   in 32-bit lanes): callers allocate one uint16_t of padding.
 *
 * place_roofs(g, L, x, y, z, lev, n, ox, oy, oz)
 *   for i < n: strata__place_point(g, x[i], y[i], z[i], L[lev[i]],
 *   &ox[i], &oy[i], &oz[i]).
 *
 * edge_spans(ev0, ev1, n, lev, cross) -> sum over e < n of |lev[ev0[e]] -
 *   lev[ev1[e]]| (the planes crossing each edge), with the padding rule of
 *   tri_levels; bit e % 64 of cross[e / 64] is set when the two differ
 *   (the edge crosses a plane), and the bits from n to the end of the
 *   last word are 0: cross holds (n + 63) / 64 words.
 */

/* edge_spans on n <= 64 edges: their sum, and their bits in *bits. */
static inline uint64_t strata__spans_word(const uint32_t *ev0, const uint32_t *ev1, size_t n,
                                          const uint16_t *lev, uint64_t *bits)
{
    uint64_t sum = 0, b = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t p = lev[ev0[i]], q = lev[ev1[i]];
        sum += p < q ? q - p : p - q;
        b |= (uint64_t)(p != q) << i;
    }
    *bits = b;
    return sum;
}

#define STRATA_SLICE_KERNELS(isa)                                                              \
    STRATA_HIDDEN void strata__classify_##isa(const float *L, uint32_t nL, const float *h,      \
                                              size_t n, uint16_t *lev, uint8_t *on,             \
                                              uint64_t counts[2]);                             \
    STRATA_HIDDEN size_t strata__tri_levels_##isa(const uint32_t *a, const uint32_t *b,         \
                                                  const uint32_t *c, size_t n,                  \
                                                  const uint16_t *lev, uint16_t *out);          \
    STRATA_HIDDEN void strata__place_roofs_##isa(const strata_place *g, const float *L,         \
                                                 const float *x, const float *y,                \
                                                 const float *z, const uint16_t *lev, size_t n, \
                                                 float *ox, float *oy, float *oz);              \
    STRATA_HIDDEN uint64_t strata__edge_spans_##isa(const uint32_t *ev0, const uint32_t *ev1,   \
                                                    size_t n, const uint16_t *lev,              \
                                                    uint64_t *cross)

STRATA_SLICE_KERNELS(c); /* simd/generic/slice_c.c: the reference */
#ifdef HAVE_AVX2
STRATA_SLICE_KERNELS(avx2);
#endif
#ifdef HAVE_AVX512
STRATA_SLICE_KERNELS(avx512);
#endif
#ifdef HAVE_NEON
STRATA_SLICE_KERNELS(neon);
#endif

#endif
