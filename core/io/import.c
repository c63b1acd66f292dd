/* Mesh import: the format-independent part.  The readers (core/io/ply.c,
 * core/io/obj.c) fill a builder (import.h) with positions and
 * fan-triangulated faces; this file picks the reader from the bytes, then
 * welds, drops degenerate triangles, rotates to y-up, fixes the winding
 * and makes the strata_mesh, on the context's threads where the work is
 * per triangle or per vertex. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "base/alloc.h"
#include "base/ctx.h"
#include "io/import.h"
#include "mesh/mesh.h"
#include "base/par.h"
#include "base/readfile.h"

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* What the readers build (see import.h)                               */
/* ------------------------------------------------------------------ */

strata_status strata__builder_reserve(strata_builder *b, size_t nv, size_t nt)
{
    for (int tri = 0; tri < 2; tri++) {
        const size_t need = tri ? nt : nv, cap = tri ? b->tcap : b->vcap;
        if (need <= cap)
            continue;
        if (cap > SIZE_MAX / 2 / sizeof(float) || need > SIZE_MAX / sizeof(float))
            return STRATA_ERR_OVERFLOW;
        size_t c = need > 2 * cap ? need : 2 * cap; /* what is asked, or doubling */
        c = c < 64 ? 64 : c;
        void **arr[3] = {tri ? (void **)&b->a : (void **)&b->x, tri ? (void **)&b->b : (void **)&b->y,
                         tri ? (void **)&b->c : (void **)&b->z};
        void *q[3];
        for (int k = 0; k < 3; k++) {
            /* float and uint32_t: 4 bytes each */
            if (!(q[k] = strata__alloc_array(b->al, c, sizeof(float)))) {
                for (int i = 0; i < k; i++)
                    strata__free(b->al, q[i]);
                return STRATA_ERR_NOMEM;
            }
        }
        for (int k = 0; k < 3; k++) {
            if (*arr[k]) {
                memcpy(q[k], *arr[k], (tri ? b->nt : b->nv) * sizeof(float));
                strata__free(b->al, *arr[k]);
            }
            *arr[k] = q[k];
        }
        if (tri)
            b->tcap = c;
        else
            b->vcap = c;
    }
    return STRATA_OK;
}

static void builder_free(strata_builder *b)
{
    void *arrays[] = {b->x, b->y, b->z, b->a, b->b, b->c};
    for (size_t i = 0; i < 6; i++)
        strata__free(b->al, arrays[i]);
    b->x = b->y = b->z = NULL;
    b->a = b->b = b->c = NULL;
}

/* ------------------------------------------------------------------ */
/* Shared steps                                                        */
/* ------------------------------------------------------------------ */

/* Triangles (and vertices) per block of the parallel steps. */
#define STEP_BLOCK ((size_t)1 << 16)

static size_t blocks_of(size_t n) { return (n + STEP_BLOCK - 1) / STEP_BLOCK; }

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
    float *x = b->x, *y = b->y, *z = b->z;
    uint32_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        const float qx = x[i], qy = y[i], qz = z[i];
        const uint32_t kx = float_key(qx), ky = float_key(qy), kz = float_key(qz);
        uint64_t hsh = (uint64_t)kx * 0x9e3779b97f4a7c15u;
        hsh = (hsh ^ ky) * 0xc2b2ae3d27d4eb4fu;
        hsh = (hsh ^ kz) * 0x165667b19e3779f9u;
        size_t slot = (size_t)(hsh >> 32) & (cap - 1);
        for (;;) {
            const uint32_t id = table[slot];
            if (id == UINT32_MAX) {
                table[slot] = kept;
                x[kept] = qx, y[kept] = qy, z[kept] = qz;
                remap[i] = kept++;
                break;
            }
            if (x[id] == qx && y[id] == qy && z[id] == qz) {
                remap[i] = id;
                break;
            }
            slot = (slot + 1) & (cap - 1);
        }
    }
    for (size_t t = 0; t < b->nt; t++) {
        b->a[t] = remap[b->a[t]];
        b->b[t] = remap[b->b[t]];
        b->c[t] = remap[b->c[t]];
    }
    *merged = n - kept;
    b->nv = kept;
    strata__free(b->al, table);
    strata__free(b->al, remap);
    return STRATA_OK;
}

static inline bool degenerate(const strata_builder *b, size_t t)
{
    return b->a[t] == b->b[t] || b->b[t] == b->c[t] || b->a[t] == b->c[t];
}

static strata_status find_degenerate(void *arg, size_t blk, int thread)
{
    (void)thread;
    const strata_builder *b = arg;
    const size_t to = blk * STEP_BLOCK + STEP_BLOCK < b->nt ? blk * STEP_BLOCK + STEP_BLOCK : b->nt;
    for (size_t t = blk * STEP_BLOCK; t < to; t++)
        if (degenerate(b, t))
            return STRATA_ERR_BAD_MESH; /* not a failure: one to drop */
    return STRATA_OK;
}

/* Looked for in parallel; the rare mesh that has some is compacted in
 * order. */
static void drop_degenerate(strata_builder *b)
{
    if (strata__par_blocks(b->ctx, blocks_of(b->nt), find_degenerate, b, NULL, 0, 0, 0) ==
        STRATA_OK)
        return;
    size_t k = 0;
    for (size_t t = 0; t < b->nt; t++) {
        if (degenerate(b, t)) {
            b->dropped++;
            continue;
        }
        b->a[k] = b->a[t], b->b[k] = b->b[t], b->c[k] = b->c[t];
        k++;
    }
    b->nt = k;
}

/* Twice the signed area seen from above (flat), or six times the signed
 * volume about the centre (radial), of triangle t, in double. */
static inline double signed_term(const strata_builder *b, size_t t, bool radial, const float *c)
{
    const uint32_t i0 = b->a[t], i1 = b->b[t], i2 = b->c[t];
    const float *x = b->x, *y = b->y, *z = b->z;
    if (!radial) {
        const double ux = (double)x[i1] - x[i0], uz = (double)z[i1] - z[i0];
        const double vx = (double)x[i2] - x[i0], vz = (double)z[i2] - z[i0];
        return uz * vx - ux * vz; /* y of (p1 - p0) x (p2 - p0) */
    }
    const double a[3] = {(double)x[i0] - c[0], (double)y[i0] - c[1], (double)z[i0] - c[2]};
    const double d[3] = {(double)x[i1] - c[0], (double)y[i1] - c[1], (double)z[i1] - c[2]};
    const double e[3] = {(double)x[i2] - c[0], (double)y[i2] - c[1], (double)z[i2] - c[2]};
    return a[0] * (d[1] * e[2] - d[2] * e[1]) + a[1] * (d[2] * e[0] - d[0] * e[2]) +
           a[2] * (d[0] * e[1] - d[1] * e[0]);
}

typedef struct {
    const strata_builder *b;
    bool radial;
    const float *center;
    double *sum, *abs; /* per block */
} orient_job;

static strata_status orient_block(void *arg, size_t blk, int thread)
{
    (void)thread;
    const orient_job *j = arg;
    const size_t to = blk * STEP_BLOCK + STEP_BLOCK < j->b->nt ? blk * STEP_BLOCK + STEP_BLOCK
                                                               : j->b->nt;
    double sum = 0.0, abs = 0.0;
    for (size_t t = blk * STEP_BLOCK; t < to; t++) {
        const double v = signed_term(j->b, t, j->radial, j->center);
        sum += v;
        abs += fabs(v);
    }
    j->sum[blk] = sum;
    j->abs[blk] = abs;
    return STRATA_OK;
}

/* Whether the mesh faces down (inwards): the sum of the signed terms in
 * triangle order is negative.  That sum, in that order, is what decides
 * (the same flips as ever, for any thread count): the blocks' sums are
 * added on the threads, and their total T of the n terms, like the sum in
 * order, lies within n u S of the exact sum of the terms (u = 2^-53, S
 * the sum of their magnitudes; a little more for the rounding of S).
 * When |T| is beyond twice that, both have the sign of the exact sum;
 * otherwise (a closed or vertical mesh, about zero) the terms are added
 * again in order. */
static strata_status faces_down(const strata_builder *b, bool radial, const float *center,
                                bool *down)
{
    const size_t nb = blocks_of(b->nt);
    double *part = strata__alloc_array(b->al, 2 * (nb ? nb : 1), sizeof *part);
    if (!part)
        return STRATA_ERR_NOMEM;
    orient_job j = {b, radial, center, part, part + nb};
    strata__par_blocks(b->ctx, nb, orient_block, &j, NULL, 0, 0, 0);
    double total = 0.0, abs = 0.0;
    for (size_t k = 0; k < nb; k++) {
        total += j.sum[k];
        abs += j.abs[k];
    }
    strata__free(b->al, part);
    const double n = (double)b->nt + 2.0;
    if (fabs(total) > 4.0 * n * 0x1p-53 * abs * (1.0 + 0x1p-20)) {
        *down = total < 0.0;
        return STRATA_OK;
    }
    double sum = 0.0;
    for (size_t t = 0; t < b->nt; t++)
        sum += signed_term(b, t, radial, center);
    *down = sum < 0.0;
    return STRATA_OK;
}

typedef struct {
    strata_builder *b;
    strata_axis up;
} vert_job;

static strata_status to_y_up_block(void *arg, size_t blk, int thread)
{
    (void)thread;
    const vert_job *j = arg;
    strata_builder *b = j->b;
    const size_t to = blk * STEP_BLOCK + STEP_BLOCK < b->nv ? blk * STEP_BLOCK + STEP_BLOCK : b->nv;
    for (size_t i = blk * STEP_BLOCK; i < to; i++)
        strata__to_y_up(&b->x[i], &b->y[i], &b->z[i], j->up);
    return STRATA_OK;
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
    b.ctx = ctx;
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
            const float *xyz[3] = {b.x, b.y, b.z};
            for (size_t k = 0; k < 3; k++) {
                float lo = xyz[k][0], hi = xyz[k][0];
                for (size_t i = 1; i < b.nv; i++) {
                    const float v = xyz[k][i];
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                }
                center[k] = (float)(((double)lo + hi) / 2);
            }
        }
        if (radius == 0.0f) { /* mean distance of the vertices */
            double sum = 0.0;
            for (size_t i = 0; i < b.nv; i++) {
                double dx = (double)b.x[i] - center[0];
                double dy = (double)b.y[i] - center[1];
                double dz = (double)b.z[i] - center[2];
                sum += sqrt(dx * dx + dy * dy + dz * dz);
            }
            radius = (float)(sum / (double)b.nv);
            if (!(radius > 0.0f) || !isfinite(radius))
                st = STRATA_ERR_BAD_MESH; /* every vertex at the centre */
        }
    } else if (st == STRATA_OK && o->up != STRATA_AXIS_Y) {
        vert_job j = {.b = &b, .up = o->up};
        strata__par_blocks(ctx, blocks_of(b.nv), to_y_up_block, &j, NULL, 0, 0, 0);
    }
    int flipped = 0;
    bool down = false;
    if (st == STRATA_OK && !o->keep_winding)
        st = faces_down(&b, o->radial, center, &down);
    if (st == STRATA_OK && down) { /* every triangle reversed: b and c trade places */
        uint32_t *tmp = b.b;
        b.b = b.c;
        b.c = tmp;
        flipped = 1;
    }
    strata_mesh *m = NULL;
    if (st == STRATA_OK) {
        st = strata__mesh_adopt(ctx, b.x, b.y, b.z, (uint32_t)b.nv, b.a, b.b, b.c, (uint32_t)b.nt,
                                &m);
        b.x = b.y = b.z = NULL; /* the mesh's now, or freed */
        b.a = b.b = b.c = NULL;
    }
    if (st == STRATA_OK && o->radial) {
        st = strata_mesh_set_geometry(m, STRATA_RADIAL, center, radius);
        if (st != STRATA_OK) {
            strata_mesh_destroy(m);
            m = NULL;
        }
    }
    builder_free(&b);
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
    strata_file_bytes f;
    strata_status st = strata__map_file(&ctx->alloc, path, UINT64_MAX, &f);
    if (st == STRATA_OK)
        st = strata_mesh_decode(ctx, f.data, f.len, opts, report, out);
    strata__release_file(&ctx->alloc, &f);
    return st;
}
