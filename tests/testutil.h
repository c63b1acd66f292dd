/* Helpers shared by the Check suites. */
#ifndef STRATA_TESTUTIL_H
#define STRATA_TESTUTIL_H

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Run one suite, return the process exit status. */
static inline int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
