/* Edit logs (core/edit/edits.c): brush dabs applied to heights as a
 * function of position alone, for worlds (a strata_height_fn) and whole
 * meshes alike. */
#ifndef STRATA_EDITS_H
#define STRATA_EDITS_H

#include "base.h"

#include <stddef.h>

/* What the brushes read besides the positions: the surface's kind, its
 * noise (smooth's low-pass), and the planes (flatten to a terrace). */
typedef struct strata_edit_surface {
    const strata_edits *edits;
    int radial;     /* a planet about the origin */
    float radius;   /* its base radius: the noise is sampled at d * radius */
    int has_noise;
    strata_fbm fbm;
    const strata_curve *curve; /* NULL, or the noise's height curve */
    const float *levels;
    uint32_t nlevels;
} strata_edit_surface;

/* A strata_height_fn: user is a strata_edit_surface. */
STRATA_HIDDEN void strata__edits_height_fn(void *user, const float *x, const float *y,
                                           const float *z, float *h, size_t n);

/* Move the vertices of m whose height differs (bit for bit) from
 * before[i] to their new height m->h[i]: FLAT y = h, RADIAL along their
 * direction from the centre to radius + h. */
STRATA_HIDDEN void strata__mesh_move_to_heights(strata_mesh *m, const float *before);

#endif
