#!/bin/sh
# The Blender add-on (blender/strata_terrace) in Debian's blender, headless:
# blender/tests/test_addon.py terraces an icosphere and a grid with it and
# compares them with the strata program.  Run by `make check` with STRATA
# and SRCDIR set.  blender is required, not optional: ./bootstrap --tests
# installs it, so its absence fails this suite instead of skipping it.
: "${SRCDIR:=.}" "${STRATA:=apps/strata}"
case $SRCDIR in /*) ;; *) SRCDIR=$(pwd)/$SRCDIR ;; esac
case $STRATA in /*) ;; *) STRATA=$(pwd)/$STRATA ;; esac
lib=$(pwd)/.libs/libstrata.so
BLENDER=${BLENDER:-blender}
if ! command -v "$BLENDER" >/dev/null 2>&1; then
    echo "FAIL: $BLENDER not found (Debian: apt-get install blender, or ./bootstrap --tests)"
    echo "0 passed, 1 failed"
    exit 1
fi
if [ ! -f "$lib" ]; then
    echo "FAIL: $lib was not built (the add-on's module opens the shared library)"
    echo "0 passed, 1 failed"
    exit 1
fi
export STRATA SRCDIR STRATA_LIBRARY="$lib" PYTHONDONTWRITEBYTECODE=1
unset STRATA_SIMD
tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-blender.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
# its own home: no user preferences or add-ons of this machine's user
HOME=$tmp "$BLENDER" -b --factory-startup --python-exit-code 1 \
    --python "$SRCDIR/blender/tests/test_addon.py" >"$tmp/out" 2>&1
status=$?
grep -v '^$' "$tmp/out"
if [ $status -ne 0 ] && ! grep -q '^[0-9]* passed, [0-9]* failed' "$tmp/out"; then
    echo "FAIL: blender exited $status before the test's summary"
    echo "0 passed, 1 failed"
fi
exit $status
