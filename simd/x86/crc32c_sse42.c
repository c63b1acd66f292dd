/* CRC-32C with SSE4.2's CRC32 instruction: strata__crc32c_c's value
 * (simd/generic/crc32c_c.c), eight bytes an instruction once p is aligned. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../crc32c.h"

#include <nmmintrin.h>
#include <string.h>

uint32_t strata__crc32c_sse42(uint32_t crc, const void *data, size_t n)
{
    const unsigned char *p = data;
    uint32_t c = ~crc;
    for (; n && ((uintptr_t)p & 7); n--)
        c = _mm_crc32_u8(c, *p++);
    uint64_t c64 = c;
    for (; n >= 8; n -= 8, p += 8) {
        uint64_t v;
        memcpy(&v, p, 8); /* x86 is little-endian: the bytes in order */
        c64 = _mm_crc32_u64(c64, v);
    }
    c = (uint32_t)c64;
    while (n--)
        c = _mm_crc32_u8(c, *p++);
    return ~c;
}
