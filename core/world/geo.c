/* Placing a world on the Earth (strata_geo_ecef, strata_geo_enu): the
 * WGS84 ellipsoid's geodetic coordinates to Earth-centred, Earth-fixed
 * (ECEF) ones, and the east-north-up frame there, the root transform of a
 * placed world's tileset.
 *
 * WGS84: a = 6378137 m, 1/f = 298.257223563, e^2 = f (2 - f).  At
 * longitude l, latitude p and height h above the ellipsoid, with the
 * prime vertical radius N = a / sqrt(1 - e^2 sin^2 p):
 *   X = (N + h) cos p cos l,  Y = (N + h) cos p sin l,
 *   Z = (N (1 - e^2) + h) sin p.
 * East (-sin l, cos l, 0), north (-sin p cos l, -sin p sin l, cos p) and
 * up (cos p cos l, cos p sin l, sin p), the ellipsoid's normal there.
 * Turned by a heading h (strata_geo_frame, a raster's grid north): x =
 * cos h east - sin h north, y = sin h east + cos h north. */
#include "base.h"

#include <math.h>

#define WGS84_A 6378137.0
#define WGS84_INV_F 298.257223563

static int geo_valid(double lon, double lat, double height)
{
    return lon >= -180.0 && lon <= 180.0 && lat >= -90.0 && lat <= 90.0 &&
           height >= -STRATA_GEO_HEIGHT_MAX && height <= STRATA_GEO_HEIGHT_MAX;
}

/* Degrees to radians, exact at the quadrant angles (sin 180 degrees is 0,
 * not 1.2e-16): the angle reduced to [-45, 45] degrees about its nearest
 * quadrant first. */
static void sin_cos_deg(double deg, double *s, double *c)
{
    const double q = nearbyint(deg / 90.0);
    const double r = (deg - 90.0 * q) * (M_PI / 180.0);
    const double sr = sin(r), cr = cos(r);
    switch (((long)q % 4 + 4) % 4) {
    case 0: *s = sr, *c = cr; break;
    case 1: *s = cr, *c = -sr; break;
    case 2: *s = -sr, *c = -cr; break;
    default: *s = -cr, *c = sr; break;
    }
}

strata_status strata_geo_ecef(double lon, double lat, double height, double ecef[3])
{
    if (!ecef || !geo_valid(lon, lat, height))
        return STRATA_ERR_INVALID_ARG;
    const double f = 1.0 / WGS84_INV_F, e2 = f * (2.0 - f);
    double sl, cl, sp, cp;
    sin_cos_deg(lon, &sl, &cl);
    sin_cos_deg(lat, &sp, &cp);
    const double n = WGS84_A / sqrt(1.0 - e2 * sp * sp);
    ecef[0] = (n + height) * cp * cl;
    ecef[1] = (n + height) * cp * sl;
    ecef[2] = (n * (1.0 - e2) + height) * sp;
    return STRATA_OK;
}

strata_status strata_geo_frame(double lon, double lat, double height, double scale,
                               double heading, double m[16])
{
    double o[3];
    if (!m || !(scale > 0.0) || !(scale <= STRATA_GEO_SCALE_MAX) ||
        !(heading >= -360.0 && heading <= 360.0) ||
        strata_geo_ecef(lon, lat, height, o) != STRATA_OK)
        return STRATA_ERR_INVALID_ARG;
    double sl, cl, sp, cp, sh, ch;
    sin_cos_deg(lon, &sl, &cl);
    sin_cos_deg(lat, &sp, &cp);
    sin_cos_deg(heading, &sh, &ch);
    const double east[3] = {-sl, cl, 0.0}, north[3] = {-sp * cl, -sp * sl, cp};
    double axes[3][3] = {{0}, {0}, {cp * cl, cp * sl, sp}};
    for (int r = 0; r < 3; r++) { /* east and north turned clockwise by heading */
        axes[0][r] = ch * east[r] - sh * north[r];
        axes[1][r] = sh * east[r] + ch * north[r];
    }
    for (int c = 0; c < 3; c++) { /* column c: axis c times the scale */
        for (int r = 0; r < 3; r++)
            m[4 * c + r] = scale * axes[c][r];
        m[4 * c + 3] = 0.0;
    }
    for (int r = 0; r < 3; r++)
        m[12 + r] = o[r];
    m[15] = 1.0;
    return STRATA_OK;
}

strata_status strata_geo_enu(double lon, double lat, double height, double scale, double m[16])
{
    return strata_geo_frame(lon, lat, height, scale, 0.0, m);
}
