/* The command line's --levels A,B,...: one to STRATA_MAX_LEVELS strictly
 * ascending finite floats, which the slicer must then accept as they are;
 * a refusal is a message naming the option, and changes nothing. */
#include "fuzz.h"
#include "../../apps/values.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_string(data, size);
    cli_floats out = {NULL, 0};
    char *why = NULL;
    const value_status st = value_levels("--levels", s, STRATA_MAX_LEVELS, &out, &why);
    FUZZ_REQUIRE(st == VALUE_OK || st == VALUE_BAD);
    if (st == VALUE_BAD) {
        FUZZ_REQUIRE(why && !strncmp(why, "--levels", 8));
        FUZZ_REQUIRE(out.v == NULL && out.n == 0);
    } else {
        FUZZ_REQUIRE(why == NULL && out.n >= 1 && out.n <= STRATA_MAX_LEVELS);
        for (size_t i = 0; i < out.n; i++)
            FUZZ_REQUIRE(isfinite(out.v[i]) && (i == 0 || out.v[i] > out.v[i - 1]));
        FUZZ_REQUIRE(strata_levels_validate(out.v, (uint32_t)out.n) == STRATA_OK);
    }
    free(why);
    free(out.v);
    free(s);
    return 0;
}
