/* Worlds: the world object shared by world.c (chunks) and world_dir.c
 * (directories of tiles, tilesets). */
#ifndef STRATA_WORLD_H
#define STRATA_WORLD_H

#include "alloc.h"
#include "ctx.h"
#include "lattice.h"
#include "mesh.h"
#include "result.h"
#include "tileset.h"

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
    strata_height_fn edit;
    void *edit_user;
    uint64_t fingerprint;
    /* planets, for strata_world_chunks_near and tile boxes: per coarse
     * triangle its axis (unit centroid direction) and the angle (radians)
     * from it within which its vertices and ring lie */
    float *cap;
};

/* What a tileset needs to know of w (ext: ".glb" or ".ply"). */
STRATA_HIDDEN void strata__world_tileset_desc(const strata_world *w, const char *ext,
                                              strata_tileset_desc *d);

#endif
