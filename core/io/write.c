/* Writing results: the entry point, which dispatches to the format
 * writers (write.h: core/io/ply.c, core/io/obj.c, core/io/glb.c), and what they
 * share.  Files are written atomically through output.h, with progress
 * (stage "write") and the context's cancel flag checked as they go. */
#define _POSIX_C_SOURCE 200809L

#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/result.h"
#include "io/meshopt.h"
#include "base/output.h"
#include "io/write.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int range_cmp(const void *a, const void *b)
{
    const strata_range *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

strata_range *strata__sorted_ranges(const strata_result *r, const strata_allocator *al, size_t *n)
{
    strata_range *rg = strata__alloc_array(al, 2 * (size_t)r->nterraces + 3, sizeof *rg);
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
    if (r->water_count)
        rg[m++] = (strata_range){r->water_first, r->water_count, STRATA_TERRACE_WATER, 0};
    if (r->shore_count)
        rg[m++] = (strata_range){r->shore_first, r->shore_count, STRATA_TERRACE_SHORE, 0};
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

/* ------------------------------------------------------------ entry */

void strata_write_defaults(strata_write_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->format = STRATA_FORMAT_AUTO;
    opt->palette = NULL;
}

/* The format opt and path ask for, after the checks every writer shares
 * (STRATA_FORMAT_AUTO when it cannot be told; st set). */
static strata_format checked_format(strata_ctx *ctx, const strata_result *r, const char *path,
                                    const strata_write_options *opt, strata_status *st)
{
    *st = STRATA_ERR_INVALID_ARG;
    if (!ctx || !r || !path || !*path)
        return STRATA_FORMAT_AUTO;
    strata_format format = opt->format;
    if (format == STRATA_FORMAT_AUTO)
        format = strata__has_suffix(path, ".ply")   ? STRATA_FORMAT_PLY
                 : strata__has_suffix(path, ".obj") ? STRATA_FORMAT_OBJ
                 : strata__has_suffix(path, ".glb") ? STRATA_FORMAT_GLB
                 : strata__has_suffix(path, ".stl") ? STRATA_FORMAT_STL
                                                    : STRATA_FORMAT_AUTO;
    if (format == STRATA_FORMAT_AUTO) {
        *st = STRATA_ERR_FORMAT;
        return format;
    }
    if ((format != STRATA_FORMAT_PLY && format != STRATA_FORMAT_OBJ &&
         format != STRATA_FORMAT_GLB && format != STRATA_FORMAT_STL) ||
        r->nindices % 3 != 0 || (opt->compress && format != STRATA_FORMAT_GLB))
        return STRATA_FORMAT_AUTO;
    if (opt->compress && !strata__meshopt_supported()) {
        *st = STRATA_ERR_UNSUPPORTED;
        return STRATA_FORMAT_AUTO;
    }
    *st = strata__progress(ctx, "write", 0.0); /* cancelled before any file exists */
    return *st == STRATA_OK ? format : STRATA_FORMAT_AUTO;
}

strata_status strata_result_write(strata_ctx *ctx, const strata_result *r, const char *path,
                                  const strata_write_options *opt)
{
    strata_write_options def;
    if (!opt) {
        strata_write_defaults(&def);
        opt = &def;
    }
    strata_status st;
    switch (checked_format(ctx, r, path, opt, &st)) {
    case STRATA_FORMAT_PLY: return strata__ply_write(ctx, r, path, NULL);
    case STRATA_FORMAT_OBJ: return strata__obj_write(ctx, r, path, opt->palette);
    case STRATA_FORMAT_GLB:
        return strata__glb_write(ctx, r, path, opt->palette, NULL, opt->compress, 0, opt->props);
    case STRATA_FORMAT_STL: return strata__stl_write(ctx, r, path);
    default: return st;
    }
}

strata_status strata__write_tile(strata_ctx *ctx, const strata_result *r, const char *path,
                                 const strata_write_options *opt, const char *extras)
{
    if (!extras || strlen(extras) > STRATA_TILE_EXTRAS_MAX || strchr(extras, '\n'))
        return STRATA_ERR_INVALID_ARG;
    strata_status st;
    switch (checked_format(ctx, r, path, opt, &st)) {
    case STRATA_FORMAT_PLY: return strata__ply_write(ctx, r, path, extras);
    case STRATA_FORMAT_GLB:
        return strata__glb_write(ctx, r, path, opt->palette, extras, opt->compress, 1,
                                 opt->props);
    case STRATA_FORMAT_OBJ:
    case STRATA_FORMAT_STL: return STRATA_ERR_INVALID_ARG;
    default: return st;
    }
}
