/* Suite "slice": the slicer's guarantees, numbered as in DESIGN.md ("What
 * the slicer guarantees"), on grids, polygons, icospheres, shuffled random
 * meshes and heights exactly on planes, with 1, 2, 16 and 1000 terraces.
 * Comments and failure messages name them "property N":
 *   1 terrace ranges partition the output   classify, test_wall_modes_and_normals
 *   2 watertight by vertex id               check_manifold, check_border_on_rect
 *   3 roofs on their plane, walls upright   check_flat_geometry, test_planet
 *   4 winding kept                          check_flat_geometry, test_planet, ramp
 *   5 one roof above every point            check_random_points, roof areas
 *   6 no degenerate triangles               check_flat_geometry, test_planet
 *   7 deterministic bytes                   test_same_bytes (tests/modes.sh: ISAs)
 *   8 options add, never change             test_wall_modes_and_normals, areas
 *   9 a failed slice leaves nothing behind  test_levels_and_errors, test_arenas */
#include "testutil.h"
#include "poscheck.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------ inputs */

static uint64_t rng_state;
static double rnd(void) /* uniform in [0, 1) */
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

typedef float (*height_fn)(float x, float z, int i);

/* Rebuild mesh m (FLAT) with y from fn (NULL: kept), optionally shuffling vertex ids and
 * triangle order (so the edge table comes from sorting). */
static strata_mesh *with_heights(strata_ctx *ctx, const strata_mesh *m, height_fn fn, int shuffle)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    uint32_t *perm = malloc(sizeof *perm * v.nverts), *tperm = malloc(sizeof *tperm * v.ntris);
    for (uint32_t i = 0; i < v.nverts; i++)
        perm[i] = i;
    for (uint32_t t = 0; t < v.ntris; t++)
        tperm[t] = t;
    if (shuffle) {
        for (uint32_t i = v.nverts - 1; i > 0; i--) {
            uint32_t j = (uint32_t)(rnd() * (i + 1)), tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
        }
        for (uint32_t i = v.ntris - 1; i > 0; i--) {
            uint32_t j = (uint32_t)(rnd() * (i + 1)), tmp = tperm[i];
            tperm[i] = tperm[j];
            tperm[j] = tmp;
        }
    }
    float *xyz = malloc(sizeof(float) * 3 * v.nverts);
    uint32_t *tri = malloc(sizeof(uint32_t) * 3 * v.ntris);
    for (uint32_t i = 0; i < v.nverts; i++) {
        const uint32_t o = perm[i];
        xyz[3 * o] = v.x[i];
        xyz[3 * o + 1] = fn ? fn(v.x[i], v.z[i], (int)i) : v.y[i];
        xyz[3 * o + 2] = v.z[i];
    }
    for (uint32_t t = 0; t < v.ntris; t++) {
        const uint32_t o = tperm[t];
        tri[3 * o] = perm[v.a[t]];
        tri[3 * o + 1] = perm[v.b[t]];
        tri[3 * o + 2] = perm[v.c[t]];
    }
    strata_mesh *out;
    ck_assert_ok(strata_mesh_create(ctx, xyz, v.nverts, tri, v.ntris, &out));
    free(xyz);
    free(tri);
    free(perm);
    free(tperm);
    return out;
}

static float h_waves(float x, float z, int i)
{
    (void)i;
    return sinf(1.7f * x) * cosf(1.3f * z) + 0.3f * sinf(4.1f * x + 2.3f * z);
}
static float h_random(float x, float z, int i)
{
    (void)x; (void)z; (void)i;
    return (float)(rnd() * 4.0 - 2.0);
}
static float h_integer(float x, float z, int i) /* heights on integer planes */
{
    (void)x; (void)z; (void)i;
    return (float)(int)(rnd() * 5.0);
}
static float h_ramp(float x, float z, int i)
{
    (void)z; (void)i;
    return x;
}

/* Planes for h_integer: every integer height but 0 lies on one. */
static const float half_planes[8] = {0, 0.5f, 1, 1.5f, 2, 2.5f, 3, 3.5f};

/* ------------------------------------------------------------ checking */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void cross(const strata_result_view *r, uint32_t a, uint32_t b, uint32_t c, double n[3])
{
    double ux = (double)r->x[b] - r->x[a], uy = (double)r->y[b] - r->y[a], uz = (double)r->z[b] - r->z[a];
    double vx = (double)r->x[c] - r->x[a], vy = (double)r->y[c] - r->y[a], vz = (double)r->z[c] - r->z[a];
    n[0] = uy * vz - uz * vy;
    n[1] = uz * vx - ux * vz;
    n[2] = ux * vy - uy * vx;
}

/* Terrace of each triangle and whether it is a wall. */
static void classify(const strata_result_view *r, int32_t *terr, uint8_t *wall)
{
    uint64_t seen = 0;
    for (uint32_t k = 0; k < r->nterraces; k++) {
        const strata_terrace *t = &r->terraces[k];
        for (uint64_t i = t->roof_first; i < t->roof_first + t->roof_count; i += 3) {
            terr[i / 3] = (int32_t)k;
            wall[i / 3] = 0;
        }
        for (uint64_t i = t->wall_first; i < t->wall_first + t->wall_count; i += 3) {
            terr[i / 3] = (int32_t)k;
            wall[i / 3] = 1;
        }
        seen += t->roof_count + t->wall_count;
    }
    require_eq(seen, r->nindices);
}

static uint32_t band_of(const float *L, uint32_t n, float h)
{
    uint32_t k = 0;
    while (k + 1 < n && L[k + 1] <= h)
        k++;
    return k;
}

typedef struct {
    uint64_t border_edges;
    int64_t euler;
} topo;

/* Property 2, manifold by vertex id: every directed edge once; an
 * undirected edge used twice is used in both directions. */
static topo check_manifold(const strata_result_view *r)
{
    const uint64_t nt = r->nindices / 3;
    uint64_t *d = malloc(sizeof *d * (r->nindices ? r->nindices : 1));
    uint8_t *used = calloc(r->nverts ? r->nverts : 1, 1);
    for (uint64_t t = 0; t < nt; t++) {
        const uint32_t *ix = r->indices + 3 * t;
        for (int s = 0; s < 3; s++) {
            require_lt(ix[s], r->nverts);
            used[ix[s]] = 1;
            d[3 * t + s] = (uint64_t)ix[s] << 32 | ix[(s + 1) % 3];
        }
    }
    qsort(d, r->nindices, sizeof *d, cmp_u64);
    topo tp = {0, 0};
    uint64_t undirected = 0;
    for (uint64_t i = 0; i < r->nindices; i++) {
        require(i == 0 || d[i] != d[i - 1], "property 2: directed edge %u->%u used twice",
                      (unsigned)(d[i] >> 32), (unsigned)d[i]);
        const uint64_t rev = d[i] << 32 | d[i] >> 32;
        const int has_rev = bsearch(&rev, d, r->nindices, sizeof *d, cmp_u64) != NULL;
        if (!has_rev)
            tp.border_edges++;
        undirected += has_rev ? 1 : 2; /* each shared edge is seen twice */
    }
    undirected /= 2;
    uint64_t nused = 0;
    for (uint32_t i = 0; i < r->nverts; i++)
        nused += used[i];
    tp.euler = (int64_t)nused - (int64_t)undirected + (int64_t)nt;
    free(d);
    free(used);
    return tp;
}

/* Properties 3, 4 and 6 for a FLAT result; returns the projected roof
 * area.  fold_ulps: a roof facing down passes when it is narrower than
 * that many ulps of its corners' largest coordinate (a sliver whose side
 * its corners' rounding decides, see test_heights_near_planes); 0:
 * none does. */
static double check_flat_geometry(const strata_result_view *r, const float *L, int fold_ulps)
{
    const uint64_t nt = r->nindices / 3;
    int32_t *terr = malloc(sizeof *terr * (nt ? nt : 1));
    uint8_t *wall = malloc(nt ? nt : 1);
    classify(r, terr, wall);
    double roof_area = 0.0;
    for (uint64_t t = 0; t < nt; t++) {
        const uint32_t *ix = r->indices + 3 * t;
        require_true(ix[0] != ix[1] && ix[1] != ix[2] && ix[0] != ix[2]);
        double n[3];
        cross(r, ix[0], ix[1], ix[2], n);
        const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        require(len > 0.0, "property 6: zero-area triangle %llu", (unsigned long long)t);
        if (!wall[t]) {
            double side = 0.0; /* longest side */
            float big = 0.0f;  /* largest coordinate */
            for (int e = 0; e < 3; e++) {
                const double dx = (double)r->x[ix[(e + 1) % 3]] - r->x[ix[e]],
                             dz = (double)r->z[ix[(e + 1) % 3]] - r->z[ix[e]];
                side = fmax(side, sqrt(dx * dx + dz * dz));
                big = fmaxf(big, fmaxf(fabsf(r->x[ix[e]]), fabsf(r->z[ix[e]])));
            }
            const double ulp = (double)nextafterf(big, INFINITY) - big;
            require(n[1] > 0.0 || -n[1] < fold_ulps * ulp * side,
                    "property 4: roof triangle facing down (width %g, ulp %g)", -n[1] / side, ulp);
            for (int s = 0; s < 3; s++) /* exactly on its plane */
                require(memcmp(&r->y[ix[s]], &L[terr[t]], sizeof(float)) == 0,
                        "property 3: roof vertex y=%.9g, terrace %d plane %.9g", r->y[ix[s]],
                        terr[t], L[terr[t]]);
            roof_area += 0.5 * n[1];
        } else {
            require(fabs(n[1]) <= 1e-9 * len, "property 3: wall not vertical");
        }
    }
    free(terr);
    free(wall);
    return roof_area;
}

/* Property 2: every border edge lies on the rectangle's border. */
static void check_border_on_rect(const strata_result_view *r, float x0, float x1, float z0, float z1)
{
    const uint64_t nt = r->nindices / 3;
    uint64_t *d = malloc(sizeof *d * r->nindices);
    for (uint64_t t = 0; t < nt; t++)
        for (int s = 0; s < 3; s++)
            d[3 * t + s] = (uint64_t)r->indices[3 * t + s] << 32 | r->indices[3 * t + (s + 1) % 3];
    qsort(d, r->nindices, sizeof *d, cmp_u64);
    for (uint64_t i = 0; i < r->nindices; i++) {
        const uint64_t rev = d[i] << 32 | d[i] >> 32;
        if (bsearch(&rev, d, r->nindices, sizeof *d, cmp_u64))
            continue;
        const uint32_t p = (uint32_t)(d[i] >> 32), q = (uint32_t)d[i];
        const int on_x0 = r->x[p] == x0 && r->x[q] == x0, on_x1 = r->x[p] == x1 && r->x[q] == x1;
        const int on_z0 = r->z[p] == z0 && r->z[q] == z0, on_z1 = r->z[p] == z1 && r->z[q] == z1;
        require(on_x0 || on_x1 || on_z0 || on_z1, "property 2: border edge inside the domain");
    }
    free(d);
}

/* Property 5: at random points, exactly one roof lies above, and it is the
 * terrace of the band of the unsliced surface's height there. */
static void check_random_points(const strata_mesh *m, const strata_result_view *r, const float *L,
                                uint32_t n, float x0, float x1, float z0, float z1, int npoints)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    const uint64_t nt = r->nindices / 3;
    int32_t *terr = malloc(sizeof *terr * nt);
    uint8_t *wall = malloc(nt);
    classify(r, terr, wall);
    const double spacing = n > 1 ? (double)L[1] - L[0] : 1.0;
    int tested = 0;
    for (int it = 0; it < npoints; it++) {
        const double px = x0 + (x1 - x0) * rnd(), pz = z0 + (z1 - z0) * rnd();
        /* Unsliced height: the input triangle containing the point. */
        double h = NAN;
        for (uint32_t t = 0; t < v.ntris && isnan(h); t++) {
            const uint32_t a = v.a[t], b = v.b[t], c = v.c[t];
            const double det = ((double)v.x[b] - v.x[a]) * ((double)v.z[c] - v.z[a]) -
                               ((double)v.x[c] - v.x[a]) * ((double)v.z[b] - v.z[a]);
            const double l1 = ((px - v.x[a]) * ((double)v.z[c] - v.z[a]) -
                               ((double)v.x[c] - v.x[a]) * (pz - v.z[a])) / det;
            const double l2 = (((double)v.x[b] - v.x[a]) * (pz - v.z[a]) -
                               (px - v.x[a]) * ((double)v.z[b] - v.z[a])) / det;
            if (l1 >= 0 && l2 >= 0 && l1 + l2 <= 1)
                h = (1 - l1 - l2) * v.h[a] + l1 * v.h[b] + l2 * v.h[c];
        }
        require_true(!isnan(h));
        int near = 0;
        for (uint32_t k = 0; k < n; k++)
            near |= fabs(h - L[k]) < 1e-3 * spacing;
        if (near)
            continue;
        int hits = 0, ambiguous = 0;
        int32_t hit_terrace = -1;
        for (uint64_t t = 0; t < nt; t++) {
            if (wall[t])
                continue;
            const uint32_t *ix = r->indices + 3 * t;
            double s[3];
            for (int e = 0; e < 3; e++) {
                const uint32_t p = ix[e], q = ix[(e + 1) % 3];
                s[e] = ((double)r->x[q] - r->x[p]) * (pz - r->z[p]) -
                       ((double)r->z[q] - r->z[p]) * (px - r->x[p]);
            }
            /* Roofs wind counter-clockwise seen from +y: inside when all
             * three are <= 0 in this (x, z) orientation. */
            if (s[0] <= 0 && s[1] <= 0 && s[2] <= 0) {
                if (s[0] > -1e-9 || s[1] > -1e-9 || s[2] > -1e-9)
                    ambiguous = 1;
                hits++;
                hit_terrace = terr[t];
            }
        }
        if (ambiguous)
            continue;
        require(hits == 1, "property 5: point (%g, %g) under %d roofs", px, pz, hits);
        require_eq(hit_terrace, (int32_t)band_of(L, n, (float)h));
        tested++;
    }
    require_gt(tested, npoints / 3);
    free(terr);
    free(wall);
}

static void uniform_levels(const strata_mesh *m, uint32_t n, float *L)
{
    ck_assert_ok(strata_levels_uniform(m, n, NULL, L));
}

/* Slice a FLAT grid-like mesh over the rectangle and check everything. */
static void check_flat_case(strata_ctx *ctx, const strata_mesh *m, const float *L, uint32_t n,
                            float x0, float x1, float z0, float z1, strata_walls walls,
                            int fold_ulps)
{
    strata_slice_options o = slice_options(L, n, walls, 0, 1);
    strata_result *res;
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    strata_result_view r;
    strata_result_get_view(res, &r);
    require_eq(r.nterraces, n);
    topo tp = check_manifold(&r);
    require_eq(tp.euler, 1); /* a disc */
    check_border_on_rect(&r, x0, x1, z0, z1);
    const double area = check_flat_geometry(&r, L, fold_ulps);
    const double want = ((double)x1 - x0) * ((double)z1 - z0);
    require(fabs(area - want) <= 1e-5 * want, "property 5: roof area %.9g, domain %.9g", area, want);
    double stat_area = 0;
    for (uint32_t k = 0; k < n; k++)
        stat_area += r.terraces[k].roof_area;
    ck_assert_double_eq_tol(stat_area, want, 1e-5 * want); /* property 8: areas */
    check_random_points(m, &r, L, n, x0, x1, z0, z1, 150);
    strata_result_destroy(res);
}

static void grid_bounds(const strata_mesh *m, float *x0, float *x1, float *z0, float *z1)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    *x0 = *z0 = INFINITY;
    *x1 = *z1 = -INFINITY;
    for (uint32_t i = 0; i < v.nverts; i++) {
        *x0 = fminf(*x0, v.x[i]);
        *x1 = fmaxf(*x1, v.x[i]);
        *z0 = fminf(*z0, v.z[i]);
        *z1 = fmaxf(*z1, v.z[i]);
    }
}

/* ------------------------------------------------------------ tests */

static const uint32_t terrace_counts[] = {1, 2, 16, 1000};

START_TEST(test_flat_waves)
{
    rng_state = 1234 + (uint64_t)_i;
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 24, 17, 0.25f, &g));
    m = with_heights(ctx, g, h_waves, 0);
    float x0, x1, z0, z1;
    grid_bounds(m, &x0, &x1, &z0, &z1);
    const uint32_t n = terrace_counts[_i];
    float *L = malloc(sizeof *L * n);
    uniform_levels(m, n, L);
    check_flat_case(ctx, m, L, n, x0, x1, z0, z1, STRATA_WALLS_UPPER, 0);
    free(L);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_flat_random_shuffled)
{
    rng_state = 99 + (uint64_t)_i;
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 13, 11, 1.0f, &g));
    m = with_heights(ctx, g, h_random, 1);
    float x0, x1, z0, z1;
    grid_bounds(m, &x0, &x1, &z0, &z1);
    const uint32_t n = terrace_counts[_i];
    float *L = malloc(sizeof *L * n);
    uniform_levels(m, n, L);
    check_flat_case(ctx, m, L, n, x0, x1, z0, z1, (strata_walls)(_i % 3), 0);
    free(L);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Integer heights with integer planes: many vertices exactly on planes. */
START_TEST(test_heights_on_planes)
{
    rng_state = 7 + (uint64_t)_i;
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 16, 16, 1.0f, &g));
    m = with_heights(ctx, g, h_integer, _i & 1);
    float x0, x1, z0, z1;
    grid_bounds(m, &x0, &x1, &z0, &z1);
    static const float planes[][5] = {{0, 1, 2, 3, 4}, {1, 2, 3, 0, 0}, {0.5f, 2, 0, 0, 0}};
    static const uint32_t np[] = {5, 3, 2};
    const int which = _i % 3;
    check_flat_case(ctx, m, planes[which], np[which], x0, x1, z0, z1, STRATA_WALLS_UPPER, 0);
    free(NULL);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A planar ramp y = x: one wall per plane per row of cells, all facing
 * downhill (-x, property 4) at x = L[k] (property 3), roofs exactly as
 * wide as the plane spacing (properties 5 and 8). */
START_TEST(test_ramp_walls_face_downhill)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 8, 3, 1.0f, &g));
    m = with_heights(ctx, g, h_ramp, 0);
    const float L[] = {-4, -2.5f, -1, 0.5f, 2, 3.5f};
    strata_slice_options o = slice_options(L, 6, STRATA_WALLS_UPPER, 0, 1);
    strata_result *res;
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    strata_result_view r;
    strata_result_get_view(res, &r);
    for (uint32_t k = 0; k < 6; k++) {
        const strata_terrace *t = &r.terraces[k];
        require_eq(t->wall_count > 0, k > 0);
        for (uint64_t i = t->wall_first; i < t->wall_first + t->wall_count; i += 3) {
            double n[3];
            cross(&r, r.indices[i], r.indices[i + 1], r.indices[i + 2], n);
            require_true(n[0] < 0 && fabs(n[2]) < 1e-9 && fabs(n[1]) < 1e-9);
            for (int s = 0; s < 3; s++) /* walls of plane k stand at x = L[k] */
                ck_assert_float_eq_tol(r.x[r.indices[i + s]], L[k], 1e-6f);
        }
        /* Terrace k covers L[k] <= x < L[k+1] across the 3-unit depth. */
        const double x_lo = k == 0 ? -4.0 : L[k], x_hi = k == 5 ? 4.0 : L[k + 1];
        ck_assert_double_eq_tol(t->roof_area, (x_hi - x_lo) * 3.0, 1e-5);
        ck_assert_double_eq_tol(t->wall_area, k == 0 ? 0.0 : (L[k] - L[k - 1]) * 3.0, 1e-5);
    }
    strata_result_destroy(res);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_polygon_fan)
{
    rng_state = 5;
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *p, *s, *m;
    ck_assert_ok(strata_shape_polygon(ctx, 7, 3.0f, &p));
    ck_assert_ok(strata_mesh_subdivide(ctx, p, 3, 0, &s));
    m = with_heights(ctx, s, h_waves, 0);
    float L[16];
    uniform_levels(m, 16, L);
    strata_slice_options o = slice_options(L, 16, STRATA_WALLS_LOWER, 0, 0);
    strata_result *res;
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    strata_result_view r;
    strata_result_get_view(res, &r);
    topo tp = check_manifold(&r);
    require_eq(tp.euler, 1);
    const double area = check_flat_geometry(&r, L, 0);
    const double want = 0.5 * 7 * 9.0 * sin(2 * M_PI / 7);
    ck_assert_double_eq_tol(area, want, 1e-5 * want); /* property 5 */
    /* Property 1, LOWER: the top terrace has no walls, every wall-bearing terrace has
     * roofs. */
    require_eq(r.terraces[15].wall_count, 0);
    strata_result_destroy(res);
    strata_mesh_destroy(p);
    strata_mesh_destroy(s);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Properties 2 to 6 for a RADIAL result about the origin with base
 * radius R: closed and manifold, no triangle without area, roofs on
 * their spheres facing out (fold_ulps as for check_flat_geometry) and
 * covering the whole sphere once, walls with a radial edge. */
static void check_planet(const strata_result *res, const float *L, float R, int fold_ulps)
{
    strata_result_view r;
    strata_result_get_view(res, &r);
    topo tp = check_manifold(&r);
    require_eq(tp.border_edges, 0); /* closed */
    require_eq(tp.euler, 2);
    const uint64_t nt = r.nindices / 3;
    int32_t *terr = malloc(sizeof *terr * nt);
    uint8_t *wall = malloc(nt);
    classify(&r, terr, wall);
    double omega = 0.0;
    for (uint64_t t = 0; t < nt; t++) {
        const uint32_t *ix = r.indices + 3 * t;
        double p[3][3];
        for (int s = 0; s < 3; s++) {
            p[s][0] = r.x[ix[s]];
            p[s][1] = r.y[ix[s]];
            p[s][2] = r.z[ix[s]];
        }
        double nrm[3];
        cross(&r, ix[0], ix[1], ix[2], nrm);
        const double len = sqrt(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        require(len > 0.0, "property 6: zero-area triangle %llu", (unsigned long long)t);
        if (!wall[t]) {
            const double want = (double)R + L[terr[t]];
            for (int s = 0; s < 3; s++) {
                const double rad = sqrt(p[s][0] * p[s][0] + p[s][1] * p[s][1] + p[s][2] * p[s][2]);
                require(fabs(rad - want) <= 1e-6 * want, "property 3: roof radius %.9g want %.9g", rad, want);
            }
            const double w = solid_angle(p[0], p[1], p[2]);
            double side = 0.0, big = 0.0; /* longest side, largest coordinate */
            for (int s = 0; s < 3; s++) {
                const double *u = p[s], *q = p[(s + 1) % 3];
                side = fmax(side, sqrt((q[0] - u[0]) * (q[0] - u[0]) + (q[1] - u[1]) * (q[1] - u[1]) +
                                       (q[2] - u[2]) * (q[2] - u[2])));
                big = fmax(big, fmax(fabs(u[0]), fmax(fabs(u[1]), fabs(u[2]))));
            }
            const double ulp = (double)nextafterf((float)big, INFINITY) - (float)big;
            require(w > 0.0 || len < fold_ulps * ulp * side,
                    "property 4: roof facing in (width %g, ulp %g)", len / side, ulp);
            omega += w;
        } else {
            /* Radial: two of its corners lie on one ray from the centre
             * at different radii (its vertical edge). */
            int radial = 0;
            for (int s0 = 0; s0 < 3; s0++) {
                const double *u = p[s0], *w = p[(s0 + 1) % 3];
                const double cx = u[1] * w[2] - u[2] * w[1], cy = u[2] * w[0] - u[0] * w[2],
                             cz = u[0] * w[1] - u[1] * w[0];
                const double lu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
                const double lw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
                if (sqrt(cx * cx + cy * cy + cz * cz) <= 1e-6 * lu * lw && fabs(lu - lw) > 0)
                    radial = 1;
            }
            require(radial, "property 3: wall triangle without a radial edge");
        }
    }
    require(fabs(omega - 4 * M_PI) <= 1e-5 * 4 * M_PI, "property 5: roofs cover %.9g sr", omega);
    free(terr);
    free(wall);
}

/* A level-4 icosphere of radius 2 with radial bumps (their pattern
 * shifted by phase), RADIAL about the origin with base radius 2. */
static strata_mesh *bumpy_planet(strata_ctx *ctx, float phase)
{
    strata_mesh *sphere, *m;
    ck_assert_ok(strata_shape_icosphere(ctx, 4, 2.0f, &sphere));
    strata_mesh_view v;
    strata_mesh_get_view(sphere, &v);
    float *xyz;
    uint32_t *tri;
    mesh_arrays(sphere, &xyz, &tri);
    for (uint32_t i = 0; i < v.nverts; i++) {
        const float s = 1.0f + 0.15f * sinf(3 * v.x[i] + phase) * cosf(2 * v.y[i] + v.z[i]);
        xyz[3 * i] *= s;
        xyz[3 * i + 1] *= s;
        xyz[3 * i + 2] *= s;
    }
    ck_assert_ok(strata_mesh_create(ctx, xyz, v.nverts, tri, v.ntris, &m));
    ck_assert_ok(strata_mesh_set_geometry(m, STRATA_RADIAL, NULL, 2.0f));
    free(xyz);
    free(tri);
    strata_mesh_destroy(sphere);
    return m;
}

START_TEST(test_planet)
{
    rng_state = 77 + (uint64_t)_i;
    const uint32_t n = terrace_counts[_i];
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *m = bumpy_planet(ctx, 0.0f);
    float *L = malloc(sizeof *L * n);
    uniform_levels(m, n, L);
    strata_slice_options o = slice_options(L, n, STRATA_WALLS_UPPER, 0, 1);
    strata_result *res;
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    check_planet(res, L, 2.0f, 0);
    free(L);
    strata_result_destroy(res);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------- heights within rounding */

/* Two results hold the same bytes (what strata_slice_into promises). */
static void same_result(const strata_result *ra, const strata_result *rb, const char *what)
{
    strata_result_view a, b;
    strata_result_get_view(ra, &a);
    strata_result_get_view(rb, &b);
    require(a.nverts == b.nverts && a.nindices == b.nindices && a.nterraces == b.nterraces &&
                a.walls == b.walls && a.geometry == b.geometry && a.radius == b.radius &&
                !memcmp(a.center, b.center, sizeof a.center) && (a.nx == NULL) == (b.nx == NULL),
            "%s: %u/%u vertices, %llu/%llu indices, %u/%u terraces, normals %d/%d", what,
            a.nverts, b.nverts, (unsigned long long)a.nindices, (unsigned long long)b.nindices,
            a.nterraces, b.nterraces, a.nx != NULL, b.nx != NULL);
    require(!memcmp(a.x, b.x, sizeof(float) * a.nverts) &&
                !memcmp(a.y, b.y, sizeof(float) * a.nverts) &&
                !memcmp(a.z, b.z, sizeof(float) * a.nverts) &&
                !memcmp(a.indices, b.indices, sizeof(uint32_t) * a.nindices) &&
                !memcmp(a.terraces, b.terraces, sizeof(strata_terrace) * a.nterraces),
            "%s: the bytes differ", what);
    if (a.nx)
        require(!memcmp(a.nx, b.nx, sizeof(float) * a.nverts) &&
                    !memcmp(a.ny, b.ny, sizeof(float) * a.nverts) &&
                    !memcmp(a.nz, b.nz, sizeof(float) * a.nverts),
                "%s: the normals differ", what);
}


/* h moved by d ulps (d < 0: down). */
static float nudge(float h, int d)
{
    for (; d > 0; d--)
        h = nextafterf(h, INFINITY);
    for (; d < 0; d++)
        h = nextafterf(h, -INFINITY);
    return h;
}

/* Property 7 on m: one thread with the scalar kernels and two with the
 * best ISA give the same bytes. */
static void check_threads_isa(const strata_mesh *m, const float *L, uint32_t n, strata_walls walls)
{
    strata_result *res[2];
    for (int k = 0; k < 2; k++) {
        strata_ctx *ctx = ctx_new(k + 1);
        if (k == 0)
            ck_assert_ok(strata_ctx_set_isa(ctx, STRATA_ISA_SCALAR));
        strata_slice_options o = slice_options(L, n, walls, 1, 1);
        ck_assert_ok(strata_slice(ctx, m, &o, &res[k]));
        strata_ctx_destroy(ctx);
    }
    same_result(res[0], res[1], "1 thread scalar, 2 threads best ISA");
    strata_result_destroy(res[0]);
    strata_result_destroy(res[1]);
}

/* Properties 2 to 7 with heights a few ulps above and below planes (and
 * on them), where a crossing computed on an edge rounds onto its end or
 * onto one of that end's coordinates: grids away from the origin (x and
 * z of different magnitudes, so a diagonal's crossing can keep one
 * coordinate of its end and not the other), shuffled or not, every wall
 * mode.  Before such vertices were taken as lying on their plane, roofs
 * of no area came out (a triangle with two corners at one point, or three
 * on a line). */
START_TEST(test_heights_near_planes)
{
    rng_state = 31 + (uint64_t)_i;
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g;
    const uint32_t nx = 60 + 7 * (uint32_t)_i, nz = 45;
    ck_assert_ok(strata_shape_grid(ctx, nx, nz, _i & 1 ? 0.37f : 1.0f, &g));
    const uint32_t n = _i & 2 ? 40 : 12;
    float L[40];
    ck_assert_ok(strata_levels_range(-2.0f, 2.0f, n, NULL, L));
    float *xyz;
    uint32_t *tri;
    mesh_arrays(g, &xyz, &tri);
    strata_mesh_view v;
    strata_mesh_get_view(g, &v);
    const float off = _i & 1 ? 300.0f : 40.0f;
    for (uint32_t i = 0; i < v.nverts; i++) {
        xyz[3 * i] += off;
        xyz[3 * i + 2] += 0.5f;
        float h = (float)(rnd() * 4.0 - 2.0);
        if (rnd() < 0.4)
            h = nudge(L[(uint32_t)(rnd() * n)], (int)(rnd() * 9.0) - 4);
        xyz[3 * i + 1] = h;
    }
    strata_mesh *m0, *m;
    ck_assert_ok(strata_mesh_create(ctx, xyz, v.nverts, tri, v.ntris, &m0));
    m = with_heights(ctx, m0, NULL, _i >= 4);
    float x0, x1, z0, z1;
    grid_bounds(m, &x0, &x1, &z0, &z1);
    const strata_walls walls = (strata_walls)(_i % 3);
    /* Fan triangles may still fold, narrower than 4 ulps: slivers where
     * two corners of a cut polygon lie near two of its input corners, and
     * specks of a few ulps where a vertex lies a few ulps from a plane but
     * no crossing lands on it.  Their side is the rounding's. */
    check_flat_case(ctx, m, L, n, x0, x1, z0, z1, walls, 4);
    check_threads_isa(m, L, n, walls);
    free(xyz);
    free(tri);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m0);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* The same on bumpy planets whose planes lie a few ulps from vertex
 * heights (each plane at a random vertex's height, moved 0 to 3 ulps up
 * or down). */
START_TEST(test_planet_near_planes)
{
    rng_state = 313 + (uint64_t)_i;
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *m = bumpy_planet(ctx, (float)_i);
    strata_mesh_view mv;
    strata_mesh_get_view(m, &mv);
    float L[64];
    uint32_t n = 0;
    for (int k = 0; k < 64; k++)
        L[k] = nudge(mv.h[(uint32_t)(rnd() * mv.nverts)], (int)(rnd() * 7.0) - 3);
    qsort(L, 64, sizeof(float), cmp_float);
    for (int k = 0; k < 64; k++) /* R + L apart in float: walls with a height */
        if (n == 0 || L[k] > L[n - 1] + 1e-3f)
            L[n++] = L[k];
    const strata_walls walls = (strata_walls)(_i % 3);
    strata_slice_options o = slice_options(L, n, walls, 0, 1);
    strata_result *res;
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    /* Folds narrower than 4 ulps may stay, as on flat meshes
     * (test_heights_near_planes). */
    check_planet(res, L, 2.0f, 4);
    check_threads_isa(m, L, n, walls);
    strata_result_destroy(res);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Clean by position (tests/poscheck.h): heights drawn near planes (a few
 * ulps off, as test_heights_near_planes, with coordinates offset far from
 * 0) on flat grids, and bumpy planets with planes a few ulps from vertex
 * heights: welded by exact position no triangle collapses or has a side
 * below 4 ulps of its largest coordinate (a crossing that near its end
 * lands on it), and borders lie only on the grid's border (a planet has
 * none). */
static void require_clean(const strata_result *res, int closed, const char *what)
{
    strata_result_view r;
    strata_result_get_view(res, &r);
    poscheck p;
    ck_assert_int_eq(poscheck_run(r.x, r.y, r.z, r.nverts, r.indices, r.nindices / 3, &p), 0);
    require(p.collapsed == 0 && p.short_side == 0 && (closed ? p.border : p.inner_border) == 0,
            "%s: %llu collapsed, %llu sides below 4 ulps, %llu border edges (%llu inside)", what,
            (unsigned long long)p.collapsed, (unsigned long long)p.short_side,
            (unsigned long long)p.border, (unsigned long long)p.inner_border);
}

START_TEST(test_clean_by_position)
{
    rng_state = 4242 + (uint64_t)_i;
    strata_ctx *ctx = ctx_new(1);
    float L[64];
    strata_result *res;
    char what[64];
    snprintf(what, sizeof what, "case %d", _i);
    if (_i < 4) {
        strata_mesh *g, *m;
        const uint32_t nx = 50 + 9 * (uint32_t)_i, nz = 40;
        ck_assert_ok(strata_shape_grid(ctx, nx, nz, _i & 1 ? 0.37f : 1.0f, &g));
        const uint32_t n = _i & 2 ? 40 : 12;
        ck_assert_ok(strata_levels_range(-2.0f, 2.0f, n, NULL, L));
        float *xyz;
        uint32_t *tri;
        mesh_arrays(g, &xyz, &tri);
        strata_mesh_view v;
        strata_mesh_get_view(g, &v);
        for (uint32_t i = 0; i < v.nverts; i++) {
            xyz[3 * i] += _i & 1 ? 300.0f : 40.0f;
            float h = (float)(rnd() * 4.0 - 2.0);
            if (rnd() < 0.4)
                h = nudge(L[(uint32_t)(rnd() * n)], (int)(rnd() * 41.0) - 20);
            xyz[3 * i + 1] = h;
        }
        ck_assert_ok(strata_mesh_create(ctx, xyz, v.nverts, tri, v.ntris, &m));
        strata_slice_options o = slice_options(L, n, STRATA_WALLS_UPPER, 0, 0);
        ck_assert_ok(strata_slice(ctx, m, &o, &res));
        require_clean(res, 0, what);
        free(xyz);
        free(tri);
        strata_mesh_destroy(g);
        strata_mesh_destroy(m);
    } else {
        strata_mesh *m = bumpy_planet(ctx, (float)_i);
        strata_mesh_view mv;
        strata_mesh_get_view(m, &mv);
        uint32_t n = 0;
        for (int k = 0; k < 64; k++)
            L[k] = nudge(mv.h[(uint32_t)(rnd() * mv.nverts)], (int)(rnd() * 41.0) - 20);
        qsort(L, 64, sizeof(float), cmp_float);
        for (int k = 0; k < 64; k++)
            if (n == 0 || L[k] > L[n - 1] + 1e-3f)
                L[n++] = L[k];
        strata_slice_options o = slice_options(L, n, STRATA_WALLS_UPPER, 0, 0);
        ck_assert_ok(strata_slice(ctx, m, &o, &res));
        require_clean(res, 1, what);
        strata_mesh_destroy(m);
    }
    strata_result_destroy(res);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Property 7: the same bytes every run and for 1, 2 and 3 threads (OpenMP
 * stays inside this test); with random float heights (_i == 0), and with
 * integer heights on half-integer planes, many exactly on a plane, over
 * more than one block of the on-plane filter (_i == 1). */
START_TEST(test_same_bytes)
{
    strata_result *res[4];
    const int threads[4] = {1, 1, 2, 3};
    for (int k = 0; k < 4; k++) {
        rng_state = 4242;
        strata_ctx *ctx = ctx_new(threads[k]);
        strata_mesh *g, *m;
        if (_i == 0)
            ck_assert_ok(strata_shape_grid(ctx, 150, 130, 0.1f, &g));
        else
            ck_assert_ok(strata_shape_grid(ctx, 200, 180, 0.1f, &g)); /* 72000 triangles */
        m = with_heights(ctx, g, _i == 0 ? h_random : h_integer, 0);
        float L[40];
        const uint32_t n = _i == 0 ? 40 : 8;
        if (_i == 0)
            uniform_levels(m, n, L);
        else
            memcpy(L, half_planes, sizeof half_planes);
        strata_slice_options o = slice_options(L, n, (strata_walls)(k % 3), 1, 1);
        o.walls = STRATA_WALLS_SEPARATE;
        ck_assert_ok(strata_slice(ctx, m, &o, &res[k]));
        strata_mesh_destroy(g);
        strata_mesh_destroy(m);
        strata_ctx_destroy(ctx);
    }
    strata_result_view a, b;
    strata_result_get_view(res[0], &a);
    for (int k = 1; k < 4; k++) {
        strata_result_get_view(res[k], &b);
        require_eq(a.nverts, b.nverts);
        require_eq(a.nindices, b.nindices);
        ck_assert_mem_eq(a.x, b.x, sizeof(float) * a.nverts);
        ck_assert_mem_eq(a.y, b.y, sizeof(float) * a.nverts);
        ck_assert_mem_eq(a.z, b.z, sizeof(float) * a.nverts);
        ck_assert_mem_eq(a.nx, b.nx, sizeof(float) * a.nverts);
        ck_assert_mem_eq(a.indices, b.indices, sizeof(uint32_t) * a.nindices);
        ck_assert_mem_eq(a.terraces, b.terraces, sizeof(strata_terrace) * a.nterraces);
    }
    for (int k = 0; k < 4; k++)
        strata_result_destroy(res[k]);
}
END_TEST

/* Property 1: wall modes place walls in the documented ranges; property
 * 8: normals split walls and change nothing else. */
START_TEST(test_wall_modes_and_normals)
{
    rng_state = 31;
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 20, 20, 0.3f, &g));
    m = with_heights(ctx, g, h_waves, 0);
    float L[8];
    uniform_levels(m, 8, L);
    strata_result *up, *lo, *sep, *nrm;
    strata_slice_options o = slice_options(L, 8, STRATA_WALLS_UPPER, 0, 0);
    ck_assert_ok(strata_slice(ctx, m, &o, &up));
    o.walls = STRATA_WALLS_LOWER;
    ck_assert_ok(strata_slice(ctx, m, &o, &lo));
    o.walls = STRATA_WALLS_SEPARATE;
    ck_assert_ok(strata_slice(ctx, m, &o, &sep));
    o.normals = 1;
    o.walls = STRATA_WALLS_UPPER;
    ck_assert_ok(strata_slice(ctx, m, &o, &nrm));
    strata_result_view vu, vl, vs, vn;
    strata_result_get_view(up, &vu);
    strata_result_get_view(lo, &vl);
    strata_result_get_view(sep, &vs);
    strata_result_get_view(nrm, &vn);
    ck_assert_ptr_null(vu.nx);
    uint64_t roofs = 0, walls = 0;
    for (uint32_t k = 0; k < 8; k++) {
        /* Same roofs in every mode; walls of plane k move to k-1. */
        require_eq(vu.terraces[k].roof_count, vl.terraces[k].roof_count);
        require_eq(vu.terraces[k].roof_count, vs.terraces[k].roof_count);
        require_eq(vu.terraces[k].wall_count, vs.terraces[k].wall_count);
        if (k + 1 < 8)
            require_eq(vl.terraces[k].wall_count, vu.terraces[k + 1].wall_count);
        /* UPPER: each terrace's roofs then walls, contiguous. */
        require_eq(vu.terraces[k].wall_first, vu.terraces[k].roof_first + vu.terraces[k].roof_count);
        roofs += vs.terraces[k].roof_count;
        walls += vs.terraces[k].wall_count;
    }
    require_eq(vl.terraces[7].wall_count, 0);
    require_eq(vu.terraces[0].wall_count, 0);
    require_gt(walls, 0);
    /* SEPARATE: all roofs first, then all walls. */
    require_eq(vs.terraces[0].wall_first, roofs);
    require_eq(roofs + walls, vs.nindices);
    ck_assert_mem_eq(vu.x, vs.x, sizeof(float) * vu.nverts);
    /* Property 8, normals: four fresh vertices per wall quad, unit normals,
     * roofs up, roof vertices where they were. */
    ck_assert_ptr_nonnull(vn.nx);
    require_eq(vn.nverts, vu.nverts + 4 * (walls / 6));
    for (uint32_t i = 0; i < vn.nverts; i++) {
        const double l = sqrt((double)vn.nx[i] * vn.nx[i] + (double)vn.ny[i] * vn.ny[i] +
                              (double)vn.nz[i] * vn.nz[i]);
        ck_assert_double_eq_tol(l, 1.0, 1e-6);
    }
    for (uint32_t k = 0; k < 8; k++) {
        const strata_terrace *t = &vn.terraces[k];
        for (uint64_t i = t->roof_first; i < t->roof_first + t->roof_count; i++)
            ck_assert_float_eq(vn.ny[vn.indices[i]], 1.0f);
        for (uint64_t i = t->wall_first; i < t->wall_first + t->wall_count; i += 3) {
            const uint32_t *ix = vn.indices + i;
            require_ge(ix[0], vu.nverts);
            double n[3];
            cross(&vn, ix[0], ix[1], ix[2], n);
            const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            ck_assert_double_eq_tol(vn.nx[ix[0]], n[0] / len, 1e-5);
            ck_assert_double_eq_tol(vn.nz[ix[0]], n[2] / len, 1e-5);
        }
    }
    strata_result_destroy(up);
    strata_result_destroy(lo);
    strata_result_destroy(sep);
    strata_result_destroy(nrm);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A height one float above a plane, its neighbours a million below:
 * the crossings of its edges round onto its own spot, so the vertex is
 * taken as lying on the plane (a peak exactly on it): no roof and no
 * wall on that plane, so no wall quad of no area (they used to come out
 * with all four corners at the peak), and every normal of unit length,
 * as glTF asks. */
START_TEST(test_peak_a_hair_above_a_plane)
{
    strata_ctx *ctx = ctx_new(1);
    float xyz[27];
    for (int j = 0, k = 0; j < 3; j++)
        for (int i = 0; i < 3; i++, k++) {
            xyz[3 * k] = (float)i;
            xyz[3 * k + 1] = k == 4 ? nextafterf(1.0f, 2.0f) : -1e6f;
            xyz[3 * k + 2] = (float)j;
        }
    const uint32_t tris[24] = {0, 3, 4, 0, 4, 1, 1, 4, 5, 1, 5, 2,
                               3, 6, 7, 3, 7, 4, 4, 7, 8, 4, 8, 5};
    strata_mesh *m;
    ck_assert_ok(strata_mesh_create(ctx, xyz, 9, tris, 8, &m));
    const float L[2] = {-2e6f, 1.0f};
    strata_slice_options o = slice_options(L, 2, STRATA_WALLS_UPPER, 0, 0);
    strata_result *plain, *nrm;
    ck_assert_ok(strata_slice(ctx, m, &o, &plain));
    o.normals = 1;
    ck_assert_ok(strata_slice(ctx, m, &o, &nrm));
    strata_result_view vp, vn;
    strata_result_get_view(plain, &vp);
    strata_result_get_view(nrm, &vn);
    require_eq(vp.terraces[1].roof_count, 0);
    require_eq(vp.terraces[1].wall_count, 0);
    int flat = 0;
    for (uint64_t i = 0; i < vp.nindices; i += 3) {
        double n[3];
        cross(&vp, vp.indices[i], vp.indices[i + 1], vp.indices[i + 2], n);
        flat += n[0] == 0 && n[1] == 0 && n[2] == 0;
    }
    require_eq(flat, 0);
    for (uint32_t i = 0; i < vn.nverts; i++) {
        const double l = sqrt((double)vn.nx[i] * vn.nx[i] + (double)vn.ny[i] * vn.ny[i] +
                              (double)vn.nz[i] * vn.nz[i]);
        require(fabs(l - 1.0) < 1e-6, "normal %u has length %g", i, l);
    }
    strata_result_destroy(plain);
    strata_result_destroy(nrm);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_single_terrace_is_flat)
{
    rng_state = 3;
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 9, 9, 1.0f, &g));
    m = with_heights(ctx, g, h_random, 0);
    float L[1];
    uniform_levels(m, 1, L);
    strata_slice_options o = slice_options(L, 1, STRATA_WALLS_UPPER, 0, 0);
    strata_result *res;
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    strata_result_view r;
    strata_result_get_view(res, &r);
    /* One terrace at the lowest height: the input triangles, flattened
     * (properties 1 and 3). */
    require_eq(r.nindices, 3 * strata_mesh_triangle_count(m));
    require_eq(r.nverts, strata_mesh_vertex_count(m));
    require_eq(r.terraces[0].wall_count, 0);
    for (uint32_t i = 0; i < r.nverts; i++)
        ck_assert_float_eq(r.y[i], L[0]);
    strata_result_destroy(res);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_levels_and_errors)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 4, 4, 1.0f, &g));
    rng_state = 11;
    m = with_heights(ctx, g, h_ramp, 0); /* heights -2 .. 2 */
    float L[4];
    ck_assert_ok(strata_levels_uniform(m, 4, NULL, L));
    const float want[4] = {-2, -1, 0, 1};
    ck_assert_mem_eq(L, want, sizeof want);
    /* Constant height: spacing 1. */
    ck_assert_ok(strata_levels_uniform(g, 3, NULL, L));
    ck_assert_float_eq(L[0], 0.0f);
    ck_assert_float_eq(L[2], 2.0f);
    /* A curve redistributes the planes. */
    strata_curve *c;
    const float cx[] = {0, 1}, cy[] = {0, 1};
    ck_assert_ok(strata_curve_create(ctx, STRATA_CURVE_LINEAR, cx, cy, 2, &c));
    ck_assert_ok(strata_levels_uniform(m, 4, c, L));
    ck_assert_mem_eq(L, want, sizeof want);
    strata_curve_destroy(c);
    ck_assert_status(strata_levels_uniform(m, 0, NULL, L), STRATA_ERR_BAD_LEVELS);
    /* Too many planes for a tiny range in float. */
    float *many = malloc(sizeof(float) * 60000);
    const float tiny[] = {0, 1000.0f, 0, 1, 1000.001f, 0, 0, 1000.0f, 1};
    const uint32_t tri[] = {0, 1, 2};
    strata_mesh *t;
    ck_assert_ok(strata_mesh_create(ctx, tiny, 3, tri, 1, &t));
    ck_assert_status(strata_levels_uniform(t, 60000, NULL, many), STRATA_ERR_BAD_LEVELS);
    free(many);
    strata_mesh_destroy(t);

    /* Property 9: bad options, a NaN or infinite height and a cancel give
     * their status and no result. */
    strata_result *r = (strata_result *)1;
    const float bad1[] = {0, 1, 1};
    const float bad2[] = {0, NAN};
    strata_slice_options o = slice_options(bad1, 3, STRATA_WALLS_UPPER, 0, 0);
    ck_assert_status(strata_slice(ctx, m, &o, &r), STRATA_ERR_BAD_LEVELS);
    ck_assert_ptr_null(r);
    o.levels = bad2;
    o.nlevels = 2;
    ck_assert_status(strata_slice(ctx, m, &o, &r), STRATA_ERR_BAD_LEVELS);
    o.levels = want;
    o.nlevels = 0;
    ck_assert_status(strata_slice(ctx, m, &o, &r), STRATA_ERR_BAD_LEVELS);
    o.nlevels = 4;
    o.walls = (strata_walls)7;
    ck_assert_status(strata_slice(ctx, m, &o, &r), STRATA_ERR_INVALID_ARG);
    o.walls = STRATA_WALLS_UPPER;
    ck_assert_status(strata_slice(ctx, NULL, &o, &r), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_slice(ctx, m, NULL, &r), STRATA_ERR_INVALID_ARG);
    /* A planet whose lowest terrace would be at or below the centre. */
    strata_mesh *s;
    ck_assert_ok(strata_shape_icosphere(ctx, 1, 1.0f, &s));
    const float deep[] = {-1.0f, 0.0f};
    o.levels = deep;
    o.nlevels = 2;
    ck_assert_status(strata_slice(ctx, s, &o, &r), STRATA_ERR_BAD_LEVELS);
    /* A height that overflows to infinity (radial, coordinates near
     * FLT_MAX) is refused, not sliced. */
    const float huge[] = {3e38f, 0, 0, 0, 1, 0, 0, 0, 1};
    const uint32_t one[] = {0, 1, 2};
    strata_mesh *inf_mesh;
    ck_assert_ok(strata_mesh_create(ctx, huge, 3, one, 1, &inf_mesh));
    ck_assert_ok(strata_mesh_set_geometry(inf_mesh, STRATA_RADIAL, NULL, 5.0f));
    o.levels = want; /* valid, and above the centre for radius 5 */
    o.nlevels = 4;
    ck_assert_status(strata_slice(ctx, inf_mesh, &o, &r), STRATA_ERR_NOT_FINITE);
    ck_assert_ptr_null(r);
    strata_mesh_destroy(inf_mesh);
    /* Cancelled before starting. */
    o.levels = want;
    o.nlevels = 4;
    strata_ctx_cancel(ctx);
    r = (strata_result *)1;
    ck_assert_status(strata_slice(ctx, m, &o, &r), STRATA_ERR_CANCELLED);
    ck_assert_ptr_null(r);
    strata_ctx_reset_cancel(ctx);
    ck_assert_ok(strata_slice(ctx, m, &o, &r));
    strata_result_destroy(r);
    strata_mesh_destroy(s);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_from_mesh)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 5, 3, 1.0f, &g));
    rng_state = 8;
    m = with_heights(ctx, g, h_random, 0);
    strata_result *r, *rn;
    ck_assert_ok(strata_result_from_mesh(ctx, m, 0, &r));
    ck_assert_ok(strata_result_from_mesh(ctx, m, 1, &rn));
    strata_result_view v, vn;
    strata_result_get_view(r, &v);
    strata_result_get_view(rn, &vn);
    strata_mesh_view mv;
    strata_mesh_get_view(m, &mv);
    require_eq(v.nverts, mv.nverts);
    ck_assert_mem_eq(v.y, mv.y, sizeof(float) * mv.nverts);
    require_eq(v.nterraces, 1);
    require_eq(v.terraces[0].roof_count, 3 * (uint64_t)mv.ntris);
    require_eq(vn.nverts, 3 * mv.ntris);
    ck_assert_double_eq_tol(v.terraces[0].roof_area, vn.terraces[0].roof_area, 1e-9);
    strata_result_destroy(r);
    strata_result_destroy(rn);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The per-thread arenas: what strata_ctx_arena_stats reports after a
 * slice (16 bytes per cut triangle, none without cut triangles, zeros
 * after a failure) and a clean STRATA_ERR_NOMEM when blocks cannot be had. */
START_TEST(test_arenas)
{
    rng_state = 77;
    const int threads = 2;
    strata_ctx *ctx = ctx_new(threads);
    strata_arena_stats st;
    memset(&st, 0xff, sizeof st);
    strata_ctx_arena_stats(ctx, &st);
    require(st.arenas == 0 && st.blocks == 0 && st.bytes_used == 0 && st.bytes_reserved == 0,
            "before any slice: %u arenas, %llu bytes", st.arenas,
            (unsigned long long)st.bytes_reserved);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 200, 180, 0.1f, &g));
    m = with_heights(ctx, g, h_random, 0);
    strata_mesh_view mv;
    strata_mesh_get_view(m, &mv);
    float L[24];
    uniform_levels(m, 24, L);
    strata_slice_options o = slice_options(L, 24, STRATA_WALLS_UPPER, 0, 0);
    strata_result *res;
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    strata_result_view r;
    strata_result_get_view(res, &r);
    /* Cut triangles: all output triangles but the one-band input ones.
     * A vertex's band is that of its roof copy (output vertex v, at
     * L[band]): a height within rounding of the plane above is snapped
     * onto it (slice_onplane.h). */
    uint64_t one_band = 0;
    for (uint32_t t = 0; t < mv.ntris; t++) {
        int k[3];
        const uint32_t v[3] = {mv.a[t], mv.b[t], mv.c[t]};
        for (int c = 0; c < 3; c++) {
            k[c] = 0;
            while (k[c] + 1 < 24 && L[k[c] + 1] <= r.y[v[c]])
                k[c]++;
        }
        one_band += k[0] == k[1] && k[1] == k[2];
    }
    const uint64_t cut = r.nindices / 3 - one_band;
    ck_assert_uint_gt(cut, 10000);
    strata_ctx_arena_stats(ctx, &st);
    ck_assert_uint_eq(st.arenas, (unsigned)strata_ctx_threads(ctx)); /* 1 without OpenMP */
    ck_assert_uint_eq(st.bytes_used, 16 * cut);
    ck_assert_uint_ge(st.blocks, 1);
    ck_assert_uint_le(st.bytes_used + st.bytes_wasted, st.bytes_reserved);
    ck_assert_uint_lt(st.bytes_wasted, st.bytes_used);
    strata_result_destroy(res);

    /* One terrace: no triangle is cut, no block is taken. */
    o.nlevels = 1;
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    strata_ctx_arena_stats(ctx, &st);
    ck_assert_uint_eq(st.arenas, (unsigned)strata_ctx_threads(ctx)); /* 1 without OpenMP */
    ck_assert_uint_eq(st.blocks, 0);
    ck_assert_uint_eq(st.bytes_used, 0);
    strata_result_destroy(res);

    /* A failed slice reports zeros. */
    o.nlevels = 24;
    L[3] = L[2]; /* not ascending */
    ck_assert_status(strata_slice(ctx, m, &o, &res), STRATA_ERR_BAD_LEVELS);
    uniform_levels(m, 24, L);
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    strata_result_destroy(res);
    const strata_slice_options bad_walls = slice_options(L, 24, (strata_walls)9, 0, 0);
    ck_assert_status(strata_slice(ctx, m, &bad_walls, &res), STRATA_ERR_INVALID_ARG);
    strata_ctx_arena_stats(ctx, &st);
    ck_assert_uint_eq(st.blocks, 0);
    ck_assert_uint_eq(st.bytes_used, 0);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A slice on a grid of cells x 180 cells with 2 threads through a
 * counting allocator: random float heights and 24 even planes (_i == 0),
 * or integer heights on half-integer planes, many exactly on a plane
 * (_i == 1).  Returns the context; *m and *g are its meshes. */
static strata_ctx *counted_grid(int i, uint32_t cells, test_alloc *ta, strata_mesh **g,
                                strata_mesh **m, float *L, strata_slice_options *o)
{
    strata_ctx *ctx = ctx_new_counting(2, ta);
    ck_assert_ok(strata_shape_grid(ctx, cells, 180, 0.1f, g));
    rng_state = 77;
    *m = with_heights(ctx, *g, i == 0 ? h_random : h_integer, 0);
    const uint32_t n = i == 0 ? 24 : 8;
    if (i == 0)
        uniform_levels(*m, n, L);
    else
        memcpy(L, half_planes, sizeof half_planes);
    *o = slice_options(L, n, STRATA_WALLS_UPPER, 0, 0);
    return ctx;
}

/* 200 x 180 cells: 5 chunks of pass A. */
static strata_ctx *counted_case(int i, test_alloc *ta, strata_mesh **g, strata_mesh **m, float *L,
                                strata_slice_options *o)
{
    return counted_grid(i, 200, ta, g, m, L, o);
}

/* Property 9: every allocation of a slice failing in turn (tables,
 * staging lists, arena blocks, the result; with heights on planes also
 * the on-plane tables): NOMEM each time, no result, nothing leaked, arena
 * figures zero, and the same context slices fine once memory is back. */
START_TEST(test_every_allocation_failing)
{
    test_alloc ta;
    strata_mesh *g, *m;
    float L[24];
    strata_slice_options o;
    strata_ctx *ctx = counted_case(_i, &ta, &g, &m, L, &o);
    strata_result *res;
    const long live = ta.live;
    ta.count = 0;
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    strata_result_destroy(res);
    const long nalloc = ta.count;
    ck_assert_int_gt(nalloc, 20); /* blocks and staging lists among them */
    for (long k = 0; k < nalloc; k++) {
        ta.count = 0;
        ta.fail_at = k;
        res = (strata_result *)&ta;
        const strata_status s = strata_slice(ctx, m, &o, &res);
        if (s == STRATA_OK && ta.count <= k) { /* threads took chunks differently: */
            strata_result_destroy(res);        /* fewer allocations this time */
            continue;
        }
        strata_arena_stats st;
        strata_ctx_arena_stats(ctx, &st);
        require(s == STRATA_ERR_NOMEM && res == NULL && ta.live == live && st.arenas == 0 &&
                    st.bytes_reserved == 0,
                "property 9: allocation %ld of %ld failing: %s, %ld live, %u arenas", k, nalloc,
                strata_status_str(s), ta.live - live, st.arenas);
    }
    ta.fail_at = -1;
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    strata_result_destroy(res);
    ck_assert_int_eq(ta.live, live);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Property 9: a cancel at every progress report of a slice (at each
 * milestone and within the passes) returns STRATA_ERR_CANCELLED with no
 * result, nothing leaked and arena figures zero, whichever phase it
 * stops; then the context slices fine again. */
static int cancel_at, reports;
static int cancel_on_report(void *user, const char *stage, double done)
{
    (void)user;
    (void)done;
    return !strcmp(stage, "slice") && reports++ == cancel_at;
}

START_TEST(test_cancel_anywhere)
{
    test_alloc ta;
    strata_mesh *g, *m;
    float L[24];
    strata_slice_options o;
    strata_ctx *ctx = counted_case(_i, &ta, &g, &m, L, &o);
    o.normals = o.areas = 1; /* every phase has work */
    ck_assert_ok(strata_ctx_set_threads(ctx, 1)); /* 5 chunks: 2 groups a pass */
    strata_ctx_set_progress(ctx, cancel_on_report, NULL);
    strata_result *res;
    cancel_at = -1;
    reports = 0;
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    strata_result_destroy(res);
    const int nreports = reports;
    ck_assert_int_gt(nreports, 7); /* milestones and reports within the passes */
    const long live = ta.live;
    for (cancel_at = 0; cancel_at < nreports; cancel_at++) {
        reports = 0;
        res = (strata_result *)&ta;
        const strata_status s = strata_slice(ctx, m, &o, &res);
        strata_ctx_reset_cancel(ctx);
        strata_arena_stats st;
        strata_ctx_arena_stats(ctx, &st);
        require(s == STRATA_ERR_CANCELLED && res == NULL && ta.live == live && st.arenas == 0 &&
                    st.bytes_reserved == 0,
                "property 9: cancel at report %d of %d: %s, %ld live, %u arenas", cancel_at,
                nreports, strata_status_str(s), ta.live - live, st.arenas);
    }
    cancel_at = -1;
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    strata_result_destroy(res);
    ck_assert_int_eq(ta.live, live);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------ slicing into a result */

static void require_empty(const strata_result *r, const char *what)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    require(v.nverts == 0 && v.nindices == 0 && v.nterraces == 0,
            "%s: result not empty: %u vertices, %llu indices, %u terraces", what, v.nverts,
            (unsigned long long)v.nindices, v.nterraces);
}

/* strata_slice_into one result, slice after slice (growing, shrinking,
 * normals on and off, areas, every wall mode, a planet), gives the bytes
 * of strata_slice each time, and keeps its arrays when they are big
 * enough. */
START_TEST(test_slice_into_same_bytes)
{
    strata_ctx *ctx = ctx_new(2);
    strata_result *into;
    ck_assert_ok(strata_result_create(ctx, &into));
    require_empty(into, "a new result");
    static const struct {
        uint32_t cells, n;
        int normals, areas, integer;
    } cases[] = {{40, 8, 0, 0, 0},  {90, 16, 0, 1, 0}, {30, 5, 1, 0, 1}, {90, 16, 1, 1, 0},
                 {20, 3, 0, 0, 1},  {60, 24, 0, 1, 0}, {60, 24, 0, 1, 0}, {64, 5, 1, 0, 1}};
    const float *prev_x = NULL;
    uint32_t prev_cap = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rng_state = 500 + i;
        strata_mesh *g, *m;
        ck_assert_ok(strata_shape_grid(ctx, cases[i].cells, cases[i].cells, 0.1f, &g));
        m = with_heights(ctx, g, cases[i].integer ? h_integer : h_waves, (int)(i & 1));
        float L[24];
        const uint32_t n = cases[i].integer ? 5 : cases[i].n;
        if (cases[i].integer)
            memcpy(L, (const float[]){0, 1, 2, 3, 4}, sizeof(float) * 5);
        else
            uniform_levels(m, n, L);
        const strata_slice_options o = {L, n, (strata_walls)(i % 3), cases[i].normals,
                                         cases[i].areas};
        strata_result *fresh;
        ck_assert_ok(strata_slice(ctx, m, &o, &fresh));
        ck_assert_ok(strata_slice_into(ctx, m, &o, into));
        char what[32];
        snprintf(what, sizeof what, "slice %zu", i);
        same_result(fresh, into, what);
        strata_result_view v;
        strata_result_get_view(into, &v);
        if (prev_x && v.nverts <= prev_cap) /* room enough: the same array */
            require(v.x == prev_x, "slice %zu: %u vertices in room for %u: array replaced", i,
                    v.nverts, prev_cap);
        if (!prev_x || v.x != prev_x)
            prev_cap = v.nverts;
        prev_x = v.x;
        strata_result_destroy(fresh);
        strata_mesh_destroy(g);
        strata_mesh_destroy(m);
    }
    /* A planet into the same result. */
    strata_mesh *sphere;
    ck_assert_ok(strata_shape_icosphere(ctx, 4, 2.0f, &sphere));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.amplitude = 0.2f;
    ck_assert_ok(strata_displace_radial(ctx, sphere, &f, NULL));
    float L[6];
    ck_assert_ok(strata_levels_uniform(sphere, 6, NULL, L));
    const strata_slice_options o = {L, 6, STRATA_WALLS_UPPER, 1, 1};
    strata_result *fresh;
    ck_assert_ok(strata_slice(ctx, sphere, &o, &fresh));
    ck_assert_ok(strata_slice_into(ctx, sphere, &o, into));
    same_result(fresh, into, "planet");
    /* Bad arguments: INVALID_ARG, the result left empty. */
    ck_assert_status(strata_slice_into(ctx, NULL, &o, into), STRATA_ERR_INVALID_ARG);
    require_empty(into, "NULL mesh");
    ck_assert_ok(strata_slice_into(ctx, sphere, &o, into));
    ck_assert_status(strata_slice_into(ctx, sphere, NULL, into), STRATA_ERR_INVALID_ARG);
    require_empty(into, "NULL options");
    ck_assert_ok(strata_slice_into(ctx, sphere, &o, into));
    ck_assert_status(strata_slice_into(NULL, sphere, &o, into), STRATA_ERR_INVALID_ARG);
    require_empty(into, "NULL context");
    ck_assert_status(strata_slice_into(ctx, sphere, &o, NULL), STRATA_ERR_INVALID_ARG);
    const float bad[2] = {1, 0};
    ck_assert_status(strata_slice_into(ctx, sphere, &(strata_slice_options){bad, 2, 0, 0, 0}, into),
                     STRATA_ERR_BAD_LEVELS);
    require_empty(into, "bad levels");
    ck_assert_ok(strata_slice_into(ctx, sphere, &o, into));
    same_result(fresh, into, "planet after errors");
    strata_result *r2;
    ck_assert_status(strata_result_create(NULL, &r2), STRATA_ERR_INVALID_ARG);
    ck_assert_ptr_null(r2);
    ck_assert_status(strata_result_create(ctx, NULL), STRATA_ERR_INVALID_ARG);
    strata_result_destroy(fresh);
    strata_result_destroy(into);
    strata_mesh_destroy(sphere);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Property 9 for strata_slice_into: every allocation of a slice into a
 * new result (_i 0, 1) or into one already big enough (_i 2, 3: only the
 * scratch's small blocks are taken, its big ones are kept) failing in turn; random float heights (_i
 * even) or heights on planes (_i odd).  Each time NOMEM, the result left
 * empty with arena figures zero, then sliced into again to the bytes of
 * strata_slice, and nothing leaked once it is destroyed. */
START_TEST(test_slice_into_allocation_failing)
{
    test_alloc ta = {-1, 0, 0};
    strata_mesh *g, *m;
    float L[24];
    strata_slice_options o;
    strata_ctx *ctx = counted_grid(_i % 2, 50, &ta, &g, &m, L, &o); /* 2 chunks of pass A */
    const int warm = _i >= 2;
    strata_result *ref, *r;
    ck_assert_ok(strata_slice(ctx, m, &o, &ref));
    const long live = ta.live;
    ck_assert_ok(strata_result_create(ctx, &r));
    if (warm)
        ck_assert_ok(strata_slice_into(ctx, m, &o, r));
    ta.count = 0;
    ck_assert_ok(strata_slice_into(ctx, m, &o, r));
    const long nalloc = ta.count;
    strata_result_destroy(r);
    ck_assert_int_eq(ta.live, live);
    ck_assert_int_gt(nalloc, warm ? 0 : 20); /* warm: the scratch kept, small blocks taken */
    for (long k = 0; k < nalloc; k++) {
        ck_assert_ok(strata_result_create(ctx, &r));
        if (warm)
            require(strata_slice_into(ctx, m, &o, r) == STRATA_OK, "warming");
        ta.count = 0;
        ta.fail_at = k;
        const strata_status s = strata_slice_into(ctx, m, &o, r);
        ta.fail_at = -1;
        if (s != STRATA_OK || ta.count > k) { /* else threads took chunks differently */
            strata_arena_stats st;
            strata_ctx_arena_stats(ctx, &st);
            require(s == STRATA_ERR_NOMEM && st.arenas == 0 && st.bytes_reserved == 0,
                    "property 9: allocation %ld of %ld failing: %s, %u arenas", k, nalloc,
                    strata_status_str(s), st.arenas);
            require_empty(r, "after a failure");
            require(strata_slice_into(ctx, m, &o, r) == STRATA_OK, "again after a failure");
            same_result(ref, r, "again after a failure");
        }
        strata_result_destroy(r);
        require(ta.live == live, "property 9: allocation %ld of %ld failing: %ld blocks leaked", k,
                nalloc, ta.live - live);
    }
    strata_result_destroy(ref);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* strata_slice_into keeps the slicer's working memory with the result: a
 * slice into a warm result asks the allocator for no big block (only the
 * small pieces' blocks and staging lists), keeps no more than the slice
 * before, gives the same bytes; strata_result_trim hands the memory back
 * and the next slice takes it again.  _i: 1 or 2 threads (with 2, which
 * thread cuts which chunk changes how much arena each needs, so a warm
 * slice may still take a block: only the bytes and leaks are checked). */
START_TEST(test_slice_into_keeps_scratch)
{
    test_alloc ta = {-1, 0, 0};
    strata_mesh *g, *m;
    float L[24];
    strata_slice_options o;
    strata_ctx *ctx = counted_grid(0, 200, &ta, &g, &m, L, &o);
    ck_assert_ok(strata_ctx_set_threads(ctx, _i + 1));
    strata_result *ref, *r;
    ta.biggest = 0;
    ck_assert_ok(strata_slice(ctx, m, &o, &ref));
    const size_t cold_biggest = ta.biggest;
    const long live = ta.live;
    ck_assert_ok(strata_result_create(ctx, &r));
    ck_assert_ok(strata_slice_into(ctx, m, &o, r));
    ck_assert_ok(strata_slice_into(ctx, m, &o, r));
    const long warm_live = ta.live;
    ck_assert_int_gt(warm_live, live + 3); /* arrays, and scratch kept */
    ta.count = 0;
    ta.biggest = 0;
    ck_assert_ok(strata_slice_into(ctx, m, &o, r));
    same_result(ref, r, "warm");
    const int strict = _i == 0;
    if (strict) {
        ck_assert_int_eq(ta.live, warm_live);
        ck_assert_uint_gt(cold_biggest, (size_t)1 << 18); /* the per-edge table */
        ck_assert_uint_le(ta.biggest, ((size_t)64 << 10) + 64);
    }
    const long before_trim = ta.live;
    strata_result_trim(r);
    ck_assert_int_lt(ta.live, before_trim);
    same_result(ref, r, "trimmed");
    strata_result_trim(r); /* twice, and NULL: nothing */
    strata_result_trim(NULL);
    ta.biggest = 0;
    ck_assert_ok(strata_slice_into(ctx, m, &o, r));
    same_result(ref, r, "after a trim");
    ck_assert_uint_gt(ta.biggest, ((size_t)64 << 10) + 64); /* taken anew */
    if (strict)
        ck_assert_int_eq(ta.live, warm_live);
    strata_result_destroy(r);
    ck_assert_int_eq(ta.live, live);
    strata_result_destroy(ref);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Property 9 for strata_slice_into: a cancel at every progress report of
 * a slice into a result that already held a slice: CANCELLED, the result
 * left empty, then sliced into again to the bytes of strata_slice, and
 * nothing leaked. */
START_TEST(test_slice_into_cancel_anywhere)
{
    test_alloc ta = {-1, 0, 0};
    strata_mesh *g, *m;
    float L[24];
    strata_slice_options o;
    strata_ctx *ctx = counted_grid(_i, 100, &ta, &g, &m, L, &o); /* 3 chunks of pass A */
    o.normals = o.areas = 1; /* every phase has work */
    ck_assert_ok(strata_ctx_set_threads(ctx, 1));
    strata_result *ref, *r;
    ck_assert_ok(strata_slice(ctx, m, &o, &ref));
    const long live = ta.live;
    ck_assert_ok(strata_result_create(ctx, &r));
    ck_assert_ok(strata_slice_into(ctx, m, &o, r));
    strata_ctx_set_progress(ctx, cancel_on_report, NULL);
    cancel_at = -1;
    reports = 0;
    ck_assert_ok(strata_slice_into(ctx, m, &o, r));
    const int nreports = reports;
    ck_assert_int_ge(nreports, 7); /* the milestones */
    for (cancel_at = 0; cancel_at < nreports; cancel_at++) {
        reports = 0;
        const strata_status s = strata_slice_into(ctx, m, &o, r);
        strata_ctx_reset_cancel(ctx);
        require(s == STRATA_ERR_CANCELLED, "property 9: cancel at report %d of %d: %s", cancel_at,
                nreports, strata_status_str(s));
        require_empty(r, "after a cancel");
        const int at = cancel_at;
        cancel_at = -1;
        require(strata_slice_into(ctx, m, &o, r) == STRATA_OK, "again after a cancel");
        same_result(ref, r, "again after a cancel");
        cancel_at = at;
    }
    strata_result_destroy(r);
    ck_assert_int_eq(ta.live, live);
    strata_result_destroy(ref);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The progress milestones strata.h documents: each once, in order,
 * with every report of stage "slice" between 0 and 1 and never going back. */
static double prog_seen[4096];
static int prog_n;
static int record_progress(void *user, const char *stage, double done)
{
    (void)user;
    if (!strcmp(stage, "slice") && prog_n < 4096)
        prog_seen[prog_n++] = done;
    return 0;
}

START_TEST(test_progress_milestones)
{
    /* _i threads; reports within a pass come from the calling thread
     * alone, as it finishes blocks, so only with 1 thread are they sure:
     * with 2, the other may take every block while the machine holds the
     * caller back. */
    const int threads = 1 + _i;
    rng_state = 5;
    strata_ctx *ctx = ctx_new(threads);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 300, 300, 0.05f, &g));
    m = with_heights(ctx, g, h_waves, 0);
    float L[12];
    uniform_levels(m, 12, L);
    strata_slice_options o = slice_options(L, 12, STRATA_WALLS_UPPER, 1, 0);
    strata_result *res;
    strata_ctx_set_progress(ctx, record_progress, NULL);
    prog_n = 0;
    ck_assert_ok(strata_slice(ctx, m, &o, &res));
    static const double milestone[] = {0.0, 0.15, 0.3, 0.5, 0.6, 0.85, 1.0};
    int next = 0;
    for (int i = 0; i < prog_n; i++) {
        require(prog_seen[i] >= 0.0 && prog_seen[i] <= 1.0 && (i == 0 || prog_seen[i] >= prog_seen[i - 1]),
                "report %d: %g after %g", i, prog_seen[i], i ? prog_seen[i - 1] : -1.0);
        int hits = 0;
        for (int k = 0; k < 7; k++)
            hits += prog_seen[i] == milestone[k];
        if (hits) {
            require(next < 7 && prog_seen[i] == milestone[next], "milestone %g out of order",
                    prog_seen[i]);
            next++;
        }
    }
    ck_assert_int_eq(next, 7);
    if (threads == 1)
        ck_assert_int_gt(prog_n, 7); /* reports within the passes too */
    strata_result_destroy(res);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Property 8: areas are filled only when asked for; nothing else
 * changes. */
START_TEST(test_areas_optional)
{
    rng_state = 9;
    strata_ctx *ctx = ctx_new(2);
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 120, 110, 0.1f, &g));
    m = with_heights(ctx, g, h_waves, 0);
    float L[10];
    uniform_levels(m, 10, L);
    strata_result *res[2];
    for (int k = 0; k < 2; k++) {
        strata_slice_options o = slice_options(L, 10, STRATA_WALLS_SEPARATE, 1, k);
        ck_assert_ok(strata_slice(ctx, m, &o, &res[k]));
    }
    strata_result_view a, b;
    strata_result_get_view(res[0], &a);
    strata_result_get_view(res[1], &b);
    ck_assert_uint_eq(a.nverts, b.nverts);
    ck_assert_uint_eq(a.nindices, b.nindices);
    ck_assert_mem_eq(a.x, b.x, sizeof(float) * a.nverts);
    ck_assert_mem_eq(a.y, b.y, sizeof(float) * a.nverts);
    ck_assert_mem_eq(a.nz, b.nz, sizeof(float) * a.nverts);
    ck_assert_mem_eq(a.indices, b.indices, sizeof(uint32_t) * a.nindices);
    double roof = 0.0;
    for (uint32_t k = 0; k < a.nterraces; k++) {
        strata_terrace ta = a.terraces[k], tb = b.terraces[k];
        require(ta.roof_area == 0.0 && ta.wall_area == 0.0, "property 8: terrace %u: areas without asking", k);
        require(tb.roof_area > 0.0 && (k == 0 || tb.wall_area > 0.0), "property 8: terrace %u: no areas", k);
        roof += tb.roof_area;
        tb.roof_area = tb.wall_area = 0.0;
        require(!memcmp(&ta, &tb, sizeof ta), "property 8: terrace %u differs", k);
    }
    ck_assert_double_eq_tol(roof, 120 * 0.1 * 110 * 0.1, 1e-4); /* the grid's extent */
    strata_result_destroy(res[0]);
    strata_result_destroy(res[1]);
    strata_mesh_destroy(g);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

static Suite *slice_suite(void)
{
    Suite *s = suite_create("slice");
    TCase *tc = tcase_create("Flat");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_flat_waves, 0, 4);
    tcase_add_loop_test(tc, test_flat_random_shuffled, 0, 4);
    tcase_add_loop_test(tc, test_heights_on_planes, 0, 6);
    tcase_add_loop_test(tc, test_heights_near_planes, 0, 8);
    tcase_add_loop_test(tc, test_planet_near_planes, 0, 4);
    tcase_add_loop_test(tc, test_clean_by_position, 0, 8);
    tcase_add_test(tc, test_ramp_walls_face_downhill);
    tcase_add_test(tc, test_polygon_fan);
    tcase_add_test(tc, test_single_terrace_is_flat);
    suite_add_tcase(s, tc);
    tc = tcase_create("Planet");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_planet, 0, 4);
    suite_add_tcase(s, tc);
    tc = tcase_create("Output");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_same_bytes, 0, 2);
    tcase_add_test(tc, test_wall_modes_and_normals);
    tcase_add_test(tc, test_peak_a_hair_above_a_plane);
    tcase_add_test(tc, test_from_mesh);
    tcase_add_test(tc, test_arenas);
    tcase_add_loop_test(tc, test_every_allocation_failing, 0, 2);
    tcase_add_loop_test(tc, test_cancel_anywhere, 0, 2);
    tcase_add_loop_test(tc, test_progress_milestones, 0, 2);
    tcase_add_test(tc, test_areas_optional);
    tcase_add_test(tc, test_slice_into_same_bytes);
    tcase_add_loop_test(tc, test_slice_into_allocation_failing, 0, 4);
    tcase_add_loop_test(tc, test_slice_into_cancel_anywhere, 0, 2);
    tcase_add_loop_test(tc, test_slice_into_keeps_scratch, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("Limits");
    tcase_add_test(tc, test_levels_and_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(slice_suite()); }
