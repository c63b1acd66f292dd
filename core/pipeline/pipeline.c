/* The pipeline (strata_pipeline_run): a surface sliced, edited and
 * written, one named stage after another, as the strata program runs it
 * (docs/DESIGN.md, "Pipeline").  Each stage is a short function over
 * the job below; the driver times them and names the one that failed. */
#define _POSIX_C_SOURCE 200809L
#include "base/ctx.h"
#include "edit/solid.h"
#include "edit/water.h"
#include "loops/loops.h"
#include "pipeline/pipeline.h"
#include "base/output.h"
#include "io/write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static const char *const stage_names[STRATA_STAGE_COUNT_] = {
    "levels", "slice",    "loops", "simplify", "solid", "uv", "water",
    "shoreline", "colours", "fit", "props", "optimize", "ao", "write", "preview"};

const char *strata_stage_name(strata_stage s)
{
    return s >= 0 && s < STRATA_STAGE_COUNT_ ? stage_names[s] : "unknown";
}

void strata_pipeline_defaults(strata_pipeline_options *opt)
{
    if (!opt)
        return;
    memset(opt, 0, sizeof *opt);
    strata_terraces_defaults(&opt->terraces);
    opt->walls = STRATA_WALLS_UPPER;
    opt->solid_depth = NAN;
    strata_loops_write_defaults(&opt->loops_write);
    strata_write_defaults(&opt->write);
    opt->up = STRATA_AXIS_Y;
    strata_preview_defaults(&opt->preview_options);
}

/* One run: the options, what the stages made so far, the report. */
typedef struct job {
    strata_ctx *ctx;
    const strata_mesh *m;
    const strata_pipeline_options *o;
    strata_pipeline_report *rep;
    float *levels;
    uint32_t nlevels;
    strata_result *r;
    strata_loops *loops; /* the slice's loops, for the file and the coasts */
    strata_props *props;
    const strata_tile_coasts *coasts; /* a world's tile: its coasts */
    const strata_solid_tile *tile;    /* a world's tile: its part of the solid */
    int measure; /* record each stage's page faults and peak RSS */
} job;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The process's page faults so far (minor + major) and its peak resident
 * set in bytes; zeros where getrusage fails. */
static void usage_now(uint64_t *faults, uint64_t *peak)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        *faults = *peak = 0;
        return;
    }
    *faults = (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
    *peak = (uint64_t)ru.ru_maxrss * 1024u; /* Linux: KiB */
}

static strata_status levels(job *j)
{
    const strata_terraces *t = &j->o->terraces;
    const uint32_t room = strata_terraces_bound(t);
    if (room == 0)
        return STRATA_OK;
    float lo = 0, hi = 0;
    strata_status st;
    if (!t->levels && t->count && (st = strata_mesh_height_range(j->m, &lo, &hi)) != STRATA_OK)
        return st;
    if (!(j->levels = malloc((size_t)room * sizeof *j->levels)))
        return STRATA_ERR_NOMEM;
    return strata_terraces_heights(t, lo, hi, j->levels, &j->nlevels);
}

static strata_status slice(job *j)
{
    if (!j->nlevels)
        return strata_result_from_mesh(j->ctx, j->m, j->o->normals, &j->r);
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = j->levels;
    so.nlevels = j->nlevels;
    so.walls = j->o->walls;
    so.normals = j->o->normals;
    so.areas = j->o->areas;
    const strata_status st = strata_slice(j->ctx, j->m, &so, &j->r);
    strata_ctx_arena_stats(j->ctx, &j->rep->arena);
    return st;
}

/* The loops of the slice as made: linked from its walls, or (with
 * normals, whose walls have vertices of their own) from the mesh cut
 * again at the same planes, the same points.  Made once for the loops
 * file and the coasts, before anything reorders the walls. */
static strata_status loops(job *j)
{
    const strata_pipeline_options *o = j->o;
    if (!o->loops_path && !(o->shoreline > 0))
        return STRATA_OK;
    if (!j->nlevels)
        return STRATA_ERR_INVALID_ARG;
    strata_status st = o->normals
                           ? strata_loops_from_mesh(j->ctx, j->m, j->levels, j->nlevels, &j->loops)
                           : strata_loops_from_result(j->ctx, j->r, &j->loops);
    if (st == STRATA_OK && o->loops_path)
        st = strata_loops_write(j->ctx, j->loops, o->loops_path, &o->loops_write);
    if (!(o->shoreline > 0)) { /* nothing else reads them */
        strata_loops_destroy(j->loops);
        j->loops = NULL;
    }
    return st;
}

/* The longest side of r's bounding box: of x and z only (flat), or of
 * all three axes. */
static double longest_side(const strata_result *r, int flat)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    const float *c[3] = {v.x, v.z, v.y};
    double side = 0;
    for (int k = 0; k < (flat ? 2 : 3); k++) {
        float lo = INFINITY, hi = -INFINITY;
        for (uint32_t i = 0; i < v.nverts; i++) {
            lo = fminf(lo, c[k][i]);
            hi = fmaxf(hi, c[k][i]);
        }
        side = fmax(side, (double)hi - lo);
    }
    return side;
}

static strata_status solid(job *j)
{
    if (j->tile) {
        j->rep->solid_depth = j->o->solid_depth;
        return strata__result_solidify_tile(j->ctx, j->r, j->tile, &j->rep->solid);
    }
    float depth = j->o->solid_depth;
    if (isnan(depth))
        depth = (float)(STRATA_SOLID_DEPTH * longest_side(j->r, 1));
    j->rep->solid_depth = depth;
    return strata_result_solidify(j->ctx, j->r, depth, &j->rep->solid);
}

/* The texel in the surface's units: by default the planes' mean
 * spacing. */
static strata_status uv(job *j)
{
    double texel = j->o->uv_texel;
    if (texel == 0) {
        if (j->nlevels < 2)
            return STRATA_ERR_INVALID_ARG;
        texel = ((double)j->levels[j->nlevels - 1] - j->levels[0]) / (j->nlevels - 1);
    }
    return strata_result_add_uv(j->ctx, j->r, (float)texel);
}

static strata_status water(job *j)
{
    const strata_pipeline_options *o = j->o;
    if (o->water_part)
        return strata__result_add_water_part(j->ctx, j->r, o->terraces.sea_level, o->water_part);
    return strata_result_add_water(j->ctx, j->r, o->terraces.sea_level, o->water_outline,
                                   o->water_npoints, o->water_sphere_level);
}

static strata_status shoreline(job *j)
{
    const float sea = j->o->terraces.sea_level;
    const strata_tile_coasts *c = j->coasts;
    if (c) { /* a world's tile: the planes are its loops' */
        uint32_t k = 0;
        while (k < c->own->nplanes && c->own->levels[k] != sea)
            k++;
        return strata__result_add_shoreline_tile(j->ctx, j->r, c->own, c->ext, k,
                                                 j->o->shoreline, c->box);
    }
    uint32_t k = 0;
    while (k < j->nlevels && j->levels[k] != sea)
        k++;
    const strata_status st = strata_result_add_shoreline(j->ctx, j->r, j->loops, k,
                                                         j->o->shoreline);
    strata_loops_destroy(j->loops); /* the last reader */
    j->loops = NULL;
    return st;
}

static strata_status props(job *j)
{
    const strata_pipeline_options *o = j->o;
    strata_props_options po = *o->props;
    if (o->props_size[0] > 0) {
        const double side = longest_side(j->r, 0);
        po.min_scale = (float)(o->props_size[0] * side);
        po.max_scale = (float)(o->props_size[1] * side);
    }
    strata_status st = strata_props_scatter(j->ctx, j->r, &po, &j->props);
    if (st == STRATA_OK && o->props_csv)
        st = strata_props_write_csv(j->ctx, j->props, o->props_csv);
    return st;
}

static strata_status colours(job *j)
{
    const strata_pipeline_options *o = j->o;
    return strata_result_apply_colours(j->ctx, j->r, o->colours, o->write.palette,
                                       o->terraces.sea ? &o->terraces.sea_level : NULL);
}

static strata_status simplify(job *j)
{
    return strata_result_simplify_roofs(j->ctx, j->r, j->o->simplify_roofs, &j->rep->simplify);
}

static strata_status fit(job *j)
{
    return strata_result_fit_size(j->r, j->o->fit_size, &j->rep->fit_factor);
}

static strata_status optimize(job *j)
{
    return strata_result_optimize(j->ctx, j->r, &j->rep->optimize);
}

/* The radius in the result's units: the surface's times the fit's
 * factor; by default from the planes' mean spacing. */
static strata_status ao(job *j)
{
    double radius = j->o->ao_radius;
    if (radius == 0) {
        if (j->nlevels < 2)
            return STRATA_ERR_INVALID_ARG;
        radius = STRATA_AO_RADIUS_PLANES * ((double)j->levels[j->nlevels - 1] - j->levels[0]) /
                 (j->nlevels - 1);
    }
    return strata_result_bake_ao(j->ctx, j->r, (float)(radius * j->rep->fit_factor));
}

static strata_status preview(job *j)
{
    return strata_preview_write_png(j->ctx, j->r, &j->o->preview_options, j->o->preview);
}

/* The mesh file in its frame: an .stl is always z-up (its writer turns
 * y-up into z-up), so only the other formats are turned to `up` and back. */
static strata_status write(job *j)
{
    const strata_pipeline_options *o = j->o;
    strata_write_options wo = o->write;
    wo.props = j->props;
    const int turn = o->up != STRATA_AXIS_Y && !strata__has_suffix(o->path, ".stl");
    strata_status st = STRATA_OK;
    if (turn && (st = strata_result_rotate_from_y_up(j->r, o->up)) != STRATA_OK)
        return st;
    st = strata_result_write(j->ctx, j->r, o->path, &wo);
    const strata_status back = turn ? strata_result_rotate_to_y_up(j->r, o->up) : STRATA_OK;
    return st != STRATA_OK ? st : back;
}

/* The stages in their order, and whether o asks for each. */
typedef strata_status (*stage_fn)(job *);
static const stage_fn stages[STRATA_STAGE_COUNT_] = {
    levels, slice, loops, simplify, solid, uv, water, shoreline, colours, fit, props, optimize, ao,
    write, preview};

static int asked(const strata_pipeline_options *o, strata_stage s)
{
    switch (s) {
    case STRATA_STAGE_LEVELS: return strata_terraces_bound(&o->terraces) > 0;
    case STRATA_STAGE_SLICE: return 1;
    case STRATA_STAGE_LOOPS: return o->loops_path || o->shoreline > 0;
    case STRATA_STAGE_SIMPLIFY: return o->simplify_roofs > 0;
    case STRATA_STAGE_SOLID: return o->solid;
    case STRATA_STAGE_UV: return o->uv;
    case STRATA_STAGE_WATER: return o->water;
    case STRATA_STAGE_SHORELINE: return o->shoreline > 0;
    case STRATA_STAGE_COLOURS: return o->colours != NULL;
    case STRATA_STAGE_FIT: return o->fit_size > 0;
    case STRATA_STAGE_PROPS: return o->props != NULL;
    case STRATA_STAGE_OPTIMIZE: return o->optimize;
    case STRATA_STAGE_AO: return o->ao;
    case STRATA_STAGE_WRITE: return o->path != NULL;
    case STRATA_STAGE_PREVIEW: return o->preview != NULL;
    default: return 0;
    }
}

/* Stages first..last that j's options ask for, timed; on a failure the
 * report names the stage. */
static strata_status run_stages(job *j, strata_stage first, strata_stage last)
{
    strata_status st = STRATA_OK;
    for (int s = first; s <= (int)last && st == STRATA_OK; s++) {
        if (!asked(j->o, (strata_stage)s))
            continue;
        uint64_t f0 = 0, f1 = 0, peak = 0;
        if (j->measure)
            usage_now(&f0, &peak);
        const double t0 = now();
        j->rep->failed = (strata_stage)s;
        strata__out_group_tag(j->ctx, s);
        st = stages[s](j);
        if (st == STRATA_OK && strata__cancelled(j->ctx))
            st = STRATA_ERR_CANCELLED;
        j->rep->seconds[s] += now() - t0;
        if (j->measure) {
            usage_now(&f1, &peak);
            j->rep->faults[s] += f1 - f0;
            j->rep->peak_rss[s] = peak;
        }
        j->rep->ran |= 1u << s;
    }
    return st;
}

static void report_init(strata_pipeline_report *rep)
{
    memset(rep, 0, sizeof *rep);
    rep->fit_factor = 1.0;
    rep->failed = STRATA_STAGE_LEVELS;
}

strata_status strata_pipeline_run(strata_ctx *ctx, const strata_mesh *m,
                                  const strata_pipeline_options *o, strata_result **out,
                                  strata_props **props_out, strata_pipeline_report *rep)
{
    strata_pipeline_report scratch;
    if (!rep)
        rep = &scratch;
    report_init(rep);
    if (!ctx || !m || !o || !out || (o->props && !props_out))
        return STRATA_ERR_INVALID_ARG;
    if ((o->water || o->shoreline > 0) && !o->terraces.sea)
        return STRATA_ERR_INVALID_ARG;
    job j = {.ctx = ctx, .m = m, .o = o, .rep = rep, .measure = 1};
    /* every file of the run is renamed into place at the end, or none */
    strata_status st = strata__out_group_begin(ctx);
    if (st == STRATA_OK)
        st = run_stages(&j, STRATA_STAGE_LEVELS, STRATA_STAGE_PREVIEW);
    int tag = -1;
    const strata_status end = strata__out_group_end(ctx, st == STRATA_OK, &tag);
    if (st == STRATA_OK && end != STRATA_OK) {
        st = end;
        if (tag >= 0)
            rep->failed = (strata_stage)tag;
    }
    rep->nlevels = j.nlevels;
    free(j.levels);
    strata_loops_destroy(j.loops);
    if (st != STRATA_OK) {
        strata_props_destroy(j.props);
        strata_result_destroy(j.r);
        return st;
    }
    *out = j.r;
    if (props_out)
        *props_out = j.props;
    return STRATA_OK;
}

/* ------------------------------------------------ memory bound */

/* The band of height h among n ascending planes L: the k with
 * L[k] <= h < L[k+1], 0 below L[0] (as the slicer's). */
static uint32_t band_of(const float *L, uint32_t n, float h)
{
    uint32_t lo = 0, hi = n; /* the first plane above h */
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (L[mid] <= h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : 0;
}

/* The slice's output: a triangle whose corners span bands lo..hi
 * (d = hi - lo) leaves at most one polygon of up to 5 corners (3
 * triangles) in each band it meets and one wall quad (2 triangles) per
 * plane it crosses; its three edges cross 2d planes in all, two
 * vertices each; each corner may get a bottom copy; with normals four
 * more vertices per wall quad. */
static void slice_bound(const strata_mesh_view *v, const float *L, uint32_t n, int normals,
                        double *tris, double *verts)
{
    uint64_t span = 0; /* the sum of d: an integer, the same for any thread count */
    const int64_t nt = v->ntris;
#pragma omp parallel for reduction(+ : span) schedule(static)
    for (int64_t t = 0; t < nt; t++) {
        const uint32_t ba = band_of(L, n, v->h[v->a[t]]), bb = band_of(L, n, v->h[v->b[t]]),
                       bc = band_of(L, n, v->h[v->c[t]]);
        const uint32_t lo = ba < bb ? (ba < bc ? ba : bc) : (bb < bc ? bb : bc);
        const uint32_t hi = ba > bb ? (ba > bc ? ba : bc) : (bb > bc ? bb : bc);
        span += hi - lo;
    }
    *tris = 3.0 * (double)nt + 5.0 * (double)span;
    *verts = (double)v->nverts + 3.0 * (double)nt + (normals ? 8.0 : 4.0) * (double)span;
}

/* Props: density x the roofs' area (roofs are the surface projected
 * onto the planes: within the input's area projected onto the ground,
 * or, on a planet, within the sphere of the highest plane) plus one per
 * roof triangle (each draws a rounded count). */
static double props_bound(const strata_mesh_view *v, const float *L, uint32_t n,
                          double density, double roof_tris)
{
    double area = 0;
    if (v->geometry == STRATA_RADIAL) {
        double r = v->radius;
        for (uint32_t i = 0; i < v->nverts; i++)
            r = fmax(r, (double)v->radius + v->h[i]);
        if (n)
            r = fmax(r, (double)v->radius + L[n - 1]);
        area = 4.0 * 3.14159265358979323846 * r * r;
    } else {
        for (uint32_t t = 0; t < v->ntris; t++) {
            const uint32_t a = v->a[t], b = v->b[t], c = v->c[t];
            const double ux = (double)v->x[b] - v->x[a], uz = (double)v->z[b] - v->z[a];
            const double wx = (double)v->x[c] - v->x[a], wz = (double)v->z[c] - v->z[a];
            area += 0.5 * fabs(ux * wz - uz * wx);
        }
    }
    return density * area + roof_tris;
}

strata_status strata_pipeline_memory_bound(const strata_mesh *m,
                                           const strata_pipeline_options *opt, uint64_t *bytes,
                                           uint64_t *triangles, uint64_t *props)
{
    if (!m || !opt || !bytes)
        return STRATA_ERR_INVALID_ARG;
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    const strata_terraces *t = &opt->terraces;
    const uint32_t room = strata_terraces_bound(t);
    float *L = NULL, lo = 0, hi = 0;
    uint32_t n = 0;
    strata_status st = STRATA_OK;
    if (room && !t->levels && t->count)
        st = strata_mesh_height_range(m, &lo, &hi);
    if (st == STRATA_OK && room && !(L = malloc((size_t)room * sizeof *L)))
        st = STRATA_ERR_NOMEM;
    if (st == STRATA_OK && room)
        st = strata_terraces_heights(t, lo, hi, L, &n);
    if (st != STRATA_OK) {
        free(L);
        return st;
    }
    double tris = v.ntris, verts = v.nverts;
    if (n)
        slice_bound(&v, L, n, opt->normals, &tris, &verts);
    const double np = opt->props ? props_bound(&v, L, n, opt->props->density, tris) : 0.0;
    free(L);
    /* the input's own peak (strata_whole_memory_estimate) and what the
     * output adds over its share of it */
    const double in = (double)strata_whole_memory_estimate(v.ntris);
    const double out = STRATA_BOUND_TRIANGLE_BYTES * fmax(0.0, tris - 3.0 * v.ntris) +
                       STRATA_BOUND_VERTEX_BYTES * fmax(0.0, verts - 4.0 * v.nverts);
    const double total = in + out + STRATA_BOUND_PROP_BYTES * np;
    *bytes = total >= 1.8e19 ? UINT64_MAX : (uint64_t)total;
    if (triangles)
        *triangles = tris >= 1.8e19 ? UINT64_MAX : (uint64_t)tris;
    if (props)
        *props = np >= 1.8e19 ? UINT64_MAX : (uint64_t)np;
    return STRATA_OK;
}

strata_status strata__pipeline_stages(strata_ctx *ctx, strata_result *r,
                                      const strata_pipeline_options *o, strata_stage first,
                                      strata_stage last, const strata_tile_coasts *coasts,
                                      const strata_solid_tile *tile,
                                      strata_props **props, strata_pipeline_report *rep)
{
    if (!ctx || !r || !o || !rep || first <= STRATA_STAGE_LOOPS || last > STRATA_STAGE_OPTIMIZE ||
        (o->props && !props) ||
        (o->shoreline > 0 && first <= STRATA_STAGE_SHORELINE && last >= STRATA_STAGE_SHORELINE &&
         (!coasts || !coasts->own)))
        return STRATA_ERR_INVALID_ARG;
    if (o->solid && first <= STRATA_STAGE_SOLID && last >= STRATA_STAGE_SOLID && !tile)
        return STRATA_ERR_INVALID_ARG;
    job j = {.ctx = ctx, .o = o, .rep = rep, .r = r, .coasts = coasts, .tile = tile};
    const strata_status st = run_stages(&j, first, last);
    if (st != STRATA_OK) {
        strata_props_destroy(j.props);
        return st;
    }
    if (props)
        *props = j.props;
    return STRATA_OK;
}
