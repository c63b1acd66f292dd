/* strata view's request head (apps/http.c): whatever a client sends, the
 * answer is one of 200, 400, 403, 405, and a path accepted is one the
 * server may join to a root: it starts with '/', fits the buffer, and has
 * no NUL, backslash or segment starting with '.'.  A Host header found is
 * a non-empty run of visible ASCII bytes that fits its buffer. */
#define _GNU_SOURCE /* memmem */
#include "fuzz.h"
#include "../../apps/http.h"

#include <string.h>

static void host(const uint8_t *data, size_t size)
{
    char h[64];
    memset(h, 'x', sizeof h);
    const int st = http_request_host((const char *)data, size, h, sizeof h);
    FUZZ_REQUIRE(st == 1 || st == 0 || st == -1);
    if (st != 1)
        return;
    const size_t n = strnlen(h, sizeof h);
    FUZZ_REQUIRE(n >= 1 && n < sizeof h);
    for (size_t i = 0; i < n; i++)
        FUZZ_REQUIRE((unsigned char)h[i] > ' ' && (unsigned char)h[i] < 127);
    FUZZ_REQUIRE(memmem(data, size, h, n) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    host(data, size);
    char path[256];
    memset(path, 'x', sizeof path);
    const int st = http_request_path((const char *)data, size, path, sizeof path);
    FUZZ_REQUIRE(st == 200 || st == 400 || st == 403 || st == 405);
    if (st != 200)
        return 0;
    const size_t n = strnlen(path, sizeof path);
    FUZZ_REQUIRE(n < sizeof path && n >= 1 && path[0] == '/');
    FUZZ_REQUIRE(!memchr(path, '\\', n));
    for (const char *seg = path; seg; seg = strchr(seg + 1, '/')) {
        const size_t len = strcspn(seg + 1, "/");
        FUZZ_REQUIRE(!(len > 0 && seg[1] == '.'));
    }
    /* a GET request line was there */
    FUZZ_REQUIRE(size >= 3 && !memcmp(data + strspn((const char *)data, " "), "GET", 3));
    return 0;
}
