/* The dispatch table: which kernels a context uses.
 *
 * Filled once per context (never a global table: two contexts may run
 * different ISAs at the same time, and nothing is written lazily from
 * several threads).  Start from the scalar reference and override with
 * the chosen ISA's kernels.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "functable.h"
#include "../core/ctx.h"
#include "cpu.h"
#include "displace.h"
#include "noise.h"
#include "slice.h"

#include <stdlib.h>
#include <string.h>

static const char *const isa_names[STRATA_ISA_COUNT_] = {"scalar", "avx2", "avx512", "neon"};

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

/* The default: the widest ISA known to pay.  AVX-512 is left out (see
 * strata.h). */
static strata_isa best_isa(unsigned avail)
{
    if (avail & STRATA_ISA_BIT(STRATA_ISA_NEON))
        return STRATA_ISA_NEON;
    if (avail & STRATA_ISA_BIT(STRATA_ISA_AVX2))
        return STRATA_ISA_AVX2;
    return STRATA_ISA_SCALAR;
}

static void fill(strata_dispatch *d, strata_isa isa)
{
    d->isa = STRATA_ISA_SCALAR;
    d->fbm2 = strata__fbm2_c;
    d->fbm3 = strata__fbm3_c;
    d->classify = strata__classify_c;
    d->tri_levels = strata__tri_levels_c;
    d->place_roofs = strata__place_roofs_c;
    d->edge_spans = strata__edge_spans_c;
    d->radial_samples = strata__radial_samples_c;
    d->radial_move = strata__radial_move_c;
    switch (isa) {
#ifdef HAVE_AVX2
    case STRATA_ISA_AVX2:
        d->fbm2 = strata__fbm2_avx2;
        d->fbm3 = strata__fbm3_avx2;
        d->classify = strata__classify_avx2;
        d->tri_levels = strata__tri_levels_avx2;
        d->place_roofs = strata__place_roofs_avx2;
        d->edge_spans = strata__edge_spans_avx2;
        d->radial_samples = strata__radial_samples_avx2;
        d->radial_move = strata__radial_move_avx2;
        break;
#endif
#ifdef HAVE_AVX512
    case STRATA_ISA_AVX512:
        d->fbm2 = strata__fbm2_avx512;
        d->fbm3 = strata__fbm3_avx512;
        d->classify = strata__classify_avx512;
        d->tri_levels = strata__tri_levels_avx512;
        d->place_roofs = strata__place_roofs_avx512;
        d->edge_spans = strata__edge_spans_avx512;
        d->radial_samples = strata__radial_samples_avx512;
        d->radial_move = strata__radial_move_avx512;
        break;
#endif
#ifdef HAVE_NEON
    case STRATA_ISA_NEON:
        d->fbm2 = strata__fbm2_neon;
        d->fbm3 = strata__fbm3_neon;
        d->classify = strata__classify_neon;
        d->tri_levels = strata__tri_levels_neon;
        d->place_roofs = strata__place_roofs_neon;
        d->edge_spans = strata__edge_spans_neon;
        d->radial_samples = strata__radial_samples_neon;
        d->radial_move = strata__radial_move_neon;
        break;
#endif
    default: return;
    }
    d->isa = isa;
}

strata_status strata_ctx_set_isa(strata_ctx *ctx, strata_isa isa)
{
    if (!ctx || isa < STRATA_ISA_AUTO || isa >= STRATA_ISA_COUNT_)
        return STRATA_ERR_INVALID_ARG;
    const unsigned avail = strata_cpu_isas();
    if (isa == STRATA_ISA_AUTO)
        isa = best_isa(avail);
    else if (!(avail & STRATA_ISA_BIT(isa)))
        return STRATA_ERR_ISA;
    fill(&ctx->simd, isa);
    return STRATA_OK;
}

strata_status strata__dispatch_init(strata_ctx *ctx)
{
    strata_isa isa = STRATA_ISA_AUTO;
    const char *env = getenv("STRATA_SIMD");
    if (env && *env && strata_isa_from_name(env, &isa) != STRATA_OK)
        return STRATA_ERR_INVALID_ARG;
    return strata_ctx_set_isa(ctx, isa);
}

strata_isa strata_ctx_isa(const strata_ctx *ctx)
{
    return ctx ? ctx->simd.isa : STRATA_ISA_SCALAR;
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
