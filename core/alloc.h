/* Memory: allocation through a context's (or a mesh's, a result's)
 * allocator, 64-byte aligned, and the library's default allocator
 * (core/alloc.c); the per-thread bump arenas of the slicer
 * (core/arena.c). */
#ifndef STRATA_ALLOC_H
#define STRATA_ALLOC_H

#include "base.h"

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

/* A per-thread bump arena: 64-byte-aligned pieces of big blocks from the
 * context's allocator, all freed together.  Padded to a cache line so that
 * arenas of different threads never share one. */
typedef struct strata_arena {
    _Alignas(STRATA_ALIGN) const strata_allocator *al;
    struct arena_block *blocks; /* newest first */
    unsigned char *cur, *end;   /* free part of the newest block */
    uint64_t nblocks, reserved, used, wasted;
} strata_arena;
STRATA_HIDDEN void strata__arena_init(strata_arena *a, const strata_allocator *al);
/* size bytes at a 64-byte boundary, or NULL without memory. */
STRATA_HIDDEN void *strata__arena_alloc(strata_arena *a, size_t size);
STRATA_HIDDEN void strata__arena_free(strata_arena *a);
/* Add this arena's figures to s (one more arena). */
STRATA_HIDDEN void strata__arena_stats_add(const strata_arena *a, strata_arena_stats *s);

#endif
