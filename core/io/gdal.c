/* Heightmaps from any raster GDAL reads (GeoTIFF first), when built with
 * GDAL (--with-gdal): band 1 as 32-bit floats, with the band's scale and
 * offset applied, nodata samples as NaN, the geotransform and the CRS
 * kept for strata_heightmap_get_info.
 *
 * GDAL is told to keep quiet (the library never prints): its messages go
 * to a handler that drops them, pushed for the length of each call on the
 * calling thread only.  Sizes are checked against the heightmap limits,
 * and a file may not claim more samples than its bytes could hold at the
 * compression ratio PNG input is held to (GDAL_MAX_PIXELS_PER_BYTE),
 * before the samples are allocated: a 100-byte file claiming 2^28 samples
 * is STRATA_ERR_TRUNCATED, not a gigabyte allocation. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "base/alloc.h"
#include "io/gdal.h"
#include "io/heightmap_read.h"
#include "mesh/heightmap.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#ifdef HAVE_GDAL
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_vsi.h>
#include <gdal.h>
#include <ogr_srs_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

/* Samples a byte of file may claim: the rule PNG input follows (deflate
 * inflates at most 1032:1, a 1-bit sample is an eighth of a byte), so a
 * 100-byte file may claim about 825k samples (3.3 MB of floats); real
 * DEMs compress far less. */
#define GDAL_MAX_PIXELS_PER_BYTE (1032u * 8u)

static pthread_once_t registered = PTHREAD_ONCE_INIT;

static void register_drivers(void)
{
    GDALAllRegister();
}

void strata__gdal_register(void)
{
    pthread_once(&registered, register_drivers);
}

/* The raster ds (bytes: the size of its file) as a heightmap. */
static strata_status read_dataset(const strata_allocator *al, GDALDatasetH ds, uint64_t bytes,
                                  strata_heightmap **out)
{
    const int w = GDALGetRasterXSize(ds), h = GDALGetRasterYSize(ds);
    if (GDALGetRasterCount(ds) < 1)
        return STRATA_ERR_FORMAT; /* a vector file, or a raster with no band */
    if (w < 0 || h < 0)
        return STRATA_ERR_FORMAT;
    strata_status st = strata__heightmap_check_dims((uint64_t)w, (uint64_t)h);
    if (st != STRATA_OK)
        return st;
    if ((uint64_t)w * (uint64_t)h / GDAL_MAX_PIXELS_PER_BYTE > bytes)
        return STRATA_ERR_TRUNCATED; /* as a PNG too short to inflate to its size */
    GDALRasterBandH band = GDALGetRasterBand(ds, 1);
    if (!band)
        return STRATA_ERR_FORMAT;
    const GDALDataType type = GDALGetRasterDataType(band);
    if (GDALDataTypeIsComplex(type))
        return STRATA_ERR_UNSUPPORTED; /* complex samples have no height */
    strata_heightmap *hm;
    if ((st = strata__heightmap_new(al, (uint32_t)w, (uint32_t)h, &hm)) != STRATA_OK)
        return st;
    /* Rows top to bottom, as the geotransform's row 0 (its origin). */
    if (GDALRasterIO(band, GF_Read, 0, 0, w, h, hm->data, w, h, GDT_Float32, 0, 0) != CE_None) {
        strata_heightmap_destroy(hm);
        return STRATA_ERR_FORMAT; /* cut short or corrupt blocks */
    }
    int has_nodata = 0, has_scale = 0, has_offset = 0;
    const double nodata = GDALGetRasterNoDataValue(band, &has_nodata);
    const double scale = GDALGetRasterScale(band, &has_scale);
    const double offset = GDALGetRasterOffset(band, &has_offset);
    /* The nodata value as the float it was read as (GDAL rounds samples
     * to float the same way): compared in float, so 3.4e38 and -9999
     * both match. */
    const float nd = (float)nodata;
    const bool scaled = (has_scale && scale != 1.0) || (has_offset && offset != 0.0);
    const size_t n = (size_t)w * (size_t)h;
    uint64_t holes = 0;
    for (size_t i = 0; i < n; i++) {
        float v = hm->data[i];
        if ((has_nodata && v == nd) || isnan(v)) {
            hm->data[i] = NAN;
            holes++;
            continue;
        }
        if (scaled)
            v = (float)((double)v * (has_scale ? scale : 1.0) + (has_offset ? offset : 0.0));
        if (!isfinite(v)) {
            strata_heightmap_destroy(hm);
            return STRATA_ERR_NOT_FINITE; /* an infinite sample, not nodata */
        }
        hm->data[i] = v;
    }
    if (holes == n) {
        strata_heightmap_destroy(hm);
#ifdef ENODATA
        errno = ENODATA; /* nothing but nodata: no height at all */
#endif
        return STRATA_ERR_FORMAT;
    }
    hm->nodata = holes;
    hm->source_units = true;
    double gt[6];
    if (GDALGetGeoTransform(ds, gt) == CE_None) {
        memcpy(hm->geotransform, gt, sizeof gt);
        hm->georeferenced = true;
    }
    const char *wkt = GDALGetProjectionRef(ds);
    if (wkt && *wkt) {
        const size_t len = strlen(wkt) + 1;
        if (!(hm->crs = strata__alloc(al, len))) {
            strata_heightmap_destroy(hm);
            return STRATA_ERR_NOMEM;
        }
        memcpy(hm->crs, wkt, len);
        OGRSpatialReferenceH srs = OSRNewSpatialReference(wkt);
        if (srs) {
            hm->projected = OSRIsProjected(srs) != 0;
            OSRDestroySpatialReference(srs);
        }
    }
    *out = hm;
    return STRATA_OK;
}

/* Open name with GDAL (quietly), read it, close it. */
static strata_status read_named(const strata_allocator *al, const char *name, uint64_t bytes,
                                strata_heightmap **out)
{
    strata__gdal_register();
    CPLPushErrorHandler(CPLQuietErrorHandler);
    GDALDatasetH ds = GDALOpenEx(name, GDAL_OF_RASTER | GDAL_OF_READONLY, NULL, NULL, NULL);
    strata_status st = STRATA_ERR_FORMAT;
    if (ds) {
        st = read_dataset(al, ds, bytes, out);
        GDALClose(ds);
    }
    CPLPopErrorHandler();
    return st;
}

strata_status strata__gdal_load(const strata_allocator *al, const char *path, uint64_t bytes,
                                strata_heightmap **out)
{
    return read_named(al, path, bytes, out);
}

strata_status strata__gdal_decode(const strata_allocator *al, const uint8_t *data, size_t len,
                                  strata_heightmap **out)
{
    static atomic_uint serial;
    char name[64];
    snprintf(name, sizeof name, "/vsimem/strata-heightmap-%u", atomic_fetch_add(&serial, 1));
    /* GDAL reads the caller's bytes in place (not copied, not freed). */
    VSILFILE *f = VSIFileFromMemBuffer(name, (GByte *)(uintptr_t)data, (vsi_l_offset)len, FALSE);
    if (!f)
        return STRATA_ERR_NOMEM;
    VSIFCloseL(f);
    const strata_status st = read_named(al, name, len, out);
    VSIUnlink(name);
    return st;
}

/* The raster's CRS to WGS84 longitude, latitude (NULL when GDAL cannot
 * make that transformation). */
static OGRCoordinateTransformationH to_lonlat(const char *wkt)
{
    OGRCoordinateTransformationH ct = NULL;
    OGRSpatialReferenceH src = OSRNewSpatialReference(NULL), dst = OSRNewSpatialReference(NULL);
    if (src && dst && OSRSetFromUserInput(src, wkt) == OGRERR_NONE &&
        OSRImportFromEPSG(dst, 4326) == OGRERR_NONE) {
        OSRSetAxisMappingStrategy(src, OAMS_TRADITIONAL_GIS_ORDER);
        OSRSetAxisMappingStrategy(dst, OAMS_TRADITIONAL_GIS_ORDER);
        ct = OCTNewCoordinateTransformation(src, dst);
    }
    OSRDestroySpatialReference(src);
    OSRDestroySpatialReference(dst);
    return ct;
}

/* Pixel point (px, py) of hm as ECEF metres on the ellipsoid (height 0),
 * its longitude and latitude in ll when ll is not NULL. */
static int pixel_ecef(const strata_heightmap *hm, OGRCoordinateTransformationH ct, double px,
                      double py, double ecef[3], double ll[2])
{
    const double *g = hm->geotransform;
    double x = g[0] + px * g[1] + py * g[2], y = g[3] + px * g[4] + py * g[5];
    if (!OCTTransform(ct, 1, &x, &y, NULL) || strata_geo_ecef(x, y, 0.0, ecef) != STRATA_OK)
        return 0;
    if (ll)
        ll[0] = x, ll[1] = y;
    return 1;
}

/* Steps of one pixel across the centre (c[0], c[1]) in pixel coordinates,
 * along columns (east) and rows (up the image: north), in ECEF, and the
 * centre's longitude and latitude. */
static int centre_steps(const strata_heightmap *hm, OGRCoordinateTransformationH ct,
                        const double c[2], double ll[2], double east[3], double north[3])
{
    double o[3], a[3], b[3], p[3], q[3];
    if (!pixel_ecef(hm, ct, c[0], c[1], o, ll) || !pixel_ecef(hm, ct, c[0] - 0.5, c[1], a, NULL) ||
        !pixel_ecef(hm, ct, c[0] + 0.5, c[1], b, NULL) ||
        !pixel_ecef(hm, ct, c[0], c[1] + 0.5, p, NULL) ||
        !pixel_ecef(hm, ct, c[0], c[1] - 0.5, q, NULL))
        return 0;
    for (int k = 0; k < 3; k++) {
        east[k] = b[k] - a[k];
        north[k] = q[k] - p[k];
    }
    return 1;
}

strata_status strata_heightmap_place(const strata_heightmap *hm, double *lon, double *lat,
                                     double *heading, double *metres)
{
    if (!hm || !lon || !lat || !heading || !metres)
        return STRATA_ERR_INVALID_ARG;
    const double *g = hm->geotransform;
    if (!hm->georeferenced || !hm->projected || !hm->crs || g[2] != 0.0 || g[4] != 0.0)
        return STRATA_ERR_UNSUPPORTED;
    strata__gdal_register();
    CPLPushErrorHandler(CPLQuietErrorHandler);
    OGRCoordinateTransformationH ct = to_lonlat(hm->crs);
    /* the centre: pixel coordinates (w/2, h/2), where the grid has x = z = 0 */
    const double c[2] = {0.5 * hm->w, 0.5 * hm->h};
    double ll[2], e[3], n[3];
    const int ok = ct && centre_steps(hm, ct, c, ll, e, n);
    OCTDestroyCoordinateTransformation(ct);
    CPLPopErrorHandler();
    if (!ok)
        return STRATA_ERR_FORMAT;
    /* the steps in the east-north-up frame at the centre */
    double m[16];
    strata_geo_enu(ll[0], ll[1], 0.0, 1.0, m);
    double de[2], dn[2];
    for (int a = 0; a < 2; a++) {
        de[a] = m[4 * a] * e[0] + m[4 * a + 1] * e[1] + m[4 * a + 2] * e[2];
        dn[a] = m[4 * a] * n[0] + m[4 * a + 1] * n[1] + m[4 * a + 2] * n[2];
    }
    if (!(de[0] * dn[1] - de[1] * dn[0] > 0.0))
        return STRATA_ERR_UNSUPPORTED; /* a mirrored raster (x west or y south) */
    *lon = ll[0];
    *lat = ll[1];
    *heading = atan2(dn[0], dn[1]) * (180.0 / M_PI);
    *metres = 0.5 * (sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) +
                     sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]));
    return STRATA_OK;
}

unsigned strata_gdal_support(void)
{
    return 1;
}

#else /* no GDAL */

strata_status strata__gdal_load(const strata_allocator *al, const char *path, uint64_t bytes,
                                strata_heightmap **out)
{
    (void)al, (void)path, (void)bytes, (void)out;
    return STRATA_ERR_FORMAT;
}

strata_status strata__gdal_decode(const strata_allocator *al, const uint8_t *data, size_t len,
                                  strata_heightmap **out)
{
    (void)al, (void)data, (void)len, (void)out;
    return STRATA_ERR_FORMAT;
}

strata_status strata_heightmap_place(const strata_heightmap *hm, double *lon, double *lat,
                                     double *heading, double *metres)
{
    if (!hm || !lon || !lat || !heading || !metres)
        return STRATA_ERR_INVALID_ARG;
    return STRATA_ERR_UNSUPPORTED;
}

unsigned strata_gdal_support(void)
{
    return 0;
}

#endif
