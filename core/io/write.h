/* Writing files: the format writers and what they share (core/io/write.c).
 * strata_result_write checks its arguments, reports progress 0 and calls
 * the writer of the format: core/io/ply.c, core/io/obj.c (OBJ + MTL),
 * core/io/glb.c, core/io/stl.c.  Each writes through output.h (temporary file, rename) and
 * ends with strata__write_finish.  PNG images (previews) are encoded by
 * core/io/png.c. */
#ifndef STRATA_WRITE_H
#define STRATA_WRITE_H

#include "base.h"
#include "base/output.h"

#include <stddef.h>
#include <stdint.h>

/* The terrace of the water's range (PLY's terrace property, OBJ's group
 * "water"). */
#define STRATA_TERRACE_WATER (-2)
/* The terrace of the shoreline's range (group "shoreline"). */
#define STRATA_TERRACE_SHORE (-3)

/* A terrace's roof or wall index range, or the water's. */
typedef struct strata_range {
    uint64_t first, count;
    int32_t terrace;
    unsigned char wall;
} strata_range;

/* All non-empty ranges of r ordered by position in the index array (the
 * layouts differ between wall modes), *n of them; NULL without memory. */
STRATA_HIDDEN strata_range *strata__sorted_ranges(const strata_result *r,
                                                  const strata_allocator *al, size_t *n);

/* s ends with suffix, ASCII letters in any case. */
STRATA_HIDDEN int strata__has_suffix(const char *s, const char *suffix);

/* The end of every writer, once the n files o[0..n) are written and
 * closed (or failed): the last progress report (1), then each file
 * renamed onto paths[i] in order, all only while nothing failed or was
 * cancelled; then every temporary left is removed.  Returns the status
 * (CANCELLED, else that of the first file that failed) and sets errno:
 * that file's error for IO and NOMEM, else saved_errno. */
STRATA_HIDDEN strata_status strata__write_finish(strata_ctx *ctx, strata_out *o,
                                                 const char *const *paths, size_t n,
                                                 int saved_errno);

/* The writers, called with checked arguments (r->nindices a multiple of
 * 3) after progress 0; extras as for strata__write_tile, or NULL; compress
 * as strata_write_options.compress (checked: meshoptimizer is there);
 * relative: positions stored relative to an origin of the file's own,
 * its terrain node's translation (world tiles, see core/io/glb.c). */
STRATA_HIDDEN strata_status strata__ply_write(strata_ctx *ctx, const strata_result *r,
                                              const char *path, const char *extras);
STRATA_HIDDEN strata_status strata__obj_write(strata_ctx *ctx, const strata_result *r,
                                              const char *path, const strata_palette *pal);
STRATA_HIDDEN strata_status strata__glb_write(strata_ctx *ctx, const strata_result *r,
                                              const char *path, const strata_palette *pal,
                                              const char *extras, int compress,
                                              int relative, const strata_props *props);
STRATA_HIDDEN strata_status strata__stl_write(strata_ctx *ctx, const strata_result *r,
                                              const char *path);

/* strata_result_write of a world's tile (PLY or GLB only, a GLB's
 * positions relative to its terrain node's translation) carrying extras,
 * a JSON object of at most STRATA_TILE_EXTRAS_MAX bytes on one line: a
 * GLB's extras.strata, or a PLY header line "comment strata EXTRAS".
 * extras ends with the placeholders of the file's size and checksum,
 * which strata__tile_seal fills in before the file is renamed into place
 * (core/world/world_dir.c). */
#define STRATA_TILE_EXTRAS_MAX 1024u
STRATA_HIDDEN strata_status strata__write_tile(strata_ctx *ctx, const strata_result *r,
                                               const char *path,
                                               const strata_write_options *opt,
                                               const char *extras);

/* An image of size x size pixels, `channels` (3: RGB, 4: RGBA) bytes a
 * pixel, rows from the top, encoded as an 8-bit PNG into o (core/io/png.c).
 * Defined only in builds with a PNG library (HAVE_SPNG or HAVE_LIBPNG in
 * config.h). */
STRATA_HIDDEN strata_status strata__png_write(strata_out *o, const uint8_t *img, uint32_t size,
                                              int channels);

#endif
