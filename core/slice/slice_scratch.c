/* Scratch arenas of the slicer (see slice_scratch.h). */
#include "base/alloc.h"
#include "slice/slice_scratch.h"

#include <string.h>

/* A shared block starts with this header (padded to keep pieces
 * aligned); a big piece is all payload, its record sits in a shared
 * block, so nothing of it is touched before its phase writes it. */
typedef struct scratch_block {
    struct scratch_block *next;
    void *mem;   /* big pieces: the piece itself */
    size_t size; /* big pieces: its bytes */
} scratch_block;
#define HEADER_BYTES (((sizeof(scratch_block) + STRATA_ALIGN - 1) / STRATA_ALIGN) * STRATA_ALIGN)

void strata__scratch_init(strata_scratch *s, const strata_allocator *al, strata_pool *pool)
{
    memset(s, 0, sizeof *s);
    s->al = al;
    s->pool = pool;
}

/* need bytes (a multiple of 64, below STRATA_SCRATCH_OWN) from the newest
 * shared block, or from a new one. */
static void *take_shared(strata_scratch *s, size_t need)
{
    if ((size_t)(s->end - s->cur) < need) {
        scratch_block *b = strata__alloc(s->al, HEADER_BYTES + STRATA_SCRATCH_BLOCK);
        if (!b)
            return NULL;
        b->next = s->shared;
        b->mem = NULL;
        s->shared = b;
        s->cur = (unsigned char *)b + HEADER_BYTES;
        s->end = s->cur + STRATA_SCRATCH_BLOCK;
    }
    void *p = s->cur;
    s->cur += need;
    return p;
}

void *strata__scratch_alloc(strata_scratch *s, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    const size_t bytes = n * size;
    if (bytes > SIZE_MAX - STRATA_ALIGN)
        return NULL;
    const size_t need = bytes ? (bytes + STRATA_ALIGN - 1) & ~(size_t)(STRATA_ALIGN - 1)
                              : STRATA_ALIGN;
    if (need < STRATA_SCRATCH_OWN)
        return take_shared(s, need);
    scratch_block *rec = take_shared(s, HEADER_BYTES);
    if (!rec)
        return NULL;
    size_t got = bytes;
    void *p = s->pool ? strata__pool_take(s->pool, bytes, &got) : NULL;
    if (!p && !(p = strata__alloc(s->al, bytes)))
        return NULL; /* the record goes with its shared block */
    rec->mem = p;
    rec->size = got;
    rec->next = s->own;
    s->own = rec;
    return p;
}

void strata__scratch_release(strata_scratch *s)
{
    for (scratch_block *r = s->own; r; r = r->next) { /* records first: */
        if (s->pool)                                   /* they live in shared blocks */
            strata__pool_put(s->pool, r->mem, r->size);
        else
            strata__free(s->al, r->mem);
    }
    for (scratch_block *b = s->shared, *next; b; b = next) {
        next = b->next;
        strata__free(s->al, b);
    }
    strata__scratch_init(s, s->al, s->pool);
}
