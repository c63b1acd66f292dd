/* Helpers shared by the Check suites. */
#ifndef STRATA_TESTUTIL_H
#define STRATA_TESTUTIL_H

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strata.h"

/* Assert a strata call returned STRATA_OK, printing the status string. */
#define ck_assert_ok(expr)                                                     \
    do {                                                                       \
        strata_status st_ = (expr);                                            \
        ck_assert_msg(st_ == STRATA_OK, "%s -> %s", #expr,                     \
                      strata_status_str(st_));                                 \
    } while (0)

/* Assert a call returned a given status. */
#define ck_assert_status(expr, want)                                           \
    do {                                                                       \
        strata_status st_ = (expr);                                            \
        ck_assert_msg(st_ == (want), "%s -> %s, expected %s", #expr,           \
                      strata_status_str(st_), strata_status_str(want));        \
    } while (0)

/* For inner loops: Check records every passing ck_assert with a write(2),
 * which makes million-element loops crawl; this only calls Check when the
 * condition fails. */
#define require(cond, ...)                                                     \
    do {                                                                       \
        if (!(cond))                                                           \
            ck_abort_msg(__VA_ARGS__);                                         \
    } while (0)

/* require() with the expression as the message. */
#define require_true(cond) require(cond, "%s", #cond)

/* Comparisons that say what failed and both values, e.g.
 *     require_eq(v.nverts, want);  ->  "v.nverts == want: 10 vs 12"
 * The operands are compared as written (C's usual conversions) and printed
 * by type: integers in decimal, floating point with %.9g.  On failure they
 * are evaluated again to be printed: no side effects in them. */
static inline void tu_fmt_i_(char *buf, long long v) { snprintf(buf, 32, "%lld", v); }
static inline void tu_fmt_u_(char *buf, unsigned long long v) { snprintf(buf, 32, "%llu", v); }
static inline void tu_fmt_f_(char *buf, long double v) { snprintf(buf, 32, "%.9Lg", v); }
#define TU_FMT_(buf, v)                                                        \
    _Generic((v) + 0,                                                          \
        int: tu_fmt_i_, long: tu_fmt_i_, long long: tu_fmt_i_,                 \
        unsigned: tu_fmt_u_, unsigned long: tu_fmt_u_,                         \
        unsigned long long: tu_fmt_u_,                                         \
        float: tu_fmt_f_, double: tu_fmt_f_, long double: tu_fmt_f_)(buf, v)
#define require_cmp_(a, op, b)                                                 \
    do {                                                                       \
        if (!((a)op(b))) {                                                     \
            char a_[32], b_[32];                                               \
            TU_FMT_(a_, a);                                                    \
            TU_FMT_(b_, b);                                                    \
            ck_abort_msg("%s %s %s: %s vs %s", #a, #op, #b, a_, b_);          \
        }                                                                      \
    } while (0)
#define require_eq(a, b) require_cmp_(a, ==, b)
#define require_ne(a, b) require_cmp_(a, !=, b)
#define require_lt(a, b) require_cmp_(a, <, b)
#define require_le(a, b) require_cmp_(a, <=, b)
#define require_gt(a, b) require_cmp_(a, >, b)
#define require_ge(a, b) require_cmp_(a, >=, b)

/* ------------------------------------------------ contexts */

/* A context with the given thread count (0: the default) and allocator
 * (NULL: the library's). */
static inline strata_ctx *ctx_new_with(int threads, const strata_allocator *al)
{
    strata_ctx_options o;
    strata_ctx_defaults(&o);
    o.threads = threads;
    o.allocator = al;
    strata_ctx *ctx = NULL;
    ck_assert_ok(strata_ctx_create(&o, &ctx));
    return ctx;
}

static inline strata_ctx *ctx_new(int threads) { return ctx_new_with(threads, NULL); }

/* ------------------------------------------------ a counting allocator */

/* An allocator hook for tests: counts calls and live blocks, records the
 * biggest request, and refuses a request over `limit` bytes (0: no
 * limit) or the call numbered `fail_at` (from 0; -1: none).  Thread-safe:
 * the slicer's arenas allocate from worker threads. */
typedef struct test_alloc {
    long fail_at;
    size_t limit;
    _Atomic long count;     /* calls */
    _Atomic long live;      /* blocks not yet freed */
    _Atomic size_t biggest; /* largest request */
} test_alloc;

static inline void *test_alloc_fn_(void *user, size_t size, size_t align)
{
    test_alloc *t = user;
    size_t big = atomic_load(&t->biggest);
    while (size > big && !atomic_compare_exchange_weak(&t->biggest, &big, size)) {
    }
    const long n = atomic_fetch_add(&t->count, 1);
    if ((t->limit && size > t->limit) || n == t->fail_at)
        return NULL;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1))
        return NULL;
    atomic_fetch_add(&t->live, 1);
    return p;
}

static inline void test_alloc_free_(void *user, void *p)
{
    test_alloc *t = user;
    atomic_fetch_sub(&t->live, 1);
    free(p);
}

/* Reset the counters: no limit, no failing call. */
static inline void test_alloc_init(test_alloc *t)
{
    t->fail_at = -1;
    t->limit = 0;
    atomic_init(&t->count, 0);
    atomic_init(&t->live, 0);
    atomic_init(&t->biggest, 0);
}

static inline strata_allocator test_alloc_hook(test_alloc *t)
{
    return (strata_allocator){test_alloc_fn_, test_alloc_free_, t};
}

/* test_alloc_init(t), then a context allocating through t (the context
 * itself is one live block). */
static inline strata_ctx *ctx_new_counting(int threads, test_alloc *t)
{
    test_alloc_init(t);
    const strata_allocator al = test_alloc_hook(t);
    return ctx_new_with(threads, &al);
}

/* ------------------------------------------------ writing */

/* strata_result_write in the given format (STRATA_FORMAT_AUTO: from the
 * name) with the default palette. */
static inline strata_status write_as(strata_ctx *ctx, const strata_result *r, const char *path,
                                     strata_format format)
{
    strata_write_options o;
    strata_write_defaults(&o);
    o.format = format;
    return strata_result_write(ctx, r, path, &o);
}

/* ------------------------------------------------ slicing */

/* Slice options with the given fields, the others at their defaults. */
static inline strata_slice_options slice_options(const float *levels, uint32_t n,
                                                 strata_walls walls, int normals, int areas)
{
    strata_slice_options o;
    strata_slice_defaults(&o);
    o.levels = levels;
    o.nlevels = n;
    o.walls = walls;
    o.normals = normals;
    o.areas = areas;
    return o;
}

/* ------------------------------------------------ meshes */

/* Interleaved copies of a mesh's positions (3 floats a vertex) and
 * triangles (3 ids), malloc'ed: the form strata_mesh_create takes, for
 * tests that rebuild a mesh with changed positions. */
static inline void mesh_arrays(const strata_mesh *m, float **xyz, uint32_t **tri)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    *xyz = malloc(sizeof(float) * 3 * (v.nverts ? v.nverts : 1));
    *tri = malloc(sizeof(uint32_t) * 3 * (v.ntris ? v.ntris : 1));
    ck_assert(*xyz && *tri);
    for (uint32_t i = 0; i < v.nverts; i++) {
        (*xyz)[3 * (size_t)i] = v.x[i];
        (*xyz)[3 * (size_t)i + 1] = v.y[i];
        (*xyz)[3 * (size_t)i + 2] = v.z[i];
    }
    for (uint32_t t = 0; t < v.ntris; t++) {
        (*tri)[3 * (size_t)t] = v.a[t];
        (*tri)[3 * (size_t)t + 1] = v.b[t];
        (*tri)[3 * (size_t)t + 2] = v.c[t];
    }
}

/* ------------------------------------------------ temporary files */

/* A fresh directory under /tmp (free with tmpdir_remove). */
static inline char *tmpdir_new(void)
{
    char tmpl[] = "/tmp/strata-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    return strdup(tmpl);
}

/* Entries of d, and (when temps is not NULL) how many look like a
 * writer's temporary file left behind. */
static inline int dir_entries(const char *d, int *temps)
{
    DIR *dir = opendir(d);
    ck_assert_ptr_nonnull(dir);
    int n = 0;
    if (temps)
        *temps = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        n++;
        if (temps)
            *temps += strstr(e->d_name, ".tmp") != NULL;
    }
    closedir(dir);
    return n;
}

/* A FIFO named name in d (path malloc'ed) that nothing writes to: a
 * reader that opens or reads it blocks forever.  Also arms a 10 s alarm,
 * so such a reader fails the test (SIGALRM) rather than hang it; disarm
 * it with alarm(0) once done (a suite may run with CK_FORK=no). */
static inline char *fifo_new(const char *d, const char *name)
{
    const size_t n = strlen(d) + strlen(name) + 2;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/%s", d, name);
    ck_assert_msg(mkfifo(p, 0600) == 0, "mkfifo %s: %s", p, strerror(errno));
    alarm(10);
    return p;
}

/* Remove d and the files in it, and free the name. */
static inline void tmpdir_remove(char *d)
{
    DIR *dir = opendir(d);
    if (dir) {
        char path[4096];
        for (struct dirent *e; (e = readdir(dir));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            snprintf(path, sizeof path, "%s/%s", d, e->d_name);
            unlink(path);
        }
        closedir(dir);
    }
    rmdir(d);
    free(d);
}

/* "d/name", malloc'ed. */
static inline char *join(const char *d, const char *name)
{
    size_t n = strlen(d) + strlen(name) + 2;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/%s", d, name);
    return p;
}

/* A whole file, NUL-terminated, malloc'ed; its length in *len. */
static inline unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap + 1);
    for (size_t got; (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap)
            buf = realloc(buf, (cap *= 2) + 1);
        ck_assert_ptr_nonnull(buf);
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* qsort/bsearch order of uint64_t keys. */
static inline int cmp_u64(const void *pa, const void *pb)
{
    const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Two results hold the same bytes: counts, geometry, positions, indices,
 * the terrace table, normals, the water's and shoreline's ranges and
 * texture coordinates. */
static inline void same_result(const strata_result *ra, const strata_result *rb, const char *what)
{
    strata_result_view a, b;
    strata_result_get_view(ra, &a);
    strata_result_get_view(rb, &b);
    require(a.nverts == b.nverts && a.nindices == b.nindices && a.nterraces == b.nterraces &&
                a.walls == b.walls && a.geometry == b.geometry && a.radius == b.radius &&
                !memcmp(a.center, b.center, sizeof a.center) && (a.nx == NULL) == (b.nx == NULL),
            "%s: %u/%u vertices, %llu/%llu indices, %u/%u terraces, normals %d/%d", what,
            a.nverts, b.nverts, (unsigned long long)a.nindices, (unsigned long long)b.nindices,
            a.nterraces, b.nterraces, a.nx != NULL, b.nx != NULL);
    require(!memcmp(a.x, b.x, sizeof(float) * a.nverts) &&
                !memcmp(a.y, b.y, sizeof(float) * a.nverts) &&
                !memcmp(a.z, b.z, sizeof(float) * a.nverts) &&
                !memcmp(a.indices, b.indices, sizeof(uint32_t) * a.nindices) &&
                !memcmp(a.terraces, b.terraces, sizeof(strata_terrace) * a.nterraces),
            "%s: the bytes differ", what);
    if (a.nx)
        require(!memcmp(a.nx, b.nx, sizeof(float) * a.nverts) &&
                    !memcmp(a.ny, b.ny, sizeof(float) * a.nverts) &&
                    !memcmp(a.nz, b.nz, sizeof(float) * a.nverts),
                "%s: the normals differ", what);
    require(a.water_first == b.water_first && a.water_count == b.water_count &&
                a.shore_first == b.shore_first && a.shore_count == b.shore_count &&
                a.uv_first == b.uv_first && a.nuv == b.nuv &&
                (!a.nuv || !memcmp(a.uv, b.uv, 2 * sizeof(float) * a.nuv)),
            "%s: the water or shoreline differs", what);
}

/* Run one suite, return the process exit status. */
static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* Solid angle of a triangle seen from the origin (Van Oosterom-Strackee). */
static inline double solid_angle(const double a[3], const double b[3], const double c[3])
{
    const double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    const double lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    const double lc = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    const double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                       a[2] * (b[0] * c[1] - b[1] * c[0]);
    const double ab = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    const double bc = b[0] * c[0] + b[1] * c[1] + b[2] * c[2];
    const double ca = c[0] * a[0] + c[1] * a[1] + c[2] * a[2];
    return 2.0 * atan2(det, la * lb * lc + ab * lc + bc * la + ca * lb);
}

#endif
