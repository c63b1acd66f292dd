#!/bin/sh
# Cross-ISA check of the NEON kernels: build tests/simd-golden for AArch64
# (static, Debian gcc-aarch64-linux-gnu), run it under qemu-aarch64 with the
# scalar and the NEON kernels, and compare its output hashes with those of
# the same program built for this (x86) host with the scalar kernels only.
# Equal hashes: the NEON bytes equal the x86 scalar reference.  Exits 77
# (skipped) without the cross compiler or qemu-user.
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

common="core/ctx.c core/noise.c core/topology.c simd/dispatch.c simd/x86/cpu_x86.c simd/arm/cpu_arm.c tests/simd-golden.c"
flags="-std=c11 -D_POSIX_C_SOURCE=200809L -O2 -ffp-contract=off -Wall -Wextra -Wno-unknown-pragmas -I$SRCDIR/core"
srcs=
for f in $common; do srcs="$srcs $SRCDIR/$f"; done

# shellcheck disable=SC2086
$HOSTCC $flags -o "$tmp/golden-host" $srcs -lm || exit 99
# shellcheck disable=SC2086
$XCC $flags -static -DHAVE_NEON -o "$tmp/golden-arm" $srcs "$SRCDIR/simd/arm/noise_neon.c" -lm ||
    { echo "neon.sh: cross build failed"; exit 1; }

STRATA_SIMD=scalar "$tmp/golden-host" >"$tmp/ref" || exit 1
status=0
for isa in scalar neon auto; do
    if ! STRATA_SIMD=$isa "$QEMU" "$tmp/golden-arm" >"$tmp/$isa"; then
        echo "FAIL: aarch64 STRATA_SIMD=$isa did not run"
        status=1
        continue
    fi
    want=$isa
    [ "$isa" = auto ] && want=neon
    if ! head -n 1 "$tmp/$isa" | grep -qx "isa $want"; then
        echo "FAIL: aarch64 STRATA_SIMD=$isa chose $(head -n 1 "$tmp/$isa")"
        status=1
    fi
    sed 1d "$tmp/$isa" >"$tmp/$isa.body"
    if sed 1d "$tmp/ref" | cmp -s - "$tmp/$isa.body"; then
        echo "ok: aarch64 $isa == x86 scalar ($(sed 1d "$tmp/ref" | wc -l) hashes)"
    else
        echo "FAIL: aarch64 $isa differs from x86 scalar:"
        sed 1d "$tmp/ref" | diff - "$tmp/$isa.body"
        status=1
    fi
done
exit $status
