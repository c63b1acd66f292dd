/* Props on terraces: instances scattered on the roofs of a result, kept
 * as arrays beside it (never built into the mesh); their CSV list is
 * written by core/io/props_csv.c.
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
#include "base/alloc.h"
#include "base/ctx.h"
#include "edit/props.h"
#include "mesh/result.h"

#include <math.h>
#include <string.h>

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
    o->spacing = 0.0;
    o->wall_foot = 0.0;
    o->min_height = -INFINITY;
    o->max_height = INFINITY;
    o->max_slope = 90.0f;
}

int strata__props_terrace_ok(const strata_result *r, const strata_props_options *o, uint32_t k)
{
    const float L = r->terraces[k].level;
    return L >= o->min_height && L <= o->max_height;
}

void strata__props_triangle(const strata_result *r, uint64_t t, double p[3][3], double n[3])
{
    for (int k = 0; k < 3; k++) {
        const uint32_t v = r->indices[t + (uint64_t)k];
        p[k][0] = r->x[v];
        p[k][1] = r->y[v];
        p[k][2] = r->z[v];
    }
    const double u[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
    const double v[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
    n[0] = u[1] * v[2] - u[2] * v[1];
    n[1] = u[2] * v[0] - u[0] * v[2];
    n[2] = u[0] * v[1] - u[1] * v[0];
}

int strata__props_roof_ok(const strata_result *r, const strata_props_options *o, uint64_t t)
{
    if (o->max_slope >= 90.0f)
        return 1;
    double p[3][3], n[3];
    strata__props_triangle(r, t, p, n);
    double up[3] = {0, 1, 0};
    if (r->geometry == STRATA_RADIAL)
        for (int k = 0; k < 3; k++)
            up[k] = (p[0][k] + p[1][k] + p[2][k]) / 3 - r->center[k];
    const double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    const double un = sqrt(up[0] * up[0] + up[1] * up[1] + up[2] * up[2]);
    const double c = (n[0] * up[0] + n[1] * up[1] + n[2] * up[2]) / (nn * un);
    return c >= cos((double)o->max_slope * (3.141592653589793 / 180.0));
}

/* Uniform in [0, 1): number `what` of instance j of the triangle at index
 * position i. */
static double uniform(uint32_t seed, uint64_t i, uint64_t j, unsigned what)
{
    const uint64_t h = strata__props_mix(
        strata__props_mix(strata__props_mix((uint64_t)seed << 8 | what) ^ i) ^ j);
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

double strata__props_weight(strata_geometry g, const strata_props_options *o, double x, double y,
                            double z)
{
    if (!(o->noise_frequency > 0))
        return 1.0;
    const double f = o->noise_frequency;
    const float n =
        g == STRATA_FLAT
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
    if (!strata__props_roof_ok(r, o, i))
        return 0;
    const double want = o->density * area * strata__props_weight(r->geometry, o, cx, cy, cz);
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
           o->rock_share >= 0 && o->rock_share <= 1 && o->spacing >= 0 &&
           isfinite(o->spacing) && o->wall_foot >= 0 && isfinite(o->wall_foot) &&
           !isnan(o->min_height) && !isnan(o->max_height) && o->min_height <= o->max_height &&
           o->max_slope >= 0 && o->max_slope <= 90;
}

/* The props by area (no spacing): counts per roof triangle, their
 * prefix sum, the instances placed; p's arrays filled and count set. */
static strata_status scatter_area(strata_ctx *ctx, const strata_result *r,
                                  const strata_props_options *opt, uint32_t last, strata_props *p)
{
    const strata_allocator *al = &ctx->alloc;
    /* the roof triangles asked for, in index order: ranges of the table */
    uint64_t ntri = 0;
    for (uint32_t k = opt->first_terrace; r->nterraces && k <= last; k++)
        ntri += r->terraces[k].roof_count / 3;
    uint64_t *offset = strata__alloc_array(al, (size_t)ntri + 1, sizeof *offset);
    if (!offset)
        return STRATA_ERR_NOMEM;
    strata_status st = STRATA_OK;
    /* counts, in parallel, one terrace after another */
    uint64_t base = 0;
    int overflow = 0;
    for (uint32_t k = opt->first_terrace; r->nterraces && k <= last; k++) {
        const strata_terrace *t = &r->terraces[k];
        const int64_t n = (int64_t)(t->roof_count / 3);
        const int ok = strata__props_terrace_ok(r, opt, k);
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
        for (int64_t j = 0; j < n; j++) {
            const uint64_t c = ok ? count_of(r, opt, t->roof_first + 3 * (uint64_t)j) : 0;
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
    if (overflow)
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
        p->count = total;
    return st;
}

strata_status strata__props_scatter_walls(strata_ctx *ctx, const strata_result *r,
                                          const strata_props_options *opt, const float *walls,
                                          uint64_t nwalls, strata_props **out)
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
    strata_props *p = strata__alloc(al, sizeof *p);
    if (!p)
        return STRATA_ERR_NOMEM;
    memset(p, 0, sizeof *p);
    p->alloc = *al;
    strata_status st = strata__progress(ctx, "props", 0.0);
    if (st == STRATA_OK && opt->spacing > 0 && r->nterraces)
        st = strata__props_disk(ctx, r, opt, opt->first_terrace, last, p);
    else if (st == STRATA_OK)
        st = scatter_area(ctx, r, opt, last, p);
    if (st == STRATA_OK && opt->wall_foot > 0 && p->count) {
        float *segs = NULL;
        uint64_t nsegs = 0;
        st = strata__props_wall_bases(al, r, &segs, &nsegs);
        if (st == STRATA_OK && nwalls) { /* the neighbours' (a world's halo) */
            float *all = strata__alloc_array(al, (size_t)(nsegs + nwalls) * 6, sizeof *all);
            if (!all)
                st = STRATA_ERR_NOMEM;
            else {
                memcpy(all, segs, (size_t)nsegs * 6 * sizeof *all);
                memcpy(all + 6 * nsegs, walls, (size_t)nwalls * 6 * sizeof *all);
                strata__free(al, segs);
                segs = all;
                nsegs += nwalls;
            }
        }
        if (st == STRATA_OK)
            st = strata__props_foot(al, p, opt->wall_foot, segs, nsegs);
        strata__free(al, segs);
    }
    if (st == STRATA_OK)
        st = strata__progress(ctx, "props", 1.0);
    if (st != STRATA_OK) {
        strata_props_destroy(p);
        return st;
    }
    *out = p;
    return STRATA_OK;
}

strata_status strata_props_scatter(strata_ctx *ctx, const strata_result *r,
                                   const strata_props_options *opt, strata_props **out)
{
    return strata__props_scatter_walls(ctx, r, opt, NULL, 0, out);
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

uint64_t strata__props_count(const strata_props *p, int kind)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < p->count; i++)
        n += p->kind[i] == kind;
    return n;
}

/* a (x) b of quaternions stored x, y, z, w */
static void qmul(const double a[4], const double b[4], double out[4])
{
    out[0] = a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - a[2] * b[1];
    out[1] = a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - a[0] * b[2];
    out[2] = a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - a[1] * b[0];
    out[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

void strata__props_transforms(const strata_props *p, int kind, float *out)
{
    const uint64_t n = strata__props_count(p, kind);
    uint64_t w = 0;
    for (uint64_t i = 0; i < p->count; i++) {
        if (p->kind[i] != kind)
            continue;
        const double u[3] = {p->ux[i], p->uy[i], p->uz[i]};
        /* +y onto up: the half-way quaternion (y x u, 1 + y . u),
         * normalised; half a turn about x when up is -y */
        double align[4] = {u[2], 0.0, -u[0], 1.0 + u[1]};
        double len = sqrt(align[0] * align[0] + align[2] * align[2] + align[3] * align[3]);
        if (!(len > 1e-9)) {
            align[0] = 1, align[1] = 0, align[2] = 0, align[3] = 0;
            len = 1;
        }
        for (int k = 0; k < 4; k++)
            align[k] /= len;
        const double yaw[4] = {0.0, sin(0.5 * p->yaw[i]), 0.0, cos(0.5 * p->yaw[i])};
        double q[4];
        qmul(align, yaw, q);
        const double ql = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        out[3 * w] = p->x[i];
        out[3 * w + 1] = p->y[i];
        out[3 * w + 2] = p->z[i];
        for (int k = 0; k < 4; k++)
            out[3 * n + 4 * w + (uint64_t)k] = (float)(q[k] / ql);
        for (int k = 0; k < 3; k++)
            out[7 * n + 3 * w + (uint64_t)k] = p->scale[i];
        w++;
    }
}

/* The built-in meshes.  A tree: a square trunk (0.12 wide, 0.3 high, no
 * caps) under a six-sided cone (radius 0.3 at 0.25, the tip at 1, a
 * floor); a rock: an uneven octahedron 0.35 high. */
static const float prop_vertices[] = {
    /* trunk 0..7: bottom ring, top ring */
    -0.06f, 0.0f, -0.06f, 0.06f, 0.0f, -0.06f, 0.06f, 0.0f, 0.06f, -0.06f, 0.0f, 0.06f,
    -0.06f, 0.3f, -0.06f, 0.06f, 0.3f, -0.06f, 0.06f, 0.3f, 0.06f, -0.06f, 0.3f, 0.06f,
    /* cone 8..15: ring of six (radius 0.3 at angles k x 60 degrees), tip, floor centre */
    0.3f, 0.25f, 0.0f, 0.15f, 0.25f, 0.2598076f, -0.15f, 0.25f, 0.2598076f,
    -0.3f, 0.25f, 0.0f, -0.15f, 0.25f, -0.2598076f, 0.15f, 0.25f, -0.2598076f,
    0.0f, 1.0f, 0.0f, 0.0f, 0.25f, 0.0f,
    /* rock 16..21: top, bottom, a ring of four */
    0.0f, 0.35f, 0.0f, 0.0f, 0.0f, 0.0f, 0.45f, 0.12f, 0.0f, 0.0f, 0.12f, 0.35f,
    -0.4f, 0.12f, 0.0f, 0.0f, 0.12f, -0.38f,
};

/* Counter-clockwise seen from outside: (b - a) x (c - a) points out. */
static const uint16_t trunk_ix[] = {0, 4, 5, 0, 5, 1, 1, 5, 6, 1, 6, 2,
                                    2, 6, 7, 2, 7, 3, 3, 7, 4, 3, 4, 0};
static const uint16_t cone_ix[] = {14, 9, 8, 14, 10, 9, 14, 11, 10, 14, 12, 11, 14, 13, 12, 14, 8, 13,
                                   15, 8, 9, 15, 9, 10, 15, 10, 11, 15, 11, 12, 15, 12, 13, 15, 13, 8};
static const uint16_t rock_ix[] = {16, 19, 18, 16, 20, 19, 16, 21, 20, 16, 18, 21,
                                   17, 18, 19, 17, 19, 20, 17, 20, 21, 17, 21, 18};

static const strata_prop_part prop_parts[] = {
    {STRATA_PROP_TREE, "tree_foliage", {0.05f, 0.22f, 0.04f}, cone_ix, 36},
    {STRATA_PROP_TREE, "tree_trunk", {0.13f, 0.06f, 0.02f}, trunk_ix, 24},
    {STRATA_PROP_ROCK, "rock", {0.25f, 0.24f, 0.22f}, rock_ix, 24},
};

const float *strata__prop_vertices(uint32_t *n)
{
    *n = (uint32_t)(sizeof prop_vertices / sizeof prop_vertices[0] / 3);
    return prop_vertices;
}

const strata_prop_part *strata__prop_parts(uint32_t *n)
{
    *n = (uint32_t)(sizeof prop_parts / sizeof prop_parts[0]);
    return prop_parts;
}
