/* Chunk lattices of worlds (docs/DESIGN.md, "Worlds: chunks, seams, shards").
 *
 * A chunk's mesh is built on its own, with the same float bits as the
 * whole surface has at those points, plus a ring of *context* triangles
 * around it, two edges deep: every triangle of the whole surface not in
 * the chunk that shares a vertex with the chunk or with a triangle that
 * does.  The slicer reads the context only to make the decisions that
 * look across an edge or around a vertex exactly as it would on the whole
 * surface (heights on a plane: wedges, fins), and writes nothing for it.
 * The wedges and fins of the chunk's own vertices and edges read the
 * bands of the vertices one edge out, and a band can move when a vertex
 * within rounding of a plane snaps onto it (slice_onplane.h), which looks
 * at every edge around that vertex: the second row of triangles holds
 * those edges, so each chunk snaps the vertices one edge out as the whole
 * surface does.
 *
 * Layout of a chunk mesh: the chunk's own vertices, edges and triangles
 * first, the context ones after them (strata_mesh.ghost_*).
 */
#ifndef STRATA_LATTICE_H
#define STRATA_LATTICE_H

#include "base.h"

#include <math.h>
#include <stdint.h>

/* The midpoint of p and q projected onto the sphere of radius R about c:
 * the one formula of strata_mesh_subdivide (STRATA_SUBDIVIDE_PROJECT) and
 * of the planet lattices, so that both give the same bits.  p + q == q + p
 * in IEEE arithmetic, so the order of the ends does not matter. */
static inline void strata__sphere_midpoint(const float c[3], float R, float px, float py,
                                           float pz, float qx, float qy, float qz, float *ox,
                                           float *oy, float *oz)
{
    const float x = (px + qx) * 0.5f, y = (py + qy) * 0.5f, z = (pz + qz) * 0.5f;
    const float dx = x - c[0], dy = y - c[1], dz = z - c[2];
    const float s = R / sqrtf(dx * dx + dy * dy + dz * dz);
    *ox = c[0] + dx * s;
    *oy = c[1] + dy * s;
    *oz = c[2] + dz * s;
}

/* ------------------------------------------------------------ context ring
 *
 * Working memory of a ring (core/mesh/lattice.c), reused chunk after chunk by
 * one thread: the ring's triangles as corner positions, and two hash
 * tables (vertices by position bits, edges by vertex pair). */
typedef struct strata_ring_scratch {
    const strata_allocator *al;
    float *tri; /* ring triangles, 9 floats each */
    size_t ntri, cap;
    uint32_t *vslot; /* vertex ids, UINT32_MAX empty */
    uint64_t *ekey;  /* min << 32 | max, UINT64_MAX empty */
    uint32_t *eval;
    uint32_t vmask, emask;
} strata_ring_scratch;

STRATA_HIDDEN void strata__ring_scratch_free(strata_ring_scratch *s);
/* Tables for up to nverts vertices and nedges edges (border and
 * context). */
STRATA_HIDDEN strata_status strata__ring_reserve(strata_ring_scratch *s,
                                                 const strata_allocator *al, uint32_t nverts,
                                                 uint32_t nedges);
/* Append a ring triangle (corners a, b, c as x, y, z each). */
STRATA_HIDDEN strata_status strata__ring_push(strata_ring_scratch *s, const float p[9]);
/* Empty the tables (not the triangles). */
STRATA_HIDDEN void strata__ring_clear(strata_ring_scratch *s);
/* Make own vertex v of m, and the own edge `id` joining p and q, findable
 * by the ring's corners and sides on the chunk's border. */
STRATA_HIDDEN void strata__ring_border_vertex(strata_ring_scratch *s, const strata_mesh *m,
                                              uint32_t v);
STRATA_HIDDEN void strata__ring_border_edge(strata_ring_scratch *s, uint32_t p, uint32_t q,
                                            uint32_t id);
/* Append the ring triangles to m (positions set for m's own vertices,
 * own_verts of them): context vertices and edges are made as needed.
 * STRATA_ERR_BAD_MESH if a ring side joins two own vertices that no border
 * edge joins (the ring would cross the chunk). */
STRATA_HIDDEN strata_status strata__ring_attach(strata_ring_scratch *s, strata_mesh *m,
                                                uint32_t own_verts);

/* ------------------------------------------------------------ grids
 *
 * The grid of strata_shape_grid (core/mesh/shapes.c), shared with terrain
 * tiles: the topology of rows [row0, row1) of an nx x nz grid (row nz has
 * only its edges along x), and the coordinate of grid line i of n with
 * cells of size `cell`, centred on the origin. */
STRATA_HIDDEN void strata__grid_topology(strata_mesh *m, uint32_t nx, uint32_t nz,
                                         uint32_t row0, uint32_t row1);
STRATA_HIDDEN float strata__grid_coord(uint32_t i, uint32_t n, float cell);

/* ------------------------------------------------------------ terrains
 *
 * Base heights of a terrain grid (core/mesh/grid_heights.c), before noise: the
 * samples of a heightmap times a scale (grid vertex (i, j) is sample
 * (i, j)), or a template: every cell of a coarse heightmap becomes
 * patch x patch grid cells whose heights are interpolated linearly over the
 * cell's two triangles (split along the diagonal from sample (i, j) to
 * (i+1, j+1), as the grid's own triangles), times the scale.  Each grid
 * vertex has one formula, so a tile and the whole grid get the same bits.
 * A NULL heightmap is a flat grid (y = 0) of nx x nz cells. */
/* Samples of a heightmap of w x h: a window of it starting at sample
 * (x0, y0), rows stride floats apart (the whole heightmap: 0, 0, w). */
typedef struct strata_heightmap_samples {
    uint32_t w, h;
    uint32_t x0, y0, stride;
    const float *data;
} strata_heightmap_samples;

typedef struct strata_terrain_source {
    const strata_heightmap *hm;
    uint32_t patch; /* 0: heightmap samples; > 0: a template */
    float scale;
    uint32_t nx, nz; /* grid cells */
} strata_terrain_source;

/* Set nx, nz from hm and patch (STRATA_ERR_OVERFLOW when they do not fit
 * uint32, STRATA_ERR_INVALID_ARG for a non-finite scale). */
STRATA_HIDDEN strata_status strata__terrain_source_init(strata_terrain_source *src,
                                                        const strata_heightmap *hm,
                                                        uint32_t patch, float scale,
                                                        uint32_t nx, uint32_t nz);
/* Base heights of grid vertices (i0 + i, j0 + j), i < w, j < h, into
 * out[j * w + i].  STRATA_ERR_NOT_FINITE for a sample times the scale
 * that overflows. */
STRATA_HIDDEN strata_status strata__terrain_heights(const strata_terrain_source *src,
                                                    uint32_t i0, uint32_t j0, uint32_t w,
                                                    uint32_t h, float *out);

/* Terrain world: the grid cut into tiles of tile x tile cells (the last
 * row and column of tiles may be narrower); tile id = tz * ntx + tx.  A
 * tile's own vertices are row-major over its block, its own edges and
 * triangles those of strata_shape_grid on a grid of the block's size (same
 * corner order); its ring is the cells around the block. */
typedef struct strata_terrain_lattice {
    const strata_allocator *al;
    strata_terrain_source src;
    float cell;
    uint32_t tile, ntx, ntz;
    uint32_t cap_verts, cap_edges, cap_tris;
    /* A coarser lattice (levels of detail): lattice vertex i is grid
     * vertex min(i stride, src.nx) of the source (likewise in z), so its
     * nx x nz cells (the last ones narrower) are every stride-th grid line
     * with the same coordinates and heights; stride 1: the grid itself. */
    uint32_t stride, nx, nz;
} strata_terrain_lattice;

STRATA_HIDDEN strata_status strata__terrain_lattice_init(strata_ctx *ctx,
                                                         const strata_terrain_source *src,
                                                         float cell, uint32_t tile,
                                                         strata_terrain_lattice *tl);
/* The lattice of every stride-th grid line (stride a power of two),
 * tiles of tile x tile of its cells. */
STRATA_HIDDEN strata_status strata__terrain_lattice_init_stride(strata_ctx *ctx,
                                                                const strata_terrain_source *src,
                                                                float cell, uint32_t tile,
                                                                uint32_t stride,
                                                                strata_terrain_lattice *tl);
/* The grid coordinates of lattice lines i (x) and j (z). */
static inline uint32_t strata__terrain_grid_x(const strata_terrain_lattice *tl, uint32_t i)
{
    const uint64_t g = (uint64_t)i * tl->stride;
    return g < tl->src.nx ? (uint32_t)g : tl->src.nx;
}
static inline uint32_t strata__terrain_grid_z(const strata_terrain_lattice *tl, uint32_t j)
{
    const uint64_t g = (uint64_t)j * tl->stride;
    return g < tl->src.nz ? (uint32_t)g : tl->src.nz;
}
static inline uint64_t strata__terrain_tiles(const strata_terrain_lattice *tl)
{
    return (uint64_t)tl->ntx * tl->ntz;
}
STRATA_HIDDEN strata_status strata__terrain_tile_alloc(const strata_terrain_lattice *tl,
                                                       strata_mesh **out);
/* Per-thread scratch: the ring, and the base heights of the block and
 * its ring. */
typedef struct strata_tile_scratch {
    strata_ring_scratch ring;
    float *heights;
    size_t cap;
    float *row; /* one grid row, for lattices of stride > 1 */
    size_t row_cap;
} strata_tile_scratch;
STRATA_HIDDEN void strata__tile_scratch_free(strata_tile_scratch *s);
STRATA_HIDDEN strata_status strata__terrain_tile_build(const strata_terrain_lattice *tl,
                                                       uint64_t id, strata_tile_scratch *s,
                                                       strata_mesh *m);
/* Only the positions (and heights) of tile `id`'s own vertices. */
STRATA_HIDDEN strata_status strata__terrain_tile_positions(const strata_terrain_lattice *tl,
                                                           uint64_t id, strata_tile_scratch *s,
                                                           strata_mesh *m);
/* Cells [i0, i1) x [j0, j1) of tile id. */
STRATA_HIDDEN void strata__terrain_tile_block(const strata_terrain_lattice *tl, uint64_t id,
                                              uint32_t *i0, uint32_t *j0, uint32_t *i1,
                                              uint32_t *j1);

/* ------------------------------------------------------------ planets
 *
 * Planet world of level L, chunk level C < L: chunk id t is triangle t of
 * the level-C icosphere, and holds its 4^(L-C) descendants of level L,
 * which are triangles [t 4^(L-C), (t+1) 4^(L-C)) of the level-L icosphere
 * in the same order with the same corner order.  With n = 2^(L-C) and the
 * chunk's corners a, b, c at lattice points (0,0), (n,0), (0,n), lattice
 * point (i, j) (i, j >= 0, i + j <= n) is own vertex
 *     j (n + 1) - j (j - 1) / 2 + i,
 * and the cell at (i, j) (i + j < n) owns the edges
 *     3 (j n - j (j - 1) / 2 + i) + {0: (i,j)-(i+1,j), 1: (i,j)-(i,j+1),
 *                                    2: (i+1,j)-(i,j+1)}.
 * Own topology depends on n only and is kept once per lattice. */
typedef struct strata_planet_lattice {
    const strata_allocator *al;
    int level, chunk_level;
    uint32_t n; /* 2^(L-C) */
    float radius;
    strata_mesh *coarse;        /* the level-C icosphere: chunk corners */
    uint32_t *fan_first, *fan;  /* coarse vertex -> its triangles (CSR) */
    /* own topology of every chunk */
    uint32_t nverts, nedges, ntris;
    uint32_t *a, *b, *c, *e0, *e1, *e2, *ev0, *ev1;
    /* room a chunk mesh needs, context included */
    uint32_t cap_verts, cap_edges, cap_tris;
} strata_planet_lattice;

/* 0 <= C < L <= 13, radius > 0 and finite: STRATA_ERR_INVALID_ARG
 * otherwise; STRATA_ERR_NOMEM. */
STRATA_HIDDEN strata_status strata__planet_lattice_init(strata_ctx *ctx, int level,
                                                        int chunk_level, float radius,
                                                        strata_planet_lattice *pl);
STRATA_HIDDEN void strata__planet_lattice_free(strata_planet_lattice *pl);
/* Number of chunks: 20 4^C. */
static inline uint64_t strata__planet_chunks(const strata_planet_lattice *pl)
{
    return (uint64_t)20 << (2 * pl->chunk_level);
}

/* A mesh with room for any chunk of pl (uninitialised arrays). */
STRATA_HIDDEN strata_status strata__planet_chunk_alloc(const strata_planet_lattice *pl,
                                                       strata_mesh **out);

/* Build chunk `id` (< strata__planet_chunks) into m, a mesh from
 * strata__planet_chunk_alloc: RADIAL about the origin with base radius
 * R, heights set from the positions, the context ring after the chunk.
 * STRATA_ERR_NOMEM (scratch), STRATA_ERR_INVALID_ARG for a bad id. */
STRATA_HIDDEN strata_status strata__planet_chunk_build(const strata_planet_lattice *pl,
                                                       uint64_t id, strata_ring_scratch *s,
                                                       strata_mesh *m);

/* Only the positions (and heights) of chunk `id`'s own vertices, no
 * triangles, edges or ring: for passes over every vertex of a world. */
STRATA_HIDDEN void strata__planet_chunk_positions(const strata_planet_lattice *pl, uint64_t id,
                                                  strata_mesh *m);

#endif
