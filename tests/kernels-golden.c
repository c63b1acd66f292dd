/* Prints one FNV-1a hash per group of outputs of the slicer and radial
 * displacement kernels on the cases of tests/kernel-cases.h, for the ISA
 * the context chose (STRATA_SIMD), and how many outputs differ from the
 * same machine's scalar kernels.  tests/neon.sh compares the lines of a
 * NEON build (under qemu-aarch64) with those of the x86 scalar build:
 * equal hashes mean equal bytes.  NaNs are hashed as one canonical NaN:
 * the default NaN of x86 (sign set) and of ARM (sign clear) differ, and
 * only the exact comparison on the same machine sees NaN bits.  The
 * kernels are hidden, so this program is built from the sources. */
#include "kernel-cases.h"

typedef struct golden {
    char group[96];
    uint32_t hash;
    unsigned long outputs, differ;
} golden;

static void flush(golden *g)
{
    if (g->group[0])
        printf("%s %08x\n", g->group, (unsigned)g->hash);
}

static void sink(void *user, const char *group, const char *what, int floats, const void *a,
                 const void *b, size_t len)
{
    golden *g = user;
    if (strcmp(group, g->group)) {
        flush(g);
        snprintf(g->group, sizeof g->group, "%s", group);
        g->hash = 2166136261u;
    }
    g->outputs++;
    if (memcmp(a, b, len)) {
        g->differ++;
        fprintf(stderr, "kernels-golden: %s, %s differs from scalar\n", group, what);
    }
    /* float buffers element by element, any NaN as 0x7FC00000 */
    const unsigned char *p = a;
    const size_t step = floats ? 4 : 1;
    for (size_t k = 0; k < len; k += step) {
        unsigned char q[4];
        memcpy(q, p + k, step);
        if (floats) {
            float f;
            memcpy(&f, q, sizeof f);
            if (isnan(f)) {
                const uint32_t canon = 0x7FC00000u;
                memcpy(q, &canon, sizeof canon);
            }
        }
        for (size_t j = 0; j < step; j++)
            g->hash = (g->hash ^ q[j]) * 16777619u;
    }
}

int main(void)
{
    strata_ctx *ctx, *ref;
    strata_ctx_options opt;
    strata_ctx_defaults(&opt);
    opt.threads = 1;
    strata_status st = strata_ctx_create(&opt, &ctx);
    if (st == STRATA_OK)
        st = strata_ctx_create(&opt, &ref);
    if (st == STRATA_OK)
        st = strata_ctx_set_isa(ref, STRATA_ISA_SCALAR);
    if (st != STRATA_OK) {
        fprintf(stderr, "kernels-golden: %s\n", strata_status_str(st));
        return 1;
    }
    printf("isa %s\n", strata_isa_name(strata_ctx_isa(ctx)));
    golden g = {"", 0, 0, 0};
    kc_run_all(&ctx->simd, &ref->simd, sink, &g);
    flush(&g);
    printf("%lu outputs, %lu differ from scalar\n", g.outputs, g.differ);
    strata_ctx_destroy(ctx);
    strata_ctx_destroy(ref);
    return 0;
}
