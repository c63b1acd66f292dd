/* Heightmaps (core/mesh/heightmap.c): the layout of strata_heightmap, and
 * where an opened PGM or PFM file keeps its samples.  The raster readers
 * are core/io's (io/heightmap_read.h). */
#ifndef STRATA_HEIGHTMAP_H
#define STRATA_HEIGHTMAP_H

#include "base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a PGM or PFM file keeps its samples. */
typedef struct strata__pnm_layout {
    uint32_t w, h;
    bool pfm;        /* PFM (floats, rows bottom to top), else PGM */
    bool little;     /* PFM: little-endian samples */
    uint32_t maxval; /* PGM: the sample that reads as 1 */
    uint32_t stride; /* bytes a sample: PGM 1 or 2, PFM 4 or 12 */
    uint64_t offset; /* the first sample byte */
} strata__pnm_layout;

struct strata_heightmap {
    strata_allocator alloc;
    uint32_t w, h;
    float *data; /* w*h samples, row 0 at the top; NULL when opened */
    /* An opened heightmap (strata_heightmap_open of a PGM or PFM): the
     * samples stay in the file, read by pread (so threads may share it). */
    int fd; /* -1: in memory */
    strata__pnm_layout pnm;
    /* What strata_heightmap_get_info tells (rasters read through GDAL set
     * all of it; PFM only source_units). */
    bool source_units;       /* samples as the file has them, not normalised */
    bool georeferenced, projected;
    double geotransform[6];
    char *crs;               /* WKT, NULL: none */
    uint64_t nodata;         /* NaN samples */
};

/* STRATA_ERR_TOO_LARGE outside the documented limits: a side below 2 or
 * above STRATA_HEIGHTMAP_MAX_SIDE, more than STRATA_HEIGHTMAP_MAX_PIXELS. */
STRATA_HIDDEN strata_status strata__heightmap_check_dims(uint64_t w, uint64_t h);

/* Rows of about 4 MiB of samples, for passes over a whole heightmap. */
STRATA_HIDDEN uint32_t strata__heightmap_strip_rows(const strata_heightmap *hm);

/* Allocate a heightmap of checked dimensions (samples uninitialised). */
STRATA_HIDDEN strata_status strata__heightmap_new(const strata_allocator *al, uint32_t w,
                                                  uint32_t h, strata_heightmap **out);

/* n samples of one file row in layout l (src) into dst.  PGM samples
 * above maxval are clamped to 1; a PFM sample that is not finite is
 * STRATA_ERR_NOT_FINITE. */
STRATA_HIDDEN strata_status strata__pnm_convert_row(const strata__pnm_layout *l,
                                                    const uint8_t *src, size_t n, float *dst);

/* The file row holding image row y (PFM rows run bottom to top). */
static inline uint64_t strata__pnm_file_row(const strata__pnm_layout *l, uint32_t y)
{
    return l->pfm ? (uint64_t)l->h - 1 - y : y;
}

#endif
