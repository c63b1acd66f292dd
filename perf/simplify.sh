#!/bin/sh
# Roof simplification (strata --simplify-roofs): output triangles and time
# beside the slice, as key=value lines (wall seconds of each stage from
# --stats, CPU seconds of the whole run by /usr/bin/time).
#   dem      a 2048 x 2048 16-bit DEM of smooth ridges, 16 terraces
#   noise    a 2048 x 2048 grid of the default fBm noise, 16 terraces
#   planet   a level-10 planet, 32 terraces, the default error
# Usage: perf/simplify.sh [NAMES...] (default: all), with STRATA set or
# apps/strata built.  Not part of `make check`.
S=${STRATA:-$(dirname "$0")/../apps/strata}
case $S in /*) ;; *) S=$(pwd)/$S ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-simplify.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
want() { [ $# -eq 0 ] || [ -z "$names" ] || case " $names " in *" $1 "*) true ;; *) false ;; esac; }
names="$*"
stat() { sed -n "s/^$1=//p" "$2"; }

# bench NAME ARGS...: the run without and with --simplify-roofs
bench() {
    name=$1
    shift
    # CPU seconds too: on a shared machine the wall clock says little
    /usr/bin/time -f "%U %S" -o plain.cpu "$S" "$@" --stats --no-sync -o plain.ply 2>plain.err ||
        { cat plain.err; exit 1; }
    /usr/bin/time -f "%U %S" -o simple.cpu "$S" "$@" --simplify-roofs --stats --no-sync \
        -o simple.ply 2>simple.err || { cat simple.err; exit 1; }
    before=$(stat triangles plain.err)
    after=$(stat triangles simple.err)
    echo "bench=$name triangles_before=$before triangles_after=$after" \
        "ratio=$(awk -v a="$before" -v b="$after" 'BEGIN { printf "%.2f", a / b }')" \
        "roof_triangles_before=$(stat simplify.roof_triangles_before simple.err)" \
        "roof_triangles_after=$(stat simplify.roof_triangles_after simple.err)" \
        "roofs_kept=$(stat simplify.roofs_kept simple.err)" \
        "max_error=$(stat simplify.max_error simple.err)" \
        "slice_s=$(stat time.slice simple.err) simplify_s=$(stat time.simplify simple.err)" \
        "threads=$(stat threads simple.err)" \
        "cpu_s_before=$(awk '{ print $1 + $2 }' plain.cpu) cpu_s_after=$(awk '{ print $1 + $2 }' simple.cpu)" \
        "bytes_before=$(wc -c <plain.ply) bytes_after=$(wc -c <simple.ply)"
    rm -f plain.ply simple.ply plain.err simple.err plain.cpu simple.cpu
}

if want dem; then
    # h(x, y) = g(x + 3y), two sines: smooth ridges (as perf/worlds.sh bigmap)
    python3 - <<'PY'
import math, struct
w = h = 2048
n = w + 3 * h
g = struct.pack(">%dH" % n, *(int(32767.5 + 20000 * math.sin(i * 0.0031) + 12000 * math.sin(i * 0.0173)) for i in range(n)))
with open("dem.pgm", "wb") as f:
    f.write(b"P5\n%d %d\n65535\n" % (w, h))
    for y in range(h):
        f.write(g[6 * y:6 * y + 2 * w])
PY
    bench dem terrain --heightmap dem.pgm --terraces 16
    rm -f dem.pgm
fi
want noise && bench noise terrain --cells 2047 --terraces 16
want planet && bench planet planet --level 10 --terraces 32
