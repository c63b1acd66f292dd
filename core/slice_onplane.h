/* The slicer's rare path: input vertices lying exactly on their plane
 * (core/slice_onplane.c).
 *
 * A vertex q with h(q) == L[band(q)], band(q) > 0, counts as lying
 * infinitesimally above its plane (simulation of simplicity); so does a
 * vertex within rounding of a plane, snapped onto it first
 * (strata__onplane_snap).  A crossing
 * of plane band(q) exactly at the high end q of an edge is then not a new
 * point: its top copy is q itself.  The neighbours of q below the plane
 * form wedges around q that touch only at q; each wedge gets its own
 * bottom copy (q at L[band(q) - 1]), shared by the edges from q into that
 * wedge, the wedge edges.  A saddle exactly on a plane thus keeps every
 * edge manifold.  A fin is an input edge lying in a plane whose two
 * triangles would both stand a wall on it (their third corners lie
 * below): the two walls lie back to back, enclosing nothing, and the
 * slicer drops both, joining the wedges on the edge's two sides at each
 * end (one bottom copy: the roofs below meet there by id as they do by
 * position).  Kept, a ridge of several such edges left walls on one
 * another with distinct ids, which welding by position found as folds.
 *
 * A saddle lying exactly on a plane (two or more wedges around a vertex
 * after the fin joins) is a pinch: its wedges' walls meet along the
 * vertical segment under the vertex, by position one edge of four walls.
 * Snapping makes such vertices from float heights too, rarely.
 *
 * Only the triangles touching such vertices are looked at: with float
 * heights they are few (a quantized heightmap can have many).
 */
#ifndef STRATA_SLICE_ONPLANE_H
#define STRATA_SLICE_ONPLANE_H

#include "base.h"
#include "slice_scratch.h"

#include <stdint.h>

struct strata_place;

/* Wedges and fins of one slice.  All zero (no tables) when no vertex
 * lies on its plane.
 *
 * A mesh with context (strata_mesh.ghost_*): every triangle, context
 * included, is looked at, so the wedges around the mesh's own vertices and
 * the fins on its own edges are those of the whole surface; but only
 * wedges with an own edge get a bottom copy.  Context ids come after own
 * ones, so those are the wedges whose smallest edge id is an own edge:
 * the own triangles use no other (their edges are own edges). */
typedef struct strata_onplane {
    uint32_t nwedge;            /* wedge edges */
    const uint32_t *wedge_e;    /* their ids, ascending */
    const uint32_t *wedge_bot;  /* per wedge edge: its wedge's bottom copy
                                   (UINT32_MAX for a context wedge) */
    const uint8_t *wedge_first; /* per wedge edge: 1 on the smallest edge id
                                   of a wedge with a bottom copy, the one
                                   placing the copy */
    uint32_t nbottom;           /* bottom copies, numbered from the first id
                                   given, in the order of their wedges'
                                   smallest edge id */
    uint32_t nfins;
    const uint32_t *fins; /* ids of the input edges that are fins, ascending */
} strata_onplane;

/* Find the wedges and fins from the vertices' bands and on-plane flags
 * (those of the classify kernel) over all triangles of m, numbering the
 * bottom copies of the wedges with an edge below own_edges from first_id.
 * Tables are allocated from sc.  STRATA_ERR_NOMEM. */
STRATA_HIDDEN strata_status strata__onplane_build(strata_ctx *ctx, strata_scratch *sc,
                                                  const strata_mesh *m, const uint16_t *band,
                                                  const uint8_t *on, uint32_t own_edges,
                                                  uint32_t first_id, strata_onplane *out);

/* Snap the vertices lying within rounding of a plane onto it (the wedges
 * and crossings are then built again from the changed flags).  Take an
 * edge whose ends lie in different bands and its crossing of the plane
 * nearest one of its ends (the end's own plane
 * when it is the high end, the next one up when it is the low end),
 * computed as core/slice.c places it (from the low end, t = (L[k] -
 * h_low) / dh) and moved to that end's roof level.  The end snaps when
 *   - the crossing lands on the end's roof copy, or within 4 ulps of it
 *     (of the largest coordinate, the height's included; 4 to 8 ulps):
 *     every coordinate (RADIAL: after projection), or, FLAT, one of x, z
 *     that the edge changes while within 16 ulps in the other (the
 *     crossing would lie on one line with the end and its neighbour along
 *     that axis); a side of a few ulps would make a sliver whose normal
 *     is noise, and welding by position could fold it; or
 *   - two such crossings of one plane at the end, each within 16 ulps of
 *     it, lie on one point or on one line with it though their edges do
 *     not (not within 6 degrees of opposite directions).
 * Either way the crossings' rounding, not the surface, would decide the
 * small roof triangles at that end, and some would have no area.  The end
 * is then taken as lying on that plane instead: a vertex a hair above its
 * plane gets on = 1; one a hair below the next plane moves up to it (band
 * + 1, on = 1: its roof copy lies on that plane, its wedges' bottom
 * copies where its roof copy was).  A vertex found both ways (planes
 * within rounding of each other) takes the first.  Decided over every
 * edge of m, context included, from the bands and flags of the classify
 * kernel (before any change), so the result depends on the input alone:
 * any thread count and ISA give the same.  A chunk's own vertices, and
 * the context vertices one edge out (whose bands its wedges and fins
 * read), have all their edges in its mesh (its context is two edges
 * deep, core/lattice.h), so they snap as on the whole surface; those
 * farther out may not, and nothing of the chunk depends on them.
 *
 * Only ends within 2^-8 of the edge's climb of the plane are looked at
 * (a test on heights alone, which nearly every crossing fails): meshes
 * whose coordinates exceed 2^14 times their edges' lengths could have
 * crossings land farther out.  The own edges looked at are those set in
 * cross (bit e: edge e's ends lie in different bands, as the edge_spans
 * kernel gives it); context edges (from own_edges on) are all looked
 * at.
 *
 * Not covered: crossings of two planes on one edge rounding onto one
 * point (planes closer than the rounding of the crossings), and tiny
 * folds (triangles a few ulps wide facing the wrong way) where crossings
 * come within a few ulps of an end without landing.  *nsnap gets the
 * number of vertices snapped (0: nothing changed; a noise planet of 7.4M
 * triangles had 6 zero-area triangles and snaps a few vertices), *nraised
 * those of them whose band went up by one (the others only got `on`).
 * STRATA_ERR_NOMEM. */
#define STRATA_SNAP_BLOCK 65536 /* edges per block of the snap scan */

/* What the snap scan reads: the input, the planes, the bands and flags,
 * and the own edges crossing a plane (bit e of cross: edge e's ends lie in
 * different bands, as the edge_spans kernel gives it). */
typedef struct strata_snap_scan {
    const strata_mesh *m;
    const float *L;
    const uint16_t *band;
    const uint8_t *on;
    const uint64_t *cross;
    uint32_t own_edges;
} strata_snap_scan;

/* The crossings of own edges in block b (edges b STRATA_SNAP_BLOCK up to
 * the next block or own_edges) that land on or come near an end: the
 * first, parallel half of strata__onplane_snap, which the slicer runs
 * block by block right after the edge_spans kernel, while the block's
 * edges and bands are in cache.  0 nearly always. */
STRATA_HIDDEN uint32_t strata__snap_count_own(const strata_snap_scan *s, size_t b);

/* own[b]: strata__snap_count_own of every block b holding own edges. */
STRATA_HIDDEN strata_status strata__onplane_snap(strata_scratch *sc, const strata_snap_scan *s,
                                                 const uint32_t *own, uint16_t *band,
                                                 uint8_t *on, uint64_t *nsnap, uint64_t *nraised);

/* The snap rule on one edge, for strata__onplane_snap and for
 * core/loops_grid.c, which applies it to a heightmap's grid without the
 * mesh (the same bits: the loops are the slicer's). */

/* An end of an edge as the rule reads it: its point, height, band and
 * on-plane flag (the classify kernel's, before any snapping), and the id
 * its key carries. */
typedef struct {
    float x, y, z, h;
    uint32_t band, on;
    uint32_t id;
} strata_snap_end;

/* A crossing near an end of its edge: the end's key (id << 1, | 1 when it
 * is the low end), where the crossing and the end's point lie at the
 * end's roof level, and the edge's direction from the end. */
typedef struct {
    uint64_t key;
    float c[3], v[3];
    float d[3];
} strata_near_cut;

/* The rule's first test, on heights alone (nearly every edge fails it):
 * can the edge from p (band bp, height hp) up to q (bq > bp, hq) have a
 * crossing within rounding of an end?  Only an end within 2^-8 of the
 * edge's climb of the plane is looked at further (a crossing 2^-8 of the
 * edge from its end is thousands of ulps from it unless the coordinates
 * are over 2^14 times the edge: meshes finer than floats hold well). */
static inline int strata__snap_may(const float *L, float hp, float hq, uint32_t bp, uint32_t bq)
{
    const float fmax = 0x1p-8f * (hq - hp);
    return hq - L[bq] <= fmax || L[bp + 1] - hp <= fmax;
}

/* The edge from p up to q (p->band < q->band): the keys of its ends that
 * a crossing lands on, into lands[*nl] (++*nl), and its crossings near an
 * end, into near[*nn] (++*nn); NULL arrays only count.  The high end's
 * crossing is that of plane band(q), the low end's that of plane band(p)
 * + 1 moved to L[band(p)]; both computed as core/slice.c place_block
 * computes them, to the bit (strata__onplane_snap tells the rule). */
STRATA_HIDDEN void strata__snap_edge(const struct strata_place *g, const float *L,
                                     const strata_snap_end *p, const strata_snap_end *q,
                                     uint64_t *lands, strata_near_cut *near, uint32_t *nl,
                                     uint32_t *nn);

/* Which ends snap, from strata__snap_edge's lands (ns of them, room for ns
 * + nn) and near (nn, reordered) over every edge at those ends: snap[]
 * gets one key per end's id, ascending, the first of its keys (| 0: it
 * takes its own plane; | 1: it moves up to the next); returns how many. */
STRATA_HIDDEN uint32_t strata__snap_decide(uint64_t *snap, uint32_t ns, strata_near_cut *near,
                                           uint32_t nn);

/* Write each wedge's bottom copy into the output positions x, y, z. */
STRATA_HIDDEN void strata__onplane_place(strata_ctx *ctx, const strata_onplane *op,
                                         const strata_mesh *m, const uint16_t *band,
                                         const float *L, const struct strata_place *g, float *x,
                                         float *y, float *z);

/* The number of wedge edges with ids below e: where e is, or would be, in
 * wedge_e. */
static inline uint32_t strata__onplane_rank(const strata_onplane *op, uint32_t e)
{
    uint32_t lo = 0, len = op->nwedge;
    while (len > 0) {
        const uint32_t half = len / 2;
        if (op->wedge_e[lo + half] < e) {
            lo += half + 1;
            len -= half + 1;
        } else {
            len = half;
        }
    }
    return lo;
}

/* The bottom copy of wedge edge e (an own edge). */
static inline uint32_t strata__onplane_bottom(const strata_onplane *op, uint32_t e)
{
    return op->wedge_bot[strata__onplane_rank(op, e)];
}

/* Is input edge e a fin? */
static inline int strata__onplane_is_fin(const strata_onplane *op, uint32_t e)
{
    uint32_t lo = 0, hi = op->nfins;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (op->fins[mid] < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < op->nfins && op->fins[lo] == e;
}

#endif
