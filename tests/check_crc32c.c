/* Suite "crc32c": the checksum of world tiles (simd/crc32c.h, core/base/crc32c.h).  The
 * scalar reference against published vectors (RFC 3720, B.4), the SSE4.2
 * kernel against the scalar one on every length and alignment, and the
 * run-time choice.  White-box: linked against the static library. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "testutil.h"

#include "base/crc32c.h"
#include "../simd/cpu.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_vectors)
{
    unsigned char b[48];
    ck_assert_uint_eq(strata__crc32c_c(0, "123456789", 9), 0xE3069283u);
    ck_assert_uint_eq(strata__crc32c_c(0, "", 0), 0);
    memset(b, 0, 32);
    ck_assert_uint_eq(strata__crc32c_c(0, b, 32), 0x8A9136AAu);
    memset(b, 0xFF, 32);
    ck_assert_uint_eq(strata__crc32c_c(0, b, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        b[i] = (unsigned char)i;
    ck_assert_uint_eq(strata__crc32c_c(0, b, 32), 0x46DD794Eu);
    for (int i = 0; i < 32; i++)
        b[i] = (unsigned char)(31 - i);
    ck_assert_uint_eq(strata__crc32c_c(0, b, 32), 0x113FDB5Cu);
    /* continued: the CRC of a then b is that of ab */
    for (int i = 0; i < 48; i++)
        b[i] = (unsigned char)(i * 37 + 11);
    for (size_t k = 0; k <= 48; k++)
        ck_assert_uint_eq(strata__crc32c_c(strata__crc32c_c(0, b, k), b + k, 48 - k),
                          strata__crc32c_c(0, b, 48));
}
END_TEST

START_TEST(test_kernel_matches_scalar)
{
#ifdef HAVE_SSE42
    if (!strata__cpu_x86_sse42())
        return; /* this CPU cannot run it */
    enum { N = 1100 };
    unsigned char *buf = malloc(N + 8);
    ck_assert_ptr_nonnull(buf);
    uint64_t z = 0x9E3779B97F4A7C15u;
    for (int i = 0; i < N + 8; i++) {
        z ^= z << 13, z ^= z >> 7, z ^= z << 17;
        buf[i] = (unsigned char)z;
    }
    for (size_t off = 0; off < 8; off++)
        for (size_t n = 0; n <= N; n += n < 80 ? 1 : 97)
            for (uint32_t seed = 0; seed < 2; seed++) {
                const uint32_t c0 = seed ? 0xDEADBEEFu : 0;
                ck_assert_uint_eq(strata__crc32c_sse42(c0, buf + off, n),
                                  strata__crc32c_c(c0, buf + off, n));
            }
    ck_assert_uint_eq(strata__crc32c_sse42(0, "123456789", 9), 0xE3069283u);
    free(buf);
#endif
}
END_TEST

START_TEST(test_choice)
{
    strata_ctx *ctx = ctx_new(1);
    const char *name = NULL;
    strata_crc32c_fn fn = strata__crc32c_for(ctx, &name);
#ifdef HAVE_SSE42
    /* STRATA_SIMD=scalar (tests/modes.sh) forces the scalar code */
    const bool sse42 = strata_ctx_isa(ctx) != STRATA_ISA_SCALAR && strata__cpu_x86_sse42();
    ck_assert_str_eq(name, sse42 ? "sse4.2" : "scalar");
#else
    ck_assert_str_eq(name, "scalar");
#endif
    ck_assert_uint_eq(fn(0, "123456789", 9), 0xE3069283u);
    ck_assert_int_eq(strata_ctx_set_isa(ctx, STRATA_ISA_SCALAR), STRATA_OK);
    fn = strata__crc32c_for(ctx, &name);
    ck_assert_str_eq(name, "scalar");
    ck_assert_ptr_eq((void *)fn, (void *)strata__crc32c_c);
    strata_ctx_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("crc32c");
    TCase *tc = tcase_create("Core");
    tcase_add_test(tc, test_vectors);
    tcase_add_test(tc, test_kernel_matches_scalar);
    tcase_add_test(tc, test_choice);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
