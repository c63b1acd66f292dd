#!/bin/sh
# Dab -> frame latency of the sculpt editor in headless Chromium
# (software WebGL: SwiftShader), on a level-9 planet and a 2048^2
# terrain (perf/sculpt-frame.mjs clicks, the page times):
#
#   perf/sculpt-frame.sh [STRATA] [DABS] [WORLD...]
#
# STRATA defaults to ./strata (run from the build directory), DABS to 60;
# WORLD, each a quoted list of maker options, defaults to the two worlds
# below.  For each world: one line
#   bench=sculpt_frame world="OPTIONS" load_ms=... chunks=N dabs=N
#   applied_median=... drawn_median=... drawn_p99=... shown_median=...
#   shown_p99=... (ms from the pointer event) load1=... (the load average
#   before) target=yes|no (drawn median <= 100 ms)
# Needs node, the npm packages three and ws (docs/viewer/install-deps.sh)
# and Chromium; the page from docs/viewer of this source tree.
here=$(cd "$(dirname "$0")" && pwd)
strata=${1:-./strata}
dabs=${2:-60}
[ $# -gt 2 ] && shift 2 || set --
case $strata in /*) ;; *) strata=$(pwd)/$strata ;; esac
modules=${STRATA_NODE_MODULES:-$HOME/.cache/strata-npm/node_modules}
. "$here/../tests/browser.sh"
browser_find || { echo "sculpt-frame: Chromium is not installed" >&2; exit 1; }
if [ $# -eq 0 ]; then
    set -- "planet --level 9 --terraces 32 --chunk-level 4" \
        "terrain --cells 2048 --terraces 32 --tile-cells 128"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-sculpt-frame.XXXXXX") || exit 1
server= browser=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null
    [ -n "$browser" ] && kill "$browser" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

browser_start "$tmp" >&2 || exit 1

status=0
n=0
for world in "$@"; do
    n=$((n + 1))
    rm -f "$tmp/url"
    STRATA_VIEWER=$here/../docs/viewer STRATA_NODE_MODULES=$modules \
        "$strata" $world -o "$tmp/w$n" --sculpt --port 0 --quiet >"$tmp/url" 2>"$tmp/serve.err" &
    server=$!
    i=0
    while [ $i -lt 6000 ] && [ ! -s "$tmp/url" ] && kill -0 "$server" 2>/dev/null; do
        sleep 0.1
        i=$((i + 1))
    done
    url=$(head -n 1 "$tmp/url")
    [ -n "$url" ] || { echo "sculpt-frame: $world: no editor: $(cat "$tmp/serve.err")" >&2; exit 1; }
    load=$(cut -d' ' -f1 /proc/loadavg)
    if line=$(node "$here/sculpt-frame.mjs" "$modules/ws/wrapper.mjs" "$ws" "$url" "$dabs"); then
        med=$(echo "$line" | tr ' ' '\n' | sed -n 's/^drawn_median=//p')
        ok=$(awk -v m="$med" 'BEGIN { print (m <= 100 ? "yes" : "no") }')
        echo "bench=sculpt_frame world=\"$world\" $line load1=$load target=$ok"
    else
        echo "sculpt-frame: $world: $line" >&2
        status=1
    fi
    kill "$server" 2>/dev/null
    wait "$server" 2>/dev/null
    server=
done
exit $status
