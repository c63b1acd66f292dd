#!/bin/sh
# The Python binding's cost on a whole job: a level-L planet (default 10),
# 16 terraces, written as binary PLY, made by the strata program and by
# the same calls through the Python module (strata.planet, strata.slice,
# Result.write), in turns, best of R rounds (default 3).  Both write to
# DIR (default /dev/shm, else $TMPDIR) without sync, and the two files
# must be the same bytes.  Prints key=value lines: each run's wall
# seconds (the Python ones also inside the process, without the
# interpreter's start and imports), the best of each, and ratio =
# python / program (whole process).  Run from the build directory:
#   sh perf/python-planet.sh [LEVEL [ROUNDS [DIR]]]
# Needs Debian's python3 with python3-cffi and python3-numpy.
set -eu
level=${1:-10} rounds=${2:-3}
dir=${3:-}
[ -n "$dir" ] || { [ -d /dev/shm ] && [ -w /dev/shm ] && dir=/dev/shm; } || dir=${TMPDIR:-/tmp}
src=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x apps/strata ] && [ -f .libs/libstrata.so ] || { echo "python-planet.sh: run it from the build directory after make" >&2; exit 2; }
export STRATA_LIBRARY="$(pwd)/.libs/libstrata.so" PYTHONPATH="$src/python" PYTHONDONTWRITEBYTECODE=1
tmp=$(mktemp -d "$dir/strata-pyperf.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
echo "level=$level"
echo "rounds=$rounds"
echo "dir=$dir"
best_cli= best_py= best_in=
r=1
while [ "$r" -le "$rounds" ]; do
    t0=$(now)
    apps/strata planet --level "$level" --no-sync --quiet -o "$tmp/cli.ply"
    t1=$(now)
    inner=$("$PYTHON" -c '
import sys, time
t0 = time.perf_counter()
import strata
ctx = strata.Context(sync=False)
t1 = time.perf_counter()
r = strata.slice(strata.planet(level=int(sys.argv[1]), ctx=ctx), terraces=16, ctx=ctx)
r.write(sys.argv[2], ctx=ctx)
t2 = time.perf_counter()
print("%.4f %.4f" % (t1 - t0, t2 - t1))' "$level" "$tmp/py.ply")
    t2=$(now)
    cmp -s "$tmp/cli.ply" "$tmp/py.ply" || { echo "python-planet.sh: the files differ" >&2; exit 1; }
    cli=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    py=$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')
    imports=${inner% *} job=${inner#* }
    printf 'round=%d program.seconds=%.3f python.seconds=%.3f python.import_seconds=%s python.job_seconds=%s\n' \
        "$r" "$cli" "$py" "$imports" "$job"
    best_cli=$(echo "$cli $best_cli" | awk '{print ($2 == "" || $1 < $2) ? $1 : $2}')
    best_py=$(echo "$py $best_py" | awk '{print ($2 == "" || $1 < $2) ? $1 : $2}')
    best_in=$(echo "$job $best_in" | awk '{print ($2 == "" || $1 < $2) ? $1 : $2}')
    r=$((r + 1))
done
echo "bytes=$(wc -c <"$tmp/cli.ply")"
printf 'best.program_seconds=%.3f\nbest.python_seconds=%.3f\nbest.python_job_seconds=%.3f\n' "$best_cli" "$best_py" "$best_in"
awk -v a="$best_py" -v b="$best_cli" -v c="$best_in" 'BEGIN { printf "ratio=%.3f\nratio.job=%.3f\n", a / b, c / b }'
