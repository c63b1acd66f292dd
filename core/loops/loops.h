/* Edge loops (core/loops/loops.c) and their writers (core/io/loops_write.c): the
 * layout of strata_loops. */
#ifndef STRATA_LOOPS_H
#define STRATA_LOOPS_H

#include "base.h"

#include <stdint.h>

struct strata_loops {
    strata_allocator alloc;
    uint32_t nplanes;
    float *levels;          /* nplanes */
    uint64_t *plane_first;  /* nplanes + 1 */
    uint64_t nloops;
    strata_loop *loops;     /* nloops */
    uint64_t npoints;
    float *x, *y, *z;       /* npoints each */
    uint32_t *vertex;       /* npoints */
    strata_geometry geometry;
    float center[3];
    float radius;
    /* Loops of a heightmap's grid (strata_loops_from_heightmap): the band
     * of its corner vertex at (x, z) = corner, snapping included (a height
     * within rounding of a plane may be taken as on it), which
     * strata_loops_write's regions take for a domain starting at that
     * corner instead of the band of corner_height. */
    int has_corner;
    float corner[2];
    uint32_t corner_band;
};

/* Length and signed area of points [p0, p0 + n) of l (closed: back to
 * the first), as strata_loop documents them. */
STRATA_HIDDEN void strata__loops_measure(strata_loops *l, uint64_t p0, uint32_t n, int closed,
                                         double *len, double *area);
/* Put l in its canonical order (core/loops/loops.c): every builder ends so. */
STRATA_HIDDEN strata_status strata__loops_canonical(strata_loops *l);

/* Where strata__loops_grid_stream hands its loops, a plane at a time. */
typedef struct strata__plane_sink {
    /* Plane k's loops, canonical and measured, in l (whose other planes
     * are empty; l->levels are the levels), in slot `slot` < nslots:
     * called on several threads at once, never twice at once on one
     * slot.  Anything but STRATA_OK stops the stream with that status. */
    strata_status (*plane)(void *arg, uint32_t slot, const strata_loops *l, uint32_t k);
    /* Slot `slot`'s plane k is done: called on the calling thread, the
     * planes in order.  Anything but STRATA_OK stops the stream. */
    strata_status (*flush)(void *arg, uint32_t slot, uint32_t k);
    void *arg;
    uint32_t nslots; /* planes in flight at once, >= 1 */
} strata__plane_sink;

/* The loops strata_loops_from_heightmap makes (the same bits, polylines
 * and order), handed to sink plane by plane instead of kept: memory for
 * the crossings and the planes in flight only.  Arguments checked as
 * strata_loops_from_heightmap does. */
STRATA_HIDDEN strata_status strata__loops_grid_stream(strata_ctx *ctx, const strata_heightmap *hm,
                                                      float cell_size, float height_scale,
                                                      const float *levels, uint32_t nlevels,
                                                      const strata__plane_sink *sink);

/* strata_loops_from_result with the polylines of plane `only` alone
 * (the other planes there but empty; UINT32_MAX: every plane): the same
 * polylines of that plane. */
STRATA_HIDDEN strata_status strata__loops_from_result_plane(strata_ctx *ctx,
                                                            const strata_result *r,
                                                            uint32_t only, strata_loops **out);

#endif
