/* CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of
 * a world's tile files (core/world/world_dir.c).  The scalar code is the
 * reference; the SSE4.2 kernel (simd/x86/crc32c_sse42.c, the CRC32
 * instruction) gives the same value and is chosen at run time. */
#ifndef STRATA_SIMD_CRC32C_H
#define STRATA_SIMD_CRC32C_H

#include "base.h"

#include <stddef.h>
#include <stdint.h>

/* The CRC of p[0..n) continued from crc, the CRC of the bytes before
 * (0 for none): crc32c(crc32c(0, a), b) is the CRC of a then b.  The
 * CRC of "123456789" is 0xE3069283. */
STRATA_HIDDEN uint32_t strata__crc32c_c(uint32_t crc, const void *p, size_t n);
#ifdef HAVE_SSE42
STRATA_HIDDEN uint32_t strata__crc32c_sse42(uint32_t crc, const void *p, size_t n);
#endif

#endif
