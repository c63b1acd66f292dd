/* Suite "gltf": .glb files parsed back byte by byte (header, chunks,
 * JSON, accessors, buffer contents) and compared with the result they came
 * from; the 4 GiB refusal; palettes (presets, text format, files) and the
 * MTL colours that use them. */
#define _POSIX_C_SOURCE 200809L

#include "config.h"
#include "testutil.h"

#include "mesh/result.h" /* struct strata_result: fake huge results */

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

#ifdef HAVE_MESHOPTIMIZER
#include <meshoptimizer.h>
#endif

/* ------------------------------------------------------------ files */

static void spit(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

/* Whether the n bytes at s contain the string w. */
static int contains(const char *s, size_t n, const char *w)
{
    const size_t m = strlen(w);
    for (size_t i = 0; i + m <= n; i++)
        if (!memcmp(s + i, w, m))
            return 1;
    return 0;
}

/* ------------------------------------------------------------ results */

/* A noise terrain of n x n cells sliced into nt terraces. */
static strata_result *terrain(strata_ctx *ctx, uint32_t n, uint32_t nt, strata_walls walls,
                              int normals)
{
    strata_mesh *m;
    ck_assert_ok(strata_shape_grid(ctx, n, n, 10.0f / (float)n, &m));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.3f;
    f.amplitude = 1.5f;
    ck_assert_ok(strata_displace_flat(ctx, m, &f, NULL));
    float *levels = malloc(nt * sizeof *levels);
    ck_assert_ok(strata_levels_uniform(m, nt, NULL, levels));
    strata_slice_options o = slice_options(levels, nt, walls, normals, 0);
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &o, &r));
    free(levels);
    strata_mesh_destroy(m);
    return r;
}

static strata_result *planet(strata_ctx *ctx, int level, uint32_t nt, int normals)
{
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, level, 1.0f, &m));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 1.5f;
    f.amplitude = 0.1f;
    ck_assert_ok(strata_displace_radial(ctx, m, &f, NULL));
    float *levels = malloc(nt * sizeof *levels);
    ck_assert_ok(strata_levels_uniform(m, nt, NULL, levels));
    strata_slice_options o = slice_options(levels, nt, STRATA_WALLS_UPPER, normals, 0);
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &o, &r));
    free(levels);
    strata_mesh_destroy(m);
    return r;
}

/* ------------------------------------------------------------ tiny JSON */

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
    jtype type;
    double num;
    char *str;          /* J_STR */
    size_t n;           /* J_ARR, J_OBJ: number of items */
    struct jval *items; /* J_ARR, J_OBJ */
    char **keys;        /* J_OBJ */
} jval;

typedef struct jparser {
    const char *s, *end;
} jparser;

static void jws(jparser *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\n' || *p->s == '\r' || *p->s == '\t'))
        p->s++;
}

static char *jstring(jparser *p)
{
    require(p->s < p->end && *p->s == '"', "JSON: string expected at '%.20s'", p->s);
    const char *a = ++p->s;
    while (p->s < p->end && *p->s != '"') {
        require(*p->s != '\\', "JSON: escapes are not expected in strata's output");
        p->s++;
    }
    require(p->s < p->end, "JSON: unterminated string");
    char *out = strndup(a, (size_t)(p->s - a));
    p->s++;
    return out;
}

static void jparse(jparser *p, jval *v)
{
    jws(p);
    require(p->s < p->end, "JSON: value expected");
    memset(v, 0, sizeof *v);
    const char c = *p->s;
    if (c == '{' || c == '[') {
        v->type = c == '{' ? J_OBJ : J_ARR;
        p->s++;
        jws(p);
        size_t cap = 0;
        if (p->s < p->end && *p->s == (c == '{' ? '}' : ']')) {
            p->s++;
            return;
        }
        for (;;) {
            if (v->n == cap) {
                cap = cap ? 2 * cap : 8;
                v->items = realloc(v->items, cap * sizeof *v->items);
                if (c == '{')
                    v->keys = realloc(v->keys, cap * sizeof *v->keys);
            }
            if (c == '{') {
                jws(p);
                v->keys[v->n] = jstring(p);
                jws(p);
                require(p->s < p->end && *p->s == ':', "JSON: ':' expected");
                p->s++;
            }
            jparse(p, &v->items[v->n++]);
            jws(p);
            require(p->s < p->end, "JSON: unterminated container");
            if (*p->s == ',') {
                p->s++;
                continue;
            }
            require(*p->s == (c == '{' ? '}' : ']'), "JSON: ',' or end expected at '%.20s'", p->s);
            p->s++;
            return;
        }
    }
    if (c == '"') {
        v->type = J_STR;
        v->str = jstring(p);
        return;
    }
    if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "null", 4) || !strncmp(p->s, "false", 5)) {
        v->type = c == 'n' ? J_NULL : J_BOOL;
        v->num = c == 't';
        p->s += c == 'f' ? 5 : 4;
        return;
    }
    char *e;
    v->type = J_NUM;
    v->num = strtod(p->s, &e);
    require(e > p->s, "JSON: number expected at '%.20s'", p->s);
    p->s = e;
}

static void jfree(jval *v)
{
    for (size_t i = 0; i < v->n; i++) {
        jfree(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

/* Member of an object, NULL when absent. */
static const jval *jget(const jval *o, const char *key)
{
    if (!o || o->type != J_OBJ)
        return NULL;
    for (size_t i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key))
            return &o->items[i];
    return NULL;
}

static const jval *jat(const jval *a, size_t i)
{
    require(a && a->type == J_ARR && i < a->n, "JSON: index %zu out of range", i);
    return &a->items[i];
}

/* A required number member. */
static double jnum(const jval *o, const char *key)
{
    const jval *v = jget(o, key);
    require(v && v->type == J_NUM, "JSON: number member '%s' missing", key);
    return v->num;
}

/* ------------------------------------------------------------ GLB reader */

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef struct glb {
    unsigned char *bytes;
    size_t len;
    jval json;
    const unsigned char *bin;
    uint32_t bin_len;
} glb;

/* Read and check the container: header, chunk types, lengths, alignment
 * and padding; parse the JSON. */
static void glb_read(const char *path, glb *g)
{
    memset(g, 0, sizeof *g);
    g->bytes = slurp(path, &g->len);
    const unsigned char *b = g->bytes;
    ck_assert_uint_ge(g->len, 28);
    ck_assert_uint_eq(rd32(b), 0x46546C67u); /* "glTF" */
    ck_assert_uint_eq(rd32(b + 4), 2);
    ck_assert_uint_eq(rd32(b + 8), g->len);
    ck_assert_uint_eq(g->len % 4, 0);
    const uint32_t jlen = rd32(b + 12);
    ck_assert_uint_eq(rd32(b + 16), 0x4E4F534Au); /* "JSON" */
    ck_assert_uint_eq(jlen % 4, 0);
    ck_assert_uint_le(20 + (uint64_t)jlen, g->len);
    /* padded with spaces after the closing brace */
    size_t end = 20 + jlen;
    while (end > 20 && b[end - 1] == ' ')
        end--;
    ck_assert_uint_ge(20 + jlen - end, 0);
    ck_assert_uint_lt(20 + jlen - end, 4);
    ck_assert_int_eq(b[end - 1], '}');
    jparser p = {(const char *)b + 20, (const char *)b + end};
    jparse(&p, &g->json);
    ck_assert_int_eq(g->json.type, J_OBJ);
    jws(&p);
    ck_assert_ptr_eq(p.s, p.end);

    if (20 + (size_t)jlen == g->len)
        return; /* no BIN chunk */
    const unsigned char *c = b + 20 + jlen;
    ck_assert_uint_ge(g->len - (20 + jlen), 8);
    g->bin_len = rd32(c);
    ck_assert_uint_eq(rd32(c + 4), 0x004E4942u); /* "BIN\0" */
    ck_assert_uint_eq(g->bin_len % 4, 0);
    ck_assert_uint_eq(20 + (uint64_t)jlen + 8 + g->bin_len, g->len);
    g->bin = c + 8;
}

static void glb_free(glb *g)
{
    jfree(&g->json);
    free(g->bytes);
}

static size_t comp_size(int type)
{
    return type == 5126 || type == 5125 ? 4 : type == 5123 ? 2 : 0;
}

/* The bytes of accessor i, checked to lie inside its view and the BIN
 * chunk, aligned as glTF requires.  *count and *ctype returned. */
static const unsigned char *accessor_data(const glb *g, size_t i, uint64_t *count, int *ctype,
                                          size_t *ncomp)
{
    const jval *acc = jat(jget(&g->json, "accessors"), i);
    const jval *views = jget(&g->json, "bufferViews");
    const jval *view = jat(views, (size_t)jnum(acc, "bufferView"));
    const jval *aoff = jget(acc, "byteOffset");
    const uint64_t off = aoff ? (uint64_t)aoff->num : 0;
    const uint64_t voff = (uint64_t)jnum(view, "byteOffset");
    const uint64_t vlen = (uint64_t)jnum(view, "byteLength");
    *ctype = (int)jnum(acc, "componentType");
    *count = (uint64_t)jnum(acc, "count");
    const jval *type = jget(acc, "type");
    ck_assert_ptr_nonnull(type);
    *ncomp = !strcmp(type->str, "VEC3")   ? 3
             : !strcmp(type->str, "VEC4") ? 4
             : !strcmp(type->str, "VEC2") ? 2
                                          : 1;
    const size_t cs = comp_size(*ctype);
    ck_assert_uint_ne(cs, 0);
    ck_assert_uint_ge(*count, 1);
    ck_assert_uint_eq(voff % 4, 0);
    ck_assert_uint_eq(off % cs, 0);
    ck_assert_uint_eq((voff + off) % cs, 0);
    const jval *stride = jget(view, "byteStride");
    const uint64_t elem = cs * *ncomp;
    if (stride)
        ck_assert_uint_eq((uint64_t)stride->num, elem); /* tightly packed */
    ck_assert_uint_le(off + *count * elem, vlen);
    ck_assert_uint_le(voff + vlen, g->bin_len);
    const jval *buf = jat(jget(&g->json, "buffers"), (size_t)jnum(view, "buffer"));
    ck_assert_uint_le(voff + vlen, (uint64_t)jnum(buf, "byteLength"));
    ck_assert_uint_le((uint64_t)jnum(buf, "byteLength"), g->bin_len);
    return g->bin + voff + off;
}

static float rdf(const unsigned char *p)
{
    uint32_t u = rd32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* ------------------------------------------------------------ the check */

typedef struct want_prim {
    uint32_t k;
    int wall;
    uint64_t first[2], count[2];
} want_prim;

/* Primitives expected for r: per terrace (roofs and walls together), or
 * all roofs then all walls with STRATA_WALLS_SEPARATE. */
static size_t expected_prims(const strata_result_view *v, want_prim *w)
{
    size_t n = 0;
    const int sep = v->walls == STRATA_WALLS_SEPARATE;
    for (int pass = 0; pass < (sep ? 2 : 1); pass++)
        for (uint32_t k = 0; k < v->nterraces; k++) {
            const strata_terrace *t = &v->terraces[k];
            want_prim q = {k, pass, {0, 0}, {0, 0}};
            if (pass == 0) {
                q.first[0] = t->roof_first;
                q.count[0] = t->roof_count;
            }
            if (!sep || pass == 1) {
                q.first[1] = t->wall_first;
                q.count[1] = t->wall_count;
            }
            if (q.count[0] + q.count[1])
                w[n++] = q;
        }
    return n;
}

/* Write r as path on the context's threads and check everything in the
 * file against it. */
static void check_glb(strata_ctx *ctx, const strata_result *r, const char *path,
                      const strata_palette *pal)
{
    strata_write_options wo;
    strata_write_defaults(&wo);
    wo.palette = pal;
    ck_assert_ok(strata_result_write(ctx, r, path, &wo));
    uint64_t predicted;
    ck_assert_ok(strata_result_glb_size(ctx, r, &predicted));

    glb g;
    glb_read(path, &g);
    ck_assert_uint_eq(predicted, g.len);
    strata_result_view v;
    strata_result_get_view(r, &v);
    const jval *J = &g.json;

    const jval *asset = jget(J, "asset");
    ck_assert_str_eq(jget(asset, "version")->str, "2.0");
    ck_assert_str_eq(jget(asset, "generator")->str, "strata " STRATA_VERSION);
    ck_assert_int_eq((int)jnum(J, "scene"), 0);
    ck_assert_uint_eq(jget(J, "scenes")->n, 1);
    ck_assert_uint_eq(jget(J, "nodes")->n, 1);
    ck_assert_int_eq((int)jnum(jat(jget(J, "nodes"), 0), "mesh"), 0);
    ck_assert_uint_eq(jget(J, "meshes")->n, 1);

    want_prim *want = malloc((2 * (size_t)v.nterraces + 1) * sizeof *want);
    const size_t nwant = expected_prims(&v, want);
    const jval *prims = jget(jat(jget(J, "meshes"), 0), "primitives");
    ck_assert_uint_eq(prims->n, nwant);
    ck_assert_uint_eq(jget(J, "materials")->n, nwant); /* one each, none unused */
    const int normals = v.nx != NULL;
    ck_assert_uint_eq(jget(J, "accessors")->n, nwant + 1 + (size_t)normals);

    /* POSITION: the vertices, min/max the real extremes */
    uint64_t count;
    int ctype;
    size_t ncomp;
    const unsigned char *pos = accessor_data(&g, 0, &count, &ctype, &ncomp);
    ck_assert_uint_eq(count, v.nverts);
    ck_assert_int_eq(ctype, 5126);
    ck_assert_uint_eq(ncomp, 3);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < v.nverts; i++) {
        const float xyz[3] = {v.x[i], v.y[i], v.z[i]};
        for (int c = 0; c < 3; c++) {
            require(rdf(pos + 12 * (size_t)i + 4 * (size_t)c) == xyz[c], "vertex %u differs", i);
            lo[c] = fminf(lo[c], xyz[c]);
            hi[c] = fmaxf(hi[c], xyz[c]);
        }
    }
    const jval *acc0 = jat(jget(J, "accessors"), 0);
    for (int c = 0; c < 3; c++) {
        ck_assert((float)jat(jget(acc0, "min"), (size_t)c)->num == lo[c]);
        ck_assert((float)jat(jget(acc0, "max"), (size_t)c)->num == hi[c]);
        /* printed exactly: the JSON double is the float itself */
        ck_assert(jat(jget(acc0, "min"), (size_t)c)->num == (double)lo[c]);
        ck_assert(jat(jget(acc0, "max"), (size_t)c)->num == (double)hi[c]);
    }
    if (normals) {
        const unsigned char *nrm = accessor_data(&g, 1, &count, &ctype, &ncomp);
        ck_assert_uint_eq(count, v.nverts);
        for (uint32_t i = 0; i < v.nverts; i++)
            require(rdf(nrm + 12 * (size_t)i) == v.nx[i] &&
                        rdf(nrm + 12 * (size_t)i + 4) == v.ny[i] &&
                        rdf(nrm + 12 * (size_t)i + 8) == v.nz[i],
                    "normal %u differs", i);
    }

    for (size_t p = 0; p < nwant; p++) {
        const jval *pr = jat(prims, p);
        const jval *attr = jget(pr, "attributes");
        ck_assert_int_eq((int)jnum(attr, "POSITION"), 0);
        ck_assert_int_eq(jget(attr, "NORMAL") != NULL, normals);
        if (normals)
            ck_assert_int_eq((int)jnum(attr, "NORMAL"), 1);
        ck_assert_int_eq((int)jnum(pr, "mode"), 4);
        /* material name and colour */
        const jval *mat = jat(jget(J, "materials"), (size_t)jnum(pr, "material"));
        char name[64];
        snprintf(name, sizeof name, "%s_%u", want[p].wall ? "wall" : "terrace", want[p].k);
        ck_assert_str_eq(jget(mat, "name")->str, name);
        const jval *pbr = jget(mat, "pbrMetallicRoughness");
        ck_assert(jnum(pbr, "metallicFactor") == 0);
        ck_assert(fabs(jnum(pbr, "roughnessFactor") - 0.9) < 1e-9);
        float rgb[3];
        strata_palette_color(pal, want[p].k, v.nterraces, want[p].wall, STRATA_COLOR_LINEAR, rgb);
        const jval *bc = jget(pbr, "baseColorFactor");
        ck_assert_uint_eq(bc->n, 4);
        for (int c = 0; c < 3; c++)
            ck_assert_double_eq_tol(jat(bc, (size_t)c)->num, rgb[c], 1e-6);
        ck_assert(jat(bc, 3)->num == 1);

        /* indices: the result's ranges, u16 exactly when they fit */
        const unsigned char *ix =
            accessor_data(&g, (size_t)jnum(pr, "indices"), &count, &ctype, &ncomp);
        ck_assert_uint_eq(ncomp, 1);
        ck_assert_uint_eq(count, want[p].count[0] + want[p].count[1]);
        uint32_t top = 0;
        uint64_t j = 0;
        for (int s = 0; s < 2; s++)
            for (uint64_t i = 0; i < want[p].count[s]; i++, j++) {
                const uint32_t idx = v.indices[want[p].first[s] + i];
                const uint32_t got = ctype == 5123 ? (uint32_t)(ix[2 * j] | ix[2 * j + 1] << 8)
                                                   : rd32(ix + 4 * j);
                require(got == idx, "primitive %zu index %llu: %u, want %u", p,
                        (unsigned long long)j, got, idx);
                top = idx > top ? idx : top;
            }
        ck_assert_int_eq(ctype, top < 65535 ? 5123 : 5125);
    }
    free(want);
    glb_free(&g);
}

/* ------------------------------------------------------------ tests */

START_TEST(test_glb_polygon_u16)
{
    strata_ctx *ctx = ctx_new(0);
    strata_mesh *m, *s;
    ck_assert_ok(strata_shape_polygon(ctx, 6, 1.0f, &m));
    ck_assert_ok(strata_mesh_subdivide(ctx, m, 3, 0, &s));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.amplitude = 0.3f;
    ck_assert_ok(strata_displace_flat(ctx, s, &f, NULL));
    float levels[5];
    ck_assert_ok(strata_levels_uniform(s, 5, NULL, levels));
    strata_slice_options o = slice_options(levels, 5, STRATA_WALLS_LOWER, 0, 0);
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, s, &o, &r));
    char *d = tmpdir_new(), *p = join(d, "poly.glb");
    check_glb(ctx, r, p, NULL);
    /* all indices are small: every primitive is u16 */
    size_t len;
    char *text = (char *)slurp(p, &len);
    ck_assert(!contains(text, len, "\"componentType\":5125"));
    free(text);
    free(p);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_mesh_destroy(s);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Walls modes: primitive per terrace, or roofs and walls apart. */
static const strata_walls walls_modes[] = {STRATA_WALLS_UPPER, STRATA_WALLS_LOWER,
                                           STRATA_WALLS_SEPARATE};

START_TEST(test_glb_walls_modes)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = terrain(ctx, 24, 6, walls_modes[_i], _i == 1);
    char *d = tmpdir_new(), *p = join(d, "t.GLB"); /* extension in any case */
    strata_palette pal;
    ck_assert_ok(strata_palette_preset("desert", &pal));
    check_glb(ctx, r, p, &pal);
    strata_result_view v;
    strata_result_get_view(r, &v);
    size_t nroof = 0, nwall = 0, nboth = 0;
    for (uint32_t k = 0; k < v.nterraces; k++) {
        nroof += v.terraces[k].roof_count > 0;
        nwall += v.terraces[k].wall_count > 0;
        nboth += v.terraces[k].roof_count + v.terraces[k].wall_count > 0;
    }
    ck_assert_uint_gt(nwall, 0);
    glb g;
    glb_read(p, &g);
    const size_t nprims = jget(jat(jget(&g.json, "meshes"), 0), "primitives")->n;
    ck_assert_uint_eq(nprims, walls_modes[_i] == STRATA_WALLS_SEPARATE ? nroof + nwall : nboth);
    glb_free(&g);
    free(p);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* More than 65535 vertices: primitives high up in the vertex list need u32,
 * the others stay u16. */
START_TEST(test_glb_u32_indices)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = terrain(ctx, 256, 6, STRATA_WALLS_UPPER, 0);
    strata_result_view v;
    strata_result_get_view(r, &v);
    ck_assert_uint_gt(v.nverts, 65535);
    char *d = tmpdir_new(), *p = join(d, "big.glb");
    check_glb(ctx, r, p, NULL);
    size_t len;
    char *text = (char *)slurp(p, &len);
    ck_assert(contains(text, len, "\"componentType\":5125"));
    free(text);
    free(p);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_glb_planet_normals)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = planet(ctx, 3, 8, 1);
    char *d = tmpdir_new(), *p = join(d, "planet.glb");
    check_glb(ctx, r, p, NULL);
    free(p);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_glb_unsliced)
{
    strata_ctx *ctx = ctx_new(0);
    strata_mesh *m;
    ck_assert_ok(strata_shape_grid(ctx, 4, 4, 1.0f, &m));
    strata_result *r;
    ck_assert_ok(strata_result_from_mesh(ctx, m, 0, &r));
    char *d = tmpdir_new(), *p = join(d, "flat.glb");
    check_glb(ctx, r, p, NULL);
    free(p);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Files of many write blocks (u16 and u32 primitives, padded runs,
 * normals): the same bytes with 1, 2, 3 and 7 threads, each file right. */
START_TEST(test_glb_threads)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = terrain(ctx, 300, 7, walls_modes[_i], _i != 1);
    char *d = tmpdir_new();
    static const int threads[] = {1, 2, 3, 7};
    unsigned char *first = NULL;
    size_t first_len = 0;
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
        char name[32];
        snprintf(name, sizeof name, "t%d.glb", threads[t]);
        char *p = join(d, name);
        ck_assert_ok(strata_ctx_set_threads(ctx, threads[t]));
        check_glb(ctx, r, p, NULL);
        size_t len;
        unsigned char *b = slurp(p, &len);
        if (!first) {
            first = b;
            first_len = len;
            ck_assert_uint_gt(len, 4u << 20); /* many blocks */
        } else {
            ck_assert_uint_eq(len, first_len);
            ck_assert_msg(memcmp(b, first, len) == 0, "%d threads wrote other bytes",
                          threads[t]);
            free(b);
        }
        free(p);
    }
    free(first);
    int temps;
    ck_assert_int_eq(dir_entries(d, &temps), 4);
    ck_assert_int_eq(temps, 0);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* POSITION min/max found in chunks over threads are what one scan from
 * the first vertex finds: the first of -0 and +0, NaN skipped. */
START_TEST(test_glb_extremes)
{
    strata_ctx *ctx = ctx_new(0);
    strata_mesh *m;
    ck_assert_ok(strata_shape_grid(ctx, 300, 300, 1.0f, &m));
    strata_result *r;
    ck_assert_ok(strata_result_from_mesh(ctx, m, 0, &r));
    strata_mesh_destroy(m);
    const uint32_t n = r->nverts;
    ck_assert_uint_gt(n, 80001);
    for (uint32_t i = 0; i < n; i++)
        r->x[i] = r->y[i] = r->z[i] = 1.0f;
    r->x[5] = 0.0f, r->x[80000] = -0.0f;
    r->y[5] = -0.0f, r->y[80000] = 0.0f;
    const uint32_t c1 = (uint32_t)((uint64_t)n / 64); /* the second chunk */
    r->z[c1] = NAN, r->z[c1 + 1] = -5.0f;
    char *d = tmpdir_new(), *p = join(d, "x.glb");
    for (int t = 1; t <= 3; t++) {
        ck_assert_ok(strata_ctx_set_threads(ctx, t));
        ck_assert_ok(write_as(ctx, r, p, STRATA_FORMAT_GLB));
        size_t len;
        char *text = (char *)slurp(p, &len);
        ck_assert_msg(contains(text, len, "\"min\":[0,-0,-5],\"max\":[1,1,1]"), "%d threads", t);
        free(text);
    }
    free(p);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The file size limit hit while two threads write: STRATA_ERR_IO with
 * EFBIG, the old file untouched, no temporary left. */
START_TEST(test_glb_write_failure_threads)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = terrain(ctx, 300, 7, STRATA_WALLS_UPPER, 1);
    char *d = tmpdir_new(), *p = join(d, "x.glb");
    spit(p, "old glb\n", 8);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit old, rl;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    rl = old;
    rl.rlim_cur = 3u << 20; /* in the middle of the BIN chunk */
    /* no assertions (a write each) while the limit is on */
    strata_status st = STRATA_OK;
    int err = 0;
    if (setrlimit(RLIMIT_FSIZE, &rl) == 0) {
        strata_ctx_set_threads(ctx, 2);
        errno = 0;
        st = strata_result_write(ctx, r, p, NULL);
        err = errno;
        setrlimit(RLIMIT_FSIZE, &old);
    }
    ck_assert_status(st, STRATA_ERR_IO);
    ck_assert_int_eq(err, EFBIG);
    size_t len;
    char *b = (char *)slurp(p, &len);
    ck_assert_str_eq(b, "old glb\n");
    free(b);
    int temps;
    ck_assert_int_eq(dir_entries(d, &temps), 1);
    ck_assert_int_eq(temps, 0);
    free(p);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Refusals before anything is created: results whose .glb would pass
 * 4 GiB, faked by changing the counts of a real one (the arrays are never
 * read: the size bound comes from the counts alone). */
START_TEST(test_glb_too_large)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = terrain(ctx, 8, 3, STRATA_WALLS_UPPER, 0);
    char *d = tmpdir_new(), *p = join(d, "huge.glb");
    uint64_t bytes = 0;

    /* 400 M vertices: 4.8 GB of positions alone */
    struct strata_result fake = *r;
    fake.nverts = 400000000u;
    ck_assert_status(strata_result_glb_size(ctx, &fake, &bytes), STRATA_ERR_TOO_LARGE);
    ck_assert_uint_ge(bytes, (uint64_t)1 << 32);
    ck_assert_status(write_as(ctx, &fake, p, STRATA_FORMAT_GLB), STRATA_ERR_TOO_LARGE);
    ck_assert_int_eq(dir_entries(d, NULL), 0);

    /* 180 M vertices fit (2.16 GB) but not with normals (4.32 GB) */
    fake = *r;
    fake.nverts = 180000000u;
    fake.nx = fake.ny = fake.nz = r->x; /* present, never read */
    ck_assert_status(strata_result_glb_size(ctx, &fake, &bytes), STRATA_ERR_TOO_LARGE);
    ck_assert_status(write_as(ctx, &fake, p, STRATA_FORMAT_AUTO), STRATA_ERR_TOO_LARGE);
    ck_assert_int_eq(dir_entries(d, NULL), 0);

    /* few vertices, 2.4 G indices: at least 2 bytes each */
    strata_terrace t[2];
    memcpy(t, r->terraces, sizeof t);
    t[0].roof_first = 0;
    t[0].roof_count = 2400000000u;
    t[0].wall_first = t[0].wall_count = 0;
    t[1].roof_first = 2400000000u;
    t[1].roof_count = 3;
    t[1].wall_first = t[1].wall_count = 0;
    fake = *r;
    fake.nterraces = 2;
    fake.terraces = t;
    fake.nindices = 2400000003u;
    ck_assert_status(strata_result_glb_size(ctx, &fake, &bytes), STRATA_ERR_TOO_LARGE);
    ck_assert_uint_ge(bytes, 2 * (uint64_t)2400000003u);
    ck_assert_status(write_as(ctx, &fake, p, STRATA_FORMAT_GLB), STRATA_ERR_TOO_LARGE);
    ck_assert_int_eq(dir_entries(d, NULL), 0);

    /* the status says what to do */
    ck_assert_ptr_nonnull(strata_status_str(STRATA_ERR_TOO_LARGE));

    /* the real one fits, and its size is predicted exactly */
    ck_assert_ok(strata_result_glb_size(ctx, r, &bytes));
    ck_assert_ok(write_as(ctx, r, p, STRATA_FORMAT_GLB));
    struct stat sb;
    ck_assert_int_eq(stat(p, &sb), 0);
    ck_assert_uint_eq((uint64_t)sb.st_size, bytes);
    free(p);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_glb_errors)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = terrain(ctx, 4, 2, STRATA_WALLS_UPPER, 0);
    uint64_t bytes;
    ck_assert_status(strata_result_glb_size(NULL, r, &bytes), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_glb_size(ctx, NULL, &bytes), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_glb_size(ctx, r, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_result_write(ctx, r, "/nonexistent-dir/x.glb", NULL), STRATA_ERR_IO);
    ck_assert_status(strata_result_write(ctx, r, "x.gltf", NULL), STRATA_ERR_FORMAT);
    ck_assert_status(write_as(ctx, r, "x.glb", (strata_format)99), STRATA_ERR_INVALID_ARG);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ palettes */

static void srgb_bytes(const strata_palette *p, uint32_t k, uint32_t n, int wall, int out[3])
{
    float rgb[3];
    strata_palette_color(p, k, n, wall, STRATA_COLOR_SRGB, rgb);
    for (int c = 0; c < 3; c++)
        out[c] = (int)lrintf(rgb[c] * 255.0f);
}

START_TEST(test_palette_presets)
{
    strata_palette p, earth;
    int n = 0;
    for (const char *name; (name = strata_palette_preset_name((unsigned)n)); n++) {
        ck_assert_ok(strata_palette_preset(name, &p));
        ck_assert_uint_ge(p.nstops, 2);
    }
    ck_assert_int_eq(n, 4);
    ck_assert_str_eq(strata_palette_preset_name(0), "earth");
    ck_assert_status(strata_palette_preset("Earth", &p), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_palette_preset("lava", &p), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_palette_preset(NULL, &p), STRATA_ERR_INVALID_ARG);

    /* NULL is earth; ends are the first and last stops; walls darker */
    ck_assert_ok(strata_palette_preset("earth", &earth));
    for (uint32_t k = 0; k < 9; k++) {
        float a[3], b[3];
        strata_palette_color(NULL, k, 9, 0, STRATA_COLOR_LINEAR, a);
        strata_palette_color(&earth, k, 9, 0, STRATA_COLOR_LINEAR, b);
        ck_assert(!memcmp(a, b, sizeof a));
    }
    int rgb[3], wall[3];
    srgb_bytes(&earth, 0, 12, 0, rgb);
    for (int c = 0; c < 3; c++)
        ck_assert_int_eq(rgb[c], earth.rgb[0][c]);
    srgb_bytes(&earth, 11, 12, 0, rgb);
    for (int c = 0; c < 3; c++)
        ck_assert_int_eq(rgb[c], earth.rgb[earth.nstops - 1][c]);
    srgb_bytes(&earth, 11, 12, 1, wall);
    for (int c = 0; c < 3; c++)
        ck_assert_int_eq(wall[c], (int)lrint(0.6 * earth.rgb[earth.nstops - 1][c]));
    /* k past the end is clamped */
    srgb_bytes(&earth, 50, 12, 0, wall);
    ck_assert(!memcmp(rgb, wall, sizeof rgb));
}
END_TEST

START_TEST(test_palette_color_spaces)
{
    strata_palette p;
    const char text[] = "000000 808080 ffffff";
    ck_assert_ok(strata_palette_parse(text, strlen(text), &p));
    float s[3], l[3];
    /* terrace 1 of 3 sits on the middle stop */
    strata_palette_color(&p, 1, 3, 0, STRATA_COLOR_SRGB, s);
    strata_palette_color(&p, 1, 3, 0, STRATA_COLOR_LINEAR, l);
    ck_assert_float_eq_tol(s[0], 128.0f / 255.0f, 1e-6f);
    /* sRGB 128/255 is 0.2158605 in linear light */
    ck_assert_float_eq_tol(l[0], 0.2158605f, 1e-5f);
    /* halfway between stops mixes in sRGB: terrace 1 of 5 is at t = 0.25 */
    strata_palette_color(&p, 1, 5, 0, STRATA_COLOR_SRGB, s);
    ck_assert_float_eq_tol(s[1], 64.0f / 255.0f, 1e-6f);
    /* one terrace: the middle of the ramp; one stop: that colour */
    strata_palette_color(&p, 0, 1, 0, STRATA_COLOR_SRGB, s);
    ck_assert_float_eq_tol(s[2], 128.0f / 255.0f, 1e-6f);
    ck_assert_ok(strata_palette_parse("#336699", 7, &p));
    for (uint32_t k = 0; k < 4; k++) {
        strata_palette_color(&p, k, 4, 0, STRATA_COLOR_SRGB, s);
        ck_assert_float_eq_tol(s[0], 0x33 / 255.0f, 1e-6f);
        ck_assert_float_eq_tol(s[2], 0x99 / 255.0f, 1e-6f);
    }
    /* linear values lie in [0,1] and are lower than sRGB ones */
    ck_assert_ok(strata_palette_preset("ice", &p));
    for (uint32_t k = 0; k < 20; k++) {
        strata_palette_color(&p, k, 20, (int)(k & 1), STRATA_COLOR_SRGB, s);
        strata_palette_color(&p, k, 20, (int)(k & 1), STRATA_COLOR_LINEAR, l);
        for (int c = 0; c < 3; c++)
            require(l[c] >= 0 && l[c] <= s[c] && s[c] <= 1, "k=%u c=%d: %g %g", k, c,
                    (double)s[c], (double)l[c]);
    }
}
END_TEST

START_TEST(test_palette_parse)
{
    strata_palette p;
    const char ok1[] = "; my palette\n#FF0000\n\n  00ff00 ; green\n#0000fF\t123456\r\n";
    ck_assert_ok(strata_palette_parse(ok1, strlen(ok1), &p));
    ck_assert_uint_eq(p.nstops, 4);
    ck_assert_int_eq(p.rgb[0][0], 255);
    ck_assert_int_eq(p.rgb[1][1], 255);
    ck_assert_int_eq(p.rgb[2][2], 255);
    ck_assert_int_eq(p.rgb[3][0], 0x12);
    ck_assert_int_eq(p.rgb[3][2], 0x56);
    /* comment right after a colour */
    ck_assert_ok(strata_palette_parse("abcdef;x", 8, &p));
    ck_assert_uint_eq(p.nstops, 1);

    static const char *const bad[] = {
        "", "   \n\n", "; nothing\n", "#ff00", "ff00000", "#gg0000", "##ff0000",
        "ff0000 #12345", "ff0000,00ff00", "0x123456", "#ff 0000", "red",
    };
    p.nstops = 77;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const strata_status st = strata_palette_parse(bad[i], strlen(bad[i]), &p);
        require(st == STRATA_ERR_FORMAT, "'%s' -> %s", bad[i], strata_status_str(st));
    }
    ck_assert_uint_eq(p.nstops, 77); /* untouched on failure */
    ck_assert_status(strata_palette_parse("ff0000\0", 7, &p), STRATA_ERR_FORMAT);
    ck_assert_status(strata_palette_parse(NULL, 3, &p), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_palette_parse("ff0000", 6, NULL), STRATA_ERR_INVALID_ARG);

    /* 256 stops are fine, 257 too many */
    char *many = malloc(257 * 8 + 1), *q = many;
    for (int i = 0; i < 257; i++)
        q += sprintf(q, "#%06x\n", i * 997);
    ck_assert_ok(strata_palette_parse(many, 256 * 8, &p));
    ck_assert_uint_eq(p.nstops, 256);
    ck_assert_status(strata_palette_parse(many, 257 * 8, &p), STRATA_ERR_TOO_LARGE);
    free(many);
}
END_TEST

START_TEST(test_palette_load)
{
    char *d = tmpdir_new(), *p = join(d, "pal.txt"), *big = join(d, "big.txt");
    const char text[] = "; two stops\n#102030\n405060\n";
    spit(p, text, strlen(text));
    strata_palette pal;
    ck_assert_ok(strata_palette_load(p, &pal));
    ck_assert_uint_eq(pal.nstops, 2);
    ck_assert_int_eq(pal.rgb[1][2], 0x60);
    spit(p, "#12345\n", 7);
    ck_assert_status(strata_palette_load(p, &pal), STRATA_ERR_FORMAT);

    char *missing = join(d, "missing.txt");
    errno = 0;
    ck_assert_status(strata_palette_load(missing, &pal), STRATA_ERR_IO);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_status(strata_palette_load(d, &pal), STRATA_ERR_IO); /* a directory */
    /* a FIFO nothing writes to, a device: refused at once, no waiting */
    char *fifo = fifo_new(d, "pal.fifo");
    errno = 0;
    ck_assert_status(strata_palette_load(fifo, &pal), STRATA_ERR_IO);
    ck_assert_int_eq(errno, EINVAL);
    ck_assert_status(strata_palette_load("/dev/null", &pal), STRATA_ERR_IO);
    ck_assert_int_eq(errno, EINVAL);
    alarm(0);
    unlink(fifo);
    free(fifo);

    /* over 1 MiB of comments */
    size_t n = (1u << 20) + 10;
    char *blob = malloc(n);
    memset(blob, ' ', n);
    blob[0] = ';';
    spit(big, blob, n);
    ck_assert_status(strata_palette_load(big, &pal), STRATA_ERR_TOO_LARGE);
    free(blob);
    free(missing);
    free(big);
    free(p);
    tmpdir_remove(d);
}
END_TEST

/* The MTL library takes its Kd colours from the palette, in sRGB. */
START_TEST(test_mtl_palette)
{
    strata_ctx *ctx = ctx_new(0);
    strata_result *r = terrain(ctx, 16, 4, STRATA_WALLS_SEPARATE, 0);
    strata_result_view v;
    strata_result_get_view(r, &v);
    char *d = tmpdir_new(), *obj = join(d, "t.obj"), *mtl = join(d, "t.mtl");
    strata_palette pal;
    const char text[] = "000000 ffffff";
    ck_assert_ok(strata_palette_parse(text, strlen(text), &pal));

    for (int use_default = 0; use_default < 2; use_default++) {
        strata_write_options wo;
        strata_write_defaults(&wo);
        wo.format = STRATA_FORMAT_OBJ;
        wo.palette = use_default ? NULL : &pal;
        ck_assert_ok(strata_result_write(ctx, r, obj, &wo));
        size_t len;
        char *s = (char *)slurp(mtl, &len);
        int seen = 0;
        for (uint32_t k = 0; k < v.nterraces; k++)
            for (int wall = 0; wall < 2; wall++) {
                if (!(wall ? v.terraces[k].wall_count : v.terraces[k].roof_count))
                    continue;
                float rgb[3];
                strata_palette_color(use_default ? NULL : &pal, k, v.nterraces, wall,
                                     STRATA_COLOR_SRGB, rgb);
                char want[128];
                snprintf(want, sizeof want, "newmtl %s_%u\nKd %.4f %.4f %.4f\n",
                         wall ? "wall" : "terrace", k, (double)rgb[0], (double)rgb[1],
                         (double)rgb[2]);
                ck_assert_msg(strstr(s, want) != NULL, "missing '%s' in\n%s", want, s);
                seen++;
            }
        ck_assert_int_gt(seen, 4);
        if (!use_default) {
            /* the ends of a black-to-white ramp */
            ck_assert_ptr_nonnull(strstr(s, "newmtl terrace_0\nKd 0.0000 0.0000 0.0000\n"));
            ck_assert_ptr_nonnull(strstr(s, "newmtl terrace_3\nKd 1.0000 1.0000 1.0000\n"));
        }
        free(s);
    }
    free(obj);
    free(mtl);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ compressed */

/* Whether array a holds the string w. */
static int has_string(const jval *a, const char *w)
{
    for (size_t i = 0; a && a->type == J_ARR && i < a->n; i++)
        if (a->items[i].type == J_STR && !strcmp(a->items[i].str, w))
            return 1;
    return 0;
}

#ifdef HAVE_MESHOPTIMIZER
/* The compressed file c against the plain one u of the same result: every
 * buffer view decodes (with meshoptimizer's own decoders) to exactly the
 * bytes u has at the view's place, the views cover all of u's BIN but its
 * zero padding, and the accessors point at the same bytes.  Vertex
 * attributes (positions, normals, texture coordinates, the props'
 * vertices) and instance attributes (no target) are ATTRIBUTES streams,
 * indices INDICES streams. */
static void check_compressed(const glb *u, const glb *c)
{
    const jval *ext = jget(&c->json, "extensionsRequired");
    ck_assert(has_string(ext, "EXT_meshopt_compression"));
    ck_assert(has_string(jget(&c->json, "extensionsUsed"), "EXT_meshopt_compression"));
    ck_assert(!has_string(jget(&u->json, "extensionsUsed"), "EXT_meshopt_compression"));
    ck_assert_int_eq(has_string(jget(&u->json, "extensionsUsed"), "EXT_mesh_gpu_instancing"),
                     has_string(jget(&c->json, "extensionsUsed"), "EXT_mesh_gpu_instancing"));
    ck_assert_int_eq(has_string(jget(&u->json, "extensionsUsed"), "EXT_mesh_gpu_instancing"),
                     has_string(ext, "EXT_mesh_gpu_instancing"));
    const jval *bufs = jget(&c->json, "buffers");
    ck_assert_uint_eq(bufs->n, 2);
    ck_assert_uint_eq((uint64_t)jnum(jat(bufs, 0), "byteLength"), c->bin_len);
    const jval *fb = jat(bufs, 1);
    ck_assert_ptr_null(jget(fb, "uri"));
    ck_assert_uint_eq((uint64_t)jnum(fb, "byteLength"), u->bin_len);
    const jval *fbx = jget(jget(fb, "extensions"), "EXT_meshopt_compression");
    ck_assert(fbx && jget(fbx, "fallback") && jget(fbx, "fallback")->type == J_BOOL &&
              jget(fbx, "fallback")->num == 1);

    unsigned char *covered = calloc(u->bin_len, 1);
    const jval *views = jget(&c->json, "bufferViews");
    for (size_t i = 0; i < views->n; i++) {
        const jval *v = jat(views, i);
        const jval *x = jget(jget(v, "extensions"), "EXT_meshopt_compression");
        require(x, "view %zu: no EXT_meshopt_compression", i);
        require(jnum(v, "buffer") == 1 && jnum(x, "buffer") == 0, "view %zu: buffers", i);
        const uint64_t off = (uint64_t)jnum(v, "byteOffset"), len = (uint64_t)jnum(v, "byteLength");
        const uint64_t xoff = (uint64_t)jnum(x, "byteOffset"), xlen = (uint64_t)jnum(x, "byteLength");
        const uint64_t stride = (uint64_t)jnum(x, "byteStride"), count = (uint64_t)jnum(x, "count");
        const jval *vs = jget(v, "byteStride");
        require(!vs || (uint64_t)vs->num == stride, "view %zu: strides differ", i);
        require(len == stride * count && off + len <= u->bin_len, "view %zu: length", i);
        require(xoff % 4 == 0 && xoff + xlen <= c->bin_len, "view %zu: stream outside BIN", i);
        const char *mode = jget(x, "mode")->str;
        unsigned char *dec = malloc(len ? len : 1);
        int rc;
        if (!strcmp(mode, "ATTRIBUTES")) {
            const jval *t = jget(v, "target");
            require(stride % 4 == 0 && stride <= 256 &&
                        (t ? t->num == 34962 && vs : stride == 12 || stride == 16),
                    "view %zu: attributes", i);
            require(c->bin[xoff] == 0xa0, "view %zu: attribute stream version", i);
            rc = meshopt_decodeVertexBuffer(dec, count, stride, c->bin + xoff, xlen);
        } else {
            require(!strcmp(mode, "INDICES") && (stride == 2 || stride == 4) &&
                        jnum(v, "target") == 34963 && !vs,
                    "view %zu: indices", i);
            require(c->bin[xoff] == 0xd1, "view %zu: index stream version", i);
            rc = meshopt_decodeIndexSequence(dec, count, stride, c->bin + xoff, xlen);
        }
        require(rc == 0, "view %zu: meshoptimizer cannot decode it (%d)", i, rc);
        require(memcmp(dec, u->bin + off, len) == 0,
                "view %zu (%s): decoded bytes differ from the plain file's", i, mode);
        for (uint64_t k = 0; k < len; k++) {
            require(!covered[off + k], "view %zu overlaps another", i);
            covered[off + k] = 1;
        }
        free(dec);
    }
    for (uint64_t k = 0; k < u->bin_len; k++)
        require(covered[k] || u->bin[k] == 0, "byte %llu of the plain BIN is in no view",
                (unsigned long long)k);
    free(covered);

    /* accessors: the same, at the same place of the decoded layout */
    const jval *ua = jget(&u->json, "accessors"), *ca = jget(&c->json, "accessors");
    const jval *uviews = jget(&u->json, "bufferViews");
    ck_assert_uint_eq(ua->n, ca->n);
    for (size_t i = 0; i < ua->n; i++) {
        const jval *a = jat(ua, i), *b = jat(ca, i);
        ck_assert(jnum(a, "count") == jnum(b, "count"));
        ck_assert(jnum(a, "componentType") == jnum(b, "componentType"));
        const jval *ao = jget(a, "byteOffset"), *bo = jget(b, "byteOffset");
        const double pa = jnum(jat(uviews, (size_t)jnum(a, "bufferView")), "byteOffset") +
                          (ao ? ao->num : 0);
        const double pb = jnum(jat(views, (size_t)jnum(b, "bufferView")), "byteOffset") +
                          (bo ? bo->num : 0);
        require(pa == pb, "accessor %zu: at %.0f, not %.0f", i, pb, pa);
    }
    ck_assert_uint_lt(c->len, u->len);
}
#endif

/* A planet (no normals) or a terrain (normals, loops from the mesh) with
 * water and a shoreline at its middle level, and props scattered on it
 * before them. */
static strata_result *seaside(strata_ctx *ctx, int radial, strata_props **props)
{
    strata_mesh *m;
    if (radial) {
        ck_assert_ok(strata_shape_icosphere(ctx, 5, 1.0f, &m));
    } else {
        ck_assert_ok(strata_shape_grid(ctx, 120, 120, 10.0f / 120, &m));
    }
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = radial ? 1.5f : 0.3f;
    f.amplitude = radial ? 0.1f : 1.5f;
    ck_assert_ok(radial ? strata_displace_radial(ctx, m, &f, NULL)
                        : strata_displace_flat(ctx, m, &f, NULL));
    float levels[8];
    ck_assert_ok(strata_levels_uniform(m, 8, NULL, levels));
    strata_slice_options o = slice_options(levels, 8, STRATA_WALLS_UPPER, !radial, 0);
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &o, &r));
    strata_loops *l;
    ck_assert_ok(radial ? strata_loops_from_result(ctx, r, &l)
                        : strata_loops_from_mesh(ctx, m, levels, 8, &l));
    strata_props_options po;
    strata_props_defaults(&po);
    po.density = radial ? 200 : 2;
    ck_assert_ok(strata_props_scatter(ctx, r, &po, props));
    strata_props_view pv;
    strata_props_get_view(*props, &pv);
    ck_assert_uint_gt(pv.count, 20);
    ck_assert_ok(strata_result_add_water(ctx, r, levels[4], NULL, 0, 3));
    ck_assert_ok(strata_result_add_shoreline(ctx, r, l, 4, radial ? 0.02f : 0.1f));
    strata_result_view v;
    strata_result_get_view(r, &v);
    ck_assert_uint_gt(v.shore_count, 0);
    strata_loops_destroy(l);
    strata_mesh_destroy(m);
    return r;
}

/* --compress: a planet with normals, a terrain with separate walls and
 * u32 indices, an unsliced terrain, a planet and a terrain with water,
 * shorelines (their own accessors, TEXCOORD_0) and instanced props; the
 * same bytes for 1, 2 and 3 threads. */
START_TEST(test_glb_compress)
{
    if (!strata_optimize_supported())
        return; /* test_glb_compress_errors checks the refusal */
#ifdef HAVE_MESHOPTIMIZER
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *m = NULL;
    strata_result *r = NULL;
    strata_props *props = NULL;
    if (_i == 0)
        r = planet(ctx, 5, 9, 1);
    else if (_i == 1)
        r = terrain(ctx, 256, 7, STRATA_WALLS_SEPARATE, 1);
    else if (_i == 2) {
        ck_assert_ok(strata_shape_grid(ctx, 40, 40, 1.0f, &m));
        ck_assert_ok(strata_result_from_mesh(ctx, m, 0, &r));
    } else
        r = seaside(ctx, _i == 3, &props);
    char *d = tmpdir_new();
    char *pu = join(d, "u.glb"), *pc = join(d, "c.glb");
    strata_write_options wo;
    strata_write_defaults(&wo);
    wo.props = props;
    ck_assert_ok(strata_result_write(ctx, r, pu, &wo));
    wo.compress = 1;
    unsigned char *first = NULL;
    size_t first_len = 0;
    for (int t = 1; t <= 3; t++) {
        ck_assert_ok(strata_ctx_set_threads(ctx, t));
        ck_assert_ok(strata_result_write(ctx, r, pc, &wo));
        size_t len;
        unsigned char *b = slurp(pc, &len);
        if (!first) {
            first = b;
            first_len = len;
            continue;
        }
        ck_assert_uint_eq(len, first_len);
        ck_assert_msg(memcmp(b, first, len) == 0, "%d threads wrote other bytes", t);
        free(b);
    }
    glb u, c;
    glb_read(pu, &u);
    glb_read(pc, &c);
    if (_i == 1) /* u32 indices too */
        ck_assert(contains((const char *)c.bytes, c.len, "\"componentType\":5125"));
    if (_i >= 3) { /* every kind of view there */
        ck_assert(contains((const char *)c.bytes, c.len, "\"TEXCOORD_0\""));
        ck_assert(contains((const char *)c.bytes, c.len, "\"name\":\"water\""));
        ck_assert(contains((const char *)c.bytes, c.len, "\"ROTATION\""));
        ck_assert(contains((const char *)c.bytes, c.len, "\"byteStride\":16,\"mode\""));
        ck_assert(contains((const char *)c.bytes, c.len, "\"byteStride\":8,\"mode\""));
    }
    check_compressed(&u, &c);
    glb_free(&u);
    glb_free(&c);
    free(first);
    free(pu);
    free(pc);
    tmpdir_remove(d);
    strata_props_destroy(props);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
#endif
}
END_TEST

/* strata_result_add_uv: every terrace primitive's TEXCOORD_0 is one VEC2
 * float accessor over every vertex holding the library's floats bit for
 * bit; compressed, the same bytes decoded. */
START_TEST(test_glb_uv)
{
    strata_ctx *ctx = ctx_new(2);
    strata_result *r = terrain(ctx, 64, 6, _i ? STRATA_WALLS_SEPARATE : STRATA_WALLS_UPPER, !_i);
    ck_assert_ok(strata_result_add_uv(ctx, r, 0.25f));
    strata_result_view v;
    strata_result_get_view(r, &v);
    char *d = tmpdir_new();
    char *pu = join(d, "u.glb");
    ck_assert_ok(write_as(ctx, r, pu, STRATA_FORMAT_AUTO));
    uint64_t predicted;
    ck_assert_ok(strata_result_glb_size(ctx, r, &predicted));
    glb u;
    glb_read(pu, &u);
    ck_assert_uint_eq(predicted, u.len);
    const jval *prims = jget(jat(jget(&u.json, "meshes"), 0), "primitives");
    ck_assert_uint_ge(prims->n, 6);
    const jval *tc = jget(jget(jat(prims, 0), "attributes"), "TEXCOORD_0");
    ck_assert_ptr_nonnull(tc);
    for (size_t i = 0; i < prims->n; i++) {
        const jval *a = jget(jat(prims, i), "attributes");
        ck_assert_int_eq((int)jnum(a, "TEXCOORD_0"), (int)tc->num);
        ck_assert_int_eq((int)jnum(a, "POSITION"), 0);
    }
    uint64_t count;
    int ctype;
    size_t ncomp;
    const unsigned char *uv = accessor_data(&u, (size_t)tc->num, &count, &ctype, &ncomp);
    ck_assert_uint_eq(count, v.nverts);
    ck_assert_int_eq(ctype, 5126);
    ck_assert_uint_eq(ncomp, 2);
    ck_assert_str_eq(jget(jat(jget(&u.json, "accessors"), (size_t)tc->num), "type")->str, "VEC2");
    for (uint32_t i = 0; i < v.nverts; i++)
        require(rdf(uv + 8 * (size_t)i) == v.uv[2 * (size_t)i] &&
                    rdf(uv + 8 * (size_t)i + 4) == v.uv[2 * (size_t)i + 1],
                "vertex %u: other texture coordinates", i);
#ifdef HAVE_MESHOPTIMIZER
    if (strata_optimize_supported()) {
        char *pc = join(d, "c.glb");
        strata_write_options wo;
        strata_write_defaults(&wo);
        wo.compress = 1;
        ck_assert_ok(strata_result_write(ctx, r, pc, &wo));
        glb c;
        glb_read(pc, &c);
        check_compressed(&u, &c);
        glb_free(&c);
        free(pc);
    }
#endif
    glb_free(&u);
    free(pu);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* compress with another format, or without meshoptimizer: refused before
 * any file exists. */
START_TEST(test_glb_compress_errors)
{
    strata_ctx *ctx = ctx_new(1);
    strata_result *r = terrain(ctx, 8, 3, STRATA_WALLS_UPPER, 0);
    char *d = tmpdir_new();
    strata_write_options wo;
    strata_write_defaults(&wo);
    ck_assert_int_eq(wo.compress, 0);
    wo.compress = 1;
    static const char *const names[] = {"a.ply", "a.obj", "a.stl"};
    for (int i = 0; i < 3; i++) {
        char *p = join(d, names[i]);
        ck_assert_int_eq(strata_result_write(ctx, r, p, &wo), STRATA_ERR_INVALID_ARG);
        free(p);
    }
    char *p = join(d, "a.glb");
    ck_assert_int_eq(strata_result_write(ctx, r, p, &wo),
                     strata_optimize_supported() ? STRATA_OK : STRATA_ERR_UNSUPPORTED);
    free(p);
    int temps;
    ck_assert_int_eq(dir_entries(d, &temps), strata_optimize_supported() ? 1 : 0);
    ck_assert_int_eq(temps, 0);
    tmpdir_remove(d);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Props: one node per kind with EXT_mesh_gpu_instancing; its
 * translations, rotations and scales read back as the props of that kind
 * in order (the rotation turns +y onto the prop's up), and its mesh is a
 * built-in one drawn with its own materials. */
START_TEST(test_glb_props)
{
    strata_ctx *ctx = ctx_new(2);
    strata_result *r = planet(ctx, 4, 8, 0);
    strata_props_options po;
    strata_props_defaults(&po);
    po.density = 200;
    po.noise_frequency = 2;
    strata_props *props;
    ck_assert_ok(strata_props_scatter(ctx, r, &po, &props));
    strata_props_view pv;
    strata_props_get_view(props, &pv);
    ck_assert_uint_gt(pv.count, 50);
    char *d = tmpdir_new(), *path = join(d, "props.glb");
    strata_write_options wo;
    strata_write_defaults(&wo);
    wo.props = props;
    ck_assert_ok(strata_result_write(ctx, r, path, &wo));
    glb g;
    glb_read(path, &g);
    const jval *used = jget(&g.json, "extensionsUsed");
    ck_assert_ptr_nonnull(used);
    ck_assert_str_eq(jat(used, 0)->str, "EXT_mesh_gpu_instancing");
    /* required: without it a client draws one tree at the origin */
    const jval *required = jget(&g.json, "extensionsRequired");
    ck_assert_ptr_nonnull(required);
    ck_assert_uint_eq(required->n, 1);
    ck_assert_str_eq(jat(required, 0)->str, "EXT_mesh_gpu_instancing");
    const jval *nodes = jget(&g.json, "nodes");
    const jval *scene_nodes = jget(jat(jget(&g.json, "scenes"), 0), "nodes");
    ck_assert_uint_eq(scene_nodes->n, nodes->n);
    uint64_t seen = 0;
    for (size_t ni = 1; ni < nodes->n; ni++) {
        const jval *node = jat(nodes, ni);
        const jval *name = jget(node, "name");
        const int kind = !strcmp(name->str, "rocks") ? STRATA_PROP_ROCK : STRATA_PROP_TREE;
        const jval *attr =
            jget(jget(jget(node, "extensions"), "EXT_mesh_gpu_instancing"), "attributes");
        ck_assert_ptr_nonnull(attr);
        uint64_t n[3];
        int ct;
        size_t nc[3];
        const unsigned char *t = accessor_data(&g, (size_t)jnum(attr, "TRANSLATION"), &n[0], &ct,
                                               &nc[0]);
        const unsigned char *q = accessor_data(&g, (size_t)jnum(attr, "ROTATION"), &n[1], &ct,
                                               &nc[1]);
        const unsigned char *s = accessor_data(&g, (size_t)jnum(attr, "SCALE"), &n[2], &ct,
                                               &nc[2]);
        ck_assert_uint_eq(nc[0], 3);
        ck_assert_uint_eq(nc[1], 4);
        ck_assert_uint_eq(nc[2], 3);
        ck_assert_uint_eq(n[0], n[1]);
        ck_assert_uint_eq(n[0], n[2]);
        const jval *mesh = jat(jget(&g.json, "meshes"), (size_t)jnum(node, "mesh"));
        ck_assert_uint_eq(jget(mesh, "primitives")->n, kind == STRATA_PROP_TREE ? 2 : 1);
        uint64_t w = 0;
        for (uint64_t i = 0; i < pv.count; i++) {
            if (pv.kind[i] != kind)
                continue;
            require(w < n[0], "more %s than instances", name->str);
            require(rdf(t + 12 * w) == pv.x[i] && rdf(t + 12 * w + 4) == pv.y[i] &&
                        rdf(t + 12 * w + 8) == pv.z[i],
                    "instance %llu: translation", (unsigned long long)w);
            for (int k = 0; k < 3; k++)
                require(rdf(s + 12 * w + 4 * (uint64_t)k) == pv.scale[i], "scale");
            const double x = rdf(q + 16 * w), y = rdf(q + 16 * w + 4), z = rdf(q + 16 * w + 8),
                         qw = rdf(q + 16 * w + 12);
            require(fabs(x * x + y * y + z * z + qw * qw - 1) < 1e-6, "rotation not unit");
            /* +y rotated: the second column of the rotation matrix */
            const double up[3] = {2 * (x * y - qw * z), 1 - 2 * (x * x + z * z),
                                  2 * (y * z + qw * x)};
            require(fabs(up[0] - pv.ux[i]) < 1e-5 && fabs(up[1] - pv.uy[i]) < 1e-5 &&
                        fabs(up[2] - pv.uz[i]) < 1e-5,
                    "instance %llu: +y goes to (%g %g %g), up is (%g %g %g)",
                    (unsigned long long)w, up[0], up[1], up[2], (double)pv.ux[i],
                    (double)pv.uy[i], (double)pv.uz[i]);
            w++;
        }
        ck_assert_uint_eq(w, n[0]);
        seen += w;
    }
    ck_assert_uint_eq(seen, pv.count);
    glb_free(&g);
    free(path);
    tmpdir_remove(d);
    strata_props_destroy(props);
    strata_result_destroy(r);
    strata_ctx_destroy(ctx);
}
END_TEST

static Suite *gltf_suite(void)
{
    Suite *s = suite_create("gltf");
    TCase *core = tcase_create("Core");
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_glb_polygon_u16);
    tcase_add_loop_test(core, test_glb_walls_modes, 0, 3);
    tcase_add_test(core, test_glb_u32_indices);
    tcase_add_test(core, test_glb_planet_normals);
    tcase_add_test(core, test_glb_unsliced);
    tcase_add_test(core, test_glb_errors);
    tcase_add_loop_test(core, test_glb_threads, 0, 3);
    tcase_add_test(core, test_glb_extremes);
    tcase_add_loop_test(core, test_glb_compress, 0, 5);
    tcase_add_test(core, test_glb_compress_errors);
    tcase_add_loop_test(core, test_glb_uv, 0, 2);
    tcase_add_test(core, test_glb_props);
    suite_add_tcase(s, core);

    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_glb_too_large);
    tcase_add_test(limits, test_glb_write_failure_threads);
    suite_add_tcase(s, limits);

    TCase *pal = tcase_create("Palette");
    tcase_add_test(pal, test_palette_presets);
    tcase_add_test(pal, test_palette_color_spaces);
    tcase_add_test(pal, test_palette_parse);
    tcase_add_test(pal, test_palette_load);
    tcase_add_test(pal, test_mtl_palette);
    suite_add_tcase(s, pal);
    return s;
}

int main(void) { return run_suite(gltf_suite()); }
