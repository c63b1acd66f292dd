/* Atomic output files: see output.h. */
#define _DEFAULT_SOURCE /* flock */

#include "base/output.h"
#include "base/alloc.h"
#include "base/ctx.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* Thread 0 of strata__out_spans encodes into o->buf. */
_Static_assert(STRATA_OUT_BLOCK <= STRATA_OUT_BUF, "a block must fit the output buffer");

/* ------------------------------------------------ live temporaries */

/* The temporaries this process's writers have open, for
 * strata_remove_temporaries (a signal handler).  A writer takes a slot
 * (0 -> 1) and, for each name it tries, writes the name there and
 * publishes it (2) *before* creating the file, so that no signal can come
 * between the file's creation and its publication; a name that could not
 * be created is unpublished (1) before the next is written.  The slot is
 * released (0) once the file is renamed or removed.  Only lock-free
 * atomics and unlink touch it in the handler. */
#define TEMP_SLOTS 64
static struct {
    _Atomic int state;
    char path[4096];
} g_temps[TEMP_SLOTS];

static int temp_take(void)
{
    for (int i = 0; i < TEMP_SLOTS; i++) {
        int free_slot = 0;
        if (atomic_compare_exchange_strong(&g_temps[i].state, &free_slot, 1))
            return i;
    }
    return -1; /* all taken: strata_output_clean finds a left temporary later */
}

static void temp_publish(int slot, const char *path, size_t n)
{
    if (slot < 0 || n >= sizeof g_temps[0].path)
        return;
    memcpy(g_temps[slot].path, path, n + 1);
    atomic_store(&g_temps[slot].state, 2);
}

static void temp_unpublish(int slot)
{
    if (slot >= 0)
        atomic_store(&g_temps[slot].state, 1);
}

static void temp_release(int slot)
{
    if (slot >= 0)
        atomic_store(&g_temps[slot].state, 0);
}

void strata_remove_temporaries(void)
{
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (atomic_load(&g_temps[i].state) == 2)
            unlink(g_temps[i].path);
}

/* ------------------------------------------------ temporary names */

#define NAME_BYTES 255 /* NAME_MAX of Linux file systems */
#define TMP_SUFFIX 10  /* ".tmp" and 6 characters */
static const char tmp_digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";

/* The directory part of path ("." for none) into dir, and where the
 * file's name starts. */
static const char *split_path(const char *path, char *dir, size_t cap)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        snprintf(dir, cap, ".");
        return path;
    }
    const size_t n = slash == path ? 1 : (size_t)(slash - path);
    snprintf(dir, cap, "%.*s", (int)n, path);
    return slash + 1;
}

/* How many bytes of a file name of n bytes come before ".tmpXXXXXX". */
static size_t tmp_stem(size_t n)
{
    return n + TMP_SUFFIX > NAME_BYTES ? NAME_BYTES - TMP_SUFFIX : n;
}

/* Whether name is a temporary of a file whose name is base. */
static int is_temp_of(const char *name, const char *base)
{
    const size_t k = tmp_stem(strlen(base));
    if (strlen(name) != k + TMP_SUFFIX || memcmp(name, base, k) != 0 ||
        memcmp(name + k, ".tmp", 4) != 0)
        return 0;
    for (size_t i = k + 4; i < k + TMP_SUFFIX; i++)
        if (!strchr(tmp_digits, name[i]) || !name[i])
            return 0;
    return 1;
}

int strata__remove_if_stale(const char *path)
{
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    struct stat sb;
    int r = 0;
    /* a live writer holds the lock until its rename or removal */
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0)
        r = unlink(path) == 0 ? 1 : errno == ENOENT ? 0 : -1;
    const int err = errno;
    close(fd);
    errno = err;
    return r;
}

int strata__remove_stale_in(const char *dir, int (*match)(const char *name, const void *arg),
                            const void *arg, uint64_t *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int r = 0;
    for (struct dirent *e; r >= 0 && (e = readdir(d));) {
        if (!match(e->d_name, arg))
            continue;
        char p[8192];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if ((r = strata__remove_if_stale(p)) > 0)
            (*count)++;
    }
    const int err = errno;
    closedir(d);
    errno = err;
    return r < 0 ? -1 : 0;
}

static int match_temp_of(const char *name, const void *base) { return is_temp_of(name, base); }

strata_status strata_output_clean(const char *path, unsigned long *removed)
{
    if (removed)
        *removed = 0;
    if (!path || !*path)
        return STRATA_ERR_INVALID_ARG;
    char dir[4096];
    const char *base = split_path(path, dir, sizeof dir);
    if (!*base)
        return STRATA_ERR_INVALID_ARG;
    uint64_t count = 0;
    const int r = strata__remove_stale_in(dir, match_temp_of, base, &count);
    if (removed)
        *removed = (unsigned long)count;
    if (r < 0 && errno == ENOENT && count == 0)
        return STRATA_OK; /* no directory yet: nothing there */
    return r < 0 ? STRATA_ERR_IO : STRATA_OK;
}

/* Create PATH.tmpXXXXXX exclusively.  Not mkstemp: it makes files 0600, and
 * widening that needs the process umask, which can only be read by setting
 * it (a race with other threads).  open(O_EXCL, 0644) lets the kernel apply
 * the umask itself. */
int strata__out_open(strata_out *o, const char *path, strata_ctx *ctx)
{
    static _Atomic unsigned counter;
    const strata_allocator *al = &ctx->alloc;
    memset(o, 0, sizeof *o);
    o->ctx = ctx;
    o->al = al;
    o->fd = o->hold = o->slot = -1;
    const size_t n = strlen(path);
    const char *slash = strrchr(path, '/');
    const size_t base = slash ? (size_t)(slash + 1 - path) : 0;
    const size_t stem = base + tmp_stem(n - base);
    o->tmp = strata__alloc(al, stem + TMP_SUFFIX + 1);
    o->buf = strata__alloc(al, STRATA_OUT_BUF);
    if (!o->tmp || !o->buf) {
        strata__free(al, o->tmp);
        o->tmp = NULL; /* no file to remove */
        o->err = ENOMEM;
        return -1;
    }
    /* Only a regular file (or nothing) is replaced: renaming onto a
     * device such as /dev/full would replace the device node itself, and
     * onto a directory fails only once everything is written. */
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        strata__free(al, o->tmp);
        o->tmp = NULL;
        o->err = S_ISDIR(sb.st_mode) ? EISDIR : EINVAL;
        return -1;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 20;
    o->slot = temp_take();
    for (int attempt = 0; attempt < 100; attempt++) {
        /* splitmix64 step: distinct names for threads and retries */
        uint64_t z = seed += 0x9e3779b97f4a7c15u + counter++;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
        z ^= z >> 31;
        memcpy(o->tmp, path, stem);
        memcpy(o->tmp + stem, ".tmp", 4);
        for (int i = 0; i < 6; i++, z /= 36)
            o->tmp[stem + 4 + i] = tmp_digits[z % 36];
        o->tmp[stem + TMP_SUFFIX] = '\0';
        temp_publish(o->slot, o->tmp, stem + TMP_SUFFIX);
        o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (o->fd >= 0) {
            /* the lock tells strata_output_clean the writer lives; the
             * duplicate keeps it after fd is closed, until the rename */
            if (flock(o->fd, LOCK_EX | LOCK_NB) == 0 && (o->hold = dup(o->fd)) >= 0)
                return 0;
            o->err = errno;
            strata__out_discard(o);
            return -1;
        }
        const int err = errno;
        temp_unpublish(o->slot); /* not ours: another writer's, or none */
        errno = err;
        if (errno != EEXIST)
            break;
    }
    o->err = errno;
    temp_release(o->slot);
    o->slot = -1;
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

/* Flush, sync and close; the file stays under its temporary name. */
void strata__out_finish(strata_out *o)
{
    strata__out_flush(o);
    if (o->fd >= 0 && !o->err && o->seal)
        o->err = strata__tile_seal(o->ctx, o->tmp, o->fd);
    if (o->fd >= 0 && !o->err && !o->ctx->no_sync && fsync(o->fd) != 0)
        o->err = errno;
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
    temp_release(o->slot);
    o->slot = -1;
    if (o->hold >= 0)
        close(o->hold); /* the lock goes with the last descriptor */
    o->hold = -1;
    strata__free(o->al, o->tmp);
    strata__free(o->al, o->buf);
    o->tmp = NULL;
    o->buf = NULL;
}

/* fsync the directory holding path: the rename reaches the disk. */
static int sync_dir(const char *path)
{
    char dir[4096];
    split_path(path, dir, sizeof dir);
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* some file systems cannot sync a directory: nothing more to do */
    const int r = fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP ? -1 : 0;
    const int err = errno;
    close(fd);
    errno = err;
    return r;
}

/* Move the finished temporary file onto path. */
void strata__out_commit(strata_out *o, const char *path)
{
    if (!o->err && rename(o->tmp, path) != 0)
        o->err = errno;
    if (!o->err) {
        strata__free(o->al, o->tmp);
        o->tmp = NULL; /* nothing left to remove */
        if (!o->ctx->no_sync && sync_dir(path) != 0)
            o->err = errno;
    }
}


int strata__out_progress(strata_out *o, uint64_t done, uint64_t total)
{
    if (o->cancelled || strata__cancelled(o->ctx)) {
        o->cancelled = 1;
        return 1;
    }
    const double f = total ? (double)done / (double)total : 0.0;
    if (f < 1.0 && f >= o->reported + 1.0 / 64) {
        o->reported = f;
        if (strata__progress(o->ctx, "write", f) != STRATA_OK)
            o->cancelled = 1;
    }
    return o->cancelled;
}

strata_status strata__out_status(const strata_out *o)
{
    return o->cancelled       ? STRATA_ERR_CANCELLED
           : o->err == ENOMEM ? STRATA_ERR_NOMEM
           : o->err           ? STRATA_ERR_IO
                              : STRATA_OK;
}

/* ------------------------------------------------ fixed-layout files */

void strata__enc_bytes(const strata_span *s, uint64_t i, uint64_t n, unsigned char *dst)
{
    memcpy(dst, (const unsigned char *)s->src[0] + i, (size_t)n);
}

/* restrict: the output never overlaps the arrays, which lets the
 * compiler keep loads and stores in any order (and vectorise). */
void strata__enc_vec3(const strata_span *s, uint64_t i, uint64_t n, unsigned char *restrict p)
{
    const float *restrict x = s->src[0], *restrict y = s->src[1], *restrict z = s->src[2];
    for (const uint64_t end = i + n; i < end; i++) {
        p = put_f32(p, x[i]);
        p = put_f32(p, y[i]);
        p = put_f32(p, z[i]);
    }
}

/* Bytes [lo, hi) of the file made of spans s (span k starts at byte
 * start[k]; start[ns] is the file size) into dst.  A block boundary may
 * cut a record: that record is encoded aside and only its part copied. */
static void encode_range(const strata_span *s, const uint64_t *start, size_t ns, uint64_t lo,
                         uint64_t hi, unsigned char *dst)
{
    size_t a = 0, b = ns; /* the span holding lo: the last k with start[k] <= lo */
    while (b - a > 1) {
        const size_t m = a + (b - a) / 2;
        if (start[m] <= lo)
            a = m;
        else
            b = m;
    }
    unsigned char rec[STRATA_SPAN_REC_MAX];
    for (size_t k = a; lo < hi && k < ns; k++) {
        const strata_span *sp = &s[k];
        const uint64_t end = start[k + 1] < hi ? start[k + 1] : hi;
        if (lo >= end)
            continue; /* empty span */
        uint64_t i = (lo - start[k]) / sp->rec;
        const uint64_t skip = (lo - start[k]) % sp->rec;
        if (skip) { /* the tail of a record the previous block began */
            sp->encode(sp, i, 1, rec);
            const uint64_t m = sp->rec - skip < end - lo ? sp->rec - skip : end - lo;
            memcpy(dst, rec + skip, (size_t)m);
            dst += m;
            lo += m;
            i++;
        }
        const uint64_t whole = (end - lo) / sp->rec;
        if (whole) {
            sp->encode(sp, i, whole, dst);
            dst += whole * sp->rec;
            lo += whole * sp->rec;
            i += whole;
        }
        if (lo < end) { /* the head of a record the next block ends */
            sp->encode(sp, i, 1, rec);
            memcpy(dst, rec, (size_t)(end - lo));
            dst += end - lo;
            lo = end;
        }
    }
}

/* pwrite all n bytes at off; 0, or -1 with errno set. */
static int pwrite_all(int fd, const unsigned char *p, size_t n, uint64_t off)
{
    while (n > 0) {
        const ssize_t w = pwrite(fd, p, n, (off_t)off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

/* Keep the first error of any thread. */
static void first_error(atomic_int *err, int e)
{
    int zero = 0;
    atomic_compare_exchange_strong(err, &zero, e ? e : EIO);
}

void strata__out_spans(strata_out *o, const strata_span *s, size_t ns)
{
    if (!strata__out_ok(o))
        return;
    int threads = o->ctx->threads;
    uint64_t *start = strata__alloc_array(o->al, ns + 1, sizeof *start);
    if (!start) {
        o->err = ENOMEM;
        return;
    }
    start[0] = 0;
    for (size_t k = 0; k < ns; k++)
        start[k + 1] = start[k] + s[k].n * s[k].rec;
    const uint64_t total = start[ns];
    /* off_t must hold every offset (32-bit hosts without large files) */
    if ((uint64_t)(off_t)total != total || (off_t)total < 0) {
        strata__free(o->al, start);
        o->err = EFBIG;
        return;
    }
    const int64_t nblocks = (int64_t)((total + STRATA_OUT_BLOCK - 1) / STRATA_OUT_BLOCK);
    if (threads > nblocks)
        threads = (int)nblocks;
    if (threads < 1)
        threads = 1;
    atomic_int err;
    atomic_init(&err, 0);
    _Atomic int64_t written; /* blocks */
    atomic_init(&written, 0);
    const strata_ctx *ctx = o->ctx;
    /* Blocks are handed out in file order, so the threads' pwrite offsets
     * stay close together and the file grows almost sequentially. */
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
#ifdef _OPENMP
        const int tid = omp_get_thread_num();
#else
        const int tid = 0;
#endif
        unsigned char *buf = tid == 0 ? o->buf : strata__alloc(o->al, STRATA_OUT_BLOCK);
        if (!buf)
            first_error(&err, ENOMEM);
#pragma omp for schedule(dynamic, 1)
        for (int64_t b = 0; b < nblocks; b++) {
            if (!buf || atomic_load_explicit(&err, memory_order_relaxed) || strata__cancelled(ctx))
                continue; /* stop: the loop cannot be left early */
            const uint64_t lo = (uint64_t)b * STRATA_OUT_BLOCK;
            const uint64_t hi = total - lo < STRATA_OUT_BLOCK ? total : lo + STRATA_OUT_BLOCK;
            encode_range(s, start, ns, lo, hi, buf);
            if (pwrite_all(o->fd, buf, (size_t)(hi - lo), lo) != 0)
                first_error(&err, errno);
            const int64_t done =
                atomic_fetch_add_explicit(&written, 1, memory_order_relaxed) + 1;
            if (tid == 0) /* the calling thread: progress, which may cancel */
                strata__out_progress(o, (uint64_t)done, (uint64_t)nblocks);
        }
        if (tid != 0)
            strata__free(o->al, buf);
    }
    o->err = atomic_load(&err);
    if (strata__cancelled(ctx))
        o->cancelled = 1;
    strata__free(o->al, start);
}
