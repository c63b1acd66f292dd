#!/bin/sh
# Solids for 3D printing (strata terrain --solid, --print-size), checked by
# Debian's admesh: one part, 0 degenerate facets, 0 edges fixed, 0 facets
# removed or added, nothing reversed, and the volume within 1e-6 of the
# figure this script computes from the heightmaps it writes.  The usage
# errors are checked first, without admesh; the rest skips (77) without it
# (apt-get install admesh).  Run by `make check` with STRATA set.  POSIX sh.

. "$(dirname "$0")/lib.sh"
unset STRATA_SIMD

test_dir solid
# fails WORD DESC ARGS...: exit 2, one 'strata: ' line naming WORD, no file.
fails() {
    word=$1 desc=$2
    shift 2
    rm -f bad.stl
    run "$@"
    if [ "$rc" -ne 2 ]; then
        bad "$desc: exit $rc, want 2: $(cat err)"
    elif [ "$(wc -l <err)" -ne 1 ] || ! grep -q '^strata: ' err || ! grep -qF -- "$word" err; then
        bad "$desc: want one 'strata: ...' line naming '$word', got: $(cat err)"
    elif [ -e bad.stl ]; then
        bad "$desc: a file was written"
    else
        ok
    fi
}

# ------------------------------------------------------------ bad input
fails "--solid -1: out of range (valid: 0 < DEPTH" "negative depth" terrain --cells 8 --solid=-1 -o bad.stl
fails "--solid 0: out of range" "zero depth" terrain --cells 8 --solid=0 -o bad.stl
fails "--solid=DEPTH (write --solid=2)" "depth as a separate word" terrain --cells 8 --solid 2 -o bad.stl
fails "--solid: planets are closed surfaces already" "planet" planet --level 2 --solid -o bad.stl
fails "--solid=1: planets" "planet with a depth" planet --level 2 --solid=1 -o bad.stl
fails "--solid and --normals" "normals" terrain --cells 8 --solid --normals -o bad.stl
fails "--solid: not with --lod" "world with lod" terrain --cells 8 --tile-cells 4 --lod --solid -o badw
fails "--solid: planets" "planet world" planet --level 3 --chunk-level 1 --solid -o badw
fails "--print-size 0: out of range (valid: 0.001 <= MM" "zero print size" terrain --cells 8 --print-size 0 -o bad.stl
fails "--print-size -5: out of range" "negative print size" terrain --cells 8 --print-size -5 -o bad.stl
fails "--print-size: not available for worlds" "print size of a world" terrain --cells 8 --tile-cells 4 --print-size 10 -o badw

fails "--simplify-roofs 0: out of range (valid: 0 < ERR <= 1)" "zero error" terrain --cells 8 --simplify-roofs=0 -o bad.stl
fails "--simplify-roofs -1: out of range" "negative error" planet --level 2 --simplify-roofs=-1 -o bad.stl

fails "--props -2: out of range (valid: 0 < DENSITY" "negative density" planet --level 2 --props -2 --props-csv p.csv -o bad.stl
fails "--props-terraces 2-30: terrace 30 does not exist (there are 12: 0..11)" "no such terrace" terrain --cells 8 --props 1 --props-terraces 2-30 --props-csv p.csv -o bad.stl
fails "--props-terraces 5-2: A must not be above B" "terraces reversed" terrain --cells 8 --props 1 --props-terraces 5-2 --props-csv p.csv -o bad.stl
fails "--props 1 needs --props-csv FILE.csv or -o FILE.glb" "props without a list" terrain --cells 8 --props 1 -o bad.stl
run terrain --cells 32 --terraces 6 --props 3 --props-terraces 1-3 --props-csv p.csv -o props.ply
if [ "$rc" -ne 0 ] || [ "$(head -n 1 p.csv)" != "x,y,z,up_x,up_y,up_z,yaw,scale,kind,terrace" ]; then
    bad "props: exit $rc: $(cat err)"
elif ! awk -F, 'NR > 1 && ($10 < 1 || $10 > 3 || ($9 != "tree" && $9 != "rock")) { exit 1 }
        END { exit NR < 20 }' p.csv; then
    bad "props: terraces or kinds outside what was asked, or too few"
else
    ok
fi
for t in 1 3; do run terrain --cells 32 --props 3 --props-noise 0.4 --props-csv p$t.csv --threads $t -o props.ply; done
cmp -s p1.csv p3.csv && ok || bad "props: the list differs between 1 and 3 threads"

if ! command -v admesh >/dev/null 2>&1; then
    echo "$pass passed, $fail failed; admesh not found (apt-get install admesh): skipping the solids"
    [ "$fail" -eq 0 ] || exit 1
    exit 77
fi

# ------------------------------------------------------------ heightmaps
# A little-endian PFM of W x H heights from stdin (one per line, row by row).
f32() { # the four bytes of a small whole number as a float, as printf escapes
    case $1 in
    0) printf '%s' '\000\000\000\000' ;; 1) printf '%s' '\000\000\200\077' ;; 2) printf '%s' '\000\000\000\100' ;;
    3) printf '%s' '\000\000\100\100' ;; 4) printf '%s' '\000\000\200\100' ;; 5) printf '%s' '\000\000\240\100' ;;
    6) printf '%s' '\000\000\300\100' ;; 7) printf '%s' '\000\000\340\100' ;; 8) printf '%s' '\000\000\000\101' ;;
    9) printf '%s' '\000\000\020\101' ;; 10) printf '%s' '\000\000\040\101' ;; 11) printf '%s' '\000\000\060\101' ;;
    esac
}
pfm() { # FILE W H, heights on stdin
    printf 'Pf\n%s %s\n-1.0\n' "$2" "$3" >"$1"
    while read -r v; do
        # shellcheck disable=SC2059
        printf "$(f32 "$v")" >>"$1"
    done
}
W=12
H=9
# blocks: 4 high on pixels x 0..4, y 2..5 (on the left border) and x 7..9,
# y 3..6, and a ridge along the last row, x 5..10; 0 elsewhere.  With
# planes 0 and 4 the roof at 4 covers exactly the blocks' cells: 4 x 3 +
# 2 x 3 = 18 (the ridge has no area: its walls stand on the border).
awk -v w=$W -v h=$H 'BEGIN { for (y = 0; y < h; y++) for (x = 0; x < w; x++)
    print ((x <= 4 && y >= 2 && y <= 5) || (x >= 7 && x <= 9 && y >= 3 && y <= 6) ||
           (y == h - 1 && x >= 5 && x <= 10)) ? 4 : 0 }' |
    pfm blocks.pfm $W $H
# a ramp: height x; planes 0..10 make stairs of one unit, 55 x 8 in all.
awk -v w=$W -v h=$H 'BEGIN { for (y = 0; y < h; y++) for (x = 0; x < w; x++) print x }' |
    pfm ramp.pfm $W $H

# admesh_ok DESC FILE WANT: the checks on FILE's report, its volume within
# 1e-6 of WANT (0: any positive volume).
admesh_ok() {
    desc=$1 file=$2 want=$3
    admesh "$file" >report 2>&1
    field() { sed -n "s/^$1 *: *\\([-0-9.e+]*\\).*/\\1/p" report | head -n 1; }
    vol=$(sed -n 's/.*Volume *: *\([-0-9.e+]*\).*/\1/p' report)
    for f in "Degenerate facets" "Edges fixed" "Facets removed" "Facets added" \
        "Facets reversed" "Backwards edges" "Normals fixed"; do
        if [ "$(field "$f")" != 0 ]; then
            bad "$desc: admesh '$f' is $(field "$f")"
            return
        fi
    done
    if [ "$(field "Number of parts")" != 1 ]; then
        bad "$desc: admesh finds $(field "Number of parts") parts"
    elif ! awk -v v="$vol" -v w="$want" 'BEGIN { d = v - w; if (d < 0) d = -d;
            exit !(v > 0 && (w == 0 || d <= 1e-6 * w)) }'; then
        bad "$desc: admesh volume $vol, want $want"
    else
        ok
    fi
}

# ranges_ok DESC FILE XLO XHI YLO YHI ZLO ZHI: the box admesh reads.  STL
# is z-up: the heights are z (a solid's base the lowest), the image's x is
# x and its rows run down y (the top row at the largest y, seen from above
# as the image is).
ranges_ok() {
    desc=$1 file=$2
    shift 2
    admesh "$file" >report 2>&1
    box=$(awk '/^Min X|^Min Y|^Min Z/ { gsub(",", ""); printf "%s%g %g", sep, $4, $8; sep = " " }' report)
    [ "$box" = "$*" ] && ok || bad "$desc: x y z from $box, want $*"
}

# The domain is 11 x 8 = 88 (pixels 1 apart); the base 1.5 below plane 0.
run terrain --heightmap blocks.pfm --levels 0,4 --solid=1.5 -o blocks.stl --stats
if [ "$rc" -ne 0 ]; then bad "blocks: exit $rc: $(cat err)"; else ok; fi
admesh_ok "blocks (fins and wedges on the border)" blocks.stl "$((88 * 3 / 2 + 18 * 4))"
grep -q '^solid.fins_removed=[1-9]' err && ok || bad "blocks: no border fin met: $(grep solid err)"
ranges_ok "blocks: the base at z -1.5, the roofs at 4" blocks.stl -5.5 5.5 -4 4 -1.5 4
run terrain --heightmap blocks.pfm --levels 0,4 -o open.stl
ranges_ok "blocks, no solid: planes 0 and 4 are z" open.stl -5.5 5.5 -4 4 0 4
# strata slice: an .stl is z-up too, the input's up axis its z; with
# --up z that is the input's own frame (heights -4..4 cut to planes -2, 2)
run terrain --heightmap blocks.pfm --levels 0,4 -o blocks.ply
run slice blocks.ply --levels 0,4 -o slice.stl
ranges_ok "slice, up y: the heights are z" slice.stl -5.5 5.5 -4 4 0 4
run slice blocks.ply --up z --levels -2,2 -o slice.stl
ranges_ok "slice --up z: the input's frame" slice.stl -5.5 5.5 0 4 -2 2

run terrain --heightmap ramp.pfm --levels 0,1,2,3,4,5,6,7,8,9,10 --solid=1.5 -o ramp.stl
if [ "$rc" -ne 0 ]; then bad "ramp: exit $rc: $(cat err)"; else ok; fi
admesh_ok "ramp (a wall at every border vertex)" ramp.stl "$((88 * 3 / 2 + 55 * 8))"

# a noise terrain with vertices within rounding of a plane (a cut point
# used to round onto its vertex there): the slicer snaps them onto the
# plane, so the solid has nothing to weld and admesh nothing degenerate
run terrain --cells 200 --seed 3 --terraces 16 --solid -o weld.stl --stats
grep -q '^solid.vertices_merged=0$' err && ok || bad "cells 200 seed 3: welded: $(grep solid err)"
admesh_ok "noise terrain with vertices within rounding of a plane" weld.stl 0

for shape in "--shape grid --cells 64" "--shape polygon --sides 7"; do
    # shellcheck disable=SC2086
    run terrain $shape --terraces 16 --solid -o noise.stl
    if [ "$rc" -ne 0 ]; then bad "$shape: exit $rc: $(cat err)"; else ok; fi
    admesh_ok "noise terrain $shape" noise.stl 0
done

# simplified roofs, then a solid: still closed, the same volume
run terrain --heightmap blocks.pfm --levels 0,4 --simplify-roofs --solid=1.5 -o simple.stl --stats
if [ "$rc" -ne 0 ]; then bad "simplified blocks: exit $rc: $(cat err)"; else ok; fi
admesh_ok "simplified blocks" simple.stl "$((88 * 3 / 2 + 18 * 4))"
after=$(sed -n 's/^simplify.roof_triangles_after=//p' err)
before=$(sed -n 's/^simplify.roof_triangles_before=//p' err)
[ -n "$after" ] && [ "$after" -lt "$before" ] && ok || bad "simplified blocks: roofs $before -> $after"
run terrain --heightmap ramp.pfm --levels 0,1,2,3,4,5,6,7,8,9,10 --simplify-roofs --solid=1.5 -o simple.stl
admesh_ok "simplified ramp" simple.stl "$((88 * 3 / 2 + 55 * 8))"

# the same bytes for any thread count and instruction set
for t in 1 2 3; do
    run terrain --cells 48 --terraces 9 --simplify-roofs --solid --threads $t -o same$t.stl
done
STRATA_SIMD=scalar "$STRATA" terrain --cells 48 --terraces 9 --simplify-roofs --solid -o same0.stl 2>/dev/null
cmp -s same1.stl same2.stl && cmp -s same1.stl same3.stl && cmp -s same1.stl same0.stl && ok ||
    bad "--simplify-roofs --solid: bytes differ between thread counts or instruction sets"
run planet --level 4 --terraces 8 --simplify-roofs --threads 1 -o p1.ply
run planet --level 4 --terraces 8 --simplify-roofs --threads 3 -o p3.ply
cmp -s p1.ply p3.ply && ok || bad "planet --simplify-roofs: bytes differ between 1 and 3 threads"

# --print-size: the longest side of the box admesh reads is the size asked.
run terrain --cells 32 --size 10 --solid --print-size 150 -o print.stl
if [ "$rc" -ne 0 ]; then bad "print-size: exit $rc: $(cat err)"; else ok; fi
admesh_ok "printed solid" print.stl 0
admesh print.stl >report 2>&1
side=$(awk '/^Min X|^Min Y|^Min Z/ { gsub(",", ""); lo = $4; hi = $8; if (hi - lo > m) m = hi - lo }
    END { print m }' report)
awk -v s="$side" 'BEGIN { d = s - 150; if (d < 0) d = -d; exit !(d <= 1e-4) }' && ok ||
    bad "print-size 150: longest side $side"
# on the build plate: the square footprint is x and y (150 each), the
# heights z, the base lowest
awk '/^Min X|^Min Y/ { gsub(",", ""); d = $8 - $4 - 150; if (d < -1e-4 || d > 1e-4) bad = 1 }
     /^Min Z/ { gsub(",", ""); if (!($8 - $4 < 150)) bad = 1 } END { exit bad }' report && ok ||
    bad "print-size 150: not lying flat: $(grep '^Min' report)"
run terrain --heightmap blocks.pfm --levels 0,4 --solid=1.5 --print-size 22 -o print2.stl
admesh_ok "printed blocks: volume scaled by (22 / 11)^3" print2.stl "$(((88 * 3 / 2 + 18 * 4) * 8))"

finish
