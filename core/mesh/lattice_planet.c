/* Planet chunk lattices: the level-L triangles under one triangle of the
 * level-C icosphere, and the context ring around them (core/mesh/lattice.h).
 *
 * Positions.  strata_mesh_subdivide makes the midpoint of every edge from
 * its two ends alone; on the chunk's triangular lattice the points of
 * stride s are exactly those midpoints of the points of stride 2s, so the
 * lattice is filled stride by stride with the same formula
 * (strata__sphere_midpoint) and gets the same bits.  The context ring comes
 * from the chunk's neighbours in the level-C icosphere, descending only
 * into the children that touch the shared side or corner ("strips"), again
 * with the same midpoints.
 *
 * Corner order.  A triangle's first corner decides how the slicer fans its
 * bands, so own triangles are listed by the recursion of the subdivision
 * itself (children (a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca)),
 * which gives the whole icosphere's corner order as well as its triangle
 * order.
 */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/mesh.h"
#include "mesh/lattice.h"

#include <string.h>

static inline uint32_t vid(uint32_t n, uint32_t i, uint32_t j)
{
    return j * (n + 1) - j * (j - 1) / 2 + i;
}

static inline uint32_t cell(uint32_t n, uint32_t i, uint32_t j)
{
    return j * n - j * (j - 1) / 2 + i;
}

typedef struct {
    uint32_t i, j;
} lpt;

/* Own edge joining lattice neighbours p and q. */
static inline uint32_t lattice_edge(uint32_t n, lpt p, lpt q)
{
    const uint32_t i = p.i < q.i ? p.i : q.i, j = p.j < q.j ? p.j : q.j;
    const uint32_t kind = p.j == q.j ? 0 : p.i == q.i ? 1 : 2;
    return 3 * cell(n, i, j) + kind;
}

static inline lpt lmid(lpt p, lpt q)
{
    return (lpt){(p.i + q.i) / 2, (p.j + q.j) / 2};
}

/* Own triangles of side `side` (a power of two) under (A, B, C), in the
 * subdivision's order, from index *next on. */
static void emit_own(strata_planet_lattice *pl, uint32_t *next, lpt A, lpt B, lpt C,
                     uint32_t side)
{
    if (side == 1) {
        const uint32_t n = pl->n, t = (*next)++;
        pl->a[t] = vid(n, A.i, A.j);
        pl->b[t] = vid(n, B.i, B.j);
        pl->c[t] = vid(n, C.i, C.j);
        pl->e0[t] = lattice_edge(n, A, B);
        pl->e1[t] = lattice_edge(n, B, C);
        pl->e2[t] = lattice_edge(n, C, A);
        return;
    }
    const lpt ab = lmid(A, B), bc = lmid(B, C), ca = lmid(C, A);
    side /= 2;
    emit_own(pl, next, A, ab, ca, side);
    emit_own(pl, next, ab, B, bc, side);
    emit_own(pl, next, ca, bc, C, side);
    emit_own(pl, next, ab, bc, ca, side);
}

void strata__planet_lattice_free(strata_planet_lattice *pl)
{
    if (!pl || !pl->al)
        return;
    strata_mesh_destroy(pl->coarse);
    uint32_t *arrays[] = {pl->fan_first, pl->fan, pl->a,  pl->b,  pl->c,
                          pl->e0,        pl->e1,  pl->e2, pl->ev0, pl->ev1};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        strata__free(pl->al, arrays[i]);
    memset(pl, 0, sizeof *pl);
}

strata_status strata__planet_lattice_init(strata_ctx *ctx, int level, int chunk_level,
                                          float radius, strata_planet_lattice *pl)
{
    memset(pl, 0, sizeof *pl);
    if (!ctx || chunk_level < 0 || chunk_level >= level || level > 13 || !(radius > 0.0f) ||
        !isfinite(radius))
        return STRATA_ERR_INVALID_ARG;
    pl->al = &ctx->alloc;
    pl->level = level;
    pl->chunk_level = chunk_level;
    pl->radius = radius;
    const uint32_t n = 1u << (level - chunk_level);
    pl->n = n;
    pl->nverts = (n + 1) * (n + 2) / 2;
    pl->nedges = 3 * (n * (n + 1) / 2);
    pl->ntris = n * n;
    /* Context ring, two edges deep (build_ring): 4 n - 4 triangles along
     * each side, 4 in each of the at most 3 coarse triangles sharing only
     * a corner (a coarse vertex has 5 or 6 triangles), each triangle
     * bringing at most 3 vertices and 3 edges. */
    const uint32_t ring = 12 * n + 24;
    pl->cap_tris = pl->ntris + ring;
    pl->cap_verts = pl->nverts + 3 * ring;
    pl->cap_edges = pl->nedges + 3 * ring;

    strata_status st = strata_shape_icosphere(ctx, chunk_level, radius, &pl->coarse);
    if (st != STRATA_OK)
        goto fail;
    const strata_mesh *cm = pl->coarse;
    const strata_allocator *al = pl->al;
    pl->fan_first = strata__alloc_array(al, (size_t)cm->nverts + 1, sizeof(uint32_t));
    pl->fan = strata__alloc_array(al, 3 * (size_t)cm->ntris, sizeof(uint32_t));
    uint32_t **own[] = {&pl->a, &pl->b, &pl->c, &pl->e0, &pl->e1, &pl->e2};
    for (size_t i = 0; i < 6; i++)
        *own[i] = strata__alloc_array(al, pl->ntris, sizeof(uint32_t));
    pl->ev0 = strata__alloc_array(al, pl->nedges, sizeof(uint32_t));
    pl->ev1 = strata__alloc_array(al, pl->nedges, sizeof(uint32_t));
    if (!pl->fan_first || !pl->fan || !pl->a || !pl->b || !pl->c || !pl->e0 || !pl->e1 ||
        !pl->e2 || !pl->ev0 || !pl->ev1) {
        st = STRATA_ERR_NOMEM;
        goto fail;
    }
    /* Coarse vertex -> triangles, in triangle order. */
    memset(pl->fan, 0xFF, 3 * (size_t)cm->ntris * sizeof(uint32_t));
    memset(pl->fan_first, 0, ((size_t)cm->nverts + 1) * sizeof(uint32_t));
    for (uint32_t t = 0; t < cm->ntris; t++) {
        pl->fan_first[cm->a[t] + 1]++;
        pl->fan_first[cm->b[t] + 1]++;
        pl->fan_first[cm->c[t] + 1]++;
    }
    for (uint32_t v = 0; v < cm->nverts; v++)
        pl->fan_first[v + 1] += pl->fan_first[v];
    for (uint32_t t = 0; t < cm->ntris; t++) {
        const uint32_t corner[3] = {cm->a[t], cm->b[t], cm->c[t]};
        for (int k = 0; k < 3; k++) {
            uint32_t at = pl->fan_first[corner[k]];
            while (pl->fan[at] != UINT32_MAX && at < pl->fan_first[corner[k] + 1])
                at++;
            pl->fan[at] = t;
        }
    }
    /* Own topology. */
    uint32_t next = 0;
    emit_own(pl, &next, (lpt){0, 0}, (lpt){n, 0}, (lpt){0, n}, n);
    for (uint32_t j = 0; j < n; j++)
        for (uint32_t i = 0; i + j < n; i++) {
            const uint32_t e = 3 * cell(n, i, j);
            pl->ev0[e] = vid(n, i, j);
            pl->ev1[e] = vid(n, i + 1, j);
            pl->ev0[e + 1] = vid(n, i, j);
            pl->ev1[e + 1] = vid(n, i, j + 1);
            pl->ev0[e + 2] = vid(n, i + 1, j);
            pl->ev1[e + 2] = vid(n, i, j + 1);
        }
    return STRATA_OK;
fail:
    strata__planet_lattice_free(pl);
    return st;
}

strata_status strata__planet_chunk_alloc(const strata_planet_lattice *pl, strata_mesh **out)
{
    strata_status st =
        strata__mesh_alloc(pl->al, pl->cap_verts, pl->cap_tris, pl->cap_edges, out);
    if (st == STRATA_OK) {
        (*out)->geometry = STRATA_RADIAL;
        memcpy((*out)->center, pl->coarse->center, sizeof (*out)->center);
        (*out)->radius = pl->radius;
    }
    return st;
}

/* ------------------------------------------------------------ own lattice */

/* Positions of the chunk's lattice points, stride by stride. */
static void fill_positions(const strata_planet_lattice *pl, const uint32_t corner[3],
                           strata_mesh *m)
{
    const strata_mesh *cm = pl->coarse;
    const uint32_t n = pl->n;
    float *x = m->x, *y = m->y, *z = m->z;
    const uint32_t at[3] = {vid(n, 0, 0), vid(n, n, 0), vid(n, 0, n)};
    for (int k = 0; k < 3; k++) {
        x[at[k]] = cm->x[corner[k]];
        y[at[k]] = cm->y[corner[k]];
        z[at[k]] = cm->z[corner[k]];
    }
    for (uint32_t s = n / 2; s >= 1; s /= 2) {
        const uint32_t odd = s; /* i & (2s - 1) == s: an odd multiple of s */
        const uint32_t mask = 2 * s - 1;
        for (uint32_t j = 0; j <= n; j += s) {
            const int j_even = (j & mask) == 0;
            for (uint32_t i = j_even ? odd : 0; i + j <= n; i += j_even ? 2 * s : s) {
                uint32_t p, q;
                if (j_even) {                    /* along a: (i - s, j) - (i + s, j) */
                    p = vid(n, i - s, j);
                    q = vid(n, i + s, j);
                } else if ((i & mask) == 0) {    /* along b: (i, j - s) - (i, j + s) */
                    p = vid(n, i, j - s);
                    q = vid(n, i, j + s);
                } else {                         /* diagonal */
                    p = vid(n, i + s, j - s);
                    q = vid(n, i - s, j + s);
                }
                const uint32_t v = vid(n, i, j);
                strata__sphere_midpoint(cm->center, pl->radius, x[p], y[p], z[p], x[q], y[q],
                                        z[q], &x[v], &y[v], &z[v]);
            }
        }
        if (s == 1)
            break;
    }
}

/* ------------------------------------------------------------ context ring */

typedef struct {
    float p[9]; /* corners a, b, c: x, y, z each */
} ftri;

typedef struct {
    const strata_planet_lattice *pl;
    strata_ring_scratch *s;
    int nomem;
} ring_job;

static void push(ring_job *job, const ftri *t)
{
    if (strata__ring_push(job->s, t->p) != STRATA_OK)
        job->nomem = 1;
}

static void children(const strata_planet_lattice *pl, const ftri *t, ftri ch[4])
{
    const float *c = pl->coarse->center, *p = t->p;
    float m[3][3]; /* ab, bc, ca */
    for (int k = 0; k < 3; k++) {
        const float *u = p + 3 * k, *v = p + 3 * ((k + 1) % 3);
        strata__sphere_midpoint(c, pl->radius, u[0], u[1], u[2], v[0], v[1], v[2], &m[k][0],
                                &m[k][1], &m[k][2]);
    }
    const float *corners[4][3] = {
        {p, m[0], m[2]}, {m[0], p + 3, m[1]}, {m[2], m[1], p + 6}, {m[0], m[1], m[2]}};
    for (int k = 0; k < 4; k++)
        for (int v = 0; v < 3; v++)
            memcpy(ch[k].p + 3 * v, corners[k][v], 3 * sizeof(float));
}

/* Every level-0 descendant (depth 0 or 1 levels down) of t. */
static void strip_all(ring_job *job, const ftri *t, int depth)
{
    if (depth == 0) {
        push(job, t);
        return;
    }
    ftri ch[4];
    children(job->pl, t, ch);
    for (int k = 0; k < 4; k++)
        strip_all(job, &ch[k], depth - 1);
}

/* The level-0 descendants (depth levels down) of t with a corner at most
 * one level-0 edge from corner k: the corner's rows 0 and 1, those
 * touching them.  Below depth 2 that is all of t. */
static void strip_point(ring_job *job, const ftri *t, int k, int depth)
{
    if (depth <= 1) {
        strip_all(job, t, depth);
        return;
    }
    ftri ch[4];
    children(job->pl, t, ch);
    strip_point(job, &ch[k], k, depth - 1); /* child k holds corner k at position k */
}

/* The descendants of t with a corner at most one level-0 edge from side k
 * (corners k and k+1). */
static void strip_side(ring_job *job, const ftri *t, int k, int depth)
{
    if (depth <= 1) {
        strip_all(job, t, depth);
        return;
    }
    ftri ch[4];
    children(job->pl, t, ch);
    /* side 0 (a-b): children 0 and 1 along it, the middle child touches it
     * at its corner 0 (ab), its rows from there those from the side;
     * likewise for the other sides.  The far corner's child lies 2 edges
     * or more away. */
    static const int along[3][2] = {{0, 1}, {1, 2}, {2, 0}};
    strip_side(job, &ch[along[k][0]], k, depth - 1);
    strip_side(job, &ch[along[k][1]], k, depth - 1);
    strip_point(job, &ch[3], k, depth - 1);
}

/* Context ring of coarse triangle t (lattice.h: every level-L triangle
 * outside it sharing a corner with one that touches it): the strips of
 * every coarse triangle sharing a corner with it, two level-L edges wide,
 * mapped onto m's border and appended.  A vertex one edge from the chunk
 * lies inside or on a side of such a coarse triangle, and (2^(L-C) >= 2)
 * not at its corners, so every triangle around it lies in one of them. */
static strata_status build_ring(const strata_planet_lattice *pl, uint32_t t,
                                strata_ring_scratch *s, strata_mesh *m)
{
    const strata_mesh *cm = pl->coarse;
    const uint32_t n = pl->n;
    const uint32_t corner[3] = {cm->a[t], cm->b[t], cm->c[t]};
    const int depth = pl->level - pl->chunk_level;
    ring_job job = {pl, s, 0};
    s->ntri = 0;

    /* Neighbours in a fixed order: corners a, b, c, each fan in triangle
     * order, each neighbour once. */
    uint32_t seen[64];
    int nseen = 0;
    for (int k = 0; k < 3; k++) {
        for (uint32_t f = pl->fan_first[corner[k]]; f < pl->fan_first[corner[k] + 1]; f++) {
            const uint32_t u = pl->fan[f];
            int dup = u == t;
            for (int i = 0; i < nseen && !dup; i++)
                dup = seen[i] == u;
            if (dup)
                continue;
            seen[nseen++] = u;
            const uint32_t uc[3] = {cm->a[u], cm->b[u], cm->c[u]};
            int shared[3], nshared = 0;
            for (int i = 0; i < 3; i++) {
                shared[i] = uc[i] == corner[0] || uc[i] == corner[1] || uc[i] == corner[2];
                nshared += shared[i];
            }
            ftri ut;
            for (int i = 0; i < 3; i++) {
                ut.p[3 * i] = cm->x[uc[i]];
                ut.p[3 * i + 1] = cm->y[uc[i]];
                ut.p[3 * i + 2] = cm->z[uc[i]];
            }
            if (nshared == 2) {
                const int side = !shared[2] ? 0 : !shared[0] ? 1 : 2;
                strip_side(&job, &ut, side, depth);
            } else {
                strip_point(&job, &ut, shared[0] ? 0 : shared[1] ? 1 : 2, depth);
            }
        }
    }
    if (job.nomem)
        return STRATA_ERR_NOMEM;

    /* Border vertices and edges of the lattice first, so that the ring's
     * corners and sides on the border find them. */
    strata__ring_clear(s);
    for (uint32_t i = 0; i <= n; i++) {
        strata__ring_border_vertex(s, m, vid(n, i, 0));
        strata__ring_border_vertex(s, m, vid(n, 0, i));
        strata__ring_border_vertex(s, m, vid(n, n - i, i));
    }
    for (uint32_t i = 0; i < n; i++) {
        strata__ring_border_edge(s, vid(n, i, 0), vid(n, i + 1, 0), 3 * cell(n, i, 0));
        strata__ring_border_edge(s, vid(n, 0, i), vid(n, 0, i + 1), 3 * cell(n, 0, i) + 1);
        strata__ring_border_edge(s, vid(n, i + 1, n - i - 1), vid(n, i, n - i),
                                 3 * cell(n, i, n - i - 1) + 2);
    }
    return strata__ring_attach(s, m, pl->nverts);
}

strata_status strata__planet_chunk_build(const strata_planet_lattice *pl, uint64_t id,
                                         strata_ring_scratch *s, strata_mesh *m)
{
    if (id >= strata__planet_chunks(pl))
        return STRATA_ERR_INVALID_ARG;
    const strata_mesh *cm = pl->coarse;
    const uint32_t t = (uint32_t)id;
    const uint32_t corner[3] = {cm->a[t], cm->b[t], cm->c[t]};
    strata_status st = strata__ring_reserve(s, pl->al, pl->cap_verts - pl->nverts + 3 * pl->n,
                                            pl->cap_edges - pl->nedges + 3 * pl->n);
    if (st != STRATA_OK)
        return st;
    fill_positions(pl, corner, m);
    memcpy(m->a, pl->a, pl->ntris * sizeof(uint32_t));
    memcpy(m->b, pl->b, pl->ntris * sizeof(uint32_t));
    memcpy(m->c, pl->c, pl->ntris * sizeof(uint32_t));
    memcpy(m->e0, pl->e0, pl->ntris * sizeof(uint32_t));
    memcpy(m->e1, pl->e1, pl->ntris * sizeof(uint32_t));
    memcpy(m->e2, pl->e2, pl->ntris * sizeof(uint32_t));
    memcpy(m->ev0, pl->ev0, pl->nedges * sizeof(uint32_t));
    memcpy(m->ev1, pl->ev1, pl->nedges * sizeof(uint32_t));
    m->nverts = pl->nverts;
    m->nedges = pl->nedges;
    m->ntris = pl->ntris;
    if ((st = build_ring(pl, t, s, m)) != STRATA_OK)
        return st;
    m->ghost_verts = m->nverts - pl->nverts;
    m->ghost_edges = m->nedges - pl->nedges;
    m->ghost_tris = m->ntris - pl->ntris;
    strata__mesh_update_heights(m);
    return STRATA_OK;
}

void strata__planet_chunk_positions(const strata_planet_lattice *pl, uint64_t id, strata_mesh *m)
{
    const strata_mesh *cm = pl->coarse;
    const uint32_t t = (uint32_t)id;
    const uint32_t corner[3] = {cm->a[t], cm->b[t], cm->c[t]};
    fill_positions(pl, corner, m);
    m->nverts = pl->nverts;
    m->nedges = m->ntris = 0;
    m->ghost_verts = m->ghost_edges = m->ghost_tris = 0;
    strata__mesh_update_heights(m);
}
