# Shared scaffolding of the shell tests, sourced as
#     . "$(dirname "$0")/lib.sh"
#     test_dir NAME
# Sourcing makes STRATA and SRCDIR absolute and sets builddir (the
# directory make check runs in); test_dir moves into a fresh temporary
# directory (removed on exit; SIGINT and SIGTERM exit 130) and clears the
# counters.  Then ok / bad DESC count results, check DESC EXPR counts an
# eval'd shell test, run ARGS... runs strata with stdout in ./out and
# stderr in ./err (status in rc), same DESC A B compares two files or
# trees, find_validator sets module to the Khronos glTF-Validator's
# module.mjs (empty when node or the package is missing), and finish
# prints "N passed, N failed" (the closing line make check reads) and
# returns non-zero on any failure.  POSIX sh.
: "${STRATA:?STRATA must name the strata program}"
: "${SRCDIR:=.}"
case $STRATA in
/*) ;;
*) STRATA=$(pwd)/$STRATA ;;
esac
case $SRCDIR in
/*) ;;
*) SRCDIR=$(pwd)/$SRCDIR ;;
esac
builddir=$(pwd)

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
check() {
    if eval "$2"; then ok; else bad "$1"; fi
}
run() {
    "$STRATA" "$@" >out 2>err
    rc=$?
}
# The validator is looked up in, in order: $STRATA_GLTF_VALIDATOR (the
# package directory), $HOME/.cache/strata-npm (where .ci/run installs it:
# npm install --prefix "$HOME/.cache/strata-npm" gltf-validator), the
# build directory's node_modules, then node's own module path.
find_validator() {
    module=
    command -v node >/dev/null 2>&1 || return 0
    for dir in ${STRATA_GLTF_VALIDATOR:+"$STRATA_GLTF_VALIDATOR"} \
        "${HOME:-/nonexistent}/.cache/strata-npm/node_modules/gltf-validator" \
        "$builddir/node_modules/gltf-validator"; do
        if [ -f "$dir/module.mjs" ]; then
            module=$dir/module.mjs
            return 0
        fi
    done
    dir=$(node -e 'try { console.log(require("path").dirname(require.resolve("gltf-validator/package.json"))) } catch (e) {}' 2>/dev/null)
    if [ -n "$dir" ] && [ -f "$dir/module.mjs" ]; then
        module=$dir/module.mjs
    fi
    return 0
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
# succeeds DESC ARGS...: exit 0.
succeeds() {
    desc=$1
    shift
    run "$@"
    if [ "$rc" -eq 0 ]; then ok; else bad "$desc: exit $rc: $(cat err)"; fi
}

# fails CODE WORD DESC ARGS...: exit CODE with one line on stderr that
# starts with "strata: " and contains WORD, nothing on stdout.
fails() {
    code=$1 word=$2 desc=$3
    shift 3
    run "$@"
    lines=$(wc -l <err)
    if [ "$rc" -ne "$code" ]; then
        bad "$desc: exit $rc, want $code: $(cat err)"
    elif [ "$lines" -ne 1 ] || ! grep -q '^strata: ' err; then
        bad "$desc: want one 'strata: ...' line on stderr, got: $(cat err)"
    elif ! grep -qF -- "$word" err; then
        bad "$desc: message does not mention '$word': $(cat err)"
    elif [ -s out ]; then
        bad "$desc: unexpected output on stdout"
    else
        ok
    fi
}
