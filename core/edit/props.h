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

/* splitmix64's finaliser: the hash every random number of props comes
 * from. */
static inline uint64_t strata__props_mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The noise's weight in [0, 1] at a point (1 without noise). */
STRATA_HIDDEN double strata__props_weight(strata_geometry g, const strata_props_options *o,
                                          double x, double y, double z);
/* Triangle t's corners p (in double) and its normal n = (p1 - p0) x
 * (p2 - p0), twice its area long. */
STRATA_HIDDEN void strata__props_triangle(const strata_result *r, uint64_t t, double p[3][3],
                                          double n[3]);
/* Whether terrace k's level is in the options' height range, and
 * whether the roof triangle at index position t is within max_slope. */
STRATA_HIDDEN int strata__props_terrace_ok(const strata_result *r, const strata_props_options *o,
                                           uint32_t k);
STRATA_HIDDEN int strata__props_roof_ok(const strata_result *r, const strata_props_options *o,
                                        uint64_t t);

/* core/edit/props_disk.c: the Poisson-disk props (spacing > 0) of
 * terraces first..last into p (its arrays NULL, p->alloc set; filled
 * and p->count set on success); the bases of r's walls appended to
 * *segs (6 floats each, *nsegs of them; *segs grown with al, NULL to
 * start); props within foot of a segment dropped from p, the others
 * kept in their order. */
STRATA_HIDDEN strata_status strata__props_disk(strata_ctx *ctx, const strata_result *r,
                                               const strata_props_options *o, uint32_t first,
                                               uint32_t last, strata_props *p);
/* strata_props_scatter, with nwalls more wall bases (6 floats each: a
 * world tile's neighbours') for the wall foot. */
STRATA_HIDDEN strata_status strata__props_scatter_walls(strata_ctx *ctx, const strata_result *r,
                                                        const strata_props_options *opt,
                                                        const float *walls, uint64_t nwalls,
                                                        strata_props **out);
STRATA_HIDDEN strata_status strata__props_wall_bases(const strata_allocator *al,
                                                     const strata_result *r, float **segs,
                                                     uint64_t *nsegs);
STRATA_HIDDEN strata_status strata__props_foot(const strata_allocator *al, strata_props *p,
                                               double foot, const float *segs, uint64_t nsegs);

#endif
