/* Edit logs: brush dabs in order, their file format, and their effect on
 * heights as a function of position alone (see "Edit logs" in strata.h).
 *
 * The effect is computed per vertex, the edits in log order, in plain
 * float arithmetic (no SIMD kernel, no FMA: -ffp-contract=off), so any
 * thread, chunk, shard or instruction set gives the same bits for the
 * same position.  Additive brushes (raise, lower, noise) are summed into
 * one offset before it is added to the height, so a lower that repeats a
 * raise's numbers cancels it exactly (d - d == 0). */
#include "edit/edits.h"

#include "base/alloc.h"
#include "base/ctx.h"
#include "base/output.h"
#include "base/readfile.h"
#include "mesh/mesh.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct strata_edits {
    strata_edit *v;
    uint64_t count; /* in effect */
    uint64_t total; /* count plus the undone ones redo can bring back */
    uint64_t cap;
};

static const char *const brush_names[] = {"raise", "lower", "smooth", "terrace", "noise"};
#define NBRUSHES (sizeof brush_names / sizeof brush_names[0])

const char *strata_brush_name(strata_brush b)
{
    return (unsigned)b < NBRUSHES ? brush_names[b] : "unknown";
}

strata_status strata_brush_from_name(const char *name, strata_brush *out)
{
    if (!name || !out)
        return STRATA_ERR_INVALID_ARG;
    for (unsigned i = 0; i < NBRUSHES; i++)
        if (!strcmp(name, brush_names[i])) {
            *out = (strata_brush)i;
            return STRATA_OK;
        }
    return STRATA_ERR_INVALID_ARG;
}

/* 0 when the edit is valid, else the name of the first bad field. */
static const char *edit_bad_field(const strata_edit *e)
{
    if ((unsigned)e->brush >= NBRUSHES)
        return "brush";
    static const char *const axes[3] = {"x", "y", "z"};
    for (int k = 0; k < 3; k++)
        if (!isfinite(e->center[k]) || fabsf(e->center[k]) > STRATA_EDIT_COORD_MAX)
            return axes[k];
    if (!(e->radius > 0.0f) || !(e->radius <= STRATA_EDIT_COORD_MAX))
        return "radius";
    const float smax = e->brush == STRATA_BRUSH_SMOOTH || e->brush == STRATA_BRUSH_TERRACE
                           ? 1.0f
                           : STRATA_EDIT_COORD_MAX;
    if (!(e->strength >= 0.0f) || !(e->strength <= smax))
        return "strength";
    return NULL;
}

strata_status strata_edit_validate(const strata_edit *e)
{
    return e && !edit_bad_field(e) ? STRATA_OK : STRATA_ERR_INVALID_ARG;
}

strata_status strata_edits_create(strata_edits **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = calloc(1, sizeof **out);
    return *out ? STRATA_OK : STRATA_ERR_NOMEM;
}

void strata_edits_destroy(strata_edits *e)
{
    if (!e)
        return;
    free(e->v);
    free(e);
}

uint64_t strata_edits_count(const strata_edits *e)
{
    return e ? e->count : 0;
}

uint64_t strata_edits_redo_count(const strata_edits *e)
{
    return e ? e->total - e->count : 0;
}

strata_status strata_edits_get(const strata_edits *e, uint64_t i, strata_edit *out)
{
    if (!e || !out || i >= e->count)
        return STRATA_ERR_INVALID_ARG;
    *out = e->v[i];
    return STRATA_OK;
}

static strata_status reserve(strata_edits *e, uint64_t n)
{
    if (n > STRATA_EDITS_MAX)
        return STRATA_ERR_TOO_LARGE;
    if (n <= e->cap)
        return STRATA_OK;
    uint64_t cap = e->cap ? e->cap : 64;
    while (cap < n)
        cap *= 2;
    strata_edit *v = realloc(e->v, (size_t)cap * sizeof *v);
    if (!v)
        return STRATA_ERR_NOMEM;
    e->v = v;
    e->cap = cap;
    return STRATA_OK;
}

strata_status strata_edits_append(strata_edits *e, const strata_edit *ed)
{
    if (!e || strata_edit_validate(ed) != STRATA_OK)
        return STRATA_ERR_INVALID_ARG;
    strata_status st = reserve(e, e->count + 1);
    if (st != STRATA_OK)
        return st;
    e->v[e->count++] = *ed;
    e->total = e->count; /* a new edit forgets what could be redone */
    return STRATA_OK;
}

strata_status strata_edits_undo(strata_edits *e, strata_edit *undone)
{
    if (!e || !e->count)
        return STRATA_ERR_INVALID_ARG;
    e->count--;
    if (undone)
        *undone = e->v[e->count];
    return STRATA_OK;
}

strata_status strata_edits_redo(strata_edits *e, strata_edit *redone)
{
    if (!e || e->count == e->total)
        return STRATA_ERR_INVALID_ARG;
    if (redone)
        *redone = e->v[e->count];
    e->count++;
    return STRATA_OK;
}

/* ------------------------------------------------------------ the file */

#define EDITS_MAGIC "strata-edits 1"
/* a line is at most this long: 5 numbers of "%.9g" and a brush fit */
#define LINE_MAX_BYTES 256

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

/* A decimal float: [+-]digits[.digits][e[+-]digits], the whole of
 * [s, end), finite as a float. */
static int parse_float(const char *s, const char *end, float *out)
{
    char buf[64];
    const size_t n = (size_t)(end - s);
    if (n == 0 || n >= sizeof buf)
        return 0;
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    size_t digits = 0;
    while (p < end && *p >= '0' && *p <= '9')
        p++, digits++;
    if (p < end && *p == '.')
        for (p++; p < end && *p >= '0' && *p <= '9'; p++)
            digits++;
    if (!digits)
        return 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        const char *e0 = p;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        if (p == e0)
            return 0;
    }
    if (p != end)
        return 0;
    memcpy(buf, s, n);
    buf[n] = 0;
    errno = 0;
    char *stop;
    const float v = strtof(buf, &stop);
    if (*stop || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

static strata_status fail(strata_edits_error *err, uint64_t line, const char *field)
{
    if (err) {
        err->line = line;
        snprintf(err->field, sizeof err->field, "%s", field);
    }
    return STRATA_ERR_FORMAT;
}

/* One edit line [s, end) (no newline), into *ed; NULL, or the bad field. */
static const char *parse_edit(const char *s, const char *end, strata_edit *ed)
{
    static const char *const fields[6] = {"brush", "x", "y", "z", "radius", "strength"};
    float v[5];
    int k = 0;
    for (const char *p = s;; k++) {
        while (p < end && blank(*p))
            p++;
        if (p == end)
            return k < 6 ? fields[k] : NULL;
        if (k == 6)
            return "end of line"; /* a seventh field */
        const char *w = p;
        while (p < end && !blank(*p))
            p++;
        if (k == 0) {
            char name[16];
            strata_brush b;
            if ((size_t)(p - w) >= sizeof name)
                return "brush";
            memcpy(name, w, (size_t)(p - w));
            name[p - w] = 0;
            if (strata_brush_from_name(name, &b) != STRATA_OK)
                return "brush";
            ed->brush = b;
        } else if (!parse_float(w, p, &v[k - 1])) {
            return fields[k];
        }
        if (k == 5) {
            ed->center[0] = v[0], ed->center[1] = v[1], ed->center[2] = v[2];
            ed->radius = v[3];
            ed->strength = v[4];
        }
    }
}

strata_status strata_edits_parse(strata_edits *e, const char *text, size_t len,
                                 strata_edits_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    if (!e || (!text && len))
        return STRATA_ERR_INVALID_ARG;
    strata_edits tmp = {0};
    strata_status st = STRATA_OK;
    uint64_t line = 0;
    for (size_t at = 0; at < len && st == STRATA_OK;) {
        const char *s = text + at, *nl = memchr(s, '\n', len - at);
        const char *end = nl ? nl : text + len;
        at = (size_t)(end - text) + (nl ? 1 : 0);
        line++;
        if ((size_t)(end - s) > LINE_MAX_BYTES || memchr(s, 0, (size_t)(end - s)) ||
            memchr(s, '\r', (size_t)(end - s))) {
            st = fail(err, line, "line");
            break;
        }
        if (line == 1) {
            if ((size_t)(end - s) != strlen(EDITS_MAGIC) || memcmp(s, EDITS_MAGIC, strlen(EDITS_MAGIC)))
                st = fail(err, line, "header");
            continue;
        }
        const char *p = s;
        while (p < end && blank(*p))
            p++;
        if (p == end || *p == '#')
            continue;
        strata_edit ed;
        const char *bad = parse_edit(s, end, &ed);
        if (!bad && (bad = edit_bad_field(&ed)) == NULL) {
            if ((st = reserve(&tmp, tmp.count + 1)) == STRATA_OK)
                tmp.v[tmp.count++] = ed;
            else if (err)
                err->line = line;
        } else {
            st = fail(err, line, bad);
        }
    }
    if (st == STRATA_OK && line == 0)
        st = fail(err, 1, "header");
    if (st != STRATA_OK) {
        free(tmp.v);
        return st;
    }
    free(e->v);
    *e = tmp;
    e->total = e->count;
    return STRATA_OK;
}

strata_status strata_edits_load(strata_edits *e, const char *path, strata_edits_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
    if (!e || !path)
        return STRATA_ERR_INVALID_ARG;
    strata_allocator al;
    strata__allocator_default(&al);
    uint8_t *buf;
    size_t n;
    strata_status st = strata__read_file(&al, path, STRATA_EDITS_FILE_MAX, &buf, &n);
    if (st != STRATA_OK)
        return st;
    st = strata_edits_parse(e, (const char *)buf, n, err);
    strata__free(&al, buf);
    return st;
}

strata_status strata_edits_save(strata_ctx *ctx, const strata_edits *e, const char *path)
{
    if (!ctx || !e || !path)
        return STRATA_ERR_INVALID_ARG;
    strata_out o = STRATA_OUT_INIT(ctx);
    if (strata__out_open(&o, path, ctx) == 0) {
        strata__out_str(&o, EDITS_MAGIC "\n");
        for (uint64_t i = 0; i < e->count && strata__out_ok(&o); i++) {
            const strata_edit *d = &e->v[i];
            char line[LINE_MAX_BYTES];
            snprintf(line, sizeof line, "%s %.9g %.9g %.9g %.9g %.9g\n",
                     brush_names[d->brush], (double)d->center[0], (double)d->center[1],
                     (double)d->center[2], (double)d->radius, (double)d->strength);
            strata__out_str(&o, line);
        }
        strata__out_finish(&o);
        strata__out_commit(&o, path);
    }
    const strata_status st = strata__out_status(&o);
    const int err = o.err;
    strata__out_discard(&o);
    errno = err;
    return st;
}
