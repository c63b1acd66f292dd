/* Heightmap files: decoding by magic bytes (the readers: PGM and PFM in
 * pnm.c, PNG in png.c, anything else through GDAL in gdal.c), file loading
 * and opening a file to read in windows.
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
#include "base/readfile.h"
#include "io/heightmap_read.h"
#include "mesh/heightmap.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Largest file strata_heightmap_load reads: a colour PFM (12 bytes a pixel)
 * at the pixel limit plus room for a header.  No valid heightmap is bigger. */
#define MAX_FILE_BYTES ((uint64_t)STRATA_HEIGHTMAP_MAX_PIXELS * 12 + 4096)

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
