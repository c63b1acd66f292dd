/* Suite "solid": strata_result_solidify and strata_result_fit_size.
 *
 * A solid must be a closed 2-manifold by vertex id (every directed edge
 * once and its reverse once, the triangles around every vertex one
 * cycle, Euler characteristic 2), without zero-area triangles, facing
 * outwards (base down, sides away from the footprint's centre), and hold
 * the volume this suite computes on its own from the input heights: over
 * every input triangle, the area where h >= L[k] (clipped in double)
 * times the step to L[k], summed, plus L[0] minus the base over the
 * whole footprint. */
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static uint64_t rng_state;
static double rnd(void) /* uniform in [0, 1) */
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

typedef float (*height_fn)(float x, float z, uint32_t i);

static float h_waves(float x, float z, uint32_t i)
{
    (void)i;
    return sinf(1.7f * x) * cosf(1.3f * z) + 0.3f * sinf(4.1f * x + 2.3f * z);
}
static float h_integer(float x, float z, uint32_t i) /* on the planes of whole numbers */
{
    (void)x; (void)z; (void)i;
    return (float)(int)(rnd() * 4.0);
}

/* m with y replaced by fn (the same ids and triangles). */
static strata_mesh *with_heights(strata_ctx *ctx, const strata_mesh *m, height_fn fn)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    float *xyz = malloc(sizeof(float) * 3 * v.nverts);
    uint32_t *tri = malloc(sizeof(uint32_t) * 3 * v.ntris);
    for (uint32_t i = 0; i < v.nverts; i++) {
        xyz[3 * i] = v.x[i];
        xyz[3 * i + 1] = fn(v.x[i], v.z[i], i);
        xyz[3 * i + 2] = v.z[i];
    }
    for (uint32_t t = 0; t < v.ntris; t++) {
        tri[3 * t] = v.a[t];
        tri[3 * t + 1] = v.b[t];
        tri[3 * t + 2] = v.c[t];
    }
    strata_mesh *out;
    ck_assert_ok(strata_mesh_create(ctx, xyz, v.nverts, tri, v.ntris, &out));
    free(xyz);
    free(tri);
    return out;
}

/* ------------------------------------------------------------ oracle */

/* Area (xz, counter-clockwise seen from above positive) of the part of
 * triangle t where h >= c. */
static double area_above(const strata_mesh_view *v, uint32_t t, double c)
{
    const uint32_t id[3] = {v->a[t], v->b[t], v->c[t]};
    double px[6], pz[6];
    int n = 0;
    for (int i = 0; i < 3; i++) {
        const uint32_t p = id[i], q = id[(i + 1) % 3];
        const double dp = (double)v->y[p] - c, dq = (double)v->y[q] - c;
        if (dp >= 0) {
            px[n] = v->x[p];
            pz[n++] = v->z[p];
        }
        if ((dp >= 0) != (dq >= 0)) {
            const double s = dp / (dp - dq);
            px[n] = v->x[p] + s * ((double)v->x[q] - v->x[p]);
            pz[n++] = v->z[p] + s * ((double)v->z[q] - v->z[p]);
        }
    }
    double a = 0;
    for (int i = 0; i < n; i++) /* shoelace in (x, z); y up makes CCW negative */
        a += px[i] * pz[(i + 1) % n] - px[(i + 1) % n] * pz[i];
    return -0.5 * a;
}

/* The volume between the terraced surface of m and the plane base. */
static double expected_volume(const strata_mesh *m, const float *L, uint32_t n, double base)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    double vol = 0;
    for (uint32_t t = 0; t < v.ntris; t++) {
        vol += ((double)L[0] - base) * area_above(&v, t, -INFINITY);
        for (uint32_t k = 1; k < n; k++)
            vol += ((double)L[k] - L[k - 1]) * area_above(&v, t, L[k]);
    }
    return vol;
}

/* The volume between the (unsliced) surface of m and the plane base: a
 * linear height integrates to its mean over each triangle. */
static double surface_volume(const strata_mesh *m, double base)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    double vol = 0;
    for (uint32_t t = 0; t < v.ntris; t++) {
        const double mean = ((double)v.y[v.a[t]] + v.y[v.b[t]] + v.y[v.c[t]]) / 3;
        vol += (mean - base) * area_above(&v, t, -INFINITY);
    }
    return vol;
}

/* ------------------------------------------------------------ checks */

typedef struct fan {
    uint32_t v, from, to; /* triangle (v, from, to) */
} fan;

static int cmp_fan(const void *a, const void *b)
{
    const fan *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->from < y->from ? -1 : x->from > y->from;
}

/* Triangles of zero area (all three cross-product components zero). */
static uint64_t zero_area(const strata_result_view *r)
{
    uint64_t z = 0;
    for (uint64_t i = 0; i < r->nindices; i += 3) {
        const uint32_t a = r->indices[i], b = r->indices[i + 1], c = r->indices[i + 2];
        const double u[3] = {(double)r->x[b] - r->x[a], (double)r->y[b] - r->y[a],
                             (double)r->z[b] - r->z[a]};
        const double v[3] = {(double)r->x[c] - r->x[a], (double)r->y[c] - r->y[a],
                             (double)r->z[c] - r->z[a]};
        z += u[1] * v[2] - u[2] * v[1] == 0 && u[2] * v[0] - u[0] * v[2] == 0 &&
             u[0] * v[1] - u[1] * v[0] == 0;
    }
    return z;
}

static uint64_t allowed_zero; /* zero-area triangles the slice itself made */

/* Closed 2-manifold by vertex id, Euler characteristic 2, no zero-area
 * triangle (but allowed_zero of the slice's own), outward; returns the
 * volume by the divergence theorem. */
static double check_closed(const strata_result_view *r)
{
    uint64_t zeros = 0;
    const uint64_t nt = r->nindices / 3;
    uint64_t *d = malloc(sizeof *d * r->nindices);
    fan *f = malloc(sizeof *f * r->nindices);
    uint8_t *used = calloc(r->nverts, 1);
    double c[3] = {0, 0, 0};
    for (uint32_t i = 0; i < r->nverts; i++) {
        c[0] += r->x[i] / r->nverts;
        c[1] += r->y[i] / r->nverts;
        c[2] += r->z[i] / r->nverts;
    }
    double vol = 0;
    for (uint64_t t = 0; t < nt; t++) {
        const uint32_t *ix = r->indices + 3 * t;
        double p[3][3];
        for (int s = 0; s < 3; s++) {
            require_lt(ix[s], r->nverts);
            used[ix[s]] = 1;
            d[3 * t + s] = (uint64_t)ix[s] << 32 | ix[(s + 1) % 3];
            f[3 * t + s] = (fan){ix[s], ix[(s + 1) % 3], ix[(s + 2) % 3]};
            p[s][0] = r->x[ix[s]] - c[0];
            p[s][1] = r->y[ix[s]] - c[1];
            p[s][2] = r->z[ix[s]] - c[2];
        }
        const double u[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
        const double w[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
        const double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
                             u[0] * w[1] - u[1] * w[0]};
        if (!(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] > 0))
            require(++zeros <= allowed_zero, "triangle %llu has zero area",
                    (unsigned long long)t);
        vol += (p[0][0] * n[0] + p[0][1] * n[1] + p[0][2] * n[2]) / 6;
    }
    qsort(d, r->nindices, sizeof *d, cmp_u64);
    for (uint64_t i = 0; i < r->nindices; i++) {
        require(i == 0 || d[i] != d[i - 1], "directed edge %u->%u used twice",
                (unsigned)(d[i] >> 32), (unsigned)d[i]);
        const uint64_t rev = d[i] << 32 | d[i] >> 32;
        require(bsearch(&rev, d, r->nindices, sizeof *d, cmp_u64) != NULL,
                "edge %u->%u has no reverse: not closed", (unsigned)(d[i] >> 32),
                (unsigned)d[i]);
    }
    /* each vertex: its triangles (v, from, to) chain from -> to into one cycle */
    qsort(f, r->nindices, sizeof *f, cmp_fan);
    for (uint64_t i = 0; i < r->nindices;) {
        uint64_t j = i;
        while (j < r->nindices && f[j].v == f[i].v)
            j++;
        uint32_t at = f[i].to;
        uint64_t steps = 1;
        while (at != f[i].from && steps <= j - i) {
            fan key = {f[i].v, at, 0};
            const fan *nx = bsearch(&key, f + i, j - i, sizeof *f, cmp_fan);
            require(nx != NULL, "vertex %u: fan broken at %u", f[i].v, at);
            at = nx->to;
            steps++;
        }
        require(steps == j - i, "vertex %u: %llu triangles but a fan of %llu (pinched)",
                f[i].v, (unsigned long long)(j - i), (unsigned long long)steps);
        i = j;
    }
    uint64_t nused = 0;
    for (uint32_t i = 0; i < r->nverts; i++)
        nused += used[i];
    require_eq((int64_t)nused - (int64_t)(r->nindices / 2) + (int64_t)nt, 2); /* a sphere */
    free(d);
    free(f);
    free(used);
    return vol;
}

/* Base triangles face down; side triangles (upright, touching the base)
 * face away from the footprint's centre (cx, cz). */
static void check_outward(const strata_result_view *r, float base, double cx, double cz)
{
    uint64_t nbase = 0, nside = 0;
    for (uint64_t i = 0; i < r->nindices; i += 3) {
        const uint32_t a = r->indices[i], b = r->indices[i + 1], c = r->indices[i + 2];
        const int at_base = (r->y[a] == base) + (r->y[b] == base) + (r->y[c] == base);
        if (!at_base)
            continue;
        const double ux = (double)r->x[b] - r->x[a], uy = (double)r->y[b] - r->y[a],
                     uz = (double)r->z[b] - r->z[a];
        const double vx = (double)r->x[c] - r->x[a], vy = (double)r->y[c] - r->y[a],
                     vz = (double)r->z[c] - r->z[a];
        const double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
        if (at_base == 3) {
            require(ny < 0, "base triangle %llu faces up", (unsigned long long)i / 3);
            nbase++;
        } else {
            require(ny == 0, "side triangle %llu not upright", (unsigned long long)i / 3);
            const double mx = ((double)r->x[a] + r->x[b] + r->x[c]) / 3 - cx;
            const double mz = ((double)r->z[a] + r->z[b] + r->z[c]) / 3 - cz;
            require(nx * mx + nz * mz > 0, "side triangle %llu faces inwards",
                    (unsigned long long)i / 3);
            nside++;
        }
    }
    require_gt(nbase, 0);
    require_gt(nside, 0);
}

static double center_of(const strata_mesh *m, int axis)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    float lo = INFINITY, hi = -INFINITY;
    for (uint32_t i = 0; i < v.nverts; i++) {
        const float p = axis ? v.z[i] : v.x[i];
        lo = fminf(lo, p);
        hi = fmaxf(hi, p);
    }
    return ((double)lo + hi) / 2;
}

/* Slice m with n levels L (NULL: unsliced), solidify with depth, check
 * everything; returns the stats. */
static strata_solid_stats check_case(strata_ctx *ctx, const strata_mesh *m, const float *L,
                                     uint32_t n, float depth, strata_walls walls)
{
    strata_result *res;
    float lo, hi;
    ck_assert_ok(strata_mesh_height_range(m, &lo, &hi));
    float L1[1] = {lo};
    if (L) {
        strata_slice_options o;
        strata_slice_defaults(&o);
        o.levels = L;
        o.nlevels = n;
        o.walls = walls;
        o.areas = 1;
        ck_assert_ok(strata_slice(ctx, m, &o, &res));
    } else {
        ck_assert_ok(strata_result_from_mesh(ctx, m, 0, &res));
        L = L1;
        n = 1;
        lo = L1[0];
    }
    strata_result_view before;
    strata_result_get_view(res, &before);
    allowed_zero = zero_area(&before);
    const uint64_t roofs0 = before.terraces[0].roof_count;
    const uint64_t walls0 = before.terraces[0].wall_count, nidx = before.nindices;
    strata_solid_stats st;
    ck_assert_ok(strata_result_solidify(ctx, res, depth, &st));
    strata_result_view r;
    strata_result_get_view(res, &r);
    const float base = (L ? fminf(L[0], lo) : lo) - depth;
    ck_assert_float_eq(st.base, L != L1 ? L[0] - depth : base);
    require_eq(r.nindices, nidx + 3 * st.triangles_added - 3 * st.fins_removed);
    if (!st.fins_removed) {
        require_eq(r.terraces[0].roof_count, roofs0);
        require_eq(r.terraces[0].wall_count, walls0 + 3 * st.triangles_added);
    }
    /* the ranges still partition the index array */
    uint64_t covered = 0;
    for (uint32_t k = 0; k < r.nterraces; k++) {
        covered += r.terraces[k].roof_count + r.terraces[k].wall_count;
        require_le(r.terraces[k].roof_first + r.terraces[k].roof_count, r.nindices);
        require_le(r.terraces[k].wall_first + r.terraces[k].wall_count, r.nindices);
        if (k + 1 < r.nterraces && walls != STRATA_WALLS_SEPARATE)
            require_eq(r.terraces[k].wall_first + r.terraces[k].wall_count,
                       r.terraces[k + 1].roof_first);
    }
    require_eq(covered, r.nindices);
    /* roofs of terrace k > 0 still exactly on their plane */
    for (uint32_t k = 1; k < r.nterraces; k++)
        for (uint64_t i = r.terraces[k].roof_first;
             i < r.terraces[k].roof_first + r.terraces[k].roof_count; i++)
            require_eq(r.y[r.indices[i]], r.terraces[k].level);
    const double vol = check_closed(&r);
    const double want = L != L1 ? expected_volume(m, L, n, st.base) : surface_volume(m, st.base);
    require(vol > 0, "volume %.9g not positive", vol);
    require(fabs(vol - want) <= 1e-6 * want, "volume %.12g, expected %.12g (rel %.3g)", vol, want,
            fabs(vol - want) / want);
    check_outward(&r, st.base, center_of(m, 0), center_of(m, 1));
    strata_result_destroy(res);
    return st;
}

/* ------------------------------------------------------------ tests */

START_TEST(test_grid_waves)
{
    static const uint32_t counts[] = {1, 2, 16, 200};
    static const strata_walls walls[] = {STRATA_WALLS_UPPER, STRATA_WALLS_LOWER,
                                         STRATA_WALLS_SEPARATE, STRATA_WALLS_UPPER};
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 31, 20, 0.25f, &g));
    m = with_heights(ctx, g, h_waves);
    float L[200];
    ck_assert_ok(strata_levels_uniform(m, counts[_i], NULL, L));
    const strata_solid_stats st = check_case(ctx, m, L, counts[_i], 0.5f, walls[_i]);
    require_ge(st.border_points, 2 * (31 + 20)); /* every grid point, and the cut points */
    strata_mesh_destroy(m);
    strata_mesh_destroy(g);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_polygon)
{
    strata_ctx *ctx = ctx_new(2);
    strata_mesh *p, *s, *m;
    ck_assert_ok(strata_shape_polygon(ctx, 3 + 2 * _i, 3.0f, &p));
    ck_assert_ok(strata_mesh_subdivide(ctx, p, 4, 0, &s));
    m = with_heights(ctx, s, h_waves);
    float L[12];
    ck_assert_ok(strata_levels_uniform(m, 12, NULL, L));
    check_case(ctx, m, L, 12, 0.25f, STRATA_WALLS_UPPER);
    strata_mesh_destroy(m);
    strata_mesh_destroy(s);
    strata_mesh_destroy(p);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Heights on the planes: wedges and fins reach the border; spikes there
 * are zipped (some of the seeds have them). */
START_TEST(test_heights_on_planes)
{
    static const float L[4] = {0, 1, 2, 3};
    uint32_t merged = 0;
    for (int seed = 0; seed < 40; seed++) {
        rng_state = 99 + (uint64_t)seed;
        strata_ctx *ctx = ctx_new(1);
        strata_mesh *g, *m;
        ck_assert_ok(strata_shape_grid(ctx, 7 + (uint32_t)seed % 5, 6, 1.0f, &g));
        m = with_heights(ctx, g, h_integer);
        merged += check_case(ctx, m, L, 4, 1.0f, (strata_walls)(seed % 3)).vertices_merged;
        strata_mesh_destroy(m);
        strata_mesh_destroy(g);
        strata_ctx_destroy(ctx);
    }
    require_gt(merged, 0);
}
END_TEST

/* A border vertex on plane 1 between two lower border neighbours, with
 * higher ones inside: two wedges, a spike on the border, zipped. */
static float h_spike(float x, float z, uint32_t i)
{
    (void)x;
    const uint32_t col = i % 6, row = i / 6; /* grid 5 x 4 cells */
    (void)z;
    if (row == 0)
        return col == 2 ? 1.0f : 0.0f;
    return 2.0f;
}

START_TEST(test_spike)
{
    static const float L[3] = {0, 1, 2};
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 5, 4, 1.0f, &g));
    m = with_heights(ctx, g, h_spike);
    const strata_solid_stats st = check_case(ctx, m, L, 3, 0.5f, STRATA_WALLS_UPPER);
    require_eq(st.vertices_merged, 1u);
    strata_mesh_destroy(m);
    strata_mesh_destroy(g);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Heights one float above a plane, on the border: the slicer's cut
 * points used to round onto the vertex, leaving triangles of zero area
 * along the border; it now snaps such vertices onto the plane, and the
 * solid must close over them, with no triangle of zero area either. */
static float h_above_plane(float x, float z, uint32_t i)
{
    (void)x;
    (void)z;
    return i == 3 || i == 3 * 7 + 3 || i == 7 * 7 - 2 ? nextafterf(1.0f, 2.0f) : 0.0f;
}

START_TEST(test_one_float_above)
{
    static const float L[2] = {0, 1};
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 6, 6, 1.0f, &g));
    m = with_heights(ctx, g, h_above_plane);
    check_case(ctx, m, L, 2, 1.0f, STRATA_WALLS_UPPER);
    require_eq(allowed_zero, 0); /* the slice has none (core/slice/slice_onplane.h) */
    strata_mesh_destroy(m);
    strata_mesh_destroy(g);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_unsliced)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 12, 9, 0.5f, &g));
    m = with_heights(ctx, g, h_waves);
    check_case(ctx, m, NULL, 0, 2.0f, STRATA_WALLS_UPPER);
    strata_mesh_destroy(m);
    strata_mesh_destroy(g);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The solid of a result does not depend on the slice's thread count. */
START_TEST(test_same_bytes)
{
    strata_result *res[2];
    for (int i = 0; i < 2; i++) {
        strata_ctx *ctx = ctx_new(i ? 3 : 1);
        strata_mesh *g, *m;
        ck_assert_ok(strata_shape_grid(ctx, 40, 40, 0.2f, &g));
        m = with_heights(ctx, g, h_waves);
        float L[10];
        ck_assert_ok(strata_levels_uniform(m, 10, NULL, L));
        strata_slice_options o;
        strata_slice_defaults(&o);
        o.levels = L;
        o.nlevels = 10;
        ck_assert_ok(strata_slice(ctx, m, &o, &res[i]));
        ck_assert_ok(strata_result_solidify(ctx, res[i], 1.0f, NULL));
        strata_mesh_destroy(m);
        strata_mesh_destroy(g);
        strata_ctx_destroy(ctx);
    }
    strata_result_view a, b;
    strata_result_get_view(res[0], &a);
    strata_result_get_view(res[1], &b);
    require_eq(a.nverts, b.nverts);
    require_eq(a.nindices, b.nindices);
    require_true(!memcmp(a.x, b.x, a.nverts * sizeof(float)));
    require_true(!memcmp(a.y, b.y, a.nverts * sizeof(float)));
    require_true(!memcmp(a.z, b.z, a.nverts * sizeof(float)));
    require_true(!memcmp(a.indices, b.indices, a.nindices * sizeof(uint32_t)));
    strata_result_destroy(res[0]);
    strata_result_destroy(res[1]);
}
END_TEST

START_TEST(test_errors)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m, *ico;
    ck_assert_ok(strata_shape_grid(ctx, 6, 6, 1.0f, &g));
    m = with_heights(ctx, g, h_waves);
    float L[4];
    ck_assert_ok(strata_levels_uniform(m, 4, NULL, L));
    strata_slice_options o;
    strata_slice_defaults(&o);
    o.levels = L;
    o.nlevels = 4;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &o, &r));
    strata_result_view v0;
    strata_result_get_view(r, &v0);
    const uint64_t n0 = v0.nindices;
    ck_assert_status(strata_result_solidify(NULL, r, 1.0f, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_solidify(ctx, NULL, 1.0f, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_solidify(ctx, r, 0.0f, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_solidify(ctx, r, -1.0f, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_solidify(ctx, r, NAN, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_solidify(ctx, r, INFINITY, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_solidify(ctx, r, 1e-30f, NULL), STRATA_ERR_INVALID_ARG);
    strata_result_get_view(r, &v0);
    require_eq(v0.nindices, n0); /* untouched */
    /* a solid is closed: solidifying it again finds no border */
    ck_assert_ok(strata_result_solidify(ctx, r, 1.0f, NULL));
    ck_assert_status(strata_result_solidify(ctx, r, 1.0f, NULL), STRATA_ERR_BAD_MESH);
    strata_result_destroy(r);
    /* normals: refused */
    o.normals = 1;
    ck_assert_ok(strata_slice(ctx, m, &o, &r));
    ck_assert_status(strata_result_solidify(ctx, r, 1.0f, NULL), STRATA_ERR_INVALID_ARG);
    strata_result_destroy(r);
    /* planets are closed already */
    ck_assert_ok(strata_shape_icosphere(ctx, 2, 1.0f, &ico));
    ck_assert_ok(strata_result_from_mesh(ctx, ico, 0, &r));
    ck_assert_status(strata_result_solidify(ctx, r, 1.0f, NULL), STRATA_ERR_INVALID_ARG);
    strata_result_destroy(r);
    strata_mesh_destroy(ico);
    strata_mesh_destroy(m);
    strata_mesh_destroy(g);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_allocation_failing)
{
    for (int fail = 0;; fail++) {
        test_alloc ta;
        strata_ctx *ctx = ctx_new_counting(1, &ta);
        strata_mesh *g, *m;
        ck_assert_ok(strata_shape_grid(ctx, 8, 8, 1.0f, &g));
        m = with_heights(ctx, g, h_waves);
        float L[5];
        ck_assert_ok(strata_levels_uniform(m, 5, NULL, L));
        strata_slice_options o;
        strata_slice_defaults(&o);
        o.levels = L;
        o.nlevels = 5;
        strata_result *r;
        ck_assert_ok(strata_slice(ctx, m, &o, &r));
        strata_result_view v0;
        strata_result_get_view(r, &v0);
        const uint64_t n0 = v0.nindices;
        const uint32_t nv0 = v0.nverts;
        ta.fail_at = atomic_load(&ta.count) + fail;
        const strata_status st = strata_result_solidify(ctx, r, 1.0f, NULL);
        ta.fail_at = -1;
        strata_result_get_view(r, &v0);
        if (st == STRATA_OK) {
            require_gt(fail, 0);
            strata_result_destroy(r);
            strata_mesh_destroy(m);
            strata_mesh_destroy(g);
            strata_ctx_destroy(ctx);
            require_eq(atomic_load(&ta.live), 0);
            break;
        }
        require_eq(st, STRATA_ERR_NOMEM);
        require_eq(v0.nindices, n0);
        require_eq(v0.nverts, nv0);
        strata_result_destroy(r);
        strata_mesh_destroy(m);
        strata_mesh_destroy(g);
        strata_ctx_destroy(ctx);
        require_eq(atomic_load(&ta.live), 0);
    }
}
END_TEST

START_TEST(test_fit_size)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 30, 12, 0.5f, &g));
    m = with_heights(ctx, g, h_waves);
    float L[8];
    ck_assert_ok(strata_levels_uniform(m, 8, NULL, L));
    strata_slice_options o;
    strata_slice_defaults(&o);
    o.levels = L;
    o.nlevels = 8;
    o.areas = 1;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &o, &r));
    ck_assert_ok(strata_result_solidify(ctx, r, 1.0f, NULL));
    strata_result_view v;
    strata_result_get_view(r, &v);
    const double area0 = v.terraces[3].roof_area;
    double f;
    ck_assert_ok(strata_result_fit_size(r, 120.0, &f));
    ck_assert_double_eq_tol(f, 120.0 / 15.0, 1e-6);
    strata_result_get_view(r, &v);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < v.nverts; i++) {
        const float p[3] = {v.x[i], v.y[i], v.z[i]};
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], p[k]);
            hi[k] = fmaxf(hi[k], p[k]);
        }
    }
    ck_assert_double_eq_tol((double)hi[0] - lo[0], 120.0, 1e-4); /* the longest side: x */
    require_lt((double)hi[2] - lo[2], 120.0);
    require_lt((double)hi[1] - lo[1], 120.0);
    ck_assert_double_eq_tol(v.terraces[3].roof_area, area0 * f * f, 1e-9 * area0 * f * f);
    for (uint32_t k = 1; k < v.nterraces; k++)
        for (uint64_t i = v.terraces[k].roof_first;
             i < v.terraces[k].roof_first + v.terraces[k].roof_count; i++)
            require_eq(v.y[v.indices[i]], v.terraces[k].level);
    check_closed(&v);
    ck_assert_status(strata_result_fit_size(r, 0.0, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_fit_size(r, -3.0, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_fit_size(r, NAN, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_fit_size(r, 1e300, NULL), STRATA_ERR_OVERFLOW);
    ck_assert_status(strata_result_fit_size(NULL, 1.0, NULL), STRATA_ERR_INVALID_ARG);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_mesh_destroy(g);
    strata_ctx_destroy(ctx);
}
END_TEST

static Suite *solid_suite(void)
{
    Suite *s = suite_create("solid");
    TCase *tc = tcase_create("Core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_grid_waves, 0, 4);
    tcase_add_loop_test(tc, test_polygon, 0, 3);
    tcase_add_test(tc, test_heights_on_planes);
    tcase_add_test(tc, test_spike);
    tcase_add_test(tc, test_one_float_above);
    tcase_add_test(tc, test_unsliced);
    tcase_add_test(tc, test_same_bytes);
    tcase_add_test(tc, test_fit_size);
    suite_add_tcase(s, tc);
    tc = tcase_create("Limits");
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_allocation_failing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(solid_suite()); }
