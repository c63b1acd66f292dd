/* Context, status strings and version. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "base/alloc.h"
#include "base/ctx.h"
#include "base/topology.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

const char *strata_version(void) { return STRATA_VERSION; }

const char *strata_status_str(strata_status s)
{
    switch (s) {
    case STRATA_OK: return "success";
    case STRATA_ERR_INVALID_ARG: return "invalid argument";
    case STRATA_ERR_NOMEM: return "out of memory";
    case STRATA_ERR_OVERFLOW: return "size would overflow 32-bit vertex/triangle counts";
    case STRATA_ERR_IO: return "input/output error";
    case STRATA_ERR_FORMAT: return "malformed or unrecognised file format";
    case STRATA_ERR_TRUNCATED: return "file is truncated";
    case STRATA_ERR_TOO_LARGE: return "dimensions exceed the supported limits";
    case STRATA_ERR_UNSUPPORTED: return "not supported by this build";
    case STRATA_ERR_NOT_FINITE: return "NaN or infinite value in input";
    case STRATA_ERR_BAD_MESH: return "invalid mesh (index out of range or degenerate triangle)";
    case STRATA_ERR_BAD_LEVELS: return "invalid terrace levels (empty, not ascending or not finite)";
    case STRATA_ERR_CANCELLED: return "cancelled";
    case STRATA_ERR_ISA: return "requested instruction set not available on this CPU";
    case STRATA_ERR_CONFLICT: return "an existing output belongs to another world or job";
    default: return "unknown status";
    }
}

/* One worker per physical core when hwloc can tell, else per processor. */
static int detect_default_threads(void)
{
#ifdef _OPENMP
    const char *env = getenv("OMP_NUM_THREADS");
    if (env && *env)
        return omp_get_max_threads();
    int n = omp_get_num_procs();
#ifdef HAVE_HWLOC
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0) {
            int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
            if (cores > 0 && cores <= n)
                n = cores;
        }
        hwloc_topology_destroy(topo);
    }
#endif
    return n > 0 ? n : 1;
#else
    return 1;
#endif
}

void strata_ctx_defaults(strata_ctx_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->threads = 0;
    opt->allocator = NULL;
}

/* The kernels STRATA_SIMD asks for (unset, empty or "auto": the best
 * ISA); STRATA_ERR_INVALID_ARG for an unknown name. */
static strata_status dispatch_from_env(strata_ctx *ctx)
{
    strata_isa isa = STRATA_ISA_AUTO;
    const char *env = getenv("STRATA_SIMD");
    if (env && *env && strata_isa_from_name(env, &isa) != STRATA_OK)
        return STRATA_ERR_INVALID_ARG;
    return strata__dispatch_fill(&ctx->simd, isa, "STRATA_SIMD");
}

strata_status strata_ctx_set_isa(strata_ctx *ctx, strata_isa isa)
{
    return ctx ? strata__dispatch_fill(&ctx->simd, isa, "the caller (strata_ctx_set_isa)")
               : STRATA_ERR_INVALID_ARG;
}

strata_isa strata_ctx_isa(const strata_ctx *ctx)
{
    return ctx ? ctx->simd.isa : STRATA_ISA_SCALAR;
}

const char *strata_ctx_isa_reason(const strata_ctx *ctx)
{
    return ctx ? ctx->simd.reason : "";
}

strata_status strata_ctx_create(const strata_ctx_options *opt, strata_ctx **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    strata_allocator al;
    strata__allocator_default(&al);
    if (opt && opt->allocator) {
        if (!opt->allocator->alloc || !opt->allocator->free)
            return STRATA_ERR_INVALID_ARG;
        al = *opt->allocator;
    }
    if (opt && opt->threads < 0)
        return STRATA_ERR_INVALID_ARG;
    strata_ctx *ctx = strata__alloc(&al, sizeof *ctx);
    if (!ctx)
        return STRATA_ERR_NOMEM;
    memset(ctx, 0, sizeof *ctx);
    strata_status st = dispatch_from_env(ctx);
    if (st != STRATA_OK) {
        strata__free(&al, ctx);
        return st;
    }
    ctx->alloc = al;
    ctx->default_threads = detect_default_threads();
    ctx->threads = ctx->default_threads;
    atomic_init(&ctx->cancel, 0);
    strata__placement_init(ctx); /* reads STRATA_BIND, OMP_PROC_BIND, ... */
    if (opt && opt->threads > 0)
        strata_ctx_set_threads(ctx, opt->threads);
    *out = ctx;
    return STRATA_OK;
}

strata_status strata__ctx_worker(strata_ctx *ctx, strata_ctx **out)
{
    *out = NULL;
    strata_ctx *w = strata__alloc(&ctx->alloc, sizeof *w);
    if (!w)
        return STRATA_ERR_NOMEM;
    memset(w, 0, sizeof *w);
    w->simd = ctx->simd;
    w->alloc = ctx->alloc;
    w->no_sync = ctx->no_sync;
    w->threads = w->default_threads = 1;
    atomic_init(&w->cancel, 0);
    w->bind = 0;
    w->bind_off = "a worker of another context";
    *out = w;
    return STRATA_OK;
}

void strata_ctx_destroy(strata_ctx *ctx)
{
    if (!ctx)
        return;
    strata_allocator al = ctx->alloc;
    if (ctx->world_scratch_free)
        ctx->world_scratch_free(ctx);
    strata__placement_free(ctx);
    strata__free(&al, ctx);
}

strata_status strata_ctx_set_threads(strata_ctx *ctx, int n)
{
    if (!ctx || n < 0)
        return STRATA_ERR_INVALID_ARG;
#ifdef _OPENMP
    ctx->threads = n == 0 ? ctx->default_threads : n;
#else
    ctx->threads = 1;
#endif
    return STRATA_OK;
}

int strata_ctx_threads(const strata_ctx *ctx) { return ctx ? ctx->threads : 1; }

void strata_ctx_set_progress(strata_ctx *ctx, strata_progress_fn fn, void *user)
{
    if (!ctx)
        return;
    ctx->progress = fn;
    ctx->progress_user = user;
}

uint64_t strata_whole_memory_estimate(uint64_t triangles)
{
    return triangles > UINT64_MAX / 71 ? UINT64_MAX : triangles * 71;
}

uint64_t strata_memory_limit(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    uint64_t limit = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (limit == 0 || (uint64_t)rl.rlim_cur < limit))
        limit = (uint64_t)rl.rlim_cur;
    return limit;
}

void strata_ctx_set_sync(strata_ctx *ctx, int on)
{
    if (ctx)
        ctx->no_sync = !on;
}

int strata_ctx_sync(const strata_ctx *ctx) { return ctx && !ctx->no_sync; }

void strata_ctx_cancel(strata_ctx *ctx)
{
    if (ctx)
        atomic_store(&ctx->cancel, 1);
}

void strata_ctx_reset_cancel(strata_ctx *ctx)
{
    if (ctx)
        atomic_store(&ctx->cancel, 0);
}

strata_status strata__progress(strata_ctx *ctx, const char *stage, double done)
{
    if (!ctx)
        return STRATA_OK;
    if (ctx->progress && ctx->progress(ctx->progress_user, stage, done) != 0)
        atomic_store(&ctx->cancel, 1);
    return strata__cancelled(ctx) ? STRATA_ERR_CANCELLED : STRATA_OK;
}
