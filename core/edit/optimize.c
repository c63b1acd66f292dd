/* strata_result_optimize: vertex-cache order of each index range with
 * meshoptimizer.  Without it (configure --with-meshoptimizer=no or not
 * found) the function reports STRATA_ERR_UNSUPPORTED. */
#include "config.h"

#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/result.h"

#include <string.h>

#ifdef HAVE_MESHOPTIMIZER
#include <meshoptimizer.h>
#endif

int strata_optimize_supported(void)
{
#ifdef HAVE_MESHOPTIMIZER
    return 1;
#else
    return 0;
#endif
}

#ifndef HAVE_MESHOPTIMIZER

strata_status strata_result_optimize(strata_ctx *ctx, strata_result *r,
                                     strata_optimize_stats *stats)
{
    (void)ctx;
    (void)r;
    (void)stats;
    return STRATA_ERR_UNSUPPORTED;
}

#else

#define UNSEEN UINT32_MAX

/* One thread's working memory.  map[v] is UNSEEN for every vertex between
 * ranges: a range resets only the entries it set, so the cost of a range
 * is linear in its size, not in the vertex count. */
typedef struct scratch {
    uint32_t *map;   /* nverts: global id -> local id */
    uint32_t *back;  /* local id -> global id */
    uint32_t *local; /* the range in local ids */
    uint32_t *dst;   /* meshoptimizer's output */
} scratch;

typedef struct range {
    uint64_t first, count;
    uint64_t before, after; /* vertices transformed */
    strata_status st;
} range;

static void scratch_free(const strata_allocator *al, scratch *s)
{
    strata__free(al, s->map);
    strata__free(al, s->back);
    strata__free(al, s->local);
    strata__free(al, s->dst);
}

static bool scratch_alloc(const strata_allocator *al, scratch *s, uint32_t nverts,
                          uint64_t maxcount)
{
    memset(s, 0, sizeof *s);
    s->map = strata__alloc_array(al, nverts ? nverts : 1, sizeof(uint32_t));
    s->back = strata__alloc_array(al, (size_t)maxcount + 1, sizeof(uint32_t));
    s->local = strata__alloc_array(al, (size_t)maxcount + 1, sizeof(uint32_t));
    s->dst = strata__alloc_array(al, (size_t)maxcount + 1, sizeof(uint32_t));
    if (!s->map || !s->back || !s->local || !s->dst) {
        scratch_free(al, s);
        return false;
    }
    memset(s->map, 0xff, (size_t)(nverts ? nverts : 1) * sizeof(uint32_t));
    return true;
}

/* Renumber the range's vertices densely in order of first use (so
 * meshoptimizer's per-vertex tables are the size of the range, not of the
 * whole result), optimise, and map back. */
static void optimize_range(const strata_result *r, scratch *s, range *g)
{
    uint32_t *idx = r->indices + g->first;
    size_t n = (size_t)g->count;
    uint32_t nl = 0;
    g->st = STRATA_OK;
    for (size_t i = 0; i < n; i++) {
        const uint32_t v = idx[i];
        if (v >= r->nverts) {
            g->st = STRATA_ERR_BAD_MESH;
            n = i;
            break;
        }
        if (s->map[v] == UNSEEN) {
            s->map[v] = nl;
            s->back[nl++] = v;
        }
        s->local[i] = s->map[v];
    }
    if (g->st == STRATA_OK && n > 0) {
        g->before = meshopt_analyzeVertexCache(s->local, n, nl, STRATA_OPTIMIZE_CACHE_SIZE, 0, 0)
                        .vertices_transformed;
        meshopt_optimizeVertexCache(s->dst, s->local, n, nl);
        g->after = meshopt_analyzeVertexCache(s->dst, n, nl, STRATA_OPTIMIZE_CACHE_SIZE, 0, 0)
                       .vertices_transformed;
        for (size_t i = 0; i < n; i++)
            idx[i] = s->back[s->dst[i]];
    }
    for (uint32_t j = 0; j < nl; j++)
        s->map[s->back[j]] = UNSEEN;
}

strata_status strata_result_optimize(strata_ctx *ctx, strata_result *r,
                                     strata_optimize_stats *stats)
{
    if (!ctx || !r)
        return STRATA_ERR_INVALID_ARG;
    /* Validate every range before touching anything. */
    const size_t nranges = (size_t)r->nterraces * 2;
    uint64_t maxcount = 0;
    for (size_t k = 0; k < nranges; k++) {
        const strata_terrace *t = &r->terraces[k / 2];
        const uint64_t first = k % 2 ? t->wall_first : t->roof_first;
        const uint64_t count = k % 2 ? t->wall_count : t->roof_count;
        if (count % 3 != 0 || first > r->nindices || count > r->nindices - first)
            return STRATA_ERR_INVALID_ARG;
        if (count > UINT32_MAX)
            return STRATA_ERR_OVERFLOW;
        if (count > maxcount)
            maxcount = count;
    }
    strata_status st = strata__progress(ctx, "optimize", 0.0);
    if (st != STRATA_OK)
        return st;

    const strata_allocator *al = &ctx->alloc;
    range *g = strata__alloc_array(al, nranges ? nranges : 1, sizeof *g);
    if (!g)
        return STRATA_ERR_NOMEM;
    for (size_t k = 0; k < nranges; k++) {
        const strata_terrace *t = &r->terraces[k / 2];
        g[k].first = k % 2 ? t->wall_first : t->roof_first;
        g[k].count = k % 2 ? t->wall_count : t->roof_count;
        g[k].before = g[k].after = 0;
        g[k].st = STRATA_ERR_CANCELLED; /* until the range is done */
    }

    /* Ranges are independent and each is optimised by one thread alone,
     * so the bytes do not depend on the thread count. */
    int nomem = 0;
#pragma omp parallel num_threads(ctx->threads)
    {
        scratch s;
        const bool ok = scratch_alloc(al, &s, r->nverts, maxcount);
        if (!ok) {
#pragma omp atomic write
            nomem = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (size_t k = 0; k < nranges; k++) {
            if (ok && !strata__cancelled(ctx))
                optimize_range(r, &s, &g[k]);
        }
        if (ok)
            scratch_free(al, &s);
    }

    strata_optimize_stats sum = {0, 0, 0, 0.0, 0.0};
    st = nomem ? STRATA_ERR_NOMEM : STRATA_OK;
    for (size_t k = 0; k < nranges && st == STRATA_OK; k++) {
        st = g[k].st;
        sum.triangles += g[k].count / 3;
        sum.transformed_before += g[k].before;
        sum.transformed_after += g[k].after;
    }
    strata__free(al, g);
    if (st != STRATA_OK)
        return st;
    if (sum.triangles) {
        sum.acmr_before = (double)sum.transformed_before / (double)sum.triangles;
        sum.acmr_after = (double)sum.transformed_after / (double)sum.triangles;
    }
    if (stats)
        *stats = sum;
    return strata__progress(ctx, "optimize", 1.0);
}

#endif
