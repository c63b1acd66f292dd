/* Prints one FNV-1a hash of the fBm batch output bytes per (noise kind,
 * dimensions, octaves) on a fixed set of points, for the ISA the context
 * chose (STRATA_SIMD).  tests/neon.sh compares the lines of a NEON build
 * (under qemu-aarch64) with those of the x86 scalar build: equal hashes
 * mean equal bytes.  Public API only, so it builds from the sources with
 * a bare compiler command. */
#include "strata.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 4099

static float x[N], y[N], z[N], out[N];

int main(void)
{
    static const float special[] = {0.0f,  -0.0f, 1.0f,    -1.0f,     0.5f,      1.0f / 3,
                                    -1.0f / 6, 0x1p24f, -0x1p24f, 0x1p25f, 1e30f, -1e30f,
                                    INFINITY, -INFINITY, NAN, 7.25f, 1e-30f, 0x1p-149f};
    const size_t ns = sizeof special / sizeof special[0];
    uint32_t r = 12345;
    for (size_t i = 0; i < N; i++) {
        if (i < ns * ns) {
            x[i] = special[i % ns];
            y[i] = special[i / ns];
            z[i] = special[(i * 5 + 1) % ns];
        } else {
            float v[3];
            for (int k = 0; k < 3; k++) {
                r = r * 1664525u + 1013904223u;
                const float u = (float)(r >> 8) * 0x1p-24f - 0.5f;
                v[k] = i % 3 == 0 ? u * 20 : i % 3 == 1 ? u * 2e5f : (float)(int)(u * 64);
            }
            x[i] = v[0], y[i] = v[1], z[i] = v[2];
        }
    }
    strata_ctx *ctx;
    strata_ctx_options opt;
    strata_ctx_defaults(&opt);
    opt.threads = 1;
    strata_status st = strata_ctx_create(&opt, &ctx);
    if (st != STRATA_OK) {
        fprintf(stderr, "simd-golden: %s\n", strata_status_str(st));
        return 1;
    }
    printf("isa %s\n", strata_isa_name(strata_ctx_isa(ctx)));
    static const int octaves[] = {1, 6, 16};
    for (int kind = 0; kind < 2; kind++)
        for (int dims = 2; dims <= 3; dims++)
            for (int o = 0; o < 3; o++) {
                strata_fbm f;
                strata_fbm_defaults(&f);
                f.kind = (strata_noise_kind)kind;
                f.octaves = octaves[o];
                f.seed = 7u * (uint32_t)o + (uint32_t)kind;
                f.frequency = o == 2 ? 0.37f : 1.0f;
                f.lacunarity = o == 2 ? 1.93f : 2.0f;
                /* N and N - 1, N - 2, N - 3: every tail length of 4 lanes */
                uint32_t h = 2166136261u;
                for (size_t n = N - 3; n <= N; n++) {
                    memset(out, 0, sizeof out);
                    st = dims == 2 ? strata_fbm2_batch(ctx, &f, x, y, n, out)
                                   : strata_fbm3_batch(ctx, &f, x, y, z, n, out);
                    if (st != STRATA_OK)
                        return 1;
                    const unsigned char *b = (const unsigned char *)out;
                    for (size_t k = 0; k < sizeof out; k++)
                        h = (h ^ b[k]) * 16777619u;
                }
                printf("%s %dD octaves=%d %08x\n", kind ? "perlin" : "simplex", dims,
                       octaves[o], (unsigned)h);
            }
    strata_ctx_destroy(ctx);
    return 0;
}
