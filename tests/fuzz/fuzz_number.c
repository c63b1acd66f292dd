/* The command line's numbers: plain decimals, integers in [min, max] and
 * reals in [min, max] or (min, max], tried against ranges of the option
 * table (--level, --seed, --threads; --radius, --height-scale,
 * --amplitude), --place's LON,LAT[,H] and --shard's K/N.  An accepted
 * value lies in its range and is what strtod or strtoll reads; a refusal
 * is a message naming the option, and changes nothing. */
#include "fuzz.h"
#include "../../apps/values.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    long long min, max;
} ints[] = {{0, 13}, {0, 4294967295LL}, {0, 4096}};

static const struct {
    double min, max;
    bool above_min;
} reals[] = {{1e-18, 1e9, false}, {-1e9, 1e9, false}, {0, 1e9, true}};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_string(data, size);
    const char *end;
    const bool integer = value_decimal(s, true, &end) && !*end;
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        long long v = -99;
        char *why = NULL;
        const value_status st = value_int("--n", s, ints[i].min, ints[i].max, "range", &v, &why);
        FUZZ_REQUIRE(st == VALUE_OK || st == VALUE_BAD);
        if (st == VALUE_OK) {
            FUZZ_REQUIRE(integer && why == NULL && v >= ints[i].min && v <= ints[i].max);
            FUZZ_REQUIRE(v == strtoll(s, NULL, 10));
        } else {
            FUZZ_REQUIRE(why && !strncmp(why, "--n ", 4) && v == -99);
        }
        free(why);
    }
    const bool real = value_decimal(s, false, &end) && !*end;
    FUZZ_REQUIRE(!integer || real);
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        double v = -99;
        char *why = NULL;
        const value_status st = value_real("--x", s, reals[i].min, reals[i].max,
                                           reals[i].above_min, "range", &v, &why);
        FUZZ_REQUIRE(st == VALUE_OK || st == VALUE_BAD);
        if (st == VALUE_OK) {
            FUZZ_REQUIRE(real && why == NULL && isfinite(v) && v <= reals[i].max);
            FUZZ_REQUIRE(reals[i].above_min ? v > reals[i].min : v >= reals[i].min);
            FUZZ_REQUIRE(v == strtod(s, NULL));
        } else {
            FUZZ_REQUIRE(why && !strncmp(why, "--x ", 4) && v == -99);
        }
        free(why);
    }
    /* --place LON,LAT[,H]: in range when accepted, untouched when not */
    double place[3] = {-999, -999, -999};
    const char *why = value_place(s, place);
    if (!why)
        FUZZ_REQUIRE(place[0] >= -180 && place[0] <= 180 && place[1] >= -90 &&
                     place[1] <= 90 && place[2] >= -1e7 && place[2] <= 1e7 &&
                     strchr(s, ','));
    else
        FUZZ_REQUIRE(place[0] == -999 && place[1] == -999 && place[2] == -999);
    /* --shard K/N: two plain decimals, 1 <= K <= N < 2^64, read as
     * strtoull reads them when accepted, untouched when not */
    unsigned long long k = 7, n = 7;
    const char *shard_why = value_shard(s, &k, &n);
    if (!shard_why) {
        const char *slash = strchr(s, '/');
        FUZZ_REQUIRE(slash && k >= 1 && k <= n && k == strtoull(s, NULL, 10) &&
                     n == strtoull(slash + 1, NULL, 10));
    } else {
        FUZZ_REQUIRE(k == 7 && n == 7 && *shard_why);
    }
    free(s);
    return 0;
}
