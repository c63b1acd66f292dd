#!/bin/sh
# Runs the simd suite and 'strata info' under qemu-x86_64 as older CPUs:
# Nehalem (no AVX: the scalar kernels must be chosen and pass) and Haswell
# (AVX2, no AVX-512).  Catches kernels leaking into generic code (SIGILL)
# and wrong CPU detection.  Exits 77 (skipped) without qemu-user.
# Debian: apt-get install qemu-user
QEMU=${QEMU_X86_64:-qemu-x86_64}
command -v "$QEMU" >/dev/null 2>&1 || { echo "qemu-x86.sh: $QEMU not found, skipped"; exit 77; }
case $(uname -m) in
x86_64) ;;
*) echo "SKIP (hardware): qemu-x86.sh emulates older x86-64 CPUs on an x86-64 machine; this one is $(uname -m)"; exit 77 ;;
esac
[ -x tests/check_simd ] && [ -x ./libtool ] || { echo "qemu-x86.sh: run from the build directory"; exit 99; }
unset STRATA_SIMD
status=0
# A build without AVX2 kernels (--disable-simd, --disable-avx2) must pick
# scalar on Haswell too.
haswell=avx2
grep -q '^#define HAVE_AVX2 1' config.h 2>/dev/null || haswell=scalar
for cpu in Nehalem:scalar Haswell:$haswell; do
    model=${cpu%%:*} want=${cpu#*:}
    out=$(./libtool --mode=execute "$QEMU" -cpu "$model" apps/strata info 2>&1)
    isa=$(printf '%s\n' "$out" | sed -n 's/^isa: //p')
    isas=$(printf '%s\n' "$out" | sed -n 's/^isas: //p')
    if [ "$isa" = "$want" ]; then
        echo "ok: -cpu $model chose $isa (available: $isas)"
    else
        echo "FAIL: -cpu $model chose '$isa', want $want: $out"
        status=1
    fi
    case " $isas " in *" avx512 "*) echo "FAIL: -cpu $model claims AVX-512"; status=1 ;; esac
    if ./libtool --mode=execute "$QEMU" -cpu "$model" tests/check_simd >qemu-x86.$model.out 2>&1; then
        echo "ok: -cpu $model: $(grep -E 'available|Checks' qemu-x86.$model.out | tr '\n' ' ')"
    else
        echo "FAIL: check_simd under -cpu $model:"
        cat qemu-x86.$model.out
        status=1
    fi
    rm -f qemu-x86.$model.out
done
exit $status
