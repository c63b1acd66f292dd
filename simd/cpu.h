/* CPU feature detection: which instruction sets the processor and the
 * operating system support, whatever this build contains. */
#ifndef STRATA_SIMD_CPU_H
#define STRATA_SIMD_CPU_H

#include "base.h"

/* Mask of STRATA_ISA_BIT()s the CPU can run (simd/x86/cpu_x86.c,
 * simd/arm/cpu_arm.c; 0 on other architectures).  Cheap to call again:
 * the answer is computed without side effects each time. */
STRATA_HIDDEN unsigned strata__cpu_x86_isas(void);
STRATA_HIDDEN unsigned strata__cpu_arm_isas(void);
/* Whether the CPU has SSE4.2 (its CRC32 instruction: core/crc32c.c);
 * 0 on other architectures. */
STRATA_HIDDEN int strata__cpu_x86_sse42(void);

/* Which x86 processor this is, for the dispatch rule: the CPUID vendor
 * string ("AuthenticAMD", "GenuineIntel", ...) and the display family and
 * model (base plus extended fields, as Linux's /proc/cpuinfo shows them
 * in decimal).  Returns 0, with vendor empty, when there is no CPUID
 * (other architectures). */
typedef struct strata_cpu_id {
    char vendor[13];
    unsigned family, model;
} strata_cpu_id;
STRATA_HIDDEN int strata__cpu_x86_id(strata_cpu_id *id);

#endif
