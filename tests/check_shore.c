/* Suite "shore": water surfaces added to results (strata_result_add_water).
 *
 * The water must lie exactly at its height (FLAT: y == H; RADIAL: its
 * vertices at radius R + H about the centre, as an icosphere places
 * them), face up or outwards, cover the domain it is given, live in its
 * own index range after every terrace's, and leave the terrain's own
 * vertices and triangles as they were. */
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* A wavy grid sliced at levels (walls upper, normals as asked). */
static strata_result *wavy_terrain(strata_ctx *ctx, int normals, strata_mesh **mesh_out)
{
    strata_mesh *m;
    ck_assert_ok(strata_shape_grid(ctx, 24, 16, 0.5f, &m));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.3f;
    f.amplitude = 2.0f;
    ck_assert_ok(strata_displace_flat(ctx, m, &f, NULL));
    const float levels[] = {-1.0f, -0.25f, 0.0f, 0.5f, 1.0f};
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = levels;
    so.nlevels = 5;
    so.normals = normals;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    *mesh_out = m;
    return r;
}

/* The y of (b - a) x (c - a) for triangle t of the range at `first`. */
static double tri_up(const strata_result_view *v, uint64_t i)
{
    const uint32_t a = v->indices[i], b = v->indices[i + 1], c = v->indices[i + 2];
    const double ux = (double)v->x[b] - v->x[a], uz = (double)v->z[b] - v->z[a];
    const double wx = (double)v->x[c] - v->x[a], wz = (double)v->z[c] - v->z[a];
    return uz * wx - ux * wz;
}

/* The terrain before the water is a prefix of the result after it. */
static void same_prefix(const strata_result_view *a, const strata_result_view *b)
{
    require_le(a->nverts, b->nverts);
    require_le(a->nindices, b->nindices);
    ck_assert_int_eq(memcmp(a->x, b->x, a->nverts * sizeof(float)), 0);
    ck_assert_int_eq(memcmp(a->y, b->y, a->nverts * sizeof(float)), 0);
    ck_assert_int_eq(memcmp(a->z, b->z, a->nverts * sizeof(float)), 0);
    ck_assert_int_eq(memcmp(a->indices, b->indices, a->nindices * sizeof(uint32_t)), 0);
    require_eq(a->nterraces, b->nterraces);
    ck_assert_int_eq(memcmp(a->terraces, b->terraces, a->nterraces * sizeof(strata_terrace)),
                     0);
}

/* Without an outline: the rectangle the terrain spans, at exactly H, two
 * triangles facing up, normals up when the result has them. */
START_TEST(test_flat_rectangle)
{
    const int normals = _i;
    strata_ctx *ctx = ctx_new(0);
    strata_mesh *m;
    strata_result *r = wavy_terrain(ctx, normals, &m);
    strata_result_view before;
    strata_result_get_view(r, &before);
    float *copy[3];
    const float *src[3] = {before.x, before.y, before.z};
    for (int k = 0; k < 3; k++) {
        copy[k] = malloc(before.nverts * sizeof(float));
        memcpy(copy[k], src[k], before.nverts * sizeof(float));
    }
    uint32_t *ix = malloc(before.nindices * sizeof(uint32_t));
    memcpy(ix, before.indices, before.nindices * sizeof(uint32_t));
    strata_terrace *ts = malloc(before.nterraces * sizeof *ts);
    memcpy(ts, before.terraces, before.nterraces * sizeof *ts);
    strata_result_view old = before;
    old.x = copy[0];
    old.y = copy[1];
    old.z = copy[2];
    old.indices = ix;
    old.terraces = ts;

    const float H = 0.0f;
    ck_assert_ok(strata_result_add_water(ctx, r, H, NULL, 0, 0));
    strata_result_view v;
    strata_result_get_view(r, &v);
    same_prefix(&old, &v);
    require_eq(v.nverts, old.nverts + 4);
    require_eq(v.water_first, old.nindices);
    require_eq(v.water_count, 6u);
    require_eq(v.nindices, old.nindices + 6);
    float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (uint32_t i = 0; i < old.nverts; i++) {
        lo[0] = fminf(lo[0], old.x[i]);
        hi[0] = fmaxf(hi[0], old.x[i]);
        lo[1] = fminf(lo[1], old.z[i]);
        hi[1] = fmaxf(hi[1], old.z[i]);
    }
    double area = 0;
    for (uint64_t i = v.water_first; i < v.water_first + v.water_count; i += 3) {
        for (int c = 0; c < 3; c++) {
            const uint32_t w = v.indices[i + c];
            require_ge(w, old.nverts);
            require_true(v.y[w] == H);
            require_true(v.x[w] == lo[0] || v.x[w] == hi[0]);
            require_true(v.z[w] == lo[1] || v.z[w] == hi[1]);
            if (normals)
                require_true(v.nx[w] == 0 && v.ny[w] == 1 && v.nz[w] == 0);
        }
        const double up = tri_up(&v, i);
        require_gt(up, 0.0);
        area += 0.5 * up;
    }
    ck_assert_double_eq_tol(area, ((double)hi[0] - lo[0]) * ((double)hi[1] - lo[1]), 1e-9);
    /* once only */
    ck_assert_status(strata_result_add_water(ctx, r, H, NULL, 0, 0), STRATA_ERR_INVALID_ARG);
    for (int k = 0; k < 3; k++)
        free(copy[k]);
    free(ix);
    free(ts);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A convex outline in either direction: fanned, facing up, its points
 * exactly; not convex, too short or not finite: refused, r unchanged. */
START_TEST(test_flat_outline)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *m;
    strata_result *r = wavy_terrain(ctx, 0, &m);
    strata_result_view old;
    strata_result_get_view(r, &old);
    const uint32_t nv = old.nverts;
    const uint64_t ni = old.nindices;
    const float concave[] = {0, 0, 4, 0, 1, 1, 0, 4};
    ck_assert_status(strata_result_add_water(ctx, r, 0.5f, concave, 4, 0), STRATA_ERR_INVALID_ARG);
    const float line[] = {0, 0, 1, 1, 2, 2};
    ck_assert_status(strata_result_add_water(ctx, r, 0.5f, line, 3, 0), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_add_water(ctx, r, 0.5f, line, 2, 0), STRATA_ERR_INVALID_ARG);
    const float nan_pt[] = {0, 0, NAN, 0, 0, 4};
    ck_assert_status(strata_result_add_water(ctx, r, 0.5f, nan_pt, 3, 0), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_add_water(ctx, r, NAN, NULL, 0, 0), STRATA_ERR_INVALID_ARG);
    strata_result_view v;
    strata_result_get_view(r, &v);
    require_eq(v.nverts, nv);
    require_eq(v.nindices, ni);
    require_eq(v.water_count, 0u);

    /* a hexagon, clockwise seen from above for _i == 1 */
    float hex[12];
    for (int i = 0; i < 6; i++) {
        const double a = (_i ? -1 : 1) * 2 * M_PI * i / 6;
        hex[2 * i] = (float)(3 + 2 * cos(a));
        hex[2 * i + 1] = (float)(4 + 2 * sin(a));
    }
    ck_assert_ok(strata_result_add_water(ctx, r, 0.5f, hex, 6, 0));
    strata_result_get_view(r, &v);
    require_eq(v.nverts, nv + 6);
    require_eq(v.water_count, 12u);
    for (int i = 0; i < 6; i++) {
        require_true(v.x[nv + i] == hex[2 * i] && v.z[nv + i] == hex[2 * i + 1]);
        require_true(v.y[nv + i] == 0.5f);
    }
    double area = 0;
    for (uint64_t i = v.water_first; i < v.water_first + v.water_count; i += 3) {
        require_gt(tri_up(&v, i), 0.0);
        area += 0.5 * tri_up(&v, i);
    }
    ck_assert_double_eq_tol(area, 1.5 * sqrt(3.0) * 4, 1e-5);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A planet's water: the icosphere of sphere_level at radius R + H about
 * the centre, facing outwards, normals radial. */
START_TEST(test_sphere)
{
    strata_ctx *ctx = ctx_new(0);
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, 3, 10.0f, &m));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.2f;
    f.amplitude = 0.5f;
    ck_assert_ok(strata_displace_radial(ctx, m, &f, NULL));
    const float levels[] = {-0.5f, -0.1f, 0.0f, 0.2f};
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = levels;
    so.nlevels = 4;
    so.normals = _i;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    strata_result_view old;
    strata_result_get_view(r, &old);
    const uint32_t nv = old.nverts;
    const uint64_t ni = old.nindices;
    ck_assert_status(strata_result_add_water(ctx, r, -10.0f, NULL, 0, 2), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_add_water(ctx, r, 0.0f, NULL, 0,
                                             STRATA_WATER_SPHERE_LEVEL_MAX + 1),
                     STRATA_ERR_INVALID_ARG);
    ck_assert_ok(strata_result_add_water(ctx, r, 0.0f, NULL, 0, 2));
    strata_result_view v;
    strata_result_get_view(r, &v);
    require_eq(v.nverts, nv + 162);
    require_eq(v.water_first, ni);
    require_eq(v.water_count, 3u * 320);
    strata_mesh *ico;
    ck_assert_ok(strata_shape_icosphere(ctx, 2, v.radius + 0.0f, &ico));
    strata_mesh_view iv;
    strata_mesh_get_view(ico, &iv);
    for (uint32_t i = 0; i < 162; i++) {
        require_true(v.x[nv + i] == iv.x[i] + v.center[0]);
        require_true(v.y[nv + i] == iv.y[i] + v.center[1]);
        require_true(v.z[nv + i] == iv.z[i] + v.center[2]);
        if (_i) {
            const double d = sqrt((double)v.nx[nv + i] * v.nx[nv + i] +
                                  (double)v.ny[nv + i] * v.ny[nv + i] +
                                  (double)v.nz[nv + i] * v.nz[nv + i]);
            ck_assert_double_eq_tol(d, 1.0, 1e-6);
        }
    }
    for (uint64_t i = v.water_first; i < v.water_first + v.water_count; i += 3) {
        const uint32_t a = v.indices[i], b = v.indices[i + 1], c = v.indices[i + 2];
        const double u[3] = {v.x[b] - v.x[a], v.y[b] - v.y[a], v.z[b] - v.z[a]};
        const double w[3] = {v.x[c] - v.x[a], v.y[c] - v.y[a], v.z[c] - v.z[a]};
        const double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
                             u[0] * w[1] - u[1] * w[0]};
        const double out = n[0] * (v.x[a] - v.center[0]) + n[1] * (v.y[a] - v.center[1]) +
                           n[2] * (v.z[a] - v.center[2]);
        require_gt(out, 0.0);
    }
    strata_mesh_destroy(ico);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* PLY: the water's faces carry terrace -2, after the terrain's. */
START_TEST(test_ply_mark)
{
    strata_ctx *ctx = ctx_new(0);
    strata_mesh *m;
    strata_result *r = wavy_terrain(ctx, 0, &m);
    ck_assert_ok(strata_result_add_water(ctx, r, 0.0f, NULL, 0, 0));
    char path[] = "/tmp/strata-shore-XXXXXX.ply";
    const int fd = mkstemps(path, 4);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_ok(strata_result_write(ctx, r, path, NULL));
    strata_result_view v;
    strata_result_get_view(r, &v);
    FILE *fp = fopen(path, "rb");
    ck_assert_ptr_nonnull(fp);
    fseek(fp, 0, SEEK_END);
    const long size = ftell(fp);
    /* the last two faces: 1 + 12 + 4 + 1 bytes each */
    unsigned char face[18];
    for (int k = 2; k >= 1; k--) {
        fseek(fp, size - 18 * k, SEEK_SET);
        ck_assert_int_eq(fread(face, 1, 18, fp), 18);
        int32_t terrace;
        uint32_t a;
        memcpy(&terrace, face + 13, 4);
        memcpy(&a, face + 1, 4);
        ck_assert_int_eq(face[0], 3);
        ck_assert_int_eq(terrace, -2);
        ck_assert_uint_eq(a, v.indices[v.nindices - 3 * k]);
    }
    /* and the one before them is a terrace's */
    fseek(fp, size - 18 * 3, SEEK_SET);
    ck_assert_int_eq(fread(face, 1, 18, fp), 18);
    int32_t terrace;
    memcpy(&terrace, face + 13, 4);
    ck_assert_int_ge(terrace, 0);
    fclose(fp);
    unlink(path);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

static Suite *shore_suite(void)
{
    Suite *s = suite_create("shore");
    TCase *tc = tcase_create("Water");
    tcase_add_loop_test(tc, test_flat_rectangle, 0, 2);
    tcase_add_loop_test(tc, test_flat_outline, 0, 2);
    tcase_add_loop_test(tc, test_sphere, 0, 2);
    tcase_add_test(tc, test_ply_mark);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(shore_suite()); }
