#!/bin/sh
# Clean by position, not only by vertex id (issue 28): outputs welded by
# exact position (tests/poscheck, tests/poscheck.h) use every directed
# edge at most once, have borders only on the domain border, and no
# triangle with a side shorter than 4 ulps of its largest coordinate; a
# planet is closed.  Cases: the planet whose roofs had slivers 1-2 ulps
# wide, with --simplify-roofs too (whose fans had triangles of three
# nearly collinear corners); a T-shaped ridge lying exactly in a plane
# (its fin walls were kept back to back over distinct bottom copies: 24
# repeated edges, and its solid 2 parts in admesh); a noise terrain, and
# worlds (each tile and their welded union).  Run by `make check` with
# STRATA set.  POSIX sh.

. "$(dirname "$0")/lib.sh"
unset STRATA_SIMD
POSCHECK=$builddir/tests/poscheck
[ -x "$POSCHECK" ] || { echo "tests/poscheck not built"; exit 99; }

test_dir position

# figure NAME LINE: the value of NAME in a poscheck line
figure() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# clean DESC WANT FILE...: poscheck of the files welded together has 0 of
# every figure named in WANT (a space-separated list)
clean() {
    desc=$1 want=$2
    shift 2
    line=$("$POSCHECK" "$@") || { bad "$desc: poscheck failed"; return; }
    for f in $want; do
        v=$(figure "$f" "$line")
        if [ "$v" != 0 ]; then
            bad "$desc: $f=$v ($line)"
            return
        fi
    done
    ok
}

CLOSED="collapsed repeated nonmanifold border short_side"
OPEN="collapsed repeated nonmanifold inner_border short_side"

run planet --level 7 --seed 9 --terraces 20 -o p.ply
check "planet: exit $rc" '[ "$rc" -eq 0 ]'
clean "planet --level 7 --seed 9 --terraces 20" "$CLOSED thin" p.ply
run planet --level 7 --seed 9 --terraces 20 --simplify-roofs -o ps.ply
clean "the same planet with --simplify-roofs" "$CLOSED thin" ps.ply

# 9 x 7 samples: a ridge along row 3 and a spur down column 2, at height
# 1 exactly, the plane of the second level; 0 elsewhere
{
    printf 'P5\n9 7\n255\n'
    for j in 0 1 2 3 4 5 6; do
        for i in 0 1 2 3 4 5 6 7 8; do
            if { [ "$j" -eq 3 ] && [ "$i" -ge 1 ] && [ "$i" -le 7 ]; } ||
                { [ "$i" -eq 2 ] && [ "$j" -ge 3 ] && [ "$j" -le 5 ]; }; then
                printf '\377'
            else
                printf '\000'
            fi
        done
    done
} >ridge.pgm
run terrain --heightmap ridge.pgm --height-scale 1 --levels 0,1 -o ridge.ply
check "ridge: exit $rc" '[ "$rc" -eq 0 ]'
clean "a ridge lying in a plane" "$OPEN" ridge.ply
run terrain --heightmap ridge.pgm --height-scale 1 --levels 0,1 --solid -o ridge.stl
clean "the ridge's solid" "$CLOSED" ridge.stl
if command -v admesh >/dev/null 2>&1; then
    parts=$(admesh ridge.stl 2>&1 | sed -n 's/^Number of parts *: *\([0-9]*\).*/\1/p')
    check "the ridge's solid: admesh finds '$parts' parts, want 1" '[ "$parts" = 1 ]'
fi

run terrain --cells 128 --seed 3 --terraces 24 -o t.ply
clean "a noise terrain" "$OPEN" t.ply
run terrain --cells 128 --seed 3 --terraces 24 --simplify-roofs -o ts.ply
clean "a noise terrain with --simplify-roofs" "$OPEN thin" ts.ply

run terrain --cells 128 --tile-cells 32 --tile-format ply --terraces 24 -o tw
check "terrain world: exit $rc" '[ "$rc" -eq 0 ]'
for f in tw/tiles/*/*.ply; do
    clean "terrain world tile $f" "$OPEN" "$f"
done
clean "terrain world, its tiles welded" "$OPEN" tw/tiles/*/*.ply
# --solid worlds: the tiles' union, welded by position, is closed with
# no repeated directed edge (the walls and base on the border tiles, the
# base's rectangles meeting at the inner borders); the same bytes for
# any thread count, ISA and sharding
run terrain --cells 48 --tile-cells 16 --seed 3 --terraces 12 --solid --tile-format ply -o sw
check "solid terrain world: exit $rc" '[ "$rc" -eq 0 ]'
clean "solid terrain world, its tiles welded" "$CLOSED thin" sw/tiles/*/*.ply
OMP_NUM_THREADS=1 STRATA_SIMD=scalar "$STRATA" terrain --cells 48 --tile-cells 16 --seed 3 \
    --terraces 12 --solid --tile-format ply -o sw1 2>/dev/null
same "solid terrain world, 1 thread, scalar" sw/tiles sw1/tiles
for k in 1 2 3; do
    "$STRATA" terrain --cells 48 --tile-cells 16 --seed 3 --terraces 12 --solid --tile-format ply \
        --shard $k/3 -o sws 2>/dev/null || bad "solid world shard $k/3"
done
same "solid terrain world in 3 shards" sw/tiles sws/tiles
# from a heightmap: the ridge lying in a plane, every tile size
for tc in 1 2 3 4; do
    run terrain --heightmap ridge.pgm --height-scale 1 --levels 0,1 --solid --tile-cells $tc \
        --tile-format ply -o rw$tc
    clean "the ridge's solid world, tiles of $tc" "$CLOSED" rw$tc/tiles/*/*.ply
done
# a DEM of small integers on integer planes (lattice vertices on their
# planes at tile corners on the world's border, spikes there): the union
# has the same figures by position as the whole mesh's solid (whose
# repeated edges are the slicer's saddles on a plane, not the solid's)
{
    printf 'P5\n13 11\n255\n'
    for v in $(awk 'BEGIN { s = 7; for (i = 0; i < 143; i++) {
            s = (s * 1103515245 + 12345) % 2147483648; print int(s / 65536) % 5 } }'); do
        printf "\\00$v"
    done
} >dem.pgm
run terrain --heightmap dem.pgm --height-scale 255 --levels 0,1,2,3,4 --solid -o dem.ply
want=$("$POSCHECK" dem.ply | sed 's/tris=[0-9]* points=[0-9]* //; s/ thin.*//')
check "the DEM's whole solid is closed ($want)" 'echo "$want" | grep -q " border=0 "'
for tc in 1 2 3 5; do
    run terrain --heightmap dem.pgm --height-scale 255 --levels 0,1,2,3,4 --solid \
        --tile-cells $tc --tile-format ply -o dw$tc
    got=$("$POSCHECK" dw$tc/tiles/*/*.ply | sed 's/tris=[0-9]* points=[0-9]* //; s/ thin.*//')
    check "the DEM's solid world, tiles of $tc: '$got', whole '$want'" '[ "$got" = "$want" ]'
done

run planet --level 6 --chunk-level 2 --tile-format ply --terraces 20 --seed 9 -o pw
check "planet world: exit $rc" '[ "$rc" -eq 0 ]'
clean "planet world, its chunks welded" "$CLOSED" pw/tiles/*/*.ply

finish position
