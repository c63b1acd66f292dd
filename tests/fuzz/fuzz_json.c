/* strata__json_parse, the strict JSON reader of world manifests and tile
 * metadata (core/base/json.h; the harnesses link the static library, so hidden
 * functions can be called).  Every value of a parsed document can be
 * walked: containers hold as many values as they count, numbers are
 * finite (and exact as integers when they are ones), strings end with a
 * NUL after their length; a failure leaves no document and no memory
 * behind; the reader asks for at most a small multiple of the text's size
 * (a node of 24 bytes, a child id and a key id of 4 for every value, which
 * takes at least two bytes with its separator, all grown by doubling). */
#include "fuzz.h"

#include "base/ctx.h"
#include "base/json.h"

#include <math.h>

static void walk(const strata_json_doc *d, strata_json_ref v, int depth)
{
    FUZZ_REQUIRE(depth <= STRATA_JSON_MAX_DEPTH + 1);
    const strata_json_type t = strata__json_type(d, v);
    const uint32_t n = strata__json_count(d, v);
    double x;
    uint64_t u;
    const char *s;
    size_t len;
    FUZZ_REQUIRE(strata__json_number(d, v, &x) == (t == STRATA_JSON_NUMBER));
    if (t == STRATA_JSON_NUMBER) {
        FUZZ_REQUIRE(isfinite(x));
        if (strata__json_u64(d, v, &u))
            FUZZ_REQUIRE((double)u == x && u <= (uint64_t)1 << 53);
    }
    FUZZ_REQUIRE(strata__json_string(d, v, &s, &len) == (t == STRATA_JSON_STRING));
    if (t == STRATA_JSON_STRING)
        FUZZ_REQUIRE(s[len] == '\0');
    if (t != STRATA_JSON_ARRAY && t != STRATA_JSON_OBJECT) {
        FUZZ_REQUIRE(t >= STRATA_JSON_NULL && t <= STRATA_JSON_STRING && n == 0);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        const strata_json_ref c = strata__json_at(d, v, i);
        FUZZ_REQUIRE(c != STRATA_JSON_NIL);
        walk(d, c, depth + 1);
    }
    FUZZ_REQUIRE(strata__json_at(d, v, n) == STRATA_JSON_NIL);
    FUZZ_REQUIRE(strata__json_type(d, strata__json_at(d, v, n)) == STRATA_JSON_NONE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    strata_ctx *ctx = fuzz_ctx();
    fuzz_mem_reset();
    strata_json_doc *d = (strata_json_doc *)&d; /* must be cleared */
    const strata_status st = strata__json_parse(&ctx->alloc, (const char *)data, size, &d);
    FUZZ_REQUIRE(fuzz_mem_peak() <= 128 * (uint64_t)size + 65536);
    if (st != STRATA_OK) {
        FUZZ_REQUIRE(st == STRATA_ERR_FORMAT && d == NULL && fuzz_mem_live() == 0);
        return 0;
    }
    walk(d, strata__json_root(d), 0);
    strata__json_free(d);
    FUZZ_REQUIRE(fuzz_mem_live() == 0);
    return 0;
}
