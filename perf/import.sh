#!/bin/sh
# import.sh: mesh import (`strata slice`'s time.build) against reading the
# file with cat and against VTK's PLY reader, in one run, the sides taking
# turns so that a shared machine's load falls on all of them alike.  One
# key=value line per figure, the tag first.
#
#   perf/import.sh [--cells N] [--rounds R] [--threads T] [--old DIR] [--dir DIR]
#
# The input: `strata terrain --cells N --terraces 0` written as binary
# PLY (N = 2048, the default: 4198401 vertices, 8388608 triangles, 201
# MB) into DIR (default: a new directory under ${TMPDIR:-/var/tmp}; not
# tmpfs, whose pages cannot be dropped).  Each round runs, warm (the file
# in the page cache) and cold (its pages dropped first with dd
# iflag=nocache, this file's alone), in turn:
#
#   cat      cat FILE > /dev/null
#   strata   strata slice FILE --terraces 16 --stats at T threads (default
#            2): time.build (the import: reading, decoding, winding, edge
#            table) and time.slice, peak RSS and page faults
#   vtk      python3-vtk9's vtkPLYReader.Update() on the same file
#            (/usr/bin/python3; skipped without it), its own clock
#   old      (with --old DIR) the strata of another build, say the commit
#            before this work; its output must have the same bytes
#
# Lines:
#   import side=S cache=warm|cold round=K seconds=... [build= slice=
#          maxrss_mb= minflt= majflt=]
#   target cache=C round=K build=B cat=C slice=S bound=2C+S ratio=B/bound
#          (the goal: ratio <= 1 warm)
#   ratio cache=C round=K vtk_over_build=... [old_over_build=...]
#   same_bytes=yes|no   (with --old: this build's output against old's)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
STRATA=${STRATA:-$top/apps/strata}
PY=/usr/bin/python3
cells=2048 rounds=3 threads=2 old= dir=
while [ $# -gt 0 ]; do
    case $1 in
    --cells) cells=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --old) old=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "perf/import.sh: unknown option '$1' (--cells N, --rounds R, --threads T, --old DIR, --dir DIR)" >&2
       exit 2 ;;
    esac
done
[ -x "$STRATA" ] || { echo "perf/import.sh: no $STRATA (build it first)" >&2; exit 2; }
if [ -n "$old" ] && [ ! -x "$old/apps/strata" ]; then
    echo "perf/import.sh: --old $old: no $old/apps/strata (build it first)" >&2
    exit 2
fi
if [ -z "$dir" ]; then
    dir=$(mktemp -d "${TMPDIR:-/var/tmp}/strata-import.XXXXXX") || exit 1
    trap 'rm -rf "$dir"' EXIT INT TERM
fi
# Outputs on tmpfs where there is one: no disk writes under the cold reads.
out=$dir
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
    out=$(mktemp -d /dev/shm/strata-import-out.XXXXXX) || exit 1
    trap 'rm -rf "$out"; case "$dir" in "${TMPDIR:-/var/tmp}"/strata-import.*) rm -rf "$dir" ;; esac' EXIT INT TERM
fi
ply=$dir/in.ply
[ -s "$ply" ] || "$STRATA" terrain --cells "$cells" --terraces 0 -o "$ply" >/dev/null || exit 1
have_vtk=no
"$PY" -c 'import vtkmodules.vtkIOPLY' 2>/dev/null && have_vtk=yes

# run.py CMD...: runs CMD, prints "seconds= maxrss_mb= minflt= majflt="
# (wall clock and the child's rusage); CMD's stderr goes to $dir/err.
cat >"$dir/run.py" <<'EOF'
import resource, subprocess, sys, time
t = time.perf_counter()
with open(sys.argv[1], "w") as err:
    rc = subprocess.call(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=err)
dt = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print("seconds=%.6f maxrss_mb=%.1f minflt=%d majflt=%d" % (dt, ru.ru_maxrss / 1024.0, ru.ru_minflt, ru.ru_majflt))
sys.exit(rc)
EOF
cat >"$dir/vtk.py" <<'EOF'
import sys, time
from vtkmodules.vtkIOPLY import vtkPLYReader
r = vtkPLYReader()
r.SetFileName(sys.argv[1])
t = time.perf_counter()
r.Update()
dt = time.perf_counter() - t
o = r.GetOutput()
print("seconds=%.6f points=%d cells=%d" % (dt, o.GetNumberOfPoints(), o.GetNumberOfCells()))
EOF

drop() { dd if="$ply" iflag=nocache count=0 2>/dev/null; }
warm() { cat "$ply" >/dev/null; }
key() { sed -n "s/^$1=//p" "$dir/err"; }

# one SIDE CACHE ROUND: prints the import line, leaves figures in $dir/fig.*
one() {
    side=$1 cache=$2 round=$3
    if [ "$cache" = cold ]; then drop; else warm; fi
    case $side in
    cat)
        r=$("$PY" "$dir/run.py" "$dir/err" sh -c "cat '$ply' >/dev/null") || exit 1
        echo "import side=cat cache=$cache round=$round $r"
        echo "$r" | sed 's/^seconds=\([^ ]*\).*/\1/' >"$dir/fig.cat" ;;
    strata | old)
        bin=$STRATA
        [ "$side" = old ] && bin=$old/apps/strata
        r=$(OMP_NUM_THREADS=$threads "$PY" "$dir/run.py" "$dir/err" "$bin" slice "$ply" \
            --terraces 16 --stats -o "$out/$side.ply") ||
            { echo "perf/import.sh: $side failed:" >&2; cat "$dir/err" >&2; exit 1; }
        b=$(key time.build) s=$(key time.slice)
        echo "import side=$side cache=$cache round=$round threads=$threads build=$b slice=$s $r"
        echo "$b" >"$dir/fig.$side.build"
        echo "$s" >"$dir/fig.$side.slice" ;;
    vtk)
        r=$("$PY" "$dir/vtk.py" "$ply") || { echo "perf/import.sh: vtk failed" >&2; exit 1; }
        echo "import side=vtk cache=$cache round=$round $r"
        echo "$r" | sed 's/^seconds=\([^ ]*\).*/\1/' >"$dir/fig.vtk" ;;
    esac
}

sides="cat strata"
[ $have_vtk = yes ] && sides="$sides vtk"
[ -n "$old" ] && sides="$sides old"
echo "machine nproc=$(nproc) load1=$(cut -d' ' -f1 /proc/loadavg) ply_bytes=$(wc -c <"$ply") vtk=$have_vtk threads=$threads"
k=1
while [ "$k" -le "$rounds" ]; do
    for cache in warm cold; do
        for side in $sides; do
            one "$side" "$cache" "$k"
        done
        awk -v c="$cache" -v k="$k" -v b="$(cat "$dir/fig.strata.build")" \
            -v s="$(cat "$dir/fig.strata.slice")" -v t="$(cat "$dir/fig.cat")" \
            'BEGIN { printf "target cache=%s round=%d build=%.3f cat=%.3f slice=%.3f bound=%.3f ratio=%.2f\n", c, k, b, t, s, 2 * t + s, b / (2 * t + s) }'
        line="ratio cache=$cache round=$k"
        [ $have_vtk = yes ] && line="$line $(awk -v v="$(cat "$dir/fig.vtk")" -v b="$(cat "$dir/fig.strata.build")" 'BEGIN { printf "vtk_over_build=%.2f", v / b }')"
        [ -n "$old" ] && line="$line $(awk -v o="$(cat "$dir/fig.old.build")" -v b="$(cat "$dir/fig.strata.build")" 'BEGIN { printf "old_over_build=%.2f", o / b }')"
        echo "$line"
    done
    k=$((k + 1))
done
if [ -n "$old" ]; then
    if cmp -s "$out/strata.ply" "$out/old.ply"; then echo "same_bytes=yes"; else echo "same_bytes=no"; fi
fi
