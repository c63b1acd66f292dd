/* Results (core/mesh/result.c): the layout of strata_result and its
 * allocation. */
#ifndef STRATA_RESULT_H
#define STRATA_RESULT_H

#include "base/alloc.h"
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
    /* World tiles with skirts (core/world/skirt.c): the skirt's triangles,
     * after every terrace's, outside their ranges (count 0: none). */
    uint64_t skirt_first, skirt_count;
    /* grouped by the terrace of the triangle each quad hangs from: terrace
     * k's are [skirt_first + (k ? skirt_ends[k - 1] : 0), skirt_first +
     * skirt_ends[k]) (nterraces entries, skirt_ends_cap allocated) */
    uint64_t *skirt_ends;
    uint32_t skirt_ends_cap;
    /* strata_result_add_water / add_shoreline (core/edit/water.c): their
     * triangles after everything else, outside the terraces' ranges
     * (count 0: none); the shoreline's vertices are [uv_first, uv_first +
     * nuv) with texture coordinates uv (2 floats a vertex). */
    uint64_t water_first, water_count, shore_first, shore_count;
    uint32_t uv_first, nuv;
    float *uv;
    /* strata_result_bake_ao (core/edit/ao.c): the occlusion of vertices
     * [0, ao_verts), 255 open; it belongs to the vertices as baked, so
     * anything that changes their count drops it (ao_verts != nverts:
     * none).  ao_cap: room in ao. */
    uint8_t *ao;
    uint32_t ao_verts, ao_cap;
    /* strata_result_apply_colours (core/edit/colours.c): 3 sRGB bytes a
     * vertex of [0, rgb_verts), dropped as the occlusion is (rgb_verts !=
     * nverts: none). */
    uint8_t *rgb;
    uint32_t rgb_verts;
    uint32_t roof_verts; /* strata_slice: ids below are the input's vertices
                            (roof copies; a loop point there is a vertex
                            lying exactly on its plane); else 0 */
    /* Room in the arrays, which strata_slice_into reuses: elements of x,
     * y, z; of nx, ny, nz (0 while they are NULL); of indices; of
     * terraces. */
    uint32_t cap_verts, cap_normals;
    uint64_t cap_indices;
    uint32_t cap_terraces;
    /* The slicer's scratch memory that strata_slice_into keeps for the
     * next slice into r (core/slice/slice.c), from r's allocator: its tables,
     * the cut triangles' arena blocks and staging lists.  NULL: none. */
    strata_pool *kept;
};

/* r->kept, created empty if r has none; NULL without memory. */
STRATA_HIDDEN strata_pool *strata__result_pool(strata_result *r);

/* An empty result with the given counts allocated (normals if asked). */
STRATA_HIDDEN strata_status strata__result_alloc(const strata_allocator *a,
                                                 uint32_t nverts, uint64_t nindices,
                                                 uint32_t nterraces, int normals,
                                                 strata_result **out);

/* Set r's counts, growing its arrays when they are too small; terraces
 * zeroed.  STRATA_ERR_NOMEM or STRATA_ERR_OVERFLOW leave r empty. */
STRATA_HIDDEN strata_status strata__result_reserve(strata_result *r, uint32_t nverts,
                                                   uint64_t nindices, uint32_t nterraces,
                                                   int normals);
/* Room in r for nv vertices and ni indices (normals too when r has
 * them), keeping what is there.  STRATA_ERR_NOMEM leaves r as it was. */
STRATA_HIDDEN strata_status strata__result_grow(strata_result *r, uint64_t nv, uint64_t ni);
/* Empty r (no vertices, indices or terraces), keeping its arrays. */
STRATA_HIDDEN void strata__result_clear(strata_result *r);

/* r's baked occlusion, one byte a vertex (255: open), or NULL when it
 * has none for its vertices as they are. */
static inline const uint8_t *strata__result_ao(const strata_result *r)
{
    return r->ao && r->nverts && r->ao_verts == r->nverts ? r->ao : NULL;
}

/* r's colours, 3 sRGB bytes a vertex, or NULL when it has none for its
 * vertices as they are. */
static inline const uint8_t *strata__result_rgb(const strata_result *r)
{
    return r->rgb && r->nverts && r->rgb_verts == r->nverts ? r->rgb : NULL;
}

/* Fill roof_area / wall_area of every terrace from the final buffers. */
STRATA_HIDDEN void strata__result_areas(strata_ctx *ctx, strata_result *r);

#endif
