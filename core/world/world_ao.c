/* Ambient occlusion of a world's tile (strata_world_options.ao): the
 * tile's own roofs and those of the tiles around it within the radius (a
 * halo, as the slicer's context ring but as wide as the radius) drawn
 * into one height grid, then the tile's vertices baked from it.  The
 * grid's cells are numbered from the origin and each holds what the
 * triangles over its centre say, so a cell the tile and the whole mesh
 * share has the same value in both, and so has every vertex's
 * occlusion: the union of the tiles has the whole mesh's, bit for bit.
 * Terrains only (planets' cube map is not windowed yet), leaves only. */
#include "edit/ao.h"
#include "edit/props.h"
#include "world/world.h"

#include <math.h>

/* The x, z box of leaf tile `at`'s own vertices (its block of lattice
 * cells, no ring). */
static void tile_box(const strata_world *w, uint64_t at, double box[4])
{
    const strata_terrain_lattice *tl = &w->terrain;
    uint32_t i0, j0, i1, j1;
    strata__terrain_tile_block(tl, at, &i0, &j0, &i1, &j1);
    box[0] = strata__grid_coord(strata__terrain_grid_x(tl, i0), tl->src.nx, tl->cell);
    box[1] = strata__grid_coord(strata__terrain_grid_z(tl, j0), tl->src.nz, tl->cell);
    box[2] = strata__grid_coord(strata__terrain_grid_x(tl, i1), tl->src.nx, tl->cell);
    box[3] = strata__grid_coord(strata__terrain_grid_z(tl, j1), tl->src.nz, tl->cell);
}

strata_status strata__world_ao(strata_ctx *ctx, const strata_world *w, uint64_t id,
                               strata_result *r, strata_result *halo)
{
    if (w->kind != STRATA_WORLD_TERRAIN || w->lod || !r->nverts)
        return w->kind != STRATA_WORLD_TERRAIN || w->lod ? STRATA_ERR_UNSUPPORTED : STRATA_OK;
    /* the window: the tile's vertices and every cell a sample of theirs
     * reaches (at most STEPS cells away from a vertex's cell), with one
     * cell to spare */
    float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (uint32_t i = 0; i < r->nverts; i++) {
        lo[0] = r->x[i] < lo[0] ? r->x[i] : lo[0];
        hi[0] = r->x[i] > hi[0] ? r->x[i] : hi[0];
        lo[1] = r->z[i] < lo[1] ? r->z[i] : lo[1];
        hi[1] = r->z[i] > hi[1] ? r->z[i] : hi[1];
    }
    const float reach = w->ao_radius * (1.0f + 2.0f / STRATA_AO_STEPS);
    for (int k = 0; k < 2; k++) {
        lo[k] -= reach;
        hi[k] += reach;
    }
    strata_ao_grid g;
    strata_status st = strata__ao_grid_flat(&ctx->alloc, w->ao_radius, lo, hi, &g);
    if (st != STRATA_OK)
        return st;
    strata__ao_grid_add(ctx, &g, r);
    /* the tiles whose own triangles reach into the window */
    const uint64_t n = w->layout.nleaves;
    for (uint64_t t = 0; t < n && st == STRATA_OK; t++) {
        uint32_t depth;
        uint64_t at;
        strata__world_locate(w, t, &depth, &at);
        double box[4];
        tile_box(w, at, box);
        if (t == id || box[2] < lo[0] || box[0] > hi[0] || box[3] < lo[1] || box[1] > hi[1])
            continue;
        if ((st = strata__world_slice_chunk(ctx, w, t, halo)) == STRATA_OK)
            strata__ao_grid_add(ctx, &g, halo);
    }
    if (st == STRATA_OK)
        st = strata__ao_grid_bake(ctx, &g, r);
    strata__ao_grid_free(&ctx->alloc, &g);
    return st;
}

strata_status strata__world_props_walls(strata_ctx *ctx, const strata_world *w, uint64_t id,
                                        const strata_result *r, strata_result *halo,
                                        float **segs, uint64_t *nsegs)
{
    if (w->kind != STRATA_WORLD_TERRAIN || w->lod)
        return STRATA_ERR_UNSUPPORTED;
    if (!r->nverts)
        return STRATA_OK;
    uint32_t depth;
    uint64_t self;
    strata__world_locate(w, id, &depth, &self);
    double own[4];
    tile_box(w, self, own);
    const double g = w->props.wall_foot;
    strata_status st = STRATA_OK;
    for (uint64_t t = 0; t < w->layout.nleaves && st == STRATA_OK; t++) {
        uint64_t at;
        strata__world_locate(w, t, &depth, &at);
        double box[4];
        tile_box(w, at, box);
        if (t == id || box[2] < own[0] - g || box[0] > own[2] + g || box[3] < own[1] - g ||
            box[1] > own[3] + g)
            continue;
        if ((st = strata__world_slice_chunk(ctx, w, t, halo)) == STRATA_OK)
            st = strata__props_wall_bases(&ctx->alloc, halo, segs, nsegs);
    }
    return st;
}
