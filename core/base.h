/* What every source file of the library shares: the public header and the
 * few macros of the build (alignment, symbol hiding, branch hints).  Each
 * file includes the small internal headers it uses; there is no header
 * that includes them all. */
#ifndef STRATA_BASE_H
#define STRATA_BASE_H

#include "strata.h"

/* Alignment of every array the library allocates (a cache line, and an
 * AVX-512 register). */
#define STRATA_ALIGN 64

/* Internal functions shared between files are hidden from the library's
 * users (the build also uses -fvisibility=hidden). */
#if defined(__GNUC__)
#define STRATA_HIDDEN __attribute__((visibility("hidden")))
#define STRATA_LIKELY(x) __builtin_expect(!!(x), 1)
#define STRATA_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define STRATA_HIDDEN
#define STRATA_LIKELY(x) (x)
#define STRATA_UNLIKELY(x) (x)
#endif

#endif
