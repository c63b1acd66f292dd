/* Baked ambient occlusion (strata_result_bake_ao): darker at a wall's
 * foot and darker still in an inner corner than on open ground, the same
 * bytes for any thread count and instruction set, the pipeline's stage,
 * the PLY colours and the preview's shading. */
#define _GNU_SOURCE /* memmem */
#include "testutil.h"

/* A 64 x 64 grid of quarter cells (x, z in [-8, 8]), height 1 except a
 * square pit of height 0 for |x|, |z| <= 4, sliced at 0 and 0.5: a pit
 * 0.5 deep with straight walls and four inner corners. */
static strata_mesh *pit_mesh(strata_ctx *ctx)
{
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 64, 64, 0.25f, &g));
    strata_mesh_view v;
    strata_mesh_get_view(g, &v);
    float *xyz = malloc(sizeof(float) * 3 * v.nverts);
    uint32_t *tri = malloc(sizeof(uint32_t) * 3 * v.ntris);
    for (uint32_t i = 0; i < v.nverts; i++) {
        xyz[3 * i] = v.x[i];
        xyz[3 * i + 1] = fabsf(v.x[i]) <= 4 && fabsf(v.z[i]) <= 4 ? 0.0f : 1.0f;
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

static const float pit_levels[2] = {0, 0.5f};

static strata_result *pit(strata_ctx *ctx)
{
    strata_mesh *m = pit_mesh(ctx);
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = pit_levels;
    so.nlevels = 2;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    strata_mesh_destroy(m);
    return r;
}

/* The vertex at height y nearest to (x, z). */
static uint32_t nearest(const strata_result_view *v, float x, float y, float z)
{
    uint32_t best = UINT32_MAX;
    double d = INFINITY;
    for (uint32_t i = 0; i < v->nverts; i++) {
        if (v->y[i] != y)
            continue;
        const double e = (v->x[i] - x) * (v->x[i] - x) + (v->z[i] - z) * (v->z[i] - z);
        if (e < d) {
            d = e;
            best = i;
        }
    }
    ck_assert_uint_ne(best, UINT32_MAX);
    return best;
}

START_TEST(test_pit)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = pit(ctx);
    strata_result_view v;
    strata_result_get_view(r, &v);
    ck_assert_ptr_null(v.ao);
    ck_assert_ok(strata_result_bake_ao(ctx, r, 1.0f));
    strata_result_get_view(r, &v);
    ck_assert_ptr_nonnull(v.ao);
    /* the wall between x = 4 and 4.25 (the crossing of height 0.5) */
    const uint8_t foot = v.ao[nearest(&v, 4.125f, 0, 0)];
    const uint8_t corner = v.ao[nearest(&v, 4.125f, 0, 4.125f)];
    const uint8_t top = v.ao[nearest(&v, 4.125f, 0.5f, 0)];
    const uint8_t floor_mid = v.ao[nearest(&v, 0, 0, 0)];
    const uint8_t roof = v.ao[nearest(&v, -6.5f, 0.5f, -6.5f)];
    /* open ground: nothing rises within the radius */
    require_eq(roof, 255);
    require_eq(floor_mid, 255);
    require_eq(top, 255);
    /* the foot of a straight wall: about half the directions shut */
    require_lt(foot, 170);
    require_gt(foot, 85);
    /* an inner corner: darker still */
    require_lt(corner, foot);
    require_gt(corner, 0);
    /* in [0, 255] by type; nothing darker than the corner anywhere */
    uint32_t dark = 0;
    for (uint32_t i = 0; i < v.nverts; i++) {
        require_ge(v.ao[i], corner);
        dark += v.ao[i] < 255;
    }
    require_gt(dark, 0u);
    require_lt(dark, v.nverts / 2);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A noise planet's occlusion, with the given threads and ISA. */
static uint8_t *planet_ao(int threads, strata_isa isa, uint32_t *n)
{
    strata_ctx *ctx = ctx_new(threads);
    ck_assert_ok(strata_ctx_set_isa(ctx, isa));
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, 6, 1.0f, &m));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.amplitude = 0.1f;
    f.frequency = 2.0f;
    ck_assert_ok(strata_displace_radial(ctx, m, &f, NULL));
    float L[12];
    ck_assert_ok(strata_levels_uniform(m, 12, NULL, L));
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = L;
    so.nlevels = 12;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    ck_assert_ok(strata_result_bake_ao(ctx, r, 2.0f * (L[11] - L[0]) / 11));
    strata_result_view v;
    strata_result_get_view(r, &v);
    ck_assert_ptr_nonnull(v.ao);
    uint8_t *out = malloc(v.nverts);
    memcpy(out, v.ao, v.nverts);
    *n = v.nverts;
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
    return out;
}

START_TEST(test_threads_isas)
{
    uint32_t n0, n;
    uint8_t *ref = planet_ao(1, STRATA_ISA_SCALAR, &n0);
    uint32_t open = 0, dark = 0;
    for (uint32_t i = 0; i < n0; i++) {
        open += ref[i] == 255;
        dark += ref[i] < 192;
    }
    require_gt(open, n0 / 10); /* roofs away from walls */
    require_gt(dark, n0 / 50); /* wall feet */
    for (int isa = 0; isa < STRATA_ISA_COUNT_; isa++) {
        if (!(strata_cpu_isas() & STRATA_ISA_BIT(isa)))
            continue;
        for (int threads = 1; threads <= 3; threads++) {
            uint8_t *got = planet_ao(threads, (strata_isa)isa, &n);
            require_eq(n, n0);
            require(!memcmp(got, ref, n), "%s, %d threads: other bytes",
                    strata_isa_name((strata_isa)isa), threads);
            free(got);
        }
    }
    free(ref);
}
END_TEST

START_TEST(test_errors)
{
    strata_ctx *ctx = ctx_new(1);
    strata_result *r = pit(ctx);
    static const float bad[] = {0.0f, -1.0f, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_status(strata_result_bake_ao(ctx, r, bad[i]), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_bake_ao(NULL, r, 1.0f), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_bake_ao(ctx, NULL, 1.0f), STRATA_ERR_INVALID_ARG);
    /* a radius whose cells (radius / 8) would be far too many */
    ck_assert_status(strata_result_bake_ao(ctx, r, 1e-4f), STRATA_ERR_TOO_LARGE);
    strata_result_view v;
    strata_result_get_view(r, &v);
    ck_assert_ptr_null(v.ao);
    /* baked, then vertices added: the occlusion is dropped */
    ck_assert_ok(strata_result_bake_ao(ctx, r, 1.0f));
    strata_result_get_view(r, &v);
    ck_assert_ptr_nonnull(v.ao);
    ck_assert_ok(strata_result_add_water(ctx, r, 0.25f, NULL, 0, 0));
    strata_result_get_view(r, &v);
    ck_assert_ptr_null(v.ao);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The pipeline's stage: the default radius is twice the planes' spacing,
 * the same bytes as the call; one plane has no spacing. */
START_TEST(test_pipeline)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *want = pit(ctx);
    ck_assert_ok(strata_result_bake_ao(ctx, want, 1.0f));
    strata_result_view w;
    strata_result_get_view(want, &w);

    strata_mesh *m = pit_mesh(ctx);
    strata_pipeline_options o;
    strata_pipeline_defaults(&o);
    o.terraces.levels = pit_levels;
    o.terraces.nlevels = 2;
    o.ao = 1;
    strata_result *r;
    strata_pipeline_report rep;
    ck_assert_ok(strata_pipeline_run(ctx, m, &o, &r, NULL, &rep));
    require_true(rep.ran & (1u << STRATA_STAGE_AO));
    ck_assert_str_eq(strata_stage_name(STRATA_STAGE_AO), "ao");
    strata_result_view v;
    strata_result_get_view(r, &v);
    require_eq(v.nverts, w.nverts);
    require(!memcmp(v.ao, w.ao, v.nverts), "the pipeline's occlusion differs from the call's");
    strata_result_destroy(r);

    o.terraces.nlevels = 1; /* no spacing to take a radius from */
    ck_assert_status(strata_pipeline_run(ctx, m, &o, &r, NULL, &rep), STRATA_ERR_INVALID_ARG);
    require_eq(rep.failed, STRATA_STAGE_AO);
    o.ao_radius = 1.0f; /* given: fine */
    ck_assert_ok(strata_pipeline_run(ctx, m, &o, &r, NULL, &rep));
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_result_destroy(want);
    strata_ctx_destroy(ctx);
}
END_TEST

/* PLY: red, green and blue after the position, each the vertex's byte. */
START_TEST(test_ply)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = pit(ctx);
    ck_assert_ok(strata_result_bake_ao(ctx, r, 1.0f));
    strata_result_view v;
    strata_result_get_view(r, &v);
    char *dir = tmpdir_new();
    char path[512];
    snprintf(path, sizeof path, "%s/ao.ply", dir);
    ck_assert_ok(strata_result_write(ctx, r, path, NULL));
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char buf[1 << 22];
    const size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    const char *end = memmem(buf, len, "end_header\n", 11);
    ck_assert_ptr_nonnull(end);
    static const char props[] = "property float z\nproperty uchar red\nproperty uchar green\n"
                                "property uchar blue\n";
    ck_assert_ptr_nonnull(memmem(buf, (size_t)(end - buf), props, strlen(props)));
    const unsigned char *p = (const unsigned char *)end + 11;
    require_ge(len, (size_t)((const char *)p - buf) + 15 * (size_t)v.nverts);
    for (uint32_t i = 0; i < v.nverts; i++, p += 15) {
        float x;
        memcpy(&x, p, 4);
        require(x == v.x[i] && p[12] == v.ao[i] && p[13] == v.ao[i] && p[14] == v.ao[i],
                "vertex %u", i);
    }
    tmpdir_remove(dir);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The preview from above: the occlusion only darkens, the pit's floor
 * along its walls, and leaves open ground as it was. */
START_TEST(test_preview)
{
    enum { S = 256 };
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = pit(ctx);
    strata_preview_options po;
    strata_preview_defaults(&po);
    po.view = STRATA_VIEW_TOP;
    po.size = S;
    uint8_t *plain = malloc(4 * S * S), *shaded = malloc(4 * S * S);
    ck_assert_ok(strata_preview_render(ctx, r, &po, plain));
    ck_assert_ok(strata_result_bake_ao(ctx, r, 1.0f));
    ck_assert_ok(strata_preview_render(ctx, r, &po, shaded));
    uint64_t darker = 0, sum_plain = 0, sum_shaded = 0;
    for (size_t i = 0; i < 4 * (size_t)S * S; i++) {
        require(shaded[i] <= plain[i], "byte %zu brighter: %u vs %u", i, shaded[i], plain[i]);
        darker += shaded[i] < plain[i];
        sum_plain += plain[i];
        sum_shaded += shaded[i];
    }
    require_gt(darker, (uint64_t)S); /* more than a line of pixels */
    require_lt(sum_shaded, sum_plain);
    /* the image spans x, z in [-8, 8] with a margin: x = 0 is column S/2;
     * the floor's middle is open, the floor at the wall's foot darker */
    const size_t mid = 4 * ((size_t)(S / 2) * S + S / 2);
    require_eq(shaded[mid], plain[mid]);
    const double px = S * (1 - 2 * 0.04) / 16.0; /* pixels per unit */
    const size_t foot = 4 * ((size_t)(S / 2) * S + (size_t)(S / 2 + 3.95 * px));
    for (int ch = 0; ch < 3; ch++)
        require_lt(shaded[foot + ch], 0.8 * plain[foot + ch]);
    free(plain);
    free(shaded);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ worlds */

/* A position and its occlusion, ordered by the position's bits. */
typedef struct pos_ao {
    uint32_t k[3];
    uint8_t ao;
} pos_ao;

static int cmp_pos(const void *a, const void *b)
{
    return memcmp(((const pos_ao *)a)->k, ((const pos_ao *)b)->k, sizeof(uint32_t[3]));
}

static pos_ao *keys_of(const strata_result_view *v, pos_ao *out)
{
    for (uint32_t i = 0; i < v->nverts; i++) {
        const float c[3] = {v->x[i], v->y[i], v->z[i]};
        for (int k = 0; k < 3; k++) {
            float f = c[k] + 0.0f;
            memcpy(&out[i].k[k], &f, 4);
        }
        out[i].ao = v->ao[i];
    }
    return out + v->nverts;
}

/* A terrain world's tiles, with their neighbours' roofs within the
 * radius, have the occlusion of the whole mesh at every vertex. */
static const uint32_t ao_tiles[] = {3, 7, 64};
START_TEST(test_world_tiles)
{
    enum { W = 40, H = 30 };
    strata_ctx *ctx = ctx_new(2);
    char head[32];
    const int n = snprintf(head, sizeof head, "P5\n%u %u\n255\n", W, H);
    unsigned char *buf = malloc((size_t)n + W * H);
    memcpy(buf, head, (size_t)n);
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++)
            buf[n + y * W + x] = (unsigned char)((((x * 7 + y * 3) / 5) % 9) * 20);
    strata_heightmap *hm;
    ck_assert_ok(strata_heightmap_decode(ctx, buf, (size_t)n + W * H, &hm));
    free(buf);
    static const float L[8] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f, 7.5f};
    /* the whole mesh: samples 20 k / 255 at height scale 12.75: heights k */
    strata_mesh *m;
    ck_assert_ok(strata_mesh_from_heightmap(ctx, hm, 0.5f, 12.75f, &m));
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = L;
    so.nlevels = 8;
    strata_result *whole;
    ck_assert_ok(strata_slice(ctx, m, &so, &whole));
    ck_assert_ok(strata_result_bake_ao(ctx, whole, 2.0f));
    strata_result_view wv;
    strata_result_get_view(whole, &wv);
    pos_ao *want = malloc(sizeof *want * wv.nverts);
    keys_of(&wv, want);
    qsort(want, wv.nverts, sizeof *want, cmp_pos);

    strata_world_options o;
    strata_world_defaults(&o);
    o.kind = STRATA_WORLD_TERRAIN;
    o.heightmap = hm;
    o.cell_size = 0.5f;
    o.height_scale = 12.75f;
    o.tile_cells = ao_tiles[_i];
    o.levels = L;
    o.nlevels = 8;
    o.ao = 1;
    o.ao_radius = 2.0f;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    strata_result *r;
    ck_assert_ok(strata_result_create(ctx, &r));
    uint64_t checked = 0, dark = 0;
    for (uint64_t id = 0; id < strata_world_chunk_count(w); id++) {
        ck_assert_ok(strata_world_make_chunk(ctx, w, id, r));
        strata_result_view v;
        strata_result_get_view(r, &v);
        ck_assert_ptr_nonnull(v.ao);
        pos_ao *got = malloc(sizeof *got * (v.nverts ? v.nverts : 1));
        keys_of(&v, got);
        for (uint32_t i = 0; i < v.nverts; i++) {
            const pos_ao *at = bsearch(&got[i], want, wv.nverts, sizeof *want, cmp_pos);
            require(at, "tile %llu vertex %u: not in the whole mesh", (unsigned long long)id, i);
            require(at->ao == got[i].ao, "tile %llu vertex %u (%g, %g, %g): %u, whole mesh %u",
                    (unsigned long long)id, i, v.x[i], v.y[i], v.z[i], got[i].ao, at->ao);
            dark += got[i].ao < 200;
        }
        checked += v.nverts;
        free(got);
    }
    require_ge(checked, wv.nverts);
    require_gt(dark, checked / 50); /* walls to darken there are */
    /* the tiles' bytes change with the occlusion: the fingerprint too */
    strata_world *plain;
    o.ao = 0;
    ck_assert_ok(strata_world_create(ctx, &o, &plain));
    require_ne(strata_world_fingerprint(plain), strata_world_fingerprint(w));
    strata_world_destroy(plain);
    /* planets, levels of detail and simplified roofs are refused */
    o.ao = 1;
    o.lod = 1;
    ck_assert_status(strata_world_create(ctx, &o, &plain), STRATA_ERR_UNSUPPORTED);
    o.lod = 0;
    o.simplify_roofs = 1e-4;
    ck_assert_status(strata_world_create(ctx, &o, &plain), STRATA_ERR_UNSUPPORTED);
    strata_world_options p;
    strata_world_defaults(&p);
    p.level = 3;
    p.chunk_level = 1;
    p.ao = 1;
    ck_assert_status(strata_world_create(ctx, &p, &plain), STRATA_ERR_UNSUPPORTED);
    strata_result_destroy(r);
    strata_world_destroy(w);
    free(want);
    strata_result_destroy(whole);
    strata_mesh_destroy(m);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

static Suite *ao_suite(void)
{
    Suite *s = suite_create("ao");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_pit);
    tcase_add_test(core, test_threads_isas);
    tcase_add_test(core, test_pipeline);
    tcase_add_test(core, test_ply);
    tcase_add_test(core, test_preview);
    tcase_add_loop_test(core, test_world_tiles, 0, sizeof ao_tiles / sizeof ao_tiles[0]);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_errors);
    suite_add_tcase(s, limits);
    return s;
}

int main(void) { return run_suite(ao_suite()); }
