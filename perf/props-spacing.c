/* props-spacing: what the props' spacing (strata_props_options.spacing,
 * the Poisson-disk set) costs against the plain scatter by area.
 *
 *   perf/props-spacing [--level L] [--spacing D] [--density N] [--runs R]
 *
 * A planet of level L (default 7; 12 terraces, simplex fBm) sliced once,
 * then its props scattered R times (default 3) by area at the density
 * the spaced set ends up with, and R times with spacing D (default 0.01
 * of the radius; density N per unit^2, default 1e6: the spacing alone
 * decides) and again with a wall foot of D.  Prints one key=value line
 * per mode: the props made, the best time in seconds and the props per
 * second. */
#define _POSIX_C_SOURCE 200809L

#include "strata.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void need(strata_status st, const char *what)
{
    if (st != STRATA_OK) {
        fprintf(stderr, "props-spacing: %s: %s\n", what, strata_status_str(st));
        exit(1);
    }
}

static void measure(strata_ctx *ctx, const strata_result *r, const strata_props_options *o,
                    int runs, const char *mode, uint64_t *count)
{
    double best = INFINITY;
    uint64_t n = 0;
    for (int i = 0; i < runs; i++) {
        strata_props *p;
        const double t0 = now();
        need(strata_props_scatter(ctx, r, o, &p), mode);
        const double t = now() - t0;
        best = t < best ? t : best;
        strata_props_view v;
        strata_props_get_view(p, &v);
        n = v.count;
        strata_props_destroy(p);
    }
    printf("mode=%s props=%llu seconds=%.6f props_per_second=%.0f\n", mode,
           (unsigned long long)n, best, (double)n / best);
    if (count)
        *count = n;
}

int main(int argc, char **argv)
{
    int level = 7, runs = 3;
    double spacing = 0.01, density = 1e6;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--level"))
            level = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--spacing"))
            spacing = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--density"))
            density = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--runs"))
            runs = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "props-spacing: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    strata_ctx *ctx;
    need(strata_ctx_create(NULL, &ctx), "context");
    strata_mesh *m;
    need(strata_shape_icosphere(ctx, level, 1.0f, &m), "icosphere");
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.amplitude = 0.1f;
    need(strata_displace_radial(ctx, m, &f, NULL), "noise");
    float L[12];
    need(strata_levels_uniform(m, 12, NULL, L), "levels");
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = L;
    so.nlevels = 12;
    strata_result *r;
    need(strata_slice(ctx, m, &so, &r), "slice");
    strata_props_options o;
    strata_props_defaults(&o);
    o.density = density;
    o.spacing = spacing;
    uint64_t n;
    printf("level=%d spacing=%g density=%g runs=%d\n", level, spacing, density, runs);
    measure(ctx, r, &o, runs, "spacing", &n);
    o.wall_foot = spacing;
    measure(ctx, r, &o, runs, "spacing+foot", NULL);
    o.spacing = 0;
    o.wall_foot = 0;
    o.density = (double)n / (4 * 3.141592653589793); /* the same count, by area */
    measure(ctx, r, &o, runs, "area", NULL);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
    return 0;
}
