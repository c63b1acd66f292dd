/* Heightmaps: the object, decoding by magic bytes (the readers: PGM and
 * PFM in pnm.c, PNG in png.c), file loading and the grid mesh built from
 * a heightmap.
 *
 * Every size a file claims is checked against the limits and against the
 * bytes actually present (for PNG: what they could inflate to) before the
 * pixel array is allocated, so a tiny hostile file cannot make us allocate
 * gigabytes. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "alloc.h"
#include "ctx.h"
#include "heightmap.h"
#include "mesh.h"
#include "readfile.h"

#include <math.h>
#include <string.h>

/* Largest file strata_heightmap_load reads: a colour PFM (12 bytes a pixel)
 * at the pixel limit plus room for a header.  No valid heightmap is bigger. */
#define MAX_FILE_BYTES ((uint64_t)STRATA_HEIGHTMAP_MAX_PIXELS * 12 + 4096)

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
    hm->alloc = *al;
    hm->w = w;
    hm->h = h;
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
    strata__free(&al, hm->data);
    strata__free(&al, hm);
}

uint32_t strata_heightmap_width(const strata_heightmap *hm) { return hm ? hm->w : 0; }
uint32_t strata_heightmap_height(const strata_heightmap *hm) { return hm ? hm->h : 0; }
const float *strata_heightmap_data(const strata_heightmap *hm) { return hm ? hm->data : NULL; }

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */

strata_status strata_heightmap_decode(strata_ctx *ctx, const void *data, size_t len,
                                      strata_heightmap **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !data)
        return STRATA_ERR_INVALID_ARG;
    const uint8_t *d = data;
    /* Input too short to hold its magic is a prefix of a file when its
     * bytes begin one: truncated, like every other prefix. */
    if (len >= 2 && d[0] == 'P' && (d[1] == '5' || d[1] == 'f' || d[1] == 'F'))
        return strata__pnm_read(&ctx->alloc, d, len, out);
    if (len < 2 && (len == 0 || d[0] == 'P'))
        return STRATA_ERR_TRUNCATED;
    return strata__png_read(&ctx->alloc, d, len, out);
}

strata_status strata_heightmap_load(strata_ctx *ctx, const char *path,
                                    strata_heightmap **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !path)
        return STRATA_ERR_INVALID_ARG;
    uint8_t *buf;
    size_t len;
    strata_status st = strata__read_file(&ctx->alloc, path, MAX_FILE_BYTES, &buf, &len);
    if (st == STRATA_OK)
        st = strata_heightmap_decode(ctx, buf, len, out);
    strata__free(&ctx->alloc, buf);
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
    strata_status st = strata_shape_grid(ctx, hm->w - 1, hm->h - 1, cell_size, &m);
    if (st != STRATA_OK)
        return st;
    /* Grid vertex (i, j) is j*w + i, the same index as sample (i, j). */
    const size_t n = (size_t)hm->w * hm->h;
    for (size_t i = 0; i < n; i++) {
        m->y[i] = hm->data[i] * height_scale;
        if (!isfinite(m->y[i])) { /* a large PFM sample times the scale */
            strata_mesh_destroy(m);
            return STRATA_ERR_NOT_FINITE;
        }
    }
    strata__mesh_update_heights(m);
    *out = m;
    return STRATA_OK;
}
