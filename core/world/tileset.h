/* 3D Tiles 1.1 tilesets of worlds (core/world/tileset.c).
 *
 * The tree follows the chunk tree: planets have the 20 base faces under
 * the root and four children per node down to the chunks (depth C);
 * terrains a quadtree over tile columns and rows, the root at depth 0 and
 * the tiles at depth D (2^D >= tiles across).  Leaves hold the tiles
 * present; nodes without any present tile below are left out.  With lod,
 * an inner node holds its own tile too (when present), its box holds that
 * tile and its children, and geometricError is the world's bound of its
 * depth (errors[k], 0 at the leaves); without, inner nodes have no
 * content and an error large enough that viewers always refine.  A subtree
 * with more than STRATA_TILESET_SPLIT leaves is written to a file of its
 * own (tilesets/K/ID.json, an external tileset the parent points to), so
 * that no JSON file grows past a few MB. */
#ifndef STRATA_TILESET_H
#define STRATA_TILESET_H

#include "base.h"

#define STRATA_TILESET_SPLIT 4096u
#define STRATA_TILESET_DEPTHS 33 /* depths 0..32 */

typedef struct strata_tileset_desc {
    strata_world_kind kind;
    uint32_t leaf_depth; /* planets: C; terrains: D */
    uint32_t tiles_x;    /* terrains: tiles across (id = tz * tiles_x + tx) */
    const char *ext;     /* content file extension, ".glb" */
    /* Levels of detail (strata_tileset_layout): with lod, the tiles of
     * the inner nodes follow the nleaves leaves, depth k's first[k] on,
     * across[k] x down[k] of them (terrains; planets 20 4^k), node
     * (x, z) at first[k] + z across[k] + x; errors[k] the geometric error
     * of depth k (errors[leaf_depth] = 0). */
    int lod;
    uint64_t nleaves, count;
    uint64_t first[STRATA_TILESET_DEPTHS];
    uint32_t across[STRATA_TILESET_DEPTHS], down[STRATA_TILESET_DEPTHS];
    double errors[STRATA_TILESET_DEPTHS];
    /* The tileset's metadata: schema classes text (the members of
     * "classes" for the world, without braces) and the world entity's
     * properties (the members of "properties", without braces). */
    const char *world_classes;
    const char *world_properties;
    /* Placed on the Earth (strata_world_options.place): lon, lat, height,
     * scale, heading, and the root tile's transform strata_geo_frame
     * makes of them. */
    int placed;
    double place[5];
    double transform[16];
} strata_tileset_desc;

/* Write DIR/tileset.json (and DIR/tilesets/... for big trees, whose URIs
 * are relative to them: "../../tiles/...") for the tiles recs[0..n)
 * (ascending ids, each present once), each file atomically.  STRATA_ERR_IO (errno kept), STRATA_ERR_NOMEM,
 * STRATA_ERR_INVALID_ARG for records out of order. */
STRATA_HIDDEN strata_status strata__tileset_write(strata_ctx *ctx, const char *dir,
                                                  const strata_tileset_desc *d,
                                                  const strata_tile_record *recs, uint64_t n);

/* Fill the layout of d (nleaves, count, first, across, down) from kind,
 * leaf_depth, tiles_x, lod and the number of leaves.  0 when the counts
 * overflow. */
STRATA_HIDDEN int strata__tileset_layout(strata_tileset_desc *d, uint64_t nleaves);
/* Depth and index within its depth of tile id (< d->count). */
STRATA_HIDDEN void strata__tileset_locate(const strata_tileset_desc *d, uint64_t id,
                                          uint32_t *depth, uint64_t *index);

/* Relative content path of tile id, without extension: "tiles/C/ID" or
 * "tiles/D/TX_TZ" (at most 47 characters). */
STRATA_HIDDEN void strata__tile_path(const strata_tileset_desc *d, uint64_t id, char *buf,
                                     size_t len);

#endif
