/* The dispatch table: the kernels of one instruction set, filled by
 * strata__dispatch_fill() (simd/dispatch.c) when a context is created and
 * changed only by strata_ctx_set_isa().  Kernels are chosen once per
 * batch through ctx->simd, never per element.  What each kernel computes
 * is documented with its scalar reference: simd/noise.h, simd/slice.h,
 * simd/displace.h. */
#ifndef STRATA_SIMD_FUNCTABLE_H
#define STRATA_SIMD_FUNCTABLE_H

#include "base.h"

#include <stddef.h>
#include <stdint.h>

struct strata_fbm_plan;
typedef void (*strata_fbm_kernel)(const struct strata_fbm_plan *p, const float *x,
                                  const float *y, const float *z, size_t n, float *out);
struct strata_place;
typedef void (*strata_classify_kernel)(const float *L, uint32_t nL, const float *h, size_t n,
                                       uint16_t *lev, uint8_t *on, uint64_t counts[2]);
typedef size_t (*strata_tri_levels_kernel)(const uint32_t *a, const uint32_t *b,
                                           const uint32_t *c, size_t n, const uint16_t *lev,
                                           uint16_t *out);
typedef void (*strata_place_roofs_kernel)(const struct strata_place *g, const float *L,
                                          const float *x, const float *y, const float *z,
                                          const uint16_t *lev, size_t n, float *ox, float *oy,
                                          float *oz);
typedef uint64_t (*strata_edge_spans_kernel)(const uint32_t *ev0, const uint32_t *ev1, size_t n,
                                              const uint16_t *lev, uint64_t *cross);
typedef size_t (*strata_radial_samples_kernel)(const float c[3], float radius, const float *x,
                                               const float *y, const float *z, size_t n,
                                               float *sx, float *sy, float *sz);
typedef void (*strata_radial_move_kernel)(const float c[3], float radius, const float *v,
                                          size_t n, float *x, float *y, float *z, float *h);
typedef struct strata_dispatch {
    strata_isa isa;     /* strata_ctx_isa: the widest ISA of the kernels */
    char reason[192];   /* strata_ctx_isa_reason */
    strata_fbm_kernel fbm2, fbm3;          /* simd/noise.h */
    strata_classify_kernel classify;       /* simd/slice.h */
    strata_tri_levels_kernel tri_levels;
    strata_place_roofs_kernel place_roofs;
    strata_edge_spans_kernel edge_spans;
    strata_radial_samples_kernel radial_samples; /* simd/displace.h */
    strata_radial_move_kernel radial_move;
} strata_dispatch;

/* Fill d with the kernels of isa (STRATA_ISA_AUTO: the best this CPU and
 * build have, by the AVX-512 rule of simd/dispatch.c); forced_by names who
 * forced another ISA, for the reason.  STRATA_ERR_ISA for an ISA this CPU
 * or build lacks, STRATA_ERR_INVALID_ARG for one out of range.  The
 * context's functions over it (strata_ctx_set_isa, STRATA_SIMD) are in
 * core/base/ctx.c. */
STRATA_HIDDEN strata_status strata__dispatch_fill(strata_dispatch *d, strata_isa isa,
                                                  const char *forced_by);

#endif
