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

/* Open path for reading if it is a regular file, without blocking on a
 * FIFO or a device: the descriptor with *sb filled, or -1 with errno set
 * (EISDIR for a directory, EINVAL for anything else not regular). */
struct stat;
STRATA_HIDDEN int strata__open_regular(const char *path, struct stat *sb);

/* read(2) until n bytes or the end of the file, the count in *got: 0, or
 * -1 with errno set on an error. */
STRATA_HIDDEN int strata__read_fd(int fd, void *buf, size_t n, size_t *got);

#endif
