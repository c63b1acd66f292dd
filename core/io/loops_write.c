/* Writing edge loops (strata_loops_write): GeoJSON lines or band
 * polygons (RFC 7946), SVG layers, OBJ polylines.  The polygons and the
 * layers are the regions of core/loops/bands.h.
 *
 * Numbers are written as the shortest decimal that reads back as the
 * same float (put_float, core/base/shortest.h). */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/heightmap.h"
#include "loops/bands.h"
#include "loops/loops.h"
#include "mesh/mesh.h"
#include "base/output.h"
#include "base/shortest.h"
#include "io/gdal.h"
#include "io/write.h"
#include "simd/slice.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ numbers */

/* The shortest decimal that reads back as f (core/base/shortest.h). */
#define put_float strata__put_float

/* ------------------------------------------------------------ output */

static void put_str(strata_out *o, const char *s) { strata__out_str(o, s); }

/* "[X,Y]" at p, after a comma if comma; the end. */
static char *put_xy_raw(char *p, int comma, float X, float Y)
{
    if (comma)
        *p++ = ',';
    *p++ = '[';
    p = put_float(p, X);
    *p++ = ',';
    p = put_float(p, Y);
    *p++ = ']';
    return p;
}

/* ",[X,Y]" for a ring point (no comma first). */
static void put_xy(strata_out *o, int comma, float X, float Y)
{
    char *p0 = (char *)strata__out_room(o, 48);
    o->len += (size_t)(put_xy_raw(p0, comma, X, Y) - p0);
}

static void put_num(strata_out *o, float v)
{
    char buf[32];
    *put_float(buf, v) = '\0';
    put_str(o, buf);
}

/* GeoJSON lines are formatted in parallel: the polylines, cut into
 * pieces of at most LINE_PIECE points, go in batches of about
 * LINE_BATCH points; every piece is formatted by some thread into its
 * own stretch of the batch's buffer, and the stretches are written in
 * order, so the bytes never depend on the thread count. */
#define LINE_PIECE 8192u
#define LINE_BATCH (256u * 1024u)
/* Bytes of one position at most: ",[" + 2 numbers of 16 + "," + "]". */
#define LINE_POINT_MAX 40u
/* The feature's head and tail at most. */
#define LINE_HEAD_MAX 160u

/* A band's rings are formatted in parallel as the lines are: each ring's closed position list (its first point
 * repeated) cut into pieces of at most LINE_PIECE positions, batches of
 * about LINE_BATCH positions formatted into their own stretches of a
 * buffer by any thread, then written in order with the brackets and
 * commas between them, so the bytes never depend on the thread count. */
typedef struct {
    uint32_t ring;
    uint32_t from, to; /* positions [from, to) of the ring's n + 1 */
    uint8_t pre;       /* at from == 0: 1 a polygon's exterior, 2 the
                          first polygon's, 0 a hole */
    uint8_t last;      /* at the ring's end: its polygon's last ring */
    uint64_t at, len;  /* its stretch of the buffer, bytes formatted */
} ring_piece;

static void format_ring_piece(const strata_band_region *g, ring_piece *pc, char *buf)
{
    const strata_band_ring *r = &g->rings[pc->ring];
    const float *X = g->store.X + r->first, *Y = g->store.Y + r->first;
    char *p = buf + pc->at, *p0 = p;
    for (uint32_t i = pc->from; i < pc->to; i++) {
        const size_t j = i == r->n ? 0 : i;
        p = put_xy_raw(p, i > 0, X[j], Y[j]);
    }
    pc->len = (uint64_t)(p - p0);
}

/* The rings of a band in the order they are written (each exterior,
 * then its holes), with their pieces' marks; the number of rings. */
static size_t ring_order(const strata_band_region *g, uint32_t *order, uint8_t *mark)
{
    size_t n = 0;
    for (size_t e = 0; e < g->nrings; e++) {
        if (g->rings[e].area <= 0)
            continue;
        const size_t first = n;
        order[n] = (uint32_t)e;
        mark[n++] = first == 0 ? 2 : 1;
        for (size_t h = 0; h < g->nrings; h++)
            if (g->rings[h].area < 0 && g->rings[h].owner == e) {
                order[n] = (uint32_t)h;
                mark[n++] = 0;
            }
        mark[n - 1] |= 4; /* the polygon's last ring */
    }
    return n;
}

/* The working memory of put_rings, kept from band to band. */
#define RING_BATCH_PIECES 4096
typedef struct {
    ring_piece *pcs; /* RING_BATCH_PIECES */
    char *buf;       /* LINE_BATCH positions */
    uint32_t *order; /* cap of them */
    uint8_t *mark;   /* cap */
    size_t cap;
} ring_batch;

static int ring_batch_init(ring_batch *rb, const strata_allocator *al)
{
    *rb = (ring_batch){strata__alloc_array(al, RING_BATCH_PIECES, sizeof(ring_piece)),
                       strata__alloc(al, (size_t)LINE_BATCH * LINE_POINT_MAX + LINE_POINT_MAX),
                       NULL, NULL, 0};
    return rb->pcs && rb->buf;
}

static void ring_batch_free(ring_batch *rb, const strata_allocator *al)
{
    strata__free(al, rb->pcs);
    strata__free(al, rb->buf);
    strata__free(al, rb->order);
    strata__free(al, rb->mark);
}

/* The polygons' position lists of a band, written batch by batch. */
static void put_rings(strata_out *o, const strata_band_region *g, ring_batch *rb)
{
    if (g->nrings > rb->cap) {
        strata__free(o->al, rb->order);
        strata__free(o->al, rb->mark);
        rb->order = strata__alloc_array(o->al, g->nrings, sizeof *rb->order);
        rb->mark = strata__alloc(o->al, g->nrings);
        rb->cap = rb->order && rb->mark ? g->nrings : 0;
        if (!rb->cap) {
            if (!o->err)
                o->err = ENOMEM;
            return;
        }
    }
    ring_piece *const pcs = rb->pcs;
    char *const buf = rb->buf;
    const size_t nr = ring_order(g, rb->order, rb->mark);
    size_t ri = 0;
    uint32_t from = 0;
    while (ri < nr && strata__out_ok(o)) {
        size_t np = 0;
        uint64_t points = 0;
        while (ri < nr && points < LINE_BATCH && np < RING_BATCH_PIECES) {
            const uint32_t n = (uint32_t)g->rings[rb->order[ri]].n + 1;
            const uint32_t to = n - from > LINE_PIECE ? from + LINE_PIECE : n;
            if (to - from > LINE_BATCH - points && points > 0)
                break;
            pcs[np++] = (ring_piece){rb->order[ri], from, to, (uint8_t)(rb->mark[ri] & 3),
                                     (uint8_t)(rb->mark[ri] >> 2), points * LINE_POINT_MAX, 0};
            points += to - from;
            from = to;
            if (to == n) {
                ri++;
                from = 0;
            }
        }
        const int64_t nn = (int64_t)np;
#pragma omp parallel for num_threads(o->ctx->threads) schedule(dynamic, 1)
        for (int64_t i = 0; i < nn; i++)
            format_ring_piece(g, &pcs[i], buf);
        for (size_t i = 0; i < np && strata__out_ok(o); i++) {
            const ring_piece *pc = &pcs[i];
            if (pc->from == 0) /* "[[" a polygon (after a comma but the first), ",[" a hole */
                put_str(o, pc->pre == 0 ? ",[" : pc->pre == 2 ? "[[" : ",[[");
            strata__out_bytes(o, buf + pc->at, pc->len);
            if (pc->to == g->rings[pc->ring].n + 1)
                put_str(o, pc->last ? "]]" : "]");
        }
    }
}

/* The band-k feature (nothing for an empty band). */
static void put_band(strata_out *o, strata_band_region *g, uint32_t k, int *first_feature,
                     ring_batch *rb)
{
    const strata_loops *l = g->fr->l;
    const strata_loops_write_options *opt = g->fr->o;
    size_t next = 0;
    for (size_t e = 0; e < g->nrings; e++)
        next += g->rings[e].area > 0;
    if (next == 0)
        return; /* an empty band: no feature */
    const float lo = k == 0 ? opt->height_min : l->levels[k];
    const float hi = k + 1 == l->nplanes ? opt->height_max : l->levels[k + 1];
    put_str(o, *first_feature ? "\n" : ",\n");
    *first_feature = 0;
    put_str(o, "{\"type\":\"Feature\",\"properties\":{\"elev_min\":");
    put_num(o, lo);
    put_str(o, ",\"elev_max\":");
    put_num(o, hi);
    /* a MultiPolygon even of one polygon: the layer has one geometry type */
    put_str(o, "},\"geometry\":{\"type\":\"MultiPolygon\",\"coordinates\":[");
    put_rings(o, g, rb);
    put_str(o, "]}}");
}

static void write_polygons(strata_out *o, strata_band_region *g, uint32_t corner_band)
{
    const strata_loops *l = g->fr->l;
    ring_batch rb;
    if (!ring_batch_init(&rb, o->al)) {
        ring_batch_free(&rb, o->al);
        if (!o->err)
            o->err = ENOMEM;
        return;
    }
    put_str(o, "{\"type\":\"FeatureCollection\",\"features\":[");
    int first = 1;
    for (uint32_t k = 0; k < l->nplanes && strata__out_ok(o) && !g->nomem && !g->bad; k++) {
        strata__band_region_band(g, k, corner_band);
        if (!g->nomem && !g->bad)
            put_band(o, g, k, &first, &rb);
        strata__out_progress(o, k + 1, l->nplanes);
    }
    put_str(o, "\n]}\n");
    ring_batch_free(&rb, o->al);
}

typedef struct {
    uint64_t loop;
    uint32_t from, to; /* positions [from, to) of the feature's list */
    uint64_t at;       /* its stretch of the batch buffer */
    uint64_t len;      /* bytes formatted */
} line_piece;

/* Piece pc of its feature into buf; the feature's head after a comma
 * if `comma`. */
static void format_piece(const strata_map_frame *fr, line_piece *pc, char *buf, int comma)
{
    const strata_loops *l = fr->l;
    const strata_loop *lp = &l->loops[pc->loop];
    char *p = buf + pc->at, *p0 = p;
    if (pc->from == 0) {
        static const char head[] = "{\"type\":\"Feature\",\"properties\":{\"elev\":";
        static const char mid[] = "},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[";
        if (comma)
            *p++ = ',';
        *p++ = '\n';
        memcpy(p, head, sizeof head - 1);
        p += sizeof head - 1;
        p = put_float(p, l->levels[lp->plane]);
        memcpy(p, mid, sizeof mid - 1);
        p += sizeof mid - 1;
    }
    for (uint32_t i = pc->from; i < pc->to; i++) {
        float X, Y;
        strata__map_point(fr, lp->first + (i == lp->count ? 0 : i), &X, &Y);
        p = put_xy_raw(p, i > 0, X, Y);
    }
    if (pc->to == lp->count + (lp->closed ? 1u : 0u)) {
        memcpy(p, "]}}", 3);
        p += 3;
    }
    pc->len = (uint64_t)(p - p0);
}

static void write_lines(strata_out *o, const strata_map_frame *fr)
{
    const strata_loops *l = fr->l;
    strata_ctx *ctx = o->ctx;
    const strata_allocator *al = o->al;
    const size_t maxp = 4096; /* pieces a batch */
    line_piece *pcs = strata__alloc_array(al, maxp, sizeof *pcs);
    char *buf = strata__alloc(al, (size_t)LINE_BATCH * LINE_POINT_MAX +
                                      (size_t)maxp * LINE_HEAD_MAX + LINE_POINT_MAX);
    if (!pcs || !buf) {
        strata__free(al, pcs);
        strata__free(al, buf);
        if (!o->err)
            o->err = ENOMEM;
        return;
    }
    put_str(o, "{\"type\":\"FeatureCollection\",\"features\":[");
    uint64_t li = 0;
    uint32_t from = 0;
    while (li < l->nloops && strata__out_ok(o)) {
        /* a batch of pieces */
        size_t np = 0;
        uint64_t points = 0, at = 0;
        while (li < l->nloops && points < LINE_BATCH && np < maxp) {
            const strata_loop *lp = &l->loops[li];
            const uint32_t n = lp->count + (lp->closed ? 1u : 0u);
            uint32_t to = n - from > LINE_PIECE ? from + LINE_PIECE : n;
            if (to - from > LINE_BATCH - points && points > 0)
                break;
            pcs[np] = (line_piece){li, from, to, at, 0};
            at += (uint64_t)(to - from) * LINE_POINT_MAX + LINE_HEAD_MAX;
            points += to - from;
            np++;
            from = to;
            if (to == n) {
                li++;
                from = 0;
            }
        }
        const int64_t nn = (int64_t)np;
#pragma omp parallel for num_threads(ctx->threads) schedule(dynamic, 1)
        for (int64_t i = 0; i < nn; i++)
            format_piece(fr, &pcs[i], buf, pcs[i].loop != 0);
        for (size_t i = 0; i < np && strata__out_ok(o); i++)
            strata__out_bytes(o, buf + pcs[i].at, pcs[i].len);
        strata__out_progress(o, li, l->nloops);
    }
    put_str(o, "\n]}\n");
    strata__free(al, pcs);
    strata__free(al, buf);
}

static strata_loops_format format_of(const char *path, strata_loops_format f);

/* Lines streamed from a heightmap (strata_loops_write_heightmap): every
 * plane's features formatted into its slot's buffer, each after a comma,
 * written in plane order, the file's first comma dropped. */
typedef struct {
    char *buf;
    size_t len, cap;
    uint64_t nl, np, closed, open;
    double length;
} line_slot;

typedef struct {
    strata_out *o;
    const strata_loops_write_options *opt;
    const strata_allocator *al;
    line_slot *slots;
    strata_loops_stats *stats;
    uint32_t nplanes;
    int started; /* a feature is written */
} line_stream;

static strata_status stream_plane(void *arg, uint32_t slot, const strata_loops *l, uint32_t k)
{
    line_stream *ls = arg;
    line_slot *s = &ls->slots[slot];
    const strata_map_frame fr = {l, ls->opt};
    s->len = 0;
    s->nl = l->nloops;
    s->np = s->closed = s->open = 0;
    s->length = 0.0;
    for (uint64_t li = l->plane_first[k]; li < l->plane_first[k + 1]; li++) {
        const strata_loop *lp = &l->loops[li];
        const uint32_t n = lp->count + (lp->closed ? 1u : 0u);
        const size_t need = s->len + (size_t)n * LINE_POINT_MAX + LINE_HEAD_MAX;
        if (need > s->cap) {
            const size_t cap = need > 2 * s->cap ? need : 2 * s->cap;
            char *b = strata__alloc(ls->al, cap);
            if (!b)
                return STRATA_ERR_NOMEM;
            if (s->len)
                memcpy(b, s->buf, s->len);
            strata__free(ls->al, s->buf);
            s->buf = b;
            s->cap = cap;
        }
        line_piece pc = {li, 0, n, s->len, 0};
        format_piece(&fr, &pc, s->buf, 1);
        s->len += pc.len;
        s->np += lp->count;
        s->closed += lp->closed != 0;
        s->open += lp->closed == 0;
        s->length += lp->length;
    }
    return STRATA_OK;
}

static strata_status stream_flush(void *arg, uint32_t slot, uint32_t k)
{
    line_stream *ls = arg;
    line_slot *s = &ls->slots[slot];
    strata_out *o = ls->o;
    if (s->len) {
        const size_t skip = ls->started ? 0 : 1; /* the first feature: no comma */
        strata__out_bytes(o, s->buf + skip, s->len - skip);
        ls->started = 1;
    }
    strata_loops_stats *st = ls->stats;
    if (st) {
        st->nloops += s->nl;
        st->npoints += s->np;
        if (st->length)
            st->length[k] = s->length;
        if (st->closed)
            st->closed[k] = s->closed;
        if (st->open)
            st->open[k] = s->open;
    }
    strata__out_progress(o, k + 1, ls->nplanes);
    return strata__out_ok(o) ? STRATA_OK : o->cancelled ? STRATA_ERR_CANCELLED : STRATA_ERR_IO;
}

strata_status strata_loops_write_heightmap(strata_ctx *ctx, const strata_heightmap *hm,
                                           float cell_size, float height_scale,
                                           const float *levels, uint32_t nlevels,
                                           const char *path, const strata_loops_write_options *opt,
                                           strata_loops_stats *stats)
{
    strata_loops_write_options def;
    if (!opt) {
        strata_loops_write_defaults(&def);
        opt = &def;
    }
    if (!ctx || !hm || !path || opt->polygons ||
        (opt->format != STRATA_LOOPS_AUTO && opt->format != STRATA_LOOPS_GEOJSON) ||
        format_of(path, opt->format) != STRATA_LOOPS_GEOJSON || !(opt->scale > 0) ||
        !isfinite(opt->scale) || !isfinite(opt->origin[0]) || !isfinite(opt->origin[1]) ||
        !(cell_size > 0.0f) || !isfinite(cell_size) || !isfinite(height_scale))
        return STRATA_ERR_INVALID_ARG;
    strata_status st = strata_levels_validate(levels, nlevels);
    if (st != STRATA_OK)
        return st;
    if ((st = strata__heightmap_check_dims(strata_heightmap_width(hm),
                                           strata_heightmap_height(hm))) != STRATA_OK)
        return st;
    if (stats) {
        stats->nloops = stats->npoints = 0;
        for (uint32_t k = 0; k < nlevels; k++) {
            if (stats->length)
                stats->length[k] = 0.0;
            if (stats->closed)
                stats->closed[k] = 0;
            if (stats->open)
                stats->open[k] = 0;
        }
    }
    const int saved_errno = errno;
    const strata_allocator *al = &ctx->alloc;
    strata__plane_sink sink = {stream_plane, stream_flush, NULL,
                               2 * (uint32_t)(ctx->threads > 0 ? ctx->threads : 1)};
    line_slot *slots = strata__alloc_array(al, sink.nslots, sizeof *slots);
    if (!slots)
        return STRATA_ERR_NOMEM;
    memset(slots, 0, sink.nslots * sizeof *slots);
    strata_out o = STRATA_OUT_INIT(ctx);
    line_stream ls = {&o, opt, al, slots, stats, nlevels, 0};
    sink.arg = &ls;
    if (strata__out_open(&o, path, ctx) == 0) {
        put_str(&o, "{\"type\":\"FeatureCollection\",\"features\":[");
        st = strata__loops_grid_stream(ctx, hm, cell_size, height_scale, levels, nlevels, &sink);
        if (st == STRATA_OK)
            put_str(&o, "\n]}\n");
        strata__out_finish(&o);
    }
    for (uint32_t i = 0; i < sink.nslots; i++)
        strata__free(al, slots[i].buf);
    strata__free(al, slots);
    if (st != STRATA_OK && strata__out_ok(&o)) { /* the loops failed: no file */
        const int err = errno;
        strata__out_discard(&o);
        errno = st == STRATA_ERR_IO ? err : saved_errno;
        return st;
    }
    const char *const paths[1] = {path};
    return strata__write_finish(ctx, &o, paths, 1, saved_errno);
}

/* Planets: longitude and latitude, every line that crosses the
 * antimeridian cut there into the parts of a MultiLineString (RFC 7946,
 * 3.1.9), the cut point at longitude 180 and -180 with the latitude
 * interpolated linearly in degrees (a point on the antimeridian is the
 * cut: no part has a zero-length segment).  Written on the calling thread:
 * planets' loops are few. */
/* Point i of loop lp (i == count: a closed loop's first again) in
 * longitude and latitude; a point on the
 * antimeridian takes the sign of the nearest point after it that is not
 * (else before it), so that a line touching it is not cut there. */
static void lonlat_at(const strata_map_frame *fr, const strata_loop *lp, uint32_t i, float *X,
                      float *Y)
{
    const uint32_t n = lp->count;
    strata__map_point(fr, lp->first + (i == n ? 0 : i), X, Y);
    if (fabsf(*X) != 180.0f)
        return;
    const uint32_t steps = lp->closed ? n : n - 1;
    for (int dir = 1; dir >= -1; dir -= 2)
        for (uint32_t k = 1; k <= steps; k++) {
            const int64_t j = (int64_t)(i == n ? 0 : i) + dir * (int64_t)k;
            if (!lp->closed && (j < 0 || j >= (int64_t)n))
                break;
            float Xj, Yj;
            strata__map_point(fr, lp->first + (uint64_t)((j % n + n) % n), &Xj, &Yj);
            if (fabsf(Xj) != 180.0f) {
                *X = copysignf(180.0f, Xj);
                return;
            }
        }
}

static void write_lines_lonlat(strata_out *o, const strata_map_frame *fr)
{
    const strata_loops *l = fr->l;
    put_str(o, "{\"type\":\"FeatureCollection\",\"features\":[");
    for (uint64_t li = 0; li < l->nloops && strata__out_ok(o); li++) {
        const strata_loop *lp = &l->loops[li];
        const uint32_t n = lp->count + (lp->closed ? 1 : 0);
        int cuts = 0;
        float pX = 0, pY = 0;
        for (uint32_t i = 0; i < n; i++) {
            float X, Y;
            lonlat_at(fr, lp, i, &X, &Y);
            cuts += i > 0 && fabsf(X - pX) > 180.0f;
            pX = X;
            pY = Y;
        }
        (void)pY;
        put_str(o, li ? ",\n{\"type\":\"Feature\",\"properties\":{\"elev\":"
                      : "\n{\"type\":\"Feature\",\"properties\":{\"elev\":");
        put_num(o, l->levels[lp->plane]);
        put_str(o, cuts ? "},\"geometry\":{\"type\":\"MultiLineString\",\"coordinates\":[["
                        : "},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[");
        int first = 1;
        for (uint32_t i = 0; i < n; i++) {
            float X, Y;
            lonlat_at(fr, lp, i, &X, &Y);
            if (i > 0 && fabsf(X - pX) > 180.0f) {
                /* from pX to X the short way passes +-180 */
                const double side = pX > 0 ? 180.0 : -180.0;
                const double span = 360.0 - fabs((double)X - pX);
                const double f = span > 0 ? (180.0 - fabs((double)pX)) / span : 0.5;
                const float Yc = (float)(pY + f * ((double)Y - pY));
                /* a point on the antimeridian is the cut itself: no
                 * second copy of it (a part of zero length) */
                if ((double)pX != side)
                    put_xy(o, 1, (float)side, Yc);
                put_str(o, "],[");
                first = (double)X == -side;
                if (!first)
                    put_xy(o, 0, (float)-side, Yc);
            }
            put_xy(o, !first, X, Y);
            first = 0;
            pX = X;
            pY = Y;
        }
        put_str(o, cuts ? "]]}}" : "]}}");
        if (li % 4096 == 0)
            strata__out_progress(o, li, l->nloops);
    }
    put_str(o, "\n]}\n");
}

static void write_svg(strata_out *o, strata_band_region *g, uint32_t corner_band)
{
    const strata_loops *l = g->fr->l;
    const double s = g->fr->o->svg_scale;
    const double wmm = g->W * s, hmm = g->D * s;
    char buf[256];
    snprintf(buf, sizeof buf,
             "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.6fmm\" height=\"%.6fmm\" "
             "viewBox=\"0 0 %.6f %.6f\">\n",
             wmm, hmm, wmm, hmm);
    put_str(o, buf);
    for (uint32_t k = 1; k < l->nplanes && strata__out_ok(o) && !g->nomem && !g->bad; k++) {
        strata__band_region_above(g, k, corner_band);
        if (g->nomem || g->bad)
            break;
        const int grey = 255 - (int)(200.0 * k / (l->nplanes > 1 ? l->nplanes - 1 : 1));
        put_str(o, "<g id=\"level-");
        put_num(o, l->levels[k]);
        snprintf(buf, sizeof buf, "\" data-elev=\"");
        put_str(o, buf);
        put_num(o, l->levels[k]);
        snprintf(buf, sizeof buf,
                 "\">\n<path fill=\"#%02x%02x%02x\" fill-rule=\"evenodd\" stroke=\"#000\" "
                 "stroke-width=\"0.1\" d=\"",
                 grey, grey, grey);
        put_str(o, buf);
        for (size_t e = 0; e < g->nrings; e++) {
            const strata_band_ring *r = &g->rings[e];
            for (size_t i = 0; i < r->n; i++) {
                char *p0 = (char *)strata__out_room(o, 48), *p = p0;
                *p++ = i ? 'L' : 'M';
                p = put_float(p, (float)(((double)g->store.X[r->first + i] - g->X0) * s));
                *p++ = ' ';
                p = put_float(p, (float)(((double)g->Y1 - g->store.Y[r->first + i]) * s));
                o->len += (size_t)(p - p0);
            }
            put_str(o, "Z");
        }
        put_str(o, "\"/>\n</g>\n");
        strata__out_progress(o, k, l->nplanes);
    }
    put_str(o, "</svg>\n");
}

/* OBJ: every point as "v x y z", each polyline as an "l" record (a
 * closed one ends on its first point again), one group per plane. */
static void write_obj(strata_out *o, const strata_loops *l, strata_axis up)
{
    put_str(o, "# edge loops by strata " STRATA_VERSION "\n");
    for (uint64_t p = 0; p < l->npoints && strata__out_ok(o); p++) {
        char *p0 = (char *)strata__out_room(o, 64), *q = p0;
        float x = l->x[p], y = l->y[p], z = l->z[p];
        strata__from_y_up(&x, &y, &z, up);
        *q++ = 'v';
        *q++ = ' ';
        q = put_float(q, x);
        *q++ = ' ';
        q = put_float(q, y);
        *q++ = ' ';
        q = put_float(q, z);
        *q++ = '\n';
        o->len += (size_t)(q - p0);
    }
    for (uint32_t k = 0; k < l->nplanes && strata__out_ok(o); k++) {
        if (l->plane_first[k] == l->plane_first[k + 1])
            continue;
        char buf[64];
        snprintf(buf, sizeof buf, "g plane_%u\n", k);
        put_str(o, buf);
        for (uint64_t li = l->plane_first[k]; li < l->plane_first[k + 1]; li++) {
            const strata_loop *lp = &l->loops[li];
            put_str(o, "l");
            for (uint32_t i = 0; i <= lp->count; i++) {
                if (i == lp->count && !lp->closed)
                    break;
                const uint64_t id = lp->first + (i == lp->count ? 0 : i) + 1;
                char *p0 = (char *)strata__out_room(o, 24);
                o->len += (size_t)snprintf(p0, 24, " %llu", (unsigned long long)id);
            }
            put_str(o, "\n");
        }
    }
}

/* ------------------------------------------------------------ entry */

void strata_loops_write_defaults(strata_loops_write_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->format = STRATA_LOOPS_AUTO;
    opt->scale = 1.0;
    opt->svg_scale = 1.0;
    opt->up = STRATA_AXIS_Y;
}

static strata_loops_format format_of(const char *path, strata_loops_format f)
{
    if (f != STRATA_LOOPS_AUTO)
        return f;
    if (strata__has_suffix(path, ".geojson") || strata__has_suffix(path, ".json"))
        return STRATA_LOOPS_GEOJSON;
    if (strata__has_suffix(path, ".svg"))
        return STRATA_LOOPS_SVG;
    if (strata__has_suffix(path, ".obj"))
        return STRATA_LOOPS_OBJ;
    return STRATA_LOOPS_AUTO;
}

strata_status strata_loops_write(strata_ctx *ctx, const strata_loops *l, const char *path,
                                 const strata_loops_write_options *opt)
{
    strata_loops_write_options def;
    if (!opt) {
        strata_loops_write_defaults(&def);
        opt = &def;
    }
    if (!ctx || !l || !path)
        return STRATA_ERR_INVALID_ARG;
    const strata_loops_format f = format_of(path, opt->format);
    if (f == STRATA_LOOPS_OGR) {
        if (!(opt->scale > 0) || !isfinite(opt->scale) || !isfinite(opt->origin[0]) ||
            !isfinite(opt->origin[1]) ||
            (opt->polygons && (!opt->has_domain || !(opt->domain[2] > opt->domain[0]) ||
                               !(opt->domain[3] > opt->domain[1]) ||
                               !isfinite(opt->corner_height))))
            return STRATA_ERR_INVALID_ARG;
        for (int i = 0; i < 6 && opt->has_transform; i++)
            if (!isfinite(opt->transform[i]))
                return STRATA_ERR_INVALID_ARG;
        const strata_status st = strata__progress(ctx, "write", 0.0);
        return st != STRATA_OK ? st : strata__loops_write_ogr(ctx, l, path, opt);
    }
    if (opt->has_transform || opt->lonlat || opt->crs || opt->driver)
        return STRATA_ERR_INVALID_ARG; /* GDAL's formats only */
    const int regions = f == STRATA_LOOPS_SVG || (f == STRATA_LOOPS_GEOJSON && opt->polygons);
    if (f == STRATA_LOOPS_AUTO || f > STRATA_LOOPS_OBJ || !(opt->scale > 0) ||
        (opt->up != STRATA_AXIS_X && opt->up != STRATA_AXIS_Y && opt->up != STRATA_AXIS_Z) ||
        !isfinite(opt->scale) || !isfinite(opt->origin[0]) || !isfinite(opt->origin[1]))
        return STRATA_ERR_INVALID_ARG;
    if (regions && (l->geometry != STRATA_FLAT || !opt->has_domain ||
                    !(opt->domain[2] > opt->domain[0]) || !(opt->domain[3] > opt->domain[1]) ||
                    !isfinite(opt->corner_height) || !(opt->svg_scale > 0) ||
                    !isfinite(opt->svg_scale)))
        return STRATA_ERR_INVALID_ARG;
    const int saved_errno = errno;
    strata_status st = strata__progress(ctx, "write", 0.0);
    if (st != STRATA_OK)
        return st;
    const strata_map_frame fr = {l, opt};
    strata_band_region g;
    memset(&g, 0, sizeof g);
    if (regions && strata__band_region_init(&g, &fr, &ctx->alloc) != STRATA_OK)
        return STRATA_ERR_NOMEM;
    const uint32_t corner_band =
        l->has_corner && l->corner[0] == opt->domain[0] && l->corner[1] == opt->domain[1]
            ? l->corner_band
            : strata__level_of(l->levels, l->nplanes, opt->corner_height);
    strata_out o = STRATA_OUT_INIT(ctx);
    if (strata__out_open(&o, path, ctx) == 0) {
        switch (f) {
        case STRATA_LOOPS_GEOJSON:
            if (opt->polygons)
                write_polygons(&o, &g, corner_band);
            else if (l->geometry != STRATA_FLAT)
                write_lines_lonlat(&o, &fr);
            else
                write_lines(&o, &fr);
            break;
        case STRATA_LOOPS_SVG: write_svg(&o, &g, corner_band); break;
        default: write_obj(&o, l, (strata_axis)opt->up); break;
        }
        if (g.nomem && !o.err)
            o.err = ENOMEM;
        strata__out_finish(&o);
    }
    const int bad = g.bad;
    strata__band_region_free(&g);
    if (bad) { /* polylines that do not close along the rectangle */
        o.cancelled = 0;
        strata__out_discard(&o);
        errno = saved_errno;
        return STRATA_ERR_INVALID_ARG;
    }
    const char *const paths[1] = {path};
    return strata__write_finish(ctx, &o, paths, 1, saved_errno);
}
