/* World directories (strata.h, "World directories"): the manifest, one tile
 * file per chunk carrying its own record, and the tileset. */
#define _POSIX_C_SOURCE 200809L

#include "world/world.h"
#include "base/crc32c.h"
#include "base/ctx.h"
#include "base/json.h"
#include "base/output.h"
#include "base/readfile.h"
#include "io/write.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#define MANIFEST "world.json"
#define MANIFEST_MAX (1u << 20)   /* bytes: a manifest is a few KB */
#define TILE_JSON_MAX (64u << 20) /* bytes of a tile's glTF JSON */
#define PLY_HEADER_MAX (64u << 10)
#define LOCKFILE "world.lock"

/* A tile's record ends with its file's size and CRC-32C, written as
 * placeholders and filled in by strata__tile_seal once the rest of the
 * file is written: the size right-aligned in 20 columns (JSON allows the
 * blanks), the CRC as 8 hex digits, that of the whole file with those 8
 * digits read as '0'.  A copy cut short or with bytes changed fails
 * strata_world_dir_check_tile. */
#define SEAL_SIZE_AT ",\"bytes\":"
#define SEAL_CRC_AT ",\"crc32c\":\""
#define SEAL_COLUMNS 20
#define SEAL_PLACEHOLDER SEAL_SIZE_AT "                    " SEAL_CRC_AT "00000000\""

struct strata_world_dir {
    strata_allocator alloc;
    char *path;
    strata_format format;
    int compress; /* GLB tiles with EXT_meshopt_compression */
    uint64_t fingerprint;
    uint64_t nchunks;
    strata_tileset_desc desc;
    int skirts;
    int loops; /* leaf tiles have their loops beside them */
    char *classes, *properties; /* the tileset's world metadata */
    int lock_fd;                /* DIR/world.lock while locked, else -1 */
};

void strata_world_dir_close(strata_world_dir *d)
{
    if (!d)
        return;
    const strata_allocator al = d->alloc;
    if (d->lock_fd >= 0)
        close(d->lock_fd); /* releases the lock */
    strata__free(&al, d->path);
    strata__free(&al, d->classes);
    strata__free(&al, d->properties);
    strata__free(&al, d);
}

strata_status strata_world_dir_set_compress(strata_world_dir *d, int on)
{
    if (!d || (on && d->format != STRATA_FORMAT_GLB))
        return STRATA_ERR_INVALID_ARG;
    if (on && !strata_optimize_supported())
        return STRATA_ERR_UNSUPPORTED;
    d->compress = on != 0;
    return STRATA_OK;
}

uint64_t strata_world_dir_chunk_count(const strata_world_dir *d)
{
    return d ? d->nchunks : 0;
}

strata_status strata_world_dir_tile_path(const strata_world_dir *d, uint64_t id, char *buf,
                                         size_t len)
{
    if (!d || !buf || id >= d->nchunks)
        return STRATA_ERR_INVALID_ARG;
    char rel[64];
    strata__tile_path(&d->desc, id, rel, sizeof rel);
    const int n = snprintf(buf, len, "%s%s", rel, d->desc.ext);
    return n < 0 || (size_t)n >= len ? STRATA_ERR_INVALID_ARG : STRATA_OK;
}

/* "DIR/rel" into buf; STRATA_ERR_IO (ENAMETOOLONG) when it does not fit. */
static strata_status join(const strata_world_dir *d, const char *rel, char *buf, size_t len)
{
    const int n = snprintf(buf, len, "%s/%s", d->path, rel);
    if (n < 0 || (size_t)n >= len) {
        errno = ENAMETOOLONG;
        return STRATA_ERR_IO;
    }
    return STRATA_OK;
}

static char *dup_str(const strata_allocator *al, const char *s, size_t n)
{
    char *c = strata__alloc(al, n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

/* ------------------------------------------------------------ parameters
 *
 * The world's parameters: a table of typed values written once into the
 * manifest and copied into the tileset's metadata (class "world"). */

typedef enum { P_STRING, P_INT, P_FLOAT, P_BOOL, P_FLOATS } ptype;

static const struct {
    const char *name;
    ptype type;
} param_types[] = {
    {"kind", P_STRING},         {"level", P_INT},        {"chunkLevel", P_INT},
    {"radius", P_FLOAT},        {"cellsX", P_INT},       {"cellsZ", P_INT},
    {"cellSize", P_FLOAT},      {"heightScale", P_FLOAT}, {"tileCells", P_INT},
    {"patchCells", P_INT},      {"noise", P_STRING},     {"seed", P_INT},
    {"octaves", P_INT},         {"frequency", P_FLOAT},  {"lacunarity", P_FLOAT},
    {"gain", P_FLOAT},          {"amplitude", P_FLOAT},  {"curve", P_BOOL},
    {"planes", P_FLOATS},       {"walls", P_STRING},     {"normals", P_BOOL},
    {"fingerprint", P_STRING},  {"chunks", P_INT},       {"generator", P_STRING},
};

static void class_json(strata_jtext *j, ptype t)
{
    switch (t) {
    case P_STRING: strata__jtext_raw(j, "{\"type\":\"STRING\"}"); break;
    case P_INT: strata__jtext_raw(j, "{\"type\":\"SCALAR\",\"componentType\":\"INT64\"}"); break;
    case P_FLOAT: strata__jtext_raw(j, "{\"type\":\"SCALAR\",\"componentType\":\"FLOAT64\"}"); break;
    case P_BOOL: strata__jtext_raw(j, "{\"type\":\"BOOLEAN\"}"); break;
    case P_FLOATS:
        strata__jtext_raw(j, "{\"type\":\"SCALAR\",\"componentType\":\"FLOAT32\",\"array\":true}");
        break;
    }
}

/* The parameters object of w, members only. */
static void params_json(const strata_world *w, strata_jtext *j)
{
    char fp[17];
    snprintf(fp, sizeof fp, "%016" PRIx64, w->fingerprint);
    strata__jtext_printf(j, "\"generator\":\"strata %s\",\"fingerprint\":\"%s\",\"chunks\":%llu",
                         strata_version(), fp, (unsigned long long)strata_world_chunk_count(w));
    if (w->kind == STRATA_WORLD_PLANET) {
        strata__jtext_printf(j, ",\"kind\":\"planet\",\"level\":%d,\"chunkLevel\":%d,\"radius\":",
                             w->planet.level, w->planet.chunk_level);
        strata__jtext_float(j, w->planet.radius);
    } else {
        const strata_terrain_lattice *tl = &w->terrain;
        strata__jtext_printf(j,
                             ",\"kind\":\"terrain\",\"cellsX\":%u,\"cellsZ\":%u,\"tileCells\":%u,"
                             "\"patchCells\":%u,\"cellSize\":",
                             tl->src.nx, tl->src.nz, tl->tile, tl->src.patch);
        strata__jtext_float(j, tl->cell);
        strata__jtext_raw(j, ",\"heightScale\":");
        strata__jtext_float(j, tl->src.scale);
    }
    if (w->has_noise) {
        strata__jtext_printf(j, ",\"noise\":\"%s\",\"seed\":%u,\"octaves\":%d,\"frequency\":",
                             w->fbm.kind == STRATA_NOISE_PERLIN ? "perlin" : "simplex",
                             w->fbm.seed, w->fbm.octaves);
        strata__jtext_float(j, w->fbm.frequency);
        strata__jtext_raw(j, ",\"lacunarity\":");
        strata__jtext_float(j, w->fbm.lacunarity);
        strata__jtext_raw(j, ",\"gain\":");
        strata__jtext_float(j, w->fbm.gain);
        strata__jtext_raw(j, ",\"amplitude\":");
        strata__jtext_float(j, w->fbm.amplitude);
        strata__jtext_printf(j, ",\"curve\":%s", w->curve ? "true" : "false");
    } else {
        strata__jtext_raw(j, ",\"noise\":\"none\"");
    }
    strata__jtext_raw(j, ",\"planes\":[");
    for (uint32_t k = 0; k < w->nlevels; k++) {
        if (k)
            strata__jtext_raw(j, ",");
        strata__jtext_float(j, w->levels[k]);
    }
    static const char *const walls[] = {"upper", "lower", "separate"};
    strata__jtext_printf(j, "],\"walls\":\"%s\",\"normals\":%s", walls[w->walls],
                         w->normals ? "true" : "false");
    if (w->stages.water) {
        strata__jtext_raw(j, ",\"water\":");
        strata__jtext_float(j, w->stages.terraces.sea_level);
    }
    if (w->stages.shoreline > 0) {
        strata__jtext_raw(j, ",\"shoreline\":");
        strata__jtext_float(j, w->stages.shoreline);
    }
    if (w->loops)
        strata__jtext_raw(j, ",\"loops\":true");
    if (w->stages.props) {
        const strata_props_options *p = &w->props;
        strata__jtext_raw(j, ",\"props\":{\"density\":");
        strata__jtext_double(j, p->density);
        strata__jtext_raw(j, ",\"noise\":");
        strata__jtext_double(j, p->noise_frequency);
        strata__jtext_printf(j, ",\"seed\":%u,\"terraces\":[%u,%u],\"scale\":[", p->seed,
                             p->first_terrace, p->last_terrace);
        strata__jtext_float(j, p->min_scale);
        strata__jtext_raw(j, ",");
        strata__jtext_float(j, p->max_scale);
        strata__jtext_raw(j, "],\"rocks\":");
        strata__jtext_float(j, p->rock_share);
        if (p->spacing > 0) {
            strata__jtext_raw(j, ",\"spacing\":");
            strata__jtext_double(j, p->spacing);
        }
        if (p->wall_foot > 0) {
            strata__jtext_raw(j, ",\"wallFoot\":");
            strata__jtext_double(j, p->wall_foot);
        }
        if (p->min_height > -INFINITY || p->max_height < INFINITY) {
            strata__jtext_raw(j, ",\"heights\":[");
            strata__jtext_double(j, p->min_height > -INFINITY ? p->min_height : -1e38);
            strata__jtext_raw(j, ",");
            strata__jtext_double(j, p->max_height < INFINITY ? p->max_height : 1e38);
            strata__jtext_raw(j, "]");
        }
        if (p->max_slope < 90) {
            strata__jtext_raw(j, ",\"maxSlope\":");
            strata__jtext_float(j, p->max_slope);
        }
        strata__jtext_raw(j, "}");
    }
}

/* A parsed value written back as JSON text. */
static void value_json(strata_jtext *j, const strata_json_doc *doc, strata_json_ref v)
{
    const char *s;
    size_t n;
    double x;
    switch (strata__json_type(doc, v)) {
    case STRATA_JSON_STRING:
        strata__json_string(doc, v, &s, &n);
        strata__jtext_string(j, s);
        break;
    case STRATA_JSON_NUMBER:
        strata__json_number(doc, v, &x);
        strata__jtext_double(j, x);
        break;
    case STRATA_JSON_TRUE: strata__jtext_raw(j, "true"); break;
    case STRATA_JSON_FALSE: strata__jtext_raw(j, "false"); break;
    case STRATA_JSON_ARRAY:
        strata__jtext_raw(j, "[");
        for (uint32_t i = 0; i < strata__json_count(doc, v); i++) {
            if (i)
                strata__jtext_raw(j, ",");
            value_json(j, doc, strata__json_at(doc, v, i));
        }
        strata__jtext_raw(j, "]");
        break;
    default: strata__jtext_raw(j, "null"); break;
    }
}

static int type_ok(const strata_json_doc *doc, strata_json_ref v, ptype t)
{
    const strata_json_type jt = strata__json_type(doc, v);
    switch (t) {
    case P_STRING: return jt == STRATA_JSON_STRING;
    case P_INT:
    case P_FLOAT: return jt == STRATA_JSON_NUMBER;
    case P_BOOL: return jt == STRATA_JSON_TRUE || jt == STRATA_JSON_FALSE;
    case P_FLOATS:
        if (jt != STRATA_JSON_ARRAY)
            return 0;
        for (uint32_t i = 0; i < strata__json_count(doc, v); i++)
            if (strata__json_type(doc, strata__json_at(doc, v, i)) != STRATA_JSON_NUMBER)
                return 0;
        return 1;
    }
    return 0;
}

/* The tileset's world metadata (class members and property values) from
 * a parameters object: the known parameters present, in table order. */
static strata_status metadata_from(strata_world_dir *d, const strata_json_doc *doc,
                                   strata_json_ref params)
{
    strata_jtext c, p;
    strata__jtext_init(&c, &d->alloc);
    strata__jtext_init(&p, &d->alloc);
    int first = 1;
    for (size_t i = 0; i < sizeof param_types / sizeof param_types[0]; i++) {
        const strata_json_ref v = strata__json_get(doc, params, param_types[i].name);
        if (v == STRATA_JSON_NIL)
            continue;
        if (!type_ok(doc, v, param_types[i].type)) {
            strata__jtext_free(&c);
            strata__jtext_free(&p);
            return STRATA_ERR_FORMAT;
        }
        strata__jtext_printf(&c, "%s\"%s\":", first ? "" : ",", param_types[i].name);
        class_json(&c, param_types[i].type);
        strata__jtext_printf(&p, "%s\"%s\":", first ? "" : ",", param_types[i].name);
        value_json(&p, doc, v);
        first = 0;
    }
    const int nomem = c.nomem || p.nomem;
    d->classes = nomem ? NULL : dup_str(&d->alloc, c.s ? c.s : "", c.len);
    d->properties = nomem ? NULL : dup_str(&d->alloc, p.s ? p.s : "", p.len);
    strata__jtext_free(&c);
    strata__jtext_free(&p);
    return d->classes && d->properties ? STRATA_OK : STRATA_ERR_NOMEM;
}

/* ------------------------------------------------------------ manifest */

static strata_status read_small_file(const strata_allocator *al, const char *path, size_t max,
                                     char **out, size_t *len)
{
    uint8_t *buf;
    strata_status st = strata__read_file(al, path, max, &buf, len);
    *out = (char *)buf;
    return st;
}

/* Whether a terrain of `chunks` tiles, tiles_x across, has a quadtree of
 * depth levels (the least that covers it). */
static int terrain_layout(uint64_t chunks, uint64_t tiles_x, uint64_t depth)
{
    if (chunks == 0 || chunks % tiles_x != 0 || chunks / tiles_x > UINT32_MAX)
        return 0;
    const uint64_t most = tiles_x > chunks / tiles_x ? tiles_x : chunks / tiles_x;
    uint64_t least = 0;
    while (((uint64_t)1 << least) < most)
        least++;
    return depth == least;
}

/* Fill d from the manifest text. */
static strata_status parse_manifest(strata_world_dir *d, const char *text, size_t len)
{
    strata_json_doc *doc;
    strata_status st = strata__json_parse(&d->alloc, text, len, &doc);
    if (st != STRATA_OK)
        return st == STRATA_ERR_NOMEM ? st : STRATA_ERR_FORMAT;
    const strata_json_ref root = strata__json_root(doc);
    const char *s;
    size_t n;
    uint64_t version, chunks, depth, tiles_x;
    st = STRATA_ERR_FORMAT;
    const strata_json_ref params = strata__json_get(doc, root, "parameters");
    const strata_json_ref lod = strata__json_get(doc, root, "lod");
    uint64_t leaves;
    if (!strata__json_u64(doc, strata__json_get(doc, root, "strataWorld"), &version) ||
        version != 1 || !strata__json_u64(doc, strata__json_get(doc, root, "chunks"), &chunks) ||
        !strata__json_u64(doc, strata__json_get(doc, root, "leafDepth"), &depth) || depth > 31 ||
        !strata__json_u64(doc, strata__json_get(doc, root, "tilesX"), &tiles_x) ||
        tiles_x > UINT32_MAX || strata__json_type(doc, params) != STRATA_JSON_OBJECT)
        goto done;
    if (!strata__json_string(doc, strata__json_get(doc, root, "fingerprint"), &s, &n) ||
        n != 16 || sscanf(s, "%16" SCNx64, &d->fingerprint) != 1)
        goto done;
    if (!strata__json_string(doc, strata__json_get(doc, root, "kind"), &s, &n))
        goto done;
    if (!strcmp(s, "planet"))
        d->desc.kind = STRATA_WORLD_PLANET;
    else if (!strcmp(s, "terrain") && tiles_x > 0)
        d->desc.kind = STRATA_WORLD_TERRAIN;
    else
        goto done;
    if (!strata__json_string(doc, strata__json_get(doc, root, "tileFormat"), &s, &n))
        goto done;
    if (!strcmp(s, "glb"))
        d->format = STRATA_FORMAT_GLB;
    else if (!strcmp(s, "ply"))
        d->format = STRATA_FORMAT_PLY;
    else
        goto done;
    /* "place": [lon, lat, height, scale] or [lon, lat, height, scale,
     * heading] (strata_world_options.place; the heading when not 0) */
    const strata_json_ref place = strata__json_get(doc, root, "place");
    if (place != STRATA_JSON_NIL) {
        const uint32_t np = strata__json_count(doc, place);
        if (np != 4 && np != 5)
            goto done;
        d->desc.place[4] = 0.0;
        for (uint32_t i = 0; i < np; i++)
            if (!strata__json_number(doc, strata__json_at(doc, place, i), &d->desc.place[i]))
                goto done;
        if (strata_geo_frame(d->desc.place[0], d->desc.place[1], d->desc.place[2],
                             d->desc.place[3], d->desc.place[4], d->desc.transform) != STRATA_OK)
            goto done;
        d->desc.placed = 1;
    }
    /* Levels of detail: "lod": {"leaves": N, "skirts": B, "errors": [E_0
     * .. E_depth]}, errors finite, strictly decreasing, the last 0. */
    leaves = chunks;
    if (lod != STRATA_JSON_NIL) {
        const strata_json_ref errs = strata__json_get(doc, lod, "errors");
        const strata_json_type sk = strata__json_type(doc, strata__json_get(doc, lod, "skirts"));
        if (!strata__json_u64(doc, strata__json_get(doc, lod, "leaves"), &leaves) ||
            (sk != STRATA_JSON_TRUE && sk != STRATA_JSON_FALSE) ||
            strata__json_count(doc, errs) != depth + 1)
            goto done;
        d->skirts = sk == STRATA_JSON_TRUE;
        d->desc.lod = 1;
        for (uint32_t k = 0; k <= depth; k++)
            if (!strata__json_number(doc, strata__json_at(doc, errs, k), &d->desc.errors[k]) ||
                !isfinite(d->desc.errors[k]) || d->desc.errors[k] < 0 ||
                (k && !(d->desc.errors[k] < d->desc.errors[k - 1])) ||
                (k == depth && d->desc.errors[k] != 0))
                goto done;
    }
    /* The chunk count is the layout's (a planet's 20 4^C, C < 13; a
     * terrain's tiles across times down, its quadtree no deeper than
     * needed; with lod, the inner nodes' tiles too), so a manifest cannot
     * make `strata tileset` or --resume walk chunks it merely claims. */
    if (d->desc.kind == STRATA_WORLD_PLANET ? depth > 12 || leaves != (uint64_t)20 << (2 * depth)
                                            : !terrain_layout(leaves, tiles_x, depth))
        goto done;
    d->desc.leaf_depth = (uint32_t)depth;
    d->desc.tiles_x = (uint32_t)tiles_x;
    if (!strata__tileset_layout(&d->desc, leaves) || d->desc.count != chunks)
        goto done;
    d->desc.ext = d->format == STRATA_FORMAT_GLB ? ".glb" : ".ply";
    d->nchunks = chunks;
    d->loops = strata__json_type(doc, strata__json_get(doc, params, "loops")) == STRATA_JSON_TRUE;
    st = metadata_from(d, doc, params);
done:
    strata__json_free(doc);
    return st;
}

static strata_status manifest_text(const strata_world *w, strata_format format, strata_jtext *j)
{
    char fp[17];
    snprintf(fp, sizeof fp, "%016" PRIx64, w->fingerprint);
    strata_tileset_desc desc;
    strata__world_tileset_desc(w, ".glb", &desc);
    strata__jtext_printf(j,
                         "{\"strataWorld\":1,\"fingerprint\":\"%s\",\"kind\":\"%s\","
                         "\"chunks\":%llu,\"leafDepth\":%u,\"tilesX\":%u,\"tileFormat\":\"%s\",",
                         fp, w->kind == STRATA_WORLD_PLANET ? "planet" : "terrain",
                         (unsigned long long)strata_world_chunk_count(w), desc.leaf_depth,
                         desc.tiles_x, format == STRATA_FORMAT_GLB ? "glb" : "ply");
    if (w->lod) {
        strata__jtext_printf(j, "\"lod\":{\"leaves\":%llu,\"skirts\":%s,\"errors\":[",
                             (unsigned long long)desc.nleaves, w->skirts ? "true" : "false");
        for (uint32_t k = 0; k <= desc.leaf_depth; k++) {
            if (k)
                strata__jtext_raw(j, ",");
            strata__jtext_double(j, w->lod_error[k]);
        }
        strata__jtext_raw(j, "]},");
    }
    if (desc.placed) {
        strata__jtext_raw(j, "\"place\":[");
        for (int i = 0; i < (desc.place[4] != 0.0 ? 5 : 4); i++) {
            if (i)
                strata__jtext_raw(j, ",");
            strata__jtext_double(j, desc.place[i]);
        }
        strata__jtext_raw(j, "],");
    }
    strata__jtext_raw(j, "\"parameters\":{");
    params_json(w, j);
    strata__jtext_raw(j, "}}\n");
    return j->nomem ? STRATA_ERR_NOMEM : STRATA_OK;
}

/* Write path only if it does not exist: the whole file under a temporary
 * name, then link(2) (rename would replace a file another process made in
 * the meantime).  STRATA_ERR_IO with errno EEXIST when path exists. */
static strata_status write_new(strata_ctx *ctx, const char *path, const char *s, size_t n)
{
    strata_out o = STRATA_OUT_INIT(ctx);
    if (strata__out_open(&o, path, ctx) == 0) {
        strata__out_bytes(&o, s, n);
        strata__out_finish(&o);
        if (!o.err && link(o.tmp, path) != 0) {
            if (errno == EEXIST)
                o.err = EEXIST;
            else
                strata__out_commit(&o, path); /* no hard links here: rename */
        }
    }
    const strata_status st = strata__out_status(&o);
    const int err = o.err;
    strata__out_discard(&o); /* the temporary name, when linked */
    errno = err;
    return st;
}

static strata_status new_dir(strata_ctx *ctx, const char *path, strata_world_dir **out)
{
    *out = NULL;
    if (!ctx || !path || !*path)
        return STRATA_ERR_INVALID_ARG;
    strata_world_dir *d = strata__alloc(&ctx->alloc, sizeof *d);
    if (!d)
        return STRATA_ERR_NOMEM;
    memset(d, 0, sizeof *d);
    d->alloc = ctx->alloc;
    d->lock_fd = -1;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    if (!(d->path = dup_str(&d->alloc, path, n))) {
        strata__free(&ctx->alloc, d);
        return STRATA_ERR_NOMEM;
    }
    *out = d;
    return STRATA_OK;
}

strata_status strata_world_dir_open(strata_ctx *ctx, const char *path, strata_world_dir **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    strata_world_dir *d;
    strata_status st = new_dir(ctx, path, &d);
    if (st != STRATA_OK)
        return st;
    char mpath[4096], *text = NULL;
    size_t len;
    if ((st = join(d, MANIFEST, mpath, sizeof mpath)) == STRATA_OK &&
        (st = read_small_file(&d->alloc, mpath, MANIFEST_MAX, &text, &len)) == STRATA_OK)
        st = parse_manifest(d, text, len);
    if (st == STRATA_ERR_TOO_LARGE)
        st = STRATA_ERR_FORMAT;
    strata__free(&d->alloc, text);
    if (st != STRATA_OK) {
        const int err = errno;
        strata_world_dir_close(d);
        errno = err;
        return st;
    }
    *out = d;
    return STRATA_OK;
}

strata_status strata_world_dir_create(strata_ctx *ctx, const strata_world *w, const char *path,
                                      strata_format format, strata_world_dir **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!w || (format != STRATA_FORMAT_GLB && format != STRATA_FORMAT_PLY) ||
        (format == STRATA_FORMAT_PLY && w->stages.props)) /* PLY holds no props */
        return STRATA_ERR_INVALID_ARG;
    strata_world_dir *d;
    strata_status st = new_dir(ctx, path, &d);
    if (st != STRATA_OK)
        return st;
    d->loops = w->loops;
    char mpath[4096];
    struct stat sb;
    if ((st = join(d, MANIFEST, mpath, sizeof mpath)) != STRATA_OK)
        goto fail;
    if (mkdir(d->path, 0777) != 0 && errno != EEXIST) {
        st = STRATA_ERR_IO;
        goto fail;
    }
    if (stat(d->path, &sb) != 0) {
        st = STRATA_ERR_IO;
        goto fail;
    }
    if (!S_ISDIR(sb.st_mode)) {
        errno = ENOTDIR;
        st = STRATA_ERR_IO;
        goto fail;
    }
    strata_jtext j;
    strata__jtext_init(&j, &d->alloc);
    /* twice: a manifest another run wrote between our read and our
     * write is read again (and compared) the second time */
    st = manifest_text(w, format, &j);
    for (int attempt = 0; st == STRATA_OK && attempt < 2; attempt++) {
        char *old = NULL;
        size_t len;
        strata__free(&d->alloc, d->classes);
        strata__free(&d->alloc, d->properties);
        d->classes = d->properties = NULL;
        st = read_small_file(&d->alloc, mpath, MANIFEST_MAX, &old, &len);
        if (st == STRATA_OK) {
            /* a world is there already: the same one, or a conflict */
            st = parse_manifest(d, old, len);
            if (st == STRATA_OK && (d->fingerprint != w->fingerprint || d->format != format ||
                                    d->desc.lod != w->lod || d->skirts != w->skirts ||
                                    d->desc.placed != w->placed ||
                                    memcmp(d->desc.place, w->place, sizeof w->place)))
                st = STRATA_ERR_CONFLICT;
            strata__free(&d->alloc, old);
            break;
        }
        if (st == STRATA_ERR_IO && errno == ENOENT) {
            /* read first, so a failure (out of memory) leaves no manifest */
            st = parse_manifest(d, j.s, j.len);
            if (st == STRATA_OK)
                st = write_new(ctx, mpath, j.s, j.len);
            if (st == STRATA_ERR_IO && errno == EEXIST && attempt == 0)
                st = STRATA_OK; /* another run's: read it */
            else
                break;
        } else if (st == STRATA_ERR_TOO_LARGE) {
            st = STRATA_ERR_FORMAT;
        }
    }
    strata__jtext_free(&j);
    if (st != STRATA_OK)
        goto fail;
    *out = d;
    return STRATA_OK;
fail:;
    const int err = errno;
    strata_world_dir_close(d);
    errno = err;
    return st;
}

/* ------------------------------------------------------------ tiles */

/* The box holding r's vertices: planets along the chunk's axes (up along
 * its centre, x towards its first corner), terrains along x, y, z; in the
 * tileset's z-up frame. */
static void tile_box(const strata_world *w, uint64_t id, const strata_result *r, double box[12])
{
    double ax[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    if (w->kind == STRATA_WORLD_PLANET) {
        const float *cap = strata__world_cap(w, id);
        float corner[9];
        uint32_t cells[4];
        strata__world_chunk_region(w, id, corner, cells);
        const double z[3] = {cap[0], cap[1], cap[2]};
        double x[3] = {corner[0], corner[1], corner[2]};
        const double along = x[0] * z[0] + x[1] * z[1] + x[2] * z[2];
        for (int k = 0; k < 3; k++)
            x[k] -= along * z[k];
        const double lx = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
        for (int k = 0; k < 3; k++)
            x[k] /= lx;
        const double y[3] = {z[1] * x[2] - z[2] * x[1], z[2] * x[0] - z[0] * x[2],
                             z[0] * x[1] - z[1] * x[0]};
        memcpy(ax[0], x, sizeof x);
        memcpy(ax[1], y, sizeof y);
        memcpy(ax[2], z, sizeof z);
    }
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < r->nverts; v++)
        for (int a = 0; a < 3; a++) {
            const double t = ax[a][0] * r->x[v] + ax[a][1] * r->y[v] + ax[a][2] * r->z[v];
            lo[a] = t < lo[a] ? t : lo[a];
            hi[a] = t > hi[a] ? t : hi[a];
        }
    double c[3] = {0, 0, 0}, h[3][3];
    for (int a = 0; a < 3; a++) {
        if (!(lo[a] <= hi[a]))
            lo[a] = hi[a] = 0;
        /* a margin far above the rounding of these sums */
        const double pad = 1e-6 * (hi[a] - lo[a]) + 1e-9 * (fabs(lo[a]) + fabs(hi[a])) + 1e-30;
        lo[a] -= pad;
        hi[a] += pad;
        for (int k = 0; k < 3; k++) {
            c[k] += ax[a][k] * 0.5 * (lo[a] + hi[a]);
            h[a][k] = ax[a][k] * 0.5 * (hi[a] - lo[a]);
        }
    }
    /* glTF's (x, y, z) is the tileset's (x, -z, y) */
    const double *vec[4] = {c, h[0], h[1], h[2]};
    for (int i = 0; i < 4; i++) {
        box[3 * i] = vec[i][0];
        box[3 * i + 1] = 0.0 - vec[i][2];
        box[3 * i + 2] = vec[i][1];
    }
}

/* The tile's record as JSON (members of extras.strata, or the PLY
 * comment's object). */
static void record_json(const strata_world_dir *d, const strata_tile_record *rec,
                        strata_jtext *j)
{
    strata__jtext_printf(j, "{\"world\":\"%016" PRIx64 "\",\"chunk\":%llu,\"triangles\":%llu,"
                            "\"box\":[",
                         d->fingerprint, (unsigned long long)rec->id,
                         (unsigned long long)rec->triangles);
    for (int i = 0; i < 12; i++) {
        if (i)
            strata__jtext_raw(j, ",");
        strata__jtext_double(j, rec->box[i]);
    }
    strata__jtext_raw(j, "]" SEAL_PLACEHOLDER "}");
}

int strata__world_dir_has_loops(const strata_world_dir *d)
{
    return d->loops;
}

uint64_t strata__world_dir_leaves(const strata_world_dir *d)
{
    return d->desc.nleaves;
}

strata_status strata__world_dir_loops_path(const strata_world_dir *d, uint64_t id, char *buf,
                                          size_t len)
{
    char rel[80];
    strata__tile_path(&d->desc, id, rel, sizeof rel);
    strcat(rel, ".geojson");
    return join(d, rel, buf, len);
}

/* Tile id's loops beside it, written before the tile: a tile there has
 * its loops there too (a resumed run remakes a tile whose loops are
 * missing). */
static strata_status write_loops(strata_ctx *ctx, const strata_world_dir *d,
                                 const strata_world *w, uint64_t id, const strata_loops *loops)
{
    char path[4096];
    strata_status st = strata__world_dir_loops_path(d, id, path, sizeof path);
    if (st != STRATA_OK)
        return st;
    strata_loops_write_options o;
    strata_world_loops_frame(w, &o);
    o.format = STRATA_LOOPS_GEOJSON;
    return strata_loops_write(ctx, loops, path, &o);
}

strata_status strata_world_dir_write_tile(strata_ctx *ctx, strata_world_dir *d,
                                          const strata_world *w, uint64_t id,
                                          const strata_result *r, const strata_palette *pal,
                                          strata_tile_record *rec)
{
    return strata__world_dir_write_tile(ctx, d, w, id, r, pal, NULL, NULL, rec);
}

strata_status strata__world_dir_write_tile(strata_ctx *ctx, strata_world_dir *d,
                                           const strata_world *w, uint64_t id,
                                           const strata_result *r, const strata_palette *pal,
                                           const strata_props *props, const strata_loops *loops,
                                           strata_tile_record *rec)
{
    if (!ctx || !d || !w || !r || !rec || id >= d->nchunks || w->fingerprint != d->fingerprint)
        return STRATA_ERR_INVALID_ARG;
    memset(rec, 0, sizeof *rec);
    rec->id = id;
    rec->triangles = r->nindices / 3;
    tile_box(w, id, r, rec->box);
    char rel[80], path[4096];
    strata_status st = strata_world_dir_tile_path(d, id, rel, sizeof rel);
    if (st != STRATA_OK || (st = join(d, rel, path, sizeof path)) != STRATA_OK)
        return st;
    /* tiles/K/ must exist */
    char *slash = strrchr(path, '/');
    *slash = '\0';
    char *mid = strrchr(path, '/');
    *mid = '\0';
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return STRATA_ERR_IO;
    *mid = '/';
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return STRATA_ERR_IO;
    *slash = '/';
    if (loops && (st = write_loops(ctx, d, w, id, loops)) != STRATA_OK)
        return st;
    strata_jtext j;
    strata__jtext_init(&j, &d->alloc);
    record_json(d, rec, &j);
    if (j.nomem) {
        strata__jtext_free(&j);
        return STRATA_ERR_NOMEM;
    }
    strata_write_options wo;
    strata_write_defaults(&wo);
    wo.format = d->format;
    wo.palette = pal;
    wo.compress = d->compress;
    wo.props = props;
    st = strata__write_tile(ctx, r, path, &wo, j.s);
    strata__jtext_free(&j);
    if (st != STRATA_OK)
        return st;
    struct stat sb;
    if (stat(path, &sb) != 0)
        return STRATA_ERR_IO;
    rec->bytes = (uint64_t)sb.st_size;
    return STRATA_OK;
}

static int read_at(int fd, void *buf, size_t n, off_t off)
{
    size_t done = 0;
    while (done < n) {
        const ssize_t got = pread(fd, (char *)buf + done, n - done, off + (off_t)done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        done += (size_t)got;
    }
    return 0;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The JSON text holding a tile's record: a glTF's whole JSON chunk (the
 * record is its extras.strata), or a PLY's "comment strata {...}" object.
 * *text is allocated and NUL-terminated; *at is its offset in the file. */
static strata_status tile_text(const strata_allocator *al, int fd, uint64_t size, int glb,
                               char **text, size_t *len, uint64_t *at)
{
    *text = NULL;
    if (glb) {
        unsigned char h[20];
        if (size < 20 || read_at(fd, h, 20, 0) != 0)
            return STRATA_ERR_FORMAT;
        const uint32_t jlen = le32(h + 12);
        if (le32(h) != 0x46546C67u || le32(h + 4) != 2 || le32(h + 8) != size ||
            le32(h + 16) != 0x4E4F534Au || jlen > size - 20 || jlen > TILE_JSON_MAX)
            return STRATA_ERR_FORMAT;
        char *t = strata__alloc(al, (size_t)jlen + 1);
        if (!t)
            return STRATA_ERR_NOMEM;
        if (read_at(fd, t, jlen, 20) != 0) {
            strata__free(al, t);
            return STRATA_ERR_FORMAT;
        }
        t[jlen] = '\0';
        *text = t;
        *len = jlen;
        *at = 20;
        return STRATA_OK;
    }
    const size_t want = size < PLY_HEADER_MAX ? (size_t)size : PLY_HEADER_MAX;
    char *t = strata__alloc(al, want + 1);
    if (!t)
        return STRATA_ERR_NOMEM;
    if (read_at(fd, t, want, 0) != 0) {
        strata__free(al, t);
        return STRATA_ERR_FORMAT;
    }
    t[want] = '\0';
    const char *end = strstr(t, "\nend_header\n");
    const char *c = strstr(t, "\ncomment strata {");
    if (!end || !c || c > end || strncmp(t, "ply\n", 4)) {
        strata__free(al, t);
        return STRATA_ERR_FORMAT;
    }
    c += strlen("\ncomment strata ");
    const char *eol = strchr(c, '\n');
    *at = (uint64_t)(c - t);
    memmove(t, c, (size_t)(eol - c));
    t[eol - c] = '\0';
    *text = t;
    *len = (size_t)(eol - c);
    return STRATA_OK;
}

/* The last occurrence of the NUL-terminated s in text[0..len). */
static const char *last_of(const char *text, size_t len, const char *s)
{
    const size_t n = strlen(s);
    for (size_t i = len >= n ? len - n + 1 : 0; i-- > 0;)
        if (!memcmp(text + i, s, n))
            return text + i;
    return NULL;
}

/* The CRC-32C of the file fd[0..size) with its 8 bytes at crc_at read as
 * '0' (see SEAL_PLACEHOLDER): 0, or an errno value. */
static int file_crc(const strata_ctx *ctx, int fd, uint64_t size, uint64_t crc_at,
                    uint32_t *crc)
{
    enum { BLOCK = 1 << 20 };
    const strata_crc32c_fn fn = strata__crc32c_for(ctx, NULL);
    unsigned char *buf = strata__alloc(&ctx->alloc, BLOCK);
    if (!buf)
        return ENOMEM;
    uint32_t c = 0;
    int err = 0;
    for (uint64_t off = 0; off < size && !err;) {
        const size_t n = size - off < BLOCK ? (size_t)(size - off) : BLOCK;
        if (read_at(fd, buf, n, (off_t)off) != 0) {
            err = errno ? errno : EIO;
            break;
        }
        for (uint64_t k = crc_at; k < crc_at + 8; k++)
            if (k >= off && k < off + n)
                buf[k - off] = '0';
        c = fn(c, buf, n);
        off += n;
    }
    strata__free(&ctx->alloc, buf);
    *crc = c;
    return err;
}

static int write_at(int fd, const void *buf, size_t n, uint64_t off)
{
    size_t done = 0;
    while (done < n) {
        const ssize_t k = pwrite(fd, (const char *)buf + done, n - done, (off_t)(off + done));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? errno : EIO;
        done += (size_t)k;
    }
    return 0;
}

int strata__tile_seal(strata_ctx *ctx, const char *path, int fd)
{
    const int rfd = open(path, O_RDONLY | O_CLOEXEC);
    if (rfd < 0)
        return errno;
    struct stat sb;
    unsigned char magic[4];
    int err = fstat(rfd, &sb) != 0 ? errno : 0;
    const uint64_t size = err ? 0 : (uint64_t)sb.st_size;
    char *text = NULL;
    size_t len = 0;
    uint64_t at = 0;
    if (!err) {
        const int glb = size >= 4 && read_at(rfd, magic, 4, 0) == 0 && le32(magic) == 0x46546C67u;
        const strata_status st = tile_text(&ctx->alloc, rfd, size, glb, &text, &len, &at);
        err = st == STRATA_OK ? 0 : st == STRATA_ERR_NOMEM ? ENOMEM : EINVAL;
    }
    const char *m = err ? NULL : last_of(text, len, SEAL_PLACEHOLDER);
    if (!err && !m)
        err = EINVAL; /* a writer bug: extras without the placeholder */
    uint64_t size_at = 0, crc_at = 0;
    if (!err) {
        size_at = at + (uint64_t)(m - text) + strlen(SEAL_SIZE_AT);
        crc_at = size_at + SEAL_COLUMNS + strlen(SEAL_CRC_AT);
        char digits[SEAL_COLUMNS + 1];
        snprintf(digits, sizeof digits, "%*llu", SEAL_COLUMNS, (unsigned long long)size);
        err = write_at(fd, digits, SEAL_COLUMNS, size_at);
    }
    uint32_t crc = 0;
    if (!err)
        err = file_crc(ctx, rfd, size, crc_at, &crc);
    if (!err) {
        char hex[9];
        snprintf(hex, sizeof hex, "%08" PRIx32, crc);
        err = write_at(fd, hex, 8, crc_at);
    }
    strata__free(&ctx->alloc, text);
    close(rfd);
    return err;
}

/* Read chunk id's record; with full, also the whole file's checksum. */
static strata_status read_tile(strata_ctx *ctx, strata_world_dir *d, uint64_t id,
                               strata_tile_record *rec, int full)
{
    if (!ctx || !d || !rec || id >= d->nchunks)
        return STRATA_ERR_INVALID_ARG;
    char rel[80], path[4096];
    strata_status st = strata_world_dir_tile_path(d, id, rel, sizeof rel);
    if (st != STRATA_OK || (st = join(d, rel, path, sizeof path)) != STRATA_OK)
        return st;
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return STRATA_ERR_IO;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        const int err = S_ISREG(sb.st_mode) ? errno : EINVAL;
        close(fd);
        errno = err;
        return STRATA_ERR_IO;
    }
    const uint64_t size = (uint64_t)sb.st_size;
    char *text;
    size_t len;
    uint64_t at;
    st = tile_text(&d->alloc, fd, size, d->format == STRATA_FORMAT_GLB, &text, &len, &at);
    if (st != STRATA_OK) {
        close(fd);
        return st;
    }
    strata_json_doc *doc;
    st = strata__json_parse(&d->alloc, text, len, &doc);
    if (st != STRATA_OK) {
        strata__free(&d->alloc, text);
        close(fd);
        return st == STRATA_ERR_NOMEM ? st : STRATA_ERR_FORMAT;
    }
    strata_json_ref r = strata__json_root(doc);
    if (d->format == STRATA_FORMAT_GLB)
        r = strata__json_get(doc, strata__json_get(doc, r, "extras"), "strata");
    const strata_json_ref box = strata__json_get(doc, r, "box");
    const char *fp, *hex;
    size_t fplen, hexlen;
    uint64_t chunk, tris, bytes, fpv = 0;
    uint32_t crc = 0;
    char crc_digits[9];
    st = STRATA_ERR_FORMAT;
    if (strata__json_string(doc, strata__json_get(doc, r, "world"), &fp, &fplen) &&
        fplen == 16 && sscanf(fp, "%16" SCNx64, &fpv) == 1 &&
        strata__json_u64(doc, strata__json_get(doc, r, "chunk"), &chunk) &&
        strata__json_u64(doc, strata__json_get(doc, r, "triangles"), &tris) &&
        strata__json_count(doc, box) == 12 &&
        strata__json_u64(doc, strata__json_get(doc, r, "bytes"), &bytes) &&
        strata__json_string(doc, strata__json_get(doc, r, "crc32c"), &hex, &hexlen) &&
        hexlen == 8 && strspn(hex, "0123456789abcdef") == 8) {
        memcpy(crc_digits, hex, 9);
        crc = (uint32_t)strtoul(crc_digits, NULL, 16);
        st = STRATA_OK;
        for (uint32_t i = 0; i < 12 && st == STRATA_OK; i++)
            if (!strata__json_number(doc, strata__json_at(doc, box, i), &rec->box[i]) ||
                !isfinite(rec->box[i]))
                st = STRATA_ERR_FORMAT;
        if (st == STRATA_OK && (fpv != d->fingerprint || chunk != id))
            st = STRATA_ERR_CONFLICT;
        else if (st == STRATA_OK && bytes != size)
            st = STRATA_ERR_FORMAT; /* cut short, or grown */
    }
    strata__json_free(doc);
    if (st == STRATA_OK && full) {
        /* the digits the record's crc32c was read from */
        const char *c = last_of(text, len, SEAL_CRC_AT);
        uint32_t got;
        int err = c ? file_crc(ctx, fd, size, at + (uint64_t)(c - text) + strlen(SEAL_CRC_AT),
                               &got)
                    : EINVAL;
        if (err == ENOMEM)
            st = STRATA_ERR_NOMEM;
        else if (err == EINVAL || (!err && got != crc))
            st = STRATA_ERR_FORMAT;
        else if (err) {
            st = STRATA_ERR_IO;
            errno = err;
        }
    }
    strata__free(&d->alloc, text);
    const int err = errno;
    close(fd);
    errno = err;
    if (st != STRATA_OK)
        return st;
    rec->id = id;
    rec->triangles = tris;
    rec->bytes = size;
    return STRATA_OK;
}

strata_status strata_world_dir_read_tile(strata_ctx *ctx, strata_world_dir *d, uint64_t id,
                                         strata_tile_record *rec)
{
    return read_tile(ctx, d, id, rec, 0);
}

strata_status strata_world_dir_check_tile(strata_ctx *ctx, strata_world_dir *d, uint64_t id,
                                          strata_tile_record *rec)
{
    const strata_status st = read_tile(ctx, d, id, rec, 1);
    if (st != STRATA_OK || !d->loops || id >= d->desc.nleaves)
        return st;
    char path[4096];
    struct stat sb;
    if (strata__world_dir_loops_path(d, id, path, sizeof path) != STRATA_OK || stat(path, &sb) != 0)
        return STRATA_ERR_IO; /* errno ENOENT: made again */
    return STRATA_OK;
}

strata_status strata_world_dir_lock(strata_world_dir *d, int exclusive, long *holder)
{
    if (holder)
        *holder = 0;
    if (!d)
        return STRATA_ERR_INVALID_ARG;
    char path[4096];
    strata_status st = join(d, LOCKFILE, path, sizeof path);
    if (st != STRATA_OK)
        return st;
    if (d->lock_fd < 0 && (d->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0)
        return STRATA_ERR_IO;
    /* a record lock, not flock: F_GETLK names its holder, and it works
     * over NFS, where MPI ranks on several hosts share a directory */
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = exclusive ? F_WRLCK : F_RDLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(d->lock_fd, F_SETLK, &fl) == 0)
        return STRATA_OK;
    if (errno != EACCES && errno != EAGAIN)
        return STRATA_ERR_IO;
    struct flock q = fl;
    if (holder && fcntl(d->lock_fd, F_GETLK, &q) == 0 && q.l_type != F_UNLCK)
        *holder = (long)q.l_pid;
    return STRATA_ERR_CONFLICT;
}

strata_status strata_world_dir_write_tileset(strata_ctx *ctx, strata_world_dir *d,
                                             const strata_tile_record *recs, uint64_t n)
{
    if (!ctx || !d || (n && !recs))
        return STRATA_ERR_INVALID_ARG;
    for (uint64_t i = 0; i < n; i++)
        if (recs[i].id >= d->nchunks || (i && recs[i].id <= recs[i - 1].id))
            return STRATA_ERR_INVALID_ARG;
    if (d->format != STRATA_FORMAT_GLB)
        return STRATA_ERR_UNSUPPORTED;
    strata_tileset_desc desc = d->desc;
    desc.world_classes = d->classes;
    desc.world_properties = d->properties;
    return strata__tileset_write(ctx, d->path, &desc, recs, n);
}

/* A writer's temporary name: "NAME.tmpXXXXXX" (see core/base/output.c). */
static int is_temporary(const char *name, const void *arg)
{
    (void)arg;
    const size_t n = strlen(name);
    return n > 10 && !memcmp(name + n - 10, ".tmp", 4);
}

strata_status strata_world_dir_clean(strata_ctx *ctx, strata_world_dir *d, uint64_t *removed)
{
    if (!ctx || !d)
        return STRATA_ERR_INVALID_ARG;
    uint64_t count = 0;
    char tiles[4096];
    strata_status st = join(d, "tiles", tiles, sizeof tiles);
    DIR *top = st == STRATA_OK ? opendir(tiles) : NULL;
    if (!top) {
        if (st == STRATA_OK && errno != ENOENT)
            st = STRATA_ERR_IO;
        goto done;
    }
    /* tiles/K/ for each depth K */
    for (struct dirent *e; st == STRATA_OK && (e = readdir(top));) {
        if (e->d_name[0] == '.')
            continue;
        char sub[4400];
        snprintf(sub, sizeof sub, "%s/%s", tiles, e->d_name);
        /* a writer still running (a shard, a rank) keeps its own */
        if (strata__remove_stale_in(sub, is_temporary, NULL, &count) != 0 && errno != ENOTDIR)
            st = STRATA_ERR_IO;
    }
    closedir(top);
done:
    if (removed)
        *removed = count;
    return st;
}
