#!/bin/sh
# strata contours of georeferenced rasters, checked with GDAL's own tools:
# the lines are the wall tops of 'strata terrain' of the same raster and
# levels, mapped by the affine map --stats prints (exactly, in doubles),
# in the raster's coordinates with samples at pixel centres (gdal_contour
# finds the same points); the layer's CRS and extent (ogrinfo) are the
# raster's (--crs native: GeoPackage, FlatGeobuf, Shapefile) or its
# footprint in longitude, latitude (the default; RFC 7946 GeoJSON, the
# points those of OSR's reprojection); every band polygon a MultiPolygon
# (strata's own GeoJSON too), valid, counter-clockwise even where the
# raster runs south up; rotated and non-square pixels; bad --crs,
# --format and -o (message, exit status, no file).  Needs a build with
# GDAL, gdal_contour and ogrinfo (Debian gdal-bin) and python3 with
# osgeo, numpy and shapely (python3-gdal, python3-numpy,
# python3-shapely); skipped (77) otherwise.  POSIX sh.
. "$(dirname "$0")/lib.sh"
unset STRATA_SIMD
if ! "$STRATA" info | grep -q '^gdal: yes'; then
    echo "SKIP: strata was built without GDAL (configure --with-gdal; Debian libgdal-dev)"
    exit 77
fi
for t in gdal_contour ogrinfo; do
    if ! command -v $t >/dev/null 2>&1; then
        echo "SKIP: $t not found (Debian gdal-bin)"
        exit 77
    fi
done
PY=
for p in /usr/bin/python3 python3; do
    if "$p" -c 'from osgeo import gdal, ogr, osr; import numpy, shapely' 2>/dev/null; then
        PY=$p
        break
    fi
done
if [ -z "$PY" ]; then
    echo "SKIP: python3 with osgeo, numpy and shapely not found (Debian: python3-gdal python3-numpy python3-shapely)"
    exit 77
fi

test_dir contours-gdal

# ------------------------------------------------------------ rasters
# utm.tif: 61 x 47 float heights, 30 m pixels at 600000, 3670000 in UTM
# zone 33N; rot.tif: the same heights with rotated, non-square pixels;
# south.tif: rows running south to north (g5 > 0), mirroring the map;
# geo.tif: in degrees (EPSG:4326); nocrs.tif: a geotransform, no CRS;
# dem.pgm: no georeferencing at all.
"$PY" - <<'EOF' || exit 99
import math
import numpy as np
from osgeo import gdal, osr
W, H = 61, 47
j, i = np.mgrid[0:H, 0:W]
z = (100 * np.sin(6 * i / W) * np.cos(5 * j / H) + 50 * i / W
     + 20 * np.sin(17 * i * j / (W * H))).astype(np.float32)
z[10, 10:20] = 20.0  # samples exactly on a level
def tif(name, gt, epsg, a=z):
    d = gdal.GetDriverByName('GTiff').Create(name, W, H, 1, gdal.GDT_Float32)
    d.SetGeoTransform(gt)
    if epsg:
        s = osr.SpatialReference()
        s.ImportFromEPSG(epsg)
        d.SetProjection(s.ExportToWkt())
    d.GetRasterBand(1).WriteArray(a)
    d = None
tif('utm.tif', (600000, 30, 0, 3670000, 0, -30), 32633)
tif('rot.tif', (600000, 20, 5, 3670000, 4, -25), 32633)
tif('south.tif', (600000, 30, 0, 3668590, 0, 30), 32633, z[::-1].copy())
tif('geo.tif', (16.0, 0.001, 0, 33.2, 0, -0.001), 4326)
tif('nocrs.tif', (1000, 2, 0, 5000, 0, -2), 0)
with open('dem.pgm', 'wb') as f:
    f.write(b'P5\n%d %d\n255\n' % (W, H))
    f.write(bytes(int(v) for v in ((z - z.min()) / (z.max() - z.min()) * 255).ravel()))
EOF

# Python helpers: points(FILE) the layer's features as (fields, [points])
cat >ogrpts.py <<'EOF'
from osgeo import ogr
def features(name):
    ds = ogr.Open(name)
    lay = ds.GetLayer(0)
    out = []
    for f in lay:
        g = f.GetGeometryRef()
        out.append(({k: f.GetField(k) for k in f.keys()}, g.Clone()))
    return out
def line_points(g):
    return [g.GetPoint_2D(i) for i in range(g.GetPointCount())]
def transform(stats):
    for s in open(stats):
        if s.startswith('map.transform='):
            return [float(v) for v in s.split('=')[1].split(',')]
    raise SystemExit('no map.transform in ' + stats)
EOF

# ------------------------------------- contours on the terrain's wall tops
# Exactly: every point of the contours (doubles) is a wall-top vertex of
# the terrain (PLY floats, its lowest plane below every height so that
# both have the same walls) mapped by the printed affine map, evaluated
# in the same order, and the loops the terrain writes (--loops .obj) map
# one to one, point by point, onto the lines (backwards where the map
# mirrors).
LV=-40,-15.5,0,7.25,20,33
for r in utm rot south geo; do
    succeeds "contours $r.tif --crs native" contours $r.tif --levels $LV --crs native \
        -o $r.gpkg --stats
    cp err $r.stats
    succeeds "terrain of $r.tif" terrain --heightmap $r.tif --levels -1000,$LV -o $r.ply \
        --loops $r.obj --quiet
    check "$r.tif: the contours are the terrain's wall tops, mapped exactly" '"$PY" - $r <<EOF
import struct, sys
from ogrpts import *
r = sys.argv[1]
t = transform(r + ".stats")
M = lambda x, z: (t[0] + t[1] * x + t[2] * z, t[3] + t[4] * x + t[5] * z)
data = open(r + ".ply", "rb").read()
head, body = data.split(b"end_header\n", 1)
nv = int(head.split(b"element vertex ")[1].split()[0])
nf = int(head.split(b"element face ")[1].split()[0])
v = struct.unpack("<%df" % (3 * nv), body[:12 * nv])
tops = set()
for k in range(nf):
    rec = body[12 * nv + 18 * k: 12 * nv + 18 * (k + 1)]
    n, a, b, c, terr, wall = struct.unpack("<B3IiB", rec)
    if wall:
        y = max(v[3 * q + 1] for q in (a, b, c))
        tops |= {M(v[3 * q], v[3 * q + 2]) for q in (a, b, c) if v[3 * q + 1] == y}
got = []
for props, g in features(r + ".gpkg"):
    got += line_points(g)
assert len(got) > 100, len(got)
assert set(got) == tops, (r, len(set(got)), len(tops), len(set(got) - tops), len(tops - set(got)))
f32 = lambda s: struct.unpack("f", struct.pack("f", float(s)))[0]
obj = [M(f32(s.split()[1]), f32(s.split()[3])) for s in open(r + ".obj") if s.startswith("v ")]
lines = [[obj[int(i) - 1] for i in s.split()[1:]] for s in open(r + ".obj") if s.startswith("l ")]
feats = [line_points(g) for _, g in features(r + ".gpkg")]
if r == "south":  # the map mirrors: written backwards
    feats = [p[::-1] for p in feats]
assert feats == lines, (len(feats), len(lines))
EOF'
done

# gdal_contour puts its samples at pixel centres too: its points inside
# the centres' rectangle (it also runs lines on to the raster's edge) are
# ours, within the rounding of the terrain's float frame (0.5 mm at 1 km
# from the middle).
gdal_contour -q -a elev -fl -40 -15.5 0 7.25 20 33 utm.tif gdal.gpkg || bad "gdal_contour"
check "gdal_contour's points are ours (pixel centres)" '"$PY" - <<EOF
import bisect
from ogrpts import *
ours = sorted(p for _, g in features("utm.gpkg") for p in line_points(g))
theirs = [p for _, g in features("gdal.gpkg") for p in line_points(g)
          if 600015 <= p[0] <= 601815 and 3668605 <= p[1] <= 3669985]
def dist(p, tol=1e-3):
    i = bisect.bisect_left(ours, (p[0] - tol, -1e300))
    best = 1e9
    while i < len(ours) and ours[i][0] <= p[0] + tol:
        best = min(best, abs(ours[i][1] - p[1]))
        i += 1
    return best
assert len(theirs) > 100, len(theirs)
worst = max(dist(p) for p in theirs)
assert worst < 1e-3, worst
EOF'

# ------------------------------------------------------------ CRS, extent
# ogrinfo: the layer's CRS is the raster's, its extent the rectangle of
# the pixel centres (band polygons tile it).
succeeds "polygons, native CRS, GeoPackage" contours utm.tif --interval 10 --polygons \
    --crs native -o bands.gpkg
ogrinfo -so -al bands.gpkg >info 2>&1 || bad "ogrinfo bands.gpkg"
check "GeoPackage: MultiPolygon layer" 'grep -qx "Geometry: Multi Polygon" info'
check "GeoPackage: the extent of the pixel centres ($(grep Extent info))" \
    'grep -qx "Extent: (600015.000000, 3668605.000000) - (601815.000000, 3669985.000000)" info'
check "GeoPackage: UTM zone 33N" 'grep -q "ID\[\"EPSG\",32633\]\]$" info'
succeeds "polygons, native CRS, FlatGeobuf" contours utm.tif --interval 10 --polygons \
    --crs native -o bands.fgb
ogrinfo -so -al bands.fgb >info 2>&1 || bad "ogrinfo bands.fgb"
check "FlatGeobuf: MultiPolygon, extent, CRS" 'grep -qx "Geometry: Multi Polygon" info &&
    grep -qx "Extent: (600015.000000, 3668605.000000) - (601815.000000, 3669985.000000)" info &&
    grep -q "ID\[\"EPSG\",32633\]\]$" info'
check "FlatGeobuf and GeoPackage: the same features" '"$PY" - <<EOF
from ogrpts import *
key = lambda f: f[0]["elev_min"]
a = sorted([(p, bytes(g.ExportToWkb())) for p, g in features("bands.gpkg")], key=key)
b = sorted([(p, bytes(g.ExportToWkb())) for p, g in features("bands.fgb")], key=key)
assert a == b and len(a) > 5
EOF'
check "native band polygons: valid, counter-clockwise, tiling the centres" '"$PY" - <<EOF
from shapely import wkb
from shapely.ops import unary_union
from ogrpts import *
gs = []
for p, g in features("bands.gpkg"):
    s = wkb.loads(bytes(g.ExportToWkb()))
    assert s.geom_type == "MultiPolygon" and s.is_valid, p
    for q in s.geoms:
        assert q.exterior.is_ccw and all(not h.is_ccw for h in q.interiors), p
    gs.append(s)
want = 60 * 46 * 900.0
assert abs(sum(s.area for s in gs) - want) < 1e-6 * want
assert abs(unary_union(gs).area - want) < 1e-6 * want
EOF'
# a south-up raster mirrors the map: rings are written backwards
succeeds "polygons of a south-up raster" contours south.tif --interval 10 --polygons \
    --crs native -o south-bands.gpkg
check "south up: exteriors still counter-clockwise, tiling the same rectangle" '"$PY" - <<EOF
from shapely import wkb
from shapely.ops import unary_union
from ogrpts import *
a = features("south-bands.gpkg")
b = features("bands.gpkg")
assert [p for p, _ in a] == [p for p, _ in b]
gs = []
for p, g in a:
    s = wkb.loads(bytes(g.ExportToWkb()))
    assert s.is_valid and all(q.exterior.is_ccw for q in s.geoms), p
    assert all(not h.is_ccw for q in s.geoms for h in q.interiors), p
    gs.append(s)
want = 60 * 46 * 900.0
assert abs(unary_union(gs).area - want) < 1e-6 * want
assert unary_union(gs).bounds == (600015, 3668605, 601815, 3669985), unary_union(gs).bounds
EOF'
# Shapefile: the .prj beside it, no temporary directory left
succeeds "lines to a Shapefile" contours utm.tif --interval 10 --crs native -o lines.shp
check "Shapefile: .shp, .shx, .dbf, .prj, nothing temporary" \
    '[ -s lines.shp ] && [ -s lines.shx ] && [ -s lines.dbf ] && grep -q "UTM_Zone_33N" lines.prj &&
     [ -z "$(ls | grep tmp)" ]'
# --format names the driver, whatever the extension
succeeds "--format GPKG" contours utm.tif --interval 10 --crs native --format GPKG -o lines.dat
check "--format GPKG: a GeoPackage" 'ogrinfo -so lines.dat 2>&1 | grep -q "using driver .GPKG."'

# ------------------------------------------------------ longitude, latitude
# The default: RFC 7946 GeoJSON in WGS 84, each point the native one
# reprojected by OSR (7 decimals), the layer's extent the footprint.
succeeds "polygons, lon/lat GeoJSON" contours utm.tif --interval 10 --polygons -o bands.geojson
ogrinfo -so -al bands.geojson >info 2>&1 || bad "ogrinfo bands.geojson"
check "GeoJSON: WGS 84 (no crs member: RFC 7946), MultiPolygon" \
    'grep -q "ID\[\"EPSG\",4326\]\]$" info && grep -qx "Geometry: Multi Polygon" info &&
     ! grep -q "\"crs\"" bands.geojson'
check "GeoJSON: the extent is the pixel centres' footprint ($(grep Extent info))" '"$PY" - <<EOF
import re
from osgeo import osr
u = osr.SpatialReference(); u.ImportFromEPSG(32633)
g = osr.SpatialReference(); g.ImportFromEPSG(4326)
for s in (u, g):
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
ct = osr.CoordinateTransformation(u, g)
border = [(600015 + 30 * i, y) for i in range(61) for y in (3668605, 3669985)]
border += [(x, 3668605 + 30 * j) for j in range(47) for x in (600015, 601815)]
ll = [ct.TransformPoint(x, y)[:2] for x, y in border]
want = (min(p[0] for p in ll), min(p[1] for p in ll), max(p[0] for p in ll), max(p[1] for p in ll))
got = [float(v) for v in re.findall(r"-?[0-9.]+", [s for s in open("info") if s.startswith("Extent")][0])]
assert all(abs(a - b) < 6e-7 for a, b in zip(got, want)), (got, want)
EOF'
succeeds "lines, lon/lat GeoJSON" contours utm.tif --levels $LV -o lines.geojson
check "lon/lat lines: the native lines reprojected by OSR" '"$PY" - <<EOF
from osgeo import osr
from ogrpts import *
u = osr.SpatialReference(); u.ImportFromEPSG(32633)
g = osr.SpatialReference(); g.ImportFromEPSG(4326)
for s in (u, g):
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
ct = osr.CoordinateTransformation(u, g)
a = features("lines.geojson")
b = features("utm.gpkg")
assert len(a) == len(b) > 5
for (p, x), (q, y) in zip(a, b):
    assert p == q, (p, q)
    px, py = line_points(x), line_points(y)
    assert len(px) == len(py)
    for (lon, lat), (e, n) in zip(px, py):
        w = ct.TransformPoint(e, n)
        assert abs(lon - w[0]) <= 6e-8 and abs(lat - w[1]) <= 6e-8, (lon, lat, w)
EOF'
succeeds "lon/lat of a raster in degrees" contours geo.tif --levels $LV -o geo.geojson
check "in degrees already: lon/lat = the raster's coordinates" '"$PY" - <<EOF
from ogrpts import *
a = [p for _, g in features("geo.geojson") for p in line_points(g)]
b = [p for _, g in features("geo.gpkg") for p in line_points(g)]
assert len(a) == len(b) > 100
assert all(abs(x - u) <= 6e-8 and abs(y - v) <= 6e-8 for (x, y), (u, v) in zip(a, b))
assert all(16.0005 - 1e-7 <= x <= 16.0605 + 1e-7 and 33.1535 - 1e-7 <= y <= 33.1995 + 1e-7 for x, y in a)
EOF'

# ------------------------------------------------------------ determinism
# The same bytes for any thread count and instruction set (FlatGeobuf and
# GeoJSON hold no timestamps).
succeeds "reference FlatGeobuf" contours utm.tif --interval 5 --polygons --crs native -o ref.fgb --threads 1
succeeds "reference lon/lat GeoJSON" contours utm.tif --interval 5 -o ref.geojson --threads 1
for t in 2 3; do
    OMP_NUM_THREADS=$t "$STRATA" contours utm.tif --interval 5 --polygons --crs native -o t.fgb \
        --threads $t --quiet
    same "FlatGeobuf, $t threads" ref.fgb t.fgb
    STRATA_SIMD=scalar "$STRATA" contours utm.tif --interval 5 -o t.geojson --threads $t --quiet
    same "lon/lat GeoJSON, scalar kernels, $t threads" ref.geojson t.geojson
done

# ------------------------------------------------- without a CRS, or none
# A geotransform without a CRS: the raster's coordinates, no CRS claimed.
succeeds "a geotransform without a CRS" contours nocrs.tif --interval 10 --polygons -o nocrs.geojson
ogrinfo -so -al nocrs.geojson >info 2>&1 || bad "ogrinfo nocrs.geojson"
check "no CRS: the raster's coordinates ($(grep Extent info))" \
    'grep -qx "Extent: (1001.000000, 4907.000000) - (1121.000000, 4999.000000)" info'
succeeds "a geotransform without a CRS, GeoPackage" contours nocrs.tif --interval 10 -o nocrs.gpkg
ogrinfo -so -al nocrs.gpkg >info 2>&1 || bad "ogrinfo nocrs.gpkg"
check "no CRS in a GeoPackage: said to have none" 'grep -q "strata map units (no CRS)" info''
# PGM: strata's own GeoJSON, map units, every band a MultiPolygon
succeeds "PGM polygons" contours dem.pgm --interval 0.1 --polygons -o pgm.geojson
ogrinfo -so -al pgm.geojson >info 2>&1 || bad "ogrinfo pgm.geojson"
check "PGM: one geometry type (MultiPolygon), extent in cells ($(grep Extent info))" \
    'grep -qx "Geometry: Multi Polygon" info &&
     grep -qx "Extent: (0.000000, 0.000000) - (60.000000, 46.000000)" info &&
     [ "$(grep -c "\"Polygon\"" pgm.geojson)" = 0 ]'
succeeds "PGM to a GeoPackage" contours dem.pgm --interval 0.1 -o pgm.gpkg
ogrinfo -so -al pgm.gpkg >info 2>&1 || bad "ogrinfo pgm.gpkg"
check "PGM GeoPackage: lines in map units, said to have no CRS" \
    'grep -qx "Geometry: Line String" info && grep -q "strata map units (no CRS)" info'

# ------------------------------------------------------------ bad input
# fails CODE WORD DESC FILE ARGS...: lib.sh's fails, and FILE not made
fails_nofile() {
    code=$1 word=$2 what=$3 file=$4
    rm -rf "$file"
    shift 4
    fails "$code" "$word" "$what" "$@"
    if [ -e "$file" ] || [ -n "$(ls | grep tmp)" ]; then bad "$what: a file was left"; else ok; fi
}
fails_nofile 2 "--crs native" "--crs with a PGM" x.gpkg contours dem.pgm --crs native -o x.gpkg
fails_nofile 2 "--crs lonlat" "--crs lonlat without a CRS" x.geojson contours nocrs.tif --crs lonlat -o x.geojson
fails_nofile 2 "--crs utm" "an unknown --crs" x.gpkg contours utm.tif --crs utm -o x.gpkg
fails_nofile 2 "--crs native" "--crs native to GeoJSON" x.geojson contours utm.tif --crs native -o x.geojson
fails_nofile 2 "--crs lonlat" "--crs to SVG" x.svg contours utm.tif --crs lonlat -o x.svg
fails_nofile 2 "-o x.xyz" "an extension GDAL cannot write" x.xyz contours utm.tif -o x.xyz
fails_nofile 2 "--format GTiff" "a raster driver" x.tif contours utm.tif --format GTiff -o x.tif
fails_nofile 2 "--format Nope" "an unknown driver" x.gpkg contours utm.tif --format Nope -o x.gpkg
fails_nofile 1 "x/y.gpkg" "a missing directory" x/y.gpkg contours utm.tif -o x/y.gpkg
mkdir d.gpkg
fails 1 "d.gpkg" "an output that is a directory" contours utm.tif -o d.gpkg
check "a directory output: nothing left beside it" '[ -d d.gpkg ] && [ -z "$(ls d.gpkg)" ] &&
    [ -z "$(ls | grep tmp)" ]'

finish
