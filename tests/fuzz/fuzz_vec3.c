/* The command line's --center X,Y,Z: three finite floats; a refusal is a
 * message naming the option, and changes nothing. */
#include "fuzz.h"
#include "../../apps/values.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_string(data, size);
    float v[3] = {-7.0f, -7.0f, -7.0f};
    char *why = NULL;
    const value_status st = value_vec3("--center", s, v, &why);
    FUZZ_REQUIRE(st == VALUE_OK || st == VALUE_BAD);
    if (st == VALUE_BAD) {
        FUZZ_REQUIRE(why && !strncmp(why, "--center", 8));
        FUZZ_REQUIRE(v[0] == -7.0f && v[1] == -7.0f && v[2] == -7.0f);
    } else {
        FUZZ_REQUIRE(why == NULL && isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]));
    }
    free(why);
    free(s);
    return 0;
}
