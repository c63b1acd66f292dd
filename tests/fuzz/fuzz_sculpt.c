/* A request to the sculpt server (apps/serve.c, apps/sculpt.c), head and
 * body as a client sends them: the request line with its query
 * (http_request_line), the Origin header (http_request_header), the
 * body's length (http_content_length) and the dab and export bodies
 * (apps/body.c).  Whatever the bytes, each answers one of its documented
 * statuses; what is accepted obeys the limits the server relies on: a
 * query, an Origin and a length that come from the request's own bytes
 * and fit their buffers, a dab that strata_edit_validate takes, an export
 * format and name that can only make a file inside DIR/exports. */
#define _GNU_SOURCE /* memmem */
#include "fuzz.h"
#include "../../apps/body.h"
#include "../../apps/http.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BODY_MAX 1024 /* as apps/sculpt.c */

/* The end of the head (after its empty line), as apps/serve.c finds it,
 * or 0. */
static size_t head_end(const uint8_t *data, size_t size)
{
    const uint8_t *crlf = memmem(data, size, "\r\n\r\n", 4), *lf = memmem(data, size, "\n\n", 2);
    if (crlf && (!lf || crlf < lf))
        return (size_t)(crlf - data) + 4;
    return lf ? (size_t)(lf - data) + 2 : 0;
}

static void line(const uint8_t *data, size_t end)
{
    char path[256], query[64];
    int post = -1;
    const int st = http_request_line((const char *)data, end, &post, path, sizeof path, query,
                                     sizeof query);
    FUZZ_REQUIRE(st == 200 || st == 400 || st == 403 || st == 405);
    FUZZ_REQUIRE(post == 0 || post == 1);
    if (st != 200)
        return;
    FUZZ_REQUIRE(memmem(data, end, post ? "POST" : "GET", post ? 4 : 3) != NULL);
    const size_t n = strnlen(path, sizeof path), q = strnlen(query, sizeof query);
    FUZZ_REQUIRE(n >= 1 && n < sizeof path && path[0] == '/' && q < sizeof query);
    FUZZ_REQUIRE(!memchr(query, '#', q));
    FUZZ_REQUIRE(q == 0 || memmem(data, end, query, q) != NULL);
}

static void origin(const uint8_t *data, size_t end)
{
    char o[128];
    const int st = http_request_header((const char *)data, end, "origin", o, sizeof o);
    FUZZ_REQUIRE(st == 1 || st == 0 || st == -1);
    if (st != 1)
        return;
    const size_t n = strnlen(o, sizeof o);
    FUZZ_REQUIRE(n >= 1 && n < sizeof o && memmem(data, end, o, n) != NULL);
}

/* The body's bytes, as apps/sculpt.c reads them: refused with a NUL. */
static void body(const uint8_t *data, size_t size)
{
    char *b = malloc(size + 1);
    FUZZ_REQUIRE(b != NULL);
    memcpy(b, data, size);
    b[size] = '\0';
    if (memchr(data, 0, size)) {
        free(b);
        return;
    }
    strata_edit d;
    memset(&d, 0xa5, sizeof d);
    if (!body_dab(b, &d)) {
        FUZZ_REQUIRE(strata_edit_validate(&d) == STRATA_OK);
        for (int k = 0; k < 3; k++)
            FUZZ_REQUIRE(isfinite(d.center[k]));
        FUZZ_REQUIRE(isfinite(d.radius) && d.radius > 0 && isfinite(d.strength));
    }
    char format[8], name[65];
    if (!body_export(b, format, name)) {
        FUZZ_REQUIRE(!strcmp(format, "glb") || !strcmp(format, "stl") ||
                     !strcmp(format, "world"));
        const size_t n = strnlen(name, sizeof name);
        FUZZ_REQUIRE(n >= 1 && n <= 64 && name[0] != '-');
        FUZZ_REQUIRE(strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                  "0123456789_-") == n);
        FUZZ_REQUIRE(strstr(b, name) != NULL);
    }
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const size_t end = head_end(data, size);
    line(data, end ? end : size);
    if (!end)
        return 0;
    origin(data, end);
    size_t len = (size_t)-1;
    const int st = http_content_length((const char *)data, end, BODY_MAX, &len);
    FUZZ_REQUIRE(st == 0 || st == 411 || st == 413 || st == 501);
    if (st != 0) {
        FUZZ_REQUIRE(len == (size_t)-1); /* untouched */
        return 0;
    }
    FUZZ_REQUIRE(len <= BODY_MAX);
    char digits[24];
    snprintf(digits, sizeof digits, "%zu", len);
    FUZZ_REQUIRE(memmem(data, end, digits, strlen(digits)) != NULL);
    body(data + end, len < size - end ? len : size - end);
    return 0;
}
