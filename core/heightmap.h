/* Heightmaps (core/heightmap.c): the layout of strata_heightmap and the
 * raster readers it dispatches to by magic bytes: PGM and PFM
 * (core/pnm.c), PNG (core/png.c). */
#ifndef STRATA_HEIGHTMAP_H
#define STRATA_HEIGHTMAP_H

#include "base.h"

#include <stddef.h>
#include <stdint.h>

struct strata_heightmap {
    strata_allocator alloc;
    uint32_t w, h;
    float *data; /* w*h samples, row 0 at the top */
};

/* STRATA_ERR_TOO_LARGE outside the documented limits: a side below 2 or
 * above STRATA_HEIGHTMAP_MAX_SIDE, more than STRATA_HEIGHTMAP_MAX_PIXELS. */
STRATA_HIDDEN strata_status strata__heightmap_check_dims(uint64_t w, uint64_t h);

/* Allocate a heightmap of checked dimensions (samples uninitialised). */
STRATA_HIDDEN strata_status strata__heightmap_new(const strata_allocator *al, uint32_t w,
                                                  uint32_t h, strata_heightmap **out);

/* The readers, with errors as strata_heightmap_decode documents.
 * strata__pnm_read: data starts with "P5", "Pf" or "PF" (len >= 2).
 * strata__png_read: anything else of at least 2 bytes, checked against
 * the PNG signature first. */
STRATA_HIDDEN strata_status strata__pnm_read(const strata_allocator *al, const uint8_t *data,
                                             size_t len, strata_heightmap **out);
STRATA_HIDDEN strata_status strata__png_read(const strata_allocator *al, const uint8_t *data,
                                             size_t len, strata_heightmap **out);

#endif
