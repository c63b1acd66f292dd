/* The run-time choice of the CRC-32C kernel (core/base/crc32c.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "base/crc32c.h"
#include "simd/cpu.h"

strata_crc32c_fn strata__crc32c_for(const strata_ctx *ctx, const char **name)
{
#ifdef HAVE_SSE42
    if ((!ctx || strata_ctx_isa(ctx) != STRATA_ISA_SCALAR) && strata__cpu_x86_sse42()) {
        if (name)
            *name = "sse4.2";
        return strata__crc32c_sse42;
    }
#else
    (void)ctx;
#endif
    if (name)
        *name = "scalar";
    return strata__crc32c_c;
}
