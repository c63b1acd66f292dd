/* The pipeline's stages over a result made elsewhere
 * (core/pipeline/pipeline.c): a world's tile, sliced by the world. */
#ifndef STRATA_PIPELINE_H
#define STRATA_PIPELINE_H

#include "base.h"
#include "edit/solid.h"

/* A world tile's coasts for the shoreline stage: the tile's loops, the
 * loops of its mesh with the context ring sliced as its own, and (FLAT)
 * the world's rectangle x0, z0, x1, z1
 * (strata__result_add_shoreline_tile). */
typedef struct strata_tile_coasts {
    const strata_loops *own, *ext;
    float box[4];
} strata_tile_coasts;

/* The stages first..last (after the loops, up to optimize: those that
 * need neither the mesh nor the slice's planes) that o asks for, run on
 * r in place; the shoreline from coasts; the solid from tile (a world's
 * tile gets its part of the world's solid: strata__result_solidify_tile);
 * *props gets the props when o asks for them.  Their times are added to
 * rep's (not cleared first: a world's worker sums its chunks),
 * rep->failed names a stage that failed.  Errors: those of the stages,
 * STRATA_ERR_INVALID_ARG for a range outside those stages, a shoreline
 * without coasts or a solid without tile. */
STRATA_HIDDEN strata_status strata__pipeline_stages(strata_ctx *ctx, strata_result *r,
                                                    const strata_pipeline_options *o,
                                                    strata_stage first, strata_stage last,
                                                    const strata_tile_coasts *coasts,
                                                    const strata_solid_tile *tile,
                                                    strata_props **props,
                                                    strata_pipeline_report *rep);

#endif
