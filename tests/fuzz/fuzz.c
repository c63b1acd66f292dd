/* Shared helpers of the fuzz harnesses (see fuzz.h). */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fuzz_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: expectation failed: %s\n", file, line, what);
    abort();
}

static struct {
    uint64_t live, peak, base; /* base: live at the last reset */
} mem;

/* Each block starts with a header of max(align, 16) bytes holding the
 * block's size and header size, so free finds both. */
static void *count_alloc(void *user, size_t size, size_t align)
{
    (void)user;
    const size_t head = align > 16 ? align : 16;
    if (mem.live + size > mem.peak)
        mem.peak = mem.live + size;
    if (size > SIZE_MAX - head)
        return NULL;
    void *base;
    if (posix_memalign(&base, head, head + size) != 0)
        return NULL;
    unsigned char *p = (unsigned char *)base + head;
    memcpy(p - 2 * sizeof(size_t), &size, sizeof size);
    memcpy(p - sizeof(size_t), &head, sizeof head);
    mem.live += size;
    return p;
}

static void count_free(void *user, void *ptr)
{
    (void)user;
    if (!ptr)
        return;
    unsigned char *p = ptr;
    size_t size, head;
    memcpy(&size, p - 2 * sizeof(size_t), sizeof size);
    memcpy(&head, p - sizeof(size_t), sizeof head);
    FUZZ_REQUIRE(size <= mem.live);
    mem.live -= size;
    free(p - head);
}

strata_ctx *fuzz_ctx(void)
{
    static strata_ctx *ctx;
    static const strata_allocator counting = {count_alloc, count_free, NULL};
    if (!ctx) {
        strata_ctx_options opt;
        strata_ctx_defaults(&opt);
        opt.threads = 1;
        opt.allocator = &counting;
        FUZZ_REQUIRE(strata_ctx_create(&opt, &ctx) == STRATA_OK);
    }
    return ctx;
}

void fuzz_mem_reset(void) { mem.peak = mem.base = mem.live; }
uint64_t fuzz_mem_live(void) { return mem.live - mem.base; }
uint64_t fuzz_mem_peak(void) { return mem.peak - mem.base; }

char *fuzz_string(const uint8_t *data, size_t size)
{
    const void *nul = memchr(data, '\0', size);
    const size_t n = nul ? (size_t)((const uint8_t *)nul - data) : size;
    char *s = malloc(n + 1);
    FUZZ_REQUIRE(s != NULL);
    memcpy(s, data, n);
    s[n] = '\0';
    return s;
}
