/* The context (core/ctx.c): its layout, and progress and cancel checks
 * for the entry points. */
#ifndef STRATA_CTX_H
#define STRATA_CTX_H

#include "base.h"
#include "../simd/functable.h"

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
    /* Thread placement (core/topology.c). */
    int bind;                      /* place worker threads on cores */
    const char *bind_off;          /* why not, when bind is 0 */
    struct strata_placement *placement; /* plan; NULL until first needed */
    strata_arena_stats arena_stats; /* of the last strata_slice */
};

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
