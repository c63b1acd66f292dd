/* strata_heightmap_decode: binary PGM, PFM, PNG, and with GDAL any
 * raster it reads.  A decoded heightmap lies within the documented limits
 * with finite samples (PGM and PNG in [0,1]; GDAL rasters in their own
 * units, NaN exactly where the info counts nodata); a failure leaves no
 * heightmap and no memory behind; the memory asked for stays within what
 * the input can describe: 4 bytes a sample, and PGM and PFM hold at least
 * a byte a sample, while PNG data (and GDAL rasters, by the same rule)
 * inflates at most 1032:1 and a 1-bit sample is an eighth of a byte. */
#include "fuzz.h"

#include <math.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    strata_ctx *ctx = fuzz_ctx();
    fuzz_mem_reset();
    strata_heightmap *hm = (strata_heightmap *)&hm; /* must be cleared */
    const strata_status st = strata_heightmap_decode(ctx, data, size, &hm);
    const bool pnm = size >= 2 && data[0] == 'P';
    const uint64_t bound = pnm ? 4 * (uint64_t)size + 4096
                               : 4 * 8 * (1032 * (uint64_t)size + 1024) + ((uint64_t)1 << 20);
    FUZZ_REQUIRE(fuzz_mem_peak() <= bound);
    if (st != STRATA_OK) {
        FUZZ_REQUIRE(hm == NULL);
        FUZZ_REQUIRE(fuzz_mem_live() == 0);
        return 0;
    }
    const uint32_t w = strata_heightmap_width(hm), h = strata_heightmap_height(hm);
    FUZZ_REQUIRE(w >= 2 && h >= 2 && w <= STRATA_HEIGHTMAP_MAX_SIDE &&
                 h <= STRATA_HEIGHTMAP_MAX_SIDE &&
                 (uint64_t)w * h <= STRATA_HEIGHTMAP_MAX_PIXELS);
    const float *v = strata_heightmap_data(hm);
    strata_heightmap_info info;
    FUZZ_REQUIRE(strata_heightmap_get_info(hm, &info) == STRATA_OK);
    const bool unit = !info.source_units;
    FUZZ_REQUIRE(unit == !(pnm && (data[1] == 'f' || data[1] == 'F')) || strata_gdal_support());
    uint64_t holes = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        holes += isnan(v[i]);
        FUZZ_REQUIRE(isfinite(v[i]) || isnan(v[i]));
        FUZZ_REQUIRE(!unit || (v[i] >= 0.0f && v[i] <= 1.0f));
    }
    FUZZ_REQUIRE(holes == info.nodata && holes < (uint64_t)w * h);
    strata_heightmap_destroy(hm);
    FUZZ_REQUIRE(fuzz_mem_live() == 0);
    return 0;
}
