/* strata_edits_parse: edit logs ("strata-edits 1", one dab a line).  A
 * failure names a line within the text and a field, and leaves the log
 * as it was; a parsed log has valid dabs, and saved and parsed again it
 * gives the same dabs bit for bit. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void require_same(const strata_edits *a, const strata_edits *b)
{
    FUZZ_REQUIRE(strata_edits_count(a) == strata_edits_count(b));
    for (uint64_t i = 0; i < strata_edits_count(a); i++) {
        strata_edit x, y;
        FUZZ_REQUIRE(strata_edits_get(a, i, &x) == STRATA_OK);
        FUZZ_REQUIRE(strata_edits_get(b, i, &y) == STRATA_OK);
        FUZZ_REQUIRE(!memcmp(&x, &y, sizeof x));
        FUZZ_REQUIRE(strata_edit_validate(&x) == STRATA_OK);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    strata_edits *e, *f;
    FUZZ_REQUIRE(strata_edits_create(&e) == STRATA_OK);
    const char *seed = "strata-edits 1\nraise 1 2 3 4 5\n";
    FUZZ_REQUIRE(strata_edits_parse(e, seed, strlen(seed), NULL) == STRATA_OK);
    strata_edits_error err;
    const strata_status st = strata_edits_parse(e, (const char *)data, size, &err);
    if (st != STRATA_OK) {
        FUZZ_REQUIRE(st == STRATA_ERR_FORMAT || st == STRATA_ERR_TOO_LARGE);
        FUZZ_REQUIRE(strata_edits_count(e) == 1);
        if (st == STRATA_ERR_FORMAT) {
            uint64_t lines = 1;
            for (size_t i = 0; i < size; i++)
                lines += data[i] == '\n';
            FUZZ_REQUIRE(err.line >= 1 && err.line <= lines && err.field[0]);
        }
        strata_edits_destroy(e);
        return 0;
    }
    /* what strata_edits_save writes, parsed again */
    size_t cap = 64 + strata_edits_count(e) * 128, len = 0;
    char *text = malloc(cap);
    FUZZ_REQUIRE(text != NULL);
    len += (size_t)snprintf(text, cap, "strata-edits 1\n");
    for (uint64_t i = 0; i < strata_edits_count(e); i++) {
        strata_edit d;
        strata_edits_get(e, i, &d);
        len += (size_t)snprintf(text + len, cap - len, "%s %.9g %.9g %.9g %.9g %.9g\n",
                                strata_brush_name(d.brush), (double)d.center[0],
                                (double)d.center[1], (double)d.center[2], (double)d.radius,
                                (double)d.strength);
    }
    FUZZ_REQUIRE(strata_edits_create(&f) == STRATA_OK);
    FUZZ_REQUIRE(strata_edits_parse(f, text, len, NULL) == STRATA_OK);
    require_same(e, f);
    free(text);
    strata_edits_destroy(f);
    strata_edits_destroy(e);
    return 0;
}
