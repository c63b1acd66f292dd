/* Edge loops (docs/DESIGN.md, "Edge loops"): the top edges of the slicer's
 * walls, linked into polylines per plane.
 *
 * The slicer writes every wall quad as the two triangles
 *     (cj.bot, ci.bot, ci.top), (cj.bot, ci.top, cj.top)
 * where ci is the crossing of plane k on the side of the triangle that
 * climbs (in its winding) and cj the one on the side that descends
 * (core/slice/slice.c, slice_triangle).  Triangles wind counter-clockwise seen
 * from above (from outside on planets), so walking ci.top -> cj.top has
 * the higher corner on the right: uphill on the right.  The top copies
 * are the loop's points, so a loop has the wall tops' bits by
 * construction.
 *
 * Linking: a crossing's *bottom* copy names it uniquely - two copies per
 * crossing of an edge, and for a vertex lying exactly on its plane one
 * bottom copy per wedge of lower neighbours (slice_onplane.h).  That is
 * the slicer's "infinitesimally above" rule: a vertex on a plane that two
 * contours pass (a saddle on the plane) is reached once per wedge, and
 * the wedge says which incoming piece continues with which outgoing one,
 * so the loops never cross (they may touch at such a vertex).  A crossing
 * of an interior edge is the climbing side of one of its triangles and
 * the descending side of the other: each key starts at most one piece and
 * ends at most one.  Pieces whose start key ends no piece start open
 * polylines (they begin on the border); the rest form closed loops.
 *
 * Everything here runs on the calling thread over the result's index
 * order, which the slicer makes the same for any thread count and ISA. */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/result.h"
#include "loops/loops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

void strata_loops_destroy(strata_loops *l)
{
    if (!l)
        return;
    const strata_allocator al = l->alloc;
    strata__free(&al, l->levels);
    strata__free(&al, l->plane_first);
    strata__free(&al, l->loops);
    strata__free(&al, l->x);
    strata__free(&al, l->y);
    strata__free(&al, l->z);
    strata__free(&al, l->vertex);
    strata__free(&al, l);
}

void strata_loops_get_view(const strata_loops *l, strata_loops_view *v)
{
    memset(v, 0, sizeof *v);
    if (!l)
        return;
    v->nplanes = l->nplanes;
    v->levels = l->levels;
    v->plane_first = l->plane_first;
    v->nloops = l->nloops;
    v->loops = l->loops;
    v->npoints = l->npoints;
    v->x = l->x;
    v->y = l->y;
    v->z = l->z;
    v->vertex = l->vertex;
    v->geometry = l->geometry;
    memcpy(v->center, l->center, sizeof v->center);
    v->radius = l->radius;
}

/* The index range of plane k's wall quads (plane 0 has none). */
static void plane_walls(const strata_result *r, uint32_t k, uint64_t *first, uint64_t *count)
{
    *first = *count = 0;
    if (k == 0)
        return;
    const strata_terrace *t = &r->terraces[r->walls == STRATA_WALLS_LOWER ? k - 1 : k];
    *first = t->wall_first;
    *count = t->wall_count;
}

/* A wall quad's piece of loop: from ci.top to cj.top, keys ci.bot and
 * cj.bot (see the top of this file). */
static inline uint32_t piece_from(const uint32_t *q) { return q[2]; }
static inline uint32_t piece_to(const uint32_t *q) { return q[5]; }
static inline uint32_t key_in(const uint32_t *q) { return q[1]; }
static inline uint32_t key_out(const uint32_t *q) { return q[0]; }

/* Length and signed area of points [p0, p0 + n) (closed: back to the
 * first).  FLAT: area in the plane seen from above with north = -z,
 * positive counter-clockwise; RADIAL: the vector area along the points'
 * mean direction from the centre, positive counter-clockwise seen from
 * outside. */
void strata__loops_measure(strata_loops *l, uint64_t p0, uint32_t n, int closed, double *len,
                           double *area)
{
    const float *x = l->x + p0, *y = l->y + p0, *z = l->z + p0;
    double s = 0.0, ax = 0.0, ay = 0.0, az = 0.0, mx = 0.0, my = 0.0, mz = 0.0;
    const double cx = l->center[0], cy = l->center[1], cz = l->center[2];
    const uint32_t nseg = closed ? n : n - 1;
    for (uint32_t i = 0; i < nseg; i++) {
        const uint32_t j = i + 1 == n ? 0 : i + 1;
        const double dx = (double)x[j] - x[i], dy = (double)y[j] - y[i], dz = (double)z[j] - z[i];
        s += sqrt(dx * dx + dy * dy + dz * dz);
        if (!closed)
            continue;
        const double px = x[i] - cx, py = y[i] - cy, pz = z[i] - cz;
        const double qx = x[j] - cx, qy = y[j] - cy, qz = z[j] - cz;
        ax += py * qz - pz * qy;
        ay += pz * qx - px * qz;
        az += px * qy - py * qx;
        mx += px;
        my += py;
        mz += pz;
    }
    *len = s;
    if (!closed) {
        *area = 0.0;
    } else if (l->geometry == STRATA_FLAT) {
        *area = 0.5 * ay; /* (x, -z) counter-clockwise is +y */
    } else {
        const double mn = sqrt(mx * mx + my * my + mz * mz);
        *area = mn > 0.0 ? 0.5 * (ax * mx + ay * my + az * mz) / mn : 0.0;
    }
}

/* ------------------------------------------------------------ order */

/* Points compared as (z, x): an order that depends only on positions. */
static inline int cmp_point(const strata_loops *l, uint64_t a, uint64_t b)
{
    if (l->z[a] != l->z[b])
        return l->z[a] < l->z[b] ? -1 : 1;
    if (l->x[a] != l->x[b])
        return l->x[a] < l->x[b] ? -1 : 1;
    if (l->y[a] != l->y[b])
        return l->y[a] < l->y[b] ? -1 : 1;
    return 0;
}

/* Compare the rotations of a closed loop starting at i and at j. */
static int cmp_rotation(const strata_loops *l, const strata_loop *lp, uint32_t i, uint32_t j)
{
    for (uint32_t s = 0; s < lp->count; s++) {
        const int c = cmp_point(l, lp->first + (i + s) % lp->count, lp->first + (j + s) % lp->count);
        if (c)
            return c;
    }
    return 0;
}

typedef struct {
    const strata_loops *l;
    uint64_t i;
} loop_ref;

static int cmp_loop(const void *pa, const void *pb)
{
    const loop_ref *ra = pa, *rb = pb;
    const strata_loops *l = ra->l;
    const strata_loop *a = &l->loops[ra->i], *b = &l->loops[rb->i];
    if (a->plane != b->plane)
        return a->plane < b->plane ? -1 : 1;
    if (a->closed != b->closed)
        return a->closed < b->closed ? -1 : 1;
    const uint32_t n = a->count < b->count ? a->count : b->count;
    for (uint32_t s = 0; s < n; s++) {
        const int c = cmp_point(l, a->first + s, b->first + s);
        if (c)
            return c;
    }
    return a->count < b->count ? -1 : a->count > b->count;
}

/* The order every builder ends with, so that the loops depend only on
 * the surface and the planes, not on how they were found: each closed
 * loop starts at its smallest point (z, then x; of two visits of one
 * point, the one whose rotation is smaller), and within a plane the open
 * polylines come first, then the closed loops, each kind by its points
 * in order.  Points stay where they are (rotated within their loop):
 * only the table of polylines is sorted.  Lengths and areas are measured
 * after. */
strata_status strata__loops_canonical(strata_loops *l)
{
    const strata_allocator *al = &l->alloc;
    const uint64_t nl = l->nloops;
    uint32_t longest = 0;
    for (uint64_t i = 0; i < nl; i++)
        longest = l->loops[i].count > longest ? l->loops[i].count : longest;
    loop_ref *ref = strata__alloc_array(al, nl ? nl : 1, sizeof *ref);
    strata_loop *loops = strata__alloc_array(al, nl ? nl : 1, sizeof *loops);
    float *tmp = strata__alloc_array(al, longest ? longest : 1, 3 * sizeof(float) + 4);
    if (!ref || !loops || !tmp) {
        strata__free(al, ref);
        strata__free(al, loops);
        strata__free(al, tmp);
        return STRATA_ERR_NOMEM;
    }
    float *tx = tmp, *ty = tmp + longest, *tz = tmp + 2 * (size_t)longest;
    uint32_t *tv = (uint32_t *)(tmp + 3 * (size_t)longest);
    for (uint64_t i = 0; i < nl; i++) {
        const strata_loop *lp = &l->loops[i];
        uint32_t best = 0;
        for (uint32_t j = 1; lp->closed && j < lp->count; j++) {
            const int c = cmp_point(l, lp->first + j, lp->first + best);
            if (c < 0 || (c == 0 && cmp_rotation(l, lp, j, best) < 0))
                best = j;
        }
        if (best) {
            for (uint32_t j = 0; j < lp->count; j++) {
                const uint64_t from = lp->first + (best + j) % lp->count;
                tx[j] = l->x[from];
                ty[j] = l->y[from];
                tz[j] = l->z[from];
                tv[j] = l->vertex[from];
            }
            memcpy(l->x + lp->first, tx, lp->count * sizeof(float));
            memcpy(l->y + lp->first, ty, lp->count * sizeof(float));
            memcpy(l->z + lp->first, tz, lp->count * sizeof(float));
            memcpy(l->vertex + lp->first, tv, lp->count * sizeof(uint32_t));
        }
        ref[i] = (loop_ref){l, i};
    }
    qsort(ref, nl, sizeof *ref, cmp_loop);
    for (uint64_t i = 0; i < nl; i++)
        loops[i] = l->loops[ref[i].i];
    strata__free(al, l->loops);
    strata__free(al, ref);
    strata__free(al, tmp);
    l->loops = loops;
    for (uint32_t k = 0; k <= l->nplanes; k++)
        l->plane_first[k] = 0;
    for (uint64_t i = 0; i < nl; i++) {
        strata_loop *lp = &l->loops[i];
        l->plane_first[lp->plane + 1]++;
        strata__loops_measure(l, lp->first, lp->count, lp->closed, &lp->length, &lp->area);
    }
    for (uint32_t k = 0; k < l->nplanes; k++)
        l->plane_first[k + 1] += l->plane_first[k];
    return STRATA_OK;
}

/* Scratch of the linking. */
typedef struct {
    uint32_t *start; /* per output vertex (key): the piece it starts */
    uint8_t *ends;   /* per output vertex (key): it ends a piece */
    uint8_t *seen;   /* per piece */
} link_tables;

/* Trace plane k's pieces (quads at first..first+6*nq of the index
 * array, global piece ids from p0) into polylines: open ones first (in
 * the order of their first piece), then closed ones.  With fill == 0 only
 * counts loops and points; else writes them from *nl and *np on. */
static strata_status trace_plane(const strata_result *r, strata_loops *l, link_tables *t,
                                 uint32_t k, uint64_t first, uint64_t nq, uint32_t p0, int fill,
                                 uint64_t *nl, uint64_t *np)
{
    const uint32_t *ix = r->indices + first;
    for (int closed = 0; closed < 2; closed++) {
        for (uint64_t i = 0; i < nq; i++) {
            const uint32_t *q = ix + 6 * i;
            if (t->seen[p0 + i] || (!closed && t->ends[key_in(q)]))
                continue;
            const uint64_t pstart = *np;
            uint64_t n = 0;
            uint32_t s = p0 + (uint32_t)i, last = s;
            while (s != NONE && !t->seen[s]) {
                t->seen[s] = 1;
                const uint32_t *qs = r->indices + first + 6 * (uint64_t)(s - p0);
                if (fill) {
                    const uint32_t v = piece_from(qs);
                    l->x[*np] = r->x[v];
                    l->y[*np] = r->y[v];
                    l->z[*np] = r->z[v];
                    l->vertex[*np] = v < r->roof_verts ? v : NONE;
                }
                (*np)++;
                n++;
                last = s;
                s = t->start[key_out(qs)];
            }
            if (closed && s != p0 + (uint32_t)i)
                return STRATA_ERR_BAD_MESH; /* a loop ran into another: not a manifold */
            if (!closed) {
                const uint32_t v = piece_to(r->indices + first + 6 * (uint64_t)(last - p0));
                if (fill) {
                    l->x[*np] = r->x[v];
                    l->y[*np] = r->y[v];
                    l->z[*np] = r->z[v];
                    l->vertex[*np] = v < r->roof_verts ? v : NONE;
                }
                (*np)++;
                n++;
            }
            if (n > UINT32_MAX)
                return STRATA_ERR_OVERFLOW;
            if (fill) {
                strata_loop *lp = &l->loops[*nl];
                lp->plane = k;
                lp->closed = closed;
                lp->first = pstart;
                lp->count = (uint32_t)n;
            }
            (*nl)++;
        }
    }
    return STRATA_OK;
}

/* Link every plane's pieces (the start and end tables), then trace:
 * counting, then filling. */
static strata_status build(strata_ctx *ctx, const strata_result *r, strata_loops *l,
                           link_tables *t, uint64_t npieces, uint32_t only)
{
    const strata_allocator *al = &ctx->alloc;
    strata_status st;
    for (int fill = 0; fill < 2; fill++) {
        uint64_t nl = 0, np = 0;
        uint32_t p0 = 0;
        memset(t->seen, 0, npieces ? npieces : 1);
        memset(t->start, 0xff, (size_t)r->nverts * sizeof(uint32_t));
        memset(t->ends, 0, r->nverts);
        for (uint32_t k = 0; k < r->nterraces; k++) {
            uint64_t first, count;
            plane_walls(r, k, &first, &count);
            if (fill)
                l->plane_first[k] = nl;
            if (only != NONE && k != only)
                count = 0; /* not asked for: no polylines */
            for (uint64_t i = 0; i < count / 6; i++) {
                const uint32_t *q = r->indices + first + 6 * i;
                if (t->start[key_in(q)] != NONE || t->ends[key_out(q)])
                    return STRATA_ERR_BAD_MESH; /* an edge of three or more triangles */
                t->start[key_in(q)] = p0 + (uint32_t)i;
                t->ends[key_out(q)] = 1;
            }
            if ((st = trace_plane(r, l, t, k, first, count / 6, p0, fill, &nl, &np)) != STRATA_OK)
                return st;
            p0 += (uint32_t)(count / 6);
            if ((st = strata__progress(ctx, "loops", (0.5 * fill + 0.5 * (k + 1) /
                                                                     r->nterraces))) != STRATA_OK)
                return st;
        }
        if (fill) {
            l->plane_first[r->nterraces] = nl;
            break;
        }
        l->nloops = nl;
        l->npoints = np;
        l->loops = strata__alloc_array(al, nl ? nl : 1, sizeof(strata_loop));
        l->x = strata__alloc_array(al, np ? np : 1, sizeof(float));
        l->y = strata__alloc_array(al, np ? np : 1, sizeof(float));
        l->z = strata__alloc_array(al, np ? np : 1, sizeof(float));
        l->vertex = strata__alloc_array(al, np ? np : 1, sizeof(uint32_t));
        if (!l->loops || !l->x || !l->y || !l->z || !l->vertex)
            return STRATA_ERR_NOMEM;
        memset(l->loops, 0, (nl ? nl : 1) * sizeof(strata_loop)); /* the padding too */
    }
    return STRATA_OK;
}

strata_status strata_loops_from_result(strata_ctx *ctx, const strata_result *r,
                                       strata_loops **out)
{
    return strata__loops_from_result_plane(ctx, r, NONE, out);
}

strata_status strata__loops_from_result_plane(strata_ctx *ctx, const strata_result *r,
                                              uint32_t only, strata_loops **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !r || r->nx)
        return STRATA_ERR_INVALID_ARG; /* walls with normals have vertices of their own */
    strata_status st = strata__progress(ctx, "loops", 0.0);
    if (st != STRATA_OK)
        return st;
    uint64_t npieces = 0;
    for (uint32_t k = 0; k < r->nterraces; k++) {
        uint64_t first, count;
        plane_walls(r, k, &first, &count);
        if (count % 6 || first + count > r->nindices)
            return STRATA_ERR_BAD_MESH;
        npieces += count / 6;
    }
    if (npieces >= UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    const strata_allocator *al = &ctx->alloc;
    strata_loops *l = strata__alloc(al, sizeof *l);
    if (!l)
        return STRATA_ERR_NOMEM;
    memset(l, 0, sizeof *l);
    l->alloc = *al;
    l->nplanes = r->nterraces;
    l->geometry = r->geometry;
    memcpy(l->center, r->center, sizeof l->center);
    l->radius = r->radius;
    l->levels = strata__alloc_array(al, r->nterraces ? r->nterraces : 1, sizeof(float));
    l->plane_first = strata__alloc_array(al, (size_t)r->nterraces + 1, sizeof(uint64_t));
    link_tables t = {strata__alloc_array(al, r->nverts ? r->nverts : 1, sizeof(uint32_t)),
                     strata__alloc(al, r->nverts ? r->nverts : 1),
                     strata__alloc(al, npieces ? npieces : 1)};
    if (!l->levels || !l->plane_first || !t.start || !t.ends || !t.seen) {
        st = STRATA_ERR_NOMEM;
    } else {
        for (uint32_t k = 0; k < r->nterraces; k++)
            l->levels[k] = r->terraces[k].level;
        l->plane_first[0] = 0;
        st = build(ctx, r, l, &t, npieces, only);
    }
    if (st == STRATA_OK)
        st = strata__loops_canonical(l);
    strata__free(al, t.start);
    strata__free(al, t.ends);
    strata__free(al, t.seen);
    if (st == STRATA_OK)
        st = strata__progress(ctx, "loops", 1.0);
    if (st != STRATA_OK) {
        strata_loops_destroy(l);
        return st;
    }
    *out = l;
    return STRATA_OK;
}

strata_status strata_loops_from_mesh(strata_ctx *ctx, const strata_mesh *m, const float *levels,
                                     uint32_t nlevels, strata_loops **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !m)
        return STRATA_ERR_INVALID_ARG;
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = levels;
    so.nlevels = nlevels;
    so.walls = STRATA_WALLS_SEPARATE;
    strata_result *r;
    strata_status st = strata_slice(ctx, m, &so, &r);
    if (st != STRATA_OK)
        return st;
    st = strata_loops_from_result(ctx, r, out);
    strata_result_destroy(r);
    return st;
}
