/* Suite "heightmap": PGM, PFM and PNG decoding, limits, corrupt input,
 * loading from files and the grid mesh built from a heightmap.  Every test
 * file is generated here in memory; PNGs are assembled by hand (stored
 * deflate blocks, our own CRC and Adler sums) so the suite needs no PNG
 * library and feeds both libspng and libpng builds the same bytes. */
#define _POSIX_C_SOURCE 200809L /* ftruncate, mkdtemp, posix_memalign */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if HAVE_SPNG || HAVE_LIBPNG
#define HAVE_PNG 1
#else
#define HAVE_PNG 0
#endif

/* ------------------------------------------------------------ buffers */

typedef struct {
    uint8_t *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    if (n)
        memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void put_str(buf *b, const char *s) { put(b, s, strlen(s)); }
static void put_u8(buf *b, unsigned v) { uint8_t c = (uint8_t)v; put(b, &c, 1); }

static void put_be32(buf *b, uint32_t v)
{
    uint8_t d[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    put(b, d, 4);
}

static void put_f32(buf *b, float f, int little)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    uint8_t d[4];
    for (int k = 0; k < 4; k++)
        d[k] = (uint8_t)(little ? u >> (8 * k) : u >> (24 - 8 * k));
    put(b, d, 4);
}

/* -------------------------------------------------- contexts, checks */

static strata_status decode(const buf *b, strata_heightmap **out)
{
    strata_ctx *ctx = ctx_new(0);
    const void *d = b->p ? (const void *)b->p : "";
    strata_status st = strata_heightmap_decode(ctx, d, b->n, out);
    strata_ctx_destroy(ctx);
    return st;
}

/* Decode and compare with expected samples exactly; no leaks. */
static void expect_samples(const buf *b, uint32_t w, uint32_t h, const float *want)
{
    test_alloc c;
    strata_ctx *ctx = ctx_new_counting(0, &c);
    strata_heightmap *hm;
    ck_assert_ok(strata_heightmap_decode(ctx, b->p, b->n, &hm));
    ck_assert_uint_eq(strata_heightmap_width(hm), w);
    ck_assert_uint_eq(strata_heightmap_height(hm), h);
    const float *d = strata_heightmap_data(hm);
    for (size_t i = 0; i < (size_t)w * h; i++)
        ck_assert_msg(d[i] == want[i], "%ux%u: sample %zu (x %zu, y %zu): got %.9g, want %.9g",
                      w, h, i, i % w, i / w, d[i], want[i]);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
    ck_assert_int_eq(c.live, 0);
}

static void expect_status(const buf *b, strata_status want)
{
    strata_heightmap *hm = (strata_heightmap *)&hm;
    ck_assert_status(decode(b, &hm), want);
    ck_assert_ptr_null(hm);
}

static void expect_text(const char *text, strata_status want)
{
    buf b = {0};
    put_str(&b, text);
    strata_heightmap *hm = (strata_heightmap *)&hm;
    strata_status st = decode(&b, &hm);
    ck_assert_msg(st == want, "\"%s\" -> %s, expected %s", text, strata_status_str(st),
                  strata_status_str(want));
    ck_assert_ptr_null(hm);
    free(b.p);
}

/* Every proper prefix of a valid file fails (with `want` unless it is
 * STRATA_OK, meaning "any error"), never crashing. */
static void expect_prefixes_fail(const buf *b, strata_status want)
{
    strata_ctx *ctx = ctx_new(0);
    for (size_t n = 0; n < b->n; n++) {
        strata_heightmap *hm = NULL;
        strata_status st = strata_heightmap_decode(ctx, b->p, n, &hm);
        if (want != STRATA_OK)
            ck_assert_msg(st == want, "prefix of %zu/%zu bytes -> %s", n, b->n,
                          strata_status_str(st));
        else
            ck_assert_msg(st != STRATA_OK, "prefix of %zu/%zu bytes decoded", n, b->n);
        ck_assert_ptr_null(hm);
    }
    strata_ctx_destroy(ctx);
}

/* A huge claimed size in a tiny file must fail without a big allocation. */
static void expect_refused_small(const buf *b, strata_status want)
{
    test_alloc c;
    strata_ctx *ctx = ctx_new_counting(0, &c);
    c.limit = (size_t)1 << 20;
    strata_heightmap *hm = NULL;
    ck_assert_status(strata_heightmap_decode(ctx, b->p, b->n, &hm), want);
    ck_assert_ptr_null(hm);
    ck_assert_msg(c.biggest <= ((size_t)1 << 20), "asked for %zu bytes", (size_t)c.biggest);
    strata_ctx_destroy(ctx);
    ck_assert_int_eq(c.live, 0);
}

/* ------------------------------------------------------------ PGM */

static const uint16_t pgm_vals[6] = {0, 1, 254, 255, 7, 128};

static buf make_pgm(const char *header, const uint16_t *v, size_t n, int two_bytes)
{
    buf b = {0};
    put_str(&b, header);
    for (size_t i = 0; i < n; i++) {
        if (two_bytes)
            put_u8(&b, v[i] >> 8);
        put_u8(&b, v[i] & 0xff);
    }
    return b;
}

START_TEST(test_pgm8)
{
    /* Comments everywhere a separator may be, mixed whitespace. */
    buf b = make_pgm("P5\n# made by a test\n3 # width\n\t2\r\n# maxval next\n255\n", pgm_vals, 6, 0);
    float want[6];
    for (int i = 0; i < 6; i++)
        want[i] = (float)pgm_vals[i] / 255.0f;
    expect_samples(&b, 3, 2, want);
    expect_prefixes_fail(&b, STRATA_ERR_TRUNCATED);
    free(b.p);

    /* Minimal header, maxval below 255; samples above maxval clamp to 1. */
    const uint16_t v[4] = {0, 50, 100, 200};
    b = make_pgm("P5 2 2 100 ", v, 4, 0);
    expect_samples(&b, 2, 2, (const float[]){0.0f, 0.5f, 1.0f, 1.0f});
    /* Bytes after the raster (another image, padding) are ignored. */
    put_str(&b, "trailing");
    expect_samples(&b, 2, 2, (const float[]){0.0f, 0.5f, 1.0f, 1.0f});
    free(b.p);
}
END_TEST

START_TEST(test_pgm16)
{
    const uint16_t v[6] = {0, 1, 256, 65534, 65535, 0x1234};
    buf b = make_pgm("P5\n3 2\n65535\n", v, 6, 1);
    float want[6];
    for (int i = 0; i < 6; i++)
        want[i] = (float)v[i] / 65535.0f;
    expect_samples(&b, 3, 2, want);
    expect_prefixes_fail(&b, STRATA_ERR_TRUNCATED);
    free(b.p);

    /* maxval 256 is the smallest two-byte one. */
    const uint16_t v2[4] = {0, 128, 256, 1};
    b = make_pgm("P5 2 2 256\n", v2, 4, 1);
    expect_samples(&b, 2, 2, (const float[]){0.0f, 0.5f, 1.0f, 1.0f / 256.0f});
    free(b.p);
}
END_TEST

START_TEST(test_pgm_bad_headers)
{
    /* Unknown magic. */
    expect_text("P2 2 2 255\n0000", STRATA_ERR_FORMAT);
    expect_text("P6 2 2 255\n000000000000", STRATA_ERR_FORMAT);
    expect_text("p5 2 2 255\n0000", STRATA_ERR_FORMAT);
    expect_text("GIF89a", STRATA_ERR_FORMAT);
    expect_text("X", STRATA_ERR_FORMAT);
    /* Bad numbers and separators. */
    expect_text("P52 2 255\n0000", STRATA_ERR_FORMAT);
    expect_text("P5 -2 2 255\n0000", STRATA_ERR_FORMAT);
    expect_text("P5 +2 2 255\n0000", STRATA_ERR_FORMAT);
    expect_text("P5 2x 2 255\n0000", STRATA_ERR_FORMAT);
    expect_text("P5 two 2 255\n0000", STRATA_ERR_FORMAT);
    expect_text("P5 2 2 2.5\n0000", STRATA_ERR_FORMAT);
    expect_text("P5 2 2 255x0000", STRATA_ERR_FORMAT);
    expect_text("P5 2 2 255#c\n0000", STRATA_ERR_FORMAT);
    expect_text("P5 1234567890 2 255\n0000", STRATA_ERR_FORMAT);
    expect_text("P5 99999999999999999999999 2 255\n0000", STRATA_ERR_FORMAT);
    expect_text("P5 0000000002 2 255\n0000", STRATA_ERR_FORMAT);
    /* maxval out of range. */
    expect_text("P5 2 2 0\n0000", STRATA_ERR_FORMAT);
    expect_text("P5 2 2 65536\n00000000", STRATA_ERR_FORMAT);
    expect_text("P5 2 2 70000\n00000000", STRATA_ERR_FORMAT);
    /* Sizes outside [2, 32768], more than 2^28 pixels. */
    expect_text("P5 1 2 255\n00", STRATA_ERR_TOO_LARGE);
    expect_text("P5 2 0 255\n", STRATA_ERR_TOO_LARGE);
    expect_text("P5 32769 2 255\n", STRATA_ERR_TOO_LARGE);
    expect_text("P5 2 999999999 255\n", STRATA_ERR_TOO_LARGE);
    /* Short rasters. */
    expect_text("P5 2 2 255\n000", STRATA_ERR_TRUNCATED);
    expect_text("P5 2 2 65535\n0000000", STRATA_ERR_TRUNCATED);
    expect_text("P5 2 2 # only a comment", STRATA_ERR_TRUNCATED);
}
END_TEST

START_TEST(test_pgm_huge_claims)
{
    buf b = {0};
    put_str(&b, "P5 32768 32768 65535\n\x01\x02"); /* 2^30 pixels */
    expect_refused_small(&b, STRATA_ERR_TOO_LARGE);
    free(b.p);
    b = (buf){0};
    put_str(&b, "P5 16384 16384 65535\n\x01\x02"); /* exactly 2^28: allowed */
    expect_refused_small(&b, STRATA_ERR_TRUNCATED);
    free(b.p);
}
END_TEST

/* ------------------------------------------------------------ PFM */

/* Samples in file order (bottom row first) and the top-first rows we want. */
static const float pfm_file[6] = {1.5f, -2.0f, 0.0f, 1e-30f, 3e38f, -0.25f};
static const float pfm_want[6] = {1e-30f, 3e38f, -0.25f, 1.5f, -2.0f, 0.0f};

static buf make_pfm(const char *header, const float *v, size_t n, int channels, int little)
{
    buf b = {0};
    put_str(&b, header);
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < channels; c++)
            put_f32(&b, c == 0 ? v[i] : 1000.0f + (float)c, little);
    return b;
}

START_TEST(test_pfm_grey)
{
    buf b = make_pfm("Pf\n3 2\n-1.0\n", pfm_file, 6, 1, 1);
    expect_samples(&b, 3, 2, pfm_want);
    expect_prefixes_fail(&b, STRATA_ERR_TRUNCATED);
    free(b.p);
    b = make_pfm("Pf\n3 2\n1.0\n", pfm_file, 6, 1, 0);
    expect_samples(&b, 3, 2, pfm_want);
    free(b.p);
    /* The scale's magnitude is not applied; exponents are fine. */
    b = make_pfm("Pf 3 2 +2.5e-3\n", pfm_file, 6, 1, 0);
    expect_samples(&b, 3, 2, pfm_want);
    free(b.p);
    b = make_pfm("Pf 3 2 -.5E+1 ", pfm_file, 6, 1, 1);
    expect_samples(&b, 3, 2, pfm_want);
    free(b.p);
}
END_TEST

START_TEST(test_pfm_colour)
{
    buf b = make_pfm("PF\n3 2\n-1\n", pfm_file, 6, 3, 1);
    expect_samples(&b, 3, 2, pfm_want);
    expect_prefixes_fail(&b, STRATA_ERR_TRUNCATED);
    free(b.p);
    b = make_pfm("PF\n3 2\n1\n", pfm_file, 6, 3, 0);
    expect_samples(&b, 3, 2, pfm_want);
    free(b.p);
}
END_TEST

START_TEST(test_pfm_not_finite)
{
    const float bad[3] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        for (int pos = 0; pos < 6; pos++) {
            float v[6];
            memcpy(v, pfm_file, sizeof v);
            v[pos] = bad[k];
            buf b = make_pfm("Pf\n3 2\n-1.0\n", v, 6, 1, 1);
            expect_status(&b, STRATA_ERR_NOT_FINITE);
            free(b.p);
        }
    }
    /* Only the first channel of PF matters, but it is checked. */
    float v[6];
    memcpy(v, pfm_file, sizeof v);
    v[5] = NAN;
    buf b = make_pfm("PF 3 2 1\n", v, 6, 3, 0);
    expect_status(&b, STRATA_ERR_NOT_FINITE);
    free(b.p);
}
END_TEST

START_TEST(test_pfm_bad_headers)
{
    static const char *const bad_scale[] = {
        "0", "0.0", "-0", "+0e5", "1e999", "-1e-999", "abc", "inf", "nan", "1.0.0",
        "--1", "1e", "1e+", ".", "-", "1x", "0x10", "1e12345",
        "1000000000000000000000000000000000000000000000000000"};
    for (size_t i = 0; i < sizeof bad_scale / sizeof bad_scale[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "Pf\n2 2\n%s\n0000000000000000", bad_scale[i]);
        expect_text(text, STRATA_ERR_FORMAT);
    }
    expect_text("Pf\n2 2\n-1.0x0000000000000000", STRATA_ERR_FORMAT);
    expect_text("Pf\n2 -2\n-1.0\n0000000000000000", STRATA_ERR_FORMAT);
    expect_text("Pf\n2 1\n-1.0\n00000000", STRATA_ERR_TOO_LARGE);
    expect_text("PF\n2 2\n-1.0\n0000000000000000", STRATA_ERR_TRUNCATED);
    expect_text("Pf\n2 2\n-1.0", STRATA_ERR_TRUNCATED);
    expect_text("Pf", STRATA_ERR_TRUNCATED);
    expect_text("P", STRATA_ERR_TRUNCATED);
    expect_text("", STRATA_ERR_TRUNCATED);

    buf b = {0};
    put_str(&b, "PF 32768 8193 -1\n0000"); /* 2^28 + 2^15 pixels */
    expect_refused_small(&b, STRATA_ERR_TOO_LARGE);
    free(b.p);
    b = (buf){0};
    put_str(&b, "PF 32768 8192 -1\n0000"); /* 2^28, 3 GiB of samples claimed */
    expect_refused_small(&b, STRATA_ERR_TRUNCATED);
    free(b.p);
}
END_TEST

/* ------------------------------------------------------------ PNG */

static uint32_t crc32_png(const uint8_t *p, size_t n, uint32_t crc)
{
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? crc >> 1 ^ 0xEDB88320u : crc >> 1;
    }
    return ~crc;
}

static void png_chunk(buf *b, const char *type, const uint8_t *d, size_t n)
{
    put_be32(b, (uint32_t)n);
    size_t start = b->n;
    put(b, type, 4);
    put(b, d, n);
    put_be32(b, crc32_png(b->p + start, n + 4, 0));
}

/* A zlib stream of stored (uncompressed) deflate blocks. */
static buf zlib_stored(const uint8_t *d, size_t n)
{
    buf z = {0};
    put_u8(&z, 0x78);
    put_u8(&z, 0x01);
    size_t off = 0;
    do {
        size_t k = n - off < 65535 ? n - off : 65535;
        put_u8(&z, off + k == n);
        put_u8(&z, k & 0xff);
        put_u8(&z, k >> 8);
        put_u8(&z, ~k & 0xff);
        put_u8(&z, (~k >> 8) & 0xff);
        put(&z, d + off, k);
        off += k;
    } while (off < n);
    uint32_t a = 1, s = 0;
    for (size_t i = 0; i < n; i++) {
        a = (a + d[i]) % 65521;
        s = (s + a) % 65521;
    }
    put_be32(&z, s << 16 | a);
    return z;
}

/* Filtered scanlines of an image given as w*h*ch samples, Adam7 passes when
 * interlaced.  Odd rows of each pass use the Sub filter. */
static buf png_scanlines(uint32_t w, uint32_t h, int ch, int depth, const uint16_t *s,
                         int interlace)
{
    static const uint32_t adam7[7][4] = {{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8},
                                         {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2},
                                         {0, 1, 1, 2}};
    static const uint32_t plain[1][4] = {{0, 0, 1, 1}};
    const uint32_t(*pass)[4] = interlace ? adam7 : plain;
    const int npass = interlace ? 7 : 1;
    const size_t bpp = ch * depth >= 8 ? (size_t)ch * depth / 8 : 1;
    buf out = {0};
    uint8_t *row = malloc((size_t)w * 8 + 8), *flt = malloc((size_t)w * 8 + 8);
    ck_assert_ptr_nonnull(row);
    ck_assert_ptr_nonnull(flt);
    for (int p = 0; p < npass; p++) {
        const uint32_t x0 = pass[p][0], y0 = pass[p][1], dx = pass[p][2], dy = pass[p][3];
        if (x0 >= w || y0 >= h)
            continue; /* empty pass */
        uint32_t r = 0;
        for (uint32_t y = y0; y < h; y += dy, r++) {
            size_t k = 0, bytes;
            memset(row, 0, (size_t)w * 8 + 8);
            for (uint32_t x = x0; x < w; x += dx)
                for (int c = 0; c < ch; c++, k++) {
                    uint16_t v = s[((size_t)y * w + x) * ch + c];
                    if (depth == 16) {
                        row[2 * k] = (uint8_t)(v >> 8);
                        row[2 * k + 1] = (uint8_t)v;
                    } else if (depth == 8) {
                        row[k] = (uint8_t)v;
                    } else {
                        row[k * depth / 8] |= (uint8_t)(v << (8 - depth - (k * depth) % 8));
                    }
                }
            bytes = (k * depth + 7) / 8;
            const int sub = r % 2;
            for (size_t i = 0; i < bytes; i++)
                flt[i] = sub ? (uint8_t)(row[i] - (i >= bpp ? row[i - bpp] : 0)) : row[i];
            put_u8(&out, sub);
            put(&out, flt, bytes);
        }
    }
    free(row);
    free(flt);
    return out;
}

enum { GREY = 0, RGB = 2, PALETTE = 3, GREY_ALPHA = 4 };

/* A whole PNG file.  The IDAT stream is split in two chunks when long
 * enough, to cover multi-IDAT files. */
static buf make_png(uint32_t w, uint32_t h, int depth, int color, int interlace,
                    const uint16_t *samples)
{
    static const int channels[7] = {1, 0, 3, 1, 2, 0, 4};
    buf raw = png_scanlines(w, h, channels[color], depth, samples, interlace);
    buf z = zlib_stored(raw.p, raw.n);
    buf b = {0};
    put(&b, "\x89PNG\r\n\x1a\n", 8);
    buf ihdr = {0};
    put_be32(&ihdr, w);
    put_be32(&ihdr, h);
    put_u8(&ihdr, depth);
    put_u8(&ihdr, color);
    put_u8(&ihdr, 0);
    put_u8(&ihdr, 0);
    put_u8(&ihdr, interlace);
    png_chunk(&b, "IHDR", ihdr.p, ihdr.n);
    if (color == PALETTE) {
        uint8_t plte[768];
        for (int i = 0; i < 768; i++)
            plte[i] = (uint8_t)(i / 3);
        png_chunk(&b, "PLTE", plte, 768);
    }
    size_t half = z.n > 16 ? z.n / 2 : z.n;
    png_chunk(&b, "IDAT", z.p, half);
    if (half < z.n)
        png_chunk(&b, "IDAT", z.p + half, z.n - half);
    png_chunk(&b, "IEND", NULL, 0);
    free(raw.p);
    free(z.p);
    free(ihdr.p);
    return b;
}

/* Samples in [0, 2^depth) for a w x h image with ch channels. */
static uint16_t *png_samples(uint32_t w, uint32_t h, int ch, int depth)
{
    uint16_t *s = malloc((size_t)w * h * ch * sizeof *s);
    ck_assert_ptr_nonnull(s);
    const uint32_t maxval = (1u << depth) - 1;
    for (size_t i = 0; i < (size_t)w * h * ch; i++)
        s[i] = (uint16_t)((i * 2654435761u >> 7) & maxval);
    s[0] = 0;
    s[ch] = (uint16_t)maxval; /* both ends of the range */
    return s;
}

/* Decode a grey / grey+alpha PNG and compare with sample/maxval. */
static void check_png(uint32_t w, uint32_t h, int depth, int color, int interlace)
{
    const int ch = color == GREY_ALPHA ? 2 : 1;
    uint16_t *s = png_samples(w, h, ch, depth);
    buf b = make_png(w, h, depth, color, interlace, s);
#if HAVE_PNG
    float *want = malloc((size_t)w * h * sizeof *want);
    ck_assert_ptr_nonnull(want);
    for (size_t i = 0; i < (size_t)w * h; i++)
        want[i] = (float)s[i * ch] / (float)((1u << depth) - 1);
    expect_samples(&b, w, h, want);
    free(want);
#else
    expect_status(&b, STRATA_ERR_UNSUPPORTED);
#endif
    free(s);
    free(b.p);
}

START_TEST(test_png_grey)
{
    static const int depths[5] = {1, 2, 4, 8, 16};
    for (int d = 0; d < 5; d++)
        for (int il = 0; il < 2; il++) {
            check_png(3, 2, depths[d], GREY, il);
            check_png(13, 11, depths[d], GREY, il); /* rows not byte aligned */
        }
}
END_TEST

START_TEST(test_png_grey_alpha)
{
    for (int il = 0; il < 2; il++) {
        check_png(5, 4, 8, GREY_ALPHA, il);
        check_png(5, 4, 16, GREY_ALPHA, il);
    }
}
END_TEST

START_TEST(test_png_large)
{
    /* Bigger than a zlib window and one stored block. */
    check_png(1024, 300, 8, GREY, 0);
    check_png(300, 257, 16, GREY, 1);
}
END_TEST

START_TEST(test_png_unsupported_colour)
{
    uint16_t *s = png_samples(4, 4, 3, 8);
    buf b = make_png(4, 4, 8, RGB, 0, s);
    expect_status(&b, STRATA_ERR_UNSUPPORTED);
    free(b.p);
    b = make_png(4, 4, 8, PALETTE, 0, s);
    expect_status(&b, STRATA_ERR_UNSUPPORTED);
    free(b.p);
    free(s);
}
END_TEST

static void put_ihdr_only(buf *b, uint32_t w, uint32_t h)
{
    put(b, "\x89PNG\r\n\x1a\n", 8);
    uint8_t ihdr[13] = {0};
    for (int k = 0; k < 4; k++) {
        ihdr[k] = (uint8_t)(w >> (24 - 8 * k));
        ihdr[4 + k] = (uint8_t)(h >> (24 - 8 * k));
    }
    ihdr[8] = 16;
    png_chunk(b, "IHDR", ihdr, 13);
    png_chunk(b, "IDAT", (const uint8_t *)"\x78\x01", 2);
}

START_TEST(test_png_limits)
{
    static const uint32_t dims[][2] = {{32768, 32768}, {40000, 2}, {2, 1u << 31}, {1, 2},
                                       {2, 0}, {16385, 16384}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        buf b = {0};
        put_ihdr_only(&b, dims[i][0], dims[i][1]);
        expect_refused_small(&b, STRATA_ERR_TOO_LARGE);
        free(b.p);
    }
    /* Within the limits, but far more pixels than the file could inflate
     * to: truncated, found before anything image-sized is allocated. */
    static const uint32_t fits[][2] = {{16384, 16384}, {32768, 8192}, {2048, 2048}};
    for (size_t i = 0; i < sizeof fits / sizeof fits[0]; i++) {
        buf b = {0};
        put_ihdr_only(&b, fits[i][0], fits[i][1]);
        png_chunk(&b, "IEND", NULL, 0);
        expect_refused_small(&b, STRATA_ERR_TRUNCATED);
        free(b.p);
    }
}
END_TEST

/* A copy of png with a `type` chunk of n bytes after the IHDR (CRC right
 * unless bad_crc, which spares summing huge chunks). */
static buf with_chunk(const buf *png, const char *type, size_t n, int bad_crc)
{
    buf b = {0};
    put(&b, png->p, 33); /* signature and IHDR */
    put_be32(&b, (uint32_t)n);
    size_t start = b.n;
    put(&b, type, 4);
    uint8_t *zeros = calloc(n ? n : 1, 1);
    ck_assert_ptr_nonnull(zeros);
    zeros[0] = 'k'; /* a keyword, then empty text */
    put(&b, zeros, n);
    free(zeros);
    put_be32(&b, bad_crc ? 0 : crc32_png(b.p + start, n + 4, 0));
    put(&b, png->p + 33, png->n - 33);
    return b;
}

START_TEST(test_png_metadata_limit)
{
    uint16_t *s = png_samples(4, 3, 1, 8);
    buf png = make_png(4, 3, 8, GREY, 0, s);
    /* 2 MiB of text is ignored... */
    buf b = with_chunk(&png, "tEXt", (size_t)2 << 20, 0);
#if HAVE_PNG
    float want[12];
    for (int i = 0; i < 12; i++)
        want[i] = (float)s[i] / 255.0f;
    expect_samples(&b, 4, 3, want);
#else
    expect_status(&b, STRATA_ERR_UNSUPPORTED);
#endif
    free(b.p);
    /* ...more than 64 MiB is refused before a library sees it. */
    b = with_chunk(&png, "tEXt", ((size_t)1 << 26) + 1, 1);
    expect_refused_small(&b, STRATA_ERR_TOO_LARGE);
    free(b.p);
    free(png.p);
    free(s);
}
END_TEST

static size_t find(const buf *b, const char *s)
{
    for (size_t i = 0; i + strlen(s) <= b->n; i++)
        if (memcmp(b->p + i, s, strlen(s)) == 0)
            return i;
    ck_abort_msg("%s not found", s);
    return 0;
}

START_TEST(test_png_truncated)
{
    uint16_t *s = png_samples(5, 4, 1, 8);
    buf b = make_png(5, 4, 8, GREY, 0, s);
    /* Also without a PNG library: the chunks are walked first. */
    expect_prefixes_fail(&b, STRATA_ERR_TRUNCATED);
    free(b.p);
    free(s);
}
END_TEST

START_TEST(test_png_corrupt)
{
    uint16_t *s = png_samples(6, 5, 1, 8);
    buf good = make_png(6, 5, 8, GREY, 1, s);
    const size_t idat = find(&good, "IDAT");
    const uint32_t idat_len = (uint32_t)good.p[idat - 4] << 24 | good.p[idat - 3] << 16 |
                              good.p[idat - 2] << 8 | good.p[idat - 1];
    buf b = {0};
    put(&b, good.p, good.n);

    /* A flipped IDAT byte fails the chunk CRC. */
    b.p[idat + 4 + 3] ^= 0x10;
    expect_status(&b, HAVE_PNG ? STRATA_ERR_FORMAT : STRATA_ERR_UNSUPPORTED);
    memcpy(b.p, good.p, good.n);
    /* So does a flipped CRC byte. */
    b.p[idat + 4 + idat_len] ^= 0x01;
    expect_status(&b, HAVE_PNG ? STRATA_ERR_FORMAT : STRATA_ERR_UNSUPPORTED);
    memcpy(b.p, good.p, good.n);
    /* With the CRC fixed up, the zlib stream's own check fails. */
    b.p[idat + 4 + 10] ^= 0x40;
    size_t cpos = idat + 4 + idat_len;
    uint32_t crc = crc32_png(b.p + idat, idat_len + 4, 0);
    b.p[cpos] = (uint8_t)(crc >> 24);
    b.p[cpos + 1] = (uint8_t)(crc >> 16);
    b.p[cpos + 2] = (uint8_t)(crc >> 8);
    b.p[cpos + 3] = (uint8_t)crc;
    expect_status(&b, HAVE_PNG ? STRATA_ERR_FORMAT : STRATA_ERR_UNSUPPORTED);

    /* Every byte flipped three ways, chunk CRCs repaired so the damage
     * reaches the decoder: never a crash, a leak or a bad size. */
    test_alloc c;
    strata_ctx *ctx = ctx_new_counting(0, &c);
    c.limit = (size_t)1 << 24;
    static const uint8_t masks[3] = {0x01, 0x80, 0xff};
    for (size_t i = 8; i < good.n; i++)
        for (int m = 0; m < 3; m++) {
            memcpy(b.p, good.p, good.n);
            b.p[i] ^= masks[m];
            for (size_t p = 8; p + 12 <= b.n;) { /* repair CRCs */
                uint32_t n = (uint32_t)b.p[p] << 24 | b.p[p + 1] << 16 | b.p[p + 2] << 8 |
                             b.p[p + 3];
                if (n > b.n - p - 12)
                    break;
                crc = crc32_png(b.p + p + 4, n + 4, 0);
                for (int k = 0; k < 4; k++)
                    b.p[p + 8 + n + k] = (uint8_t)(crc >> (24 - 8 * k));
                p += 12 + (size_t)n;
            }
            strata_heightmap *hm = NULL;
            strata_status st = strata_heightmap_decode(ctx, b.p, b.n, &hm);
            if (st == STRATA_OK) {
                ck_assert_uint_ge(strata_heightmap_width(hm), 2);
                ck_assert_uint_ge(strata_heightmap_height(hm), 2);
                const float *d = strata_heightmap_data(hm);
                for (size_t k = 0; k < (size_t)strata_heightmap_width(hm) *
                                           strata_heightmap_height(hm); k++)
                    ck_assert(d[k] >= 0.0f && d[k] <= 1.0f);
                strata_heightmap_destroy(hm);
            } else {
                ck_assert_ptr_null(hm);
            }
            ck_assert_int_eq(c.live, 1); /* only the context */
        }
    strata_ctx_destroy(ctx);
    free(b.p);
    free(good.p);
    free(s);
}
END_TEST

/* --------------------------------------------------- allocation failure */

START_TEST(test_allocation_failures)
{
    /* Fail the k-th allocation for every k until decoding succeeds: each
     * failure is reported as NOMEM and leaks nothing. */
    uint16_t *s = png_samples(9, 9, 2, 16);
    buf files[3];
    files[0] = make_png(9, 9, 16, GREY_ALPHA, 1, s);
    files[1] = make_pgm("P5 3 2 255\n", pgm_vals, 6, 0);
    files[2] = make_pfm("Pf 3 2 -1\n", pfm_file, 6, 1, 1);
    for (int f = HAVE_PNG ? 0 : 1; f < 3; f++) {
        for (long k = 0;; k++) {
            test_alloc c;
            strata_ctx *ctx = ctx_new_counting(0, &c);
            c.fail_at = c.count + k;
            strata_heightmap *hm = NULL;
            strata_status st = strata_heightmap_decode(ctx, files[f].p, files[f].n, &hm);
            strata_heightmap_destroy(hm);
            strata_ctx_destroy(ctx);
            ck_assert_int_eq(c.live, 0);
            if (st == STRATA_OK)
                break;
            ck_assert_msg(st == STRATA_ERR_NOMEM, "file %d, failing allocation %ld -> %s", f,
                          k, strata_status_str(st));
            ck_assert_int_lt(k, 1000);
        }
    }
    for (int f = 0; f < 3; f++)
        free(files[f].p);
    free(s);
}
END_TEST

/* ------------------------------------------------------------ API */

START_TEST(test_api_args)
{
    strata_ctx *ctx = ctx_new(0);
    strata_heightmap *hm = (strata_heightmap *)&hm;
    ck_assert_status(strata_heightmap_decode(ctx, "P5", 2, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_heightmap_decode(NULL, "P5", 2, &hm), STRATA_ERR_INVALID_ARG);
    ck_assert_ptr_null(hm);
    hm = (strata_heightmap *)&hm;
    ck_assert_status(strata_heightmap_decode(ctx, NULL, 0, &hm), STRATA_ERR_INVALID_ARG);
    ck_assert_ptr_null(hm);
    ck_assert_status(strata_heightmap_load(ctx, NULL, &hm), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_heightmap_load(NULL, "x", &hm), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_heightmap_load(ctx, "x", NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_uint_eq(strata_heightmap_width(NULL), 0);
    ck_assert_uint_eq(strata_heightmap_height(NULL), 0);
    ck_assert_ptr_null(strata_heightmap_data(NULL));
    strata_heightmap_destroy(NULL);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ files */

START_TEST(test_load)
{
    char dir[] = "/tmp/strata-hm-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/map.pfm", dir);
    buf b = make_pfm("PF\n3 2\n-1\n", pfm_file, 6, 3, 1);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b.p, 1, b.n, f), b.n);
    ck_assert_int_eq(fclose(f), 0);

    test_alloc c;
    strata_ctx *ctx = ctx_new_counting(0, &c);
    strata_heightmap *a, *m;
    ck_assert_ok(strata_heightmap_load(ctx, path, &a));
    ck_assert_ok(strata_heightmap_decode(ctx, b.p, b.n, &m));
    ck_assert_uint_eq(strata_heightmap_width(a), 3);
    ck_assert_uint_eq(strata_heightmap_height(a), 2);
    ck_assert_mem_eq(strata_heightmap_data(a), strata_heightmap_data(m), 6 * sizeof(float));
    strata_heightmap_destroy(a);
    strata_heightmap_destroy(m);

    /* Errors are those of decoding, or IO. */
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b.p, 1, b.n - 1, f), b.n - 1);
    ck_assert_int_eq(fclose(f), 0);
    a = (strata_heightmap *)&a;
    ck_assert_status(strata_heightmap_load(ctx, path, &a), STRATA_ERR_TRUNCATED);
    ck_assert_ptr_null(a);
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_status(strata_heightmap_load(ctx, path, &a), STRATA_ERR_TRUNCATED);
    /* Bigger than any heightmap: refused without reading (a sparse file). */
    f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    if (ftruncate(fileno(f), (off_t)((uint64_t)STRATA_HEIGHTMAP_MAX_PIXELS * 12 + 4097)) == 0)
        ck_assert_status(strata_heightmap_load(ctx, path, &a), STRATA_ERR_TOO_LARGE);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(unlink(path), 0);
    errno = 0;
    ck_assert_status(strata_heightmap_load(ctx, path, &a), STRATA_ERR_IO);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_status(strata_heightmap_load(ctx, dir, &a), STRATA_ERR_IO);
    ck_assert_ptr_null(a);
    /* a FIFO nothing writes to, a device: refused at once, no waiting */
    char *fifo = fifo_new(dir, "hm.pgm");
    const char *const odd[] = {fifo, "/dev/null"};
    for (int k = 0; k < 2; k++) {
        errno = 0;
        ck_assert_status(strata_heightmap_load(ctx, odd[k], &a), STRATA_ERR_IO);
        ck_assert_int_eq(errno, EINVAL);
    }
    alarm(0);
    unlink(fifo);
    free(fifo);
    strata_ctx_destroy(ctx);
    ck_assert_int_eq(c.live, 0);
    ck_assert_int_eq(rmdir(dir), 0);
    free(b.p);
}
END_TEST

/* ------------------------------------------------------- opened files */

static void write_file(const char *path, const void *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(d, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

/* An opened file reads, window by window, exactly what decoding gives. */
static void expect_open_equals_decode(strata_ctx *ctx, const char *path, const buf *b)
{
    write_file(path, b->p, b->n);
    strata_heightmap *o, *m;
    ck_assert_ok(strata_heightmap_open(ctx, path, &o));
    ck_assert_ok(strata_heightmap_decode(ctx, b->p, b->n, &m));
    ck_assert_ptr_null(strata_heightmap_data(o));
    const uint32_t w = strata_heightmap_width(m), h = strata_heightmap_height(m);
    ck_assert_uint_eq(strata_heightmap_width(o), w);
    ck_assert_uint_eq(strata_heightmap_height(o), h);
    const float *want = strata_heightmap_data(m);
    float *got = malloc((size_t)w * h * sizeof *got);
    ck_assert_ptr_nonnull(got);
    /* every window with corners on a coarse lattice, edges included */
    for (uint32_t y = 0; y < h; y += 5)
        for (uint32_t x = 0; x < w; x += 7)
            for (uint32_t wh = 1; wh <= h - y; wh += 4)
                for (uint32_t ww = 1; ww <= w - x; ww += 6) {
                    memset(got, 0xff, (size_t)ww * wh * sizeof *got);
                    require_eq(strata_heightmap_read(o, x, y, ww, wh, got), STRATA_OK);
                    for (uint32_t j = 0; j < wh; j++)
                        require(!memcmp(got + (size_t)j * ww, want + (size_t)(y + j) * w + x,
                                        ww * sizeof *got),
                                "%s: window %u,%u %ux%u row %u", path, x, y, ww, wh, j);
                }
    ck_assert_ok(strata_heightmap_read(o, 0, 0, w, h, got));
    ck_assert_mem_eq(got, want, (size_t)w * h * sizeof *got);
    float lo, hi, mlo, mhi;
    ck_assert_ok(strata_heightmap_range(o, &lo, &hi));
    ck_assert_ok(strata_heightmap_range(m, &mlo, &mhi));
    ck_assert(lo == mlo && hi == mhi);
    /* the same grid mesh */
    strata_mesh *a, *c;
    ck_assert_ok(strata_mesh_from_heightmap(ctx, o, 0.5f, 3.0f, &a));
    ck_assert_ok(strata_mesh_from_heightmap(ctx, m, 0.5f, 3.0f, &c));
    strata_mesh_view va, vc;
    strata_mesh_get_view(a, &va);
    strata_mesh_get_view(c, &vc);
    ck_assert_uint_eq(va.nverts, (size_t)w * h);
    ck_assert_mem_eq(va.y, vc.y, (size_t)w * h * sizeof(float));
    ck_assert_mem_eq(va.h, vc.h, (size_t)w * h * sizeof(float));
    strata_mesh_destroy(a);
    strata_mesh_destroy(c);
    free(got);
    strata_heightmap_destroy(o);
    strata_heightmap_destroy(m);
}

START_TEST(test_open)
{
    char dir[] = "/tmp/strata-hm-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/map", dir);
    test_alloc cnt;
    strata_ctx *ctx = ctx_new_counting(0, &cnt);

    enum { W = 37, H = 23 };
    uint16_t v[W * H];
    float f[W * H];
    uint32_t r = 12345;
    for (int i = 0; i < W * H; i++) {
        r = r * 1103515245u + 12345u;
        v[i] = (uint16_t)(r >> 16);
        f[i] = (float)(int32_t)r * 1e-6f;
    }
    buf b = make_pgm("P5\n# a comment\n37 23\n255\n", v, W * H, 0);
    for (int i = 0; i < W * H; i++)
        b.p[b.n - W * H + i] = (uint8_t)v[i];
    expect_open_equals_decode(ctx, path, &b);
    free(b.p);
    b = make_pgm("P5 37 23 60000\n", v, W * H, 1); /* samples above maxval too */
    expect_open_equals_decode(ctx, path, &b);
    free(b.p);
    for (int little = 0; little < 2; little++)
        for (int ch = 1; ch <= 3; ch += 2) {
            char head[32];
            snprintf(head, sizeof head, "P%c\n37 23\n%s\n", ch == 3 ? 'F' : 'f',
                     little ? "-1.0" : "2.5");
            b = make_pfm(head, f, W * H, ch, little);
            expect_open_equals_decode(ctx, path, &b);
            free(b.p);
        }

    /* wider than a heightmap held in memory may be: opens, reads */
    const uint32_t wide = STRATA_HEIGHTMAP_MAX_SIDE + 7;
    b = (buf){0};
    put_str(&b, "P5 32775 2 255\n");
    for (uint32_t i = 0; i < 2 * wide; i++)
        put_u8(&b, (i * 7) & 0xff);
    write_file(path, b.p, b.n);
    strata_heightmap *o = (strata_heightmap *)&o, *m;
    ck_assert_status(strata_heightmap_load(ctx, path, &m), STRATA_ERR_TOO_LARGE);
    ck_assert_ok(strata_heightmap_open(ctx, path, &o));
    ck_assert_uint_eq(strata_heightmap_width(o), wide);
    float row[3];
    ck_assert_ok(strata_heightmap_read(o, wide - 3, 1, 3, 1, row));
    for (int k = 0; k < 3; k++)
        ck_assert(row[k] == (float)(((wide + wide - 3 + (uint32_t)k) * 7) & 0xff) / 255.0f);
    /* a mesh of it would be made whole: refused */
    strata_mesh *mesh = (strata_mesh *)&mesh;
    ck_assert_status(strata_mesh_from_heightmap(ctx, o, 1.0f, 1.0f, &mesh), STRATA_ERR_TOO_LARGE);
    ck_assert_ptr_null(mesh);
    /* windows outside it */
    ck_assert_status(strata_heightmap_read(o, wide - 3, 1, 4, 1, row), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_heightmap_read(o, 0, 2, 1, 1, row), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_heightmap_read(o, wide, 0, 1, 1, row), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_heightmap_read(NULL, 0, 0, 1, 1, row), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_heightmap_read(o, 0, 0, 1, 1, NULL), STRATA_ERR_INVALID_ARG);
    /* the file shrinks under it: truncated, not garbage */
    ck_assert_int_eq(truncate(path, (off_t)(b.n - 10)), 0);
    ck_assert_status(strata_heightmap_read(o, wide - 3, 1, 3, 1, row), STRATA_ERR_TRUNCATED);
    float lo, hi;
    ck_assert_status(strata_heightmap_range(o, &lo, &hi), STRATA_ERR_TRUNCATED);
    strata_heightmap_destroy(o);
    free(b.p);

    /* refused at open: short file, sides, long header, not a file */
    o = (strata_heightmap *)&o;
    write_file(path, "P5 4 4 255\n0123456789abcde", 26);
    ck_assert_status(strata_heightmap_open(ctx, path, &o), STRATA_ERR_TRUNCATED);
    ck_assert_ptr_null(o);
    write_file(path, "P5 16777217 2 255\n", 18);
    ck_assert_status(strata_heightmap_open(ctx, path, &o), STRATA_ERR_TOO_LARGE);
    write_file(path, "P5 1 2 255\nab", 13);
    ck_assert_status(strata_heightmap_open(ctx, path, &o), STRATA_ERR_TOO_LARGE);
    write_file(path, "Pf 2 2 0\n", 9);
    ck_assert_status(strata_heightmap_open(ctx, path, &o), STRATA_ERR_FORMAT);
    b = (buf){0};
    put_str(&b, "P5\n#");
    for (int i = 0; i < 70000; i++)
        put_u8(&b, 'x');
    put_str(&b, "\n2 2 255\nabcd");
    write_file(path, b.p, b.n);
    ck_assert_status(strata_heightmap_open(ctx, path, &o), STRATA_ERR_FORMAT);
    free(b.p);
    errno = 0;
    ck_assert_status(strata_heightmap_open(ctx, dir, &o), STRATA_ERR_IO);
    ck_assert_int_eq(errno, EISDIR);
    ck_assert_ptr_null(o);

    /* a PFM with a NaN opens; reading the sample says so */
    const float nan_row[4] = {1.0f, NAN, 2.0f, 3.0f};
    b = make_pfm("Pf 2 2 -1\n", nan_row, 4, 1, 1);
    write_file(path, b.p, b.n);
    ck_assert_ok(strata_heightmap_open(ctx, path, &o));
    ck_assert_ok(strata_heightmap_read(o, 0, 0, 2, 1, row)); /* the top row: no NaN */
    ck_assert_status(strata_heightmap_read(o, 0, 1, 2, 1, row), STRATA_ERR_NOT_FINITE);
    ck_assert_status(strata_heightmap_range(o, &lo, &hi), STRATA_ERR_NOT_FINITE);
    strata_heightmap_destroy(o);
    free(b.p);
#if HAVE_PNG
    /* PNG is decoded whole */
    uint16_t *ps = png_samples(5, 4, 1, 8);
    b = make_png(5, 4, 8, 0, 0, ps);
    write_file(path, b.p, b.n);
    ck_assert_ok(strata_heightmap_open(ctx, path, &o));
    ck_assert_ptr_nonnull(strata_heightmap_data(o));
    float win[6];
    ck_assert_ok(strata_heightmap_read(o, 1, 1, 3, 2, win));
    for (int k = 0; k < 6; k++)
        ck_assert(win[k] == strata_heightmap_data(o)[(1 + k / 3) * 5 + 1 + k % 3]);
    strata_heightmap_destroy(o);
    free(b.p);
    free(ps);
#endif
    ck_assert_int_eq(unlink(path), 0);
    strata_ctx_destroy(ctx);
    ck_assert_int_eq(cnt.live, 0);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

#if HAVE_SPNG
/* A PNG wider than a heightmap held in memory may be: decoded once to a
 * temporary file, read in windows, the same values decoding gives. */
static void check_open_png(strata_ctx *ctx, const char *path, int depth, int color)
{
    const uint32_t w = STRATA_HEIGHTMAP_MAX_SIDE + 7, h = 3;
    const int ch = color == GREY_ALPHA ? 2 : 1;
    uint16_t *s = png_samples(w, h, ch, depth);
    buf b = make_png(w, h, depth, color, 0, s);
    write_file(path, b.p, b.n);
    strata_heightmap *o;
    ck_assert_ok(strata_heightmap_open(ctx, path, &o));
    ck_assert_ptr_null(strata_heightmap_data(o));
    ck_assert_uint_eq(strata_heightmap_width(o), w);
    ck_assert_uint_eq(strata_heightmap_height(o), h);
    float *got = malloc((size_t)w * h * sizeof *got);
    ck_assert_ptr_nonnull(got);
    ck_assert_ok(strata_heightmap_read(o, 0, 0, w, h, got));
    for (size_t i = 0; i < (size_t)w * h; i++)
        require(got[i] == (float)s[i * ch] / (float)((1u << depth) - 1),
                "depth %d colour %d: sample %zu", depth, color, i);
    ck_assert_ok(strata_heightmap_read(o, w - 5, 1, 5, 2, got));
    for (int k = 0; k < 10; k++)
        ck_assert(got[k] == (float)s[((size_t)(1 + k / 5) * w + w - 5 + k % 5) * ch] /
                                (float)((1u << depth) - 1));
    strata_heightmap_destroy(o);
    /* cut short, or interlaced: refused, and nothing left behind */
    write_file(path, b.p, b.n / 2);
    o = (strata_heightmap *)&o;
    ck_assert_status(strata_heightmap_open(ctx, path, &o), STRATA_ERR_TRUNCATED);
    ck_assert_ptr_null(o);
    free(b.p);
    b = make_png(w, h, depth, color, 1, s);
    write_file(path, b.p, b.n);
    ck_assert_status(strata_heightmap_open(ctx, path, &o), STRATA_ERR_UNSUPPORTED);
    free(b.p);
    free(got);
    free(s);
}
#endif

START_TEST(test_open_png)
{
#if HAVE_SPNG
    char dir[] = "/tmp/strata-hm-XXXXXX", tmp[] = "/tmp/strata-spill-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_ptr_nonnull(mkdtemp(tmp));
    ck_assert_int_eq(setenv("TMPDIR", tmp, 1), 0);
    char path[64];
    snprintf(path, sizeof path, "%s/map.png", dir);
    test_alloc cnt;
    strata_ctx *ctx = ctx_new_counting(0, &cnt);
    static const int depths[5] = {1, 2, 4, 8, 16};
    for (int d = 0; d < 5; d++)
        check_open_png(ctx, path, depths[d], GREY);
    check_open_png(ctx, path, 8, GREY_ALPHA);
    check_open_png(ctx, path, 16, GREY_ALPHA);
    /* the temporary files had no name: the directory is empty */
    ck_assert_int_eq(rmdir(tmp), 0);
    /* no place for the temporary file */
    uint16_t *s = png_samples(STRATA_HEIGHTMAP_MAX_SIDE + 1, 2, 1, 8);
    buf b = make_png(STRATA_HEIGHTMAP_MAX_SIDE + 1, 2, 8, GREY, 0, s);
    write_file(path, b.p, b.n);
    strata_heightmap *o = (strata_heightmap *)&o;
    ck_assert_status(strata_heightmap_open(ctx, path, &o), STRATA_ERR_IO);
    ck_assert_ptr_null(o);
    unsetenv("TMPDIR");
    free(b.p);
    free(s);
    ck_assert_int_eq(unlink(path), 0);
    strata_ctx_destroy(ctx);
    ck_assert_int_eq(cnt.live, 0);
    ck_assert_int_eq(rmdir(dir), 0);
#endif
}
END_TEST

/* ------------------------------------------------------------ mesh */

START_TEST(test_mesh_from_heightmap)
{
    /* 4 x 3 samples: 3 x 2 cells. */
    const uint16_t v[12] = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110};
    buf b = make_pgm("P5 4 3 100\n", v, 12, 0);
    strata_ctx *ctx = ctx_new(0);
    strata_heightmap *hm;
    ck_assert_ok(strata_heightmap_decode(ctx, b.p, b.n, &hm));
    strata_mesh *m;
    ck_assert_ok(strata_mesh_from_heightmap(ctx, hm, 2.0f, 10.0f, &m));
    strata_mesh_view mv;
    strata_mesh_get_view(m, &mv);
    ck_assert_uint_eq(mv.nverts, 12);
    ck_assert_uint_eq(mv.ntris, 12);
    ck_assert_uint_eq(mv.nedges, 3 * 3 + 4 * 2 + 3 * 2);
    ck_assert_int_eq(mv.geometry, STRATA_FLAT);
    const float *d = strata_heightmap_data(hm);
    for (uint32_t j = 0; j < 3; j++)
        for (uint32_t i = 0; i < 4; i++) {
            const uint32_t k = j * 4 + i;
            ck_assert(mv.y[k] == d[k] * 10.0f);
            ck_assert(mv.h[k] == mv.y[k]);
            ck_assert(mv.x[k] == ((float)i - 1.5f) * 2.0f);
            ck_assert(mv.z[k] == ((float)j - 1.0f) * 2.0f); /* row 0 at the smallest z */
        }
    ck_assert(mv.y[11] == 10.0f);
    strata_mesh_destroy(m);

    /* Bad arguments. */
    m = (strata_mesh *)&m;
    const float bad_cell[] = {0.0f, -1.0f, NAN, INFINITY};
    for (int k = 0; k < 4; k++) {
        ck_assert_status(strata_mesh_from_heightmap(ctx, hm, bad_cell[k], 1.0f, &m),
                         STRATA_ERR_INVALID_ARG);
        ck_assert_ptr_null(m);
    }
    ck_assert_status(strata_mesh_from_heightmap(ctx, hm, 1.0f, NAN, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_mesh_from_heightmap(ctx, hm, 1.0f, -INFINITY, &m),
                     STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_mesh_from_heightmap(ctx, NULL, 1.0f, 1.0f, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_mesh_from_heightmap(NULL, hm, 1.0f, 1.0f, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_mesh_from_heightmap(ctx, hm, 1.0f, 1.0f, NULL), STRATA_ERR_INVALID_ARG);
    strata_heightmap_destroy(hm);
    free(b.p);

    /* A PFM sample times the scale can overflow. */
    b = make_pfm("Pf 3 2 -1\n", pfm_file, 6, 1, 1);
    ck_assert_ok(strata_heightmap_decode(ctx, b.p, b.n, &hm));
    ck_assert_status(strata_mesh_from_heightmap(ctx, hm, 1.0f, 10.0f, &m), STRATA_ERR_NOT_FINITE);
    ck_assert_ptr_null(m);
    ck_assert_ok(strata_mesh_from_heightmap(ctx, hm, 1.0f, -1.0f, &m));
    ck_assert(strata_mesh_vertex_count(m) == 6);
    strata_mesh_get_view(m, &mv);
    for (int k = 0; k < 6; k++)
        ck_assert(mv.y[k] == -pfm_want[k]);
    strata_mesh_destroy(m);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
    free(b.p);
}
END_TEST

/* ------------------------------------------------------------ GDAL */

/* An ESRI ASCII grid of w x h samples (row 0 at the top, as the file
 * lists them), corner (1000, 2000), cells of 30, nodata -9999 in the
 * block [bx0, bx1) x [by0, by1); its samples in want (NaN at holes). */
static buf make_asc(uint32_t w, uint32_t h, uint32_t bx0, uint32_t bx1, uint32_t by0,
                    uint32_t by1, float *want)
{
    buf b = {0};
    char line[128];
    snprintf(line, sizeof line,
             "ncols %u\nnrows %u\nxllcorner 1000\nyllcorner 2000\ncellsize 30\n"
             "NODATA_value -9999\n",
             w, h);
    put_str(&b, line);
    for (uint32_t j = 0; j < h; j++) {
        for (uint32_t i = 0; i < w; i++) {
            const bool hole = i >= bx0 && i < bx1 && j >= by0 && j < by1;
            const float v = hole ? -9999.0f : 0.25f * (float)i - 0.75f * (float)j + 100.5f;
            want[(size_t)j * w + i] = hole ? NAN : v;
            snprintf(line, sizeof line, "%s%.9g", i ? " " : "", (double)v);
            put_str(&b, line);
        }
        put_str(&b, "\n");
    }
    return b;
}

static char *write_tmp(const char *dir, const char *name, const buf *b)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(b->p, 1, b->n, f), b->n);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

/* Samples equal bit for bit, NaN where want has NaN. */
static void require_samples(const strata_heightmap *hm, const float *want, size_t n)
{
    const float *d = strata_heightmap_data(hm);
    for (size_t i = 0; i < n; i++)
        require(isnan(want[i]) ? isnan(d[i]) : d[i] == want[i], "sample %zu: %g, want %g", i,
                (double)d[i], (double)want[i]);
}

START_TEST(test_gdal_raster)
{
    const uint32_t w = 9, h = 7;
    float want[63];
    buf b = make_asc(w, h, 3, 5, 2, 4, want);
    strata_ctx *ctx = ctx_new(0);
    strata_heightmap *hm = (strata_heightmap *)&hm;
    if (!strata_gdal_support()) { /* without GDAL: an unknown format, as before */
        ck_assert_status(strata_heightmap_decode(ctx, b.p, b.n, &hm), STRATA_ERR_FORMAT);
        ck_assert_ptr_null(hm);
        strata_ctx_destroy(ctx);
        free(b.p);
        return;
    }
    char *dir = tmpdir_new();
    const char *path = write_tmp(dir, "dem.asc", &b);
    test_alloc c;
    strata_ctx *cc = ctx_new_counting(0, &c);
    for (int from_file = 0; from_file < 2; from_file++) {
        ck_assert_ok(from_file ? strata_heightmap_load(cc, path, &hm)
                               : strata_heightmap_decode(cc, b.p, b.n, &hm));
        ck_assert_uint_eq(strata_heightmap_width(hm), w);
        ck_assert_uint_eq(strata_heightmap_height(hm), h);
        require_samples(hm, want, (size_t)w * h);
        strata_heightmap_info info;
        ck_assert_ok(strata_heightmap_get_info(hm, &info));
        ck_assert_int_eq(info.source_units, 1);
        ck_assert_int_eq(info.georeferenced, 1);
        ck_assert_uint_eq(info.nodata, 4);
        ck_assert_int_eq(info.projected, 0); /* no CRS */
        /* the top-left corner and square cells, rows going south */
        const double gt[6] = {1000.0, 30.0, 0.0, 2000.0 + 30.0 * h, 0.0, -30.0};
        for (int k = 0; k < 6; k++)
            ck_assert_double_eq(info.geotransform[k], gt[k]);
        float lo, hi; /* holes are not heights */
        ck_assert_ok(strata_heightmap_range(hm, &lo, &hi));
        ck_assert(lo == want[(size_t)(h - 1) * w] && hi == want[w - 1]);
        strata_heightmap_destroy(hm);
    }
    ck_assert_int_eq(c.live, 1); /* only the context */

    /* The grid mesh leaves out every triangle with a hole at a corner and
     * the vertices no triangle keeps; the others keep their order and
     * their grid positions. */
    ck_assert_ok(strata_heightmap_load(ctx, path, &hm));
    strata_mesh *m;
    ck_assert_ok(strata_mesh_from_heightmap(ctx, hm, 2.0f, 1.0f, &m));
    strata_mesh_view mv;
    strata_mesh_get_view(m, &mv);
    uint32_t ntris = 0, nverts = 0;
    bool used[63] = {false};
    for (uint32_t j = 0; j + 1 < h; j++)
        for (uint32_t i = 0; i + 1 < w; i++) {
            /* the grid's diagonal: (i, j)-(i+1, j+1) */
            const uint32_t v00 = j * w + i, v10 = v00 + 1, v01 = v00 + w, v11 = v01 + 1;
            const uint32_t t[2][3] = {{v00, v01, v11}, {v00, v11, v10}};
            for (int k = 0; k < 2; k++) {
                if (isnan(want[t[k][0]]) || isnan(want[t[k][1]]) || isnan(want[t[k][2]]))
                    continue;
                ntris++;
                used[t[k][0]] = used[t[k][1]] = used[t[k][2]] = true;
            }
        }
    for (uint32_t k = 0, o = 0; k < w * h; k++) {
        if (!used[k])
            continue;
        nverts++;
        const uint32_t i = k % w, j = k / w;
        require(mv.y[o] == want[k] && mv.x[o] == ((float)i - 4.0f) * 2.0f &&
                    mv.z[o] == ((float)j - 3.0f) * 2.0f,
                "vertex %u of sample %u", o, k);
        o++;
    }
    ck_assert_uint_eq(mv.ntris, ntris);
    ck_assert_uint_eq(mv.nverts, nverts);
    ck_assert_uint_lt(ntris, 2 * (w - 1) * (h - 1));
    /* ... and slices like any mesh */
    float L[3] = {96.0f, 99.0f, 101.0f};
    strata_slice_options o;
    strata_slice_defaults(&o);
    o.levels = L;
    o.nlevels = 3;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &o, &r));
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    /* templates need every sample */
    ck_assert_status(strata_mesh_from_template(ctx, hm, 4, 1.0f, 1.0f, &m),
                     STRATA_ERR_UNSUPPORTED);
    ck_assert_ptr_null(m);
    strata_heightmap_destroy(hm);
    free(b.p);

    /* Bad rasters: cut short, only nodata, claiming more samples than
     * the heightmap limits or than its bytes could encode. */
    b = make_asc(w, h, 0, 0, 0, 0, want);
    b.n -= 20;
    ck_assert_status(strata_heightmap_decode(ctx, b.p, b.n, &hm), STRATA_ERR_FORMAT);
    ck_assert_ptr_null(hm);
    free(b.p);
    b = make_asc(3, 2, 0, 3, 0, 2, want);
    ck_assert_status(strata_heightmap_decode(ctx, b.p, b.n, &hm), STRATA_ERR_FORMAT);
    free(b.p);
    b = (buf){0};
    put_str(&b, "ncols 40000\nnrows 40000\nxllcorner 0\nyllcorner 0\ncellsize 1\n0 0 0\n");
    ck_assert_status(strata_heightmap_decode(ctx, b.p, b.n, &hm), STRATA_ERR_TOO_LARGE);
    free(b.p);
    b = (buf){0};
    put_str(&b, "ncols 4000\nnrows 4000\nxllcorner 0\nyllcorner 0\ncellsize 1\n0 0 0\n");
    ck_assert_status(strata_heightmap_decode(ctx, b.p, b.n, &hm), STRATA_ERR_TRUNCATED);
    ck_assert_ptr_null(hm);
    free(b.p);
    strata_ctx_destroy(cc);
    strata_ctx_destroy(ctx);
    tmpdir_remove(dir);
}
END_TEST

static Suite *heightmap_suite(void)
{
    Suite *s = suite_create("heightmap");
    TCase *tc = tcase_create("PGM");
    tcase_add_test(tc, test_pgm8);
    tcase_add_test(tc, test_pgm16);
    tcase_add_test(tc, test_pgm_bad_headers);
    suite_add_tcase(s, tc);
    tc = tcase_create("PFM");
    tcase_add_test(tc, test_pfm_grey);
    tcase_add_test(tc, test_pfm_colour);
    tcase_add_test(tc, test_pfm_not_finite);
    tcase_add_test(tc, test_pfm_bad_headers);
    suite_add_tcase(s, tc);
    tc = tcase_create("PNG");
    tcase_add_test(tc, test_png_grey);
    tcase_add_test(tc, test_png_grey_alpha);
    tcase_add_test(tc, test_png_large);
    tcase_add_test(tc, test_png_unsupported_colour);
    tcase_add_test(tc, test_png_truncated);
    tcase_add_test(tc, test_png_corrupt);
    suite_add_tcase(s, tc);
    tc = tcase_create("Limits");
    tcase_add_test(tc, test_pgm_huge_claims);
    tcase_add_test(tc, test_png_limits);
    tcase_add_test(tc, test_png_metadata_limit);
    tcase_add_test(tc, test_allocation_failures);
    tcase_add_test(tc, test_api_args);
    suite_add_tcase(s, tc);
    tc = tcase_create("Files");
    tcase_add_test(tc, test_load);
    tcase_add_test(tc, test_open);
    tcase_add_test(tc, test_open_png);
    suite_add_tcase(s, tc);
    tc = tcase_create("Mesh");
    tcase_add_test(tc, test_mesh_from_heightmap);
    tcase_add_test(tc, test_gdal_raster);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(heightmap_suite()); }
