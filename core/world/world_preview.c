/* strata_world_preview_frame: what a preview canvas of a whole world is
 * fitted to (strata_preview_canvas_create), from the world's shape and
 * planes alone, before any chunk is made.  The sliced surface lies
 * between the lowest and the highest plane (every roof is flattened onto
 * a plane and walls join planes), so:
 *   planets    the sphere about the centre of radius + the highest plane
 *   terrains   the grid's x and z extent, y from the lowest plane to the
 *              highest */
#include "world/world.h"

strata_status strata_world_preview_frame(const strata_world *w, strata_preview_frame *f)
{
    if (!w || !f || w->nlevels == 0)
        return STRATA_ERR_INVALID_ARG;
    const float top = w->levels[w->nlevels - 1], bottom = w->levels[0];
    for (int i = 0; i < 3; i++)
        f->center[i] = f->lo[i] = f->hi[i] = 0;
    f->radius = 0;
    if (w->kind == STRATA_WORLD_PLANET) {
        f->radius = w->planet.radius + top;
        for (int i = 0; i < 3; i++) {
            f->lo[i] = -f->radius;
            f->hi[i] = f->radius;
        }
        return STRATA_OK;
    }
    const strata_terrain_lattice *tl = &w->terrain;
    f->lo[0] = strata__grid_coord(0, tl->src.nx, tl->cell);
    f->hi[0] = strata__grid_coord(tl->src.nx, tl->src.nx, tl->cell);
    f->lo[2] = strata__grid_coord(0, tl->src.nz, tl->cell);
    f->hi[2] = strata__grid_coord(tl->src.nz, tl->src.nz, tl->cell);
    f->lo[1] = bottom;
    f->hi[1] = top;
    for (int i = 0; i < 3; i++)
        f->center[i] = 0.5f * (f->lo[i] + f->hi[i]);
    return STRATA_OK;
}
