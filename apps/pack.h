/* Chunks packed for the sculpt editor's page (apps/sculpt.c) and its
 * benchmark (perf/sculpt-dab.c): made in memory, no files.
 *
 * A pack, little-endian: "STRATAPK", u32 version 1, u32 chunks; per
 * chunk u64 id, u32 vertices, u32 indices, u32 ranges, u32 flags (1:
 * normals), the positions (3 f32 a vertex), the normals (with flag 1),
 * the indices (u32), per range u32 first, u32 count, i32 terrace, u32
 * wall (1: walls; terrace -2: the water).  Written in the host's byte
 * order, which on every platform strata builds for is little-endian. */
#ifndef STRATA_APPS_PACK_H
#define STRATA_APPS_PACK_H

#include "strata.h"

#include <stddef.h>

typedef struct pack_buf {
    unsigned char *p; /* malloc'ed; the caller frees it */
    size_t len, cap;
} pack_buf;

/* Append p[0..n) to b (dies without memory). */
void pack_put(pack_buf *b, const void *p, size_t n);
/* Start a pack of n chunks in b (appended). */
void pack_begin(pack_buf *b, uint64_t n);
/* Make chunk id of w into r (strata_world_make_chunk: the world's edits
 * in effect) and append it to b.  Errors of strata_world_make_chunk;
 * dies without memory. */
strata_status pack_chunk(strata_ctx *ctx, const strata_world *w, strata_result *r, uint64_t id,
                         pack_buf *b);

#endif
