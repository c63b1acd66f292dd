/* strata__par_blocks (par.h): blocks handed out from one atomic counter
 * inside one parallel region. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "base/par.h"

#include <stdatomic.h>
#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
    atomic_size_t next;     /* first block not yet taken */
    atomic_size_t done;     /* blocks finished */
    atomic_int stop;        /* a block failed or the run was cancelled */
    _Atomic uint64_t fault; /* lowest failure seen: block << 8 | status;
                               UINT64_MAX: none */
} par_state;

/* A cancellation ranks after every failed block. */
#define CANCEL_BLOCK (UINT64_MAX >> 9)

static void fail_at(par_state *s, uint64_t b, strata_status st)
{
    const uint64_t key = b << 8 | (uint64_t)st;
    uint64_t cur = atomic_load(&s->fault);
    while (key < cur && !atomic_compare_exchange_weak(&s->fault, &cur, key))
        ;
    atomic_store(&s->stop, 1);
}

/* One thread's share: blocks until none is left or the run stops.  The
 * calling thread (thread 0) also reports progress and checks
 * cancellation through the callback. */
static void take_blocks(strata_ctx *ctx, par_state *s, size_t nblocks, strata_block_fn fn,
                        void *arg, int thread, const char *stage, double from, double to,
                        size_t report)
{
    size_t reported = 0;
    for (;;) {
        if (atomic_load_explicit(&s->stop, memory_order_relaxed))
            return;
        if (stage && strata__cancelled(ctx)) {
            fail_at(s, CANCEL_BLOCK, STRATA_ERR_CANCELLED);
            return;
        }
        const size_t b = atomic_fetch_add_explicit(&s->next, 1, memory_order_relaxed);
        if (b >= nblocks)
            return;
        strata_status st = fn(arg, b, thread);
        if (st != STRATA_OK) {
            fail_at(s, b, st);
            return;
        }
        const size_t done = atomic_fetch_add_explicit(&s->done, 1, memory_order_relaxed) + 1;
        if (thread == 0 && stage && done < nblocks && done / report > reported) {
            reported = done / report;
            if (strata__progress(ctx, stage,
                                 from + (to - from) * ((double)done / (double)nblocks)) !=
                STRATA_OK) {
                fail_at(s, CANCEL_BLOCK, STRATA_ERR_CANCELLED);
                return;
            }
        }
    }
}

strata_status strata__par_blocks(strata_ctx *ctx, size_t nblocks, strata_block_fn fn,
                                 void *arg, const char *stage, double from, double to,
                                 size_t report)
{
    if (stage && strata__cancelled(ctx))
        return STRATA_ERR_CANCELLED;
    if (nblocks == 0)
        return STRATA_OK;
    par_state s;
    atomic_init(&s.next, 0);
    atomic_init(&s.done, 0);
    atomic_init(&s.stop, 0);
    atomic_init(&s.fault, UINT64_MAX);
    if (report == 0)
        report = 1;
#ifdef _OPENMP
    const int nth = ctx->threads;
    if (nth > 1 && nblocks > 1) {
#pragma omp parallel num_threads(nth)
        take_blocks(ctx, &s, nblocks, fn, arg, omp_get_thread_num(), stage, from, to, report);
    } else
#endif
    {
        take_blocks(ctx, &s, nblocks, fn, arg, 0, stage, from, to, report);
    }
    const uint64_t fault = atomic_load(&s.fault);
    return fault == UINT64_MAX ? STRATA_OK : (strata_status)(fault & 0xff);
}
