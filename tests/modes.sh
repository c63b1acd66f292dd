#!/bin/sh
# Determinism across modes.  Re-run every Check suite with the scalar
# kernels forced (STRATA_SIMD=scalar) and with one thread
# (OMP_NUM_THREADS=1), then run a fixed set of CLI jobs in each mode and
# require identical output bytes.  Run by `make check` (STRATA, SRCDIR set).
set -u
: "${STRATA:=apps/strata}" "${SRCDIR:=.}"
STRATA=$(cd "$(dirname "$STRATA")" && pwd)/$(basename "$STRATA")
build=$(pwd)
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/lib.sh"
pass=0 fail=0

# 1. The Check suites again, once per mode.
for mode in "STRATA_SIMD=scalar" "OMP_NUM_THREADS=1"; do
    for t in "$build"/tests/check_*; do
        case $t in *.c | *.o | *.log | *.trs) continue ;; esac
        [ -x "$t" ] || continue
        if env "$mode" "$t" >"$tmp/suite.log" 2>&1; then
            ok
        else
            bad "$(basename "$t") with $mode:"
            grep -E ':[EF]:|Checks:' "$tmp/suite.log" | head -20
        fi
    done
done

# 2. CLI jobs: the same bytes in every mode.
jobs='planet --level 5 --terraces 24 -o planet.ply
planet --level 4 --normals --walls separate -o planet.glb
terrain --cells 96 --terraces 9 --curve 0:0,0.6:0.3,1:1 -o terrain.ply
terrain --shape polygon --sides 7 --depth 4 --noise perlin --terraces 1000 -o poly.obj
terrain --cells 64 --terraces 0 --normals -o flat.ply'
modes='default STRATA_SIMD=scalar OMP_NUM_THREADS=1 OMP_NUM_THREADS=3'
echo "$jobs" | while IFS= read -r job; do
    [ -n "$job" ] || continue
    out=$(echo "$job" | sed 's/.*-o //')
    for mode in $modes; do
        mkdir -p "$tmp/$mode"
        # shellcheck disable=SC2086
        (cd "$tmp/$mode" && if [ "$mode" = default ]; then "$STRATA" $job --quiet; else env "$mode" "$STRATA" $job --quiet; fi) ||
            echo "FAIL: '$job' with $mode exited $?" >>"$tmp/failures"
        if [ "$mode" != default ] && ! cmp -s "$tmp/default/$out" "$tmp/$mode/$out"; then
            echo "FAIL: '$job': $mode output differs from the default run" >>"$tmp/failures"
        fi
    done
    echo "$job" >>"$tmp/done"
done
njobs=$(wc -l <"$tmp/done")
nfail=0
[ -f "$tmp/failures" ] && nfail=$(wc -l <"$tmp/failures") && cat "$tmp/failures"
pass=$((pass + njobs * 4 - nfail))
fail=$((fail + nfail))
finish
