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
enum { SLOT_FREE, SLOT_TAKEN, SLOT_TEMP, SLOT_COMMIT };
static struct {
    _Atomic int state;
    char path[4096];
    /* SLOT_COMMIT (a group being committed, see strata__out_group_end):
     * the destination, the old file's backup ("" when there was none),
     * and the group's flag, set once every file of it is in place */
    char dest[4096];
    char old[4096];
    const _Atomic int *done;
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
    atomic_store(&g_temps[slot].state, SLOT_TEMP);
}

static void temp_unpublish(int slot)
{
    if (slot >= 0)
        atomic_store(&g_temps[slot].state, SLOT_TAKEN);
}

static void temp_release(int slot)
{
    if (slot >= 0)
        atomic_store(&g_temps[slot].state, SLOT_FREE);
}

/* A slot of a group being committed: before the group's flag is set,
 * put every destination back as it was (the old file from its backup, or
 * no file), after it drop the backups. */
static void temp_undo(int i)
{
    const int done = atomic_load(g_temps[i].done);
    if (!done) {
        if (g_temps[i].old[0])
            rename(g_temps[i].old, g_temps[i].dest); /* a no-op if not renamed yet */
        else
            unlink(g_temps[i].dest);
    }
    if (g_temps[i].old[0])
        unlink(g_temps[i].old);
    unlink(g_temps[i].path); /* still there if not renamed */
}

void strata_remove_temporaries(void)
{
    for (int i = 0; i < TEMP_SLOTS; i++) {
        const int st = atomic_load(&g_temps[i].state);
        if (st == SLOT_TEMP)
            unlink(g_temps[i].path);
        else if (st == SLOT_COMMIT)
            temp_undo(i);
    }
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

/* The next candidate temporary name of path into tmp (stem bytes of
 * path, ".tmp", 6 characters): a splitmix64 step of *seed, so that
 * threads and retries get distinct names. */
static void temp_name(char *tmp, const char *path, size_t stem, uint64_t *seed)
{
    static _Atomic unsigned counter;
    uint64_t z = *seed += 0x9e3779b97f4a7c15u + counter++;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    memcpy(tmp, path, stem);
    memcpy(tmp + stem, ".tmp", 4);
    for (int i = 0; i < 6; i++, z /= 36)
        tmp[stem + 4 + i] = tmp_digits[z % 36];
    tmp[stem + TMP_SUFFIX] = '\0';
}

/* The bytes of path before ".tmpXXXXXX" in its temporaries' names. */
static size_t temp_stem(const char *path)
{
    const char *slash = strrchr(path, '/');
    const size_t base = slash ? (size_t)(slash + 1 - path) : 0;
    return base + tmp_stem(strlen(path) - base);
}

static uint64_t temp_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)getpid() << 32 ^ (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 20;
}

/* Create PATH.tmpXXXXXX exclusively.  Not mkstemp: it makes files 0600, and
 * widening that needs the process umask, which can only be read by setting
 * it (a race with other threads).  open(O_EXCL, 0644) lets the kernel apply
 * the umask itself. */
int strata__out_open(strata_out *o, const char *path, strata_ctx *ctx)
{
    const strata_allocator *al = &ctx->alloc;
    memset(o, 0, sizeof *o);
    o->ctx = ctx;
    o->al = al;
    o->fd = o->hold = o->slot = -1;
    const size_t stem = temp_stem(path);
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
    uint64_t seed = temp_seed();
    o->slot = temp_take();
    for (int attempt = 0; attempt < 100; attempt++) {
        temp_name(o->tmp, path, stem, &seed);
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

/* ------------------------------------------------ groups of outputs
 *
 * While a context has a group (strata__out_group_begin), a finished
 * output is not renamed into place but handed to the group, still under
 * its temporary name and locked; strata__out_group_end renames them all,
 * or removes them all.  Each existing destination is first given a
 * backup (a hard link under a temporary name of its own, or, where the
 * file system has no hard links, the file itself renamed there), so that
 * a rename that fails half-way puts every destination back.  The slots
 * of the files being committed tell strata_remove_temporaries (a second
 * Ctrl-C, SIGQUIT) how to undo them too. */
typedef struct group_file {
    char *tmp, *dest;
    char *old;  /* the backup's name, NULL when dest did not exist */
    int backup; /* 0 none, 1 linked, 2 dest itself moved to old */
    int renamed;
    int hold, slot; /* as in strata_out: the lock, the signal slot */
    int tag;        /* the group's tag when the file was added */
} group_file;

struct strata_out_group {
    group_file *f;
    size_t n, cap;
    char **dirs; /* temporary directories to remove once empty */
    size_t ndirs;
    int tag;
    _Atomic int done; /* every file is in place: keep them */
};

strata_status strata__out_group_begin(strata_ctx *ctx)
{
    strata_out_group *g = strata__alloc(&ctx->alloc, sizeof *g);
    if (!g)
        return STRATA_ERR_NOMEM;
    memset(g, 0, sizeof *g);
    atomic_init(&g->done, 0);
    ctx->group = g;
    return STRATA_OK;
}

void strata__out_group_tag(strata_ctx *ctx, int tag)
{
    if (ctx->group)
        ctx->group->tag = tag;
}

static char *dup_str(const strata_allocator *al, const char *s)
{
    const size_t n = strlen(s) + 1;
    char *d = strata__alloc(al, n);
    return d ? memcpy(d, s, n) : NULL;
}

/* A new file of the group, tmp and dest copied: NULL when out of memory. */
static group_file *group_push(strata_ctx *ctx, const char *tmp, const char *dest)
{
    strata_out_group *g = ctx->group;
    const strata_allocator *al = &ctx->alloc;
    if (g->n == g->cap) {
        const size_t cap = g->cap ? 2 * g->cap : 8;
        group_file *f = strata__alloc_array(al, cap, sizeof *f);
        if (!f)
            return NULL;
        if (g->n)
            memcpy(f, g->f, g->n * sizeof *f);
        strata__free(al, g->f);
        g->f = f;
        g->cap = cap;
    }
    group_file *f = &g->f[g->n];
    memset(f, 0, sizeof *f);
    f->hold = f->slot = -1;
    f->tag = g->tag;
    f->tmp = dup_str(al, tmp);
    f->dest = dup_str(al, dest);
    if (!f->tmp || !f->dest) {
        strata__free(al, f->tmp);
        strata__free(al, f->dest);
        return NULL;
    }
    g->n++;
    return f;
}

/* o's finished temporary, its lock and its slot go to the group. */
static void group_add(strata_out *o, const char *path)
{
    group_file *f = group_push(o->ctx, o->tmp, path);
    if (!f) {
        o->err = ENOMEM;
        return;
    }
    f->hold = o->hold;
    f->slot = o->slot;
    o->hold = o->slot = -1;
    strata__free(o->al, o->tmp);
    o->tmp = NULL; /* the group's now */
}

int strata__out_group_file(strata_ctx *ctx, const char *tmp, const char *dest)
{
    if (!group_push(ctx, tmp, dest)) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

int strata__out_group_dir(strata_ctx *ctx, const char *dir)
{
    strata_out_group *g = ctx->group;
    char **d = strata__alloc_array(&ctx->alloc, g->ndirs + 1, sizeof *d);
    char *s = d ? dup_str(&ctx->alloc, dir) : NULL;
    if (!s) {
        strata__free(&ctx->alloc, d);
        errno = ENOMEM;
        return -1;
    }
    if (g->ndirs)
        memcpy(d, g->dirs, g->ndirs * sizeof *d);
    strata__free(&ctx->alloc, g->dirs);
    d[g->ndirs++] = s;
    g->dirs = d;
    return 0;
}

/* Copy s into a slot's field: 0, or -1 when it does not fit. */
static int slot_set(char *field, const char *s)
{
    const size_t n = strlen(s);
    if (n >= sizeof g_temps[0].path)
        return -1;
    memcpy(field, s, n + 1);
    return 0;
}

/* Back up f's destination if it exists: 0, or -1 with errno. */
static int group_backup(const strata_allocator *al, group_file *f, const _Atomic int *done)
{
    struct stat sb;
    if (lstat(f->dest, &sb) != 0)
        return errno == ENOENT ? 0 : -1;
    if (S_ISDIR(sb.st_mode)) /* made since the file was opened */
        return errno = EISDIR, -1;
    const size_t stem = temp_stem(f->dest);
    if (!(f->old = strata__alloc(al, stem + TMP_SUFFIX + 1))) {
        errno = ENOMEM;
        return -1;
    }
    uint64_t seed = temp_seed();
    for (int attempt = 0; attempt < 100; attempt++) {
        temp_name(f->old, f->dest, stem, &seed);
        /* the handler must know the backup before it exists */
        const int s = f->slot;
        if (s >= 0 && (slot_set(g_temps[s].dest, f->dest) || slot_set(g_temps[s].old, f->old)))
            return errno = ENAMETOOLONG, -1;
        if (s >= 0) {
            g_temps[s].done = done;
            atomic_store(&g_temps[s].state, SLOT_COMMIT);
        }
        if (link(f->dest, f->old) == 0) {
            f->backup = 1;
            return 0;
        }
        if (errno == EEXIST)
            continue;
        /* no hard links here (or too many): move the file itself aside */
        if (rename(f->dest, f->old) == 0) {
            f->backup = 2;
            return 0;
        }
        break;
    }
    if (f->slot >= 0)
        atomic_store(&g_temps[f->slot].state, SLOT_TEMP);
    return -1;
}

/* Rename f into place: 0, or -1 with errno. */
static int group_place(const strata_allocator *al, group_file *f, const _Atomic int *done)
{
    if (group_backup(al, f, done) != 0)
        return -1;
    if (!f->old && f->slot >= 0 && slot_set(g_temps[f->slot].dest, f->dest) == 0) {
        g_temps[f->slot].old[0] = '\0';
        g_temps[f->slot].done = done;
        atomic_store(&g_temps[f->slot].state, SLOT_COMMIT);
    }
    if (rename(f->tmp, f->dest) != 0)
        return -1;
    f->renamed = 1;
    return 0;
}

/* Put f's destination back as it was. */
static void group_undo(group_file *f)
{
    if (f->renamed || f->backup == 2) {
        if (f->old && f->backup)
            rename(f->old, f->dest);
        else if (f->renamed)
            unlink(f->dest);
    }
    if (f->old && f->backup == 1)
        unlink(f->old); /* still a second name of the old file */
}

/* Rename every file of g into place, or none: 0, or -1 with errno and
 * *tag the tag of the file that failed. */
static int group_commit(strata_ctx *ctx, strata_out_group *g, int *tag)
{
    size_t i = 0;
    for (; i < g->n; i++)
        if (group_place(&ctx->alloc, &g->f[i], &g->done) != 0)
            break;
    if (i < g->n) {
        const int err = errno;
        *tag = g->f[i].tag;
        for (size_t k = i + 1; k-- > 0;)
            group_undo(&g->f[k]);
        errno = err;
        return -1;
    }
    atomic_store(&g->done, 1);
    int r = 0, err = 0;
    for (i = 0; i < g->n; i++) {
        if (g->f[i].old)
            unlink(g->f[i].old);
        if (!ctx->no_sync && r == 0 && sync_dir(g->f[i].dest) != 0) {
            r = -1;
            err = errno;
            *tag = g->f[i].tag;
        }
    }
    errno = err;
    return r;
}

strata_status strata__out_group_end(strata_ctx *ctx, int commit, int *tag)
{
    strata_out_group *g = ctx->group;
    if (!g)
        return STRATA_OK;
    ctx->group = NULL;
    const int saved = errno;
    strata_status st = STRATA_OK;
    if (commit && strata__cancelled(ctx))
        st = STRATA_ERR_CANCELLED;
    else if (commit && group_commit(ctx, g, tag) != 0)
        st = errno == ENOMEM ? STRATA_ERR_NOMEM : STRATA_ERR_IO;
    const int err = st == STRATA_OK ? saved : errno;
    for (size_t i = 0; i < g->n; i++) {
        group_file *f = &g->f[i];
        if (!f->renamed)
            unlink(f->tmp);
        temp_release(f->slot);
        if (f->hold >= 0)
            close(f->hold);
        strata__free(&ctx->alloc, f->tmp);
        strata__free(&ctx->alloc, f->dest);
        strata__free(&ctx->alloc, f->old);
    }
    for (size_t i = 0; i < g->ndirs; i++) {
        rmdir(g->dirs[i]);
        strata__free(&ctx->alloc, g->dirs[i]);
    }
    strata__free(&ctx->alloc, g->dirs);
    strata__free(&ctx->alloc, g->f);
    strata__free(&ctx->alloc, g);
    errno = commit ? err : saved;
    return st;
}

/* Move the finished temporary file onto path (or, in a group, hand it
 * to the group). */
void strata__out_commit(strata_out *o, const char *path)
{
    if (!o->err && o->ctx->group) {
        group_add(o, path);
        return;
    }
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
