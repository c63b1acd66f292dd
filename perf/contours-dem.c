/* contours-dem: a smooth synthetic DEM for perf/contours.sh, made the way
 * a real one is upsampled: a coarse grid of fBm samples (strata's 2D
 * simplex noise, 6 octaves, seed 7: hills and valleys) interpolated
 * bicubically (Catmull-Rom) up to N x N, written as a 16-bit PGM whose
 * samples span 1000..64535.
 *
 *   perf/contours-dem N COARSE OUT.pgm      (4096 257 dem.pgm) */
#include <strata.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double cubic(double p0, double p1, double p2, double p3, double t)
{
    return p1 + 0.5 * t *
                    (p2 - p0 + t * (2 * p0 - 5 * p1 + 4 * p2 - p3 + t * (3 * (p1 - p2) + p3 - p0)));
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s N COARSE OUT.pgm\n", argv[0]);
        return 2;
    }
    const long n = atol(argv[1]), c = atol(argv[2]);
    if (n < 2 || n > 32768 || c < 4 || c > n) {
        fprintf(stderr, "contours-dem: N in 2..32768, COARSE in 4..N\n");
        return 2;
    }
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.seed = 7;
    f.frequency = 3.0f;
    double *g = malloc(sizeof(double) * (size_t)c * (size_t)c);
    double *v = malloc(sizeof(double) * (size_t)n * (size_t)n);
    unsigned char *out = malloc(2 * (size_t)n * (size_t)n);
    if (!g || !v || !out) {
        fprintf(stderr, "contours-dem: out of memory\n");
        return 1;
    }
    for (long j = 0; j < c; j++)
        for (long i = 0; i < c; i++)
            g[j * c + i] = strata_fbm2(&f, (float)i / (float)(c - 1), (float)j / (float)(c - 1));
    double lo = INFINITY, hi = -INFINITY;
    for (long y = 0; y < n; y++) {
        const double gy = (double)y * (double)(c - 1) / (double)(n - 1);
        long j = (long)gy;
        j = j > c - 2 ? c - 2 : j;
        const double ty = gy - (double)j;
        for (long x = 0; x < n; x++) {
            const double gx = (double)x * (double)(c - 1) / (double)(n - 1);
            long i = (long)gx;
            i = i > c - 2 ? c - 2 : i;
            const double tx = gx - (double)i;
            double col[4];
            for (int k = 0; k < 4; k++) {
                long jj = j - 1 + k;
                jj = jj < 0 ? 0 : jj > c - 1 ? c - 1 : jj;
                double p[4];
                for (int m = 0; m < 4; m++) {
                    long ii = i - 1 + m;
                    ii = ii < 0 ? 0 : ii > c - 1 ? c - 1 : ii;
                    p[m] = g[jj * c + ii];
                }
                col[k] = cubic(p[0], p[1], p[2], p[3], tx);
            }
            const double h = cubic(col[0], col[1], col[2], col[3], ty);
            v[y * n + x] = h;
            lo = h < lo ? h : lo;
            hi = h > hi ? h : hi;
        }
    }
    for (long i = 0; i < n * n; i++) {
        const long s = lround(1000.0 + 63535.0 * (v[i] - lo) / (hi - lo));
        out[2 * i] = (unsigned char)(s >> 8);
        out[2 * i + 1] = (unsigned char)s;
    }
    FILE *fp = fopen(argv[3], "wb");
    if (!fp || fprintf(fp, "P5\n%ld %ld\n65535\n", n, n) < 0 ||
        fwrite(out, 2, (size_t)(n * n), fp) != (size_t)(n * n) || fclose(fp) != 0) {
        perror(argv[3]);
        return 1;
    }
    free(g);
    free(v);
    free(out);
    return 0;
}
