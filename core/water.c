/* Water at a height: a surface of its own appended to a result
 * (strata_result_add_water). */
#include "alloc.h"
#include "ctx.h"
#include "mesh.h"
#include "result.h"

#include <math.h>
#include <string.h>

/* Twice the signed area of the polygon's turn at point i (the z of the
 * cross product in the x, z plane; positive: turning towards -z from +x,
 * i.e. counter-clockwise seen from above with y up). */
static double turn(const float *p, uint32_t n, uint32_t i)
{
    const uint32_t a = i, b = (i + 1) % n, c = (i + 2) % n;
    const double ux = (double)p[2 * b] - p[2 * a], uz = (double)p[2 * b + 1] - p[2 * a + 1];
    const double vx = (double)p[2 * c] - p[2 * b], vz = (double)p[2 * c + 1] - p[2 * b + 1];
    return uz * vx - ux * vz; /* the y of (u x v): > 0 turns up-facing */
}

/* The flat water: the convex outline fanned from its first point. */
static strata_status flat_water(strata_result *r, float level, const float *outline, uint32_t n)
{
    float rect[8];
    if (!outline) {
        if (!r->nverts)
            return STRATA_ERR_INVALID_ARG;
        float lo[2] = {r->x[0], r->z[0]}, hi[2] = {r->x[0], r->z[0]};
        for (uint32_t i = 1; i < r->nverts; i++) {
            lo[0] = fminf(lo[0], r->x[i]);
            hi[0] = fmaxf(hi[0], r->x[i]);
            lo[1] = fminf(lo[1], r->z[i]);
            hi[1] = fmaxf(hi[1], r->z[i]);
        }
        const float q[8] = {lo[0], lo[1], hi[0], lo[1], hi[0], hi[1], lo[0], hi[1]};
        memcpy(rect, q, sizeof rect);
        outline = rect;
        n = 4;
    }
    if (n < 3)
        return STRATA_ERR_INVALID_ARG;
    int sign = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(outline[2 * i]) || !isfinite(outline[2 * i + 1]))
            return STRATA_ERR_INVALID_ARG;
        const double t = turn(outline, n, i);
        const int s = (t > 0) - (t < 0);
        if (s == 0 || (sign && s != sign))
            return STRATA_ERR_INVALID_ARG; /* not strictly convex */
        sign = s;
    }
    const uint64_t nv = (uint64_t)r->nverts + n, ni = r->nindices + 3 * (uint64_t)(n - 2);
    strata_status st = strata__result_grow(r, nv, ni);
    if (st != STRATA_OK)
        return st;
    const uint32_t v0 = r->nverts;
    for (uint32_t i = 0; i < n; i++) {
        r->x[v0 + i] = outline[2 * i];
        r->y[v0 + i] = level;
        r->z[v0 + i] = outline[2 * i + 1];
        if (r->nx) {
            r->nx[v0 + i] = 0.0f;
            r->ny[v0 + i] = 1.0f;
            r->nz[v0 + i] = 0.0f;
        }
    }
    uint32_t *ix = r->indices + r->nindices;
    for (uint32_t i = 1; i + 1 < n; i++, ix += 3) {
        ix[0] = v0;
        ix[1] = v0 + (sign > 0 ? i : i + 1);
        ix[2] = v0 + (sign > 0 ? i + 1 : i);
    }
    r->water_first = r->nindices;
    r->water_count = ni - r->nindices;
    r->nverts = (uint32_t)nv;
    r->nindices = ni;
    return STRATA_OK;
}

/* The planet's water: an icosphere of radius + level about the centre. */
static strata_status sphere_water(strata_ctx *ctx, strata_result *r, float level,
                                  uint32_t sphere_level)
{
    const float radius = r->radius + level;
    if (!(radius > 0) || !isfinite(radius) || sphere_level > STRATA_WATER_SPHERE_LEVEL_MAX)
        return STRATA_ERR_INVALID_ARG;
    strata_mesh *m;
    strata_status st = strata_shape_icosphere(ctx, (int)sphere_level, radius, &m);
    if (st != STRATA_OK)
        return st;
    const uint64_t nv = (uint64_t)r->nverts + m->nverts, ni = r->nindices + 3 * (uint64_t)m->ntris;
    st = strata__result_grow(r, nv, ni);
    if (st == STRATA_OK) {
        const uint32_t v0 = r->nverts;
        for (uint32_t i = 0; i < m->nverts; i++) {
            r->x[v0 + i] = m->x[i] + r->center[0];
            r->y[v0 + i] = m->y[i] + r->center[1];
            r->z[v0 + i] = m->z[i] + r->center[2];
            if (r->nx) {
                r->nx[v0 + i] = m->x[i] / radius;
                r->ny[v0 + i] = m->y[i] / radius;
                r->nz[v0 + i] = m->z[i] / radius;
            }
        }
        uint32_t *ix = r->indices + r->nindices;
        for (uint32_t t = 0; t < m->ntris; t++, ix += 3) {
            ix[0] = v0 + m->a[t];
            ix[1] = v0 + m->b[t];
            ix[2] = v0 + m->c[t];
        }
        r->water_first = r->nindices;
        r->water_count = ni - r->nindices;
        r->nverts = (uint32_t)nv;
        r->nindices = ni;
    }
    strata_mesh_destroy(m);
    return st;
}

strata_status strata_result_add_water(strata_ctx *ctx, strata_result *r, float level,
                                      const float *outline, uint32_t npoints,
                                      uint32_t sphere_level)
{
    if (!ctx || !r || r->water_count || !isfinite(level))
        return STRATA_ERR_INVALID_ARG;
    return r->geometry == STRATA_RADIAL ? sphere_water(ctx, r, level, sphere_level)
                                        : flat_water(r, level, outline, npoints);
}
