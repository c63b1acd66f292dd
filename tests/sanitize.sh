#!/bin/sh
# Build strata in a tree of its own with a sanitizer and run its tests
# there; fail on any sanitizer report.  Run from a configured source tree
# (CI runs it after the README's build):
#
#   tests/sanitize.sh address [DIR]   clang -fsanitize=address,undefined: the
#                                     Check suites, the CLI tests, the README
#                                     example, the fuzz corpora, the sculpt
#                                     editor's server and page
#   tests/sanitize.sh thread [DIR]    clang -fsanitize=thread with libomp and
#                                     its TSan tool Archer: the Check suites
#
# DIR (default build-address or build-thread) gets the source as `make
# distdir` lays it out (src/: what a release tarball holds) and an
# out-of-tree build of it (build/: `../src/configure`, a VPATH build).
# Sanitizer reports go to files in DIR/reports/ whatever the tests do
# with stderr or exit codes, and are printed at the end.  LeakSanitizer
# reads tests/lsan.supp.  Needs clang, libclang-rt-dev and libomp-dev
# (Debian 12: clang 14, Archer in /usr/lib/llvm-14/lib/libarcher.so).
set -u
kind=${1:-}
case $kind in
address | thread) ;;
*)
    echo "usage: $0 address|thread [DIR]" >&2
    exit 2
    ;;
esac
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${2:-build-$kind}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 1
: "${CC:=clang}"
jobs=$(nproc 2>/dev/null || echo 2)

if [ ! -f "$src/Makefile" ]; then
    echo "$0: configure the source tree first (./bootstrap && ./configure)" >&2
    exit 2
fi
rm -rf "$dir/src" "$dir/build" "$dir/reports"
mkdir -p "$dir/build" "$dir/reports"
make -s -C "$src" distdir distdir="$dir/src" >/dev/null || exit 1

case $kind in
address)
    flags="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer"
    # Everything but the determinism re-runs (tests/modes.sh: the same
    # suites again) and the cross builds (tests/neon.sh, qemu-x86.sh).
    tests='$(CHECK_SUITES) tests/fuzz/replay.sh tests/cli.sh tests/faults.sh tests/readme-example.sh'
    # the editor's server under a browser's requests: its page files, the
    # lock, the routes a page uses (skipped without Chromium)
    tests="$tests tests/bench.sh tests/sculpt.sh tests/sculpt-page.sh"
    ;;
thread)
    flags="-O1 -g -fsanitize=thread"
    tests='$(CHECK_SUITES)'
    ;;
esac
r=$dir/reports
# halt_on_error: stop at the first report; log_path: one file per process
# that reported (ASan, UBSan and LSan write there instead of stderr).
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:log_path=$r/asan"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$r/ubsan"
export LSAN_OPTIONS="suppressions=$src/tests/lsan.supp:print_suppressions=0"
# Archer makes libomp's synchronisation visible to TSan; TSan then leaves
# the uninstrumented libomp itself alone.
export TSAN_OPTIONS="halt_on_error=1:ignore_noninstrumented_modules=1:log_path=$r/tsan"
export OMP_TOOL_LIBRARIES=/usr/lib/llvm-14/lib/libarcher.so
[ "$kind" = thread ] && [ ! -f "$OMP_TOOL_LIBRARIES" ] &&
    echo "$0: warning: no Archer at $OMP_TOOL_LIBRARIES: OpenMP races may be misreported" >&2
# Check forks each test; OpenMP's thread pool does not survive a fork.
[ "$kind" = thread ] && export CK_FORK=no

cd "$dir/build" || exit 1
echo "== $kind: $CC $flags, in $dir"
start=$(date +%s)
if ! ../src/configure -q CC="$CC" CFLAGS="$flags" LDFLAGS="$flags" >configure.log 2>&1; then
    tail -n 20 configure.log
    echo "$0: configure failed (see $dir/build/config.log)" >&2
    exit 1
fi
make -s -j"$jobs" >make.log 2>&1 || {
    tail -n 40 make.log
    exit 1
}
built=$(date +%s)
echo "== built in $((built - start)) s"
make -j"$jobs" check TESTS="$tests" >check.log 2>&1
status=$?
echo "== tested in $(($(date +%s) - built)) s"
grep -E '^(PASS|FAIL|ERROR|XPASS|SKIP):|^# ' check.log
if [ -n "$(ls "$r")" ]; then
    echo "== sanitizer reports:"
    for f in "$r"/*; do
        echo "--- $f"
        head -n 60 "$f"
    done
    status=1
fi
if [ $status -ne 0 ] && [ -f test-suite.log ]; then
    echo "== failures (test-suite.log):"
    grep -E '^(FAIL|ERROR)|:[EF]:' test-suite.log | head -n 40
fi
exit $status
