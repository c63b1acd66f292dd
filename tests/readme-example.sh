#!/bin/sh
# Compile and run the C program shown in README.md against the library just
# built, so the README's example cannot rot.  Run by `make check` with
# SRCDIR, CC, CFLAGS, LDFLAGS and LIBTOOL set: the build's flags (a
# sanitizer build's program needs its -fsanitize= flags too).
set -u
: "${SRCDIR:=.}" "${CC:=cc}" "${CFLAGS:=}" "${LDFLAGS:=}" "${LIBTOOL:=./libtool}"
build=$(pwd)
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

awk '/<!-- example:/ {grab=1; next} grab && /^```c/ {inside=1; next} inside && /^```/ {exit} inside {print}' \
    "$SRCDIR/README.md" >"$tmp/example.c"
if ! grep -q 'int main' "$tmp/example.c"; then
    echo "FAIL: no example program found in README.md"
    echo "0 passed, 1 failed"
    exit 1
fi
. "$(dirname "$0")/lib.sh"
pass=0 fail=0
# shellcheck disable=SC2086
if $LIBTOOL --mode=link --tag=CC $CC -std=c99 -Wall -Werror $CFLAGS -I"$SRCDIR/core" $LDFLAGS \
        -o "$tmp/example" "$tmp/example.c" "$build/libstrata.la" -lm >"$tmp/cc.log" 2>&1; then
    ok
else
    bad "the README example does not compile: $(cat "$tmp/cc.log")"
fi
if [ $fail -eq 0 ]; then
    (cd "$tmp" && ./example >out 2>err)
    rc=$?
    if [ $rc -eq 0 ] && grep -Eq '^[0-9]+ vertices, [0-9]+ triangles, 16 terraces$' "$tmp/out" &&
        [ "$(head -c 3 "$tmp/planet.ply")" = ply ]; then
        ok
    else
        bad "the README example exited $rc: $(cat "$tmp/out" "$tmp/err")"
    fi
fi

# The pictures' commands (the sh block after "<!-- pictures:" in
# README.md): each runs with `strata` the program just built and writes
# its PNG, under 150 KB; the committed pictures are under 150 KB too.
awk '/<!-- pictures:/ {grab=1; next} grab && /^```sh/ {inside=1; next} inside && /^```/ {exit} inside {print}' \
    "$SRCDIR/README.md" >"$tmp/pictures.sh"
n=$(grep -c '^strata ' "$tmp/pictures.sh")
check "README: four picture commands or more, found $n" '[ "$n" -ge 4 ]'
mkdir -p "$tmp/pics/docs"
while IFS= read -r line; do
    case $line in strata\ *) ;; *) continue ;; esac
    png=$(printf '%s\n' "$line" | sed -n 's/.*--preview \(docs\/[^ ]*\.png\).*/\1/p')
    set -f
    # shellcheck disable=SC2086
    (cd "$tmp/pics" && "$build/apps/strata" ${line#strata } --quiet >out 2>err)
    rc=$?
    set +f
    if [ $rc -eq 0 ] && [ -n "$png" ] && [ -s "$tmp/pics/$png" ] &&
        [ "$(wc -c <"$tmp/pics/$png")" -lt 153600 ] &&
        [ "$(wc -c <"$SRCDIR/$png")" -lt 153600 ]; then
        ok
    else
        bad "README picture: '$line' exited $rc or made no PNG under 150 KB: $(cat "$tmp/pics/err")"
    fi
done <"$tmp/pictures.sh"
finish
