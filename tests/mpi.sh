#!/bin/sh
# Worlds shared by the ranks of an MPI job: the same bytes as one process
# for 1, 2 and 3 ranks (planets and template terrains, planes by count and
# given), resume, a failing rank.  Skipped (77) when the program was built
# without MPI or mpirun is missing.  Run by `make check` with STRATA set.
. "$(dirname "$0")/lib.sh"
unset STRATA_SIMD OMP_NUM_THREADS
if ! "$STRATA" info 2>/dev/null | grep -q '^mpi: yes'; then
    echo "SKIP: strata was built without MPI (configure --with-mpi)"
    exit 77
fi
if ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP: no mpirun (Debian: apt-get install openmpi-bin)"
    exit 77
fi
# Open MPI refuses root without these; --oversubscribe lets 3 ranks share
# 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { # N ARGS...
    n=$1
    shift
    mpirun --oversubscribe -n "$n" "$STRATA" "$@" >out 2>err
    rc=$?
}

test_dir mpi

# MPI must start at all here (a container may lack what it needs)
if ! mpirun --oversubscribe -n 2 true >/dev/null 2>&1; then
    echo "SKIP: mpirun cannot start 2 processes here: $(mpirun --oversubscribe -n 2 true 2>&1 | head -3)"
    exit 77
fi

P="planet --level 6 --chunk-level 2 --terraces 20 --threads 1 --quiet"
"$STRATA" $P -o ref || bad "one-process planet world"
for n in 1 2 3; do
    mpi "$n" $P -o "p$n"
    [ "$rc" -eq 0 ] && ok || bad "$n ranks: exit $rc: $(cat err)"
    same "planet, $n ranks" ref "p$n"
done
# --stats from rank 0 only, with the ranks' sums
mpi 3 $P -o pstats --stats
[ "$rc" -eq 0 ] && ok || bad "--stats: exit $rc"
[ "$(grep -c '^chunks.made=' err)" -eq 1 ] && ok || bad "--stats printed by one rank: $(grep -c '^chunks.made=' err)"
grep -q '^chunks.made=320$' err && ok || bad "--stats: the ranks' chunks add up to 320: $(grep chunks.made err)"
grep -q '^ranks=3$' err && ok || bad "--stats: ranks=3"
grep -q '^processes=.*3 ranks, dynamic' err && ok || bad "--stats: dynamic sharing: $(grep processes= err)"
same "planet, 3 ranks with --stats" ref pstats
# threads inside ranks, explicit planes, PLY tiles
"$STRATA" planet --level 5 --chunk-level 1 --levels -0.05,0,0.04 --tile-format ply --quiet -o lref ||
    bad "one-process planet with --levels"
mpi 2 planet --level 5 --chunk-level 1 --levels -0.05,0,0.04 --tile-format ply --threads 2 --quiet -o l2
[ "$rc" -eq 0 ] && ok || bad "--levels, 2 ranks x 2 threads: exit $rc: $(cat err)"
same "--levels, PLY tiles, 2 ranks x 2 threads" lref l2

# a template terrain: chunks of unequal cost
python3 - <<'PY'
w, h = 9, 7
px = bytes((x * 37 + y * 91) % 256 for y in range(h) for x in range(w))
open("tpl.pgm", "wb").write(b"P5\n%d %d\n255\n" % (w, h) + px)
PY
T="terrain --template tpl.pgm --patch-cells 24 --tile-cells 40 --terraces 12 --threads 1 --quiet"
"$STRATA" $T -o tref || bad "one-process template world"
mpi 3 $T -o t3
[ "$rc" -eq 0 ] && ok || bad "template, 3 ranks: exit $rc: $(cat err)"
same "template terrain, 3 ranks" tref t3

# resume: half the tiles removed, 3 ranks make the rest
cp -r ref part
find part/tiles -name '*.glb' | sort | awk 'NR % 2 == 0' | xargs rm -f
rm -f part/tileset.json
mpi 3 $P -o part --resume --stats
[ "$rc" -eq 0 ] && ok || bad "--resume, 3 ranks: exit $rc: $(cat err)"
grep -q '^chunks.made=160$' err && grep -q '^chunks.skipped=160$' err && ok ||
    bad "--resume: 160 made, 160 skipped: $(grep chunks err | tr '\n' ' ')"
same "--resume, 3 ranks" ref part

# a corrupt tile on --resume is made again; a tile of another chunk: one
# rank fails, the run stops with a message
cp -r ref bad
printf 'broken' >bad/tiles/2/100.glb
mpi 3 $P -o bad --resume
[ "$rc" -eq 0 ] && ok || bad "corrupt tile under MPI: exit $rc: $(cat err)"
same "a corrupt tile made again, 3 ranks" ref bad
cp bad/tiles/2/101.glb bad/tiles/2/100.glb
mpi 3 $P -o bad --resume
[ "$rc" -ne 0 ] && ok || bad "a tile of another chunk under MPI: exit 0"
grep -q "tiles/2/100.glb.*another world or chunk" err && ok || bad "foreign tile named: $(cat err)"
[ -z "$(find bad -name '*.tmp*')" ] && ok || bad "temporaries left after a failed MPI run"

# shards and one chunk still work under mpirun
mpi 2 $P -o sh --shard 1/2
[ "$rc" -eq 0 ] && ok || bad "--shard 1/2 under 2 ranks: exit $rc: $(cat err)"
[ "$(find sh/tiles -name '*.glb' | wc -l)" -eq 160 ] && ok || bad "--shard 1/2: 160 tiles"
cmp -s sh/tiles/2/0.glb ref/tiles/2/0.glb && ok || bad "--shard tile equals the reference"

finish mpi.sh
