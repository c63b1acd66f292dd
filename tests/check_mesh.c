/* Suite "mesh": context, mesh construction, edge tables, shapes and
 * subdivision. */
#define _DEFAULT_SOURCE /* M_PI, fork */
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------ helpers */

/* Check the edge table against the triangles and return how many edges are
 * used by one triangle (border) and how many by more than two. */
static void check_edge_table(const strata_mesh *m, uint32_t *border, uint32_t *over)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    uint32_t *use = calloc(v.nedges ? v.nedges : 1, sizeof *use);
    ck_assert_ptr_nonnull(use);
    for (uint32_t e = 0; e < v.nedges; e++)
        require_lt(v.ev0[e], v.ev1[e]);
    for (uint32_t t = 0; t < v.ntris; t++) {
        const uint32_t vv[3] = {v.a[t], v.b[t], v.c[t]};
        const uint32_t ee[3] = {v.e0[t], v.e1[t], v.e2[t]};
        for (int s = 0; s < 3; s++) {
            uint32_t p = vv[s], q = vv[(s + 1) % 3], e = ee[s];
            require_lt(e, v.nedges);
            uint32_t lo = p < q ? p : q, hi = p < q ? q : p;
            require(v.ev0[e] == lo && v.ev1[e] == hi,
                          "tri %u side %d: edge %u is (%u,%u), want (%u,%u)", t, s, e,
                          v.ev0[e], v.ev1[e], lo, hi);
            use[e]++;
        }
    }
    *border = *over = 0;
    for (uint32_t e = 0; e < v.nedges; e++) {
        require_gt(use[e], 0); /* no orphan edges */
        *border += use[e] == 1;
        *over += use[e] > 2;
    }
    free(use);
}

/* Each directed edge (p -> q) used at most once: consistent orientation. */
static void check_oriented(const strata_mesh *m)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    size_t n = (size_t)v.ntris * 3;
    uint64_t *d = malloc(n * sizeof *d);
    ck_assert_ptr_nonnull(d);
    for (uint32_t t = 0; t < v.ntris; t++) {
        d[3 * (size_t)t] = (uint64_t)v.a[t] << 32 | v.b[t];
        d[3 * (size_t)t + 1] = (uint64_t)v.b[t] << 32 | v.c[t];
        d[3 * (size_t)t + 2] = (uint64_t)v.c[t] << 32 | v.a[t];
    }
    qsort(d, n, sizeof *d, cmp_u64);
    for (size_t i = 1; i < n; i++)
        require(d[i] != d[i - 1], "directed edge used twice: inconsistent winding");
    free(d);
}

/* Unnormalised normal of triangle t, in double. */
static void tri_normal(const strata_mesh_view *v, uint32_t t, double n[3])
{
    const uint32_t a = v->a[t], b = v->b[t], c = v->c[t];
    double ux = v->x[b] - v->x[a], uy = v->y[b] - v->y[a], uz = v->z[b] - v->z[a];
    double wx = v->x[c] - v->x[a], wy = v->y[c] - v->y[a], wz = v->z[c] - v->z[a];
    n[0] = uy * wz - uz * wy;
    n[1] = uz * wx - ux * wz;
    n[2] = ux * wy - uy * wx;
}

/* ------------------------------------------------------------ context */

START_TEST(test_version_status)
{
    ck_assert_str_eq(strata_version(), STRATA_VERSION);
    require_eq(STRATA_VERSION_NUMBER, 100);
    for (int s = 0; s < STRATA_STATUS_COUNT_; s++) {
        const char *msg = strata_status_str((strata_status)s);
        ck_assert_ptr_nonnull(msg);
        ck_assert_str_ne(msg, "unknown status");
        for (int r = 0; r < s; r++)
            ck_assert_str_ne(msg, strata_status_str((strata_status)r));
    }
    ck_assert_str_eq(strata_status_str((strata_status)9999), "unknown status");
}
END_TEST

START_TEST(test_memory_estimate)
{
    ck_assert_uint_eq(strata_whole_memory_estimate(0), 0);
    /* level 11: 83886080 triangles, 5.97 GB measured */
    ck_assert_uint_eq(strata_whole_memory_estimate(83886080), 83886080ull * 71);
    ck_assert_uint_eq(strata_whole_memory_estimate(UINT64_MAX / 10), UINT64_MAX);
    const uint64_t phys = strata_memory_limit();
    ck_assert_uint_gt(phys, 1u << 26); /* some physical memory */
    /* a lower address-space limit is the limit (in a child: it stays) */
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        struct rlimit rl = {(rlim_t)1 << 30, (rlim_t)1 << 30};
        _exit(setrlimit(RLIMIT_AS, &rl) == 0 && strata_memory_limit() == (uint64_t)1 << 30 ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

START_TEST(test_allocator_hook)
{
    test_alloc c;
    strata_ctx *ctx = ctx_new_counting(1, &c);
    strata_mesh *m, *s;
    ck_assert_ok(strata_shape_icosphere(ctx, 2, 1.0f, &m));
    ck_assert_ok(strata_mesh_subdivide(ctx, m, 1, STRATA_SUBDIVIDE_PROJECT, &s));
    require_gt(c.count, 10);
    strata_mesh_destroy(m);
    strata_mesh_destroy(s);
    strata_ctx_destroy(ctx);
    require_eq(c.live, 0); /* every allocation went back through the hook */

    strata_allocator bad = test_alloc_hook(&c);
    bad.alloc = NULL;
    strata_ctx_options o;
    strata_ctx_defaults(&o);
    o.threads = 1;
    o.allocator = &bad;
    ck_assert_status(strata_ctx_create(&o, &ctx), STRATA_ERR_INVALID_ARG);
    ck_assert_ptr_null(ctx);
    o.allocator = NULL;
    o.threads = -1;
    ck_assert_status(strata_ctx_create(&o, &ctx), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_ctx_create(NULL, NULL), STRATA_ERR_INVALID_ARG);
}
END_TEST

/* The documented defaults, every field set whatever was there before. */
START_TEST(test_option_defaults)
{
    strata_ctx_options co;
    memset(&co, 0xab, sizeof co);
    strata_ctx_defaults(&co);
    ck_assert_int_eq(co.threads, 0);
    ck_assert_ptr_null(co.allocator);
    strata_ctx *ctx;
    ck_assert_ok(strata_ctx_create(&co, &ctx));
    strata_ctx *plain = ctx_new(0);
    require_eq(strata_ctx_threads(ctx), strata_ctx_threads(plain)); /* as NULL options */
    strata_ctx_destroy(plain);
    strata_ctx_destroy(ctx);

    strata_slice_options so;
    memset(&so, 0xab, sizeof so);
    strata_slice_defaults(&so);
    ck_assert_ptr_null(so.levels);
    ck_assert_uint_eq(so.nlevels, 0);
    ck_assert_int_eq(so.walls, STRATA_WALLS_UPPER);
    ck_assert_int_eq(so.normals, 0);
    ck_assert_int_eq(so.areas, 0);
    strata_ctx_defaults(NULL); /* no crash */
    strata_slice_defaults(NULL);
}
END_TEST

START_TEST(test_threads)
{
    strata_ctx *ctx = ctx_new(0);
    require_ge(strata_ctx_threads(ctx), 1);
    ck_assert_ok(strata_ctx_set_threads(ctx, 3));
#ifdef _OPENMP
    require_eq(strata_ctx_threads(ctx), 3);
#else
    require_eq(strata_ctx_threads(ctx), 1);
#endif
    ck_assert_status(strata_ctx_set_threads(ctx, -2), STRATA_ERR_INVALID_ARG);
    strata_ctx_destroy(ctx);
    strata_ctx_destroy(NULL);
}
END_TEST

static int cancel_after_first(void *user, const char *stage, double done)
{
    int *calls = user;
    ck_assert_str_eq(stage, "subdivide");
    require_true(done >= 0.0 && done <= 1.0);
    return ++*calls >= 2;
}

START_TEST(test_cancel_progress)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *m, *s = (strata_mesh *)1;
    ck_assert_ok(strata_shape_icosphere(ctx, 1, 1.0f, &m));
    strata_ctx_cancel(ctx);
    ck_assert_status(strata_mesh_subdivide(ctx, m, 2, 0, &s), STRATA_ERR_CANCELLED);
    ck_assert_ptr_null(s);
    strata_ctx_reset_cancel(ctx);
    int calls = 0;
    strata_ctx_set_progress(ctx, cancel_after_first, &calls);
    ck_assert_status(strata_mesh_subdivide(ctx, m, 3, 0, &s), STRATA_ERR_CANCELLED);
    require_eq(calls, 2);
    strata_ctx_reset_cancel(ctx);
    strata_ctx_set_progress(ctx, NULL, NULL);
    ck_assert_ok(strata_mesh_subdivide(ctx, m, 1, 0, &s));
    strata_mesh_destroy(s);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ meshes */

START_TEST(test_create_edges_by_sorting)
{
    /* A grid built directly and the same triangles sorted must describe
     * the same edges. */
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *s;
    ck_assert_ok(strata_shape_grid(ctx, 7, 5, 0.5f, &g));
    strata_mesh_view v;
    strata_mesh_get_view(g, &v);
    float *xyz;
    uint32_t *tri;
    mesh_arrays(g, &xyz, &tri);
    ck_assert_ok(strata_mesh_create(ctx, xyz, v.nverts, tri, v.ntris, &s));
    strata_mesh_view w;
    strata_mesh_get_view(s, &w);
    require_eq(w.nedges, v.nedges);
    uint32_t border, over;
    check_edge_table(s, &border, &over);
    require_eq(border, 2 * (7 + 5));
    require_eq(over, 0);
    /* Sorted numbering is by (min, max) vertex pair. */
    for (uint32_t e = 1; e < w.nedges; e++)
        require(((uint64_t)w.ev0[e - 1] << 32 | w.ev1[e - 1]) <
                  ((uint64_t)w.ev0[e] << 32 | w.ev1[e]), "edges not in sorted order");
    /* Both tables map each triangle side to the same vertex pair. */
    for (uint32_t t = 0; t < v.ntris; t++) {
        require_eq(v.ev0[v.e1[t]], w.ev0[w.e1[t]]);
        require_eq(v.ev1[v.e2[t]], w.ev1[w.e2[t]]);
    }
    ck_assert_mem_eq(w.h, w.y, sizeof(float) * w.nverts);
    free(xyz);
    free(tri);
    strata_mesh_destroy(g);
    strata_mesh_destroy(s);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_create_errors)
{
    strata_ctx *ctx = ctx_new(1);
    const float xyz[] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1};
    const uint32_t ok[] = {0, 2, 1, 1, 2, 3};
    const uint32_t out_of_range[] = {0, 2, 4};
    const uint32_t degenerate[] = {0, 2, 2};
    strata_mesh *m = (strata_mesh *)1;
    ck_assert_status(strata_mesh_create(ctx, xyz, 4, out_of_range, 1, &m), STRATA_ERR_BAD_MESH);
    ck_assert_ptr_null(m);
    ck_assert_status(strata_mesh_create(ctx, xyz, 4, degenerate, 1, &m), STRATA_ERR_BAD_MESH);
    ck_assert_status(strata_mesh_create(ctx, NULL, 4, ok, 2, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_mesh_create(NULL, xyz, 4, ok, 2, &m), STRATA_ERR_INVALID_ARG);
    float nan_xyz[12];
    memcpy(nan_xyz, xyz, sizeof nan_xyz);
    nan_xyz[7] = NAN;
    ck_assert_status(strata_mesh_create(ctx, nan_xyz, 4, ok, 2, &m), STRATA_ERR_NOT_FINITE);
    nan_xyz[7] = INFINITY;
    ck_assert_status(strata_mesh_create(ctx, nan_xyz, 4, ok, 2, &m), STRATA_ERR_NOT_FINITE);
    ck_assert_ok(strata_mesh_create(ctx, xyz, 4, ok, 2, &m));
    require_eq(strata_mesh_edge_count(m), 5);
    /* Geometry switching recomputes heights. */
    const float c[3] = {0, -1, 0};
    ck_assert_ok(strata_mesh_set_geometry(m, STRATA_RADIAL, c, 0.5f));
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    ck_assert_float_eq_tol(v.h[0], 0.5f, 1e-6f);
    ck_assert_float_eq_tol(v.h[3], sqrtf(3.0f) - 0.5f, 1e-6f);
    ck_assert_status(strata_mesh_set_geometry(m, STRATA_RADIAL, c, -1.0f), STRATA_ERR_INVALID_ARG);
    ck_assert_ok(strata_mesh_set_geometry(m, STRATA_FLAT, NULL, 0.0f));
    strata_mesh_get_view(m, &v);
    ck_assert_float_eq(v.h[3], 0.0f);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ shapes */

START_TEST(test_polygon)
{
    const int sides = _i; /* loop 3..64 */
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *m;
    ck_assert_ok(strata_shape_polygon(ctx, sides, 2.0f, &m));
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    uint32_t want_v = sides == 3 ? 3 : sides == 4 ? 4 : (uint32_t)sides + 1;
    uint32_t want_t = sides == 3 ? 1 : sides == 4 ? 2 : (uint32_t)sides;
    require_eq(v.nverts, want_v);
    require_eq(v.ntris, want_t);
    require_eq((int64_t)v.nverts - v.nedges + v.ntris, 1); /* a disc */
    uint32_t border, over;
    check_edge_table(m, &border, &over);
    require_eq(border, (uint32_t)sides);
    require_eq(over, 0);
    check_oriented(m);
    double area = 0;
    for (uint32_t t = 0; t < v.ntris; t++) {
        double n[3];
        tri_normal(&v, t, n);
        require_true(n[1] > 0); /* faces up */
        area += 0.5 * n[1];
    }
    double want_area = 0.5 * sides * 4.0 * sin(2 * M_PI / sides);
    ck_assert_double_eq_tol(area, want_area, 1e-5 * want_area);
    for (uint32_t i = (sides >= 5); i < v.nverts; i++)
        ck_assert_double_eq_tol(hypot(v.x[i], v.z[i]), 2.0, 1e-6);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_polygon_errors)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *m;
    ck_assert_status(strata_shape_polygon(ctx, 2, 1.0f, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_shape_polygon(ctx, 65, 1.0f, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_shape_polygon(ctx, 6, 0.0f, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_shape_polygon(ctx, 6, NAN, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_shape_polygon(ctx, 6, 1.0f, NULL), STRATA_ERR_INVALID_ARG);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_grid)
{
    static const uint32_t sizes[][2] = {{1, 1}, {1, 9}, {4, 3}, {16, 16}, {33, 7}};
    strata_ctx *ctx = ctx_new(1);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        uint32_t nx = sizes[k][0], nz = sizes[k][1];
        strata_mesh *m;
        ck_assert_ok(strata_shape_grid(ctx, nx, nz, 0.25f, &m));
        strata_mesh_view v;
        strata_mesh_get_view(m, &v);
        require_eq(v.nverts, (nx + 1) * (nz + 1));
        require_eq(v.ntris, 2 * nx * nz);
        require_eq(v.nedges, nx * (nz + 1) + (nx + 1) * nz + nx * nz);
        uint32_t border, over;
        check_edge_table(m, &border, &over);
        require_eq(border, 2 * (nx + nz));
        require_eq(over, 0);
        check_oriented(m);
        double area = 0;
        for (uint32_t t = 0; t < v.ntris; t++) {
            double n[3];
            tri_normal(&v, t, n);
            require_true(n[1] > 0);
            area += 0.5 * n[1];
        }
        ck_assert_double_eq_tol(area, nx * nz * 0.0625, 1e-9);
        /* Documented layout: vertex (i,j) = j*(nx+1)+i, centred. */
        ck_assert_float_eq(v.x[0], -0.125f * nx);
        ck_assert_float_eq(v.z[0], -0.125f * nz);
        ck_assert_float_eq(v.x[nx], 0.125f * nx);
        ck_assert_float_eq(v.z[(nx + 1) * nz], 0.125f * nz);
        strata_mesh_destroy(m);
    }
    strata_mesh *m = (strata_mesh *)1;
    ck_assert_status(strata_shape_grid(ctx, 0, 4, 1.0f, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_ptr_null(m);
    ck_assert_status(strata_shape_grid(ctx, 4, 4, -1.0f, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_shape_grid(ctx, 65536, 65536, 1.0f, &m), STRATA_ERR_OVERFLOW);
    ck_assert_status(strata_shape_grid(ctx, UINT32_MAX, 1, 1.0f, &m), STRATA_ERR_OVERFLOW);
    strata_ctx_destroy(ctx);
}
END_TEST

static void check_sphere(const strata_mesh *m, float r)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    require_eq(v.geometry, STRATA_RADIAL);
    ck_assert_float_eq(v.radius, r);
    require_eq((int64_t)v.nverts - v.nedges + v.ntris, 2); /* Euler */
    uint32_t border, over;
    check_edge_table(m, &border, &over);
    require_eq(border, 0); /* closed: every edge has two triangles */
    require_eq(over, 0);
    check_oriented(m);
    for (uint32_t i = 0; i < v.nverts; i++) {
        double d = sqrt((double)v.x[i] * v.x[i] + (double)v.y[i] * v.y[i] +
                        (double)v.z[i] * v.z[i]);
        ck_assert_double_eq_tol(d, r, 1e-6 * r);
        ck_assert_float_eq_tol(v.h[i], 0.0f, 1e-6f * r);
    }
    for (uint32_t t = 0; t < v.ntris; t++) {
        double n[3];
        tri_normal(&v, t, n);
        const uint32_t a = v.a[t];
        require_true(n[0] * v.x[a] + n[1] * v.y[a] + n[2] * v.z[a] > 0); /* outward */
    }
}

START_TEST(test_icosphere)
{
    const int level = _i; /* loop 0..6 */
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, level, 3.0f, &m));
    uint32_t p = 1u << (2 * level);
    require_eq(strata_mesh_vertex_count(m), 10 * p + 2);
    require_eq(strata_mesh_triangle_count(m), 20 * p);
    require_eq(strata_mesh_edge_count(m), 30 * p);
    check_sphere(m, 3.0f);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_icosphere_limits)
{
    test_alloc c;
    strata_ctx *ctx = ctx_new_counting(1, &c);
    c.limit = 64 << 20; /* fail any single allocation over 64 MiB */
    strata_mesh *m = (strata_mesh *)1;
    uint32_t v, t, e;
    ck_assert_ok(strata_subdivide_counts(12, 20, 30, 13, &v, &t, &e));
    require_eq(t, 20u << 26);
    ck_assert_status(strata_subdivide_counts(12, 20, 30, 14, &v, &t, &e), STRATA_ERR_OVERFLOW);
    long before = c.count;
    ck_assert_status(strata_shape_icosphere(ctx, 14, 1.0f, &m), STRATA_ERR_OVERFLOW);
    ck_assert_ptr_null(m);
    require_eq(c.count, before); /* refused before allocating */
    ck_assert_status(strata_shape_icosphere(ctx, 40, 1.0f, &m), STRATA_ERR_OVERFLOW);
    ck_assert_status(strata_shape_icosphere(ctx, -1, 1.0f, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_shape_icosphere(ctx, 2, 0.0f, &m), STRATA_ERR_INVALID_ARG);
    /* Too big for the allocator: a clean NOMEM, nothing leaked. */
    ck_assert_status(strata_shape_icosphere(ctx, 10, 1.0f, &m), STRATA_ERR_NOMEM);
    ck_assert_ptr_null(m);
    require_eq(c.live, 1); /* only the context */
    strata_ctx_destroy(ctx);
    require_eq(c.live, 0);
}
END_TEST

/* ------------------------------------------------------------ subdivision */

START_TEST(test_subdivide_grid)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *s;
    ck_assert_ok(strata_shape_grid(ctx, 3, 2, 1.0f, &g));
    /* Tilt the grid so midpoint heights can be checked: y = x + 2z. */
    strata_mesh_view gv;
    strata_mesh_get_view(g, &gv);
    float *xyz;
    uint32_t *tri;
    mesh_arrays(g, &xyz, &tri);
    for (uint32_t i = 0; i < gv.nverts; i++)
        xyz[3 * i + 1] = gv.x[i] + 2 * gv.z[i];
    strata_mesh *tilted;
    ck_assert_ok(strata_mesh_create(ctx, xyz, gv.nverts, tri, gv.ntris, &tilted));
    for (int depth = 0; depth <= 4; depth++) {
        ck_assert_ok(strata_mesh_subdivide(ctx, tilted, depth, 0, &s));
        uint32_t wv, wt, we;
        ck_assert_ok(strata_subdivide_counts(gv.nverts, gv.ntris, gv.nedges, depth, &wv, &wt, &we));
        strata_mesh_view v;
        strata_mesh_get_view(s, &v);
        require_eq(v.ntris, gv.ntris << (2 * depth));
        require_eq(v.nverts, wv);
        require_eq(v.nedges, we);
        /* A subdivided 3x2 grid is a (3*2^d)x(2*2^d) grid of the same size. */
        require_eq(v.nverts, (3u * (1u << depth) + 1) * (2u * (1u << depth) + 1));
        uint32_t border, over;
        check_edge_table(s, &border, &over);
        require_eq(border, 2 * 5 * (1u << depth));
        require_eq(over, 0);
        check_oriented(s);
        for (uint32_t i = 0; i < v.nverts; i++) {
            ck_assert_float_eq_tol(v.y[i], v.x[i] + 2 * v.z[i], 1e-5f);
            ck_assert_float_eq(v.h[i], v.y[i]);
        }
        strata_mesh_destroy(s);
    }
    ck_assert_status(strata_mesh_subdivide(ctx, tilted, 1, STRATA_SUBDIVIDE_PROJECT, &s),
                     STRATA_ERR_INVALID_ARG); /* projection needs a radial mesh */
    ck_assert_status(strata_mesh_subdivide(ctx, tilted, -1, 0, &s), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_mesh_subdivide(ctx, tilted, 1, 0x80, &s), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_mesh_subdivide(ctx, tilted, 16, 0, &s), STRATA_ERR_OVERFLOW);
    free(xyz);
    free(tri);
    strata_mesh_destroy(g);
    strata_mesh_destroy(tilted);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_subdivide_sphere_equals_icosphere)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *a, *b, *c;
    ck_assert_ok(strata_shape_icosphere(ctx, 2, 1.5f, &a));
    ck_assert_ok(strata_mesh_subdivide(ctx, a, 2, STRATA_SUBDIVIDE_PROJECT, &b));
    ck_assert_ok(strata_shape_icosphere(ctx, 4, 1.5f, &c));
    strata_mesh_view vb, vc;
    strata_mesh_get_view(b, &vb);
    strata_mesh_get_view(c, &vc);
    require_eq(vb.nverts, vc.nverts);
    ck_assert_mem_eq(vb.x, vc.x, sizeof(float) * vb.nverts);
    ck_assert_mem_eq(vb.a, vc.a, sizeof(uint32_t) * vb.ntris);
    ck_assert_mem_eq(vb.ev1, vc.ev1, sizeof(uint32_t) * vb.nedges);
    check_sphere(b, 1.5f);
    strata_mesh_destroy(a);
    strata_mesh_destroy(b);
    strata_mesh_destroy(c);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Same bytes for any thread count (OpenMP stays inside the test). */
START_TEST(test_threads_same_bytes)
{
    strata_mesh *m[3];
    strata_mesh *g[3];
    const int threads[3] = {1, 2, 5};
    for (int k = 0; k < 3; k++) {
        strata_ctx *ctx = ctx_new(threads[k]);
        ck_assert_ok(strata_shape_icosphere(ctx, 5, 2.0f, &m[k]));
        ck_assert_ok(strata_shape_grid(ctx, 40, 31, 0.1f, &g[k]));
        strata_ctx_destroy(ctx);
    }
    for (int k = 1; k < 3; k++) {
        strata_mesh_view a, b;
        strata_mesh_get_view(m[0], &a);
        strata_mesh_get_view(m[k], &b);
        ck_assert_mem_eq(a.x, b.x, sizeof(float) * a.nverts);
        ck_assert_mem_eq(a.y, b.y, sizeof(float) * a.nverts);
        ck_assert_mem_eq(a.z, b.z, sizeof(float) * a.nverts);
        ck_assert_mem_eq(a.h, b.h, sizeof(float) * a.nverts);
        ck_assert_mem_eq(a.c, b.c, sizeof(uint32_t) * a.ntris);
        ck_assert_mem_eq(a.e2, b.e2, sizeof(uint32_t) * a.ntris);
        ck_assert_mem_eq(a.ev0, b.ev0, sizeof(uint32_t) * a.nedges);
        strata_mesh_get_view(g[0], &a);
        strata_mesh_get_view(g[k], &b);
        ck_assert_mem_eq(a.x, b.x, sizeof(float) * a.nverts);
        ck_assert_mem_eq(a.ev1, b.ev1, sizeof(uint32_t) * a.nedges);
        ck_assert_mem_eq(a.e1, b.e1, sizeof(uint32_t) * a.ntris);
    }
    for (int k = 0; k < 3; k++) {
        strata_mesh_destroy(m[k]);
        strata_mesh_destroy(g[k]);
    }
}
END_TEST

static Suite *mesh_suite(void)
{
    Suite *s = suite_create("mesh");
    TCase *tc = tcase_create("Context");
    tcase_add_test(tc, test_version_status);
    tcase_add_test(tc, test_memory_estimate);
    tcase_add_test(tc, test_allocator_hook);
    tcase_add_test(tc, test_option_defaults);
    tcase_add_test(tc, test_threads);
    tcase_add_test(tc, test_cancel_progress);
    suite_add_tcase(s, tc);
    tc = tcase_create("Mesh");
    tcase_add_test(tc, test_create_edges_by_sorting);
    tcase_add_test(tc, test_create_errors);
    suite_add_tcase(s, tc);
    tc = tcase_create("Shapes");
    tcase_add_loop_test(tc, test_polygon, 3, 65);
    tcase_add_test(tc, test_polygon_errors);
    tcase_add_test(tc, test_grid);
    tcase_add_loop_test(tc, test_icosphere, 0, 7);
    suite_add_tcase(s, tc);
    tc = tcase_create("Subdivision");
    tcase_add_test(tc, test_subdivide_grid);
    tcase_add_test(tc, test_subdivide_sphere_equals_icosphere);
    tcase_add_test(tc, test_threads_same_bytes);
    suite_add_tcase(s, tc);
    tc = tcase_create("Limits");
    tcase_add_test(tc, test_icosphere_limits);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(mesh_suite()); }
