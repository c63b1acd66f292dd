/* Netpbm-style heightmaps: binary PGM (P5) and PFM (Pf grey, PF colour).
 * Every size a header claims is checked against the limits and against
 * the bytes present before the pixels are allocated. */
#include "alloc.h"
#include "heightmap.h"
#include "lex.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Netpbm-style headers (PGM and PFM)                                  */
/* ------------------------------------------------------------------ */

typedef struct {
    const uint8_t *p, *end;
} cursor;

/* The separator before a header token: at least one whitespace byte or
 * comment ('#' to the end of the line).  Running out of bytes inside the
 * header is truncation (the file is a prefix of a header), any other byte
 * where a separator must be is a format error. */
static strata_status skip_separator(cursor *c)
{
    if (c->p == c->end)
        return STRATA_ERR_TRUNCATED;
    if (!strata__is_space(*c->p) && *c->p != '#')
        return STRATA_ERR_FORMAT;
    for (;;) {
        if (c->p == c->end)
            return STRATA_ERR_TRUNCATED;
        if (*c->p == '#') {
            while (c->p < c->end && *c->p != '\n' && *c->p != '\r')
                c->p++;
        } else if (strata__is_space(*c->p)) {
            c->p++;
        } else {
            return STRATA_OK;
        }
    }
}

/* A separator, then an unsigned decimal of 1 to 9 digits.  Nine digits is
 * far above any limit, so more is garbage, not a big size. */
static strata_status header_uint(cursor *c, uint32_t *v)
{
    strata_status st = skip_separator(c);
    if (st != STRATA_OK)
        return st;
    uint32_t n = 0, digits = 0;
    while (c->p < c->end && strata__is_digit(*c->p)) {
        if (++digits > 9)
            return STRATA_ERR_FORMAT;
        n = n * 10 + (uint32_t)(*c->p++ - '0');
    }
    if (digits == 0)
        return STRATA_ERR_FORMAT;
    *v = n;
    return STRATA_OK;
}

/* The raster starts after exactly one whitespace byte following the last
 * header token. */
static strata_status header_end(cursor *c)
{
    if (c->p == c->end)
        return STRATA_ERR_TRUNCATED;
    if (!strata__is_space(*c->p))
        return STRATA_ERR_FORMAT;
    c->p++;
    return STRATA_OK;
}

/* The PFM scale: a separator, then [+-]digits[.digits][(e|E)[+-]digits].
 * Only its sign is used (negative: little-endian samples); its magnitude
 * is a nominal unit the samples are not multiplied by.  We evaluate it
 * without strtod, which depends on the locale and wants a terminated
 * string, only to refuse zero and out-of-range scales. */
static strata_status header_scale(cursor *c, bool *little_endian)
{
    strata_status st = skip_separator(c);
    if (st != STRATA_OK)
        return st;
    bool neg = false, dot = false;
    if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
        neg = *c->p++ == '-';
    double mant = 0.0;
    int e10 = 0, mdigits = 0;
    for (; c->p < c->end; c->p++) {
        if (strata__is_digit(*c->p)) {
            if (++mdigits > 40) /* a scale is a short number */
                return STRATA_ERR_FORMAT;
            mant = mant * 10.0 + (*c->p - '0');
            e10 -= dot;
        } else if (*c->p == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
    }
    if (mdigits == 0 && c->p < c->end)
        return STRATA_ERR_FORMAT;
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        bool eneg = false;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            eneg = *c->p++ == '-';
        int e = 0, edigits = 0;
        while (c->p < c->end && strata__is_digit(*c->p)) {
            if (++edigits > 4)
                return STRATA_ERR_FORMAT;
            e = e * 10 + (*c->p++ - '0');
        }
        if (edigits == 0 && c->p < c->end)
            return STRATA_ERR_FORMAT;
        e10 += eneg ? -e : e;
    }
    if (c->p == c->end)
        return STRATA_ERR_TRUNCATED;
    const double scale = mant * pow(10.0, e10);
    if (!(scale > 0.0) || !isfinite((float)scale) || (float)scale == 0.0f)
        return STRATA_ERR_FORMAT;
    *little_endian = neg;
    return STRATA_OK;
}

/* ------------------------------------------------------------------ */
/* PGM (P5)                                                            */
/* ------------------------------------------------------------------ */

static strata_status decode_pgm(const strata_allocator *al, cursor c,
                                strata_heightmap **out)
{
    uint32_t w, h, maxval;
    strata_status st;
    if ((st = header_uint(&c, &w)) != STRATA_OK ||
        (st = header_uint(&c, &h)) != STRATA_OK ||
        (st = header_uint(&c, &maxval)) != STRATA_OK)
        return st;
    if (maxval == 0 || maxval > 65535)
        return STRATA_ERR_FORMAT;
    if ((st = header_end(&c)) != STRATA_OK || (st = strata__heightmap_check_dims(w, h)) != STRATA_OK)
        return st;
    const size_t bps = maxval < 256 ? 1 : 2;
    const size_t n = (size_t)w * h;
    if ((size_t)(c.end - c.p) / bps < n)
        return STRATA_ERR_TRUNCATED;

    strata_heightmap *hm;
    if ((st = strata__heightmap_new(al, w, h, &hm)) != STRATA_OK)
        return st;
    /* Samples above maxval are invalid PGM; clamp them rather than reject a
     * file that is otherwise fine, so the result stays in [0,1]. */
    const float fmax = (float)maxval;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = bps == 1 ? c.p[i] : (uint32_t)c.p[2 * i] << 8 | c.p[2 * i + 1];
        hm->data[i] = v >= maxval ? 1.0f : (float)v / fmax;
    }
    *out = hm;
    return STRATA_OK;
}

/* ------------------------------------------------------------------ */
/* PFM (Pf grey, PF colour)                                            */
/* ------------------------------------------------------------------ */

static strata_status decode_pfm(const strata_allocator *al, cursor c,
                                uint32_t channels, strata_heightmap **out)
{
    uint32_t w, h;
    bool little = false;
    strata_status st;
    if ((st = header_uint(&c, &w)) != STRATA_OK ||
        (st = header_uint(&c, &h)) != STRATA_OK ||
        (st = header_scale(&c, &little)) != STRATA_OK ||
        (st = header_end(&c)) != STRATA_OK ||
        (st = strata__heightmap_check_dims(w, h)) != STRATA_OK)
        return st;
    const size_t stride = 4 * (size_t)channels;
    if ((size_t)(c.end - c.p) / stride / w < h)
        return STRATA_ERR_TRUNCATED;

    strata_heightmap *hm;
    if ((st = strata__heightmap_new(al, w, h, &hm)) != STRATA_OK)
        return st;
    /* File rows run bottom to top; ours run top to bottom. */
    for (uint32_t r = 0; r < h; r++) {
        const uint8_t *src = c.p + (size_t)r * w * stride;
        float *dst = hm->data + (size_t)(h - 1 - r) * w;
        for (uint32_t x = 0; x < w; x++, src += stride) {
            uint32_t bits = little ? (uint32_t)src[0] | (uint32_t)src[1] << 8 |
                                         (uint32_t)src[2] << 16 | (uint32_t)src[3] << 24
                                   : (uint32_t)src[3] | (uint32_t)src[2] << 8 |
                                         (uint32_t)src[1] << 16 | (uint32_t)src[0] << 24;
            float v;
            memcpy(&v, &bits, sizeof v);
            if (!isfinite(v)) {
                strata_heightmap_destroy(hm);
                return STRATA_ERR_NOT_FINITE;
            }
            dst[x] = v;
        }
    }
    *out = hm;
    return STRATA_OK;
}


strata_status strata__pnm_read(const strata_allocator *al, const uint8_t *d, size_t len,
                               strata_heightmap **out)
{
    const cursor c = {d + 2, d + len};
    if (d[1] == '5')
        return decode_pgm(al, c, out);
    return decode_pfm(al, c, d[1] == 'F' ? 3 : 1, out);
}
