/* Suite "loops": edge loops (strata_loops_*) on grids whose
 * triangulation the test knows, so that it can interpolate the surface:
 *   - every polyline is closed or ends on the border;
 *   - every point is a wall's top corner, with its bits;
 *   - per plane, the polylines' lengths sum to the wall tops' lengths;
 *   - uphill on the right: heights sampled on both sides of every segment;
 *   - simple: no two segments of a plane cross, no polyline passes a
 *     point twice unless that point is a vertex lying on the plane;
 *   - integer heights on integer levels (vertices on planes everywhere)
 *     and a saddle exactly on a plane keep all of the above;
 *   - the same loops for 1, 2 and 3 threads and every instruction set;
 *   - strata_loops_write_heightmap: the bytes and stats of writing them;
 *   - planets: closed loops, uphill on the right seen from outside. */
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------ inputs */

#define N 40 /* grid cells per side */

/* A grid of N x N unit cells, vertex (i, j) at x = i, z = j, split along
 * the diagonal (i, j)-(i+1, j+1) into (v00, v01, v11) and (v00, v11, v10),
 * both counter-clockwise seen from above; heights from h[]. */
static strata_mesh *grid(strata_ctx *ctx, const float *h)
{
    const uint32_t w = N + 1;
    float *xyz = malloc(sizeof(float) * 3 * w * w);
    uint32_t *tri = malloc(sizeof(uint32_t) * 6 * N * N);
    for (uint32_t j = 0; j < w; j++)
        for (uint32_t i = 0; i < w; i++) {
            xyz[3 * (j * w + i)] = (float)i;
            xyz[3 * (j * w + i) + 1] = h[j * w + i];
            xyz[3 * (j * w + i) + 2] = (float)j;
        }
    uint32_t t = 0;
    for (uint32_t j = 0; j < N; j++)
        for (uint32_t i = 0; i < N; i++) {
            const uint32_t v00 = j * w + i, v10 = v00 + 1, v01 = v00 + w, v11 = v01 + 1;
            const uint32_t c[6] = {v00, v01, v11, v00, v11, v10};
            memcpy(tri + t, c, sizeof c);
            t += 6;
        }
    strata_mesh *m;
    ck_assert_ok(strata_mesh_create(ctx, xyz, w * w, tri, 2 * N * N, &m));
    free(xyz);
    free(tri);
    return m;
}

/* The grid's piecewise linear height at (x, z) inside it. */
static double height_at(const float *h, double x, double z)
{
    const uint32_t w = N + 1;
    int i = (int)floor(x), j = (int)floor(z);
    i = i < 0 ? 0 : i >= N ? N - 1 : i;
    j = j < 0 ? 0 : j >= N ? N - 1 : j;
    const double u = x - i, v = z - j;
    const double s00 = h[j * w + i], s10 = h[j * w + i + 1], s01 = h[(j + 1) * w + i],
                 s11 = h[(j + 1) * w + i + 1];
    return v >= u ? (1 - v) * s00 + (v - u) * s01 + u * s11
                  : (1 - u) * s00 + (u - v) * s10 + v * s11;
}

/* Heights: 0 smooth hills and pits (float), 1 the same rounded to
 * integers (vertices on integer planes everywhere), 2 a saddle whose
 * centre lies exactly on a plane. */
static void heights(int kind, float *h)
{
    const uint32_t w = N + 1;
    for (uint32_t j = 0; j < w; j++)
        for (uint32_t i = 0; i < w; i++) {
            const double x = i / (double)N, z = j / (double)N;
            double v = 6.0 * sin(7.1 * x + 0.3) * cos(5.3 * z - 0.2) + 3.0 * sin(13.7 * x * z) +
                       4.0 * x;
            if (kind == 2)
                v = ((double)i - N / 2) * ((double)i - N / 2) / 40.0 -
                    ((double)j - N / 2) * ((double)j - N / 2) / 40.0 + 2.0;
            h[j * w + i] = kind == 1 ? (float)floor(v + 0.5) : (float)v;
        }
}

static const float levels_float[] = {-9.5f, -6.25f, -3.0f, -0.1f, 0.0f, 1.5f, 3.3f, 6.0f, 9.75f};
static const float levels_int[] = {-12, -8, -5, -3, -2, -1, 0, 1, 2, 3, 5, 7, 9};

/* ------------------------------------------------------------ checks */

static strata_result *slice(strata_ctx *ctx, const strata_mesh *m, const float *L, uint32_t n,
                            strata_walls walls)
{
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = L;
    so.nlevels = n;
    so.walls = walls;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    return r;
}

static int on_border(float x, float z) { return x == 0.0f || x == N || z == 0.0f || z == N; }

/* Do segments (a, b) and (c, d) cross (properly, or overlap along a
 * stretch)?  Touching at an end is allowed. */
static int cross(const double *a, const double *b, const double *c, const double *d)
{
    const double d1 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    const double d2 = (b[0] - a[0]) * (d[1] - a[1]) - (b[1] - a[1]) * (d[0] - a[0]);
    const double d3 = (d[0] - c[0]) * (a[1] - c[1]) - (d[1] - c[1]) * (a[0] - c[0]);
    const double d4 = (d[0] - c[0]) * (b[1] - c[1]) - (d[1] - c[1]) * (b[0] - c[0]);
    if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)))
        return 1;
    if (d1 == 0 && d2 == 0) { /* collinear: overlapping interiors? */
        const int ax = fabs(b[0] - a[0]) > fabs(b[1] - a[1]) ? 0 : 1;
        double lo1 = fmin(a[ax], b[ax]), hi1 = fmax(a[ax], b[ax]);
        double lo2 = fmin(c[ax], d[ax]), hi2 = fmax(c[ax], d[ax]);
        return fmin(hi1, hi2) > fmax(lo1, lo2);
    }
    return 0;
}

static int cmp_f4(const void *pa, const void *pb)
{
    return memcmp(pa, pb, 4 * sizeof(float));
}

/* Every property of the file's header on the loops of a sliced grid;
 * returns the number of polylines. */
static uint64_t check_grid_loops(const float *h, const strata_result *r, const strata_loops *l)
{
    strata_result_view rv;
    strata_loops_view lv;
    strata_result_get_view(r, &rv);
    strata_loops_get_view(l, &lv);
    require_eq(lv.nplanes, rv.nterraces);
    require_eq(lv.plane_first[0], 0u);
    require_eq(lv.plane_first[lv.nplanes], lv.nloops);
    require_eq(lv.plane_first[1], 0u); /* plane 0: nothing */
    uint64_t npoints = 0;
    for (uint32_t k = 0; k < lv.nplanes; k++) {
        const float L = lv.levels[k];
        require_eq(L, rv.terraces[k].level);
        /* the wall tops' total length */
        double walls = 0.0;
        const strata_terrace *t = &rv.terraces[rv.walls == STRATA_WALLS_LOWER ? (k ? k - 1 : 0) : k];
        for (uint64_t q = 0; k > 0 && q < t->wall_count / 6; q++) {
            const uint32_t *ix = rv.indices + t->wall_first + 6 * q;
            const double dx = (double)rv.x[ix[5]] - rv.x[ix[2]],
                         dz = (double)rv.z[ix[5]] - rv.z[ix[2]];
            walls += sqrt(dx * dx + dz * dz);
        }
        double sum = 0.0;
        uint64_t nseg = 0;
        for (uint64_t li = lv.plane_first[k]; li < lv.plane_first[k + 1]; li++) {
            const strata_loop *lp = &lv.loops[li];
            require_eq(lp->plane, k);
            npoints += lp->count;
            require(lp->count >= (lp->closed ? 3u : 2u), "loop %llu: %u points",
                    (unsigned long long)li, lp->count);
            sum += lp->length;
            double len = 0.0, area = 0.0;
            const uint32_t nseg_l = lp->closed ? lp->count : lp->count - 1;
            nseg += nseg_l;
            for (uint32_t i = 0; i < lp->count; i++) {
                const uint64_t p = lp->first + i;
                /* a vertex lying on the plane, or none */
                require(lv.vertex[p] == UINT32_MAX ||
                            (lv.vertex[p] < rv.nverts && lv.x[p] == rv.x[lv.vertex[p]] &&
                             lv.z[p] == rv.z[lv.vertex[p]] && lv.y[p] == rv.y[lv.vertex[p]]),
                        "point %llu: vertex %u", (unsigned long long)p, lv.vertex[p]);
                require(lv.y[p] == L, "point %llu at %.9g, plane %.9g", (unsigned long long)p,
                        lv.y[p], L);
            }
            if (!lp->closed) {
                const uint64_t a = lp->first, b = lp->first + lp->count - 1;
                require(on_border(lv.x[a], lv.z[a]) && on_border(lv.x[b], lv.z[b]),
                        "open polyline %llu ends inside", (unsigned long long)li);
            }
            for (uint32_t i = 0; i < nseg_l; i++) {
                const uint64_t p = lp->first + i, q = lp->first + (i + 1) % lp->count;
                const double dx = (double)lv.x[q] - lv.x[p], dz = (double)lv.z[q] - lv.z[p];
                const double d = sqrt(dx * dx + dz * dz);
                require(d > 0.0, "loop %llu: a zero-length segment", (unsigned long long)li);
                len += d;
                area += 0.5 * ((double)lv.z[p] * lv.x[q] - (double)lv.x[p] * lv.z[q]);
                /* uphill on the right: in (x, -z) seen from above, the
                 * right of direction (dx, -dz) is (-dz, -dx) in (x, -z),
                 * i.e. (x, z) + e (-dz, dx) / d */
                const double mx = 0.5 * ((double)lv.x[p] + lv.x[q]),
                             mz = 0.5 * ((double)lv.z[p] + lv.z[q]);
                const double e = 1e-3;
                const double rx = mx - e * dz / d, rz = mz + e * dx / d;
                const double lx = mx + e * dz / d, lz = mz - e * dx / d;
                if (rx > 0 && rx < N && rz > 0 && rz < N && lx > 0 && lx < N && lz > 0 && lz < N)
                    require(height_at(h, rx, rz) >= L && height_at(h, lx, lz) <= L,
                            "plane %u loop %llu segment %u: right %.9g left %.9g level %.9g", k,
                            (unsigned long long)li, i, height_at(h, rx, rz),
                            height_at(h, lx, lz), L);
            }
            require(fabs(len - lp->length) <= 1e-9 * (1 + len), "length %.17g vs %.17g", len,
                    lp->length);
            if (lp->closed)
                require(fabs(area - lp->area) <= 1e-9 * (1 + fabs(area)), "area %.17g vs %.17g",
                        area, lp->area);
            else
                require_eq(lp->area, 0.0);
        }
        require(fabs(sum - walls) <= 1e-9 * (1 + walls), "plane %u: loops %.17g, wall tops %.17g",
                k, sum, walls);
        /* every segment is a wall's top edge, bits and all, and back */
        {
            const uint64_t nq = k > 0 ? t->wall_count / 6 : 0;
            float(*wq)[4] = malloc(sizeof *wq * (nq ? nq : 1));
            float(*ls)[4] = malloc(sizeof *ls * (nq ? nq : 1));
            for (uint64_t q = 0; q < nq; q++) {
                const uint32_t *ix = rv.indices + t->wall_first + 6 * q;
                const float w4[4] = {rv.x[ix[2]], rv.z[ix[2]], rv.x[ix[5]], rv.z[ix[5]]};
                memcpy(wq[q], w4, sizeof w4);
            }
            uint64_t ns = 0;
            for (uint64_t li = lv.plane_first[k]; li < lv.plane_first[k + 1]; li++) {
                const strata_loop *lp = &lv.loops[li];
                for (uint32_t i = 0; i < (lp->closed ? lp->count : lp->count - 1); i++) {
                    const uint64_t p = lp->first + i, q = lp->first + (i + 1) % lp->count;
                    require(ns < nq, "plane %u: more segments than walls", k);
                    const float s4[4] = {lv.x[p], lv.z[p], lv.x[q], lv.z[q]};
                    memcpy(ls[ns++], s4, sizeof s4);
                }
            }
            require(ns == nq, "plane %u: %llu segments, %llu walls", k, (unsigned long long)ns,
                    (unsigned long long)nq);
            qsort(wq, nq, sizeof *wq, cmp_f4);
            qsort(ls, ns, sizeof *ls, cmp_f4);
            require(!memcmp(wq, ls, nq * sizeof *wq), "plane %u: segments are not the wall tops", k);
            free(wq);
            free(ls);
        }
        /* simple: no two segments of the plane cross (all pairs: small) */
        double (*seg)[4] = malloc(sizeof *seg * (nseg ? nseg : 1));
        uint64_t s = 0;
        for (uint64_t li = lv.plane_first[k]; li < lv.plane_first[k + 1]; li++) {
            const strata_loop *lp = &lv.loops[li];
            for (uint32_t i = 0; i < (lp->closed ? lp->count : lp->count - 1); i++) {
                const uint64_t p = lp->first + i, q = lp->first + (i + 1) % lp->count;
                seg[s][0] = lv.x[p];
                seg[s][1] = lv.z[p];
                seg[s][2] = lv.x[q];
                seg[s][3] = lv.z[q];
                s++;
            }
        }
        for (uint64_t i = 0; i < nseg; i++)
            for (uint64_t j = i + 1; j < nseg; j++)
                require(!cross(seg[i], seg[i] + 2, seg[j], seg[j] + 2),
                        "plane %u: segments %llu and %llu cross", k, (unsigned long long)i,
                        (unsigned long long)j);
        free(seg);
    }
    require_eq(npoints, lv.npoints);
    return lv.nloops;
}

/* --------------------------------------------------------------- tests */

static const char *const kinds[] = {"float hills", "integer heights", "saddle on a plane"};

START_TEST(test_grid_loops)
{
    strata_ctx *ctx;
    ck_assert_ok(strata_ctx_create(NULL, &ctx));
    float h[(N + 1) * (N + 1)];
    heights(_i, h);
    strata_mesh *m = grid(ctx, h);
    const float *L = _i == 0 ? levels_float : levels_int;
    const uint32_t n = _i == 0 ? sizeof levels_float / sizeof *levels_float
                               : sizeof levels_int / sizeof *levels_int;
    uint64_t nloops = 0;
    for (int w = 0; w < 3; w++) {
        strata_result *r = slice(ctx, m, L, n, (strata_walls)w);
        strata_loops *l;
        ck_assert_ok(strata_loops_from_result(ctx, r, &l));
        const uint64_t got = check_grid_loops(h, r, l);
        if (w == 0)
            nloops = got;
        require(got == nloops && got > 3, "%s, walls %d: %llu polylines", kinds[_i], w,
                (unsigned long long)got);
        strata_loops_destroy(l);
        strata_result_destroy(r);
    }
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The same loops from the mesh directly, for any thread count and ISA. */
START_TEST(test_same_loops)
{
    strata_ctx *ctx;
    ck_assert_ok(strata_ctx_create(NULL, &ctx));
    float h[(N + 1) * (N + 1)];
    heights(_i, h);
    strata_mesh *m = grid(ctx, h);
    const float *L = _i == 0 ? levels_float : levels_int;
    const uint32_t n = _i == 0 ? sizeof levels_float / sizeof *levels_float
                               : sizeof levels_int / sizeof *levels_int;
    strata_loops *ref = NULL;
    strata_loops_view rv;
    for (int isa = 0; isa < STRATA_ISA_COUNT_; isa++) {
        if (!(strata_cpu_isas() & STRATA_ISA_BIT(isa)))
            continue;
        ck_assert_ok(strata_ctx_set_isa(ctx, (strata_isa)isa));
        for (int threads = 1; threads <= 3; threads++) {
            ck_assert_ok(strata_ctx_set_threads(ctx, threads));
            strata_loops *l;
            ck_assert_ok(strata_loops_from_mesh(ctx, m, L, n, &l));
            if (!ref) {
                ref = l;
                strata_loops_get_view(ref, &rv);
                continue;
            }
            strata_loops_view v;
            strata_loops_get_view(l, &v);
            require(v.nloops == rv.nloops && v.npoints == rv.npoints &&
                        !memcmp(v.loops, rv.loops, v.nloops * sizeof *v.loops) &&
                        !memcmp(v.x, rv.x, v.npoints * 4) && !memcmp(v.y, rv.y, v.npoints * 4) &&
                        !memcmp(v.z, rv.z, v.npoints * 4) &&
                        !memcmp(v.vertex, rv.vertex, v.npoints * 4),
                    "%s: isa %d, %d threads: other loops", kinds[_i], isa, threads);
            strata_loops_destroy(l);
        }
    }
    strata_loops_destroy(ref);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A single hill: one clockwise loop per plane inside it, of the area the
 * cone's cross-section has. */
START_TEST(test_hill_orientation)
{
    strata_ctx *ctx;
    ck_assert_ok(strata_ctx_create(NULL, &ctx));
    float h[(N + 1) * (N + 1)];
    for (int j = 0; j <= N; j++)
        for (int i = 0; i <= N; i++)
            h[j * (N + 1) + i] = 100.0f - (float)hypot(i - N / 2 + 0.3, j - N / 2 + 0.1);
    strata_mesh *m = grid(ctx, h);
    const float L[] = {0.0f, 90.5f, 95.5f};
    strata_loops *l;
    ck_assert_ok(strata_loops_from_mesh(ctx, m, L, 3, &l));
    strata_loops_view v;
    strata_loops_get_view(l, &v);
    ck_assert_uint_eq(v.nloops, 2);
    for (int k = 1; k <= 2; k++) {
        const strata_loop *lp = &v.loops[v.plane_first[k]];
        ck_assert_uint_eq(v.plane_first[k + 1] - v.plane_first[k], 1);
        ck_assert_int_eq(lp->closed, 1);
        const double rad = 100.0 - L[k];
        ck_assert_msg(lp->area < 0 && fabs(-lp->area - M_PI * rad * rad) < 0.05 * M_PI * rad * rad,
                      "plane %d: area %g, circle %g", k, lp->area, M_PI * rad * rad);
        ck_assert_msg(fabs(lp->length - 2 * M_PI * rad) < 0.05 * 2 * M_PI * rad, "length %g",
                      lp->length);
    }
    strata_loops_destroy(l);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Planets: closed loops only, points on their sphere, uphill on the
 * right seen from outside (the vertex beyond each segment's right side
 * is the higher end of the cut edge: checked through the signed volume). */
START_TEST(test_planet_loops)
{
    strata_ctx *ctx;
    ck_assert_ok(strata_ctx_create(NULL, &ctx));
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, 4, 1.0f, &m));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.amplitude = 0.1f;
    f.frequency = 1.5f;
    ck_assert_ok(strata_displace_radial(ctx, m, &f, NULL));
    float L[8];
    ck_assert_ok(strata_levels_uniform(m, 8, NULL, L));
    strata_loops *l;
    ck_assert_ok(strata_loops_from_mesh(ctx, m, L, 8, &l));
    strata_loops_view v;
    strata_loops_get_view(l, &v);
    ck_assert_uint_gt(v.nloops, 3);
    double total_area = 0.0;
    for (uint64_t i = 0; i < v.nloops; i++) {
        const strata_loop *lp = &v.loops[i];
        require(lp->closed, "planet loop %llu open", (unsigned long long)i);
        for (uint32_t j = 0; j < lp->count; j++) {
            const uint64_t p = lp->first + j;
            const double r = sqrt((double)v.x[p] * v.x[p] + (double)v.y[p] * v.y[p] +
                                  (double)v.z[p] * v.z[p]);
            require(fabs(r - (1.0 + v.levels[lp->plane])) < 1e-5, "point off its sphere");
        }
        total_area += lp->area;
    }
    (void)total_area;
    /* Orientation: each plane's loops bound the region above it on their
     * right.  On a sphere the region above plane k and the one below add
     * up to the sphere; the loops' areas seen from outside: the sum over
     * a plane of (area) is minus the area of the region above projected,
     * checked loosely through the highest plane's loops, which circle
     * peaks: clockwise from outside (negative area). */
    const uint32_t top = v.nplanes - 1;
    for (uint64_t i = v.plane_first[top]; i < v.plane_first[top + 1]; i++)
        require(v.loops[i].area < 0, "top plane loop %llu: area %g around a peak",
                (unsigned long long)i, v.loops[i].area);
    strata_loops_destroy(l);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_errors)
{
    strata_ctx *ctx;
    ck_assert_ok(strata_ctx_create(NULL, &ctx));
    float h[(N + 1) * (N + 1)];
    heights(0, h);
    strata_mesh *m = grid(ctx, h);
    strata_loops *l = (strata_loops *)1;
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = levels_float;
    so.nlevels = 3;
    so.normals = 1;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    ck_assert_status(strata_loops_from_result(ctx, r, &l), STRATA_ERR_INVALID_ARG);
    ck_assert_ptr_null(l);
    ck_assert_status(strata_loops_from_result(NULL, r, &l), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_loops_from_result(ctx, NULL, &l), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_loops_from_mesh(ctx, m, levels_float, 0, &l), STRATA_ERR_BAD_LEVELS);
    const float bad[] = {1.0f, 0.0f};
    ck_assert_status(strata_loops_from_mesh(ctx, m, bad, 2, &l), STRATA_ERR_BAD_LEVELS);
    ck_assert_ptr_null(l);
    strata_loops_view v;
    strata_loops_get_view(NULL, &v);
    ck_assert_uint_eq(v.nloops, 0);
    strata_loops_destroy(NULL);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A PFM in memory of w x h samples, rows top first (PFM stores them
 * bottom first). */
static strata_heightmap *pfm(strata_ctx *ctx, uint32_t w, uint32_t h, const float *v)
{
    char head[64];
    const int n = snprintf(head, sizeof head, "Pf\n%u %u\n-1.0\n", w, h);
    const size_t len = (size_t)n + 4u * w * h;
    unsigned char *buf = malloc(len);
    memcpy(buf, head, (size_t)n);
    for (uint32_t j = 0; j < h; j++)
        memcpy(buf + n + 4u * w * (h - 1 - j), v + (size_t)j * w, 4u * w);
    strata_heightmap *hm;
    ck_assert_ok(strata_heightmap_decode(ctx, buf, len, &hm));
    free(buf);
    return hm;
}

/* The same samples as a PFM file at path, rows bottom up. */
static void pfm_file(const char *path, uint32_t w, uint32_t h, const float *v)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "Pf\n%u %u\n-1.0\n", w, h);
    for (uint32_t j = h; j-- > 0;)
        ck_assert_uint_eq(fwrite(v + (size_t)j * w, sizeof(float), w, f), w);
    ck_assert_int_eq(fclose(f), 0);
}

/* Paths in dir (4096 bytes each): the reference and the written GeoJSON,
 * and the PFM. */
static void scratch_paths(const char *dir, char *ref, char *got, char *pfm_path)
{
    snprintf(ref, 4096, "%s/ref.geojson", dir);
    snprintf(got, 4096, "%s/got.geojson", dir);
    snprintf(pfm_path, 4096, "%s/dem.pfm", dir);
}

static void same_loops(const strata_loops *a, const strata_loops *b, const char *what)
{
    strata_loops_view u, v;
    strata_loops_get_view(a, &u);
    strata_loops_get_view(b, &v);
    require(u.nplanes == v.nplanes && u.nloops == v.nloops && u.npoints == v.npoints,
            "%s: %llu vs %llu polylines, %llu vs %llu points", what,
            (unsigned long long)u.nloops, (unsigned long long)v.nloops,
            (unsigned long long)u.npoints, (unsigned long long)v.npoints);
    require(!memcmp(u.plane_first, v.plane_first, (u.nplanes + 1) * sizeof(uint64_t)),
            "%s: other planes", what);
    for (uint64_t i = 0; i < u.nloops; i++) {
        const strata_loop *p = &u.loops[i], *q = &v.loops[i];
        require(p->plane == q->plane && p->closed == q->closed && p->count == q->count &&
                    p->length == q->length && p->area == q->area,
                "%s: polyline %llu differs", what, (unsigned long long)i);
        require(!memcmp(u.x + p->first, v.x + q->first, 4u * p->count) &&
                    !memcmp(u.y + p->first, v.y + q->first, 4u * p->count) &&
                    !memcmp(u.z + p->first, v.z + q->first, 4u * p->count) &&
                    !memcmp(u.vertex + p->first, v.vertex + q->first, 4u * p->count),
                "%s: polyline %llu has other points", what, (unsigned long long)i);
    }
}

/* strata_loops_from_heightmap = strata_loops_from_mesh of the mesh
 * strata_mesh_from_heightmap makes, byte for byte, on the heights above,
 * on random integers (vertices on planes, saddles, fins, plateaus) and
 * with 1 to 3 threads and the scalar kernels. */
START_TEST(test_from_heightmap)
{
    strata_ctx *ctx;
    ck_assert_ok(strata_ctx_create(NULL, &ctx));
    uint64_t rng = 0x9e3779b97f4a7c15ull * (uint64_t)(_i + 1);
    for (int round = 0; round < 12; round++) {
        const uint32_t w = round < 3 ? N + 1 : 5 + (uint32_t)(rng >> 59) % 23u;
        const uint32_t h = round < 3 ? N + 1 : 4 + (uint32_t)(rng >> 40) % 19u;
        float *v = malloc(sizeof(float) * w * h);
        if (round < 3) {
            heights(round, v);
        } else {
            const uint32_t top = 1 + round % 4;
            for (uint32_t i = 0; i < w * h; i++) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                v[i] = (float)((rng >> 33) % (top + 1));
            }
        }
        strata_heightmap *hm = pfm(ctx, w, h, v);
        const float Lr[] = {-0.5f, 0.0f, 1.0f, 2.0f, 3.0f, 3.5f, 4.0f};
        const float *L = round == 0 ? levels_float : round < 3 ? levels_int : Lr;
        const uint32_t n = round == 0   ? sizeof levels_float / sizeof *levels_float
                           : round < 3 ? sizeof levels_int / sizeof *levels_int
                                       : sizeof Lr / sizeof *Lr;
        const float cell = round % 2 ? 1.0f : 0.3f, scale = round % 3 ? 1.0f : 2.5f;
        strata_mesh *m;
        ck_assert_ok(strata_mesh_from_heightmap(ctx, hm, cell, scale, &m));
        ck_assert_ok(strata_ctx_set_threads(ctx, 1));
        strata_loops *ref, *l;
        ck_assert_ok(strata_loops_from_mesh(ctx, m, L, n, &ref));
        for (int t = 1; t <= 4; t++) {
            /* 1 to 3 threads, then the scalar kernels */
            ck_assert_ok(strata_ctx_set_threads(ctx, t < 4 ? t : 2));
            ck_assert_ok(strata_ctx_set_isa(ctx, t < 4 ? STRATA_ISA_AUTO : STRATA_ISA_SCALAR));
            ck_assert_ok(strata_loops_from_heightmap(ctx, hm, cell, scale, L, n, &l));
            char what[64];
            snprintf(what, sizeof what, "round %d, %ux%u, %s", round, w, h,
                     t < 4 ? (t == 1 ? "1 thread" : t == 2 ? "2 threads" : "3 threads")
                           : "scalar");
            same_loops(ref, l, what);
            strata_loops_destroy(l);
        }
        ck_assert_ok(strata_ctx_set_isa(ctx, STRATA_ISA_AUTO));
        strata_loops_destroy(ref);
        strata_mesh_destroy(m);
        strata_heightmap_destroy(hm);
        free(v);
    }
    strata_ctx_destroy(ctx);
}
END_TEST

/* strata_loops_write_heightmap writes the bytes strata_loops_write
 * writes for strata_loops_from_heightmap's loops, and its stats are
 * theirs: heightmaps tall enough for several strips of rows, in memory
 * and opened (read from their file a strip at a time), 1 to 3 threads;
 * and those loops are strata_loops_from_mesh's.  Errors leave no file. */
START_TEST(test_write_heightmap)
{
    strata_ctx *ctx;
    ck_assert_ok(strata_ctx_create(NULL, &ctx));
    char *dir = tmpdir_new();
    char ref_path[4096], got_path[4096], pfm_path[4096];
    scratch_paths(dir, ref_path, got_path, pfm_path);
    uint64_t rng = 0x2545f4914f6cdd1dull;
    for (int round = 0; round < 4; round++) {
        const uint32_t w = 30 + 17 * (uint32_t)round, h = 70 + 23 * (uint32_t)round;
        float *v = malloc(sizeof(float) * w * h);
        for (uint32_t j = 0; j < h; j++)
            for (uint32_t i = 0; i < w; i++) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                const float smooth = 6.0f * sinf(0.21f * (float)i) * cosf(0.13f * (float)j) +
                                     0.05f * (float)j;
                /* round 1: integers, so that vertices lie on the levels */
                v[j * w + i] = round == 1 ? (float)(int)smooth
                                          : smooth + 0.3f * (float)((rng >> 40) % 7);
            }
        pfm_file(pfm_path, w, h, v);
        const float L[] = {-20.0f, -4.0f, -2.0f, -1.0f, 0.0f, 0.5f, 1.0f, 2.0f, 3.0f, 5.0f, 7.0f};
        const uint32_t n = sizeof L / sizeof *L;
        const float cell = round % 2 ? 1.0f : 0.5f, scale = round == 3 ? 1.5f : 1.0f;
        strata_loops_write_options wo;
        strata_loops_write_defaults(&wo);
        wo.origin[0] = 3.25;
        wo.origin[1] = 100.0;
        strata_heightmap *mem = pfm(ctx, w, h, v), *opened;
        ck_assert_ok(strata_heightmap_open(ctx, pfm_path, &opened));
        ck_assert_ptr_null(strata_heightmap_data(opened));
        ck_assert_ok(strata_ctx_set_threads(ctx, 1));
        strata_mesh *m;
        strata_loops *ref, *l;
        ck_assert_ok(strata_mesh_from_heightmap(ctx, mem, cell, scale, &m));
        ck_assert_ok(strata_loops_from_mesh(ctx, m, L, n, &ref));
        ck_assert_ok(strata_loops_write(ctx, ref, ref_path, &wo));
        size_t rlen, glen;
        unsigned char *rb = slurp(ref_path, &rlen);
        strata_loops_view rv;
        strata_loops_get_view(ref, &rv);
        for (int t = 1; t <= 3; t++)
            for (int src = 0; src < 2; src++) {
                const strata_heightmap *hm = src ? opened : mem;
                ck_assert_ok(strata_ctx_set_threads(ctx, t));
                ck_assert_ok(strata_loops_from_heightmap(ctx, hm, cell, scale, L, n, &l));
                char what[64];
                snprintf(what, sizeof what, "round %d, %ux%u, %d threads, %s", round, w, h, t,
                         src ? "opened" : "in memory");
                same_loops(ref, l, what);
                strata_loops_destroy(l);
                double len[sizeof L / sizeof *L];
                uint64_t closed[sizeof L / sizeof *L], open[sizeof L / sizeof *L];
                strata_loops_stats st = {7, 7, len, closed, open};
                ck_assert_ok(strata_loops_write_heightmap(ctx, hm, cell, scale, L, n, got_path,
                                                          &wo, &st));
                unsigned char *gb = slurp(got_path, &glen);
                require(glen == rlen && !memcmp(gb, rb, rlen), "%s: other bytes", what);
                free(gb);
                require(st.nloops == rv.nloops && st.npoints == rv.npoints, "%s: counts", what);
                for (uint32_t k = 0; k < n; k++) {
                    double sl = 0;
                    uint64_t c = 0, o = 0;
                    for (uint64_t i = rv.plane_first[k]; i < rv.plane_first[k + 1]; i++) {
                        sl += rv.loops[i].length;
                        c += rv.loops[i].closed != 0;
                        o += rv.loops[i].closed == 0;
                    }
                    require(len[k] == sl && closed[k] == c && open[k] == o,
                            "%s: plane %u stats", what, k);
                }
            }
        free(rb);
        ck_assert_uint_gt(rv.nloops, 0);
        /* errors: no file */
        remove(got_path);
        wo.polygons = 1;
        ck_assert_status(
            strata_loops_write_heightmap(ctx, mem, cell, scale, L, n, got_path, &wo, NULL),
            STRATA_ERR_INVALID_ARG);
        wo.polygons = 0;
        char svg[4096];
        snprintf(svg, sizeof svg, "%s/x.svg", dir);
        ck_assert_status(strata_loops_write_heightmap(ctx, mem, cell, scale, L, n, svg, &wo, NULL),
                         STRATA_ERR_INVALID_ARG);
        const float bad[] = {1.0f, 0.5f};
        ck_assert_status(
            strata_loops_write_heightmap(ctx, mem, cell, scale, bad, 2, got_path, &wo, NULL),
            STRATA_ERR_BAD_LEVELS);
        ck_assert_status(strata_loops_write_heightmap(ctx, mem, cell, INFINITY, L, n, got_path,
                                                      &wo, NULL),
                         STRATA_ERR_INVALID_ARG);
        ck_assert_status(strata_loops_write_heightmap(ctx, mem, cell, 1e38f, L, n, got_path, &wo,
                                                      NULL),
                         STRATA_ERR_NOT_FINITE);
        int temps;
        ck_assert_int_eq(dir_entries(dir, &temps), 2); /* ref.geojson, dem.pfm */
        ck_assert_int_eq(temps, 0);
        strata_loops_destroy(ref);
        strata_mesh_destroy(m);
        strata_heightmap_destroy(mem);
        strata_heightmap_destroy(opened);
        free(v);
    }
    tmpdir_remove(dir);
    strata_ctx_destroy(ctx);
}
END_TEST

static int cmp_float(const void *pa, const void *pb)
{
    const float a = *(const float *)pa, b = *(const float *)pb;
    return a < b ? -1 : a > b;
}

/* The next of a linear congruential sequence, its high bits. */
static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 11;
}

/* x moved by d ulps (d < 0: down). */
static float nudge(float x, int d)
{
    for (; d > 0; d--)
        x = nextafterf(x, INFINITY);
    for (; d < 0; d++)
        x = nextafterf(x, -INFINITY);
    return x;
}

/* Samples within rounding of the levels, where the slicer snaps vertices
 * onto planes (slice_onplane.h: a crossing computed on an edge would round
 * onto its end): strata_loops_from_heightmap and the streamed writer still
 * give strata_loops_from_mesh's loops and strata_loops_write's bytes, for
 * 1 to 3 threads, the scalar kernels, in memory and opened.  Heightmaps
 * tall enough for several strips of rows (a vertex snaps by its edges to
 * the rows above and below), wide enough that a crossing a few ulps of
 * height from an end rounds onto it:
 *   _i 0, 1: random heights, 40% of them 0 to 4 ulps above or below a
 *            level, cell 1 and 0.37;
 *   _i 2:    integer samples times 0.1 (a non-power-of-two scale) on
 *            levels at decimal tenths, a hair off k x 0.1f;
 *   _i 3:    levels each a few ulps from some scaled sample, scale 0.7.
 * The snapping must be seen: some points are vertices lying off their
 * plane (snapped), so dropping it from either side fails. */
START_TEST(test_near_levels)
{
    strata_ctx *ctx;
    ck_assert_ok(strata_ctx_create(NULL, &ctx));
    char *dir = tmpdir_new();
    char ref_path[4096], got_path[4096], pfm_path[4096];
    scratch_paths(dir, ref_path, got_path, pfm_path);
    uint64_t rng = 0x6a09e667f3bcc909ull * (uint64_t)(_i + 1);
    uint64_t snapped = 0;
    for (int round = 0; round < 3; round++) {
        const uint32_t w = 40 + 13 * (uint32_t)round + 5 * (uint32_t)_i;
        const uint32_t h = 70 + 11 * (uint32_t)round;
        float *v = malloc(sizeof(float) * w * h);
        float L[41]; /* _i 2, round 0: 41 levels, -2 to 2 */
        uint32_t n = 0;
        float cell = _i == 1 ? 0.37f : 1.0f, scale = 1.0f;
        if (_i < 2) {
            n = 12 + 14 * (uint32_t)round;
            ck_assert_ok(strata_levels_range(-2.0f, 2.0f, n, NULL, L));
            for (uint32_t i = 0; i < w * h; i++) {
                v[i] = (float)((double)(lcg(&rng) % 4001) / 1000.0 - 2.0);
                if (lcg(&rng) % 10 < 4) {
                    const float at = L[lcg(&rng) % n];
                    v[i] = nudge(at, (int)(lcg(&rng) % 9) - 4);
                }
            }
        } else if (_i == 2) {
            scale = 0.1f;
            for (int k = -20; k <= 20; k += 1 + round)
                L[n++] = (float)(k / 10.0);
            for (uint32_t i = 0; i < w * h; i++)
                v[i] = (float)((int)(lcg(&rng) % 41) - 20);
        } else {
            scale = 0.7f;
            cell = round == 1 ? 0.5f : 3.0f;
            for (uint32_t i = 0; i < w * h; i++)
                v[i] = (float)((double)(lcg(&rng) % 2001) / 100.0 - 10.0);
            for (int k = 0; k < 40; k++) {
                const float at = v[lcg(&rng) % (w * h)] * scale;
                L[k] = nudge(at, (int)(lcg(&rng) % 7) - 3);
            }
            qsort(L, 40, sizeof(float), cmp_float);
            for (int k = 0; k < 40; k++)
                if (n == 0 || L[k] > L[n - 1])
                    L[n++] = L[k];
        }
        pfm_file(pfm_path, w, h, v);
        strata_heightmap *mem = pfm(ctx, w, h, v), *opened;
        ck_assert_ok(strata_heightmap_open(ctx, pfm_path, &opened));
        strata_mesh *m;
        strata_loops *ref, *l;
        ck_assert_ok(strata_ctx_set_threads(ctx, 1));
        ck_assert_ok(strata_mesh_from_heightmap(ctx, mem, cell, scale, &m));
        ck_assert_ok(strata_loops_from_mesh(ctx, m, L, n, &ref));
        strata_loops_write_options wo;
        strata_loops_write_defaults(&wo);
        ck_assert_ok(strata_loops_write(ctx, ref, ref_path, &wo));
        size_t rlen, glen;
        unsigned char *rb = slurp(ref_path, &rlen);
        strata_loops_view rv;
        strata_loops_get_view(ref, &rv);
        for (uint64_t i = 0; i < rv.nloops; i++)
            for (uint64_t p = rv.loops[i].first; p < rv.loops[i].first + rv.loops[i].count; p++)
                snapped += rv.vertex[p] != UINT32_MAX && v[rv.vertex[p]] * scale != rv.y[p];
        for (int t = 1; t <= 4; t++)
            for (int src = 0; src < 2; src++) {
                const strata_heightmap *hm = src ? opened : mem;
                ck_assert_ok(strata_ctx_set_threads(ctx, t < 4 ? t : 2));
                ck_assert_ok(strata_ctx_set_isa(ctx, t < 4 ? STRATA_ISA_AUTO : STRATA_ISA_SCALAR));
                char what[96];
                snprintf(what, sizeof what, "case %d round %d, %ux%u, %d threads%s, %s", _i,
                         round, w, h, t < 4 ? t : 2, t < 4 ? "" : " scalar",
                         src ? "opened" : "in memory");
                ck_assert_ok(strata_loops_from_heightmap(ctx, hm, cell, scale, L, n, &l));
                same_loops(ref, l, what);
                strata_loops_destroy(l);
                ck_assert_ok(strata_loops_write_heightmap(ctx, hm, cell, scale, L, n, got_path,
                                                          &wo, NULL));
                unsigned char *gb = slurp(got_path, &glen);
                require(glen == rlen && !memcmp(gb, rb, rlen), "%s: other bytes", what);
                free(gb);
            }
        ck_assert_ok(strata_ctx_set_isa(ctx, STRATA_ISA_AUTO));
        free(rb);
        strata_loops_destroy(ref);
        strata_mesh_destroy(m);
        strata_heightmap_destroy(mem);
        strata_heightmap_destroy(opened);
        free(v);
    }
    ck_assert_uint_gt(snapped, 0);
    tmpdir_remove(dir);
    strata_ctx_destroy(ctx);
}
END_TEST

static Suite *loops_suite(void)
{
    Suite *s = suite_create("loops");
    TCase *tc = tcase_create("Core");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_grid_loops, 0, 3);
    tcase_add_loop_test(tc, test_same_loops, 0, 3);
    tcase_add_test(tc, test_hill_orientation);
    tcase_add_test(tc, test_planet_loops);
    tcase_add_test(tc, test_errors);
    tcase_add_loop_test(tc, test_from_heightmap, 0, 4);
    tcase_add_test(tc, test_write_heightmap);
    tcase_add_loop_test(tc, test_near_levels, 0, 4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(loops_suite()); }
