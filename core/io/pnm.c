/* Netpbm-style heightmaps: binary PGM (P5) and PFM (Pf grey, PF colour).
 * Every size a header claims is checked against the limits and against
 * the bytes present before the pixels are allocated. */
#include "base/alloc.h"
#include "io/heightmap_read.h"
#include "mesh/heightmap.h"
#include "base/lex.h"

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
/* Headers and rows, shared by decoding and windowed reading           */
/* ------------------------------------------------------------------ */

/* Parse the header after the two magic bytes (d[1] is '5', 'f' or 'F');
 * on success *c is at the first sample byte. */
static strata_status parse_header(char magic, cursor *c, strata__pnm_layout *l)
{
    strata_status st;
    memset(l, 0, sizeof *l);
    if ((st = header_uint(c, &l->w)) != STRATA_OK || (st = header_uint(c, &l->h)) != STRATA_OK)
        return st;
    if (magic == '5') {
        l->pfm = false;
        if ((st = header_uint(c, &l->maxval)) != STRATA_OK)
            return st;
        if (l->maxval == 0 || l->maxval > 65535)
            return STRATA_ERR_FORMAT;
        l->stride = l->maxval < 256 ? 1 : 2;
    } else {
        l->pfm = true;
        if ((st = header_scale(c, &l->little)) != STRATA_OK)
            return st;
        l->stride = magic == 'F' ? 12 : 4;
    }
    return header_end(c);
}

strata_status strata__pnm_header(const uint8_t *d, size_t len, strata__pnm_layout *l)
{
    cursor c = {d + 2, d + len};
    const strata_status st = parse_header((char)d[1], &c, l);
    l->offset = (uint64_t)(c.p - d);
    return st;
}

strata_status strata__pnm_read(const strata_allocator *al, const uint8_t *d, size_t len,
                               strata_heightmap **out)
{
    strata__pnm_layout l;
    strata_status st = strata__pnm_header(d, len, &l);
    if (st != STRATA_OK || (st = strata__heightmap_check_dims(l.w, l.h)) != STRATA_OK)
        return st;
    const uint8_t *p = d + l.offset;
    if ((len - l.offset) / l.stride / l.w < l.h)
        return STRATA_ERR_TRUNCATED;
    strata_heightmap *hm;
    if ((st = strata__heightmap_new(al, l.w, l.h, &hm)) != STRATA_OK)
        return st;
    for (uint32_t y = 0; y < l.h && st == STRATA_OK; y++)
        st = strata__pnm_convert_row(&l, p + strata__pnm_file_row(&l, y) * l.w * l.stride, l.w,
                         hm->data + (size_t)y * l.w);
    if (st != STRATA_OK) {
        strata_heightmap_destroy(hm);
        return st;
    }
    *out = hm;
    return STRATA_OK;
}
