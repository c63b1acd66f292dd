/* Terrain world tiles (core/mesh/lattice.h): a block of the grid's cells with
 * the grid's own coordinates, topology and corner order, and the ring of
 * cells around it as context. */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/mesh.h"
#include "mesh/lattice.h"

#include <string.h>

strata_status strata__terrain_lattice_init(strata_ctx *ctx, const strata_terrain_source *src,
                                           float cell, uint32_t tile, strata_terrain_lattice *tl)
{
    return strata__terrain_lattice_init_stride(ctx, src, cell, tile, 1, tl);
}

strata_status strata__terrain_lattice_init_stride(strata_ctx *ctx,
                                                  const strata_terrain_source *src, float cell,
                                                  uint32_t tile, uint32_t stride,
                                                  strata_terrain_lattice *tl)
{
    memset(tl, 0, sizeof *tl);
    if (!ctx || !src || tile == 0 || stride == 0 || !(cell > 0.0f) || !isfinite(cell) ||
        src->nx == 0 || src->nz == 0)
        return STRATA_ERR_INVALID_ARG;
    const uint32_t nx = (uint32_t)(((uint64_t)src->nx + stride - 1) / stride),
                   nz = (uint32_t)(((uint64_t)src->nz + stride - 1) / stride);
    const uint32_t n = tile < nx || tile < nz ? tile : (nx > nz ? nx : nz);
    /* own (n + 1)^2 vertices, 3 n^2 + 2 n edges, 2 n^2 triangles; ring
     * (two cells deep): 8 n + 16 cells, each with 2 triangles, 3 new edges
     * and 1 new vertex at most, and 8 more vertices and edges at most */
    const uint64_t ring = 8 * (uint64_t)n + 16;
    const uint64_t v = ((uint64_t)n + 1) * (n + 1) + ring + 8, t = 2 * (uint64_t)n * n + 2 * ring,
                   e = 3 * (uint64_t)n * n + 2 * (uint64_t)n + 3 * ring + 8;
    if (v > UINT32_MAX || t > UINT32_MAX || e > UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    tl->al = &ctx->alloc;
    tl->src = *src;
    tl->cell = cell;
    tl->tile = tile;
    tl->stride = stride;
    tl->nx = nx;
    tl->nz = nz;
    tl->ntx = (uint32_t)(((uint64_t)nx + tile - 1) / tile);
    tl->ntz = (uint32_t)(((uint64_t)nz + tile - 1) / tile);
    tl->cap_verts = (uint32_t)v;
    tl->cap_tris = (uint32_t)t;
    tl->cap_edges = (uint32_t)e;
    return STRATA_OK;
}

strata_status strata__terrain_tile_alloc(const strata_terrain_lattice *tl, strata_mesh **out)
{
    return strata__mesh_alloc(tl->al, tl->cap_verts, tl->cap_tris, tl->cap_edges, out);
}

void strata__tile_scratch_free(strata_tile_scratch *s)
{
    if (!s)
        return;
    if (s->ring.al) {
        strata__free(s->ring.al, s->heights);
        strata__free(s->ring.al, s->row);
    }
    strata__ring_scratch_free(&s->ring);
    memset(s, 0, sizeof *s);
}

void strata__terrain_tile_block(const strata_terrain_lattice *tl, uint64_t id, uint32_t *i0,
                                uint32_t *j0, uint32_t *i1, uint32_t *j1)
{
    const uint32_t tx = (uint32_t)(id % tl->ntx), tz = (uint32_t)(id / tl->ntx);
    *i0 = tx * tl->tile;
    *j0 = tz * tl->tile;
    *i1 = tl->nx - *i0 < tl->tile ? tl->nx : *i0 + tl->tile;
    *j1 = tl->nz - *j0 < tl->tile ? tl->nz : *j0 + tl->tile;
}

/* Room for the base heights of nwin grid vertices. */
static strata_status heights_room(const strata_terrain_lattice *tl, strata_tile_scratch *s,
                                  size_t nwin)
{
    if (s->cap >= nwin)
        return STRATA_OK;
    if (s->ring.al)
        strata__free(s->ring.al, s->heights);
    else
        s->ring.al = tl->al; /* the scratch's owner's allocator, once set, stays */
    s->cap = 0;
    if (!(s->heights = strata__alloc_array(s->ring.al, nwin, sizeof(float))))
        return STRATA_ERR_NOMEM;
    s->cap = nwin;
    return STRATA_OK;
}

/* Base heights of lattice vertices (i0 + i, j0 + j), i < w, j < h, into
 * out[j * w + i]: the window itself at stride 1, else each lattice row's
 * grid row read whole and every stride-th sample kept (row is room for
 * one grid row of the window). */
static strata_status lattice_heights(const strata_terrain_lattice *tl, strata_tile_scratch *s,
                                     uint32_t i0, uint32_t j0, uint32_t w, uint32_t h,
                                     float *out)
{
    if (tl->stride == 1)
        return strata__terrain_heights(&tl->src, i0, j0, w, h, out);
    const uint32_t g0 = strata__terrain_grid_x(tl, i0), g1 = strata__terrain_grid_x(tl, i0 + w - 1);
    const size_t gw = (size_t)g1 - g0 + 1;
    if (s->row_cap < gw) {
        if (!s->ring.al)
            s->ring.al = tl->al; /* the scratch's owner's allocator, once set, stays */
        strata__free(s->ring.al, s->row);
        s->row_cap = 0;
        if (!(s->row = strata__alloc_array(s->ring.al, gw, sizeof(float))))
            return STRATA_ERR_NOMEM;
        s->row_cap = gw;
    }
    for (uint32_t j = 0; j < h; j++) {
        const strata_status st = strata__terrain_heights(
            &tl->src, g0, strata__terrain_grid_z(tl, j0 + j), (uint32_t)gw, 1, s->row);
        if (st != STRATA_OK)
            return st;
        for (uint32_t i = 0; i < w; i++)
            out[(size_t)j * w + i] = s->row[strata__terrain_grid_x(tl, i0 + i) - g0];
    }
    return STRATA_OK;
}

static inline float coord_x(const strata_terrain_lattice *tl, uint32_t i)
{
    return strata__grid_coord(strata__terrain_grid_x(tl, i), tl->src.nx, tl->cell);
}

static inline float coord_z(const strata_terrain_lattice *tl, uint32_t j)
{
    return strata__grid_coord(strata__terrain_grid_z(tl, j), tl->src.nz, tl->cell);
}

strata_status strata__terrain_tile_positions(const strata_terrain_lattice *tl, uint64_t id,
                                             strata_tile_scratch *s, strata_mesh *m)
{
    if (id >= strata__terrain_tiles(tl))
        return STRATA_ERR_INVALID_ARG;
    uint32_t i0, j0, i1, j1;
    strata__terrain_tile_block(tl, id, &i0, &j0, &i1, &j1);
    const uint32_t w = i1 - i0 + 1, h = j1 - j0 + 1;
    strata_status st = heights_room(tl, s, (size_t)w * h);
    if (st != STRATA_OK ||
        (st = lattice_heights(tl, s, i0, j0, w, h, s->heights)) != STRATA_OK)
        return st;
    m->geometry = STRATA_FLAT;
    for (uint32_t j = 0; j < h; j++) {
        const float z = coord_z(tl, j0 + j);
        for (uint32_t i = 0; i < w; i++) {
            const size_t v = (size_t)j * w + i;
            m->x[v] = coord_x(tl, i0 + i);
            m->y[v] = s->heights[v];
            m->z[v] = z;
        }
    }
    m->nverts = w * h;
    m->nedges = m->ntris = 0;
    m->ghost_verts = m->ghost_edges = m->ghost_tris = 0;
    strata__mesh_update_heights(m);
    return STRATA_OK;
}

strata_status strata__terrain_tile_build(const strata_terrain_lattice *tl, uint64_t id,
                                         strata_tile_scratch *s, strata_mesh *m)
{
    if (id >= strata__terrain_tiles(tl))
        return STRATA_ERR_INVALID_ARG;
    uint32_t i0, j0, i1, j1;
    strata__terrain_tile_block(tl, id, &i0, &j0, &i1, &j1);
    const uint32_t cw = i1 - i0, ch = j1 - j0;
    /* the block and its ring, two cells deep: cells [ei0, ei1) x
     * [ej0, ej1) */
    const uint32_t ei0 = i0 > 2 ? i0 - 2 : 0, ej0 = j0 > 2 ? j0 - 2 : 0;
    const uint32_t ei1 = i1 + 2 < tl->nx ? i1 + 2 : tl->nx,
                   ej1 = j1 + 2 < tl->nz ? j1 + 2 : tl->nz;
    const uint32_t ww = ei1 - ei0 + 1, wh = ej1 - ej0 + 1;
    const size_t nwin = (size_t)ww * wh;
    strata_status st = strata__ring_reserve(&s->ring, tl->al, 6 * (ww + wh), 16 * (ww + wh));
    if (st != STRATA_OK)
        return st;
    if ((st = heights_room(tl, s, nwin)) != STRATA_OK)
        return st;
    if ((st = lattice_heights(tl, s, ei0, ej0, ww, wh, s->heights)) != STRATA_OK)
        return st;
    const float *hw = s->heights;

    /* Own block: strata_shape_grid's layout on a cw x ch grid. */
    const uint32_t w = cw + 1;
    m->geometry = STRATA_FLAT;
    m->nverts = w * (ch + 1);
    m->ntris = 2 * cw * ch;
    m->nedges = cw * (ch + 1) + w * ch + cw * ch;
    for (uint32_t j = 0; j <= ch; j++) {
        const float z = coord_z(tl, j0 + j);
        const float *hrow = hw + (size_t)(j0 + j - ej0) * ww + (i0 - ei0);
        for (uint32_t i = 0; i <= cw; i++) {
            const size_t v = (size_t)j * w + i;
            m->x[v] = coord_x(tl, i0 + i);
            m->y[v] = hrow[i];
            m->z[v] = z;
        }
    }
    strata__grid_topology(m, cw, ch, 0, ch + 1);
    const uint32_t own_verts = m->nverts, own_edges = m->nedges, own_tris = m->ntris;

    /* Ring: the triangles of the cells around the block that share a
     * vertex with it or with one of those (lattice.h), row by row, each as
     * the grid makes it: (v00, v01, v11), (v00, v11, v10).  The vertices
     * of the first are those one grid edge from the block: its box grown
     * by one, but the two corners that only the other diagonal would
     * join to it. */
    s->ring.ntri = 0;
    for (uint32_t cj = ej0; cj < ej1; cj++)
        for (uint32_t ci = ei0; ci < ei1; ci++) {
            if (ci >= i0 && ci < i1 && cj >= j0 && cj < j1)
                continue;
            float c[4][3]; /* v00, v10, v01, v11 */
            for (int k = 0; k < 4; k++) {
                const uint32_t gi = ci + (k & 1), gj = cj + (k >> 1);
                c[k][0] = coord_x(tl, gi);
                c[k][1] = hw[(size_t)(gj - ej0) * ww + (gi - ei0)];
                c[k][2] = coord_z(tl, gj);
            }
            const int order[2][3] = {{0, 2, 3}, {0, 3, 1}};
            for (int t = 0; t < 2; t++) {
                int touches = 0; /* has a vertex within one edge of the block */
                for (int k = 0; k < 3; k++) {
                    const uint32_t gi = ci + (order[t][k] & 1), gj = cj + (order[t][k] >> 1);
                    touches |= gi + 1 >= i0 && gi <= i1 + 1 && gj + 1 >= j0 && gj <= j1 + 1 &&
                               !(gi == i1 + 1 && gj + 1 == j0) && !(gi + 1 == i0 && gj == j1 + 1);
                }
                if (!touches)
                    continue;
                float p[9];
                for (int k = 0; k < 3; k++)
                    memcpy(p + 3 * k, c[order[t][k]], 3 * sizeof(float));
                if ((st = strata__ring_push(&s->ring, p)) != STRATA_OK)
                    return st;
            }
        }
    strata__ring_clear(&s->ring);
    const uint32_t nhx = cw * (ch + 1);
    for (uint32_t i = 0; i <= cw; i++) {
        strata__ring_border_vertex(&s->ring, m, i);
        strata__ring_border_vertex(&s->ring, m, ch * w + i);
    }
    for (uint32_t j = 0; j <= ch; j++) {
        strata__ring_border_vertex(&s->ring, m, j * w);
        strata__ring_border_vertex(&s->ring, m, j * w + cw);
    }
    for (uint32_t i = 0; i < cw; i++) { /* along x: rows 0 and ch */
        strata__ring_border_edge(&s->ring, i, i + 1, i);
        strata__ring_border_edge(&s->ring, ch * w + i, ch * w + i + 1, ch * cw + i);
    }
    for (uint32_t j = 0; j < ch; j++) { /* along z: columns 0 and cw */
        strata__ring_border_edge(&s->ring, j * w, (j + 1) * w, nhx + j * w);
        strata__ring_border_edge(&s->ring, j * w + cw, (j + 1) * w + cw, nhx + j * w + cw);
    }
    if ((st = strata__ring_attach(&s->ring, m, own_verts)) != STRATA_OK)
        return st;
    m->ghost_verts = m->nverts - own_verts;
    m->ghost_edges = m->nedges - own_edges;
    m->ghost_tris = m->ntris - own_tris;
    strata__mesh_update_heights(m);
    return STRATA_OK;
}
