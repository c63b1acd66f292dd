/* strata_palette_parse: "#rrggbb" colours and ';' comments.  A parsed
 * palette has 1 to STRATA_PALETTE_MAX_STOPS colours; a failure leaves the
 * output untouched; every terrace colour of a parsed palette lies in
 * [0,1]. */
#include "fuzz.h"

#include <math.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static strata_palette pal; /* 770 bytes: not on the stack each time */
    memset(&pal, 0xa5, sizeof pal);
    const strata_status st = strata_palette_parse((const char *)data, size, &pal);
    if (st != STRATA_OK) {
        for (size_t i = 0; i < sizeof pal; i++)
            FUZZ_REQUIRE(((const unsigned char *)&pal)[i] == 0xa5);
        return 0;
    }
    FUZZ_REQUIRE(pal.nstops >= 1 && pal.nstops <= STRATA_PALETTE_MAX_STOPS);
    static const uint32_t n[] = {1, 2, 7, 300};
    for (size_t j = 0; j < sizeof n / sizeof n[0]; j++)
        for (uint32_t k = 0; k <= n[j]; k++) {
            float rgb[3];
            strata_palette_color(&pal, k, n[j], (int)(k & 1),
                                 k & 2 ? STRATA_COLOR_LINEAR : STRATA_COLOR_SRGB, rgb);
            for (int c = 0; c < 3; c++)
                FUZZ_REQUIRE(rgb[c] >= 0.0f && rgb[c] <= 1.0f);
        }
    return 0;
}
