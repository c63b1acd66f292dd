/* Thread placement: a plan of one single-PU cpuset per worker thread
 * (hwloc_distrib over the machine, one thread per physical core before any
 * core gets a second), applied once per OpenMP thread pool.
 *
 * Compiled twice: into the library, and with STRATA_PLACEMENT_PLAN_ONLY
 * into tests/check_topology, which then gets strata__placement_plan alone
 * (no context, no OpenMP) to test it on synthetic topologies. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "base/ctx.h"
#include "base/topology.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

#ifdef HAVE_HWLOC
int strata__placement_plan(struct hwloc_topology *topo, int n,
                           struct hwloc_bitmap_s **sets)
{
    if (!topo || n < 1 || !sets)
        return -1;
    for (int i = 0; i < n; i++)
        sets[i] = NULL;
    /* hwloc_distrib splits n over the root's children in proportion to
     * their PUs, recursively, so threads spread over packages first, then
     * one per core, and only when every core has one do cores get a thread
     * per PU.  It is a pure function of the topology: same plan each run.
     * It stores a new bitmap (hwloc_bitmap_dup) in each sets[i]. */
    hwloc_obj_t root = hwloc_get_root_obj(topo);
    if (hwloc_distrib(topo, &root, 1, sets, (unsigned)n, INT_MAX, 0) != 0)
        goto fail;
    for (int i = 0; i < n; i++)
        if (!sets[i])
            goto fail;
    /* A thread bound to a whole core could still migrate between its
     * hyperthreads; keep one PU (the first). */
    for (int i = 0; i < n; i++)
        if (hwloc_bitmap_singlify(sets[i]) != 0)
            goto fail;
    return 0;
fail:
    for (int i = 0; i < n; i++) {
        hwloc_bitmap_free(sets[i]); /* NULL is allowed */
        sets[i] = NULL;
    }
    return -1;
}
#endif

#ifndef STRATA_PLACEMENT_PLAN_ONLY

#ifdef HAVE_HWLOC
/* Plan and state of one context, built at the first bind or query. */
struct strata_placement {
    hwloc_topology_t topo; /* this machine, restricted to `home`; NULL if
                              it could not be loaded (err says why) */
    hwloc_bitmap_t home;   /* the caller's binding at load time */
    int err;
    unsigned long long id; /* of the current plan (0: none) */
    int n;                 /* threads of the plan */
    hwloc_bitmap_t *sets;  /* n single-PU sets; sets[0] is the caller's */
    int bound;             /* workers bound by the last apply, -1: none */
    int failed, fail_err;  /* workers whose binding failed, first errno */
};

#endif

#if defined(HAVE_HWLOC) && defined(_OPENMP)
/* Plan ids are unique in the process.  Each thread remembers which plan it
 * last applied to its own OpenMP pool (libgomp keeps one pool per thread
 * that starts parallel regions): equal ids mean nothing to do. */
static atomic_ullong plan_ids;
static _Thread_local unsigned long long pool_plan;
static _Thread_local int pool_team; /* team size pool_plan was applied to */
#endif

void strata__placement_init(strata_ctx *ctx)
{
#ifdef HAVE_HWLOC
    ctx->bind = 1;
    ctx->bind_off = NULL;
    const char *s = getenv("STRATA_BIND");
    if (s && (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "off"))) {
        ctx->bind = 0;
        ctx->bind_off = "STRATA_BIND=0";
        return;
    }
    if (s && (!strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "on")))
        return;
    /* The user or the OpenMP runtime already places threads. */
    static const struct { const char *var, *why; } omp_vars[] = {
        {"OMP_PROC_BIND", "OMP_PROC_BIND is set"},
        {"OMP_PLACES", "OMP_PLACES is set"},
        {"GOMP_CPU_AFFINITY", "GOMP_CPU_AFFINITY is set"},
        {"KMP_AFFINITY", "KMP_AFFINITY is set"},
    };
    for (size_t i = 0; i < sizeof omp_vars / sizeof omp_vars[0]; i++) {
        s = getenv(omp_vars[i].var);
        if (s && *s) {
            ctx->bind = 0;
            ctx->bind_off = omp_vars[i].why;
            return;
        }
    }
#else
    ctx->bind = 0;
    ctx->bind_off = "no hwloc";
#endif
}

#ifdef HAVE_HWLOC
static void free_sets(strata_placement *p)
{
    for (int i = 0; i < p->n; i++)
        hwloc_bitmap_free(p->sets[i]);
    if (p->sets)
        free(p->sets);
    p->sets = NULL;
    p->n = 0;
    p->id = 0;
}
#endif

void strata__placement_free(strata_ctx *ctx)
{
#ifdef HAVE_HWLOC
    strata_placement *p = ctx->placement;
    if (!p)
        return;
    free_sets(p);
    hwloc_bitmap_free(p->home);
    if (p->topo)
        hwloc_topology_destroy(p->topo);
    free(p);
    ctx->placement = NULL;
#else
    (void)ctx;
#endif
}

#if defined(HAVE_HWLOC) && defined(_OPENMP)
/* The context's plan for ctx->threads, built or rebuilt when needed; NULL
 * without memory.  p->topo is NULL when the topology is unavailable.
 * (hwloc allocates with malloc anyway, so this small state does too.) */
static strata_placement *placement(strata_ctx *ctx)
{
    strata_placement *p = ctx->placement;
    if (!p) {
        if (!(p = calloc(1, sizeof *p)))
            return NULL;
        p->bound = -1;
        ctx->placement = p;
        if (hwloc_topology_init(&p->topo) != 0) {
            p->err = errno;
            p->topo = NULL;
            return p;
        }
        errno = 0;
        if (hwloc_topology_load(p->topo) != 0 || !(p->home = hwloc_bitmap_alloc())) {
            p->err = errno ? errno : ENOMEM;
            hwloc_topology_destroy(p->topo);
            p->topo = NULL;
            return p;
        }
        /* Stay inside what the caller was given (taskset, cgroups): plan
         * over the calling thread's binding, and return workers to it when
         * binding is switched off. */
        if (hwloc_get_cpubind(p->topo, p->home, HWLOC_CPUBIND_THREAD) != 0 ||
            hwloc_bitmap_iszero(p->home))
            hwloc_bitmap_copy(p->home, hwloc_topology_get_topology_cpuset(p->topo));
        if (!hwloc_bitmap_isequal(p->home, hwloc_topology_get_topology_cpuset(p->topo)))
            hwloc_topology_restrict(p->topo, p->home, 0); /* failure: whole machine */
    }
    if (p->topo && p->n != ctx->threads) {
        free_sets(p);
        const int n = ctx->threads;
        if (!(p->sets = calloc((size_t)n, sizeof *p->sets)))
            return NULL;
        if (strata__placement_plan(p->topo, n, p->sets) != 0) {
            free(p->sets);
            p->sets = NULL;
            return NULL;
        }
        p->n = n;
        p->id = atomic_fetch_add(&plan_ids, 1) + 1;
        p->bound = -1;
    }
    return p;
}

/* Bind workers 1..n-1 of the calling thread's pool to sets[i], or all to
 * `home` when sets is NULL.  Thread 0 is the caller: never re-bound, since
 * threads it creates later would inherit a single-core mask. */
static void apply(strata_placement *p, int n, hwloc_bitmap_t *sets)
{
    int team = 1, failed = 0, err = 0;
#pragma omp parallel num_threads(n) reduction(+ : failed)
    {
        const int i = omp_get_thread_num();
        if (i == 0) {
            team = omp_get_num_threads();
        } else if (hwloc_set_cpubind(p->topo, sets ? sets[i] : p->home,
                                     HWLOC_CPUBIND_THREAD) != 0) {
            const int e = errno;
            failed++;
#pragma omp critical
            if (!err)
                err = e;
        }
    }
    p->bound = team - 1 - failed;
    p->failed = failed;
    p->fail_err = err;
}
#endif

void strata__bind_threads(strata_ctx *ctx)
{
#if defined(HAVE_HWLOC) && defined(_OPENMP)
    if (!ctx || omp_in_parallel())
        return;
    if (!ctx->bind || ctx->threads < 2) {
        /* Hand back workers this thread's pool had bound for a plan. */
        if (pool_plan != 0) {
            strata_placement *p = placement(ctx);
            if (p && p->topo)
                apply(p, pool_team, NULL);
            pool_plan = 0;
        }
        return;
    }
    strata_placement *p = placement(ctx);
    if (!p || !p->topo || pool_plan == p->id)
        return;
    apply(p, p->n, p->sets);
    pool_plan = p->id;
    pool_team = p->n;
#else
    (void)ctx;
#endif
}

strata_status strata_ctx_set_binding(strata_ctx *ctx, int on)
{
    if (!ctx)
        return STRATA_ERR_INVALID_ARG;
#ifndef HAVE_HWLOC
    if (on)
        return STRATA_ERR_UNSUPPORTED;
#endif
    ctx->bind = on != 0;
    ctx->bind_off = on ? NULL : "turned off";
    return STRATA_OK;
}

#if defined(HAVE_HWLOC) && defined(_OPENMP)
/* Append the OS numbers of the PUs of sets[from..n-1], runs of three or
 * more as "a-b". */
static void pu_list(char *buf, size_t len, hwloc_bitmap_t *sets, int from, int n)
{
    size_t used = strlen(buf);
    for (int i = from; i < n && used < len;) {
        const int pu = hwloc_bitmap_first(sets[i]);
        int j = i;
        while (j + 1 < n && hwloc_bitmap_first(sets[j + 1]) == hwloc_bitmap_first(sets[j]) + 1)
            j++;
        const char *sep = i > from ? "," : "";
        int w;
        if (j - i >= 2) {
            w = snprintf(buf + used, len - used, "%s%d-%d", sep, pu, pu + (j - i));
            i = j + 1;
        } else {
            w = snprintf(buf + used, len - used, "%s%d", sep, pu);
            i++;
        }
        if (w < 0)
            return;
        used += (size_t)w;
    }
}
#endif

strata_status strata_ctx_binding(strata_ctx *ctx, char *buf, size_t len)
{
    if (!ctx || (!buf && len))
        return STRATA_ERR_INVALID_ARG;
    if (len == 0)
        return STRATA_OK;
    buf[0] = '\0';
    if (!ctx->bind) { /* always so without hwloc: bind_off says "no hwloc" */
        strata__bind_threads(ctx); /* hands back workers bound earlier */
        snprintf(buf, len, "unbound (%s)", ctx->bind_off ? ctx->bind_off : "turned off");
        return STRATA_OK;
    }
#if !defined(HAVE_HWLOC) || !defined(_OPENMP)
    snprintf(buf, len, "unbound (no OpenMP: 1 thread)");
#else
    if (ctx->threads < 2) {
        snprintf(buf, len, "unbound (1 thread: the calling thread is never pinned)");
        return STRATA_OK;
    }
    strata__bind_threads(ctx);
    const strata_placement *p = ctx->placement;
    if (!p || (p->topo && !p->sets))
        snprintf(buf, len, "unbound (out of memory)");
    else if (!p->topo)
        snprintf(buf, len, "unbound (topology unavailable: %s)", strerror(p->err));
    else if (p->bound < 0)
        snprintf(buf, len, "unbound (called inside a parallel region)");
    else if (p->failed)
        snprintf(buf, len, "unbound (binding failed for %d of %d workers: %s)", p->failed,
                 p->failed + p->bound, strerror(p->fail_err));
    else {
        snprintf(buf, len, "%d threads: %d worker%s bound to PU%s ", p->n, p->bound,
                 p->bound == 1 ? "" : "s", p->bound == 1 ? "" : "s");
        pu_list(buf, len, p->sets, 1, 1 + p->bound);
        size_t used = strlen(buf);
        if (used < len)
            snprintf(buf + used, len - used, ", the calling thread not pinned");
    }
#endif
    return STRATA_OK;
}

#endif /* !STRATA_PLACEMENT_PLAN_ONLY */
