/* What the GDAL users of core/io share (core/io/gdal.c reads rasters,
 * core/io/loops_ogr.c writes vector layers). */
#ifndef STRATA_IO_GDAL_H
#define STRATA_IO_GDAL_H

#include "base.h"

#ifdef HAVE_GDAL
/* GDAL's drivers registered, once per process (any thread may call). */
STRATA_HIDDEN void strata__gdal_register(void);
#endif

struct strata_loops;
/* strata_loops_write for STRATA_LOOPS_OGR (core/io/loops_ogr.c): the
 * arguments checked as it checks them, progress 0 reported. */
STRATA_HIDDEN strata_status strata__loops_write_ogr(strata_ctx *ctx, const struct strata_loops *l,
                                                    const char *path,
                                                    const strata_loops_write_options *opt);

#endif
