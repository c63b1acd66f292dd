/* Results (core/result.c): the layout of strata_result and its
 * allocation. */
#ifndef STRATA_RESULT_H
#define STRATA_RESULT_H

#include "base.h"

#include <stdint.h>

struct strata_result {
    strata_allocator alloc;
    uint32_t nverts;
    float *x, *y, *z;
    float *nx, *ny, *nz; /* NULL without normals */
    uint64_t nindices;
    uint32_t *indices;
    uint32_t nterraces;
    strata_terrace *terraces;
    strata_walls walls;
    strata_geometry geometry;
    float center[3];
    float radius;
};

/* An empty result with the given counts allocated (normals if asked). */
STRATA_HIDDEN strata_status strata__result_alloc(const strata_allocator *a,
                                                 uint32_t nverts, uint64_t nindices,
                                                 uint32_t nterraces, int normals,
                                                 strata_result **out);

/* Fill roof_area / wall_area of every terrace from the final buffers. */
STRATA_HIDDEN void strata__result_areas(strata_ctx *ctx, strata_result *r);

#endif
