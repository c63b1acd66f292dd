/* Suite "props": instances scattered on roofs (strata_props_scatter) lie
 * on a roof triangle of their terrace (walls never), face up (radially on
 * planets), come in the numbers the density and the roof area ask for,
 * only on the terraces asked for, the same for any thread count and
 * seed, and read back from their CSV list as the same floats. */
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static strata_result *flat_result(strata_ctx *ctx, uint32_t cells, uint32_t nlevels)
{
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, cells, cells, 0.25f, &g));
    strata_mesh_view v;
    strata_mesh_get_view(g, &v);
    float *xyz = malloc(sizeof(float) * 3 * v.nverts);
    uint32_t *tri = malloc(sizeof(uint32_t) * 3 * v.ntris);
    for (uint32_t i = 0; i < v.nverts; i++) {
        xyz[3 * i] = v.x[i];
        xyz[3 * i + 1] = sinf(0.9f * v.x[i]) * cosf(0.7f * v.z[i]);
        xyz[3 * i + 2] = v.z[i];
    }
    for (uint32_t t = 0; t < v.ntris; t++) {
        tri[3 * t] = v.a[t];
        tri[3 * t + 1] = v.b[t];
        tri[3 * t + 2] = v.c[t];
    }
    ck_assert_ok(strata_mesh_create(ctx, xyz, v.nverts, tri, v.ntris, &m));
    free(xyz);
    free(tri);
    float L[32];
    ck_assert_ok(strata_levels_uniform(m, nlevels, NULL, L));
    strata_slice_options o;
    strata_slice_defaults(&o);
    o.levels = L;
    o.nlevels = nlevels;
    o.areas = 1;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &o, &r));
    strata_mesh_destroy(m);
    strata_mesh_destroy(g);
    return r;
}

/* Whether (px, pz) lies in the triangle's xz projection (with a margin
 * for the float rounding of the point). */
static int in_tri_xz(const strata_result_view *r, uint64_t i, double px, double pz)
{
    for (int k = 0; k < 3; k++) {
        const uint32_t a = r->indices[i + (uint64_t)k], b = r->indices[i + (uint64_t)(k + 1) % 3];
        /* inside: each edge and the point turn as the triangle does (the y
         * of the cross product, up for roofs) */
        const double e = ((double)r->z[b] - r->z[a]) * (px - r->x[a]) -
                         ((double)r->x[b] - r->x[a]) * (pz - r->z[a]);
        if (e < -1e-6)
            return 0;
    }
    return 1;
}

START_TEST(test_flat)
{
    strata_ctx *ctx = ctx_new(1);
    strata_result *res = flat_result(ctx, 40, 8);
    strata_result_view r;
    strata_result_get_view(res, &r);
    strata_props_options o;
    strata_props_defaults(&o);
    o.density = 30;
    o.seed = 5;
    o.first_terrace = 2;
    o.last_terrace = 5;
    strata_props *p;
    ck_assert_ok(strata_props_scatter(ctx, res, &o, &p));
    strata_props_view v;
    strata_props_get_view(p, &v);
    double area = 0;
    for (uint32_t k = 2; k <= 5; k++)
        area += r.terraces[k].roof_area;
    const double want = o.density * area;
    require(fabs((double)v.count - want) <= 5 * sqrt(want) + 4, "%llu props, expected about %.1f",
            (unsigned long long)v.count, want);
    uint64_t rocks = 0;
    for (uint64_t i = 0; i < v.count; i++) {
        const uint32_t k = v.terrace[i];
        require(k >= 2 && k <= 5, "prop %llu on terrace %u", (unsigned long long)i, k);
        require(v.y[i] == r.terraces[k].level, "prop %llu off its roof's plane", (unsigned long long)i);
        require(v.ux[i] == 0 && v.uy[i] == 1 && v.uz[i] == 0, "prop %llu not upright",
                (unsigned long long)i);
        require(v.yaw[i] >= 0 && v.yaw[i] < 6.2832f, "yaw %g", (double)v.yaw[i]);
        require(v.scale[i] >= 0.8f && v.scale[i] <= 1.2f, "scale %g", (double)v.scale[i]);
        rocks += v.kind[i] == STRATA_PROP_ROCK;
        int on = 0; /* on a roof triangle of its terrace */
        const strata_terrace *t = &r.terraces[k];
        for (uint64_t j = t->roof_first; j < t->roof_first + t->roof_count && !on; j += 3)
            on = in_tri_xz(&r, j, v.x[i], v.z[i]);
        require(on, "prop %llu on no roof triangle of terrace %u", (unsigned long long)i, k);
    }
    require(rocks > 0 && rocks < v.count, "%llu rocks of %llu", (unsigned long long)rocks,
            (unsigned long long)v.count);
    strata_props_destroy(p);
    strata_result_destroy(res);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_same_for_any_threads)
{
    strata_props *p[3];
    strata_result *res[3];
    for (int i = 0; i < 3; i++) {
        strata_ctx *ctx = ctx_new(i + 1);
        res[i] = flat_result(ctx, 50, 6);
        strata_props_options o;
        strata_props_defaults(&o);
        o.density = 20;
        o.noise_frequency = i == 2 ? 0.7 : 0.0;
        o.seed = 9;
        ck_assert_ok(strata_props_scatter(ctx, res[i], &o, &p[i]));
        strata_ctx_destroy(ctx);
    }
    strata_props_view a, b, c;
    strata_props_get_view(p[0], &a);
    strata_props_get_view(p[1], &b);
    strata_props_get_view(p[2], &c);
    require_eq(a.count, b.count);
    require_true(!memcmp(a.x, b.x, a.count * sizeof(float)));
    require_true(!memcmp(a.z, b.z, a.count * sizeof(float)));
    require_true(!memcmp(a.yaw, b.yaw, a.count * sizeof(float)));
    require_true(!memcmp(a.scale, b.scale, a.count * sizeof(float)));
    require_true(!memcmp(a.kind, b.kind, a.count));
    /* noise weights the density down (its mean weight is about a half) */
    require(c.count < a.count && c.count > a.count / 8, "with noise %llu, without %llu",
            (unsigned long long)c.count, (unsigned long long)a.count);
    for (int i = 0; i < 3; i++) {
        strata_props_destroy(p[i]);
        strata_result_destroy(res[i]);
    }
}
END_TEST

START_TEST(test_seed)
{
    strata_ctx *ctx = ctx_new(1);
    strata_result *res = flat_result(ctx, 30, 4);
    strata_props_options o;
    strata_props_defaults(&o);
    o.density = 10;
    strata_props *p1, *p2, *p3;
    ck_assert_ok(strata_props_scatter(ctx, res, &o, &p1));
    ck_assert_ok(strata_props_scatter(ctx, res, &o, &p2));
    o.seed = 2;
    ck_assert_ok(strata_props_scatter(ctx, res, &o, &p3));
    strata_props_view a, b, c;
    strata_props_get_view(p1, &a);
    strata_props_get_view(p2, &b);
    strata_props_get_view(p3, &c);
    require_eq(a.count, b.count);
    require_true(!memcmp(a.x, b.x, a.count * sizeof(float)));
    require_true(c.count != a.count || memcmp(a.x, c.x, a.count * sizeof(float)));
    strata_props_destroy(p1);
    strata_props_destroy(p2);
    strata_props_destroy(p3);
    strata_result_destroy(res);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_planet)
{
    strata_ctx *ctx = ctx_new(2);
    strata_mesh *ico;
    ck_assert_ok(strata_shape_icosphere(ctx, 5, 1.0f, &ico));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.amplitude = 0.1f;
    ck_assert_ok(strata_displace_radial(ctx, ico, &f, NULL));
    float L[10];
    ck_assert_ok(strata_levels_uniform(ico, 10, NULL, L));
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = L;
    so.nlevels = 10;
    strata_result *res;
    ck_assert_ok(strata_slice(ctx, ico, &so, &res));
    strata_props_options o;
    strata_props_defaults(&o);
    o.density = 300;
    strata_props *p;
    ck_assert_ok(strata_props_scatter(ctx, res, &o, &p));
    strata_props_view v;
    strata_props_get_view(p, &v);
    require_gt(v.count, 1000);
    for (uint64_t i = 0; i < v.count; i++) {
        const double rad = sqrt((double)v.x[i] * v.x[i] + (double)v.y[i] * v.y[i] +
                                (double)v.z[i] * v.z[i]);
        const double sphere = 1.0 + L[v.terrace[i]];
        require(rad <= sphere + 1e-6 && rad >= sphere - 1e-3, "prop %llu at radius %.9g, roof %.9g",
                (unsigned long long)i, rad, sphere);
        const double up = sqrt((double)v.ux[i] * v.ux[i] + (double)v.uy[i] * v.uy[i] +
                               (double)v.uz[i] * v.uz[i]);
        require(fabs(up - 1) < 1e-6, "up not a unit vector");
        const double along = (v.ux[i] * v.x[i] + v.uy[i] * v.y[i] + v.uz[i] * v.z[i]) / rad;
        require(along > 1 - 1e-6, "up not radial");
    }
    strata_props_destroy(p);
    strata_result_destroy(res);
    strata_mesh_destroy(ico);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_csv)
{
    strata_ctx *ctx = ctx_new(1);
    strata_result *res = flat_result(ctx, 20, 4);
    strata_props_options o;
    strata_props_defaults(&o);
    o.density = 8;
    strata_props *p;
    ck_assert_ok(strata_props_scatter(ctx, res, &o, &p));
    strata_props_view v;
    strata_props_get_view(p, &v);
    char dir[] = "/tmp/strata-props.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/p.csv", dir);
    ck_assert_ok(strata_props_write_csv(ctx, p, path));
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[512];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "x,y,z,up_x,up_y,up_z,yaw,scale,kind,terrace\n");
    uint64_t n = 0;
    while (fgets(line, sizeof line, f)) {
        float x, y, z, ux, uy, uz, yaw, scale;
        char kind[8];
        unsigned t;
        require_eq(sscanf(line, "%f,%f,%f,%f,%f,%f,%f,%f,%4[a-z],%u", &x, &y, &z, &ux, &uy, &uz,
                          &yaw, &scale, kind, &t),
                   10);
        require(n < v.count, "more lines than props");
        require(x == v.x[n] && y == v.y[n] && z == v.z[n] && yaw == v.yaw[n] &&
                    scale == v.scale[n] && t == v.terrace[n],
                "line %llu does not read back", (unsigned long long)n);
        require_true(!strcmp(kind, v.kind[n] == STRATA_PROP_ROCK ? "rock" : "tree"));
        n++;
    }
    require_eq(n, v.count);
    fclose(f);
    remove(path);
    rmdir(dir);
    strata_props_destroy(p);
    strata_result_destroy(res);
    strata_ctx_destroy(ctx);
}
END_TEST

static int key_cmp(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every pair of the props at least d apart (3D): the props bucketed in
 * a grid of d cells, each compared with those of its 27 cells. */
static void require_spacing(const strata_props_view *v, double d, const char *what)
{
    typedef struct { int64_t key; uint64_t i; } item;
    item *it = malloc(sizeof *it * (v->count + 1));
    int64_t c[3];
    for (uint64_t i = 0; i < v->count; i++) {
        c[0] = (int64_t)floor(v->x[i] / d);
        c[1] = (int64_t)floor(v->y[i] / d);
        c[2] = (int64_t)floor(v->z[i] / d);
        it[i].key = ((c[0] + 100000) * 200000 + (c[1] + 100000)) * 200000 + (c[2] + 100000);
        it[i].i = i;
    }
    qsort(it, v->count, sizeof *it, key_cmp);
    for (uint64_t i = 0; i < v->count; i++) {
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dz = -1; dz <= 1; dz++) {
                    const int64_t k = it[i].key + ((int64_t)dx * 200000 + dy) * 200000 + dz;
                    uint64_t lo = 0, hi = v->count;
                    while (lo < hi) {
                        const uint64_t m = (lo + hi) / 2;
                        if (it[m].key < k)
                            lo = m + 1;
                        else
                            hi = m;
                    }
                    for (; lo < v->count && it[lo].key == k; lo++) {
                        const uint64_t a = it[i].i, b = it[lo].i;
                        if (a >= b)
                            continue;
                        const double ex = (double)v->x[a] - v->x[b], ey = (double)v->y[a] - v->y[b],
                                     ez = (double)v->z[a] - v->z[b];
                        const double e = sqrt(ex * ex + ey * ey + ez * ez);
                        require(e >= d, "%s: props %llu and %llu %.9g apart, under %.9g", what,
                                (unsigned long long)a, (unsigned long long)b, e, d);
                    }
                }
    }
    free(it);
}

/* The distance from p to the nearest wall base of r (a wall triangle's
 * corners at its lowest height), brute force. */
static double wall_base_distance(const strata_result_view *r, const double p[3], int radial)
{
    double best = INFINITY;
    for (uint32_t k = 0; k < r->nterraces; k++) {
        const strata_terrace *t = &r->terraces[k];
        for (uint64_t i = 0; i + 3 <= t->wall_count; i += 3) {
            double v[3][3], h[3], lo = INFINITY, hi = -INFINITY;
            for (int c = 0; c < 3; c++) {
                const uint32_t x = r->indices[t->wall_first + i + (uint64_t)c];
                v[c][0] = r->x[x];
                v[c][1] = r->y[x];
                v[c][2] = r->z[x];
                h[c] = radial ? sqrt(v[c][0] * v[c][0] + v[c][1] * v[c][1] + v[c][2] * v[c][2])
                              : v[c][1];
                lo = fmin(lo, h[c]);
                hi = fmax(hi, h[c]);
            }
            for (int c = 0; c < 3; c++)
                for (int e = 0; e < 3; e++) {
                    if (!(hi > lo) || h[c] > lo + 1e-3 * (hi - lo) || h[e] > lo + 1e-3 * (hi - lo))
                        continue;
                    /* the segment v[c] .. v[e] */
                    double ab[3], ap[3], l = 0, s = 0;
                    for (int a = 0; a < 3; a++) {
                        ab[a] = v[e][a] - v[c][a];
                        ap[a] = p[a] - v[c][a];
                        l += ab[a] * ab[a];
                        s += ab[a] * ap[a];
                    }
                    s = l > 0 ? fmin(1, fmax(0, s / l)) : 0;
                    double d = 0;
                    for (int a = 0; a < 3; a++)
                        d += (ap[a] - s * ab[a]) * (ap[a] - s * ab[a]);
                    best = fmin(best, sqrt(d));
                }
        }
    }
    return best;
}

/* Spacing on a terrain: thousands of props, every pair at least D apart
 * (3D), each on a roof triangle of its terrace at its level, none on a
 * wall; dense enough to be a Poisson-disk set (not a thinned one: more
 * than 0.4 / D^2 per unit of roof area at a density far above the cap);
 * a subset of the candidates: spacing 2D keeps fewer. */
START_TEST(test_spacing_flat)
{
    strata_ctx *ctx = ctx_new(2);
    strata_result *res = flat_result(ctx, 120, 8);
    strata_result_view r;
    strata_result_get_view(res, &r);
    strata_props_options o;
    strata_props_defaults(&o);
    o.density = 1000;
    o.spacing = 0.35;
    strata_props *p, *q;
    ck_assert_ok(strata_props_scatter(ctx, res, &o, &p));
    strata_props_view v;
    strata_props_get_view(p, &v);
    require_gt(v.count, 2000);
    require_spacing(&v, o.spacing, "terrain");
    double area = 0;
    for (uint32_t k = 0; k < r.nterraces; k++)
        area += r.terraces[k].roof_area;
    require(v.count > 0.4 / (o.spacing * o.spacing) * area, "%llu props on %g of roofs",
            (unsigned long long)v.count, area);
    for (uint64_t i = 0; i < v.count; i += 7) {
        const strata_terrace *t = &r.terraces[v.terrace[i]];
        require(v.y[i] == t->level, "prop %llu not at its terrace's level", (unsigned long long)i);
        int on = 0;
        for (uint64_t j = 0; j < t->roof_count && !on; j += 3)
            on = in_tri_xz(&r, t->roof_first + j, v.x[i], v.z[i]);
        require(on, "prop %llu on none of its terrace's roofs", (unsigned long long)i);
    }
    o.spacing = 0.7;
    ck_assert_ok(strata_props_scatter(ctx, res, &o, &q));
    strata_props_view w;
    strata_props_get_view(q, &w);
    require_spacing(&w, o.spacing, "terrain, twice the spacing");
    require(w.count < v.count / 2 && w.count > v.count / 8, "%llu props at 2D, %llu at D",
            (unsigned long long)w.count, (unsigned long long)v.count);
    strata_props_destroy(q);
    /* a low density thins the candidates: fewer, still spaced */
    o.spacing = 0.35;
    o.density = 2;
    ck_assert_ok(strata_props_scatter(ctx, res, &o, &q));
    strata_props_get_view(q, &w);
    require(w.count < v.count && w.count > area * 0.5, "%llu props at density 2 on %g",
            (unsigned long long)w.count, area);
    require_spacing(&w, o.spacing, "terrain, density 2");
    strata_props_destroy(q);
    strata_props_destroy(p);
    strata_result_destroy(res);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Spacing on a planet: every pair at least D apart in 3D, each prop on
 * its terrace's roof sphere (as test_planet), thousands of them. */
START_TEST(test_spacing_planet)
{
    strata_ctx *ctx = ctx_new(2);
    strata_mesh *ico;
    ck_assert_ok(strata_shape_icosphere(ctx, 6, 1.0f, &ico));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.amplitude = 0.1f;
    ck_assert_ok(strata_displace_radial(ctx, ico, &f, NULL));
    float L[10];
    ck_assert_ok(strata_levels_uniform(ico, 10, NULL, L));
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = L;
    so.nlevels = 10;
    strata_result *res;
    ck_assert_ok(strata_slice(ctx, ico, &so, &res));
    strata_props_options o;
    strata_props_defaults(&o);
    o.density = 1e5;
    o.spacing = 0.04;
    strata_props *p;
    ck_assert_ok(strata_props_scatter(ctx, res, &o, &p));
    strata_props_view v;
    strata_props_get_view(p, &v);
    require_gt(v.count, 2500); /* 4 pi / D^2 x 0.3 or more */
    require_spacing(&v, o.spacing, "planet");
    for (uint64_t i = 0; i < v.count; i++) {
        const double rad = sqrt((double)v.x[i] * v.x[i] + (double)v.y[i] * v.y[i] +
                                (double)v.z[i] * v.z[i]);
        const double sphere = 1.0 + L[v.terrace[i]];
        require(rad <= sphere + 1e-6 && rad >= sphere - 1e-3, "prop %llu at radius %.9g, roof %.9g",
                (unsigned long long)i, rad, sphere);
    }
    strata_props_destroy(p);
    strata_result_destroy(res);
    strata_mesh_destroy(ico);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The wall foot, the heights and the slope: no prop within wall_foot of
 * a wall's base (brute force over every wall; some are without it),
 * with and without spacing; only terraces whose level is in the range;
 * a max_slope of 0 keeps the level roofs' props. */
START_TEST(test_painter_rules)
{
    strata_ctx *ctx = ctx_new(2);
    strata_result *res = flat_result(ctx, 60, 8);
    strata_result_view r;
    strata_result_get_view(res, &r);
    for (int spaced = 0; spaced < 2; spaced++) {
        strata_props_options o;
        strata_props_defaults(&o);
        o.density = 40;
        o.spacing = spaced ? 0.15 : 0.0;
        strata_props *p, *q;
        ck_assert_ok(strata_props_scatter(ctx, res, &o, &p));
        o.wall_foot = 0.3;
        ck_assert_ok(strata_props_scatter(ctx, res, &o, &q));
        strata_props_view v, w;
        strata_props_get_view(p, &v);
        strata_props_get_view(q, &w);
        uint64_t near = 0, j = 0;
        for (uint64_t i = 0; i < v.count; i++) {
            const double pt[3] = {v.x[i], v.y[i], v.z[i]};
            const double d = wall_base_distance(&r, pt, 0);
            const int kept = j < w.count && w.x[j] == v.x[i] && w.z[j] == v.z[i] &&
                             w.y[j] == v.y[i];
            near += d < o.wall_foot;
            /* the kept ones are those at wall_foot or more, in order
             * (a margin of float rounding either side) */
            if (fabs(d - o.wall_foot) > 1e-5)
                require(kept == (d >= o.wall_foot), "%s prop %llu at %.9g from a wall base: %s",
                        spaced ? "spaced" : "area", (unsigned long long)i, d,
                        kept ? "kept" : "dropped");
            j += kept;
        }
        ck_assert_uint_eq(j, w.count);
        require(near > 100 && w.count > 100, "%llu props near walls, %llu kept",
                (unsigned long long)near, (unsigned long long)w.count);
        strata_props_destroy(q);
        /* heights: terraces 2..4's levels only */
        strata_props_defaults(&o);
        o.density = 40;
        o.spacing = spaced ? 0.15 : 0.0;
        o.min_height = r.terraces[2].level;
        o.max_height = r.terraces[4].level;
        ck_assert_ok(strata_props_scatter(ctx, res, &o, &q));
        strata_props_get_view(q, &w);
        require_gt(w.count, 100);
        for (uint64_t i = 0; i < w.count; i++)
            require(w.terrace[i] >= 2 && w.terrace[i] <= 4, "prop on terrace %u",
                    (unsigned)w.terrace[i]);
        strata_props_destroy(q);
        o.min_height = -INFINITY;
        o.max_height = INFINITY;
        o.max_slope = 0.5f; /* level roofs pass */
        ck_assert_ok(strata_props_scatter(ctx, res, &o, &q));
        strata_props_get_view(q, &w);
        ck_assert_uint_eq(w.count, v.count);
        strata_props_destroy(q);
        strata_props_destroy(p);
    }
    strata_result_destroy(res);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Spaced props with a wall foot: the same bytes for 1 and 2 threads. */
START_TEST(test_spacing_threads)
{
    strata_ctx *one = ctx_new(1), *two = ctx_new(2);
    strata_result *a = flat_result(one, 60, 8), *b = flat_result(two, 60, 8);
    strata_props_options o;
    strata_props_defaults(&o);
    o.density = 50;
    o.spacing = 0.2;
    o.wall_foot = 0.1;
    o.noise_frequency = 0.3;
    strata_props *p, *q;
    ck_assert_ok(strata_props_scatter(one, a, &o, &p));
    ck_assert_ok(strata_props_scatter(two, b, &o, &q));
    strata_props_view v, w;
    strata_props_get_view(p, &v);
    strata_props_get_view(q, &w);
    require_gt(v.count, 500);
    ck_assert_uint_eq(v.count, w.count);
    const float *f[][2] = {{v.x, w.x}, {v.y, w.y}, {v.z, w.z}, {v.yaw, w.yaw}, {v.scale, w.scale}};
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++)
        ck_assert_int_eq(memcmp(f[k][0], f[k][1], v.count * sizeof(float)), 0);
    ck_assert_int_eq(memcmp(v.kind, w.kind, v.count), 0);
    strata_props_destroy(p);
    strata_props_destroy(q);
    strata_result_destroy(a);
    strata_result_destroy(b);
    strata_ctx_destroy(one);
    strata_ctx_destroy(two);
}
END_TEST

START_TEST(test_errors)
{
    strata_ctx *ctx = ctx_new(1);
    strata_result *res = flat_result(ctx, 10, 4);
    strata_props *p = (strata_props *)1;
    strata_props_options o;
    const struct {
        double density, freq;
        uint32_t first, last;
        float lo, hi, rocks;
    } bad[] = {
        {0, 0, 0, 9, 1, 1, 0},        {-1, 0, 0, 9, 1, 1, 0},  {NAN, 0, 0, 9, 1, 1, 0},
        {1, -1, 0, 9, 1, 1, 0},       {1, 0, 3, 2, 1, 1, 0},   {1, 0, 4, 9, 1, 1, 0},
        {1, 0, 0, 9, 0, 1, 0},        {1, 0, 0, 9, 2, 1, 0},   {1, 0, 0, 9, 1, 1, 1.5f},
        {INFINITY, 0, 0, 9, 1, 1, 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        strata_props_defaults(&o);
        o.density = bad[i].density;
        o.noise_frequency = bad[i].freq;
        o.first_terrace = bad[i].first;
        o.last_terrace = bad[i].last;
        o.min_scale = bad[i].lo;
        o.max_scale = bad[i].hi;
        o.rock_share = bad[i].rocks;
        ck_assert_status(strata_props_scatter(ctx, res, &o, &p), STRATA_ERR_INVALID_ARG);
        ck_assert_ptr_null(p);
    }
    /* the painter's options out of range */
    for (int i = 0; i < 9; i++) {
        strata_props_defaults(&o);
        switch (i) {
        case 0: o.spacing = -1; break;
        case 1: o.spacing = NAN; break;
        case 2: o.spacing = INFINITY; break;
        case 3: o.wall_foot = -0.5; break;
        case 4: o.wall_foot = NAN; break;
        case 5: o.min_height = 2, o.max_height = 1; break;
        case 6: o.min_height = NAN; break;
        case 7: o.max_slope = -1; break;
        default: o.max_slope = 91; break;
        }
        ck_assert_status(strata_props_scatter(ctx, res, &o, &p), STRATA_ERR_INVALID_ARG);
        ck_assert_ptr_null(p);
    }
    strata_props_defaults(&o);
    o.spacing = 1e-9; /* too many candidates */
    ck_assert_status(strata_props_scatter(ctx, res, &o, &p), STRATA_ERR_OVERFLOW);
    ck_assert_ptr_null(p);
    strata_props_defaults(&o);
    ck_assert_status(strata_props_scatter(NULL, res, &o, &p), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_props_scatter(ctx, NULL, &o, &p), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_props_scatter(ctx, res, NULL, &p), STRATA_ERR_INVALID_ARG);
    o.density = 1e14; /* too many */
    ck_assert_status(strata_props_scatter(ctx, res, &o, &p), STRATA_ERR_OVERFLOW);
    ck_assert_ptr_null(p);
    strata_result_destroy(res);
    strata_ctx_destroy(ctx);
}
END_TEST

static Suite *props_suite(void)
{
    Suite *s = suite_create("props");
    TCase *tc = tcase_create("Core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_flat);
    tcase_add_test(tc, test_same_for_any_threads);
    tcase_add_test(tc, test_seed);
    tcase_add_test(tc, test_planet);
    tcase_add_test(tc, test_csv);
    tcase_add_test(tc, test_spacing_flat);
    tcase_add_test(tc, test_spacing_planet);
    tcase_add_test(tc, test_painter_rules);
    tcase_add_test(tc, test_spacing_threads);
    suite_add_tcase(s, tc);
    tc = tcase_create("Limits");
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(props_suite()); }
