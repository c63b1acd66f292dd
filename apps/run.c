/* The work of the strata program: build or read a mesh, displace it,
 * slice it, write it (and its preview); and strata info. */
#define _POSIX_C_SOURCE 200809L

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "run.h"
#include "fail.h"
#include "progress.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

/* Instruction sets this CPU and build can use, space-separated. */
static void isa_list(char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < STRATA_ISA_COUNT_; i++)
        if (strata_cpu_isas() & STRATA_ISA_BIT(i))
            snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? " " : "",
                     strata_isa_name((strata_isa)i));
}

/* The context, on the ISA --simd or else STRATA_SIMD asks for.  --simd
 * wins over the environment: the library reads STRATA_SIMD, so set it. */
strata_ctx *job_ctx(const job *o)
{
    if (o->simd && setenv("STRATA_SIMD", o->simd, 1) != 0)
        die(EXIT_RUNTIME, "out of memory");
    strata_ctx *ctx;
    const strata_status st = strata_ctx_create(NULL, &ctx);
    static const char *const pretty[] = {"scalar", "AVX2", "AVX-512", "NEON"};
    const char *want = getenv("STRATA_SIMD");
    strata_isa isa = STRATA_ISA_SCALAR;
    strata_isa_from_name(want, &isa);
    char avail[64], what[64], why[128];
    isa_list(avail, sizeof avail);
    snprintf(what, sizeof what, "%s%s", o->simd ? "--simd " : "STRATA_SIMD=", want ? want : "");
    snprintf(why, sizeof why, "this CPU (or this build) lacks %s (available: %s)", pretty[isa],
             avail);
    check_call(st, st == STRATA_ERR_ISA ? (call){.what = what, .why = why}
                                        : (call){.what = "context"});
    strata_ctx_set_sync(ctx, !o->no_sync);
    return ctx;
}

/* Fail before the work if the file cannot be written: its directory must
 * take new files, and it must not be a directory.  `of` says what the
 * file belongs to ("" for none). */
static void check_output(const char *path, const char *of, bool quiet)
{
    /* what a killed run (SIGKILL, a power loss) left: not a running one's */
    unsigned long stale = 0;
    if (strata_output_clean(path, &stale) != STRATA_OK)
        die(EXIT_RUNTIME, "cannot write '%s'%s: %s", path, of, strerror(errno));
    if (stale && !quiet)
        fprintf(stderr, "strata: removed %lu temporary file%s of '%s' a killed run left\n",
                stale, stale == 1 ? "" : "s", path);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        die(EXIT_RUNTIME, "cannot write '%s'%s: %s", path, of, strerror(EISDIR));
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        die(EXIT_RUNTIME, "out of memory");
    const int ok = access(dir, W_OK | X_OK) == 0;
    const int err = errno;
    free(dir);
    if (!ok)
        die(EXIT_RUNTIME, "cannot write '%s'%s: %s", path, of, strerror(err));
}

void check_writable(const char *path, bool quiet)
{
    check_output(path, "", quiet);
}

/* Every file the job writes: the mesh, an .obj's .mtl (the .obj suffix
 * replaced, as strata_result_write does), the preview. */
static void check_outputs(const job *o)
{
    check_output(o->output, "", o->quiet);
    const size_t n = strlen(o->output);
    if (n >= 4 && !strcasecmp(o->output + n - 4, ".obj")) {
        char *mtl = strdup(o->output), of[64];
        if (!mtl)
            die(EXIT_RUNTIME, "out of memory");
        memcpy(mtl + n - 4, ".mtl", 4);
        snprintf(of, sizeof of, " (the materials of %s)", o->output);
        check_output(mtl, of, o->quiet);
        free(mtl);
    }
    if (o->preview)
        check_output(o->preview, "", o->quiet);
    if (o->loops)
        check_output(o->loops, "", o->quiet);
}

/* The problem with a palette file, for its message. */
static const char *palette_problem(strata_status st, const char *path)
{
    struct stat sb;
    if (st == STRATA_ERR_FORMAT)
        return "expected #rrggbb colours";
    if (st == STRATA_ERR_TOO_LARGE && stat(path, &sb) == 0 && sb.st_size > (1 << 20))
        return "bigger than a palette file may be (1 MiB)";
    static char many[64];
    snprintf(many, sizeof many, "too many colours (at most %u)", STRATA_PALETTE_MAX_STOPS);
    return st == STRATA_ERR_TOO_LARGE ? many : NULL;
}

void job_palette(const job *o, strata_palette *pal)
{
    if (strata_palette_preset(o->palette, pal) == STRATA_OK)
        return;
    const strata_status st = strata_palette_load(o->palette, pal);
    check_call(st, (call){.what = "palette", .path = o->palette,
                          .why = palette_problem(st, o->palette)});
}

strata_colours *job_colours(const job *o)
{
    strata_colours *c = NULL;
    if (o->style) {
        check_call(strata_colours_preset(o->style, &c), (call){.what = "--style"});
        return c;
    }
    if (!o->colours)
        return NULL;
    strata_colours_error err;
    const strata_status st = strata_colours_load(o->colours, &c, &err);
    if (st == STRATA_ERR_FORMAT || (st == STRATA_ERR_TOO_LARGE && err.line))
        die(EXIT_RUNTIME, "--colours '%s': line %u, field %u: %s (see 'Colour rules' in README.md)",
            o->colours, err.line, err.field, err.what);
    if (st == STRATA_ERR_TOO_LARGE)
        die(EXIT_RUNTIME, "--colours '%s': bigger than a rules file may be (%u MiB)", o->colours,
            STRATA_COLOUR_FILE_MAX >> 20);
    check_call(st, (call){.what = "colour rules", .path = o->colours});
    return c;
}

/* strata slice: read the input mesh, say what was repaired. */
static strata_mesh *load_input(strata_ctx *ctx, const job *o)
{
    strata_import_options imp;
    strata_import_defaults(&imp);
    imp.up = (strata_axis)o->up;
    imp.weld = o->weld;
    imp.radial = o->radial;
    imp.has_center = o->has_center;
    memcpy(imp.center, o->center, sizeof imp.center);
    imp.radius = isnan(o->radius) ? 0.0f : (float)o->radius;
    strata_mesh *m;
    strata_import_report rep;
    check_call(strata_mesh_load(ctx, o->input, &imp, &rep, &m),
               (call){.what = "mesh", .path = o->input});
    if (!o->quiet && rep.dropped)
        fprintf(stderr, "strata: %s: dropped %u degenerate face%s\n", o->input, rep.dropped,
                rep.dropped == 1 ? "" : "s");
    if (!o->quiet && rep.flipped)
        fprintf(stderr, "strata: %s: the faces pointed %s; all triangles reversed\n", o->input,
                imp.radial ? "inwards" : "down");
    return m;
}

/* Defaults that come from a heightmap or template hm of w x h samples
 * when the options were not given.  --cell-size: the raster's pixel size
 * when it is georeferenced in a projected CRS with square pixels (the
 * geotransform's |g1|), else 1.  --height-scale: 1 when the samples are
 * heights as they are (PFM, GDAL rasters); else samples in [0,1] become
 * HEIGHTMAP_SCALE x the side of the grid in samples (patches for a
 * template) x its cell size.  In memory and in worlds alike. */
void job_raster_defaults(job *o, const strata_heightmap *hm)
{
    strata_heightmap_info info;
    strata_heightmap_get_info(hm, &info);
    const double *g = info.geotransform;
    if (!cli_given("cell-size") && info.georeferenced && info.projected && g[2] == 0.0 &&
        g[4] == 0.0 && fabs(g[1]) == fabs(g[5]) && fabs(g[1]) >= LENGTH_MIN &&
        fabs(g[1]) <= LENGTH_MAX)
        o->cell_size = fabs(g[1]);
    if (!isnan(o->height_scale))
        return;
    const uint32_t w = strata_heightmap_width(hm), h = strata_heightmap_height(hm);
    const double patch = o->template_path ? (double)o->patch_cells : 1.0;
    o->height_scale =
        info.source_units ? 1.0 : HEIGHTMAP_SCALE * o->cell_size * patch * (w > h ? w : h);
}

/* The extent the noise defaults scale with: a template's patch (its noise
 * is the detail inside one cell), else the whole terrain. */
double job_noise_extent(const job *o, double extent)
{
    return o->template_path ? o->cell_size * (double)o->patch_cells : extent;
}

/* check() for the stages whose memory grows with the surface: out of
 * memory on a planet or grid made whole says how much it needs and points
 * to worlds, which make it chunk by chunk in bounded memory.  About 71
 * bytes an input triangle at the peak (level 11: 5.97 GB for 84M
 * triangles, perf/worlds.sh). */
static void check_mem(const job *o, strata_status st, const char *stage)
{
    if (st == STRATA_ERR_NOMEM && !interrupted() &&
        (o->kind == JOB_PLANET || (o->kind == JOB_TERRAIN && o->shape == SHAPE_GRID))) {
        const bool planet = o->kind == JOB_PLANET;
        const double tris = planet ? 20.0 * pow(4.0, (double)o->level)
                                   : 2.0 * (double)o->cells * (double)o->cells;
        const double gib = 71.0 * tris / (1024.0 * 1024.0 * 1024.0);
        if (planet)
            die(EXIT_RUNTIME,
                "%s: out of memory (a level-%lld planet made whole needs about %.3g GiB); make "
                "it chunk by chunk in bounded memory: --chunk-level %lld -o DIR",
                stage, o->level, gib, o->level > 8 ? o->level - 8 : 0);
        die(EXIT_RUNTIME,
            "%s: out of memory (a %lld x %lld grid made whole needs about %.3g GiB); make it "
            "tile by tile in bounded memory: --tile-cells 256 -o DIR",
            stage, o->cells, o->cells, gib);
    }
    check(st, stage);
}

/* --depth, or its default: polygons are subdivided, other shapes not. */
static long long subdivisions(const job *o)
{
    if (o->depth >= 0)
        return o->depth;
    return !o->heightmap && o->shape == SHAPE_POLYGON ? POLYGON_DEPTH : 0;
}

/* Refuse at once a surface that cannot fit made whole (the library's
 * estimate against 90% of the machine's memory or `ulimit -v`), rather
 * than running until the kernel kills the process: the message gives the
 * estimate and the world options that make it in bounded memory. */
static void check_fits(const job *o, double tris, const char *what)
{
    const uint64_t limit = strata_memory_limit();
    const double need = (double)strata_whole_memory_estimate(
        tris >= 1.8e19 ? UINT64_MAX : (uint64_t)tris);
    if (limit == 0 || need <= 0.9 * (double)limit)
        return;
    struct rlimit rl;
    const bool as = getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
                    (uint64_t)rl.rlim_cur == limit;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    char way[64];
    if (o->kind == JOB_PLANET)
        snprintf(way, sizeof way, "--chunk-level %lld -o DIR", o->level > 8 ? o->level - 8 : 0);
    else if (o->kind == JOB_TERRAIN && o->shape != SHAPE_POLYGON)
        snprintf(way, sizeof way, "--tile-cells 256 -o DIR");
    else
        snprintf(way, sizeof way, "fewer triangles");
    die(EXIT_RUNTIME,
        "out of memory: %s made whole needs about %.3g GiB, and a job may take at most %.3g "
        "GiB (90%% of %s, %.3g GiB); make it in bounded memory: %s",
        what, need / gib, 0.9 * (double)limit / gib,
        as ? "the address-space limit, ulimit -v" : "this machine's memory", (double)limit / gib,
        way);
}

/* Refuse at once a job whose options make it grow past the memory
 * (strata_pipeline_memory_bound: the terraces' walls, the props) with
 * the option to lower and the bound. */
static void check_grows(const job *o, const strata_mesh *m, const strata_pipeline_options *po)
{
    const uint64_t limit = strata_memory_limit();
    uint64_t need = 0, tris = 0, props = 0;
    const strata_status st = strata_pipeline_memory_bound(m, po, &need, &tris, &props);
    if (st != STRATA_OK || limit == 0 || (double)need <= 0.9 * (double)limit)
        return; /* the levels stage names a bad --terraces or --levels */
    const double gib = 1024.0 * 1024.0 * 1024.0;
    const double prop_part = STRATA_BOUND_PROP_BYTES * (double)props;
    char where[96];
    struct rlimit rl;
    const bool as = getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
                    (uint64_t)rl.rlim_cur == limit;
    snprintf(where, sizeof where, "90%% of %s, %.3g GiB",
             as ? "the address-space limit, ulimit -v" : "this machine's memory",
             (double)limit / gib);
    if (o->props && prop_part > 0.5 * (double)need)
        die(EXIT_RUNTIME,
            "--props %s: up to %.3g props, and the job may need about %.3g GiB, over the "
            "%.3g GiB it may take (%s); give a lower DENSITY",
            cli_given("props"), (double)props, (double)need / gib, 0.9 * (double)limit / gib,
            where);
    char opt[64];
    if (o->levels.n)
        snprintf(opt, sizeof opt, "--levels (%zu planes)", (size_t)o->levels.n);
    else
        snprintf(opt, sizeof opt, "--terraces %lld", o->terraces);
    die(EXIT_RUNTIME,
        "%s: the slice may make up to %.3g triangles, and the job may need about %.3g GiB, "
        "over the %.3g GiB it may take (%s); give fewer terraces%s",
        opt, (double)tris, (double)need / gib, 0.9 * (double)limit / gib, where,
        o->kind == JOB_PLANET ? ", or make it as a world (--chunk-level C -o DIR)"
        : o->kind == JOB_TERRAIN && o->shape != SHAPE_POLYGON
            ? ", or make it as a world (--tile-cells 256 -o DIR)"
            : "");
}

/* Build the input mesh (shape, heightmap, template, subdivision, or
 * strata slice's file). */
static strata_mesh *build(strata_ctx *ctx, job *o, double *extent)
{
    strata_mesh *m = NULL;
    if (o->kind == JOB_SLICE)
        return load_input(ctx, o);
    if (o->kind == JOB_PLANET) {
        char what[48];
        snprintf(what, sizeof what, "a level-%lld planet", o->level);
        check_fits(o, 20.0 * pow(4.0, (double)o->level), what);
        check_mem(o, strata_shape_icosphere(ctx, (int)o->level, (float)o->radius, &m),
                  "icosphere");
        *extent = o->radius;
        return m;
    }
    if (o->heightmap || o->template_path) {
        const char *path = o->template_path ? o->template_path : o->heightmap;
        const char *what = o->template_path ? "template" : "heightmap";
        strata_heightmap *hm;
        const strata_status lst = strata_heightmap_load(ctx, path, &hm);
        check_call(lst, (call){.what = what,
                               .path = path,
                               .why = lst == STRATA_ERR_TOO_LARGE
                                          ? "outside the sizes of a heightmap held in memory "
                                            "(sides of 2 to 32768 samples, 2^28 in all); a "
                                            "larger PGM, PFM or PNG file can be made as a "
                                            "world (--tile-cells N), read tile by tile"
                                          : NULL});
        job_raster_defaults(o, hm);
        strata_heightmap_info info;
        strata_heightmap_get_info(hm, &info);
        if (info.nodata && o->template_path)
            die(EXIT_RUNTIME,
                "template '%s': %llu nodata samples; a template needs a height at every "
                "sample",
                path, (unsigned long long)info.nodata);
        const uint32_t w = strata_heightmap_width(hm), h = strata_heightmap_height(hm);
        const double patch = o->template_path ? (double)o->patch_cells : 1.0;
        char fits[96];
        snprintf(fits, sizeof fits, "a %.0f x %.0f cell terrain from '%s'", (w - 1) * patch,
                 (h - 1) * patch, path);
        check_fits(o, 2.0 * (w - 1) * patch * (h - 1) * patch * pow(4.0, (double)subdivisions(o)),
                   fits);
        *extent = o->cell_size * patch * (double)((w > h ? w : h) - 1);
        strata_status st =
            o->template_path
                ? strata_mesh_from_template(ctx, hm, (uint32_t)o->patch_cells,
                                            (float)o->cell_size, (float)o->height_scale, &m)
                : strata_mesh_from_heightmap(ctx, hm, (float)o->cell_size,
                                             (float)o->height_scale, &m);
        strata_heightmap_destroy(hm);
        check(st, what);
    } else if (o->shape == SHAPE_GRID) {
        char fits[64];
        snprintf(fits, sizeof fits, "a %lld x %lld grid", o->cells, o->cells);
        check_fits(o, 2.0 * (double)o->cells * (double)o->cells * pow(4.0, (double)subdivisions(o)),
                   fits);
        check_mem(o, strata_shape_grid(ctx, (uint32_t)o->cells, (uint32_t)o->cells,
                                       (float)(o->size / (double)o->cells), &m),
                  "grid");
        *extent = o->size;
    } else {
        char fits[64];
        snprintf(fits, sizeof fits, "a %lld-sided polygon subdivided %lld times", o->sides,
                 subdivisions(o));
        check_fits(o, (double)o->sides * pow(4.0, (double)subdivisions(o)), fits);
        check(strata_shape_polygon(ctx, (int)o->sides, (float)(o->size / 2), &m), "polygon");
        *extent = o->size;
    }
    o->depth = subdivisions(o);
    if (o->depth > 0) {
        strata_mesh *sub;
        check(strata_mesh_subdivide(ctx, m, (int)o->depth, 0, &sub), "subdivide");
        strata_mesh_destroy(m);
        m = sub;
    }
    return m;
}

/* An option's value as given, or else v (its default, followed by
 * `dflt`), for messages. */
static const char *text_of(const char *name, double v, const char *dflt, char buf[48])
{
    const char *given = cli_given(name);
    if (given)
        return given;
    snprintf(buf, 48, "%g%s", v, dflt);
    return buf;
}

/* The noise of a planet or terrain of the given extent (the radius, the
 * size, or the heightmap's width), with the defaults that scale with it.
 * A usage error when the library would refuse it (strata_fbm_validate,
 * and B < R for planets), naming the options and the valid range. */
void job_noise(const job *o, double extent, strata_fbm *f)
{
    strata_fbm_defaults(f);
    f->kind = (strata_noise_kind)o->noise;
    f->seed = (uint32_t)o->seed;
    f->octaves = (int)o->octaves;
    f->lacunarity = (float)o->lacunarity;
    f->gain = (float)o->gain;
    const bool planet = o->kind == JOB_PLANET;
    if (planet) {
        /* noise is sampled at d * R: per-radius frequency over R */
        f->frequency = (float)(o->frequency / o->radius);
        f->amplitude = (float)(isnan(o->amplitude) ? PLANET_AMPLITUDE * o->radius : o->amplitude);
    } else {
        f->frequency =
            (float)(isnan(o->frequency) ? TERRAIN_FREQUENCY / extent : o->frequency);
        f->amplitude =
            (float)(isnan(o->amplitude) ? TERRAIN_AMPLITUDE * extent : o->amplitude);
    }
    char a[48], r[48], l[48], g[48];
    const char *amp_text = text_of("amplitude", f->amplitude, " (default)", a);
    const char *radius_text = text_of("radius", o->radius, "", r);
    const char *lac_text = text_of("lacunarity", o->lacunarity, "", l);
    const char *gain_text = text_of("gain", o->gain, "", g);
    if (!(f->frequency > 0) && planet) /* a positive float over R */
        usage_error("--frequency %s: %g per unit (over --radius %s) is below the smallest float "
                    "(1.4e-45)",
                    cli_given("frequency"), o->frequency / o->radius, radius_text);
    if (!(f->frequency > 0))
        usage_error("--frequency %s: below the smallest float (1.4e-45)", cli_given("frequency"));
    /* Each octave's frequency and the bound B = amplitude x (1 + gain +
     * ... + gain^(octaves-1)), computed as strata_fbm_validate does. */
    float freq = f->frequency, amp = f->amplitude, bound = 0.0f;
    double sum = 0, gain_o = 1; /* 1 + gain + ..., for the messages */
    for (int i = 0; i < f->octaves; i++) {
        bound = bound + amp;
        sum += gain_o;
        if (i + 1 < f->octaves) {
            freq = freq * f->lacunarity;
            amp = amp * f->gain;
            gain_o *= f->gain;
        }
    }
    if (!isfinite(freq))
        usage_error("--lacunarity %s over --octaves %d: the last octave's frequency, %g x %s^%d "
                    "per unit, overflows a float (at most 3.4e38)",
                    lac_text, f->octaves, (double)f->frequency, lac_text, f->octaves - 1);
    if (!isfinite(bound))
        usage_error("--amplitude %s: the noise reaches amplitude x %g (1 + gain + ... + "
                    "gain^(octaves-1) with --gain %s, --octaves %d), which overflows a float "
                    "(at most 3.4e38)",
                    amp_text, sum, gain_text, f->octaves);
    /* A planet's vertices move by at most B along their directions: B < R
     * keeps every one of them outside the centre. */
    if (planet && !(bound < (float)o->radius))
        usage_error("--amplitude %s: the noise reaches amplitude x %g = %g (1 + gain + ... + "
                    "gain^(octaves-1) with --gain %s, --octaves %d), which must stay below "
                    "--radius %s: --amplitude < %g",
                    amp_text, sum, (double)bound, gain_text, f->octaves, radius_text,
                    o->radius / sum);
}

/* The job's terraces: --levels, or --terraces spread along
 * --terrace-curve (made into *curve, which the caller destroys), and
 * --sea-level.  The one place the options become a strata_terraces, for
 * whole meshes, worlds and contours. */
void job_terraces(strata_ctx *ctx, const job *o, strata_terraces *t, strata_curve **curve)
{
    strata_terraces_defaults(t);
    *curve = NULL;
    if (o->levels.n) {
        t->levels = o->levels.v;
        t->nlevels = (uint32_t)o->levels.n;
    } else {
        t->count = (uint32_t)o->terraces;
    }
    if (!o->levels.n && o->terraces > 0 && o->terrace_curve.n) {
        check(strata_curve_create(ctx, STRATA_CURVE_MONOTONE, o->terrace_curve.x,
                                  o->terrace_curve.y, o->terrace_curve.n, curve),
              "--terrace-curve");
        t->curve = *curve;
    }
    t->sea = o->sea;
    t->sea_level = (float)o->sea_level;
}

/* The message of strata_terraces_heights' failure (or the height range's
 * before it) for the job's options. */
void job_terraces_check(const job *o, strata_status st)
{
    if (st == STRATA_OK)
        return;
    /* the height range is measured before the planes: its failure is the
     * surface's, not the terrace options' */
    const char *src = o->template_path ? o->template_path : o->heightmap;
    if (st == STRATA_ERR_NOT_FINITE && src)
        die(EXIT_RUNTIME,
            "%s '%s': a height is not a finite number (a NaN or infinite sample, or one that "
            "overflows a float times --height-scale)",
            o->template_path ? "template" : "heightmap", src);
    if (st == STRATA_ERR_NOT_FINITE)
        die(EXIT_RUNTIME, "a height is not a finite number: the noise overflows a float "
                          "(lower --amplitude)");
    const uint32_t n = (uint32_t)(o->levels.n ? (long long)o->levels.n : o->terraces);
    if (st == STRATA_ERR_BAD_LEVELS && o->sea && n >= STRATA_MAX_LEVELS)
        usage_error("--sea-level %s: %u planes already, and a plane at %.9g would make more than "
                    "the %u allowed",
                    cli_given("sea-level"), n, (double)(float)o->sea_level, STRATA_MAX_LEVELS);
    char why[128];
    snprintf(why, sizeof why,
             o->terrace_curve.n ? "the %u planes would not be strictly ascending (the "
                                  "curve must rise wherever planes fall)"
                                : "%u terraces are too many for the height range",
             n);
    check_call(st, (call){.what = o->levels.n ? "--levels"
                                  : o->terrace_curve.n ? "--terrace-curve"
                                                       : "--terraces",
                          .why = st == STRATA_ERR_BAD_LEVELS && !o->levels.n ? why : NULL});
}

strata_edits *job_edits(const job *o)
{
    if (!o->edits)
        return NULL;
    strata_edits *e;
    if (strata_edits_create(&e) != STRATA_OK)
        die(EXIT_RUNTIME, "out of memory");
    strata_edits_error err;
    const strata_status st = strata_edits_load(e, o->edits, &err);
    if (st == STRATA_ERR_FORMAT)
        die(EXIT_RUNTIME, "--edits '%s': line %llu: bad %s (see 'Edit logs' in README.md)",
            o->edits, (unsigned long long)err.line, err.field);
    if (st == STRATA_ERR_TOO_LARGE)
        die(EXIT_RUNTIME, "--edits '%s': more than %u dabs or %u MiB", o->edits,
            STRATA_EDITS_MAX, STRATA_EDITS_FILE_MAX >> 20);
    check_call(st, (call){.what = "edit log", .path = o->edits});
    return e;
}

/* --props: the options as given (their sizes are the caller's). */
void job_props(const job *o, strata_props_options *po)
{
    strata_props_defaults(po);
    po->density = o->props_density;
    po->noise_frequency = o->props_noise;
    po->seed = (uint32_t)o->props_seed;
    unsigned long long a = 0, b = UINT32_MAX; /* "A-B" or "A", checked when parsed */
    if (o->props_terraces && sscanf(o->props_terraces, "%llu-%llu", &a, &b) == 1)
        b = a;
    po->first_terrace = (uint32_t)a;
    po->last_terrace = (uint32_t)b;
    po->spacing = o->props_spacing;
    po->wall_foot = o->props_wall_foot;
    po->max_slope = (float)o->props_max_slope;
    double lo, hi; /* "LO:HI", checked when parsed */
    if (o->props_heights && sscanf(o->props_heights, "%lf:%lf", &lo, &hi) == 2) {
        po->min_height = (float)lo;
        po->max_height = (float)hi;
    }
}

/* --edits on the displaced mesh m: the planes the pipeline would spread
 * over the unedited heights made explicit (edits never move the planes),
 * then the dabs applied with the noise the mesh was displaced with.
 * levels: room for the planes, kept until the pipeline has run. */
static void apply_edits(strata_ctx *ctx, const job *o, strata_mesh *m, double extent,
                        strata_terraces *t, float **levels)
{
    strata_edits *e = job_edits(o);
    if (!e)
        return;
    if (t->count && !t->levels) {
        float lo, hi;
        uint32_t n = 0;
        job_terraces_check(o, strata_mesh_height_range(m, &lo, &hi));
        if (!(*levels = malloc(strata_terraces_bound(t) * sizeof **levels)))
            die(EXIT_RUNTIME, "out of memory");
        job_terraces_check(o, strata_terraces_heights(t, lo, hi, *levels, &n));
        t->levels = *levels; /* the sea's plane among them: adding it again adds nothing */
        t->nlevels = n;
        t->count = 0;
        t->curve = NULL;
    }
    strata_fbm f;
    job_noise(o, job_noise_extent(o, extent), &f);
    const int noisy = o->kind == JOB_PLANET || !o->heightmap || o->noise_given;
    strata_curve *curve = NULL;
    if (noisy && o->curve.n)
        check(strata_curve_create(ctx, STRATA_CURVE_MONOTONE, o->curve.x, o->curve.y, o->curve.n,
                                  &curve),
              "--curve");
    uint32_t nl = t->nlevels;
    const float *L = t->levels;
    float *sea = NULL;
    if (t->levels && t->sea) { /* the planes with the sea's, as the pipeline takes them */
        if (!(sea = malloc(strata_terraces_bound(t) * sizeof *sea)))
            die(EXIT_RUNTIME, "out of memory");
        job_terraces_check(o, strata_terraces_heights(t, 0, 0, sea, &nl));
        L = sea;
    }
    check_call(strata_mesh_apply_edits(ctx, m, e, noisy ? &f : NULL, curve, L, nl),
               (call){.what = "edit log", .path = o->edits});
    free(sea);
    strata_curve_destroy(curve);
    strata_edits_destroy(e);
}

static void displace(strata_ctx *ctx, const job *o, strata_mesh *m, double extent)
{
    strata_fbm f;
    job_noise(o, extent, &f);
    strata_curve *curve = NULL;
    if (o->curve.n)
        check(strata_curve_create(ctx, STRATA_CURVE_MONOTONE, o->curve.x, o->curve.y, o->curve.n,
                                  &curve),
              "--curve");
    check_mem(o,
              o->kind == JOB_PLANET ? strata_displace_radial(ctx, m, &f, curve)
                                    : strata_displace_flat(ctx, m, &f, curve),
              "displace");
    strata_curve_destroy(curve);
}

/* --water's outline: the polygon of --shape polygon as strata_shape_polygon
 * makes it, else none (the rectangle the result spans, or the planet's
 * sphere). */
static uint32_t water_outline(const job *o, float outline[2 * 64])
{
    if (o->kind != JOB_TERRAIN || o->heightmap || o->template_path || o->shape != SHAPE_POLYGON)
        return 0;
    const float rad = (float)(o->size / 2);
    const uint32_t n = (uint32_t)o->sides;
    for (uint32_t i = 0; i < n; i++) {
        const double ang = -2.0 * 3.14159265358979323846 * (double)i / (double)n;
        outline[2 * i] = (float)((double)rad * cos(ang));
        outline[2 * i + 1] = (float)((double)rad * sin(ang));
    }
    return n;
}

/* What the job's options ask of the library's pipeline.  The curve, the
 * props' options and the outline live in `keep` until the run is over. */
typedef struct keep {
    strata_curve *terrace_curve;
    strata_props_options props;
    float outline[2 * 64];
} keep;

static void pipeline_options(strata_ctx *ctx, const job *o, const strata_mesh *m,
                             const strata_palette *pal, keep *k, strata_pipeline_options *po)
{
    strata_pipeline_defaults(po);
    job_terraces(ctx, o, &po->terraces, &k->terrace_curve);
    po->walls = (strata_walls)o->walls;
    po->normals = o->normals;
    po->areas = o->stats;
    po->loops_path = o->loops;
    job_loops_frame(o, m, &po->loops_write);
    po->simplify_roofs = !o->simplify ? 0
                         : isnan(o->simplify_error) ? STRATA_SIMPLIFY_DEFAULT_ERROR
                                                    : o->simplify_error;
    po->solid = o->solid;
    po->solid_depth = (float)o->solid_depth;
    po->uv = o->uv;
    po->uv_texel = o->uv && !isnan(o->uv_texel) ? (float)o->uv_texel : 0.0f;
    po->water = o->water;
    po->water_npoints = water_outline(o, k->outline);
    po->water_outline = po->water_npoints ? k->outline : NULL;
    po->water_sphere_level =
        (uint32_t)(o->level < WATER_SPHERE_LEVEL ? o->level : WATER_SPHERE_LEVEL);
    po->shoreline = o->shore ? (float)o->shore_width : 0.0f;
    po->fit_size = isnan(o->print_size) ? 0.0 : o->print_size;
    if (o->props) {
        job_props(o, &k->props);
        po->props = &k->props;
        po->props_size[0] = 0.008; /* 0.8 to 1.2 % of the longest side */
        po->props_size[1] = 0.012;
        po->props_csv = o->props_csv;
    }
    po->optimize = o->optimize;
    po->ao = o->ao;
    po->ao_radius = o->ao && !isnan(o->ao_radius) ? (float)o->ao_radius : 0.0f;
    po->path = o->output;
    po->write.palette = pal;
    po->write.compress = o->compress;
    /* strata slice: the file in the input's frame, the preview y-up */
    po->up = o->kind == JOB_SLICE ? (strata_axis)o->up : STRATA_AXIS_Y;
    po->preview = o->preview;
    po->preview_options.view = (strata_preview_view)o->view;
    po->preview_options.size = (uint32_t)o->preview_size;
    po->preview_options.palette = pal;
}

/* A failed pipeline: the message of its stage. */
static void pipeline_check(const job *o, strata_status st, const strata_pipeline_report *rep)
{
    if (st == STRATA_OK)
        return;
    char why[160];
    switch (rep->failed) {
    case STRATA_STAGE_LEVELS:
        job_terraces_check(o, st);
        break;
    case STRATA_STAGE_SLICE:
        check_mem(o, st, "slice");
        break;
    case STRATA_STAGE_LOOPS:
        if (st == STRATA_ERR_BAD_MESH)
            check_call(st, (call){.what = o->loops ? "loops" : "--shoreline",
                                  .why = "the walls do not link into loops (an edge of three "
                                         "or more triangles)"});
        if (o->loops)
            check_call(st, (call){.path = o->loops, .write = true,
                                  .why = st == STRATA_ERR_INVALID_ARG
                                             ? "these loops cannot be written in that format"
                                             : NULL});
        check(st, "--shoreline");
        break;
    case STRATA_STAGE_SOLID:
        snprintf(why, sizeof why,
                 "the base %g below the lowest terrace is lost in float precision (give a "
                 "larger DEPTH)",
                 (double)rep->solid_depth);
        check_call(st, (call){.what = "--solid",
                              .why = st == STRATA_ERR_INVALID_ARG ? why
                                     : st == STRATA_ERR_BAD_MESH
                                         ? "the terrain's border is not one simple loop around "
                                           "a star-shaped footprint"
                                         : NULL});
        break;
    case STRATA_STAGE_UV:
        check_call(st, (call){.what = "--uv",
                              .why = st == STRATA_ERR_INVALID_ARG && !o->levels.n &&
                                             o->terraces + o->sea < 2 && isnan(o->uv_texel)
                                         ? "the surface has fewer than two planes to take a "
                                           "texel from (give --uv=TEXEL)"
                                     : st == STRATA_ERR_INVALID_ARG
                                         ? "the walls are not the slicer's quads"
                                     : st == STRATA_ERR_UNSUPPORTED
                                         ? "planets have no texture coordinates yet"
                                         : NULL});
        break;
    case STRATA_STAGE_WATER:
        check_call(st, (call){.what = "--water",
                              .why = st == STRATA_ERR_INVALID_ARG
                                         ? "the sea level lies at or below the planet's centre"
                                         : NULL});
        break;
    case STRATA_STAGE_COLOURS:
        check_call(st, (call){.what = o->style ? "--style" : "--colours"});
        break;
    case STRATA_STAGE_FIT:
        check_call(st, (call){.what = "--print-size",
                              .why = st == STRATA_ERR_OVERFLOW
                                         ? "the model would not fit float coordinates"
                                         : NULL});
        break;
    case STRATA_STAGE_PROPS:
        if (st == STRATA_ERR_IO)
            check_call(st, (call){.path = o->props_csv, .write = true});
        if (st == STRATA_ERR_OVERFLOW && o->props_spacing > 0)
            check_call(st, (call){.what = "--props-spacing",
                                  .why = "more than 4e9 candidates on the roofs: give a larger D"});
        check_call(st, (call){.what = "--props",
                              .why = st == STRATA_ERR_OVERFLOW
                                         ? "more than 2^32-1 props: lower DENSITY"
                                         : NULL});
        break;
    case STRATA_STAGE_AO:
        if (st == STRATA_ERR_TOO_LARGE)
            usage_error("--ao%s%s: RADIUS is too small for the extent of the surface (its "
                        "height grid, cells of RADIUS / %d, would have more than %u cells); "
                        "give a larger RADIUS",
                        cli_given("ao")[0] ? "=" : "", cli_given("ao"), STRATA_AO_STEPS,
                        STRATA_AO_MAX_GRID_CELLS);
        check_call(st, (call){.what = "--ao",
                              .why = st == STRATA_ERR_INVALID_ARG
                                         ? "the surface has fewer than two planes to take a "
                                           "radius from (give --ao=RADIUS)"
                                         : NULL});
        break;
    case STRATA_STAGE_WRITE:
        check_call(st, (call){.path = o->output, .write = true,
                              .why = st == STRATA_ERR_TOO_LARGE
                                         ? "over the 4 GiB limit of .glb files (write .ply "
                                           "instead or use fewer triangles)"
                                         : NULL});
        break;
    case STRATA_STAGE_PREVIEW:
        check_call(st, (call){.path = o->preview, .write = true,
                              .why = st == STRATA_ERR_UNSUPPORTED
                                         ? "this strata was built without a PNG library"
                                         : NULL});
        break;
    default:
        break;
    }
    static const char *const option[STRATA_STAGE_COUNT_] = {
        [STRATA_STAGE_SIMPLIFY] = "--simplify-roofs", [STRATA_STAGE_SHORELINE] = "--shoreline",
        [STRATA_STAGE_OPTIMIZE] = "optimize"};
    check(st, option[rep->failed] ? option[rep->failed] : strata_stage_name(rep->failed));
}

/* The surface's making before the pipeline: build, then displace. */
typedef struct made {
    double seconds;
    uint64_t faults, peak_rss; /* as strata_pipeline_report's */
} made;

/* Starts (end = 0) or ends the measure of one step of the making. */
static void made_mark(made *d, int end)
{
    struct rusage ru;
    const uint64_t faults = getrusage(RUSAGE_SELF, &ru) == 0
                                ? (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt
                                : 0;
    if (!end) {
        d->seconds = now();
        d->faults = faults;
        return;
    }
    d->seconds = now() - d->seconds;
    d->faults = faults - d->faults;
    d->peak_rss = faults ? (uint64_t)ru.ru_maxrss * 1024u : 0;
}

/* --stats' time.*, faults.* and peak_rss_bytes.* of each step. */
static void print_steps(FILE *e, const strata_pipeline_report *rep, const made mk[2])
{
    static const char *const name[2] = {"build", "displace"};
    double total = 0;
    for (int s = 0; s < 2; s++) {
        fprintf(e, "time.%s=%.6f\nfaults.%s=%llu\npeak_rss_bytes.%s=%llu\n", name[s],
                mk[s].seconds, name[s], (unsigned long long)mk[s].faults, name[s],
                (unsigned long long)mk[s].peak_rss);
        total += mk[s].seconds;
    }
    for (int s = 0; s < STRATA_STAGE_COUNT_; s++)
        if (rep->ran & (1u << s)) {
            const char *n = strata_stage_name((strata_stage)s);
            fprintf(e, "time.%s=%.6f\nfaults.%s=%llu\npeak_rss_bytes.%s=%llu\n", n,
                    rep->seconds[s], n, (unsigned long long)rep->faults[s], n,
                    (unsigned long long)rep->peak_rss[s]);
            total += rep->seconds[s];
        }
    fprintf(e, "time.total=%.6f\n", total);
}

/* --stats: key=value lines on stderr. */
static void print_stats(const job *o, strata_ctx *ctx, const strata_mesh *m,
                        const strata_result *r, const strata_props *props,
                        const strata_pipeline_report *rep, const made mk[2])
{
    FILE *e = stderr;
    print_steps(e, rep, mk);
    fprintf(e, "threads=%d\nisa=%s\n", strata_ctx_threads(ctx),
            strata_isa_name(strata_ctx_isa(ctx)));
    strata_result_view v;
    strata_result_get_view(r, &v);
    fprintf(e, "input.vertices=%u\ninput.triangles=%u\n", strata_mesh_vertex_count(m),
            strata_mesh_triangle_count(m));
    fprintf(e, "vertices=%u\ntriangles=%llu\nterraces=%u\n", v.nverts,
            (unsigned long long)(v.nindices / 3), v.nterraces);
    const strata_arena_stats *a = &rep->arena;
    if (a->arenas) /* sliced: the per-thread arenas of the cut triangles */
        fprintf(e, "arena.count=%u\narena.blocks=%llu\narena.bytes_reserved=%llu\n"
                   "arena.bytes_used=%llu\narena.bytes_wasted=%llu\n",
                a->arenas, (unsigned long long)a->blocks, (unsigned long long)a->bytes_reserved,
                (unsigned long long)a->bytes_used, (unsigned long long)a->bytes_wasted);
    struct stat sb;
    if (stat(o->output, &sb) == 0) {
        fprintf(e, "output.bytes=%lld\n", (long long)sb.st_size);
        if ((rep->ran & (1u << STRATA_STAGE_WRITE)) && rep->seconds[STRATA_STAGE_WRITE] > 0)
            fprintf(e, "write.mb_per_s=%.1f\n",
                    (double)sb.st_size / 1e6 / rep->seconds[STRATA_STAGE_WRITE]);
    }
    for (uint32_t k = 0; k < v.nterraces; k++) {
        const strata_terrace *tr = &v.terraces[k];
        fprintf(e,
                "terrace.%u.level=%.9g\nterrace.%u.roof_triangles=%llu\n"
                "terrace.%u.wall_triangles=%llu\nterrace.%u.roof_area=%.9g\n"
                "terrace.%u.wall_area=%.9g\n",
                k, (double)tr->level, k, (unsigned long long)(tr->roof_count / 3), k,
                (unsigned long long)(tr->wall_count / 3), k, tr->roof_area, k, tr->wall_area);
    }
    if (o->simplify)
        fprintf(e,
                "simplify.roof_triangles_before=%llu\nsimplify.roof_triangles_after=%llu\n"
                "simplify.roofs_kept=%u\nsimplify.max_error=%.3g\n",
                (unsigned long long)rep->simplify.roof_triangles_before,
                (unsigned long long)rep->simplify.roof_triangles_after,
                rep->simplify.roofs_kept, rep->simplify.max_error);
    const strata_solid_stats *sst = &rep->solid;
    if (o->solid)
        fprintf(e,
                "solid.base=%.9g\nsolid.border_points=%u\nsolid.triangles=%llu\n"
                "solid.vertices_merged=%u\nsolid.fins_removed=%llu\n",
                (double)sst->base, sst->border_points, (unsigned long long)sst->triangles_added,
                sst->vertices_merged, (unsigned long long)sst->fins_removed);
    if (!isnan(o->print_size))
        fprintf(e, "print.factor=%.9g\n", rep->fit_factor);
    if (o->water)
        fprintf(e, "water.triangles=%llu\n", (unsigned long long)(v.water_count / 3));
    if (o->shore)
        fprintf(e, "shoreline.vertices=%u\nshoreline.triangles=%llu\n", v.nuv,
                (unsigned long long)(v.shore_count / 3));
    if (props) {
        strata_props_view pv;
        strata_props_get_view(props, &pv);
        fprintf(e, "props.count=%llu\n", (unsigned long long)pv.count);
    }
    if (o->optimize)
        fprintf(e, "optimize.cache_size=%u\noptimize.acmr_before=%.4f\noptimize.acmr_after=%.4f\n",
                STRATA_OPTIMIZE_CACHE_SIZE, rep->optimize.acmr_before, rep->optimize.acmr_after);
}

/* What was written, unless --quiet. */
static void print_written(const job *o, const strata_result *r, const strata_props *props)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    fprintf(stderr, "strata: wrote %s: %u vertices, %llu triangles, %u terrace%s\n", o->output,
            v.nverts, (unsigned long long)(v.nindices / 3), v.nterraces,
            v.nterraces == 1 ? "" : "s");
    if (o->preview)
        fprintf(stderr, "strata: wrote %s: %lldx%lld pixels\n", o->preview, o->preview_size,
                o->preview_size);
    if (props && o->props_csv) {
        strata_props_view pv;
        strata_props_get_view(props, &pv);
        fprintf(stderr, "strata: wrote %s: %llu props\n", o->props_csv,
                (unsigned long long)pv.count);
    }
}

static int run(job *o)
{
    strata_fbm f;
    if (o->kind == JOB_PLANET || (o->kind == JOB_TERRAIN && !o->heightmap && !o->template_path))
        job_noise(o, o->kind == JOB_PLANET ? o->radius : o->size, &f); /* usage errors first */
    if (o->loops && o->terraces == 0 && !o->levels.n)
        usage_error("--loops %s needs terraces (--terraces 0 makes no walls)", o->loops);
    job_check_loops(o);
    check_outputs(o);
    if (o->optimize && !strata_optimize_supported())
        die(EXIT_RUNTIME, "--optimize: this strata was built without meshoptimizer");
    strata_palette pal;
    job_palette(o, &pal);
    strata_colours *rules = job_colours(o);

    interrupt_catch();
    strata_ctx *ctx = job_ctx(o);
    check(strata_ctx_set_threads(ctx, (int)o->threads), "--threads");
    interrupt_watch(ctx);
    check_interrupt(); /* a Ctrl-C while the context was made */
    progress_start(ctx, o->quiet);

    made mk[2];
    double extent = 1;
    made_mark(&mk[0], 0);
    strata_mesh *m = build(ctx, o, &extent);
    check_interrupt();
    made_mark(&mk[0], 1);
    made_mark(&mk[1], 0);
    /* noise: always on planets and shapes; on heightmaps only when a noise
     * option is given; on templates by default (their detail) */
    if (o->kind != JOB_SLICE && (o->kind == JOB_PLANET || !o->heightmap || o->noise_given))
        displace(ctx, o, m, job_noise_extent(o, extent));
    check_interrupt();
    made_mark(&mk[1], 1);

    keep k = {0};
    strata_pipeline_options po;
    pipeline_options(ctx, o, m, &pal, &k, &po);
    po.colours = rules;
    float *edit_levels = NULL;
    if (o->kind != JOB_SLICE)
        apply_edits(ctx, o, m, extent, &po.terraces, &edit_levels);
    check_interrupt();
    check_grows(o, m, &po);
    strata_result *r = NULL;
    strata_props *props = NULL;
    strata_pipeline_report rep;
    pipeline_check(o, strata_pipeline_run(ctx, m, &po, &r, &props, &rep), &rep);
    progress_clear();
    if (o->stats)
        print_stats(o, ctx, m, r, props, &rep, mk);
    if (!o->quiet)
        print_written(o, r, props);
    interrupt_watch(NULL);
    strata_curve_destroy(k.terrace_curve);
    strata_colours_destroy(rules);
    free(edit_levels);
    strata_props_destroy(props);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------ info */

int run_planet(job *j)
{
    j->kind = JOB_PLANET;
    return j->chunk_level >= 0 ? run_world(j) : run(j);
}

int run_terrain(job *j)
{
    j->kind = JOB_TERRAIN;
    return j->tile_cells >= 0 ? run_world(j) : run(j);
}

int run_slice(job *j)
{
    j->kind = JOB_SLICE;
    return run(j);
}

int run_info(job *o)
{
    strata_ctx *ctx = job_ctx(o);
    char avail[64];
    isa_list(avail, sizeof avail);
    printf("version: %s\n", strata_version());
    printf("isa: %s\n", strata_isa_name(strata_ctx_isa(ctx)));
    printf("isa_reason: %s\n", strata_ctx_isa_reason(ctx));
    printf("isas: %s\n", avail);
    printf("threads: %d\n", strata_ctx_threads(ctx));
    char binding[256];
    strata_ctx_binding(ctx, binding, sizeof binding);
    printf("binding: %s\n", binding);
    printf("meshoptimizer: %s\n", strata_optimize_supported() ? "yes" : "no");
    const unsigned png = strata_png_support();
    printf("png: %s\n", (png & STRATA_PNG_OPEN)     ? "yes (heightmaps of any size)"
                        : (png & STRATA_PNG_DECODE) ? "yes (heightmaps of up to 2^28 samples)"
                                                    : "no");
    printf("gdal: %s\n", strata_gdal_support() ? "yes (heightmaps from GeoTIFF and other rasters)"
                                                : "no");
    strata_ctx_destroy(ctx);
#ifdef _OPENMP
    printf("openmp: yes\n");
#else
    printf("openmp: no\n");
#endif
#ifdef HAVE_MPI
    printf("mpi: yes (worlds shared by the ranks of mpirun)\n");
#else
    printf("mpi: no\n");
#endif
#ifdef HAVE_HWLOC
    printf("hwloc: yes\n");
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0) {
        static const struct { const char *key; hwloc_obj_type_t type; } rows[] = {
            {"packages", HWLOC_OBJ_PACKAGE},  {"cores", HWLOC_OBJ_CORE},
            {"pus", HWLOC_OBJ_PU},            {"numa_nodes", HWLOC_OBJ_NUMANODE},
            {"l3_caches", HWLOC_OBJ_L3CACHE},
        };
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            printf("%s: %d\n", rows[i].key, hwloc_get_nbobjs_by_type(topo, rows[i].type));
        hwloc_topology_destroy(topo);
    } else {
        printf("topology: unavailable\n");
    }
#else
    printf("hwloc: no\n");
#ifdef _SC_NPROCESSORS_ONLN
    printf("pus: %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
#endif
#endif
    return EXIT_SUCCESS;
}
