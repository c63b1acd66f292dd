/* Per-thread bump arenas (see alloc.h) and the figures of the last
 * slice's arenas (strata_ctx_arena_stats).
 *
 * An arena hands out 64-byte-aligned pieces of big blocks; when the
 * current block cannot hold a request, the rest of it is counted as
 * wasted and a new block starts (a request bigger than a block gets a
 * block of its own size).  Everything is freed at once.  Each worker
 * thread owns one arena and is the first to touch its blocks, so their
 * pages land on that thread's NUMA node.
 */
#include "base/alloc.h"
#include "base/ctx.h"

#include <string.h>

/* Block sizes double from ARENA_FIRST to ARENA_MAX (or are as big as the
 * request): a small job takes little memory, a big one gets blocks large
 * enough for transparent huge pages while the tail wasted per thread
 * stays small beside its output. */
#define ARENA_FIRST ((size_t)64 << 10)
#define ARENA_MAX ((size_t)8 << 20)

/* A block starts with its header, padded to keep the payload aligned. */
typedef struct arena_block {
    struct arena_block *next;
    size_t size; /* payload bytes */
} arena_block;
#define HEADER_BYTES (((sizeof(arena_block) + STRATA_ALIGN - 1) / STRATA_ALIGN) * STRATA_ALIGN)

void strata__arena_init(strata_arena *a, const strata_allocator *al)
{
    memset(a, 0, sizeof *a);
    a->al = al;
}

void *strata__arena_alloc(strata_arena *a, size_t size)
{
    const size_t need = (size + STRATA_ALIGN - 1) & ~(size_t)(STRATA_ALIGN - 1);
    if (need < size)
        return NULL;
    if ((size_t)(a->end - a->cur) < need) {
        const size_t grow = a->nblocks < 7 ? ARENA_FIRST << a->nblocks : ARENA_MAX;
        size_t payload = need > grow - HEADER_BYTES ? need : grow - HEADER_BYTES;
        if (payload > SIZE_MAX - HEADER_BYTES)
            return NULL;
        size_t got = 0;
        arena_block *b = a->pool ? strata__pool_take(a->pool, HEADER_BYTES + payload, &got) : NULL;
        if (b)
            payload = got - HEADER_BYTES;
        else if (!(b = strata__alloc(a->al, HEADER_BYTES + payload)))
            return NULL;
        b->next = a->blocks;
        b->size = payload;
        a->blocks = b;
        a->wasted += (uint64_t)(a->end - a->cur); /* the old block's tail */
        a->reserved += HEADER_BYTES + payload;
        a->nblocks++;
        a->cur = (unsigned char *)b + HEADER_BYTES;
        a->end = a->cur + payload;
    }
    void *p = a->cur;
    a->cur += need;
    a->used += size;
    a->wasted += need - size; /* alignment padding */
    return p;
}

void strata__arena_free(strata_arena *a)
{
    for (arena_block *b = a->blocks, *next; b; b = next) {
        next = b->next;
        if (a->pool)
            strata__pool_put(a->pool, b, HEADER_BYTES + b->size);
        else
            strata__free(a->al, b);
    }
    a->blocks = NULL;
    a->cur = a->end = NULL;
}

void strata__arena_stats_add(const strata_arena *a, strata_arena_stats *s)
{
    s->arenas++;
    s->blocks += a->nblocks;
    s->bytes_reserved += a->reserved;
    s->bytes_used += a->used;
    s->bytes_wasted += a->wasted;
}

void strata_ctx_arena_stats(const strata_ctx *ctx, strata_arena_stats *out)
{
    if (!out)
        return;
    if (!ctx) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = ctx->arena_stats;
}
