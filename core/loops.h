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

/* Length and signed area of points [p0, p0 + n) of l (closed: back to
 * the first), as strata_loop documents them. */
STRATA_HIDDEN void strata__loops_measure(strata_loops *l, uint64_t p0, uint32_t n, int closed,
                                         double *len, double *area);
/* Put l in its canonical order (core/loops.c): every builder ends so. */
STRATA_HIDDEN strata_status strata__loops_canonical(strata_loops *l);

#endif
