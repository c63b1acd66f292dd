/* Writing results: the entry point, which dispatches to the format
 * writers (write.h), and what they share; for now also Wavefront OBJ +
 * MTL.  Files are written atomically through output.h, with progress
 * (stage "write") and the context's cancel flag checked as they go. */
#define _POSIX_C_SOURCE 200809L

#include "alloc.h"
#include "ctx.h"
#include "result.h"
#include "output.h"
#include "write.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest OBJ line: "vn " + 3 * (%.9g of a float: at most 15 chars + a
 * space), or a face line with normals: "f" + 3 * " u32//u32". */
#define LINE_MAX_BYTES 96

/* Decimal digits of v, no terminator; returns the end. */
static inline char *put_dec(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static int range_cmp(const void *a, const void *b)
{
    const strata_range *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

strata_range *strata__sorted_ranges(const strata_result *r, const strata_allocator *al, size_t *n)
{
    strata_range *rg = strata__alloc_array(al, 2 * (size_t)r->nterraces + 1, sizeof *rg);
    if (!rg)
        return NULL;
    size_t m = 0;
    for (uint32_t k = 0; k < r->nterraces; k++) {
        const strata_terrace *t = &r->terraces[k];
        if (t->roof_count)
            rg[m++] = (strata_range){t->roof_first, t->roof_count, (int32_t)k, 0};
        if (t->wall_count)
            rg[m++] = (strata_range){t->wall_first, t->wall_count, (int32_t)k, 1};
    }
    qsort(rg, m, sizeof *rg, range_cmp);
    *n = m;
    return rg;
}

int strata__has_suffix(const char *s, const char *suffix)
{
    const size_t n = strlen(s), m = strlen(suffix);
    if (n < m)
        return 0;
    for (size_t i = 0; i < m; i++) {
        char c = s[n - m + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != suffix[i])
            return 0;
    }
    return 1;
}

strata_status strata__write_finish(strata_ctx *ctx, strata_out *o, const char *const *paths,
                                   size_t n, int saved_errno)
{
    int ok = 1;
    for (size_t i = 0; i < n; i++)
        ok = ok && strata__out_ok(&o[i]);
    /* Everything is written and closed: the last report comes before any
     * rename, so a cancel there still leaves no file. */
    if (ok && strata__progress(ctx, "write", 1.0) != STRATA_OK) {
        o[n - 1].cancelled = 1;
        ok = 0;
    }
    for (size_t i = 0; i < n && ok; i++) {
        strata__out_commit(&o[i], paths[i]);
        ok = strata__out_ok(&o[i]);
    }
    strata_status st = STRATA_OK;
    int err = 0;
    for (size_t i = 0; i < n; i++)
        if (o[i].cancelled)
            st = STRATA_ERR_CANCELLED;
    for (size_t i = 0; i < n && st == STRATA_OK; i++) {
        if (o[i].err) {
            st = strata__out_status(&o[i]);
            err = o[i].err;
        }
    }
    for (size_t i = 0; i < n; i++)
        strata__out_discard(&o[i]);
    errno = (st == STRATA_ERR_IO || st == STRATA_ERR_NOMEM) && err ? err : saved_errno;
    return st;
}

/* ------------------------------------------------------------ OBJ + MTL */

/* The current locale's decimal point: %g follows LC_NUMERIC, which a host
 * application may have set to a comma. */
static char decimal_point(void)
{
    const struct lconv *lc = localeconv();
    return lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point[0] : '.';
}

/* Lines between progress checks of the OBJ writer. */
#define OBJ_PROGRESS_LINES 4096u

/* Progress of an OBJ file in lines: vertices, normals and faces. */
typedef struct obj_lines {
    uint64_t done, total;
} obj_lines;

static inline int obj_step(strata_out *o, obj_lines *l, uint64_t i)
{
    if (i % OBJ_PROGRESS_LINES)
        return strata__out_ok(o);
    strata__out_progress(o, l->done + i, l->total);
    return strata__out_ok(o);
}

/* "<tag> x y z\n" for every vertex; %.9g makes each float read back
 * exactly. */
static void obj_vectors(strata_out *o, obj_lines *l, const char *tag, const float *x,
                        const float *y, const float *z, uint32_t n)
{
    const char dp = decimal_point();
    for (uint32_t i = 0; i < n && obj_step(o, l, i); i++) {
        char *p = (char *)strata__out_room(o, LINE_MAX_BYTES);
        int len = snprintf(p, LINE_MAX_BYTES, "%s %.9g %.9g %.9g\n", tag, (double)x[i],
                           (double)y[i], (double)z[i]);
        if (dp != '.')
            for (int j = 0; j < len; j++)
                p[j] = p[j] == dp ? '.' : p[j];
        o->len += (size_t)len;
    }
    l->done += n;
}

static void obj_faces(strata_out *o, obj_lines *l, const strata_result *r, uint64_t from,
                      uint64_t to)
{
    const int normals = r->nx != NULL;
    const uint32_t *ix = r->indices;
    for (uint64_t i = from; i + 3 <= to && obj_step(o, l, (i - from) / 3); i += 3) {
        char *p = (char *)strata__out_room(o, LINE_MAX_BYTES), *p0 = p;
        *p++ = 'f';
        for (int k = 0; k < 3; k++) {
            const uint64_t v = (uint64_t)ix[i + (uint64_t)k] + 1; /* OBJ counts from 1 */
            *p++ = ' ';
            p = put_dec(p, v);
            if (normals) {
                *p++ = '/';
                *p++ = '/';
                p = put_dec(p, v);
            }
        }
        *p++ = '\n';
        o->len += (size_t)(p - p0);
    }
    l->done += (to - from) / 3;
}

/* Group and material names of a strata_range: walls keep their own group only
 * when the result keeps them in ranges of their own. */
static void range_names(const strata_result *r, const strata_range *g, char *group, char *mtl,
                        size_t size)
{
    const int sep = g->wall && r->walls == STRATA_WALLS_SEPARATE;
    snprintf(group, size, "%s_%ld", sep ? "walls" : "terrace", (long)g->terrace);
    snprintf(mtl, size, "%s_%ld", sep ? "wall" : "terrace", (long)g->terrace);
}

static void write_obj(strata_out *o, const strata_result *r, const strata_range *rg, size_t nrg,
                      const char *mtl_name)
{
    strata__out_str(o, "# generated by strata " STRATA_VERSION "\nmtllib ");
    strata__out_str(o, mtl_name);
    strata__out_str(o, "\n");
    obj_lines l = {0, (r->nx ? 2 * (uint64_t)r->nverts : r->nverts) + r->nindices / 3};
    obj_vectors(o, &l, "v", r->x, r->y, r->z, r->nverts);
    if (r->nx)
        obj_vectors(o, &l, "vn", r->nx, r->ny, r->nz, r->nverts);
    char group[48], mtl[48], prev[48] = "";
    for (size_t k = 0; k < nrg && strata__out_ok(o); k++) {
        range_names(r, &rg[k], group, mtl, sizeof group);
        /* roofs and walls of one terrace are adjacent without SEPARATE:
         * one group */
        if (strcmp(group, prev) != 0) {
            char line[128];
            snprintf(line, sizeof line, "g %s\nusemtl %s\n", group, mtl);
            strata__out_str(o, line);
            memcpy(prev, group, sizeof prev);
        }
        obj_faces(o, &l, r, rg[k].first, rg[k].first + rg[k].count);
    }
}

/* A value in [0,1] with four decimals, independent of the locale. */
static char *put_unit(char *p, double v)
{
    long q = (long)(v * 10000.0 + 0.5);
    q = q < 0 ? 0 : q > 10000 ? 10000 : q;
    p = put_dec(p, (uint64_t)(q / 10000));
    *p++ = '.';
    for (long d = 1000; d; d /= 10)
        *p++ = (char)('0' + q / d % 10);
    return p;
}

static void write_mtl(strata_out *o, const strata_result *r, const strata_range *rg, size_t nrg,
                      const strata_palette *pal)
{
    strata__out_str(o, "# generated by strata " STRATA_VERSION "\n");
    char group[48], mtl[48], prev[48] = "";
    for (size_t k = 0; k < nrg; k++) {
        range_names(r, &rg[k], group, mtl, sizeof group);
        if (strcmp(mtl, prev) == 0)
            continue;
        memcpy(prev, mtl, sizeof prev);
        float rgb[3];
        const int dark = rg[k].wall && r->walls == STRATA_WALLS_SEPARATE;
        strata_palette_color(pal, (uint32_t)rg[k].terrace, r->nterraces, dark,
                             STRATA_COLOR_SRGB, rgb);
        char line[160], *p = line;
        p += snprintf(p, 64, "\nnewmtl %s\nKd", mtl);
        for (int c = 0; c < 3; c++) {
            *p++ = ' ';
            p = put_unit(p, rgb[c]);
        }
        memcpy(p, "\nKa 0 0 0\nKs 0 0 0\nillum 1\n", sizeof "\nKa 0 0 0\nKs 0 0 0\nillum 1\n");
        strata__out_str(o, line);
    }
}

/* FILE.mtl first, then FILE.obj: both are complete before either is
 * renamed, and the .mtl goes first so a new .obj never names materials
 * its .mtl lacks. */
strata_status strata__obj_write(strata_ctx *ctx, const strata_result *r, const char *path,
                                const strata_palette *pal)
{
    const int saved_errno = errno;
    const strata_allocator *al = &ctx->alloc;
    size_t nrg = 0;
    strata_range *rg = strata__sorted_ranges(r, al, &nrg);
    if (!rg)
        return STRATA_ERR_NOMEM;
    /* FILE.obj -> FILE.mtl, anything else -> NAME.mtl appended */
    const size_t n = strlen(path), stem = strata__has_suffix(path, ".obj") ? n - 4 : n;
    char *mtl_path = strata__alloc(al, stem + 5);
    if (!mtl_path) {
        strata__free(al, rg);
        errno = saved_errno;
        return STRATA_ERR_NOMEM;
    }
    memcpy(mtl_path, path, stem);
    memcpy(mtl_path + stem, ".mtl", 5);
    const char *slash = strrchr(mtl_path, '/');
    strata_out o[2] = {STRATA_OUT_INIT(ctx), STRATA_OUT_INIT(ctx)}; /* .mtl, .obj */
    if (strata__out_open(&o[0], mtl_path, ctx) == 0 && strata__out_open(&o[1], path, ctx) == 0) {
        write_mtl(&o[0], r, rg, nrg, pal);
        strata__out_finish(&o[0]);
        write_obj(&o[1], r, rg, nrg, slash ? slash + 1 : mtl_path);
        strata__out_finish(&o[1]);
    }
    strata__free(al, rg);
    const char *const paths[2] = {mtl_path, path};
    const strata_status st = strata__write_finish(ctx, o, paths, 2, saved_errno);
    const int err = errno;
    strata__free(al, mtl_path);
    errno = err;
    return st;
}

/* ------------------------------------------------------------ entry */

void strata_write_defaults(strata_write_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->format = STRATA_FORMAT_AUTO;
    opt->palette = NULL;
}

strata_status strata_result_write(strata_ctx *ctx, const strata_result *r, const char *path,
                                  const strata_write_options *opt)
{
    strata_write_options def;
    if (!opt) {
        strata_write_defaults(&def);
        opt = &def;
    }
    if (!ctx || !r || !path || !*path)
        return STRATA_ERR_INVALID_ARG;
    strata_format format = opt->format;
    if (format == STRATA_FORMAT_AUTO)
        format = strata__has_suffix(path, ".ply")   ? STRATA_FORMAT_PLY
                 : strata__has_suffix(path, ".obj") ? STRATA_FORMAT_OBJ
                 : strata__has_suffix(path, ".glb") ? STRATA_FORMAT_GLB
                                                    : STRATA_FORMAT_AUTO;
    if (format == STRATA_FORMAT_AUTO)
        return STRATA_ERR_FORMAT;
    if (format != STRATA_FORMAT_PLY && format != STRATA_FORMAT_OBJ &&
        format != STRATA_FORMAT_GLB)
        return STRATA_ERR_INVALID_ARG;
    if (r->nindices % 3 != 0)
        return STRATA_ERR_INVALID_ARG;
    strata_status st = strata__progress(ctx, "write", 0.0);
    if (st != STRATA_OK)
        return st; /* cancelled before any file exists */
    switch (format) {
    case STRATA_FORMAT_PLY: return strata__ply_write(ctx, r, path);
    case STRATA_FORMAT_OBJ: return strata__obj_write(ctx, r, path, opt->palette);
    default: return strata__glb_write(ctx, r, path, opt->palette);
    }
}
