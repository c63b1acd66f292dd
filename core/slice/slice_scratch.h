/* Scratch memory of the slicer (core/slice/slice_scratch.c).
 *
 * A scratch arena hands out 64-byte-aligned pieces and gives them all
 * back in one call, as meshoptimizer's meshopt_Allocator does: a phase
 * allocates what it makes and never frees it; the caller releases the
 * arena when the last reader is done.  Pieces of at least
 * STRATA_SCRATCH_OWN bytes (the per-vertex and per-edge tables) get a
 * block of their own from the allocator, untouched until the phase that
 * fills them writes them (so their pages land where those threads run,
 * and the default allocator's huge-page advice applies); smaller ones
 * share blocks of STRATA_SCRATCH_BLOCK bytes.
 *
 * With a pool (strata_pool, alloc.h) the big pieces come from its kept
 * blocks when one fits and go back to it on release: strata_slice_into
 * hands the same warm blocks to the next slice into a result.  Not
 * thread-safe: allocate from the calling thread.
 */
#ifndef STRATA_SLICE_SCRATCH_H
#define STRATA_SLICE_SCRATCH_H

#include "base/alloc.h"
#include "base.h"

#include <stddef.h>

#define STRATA_SCRATCH_BLOCK ((size_t)64 << 10)
#define STRATA_SCRATCH_OWN ((size_t)16 << 10)

typedef struct strata_scratch {
    const strata_allocator *al;
    struct scratch_block *shared; /* blocks of small pieces, newest first */
    struct scratch_block *own;    /* records of the big pieces, newest first
                                     (the records live in shared blocks) */
    unsigned char *cur, *end;     /* free part of the newest shared block */
    strata_pool *pool;            /* NULL, or where big pieces come from
                                     first and go back to */
} strata_scratch;

/* An empty arena; pool may be NULL. */
STRATA_HIDDEN void strata__scratch_init(strata_scratch *s, const strata_allocator *al,
                                       strata_pool *pool);
/* Room for n elements of `size` bytes at a 64-byte boundary,
 * uninitialised; never NULL for n == 0 while memory lasts.  NULL without
 * memory or when n * size overflows. */
STRATA_HIDDEN void *strata__scratch_alloc(strata_scratch *s, size_t n, size_t size);
/* Give back every piece; s is then empty and can be used again. */
STRATA_HIDDEN void strata__scratch_release(strata_scratch *s);

#endif
