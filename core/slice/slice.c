/* The slicer: bands, not stacks (docs/DESIGN.md).  Scalar reference.
 *
 * Three words, three things: a plane height L[k] is where terrace k's
 * roofs lie; a vertex's band is the k with L[k] <= h < L[k+1] (0 below
 * L[0]); a lattice level (an icosphere's subdivision) has no business
 * here.  Band k is flattened onto plane k; plane k separates bands k-1
 * and k.
 *
 * strata_slice is a driver (run_phases) calling these phases in order,
 * each a function taking the job (what every phase reads) and giving
 * what it makes in a small struct:
 *
 *   1 classify_vertices      each vertex's band, and whether it lies
 *                            exactly on its plane (a kernel)
 *   2 strata__onplane_build  only with vertices on planes: their wedges
 *                            and fins (the rare path, slice_onplane.c)
 *   3 number_crossings       ids of every edge's crossings (prefix sum);
 *                            then the vertices within rounding of a
 *                            plane snap onto it (strata__onplane_snap,
 *                            over the crossing edges), and if any did,
 *                            2 and 3 again
 *   4 pass_a                 one-band triangles counted, the others cut
 *                            into per-thread arenas
 *   5 lay_out                write offsets per chunk and bucket; the
 *                            result allocated
 *   6 place_vertices         the output positions
 *   7 pass_b                 the triangles written at their offsets
 *   8 finish                 areas, normals, the arenas' figures
 *
 * Scratch memory comes from two arenas (slice_scratch.h), one per
 * lifetime, each released in one call.
 *
 * A mesh may carry context (strata_mesh.ghost_*, core/mesh/lattice.h): its
 * last vertices, edges and triangles surround the rest, its own part.
 * Every phase that looks across an edge or around a vertex (the wedges
 * and fins of slice_onplane.c) reads them as the whole surface has them;
 * nothing is numbered, placed or written for them.  Own triangles use
 * own vertices and edges only and context ids come after own ones, so
 * "own" is a bound on the id: V, E and T below count own vertices,
 * edges and triangles (all of them without context).
 *
 * Output vertex ids:
 *   [0, V)          the roof copy of input vertex v, at L[band(v)]
 *   [V, V+P)        bottom copies (at L[band-1]) of input vertices lying
 *                   on their plane (h == L[band], band > 0, or snapped
 *                   onto it, slice_onplane.h): one
 *                   per lower wedge around such a vertex (slice_onplane.h)
 *                   that has an own edge, numbered in the order of the
 *                   wedges' smallest edge id
 *   [V+P, ...)      two per interior plane crossing of each own edge (top
 *                   copy at L[k], bottom copy at L[k-1]), numbered by a
 *                   prefix sum over edges, planes ascending
 *   (normals only)  four per wall quad, appended in index order
 * Every one of them is used by an output triangle but the roof copy of a
 * vertex on its plane whose polygons all collapse onto it (a peak or
 * ridge exactly on a plane): roof copies keep the input's ids.
 *
 * A crossing exactly at the high end q of an edge (h(q) == L[k]) is not a
 * new point: its top copy is q itself, its bottom copy that of q's wedge
 * the edge leads into.  Polygons and walls that collapse onto q are
 * dropped, so no triangle has zero area.  A vertex that a crossing would
 * come within rounding of (a hair above a plane, or below the next) is
 * snapped onto that plane first and goes the same way: no crossing is
 * computed that could round onto a vertex.
 *
 * Triangles are processed in fixed-size chunks, which threads take in
 * any order.  Pass A: a kernel marks the triangles lying inside one band
 * (most of them), which are only counted per output bucket (terrace x
 * roof/wall); the others are cut here into tagged triangles in the
 * running thread's arena.  Prefix sums over buckets then chunks give
 * every chunk its write offsets.  Pass B: each chunk writes its one-band
 * triangles (input ids, found by pass A's marks) and then copies its
 * cut triangles from the arena, each to its bucket's cursor.  Within a
 * bucket the layout is therefore chunk by chunk in input order, a chunk's
 * one-band triangles before its cut ones, whatever the thread count.
 */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/mesh.h"
#include "mesh/result.h"
#include "base/topology.h"
#include "slice/slice_onplane.h"
#include "base/par.h"
#include "slice/slice_scratch.h"
#include "simd/slice.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

#define NONE UINT32_MAX

/* Vertices and edges per block of the parallel loops over them. */
#define PREFIX_BLOCK 65536

/* What every phase reads, and the scratch memory the phases allocate
 * from, by lifetime: `call` until strata_slice returns, `edges` (the
 * per-edge and on-plane tables) until the output vertices are placed, so
 * that pass B touches the index pages without them. */
typedef struct {
    strata_ctx *ctx;
    const strata_mesh *m;
    uint32_t own_verts, own_edges, own_tris; /* V, E, T: without context */
    const float *L; /* plane heights, ascending */
    uint32_t nplanes;
    strata_walls walls;
    int normals, areas;
    strata_scratch call, edges;
} slice_job;

/* ------------------------------------------------ 1. classify vertices */

/* Each input vertex's band, and whether it lies exactly on its plane. */
typedef struct {
    uint16_t *band; /* V + 1 (the kernels may read one past the end in
                       32-bit lanes); bands < 65535: 16 bits keep the
                       table in cache on big meshes */
    uint8_t *on;    /* V: h == L[band] and band > 0, or snapped onto
                       plane band (strata__onplane_snap) */
    uint64_t non;   /* vertices with on set */
} vertex_bands;

/* Bands, which vertices sit exactly on their plane, and whether any
 * height is NaN or infinite (STRATA_ERR_NOT_FINITE). */
typedef struct {
    const slice_job *job;
    vertex_bands *vb;
    atomic_uint_fast64_t non, nonfinite;
} classify_arg;

static strata_status classify_block(void *arg, size_t b, int thread)
{
    (void)thread;
    classify_arg *a = arg;
    const strata_mesh *m = a->job->m;
    const size_t i0 = b * PREFIX_BLOCK;
    const size_t nv = m->nverts - i0 < PREFIX_BLOCK ? m->nverts - i0 : PREFIX_BLOCK;
    uint64_t cnt[2] = {0, 0};
    a->job->ctx->simd.classify(a->job->L, a->job->nplanes, m->h + i0, nv, a->vb->band + i0,
                               a->vb->on + i0, cnt);
    atomic_fetch_add_explicit(&a->non, cnt[0], memory_order_relaxed);
    atomic_fetch_add_explicit(&a->nonfinite, cnt[1], memory_order_relaxed);
    return STRATA_OK;
}

static strata_status classify_vertices(slice_job *job, vertex_bands *out)
{
    const uint32_t V = job->m->nverts;
    out->band = strata__scratch_alloc(&job->call, (size_t)V + 1, sizeof(uint16_t));
    out->on = strata__scratch_alloc(&job->edges, V, 1);
    if (!out->band || !out->on)
        return STRATA_ERR_NOMEM;
    out->band[V] = 0;
    classify_arg a = {job, out, 0, 0};
    strata__par_blocks(job->ctx, ((size_t)V + PREFIX_BLOCK - 1) / PREFIX_BLOCK, classify_block,
                       &a, NULL, 0, 0, 0);
    out->non = atomic_load(&a.non);
    return atomic_load(&a.nonfinite) > 0 ? STRATA_ERR_NOT_FINITE : STRATA_OK;
}

/* ------------------------------------------------- 3. number crossings */

/* The ids of the edges' interior crossings (those not at a vertex on its
 * plane): the j-th from the edge's low end (j from 0) has its top copy at
 * id cut_base[e] + 2j and its bottom copy at the next id. */
typedef struct {
    uint32_t *cut_base; /* per edge; set only where the edge crosses a plane */
    uint64_t *cross;    /* bit e: edge e's ends are in different bands */
    uint32_t nverts;    /* output vertices, not counting the wall vertices
                           that normals add */
} crossing_ids;

/* Interior crossings of edge e (those not at a vertex lying on a plane). */
static inline uint32_t crossings(const strata_mesh *m, const uint16_t *band, const uint8_t *on,
                                 uint32_t e)
{
    const uint32_t p = m->ev0[e], q = m->ev1[e], bp = band[p], bq = band[q];
    if (bp == bq)
        return 0;
    return bp < bq ? bq - bp - on[q] : bp - bq - on[p];
}

/* Number the own edges' crossings after the roof copies and the wedges'
 * bottom copies: a blocked prefix sum (block totals in parallel, a short
 * serial scan over blocks, then each block numbers its own edges).
 * STRATA_ERR_OVERFLOW beyond 2^32-1 vertices. */
typedef struct {
    const slice_job *job;
    const vertex_bands *vb;
    const strata_onplane *op;
    uint64_t *blk; /* per block: its crossings' vertex count, then its first id */
    uint32_t *cut_base;
    uint64_t *cross;
    const strata_snap_scan *snap; /* the first count: also scan for snapping */
    uint32_t *snap_blk;           /* per block: strata__snap_count_own */
} number_arg;

static size_t edge_block_end(const slice_job *job, size_t b)
{
    const size_t e1 = (b + 1) * PREFIX_BLOCK;
    return e1 < job->own_edges ? e1 : job->own_edges;
}

static strata_status count_block(void *arg, size_t b, int thread)
{
    (void)thread;
    const number_arg *a = arg;
    const strata_mesh *m = a->job->m;
    const size_t e0 = b * PREFIX_BLOCK, e1 = edge_block_end(a->job, b);
    a->blk[b] = a->job->ctx->simd.edge_spans(m->ev0 + e0, m->ev1 + e0, e1 - e0, a->vb->band,
                                             a->cross + e0 / 64);
    if (a->snap) /* while the block's edges and bands are in cache */
        a->snap_blk[b] = strata__snap_count_own(a->snap, b);
    return STRATA_OK;
}

static strata_status number_block(void *arg, size_t b, int thread)
{
    (void)thread;
    const number_arg *a = arg;
    const strata_mesh *m = a->job->m;
    uint64_t at = a->blk[b];
    const size_t e0 = b * PREFIX_BLOCK, e1 = edge_block_end(a->job, b);
    for (size_t w = e0 / 64; w * 64 < e1; w++)
        for (uint64_t bits = a->cross[w]; bits; bits &= bits - 1) {
            const uint32_t e = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
            a->cut_base[e] = (uint32_t)(at > UINT32_MAX ? UINT32_MAX : at);
            at += 2 * (uint64_t)crossings(m, a->vb->band, a->vb->on, e);
        }
    return STRATA_OK;
}

/* The planes crossing each own edge, summed per block into na->blk, and
 * the bit of every edge whose ends are in different bands (na->cross);
 * the tables are allocated on the first call, which also counts the
 * crossings that may snap (na->snap_blk, for strata__onplane_snap, with
 * snap set up to read na->cross).  Bands change only by snapping a vertex
 * up a band, which calls for a second count (snap NULL). */
static strata_status count_spans(slice_job *job, const vertex_bands *vb, number_arg *na,
                                 strata_snap_scan *snap)
{
    _Static_assert(PREFIX_BLOCK == STRATA_SNAP_BLOCK, "the snap scan runs count_block's blocks");
    const size_t nblk = ((size_t)job->own_edges + PREFIX_BLOCK - 1) / PREFIX_BLOCK;
    if (!na->blk) {
        *na = (number_arg){job, vb, NULL, NULL, NULL, NULL, NULL, NULL};
        na->cut_base = strata__scratch_alloc(&job->edges, job->own_edges, sizeof(uint32_t));
        na->cross = strata__scratch_alloc(&job->edges, ((size_t)job->own_edges + 63) / 64,
                                          sizeof(uint64_t));
        na->blk = strata__scratch_alloc(&job->edges, nblk, sizeof(uint64_t));
        na->snap_blk = strata__scratch_alloc(&job->edges, nblk + 1, sizeof(uint32_t));
        if (!na->cut_base || !na->cross || !na->blk || !na->snap_blk)
            return STRATA_ERR_NOMEM;
    }
    if (snap)
        *snap = (strata_snap_scan){job->m, job->L, vb->band, vb->on, na->cross, job->own_edges};
    na->snap = snap;
    strata__par_blocks(job->ctx, nblk, count_block, na, NULL, 0, 0, 0);
    na->snap = NULL;
    return STRATA_OK;
}

/* Number the crossings counted by count_spans, the wedges' crossings at
 * their vertices (op) taken out. */
static strata_status number_crossings(slice_job *job, const strata_onplane *op, number_arg *na,
                                      crossing_ids *out)
{
    const size_t nblk = ((size_t)job->own_edges + PREFIX_BLOCK - 1) / PREFIX_BLOCK;
    na->op = op;
    uint64_t next = (uint64_t)job->own_verts + op->nbottom;
    for (size_t b = 0; b < nblk; b++) {
        const size_t e0 = b * PREFIX_BLOCK, e1 = edge_block_end(job, b);
        /* crossings at a vertex: the wedge edges in [e0, e1) */
        const uint64_t sum = na->blk[b] - (strata__onplane_rank(op, (uint32_t)e1) -
                                           strata__onplane_rank(op, (uint32_t)e0));
        na->blk[b] = next;
        next += 2 * sum;
    }
    strata__par_blocks(job->ctx, nblk, number_block, na, NULL, 0, 0, 0);
    if (next > UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    out->cut_base = na->cut_base;
    out->cross = na->cross;
    out->nverts = (uint32_t)next;
    return STRATA_OK;
}

/* ------------------------------------------------ cutting a triangle */

/* What the passes read (pass B only m, nplanes, walls and band). */
typedef struct {
    const strata_mesh *m;
    uint32_t ntris; /* own triangles: those written */
    uint32_t nplanes;
    strata_walls walls;
    const uint16_t *band;     /* per input vertex */
    const uint8_t *on;        /* per input vertex: lies on its plane */
    strata_onplane op;        /* wedges and fins (slice_onplane.h) */
    const uint32_t *cut_base; /* per own edge: id of its first interior
                                 crossing's top copy */
    uint32_t nverts;          /* own vertices: ids below are roof copies */
} slicer;

/* Top and bottom copies of the crossing of plane k on edge e, whose ends
 * are in bands band_lo < band_hi and whose high end is vertex q. */
typedef struct {
    uint32_t top, bot;
} cut;

static inline cut crossing(const slicer *s, uint32_t e, uint32_t k, uint32_t band_lo,
                           uint32_t band_hi, uint32_t q)
{
    cut c;
    if (k == band_hi && s->on[q]) {
        c.top = q;
        c.bot = strata__onplane_bottom(&s->op, e);
    } else {
        c.top = s->cut_base[e] + 2 * (k - band_lo - 1);
        c.bot = c.top + 1;
    }
    return c;
}

/* Output bucket of a roof or wall of terrace k. */
static inline uint32_t bucket(const slicer *s, uint32_t k, int wall)
{
    if (s->walls == STRATA_WALLS_SEPARATE)
        return wall ? s->nplanes + k : k;
    return 2 * k + (uint32_t)wall;
}

/* A cut triangle waiting in an arena: its bucket and corners. */
typedef struct {
    uint32_t bucket, v[3];
} tagged;

/* Per-thread working state of pass A, padded to its own cache lines:
 * the arena, and the staging list of the chunk being cut (reused chunk
 * after chunk, so it stays in cache; moved into the arena at chunk end). */
typedef struct {
    strata_arena arena;
    tagged *stage;
    size_t nstage, cap;
    uint64_t *gen; /* the chunk's row of cut-triangle counts (indices) */
    int nomem;
} worker;

/* Free w's staging list, or keep it in its arena's pool. */
static void drop_stage(worker *w)
{
    if (w->stage && w->arena.pool)
        strata__pool_put(w->arena.pool, w->stage, w->cap * sizeof *w->stage);
    else
        strata__free(w->arena.al, w->stage);
    w->stage = NULL;
}

/* Room for `more` staged triangles; 0 (and w->nomem set) without memory. */
static int reserve(worker *w, size_t more)
{
    if (STRATA_LIKELY(w->cap - w->nstage >= more))
        return 1;
    size_t cap = w->cap ? 2 * w->cap : 4096;
    while (cap - w->nstage < more)
        cap *= 2;
    size_t got = 0;
    tagged *n = w->arena.pool ? strata__pool_take(w->arena.pool, cap * sizeof *n, &got) : NULL;
    if (n)
        cap = got / sizeof *n;
    else if (!(n = strata__alloc_array(w->arena.al, cap, sizeof *n))) {
        w->nomem = 1;
        return 0;
    }
    if (w->nstage)
        memcpy(n, w->stage, w->nstage * sizeof *n);
    drop_stage(w);
    w->stage = n;
    w->cap = cap;
    return 1;
}

/* Stage one triangle (room reserved by the caller). */
static inline void emit(worker *w, uint32_t b, uint32_t p, uint32_t q, uint32_t r)
{
    w->stage[w->nstage++] = (tagged){b, {p, q, r}};
    w->gen[b] += 3;
}

/* Cut a triangle spanning more than one band into w's staging list. */
static void slice_triangle(const slicer *s, uint32_t t, worker *out)
{
    const strata_mesh *m = s->m;
    const uint32_t v[3] = {m->a[t], m->b[t], m->c[t]};
    const uint32_t band[3] = {s->band[v[0]], s->band[v[1]], s->band[v[2]]};
    const uint32_t e[3] = {m->e0[t], m->e1[t], m->e2[t]};
    uint32_t band_lo = band[0], band_hi = band[0];
    for (int i = 1; i < 3; i++) {
        band_lo = band[i] < band_lo ? band[i] : band_lo;
        band_hi = band[i] > band_hi ? band[i] : band_hi;
    }
    /* At most 3 roof triangles a band and 2 wall triangles a plane. */
    if (!reserve(out, 5 * ((size_t)band_hi - band_lo + 1)))
        return;
    /* Per side i (corner i to corner i+1): the bands of its low and high
     * end, and its high end. */
    uint32_t side_lo[3], side_hi[3], side_top[3];
#pragma GCC unroll 3
    for (int i = 0; i < 3; i++) {
        const int j = (i + 1) % 3;
        const int up = band[i] < band[j];
        side_lo[i] = up ? band[i] : band[j];
        side_hi[i] = up ? band[j] : band[i];
        side_top[i] = up ? v[j] : v[i];
    }

    for (uint32_t k = band_lo; k <= band_hi; k++) {
        /* Band k: walk the boundary a->b->c collecting its corners. */
        uint32_t poly[8];
        int np = 0;
#pragma GCC unroll 3
        for (int i = 0; i < 3; i++) {
            const int j = (i + 1) % 3;
            if (band[i] == k)
                poly[np++] = v[i];
            if (band[i] == band[j])
                continue;
            const int has_k = side_lo[i] < k && k <= side_hi[i];         /* plane k   */
            const int has_k1 = side_lo[i] < k + 1 && k + 1 <= side_hi[i]; /* plane k+1 */
            if (band[i] < band[j]) { /* ascending */
                if (has_k)
                    poly[np++] = crossing(s, e[i], k, side_lo[i], side_hi[i], side_top[i]).top;
                if (has_k1)
                    poly[np++] = crossing(s, e[i], k + 1, side_lo[i], side_hi[i], side_top[i]).bot;
            } else {
                if (has_k1)
                    poly[np++] = crossing(s, e[i], k + 1, side_lo[i], side_hi[i], side_top[i]).bot;
                if (has_k)
                    poly[np++] = crossing(s, e[i], k, side_lo[i], side_hi[i], side_top[i]).top;
            }
        }
        /* Drop repeated corners (crossings that are vertices, which only
         * vertices on planes make). */
        int nd = s->op.nwedge ? 0 : np;
        for (int i = 0; s->op.nwedge && i < np; i++)
            if (nd == 0 || poly[nd - 1] != poly[i])
                poly[nd++] = poly[i];
        while (s->op.nwedge && nd > 1 && poly[nd - 1] == poly[0])
            nd--;
        const uint32_t b = bucket(s, k, 0);
        for (int i = 1; i + 1 < nd; i++)
            emit(out, b, poly[0], poly[i], poly[i + 1]);
    }

    for (uint32_t k = band_lo + 1; k <= band_hi; k++) {
        /* Plane k leaves the triangle's boundary upward on one side (exit)
         * and comes back down on another (entry). */
        cut ci = {NONE, NONE}, cj = {NONE, NONE};
#pragma GCC unroll 3
        for (int i = 0; i < 3; i++) {
            if (!(side_lo[i] < k && k <= side_hi[i]))
                continue;
            const cut c = crossing(s, e[i], k, side_lo[i], side_hi[i], side_top[i]);
            if (band[i] < band[(i + 1) % 3])
                ci = c;
            else
                cj = c;
        }
        if (ci.top == cj.top)
            continue; /* both at one vertex on the plane: no wall */
        if (s->op.nfins && ci.top < s->nverts && cj.top < s->nverts) {
            /* Both ends are vertices: the wall stands on the side joining
             * them.  If it is a fin, both walls of it go. */
            int i = 0;
            while (!((v[i] == ci.top && v[(i + 1) % 3] == cj.top) ||
                     (v[i] == cj.top && v[(i + 1) % 3] == ci.top)))
                i++;
            if (strata__onplane_is_fin(&s->op, e[i]))
                continue;
        }
        const uint32_t b = bucket(s, s->walls == STRATA_WALLS_LOWER ? k - 1 : k, 1);
        emit(out, b, cj.bot, ci.bot, ci.top);
        emit(out, b, cj.bot, ci.top, cj.top);
    }
}

/* ------------------------------------------------------------ chunks */

/* The end of the run of equal marks that starts at i (four marks a step
 * while they match). */
static inline uint32_t run_end(const uint16_t *mark, uint32_t i, uint32_t nb)
{
    const uint16_t k = mark[i];
    const uint64_t kk = k * UINT64_C(0x0001000100010001);
    uint32_t j = i + 1;
    for (; j + 4 <= nb; j += 4) {
        uint64_t v;
        memcpy(&v, mark + j, sizeof v);
        if (v != kk) /* little- or big-endian: find the first differing mark */
            break;
    }
    while (j < nb && mark[j] == k)
        j++;
    return j;
}

/* Pass A on chunk c (triangles t0..t1): mark them (mark[t - t0]: the
 * band of a one-band triangle, else STRATA_MULTI_BAND), count one-band
 * triangles into fast[] (indices per bucket), cut the others into w's
 * arena, counted into w->gen; *out_cut gets them (NULL when none). */
static void chunk_pass_a(strata_ctx *ctx, const slicer *s, uint32_t t0, uint32_t t1,
                         uint16_t *mark, uint64_t *fast, worker *w, tagged **out_cut)
{
    const strata_mesh *m = s->m;
    const uint32_t roof_step = s->walls == STRATA_WALLS_SEPARATE ? 1 : 2;
    const uint32_t nt = t1 - t0;
    w->nstage = 0;
    ctx->simd.tri_levels(m->a + t0, m->b + t0, m->c + t0, nt, s->band, mark);
    for (uint32_t i = 0, j; i < nt; i = j) { /* runs of one mark */
        j = run_end(mark, i, nt);
        if (STRATA_LIKELY(mark[i] != STRATA_MULTI_BAND))
            fast[mark[i] * roof_step] += 3 * (uint64_t)(j - i);
        else
            for (uint32_t t = i; t < j; t++)
                slice_triangle(s, t0 + t, w);
    }
    *out_cut = NULL;
    if (w->nstage && !w->nomem) {
        *out_cut = strata__arena_alloc(&w->arena, w->nstage * sizeof(tagged));
        if (*out_cut)
            memcpy(*out_cut, w->stage, w->nstage * sizeof(tagged));
        else
            w->nomem = 1;
    }
}

/* Area of an output triangle (a flat mesh's roofs: their shadow's). */
static inline double tri_area(const strata_result *r, int flat_roof, const uint32_t *v)
{
    double n[3];
    strata__tri_cross(r->x, r->y, r->z, v[0], v[1], v[2], n);
    if (flat_roof)
        return 0.5 * fabs(n[1]);
    return 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

/* Pass B on chunk c: write its one-band triangles (by pass A's marks)
 * and then its cut triangles (ncut of them at cuts) at the cursors `at`
 * (indices per bucket, advanced), summing their areas per bucket into
 * area[]. */
static void chunk_pass_b(const slicer *s, uint32_t t0, uint32_t t1, const uint16_t *mark,
                         const tagged *cuts, uint64_t ncut, uint64_t *at, double *area,
                         strata_result *r)
{
    const strata_mesh *m = s->m;
    const int flat = m->geometry == STRATA_FLAT;
    const uint32_t roof_step = s->walls == STRATA_WALLS_SEPARATE ? 1 : 2;
    uint32_t *idx = r->indices;
    const uint32_t nt = t1 - t0;
    const uint32_t *const a = m->a + t0, *const bb = m->b + t0, *const c = m->c + t0;
    for (uint32_t i = 0, j; i < nt; i = j) { /* runs of one mark */
        j = run_end(mark, i, nt);
        if (mark[i] == STRATA_MULTI_BAND)
            continue;
        const uint32_t b = mark[i] * roof_step;
        uint32_t *const o = idx + at[b];
        for (uint32_t t = i, k = 0; t < j; t++, k += 3) {
            o[k] = a[t];
            o[k + 1] = bb[t];
            o[k + 2] = c[t];
        }
        at[b] += 3 * (uint64_t)(j - i);
        for (uint32_t k = 0; area && k < 3 * (j - i); k += 3)
            area[b] += tri_area(r, flat, o + k);
    }
    for (uint64_t i = 0; i < ncut; i++) {
        const uint32_t b = cuts[i].bucket;
        uint32_t *o = idx + at[b];
        o[0] = cuts[i].v[0];
        o[1] = cuts[i].v[1];
        o[2] = cuts[i].v[2];
        at[b] += 3;
        if (!area)
            continue;
        const int wall = s->walls == STRATA_WALLS_SEPARATE ? b >= s->nplanes : (b & 1u);
        area[b] += tri_area(r, flat && !wall, o);
    }
}

/* The per-chunk tables of both passes and the workers of pass A. */
typedef struct {
    uint64_t chunk;
    int64_t nchunks;
    uint32_t nb;       /* buckets */
    size_t stride;     /* row length of the tables: nb rounded up to a
                          cache line, so chunks never share one */
    uint64_t *fast;    /* nchunks x nb: one-band indices, then offsets */
    uint64_t *gen;     /* nchunks x nb: cut indices */
    double *area;      /* nchunks x nb */
    uint16_t *mark;    /* per own triangle: pass A's mark (chunk_pass_a) */
    tagged **cut;      /* per chunk: its cut triangles in an arena */
    uint64_t *ncut;    /* per chunk */
    worker *workers;   /* per thread */
    strata_pool *pool;          /* NULL, or the workers' arenas' pool */
    const strata_allocator *al; /* the workers' arenas' */
} chunk_tables;

/* Run pass A (r == NULL) or B over all chunks, in one parallel region:
 * threads take chunks as they come (core/base/par.h), and the calling thread
 * reports progress between p0 and p1 about 20 times a pass and checks
 * the cancel flag.  Every chunk has its own rows of the tables, and pass
 * B copies each chunk's cut triangles from wherever pass A put them, so
 * which thread runs a chunk changes when work is done, never the bytes. */
typedef struct {
    strata_ctx *ctx;
    const slicer *s;
    chunk_tables *ct;
    strata_result *r; /* NULL: pass A */
} chunks_arg;

static strata_status chunk_block(void *arg, size_t c, int thread)
{
    const chunks_arg *a = arg;
    const slicer *s = a->s;
    chunk_tables *ct = a->ct;
    const uint64_t end = (uint64_t)(c + 1) * ct->chunk;
    const uint32_t t0 = (uint32_t)((uint64_t)c * ct->chunk),
                   t1 = (uint32_t)(end < s->ntris ? end : s->ntris);
    const size_t row = c * ct->stride;
    if (a->r) {
        chunk_pass_b(s, t0, t1, ct->mark + t0, ct->cut[c], ct->ncut[c], ct->fast + row,
                     ct->area ? ct->area + row : NULL, a->r);
        return STRATA_OK;
    }
    worker *w = &ct->workers[thread];
    w->gen = ct->gen + row;
    chunk_pass_a(a->ctx, s, t0, t1, ct->mark + t0, ct->fast + row, w, &ct->cut[c]);
    ct->ncut[c] = w->nomem ? 0 : w->nstage;
    return w->nomem ? STRATA_ERR_NOMEM : STRATA_OK;
}

static strata_status slice_chunks(strata_ctx *ctx, const slicer *s, chunk_tables *ct,
                                  strata_result *r, double p0, double p1)
{
    chunks_arg a = {ctx, s, ct, r};
    const size_t nchunks = (size_t)ct->nchunks;
    const strata_status st = strata__par_blocks(ctx, nchunks, chunk_block, &a, "slice", p0, p1,
                                                (nchunks + 19) / 20);
    return st != STRATA_OK ? st : strata__progress(ctx, "slice", p1);
}

/* Free the workers' arenas and staging lists. */
static void release_workers(chunk_tables *ct, int threads)
{
    for (int i = 0; ct->workers && i < threads; i++) {
        strata__arena_free(&ct->workers[i].arena);
        drop_stage(&ct->workers[i]);
    }
}

/* ------------------------------------------------------------ 4. pass A */

/* Plan the chunks, allocate their tables and workers, and run pass A:
 * one-band triangles counted into ct->fast, the others cut into the
 * workers' arenas (ct->cut, ct->ncut), counted into ct->gen.  The chunk
 * size is a function of T and nplanes alone (it shapes the layout, see
 * the top of this file), chosen to keep the per-chunk tables bounded. */
static strata_status pass_a(slice_job *job, const slicer *s, chunk_tables *ct)
{
    strata_ctx *ctx = job->ctx;
    const uint32_t T = job->own_tris, nb = 2 * job->nplanes;
    ct->nb = nb;
    ct->stride = ((size_t)nb + 7) & ~(size_t)7;
    ct->chunk = 16384;
    while (((uint64_t)T + ct->chunk - 1) / ct->chunk * nb > (2u << 20) && ct->chunk < (1u << 30))
        ct->chunk *= 2;
    ct->nchunks = T ? (int64_t)(((uint64_t)T + ct->chunk - 1) / ct->chunk) : 0;
    const size_t cells = (size_t)(ct->nchunks ? ct->nchunks : 1) * ct->stride;
    ct->fast = strata__scratch_alloc(&job->call, cells, sizeof(uint64_t));
    ct->gen = strata__scratch_alloc(&job->call, cells, sizeof(uint64_t));
    ct->mark = strata__scratch_alloc(&job->call, T, sizeof(uint16_t));
    ct->cut = strata__scratch_alloc(&job->call, (size_t)ct->nchunks, sizeof(tagged *));
    ct->ncut = strata__scratch_alloc(&job->call, (size_t)ct->nchunks, sizeof(uint64_t));
    ct->workers = strata__scratch_alloc(&job->call, (size_t)ctx->threads, sizeof(worker));
    if (ct->workers) {
        memset(ct->workers, 0, (size_t)ctx->threads * sizeof(worker));
        for (int i = 0; i < ctx->threads; i++) {
            strata__arena_init(&ct->workers[i].arena, ct->al);
            ct->workers[i].arena.pool = ct->pool;
        }
    }
    if (!ct->fast || !ct->gen || !ct->mark || !ct->cut || !ct->ncut || !ct->workers)
        return STRATA_ERR_NOMEM;
    memset(ct->fast, 0, cells * sizeof(uint64_t));
    memset(ct->gen, 0, cells * sizeof(uint64_t));
    return slice_chunks(ctx, s, ct, NULL, 0.3, 0.5);
}

/* ----------------------------------------------------------- 5. lay out */

/* Offsets: buckets in output order, chunks in input order; the one-band
 * table becomes the table of offsets.  Then the result's room (its arrays
 * reused when big enough), with its terrace table from the first chunk's
 * offsets of each bucket.  STRATA_ERR_OVERFLOW beyond 2^32-1 vertices. */
static strata_status lay_out(slice_job *job, const slicer *s, chunk_tables *ct,
                             uint32_t nbase_verts, strata_result *r)
{
    const strata_mesh *m = job->m;
    const uint32_t nb = ct->nb, nplanes = job->nplanes;
    uint64_t total = 0, wall_indices = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const int is_wall = job->walls == STRATA_WALLS_SEPARATE ? b >= nplanes : (b & 1u);
        for (int64_t c = 0; c < ct->nchunks; c++) {
            uint64_t *cell = &ct->fast[(size_t)c * ct->stride + b];
            const uint64_t cnt = *cell + ct->gen[(size_t)c * ct->stride + b];
            *cell = total;
            total += cnt;
            if (is_wall)
                wall_indices += cnt;
        }
    }
    const uint64_t nverts_out = nbase_verts + (job->normals ? 4 * (wall_indices / 6) : 0);
    if (nverts_out > UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    const strata_status st =
        strata__result_reserve(r, (uint32_t)nverts_out, total, nplanes, job->normals);
    if (st != STRATA_OK)
        return st;
    r->walls = job->walls;
    r->roof_verts = job->own_verts;
    r->geometry = m->geometry;
    memcpy(r->center, m->center, sizeof r->center);
    r->radius = m->radius;
    for (uint32_t k = 0; k < nplanes; k++) {
        strata_terrace *tr = &r->terraces[k];
        const uint32_t br = bucket(s, k, 0), bw = bucket(s, k, 1);
        const uint64_t end_r = br + 1 < nb ? (ct->nchunks ? ct->fast[br + 1] : 0) : total;
        const uint64_t end_w = bw + 1 < nb ? (ct->nchunks ? ct->fast[bw + 1] : 0) : total;
        tr->level = job->L[k];
        tr->roof_first = ct->nchunks ? ct->fast[br] : 0;
        tr->roof_count = end_r - tr->roof_first;
        tr->wall_first = ct->nchunks ? ct->fast[bw] : 0;
        tr->wall_count = end_w - tr->wall_first;
    }
    return STRATA_OK;
}

/* ---------------------------------------------------- 6. place vertices */

/* Roof copies (a kernel), crossings (both copies, computed from the
 * edge's low end to its high end, so that both triangles of the edge get
 * the same bits), and the wedges' bottom copies.  One region: blocks of
 * vertices first, then blocks of edges. */
typedef struct {
    const slice_job *job;
    const vertex_bands *vb;
    const crossing_ids *cr;
    strata_place g;
    size_t nvblk;
    strata_result *r;
} place_arg;

static strata_status place_block(void *arg, size_t b, int thread)
{
    (void)thread;
    const place_arg *a = arg;
    const slice_job *job = a->job;
    const strata_mesh *m = job->m;
    const float *L = job->L;
    const uint16_t *band = a->vb->band;
    strata_result *r = a->r;
    if (b < a->nvblk) {
        const size_t i0 = b * PREFIX_BLOCK;
        const size_t nv = job->own_verts - i0 < PREFIX_BLOCK ? job->own_verts - i0 : PREFIX_BLOCK;
        job->ctx->simd.place_roofs(&a->g, L, m->x + i0, m->y + i0, m->z + i0, band + i0, nv,
                                   r->x + i0, r->y + i0, r->z + i0);
        return STRATA_OK;
    }
    b -= a->nvblk;
    const size_t e0 = b * PREFIX_BLOCK, e1 = edge_block_end(job, b);
    for (size_t w = e0 / 64; w * 64 < e1; w++)
        for (uint64_t bits = a->cr->cross[w]; bits; bits &= bits - 1) {
            const size_t e = w * 64 + (size_t)__builtin_ctzll(bits);
            uint32_t p = m->ev0[e], q = m->ev1[e];
            if (band[p] > band[q]) { /* canonical direction: low to high */
                uint32_t tmp = p;
                p = q;
                q = tmp;
            }
            const uint32_t top = band[q] - a->vb->on[q]; /* the highest plane inside the edge */
            const float hp = m->h[p], dh = m->h[q] - m->h[p];
            const float dx = m->x[q] - m->x[p], dy = m->y[q] - m->y[p], dz = m->z[q] - m->z[p];
            uint32_t o = a->cr->cut_base[e];
            for (uint32_t k = band[p] + 1; k <= top; k++, o += 2) {
                const float t = (L[k] - hp) / dh;
                const float px = m->x[p] + t * dx, py = m->y[p] + t * dy, pz = m->z[p] + t * dz;
                strata__place_point(&a->g, px, py, pz, L[k], &r->x[o], &r->y[o], &r->z[o]);
                strata__place_point(&a->g, px, py, pz, L[k - 1], &r->x[o + 1], &r->y[o + 1],
                                    &r->z[o + 1]);
            }
        }
    return STRATA_OK;
}

static void place_vertices(slice_job *job, const vertex_bands *vb, const strata_onplane *op,
                           const crossing_ids *cr, strata_result *r)
{
    const strata_mesh *m = job->m;
    place_arg a = {job,
                   vb,
                   cr,
                   {m->geometry, {m->center[0], m->center[1], m->center[2]}, m->radius},
                   ((size_t)job->own_verts + PREFIX_BLOCK - 1) / PREFIX_BLOCK,
                   r};
    const size_t neblk = ((size_t)job->own_edges + PREFIX_BLOCK - 1) / PREFIX_BLOCK;
    strata__par_blocks(job->ctx, a.nvblk + neblk, place_block, &a, NULL, 0, 0, 0);
    if (op->nwedge)
        strata__onplane_place(job->ctx, op, m, vb->band, job->L, &a.g, r->x, r->y, r->z);
}

/* ------------------------------------------------------------ 7. pass B */

/* The triangles written at their offsets (and their areas summed per
 * chunk and bucket, when asked for). */
static strata_status pass_b(slice_job *job, const slicer *s, chunk_tables *ct, strata_result *r)
{
    if (job->areas) {
        const size_t cells = (size_t)(ct->nchunks ? ct->nchunks : 1) * ct->stride;
        ct->area = strata__scratch_alloc(&job->call, cells, sizeof(double));
        if (!ct->area)
            return STRATA_ERR_NOMEM;
        memset(ct->area, 0, cells * sizeof(double));
    }
    return slice_chunks(job->ctx, s, ct, r, 0.6, 0.85);
}

/* ------------------------------------------------------------ 8. finish */

/* A wall quad's unit normal: that of its first triangle, else of its
 * second; a quad of no area gets the surface normal there, so every
 * normal has unit length (glTF requires it).  Heights within rounding of
 * a plane no longer make such quads (they are snapped onto it); input
 * corners at one spot (x, z) with different heights still can. */
static void wall_normal(const strata_result *r, const strata_mesh *m, const uint32_t src[4],
                        double n[3])
{
    strata__tri_normal(r->x, r->y, r->z, src[0], src[1], src[2], n);
    if (n[0] != 0 || n[1] != 0 || n[2] != 0)
        return;
    strata__tri_normal(r->x, r->y, r->z, src[0], src[2], src[3], n);
    if (n[0] != 0 || n[1] != 0 || n[2] != 0)
        return;
    n[0] = 0, n[1] = 1, n[2] = 0;
    if (m->geometry != STRATA_FLAT) {
        const double d[3] = {(double)r->x[src[2]] - m->center[0],
                             (double)r->y[src[2]] - m->center[1],
                             (double)r->z[src[2]] - m->center[2]};
        const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (len > 0)
            n[0] = d[0] / len, n[1] = d[1] / len, n[2] = d[2] / len;
    }
}

/* Replace each wall quad's vertices by four of its own with the quad's
 * normal; roof vertices get the surface normal (up, or radial). */
static void add_normals(strata_ctx *ctx, strata_result *r, const strata_mesh *m,
                        uint32_t first_wall_vertex)
{
    const int64_t nbase = first_wall_vertex;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t i = 0; i < nbase; i++) {
        if (m->geometry == STRATA_FLAT) {
            r->nx[i] = 0.0f;
            r->ny[i] = 1.0f;
            r->nz[i] = 0.0f;
        } else {
            const float dx = r->x[i] - m->center[0], dy = r->y[i] - m->center[1],
                        dz = r->z[i] - m->center[2];
            const float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz);
            r->nx[i] = dx * inv;
            r->ny[i] = dy * inv;
            r->nz[i] = dz * inv;
        }
    }
    /* Wall vertex numbering: quads in index order over all wall ranges. */
    uint64_t quad_base = 0;
    for (uint32_t k = 0; k < r->nterraces; k++) {
        const strata_terrace *t = &r->terraces[k];
        const int64_t nq = (int64_t)(t->wall_count / 6);
        const uint64_t qb = quad_base;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
        for (int64_t q = 0; q < nq; q++) {
            uint32_t *ix = r->indices + t->wall_first + 6 * (uint64_t)q;
            /* (cj_bot, ci_bot, ci_top), (cj_bot, ci_top, cj_top) */
            const uint32_t src[4] = {ix[0], ix[1], ix[2], ix[5]};
            const uint32_t base = first_wall_vertex + (uint32_t)(4 * (qb + (uint64_t)q));
            double n[3];
            wall_normal(r, m, src, n);
            for (int c = 0; c < 4; c++) {
                r->x[base + c] = r->x[src[c]];
                r->y[base + c] = r->y[src[c]];
                r->z[base + c] = r->z[src[c]];
                r->nx[base + c] = (float)n[0];
                r->ny[base + c] = (float)n[1];
                r->nz[base + c] = (float)n[2];
            }
            ix[0] = base;
            ix[1] = base + 1;
            ix[2] = base + 2;
            ix[3] = base;
            ix[4] = base + 2;
            ix[5] = base + 3;
        }
        quad_base += (uint64_t)nq;
    }
}

/* Each terrace's areas from the per-chunk sums, the arenas' figures for
 * strata_ctx_arena_stats, and normals when asked for. */
static void finish(slice_job *job, const slicer *s, const chunk_tables *ct, strata_result *r,
                   uint32_t nbase_verts)
{
    strata_ctx *ctx = job->ctx;
    for (uint32_t k = 0; ct->area && k < job->nplanes; k++) {
        const uint32_t br = bucket(s, k, 0), bw = bucket(s, k, 1);
        double ra = 0.0, wa = 0.0;
        for (int64_t c = 0; c < ct->nchunks; c++) {
            ra += ct->area[(size_t)c * ct->stride + br];
            wa += ct->area[(size_t)c * ct->stride + bw];
        }
        r->terraces[k].roof_area = ra;
        r->terraces[k].wall_area = wa;
    }
    for (int i = 0; i < ctx->threads; i++)
        strata__arena_stats_add(&ct->workers[i].arena, &ctx->arena_stats);
    if (job->normals)
        add_normals(ctx, r, job->m, nbase_verts);
}

/* ------------------------------------------------------------ driver */

static strata_status check_options(const strata_mesh *m, const strata_slice_options *o)
{
    strata_status st = strata_levels_validate(o->levels, o->nlevels);
    if (st != STRATA_OK)
        return st;
    if (o->walls != STRATA_WALLS_UPPER && o->walls != STRATA_WALLS_LOWER &&
        o->walls != STRATA_WALLS_SEPARATE)
        return STRATA_ERR_INVALID_ARG;
    if (m->geometry == STRATA_RADIAL && !(m->radius + o->levels[0] > 0.0f))
        return STRATA_ERR_BAD_LEVELS; /* a terrace at or below the centre */
    if (m->ghost_verts > m->nverts || m->ghost_edges > m->nedges || m->ghost_tris > m->ntris)
        return STRATA_ERR_BAD_MESH; /* context larger than the mesh */
    return STRATA_OK; /* heights are checked in the parallel band pass */
}

/* The phases in order, each milestone of strata.h reported once (the
 * milestones are the shares of the time each phase takes on a noise
 * planet), into r.  Returns at the first failure; strata_slice_into
 * cleans up. */
static strata_status run_phases(slice_job *job, chunk_tables *ct, strata_result *r)
{
    strata_ctx *ctx = job->ctx;
    const strata_mesh *m = job->m;
    strata_status st;
    vertex_bands vb;
    if ((st = classify_vertices(job, &vb)) != STRATA_OK)
        return st;
    /* Vertices within rounding of a plane snap onto it, found on the
     * edges that cross a plane; nearly never, and the edges are counted
     * again only if a band moved up by one (a vertex a hair above its
     * plane only gets `on`, which the counts do not see). */
    number_arg na = {0};
    strata_snap_scan snap;
    uint64_t nsnap = 0, nraised = 0;
    if ((st = count_spans(job, &vb, &na, &snap)) != STRATA_OK ||
        (st = strata__onplane_snap(&job->edges, &snap, na.snap_blk, vb.band, vb.on, &nsnap,
                                   &nraised)) != STRATA_OK ||
        (nraised && (st = count_spans(job, &vb, &na, NULL)) != STRATA_OK))
        return st;
    vb.non += nsnap;
    strata_onplane op = {0};
    if (vb.non > 0 && (st = strata__onplane_build(ctx, &job->edges, m, vb.band, vb.on,
                                                  job->own_edges, job->own_verts, &op)) != STRATA_OK)
        return st;
    if ((st = strata__progress(ctx, "slice", 0.15)) != STRATA_OK)
        return st;
    crossing_ids cr;
    if ((st = number_crossings(job, &op, &na, &cr)) != STRATA_OK)
        return st;
    if ((st = strata__progress(ctx, "slice", 0.3)) != STRATA_OK)
        return st;
    const slicer s = {m,     job->own_tris, job->nplanes, job->walls, vb.band,
                      vb.on, op,            cr.cut_base,  job->own_verts};
    if ((st = pass_a(job, &s, ct)) != STRATA_OK || /* reports up to 0.5 */
        (st = lay_out(job, &s, ct, cr.nverts, r)) != STRATA_OK)
        return st;
    place_vertices(job, &vb, &op, &cr, r);
    if ((st = strata__progress(ctx, "slice", 0.6)) != STRATA_OK)
        return st;
    /* Pass B reads only the bands: the edge tables go before it touches
     * the index pages. */
    strata__scratch_release(&job->edges);
    const slicer sb = {m, job->own_tris, job->nplanes, job->walls, vb.band, NULL, {0}, NULL, 0};
    if ((st = pass_b(job, &sb, ct, r)) != STRATA_OK) /* reports up to 0.85 */
        return st;
    finish(job, &sb, ct, r, cr.nverts);
    return strata__progress(ctx, "slice", 1.0);
}

/* strata_slice_into; keep: take the scratch memory from r's kept blocks
 * and keep it there for the next call. */
static strata_status slice_into(strata_ctx *ctx, const strata_mesh *m,
                                const strata_slice_options *opt, strata_result *r, int keep)
{
    strata__bind_threads(ctx); /* no-op once bound */
    if (r)
        strata__result_clear(r);
    if (!ctx)
        return STRATA_ERR_INVALID_ARG;
    memset(&ctx->arena_stats, 0, sizeof ctx->arena_stats);
    if (!r || !m || !opt)
        return STRATA_ERR_INVALID_ARG;
    strata_status st = check_options(m, opt);
    if (st != STRATA_OK)
        return st;
    if ((st = strata__progress(ctx, "slice", 0.0)) != STRATA_OK)
        return st;

    slice_job job = {.ctx = ctx, .m = m, .own_verts = m->nverts - m->ghost_verts,
                     .own_edges = m->nedges - m->ghost_edges, .own_tris = m->ntris - m->ghost_tris,
                     .L = opt->levels, .nplanes = opt->nlevels, .walls = opt->walls,
                     .normals = opt->normals, .areas = opt->areas};
    strata_pool *pool = keep ? strata__result_pool(r) : NULL;
    if (keep && !pool)
        return STRATA_ERR_NOMEM;
    if (pool)
        strata__pool_begin(pool);
    const strata_allocator *al = pool ? &r->alloc : &ctx->alloc;
    strata__scratch_init(&job.call, al, pool);
    strata__scratch_init(&job.edges, al, pool);
    chunk_tables ct = {.pool = pool, .al = al};
    st = run_phases(&job, &ct, r);
    release_workers(&ct, ctx->threads);
    strata__scratch_release(&job.edges);
    strata__scratch_release(&job.call);
    if (pool)
        strata__pool_end(pool, al);
    if (st != STRATA_OK) {
        memset(&ctx->arena_stats, 0, sizeof ctx->arena_stats); /* e.g. cancelled at the end */
        strata__result_clear(r);
    }
    return st;
}

strata_status strata_slice_into(strata_ctx *ctx, const strata_mesh *m,
                                const strata_slice_options *opt, strata_result *r)
{
    return slice_into(ctx, m, opt, r, 1);
}

/* slice_into a new result, keeping no scratch (the result is filled
 * once): one code path, so the two cannot differ. */
strata_status strata_slice(strata_ctx *ctx, const strata_mesh *m, const strata_slice_options *opt,
                           strata_result **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx)
        return STRATA_ERR_INVALID_ARG;
    strata_result *r;
    strata_status st = strata_result_create(ctx, &r);
    if (st == STRATA_OK)
        st = slice_into(ctx, m, opt, r, 0);
    if (st != STRATA_OK) {
        memset(&ctx->arena_stats, 0, sizeof ctx->arena_stats);
        strata_result_destroy(r);
        return st;
    }
    *out = r;
    return STRATA_OK;
}
