/* Colour rules (strata_colours_*, strata_result_apply_colours): walls
 * rock and roofs grass, sand just above the sea, snow above a height,
 * palettes per terrace range, hard edges (no vertex shared by triangles
 * of different colours), the same bytes for any thread count and
 * instruction set, strict parsing, and the writers. */
#define _GNU_SOURCE /* memmem */
#include "testutil.h"

/* A 48 x 48 grid of quarter cells (x, z in [-6, 6]): height 2 except a
 * square pit of height 0 for |x|, |z| <= 3 and a step of height 1 for
 * x > 3.5 inside |z| <= 3 (joined to the ground: a wall of 1 to the
 * ground, of 1 into the pit); sliced at 0, 1 and 2. */
static strata_result *steps(strata_ctx *ctx)
{
    strata_mesh *g, *m;
    ck_assert_ok(strata_shape_grid(ctx, 48, 48, 0.25f, &g));
    float *xyz;
    uint32_t *tri;
    mesh_arrays(g, &xyz, &tri);
    strata_mesh_view v;
    strata_mesh_get_view(g, &v);
    for (uint32_t i = 0; i < v.nverts; i++) {
        const float x = xyz[3 * i], z = xyz[3 * i + 2];
        xyz[3 * i + 1] = fabsf(x) <= 3 && fabsf(z) <= 3 ? 0.0f : x > 3.5f && fabsf(z) <= 3 ? 1.0f
                                                                                           : 2.0f;
    }
    ck_assert_ok(strata_mesh_create(ctx, xyz, v.nverts, tri, v.ntris, &m));
    free(xyz);
    free(tri);
    strata_mesh_destroy(g);
    static const float L[3] = {0, 1, 2};
    strata_slice_options so = slice_options(L, 3, STRATA_WALLS_UPPER, 0, 0);
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    strata_mesh_destroy(m);
    return r;
}

static strata_colours *rules(const char *text)
{
    strata_colours *c = NULL;
    strata_colours_error err;
    const strata_status st = strata_colours_parse(text, strlen(text), &c, &err);
    require(st == STRATA_OK, "rules refused: line %u field %u: %s", err.line, err.field, err.what);
    return c;
}

static uint32_t packed(const uint8_t *rgb, uint32_t v)
{
    return rgb[3 * v] | (uint32_t)rgb[3 * v + 1] << 8 | (uint32_t)rgb[3 * v + 2] << 16;
}

/* Every triangle's corners share one colour, and that colour is
 * expect(wall, height of the triangle's top). */
static void check_faces(const strata_result_view *v, uint32_t (*expect)(int wall, float top))
{
    ck_assert_ptr_nonnull(v->rgb);
    for (uint64_t t = 0; t < v->nindices / 3; t++) {
        const uint32_t *ix = v->indices + 3 * t;
        float lo = v->y[ix[0]], hi = lo;
        for (int k = 1; k < 3; k++) {
            lo = fminf(lo, v->y[ix[k]]);
            hi = fmaxf(hi, v->y[ix[k]]);
        }
        const uint32_t want = expect(hi > lo, hi);
        for (int k = 0; k < 3; k++)
            require(packed(v->rgb, ix[k]) == want,
                    "triangle %llu (%s at %g): corner %d has %06x, not %06x",
                    (unsigned long long)t, hi > lo ? "wall" : "roof", (double)hi, k,
                    packed(v->rgb, ix[k]), want);
    }
}

#define ROCK 0x808080u
#define SAND 0x9adcee /* ee dc 9a as packed r | g << 8 | b << 16 */
#define SNOW 0xfafafau
#define GRASS 0x00c000u

static uint32_t expect_sand_snow(int wall, float top)
{
    return wall ? ROCK : top == 0 ? SAND : top == 2 ? SNOW : GRASS;
}

static uint32_t expect_roofs_grass(int wall, float top)
{
    (void)top;
    return wall ? ROCK : GRASS;
}

/* The corners' positions of every triangle, in index order. */
static float *corners(const strata_result_view *v)
{
    float *p = malloc(sizeof(float) * 3 * (v->nindices ? v->nindices : 1));
    for (uint64_t i = 0; i < v->nindices; i++) {
        p[3 * i] = v->x[v->indices[i]];
        p[3 * i + 1] = v->y[v->indices[i]];
        p[3 * i + 2] = v->z[v->indices[i]];
    }
    return p;
}

START_TEST(test_rules)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = steps(ctx);
    strata_result_view v;
    strata_result_get_view(r, &v);
    ck_assert_ptr_null(v.rgb);
    const uint32_t nv0 = v.nverts;
    const uint64_t ni0 = v.nindices;
    float *before = corners(&v);
    strata_colours *c = rules("# walls rock, sand by the sea, snow on top\n"
                              "slope>=60 colour 808080\n"
                              "sea>=0 sea<0.5 colour #eedc9a\n"
                              "\n"
                              "height>=75% colour fafafa\n"
                              "* colour 00c000\n");
    const float sea = 0;
    ck_assert_ok(strata_result_apply_colours(ctx, r, c, NULL, &sea));
    strata_result_get_view(r, &v);
    check_faces(&v, expect_sand_snow);
    /* the same triangles, corner for corner: only copies were added */
    require_eq(v.nindices, ni0);
    require_gt(v.nverts, nv0);
    float *after = corners(&v);
    require(!memcmp(before, after, sizeof(float) * 3 * ni0), "the triangles moved");
    free(after);
    /* all four colours are there */
    int seen[4] = {0};
    for (uint32_t i = 0; i < v.nverts; i++) {
        const uint32_t col = packed(v.rgb, i);
        seen[0] |= col == ROCK;
        seen[1] |= col == SAND;
        seen[2] |= col == SNOW;
        seen[3] |= col == GRASS;
    }
    require(seen[0] && seen[1] && seen[2] && seen[3], "a colour is missing");
    strata_colours_destroy(c);

    /* without a sea level the sand rule never holds; again on the
     * coloured result (no copies needed twice for the same colours) */
    c = rules("slope>=60 colour 808080\nsea<1000 colour eedc9a\n* colour 00c000\n");
    ck_assert_ok(strata_result_apply_colours(ctx, r, c, NULL, NULL));
    strata_result_get_view(r, &v);
    check_faces(&v, expect_roofs_grass);
    strata_colours_destroy(c);
    free(before);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Palettes per terrace range, gradients, and the palette for what no
 * rule takes. */
START_TEST(test_palettes)
{
    strata_ctx *ctx = ctx_new(1);
    strata_result *r = steps(ctx);
    strata_colours *c = rules("terrace>=1 terrace<=2 slope<10 palette 102030,405060\n"
                              "slope<10 gradient 0:000000 2:c8c8c8\n");
    strata_palette pal;
    ck_assert_ok(strata_palette_preset("mono", &pal));
    ck_assert_ok(strata_result_apply_colours(ctx, r, c, &pal, NULL));
    strata_result_view v;
    strata_result_get_view(r, &v);
    for (uint32_t k = 0; k < v.nterraces; k++)
        for (int w = 0; w < 2; w++) {
            const strata_terrace *t = &v.terraces[k];
            const uint64_t first = w ? t->wall_first : t->roof_first;
            const uint64_t count = w ? t->wall_count : t->roof_count;
            uint32_t want;
            if (w) { /* no rule: the palette's wall colour */
                float f[3];
                strata_palette_color(&pal, k, v.nterraces, 1, STRATA_COLOR_SRGB, f);
                want = 0;
                for (int ch = 0; ch < 3; ch++)
                    want |= (uint32_t)floor(f[ch] * 255.0 + 0.5) << (8 * ch);
            } else if (k >= 1) { /* 102030 on terrace 1, 405060 on 2 */
                want = k == 1 ? 0x302010u : 0x605040u;
            } else { /* the gradient at height 0 */
                want = 0;
            }
            for (uint64_t i = first; i < first + count; i++)
                require(packed(v.rgb, v.indices[i]) == want, "terrace %u %s: %06x, not %06x", k,
                        w ? "wall" : "roof", packed(v.rgb, v.indices[i]), want);
        }
    strata_colours_destroy(c);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A noise planet with the cartoon rules and occlusion: colours,
 * indices and occlusion with the given threads and ISA. */
static uint8_t *planet_bytes(int threads, strata_isa isa, size_t *n)
{
    strata_ctx *ctx = ctx_new(threads);
    ck_assert_ok(strata_ctx_set_isa(ctx, isa));
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, 5, 1.0f, &m));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.amplitude = 0.1f;
    f.frequency = 2.0f;
    ck_assert_ok(strata_displace_radial(ctx, m, &f, NULL));
    float L[10];
    ck_assert_ok(strata_levels_uniform(m, 10, NULL, L));
    strata_slice_options so = slice_options(L, 10, STRATA_WALLS_UPPER, 1, 0);
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    strata_colours *c;
    ck_assert_ok(strata_colours_preset("cartoon", &c));
    ck_assert_ok(strata_result_apply_colours(ctx, r, c, NULL, &L[3]));
    ck_assert_ok(strata_result_bake_ao(ctx, r, 2.0f * (L[9] - L[0]) / 9));
    strata_result_view v;
    strata_result_get_view(r, &v);
    ck_assert_ptr_nonnull(v.rgb);
    ck_assert_ptr_nonnull(v.ao); /* baked after: on the copies too */
    *n = 4 * (size_t)v.nverts + 4 * v.nindices;
    uint8_t *out = malloc(*n);
    memcpy(out, v.rgb, 3 * (size_t)v.nverts);
    memcpy(out + 3 * (size_t)v.nverts, v.ao, v.nverts);
    memcpy(out + 4 * (size_t)v.nverts, v.indices, 4 * v.nindices);
    /* a planet's walls are radial: the rock colour on them */
    uint64_t rock = 0;
    for (uint32_t k = 0; k < v.nterraces; k++)
        for (uint64_t i = 0; i < v.terraces[k].wall_count; i++)
            rock += packed(v.rgb, v.indices[v.terraces[k].wall_first + i]) == 0x687b8du;
    require_gt(rock, 0);
    strata_colours_destroy(c);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
    return out;
}

START_TEST(test_threads_isas)
{
    size_t n0, n;
    uint8_t *ref = planet_bytes(1, STRATA_ISA_SCALAR, &n0);
    for (int isa = 0; isa < STRATA_ISA_COUNT_; isa++) {
        if (!(strata_cpu_isas() & STRATA_ISA_BIT(isa)))
            continue;
        for (int threads = 1; threads <= 3; threads++) {
            uint8_t *got = planet_bytes(threads, (strata_isa)isa, &n);
            require_eq(n, n0);
            require(!memcmp(got, ref, n), "%s, %d threads: other bytes",
                    strata_isa_name((strata_isa)isa), threads);
            free(got);
        }
    }
    free(ref);
}
END_TEST

/* Bad rules: the line and the field named. */
static const struct {
    const char *text;
    uint32_t line, field;
} bad[] = {
    {"", 0, 0},
    {"# only a comment\n", 1, 0},
    {"* colour 12345\n", 1, 3},
    {"* colour 123456 more\n", 1, 4},
    {"\nslope>=91 colour 123456\n", 2, 1},
    {"slope=>9 colour 123456\n", 1, 1},
    {"hieght>1 colour 123456\n", 1, 1},
    {"terrace>=1.5 colour 123456\n", 1, 1},
    {"height>=1x colour 123456\n", 1, 1},
    {"slope>=10% colour 123456\n", 1, 1},
    {"* colour 123456\nslope<5 gradient 10:000000 5:ffffff\n", 2, 4},
    {"* gradient 10%:000000 50:ffffff\n", 1, 4},
    {"* gradient\n", 1, 3},
    {"* palette 000000,,ffffff\n", 1, 3},
    {"slope<5\n", 1, 2},
    {"slope<5 * colour 000000\n", 1, 2},
    {"* slope<5 colour 000000\n", 1, 2},
    {"colour 000000\n", 1, 1},
    {"height<nan colour 000000\n", 1, 1},
};

START_TEST(test_bad)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        strata_colours *c = (strata_colours *)&c;
        strata_colours_error err;
        const strata_status st = strata_colours_parse(bad[i].text, strlen(bad[i].text), &c, &err);
        require(st == STRATA_ERR_FORMAT, "case %zu: status %d", i, (int)st);
        ck_assert_ptr_null(c);
        require(err.line == bad[i].line && err.field == bad[i].field,
                "case %zu: line %u field %u (%s), not line %u field %u", i, err.line, err.field,
                err.what, bad[i].line, bad[i].field);
        require_gt(strlen(err.what), 0);
    }
    /* a line too long, too many rules */
    char *big = malloc(70 * 32 + 400);
    memset(big, ' ', 300);
    memcpy(big + 300, "* colour 000000\n", 17);
    strata_colours *c;
    strata_colours_error err;
    require_eq(strata_colours_parse(big, strlen(big), &c, &err), STRATA_ERR_FORMAT);
    require_eq(err.line, 1);
    big[0] = 0;
    for (int i = 0; i < 65; i++)
        strcat(big, "slope<1 colour 000000\n");
    require_eq(strata_colours_parse(big, strlen(big), &c, &err), STRATA_ERR_TOO_LARGE);
    require_eq(err.line, 65);
    free(big);
    /* the presets parse; an unknown one does not */
    for (unsigned i = 0; strata_colours_preset_name(i); i++) {
        ck_assert_ok(strata_colours_preset(strata_colours_preset_name(i), &c));
        strata_colours_destroy(c);
    }
    require_eq(strata_colours_preset("plaid", &c), STRATA_ERR_INVALID_ARG);
    ck_assert_ptr_null(c);
    require_eq(strata_colours_load("/nonexistent/rules", &c, &err), STRATA_ERR_IO);
    /* CR LF lines, tabs, color spelt the other way, # colours */
    c = rules("slope>=60\tcolor #808080\r\n*  palette #102030,405060\r\n");
    strata_colours_destroy(c);
}
END_TEST

/* The writers: glb COLOR_0 with white materials, PLY colours times the
 * occlusion, the preview in the rules' colours. */
START_TEST(test_writers)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = steps(ctx);
    strata_colours *c = rules("slope>=60 colour 808080\n* colour 00c000\n");
    ck_assert_ok(strata_result_apply_colours(ctx, r, c, NULL, NULL));
    strata_colours_destroy(c);
    char *d = tmpdir_new();
    char *glb = join(d, "c.glb"), *ply = join(d, "c.ply"), *png = join(d, "c.png");
    ck_assert_ok(write_as(ctx, r, glb, STRATA_FORMAT_GLB));
    size_t len;
    unsigned char *b = slurp(glb, &len);
    ck_assert_ptr_nonnull(memmem(b, len, "\"COLOR_0\"", 9));
    ck_assert_ptr_nonnull(memmem(b, len, "\"baseColorFactor\":[1.000000,1.000000,1.000000,1]", 48));
    free(b);
    ck_assert_ok(strata_result_bake_ao(ctx, r, 1.0f));
    ck_assert_ok(write_as(ctx, r, ply, STRATA_FORMAT_PLY));
    b = slurp(ply, &len);
    unsigned char *end = memmem(b, len, "end_header\n", 11);
    ck_assert_ptr_nonnull(end);
    ck_assert_ptr_nonnull(memmem(b, (size_t)(end - b), "property uchar red", 18));
    strata_result_view v;
    strata_result_get_view(r, &v);
    const unsigned char *vx = end + 11;
    const size_t rec = v.nx ? 27 : 15;
    for (uint32_t i = 0; i < v.nverts; i++)
        for (int ch = 0; ch < 3; ch++)
            require_eq(vx[rec * i + rec - 3 + ch], (v.rgb[3 * i + ch] * v.ao[i] + 127) / 255);
    free(b);
    strata_preview_options po;
    strata_preview_defaults(&po);
    po.size = 64;
    po.view = STRATA_VIEW_TOP;
    const strata_status st = strata_preview_write_png(ctx, r, &po, png);
    if (st != STRATA_ERR_UNSUPPORTED)
        ck_assert_ok(st);
    tmpdir_remove(d);
    free(glb);
    free(ply);
    free(png);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The pipeline's stage: the rules with the write palette and the sea. */
START_TEST(test_pipeline)
{
    strata_ctx *ctx = ctx_new(0);
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, 4, 1.0f, &m));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.amplitude = 0.1f;
    ck_assert_ok(strata_displace_radial(ctx, m, &f, NULL));
    strata_pipeline_options o;
    strata_pipeline_defaults(&o);
    o.terraces.count = 8;
    o.terraces.sea = 1;
    o.terraces.sea_level = 0;
    strata_colours *c;
    ck_assert_ok(strata_colours_preset("snow", &c));
    o.colours = c;
    strata_result *r;
    strata_pipeline_report rep;
    ck_assert_ok(strata_pipeline_run(ctx, m, &o, &r, NULL, &rep));
    require(rep.ran & (1u << STRATA_STAGE_COLOURS), "the colours stage did not run");
    ck_assert_str_eq(strata_stage_name(STRATA_STAGE_COLOURS), "colours");
    strata_result_view v;
    strata_result_get_view(r, &v);
    ck_assert_ptr_nonnull(v.rgb);
    strata_result_destroy(r);
    strata_colours_destroy(c);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

static Suite *colours_suite(void)
{
    Suite *s = suite_create("colours");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_rules);
    tcase_add_test(core, test_palettes);
    tcase_add_test(core, test_threads_isas);
    tcase_add_test(core, test_bad);
    tcase_add_test(core, test_writers);
    tcase_add_test(core, test_pipeline);
    suite_add_tcase(s, core);
    return s;
}

int main(void) { return run_suite(colours_suite()); }
