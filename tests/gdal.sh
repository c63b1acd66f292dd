#!/bin/sh
# GeoTIFF and other GDAL rasters from the command line: the cell size from
# a projected geotransform, heights in the raster's units (scale and
# offset applied), compression changing nothing, nodata cells left out
# (and refused by worlds and templates), worlds placed where their raster
# lies, bad rasters.  Needs a build with GDAL, gdal_translate (Debian
# gdal-bin) and python3 with osgeo (python3-gdal); skipped (77) otherwise.
# Run by `make check` with STRATA (the program) set.  POSIX sh.
. "$(dirname "$0")/lib.sh"
if ! "$STRATA" info | grep -q '^gdal: yes'; then
    echo "SKIP: strata was built without GDAL (configure --with-gdal; Debian libgdal-dev)"
    exit 77
fi
if ! command -v gdal_translate >/dev/null 2>&1; then
    echo "SKIP: gdal_translate not found (Debian gdal-bin)"
    exit 77
fi
PY=
for p in /usr/bin/python3 python3; do
    if "$p" -c 'from osgeo import osr' 2>/dev/null; then
        PY=$p
        break
    fi
done
if [ -z "$PY" ]; then
    echo "SKIP: python3 with osgeo not found (Debian python3-gdal)"
    exit 77
fi

test_dir gdal

# asc FILE W H HOLE SCALE OFFSET: an ESRI ASCII grid of integer heights
# (SCALE x (i + 2j mod 17) + OFFSET), with a 3 x 2 block of nodata at
# (4..6, 3..4) when HOLE is 1.
asc() {
    awk -v w="$2" -v h="$3" -v hole="$4" -v s="$5" -v o="$6" 'BEGIN {
        printf "ncols %d\nnrows %d\nxllcorner 500000\nyllcorner 4000000\ncellsize 30\nNODATA_value -9999\n", w, h
        for (j = 0; j < h; j++) {
            for (i = 0; i < w; i++) {
                v = s * ((i + 2 * j) % 17) + o
                if (hole && i >= 4 && i < 7 && j >= 3 && j < 5) v = -9999
                printf "%s%d", (i ? " " : ""), v
            }
            printf "\n"
        }
    }' >"$1"
}

T="terrain --levels 3,6,9,12 --quiet"

# ------------------------------------------------ georeferencing, units
asc dem.asc 24 18 0 1 0
gdal_translate -q -a_srs EPSG:32633 dem.asc utm.tif || bad "gdal_translate utm.tif"
gdal_translate -q -a_srs EPSG:4326 dem.asc geo.tif || bad "gdal_translate geo.tif"
gdal_translate -q -a_srs EPSG:32633 -co COMPRESS=DEFLATE -co TILED=YES -co BLOCKXSIZE=16 \
    -co BLOCKYSIZE=16 dem.asc deflate.tif || bad "gdal_translate deflate.tif"
"$STRATA" $T --heightmap utm.tif -o utm.ply && ok || bad "a projected GeoTIFF"
"$STRATA" $T --heightmap utm.tif --cell-size 30 -o utm30.ply && ok || bad "--cell-size 30"
same "a projected raster's cells are its pixel size (30 m)" utm.ply utm30.ply
"$STRATA" $T --heightmap geo.tif -o geo.ply && ok || bad "a geographic GeoTIFF"
"$STRATA" $T --heightmap geo.tif --cell-size 1 -o geo1.ply && ok || bad "--cell-size 1"
same "degrees are no cell size: 1 unless --cell-size" geo.ply geo1.ply
"$STRATA" $T --heightmap deflate.tif -o deflate.ply && ok || bad "a tiled, deflated GeoTIFF"
same "compression and tiling change nothing" utm.ply deflate.ply
# heights as the raster holds them (scale 1): the same as a PFM would give
"$STRATA" $T --heightmap dem.asc --cell-size 30 -o asc.ply && ok || bad "an ASCII grid"
same "an ASCII grid and its GeoTIFF" asc.ply utm.ply
# the band's scale and offset apply: 2 v + 10 stored as v
asc scaled.asc 24 18 0 2 10
gdal_translate -q -a_srs EPSG:32633 -a_scale 2 -a_offset 10 dem.asc scaled.tif || bad "scaled.tif"
gdal_translate -q -a_srs EPSG:32633 scaled.asc scaled-ref.tif || bad "scaled-ref.tif"
"$STRATA" $T --heightmap scaled.tif -o scaled.ply && ok || bad "a scaled GeoTIFF"
"$STRATA" $T --heightmap scaled-ref.tif -o scaled-ref.ply && ok || bad "scaled reference"
same "scale and offset applied" scaled.ply scaled-ref.ply

# ------------------------------------------- worlds where rasters lie
# A world of glb tiles from a raster in a projected CRS lies where the
# raster does, without --place: the tileset's root transform takes each
# sample's (x, y = 0, z), at its pixel's centre, to within 10 cm across of
# the ellipsoid point under that pixel's centre (GDAL's own reprojection;
# 7.5 cm at the corners, where the projection's scale has changed),
# the flat terrain standing d^2 / 2R above the curved ellipsoid at a
# distance d from its centre.  A raster 12 x 9 km in UTM zone 11N, 1.1
# degrees east of its central meridian: grid north is 0.62 degrees east of
# north there and a grid metre 1.00026 m on the ellipsoid.
awk 'BEGIN { printf "ncols 401\nnrows 301\nxllcorner 600000\nyllcorner 3670000\ncellsize 30\n"
    for (j = 0; j < 301; j++) { for (i = 0; i < 401; i++)
        printf "%s%d", (i ? " " : ""), 200 + (i * 7 + j * 3) % 50; printf "\n" } }' >far.asc
gdal_translate -q -a_srs EPSG:32611 far.asc far.tif || bad "gdal_translate far.tif"
W="terrain --terraces 4 --tile-cells 128 --quiet"
"$STRATA" $W --heightmap far.tif -o placed 2>err && ok || bad "a world from far.tif: $(cat err)"
placed() { # DIR: the worst across and along-up distances, metres
    "$PY" - "$1" <<'PY'
import json, math, sys
from osgeo import osr
t = json.load(open(sys.argv[1] + "/tileset.json"))["root"]["transform"]
utm, wgs = osr.SpatialReference(), osr.SpatialReference()
utm.ImportFromEPSG(32611)
wgs.ImportFromEPSG(4326)
for s in (utm, wgs):
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
ct = osr.CoordinateTransformation(utm, wgs)
a, f = 6378137.0, 1 / 298.257223563
e2 = f * (2 - f)
across = up = 0.0
for i in range(0, 401, 25):
    for j in range(0, 301, 25):
        lon, lat, _ = ct.TransformPoint(600000 + (i + 0.5) * 30, 3679030 - (j + 0.5) * 30)
        l, p = math.radians(lon), math.radians(lat)
        n = a / math.sqrt(1 - e2 * math.sin(p) ** 2)
        e = (n * math.cos(p) * math.cos(l), n * math.cos(p) * math.sin(l), n * (1 - e2) * math.sin(p))
        q = ((i - 200) * 30.0, (j - 150) * 30.0)  # the mesh's x, z
        w = [t[k] * q[0] - t[4 + k] * q[1] + t[12 + k] for k in range(3)]
        d = [w[k] - e[k] for k in range(3)]
        u = (math.cos(p) * math.cos(l), math.cos(p) * math.sin(l), math.sin(p))
        v = sum(d[k] * u[k] for k in range(3))
        across = max(across, math.sqrt(max(0.0, sum(c * c for c in d) - v * v)))
        up = max(up, abs(v - (q[0] ** 2 + q[1] ** 2) / (2 * 6371000.0)))
print("%.4f %.3f" % (across, up))
PY
}
err=$(placed placed)
awk -v e="$err" 'BEGIN { split(e, v, " "); exit !(v[1] < 0.1 && v[2] < 0.05) }' && ok ||
    bad "the placed world's samples off by $err m (across, up beyond the curvature)"
check "world.json: the raster's place and its heading" \
    'grep -q "\"place\":\[-115\.862[0-9]*,33\.2043[0-9]*,0,1\.00026[0-9]*,0\.622[0-9]*\]" placed/world.json'
"$STRATA" $W --heightmap far.tif -o placed --resume && ok || bad "--resume of a placed world"
"$STRATA" $W --heightmap far.tif --place none -o unplaced && ok || bad "--place none"
check "--place none: no root transform" '! grep -q transform unplaced/tileset.json'
same "placing changes no tile" placed/tiles unplaced/tiles
"$STRATA" $W --heightmap far.tif --place -115,33 -o given && ok || bad "--place given"
check "--place: north, not grid north" 'grep -q "\"place\":\[-115,33,0,1\]" given/world.json'
"$STRATA" $W --heightmap far.tif --tile-format ply -o plyw && ok || bad "ply tiles"
check "ply tiles: not placed" '[ ! -e plyw/tileset.json ] && ! grep -q place plyw/world.json'
"$STRATA" $W --heightmap geo.tif -o geow && ok || bad "a world from a geographic raster"
check "degrees: not placed" '! grep -q transform geow/tileset.json'
fails 1 "another world" "--place none over a placed world" \
    $W --heightmap far.tif --place none -o placed --resume
# columns running west: cannot be turned onto the ground
gdal_translate -q -a_srs EPSG:32611 -a_ullr 612030 3679030 600000 3670000 far.asc west.tif ||
    bad "gdal_translate west.tif"
fails 1 "'west.tif': its geotransform is rotated or mirrored" "a mirrored raster" \
    $W --heightmap west.tif -o west
"$STRATA" $W --heightmap west.tif --place none -o west && ok || bad "--place none: mirrored"

# ------------------------------------------------------------- nodata
asc holes.asc 24 18 1 1 0
gdal_translate -q -a_srs EPSG:32633 holes.asc holes.tif || bad "gdal_translate holes.tif"
"$STRATA" $T --heightmap holes.tif --stats -o holes.ply 2>stats && ok || bad "a GeoTIFF with nodata"
# grid triangles without a hole at a corner (the grid splits each cell
# along (i, j)-(i+1, j+1)): 23 x 17 cells, two triangles each
want=$(awk 'function hole(i, j) { return i >= 4 && i < 7 && j >= 3 && j < 5 }
    BEGIN { n = 0
        for (j = 0; j < 17; j++) for (i = 0; i < 23; i++) {
            if (!hole(i, j) && !hole(i, j + 1) && !hole(i + 1, j + 1)) n++
            if (!hole(i, j) && !hole(i + 1, j + 1) && !hole(i + 1, j)) n++
        }
        print n }')
got=$(sed -n 's/^input\.triangles=//p' stats)
[ "$got" = "$want" ] && ok || bad "nodata: $got input triangles, want $want"
fails 1 "nodata" "a world from a raster with holes" $T --heightmap holes.tif --tile-cells 8 -o w
[ ! -e w/tiles ] && ok || bad "the refused world left tiles"
fails 1 "nodata" "a template with holes" $T --template holes.tif -o t.ply
[ ! -e t.ply ] && ok || bad "the refused template left a file"

# contour lines stop at the holes: every point lies on an edge of a grid
# triangle without a nodata corner, so at least cell / sqrt 2 from every
# nodata sample (with heights there, lines pass right through them); band
# polygons and SVG layers need every height.  The ASCII grid has no CRS:
# the lines are in its coordinates, samples at pixel centres.
if "$STRATA" contours holes.asc -o holes.geojson --interval 2 --base 1 --quiet; then
    near=$(python3 -c '
import json, sys
cell, w, h = 30.0, 24, 18
holes = [(500000 + (i + 0.5) * cell, 4000000 + (h - j - 0.5) * cell)
         for i in range(4, 7) for j in range(3, 5)]
d = min(((x - a) ** 2 + (y - b) ** 2) ** 0.5
        for f in json.load(open(sys.argv[1]))["features"]
        for x, y in f["geometry"]["coordinates"] for a, b in holes)
print("%.3f" % (d / cell))' holes.geojson)
    awk -v d="$near" 'BEGIN { exit !(d >= 0.7) }' && ok || bad "a contour within $near cells of nodata"
else
    bad "contours of a raster with nodata"
fi
fails 1 "nodata" "band polygons of a raster with holes" contours holes.tif --polygons --interval 2 -o p.geojson
fails 1 "nodata" "SVG layers of a raster with holes" contours holes.tif --interval 2 -o p.svg
[ ! -e p.geojson ] && [ ! -e p.svg ] && ok || bad "a refused contour job left a file"

# -------------------------------------------------------- bad rasters
head -c 600 utm.tif >cut.tif
fails 1 "cut.tif" "a GeoTIFF cut short" $T --heightmap cut.tif -o cut.ply
[ ! -e cut.ply ] && ok || bad "a file for a bad raster"
printf 'ncols 4\nnrows 3\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9\n-9 -9 -9 -9\n-9 -9 -9 -9\n-9 -9 -9 -9\n' >empty.asc
fails 1 "'empty.asc': every sample is nodata" "a raster of nodata only" \
    $T --heightmap empty.asc -o e.ply
gdal_translate -q empty.asc empty.tif || bad "gdal_translate empty.tif"
fails 1 "'empty.tif': every sample is nodata" "a GeoTIFF of nodata only" \
    $T --heightmap empty.tif -o e.ply
fails 1 "'empty.tif': every sample is nodata" "contours of a GeoTIFF of nodata only" \
    contours empty.tif --interval 1 -o e.geojson
printf 'ncols 5000\nnrows 5000\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3\n' >claims.asc
fails 1 "claims.asc" "a small file claiming 25M samples" $T --heightmap claims.asc -o c.ply

finish
