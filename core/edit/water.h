/* Water surfaces (core/edit/water.c): the part of a planet's water
 * sphere that a world's chunk holds. */
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

#endif
