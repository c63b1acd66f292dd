/* Helpers shared by the Check suites. */
#ifndef STRATA_TESTUTIL_H
#define STRATA_TESTUTIL_H

#include <check.h>
#include <stdlib.h>

#include "strata.h"

/* Assert a strata call returned STRATA_OK, printing the status string. */
#define ck_assert_ok(expr)                                                     \
    do {                                                                       \
        strata_status st_ = (expr);                                            \
        ck_assert_msg(st_ == STRATA_OK, "%s -> %s", #expr,                     \
                      strata_status_str(st_));                                 \
    } while (0)

/* Assert a call returned a given status. */
#define ck_assert_status(expr, want)                                           \
    do {                                                                       \
        strata_status st_ = (expr);                                            \
        ck_assert_msg(st_ == (want), "%s -> %s, expected %s", #expr,           \
                      strata_status_str(st_), strata_status_str(want));        \
    } while (0)

/* For inner loops: Check records every passing ck_assert with a write(2),
 * which makes million-element loops crawl; this only calls Check when the
 * condition fails. */
#define require(cond, ...)                                                     \
    do {                                                                       \
        if (!(cond))                                                           \
            ck_abort_msg(__VA_ARGS__);                                         \
    } while (0)

/* Run one suite, return the process exit status. */
static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
