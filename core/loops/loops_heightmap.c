/* Edge loops of a heightmap's grid, straight from its samples
 * (strata_loops_from_heightmap): the loops strata_loops_from_mesh gives
 * for strata_mesh_from_heightmap's mesh, without building the mesh or
 * slicing it.
 *
 * The grid is strata_shape_grid's: vertex (i, j) = j*w + i at
 * x = strata__grid_coord(i), z = strata__grid_coord(j), cell (i, j) cut
 * into (v00, v01, v11) and (v00, v11, v10).  Bands and on-plane flags come
 * from the slicer's classify kernel and its snapping (a vertex within
 * rounding of a plane taken as on it, by the rule of slice_onplane.h on
 * the vertex's six edges), cut points from its formula (low end to high
 * end, the same float operations as core/slice/slice.c place_vertices), a
 * crossing at a vertex lying on its plane is that vertex: the same bits.
 *
 * Linking: a crossing is named by its edge and plane (numbered by a
 * prefix sum over rows of edges).  In every triangle each plane it spans
 * enters on its climbing side and leaves on its descending side: next[]
 * of the first is the second.  Where the slicer names a crossing at a
 * vertex lying on its plane by the wedge around it (slice_onplane.h),
 * the edge names it here, and the triangles inside a wedge link its edges
 * by pieces of no length: walking them is walking the wedge, so the
 * polylines are the slicer's once a vertex's repeats are dropped.  The
 * two pieces along a fin (an edge lying in the plane with both its
 * triangles below), whose walls the slicer drops, are re-linked as pieces
 * of no length at their ends (join_fins); a closed walk of fewer than
 * three points is what remains of a ridge of fins.
 *
 *   1 heights    samples x scale, as strata_mesh_from_heightmap (no copy
 *                of samples in memory; an opened file read a strip of rows
 *                at a time)
 *   2 classify   bands and vertices on planes (the slicer's kernel, a row
 *                of heights at a time), then the snapping of the strip's
 *                rows (a row more on either side loaded for their edges)
 *   3 count      crossings per row of edges, a prefix sum
 *   4 cut        per row of cells (threads): crossings placed, next[] set
 *   5 trace      polylines, a plane a thread, canonical order
 * Phases 1-4 run on strips of rows (threads), each strip's samples, bands
 * and flags in its thread's buffers, classified once to count and again
 * to cut: the crossings are all the grid's memory.  Phase 5 either keeps
 * the polylines (strata_loops_from_heightmap) or hands them to a sink a
 * plane at a time (strata__loops_grid_stream: the GeoJSON writer), the
 * planes in flight traced in parallel and handed on in order. */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/heightmap.h"
#include "mesh/lattice.h"
#include "loops/loops.h"
#include "slice/slice_onplane.h"
#include "base/topology.h"
#include "simd/slice.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define NONE UINT32_MAX

/* A crossing of an edge by a plane: all a walk reads of it in one place
 * (16 bytes: one cache line touched a point).  The vertex a crossing is
 * (strata_loops.vertex) goes to an array of its own, kept only when the
 * loops are. */
struct crossing {
    float x, z;      /* its point */
    uint32_t next;   /* the crossing the contour goes on to, NONE: none */
    uint16_t plane;
    uint8_t hasprev; /* some crossing leads to it */
    uint8_t state;   /* AT_VERTEX (set when placed), SEEN (walked) */
};

enum { AT_VERTEX = 1, SEEN = 2 };

typedef struct {
    uint32_t w, h, nx, nz;
    uint32_t j0;       /* data, band and on hold rows j0.. (a strip): vertex
                          (i, j) is their j0-relative (j - j0) w + i */
    const float *data; /* samples: a height is data[v] * scale, the float
                          product strata_mesh_from_heightmap makes */
    float scale;
    const float *xs, *zs;
    const uint16_t *band;
    const uint8_t *on;
    const float *L;
    uint32_t nL;
    uint32_t strip, nstrip; /* cell rows a strip, strips */
    uint32_t *first; /* [s nL + k]: the first id of strip s's crossings of
                        plane k; s = nstrip: the end of plane k's */
    struct crossing *c; /* per crossing */
    uint32_t *vert;     /* per crossing: the vertex it is (lying on its
                           plane) or NONE; NULL: not kept */
    uint32_t corner_band; /* vertex (0, 0)'s band, snapping included */
} grid_job;

/* Crossing ids are plane-major: plane k's crossings are ids first[k] ..
 * first[nstrip nL + k] in the order of their edges (strips, then edge
 * groups H_j (the nx edges along x of vertex row j), V_j (the w edges
 * along z of cell row j), D_j (its nx diagonals) in the order H_0, V_0,
 * D_0, H_1, ..., then the edges along the group), so that a plane's
 * crossings lie together: tracing a plane stays in its own stretch.
 * The ids of a group's crossings: edge i's, plane by plane upwards, are
 * ids[at[i]] .. */
typedef struct {
    uint32_t *at; /* per edge (w) */
    uint32_t *ids;
    size_t cap;
} group_ids;

/* Place the crossings of edge (a, b) (g's strip-relative vertices a at
 * column ia of row ja, b at ib of jb; band[a] != band[b]), ids[k - low
 * band - 1] that of plane k. */
static void place_edge(const grid_job *g, uint32_t a, uint32_t b, uint32_t ia, uint32_t ja,
                       uint32_t ib, uint32_t jb, const uint32_t *ids)
{
    uint32_t p = a, q = b, ip = ia, jp = ja, iq = ib, jq = jb;
    if (g->band[p] > g->band[q]) {
        p = b;
        q = a;
        ip = ib;
        jp = jb;
        iq = ia;
        jq = ja;
    }
    const float xp = g->xs[ip], zp = g->zs[jp], xq = g->xs[iq], zq = g->zs[jq];
    const float hp = g->data[p] * g->scale, dh = g->data[q] * g->scale - hp;
    const float dx = xq - xp, dz = zq - zp;
    for (uint32_t k = g->band[p] + 1u; k <= g->band[q]; k++) {
        const uint32_t id = *ids++;
        struct crossing *c = &g->c[id];
        c->plane = (uint16_t)k;
        if (k == g->band[q] && g->on[q]) { /* the vertex itself */
            c->x = xq;
            c->z = zq;
            c->state = AT_VERTEX;
            if (g->vert)
                g->vert[id] = jq * g->w + iq;
            continue;
        }
        const float t = (g->L[k] - hp) / dh;
        c->x = xp + t * dx;
        c->z = zp + t * dz;
        if (g->vert)
            g->vert[id] = NONE;
    }
}

/* The group of edges from vertex (ia + i, ja) to (ib + i, jb), i < n
 * (strip-relative vertices a0 + i, b0 + i): ids drawn in edge order from
 * the planes' cursors cur[] (which advance), and with `place` its
 * crossings placed.  0 without memory. */
static int group_cut(const grid_job *g, const strata_allocator *al, uint32_t a0, uint32_t b0,
                     uint32_t ia, uint32_t ja, uint32_t ib, uint32_t jb, uint32_t n, uint32_t *cur,
                     int place, group_ids *gi)
{
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        gi->at[i] = total;
        uint32_t lo = g->band[a0 + i], hi = g->band[b0 + i];
        if (lo == hi)
            continue;
        if (lo > hi) {
            const uint32_t t = lo;
            lo = hi;
            hi = t;
        }
        if ((uint64_t)total + (hi - lo) > gi->cap) {
            const size_t cap = (size_t)total + (hi - lo) + gi->cap + 1024;
            uint32_t *ids = strata__alloc_array(al, cap, sizeof(uint32_t));
            if (!ids)
                return 0;
            if (total)
                memcpy(ids, gi->ids, (size_t)total * sizeof(uint32_t));
            strata__free(al, gi->ids);
            gi->ids = ids;
            gi->cap = cap;
        }
        uint32_t *d = gi->ids + total;
        for (uint32_t k = lo + 1; k <= hi; k++)
            *d++ = cur[k]++;
        if (place)
            place_edge(g, a0 + i, b0 + i, ia + i, ja, ib + i, jb, gi->ids + total);
        total += hi - lo;
    }
    return 1;
}

/* One triangle (corners v[3] counter-clockwise seen from above, side s
 * from v[s] to v[s+1] with the ids of its crossings at side[s]): for
 * every plane it spans, the crossing on its climbing side leads to the
 * one on its descending side. */
static inline void link_triangle(const grid_job *g, const uint32_t v[3],
                                 const uint32_t *const side[3])
{
    const uint32_t b[3] = {g->band[v[0]], g->band[v[1]], g->band[v[2]]};
    if (b[0] == b[1] && b[1] == b[2])
        return;
    uint32_t lo = b[0], hi = b[0];
    for (int s = 1; s < 3; s++) {
        lo = b[s] < lo ? b[s] : lo;
        hi = b[s] > hi ? b[s] : hi;
    }
    for (uint32_t k = lo + 1; k <= hi; k++) {
        uint32_t ci = NONE, cj = NONE;
        for (int s = 0; s < 3; s++) {
            const uint32_t bs = b[s], bt = b[(s + 1) % 3];
            const uint32_t slo = bs < bt ? bs : bt, shi = bs < bt ? bt : bs;
            if (!(slo < k && k <= shi))
                continue;
            const uint32_t id = side[s][k - slo - 1];
            if (bs < bt)
                ci = id;
            else
                cj = id;
        }
        g->c[ci].next = cj;
        g->c[cj].hasprev = 1;
    }
}

/* Phase 4's links on cell row j (in g's strip), with the ids of its
 * groups H_j, V_j, D_j and H_{j+1}. */
static void cut_row(const grid_job *g, uint32_t j, const group_ids *h0, const group_ids *v,
                    const group_ids *d, const group_ids *h1)
{
    const uint32_t w = g->w, nx = g->nx;
    const uint32_t r0 = (j - g->j0) * w, r1 = r0 + w;
    for (uint32_t i = 0; i < nx; i++) {
        const uint32_t v00 = r0 + i, v10 = v00 + 1, v01 = r1 + i, v11 = v01 + 1;
        const uint16_t b00 = g->band[v00];
        if (b00 == g->band[v10] && b00 == g->band[v01] && b00 == g->band[v11])
            continue; /* most cells: one band */
        /* (v00, v01, v11): V_j i, H_{j+1} i, D_j i */
        const uint32_t t0[3] = {v00, v01, v11};
        const uint32_t *const s0[3] = {v->ids + v->at[i], h1->ids + h1->at[i],
                                       d->ids + d->at[i]};
        link_triangle(g, t0, s0);
        /* (v00, v11, v10): D_j i, V_j i+1, H_j i */
        const uint32_t t1[3] = {v00, v11, v10};
        const uint32_t *const s1[3] = {d->ids + d->at[i], v->ids + v->at[i + 1],
                                       h0->ids + h0->at[i]};
        link_triangle(g, t1, s1);
    }
}

/* Phase 4 on loaded strip s (cell rows [j0, j1)): ids drawn from the
 * strip's first ids of every plane (cur, nL; next: the next strip's, for
 * the H row they share, which that strip places), four groups' ids in
 * gi.  0 without memory. */
static int cut_strip(const grid_job *g, const strata_allocator *al, uint32_t s, uint32_t j0,
                     uint32_t j1, uint32_t *cur, uint32_t *next, group_ids gi[4])
{
    const uint32_t w = g->w, nx = g->nx, nL = g->nL;
    memcpy(cur, g->first + (size_t)s * nL, nL * sizeof(uint32_t));
    if (!group_cut(g, al, 0, 1, 0, j0, 1, j0, nx, cur, 1, &gi[0]))
        return 0;
    for (uint32_t j = j0; j < j1; j++) {
        const uint32_t r0 = (j - j0) * w, r1 = r0 + w;
        uint32_t *hc = cur;
        const int mine = j + 1 < j1 || j1 == g->nz;
        if (!mine) {
            memcpy(next, g->first + (size_t)(s + 1) * nL, nL * sizeof(uint32_t));
            hc = next;
        }
        if (!group_cut(g, al, r0, r1, 0, j, 0, j + 1, w, cur, 1, &gi[1]) ||
            !group_cut(g, al, r0, r1 + 1, 0, j, 1, j + 1, nx, cur, 1, &gi[2]) ||
            !group_cut(g, al, r1, r1 + 1, 0, j + 1, 1, j + 1, nx, hc, mine, &gi[3]))
            return 0;
        cut_row(g, j, &gi[0], &gi[1], &gi[2], &gi[3]);
        const group_ids t = gi[0];
        gi[0] = gi[3];
        gi[3] = t;
    }
    return 1;
}

/* Phase 5: walk from crossing c (open: until a crossing leads nowhere;
 * closed: back to c), dropping a vertex's repeats (the slicer's one roof
 * copy: the crossings a wedge's pieces of no length join); with fill,
 * append the points to l.  Two crossings at one point that are not both
 * the vertex there (planes within rounding of each other, where the
 * snapping does not reach: slice_onplane.h) stay two points, as the
 * slicer's two vertices.  Returns the points kept. */
static uint32_t walk(const grid_job *g, uint32_t c0, int closed, strata_loops *l, uint64_t at)
{
    uint32_t n = 0, s = c0;
    float lx = 0, lz = 0, fx = 0, fz = 0;
    int lv = 0, fv = 0; /* the last and first points are vertices */
    do {
        struct crossing *c = &g->c[s];
        const int v = c->state & AT_VERTEX;
        c->state |= SEEN;
        if (n == 0 || !v || !lv || c->x != lx || c->z != lz) {
            lx = c->x;
            lz = c->z;
            lv = v;
            if (n == 0) {
                fx = lx;
                fz = lz;
                fv = v;
            }
            l->x[at + n] = lx;
            l->y[at + n] = g->L[c->plane];
            l->z[at + n] = lz;
            l->vertex[at + n] = g->vert ? g->vert[s] : NONE;
            n++;
        }
        s = c->next;
    } while (s != NONE && s != c0 && !(g->c[s].state & SEEN));
    if (closed && n > 1 && lv && fv && lx == fx && lz == fz)
        n--; /* back at the first point through a wedge */
    return n;
}

/* Scratch of one call, freed at once. */
typedef struct {
    void *p[24];
    int n;
    const strata_allocator *al;
} bag;

/* Free p early (it stays in the bag, as NULL). */
static void bag_free(bag *b, void *p)
{
    for (int i = 0; i < b->n; i++)
        if (b->p[i] == p) {
            strata__free(b->al, p);
            b->p[i] = NULL;
        }
}

static void *bag_alloc(bag *b, size_t n, size_t size)
{
    void *p = strata__alloc_array(b->al, n ? n : 1, size);
    if (p)
        b->p[b->n++] = p;
    return p;
}

/* A piece of a plane from one vertex lying on it to another (a wall on
 * the input edge between them), for join_fins. */
typedef struct {
    float lo[2], hi[2]; /* its ends' points, the lesser (x, then z) first */
    uint32_t from;      /* its first crossing */
    uint32_t up;        /* 1: it runs from lo to hi */
} vertex_piece;

static int cmp_piece(const void *pa, const void *pb)
{
    const vertex_piece *a = pa, *b = pb;
    const float ka[4] = {a->lo[0], a->lo[1], a->hi[0], a->hi[1]},
                kb[4] = {b->lo[0], b->lo[1], b->hi[0], b->hi[1]};
    for (int i = 0; i < 4; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    return a->from < b->from ? -1 : a->from > b->from;
}

/* Fins (slice_onplane.h): an edge lying in a plane with both its
 * triangles below stands two walls back to back, which the slicer drops,
 * joining the wedges on the edge's two sides at each end.  Here the two
 * pieces along the edge (q to w in one triangle, w to q in the other) are
 * re-linked so: the first's start leads to the second's end (both at q),
 * the second's start to the first's end (both at w), pieces of no length
 * that the walk drops like a wedge's.  A vertex's point names it (grid
 * points are distinct).  On plane k's crossings c0 .. c0 + n (a piece
 * never leaves its plane), before they are walked.  0 without memory. */
static int join_fins(const grid_job *g, uint32_t c0, uint64_t n_c, const strata_allocator *al)
{
    uint64_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        vertex_piece *pc = NULL;
        if (pass == 1) {
            if (n < 2)
                return 1;
            if (!(pc = strata__alloc_array(al, n, sizeof *pc)))
                return 0;
        }
        uint64_t k = 0;
        for (uint64_t i = c0; i < c0 + n_c; i++) {
            const struct crossing *c = &g->c[i];
            if (!(c->state & AT_VERTEX) || c->next == NONE)
                continue;
            const struct crossing *d = &g->c[c->next];
            if (!(d->state & AT_VERTEX) || (c->x == d->x && c->z == d->z))
                continue;
            if (pass == 1) {
                const int up = c->x < d->x || (c->x == d->x && c->z < d->z);
                const struct crossing *lo = up ? c : d, *hi = up ? d : c;
                pc[k] = (vertex_piece){{lo->x, lo->z}, {hi->x, hi->z}, (uint32_t)i, (uint32_t)up};
            }
            k++;
        }
        if (pass == 0) {
            n = k;
            continue;
        }
        qsort(pc, n, sizeof *pc, cmp_piece);
        for (uint64_t i = 0; i < n;) {
            uint64_t j = i + 1;
            while (j < n && pc[j].lo[0] == pc[i].lo[0] && pc[j].lo[1] == pc[i].lo[1] &&
                   pc[j].hi[0] == pc[i].hi[0] && pc[j].hi[1] == pc[i].hi[1])
                j++;
            if (j - i == 2 && pc[i].up != pc[i + 1].up) {
                struct crossing *a = &g->c[pc[i].from], *e = &g->c[pc[i + 1].from];
                const uint32_t t = a->next;
                a->next = e->next;
                e->next = t;
            }
            i = j;
        }
        strata__free(al, pc);
    }
    return 1;
}

/* Phase 5 on plane k: its crossings c0 .. c0 + n (ascending), its polylines
 * walked (open ones first, each from its first crossing in id order) into
 * the points from `at` on (a walk writes at most one point a crossing of
 * the plane, so the plane's n slots suffice) and into *out (grown).
 * Returns NOMEM or OK. */
typedef struct {
    strata_loop *loops;
    uint64_t nl, cap, np;
    int nomem;
} plane_lines;

static void trace_plane(const grid_job *g, uint32_t c0, uint64_t n, uint32_t k,
                        strata_loops *l, uint64_t at, plane_lines *out)
{
    const strata_allocator *al = &l->alloc;
    if (!join_fins(g, c0, n, al)) {
        out->nomem = 1;
        return;
    }
    for (int closed = 0; closed < 2; closed++) {
        for (uint64_t i = 0; i < n; i++) {
            const uint32_t c = c0 + (uint32_t)i;
            const struct crossing *cc = &g->c[c];
            if ((cc->state & SEEN) || cc->next == NONE || (!closed && cc->hasprev))
                continue;
            const uint32_t cnt = walk(g, c, closed, l, at + out->np);
            if (cnt < (closed ? 3u : 2u))
                continue; /* a fin, or a peak exactly on a plane */
            if (out->nl == out->cap) {
                const uint64_t cap = out->cap ? 2 * out->cap : 64;
                strata_loop *nlp = strata__alloc_array(al, cap, sizeof *nlp);
                if (!nlp) {
                    out->nomem = 1;
                    return;
                }
                if (out->nl)
                    memcpy(nlp, out->loops, out->nl * sizeof *nlp);
                strata__free(al, out->loops);
                out->loops = nlp;
                out->cap = cap;
            }
            strata_loop *lp = &out->loops[out->nl++];
            memset(lp, 0, sizeof *lp);
            lp->plane = k;
            lp->closed = (uint32_t)closed;
            lp->first = at + out->np;
            lp->count = cnt;
            out->np += cnt;
        }
    }
}

/* Phase 5: the planes walked in parallel (a walk never leaves its
 * plane) each into its own stretch of the points (its stretch of ids),
 * then the stretches closed up in plane order: the same points and
 * polylines whatever the thread count.  Points: room for C given. */
/* Plane k's crossings: ids off[k] .. off[k+1] (nL + 1, in the bag). */
static uint64_t *plane_offsets(const grid_job *g, bag *b)
{
    uint64_t *off = bag_alloc(b, (size_t)g->nL + 1, sizeof(uint64_t));
    if (!off)
        return NULL;
    for (uint32_t k = 0; k < g->nL; k++)
        off[k] = g->first[k];
    off[g->nL] = g->nL ? g->first[(size_t)g->nstrip * g->nL + g->nL - 1] : 0;
    return off;
}

static strata_status trace(strata_ctx *ctx, const grid_job *g, uint64_t C, uint32_t nL, bag *b,
                           strata_loops *l)
{
    const strata_allocator *al = &l->alloc;
    (void)C;
    uint64_t *off = plane_offsets(g, b);
    if (!off)
        return STRATA_ERR_NOMEM;
    plane_lines *pl = bag_alloc(b, nL, sizeof(plane_lines));
    if (!pl)
        return STRATA_ERR_NOMEM;
    memset(pl, 0, (size_t)nL * sizeof(plane_lines));
    const int64_t nk = nL;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 1)
    for (int64_t k = 0; k < nk; k++)
        trace_plane(g, (uint32_t)off[k], off[k + 1] - off[k], (uint32_t)k, l, off[k], &pl[k]);
    uint64_t nl = 0, np = 0;
    int nomem = 0;
    for (uint32_t k = 0; k < nL; k++) {
        nl += pl[k].nl;
        nomem |= pl[k].nomem;
    }
    l->loops = nomem ? NULL : strata__alloc_array(al, nl ? nl : 1, sizeof(strata_loop));
    if (l->loops) {
        nl = 0;
        for (uint32_t k = 0; k < nL; k++) {
            /* close up: plane k's points move down to np */
            const uint64_t shift = off[k] - np;
            if (shift && pl[k].np) {
                memmove(l->x + np, l->x + off[k], pl[k].np * sizeof(float));
                memmove(l->y + np, l->y + off[k], pl[k].np * sizeof(float));
                memmove(l->z + np, l->z + off[k], pl[k].np * sizeof(float));
                memmove(l->vertex + np, l->vertex + off[k], pl[k].np * sizeof(uint32_t));
            }
            for (uint64_t i = 0; i < pl[k].nl; i++) {
                l->loops[nl] = pl[k].loops[i];
                l->loops[nl++].first -= shift;
            }
            np += pl[k].np;
        }
    }
    for (uint32_t k = 0; k < nL; k++)
        strata__free(al, pl[k].loops);
    if (!l->loops)
        return STRATA_ERR_NOMEM;
    l->nloops = nl;
    l->npoints = np;
    return STRATA_OK;
}

/* Phases 1-4 go a strip of STRIP cell rows at a time: its STRIP + 1 rows
 * of samples (read, unless the heightmap holds them), bands and flags in
 * a thread's buffers, never the whole grid's; with a row more on either
 * side, whose edges decide the snapping of the strip's own rows. */
#define STRIP 32u

typedef struct {
    float *h;       /* (STRIP + 3) w samples */
    uint16_t *band; /* (STRIP + 3) w */
    uint8_t *on;    /* (STRIP + 3) w */
    float *row;     /* w: one row scaled */
    /* the snapping's finds (few), grown as needed */
    uint64_t *lands;
    strata_near_cut *near;
    uint32_t nl, nn, cap_l, cap_n;
} strip_buf;

/* Room for `more` entries after n in *p (of cap, size bytes each).  0
 * without memory. */
static int grow(const strata_allocator *al, void **p, uint32_t n, uint32_t more, uint32_t *cap,
                size_t size)
{
    if ((uint64_t)n + more <= *cap)
        return 1;
    const uint64_t c = 2 * ((uint64_t)n + more) + 64;
    if (c > UINT32_MAX)
        return 0;
    void *q = strata__alloc_array(al, (size_t)c, size);
    if (!q)
        return 0;
    if (n)
        memcpy(q, *p, (size_t)n * size);
    strata__free(al, *p);
    *p = q;
    *cap = (uint32_t)c;
    return 1;
}

/* A grid vertex: its id in a strip's window, column and row. */
typedef struct {
    uint32_t v, i, j;
} grid_vertex;

/* The edge from window vertex a to b, of other bands: the slicer's snap
 * rule on it (strata__snap_edge), its finds into s.  0 without memory. */
static int snap_edge(const strata_allocator *al, const grid_job *g, strip_buf *s,
                     const float *h, grid_vertex a, grid_vertex b)
{
    if (s->band[a.v] > s->band[b.v]) { /* low to high */
        const grid_vertex t = a;
        a = b;
        b = t;
    }
    const float ha = h[a.v] * g->scale, hb = h[b.v] * g->scale;
    if (!strata__snap_may(g->L, ha, hb, s->band[a.v], s->band[b.v]))
        return 1; /* nearly every edge */
    if (!grow(al, (void **)&s->lands, s->nl, 2, &s->cap_l, sizeof *s->lands) ||
        !grow(al, (void **)&s->near, s->nn, 2, &s->cap_n, sizeof *s->near))
        return 0;
    const strata_snap_end p = {g->xs[a.i], ha, g->zs[a.j], ha, s->band[a.v], s->on[a.v], a.v};
    const strata_snap_end q = {g->xs[b.i], hb, g->zs[b.j], hb, s->band[b.v], s->on[b.v], b.v};
    const strata_place flat = {STRATA_FLAT, {0.0f, 0.0f, 0.0f}, 0.0f};
    strata__snap_edge(&flat, g->L, &p, &q, s->lands, s->near, &s->nl, &s->nn);
    return 1;
}

/* The edges from window row r's vertices (grid row j, n of them) to the
 * ones di columns and dr rows on: with diff, their crossings of planes lo
 * + 1 .. hi counted as differences (modulo 2^32: the sums come right);
 * with snap, snap_edge on each of them.  0 without memory. */
static int scan_edges(const strata_allocator *al, const grid_job *g, strip_buf *s,
                      const float *h, uint32_t r, uint32_t j, uint32_t di, uint32_t dr,
                      uint32_t n, uint32_t *diff, int snap)
{
    const uint32_t v0 = r * g->w, off = dr * g->w + di;
    const uint16_t *a = s->band + v0, *q = a + off;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t x = a[i], y = q[i];
        if (x == y)
            continue;
        if (diff) {
            diff[(x < y ? x : y) + 1]++;
            diff[(x < y ? y : x) + 1]--;
        }
        if (snap && !snap_edge(al, g, s, h, (grid_vertex){v0 + i, i, j},
                               (grid_vertex){v0 + off + i, i + di, j + dr}))
            return 0;
    }
    return 1;
}

/* Phase 3 on a loaded strip of cell rows [j0, j1) (s's window from grid
 * row r0 on, samples h): its crossings of every plane (count, nL) over
 * its groups of edges (and the last H row's, at the end), with diff (nL
 * + 1) for scratch.  With snap, the snap rule over every edge at the
 * strip's rows [j0, j1] too (those of the rows either side in the
 * window), its finds in s.  0 without memory. */
static int count_strip(const strata_allocator *al, const grid_job *g, strip_buf *s,
                       const float *h, uint32_t r0, uint32_t j0, uint32_t j1, uint32_t *diff,
                       uint32_t *count, int snap)
{
    const uint32_t w = g->w, nx = g->nx, nL = g->nL;
    memset(diff, 0, ((size_t)nL + 1) * sizeof(uint32_t));
    s->nl = s->nn = 0;
    for (uint32_t j = snap && j0 > 0 ? j0 - 1 : j0; j <= j1; j++) {
        /* H_j (the strip's but for its last, the next strip's group),
         * then V_j and D_j (the strip's but for rows j0 - 1 and j1) */
        const int h_own = j >= j0 && (j < j1 || j1 == g->nz), vd_own = j >= j0 && j < j1;
        if ((h_own || (snap && j >= j0)) &&
            !scan_edges(al, g, s, h, j - r0, j, 1, 0, nx, h_own ? diff : NULL, snap))
            return 0;
        if (j < g->nz && (vd_own || snap) &&
            (!scan_edges(al, g, s, h, j - r0, j, 0, 1, w, vd_own ? diff : NULL, snap) ||
             !scan_edges(al, g, s, h, j - r0, j, 1, 1, nx, vd_own ? diff : NULL, snap)))
            return 0;
    }
    uint32_t run = 0;
    for (uint32_t k = 0; k < nL; k++) {
        run += diff[k];
        count[k] = run;
    }
    return 1;
}

/* The vertices of a strip (from row j0, in its bands and flags) that
 * snap: keys (j - j0) w + i << 1, | 1 when it moves up a plane. */
typedef struct {
    uint64_t *key;
    uint32_t n;
} strip_snaps;

static void snaps_apply(const strip_snaps *sn, uint16_t *band, uint8_t *on)
{
    for (uint32_t i = 0; i < sn->n; i++) {
        const uint64_t v = sn->key[i] >> 1;
        band[v] = (uint16_t)(band[v] + (sn->key[i] & 1u));
        on[v] = 1;
    }
}

/* Phases 2 (its snapping) and 3 on strip si (cell rows [j0, j1)), loaded
 * with the rows either side: count_strip with the snap rule, then the
 * strip's rows' snaps decided (strata__snap_decide) and kept in *sn for
 * phase 4, the strip counted again if a vertex moved up a plane.  0
 * without memory. */
static int count_snap_strip(const strata_allocator *al, const grid_job *g, strip_buf *s, uint32_t j0,
                            uint32_t j1, uint32_t *diff, uint32_t *count, strip_snaps *sn)
{
    const uint32_t w = g->w, a = j0 > 0, r0 = j0 - a;
    const float *h = g->data - (size_t)a * w;
    if (!count_strip(al, g, s, h, r0, j0, j1, diff, count, 1))
        return 0;
    if (s->nl + s->nn == 0)
        return 1; /* the usual case */
    if (!grow(al, (void **)&s->lands, s->nl, s->nn, &s->cap_l, sizeof *s->lands))
        return 0;
    const uint32_t ns = strata__snap_decide(s->lands, s->nl, s->near, s->nn);
    uint32_t own = 0, raised = 0;
    for (uint32_t i = 0; i < ns; i++) {
        const uint64_t v = s->lands[i] >> 1;
        if (v / w < a || v / w > a + (j1 - j0))
            continue; /* a row either side: decided with its own edges */
        s->lands[own++] = (v - (uint64_t)a * w) << 1 | (s->lands[i] & 1u);
        raised |= (uint32_t)(s->lands[i] & 1u);
    }
    if (own == 0)
        return 1;
    if (!(sn->key = strata__alloc_array(al, own, sizeof(uint64_t))))
        return 0;
    memcpy(sn->key, s->lands, own * sizeof(uint64_t));
    sn->n = own;
    snaps_apply(sn, s->band + (size_t)a * w, s->on + (size_t)a * w);
    return !raised || count_strip(al, g, s, h, r0, j0, j1, diff, count, 0);
}

/* Rows [j0, j0 + n) into s, classified, and g (a thread's copy) pointed
 * at them; with halo, the rows either side too (where the grid has them),
 * before and after.  *nonfinite set when a height is not finite. */
static strata_status strip_load(const strata_ctx *ctx, const strata_heightmap *hm,
                                const float *data, grid_job *g, strip_buf *s, uint32_t j0,
                                uint32_t n, int halo, int *nonfinite)
{
    const uint32_t w = g->w;
    const uint32_t a = halo && j0 > 0, r0 = j0 - a, nr = a + n + (halo && j0 + n < g->h);
    const float *h = data ? data + (size_t)r0 * w : s->h;
    if (!data) {
        const strata_status st = strata_heightmap_read(hm, 0, r0, w, nr, s->h);
        if (st != STRATA_OK)
            return st;
    }
    for (uint32_t r = 0; r < nr; r++) {
        const float *src = h + (size_t)r * w;
        for (uint32_t i = 0; i < w; i++)
            s->row[i] = src[i] * g->scale;
        uint64_t cnt[2] = {0, 0};
        ctx->simd.classify(g->L, g->nL, s->row, w, s->band + (size_t)r * w, s->on + (size_t)r * w,
                           cnt);
        *nonfinite |= cnt[1] != 0;
    }
    g->data = h + (size_t)a * w;
    g->band = s->band + (size_t)a * w;
    g->on = s->on + (size_t)a * w;
    g->j0 = j0;
    return STRATA_OK;
}

/* The scratch of phases 1-4: per thread (T of them) a strip's buffers,
 * its cursors and its four groups' ids; per strip its snaps.  In the bag,
 * but for what cut_free frees: the groups' ids, the strips' finds and
 * the snaps' keys. */
typedef struct {
    int T;
    const float *data;   /* the heightmap's samples; NULL: read a strip at a time */
    strip_buf *sb;       /* per thread, over the four buffers below */
    float *hbuf;         /* (STRIP + 3) w samples a thread (data NULL), */
    uint16_t *bbuf;      /* bands, */
    uint8_t *obuf;       /* flags, */
    float *rbuf;         /* and w for a row scaled */
    uint32_t *pl;        /* per thread: diff (nL + 1), cursors of this strip
                            and of the next (nL each) */
    uint32_t *at;        /* per thread: four groups' at[] (w each) */
    group_ids *gi;       /* per thread: four groups */
    strata_status *sts;  /* per thread: its first failure */
    strip_snaps *snaps;  /* per strip: its vertices that snap */
} cut_scratch;

/* g's sizes and strips: STRIP rows, fewer and taller when many planes
 * would make the table of first ids (strips x planes) big. */
static void cut_plan(const strata_heightmap *hm, float scale, const float *L, uint32_t nL,
                     grid_job *g)
{
    const uint32_t w = strata_heightmap_width(hm), h = strata_heightmap_height(hm);
    *g = (grid_job){.w = w, .h = h, .nx = w - 1, .nz = h - 1, .L = L, .nL = nL, .scale = scale};
    const uint64_t most = (1u << 22) / nL > 1 ? (1u << 22) / nL - 1 : 1;
    g->strip = (uint32_t)((g->nz + most - 1) / most);
    g->strip = g->strip < STRIP ? STRIP : g->strip;
    g->nstrip = (g->nz + g->strip - 1) / g->strip;
}

/* Phase 1's room: the grid's coordinates (g->xs, g->zs), g->first and the
 * scratch in the bag, each thread's buffers and group ids. */
static strata_status cut_setup(strata_ctx *ctx, const strata_heightmap *hm, float cell, bag *b,
                               grid_job *g, cut_scratch *cs)
{
    const uint32_t w = g->w, h = g->h, nL = g->nL;
    const int T = cs->T = ctx->threads;
    const strata_allocator *al = &ctx->alloc;
    cs->data = strata_heightmap_data(hm);
    float *xs = bag_alloc(b, w, sizeof(float)), *zs = bag_alloc(b, h, sizeof(float));
    cs->sb = bag_alloc(b, (size_t)T, sizeof(strip_buf));
    const size_t rows = ((size_t)g->strip + 3) * w;
    cs->hbuf = bag_alloc(b, cs->data ? 1 : (size_t)T * rows, sizeof(float));
    cs->bbuf = bag_alloc(b, (size_t)T * rows, sizeof(uint16_t));
    cs->obuf = bag_alloc(b, (size_t)T * rows, 1);
    cs->rbuf = bag_alloc(b, (size_t)T * w, sizeof(float));
    cs->pl = bag_alloc(b, (size_t)T * (3 * (size_t)nL + 1), sizeof(uint32_t));
    cs->at = bag_alloc(b, (size_t)T * 4 * w, sizeof(uint32_t));
    cs->gi = bag_alloc(b, (size_t)T * 4, sizeof(group_ids));
    cs->sts = bag_alloc(b, (size_t)T, sizeof(strata_status));
    g->first = bag_alloc(b, ((size_t)g->nstrip + 1) * nL, sizeof(uint32_t));
    cs->snaps = bag_alloc(b, g->nstrip, sizeof(strip_snaps));
    if (!xs || !zs || !cs->sb || !cs->hbuf || !cs->bbuf || !cs->obuf || !cs->rbuf || !cs->pl ||
        !cs->at || !cs->gi || !cs->sts || !g->first || !cs->snaps)
        return STRATA_ERR_NOMEM;
    memset(cs->gi, 0, (size_t)T * 4 * sizeof *cs->gi);
    memset(cs->snaps, 0, (size_t)g->nstrip * sizeof *cs->snaps);
    for (int t = 0; t < T; t++) {
        cs->sb[t] = (strip_buf){cs->data ? NULL : cs->hbuf + (size_t)t * rows,
                                cs->bbuf + (size_t)t * rows, cs->obuf + (size_t)t * rows,
                                cs->rbuf + (size_t)t * w, NULL, NULL, 0, 0, 0, 0};
        cs->sts[t] = STRATA_OK;
        for (int q = 0; q < 4; q++) {
            group_ids *e = &cs->gi[4 * t + q];
            *e = (group_ids){cs->at + ((size_t)4 * t + q) * w, NULL, 0};
            if ((e->ids = strata__alloc_array(al, w, sizeof(uint32_t))))
                e->cap = w;
        }
    }
    for (int t = 0; t < 4 * T; t++)
        if (!cs->gi[t].ids) {
            for (int u = 0; u < 4 * T; u++)
                strata__free(al, cs->gi[u].ids);
            return STRATA_ERR_NOMEM;
        }
    for (uint32_t i = 0; i < w; i++)
        xs[i] = strata__grid_coord(i, g->nx, cell);
    for (uint32_t j = 0; j < h; j++)
        zs[j] = strata__grid_coord(j, g->nz, cell);
    g->xs = xs;
    g->zs = zs;
    return STRATA_OK;
}

static void cut_free(const strata_allocator *al, const grid_job *g, cut_scratch *cs)
{
    for (int t = 0; t < 4 * cs->T; t++)
        strata__free(al, cs->gi[t].ids);
    for (int t = 0; t < cs->T; t++) {
        strata__free(al, cs->sb[t].lands);
        strata__free(al, cs->sb[t].near);
    }
    for (uint32_t si = 0; si < g->nstrip; si++)
        strata__free(al, cs->snaps[si].key);
}

/* The status the threads report: the first thread's failure, if any. */
static strata_status threads_status(const cut_scratch *cs)
{
    for (int t = 0; t < cs->T; t++)
        if (cs->sts[t] != STRATA_OK)
            return cs->sts[t];
    return STRATA_OK;
}

/* Phases 2 classify and 3 count, a strip at a time (threads): each
 * strip's crossings of each plane in g->first, its snaps kept; corner
 * (0, 0)'s band.  A height not finite is NOT_FINITE. */
static strata_status count_strips(strata_ctx *ctx, const strata_heightmap *hm, grid_job *g,
                                  cut_scratch *cs)
{
    const int64_t nstrip = g->nstrip;
    const uint32_t S = g->strip, nL = g->nL;
    int nonfinite = 0;
#pragma omp parallel num_threads(cs->T) reduction(| : nonfinite)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num();
#else
        const int t = 0;
#endif
        grid_job gt = *g;
        uint32_t *diff = cs->pl + (size_t)t * (3 * (size_t)nL + 1);
#pragma omp for schedule(dynamic, 1)
        for (int64_t si = 0; si < nstrip; si++) {
            const uint32_t j0 = (uint32_t)si * S;
            const uint32_t j1 = j0 + S < g->nz ? j0 + S : g->nz;
            const strata_status st = strip_load(ctx, hm, cs->data, &gt, &cs->sb[t], j0,
                                                j1 - j0 + 1, 1, &nonfinite);
            if (st != STRATA_OK)
                cs->sts[t] = st;
            else if (!nonfinite &&
                     !count_snap_strip(&ctx->alloc, &gt, &cs->sb[t], j0, j1, diff,
                                       g->first + (size_t)si * nL, &cs->snaps[si]))
                cs->sts[t] = STRATA_ERR_NOMEM;
            else if (si == 0)
                g->corner_band = cs->sb[t].band[0]; /* loaded from row 0, snapped */
        }
    }
    const strata_status st = threads_status(cs);
    if (st != STRATA_OK)
        return st;
    return nonfinite ? STRATA_ERR_NOT_FINITE : STRATA_OK;
}

/* The counts become first ids: plane by plane, strip by strip; *C in
 * all. */
static strata_status first_ids(grid_job *g, uint64_t *C)
{
    const uint32_t nL = g->nL;
    uint64_t n = 0;
    for (uint32_t k = 0; k < nL; k++) {
        for (uint32_t si = 0; si < g->nstrip; si++) {
            uint32_t *f = &g->first[(size_t)si * nL + k];
            const uint32_t cnt = *f;
            *f = (uint32_t)n;
            n += cnt;
        }
        if (n >= UINT32_MAX)
            return STRATA_ERR_OVERFLOW;
        g->first[(size_t)g->nstrip * nL + k] = (uint32_t)n;
    }
    *C = n;
    return STRATA_OK;
}

/* Phase 4: the n crossings (g->c, and g->vert with keep_vert, in the
 * bag) placed and linked, a strip at a time (threads), each strip loaded
 * again and its snaps applied; then the strips' buffers freed. */
static strata_status cut_strips(strata_ctx *ctx, const strata_heightmap *hm, uint64_t n,
                                int keep_vert, bag *b, grid_job *g, cut_scratch *cs)
{
    const int T = cs->T;
    const int64_t nstrip = g->nstrip;
    const uint32_t S = g->strip, nL = g->nL;
    g->c = bag_alloc(b, n, sizeof(struct crossing));
    if (!g->c || (keep_vert && !(g->vert = bag_alloc(b, n, sizeof(uint32_t)))))
        return STRATA_ERR_NOMEM;
    /* next NONE, hasprev and state 0, in parallel (first touch) */
#pragma omp parallel for num_threads(T) schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++) {
        g->c[i].next = NONE;
        g->c[i].hasprev = 0;
        g->c[i].state = 0;
    }
#pragma omp parallel num_threads(T)
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num();
#else
        const int t = 0;
#endif
        grid_job gt = *g;
        uint32_t *cur = cs->pl + (size_t)t * (3 * (size_t)nL + 1) + nL + 1, *next = cur + nL;
        int nf = 0;
#pragma omp for schedule(dynamic, 1)
        for (int64_t si = 0; si < nstrip; si++) {
            const uint32_t j0 = (uint32_t)si * S;
            const uint32_t j1 = j0 + S < g->nz ? j0 + S : g->nz;
            const strata_status st =
                strip_load(ctx, hm, cs->data, &gt, &cs->sb[t], j0, j1 - j0 + 1, 0, &nf);
            if (st != STRATA_OK) {
                cs->sts[t] = st;
                continue;
            }
            snaps_apply(&cs->snaps[si], cs->sb[t].band, cs->sb[t].on); /* loaded from row j0 */
            if (!cut_strip(&gt, &ctx->alloc, (uint32_t)si, j0, j1, cur, next, cs->gi + 4 * t))
                cs->sts[t] = STRATA_ERR_NOMEM;
        }
    }
    const strata_status st = threads_status(cs);
    if (st != STRATA_OK)
        return st;
    bag_free(b, cs->hbuf);
    bag_free(b, cs->bbuf);
    bag_free(b, cs->obuf);
    bag_free(b, cs->rbuf);
    bag_free(b, cs->at);
    return STRATA_OK;
}

/* Phases 1-4: g's crossings placed and linked (g->c, *C of them, g->first
 * their planes' stretches, in the bag; and g->vert with keep_vert). */
static strata_status cut(strata_ctx *ctx, const strata_heightmap *hm, float cell, float scale,
                         const float *L, uint32_t nL, int keep_vert, bag *b, grid_job *g,
                         uint64_t *C)
{
    cut_plan(hm, scale, L, nL, g);
    cut_scratch cs;
    memset(&cs, 0, sizeof cs);
    strata_status st = cut_setup(ctx, hm, cell, b, g, &cs);
    if (st != STRATA_OK)
        return st;
    st = count_strips(ctx, hm, g, &cs);
    if (st == STRATA_OK)
        st = strata__progress(ctx, "loops", 0.2);
    if (st == STRATA_OK)
        st = first_ids(g, C);
    if (st == STRATA_OK)
        st = strata__progress(ctx, "loops", 0.3);
    if (st == STRATA_OK)
        st = cut_strips(ctx, hm, *C, keep_vert, b, g, &cs);
    if (st == STRATA_OK)
        st = strata__progress(ctx, "loops", 0.7);
    cut_free(&ctx->alloc, g, &cs);
    return st;
}

static strata_status run(strata_ctx *ctx, const strata_heightmap *hm, float cell, float scale,
                         const float *L, uint32_t nL, bag *b, strata_loops *l)
{
    grid_job g;
    uint64_t C = 0;
    strata_status st = cut(ctx, hm, cell, scale, L, nL, 1, b, &g, &C);
    if (st != STRATA_OK)
        return st;
    /* 5 trace */
    l->x = strata__alloc_array(&l->alloc, C ? C : 1, sizeof(float));
    l->y = strata__alloc_array(&l->alloc, C ? C : 1, sizeof(float));
    l->z = strata__alloc_array(&l->alloc, C ? C : 1, sizeof(float));
    l->vertex = strata__alloc_array(&l->alloc, C ? C : 1, sizeof(uint32_t));
    if (!l->x || !l->y || !l->z || !l->vertex)
        return STRATA_ERR_NOMEM;
    l->has_corner = 1;
    l->corner[0] = g.xs[0];
    l->corner[1] = g.zs[0];
    l->corner_band = g.corner_band;
    if ((st = trace(ctx, &g, C, nL, b, l)) != STRATA_OK)
        return st;
    return strata__loops_canonical(l);
}

/* A slot of the stream: one plane's loops at a time. */
typedef struct {
    strata_loops l;
    uint64_t cap; /* points x, y, z, vertex hold */
    strata_status st;
} stream_slot;

static void slot_free(stream_slot *s)
{
    const strata_allocator *al = &s->l.alloc;
    strata__free(al, s->l.plane_first);
    strata__free(al, s->l.loops);
    strata__free(al, s->l.x);
    strata__free(al, s->l.y);
    strata__free(al, s->l.z);
    strata__free(al, s->l.vertex);
}

/* Plane k into slot s: traced (as trace() does), canonical, handed to
 * the sink. */
static void stream_plane(const grid_job *g, uint32_t c0, uint64_t n, uint32_t k,
                         stream_slot *s, const strata__plane_sink *sink, uint32_t slot)
{
    strata_loops *l = &s->l;
    const strata_allocator *al = &l->alloc;
    if (n > s->cap) {
        strata__free(al, l->x);
        strata__free(al, l->y);
        strata__free(al, l->z);
        strata__free(al, l->vertex);
        l->x = strata__alloc_array(al, n, sizeof(float));
        l->y = strata__alloc_array(al, n, sizeof(float));
        l->z = strata__alloc_array(al, n, sizeof(float));
        l->vertex = strata__alloc_array(al, n, sizeof(uint32_t));
        s->cap = l->x && l->y && l->z && l->vertex ? n : 0;
        if (!s->cap) {
            s->st = STRATA_ERR_NOMEM;
            return;
        }
    }
    plane_lines pl = {0};
    trace_plane(g, c0, n, k, l, 0, &pl);
    if (pl.nomem) {
        strata__free(al, pl.loops);
        s->st = STRATA_ERR_NOMEM;
        return;
    }
    l->loops = pl.loops;
    l->nloops = pl.nl;
    l->npoints = pl.np;
    if (!l->loops && !(l->loops = strata__alloc_array(al, 1, sizeof(strata_loop)))) {
        s->st = STRATA_ERR_NOMEM;
        return;
    }
    s->st = strata__loops_canonical(l);
    if (s->st == STRATA_OK)
        s->st = sink->plane(sink->arg, slot, l, k);
    strata__free(al, l->loops);
    l->loops = NULL;
}

/* Phase 5 streamed: nslots planes at a time, in parallel, then flushed
 * in order. */
static strata_status stream(strata_ctx *ctx, const grid_job *g, uint64_t C, uint32_t nL, bag *b,
                            const strata__plane_sink *sink)
{
    (void)C;
    uint64_t *off = plane_offsets(g, b);
    if (!off)
        return STRATA_ERR_NOMEM;
    strata_status st = STRATA_OK;
    const uint32_t S = sink->nslots;
    stream_slot *slots = bag_alloc(b, S, sizeof(stream_slot));
    if (!slots)
        return STRATA_ERR_NOMEM;
    memset(slots, 0, (size_t)S * sizeof(stream_slot));
    for (uint32_t i = 0; i < S; i++) {
        strata_loops *l = &slots[i].l;
        l->alloc = ctx->alloc;
        l->nplanes = nL;
        l->levels = (float *)(uintptr_t)g->L; /* read only */
        l->geometry = STRATA_FLAT;
        if (!(l->plane_first = strata__alloc_array(&ctx->alloc, (size_t)nL + 1, sizeof(uint64_t))))
            st = STRATA_ERR_NOMEM;
    }
    for (uint32_t k0 = 0; k0 < nL && st == STRATA_OK; k0 += S) {
        const uint32_t kn = nL - k0 < S ? nL - k0 : S;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 1)
        for (int64_t i = 0; i < (int64_t)kn; i++) {
            const uint32_t k = k0 + (uint32_t)i;
            stream_plane(g, (uint32_t)off[k], off[k + 1] - off[k], k, &slots[i], sink, (uint32_t)i);
        }
        for (uint32_t i = 0; i < kn && st == STRATA_OK; i++) {
            st = slots[i].st;
            if (st == STRATA_OK)
                st = sink->flush(sink->arg, i, k0 + i);
        }
    }
    for (uint32_t i = 0; i < S; i++)
        slot_free(&slots[i]);
    return st;
}

/* What strata_loops_from_heightmap checks of its arguments. */
static strata_status check_args(strata_ctx *ctx, const strata_heightmap *hm, float cell_size,
                                float height_scale, const float *levels, uint32_t nlevels)
{
    if (!ctx || !hm || !(cell_size > 0.0f) || !isfinite(cell_size) || !isfinite(height_scale))
        return STRATA_ERR_INVALID_ARG;
    strata_status st = strata_levels_validate(levels, nlevels);
    if (st != STRATA_OK)
        return st;
    return strata__heightmap_check_dims(strata_heightmap_width(hm), strata_heightmap_height(hm));
}

strata_status strata__loops_grid_stream(strata_ctx *ctx, const strata_heightmap *hm,
                                        float cell_size, float height_scale, const float *levels,
                                        uint32_t nlevels, const strata__plane_sink *sink)
{
    strata_status st = check_args(ctx, hm, cell_size, height_scale, levels, nlevels);
    if (st != STRATA_OK)
        return st;
    if (!sink || !sink->nslots || (st = strata__progress(ctx, "loops", 0.0)) != STRATA_OK)
        return sink ? st : STRATA_ERR_INVALID_ARG;
    strata__bind_threads(ctx);
    bag b = {.al = &ctx->alloc};
    grid_job g;
    uint64_t C = 0;
    st = cut(ctx, hm, cell_size, height_scale, levels, nlevels, 0, &b, &g, &C);
    if (st == STRATA_OK)
        st = stream(ctx, &g, C, nlevels, &b, sink);
    for (int i = 0; i < b.n; i++)
        strata__free(&ctx->alloc, b.p[i]);
    return st; /* the sink reports the rest (stage "write") */
}

strata_status strata_loops_from_heightmap(strata_ctx *ctx, const strata_heightmap *hm,
                                          float cell_size, float height_scale,
                                          const float *levels, uint32_t nlevels,
                                          strata_loops **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    strata_status st = check_args(ctx, hm, cell_size, height_scale, levels, nlevels);
    if (st != STRATA_OK)
        return st;
    if ((st = strata__progress(ctx, "loops", 0.0)) != STRATA_OK)
        return st;
    strata__bind_threads(ctx);
    const strata_allocator *al = &ctx->alloc;
    strata_loops *l = strata__alloc(al, sizeof *l);
    if (!l)
        return STRATA_ERR_NOMEM;
    memset(l, 0, sizeof *l);
    l->alloc = *al;
    l->nplanes = nlevels;
    l->geometry = STRATA_FLAT;
    l->levels = strata__alloc_array(al, nlevels, sizeof(float));
    l->plane_first = strata__alloc_array(al, (size_t)nlevels + 1, sizeof(uint64_t));
    if (!l->levels || !l->plane_first) {
        strata_loops_destroy(l);
        return STRATA_ERR_NOMEM;
    }
    memcpy(l->levels, levels, nlevels * sizeof(float));
    bag b = {.al = al};
    st = run(ctx, hm, cell_size, height_scale, levels, nlevels, &b, l);
    for (int i = 0; i < b.n; i++)
        strata__free(al, b.p[i]);
    if (st == STRATA_OK)
        st = strata__progress(ctx, "loops", 1.0);
    if (st != STRATA_OK) {
        strata_loops_destroy(l);
        return st;
    }
    *out = l;
    return STRATA_OK;
}
