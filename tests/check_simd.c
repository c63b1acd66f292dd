/* Check suite "simd": every instruction set this CPU has gives the scalar
 * reference's bytes, and contexts choose, force and report ISAs as
 * documented (strata_ctx_set_isa, STRATA_SIMD).  The slicer and
 * displacement kernels are hidden: they are reached through the context's
 * dispatch table (simd/functable.h). */
#include "testutil.h"

#include "kernel-cases.h"

#include <sys/mman.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ inputs */

#define NPTS 6007 /* not a multiple of any lane width */

static float px[NPTS + 1], py[NPTS + 1], pz[NPTS + 1];

static uint64_t rng_state;
static uint32_t rng(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}
static float urand(float lo, float hi) { return lo + (hi - lo) * (float)(rng() >> 8) * 0x1p-24f; }

/* Values a kernel may get wrong: lattice points, simplex cell boundaries
 * (multiples of 1/3, 1/6 and the 2D skew), signed zeros, the clamp limits
 * and beyond, huge, tiny, infinite and NaN. */
static const float special[] = {
    0.0f,         -0.0f,       1.0f,         -1.0f,        0.5f,       -0.5f,
    1.0f / 3,     -1.0f / 3,   1.0f / 6,     -1.0f / 6,    2.0f / 3,   0.36602540f,
    0.21132487f,  -0.78867513f, 7.0f,        -7.0f,        1e-3f,      -1e-3f,
    1e-30f,       -1e-30f,     0x1p-149f,    -0x1p-149f,   0x1p23f,    -0x1p23f,
    0x1p23f + 1,  0x1p24f,     -0x1p24f,     0x1p24f + 2,  -0x1p24f - 2, 0x1p25f,
    3e7f,         -3e7f,       1e9f,         -1e9f,        1e30f,      -1e30f,
    0x1.fffffep127f, -0x1.fffffep127f, INFINITY, -INFINITY, NAN,      -NAN,
    123456.5f,    -98765.25f,  0.99999994f,  -0.99999994f, 1.00000012f, 4095.9998f,
};
#define NSPECIAL (sizeof special / sizeof special[0])

static void make_points(void)
{
    rng_state = 0x5eed;
    size_t i = 0;
    /* every combination of three specials (cycled) */
    for (; i < NSPECIAL * NSPECIAL && i < NPTS; i++) {
        px[i] = special[i % NSPECIAL];
        py[i] = special[(i / NSPECIAL) % NSPECIAL];
        pz[i] = special[(i * 7 + 3) % NSPECIAL];
    }
    /* integer lattice and half-integer points */
    for (int a = -4; a <= 4 && i + 3 < NPTS; a++)
        for (int b = -4; b <= 4 && i + 3 < NPTS; b++, i += 2) {
            px[i] = (float)a, py[i] = (float)b, pz[i] = (float)(a - b);
            px[i + 1] = a + 0.5f, py[i + 1] = b * 0.5f, pz[i + 1] = (a + b) / 3.0f;
        }
    /* 3D simplex cell boundaries: x + (x+y+z)/3 integer */
    for (; i < 2600; i++) {
        const float s = (float)(int)urand(-50, 50);
        px[i] = s, py[i] = s, pz[i] = (float)(int)urand(-50, 50);
    }
    /* small, wide and very wide random ranges, all signs */
    for (; i < 4000; i++)
        px[i] = urand(-10, 10), py[i] = urand(-10, 10), pz[i] = urand(-10, 10);
    for (; i < 5000; i++)
        px[i] = urand(-1e5f, 1e5f), py[i] = urand(-1e5f, 1e5f), pz[i] = urand(-1e5f, 1e5f);
    for (; i < NPTS; i++) {
        const float e = urand(-20, 40); /* magnitudes 1e-6 .. 1e12 */
        px[i] = (rng() & 1 ? -1 : 1) * powf(2.0f, e);
        py[i] = (rng() & 1 ? -1 : 1) * powf(2.0f, urand(-20, 40));
        pz[i] = (rng() & 1 ? -1 : 1) * powf(2.0f, urand(-20, 40));
    }
    px[NPTS] = py[NPTS] = pz[NPTS] = 0.25f;
}

static const size_t lengths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 1000, NPTS};
#define NLENGTHS (sizeof lengths / sizeof lengths[0])

static const strata_fbm specs[] = {
    {STRATA_NOISE_SIMPLEX, 1, 1, 1.0f, 2.0f, 0.5f, 1.0f},
    {STRATA_NOISE_SIMPLEX, 0, 6, 1.0f, 2.0f, 0.5f, 1.0f},
    {STRATA_NOISE_SIMPLEX, 0xFFFFFFFFu, 16, 0.37f, 1.93f, 0.61f, 3.5f},
    {STRATA_NOISE_PERLIN, 1, 1, 1.0f, 2.0f, 0.5f, 1.0f},
    {STRATA_NOISE_PERLIN, 7, 6, 1.0f, 2.0f, 0.5f, 1.0f},
    {STRATA_NOISE_PERLIN, 0xFFFFFFFEu, 16, 0.37f, 1.93f, 0.61f, 3.5f},
    {STRATA_NOISE_SIMPLEX, 42, 3, 1e-3f, 3.0f, 0.4f, 100.0f},
    {STRATA_NOISE_PERLIN, 42, 3, 1e-3f, 3.0f, 0.4f, 100.0f},
};
#define NSPECS (sizeof specs / sizeof specs[0])

static strata_ctx *ctx_for(strata_isa isa)
{
    strata_ctx *c = ctx_new(1);
    ck_assert_ok(strata_ctx_set_isa(c, isa));
    ck_assert_int_eq(strata_ctx_isa(c), isa);
    return c;
}

static uint32_t fbits(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

/* ------------------------------------------------------------ sameness */

/* _i: the ISA.  Compares the bytes of both batch kernels for every spec,
 * length and start offset (0 and 1: unaligned) with the scalar ones. */
START_TEST(test_kernels_match_scalar)
{
    const strata_isa isa = (strata_isa)_i;
    unsetenv("STRATA_SIMD");
    if (!(strata_cpu_isas() & STRATA_ISA_BIT(isa))) {
        printf("simd: %s kernels not run: this CPU lacks %s (hardware)\n", strata_isa_name(isa),
               strata_isa_name(isa));
        return;
    }
    make_points();
    strata_ctx *ref = ctx_for(STRATA_ISA_SCALAR), *vec = ctx_for(isa);
    static float a[NPTS + 8], b[NPTS + 8];
    unsigned long compared = 0;
    for (size_t s = 0; s < NSPECS; s++) {
        const strata_fbm *f = &specs[s];
        for (size_t l = 0; l < NLENGTHS; l++) {
            for (size_t off = 0; off < 2; off++) {
                const size_t n = lengths[l];
                for (int dims = 2; dims <= 3; dims++) {
                    /* canaries after the end must survive */
                    for (size_t k = 0; k < NPTS + 8; k++)
                        a[k] = b[k] = -777.0f;
                    if (dims == 2) {
                        ck_assert_ok(strata_fbm2_batch(ref, f, px + off, py + off, n, a + off));
                        ck_assert_ok(strata_fbm2_batch(vec, f, px + off, py + off, n, b + off));
                    } else {
                        ck_assert_ok(
                            strata_fbm3_batch(ref, f, px + off, py + off, pz + off, n, a + off));
                        ck_assert_ok(
                            strata_fbm3_batch(vec, f, px + off, py + off, pz + off, n, b + off));
                    }
                    for (size_t k = 0; k < NPTS + 8; k++) {
                        require(fbits(a[k]) == fbits(b[k]),
                                "%s %dD spec %zu n=%zu off=%zu: point %zu (%a, %a, %a): "
                                "scalar %a, %s %a",
                                strata_isa_name(isa), dims, s, n, off, k, (double)px[k],
                                (double)py[k], (double)pz[k], (double)a[k], strata_isa_name(isa),
                                (double)b[k]);
                    }
                    compared += n;
                }
            }
        }
    }
    /* The batch is also the single-point function. */
    for (size_t k = 0; k < NPTS; k++) {
        float v2, v3;
        ck_assert_ok(strata_fbm2_batch(vec, &specs[1], px + k, py + k, 1, &v2));
        ck_assert_ok(strata_fbm3_batch(vec, &specs[1], px + k, py + k, pz + k, 1, &v3));
        require(fbits(v2) == fbits(strata_fbm2(&specs[1], px[k], py[k])), "fbm2 point %zu", k);
        require(fbits(v3) == fbits(strata_fbm3(&specs[1], px[k], py[k], pz[k])),
                "fbm3 point %zu", k);
    }
    ck_assert(compared > 200000);
    strata_ctx_destroy(ref);
    strata_ctx_destroy(vec);
}
END_TEST

/* Many random points in one batch, threads as the machine has: the bytes
 * of every available ISA equal the scalar ones. */
START_TEST(test_large_batch)
{
    unsetenv("STRATA_SIMD");
    enum { N = 200003 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y), *z = malloc(N * sizeof *z);
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    ck_assert(x && y && z && a && b);
    rng_state = 99;
    for (int i = 0; i < N; i++)
        x[i] = urand(-300, 300), y[i] = urand(-300, 300), z[i] = urand(-300, 300);
    strata_fbm f;
    strata_fbm_defaults(&f);
    strata_ctx *ref = ctx_for(STRATA_ISA_SCALAR);
    for (int kind = 0; kind < 2; kind++) {
        f.kind = (strata_noise_kind)kind;
        ck_assert_ok(strata_fbm3_batch(ref, &f, x, y, z, N, a));
        for (int isa = 1; isa < STRATA_ISA_COUNT_; isa++) {
            if (!(strata_cpu_isas() & STRATA_ISA_BIT(isa)))
                continue;
            strata_ctx *c = ctx_for((strata_isa)isa);
            ck_assert_ok(strata_fbm3_batch(c, &f, x, y, z, N, b));
            ck_assert_msg(!memcmp(a, b, N * sizeof *a), "%s differs", strata_isa_name(isa));
            strata_ctx_destroy(c);
        }
    }
    strata_ctx_destroy(ref);
    free(x), free(y), free(z), free(a), free(b);
}
END_TEST

/* The slicer and displacement kernels of tests/kernel-cases.h. */
typedef struct cmp_state {
    const char *isa;
    unsigned long outputs;
} cmp_state;

static void cmp_sink(void *user, const char *group, const char *what, int floats, const void *a,
                     const void *b, size_t len)
{
    cmp_state *s = user;
    s->outputs++;
    if (!memcmp(a, b, len))
        return;
    const unsigned char *pa = a, *pb = b;
    size_t k = 0;
    while (pa[k] == pb[k])
        k++;
    if (floats) {
        float fa, fb;
        k -= k % 4;
        memcpy(&fa, pa + k, 4);
        memcpy(&fb, pb + k, 4);
        ck_abort_msg("%s: %s, %s: element %zu: scalar %a (%08x), %s %a (%08x)", s->isa, group,
                     what, k / 4, (double)fa, (unsigned)fbits(fa), s->isa, (double)fb,
                     (unsigned)fbits(fb));
    }
    ck_abort_msg("%s: %s, %s: byte %zu of %zu: scalar %02x, %s %02x", s->isa, group, what, k, len,
                 pa[k], s->isa, pb[k]);
}

/* Vertex ids of 2^31 and more (the x86 kernels' gathers take signed
 * indices): a level array of 2^32 + 1 elements, reserved but barely
 * touched. */
static void check_high_ids(const strata_dispatch *ref, const strata_dispatch *vec)
{
    const size_t nlev = ((size_t)1 << 32) + 1, bytes = nlev * sizeof(uint16_t);
    uint16_t *lev = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (lev == MAP_FAILED) {
        printf("simd: no room for 2^32 levels, high vertex ids not checked\n");
        return;
    }
    enum { N = 77 };
    static const uint32_t ids[] = {0, 1, 5, 0x7FFFFFFEu, 0x7FFFFFFFu, 0x80000000u, 0x80000001u,
                                   0xC0000000u, 0xFFFFFFFEu, 0xFFFFFFFFu};
    const size_t nids = sizeof ids / sizeof ids[0];
    for (size_t k = 0; k < nids; k++)
        lev[ids[k]] = (uint16_t)(k % 3);
    lev[nlev - 1] = 0xBEEF; /* padding */
    uint32_t a[N], b[N], c[N];
    kc_state = 31;
    for (size_t t = 0; t < N; t++) {
        /* the first vectors have low ids only, later ones some high */
        const uint32_t lim = t < 16 ? 3 : (uint32_t)nids;
        a[t] = ids[kc_rng() % lim], b[t] = ids[kc_rng() % lim], c[t] = ids[kc_rng() % lim];
    }
    uint16_t o1[N], o2[N];
    const size_t m1 = ref->tri_levels(a, b, c, N, lev, o1);
    const size_t m2 = vec->tri_levels(a, b, c, N, lev, o2);
    ck_assert_uint_eq(m1, m2);
    ck_assert(!memcmp(o1, o2, sizeof o1));
    uint64_t x1[(N + 63) / 64], x2[(N + 63) / 64];
    memset(x2, 0xA5, sizeof x2);
    ck_assert_uint_eq(ref->edge_spans(a, b, N, lev, x1), vec->edge_spans(a, b, N, lev, x2));
    ck_assert(!memcmp(x1, x2, sizeof x1));
    ck_assert_uint_gt(ref->edge_spans(a, b, N, lev, x1), 0);
    for (size_t e = 0; e < 64 * ((N + 63) / 64); e++) /* the bits say which ends differ */
        require(((x1[e / 64] >> (e % 64)) & 1) == (e < N && lev[a[e]] != lev[b[e]]), "edge %zu",
                e);
    munmap(lev, bytes);
}

/* _i: the ISA.  Its slicer and displacement kernels are its own (not the
 * scalar ones) and give the scalar reference's bytes on every case. */
START_TEST(test_slice_displace_kernels)
{
    const strata_isa isa = (strata_isa)_i;
    unsetenv("STRATA_SIMD");
    if (!(strata_cpu_isas() & STRATA_ISA_BIT(isa))) {
        printf("simd: %s kernels not run: this CPU lacks %s (hardware)\n", strata_isa_name(isa),
               strata_isa_name(isa));
        return;
    }
    strata_ctx *ref = ctx_for(STRATA_ISA_SCALAR), *vec = ctx_for(isa);
    const strata_dispatch *r = &ref->simd, *v = &vec->simd;
    ck_assert(v->classify != r->classify && v->tri_levels != r->tri_levels &&
              v->place_roofs != r->place_roofs && v->edge_spans != r->edge_spans &&
              v->radial_samples != r->radial_samples && v->radial_move != r->radial_move);
    cmp_state s = {strata_isa_name(isa), 0};
    kc_run_all(r, v, cmp_sink, &s);
    ck_assert_uint_gt(s.outputs, 4000);
    check_high_ids(r, v);
    strata_ctx_destroy(ref);
    strata_ctx_destroy(vec);
}
END_TEST

/* ------------------------------------------------------------ selection */

START_TEST(test_isa_names)
{
    for (int i = STRATA_ISA_AUTO; i < STRATA_ISA_COUNT_; i++) {
        strata_isa back;
        ck_assert_ok(strata_isa_from_name(strata_isa_name((strata_isa)i), &back));
        ck_assert_int_eq(back, i);
    }
    ck_assert_str_eq(strata_isa_name(STRATA_ISA_SCALAR), "scalar");
    ck_assert_str_eq(strata_isa_name(STRATA_ISA_AVX2), "avx2");
    ck_assert_str_eq(strata_isa_name(STRATA_ISA_AVX512), "avx512");
    ck_assert_str_eq(strata_isa_name(STRATA_ISA_NEON), "neon");
    ck_assert_str_eq(strata_isa_name((strata_isa)99), "unknown");
    ck_assert_str_eq(strata_isa_name((strata_isa)-7), "unknown");
    strata_isa isa = STRATA_ISA_NEON;
    ck_assert_status(strata_isa_from_name("AVX2", &isa), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_isa_from_name("", &isa), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_isa_from_name("sse9", &isa), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_isa_from_name(NULL, &isa), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_isa_from_name("avx2", NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_int_eq(isa, STRATA_ISA_NEON);
}
END_TEST

/* The automatic choice by the rule strata.h documents, found out here
 * independently of simd/dispatch.c: NEON on AArch64; on x86-64 AVX-512
 * on AMD family 1Ah models 00h-0Fh (Zen 5 EPYC) and Intel family 06h
 * model CFh (Emerald Rapids), else AVX2.  cpu_rule() gives 1 for the
 * first, 2 for the second. */
static int cpu_rule(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    unsigned a, b, c, d;
    char vendor[13] = {0};
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return 0;
    memcpy(vendor, &b, 4), memcpy(vendor + 4, &d, 4), memcpy(vendor + 8, &c, 4);
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    const unsigned base = (a >> 8) & 0xF;
    const unsigned family = base + (base == 0xF ? (a >> 20) & 0xFF : 0);
    const unsigned model = (base == 0x6 || base == 0xF ? (a >> 12) & 0xF0 : 0) | ((a >> 4) & 0xF);
    if (!strcmp(vendor, "AuthenticAMD") && family == 0x1A && model <= 0x0F)
        return 1;
    if (!strcmp(vendor, "GenuineIntel") && family == 0x06 && model == 0xCF)
        return 2;
    return 0;
#else
    return 0;
#endif
}

static strata_isa best_expected(void)
{
    const unsigned m = strata_cpu_isas();
    if (m & STRATA_ISA_BIT(STRATA_ISA_NEON))
        return STRATA_ISA_NEON;
    if ((m & STRATA_ISA_BIT(STRATA_ISA_AVX512)) && cpu_rule())
        return STRATA_ISA_AVX512;
    if (m & STRATA_ISA_BIT(STRATA_ISA_AVX2))
        return STRATA_ISA_AVX2;
    return STRATA_ISA_SCALAR;
}

/* The reason starts with the ISA's name and a colon. */
static void check_reason(const strata_ctx *c, const char *contains)
{
    const char *r = strata_ctx_isa_reason(c), *name = strata_isa_name(strata_ctx_isa(c));
    ck_assert_msg(!strncmp(r, name, strlen(name)) && r[strlen(name)] == ':' &&
                      r[strlen(name) + 1] == ' ' && r[strlen(name) + 2],
                  "reason '%s' for %s", r, name);
    ck_assert_msg(strstr(r, contains), "reason '%s' lacks '%s'", r, contains);
}

/* The automatic table holds, entry by entry, the kernels of the ISA it
 * reports (every AVX-512 kernel pays on the processors of the rule). */
START_TEST(test_auto_table)
{
    unsetenv("STRATA_SIMD");
    strata_ctx *a, *f;
    ck_assert_ok(strata_ctx_create(NULL, &a));
    ck_assert_int_eq(strata_ctx_isa(a), best_expected());
    ck_assert_ok(strata_ctx_create(NULL, &f));
    ck_assert_ok(strata_ctx_set_isa(f, best_expected()));
    const strata_dispatch *da = &a->simd, *df = &f->simd;
    ck_assert(da->fbm2 == df->fbm2 && da->fbm3 == df->fbm3 && da->classify == df->classify &&
              da->tri_levels == df->tri_levels && da->place_roofs == df->place_roofs &&
              da->edge_spans == df->edge_spans && da->radial_samples == df->radial_samples &&
              da->radial_move == df->radial_move);
    if (best_expected() == STRATA_ISA_AVX512)
        check_reason(a, cpu_rule() == 1 ? "family 1Ah" : "family 06h model CFh");
    else if (strata_cpu_isas() & STRATA_ISA_BIT(STRATA_ISA_AVX512))
        check_reason(a, "not measured to pay");
    else
        check_reason(a, "");
    check_reason(f, "forced by the caller");
    ck_assert_str_eq(strata_ctx_isa_reason(NULL), "");
    strata_ctx_destroy(a);
    strata_ctx_destroy(f);
}
END_TEST

START_TEST(test_ctx_default_and_force)
{
    unsetenv("STRATA_SIMD");
    const unsigned m = strata_cpu_isas();
    ck_assert(m & STRATA_ISA_BIT(STRATA_ISA_SCALAR));
    ck_assert_uint_eq(m >> STRATA_ISA_COUNT_, 0);
#if !defined(__x86_64__)
    ck_assert(!(m & (STRATA_ISA_BIT(STRATA_ISA_AVX2) | STRATA_ISA_BIT(STRATA_ISA_AVX512))));
#endif
#if !defined(__aarch64__)
    ck_assert(!(m & STRATA_ISA_BIT(STRATA_ISA_NEON)));
#endif
    if (m & STRATA_ISA_BIT(STRATA_ISA_AVX512))
        ck_assert(m & STRATA_ISA_BIT(STRATA_ISA_AVX2));
    strata_ctx *c = ctx_new(0);
    ck_assert_int_eq(strata_ctx_isa(c), best_expected());
    for (int i = 0; i < STRATA_ISA_COUNT_; i++) {
        const strata_isa before = strata_ctx_isa(c);
        if (m & STRATA_ISA_BIT(i)) {
            ck_assert_ok(strata_ctx_set_isa(c, (strata_isa)i));
            ck_assert_int_eq(strata_ctx_isa(c), i);
        } else {
            ck_assert_status(strata_ctx_set_isa(c, (strata_isa)i), STRATA_ERR_ISA);
            ck_assert_int_eq(strata_ctx_isa(c), before);
        }
    }
    ck_assert_ok(strata_ctx_set_isa(c, STRATA_ISA_AUTO));
    ck_assert_int_eq(strata_ctx_isa(c), best_expected());
    ck_assert_status(strata_ctx_set_isa(c, (strata_isa)STRATA_ISA_COUNT_), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_ctx_set_isa(c, (strata_isa)-2), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_ctx_set_isa(NULL, STRATA_ISA_SCALAR), STRATA_ERR_INVALID_ARG);
    ck_assert_int_eq(strata_ctx_isa(c), best_expected());
    strata_ctx_destroy(c);
}
END_TEST

/* STRATA_SIMD is read when a context is created. */
START_TEST(test_env)
{
    const unsigned m = strata_cpu_isas();
    strata_ctx *c;
    static const char *const same_as_default[] = {"", "auto"};
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(setenv("STRATA_SIMD", same_as_default[k], 1), 0);
        ck_assert_ok(strata_ctx_create(NULL, &c));
        ck_assert_int_eq(strata_ctx_isa(c), best_expected());
        strata_ctx_destroy(c);
    }
    for (int i = 0; i < STRATA_ISA_COUNT_; i++) {
        ck_assert_int_eq(setenv("STRATA_SIMD", strata_isa_name((strata_isa)i), 1), 0);
        c = (strata_ctx *)&c;
        if (m & STRATA_ISA_BIT(i)) {
            ck_assert_ok(strata_ctx_create(NULL, &c));
            ck_assert_int_eq(strata_ctx_isa(c), i);
            check_reason(c, "forced by STRATA_SIMD");
            /* forcing later still works and overrides the variable */
            ck_assert_ok(strata_ctx_set_isa(c, STRATA_ISA_SCALAR));
            ck_assert_int_eq(strata_ctx_isa(c), STRATA_ISA_SCALAR);
            strata_ctx_destroy(c);
        } else {
            ck_assert_status(strata_ctx_create(NULL, &c), STRATA_ERR_ISA);
            ck_assert_ptr_null(c);
        }
    }
    static const char *const bad[] = {"sse9", "AVX2", "scalar ", "avx", "none", "1"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_int_eq(setenv("STRATA_SIMD", bad[k], 1), 0);
        c = (strata_ctx *)&c;
        ck_assert_status(strata_ctx_create(NULL, &c), STRATA_ERR_INVALID_ARG);
        ck_assert_ptr_null(c);
    }
    unsetenv("STRATA_SIMD");
}
END_TEST

static Suite *simd_suite(void)
{
    Suite *s = suite_create("simd");
    TCase *tc = tcase_create("Kernels");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_kernels_match_scalar, STRATA_ISA_AVX2, STRATA_ISA_COUNT_);
    tcase_add_test(tc, test_large_batch);
    tcase_add_loop_test(tc, test_slice_displace_kernels, STRATA_ISA_AVX2, STRATA_ISA_COUNT_);
    suite_add_tcase(s, tc);
    tc = tcase_create("Selection");
    tcase_add_test(tc, test_isa_names);
    tcase_add_test(tc, test_ctx_default_and_force);
    tcase_add_test(tc, test_auto_table);
    tcase_add_test(tc, test_env);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    /* Which ISAs this run covers, for the log. */
    printf("simd: available:");
    for (int i = 0; i < STRATA_ISA_COUNT_; i++)
        if (strata_cpu_isas() & STRATA_ISA_BIT(i))
            printf(" %s", strata_isa_name((strata_isa)i));
    printf("\n");
    return run_suite(simd_suite());
}
