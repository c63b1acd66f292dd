#!/bin/sh
# The library's ABI against the baseline in abi/libstrata.abi (abidw of
# the last release's library, or of the first one to come), with abidiff
# from Debian's abigail-tools:
#
#   tests/abi.sh              compare (run by make check, from the build
#                             directory); fail on an incompatible change
#   tests/abi.sh --refresh    rewrite the baseline from the library just
#                             built, run from the build directory (after a
#                             release, or a change made on purpose: see
#                             README, "Debian packages")
#
# Incompatible (fails): a public function or its type removed or changed,
# a public struct's layout changed, the SONAME changed without a new
# baseline.  Compatible (passes, reported): functions added; then refresh
# the baseline and list the new functions in debian/libstrata0.symbols.
# Types are those of the public header (core/strata.h) alone (the library's
# own, such as the context's fields, may change freely); the symbols an
# OpenMP named critical section would export (.gomp_critical_user_*, no
# debug information; the library uses unnamed ones) are not part of the
# ABI.  The library needs debug
# information (-g, autoconf's default CFLAGS).  Skipped (77) without
# abigail-tools, which ./bootstrap --tests installs.
: "${SRCDIR:=$(dirname "$0")/..}"
case $SRCDIR in /*) ;; *) SRCDIR=$(pwd)/$SRCDIR ;; esac
baseline=$SRCDIR/abi/libstrata.abi
lib=$(pwd)/.libs/libstrata.so

# The one dump and the one comparison, used for the library and for the
# check of the check below.  abidw takes as public the types declared in a
# file named like one in --headers-dir (--header-file wants the path
# exactly as the compiler wrote it, "./core/strata.h" in one build,
# "../core/strata.h" in another): a directory holding the public header
# alone, so that the context, opaque in strata.h and defined in
# core/base/ctx.h, stays opaque.
dump() { # LIB HEADER
    pub=$(mktemp -d "${TMPDIR:-/tmp}/strata-abi-h.XXXXXX") || return 1
    cp "$2" "$pub/" &&
        abidw --headers-dir "$pub" --drop-private-types --no-show-locs --no-comp-dir-path \
            --no-corpus-path --no-elf-needed --no-architecture "$1"
    set -- $? "$pub"
    rm -rf "$2"
    return "$1"
}
# compare OLD NEW: abidiff's report in ./report, the verdict in $verdict:
# same, compatible (functions or variables added, nothing else),
# incompatible (anything removed or changed) or error.  abidiff's status
# alone cannot tell: it sets bit 8 (incompatible) for removals only, a
# changed struct layout is bit 4 (a change) like an added function.
compare() {
    abidiff --no-unreferenced-symbols --no-show-locs "$1" "$2" >report 2>&1
    status=$?
    changed=$(sed -n 's/^\(Functions\|Variables\) changes summary: \([0-9]*\) Removed[^,]*, \([0-9]*\) Changed.*/\2 \3/p' report |
        tr ' ' '\n' | awk '{n += $1} END {print n + 0}')
    if [ $((status & 3)) -ne 0 ]; then
        verdict=error
    elif [ $((status & 8)) -ne 0 ] || [ "$changed" -ne 0 ]; then
        verdict=incompatible
    elif [ $status -ne 0 ]; then
        verdict=compatible
    else
        verdict=same
    fi
}

for tool in abidw abidiff; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "SKIP: no $tool (Debian: apt-get install abigail-tools, or ./bootstrap --tests)"
        exit 77
    fi
done
if [ ! -f "$lib" ]; then
    echo "FAIL: $lib was not built (configure --enable-shared)"
    echo "0 passed, 1 failed"
    exit 1
fi
if ! readelf -S "$lib" | grep -q '\.debug_info'; then
    echo "FAIL: $lib has no debug information: configure with -g in CFLAGS"
    echo "0 passed, 1 failed"
    exit 1
fi

if [ "${1:-}" = --refresh ]; then
    dump "$lib" "$SRCDIR/core/strata.h" >"$baseline.tmp" && mv "$baseline.tmp" "$baseline" || exit 1
    echo "abi.sh: wrote $baseline ($(grep -c '<elf-symbol' "$baseline") symbols, SONAME $(sed -n "1s/.*soname='\([^']*\)'.*/\1/p" "$baseline"))"
    exit 0
elif [ -n "${1:-}" ]; then
    echo "abi.sh: unknown option '$1' (accepted: --refresh)" >&2
    exit 2
fi

. "$(dirname "$0")/lib.sh"
test_dir abi

# The check of the check: two builds of a small library whose public
# struct gains a field must compare as incompatible, two identical ones as
# equal, and one with a function added as compatible.  So a change of
# abigail-tools or of the options above cannot quietly blind the test.
mkdir v1 v2 v3
cat >v1/api.h <<'EOF'
typedef struct api_opts { int level; float radius; } api_opts;
int api_run(const api_opts *o);
EOF
sed 's/float radius;/float radius; double scale;/' v1/api.h >v2/api.h
{ cat v1/api.h; echo 'int api_more(int n);'; } >v3/api.h
printf '#include "api.h"\nint api_run(const api_opts *o) { return o->level; }\n' >v1/api.c
cp v1/api.c v2/api.c
{ cat v1/api.c; echo 'int api_more(int n) { return n; }'; } >v3/api.c
built=1
for v in v1 v2 v3; do
    # shellcheck disable=SC2086
    ${CC:-cc} -g -O0 -shared -fPIC -Wl,-soname,libapi.so.1 -o $v/libapi.so $v/api.c || built=0
    dump $v/libapi.so $v/api.h >$v/abi || built=0
done
if [ $built = 1 ]; then
    compare v1/abi v1/abi
    check "abidiff: a library against itself: $verdict (status $status), want same: $(cat report)" '[ $verdict = same ]'
    compare v1/abi v2/abi
    check "abidiff: a struct grown by a field: $verdict (status $status), want incompatible: $(cat report)" '[ $verdict = incompatible ]'
    compare v2/abi v1/abi
    check "abidiff: a function's struct shrunk: $verdict (status $status), want incompatible: $(cat report)" '[ $verdict = incompatible ]'
    compare v3/abi v1/abi
    check "abidiff: a function removed: $verdict (status $status), want incompatible: $(cat report)" '[ $verdict = incompatible ]'
    compare v1/abi v3/abi
    check "abidiff: a function added: $verdict (status $status), want compatible: $(cat report)" '[ $verdict = compatible ]'
else
    bad "the probe libraries of the check did not build or dump"
fi

# The library just built against the baseline.
if ! dump "$lib" "$SRCDIR/core/strata.h" >current.abi; then
    bad "abidw failed on $lib"
    finish
    exit
fi
old_soname=$(sed -n "1s/.*soname='\([^']*\)'.*/\1/p" "$baseline")
new_soname=$(sed -n "1s/.*soname='\([^']*\)'.*/\1/p" current.abi)
nsym=$(grep -c '<elf-symbol' current.abi)
echo "libstrata: SONAME $new_soname, $nsym exported symbols (baseline: $old_soname, $(grep -c '<elf-symbol' "$baseline"))"
if [ "$old_soname" != "$new_soname" ]; then
    bad "the SONAME is $new_soname, the baseline's $old_soname: after a new SONAME (configure.ac STRATA_LT_VERSION) refresh the baseline (tests/abi.sh --refresh) and rename the package libstrataN in debian/"
fi
compare "$baseline" current.abi
case $verdict in
incompatible)
    bad "an incompatible ABI change against abi/libstrata.abi (abidiff status $status):
$(cat report)
If it is meant: before the first release refresh the baseline (tests/abi.sh
--refresh from the build directory); after a release, also start a new
SONAME (configure.ac STRATA_LT_VERSION: current+1, revision 0, age 0) and
rename the package libstrataN in debian/."
    ;;
error) bad "abidiff failed (status $status): $(cat report)" ;;
compatible)
    ok
    echo "compatible ABI change: refresh the baseline (tests/abi.sh --refresh) and list the new functions in debian/libstrata0.symbols:"
    cat report
    ;;
same) ok ;;
esac
finish
