# Shared scaffolding of the shell tests, sourced as
#     . "$(dirname "$0")/lib.sh"
#     test_dir NAME
# test_dir makes STRATA absolute, moves into a fresh temporary directory
# (removed on exit; SIGINT and SIGTERM exit 130) and clears the counters.
# Then ok / bad DESC count results, run ARGS... runs strata with stdout in
# ./out and stderr in ./err (status in rc), same DESC A B compares two
# files or trees, and finish prints "N passed, N failed" (the closing line
# make check reads) and returns non-zero on any failure.  POSIX sh.
: "${STRATA:?STRATA must name the strata program}"
case $STRATA in
/*) ;;
*) STRATA=$(pwd)/$STRATA ;;
esac

test_dir() {
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-$1.XXXXXX") || exit 99
    trap 'rm -rf "$tmp"' EXIT
    trap 'exit 130' INT TERM
    cd "$tmp" || exit 99
    pass=0
    fail=0
}
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*" >&2
}
run() {
    "$STRATA" "$@" >out 2>err
    rc=$?
}
same() { # DESC A B: identical files, or trees
    if diff -r "$2" "$3" >/dev/null 2>&1; then
        ok
    else
        bad "$1: $(diff -rq "$2" "$3" 2>&1 | head -3)"
    fi
}
finish() {
    echo "${1:+$1: }$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
