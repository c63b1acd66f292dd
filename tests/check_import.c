/* Mesh import: PLY (ASCII, binary LE/BE) and OBJ decoding, welding, up
 * axes, radial import, winding, hostile and truncated files, round trips
 * through strata's own writers; the parallel reading of binary files and
 * the edge table against the reader in order and the table's
 * definition. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "testutil.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ helpers */

/* A context whose allocator refuses blocks over 1 MiB and remembers the
 * biggest request, to prove that claimed sizes are never allocated
 * blindly. */
#define CAP_BYTES ((size_t)1 << 20)
static test_alloc g_alloc;

static strata_ctx *capped_ctx(void)
{
    strata_ctx *ctx = ctx_new_counting(1, &g_alloc);
    g_alloc.limit = CAP_BYTES;
    return ctx;
}

/* A growing byte buffer. */
typedef struct buf {
    unsigned char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

/* PLY bodies written in one of three formats: binary values of a given
 * size in either byte order, or ASCII tokens. */
enum { F_ASCII, F_LE, F_BE };
typedef struct plyw {
    buf b;
    int fmt;
    int first; /* no separator before the first token of a line */
} plyw;

static void w_bytes(plyw *w, uint64_t v, unsigned n)
{
    unsigned char tmp[8];
    for (unsigned i = 0; i < n; i++)
        tmp[w->fmt == F_BE ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
    put(&w->b, tmp, n);
}

static void w_text(plyw *w, const char *s)
{
    if (!w->first)
        puts_(&w->b, " ");
    w->first = 0;
    puts_(&w->b, s);
}

static void w_int(plyw *w, int64_t v, unsigned size)
{
    if (w->fmt != F_ASCII) {
        w_bytes(w, (uint64_t)v, size);
        return;
    }
    char s[32];
    snprintf(s, sizeof s, "%lld", (long long)v);
    w_text(w, s);
}

static void w_float(plyw *w, float f)
{
    if (w->fmt != F_ASCII) {
        uint32_t u;
        memcpy(&u, &f, 4);
        w_bytes(w, u, 4);
        return;
    }
    char s[64];
    snprintf(s, sizeof s, "%.9g", (double)f);
    w_text(w, s);
}

static void w_double(plyw *w, double d)
{
    if (w->fmt != F_ASCII) {
        uint64_t u;
        memcpy(&u, &d, 8);
        w_bytes(w, u, 8);
        return;
    }
    char s[64];
    snprintf(s, sizeof s, "%.17g", d);
    w_text(w, s);
}

static void w_eol(plyw *w)
{
    if (w->fmt == F_ASCII)
        puts_(&w->b, "\n");
    w->first = 1;
}

static const char *const fmt_names[] = {"ascii", "binary_little_endian", "binary_big_endian"};

/* The reference quad: four vertices (x, y, z) and the quad 0 3 2 1 (two
 * fan triangles, counter-clockwise from above) plus a degenerate face.  x
 * is float, y double, z short, between other properties; an element with
 * lists before the vertices and one after the faces. */
static const float QX[4] = {0, 1, 1, 0}, QY[4] = {0, 0.5f, 0.25f, -1.5f}, QZ[4] = {0, 0, 1, 1};
static const uint32_t QTRIS[6] = {0, 3, 2, 0, 2, 1};

static buf quad_ply(int fmt)
{
    plyw w = {{NULL, 0, 0}, fmt, 1};
    char head[1024];
    snprintf(head, sizeof head,
             "ply\nformat %s 1.0\ncomment made by check_import\nobj_info nothing\n"
             "element material 2\nproperty list uchar float rgb\nproperty uchar id\n"
             "element vertex 4\nproperty uchar red\nproperty float x\nproperty int junk\n"
             "property double y\nproperty list uchar short extras\nproperty short z\n"
             "element face 2\nproperty uchar flags\nproperty list uchar int vertex_indices\n"
             "property list ushort float texcoord\n"
             "element edge 1\nproperty int vertex1\nproperty int vertex2\nend_header\n",
             fmt_names[fmt]);
    puts_(&w.b, head);
    for (int i = 0; i < 2; i++) { /* material */
        w_int(&w, 3, 1);
        for (int k = 0; k < 3; k++)
            w_float(&w, 0.25f * (float)k);
        w_int(&w, i, 1);
        w_eol(&w);
    }
    for (int i = 0; i < 4; i++) { /* vertex */
        w_int(&w, 200 + i, 1);
        w_float(&w, QX[i]);
        w_int(&w, -7 * i, 4);
        w_double(&w, (double)QY[i]);
        w_int(&w, i % 3, 1);
        for (int k = 0; k < i % 3; k++)
            w_int(&w, -k, 2);
        w_int(&w, (int64_t)QZ[i], 2);
        w_eol(&w);
    }
    static const int faces[2][5] = {{4, 0, 3, 2, 1}, {3, 1, 1, 2, 0}};
    for (int f = 0; f < 2; f++) { /* face */
        w_int(&w, 9, 1);
        w_int(&w, faces[f][0], 1);
        for (int k = 0; k < faces[f][0]; k++)
            w_int(&w, faces[f][1 + k], 4);
        w_int(&w, 2, 2);
        w_float(&w, 0.5f);
        w_float(&w, 0.75f);
        w_eol(&w);
    }
    w_int(&w, 0, 4); /* edge */
    w_int(&w, 3, 4);
    w_eol(&w);
    return w.b;
}

static void expect_quad(const strata_mesh *m)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    ck_assert_uint_eq(v.nverts, 4);
    ck_assert_uint_eq(v.ntris, 2);
    ck_assert_int_eq(v.geometry, STRATA_FLAT);
    for (int i = 0; i < 4; i++) {
        require(v.x[i] == QX[i] && v.y[i] == QY[i] && v.z[i] == QZ[i] && v.h[i] == QY[i],
                "vertex %d is (%g %g %g)", i, (double)v.x[i], (double)v.y[i], (double)v.z[i]);
    }
    for (int t = 0; t < 2; t++)
        require(v.a[t] == QTRIS[3 * t] && v.b[t] == QTRIS[3 * t + 1] && v.c[t] == QTRIS[3 * t + 2],
                "triangle %d is %u %u %u", t, v.a[t], v.b[t], v.c[t]);
}

static strata_status decode(strata_ctx *ctx, const void *d, size_t n,
                            const strata_import_options *o, strata_import_report *rep,
                            strata_mesh **m)
{
    return strata_mesh_decode(ctx, d, n, o, rep, m);
}

static strata_status decode_str(strata_ctx *ctx, const char *s, const strata_import_options *o,
                                strata_import_report *rep, strata_mesh **m)
{
    return strata_mesh_decode(ctx, s, strlen(s), o, rep, m);
}

/* A scratch directory for file tests. */
static char g_dir[256];
static const char *scratch(const char *name)
{
    static char path[512];
    if (!g_dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(g_dir, sizeof g_dir, "%s/check_import.XXXXXX", t && *t ? t : "/tmp");
        ck_assert_ptr_nonnull(mkdtemp(g_dir));
    }
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    return path;
}

/* Remove the (emptied) scratch directory. */
static void scratch_done(void)
{
    if (g_dir[0])
        rmdir(g_dir);
    g_dir[0] = '\0';
}

/* ------------------------------------------------------------ PLY */

START_TEST(test_ply_formats)
{
    strata_import_report rep;
    static const strata_import_format want[] = {STRATA_IMPORT_PLY_ASCII, STRATA_IMPORT_PLY_LE,
                                                STRATA_IMPORT_PLY_BE};
    strata_ctx *ctx = capped_ctx();
    buf b = quad_ply(_i);
    strata_import_options o;
    strata_import_defaults(&o);
    memset(&rep, 0xab, sizeof rep);
    strata_mesh *m;
    ck_assert_ok(decode(ctx, b.p, b.n, &o, &rep, &m));
    expect_quad(m);
    ck_assert_int_eq(rep.format, want[_i]);
    ck_assert_uint_eq(rep.dropped, 1);
    ck_assert_uint_eq(rep.welded, 0);
    ck_assert_int_eq(rep.flipped, 0);
    strata_mesh_destroy(m);
    /* NULL options: the defaults; NULL report: none */
    ck_assert_ok(decode(ctx, b.p, b.n, NULL, NULL, &m));
    expect_quad(m);
    strata_mesh_destroy(m);
    /* a failed call leaves the report alone */
    strata_import_report before;
    memset(&rep, 0xab, sizeof rep);
    memcpy(&before, &rep, sizeof rep);
    ck_assert_status(decode(ctx, b.p, 3, &o, &rep, &m), STRATA_ERR_TRUNCATED);
    ck_assert(memcmp(&before, &rep, sizeof rep) == 0);
    /* CRLF after the magic */
    if (_i != F_ASCII) {
        buf c = {NULL, 0, 0};
        puts_(&c, "ply\r\n");
        put(&c, b.p + 4, b.n - 4);
        ck_assert_ok(decode(ctx, c.p, c.n, NULL, NULL, &m));
        expect_quad(m);
        strata_mesh_destroy(m);
        free(c.p);
    }
    free(b.p);
    strata_ctx_destroy(ctx);
}
END_TEST

/* vertex_index spelling, integer coordinates, elements after the faces
 * first, a face element before the vertices. */
START_TEST(test_ply_variants)
{
    strata_ctx *ctx = capped_ctx();
    strata_mesh *m;
    ck_assert_ok(decode_str(ctx,
                            "ply\nformat ascii 1.0\n"
                            "element face 1\nproperty list uint8 uint32 vertex_index\n"
                            "element vertex 3\nproperty int8 z\nproperty uint16 y\n"
                            "property int32 x\n\nend_header\n"
                            "3 0 1 2\n"
                            "0 5 0\n1 6 0\n0 7 1\n",
                            NULL, NULL, &m));
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    ck_assert_uint_eq(v.nverts, 3);
    ck_assert_uint_eq(v.ntris, 1);
    ck_assert(v.x[2] == 1 && v.y[2] == 7 && v.z[1] == 1);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_ply_bad_header)
{
    static const struct { const char *text; strata_status want; } cases[] = {
        {"ply\nformat ascii 2.0\nend_header\n", STRATA_ERR_FORMAT},
        {"ply\nformat binary 1.0\nend_header\n", STRATA_ERR_FORMAT},
        {"ply\nend_header\n", STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nformat ascii 1.0\nend_header\n", STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nproperty float x\nend_header\n", STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float128 x\nend_header\n0\n",
         STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
         "end_header\n0 0\n", STRATA_ERR_FORMAT}, /* no z */
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float x\n"
         "property float y\nproperty float z\nend_header\n0 0 0 0\n", STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty list uchar float x\n"
         "property float y\nproperty float z\nend_header\n1 0 0 0\n", STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nelement face 1\nproperty list float int vertex_indices\n"
         "end_header\n3 0 1 2\n", STRATA_ERR_FORMAT}, /* float count */
        {"ply\nformat ascii 1.0\nelement face 1\nproperty list uchar float vertex_indices\n"
         "end_header\n3 0 1 2\n", STRATA_ERR_FORMAT}, /* float indices */
        {"ply\nformat ascii 1.0\nelement face 1\nproperty int vertex_indices\n"
         "end_header\n3\n", STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nelement face 0\nproperty uchar flags\nend_header\n",
         STRATA_ERR_FORMAT}, /* face without indices */
        {"ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\n"
         "property float z\nelement vertex 0\nend_header\n", STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nelement vertex -1\nend_header\n", STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nelement vertex 99999999999999999999\nend_header\n",
         STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nfrobnicate\nend_header\n", STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nend_header extra\n", STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
         "property float z\nend_header\n1 2 3\n", STRATA_ERR_BAD_MESH}, /* no faces */
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
         "property float z\nend_header\n1 2 x3\n", STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
         "property float z\nend_header\n1 2 0x3\n", STRATA_ERR_FORMAT},
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
         "property float z\nend_header\n1 2 3\n", STRATA_ERR_BAD_MESH},
        {"ply\nformat ascii 1.0\nelement face 1\nproperty list uchar int vertex_indices\n"
         "end_header\n-3 0 1 2\n", STRATA_ERR_FORMAT}, /* negative count */
    };
    strata_ctx *ctx = capped_ctx();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        strata_mesh *m = (strata_mesh *)&m;
        strata_status st = decode_str(ctx, cases[i].text, NULL, NULL, &m);
        require(st == cases[i].want && m == NULL, "case %zu: %s, want %s", i,
                strata_status_str(st), strata_status_str(cases[i].want));
    }
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ OBJ */

static const char OBJ_ALL[] =
    "# all face forms\r\n"
    "mtllib x.mtl\n"
    "o thing\n"
    "v 0 0 0 1.0\n"
    "v 1 0.5 0 0.1 0.2 0.3\r\n"
    "v\t1 .25e0 1\n"
    "v 0 -1.5E+0 1 # comment\n"
    "vt 0 0\nvn 0 1 0\nvp 0.5\ng g1\nusemtl m\ns off\nl 1 2\n"
    "f 1 4 3 2\n"
    "f 1/1 4/1 3/1\n"
    "f -4/1/1 -1/1/1 -2/1/1\n"
    "f 1//1 3//1 2//1\r\n"
    "v 2 0 0\n"
    "v 2 0 1\n"
    "f 2 3 6 5\n"
    "f 1 4 3 6 5#pentagon\n"
    "f 1 1 2\n"
    "   \n"
    "f 1 2\n";

START_TEST(test_obj_forms)
{
    strata_import_report rep;
    static const uint32_t want[][3] = {{0, 3, 2}, {0, 2, 1}, {0, 3, 2}, {0, 3, 2}, {0, 2, 1},
                                       {1, 2, 5}, {1, 5, 4}, {0, 3, 2}, {0, 2, 5}, {0, 5, 4}};
    static const float wx[6] = {0, 1, 1, 0, 2, 2}, wy[6] = {0, 0.5f, 0.25f, -1.5f, 0, 0},
                       wz[6] = {0, 0, 1, 1, 0, 1};
    strata_ctx *ctx = capped_ctx();
    strata_import_options o;
    strata_import_defaults(&o);
    strata_mesh *m;
    ck_assert_ok(decode_str(ctx, OBJ_ALL, &o, &rep, &m));
    ck_assert_int_eq(rep.format, STRATA_IMPORT_OBJ);
    ck_assert_uint_eq(rep.dropped, 2);
    ck_assert_int_eq(rep.flipped, 0);
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    ck_assert_uint_eq(v.nverts, 6);
    ck_assert_uint_eq(v.ntris, 10);
    for (int i = 0; i < 6; i++)
        require(v.x[i] == wx[i] && v.y[i] == wy[i] && v.z[i] == wz[i], "vertex %d", i);
    for (int t = 0; t < 10; t++)
        require(v.a[t] == want[t][0] && v.b[t] == want[t][1] && v.c[t] == want[t][2],
                "triangle %d is %u %u %u", t, v.a[t], v.b[t], v.c[t]);
    strata_mesh_destroy(m);

    /* a face may name vertices defined after it */
    ck_assert_ok(decode_str(ctx, "f 1 2 3\nv 0 0 0\nv 0 0 1\nv 1 0 0\n", NULL, NULL, &m));
    ck_assert_uint_eq(strata_mesh_triangle_count(m), 1);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_obj_bad)
{
    static const struct { const char *text; strata_status want; } cases[] = {
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 4\n", STRATA_ERR_BAD_MESH},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 0 1 2\n", STRATA_ERR_BAD_MESH},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf -4 1 2\n", STRATA_ERR_BAD_MESH},
        {"f -1 -2 -3\nv 0 0 0\nv 1 0 0\nv 0 0 1\n", STRATA_ERR_BAD_MESH},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 99999999999\n", STRATA_ERR_BAD_MESH},
        {"v 0 0\nf 1 2 3\n", STRATA_ERR_FORMAT},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1/1/1/1 2 3\n", STRATA_ERR_FORMAT},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1/ 2 3\n", STRATA_ERR_FORMAT},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1// 2 3\n", STRATA_ERR_FORMAT},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1/2/ 2 3\n", STRATA_ERR_FORMAT},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf a 2 3\n", STRATA_ERR_FORMAT},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1.0 2 3\n", STRATA_ERR_FORMAT},
        {"v 0,5 0 0\n", STRATA_ERR_FORMAT},
        {"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n\0", STRATA_OK},
        {"hello world\n", STRATA_ERR_FORMAT},
        {"# only a comment\n", STRATA_ERR_FORMAT},
        {"", STRATA_ERR_TRUNCATED},
        {"pl", STRATA_ERR_TRUNCATED},
        {"v 0 0 0\nv 1 0 0\n", STRATA_ERR_BAD_MESH},
        {"v 0 0 0\nv 1 0 0\nf 1 2 2\nf 1 1\n", STRATA_ERR_BAD_MESH},
        {"v nan 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n", STRATA_ERR_NOT_FINITE},
        {"v 0 -INF 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n", STRATA_ERR_NOT_FINITE},
        {"v 0 0 1e39\nv 1 0 0\nv 0 0 1\nf 1 2 3\n", STRATA_ERR_NOT_FINITE},
    };
    strata_ctx *ctx = capped_ctx();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        strata_mesh *m = (strata_mesh *)&m;
        strata_status st = decode_str(ctx, cases[i].text, NULL, NULL, &m);
        require(st == cases[i].want && (st == STRATA_OK) == (m != NULL), "case %zu: %s, want %s",
                i, strata_status_str(st), strata_status_str(cases[i].want));
        strata_mesh_destroy(st == STRATA_OK ? m : NULL);
    }
    /* a NUL byte inside the text */
    static const char nul[] = "v 0 0 0\nv 1 0 0\n\0v 0 0 1\nf 1 2 3\n";
    strata_mesh *m;
    ck_assert_status(decode(ctx, nul, sizeof nul - 1, NULL, NULL, &m), STRATA_ERR_FORMAT);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The decimal point does not depend on LC_NUMERIC. */
START_TEST(test_obj_locale)
{
    static const char *const locales[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8",
                                          "fr_FR.utf8", "ru_RU.UTF-8"};
    const char *set = NULL;
    for (size_t i = 0; i < sizeof locales / sizeof locales[0] && !set; i++)
        set = setlocale(LC_NUMERIC, locales[i]);
    strata_ctx *ctx = capped_ctx();
    strata_mesh *m;
    ck_assert_ok(decode_str(ctx, "v 0.5 0 0\nv 1.25 0 0\nv 0 0 1e-1\nf 1 3 2\n", NULL, NULL, &m));
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    ck_assert(v.x[0] == 0.5f && v.x[1] == 1.25f && v.z[2] == 0.1f);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
    setlocale(LC_NUMERIC, "C");
}
END_TEST

/* ------------------------------------------------------------ weld */

START_TEST(test_weld)
{
    strata_import_report rep;
    static const char soup[] = "v 0 0 0\nv 0 0 1\nv 1 0 1\n"
                               "v 0 0 0\nv 1 0 1\nv 1 0 0\nv -0 0 0\n"
                               "f 1 2 3\nf 4 5 6\nf 7 5 6\n";
    strata_ctx *ctx = capped_ctx();
    strata_import_options o;
    strata_import_defaults(&o);
    strata_mesh *m;
    ck_assert_ok(decode_str(ctx, soup, &o, &rep, &m));
    ck_assert_uint_eq(strata_mesh_vertex_count(m), 7);
    ck_assert_uint_eq(strata_mesh_triangle_count(m), 3);
    ck_assert_uint_eq(rep.welded, 0);
    strata_mesh_destroy(m);

    o.weld = 1;
    ck_assert_ok(decode_str(ctx, soup, &o, &rep, &m));
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    ck_assert_uint_eq(v.nverts, 4);
    ck_assert_uint_eq(v.ntris, 3);
    ck_assert_uint_eq(rep.welded, 3);
    ck_assert_uint_eq(v.nedges, 5);
    static const float wx[4] = {0, 0, 1, 1}, wz[4] = {0, 1, 1, 0};
    static const uint32_t wt[3][3] = {{0, 1, 2}, {0, 2, 3}, {0, 2, 3}};
    for (int i = 0; i < 4; i++)
        ck_assert(v.x[i] == wx[i] && v.y[i] == 0 && v.z[i] == wz[i]);
    ck_assert(!signbit(v.x[0])); /* the first occurrence (+0) wins */
    for (int t = 0; t < 3; t++)
        ck_assert(v.a[t] == wt[t][0] && v.b[t] == wt[t][1] && v.c[t] == wt[t][2]);
    strata_mesh_destroy(m);

    /* welding can make a triangle degenerate: it is dropped and counted */
    ck_assert_ok(decode_str(ctx, "v 0 0 0\nv 1 0 0\nv 0 0 0\nv 0 0 1\nf 1 3 4\nf 1 4 2\n", &o, &rep, &m));
    ck_assert_uint_eq(strata_mesh_vertex_count(m), 3);
    ck_assert_uint_eq(strata_mesh_triangle_count(m), 1);
    ck_assert_uint_eq(rep.dropped, 1);
    ck_assert_uint_eq(rep.welded, 1);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ winding */

START_TEST(test_winding)
{
    strata_import_report rep;
    /* one triangle clockwise seen from above (+y): flipped */
    static const char down[] = "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 3 2\nf 1 2 3\nf 1 2 3\n";
    strata_ctx *ctx = capped_ctx();
    strata_import_options o;
    strata_import_defaults(&o);
    strata_mesh *m;
    ck_assert_ok(decode_str(ctx, down, &o, &rep, &m));
    ck_assert_int_eq(rep.flipped, 1);
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    ck_assert(v.a[1] == 0 && v.b[1] == 2 && v.c[1] == 1);
    ck_assert(v.a[0] == 0 && v.b[0] == 1 && v.c[0] == 2);
    strata_mesh_destroy(m);
    o.keep_winding = 1;
    ck_assert_ok(decode_str(ctx, down, &o, &rep, &m));
    ck_assert_int_eq(rep.flipped, 0);
    strata_mesh_get_view(m, &v);
    ck_assert(v.a[1] == 0 && v.b[1] == 1 && v.c[1] == 2);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ up axes */

/* A 4x4-cell ramp in the input's frame: `up` gives the axis heights go
 * along, triangles counter-clockwise seen from +up.  Height = 0.5 * u
 * where (u, w) span the ground plane. */
static buf ramp_obj(strata_axis up)
{
    buf b = {NULL, 0, 0};
    char line[128];
    for (int j = 0; j <= 4; j++)
        for (int i = 0; i <= 4; i++) {
            float p[3];
            const float u = (float)i, w = (float)j, hgt = 0.5f * (float)i;
            if (up == STRATA_AXIS_Z) { /* ground xy, CCW from +z: x then y */
                p[0] = u; p[1] = w; p[2] = hgt;
            } else if (up == STRATA_AXIS_X) { /* ground yz, CCW from +x: y then z */
                p[0] = hgt; p[1] = u; p[2] = w;
            } else { /* ground zx, CCW from +y: z then x */
                p[0] = w; p[1] = hgt; p[2] = u;
            }
            snprintf(line, sizeof line, "v %g %g %g\n", (double)p[0], (double)p[1], (double)p[2]);
            puts_(&b, line);
        }
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++) {
            const int v00 = j * 5 + i + 1, v10 = v00 + 1, v01 = v00 + 5, v11 = v01 + 1;
            snprintf(line, sizeof line, "f %d %d %d %d\n", v00, v10, v11, v01);
            puts_(&b, line);
        }
    return b;
}

START_TEST(test_up_axes)
{
    strata_import_report rep;
    static const strata_axis axes[] = {STRATA_AXIS_Y, STRATA_AXIS_Z, STRATA_AXIS_X};
    const strata_axis up = axes[_i];
    const int ax = up == STRATA_AXIS_X ? 0 : up == STRATA_AXIS_Y ? 1 : 2;
    strata_ctx *ctx = capped_ctx();
    buf b = ramp_obj(up);
    strata_import_options o;
    strata_import_defaults(&o);
    o.up = up;
    strata_mesh *m;
    ck_assert_ok(decode(ctx, b.p, b.n, &o, &rep, &m));
    ck_assert_int_eq(rep.flipped, 0);
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    ck_assert_uint_eq(v.nverts, 25);
    ck_assert_uint_eq(v.ntris, 32);
    /* heights are the input's up coordinate */
    for (uint32_t i = 0; i < 25; i++)
        require(v.h[i] == 0.5f * (float)(i % 5), "height of %u is %g", i, (double)v.h[i]);

    /* slice, rotate back: roofs lie on their level along the input's up */
    static const float levels[3] = {0.25f, 0.75f, 1.5f};
    strata_slice_options so = slice_options(levels, 3, STRATA_WALLS_UPPER, 1, 0);
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    ck_assert_ok(strata_result_rotate_from_y_up(r, up));
    strata_result_view rv;
    strata_result_get_view(r, &rv);
    const float *pos[3] = {rv.x, rv.y, rv.z}, *nrm[3] = {rv.nx, rv.ny, rv.nz};
    uint64_t roofs = 0;
    for (uint32_t k = 0; k < rv.nterraces; k++) {
        const strata_terrace *t = &rv.terraces[k];
        for (uint64_t i = t->roof_first; i < t->roof_first + t->roof_count; i++) {
            const uint32_t id = rv.indices[i];
            require(pos[ax][id] == levels[k], "terrace %u roof vertex %u at %g", k, id,
                    (double)pos[ax][id]);
            require(nrm[ax][id] == 1.0f && nrm[(ax + 1) % 3][id] == 0.0f &&
                        nrm[(ax + 2) % 3][id] == 0.0f,
                    "roof normal of %u", id);
            roofs++;
        }
    }
    ck_assert_uint_gt(roofs, 0);
    for (uint32_t i = 0; i < rv.nverts; i++)
        require(!signbit(rv.x[i]) && !signbit(rv.y[i]) && !signbit(rv.z[i]),
                "vertex %u has a negative zero or value", i);
    strata_result_destroy(r);
    strata_mesh_destroy(m);

    /* import, unsliced result, rotate back: the input positions exactly */
    ck_assert_ok(decode(ctx, b.p, b.n, &o, &rep, &m));
    ck_assert_ok(strata_result_from_mesh(ctx, m, 0, &r));
    ck_assert_ok(strata_result_rotate_from_y_up(r, up));
    strata_mesh *again;
    strata_import_options o2;
    strata_import_defaults(&o2);
    o2.up = up;
    ck_assert_ok(decode(ctx, b.p, b.n, &o2, &rep, &again));
    strata_result_get_view(r, &rv);
    ck_assert_uint_eq(rv.nverts, 25);
    for (uint32_t i = 0; i < 25; i++) {
        const float in[3] = {rv.x[i], rv.y[i], rv.z[i]};
        require(in[ax] == 0.5f * (float)(i % 5), "round trip of vertex %u", i);
    }
    strata_mesh_destroy(again);
    strata_result_destroy(r);
    strata_mesh_destroy(m);

    /* a bad axis */
    o.up = (strata_axis)7;
    ck_assert_status(decode(ctx, b.p, b.n, &o, &rep, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_rotate_from_y_up(NULL, up), STRATA_ERR_INVALID_ARG);
    free(b.p);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The rotation back is exact on positions and normals. */
START_TEST(test_rotate_exact)
{
    strata_ctx *ctx = capped_ctx();
    strata_mesh *m;
    ck_assert_ok(decode_str(ctx, "v 0.1 0.2 0.3\nv 1.7 -2.5 0.3\nv 0.1 0.2 3.3\nf 1 2 3\n",
                            NULL, NULL, &m));
    for (int a = 0; a < 3; a++) {
        strata_result *r;
        ck_assert_ok(strata_result_from_mesh(ctx, m, 1, &r));
        strata_result_view v0;
        strata_result_get_view(r, &v0);
        float p[3][3], n[3][3];
        for (int i = 0; i < 3; i++) {
            p[i][0] = v0.x[i]; p[i][1] = v0.y[i]; p[i][2] = v0.z[i];
            n[i][0] = v0.nx[i]; n[i][1] = v0.ny[i]; n[i][2] = v0.nz[i];
        }
        ck_assert_ok(strata_result_rotate_from_y_up(r, (strata_axis)a));
        strata_result_view v;
        strata_result_get_view(r, &v);
        for (int i = 0; i < 3; i++) {
            float q[3] = {v.x[i], v.y[i], v.z[i]}, qn[3] = {v.nx[i], v.ny[i], v.nz[i]};
            float e[3], en[3];
            if (a == STRATA_AXIS_Y) {
                memcpy(e, p[i], sizeof e); memcpy(en, n[i], sizeof en);
            } else if (a == STRATA_AXIS_Z) {
                e[0] = p[i][0]; e[1] = -p[i][2]; e[2] = p[i][1];
                en[0] = n[i][0]; en[1] = -n[i][2]; en[2] = n[i][1];
            } else {
                e[0] = p[i][1]; e[1] = -p[i][0]; e[2] = p[i][2];
                en[0] = n[i][1]; en[1] = -n[i][0]; en[2] = n[i][2];
            }
            for (int k = 0; k < 3; k++)
                require(q[k] == e[k] && qn[k] == en[k], "axis %d vertex %d coord %d", a, i, k);
        }
        /* and back again: the inverse */
        ck_assert_ok(strata_result_rotate_to_y_up(r, (strata_axis)a));
        for (int i = 0; i < 3; i++)
            require(v.x[i] == p[i][0] && v.y[i] == p[i][1] && v.z[i] == p[i][2] &&
                        v.nx[i] == n[i][0] && v.ny[i] == n[i][1] && v.nz[i] == n[i][2],
                    "axis %d vertex %d after the inverse", a, i);
        strata_result_destroy(r);
    }
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ radial */

START_TEST(test_radial)
{
    strata_import_report rep;
    strata_ctx *ctx = capped_ctx();
    strata_mesh *ico;
    ck_assert_ok(strata_shape_icosphere(ctx, 2, 2.0f, &ico));
    strata_result *r;
    ck_assert_ok(strata_result_from_mesh(ctx, ico, 0, &r));
    const char *path = scratch("ico.ply");
    ck_assert_ok(strata_result_write(ctx, r, path, NULL));
    strata_result_destroy(r);

    strata_import_options o;
    strata_import_defaults(&o);
    o.radial = 1;
    strata_mesh *m;
    ck_assert_ok(strata_mesh_load(ctx, path, &o, &rep, &m));
    ck_assert_int_eq(rep.flipped, 0);
    ck_assert_int_eq(rep.format, STRATA_IMPORT_PLY_LE);
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    ck_assert_int_eq(v.geometry, STRATA_RADIAL);
    ck_assert_uint_eq(v.nverts, strata_mesh_vertex_count(ico));
    ck_assert_uint_eq(v.ntris, strata_mesh_triangle_count(ico));
    for (int k = 0; k < 3; k++)
        ck_assert_float_eq_tol(v.center[k], 0.0f, 1e-6f);
    ck_assert_float_eq_tol(v.radius, 2.0f, 1e-5f);
    for (uint32_t i = 0; i < v.nverts; i++)
        require(fabsf(v.h[i]) < 1e-5f, "height %g", (double)v.h[i]);
    /* slice it with planes around the base sphere */
    static const float levels[2] = {-0.5f, 0.0f};
    strata_slice_options so = slice_options(levels, 2, STRATA_WALLS_UPPER, 0, 0);
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    strata_result_destroy(r);
    strata_mesh_destroy(m);

    /* explicit centre and radius; shifted sphere */
    o.has_center = 1;
    o.center[0] = 1; o.center[1] = 0; o.center[2] = 0;
    o.radius = 0.5f;
    ck_assert_ok(strata_mesh_load(ctx, path, &o, &rep, &m));
    strata_mesh_get_view(m, &v);
    ck_assert(v.center[0] == 1 && v.radius == 0.5f);
    strata_mesh_destroy(m);

    /* inside out: reversed */
    buf b = {NULL, 0, 0};
    strata_mesh_view iv;
    strata_mesh_get_view(ico, &iv);
    char line[160];
    for (uint32_t i = 0; i < iv.nverts; i++) {
        snprintf(line, sizeof line, "v %.9g %.9g %.9g\n", (double)iv.x[i] + 3, (double)iv.y[i],
                 (double)iv.z[i]);
        puts_(&b, line);
    }
    for (uint32_t t = 0; t < iv.ntris; t++) {
        snprintf(line, sizeof line, "f %u %u %u\n", iv.a[t] + 1, iv.c[t] + 1, iv.b[t] + 1);
        puts_(&b, line);
    }
    strata_import_defaults(&o);
    o.radial = 1;
    ck_assert_ok(decode(ctx, b.p, b.n, &o, &rep, &m));
    ck_assert_int_eq(rep.flipped, 1);
    strata_mesh_get_view(m, &v);
    ck_assert_float_eq_tol(v.center[0], 3.0f, 1e-6f);
    ck_assert_uint_eq(v.a[0], iv.a[0]);
    ck_assert_uint_eq(v.b[0], iv.b[0]);
    ck_assert_uint_eq(v.c[0], iv.c[0]);
    strata_mesh_destroy(m);

    /* bad radial options */
    o.radius = -1;
    ck_assert_status(decode(ctx, b.p, b.n, &o, &rep, &m), STRATA_ERR_INVALID_ARG);
    o.radius = 0;
    o.has_center = 1;
    o.center[1] = NAN;
    ck_assert_status(decode(ctx, b.p, b.n, &o, &rep, &m), STRATA_ERR_NOT_FINITE);
    /* every vertex at the centre */
    strata_import_defaults(&o);
    o.radial = 1;
    o.has_center = 1;
    ck_assert_status(decode_str(ctx, "v 0 0 0\nv 0 0 0\nv 0 0 0\nf 1 2 3\n", &o, &rep, &m),
                     STRATA_ERR_BAD_MESH);
    free(b.p);
    strata_mesh_destroy(ico);
    unlink(path);
    scratch_done();
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ hostile */

/* Every proper prefix of a PLY file is an error (binary: TRUNCATED), never
 * a crash; OBJ prefixes either decode or fail cleanly. */
START_TEST(test_truncation)
{
    strata_ctx *ctx = capped_ctx();
    for (int f = F_ASCII; f <= F_BE; f++) {
        buf b = quad_ply(f);
        /* ASCII: without its final newline the file is still complete */
        const size_t stop = f == F_ASCII ? b.n - 1 : b.n;
        for (size_t n = 0; n < stop; n++) {
            unsigned char *copy = malloc(n ? n : 1); /* exact size: ASan sees overreads */
            memcpy(copy, b.p, n);
            strata_mesh *m = (strata_mesh *)&m;
            strata_status st = decode(ctx, copy, n, NULL, NULL, &m);
            require(m == NULL, "format %d prefix %zu: a mesh", f, n);
            if (f == F_ASCII)
                require(st == STRATA_ERR_TRUNCATED || st == STRATA_ERR_FORMAT,
                        "ascii prefix %zu: %s", n, strata_status_str(st));
            else
                require(st == STRATA_ERR_TRUNCATED, "format %d prefix %zu: %s", f, n,
                        strata_status_str(st));
            free(copy);
        }
        strata_mesh *m;
        ck_assert_ok(decode(ctx, b.p, stop, NULL, NULL, &m));
        strata_mesh_destroy(m);
        free(b.p);
    }
    const size_t len = strlen(OBJ_ALL);
    for (size_t n = 0; n <= len; n++) {
        char *copy = malloc(n ? n : 1);
        memcpy(copy, OBJ_ALL, n);
        strata_mesh *m = (strata_mesh *)&m;
        strata_status st = decode(ctx, copy, n, NULL, NULL, &m);
        require((st == STRATA_OK) == (m != NULL), "obj prefix %zu", n);
        strata_mesh_destroy(st == STRATA_OK ? m : NULL);
        free(copy);
    }
    ck_assert_uint_le(g_alloc.biggest, CAP_BYTES);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Huge claimed counts in tiny files: refused, nothing big allocated. */
START_TEST(test_huge_claims)
{
    static const struct { const char *text; size_t len; } cases[] = {
#define T(s) {s, sizeof s - 1}
        T("ply\nformat ascii 1.0\nelement vertex 4000000000\nproperty float x\n"
          "property float y\nproperty float z\nend_header\n0 0 0\n"),
        T("ply\nformat binary_little_endian 1.0\nelement vertex 100000000\nproperty float x\n"
          "property float y\nproperty float z\nend_header\n\0\0\0\0\0\0\0\0\0\0\0\0"),
        T("ply\nformat binary_big_endian 1.0\nelement vertex 3\nproperty uchar x\n"
          "property uchar y\nproperty uchar z\nelement face 50000000\n"
          "property list uchar uint vertex_indices\nend_header\n\0\0\0\1\0\0\0\0\1\3\0\0"),
        T("ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty uchar x\n"
          "property uchar y\nproperty uchar z\nelement face 1\n"
          "property list uint uint vertex_indices\nend_header\n\0\0\0\1\0\0\0\0\1"
          "\xff\xff\xff\xff\0\0\0\0\1\0\0\0\2\0\0\0"),
        T("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
          "property float z\nelement face 1\nproperty list uint uint vertex_indices\n"
          "end_header\n0 0 0\n1 0 0\n0 0 1\n999999999999 0 1 2\n"),
        T("ply\nformat binary_little_endian 1.0\nelement junk 4000000000\n"
          "property list uint double stuff\nend_header\n\1\0\0\0"),
        T("ply\nformat binary_little_endian 1.0\nelement junk 1\n"
          "property list uint double stuff\nend_header\n\xff\xff\xff\x0f\0\0\0\0"),
#undef T
    };
    strata_ctx *ctx = capped_ctx();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        g_alloc.biggest = 0;
        strata_mesh *m;
        strata_status st = decode(ctx, cases[i].text, cases[i].len, NULL, NULL, &m);
        require(st == STRATA_ERR_TRUNCATED, "case %zu: %s", i, strata_status_str(st));
        require(g_alloc.biggest <= CAP_BYTES, "case %zu allocated %zu bytes", i, (size_t)g_alloc.biggest);
    }
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_bad_values)
{
    strata_ctx *ctx = capped_ctx();
    strata_mesh *m;
    /* binary: an index == nverts, a negative index, NaN, a double too big */
    for (int f = F_LE; f <= F_BE; f++) {
        for (int c = 0; c < 5; c++) {
            plyw w = {{NULL, 0, 0}, f, 1};
            char head[512];
            snprintf(head, sizeof head,
                     "ply\nformat %s 1.0\nelement vertex 3\nproperty float x\n"
                     "property double y\nproperty float z\nelement face 1\n"
                     "property list uchar int vertex_indices\nend_header\n",
                     fmt_names[f]);
            puts_(&w.b, head);
            for (int i = 0; i < 3; i++) {
                w_float(&w, c == 2 && i == 1 ? NAN : (float)(i == 1));
                w_double(&w, c == 3 && i == 2 ? 1e300 : c == 4 ? -INFINITY : 0.0);
                w_float(&w, (float)(i == 2));
            }
            w_int(&w, 3, 1);
            w_int(&w, 0, 4);
            w_int(&w, c == 0 ? 3 : c == 1 ? -1 : 2, 4);
            w_int(&w, 1, 4);
            static const strata_status want[] = {STRATA_ERR_BAD_MESH, STRATA_ERR_BAD_MESH,
                                                 STRATA_ERR_NOT_FINITE, STRATA_ERR_NOT_FINITE,
                                                 STRATA_ERR_NOT_FINITE};
            strata_status st = decode(ctx, w.b.p, w.b.n, NULL, NULL, &m);
            require(st == want[c], "format %d case %d: %s", f, c, strata_status_str(st));
            free(w.b.p);
        }
    }
    ck_assert_status(decode_str(ctx,
                                "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                                "property float y\nproperty float z\nelement face 1\n"
                                "property list uchar int vertex_indices\nend_header\n"
                                "0 0 0\n1 inf 0\n0 0 1\n3 0 2 1\n",
                                NULL, NULL, &m),
                     STRATA_ERR_NOT_FINITE);
    ck_assert_status(decode_str(ctx,
                                "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                                "property float y\nproperty float z\nelement face 1\n"
                                "property list uchar int vertex_indices\nend_header\n"
                                "0 0 0\n1 0 0\n0 0 1\n3 0 2 3\n",
                                NULL, NULL, &m),
                     STRATA_ERR_BAD_MESH);
    /* invalid arguments */
    ck_assert_status(strata_mesh_decode(NULL, "v", 1, NULL, NULL, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_mesh_decode(ctx, NULL, 3, NULL, NULL, &m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_mesh_decode(ctx, "v", 1, NULL, NULL, NULL), STRATA_ERR_INVALID_ARG);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ files */

/* strata's own PLY and OBJ output reads back with the same counts and
 * the same positions. */
START_TEST(test_round_trip)
{
    strata_import_report rep;
    static const char *const names[] = {"rt.ply", "rt.obj", "rtn.ply", "rtn.obj"};
    const int normals = _i >= 2;
    strata_ctx *ctx = capped_ctx();
    strata_mesh *g;
    ck_assert_ok(strata_shape_grid(ctx, 12, 12, 0.5f, &g));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.3f;
    ck_assert_ok(strata_displace_flat(ctx, g, &f, NULL));
    float levels[5];
    ck_assert_ok(strata_levels_uniform(g, 5, NULL, levels));
    strata_slice_options so = slice_options(levels, 5, STRATA_WALLS_UPPER, normals, 0);
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, g, &so, &r));
    const char *path = scratch(names[_i]);
    ck_assert_ok(strata_result_write(ctx, r, path, NULL));
    strata_result_view rv;
    strata_result_get_view(r, &rv);

    strata_import_options o;
    strata_import_defaults(&o);
    strata_mesh *m;
    ck_assert_ok(strata_mesh_load(ctx, path, &o, &rep, &m));
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    ck_assert_uint_eq(v.nverts, rv.nverts);
    ck_assert_uint_eq((uint64_t)v.ntris * 3, rv.nindices);
    ck_assert_uint_eq(rep.dropped, 0);
    ck_assert_int_eq(rep.flipped, 0);
    for (uint32_t i = 0; i < v.nverts; i++)
        require(v.x[i] == rv.x[i] && v.y[i] == rv.y[i] && v.z[i] == rv.z[i], "vertex %u", i);
    for (uint32_t t = 0; t < v.ntris; t++)
        require(v.a[t] == rv.indices[3 * t] && v.b[t] == rv.indices[3 * t + 1] &&
                    v.c[t] == rv.indices[3 * t + 2],
                "triangle %u", t);
    /* the re-import slices again */
    strata_result *r2;
    ck_assert_ok(strata_slice(ctx, m, &so, &r2));
    strata_result_destroy(r2);
    strata_mesh_destroy(m);
    unlink(path);
    if (_i % 2 == 1) {
        char mtl[600];
        snprintf(mtl, sizeof mtl, "%.*s.mtl", (int)(strlen(path) - 4), path);
        unlink(mtl);
    }
    scratch_done();
    strata_result_destroy(r);
    strata_mesh_destroy(g);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A FIFO (nothing writing to it) or a device as input: refused at once
 * as not a regular file, never waiting for data. */
START_TEST(test_load_not_regular)
{
    strata_ctx *ctx = capped_ctx();
    char *d = tmpdir_new(), *fifo = fifo_new(d, "mesh.ply");
    const char *const paths[] = {fifo, "/dev/null"};
    for (int k = 0; k < 2; k++) {
        strata_mesh *m = (strata_mesh *)&m;
        errno = 0;
        ck_assert_status(strata_mesh_load(ctx, paths[k], NULL, NULL, &m), STRATA_ERR_IO);
        ck_assert_int_eq(errno, EINVAL);
        ck_assert_ptr_null(m);
    }
    alarm(0);
    free(fifo);
    tmpdir_remove(d);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_load_errors)
{
    strata_ctx *ctx = capped_ctx();
    strata_mesh *m = (strata_mesh *)&m;
    errno = 0;
    ck_assert_status(strata_mesh_load(ctx, scratch("no-such.ply"), NULL, NULL, &m), STRATA_ERR_IO);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_ptr_null(m);
    ck_assert_status(strata_mesh_load(ctx, g_dir, NULL, NULL, &m), STRATA_ERR_IO);
    ck_assert_status(strata_mesh_load(ctx, NULL, NULL, NULL, &m), STRATA_ERR_INVALID_ARG);
    const char *path = scratch("bad.obj");
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs("v 0 0 0\nf 1 2 3\n", f);
    fclose(f);
    ck_assert_status(strata_mesh_load(ctx, path, NULL, NULL, &m), STRATA_ERR_BAD_MESH);
    unlink(path);
    scratch_done();
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ parallel reading */

/* Binary files whose records have one size per element are decoded on
 * the context's threads; anything else, and any file with a fault, by
 * the reader in order.  These tests hold the two to the same meshes and
 * the same errors, at 1, 2 and 3 threads. */

/* A bumpy grid of n x n cells, its vertices listed in a scrambled order
 * (so the edge sort's buckets are filled out of order) as PLY:
 *   layout 0: strata's own: float x y z; list uchar uint vertex_indices,
 *             int terrace, uchar wall
 *   layout 1: an element of fixed lists first, double y between other
 *             properties, quads (list int ushort), a float list of
 *             constant length after them
 * faces_first: the face element before the vertex element.  quad_at: a
 * face (>= 0) written as a quad in layout 0 (one record of another
 * size).  degenerate: every 97th triangle repeats a corner. */
typedef struct grid_spec {
    int fmt, n, layout, faces_first, degenerate;
    long quad_at;
} grid_spec;

static uint32_t scramble(uint32_t i, uint32_t nv) { return (uint32_t)(((uint64_t)i * 7919u) % nv); }

static float bump(uint32_t i, uint32_t j)
{
    return (float)(0.37 * sin(0.21 * i) + 0.29 * cos(0.17 * j + 0.05 * i)) + (float)((i * 31 + j * 17) % 7) / 64.0f;
}

static void grid_vertex(plyw *w, const grid_spec *g, uint32_t id)
{
    const uint32_t nv = (uint32_t)((g->n + 1) * (g->n + 1));
    /* file vertex `id` is grid point scramble(id) (7919 is prime: a bijection) */
    const uint32_t p = scramble(id, nv), i = p % (uint32_t)(g->n + 1), j = p / (uint32_t)(g->n + 1);
    const float x = (float)i * 0.5f, y = bump(i, j), z = (float)j * 0.5f;
    if (g->layout == 0) {
        w_float(w, x);
        w_float(w, y);
        w_float(w, z);
    } else {
        w_int(w, id % 251, 1);
        w_float(w, x);
        w_double(w, (double)y);
        w_float(w, z);
    }
    w_eol(w);
}

/* The file id of grid point p. */
static uint32_t file_id(const grid_spec *g, uint32_t p)
{
    const uint32_t nv = (uint32_t)((g->n + 1) * (g->n + 1));
    /* inverse of scramble: the id with id * 7919 = p (mod nv), found once */
    static uint32_t *inv = NULL, inv_n = 0;
    if (inv_n != nv) {
        free(inv);
        inv = malloc(nv * sizeof *inv);
        ck_assert_ptr_nonnull(inv);
        for (uint32_t id = 0; id < nv; id++)
            inv[scramble(id, nv)] = id;
        inv_n = nv;
    }
    return inv[p];
}

static void grid_faces(plyw *w, const grid_spec *g)
{
    const uint32_t s = (uint32_t)g->n + 1;
    long f = 0;
    for (uint32_t j = 0; j < (uint32_t)g->n; j++)
        for (uint32_t i = 0; i < (uint32_t)g->n; i++) {
            const uint32_t q[4] = {file_id(g, j * s + i), file_id(g, (j + 1) * s + i),
                                   file_id(g, (j + 1) * s + i + 1), file_id(g, j * s + i + 1)};
            if (g->layout == 1) { /* one quad, counter-clockwise from above (y up) */
                w_int(w, 4, 4);
                for (int k = 0; k < 4; k++)
                    w_int(w, q[k], 2);
                w_int(w, 2, 1);
                w_float(w, 0.5f);
                w_float(w, 0.25f);
                w_eol(w);
                continue;
            }
            for (int half = 0; half < 2; half++, f++) {
                uint32_t t[4] = {q[0], half ? q[2] : q[1], half ? q[3] : q[2], q[3]};
                if (g->degenerate && f % 97 == 5)
                    t[2] = t[0];
                const int corners = f == g->quad_at ? 4 : 3;
                w_int(w, corners, 1);
                for (int k = 0; k < corners; k++)
                    w_int(w, t[k], 4);
                w_int(w, (int64_t)(f % 5), 4);
                w_int(w, (int64_t)(f & 1), 1);
                w_eol(w);
            }
        }
}

static buf grid_ply(const grid_spec *g)
{
    plyw w = {{NULL, 0, 0}, g->fmt, 1};
    const uint32_t nv = (uint32_t)((g->n + 1) * (g->n + 1));
    const uint64_t nf = (uint64_t)g->n * (uint64_t)g->n * (g->layout == 1 ? 1 : 2);
    char vert[256], face[256], head[1024];
    if (g->layout == 0) {
        snprintf(vert, sizeof vert,
                 "element vertex %u\nproperty float x\nproperty float y\nproperty float z\n", nv);
        snprintf(face, sizeof face,
                 "element face %llu\nproperty list uchar uint vertex_indices\n"
                 "property int terrace\nproperty uchar wall\n",
                 (unsigned long long)nf);
    } else {
        snprintf(vert, sizeof vert,
                 "element vertex %u\nproperty uchar tag\nproperty float x\nproperty double y\n"
                 "property float z\n",
                 nv);
        snprintf(face, sizeof face,
                 "element face %llu\nproperty list int ushort vertex_indices\n"
                 "property list uchar float uv\n",
                 (unsigned long long)nf);
    }
    snprintf(head, sizeof head, "ply\nformat %s 1.0\n%s%s%send_header\n", fmt_names[g->fmt],
             g->layout == 1 ? "element material 3\nproperty list uchar uchar rgb\n" : "",
             g->faces_first ? face : vert, g->faces_first ? vert : face);
    puts_(&w.b, head);
    if (g->layout == 1)
        for (int k = 0; k < 3; k++) {
            w_int(&w, 3, 1);
            for (int c = 0; c < 3; c++)
                w_int(&w, 40 * k + c, 1);
            w_eol(&w);
        }
    if (g->faces_first)
        grid_faces(&w, g);
    for (uint32_t id = 0; id < nv; id++)
        grid_vertex(&w, g, id);
    if (!g->faces_first)
        grid_faces(&w, g);
    return w.b;
}

/* Every array of two meshes the same, bit for bit. */
static void same_mesh(const strata_mesh *p, const strata_mesh *q, const char *what)
{
    strata_mesh_view a, b;
    strata_mesh_get_view(p, &a);
    strata_mesh_get_view(q, &b);
    require(a.nverts == b.nverts && a.ntris == b.ntris && a.nedges == b.nedges,
            "%s: %u/%u/%u vertices/triangles/edges against %u/%u/%u", what, a.nverts, a.ntris,
            a.nedges, b.nverts, b.ntris, b.nedges);
    const void *pa[] = {a.x, a.y, a.z, a.h, a.a, a.b, a.c, a.e0, a.e1, a.e2, a.ev0, a.ev1};
    const void *pb[] = {b.x, b.y, b.z, b.h, b.a, b.b, b.c, b.e0, b.e1, b.e2, b.ev0, b.ev1};
    static const char *const names[] = {"x", "y", "z", "h", "a", "b", "c",
                                        "e0", "e1", "e2", "ev0", "ev1"};
    for (int k = 0; k < 12; k++) {
        const size_t n = k < 4 ? a.nverts : k < 10 ? a.ntris : a.nedges;
        require(memcmp(pa[k], pb[k], n * 4) == 0, "%s: %s differs", what, names[k]);
    }
}

typedef struct {
    uint64_t key, slot;
} ref_edge;

static int cmp_ref(const void *p, const void *q)
{
    const ref_edge *a = p, *b = q;
    return a->key != b->key ? (a->key > b->key) - (a->key < b->key)
                            : (a->slot > b->slot) - (a->slot < b->slot);
}

/* The edge table as its definition says: the sides' (min, max) pairs
 * sorted, equal pairs one edge, numbered in that order. */
static void expect_edges(const strata_mesh *m)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    const size_t n = 3 * (size_t)v.ntris;
    ref_edge *r = malloc((n ? n : 1) * sizeof *r);
    ck_assert_ptr_nonnull(r);
    for (uint32_t t = 0; t < v.ntris; t++) {
        const uint32_t c[3] = {v.a[t], v.b[t], v.c[t]};
        for (int s = 0; s < 3; s++) {
            const uint32_t p = c[s], q = c[(s + 1) % 3];
            r[3 * (size_t)t + s] = (ref_edge){(uint64_t)(p < q ? p : q) << 32 | (p < q ? q : p),
                                              3 * (uint64_t)t + (uint64_t)s};
        }
    }
    qsort(r, n, sizeof *r, cmp_ref);
    const uint32_t *side[3] = {v.e0, v.e1, v.e2};
    uint32_t e = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && r[i].key != r[i - 1].key)
            e++;
        require(e < v.nedges && v.ev0[e] == (uint32_t)(r[i].key >> 32) &&
                    v.ev1[e] == (uint32_t)r[i].key,
                "edge %u is %u-%u, wanted %u-%u", e, e < v.nedges ? v.ev0[e] : 0,
                e < v.nedges ? v.ev1[e] : 0, (uint32_t)(r[i].key >> 32), (uint32_t)r[i].key);
        require(side[r[i].slot % 3][r[i].slot / 3] == e, "side %u of triangle %u: edge %u, wanted %u",
                (unsigned)(r[i].slot % 3), (unsigned)(r[i].slot / 3),
                side[r[i].slot % 3][r[i].slot / 3], e);
    }
    require_eq(v.nedges, n ? e + 1 : 0);
    free(r);
}

/* Decode at 1, 2 and 3 threads: the same mesh and report each time; the
 * mesh of 1 thread returned. */
static strata_mesh *decode_threads(const buf *b, const strata_import_options *o,
                                   strata_import_report *rep)
{
    strata_mesh *first = NULL;
    for (int th = 1; th <= 3; th++) {
        strata_ctx *ctx = ctx_new(th);
        strata_import_report r;
        strata_mesh *m;
        ck_assert_ok(decode(ctx, b->p, b->n, o, &r, &m));
        if (!first) {
            first = m;
            *rep = r;
        } else {
            char what[32];
            snprintf(what, sizeof what, "%d threads", th);
            same_mesh(first, m, what);
            ck_assert(memcmp(&r, rep, sizeof r) == 0);
            strata_mesh_destroy(m);
        }
        strata_ctx_destroy(ctx);
    }
    return first;
}

/* Allocations a decode makes: a file read in parallel has its arrays
 * sized once: about 16 calls for these files, where a reader in order
 * growing its triangles by doubling makes 45 (the ASCII grid). */
static long decode_allocations(const buf *b)
{
    test_alloc t;
    strata_ctx *ctx = ctx_new_counting(2, &t);
    const long before = atomic_load(&t.count);
    strata_mesh *m;
    ck_assert_ok(decode(ctx, b->p, b->n, NULL, NULL, &m));
    const long n = atomic_load(&t.count) - before;
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
    return n;
}

/* Binary (decoded in parallel) against ASCII (in order), both byte
 * orders, both layouts, vertices or faces first; the edge table against
 * its definition. */
START_TEST(test_parallel_same)
{
    const int layout = _i & 1, faces_first = _i >> 1 & 1;
    grid_spec g = {F_ASCII, 181, layout, faces_first, 0, -1};
    buf text = grid_ply(&g);
    strata_import_report rt, rb;
    strata_mesh *ref = decode_threads(&text, NULL, &rt);
    expect_edges(ref);
    ck_assert_uint_eq(strata_mesh_triangle_count(ref), 2u * 181 * 181);
    ck_assert_int_gt(decode_allocations(&text), 30);
    ck_assert_int_eq(rt.flipped, 0);
    for (int fmt = F_LE; fmt <= F_BE; fmt++) {
        g.fmt = fmt;
        buf bin = grid_ply(&g);
        strata_mesh *m = decode_threads(&bin, NULL, &rb);
        same_mesh(ref, m, fmt_names[fmt]);
        ck_assert_int_le(decode_allocations(&bin), 20); /* not read again in order */
        ck_assert_uint_eq(rb.dropped, rt.dropped);
        ck_assert_int_eq(rb.flipped, rt.flipped);
        strata_mesh_destroy(m);
        free(bin.p);
    }
    /* up z and a reversed winding: the rotation and the flip on threads */
    strata_import_options o;
    strata_import_defaults(&o);
    o.up = STRATA_AXIS_Z;
    strata_mesh *rz = decode_threads(&text, &o, &rt);
    ck_assert_int_eq(rt.flipped, 1); /* y up, seen with z up: facing down */
    g.fmt = F_LE;
    buf bin = grid_ply(&g);
    strata_mesh *mz = decode_threads(&bin, &o, &rb);
    same_mesh(rz, mz, "up z");
    ck_assert_int_eq(rb.flipped, 1);
    expect_edges(mz);
    strata_mesh_destroy(rz);
    strata_mesh_destroy(mz);
    free(bin.p);
    strata_mesh_destroy(ref);
    free(text.p);
}
END_TEST

/* Files the parallel reader hands back to the reader in order: one quad
 * among triangles (records of two sizes), degenerate triangles dropped,
 * and the first fault in file order reported. */
START_TEST(test_parallel_fallback)
{
    strata_import_report rt, rb;
    /* a quad in the last block of faces */
    grid_spec g = {F_ASCII, 190, 0, 0, 0, 2L * 190 * 190 - 4};
    buf text = grid_ply(&g);
    g.fmt = F_LE;
    buf bin = grid_ply(&g);
    strata_mesh *a = decode_threads(&text, NULL, &rt), *b = decode_threads(&bin, NULL, &rb);
    ck_assert_uint_eq(strata_mesh_triangle_count(a), 2u * 190 * 190 + 1);
    same_mesh(a, b, "one quad");
    expect_edges(b);
    strata_mesh_destroy(a);
    strata_mesh_destroy(b);
    free(text.p);
    free(bin.p);

    /* degenerate triangles: dropped in order */
    grid_spec d = {F_ASCII, 160, 0, 0, 1, -1};
    text = grid_ply(&d);
    d.fmt = F_BE;
    bin = grid_ply(&d);
    a = decode_threads(&text, NULL, &rt);
    b = decode_threads(&bin, NULL, &rb);
    ck_assert_uint_eq(rt.dropped, (2u * 160 * 160 + 91) / 97);
    ck_assert_uint_eq(rb.dropped, rt.dropped);
    same_mesh(a, b, "degenerate");
    expect_edges(b);
    strata_mesh_destroy(a);
    strata_mesh_destroy(b);
    free(text.p);

    /* faults late in the file, and two faults: the first in file order */
    const size_t body = (size_t)(strstr((char *)bin.p, "end_header\n") - (char *)bin.p) + 11;
    free(bin.p);
    for (int faces_first = 0; faces_first < 2; faces_first++) {
        grid_spec f = {F_LE, 160, 0, faces_first, 0, -1};
        const uint32_t nv = 161 * 161;
        const size_t nf = 2u * 160 * 160;
        buf good = grid_ply(&f);
        const size_t start = (size_t)(strstr((char *)good.p, "end_header\n") - (char *)good.p) + 11;
        const size_t vbytes = 12 * (size_t)nv, fbytes = 18 * nf;
        require_eq(good.n, start + vbytes + fbytes);
        const size_t v0 = faces_first ? start + fbytes : start;
        const size_t f0 = faces_first ? start : start + vbytes;
        const float nan = NAN;
        const uint32_t out = nv; /* one past the last vertex */
        for (int k = 0; k < 3; k++) {
            buf c = {NULL, 0, 0};
            put(&c, good.p, good.n);
            if (k != 1) /* the last vertex's y: NaN */
                memcpy(c.p + v0 + 12 * ((size_t)nv - 1) + 4, &nan, 4);
            if (k != 0) /* the last face's last corner: out of range */
                memcpy(c.p + f0 + 18 * (nf - 1) + 9, &out, 4);
            const strata_status want = k == 0 ? STRATA_ERR_NOT_FINITE
                                       : k == 1 ? STRATA_ERR_BAD_MESH
                                       : faces_first ? STRATA_ERR_BAD_MESH
                                                     : STRATA_ERR_NOT_FINITE;
            for (int th = 1; th <= 3; th++) {
                strata_ctx *ctx = ctx_new(th);
                strata_mesh *m = (strata_mesh *)&m;
                ck_assert_status(decode(ctx, c.p, c.n, NULL, NULL, &m), want);
                ck_assert_ptr_null(m);
                strata_ctx_destroy(ctx);
            }
            free(c.p);
        }
        /* cut short inside the faces (the header's claims fit: a face is
         * at least its count byte) */
        strata_ctx *ctx = ctx_new(2);
        strata_mesh *m;
        const size_t cut = faces_first ? start + fbytes - 7 : good.n - 7;
        ck_assert_status(decode(ctx, good.p, cut, NULL, NULL, &m), STRATA_ERR_TRUNCATED);
        strata_ctx_destroy(ctx);
        free(good.p);
    }
    (void)body;
}
END_TEST

/* A closed surface seen from above sums to about zero: the flip is then
 * decided by the sum in triangle order, as before, at any thread count;
 * a big file is mapped by strata_mesh_load and gives the mesh decoded
 * from its bytes. */
START_TEST(test_parallel_winding_and_load)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *ico;
    ck_assert_ok(strata_shape_icosphere(ctx, 5, 1.0f, &ico));
    strata_mesh_view v;
    strata_mesh_get_view(ico, &v);
    plyw w = {{NULL, 0, 0}, F_LE, 1};
    char head[256];
    snprintf(head, sizeof head,
             "ply\nformat binary_little_endian 1.0\nelement vertex %u\nproperty float x\n"
             "property float y\nproperty float z\nelement face %u\n"
             "property list uchar int vertex_indices\nend_header\n",
             v.nverts, v.ntris);
    puts_(&w.b, head);
    for (uint32_t i = 0; i < v.nverts; i++) {
        w_float(&w, v.x[i]);
        w_float(&w, v.y[i]);
        w_float(&w, v.z[i]);
    }
    double sum = 0.0; /* the sum in order, as the importer defines it */
    for (uint32_t t = 0; t < v.ntris; t++) {
        /* every 5th triangle reversed: some sign noise in the sum */
        const uint32_t c[3] = {v.a[t], t % 5 ? v.b[t] : v.c[t], t % 5 ? v.c[t] : v.b[t]};
        w_int(&w, 3, 1);
        for (int k = 0; k < 3; k++)
            w_int(&w, c[k], 4);
        const double ux = (double)v.x[c[1]] - v.x[c[0]], uz = (double)v.z[c[1]] - v.z[c[0]];
        const double vx = (double)v.x[c[2]] - v.x[c[0]], vz = (double)v.z[c[2]] - v.z[c[0]];
        sum += uz * vx - ux * vz;
    }
    strata_mesh_destroy(ico);
    strata_ctx_destroy(ctx);
    strata_import_report rep;
    strata_mesh *m = decode_threads(&w.b, NULL, &rep);
    ck_assert_int_eq(rep.flipped, sum < 0.0);
    expect_edges(m);
    strata_mesh_destroy(m);

    /* Terms whose exact sum is -499.75 but whose sum in order is +0.25
     * (the -0.5s vanish against 2^54): not flipped, as ever, although
     * the sums of blocks of triangles would say otherwise. */
    plyw r = {{NULL, 0, 0}, F_LE, 1};
    enum { PAD = 70000, HALVES = 1000 };
    snprintf(head, sizeof head,
             "ply\nformat binary_little_endian 1.0\nelement vertex 8\nproperty float x\n"
             "property float y\nproperty float z\nelement face %d\n"
             "property list uchar int vertex_indices\nend_header\n",
             1 + PAD + HALVES + 2);
    puts_(&r.b, head);
    /* O, A, B, C, D, E, Y1, Y2 */
    static const float pts[8][3] = {{0, 0, 0}, {0x1p27f, 0, 0}, {0, 0, 0x1p27f}, {1, 0, 0},
                                    {0, 0, 0.5f}, {0.5f, 0, 0}, {0, 1, 0}, {0, 2, 0}};
    for (int i = 0; i < 8; i++)
        for (int k = 0; k < 3; k++)
            w_float(&r, pts[i][k]);
    /* in this order: +2^54 once, 0 (vertical), -0.5, -2^54 once, +0.25 once */
    static const int tris[5][3] = {{0, 2, 1}, {0, 6, 7}, {0, 3, 4}, {0, 1, 2}, {0, 4, 5}};
    const long counts[5] = {1, PAD, HALVES, 1, 1};
    for (int k = 0; k < 5; k++)
        for (long i = 0; i < counts[k]; i++) {
            w_int(&r, 3, 1);
            for (int c = 0; c < 3; c++)
                w_int(&r, tris[k][c], 4);
        }
    m = decode_threads(&r.b, NULL, &rep);
    ck_assert_int_eq(rep.flipped, 0);
    strata_mesh_destroy(m);
    free(r.b.p);

    /* strata_mesh_load maps a file over 1 MiB: the same mesh */
    grid_spec g = {F_LE, 300, 0, 0, 0, -1};
    buf big = grid_ply(&g);
    ck_assert_uint_gt(big.n, 1u << 20);
    const char *path = scratch("big.ply");
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(big.p, 1, big.n, f), big.n);
    ck_assert_int_eq(fclose(f), 0);
    ctx = ctx_new(2);
    strata_mesh *d, *l;
    ck_assert_ok(decode(ctx, big.p, big.n, NULL, NULL, &d));
    ck_assert_ok(strata_mesh_load(ctx, path, NULL, NULL, &l));
    same_mesh(d, l, "loaded");
    strata_mesh_destroy(d);
    strata_mesh_destroy(l);
    strata_ctx_destroy(ctx);
    unlink(path);
    scratch_done();
    free(big.p);
    free(w.b.p);
}
END_TEST

/* The grid of grid_spec (layout 0) as OBJ text over 2 MiB (read in
 * parallel): the vertices in the file's order with texture coordinates,
 * normals, comments and groups between them, the faces in the same
 * order in every corner form, some with negative indices (counting back
 * from the vertices read so far), faces of 2 corners (dropped), and
 * vertices (9, 9, 9) among the faces, unused. */
static buf grid_obj(const grid_spec *g)
{
    buf o = {NULL, 0, 0};
    const uint32_t nv = (uint32_t)((g->n + 1) * (g->n + 1)), s = (uint32_t)g->n + 1;
    char line[256];
    puts_(&o, "# a grid\nmtllib none.mtl\no grid\n");
    for (uint32_t id = 0; id < nv; id++) {
        const uint32_t p = scramble(id, nv), i = p % s, j = p / s;
        snprintf(line, sizeof line, "v %.9g %.9g %.9g%s\n", (double)((float)i * 0.5f),
                 (double)bump(i, j), (double)((float)j * 0.5f), id % 7 ? "" : " 1.0");
        puts_(&o, line);
        if (id % 11 == 0)
            puts_(&o, "vt 0.5 0.25\nvn 0 1 0\n# between\n");
    }
    /* a comment longer than a chunk: the faces' chunks hold no grid
     * vertex, so an index counted back from a wrong base still lands on
     * a vertex (a wrong mesh, not a fault read again in order) */
    char *pad = malloc((1u << 20) + 64);
    ck_assert_ptr_nonnull(pad);
    memset(pad, 'x', (1u << 20) + 60);
    memcpy(pad, "# ", 2);
    strcpy(pad + (1u << 20) + 60, "\n");
    puts_(&o, pad);
    free(pad);
    puts_(&o, "g faces\nusemtl stone\n");
    long f = 0, have = nv; /* vertices read so far */
    for (uint32_t j = 0; j < (uint32_t)g->n; j++)
        for (uint32_t i = 0; i < (uint32_t)g->n; i++) {
            const uint32_t q[4] = {file_id(g, j * s + i), file_id(g, (j + 1) * s + i),
                                   file_id(g, (j + 1) * s + i + 1), file_id(g, j * s + i + 1)};
            for (int half = 0; half < 2; half++, f++) {
                const uint32_t t[3] = {q[0], half ? q[2] : q[1], half ? q[3] : q[2]};
                char *e = line + snprintf(line, sizeof line, "f");
                for (int k = 0; k < 3; k++) {
                    /* (not the first vertices: an index counted from the wrong
                     * base must land on another vertex, not outside) */
                    const long v = f % 3 == 1 && t[k] >= 64 ? (long)t[k] - have : (long)t[k] + 1;
                    e += f % 5 == 2   ? sprintf(e, " %ld//1", v)
                         : f % 5 == 3 ? sprintf(e, " %ld/1/1", v)
                         : f % 5 == 4 ? sprintf(e, " %ld/1", v)
                                      : sprintf(e, " %ld", v);
                }
                strcpy(e, f % 13 == 0 ? " # note\n" : "\n");
                puts_(&o, line);
                if (f % 1009 == 0)
                    puts_(&o, "f 1 2\n");
                if (f % 4999 == 0) { /* an unused vertex, after the grid's */
                    puts_(&o, "v 9 9 9\n");
                    have++;
                }
            }
        }
    return o;
}

/* OBJ read in parallel: the mesh of the same grid's binary PLY (itself
 * that of its ASCII PLY) and the unused vertices at 1-3 threads, the
 * dropped faces counted; late
 * faults (a vertex out of the float range, an index past the last
 * vertex, a NUL byte) reported as the reader in order reports them. */
START_TEST(test_parallel_obj)
{
    grid_spec g = {F_LE, 400, 0, 0, 0, -1};
    buf ply = grid_ply(&g), obj = grid_obj(&g);
    ck_assert_uint_gt(obj.n, 4u << 20);
    strata_import_report rp, ro;
    strata_mesh *a = decode_threads(&ply, NULL, &rp), *b = decode_threads(&obj, NULL, &ro);
    strata_mesh_view va, vb;
    strata_mesh_get_view(a, &va);
    strata_mesh_get_view(b, &vb);
    const uint32_t extra = (2u * 400 * 400 + 4998) / 4999;
    ck_assert_uint_eq(vb.nverts, va.nverts + extra);
    ck_assert_uint_eq(vb.ntris, va.ntris);
    for (uint32_t i = 0; i < vb.nverts; i++)
        require(i < va.nverts ? vb.x[i] == va.x[i] && vb.y[i] == va.y[i] && vb.z[i] == va.z[i]
                              : vb.x[i] == 9 && vb.y[i] == 9 && vb.z[i] == 9,
                "obj vertex %u", i);
    require(!memcmp(va.a, vb.a, 4 * (size_t)va.ntris) && !memcmp(va.b, vb.b, 4 * (size_t)va.ntris) &&
                !memcmp(va.c, vb.c, 4 * (size_t)va.ntris),
            "obj triangles differ");
    expect_edges(b);
    ck_assert_int_le(decode_allocations(&obj), 20);
    ck_assert_int_eq(ro.format, STRATA_IMPORT_OBJ);
    ck_assert_uint_eq(ro.dropped, (2u * 400 * 400 + 1008) / 1009);
    ck_assert_uint_eq(rp.dropped, 0);
    strata_mesh_destroy(a);
    strata_mesh_destroy(b);
    static const char *const tails[] = {"v 1 1e39 1\n", "f 1 2 999999999\n", "f 1 -1\n\0\n",
                                        "f 1 2 3 x\n"};
    static const strata_status want[] = {STRATA_ERR_NOT_FINITE, STRATA_ERR_BAD_MESH,
                                         STRATA_ERR_FORMAT, STRATA_ERR_FORMAT};
    static const size_t tail_len[] = {11, 16, 10, 10};
    for (int k = 0; k < 4; k++) {
        buf c = {NULL, 0, 0};
        put(&c, obj.p, obj.n);
        put(&c, tails[k], tail_len[k]);
        for (int th = 1; th <= 3; th += 2) {
            strata_ctx *ctx = ctx_new(th);
            strata_mesh *m = (strata_mesh *)&m;
            ck_assert_status(decode(ctx, c.p, c.n, NULL, NULL, &m), want[k]);
            ck_assert_ptr_null(m);
            strata_ctx_destroy(ctx);
        }
        free(c.p);
    }
    free(ply.p);
    free(obj.p);
}
END_TEST

/* strata_mesh_create's edge table at 1 and 3 threads: a fan of 200
 * triangles around one vertex (a bucket sorted by qsort) and its
 * definition. */
START_TEST(test_edges_fan)
{
    enum { N = 200 };
    float xyz[3 * (N + 1)];
    uint32_t tri[3 * N];
    xyz[0] = xyz[1] = xyz[2] = 0.0f;
    for (int k = 0; k < N; k++) {
        const double a = 6.283185307179586 * k / N;
        xyz[3 * (k + 1)] = (float)cos(a);
        xyz[3 * (k + 1) + 1] = 0.0f;
        xyz[3 * (k + 1) + 2] = (float)-sin(a);
        /* corners scrambled: the centre's bucket filled out of order */
        const uint32_t p = (uint32_t)(k * 37 % N) + 1, q = (uint32_t)((k * 37 + 1) % N) + 1;
        tri[3 * k] = k & 1 ? p : 0;
        tri[3 * k + 1] = k & 1 ? q : p;
        tri[3 * k + 2] = k & 1 ? 0 : q;
    }
    strata_mesh *m[2];
    for (int i = 0; i < 2; i++) {
        strata_ctx *ctx = ctx_new(1 + 2 * i);
        ck_assert_ok(strata_mesh_create(ctx, xyz, N + 1, tri, N, &m[i]));
        expect_edges(m[i]);
        strata_ctx_destroy(ctx);
    }
    ck_assert_uint_eq(strata_mesh_edge_count(m[0]), 2 * N);
    same_mesh(m[0], m[1], "fan");
    strata_mesh_destroy(m[0]);
    strata_mesh_destroy(m[1]);
}
END_TEST

static Suite *import_suite(void)
{
    Suite *s = suite_create("import");
    TCase *tc = tcase_create("Core");
    tcase_add_loop_test(tc, test_ply_formats, F_ASCII, F_BE + 1);
    tcase_add_test(tc, test_ply_variants);
    tcase_add_test(tc, test_obj_forms);
    tcase_add_test(tc, test_obj_locale);
    tcase_add_test(tc, test_weld);
    tcase_add_test(tc, test_winding);
    tcase_add_loop_test(tc, test_up_axes, 0, 3);
    tcase_add_test(tc, test_rotate_exact);
    tcase_add_test(tc, test_radial);
    tcase_add_loop_test(tc, test_round_trip, 0, 4);
    suite_add_tcase(s, tc);
    TCase *par = tcase_create("Parallel");
    tcase_set_timeout(par, 60);
    tcase_add_loop_test(par, test_parallel_same, 0, 4);
    tcase_add_test(par, test_parallel_fallback);
    tcase_add_test(par, test_parallel_winding_and_load);
    tcase_add_test(par, test_parallel_obj);
    tcase_add_test(par, test_edges_fan);
    suite_add_tcase(s, par);
    TCase *lim = tcase_create("Limits");
    tcase_add_test(lim, test_ply_bad_header);
    tcase_add_test(lim, test_obj_bad);
    tcase_add_test(lim, test_truncation);
    tcase_add_test(lim, test_huge_claims);
    tcase_add_test(lim, test_bad_values);
    tcase_add_test(lim, test_load_errors);
    tcase_add_test(lim, test_load_not_regular);
    suite_add_tcase(s, lim);
    return s;
}

int main(void) { return run_suite(import_suite()); }
