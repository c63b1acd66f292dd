#!/bin/sh
# contours.sh: strata contours against gdal_contour, same machine, same
# run, one key=value line per figure (bench=NAME first).
#
#   perf/contours.sh [--size N] [--runs R] [--dir DIR]
#
# The DEM: perf/contours-dem's smooth synthetic one (a 257 x 257 fBm grid
# of strata's noise upsampled bicubically to N x N, default 4096; a
# 16-bit PGM, samples 1000..64535), read by both tools.  Levels every 800
# from 400 (base = interval / 2, between sample values): 80 levels.
#
#   lines     strata contours -> GeoJSON against gdal_contour -> Shapefile
#             (its fastest format) and -> GeoJSON: best of R seconds each,
#             peak RSS, and the ratio gdal / strata
#             then strata's own phases (--stats: time.load, .loops,
#             .write, points; lines are made and written together, all
#             in time.loops) and two floors: copy.seconds, copying the
#             output file (its bytes through the page cache: what writing
#             them costs at least), and floats.ns_per_number
#             (perf/contours-floats: the decimals alone, one thread)
#   polygons  strata contours --polygons -> GeoJSON against gdal_contour -p
#             -> Shapefile
#   georef    the DEM as a UTM GeoTIFF (gdal_translate): strata contours
#             -> lon/lat GeoJSON (its phases too) and --crs native ->
#             GeoPackage, against gdal_contour -> GeoPackage (needs a
#             strata built with GDAL)
#   agree     per level: total length of the lines (strata --stats against
#             the Shapefile's, read with python3-gdal), the largest
#             relative difference, and the closed rings and open lines of
#             each (equal counts wanted)
#
# Needs gdal_contour (Debian gdal-bin) and, for `agree`, python3 with
# osgeo (python3-gdal).  Without gdal_contour only strata's figures are
# printed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
STRATA=${STRATA:-$top/apps/strata}
DEM=${DEM:-$here/contours-dem}
size=4096 runs=3 dir=
while [ $# -gt 0 ]; do
    case $1 in
    --size) size=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "usage: $0 [--size N] [--runs R] [--dir DIR]" >&2; exit 2 ;;
    esac
done
if [ -z "$dir" ]; then
    dir=$(mktemp -d "${TMPDIR:-/tmp}/strata-contours-bench.XXXXXX") || exit 1
    trap 'rm -rf "$dir"' EXIT
fi
cd "$dir" || exit 1
interval=800 base=400
"$DEM" "$size" 257 dem.pgm || exit 1
have_gdal=0
command -v gdal_contour >/dev/null 2>&1 && have_gdal=1
PY=
for p in python3 /usr/bin/python3; do
    if "$p" -c 'from osgeo import ogr' 2>/dev/null; then PY=$p; break; fi
done

# best RUNS wall seconds and the peak RSS (KB) of a command: "secs rss"
best() {
    b= r=
    i=0
    while [ $i -lt "$runs" ]; do
        /usr/bin/time -f "%e %M" -o t.txt "$@" >/dev/null 2>&1 || { echo "fail fail"; return; }
        read -r s m <t.txt
        if [ -z "$b" ] || awk -v a="$s" -v b="$b" 'BEGIN { exit !(a < b) }'; then b=$s r=$m; fi
        i=$((i + 1))
    done
    echo "$b $r"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }'; }
rmshp() { rm -f "$1".shp "$1".shx "$1".dbf "$1".prj "$1".cpg; }

S="$STRATA contours dem.pgm --height-scale 65535 --interval $interval --base $base --no-sync --quiet"
echo "bench=lines"
echo "dem=${size}x${size} synthetic (fBm upsampled bicubically), interval=$interval base=$base"
set -- $(best $S -o lines.geojson)
st=$1
echo "strata.seconds=$1"
echo "strata.peak_rss_kb=$2"
echo "strata.bytes=$(wc -c <lines.geojson)"
echo "strata.allowed_rss_kb=$(( ($(wc -c <dem.pgm) + $(wc -c <lines.geojson)) * 3 / 2 / 1024 ))"
$S -o lines.geojson --stats 2>stats.txt
sed -n 's/^\(time\.[a-z]*\|points\|loops\)=/strata.\1=/p' stats.txt
set -- $(best cp lines.geojson copy.geojson)
echo "copy.seconds=$1"
rm -f copy.geojson
FLOATS=${FLOATS:-$here/contours-floats}
[ -x "$FLOATS" ] && "$FLOATS" 5000000 | sed -n 's/^ns_per_number=/floats.ns_per_number=/p'
if [ $have_gdal -eq 1 ]; then
    rmshp g
    set -- $(best sh -c "rm -f g.shp g.shx g.dbf g.prj; gdal_contour -q -i $interval -off $base -a elev dem.pgm g.shp")
    echo "gdal_shp.seconds=$1"
    echo "gdal_shp.peak_rss_kb=$2"
    echo "speedup_vs_shp=$(ratio "$1" "$st")"
    set -- $(best sh -c "rm -f g.geojson; gdal_contour -q -f GeoJSON -i $interval -off $base -a elev dem.pgm g.geojson")
    echo "gdal_geojson.seconds=$1"
    echo "speedup_vs_geojson=$(ratio "$1" "$st")"
fi

echo "bench=polygons"
set -- $(best $S --polygons -o bands.geojson)
sp=$1
echo "strata.seconds=$1"
echo "strata.peak_rss_kb=$2"
echo "strata.bytes=$(wc -c <bands.geojson)"
if [ $have_gdal -eq 1 ]; then
    set -- $(best sh -c "rm -f gp.shp gp.shx gp.dbf gp.prj; gdal_contour -q -p -i $interval -off $base -amin elev_min -amax elev_max dem.pgm gp.shp")
    echo "gdal_shp.seconds=$1"
    echo "gdal_shp.peak_rss_kb=$2"
    echo "speedup_vs_shp=$(ratio "$1" "$sp")"
fi

# The same DEM as a GeoTIFF in UTM zone 33N (30 m pixels at 600000,
# 3670000): strata's default lon/lat GeoJSON (reprojected through OSR),
# its --crs native GeoPackage (written through OGR), and gdal_contour to a
# GeoPackage in the raster's CRS.
if [ $have_gdal -eq 1 ] && "$STRATA" info | grep -q '^gdal: yes'; then
    echo "bench=georef"
    ur=$((600000 + 30 * size)) lr=$((3670000 - 30 * size))
    gdal_translate -q -a_srs EPSG:32633 -a_ullr 600000 3670000 $ur $lr dem.pgm dem.tif || exit 1
    G="$STRATA contours dem.tif --interval $interval --base $base --no-sync --quiet"
    set -- $(best sh -c "rm -f ll.geojson; $G -o ll.geojson")
    echo "strata_lonlat_geojson.seconds=$1"
    echo "strata_lonlat_geojson.peak_rss_kb=$2"
    echo "strata_lonlat_geojson.bytes=$(wc -c <ll.geojson)"
    $G -o ll.geojson --stats 2>stats.txt
    sed -n 's/^\(time\.[a-z]*\|points\)=/strata_lonlat_geojson.\1=/p' stats.txt
    set -- $(best sh -c "rm -f n.gpkg; $G --crs native -o n.gpkg")
    sg=$1
    echo "strata_native_gpkg.seconds=$1"
    echo "strata_native_gpkg.peak_rss_kb=$2"
    set -- $(best sh -c "rm -f g.gpkg; gdal_contour -q -i $interval -off $base -a elev dem.tif g.gpkg")
    echo "gdal_gpkg.seconds=$1"
    echo "gdal_gpkg.peak_rss_kb=$2"
    echo "speedup_vs_gpkg=$(ratio "$1" "$sg")"
fi

if [ $have_gdal -eq 1 ] && [ -n "$PY" ]; then
    echo "bench=agree"
    $S -o lines.geojson --stats 2>stats.txt
    sed -n 's/^level\.[0-9]*=\([^ ]*\) length=\([^ ]*\) closed=\([0-9]*\) open=\([0-9]*\)$/\1 \2 \3 \4/p' stats.txt >strata.txt
    "$PY" - <<'PYEOF'
from osgeo import ogr
ds = ogr.Open('g.shp')
lay = ds.GetLayer(0)
per = {}
for f in lay:
    g = f.GetGeometryRef()
    e = float(f.GetField('elev'))
    n = g.GetPointCount()
    closed = n > 2 and g.GetPoint_2D(0) == g.GetPoint_2D(n - 1)
    L, c, o = per.get(e, (0.0, 0, 0))
    per[e] = (L + g.Length(), c + closed, o + (not closed))
worst, same, levels = 0.0, 0, 0
for line in open('strata.txt'):
    e, L, c, o = line.split()
    e, L, c, o = float(e), float(L), int(c), int(o)
    gl, gc, go = per.get(e, (0.0, 0, 0))
    d = abs(L - gl) / gl if gl else (0.0 if L == 0 else 1.0)
    worst = max(worst, d)
    levels += 1
    same += (c, o) == (gc, go)
    print('level=%g strata_length=%.3f gdal_length=%.3f rel_diff=%.2e strata_closed=%d gdal_closed=%d strata_open=%d gdal_open=%d'
          % (e, L, gl, d, c, gc, o, go))
print('levels=%d' % levels)
print('max_rel_length_diff=%.2e' % worst)
print('levels_same_counts=%d' % same)
PYEOF
fi
