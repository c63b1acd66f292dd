/* Input files (core/base/readfile.c): whole regular files for the decoders
 * that take a path (heightmaps, meshes, palettes).  A FIFO or a device is
 * refused at once, never waited on. */
#ifndef STRATA_READFILE_H
#define STRATA_READFILE_H

#include "base.h"

#include <stddef.h>
#include <stdint.h>

/* Read a regular file of at most max_bytes into a new buffer (one spare
 * byte allocated); STRATA_ERR_IO (errno kept) or STRATA_ERR_TOO_LARGE
 * before allocating. */
STRATA_HIDDEN strata_status strata__read_file(const strata_allocator *al, const char *path,
                                              uint64_t max_bytes, uint8_t **out,
                                              size_t *out_len);

/* A regular file's bytes for a decoder: data[0..len), mapped read-only
 * when the file is big (no copy, no fresh memory: the page cache's own
 * pages), else read into a buffer as strata__read_file does.  A mapped
 * file must not shrink while it is decoded (reading past its new end
 * raises SIGBUS, as for any mapped file). */
typedef struct strata_file_bytes {
    const uint8_t *data;
    size_t len;
    void *map;    /* the mapping, or NULL */
    uint8_t *buf; /* the buffer, or NULL */
} strata_file_bytes;

/* STRATA_ERR_IO (errno kept), STRATA_ERR_TOO_LARGE or STRATA_ERR_NOMEM
 * as strata__read_file; release with strata__release_file. */
STRATA_HIDDEN strata_status strata__map_file(const strata_allocator *al, const char *path,
                                             uint64_t max_bytes, strata_file_bytes *f);
STRATA_HIDDEN void strata__release_file(const strata_allocator *al, strata_file_bytes *f);

/* Open path for reading if it is a regular file, without blocking on a
 * FIFO or a device: the descriptor with *sb filled, or -1 with errno set
 * (EISDIR for a directory, EINVAL for anything else not regular). */
struct stat;
STRATA_HIDDEN int strata__open_regular(const char *path, struct stat *sb);

/* read(2) until n bytes or the end of the file, the count in *got: 0, or
 * -1 with errno set on an error. */
STRATA_HIDDEN int strata__read_fd(int fd, void *buf, size_t n, size_t *got);

#endif
