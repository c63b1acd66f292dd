/* Whole-file reading for the decoders that take a path (heightmaps,
 * meshes, palettes): only regular files are read, refused at once
 * otherwise (a FIFO or a device must not block the open or the read), and
 * the size is checked against the caller's limit before anything is
 * allocated. */
#define _POSIX_C_SOURCE 200809L /* fstat, O_CLOEXEC */
#include "base/alloc.h"
#include "base/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

int strata__open_regular(const char *path, struct stat *sb)
{
    /* O_NONBLOCK: opening a FIFO without a writer (or some devices) would
     * wait forever; this way the open returns and fstat tells. */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int err = 0;
    if (fstat(fd, sb) != 0)
        err = errno;
    else if (!S_ISREG(sb->st_mode))
        err = S_ISDIR(sb->st_mode) ? EISDIR : EINVAL; /* no size to read */
    else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        err = errno; /* a regular file does not block; read it as usual */
    if (err) {
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

int strata__read_fd(int fd, void *buf, size_t n, size_t *got)
{
    *got = 0;
    while (*got < n) {
        const ssize_t r = read(fd, (unsigned char *)buf + *got, n - *got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break; /* the end of the file */
        *got += (size_t)r;
    }
    return 0;
}

strata_status strata__read_file(const strata_allocator *al, const char *path, uint64_t max_bytes,
                                uint8_t **out, size_t *out_len)
{
    *out = NULL;
    *out_len = 0;
    struct stat sb;
    const int fd = strata__open_regular(path, &sb);
    if (fd < 0)
        return STRATA_ERR_IO;
    strata_status st = STRATA_OK;
    uint8_t *buf = NULL;
    size_t len = 0;
    if ((uint64_t)sb.st_size > max_bytes || (uint64_t)sb.st_size >= SIZE_MAX) {
        st = STRATA_ERR_TOO_LARGE;
    } else {
        len = (size_t)sb.st_size;
        size_t got;
        /* +1: never ask for 0 bytes; decoders want a non-NULL pointer. */
        if (!(buf = strata__alloc(al, len + 1))) {
            st = STRATA_ERR_NOMEM;
        } else if (strata__read_fd(fd, buf, len, &got) != 0) {
            st = STRATA_ERR_IO; /* errno says why */
        } else if (got != len) {
            st = STRATA_ERR_IO; /* the file shrank meanwhile */
            errno = EIO;
        }
    }
    const int saved = errno;
    close(fd);
    errno = saved;
    if (st != STRATA_OK) {
        strata__free(al, buf);
        return st;
    }
    *out = buf;
    *out_len = len;
    return STRATA_OK;
}

/* Files from this size on are mapped: below it a read costs no more. */
#define MAP_FROM ((size_t)1 << 20)

strata_status strata__map_file(const strata_allocator *al, const char *path, uint64_t max_bytes,
                               strata_file_bytes *f)
{
    f->data = NULL;
    f->len = 0;
    f->map = NULL;
    f->buf = NULL;
    struct stat sb;
    const int fd = strata__open_regular(path, &sb);
    if (fd < 0)
        return STRATA_ERR_IO;
    void *p = MAP_FAILED;
    if ((uint64_t)sb.st_size >= MAP_FROM && (uint64_t)sb.st_size <= max_bytes &&
        (uint64_t)sb.st_size < SIZE_MAX) {
#ifdef MAP_POPULATE
        const int flags = MAP_PRIVATE | MAP_POPULATE; /* the page tables filled at once */
#else
        const int flags = MAP_PRIVATE;
#endif
        p = mmap(NULL, (size_t)sb.st_size, PROT_READ, flags, fd, 0);
    }
    const int saved = errno;
    close(fd);
    errno = saved;
    if (p != MAP_FAILED) {
        f->map = p;
        f->data = p;
        f->len = (size_t)sb.st_size;
        return STRATA_OK;
    }
    /* Small, or not mappable: read it. */
    const strata_status st = strata__read_file(al, path, max_bytes, &f->buf, &f->len);
    f->data = f->buf;
    return st;
}

void strata__release_file(const strata_allocator *al, strata_file_bytes *f)
{
    if (f->map)
        munmap(f->map, f->len);
    strata__free(al, f->buf);
    f->map = NULL;
    f->buf = NULL;
    f->data = NULL;
}
