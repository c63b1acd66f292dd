/* Suite "write": PLY and OBJ + MTL files read back and compared with the
 * result they came from; format selection; atomic replacement and clean
 * failure. */
#define _POSIX_C_SOURCE 200809L

#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ helpers */

static char *tmpdir_new(void)
{
    char tmpl[] = "/tmp/strata-write-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    return strdup(tmpl);
}

/* Number of entries in d, and whether one of them looks like a temporary
 * file left behind. */
static int dir_entries(const char *d, int *temps)
{
    DIR *dir = opendir(d);
    ck_assert_ptr_nonnull(dir);
    int n = 0;
    *temps = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        n++;
        *temps += strstr(e->d_name, ".tmp") != NULL;
    }
    closedir(dir);
    return n;
}

static void tmpdir_remove(char *d)
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

static char *join(const char *d, const char *name)
{
    size_t n = strlen(d) + strlen(name) + 2;
    char *p = malloc(n);
    ck_assert_ptr_nonnull(p);
    snprintf(p, n, "%s/%s", d, name);
    return p;
}

static unsigned char *slurp(const char *path, size_t *len)
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

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

static strata_ctx *new_ctx(void)
{
    strata_ctx *ctx;
    ck_assert_ok(strata_ctx_create(NULL, &ctx));
    return ctx;
}

/* An n x n FLAT grid with rolling hills, built from arrays so this suite
 * does not depend on the noise module. */
static strata_mesh *hills(strata_ctx *ctx, uint32_t n)
{
    const uint32_t nv = (n + 1) * (n + 1), nt = 2 * n * n;
    float *xyz = malloc(3 * (size_t)nv * sizeof *xyz);
    uint32_t *tri = malloc(3 * (size_t)nt * sizeof *tri);
    ck_assert(xyz && tri);
    for (uint32_t j = 0; j <= n; j++)
        for (uint32_t i = 0; i <= n; i++) {
            float *p = xyz + 3 * (j * (n + 1) + i);
            p[0] = (float)i - n / 2.0f;
            p[2] = (float)j - n / 2.0f;
            p[1] = 2.0f * sinf(0.45f * p[0]) * cosf(0.3f * p[2]) + 0.05f * p[0];
        }
    uint32_t *t = tri;
    for (uint32_t j = 0; j < n; j++)
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = j * (n + 1) + i;
            /* counter-clockwise seen from +y */
            *t++ = v, *t++ = v + n + 1, *t++ = v + 1;
            *t++ = v + 1, *t++ = v + n + 1, *t++ = v + n + 2;
        }
    strata_mesh *m;
    ck_assert_ok(strata_mesh_create(ctx, xyz, nv, tri, nt, &m));
    free(xyz);
    free(tri);
    return m;
}

/* Loop index i: walls mode i % 3, normals i / 3. */
static strata_result *sliced(strata_ctx *ctx, int i)
{
    strata_mesh *m = hills(ctx, 12);
    float levels[6];
    ck_assert_ok(strata_levels_uniform(m, 6, NULL, levels));
    strata_slice_options o = {levels, 6, (strata_walls)(i % 3), i / 3};
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &o, &r));
    strata_mesh_destroy(m);
    return r;
}

static strata_result *unsliced(strata_ctx *ctx, int normals)
{
    strata_mesh *m = hills(ctx, 6);
    strata_result *r;
    ck_assert_ok(strata_result_from_mesh(ctx, m, normals, &r));
    strata_mesh_destroy(m);
    return r;
}

/* Expected terrace / wall fields of every face, from the ranges. */
static void face_labels(const strata_result_view *v, int32_t *terrace, unsigned char *wall)
{
    const uint64_t nf = v->nindices / 3;
    for (uint64_t f = 0; f < nf; f++)
        terrace[f] = -2, wall[f] = 0;
    for (uint32_t k = 0; k < v->nterraces; k++) {
        const strata_terrace *t = &v->terraces[k];
        for (uint64_t f = t->roof_first / 3; f < (t->roof_first + t->roof_count) / 3; f++) {
            ck_assert_int_eq(terrace[f], -2); /* ranges are disjoint */
            terrace[f] = (int32_t)k;
        }
        for (uint64_t f = t->wall_first / 3; f < (t->wall_first + t->wall_count) / 3; f++) {
            ck_assert_int_eq(terrace[f], -2);
            terrace[f] = (int32_t)k;
            wall[f] = 1;
        }
    }
    for (uint64_t f = 0; f < nf; f++)
        ck_assert_msg(terrace[f] >= 0, "face %llu in no range", (unsigned long long)f);
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int same_float(float a, uint32_t bits)
{
    uint32_t u;
    memcpy(&u, &a, 4);
    return u == bits;
}

/* ------------------------------------------------------------ PLY */

static void check_ply(const strata_result *r, const char *path)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    const int normals = v.nx != NULL;
    char want[1024];
    snprintf(want, sizeof want,
             "ply\n"
             "format binary_little_endian 1.0\n"
             "comment generated by strata %s\n"
             "element vertex %u\n"
             "property float x\n"
             "property float y\n"
             "property float z\n"
             "%s"
             "element face %llu\n"
             "property list uchar uint vertex_indices\n"
             "property int terrace\n"
             "property uchar wall\n"
             "end_header\n",
             STRATA_VERSION, v.nverts,
             normals ? "property float nx\nproperty float ny\nproperty float nz\n" : "",
             (unsigned long long)(v.nindices / 3));
    size_t len;
    unsigned char *b = slurp(path, &len);
    const size_t hl = strlen(want);
    ck_assert_uint_ge(len, hl);
    ck_assert_msg(memcmp(b, want, hl) == 0, "header:\n%.*s\nwant:\n%s", (int)hl, b, want);

    const size_t vrec = normals ? 24 : 12, frec = 18;
    const uint64_t nf = v.nindices / 3;
    ck_assert_uint_eq(len, hl + v.nverts * vrec + nf * frec);
    const unsigned char *p = b + hl;
    for (uint32_t i = 0; i < v.nverts; i++, p += vrec) {
        ck_assert(same_float(v.x[i], le32(p)));
        ck_assert(same_float(v.y[i], le32(p + 4)));
        ck_assert(same_float(v.z[i], le32(p + 8)));
        if (normals) {
            ck_assert(same_float(v.nx[i], le32(p + 12)));
            ck_assert(same_float(v.ny[i], le32(p + 16)));
            ck_assert(same_float(v.nz[i], le32(p + 20)));
        }
    }
    int32_t *terrace = malloc((nf + 1) * sizeof *terrace);
    unsigned char *wall = malloc(nf + 1);
    face_labels(&v, terrace, wall);
    for (uint64_t f = 0; f < nf; f++, p += frec) {
        ck_assert_uint_eq(p[0], 3);
        for (int k = 0; k < 3; k++) {
            ck_assert_uint_eq(le32(p + 1 + 4 * k), v.indices[3 * f + (uint64_t)k]);
            ck_assert_uint_lt(le32(p + 1 + 4 * k), v.nverts);
        }
        ck_assert_int_eq((int32_t)le32(p + 13), terrace[f]);
        ck_assert_uint_eq(p[17], wall[f]);
    }
    free(terrace);
    free(wall);
    free(b);
}

static void roundtrip_ply(strata_result *r)
{
    char *d = tmpdir_new(), *path = join(d, "out.ply");
    ck_assert_ok(strata_result_write(r, path, STRATA_FORMAT_AUTO));
    check_ply(r, path);
    int temps, n = dir_entries(d, &temps);
    ck_assert_int_eq(n, 1);
    ck_assert_int_eq(temps, 0);
    free(path);
    tmpdir_remove(d);
}

START_TEST(test_ply_unsliced)
{
    strata_ctx *ctx = new_ctx();
    strata_result *r = unsliced(ctx, _i);
    roundtrip_ply(r);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_ply_sliced)
{
    strata_ctx *ctx = new_ctx();
    strata_result *r = sliced(ctx, _i);
    strata_result_view v;
    strata_result_get_view(r, &v);
    ck_assert_uint_gt(v.nterraces, 1);
    uint64_t walls = 0;
    for (uint32_t k = 0; k < v.nterraces; k++)
        walls += v.terraces[k].wall_count;
    ck_assert_uint_gt(walls, 0); /* the wall field is really exercised */
    roundtrip_ply(r);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ OBJ */

#define MAX_GROUPS 64

typedef struct group {
    char name[48], mtl[48];
    uint64_t faces;
} group;

static group *find_group(group *g, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(g[i].name, name))
            return &g[i];
    return NULL;
}

static void check_obj(const strata_result *r, const char *dir, const char *path)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    const int normals = v.nx != NULL, sep = v.walls == STRATA_WALLS_SEPARATE;

    /* Expected groups in file order, with the faces they hold. */
    group want[MAX_GROUPS];
    int nwant = 0;
    uint64_t *order = malloc((v.nindices / 3 + 1) * sizeof *order); /* face ids in file order */
    uint64_t nord = 0;
    {
        typedef struct { uint64_t first, count; uint32_t k; int wall; } rg;
        rg list[2 * MAX_GROUPS];
        int n = 0;
        ck_assert_uint_le(v.nterraces, MAX_GROUPS / 2);
        for (uint32_t k = 0; k < v.nterraces; k++) {
            if (v.terraces[k].roof_count)
                list[n++] = (rg){v.terraces[k].roof_first, v.terraces[k].roof_count, k, 0};
            if (v.terraces[k].wall_count)
                list[n++] = (rg){v.terraces[k].wall_first, v.terraces[k].wall_count, k, 1};
        }
        for (int i = 1; i < n; i++) /* insertion sort by position */
            for (int j = i; j > 0 && list[j].first < list[j - 1].first; j--) {
                rg t = list[j];
                list[j] = list[j - 1];
                list[j - 1] = t;
            }
        for (int i = 0; i < n; i++) {
            char name[48], mtl[48];
            const int w = list[i].wall && sep;
            snprintf(name, sizeof name, "%s_%u", w ? "walls" : "terrace", list[i].k);
            snprintf(mtl, sizeof mtl, "%s_%u", w ? "wall" : "terrace", list[i].k);
            if (nwant == 0 || strcmp(want[nwant - 1].name, name) != 0) {
                ck_assert_ptr_null(find_group(want, nwant, name));
                strcpy(want[nwant].name, name);
                strcpy(want[nwant].mtl, mtl);
                want[nwant++].faces = 0;
            }
            want[nwant - 1].faces += list[i].count / 3;
            for (uint64_t f = list[i].first / 3; f < (list[i].first + list[i].count) / 3; f++)
                order[nord++] = f;
        }
    }
    ck_assert_uint_eq(nord, v.nindices / 3);

    size_t len;
    char *text = (char *)slurp(path, &len);
    group got[MAX_GROUPS];
    int ngot = 0;
    uint32_t nv = 0, nvn = 0;
    uint64_t nf = 0;
    char mtllib[256] = "";
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char name[256];
        if (line[0] == '#') {
            continue;
        } else if (sscanf(line, "mtllib %255s", name) == 1) {
            strcpy(mtllib, name);
        } else if (!strncmp(line, "v ", 2) || !strncmp(line, "vn ", 3)) {
            const int isn = line[1] == 'n';
            char *p = line + (isn ? 3 : 2), *end;
            float c[3];
            for (int k = 0; k < 3; k++, p = end) {
                c[k] = strtof(p, &end);
                ck_assert_ptr_ne(end, p);
            }
            ck_assert_str_eq(p, "");
            const uint32_t i = isn ? nvn++ : nv++;
            ck_assert_uint_lt(i, v.nverts);
            /* %.9g: every float reads back exactly */
            if (isn) {
                ck_assert(c[0] == v.nx[i] && c[1] == v.ny[i] && c[2] == v.nz[i]);
            } else {
                ck_assert(c[0] == v.x[i] && c[1] == v.y[i] && c[2] == v.z[i]);
            }
        } else if (sscanf(line, "g %255s", name) == 1) {
            ck_assert_int_lt(ngot, MAX_GROUPS);
            ck_assert_ptr_null(find_group(got, ngot, name));
            strcpy(got[ngot].name, name);
            got[ngot].mtl[0] = '\0';
            got[ngot++].faces = 0;
        } else if (sscanf(line, "usemtl %255s", name) == 1) {
            ck_assert_int_gt(ngot, 0);
            strcpy(got[ngot - 1].mtl, name);
        } else if (line[0] == 'f' && line[1] == ' ') {
            ck_assert_int_gt(ngot, 0);
            ck_assert_uint_lt(nf, nord);
            const uint64_t face = order[nf++];
            char *p = line + 1, *end;
            for (int k = 0; k < 3; k++, p = end) {
                unsigned long a = strtoul(p, &end, 10), b;
                ck_assert_ptr_ne(end, p);
                ck_assert_uint_ge(a, 1); /* 1-based */
                ck_assert_uint_le(a, v.nverts);
                ck_assert_uint_eq(a - 1, v.indices[3 * face + (uint64_t)k]);
                if (normals) {
                    ck_assert(end[0] == '/' && end[1] == '/');
                    b = strtoul(end + 2, &end, 10);
                    ck_assert_uint_eq(b, a);
                }
            }
            ck_assert_str_eq(p, "");
            got[ngot - 1].faces++;
        } else {
            ck_abort_msg("unexpected OBJ line: %s", line);
        }
    }
    free(text);
    ck_assert_uint_eq(nv, v.nverts);
    ck_assert_uint_eq(nvn, normals ? v.nverts : 0);
    ck_assert_uint_eq(nf, v.nindices / 3);
    ck_assert_int_eq(ngot, nwant);
    for (int i = 0; i < nwant; i++) {
        ck_assert_str_eq(got[i].name, want[i].name);
        ck_assert_str_eq(got[i].mtl, want[i].mtl);
        ck_assert_uint_eq(got[i].faces, want[i].faces);
    }

    /* The library: exactly the materials used, each with a colour. */
    char *mtl_path = join(dir, mtllib);
    text = (char *)slurp(mtl_path, &len);
    int nmtl = 0;
    char current[256] = "";
    int has_kd = 1;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char name[256];
        float rgb[3];
        if (sscanf(line, "newmtl %255s", name) == 1) {
            ck_assert_int_eq(has_kd, 1);
            has_kd = 0;
            int used = 0;
            for (int i = 0; i < nwant; i++)
                used += !strcmp(want[i].mtl, name);
            ck_assert_msg(used == 1, "material %s used %d times", name, used);
            strcpy(current, name);
            nmtl++;
        } else if (sscanf(line, "Kd %f %f %f", &rgb[0], &rgb[1], &rgb[2]) == 3) {
            ck_assert_str_ne(current, "");
            for (int c = 0; c < 3; c++)
                ck_assert(rgb[c] >= 0 && rgb[c] <= 1);
            has_kd = 1;
        }
    }
    ck_assert_int_eq(has_kd, 1);
    ck_assert_int_eq(nmtl, nwant); /* one per non-empty group */
    free(text);
    free(mtl_path);
    free(order);
}

static void roundtrip_obj(strata_result *r)
{
    char *d = tmpdir_new(), *path = join(d, "Out.OBJ");
    ck_assert_ok(strata_result_write(r, path, STRATA_FORMAT_AUTO));
    int temps, n = dir_entries(d, &temps);
    ck_assert_int_eq(n, 2); /* Out.OBJ and Out.mtl */
    ck_assert_int_eq(temps, 0);
    check_obj(r, d, path);
    free(path);
    tmpdir_remove(d);
}

START_TEST(test_obj_unsliced)
{
    strata_ctx *ctx = new_ctx();
    strata_result *r = unsliced(ctx, _i);
    roundtrip_obj(r);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_obj_sliced)
{
    strata_ctx *ctx = new_ctx();
    strata_result *r = sliced(ctx, _i);
    roundtrip_obj(r);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ formats */

START_TEST(test_formats)
{
    strata_ctx *ctx = new_ctx();
    strata_result *r = unsliced(ctx, 0);
    char *d = tmpdir_new();
    static const char *bad[] = {"x.stl", "x", "x.ply.gz", "x.plyx", ".", "x.objx"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *p = join(d, bad[i]);
        ck_assert_status(strata_result_write(r, p, STRATA_FORMAT_AUTO), STRATA_ERR_FORMAT);
        free(p);
    }
    int temps;
    ck_assert_int_eq(dir_entries(d, &temps), 0);

    ck_assert_status(strata_result_write(NULL, "x.ply", STRATA_FORMAT_AUTO),
                     STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_write(r, NULL, STRATA_FORMAT_AUTO), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_write(r, "", STRATA_FORMAT_PLY), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_write(r, "x.ply", (strata_format)7), STRATA_ERR_INVALID_ARG);

    /* upper-case extension, and an explicit format overriding the name */
    char *p = join(d, "A.PLY");
    ck_assert_ok(strata_result_write(r, p, STRATA_FORMAT_AUTO));
    check_ply(r, p);
    free(p);
    p = join(d, "b.dat");
    ck_assert_ok(strata_result_write(r, p, STRATA_FORMAT_PLY));
    check_ply(r, p);
    free(p);
    p = join(d, "c.data");
    ck_assert_ok(strata_result_write(r, p, STRATA_FORMAT_OBJ));
    check_obj(r, d, p); /* its library is c.data.mtl */
    free(p);
    ck_assert_int_eq(dir_entries(d, &temps), 4);
    ck_assert_int_eq(temps, 0);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ failures */

START_TEST(test_io_errors)
{
    strata_ctx *ctx = new_ctx();
    strata_result *r = unsliced(ctx, 0);
    char *d = tmpdir_new();
    char *missing = join(d, "no/such/dir/x.ply");
    errno = 0;
    ck_assert_status(strata_result_write(r, missing, STRATA_FORMAT_AUTO), STRATA_ERR_IO);
    ck_assert_int_eq(errno, ENOENT);
    free(missing);
    missing = join(d, "nodir/x.obj");
    ck_assert_status(strata_result_write(r, missing, STRATA_FORMAT_AUTO), STRATA_ERR_IO);
    free(missing);

    /* a regular file used as a directory: fails even for root */
    char *file = join(d, "plain"), *under = join(d, "plain/x.ply");
    spit(file, "x");
    ck_assert_status(strata_result_write(r, under, STRATA_FORMAT_AUTO), STRATA_ERR_IO);
    ck_assert_int_eq(errno, ENOTDIR);
    int temps;
    ck_assert_int_eq(dir_entries(d, &temps), 1);
    unlink(file);
    free(file);
    free(under);

    /* a read-only directory (permissions do not stop root) */
    if (geteuid() != 0) {
        ck_assert_int_eq(chmod(d, 0555), 0);
        char *p = join(d, "x.ply");
        ck_assert_status(strata_result_write(r, p, STRATA_FORMAT_AUTO), STRATA_ERR_IO);
        ck_assert_int_eq(errno, EACCES);
        chmod(d, 0755);
        free(p);
    }
    ck_assert_int_eq(dir_entries(d, &temps), 0);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_replace)
{
    strata_ctx *ctx = new_ctx();
    strata_result *r = unsliced(ctx, 1);
    char *d = tmpdir_new(), *p = join(d, "x.ply"), *o = join(d, "x.obj"), *m = join(d, "x.mtl");
    spit(p, "old contents that are not a PLY file\n");
    spit(o, "old obj\n");
    spit(m, "old mtl\n");
    ck_assert_ok(chmod(p, 0600) == 0 ? STRATA_OK : STRATA_ERR_IO);
    ck_assert_ok(strata_result_write(r, p, STRATA_FORMAT_AUTO));
    check_ply(r, p);
    ck_assert_ok(strata_result_write(r, o, STRATA_FORMAT_AUTO));
    check_obj(r, d, o);
    int temps;
    ck_assert_int_eq(dir_entries(d, &temps), 3);
    ck_assert_int_eq(temps, 0);
    /* a fresh file: 0644 less the umask, not mkstemp's 0600 */
    mode_t mask = umask(022);
    umask(mask);
    struct stat sb;
    ck_assert_int_eq(stat(p, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 0777, 0644 & ~mask);
    ck_assert_int_eq(stat(m, &sb), 0);
    ck_assert_uint_eq(sb.st_mode & 0777, 0644 & ~mask);
    free(p);
    free(o);
    free(m);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A write that fails half-way (file size limit: EFBIG) leaves the old
 * files untouched and no temporary behind. */
START_TEST(test_write_failure)
{
    strata_ctx *ctx = new_ctx();
    strata_mesh *mesh = hills(ctx, 64);
    strata_result *r;
    ck_assert_ok(strata_result_from_mesh(ctx, mesh, 0, &r));
    strata_mesh_destroy(mesh);
    char *d = tmpdir_new(), *p = join(d, "x.ply"), *o = join(d, "x.obj"), *m = join(d, "x.mtl");
    spit(p, "old ply\n");
    spit(o, "old obj\n");
    spit(m, "old mtl\n");
    /* Check logs every assertion to a file of its own: no assertions
     * while the limit is on. */
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, rl;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    rl = old;
    rl.rlim_cur = 4000; /* the .mtl fits, the rest does not */
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    errno = 0;
    strata_status st_ply = strata_result_write(r, p, STRATA_FORMAT_AUTO);
    int err_ply = errno;
    strata_status st_obj = strata_result_write(r, o, STRATA_FORMAT_AUTO);
    int err_obj = errno;
    setrlimit(RLIMIT_FSIZE, &old);
    ck_assert_status(st_ply, STRATA_ERR_IO);
    ck_assert_int_eq(err_ply, EFBIG);
    ck_assert_status(st_obj, STRATA_ERR_IO);
    ck_assert_int_eq(err_obj, EFBIG);
    size_t len;
    const char *want[] = {"old ply\n", "old obj\n", "old mtl\n"};
    char *paths[] = {p, o, m};
    for (int i = 0; i < 3; i++) {
        char *b = (char *)slurp(paths[i], &len);
        ck_assert_str_eq(b, want[i]);
        free(b);
        free(paths[i]);
    }
    int temps;
    ck_assert_int_eq(dir_entries(d, &temps), 3);
    ck_assert_int_eq(temps, 0);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

static Suite *write_suite(void)
{
    Suite *s = suite_create("write");
    TCase *tc = tcase_create("Core");
    tcase_add_loop_test(tc, test_ply_unsliced, 0, 2);
    tcase_add_loop_test(tc, test_ply_sliced, 0, 6);
    tcase_add_loop_test(tc, test_obj_unsliced, 0, 2);
    tcase_add_loop_test(tc, test_obj_sliced, 0, 6);
    tcase_add_test(tc, test_formats);
    suite_add_tcase(s, tc);
    TCase *lim = tcase_create("Limits");
    tcase_add_test(lim, test_io_errors);
    tcase_add_test(lim, test_replace);
    tcase_add_test(lim, test_write_failure);
    suite_add_tcase(s, lim);
    return s;
}

int main(void) { return run_suite(write_suite()); }
