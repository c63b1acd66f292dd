/* Edge loops (core/loops.c) and their writers (core/contours.c): the
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
};

#endif
