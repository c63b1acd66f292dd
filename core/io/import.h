/* Mesh import (core/io/import.c): what the format readers build and the
 * readers themselves.  A reader (core/io/ply.c, core/io/obj.c) turns its bytes
 * into positions and fan-triangulated faces in a builder, in the mesh's
 * own layout (x[], y[], z[]; a[], b[], c[]); import.c then welds, drops
 * degenerate triangles, rotates to y-up, fixes the winding and hands the
 * arrays to the mesh, whatever the format. */
#ifndef STRATA_IMPORT_H
#define STRATA_IMPORT_H

#include "base.h"
#include "base/ctx.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef struct strata_builder {
    strata_ctx *ctx;    /* threads and allocator */
    const strata_allocator *al;
    float *x, *y, *z;   /* vcap floats each: the mesh's own arrays, handed over */
    size_t nv, vcap;
    uint32_t *a, *b, *c; /* tcap ids each: corners of the triangles */
    size_t nt, tcap;
    uint64_t dropped;   /* faces of < 3 corners, degenerate triangles */
    /* the face being read, fan-triangulated as corners arrive */
    uint32_t first, prev;
    uint64_t corners;
} strata_builder;

/* Room for at least nv vertices and nt triangles in the builder's arrays,
 * keeping what they hold: as much as asked (a reader that knows its
 * counts sizes the arrays once), or twice as much as before (a reader
 * growing them element by element), at least 64. */
STRATA_HIDDEN strata_status strata__builder_reserve(strata_builder *b, size_t nv, size_t nt);

/* Append a vertex: STRATA_ERR_NOT_FINITE for a NaN or infinite
 * coordinate, STRATA_ERR_OVERFLOW past 2^32-1 vertices. */
static inline strata_status strata__push_vertex(strata_builder *b, float x, float y, float z)
{
    if (!isfinite(x) || !isfinite(y) || !isfinite(z))
        return STRATA_ERR_NOT_FINITE;
    if (b->nv >= UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    if (b->nv >= b->vcap) {
        strata_status st = strata__builder_reserve(b, b->nv + 1, 0);
        if (st != STRATA_OK)
            return st;
    }
    b->x[b->nv] = x;
    b->y[b->nv] = y;
    b->z[b->nv] = z;
    b->nv++;
    return STRATA_OK;
}

/* A face: begin, its corners in order, end.  Corner k >= 2 adds the fan
 * triangle (first, prev, v); a face of fewer than 3 corners is dropped. */
static inline void strata__face_begin(strata_builder *b) { b->corners = 0; }

static inline strata_status strata__face_corner(strata_builder *b, uint32_t v)
{
    if (b->corners >= 2) {
        if ((uint64_t)b->nt >= UINT32_MAX / 3)
            return STRATA_ERR_OVERFLOW;
        if (b->nt >= b->tcap) {
            strata_status st = strata__builder_reserve(b, 0, b->nt + 1);
            if (st != STRATA_OK)
                return st;
        }
        b->a[b->nt] = b->first;
        b->b[b->nt] = b->prev;
        b->c[b->nt] = v;
        b->nt++;
    } else if (b->corners == 0) {
        b->first = v;
    }
    b->prev = v;
    b->corners++;
    return STRATA_OK;
}

static inline void strata__face_end(strata_builder *b)
{
    if (b->corners < 3)
        b->dropped++;
}

/* The readers.  PLY (core/io/ply.c): data[start..len) follows the magic
 * line; *fmt says which of the three encodings it was.  OBJ (core/io/obj.c):
 * the whole text.  Errors as strata_mesh_decode documents; the builder
 * keeps what was read (the caller frees it). */
STRATA_HIDDEN strata_status strata__ply_read(strata_builder *b, const uint8_t *data, size_t len,
                                             size_t start, strata_import_format *fmt);
STRATA_HIDDEN strata_status strata__obj_read(strata_builder *b, const uint8_t *data, size_t len);

#endif
