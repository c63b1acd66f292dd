#!/bin/sh
# worlds.sh: figures of world runs through the strata program, one
# key=value line per measurement (bench=NAME first).
#
#   perf/worlds.sh [--quick] [--big] [--threads N] [--dir DIR] [--only NAME]
#
#   inmem_vs_chunked  a level-11 planet (32 terraces, PLY) made in memory
#                     and as a world of level-4 chunks in the same run:
#                     seconds, peak RSS, bytes, and the world's seconds per
#                     stage summed over chunks (lattice, noise, slice,
#                     write)
#   peak_rss          a level-12 planet with --chunk-level 4 (GLB tiles):
#                     peak RSS against the 1 GB target
#   template          a terrain world from a 64 x 64 template, 64 cells a
#                     patch, against the same terrain in memory
#   mpi               a level-10 world with 1, 2 and 4 ranks (when built
#                     with MPI): seconds and whether the bytes equal the
#                     one-process run; tiles on /dev/shm when it exists,
#                     so the disk's write-back does not drown the ranks'
#                     overhead
#   bigmap            a 16-bit PGM DEM wider than a heightmap held in
#                     memory may be (33000 x 2048; --big: 65536 x 8192,
#                     2^29 samples, twice the in-memory limit) made as a
#                     world read tile by tile: seconds, peak RSS against
#                     the file's size, bytes
#   sync              the cost of durability: a level-10 planet as one PLY
#                     file and as a world of 5120 GLB tiles, each with and
#                     without --no-sync (fsync of every file before its
#                     rename and of its directory after), best of 3
#   lod               a level-12 planet with --chunk-level 4 (GLB tiles)
#                     with and without --lod (skirts on, and --skirt 0),
#                     best of 2, tiles on /dev/shm: wall and CPU seconds
#                     and their ratios against the 1.4 target, tiles,
#                     bytes, tileset JSON bytes (tileset.json and
#                     tilesets/), peak RSS
#   compress          a level-10 planet (32 terraces) as one .glb and as a
#                     world of level-4 GLB tiles, plain, --compress and
#                     --compress --optimize (when built with
#                     meshoptimizer): bytes, and wall and CPU seconds of
#                     the run with the least CPU time of 3 (--no-sync)
#   level13           (--big) a level-13 planet with --chunk-level 5:
#                     seconds, bytes, peak RSS
# --quick uses levels 9/10 instead of 11/12.  Files go to DIR (default a
# temporary directory under /var/tmp, removed at the end).
set -u
here=$(cd "$(dirname "$0")" && pwd)
S=${STRATA:-$here/../apps/strata}
quick=0 big=0 threads=0 dir="" only=""
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1 ;;
    --big) big=1 ;;
    --threads) threads=$2; shift ;;
    --dir) dir=$2; shift ;;
    --only) only=$2; shift ;;
    *) echo "usage: perf/worlds.sh [--quick] [--big] [--threads N] [--dir DIR] [--only NAME]" >&2; exit 2 ;;
    esac
    shift
done
if [ -z "$dir" ]; then
    dir=$(mktemp -d /var/tmp/strata-worlds.XXXXXX) || exit 1
    trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir" && cd "$dir" || exit 1
if [ $quick = 1 ]; then L1=9 L2=10; else L1=11 L2=12; fi
T="--threads $threads"

# want NAME: whether to run that benchmark
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }
# stat KEY FILE: the value of KEY= in a --stats dump
stat() { sed -n "s/^$1=//p" "$2" | head -n 1; }
# timed OUT CMD...: run with GNU time (seconds and peak RSS in OUT.time)
timed() {
    out=$1
    shift
    /usr/bin/time -f "%e %M %U %S" -o "$out.time" "$@" 2>"$out.err" >/dev/null ||
        { echo "worlds.sh: failed: $* ($(tail -n 2 "$out.err"))" >&2; return 1; }
}
secs() { cut -d' ' -f1 "$1.time"; }
cpu() { awk '{ printf "%.2f", $3 + $4 }' "$1.time"; }
rss() { echo $(($(cut -d' ' -f2 "$1.time") * 1024)); }
bytes() { du -sb "$1" | cut -f1; }

echo "bench=machine cpus=$(nproc) isa=$("$S" info | sed -n 's/^isa: //p') mpi=$("$S" info | sed -n 's/^mpi: \([a-z]*\).*/\1/p')"

# ---------------------------------------------------------------- in memory vs chunked
if want inmem_vs_chunked; then
P="planet --level $L1 --terraces 32 $T --quiet"
timed mem "$S" $P -o mem.ply
timed chunk "$S" $P --chunk-level 4 --tile-format ply --stats -o chunked
echo "bench=inmem_vs_chunked level=$L1 chunk_level=4 format=ply" \
    "inmem_s=$(secs mem) inmem_peak_rss=$(rss mem) inmem_bytes=$(bytes mem.ply)" \
    "chunked_s=$(secs chunk) chunked_peak_rss=$(rss chunk) chunked_bytes=$(bytes chunked/tiles)" \
    "speedup=$(echo "$(secs mem) $(secs chunk)" | awk '{ printf "%.3f", $1 / $2 }')" \
    "range_s=$(stat time.range chunk.err) chunks_s=$(stat time.chunks chunk.err)" \
    "tileset_s=$(stat time.tileset chunk.err)" \
    "lattice_s=$(stat seconds.lattice chunk.err) noise_s=$(stat seconds.noise chunk.err)" \
    "slice_s=$(stat seconds.slice chunk.err) write_s=$(stat seconds.write chunk.err)"
rm -rf mem.ply chunked
fi

# ---------------------------------------------------------------- peak RSS
if want peak_rss; then
timed big "$S" planet --level $L2 --terraces 32 $T --chunk-level 4 --stats -o rss
echo "bench=peak_rss level=$L2 chunk_level=4 format=glb seconds=$(secs big)" \
    "peak_rss=$(rss big) target=1073741824 within=$([ "$(rss big)" -le 1073741824 ] && echo yes || echo no)" \
    "tiles=$(stat chunks.made big.err) triangles=$(stat triangles big.err) bytes=$(stat bytes big.err)"
rm -rf rss
fi

# ---------------------------------------------------------------- template terrain
if want template; then
python3 - <<'PY'
import math
w = h = 64
px = bytes(int(127.5 + 120 * math.sin(x * 0.21) * math.cos(y * 0.17)) for y in range(h) for x in range(w))
open("tpl.pgm", "wb").write(b"P5\n%d %d\n255\n" % (w, h) + px)
PY
TT="terrain --template tpl.pgm --patch-cells 64 --terraces 24 $T --quiet"
timed tmem "$S" $TT -o tmem.ply
timed tchunk "$S" $TT --tile-cells 256 --tile-format ply --stats -o tworld
echo "bench=template cells=4032x4032 tile_cells=256 format=ply inmem_s=$(secs tmem)" \
    "inmem_peak_rss=$(rss tmem) chunked_s=$(secs tchunk) chunked_peak_rss=$(rss tchunk)" \
    "speedup=$(echo "$(secs tmem) $(secs tchunk)" | awk '{ printf "%.3f", $1 / $2 }')" \
    "tiles=$(stat chunks.made tchunk.err) triangles=$(stat triangles tchunk.err)" \
    "lattice_s=$(stat seconds.lattice tchunk.err) noise_s=$(stat seconds.noise tchunk.err)" \
    "slice_s=$(stat seconds.slice tchunk.err) write_s=$(stat seconds.write tchunk.err)"
rm -rf tmem.ply tworld
fi

# ---------------------------------------------------------------- MPI
if want mpi && "$S" info | grep -q '^mpi: yes' && command -v mpirun >/dev/null 2>&1; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    home=$(pwd)
    if [ -d /dev/shm ]; then
        shm=$(mktemp -d /dev/shm/strata-worlds.XXXXXX) && cd "$shm" || exit 1
    fi
    M="planet --level 10 --chunk-level 4 --terraces 32 --threads 1 --quiet"
    timed m0 "$S" $M -o m0
    for n in 1 2 4; do
        timed "m$n" mpirun --oversubscribe -n $n "$S" $M -o "m$n"
        same=$(diff -r m0 "m$n" >/dev/null && echo yes || echo no)
        echo "bench=mpi level=10 chunk_level=4 ranks=$n threads_per_rank=1 cpus=$(nproc)" \
            "seconds=$(secs "m$n") one_process_s=$(secs m0) identical=$same"
        rm -rf "m$n"
    done
    rm -rf m0
    cd "$home" || exit 1
    [ -n "${shm:-}" ] && rm -rf "$shm"
fi

# ---------------------------------------------------------------- big DEM
if want bigmap; then
    if [ $big = 1 ]; then BW=65536 BH=8192; else BW=33000 BH=2048; fi
    # h(x, y) = g(x + 3y), g two sines: smooth ridges, rows cut from one
    # table so that writing the file takes seconds
    python3 - "$BW" "$BH" <<'PY'
import math, struct, sys
w, h = int(sys.argv[1]), int(sys.argv[2])
n = w + 3 * h
g = struct.pack(">%dH" % n, *(int(32767.5 + 20000 * math.sin(i * 0.0031) + 12000 * math.sin(i * 0.0173)) for i in range(n)))
with open("dem.pgm", "wb") as f:
    f.write(b"P5\n%d %d\n65535\n" % (w, h))
    for y in range(h):
        f.write(g[6 * y:6 * y + 2 * w])
PY
    timed bm "$S" terrain --heightmap dem.pgm --terraces 16 --tile-cells 512 $T --stats -o bm
    echo "bench=bigmap width=$BW height=$BH samples=$((BW * BH)) file_bytes=$(bytes dem.pgm)" \
        "tile_cells=512 format=glb seconds=$(secs bm) peak_rss=$(rss bm)" \
        "tiles=$(stat chunks.made bm.err) triangles=$(stat triangles bm.err) bytes=$(bytes bm)" \
        "range_s=$(stat time.range bm.err) chunks_s=$(stat time.chunks bm.err)"
    rm -rf bm dem.pgm
fi

# ---------------------------------------------------------------- sync
if want sync; then
    best() { # NAME CMD...: the best of 3 runs' seconds
        name=$1
        shift
        b=""
        for _ in 1 2 3; do
            rm -rf sy sy.ply
            timed "$name" "$@" || return 1
            t=$(secs "$name")
            if [ -z "$b" ] || [ "$(echo "$t $b" | awk '{ print ($1 < $2) }')" = 1 ]; then b=$t; fi
        done
        echo "$b"
    }
    P10="planet --level 10 --terraces 32 $T --quiet"
    f_sync=$(best fs "$S" $P10 -o sy.ply) f_nosync=$(best fn "$S" $P10 --no-sync -o sy.ply)
    w_sync=$(best ws "$S" $P10 --chunk-level 4 -o sy) w_nosync=$(best wn "$S" $P10 --chunk-level 4 --no-sync -o sy)
    echo "bench=sync level=10 file_sync_s=$f_sync file_nosync_s=$f_nosync" \
        "file_ratio=$(echo "$f_sync $f_nosync" | awk '{ printf "%.3f", $1 / $2 }')" \
        "tiles=5120 tiles_sync_s=$w_sync tiles_nosync_s=$w_nosync" \
        "tiles_ratio=$(echo "$w_sync $w_nosync" | awk '{ printf "%.3f", $1 / $2 }')"
    rm -rf sy sy.ply
fi

# ---------------------------------------------------------------- levels of detail
if want lod; then
    # best of 2 rounds (leaves, lod, lod without skirts, in turn), wall
    # and CPU (user + system) seconds; tiles on /dev/shm when it exists
    # (one world there at a time), so the disk's write-back and the
    # filesystem's inode reuse do not drown the difference
    home=$(pwd)
    if [ -d /dev/shm ]; then
        shm=$(mktemp -d /dev/shm/strata-lod.XXXXXX) && cd "$shm" || exit 1
    fi
    LP="planet --level $L2 --chunk-level 4 --terraces 32 $T --stats"
    min() { echo "$1 $2" | awk '{ print ($2 == "" || $1 < $2) ? $1 : $2 }'; }
    json_bytes() { cat "$1/tileset.json" $(find "$1" -path '*/tilesets/*.json') | wc -c; }
    ratio() { echo "$1 $2" | awk '{ printf "%.3f", $1 / $2 }'; }
    lw="" lc="" ow="" oc="" nw="" nc=""
    for round in 1 2; do
        timed leaves "$S" $LP -o lleaves || break
        lw=$(min "$(secs leaves)" "$lw") lc=$(min "$(cpu leaves)" "$lc") lb=$(bytes lleaves)
        rm -rf lleaves
        timed lod "$S" $LP --lod -o llod || break
        ow=$(min "$(secs lod)" "$ow") oc=$(min "$(cpu lod)" "$oc") ob=$(bytes llod)
        jb=$(json_bytes llod) jf=$(($(find llod -path '*/tilesets/*.json' | wc -l) + 1))
        rm -rf llod
        timed lod0 "$S" $LP --lod --skirt 0 -o llod0 || break
        nw=$(min "$(secs lod0)" "$nw") nc=$(min "$(cpu lod0)" "$nc") nb=$(bytes llod0)
        rm -rf llod0
    done
    echo "bench=lod level=$L2 chunk_level=4 format=glb dir=$(pwd) rounds=2 leaves_s=$lw" \
        "lod_s=$ow lod_noskirt_s=$nw ratio=$(ratio "$ow" "$lw") ratio_noskirt=$(ratio "$nw" "$lw")" \
        "leaves_cpu_s=$lc lod_cpu_s=$oc lod_noskirt_cpu_s=$nc" \
        "cpu_ratio=$(ratio "$oc" "$lc") cpu_ratio_noskirt=$(ratio "$nc" "$lc") target=1.4" \
        "tiles_leaves=$(stat chunks.made leaves.err) tiles_lod=$(stat chunks.made lod.err)" \
        "bytes_leaves=$lb bytes_lod=$ob bytes_lod_noskirt=$nb" \
        "tileset_json_bytes=$jb tileset_json_files=$jf" \
        "peak_rss_leaves=$(rss leaves) peak_rss_lod=$(rss lod)" \
        "triangles_leaves=$(stat triangles leaves.err) triangles_lod=$(stat triangles lod.err)" \
        "triangles_lod_noskirt=$(stat triangles lod0.err)"
    cd "$home" || exit 1
    [ -n "${shm:-}" ] && rm -rf "$shm"
# ---------------------------------------------------------------- compress
if want compress && "$S" info | grep -q '^meshoptimizer: yes'; then
    # cbest NAME CMD...: "WALL CPU" of the run with the least CPU seconds
    # (user + system) of 3: on a shared machine CPU time is the steadier
    # figure of the work done
    cbest() {
        name=$1
        shift
        b=""
        for _ in 1 2 3; do
            rm -rf cz cz.glb
            /usr/bin/time -f "%e %U %S" -o "$name.time" "$@" 2>"$name.err" >/dev/null ||
                { echo "worlds.sh: failed: $* ($(tail -n 2 "$name.err"))" >&2; return 1; }
            t=$(awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$name.time")
            if [ -z "$b" ] || [ "$(echo "$t $b" | awk '{ print ($2 < $4) }')" = 1 ]; then b=$t; fi
        done
        echo "$b"
    }
    P10="planet --level 10 --terraces 32 $T --no-sync --quiet"
    for mode in plain compress optimize; do
        case $mode in
        plain) X="" ;;
        compress) X="--compress" ;;
        optimize) X="--compress --optimize" ;;
        esac
        f=$(cbest "f$mode" "$S" $P10 $X -o cz.glb)
        fb=$(bytes cz.glb)
        w=$(cbest "w$mode" "$S" $P10 $X --chunk-level 4 -o cz)
        echo "bench=compress level=10 mode=$mode file_s=${f% *} file_cpu_s=${f#* }" \
            "file_bytes=$fb tiles=5120 tiles_s=${w% *} tiles_cpu_s=${w#* }" \
            "tiles_bytes=$(bytes cz/tiles)"
    done
    rm -rf cz cz.glb
fi

# ---------------------------------------------------------------- level 13
if [ $big = 1 ] && want level13; then
    timed l13 "$S" planet --level 13 --chunk-level 5 --terraces 32 $T --stats -o l13
    echo "bench=level13 chunk_level=5 format=glb seconds=$(secs l13) peak_rss=$(rss l13)" \
        "tiles=$(stat chunks.made l13.err) triangles=$(stat triangles l13.err)" \
        "bytes=$(bytes l13) range_s=$(stat time.range l13.err)" \
        "lattice_s=$(stat seconds.lattice l13.err) noise_s=$(stat seconds.noise l13.err)" \
        "slice_s=$(stat seconds.slice l13.err) write_s=$(stat seconds.write l13.err)"
    rm -rf l13
fi
