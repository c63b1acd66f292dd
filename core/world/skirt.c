/* Skirts of world tiles (strata_world_options.skirts).
 *
 * A tile's surface is open along the border of its region: the edges
 * there belong to one triangle of the tile (their other triangle is in
 * the neighbour).  Tiles of different depths do not share those edges,
 * so a viewer showing them side by side shows cracks; a skirt hangs a
 * wall from every border edge, deep enough to reach any neighbour.
 *
 * Finding the border edges: a vertex near a side of the region (within a
 * quarter of a lattice step; the lattice's own vertices off the border lie
 * a whole step away) gets that side's bit; an edge whose two ends share a
 * side is a candidate, and a candidate used by one triangle only is a
 * border edge (an interior candidate, two points near the same side that
 * are not on it, has both its triangles among the candidates, so the
 * count is exact).  Vertical border edges (a wall's end, a crossing's
 * top and bottom copies) need no skirt: the skirts of the edges beside
 * them reach below both.
 *
 * A border edge u -> v (in its triangle's order) gets the triangles
 * (v, u, u') and (v, u', v'), u' and v' new copies of u and v lowered by
 * the depth: they run along the edge the other way, so the skirt faces
 * away from the tile, towards a lower neighbour's gap.  The quads are
 * grouped by the terrace of the triangle they hang from (r's skirt_ends:
 * a glTF writer colours each group as its terrace's roof, so that where a
 * viewer's depth test lets a sliver of skirt win over the neighbour's
 * surface along a seam it shows the ground's colour, not a line), each
 * group in the order of r's triangles: the same bytes for any thread
 * count. */
#include "world/world.h"
#include "mesh/mesh.h"

#include <math.h>
#include <string.h>

void strata__skirt_scratch_free(strata_skirt_scratch *s)
{
    if (!s || !s->al)
        return;
    strata__free(s->al, s->side);
    strata__free(s->al, s->slots);
    strata__free(s->al, s->cand);
    strata__free(s->al, s->own);
    strata__free(s->al, s->ter);
    strata__free(s->al, s->order);
    strata__free(s->al, s->pos);
    const strata_allocator *al = s->al;
    memset(s, 0, sizeof *s);
    s->al = al;
}

/* Replace *p (elements of `size` bytes, *have used) by an array of `want`
 * with the same first elements. */
static int regrow(const strata_allocator *al, void **p, size_t have, size_t want, size_t size)
{
    void *q = strata__alloc_array(al, want, size);
    if (!q)
        return 0;
    if (have)
        memcpy(q, *p, have * size);
    strata__free(al, *p);
    *p = q;
    return 1;
}

/* The sides of the region each vertex of r lies near (bits 0..2: planet
 * sides c0-c1, c1-c2, c2-c0; bits 0..3: terrain x0, x1, z0, z1; a side on
 * the domain's edge, beyond which no tile lies, in bits 4..7 instead). */
static void mark_sides(const strata_world *w, uint64_t id, const strata_result *r,
                       uint8_t *side)
{
    float c[9];
    uint32_t cells[4];
    strata__world_chunk_region(w, id, c, cells);
    if (w->kind == STRATA_WORLD_PLANET) {
        double nrm[3][3], tol = INFINITY;
        for (int s = 0; s < 3; s++) {
            const float *a = c + 3 * s, *b = c + 3 * ((s + 1) % 3);
            double *n = nrm[s];
            n[0] = (double)a[1] * b[2] - (double)a[2] * b[1];
            n[1] = (double)a[2] * b[0] - (double)a[0] * b[2];
            n[2] = (double)a[0] * b[1] - (double)a[1] * b[0];
            const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            const double dot = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
            const double ang = atan2(len, dot) / w->planet.n;
            tol = ang < tol ? ang : tol;
            for (int k = 0; k < 3; k++)
                n[k] /= len;
        }
        tol *= 0.25; /* sin(angle to the side's plane) <= tol */
        /* in float, squared: (n.p)^2 <= tol^2 |p|^2 (float rounding is
         * far below a quarter step, 2^-24 against 2^-15 at level 13) */
        float f[3][3];
        for (int a = 0; a < 3; a++)
            for (int k = 0; k < 3; k++)
                f[a][k] = (float)nrm[a][k];
        const float t2 = (float)(tol * tol), cx = r->center[0], cy = r->center[1],
                    cz = r->center[2];
        const float *restrict x = r->x, *restrict y = r->y, *restrict z = r->z;
        uint8_t *restrict out = side;
        const uint32_t nv = r->nverts;
#pragma omp simd
        for (uint32_t v = 0; v < nv; v++) {
            const float px = x[v] - cx, py = y[v] - cy, pz = z[v] - cz;
            const float lim = t2 * (px * px + py * py + pz * pz);
            const float d0 = f[0][0] * px + f[0][1] * py + f[0][2] * pz;
            const float d1 = f[1][0] * px + f[1][1] * py + f[1][2] * pz;
            const float d2 = f[2][0] * px + f[2][1] * py + f[2][2] * pz;
            out[v] = (uint8_t)((d0 * d0 <= lim) | (d1 * d1 <= lim) << 1 | (d2 * d2 <= lim) << 2);
        }
        return;
    }
    const strata_terrain_lattice *tl = &w->terrain;
    const double x0 = strata__grid_coord(cells[0], tl->src.nx, tl->cell),
                 x1 = strata__grid_coord(cells[2], tl->src.nx, tl->cell),
                 z0 = strata__grid_coord(cells[1], tl->src.nz, tl->cell),
                 z1 = strata__grid_coord(cells[3], tl->src.nz, tl->cell);
    const double tol = 0.25 * tl->cell;
    const unsigned inner = (cells[0] > 0) | (cells[2] < tl->src.nx) << 1 | (cells[1] > 0) << 2 |
                           (cells[3] < tl->src.nz) << 3;
    for (uint32_t v = 0; v < r->nverts; v++) {
        const unsigned near = (fabs(r->x[v] - x0) <= tol) | (fabs(r->x[v] - x1) <= tol) << 1 |
                              (fabs(r->z[v] - z0) <= tol) << 2 | (fabs(r->z[v] - z1) <= tol) << 3;
        side[v] = (uint8_t)((near & inner) | (near & ~inner) << 4);
    }
}

static inline uint64_t edge_key(uint32_t u, uint32_t v)
{
    return u < v ? (uint64_t)u << 32 | v : (uint64_t)v << 32 | u;
}

/* The count slot of key (inserted when absent). */
static uint64_t *slot_of(uint64_t *slots, size_t mask, uint64_t key)
{
    size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & mask;
    while (slots[2 * i] != key && slots[2 * i] != UINT64_MAX)
        i = (i + 1) & mask;
    if (slots[2 * i] == UINT64_MAX) {
        slots[2 * i] = key;
        slots[2 * i + 1] = 0;
    }
    return &slots[2 * i + 1];
}

/* u and v are a vertical edge: the same point of the plan (terrains) or
 * the same direction from the centre (planets, to within 1e-6 rad). */
static int vertical(const strata_result *r, uint32_t u, uint32_t v)
{
    if (r->geometry == STRATA_FLAT)
        return !memcmp(&r->x[u], &r->x[v], sizeof(float)) &&
               !memcmp(&r->z[u], &r->z[v], sizeof(float));
    const double a[3] = {r->x[u] - r->center[0], r->y[u] - r->center[1], r->z[u] - r->center[2]};
    const double b[3] = {r->x[v] - r->center[0], r->y[v] - r->center[1], r->z[v] - r->center[2]};
    const double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                         a[0] * b[1] - a[1] * b[0]};
    const double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    const double aa = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
    const double bb = b[0] * b[0] + b[1] * b[1] + b[2] * b[2];
    return cc <= 1e-12 * aa * bb;
}

/* Vertex u lowered by depth into vertex o. */
static void lower(strata_result *r, uint32_t u, uint32_t o, double depth)
{
    if (r->geometry == STRATA_FLAT) {
        r->x[o] = r->x[u];
        r->y[o] = (float)((double)r->y[u] - depth);
        r->z[o] = r->z[u];
    } else {
        const double p[3] = {r->x[u] - r->center[0], r->y[u] - r->center[1],
                             r->z[u] - r->center[2]};
        const double len = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        const double to = len - depth > 0.5 * len ? len - depth : 0.5 * len;
        const double f = len > 0 ? to / len : 0;
        r->x[o] = (float)(r->center[0] + p[0] * f);
        r->y[o] = (float)(r->center[1] + p[1] * f);
        r->z[o] = (float)(r->center[2] + p[2] * f);
    }
}

/* Vertex u copied into vertex o. */
static void copy(strata_result *r, uint32_t u, uint32_t o)
{
    r->x[o] = r->x[u];
    r->y[o] = r->y[u];
    r->z[o] = r->z[u];
}

/* Vertex o gets vertex u's normal. */
static void copy_normal(strata_result *r, uint32_t u, uint32_t o)
{
    r->nx[o] = r->nx[u];
    r->ny[o] = r->ny[u];
    r->nz[o] = r->nz[u];
}

/* With normals the walls have vertices of their own, at the roofs'
 * positions: edges are then told apart by position (each of the ncand
 * candidates' ends replaced by the first vertex at their position, the
 * candidates as their triangles have them kept in s->own). */
static strata_status by_position(const strata_result *r, strata_skirt_scratch *s, uint64_t ncand)
{
    size_t psize = 16;
    while (psize < 4 * ncand + 16)
        psize *= 2;
    if (s->pos_cap < psize || !s->pos) {
        strata__free(s->al, s->pos);
        s->pos_cap = 0;
        if (!(s->pos = strata__alloc_array(s->al, psize, 4 * sizeof(uint32_t))))
            return STRATA_ERR_NOMEM;
        s->pos_cap = psize;
    }
    uint32_t *pos = s->pos;
    const size_t pmask = psize - 1;
    for (size_t i = 0; i < psize; i++)
        pos[4 * i + 3] = UINT32_MAX;
    for (uint64_t i = 0; i < ncand; i++) {
        s->own[i] = s->cand[i];
        uint32_t end[2] = {(uint32_t)(s->cand[i] >> 32), (uint32_t)s->cand[i]};
        for (int e = 0; e < 2; e++) {
            uint32_t b[3];
            memcpy(&b[0], &r->x[end[e]], 4);
            memcpy(&b[1], &r->y[end[e]], 4);
            memcpy(&b[2], &r->z[end[e]], 4);
            const uint64_t h = ((uint64_t)b[0] * 0x9E3779B97F4A7C15ull) ^
                               ((uint64_t)b[1] * 0xC2B2AE3D27D4EB4Full) ^
                               ((uint64_t)b[2] * 0x165667B19E3779F9ull);
            size_t at = (size_t)(h >> 17) & pmask;
            while (pos[4 * at + 3] != UINT32_MAX && memcmp(&pos[4 * at], b, sizeof b))
                at = (at + 1) & pmask;
            if (pos[4 * at + 3] == UINT32_MAX) {
                memcpy(&pos[4 * at], b, sizeof b);
                pos[4 * at + 3] = end[e];
            }
            end[e] = pos[4 * at + 3];
        }
        s->cand[i] = (uint64_t)end[0] << 32 | end[1];
    }
    return STRATA_OK;
}

/* The terrace of the triangle at index i of r (its roof or wall range;
 * 0 outside every range). */
static uint32_t terrace_of(const strata_result *r, uint64_t i)
{
    for (uint32_t k = 0; k < r->nterraces; k++) {
        const strata_terrace *t = &r->terraces[k];
        if ((i >= t->roof_first && i - t->roof_first < t->roof_count) ||
            (i >= t->wall_first && i - t->wall_first < t->wall_count))
            return k;
    }
    return 0;
}

/* The border edges cand[0..quads) in s->order grouped by terrace (in
 * their order within each), and r's skirt_ends. */
static strata_status group_by_terrace(strata_result *r, strata_skirt_scratch *s, uint64_t quads)
{
    const uint32_t nk = r->nterraces ? r->nterraces : 1;
    if (r->skirt_ends_cap < nk) {
        uint64_t *e = strata__alloc_array(&r->alloc, nk, sizeof *e);
        if (!e)
            return STRATA_ERR_NOMEM;
        strata__free(&r->alloc, r->skirt_ends);
        r->skirt_ends = e;
        r->skirt_ends_cap = nk;
    }
    if (s->order_cap < quads || !s->order) {
        strata__free(s->al, s->order);
        s->order_cap = 0;
        if (!(s->order = strata__alloc_array(s->al, quads ? quads : 1, sizeof *s->order)))
            return STRATA_ERR_NOMEM;
        s->order_cap = quads ? quads : 1;
    }
    uint64_t *end = r->skirt_ends;
    memset(end, 0, nk * sizeof *end);
    for (uint64_t q = 0; q < quads; q++)
        end[s->ter[q] < nk ? s->ter[q] : 0]++;
    uint64_t at = 0;
    for (uint32_t k = 0; k < nk; k++) { /* end[k]: where terrace k starts */
        const uint64_t c = end[k];
        end[k] = at;
        at += c;
    }
    for (uint64_t q = 0; q < quads; q++)
        s->order[end[s->ter[q] < nk ? s->ter[q] : 0]++] = q;
    for (uint32_t k = 0; k < nk; k++) /* now each terrace's end, in quads */
        end[k] *= 6;
    return STRATA_OK;
}

strata_status strata__skirt_add(const strata_world *w, uint64_t id, strata_result *r,
                                double depth, strata_skirt_scratch *s)
{
    const uint32_t nv = r->nverts;
    const uint64_t ni = r->nindices, nt = ni / 3;
    if (s->side_cap < nv || !s->side) {
        strata__free(s->al, s->side);
        s->side_cap = 0;
        if (!(s->side = strata__alloc_array(s->al, nv ? nv : 1, 1)))
            return STRATA_ERR_NOMEM;
        s->side_cap = nv ? nv : 1;
    }
    mark_sides(w, id, r, s->side);
    const uint8_t *side = s->side;
    /* One pass over the triangles: the candidates (u -> v in their
     * triangle's order), few, listed; everything after works on them. */
    uint64_t ncand = 0;
    const uint32_t *ix = r->indices;
    for (uint64_t t = 0; t < nt; t++) {
        const uint32_t a = ix[3 * t], b = ix[3 * t + 1], d = ix[3 * t + 2];
        const uint8_t sa = side[a] & 15, sb = side[b] & 15, sd = side[d] & 15;
        if (!((sa & sb) | (sb & sd) | (sd & sa)))
            continue;
        if (s->cand_cap < ncand + 3) {
            const size_t want = s->cand_cap ? 2 * s->cand_cap : 4096;
            if (!regrow(s->al, (void **)&s->cand, (size_t)ncand, want, sizeof(uint64_t)) ||
                !regrow(s->al, (void **)&s->own, (size_t)ncand, want, sizeof(uint64_t)) ||
                !regrow(s->al, (void **)&s->ter, (size_t)ncand, want, sizeof(uint32_t)))
                return STRATA_ERR_NOMEM;
            s->cand_cap = want;
        }
        const uint32_t k = terrace_of(r, 3 * t);
        if (sa & sb) {
            s->ter[ncand] = k;
            s->cand[ncand++] = (uint64_t)a << 32 | b;
        }
        if (sb & sd) {
            s->ter[ncand] = k;
            s->cand[ncand++] = (uint64_t)b << 32 | d;
        }
        if (sd & sa) {
            s->ter[ncand] = k;
            s->cand[ncand++] = (uint64_t)d << 32 | a;
        }
    }
    if (r->nx && ncand) {
        const strata_status pst = by_position(r, s, ncand);
        if (pst != STRATA_OK)
            return pst;
    }
    size_t size = 16;
    while (size < 2 * ncand + 16)
        size *= 2;
    if (s->slot_cap < size || !s->slots) {
        strata__free(s->al, s->slots);
        s->slot_cap = 0;
        if (!(s->slots = strata__alloc_array(s->al, 2 * size, sizeof(uint64_t))))
            return STRATA_ERR_NOMEM;
        s->slot_cap = size;
    }
    uint64_t *slots = s->slots;
    const size_t mask = size - 1;
    for (size_t i = 0; i < size; i++)
        slots[2 * i] = UINT64_MAX;
    for (uint64_t i = 0; i < ncand; i++) {
        const uint32_t u = (uint32_t)(s->cand[i] >> 32), v = (uint32_t)s->cand[i];
        ++*slot_of(slots, mask, edge_key(u, v));
    }
    /* border edges (used once) that are not vertical, kept in place */
    uint64_t quads = 0;
    for (uint64_t i = 0; i < ncand; i++) {
        const uint32_t u = (uint32_t)(s->cand[i] >> 32), v = (uint32_t)s->cand[i];
        /* (an edge along the domain's edge, near an inner side too at a
         * corner, has no neighbour) */
        if (u != v && *slot_of(slots, mask, edge_key(u, v)) == 1 && !vertical(r, u, v) &&
            !(side[u] & side[v] & 0xF0)) {
            if (r->nx)
                s->own[quads] = s->own[i];
            s->ter[quads] = s->ter[i];
            s->cand[quads++] = s->cand[i];
        }
    }
    /* With normals, as the walls: four vertices of its own per quad, with
     * the normals of the edge's own triangle at its ends (the border
     * vertices keep theirs): lit as the roof or wall it hangs from, so
     * that where it shows (a pixel of the seam) it looks like them. */
    const uint32_t per = r->nx ? 4 : 2;
    strata_status st = group_by_terrace(r, s, quads);
    if (st == STRATA_OK)
        st = strata__result_grow(r, (uint64_t)nv + per * quads, ni + 6 * quads);
    if (st != STRATA_OK)
        return st;
    for (uint64_t q = 0; q < quads; q++) {
        const uint64_t e = s->order[q]; /* the q-th quad: border edge e */
        uint32_t u = (uint32_t)(s->cand[e] >> 32), v = (uint32_t)s->cand[e];
        const uint32_t base = nv + (uint32_t)(per * q), lu = base, lv = base + 1;
        lower(r, u, lu, depth);
        lower(r, v, lv, depth);
        if (r->nx) {
            copy(r, u, base + 2);
            copy(r, v, base + 3);
            u = base + 2;
            v = base + 3;
            const uint32_t ou = (uint32_t)(s->own[e] >> 32), ov = (uint32_t)s->own[e];
            copy_normal(r, ou, lu);
            copy_normal(r, ou, u);
            copy_normal(r, ov, lv);
            copy_normal(r, ov, v);
        }
        uint32_t *o = r->indices + ni + 6 * q;
        o[0] = v;
        o[1] = u;
        o[2] = lu;
        o[3] = v;
        o[4] = lu;
        o[5] = lv;
    }
    r->nverts = nv + (uint32_t)(per * quads);
    r->nindices = ni + 6 * quads;
    r->skirt_first = ni;
    r->skirt_count = 6 * quads;
    return STRATA_OK;
}
