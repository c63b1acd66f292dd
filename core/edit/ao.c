/* Baked ambient occlusion (strata_result_bake_ao): horizons over the
 * terraced surface's height field.
 *
 * The terraced surface is a height field (planets: of distances from the
 * centre), so occlusion is read from horizons rather than from rays
 * against the mesh: the surface is rasterised once into a grid of its
 * highest point per cell (the roofs: the walls have no area seen from
 * above), then each vertex looks along STRATA_AO_DIRECTIONS directions at
 * STRATA_AO_STEPS points up to the radius and keeps, per direction, the
 * highest sine of the elevation angle it sees, weighted down with the
 * distance.  A grid lookup is a load; a ray against the mesh would walk
 * cells and test triangles (docs/DESIGN.md, "Ambient occlusion").
 *
 * Determinism: the grid's cells are maxima of values that depend only on
 * one triangle and the cell (written with an atomic maximum: any order,
 * any thread count gives the same grid), and each vertex is baked from
 * the grid and its own position alone, in double precision, scalar: the
 * same bytes for every thread count and instruction set. */
#include "base/alloc.h"
#include "base/ctx.h"
#include "edit/ao.h"
#include "mesh/result.h"

#include <math.h>
#include <string.h>

/* Order-preserving key of a height (never 0: 0 is "no surface"). */
static inline uint32_t key_of(float h)
{
    uint32_t u;
    h += 0.0f; /* -0 -> +0 */
    memcpy(&u, &h, sizeof u);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

static inline double height_of(uint32_t k)
{
    const uint32_t u = k & 0x80000000u ? k & 0x7fffffffu : ~k;
    float h;
    memcpy(&h, &u, sizeof h);
    return h;
}

static inline void raise_cell(uint32_t *cell, uint32_t k)
{
    uint32_t cur = __atomic_load_n(cell, __ATOMIC_RELAXED);
    while (k > cur &&
           !__atomic_compare_exchange_n(cell, &cur, k, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

static strata_status grid_alloc(const strata_allocator *al, uint64_t cells, strata_ao_grid *g)
{
    if (cells == 0 || cells > STRATA_AO_MAX_CELLS)
        return STRATA_ERR_TOO_LARGE;
    if (!(g->key = strata__alloc_array(al, (size_t)cells, sizeof *g->key)))
        return STRATA_ERR_NOMEM;
    memset(g->key, 0, (size_t)cells * sizeof *g->key);
    return STRATA_OK;
}

strata_status strata__ao_grid_flat(const strata_allocator *al, float radius, const float lo[2],
                                   const float hi[2], strata_ao_grid *g)
{
    memset(g, 0, sizeof *g);
    g->geometry = STRATA_FLAT;
    g->radius = radius;
    g->cell = (double)radius / STRATA_AO_STEPS;
    const double i0 = floor(lo[0] / g->cell), i1 = floor(hi[0] / g->cell);
    const double j0 = floor(lo[1] / g->cell), j1 = floor(hi[1] / g->cell);
    const double cells = (i1 - i0 + 1) * (j1 - j0 + 1);
    if (!(cells <= (double)STRATA_AO_MAX_CELLS) || fabs(i0) > 1e15 || fabs(j0) > 1e15)
        return STRATA_ERR_TOO_LARGE;
    g->i0 = (int64_t)i0;
    g->j0 = (int64_t)j0;
    g->nx = (uint64_t)(i1 - i0 + 1);
    g->nz = (uint64_t)(j1 - j0 + 1);
    return grid_alloc(al, g->nx * g->nz, g);
}

strata_status strata__ao_grid_radial(const strata_allocator *al, float radius,
                                     const float center[3], float surface, strata_ao_grid *g)
{
    memset(g, 0, sizeof *g);
    g->geometry = STRATA_RADIAL;
    g->radius = radius;
    for (int k = 0; k < 3; k++)
        g->center[k] = center[k];
    /* a face spans 2 in (u, v), about 2 surface lengths at its middle */
    const double n = ceil(2.0 * surface / ((double)radius / STRATA_AO_STEPS));
    if (!(n * n * 6 <= (double)STRATA_AO_MAX_CELLS))
        return STRATA_ERR_TOO_LARGE;
    g->nx = g->nz = n < 1 ? 1 : (uint64_t)n;
    g->cell = 2.0 / (double)g->nx;
    return grid_alloc(al, 6 * g->nx * g->nz, g);
}

void strata__ao_grid_free(const strata_allocator *al, strata_ao_grid *g)
{
    strata__free(al, g->key);
    g->key = NULL;
}

/* ------------------------------------------------------------ rasterising */

/* floor(x) for |x| < 2^62 (libm's floor is a call on plain x86-64). */
static inline int64_t ifloor(double x)
{
    const int64_t i = (int64_t)x;
    return i - (x < (double)i);
}

/* A triangle in a grid's plane: corners (u, v); its heights are asked
 * for (height()) only when it covers a cell centre, which most triangles
 * of a fine mesh do not. */
typedef struct tri2 {
    double u[3], v[3];
} tri2;

/* The heights of triangle ix's corners: FLAT y, RADIAL the distance
 * from the centre (rounded to float, as the grid keeps them). */
static void corner_heights(const strata_ao_grid *g, const strata_result *r, const uint32_t *ix,
                           double h[3])
{
    for (int k = 0; k < 3; k++) {
        if (g->geometry == STRATA_FLAT) {
            h[k] = r->y[ix[k]];
            continue;
        }
        const double x = (double)r->x[ix[k]] - g->center[0];
        const double y = (double)r->y[ix[k]] - g->center[1];
        const double z = (double)r->z[ix[k]] - g->center[2];
        h[k] = (float)sqrt(x * x + y * y + z * z);
    }
}

/* Raise the cells of the window (origin i0, j0; nx x nz at keys) whose
 * centres ((i + 0.5) cell + off) lie in t (edges included) to t's height
 * there: its corners' common height, or the plane through them. */
static void raster(const strata_ao_grid *g, const strata_result *r, const uint32_t *ix,
                   const tri2 *t, double off, int64_t i0, int64_t j0, uint32_t *keys)
{
    const double cell = g->cell, inv = 1.0 / cell;
    double ulo = t->u[0], uhi = t->u[0], vlo = t->v[0], vhi = t->v[0];
    for (int k = 1; k < 3; k++) {
        ulo = t->u[k] < ulo ? t->u[k] : ulo;
        uhi = t->u[k] > uhi ? t->u[k] : uhi;
        vlo = t->v[k] < vlo ? t->v[k] : vlo;
        vhi = t->v[k] > vhi ? t->v[k] : vhi;
    }
    /* cells whose centre lies in [lo, hi]: a from -floor(0.5 - x) */
    int64_t a0 = -ifloor(0.5 - (ulo - off) * inv) - i0;
    int64_t a1 = ifloor((uhi - off) * inv - 0.5) - i0;
    int64_t b0 = -ifloor(0.5 - (vlo - off) * inv) - j0;
    int64_t b1 = ifloor((vhi - off) * inv - 0.5) - j0;
    a0 = a0 < 0 ? 0 : a0;
    b0 = b0 < 0 ? 0 : b0;
    a1 = a1 >= (int64_t)g->nx ? (int64_t)g->nx - 1 : a1;
    b1 = b1 >= (int64_t)g->nz ? (int64_t)g->nz - 1 : b1;
    if (a0 > a1 || b0 > b1)
        return;
    const double area = (t->u[1] - t->u[0]) * (t->v[2] - t->v[0]) -
                        (t->v[1] - t->v[0]) * (t->u[2] - t->u[0]);
    if (!(area != 0)) /* a wall seen from above, or not finite */
        return;
    double h[3];
    corner_heights(g, r, ix, h);
    const int flat = h[0] == h[1] && h[1] == h[2];
    const uint32_t flat_key = key_of((float)h[0]);
    for (int64_t b = b0; b <= b1; b++) {
        const double pv = ((double)(b + j0) + 0.5) * cell + off;
        for (int64_t a = a0; a <= a1; a++) {
            const double pu = ((double)(a + i0) + 0.5) * cell + off;
            double w[3];
            for (int k = 0; k < 3; k++) {
                const int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
                w[k] = (t->u[k1] - pu) * (t->v[k2] - pv) - (t->v[k1] - pv) * (t->u[k2] - pu);
            }
            const int in = area > 0 ? w[0] >= 0 && w[1] >= 0 && w[2] >= 0
                                    : w[0] <= 0 && w[1] <= 0 && w[2] <= 0;
            if (!in)
                continue;
            const uint32_t k = flat ? flat_key
                                    : key_of((float)((w[0] * h[0] + w[1] * h[1] + w[2] * h[2]) /
                                                     area));
            raise_cell(&keys[(uint64_t)b * g->nx + (uint64_t)a], k);
        }
    }
}

/* The face axes: face f = 2 a + (s < 0) looks along axis a, sign s; its
 * (u, v) are the coordinates U[a] and V[a] over |p[a]|. */
static const int U[3] = {1, 2, 0}, V[3] = {2, 0, 1};

static void raster_flat(strata_ao_grid *g, const strata_result *r, const uint32_t *ix)
{
    tri2 t;
    for (int k = 0; k < 3; k++) {
        t.u[k] = r->x[ix[k]];
        t.v[k] = r->z[ix[k]];
    }
    raster(g, r, ix, &t, 0, g->i0, g->j0, g->key);
}

/* A triangle on the faces its corners look at (a corner's largest
 * coordinate; one that straddles two faces goes onto both, each holding
 * its part), when all three corners lie in front of the face.  A third
 * face could hold a sliver of a triangle around a cube's corner that
 * none of its corners looks at; that sliver is left out (a choice made
 * from the triangle alone, so every grid makes the same one), which
 * spares projecting every triangle onto the three faces it lies in
 * front of. */
static void raster_radial(strata_ao_grid *g, const strata_result *r, const uint32_t *ix)
{
    double p[3][3];
    for (int k = 0; k < 3; k++) {
        p[k][0] = (double)r->x[ix[k]] - g->center[0];
        p[k][1] = (double)r->y[ix[k]] - g->center[1];
        p[k][2] = (double)r->z[ix[k]] - g->center[2];
    }
    const uint64_t n = g->nx;
    unsigned faces = 0;
    for (int k = 0; k < 3; k++) {
        int a = 0;
        for (int c = 1; c < 3; c++)
            if (fabs(p[k][c]) > fabs(p[k][a]))
                a = c;
        faces |= 1u << (2 * a + (p[k][a] < 0));
    }
    for (int f = 0; f < 6; f++) {
        const int a = f / 2;
        const double s = f & 1 ? -1.0 : 1.0;
        if (!(faces >> f & 1) || !(s * p[0][a] > 0 && s * p[1][a] > 0 && s * p[2][a] > 0))
            continue;
        tri2 t;
        for (int k = 0; k < 3; k++) {
            const double w = s / p[k][a];
            t.u[k] = p[k][U[a]] * w;
            t.v[k] = p[k][V[a]] * w;
        }
        raster(g, r, ix, &t, -1.0, 0, 0, g->key + (uint64_t)f * n * n);
    }
}

void strata__ao_grid_add(strata_ctx *ctx, strata_ao_grid *g, const strata_result *src)
{
    /* the roofs: walls are vertical, nothing seen from above (an unsliced
     * mesh is all roof) */
    for (uint32_t k = 0; k < src->nterraces; k++) {
        const strata_terrace *t = &src->terraces[k];
        const int64_t ntris = (int64_t)(t->roof_count / 3);
        const uint32_t *ix = src->indices + t->roof_first;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 4096) if (ntris > 65536)
        for (int64_t i = 0; i < ntris; i++) {
            if (g->geometry == STRATA_FLAT)
                raster_flat(g, src, ix + 3 * i);
            else
                raster_radial(g, src, ix + 3 * i);
        }
    }
}

/* ------------------------------------------------------------ baking */

/* The directions: STRATA_AO_DIRECTIONS unit vectors, every 45 degrees. */
#define H 0.70710678118654752
static const double dir_c[STRATA_AO_DIRECTIONS] = {1, H, 0, -H, -1, -H, 0, H};
static const double dir_s[STRATA_AO_DIRECTIONS] = {0, H, 1, H, 0, -H, -1, -H};
#undef H

/* What a point contributes: its elevation sine seen from t away,
 * weighted 1 - s / STEPS (near walls matter most).  Never more than the
 * weight, so a direction stops once what it has reaches the next
 * point's weight: the same maximum, fewer loads. */
static inline double lift(double rise, double t, int s)
{
    if (!(rise > 0))
        return 0;
    const double m = rise / t;
    return (1.0 - (double)s / STRATA_AO_STEPS) * (m / sqrt(1.0 + m * m));
}

static inline uint8_t quantise(double occ)
{
    const double ao = 1.0 - occ / STRATA_AO_DIRECTIONS;
    return (uint8_t)(ao * 255.0 + 0.5);
}

/* A vertex is baked as if it stood at its cell's centre (at its own
 * height, rounded to float), so vertices sharing a cell and a height
 * share the result: a function of (cell, height) alone.  Most stand at
 * their cell's own surface (within rounding: a planet's roof vertices
 * differ in their last bits); those cells are baked once each, in cell
 * order (the grid read stays in cache), the others (the feet and tops of
 * walls) through a small cache per thread.  Neither changes the bytes. */
typedef struct baker {
    const strata_ao_grid *g;
    uint64_t cells;
    uint16_t *own;  /* per cell: 0 no vertex at its surface, 1 some not
                       yet baked, else 256 + the occlusion */
    uint32_t *vcell; /* per vertex: its cell, OWN set when it stands at
                        the cell's surface; NO_CELL: outside the grid */
    int64_t off[STRATA_AO_DIRECTIONS][STRATA_AO_STEPS][2]; /* FLAT: cell offsets */
} baker;

#define OWN 0x80000000u
#define NO_CELL 0xffffffffu

/* FLAT: the samples are whole cells away from the centre. */
static uint8_t bake_flat(const baker *b, int64_t i, int64_t j, double h)
{
    const strata_ao_grid *g = b->g;
    double occ = 0;
    for (int d = 0; d < STRATA_AO_DIRECTIONS; d++) {
        double od = 0;
        for (int s = 0; s < STRATA_AO_STEPS && od < 1.0 - (double)s / STRATA_AO_STEPS; s++) {
            const int64_t a = i + b->off[d][s][0], c = j + b->off[d][s][1];
            if (a < 0 || c < 0 || a >= (int64_t)g->nx || c >= (int64_t)g->nz)
                continue;
            const uint32_t k = g->key[(uint64_t)c * g->nx + (uint64_t)a];
            if (k) {
                const double o = lift(height_of(k) - h, g->cell * (s + 1), s);
                od = o > od ? o : od;
            }
        }
        occ += od;
    }
    return quantise(occ);
}

/* The cell of direction q (not zero) in a cube map of n x n faces. */
static inline uint64_t cube_cell(const double q[3], uint64_t n, double cell)
{
    int a = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(q[k]) > fabs(q[a]))
            a = k;
    const double w = fabs(q[a]);
    const int f = 2 * a + (q[a] < 0);
    int64_t i = ifloor((q[U[a]] / w + 1.0) / cell);
    int64_t j = ifloor((q[V[a]] / w + 1.0) / cell);
    i = i < 0 ? 0 : i >= (int64_t)n ? (int64_t)n - 1 : i;
    j = j < 0 ? 0 : j >= (int64_t)n ? (int64_t)n - 1 : j;
    return ((uint64_t)f * n + (uint64_t)j) * n + (uint64_t)i;
}

/* RADIAL: from the centre of cube cell `cell` (direction u) at distance
 * rho, along the tangent plane.  A sample t away along direction e is
 * the direction rho u + t e; on the cell's face it lies, to first order,
 * (s + 1) steps of (du, dv) cells away, with du = (e_U - u_U e_a) L /
 * (rho cell) (L = |(1, u_U, u_V)|, the face coordinates of the centre),
 * which makes a sample as cheap as on a flat grid; one that leaves the
 * face is projected exactly onto the cube.  What lies there at distance H
 * from the centre rises H rho / sqrt(rho^2 + t^2) - rho above the
 * tangent plane. */
static uint8_t bake_radial(const baker *b, uint64_t cell, double rho)
{
    const strata_ao_grid *g = b->g;
    const uint64_t n = g->nx;
    const int f = (int)(cell / (n * n)), a = f / 2;
    const int64_t ci = (int64_t)(cell % n), cj = (int64_t)(cell / n % n);
    const uint32_t *face = g->key + (uint64_t)f * n * n;
    double u[3];
    u[a] = f & 1 ? -1.0 : 1.0;
    u[U[a]] = -1.0 + ((double)ci + 0.5) * g->cell;
    u[V[a]] = -1.0 + ((double)cj + 0.5) * g->cell;
    const double L = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    const double fu = u[U[a]], fv = u[V[a]];
    for (int k = 0; k < 3; k++)
        u[k] /= L;
    /* a tangent basis: e1 across the axis u is least along, e2 = u x e1 */
    int m = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(u[k]) < fabs(u[m]))
            m = k;
    double e1[3] = {0, 0, 0};
    e1[(m + 1) % 3] = u[(m + 2) % 3];
    e1[(m + 2) % 3] = -u[(m + 1) % 3];
    const double l = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]);
    for (int k = 0; k < 3; k++)
        e1[k] /= l;
    const double e2[3] = {u[1] * e1[2] - u[2] * e1[1], u[2] * e1[0] - u[0] * e1[2],
                          u[0] * e1[1] - u[1] * e1[0]};
    const double step = g->radius / STRATA_AO_STEPS;
    const double toc = L * step / (rho * g->cell) * (f & 1 ? -1.0 : 1.0);
    double drop[STRATA_AO_STEPS];
    for (int s = 0; s < STRATA_AO_STEPS; s++) {
        const double t = step * (s + 1);
        drop[s] = rho / sqrt(rho * rho + t * t);
    }
    double occ = 0;
    for (int d = 0; d < STRATA_AO_DIRECTIONS; d++) {
        double od = 0;
        const double e[3] = {dir_c[d] * e1[0] + dir_s[d] * e2[0],
                             dir_c[d] * e1[1] + dir_s[d] * e2[1],
                             dir_c[d] * e1[2] + dir_s[d] * e2[2]};
        const double ea = e[a] * (f & 1 ? -1.0 : 1.0);
        const double du = (e[U[a]] - fu * ea) * toc, dv = (e[V[a]] - fv * ea) * toc;
        for (int s = 0; s < STRATA_AO_STEPS && od < 1.0 - (double)s / STRATA_AO_STEPS; s++) {
            const int64_t i = ci + ifloor(0.5 + (s + 1) * du);
            const int64_t j = cj + ifloor(0.5 + (s + 1) * dv);
            uint32_t k;
            if (i >= 0 && j >= 0 && i < (int64_t)n && j < (int64_t)n) {
                k = face[(uint64_t)j * n + (uint64_t)i];
            } else {
                const double t = step * (s + 1);
                const double q[3] = {rho * u[0] + t * e[0], rho * u[1] + t * e[1],
                                     rho * u[2] + t * e[2]};
                k = g->key[cube_cell(q, n, g->cell)];
            }
            if (k) {
                const double o = lift(height_of(k) * drop[s] - rho, step * (s + 1), s);
                od = o > od ? o : od;
            }
        }
        occ += od;
    }
    return quantise(occ);
}

/* Vertex v's cell (NO_CELL outside the grid) and height, rounded to
 * float: the surface's in its cell when within rounding of it. */
static uint32_t vertex_cell(const strata_ao_grid *g, const strata_result *r, uint32_t v,
                            double *h)
{
    uint64_t cell;
    if (g->geometry == STRATA_FLAT) {
        const int64_t i = ifloor(r->x[v] / g->cell) - g->i0;
        const int64_t j = ifloor(r->z[v] / g->cell) - g->j0;
        *h = r->y[v];
        if (i < 0 || j < 0 || i >= (int64_t)g->nx || j >= (int64_t)g->nz)
            return NO_CELL;
        cell = (uint64_t)j * g->nx + (uint64_t)i;
    } else {
        const double p[3] = {(double)r->x[v] - g->center[0], (double)r->y[v] - g->center[1],
                             (double)r->z[v] - g->center[2]};
        const double rho = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        *h = (double)(float)rho;
        if (!(rho > 0))
            return NO_CELL;
        cell = cube_cell(p, g->nx, g->cell);
    }
    const uint32_t own = g->key[cell];
    if (own && fabs(height_of(own) - *h) <= g->radius * 0x1p-12) {
        *h = height_of(own);
        return (uint32_t)cell | OWN;
    }
    return (uint32_t)cell;
}

static uint8_t bake_cell(const baker *b, uint64_t cell, double h)
{
    const strata_ao_grid *g = b->g;
    if (g->geometry != STRATA_FLAT)
        return bake_radial(b, cell, h);
    return bake_flat(b, (int64_t)(cell % g->nx), (int64_t)(cell / g->nx), h);
}

enum { CACHE = 2048, BLOCK = 4096 };
typedef struct memo {
    uint32_t cell, used;
    double h;
    uint8_t ao;
} memo;

/* A vertex not at its cell's surface. */
static uint8_t bake_other(const baker *b, const strata_result *r, uint32_t v, memo *cache)
{
    double h;
    const uint32_t cell = vertex_cell(b->g, r, v, &h);
    if (cell == NO_CELL)
        return 255;
    memo *m = &cache[(cell * 0x9E3779B1u ^ (uint32_t)key_of((float)h)) % CACHE];
    if (!(m->used && m->cell == cell && m->h == h)) {
        m->cell = cell;
        m->h = h;
        m->used = 1;
        m->ao = bake_cell(b, cell, h);
    }
    return m->ao;
}

/* The three passes: the vertices' cells (marking cells with a vertex at
 * their surface), those cells in order, then every vertex. */
static void bake_passes(strata_ctx *ctx, baker *b, strata_result *r)
{
    const strata_ao_grid *g = b->g;
    const int64_t nv = r->nverts;
#pragma omp parallel for num_threads(ctx->threads) schedule(static, BLOCK)
    for (int64_t v = 0; v < nv; v++) {
        double h;
        const uint32_t c = b->vcell[v] = vertex_cell(g, r, (uint32_t)v, &h);
        if (c != NO_CELL && c & OWN)
            __atomic_store_n(&b->own[c & ~OWN], (uint16_t)1, __ATOMIC_RELAXED);
    }
    const int64_t nc = (int64_t)b->cells;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, BLOCK)
    for (int64_t c = 0; c < nc; c++)
        if (b->own[c] && !strata__cancelled(ctx))
            b->own[c] = (uint16_t)(256 + bake_cell(b, (uint64_t)c, height_of(g->key[c])));
    uint8_t *ao = r->ao;
#pragma omp parallel num_threads(ctx->threads)
    {
        memo cache[CACHE];
        memset(cache, 0, sizeof cache);
#pragma omp for schedule(dynamic, BLOCK)
        for (int64_t v = 0; v < nv; v++) {
            const uint32_t c = b->vcell[v];
            ao[v] = c == NO_CELL       ? 255
                    : c & OWN          ? (uint8_t)(b->own[c & ~OWN] - 256)
                    : strata__cancelled(ctx) ? 255
                                             : bake_other(b, r, (uint32_t)v, cache);
        }
    }
}

strata_status strata__ao_grid_bake(strata_ctx *ctx, const strata_ao_grid *g, strata_result *r)
{
    const uint32_t nv = r->nverts;
    if (!r->ao || r->ao_cap < nv) {
        strata__free(&r->alloc, r->ao);
        r->ao_cap = 0;
        r->ao_verts = 0;
        if (!(r->ao = strata__alloc_array(&r->alloc, nv ? nv : 1, 1)))
            return STRATA_ERR_NOMEM;
        r->ao_cap = nv;
    }
    baker b = {.g = g, .cells = g->geometry == STRATA_FLAT ? g->nx * g->nz : 6 * g->nx * g->nz};
    for (int d = 0; d < STRATA_AO_DIRECTIONS; d++)
        for (int s = 0; s < STRATA_AO_STEPS; s++) {
            b.off[d][s][0] = ifloor(0.5 + (s + 1) * dir_c[d]);
            b.off[d][s][1] = ifloor(0.5 + (s + 1) * dir_s[d]);
        }
    b.own = strata__alloc_array(&ctx->alloc, (size_t)b.cells, sizeof *b.own);
    b.vcell = strata__alloc_array(&ctx->alloc, nv ? nv : 1, sizeof *b.vcell);
    strata_status st = STRATA_ERR_NOMEM;
    if (b.own && b.vcell) {
        memset(b.own, 0, (size_t)b.cells * sizeof *b.own);
        bake_passes(ctx, &b, r);
        st = strata__cancelled(ctx) ? STRATA_ERR_CANCELLED : STRATA_OK;
    }
    strata__free(&ctx->alloc, b.own);
    strata__free(&ctx->alloc, b.vcell);
    if (st == STRATA_OK)
        r->ao_verts = nv;
    return st;
}

/* ------------------------------------------------------------ whole results */

strata_status strata_result_bake_ao(strata_ctx *ctx, strata_result *r, float radius)
{
    if (!ctx || !r || !(radius > 0) || !isfinite(radius))
        return STRATA_ERR_INVALID_ARG;
    r->ao_verts = 0;
    if (!r->nverts)
        return STRATA_OK;
    /* the extent in x and z (FLAT: the grid's window), every coordinate
     * finite */
    float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    int bad = 0;
    const int64_t nv = r->nverts;
#pragma omp parallel for num_threads(ctx->threads) schedule(static) reduction(| : bad) \
    reduction(min : lo[:2]) reduction(max : hi[:2])
    for (int64_t i = 0; i < nv; i++) {
        bad |= !isfinite(r->x[i]) || !isfinite(r->y[i]) || !isfinite(r->z[i]);
        lo[0] = r->x[i] < lo[0] ? r->x[i] : lo[0];
        hi[0] = r->x[i] > hi[0] ? r->x[i] : hi[0];
        lo[1] = r->z[i] < lo[1] ? r->z[i] : lo[1];
        hi[1] = r->z[i] > hi[1] ? r->z[i] : hi[1];
    }
    if (bad)
        return STRATA_ERR_NOT_FINITE;
    strata_ao_grid g;
    strata_status st;
    if (r->geometry == STRATA_FLAT) {
        st = strata__ao_grid_flat(&ctx->alloc, radius, lo, hi, &g);
    } else {
        st = strata__ao_grid_radial(&ctx->alloc, radius, r->center, r->radius, &g);
    }
    if (st == STRATA_OK) {
        strata__ao_grid_add(ctx, &g, r);
        st = strata__cancelled(ctx) ? STRATA_ERR_CANCELLED : strata__ao_grid_bake(ctx, &g, r);
    }
    strata__ao_grid_free(&ctx->alloc, &g);
    return st;
}
