/* AArch64 feature detection: Advanced SIMD (NEON) is part of the base
 * architecture, so every AArch64 CPU has it.  32-bit ARM is not
 * supported by the NEON kernels. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "../cpu.h"

unsigned strata__cpu_arm_isas(void)
{
#if defined(__aarch64__)
    return STRATA_ISA_BIT(STRATA_ISA_NEON);
#else
    return 0;
#endif
}
