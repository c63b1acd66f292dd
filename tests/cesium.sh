#!/bin/sh
# Placed worlds in CesiumJS (npm package cesium, pinned by ./bootstrap
# --tests) in headless Chromium with software WebGL: nothing from the
# network (no Ion token, no imagery, a plain globe; tests/cesium.mjs).
# Two worlds:
#   - a --place'd planet (2.35 E, 48.85 N, 1000 m up, a unit 1000 m);
#   - with GDAL: a --lod terrain from a GeoTIFF in UTM zone 11N, placed
#     where its raster lies (no --place), the camera at the raster's centre
#     as gdaltransform (not strata) reprojects it.
# For each: the tileset loads with no tile failure and no console error;
# from the camera at its place, 45 degrees down, tiles are drawn and most
# of the picture's middle (the middle third each way) differs from the
# picture without the tileset; from a camera at the antipode no tile is
# drawn and the picture is the one without the tileset, pixel for pixel.
# Screenshots are kept in tests/cesium-*.png of the build directory.
# Skipped (77) without node, the npm packages cesium and ws, or Chromium.
# Run by `make check` with STRATA and SRCDIR set.  POSIX sh.
: "${STRATA:?STRATA must name the strata program}"
: "${SRCDIR:=.}"
case $STRATA in /*) ;; *) STRATA=$(pwd)/$STRATA ;; esac
case $SRCDIR in /*) ;; *) SRCDIR=$(pwd)/$SRCDIR ;; esac
builddir=$(pwd)
unset STRATA_SIMD

command -v node >/dev/null 2>&1 || { echo "SKIP: node is not installed"; exit 77; }
modules=${STRATA_NODE_MODULES:-${HOME:-/nonexistent}/.cache/strata-npm/node_modules}
for f in cesium/Build/Cesium/Cesium.js ws/wrapper.mjs; do
    if [ ! -f "$modules/$f" ]; then
        echo "SKIP: $modules/$f is missing (./bootstrap --tests installs it)"
        exit 77
    fi
done
. "$SRCDIR/tests/browser.sh"
browser_find || { echo "SKIP: Chromium is not installed (Debian: apt-get install chromium)"; exit 77; }
"$STRATA" planet --help | grep -q -- '--place' || { echo "SKIP: no --place in this strata"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-cesium.XXXXXX") || exit 99
browser=
cleanup() {
    [ -n "$browser" ] && kill "$browser" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cd "$tmp" || exit 99
out=$builddir
. "$SRCDIR/tests/lib.sh"
pass=0
fail=0
field() { tr ' ' '\n' <"$2" | sed -n "s/^$1=//p" | head -n 1; }

if ! "$STRATA" planet --level 5 --chunk-level 1 --terraces 12 --place 2.35,48.85,1000 \
    --place-scale 1000 --quiet -o planet 2>err; then
    echo "FAIL: cannot make the planet: $(cat err)"
    exit 1
fi
scenes="planet:2.35,48.85,1000,6000"
if "$STRATA" info | grep -q '^gdal: yes' && command -v gdal_translate >/dev/null 2>&1 &&
    command -v gdaltransform >/dev/null 2>&1; then
    # 81 x 61 pixels of 30 m: hills 140..260 m high
    awk 'BEGIN { printf "ncols 81\nnrows 61\nxllcorner 600000\nyllcorner 3670000\ncellsize 30\n"
        for (j = 0; j < 61; j++) { for (i = 0; i < 81; i++)
            printf "%s%d", (i ? " " : ""), 200 + 60 * sin(i / 9.0) * cos(j / 7.0) + (i * 7 + j * 3) % 5
            printf "\n" } }' >dem.asc
    if ! gdal_translate -q -a_srs EPSG:32611 dem.asc utm.tif 2>err ||
        ! "$STRATA" terrain --heightmap utm.tif --terraces 6 --tile-cells 32 --lod --quiet \
            -o terrain 2>err; then
        echo "FAIL: cannot make the terrain: $(cat err)"
        exit 1
    fi
    # the raster's centre: (600000 + 81 x 15, 3670000 + 61 x 15)
    ll=$(echo "601215 3670915" | gdaltransform -s_srs EPSG:32611 -t_srs EPSG:4326 -output_xy)
    set -- $ll
    scenes="$scenes terrain:$1,$2,200,4000"
else
    echo "no GDAL (strata built without it, or no gdal-bin): the planet only"
fi

browser_start "$tmp" || { echo "SKIP: Chromium did not start"; exit 77; }
for s in $scenes; do
    name=${s%%:*}
    where=${s#*:}
    echo "$name at $where (lon, lat, height, camera range in metres)"
    if ! node "$SRCDIR/tests/cesium.mjs" "$modules/ws/wrapper.mjs" "$ws" \
        "$modules/cesium/Build/Cesium" "$tmp/$name" "$tmp/$name" "$where" >"$name.out" 2>&1; then
        bad "$name: CesiumJS did not get ready: $(tail -n 5 "$name.out")"
        continue
    fi
    sed 's/^/  /' "$name.out"
    o=$name.out
    check "$name: no console errors" '[ "$(field errors $o)" = 0 ]'
    check "$name: no tile failed" '[ "$(field failed $o)" = 0 ]'
    check "$name: tiles loaded and drawn at the place" \
        '[ "$(field tiles $o)" -gt 0 ] && [ "$(field near.selected $o)" -gt 0 ]'
    node "$SRCDIR/tests/png-diff.mjs" "$name-near.png" "$name-near-bare.png" \
        0.3333,0.3333,0.6667,0.6667 >near.diff
    echo "  middle of the picture: $(cat near.diff)"
    check "$name: most of the middle is the world" \
        '[ $(( 2 * $(field differ near.diff) )) -gt "$(field pixels near.diff)" ]'
    node "$SRCDIR/tests/png-diff.mjs" "$name-far.png" "$name-far-bare.png" >far.diff
    check "$name: at the antipode no tile is drawn" '[ "$(field far.selected $o)" = 0 ]'
    check "$name: at the antipode the picture is the globe's alone ($(cat far.diff))" \
        '[ "$(field differ far.diff)" = 0 ]'
    for v in near near-bare far; do
        cp "$name-$v.png" "$out/tests/cesium-$name-$v.png" 2>/dev/null
    done
done
finish
