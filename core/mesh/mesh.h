/* Meshes (core/mesh/mesh.c): the layout of strata_mesh, heights, triangle
 * geometry, the edge table built by sorting, and the quarter turns between
 * an input's up axis and strata's y-up frame. */
#ifndef STRATA_MESH_H
#define STRATA_MESH_H

#include "base.h"

#include <math.h>
#include <stdint.h>

struct strata_mesh {
    strata_allocator alloc; /* copied from the creating context */
    uint32_t nverts, ntris, nedges;
    strata_geometry geometry;
    float center[3];
    float radius;
    float *x, *y, *z, *h;       /* nverts each */
    uint32_t *a, *b, *c;        /* ntris each */
    uint32_t *e0, *e1, *e2;     /* ntris each, one allocation (e0's): e1 and
                                   e2 follow e0 64-byte aligned */
    uint32_t *ev0, *ev1;        /* nedges each */
    /* Context (core/mesh/lattice.h): the last ghost_* vertices, edges and
     * triangles are only read by the slicer's decisions across edges and
     * around vertices; nothing is written for them.  0: none.
     * Invariant (the lattices build it so; tests/check_lattice checks it):
     * own triangles [0, ntris - ghost_tris) use only own vertices
     * [0, nverts - ghost_verts) and own edges [0, nedges - ghost_edges),
     * and own edges join own vertices.  Every context id is thus >= every
     * own one, and the slicer tells own from context by comparing an id
     * with these bounds. */
    uint32_t ghost_verts, ghost_edges, ghost_tris;
};

/* Allocate a mesh with room for the given counts; arrays uninitialised. */
STRATA_HIDDEN strata_status strata__mesh_alloc(const strata_allocator *a,
                                               uint32_t nverts, uint32_t ntris,
                                               uint32_t nedges,
                                               strata_mesh **out);

/* Build the edge table of a mesh whose triangles are set, by sorting the
 * vertex pairs on ctx's threads: edges numbered in (lower vertex, higher
 * vertex) order.  Fills nedges, ev0, ev1, e0, e1, e2 (allocating
 * ev0/ev1). */
STRATA_HIDDEN strata_status strata__mesh_build_edges(strata_ctx *ctx, strata_mesh *m);

/* A flat mesh made of the given arrays, allocated with ctx's allocator,
 * which it takes over (freeing them on failure): finite positions,
 * triangles of three distinct in-range vertices (not checked).  Heights
 * and the edge table are made on ctx's threads. */
STRATA_HIDDEN strata_status strata__mesh_adopt(strata_ctx *ctx, float *x, float *y, float *z,
                                               uint32_t nverts, uint32_t *a, uint32_t *b,
                                               uint32_t *c, uint32_t ntris, strata_mesh **out);

/* Recompute h[] from the positions and the mesh's geometry. */
STRATA_HIDDEN void strata__mesh_update_heights(strata_mesh *m);

/* The height of a point of mesh m: y (FLAT) or distance from the centre
 * minus the base radius (RADIAL).  Every place that sets h[] uses this, so
 * heights computed in different passes agree bit for bit. */
static inline float strata__height(const strata_mesh *m, float x, float y, float z)
{
    if (m->geometry == STRATA_FLAT)
        return y;
    const float dx = x - m->center[0], dy = y - m->center[1], dz = z - m->center[2];
    return sqrtf(dx * dx + dy * dy + dz * dz) - m->radius;
}

/* (b - a) x (c - a) for a triangle of SoA positions, in double: along the
 * normal of a counter-clockwise triangle, twice its area long. */
static inline void strata__tri_cross(const float *x, const float *y, const float *z, uint32_t a,
                                     uint32_t b, uint32_t c, double n[3])
{
    const double ux = (double)x[b] - x[a], uy = (double)y[b] - y[a], uz = (double)z[b] - z[a];
    const double vx = (double)x[c] - x[a], vy = (double)y[c] - y[a], vz = (double)z[c] - z[a];
    n[0] = uy * vz - uz * vy;
    n[1] = uz * vx - ux * vz;
    n[2] = ux * vy - uy * vx;
}

/* The triangle's unit normal (left at zero length if it is degenerate). */
static inline void strata__tri_normal(const float *x, const float *y, const float *z, uint32_t a,
                                      uint32_t b, uint32_t c, double n[3])
{
    strata__tri_cross(x, y, z, a, b, c, n);
    const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (len > 0) {
        n[0] /= len;
        n[1] /= len;
        n[2] /= len;
    }
}

/* Proper rotations between an input frame with the given up axis and
 * strata's y-up frame (mesh import, strata_result_rotate_*): a quarter
 * turn is a permutation with one sign change, exact in float.  0 - v
 * rather than -v so that no -0 appears in the output. */
static inline void strata__to_y_up(float *x, float *y, float *z, strata_axis up)
{
    const float a = *x, b = *y, c = *z;
    if (up == STRATA_AXIS_Z) { /* about x: (x, y, z) -> (x, z, -y) */
        *y = c;
        *z = 0.0f - b;
    } else if (up == STRATA_AXIS_X) { /* about z: (x, y, z) -> (-y, x, z) */
        *x = 0.0f - b;
        *y = a;
    }
}

/* The inverse of strata__to_y_up. */
static inline void strata__from_y_up(float *x, float *y, float *z, strata_axis up)
{
    const float a = *x, b = *y, c = *z;
    if (up == STRATA_AXIS_Z) { /* (x', y', z') -> (x', -z', y') */
        *y = 0.0f - c;
        *z = b;
    } else if (up == STRATA_AXIS_X) { /* (x', y', z') -> (y', -x', z') */
        *x = b;
        *y = 0.0f - a;
    }
}

#endif
