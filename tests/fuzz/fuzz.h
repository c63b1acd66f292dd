/* What the fuzz harnesses share.  Each tests/fuzz/fuzz_NAME.c defines
 * LLVMFuzzerTestOneInput for one parser; it is a libFuzzer program with
 * --enable-fuzzing (tests/fuzz/run.sh) and otherwise links replay.c,
 * which runs it on the files of tests/fuzz/corpus/NAME/ (make check).
 *
 * A harness checks more than "no crash": what a parser accepts must obey
 * its documented limits, a failure must leave no output, and the memory a
 * decoder asks for must stay within what its input can describe.  A broken
 * expectation aborts, which libFuzzer and the replay both report. */
#ifndef STRATA_TESTS_FUZZ_H
#define STRATA_TESTS_FUZZ_H

#include "strata.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Abort with the failed expectation and where it is. */
#define FUZZ_REQUIRE(cond) ((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond))
_Noreturn void fuzz_fail(const char *file, int line, const char *what);

/* A context made on first use and kept (one thread: the harnesses measure
 * the parsers, not the thread pool).  Its allocator counts. */
strata_ctx *fuzz_ctx(void);

/* The counting allocator's figures since the last fuzz_mem_reset():
 * bytes live now beyond those live then (the context's own stay), and the
 * peak of that plus the request being made, counting requests that
 * failed (asking for 48 GB is the bug even when malloc refuses it). */
void fuzz_mem_reset(void);
uint64_t fuzz_mem_live(void);
uint64_t fuzz_mem_peak(void);

/* The input as a NUL-terminated string (up to its first NUL, as a
 * command-line argument would be); free() it. */
char *fuzz_string(const uint8_t *data, size_t size);

#endif
