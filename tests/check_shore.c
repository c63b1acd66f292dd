/* Suite "shore": water surfaces and shorelines added to results
 * (strata_result_add_water, strata_result_add_shoreline).
 *
 * The water must lie exactly at its height (FLAT: y == H; RADIAL: its
 * vertices at radius R + H about the centre, as an icosphere places
 * them), face up or outwards, cover the domain it is given, live in its
 * own index range after every terrace's, and leave the terrain's own
 * vertices and triangles as they were.  A shoreline must start on the
 * loops' points bit for bit, reach `width` out on the downhill side (the
 * terrain is below the sea there; less where the coast bends towards the
 * sea more sharply than that), carry U = length so far / width and V 0 or
 * 1, face up, every triangle, and be the same bytes for any thread count. */
#define _GNU_SOURCE /* memmem, mkstemps */
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

/* The shoreline's triangles that face down (FLAT: -y; RADIAL: towards
 * the centre, seen at their first corner) or have no area: a ribbon
 * folded over where a coast bends towards the water more sharply than its
 * width allows. */
static uint64_t shore_wrong_way(const strata_result_view *v)
{
    uint64_t wrong = 0;
    for (uint64_t i = v->shore_first; i < v->shore_first + v->shore_count; i += 3) {
        const uint32_t a = v->indices[i], b = v->indices[i + 1], c = v->indices[i + 2];
        const double u[3] = {(double)v->x[b] - v->x[a], (double)v->y[b] - v->y[a],
                             (double)v->z[b] - v->z[a]};
        const double t[3] = {(double)v->x[c] - v->x[a], (double)v->y[c] - v->y[a],
                             (double)v->z[c] - v->z[a]};
        const double n[3] = {u[1] * t[2] - u[2] * t[1], u[2] * t[0] - u[0] * t[2],
                             u[0] * t[1] - u[1] * t[0]};
        const double up[3] = {v->geometry == STRATA_RADIAL ? v->x[a] - v->center[0] : 0.0,
                              v->geometry == STRATA_RADIAL ? v->y[a] - v->center[1] : 1.0,
                              v->geometry == STRATA_RADIAL ? v->z[a] - v->center[2] : 0.0};
        wrong += !(n[0] * up[0] + n[1] * up[1] + n[2] * up[2] > 0.0);
    }
    return wrong;
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

/* An icosphere of radius 10 at `level`, displaced by fBm (frequency 0.2,
 * amplitude 0.5): coasts at heights near 0. */
static strata_mesh *noise_planet(strata_ctx *ctx, int level)
{
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, level, 10.0f, &m));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.2f;
    f.amplitude = 0.5f;
    ck_assert_ok(strata_displace_radial(ctx, m, &f, NULL));
    return m;
}

/* A planet's water: the icosphere of sphere_level at radius R + H about
 * the centre, facing outwards, normals radial. */
START_TEST(test_sphere)
{
    strata_ctx *ctx = ctx_new(0);
    strata_mesh *m = noise_planet(ctx, 3);
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

/* A round hill: h = 2 - (x^2 + z^2) / 8 about the grid's middle, so each
 * plane's coast is one closed loop with the sea outside. */
static double hill(double x, double z) { return 2.0 - ((x - 6) * (x - 6) + (z - 6) * (z - 6)) / 8.0; }

static strata_mesh *hill_mesh(strata_ctx *ctx)
{
    strata_mesh *g;
    ck_assert_ok(strata_shape_grid(ctx, 48, 48, 0.25f, &g));
    strata_mesh_view v;
    strata_mesh_get_view(g, &v);
    float *xyz = malloc(sizeof(float) * 3 * v.nverts);
    uint32_t *tri = malloc(sizeof(uint32_t) * 3 * v.ntris);
    for (uint32_t i = 0; i < v.nverts; i++) {
        xyz[3 * i] = v.x[i] + 6.0f;
        xyz[3 * i + 2] = v.z[i] + 6.0f;
        xyz[3 * i + 1] = (float)hill(xyz[3 * i], xyz[3 * i + 2]);
    }
    for (uint32_t t = 0; t < v.ntris; t++) {
        tri[3 * t] = v.a[t];
        tri[3 * t + 1] = v.b[t];
        tri[3 * t + 2] = v.c[t];
    }
    strata_mesh *m;
    ck_assert_ok(strata_mesh_create(ctx, xyz, v.nverts, tri, v.ntris, &m));
    free(xyz);
    free(tri);
    strata_mesh_destroy(g);
    return m;
}

/* Check the shoreline of plane k of l in r (FLAT) against the loops. */
static void check_flat_ribbon(const strata_result *r, const strata_loops *l, uint32_t k,
                              float width, int normals)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    strata_loops_view lv;
    strata_loops_get_view(l, &lv);
    const float H = lv.levels[k];
    uint32_t w = v.uv_first;
    uint64_t quads = 0;
    for (uint64_t i = lv.plane_first[k]; i < lv.plane_first[k + 1]; i++) {
        const strata_loop *lp = &lv.loops[i];
        const uint32_t pairs = lp->closed ? lp->count + 1 : lp->count;
        double along = 0;
        float last_u = -1;
        for (uint32_t j = 0; j < pairs; j++, w += 2) {
            const uint64_t p = lp->first + j % lp->count;
            if (j) {
                const uint64_t q = lp->first + (j - 1) % lp->count;
                const double d[3] = {(double)lv.x[p] - lv.x[q], (double)lv.y[p] - lv.y[q],
                                     (double)lv.z[p] - lv.z[q]};
                along += sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            }
            /* the coast: the loop's point, bits and all */
            require(memcmp(&v.x[w], &lv.x[p], 4) == 0 && memcmp(&v.y[w], &lv.y[p], 4) == 0 &&
                        memcmp(&v.z[w], &lv.z[p], 4) == 0,
                    "coast vertex %u is not loop point %llu", w, (unsigned long long)p);
            require_true(v.y[w] == H && v.y[w + 1] == H);
            const double dx = (double)v.x[w + 1] - v.x[w], dz = (double)v.z[w + 1] - v.z[w];
            ck_assert_double_eq_tol(sqrt(dx * dx + dz * dz), width, 1e-5 * (1 + width));
            /* downhill: the hill is below the sea out there */
            require(hill(v.x[w + 1], v.z[w + 1]) < H, "outer vertex %u at height %g >= %g",
                    w + 1, hill(v.x[w + 1], v.z[w + 1]), (double)H);
            const float *uv = v.uv + 2 * (size_t)(w - v.uv_first);
            require_true(uv[0] == (float)(along / width) && uv[2] == uv[0]);
            require_true(uv[1] == 0.0f && uv[3] == 1.0f);
            require_ge(uv[0], last_u);
            last_u = uv[0];
            if (normals)
                for (uint32_t c = w; c <= w + 1; c++)
                    require_true(v.nx[c] == 0 && v.ny[c] == 1 && v.nz[c] == 0);
        }
        ck_assert_double_eq_tol(along, lp->length, 1e-9 * lp->length);
        quads += pairs - 1;
    }
    require_eq(w, v.uv_first + v.nuv);
    require_eq(v.nverts, w);
    require_eq(v.shore_count, 6 * quads);
    for (uint64_t i = v.shore_first; i < v.shore_first + v.shore_count; i += 3) {
        for (int c = 0; c < 3; c++)
            require_true(v.indices[i + c] >= v.uv_first && v.indices[i + c] < w);
        require_gt(tri_up(&v, i), 0.0);
    }
}

/* Loops from the result (no normals) and from the mesh (normals). */
START_TEST(test_shore_flat)
{
    const int normals = _i;
    strata_ctx *ctx = ctx_new(0);
    strata_mesh *m = hill_mesh(ctx);
    const float levels[] = {-1.0f, 0.5f, 1.0f, 1.75f};
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = levels;
    so.nlevels = 4;
    so.normals = normals;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    strata_loops *l;
    if (normals) {
        ck_assert_status(strata_loops_from_result(ctx, r, &l), STRATA_ERR_INVALID_ARG);
        ck_assert_ok(strata_loops_from_mesh(ctx, m, levels, 4, &l));
    } else {
        ck_assert_ok(strata_loops_from_result(ctx, r, &l));
    }
    strata_loops_view lv;
    strata_loops_get_view(l, &lv);
    require_eq(lv.plane_first[2] - lv.plane_first[1], 1u); /* one coast at 0.5 */
    require_eq(lv.loops[lv.plane_first[1]].closed, 1u);
    ck_assert_status(strata_result_add_shoreline(ctx, r, l, 4, 0.3f), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_add_shoreline(ctx, r, l, 1, 0.0f), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_add_shoreline(ctx, r, l, 1, -1.0f), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_add_shoreline(ctx, r, l, 1, INFINITY), STRATA_ERR_INVALID_ARG);
    ck_assert_ok(strata_result_add_water(ctx, r, 0.5f, NULL, 0, 0));
    ck_assert_ok(strata_result_add_shoreline(ctx, r, l, 1, 0.3f));
    check_flat_ribbon(r, l, 1, 0.3f, normals);
    /* simplification and solids take results as the slicer made them */
    ck_assert_status(strata_result_simplify_roofs(ctx, r, 1e-4, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_solidify(ctx, r, 1.0f, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_add_shoreline(ctx, r, l, 1, 0.3f), STRATA_ERR_INVALID_ARG);
    strata_loops_destroy(l);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Open polylines (a wavy terrain: coasts from border to border, islands
 * and lakes), on every plane in turn. */
START_TEST(test_shore_open)
{
    strata_ctx *ctx = ctx_new(0);
    strata_mesh *m;
    strata_result *r0 = wavy_terrain(ctx, 0, &m);
    strata_loops *l;
    ck_assert_ok(strata_loops_from_result(ctx, r0, &l));
    strata_loops_view lv;
    strata_loops_get_view(l, &lv);
    int open = 0;
    for (uint64_t i = 0; i < lv.nloops; i++)
        open += !lv.loops[i].closed;
    require_gt(open, 0);
    const float levels[] = {-1.0f, -0.25f, 0.0f, 0.5f, 1.0f};
    for (uint32_t k = 1; k < 5; k++) {
        strata_slice_options so;
        strata_slice_defaults(&so);
        so.levels = levels;
        so.nlevels = 5;
        strata_result *r;
        ck_assert_ok(strata_slice(ctx, m, &so, &r));
        strata_result_view before;
        strata_result_get_view(r, &before);
        const uint32_t nv = before.nverts;
        ck_assert_ok(strata_result_add_shoreline(ctx, r, l, k, 0.05f));
        strata_result_view v;
        strata_result_get_view(r, &v);
        require_eq(v.uv_first, nv);
        /* coasts on the loops, flat at L[k], W out (less where the coast
         * bends sharply towards the water), U and V as said */
        uint32_t w = v.uv_first, full = 0;
        for (uint64_t i = lv.plane_first[k]; i < lv.plane_first[k + 1]; i++) {
            const strata_loop *lp = &lv.loops[i];
            const uint32_t pairs = lp->closed ? lp->count + 1 : lp->count;
            float last = -1;
            for (uint32_t j = 0; j < pairs; j++, w += 2) {
                const uint64_t p = lp->first + j % lp->count;
                require_true(v.x[w] == lv.x[p] && v.y[w] == lv.y[p] && v.z[w] == lv.z[p]);
                require_true(v.y[w + 1] == levels[k]);
                const double dx = (double)v.x[w + 1] - v.x[w], dz = (double)v.z[w + 1] - v.z[w];
                const double out = sqrt(dx * dx + dz * dz);
                require(out > 0 && out < 0.05 + 1e-6, "outer vertex %u %g out", w + 1, out);
                full += fabs(out - 0.05) < 1e-6;
                require_ge(v.uv[2 * (w - v.uv_first)], last);
                last = v.uv[2 * (w - v.uv_first)];
            }
            ck_assert_double_eq_tol(last, lp->length / 0.05, 1e-4 * (1 + lp->length / 0.05));
        }
        require_eq(w, v.nverts);
        require_ge(full * 10, 9 * (uint64_t)v.nuv / 2); /* mostly the full width */
        require_eq(shore_wrong_way(&v), 0u);
        strata_result_destroy(r);
    }
    strata_loops_destroy(l);
    strata_result_destroy(r0);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Sharp bends: the wavy terrain's coasts (islands, lakes, bays) with
 * ribbons wider than many of their bends, on every plane: each drawn in
 * somewhere, and not one triangle facing down or of no area. */
START_TEST(test_shore_folds)
{
    static const float widths[] = {0.05f, 0.25f, 1.0f};
    const float W = widths[_i];
    strata_ctx *ctx = ctx_new(0);
    strata_mesh *m;
    strata_result *r0 = wavy_terrain(ctx, 0, &m);
    strata_loops *l;
    ck_assert_ok(strata_loops_from_result(ctx, r0, &l));
    const float levels[] = {-1.0f, -0.25f, 0.0f, 0.5f, 1.0f};
    uint64_t drawn_in = 0, clipped = 0;
    for (uint32_t k = 1; k < 5; k++) {
        strata_slice_options so;
        strata_slice_defaults(&so);
        so.levels = levels;
        so.nlevels = 5;
        strata_result *r;
        ck_assert_ok(strata_slice(ctx, m, &so, &r));
        ck_assert_ok(strata_result_add_shoreline(ctx, r, l, k, W));
        strata_result_view v;
        strata_result_get_view(r, &v);
        require_gt(v.shore_count, 0u);
        /* the terrain's extent: no shoreline vertex outside it (the
         * ribbon is clipped to the domain where a coast meets the
         * border), and some drawn in by it at the widest */
        float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (uint32_t i = 0; i < v.uv_first; i++) {
            lo[0] = fminf(lo[0], v.x[i]), hi[0] = fmaxf(hi[0], v.x[i]);
            lo[1] = fminf(lo[1], v.z[i]), hi[1] = fmaxf(hi[1], v.z[i]);
        }
        for (uint32_t w = v.uv_first; w < v.nverts; w++)
            require(v.x[w] >= lo[0] && v.x[w] <= hi[0] && v.z[w] >= lo[1] && v.z[w] <= hi[1],
                    "W %g plane %u: shoreline vertex %u at (%g, %g) outside the terrain "
                    "[%g, %g] x [%g, %g]",
                    (double)W, k, w, (double)v.x[w], (double)v.z[w], (double)lo[0],
                    (double)hi[0], (double)lo[1], (double)hi[1]);
        for (uint32_t w = v.uv_first; w < v.nverts; w += 2) {
            const double dx = (double)v.x[w + 1] - v.x[w], dz = (double)v.z[w + 1] - v.z[w];
            drawn_in += sqrt(dx * dx + dz * dz) < W * (1 - 1e-6);
            clipped += v.x[w + 1] == lo[0] || v.x[w + 1] == hi[0] || v.z[w + 1] == lo[1] ||
                       v.z[w + 1] == hi[1];
        }
        require(shore_wrong_way(&v) == 0, "W %g plane %u: %llu of %llu triangles face down",
                (double)W, k, (unsigned long long)shore_wrong_way(&v),
                (unsigned long long)v.shore_count / 3);
        strata_result_destroy(r);
    }
    require_gt(drawn_in, 0u);
    require_gt(clipped, 0u); /* coasts meet the border: outer points on it */
    strata_loops_destroy(l);
    strata_result_destroy(r0);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A planet: coasts on the loops, the outer edge on the sphere R + H,
 * `width` along the surface (at most), normals radial, facing outwards. */
START_TEST(test_shore_planet)
{
    strata_ctx *ctx = ctx_new(0);
    strata_mesh *m = noise_planet(ctx, 4);
    const float levels[] = {-0.5f, 0.0f, 0.2f};
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = levels;
    so.nlevels = 3;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    strata_loops *l;
    ck_assert_ok(strata_loops_from_result(ctx, r, &l));
    strata_loops_view lv;
    strata_loops_get_view(l, &lv);
    require_gt(lv.plane_first[2] - lv.plane_first[1], 0u);
    const float W = _i ? 0.5f : 0.1f;
    ck_assert_ok(strata_result_add_shoreline(ctx, r, l, 1, W));
    strata_result_view v;
    strata_result_get_view(r, &v);
    const double R = (double)v.radius + levels[1];
    uint32_t w = v.uv_first, full = 0;
    for (uint64_t i = lv.plane_first[1]; i < lv.plane_first[2]; i++) {
        const strata_loop *lp = &lv.loops[i];
        for (uint32_t j = 0; j <= lp->count; j++, w += 2) {
            const uint64_t p = lp->first + j % lp->count;
            require_true(v.x[w] == lv.x[p] && v.y[w] == lv.y[p] && v.z[w] == lv.z[p]);
            double a[3], b[3], la = 0, lb = 0, dot = 0;
            const float *pa[3] = {&v.x[w], &v.y[w], &v.z[w]}, *pb[3] = {&v.x[w + 1], &v.y[w + 1], &v.z[w + 1]};
            for (int c = 0; c < 3; c++) {
                a[c] = (double)*pa[c] - v.center[c];
                b[c] = (double)*pb[c] - v.center[c];
                la += a[c] * a[c];
                lb += b[c] * b[c];
            }
            la = sqrt(la);
            lb = sqrt(lb);
            for (int c = 0; c < 3; c++)
                dot += a[c] * b[c];
            ck_assert_double_eq_tol(lb, R, 1e-5 * R);
            const double out = acos(fmin(1.0, dot / (la * lb))) * R;
            require(out > 0 && out < W * (1 + 1e-3), "outer vertex %u %g out", w + 1, out);
            full += out > W * (1 - 1e-3);
        }
    }
    require_eq(w, v.nverts);
    require_ge(full * 4, 3 * (uint64_t)v.nuv / 2); /* mostly the full width */
    /* outwards everywhere, also where a coast bends towards the sea more
     * sharply than W (the outer edge drawn in there, not folded over) */
    require_eq(shore_wrong_way(&v), 0u);
    strata_loops_destroy(l);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The same GLB, PLY and OBJ bytes for 1, 2 and 3 threads. */
START_TEST(test_shore_threads)
{
    static const char *const ext[] = {".glb", ".ply", ".obj"};
    unsigned char *first[3] = {NULL, NULL, NULL};
    size_t first_size[3];
    for (int threads = 1; threads <= 3; threads++) {
        strata_ctx *ctx = ctx_new(threads);
        strata_mesh *m = hill_mesh(ctx);
        const float levels[] = {-1.0f, 0.5f, 1.0f, 1.75f};
        strata_slice_options so;
        strata_slice_defaults(&so);
        so.levels = levels;
        so.nlevels = 4;
        strata_result *r;
        ck_assert_ok(strata_slice(ctx, m, &so, &r));
        strata_loops *l;
        ck_assert_ok(strata_loops_from_result(ctx, r, &l));
        ck_assert_ok(strata_result_add_water(ctx, r, 0.5f, NULL, 0, 0));
        ck_assert_ok(strata_result_add_shoreline(ctx, r, l, 1, 0.3f));
        for (int e = 0; e < 3; e++) {
            char path[64];
            /* one name for all (OBJ names its .mtl) */
            snprintf(path, sizeof path, "/tmp/strata-shore-%d%s", (int)getpid(), ext[e]);
            ck_assert_ok(strata_result_write(ctx, r, path, NULL));
            size_t size;
            unsigned char *b = slurp(path, &size);
            ck_assert_ptr_nonnull(b);
            unlink(path);
            if (e == 2) { /* and its .mtl */
                path[strlen(path) - 4] = 0;
                strcat(path, ".mtl");
                unlink(path);
            }
            if (threads == 1) {
                first[e] = b;
                first_size[e] = size;
            } else {
                ck_assert_uint_eq(size, first_size[e]);
                ck_assert_int_eq(memcmp(b, first[e], size), 0);
                free(b);
            }
        }
        strata_loops_destroy(l);
        strata_result_destroy(r);
        strata_mesh_destroy(m);
        strata_ctx_destroy(ctx);
    }
    /* the GLB: a shoreline primitive with TEXCOORD_0, a translucent water */
    ck_assert_ptr_nonnull(memmem(first[0], first_size[0], "\"TEXCOORD_0\"", 12));
    static const char shore_mat[] = "\"name\":\"shoreline\",\"alphaMode\":\"BLEND\"";
    static const char water_mat[] = "\"name\":\"water\",\"alphaMode\":\"BLEND\"";
    ck_assert_ptr_nonnull(memmem(first[0], first_size[0], shore_mat, sizeof shore_mat - 1));
    ck_assert_ptr_nonnull(memmem(first[0], first_size[0], water_mat, sizeof water_mat - 1));
    ck_assert_ptr_nonnull(memmem(first[2], first_size[2], "\ng shoreline\n", 13));
    for (int e = 0; e < 3; e++)
        free(first[e]);
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
    tc = tcase_create("Shoreline");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_shore_flat, 0, 2);
    tcase_add_test(tc, test_shore_open);
    tcase_add_loop_test(tc, test_shore_folds, 0, 3);
    tcase_add_loop_test(tc, test_shore_planet, 0, 2);
    tcase_add_test(tc, test_shore_threads);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(shore_suite()); }
