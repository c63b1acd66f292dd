/* Heightmaps (core/mesh/heightmap.c): the layout of strata_heightmap and the
 * raster readers it dispatches to by magic bytes: PGM and PFM
 * (core/io/pnm.c), PNG (core/io/png.c), anything else through GDAL when built
 * with it (core/io/gdal.c). */
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

/* The readers, with errors as strata_heightmap_decode documents.
 * strata__pnm_read: data starts with "P5", "Pf" or "PF" (len >= 2).
 * strata__png_read: anything else of at least 2 bytes, checked against
 * the PNG signature first. */
STRATA_HIDDEN strata_status strata__pnm_read(const strata_allocator *al, const uint8_t *data,
                                             size_t len, strata_heightmap **out);
/* Parse a PGM or PFM header (data starts with the magic; len >= 2): the
 * layout, with offset where the samples start.  Sizes are not checked. */
STRATA_HIDDEN strata_status strata__pnm_header(const uint8_t *data, size_t len,
                                               strata__pnm_layout *l);
/* Samples (x0 + i, y0 + j), i < w, j < h, of an opened file into
 * out[j * w + i].  buf (w * l->stride bytes) is needed only for samples
 * of more than 4 bytes (colour PFM); NULL otherwise. */
STRATA_HIDDEN strata_status strata__pnm_read_window(const strata__pnm_layout *l, int fd,
                                                    uint32_t x0, uint32_t y0, uint32_t w,
                                                    uint32_t h, uint8_t *buf, float *out);
/* Decode the PNG read from fd (at its start) row by row into an unnamed
 * file of grey samples (PGM layout: $TMPDIR, else /var/tmp) and return a
 * heightmap reading windows of it.  Interlaced images:
 * STRATA_ERR_UNSUPPORTED.  Without libspng STRATA_ERR_TOO_LARGE. */
STRATA_HIDDEN strata_status strata__png_open(const strata_allocator *al, int fd,
                                             strata_heightmap **out);
STRATA_HIDDEN strata_status strata__png_read(const strata_allocator *al, const uint8_t *data,
                                             size_t len, strata_heightmap **out);
/* Any raster GDAL reads (core/io/gdal.c): the file at path (bytes long; its
 * side files, such as world files, are read too) or data in memory.
 * STRATA_ERR_FORMAT when GDAL cannot read it or the build has no GDAL. */
STRATA_HIDDEN strata_status strata__gdal_load(const strata_allocator *al, const char *path,
                                              uint64_t bytes, strata_heightmap **out);
STRATA_HIDDEN strata_status strata__gdal_decode(const strata_allocator *al, const uint8_t *data,
                                                size_t len, strata_heightmap **out);

#endif
