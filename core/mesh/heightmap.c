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

#define _POSIX_C_SOURCE 200809L /* fstat */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/heightmap.h"
#include "mesh/mesh.h"
#include "base/readfile.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */

/* data begins as a PNG file does (all of it, when shorter than the
 * signature: a prefix of a PNG is a truncated PNG). */
static bool png_magic(const uint8_t *d, size_t len)
{
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    return !memcmp(d, sig, len < 8 ? len : 8);
}

/* Magic bytes of the formats strata reads itself: Netpbm and PFM (P1 to
 * P7, Pf, PF: those but P5, Pf and PF are refused as malformed, never
 * handed to GDAL, which reads colour P6 files) and PNG. */
static bool own_magic(const uint8_t *d, size_t len)
{
    return len < 2 ||
           (d[0] == 'P' && ((d[1] >= '1' && d[1] <= '7') || d[1] == 'f' || d[1] == 'F')) ||
           png_magic(d, len);
}

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
    if (len >= 2 && d[0] == 'P' && (d[1] == '5' || d[1] == 'f' || d[1] == 'F')) {
        const strata_status st = strata__pnm_read(&ctx->alloc, d, len, out);
        if (st == STRATA_OK)
            (*out)->source_units = d[1] != '5'; /* PFM: heights as they are */
        return st;
    }
    if (len < 2 && (len == 0 || d[0] == 'P'))
        return STRATA_ERR_TRUNCATED;
    if (!own_magic(d, len) && strata_gdal_support())
        return strata__gdal_decode(&ctx->alloc, d, len, out);
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
    if (st == STRATA_OK && !own_magic(buf, len) && strata_gdal_support()) {
        /* GDAL reads the file itself, with its side files (a world file,
         * an .aux.xml with the nodata value, an ENVI header) */
        strata__free(&ctx->alloc, buf);
        return strata__gdal_load(&ctx->alloc, path, len, out);
    }
    if (st == STRATA_OK)
        st = strata_heightmap_decode(ctx, buf, len, out);
    strata__free(&ctx->alloc, buf);
    return st;
}

/* The header of an opened file: at most this many bytes (comments
 * included), the rest is refused as malformed. */
#define OPEN_HEADER_BYTES 65536

/* Open a PGM or PFM file whose magic is in head (got bytes of it, the
 * file size size) as a heightmap read in windows. */
static strata_status open_pnm(const strata_allocator *al, int fd, const uint8_t *head,
                              size_t got, uint64_t size, strata_heightmap **out)
{
    strata__pnm_layout l;
    strata_status st = strata__pnm_header(head, got, &l);
    if (st == STRATA_ERR_TRUNCATED && got < size)
        return STRATA_ERR_FORMAT; /* a header longer than any sane one */
    if (st != STRATA_OK)
        return st;
    if (l.w < 2 || l.h < 2 || l.w > STRATA_HEIGHTMAP_OPEN_MAX_SIDE ||
        l.h > STRATA_HEIGHTMAP_OPEN_MAX_SIDE)
        return STRATA_ERR_TOO_LARGE;
    if ((size - l.offset) / l.stride / l.w < l.h)
        return STRATA_ERR_TRUNCATED;
    strata_heightmap *hm = strata__alloc(al, sizeof *hm);
    if (!hm)
        return STRATA_ERR_NOMEM;
    memset(hm, 0, sizeof *hm);
    hm->alloc = *al;
    hm->w = l.w;
    hm->h = l.h;
    hm->fd = fd;
    hm->pnm = l;
    hm->source_units = l.pfm;
    *out = hm;
    return STRATA_OK;
}

strata_status strata_heightmap_open(strata_ctx *ctx, const char *path, strata_heightmap **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !path)
        return STRATA_ERR_INVALID_ARG;
    struct stat sb;
    const int fd = strata__open_regular(path, &sb);
    if (fd < 0)
        return STRATA_ERR_IO;
    uint8_t head[OPEN_HEADER_BYTES];
    size_t got;
    strata_status st = STRATA_OK;
    if (strata__read_fd(fd, head, sizeof head, &got) != 0) {
        st = STRATA_ERR_IO;
    } else if (got >= 2 && head[0] == 'P' && (head[1] == '5' || head[1] == 'f' || head[1] == 'F')) {
        st = open_pnm(&ctx->alloc, fd, head, got, (uint64_t)sb.st_size, out);
        if (st == STRATA_OK)
            return STRATA_OK; /* the heightmap keeps fd */
    } else if (got >= 24 && !memcmp(head + 12, "IHDR", 4) &&
               strata__heightmap_check_dims((uint64_t)head[16] << 24 | head[17] << 16 |
                                                head[18] << 8 | head[19],
                                            (uint64_t)head[20] << 24 | head[21] << 16 |
                                                head[22] << 8 | head[23]) == STRATA_ERR_TOO_LARGE &&
               !memcmp(head, "\x89PNG\r\n\x1a\n", 8)) {
        /* a PNG too big to decode whole: decoded once, row by row, to a
         * temporary file read in windows */
        if (lseek(fd, 0, SEEK_SET) != 0)
            st = STRATA_ERR_IO;
        else
            st = strata__png_open(&ctx->alloc, fd, out);
    } else {
        /* anything else (a PNG that fits) is decoded whole, as
         * strata_heightmap_load */
        close(fd);
        return strata_heightmap_load(ctx, path, out);
    }
    const int err = errno;
    close(fd);
    errno = err;
    return st;
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
     * others are read into their output row (core/io/pnm.c) */
    uint8_t *buf = NULL;
    if (hm->pnm.stride > sizeof(float) &&
        !(buf = strata__alloc_array(&hm->alloc, w, hm->pnm.stride)))
        return STRATA_ERR_NOMEM;
    const strata_status st = strata__pnm_read_window(&hm->pnm, hm->fd, x, y, w, h, buf, out);
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
