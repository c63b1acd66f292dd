/* Preview images: a small software rasteriser; the PNG file is encoded by
 * png.c.
 *
 * Every view is orthographic, so there is no near plane to clip against
 * and a fitted view can never put a vertex behind the camera.  Vertices are
 * projected to pixels on the fly (no screen-space copy of the vertex
 * arrays, which would cost 12 bytes a vertex) and snapped to a 1/256 pixel
 * grid; edge functions on that grid are exact in int64, so the top-left
 * rule gives every pixel centre on a shared edge to exactly one triangle.
 *
 * Determinism without ordering: each pixel holds one 64-bit key, the depth
 * mapped to an order-preserving uint32 in the high half and the packed
 * colour in the low half, updated with an atomic max.  The maximum of a set
 * does not depend on the order its elements arrive in, so threads can draw
 * any triangles in any order and the image is always the same: the
 * nearest fragment, ties to the larger colour.
 *
 * Water (strata_result_add_water) is drawn the same way into a buffer of
 * its own; resolving, a pixel whose water is nearer than its terrain gets
 * the water's colour at the glTF material's alpha over the terrain (or the
 * background), and any other pixel the terrain's alone.  One translucent
 * layer needs no sorting, so this too is independent of the order. */
#define _POSIX_C_SOURCE 200809L
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/result.h"
#include "base/output.h"
#include "io/write.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#define SUB_BITS 8 /* subpixel precision of snapped vertices */
#define SUB (1 << SUB_BITS)
#define MARGIN 0.04f    /* of the image side, on each border */
#define PIECE 16384u    /* triangles per work item */
#define DEG 0.0174532925f /* one degree in radians */

/* The water: the glTF material's linear baseColorFactor (0.02, 0.15,
 * 0.45) in sRGB, 0..255, and its alpha 0.6 in 255ths. */
static const float water_rgb[3] = {38.68f, 108.01f, 178.86f};
#define WATER_ALPHA 153u

/* ------------------------------------------------------------ camera */

typedef struct camera {
    float r[3], u[3], v[3]; /* right, up, towards the viewer (world) */
    float cx, cy;           /* view-space point at the image centre */
    float scale;            /* pixels per world unit */
    float half;             /* size / 2 */
    float light[3];         /* unit light direction (world) */
} camera;

static inline float dot3(const float a[3], float x, float y, float z)
{
    return a[0] * x + a[1] * y + a[2] * z;
}

static void set_basis(camera *cam, float vx, float vy, float vz)
{
    float len = sqrtf(vx * vx + vy * vy + vz * vz);
    cam->v[0] = vx / len, cam->v[1] = vy / len, cam->v[2] = vz / len;
    if (vx == 0 && vz == 0) { /* straight down: +x right, -z up */
        cam->r[0] = 1, cam->r[1] = 0, cam->r[2] = 0;
        cam->u[0] = 0, cam->u[1] = 0, cam->u[2] = -1;
        return;
    }
    /* r = normalize(Y x v), u = v x r */
    float rx = cam->v[2], rz = -cam->v[0];
    len = sqrtf(rx * rx + rz * rz);
    cam->r[0] = rx / len, cam->r[1] = 0, cam->r[2] = rz / len;
    cam->u[0] = cam->v[1] * cam->r[2] - cam->v[2] * cam->r[1];
    cam->u[1] = cam->v[2] * cam->r[0] - cam->v[0] * cam->r[2];
    cam->u[2] = cam->v[0] * cam->r[1] - cam->v[1] * cam->r[0];
}

/* Extent of the projected vertices (finite ones only). */
typedef struct extent {
    float x0, x1, y0, y1;
    float d2; /* largest squared distance from the centre (planet) */
    bool any;
} extent;

static void measure(strata_ctx *ctx, const strata_result *res, const camera *cam, bool sphere,
                    extent *e)
{
    float x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY, d2 = 0;
    const int64_t n = res->nverts;
    const float *X = res->x, *Y = res->y, *Z = res->z;
    const float c0 = res->center[0], c1 = res->center[1], c2 = res->center[2];
#pragma omp parallel for num_threads(ctx->threads) schedule(static) \
    reduction(min : x0, y0) reduction(max : x1, y1, d2)
    for (int64_t i = 0; i < n; i++) {
        const float x = X[i], y = Y[i], z = Z[i];
        if (!isfinite(x) || !isfinite(y) || !isfinite(z))
            continue;
        if (sphere) {
            const float dx = x - c0, dy = y - c1, dz = z - c2;
            const float d = dx * dx + dy * dy + dz * dz;
            d2 = d > d2 ? d : d2;
        } else {
            const float sx = dot3(cam->r, x, y, z), sy = dot3(cam->u, x, y, z);
            x0 = sx < x0 ? sx : x0;
            x1 = sx > x1 ? sx : x1;
            y0 = sy < y0 ? sy : y0;
            y1 = sy > y1 ? sy : y1;
        }
    }
    e->x0 = x0, e->x1 = x1, e->y0 = y0, e->y1 = y1, e->d2 = d2;
    e->any = sphere ? true : x0 <= x1;
}

/* A span [a, b] fitted to the image: its centre and width, a unit width
 * when it is empty, zero or not finite. */
static void span(float a, float b, float *centre, float *width)
{
    float w = b - a, c = a + 0.5f * w;
    if (!(w > 0) || !isfinite(w) || !isfinite(c)) {
        w = 1;
        c = isfinite(a) ? a : 0;
    }
    *centre = c;
    *width = w;
}

/* The view's basis; *sphere: fitted to a sphere (PLANET) rather than to
 * the projected extent. */
static strata_status view_basis(strata_preview_view view, camera *cam, bool *sphere)
{
    *sphere = false;
    switch (view) {
    case STRATA_VIEW_TOP: set_basis(cam, 0, 1, 0); break;
    case STRATA_VIEW_OBLIQUE:
        set_basis(cam, sinf(40 * DEG), tanf(35 * DEG), cosf(40 * DEG));
        break;
    case STRATA_VIEW_PLANET:
        set_basis(cam, 0.5f, 0.35f, 1.0f);
        *sphere = true;
        break;
    default: return STRATA_ERR_INVALID_ARG;
    }
    return STRATA_OK;
}

/* Fit the view-space rectangle of width w and height h centred on
 * (cx, cy) to the image, and set the light. */
static void fit(camera *cam, uint32_t size, float cx, float cy, float w, float h)
{
    cam->cx = cx;
    cam->cy = cy;
    cam->half = 0.5f * (float)size;
    cam->scale = (float)size * (1 - 2 * MARGIN) / (w > h ? w : h);
    /* view-space light (-1, 1, 1.5), normalised, to world space */
    const float l = 1.0f / sqrtf(1 + 1 + 2.25f);
    const float lx = -l, ly = l, lz = 1.5f * l;
    for (int i = 0; i < 3; i++)
        cam->light[i] = lx * cam->r[i] + ly * cam->u[i] + lz * cam->v[i];
}

/* A sphere's width, a unit one when it is zero or not finite. */
static float sphere_width(float radius)
{
    const float w = 2 * radius;
    return w > 0 && isfinite(w) ? w : 1;
}

static strata_status setup_camera(strata_ctx *ctx, const strata_result *res,
                                  strata_preview_view view, uint32_t size, camera *cam, bool *empty)
{
    bool sphere;
    const strata_status st = view_basis(view, cam, &sphere);
    if (st != STRATA_OK)
        return st;
    extent e;
    measure(ctx, res, cam, sphere, &e);
    float cx, cy, w, h;
    if (sphere) {
        const float *c = res->center;
        w = h = sphere_width(sqrtf(e.d2));
        cx = dot3(cam->r, c[0], c[1], c[2]);
        cy = dot3(cam->u, c[0], c[1], c[2]);
    } else {
        span(e.x0, e.x1, &cx, &w);
        span(e.y0, e.y1, &cy, &h);
    }
    *empty = !e.any;
    fit(cam, size, cx, cy, w, h);
    return STRATA_OK;
}

/* ------------------------------------------------------------ rasteriser */

typedef struct vert {
    int32_t x, y; /* pixel coordinates * SUB, y down */
    float z;      /* towards the viewer */
} vert;

#define INVALID INT32_MIN /* vert.x of a vertex that cannot be drawn */

/* Pixel coordinates are clamped far outside the image so the fixed-point
 * maths cannot overflow: |coordinate| < 2^24 keeps edge products < 2^49. */
static inline bool project(const camera *cam, float x, float y, float z, vert *out)
{
    float px = cam->half + (dot3(cam->r, x, y, z) - cam->cx) * cam->scale;
    float py = cam->half - (dot3(cam->u, x, y, z) - cam->cy) * cam->scale;
    out->z = dot3(cam->v, x, y, z);
    if (!isfinite(px) || !isfinite(py) || !isfinite(out->z))
        return false;
    const float lim = 16384.0f;
    px = px < -lim ? -lim : px > lim ? lim : px;
    py = py < -lim ? -lim : py > lim ? lim : py;
    /* round half away from zero by hand: lrintf is a library call */
    px *= SUB;
    py *= SUB;
    out->x = (int32_t)(px + (px < 0 ? -0.5f : 0.5f));
    out->y = (int32_t)(py + (py < 0 ? -0.5f : 0.5f));
    return true;
}

/* Order-preserving map of a float to uint32 (for the depth in a key). */
static inline uint32_t depth_bits(float z)
{
    uint32_t u;
    z += 0.0f; /* -0 -> +0 */
    memcpy(&u, &z, sizeof u);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

static inline void plot(_Atomic uint64_t *px, uint64_t key)
{
    uint64_t cur = atomic_load_explicit(px, memory_order_relaxed);
    while (key > cur && !atomic_compare_exchange_weak_explicit(px, &cur, key, memory_order_relaxed,
                                                              memory_order_relaxed)) {
    }
}

/* Smallest pixel index whose centre is >= v, largest whose centre is <= v
 * (v in SUB units, |v| < 2^24). */
static inline int32_t first_px(int32_t v) { return (v - SUB / 2 + SUB - 1 + (1 << 24)) / SUB - (1 << 24) / SUB; }
static inline int32_t last_px(int32_t v) { return (v - SUB / 2 + (1 << 24)) / SUB - (1 << 24) / SUB; }

/* Top-left rule for an edge a->b of a triangle with positive area (y down,
 * interior on the left of a->b in these coordinates): top edges run in +x,
 * left edges in -y.  Pixels exactly on other edges are excluded. */
static inline int64_t edge_bias(const vert *a, const vert *b)
{
    const int32_t dx = b->x - a->x, dy = b->y - a->y;
    return dy < 0 || (dy == 0 && dx > 0) ? 0 : -1;
}

typedef struct job {
    const strata_result *res;
    const camera *cam;
    const vert *sv; /* projected vertices; x == INVALID for non-finite */
    _Atomic uint64_t *fb;
    int32_t size;
    bool cull; /* drop triangles facing away from the viewer */
    const uint8_t *ao; /* the result's baked occlusion, NULL: none */
    const uint8_t *rgb; /* the result's colours (3 sRGB bytes a vertex), NULL: none */
} job;

typedef struct piece {
    uint64_t first, count; /* in indices */
    float rgb[3];          /* palette colour, 0..255 */
    bool water;            /* drawn into the water's buffer */
} piece;

/* A pixel's colour: rgb times shade, rounded, opaque. */
static inline uint32_t pack(const float rgb[3], float shade)
{
    uint32_t col = 0xff000000u;
    for (int ch = 0; ch < 3; ch++) {
        float v = rgb[ch] * shade + 0.5f;
        col |= (uint32_t)(v > 255 ? 255 : v < 0 ? 0 : (int)v) << (8 * ch);
    }
    return col;
}

static void draw_triangle(const job *jb, uint32_t ia, uint32_t ib, uint32_t ic, const float rgb[3])
{
    const strata_result *res = jb->res;
    const camera *cam = jb->cam;
    const uint32_t nv = res->nverts;
    if (ia >= nv || ib >= nv || ic >= nv)
        return;
    vert a = jb->sv[ia], b = jb->sv[ib], c = jb->sv[ic];
    if (a.x == INVALID || b.x == INVALID || c.x == INVALID)
        return;
    /* Twice the signed area; negative for triangles counter-clockwise as
     * seen by the viewer (the y axis points down). */
    int64_t area = (int64_t)(b.x - a.x) * (c.y - a.y) - (int64_t)(b.y - a.y) * (c.x - a.x);
    if (area == 0)
        return;
    const bool front = area < 0;
    if (!front && jb->cull)
        return;
    /* Pixel range first: most triangles of a big mesh cover no pixel
     * centre at all and need no shading. */
    int32_t x0 = first_px(a.x < b.x ? (a.x < c.x ? a.x : c.x) : (b.x < c.x ? b.x : c.x));
    int32_t x1 = last_px(a.x > b.x ? (a.x > c.x ? a.x : c.x) : (b.x > c.x ? b.x : c.x));
    int32_t y0 = first_px(a.y < b.y ? (a.y < c.y ? a.y : c.y) : (b.y < c.y ? b.y : c.y));
    int32_t y1 = last_px(a.y > b.y ? (a.y > c.y ? a.y : c.y) : (b.y > c.y ? b.y : c.y));
    x0 = x0 < 0 ? 0 : x0;
    y0 = y0 < 0 ? 0 : y0;
    x1 = x1 >= jb->size ? jb->size - 1 : x1;
    y1 = y1 >= jb->size ? jb->size - 1 : y1;
    if (x0 > x1 || y0 > y1)
        return;
    float ao[3] = {1, 1, 1}; /* the occlusion at a, b, c */
    if (jb->ao)
        for (int k = 0; k < 3; k++)
            ao[k] = (float)jb->ao[k == 0 ? ia : k == 1 ? ib : ic] * (1.0f / 255);
    if (front) { /* make the area positive: swap b and c */
        vert t = b;
        b = c;
        c = t;
        area = -area;
        const float o = ao[1];
        ao[1] = ao[2];
        ao[2] = o;
    }

    /* Flat shading from the world-space normal (the original winding). */
    const float *X = res->x, *Y = res->y, *Z = res->z;
    const float ux = X[ib] - X[ia], uy = Y[ib] - Y[ia], uz = Z[ib] - Z[ia];
    const float vx = X[ic] - X[ia], vy = Y[ic] - Y[ia], vz = Z[ic] - Z[ia];
    const float nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
    const float nlen = sqrtf(nx * nx + ny * ny + nz * nz);
    float ndl = nlen > 0 ? dot3(cam->light, nx, ny, nz) / nlen : 0;
    if (!front)
        ndl = -ndl;
    const float shade = STRATA_PREVIEW_AMBIENT + STRATA_PREVIEW_DIFFUSE * (ndl > 0 ? ndl : 0);
    const uint32_t flat_col = pack(rgb, shade);

    /* Edge functions at the first pixel centre, stepped per pixel. */
    const int64_t b0 = edge_bias(&b, &c), b1 = edge_bias(&c, &a), b2 = edge_bias(&a, &b);
    const int64_t px = (int64_t)x0 * SUB + SUB / 2, py = (int64_t)y0 * SUB + SUB / 2;
    /* E_ab(p) = (b.x - a.x)(p.y - a.y) - (b.y - a.y)(p.x - a.x) */
    int64_t e0r = (int64_t)(c.x - b.x) * (py - b.y) - (int64_t)(c.y - b.y) * (px - b.x);
    int64_t e1r = (int64_t)(a.x - c.x) * (py - c.y) - (int64_t)(a.y - c.y) * (px - c.x);
    int64_t e2r = (int64_t)(b.x - a.x) * (py - a.y) - (int64_t)(b.y - a.y) * (px - a.x);
    const int64_t e0x = -(int64_t)(c.y - b.y) * SUB, e0y = (int64_t)(c.x - b.x) * SUB;
    const int64_t e1x = -(int64_t)(a.y - c.y) * SUB, e1y = (int64_t)(a.x - c.x) * SUB;
    const int64_t e2x = -(int64_t)(b.y - a.y) * SUB, e2y = (int64_t)(b.x - a.x) * SUB;
    /* depth = a.z + e1 / area (b.z - a.z) + e2 / area (c.z - a.z) */
    const float inv = 1.0f / (float)area;
    const float dzb = (b.z - a.z) * inv, dzc = (c.z - a.z) * inv;
    /* the occlusion interpolated the same way, multiplying the shade */
    const float dob = (ao[1] - ao[0]) * inv, doc = (ao[2] - ao[0]) * inv;
    _Atomic uint64_t *fb = jb->fb;
    for (int32_t y = y0; y <= y1; y++) {
        int64_t e0 = e0r, e1 = e1r, e2 = e2r;
        _Atomic uint64_t *row = fb + (size_t)y * (size_t)jb->size;
        for (int32_t x = x0; x <= x1; x++) {
            if (((e0 + b0) | (e1 + b1) | (e2 + b2)) >= 0) {
                const float z = a.z + (float)e1 * dzb + (float)e2 * dzc;
                const uint32_t col =
                    jb->ao ? pack(rgb, shade * (ao[0] + (float)e1 * dob + (float)e2 * doc))
                           : flat_col;
                plot(row + x, (uint64_t)depth_bits(z) << 32 | col);
            }
            e0 += e0x, e1 += e1x, e2 += e2x;
        }
        e0r += e0y, e1r += e1y, e2r += e2y;
    }
}

/* The range [first, first + count) of indices cut into pieces of PIECE
 * triangles from p[*m] on (p NULL: counted only). */
static void cut_range(piece *p, size_t *m, uint64_t first, uint64_t count, const float rgb[3],
                      bool water)
{
    const uint64_t step = 3 * (uint64_t)PIECE;
    count -= count % 3;
    for (uint64_t s = 0; s < count; s += step, (*m)++) {
        if (!p)
            continue;
        p[*m].first = first + s;
        p[*m].count = count - s < step ? count - s : step;
        for (int ch = 0; ch < 3; ch++)
            p[*m].rgb[ch] = rgb[ch];
        p[*m].water = water;
    }
}

/* Work items: every roof and wall range cut into pieces of PIECE
 * triangles, each with its terrace's roof or wall colour; with water,
 * the water's range too. */
static piece *make_pieces(const strata_result *res, const strata_preview_options *o, bool water,
                          size_t *np)
{
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        piece *p = NULL;
        if (pass == 1 && !(p = strata__alloc_array(&res->alloc, n ? n : 1, sizeof *p)))
            return NULL;
        size_t m = 0;
        for (uint32_t k = 0; k < res->nterraces; k++) {
            const strata_terrace *t = &res->terraces[k];
            for (int w = 0; w < 2; w++) {
                float rgb[3];
                strata_palette_color(o->palette, k, res->nterraces, w, STRATA_COLOR_SRGB, rgb);
                for (int ch = 0; ch < 3; ch++)
                    rgb[ch] *= 255;
                const uint64_t first = w ? t->wall_first : t->roof_first;
                const uint64_t count = w ? t->wall_count : t->roof_count;
                if (first > res->nindices || count > res->nindices - first)
                    continue; /* not from a valid result */
                cut_range(p, &m, first, count, rgb, false);
            }
        }
        if (water && res->water_first <= res->nindices &&
            res->water_count <= res->nindices - res->water_first)
            cut_range(p, &m, res->water_first, res->water_count, water_rgb, true);
        n = m;
        if (p) {
            *np = n;
            return p;
        }
    }
    return NULL;
}

void strata_preview_defaults(strata_preview_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    opt->view = STRATA_VIEW_AUTO;
    opt->size = 1024;
    opt->background[0] = 24;
    opt->background[1] = 26;
    opt->background[2] = 33;
    opt->background[3] = 255;
}

strata_preview_view strata_preview_auto_view(const strata_result *r)
{
    return r && r->geometry == STRATA_RADIAL ? STRATA_VIEW_PLANET : STRATA_VIEW_OBLIQUE;
}

static strata_status check_args(const strata_result *r, const strata_preview_options *o,
                                strata_preview_view *view)
{
    if (o->size < STRATA_PREVIEW_MIN_SIZE || o->size > STRATA_PREVIEW_MAX_SIZE)
        return STRATA_ERR_INVALID_ARG;
    *view = o->view == STRATA_VIEW_AUTO ? strata_preview_auto_view(r) : o->view;
    if (*view != STRATA_VIEW_TOP && *view != STRATA_VIEW_OBLIQUE && *view != STRATA_VIEW_PLANET)
        return STRATA_ERR_INVALID_ARG;
    if (*view == STRATA_VIEW_PLANET && r->geometry != STRATA_RADIAL)
        return STRATA_ERR_INVALID_ARG;
    return STRATA_OK;
}

/* Draw r's triangles into fb (size x size keys) through cam, with ctx's
 * threads; palette from o; its water into wfb (NULL: none).  Working
 * memory: 12 bytes a vertex. */
static strata_status draw_result(strata_ctx *ctx, const strata_result *r, const camera *cam,
                                 const strata_preview_options *o, _Atomic uint64_t *fb,
                                 _Atomic uint64_t *wfb, uint32_t size)
{
    size_t np = 0;
    piece *pieces = make_pieces(r, o, wfb != NULL, &np);
    if (!pieces)
        return STRATA_ERR_NOMEM;
    /* Every vertex projected once (a triangle then reads 12 bytes a corner
     * instead of three scattered floats), in parallel, streaming. */
    vert *sv = strata__alloc_array(&ctx->alloc, r->nverts ? r->nverts : 1, sizeof *sv);
    if (!sv) {
        strata__free(&r->alloc, pieces);
        return STRATA_ERR_NOMEM;
    }
    const int64_t nv = (int64_t)r->nverts;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t i = 0; i < nv; i++)
        if (!project(cam, r->x[i], r->y[i], r->z[i], &sv[i]))
            sv[i].x = INVALID;

    const job jb = {r, cam, sv, fb, (int32_t)size, r->geometry == STRATA_RADIAL,
                    strata__result_ao(r), strata__result_rgb(r)};
    const job wjb = {r, cam, sv, wfb, (int32_t)size, r->geometry == STRATA_RADIAL, NULL, NULL};
    const int64_t n = (int64_t)np;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 1)
    for (int64_t i = 0; i < n; i++) {
        if (strata__cancelled(ctx))
            continue;
        const piece *p = &pieces[i];
        const uint32_t *ix = r->indices + p->first;
        for (uint64_t t = 0; t < p->count; t += 3) {
            float col[3]; /* with colours: the triangle's, its first corner's */
            const float *rgb = p->rgb;
            if (jb.rgb && !p->water && ix[t] < r->nverts) {
                for (int ch = 0; ch < 3; ch++)
                    col[ch] = jb.rgb[3 * (size_t)ix[t] + ch];
                rgb = col;
            }
            draw_triangle(p->water ? &wjb : &jb, ix[t], ix[t + 1], ix[t + 2], rgb);
        }
    }
    strata__free(&r->alloc, pieces);
    strata__free(&ctx->alloc, sv);
    return strata__cancelled(ctx) ? STRATA_ERR_CANCELLED : STRATA_OK;
}

static _Atomic uint64_t *fb_new(strata_ctx *ctx, const strata_allocator *al, uint32_t size)
{
    const size_t npx = (size_t)size * size;
    _Atomic uint64_t *fb = strata__alloc_array(al, npx, sizeof *fb);
    if (!fb)
        return NULL;
    const int64_t nrows = (int64_t)size;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t y = 0; y < nrows; y++)
        for (size_t x = 0; x < size; x++)
            atomic_init(&fb[(size_t)y * size + x], 0);
    return fb;
}

/* Water of colour w (a key's low bytes) at WATER_ALPHA over the pixel o
 * (RGBA, not premultiplied): "over" in 255ths, rounded. */
static void water_over(uint64_t w, uint8_t *o)
{
    const uint32_t a = WATER_ALPHA, ua = o[3], rest = ua * (255 - a); /* in 255^2 */
    const uint32_t oa = 255 * a + rest;                                /* in 255^2 */
    for (int c = 0; c < 3; c++) {
        const uint32_t wc = (uint32_t)(w >> (8 * c)) & 255;
        o[c] = (uint8_t)((255 * a * wc + rest * o[c] + oa / 2) / oa);
    }
    o[3] = (uint8_t)((oa + 127) / 255);
}

/* The image of fb: each key's colour, background where none; with wfb,
 * the water over it where the water is nearer. */
static void resolve(strata_ctx *ctx, _Atomic uint64_t *fb, _Atomic uint64_t *wfb, uint32_t size,
                    const uint8_t background[4], uint8_t *rgba)
{
    const int64_t nrows = (int64_t)size;
#pragma omp parallel for num_threads(ctx->threads) schedule(static)
    for (int64_t y = 0; y < nrows; y++) {
        for (size_t x = 0; x < size; x++) {
            const size_t i = (size_t)y * size + x;
            const uint64_t key = atomic_load_explicit(&fb[i], memory_order_relaxed);
            uint8_t *o = rgba + 4 * i;
            if (key == 0) {
                memcpy(o, background, 4);
            } else {
                o[0] = (uint8_t)key;
                o[1] = (uint8_t)(key >> 8);
                o[2] = (uint8_t)(key >> 16);
                o[3] = 255;
            }
            const uint64_t wkey =
                wfb ? atomic_load_explicit(&wfb[i], memory_order_relaxed) : 0;
            if (wkey && (wkey >> 32) > (key >> 32))
                water_over(wkey, o);
        }
    }
}

strata_status strata_preview_render(strata_ctx *ctx, const strata_result *r,
                                    const strata_preview_options *opt, uint8_t *rgba)
{
    strata_preview_options def;
    if (!opt) {
        strata_preview_defaults(&def);
        opt = &def;
    }
    if (!ctx || !r || !rgba)
        return STRATA_ERR_INVALID_ARG;
    strata_preview_view view;
    strata_status st = check_args(r, opt, &view);
    if (st != STRATA_OK)
        return st;
    if ((st = strata__progress(ctx, "preview", 0.0)) != STRATA_OK)
        return st;

    camera cam;
    bool empty;
    if ((st = setup_camera(ctx, r, view, opt->size, &cam, &empty)) != STRATA_OK)
        return st;
    _Atomic uint64_t *fb = fb_new(ctx, &ctx->alloc, opt->size), *wfb = NULL;
    if (fb && r->water_count && !empty && !(wfb = fb_new(ctx, &ctx->alloc, opt->size))) {
        strata__free(&ctx->alloc, (void *)fb);
        fb = NULL;
    }
    if (!fb)
        return STRATA_ERR_NOMEM;
    if (!empty && (st = draw_result(ctx, r, &cam, opt, fb, wfb, opt->size)) != STRATA_OK) {
        strata__free(&ctx->alloc, (void *)fb);
        strata__free(&ctx->alloc, (void *)wfb);
        return st;
    }
    resolve(ctx, fb, wfb, opt->size, opt->background, rgba);
    strata__free(&ctx->alloc, (void *)fb);
    strata__free(&ctx->alloc, (void *)wfb);
    return strata__progress(ctx, "preview", 1.0);
}

/* ------------------------------------------------------------ canvases */

struct strata_preview_canvas {
    strata_allocator alloc;
    strata_preview_options opt; /* view resolved */
    strata_geometry geometry;
    camera cam;
    _Atomic uint64_t *fb;
};

strata_status strata_preview_canvas_create(strata_ctx *ctx, const strata_preview_options *opt,
                                           strata_geometry geometry,
                                           const strata_preview_frame *frame,
                                           strata_preview_canvas **out)
{
    strata_preview_options def;
    if (!opt) {
        strata_preview_defaults(&def);
        opt = &def;
    }
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !frame || (geometry != STRATA_FLAT && geometry != STRATA_RADIAL) ||
        opt->size < STRATA_PREVIEW_MIN_SIZE || opt->size > STRATA_PREVIEW_MAX_SIZE)
        return STRATA_ERR_INVALID_ARG;
    strata_preview_view view = opt->view;
    if (view == STRATA_VIEW_AUTO)
        view = geometry == STRATA_RADIAL ? STRATA_VIEW_PLANET : STRATA_VIEW_OBLIQUE;
    if (view == STRATA_VIEW_PLANET && geometry != STRATA_RADIAL)
        return STRATA_ERR_INVALID_ARG;
    camera cam;
    bool sphere;
    strata_status st = view_basis(view, &cam, &sphere);
    if (st != STRATA_OK)
        return st;
    float cx, cy, w, h;
    if (sphere) {
        const float *c = frame->center;
        w = h = sphere_width(frame->radius);
        cx = dot3(cam.r, c[0], c[1], c[2]);
        cy = dot3(cam.u, c[0], c[1], c[2]);
    } else {
        /* the projection of the box's eight corners */
        float x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
        for (int k = 0; k < 8; k++) {
            const float x = k & 1 ? frame->hi[0] : frame->lo[0];
            const float y = k & 2 ? frame->hi[1] : frame->lo[1];
            const float z = k & 4 ? frame->hi[2] : frame->lo[2];
            const float sx = dot3(cam.r, x, y, z), sy = dot3(cam.u, x, y, z);
            x0 = sx < x0 ? sx : x0;
            x1 = sx > x1 ? sx : x1;
            y0 = sy < y0 ? sy : y0;
            y1 = sy > y1 ? sy : y1;
        }
        span(x0, x1, &cx, &w);
        span(y0, y1, &cy, &h);
    }
    fit(&cam, opt->size, cx, cy, w, h);
    strata_preview_canvas *c = strata__alloc(&ctx->alloc, sizeof *c);
    if (!c)
        return STRATA_ERR_NOMEM;
    c->alloc = ctx->alloc;
    c->opt = *opt;
    c->opt.view = view;
    c->geometry = geometry;
    c->cam = cam;
    if (!(c->fb = fb_new(ctx, &c->alloc, opt->size))) {
        strata__free(&ctx->alloc, c);
        return STRATA_ERR_NOMEM;
    }
    *out = c;
    return STRATA_OK;
}

void strata_preview_canvas_destroy(strata_preview_canvas *c)
{
    if (!c)
        return;
    const strata_allocator al = c->alloc;
    strata__free(&al, (void *)c->fb);
    strata__free(&al, c);
}

strata_status strata_preview_canvas_draw(strata_ctx *ctx, strata_preview_canvas *c,
                                         const strata_result *r)
{
    if (!ctx || !c || !r || r->geometry != c->geometry)
        return STRATA_ERR_INVALID_ARG;
    if (!r->nverts || !r->nindices)
        return STRATA_OK;
    return draw_result(ctx, r, &c->cam, &c->opt, c->fb, NULL, c->opt.size);
}

strata_status strata_preview_canvas_image(strata_ctx *ctx, const strata_preview_canvas *c,
                                          uint8_t *rgba)
{
    if (!ctx || !c || !rgba)
        return STRATA_ERR_INVALID_ARG;
    resolve(ctx, c->fb, NULL, c->opt.size, c->opt.background, rgba);
    return STRATA_OK;
}

#if HAVE_SPNG || HAVE_LIBPNG
/* The RGBA image img (allocated from ctx, freed here) as a PNG file:
 * RGB when the background is opaque. */
static strata_status png_file(strata_ctx *ctx, uint8_t *img, uint32_t size,
                              const uint8_t background[4], const char *path)
{
    const size_t npx = (size_t)size * size;
    /* Opaque background: every pixel is opaque, drop the alpha channel. */
    const int channels = background[3] == 255 ? 3 : 4;
    if (channels == 3)
        for (size_t i = 0; i < npx; i++)
            memmove(img + 3 * i, img + 4 * i, 3);
    strata_status st = STRATA_OK;
    strata_out o = STRATA_OUT_INIT(ctx);
    if (strata__out_open(&o, path, ctx) == 0) {
        st = strata__png_write(&o, img, size, channels);
        strata__out_finish(&o);
        if (st == STRATA_OK)
            strata__out_commit(&o, path);
    }
    strata__free(&ctx->alloc, img);
    const int err = o.err;
    strata__out_discard(&o); /* removes the temporary file unless renamed */
    if (err) {
        errno = err;
        if (st == STRATA_OK)
            st = err == ENOMEM ? STRATA_ERR_NOMEM : STRATA_ERR_IO;
    }
    return st;
}
#endif

strata_status strata_preview_write_png(strata_ctx *ctx, const strata_result *r,
                                       const strata_preview_options *opt, const char *path)
{
#if HAVE_SPNG || HAVE_LIBPNG
    strata_preview_options def;
    if (!opt) {
        strata_preview_defaults(&def);
        opt = &def;
    }
    if (!ctx || !r || !path || !*path)
        return STRATA_ERR_INVALID_ARG;
    strata_preview_view view;
    strata_status st = check_args(r, opt, &view);
    if (st != STRATA_OK)
        return st;
    uint8_t *img = strata__alloc_array(&ctx->alloc, (size_t)opt->size * opt->size, 4);
    if (!img)
        return STRATA_ERR_NOMEM;
    if ((st = strata_preview_render(ctx, r, opt, img)) != STRATA_OK) {
        strata__free(&ctx->alloc, img);
        return st;
    }
    return png_file(ctx, img, opt->size, opt->background, path);
#else
    (void)ctx, (void)r, (void)opt, (void)path;
    return STRATA_ERR_UNSUPPORTED;
#endif
}

strata_status strata_preview_canvas_write_png(strata_ctx *ctx, const strata_preview_canvas *c,
                                              const char *path)
{
#if HAVE_SPNG || HAVE_LIBPNG
    if (!ctx || !c || !path || !*path)
        return STRATA_ERR_INVALID_ARG;
    uint8_t *img = strata__alloc_array(&ctx->alloc, (size_t)c->opt.size * c->opt.size, 4);
    if (!img)
        return STRATA_ERR_NOMEM;
    resolve(ctx, c->fb, NULL, c->opt.size, c->opt.background, img);
    return png_file(ctx, img, c->opt.size, c->opt.background, path);
#else
    (void)ctx, (void)c, (void)path;
    return STRATA_ERR_UNSUPPORTED;
#endif
}
