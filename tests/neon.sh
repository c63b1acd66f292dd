#!/bin/sh
# Cross-ISA check of the NEON kernels: build tests/simd-golden (fBm) and
# tests/kernels-golden (slicer and radial displacement kernels) for
# AArch64 (static, Debian gcc-aarch64-linux-gnu), run them under
# qemu-aarch64 with the scalar and the NEON kernels, and compare their
# output hashes with those of the same programs built for this (x86) host
# with the scalar kernels only.  Equal hashes: the NEON bytes equal the
# x86 scalar reference.  Exits 77 (skipped) without the cross compiler or
# qemu-user.
# Debian: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user
: "${SRCDIR:=$(dirname "$0")/..}"
XCC=${XCC:-aarch64-linux-gnu-gcc}
QEMU=${QEMU_AARCH64:-qemu-aarch64}
HOSTCC=${CC:-cc}
for tool in "${XCC%% *}" "${QEMU%% *}" "${HOSTCC%% *}"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "neon.sh: $tool not found, skipped"; exit 77; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-neon.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

common="core/base/ctx.c core/base/alloc.c core/mesh/noise.c core/base/par.c core/base/topology.c simd/dispatch.c simd/x86/cpu_x86.c simd/arm/cpu_arm.c
        simd/generic/slice_c.c simd/generic/displace_c.c"
neon="simd/arm/noise_neon.c simd/arm/slice_neon.c simd/arm/displace_neon.c"
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -O2 -ffp-contract=off -Wall -Wextra -Wno-unknown-pragmas -I$SRCDIR/core -I$SRCDIR"
srcs= neonsrcs=
for f in $common; do srcs="$srcs $SRCDIR/$f"; done
for f in $neon; do neonsrcs="$neonsrcs $SRCDIR/$f"; done

progs="simd-golden kernels-golden"
for p in $progs; do
    # shellcheck disable=SC2086
    $HOSTCC $flags -o "$tmp/$p-host" $srcs "$SRCDIR/tests/$p.c" -lm || exit 99
    # shellcheck disable=SC2086
    $XCC $flags -static -DHAVE_NEON -o "$tmp/$p-arm" $srcs $neonsrcs "$SRCDIR/tests/$p.c" -lm ||
        { echo "neon.sh: cross build of $p failed"; exit 1; }
    STRATA_SIMD=scalar "$tmp/$p-host" >"$tmp/$p.ref" || { echo "FAIL: x86 $p did not run"; exit 1; }
done

status=0
for isa in scalar neon auto; do
    want=$isa
    [ "$isa" = auto ] && want=neon
    for p in $progs; do
        out="$tmp/$p.$isa"
        if ! STRATA_SIMD=$isa "$QEMU" "$tmp/$p-arm" >"$out"; then
            echo "FAIL: aarch64 $p STRATA_SIMD=$isa did not run"
            status=1
            continue
        fi
        if ! head -n 1 "$out" | grep -qx "isa $want"; then
            echo "FAIL: aarch64 $p STRATA_SIMD=$isa chose $(head -n 1 "$out")"
            status=1
        fi
        sed 1d "$out" >"$out.body"
        if sed 1d "$tmp/$p.ref" | cmp -s - "$out.body"; then
            echo "ok: aarch64 $p $isa == x86 scalar ($(wc -l <"$out.body") lines)"
        else
            echo "FAIL: aarch64 $p $isa differs from x86 scalar:"
            sed 1d "$tmp/$p.ref" | diff - "$out.body"
            status=1
        fi
    done
done
exit $status
