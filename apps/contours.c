/* strata contours (a heightmap's contour lines, band polygons or SVG
 * layers) and --loops of the mesh commands: the library's edge loops
 * (strata_loops_*) written by strata_loops_write. */
#define _POSIX_C_SOURCE 200809L

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "fail.h"
#include "progress.h"
#include "run.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The contour levels the options ask for over heights [hmin, hmax], with
 * a floor plane below them all first (the slicer cuts nothing at its
 * lowest plane): *n planes, malloc'ed. */
static float *contour_levels(const job *o, float hmin, float hmax, uint32_t *n)
{
    float *L = NULL;
    if (o->levels.n || !isnan(o->interval)) {
        size_t cnt = o->levels.n;
        double k0 = 0;
        if (!o->levels.n) { /* B + k I within [hmin, hmax] */
            k0 = ceil(((double)hmin - o->base) / o->interval);
            const double k1 = floor(((double)hmax - o->base) / o->interval);
            /* B + k I is exact for |k| below 2^52 intervals; beyond, levels
             * one interval apart round to one double (--base 1e30
             * --interval 1 gave one level for 19) */
            if (fabs(k0) >= 0x1p52 || fabs(k1) >= 0x1p52)
                usage_error("--base %s: %.3g intervals (--interval %s) away from the heights "
                            "%g..%g, too far for levels one interval apart to be told apart "
                            "(at most 2^52 intervals); give a base near the heights, such as "
                            "0",
                            cli_given("base") ? cli_given("base") : "0",
                            fabs(k0) > fabs(k1) ? fabs(k0) : fabs(k1), cli_given("interval"),
                            hmin, hmax);
            const double want = k1 >= k0 ? k1 - k0 + 1 : 0;
            if (want > STRATA_MAX_LEVELS - 1)
                usage_error("--interval %s: %.0f levels between the heights %g and %g, at most "
                            "%u",
                            cli_given("interval"), want, hmin, hmax, STRATA_MAX_LEVELS - 1);
            cnt = (size_t)want;
        }
        if (!(L = malloc((cnt + 1) * sizeof *L)))
            die(EXIT_RUNTIME, "out of memory");
        for (size_t i = 0; i < cnt; i++)
            L[i + 1] = o->levels.n ? o->levels.v[i]
                                   : (float)(o->base + (k0 + (double)i) * o->interval);
        for (size_t i = 1; i < cnt; i++)
            if (!(L[i + 1] > L[i]))
                usage_error("--interval %s: levels %.9g and %.9g are the same 32-bit float (%.9g), "
                            "the precision of heights there: give an interval of at least %.3g",
                            cli_given("interval"), o->base + (k0 + (double)i - 1) * o->interval,
                            o->base + (k0 + (double)i) * o->interval, (double)L[i],
                            (double)(nextafterf(L[i], INFINITY) - L[i]));
        const float low = cnt && L[1] < hmin ? L[1] : hmin;
        L[0] = nextafterf(low, -INFINITY);
        if (!isfinite(L[0]))
            die(EXIT_RUNTIME, "heights reach the float range's end");
        *n = (uint32_t)cnt + 1;
        return L;
    }
    strata_terraces t;
    strata_curve *none;
    job_terraces(NULL, o, &t, &none); /* --terraces alone here */
    if (!(L = malloc(strata_terraces_bound(&t) * sizeof *L)))
        die(EXIT_RUNTIME, "out of memory");
    job_terraces_check(o, strata_terraces_heights(&t, hmin, hmax, L, n));
    return L;
}

/* How the contours of a w x h raster are written: map coordinates X =
 * column x cell, Y = (h-1-row) x cell, the grid's corners as
 * strata_shape_grid places them, the heights' span and the corner's. */
static void contours_frame(const job *o, uint32_t w, uint32_t h, float corner, float hmin,
                           float hmax, strata_loops_write_options *wo)
{
    strata_loops_write_defaults(wo);
    wo->polygons = o->polygons;
    wo->origin[0] = 0.5 * (double)(w - 1) * o->cell_size;
    wo->origin[1] = 0.5 * (double)(h - 1) * o->cell_size;
    wo->has_domain = 1;
    wo->domain[0] = (float)(-0.5 * (double)(w - 1) * (float)o->cell_size);
    wo->domain[1] = (float)(-0.5 * (double)(h - 1) * (float)o->cell_size);
    wo->domain[2] = (float)(0.5 * (double)(w - 1) * (float)o->cell_size);
    wo->domain[3] = (float)(0.5 * (double)(h - 1) * (float)o->cell_size);
    wo->corner_height = corner;
    wo->height_min = hmin;
    wo->height_max = hmax;
    wo->svg_scale = o->svg_scale;
}

/* The GDAL formats' map (o->driver set): the raster's own coordinates
 * where it has a geotransform g, with sample (col, row) at its pixel's
 * centre, g0 + (col + 0.5) g1 + (row + 0.5) g2 (and Y likewise), col =
 * (x - x0) / cell for the grid's first corner (x0, z0) = wo->domain:
 * written as the affine map of (x, z) in wo->transform; in CRS
 * (--crs native), or reprojected to longitude, latitude (the default
 * with a CRS).  Without a geotransform, the frame of contours_frame. */
static void contours_georef(const job *o, const strata_heightmap_info *info, const char *crs,
                            strata_loops_write_options *wo)
{
    wo->format = STRATA_LOOPS_OGR;
    wo->driver = o->driver;
    if (!info->georeferenced)
        return;
    const double *g = info->geotransform, c = (double)(float)o->cell_size;
    const double x0 = wo->domain[0], z0 = wo->domain[1];
    double *t = wo->transform;
    t[1] = g[1] / c;
    t[2] = g[2] / c;
    t[0] = g[0] + 0.5 * g[1] + 0.5 * g[2] - t[1] * x0 - t[2] * z0;
    t[4] = g[4] / c;
    t[5] = g[5] / c;
    t[3] = g[3] + 0.5 * g[4] + 0.5 * g[5] - t[4] * x0 - t[5] * z0;
    wo->has_transform = 1;
    wo->crs = crs;
    wo->lonlat = crs && o->crs != CONTOURS_CRS_NATIVE;
}

/* --crs against what the raster is: usage errors. */
static void check_crs(const job *o, const strata_heightmap_info *info)
{
    const char *v = cli_given("crs");
    if (v && !info->georeferenced)
        usage_error("--crs %s: '%s' is not georeferenced (no geotransform, as PGM, PFM and PNG "
                    "heightmaps), so its contours have no CRS: leave --crs out",
                    v, o->input);
    if (o->crs == CONTOURS_CRS_LONLAT && !info->crs_wkt)
        usage_error("--crs lonlat: '%s' has a geotransform but no CRS, so its points have no "
                    "longitude and latitude; leave --crs out for the raster's own coordinates",
                    o->input);
}

/* What the raster says for the contours: --crs checked against it, the
 * cell size it implies (as strata terrain takes it), the GDAL driver of
 * GeoJSON where it has a geotransform (its contours are written in its
 * coordinates, through GDAL); its CRS, malloc'ed (NULL: none). */
static char *contours_raster(job *o, const strata_heightmap *hm, strata_heightmap_info *info)
{
    strata_heightmap_get_info(hm, info);
    check_crs(o, info);
    job_raster_defaults(o, hm);
    char *crs = info->crs_wkt ? strdup(info->crs_wkt) : NULL;
    if (info->crs_wkt && !crs)
        die(EXIT_RUNTIME, "out of memory");
    const size_t olen = strlen(o->output);
    if (info->georeferenced && !o->driver &&
        !(olen >= 4 && !strcasecmp(o->output + olen - 4, ".svg"))) {
        const char *driver;
        check(strata_loops_ogr_driver(o->output, "GeoJSON", &driver), "GeoJSON");
        o->driver = driver;
    }
    return crs;
}

/* check_call for strata_loops_write's status st (crs: the raster's). */
static void check_written(const job *o, strata_status st, const char *crs)
{
    char refused[160];
    snprintf(refused, sizeof refused,
             "GDAL's %s driver cannot hold a layer of %s; choose another format, such as .gpkg, "
             ".fgb or .geojson",
             o->driver ? o->driver : "", o->polygons ? "MultiPolygons" : "LineStrings");
    const char *why = NULL;
    if (st == STRATA_ERR_NOT_FINITE)
        why = "a point has no longitude and latitude in the raster's CRS (write that CRS with "
              "--crs native)";
    else if (st == STRATA_ERR_INVALID_ARG && crs)
        why = "GDAL cannot read the raster's CRS or transform it to longitude and latitude";
    else if (st == STRATA_ERR_UNSUPPORTED && o->driver)
        why = refused;
    check_call(st, (call){.path = o->output, .write = true, .why = why});
}

/* --stats: the map of a georeferenced raster's contours. */
static void print_map(const strata_loops_write_options *wo)
{
    if (wo->has_transform)
        fprintf(stderr, "map.transform=%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\nmap.crs=%s\n",
                wo->transform[0], wo->transform[1], wo->transform[2], wo->transform[3],
                wo->transform[4], wo->transform[5],
                wo->lonlat ? "lonlat" : wo->crs ? "native" : "none");
}

int run_contours(job *o)
{
    if (cli_given("interval") && cli_given("terraces"))
        usage_error("--interval %s and --terraces %s cannot be used together",
                    cli_given("interval"), cli_given("terraces"));
    interrupt_catch();
    strata_ctx *ctx = job_ctx(o);
    check(strata_ctx_set_threads(ctx, (int)o->threads), "--threads");
    interrupt_watch(ctx);
    progress_start(ctx, o->quiet);
    double t[5];
    t[0] = now();
    /* opened: a PGM or PFM stays in its file, read a strip at a time */
    strata_heightmap *hm;
    const strata_status lst = strata_heightmap_open(ctx, o->input, &hm);
    check_call(lst, (call){.what = "heightmap", .path = o->input});
    const uint32_t w = strata_heightmap_width(hm), h = strata_heightmap_height(hm);
    strata_heightmap_info info;
    char *crs = contours_raster(o, hm, &info);
    const size_t olen = strlen(o->output);
    const bool svg = olen >= 4 && !strcasecmp(o->output + olen - 4, ".svg");
    check_interrupt();
    t[1] = now();
    /* heights as strata_mesh_from_heightmap makes them: sample x scale */
    float lo, hi;
    check(strata_heightmap_range(hm, &lo, &hi), "heights");
    const float scale = (float)o->height_scale;
    float hmin = scale >= 0 ? lo * scale : hi * scale, hmax = scale >= 0 ? hi * scale : lo * scale;
    float corner;
    check(strata_heightmap_read(hm, 0, 0, 1, 1, &corner), "heights");
    corner *= scale;
    if (!isfinite(hmin) || !isfinite(hmax))
        die(EXIT_RUNTIME, "heightmap '%s': a sample times --height-scale is not a finite float",
            o->input);
    uint32_t n;
    float *L = contour_levels(o, hmin, hmax, &n);
    /* Nodata samples (GDAL rasters): no contour passes through a cell
     * with a nodata corner.  Lines come from the grid mesh without those
     * triangles (strata_mesh_from_heightmap), ending where the holes
     * begin; areas (band polygons, SVG layers) need heights everywhere. */
    const bool areas = o->polygons || svg;
    if (info.nodata && areas)
        die(EXIT_RUNTIME,
            "heightmap '%s': %llu nodata samples; %s need a height at every sample (contour "
            "lines, without %s, stop at the holes)",
            o->input, (unsigned long long)info.nodata,
            o->polygons ? "band polygons" : "SVG layers", o->polygons ? "--polygons" : ".svg");
    /* areas interpolate across the whole span: it must be a float */
    if (areas && !isfinite(hmax - hmin))
        die(EXIT_RUNTIME,
            "heightmap '%s': heights %g to %g span more than the largest float (%g); %s need a "
            "span that is one: scale the heights down (--height-scale)",
            o->input, (double)hmin, (double)hmax, (double)FLT_MAX,
            o->polygons ? "band polygons" : "SVG layers");
    strata_loops_write_options wo;
    contours_frame(o, w, h, corner, hmin, hmax, &wo);
    if (o->driver)
        contours_georef(o, &info, crs, &wo);
    const char *why_nf = "a sample times --height-scale is not a finite float";
    /* GeoJSON lines without holes: made and written a plane at a time */
    const bool geojson =
        !o->driver && ((olen >= 8 && !strcasecmp(o->output + olen - 8, ".geojson")) ||
                       (olen >= 5 && !strcasecmp(o->output + olen - 5, ".json")));
    /* --stats: per level, the lines' summed lengths, closed and open */
    double *plen = o->stats ? calloc(n, sizeof *plen) : NULL;
    uint64_t *pclosed = o->stats ? calloc(n, sizeof *pclosed) : NULL;
    uint64_t *popen = o->stats ? calloc(n, sizeof *popen) : NULL;
    if (o->stats && (!plen || !pclosed || !popen))
        die(EXIT_RUNTIME, "out of memory");
    strata_loops *l = NULL;
    uint64_t nloops = 0, npoints = 0;
    if (!info.nodata && !areas && geojson) {
        strata_loops_stats ls = {0, 0, plen, pclosed, popen};
        const strata_status sst = strata_loops_write_heightmap(
            ctx, hm, (float)o->cell_size, scale, L, n, o->output, &wo, &ls);
        /* the file's errors (I/O, memory) as strata_loops_write's, the
         * grid's as strata_loops_from_heightmap's */
        const bool file = sst == STRATA_ERR_IO || sst == STRATA_ERR_NOMEM;
        check_call(sst, (call){.what = "contours",
                               .path = file ? o->output : NULL,
                               .write = file,
                               .why = sst == STRATA_ERR_NOT_FINITE ? why_nf : NULL});
        strata_heightmap_destroy(hm);
        check_interrupt();
        nloops = ls.nloops;
        npoints = ls.npoints;
        t[2] = t[3] = now(); /* made and written together: time.loops */
    } else {
        strata_status cst;
        if (info.nodata) {
            strata_mesh *m;
            cst = strata_mesh_from_heightmap(ctx, hm, (float)o->cell_size, scale, &m);
            if (cst == STRATA_OK) {
                cst = strata_loops_from_mesh(ctx, m, L, n, &l);
                strata_mesh_destroy(m);
            }
        } else {
            cst = strata_loops_from_heightmap(ctx, hm, (float)o->cell_size, scale, L, n, &l);
        }
        check_call(cst, (call){.what = "contours",
                               .why = cst == STRATA_ERR_NOT_FINITE ? why_nf : NULL});
        strata_heightmap_destroy(hm);
        check_interrupt();
        t[2] = now();
        check_written(o, strata_loops_write(ctx, l, o->output, &wo), crs);
        t[3] = now();
        strata_loops_view v;
        strata_loops_get_view(l, &v);
        nloops = v.nloops;
        npoints = v.npoints;
        if (o->stats)
            for (uint32_t k = 1; k < v.nplanes; k++)
                for (uint64_t i = v.plane_first[k]; i < v.plane_first[k + 1]; i++) {
                    plen[k] += v.loops[i].length;
                    pclosed[k] += v.loops[i].closed;
                    popen[k] += !v.loops[i].closed;
                }
    }
    progress_clear();
    if (o->stats) {
        fprintf(stderr,
                "input=%ux%u\nlevels=%u\nloops=%llu\npoints=%llu\ntime.load=%.6f\n"
                "time.loops=%.6f\ntime.write=%.6f\ntime.total=%.6f\n",
                w, h, n - 1, (unsigned long long)nloops, (unsigned long long)npoints,
                t[1] - t[0], t[2] - t[1], t[3] - t[2], t[3] - t[0]);
        print_map(&wo);
        for (uint32_t k = 1; k < n; k++)
            fprintf(stderr, "level.%u=%.9g length=%.9g closed=%llu open=%llu\n", k, L[k],
                    plen[k] * o->cell_size / o->cell_size, (unsigned long long)pclosed[k],
                    (unsigned long long)popen[k]);
    }
    if (!o->quiet)
        fprintf(stderr, "strata: wrote %s: %llu %s, %u level%s\n", o->output,
                (unsigned long long)nloops, nloops == 1 ? "line" : "lines", n - 1,
                n == 2 ? "" : "s");
    interrupt_watch(NULL);
    free(L);
    free(crs);
    free(plen);
    free(pclosed);
    free(popen);
    strata_loops_destroy(l);
    strata_ctx_destroy(ctx);
    return EXIT_SUCCESS;
}

void job_check_loops(const job *o)
{
    if (!o->loops)
        return;
    if (strcmp(o->loops, o->output) == 0)
        usage_error("--loops %s: the same file as -o", o->loops);
}

/* Where --loops puts the loops of a mesh command: strata slice writes OBJ
 * in the input's frame, as its mesh; a heightmap terrain's map
 * coordinates are those of strata contours (X = column x cell, Y =
 * (h-1-row) x cell). */
void job_loops_frame(const job *o, const strata_mesh *m, strata_loops_write_options *wo)
{
    strata_loops_write_defaults(wo);
    if (o->kind == JOB_SLICE)
        wo->up = o->up;
    if (o->kind == JOB_TERRAIN && o->heightmap) {
        strata_mesh_view mv;
        strata_mesh_get_view(m, &mv);
        wo->origin[0] = -(double)mv.x[0];
        wo->origin[1] = (double)mv.z[mv.nverts - 1];
    }
}
