/* A world tile's part of a solid (core/edit/solid.c). */
#ifndef STRATA_SOLID_H
#define STRATA_SOLID_H

#include "base.h"

/* Where a tile lies in its terrain world, for its part of the solid. */
typedef struct strata_solid_tile {
    float base;           /* the world's base height (every tile's) */
    float world[4];       /* the world's rectangle: x0, x1, z0, z1 */
    float tile[4];        /* the tile's */
    /* the neighbours' border points (x, y, z) at this tile's chain ends
     * (strata__result_solid_ends of the tiles across them) */
    const float (*ends)[3];
    uint32_t nends;
} strata_solid_tile;

/* strata_result_solidify for one tile of a terrain world (docs/DESIGN.md,
 * "Worlds"): on the sides of the tile lying on the world's border, its
 * border cleaned (fins, zips) as strata_result_solidify cleans it and the
 * side columns down to t->base; then the tile's rectangle of the base,
 * a fan from its centre.  At a tile corner on the world's border (a
 * chain's end) the column stops at the tile's border point, with a
 * vertex at the neighbour's border point there (t->ends) when that is
 * lower; the wall ends at that point are left to the union, whose
 * triangles (welded by position) close them.  Inner tile borders are
 * not touched.  Errors as strata_result_solidify
 * (STRATA_ERR_BAD_MESH: r unchanged). */
STRATA_HIDDEN strata_status strata__result_solidify_tile(strata_ctx *ctx, strata_result *r,
                                                         const strata_solid_tile *t,
                                                         strata_solid_stats *stats);

/* The border points at the chain ends of r's part of the solid (at most
 * 8, in ends; *n), as strata__result_solidify_tile finds them; r is not
 * changed (t->ends not read). */
STRATA_HIDDEN strata_status strata__result_solid_ends(strata_ctx *ctx, const strata_result *r,
                                                      const strata_solid_tile *t,
                                                      float (*ends)[3], uint32_t *n);

#endif
