/* Memory: allocation through a context's (or a mesh's, a result's)
 * allocator, 64-byte aligned, and the library's default allocator
 * (core/base/alloc.c); the per-thread bump arenas of the slicer
 * (core/base/arena.c). */
#ifndef STRATA_ALLOC_H
#define STRATA_ALLOC_H

#include "base.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* The hook strata_ctx_options.allocator NULL stands for. */
STRATA_HIDDEN void strata__allocator_default(strata_allocator *al);

/* size bytes (64-byte aligned) from a, or NULL. */
STRATA_HIDDEN void *strata__alloc(const strata_allocator *a, size_t size);
/* Give p (NULL allowed) back to a. */
STRATA_HIDDEN void strata__free(const strata_allocator *a, void *p);
/* n * size bytes with an overflow check: NULL on overflow or without
 * memory. */
STRATA_HIDDEN void *strata__alloc_array(const strata_allocator *a, size_t n,
                                        size_t size);

/* Blocks kept from one call to the next (strata_slice_into keeps its
 * scratch memory with the result, so a slice into a warm result touches
 * no fresh page).  A call starts with strata__pool_begin: the blocks kept
 * so far become `old`; strata__pool_take hands one of them out (the
 * smallest that is big enough and at most 3/2 of the size asked for),
 * strata__pool_put keeps a block the call is done with, and
 * strata__pool_end frees the old blocks nobody took, so a pool holds one
 * call's blocks.  A block's first bytes hold its link while it is kept.
 * Take and put may run on several threads at once (a spin lock: they are
 * rare, a few per call); begin, end and free on one. */
typedef struct strata_pool {
    struct pool_block *old, *kept;
    atomic_flag busy;
} strata_pool;
STRATA_HIDDEN void strata__pool_begin(strata_pool *p);
/* A kept block of at least size bytes, its size in *got; NULL if none fits. */
STRATA_HIDDEN void *strata__pool_take(strata_pool *p, size_t size, size_t *got);
STRATA_HIDDEN void strata__pool_put(strata_pool *p, void *block, size_t size);
STRATA_HIDDEN void strata__pool_end(strata_pool *p, const strata_allocator *al);
/* Free every block (old and kept); p is then empty. */
STRATA_HIDDEN void strata__pool_free(strata_pool *p, const strata_allocator *al);

/* A per-thread bump arena: 64-byte-aligned pieces of big blocks from the
 * context's allocator, all freed together.  Padded to a cache line so that
 * arenas of different threads never share one. */
typedef struct strata_arena {
    _Alignas(STRATA_ALIGN) const strata_allocator *al;
    struct arena_block *blocks; /* newest first */
    unsigned char *cur, *end;   /* free part of the newest block */
    uint64_t nblocks, reserved, used, wasted;
    strata_pool *pool; /* NULL, or where blocks come from first and go back */
} strata_arena;
STRATA_HIDDEN void strata__arena_init(strata_arena *a, const strata_allocator *al);
/* size bytes at a 64-byte boundary, or NULL without memory. */
STRATA_HIDDEN void *strata__arena_alloc(strata_arena *a, size_t size);
/* Free the blocks, or keep them in a->pool. */
STRATA_HIDDEN void strata__arena_free(strata_arena *a);
/* Add this arena's figures to s (one more arena). */
STRATA_HIDDEN void strata__arena_stats_add(const strata_arena *a, strata_arena_stats *s);

#endif
