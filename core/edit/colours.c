/* Colour rules (strata_colours_*, strata_result_apply_colours): a small
 * text format of ordered rules, built-in rule sets, and the step that
 * gives every terrace triangle one colour and splits the vertices on the
 * boundaries between colours (hard edges). */
#define _POSIX_C_SOURCE 200809L
#include "base/alloc.h"
#include "base/ctx.h"
#include "base/lex.h"
#include "base/readfile.h"
#include "mesh/result.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINE_MAX_BYTES 256
#define MAX_CONDS 8

enum { Q_SLOPE, Q_HEIGHT, Q_SEA, Q_TERRACE };
enum { OP_LT, OP_LE, OP_GT, OP_GE };
enum { K_ONE, K_GRADIENT, K_PALETTE };

typedef struct cond {
    uint8_t q, op, pct;
    double v;
} cond;

typedef struct rule {
    cond c[MAX_CONDS];
    uint32_t nc;
    uint8_t kind, pct;  /* pct: the gradient's heights are percentages */
    uint32_t nstops;
    double at[STRATA_COLOUR_MAX_STOPS];
    unsigned char rgb[STRATA_COLOUR_MAX_STOPS][3];
} rule;

struct strata_colours {
    uint32_t n;
    rule r[STRATA_COLOUR_MAX_RULES];
};

typedef struct preset {
    const char *name, *text;
} preset;

static const preset presets[] = {
    {"cartoon", "# cartoon: hard-edged regions, bright colours\n"
                "slope>=60 colour 8d7b68\n"
                "sea<0 colour 3a7fc1\n"
                "sea<3% colour eedc9a\n"
                "height>=86% colour f7f9fb\n"
                "height>=76% colour a3a98a\n"
                "* gradient 0%:8ad65a 50%:5cb83f 76%:3f8f34\n"},
    {"desert", "# desert: red rock walls, sand, ochre roofs by terrace\n"
               "slope>=60 gradient 0%:7a3220 100%:b5653a\n"
               "sea<0 colour 2e8c9a\n"
               "sea<5% colour f2e2bf\n"
               "* palette e6c48a,d39a4f,b8622b,8c3b1e\n"},
    {"snow", "# snow: grey rock walls, snow on the heights\n"
             "slope>=60 colour 5d6770\n"
             "sea<0 colour 1f4a6e\n"
             "height>=35% colour f8fafc\n"
             "* gradient 0%:6d8a6a 35%:a9b8a8\n"},
};
#define NPRESETS (sizeof presets / sizeof presets[0])

/* ------------------------------------------------------------ parsing */

typedef struct lexer {
    const char *s, *end; /* the line, without its '\n' */
    uint32_t field;
    strata_colours_error *err;
    uint32_t line;
} lexer;

static strata_status fail(lexer *lx, uint32_t field, const char *what)
{
    if (lx->err) {
        lx->err->line = lx->line;
        lx->err->field = field;
        snprintf(lx->err->what, sizeof lx->err->what, "%s", what);
    }
    return STRATA_ERR_FORMAT;
}

/* The next word of the line (t, n); 0 at its end. */
static int next_word(lexer *lx, const char **t, size_t *n)
{
    while (lx->s < lx->end && (*lx->s == ' ' || *lx->s == '\t' || *lx->s == '\r'))
        lx->s++;
    if (lx->s == lx->end)
        return 0;
    *t = lx->s;
    while (lx->s < lx->end && *lx->s != ' ' && *lx->s != '\t' && *lx->s != '\r')
        lx->s++;
    *n = (size_t)(lx->s - *t);
    lx->field++;
    return 1;
}

static int hexval(unsigned char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* rrggbb or #rrggbb, exactly. */
static int parse_hex(const char *t, size_t n, unsigned char rgb[3])
{
    if (n == 7 && *t == '#') {
        t++;
        n--;
    }
    if (n != 6)
        return 0;
    for (int c = 0; c < 3; c++) {
        const int hi = hexval((unsigned char)t[2 * c]), lo = hexval((unsigned char)t[2 * c + 1]);
        if (hi < 0 || lo < 0)
            return 0;
        rgb[c] = (unsigned char)(hi * 16 + lo);
    }
    return 1;
}

/* A finite decimal number, with a '%' at its end when pct is not NULL
 * (*pct then says whether it had one). */
static int parse_number(const char *t, size_t n, double *v, uint8_t *pct)
{
    if (pct) {
        *pct = n > 0 && t[n - 1] == '%';
        n -= *pct;
    }
    float f;
    if (n == 0 || n > STRATA_MAX_NUMBER_CHARS || strata__parse_real(t, n, &f) != STRATA_OK ||
        !isfinite(f) || !strata__is_digit((unsigned char)t[n - 1]) ||
        (!strata__is_digit((unsigned char)t[0]) && t[0] != '-' && t[0] != '+' && t[0] != '.'))
        return 0;
    *v = f;
    return 1;
}

static const char *const quantity_names[] = {"slope", "height", "sea", "terrace"};

/* QUANTITY OP VALUE in one word. */
static strata_status parse_cond(lexer *lx, const char *t, size_t n, cond *c)
{
    static const char *const ops[] = {"<=", ">=", "<", ">"};
    static const uint8_t op_ids[] = {OP_LE, OP_GE, OP_LT, OP_GT};
    const uint32_t f = lx->field;
    size_t q = 0;
    while (q < n && t[q] >= 'a' && t[q] <= 'z')
        q++;
    int qi = -1;
    for (int i = 0; i < 4; i++)
        if (strata__tok_eq(t, q, quantity_names[i]))
            qi = i;
    if (qi < 0)
        return fail(lx, f, "expected a condition (slope, height, sea, terrace: slope>=60), "
                           "`*` or a colour");
    int oi = -1;
    for (int i = 0; i < 4 && oi < 0; i++)
        if (n - q >= strlen(ops[i]) && !memcmp(t + q, ops[i], strlen(ops[i])))
            oi = i;
    if (oi < 0)
        return fail(lx, f, "expected <, <=, > or >= after the quantity");
    const char *v = t + q + strlen(ops[oi]);
    const size_t vn = n - q - strlen(ops[oi]);
    c->q = (uint8_t)qi;
    c->op = op_ids[oi];
    c->pct = 0;
    if (qi == Q_TERRACE) {
        int64_t k;
        if (strata__parse_integer(v, vn, &k) != STRATA_OK || k < 0 || k > (int64_t)UINT32_MAX)
            return fail(lx, f, "expected a terrace index, a whole number >= 0");
        c->v = (double)k;
        return STRATA_OK;
    }
    if (!parse_number(v, vn, &c->v, qi == Q_SLOPE ? NULL : &c->pct))
        return fail(lx, f, qi == Q_SLOPE ? "expected a slope in degrees (a number)"
                                         : "expected a number, or a number and %");
    if (qi == Q_SLOPE && !(c->v >= 0 && c->v <= 90))
        return fail(lx, f, "expected a slope in degrees from 0 to 90");
    return STRATA_OK;
}

/* The words after `gradient`: HEIGHT:COLOUR, ascending. */
static strata_status parse_gradient(lexer *lx, rule *ru)
{
    const char *t;
    size_t n;
    ru->nstops = 0;
    while (next_word(lx, &t, &n)) {
        const char *colon = memchr(t, ':', n);
        uint8_t pct;
        if (ru->nstops == STRATA_COLOUR_MAX_STOPS)
            return fail(lx, lx->field, "too many gradient stops (at most 16)");
        const uint32_t i = ru->nstops;
        if (!colon || !parse_number(t, (size_t)(colon - t), &ru->at[i], &pct) ||
            !parse_hex(colon + 1, n - (size_t)(colon - t) - 1, ru->rgb[i]))
            return fail(lx, lx->field, "expected a gradient stop HEIGHT:rrggbb (e.g. 50%:4fa83a)");
        if (i > 0 && (pct != ru->pct || !(ru->at[i] > ru->at[i - 1])))
            return fail(lx, lx->field, pct != ru->pct
                                           ? "stops all in % or none"
                                           : "stops in ascending height");
        ru->pct = pct;
        ru->nstops++;
    }
    return ru->nstops ? STRATA_OK : fail(lx, lx->field + 1, "expected gradient stops HEIGHT:rrggbb");
}

/* rrggbb,rrggbb,... */
static strata_status parse_palette(lexer *lx, rule *ru)
{
    const char *t;
    size_t n;
    if (!next_word(lx, &t, &n))
        return fail(lx, lx->field + 1, "expected palette colours rrggbb,rrggbb,...");
    ru->nstops = 0;
    for (const char *s = t, *end = t + n; s <= end;) {
        const char *c = memchr(s, ',', (size_t)(end - s));
        if (!c)
            c = end;
        if (ru->nstops == STRATA_COLOUR_MAX_STOPS)
            return fail(lx, lx->field, "too many palette colours (at most 16)");
        if (!parse_hex(s, (size_t)(c - s), ru->rgb[ru->nstops++]))
            return fail(lx, lx->field, "expected palette colours rrggbb,rrggbb,...");
        s = c + 1;
    }
    return STRATA_OK;
}

/* One rule's line (not blank, not a comment). */
static strata_status parse_rule(lexer *lx, rule *ru)
{
    const char *t;
    size_t n;
    memset(ru, 0, sizeof *ru);
    int star = 0;
    for (;;) {
        if (!next_word(lx, &t, &n))
            return fail(lx, lx->field + 1, "expected colour, gradient or palette");
        if (strata__tok_eq(t, n, "colour") || strata__tok_eq(t, n, "color") ||
            strata__tok_eq(t, n, "gradient") || strata__tok_eq(t, n, "palette"))
            break;
        if (star)
            return fail(lx, lx->field, "expected colour, gradient or palette after `*`");
        if (strata__tok_eq(t, n, "*")) {
            if (ru->nc)
                return fail(lx, lx->field, "`*` stands alone, without conditions");
            star = 1;
            continue;
        }
        if (ru->nc == MAX_CONDS)
            return fail(lx, lx->field, "too many conditions (at most 8)");
        const strata_status st = parse_cond(lx, t, n, &ru->c[ru->nc]);
        if (st != STRATA_OK)
            return st;
        ru->nc++;
    }
    if (!star && !ru->nc)
        return fail(lx, lx->field, "expected conditions or `*` before the colour");
    strata_status st;
    if (t[0] == 'g') {
        ru->kind = K_GRADIENT;
        st = parse_gradient(lx, ru);
    } else if (t[0] == 'p') {
        ru->kind = K_PALETTE;
        st = parse_palette(lx, ru);
    } else {
        ru->kind = K_ONE;
        ru->nstops = 1;
        st = !next_word(lx, &t, &n)      ? fail(lx, lx->field + 1, "expected a colour rrggbb")
             : !parse_hex(t, n, ru->rgb[0]) ? fail(lx, lx->field, "expected a colour rrggbb")
                                            : STRATA_OK;
    }
    if (st == STRATA_OK && next_word(lx, &t, &n))
        return fail(lx, lx->field, "expected the end of the line");
    return st;
}

strata_status strata_colours_parse(const char *text, size_t len, strata_colours **out,
                                   strata_colours_error *err)
{
    if (out)
        *out = NULL;
    if ((!text && len) || !out)
        return STRATA_ERR_INVALID_ARG;
    if (err)
        memset(err, 0, sizeof *err);
    strata_colours *c = calloc(1, sizeof *c);
    if (!c)
        return STRATA_ERR_NOMEM;
    lexer lx = {.err = err};
    strata_status st = STRATA_OK;
    for (const char *s = text, *end = text + len; s < end && st == STRATA_OK;) {
        const char *e = memchr(s, '\n', (size_t)(end - s));
        if (!e)
            e = end;
        lx.line++;
        lx.s = s;
        lx.end = e;
        lx.field = 0;
        s = e + (e < end);
        const char *t;
        size_t n;
        if (e - lx.s > LINE_MAX_BYTES || memchr(lx.s, '\0', (size_t)(e - lx.s)))
            st = fail(&lx, 0, e - lx.s > LINE_MAX_BYTES ? "a line of at most 256 bytes"
                                                        : "a NUL byte in the line");
        else if (!next_word(&lx, &t, &n) || t[0] == '#')
            continue;
        else if (c->n == STRATA_COLOUR_MAX_RULES) {
            fail(&lx, 0, "too many rules (at most 64)");
            st = STRATA_ERR_TOO_LARGE;
        } else {
            lx.s = t; /* the first word again */
            lx.field = 0;
            st = parse_rule(&lx, &c->r[c->n]);
            c->n += st == STRATA_OK;
        }
    }
    if (st == STRATA_OK && c->n == 0)
        st = fail(&lx, 0, "no rule at all");
    if (st != STRATA_OK) {
        free(c);
        return st;
    }
    *out = c;
    return STRATA_OK;
}

strata_status strata_colours_load(const char *path, strata_colours **out,
                                  strata_colours_error *err)
{
    if (out)
        *out = NULL;
    if (err)
        memset(err, 0, sizeof *err);
    if (!path || !out)
        return STRATA_ERR_INVALID_ARG;
    struct stat sb;
    const int fd = strata__open_regular(path, &sb);
    if (fd < 0)
        return STRATA_ERR_IO;
    char *buf = sb.st_size > (off_t)STRATA_COLOUR_FILE_MAX ? NULL
                                                            : malloc(STRATA_COLOUR_FILE_MAX + 1);
    if (!buf) {
        close(fd);
        return sb.st_size > (off_t)STRATA_COLOUR_FILE_MAX ? STRATA_ERR_TOO_LARGE
                                                           : STRATA_ERR_NOMEM;
    }
    size_t n;
    const int failed = strata__read_fd(fd, buf, STRATA_COLOUR_FILE_MAX + 1, &n);
    const int e = errno;
    close(fd);
    strata_status st;
    if (failed) {
        errno = e;
        st = STRATA_ERR_IO;
    } else if (n > STRATA_COLOUR_FILE_MAX) {
        st = STRATA_ERR_TOO_LARGE;
    } else {
        st = strata_colours_parse(buf, n, out, err);
    }
    free(buf);
    return st;
}

const char *strata_colours_preset_text(const char *name)
{
    for (size_t i = 0; name && i < NPRESETS; i++)
        if (!strcmp(name, presets[i].name))
            return presets[i].text;
    return NULL;
}

const char *strata_colours_preset_name(unsigned i)
{
    return i < NPRESETS ? presets[i].name : NULL;
}

strata_status strata_colours_preset(const char *name, strata_colours **out)
{
    if (out)
        *out = NULL;
    const char *text = strata_colours_preset_text(name);
    if (!text || !out)
        return STRATA_ERR_INVALID_ARG;
    return strata_colours_parse(text, strlen(text), out, NULL);
}

void strata_colours_destroy(strata_colours *c)
{
    free(c);
}

/* ------------------------------------------------------------ measures */

#define NONE 0xffffffffu

/* What the rules measure against: the span of heights, the sea. */
typedef struct frame {
    const strata_result *r;
    const strata_colours *c;
    const strata_palette *pal;
    double lo, hi;
    int sea;
    double sea_level;
    const double *vh;       /* a vertex's height (vertex_height) */
    const int32_t *terrace; /* a triangle's terrace, -1: none */
    const uint8_t *wall;    /* a triangle is in a wall range */
} frame;

static double vertex_height(const strata_result *r, uint32_t v)
{
    if (r->geometry == STRATA_FLAT)
        return r->y[v];
    const double dx = (double)r->x[v] - r->center[0], dy = (double)r->y[v] - r->center[1],
                 dz = (double)r->z[v] - r->center[2];
    return sqrt(dx * dx + dy * dy + dz * dz) - r->radius;
}

/* h, or the plane it lies on within rounding (a planet's roof vertices
 * are within a few float ulps of radius + level): a roof's height is its
 * plane's exactly, whatever its corners' last bits. */
static double snap(const strata_result *r, double h)
{
    uint32_t lo = 0, hi = r->nterraces;
    while (lo < hi) { /* the first level >= h */
        const uint32_t mid = lo + (hi - lo) / 2;
        if ((double)r->terraces[mid].level < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    const double scale = r->geometry == STRATA_RADIAL ? fabs((double)r->radius) : 0;
    for (uint32_t k = lo > 0 ? lo - 1 : 0; k <= lo && k < r->nterraces; k++) {
        const double L = r->terraces[k].level;
        if (fabs(h - L) <= 1e-6 * (fabs(L) + scale))
            return L;
    }
    return h;
}

/* A triangle's slope in degrees from up (0 for a degenerate one). */
static double tri_slope(const strata_result *r, const uint32_t *ix)
{
    double p[3][3];
    for (int k = 0; k < 3; k++) {
        p[k][0] = r->x[ix[k]];
        p[k][1] = r->y[ix[k]];
        p[k][2] = r->z[ix[k]];
    }
    const double u[3] = {p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]};
    const double w[3] = {p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]};
    const double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
                         u[0] * w[1] - u[1] * w[0]};
    double up[3] = {0, 1, 0};
    if (r->geometry == STRATA_RADIAL)
        for (int c = 0; c < 3; c++)
            up[c] = (p[0][c] + p[1][c] + p[2][c]) / 3.0 - r->center[c];
    const double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    const double un = sqrt(up[0] * up[0] + up[1] * up[1] + up[2] * up[2]);
    if (!(nn > 0) || !(un > 0))
        return 0;
    double cosang = fabs(n[0] * up[0] + n[1] * up[1] + n[2] * up[2]) / (nn * un);
    cosang = cosang > 1 ? 1 : cosang;
    return acos(cosang) * (180.0 / 3.14159265358979323846);
}

static int holds(const cond *c, double x, double limit)
{
    switch (c->op) {
    case OP_LT: return x < limit;
    case OP_LE: return x <= limit;
    case OP_GT: return x > limit;
    default: return x >= limit;
    }
}

/* Stops mixed at t in [0, 1] as strata_palette_color mixes them. */
static uint32_t mix_stops(const unsigned char (*rgb)[3], uint32_t n, double t, int wall)
{
    double x = t * (double)(n - 1);
    x = x >= 0 ? (x <= (double)(n - 1) ? x : (double)(n - 1)) : 0; /* NaN too */
    uint32_t i = (uint32_t)x;
    if (i >= n - 1)
        i = n > 1 ? n - 2 : 0;
    const uint32_t j = n > 1 ? i + 1 : 0;
    double u = x - (double)i;
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    uint32_t out = 0;
    for (int c = 0; c < 3; c++) {
        double v = (double)rgb[i][c] + u * ((double)rgb[j][c] - (double)rgb[i][c]);
        if (wall)
            v *= 0.6;
        out |= (uint32_t)floor(v + 0.5) << (8 * c);
    }
    return out;
}

/* A gradient's colour at height h. */
static uint32_t gradient_at(const frame *f, const rule *ru, double h)
{
    double at[STRATA_COLOUR_MAX_STOPS];
    for (uint32_t i = 0; i < ru->nstops; i++)
        at[i] = ru->pct ? f->lo + ru->at[i] / 100.0 * (f->hi - f->lo) : ru->at[i];
    uint32_t i = 0;
    while (i + 1 < ru->nstops && h > at[i + 1])
        i++;
    if (i + 1 == ru->nstops || h <= at[0])
        return mix_stops(ru->rgb + (h <= at[0] ? 0 : i), 1, 0, 0);
    const double u = (h - at[i]) / (at[i + 1] - at[i]);
    return mix_stops(ru->rgb + i, 2, u, 0);
}

/* A palette rule's colour of terrace k: its range from the terrace
 * conditions. */
static uint32_t palette_at(const frame *f, const rule *ru, uint32_t k, int wall)
{
    double a = 0, b = f->r->nterraces ? f->r->nterraces - 1 : 0;
    for (uint32_t i = 0; i < ru->nc; i++) {
        const cond *c = &ru->c[i];
        if (c->q != Q_TERRACE)
            continue;
        const double lo = c->op == OP_GE ? c->v : c->op == OP_GT ? c->v + 1 : -1;
        const double hi = c->op == OP_LE ? c->v : c->op == OP_LT ? c->v - 1 : 1e300;
        a = lo > a ? lo : a;
        b = hi < b ? hi : b;
    }
    const double n = b - a + 1;
    const double t = n > 1 ? ((double)k - a) / (n - 1) : 0.5;
    return mix_stops(ru->rgb, ru->nstops, t < 0 ? 0 : t > 1 ? 1 : t, wall);
}

/* Triangle t's colour, packed r | g << 8 | b << 16; NONE outside the
 * terraces. */
static uint32_t tri_colour(const frame *f, uint64_t t)
{
    const int32_t k = f->terrace[t];
    if (k < 0)
        return NONE;
    const strata_result *r = f->r;
    const uint32_t *ix = r->indices + 3 * t;
    if (ix[0] >= r->nverts || ix[1] >= r->nverts || ix[2] >= r->nverts)
        return NONE;
    double h = f->vh[ix[0]];
    for (int c = 1; c < 3; c++)
        h = f->vh[ix[c]] > h ? f->vh[ix[c]] : h;
    h = snap(r, h);
    double slope = -1;
    const double span = f->hi - f->lo;
    for (uint32_t i = 0; i < f->c->n; i++) {
        const rule *ru = &f->c->r[i];
        int ok = 1;
        for (uint32_t j = 0; j < ru->nc && ok; j++) {
            const cond *c = &ru->c[j];
            if (c->q == Q_SLOPE) {
                if (slope < 0)
                    slope = tri_slope(r, ix);
                ok = holds(c, slope, c->v);
            } else if (c->q == Q_HEIGHT) {
                ok = holds(c, h, c->pct ? f->lo + c->v / 100.0 * span : c->v);
            } else if (c->q == Q_SEA) {
                ok = f->sea && holds(c, h - f->sea_level, c->pct ? c->v / 100.0 * span : c->v);
            } else {
                ok = holds(c, (double)k, c->v);
            }
        }
        if (!ok)
            continue;
        if (ru->kind == K_ONE)
            return mix_stops(ru->rgb, 1, 0, 0);
        if (ru->kind == K_GRADIENT)
            return gradient_at(f, ru, h);
        return palette_at(f, ru, (uint32_t)k, f->wall[t]);
    }
    float rgb[3];
    strata_palette_color(f->pal, (uint32_t)k, r->nterraces, f->wall[t], STRATA_COLOR_SRGB, rgb);
    uint32_t out = 0;
    for (int c = 0; c < 3; c++)
        out |= (uint32_t)floor((double)rgb[c] * 255.0 + 0.5) << (8 * c);
    return out;
}

/* Each vertex's height, each triangle's terrace and wall flag; the span
 * of the terraced triangles' heights. */
static strata_status frame_fill(strata_ctx *ctx, frame *f, double *vh, int32_t *terrace,
                                uint8_t *wall, uint64_t ntris)
{
    const strata_result *r = f->r;
    const int64_t nv = (int64_t)r->nverts;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t v = 0; v < nv; v++)
        vh[v] = vertex_height(r, (uint32_t)v);
    f->vh = vh;
    for (uint64_t t = 0; t < ntris; t++) {
        terrace[t] = -1;
        wall[t] = 0;
    }
    for (uint32_t k = 0; k < r->nterraces; k++)
        for (int w = 0; w < 2; w++) {
            const strata_terrace *tr = &r->terraces[k];
            const uint64_t first = w ? tr->wall_first : tr->roof_first;
            const uint64_t count = w ? tr->wall_count : tr->roof_count;
            if (first > r->nindices || count > r->nindices - first || first % 3 || count % 3)
                return STRATA_ERR_INVALID_ARG;
            for (uint64_t t = first / 3; t < (first + count) / 3; t++) {
                terrace[t] = (int32_t)k;
                wall[t] = (uint8_t)w;
            }
        }
    double lo = INFINITY, hi = -INFINITY;
    const int64_t n = (int64_t)ntris;
#pragma omp parallel for num_threads(ctx->threads) schedule(static) reduction(min : lo) \
    reduction(max : hi)
    for (int64_t t = 0; t < n; t++)
        for (int c = 0; terrace[t] >= 0 && c < 3; c++) {
            const uint32_t v = r->indices[3 * t + c];
            const double h = v < r->nverts ? f->vh[v] : NAN;
            lo = h < lo ? h : lo;
            hi = h > hi ? h : hi;
        }
    f->lo = lo <= hi ? lo : 0;
    f->hi = lo <= hi ? hi : 0;
    return STRATA_OK;
}

/* ------------------------------------------------------------ splitting */

/* The split's bookkeeping: per vertex (old and new) its colour, its
 * next copy, and per new vertex its source. */
typedef struct split {
    const strata_allocator *al;
    uint32_t *col, *next, *src;
    uint64_t n, cap; /* vertices so far, room */
} split;

static int split_grow(split *s)
{
    const uint64_t cap = s->cap * 2 + 16;
    uint32_t **a[3] = {&s->col, &s->next, &s->src};
    for (int i = 0; i < 3; i++) {
        uint32_t *q = strata__alloc_array(s->al, (size_t)cap, sizeof *q);
        if (!q)
            return 0;
        if (*a[i])
            memcpy(q, *a[i], (size_t)s->n * sizeof *q);
        strata__free(s->al, *a[i]);
        *a[i] = q;
    }
    s->cap = cap;
    return 1;
}

/* The vertex of v's position with colour col: v itself, a copy of it
 * made before, or a new copy. */
static strata_status split_vertex(split *s, uint32_t v, uint32_t col, uint32_t *out)
{
    uint32_t w = v, last = v;
    if (s->col[v] == NONE)
        s->col[v] = col;
    for (; w != NONE; last = w, w = s->next[w])
        if (s->col[w] == col) {
            *out = w;
            return STRATA_OK;
        }
    if (s->n >= UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    if (s->n == s->cap && !split_grow(s))
        return STRATA_ERR_NOMEM;
    const uint32_t nw = (uint32_t)s->n++;
    s->col[nw] = col;
    s->next[nw] = NONE;
    s->src[nw] = v;
    s->next[last] = nw;
    *out = nw;
    return STRATA_OK;
}

/* new_ix: every index, those of coloured triangles redirected. */
static strata_status split_all(split *s, const strata_result *r, const uint32_t *tcol,
                               uint32_t *new_ix)
{
    const uint32_t nv = r->nverts;
    s->cap = nv;
    s->n = nv;
    if (!(s->col = strata__alloc_array(s->al, nv ? nv : 1, sizeof *s->col)) ||
        !(s->next = strata__alloc_array(s->al, nv ? nv : 1, sizeof *s->next)) ||
        !(s->src = strata__alloc_array(s->al, nv ? nv : 1, sizeof *s->src)))
        return STRATA_ERR_NOMEM;
    for (uint32_t v = 0; v < nv; v++) {
        s->col[v] = s->next[v] = NONE;
        s->src[v] = v;
    }
    for (uint64_t i = 0; i < r->nindices; i++) {
        const uint32_t v = r->indices[i], col = tcol[i / 3];
        new_ix[i] = v;
        if (col == NONE || v >= nv)
            continue;
        const strata_status st = split_vertex(s, v, col, &new_ix[i]);
        if (st != STRATA_OK)
            return st;
    }
    return STRATA_OK;
}

/* A per-vertex array of `size` bytes an element grown to s->n elements,
 * the new ones copied from their sources. */
static int extend(const strata_allocator *al, void **p, uint32_t have, const split *s,
                  size_t size)
{
    unsigned char *q = strata__alloc_array(al, (size_t)(s->n ? s->n : 1), size);
    if (!q)
        return 0;
    memcpy(q, *p, (size_t)have * size);
    for (uint64_t v = have; v < s->n; v++)
        memcpy(q + v * size, (unsigned char *)*p + (size_t)s->src[v] * size, size);
    strata__free(al, *p);
    *p = q;
    return 1;
}

/* r grown to the split's vertices, their attributes copied, the indices
 * and the colours in. */
static strata_status split_commit(strata_result *r, const split *s, const uint32_t *new_ix)
{
    const uint32_t nv = r->nverts, nn = (uint32_t)s->n;
    const int uv = r->uv && r->uv_first == 0 && r->nuv == nv;
    const int ao = strata__result_ao(r) != NULL;
    uint8_t *rgb = strata__alloc_array(&r->alloc, 3 * (size_t)(nn ? nn : 1), 1);
    if (!rgb)
        return STRATA_ERR_NOMEM;
    strata_status st = strata__result_grow(r, nn, r->nindices);
    if (st == STRATA_OK && ao && !extend(&r->alloc, (void **)&r->ao, nv, s, 1))
        st = STRATA_ERR_NOMEM;
    if (st == STRATA_OK && uv && !extend(&r->alloc, (void **)&r->uv, nv, s, 2 * sizeof(float)))
        st = STRATA_ERR_NOMEM;
    if (st != STRATA_OK) {
        strata__free(&r->alloc, rgb);
        return st;
    }
    float *a[6] = {r->x, r->y, r->z, r->nx, r->ny, r->nz};
    for (int k = 0; k < (r->nx ? 6 : 3); k++)
        for (uint32_t v = nv; v < nn; v++)
            a[k][v] = a[k][s->src[v]];
    for (uint32_t v = 0; v < nn; v++) {
        const uint32_t col = s->col[v] == NONE ? 0xffffffu : s->col[v];
        for (int c = 0; c < 3; c++)
            rgb[3 * (size_t)v + c] = (uint8_t)(col >> (8 * c));
    }
    memcpy(r->indices, new_ix, (size_t)r->nindices * sizeof *new_ix);
    r->nverts = nn;
    if (ao) {
        r->ao_cap = nn;
        r->ao_verts = nn;
    }
    if (uv)
        r->nuv = nn;
    strata__free(&r->alloc, r->rgb);
    r->rgb = rgb;
    r->rgb_verts = nn;
    return STRATA_OK;
}

strata_status strata_result_apply_colours(strata_ctx *ctx, strata_result *r,
                                          const strata_colours *c, const strata_palette *pal,
                                          const float *sea_level)
{
    if (!ctx || !r || !c || r->nindices % 3)
        return STRATA_ERR_INVALID_ARG;
    r->rgb_verts = 0;
    const uint64_t ntris = r->nindices / 3;
    const strata_allocator *al = &ctx->alloc;
    int32_t *terrace = strata__alloc_array(al, (size_t)(ntris ? ntris : 1), sizeof *terrace);
    uint8_t *wall = strata__alloc_array(al, (size_t)(ntris ? ntris : 1), 1);
    uint32_t *tcol = strata__alloc_array(al, (size_t)(ntris ? ntris : 1), sizeof *tcol);
    double *vh = strata__alloc_array(al, (size_t)(r->nverts ? r->nverts : 1), sizeof *vh);
    uint32_t *new_ix = strata__alloc_array(al, (size_t)(r->nindices ? r->nindices : 1),
                                           sizeof *new_ix);
    split s = {.al = al};
    frame f = {.r = r, .c = c, .pal = pal, .sea = sea_level != NULL,
               .sea_level = sea_level ? *sea_level : 0, .terrace = terrace, .wall = wall};
    strata_status st = terrace && wall && tcol && new_ix && vh
                           ? frame_fill(ctx, &f, vh, terrace, wall, ntris)
                           : STRATA_ERR_NOMEM;
    if (st == STRATA_OK) {
        const int64_t n = (int64_t)ntris;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 4096)
        for (int64_t t = 0; t < n; t++)
            tcol[t] = tri_colour(&f, (uint64_t)t);
        st = strata__cancelled(ctx) ? STRATA_ERR_CANCELLED : split_all(&s, r, tcol, new_ix);
    }
    if (st == STRATA_OK)
        st = split_commit(r, &s, new_ix);
    strata__free(al, terrace);
    strata__free(al, wall);
    strata__free(al, tcol);
    strata__free(al, vh);
    strata__free(al, new_ix);
    strata__free(al, s.col);
    strata__free(al, s.next);
    strata__free(al, s.src);
    return st;
}
