/* Water surfaces and shorelines (core/edit/water.c) of a world's
 * chunk: its part of a planet's water sphere, its piece of the coasts'
 * ribbons. */
#ifndef STRATA_WATER_H
#define STRATA_WATER_H

#include "base.h"

/* strata_result_add_water of a RADIAL r with the triangles of `part`
 * instead of the whole sphere: part's vertices lie about the origin at
 * radius r->radius + level (a chunk of the icosphere the whole mesh would
 * get), r's centre is added.  Errors as strata_result_add_water
 * (STRATA_ERR_INVALID_ARG also for a FLAT r or a NULL part). */
STRATA_HIDDEN strata_status strata__result_add_water_part(strata_ctx *ctx, strata_result *r,
                                                          float level, const strata_mesh *part);

/* strata_result_add_shoreline for a world's tile (docs/DESIGN.md,
 * "Worlds"): own, the tile's loops (polylines cut where they leave the
 * tile), ext, the loops of the tile's mesh with its context ring sliced
 * as its own (a wider piece of the same surface; NULL when no coast at
 * that plane leaves the tile).  An open polyline of
 * own whose end ext continues (a crossing of the tile's border) is
 * ribboned with ext's two points beyond that end around it, so the
 * sides and reaches there are the whole mesh's; its U: at such an end
 * a value from the point's bits alone (a multiple of 1/256 in [0, 1)),
 * then by length over width from there; with both ends crossings,
 * scaled so that it lands on the far end's value plus the whole number
 * nearest its length (at most half a repeat off; forwards, under one
 * repeat, when the piece is under half of one); with neither, as the
 * whole mesh's (from 0).  Closed loops: as the whole mesh's.  FLAT: the
 * domain is box (x0, z0, x1, z1: the world's rectangle) instead of the
 * tile's hull.  Errors as strata_result_add_shoreline (also
 * STRATA_ERR_INVALID_ARG for planes that differ, a FLAT r without a
 * box). */
STRATA_HIDDEN strata_status strata__result_add_shoreline_tile(strata_ctx *ctx, strata_result *r,
                                                              const strata_loops *own,
                                                              const strata_loops *ext,
                                                              uint32_t plane, float width,
                                                              const float box[4]);

#endif
