/* Props on terraces: instances scattered on the roofs of a result, kept
 * as arrays beside it (never built into the mesh), and their CSV list.
 *
 *   count   per roof triangle: density x area x the noise's weight at
 *           its centroid, its fraction rounded up with that probability
 *   offsets a prefix sum over the triangles, in index order
 *   place   each instance a uniform point of its triangle, the roof's up
 *           (radial on planets), a yaw, a scale and a kind
 *
 * Every random number is a hash of the seed, the triangle's place in the
 * index array and the instance's number in it, never a stream shared by
 * threads, so the instances depend only on the result and the options. */
#define _POSIX_C_SOURCE 200809L
#include "alloc.h"
#include "ctx.h"
#include "output.h"
#include "result.h"
#include "write.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

struct strata_props {
    strata_allocator alloc;
    uint64_t count;
    float *x, *y, *z, *ux, *uy, *uz, *yaw, *scale;
    uint8_t *kind;
    uint32_t *terrace;
};

void strata_props_defaults(strata_props_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->density = 1.0;
    o->noise_frequency = 0.0;
    o->seed = 1;
    o->first_terrace = 0;
    o->last_terrace = UINT32_MAX;
    o->min_scale = 0.8f;
    o->max_scale = 1.2f;
    o->rock_share = 0.3f;
}

/* splitmix64's finaliser: the hash every random number comes from. */
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1): number `what` of instance j of the triangle at index
 * position i. */
static double uniform(uint32_t seed, uint64_t i, uint64_t j, unsigned what)
{
    const uint64_t h = mix(mix(mix((uint64_t)seed << 8 | what) ^ i) ^ j);
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

/* The noise's weight in [0, 1] at a point (1 without noise). */
static double weight(const strata_result *r, const strata_props_options *o, double x, double y,
                     double z)
{
    if (!(o->noise_frequency > 0))
        return 1.0;
    const double f = o->noise_frequency;
    const float n =
        r->geometry == STRATA_FLAT
            ? strata_noise2(STRATA_NOISE_SIMPLEX, o->seed, (float)(x * f), (float)(z * f))
            : strata_noise3(STRATA_NOISE_SIMPLEX, o->seed, (float)(x * f), (float)(y * f),
                            (float)(z * f));
    const double w = 0.5 + 0.5 * (double)n;
    return w < 0 ? 0 : w > 1 ? 1 : w;
}

static void corners(const strata_result *r, uint64_t i, double p[3][3])
{
    for (int k = 0; k < 3; k++) {
        const uint32_t v = r->indices[i + (uint64_t)k];
        p[k][0] = r->x[v];
        p[k][1] = r->y[v];
        p[k][2] = r->z[v];
    }
}

/* Instances on the triangle at index position i. */
static uint64_t count_of(const strata_result *r, const strata_props_options *o, uint64_t i)
{
    double p[3][3];
    corners(r, i, p);
    const double u[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
    const double v[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                         u[0] * v[1] - u[1] * v[0]};
    const double area = 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    const double cx = (p[0][0] + p[1][0] + p[2][0]) / 3, cy = (p[0][1] + p[1][1] + p[2][1]) / 3;
    const double cz = (p[0][2] + p[1][2] + p[2][2]) / 3;
    const double want = o->density * area * weight(r, o, cx, cy, cz);
    if (!(want < 1e15))
        return UINT64_MAX;
    const double whole = floor(want);
    return (uint64_t)whole + (uniform(o->seed, i, 0, 0) < want - whole);
}

static void place(const strata_result *r, const strata_props_options *o, uint64_t i,
                  uint32_t terrace, strata_props *pr, uint64_t at, uint64_t n)
{
    double p[3][3];
    corners(r, i, p);
    for (uint64_t j = 0; j < n; j++) {
        /* a uniform point of the triangle: fold the unit square */
        double s = uniform(o->seed, i, j + 1, 1), t = uniform(o->seed, i, j + 1, 2);
        if (s + t > 1) {
            s = 1 - s;
            t = 1 - t;
        }
        const uint64_t w = at + j;
        double q[3];
        for (int k = 0; k < 3; k++)
            q[k] = p[0][k] + s * (p[1][k] - p[0][k]) + t * (p[2][k] - p[0][k]);
        pr->x[w] = (float)q[0];
        pr->y[w] = r->geometry == STRATA_FLAT ? r->terraces[terrace].level : (float)q[1];
        pr->z[w] = (float)q[2];
        if (r->geometry == STRATA_FLAT) {
            pr->ux[w] = 0.0f;
            pr->uy[w] = 1.0f;
            pr->uz[w] = 0.0f;
        } else {
            const double d[3] = {q[0] - r->center[0], q[1] - r->center[1], q[2] - r->center[2]};
            const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            pr->ux[w] = (float)(d[0] / len);
            pr->uy[w] = (float)(d[1] / len);
            pr->uz[w] = (float)(d[2] / len);
        }
        pr->yaw[w] = (float)(uniform(o->seed, i, j + 1, 3) * 6.283185307179586);
        pr->scale[w] = (float)(o->min_scale +
                               (o->max_scale - o->min_scale) * uniform(o->seed, i, j + 1, 4));
        pr->kind[w] = uniform(o->seed, i, j + 1, 5) < o->rock_share ? STRATA_PROP_ROCK
                                                                      : STRATA_PROP_TREE;
        pr->terrace[w] = terrace;
    }
}

void strata_props_destroy(strata_props *p)
{
    if (!p)
        return;
    const strata_allocator al = p->alloc;
    void *a[] = {p->x, p->y, p->z, p->ux, p->uy, p->uz, p->yaw, p->scale, p->kind, p->terrace};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++)
        strata__free(&al, a[i]);
    strata__free(&al, p);
}

static int options_ok(const strata_props_options *o)
{
    return o && o->density > 0 && isfinite(o->density) && o->noise_frequency >= 0 &&
           isfinite(o->noise_frequency) && o->first_terrace <= o->last_terrace &&
           o->min_scale > 0 && o->min_scale <= o->max_scale && isfinite(o->max_scale) &&
           o->rock_share >= 0 && o->rock_share <= 1;
}

strata_status strata_props_scatter(strata_ctx *ctx, const strata_result *r,
                                   const strata_props_options *opt, strata_props **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !r || !options_ok(opt))
        return STRATA_ERR_INVALID_ARG;
    if (r->nterraces && opt->first_terrace >= r->nterraces)
        return STRATA_ERR_INVALID_ARG;
    const uint32_t last = opt->last_terrace < r->nterraces ? opt->last_terrace : r->nterraces - 1;
    const strata_allocator *al = &ctx->alloc;
    /* the roof triangles asked for, in index order: ranges of the table */
    uint64_t ntri = 0;
    for (uint32_t k = opt->first_terrace; r->nterraces && k <= last; k++)
        ntri += r->terraces[k].roof_count / 3;
    uint64_t *offset = strata__alloc_array(al, (size_t)ntri + 1, sizeof *offset);
    strata_props *p = strata__alloc(al, sizeof *p);
    if (!offset || !p) {
        strata__free(al, offset);
        strata__free(al, p);
        return STRATA_ERR_NOMEM;
    }
    memset(p, 0, sizeof *p);
    p->alloc = *al;
    strata_status st = strata__progress(ctx, "props", 0.0);
    /* counts, in parallel, one terrace after another */
    uint64_t base = 0;
    int overflow = 0;
    for (uint32_t k = opt->first_terrace; st == STRATA_OK && r->nterraces && k <= last; k++) {
        const strata_terrace *t = &r->terraces[k];
        const int64_t n = (int64_t)(t->roof_count / 3);
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
        for (int64_t j = 0; j < n; j++) {
            const uint64_t c = count_of(r, opt, t->roof_first + 3 * (uint64_t)j);
            if (c == UINT64_MAX) {
#pragma omp atomic write
                overflow = 1;
            }
            offset[base + (uint64_t)j] = c;
        }
        base += (uint64_t)n;
    }
    uint64_t total = 0;
    for (uint64_t j = 0; j < ntri && !overflow; j++) {
        const uint64_t c = offset[j];
        offset[j] = total;
        total += c;
        if (total > UINT32_MAX)
            overflow = 1;
    }
    offset[ntri] = total;
    if (st == STRATA_OK && overflow)
        st = STRATA_ERR_OVERFLOW;
    if (st == STRATA_OK) {
        float **f[8] = {&p->x, &p->y, &p->z, &p->ux, &p->uy, &p->uz, &p->yaw, &p->scale};
        const size_t n = total ? (size_t)total : 1;
        for (int i = 0; i < 8; i++)
            if (!(*f[i] = strata__alloc_array(al, n, sizeof(float))))
                st = STRATA_ERR_NOMEM;
        if (!(p->kind = strata__alloc_array(al, n, 1)) ||
            !(p->terrace = strata__alloc_array(al, n, sizeof *p->terrace)))
            st = STRATA_ERR_NOMEM;
    }
    base = 0;
    for (uint32_t k = opt->first_terrace; st == STRATA_OK && r->nterraces && k <= last; k++) {
        const strata_terrace *t = &r->terraces[k];
        const int64_t n = (int64_t)(t->roof_count / 3);
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
        for (int64_t j = 0; j < n; j++) {
            const uint64_t at = offset[base + (uint64_t)j];
            place(r, opt, t->roof_first + 3 * (uint64_t)j, k, p, at,
                  offset[base + (uint64_t)j + 1] - at);
        }
        base += (uint64_t)n;
    }
    strata__free(al, offset);
    if (st == STRATA_OK)
        st = strata__progress(ctx, "props", 1.0);
    if (st != STRATA_OK) {
        strata_props_destroy(p);
        return st;
    }
    p->count = total;
    *out = p;
    return STRATA_OK;
}

void strata_props_get_view(const strata_props *p, strata_props_view *v)
{
    memset(v, 0, sizeof *v);
    if (!p)
        return;
    v->count = p->count;
    v->x = p->x;
    v->y = p->y;
    v->z = p->z;
    v->ux = p->ux;
    v->uy = p->uy;
    v->uz = p->uz;
    v->yaw = p->yaw;
    v->scale = p->scale;
    v->kind = p->kind;
    v->terrace = p->terrace;
}

strata_status strata_props_write_csv(strata_ctx *ctx, const strata_props *p, const char *path)
{
    if (!ctx || !p || !path || !*path)
        return STRATA_ERR_INVALID_ARG;
    const int saved_errno = errno;
    strata_status st = strata__progress(ctx, "write", 0.0);
    if (st != STRATA_OK)
        return st;
    strata_out o = STRATA_OUT_INIT(ctx);
    if (strata__out_open(&o, path, ctx) == 0) {
        strata__out_str(&o, "x,y,z,up_x,up_y,up_z,yaw,scale,kind,terrace\n");
        for (uint64_t i = 0; i < p->count; i++) {
            if ((i & 4095) == 0 && strata__out_progress(&o, i, p->count))
                break;
            char line[256];
            /* %.9g of a float reads back the same float; the library never
             * sets a locale, so the decimal point is '.' */
            const int n =
                snprintf(line, sizeof line, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%s,%u\n",
                         (double)p->x[i], (double)p->y[i], (double)p->z[i], (double)p->ux[i],
                         (double)p->uy[i], (double)p->uz[i], (double)p->yaw[i],
                         (double)p->scale[i], p->kind[i] == STRATA_PROP_ROCK ? "rock" : "tree",
                         p->terrace[i]);
            strata__out_bytes(&o, line, (size_t)n);
        }
        strata__out_finish(&o);
    }
    const char *const paths[1] = {path};
    return strata__write_finish(ctx, &o, paths, 1, saved_errno);
}
