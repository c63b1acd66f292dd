/* Wavefront OBJ files: reading triangle meshes into the importer's
 * builder (import.h), and writing results as OBJ with an MTL material
 * library beside them (write.h).  Numbers are read and written the same
 * way whatever the locale. */
#define _POSIX_C_SOURCE 200809L

#include "base/alloc.h"
#include "base/ctx.h"
#include "io/import.h"
#include "base/lex.h"
#include "base/output.h"
#include "base/par.h"
#include "mesh/result.h"
#include "io/write.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

/* The next token of a line: ends at whitespace or '#' (a comment). */
static bool line_token(const char **p, const char *end, const char **t, size_t *n)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f'))
        s++;
    if (s == end || *s == '#')
        return false;
    const char *q = s;
    while (q < end && !strata__is_space((unsigned char)*q) && *q != '#')
        q++;
    *t = s;
    *n = (size_t)(q - s);
    *p = q;
    return true;
}

/* The x y z of a "v" line after its keyword (w or colours may follow). */
static strata_status vertex_line(const char **p, const char *le, float c[3])
{
    for (int k = 0; k < 3; k++) {
        const char *t;
        size_t n;
        if (!line_token(p, le, &t, &n))
            return STRATA_ERR_FORMAT;
        const strata_status st = strata__parse_real(t, n, &c[k]);
        if (st != STRATA_OK)
            return st;
    }
    return STRATA_OK;
}

/* One face corner: v, v/vt, v/vt/vn or v//vn; only v is used.  OBJ
 * indices are 1-based; negative ones count back from the last vertex read
 * so far.  Positive ones may refer to vertices defined later in the file,
 * so the 0-based id is range-checked once the whole file is read. */
static strata_status obj_corner(const char *t, size_t n, size_t nv, uint32_t *id)
{
    size_t i = 0;
    while (i < n && t[i] != '/')
        i++;
    int64_t v;
    if (strata__parse_integer(t, i, &v) != STRATA_OK)
        return STRATA_ERR_FORMAT;
    /* The rest: /[int] or /[int]/[int]; the numbers are not used. */
    for (int part = 0; part < 2 && i < n; part++) {
        if (t[i] != '/')
            return STRATA_ERR_FORMAT;
        size_t s = ++i;
        while (i < n && t[i] != '/')
            i++;
        int64_t unused;
        if (i > s && strata__parse_integer(t + s, i - s, &unused) != STRATA_OK)
            return STRATA_ERR_FORMAT;
        if (i == s && (part == 1 || i == n))
            return STRATA_ERR_FORMAT; /* "v/", "v//", "v/vt/" */
    }
    if (i != n)
        return STRATA_ERR_FORMAT;
    if (v > 0 && v <= (int64_t)UINT32_MAX)
        *id = (uint32_t)(v - 1);
    else if (v < 0 && -v <= (int64_t)nv)
        *id = (uint32_t)((int64_t)nv + v);
    else
        return STRATA_ERR_BAD_MESH; /* 0, before the first vertex, or huge */
    return STRATA_OK;
}

/* The reader in order: the reference, and the reader of small files and
 * of files with a fault. */
static strata_status obj_read_serial(strata_builder *b, const uint8_t *data, size_t len)
{
    const char *s = (const char *)data, *end = s + len;
    if (memchr(s, '\0', len))
        return STRATA_ERR_FORMAT; /* not a text file */
    bool any = false; /* a v or f statement */
    strata_status st;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end, *p = s;
        s = nl ? nl + 1 : end;
        const char *t;
        size_t n;
        if (!line_token(&p, le, &t, &n))
            continue;
        if (strata__tok_eq(t, n, "v")) {
            float c[3];
            if ((st = vertex_line(&p, le, c)) != STRATA_OK)
                return st;
            /* w or colours may follow: ignored. */
            if ((st = strata__push_vertex(b, c[0], c[1], c[2])) != STRATA_OK)
                return st;
            any = true;
        } else if (strata__tok_eq(t, n, "f")) {
            strata__face_begin(b);
            while (line_token(&p, le, &t, &n)) {
                uint32_t id;
                if ((st = obj_corner(t, n, b->nv, &id)) != STRATA_OK)
                    return st;
                if ((st = strata__face_corner(b, id)) != STRATA_OK)
                    return st;
            }
            strata__face_end(b);
            any = true;
        }
        /* vt, vn, g, o, s, usemtl, mtllib, l, p, ...: ignored */
    }
    if (!any)
        return STRATA_ERR_FORMAT;
    for (size_t t = 0; t < b->nt; t++)
        if (b->a[t] >= b->nv || b->b[t] >= b->nv || b->c[t] >= b->nv)
            return STRATA_ERR_BAD_MESH; /* a forward reference never defined */
    return STRATA_OK;
}

/* Big files are read in parallel: the text is cut into chunks of whole
 * lines; a first pass counts each chunk's vertices and triangles, a
 * second parses them into their places (a negative index counts back
 * from the vertices of the chunks before plus those read so far in its
 * own).  The numbers go through the same parsers, so the mesh is the
 * reader in order's; a file in which either pass finds anything amiss
 * is read again in order, for its error. */
#define OBJ_CHUNK ((size_t)1 << 20)

typedef struct obj_chunk {
    const char *from, *to;     /* whole lines */
    uint64_t nv, nt, dropped;  /* counted */
    uint64_t vbase, tbase;     /* the first vertex and triangle of the chunk */
    int any;
} obj_chunk;

typedef struct obj_job {
    strata_builder *b;
    obj_chunk *c;
    uint64_t nv; /* vertices in all */
} obj_job;

static strata_status obj_count(void *arg, size_t k, int thread)
{
    (void)thread;
    obj_chunk *c = &((obj_job *)arg)->c[k];
    if (memchr(c->from, '\0', (size_t)(c->to - c->from)))
        return STRATA_ERR_FORMAT;
    for (const char *s = c->from, *end = c->to; s < end;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end, *p = s;
        s = nl ? nl + 1 : end;
        const char *t;
        size_t n;
        if (!line_token(&p, le, &t, &n))
            continue;
        if (strata__tok_eq(t, n, "v")) {
            c->nv++;
            c->any = 1;
        } else if (strata__tok_eq(t, n, "f")) {
            uint64_t corners = 0;
            while (line_token(&p, le, &t, &n))
                corners++;
            if (corners >= 3)
                c->nt += corners - 2;
            else
                c->dropped++;
            c->any = 1;
        }
    }
    return STRATA_OK;
}

static strata_status obj_fill(void *arg, size_t k, int thread)
{
    (void)thread;
    const obj_job *j = arg;
    const obj_chunk *c = &j->c[k];
    strata_builder *b = j->b;
    size_t v = (size_t)c->vbase, tri = (size_t)c->tbase;
    strata_status st;
    for (const char *s = c->from, *end = c->to; s < end;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end, *p = s;
        s = nl ? nl + 1 : end;
        const char *t;
        size_t n;
        if (!line_token(&p, le, &t, &n))
            continue;
        if (strata__tok_eq(t, n, "v")) {
            float q[3];
            if ((st = vertex_line(&p, le, q)) != STRATA_OK)
                return st;
            if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2]))
                return STRATA_ERR_NOT_FINITE;
            b->x[v] = q[0], b->y[v] = q[1], b->z[v] = q[2];
            v++;
        } else if (strata__tok_eq(t, n, "f")) {
            uint32_t first = 0, prev = 0;
            for (uint64_t corner = 0; line_token(&p, le, &t, &n); corner++) {
                uint32_t id;
                if ((st = obj_corner(t, n, v, &id)) != STRATA_OK)
                    return st;
                if (id >= j->nv)
                    return STRATA_ERR_BAD_MESH; /* never defined */
                if (corner >= 2) {
                    b->a[tri] = first, b->b[tri] = prev, b->c[tri] = id;
                    tri++;
                } else if (corner == 0) {
                    first = id;
                }
                prev = id;
            }
        }
    }
    return STRATA_OK;
}

/* STRATA_OK with the builder filled, STRATA_ERR_NOMEM, or anything else
 * for a file to read in order (the builder then holds nothing). */
static strata_status obj_read_parallel(strata_builder *b, const char *s, size_t len)
{
    const size_t most = len / OBJ_CHUNK + 1;
    obj_chunk *c = strata__alloc_array(b->al, most, sizeof *c);
    if (!c)
        return STRATA_ERR_NOMEM;
    memset(c, 0, most * sizeof *c);
    size_t n = 0;
    for (const char *p = s, *end = s + len; p < end; n++) {
        const char *q = end - p > (ptrdiff_t)OBJ_CHUNK ? p + OBJ_CHUNK : end;
        const char *nl = q < end ? memchr(q, '\n', (size_t)(end - q)) : NULL;
        q = nl ? nl + 1 : end;
        c[n].from = p;
        c[n].to = q;
        p = q;
    }
    obj_job j = {b, c, 0};
    strata_status st = strata__par_blocks(b->ctx, n, obj_count, &j, NULL, 0, 0, 0);
    uint64_t nt = 0, dropped = 0;
    int any = 0;
    for (size_t k = 0; k < n && st == STRATA_OK; k++) {
        c[k].vbase = j.nv;
        c[k].tbase = nt;
        j.nv += c[k].nv;
        nt += c[k].nt;
        dropped += c[k].dropped;
        any |= c[k].any;
    }
    if (st == STRATA_OK && (!any || j.nv >= UINT32_MAX || nt > UINT32_MAX / 3))
        st = STRATA_ERR_FORMAT; /* the reader in order says which */
    if (st == STRATA_OK)
        st = strata__builder_reserve(b, (size_t)j.nv, (size_t)nt);
    if (st == STRATA_OK)
        st = strata__par_blocks(b->ctx, n, obj_fill, &j, NULL, 0, 0, 0);
    strata__free(b->al, c);
    if (st == STRATA_OK) {
        b->nv = (size_t)j.nv;
        b->nt = (size_t)nt;
        b->dropped = dropped;
    }
    return st;
}

strata_status strata__obj_read(strata_builder *b, const uint8_t *data, size_t len)
{
    if (len >= 2 * OBJ_CHUNK) {
        const strata_status st = obj_read_parallel(b, (const char *)data, len);
        if (st == STRATA_OK || st == STRATA_ERR_NOMEM)
            return st;
    }
    return obj_read_serial(b, data, len);
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

/* Longest OBJ line: "vn " + 3 * (%.9g of a float: at most 15 chars + a
 * space), or a face line with texture coordinates and normals: "f" + 3 *
 * " u32/u32/u32" + "\n" (101 bytes). */
#define LINE_MAX_BYTES 112

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

/* The current locale's decimal point: %g follows LC_NUMERIC, which a host
 * application may have set to a comma. */
static char decimal_point(void)
{
    const struct lconv *lc = localeconv();
    return lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point[0] : '.';
}

/* Lines between progress checks of the OBJ writer. */
#define OBJ_PROGRESS_LINES 4096u

/* Progress of an OBJ file in lines: vertices, normals and faces. */
typedef struct obj_lines {
    uint64_t done, total;
} obj_lines;

static inline int obj_step(strata_out *o, obj_lines *l, uint64_t i)
{
    if (i % OBJ_PROGRESS_LINES)
        return strata__out_ok(o);
    strata__out_progress(o, l->done + i, l->total);
    return strata__out_ok(o);
}

/* "<tag> x y z\n" for every vertex; %.9g makes each float read back
 * exactly. */
static void obj_vectors(strata_out *o, obj_lines *l, const char *tag, const float *x,
                        const float *y, const float *z, uint32_t n)
{
    const char dp = decimal_point();
    for (uint32_t i = 0; i < n && obj_step(o, l, i); i++) {
        char *p = (char *)strata__out_room(o, LINE_MAX_BYTES);
        int len = snprintf(p, LINE_MAX_BYTES, "%s %.9g %.9g %.9g\n", tag, (double)x[i],
                           (double)y[i], (double)z[i]);
        if (dp != '.')
            for (int j = 0; j < len; j++)
                p[j] = p[j] == dp ? '.' : p[j];
        o->len += (size_t)len;
    }
    l->done += n;
}

/* "vt u v\n" for every vertex with texture coordinates (2 floats each):
 * the shoreline's, or every vertex's (strata_result_add_uv). */
static void obj_texcoords(strata_out *o, obj_lines *l, const float *uv, uint32_t n)
{
    const char dp = decimal_point();
    for (uint32_t i = 0; i < n && obj_step(o, l, i); i++) {
        char *p = (char *)strata__out_room(o, LINE_MAX_BYTES);
        int len = snprintf(p, LINE_MAX_BYTES, "vt %.9g %.9g\n", (double)uv[2 * i],
                           (double)uv[2 * i + 1]);
        if (dp != '.')
            for (int j = 0; j < len; j++)
                p[j] = p[j] == dp ? '.' : p[j];
        o->len += (size_t)len;
    }
    l->done += n;
}

/* Faces of indices [from, to): "f a b c", "f a//a ..." with normals; with
 * texture coordinates (tex: the shoreline's, or every vertex's) "f a/t
 * b/t c/t" or "a/t/a", t counted from uv_first (0 for every vertex's). */
static void obj_faces(strata_out *o, obj_lines *l, const strata_result *r, uint64_t from,
                      uint64_t to, int tex)
{
    const int normals = r->nx != NULL;
    const uint32_t *ix = r->indices;
    for (uint64_t i = from; i + 3 <= to && obj_step(o, l, (i - from) / 3); i += 3) {
        char *p = (char *)strata__out_room(o, LINE_MAX_BYTES), *p0 = p;
        *p++ = 'f';
        for (int k = 0; k < 3; k++) {
            const uint64_t v = (uint64_t)ix[i + (uint64_t)k] + 1; /* OBJ counts from 1 */
            *p++ = ' ';
            p = put_dec(p, v);
            if (tex) {
                *p++ = '/';
                p = put_dec(p, v - r->uv_first);
            }
            if (normals) {
                if (!tex)
                    *p++ = '/';
                *p++ = '/';
                p = put_dec(p, v);
            }
        }
        *p++ = '\n';
        o->len += (size_t)(p - p0);
    }
    l->done += (to - from) / 3;
}

/* Group and material names of a strata_range: walls keep their own group only
 * when the result keeps them in ranges of their own. */
static void range_names(const strata_result *r, const strata_range *g, char *group, char *mtl,
                        size_t size)
{
    if (g->terrace == STRATA_TERRACE_WATER) {
        snprintf(group, size, "water");
        snprintf(mtl, size, "water");
        return;
    }
    if (g->terrace == STRATA_TERRACE_SHORE) {
        snprintf(group, size, "shoreline");
        snprintf(mtl, size, "shoreline");
        return;
    }
    const int sep = g->wall && r->walls == STRATA_WALLS_SEPARATE;
    snprintf(group, size, "%s_%ld", sep ? "walls" : "terrace", (long)g->terrace);
    snprintf(mtl, size, "%s_%ld", sep ? "wall" : "terrace", (long)g->terrace);
}

static void write_obj(strata_out *o, const strata_result *r, const strata_range *rg, size_t nrg,
                      const char *mtl_name)
{
    strata__out_str(o, "# generated by strata " STRATA_VERSION "\nmtllib ");
    strata__out_str(o, mtl_name);
    strata__out_str(o, "\n");
    obj_lines l = {0, (r->nx ? 2 * (uint64_t)r->nverts : r->nverts) + r->nuv +
                          r->nindices / 3};
    obj_vectors(o, &l, "v", r->x, r->y, r->z, r->nverts);
    if (r->nx)
        obj_vectors(o, &l, "vn", r->nx, r->ny, r->nz, r->nverts);
    obj_texcoords(o, &l, r->uv, r->nuv);
    const int mesh_uv = !r->shore_count && r->nuv && r->uv_first == 0 && r->nuv == r->nverts;
    char group[48], mtl[48], prev[48] = "";
    for (size_t k = 0; k < nrg && strata__out_ok(o); k++) {
        range_names(r, &rg[k], group, mtl, sizeof group);
        /* roofs and walls of one terrace are adjacent without SEPARATE:
         * one group */
        if (strcmp(group, prev) != 0) {
            char line[128];
            snprintf(line, sizeof line, "g %s\nusemtl %s\n", group, mtl);
            strata__out_str(o, line);
            memcpy(prev, group, sizeof prev);
        }
        obj_faces(o, &l, r, rg[k].first, rg[k].first + rg[k].count,
                  mesh_uv || (rg[k].terrace == STRATA_TERRACE_SHORE && r->nuv));
    }
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

static void write_mtl(strata_out *o, const strata_result *r, const strata_range *rg, size_t nrg,
                      const strata_palette *pal)
{
    strata__out_str(o, "# generated by strata " STRATA_VERSION "\n");
    char group[48], mtl[48], prev[48] = "";
    for (size_t k = 0; k < nrg; k++) {
        range_names(r, &rg[k], group, mtl, sizeof group);
        if (strcmp(mtl, prev) == 0)
            continue;
        memcpy(prev, mtl, sizeof prev);
        if (rg[k].terrace == STRATA_TERRACE_WATER) { /* translucent blue: d is opacity */
            strata__out_str(o, "\nnewmtl water\nKd 0.1500 0.4200 0.7000\nKa 0 0 0\nKs 0 0 0\n"
                               "d 0.6000\nillum 1\n");
            continue;
        }
        if (rg[k].terrace == STRATA_TERRACE_SHORE) { /* foam */
            strata__out_str(o, "\nnewmtl shoreline\nKd 0.9000 0.9500 1.0000\nKa 0 0 0\n"
                               "Ks 0 0 0\nd 0.8000\nillum 1\n");
            continue;
        }
        float rgb[3];
        const int dark = rg[k].wall && r->walls == STRATA_WALLS_SEPARATE;
        strata_palette_color(pal, (uint32_t)rg[k].terrace, r->nterraces, dark,
                             STRATA_COLOR_SRGB, rgb);
        char line[160], *p = line;
        p += snprintf(p, 64, "\nnewmtl %s\nKd", mtl);
        for (int c = 0; c < 3; c++) {
            *p++ = ' ';
            p = put_unit(p, rgb[c]);
        }
        memcpy(p, "\nKa 0 0 0\nKs 0 0 0\nillum 1\n", sizeof "\nKa 0 0 0\nKs 0 0 0\nillum 1\n");
        strata__out_str(o, line);
    }
}

/* FILE.mtl first, then FILE.obj: both are complete before either is
 * renamed, and the .mtl goes first so a new .obj never names materials
 * its .mtl lacks. */
strata_status strata__obj_write(strata_ctx *ctx, const strata_result *r, const char *path,
                                const strata_palette *pal)
{
    const int saved_errno = errno;
    const strata_allocator *al = &ctx->alloc;
    size_t nrg = 0;
    strata_range *rg = strata__sorted_ranges(r, al, &nrg);
    if (!rg)
        return STRATA_ERR_NOMEM;
    /* FILE.obj -> FILE.mtl, anything else -> NAME.mtl appended */
    const size_t n = strlen(path), stem = strata__has_suffix(path, ".obj") ? n - 4 : n;
    char *mtl_path = strata__alloc(al, stem + 5);
    if (!mtl_path) {
        strata__free(al, rg);
        errno = saved_errno;
        return STRATA_ERR_NOMEM;
    }
    memcpy(mtl_path, path, stem);
    memcpy(mtl_path + stem, ".mtl", 5);
    const char *slash = strrchr(mtl_path, '/');
    strata_out o[2] = {STRATA_OUT_INIT(ctx), STRATA_OUT_INIT(ctx)}; /* .mtl, .obj */
    if (strata__out_open(&o[0], mtl_path, ctx) == 0 && strata__out_open(&o[1], path, ctx) == 0) {
        write_mtl(&o[0], r, rg, nrg, pal);
        strata__out_finish(&o[0]);
        write_obj(&o[1], r, rg, nrg, slash ? slash + 1 : mtl_path);
        strata__out_finish(&o[1]);
    }
    strata__free(al, rg);
    const char *const paths[2] = {mtl_path, path};
    const strata_status st = strata__write_finish(ctx, o, paths, 2, saved_errno);
    const int err = errno;
    strata__free(al, mtl_path);
    errno = err;
    return st;
}
