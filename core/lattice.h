/* Chunk lattices of worlds (DESIGN.md, "Worlds: chunks, seams, shards").
 *
 * A chunk's mesh is built on its own, with the same float bits as the
 * whole surface has at those points, plus a ring of *context* triangles
 * around it: every triangle of the whole surface that shares a vertex with
 * the chunk but is not in it.  The slicer reads the context only to make
 * the decisions that look across an edge or around a vertex exactly as it
 * would on the whole surface (heights exactly on a plane: wedges, fins),
 * and writes nothing for it.
 *
 * Layout of a chunk mesh: the chunk's own vertices, edges and triangles
 * first, the context ones after them (strata_mesh.ghost_*).
 */
#ifndef STRATA_LATTICE_H
#define STRATA_LATTICE_H

#include "internal.h"

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

/* Working memory of the context ring, reused chunk after chunk by one
 * thread. */
typedef struct strata_ring_scratch {
    const strata_allocator *al;
    float *tri;          /* context triangles, 9 floats each */
    size_t ntri, cap;
    uint32_t *vslot;     /* vertex hash: ids, UINT32_MAX empty */
    uint64_t *ekey;      /* edge hash: (min << 32 | max), UINT64_MAX empty */
    uint32_t *eval;
    uint32_t vmask, emask;
} strata_ring_scratch;

STRATA_HIDDEN void strata__ring_scratch_free(strata_ring_scratch *s);

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

#endif
