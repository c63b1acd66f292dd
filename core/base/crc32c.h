/* Which CRC-32C kernel (simd/crc32c.h) a context uses
 * (core/base/crc32c.c). */
#ifndef STRATA_CRC32C_H
#define STRATA_CRC32C_H

#include "base.h"
#include "simd/crc32c.h"

/* Which of them ctx uses: the SSE4.2 kernel when the build has it, the CPU
 * runs it and ctx is not forced onto the scalar kernels (STRATA_SIMD=
 * scalar); else the scalar code.  Returns "sse4.2" or "scalar". */
typedef uint32_t (*strata_crc32c_fn)(uint32_t crc, const void *p, size_t n);
STRATA_HIDDEN strata_crc32c_fn strata__crc32c_for(const strata_ctx *ctx, const char **name);

#endif
