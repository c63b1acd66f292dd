/* Base heights of terrain grids (core/lattice.h): heightmap samples or a
 * template, for whole grids (strata_mesh_from_template) and for windows
 * of them (terrain world tiles).  One function per grid vertex, so both
 * give the same bits. */
#include "mesh.h"
#include "lattice.h"

#include <string.h>

/* Template height of grid vertex (i, j): the coarse cell holding it
 * (the last cell for the far border), (u, v) within that cell, and the
 * cell's triangle (s00, s01, s11) when v >= u, else (s00, s11, s10). */
static inline float template_height(const strata_heightmap_samples *t, uint32_t patch,
                                    uint32_t i, uint32_t j)
{
    uint32_t ci = i / patch, cj = j / patch;
    if (ci > t->w - 2)
        ci = t->w - 2;
    if (cj > t->h - 2)
        cj = t->h - 2;
    const float u = (float)(i - ci * patch) / (float)patch;
    const float v = (float)(j - cj * patch) / (float)patch;
    const float *row0 = t->data + (size_t)cj * t->w + ci, *row1 = row0 + t->w;
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

strata_status strata__terrain_heights(const strata_terrain_source *src, uint32_t i0, uint32_t j0,
                                      uint32_t w, uint32_t h, float *out)
{
    if (!src->hm) {
        memset(out, 0, (size_t)w * h * sizeof(float));
        return STRATA_OK;
    }
    const strata_heightmap_samples t = {strata_heightmap_width(src->hm),
                                        strata_heightmap_height(src->hm),
                                        strata_heightmap_data(src->hm)};
    int bad = 0;
    for (uint32_t j = 0; j < h; j++) {
        float *o = out + (size_t)j * w;
        if (src->patch) {
            for (uint32_t i = 0; i < w; i++)
                o[i] = template_height(&t, src->patch, i0 + i, j0 + j) * src->scale;
        } else {
            const float *s = t.data + (size_t)(j0 + j) * t.w + i0;
            for (uint32_t i = 0; i < w; i++)
                o[i] = s[i] * src->scale;
        }
        for (uint32_t i = 0; i < w; i++)
            bad |= !isfinite(o[i]);
    }
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
