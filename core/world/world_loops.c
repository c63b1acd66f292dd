/* A world's loops joined (strata.h, strata_world_dir_join_loops): the
 * pieces each leaf tile wrote beside it (tiles/K/NAME.geojson), linked
 * where one ends on the point another starts at into the loops of the
 * whole surface, written as one GeoJSON file. */
#define _POSIX_C_SOURCE 200809L

#include "world/world.h"
#include "base/ctx.h"
#include "base/json.h"
#include "base/output.h"
#include "base/readfile.h"
#include "base/shortest.h"
#include "io/write.h"

#include <errno.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#define LOOPS_FILE_MAX ((uint64_t)1 << 34) /* bytes of one tile's loops */

/* One polyline of a tile's file: its points [first, first + count). */
typedef struct {
    float elev;
    uint32_t count;
    uint64_t first;
} piece;

typedef struct {
    const strata_allocator *al;
    piece *p;
    uint64_t np, capp;
    float *xy; /* 2 a point */
    uint64_t nxy, capxy;
} pieces;

static int grow(const strata_allocator *al, void **a, uint64_t *cap, uint64_t need, size_t size)
{
    if (need <= *cap)
        return 1;
    uint64_t n = *cap ? *cap : 1024;
    while (n < need)
        n *= 2;
    void *b = strata__alloc_array(al, (size_t)n, size);
    if (!b)
        return 0;
    if (*a)
        memcpy(b, *a, (size_t)*cap * size);
    strata__free(al, *a);
    *a = b;
    *cap = n;
    return 1;
}

/* A float from a JSON number that is one (what the loops writer wrote). */
static int float_of(const strata_json_doc *doc, strata_json_ref v, float *out)
{
    double d;
    if (!strata__json_number(doc, v, &d) || !(d >= -FLT_MAX && d <= FLT_MAX))
        return 0;
    *out = (float)d;
    return 1;
}

/* One line's coordinates [[X, Y], ...] as a piece at elev. */
static strata_status add_line(pieces *ps, const strata_json_doc *doc, strata_json_ref coords,
                              float elev)
{
    const uint32_t n = strata__json_count(doc, coords);
    if (n < 2)
        return STRATA_ERR_FORMAT;
    if (!grow(ps->al, (void **)&ps->p, &ps->capp, ps->np + 1, sizeof *ps->p) ||
        !grow(ps->al, (void **)&ps->xy, &ps->capxy, ps->nxy + 2 * (uint64_t)n, sizeof(float)))
        return STRATA_ERR_NOMEM;
    for (uint32_t k = 0; k < n; k++) {
        const strata_json_ref pt = strata__json_at(doc, coords, k);
        if (strata__json_count(doc, pt) != 2 ||
            !float_of(doc, strata__json_at(doc, pt, 0), &ps->xy[ps->nxy + 2 * k]) ||
            !float_of(doc, strata__json_at(doc, pt, 1), &ps->xy[ps->nxy + 2 * k + 1]))
            return STRATA_ERR_FORMAT;
    }
    ps->p[ps->np++] = (piece){elev, n, ps->nxy / 2};
    ps->nxy += 2 * (uint64_t)n;
    return STRATA_OK;
}

/* The pieces of one tile's file: a FeatureCollection of LineStrings and
 * MultiLineStrings (cut at the antimeridian) with an elev each. */
static strata_status read_pieces(pieces *ps, const char *path)
{
    uint8_t *text;
    size_t len;
    strata_status st = strata__read_file(ps->al, path, LOOPS_FILE_MAX, &text, &len);
    if (st != STRATA_OK)
        return st;
    strata_json_doc *doc;
    st = strata__json_parse(ps->al, (const char *)text, len, &doc);
    strata__free(ps->al, text);
    if (st != STRATA_OK)
        return st == STRATA_ERR_NOMEM ? st : STRATA_ERR_FORMAT;
    const strata_json_ref feats = strata__json_get(doc, strata__json_root(doc), "features");
    st = strata__json_type(doc, feats) == STRATA_JSON_ARRAY ? STRATA_OK : STRATA_ERR_FORMAT;
    const uint32_t nf = strata__json_count(doc, feats);
    for (uint32_t i = 0; i < nf && st == STRATA_OK; i++) {
        const strata_json_ref f = strata__json_at(doc, feats, i);
        const strata_json_ref g = strata__json_get(doc, f, "geometry");
        const strata_json_ref coords = strata__json_get(doc, g, "coordinates");
        const char *type;
        size_t tn;
        float elev;
        if (!float_of(doc, strata__json_get(doc, strata__json_get(doc, f, "properties"), "elev"),
                      &elev) ||
            !strata__json_string(doc, strata__json_get(doc, g, "type"), &type, &tn)) {
            st = STRATA_ERR_FORMAT;
        } else if (!strcmp(type, "LineString")) {
            st = add_line(ps, doc, coords, elev);
        } else if (!strcmp(type, "MultiLineString")) {
            const uint32_t np = strata__json_count(doc, coords);
            for (uint32_t k = 0; k < np && st == STRATA_OK; k++)
                st = add_line(ps, doc, strata__json_at(doc, coords, k), elev);
        } else {
            st = STRATA_ERR_FORMAT;
        }
    }
    strata__json_free(doc);
    return st;
}

/* Point bits (elev, X, Y) of piece i's first (end 0) or last point. */
typedef struct {
    uint32_t w[3];
} pkey;

static pkey key_of(const pieces *ps, uint64_t i, int last)
{
    const piece *p = &ps->p[i];
    const uint64_t at = p->first + (last ? p->count - 1 : 0);
    pkey k;
    memcpy(&k.w[0], &p->elev, 4);
    memcpy(&k.w[1], &ps->xy[2 * at], 4);
    memcpy(&k.w[2], &ps->xy[2 * at + 1], 4);
    return k;
}

/* Every point of piece i is its first (a zero-length piece, as a line
 * cut at the antimeridian just where a point lies on it may leave): it
 * links as an open one. */
static int all_at_start(const pieces *ps, uint64_t i)
{
    const piece *p = &ps->p[i];
    const float *xy = ps->xy + 2 * p->first;
    for (uint32_t k = 1; k < p->count; k++)
        if (memcmp(&xy[2 * k], xy, 2 * sizeof *xy))
            return 0;
    return 1;
}

typedef struct {
    pkey k;
    uint64_t i;
} start_key;

static int cmp_start(const void *a, const void *b)
{
    const start_key *x = a, *y = b;
    const int c = memcmp(&x->k, &y->k, sizeof x->k);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* next[i]: the piece that goes on where piece i ends (UINT64_MAX: none),
 * the first by index of those starting there that no other piece leads
 * to yet; a piece ending where it starts (a closed loop in one tile,
 * unless all of it is one point) leads nowhere. */
static strata_status link_pieces(const pieces *ps, uint64_t *next, uint8_t *has_prev)
{
    start_key *order = strata__alloc_array(ps->al, ps->np ? (size_t)ps->np : 1, sizeof *order);
    if (!order)
        return STRATA_ERR_NOMEM;
    for (uint64_t i = 0; i < ps->np; i++)
        order[i] = (start_key){key_of(ps, i, 0), i};
    qsort(order, (size_t)ps->np, sizeof *order, cmp_start);
    for (uint64_t i = 0; i < ps->np; i++) {
        next[i] = UINT64_MAX;
        const pkey end = key_of(ps, i, 1), start = key_of(ps, i, 0);
        if (!memcmp(&end, &start, sizeof end) && !all_at_start(ps, i))
            continue;
        uint64_t lo = 0, hi = ps->np; /* the first start >= end */
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo) / 2;
            if (memcmp(&order[mid].k, &end, sizeof end) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < ps->np && !memcmp(&order[lo].k, &end, sizeof end); lo++) {
            const uint64_t j = order[lo].i;
            if (j != i && !has_prev[j]) {
                next[i] = j;
                has_prev[j] = 1;
                break;
            }
        }
    }
    strata__free(ps->al, order);
    return STRATA_OK;
}

/* f as the loops writer writes it: the shortest decimal that reads back
 * as f. */
static void put_float(strata_jtext *j, float f)
{
    char b[24];
    *strata__put_float(b, f) = '\0';
    strata__jtext_raw(j, b);
}

/* The line of pieces from i on (until none follows or the chain comes
 * back to i) as one GeoJSON feature, each piece after the first without
 * its first point (the last one of the piece before). */
static void write_chain(strata_out *o, strata_jtext *j, const pieces *ps, const uint64_t *next,
                        uint8_t *seen, uint64_t i)
{
    j->len = 0;
    strata__jtext_raw(j, "{\"type\":\"Feature\",\"properties\":{\"elev\":");
    put_float(j, ps->p[i].elev);
    strata__jtext_raw(j, "},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[");
    int first_point = 1;
    for (uint64_t c = i; c != UINT64_MAX && !seen[c]; c = next[c]) {
        seen[c] = 1;
        const piece *p = &ps->p[c];
        for (uint32_t k = c == i ? 0 : 1; k < p->count; k++) {
            strata__jtext_raw(j, first_point ? "[" : ",[");
            put_float(j, ps->xy[2 * (p->first + k)]);
            strata__jtext_raw(j, ",");
            put_float(j, ps->xy[2 * (p->first + k) + 1]);
            strata__jtext_raw(j, "]");
            first_point = 0;
        }
    }
    strata__jtext_raw(j, "]}}");
    if (!j->nomem)
        strata__out_bytes(o, j->s, j->len);
}

/* The chains: first those with a start (no piece leads to it), then the
 * cycles, each from its first piece by index. */
static strata_status write_joined(strata_ctx *ctx, const pieces *ps, const char *path)
{
    uint64_t *next = strata__alloc_array(ps->al, ps->np ? (size_t)ps->np : 1, sizeof *next);
    uint8_t *flags = strata__alloc_array(ps->al, ps->np ? (size_t)(2 * ps->np) : 1, 1);
    strata_status st = next && flags ? STRATA_OK : STRATA_ERR_NOMEM;
    if (st == STRATA_OK) {
        memset(flags, 0, (size_t)(2 * ps->np));
        st = link_pieces(ps, next, flags);
    }
    if (st != STRATA_OK) {
        strata__free(ps->al, next);
        strata__free(ps->al, flags);
        return st;
    }
    const uint8_t *has_prev = flags;
    uint8_t *seen = flags + ps->np;
    const int saved_errno = errno;
    strata_out o = STRATA_OUT_INIT(ctx);
    strata_jtext j;
    strata__jtext_init(&j, ps->al);
    if (strata__out_open(&o, path, ctx) == 0) {
        strata__out_str(&o, "{\"type\":\"FeatureCollection\",\"features\":[");
        const char *sep = "\n";
        for (int pass = 0; pass < 2; pass++)
            for (uint64_t i = 0; i < ps->np && !j.nomem; i++) {
                if (seen[i] || (pass == 0 && has_prev[i]))
                    continue;
                if ((i & 1023) == 0 && strata__out_progress(&o, i, ps->np))
                    break;
                strata__out_str(&o, sep);
                write_chain(&o, &j, ps, next, seen, i);
                sep = ",\n";
            }
        strata__out_str(&o, "\n]}\n");
        if (j.nomem && !o.err)
            o.err = ENOMEM;
        strata__out_finish(&o);
    }
    strata__jtext_free(&j);
    strata__free(ps->al, next);
    strata__free(ps->al, flags);
    const char *const paths[1] = {path};
    return strata__write_finish(ctx, &o, paths, 1, saved_errno);
}

strata_status strata_world_dir_join_loops(strata_ctx *ctx, strata_world_dir *d, const char *path,
                                          uint64_t *failed_chunk)
{
    if (failed_chunk)
        *failed_chunk = UINT64_MAX;
    if (!ctx || !d || !path || !*path || !strata__world_dir_has_loops(d))
        return STRATA_ERR_INVALID_ARG;
    strata_status st = strata__progress(ctx, "loops", 0.0);
    pieces ps = {.al = &ctx->alloc};
    const uint64_t leaves = strata__world_dir_leaves(d);
    for (uint64_t id = 0; id < leaves && st == STRATA_OK; id++) {
        char file[4096];
        st = strata__world_dir_loops_path(d, id, file, sizeof file);
        if (st == STRATA_OK)
            st = read_pieces(&ps, file);
        if (st != STRATA_OK && failed_chunk)
            *failed_chunk = id;
        if (st == STRATA_OK)
            st = strata__progress(ctx, "loops", (double)(id + 1) / (double)leaves);
    }
    if (st == STRATA_OK)
        st = write_joined(ctx, &ps, path);
    strata__free(ps.al, ps.p);
    strata__free(ps.al, ps.xy);
    return st;
}
