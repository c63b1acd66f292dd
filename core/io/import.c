/* Mesh import: the format-independent part.  The readers (core/io/ply.c,
 * core/io/obj.c) fill a builder (import.h) with positions and
 * fan-triangulated faces; this file picks the reader from the bytes, then
 * welds, drops degenerate triangles, rotates to y-up, fixes the winding
 * and makes the strata_mesh. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "base/alloc.h"
#include "base/ctx.h"
#include "io/import.h"
#include "mesh/mesh.h"
#include "base/readfile.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* What the readers build (see import.h)                               */
/* ------------------------------------------------------------------ */

strata_status strata__grow_slow(const strata_allocator *al, void **p, size_t *cap, size_t need,
                                size_t size)
{
    if (need <= *cap)
        return STRATA_OK;
    size_t c = *cap ? *cap : 64;
    while (c < need) {
        if (c > SIZE_MAX / 2 / size)
            return STRATA_ERR_OVERFLOW;
        c *= 2;
    }
    void *q = strata__alloc_array(al, c, size);
    if (!q)
        return STRATA_ERR_NOMEM;
    if (*p) {
        memcpy(q, *p, *cap * size);
        strata__free(al, *p);
    }
    *p = q;
    *cap = c;
    return STRATA_OK;
}

/* ------------------------------------------------------------------ */
/* Shared steps                                                        */
/* ------------------------------------------------------------------ */

static uint32_t float_key(float f)
{
    if (f == 0.0f)
        f = 0.0f; /* -0 and +0 are the same position */
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Merge vertices of equal position: the first occurrence keeps its place
 * (ids are renumbered in order of first occurrence), later ones are
 * remapped to it.  Open addressing on a power-of-two table. */
static strata_status weld(strata_builder *b, uint64_t *merged)
{
    const size_t n = b->nv;
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    uint32_t *table = strata__alloc_array(b->al, cap, sizeof *table);
    uint32_t *remap = strata__alloc_array(b->al, n ? n : 1, sizeof *remap);
    if (!table || !remap) {
        strata__free(b->al, table);
        strata__free(b->al, remap);
        return STRATA_ERR_NOMEM;
    }
    memset(table, 0xff, cap * sizeof *table);
    uint32_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        const float *q = b->xyz + 3 * i;
        const uint32_t kx = float_key(q[0]), ky = float_key(q[1]), kz = float_key(q[2]);
        uint64_t hsh = (uint64_t)kx * 0x9e3779b97f4a7c15u;
        hsh = (hsh ^ ky) * 0xc2b2ae3d27d4eb4fu;
        hsh = (hsh ^ kz) * 0x165667b19e3779f9u;
        size_t slot = (size_t)(hsh >> 32) & (cap - 1);
        for (;;) {
            const uint32_t id = table[slot];
            if (id == UINT32_MAX) {
                table[slot] = kept;
                memmove(b->xyz + 3 * (size_t)kept, q, 3 * sizeof(float));
                remap[i] = kept++;
                break;
            }
            const float *r = b->xyz + 3 * (size_t)id;
            if (r[0] == q[0] && r[1] == q[1] && r[2] == q[2]) {
                remap[i] = id;
                break;
            }
            slot = (slot + 1) & (cap - 1);
        }
    }
    for (size_t i = 0; i < 3 * b->nt; i++)
        b->tri[i] = remap[b->tri[i]];
    *merged = n - kept;
    b->nv = kept;
    strata__free(b->al, table);
    strata__free(b->al, remap);
    return STRATA_OK;
}

static void drop_degenerate(strata_builder *b)
{
    size_t k = 0;
    for (size_t t = 0; t < b->nt; t++) {
        const uint32_t *v = b->tri + 3 * t;
        if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2]) {
            b->dropped++;
            continue;
        }
        memmove(b->tri + 3 * k, v, 3 * sizeof *v);
        k++;
    }
    b->nt = k;
}

/* Twice the signed area seen from above, summed (flat), or six times the
 * signed volume about the centre (radial); both in double, in triangle
 * order.  Negative: the mesh faces down / inwards. */
static double orientation(const strata_builder *b, bool radial, const float *c)
{
    double sum = 0.0;
    for (size_t t = 0; t < b->nt; t++) {
        const float *p0 = b->xyz + 3 * (size_t)b->tri[3 * t];
        const float *p1 = b->xyz + 3 * (size_t)b->tri[3 * t + 1];
        const float *p2 = b->xyz + 3 * (size_t)b->tri[3 * t + 2];
        if (!radial) {
            const double ux = (double)p1[0] - p0[0], uz = (double)p1[2] - p0[2];
            const double vx = (double)p2[0] - p0[0], vz = (double)p2[2] - p0[2];
            sum += uz * vx - ux * vz; /* y of (p1 - p0) x (p2 - p0) */
            continue;
        }
        double a[3], d[3], e[3];
        for (int k = 0; k < 3; k++) {
            a[k] = (double)p0[k] - c[k];
            d[k] = (double)p1[k] - c[k];
            e[k] = (double)p2[k] - c[k];
        }
        sum += a[0] * (d[1] * e[2] - d[2] * e[1]) + a[1] * (d[2] * e[0] - d[0] * e[2]) +
               a[2] * (d[0] * e[1] - d[1] * e[0]);
    }
    return sum;
}

void strata_import_defaults(strata_import_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->up = STRATA_AXIS_Y;
    o->weld = 0;
    o->keep_winding = 0;
    o->radial = 0;
    o->has_center = 0;
    o->radius = 0.0f;
}

strata_status strata_mesh_decode(strata_ctx *ctx, const void *data, size_t len,
                                 const strata_import_options *opts,
                                 strata_import_report *report, strata_mesh **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || (!data && len))
        return STRATA_ERR_INVALID_ARG;
    strata_import_options def;
    strata_import_defaults(&def);
    const strata_import_options *o = opts ? opts : &def;
    if (o->up != STRATA_AXIS_X && o->up != STRATA_AXIS_Y && o->up != STRATA_AXIS_Z)
        return STRATA_ERR_INVALID_ARG;
    if (o->radial && ((o->radius != 0.0f && !(o->radius > 0.0f)) || !isfinite(o->radius)))
        return STRATA_ERR_INVALID_ARG;
    if (o->radial && o->has_center &&
        !(isfinite(o->center[0]) && isfinite(o->center[1]) && isfinite(o->center[2])))
        return STRATA_ERR_NOT_FINITE;

    const uint8_t *d = data ? data : (const uint8_t *)"";
    strata_builder b;
    memset(&b, 0, sizeof b);
    b.al = &ctx->alloc;
    strata_import_format fmt = STRATA_IMPORT_OBJ;
    strata_status st;
    if (len >= 4 && !memcmp(d, "ply\n", 4))
        st = strata__ply_read(&b, d, len, 4, &fmt);
    else if (len >= 5 && !memcmp(d, "ply\r\n", 5))
        st = strata__ply_read(&b, d, len, 5, &fmt);
    else if (len < 4 && !memcmp(d, "ply\n", len))
        st = STRATA_ERR_TRUNCATED; /* a PLY magic cut short, or nothing */
    else
        st = strata__obj_read(&b, d, len);

    uint64_t merged = 0;
    if (st == STRATA_OK && o->weld)
        st = weld(&b, &merged);
    if (st == STRATA_OK) {
        drop_degenerate(&b);
        if (b.nt == 0)
            st = STRATA_ERR_BAD_MESH; /* nothing to terrace */
    }
    float center[3] = {0, 0, 0}, radius = o->radius;
    if (st == STRATA_OK && o->radial) {
        if (o->has_center) {
            memcpy(center, o->center, sizeof center);
        } else { /* bounding-box centre */
            for (size_t k = 0; k < 3; k++) {
                float lo = b.xyz[k], hi = b.xyz[k];
                for (size_t i = 1; i < b.nv; i++) {
                    const float v = b.xyz[3 * i + k];
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                }
                center[k] = (float)(((double)lo + hi) / 2);
            }
        }
        if (radius == 0.0f) { /* mean distance of the vertices */
            double sum = 0.0;
            for (size_t i = 0; i < b.nv; i++) {
                double dx = (double)b.xyz[3 * i] - center[0];
                double dy = (double)b.xyz[3 * i + 1] - center[1];
                double dz = (double)b.xyz[3 * i + 2] - center[2];
                sum += sqrt(dx * dx + dy * dy + dz * dz);
            }
            radius = (float)(sum / (double)b.nv);
            if (!(radius > 0.0f) || !isfinite(radius))
                st = STRATA_ERR_BAD_MESH; /* every vertex at the centre */
        }
    } else if (st == STRATA_OK && o->up != STRATA_AXIS_Y) {
        for (size_t i = 0; i < b.nv; i++)
            strata__to_y_up(b.xyz + 3 * i, b.xyz + 3 * i + 1, b.xyz + 3 * i + 2, o->up);
    }
    int flipped = 0;
    if (st == STRATA_OK && !o->keep_winding && orientation(&b, o->radial, center) < 0.0) {
        for (size_t t = 0; t < b.nt; t++) {
            const uint32_t tmp = b.tri[3 * t + 1];
            b.tri[3 * t + 1] = b.tri[3 * t + 2];
            b.tri[3 * t + 2] = tmp;
        }
        flipped = 1;
    }
    strata_mesh *m = NULL;
    if (st == STRATA_OK)
        st = strata_mesh_create(ctx, b.xyz, (uint32_t)b.nv, b.tri, (uint32_t)b.nt, &m);
    if (st == STRATA_OK && o->radial) {
        st = strata_mesh_set_geometry(m, STRATA_RADIAL, center, radius);
        if (st != STRATA_OK) {
            strata_mesh_destroy(m);
            m = NULL;
        }
    }
    strata__free(b.al, b.xyz);
    strata__free(b.al, b.tri);
    if (st != STRATA_OK)
        return st;
    if (report) {
        report->format = fmt;
        report->dropped = b.dropped > UINT32_MAX ? UINT32_MAX : (uint32_t)b.dropped;
        report->welded = (uint32_t)merged;
        report->flipped = flipped;
    }
    *out = m;
    return STRATA_OK;
}

strata_status strata_mesh_load(strata_ctx *ctx, const char *path,
                               const strata_import_options *opts,
                               strata_import_report *report, strata_mesh **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !path)
        return STRATA_ERR_INVALID_ARG;
    uint8_t *buf;
    size_t len;
    strata_status st = strata__read_file(&ctx->alloc, path, UINT64_MAX, &buf, &len);
    if (st == STRATA_OK)
        st = strata_mesh_decode(ctx, buf, len, opts, report, out);
    strata__free(&ctx->alloc, buf);
    return st;
}
