/* Binary STL files (write.h): an 80-byte header, the triangle count and
 * 50 bytes a triangle (the facet normal, three corners, a zero attribute
 * word), little-endian.  STL has no units and no shared vertices.  Slicers
 * for 3D printing take +z as up, strata +y: every corner and facet normal
 * gets the quarter turn about x that `--up z` imports undo,
 * (x, y, z) -> (x, -z, y) (strata__from_y_up: a rotation, determinant +1,
 * so nothing is mirrored and the corners keep their counter-clockwise
 * order seen from outside).  A terrain then stands on the build plate:
 * its heights (a solid's base the lowest) are the file's z. */
#define _POSIX_C_SOURCE 200809L
#include "base/ctx.h"
#include "mesh/mesh.h"
#include "base/output.h"
#include "mesh/result.h"
#include "io/write.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* The unit normal of triangle abc (counter-clockwise seen from outside),
 * zero for a degenerate one; float arithmetic in a fixed order. */
static void facet_normal(const strata_result *r, uint32_t a, uint32_t b, uint32_t c, float n[3])
{
    const float ux = r->x[b] - r->x[a], uy = r->y[b] - r->y[a], uz = r->z[b] - r->z[a];
    const float vx = r->x[c] - r->x[a], vy = r->y[c] - r->y[a], vz = r->z[c] - r->z[a];
    const float cx = uy * vz - uz * vy, cy = uz * vx - ux * vz, cz = ux * vy - uy * vx;
    const double len = sqrt((double)cx * cx + (double)cy * cy + (double)cz * cz);
    if (len > 0) {
        n[0] = (float)(cx / len);
        n[1] = (float)(cy / len);
        n[2] = (float)(cz / len);
    } else {
        n[0] = n[1] = n[2] = 0.0f;
    }
}

strata_status strata__stl_write(strata_ctx *ctx, const strata_result *r, const char *path)
{
    const int saved_errno = errno;
    const uint64_t ntri = r->nindices / 3;
    if (ntri > UINT32_MAX)
        return STRATA_ERR_OVERFLOW; /* the count is a 32-bit word */
    strata_out o = STRATA_OUT_INIT(ctx);
    if (strata__out_open(&o, path, ctx) == 0) {
        unsigned char head[84];
        memset(head, 0, 80);
        memcpy(head, "strata binary STL", 17);
        put_u32(head + 80, (uint32_t)ntri);
        strata__out_bytes(&o, head, sizeof head);
        for (uint64_t t = 0; t < ntri; t++) {
            if ((t & 4095) == 0 && strata__out_progress(&o, t, ntri))
                break;
            const uint32_t *v = r->indices + 3 * t;
            unsigned char rec[50], *p = rec;
            float n[3];
            facet_normal(r, v[0], v[1], v[2], n);
            strata__from_y_up(&n[0], &n[1], &n[2], STRATA_AXIS_Z);
            for (int k = 0; k < 3; k++)
                p = put_f32(p, n[k]);
            for (int k = 0; k < 3; k++) {
                float x = r->x[v[k]], y = r->y[v[k]], z = r->z[v[k]];
                strata__from_y_up(&x, &y, &z, STRATA_AXIS_Z);
                p = put_f32(p, x);
                p = put_f32(p, y);
                p = put_f32(p, z);
            }
            put_u16(p, 0);
            strata__out_bytes(&o, rec, sizeof rec);
        }
        strata__out_finish(&o);
    }
    const char *const paths[1] = {path};
    return strata__write_finish(ctx, &o, paths, 1, saved_errno);
}
