#!/bin/sh
# After `make check` (run from the build directory): list the suites that
# skipped, and fail (exit 1) when one skipped for another reason than
# hardware this machine lacks.  ./bootstrap --tests installs every tool the
# suites use, so after it the only acceptable skip is a suite that says
# "SKIP (hardware): ..." in its log (e.g. tests/qemu-x86.sh on a machine
# that is not x86-64).  Lines of a passing suite that mention hardware it
# could not test ("(hardware)") are shown too.  .ci/run calls it.
status=0 skipped=0
trs_list=$(find tests -name '*.trs' 2>/dev/null | sort)
if [ -z "$trs_list" ]; then
    echo "skips.sh: no tests/*.trs here: run it from the build directory after make check" >&2
    exit 1
fi
for trs in $trs_list; do
    log=${trs%.trs}.log
    if grep -q '^:test-result: SKIP' "$trs"; then
        skipped=$((skipped + 1))
        why=$(grep -m1 '^SKIP' "$log" 2>/dev/null)
        case $why in
        "SKIP (hardware):"*) echo "skipped, hardware: ${trs%.trs}: ${why#SKIP (hardware): }" ;;
        *)
            echo "FAIL: ${trs%.trs} skipped: ${why:-$(tail -n 1 "$log" 2>/dev/null)}"
            status=1
            ;;
        esac
    else
        grep -h '(hardware)' "$log" 2>/dev/null | sed "s|^|${trs%.trs}: |"
    fi
done
echo "skips.sh: $skipped suites skipped$([ $status = 0 ] || echo ', not all for lack of hardware')"
exit $status
