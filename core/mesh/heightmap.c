/* Heightmaps: the object, its samples (in memory, or read from an
 * opened file in PGM or PFM layout) and the grid mesh built from a
 * heightmap.  Files are decoded and opened by core/io/heightmap_read.c. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#define _POSIX_C_SOURCE 200809L /* pread */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/heightmap.h"
#include "mesh/mesh.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

strata_status strata__heightmap_check_dims(uint64_t w, uint64_t h)
{
    /* A side below 2 cannot make a grid cell: outside the documented limits
     * just like a side above STRATA_HEIGHTMAP_MAX_SIDE. */
    if (w < 2 || h < 2 || w > STRATA_HEIGHTMAP_MAX_SIDE ||
        h > STRATA_HEIGHTMAP_MAX_SIDE || w * h > STRATA_HEIGHTMAP_MAX_PIXELS)
        return STRATA_ERR_TOO_LARGE;
    return STRATA_OK;
}

strata_status strata__heightmap_new(const strata_allocator *al, uint32_t w, uint32_t h,
                                    strata_heightmap **out)
{
    strata_heightmap *hm = strata__alloc(al, sizeof *hm);
    if (!hm)
        return STRATA_ERR_NOMEM;
    memset(hm, 0, sizeof *hm);
    hm->alloc = *al;
    hm->w = w;
    hm->h = h;
    hm->fd = -1;
    hm->data = strata__alloc_array(al, (size_t)w * h, sizeof(float));
    if (!hm->data) {
        strata__free(al, hm);
        return STRATA_ERR_NOMEM;
    }
    *out = hm;
    return STRATA_OK;
}

void strata_heightmap_destroy(strata_heightmap *hm)
{
    if (!hm)
        return;
    strata_allocator al = hm->alloc;
    if (hm->fd >= 0)
        close(hm->fd);
    strata__free(&al, hm->crs);
    strata__free(&al, hm->data);
    strata__free(&al, hm);
}

uint32_t strata_heightmap_width(const strata_heightmap *hm) { return hm ? hm->w : 0; }
uint32_t strata_heightmap_height(const strata_heightmap *hm) { return hm ? hm->h : 0; }
const float *strata_heightmap_data(const strata_heightmap *hm) { return hm ? hm->data : NULL; }

/* n samples of one file row into dst.  PGM samples above maxval are
 * invalid; they are clamped rather than a file that is otherwise fine
 * rejected, so the result stays in [0,1].  STRATA_ERR_NOT_FINITE for a
 * PFM sample that is not finite. */
strata_status strata__pnm_convert_row(const strata__pnm_layout *l, const uint8_t *src, size_t n,
                                      float *dst)
{
    if (!l->pfm) {
        const float fmax = (float)l->maxval;
        for (size_t i = 0; i < n; i++) {
            const uint32_t v =
                l->stride == 1 ? src[i] : (uint32_t)src[2 * i] << 8 | src[2 * i + 1];
            dst[i] = v >= l->maxval ? 1.0f : (float)v / fmax;
        }
        return STRATA_OK;
    }
    for (size_t i = 0; i < n; i++, src += l->stride) {
        const uint32_t bits = l->little ? (uint32_t)src[0] | (uint32_t)src[1] << 8 |
                                              (uint32_t)src[2] << 16 | (uint32_t)src[3] << 24
                                        : (uint32_t)src[3] | (uint32_t)src[2] << 8 |
                                              (uint32_t)src[1] << 16 | (uint32_t)src[0] << 24;
        float v;
        memcpy(&v, &bits, sizeof v);
        if (!isfinite(v))
            return STRATA_ERR_NOT_FINITE;
        dst[i] = v;
    }
    return STRATA_OK;
}

/* Samples (x0 + i, y0 + j), i < w, j < h, of an opened file into
 * out[j * w + i].  buf (w * l->stride bytes) is needed only for samples
 * of more than 4 bytes (colour PFM); NULL otherwise. */
static strata_status read_window(const strata__pnm_layout *l, int fd, uint32_t x0, uint32_t y0,
                                 uint32_t w, uint32_t h, uint8_t *buf, float *out)
{
    const size_t n = (size_t)w * l->stride;
    for (uint32_t j = 0; j < h; j++) {
        /* Without buf (samples of at most 4 bytes) the raw row goes to the
         * end of its output row: converting forward, float i overwrites
         * bytes [4i, 4i + 4), all before the sample i + 1 still unread
         * at w (4 - stride) + (i + 1) stride. */
        float *dst = out + (size_t)j * w;
        uint8_t *raw = buf ? buf : (uint8_t *)dst + (size_t)w * (sizeof(float) - l->stride);
        const uint64_t at = l->offset + (strata__pnm_file_row(l, y0 + j) * l->w + x0) * l->stride;
        size_t got = 0;
        while (got < n) {
            const ssize_t r = pread(fd, raw + got, n - got, (off_t)(at + got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                return STRATA_ERR_IO;
            if (r == 0)
                return STRATA_ERR_TRUNCATED; /* the file shrank since it was opened */
            got += (size_t)r;
        }
        const strata_status st = strata__pnm_convert_row(l, raw, w, dst);
        if (st != STRATA_OK)
            return st;
    }
    return STRATA_OK;
}

strata_status strata_heightmap_read(const strata_heightmap *hm, uint32_t x, uint32_t y,
                                    uint32_t w, uint32_t h, float *out)
{
    if (!hm || !out || x >= hm->w || y >= hm->h || w > hm->w - x || h > hm->h - y)
        return STRATA_ERR_INVALID_ARG;
    if (w == 0 || h == 0)
        return STRATA_OK;
    if (hm->data) {
        for (uint32_t j = 0; j < h; j++)
            memcpy(out + (size_t)j * w, hm->data + (size_t)(y + j) * hm->w + x,
                   (size_t)w * sizeof(float));
        return STRATA_OK;
    }
    /* colour PFM rows (12 bytes a sample) need room of their own; the
     * others are read into their output row (read_window) */
    uint8_t *buf = NULL;
    if (hm->pnm.stride > sizeof(float) &&
        !(buf = strata__alloc_array(&hm->alloc, w, hm->pnm.stride)))
        return STRATA_ERR_NOMEM;
    const strata_status st = read_window(&hm->pnm, hm->fd, x, y, w, h, buf, out);
    strata__free(&hm->alloc, buf);
    return st;
}

/* The grid g without its holes: every triangle with a nodata (NaN)
 * corner dropped, the vertices no triangle uses removed, the others kept
 * in order (strata_mesh_create then builds the edge table).  A raster of
 * holes only leaves nothing: STRATA_ERR_BAD_MESH. */
static strata_status without_holes(strata_ctx *ctx, const strata_mesh *g, strata_mesh **out)
{
    const size_t V = g->nverts, T = g->ntris;
    uint32_t *remap = strata__alloc_array(&ctx->alloc, V, sizeof(uint32_t));
    uint32_t *tris = strata__alloc_array(&ctx->alloc, T, 3 * sizeof(uint32_t));
    float *xyz = NULL;
    strata_status st = STRATA_ERR_NOMEM;
    if (!remap || !tris)
        goto done;
    for (size_t i = 0; i < V; i++)
        remap[i] = UINT32_MAX;
    size_t nt = 0;
    for (size_t t = 0; t < T; t++) {
        const uint32_t c[3] = {g->a[t], g->b[t], g->c[t]};
        if (isnan(g->y[c[0]]) || isnan(g->y[c[1]]) || isnan(g->y[c[2]]))
            continue;
        for (int k = 0; k < 3; k++) {
            tris[3 * nt + k] = c[k];
            remap[c[k]] = 0;
        }
        nt++;
    }
    uint32_t nv = 0;
    for (size_t i = 0; i < V; i++)
        if (remap[i] == 0)
            remap[i] = nv++;
    st = STRATA_ERR_BAD_MESH;
    if (nt == 0)
        goto done;
    st = STRATA_ERR_NOMEM;
    if (!(xyz = strata__alloc_array(&ctx->alloc, nv, 3 * sizeof(float))))
        goto done;
    for (size_t i = 0; i < V; i++)
        if (remap[i] != UINT32_MAX) {
            xyz[3 * (size_t)remap[i]] = g->x[i];
            xyz[3 * (size_t)remap[i] + 1] = g->y[i];
            xyz[3 * (size_t)remap[i] + 2] = g->z[i];
        }
    for (size_t k = 0; k < 3 * nt; k++)
        tris[k] = remap[tris[k]];
    st = strata_mesh_create(ctx, xyz, nv, tris, (uint32_t)nt, out);
done:
    strata__free(&ctx->alloc, xyz);
    strata__free(&ctx->alloc, tris);
    strata__free(&ctx->alloc, remap);
    return st;
}

strata_status strata_mesh_from_heightmap(strata_ctx *ctx, const strata_heightmap *hm,
                                         float cell_size, float height_scale,
                                         strata_mesh **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !hm || !(cell_size > 0.0f) || !isfinite(cell_size) ||
        !isfinite(height_scale))
        return STRATA_ERR_INVALID_ARG;
    strata_mesh *m;
    strata_status st = strata__heightmap_check_dims(hm->w, hm->h);
    if (st != STRATA_OK || (st = strata_shape_grid(ctx, hm->w - 1, hm->h - 1, cell_size, &m)) !=
                               STRATA_OK)
        return st;
    /* Grid vertex (i, j) is j*w + i, the same index as sample (i, j). */
    if ((st = strata_heightmap_read(hm, 0, 0, hm->w, hm->h, m->y)) != STRATA_OK) {
        strata_mesh_destroy(m);
        return st;
    }
    const size_t n = (size_t)hm->w * hm->h;
    for (size_t i = 0; i < n; i++) {
        if (isnan(m->y[i]) && hm->nodata)
            continue; /* a hole, removed below */
        m->y[i] *= height_scale;
        if (!isfinite(m->y[i])) { /* a large PFM sample times the scale */
            strata_mesh_destroy(m);
            return STRATA_ERR_NOT_FINITE;
        }
    }
    if (hm->nodata) {
        st = without_holes(ctx, m, out);
        strata_mesh_destroy(m);
        return st;
    }
    strata__mesh_update_heights(m);
    *out = m;
    return STRATA_OK;
}

/* Rows read at a time by strata_heightmap_range (and fingerprints): about
 * 4 MiB of samples, whatever the width. */
uint32_t strata__heightmap_strip_rows(const strata_heightmap *hm)
{
    const uint32_t r = (uint32_t)((1u << 20) / hm->w);
    return r ? (r < hm->h ? r : hm->h) : 1;
}

strata_status strata_heightmap_range(const strata_heightmap *hm, float *lo, float *hi)
{
    if (!hm || !lo || !hi)
        return STRATA_ERR_INVALID_ARG;
    if (hm->data) { /* nodata samples (NaN) never compare less or more */
        const size_t n = (size_t)hm->w * hm->h;
        float a = INFINITY, b = -INFINITY;
        for (size_t i = 0; i < n; i++) {
            a = hm->data[i] < a ? hm->data[i] : a;
            b = hm->data[i] > b ? hm->data[i] : b;
        }
        *lo = a;
        *hi = b;
        return STRATA_OK;
    }
    const uint32_t rows = strata__heightmap_strip_rows(hm);
    float *strip = strata__alloc_array(&hm->alloc, (size_t)rows * hm->w, sizeof(float));
    if (!strip)
        return STRATA_ERR_NOMEM;
    float a = INFINITY, b = -INFINITY;
    strata_status st = STRATA_OK;
    for (uint32_t y = 0; y < hm->h && st == STRATA_OK; y += rows) {
        const uint32_t n = hm->h - y < rows ? hm->h - y : rows;
        if ((st = strata_heightmap_read(hm, 0, y, hm->w, n, strip)) != STRATA_OK)
            break;
        for (size_t i = 0; i < (size_t)n * hm->w; i++) {
            a = strip[i] < a ? strip[i] : a;
            b = strip[i] > b ? strip[i] : b;
        }
    }
    strata__free(&hm->alloc, strip);
    if (st == STRATA_OK) {
        *lo = a;
        *hi = b;
    }
    return st;
}

strata_status strata_heightmap_get_info(const strata_heightmap *hm, strata_heightmap_info *out)
{
    if (!hm || !out)
        return STRATA_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->source_units = hm->source_units;
    out->georeferenced = hm->georeferenced;
    if (hm->georeferenced)
        memcpy(out->geotransform, hm->geotransform, sizeof out->geotransform);
    out->projected = hm->projected;
    out->crs_wkt = hm->crs;
    out->nodata = hm->nodata;
    return STRATA_OK;
}
