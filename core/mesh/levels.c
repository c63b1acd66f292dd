/* Terrace plane heights: validation, height range, uniform and curved
 * distributions, and the defaults of the slicer's options (which carry
 * the planes). */
#include "mesh/mesh.h"

#include <math.h>
#include <string.h>

void strata_slice_defaults(strata_slice_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->levels = NULL;
    opt->nlevels = 0;
    opt->walls = STRATA_WALLS_UPPER;
    opt->normals = 0;
    opt->areas = 0;
}

strata_status strata_levels_validate(const float *levels, uint32_t n)
{
    if (!levels || n == 0 || n > STRATA_MAX_LEVELS)
        return STRATA_ERR_BAD_LEVELS;
    for (uint32_t k = 0; k < n; k++) {
        if (!isfinite(levels[k]))
            return STRATA_ERR_BAD_LEVELS;
        if (k > 0 && !(levels[k] > levels[k - 1]))
            return STRATA_ERR_BAD_LEVELS;
    }
    return STRATA_OK;
}

strata_status strata_mesh_height_range(const strata_mesh *m, float *hmin, float *hmax)
{
    if (!m || !hmin || !hmax || m->nverts == 0)
        return STRATA_ERR_INVALID_ARG;
    float lo = m->h[0], hi = m->h[0];
    int finite = 1;
    for (uint32_t i = 0; i < m->nverts; i++) {
        const float h = m->h[i];
        finite &= isfinite(h);
        lo = h < lo ? h : lo;
        hi = h > hi ? h : hi;
    }
    if (!finite)
        return STRATA_ERR_NOT_FINITE;
    *hmin = lo;
    *hmax = hi;
    return STRATA_OK;
}

strata_status strata_levels_range(float hmin, float hmax, uint32_t n, const strata_curve *curve,
                                  float *levels)
{
    if (!levels)
        return STRATA_ERR_INVALID_ARG;
    if (n == 0 || n > STRATA_MAX_LEVELS || !isfinite(hmin) || !isfinite(hmax) || hmax < hmin)
        return STRATA_ERR_BAD_LEVELS;
    const double range = hmax > hmin ? (double)hmax - hmin : (double)n;
    for (uint32_t k = 0; k < n; k++) {
        double f = (double)k / n;
        if (curve)
            f = strata_curve_eval(curve, (float)f);
        levels[k] = (float)(hmin + f * range);
    }
    levels[0] = hmin; /* exact, whatever the curve does at 0 */
    return strata_levels_validate(levels, n);
}

strata_status strata_levels_uniform(const strata_mesh *m, uint32_t n, const strata_curve *curve,
                                    float *levels)
{
    if (!m || !levels || n == 0 || n > STRATA_MAX_LEVELS)
        return n == 0 || n > STRATA_MAX_LEVELS ? STRATA_ERR_BAD_LEVELS : STRATA_ERR_INVALID_ARG;
    float hmin, hmax;
    strata_status st = strata_mesh_height_range(m, &hmin, &hmax);
    if (st != STRATA_OK)
        return st;
    return strata_levels_range(hmin, hmax, n, curve, levels);
}

void strata_terraces_defaults(strata_terraces *t)
{
    if (t)
        memset(t, 0, sizeof *t);
}

uint32_t strata_terraces_bound(const strata_terraces *t)
{
    if (!t)
        return 0;
    const uint64_t n = (uint64_t)(t->levels ? t->nlevels : t->count) + (t->sea ? 1 : 0);
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

strata_status strata_terraces_heights(const strata_terraces *t, float hmin, float hmax,
                                      float *out, uint32_t *n)
{
    if (!t || !out || !n)
        return STRATA_ERR_INVALID_ARG;
    uint32_t k = 0;
    strata_status st = STRATA_OK;
    if (t->levels) {
        if ((st = strata_levels_validate(t->levels, t->nlevels)) != STRATA_OK)
            return st;
        memcpy(out, t->levels, (size_t)t->nlevels * sizeof *out);
        k = t->nlevels;
    } else if (t->count) {
        if ((st = strata_levels_range(hmin, hmax, t->count, t->curve, out)) != STRATA_OK)
            return st;
        k = t->count;
    }
    if (t->sea) {
        /* the plane at exactly sea_level, in its place unless there */
        const float h = t->sea_level;
        if (!isfinite(h))
            return STRATA_ERR_BAD_LEVELS;
        uint32_t at = 0;
        while (at < k && out[at] < h)
            at++;
        if (at == k || out[at] != h) {
            if (k >= STRATA_MAX_LEVELS)
                return STRATA_ERR_BAD_LEVELS;
            memmove(out + at + 1, out + at, (size_t)(k - at) * sizeof *out);
            out[at] = h;
            k++;
        }
    }
    *n = k;
    return STRATA_OK;
}
