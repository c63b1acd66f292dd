/* Edge loops written through GDAL/OGR (strata_loops_write with
 * STRATA_LOOPS_OGR): contour lines or band polygons as one layer of any
 * vector format GDAL writes, in the raster's CRS or reprojected to
 * longitude and latitude.
 *
 * Points go from the mesh's frame (x, z) through the caller's affine map
 * in double (a UTM easting of 600000 m keeps its millimetres, which a
 * float would round to 6 cm), then, for lon/lat, through one OSR
 * transformation per feature.  The band polygons are the regions of
 * core/loops/bands.h traced in the frame X = x, Y = -z, which floats hold
 * exactly, so a ring's points are the loops' own bits before the map.
 *
 * GDAL writes into a fresh directory beside the destination (a format
 * may make side files: a Shapefile's .shx, .dbf, .prj), whose files are
 * renamed into place only once the dataset is closed without error.
 * GeoJSON in longitude and latitude is RFC 7946's, written by strata
 * itself (write_text): no "crs" member, 7 decimals (1.1 cm), every band a
 * MultiPolygon; GDAL's GeoJSON writer takes some ten times as long as
 * the reprojection, and its RFC7946=YES turns a MultiPolygon of one
 * polygon into a Polygon. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "base/alloc.h"
#include "base/ctx.h"
#include "base/shortest.h"
#include "io/gdal.h"
#include "io/write.h"
#include "loops/bands.h"
#include "loops/loops.h"
#include "simd/slice.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_GDAL
#include <cpl_error.h>
#include <dirent.h>
#include <fcntl.h>
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <stdio.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ drivers */

/* ext (no dot) is one of the driver's extensions. */
static int lists_extension(GDALDriverH d, const char *ext)
{
    const char *list = GDALGetMetadataItem(d, GDAL_DMD_EXTENSIONS, NULL);
    if (!list)
        list = GDALGetMetadataItem(d, GDAL_DMD_EXTENSION, NULL);
    const size_t n = strlen(ext);
    for (const char *p = list; p && *p;) {
        while (*p == ' ')
            p++;
        const char *e = p;
        while (*e && *e != ' ')
            e++;
        if ((size_t)(e - p) == n && n && strncasecmp(p, ext, n) == 0)
            return 1;
        p = e;
    }
    return 0;
}

static int writes_vectors(GDALDriverH d)
{
    return d && GDALGetMetadataItem(d, GDAL_DCAP_VECTOR, NULL) &&
           GDALGetMetadataItem(d, GDAL_DCAP_CREATE, NULL);
}

static GDALDriverH find_driver(const char *path, const char *name)
{
    strata__gdal_register();
    if (name) {
        GDALDriverH d = GDALGetDriverByName(name);
        return writes_vectors(d) ? d : NULL;
    }
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        return NULL;
    for (int i = 0; i < GDALGetDriverCount(); i++) {
        GDALDriverH d = GDALGetDriver(i);
        if (writes_vectors(d) && lists_extension(d, dot + 1))
            return d;
    }
    return NULL;
}

strata_status strata_loops_ogr_driver(const char *path, const char *name, const char **driver)
{
    if (!path || !driver)
        return STRATA_ERR_INVALID_ARG;
    GDALDriverH d = find_driver(path, name);
    if (!d)
        return STRATA_ERR_UNSUPPORTED;
    *driver = GDALGetDriverShortName(d);
    return STRATA_OK;
}

/* ------------------------------------------------------------ points */

/* Where a feature's points are mapped: the affine map t, then (ct) to
 * lon/lat; reverse: written backwards (the map mirrors). */
typedef struct {
    double t[6];
    OGRCoordinateTransformationH ct;
    int reverse;
    double *X, *Y;
    size_t cap;
    const strata_allocator *al;
} point_map;

static int map_room(point_map *m, size_t n)
{
    if (n <= m->cap)
        return 1;
    const size_t cap = n > 2 * m->cap ? n : 2 * m->cap;
    double *X = strata__alloc_array(m->al, cap, sizeof *X);
    double *Y = strata__alloc_array(m->al, cap, sizeof *Y);
    if (!X || !Y) {
        strata__free(m->al, X);
        strata__free(m->al, Y);
        return 0;
    }
    strata__free(m->al, m->X);
    strata__free(m->al, m->Y);
    m->X = X;
    m->Y = Y;
    m->cap = cap;
    return 1;
}

/* Point i of n from the mesh's (x, z), at its place in the written order. */
static inline void map_put(point_map *m, size_t i, size_t n, float x, float z)
{
    const size_t j = m->reverse ? n - 1 - i : i;
    m->X[j] = m->t[0] + m->t[1] * x + m->t[2] * z;
    m->Y[j] = m->t[3] + m->t[4] * x + m->t[5] * z;
}

/* The n points mapped so far reprojected: 0 where one has no lon/lat. */
static int map_project(point_map *m, size_t n)
{
    if (!m->ct || n == 0)
        return 1;
    if (!OCTTransform(m->ct, (int)n, m->X, m->Y, NULL))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(m->X[i]) || !isfinite(m->Y[i]))
            return 0;
    return 1;
}

/* The whole map's orientation near (x, z): -1 where it mirrors, 0 where
 * a point has no lon/lat. */
static int map_orientation(point_map *m, double x, double z, double d)
{
    double X[3], Y[3];
    const double px[3] = {x, x + d, x}, pz[3] = {z, z, z - d}; /* east, north */
    for (int i = 0; i < 3; i++) {
        X[i] = m->t[0] + m->t[1] * px[i] + m->t[2] * pz[i];
        Y[i] = m->t[3] + m->t[4] * px[i] + m->t[5] * pz[i];
    }
    if (m->ct && !OCTTransform(m->ct, 3, X, Y, NULL))
        return 0;
    const double det = (X[1] - X[0]) * (Y[2] - Y[0]) - (Y[1] - Y[0]) * (X[2] - X[0]);
    return !isfinite(det) || det == 0 ? 0 : det > 0 ? 1 : -1;
}

/* ------------------------------------------------------------ features */

/* Where the features go: an OGR layer, or (out set) RFC 7946 GeoJSON
 * text that strata writes itself, GDAL's GeoJSON writer being some ten
 * times slower than the reprojection. */
typedef struct {
    strata_ctx *ctx;
    const strata_loops *l;
    const strata_loops_write_options *opt;
    OGRLayerH layer;
    strata_out *out;
    int started; /* out: a feature is written */
    point_map map;
    strata_status st;
} ogr_job;

/* A level as the double of its shortest float decimal. */
static double level_value(float v)
{
    char buf[32];
    *strata__put_float(buf, v) = '\0';
    return strtod(buf, NULL);
}

static void add_feature(ogr_job *j, OGRGeometryH g, const double *v, int nv)
{
    OGRFeatureH f = OGR_F_Create(OGR_L_GetLayerDefn(j->layer));
    if (!f) {
        OGR_G_DestroyGeometry(g);
        j->st = STRATA_ERR_NOMEM;
        return;
    }
    for (int i = 0; i < nv; i++)
        OGR_F_SetFieldDouble(f, i, v[i]);
    OGR_F_SetGeometryDirectly(f, g);
    if (OGR_L_CreateFeature(j->layer, f) != OGRERR_NONE)
        j->st = STRATA_ERR_IO;
    OGR_F_Destroy(f);
}

/* ------------------------------------------------------------ GeoJSON */

/* Degrees v rounded to 7 decimals (1.1 cm), trailing zeros dropped. */
static char *put_degrees(char *p, double v)
{
    const long long r = llround(v * 1e7);
    unsigned long long a = r < 0 ? 0ull - (unsigned long long)r : (unsigned long long)r;
    if (r < 0)
        *p++ = '-';
    unsigned long long ip = a / 10000000ull, fp = a % 10000000ull;
    char d[24];
    int n = 0;
    do
        d[n++] = (char)('0' + ip % 10);
    while ((ip /= 10));
    while (n)
        *p++ = d[--n];
    if (fp) {
        for (int i = 6; i >= 0; i--, fp /= 10)
            d[i] = (char)('0' + fp % 10);
        for (n = 7; d[n - 1] == '0'; n--)
            ;
        *p++ = '.';
        memcpy(p, d, (size_t)n);
        p += n;
    }
    return p;
}

/* The n mapped points as "[lon,lat],...". */
static void text_points(ogr_job *j, size_t n)
{
    for (size_t i = 0; i < n && strata__out_ok(j->out); i++) {
        char *p0 = (char *)strata__out_room(j->out, 64), *p = p0;
        if (i)
            *p++ = ',';
        *p++ = '[';
        p = put_degrees(p, j->map.X[i]);
        *p++ = ',';
        p = put_degrees(p, j->map.Y[i]);
        *p++ = ']';
        j->out->len += (size_t)(p - p0);
    }
}

/* A feature's start: its properties (names[i] = values[i]) and its
 * geometry's type up to the coordinates' opening bracket. */
static void text_head(ogr_job *j, const char *const *names, const float *values, int nv,
                      const char *type)
{
    strata__out_str(j->out, j->started ? ",\n{\"type\":\"Feature\",\"properties\":{"
                                       : "\n{\"type\":\"Feature\",\"properties\":{");
    j->started = 1;
    for (int i = 0; i < nv; i++) {
        char *p0 = (char *)strata__out_room(j->out, 64), *p = p0;
        p += sprintf(p, "%s\"%s\":", i ? "," : "", names[i]);
        p = strata__put_float(p, values[i]);
        j->out->len += (size_t)(p - p0);
    }
    strata__out_str(j->out, "},\"geometry\":{\"type\":\"");
    strata__out_str(j->out, type);
    strata__out_str(j->out, "\",\"coordinates\":[");
}

/* ------------------------------------------------------------ features */

static void write_lines(ogr_job *j)
{
    const strata_loops *l = j->l;
    static const char *const elev[1] = {"elev"};
    for (uint64_t li = 0; li < l->nloops && j->st == STRATA_OK; li++) {
        const strata_loop *lp = &l->loops[li];
        const size_t n = lp->count + (lp->closed ? 1u : 0u);
        if (!map_room(&j->map, n)) {
            j->st = STRATA_ERR_NOMEM;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            const uint64_t p = lp->first + (i == lp->count ? 0 : i);
            map_put(&j->map, i, n, l->x[p], l->z[p]);
        }
        if (!map_project(&j->map, n)) {
            j->st = STRATA_ERR_NOT_FINITE;
            break;
        }
        if (j->out) {
            text_head(j, elev, &l->levels[lp->plane], 1, "LineString");
            text_points(j, n);
            strata__out_str(j->out, "]}}");
        } else {
            OGRGeometryH g = OGR_G_CreateGeometry(wkbLineString);
            OGR_G_SetPoints(g, (int)n, j->map.X, sizeof(double), j->map.Y, sizeof(double),
                            NULL, 0);
            const double v = level_value(l->levels[lp->plane]);
            add_feature(j, g, &v, 1);
        }
        if (li % 1024 == 0 && strata__progress(j->ctx, "write", (double)li / l->nloops))
            j->st = STRATA_ERR_CANCELLED;
    }
}

/* Ring r of the band mapped (its first point again at the end): its
 * points, 0 on a failure. */
static size_t map_ring(ogr_job *j, const strata_band_region *g, const strata_band_ring *r)
{
    const size_t n = r->n + 1;
    if (!map_room(&j->map, n)) {
        j->st = STRATA_ERR_NOMEM;
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        const size_t k = r->first + (i == r->n ? 0 : i);
        map_put(&j->map, i, n, g->store.X[k], -g->store.Y[k]);
    }
    if (!map_project(&j->map, n)) {
        j->st = STRATA_ERR_NOT_FINITE;
        return 0;
    }
    return n;
}

/* Ring r as OGR's linear ring, or as text "[...]" (NULL). */
static OGRGeometryH band_ring(ogr_job *j, const strata_band_region *g, const strata_band_ring *r,
                              int comma)
{
    const size_t n = map_ring(j, g, r);
    if (!n)
        return NULL;
    if (j->out) {
        strata__out_str(j->out, comma ? ",[" : "[");
        text_points(j, n);
        strata__out_str(j->out, "]");
        return NULL;
    }
    OGRGeometryH ring = OGR_G_CreateGeometry(wkbLinearRing);
    OGR_G_SetPoints(ring, (int)n, j->map.X, sizeof(double), j->map.Y, sizeof(double), NULL, 0);
    return ring;
}

/* Band k's rings (each exterior with its holes) as one MultiPolygon
 * feature; nothing for an empty band. */
static void put_band(ogr_job *j, const strata_band_region *g, uint32_t k)
{
    const strata_loops *l = j->l;
    const float v[2] = {k == 0 ? j->opt->height_min : l->levels[k],
                        k + 1 == l->nplanes ? j->opt->height_max : l->levels[k + 1]};
    static const char *const names[2] = {"elev_min", "elev_max"};
    OGRGeometryH mp = NULL;
    int any = 0;
    for (size_t e = 0; e < g->nrings && j->st == STRATA_OK; e++) {
        if (g->rings[e].area <= 0)
            continue;
        if (j->out && !any)
            text_head(j, names, v, 2, "MultiPolygon");
        if (j->out)
            strata__out_str(j->out, any ? ",[" : "[");
        any = 1;
        OGRGeometryH poly = j->out ? NULL : OGR_G_CreateGeometry(wkbPolygon);
        OGRGeometryH ring = band_ring(j, g, &g->rings[e], 0);
        if (ring)
            OGR_G_AddGeometryDirectly(poly, ring);
        for (size_t h = 0; h < g->nrings && j->st == STRATA_OK; h++)
            if (g->rings[h].area < 0 && g->rings[h].owner == e &&
                (ring = band_ring(j, g, &g->rings[h], 1)))
                OGR_G_AddGeometryDirectly(poly, ring);
        if (j->out) {
            strata__out_str(j->out, "]");
            continue;
        }
        if (!mp)
            mp = OGR_G_CreateGeometry(wkbMultiPolygon);
        OGR_G_AddGeometryDirectly(mp, poly);
    }
    if (j->out && any)
        strata__out_str(j->out, "]}}");
    if (!mp)
        return;
    if (j->st != STRATA_OK) {
        OGR_G_DestroyGeometry(mp);
        return;
    }
    const double d[2] = {level_value(v[0]), level_value(v[1])};
    add_feature(j, mp, d, 2);
}

static void write_bands(ogr_job *j)
{
    const strata_loops *l = j->l;
    /* the regions' frame: X = x, Y = -z, exact in floats */
    strata_loops_write_options local = *j->opt;
    local.origin[0] = local.origin[1] = 0.0;
    local.scale = 1.0;
    const strata_map_frame fr = {l, &local};
    strata_band_region g;
    memset(&g, 0, sizeof g);
    if (strata__band_region_init(&g, &fr, j->map.al) != STRATA_OK) {
        strata__band_region_free(&g);
        j->st = STRATA_ERR_NOMEM;
        return;
    }
    const uint32_t corner_band =
        l->has_corner && l->corner[0] == local.domain[0] && l->corner[1] == local.domain[1]
            ? l->corner_band
            : strata__level_of(l->levels, l->nplanes, local.corner_height);
    for (uint32_t k = 0; k < l->nplanes && j->st == STRATA_OK; k++) {
        strata__band_region_band(&g, k, corner_band);
        if (g.nomem)
            j->st = STRATA_ERR_NOMEM;
        else if (g.bad)
            j->st = STRATA_ERR_INVALID_ARG; /* polylines that do not close along the domain */
        else
            put_band(j, &g, k);
        if (j->st == STRATA_OK && strata__progress(j->ctx, "write", (double)k / l->nplanes))
            j->st = STRATA_ERR_CANCELLED;
    }
    strata__band_region_free(&g);
}

/* ------------------------------------------------------------ the files */

/* The CRS of the written coordinates (lon/lat: EPSG:4326, longitude
 * first) for driver drv, and in *ct the transformation to it from
 * opt->crs; NULL for none, or (with *bad set) one OSR cannot read or
 * transform. */
static OGRSpatialReferenceH layer_srs(GDALDriverH drv, const strata_loops_write_options *opt,
                                      OGRCoordinateTransformationH *ct, int *bad)
{
    *ct = NULL;
    *bad = 0;
    if (!opt->crs) {
        /* no CRS: say so with a Cartesian engineering CRS (a GeoPackage
         * would call a layer without one "undefined geographic"); GeoJSON
         * has no way to, and writes none */
        if (!strcasecmp(GDALGetDriverShortName(drv), "GeoJSON"))
            return NULL;
        OGRSpatialReferenceH local = OSRNewSpatialReference(NULL);
        OSRSetLocalCS(local, "strata map units (no CRS)");
        OSRSetLinearUnits(local, "unknown", 1.0);
        return local;
    }
    OGRSpatialReferenceH src = OSRNewSpatialReference(NULL);
    if (OSRSetFromUserInput(src, opt->crs) != OGRERR_NONE) {
        OSRDestroySpatialReference(src);
        *bad = 1;
        return NULL;
    }
    OSRSetAxisMappingStrategy(src, OAMS_TRADITIONAL_GIS_ORDER);
    if (!opt->lonlat)
        return src;
    OGRSpatialReferenceH dst = OSRNewSpatialReference(NULL);
    if (OSRImportFromEPSG(dst, 4326) == OGRERR_NONE) {
        OSRSetAxisMappingStrategy(dst, OAMS_TRADITIONAL_GIS_ORDER);
        *ct = OCTNewCoordinateTransformation(src, dst);
    }
    OSRDestroySpatialReference(src);
    if (!*ct) {
        OSRDestroySpatialReference(dst);
        *bad = 1;
        return NULL;
    }
    return dst;
}

/* Remove every file of the directory dir, and it; with dest, rename them
 * into dest's directory instead, or hand them and dir to ctx's group of
 * outputs when it has one (0, or -1 with errno at the first that
 * fails). */
static int empty_dir(strata_ctx *ctx, const char *dir, const char *dest)
{
    if (dest && ctx->group && strata__out_group_dir(ctx, dir) != 0)
        dest = NULL; /* out of memory: remove them */
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    const char *slash = dest ? strrchr(dest, '/') : NULL;
    const size_t dlen = slash ? (size_t)(slash - dest) + 1 : 0;
    int rc = 0, err = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char from[4096], to[4096];
        const int fits =
            (size_t)snprintf(from, sizeof from, "%s/%s", dir, e->d_name) < sizeof from &&
            (size_t)snprintf(to, sizeof to, "%.*s%s", (int)dlen, dest ? dest : "", e->d_name) <
                sizeof to;
        if (dest && rc == 0) {
            if (fits && (ctx->group ? strata__out_group_file(ctx, from, to) : rename(from, to)) == 0)
                continue;
            rc = -1;
            err = fits ? errno : ENAMETOOLONG;
        }
        if (fits)
            unlink(from);
    }
    closedir(d);
    if (!dest || !ctx->group)
        rmdir(dir);
    if (rc)
        errno = err;
    return rc;
}

/* The layer of job j in the new dataset ds: geometry type and fields
 * (GeoJSON in lon/lat is write_text's). */
static OGRLayerH make_layer(GDALDatasetH ds, OGRSpatialReferenceH srs,
                            const strata_loops_write_options *opt)
{
    OGRLayerH layer = GDALDatasetCreateLayer(
        ds, "contours", srs, opt->polygons ? wkbMultiPolygon : wkbLineString, NULL);
    static const char *const names[3] = {"elev", "elev_min", "elev_max"};
    for (int i = opt->polygons ? 1 : 0; layer && i < (opt->polygons ? 3 : 1); i++) {
        OGRFieldDefnH fd = OGR_Fld_Create(names[i], OFTReal);
        const OGRErr err = OGR_L_CreateField(layer, fd, TRUE);
        OGR_Fld_Destroy(fd);
        if (err != OGRERR_NONE)
            return NULL;
    }
    return layer;
}

/* Write j's features into a new dataset at tmp by driver drv. */
static void write_dataset(ogr_job *j, GDALDriverH drv, const char *tmp, OGRSpatialReferenceH srs)
{
    GDALDatasetH ds = GDALCreate(drv, tmp, 0, 0, 0, GDT_Unknown, NULL);
    if (!ds) {
        j->st = STRATA_ERR_IO;
        return;
    }
    j->layer = make_layer(ds, srs, j->opt);
    if (!j->layer)
        j->st = STRATA_ERR_UNSUPPORTED; /* the driver makes no such layer */
    const int txn = j->layer && GDALDatasetStartTransaction(ds, FALSE) == OGRERR_NONE;
    if (j->st == STRATA_OK)
        (j->opt->polygons ? write_bands : write_lines)(j);
    if (txn && j->st == STRATA_OK && GDALDatasetCommitTransaction(ds) != OGRERR_NONE)
        j->st = STRATA_ERR_IO;
    CPLErrorReset();
    GDALClose(ds);
    if (j->st == STRATA_OK && CPLGetLastErrorType() >= CE_Failure)
        j->st = STRATA_ERR_IO; /* the last writes, made when closing, failed */
}

/* RFC 7946 GeoJSON of j's features (lon/lat), written by strata into
 * a temporary file renamed onto path when complete. */
static strata_status write_text(ogr_job *j, const char *path, int saved_errno)
{
    strata_out o = STRATA_OUT_INIT(j->ctx);
    if (j->st == STRATA_OK && strata__out_open(&o, path, j->ctx) == 0) {
        j->out = &o;
        strata__out_str(&o, "{\"type\":\"FeatureCollection\",\"name\":\"contours\","
                            "\"features\":[");
        (j->opt->polygons ? write_bands : write_lines)(j);
        strata__out_str(&o, "\n]}\n");
        strata__out_finish(&o);
    }
    if (j->st != STRATA_OK) {
        strata__out_discard(&o);
        errno = saved_errno;
        return j->st;
    }
    const char *const paths[1] = {path};
    return strata__write_finish(j->ctx, &o, paths, 1, saved_errno);
}

/* What the map and the layer's CRS hold. */
static void layer_free(ogr_job *j, OGRSpatialReferenceH srs)
{
    if (j->map.ct)
        OCTDestroyCoordinateTransformation(j->map.ct);
    if (srs)
        OSRDestroySpatialReference(srs);
    strata__free(j->map.al, j->map.X);
    strata__free(j->map.al, j->map.Y);
}

strata_status strata__loops_write_ogr(strata_ctx *ctx, const strata_loops *l, const char *path,
                                      const strata_loops_write_options *opt)
{
    if (l->geometry != STRATA_FLAT || (opt->lonlat && !opt->crs))
        return STRATA_ERR_INVALID_ARG;
    GDALDriverH drv = find_driver(path, opt->driver);
    if (!drv)
        return STRATA_ERR_UNSUPPORTED;
    const int saved_errno = errno;
    CPLPushErrorHandler(CPLQuietErrorHandler);
    ogr_job j = {ctx, l, opt, NULL, NULL, 0, {.al = &ctx->alloc}, STRATA_OK};
    if (opt->has_transform)
        memcpy(j.map.t, opt->transform, sizeof j.map.t);
    else
        memcpy(j.map.t, (double[6]){opt->origin[0], opt->scale, 0.0, opt->origin[1], 0.0,
                                    -opt->scale},
               sizeof j.map.t);
    int bad;
    OGRSpatialReferenceH srs = layer_srs(drv, opt, &j.map.ct, &bad);
    if (bad)
        j.st = STRATA_ERR_INVALID_ARG;
    /* the mirror test at the domain's middle, or the first point's */
    const double cx = opt->has_domain ? 0.5 * ((double)opt->domain[0] + opt->domain[2])
                      : l->npoints ? l->x[0] : 0.0;
    const double cz = opt->has_domain ? 0.5 * ((double)opt->domain[1] + opt->domain[3])
                      : l->npoints ? l->z[0] : 0.0;
    const double span = opt->has_domain ? (double)opt->domain[2] - opt->domain[0] : 1.0;
    const int orient = j.st == STRATA_OK ? map_orientation(&j.map, cx, cz, 1e-3 * span) : 1;
    if (orient == 0)
        j.st = STRATA_ERR_NOT_FINITE;
    j.map.reverse = orient < 0;
    if (opt->lonlat && !strcasecmp(GDALGetDriverShortName(drv), "GeoJSON")) {
        const strata_status st = write_text(&j, path, saved_errno);
        layer_free(&j, srs);
        CPLPopErrorHandler();
        return st;
    }
    /* PATH.tmpXXXXXX/ holds the files until they are complete */
    const size_t plen = strlen(path);
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char *dir = strata__alloc(&ctx->alloc, plen + 16), *tmp = NULL;
    if (j.st == STRATA_OK && !dir)
        j.st = STRATA_ERR_NOMEM;
    if (j.st == STRATA_OK) {
        memcpy(dir, path, plen);
        memcpy(dir + plen, ".tmpXXXXXX", 11);
        if (!mkdtemp(dir)) {
            j.st = STRATA_ERR_IO;
        } else if (!(tmp = strata__alloc(&ctx->alloc, plen + 18 + strlen(base)))) {
            j.st = STRATA_ERR_NOMEM;
        } else {
            sprintf(tmp, "%s/%s", dir, base);
            const int err = errno;
            write_dataset(&j, drv, tmp, srs);
            if (j.st == STRATA_ERR_IO && errno == err)
                errno = EIO; /* GDAL failed with no system call's error */
        }
        if (j.st == STRATA_OK && strata__progress(ctx, "write", 1.0) != STRATA_OK)
            j.st = STRATA_ERR_CANCELLED;
        /* a dataset of several files (.shp, .shx, .dbf, .prj) goes into
         * place whole or not at all: in the caller's group of outputs,
         * or in one of its own */
        const int own = j.st == STRATA_OK && !ctx->group;
        if (own && strata__out_group_begin(ctx) != STRATA_OK)
            j.st = STRATA_ERR_NOMEM;
        if (tmp && empty_dir(ctx, dir, j.st == STRATA_OK ? path : NULL) != 0 && j.st == STRATA_OK)
            j.st = STRATA_ERR_IO;
        int tag;
        const strata_status end = own ? strata__out_group_end(ctx, j.st == STRATA_OK, &tag)
                                      : STRATA_OK;
        if (j.st == STRATA_OK)
            j.st = end;
    }
    const int err = errno;
    CPLPopErrorHandler();
    layer_free(&j, srs);
    strata__free(&ctx->alloc, dir);
    strata__free(&ctx->alloc, tmp);
    errno = j.st == STRATA_ERR_IO ? err : saved_errno;
    return j.st;
}

#else /* no GDAL */

strata_status strata_loops_ogr_driver(const char *path, const char *name, const char **driver)
{
    (void)name;
    return !path || !driver ? STRATA_ERR_INVALID_ARG : STRATA_ERR_UNSUPPORTED;
}

strata_status strata__loops_write_ogr(strata_ctx *ctx, const struct strata_loops *l,
                                      const char *path, const strata_loops_write_options *opt)
{
    (void)ctx, (void)l, (void)path, (void)opt;
    return STRATA_ERR_UNSUPPORTED;
}

#endif
