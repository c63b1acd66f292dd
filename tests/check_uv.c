/* Texture coordinates (strata_result_add_uv): roofs at position over the
 * texel exactly, walls with vertices of their own whose U runs along the
 * wall's top without a jump at any shared position, V the height below
 * the top; the same bytes for any thread count and instruction set. */
#include "testutil.h"

#define TEXEL 0.5f

/* A 64 x 64 grid of quarter cells with hills and a slope, sliced at 8
 * planes: closed loops around the hills, open polylines across the
 * slope. */
static strata_result *hills(strata_ctx *ctx, int normals)
{
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 64, 64, 0.25f, &g));
    float *xyz;
    uint32_t *tri;
    mesh_arrays(g, &xyz, &tri);
    strata_mesh_view v;
    strata_mesh_get_view(g, &v);
    for (uint32_t i = 0; i < v.nverts; i++)
        xyz[3 * i + 1] = 2.0f * sinf(0.7f * v.x[i]) * cosf(0.5f * v.z[i]) + 0.3f * v.x[i];
    ck_assert_ok(strata_mesh_create(ctx, xyz, v.nverts, tri, v.ntris, &m));
    free(xyz);
    free(tri);
    strata_mesh_destroy(g);
    float L[8];
    ck_assert_ok(strata_levels_uniform(m, 8, NULL, L));
    strata_slice_options so = slice_options(L, 8, STRATA_WALLS_UPPER, normals, 0);
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    strata_mesh_destroy(m);
    return r;
}

typedef struct wall_pt {
    float x, y, z, top; /* position, its quad's top height */
    float u, v;
} wall_pt;

static int cmp_pt(const void *pa, const void *pb)
{
    const wall_pt *a = pa, *b = pb;
    const float ka[4] = {a->x, a->y, a->z, a->top}, kb[4] = {b->x, b->y, b->z, b->top};
    for (int k = 0; k < 4; k++)
        if (ka[k] != kb[k])
            return ka[k] < kb[k] ? -1 : 1;
    return 0;
}

static void check_result(strata_ctx *ctx, int normals)
{
    strata_result *r = hills(ctx, normals);
    strata_result_view v;
    strata_result_get_view(r, &v);
    const uint32_t nv0 = v.nverts;
    ck_assert_ok(strata_result_add_uv(ctx, r, TEXEL));
    strata_result_get_view(r, &v);
    ck_assert_ptr_nonnull(v.uv);
    require_eq(v.uv_first, 0);
    require_eq(v.nuv, v.nverts);
    uint64_t nwall = 0;
    for (uint32_t k = 0; k < v.nterraces; k++)
        nwall += v.terraces[k].wall_count;
    require_gt(nwall, 600);
    require_eq(v.nverts, nv0 + 4 * (nwall / 6));
    /* roofs: exactly the position over the texel; no wall vertex */
    uint8_t *roof = calloc(v.nverts, 1);
    for (uint32_t k = 0; k < v.nterraces; k++)
        for (uint64_t i = 0; i < v.terraces[k].roof_count; i++) {
            const uint32_t c = v.indices[v.terraces[k].roof_first + i];
            roof[c] = 1;
            require(v.uv[2 * c] == (float)((double)v.x[c] / TEXEL) &&
                        v.uv[2 * c + 1] == (float)((double)v.z[c] / TEXEL),
                    "roof vertex %u: uv %g %g", c, v.uv[2 * c], v.uv[2 * c + 1]);
        }
    /* walls: vertices of their own, V the height below the top */
    wall_pt *p = malloc(nwall * sizeof *p);
    size_t n = 0;
    double along = 0, ulen = 0;
    for (uint32_t k = 0; k < v.nterraces; k++)
        for (uint64_t w = 0; w < v.terraces[k].wall_count; w += 6) {
            const uint32_t *ix = v.indices + v.terraces[k].wall_first + w;
            const uint32_t c[4] = {ix[0], ix[1], ix[2], ix[5]};
            const float top = v.y[ix[2]];
            for (int j = 0; j < 4; j++) {
                require(c[j] >= nv0 && !roof[c[j]], "wall vertex %u shared", c[j]);
                require(v.uv[2 * c[j] + 1] == (float)(((double)top - v.y[c[j]]) / TEXEL),
                        "wall vertex %u: V %g", c[j], v.uv[2 * c[j] + 1]);
                p[n++] = (wall_pt){v.x[c[j]], v.y[c[j]], v.z[c[j]], top, v.uv[2 * c[j]],
                                   v.uv[2 * c[j] + 1]};
            }
            require(v.uv[2 * ix[0]] == v.uv[2 * ix[5]] && v.uv[2 * ix[1]] == v.uv[2 * ix[2]],
                    "a wall's column with two Us");
            along += hypot(v.x[ix[5]] - v.x[ix[2]], v.z[ix[5]] - v.z[ix[2]]);
            ulen += fabs(v.uv[2 * ix[5]] - v.uv[2 * ix[2]]) * TEXEL;
        }
    /* no stretching overall: U follows the length of the walls' tops */
    require(fabs(ulen / along - 1) < 0.05, "U covers %g for a length %g", ulen, along);
    /* shared positions (of one wall height): the same U, but at a loop's
     * origin a whole number of repeats (invisible with a repeating
     * texture) */
    qsort(p, n, sizeof *p, cmp_pt);
    size_t jumps = 0, shared = 0;
    for (size_t i = 1; i < n; i++) {
        if (cmp_pt(&p[i - 1], &p[i]))
            continue;
        shared++;
        const double d = fabs((double)p[i].u - p[i - 1].u);
        require(p[i].v == p[i - 1].v, "V differs at a shared point");
        require(fabs(d - nearbyint(d)) < 1e-3, "U jumps by %g at (%g, %g, %g)", d, p[i].x,
                p[i].y, p[i].z);
        jumps += d >= 0.5;
    }
    require_gt(shared, n / 3);
    require(jumps * 50 < shared, "%zu whole jumps in %zu shared points", jumps, shared);
    if (normals)
        for (size_t i = nv0; i < v.nverts; i++)
            require(v.ny[i] == 0, "wall vertex %zu: normal not horizontal", i);
    free(p);
    free(roof);
    strata_result_destroy(r);
}

START_TEST(test_terrain)
{
    strata_ctx *ctx = ctx_new(0);
    check_result(ctx, 0);
    check_result(ctx, 1);
    strata_ctx_destroy(ctx);
}
END_TEST

static float *uv_of(int threads, strata_isa isa, uint32_t *n, uint32_t **ix, uint64_t *ni)
{
    strata_ctx *ctx = ctx_new(threads);
    ck_assert_ok(strata_ctx_set_isa(ctx, isa));
    strata_result *r = hills(ctx, 0);
    ck_assert_ok(strata_result_add_uv(ctx, r, TEXEL));
    strata_result_view v;
    strata_result_get_view(r, &v);
    float *out = malloc(8 * (size_t)v.nuv);
    memcpy(out, v.uv, 8 * (size_t)v.nuv);
    *ix = malloc(4 * v.nindices);
    memcpy(*ix, v.indices, 4 * v.nindices);
    *n = v.nuv;
    *ni = v.nindices;
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
    return out;
}

START_TEST(test_threads_isas)
{
    uint32_t n0, n, *ix0, *ix;
    uint64_t ni0, ni;
    float *ref = uv_of(1, STRATA_ISA_SCALAR, &n0, &ix0, &ni0);
    for (int isa = 0; isa < STRATA_ISA_COUNT_; isa++) {
        if (!(strata_cpu_isas() & STRATA_ISA_BIT(isa)))
            continue;
        for (int threads = 1; threads <= 2; threads++) {
            float *got = uv_of(threads, (strata_isa)isa, &n, &ix, &ni);
            require_eq(n, n0);
            require_eq(ni, ni0);
            require(!memcmp(got, ref, 8 * (size_t)n) && !memcmp(ix, ix0, 4 * ni),
                    "%s, %d threads: other bytes", strata_isa_name((strata_isa)isa), threads);
            free(got);
            free(ix);
        }
    }
    free(ref);
    free(ix0);
}
END_TEST

/* The PLY file: the vertex record's layout from the header, then every
 * vertex's s and t, the library's floats bit for bit. */
static void check_ply(const strata_result_view *v, const char *path, int normals)
{
    size_t len;
    unsigned char *b = slurp(path, &len);
    const char *end = strstr((const char *)b, "end_header\n");
    ck_assert_ptr_nonnull(end);
    const char *want = normals ? "property float z\nproperty float nx\nproperty float ny\n"
                                 "property float nz\nproperty float s\nproperty float t\n"
                                 "element face"
                               : "property float z\nproperty float s\nproperty float t\n"
                                 "element face";
    ck_assert_ptr_nonnull(strstr((const char *)b, want));
    const size_t rec = normals ? 32 : 20, at = normals ? 24 : 12;
    const unsigned char *body = (const unsigned char *)end + strlen("end_header\n");
    ck_assert_uint_ge(len, (size_t)(body - b) + rec * v->nverts);
    for (uint32_t i = 0; i < v->nverts; i++)
        require(!memcmp(body + rec * i + at, v->uv + 2 * (size_t)i, 8) &&
                    !memcmp(body + rec * i, &v->x[i], 4),
                "ply vertex %u: other bytes", i);
    free(b);
}

/* The OBJ file: a "vt" line a vertex (floats read back equal) and every
 * face corner's texture coordinate the corner's vertex. */
static void check_obj(const strata_result_view *v, const char *path)
{
    size_t len;
    char *b = (char *)slurp(path, &len);
    uint32_t nvt = 0;
    uint64_t corners = 0;
    for (char *line = strtok(b, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "vt ", 3)) {
            char *e;
            const float u = strtof(line + 3, &e), t = strtof(e, NULL);
            require_lt(nvt, v->nverts);
            require(u == v->uv[2 * (size_t)nvt] && t == v->uv[2 * (size_t)nvt + 1],
                    "vt %u: %s", nvt, line);
            nvt++;
        } else if (line[0] == 'f' && line[1] == ' ') {
            for (char *c = line + 2; *c;) {
                unsigned long a, t;
                int used = 0;
                ck_assert_int_eq(sscanf(c, "%lu/%lu%n", &a, &t, &used), 2);
                require(a == t, "face corner %lu/%lu", a, t);
                corners++;
                c += used;
                while (*c && *c != ' ')
                    c++;
                while (*c == ' ')
                    c++;
            }
        }
    }
    require_eq(nvt, v->nverts);
    require_eq(corners, v->nindices);
    free(b);
}

/* The writers: .ply s and t, .obj vt and f v/vt, with and without
 * normals (.glb: tests/check_gltf.c). */
START_TEST(test_files)
{
    strata_ctx *ctx = ctx_new(0);
    char *d = tmpdir_new();
    for (int normals = 0; normals < 2; normals++) {
        strata_result *r = hills(ctx, normals);
        ck_assert_ok(strata_result_add_uv(ctx, r, TEXEL));
        strata_result_view v;
        strata_result_get_view(r, &v);
        char *ply = join(d, "uv.ply"), *obj = join(d, "uv.obj");
        ck_assert_ok(write_as(ctx, r, ply, STRATA_FORMAT_AUTO));
        ck_assert_ok(write_as(ctx, r, obj, STRATA_FORMAT_AUTO));
        check_ply(&v, ply, normals);
        check_obj(&v, obj); /* with normals f v/vt/vn: v and vt read the same */
        free(ply);
        free(obj);
        strata_result_destroy(r);
    }
    tmpdir_remove(d);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_errors)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = hills(ctx, 0);
    const float bad[] = {0.0f, -1.0f, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        require_eq(strata_result_add_uv(ctx, r, bad[i]), STRATA_ERR_INVALID_ARG);
    require_eq(strata_result_add_uv(NULL, r, 1.0f), STRATA_ERR_INVALID_ARG);
    require_eq(strata_result_add_uv(ctx, NULL, 1.0f), STRATA_ERR_INVALID_ARG);
    strata_result_view v;
    strata_result_get_view(r, &v);
    ck_assert_ptr_null(v.uv);
    ck_assert_ok(strata_result_add_uv(ctx, r, 1.0f));
    require_eq(strata_result_add_uv(ctx, r, 1.0f), STRATA_ERR_INVALID_ARG); /* twice */
    strata_result_destroy(r);
    /* planets: no projection yet */
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, 2, 1.0f, &m));
    const float L[1] = {1.0f};
    strata_slice_options so = slice_options(L, 1, STRATA_WALLS_UPPER, 0, 0);
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    require_eq(strata_result_add_uv(ctx, r, 1.0f), STRATA_ERR_UNSUPPORTED);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

static Suite *uv_suite(void)
{
    Suite *s = suite_create("uv");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_terrain);
    tcase_add_test(core, test_threads_isas);
    tcase_add_test(core, test_errors);
    tcase_add_test(core, test_files);
    suite_add_tcase(s, core);
    return s;
}

int main(void) { return run_suite(uv_suite()); }
