/* The raster readers (core/io/pnm.c, png.c, gdal.c) that
 * strata_heightmap_decode, _load and _open (core/io/heightmap_read.c)
 * dispatch to by magic bytes. */
#ifndef STRATA_HEIGHTMAP_READ_H
#define STRATA_HEIGHTMAP_READ_H

#include "base.h"
#include "mesh/heightmap.h"

#include <stddef.h>
#include <stdint.h>

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
