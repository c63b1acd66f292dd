#!/bin/sh
# Replay the committed fuzz corpora: each harness of FUZZ_HARNESSES (set
# by make check) runs every file of tests/fuzz/corpus/NAME/, where a crash,
# a sanitizer report or a broken expectation of the harness fails it.
# Every harness needs a corpus and every corpus a harness.
set -u
: "${SRCDIR:=.}" "${FUZZ_HARNESSES:?set by make check}"
corpus=$SRCDIR/tests/fuzz/corpus
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for h in $FUZZ_HARNESSES; do
    name=${h##*/fuzz_}
    if [ ! -d "$corpus/$name" ]; then
        fail=$((fail + 1))
        echo "FAIL: $h has no corpus $corpus/$name"
        continue
    fi
    # Files, not the directory: a libFuzzer build (--enable-fuzzing) runs
    # the files it is given and stops, where a directory means fuzzing.
    if "./$h" "$corpus/$name"/* >"$tmp/out" 2>&1; then
        pass=$((pass + 1))
        echo "$h: $(tail -n 1 "$tmp/out")"
    else
        fail=$((fail + 1))
        echo "FAIL: $h (the last file named is the input that failed):"
        tail -n 40 "$tmp/out"
    fi
done
for d in "$corpus"/*/; do
    name=$(basename "$d")
    case " $FUZZ_HARNESSES " in
    *"/fuzz_$name "*) ;;
    *)
        fail=$((fail + 1))
        echo "FAIL: corpus $d has no harness tests/fuzz/fuzz_$name"
        ;;
    esac
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
