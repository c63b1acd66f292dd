/* Worlds: the world object shared by world.c (chunks) and world_dir.c
 * (directories of tiles, tilesets). */
#ifndef STRATA_WORLD_H
#define STRATA_WORLD_H

#include "base/alloc.h"
#include "base/ctx.h"
#include "edit/edits.h"
#include "mesh/lattice.h"
#include "mesh/mesh.h"
#include "mesh/result.h"
#include "world/tileset.h"

#include <stdint.h>

struct strata_world {
    strata_allocator alloc;
    strata_world_kind kind;
    uint64_t serial; /* tells contexts' scratch which world it was sized for */
    strata_planet_lattice planet;
    strata_terrain_lattice terrain;
    uint32_t leaf_depth; /* terrains: depth of tiles in the quadtree */
    int has_noise;
    strata_fbm fbm;
    const strata_curve *curve;
    float *levels;
    uint32_t nlevels;
    strata_walls walls;
    int normals;
    int placed;      /* strata_world_options.place */
    double place[5]; /* lon, lat, height, scale, heading */
    strata_height_fn edit;
    void *edit_user;
    strata_edit_surface edits; /* strata_world_set_edits: edit_user points here */
    uint64_t fingerprint;
    /* planets, for strata_world_chunks_near and tile boxes: per coarse
     * triangle its axis (unit centroid direction) and the angle (radians)
     * from it within which its vertices and ring lie */
    float *cap;
    /* levels of detail (core/world/world_lod.c) */
    int lod, skirts;
    double simplify; /* strata_world_options.simplify_roofs */
    /* the pipeline's stages per tile: simplify before the skirt, water
     * and props after it (props.seed set per chunk) */
    strata_pipeline_options stages;
    strata_props_options props;
    int loops; /* leaf tiles' loops (strata_world_options.loops) */
    /* stages.solid: every tile its part of the solid, above this base
     * (strata_world_options.solid) */
    float solid_base;
    /* planets with water: the water sphere's lattice, a chunk's part of
     * the sphere per chunk (radius + sea level) */
    int has_water_lattice;
    strata_planet_lattice water;
    int lod_coarsen; /* 1: inner tiles at half a leaf's resolution along a side */
    float ao_radius; /* > 0: every tile's ambient occlusion baked with this
                        radius, its neighbours' roofs within it drawn too
                        (core/world/world_ao.c) */
    strata_tileset_desc layout;            /* ids of the tiles, per depth */
    strata_planet_lattice *lod_planet;     /* depth k < C: level L-C+k, chunk level k */
    strata_terrain_lattice *lod_terrain;   /* depth k < D: stride 2^(D-k) */
    float **lod_cap;                       /* planets: caps of depth k's triangles */
    /* planets with water and lod: depth k < C's part of the water sphere,
     * chunk level k, level max(k + 1, min(the leaves' water level, the
     * level of depth k's surface)) */
    strata_planet_lattice *lod_water;
    double lod_error[STRATA_TILESET_DEPTHS], lod_skirt[STRATA_TILESET_DEPTHS];
};

/* The lod part of w (options o; w's lattice, planes and noise set):
 * the coarser lattices, the layout of the ids and the errors; also
 * w->layout without lod.  STRATA_ERR_NOMEM, errors of the heightmap. */
STRATA_HIDDEN strata_status strata__world_lod_init(strata_ctx *ctx, strata_world *w,
                                                   const strata_world_options *o);
STRATA_HIDDEN void strata__world_lod_free(strata_world *w);
/* Depth and index within the depth of chunk id (< the chunk count). */
static inline void strata__world_locate(const strata_world *w, uint64_t id, uint32_t *depth,
                                        uint64_t *index)
{
    strata__tileset_locate(&w->layout, id, depth, index);
}
/* Build chunk id's lattice (with its ring) into m (any depth). */
STRATA_HIDDEN strata_status strata__world_lattice(const strata_world *w, uint64_t id,
                                                  strata_ring_scratch *ring,
                                                  strata_tile_scratch *tile, strata_mesh *m);
/* Planets with water: the water sphere's lattice of chunk id's depth. */
STRATA_HIDDEN const strata_planet_lattice *strata__world_water(const strata_world *w,
                                                               uint64_t id, uint64_t *index);
/* Chunk id's surface sliced into r with ctx's world scratch (lattice,
 * noise, edits, slice: none of the pipeline's stages). */
STRATA_HIDDEN strata_status strata__world_slice_chunk(strata_ctx *ctx, const strata_world *w,
                                                      uint64_t id, strata_result *r);
/* Bake the occlusion of r, chunk id's tile as made, with the roofs of
 * the tiles around it within w->ao_radius (sliced into halo, a scratch
 * result).  STRATA_ERR_UNSUPPORTED for planets and worlds with lod. */
STRATA_HIDDEN strata_status strata__world_ao(strata_ctx *ctx, const strata_world *w, uint64_t id,
                                             strata_result *r, strata_result *halo);
/* The bases of the walls (6 floats each, appended to *segs, grown) of
 * the tiles whose box comes within w->props.wall_foot of chunk id's
 * (sliced into halo, a scratch result), for the props' wall foot.
 * Terrains' leaves only (STRATA_ERR_UNSUPPORTED else). */
STRATA_HIDDEN strata_status strata__world_props_walls(strata_ctx *ctx, const strata_world *w,
                                                      uint64_t id, const strata_result *r,
                                                      strata_result *halo, float **segs,
                                                      uint64_t *nsegs);
/* Planets: the cap of chunk id (axis, angle), see cap above. */
STRATA_HIDDEN const float *strata__world_cap(const strata_world *w, uint64_t id);
/* The corners of chunk id's coarse triangle (planets) or its cells
 * (terrains: x0, z0, x1, z1 in grid vertices of the source). */
STRATA_HIDDEN void strata__world_chunk_region(const strata_world *w, uint64_t id,
                                              float corners[9], uint32_t cells[4]);

/* Whether d's leaf tiles have their loops beside them; its leaves; DIR/
 * tiles/K/NAME.geojson, the loops of leaf id, into buf (STRATA_ERR_IO,
 * ENAMETOOLONG, when it does not fit). */
STRATA_HIDDEN int strata__world_dir_has_loops(const strata_world_dir *d);
STRATA_HIDDEN uint64_t strata__world_dir_leaves(const strata_world_dir *d);
STRATA_HIDDEN strata_status strata__world_dir_loops_path(const strata_world_dir *d, uint64_t id,
                                                         char *buf, size_t len);

/* strata_world_dir_write_tile with the tile's props (NULL: none) drawn
 * into a GLB tile, and its loops (NULL: none) written first beside it. */
STRATA_HIDDEN strata_status strata__world_dir_write_tile(strata_ctx *ctx, strata_world_dir *d,
                                                         const strata_world *w, uint64_t id,
                                                         const strata_result *r,
                                                         const strata_palette *pal,
                                                         const strata_props *props,
                                                         const strata_loops *loops,
                                                         strata_tile_record *rec);

/* Working memory of skirts, reused tile after tile. */
typedef struct strata_skirt_scratch {
    const strata_allocator *al;
    uint8_t *side; /* per vertex of r: the sides of the tile it lies near */
    size_t side_cap;
    uint64_t *slots; /* edge hash table: key, count */
    size_t slot_cap;
    uint64_t *cand; /* candidate edges u << 32 | v, then the border ones */
    uint64_t *own;  /* with normals: each candidate as its triangle has it */
    uint32_t *ter;  /* the terrace of each candidate's triangle */
    size_t cand_cap;
    uint64_t *order; /* the border edges (their candidate slots) by terrace */
    size_t order_cap;
    uint32_t *pos; /* with normals: position bits -> first vertex there */
    size_t pos_cap;
} strata_skirt_scratch;
STRATA_HIDDEN void strata__skirt_scratch_free(strata_skirt_scratch *s);

/* Add the skirt of chunk id to r (sliced from its lattice): for every
 * border edge of r's surface (an edge of one triangle only) that is not
 * vertical and not on the world's outer border (a terrain's domain edge),
 * two triangles down to copies of its ends lowered by `depth` (planets:
 * towards the centre, to at most half the radius), facing outwards, with
 * the normals of the edge's triangle when r has normals; grouped by the
 * terrace of that triangle (r's skirt_ends); sets r's skirt range. */
STRATA_HIDDEN strata_status strata__skirt_add(const strata_world *w, uint64_t id,
                                              strata_result *r, double depth,
                                              strata_skirt_scratch *s);

/* What a tileset needs to know of w (ext: ".glb" or ".ply"). */
STRATA_HIDDEN void strata__world_tileset_desc(const strata_world *w, const char *ext,
                                              strata_tileset_desc *d);

#endif
