/* Writing results: binary little-endian PLY and Wavefront OBJ + MTL.
 *
 * Every file goes to a fresh temporary name beside its destination and is
 * renamed over it only once complete, so a failure (disk full, a bad
 * directory, ...) never leaves a partial file and never touches an existing
 * one.  Output is assembled in 1 MiB blocks and handed to write(2) whole:
 * per-number stdio calls would cap the PLY writer far below disk speed. */
#define _POSIX_C_SOURCE 200809L

#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

#define BUF_SIZE (1u << 20)
/* Longest OBJ line: "vn " + 3 * (%.9g of a float: at most 15 chars + a
 * space), or a face line with normals: "f" + 3 * " u32//u32". */
#define LINE_MAX_BYTES 96

/* ------------------------------------------------------------ output file */

typedef struct out {
    const strata_allocator *al;
    char *tmp; /* temporary path, NULL when none was created */
    int fd;    /* -1 when closed */
    unsigned char *buf;
    size_t len;
    int err; /* errno of the first failure, 0 while all is well */
} out;

/* Create PATH.tmpXXXXXX exclusively.  Not mkstemp: it makes files 0600, and
 * widening that needs the process umask, which can only be read by setting
 * it (a race with other threads).  open(O_EXCL, 0644) lets the kernel apply
 * the umask itself. */
static int out_open(out *o, const char *path, const strata_allocator *al)
{
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    static _Atomic unsigned counter;
    memset(o, 0, sizeof *o);
    o->al = al;
    o->fd = -1;
    const size_t n = strlen(path);
    o->tmp = strata__alloc(al, n + sizeof ".tmpXXXXXX");
    o->buf = strata__alloc(al, BUF_SIZE);
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

static void out_flush(out *o)
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

/* Room for at least n more bytes (n <= BUF_SIZE): the write position. */
static inline unsigned char *out_room(out *o, size_t n)
{
    if (BUF_SIZE - o->len < n)
        out_flush(o);
    return o->buf + o->len;
}

static void out_bytes(out *o, const void *p, size_t n)
{
    while (n > 0) {
        size_t m = BUF_SIZE - o->len;
        if (m == 0) {
            out_flush(o);
            continue;
        }
        m = m < n ? m : n;
        memcpy(o->buf + o->len, p, m);
        o->len += m;
        p = (const unsigned char *)p + m;
        n -= m;
    }
}

static void out_str(out *o, const char *s) { out_bytes(o, s, strlen(s)); }

/* Flush and close; the file stays under its temporary name. */
static void out_finish(out *o)
{
    out_flush(o);
    if (o->fd >= 0 && close(o->fd) != 0 && !o->err)
        o->err = errno; /* NFS and quotas may report write errors only here */
    o->fd = -1;
}

/* Remove the temporary file (if any) and free everything. */
static void out_discard(out *o)
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
static void out_commit(out *o, const char *path)
{
    if (!o->err && rename(o->tmp, path) != 0)
        o->err = errno;
    if (!o->err) {
        strata__free(o->al, o->tmp);
        o->tmp = NULL; /* nothing left to remove */
    }
}

/* ------------------------------------------------------------ helpers */

/* Explicit little-endian stores: right on any host, and compilers merge
 * the byte stores into one move on little-endian ones. */
static inline unsigned char *put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
    return p + 4;
}

static inline unsigned char *put_f32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return put_u32(p, u);
}

/* Decimal digits of v, no terminator; returns the end. */
static inline char *put_dec(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* A terrace's roof or wall index range. */
typedef struct range {
    uint64_t first, count;
    int32_t terrace;
    unsigned char wall;
} range;

static int range_cmp(const void *a, const void *b)
{
    const range *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* All non-empty ranges ordered by position in the index array (the
 * layouts differ between wall modes). */
static range *sorted_ranges(const strata_result *r, size_t *n)
{
    range *rg = strata__alloc_array(&r->alloc, 2 * (size_t)r->nterraces + 1, sizeof *rg);
    if (!rg)
        return NULL;
    size_t m = 0;
    for (uint32_t k = 0; k < r->nterraces; k++) {
        const strata_terrace *t = &r->terraces[k];
        if (t->roof_count)
            rg[m++] = (range){t->roof_first, t->roof_count, (int32_t)k, 0};
        if (t->wall_count)
            rg[m++] = (range){t->wall_first, t->wall_count, (int32_t)k, 1};
    }
    qsort(rg, m, sizeof *rg, range_cmp);
    *n = m;
    return rg;
}

/* ------------------------------------------------------------ PLY */

static void ply_faces(out *o, const strata_result *r, uint64_t from, uint64_t to,
                      int32_t terrace, unsigned char wall)
{
    enum { REC = 1 + 12 + 4 + 1 };
    const uint32_t *ix = r->indices;
    for (uint64_t i = from; i + 3 <= to && !o->err;) {
        unsigned char *p = out_room(o, REC), *p0 = p;
        uint64_t m = (uint64_t)(BUF_SIZE - o->len) / REC;
        if ((to - i) / 3 < m)
            m = (to - i) / 3;
        for (uint64_t f = 0; f < m; f++, i += 3) {
            *p++ = 3;
            p = put_u32(p, ix[i]);
            p = put_u32(p, ix[i + 1]);
            p = put_u32(p, ix[i + 2]);
            p = put_u32(p, (uint32_t)terrace);
            *p++ = wall;
        }
        o->len += (size_t)(p - p0);
    }
}

static void write_ply(out *o, const strata_result *r, const range *rg, size_t nrg)
{
    const int normals = r->nx != NULL;
    char head[512];
    snprintf(head, sizeof head,
             "ply\nformat binary_little_endian 1.0\ncomment generated by strata %s\n"
             "element vertex %lu\nproperty float x\nproperty float y\nproperty float z\n%s"
             "element face %llu\nproperty list uchar uint vertex_indices\n"
             "property int terrace\nproperty uchar wall\nend_header\n",
             STRATA_VERSION, (unsigned long)r->nverts,
             normals ? "property float nx\nproperty float ny\nproperty float nz\n" : "",
             (unsigned long long)(r->nindices / 3));
    out_str(o, head);

    const size_t rec = normals ? 24 : 12;
    for (uint32_t i = 0; i < r->nverts && !o->err;) {
        unsigned char *p = out_room(o, rec), *p0 = p;
        uint32_t end = i + (uint32_t)((BUF_SIZE - o->len) / rec);
        if (end > r->nverts || end < i)
            end = r->nverts;
        if (normals) {
            for (; i < end; i++) {
                p = put_f32(p, r->x[i]);
                p = put_f32(p, r->y[i]);
                p = put_f32(p, r->z[i]);
                p = put_f32(p, r->nx[i]);
                p = put_f32(p, r->ny[i]);
                p = put_f32(p, r->nz[i]);
            }
        } else {
            for (; i < end; i++) {
                p = put_f32(p, r->x[i]);
                p = put_f32(p, r->y[i]);
                p = put_f32(p, r->z[i]);
            }
        }
        o->len += (size_t)(p - p0);
    }

    /* Faces in index order; a face outside every range (no result the
     * library makes has one) gets terrace -1. */
    uint64_t pos = 0;
    for (size_t k = 0; k < nrg; k++) {
        const uint64_t first = rg[k].first > pos ? rg[k].first : pos;
        const uint64_t end = rg[k].first + rg[k].count;
        if (first > pos)
            ply_faces(o, r, pos, first, -1, 0);
        if (end > first)
            ply_faces(o, r, first, end, rg[k].terrace, rg[k].wall);
        if (end > pos)
            pos = end;
    }
    if (pos < r->nindices)
        ply_faces(o, r, pos, r->nindices, -1, 0);
}

/* ------------------------------------------------------------ OBJ + MTL */

/* The current locale's decimal point: %g follows LC_NUMERIC, which a host
 * application may have set to a comma. */
static char decimal_point(void)
{
    const struct lconv *lc = localeconv();
    return lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point[0] : '.';
}

/* "<tag> x y z\n" for every vertex; %.9g makes each float read back
 * exactly. */
static void obj_vectors(out *o, const char *tag, const float *x, const float *y, const float *z,
                        uint32_t n)
{
    const char dp = decimal_point();
    for (uint32_t i = 0; i < n && !o->err; i++) {
        char *p = (char *)out_room(o, LINE_MAX_BYTES);
        int len = snprintf(p, LINE_MAX_BYTES, "%s %.9g %.9g %.9g\n", tag, (double)x[i],
                           (double)y[i], (double)z[i]);
        if (dp != '.')
            for (int j = 0; j < len; j++)
                p[j] = p[j] == dp ? '.' : p[j];
        o->len += (size_t)len;
    }
}

static void obj_faces(out *o, const strata_result *r, uint64_t from, uint64_t to)
{
    const int normals = r->nx != NULL;
    const uint32_t *ix = r->indices;
    for (uint64_t i = from; i + 3 <= to && !o->err; i += 3) {
        char *p = (char *)out_room(o, LINE_MAX_BYTES), *p0 = p;
        *p++ = 'f';
        for (int k = 0; k < 3; k++) {
            const uint64_t v = (uint64_t)ix[i + (uint64_t)k] + 1; /* OBJ counts from 1 */
            *p++ = ' ';
            p = put_dec(p, v);
            if (normals) {
                *p++ = '/';
                *p++ = '/';
                p = put_dec(p, v);
            }
        }
        *p++ = '\n';
        o->len += (size_t)(p - p0);
    }
}

/* Group and material names of a range: walls keep their own group only
 * when the result keeps them in ranges of their own. */
static void range_names(const strata_result *r, const range *g, char *group, char *mtl,
                        size_t size)
{
    const int sep = g->wall && r->walls == STRATA_WALLS_SEPARATE;
    snprintf(group, size, "%s_%ld", sep ? "walls" : "terrace", (long)g->terrace);
    snprintf(mtl, size, "%s_%ld", sep ? "wall" : "terrace", (long)g->terrace);
}

static void write_obj(out *o, const strata_result *r, const range *rg, size_t nrg,
                      const char *mtl_name)
{
    out_str(o, "# generated by strata " STRATA_VERSION "\nmtllib ");
    out_str(o, mtl_name);
    out_str(o, "\n");
    obj_vectors(o, "v", r->x, r->y, r->z, r->nverts);
    if (r->nx)
        obj_vectors(o, "vn", r->nx, r->ny, r->nz, r->nverts);
    char group[48], mtl[48], prev[48] = "";
    for (size_t k = 0; k < nrg && !o->err; k++) {
        range_names(r, &rg[k], group, mtl, sizeof group);
        /* roofs and walls of one terrace are adjacent without SEPARATE:
         * one group */
        if (strcmp(group, prev) != 0) {
            char line[128];
            snprintf(line, sizeof line, "g %s\nusemtl %s\n", group, mtl);
            out_str(o, line);
            memcpy(prev, group, sizeof prev);
        }
        obj_faces(o, r, rg[k].first, rg[k].first + rg[k].count);
    }
}

/* "earth" ramp from low to high: deep green, grass, sand-brown, rock,
 * grey, snow. */
static void palette(double t, double rgb[3])
{
    static const double stops[][4] = {
        {0.00, 0.16, 0.32, 0.12}, {0.30, 0.36, 0.56, 0.20}, {0.50, 0.62, 0.52, 0.30},
        {0.70, 0.48, 0.38, 0.28}, {0.85, 0.58, 0.57, 0.55}, {1.00, 0.96, 0.96, 0.98},
    };
    const size_t n = sizeof stops / sizeof stops[0];
    size_t i = 1;
    while (i < n - 1 && t > stops[i][0])
        i++;
    double u = (t - stops[i - 1][0]) / (stops[i][0] - stops[i - 1][0]);
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    for (int c = 0; c < 3; c++)
        rgb[c] = stops[i - 1][c + 1] + u * (stops[i][c + 1] - stops[i - 1][c + 1]);
}

/* A value in [0,1] with four decimals, independent of the locale. */
static char *put_unit(char *p, double v)
{
    long q = (long)(v * 10000.0 + 0.5);
    q = q < 0 ? 0 : q > 10000 ? 10000 : q;
    p = put_dec(p, (uint64_t)(q / 10000));
    *p++ = '.';
    for (long d = 1000; d; d /= 10)
        *p++ = (char)('0' + q / d % 10);
    return p;
}

static void write_mtl(out *o, const strata_result *r, const range *rg, size_t nrg)
{
    out_str(o, "# generated by strata " STRATA_VERSION "\n");
    char group[48], mtl[48], prev[48] = "";
    for (size_t k = 0; k < nrg; k++) {
        range_names(r, &rg[k], group, mtl, sizeof group);
        if (strcmp(mtl, prev) == 0)
            continue;
        memcpy(prev, mtl, sizeof prev);
        double rgb[3];
        palette(r->nterraces > 1 ? (double)rg[k].terrace / (r->nterraces - 1) : 0.3, rgb);
        const int dark = rg[k].wall && r->walls == STRATA_WALLS_SEPARATE;
        char line[160], *p = line;
        p += snprintf(p, 64, "\nnewmtl %s\nKd", mtl);
        for (int c = 0; c < 3; c++) {
            *p++ = ' ';
            p = put_unit(p, dark ? 0.6 * rgb[c] : rgb[c]);
        }
        memcpy(p, "\nKa 0 0 0\nKs 0 0 0\nillum 1\n", sizeof "\nKa 0 0 0\nKs 0 0 0\nillum 1\n");
        out_str(o, line);
    }
}

/* ------------------------------------------------------------ entry */

static int has_suffix(const char *s, const char *suffix)
{
    const size_t n = strlen(s), m = strlen(suffix);
    if (n < m)
        return 0;
    for (size_t i = 0; i < m; i++) {
        char c = s[n - m + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != suffix[i])
            return 0;
    }
    return 1;
}

strata_status strata_result_write(const strata_result *r, const char *path, strata_format format)
{
    if (!r || !path || !*path)
        return STRATA_ERR_INVALID_ARG;
    if (format == STRATA_FORMAT_AUTO)
        format = has_suffix(path, ".ply")   ? STRATA_FORMAT_PLY
                 : has_suffix(path, ".obj") ? STRATA_FORMAT_OBJ
                                            : STRATA_FORMAT_AUTO;
    if (format == STRATA_FORMAT_AUTO)
        return STRATA_ERR_FORMAT;
    if (format != STRATA_FORMAT_PLY && format != STRATA_FORMAT_OBJ)
        return STRATA_ERR_INVALID_ARG;
    if (r->nindices % 3 != 0)
        return STRATA_ERR_INVALID_ARG;

    size_t nrg = 0;
    range *rg = sorted_ranges(r, &nrg);
    if (!rg)
        return STRATA_ERR_NOMEM;
    strata_status st = STRATA_OK;
    out f = {.al = &r->alloc, .fd = -1}, m = {.al = &r->alloc, .fd = -1};
    char *mtl_path = NULL;
    int saved_errno = errno;

    if (format == STRATA_FORMAT_PLY) {
        if (out_open(&f, path, &r->alloc) != 0)
            goto io;
        write_ply(&f, r, rg, nrg);
        out_finish(&f);
        out_commit(&f, path);
        if (f.err)
            goto io;
    } else {
        /* FILE.obj -> FILE.mtl, anything else -> NAME.mtl appended */
        const size_t n = strlen(path), stem = has_suffix(path, ".obj") ? n - 4 : n;
        mtl_path = strata__alloc(&r->alloc, stem + 5);
        if (!mtl_path) {
            st = STRATA_ERR_NOMEM;
            goto done;
        }
        memcpy(mtl_path, path, stem);
        memcpy(mtl_path + stem, ".mtl", 5);
        const char *slash = strrchr(mtl_path, '/');
        if (out_open(&m, mtl_path, &r->alloc) != 0 || out_open(&f, path, &r->alloc) != 0)
            goto io;
        write_mtl(&m, r, rg, nrg);
        out_finish(&m);
        write_obj(&f, r, rg, nrg, slash ? slash + 1 : mtl_path);
        out_finish(&f);
        /* Both are complete before either is renamed; the .mtl goes first
         * so a new .obj never names materials its .mtl lacks. */
        if (m.err || f.err)
            goto io;
        out_commit(&m, mtl_path);
        if (m.err)
            goto io;
        out_commit(&f, path);
        if (f.err)
            goto io;
    }
    goto done;
io:
    st = f.err == ENOMEM || m.err == ENOMEM ? STRATA_ERR_NOMEM : STRATA_ERR_IO;
    saved_errno = m.err ? m.err : f.err;
done:
    out_discard(&m);
    out_discard(&f);
    strata__free(&r->alloc, mtl_path);
    strata__free(&r->alloc, rg);
    errno = saved_errno;
    return st;
}
