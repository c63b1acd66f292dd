/* Whole-file reading for the decoders that take a path (heightmaps,
 * meshes): the size is checked against the caller's limit before anything
 * is allocated, and only regular files are read. */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

strata_status strata__read_file(const strata_allocator *al, const char *path, uint64_t max_bytes,
                                uint8_t **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return STRATA_ERR_IO;
    strata_status st = STRATA_OK;
    uint8_t *buf = NULL;
    size_t len = 0;
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0) {
        st = STRATA_ERR_IO;
    } else if (!S_ISREG(sb.st_mode)) {
        errno = S_ISDIR(sb.st_mode) ? EISDIR : EINVAL; /* no size to read */
        st = STRATA_ERR_IO;
    } else if ((uint64_t)sb.st_size > max_bytes || (uint64_t)sb.st_size >= SIZE_MAX) {
        st = STRATA_ERR_TOO_LARGE;
    } else {
        len = (size_t)sb.st_size;
        /* +1: never ask for 0 bytes; decoders want a non-NULL pointer. */
        if (!(buf = strata__alloc(al, len + 1)))
            st = STRATA_ERR_NOMEM;
        else if (fread(buf, 1, len, f) != len)
            st = STRATA_ERR_IO; /* a read error, or the file shrank */
    }
    const int saved = errno;
    fclose(f);
    errno = saved;
    if (st != STRATA_OK) {
        strata__free(al, buf);
        return st;
    }
    *out = buf;
    *out_len = len;
    return STRATA_OK;
}
