/* Shapes: regular polygon, grid and icosphere, each with its edge table. */
#include "base/ctx.h"
#include "mesh/mesh.h"
#include "mesh/lattice.h"

#include <math.h>
#include <string.h>

static strata_status check_out(strata_ctx *ctx, strata_mesh **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    return ctx ? STRATA_OK : STRATA_ERR_INVALID_ARG;
}

/* Vertices at angles -2*pi*i/sides so that increasing i runs
 * counter-clockwise seen from +y (the fan then faces up). */
strata_status strata_shape_polygon(strata_ctx *ctx, int sides, float r, strata_mesh **out)
{
    strata_status st = check_out(ctx, out);
    if (st != STRATA_OK)
        return st;
    if (sides < 3 || sides > 64 || !(r > 0.0f) || !isfinite(r))
        return STRATA_ERR_INVALID_ARG;
    const int fan = sides >= 5;
    const uint32_t nv = (uint32_t)sides + (fan ? 1u : 0u);
    const uint32_t nt = fan ? (uint32_t)sides : (uint32_t)sides - 2u;
    float xyz[65 * 3];
    uint32_t tris[64 * 3];
    const uint32_t rim0 = fan ? 1u : 0u;
    if (fan)
        xyz[0] = xyz[1] = xyz[2] = 0.0f;
    for (int i = 0; i < sides; i++) {
        double ang = -2.0 * 3.14159265358979323846 * (double)i / (double)sides;
        float *p = &xyz[3 * (rim0 + (uint32_t)i)];
        p[0] = (float)((double)r * cos(ang));
        p[1] = 0.0f;
        p[2] = (float)((double)r * sin(ang));
    }
    for (uint32_t t = 0; t < nt; t++) {
        if (fan) {
            tris[3 * t] = 0;
            tris[3 * t + 1] = 1 + t;
            tris[3 * t + 2] = 1 + (t + 1) % (uint32_t)sides;
        } else { /* triangle or square: fan from the first rim vertex */
            tris[3 * t] = 0;
            tris[3 * t + 1] = t + 1;
            tris[3 * t + 2] = t + 2;
        }
    }
    return strata_mesh_create(ctx, xyz, nv, tris, nt, out);
}

/* Edges are numbered: the nx*(nz+1) edges along x first (row by row), then
 * the (nx+1)*nz edges along z, then one diagonal (i,j)-(i+1,j+1) per cell.
 * Cell (i,j) holds triangles 2k = (v00, v01, v11) and 2k+1 = (v00, v11,
 * v10), k = j*nx+i, both counter-clockwise seen from +y. */
void strata__grid_topology(strata_mesh *m, uint32_t nx, uint32_t nz, uint32_t row0,
                           uint32_t row1)
{
    const uint32_t w = nx + 1;
    const size_t nhx = (size_t)nx * (nz + 1), nhz = ((size_t)nx + 1) * nz;
    for (uint32_t j = row0; j < row1; j++) {
        for (uint32_t i = 0; i < nx; i++) { /* edges along x in row j */
            const size_t e = (size_t)j * nx + i;
            m->ev0[e] = j * w + i;
            m->ev1[e] = j * w + i + 1;
        }
        if (j == nz)
            continue;
        for (uint32_t i = 0; i <= nx; i++) { /* edges along z from row j */
            const size_t e = nhx + (size_t)j * w + i;
            m->ev0[e] = j * w + i;
            m->ev1[e] = (j + 1) * w + i;
        }
        for (uint32_t i = 0; i < nx; i++) {
            const size_t k = (size_t)j * nx + i;
            const uint32_t v00 = j * w + i, v10 = v00 + 1;
            const uint32_t v01 = v00 + w, v11 = v01 + 1;
            const uint32_t ediag = (uint32_t)(nhx + nhz + k);
            const uint32_t ex0 = (uint32_t)k;                          /* v00-v10 */
            const uint32_t ex1 = (uint32_t)((size_t)(j + 1) * nx + i); /* v01-v11 */
            const uint32_t ez0 = (uint32_t)(nhx + (size_t)j * w + i);  /* v00-v01 */
            const uint32_t ez1 = ez0 + 1;                              /* v10-v11 */
            m->ev0[ediag] = v00;
            m->ev1[ediag] = v11;
            m->a[2 * k] = v00; m->b[2 * k] = v01; m->c[2 * k] = v11;
            m->e0[2 * k] = ez0; m->e1[2 * k] = ex1; m->e2[2 * k] = ediag;
            m->a[2 * k + 1] = v00; m->b[2 * k + 1] = v11; m->c[2 * k + 1] = v10;
            m->e0[2 * k + 1] = ediag; m->e1[2 * k + 1] = ez1; m->e2[2 * k + 1] = ex0;
        }
    }
}

float strata__grid_coord(uint32_t i, uint32_t n, float cell)
{
    return (float)(((double)i - 0.5 * n) * cell);
}

strata_status strata_shape_grid(strata_ctx *ctx, uint32_t nx, uint32_t nz, float cell,
                                strata_mesh **out)
{
    strata_status st = check_out(ctx, out);
    if (st != STRATA_OK)
        return st;
    if (nx == 0 || nz == 0 || !(cell > 0.0f) || !isfinite(cell))
        return STRATA_ERR_INVALID_ARG;
    const uint64_t nv = ((uint64_t)nx + 1) * ((uint64_t)nz + 1);
    const uint64_t nt = 2 * (uint64_t)nx * nz;
    const uint64_t nhx = (uint64_t)nx * (nz + 1), nhz = ((uint64_t)nx + 1) * nz;
    const uint64_t ne = nhx + nhz + (uint64_t)nx * nz;
    if (nv > UINT32_MAX || nt > UINT32_MAX || ne > UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    strata_mesh *m;
    st = strata__mesh_alloc(&ctx->alloc, (uint32_t)nv, (uint32_t)nt, (uint32_t)ne, &m);
    if (st != STRATA_OK)
        return st;
    const uint32_t w = nx + 1;
    const int64_t rows = (int64_t)nz + 1;

#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t jj = 0; jj < rows; jj++) {
        const uint32_t j = (uint32_t)jj;
        const float zj = strata__grid_coord(j, nz, cell);
        for (uint32_t i = 0; i <= nx; i++) {
            const size_t v = (size_t)j * w + i;
            m->x[v] = strata__grid_coord(i, nx, cell);
            m->y[v] = 0.0f;
            m->z[v] = zj;
            m->h[v] = 0.0f;
        }
        strata__grid_topology(m, nx, nz, j, j + 1);
    }
    *out = m;
    return STRATA_OK;
}

/* The icosahedron: the 12 cyclic permutations of (0, +-1, +-phi), scaled
 * to radius r.  Faces are oriented outward when built (checked below). */
static strata_status icosahedron(strata_ctx *ctx, float r, strata_mesh **out)
{
    const double phi = 1.6180339887498948482;
    static const signed char base[12][3] = {
        {-1, 2, 0}, {1, 2, 0}, {-1, -2, 0}, {1, -2, 0},
        {0, -1, 2}, {0, 1, 2}, {0, -1, -2}, {0, 1, -2},
        {2, 0, -1}, {2, 0, 1}, {-2, 0, -1}, {-2, 0, 1}};
    static const uint32_t faces[20][3] = {
        {0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
        {1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
        {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
        {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    const double len = sqrt(1.0 + phi * phi);
    float xyz[36];
    uint32_t tris[60];
    for (int i = 0; i < 12; i++)
        for (int k = 0; k < 3; k++) {
            int b = base[i][k];
            double c = b == 2 ? phi : b == -2 ? -phi : (double)b;
            xyz[3 * i + k] = (float)(c / len * r);
        }
    for (int f = 0; f < 20; f++) {
        const uint32_t *t = faces[f];
        const float *p = &xyz[3 * t[0]], *q = &xyz[3 * t[1]], *s = &xyz[3 * t[2]];
        double ux = q[0] - p[0], uy = q[1] - p[1], uz = q[2] - p[2];
        double vx = s[0] - p[0], vy = s[1] - p[1], vz = s[2] - p[2];
        double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
        int outward = nx * p[0] + ny * p[1] + nz * p[2] > 0.0;
        tris[3 * f] = t[0];
        tris[3 * f + 1] = outward ? t[1] : t[2];
        tris[3 * f + 2] = outward ? t[2] : t[1];
    }
    strata_status st = strata_mesh_create(ctx, xyz, 12, tris, 20, out);
    if (st == STRATA_OK)
        st = strata_mesh_set_geometry(*out, STRATA_RADIAL, NULL, r);
    return st;
}

strata_status strata_shape_icosphere(strata_ctx *ctx, int level, float r, strata_mesh **out)
{
    strata_status st = check_out(ctx, out);
    if (st != STRATA_OK)
        return st;
    if (level < 0 || !(r > 0.0f) || !isfinite(r))
        return STRATA_ERR_INVALID_ARG;
    uint32_t v, t, e;
    st = strata_subdivide_counts(12, 20, 30, level, &v, &t, &e);
    if (st != STRATA_OK)
        return st;
    strata_mesh *ico;
    st = icosahedron(ctx, r, &ico);
    if (st != STRATA_OK || level == 0) {
        *out = st == STRATA_OK ? ico : NULL;
        return st;
    }
    st = strata_mesh_subdivide(ctx, ico, level, STRATA_SUBDIVIDE_PROJECT, out);
    strata_mesh_destroy(ico);
    return st;
}
