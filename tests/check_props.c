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
    suite_add_tcase(s, tc);
    tc = tcase_create("Limits");
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(props_suite()); }
