/* Suite "simplify": strata_result_simplify_roofs keeps the slicer's
 * guarantees, tested as tests/check_slice.c tests them: manifold by
 * vertex id (every directed edge once; a planet closed, Euler
 * characteristic 2; a terrain a disc with the same border), no roof
 * triangle of zero area or facing down (in), roofs exactly on their
 * planes (spheres: every vertex is one of the slice's, bit for bit),
 * coverage of the domain (the solid angle) within 1e-5, walls untouched,
 * the same bytes for any thread count, and fewer triangles. */
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static uint64_t rng_state;
static double rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static float h_waves(float x, float z)
{
    return sinf(1.7f * x) * cosf(1.3f * z) + 0.3f * sinf(4.1f * x + 2.3f * z);
}

/* A FLAT grid of nx x nz cells with heights h_waves (or whole numbers
 * from rnd() when integer). */
static strata_mesh *grid(strata_ctx *ctx, uint32_t nx, uint32_t nz, float cell, int integer)
{
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, nx, nz, cell, &g));
    strata_mesh_view v;
    strata_mesh_get_view(g, &v);
    float *xyz = malloc(sizeof(float) * 3 * v.nverts);
    uint32_t *tri = malloc(sizeof(uint32_t) * 3 * v.ntris);
    for (uint32_t i = 0; i < v.nverts; i++) {
        xyz[3 * i] = v.x[i];
        xyz[3 * i + 1] = integer ? (float)(int)(rnd() * 4) : h_waves(v.x[i], v.z[i]);
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
    strata_mesh_destroy(g);
    return m;
}

/* An icosphere of the given level displaced radially by 1 + 0.08 fBm-ish
 * waves, RADIAL about the origin with base radius 1. */
static strata_mesh *planet(strata_ctx *ctx, int level)
{
    strata_mesh *ico, *m;
    ck_assert_ok(strata_shape_icosphere(ctx, level, 1.0f, &ico));
    strata_mesh_view v;
    strata_mesh_get_view(ico, &v);
    float *xyz = malloc(sizeof(float) * 3 * v.nverts);
    uint32_t *tri = malloc(sizeof(uint32_t) * 3 * v.ntris);
    for (uint32_t i = 0; i < v.nverts; i++) {
        const float s = 1.0f + 0.08f * sinf(3.1f * v.x[i] + 1.3f) * cosf(2.7f * v.y[i]) +
                        0.03f * sinf(9.0f * v.z[i] + 4.0f * v.x[i]);
        xyz[3 * i] = v.x[i] * s;
        xyz[3 * i + 1] = v.y[i] * s;
        xyz[3 * i + 2] = v.z[i] * s;
    }
    for (uint32_t t = 0; t < v.ntris; t++) {
        tri[3 * t] = v.a[t];
        tri[3 * t + 1] = v.b[t];
        tri[3 * t + 2] = v.c[t];
    }
    ck_assert_ok(strata_mesh_create(ctx, xyz, v.nverts, tri, v.ntris, &m));
    ck_assert_ok(strata_mesh_set_geometry(m, STRATA_RADIAL, NULL, 1.0f));
    free(xyz);
    free(tri);
    strata_mesh_destroy(ico);
    return m;
}

static strata_result *slice(strata_ctx *ctx, const strata_mesh *m, uint32_t n, strata_walls w)
{
    float L[64];
    ck_assert_ok(strata_levels_uniform(m, n, NULL, L));
    strata_slice_options o;
    strata_slice_defaults(&o);
    o.levels = L;
    o.nlevels = n;
    o.walls = w;
    o.areas = 1;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &o, &r));
    return r;
}

typedef struct topo {
    uint64_t border; /* directed edges without their reverse */
    int64_t euler;
} topo;

/* Manifold by vertex id: every directed edge once. */
static topo manifold(const strata_result_view *r)
{
    uint64_t *d = malloc(sizeof *d * r->nindices);
    uint8_t *used = calloc(r->nverts, 1);
    for (uint64_t i = 0; i < r->nindices; i++) {
        const uint64_t j = i - i % 3 + (i % 3 + 1) % 3;
        require_lt(r->indices[i], r->nverts);
        used[r->indices[i]] = 1;
        d[i] = (uint64_t)r->indices[i] << 32 | r->indices[j];
    }
    qsort(d, r->nindices, sizeof *d, cmp_u64);
    topo t = {0, 0};
    uint64_t undirected2 = 0;
    for (uint64_t i = 0; i < r->nindices; i++) {
        require(i == 0 || d[i] != d[i - 1], "directed edge %u->%u used twice",
                (unsigned)(d[i] >> 32), (unsigned)d[i]);
        const uint64_t rev = d[i] << 32 | d[i] >> 32;
        const int has = bsearch(&rev, d, r->nindices, sizeof *d, cmp_u64) != NULL;
        t.border += !has;
        undirected2 += has ? 1 : 2;
    }
    uint64_t nused = 0;
    for (uint32_t i = 0; i < r->nverts; i++)
        nused += used[i];
    require_eq(nused, r->nverts); /* unused vertices are removed */
    t.euler = (int64_t)nused - (int64_t)(undirected2 / 2) + (int64_t)(r->nindices / 3);
    free(d);
    free(used);
    return t;
}

/* FLAT: roofs on their planes, facing up, projected roof area per terrace
 * (returned in area[k]); walls upright. */
static void flat_roofs(const strata_result_view *r, double *area)
{
    for (uint32_t k = 0; k < r->nterraces; k++) {
        const strata_terrace *t = &r->terraces[k];
        area[k] = 0;
        for (uint64_t i = t->roof_first; i < t->roof_first + t->roof_count; i += 3) {
            const uint32_t a = r->indices[i], b = r->indices[i + 1], c = r->indices[i + 2];
            require(r->y[a] == t->level && r->y[b] == t->level && r->y[c] == t->level,
                    "roof %u off its plane", k);
            const double n = ((double)r->z[b] - r->z[a]) * ((double)r->x[c] - r->x[a]) -
                             ((double)r->x[b] - r->x[a]) * ((double)r->z[c] - r->z[a]);
            require(n > 0, "roof triangle %llu of terrace %u: %.3g (zero or down)",
                    (unsigned long long)i / 3, k, n);
            area[k] += n / 2;
        }
    }
}

/* ------------------------------------------------------------ tests */

START_TEST(test_flat)
{
    static const uint32_t counts[] = {1, 4, 16};
    static const strata_walls walls[] = {STRATA_WALLS_UPPER, STRATA_WALLS_LOWER,
                                         STRATA_WALLS_SEPARATE};
    const uint32_t n = counts[_i % 3];
    strata_result *res[2];
    for (int run = 0; run < 2; run++) {
        strata_ctx *ctx = ctx_new(run ? 3 : 1);
        strata_mesh *m = grid(ctx, 90, 70, 0.1f, 0);
        res[run] = slice(ctx, m, n, walls[_i % 3]);
        strata_result_view before;
        strata_result_get_view(res[run], &before);
        const topo t0 = manifold(&before);
        double a0[16], a1[16];
        flat_roofs(&before, a0);
        uint64_t walls0[16];
        for (uint32_t k = 0; k < n; k++)
            walls0[k] = before.terraces[k].wall_count;
        const uint64_t tris0 = before.nindices / 3;
        strata_simplify_stats st;
        ck_assert_ok(strata_result_simplify_roofs(ctx, res[run], 1e-4, &st));
        strata_result_view r;
        strata_result_get_view(res[run], &r);
        const topo t1 = manifold(&r);
        require_eq(t1.euler, t0.euler);
        require_eq(t1.euler, 1); /* a disc */
        require_eq(t1.border, t0.border);
        flat_roofs(&r, a1);
        double sum = 0;
        for (uint32_t k = 0; k < n; k++) {
            require(fabs(a1[k] - a0[k]) <= 1e-9 * (a0[k] + 1e-12),
                    "terrace %u: area %.12g, was %.12g", k, a1[k], a0[k]);
            require_eq(r.terraces[k].wall_count, walls0[k]);
            ck_assert_double_eq_tol(r.terraces[k].roof_area, before.terraces[k].roof_area, 1e-12);
            sum += a1[k];
        }
        const double domain = 90 * 0.1 * 70 * 0.1;
        require(fabs(sum - domain) <= 1e-5 * domain, "coverage %.9g of %.9g", sum, domain);
        require_eq(st.roof_triangles_after * 3 + (r.nindices - 3 * st.roof_triangles_after),
                   r.nindices);
        require_lt(r.nindices / 3, tris0);
        require_lt(st.roof_triangles_after, st.roof_triangles_before);
        if (n == 1) /* one roof: only the domain border's points stay */
            require_lt(st.roof_triangles_after * 10, st.roof_triangles_before);
        require_eq(st.roofs_kept, 0u);
        strata_mesh_destroy(m);
        strata_ctx_destroy(ctx);
    }
    same_result(res[0], res[1], "simplified");
    strata_result_destroy(res[0]);
    strata_result_destroy(res[1]);
}
END_TEST

/* Heights on the planes: wedges, fins and walls back to back; roofs still
 * simplified within their borders, then still closable into a solid. */
START_TEST(test_heights_on_planes)
{
    for (int seed = 0; seed < 10; seed++) {
        rng_state = 7 + (uint64_t)seed;
        strata_ctx *ctx = ctx_new(1);
        strata_mesh *m = grid(ctx, 20, 17, 1.0f, 1);
        strata_result *r = slice(ctx, m, 4, STRATA_WALLS_UPPER);
        strata_result_view v;
        strata_result_get_view(r, &v);
        const topo t0 = manifold(&v);
        double a0[4], a1[4];
        flat_roofs(&v, a0);
        ck_assert_ok(strata_result_simplify_roofs(ctx, r, 1e-4, NULL));
        strata_result_get_view(r, &v);
        const topo t1 = manifold(&v);
        require_eq(t1.border, t0.border);
        require_eq(t1.euler, t0.euler);
        flat_roofs(&v, a1);
        for (int k = 0; k < 4; k++)
            require(fabs(a1[k] - a0[k]) <= 1e-9 * (a0[k] + 1e-12), "terrace %d area", k);
        ck_assert_ok(strata_result_solidify(ctx, r, 1.0f, NULL));
        strata_result_get_view(r, &v);
        const topo t2 = manifold(&v);
        require_eq(t2.border, 0);
        require_eq(t2.euler, 2);
        strata_result_destroy(r);
        strata_mesh_destroy(m);
        strata_ctx_destroy(ctx);
    }
}
END_TEST

typedef struct pos3 {
    float p[3];
} pos3;

static int cmp_pos3(const void *a, const void *b) { return memcmp(a, b, sizeof(pos3)); }

START_TEST(test_planet)
{
    const double err = _i == 0 ? 1e-3 : 1e-4;
    strata_result *res[2];
    for (int run = 0; run < 2; run++) {
        strata_ctx *ctx = ctx_new(run ? 2 : 1);
        strata_mesh *m = planet(ctx, 6);
        res[run] = slice(ctx, m, 12, STRATA_WALLS_UPPER);
        strata_result_view before;
        strata_result_get_view(res[run], &before);
        pos3 *orig = malloc(sizeof *orig * before.nverts);
        for (uint32_t i = 0; i < before.nverts; i++)
            orig[i] = (pos3){{before.x[i], before.y[i], before.z[i]}};
        qsort(orig, before.nverts, sizeof *orig, cmp_pos3);
        const uint64_t tris0 = before.nindices / 3;
        strata_simplify_stats st;
        ck_assert_ok(strata_result_simplify_roofs(ctx, res[run], err, &st));
        strata_result_view r;
        strata_result_get_view(res[run], &r);
        const topo t = manifold(&r);
        require_eq(t.border, 0); /* closed */
        require_eq(t.euler, 2);
        for (uint32_t i = 0; i < r.nverts; i++) { /* nothing moved or added */
            const pos3 p = {{r.x[i], r.y[i], r.z[i]}};
            require(bsearch(&p, orig, before.nverts, sizeof *orig, cmp_pos3) != NULL,
                    "vertex %u is new", i);
        }
        double omega = 0, worst = 0;
        for (uint32_t k = 0; k < r.nterraces; k++) {
            const strata_terrace *tr = &r.terraces[k];
            for (uint64_t i = tr->roof_first; i < tr->roof_first + tr->roof_count; i += 3) {
                double p[3][3];
                for (int c = 0; c < 3; c++) {
                    const uint32_t v = r.indices[i + (uint64_t)c];
                    p[c][0] = r.x[v];
                    p[c][1] = r.y[v];
                    p[c][2] = r.z[v];
                    const double rad =
                        sqrt(p[c][0] * p[c][0] + p[c][1] * p[c][1] + p[c][2] * p[c][2]);
                    require(fabs(rad - (1.0 + tr->level)) <= 1e-6, "roof vertex off its sphere");
                }
                const double w = solid_angle(p[0], p[1], p[2]);
                require(w > 0, "roof triangle faces in or has no area");
                omega += w;
                /* the centroid's dip below the sphere */
                const double cx = (p[0][0] + p[1][0] + p[2][0]) / 3,
                             cy = (p[0][1] + p[1][1] + p[2][1]) / 3,
                             cz = (p[0][2] + p[1][2] + p[2][2]) / 3;
                worst = fmax(worst, 1.0 + tr->level - sqrt(cx * cx + cy * cy + cz * cz));
            }
        }
        require(fabs(omega - 4 * M_PI) <= 1e-5 * 4 * M_PI, "solid angle %.9g", omega);
        require(worst <= err * 1.0 + 1e-6, "a roof dips %.3g below its sphere (err %.3g)", worst,
                err);
        require(st.max_error <= err, "max_error %.3g", st.max_error);
        require_lt(r.nindices / 3, tris0);
        require_lt(st.roof_triangles_after, st.roof_triangles_before);
        free(orig);
        strata_mesh_destroy(m);
        strata_ctx_destroy(ctx);
    }
    same_result(res[0], res[1], "simplified");
    strata_result_destroy(res[0]);
    strata_result_destroy(res[1]);
}
END_TEST

/* Worlds: chunks simplified one by one still meet without a crack.  The
 * union of all chunks, vertices welded by exact position, is a closed
 * surface with every edge used once each way: a border vertex moved or
 * dropped in one chunk and not in its neighbour would leave edges
 * without their reverse. */
typedef struct wtri {
    float p[3][3];
} wtri;

static int cmp_f3(const void *a, const void *b) { return memcmp(a, b, 3 * sizeof(float)); }

START_TEST(test_world_chunks)
{
    strata_ctx *ctx = ctx_new(1);
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 1.5f;
    f.amplitude = 0.1f;
    f.seed = 7;
    strata_world_options o;
    strata_world_defaults(&o);
    o.level = 6;
    o.chunk_level = 1;
    o.noise = &f;
    o.terraces = 10;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    const uint64_t nc = strata_world_chunk_count(w);
    strata_result *r;
    ck_assert_ok(strata_result_create(ctx, &r));
    wtri *all = NULL;
    uint64_t n = 0, cap = 0, before = 0, after = 0;
    for (uint64_t id = 0; id < nc; id++) {
        ck_assert_ok(strata_world_make_chunk(ctx, w, id, r));
        strata_result_view v;
        strata_result_get_view(r, &v);
        before += v.nindices / 3;
        ck_assert_ok(strata_result_simplify_roofs(ctx, r, 1e-3, NULL));
        strata_result_get_view(r, &v);
        after += v.nindices / 3;
        if (n + v.nindices / 3 > cap) {
            cap = 2 * (n + v.nindices / 3);
            all = realloc(all, cap * sizeof *all);
        }
        for (uint64_t i = 0; i < v.nindices; i += 3, n++)
            for (int k = 0; k < 3; k++) {
                const uint32_t q = v.indices[i + (uint64_t)k];
                all[n].p[k][0] = v.x[q];
                all[n].p[k][1] = v.y[q];
                all[n].p[k][2] = v.z[q];
            }
    }
    require_lt(after, before);
    /* weld: positions sorted, ids by rank */
    float(*pos)[3] = malloc(3 * n * sizeof *pos);
    for (uint64_t t = 0; t < n; t++)
        memcpy(pos + 3 * t, all[t].p, sizeof all[t].p);
    qsort(pos, 3 * n, sizeof *pos, cmp_f3);
    uint64_t np = 0;
    for (uint64_t i = 0; i < 3 * n; i++)
        if (i == 0 || cmp_f3(pos[i], pos[np - 1]))
            memcpy(pos[np++], pos[i], sizeof pos[i]);
    uint64_t *d = malloc(3 * n * sizeof *d);
    for (uint64_t t = 0; t < n; t++) {
        uint64_t id[3];
        for (int k = 0; k < 3; k++) {
            const float(*hit)[3] = bsearch(all[t].p[k], pos, np, sizeof *pos, cmp_f3);
            id[k] = (uint64_t)(hit - pos);
        }
        for (int k = 0; k < 3; k++)
            d[3 * t + (uint64_t)k] = id[k] << 32 | id[(k + 1) % 3];
    }
    qsort(d, 3 * n, sizeof *d, cmp_u64);
    for (uint64_t i = 0; i < 3 * n; i++) {
        require(i == 0 || d[i] != d[i - 1], "an edge used twice one way across chunks");
        const uint64_t rev = d[i] << 32 | d[i] >> 32;
        require(bsearch(&rev, d, 3 * n, sizeof *d, cmp_u64) != NULL,
                "an edge without its reverse: chunks do not meet");
    }
    require_eq((int64_t)np - (int64_t)(3 * n / 2) + (int64_t)n, 2);
    free(d);
    free(pos);
    free(all);
    strata_result_destroy(r);
    strata_world_destroy(w);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_errors)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *m = grid(ctx, 10, 10, 1.0f, 0);
    strata_result *r = slice(ctx, m, 4, STRATA_WALLS_UPPER);
    strata_result_view v;
    strata_result_get_view(r, &v);
    const uint64_t n0 = v.nindices;
    ck_assert_status(strata_result_simplify_roofs(ctx, r, 0.0, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_simplify_roofs(ctx, r, -1.0, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_simplify_roofs(ctx, r, NAN, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_simplify_roofs(ctx, r, INFINITY, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_simplify_roofs(NULL, r, 1e-4, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_simplify_roofs(ctx, NULL, 1e-4, NULL), STRATA_ERR_INVALID_ARG);
    strata_result_get_view(r, &v);
    require_eq(v.nindices, n0);
    /* cancelled: nothing changes */
    strata_ctx_cancel(ctx);
    ck_assert_status(strata_result_simplify_roofs(ctx, r, 1e-4, NULL), STRATA_ERR_CANCELLED);
    strata_result_get_view(r, &v);
    require_eq(v.nindices, n0);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_allocation_failing)
{
    for (int fail = 0;; fail++) {
        test_alloc ta;
        strata_ctx *ctx = ctx_new_counting(1, &ta);
        strata_mesh *m = grid(ctx, 12, 12, 1.0f, 0);
        strata_result *r = slice(ctx, m, 5, STRATA_WALLS_UPPER);
        strata_result_view v;
        strata_result_get_view(r, &v);
        const uint64_t n0 = v.nindices;
        ta.fail_at = atomic_load(&ta.count) + fail;
        const strata_status st = strata_result_simplify_roofs(ctx, r, 1e-4, NULL);
        ta.fail_at = -1;
        strata_result_get_view(r, &v);
        const int done = st == STRATA_OK;
        if (!done) {
            require_eq(st, STRATA_ERR_NOMEM);
            require_eq(v.nindices, n0);
        }
        strata_result_destroy(r);
        strata_mesh_destroy(m);
        strata_ctx_destroy(ctx);
        require_eq(atomic_load(&ta.live), 0);
        if (done)
            break;
    }
}
END_TEST

static Suite *simplify_suite(void)
{
    Suite *s = suite_create("simplify");
    TCase *tc = tcase_create("Core");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_flat, 0, 3);
    tcase_add_test(tc, test_heights_on_planes);
    tcase_add_loop_test(tc, test_planet, 0, 2);
    tcase_add_test(tc, test_world_chunks);
    suite_add_tcase(s, tc);
    tc = tcase_create("Limits");
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_allocation_failing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(simplify_suite()); }
