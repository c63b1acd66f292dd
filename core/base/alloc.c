/* Allocation through an allocator hook (see alloc.h), and the library's
 * default hook: aligned malloc, transparent huge pages for big blocks. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "base/alloc.h"

#include <stdlib.h>
#include <sys/mman.h>

/* Arrays of a big mesh are touched once each, so first-touch page faults
 * cost as much as the work itself with 4 KiB pages: ask for transparent
 * huge pages on large blocks (aligned to 2 MiB so whole pages fit). */
#define HUGE_BLOCK (2u << 20)

static void *default_alloc(void *user, size_t size, size_t align)
{
    (void)user;
    void *p = NULL;
    if (size == 0)
        size = align;
    if (size >= 4 * (size_t)HUGE_BLOCK && align < HUGE_BLOCK)
        align = HUGE_BLOCK;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    if (size >= 4 * (size_t)HUGE_BLOCK)
        madvise(p, size & ~((size_t)HUGE_BLOCK - 1), MADV_HUGEPAGE);
#endif
    return p;
}

static void default_free(void *user, void *p)
{
    (void)user;
    free(p);
}

void strata__allocator_default(strata_allocator *al)
{
    al->alloc = default_alloc;
    al->free = default_free;
    al->user = NULL;
}

void *strata__alloc(const strata_allocator *a, size_t size)
{
    return a->alloc(a->user, size, STRATA_ALIGN);
}

void strata__free(const strata_allocator *a, void *p)
{
    if (p)
        a->free(a->user, p);
}

void *strata__alloc_array(const strata_allocator *a, size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    return strata__alloc(a, n * size);
}

/* ------------------------------------------------------------- pools */

typedef struct pool_block {
    struct pool_block *next;
    size_t size;
} pool_block;

void strata__pool_begin(strata_pool *p)
{
    pool_block **tail = &p->kept;
    while (*tail)
        tail = &(*tail)->next;
    *tail = p->old; /* none unless a call ended without strata__pool_end */
    p->old = p->kept;
    p->kept = NULL;
}

static void lock(strata_pool *p)
{
    while (atomic_flag_test_and_set_explicit(&p->busy, memory_order_acquire)) {
    }
}

static void unlock(strata_pool *p)
{
    atomic_flag_clear_explicit(&p->busy, memory_order_release);
}

void *strata__pool_take(strata_pool *p, size_t size, size_t *got)
{
    lock(p);
    pool_block **best = NULL;
    for (pool_block **b = &p->old; *b; b = &(*b)->next)
        if ((*b)->size >= size && (*b)->size - size <= size / 2 &&
            (!best || (*b)->size < (*best)->size))
            best = b;
    pool_block *blk = best ? *best : NULL;
    if (blk) {
        *best = blk->next;
        *got = blk->size;
    }
    unlock(p);
    return blk;
}

void strata__pool_put(strata_pool *p, void *block, size_t size)
{
    pool_block *blk = block;
    blk->size = size;
    lock(p);
    blk->next = p->kept;
    p->kept = blk;
    unlock(p);
}

static void free_list(pool_block *b, const strata_allocator *al)
{
    for (pool_block *next; b; b = next) {
        next = b->next;
        strata__free(al, b);
    }
}

void strata__pool_end(strata_pool *p, const strata_allocator *al)
{
    free_list(p->old, al);
    p->old = NULL;
}

void strata__pool_free(strata_pool *p, const strata_allocator *al)
{
    free_list(p->old, al);
    free_list(p->kept, al);
    p->old = p->kept = NULL;
}
