#!/bin/sh
# Compare this build's perf/strata-bench with another build's (an older
# commit, say) in one run, the two taking turns so that a shared machine's
# load falls on both alike:
#
#   git worktree add --detach /tmp/old <commit> && (cd /tmp/old &&
#       ./bootstrap && ./configure && make -j"$(nproc)")
#   sh perf/against.sh /tmp/old --stage slice,planet --threads 1 [--rounds 3]
#
# Every option but --rounds goes to both benchmarks as it is (an older
# strata-bench may lack some; it then fails and says so); give one ISA
# (--isa auto: each build's own choice).  Prints the
# benchmarks' `bench` lines with build=old or build=new in front, each
# the best of the rounds, then one `against` line per measurement both
# builds made: seconds old, seconds new and old/new (above 1: this build
# is faster).  A measurement is the line's keys up to `seconds=` with
# the slicer's mode (cold, warm) kept; an older build without modes is
# matched against this build's cold and warm lines both.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: sh perf/against.sh OLD_BUILD_DIR [--rounds N] [strata-bench options]" >&2; exit 2; }
old=$1
shift
rounds=3
args=""
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) rounds=$2; shift 2 ;;
    *) args="$args $1"; shift ;;
    esac
done
for b in "$old/perf/strata-bench" "$here/perf/strata-bench"; do
    [ -x "$b" ] || { echo "perf/against.sh: no $b (build it first)" >&2; exit 2; }
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
r=0
while [ $r -lt "$rounds" ]; do
    for which in old new; do
        if [ $which = old ]; then b="$old/perf/strata-bench"; else b="$here/perf/strata-bench"; fi
        # shellcheck disable=SC2086 # the options are words
        "$b" $args >"$tmp/$which.$r" 2>"$tmp/err" ||
            { echo "perf/against.sh: $which build failed:" >&2; cat "$tmp/err" >&2; exit 1; }
    done
    r=$((r + 1))
done
# key: the fields before seconds= that name the measurement (not sizes of
# output, which follow it), the ISA left out (with --isa auto the builds
# may choose differently: give one ISA, the against line names both);
# best = smallest seconds over the rounds.
awk '
function key(line,   n, f, i, k) {
    n = split(line, f, " "); k = ""
    for (i = 2; i <= n; i++) {
        if (f[i] ~ /^seconds=/) break
        if (f[i] ~ /^(stage|threads|size|input|mode|terraces|level|kind|octaves|base_level|depth|kernel)=/)
            k = k " " f[i]
    }
    return k
}
function isa(line,   n, f, i) {
    n = split(line, f, " ")
    for (i = 1; i <= n; i++) if (f[i] ~ /^isa=/) return substr(f[i], 5)
    return "?"
}
function secs(line,   n, f, i) {
    n = split(line, f, " ")
    for (i = 1; i <= n; i++) if (f[i] ~ /^seconds=/) return substr(f[i], 9) + 0
    return -1
}
FNR == 1 { which = (FILENAME ~ /\/old\.[0-9]+$/) ? "old" : "new" }
/^bench / {
    k = key($0); s = secs($0)
    if (s < 0) next
    if (!((which, k) in best) || s < best[which, k]) { best[which, k] = s; line[which, k] = $0 }
    if (!(k in seen)) { seen[k] = 1; order[++n] = k }
}
END {
    for (w = 1; w <= 2; w++) {
        which = w == 1 ? "old" : "new"
        for (i = 1; i <= n; i++) if ((which, order[i]) in line) print "build=" which " " line[which, order[i]]
    }
    for (i = 1; i <= n; i++) {
        k = order[i]
        if (!(("new", k) in best)) continue
        ko = k
        if (!(("old", ko) in best)) { ko = k; sub(/ mode=[a-z]+/, "", ko) }
        if (!(("old", ko) in best)) continue
        printf "against%s old_isa=%s new_isa=%s old_seconds=%.6f new_seconds=%.6f old_over_new=%.3f\n", k, isa(line["old", ko]), isa(line["new", k]), best["old", ko], best["new", k], best["old", ko] / best["new", k]
    }
}' "$tmp"/old.* "$tmp"/new.*
