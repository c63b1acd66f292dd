/* How the strata program stops on a failure: one line "strata: ..." on
 * stderr (after erasing the progress bar) and an exit status. */
#ifndef STRATA_APPS_FAIL_H
#define STRATA_APPS_FAIL_H

#include "strata.h"

#include <stdbool.h>

enum {
    EXIT_RUNTIME = 1,      /* files, library errors */
    EXIT_USAGE = 2,        /* options: the message names the option, value and range */
    EXIT_INTERRUPTED = 130 /* Ctrl-C; SIGTERM 143, SIGHUP 129 (128 + the signal) */
};

#if defined(__GNUC__)
#define PRINTF_LIKE(i, j) __attribute__((format(printf, i, j)))
#else
#define PRINTF_LIKE(i, j)
#endif

/* Print "strata: " and the message on stderr, exit with code. */
_Noreturn PRINTF_LIKE(2, 3) void die(int code, const char *fmt, ...);
#define usage_error(...) die(EXIT_USAGE, __VA_ARGS__)

/* What a library call worked on, for its message when it fails. */
typedef struct call {
    const char *what; /* the stage ("slice"), or the kind of file read
                         ("heightmap"); NULL for a file written */
    const char *path; /* the file read or written, NULL: none */
    bool write;       /* path is written (else read) */
    const char *why;  /* replaces the library's explanation of a failure
                         other than I/O; NULL: strata_status_str */
} call;

/* The one place a failed library call becomes a message and an exit
 * status.  Nothing for STRATA_OK; else:
 *   cancelled, or any failure after Ctrl-C   "interrupted"                 130
 *   STRATA_ERR_IO on a file                  "cannot read heightmap 'F': <errno text>"
 *                                            "cannot write 'F': <errno text>"  1
 *   another failure on a file                "heightmap 'F': <why>"
 *                                            "cannot write 'F': <why>"         1
 *   a failure of a stage                     "slice: <why>"                    1 */
void check_call(strata_status st, call c);

/* check_call for a stage without a file. */
static inline void check(strata_status st, const char *stage)
{
    check_call(st, (call){.what = stage});
}

/* Exit 130 with "interrupted" after a Ctrl-C. */
void check_interrupt(void);

#endif
