/* x86-64 feature detection with CPUID and XGETBV.
 *
 * Built without ISA flags: XGETBV is issued through inline assembly so
 * that this file needs no -mxsave.  A CPU flag alone is not enough: the
 * operating system must also save the wider registers on context switch,
 * which XCR0 reports (bits 1-2 for XMM/YMM, 5-7 for the AVX-512 opmask and
 * ZMM state).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../cpu.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>

static uint64_t xgetbv0(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

unsigned strata__cpu_x86_isas(void)
{
    unsigned a, b, c, d, mask = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    const int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (!osxsave || !avx)
        return 0;
    const uint64_t xcr0 = xgetbv0();
    if ((xcr0 & 0x6) != 0x6) /* XMM and YMM state */
        return 0;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    if ((b >> 5) & 1) /* AVX2 */
        mask |= STRATA_ISA_BIT(STRATA_ISA_AVX2);
    if (((b >> 16) & 1) && (mask & STRATA_ISA_BIT(STRATA_ISA_AVX2)) &&
        (xcr0 & 0xE0) == 0xE0) /* AVX512F, opmask + ZMM state */
        mask |= STRATA_ISA_BIT(STRATA_ISA_AVX512);
    return mask;
}

int strata__cpu_x86_sse42(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && ((c >> 20) & 1);
}

int strata__cpu_x86_id(strata_cpu_id *id)
{
    unsigned a, b, c, d;
    memset(id, 0, sizeof *id);
    if (!__get_cpuid(0, &a, &b, &c, &d))
        return 0;
    memcpy(id->vendor, &b, 4);
    memcpy(id->vendor + 4, &d, 4);
    memcpy(id->vendor + 8, &c, 4);
    if (a < 1 || !__get_cpuid(1, &a, &b, &c, &d))
        return 1;
    /* The extended family counts only when the base family is 15, the
     * extended model (its high nibble) only for base families 6 and 15. */
    const unsigned base_family = (a >> 8) & 0xF, base_model = (a >> 4) & 0xF;
    id->family = base_family == 0xF ? base_family + ((a >> 20) & 0xFF) : base_family;
    id->model = base_family == 0x6 || base_family == 0xF ? ((a >> 12) & 0xF0) | base_model
                                                          : base_model;
    return 1;
}
#else
unsigned strata__cpu_x86_isas(void) { return 0; }

int strata__cpu_x86_sse42(void) { return 0; }

int strata__cpu_x86_id(strata_cpu_id *id)
{
    memset(id, 0, sizeof *id);
    return 0;
}
#endif
