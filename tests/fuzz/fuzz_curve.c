/* The command line's --curve and --terrace-curve X:Y,...: two or more
 * points in [0,1]^2 with X strictly ascending, which the library's curves
 * must then accept; both kinds stay within [0,1] and interpolate their
 * points exactly.  A refusal is a message naming the option, and changes
 * nothing. */
#include "fuzz.h"
#include "../../apps/values.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_string(data, size);
    cli_curve out = {NULL, NULL, 0};
    char *why = NULL;
    const value_status st = value_curve("--curve", s, &out, &why);
    FUZZ_REQUIRE(st == VALUE_OK || st == VALUE_BAD);
    if (st == VALUE_BAD) {
        FUZZ_REQUIRE(why && !strncmp(why, "--curve", 7));
        FUZZ_REQUIRE(out.x == NULL && out.y == NULL && out.n == 0);
    } else {
        FUZZ_REQUIRE(why == NULL && out.n >= 2);
        for (size_t i = 0; i < out.n; i++) {
            FUZZ_REQUIRE(out.x[i] >= 0.0f && out.x[i] <= 1.0f);
            FUZZ_REQUIRE(out.y[i] >= 0.0f && out.y[i] <= 1.0f);
            FUZZ_REQUIRE(i == 0 || out.x[i] > out.x[i - 1]);
        }
        const strata_curve_kind kinds[2] = {STRATA_CURVE_LINEAR, STRATA_CURVE_MONOTONE};
        for (int k = 0; k < 2; k++) {
            strata_curve *c;
            FUZZ_REQUIRE(strata_curve_create(fuzz_ctx(), kinds[k], out.x, out.y, out.n, &c) ==
                         STRATA_OK);
            for (size_t i = 0; i < out.n; i++)
                FUZZ_REQUIRE(strata_curve_eval(c, out.x[i]) == out.y[i]);
            for (int j = 0; j <= 64; j++) {
                const float y = strata_curve_eval(c, (float)j / 64.0f);
                FUZZ_REQUIRE(y >= 0.0f && y <= 1.0f);
            }
            strata_curve_destroy(c);
        }
    }
    free(why);
    free(out.x);
    free(out.y);
    free(s);
    return 0;
}
