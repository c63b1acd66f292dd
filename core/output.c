/* Atomic output files: see output.h. */
#define _POSIX_C_SOURCE 200809L

#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* Create PATH.tmpXXXXXX exclusively.  Not mkstemp: it makes files 0600, and
 * widening that needs the process umask, which can only be read by setting
 * it (a race with other threads).  open(O_EXCL, 0644) lets the kernel apply
 * the umask itself. */
int strata__out_open(strata_out *o, const char *path, const strata_allocator *al)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    static _Atomic unsigned counter;
    memset(o, 0, sizeof *o);
    o->al = al;
    o->fd = -1;
    const size_t n = strlen(path);
    o->tmp = strata__alloc(al, n + sizeof ".tmpXXXXXX");
    o->buf = strata__alloc(al, STRATA_OUT_BUF);
    if (!o->tmp || !o->buf) {
        strata__free(al, o->tmp);
        o->tmp = NULL; /* no file to remove */
        o->err = ENOMEM;
        return -1;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 20;
    for (int attempt = 0; attempt < 100; attempt++) {
        /* splitmix64 step: distinct names for threads and retries */
        uint64_t z = seed += 0x9e3779b97f4a7c15u + counter++;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        z ^= z >> 31;
        memcpy(o->tmp, path, n);
        memcpy(o->tmp + n, ".tmp", 4);
        for (int i = 0; i < 6; i++, z /= 36)
            o->tmp[n + 4 + i] = digits[z % 36];
        o->tmp[n + 10] = '\0';
        o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (o->fd >= 0)
            return 0;
        if (errno != EEXIST)
            break;
    }
    o->err = errno;
    strata__free(al, o->tmp);
    o->tmp = NULL;
    return -1;
}

void strata__out_flush(strata_out *o)
{
    const unsigned char *p = o->buf;
    size_t left = o->len;
    while (left > 0 && !o->err) {
        ssize_t w = write(o->fd, p, left);
        if (w < 0) {
            if (errno != EINTR)
                o->err = errno;
            continue;
        }
        p += w;
        left -= (size_t)w;
    }
    o->len = 0;
}

void strata__out_bytes(strata_out *o, const void *p, size_t n)
{
    while (n > 0) {
        size_t m = STRATA_OUT_BUF - o->len;
        if (m == 0) {
            strata__out_flush(o);
            continue;
        }
        m = m < n ? m : n;
        memcpy(o->buf + o->len, p, m);
        o->len += m;
        p = (const unsigned char *)p + m;
        n -= m;
    }
}

void strata__out_str(strata_out *o, const char *s) { strata__out_bytes(o, s, strlen(s)); }

/* Flush and close; the file stays under its temporary name. */
void strata__out_finish(strata_out *o)
{
    strata__out_flush(o);
    if (o->fd >= 0 && close(o->fd) != 0 && !o->err)
        o->err = errno; /* NFS and quotas may report write errors only here */
    o->fd = -1;
}

/* Remove the temporary file (if any) and free everything. */
void strata__out_discard(strata_out *o)
{
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    if (o->tmp)
        unlink(o->tmp);
    strata__free(o->al, o->tmp);
    strata__free(o->al, o->buf);
    o->tmp = NULL;
    o->buf = NULL;
}

/* Move the finished temporary file onto path. */
void strata__out_commit(strata_out *o, const char *path)
{
    if (!o->err && rename(o->tmp, path) != 0)
        o->err = errno;
    if (!o->err) {
        strata__free(o->al, o->tmp);
        o->tmp = NULL; /* nothing left to remove */
    }
}

