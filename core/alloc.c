/* Allocation through an allocator hook (see alloc.h), and the library's
 * default hook: aligned malloc, transparent huge pages for big blocks. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "alloc.h"

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
