/* contours-floats: what the float decimals of strata contours cost alone
 * (core/base/shortest.h's strata__put_float, the writers' formatter), one
 * thread, on the numbers a 4096 x 4096 grid's lines hold: map
 * coordinates in [0, 4096), a third of them integers (crossings of grid
 * lines), the rest arbitrary floats.  Prints key=value lines.
 *
 *   perf/contours-floats [N]        (N numbers, default 10000000) */
#include "base/shortest.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    const long n = argc > 1 ? atol(argv[1]) : 10000000L;
    if (n < 1) {
        fprintf(stderr, "usage: %s [N]\n", argv[0]);
        return 2;
    }
    float *v = malloc(sizeof(float) * (size_t)n);
    char *out = malloc(17 * (size_t)n);
    if (!v || !out) {
        fprintf(stderr, "contours-floats: out of memory\n");
        return 1;
    }
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (long i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        const float x = (float)((double)(s >> 11) * 0x1p-53 * 4095.0);
        v[i] = i % 3 == 0 ? (float)(long)x : x;
    }
    double best = 1e30;
    size_t bytes = 0;
    for (int r = 0; r < 3; r++) {
        const double t0 = now();
        char *p = out;
        for (long i = 0; i < n; i++)
            p = strata__put_float(p, v[i]);
        const double t = now() - t0;
        bytes = (size_t)(p - out);
        best = t < best ? t : best;
    }
    printf("bench=floats\nnumbers=%ld\nbytes=%zu\nseconds=%.4f\nns_per_number=%.2f\n", n, bytes,
           best, 1e9 * best / (double)n);
    free(v);
    free(out);
    return 0;
}
