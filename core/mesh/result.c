/* strata_result: allocation, views, per-terrace areas, the unsliced mesh
 * as a one-terrace result, and the quarter turns between an imported
 * mesh's frame and strata's y-up frame. */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/mesh.h"
#include "mesh/result.h"

#include <math.h>
#include <string.h>

/* The room to give arrays of cap elements that must hold need: need
 * itself the first time, 1/8 more once they have had room (at most max). */
static uint64_t grown(uint64_t cap, uint64_t need, uint64_t max)
{
    if (cap == 0)
        return need;
    const uint64_t more = need + need / 8;
    return more > max ? max : more;
}

/* Make the n arrays *p[i] (elements of `size` bytes, room *cap each, or
 * all NULL) hold need elements: kept when big enough, else all replaced,
 * the old ones freed first so that the peak is not both.  0 without
 * memory: then all are NULL and *cap is 0. */
static int room(const strata_allocator *al, void **p[], int n, uint64_t *cap, uint64_t need,
                size_t size, uint64_t max)
{
    if (*p[0] && *cap >= need)
        return 1;
    const uint64_t want = grown(*p[0] ? *cap : 0, need, max);
    for (int i = 0; i < n; i++) {
        strata__free(al, *p[i]);
        *p[i] = NULL;
    }
    *cap = 0;
    for (int i = 0; i < n; i++)
        if (!(*p[i] = strata__alloc_array(al, (size_t)want, size))) {
            for (int j = 0; j < i; j++) {
                strata__free(al, *p[j]);
                *p[j] = NULL;
            }
            return 0;
        }
    *cap = want;
    return 1;
}

void strata__result_clear(strata_result *r)
{
    r->nverts = 0;
    r->nindices = 0;
    r->nterraces = 0;
    r->skirt_first = r->skirt_count = 0;
    r->water_first = r->water_count = r->shore_first = r->shore_count = 0;
    r->uv_first = r->nuv = 0;
    r->roof_verts = 0;
    r->ao_verts = 0;
    r->rgb_verts = 0;
}

/* *p (elements of `size` bytes, `have` used) replaced by an array of
 * `want` with the same first elements. */
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

strata_status strata__result_grow(strata_result *r, uint64_t nv, uint64_t ni)
{
    if (nv > UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    if (ni > SIZE_MAX / sizeof(uint32_t))
        return STRATA_ERR_OVERFLOW;
    const strata_allocator *al = &r->alloc;
    const size_t want_v = (size_t)(nv + nv / 8 > UINT32_MAX ? UINT32_MAX : nv + nv / 8);
    float **pos[3] = {&r->x, &r->y, &r->z}, **nrm[3] = {&r->nx, &r->ny, &r->nz};
    if (nv > r->cap_verts) {
        for (int k = 0; k < 3; k++)
            if (!regrow(al, (void **)pos[k], r->nverts, want_v, sizeof(float)))
                return STRATA_ERR_NOMEM;
        r->cap_verts = (uint32_t)want_v;
    }
    if (r->nx && nv > r->cap_normals) {
        for (int k = 0; k < 3; k++)
            if (!regrow(al, (void **)nrm[k], r->nverts, want_v, sizeof(float)))
                return STRATA_ERR_NOMEM;
        r->cap_normals = (uint32_t)want_v;
    }
    if (ni > r->cap_indices) {
        const uint64_t want = ni + ni / 8 > SIZE_MAX / sizeof(uint32_t) ? ni : ni + ni / 8;
        if (!regrow(al, (void **)&r->indices, (size_t)r->nindices, (size_t)want, sizeof(uint32_t)))
            return STRATA_ERR_NOMEM;
        r->cap_indices = want;
    }
    return STRATA_OK;
}

strata_status strata__result_reserve(strata_result *r, uint32_t nverts, uint64_t nindices,
                                     uint32_t nterraces, int normals)
{
    strata__result_clear(r);
    if (nindices > SIZE_MAX / sizeof(uint32_t))
        return STRATA_ERR_OVERFLOW;
    const strata_allocator *al = &r->alloc;
    void **pos[3] = {(void **)&r->x, (void **)&r->y, (void **)&r->z};
    void **nrm[3] = {(void **)&r->nx, (void **)&r->ny, (void **)&r->nz};
    void **idx[1] = {(void **)&r->indices}, **ter[1] = {(void **)&r->terraces};
    uint64_t cv = r->cap_verts, cn = r->cap_normals, ci = r->cap_indices, ct = r->cap_terraces;
    if (!normals) {
        for (int i = 0; i < 3; i++) {
            strata__free(al, *nrm[i]);
            *nrm[i] = NULL;
        }
        cn = 0;
    }
    const int ok = room(al, pos, 3, &cv, nverts, sizeof(float), UINT32_MAX) &&
                   (!normals || room(al, nrm, 3, &cn, nverts, sizeof(float), UINT32_MAX)) &&
                   room(al, idx, 1, &ci, nindices, sizeof(uint32_t), SIZE_MAX / sizeof(uint32_t)) &&
                   room(al, ter, 1, &ct, nterraces, sizeof(strata_terrace), UINT32_MAX);
    r->cap_verts = (uint32_t)cv;
    r->cap_normals = (uint32_t)cn;
    r->cap_indices = ci;
    r->cap_terraces = (uint32_t)ct;
    if (!ok)
        return STRATA_ERR_NOMEM;
    memset(r->terraces, 0, (size_t)nterraces * sizeof(strata_terrace));
    r->nverts = nverts;
    r->nindices = nindices;
    r->nterraces = nterraces;
    return STRATA_OK;
}

/* An empty result of allocator al: no arrays yet. */
static strata_result *result_new(const strata_allocator *al)
{
    strata_result *r = strata__alloc(al, sizeof *r);
    if (!r)
        return NULL;
    memset(r, 0, sizeof *r);
    r->alloc = *al;
    r->walls = STRATA_WALLS_UPPER;
    r->geometry = STRATA_FLAT;
    return r;
}

strata_status strata__result_alloc(const strata_allocator *al, uint32_t nverts,
                                   uint64_t nindices, uint32_t nterraces, int normals,
                                   strata_result **out)
{
    *out = NULL;
    strata_result *r = result_new(al);
    if (!r)
        return STRATA_ERR_NOMEM;
    const strata_status st = strata__result_reserve(r, nverts, nindices, nterraces, normals);
    if (st != STRATA_OK) {
        strata_result_destroy(r);
        return st;
    }
    *out = r;
    return STRATA_OK;
}

strata_status strata_result_create(strata_ctx *ctx, strata_result **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx)
        return STRATA_ERR_INVALID_ARG;
    strata_result *r = result_new(&ctx->alloc);
    if (!r)
        return STRATA_ERR_NOMEM;
    *out = r;
    return STRATA_OK;
}

strata_pool *strata__result_pool(strata_result *r)
{
    if (!r->kept && (r->kept = strata__alloc(&r->alloc, sizeof *r->kept)) != NULL) {
        r->kept->old = r->kept->kept = NULL;
        atomic_flag_clear(&r->kept->busy);
    }
    return r->kept;
}

void strata_result_trim(strata_result *r)
{
    if (!r || !r->kept)
        return;
    strata__pool_free(r->kept, &r->alloc);
    strata__free(&r->alloc, r->kept);
    r->kept = NULL;
}

void strata_result_destroy(strata_result *r)
{
    if (!r)
        return;
    strata_result_trim(r);
    strata_allocator al = r->alloc;
    void *arrays[] = {r->x, r->y, r->z, r->nx, r->ny, r->nz, r->indices, r->terraces, r->uv,
                      r->ao, r->skirt_ends, r->rgb};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        strata__free(&al, arrays[i]);
    strata__free(&al, r);
}

void strata_result_get_view(const strata_result *r, strata_result_view *v)
{
    memset(v, 0, sizeof *v);
    if (!r)
        return;
    v->nverts = r->nverts;
    v->x = r->x; v->y = r->y; v->z = r->z;
    v->nx = r->nx; v->ny = r->ny; v->nz = r->nz;
    v->nindices = r->nindices;
    v->indices = r->indices;
    v->nterraces = r->nterraces;
    v->terraces = r->terraces;
    v->walls = r->walls;
    v->geometry = r->geometry;
    memcpy(v->center, r->center, sizeof v->center);
    v->radius = r->radius;
    v->water_first = r->water_first;
    v->water_count = r->water_count;
    v->shore_first = r->shore_first;
    v->shore_count = r->shore_count;
    v->uv_first = r->uv_first;
    v->nuv = r->nuv;
    v->uv = r->uv;
    v->ao = strata__result_ao(r);
    v->rgb = strata__result_rgb(r);
}

/* Area of the triangles in indices [first, first+count), summed in index
 * order in double so the figure does not depend on the thread count. */
static double range_area(const strata_result *r, uint64_t first, uint64_t count)
{
    double sum = 0.0;
    for (uint64_t i = first; i < first + count; i += 3) {
        double n[3];
        strata__tri_cross(r->x, r->y, r->z, r->indices[i], r->indices[i + 1], r->indices[i + 2], n);
        sum += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    }
    return sum;
}

void strata__result_areas(strata_ctx *ctx, strata_result *r)
{
    const int64_t n = r->nterraces;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 1)
    for (int64_t k = 0; k < n; k++) {
        strata_terrace *t = &r->terraces[k];
        t->roof_area = range_area(r, t->roof_first, t->roof_count);
        t->wall_area = range_area(r, t->wall_first, t->wall_count);
    }
}

strata_status strata_result_from_mesh(strata_ctx *ctx, const strata_mesh *m, int normals,
                                      strata_result **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !m || m->ntris == 0)
        return STRATA_ERR_INVALID_ARG;
    float hmin, hmax;
    strata_status st = strata_mesh_height_range(m, &hmin, &hmax);
    if (st != STRATA_OK)
        return st;
    /* With normals every triangle gets its own three vertices (flat
     * shading of an unsliced surface). */
    const uint64_t nv = normals ? 3 * (uint64_t)m->ntris : m->nverts;
    if (nv > UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    strata_result *r;
    st = strata__result_alloc(&ctx->alloc, (uint32_t)nv, 3 * (uint64_t)m->ntris, 1, normals, &r);
    if (st != STRATA_OK)
        return st;
    r->geometry = m->geometry;
    memcpy(r->center, m->center, sizeof r->center);
    r->radius = m->radius;
    r->walls = STRATA_WALLS_UPPER;
    const int64_t T = m->ntris;
    if (!normals) {
        memcpy(r->x, m->x, (size_t)m->nverts * sizeof(float));
        memcpy(r->y, m->y, (size_t)m->nverts * sizeof(float));
        memcpy(r->z, m->z, (size_t)m->nverts * sizeof(float));
    }
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t ti = 0; ti < T; ti++) {
        const size_t t = (size_t)ti;
        const uint32_t v[3] = {m->a[t], m->b[t], m->c[t]};
        if (!normals) {
            for (int k = 0; k < 3; k++)
                r->indices[3 * t + k] = v[k];
            continue;
        }
        double n[3];
        strata__tri_normal(m->x, m->y, m->z, v[0], v[1], v[2], n);
        for (int k = 0; k < 3; k++) {
            const size_t o = 3 * t + (size_t)k;
            r->x[o] = m->x[v[k]];
            r->y[o] = m->y[v[k]];
            r->z[o] = m->z[v[k]];
            r->nx[o] = (float)n[0];
            r->ny[o] = (float)n[1];
            r->nz[o] = (float)n[2];
            r->indices[o] = (uint32_t)o;
        }
    }
    r->terraces[0].level = hmin;
    r->terraces[0].roof_first = 0;
    r->terraces[0].roof_count = r->nindices;
    r->terraces[0].wall_first = r->nindices;
    r->terraces[0].wall_count = 0;
    strata__result_areas(ctx, r);
    *out = r;
    return STRATA_OK;
}

static strata_status rotate_result(strata_result *r, strata_axis up,
                                   void (*rot)(float *, float *, float *, strata_axis))
{
    if (!r || (up != STRATA_AXIS_X && up != STRATA_AXIS_Y && up != STRATA_AXIS_Z))
        return STRATA_ERR_INVALID_ARG;
    if (up == STRATA_AXIS_Y)
        return STRATA_OK;
    for (uint32_t i = 0; i < r->nverts; i++)
        rot(&r->x[i], &r->y[i], &r->z[i], up);
    if (r->nx)
        for (uint32_t i = 0; i < r->nverts; i++)
            rot(&r->nx[i], &r->ny[i], &r->nz[i], up);
    rot(&r->center[0], &r->center[1], &r->center[2], up);
    return STRATA_OK;
}

strata_status strata_result_rotate_from_y_up(strata_result *r, strata_axis up)
{
    return rotate_result(r, up, strata__from_y_up);
}

strata_status strata_result_rotate_to_y_up(strata_result *r, strata_axis up)
{
    return rotate_result(r, up, strata__to_y_up);
}
