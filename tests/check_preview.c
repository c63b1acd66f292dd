/* Suite "preview": the software rasteriser (colours and shading where
 * terraces are, background where nothing is, walls darker than roofs,
 * translucent water, determinism across runs and thread counts) and the PNG writer (decoded
 * back, atomic on failure). */
#define _POSIX_C_SOURCE 200809L
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if HAVE_SPNG
#include <spng.h>
#elif HAVE_LIBPNG
#include <png.h>
#endif

/* ------------------------------------------------------------ helpers */

/* What strata_preview_write_png says to bad arguments: without a PNG
 * library it refuses everything first. */
#if HAVE_SPNG || HAVE_LIBPNG
#define WRITE_BAD STRATA_ERR_INVALID_ARG
#else
#define WRITE_BAD STRATA_ERR_UNSUPPORTED
#endif

static const uint8_t four[4][3] = {{200, 40, 40}, {40, 200, 40}, {40, 40, 200}, {220, 220, 60}};
static const uint8_t grey[1][3] = {{200, 200, 200}};

static strata_palette palette_of(const uint8_t (*c)[3], uint32_t n)
{
    strata_palette p;
    memset(&p, 0, sizeof p);
    p.nstops = n;
    memcpy(p.rgb, c, 3 * (size_t)n);
    return p;
}

/* A FLAT grid over [0, 4] x [0, 4] (n cells a side) with y = f(x), cut at
 * the levels 0, 1, 2, 3: each terrace covers a quarter of the x range. */
static strata_result *ramp(strata_ctx *ctx, uint32_t n, int descending)
{
    const uint32_t nv = (n + 1) * (n + 1);
    float *xyz = malloc(3 * sizeof(float) * nv);
    uint32_t *tris = malloc(6 * sizeof(uint32_t) * n * n);
    ck_assert(xyz && tris);
    for (uint32_t j = 0; j <= n; j++)
        for (uint32_t i = 0; i <= n; i++) {
            float *p = xyz + 3 * (j * (n + 1) + i);
            p[0] = 4.0f * (float)i / (float)n;
            p[2] = 4.0f * (float)j / (float)n;
            p[1] = descending ? 3.999f - p[0] : p[0];
        }
    uint32_t *t = tris;
    for (uint32_t j = 0; j < n; j++)
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
            /* counter-clockwise seen from +y: x right, z towards the viewer */
            *t++ = a, *t++ = c, *t++ = b;
            *t++ = b, *t++ = c, *t++ = d;
        }
    strata_mesh *m;
    ck_assert_ok(strata_mesh_create(ctx, xyz, nv, tris, 2 * n * n, &m));
    free(xyz);
    free(tris);
    static const float levels[4] = {0, 1, 2, 3};
    strata_slice_options so = slice_options(levels, 4, STRATA_WALLS_UPPER, 0, 0);
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    strata_mesh_destroy(m);
    return r;
}

static strata_result *planet(strata_ctx *ctx, int level)
{
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, level, 1.0f, &m));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.amplitude = 0.1f;
    f.frequency = 1.5f;
    ck_assert_ok(strata_displace_radial(ctx, m, &f, NULL));
    float levels[8];
    ck_assert_ok(strata_levels_uniform(m, 8, NULL, levels));
    strata_slice_options so = slice_options(levels, 8, STRATA_WALLS_UPPER, 0, 0);
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    strata_mesh_destroy(m);
    return r;
}

static uint8_t *render(strata_ctx *ctx, const strata_result *r, const strata_preview_options *o)
{
    uint8_t *img = malloc((size_t)o->size * o->size * 4);
    ck_assert_ptr_nonnull(img);
    ck_assert_ok(strata_preview_render(ctx, r, o, img));
    return img;
}

/* The shade the documented light gives a face whose view-space normal has
 * the z and y components given (x = 0). */
static float shade(float ny, float nz)
{
    const float l = 1.0f / sqrtf(4.25f);
    float d = ny * l + nz * 1.5f * l;
    return STRATA_PREVIEW_AMBIENT + STRATA_PREVIEW_DIFFUSE * (d > 0 ? d : 0);
}

static int near(int a, int b) { return abs(a - b) <= 1; }

/* The four corner pixels of img are o's background. */
static void corners_background(const uint8_t *img, const strata_preview_options *o)
{
    const size_t n = o->size, corners[4] = {0, n - 1, (n - 1) * n, n * n - 1};
    for (int c = 0; c < 4; c++)
        ck_assert_mem_eq(img + 4 * corners[c], o->background, 4);
}

#if HAVE_SPNG || HAVE_LIBPNG
#endif

/* ------------------------------------------------------------ arguments */

START_TEST(test_defaults)
{
    strata_preview_options o;
    memset(&o, 0xab, sizeof o);
    strata_preview_defaults(&o);
    ck_assert_int_eq(o.view, STRATA_VIEW_AUTO);
    ck_assert_uint_eq(o.size, 1024);
    ck_assert_uint_eq(o.background[3], 255);
    ck_assert_ptr_null(o.palette);
    strata_preview_defaults(NULL); /* no crash */
}
END_TEST

START_TEST(test_bad_args)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = ramp(ctx, 8, 0);
    uint8_t *img = malloc(64 * 64 * 4);
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 64;
    ck_assert_status(strata_preview_render(NULL, r, &o, img), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_preview_render(ctx, NULL, &o, img), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_preview_render(ctx, r, &o, NULL), STRATA_ERR_INVALID_ARG);
    static const uint32_t sizes[] = {0, 1, 15, 8193, UINT32_MAX};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        o.size = sizes[i];
        ck_assert_status(strata_preview_render(ctx, r, &o, img), STRATA_ERR_INVALID_ARG);
        ck_assert_status(strata_preview_write_png(ctx, r, &o, "/tmp/never.png"), WRITE_BAD);
    }
    o.size = 16;
    ck_assert_ok(strata_preview_render(ctx, r, &o, img));
    o.view = STRATA_VIEW_PLANET; /* a FLAT result */
    ck_assert_status(strata_preview_render(ctx, r, &o, img), STRATA_ERR_INVALID_ARG);
    o.view = (strata_preview_view)7;
    ck_assert_status(strata_preview_render(ctx, r, &o, img), STRATA_ERR_INVALID_ARG);
    o.view = STRATA_VIEW_TOP;
    ck_assert_status(strata_preview_write_png(ctx, r, &o, NULL), WRITE_BAD);
    ck_assert_status(strata_preview_write_png(ctx, r, &o, ""), WRITE_BAD);
    ck_assert_status(strata_preview_write_png(NULL, r, &o, "/tmp/never.png"), WRITE_BAD);
    ck_assert_int_eq(access("/tmp/never.png", F_OK), -1);
    ck_assert_int_eq(strata_preview_auto_view(r), STRATA_VIEW_OBLIQUE);
    ck_assert_int_eq(strata_preview_auto_view(NULL), STRATA_VIEW_OBLIQUE);
    free(img);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ pictures */

/* Top view of the ramp y = x: the image spans x in [0, 4] between the
 * margins (4% of the side each), so the terraces are four vertical strips,
 * each in its colour times the shade of an upward face (normal straight at
 * the viewer). */
START_TEST(test_top_ramp_colours)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = ramp(ctx, 32, 0);
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 200;
    o.view = STRATA_VIEW_TOP;
    const strata_palette pal = palette_of(four, 4);
    o.palette = &pal;
    uint8_t *img = render(ctx, r, &o);
    const float s = shade(0, 1);
    const int x0 = 8, w = 184; /* the fitted span: 200 * 0.04 .. 200 * 0.96 */
    for (int k = 0; k < 4; k++) {
        for (int row = 20; row < 180; row += 7) {
            /* the middle half of each strip, away from its borders */
            for (int col = x0 + k * w / 4 + w / 16; col < x0 + (k + 1) * w / 4 - w / 16; col++) {
                const uint8_t *p = img + 4 * ((size_t)row * o.size + (size_t)col);
                for (int ch = 0; ch < 3; ch++)
                    require(near(p[ch], (int)(four[k][ch] * s + 0.5f)),
                            "terrace %d, pixel (%d, %d) channel %d: %d, want %d", k, col, row,
                            ch, p[ch], (int)(four[k][ch] * s + 0.5f));
                require(p[3] == 255, "alpha %d", p[3]);
            }
        }
    }
    corners_background(img, &o); /* in the margin */
    free(img);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Two colours spread over four terraces: 0, 1/3, 2/3, 1 of the way. */
START_TEST(test_colour_ramp)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = ramp(ctx, 16, 0);
    static const uint8_t two[2][3] = {{0, 90, 255}, {255, 0, 90}};
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 100;
    o.view = STRATA_VIEW_TOP;
    const strata_palette pal = palette_of(two, 2);
    o.palette = &pal;
    uint8_t *img = render(ctx, r, &o);
    const float s = shade(0, 1);
    for (int k = 0; k < 4; k++) {
        const int col = 4 + 92 * (2 * k + 1) / 8;
        const uint8_t *p = img + 4 * ((size_t)50 * o.size + (size_t)col);
        for (int ch = 0; ch < 3; ch++) {
            const float a = two[0][ch], b = two[1][ch];
            const int want = (int)((a + (b - a) * (float)k / 3) * s + 0.5f);
            ck_assert_msg(near(p[ch], want), "terrace %d channel %d: %d, want %d", k, ch, p[ch],
                          want);
        }
    }
    free(img);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Oblique view of a descending ramp, every terrace the same grey: the
 * walls face the viewer.  Roofs all have the shade of an upward face,
 * seen 35 degrees from above; every other covered pixel is a wall and
 * must be darker (the palette's wall colour is 0.6 of the roof's, and
 * no shade exceeds 1). */
START_TEST(test_oblique_walls_darker)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = ramp(ctx, 24, 1);
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 256;
    o.view = STRATA_VIEW_OBLIQUE;
    const strata_palette pal = palette_of(grey, 1);
    o.palette = &pal;
    uint8_t *img = render(ctx, r, &o);
    const float e = 35 * 0.0174532925f;
    const int roof = (int)(200 * shade(cosf(e), sinf(e)) + 0.5f);
    size_t nroof = 0, nwall = 0;
    for (size_t i = 0; i < (size_t)o.size * o.size; i++) {
        const uint8_t *p = img + 4 * i;
        if (!memcmp(p, o.background, 4))
            continue;
        require(p[0] == p[1] && p[1] == p[2], "pixel %zu is not grey", i);
        if (near(p[0], roof))
            nroof++;
        else
            require(p[0] < roof - 1, "pixel %zu: %d brighter than a roof (%d)", i, p[0], roof);
        nwall += p[0] < roof - 1;
    }
    ck_assert_msg(nroof > 10000, "%zu roof pixels", nroof);
    ck_assert_msg(nwall > 1000, "%zu wall pixels", nwall);
    free(img);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A planet fills a disc: background in the corners, terrain in the middle;
 * AUTO means PLANET for a RADIAL result. */
START_TEST(test_planet_view)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = planet(ctx, 4);
    ck_assert_int_eq(strata_preview_auto_view(r), STRATA_VIEW_PLANET);
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 128;
    uint8_t *img = render(ctx, r, &o);
    o.view = STRATA_VIEW_PLANET;
    uint8_t *img2 = render(ctx, r, &o);
    ck_assert_mem_eq(img, img2, (size_t)o.size * o.size * 4);
    for (int y = 0; y < 10; y++)
        for (int x = 0; x < 10; x++) {
            const int xs[4] = {x, 127 - x, x, 127 - x}, ys[4] = {y, y, 127 - y, 127 - y};
            for (int c = 0; c < 4; c++)
                require(!memcmp(img + 4 * (ys[c] * 128 + xs[c]), o.background, 4),
                        "corner pixel (%d, %d) is not background", xs[c], ys[c]);
        }
    /* the disc: every pixel within 80% of the radius is covered */
    size_t covered = 0;
    for (int y = 0; y < 128; y++)
        for (int x = 0; x < 128; x++) {
            const float dx = (float)x + 0.5f - 64, dy = (float)y + 0.5f - 64;
            const int bg = !memcmp(img + 4 * (y * 128 + x), o.background, 4);
            covered += !bg;
            if (dx * dx + dy * dy < 0.8f * 0.8f * 61.44f * 61.44f * 0.9f * 0.9f)
                require(!bg, "hole at (%d, %d)", x, y);
        }
    ck_assert_msg(covered > 128 * 128 / 2, "%zu pixels covered", covered);
    /* other views work on planets too */
    o.view = STRATA_VIEW_TOP;
    free(render(ctx, r, &o));
    o.view = STRATA_VIEW_OBLIQUE;
    free(render(ctx, r, &o));
    free(img);
    free(img2);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Same bytes twice and for 1, 2 and 3 threads, for every view. */
START_TEST(test_deterministic)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *p = planet(ctx, 5), *t = ramp(ctx, 40, 1);
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 160;
    const size_t n = (size_t)o.size * o.size * 4;
    for (int v = 0; v < 4; v++) {
        o.view = (strata_preview_view)v;
        for (int w = 0; w < 2; w++) {
            const strata_result *r = w ? t : p;
            if (w && v == STRATA_VIEW_PLANET)
                continue;
            ck_assert_ok(strata_ctx_set_threads(ctx, 1));
            uint8_t *a = render(ctx, r, &o);
            uint8_t *b = render(ctx, r, &o);
            ck_assert_ok(strata_ctx_set_threads(ctx, 2));
            uint8_t *c = render(ctx, r, &o);
            ck_assert_ok(strata_ctx_set_threads(ctx, 3));
            uint8_t *d = render(ctx, r, &o);
            ck_assert_msg(!memcmp(a, b, n), "view %d: two runs differ", v);
            ck_assert_msg(!memcmp(a, c, n), "view %d: 1 and 2 threads differ", v);
            ck_assert_msg(!memcmp(a, d, n), "view %d: 1 and 3 threads differ", v);
            free(a), free(b), free(c), free(d);
        }
    }
    strata_result_destroy(p);
    strata_result_destroy(t);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Water (strata_result_add_water) drawn translucent, alpha 0.6 as its
 * glTF material: the ramp seen from the top with the sea at 1.5 covers
 * the strips of terraces 0 and 1 (roofs at 0 and 1), which turn bluer,
 * exactly the sRGB water colour (0.02, 0.15, 0.45 linear) shaded like a
 * roof, at 0.6 over them; terraces 2 and 3 stand above it, unchanged, and
 * so does the margin. */
START_TEST(test_water_terrain)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = ramp(ctx, 32, 0);
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 200;
    o.view = STRATA_VIEW_TOP;
    const strata_palette pal = palette_of(four, 4);
    o.palette = &pal;
    uint8_t *dry = render(ctx, r, &o);
    ck_assert_ok(strata_result_add_water(ctx, r, 1.5f, NULL, 0, 0));
    uint8_t *wet = render(ctx, r, &o);
    const float s = shade(0, 1);
    const float water[3] = {38.68f, 108.01f, 178.86f};
    const int x0 = 8, w = 184; /* the fitted span, as test_top_ramp_colours */
    for (int k = 0; k < 4; k++)
        for (int row = 20; row < 180; row += 7)
            for (int col = x0 + k * w / 4 + w / 16; col < x0 + (k + 1) * w / 4 - w / 16; col++) {
                const size_t i = 4 * ((size_t)row * o.size + (size_t)col);
                const uint8_t *a = dry + i, *b = wet + i;
                if (k >= 2) {
                    require(!memcmp(a, b, 4), "terrace %d above the sea, (%d, %d) changed", k,
                            col, row);
                    continue;
                }
                require(b[2] - b[0] > a[2] - a[0] && b[2] > a[2],
                        "terrace %d under the sea, (%d, %d) not bluer: %d %d %d, dry %d %d %d", k,
                        col, row, b[0], b[1], b[2], a[0], a[1], a[2]);
                for (int ch = 0; ch < 3; ch++) {
                    const int wc = (int)(water[ch] * s + 0.5f);
                    const int want = (153 * wc + 102 * a[ch] + 127) / 255;
                    require(near(b[ch], want), "(%d, %d) channel %d: %d, want %d", col, row, ch,
                            b[ch], want);
                }
                require(b[3] == 255, "alpha %d", b[3]);
            }
    corners_background(wet, &o);
    free(dry);
    free(wet);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A grey planet with its sea at its fourth plane: where the picture
 * changes it turns bluer (the sea over the lower terraces), much of it
 * does and much (the land above the sea, the background) does not; the
 * same bytes for 1 and 3 threads. */
START_TEST(test_water_planet)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = planet(ctx, 5);
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 160;
    const strata_palette pal = palette_of(grey, 1);
    o.palette = &pal;
    uint8_t *dry = render(ctx, r, &o);
    strata_result_view v;
    strata_result_get_view(r, &v);
    const float sea = v.terraces[3].level;
    ck_assert_ok(strata_result_add_water(ctx, r, sea, NULL, 0, 5));
    uint8_t *wet = render(ctx, r, &o);
    ck_assert_ok(strata_ctx_set_threads(ctx, 3));
    uint8_t *wet3 = render(ctx, r, &o);
    ck_assert_mem_eq(wet, wet3, (size_t)o.size * o.size * 4);
    size_t changed = 0, same_land = 0;
    for (size_t i = 0; i < (size_t)o.size * o.size; i++) {
        const uint8_t *a = dry + 4 * i, *b = wet + 4 * i;
        if (!memcmp(a, b, 4)) {
            same_land += memcmp(a, o.background, 4) != 0;
            continue;
        }
        changed++;
        require(b[2] - b[0] > a[2] - a[0], "pixel %zu changed but not bluer: %d %d %d, dry %d %d %d",
                i, b[0], b[1], b[2], a[0], a[1], a[2]);
    }
    const size_t npx = (size_t)o.size * o.size;
    ck_assert_msg(changed > npx / 20, "%zu pixels under the sea", changed);
    ck_assert_msg(same_land > npx / 20, "%zu pixels of land above the sea", same_land);
    free(dry);
    free(wet);
    free(wet3);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A result seen edge-on has no extent along one image axis; a single
 * vertical triangle seen from the top covers nothing. */
START_TEST(test_degenerate)
{
    strata_ctx *ctx = ctx_new(0);
    static const float xyz[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const uint32_t tri[3] = {0, 1, 2};
    strata_mesh *m;
    ck_assert_ok(strata_mesh_create(ctx, xyz, 3, tri, 1, &m));
    strata_result *r;
    ck_assert_ok(strata_result_from_mesh(ctx, m, 0, &r));
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 32;
    o.view = STRATA_VIEW_TOP;
    uint8_t *img = render(ctx, r, &o);
    for (size_t i = 0; i < 32 * 32; i++)
        require(!memcmp(img + 4 * i, o.background, 4), "pixel %zu covered", i);
    free(img);
    o.view = STRATA_VIEW_OBLIQUE;
    img = render(ctx, r, &o);
    size_t covered = 0;
    for (size_t i = 0; i < 32 * 32; i++)
        covered += memcmp(img + 4 * i, o.background, 4) != 0;
    ck_assert_uint_gt(covered, 0);
    free(img);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_cancel)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = ramp(ctx, 8, 0);
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 32;
    uint8_t img[32 * 32 * 4];
    strata_ctx_cancel(ctx);
    ck_assert_status(strata_preview_render(ctx, r, &o, img), STRATA_ERR_CANCELLED);
    strata_ctx_reset_cancel(ctx);
    ck_assert_ok(strata_preview_render(ctx, r, &o, img));
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ PNG */

#if HAVE_SPNG || HAVE_LIBPNG
/* Decode an 8-bit RGB or RGBA PNG file to RGBA; returns NULL on failure. */
static uint8_t *png_load(const char *path, uint32_t *w, uint32_t *h, int *channels)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *out = NULL;
#if HAVE_SPNG
    spng_ctx *sp = spng_ctx_new(0);
    struct spng_ihdr ihdr;
    size_t n;
    if (sp && !spng_set_png_file(sp, f) && !spng_get_ihdr(sp, &ihdr) && ihdr.bit_depth == 8 &&
        !spng_decoded_image_size(sp, SPNG_FMT_RGBA8, &n) && (out = malloc(n)) &&
        !spng_decode_image(sp, out, n, SPNG_FMT_RGBA8, 0)) {
        *w = ihdr.width;
        *h = ihdr.height;
        *channels = ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA ? 4
                    : ihdr.color_type == SPNG_COLOR_TYPE_TRUECOLOR     ? 3
                                                                       : 0;
    } else {
        free(out);
        out = NULL;
    }
    spng_ctx_free(sp);
#else
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep *rows = NULL;
    if (info && !setjmp(png_jmpbuf(png))) {
        png_init_io(png, f);
        png_read_info(png, info);
        *w = png_get_image_width(png, info);
        *h = png_get_image_height(png, info);
        const int ct = png_get_color_type(png, info);
        *channels = ct == PNG_COLOR_TYPE_RGB_ALPHA ? 4 : ct == PNG_COLOR_TYPE_RGB ? 3 : 0;
        if (ct == PNG_COLOR_TYPE_RGB)
            png_set_filler(png, 0xff, PNG_FILLER_AFTER);
        png_read_update_info(png, info);
        out = malloc((size_t)*w * *h * 4);
        rows = malloc(*h * sizeof *rows);
        for (uint32_t y = 0; y < *h; y++)
            rows[y] = out + (size_t)y * *w * 4;
        png_read_image(png, rows);
        png_read_end(png, NULL);
    }
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
#endif
    fclose(f);
    return out;
}
#endif

START_TEST(test_png_roundtrip)
{
#if HAVE_SPNG || HAVE_LIBPNG
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = planet(ctx, 3);
    char *dir = tmpdir_new();
    char path[4096];
    snprintf(path, sizeof path, "%s/p.png", dir);
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 96;
    uint8_t *img = render(ctx, r, &o);
    for (int alpha = 0; alpha < 2; alpha++) {
        if (alpha) { /* transparent background: an RGBA file */
            memcpy(o.background, (uint8_t[4]){0, 0, 0, 0}, 4);
            free(img);
            img = render(ctx, r, &o);
        }
        ck_assert_ok(strata_preview_write_png(ctx, r, &o, path));
        uint32_t w = 0, h = 0;
        int ch = 0;
        uint8_t *back = png_load(path, &w, &h, &ch);
        ck_assert_ptr_nonnull(back);
        ck_assert_uint_eq(w, 96);
        ck_assert_uint_eq(h, 96);
        ck_assert_int_eq(ch, alpha ? 4 : 3);
        ck_assert_mem_eq(back, img, (size_t)96 * 96 * 4);
        free(back);
        ck_assert_int_eq(dir_entries(dir, NULL), 1);
    }
    free(img);
    unlink(path);
    rmdir(dir);
    free(dir);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
#endif
}
END_TEST

/* A failed write leaves nothing behind: no file in a missing directory,
 * and no temporary file when the rename fails (the name is a directory). */
START_TEST(test_png_atomic)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = ramp(ctx, 8, 0);
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 32;
#if HAVE_SPNG || HAVE_LIBPNG
    char *dir = tmpdir_new();
    char path[4096];
    snprintf(path, sizeof path, "%s/missing/p.png", dir);
    errno = 0;
    ck_assert_status(strata_preview_write_png(ctx, r, &o, path), STRATA_ERR_IO);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_int_eq(dir_entries(dir, NULL), 0);
    snprintf(path, sizeof path, "%s/d.png", dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    ck_assert_status(strata_preview_write_png(ctx, r, &o, path), STRATA_ERR_IO);
    ck_assert_int_eq(dir_entries(dir, NULL), 1); /* the directory only */
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert(S_ISDIR(sb.st_mode));
    rmdir(path);
    /* an existing file is replaced only when the new one is complete */
    snprintf(path, sizeof path, "%s/old.png", dir);
    FILE *f = fopen(path, "w");
    fputs("old", f);
    fclose(f);
    o.size = 0;
    ck_assert_status(strata_preview_write_png(ctx, r, &o, path), STRATA_ERR_INVALID_ARG);
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_eq(sb.st_size, 3);
    o.size = 32;
    ck_assert_ok(strata_preview_write_png(ctx, r, &o, path));
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_gt(sb.st_size, 33);
    ck_assert_int_eq(dir_entries(dir, NULL), 1);
    unlink(path);
    rmdir(dir);
    free(dir);
#else
    ck_assert_status(strata_preview_write_png(ctx, r, &o, "/tmp/never.png"),
                     STRATA_ERR_UNSUPPORTED);
#endif
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

static Suite *preview_suite(void)
{
    Suite *s = suite_create("preview");
    TCase *tc = tcase_create("Core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_top_ramp_colours);
    tcase_add_test(tc, test_colour_ramp);
    tcase_add_test(tc, test_oblique_walls_darker);
    tcase_add_test(tc, test_planet_view);
    tcase_add_test(tc, test_deterministic);
    tcase_add_test(tc, test_degenerate);
    tcase_add_test(tc, test_water_terrain);
    tcase_add_test(tc, test_water_planet);
    suite_add_tcase(s, tc);
    TCase *lim = tcase_create("Limits");
    tcase_add_test(lim, test_bad_args);
    tcase_add_test(lim, test_cancel);
    suite_add_tcase(s, lim);
    TCase *png = tcase_create("PNG");
    tcase_add_test(png, test_png_roundtrip);
    tcase_add_test(png, test_png_atomic);
    suite_add_tcase(s, png);
    return s;
}

int main(void) { return run_suite(preview_suite()); }
