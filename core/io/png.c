/* PNG files: greyscale heightmaps read (heightmap.h) and RGB or RGBA
 * images written (write.h, for previews), with libspng or else libpng.
 * Without either, reading gives STRATA_ERR_UNSUPPORTED after the checks
 * every build makes, and nothing writes PNG. */
#define _GNU_SOURCE /* O_TMPFILE */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "base/alloc.h"
#include "io/heightmap_read.h"
#include "mesh/heightmap.h"
#include "base/output.h"
#include "base/readfile.h"
#include "io/write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if HAVE_SPNG
#include <spng.h>
#elif HAVE_LIBPNG
#include <png.h>
#include <setjmp.h>
#endif

/* ------------------------------------------------------------------ */
/* Reading greyscale heightmaps                                        */
/* ------------------------------------------------------------------ */

static const uint8_t png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Largest chunk other than IDAT we accept.  Both libraries hold such
 * chunks (text, ICC profiles) in memory; refusing them here keeps that
 * bounded and gives the same answer with either library. */
#define PNG_MAX_META ((size_t)1 << 26)

/* Walk the chunks up to IEND before decoding: a file cut anywhere is then
 * truncated whichever library (if any) decodes it, and libraries that stop
 * reading at the end of the image data cannot accept a cut file. */
static strata_status png_walk(const uint8_t *d, size_t len)
{
    size_t pos = 8;
    for (;;) {
        if (len - pos < 12) /* length, type, CRC */
            return STRATA_ERR_TRUNCATED;
        const uint32_t n = be32(d + pos);
        if (n > 0x7fffffffu) /* the PNG limit on chunk lengths */
            return STRATA_ERR_FORMAT;
        if (len - pos - 12 < n)
            return STRATA_ERR_TRUNCATED;
        if (n > PNG_MAX_META && memcmp(d + pos + 4, "IDAT", 4) != 0)
            return STRATA_ERR_TOO_LARGE;
        const bool iend = memcmp(d + pos + 4, "IEND", 4) == 0;
        pos += 12 + (size_t)n;
        if (iend)
            return STRATA_OK;
    }
}

#if HAVE_SPNG || HAVE_LIBPNG
/* Both libraries decode into the same layout: rows of `stride` bytes,
 * `channels` samples a pixel of `depth` bits, 16-bit samples big-endian,
 * sub-byte samples packed from the most significant bit.  The raw image is
 * decoded into hm->data itself (at most 4 bytes a pixel, grey+alpha 16-bit)
 * to avoid a second image-sized buffer, and converted to floats back to
 * front: the raw bytes of pixels before i all lie below byte 4i, so writing
 * float i never clobbers a pixel not yet read.  Alpha is ignored. */
static void png_normalise(strata_heightmap *hm, size_t stride, int channels,
                          int depth)
{
    const uint8_t *raw = (const uint8_t *)hm->data;
    const uint32_t maxval = (1u << depth) - 1;
    const float fmax = (float)maxval;
    for (size_t i = (size_t)hm->w * hm->h; i-- > 0;) {
        const uint8_t *row = raw + (i / hm->w) * stride;
        const size_t x = i % hm->w;
        uint32_t v;
        if (depth == 16) {
            const uint8_t *s = row + x * 2 * channels;
            v = (uint32_t)s[0] << 8 | s[1];
        } else if (depth == 8) {
            v = row[x * channels];
        } else { /* 1, 2, 4 bits: grey only */
            const size_t bit = x * depth;
            v = (uint32_t)(row[bit / 8] >> (8 - depth - bit % 8)) & maxval;
        }
        hm->data[i] = (float)v / fmax;
    }
}
#endif

#if HAVE_SPNG
static strata_status spng_status(int err)
{
    switch (err) {
    case SPNG_OK: return STRATA_OK;
    case SPNG_EMEM: return STRATA_ERR_NOMEM;
    case SPNG_EUSER_WIDTH:
    case SPNG_EUSER_HEIGHT:
    case SPNG_ECHUNK_LIMITS: return STRATA_ERR_TOO_LARGE; /* see PNG_MAX_META */
    case SPNG_IO_EOF:
    case SPNG_IO_ERROR:
    case SPNG_EIO:
    case SPNG_EOF: return STRATA_ERR_TRUNCATED;
    default: return STRATA_ERR_FORMAT;
    }
}

static strata_status decode_png(const strata_allocator *al, const uint8_t *data,
                                size_t len, strata_heightmap **out)
{
    spng_ctx *sp = spng_ctx_new(0);
    if (!sp)
        return STRATA_ERR_NOMEM;
    strata_heightmap *hm = NULL;
    struct spng_ihdr ihdr;
    size_t size = 0;
    strata_status st;
    /* libspng keeps ancillary chunks (which we never use) in memory: cap
     * that, as compressed text could otherwise inflate without bound.  The
     * chunk limit does not apply to IDAT. */
    spng_set_image_limits(sp, STRATA_HEIGHTMAP_MAX_SIDE, STRATA_HEIGHTMAP_MAX_SIDE);
    spng_set_chunk_limits(sp, PNG_MAX_META, PNG_MAX_META);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    spng_set_crc_action(sp, SPNG_CRC_USE, SPNG_CRC_USE); /* see configure.ac */
#else
    spng_set_crc_action(sp, SPNG_CRC_ERROR, SPNG_CRC_DISCARD);
#endif
    if ((st = spng_status(spng_set_png_buffer(sp, data, len))) != STRATA_OK ||
        (st = spng_status(spng_get_ihdr(sp, &ihdr))) != STRATA_OK ||
        (st = strata__heightmap_check_dims(ihdr.width, ihdr.height)) != STRATA_OK)
        goto done;
    int channels = ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE         ? 1
                   : ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA ? 2
                                                                        : 0;
    if (!channels) {
        st = STRATA_ERR_UNSUPPORTED;
        goto done;
    }
    if ((st = spng_status(spng_decoded_image_size(sp, SPNG_FMT_RAW, &size))) != STRATA_OK)
        goto done;
    if ((uint64_t)size > (uint64_t)4 * ihdr.width * ihdr.height || size % ihdr.height) {
        st = STRATA_ERR_FORMAT; /* cannot happen for a valid IHDR */
        goto done;
    }
    if ((st = strata__heightmap_new(al, ihdr.width, ihdr.height, &hm)) != STRATA_OK)
        goto done;
    /* libspng ORs sub-byte samples of interlaced images into place: start
     * from zeros.  Then read on to IEND to check the CRCs of the chunks after
     * the image data. */
    memset(hm->data, 0, size);
    if ((st = spng_status(spng_decode_image(sp, hm->data, size, SPNG_FMT_RAW, 0))) != STRATA_OK ||
        (st = spng_status(spng_decode_chunks(sp))) != STRATA_OK)
        goto done;
    png_normalise(hm, size / ihdr.height, channels, ihdr.bit_depth);
    *out = hm;
    hm = NULL;
done:
    strata_heightmap_destroy(hm);
    spng_ctx_free(sp);
    return st;
}

#elif HAVE_LIBPNG
/* State shared with libpng's callbacks.  It lives in decode_png's frame,
 * not in png_run's which calls setjmp, so its fields are well defined after
 * a longjmp without being volatile. */
typedef struct {
    const uint8_t *p;
    size_t left;
    const strata_allocator *al;
    strata_status st; /* why png_error was called */
    bool alloc_failed;
    strata_heightmap *hm;
    png_bytep *rows;
} png_job;

static void png_read_mem(png_structp png, png_bytep dst, size_t n)
{
    png_job *job = png_get_io_ptr(png);
    if (n > job->left) {
        job->st = STRATA_ERR_TRUNCATED;
        png_error(png, "truncated");
    }
    memcpy(dst, job->p, n);
    job->p += n;
    job->left -= n;
}

/* libpng's default handlers print to stderr; the library must not. */
static void png_silent_warning(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

static void png_silent_error(png_structp png, png_const_charp msg)
{
    (void)msg;
    png_job *job = png_get_error_ptr(png);
    if (job->st == STRATA_OK)
        job->st = job->alloc_failed ? STRATA_ERR_NOMEM : STRATA_ERR_FORMAT;
    png_longjmp(png, 1);
}

static png_voidp png_alloc_fn(png_structp png, png_alloc_size_t n)
{
    png_job *job = png_get_mem_ptr(png);
    void *p = strata__alloc(job->al, n);
    if (!p)
        job->alloc_failed = true;
    return p;
}

static void png_free_fn(png_structp png, png_voidp p)
{
    png_job *job = png_get_mem_ptr(png);
    strata__free(job->al, p);
}

/* Every libpng call that may fail, behind one setjmp; errors set job->st. */
static void png_run(png_structp png, png_infop info, png_job *job)
{
    if (setjmp(png_jmpbuf(png)))
        return;
    png_set_read_fn(png, job, png_read_mem);
    png_set_user_limits(png, STRATA_HEIGHTMAP_MAX_SIDE, STRATA_HEIGHTMAP_MAX_SIDE);
    png_set_chunk_malloc_max(png, PNG_MAX_META);
#ifdef PNG_HANDLE_AS_UNKNOWN_SUPPORTED
    /* Skip every ancillary chunk (we use none of them)... */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
#endif
    /* ...so the remaining benign errors concern the image data itself (too
     * little of it, say): refuse those instead of returning zeros. */
    png_set_benign_errors(png, 0);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE); /* see configure.ac */
#endif
    png_read_info(png, info);

    png_uint_32 w, h;
    int depth, color, interlace;
    png_get_IHDR(png, info, &w, &h, &depth, &color, &interlace, NULL, NULL);
    if ((job->st = strata__heightmap_check_dims(w, h)) != STRATA_OK)
        return;
    if (color != PNG_COLOR_TYPE_GRAY && color != PNG_COLOR_TYPE_GRAY_ALPHA) {
        job->st = STRATA_ERR_UNSUPPORTED;
        return;
    }
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    const size_t stride = png_get_rowbytes(png, info);
    if (stride > (size_t)4 * w) {
        job->st = STRATA_ERR_FORMAT; /* not for a valid IHDR */
        return;
    }
    if ((job->st = strata__heightmap_new(job->al, w, h, &job->hm)) != STRATA_OK)
        return;
    if (!(job->rows = strata__alloc_array(job->al, h, sizeof *job->rows))) {
        job->st = STRATA_ERR_NOMEM;
        return;
    }
    for (png_uint_32 y = 0; y < h; y++)
        job->rows[y] = (png_bytep)job->hm->data + (size_t)y * stride;
    png_read_image(png, job->rows);
    png_read_end(png, NULL); /* check the chunks after the image data too */
    png_normalise(job->hm, stride, color == PNG_COLOR_TYPE_GRAY ? 1 : 2, depth);
}

static strata_status decode_png(const strata_allocator *al, const uint8_t *data,
                                size_t len, strata_heightmap **out)
{
    png_job job = {data, len, al, STRATA_OK, false, NULL, NULL};
    png_structp png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &job,
                                               png_silent_error, png_silent_warning,
                                               &job, png_alloc_fn, png_free_fn);
    if (!png)
        return STRATA_ERR_NOMEM;
    png_infop info = png_create_info_struct(png);
    if (info)
        png_run(png, info, &job);
    else
        job.st = STRATA_ERR_NOMEM;
    png_destroy_read_struct(&png, &info, NULL);
    strata__free(al, job.rows);
    if (job.st != STRATA_OK)
        strata_heightmap_destroy(job.hm);
    else
        *out = job.hm;
    return job.st;
}
#endif


strata_status strata__png_read(const strata_allocator *al, const uint8_t *d, size_t len,
                               strata_heightmap **out)
{
    if (memcmp(d, png_sig, len < 8 ? len : 8) != 0)
        return STRATA_ERR_FORMAT;
    if (len < 8)
        return STRATA_ERR_TRUNCATED;
    /* The IHDR always comes first at a fixed place: check the size there,
     * the same way with either library (or none). */
    if (len >= 26 && memcmp(d + 12, "IHDR", 4) == 0) {
        const uint32_t w = be32(d + 16), h = be32(d + 20);
        strata_status st = strata__heightmap_check_dims(w, h);
        if (st != STRATA_OK)
            return st;
        /* Deflate expands at most 1032:1, so the file length bounds the
         * image a real file can hold: a tiny file claiming a big image is
         * refused before anything image-sized is allocated. */
        static const uint8_t channels[7] = {1, 1, 3, 1, 2, 1, 4};
        const uint64_t bits = (uint64_t)d[24] * channels[d[25] < 7 ? d[25] : 0];
        if ((uint64_t)w * h * bits / 8 > (uint64_t)len * 1032 + 1024)
            return STRATA_ERR_TRUNCATED;
    }
    strata_status st = png_walk(d, len);
    if (st != STRATA_OK)
        return st;
#if HAVE_SPNG || HAVE_LIBPNG
    return decode_png(al, d, len, out);
#else
    (void)al, (void)out;
    return STRATA_ERR_UNSUPPORTED;
#endif
}

unsigned strata_png_support(void)
{
#if HAVE_SPNG
    return STRATA_PNG_DECODE | STRATA_PNG_OPEN;
#elif HAVE_LIBPNG
    return STRATA_PNG_DECODE;
#else
    return 0;
#endif
}

/* ------------------------------------------------------------------ */
/* Opening PNGs larger than memory                                     */
/* ------------------------------------------------------------------ */

#if HAVE_SPNG
/* Buffered reads of the input for libspng's stream callback. */
typedef struct {
    int fd;
    uint8_t buf[1 << 16];
    size_t at, have;
} png_source;

static int source_read(spng_ctx *sp, void *user, void *dst, size_t n)
{
    (void)sp;
    png_source *r = user;
    uint8_t *d = dst;
    while (n) {
        if (r->at == r->have) {
            size_t got;
            if (strata__read_fd(r->fd, r->buf, sizeof r->buf, &got) != 0)
                return SPNG_IO_ERROR;
            if (got == 0)
                return SPNG_IO_EOF;
            r->at = 0;
            r->have = got;
        }
        const size_t k = r->have - r->at < n ? r->have - r->at : n;
        memcpy(d, r->buf + r->at, k);
        r->at += k;
        d += k;
        n -= k;
    }
    return 0;
}

/* An unnamed file for the samples: under $TMPDIR, else /var/tmp (disk,
 * where /tmp may be memory). */
static int spill_file(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/var/tmp";
#ifdef O_TMPFILE
    const int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || errno != EOPNOTSUPP)
        return fd;
#endif
    char path[4096];
    if (snprintf(path, sizeof path, "%s/strata-heightmap.XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    const int t = mkstemp(path);
    if (t >= 0)
        unlink(path);
    return t;
}

/* Write n bytes at the end of fd. */
static strata_status spill_write(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        const ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return STRATA_ERR_IO;
        p += k;
        n -= (size_t)k;
    }
    return STRATA_OK;
}

strata_status strata__png_open(const strata_allocator *al, int fd, strata_heightmap **out)
{
    png_source *src = strata__alloc(al, sizeof *src);
    spng_ctx *sp = src ? spng_ctx_new(0) : NULL;
    if (!sp) {
        strata__free(al, src);
        return STRATA_ERR_NOMEM;
    }
    src->fd = fd;
    src->at = src->have = 0;
    uint8_t *raw = NULL, *batch = NULL;
    int tmp = -1;
    struct spng_ihdr ihdr;
    strata_status st;
    spng_set_image_limits(sp, STRATA_HEIGHTMAP_OPEN_MAX_SIDE, STRATA_HEIGHTMAP_OPEN_MAX_SIDE);
    spng_set_chunk_limits(sp, PNG_MAX_META, PNG_MAX_META);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    spng_set_crc_action(sp, SPNG_CRC_USE, SPNG_CRC_USE);
#else
    spng_set_crc_action(sp, SPNG_CRC_ERROR, SPNG_CRC_DISCARD);
#endif
    if ((st = spng_status(spng_set_png_stream(sp, source_read, src))) != STRATA_OK ||
        (st = spng_status(spng_get_ihdr(sp, &ihdr))) != STRATA_OK)
        goto done;
    if (ihdr.width < 2 || ihdr.height < 2) {
        st = STRATA_ERR_TOO_LARGE; /* outside the limits, as when decoding */
        goto done;
    }
    const int channels = ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE         ? 1
                         : ihdr.color_type == SPNG_COLOR_TYPE_GRAYSCALE_ALPHA ? 2
                                                                              : 0;
    /* Adam7 would need the whole image before any row is whole */
    if (!channels || ihdr.interlace_method != 0) {
        st = STRATA_ERR_UNSUPPORTED;
        goto done;
    }
    const uint32_t w = ihdr.width, depth = ihdr.bit_depth;
    const size_t bytes = depth == 16 ? 2 : 1; /* a grey sample in the file */
    const size_t rowbytes = ((size_t)w * channels * depth + 7) / 8;
    /* rows go out in batches of about 1 MiB */
    const size_t rows_per = (1u << 20) / (w * bytes) ? (1u << 20) / (w * bytes) : 1;
    if (!(raw = strata__alloc(al, rowbytes)) ||
        !(batch = strata__alloc_array(al, rows_per, w * bytes))) {
        st = STRATA_ERR_NOMEM;
        goto done;
    }
    if ((tmp = spill_file()) < 0) {
        st = STRATA_ERR_IO;
        goto done;
    }
    if ((st = spng_status(spng_decode_image(sp, NULL, 0, SPNG_FMT_RAW,
                                            SPNG_DECODE_PROGRESSIVE))) != STRATA_OK)
        goto done;
    /* the grey samples only, as a PGM of maxval 2^depth - 1 holds them
     * (sub-byte samples one a byte): core/io/pnm.c reads windows of it */
    const uint32_t maxval = (1u << depth) - 1;
    size_t in_batch = 0;
    int err = SPNG_OK;
    for (uint32_t y = 0; y < ihdr.height; y++) {
        err = spng_decode_row(sp, raw, rowbytes);
        if (err != SPNG_OK && !(err == SPNG_EOI && y == ihdr.height - 1))
            break;
        uint8_t *o = batch + in_batch * w * bytes;
        for (uint32_t x = 0; x < w; x++) {
            if (depth == 16) {
                o[2 * x] = raw[(size_t)x * 2 * channels];
                o[2 * x + 1] = raw[(size_t)x * 2 * channels + 1];
            } else if (depth == 8) {
                o[x] = raw[(size_t)x * channels];
            } else {
                const size_t bit = (size_t)x * depth;
                o[x] = (uint8_t)((raw[bit / 8] >> (8 - depth - bit % 8)) & maxval);
            }
        }
        if (++in_batch == rows_per || y == ihdr.height - 1) {
            if ((st = spill_write(tmp, batch, in_batch * w * bytes)) != STRATA_OK)
                goto done;
            in_batch = 0;
        }
    }
    if (err != SPNG_EOI) {
        st = spng_status(err == SPNG_OK ? SPNG_EOF : err);
        goto done;
    }
    if ((st = spng_status(spng_decode_chunks(sp))) != STRATA_OK)
        goto done;
    strata_heightmap *hm = strata__alloc(al, sizeof *hm);
    if (!hm) {
        st = STRATA_ERR_NOMEM;
        goto done;
    }
    memset(hm, 0, sizeof *hm);
    hm->alloc = *al;
    hm->w = w;
    hm->h = ihdr.height;
    hm->fd = tmp;
    hm->pnm = (strata__pnm_layout){.w = w, .h = ihdr.height, .maxval = maxval,
                                   .stride = (uint32_t)bytes};
    tmp = -1;
    *out = hm;
done:
    if (tmp >= 0) {
        const int e = errno;
        close(tmp);
        errno = e;
    }
    strata__free(al, batch);
    strata__free(al, raw);
    spng_ctx_free(sp);
    strata__free(al, src);
    return st;
}
#else
strata_status strata__png_open(const strata_allocator *al, int fd, strata_heightmap **out)
{
    (void)al, (void)fd, (void)out;
    return STRATA_ERR_TOO_LARGE; /* beyond the limits of decoding whole */
}
#endif

/* ------------------------------------------------------------------ */
/* Writing RGB(A) images                                               */
/* ------------------------------------------------------------------ */

/* The encoders stream into the shared atomic output file (output.h):
 * a temporary name beside the destination, renamed once complete. */

#if HAVE_SPNG
static int stream_write(spng_ctx *sp, void *user, void *data, size_t n)
{
    (void)sp;
    strata_out *o = user;
    strata__out_bytes(o, data, n);
    return o->err ? SPNG_IO_ERROR : 0;
}

strata_status strata__png_write(strata_out *o, const uint8_t *img, uint32_t size, int channels)
{
    spng_ctx *sp = spng_ctx_new(SPNG_CTX_ENCODER);
    if (!sp)
        return STRATA_ERR_NOMEM;
    struct spng_ihdr ihdr = {size, size, 8,
                             channels == 4 ? SPNG_COLOR_TYPE_TRUECOLOR_ALPHA
                                           : SPNG_COLOR_TYPE_TRUECOLOR,
                             0, 0, 0};
    int err = spng_set_png_stream(sp, stream_write, o);
    if (!err)
        err = spng_set_ihdr(sp, &ihdr);
    if (!err)
        err = spng_encode_image(sp, img, (size_t)size * size * (size_t)channels, SPNG_FMT_PNG,
                                SPNG_ENCODE_FINALIZE);
    spng_ctx_free(sp);
    if (o->err)
        return STRATA_ERR_IO;
    return err == 0 ? STRATA_OK : err == SPNG_EMEM ? STRATA_ERR_NOMEM : STRATA_ERR_IO;
}
#elif HAVE_LIBPNG
typedef struct png_wjob {
    strata_out *o;
    const uint8_t *img;
    uint32_t size;
    int channels;
    strata_status st;
} png_wjob;

static void png_write_fn(png_structp png, png_bytep data, size_t n)
{
    png_wjob *j = png_get_io_ptr(png);
    strata__out_bytes(j->o, data, n);
    if (j->o->err) {
        j->st = STRATA_ERR_IO;
        png_error(png, "write");
    }
}

static void png_flush_fn(png_structp png)
{
    png_wjob *j = png_get_io_ptr(png);
    strata__out_flush(j->o);
}
static void png_quiet_warning(png_structp png, png_const_charp msg) { (void)png; (void)msg; }

static void png_quiet_error(png_structp png, png_const_charp msg)
{
    (void)msg;
    png_wjob *j = png_get_error_ptr(png);
    if (j->st == STRATA_OK)
        j->st = STRATA_ERR_NOMEM; /* the only other way libpng fails here */
    png_longjmp(png, 1);
}

static void png_wrun(png_structp png, png_infop info, png_wjob *j)
{
    if (setjmp(png_jmpbuf(png)))
        return;
    png_set_write_fn(png, j, png_write_fn, png_flush_fn);
    png_set_IHDR(png, info, j->size, j->size, 8,
                 j->channels == 4 ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    const size_t stride = (size_t)j->size * (size_t)j->channels;
    for (uint32_t y = 0; y < j->size; y++)
        png_write_row(png, j->img + y * stride);
    png_write_end(png, NULL);
}

strata_status strata__png_write(strata_out *o, const uint8_t *img, uint32_t size, int channels)
{
    png_wjob j = {o, img, size, channels, STRATA_OK};
    png_structp png =
        png_create_write_struct(PNG_LIBPNG_VER_STRING, &j, png_quiet_error, png_quiet_warning);
    if (!png)
        return STRATA_ERR_NOMEM;
    png_infop info = png_create_info_struct(png);
    if (info)
        png_wrun(png, info, &j);
    else
        j.st = STRATA_ERR_NOMEM;
    png_destroy_write_struct(&png, &info);
    return j.st;
}
#endif
