/* Suite "optimize": strata_result_optimize keeps every range's triangles
 * (as rotations, same winding), never worsens the cache miss ratio,
 * improves it on a big grid, and gives the same bytes for 1 and 2
 * threads.  Built without meshoptimizer, it checks STRATA_ERR_UNSUPPORTED
 * and skips the rest. */
#include "testutil.h"

#include <stdint.h>
#include <string.h>

/* A noise grid of n x n cells or a noise planet of the given level,
 * sliced into `terraces` terraces. */
static strata_result *sliced(strata_ctx *ctx, int planet, uint32_t n, uint32_t terraces,
                             strata_walls walls, int normals)
{
    strata_mesh *m;
    strata_fbm f;
    strata_fbm_defaults(&f);
    if (planet) {
        ck_assert_ok(strata_shape_icosphere(ctx, (int)n, 1.0f, &m));
        f.frequency = 2.0f;
        f.amplitude = 0.1f;
        ck_assert_ok(strata_displace_radial(ctx, m, &f, NULL));
    } else {
        ck_assert_ok(strata_shape_grid(ctx, n, n, 10.0f / (float)n, &m));
        f.frequency = 0.3f;
        f.amplitude = 2.0f;
        ck_assert_ok(strata_displace_flat(ctx, m, &f, NULL));
    }
    float levels[64];
    ck_assert_uint_le(terraces, 64);
    ck_assert_ok(strata_levels_uniform(m, terraces, NULL, levels));
    strata_slice_options so = slice_options(levels, terraces, walls, normals, 0);
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    strata_mesh_destroy(m);
    return r;
}

/* True (and the test goes on) when the build has meshoptimizer; else
 * checks the UNSUPPORTED path. */
static int supported(void)
{
    if (strata_optimize_supported())
        return 1;
    strata_ctx *ctx = ctx_new(1);
    strata_result *r = sliced(ctx, 0, 4, 2, STRATA_WALLS_UPPER, 0);
    strata_result_view v;
    strata_result_get_view(r, &v);
    uint32_t first = v.indices[0];
    strata_optimize_stats s;
    ck_assert_status(strata_result_optimize(ctx, r, &s), STRATA_ERR_UNSUPPORTED);
    ck_assert_status(strata_result_optimize(NULL, NULL, NULL), STRATA_ERR_UNSUPPORTED);
    ck_assert_uint_eq(v.indices[0], first);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
    return 0;
}

typedef struct tri {
    uint32_t v[3];
} tri;

static int tri_cmp(const void *pa, const void *pb)
{
    const tri *a = pa, *b = pb;
    for (int i = 0; i < 3; i++)
        if (a->v[i] != b->v[i])
            return a->v[i] < b->v[i] ? -1 : 1;
    return 0;
}

/* The range's triangles, each rotated to start at its smallest corner
 * (rotation keeps the winding), sorted. */
static tri *canonical(const uint32_t *idx, uint64_t count)
{
    const size_t nt = (size_t)(count / 3);
    tri *t = malloc((nt ? nt : 1) * sizeof *t);
    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < nt; i++) {
        const uint32_t *p = idx + 3 * i;
        int s = p[0] <= p[1] && p[0] <= p[2] ? 0 : p[1] <= p[2] ? 1 : 2;
        for (int j = 0; j < 3; j++)
            t[i].v[j] = p[(s + j) % 3];
    }
    qsort(t, nt, sizeof *t, tri_cmp);
    return t;
}

/* Optimise r and check everything the header promises; returns the
 * stats. */
static strata_optimize_stats optimize_checked(strata_ctx *ctx, strata_result *r)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    const size_t nb = (size_t)v.nindices * sizeof(uint32_t);
    uint32_t *old = malloc(nb ? nb : 1);
    strata_terrace *oldt = malloc(v.nterraces * sizeof *oldt);
    ck_assert(old && oldt);
    memcpy(old, v.indices, nb);
    memcpy(oldt, v.terraces, v.nterraces * sizeof *oldt);
    const float *x = v.x, *nx = v.nx;
    const uint32_t nverts = v.nverts;

    strata_optimize_stats s;
    ck_assert_ok(strata_result_optimize(ctx, r, &s));
    strata_result_get_view(r, &v);
    ck_assert_uint_eq(v.nverts, nverts);
    ck_assert_ptr_eq(v.x, x);
    ck_assert_ptr_eq(v.nx, nx);
    ck_assert_int_eq(memcmp(oldt, v.terraces, v.nterraces * sizeof *oldt), 0);

    uint64_t tris = 0;
    for (uint32_t k = 0; k < 2 * v.nterraces; k++) {
        const strata_terrace *t = &v.terraces[k / 2];
        const uint64_t first = k % 2 ? t->wall_first : t->roof_first;
        const uint64_t count = k % 2 ? t->wall_count : t->roof_count;
        tri *a = canonical(old + first, count), *b = canonical(v.indices + first, count);
        for (uint64_t i = 0; i < count / 3; i++)
            require(!tri_cmp(&a[i], &b[i]), "range %u: triangle sets differ at %llu", k,
                    (unsigned long long)i);
        free(a);
        free(b);
        tris += count / 3;
    }
    ck_assert_uint_eq(s.triangles, tris);
    ck_assert_uint_le(s.transformed_after, s.transformed_before);
    ck_assert(s.acmr_after <= s.acmr_before);
    if (tris) {
        ck_assert(s.acmr_after > 0.0 && s.acmr_before <= 3.0);
        ck_assert_double_eq_tol(s.acmr_before, (double)s.transformed_before / (double)tris,
                                1e-12);
    }
    free(old);
    free(oldt);
    return s;
}

START_TEST(test_grid_walls)
{
    if (!supported())
        return;
    static const strata_walls modes[] = {STRATA_WALLS_UPPER, STRATA_WALLS_LOWER,
                                         STRATA_WALLS_SEPARATE};
    strata_ctx *ctx = ctx_new(2);
    for (int w = 0; w < 3; w++)
        for (int normals = 0; normals < 2; normals++) {
            strata_result *r = sliced(ctx, 0, 48, 7, modes[w], normals);
            optimize_checked(ctx, r);
            /* optimising again keeps the sets too, and stats may be NULL */
            ck_assert_ok(strata_result_optimize(ctx, r, NULL));
            strata_result_destroy(r);
        }
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_planet)
{
    if (!supported())
        return;
    strata_ctx *ctx = ctx_new(2);
    strata_result *r = sliced(ctx, 1, 5, 12, STRATA_WALLS_UPPER, 1);
    strata_optimize_stats s = optimize_checked(ctx, r);
    ck_assert(s.acmr_after < s.acmr_before);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A big grid: a clear improvement, not just "no worse". */
START_TEST(test_big_grid_improves)
{
    if (!supported())
        return;
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = sliced(ctx, 0, 256, 8, STRATA_WALLS_UPPER, 0);
    strata_optimize_stats s = optimize_checked(ctx, r);
    ck_assert_msg(s.acmr_after < 0.9 * s.acmr_before, "acmr %g -> %g", s.acmr_before,
                  s.acmr_after);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The unsliced mesh as a one-terrace result. */
START_TEST(test_from_mesh)
{
    if (!supported())
        return;
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, 4, 1.0f, &m));
    strata_result *r;
    ck_assert_ok(strata_result_from_mesh(ctx, m, 0, &r));
    strata_optimize_stats s = optimize_checked(ctx, r);
    ck_assert(s.acmr_after < s.acmr_before);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Same bytes twice and for 1 and 2 threads. */
START_TEST(test_deterministic)
{
    if (!supported())
        return;
    for (int planet = 0; planet < 2; planet++) {
        uint32_t *first = NULL;
        size_t nb = 0;
        const int threads[] = {1, 2, 2, 1};
        for (int i = 0; i < 4; i++) {
            strata_ctx *ctx = ctx_new(threads[i]);
            strata_result *r = sliced(ctx, planet, planet ? 5 : 64, 9, STRATA_WALLS_SEPARATE, 0);
            ck_assert_ok(strata_result_optimize(ctx, r, NULL));
            strata_result_view v;
            strata_result_get_view(r, &v);
            if (!first) {
                nb = (size_t)v.nindices * sizeof(uint32_t);
                first = malloc(nb);
                ck_assert_ptr_nonnull(first);
                memcpy(first, v.indices, nb);
            } else {
                ck_assert_uint_eq((size_t)v.nindices * sizeof(uint32_t), nb);
                ck_assert_msg(!memcmp(first, v.indices, nb), "planet %d run %d differs",
                              planet, i);
            }
            strata_result_destroy(r);
            strata_ctx_destroy(ctx);
        }
        free(first);
    }
}
END_TEST

START_TEST(test_invalid)
{
    if (!supported())
        return;
    strata_ctx *ctx = ctx_new(1);
    strata_result *r = sliced(ctx, 0, 4, 2, STRATA_WALLS_UPPER, 0);
    ck_assert_status(strata_result_optimize(NULL, r, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_optimize(ctx, NULL, NULL), STRATA_ERR_INVALID_ARG);
    strata_ctx_cancel(ctx);
    ck_assert_status(strata_result_optimize(ctx, r, NULL), STRATA_ERR_CANCELLED);
    strata_ctx_reset_cancel(ctx);
    ck_assert_ok(strata_result_optimize(ctx, r, NULL));
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("optimize");
    TCase *tc = tcase_create("Core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_grid_walls);
    tcase_add_test(tc, test_planet);
    tcase_add_test(tc, test_from_mesh);
    tcase_add_test(tc, test_deterministic);
    tcase_add_test(tc, test_invalid);
    suite_add_tcase(s, tc);
    TCase *big = tcase_create("Limits");
    tcase_set_timeout(big, 600);
    tcase_add_test(big, test_big_grid_improves);
    suite_add_tcase(s, big);
    return run_suite(s);
}
