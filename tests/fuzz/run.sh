#!/bin/sh
# Fuzz every harness of tests/fuzz/ (or those NAMEd: mesh, world, ...) for
# SECONDS each (default 60), one after the other, then merge what added coverage into the committed
# corpora (libFuzzer's -merge=1 keeps only inputs that add coverage, so
# they stay small).  Run it from a build tree configured with
# --enable-fuzzing, at low priority if the machine is shared:
#     ./configure --enable-fuzzing && nice -n 19 tests/fuzz/run.sh 600
# Limits: -rss_limit_mb=512 -timeout=2 (an input taking more memory or
# time is a finding).  Findings (crash-*, leak-*, oom-*, timeout-*) are
# kept in tests/fuzz/findings/ of the build tree; a harness stops at its
# first one.  Prints one line per harness: seconds, executions, corpus
# files and bytes after the merge, libFuzzer's last cov: and ft: figures,
# and the findings.  Exit status 1 when anything was found.
set -u
seconds=${1:-60}
case $seconds in '' | *[!0-9]*) echo "usage: $0 [SECONDS [NAME...]]" >&2; exit 2 ;; esac
[ $# -gt 0 ] && shift
src=$(cd "$(dirname "$0")/../.." && pwd)
if ! grep -q '^FUZZ_LDFLAGS = .*-fsanitize=fuzzer' Makefile 2>/dev/null; then
    echo "$0: run it in a build tree configured with --enable-fuzzing" >&2
    exit 2
fi
make -s fuzz || exit 1
findings=$(pwd)/tests/fuzz/findings
mkdir -p "$findings"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
found=0
printf '%-10s %7s %11s %6s %9s %6s %7s  %s\n' harness seconds execs files bytes cov ft findings
names=$*
[ -n "$names" ] || names=$(cd "$src/tests/fuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')
for name in $names; do
    if [ ! -f "$src/tests/fuzz/fuzz_$name.c" ]; then
        echo "$0: no harness tests/fuzz/fuzz_$name.c" >&2
        exit 2
    fi
    prog=tests/fuzz/fuzz_$name
    corpus=$src/tests/fuzz/corpus/$name
    mkdir -p "$corpus" "$tmp/$name"
    dict=""
    [ -f "$src/tests/fuzz/$name.dict" ] && dict="-dict=$src/tests/fuzz/$name.dict"
    start=$(date +%s)
    prefix=$name-$(date +%Y%m%d-%H%M%S)-
    # New inputs go to the scratch directory (the first one); the
    # committed corpus only seeds.
    # shellcheck disable=SC2086
    "$prog" -rss_limit_mb=512 -timeout=2 -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$findings/$prefix" $dict "$tmp/$name" "$corpus" >"$tmp/$name.log" 2>&1
    took=$(($(date +%s) - start))
    "$prog" -merge=1 -rss_limit_mb=512 -timeout=2 "$corpus" "$tmp/$name" >"$tmp/$name.merge" 2>&1
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$name.log" | tail -n 1)
    last=$(grep -E '^#[0-9]+.*cov: ' "$tmp/$name.log" | tail -n 1)
    cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    files=$(find "$corpus" -type f | wc -l)
    bytes=$(find "$corpus" -type f -exec cat {} + | wc -c)
    new=$(cd "$findings" && ls | grep -F "$prefix" | tr '\n' ' ')
    [ -n "$new" ] && found=1 && cp "$tmp/$name.log" "$findings/${prefix}log"
    printf '%-10s %7s %11s %6s %9s %6s %7s  %s\n' "$name" "$took" "${execs:-?}" "$files" "$bytes" \
        "${cov:-?}" "${ft:-?}" "${new:-none}"
done
exit $found
