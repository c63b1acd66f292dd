#!/bin/sh
# strata's viewer in a real browser: 'strata view' serves a small world
# (compressed tiles when the program has meshoptimizer, a level-of-detail
# tree when it has --lod) and headless Chromium, with software WebGL
# (SwiftShader), opens the page through the DevTools protocol
# (tests/viewer.mjs).  Checks:
#   - the server: content types, 403 for paths leaving its roots, 404, 405;
#   - the page: ready (tiles loaded, nothing pending), no console error,
#     three distances (8, 2 and 0.8 radii of the bounding sphere): the
#     picture at 2 is not blank (10-90% of the pixels are planet), zooming
#     in fills more of it and, with --lod, draws deeper tiles; compressed
#     and plain tiles give the same pictures.
# Screenshots are kept in tests/viewer-*.png of the build directory.
#
# Skipped (77) without node, the npm packages three, 3d-tiles-renderer and
# ws (docs/viewer/install-deps.sh installs them, pinned, into
# $HOME/.cache/strata-npm, or set STRATA_NODE_MODULES), or a Chromium that
# starts (Debian: apt-get install chromium; or set STRATA_CHROMIUM).
# Run by `make check` with STRATA and SRCDIR set.  POSIX sh.

: "${STRATA:?STRATA must name the strata program}"
: "${SRCDIR:=.}"
case $STRATA in /*) ;; *) STRATA=$(pwd)/$STRATA ;; esac
case $SRCDIR in /*) ;; *) SRCDIR=$(pwd)/$SRCDIR ;; esac
builddir=$(pwd)
unset STRATA_SIMD

if ! command -v node >/dev/null 2>&1; then
    echo "SKIP: node is not installed (apt-get install nodejs npm)"
    exit 77
fi
modules=${STRATA_NODE_MODULES:-${HOME:-/nonexistent}/.cache/strata-npm/node_modules}
for f in three/build/three.module.js 3d-tiles-renderer/build/index.js ws/wrapper.mjs; do
    if [ ! -f "$modules/$f" ]; then
        echo "SKIP: $modules/$f is missing; install the viewer's npm packages with"
        echo "  $SRCDIR/docs/viewer/install-deps.sh"
        exit 77
    fi
done
. "$SRCDIR/tests/browser.sh"
if ! browser_find; then
    echo "SKIP: Chromium is not installed (Debian: apt-get install chromium)"
    exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-viewer.XXXXXX") || exit 99
server= browser=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null
    [ -n "$browser" ] && kill "$browser" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
cd "$tmp" || exit 99

. "$SRCDIR/tests/lib.sh"
pass=0
fail=0
# field KEY FILE: the value of KEY= in the driver's output
field() { tr ' ' '\n' <"$2" | sed -n "s/^$1=//p" | head -n 1; }
# below A B: A < B (decimals)
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# ------------------------------------------------------------ worlds
extra=
if "$STRATA" planet --help | grep -q -- '--lod'; then extra=--lod; fi
compress=
if "$STRATA" info | grep -q '^meshoptimizer: yes'; then compress=--compress; fi
W="planet --level 6 --chunk-level 2 --terraces 12 $extra --quiet"
if ! "$STRATA" $W $compress -o world 2>err || ! "$STRATA" $W -o plain 2>err ||
    ! "$STRATA" $W --place 2.35,48.85,35 -o placed 2>err; then
    echo "FAIL: cannot make the worlds: $(cat err)"
    exit 1
fi
echo "world: $W $compress"

# serve DIR: start 'strata view DIR --port 0'; sets server (its pid) and url
serve() {
    rm -f url
    STRATA_VIEWER=$SRCDIR/docs/viewer STRATA_NODE_MODULES=$modules \
        "$STRATA" view "$1" --port 0 --quiet >url 2>serve.err &
    server=$!
    i=0
    while [ $i -lt 100 ] && [ ! -s url ]; do
        sleep 0.1
        i=$((i + 1))
    done
    url=$(head -n 1 url)
    case $url in
    http://127.0.0.1:*/) return 0 ;;
    *) echo "FAIL: strata view $1 printed no URL: $(cat serve.err)"; exit 1 ;;
    esac
}
stop() { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; server=; }

# ------------------------------------------------------------ the server
serve world
port=${url#http://127.0.0.1:}
port=${port%/}
get() { node "$SRCDIR/tests/http-get.mjs" "$port" "$@"; }
expect() { # DESC WANT PATH [METHOD]
    desc=$1 want=$2
    shift 2
    got=$(get "$@")
    case $got in
    "$want"*) ok ;;
    *) bad "$desc: GET $1 gave '$got', want '$want...'" ;;
    esac
}
expect "the page" "200 text/html" /
expect "the viewer module" "200 text/javascript" /_strata/viewer.js
expect "three" "200 text/javascript" /_strata/three/build/three.module.js
expect "3d-tiles-renderer" "200 text/javascript" /_strata/3d-tiles-renderer/build/index.js
expect "the tileset" "200 application/json" /tileset.json
expect "a tile" "200 model/gltf-binary" /tiles/2/0.glb
expect "a query string" "200 application/json" '/tileset.json?x=1'
expect "a missing file" "404" /tiles/2/none.glb
expect "a directory" "404" /tiles
expect "dot-dot" "403" /../../../etc/passwd
expect "escaped dot-dot" "403" /%2e%2e/%2e%2e/etc/passwd
expect "dot-dot under a module" "403" /_strata/three/../../../../../etc/passwd
expect "a doubled slash stays in the directory" "404" //etc/passwd
ln -s /etc world/outside
expect "a link out of the directory" "403" /outside/passwd
rm world/outside
expect "POST" "405" /tileset.json POST
expect "HEAD" "405" /tileset.json HEAD
check "the tile served is the file" \
    '[ "$(get /tiles/2/5.glb | cut -d" " -f3)" = "$(wc -c <world/tiles/2/5.glb | tr -d " ")" ]'

# ------------------------------------------------------------ the browser
if ! browser_start "$tmp"; then
    echo "$pass passed, $fail failed (the server's checks; the page's skipped)"
    [ "$fail" -eq 0 ] && exit 77
    exit 1
fi

# look NAME: the page on the current server from 8 bounding radii away
# (view0), then at 2 (view1: about what a user first sees) and 0.8
# (view2, close to the surface)
look() {
    if node "$SRCDIR/tests/viewer.mjs" "$modules/ws/wrapper.mjs" "$ws" "${url}?distance=8" \
        "$tmp/$1" 0.25,0.4 >"$1.out" 2>&1; then
        ok
    else
        bad "$1: the page did not get ready: $(tail -n 5 "$1.out")"
    fi
    sed 's/^/  /' "$1.out"
    for v in view0 view1 view2; do
        cp "$1-$v.png" "$builddir/tests/viewer-$1-$v.png" 2>/dev/null
    done
}

look world
stop
o=world.out
check "no console errors" '[ "$(field errors $o)" = 0 ]'
check "tiles loaded" '[ "$(field view0.tiles $o)" -gt 0 ] && [ "$(field view0.visible $o)" -gt 0 ]'
check "the picture is not blank (10-90% planet at 2 radii)" \
    'below 0.10 "$(field view1.share $o)" && below "$(field view1.share $o)" 0.90'
check "zooming in fills more of the picture" \
    'below "$(field view0.share $o)" "$(field view1.share $o)" && below "$(field view1.share $o)" "$(field view2.share $o)"'
check "zoomed in: tiles still drawn" '[ "$(field view2.visible $o)" -gt 0 ]'
if [ -n "$extra" ]; then
    check "zooming in draws deeper tiles (--lod: depth $(field view0.depth $o) -> $(field view2.depth $o))" \
        '[ "$(field view2.depth $o)" -gt "$(field view0.depth $o)" ]'
else
    echo "no --lod in this strata: leaves-only tileset, tile depth not compared"
fi

if [ -n "$compress" ]; then
    serve plain
    look plain
    stop
    check "plain tiles: no console errors" '[ "$(field errors plain.out)" = 0 ]'
    check "compressed and plain tiles draw the same picture" \
        'cmp -s world-view1.png plain-view1.png && cmp -s world-view2.png plain-view2.png'
fi
# a world placed on the Earth (--place) is shown in its own frame: the
# root's transform undone, the picture of the same world unplaced
serve placed
look placed
stop
[ -f plain.out ] || { serve plain; look plain; stop; }
check "placed: no console errors" '[ "$(field errors placed.out)" = 0 ]'
check "a placed world draws the unplaced world's picture" \
    'cmp -s placed-view1.png plain-view1.png && cmp -s placed-view2.png plain-view2.png'

finish
