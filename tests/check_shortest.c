/* Suite "shortest": the loop writers' float decimals (core/base/shortest.h)
 * against their definition, float by float:
 *   - the text reads back (strtof) as the same float;
 *   - its n significant digits are printf's %.{n-1}e of the float (the
 *     correct rounding to n digits), in the writers' layout;
 *   - no fewer digits read back (the %.{k-1}e for every k < n);
 * over every float of [2048, 4096) (map coordinates of a 4096 wide
 * grid; STRATA_SHORTEST_WIDE=1: all of [0.5, 8192), minutes), every
 * float near a power of ten and at the ends of every binade, and a
 * stride through all finite floats of both signs
 * (STRATA_SHORTEST_STRIDE=1: every float, an hour or more). */
#include "testutil.h"
#include "base/shortest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static float from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* The reference layout of significant digits dig (nd of them, no
 * trailing zero) with the first at 10^e. */
static void layout(char *out, const char *dig, int nd, int e)
{
    char *p = out;
    if (e < -4 || e > 9) {
        *p++ = dig[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, dig + 1, (size_t)nd - 1);
            p += nd - 1;
        }
        sprintf(p, "e%d", e);
        return;
    }
    if (e < 0) {
        p += sprintf(p, "0.");
        for (int i = 0; i < -e - 1; i++)
            *p++ = '0';
        memcpy(p, dig, (size_t)nd);
        p[nd] = '\0';
        return;
    }
    for (int i = 0; i <= e; i++)
        *p++ = i < nd ? dig[i] : '0';
    if (nd > e + 1) {
        *p++ = '.';
        memcpy(p, dig + e + 1, (size_t)(nd - e - 1));
        p += nd - e - 1;
    }
    *p = '\0';
}

/* %.{n-1}e of f as digits (trailing zeros dropped) and exponent. */
static int digits_of(float f, int n, char *dig, int *e)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%.*e", n - 1, (double)f);
    int nd = 0;
    const char *s = buf;
    for (; *s != 'e'; s++)
        if (*s >= '0' && *s <= '9')
            dig[nd++] = *s;
    *e = atoi(s + 1);
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    return nd;
}

/* One float; returns 1 when it is right (require()s otherwise). */
static int check_one(float f)
{
    char got[40];
    *strata__put_float(got, f) = '\0';
    if (!(f != 0.0f))
        return strcmp(got, "0") == 0;
    require(strtof(got, NULL) == f, "%s does not read back as %.9g", got, (double)f);
    const float a = f < 0 ? -f : f;
    const char *g = got + (f < 0);
    int n = 0; /* significant digits written */
    {
        const char *s = g;
        while (*s == '0' || *s == '.')
            s++;
        for (; *s && *s != 'e'; s++)
            n += *s >= '0' && *s <= '9';
        /* trailing zeros of an integer's plain notation are not significant */
        const char *end = strchr(g, 'e') ? strchr(g, 'e') : g + strlen(g);
        if (!strchr(g, '.'))
            for (const char *t = end - 1; t > g && *t == '0'; t--)
                n--;
    }
    require(n >= 1 && n <= 9, "%s: %d digits", got, n);
    char dig[16] = {0}, want[48];
    int e;
    const int nd = digits_of(a, n, dig, &e);
    layout(want, dig, nd, e);
    require(strcmp(g, want) == 0, "%.9g: wrote %s, %%.%de gives %s", (double)f, got, n - 1, want);
    for (int k = 1; k < n; k++) {
        char buf[48];
        snprintf(buf, sizeof buf, "%.*e", k - 1, (double)a);
        require(strtof(buf, NULL) != a, "%.9g: wrote %s but %s reads back too", (double)f, got,
                buf);
    }
    return 1;
}

START_TEST(test_writer_binades)
{
    const int wide = getenv("STRATA_SHORTEST_WIDE") != NULL;
    const uint32_t b0 = wide ? 0x3f000000u : 0x45000000u, b1 = wide ? 0x46000000u : 0x45800000u;
    uint64_t bad = 0;
    for (uint32_t b = b0; b < b1; b++)
        bad += !check_one(from_bits(b));
    ck_assert_uint_eq(bad, 0);
}
END_TEST

START_TEST(test_edges)
{
    /* the 4096 floats either side of every power of ten in range and of
     * every binade's bottom, both signs */
    uint64_t bad = 0;
    for (int k = -45; k <= 38; k++) {
        char s[16];
        snprintf(s, sizeof s, "1e%d", k);
        const float t = strtof(s, NULL);
        uint32_t b;
        memcpy(&b, &t, sizeof b);
        for (uint32_t i = b > 4096 ? b - 4096 : 0; i < b + 4096 && i < 0x7f800000u; i++) {
            bad += !check_one(from_bits(i));
            bad += !check_one(-from_bits(i));
        }
    }
    for (uint32_t E = 0; E < 255; E++)
        for (uint32_t i = 0; i < 64; i++) {
            const uint32_t b = E << 23 | i, c = (E << 23 | 0x7fffffu) - i;
            bad += !check_one(from_bits(b));
            bad += !check_one(from_bits(c));
            bad += !check_one(-from_bits(b));
        }
    ck_assert_uint_eq(bad, 0);
}
END_TEST

START_TEST(test_stride)
{
    const char *env = getenv("STRATA_SHORTEST_STRIDE");
    const uint64_t stride = env && atoll(env) > 0 ? (uint64_t)atoll(env) : 1021;
    uint64_t bad = 0;
    for (uint64_t b = 0; b < 0x7f800000u; b += stride) {
        bad += !check_one(from_bits((uint32_t)b));
        bad += !check_one(-from_bits((uint32_t)(0x7f7fffffu - b)));
    }
    ck_assert_uint_eq(bad, 0);
}
END_TEST

START_TEST(test_specials)
{
    char got[40];
    *strata__put_float(got, 0.0f) = '\0';
    ck_assert_str_eq(got, "0");
    *strata__put_float(got, -0.0f) = '\0';
    ck_assert_str_eq(got, "0");
    *strata__put_float(got, 1e10f) = '\0';
    ck_assert_str_eq(got, "1e10");
    *strata__put_float(got, 123456792.0f) = '\0';
    ck_assert_str_eq(got, "123456790");
    *strata__put_float(got, 0.0001f) = '\0';
    ck_assert_str_eq(got, "0.0001");
    *strata__put_float(got, 1e-5f) = '\0';
    ck_assert_str_eq(got, "1e-5");
    *strata__put_float(got, -2047.5f) = '\0';
    ck_assert_str_eq(got, "-2047.5");
    *strata__put_float(got, 16777216.0f) = '\0';
    ck_assert_str_eq(got, "16777216");
}
END_TEST

static Suite *shortest_suite(void)
{
    Suite *s = suite_create("shortest");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 3600);
    tcase_add_test(tc, test_specials);
    tcase_add_test(tc, test_edges);
    tcase_add_test(tc, test_writer_binades);
    tcase_add_test(tc, test_stride);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return run_suite(shortest_suite()); }
