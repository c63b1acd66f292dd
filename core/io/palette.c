/* Palettes: sRGB colour stops per terrace, built-in presets, a small text
 * format, and the colour of one terrace in sRGB or linear light. */
#define _POSIX_C_SOURCE 200809L

#include "base/readfile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PALETTE_FILE_MAX (1u << 20)

typedef struct preset {
    const char *name;
    const char *stops; /* the text format itself: one parser for both */
} preset;

static const preset presets[] = {
    {"earth", "1d3f6e 2f6fa8 d9c88f 6e9b3f 3f6b2a 7a5a3c 8a8a88 f4f6f8"},
    {"desert", "5a2a1a 8c3b1e b8622b d39a4f e6c48a f2e2bf"},
    {"ice", "0b2a4a 1f5a8a 5f9cc8 a8d4ec dff1fa ffffff"},
    {"mono", "202020 f0f0f0"},
};
#define NPRESETS (sizeof presets / sizeof presets[0])

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

strata_status strata_palette_parse(const char *text, size_t len, strata_palette *out)
{
    if ((!text && len) || !out)
        return STRATA_ERR_INVALID_ARG;
    /* Parse into a local copy: *out is written only on success. */
    strata_palette p;
    p.nstops = 0;
    const unsigned char *s = (const unsigned char *)text, *end = s + len;
    while (s < end) {
        if (is_space(*s)) {
            s++;
            continue;
        }
        if (*s == ';') {
            while (s < end && *s != '\n')
                s++;
            continue;
        }
        /* one token: up to whitespace or a comment */
        const unsigned char *t = s;
        while (t < end && !is_space(*t) && *t != ';')
            t++;
        const unsigned char *d = *s == '#' ? s + 1 : s;
        if (t - d != 6)
            return STRATA_ERR_FORMAT;
        unsigned char rgb[3];
        for (int c = 0; c < 3; c++) {
            const int hi = hexval(d[2 * c]), lo = hexval(d[2 * c + 1]);
            if (hi < 0 || lo < 0)
                return STRATA_ERR_FORMAT;
            rgb[c] = (unsigned char)(hi * 16 + lo);
        }
        if (p.nstops == STRATA_PALETTE_MAX_STOPS)
            return STRATA_ERR_TOO_LARGE;
        memcpy(p.rgb[p.nstops++], rgb, 3);
        s = t;
    }
    if (p.nstops == 0)
        return STRATA_ERR_FORMAT;
    *out = p;
    return STRATA_OK;
}

strata_status strata_palette_preset(const char *name, strata_palette *out)
{
    if (!name || !out)
        return STRATA_ERR_INVALID_ARG;
    for (size_t i = 0; i < NPRESETS; i++)
        if (!strcmp(name, presets[i].name))
            return strata_palette_parse(presets[i].stops, strlen(presets[i].stops), out);
    return STRATA_ERR_INVALID_ARG;
}

const char *strata_palette_preset_name(unsigned i)
{
    return i < NPRESETS ? presets[i].name : NULL;
}

strata_status strata_palette_load(const char *path, strata_palette *out)
{
    if (!path || !out)
        return STRATA_ERR_INVALID_ARG;
    struct stat sb;
    const int fd = strata__open_regular(path, &sb);
    if (fd < 0)
        return STRATA_ERR_IO;
    if (sb.st_size > (off_t)PALETTE_FILE_MAX) {
        close(fd);
        return STRATA_ERR_TOO_LARGE;
    }
    /* Read one byte more than the limit: a file that grew meanwhile is
     * still caught. */
    char *buf = malloc(PALETTE_FILE_MAX + 1);
    if (!buf) {
        close(fd);
        return STRATA_ERR_NOMEM;
    }
    size_t n;
    const int failed = strata__read_fd(fd, buf, PALETTE_FILE_MAX + 1, &n);
    const int e = errno;
    close(fd);
    strata_status st;
    if (failed) {
        errno = e;
        st = STRATA_ERR_IO;
    } else if (n > PALETTE_FILE_MAX) {
        st = STRATA_ERR_TOO_LARGE;
    } else {
        st = strata_palette_parse(buf, n, out);
    }
    free(buf);
    return st;
}

/* The sRGB transfer function undone (IEC 61966-2-1). */
static double srgb_to_linear(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

void strata_palette_color(const strata_palette *p, uint32_t k, uint32_t n, int wall,
                          strata_color_space space, float rgb[3])
{
    strata_palette earth;
    if (!p || p->nstops == 0 || p->nstops > STRATA_PALETTE_MAX_STOPS) {
        strata_palette_preset("earth", &earth);
        p = &earth;
    }
    if (n == 0)
        n = 1;
    if (k >= n)
        k = n - 1;
    const double t = n > 1 ? (double)k / (double)(n - 1) : 0.5;
    const double x = t * (double)(p->nstops - 1); /* position among the stops */
    uint32_t i = (uint32_t)x;
    if (i >= p->nstops - 1)
        i = p->nstops > 1 ? p->nstops - 2 : 0;
    const uint32_t j = p->nstops > 1 ? i + 1 : 0;
    double u = x - (double)i;
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    for (int c = 0; c < 3; c++) {
        double v = ((double)p->rgb[i][c] + u * ((double)p->rgb[j][c] - (double)p->rgb[i][c])) / 255.0;
        if (wall)
            v *= 0.6;
        if (space == STRATA_COLOR_LINEAR)
            v = srgb_to_linear(v);
        rgb[c] = (float)(v < 0 ? 0 : v > 1 ? 1 : v);
    }
}
