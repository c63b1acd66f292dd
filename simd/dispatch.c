/* The dispatch table: which kernels a context uses, and why.
 *
 * Filled once per context (never a global table: two contexts may run
 * different ISAs at the same time, and nothing is written lazily from
 * several threads).  Start from the scalar reference and override with
 * the chosen ISA's kernels; the automatic choice may keep the AVX2 kernel
 * for some entries on an AVX-512 CPU (the rule below).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "functable.h"
#include "cpu.h"
#include "displace.h"
#include "noise.h"
#include "slice.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const isa_names[STRATA_ISA_COUNT_] = {"scalar", "avx2", "avx512", "neon"};

/* The kernels of the table, as bits of a rule's mask. */
enum {
    K_FBM2,
    K_FBM3,
    K_CLASSIFY,
    K_TRI_LEVELS,
    K_PLACE_ROOFS,
    K_EDGE_SPANS,
    K_RADIAL_SAMPLES,
    K_RADIAL_MOVE,
    K_COUNT
};
static const char *const kernel_names[K_COUNT] = {
    "fbm2", "fbm3", "classify", "tri_levels", "place_roofs", "edge_spans", "radial_samples",
    "radial_move"};
#define K_ALL ((1u << K_COUNT) - 1)

/* The AVX-512 rule, the one place that decides it.
 *
 * AVX-512 is the automatic choice only on the processors listed here,
 * for the kernels in `pays`; every other kernel keeps its AVX2 version.
 * A row is added from measurements: `perf/strata-bench --stage kernels`
 * times every kernel at every ISA on one thread, and a kernel goes into
 * `pays` when its AVX-512 version is faster than its AVX2 one there.
 * Elsewhere (Zen 4's double-pumped units, Intel cores that lower their
 * clock for 512-bit work, CPUs nobody measured) AVX2 stays the default
 * until a measurement says otherwise; STRATA_SIMD=avx512 or
 * strata_ctx_set_isa force it. */
static const struct avx512_rule {
    const char *vendor;
    unsigned family, model_lo, model_hi;
    const char *name; /* for strata_ctx_isa_reason */
    unsigned pays;    /* K_* bits */
} avx512_rules[] = {
    /* EPYC 9005 (Turin), measured on family 1Ah model 02h: 512-bit
     * datapaths, every AVX-512 kernel at least as fast as its AVX2 one. */
    {"AuthenticAMD", 0x1A, 0x00, 0x0F, "Zen 5, full-width AVX-512 units", K_ALL},
    /* Xeon 5th generation (Emerald Rapids), measured on family 06h model
     * CFh, best of 5, two runs: fbm 1.55-1.89x, classify 5.3-5.4x,
     * tri_levels 1.07-1.17x, place_roofs 1.05-1.12x, radial 1.01-1.03x,
     * edge_spans 1.16-1.97x (with its crossing bits; 0.97-1.10x before
     * them).  Sapphire Rapids (model 8Fh) has the same core but was not
     * measured. */
    {"GenuineIntel", 0x06, 0xCF, 0xCF, "Emerald Rapids, 512-bit units", K_ALL},
};

/* ISAs whose kernels this library was built with. */
static unsigned built_isas(void)
{
    unsigned m = STRATA_ISA_BIT(STRATA_ISA_SCALAR);
#ifdef HAVE_AVX2
    m |= STRATA_ISA_BIT(STRATA_ISA_AVX2);
#endif
#ifdef HAVE_AVX512
    m |= STRATA_ISA_BIT(STRATA_ISA_AVX512);
#endif
#ifdef HAVE_NEON
    m |= STRATA_ISA_BIT(STRATA_ISA_NEON);
#endif
    return m;
}

unsigned strata_cpu_isas(void)
{
    return built_isas() & (STRATA_ISA_BIT(STRATA_ISA_SCALAR) | strata__cpu_x86_isas() |
                           strata__cpu_arm_isas());
}

/* The rule's row for this CPU, or NULL. */
static const struct avx512_rule *avx512_rule(const strata_cpu_id *id)
{
    for (size_t i = 0; i < sizeof avx512_rules / sizeof avx512_rules[0]; i++) {
        const struct avx512_rule *r = &avx512_rules[i];
        if (!strcmp(id->vendor, r->vendor) && id->family == r->family &&
            id->model >= r->model_lo && id->model <= r->model_hi)
            return r;
    }
    return NULL;
}

/* Set the kernels in mask (K_* bits) to those of isa; the others stay. */
static void set_kernels(strata_dispatch *d, strata_isa isa, unsigned mask)
{
#define SET(k, field, fn)                                                                         \
    if (mask & (1u << (k)))                                                                       \
    d->field = fn
    switch (isa) {
    case STRATA_ISA_SCALAR:
        SET(K_FBM2, fbm2, strata__fbm2_c);
        SET(K_FBM3, fbm3, strata__fbm3_c);
        SET(K_CLASSIFY, classify, strata__classify_c);
        SET(K_TRI_LEVELS, tri_levels, strata__tri_levels_c);
        SET(K_PLACE_ROOFS, place_roofs, strata__place_roofs_c);
        SET(K_EDGE_SPANS, edge_spans, strata__edge_spans_c);
        SET(K_RADIAL_SAMPLES, radial_samples, strata__radial_samples_c);
        SET(K_RADIAL_MOVE, radial_move, strata__radial_move_c);
        break;
#ifdef HAVE_AVX2
    case STRATA_ISA_AVX2:
        SET(K_FBM2, fbm2, strata__fbm2_avx2);
        SET(K_FBM3, fbm3, strata__fbm3_avx2);
        SET(K_CLASSIFY, classify, strata__classify_avx2);
        SET(K_TRI_LEVELS, tri_levels, strata__tri_levels_avx2);
        SET(K_PLACE_ROOFS, place_roofs, strata__place_roofs_avx2);
        SET(K_EDGE_SPANS, edge_spans, strata__edge_spans_avx2);
        SET(K_RADIAL_SAMPLES, radial_samples, strata__radial_samples_avx2);
        SET(K_RADIAL_MOVE, radial_move, strata__radial_move_avx2);
        break;
#endif
#ifdef HAVE_AVX512
    case STRATA_ISA_AVX512:
        SET(K_FBM2, fbm2, strata__fbm2_avx512);
        SET(K_FBM3, fbm3, strata__fbm3_avx512);
        SET(K_CLASSIFY, classify, strata__classify_avx512);
        SET(K_TRI_LEVELS, tri_levels, strata__tri_levels_avx512);
        SET(K_PLACE_ROOFS, place_roofs, strata__place_roofs_avx512);
        SET(K_EDGE_SPANS, edge_spans, strata__edge_spans_avx512);
        SET(K_RADIAL_SAMPLES, radial_samples, strata__radial_samples_avx512);
        SET(K_RADIAL_MOVE, radial_move, strata__radial_move_avx512);
        break;
#endif
#ifdef HAVE_NEON
    case STRATA_ISA_NEON:
        SET(K_FBM2, fbm2, strata__fbm2_neon);
        SET(K_FBM3, fbm3, strata__fbm3_neon);
        SET(K_CLASSIFY, classify, strata__classify_neon);
        SET(K_TRI_LEVELS, tri_levels, strata__tri_levels_neon);
        SET(K_PLACE_ROOFS, place_roofs, strata__place_roofs_neon);
        SET(K_EDGE_SPANS, edge_spans, strata__edge_spans_neon);
        SET(K_RADIAL_SAMPLES, radial_samples, strata__radial_samples_neon);
        SET(K_RADIAL_MOVE, radial_move, strata__radial_move_neon);
        break;
#endif
    default: break;
    }
#undef SET
}

/* Append to d->reason (truncating). */
static void say(strata_dispatch *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(strata_dispatch *d, const char *fmt, ...)
{
    const size_t len = strlen(d->reason);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->reason + len, sizeof d->reason - len, fmt, ap);
    va_end(ap);
}

/* The automatic choice: NEON on AArch64; on x86-64 AVX2, or AVX-512 for
 * the kernels of this CPU's rule. */
static void fill_auto(strata_dispatch *d, unsigned avail)
{
    if (avail & STRATA_ISA_BIT(STRATA_ISA_NEON)) {
        set_kernels(d, STRATA_ISA_NEON, K_ALL);
        d->isa = STRATA_ISA_NEON;
        say(d, "neon: the best instruction set this CPU and build have");
        return;
    }
    if (!(avail & STRATA_ISA_BIT(STRATA_ISA_AVX2))) {
        say(d, "scalar: no SIMD kernels for this CPU in this build");
        return;
    }
    set_kernels(d, STRATA_ISA_AVX2, K_ALL);
    d->isa = STRATA_ISA_AVX2;
    strata_cpu_id id;
    strata__cpu_x86_id(&id);
    const struct avx512_rule *r = avx512_rule(&id);
    if (!(avail & STRATA_ISA_BIT(STRATA_ISA_AVX512))) {
        say(d, "avx2: the best instruction set this CPU and build have");
        return;
    }
    if (!r) {
        say(d, "avx2: AVX-512 not measured to pay on %s family %02Xh model %02Xh "
               "(STRATA_SIMD=avx512 forces it)",
            id.vendor, id.family, id.model);
        return;
    }
    set_kernels(d, STRATA_ISA_AVX512, r->pays);
    d->isa = STRATA_ISA_AVX512;
    say(d, "avx512: %s family %02Xh model %02Xh (%s)", id.vendor, id.family, id.model, r->name);
    if (r->pays != K_ALL) {
        say(d, "; avx2 kept for");
        for (int k = 0; k < K_COUNT; k++)
            if (!(r->pays & (1u << k)))
                say(d, " %s", kernel_names[k]);
    }
}

/* Fill d for isa (STRATA_ISA_AUTO: the rule); forced_by names who asked
 * for a forced one. */
static void fill(strata_dispatch *d, strata_isa isa, unsigned avail, const char *forced_by)
{
    d->isa = STRATA_ISA_SCALAR;
    d->reason[0] = '\0';
    set_kernels(d, STRATA_ISA_SCALAR, K_ALL);
    if (isa == STRATA_ISA_AUTO) {
        fill_auto(d, avail);
        return;
    }
    set_kernels(d, isa, K_ALL);
    d->isa = isa;
    say(d, "%s: forced by %s", isa_names[isa], forced_by);
}

strata_status strata__dispatch_fill(strata_dispatch *d, strata_isa isa, const char *forced_by)
{
    if (!d || isa < STRATA_ISA_AUTO || isa >= STRATA_ISA_COUNT_)
        return STRATA_ERR_INVALID_ARG;
    const unsigned avail = strata_cpu_isas();
    if (isa != STRATA_ISA_AUTO && !(avail & STRATA_ISA_BIT(isa)))
        return STRATA_ERR_ISA;
    fill(d, isa, avail, forced_by);
    return STRATA_OK;
}

const char *strata_isa_name(strata_isa isa)
{
    if (isa == STRATA_ISA_AUTO)
        return "auto";
    if (isa < 0 || isa >= STRATA_ISA_COUNT_)
        return "unknown";
    return isa_names[isa];
}

strata_status strata_isa_from_name(const char *name, strata_isa *out)
{
    if (!name || !out)
        return STRATA_ERR_INVALID_ARG;
    if (!strcmp(name, "auto")) {
        *out = STRATA_ISA_AUTO;
        return STRATA_OK;
    }
    for (int i = 0; i < STRATA_ISA_COUNT_; i++) {
        if (!strcmp(name, isa_names[i])) {
            *out = (strata_isa)i;
            return STRATA_OK;
        }
    }
    return STRATA_ERR_INVALID_ARG;
}
