/* Props (core/edit/props.c): the layout of strata_props, and what the glTF
 * writer needs of them: per kind, the instances' glTF transforms, and the
 * small built-in meshes they are drawn with. */
#ifndef STRATA_PROPS_H
#define STRATA_PROPS_H

#include "base.h"

#include <stdint.h>

struct strata_props {
    strata_allocator alloc;
    uint64_t count;
    float *x, *y, *z, *ux, *uy, *uz, *yaw, *scale;
    uint8_t *kind;
    uint32_t *terrace;
};

#define STRATA_PROP_KINDS 2

/* The instances of one kind, in their order, as glTF node transforms:
 * out[0 .. 3n) translations, out[3n .. 7n) rotations (unit quaternions
 * x, y, z, w: the mesh's +y turned onto up after the yaw about +y),
 * out[7n .. 10n) scales (uniform).  out: room for 10 x the count of the
 * kind (strata__props_count). */
STRATA_HIDDEN uint64_t strata__props_count(const strata_props *p, int kind);
STRATA_HIDDEN void strata__props_transforms(const strata_props *p, int kind, float *out);

/* The built-in meshes: one vertex array for all (positions, xyz), and a
 * u16 index run per part (a tree: foliage, trunk; a rock: stone), each
 * triangle counter-clockwise seen from outside; 1 unit high, standing on
 * y = 0 around the y axis. */
typedef struct strata_prop_part {
    int kind;
    const char *name;  /* the material's name */
    float rgb[3];      /* linear base colour */
    const uint16_t *indices;
    uint32_t nindices;
} strata_prop_part;

STRATA_HIDDEN const float *strata__prop_vertices(uint32_t *n);
STRATA_HIDDEN const strata_prop_part *strata__prop_parts(uint32_t *n);

#endif
