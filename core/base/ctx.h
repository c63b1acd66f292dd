/* The context (core/base/ctx.c): its layout, and progress and cancel checks
 * for the entry points. */
#ifndef STRATA_CTX_H
#define STRATA_CTX_H

#include "base.h"
#include "simd/functable.h"

#include <stdatomic.h>
#include <stdbool.h>

struct strata_ctx {
    strata_dispatch simd; /* kernels of the chosen instruction set */
    strata_allocator alloc;
    int threads;         /* effective worker count, >= 1 */
    int default_threads; /* what threads = 0 means */
    strata_progress_fn progress;
    void *progress_user;
    atomic_int cancel;
    int no_sync; /* outputs renamed into place without fsync */
    struct strata_out_group *group; /* core/base/output.c: outputs renamed
                                       together at its end; NULL: each
                                       renamed when finished */
    /* Thread placement (core/base/topology.c). */
    int bind;                      /* place worker threads on cores */
    const char *bind_off;          /* why not, when bind is 0 */
    struct strata_placement *placement; /* plan; NULL until first needed */
    strata_arena_stats arena_stats; /* of the last strata_slice */
    struct strata_world_scratch *world_scratch; /* core/world/world.c: kept between
                                                   chunks, NULL until needed */
    void (*world_scratch_free)(strata_ctx *); /* set with it: releases it (a
                                                 pointer, so ctx.c does not
                                                 link the world code) */
};

/* A context for one worker thread of ctx (threads that take whole pieces
 * of work, such as a world's chunks): one thread, ctx's allocator and
 * instruction set, no progress callback, no thread placement. */
STRATA_HIDDEN strata_status strata__ctx_worker(strata_ctx *ctx, strata_ctx **out);

/* Report progress (the callback may ask to cancel) and check the cancel
 * flag: STRATA_ERR_CANCELLED when the run must stop.  Call from the
 * calling thread only. */
STRATA_HIDDEN strata_status strata__progress(strata_ctx *ctx, const char *stage,
                                             double done);

/* The cancel flag alone: cheap, from any thread. */
static inline bool strata__cancelled(const strata_ctx *ctx)
{
    return atomic_load_explicit(&((strata_ctx *)ctx)->cancel,
                                memory_order_relaxed) != 0;
}

#endif
