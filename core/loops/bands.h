/* Band polygons of edge loops (core/loops/bands.c): the regions that
 * strata_loops_write (core/io/loops_write.c) writes as GeoJSON polygons
 * and SVG layers, in map coordinates.
 *
 * Band k is L[k] <= h < L[k+1] (band 0 reaches down to the lowest point,
 * the top band up to the highest).  Plane k's loops have band k on their
 * right, plane k+1's on their left: plane k's loops reversed and plane
 * k+1's as they are have the band on their left, which is how exterior
 * rings wind counter-clockwise and holes clockwise.  Open polylines are
 * closed along the domain's border, walked counter-clockwise from each
 * one's end to the next one's start (the band lies ahead along the
 * border there).  A band that no open polyline reaches has the whole
 * border or none of it, as the corner height says.  Rings that touch
 * themselves at a vertex lying exactly on a plane (a saddle on the plane:
 * the slicer's loops pass it once per wedge) are split there, so every
 * ring is simple; each hole goes to the smallest exterior around it.  The
 * region at or above plane k (an SVG layer) is plane k's loops reversed,
 * closed the same way. */
#ifndef STRATA_BANDS_H
#define STRATA_BANDS_H

#include "base.h"
#include "loops/loops.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* The loops and the frame their points are mapped by. */
typedef struct {
    const strata_loops *l;
    const strata_loops_write_options *o;
} strata_map_frame;

/* The map coordinates of point p: FLAT X = origin_x + scale x, Y =
 * origin_y - scale z (north is -z); RADIAL longitude, latitude in
 * degrees.  Rounded to float: what the file holds. */
static inline void strata__map_point(const strata_map_frame *fr, uint64_t p, float *X, float *Y)
{
    const strata_loops *l = fr->l;
    if (l->geometry == STRATA_FLAT) {
        *X = (float)(fr->o->origin[0] + fr->o->scale * l->x[p]);
        *Y = (float)(fr->o->origin[1] - fr->o->scale * l->z[p]);
        return;
    }
    const double dx = (double)l->x[p] - l->center[0], dy = (double)l->y[p] - l->center[1],
                 dz = (double)l->z[p] - l->center[2];
    *X = (float)(atan2(-dz, dx) * (180.0 / M_PI));
    *Y = (float)(atan2(dy, sqrt(dx * dx + dz * dz)) * (180.0 / M_PI));
}

/* A ring under construction or finished: map coordinates, and per point
 * the loop vertex it is (UINT32_MAX for the border's corners). */
typedef struct {
    float *X, *Y;
    uint32_t *v;
    size_t n, cap;
    int nomem;
    const strata_allocator *al;
} strata_ring_points;

/* A finished ring: points [first, first + n) of the region's store. */
typedef struct {
    size_t first, n;
    double area; /* signed, counter-clockwise positive */
    float box[4]; /* Xmin, Ymin, Xmax, Ymax */
    uint32_t owner; /* holes: the exterior holding it */
} strata_band_ring;

/* One region (a band, or the ground at or above a plane): its rings, and
 * the work that makes them (bands.c's). */
typedef struct {
    const strata_map_frame *fr;
    const strata_allocator *al;
    strata_ring_points store; /* finished rings' points, back to back */
    strata_ring_points cur;   /* the ring being walked */
    strata_ring_points pend;  /* walked rings waiting for resolve(), back to back */
    uint32_t *pend_first; /* their first points */
    size_t npend, cappend;
    strata_band_ring *rings;
    size_t nrings, cap;
    struct strata_band_piece *open; /* open pieces, to chain along the border */
    size_t nopen, capopen;
    struct strata_border_point *bp; /* corners and contacts, by position */
    size_t nbp, capbp;
    /* vertex stamps for splitting rings at repeated vertices */
    uint64_t *stamp; /* per loop vertex id: (generation << 32) | position */
    uint32_t nstamp, gen;
    int nomem, bad; /* out of memory; polylines that do not close along
                       the domain's rectangle */
    double W, D; /* the domain's sides in map units */
    float X0, Y0, X1, Y1;
} strata_band_region;

/* g (zeroed or not) ready for fr's regions: its domain
 * (fr->o->domain mapped) and the stamps for fr's loop vertices.
 * STRATA_ERR_NOMEM. */
STRATA_HIDDEN strata_status strata__band_region_init(strata_band_region *g,
                                                     const strata_map_frame *fr,
                                                     const strata_allocator *al);
/* Free g's memory (g zeroed or initialised). */
STRATA_HIDDEN void strata__band_region_free(strata_band_region *g);

/* g's rings become band k's (exteriors and their holes, each hole's
 * owner set); corner_band: the band of the domain's first corner. */
STRATA_HIDDEN void strata__band_region_band(strata_band_region *g, uint32_t k,
                                            uint32_t corner_band);
/* g's rings become the region at or above plane k (k >= 1). */
STRATA_HIDDEN void strata__band_region_above(strata_band_region *g, uint32_t k,
                                             uint32_t corner_band);

#endif
