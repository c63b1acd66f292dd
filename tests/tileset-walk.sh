#!/bin/sh
# Levels of detail (--lod): make small worlds with the strata program and
# walk their whole tilesets with tests/tileset-walk.py (asset.version 1.1,
# geometricError strictly decreasing from parent to child and 0 at the
# leaves, every content URI present, child boxes inside parent boxes and
# every tile's vertices inside its box, refine REPLACE, inner tiles with
# content), external tilesets included; then the Khronos glTF-Validator
# on every tile when it is installed (0 errors, 0 warnings; see
# tests/gltf-validate.sh for where it is looked up).  Also: --skirt 0
# leaves byte-identical to a run without --lod, thread counts and the
# scalar kernels giving the same bytes, `strata tileset` rewriting the same tileset, and --resume.
# Run by `make check` with STRATA and SRCDIR set; exits 77 without
# python3.  POSIX sh only.

. "$(dirname "$0")/lib.sh"
unset STRATA_SIMD

if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 is not installed"
    exit 77
fi
walk="python3 $SRCDIR/tests/tileset-walk.py"

find_validator
[ -n "$module" ] || echo "glTF-Validator not found: tiles not validated (see tests/gltf-validate.sh)"

test_dir walk

# world NAME ARGS...: make world NAME with the program, walk its tileset,
# validate its tiles.
world() {
    name=$1
    shift
    if ! "$STRATA" "$@" --lod --no-sync --quiet -o "$name" 2>err; then
        bad "$name: strata $* --lod: $(cat err)"
        return 1
    fi
    if $walk "$name" --lod --list "$name.list" >report 2>&1; then ok; else bad "$name: tileset walk"; fi
    cat report
    cp report "walk.$name"
    if [ -n "$module" ]; then
        # in batches, so that no command line grows too long
        if xargs -n 500 node "$SRCDIR/tests/gltf-validate.mjs" "$module" <"$name.list" >vreport 2>&1; then
            ok
        else
            bad "$name: the validator reports errors or warnings"
            grep -v 'errors=0 warnings=0' vreport | head -n 20
        fi
        echo "  validated $(grep -c 'errors=0 warnings=0' vreport) tiles of $name"
    fi
}

world planet planet --level 6 --chunk-level 2 --terraces 12
world terrain terrain --cells 150 --tile-cells 16 --terraces 10
world noskirt-terrain terrain --cells 40 --tile-cells 8 --skirt 0
# with normals (the default for glb tiles) the walls have vertices of
# their own: the same skirts as without
world nonormals terrain --cells 150 --tile-cells 16 --terraces 10 --no-normals
check "--no-normals: the skirts of the same world with" \
    '[ "$(sed -n "s/.*skirt_triangles=\([0-9]*\).*/\1/p" walk.terrain)" = "$(sed -n "s/.*skirt_triangles=\([0-9]*\).*/\1/p" walk.nonormals)" ]'
# more than 4096 leaves: external tilesets (tilesets/K/ID.json)
world external terrain --cells 66 --tile-cells 1 --terraces 4

# the leaves of --lod --skirt 0 are the tiles of a run without --lod
"$STRATA" planet --level 6 --chunk-level 2 --terraces 12 --no-sync --quiet -o plain 2>err ||
    bad "plain: $(cat err)"
"$STRATA" planet --level 6 --chunk-level 2 --terraces 12 --lod --skirt 0 --no-sync --quiet \
    -o noskirt 2>err || bad "noskirt: $(cat err)"
check "--skirt 0: leaves byte-identical to a run without --lod" 'diff -r plain/tiles/2 noskirt/tiles/2 >/dev/null'
check "--lod: coarser tiles at depths 0 and 1" '[ "$(ls noskirt/tiles/0 | wc -l)" = 20 ] && [ "$(ls noskirt/tiles/1 | wc -l)" = 80 ]'
check "skirts change the leaves" '! diff -r plain/tiles/2 planet/tiles/2 >/dev/null'

# the same bytes for any thread count; strata tileset writes the same tileset
OMP_NUM_THREADS=1 "$STRATA" planet --level 6 --chunk-level 2 --terraces 12 --lod --no-sync --quiet \
    -o one 2>err || bad "one thread: $(cat err)"
OMP_NUM_THREADS=3 "$STRATA" planet --level 6 --chunk-level 2 --terraces 12 --lod --no-sync --quiet \
    -o three 2>err || bad "three threads: $(cat err)"
STRATA_SIMD=scalar "$STRATA" planet --level 6 --chunk-level 2 --terraces 12 --lod --no-sync --quiet \
    -o scalar 2>err || bad "scalar: $(cat err)"
check "--lod: the same bytes for 1 and 3 threads" 'diff -r one three >/dev/null && diff -r one planet >/dev/null'
check "--lod: the same bytes with STRATA_SIMD=scalar" 'diff -r scalar planet >/dev/null'
cp planet/tileset.json before.json
"$STRATA" tileset planet --quiet 2>err || bad "strata tileset: $(cat err)"
check "strata tileset: the same tileset" 'cmp -s before.json planet/tileset.json'

# shards, then the tileset; resume after losing inner tiles
for k in 1 2 3; do
    "$STRATA" terrain --cells 150 --tile-cells 16 --terraces 10 --lod --shard $k/3 --no-sync \
        --quiet -o sharded 2>err || bad "shard $k/3: $(cat err)"
done
"$STRATA" tileset sharded --quiet 2>err || bad "tileset of shards: $(cat err)"
check "--lod shards: the same world" 'diff -r sharded terrain >/dev/null'
rm -f terrain/tiles/0/0_0.glb terrain/tiles/2/1_2.glb
"$STRATA" terrain --cells 150 --tile-cells 16 --terraces 10 --lod --resume --no-sync --stats \
    --quiet -o terrain 2>stats || bad "resume: $(cat stats)"
check "--resume: the two missing tiles made again" 'grep -q "^chunks.made=2$" stats && diff -r sharded terrain >/dev/null'

# MPI (a build with it): ranks share leaves and inner tiles, same bytes
if "$STRATA" info | grep -q '^mpi: yes' && command -v mpirun >/dev/null 2>&1; then
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun --oversubscribe -n 3 \
        "$STRATA" planet --level 6 --chunk-level 2 --terraces 12 --lod --threads 1 --no-sync \
        --quiet -o ranks >mpi.out 2>&1 || bad "mpirun: $(tail -n 3 mpi.out)"
    check "--lod under mpirun -n 3: the bytes of one process" 'diff -r ranks planet >/dev/null'
else
    echo "no MPI in this build: the MPI check is skipped"
fi

# a directory made without --lod is another world for --lod
check "--lod on a directory of a world without it: refused" \
    '! "$STRATA" planet --level 6 --chunk-level 2 --terraces 12 --lod --skirt 0 --quiet -o plain 2>err && grep -q "another world" err'
check "--skirt without --lod: usage error" \
    '"$STRATA" planet --level 6 --chunk-level 2 --skirt 0 -o x 2>err; [ $? = 2 ] && grep -q -- "--skirt" err'
check "--lod without a world: usage error" \
    '"$STRATA" planet --level 4 --lod -o x.glb 2>err; [ $? = 2 ] && grep -q -- "--lod" err'

finish
