/* Binary glTF 2.0 (.glb) writer.
 *
 * File layout (all little-endian, every piece 4-byte aligned):
 *
 *   12-byte header     magic "glTF", version 2, total length
 *   JSON chunk         length, "JSON", the document padded with spaces
 *   BIN chunk          length, "BIN\0", then
 *                        positions  nverts * float[3]        (view 0)
 *                        normals    nverts * float[3]        (view 1, optional)
 *                        indices    per primitive, u16 or u32, each run
 *                                   zero-padded to 4 bytes   (then view)
 *                      with props (EXT_mesh_gpu_instancing), then
 *                        the built-in meshes' positions and u16 indices,
 *                        per kind the instances' translations,
 *                        rotations and scales (one view each kind)
 *                      then a shoreline's texture coordinates, and with
 *                      ambient occlusion (strata_result_bake_ao) last
 *                        COLOR_0    nverts * u8[4], (ao, ao, ao, 255)
 *
 * Everything is planned first (primitives, index widths, offsets, the JSON
 * text), so the exact file size is known and a file over the format's
 * 4 GiB limit is refused before anything is created.
 *
 * A world's tile stores its positions relative to an origin of its own,
 * the terrain node's translation (plan_origin): clients compose the
 * translation with the rest of their transforms in double precision, so
 * a tile far from the world's origin (a planet of Earth's radius, a
 * terrain placed in projected metres) is drawn without the jitter of
 * float32 positions of that size, and the composed positions are the
 * result's floats bit for bit.
 *
 * Compressed (EXT_meshopt_compression, core/io/meshopt.c), the BIN chunk
 * holds the encoded streams instead, each zero-padded to 4 bytes:
 * positions, normals, one stream per primitive's indices (the
 * shoreline's from its first vertex, as stored), then the props' vertices,
 * their parts' indices, per kind the translations, rotations and scales
 * apart, and the shoreline's texture coordinates.  The buffer views keep
 * the uncompressed layout above, in buffer 1, a fallback buffer without
 * data (so the extension is required), except that a stream decodes into
 * one whole view: each primitive's indices, each prop part's and each
 * instance attribute are a view of their own. */
#define _POSIX_C_SOURCE 200809L

#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/result.h"
#include "base/output.h"
#include "base/json.h"
#include "io/meshopt.h"
#include "edit/props.h"
#include "io/write.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define GLB_JSON 0x4E4F534Au  /* "JSON" */
#define GLB_BIN 0x004E4942u   /* "BIN\0" */
#define GLB_MAX 0xFFFFFFFFu   /* the header's uint32 length */

#define GL_UNSIGNED_BYTE 5121
#define GL_UNSIGNED_SHORT 5123
#define GL_UNSIGNED_INT 5125
#define GL_FLOAT 5126
#define GL_ARRAY_BUFFER 34962
#define GL_ELEMENT_ARRAY_BUFFER 34963

/* An index-buffer value of all ones is the primitive-restart value, which
 * glTF forbids: 0xFFFF cannot appear in a u16 accessor. */
#define U16_LIMIT 65535u

static inline uint64_t pad4(uint64_t n) { return (n + 3) & ~(uint64_t)3; }

/* The sRGB bytes in linear light, 0 to 1 (lin[256]). */
static void srgb_to_linear(double *lin)
{
    for (int c = 0; c < 256; c++) {
        const double v = c / 255.0;
        lin[c] = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
    }
}

/* COLOR_0 a vertex: src[0] the occlusion bytes (NULL: none), src[1] the
 * colours (3 sRGB bytes a vertex, NULL: none), src[2] srgb_to_linear's
 * table; (ao, ao, ao, 255) without colours, else the colour in linear
 * light times ao / 255, rounded (rec 4).
 * Without colours the terraces' materials keep theirs; with them the
 * materials are white.  glTF multiplies baseColorFactor by COLOR_0, so
 * every viewer shades with it unasked. */
static void enc_color(const strata_span *s, uint64_t i, uint64_t n, unsigned char *p)
{
    const uint8_t *ao = s->src[0], *rgb = s->src[1];
    const double *lin = s->src[2];
    for (const uint64_t end = i + n; i < end; i++, p += 4) {
        const unsigned a = ao ? ao[i] : 255;
        for (int c = 0; c < 3; c++)
            p[c] = rgb ? (unsigned char)floor(lin[rgb[3 * i + c]] * (double)a + 0.5)
                       : (unsigned char)a;
        p[3] = 255;
    }
}

/* ------------------------------------------------------------ JSON text */

/* A colour component in [0,1], six decimals, no locale involved. */
/* An accessor's bounds after its "min":[ : the three minima, the
 * maxima, and the accessor's closing brace. */
static void json_bounds(strata_jtext *j, const float lo[3], const float hi[3])
{
    for (int c = 0; c < 3; c++) {
        strata__jtext_float(j, lo[c]);
        strata__jtext_printf(j, c < 2 ? "," : "],\"max\":[");
    }
    for (int c = 0; c < 3; c++) {
        strata__jtext_float(j, hi[c]);
        strata__jtext_printf(j, c < 2 ? "," : "]}");
    }
}

static void json_unit(strata_jtext *j, float v)
{
    long q = (long)((double)v * 1e6 + 0.5);
    q = q < 0 ? 0 : q > 1000000 ? 1000000 : q;
    strata__jtext_printf(j, "%ld.%06ld", q / 1000000, q % 1000000);
}

/* ------------------------------------------------------------ the plan */

/* One primitive: up to two index ranges (a terrace's roofs and walls, not
 * assumed adjacent), its material, and its place in the BIN chunk. */
typedef struct prim {
    uint64_t first[2], count[2];
    uint64_t nindices;
    uint32_t terrace;
    unsigned char wall; /* a separate wall primitive: material wall_K */
    unsigned char skirt; /* a world tile's skirt hanging from terrace
                            `terrace`: material skirt_K, its roof's colour */
    unsigned char water; /* strata_result_add_water: material water */
    unsigned char shore; /* strata_result_add_shoreline: material shoreline,
                            accessors of its own, indices from uv_first */
    unsigned char u16;  /* indices stored as unsigned short */
    uint64_t offset;    /* byte offset in the index buffer view */
    unsigned char *enc; /* compressed: the encoded indices */
    uint64_t enc_bytes, enc_offset; /* their length and offset in BIN */
} prim;

/* The props of one kind: one node drawing its mesh at every instance. */
typedef struct prop_kind {
    uint64_t n;      /* instances */
    float *trs;      /* 10 n floats: translations, rotations, scales */
    uint64_t offset; /* of trs in the BIN chunk */
} prop_kind;

/* Compressed: a view after the primitives' indices (see the top), a
 * stream of its own. */
typedef struct xview {
    const float *f;       /* mode ATTRIBUTES: count elements of stride bytes */
    const uint8_t *ao;    /* or COLOR_0 (color set): count occlusion bytes and */
    const uint8_t *rgb;   /* colours (either NULL: none; stride 4), */
    const double *lin;    /* in linear light by this table */
    int color;
    const uint16_t *ix;   /* or mode INDICES: count u16 indices (stride 2) */
    uint64_t count;
    uint32_t stride, nverts; /* nverts: above every index */
    int target;           /* its GL target, 0: none (instance attributes) */
    uint64_t offset;      /* in the uncompressed layout, the fallback buffer */
    unsigned char *enc;   /* the encoded stream */
    uint64_t enc_bytes, enc_offset;
} xview;

/* The props' vertices, 8 parts' indices at most, 3 views a kind, the
 * shoreline's texture coordinates, the occlusion. */
#define MAX_XVIEWS (1 + 8 + 3 * STRATA_PROP_KINDS + 1 + 1)

typedef struct plan {
    prim *prims;
    size_t nprims;
    const strata_props *props; /* NULL: none */
    prop_kind kinds[STRATA_PROP_KINDS];
    uint64_t prop_vtx_offset, prop_idx_offset, prop_bytes; /* built-in meshes + instances */
    int normals;
    int relative;                  /* a tile: positions relative to origin */
    float origin[3];               /* the terrain node's translation */
    float min[3], max[3];
    int shore;                     /* a shoreline prim: its own accessors */
    uint32_t nuv;                  /* its vertices */
    float shore_min[3], shore_max[3];
    int mesh_uv;                   /* every vertex has TEXCOORD_0 (strata_result_add_uv):
                                      the terrace primitives' */
    uint64_t uv_offset;            /* TEXCOORD_0 in BIN (the shoreline's or the
                                      whole mesh's), 8 bytes a vertex */
    const uint8_t *ao;             /* the occlusion (NULL: none): COLOR_0 */
    const uint8_t *rgb;            /* the colours (NULL: none): COLOR_0 */
    double lin[256];               /* with colours: srgb_to_linear */
    uint64_t ao_offset;            /* in BIN, 4 bytes a vertex, after the rest */
    uint64_t pos_bytes, nrm_bytes, idx_bytes; /* uncompressed bin = their sum */
    uint64_t bin_bytes;
    int compress;
    unsigned char *pos_enc, *nrm_enc; /* compressed: the encoded vertices, */
    uint64_t pos_enc_bytes, nrm_enc_bytes; /* at BIN offsets 0 and pad4(pos) */
    xview xv[MAX_XVIEWS];             /* and the views after the indices */
    size_t nxv;
    uint64_t raw_bytes;               /* the uncompressed BIN: the fallback's */
    strata_jtext json;
    uint64_t total; /* the file's size */
} plan;

/* The terrain's primitives get COLOR_0: occlusion, colours or both. */
static inline int has_color(const plan *p) { return p->ao || p->rgb; }

static void plan_free(const strata_allocator *al, plan *p)
{
    for (size_t i = 0; p->prims && i < p->nprims; i++)
        strata__free(al, p->prims[i].enc);
    strata__free(al, p->pos_enc);
    strata__free(al, p->nrm_enc);
    p->pos_enc = p->nrm_enc = NULL;
    for (size_t i = 0; i < p->nxv; i++) {
        strata__free(al, p->xv[i].enc);
        p->xv[i].enc = NULL;
    }
    for (int k = 0; k < STRATA_PROP_KINDS; k++) {
        strata__free(al, p->kinds[k].trs);
        p->kinds[k].trs = NULL;
    }
    strata__free(al, p->prims);
    strata__free(al, p->json.s);
    p->prims = NULL;
    p->json.s = NULL;
}

/* Primitives in the order of the index layout: per terrace, or with
 * separate walls all roofs then all walls. */
static strata_status plan_prims(const strata_result *r, const strata_allocator *al, plan *p)
{
    p->prims = strata__alloc_array(al, 3 * (size_t)r->nterraces + 4, sizeof *p->prims);
    if (!p->prims)
        return STRATA_ERR_NOMEM;
    size_t n = 0;
    const int sep = r->walls == STRATA_WALLS_SEPARATE;
    for (int pass = 0; pass < (sep ? 2 : 1); pass++) {
        for (uint32_t k = 0; k < r->nterraces; k++) {
            const strata_terrace *t = &r->terraces[k];
            prim q;
            memset(&q, 0, sizeof q);
            q.terrace = k;
            q.wall = (unsigned char)(pass == 1);
            if (pass == 0) {
                q.first[0] = t->roof_first;
                q.count[0] = t->roof_count;
            }
            if (!sep || pass == 1) {
                q.first[1] = t->wall_first;
                q.count[1] = t->wall_count;
            }
            q.nindices = q.count[0] + q.count[1];
            if (q.nindices)
                p->prims[n++] = q;
        }
    }
    /* after every terrace's, in the index order: a skirt per terrace it
     * hangs from, in that terrace's roof colour, so that where a viewer
     * draws a sliver of it along a seam (the depth test cannot part it
     * from the neighbour's surface right in front) it looks like the
     * ground there */
    for (uint32_t k = 0; r->skirt_count && k < (r->nterraces ? r->nterraces : 1); k++) {
        const uint64_t from = k ? r->skirt_ends[k - 1] : 0, to = r->skirt_ends[k];
        if (to == from)
            continue;
        prim q;
        memset(&q, 0, sizeof q);
        q.first[0] = r->skirt_first + from;
        q.count[0] = to - from;
        q.nindices = q.count[0];
        q.terrace = k;
        q.skirt = 1;
        p->prims[n++] = q;
    }
    if (r->water_count) { /* then the water's */
        prim q;
        memset(&q, 0, sizeof q);
        q.first[0] = r->water_first;
        q.count[0] = r->water_count;
        q.nindices = q.count[0];
        q.water = 1;
        p->prims[n++] = q;
    }
    if (r->shore_count) { /* and the shoreline's */
        prim q;
        memset(&q, 0, sizeof q);
        q.first[0] = r->shore_first;
        q.count[0] = r->shore_count;
        q.nindices = q.count[0];
        q.shore = 1;
        p->prims[n++] = q;
    }
    p->nprims = n;
    return STRATA_OK;
}

/* Header, two chunk headers and the JSON padding at most. */
#define GLB_FIXED (12u + 8u + 8u)

/* Whether any of the n indices is U16_LIMIT or more.  Blocks without a
 * branch inside (the compiler vectorises them), stopping at the first
 * block that has one: a u32 primitive is usually known after a few. */
static int needs_u32(const uint32_t *ix, uint64_t n)
{
    enum { BLOCK = 4096 };
    for (uint64_t i = 0; i < n; i += BLOCK) {
        const uint64_t m = n - i < BLOCK ? n - i : BLOCK;
        unsigned big = 0;
        for (uint64_t k = 0; k < m; k++)
            big |= ix[i + k] >= U16_LIMIT;
        if (big)
            return 1;
    }
    return 0;
}

/* Lowest and highest of v[0..n), n > 0, exactly as one scan from v[0]
 * with < and > finds them (the first of equal values such as -0 and +0;
 * NaN only when v[0] is NaN, other NaNs skipped), in chunks over the
 * threads: each chunk starts from its first non-NaN value and the chunks
 * are combined in order with the same comparisons. */
enum { EXTREME_CHUNKS = 64 };
static void extremes(const float *v, uint64_t n, int threads, float *lo_out, float *hi_out)
{
    float lo[EXTREME_CHUNKS], hi[EXTREME_CHUNKS];
    unsigned char has[EXTREME_CHUNKS];
    const int64_t nc = n < EXTREME_CHUNKS ? (int64_t)n : EXTREME_CHUNKS;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1 && n > (1u << 16))
    for (int64_t c = 0; c < nc; c++) {
        uint64_t i = n * (uint64_t)c / (uint64_t)nc;
        const uint64_t end = n * (uint64_t)(c + 1) / (uint64_t)nc;
        while (i < end && isnan(v[i]))
            i++;
        has[c] = i < end;
        if (!has[c])
            continue;
        float l = v[i], h = v[i];
        for (i++; i < end; i++) {
            l = v[i] < l ? v[i] : l;
            h = v[i] > h ? v[i] : h;
        }
        lo[c] = l;
        hi[c] = h;
    }
    float l = v[0], h = v[0];
    if (!isnan(v[0]))
        for (int64_t c = 0; c < nc; c++)
            if (has[c]) {
                l = lo[c] < l ? lo[c] : l;
                h = hi[c] > h ? hi[c] : h;
            }
    *lo_out = l;
    *hi_out = h;
}

/* A tile's origin, per axis from the vertices' range [lo, hi]: the
 * float nearest its middle c when every coordinate v there has
 * c / 2 <= v <= 2 c (same sign, hi at most twice lo in size), so that
 * v - c is exact in float (Sterbenz's lemma) and translation + stored
 * position gives v back bit for bit in any precision; else 0 (the
 * range holds 0, or spans a factor over 2: its coordinates are then at
 * most twice its width already).  Either way a stored coordinate is at
 * most twice the tile's width in size, its float32 steps those of the
 * tile's size instead of the world's.  The bounds move with it (exact
 * too). */
static void plan_origin(plan *p)
{
    for (int k = 0; k < 3; k++) {
        const double lo = p->min[k], hi = p->max[k];
        const int same = (lo > 0 && hi <= 2 * lo) || (hi < 0 && lo >= 2 * hi);
        const float c = same ? (float)(0.5 * (lo + hi)) : 0.0f;
        p->origin[k] = c;
        p->min[k] -= c;
        p->max[k] -= c;
        p->shore_min[k] -= c;
        p->shore_max[k] -= c;
    }
}

/* Index widths, byte layout and vertex extremes: everything but the JSON.
 * Refuses results that cannot fit 4 GiB before reading any array, using
 * u16 indices as the lower bound; the final check is in plan_json. */
static strata_status plan_layout(const strata_result *r, plan *p, int threads)
{
    for (size_t i = 0; i < p->nprims; i++)
        for (int s = 0; s < 2; s++)
            if (p->prims[i].count[s] % 3 || p->prims[i].first[s] > r->nindices ||
                p->prims[i].count[s] > r->nindices - p->prims[i].first[s])
                return STRATA_ERR_INVALID_ARG;

    const uint64_t nv = p->nprims ? r->nverts : 0; /* no triangles: no buffers */
    p->pos_bytes = 12 * nv;
    p->nrm_bytes = p->normals ? 12 * nv : 0;
    uint64_t lower = GLB_FIXED + p->pos_bytes + p->nrm_bytes;
    for (size_t i = 0; i < p->nprims; i++)
        lower += 2 * p->prims[i].nindices;
    if (lower > GLB_MAX) {
        p->total = lower;
        return STRATA_ERR_TOO_LARGE;
    }

    /* u16 when every index of the primitive is below 65535; with fewer
     * vertices than that, no scan is needed */
    const int64_t np = (int64_t)p->nprims;
    const int scan = r->nverts > U16_LIMIT;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1 && scan)
    for (int64_t i = 0; i < np; i++) {
        prim *q = &p->prims[i];
        q->u16 = !scan || !(needs_u32(r->indices + q->first[0], q->count[0]) ||
                            needs_u32(r->indices + q->first[1], q->count[1]));
    }
    for (size_t i = 0; i < p->nprims; i++)
        if (p->prims[i].shore) /* indices from uv_first */
            p->prims[i].u16 = r->nuv <= U16_LIMIT;
    uint64_t off = 0;
    for (size_t i = 0; i < p->nprims; i++) {
        prim *q = &p->prims[i];
        q->offset = off;
        off += pad4(q->nindices * (q->u16 ? 2 : 4));
    }
    p->idx_bytes = off;
    p->bin_bytes = p->pos_bytes + p->nrm_bytes + p->idx_bytes;
    if (p->props && p->nprims) {
        uint32_t npv, nparts;
        strata__prop_vertices(&npv);
        const strata_prop_part *parts = strata__prop_parts(&nparts);
        uint64_t at = p->bin_bytes;
        p->prop_vtx_offset = at;
        at += 12 * (uint64_t)npv;
        p->prop_idx_offset = at;
        for (uint32_t i = 0; i < nparts; i++)
            at += pad4(2 * (uint64_t)parts[i].nindices);
        for (int k = 0; k < STRATA_PROP_KINDS; k++) {
            p->kinds[k].offset = at;
            at += 40 * p->kinds[k].n;
        }
        p->prop_bytes = at - p->bin_bytes;
        p->bin_bytes = at;
        if (GLB_FIXED + p->bin_bytes > GLB_MAX) {
            p->total = GLB_FIXED + p->bin_bytes;
            return STRATA_ERR_TOO_LARGE;
        }
    }

    if (p->shore || p->mesh_uv) {
        p->uv_offset = p->bin_bytes;
        p->bin_bytes += 8 * (uint64_t)r->nuv;
        if (GLB_FIXED + p->bin_bytes > GLB_MAX) {
            p->total = GLB_FIXED + p->bin_bytes;
            return STRATA_ERR_TOO_LARGE;
        }
    }
    if (p->shore) {
        const float *c[3] = {r->x, r->y, r->z};
        for (int k = 0; k < 3; k++)
            extremes(c[k] + r->uv_first, r->nuv, threads, &p->shore_min[k], &p->shore_max[k]);
    }
    if (has_color(p) && nv) {
        p->ao_offset = p->bin_bytes;
        p->bin_bytes += 4 * nv;
        if (GLB_FIXED + p->bin_bytes > GLB_MAX) {
            p->total = GLB_FIXED + p->bin_bytes;
            return STRATA_ERR_TOO_LARGE;
        }
    }
    if (nv) {
        extremes(r->x, nv, threads, &p->min[0], &p->max[0]);
        extremes(r->y, nv, threads, &p->min[1], &p->max[1]);
        extremes(r->z, nv, threads, &p->min[2], &p->max[2]);
        if (p->relative)
            plan_origin(p);
    }
    return STRATA_OK;
}

/* Three floats per vertex less origin (NULL: none) as the file stores
 * them: src[0..2] the arrays, src[3] the origin. */
static void enc_vec3_rel(const strata_span *s, uint64_t i, uint64_t n, unsigned char *p)
{
    const float *x = s->src[0], *y = s->src[1], *z = s->src[2], *o = s->src[3];
    for (const uint64_t end = i + n; i < end; i++) {
        p = put_f32(p, x[i] - o[0]);
        p = put_f32(p, y[i] - o[1]);
        p = put_f32(p, z[i] - o[2]);
    }
}

static strata_span vec3_span(const float *x, const float *y, const float *z, uint32_t n,
                             const float *origin)
{
    if (origin)
        return (strata_span){.encode = enc_vec3_rel, .n = n, .rec = 12,
                             .src = {x, y, z, origin}};
    return (strata_span){.encode = strata__enc_vec3, .n = n, .rec = 12, .src = {x, y, z}};
}

/* Three floats per vertex as the file stores them, then encoded. */
static strata_status encode_vec3(const strata_allocator *al, const float *x, const float *y,
                                 const float *z, uint32_t n, const float *origin,
                                 unsigned char **out, uint64_t *size)
{
    unsigned char *raw = strata__alloc_array(al, n ? n : 1, 12);
    if (!raw)
        return STRATA_ERR_NOMEM;
    const strata_span s = vec3_span(x, y, z, n, origin);
    s.encode(&s, 0, n, raw);
    const strata_status st = strata__meshopt_attributes(al, raw, n, 12, out, size);
    strata__free(al, raw);
    return st;
}

/* Compressed: the views after the primitives' indices (see the top), in
 * the order of the uncompressed layout. */
static strata_status plan_xviews(const strata_result *r, plan *p)
{
    p->nxv = 0;
    if (p->prop_bytes) {
        uint32_t npv, nparts;
        const float *pv = strata__prop_vertices(&npv);
        const strata_prop_part *parts = strata__prop_parts(&nparts);
        if (nparts > 8)
            return STRATA_ERR_INVALID_ARG; /* more than MAX_XVIEWS holds */
        p->xv[p->nxv++] = (xview){.f = pv, .count = npv, .stride = 12,
                                  .target = GL_ARRAY_BUFFER, .offset = p->prop_vtx_offset};
        uint64_t off = p->prop_idx_offset;
        for (uint32_t i = 0; i < nparts; i++) {
            if (p->kinds[parts[i].kind].n)
                p->xv[p->nxv++] = (xview){.ix = parts[i].indices, .count = parts[i].nindices,
                                          .stride = 2, .nverts = npv,
                                          .target = GL_ELEMENT_ARRAY_BUFFER, .offset = off};
            off += pad4(2 * (uint64_t)parts[i].nindices);
        }
        for (int k = 0; k < STRATA_PROP_KINDS; k++) {
            const uint64_t n = p->kinds[k].n, at[3] = {0, 3 * n, 7 * n}; /* floats */
            static const uint32_t strides[3] = {12, 16, 12};
            for (int a = 0; n && a < 3; a++)
                p->xv[p->nxv++] = (xview){.f = p->kinds[k].trs + at[a], .count = n,
                                          .stride = strides[a],
                                          .offset = p->kinds[k].offset + 4 * at[a]};
        }
    }
    if (p->shore || p->mesh_uv)
        p->xv[p->nxv++] = (xview){.f = r->uv, .count = r->nuv, .stride = 8,
                                  .target = GL_ARRAY_BUFFER, .offset = p->uv_offset};
    if (has_color(p))
        p->xv[p->nxv++] = (xview){.ao = p->ao, .rgb = p->rgb, .lin = p->lin, .color = 1, .count = r->nverts,
                                  .stride = 4,
                                  .target = GL_ARRAY_BUFFER, .offset = p->ao_offset};
    return STRATA_OK;
}

/* An xview's stream: floats as the file stores them, or u16 indices
 * widened, then encoded. */
static strata_status encode_xview(const strata_allocator *al, xview *x)
{
    const uint64_t n = x->ix ? x->count : x->count * x->stride / 4;
    void *raw = strata__alloc_array(al, n ? (size_t)n : 1, 4);
    if (!raw)
        return STRATA_ERR_NOMEM;
    strata_status st;
    if (x->ix) {
        uint32_t *ix = raw;
        for (uint64_t i = 0; i < n; i++)
            ix[i] = x->ix[i];
        st = strata__meshopt_indices(al, ix, n, NULL, 0, x->nverts, &x->enc, &x->enc_bytes);
    } else if (x->color) {
        enc_color(&(strata_span){.src = {x->ao, x->rgb, x->lin}}, 0, x->count, raw);
        st = strata__meshopt_attributes(al, raw, x->count, 4, &x->enc, &x->enc_bytes);
    } else {
        unsigned char *b = raw;
        for (uint64_t i = 0; i < n; i++)
            b = put_f32(b, x->f[i]);
        st = strata__meshopt_attributes(al, raw, x->count, x->stride, &x->enc, &x->enc_bytes);
    }
    strata__free(al, raw);
    return st;
}

/* A primitive's indices: the shoreline's from its first vertex, as the
 * uncompressed file stores them. */
static strata_status encode_prim(const strata_result *r, const strata_allocator *al, prim *q)
{
    if (!q->shore)
        return strata__meshopt_indices(al, r->indices + q->first[0], q->count[0],
                                       r->indices + q->first[1], q->count[1], r->nverts, &q->enc,
                                       &q->enc_bytes);
    uint32_t *ix = strata__alloc_array(al, q->nindices ? (size_t)q->nindices : 1, 4);
    if (!ix)
        return STRATA_ERR_NOMEM;
    for (uint64_t i = 0; i < q->nindices; i++)
        ix[i] = r->indices[q->first[0] + i] - r->uv_first;
    const strata_status st =
        strata__meshopt_indices(al, ix, q->nindices, NULL, 0, r->nuv, &q->enc, &q->enc_bytes);
    strata__free(al, ix);
    return st;
}

/* Compressed: the streams (positions, normals, each primitive's indices,
 * the views after them), encoded as independent items over the threads,
 * and their places in the BIN chunk.  A failure reports the status of the
 * first item that failed, whatever the threads. */
static strata_status plan_compress(const strata_result *r, const strata_allocator *al, plan *p,
                                   int threads)
{
    if (!p->nprims)
        return STRATA_OK;
    strata_status st = plan_xviews(r, p);
    if (st != STRATA_OK)
        return st;
    const int64_t nitems = 2 + (int64_t)p->nprims + (int64_t)p->nxv;
    int64_t failed = nitems;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1)
    for (int64_t i = 0; i < nitems; i++) {
        strata_status s = STRATA_OK;
        if (i == 0)
            s = encode_vec3(al, r->x, r->y, r->z, r->nverts, p->relative ? p->origin : NULL,
                            &p->pos_enc, &p->pos_enc_bytes);
        else if (i == 1 && p->normals)
            s = encode_vec3(al, r->nx, r->ny, r->nz, r->nverts, NULL, &p->nrm_enc,
                            &p->nrm_enc_bytes);
        else if (i >= 2 && i < 2 + (int64_t)p->nprims)
            s = encode_prim(r, al, &p->prims[i - 2]);
        else if (i >= 2)
            s = encode_xview(al, &p->xv[i - 2 - (int64_t)p->nprims]);
        if (s != STRATA_OK) {
#pragma omp critical
            if (i < failed) {
                failed = i;
                st = s;
            }
        }
    }
    if (st != STRATA_OK)
        return st;
    uint64_t off = pad4(p->pos_enc_bytes) + pad4(p->nrm_enc_bytes);
    for (size_t i = 0; i < p->nprims; i++) {
        p->prims[i].enc_offset = off;
        off += pad4(p->prims[i].enc_bytes);
    }
    for (size_t i = 0; i < p->nxv; i++) {
        p->xv[i].enc_offset = off;
        off += pad4(p->xv[i].enc_bytes);
    }
    p->raw_bytes = p->bin_bytes;
    p->bin_bytes = off;
    return STRATA_OK;
}

/* A buffer view's EXT_meshopt_compression object: the stream at `offset`
 * in BIN (buffer 0), `count` elements of `stride` bytes. */
static void json_meshopt(strata_jtext *j, uint64_t offset, uint64_t bytes, unsigned stride,
                         uint64_t count, const char *mode)
{
    strata__jtext_printf(j, ",\"extensions\":{\"EXT_meshopt_compression\":{\"buffer\":0,"
                            "\"byteOffset\":%llu,\"byteLength\":%llu,\"byteStride\":%u,"
                            "\"mode\":\"%s\",\"count\":%llu}}",
                         (unsigned long long)offset, (unsigned long long)bytes, stride, mode,
                         (unsigned long long)count);
}

/* The buffer views and buffers of a compressed file (see the top). */
static void json_compressed_views(strata_jtext *j, const strata_result *r, const plan *p)
{
    const uint64_t nv = r->nverts;
    strata__jtext_printf(j, "\"bufferViews\":[{\"buffer\":1,\"byteOffset\":0,\"byteLength\":%llu,"
                            "\"byteStride\":12,\"target\":%d",
                         (unsigned long long)p->pos_bytes, GL_ARRAY_BUFFER);
    json_meshopt(j, 0, p->pos_enc_bytes, 12, nv, "ATTRIBUTES");
    strata__jtext_raw(j, "}");
    if (p->normals) {
        strata__jtext_printf(j, ",{\"buffer\":1,\"byteOffset\":%llu,\"byteLength\":%llu,"
                                "\"byteStride\":12,\"target\":%d",
                             (unsigned long long)p->pos_bytes, (unsigned long long)p->nrm_bytes,
                             GL_ARRAY_BUFFER);
        json_meshopt(j, pad4(p->pos_enc_bytes), p->nrm_enc_bytes, 12, nv, "ATTRIBUTES");
        strata__jtext_raw(j, "}");
    }
    for (size_t i = 0; i < p->nprims && !j->nomem; i++) {
        const prim *q = &p->prims[i];
        const unsigned size = q->u16 ? 2 : 4;
        strata__jtext_printf(j, ",{\"buffer\":1,\"byteOffset\":%llu,\"byteLength\":%llu,"
                                "\"target\":%d",
                             (unsigned long long)(p->pos_bytes + p->nrm_bytes + q->offset),
                             (unsigned long long)(q->nindices * size), GL_ELEMENT_ARRAY_BUFFER);
        json_meshopt(j, q->enc_offset, q->enc_bytes, size, q->nindices, "INDICES");
        strata__jtext_raw(j, "}");
    }
    for (size_t i = 0; i < p->nxv && !j->nomem; i++) {
        const xview *x = &p->xv[i];
        strata__jtext_printf(j, ",{\"buffer\":1,\"byteOffset\":%llu,\"byteLength\":%llu",
                             (unsigned long long)x->offset,
                             (unsigned long long)(x->count * x->stride));
        if (x->target == GL_ARRAY_BUFFER) /* vertex attributes: strided */
            strata__jtext_printf(j, ",\"byteStride\":%u", x->stride);
        if (x->target)
            strata__jtext_printf(j, ",\"target\":%d", x->target);
        json_meshopt(j, x->enc_offset, x->enc_bytes, x->stride, x->count,
                     x->ix ? "INDICES" : "ATTRIBUTES");
        strata__jtext_raw(j, "}");
    }
    strata__jtext_printf(j, "],\"buffers\":[{\"byteLength\":%llu},{\"byteLength\":%llu,"
                            "\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}}]",
                         (unsigned long long)p->bin_bytes, (unsigned long long)p->raw_bytes);
}

/* The buffer views and buffers of an uncompressed file. */
static void json_views(strata_jtext *j, const plan *p, const int *used, int nused)
{
    strata__jtext_printf(j, "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%llu,"
                 "\"byteStride\":12,\"target\":%d}",
              (unsigned long long)p->pos_bytes, GL_ARRAY_BUFFER);
    if (p->normals)
        strata__jtext_printf(j, ",{\"buffer\":0,\"byteOffset\":%llu,\"byteLength\":%llu,"
                     "\"byteStride\":12,\"target\":%d}",
                  (unsigned long long)p->pos_bytes, (unsigned long long)p->nrm_bytes,
                  GL_ARRAY_BUFFER);
    strata__jtext_printf(j, ",{\"buffer\":0,\"byteOffset\":%llu,\"byteLength\":%llu,\"target\":%d}",
              (unsigned long long)(p->pos_bytes + p->nrm_bytes),
              (unsigned long long)p->idx_bytes, GL_ELEMENT_ARRAY_BUFFER);
    if (nused) { /* the props' vertices, their indices, per kind its instances */
        uint32_t npv;
        strata__prop_vertices(&npv);
        strata__jtext_printf(j, ",{\"buffer\":0,\"byteOffset\":%llu,\"byteLength\":%llu,"
                                "\"byteStride\":12,\"target\":%d}",
                             (unsigned long long)p->prop_vtx_offset, 12ull * npv, GL_ARRAY_BUFFER);
        strata__jtext_printf(j, ",{\"buffer\":0,\"byteOffset\":%llu,\"byteLength\":%llu,"
                                "\"target\":%d}",
                             (unsigned long long)p->prop_idx_offset,
                             (unsigned long long)(p->kinds[0].offset - p->prop_idx_offset),
                             GL_ELEMENT_ARRAY_BUFFER);
        for (int u = 0; u < nused; u++)
            strata__jtext_printf(j, ",{\"buffer\":0,\"byteOffset\":%llu,\"byteLength\":%llu}",
                                 (unsigned long long)p->kinds[used[u]].offset,
                                 40ull * p->kinds[used[u]].n);
    }
    if (p->shore || p->mesh_uv)
        strata__jtext_printf(j, ",{\"buffer\":0,\"byteOffset\":%llu,\"byteLength\":%llu,"
                                "\"byteStride\":8,\"target\":%d}",
                             (unsigned long long)p->uv_offset,
                             (unsigned long long)(8ull * p->nuv), GL_ARRAY_BUFFER);
    if (has_color(p))
        strata__jtext_printf(j, ",{\"buffer\":0,\"byteOffset\":%llu,\"byteLength\":%llu,"
                                "\"byteStride\":4,\"target\":%d}",
                             (unsigned long long)p->ao_offset,
                             (unsigned long long)(p->bin_bytes - p->ao_offset), GL_ARRAY_BUFFER);
    strata__jtext_printf(j, "],");
    strata__jtext_printf(j, "\"buffers\":[{\"byteLength\":%llu}]", (unsigned long long)p->bin_bytes);
}

/* The document's numbering: the props' kinds with instances (a node, a
 * mesh and a view each; compressed, a view each attribute) and where each
 * group of accessors starts.  Accessors: POSITION, NORMAL (optional), the
 * primitives' indices, then the props' vertices, their used parts'
 * indices, per used kind T, R, S, then the shoreline's own. */
typedef struct json_ids {
    int used[STRATA_PROP_KINDS], nused;
    const strata_prop_part *parts;
    uint32_t nparts;
    const char *name;      /* the terrain's node and mesh: planet or terrain */
    size_t first_ix;       /* primitive i's indices: accessor first_ix + i */
    size_t prop_acc;       /* the props' vertices */
    size_t part_acc[8];    /* a used part's indices */
    size_t inst_acc[STRATA_PROP_KINDS]; /* used kind u's T, R, S from here */
    size_t shore_acc;      /* the shoreline's POSITION, then NORMAL, TEXCOORD_0;
                              or the whole mesh's TEXCOORD_0 */
    size_t ao_acc;         /* COLOR_0 of the terrain's vertices */
} json_ids;

static const char *const prop_kind_names[STRATA_PROP_KINDS] = {"trees", "rocks"};

static void json_number(const strata_result *r, const plan *p, json_ids *d)
{
    d->nused = 0;
    for (int k = 0; k < STRATA_PROP_KINDS; k++)
        if (p->prop_bytes && p->kinds[k].n)
            d->used[d->nused++] = k;
    d->parts = strata__prop_parts(&d->nparts);
    d->name = r->geometry == STRATA_RADIAL ? "planet" : "terrain";
    d->first_ix = p->normals ? 2 : 1;
    d->prop_acc = d->first_ix + p->nprims;
    size_t acc = d->prop_acc + 1;
    for (uint32_t i = 0; i < d->nparts; i++)
        for (int u = 0; u < d->nused; u++)
            if (d->parts[i].kind == d->used[u])
                d->part_acc[i] = acc++;
    for (int u = 0; u < d->nused; u++, acc += 3)
        d->inst_acc[u] = acc;
    d->shore_acc = d->nused ? acc : d->prop_acc;
    d->ao_acc = d->shore_acc + (p->shore ? 2 + (size_t)p->normals : (size_t)p->mesh_uv);
}

/* The asset, the extensions and the scene: node 0 the terrain, then one
 * node per used kind of props. */
static void json_scene(strata_jtext *j, const plan *p, const json_ids *d)
{
    strata__jtext_printf(j, "{\"asset\":{\"version\":\"2.0\",\"generator\":\"strata %s\"},", STRATA_VERSION);
    /* both required: a client without instancing would draw each kind's
     * mesh once, unscaled, at the origin */
    const int compressed = p->compress && p->nprims;
    const char *list = compressed && d->nused
                           ? "\"EXT_meshopt_compression\",\"EXT_mesh_gpu_instancing\""
                       : compressed ? "\"EXT_meshopt_compression\""
                       : d->nused   ? "\"EXT_mesh_gpu_instancing\""
                                    : NULL;
    if (list)
        strata__jtext_printf(j, "\"extensionsUsed\":[%s],\"extensionsRequired\":[%s],", list,
                             list);
    strata__jtext_printf(j, "\"scene\":0,\"scenes\":[{\"nodes\":[0");
    for (int u = 0; u < d->nused; u++)
        strata__jtext_printf(j, ",%d", 1 + u);
    strata__jtext_printf(j, "]}],");
}

/* The terrain's node, then per used kind a node drawing its mesh at every
 * instance. */
static void json_nodes(strata_jtext *j, const plan *p, const json_ids *d)
{
    strata__jtext_printf(j, "\"nodes\":[{\"name\":\"%s\",\"mesh\":0", d->name);
    if (p->origin[0] != 0 || p->origin[1] != 0 || p->origin[2] != 0) {
        /* the floats as doubles: read back as doubles they are exact */
        for (int k = 0; k < 3; k++) {
            strata__jtext_raw(j, k ? "," : ",\"translation\":[");
            strata__jtext_double(j, (double)p->origin[k]);
        }
        strata__jtext_raw(j, "]");
    }
    strata__jtext_raw(j, "}");
    for (int u = 0; u < d->nused; u++)
        strata__jtext_printf(j, ",{\"name\":\"%s\",\"mesh\":%d,\"extensions\":{"
                                "\"EXT_mesh_gpu_instancing\":{\"attributes\":{"
                                "\"TRANSLATION\":%zu,\"ROTATION\":%zu,\"SCALE\":%zu}}}}",
                             prop_kind_names[d->used[u]], 1 + u, d->inst_acc[u],
                             d->inst_acc[u] + 1, d->inst_acc[u] + 2);
    strata__jtext_printf(j, "],");
}

/* The terrain's mesh, a primitive (and a material) per prim, then per
 * used kind a mesh with a primitive per part; materials in that order. */
static void json_meshes(strata_jtext *j, const plan *p, const json_ids *d)
{
    strata__jtext_printf(j, "\"meshes\":[{\"name\":\"%s\",\"primitives\":[", d->name);
    for (size_t i = 0; i < p->nprims && !j->nomem; i++) {
        if (p->prims[i].shore) { /* POSITION, NORMAL, TEXCOORD_0 of its own */
            strata__jtext_printf(j, "%s{\"attributes\":{\"POSITION\":%zu", i ? "," : "",
                                 d->shore_acc);
            if (p->normals)
                strata__jtext_printf(j, ",\"NORMAL\":%zu", d->shore_acc + 1);
            strata__jtext_printf(j, ",\"TEXCOORD_0\":%zu", d->shore_acc + 1 + (size_t)p->normals);
            strata__jtext_printf(j, "},\"indices\":%zu,\"material\":%zu,\"mode\":4}",
                                 d->first_ix + i, i);
            continue;
        }
        strata__jtext_printf(j, "%s{\"attributes\":{\"POSITION\":0", i ? "," : "");
        if (p->normals)
            strata__jtext_printf(j, ",\"NORMAL\":1");
        if (p->mesh_uv && !p->prims[i].skirt && !p->prims[i].water)
            strata__jtext_printf(j, ",\"TEXCOORD_0\":%zu", d->shore_acc);
        if (has_color(p))
            strata__jtext_printf(j, ",\"COLOR_0\":%zu", d->ao_acc);
        strata__jtext_printf(j, "},\"indices\":%zu,\"material\":%zu,\"mode\":4}", d->first_ix + i, i);
    }
    strata__jtext_printf(j, "]}");
    size_t mat = p->nprims;
    for (int u = 0; u < d->nused; u++) {
        strata__jtext_printf(j, ",{\"name\":\"%s\",\"primitives\":[", prop_kind_names[d->used[u]]);
        int first = 1;
        for (uint32_t i = 0; i < d->nparts; i++)
            if (d->parts[i].kind == d->used[u]) {
                strata__jtext_printf(j, "%s{\"attributes\":{\"POSITION\":%zu},\"indices\":%zu,"
                                        "\"material\":%zu,\"mode\":4}",
                                     first ? "" : ",", d->prop_acc, d->part_acc[i], mat++);
                first = 0;
            }
        strata__jtext_printf(j, "]}");
    }
    strata__jtext_printf(j, "],");
}

/* An opaque material's colour from its baseColorFactor's first value on. */
static void json_opaque(strata_jtext *j, const float rgb[3])
{
    for (int c = 0; c < 3; c++) {
        json_unit(j, rgb[c]);
        strata__jtext_printf(j, ",");
    }
    strata__jtext_printf(j, "1],\"metallicFactor\":0,\"roughnessFactor\":0.9}}");
}

/* A material per prim (the palette's colour; water and shoreline
 * translucent), then per used part its own colour. */
static void json_materials(strata_jtext *j, const strata_result *r, const strata_palette *pal,
                           const plan *p, const json_ids *d)
{
    strata__jtext_printf(j, "\"materials\":[");
    for (size_t i = 0; i < p->nprims && !j->nomem; i++) {
        const prim *q = &p->prims[i];
        float rgb[3];
        strata_palette_color(pal, q->terrace, r->nterraces, q->wall, STRATA_COLOR_LINEAR, rgb);
        if (p->rgb) /* the colours are COLOR_0's */
            rgb[0] = rgb[1] = rgb[2] = 1.0f;
        if (q->water) { /* translucent blue, drawn after the opaque terrain */
            strata__jtext_printf(j, "%s{\"name\":\"water\",\"alphaMode\":\"BLEND\","
                                    "\"pbrMetallicRoughness\":{\"baseColorFactor\":"
                                    "[0.02,0.15,0.45,0.6],\"metallicFactor\":0,"
                                    "\"roughnessFactor\":0.2}}",
                                 i ? "," : "");
            continue;
        }
        if (q->shore) { /* foam: a texture's colour times this */
            strata__jtext_printf(j, "%s{\"name\":\"shoreline\",\"alphaMode\":\"BLEND\","
                                    "\"pbrMetallicRoughness\":{\"baseColorFactor\":"
                                    "[0.8,0.9,1,0.8],\"metallicFactor\":0,"
                                    "\"roughnessFactor\":0.5}}",
                                 i ? "," : "");
            continue;
        }
        if (q->skirt)
            strata__jtext_printf(j, "%s{\"name\":\"skirt_%u\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[",
                                 i ? "," : "", (unsigned)q->terrace);
        else
            strata__jtext_printf(j, "%s{\"name\":\"%s_%u\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[",
                                 i ? "," : "", q->wall ? "wall" : "terrace", (unsigned)q->terrace);
        json_opaque(j, rgb);
    }
    for (int u = 0; u < d->nused; u++)
        for (uint32_t i = 0; i < d->nparts; i++)
            if (d->parts[i].kind == d->used[u]) {
                strata__jtext_printf(j, ",{\"name\":\"%s\",\"pbrMetallicRoughness\":{"
                                        "\"baseColorFactor\":[",
                                     d->parts[i].name);
                json_opaque(j, d->parts[i].rgb);
            }
    strata__jtext_printf(j, "],");
}

/* The props' accessors, after the terrain's: their vertices (view
 * prop_view), each used part's indices (view prop_view + 1), per used kind
 * T, R, S (view prop_view + 2 + u); compressed, a view each from
 * prop_view + 1 on, at its start. */
static void json_prop_accessors(strata_jtext *j, const plan *p, const json_ids *d)
{
    const size_t prop_view = d->first_ix + (p->compress ? p->nprims : 1);
    size_t xview_at = prop_view + 1;
    uint32_t npv;
    const float *v = strata__prop_vertices(&npv);
    float lo[3] = {v[0], v[1], v[2]}, hi[3] = {v[0], v[1], v[2]};
    for (uint32_t i = 1; i < npv; i++)
        for (int c = 0; c < 3; c++) {
            lo[c] = fminf(lo[c], v[3 * i + c]);
            hi[c] = fmaxf(hi[c], v[3 * i + c]);
        }
    strata__jtext_printf(j, ",{\"bufferView\":%zu,\"componentType\":%d,\"count\":%u,"
                            "\"type\":\"VEC3\",\"min\":[",
                         prop_view, GL_FLOAT, npv);
    json_bounds(j, lo, hi);
    uint64_t off = 0;
    for (uint32_t i = 0; i < d->nparts; i++) {
        for (int u = 0; u < d->nused; u++)
            if (d->parts[i].kind == d->used[u])
                strata__jtext_printf(j, ",{\"bufferView\":%zu,\"byteOffset\":%llu,"
                                        "\"componentType\":%d,\"count\":%u,"
                                        "\"type\":\"SCALAR\"}",
                                     p->compress ? xview_at++ : prop_view + 1,
                                     (unsigned long long)(p->compress ? 0 : off),
                                     GL_UNSIGNED_SHORT, d->parts[i].nindices);
        off += pad4(2 * (uint64_t)d->parts[i].nindices);
    }
    for (int u = 0; u < d->nused; u++) {
        const uint64_t n = p->kinds[d->used[u]].n;
        static const char *const types[3] = {"VEC3", "VEC4", "VEC3"};
        const uint64_t at[3] = {0, 12 * n, 28 * n};
        for (int a = 0; a < 3; a++)
            strata__jtext_printf(j, ",{\"bufferView\":%zu,\"byteOffset\":%llu,"
                                    "\"componentType\":%d,\"count\":%llu,"
                                    "\"type\":\"%s\"}",
                                 p->compress ? xview_at++ : prop_view + 2 + (size_t)u,
                                 (unsigned long long)(p->compress ? 0 : at[a]), GL_FLOAT,
                                 (unsigned long long)n, types[a]);
    }
}

/* The texture coordinates' view (compressed: the last but the
 * occlusion's). */
static size_t uv_view(const plan *p, const json_ids *d)
{
    return p->compress ? d->first_ix + p->nprims + p->nxv - 1 - (size_t)has_color(p)
                       : d->first_ix + 1 + (d->nused ? 2 + (size_t)d->nused : 0);
}

/* The shoreline's accessors: views 0 and 1 from uv_first, then its
 * texture coordinates'. */
static void json_shore_accessors(strata_jtext *j, const strata_result *r, const plan *p,
                                 const json_ids *d)
{
    strata__jtext_printf(j, ",{\"bufferView\":0,\"byteOffset\":%llu,\"componentType\":%d,"
                            "\"count\":%u,\"type\":\"VEC3\",\"min\":[",
                         12ull * r->uv_first, GL_FLOAT, r->nuv);
    json_bounds(j, p->shore_min, p->shore_max);
    if (p->normals)
        strata__jtext_printf(j, ",{\"bufferView\":1,\"byteOffset\":%llu,"
                                "\"componentType\":%d,\"count\":%u,\"type\":\"VEC3\"}",
                             12ull * r->uv_first, GL_FLOAT, r->nuv);
    strata__jtext_printf(j, ",{\"bufferView\":%zu,\"componentType\":%d,\"count\":%u,"
                            "\"type\":\"VEC2\"}",
                         uv_view(p, d), GL_FLOAT, r->nuv);
}

/* The accessors in the order of json_ids: the terrain's vertices and
 * primitives' indices (compressed: a view per primitive, at its start),
 * the props', the shoreline's. */
static void json_accessors(strata_jtext *j, const strata_result *r, const plan *p,
                           const json_ids *d)
{
    const uint64_t nv = r->nverts;
    strata__jtext_printf(j, "\"accessors\":[{\"bufferView\":0,\"componentType\":%d,\"count\":%llu,"
                            "\"type\":\"VEC3\",\"min\":[",
                         GL_FLOAT, (unsigned long long)nv);
    json_bounds(j, p->min, p->max);
    if (p->normals)
        strata__jtext_printf(j, ",{\"bufferView\":1,\"componentType\":%d,\"count\":%llu,\"type\":\"VEC3\"}",
                             GL_FLOAT, (unsigned long long)nv);
    for (size_t i = 0; i < p->nprims && !j->nomem; i++) {
        const prim *q = &p->prims[i];
        strata__jtext_printf(j, ",{\"bufferView\":%zu,\"byteOffset\":%llu,\"componentType\":%d,"
                                "\"count\":%llu,\"type\":\"SCALAR\"}",
                             d->first_ix + (p->compress ? i : 0),
                             (unsigned long long)(p->compress ? 0 : q->offset),
                             q->u16 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT,
                             (unsigned long long)q->nindices);
    }
    if (d->nused)
        json_prop_accessors(j, p, d);
    if (p->shore)
        json_shore_accessors(j, r, p, d);
    if (p->mesh_uv)
        strata__jtext_printf(j, ",{\"bufferView\":%zu,\"componentType\":%d,\"count\":%u,"
                                "\"type\":\"VEC2\"}",
                             uv_view(p, d), GL_FLOAT, r->nuv);
    if (has_color(p)) { /* the last view */
        const size_t ao_view = p->compress ? d->first_ix + p->nprims + p->nxv - 1
                                           : d->first_ix + 1 + (d->nused ? 2 + (size_t)d->nused : 0) +
                                                 (size_t)(p->shore || p->mesh_uv);
        strata__jtext_printf(j, ",{\"bufferView\":%zu,\"componentType\":%d,\"normalized\":true,"
                                "\"count\":%llu,\"type\":\"VEC4\"}",
                             ao_view, GL_UNSIGNED_BYTE, (unsigned long long)nv);
    }
    strata__jtext_printf(j, "],");
}

/* The JSON chunk; extras (a JSON object, or NULL) becomes the document's
 * extras.strata.  Without triangles the document is one empty node. */
static strata_status plan_json(const strata_result *r, const strata_allocator *al,
                               const strata_palette *pal, const char *extras, plan *p)
{
    strata_jtext *j = &p->json;
    strata__jtext_init(j, al);
    json_ids d;
    json_number(r, p, &d);
    json_scene(j, p, &d);
    if (!p->nprims) {
        strata__jtext_printf(j, "\"nodes\":[{\"name\":\"%s\"}]", d.name);
    } else {
        json_nodes(j, p, &d);
        json_meshes(j, p, &d);
        json_materials(j, r, pal, p, &d);
        json_accessors(j, r, p, &d);
        if (p->compress)
            json_compressed_views(j, r, p);
        else
            json_views(j, p, d.used, d.nused);
    }
    if (extras) {
        strata__jtext_raw(j, ",\"extras\":{\"strata\":");
        strata__jtext_raw(j, extras);
        strata__jtext_raw(j, "}");
    }
    strata__jtext_raw(j, "}");
    if (j->nomem)
        return STRATA_ERR_NOMEM;

    p->total = 12 + 8 + pad4(j->len) + (p->bin_bytes ? 8 + p->bin_bytes : 0);
    return p->total > GLB_MAX ? STRATA_ERR_TOO_LARGE : STRATA_OK;
}

static strata_status make_plan(strata_ctx *ctx, const strata_result *r,
                               const strata_palette *pal, const char *extras, int compress,
                               int relative, const strata_props *props, plan *p)
{
    memset(p, 0, sizeof *p);
    p->relative = relative;
    p->normals = r->nx != NULL;
    p->compress = compress;
    strata_status st = STRATA_OK;
    p->shore = r->shore_count && r->nuv;
    p->mesh_uv = !r->shore_count && r->nuv && r->uv_first == 0 && r->nuv == r->nverts;
    p->nuv = r->nuv;
    p->ao = strata__result_ao(r);
    p->rgb = strata__result_rgb(r);
    if (p->rgb)
        srgb_to_linear(p->lin);
    if (st == STRATA_OK && props && props->count) {
        p->props = props;
        for (int k = 0; k < STRATA_PROP_KINDS && st == STRATA_OK; k++) {
            p->kinds[k].n = strata__props_count(props, k);
            if (p->kinds[k].n > (GLB_MAX / 40))
                st = STRATA_ERR_TOO_LARGE;
            else if (p->kinds[k].n &&
                     !(p->kinds[k].trs = strata__alloc_array(&ctx->alloc, (size_t)p->kinds[k].n,
                                                             10 * sizeof(float))))
                st = STRATA_ERR_NOMEM;
            else if (p->kinds[k].n)
                strata__props_transforms(props, k, p->kinds[k].trs);
        }
    }
    if (st == STRATA_OK)
        st = plan_prims(r, &ctx->alloc, p);
    if (st == STRATA_OK)
        st = plan_layout(r, p, ctx->threads);
    if (st == STRATA_OK && compress)
        st = plan_compress(r, &ctx->alloc, p, ctx->threads);
    if (st == STRATA_OK)
        st = plan_json(r, &ctx->alloc, pal, extras, p);
    return st;
}

strata_status strata_result_glb_size(strata_ctx *ctx, const strata_result *r, uint64_t *bytes)
{
    if (!ctx || !r || !bytes || r->nindices % 3)
        return STRATA_ERR_INVALID_ARG;
    plan p;
    strata_status st = make_plan(ctx, r, NULL, NULL, 0, 0, NULL, &p);
    if (st == STRATA_OK || st == STRATA_ERR_TOO_LARGE)
        *bytes = p.total;
    plan_free(&ctx->alloc, &p);
    return st;
}

/* ------------------------------------------------------------ writing */

/* Indices as unsigned short: src[0] the first (rec 2). */
static void enc_u16(const strata_span *s, uint64_t i, uint64_t n, unsigned char *p)
{
    const uint32_t *ix = (const uint32_t *)s->src[0] + i;
    const uint32_t base = s->tag[0]; /* the shoreline's first vertex, else 0 */
    for (uint64_t k = 0; k < n; k++)
        p = put_u16(p, ix[k] - base);
}

/* Indices as unsigned int (rec 4): the array's own bytes on a
 * little-endian host. */
static void enc_u32(const strata_span *s, uint64_t i, uint64_t n, unsigned char *p)
{
    const uint32_t *ix = (const uint32_t *)s->src[0] + i;
    const uint32_t base = s->tag[0]; /* the shoreline's first vertex, else 0 */
#if STRATA_LITTLE_ENDIAN
    if (!base) {
        memcpy(p, ix, (size_t)n * 4);
        return;
    }
#endif
    for (uint64_t k = 0; k < n; k++)
        p = put_u32(p, ix[k] - base);
}

static strata_span bytes_span(const void *p, uint64_t n)
{
    return (strata_span){.encode = strata__enc_bytes, .n = n, .rec = 1, .src = {p}};
}

/* The BIN chunk's spans of a compressed file into sp: n of them. */
static size_t compressed_spans(const plan *p, strata_span *sp)
{
    static const unsigned char zeros[4];
    size_t n = 0;
    sp[n++] = bytes_span(p->pos_enc, p->pos_enc_bytes);
    sp[n++] = bytes_span(zeros, pad4(p->pos_enc_bytes) - p->pos_enc_bytes);
    if (p->normals) {
        sp[n++] = bytes_span(p->nrm_enc, p->nrm_enc_bytes);
        sp[n++] = bytes_span(zeros, pad4(p->nrm_enc_bytes) - p->nrm_enc_bytes);
    }
    for (size_t i = 0; i < p->nprims; i++) {
        const prim *q = &p->prims[i];
        sp[n++] = bytes_span(q->enc, q->enc_bytes);
        sp[n++] = bytes_span(zeros, pad4(q->enc_bytes) - q->enc_bytes);
    }
    for (size_t i = 0; i < p->nxv; i++) {
        sp[n++] = bytes_span(p->xv[i].enc, p->xv[i].enc_bytes);
        sp[n++] = bytes_span(zeros, pad4(p->xv[i].enc_bytes) - p->xv[i].enc_bytes);
    }
    return n;
}


/* Little-endian floats and shorts: src[0] the array. */
static void enc_f32(const strata_span *s, uint64_t i, uint64_t n, unsigned char *p)
{
    const float *f = (const float *)s->src[0] + i;
    for (uint64_t k = 0; k < n; k++)
        p = put_f32(p, f[k]);
}

static void enc_u16_array(const strata_span *s, uint64_t i, uint64_t n, unsigned char *p)
{
    const uint16_t *v = (const uint16_t *)s->src[0] + i;
    for (uint64_t k = 0; k < n; k++)
        p = put_u16(p, v[k]);
}

strata_status strata__glb_write(strata_ctx *ctx, const strata_result *r, const char *path,
                                const strata_palette *pal, const char *extras, int compress,
                                int relative, const strata_props *props)
{
    static const unsigned char zeros[4];
    const strata_allocator *al = &ctx->alloc;
    plan p;
    strata_status st = make_plan(ctx, r, pal, extras, compress, relative, props, &p);
    if (st != STRATA_OK) {
        plan_free(al, &p);
        return st;
    }
    const int saved_errno = errno;
    strata_out f = STRATA_OUT_INIT(ctx);
    /* header and JSON chunk, BIN chunk header, positions, normals (each
     * with padding when compressed), per primitive its two index runs and
     * padding, the props' meshes and instances, the texture coordinates
     * (compressed: the views after the indices, each with padding) */
    uint32_t nparts;
    const strata_prop_part *parts = strata__prop_parts(&nparts);
    strata_span *sp = strata__alloc_array(al, 9 + 3 * p.nprims + 2 * MAX_XVIEWS, sizeof *sp);
    if (!sp) {
        plan_free(al, &p);
        return STRATA_ERR_NOMEM;
    }
    if (strata__out_open(&f, path, ctx) == 0) {
        f.seal = extras != NULL;
        const uint64_t jlen = pad4(p.json.len);
        unsigned char head[20], bin[8];
        put_u32(put_u32(put_u32(put_u32(put_u32(head, GLB_MAGIC), 2), (uint32_t)p.total),
                        (uint32_t)jlen),
                GLB_JSON);
        put_u32(put_u32(bin, (uint32_t)p.bin_bytes), GLB_BIN);
        size_t n = 0;
        sp[n++] = bytes_span(head, sizeof head);
        sp[n++] = bytes_span(p.json.s, p.json.len);
        sp[n++] = bytes_span("   ", jlen - p.json.len);
        if (p.bin_bytes && p.compress) {
            sp[n++] = bytes_span(bin, sizeof bin);
            n += compressed_spans(&p, sp + n);
        } else if (p.bin_bytes) {
            sp[n++] = bytes_span(bin, sizeof bin);
            sp[n++] = vec3_span(r->x, r->y, r->z, r->nverts, p.relative ? p.origin : NULL);
            if (p.normals)
                sp[n++] = vec3_span(r->nx, r->ny, r->nz, r->nverts, NULL);
            for (size_t i = 0; i < p.nprims; i++) {
                const prim *q = &p.prims[i];
                for (int s = 0; s < 2; s++)
                    sp[n++] = (strata_span){.encode = q->u16 ? enc_u16 : enc_u32,
                                            .n = q->count[s],
                                            .rec = q->u16 ? 2 : 4,
                                            .tag = {q->shore ? r->uv_first : 0, 0},
                                            .src = {r->indices + q->first[s]}};
                const uint64_t bytes = q->nindices * (q->u16 ? 2 : 4);
                sp[n++] = bytes_span(zeros, pad4(bytes) - bytes);
            }
            if (p.prop_bytes) {
                uint32_t npv;
                const float *pv = strata__prop_vertices(&npv);
                sp[n++] = (strata_span){.encode = enc_f32, .n = 3 * (uint64_t)npv, .rec = 4,
                                        .src = {pv}};
                for (uint32_t i = 0; i < nparts; i++) {
                    sp[n++] = (strata_span){.encode = enc_u16_array, .n = parts[i].nindices,
                                            .rec = 2, .src = {parts[i].indices}};
                    const uint64_t bytes = 2 * (uint64_t)parts[i].nindices;
                    sp[n++] = bytes_span(zeros, pad4(bytes) - bytes);
                }
                for (int k = 0; k < STRATA_PROP_KINDS; k++)
                    if (p.kinds[k].n)
                        sp[n++] = (strata_span){.encode = enc_f32, .n = 10 * p.kinds[k].n,
                                                .rec = 4, .src = {p.kinds[k].trs}};
            }
            if (p.shore || p.mesh_uv)
                sp[n++] = (strata_span){.encode = enc_f32, .n = 2 * (uint64_t)r->nuv, .rec = 4,
                                        .src = {r->uv}};
            if (has_color(&p))
                sp[n++] = (strata_span){.encode = enc_color, .n = r->nverts, .rec = 4,
                                        .src = {p.ao, p.rgb, p.lin}};
        }
        strata__out_spans(&f, sp, n);
        strata__out_finish(&f);
    }
    strata__free(al, sp);
    plan_free(al, &p);
    return strata__write_finish(ctx, &f, &path, 1, saved_errno);
}
