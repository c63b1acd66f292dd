/* CRC-32C, the scalar reference (simd/crc32c.h): slicing by 8 over tables
 * built once. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../crc32c.h"

#include <pthread.h>

#define POLY 0x82F63B78u

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void fill_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
        table[0][i] = c;
    }
    for (int k = 1; k < 8; k++)
        for (uint32_t i = 0; i < 256; i++)
            table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xFF];
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t strata__crc32c_c(uint32_t crc, const void *data, size_t n)
{
    pthread_once(&table_once, fill_table);
    const unsigned char *p = data;
    uint32_t c = ~crc;
    for (; n >= 8; n -= 8, p += 8) {
        const uint32_t lo = le32(p) ^ c, hi = le32(p + 4);
        c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^
            table[4][lo >> 24] ^ table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^
            table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
    }
    while (n--)
        c = table[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
    return ~c;
}
