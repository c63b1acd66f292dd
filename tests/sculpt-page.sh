#!/bin/sh
# strata's sculpt editor page in a real browser: 'strata planet/terrain
# --sculpt' serves a small world and headless Chromium (software WebGL)
# drives the page with pointer and key events (tests/sculpt-page.mjs).
# Checks:
#   - the page's files are served under the token only;
#   - a stroke changes the picture inside the box around it and nowhere
#     else; undo (Ctrl-Z) gives the picture's pixels and the edit log's
#     bytes back, redo (Ctrl-Y, the button) the stroke's;
#   - the page's export equals the command line's replay of the saved log
#     (--edits DIR/edits.strata) byte for byte;
#   - no console error, no failed request;
#   - the lock: a second editor, or a world run, on the editor's
#     directory fails naming the editor (its pid and --sculpt).
# The pictures are kept in tests/sculpt-page-*.png of the build directory.
#
# Skipped (77) without node, the npm packages three and ws
# (docs/viewer/install-deps.sh, or STRATA_NODE_MODULES) or Chromium (or
# STRATA_CHROMIUM).  Run by `make check` with STRATA and SRCDIR set.
# POSIX sh.

: "${STRATA:?STRATA must name the strata program}"
: "${SRCDIR:=.}"
case $STRATA in /*) ;; *) STRATA=$(pwd)/$STRATA ;; esac
case $SRCDIR in /*) ;; *) SRCDIR=$(pwd)/$SRCDIR ;; esac
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
browser_find || { echo "SKIP: Chromium is not installed (Debian: apt-get install chromium)"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-sculpt-page.XXXXXX") || exit 99
server= browser=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null
    [ -n "$browser" ] && kill "$browser" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
. "$SRCDIR/tests/lib.sh" # sets builddir: before the cd
cd "$tmp" || exit 99
pass=0
fail=0
# field KEY FILE: the value of KEY= in the driver's output
field() { tr ' ' '\n' <"$2" | sed -n "s/^$1=//p" | head -n 1; }

# edit ARGS...: start an editor (strata ARGS --sculpt --port 0); sets
# server (its pid), url, port and token
edit() {
    rm -f url
    STRATA_VIEWER=$SRCDIR/docs/viewer STRATA_NODE_MODULES=$modules \
        "$STRATA" "$@" --sculpt --port 0 --quiet >url 2>serve.err &
    server=$!
    i=0
    while [ $i -lt 600 ] && [ ! -s url ]; do
        kill -0 "$server" 2>/dev/null || break
        sleep 0.1
        i=$((i + 1))
    done
    url=$(head -n 1 url)
    case $url in
    http://127.0.0.1:*/*/) ;;
    *) echo "FAIL: strata $* --sculpt printed no URL: $(cat serve.err)"; exit 1 ;;
    esac
    port=${url#http://127.0.0.1:}
    token=${port#*/}
    token=${token%/}
    port=${port%%/*}
}
stop() { kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; server=; }
get() { node "$SRCDIR/tests/http-get.mjs" "$port" "$@"; }
expect() { # DESC WANT PATH
    got=$(get "$3")
    case $got in
    "$2"*) ok ;;
    *) bad "$1: GET $3 gave '$got', want '$2...'" ;;
    esac
}

browser_start "$tmp" || { echo "SKIP: Chromium did not start"; exit 77; }

# sculpt NAME MAKER WORLD...: edit a world of MAKER's options (WORLD: its
# chunking) in NAME with the page, check what the driver saw and the
# export against the replay of the log
sculpt() {
    name=$1
    maker=$2
    shift 2
    edit $maker "$@" -o "$name"
    expect "$name: the page" "200 text/html" "/$token/"
    expect "$name: its script" "200 text/javascript" "/$token/_strata/sculpt.js"
    expect "$name: three" "200 text/javascript" "/$token/_strata/three/build/three.module.js"
    expect "$name: the page without the token" "403" "/_strata/sculpt.js"
    expect "$name: a missing file" "404" "/$token/_strata/none.js"
    if node "$SRCDIR/tests/sculpt-page.mjs" "$modules/ws/wrapper.mjs" "$ws" "$url" \
        "$tmp/$name" "$tmp/$name" >"$name.out" 2>&1; then
        ok
    else
        bad "$name: the page did not get through: $(tail -n 5 "$name.out")"
    fi
    sed 's/^/  /' "$name.out"
    for v in a b undo redo page; do
        cp "$name-$v.png" "$builddir/tests/sculpt-page-$name-$v.png" 2>/dev/null
    done
    o=$name.out
    check "$name: no console error" '[ "$(field errors $o)" = 0 ]'
    check "$name: no failed request" '[ "$(field failed $o)" = 0 ]'
    check "$name: the stroke made several dabs" '[ "$(field stroke.dabs $o)" -gt 1 ]'
    check "$name: the stroke changed the picture around it" \
        '[ "$(field stroke.inside $o)" -gt 100 ]'
    check "$name: and nowhere else" '[ "$(field stroke.outside $o)" = 0 ]'
    check "$name: undo gives the picture's pixels back" '[ "$(field undo.differ $o)" = 0 ]'
    check "$name: undo gives the log's bytes back" '[ "$(field undo.log $o)" = 1 ]'
    check "$name: redo gives the stroke's picture back" '[ "$(field redo.differ $o)" = 0 ]'
    check "$name: redo gives the stroke's log back" '[ "$(field redo.log $o)" = 1 ]'
    check "$name: the page exported exports/sculpt.glb" \
        '[ "$(field exported $o)" = exports/sculpt.glb ]'
    check "$name: the log holds every dab" \
        '[ "$(grep -c . "$name/edits.strata")" -gt "$(field stroke.dabs $o)" ]'

    # the lock: a second editor and a world run on the same directory
    if "$STRATA" $maker "$@" -o "$name" --sculpt --port 0 --quiet >second.out 2>second.err; then
        bad "$name: a second editor on the directory ran"
    else
        check "$name: a second editor fails naming the first" \
            'grep -q "in use by another strata run (pid $server: .*--sculpt" second.err'
    fi
    if "$STRATA" $maker "$@" -o "$name" --quiet 2>world.err; then
        bad "$name: a world run on the editor's directory ran"
    else
        check "$name: a world run fails naming the editor" \
            'grep -q "in use by another strata run (pid $server: .*--sculpt" world.err'
    fi
    stop
    if "$STRATA" $maker --edits "$name/edits.strata" -o "$name-replay.glb" --quiet 2>replay.err; then
        check "$name: the export equals the replay of the log" \
            'cmp "$name/exports/sculpt.glb" "$name-replay.glb"'
    else
        bad "$name: the replay failed: $(cat replay.err)"
    fi
    # with the editor gone, a world run may write DIR's tiles
    run $maker "$@" -o "$name" --quiet
    check "$name: a world run after the editor writes its tiles" \
        '[ "$rc" = 0 ] && [ -s "$name/tileset.json" ]'
}

sculpt p "planet --level 6 --terraces 10" --chunk-level 2
sculpt t "terrain --cells 96 --terraces 8" --tile-cells 32

finish
