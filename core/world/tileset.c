/* 3D Tiles 1.1 tilesets of worlds (core/world/tileset.h).
 *
 * Nodes are keyed so that a parent's key is its child's key >> 2 at every
 * depth: planets by the chunk tree's triangle ids (face * 4^k + path),
 * terrains by the Morton code of (column, row).  Sorting each depth by key
 * then makes every parent's children contiguous, and the tree is built
 * bottom up from the tiles present. */
#define _POSIX_C_SOURCE 200809L

#include "world/tileset.h"
#include "base/alloc.h"
#include "base/ctx.h"
#include "base/json.h"
#include "base/output.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct tnode {
    uint64_t key;
    uint64_t first, count; /* children at the next depth (leaves: record index) */
    uint64_t leaves;
    int64_t content; /* inner nodes with lod: the record of their tile, or -1 */
    double box[12];
} tnode;

typedef struct {
    strata_ctx *ctx;
    const strata_allocator *al;
    const char *dir;
    const strata_tileset_desc *d;
    const strata_tile_record *recs;
    tnode **level; /* level[k]: nodes of depth k, by key; level[leaf_depth]: tiles */
    uint64_t *nlevel;
    uint32_t depth; /* leaf depth */
    double root_diag;
    int open; /* node_json: the object's brace is written already */
    const char *up; /* URIs are relative to the file written: "" or "../../" */
} tree;

static uint64_t morton(uint32_t x, uint32_t z)
{
    uint64_t k = 0;
    for (int b = 0; b < 32; b++)
        k |= ((uint64_t)(x >> b & 1) << (2 * b)) | ((uint64_t)(z >> b & 1) << (2 * b + 1));
    return k;
}

int strata__tileset_layout(strata_tileset_desc *d, uint64_t nleaves)
{
    d->nleaves = nleaves;
    d->count = nleaves;
    if (d->leaf_depth >= STRATA_TILESET_DEPTHS)
        return 0;
    const uint64_t tx = d->kind == STRATA_WORLD_TERRAIN ? d->tiles_x : 0;
    const uint64_t tz = tx ? nleaves / tx : 0;
    d->across[d->leaf_depth] = (uint32_t)tx;
    d->down[d->leaf_depth] = (uint32_t)tz;
    d->first[d->leaf_depth] = 0;
    for (uint32_t k = 0; k < d->leaf_depth; k++) {
        const uint32_t up = d->leaf_depth - k;
        if (d->kind == STRATA_WORLD_TERRAIN) {
            d->across[k] = (uint32_t)((tx + (1ull << up) - 1) >> up);
            d->down[k] = (uint32_t)((tz + (1ull << up) - 1) >> up);
        } else {
            d->across[k] = d->down[k] = 0;
        }
        d->first[k] = d->count;
        if (d->lod) {
            const uint64_t n = d->kind == STRATA_WORLD_TERRAIN
                                   ? (uint64_t)d->across[k] * d->down[k]
                                   : (uint64_t)20 << (2 * k);
            if (d->count > UINT64_MAX / 2 - n)
                return 0;
            d->count += n;
        }
    }
    return 1;
}

void strata__tileset_locate(const strata_tileset_desc *d, uint64_t id, uint32_t *depth,
                            uint64_t *index)
{
    uint32_t k = d->leaf_depth;
    if (id >= d->nleaves)
        for (k = 0; k + 1 < d->leaf_depth && id >= d->first[k + 1]; k++)
            ;
    *depth = k;
    *index = id - d->first[k];
}

void strata__tile_path(const strata_tileset_desc *d, uint64_t id, char *buf, size_t len)
{
    uint32_t k;
    uint64_t i;
    strata__tileset_locate(d, id, &k, &i);
    if (d->kind == STRATA_WORLD_PLANET) {
        snprintf(buf, len, "tiles/%u/%llu", k, (unsigned long long)i);
    } else {
        const uint64_t across = k == d->leaf_depth ? d->tiles_x : d->across[k];
        snprintf(buf, len, "tiles/%u/%llu_%llu", k, (unsigned long long)(i % across),
                 (unsigned long long)(i / across));
    }
}

/* ------------------------------------------------------------ boxes */

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void normalize3(double *v)
{
    const double l = sqrt(dot3(v, v));
    v[0] /= l;
    v[1] /= l;
    v[2] /= l;
}

/* The box along axes ax[3][3] (orthonormal) holding boxes b[0..n) and
 * the box extra (NULL: none). */
static void union_boxes(const double ax[3][3], const tnode *b, uint64_t n, const double *extra,
                        double out[12])
{
    double lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        lo[a] = INFINITY;
        hi[a] = -INFINITY;
    }
    for (uint64_t i = 0; i < n + (extra != NULL); i++) {
        const double *bx = i < n ? b[i].box : extra;
        for (int c = 0; c < 8; c++) {
            double p[3];
            for (int k = 0; k < 3; k++)
                p[k] = bx[k] + ((c & 1) ? 1 : -1) * bx[3 + k] + ((c & 2) ? 1 : -1) * bx[6 + k] +
                       ((c & 4) ? 1 : -1) * bx[9 + k];
            for (int a = 0; a < 3; a++) {
                const double t = dot3(p, ax[a]);
                lo[a] = t < lo[a] ? t : lo[a];
                hi[a] = t > hi[a] ? t : hi[a];
            }
        }
    }
    for (int k = 0; k < 3; k++) {
        out[k] = 0;
        for (int a = 0; a < 3; a++)
            out[k] += ax[a][k] * 0.5 * (lo[a] + hi[a]);
    }
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 3; k++)
            out[3 + 3 * a + k] = ax[a][k] * 0.5 * (hi[a] - lo[a]);
}

/* Axes of a parent: terrains and the planet's root along x, y, z; other
 * planet nodes with z along their children's mean centre (up, for a
 * piece of sphere) and x, y across it. */
static void parent_axes(const tree *t, const tnode *ch, uint64_t n, int root, double ax[3][3])
{
    static const double id[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    memcpy(ax, id, sizeof id);
    if (t->d->kind != STRATA_WORLD_PLANET || root)
        return;
    double z[3] = {0, 0, 0};
    for (uint64_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            z[k] += ch[i].box[k];
    if (!(sqrt(dot3(z, z)) > 0))
        return;
    normalize3(z);
    const double *ref = fabs(z[2]) < 0.9 ? id[2] : id[0];
    double x[3] = {ref[1] * z[2] - ref[2] * z[1], ref[2] * z[0] - ref[0] * z[2],
                   ref[0] * z[1] - ref[1] * z[0]};
    normalize3(x);
    const double y[3] = {z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2],
                         z[0] * x[1] - z[1] * x[0]};
    memcpy(ax[0], x, sizeof x);
    memcpy(ax[1], y, sizeof y);
    memcpy(ax[2], z, sizeof z);
}

static double box_diag(const double *b)
{
    double s = 0;
    for (int a = 0; a < 3; a++)
        s += dot3(b + 3 + 3 * a, b + 3 + 3 * a);
    return 2 * sqrt(s);
}

/* ------------------------------------------------------------ tree */

static int cmp_node(const void *pa, const void *pb)
{
    const tnode *a = pa, *b = pb;
    return a->key < b->key ? -1 : a->key > b->key;
}

static void free_tree(tree *t)
{
    for (uint32_t k = 0; t->level && k <= t->depth; k++)
        strata__free(t->al, t->level[k]);
    strata__free(t->al, t->level);
    strata__free(t->al, t->nlevel);
}

static strata_status build(tree *t, uint64_t n)
{
    const strata_tileset_desc *d = t->d;
    t->level = strata__alloc_array(t->al, (size_t)t->depth + 1, sizeof *t->level);
    if (!t->level)
        return STRATA_ERR_NOMEM;
    memset(t->level, 0, ((size_t)t->depth + 1) * sizeof *t->level); /* for free_tree */
    t->nlevel = strata__alloc_array(t->al, (size_t)t->depth + 1, sizeof *t->nlevel);
    if (!t->nlevel)
        return STRATA_ERR_NOMEM;
    tnode *leaves = strata__alloc_array(t->al, n ? n : 1, sizeof *leaves);
    if (!leaves)
        return STRATA_ERR_NOMEM;
    t->level[t->depth] = leaves;
    /* leaves first (ids below nleaves), then the inner nodes' tiles */
    uint64_t nl = 0;
    while (nl < n && t->recs[nl].id < d->nleaves)
        nl++;
    for (uint64_t i = nl; i < n; i++)
        if ((i > 0 && t->recs[i].id <= t->recs[i - 1].id) || t->recs[i].id >= d->count)
            return STRATA_ERR_INVALID_ARG;
    const uint64_t ninner = n - nl;
    n = nl;
    t->nlevel[t->depth] = n;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t id = t->recs[i].id;
        if (i && id <= t->recs[i - 1].id)
            return STRATA_ERR_INVALID_ARG;
        leaves[i].key = d->kind == STRATA_WORLD_PLANET
                            ? id
                            : morton((uint32_t)(id % d->tiles_x), (uint32_t)(id / d->tiles_x));
        leaves[i].first = i;
        leaves[i].count = 0;
        leaves[i].leaves = 1;
        leaves[i].content = -1;
        memcpy(leaves[i].box, t->recs[i].box, sizeof leaves[i].box);
    }
    qsort(leaves, n, sizeof *leaves, cmp_node);
    for (uint32_t k = t->depth; k-- > 0;) {
        const tnode *ch = t->level[k + 1];
        const uint64_t nch = t->nlevel[k + 1];
        uint64_t np = 0;
        for (uint64_t i = 0; i < nch; i++)
            np += i == 0 || ch[i].key >> 2 != ch[i - 1].key >> 2;
        tnode *par = strata__alloc_array(t->al, np ? np : 1, sizeof *par);
        if (!par)
            return STRATA_ERR_NOMEM;
        t->level[k] = par;
        t->nlevel[k] = np;
        uint64_t j = 0;
        for (uint64_t i = 0; i < nch;) {
            uint64_t e = i + 1;
            while (e < nch && ch[e].key >> 2 == ch[i].key >> 2)
                e++;
            tnode *p = &par[j++];
            p->key = ch[i].key >> 2;
            p->first = i;
            p->count = e - i;
            p->leaves = 0;
            p->content = -1;
            for (uint64_t c = i; c < e; c++)
                p->leaves += ch[c].leaves;
            i = e;
        }
        /* the tiles of depth k (ids ascending within a depth) */
        for (uint64_t r = nl; r < nl + ninner; r++) {
            uint32_t rk;
            uint64_t at;
            strata__tileset_locate(d, t->recs[r].id, &rk, &at);
            if (rk != k)
                continue;
            const uint64_t key = d->kind == STRATA_WORLD_PLANET
                                     ? at
                                     : morton((uint32_t)(at % d->across[k]),
                                              (uint32_t)(at / d->across[k]));
            const tnode probe = {.key = key};
            tnode *hit = bsearch(&probe, par, np, sizeof *par, cmp_node);
            if (hit) /* a tile without any leaf below is left out */
                hit->content = (int64_t)r;
        }
        for (uint64_t q = 0; q < np; q++) {
            tnode *p = &par[q];
            double ax[3][3];
            parent_axes(t, ch + p->first, p->count, 0, ax);
            union_boxes(ax, ch + p->first, p->count,
                        p->content >= 0 ? t->recs[p->content].box : NULL, p->box);
        }
    }
    return STRATA_OK;
}

/* ------------------------------------------------------------ JSON */

static void box_json(strata_jtext *j, const double *b)
{
    strata__jtext_raw(j, "{\"box\":[");
    for (int i = 0; i < 12; i++) {
        if (i)
            strata__jtext_raw(j, ",");
        strata__jtext_double(j, b[i]);
    }
    strata__jtext_raw(j, "]}");
}

/* geometricError: 0 at the tiles; above them nodes have no content of
 * their own, so their error is large enough that every viewer refines
 * them (and decreasing with depth, as the format asks). */
static double node_error(const tree *t, uint32_t k)
{
    if (t->d->lod) /* the bounds of the world, 0 at the leaves */
        return t->d->errors[k];
    return k == t->depth ? 0.0 : 1e3 * t->root_diag * ldexp(1.0, -(int)k);
}

static void schema_json(strata_jtext *j, const strata_tileset_desc *d)
{
    strata__jtext_raw(j, "\"schema\":{\"id\":\"strata\",\"classes\":{\"world\":{\"properties\":{");
    strata__jtext_raw(j, d->world_classes);
    strata__jtext_raw(j, "}},\"tile\":{\"properties\":{"
                         "\"chunk\":{\"type\":\"SCALAR\",\"componentType\":\"UINT64\"},"
                         "\"triangles\":{\"type\":\"SCALAR\",\"componentType\":\"UINT64\"},"
                         "\"bytes\":{\"type\":\"SCALAR\",\"componentType\":\"UINT64\"}}}}}");
}

static strata_status write_subtree(tree *t, uint32_t k, uint64_t i);
static strata_status write_file(tree *t, const char *rel, const strata_jtext *j);
static strata_status node_json(tree *t, strata_jtext *j, uint32_t k, uint64_t i, int root);

/* Nodes [first, first + count) of depth k as the children of a node with
 * `above` tiles below it.  A child that tops a subtree of at most
 * STRATA_TILESET_SPLIT tiles, under a parent with more, goes to a file of
 * its own and is referenced here. */
static strata_status children_json(tree *t, strata_jtext *j, uint32_t k, uint64_t first,
                                   uint64_t count, uint64_t above)
{
    strata__jtext_raw(j, ",\"children\":[");
    for (uint64_t c = first; c < first + count; c++) {
        if (c > first)
            strata__jtext_raw(j, ",");
        const tnode *ch = &t->level[k][c];
        strata_status st;
        if (above > STRATA_TILESET_SPLIT && ch->leaves <= STRATA_TILESET_SPLIT && k < t->depth) {
            if ((st = write_subtree(t, k, c)) != STRATA_OK)
                return st;
            strata__jtext_raw(j, "{\"boundingVolume\":");
            box_json(j, ch->box);
            strata__jtext_raw(j, ",\"geometricError\":");
            strata__jtext_double(j, node_error(t, k));
            strata__jtext_printf(j, ",\"content\":{\"uri\":\"%stilesets/%u/%llu.json\"}}",
                                 t->up, k, (unsigned long long)ch->key);
        } else if ((st = node_json(t, j, k, c, 0)) != STRATA_OK) {
            return st;
        }
    }
    strata__jtext_raw(j, "]");
    return j->nomem ? STRATA_ERR_NOMEM : STRATA_OK;
}

/* A tile's content and metadata members. */
static void content_json(const tree *t, strata_jtext *j, const strata_tile_record *r)
{
    char path[64];
    strata__tile_path(t->d, r->id, path, sizeof path);
    strata__jtext_printf(j,
                         ",\"content\":{\"uri\":\"%s%s%s\"},\"metadata\":{\"class\":\"tile\","
                         "\"properties\":{\"chunk\":%llu,\"triangles\":%llu,\"bytes\":%llu}}",
                         t->up, path, t->d->ext, (unsigned long long)r->id,
                         (unsigned long long)r->triangles, (unsigned long long)r->bytes);
}

/* Node i of depth k as a tile object (the root of a tileset: with
 * refine). */
static strata_status node_json(tree *t, strata_jtext *j, uint32_t k, uint64_t i, int root)
{
    const tnode *nd = &t->level[k][i];
    if (!t->open) /* the tileset's root: its brace and transform written */
        strata__jtext_raw(j, "{");
    t->open = 0;
    strata__jtext_raw(j, "\"boundingVolume\":");
    box_json(j, nd->box);
    strata__jtext_raw(j, ",\"geometricError\":");
    strata__jtext_double(j, node_error(t, k));
    if (root)
        strata__jtext_raw(j, ",\"refine\":\"REPLACE\"");
    if (k == t->depth) {
        content_json(t, j, &t->recs[nd->first]);
        strata__jtext_raw(j, "}");
        return j->nomem ? STRATA_ERR_NOMEM : STRATA_OK;
    }
    if (nd->content >= 0)
        content_json(t, j, &t->recs[nd->content]);
    const strata_status st = children_json(t, j, k + 1, nd->first, nd->count, nd->leaves);
    strata__jtext_raw(j, "}");
    return st;
}

static void head_json(tree *t, strata_jtext *j, double error)
{
    strata__jtext_raw(j, "{\"asset\":{\"version\":\"1.1\"},\"geometricError\":");
    strata__jtext_double(j, error);
    strata__jtext_raw(j, ",");
    schema_json(j, t->d);
}

static strata_status write_subtree(tree *t, uint32_t k, uint64_t i)
{
    strata_jtext j;
    strata__jtext_init(&j, t->al);
    head_json(t, &j, node_error(t, k));
    strata__jtext_raw(&j, ",\"root\":");
    /* the file is tilesets/K/ID.json: URIs relative to it (3D Tiles) */
    const char *up = t->up;
    t->up = "../../";
    strata_status st = node_json(t, &j, k, i, 1);
    t->up = up;
    strata__jtext_raw(&j, "}\n");
    if (st == STRATA_OK && j.nomem)
        st = STRATA_ERR_NOMEM;
    char rel[64];
    snprintf(rel, sizeof rel, "tilesets/%u/%llu.json", k,
             (unsigned long long)t->level[k][i].key);
    if (st == STRATA_OK)
        st = write_file(t, rel, &j);
    strata__jtext_free(&j);
    return st;
}

/* mkdir -p of the directories of dir/rel. */
static int make_dirs(const char *dir, const char *rel)
{
    char path[4096];
    const int n = snprintf(path, sizeof path, "%s/%s", dir, rel);
    if (n < 0 || (size_t)n >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + strlen(dir) + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return 0;
}

static strata_status write_file(tree *t, const char *rel, const strata_jtext *j)
{
    if (make_dirs(t->dir, rel) != 0)
        return STRATA_ERR_IO;
    char path[4096];
    const int n = snprintf(path, sizeof path, "%s/%s", t->dir, rel);
    if (n < 0 || (size_t)n >= sizeof path) {
        errno = ENAMETOOLONG;
        return STRATA_ERR_IO;
    }
    strata_out o = STRATA_OUT_INIT(t->ctx);
    if (strata__out_open(&o, path, t->ctx) == 0) {
        strata__out_bytes(&o, j->s, j->len);
        strata__out_finish(&o);
        strata__out_commit(&o, path);
    }
    const strata_status st = strata__out_status(&o);
    const int err = o.err;
    strata__out_discard(&o);
    errno = err;
    return st;
}

strata_status strata__tileset_write(strata_ctx *ctx, const char *dir,
                                    const strata_tileset_desc *d, const strata_tile_record *recs,
                                    uint64_t n)
{
    const strata_allocator *al = &ctx->alloc;
    tree t = {.ctx = ctx, .al = al, .dir = dir, .d = d, .recs = recs, .depth = d->leaf_depth,
              .up = ""};
    strata_status st = build(&t, n);
    if (st != STRATA_OK) {
        free_tree(&t);
        return st;
    }
    /* The root: planets group the 20 faces (depth 0) under it; a
     * terrain's depth-0 node is the root itself (unless it is the one
     * tile of a one-tile terrain). */
    const int own_root = d->kind == STRATA_WORLD_TERRAIN && t.depth > 0 && t.nlevel[0] == 1;
    const uint32_t kc = own_root ? 1 : 0; /* depth of the root's children */
    const uint64_t first = own_root ? t.level[0][0].first : 0;
    const uint64_t count = own_root ? t.level[0][0].count : t.nlevel[0];
    double box[12] = {0};
    double ax[3][3];
    parent_axes(&t, t.level[kc] + first, count, 1, ax);
    if (count)
        union_boxes(ax, t.level[kc] + first, count, NULL, box);
    t.root_diag = box_diag(box) > 0 ? box_diag(box) : 1.0;
    const double root_error = 2e3 * t.root_diag;
    strata_jtext j;
    strata__jtext_init(&j, al);
    /* the tileset's own error is in metres: a placed world's scale
     * applies (the tiles' errors are scaled by the root's transform, as
     * 3D Tiles 1.1 says and CesiumJS does) */
    head_json(&t, &j, 2 * root_error * (d->placed ? d->place[3] : 1.0));
    strata__jtext_raw(&j, ",\"metadata\":{\"class\":\"world\",\"properties\":{");
    strata__jtext_raw(&j, d->world_properties);
    strata__jtext_raw(&j, "}},\"root\":{");
    if (d->placed) { /* the world's frame to ECEF; boxes stay in the first */
        strata__jtext_raw(&j, "\"transform\":[");
        for (int i = 0; i < 16; i++) {
            if (i)
                strata__jtext_raw(&j, ",");
            strata__jtext_double(&j, d->transform[i]);
        }
        strata__jtext_raw(&j, "],");
    }
    if (own_root && d->lod) {
        /* the depth-0 node is the root, with its own tile */
        t.open = 1;
        st = node_json(&t, &j, 0, 0, 1);
        strata__jtext_raw(&j, "}\n");
    } else {
        strata__jtext_raw(&j, "\"boundingVolume\":");
        box_json(&j, box);
        strata__jtext_raw(&j, ",\"geometricError\":");
        strata__jtext_double(&j, root_error);
        strata__jtext_raw(&j, ",\"refine\":\"REPLACE\"");
        st = children_json(&t, &j, kc, first, count, t.nlevel[t.depth]);
        strata__jtext_raw(&j, "}}\n");
    }
    if (st == STRATA_OK && j.nomem)
        st = STRATA_ERR_NOMEM;
    if (st == STRATA_OK)
        st = write_file(&t, "tileset.json", &j);
    strata__jtext_free(&j);
    free_tree(&t);
    return st;
}
