/* Slicer kernels, scalar: the reference every ISA kernel must match byte
 * for byte (see simd/slice.h for what each computes). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../slice.h"

void strata__classify_c(const float *L, uint32_t nL, const float *h, size_t n, uint16_t *lev,
                        uint8_t *on, uint64_t counts[2])
{
    uint64_t non = 0, nonfinite = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t k = strata__level_of(L, nL, h[i]);
        lev[i] = (uint16_t)k;
        on[i] = k > 0 && h[i] == L[k];
        non += on[i];
        nonfinite += !isfinite(h[i]);
    }
    counts[0] += non;
    counts[1] += nonfinite;
}

size_t strata__tri_levels_c(const uint32_t *a, const uint32_t *b, const uint32_t *c, size_t n,
                            const uint16_t *lev, uint16_t *out)
{
    size_t multi = 0;
    for (size_t t = 0; t < n; t++) {
        const uint16_t la = lev[a[t]], lb = lev[b[t]], lc = lev[c[t]];
        const int one = la == lb && lb == lc;
        out[t] = one ? la : (uint16_t)STRATA_MULTI_BAND;
        multi += !one;
    }
    return multi;
}

void strata__place_roofs_c(const strata_place *g, const float *L, const float *x, const float *y,
                           const float *z, const uint16_t *lev, size_t n, float *ox, float *oy,
                           float *oz)
{
    for (size_t i = 0; i < n; i++)
        strata__place_point(g, x[i], y[i], z[i], L[lev[i]], &ox[i], &oy[i], &oz[i]);
}

uint64_t strata__edge_spans_c(const uint32_t *ev0, const uint32_t *ev1, size_t n,
                              const uint16_t *lev, uint64_t *cross)
{
    uint64_t sum = 0;
    for (size_t e = 0; e < n; e += 64)
        sum += strata__spans_word(ev0 + e, ev1 + e, n - e < 64 ? n - e : 64, lev, &cross[e / 64]);
    return sum;
}
