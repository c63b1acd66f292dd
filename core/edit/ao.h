/* Baked ambient occlusion (core/edit/ao.c): the height grid the
 * horizons are read from, apart from the baking, so that a world's tile
 * can add its neighbours' surface (a halo) before baking its own
 * vertices. */
#ifndef STRATA_AO_H
#define STRATA_AO_H

#include "base.h"

#include <stdint.h>

/* The surface's highest point per cell, sampled at cell centres.  FLAT:
 * square cells of side radius / STRATA_AO_STEPS in x and z, cell (i, j)
 * centred on ((i + 0.5) cell, (j + 0.5) cell) in the whole plane, of
 * which the grid holds the window [i0, i0 + nx) x [j0, j0 + nz): a
 * cell's value depends only on the triangles over its centre, never on
 * the window.  RADIAL: a cube map about the centre, 6 faces of n x n
 * cells (gnomonic: a face's (u, v) in [-1, 1] is a direction's two other
 * coordinates over its largest one), holding distances from the centre. */
typedef struct strata_ao_grid {
    strata_geometry geometry;
    double radius; /* the occlusion radius */
    double cell;   /* FLAT: the side of a cell; RADIAL: of a cell in (u, v) */
    int64_t i0, j0;
    uint64_t nx, nz; /* FLAT: the window; RADIAL: nx = nz = n per face */
    double center[3];
    uint32_t *key; /* order-preserving keys of the heights; 0: no surface */
} strata_ao_grid;

/* The most cells a grid may have (4 bytes each). */
#define STRATA_AO_MAX_CELLS ((uint64_t)STRATA_AO_MAX_GRID_CELLS)

/* A FLAT grid for radius whose window covers x in [lo[0], hi[0]] and z in
 * [lo[1], hi[1]], or a RADIAL one about center for a surface of about
 * `surface` from it (cells about radius / STRATA_AO_STEPS across there),
 * empty.  STRATA_ERR_TOO_LARGE beyond STRATA_AO_MAX_CELLS,
 * STRATA_ERR_NOMEM. */
STRATA_HIDDEN strata_status strata__ao_grid_flat(const strata_allocator *al, float radius,
                                                 const float lo[2], const float hi[2],
                                                 strata_ao_grid *g);
STRATA_HIDDEN strata_status strata__ao_grid_radial(const strata_allocator *al, float radius,
                                                   const float center[3], float surface,
                                                   strata_ao_grid *g);
STRATA_HIDDEN void strata__ao_grid_free(const strata_allocator *al, strata_ao_grid *g);

/* Raise g's cells to the triangles of src's terraces (roofs and walls;
 * not a skirt, water or shoreline) over their centres, with ctx's
 * threads; the cells are maxima, so the order of the triangles and of
 * the calls does not matter. */
STRATA_HIDDEN void strata__ao_grid_add(strata_ctx *ctx, strata_ao_grid *g,
                                       const strata_result *src);

/* Bake every vertex of r from g (which must hold r's surface and what
 * lies within the radius around it) into r's occlusion.  Errors:
 * STRATA_ERR_NOMEM, STRATA_ERR_CANCELLED. */
STRATA_HIDDEN strata_status strata__ao_grid_bake(strata_ctx *ctx, const strata_ao_grid *g,
                                                 strata_result *r);

#endif
