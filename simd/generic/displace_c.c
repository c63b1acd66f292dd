/* Radial displacement kernels, scalar: the reference every ISA kernel must
 * match byte for byte (see simd/displace.h for what each computes). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../displace.h"

size_t strata__radial_samples_c(const float c[3], float radius, const float *x, const float *y,
                                const float *z, size_t n, float *sx, float *sy, float *sz)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        float d[3] = {0.0f, 0.0f, 0.0f};
        bad += !strata__direction(c, x[i], y[i], z[i], d);
        sx[i] = d[0] * radius;
        sy[i] = d[1] * radius;
        sz[i] = d[2] * radius;
    }
    return bad;
}

void strata__radial_move_c(const float c[3], float radius, const float *v, size_t n, float *x,
                           float *y, float *z, float *h)
{
    for (size_t i = 0; i < n; i++) {
        float d[3] = {0.0f, 0.0f, 0.0f};
        strata__direction(c, x[i], y[i], z[i], d);
        const float hv = v[i], r = radius + hv;
        x[i] = c[0] + d[0] * r;
        y[i] = c[1] + d[1] * r;
        z[i] = c[2] + d[2] * r;
        h[i] = hv;
    }
}
