/* Base heights of terrain grids (core/mesh/lattice.h): heightmap samples or a
 * template, for whole grids (strata_mesh_from_template) and for windows
 * of them (terrain world tiles).  One function per grid vertex, so both
 * give the same bits. */
#include "base/alloc.h"
#include "mesh/heightmap.h"
#include "mesh/mesh.h"
#include "mesh/lattice.h"

#include <string.h>

/* Template height of grid vertex (i, j): the coarse cell holding it
 * (the last cell for the far border), (u, v) within that cell, and the
 * cell's triangle (s00, s01, s11) when v >= u, else (s00, s11, s10). */
static inline uint32_t template_cell(uint32_t i, uint32_t patch, uint32_t side)
{
    const uint32_t c = i / patch;
    return c > side - 2 ? side - 2 : c;
}

static inline float template_height(const strata_heightmap_samples *t, uint32_t patch,
                                    uint32_t i, uint32_t j)
{
    const uint32_t ci = template_cell(i, patch, t->w), cj = template_cell(j, patch, t->h);
    const float u = (float)(i - ci * patch) / (float)patch;
    const float v = (float)(j - cj * patch) / (float)patch;
    const float *row0 = t->data + (size_t)(cj - t->y0) * t->stride + (ci - t->x0),
                *row1 = row0 + t->stride;
    if (v >= u)
        return (1.0f - v) * row0[0] + (v - u) * row1[0] + u * row1[1];
    return (1.0f - u) * row0[0] + (u - v) * row0[1] + v * row1[1];
}

strata_status strata__terrain_source_init(strata_terrain_source *src, const strata_heightmap *hm,
                                          uint32_t patch, float scale, uint32_t nx, uint32_t nz)
{
    memset(src, 0, sizeof *src);
    if (!isfinite(scale))
        return STRATA_ERR_INVALID_ARG;
    src->hm = hm;
    src->patch = patch;
    src->scale = scale;
    if (hm && hm->nodata)
        return STRATA_ERR_UNSUPPORTED; /* holes are made whole only */
    if (hm) {
        const uint64_t p = patch ? patch : 1;
        const uint64_t x = (uint64_t)(strata_heightmap_width(hm) - 1) * p;
        const uint64_t z = (uint64_t)(strata_heightmap_height(hm) - 1) * p;
        if (x > UINT32_MAX || z > UINT32_MAX)
            return STRATA_ERR_OVERFLOW;
        nx = (uint32_t)x;
        nz = (uint32_t)z;
    }
    if (nx == 0 || nz == 0)
        return STRATA_ERR_INVALID_ARG;
    src->nx = nx;
    src->nz = nz;
    return STRATA_OK;
}

/* Template heights of the window: the coarse samples under it, from
 * memory or read from an opened file. */
static strata_status template_heights(const strata_terrain_source *src, uint32_t i0, uint32_t j0,
                                      uint32_t w, uint32_t h, float *out)
{
    const strata_heightmap *hm = src->hm;
    const uint32_t hw = strata_heightmap_width(hm), hh = strata_heightmap_height(hm);
    strata_heightmap_samples t = {hw, hh, 0, 0, hw, strata_heightmap_data(hm)};
    float *coarse = NULL;
    if (!t.data) {
        t.x0 = template_cell(i0, src->patch, hw);
        t.y0 = template_cell(j0, src->patch, hh);
        const uint32_t cw = template_cell(i0 + w - 1, src->patch, hw) + 2 - t.x0,
                       ch = template_cell(j0 + h - 1, src->patch, hh) + 2 - t.y0;
        t.stride = cw;
        if (!(coarse = strata__alloc_array(&hm->alloc, (size_t)cw * ch, sizeof(float))))
            return STRATA_ERR_NOMEM;
        const strata_status st = strata_heightmap_read(hm, t.x0, t.y0, cw, ch, coarse);
        if (st != STRATA_OK) {
            strata__free(&hm->alloc, coarse);
            return st;
        }
        t.data = coarse;
    }
    for (uint32_t j = 0; j < h; j++)
        for (uint32_t i = 0; i < w; i++)
            out[(size_t)j * w + i] = template_height(&t, src->patch, i0 + i, j0 + j) * src->scale;
    strata__free(&hm->alloc, coarse);
    return STRATA_OK;
}

strata_status strata__terrain_heights(const strata_terrain_source *src, uint32_t i0, uint32_t j0,
                                      uint32_t w, uint32_t h, float *out)
{
    const size_t n = (size_t)w * h;
    if (!src->hm) {
        memset(out, 0, n * sizeof(float));
        return STRATA_OK;
    }
    strata_status st;
    if (src->patch) {
        st = template_heights(src, i0, j0, w, h, out);
    } else if ((st = strata_heightmap_read(src->hm, i0, j0, w, h, out)) == STRATA_OK) {
        for (size_t k = 0; k < n; k++)
            out[k] *= src->scale;
    }
    if (st != STRATA_OK)
        return st;
    int bad = 0;
    for (size_t k = 0; k < n; k++)
        bad |= !isfinite(out[k]);
    return bad ? STRATA_ERR_NOT_FINITE : STRATA_OK;
}

strata_status strata_mesh_from_template(strata_ctx *ctx, const strata_heightmap *hm,
                                        uint32_t patch_cells, float cell_size,
                                        float height_scale, strata_mesh **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !hm || patch_cells == 0 || !(cell_size > 0.0f) || !isfinite(cell_size))
        return STRATA_ERR_INVALID_ARG;
    strata_terrain_source src;
    strata_status st = strata__terrain_source_init(&src, hm, patch_cells, height_scale, 0, 0);
    if (st != STRATA_OK)
        return st;
    strata_mesh *m;
    if ((st = strata_shape_grid(ctx, src.nx, src.nz, cell_size, &m)) != STRATA_OK)
        return st;
    /* Grid vertex (i, j) is j * (nx + 1) + i: one window of all rows. */
    if ((st = strata__terrain_heights(&src, 0, 0, src.nx + 1, src.nz + 1, m->y)) != STRATA_OK) {
        strata_mesh_destroy(m);
        return st;
    }
    strata__mesh_update_heights(m);
    *out = m;
    return STRATA_OK;
}
