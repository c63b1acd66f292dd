/* Work shared out in blocks, one parallel region per call.
 *
 * A stage that splits its items into fixed blocks whose results do not
 * depend on which thread computes them (each block writes its own part
 * of the output) runs them through strata__par_blocks: the context's
 * threads take blocks from one shared counter, so a thread that loses
 * its core to another process does fewer blocks instead of stalling the
 * others at a barrier.  There is one region (one barrier) per call,
 * where a loop of statically scheduled regions would wait at every one
 * for the slowest thread (issue: 2 threads with one core busy ran at a
 * third of 1 thread's speed).  The bytes are those of a serial loop. */
#ifndef STRATA_PAR_H
#define STRATA_PAR_H

#include "base/ctx.h"

#include <stddef.h>

/* Work on block b as thread `thread` (0 .. ctx->threads - 1, for
 * per-thread state such as arenas; 0 is the calling thread); a status
 * other than STRATA_OK stops the run. */
typedef strata_status (*strata_block_fn)(void *arg, size_t b, int thread);

/* Runs fn(arg, b, thread) for every b in [0, nblocks) on ctx's threads.
 * The calling thread reports progress under `stage` between `from` and
 * `to` (about every `report` blocks done, never backwards; `from` and
 * `to` themselves are left to the caller) and checks the cancel flag;
 * every thread checks the flag before each block.  Returns
 * STRATA_ERR_CANCELLED, or the status of a failed block (the lowest-
 * numbered one seen when several fail), or STRATA_OK; after a failure
 * some blocks may not have run.  stage NULL: no progress and no cancel
 * check, every block runs (a pass that must not stop half way). */
STRATA_HIDDEN strata_status strata__par_blocks(strata_ctx *ctx, size_t nblocks,
                                               strata_block_fn fn, void *arg,
                                               const char *stage, double from, double to,
                                               size_t report);

#endif
