#!/bin/sh
# Worlds from the command line: the same bytes for any threads, ISA,
# shards and resume after SIGKILL; tilesets; bad input.  Run by
# `make check` with STRATA (the program) set.  POSIX sh.
. "$(dirname "$0")/lib.sh"
unset STRATA_SIMD OMP_NUM_THREADS

test_dir worlds
no_temps() { # DESC DIR
    n=$(find "$2" -name '*.tmp*' | wc -l)
    if [ "$n" -eq 0 ]; then ok; else bad "$1: $n temporary files left"; fi
}


P="planet --level 7 --chunk-level 3 --terraces 20 --quiet"

# ------------------------------------------------------------ the same bytes
"$STRATA" $P -o ref || bad "reference planet world"
for f in world.json tileset.json tiles/3/0.glb tiles/3/1279.glb; do
    [ -s "ref/$f" ] && ok || bad "ref/$f missing"
done
[ "$(find ref/tiles -name '*.glb' | wc -l)" -eq 1280 ] && ok || bad "1280 tiles expected"
OMP_NUM_THREADS=1 "$STRATA" $P -o t1 && same "1 thread" ref t1
STRATA_SIMD=scalar "$STRATA" $P -o scalar && same "scalar kernels" ref scalar
"$STRATA" $P --threads 3 -o t3 && same "3 threads" ref t3
# shards, then the tileset
for k in 1 2 3; do "$STRATA" $P --shard $k/3 -o sh || bad "shard $k/3"; done
[ -f sh/tileset.json ] && bad "a shard wrote the tileset" || ok
"$STRATA" tileset sh --quiet && same "3 shards and strata tileset" ref sh
# one chunk at a time, in reverse (80 chunks)
"$STRATA" planet --level 5 --chunk-level 1 --quiet -o small || bad "small world"
mkdir one
i=79
while [ $i -ge 0 ]; do
    "$STRATA" planet --level 5 --chunk-level 1 --quiet --chunk $i -o one || { bad "chunk $i"; break; }
    i=$((i - 1))
done
"$STRATA" tileset one --quiet && same "chunk by chunk" small one

# ------------------------------------------------------------ resume
"$STRATA" planet --level 9 --chunk-level 4 --quiet -o full
"$STRATA" planet --level 9 --chunk-level 4 --quiet -o killed &
pid=$!
sleep 1
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
n=$(find killed/tiles -name '*.glb' 2>/dev/null | wc -l)
"$STRATA" planet --level 9 --chunk-level 4 --resume -o killed 2>err ||
    bad "resume after SIGKILL: $(cat err)"
same "resumed after SIGKILL ($n tiles survived)" full killed
no_temps "resumed world" killed
run planet --level 9 --chunk-level 4 --resume -o killed
grep -q "(0 made, 5120 already there)" err && ok || bad "a second resume made tiles: $(cat err)"

# poke FILE OFFSET: the byte at OFFSET changed (a digit to the next
# digit, any other byte to its complement), the size kept
poke() {
    b=$(dd if="$1" bs=1 skip="$2" count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
    if [ "$b" -ge 48 ] && [ "$b" -le 57 ]; then b=$((48 + (b - 47) % 10)); else b=$((255 - b)); fi
    printf "\\$(printf %o "$b")" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
# resumed IN: the run's summary says IN ("(1 made, 1279 already there)")
resumed() { [ "$rc" -eq 0 ] && grep -qF "$1" err; }

# a tile cut short: strata tileset names it, --resume makes it again
tile=ref/tiles/3/17.glb
head -c 100 "$tile" >cut && mv cut "$tile"
fails 1 "tiles/3/17.glb" "strata tileset with a tile cut short" tileset ref
run ${P% --quiet} --resume -o ref
check "resume makes a tile cut short again: $(cat err)" 'resumed "(1 made, 1279 already there)"'
same "the tile cut short, made again" t1 ref
# bytes changed, the size kept: in the binary chunk, in the record's box
tile=ref/tiles/3/40.glb
poke "$tile" $(($(wc -c <"$tile") - 100))
run tileset ref
check "strata tileset without --verify checks sizes only" '[ "$rc" -eq 0 ]'
fails 1 "tiles/3/40.glb" "strata tileset --verify: a byte of the binary chunk changed" \
    tileset ref --verify
run ${P% --quiet} --resume -o ref
check "resume makes a tile with a byte changed again: $(cat err)" \
    'resumed "(1 made, 1279 already there)"'
same "the tile with a byte changed, made again" t1 ref
box=$(grep -abo '"box":\[-*[0-9]' "$tile" | cut -d: -f1)
poke "$tile" $((box + 8))
fails 1 "tiles/3/40.glb" "strata tileset --verify: a digit of the record changed" \
    tileset ref --verify
run ${P% --quiet} --resume -o ref
same "the tile with a digit changed, made again" t1 ref
# a PLY tile cut just after its header (rsync --partial)
"$STRATA" planet --level 5 --chunk-level 1 --tile-format ply --quiet -o plyref
cp -r plyref plyw
tile=plyw/tiles/1/5.ply
end=$(grep -abo 'end_header' "$tile" | cut -d: -f1)
head -c $((end + 11)) "$tile" >cut && mv cut "$tile"
fails 1 "tiles/1/5.ply" "strata tileset: a PLY tile cut after its header" tileset plyw
run planet --level 5 --chunk-level 1 --tile-format ply --resume -o plyw
check "resume makes the PLY tile again: $(cat err)" 'resumed "(1 made, 79 already there)"'
same "the PLY tile cut after its header, made again" plyref plyw
fails 1 "no tileset.json written (80 of 80 tiles whole, checksums verified)" \
    "strata tileset --verify of a whole world of PLY tiles" tileset plyw --verify --quiet

# a tile of another chunk: refused on resume, named
tile=ref/tiles/3/17.glb
cp ref/tiles/3/18.glb "$tile"
fails 1 "another world or chunk" "foreign tile on resume" $P --resume -o ref
fails 1 "tiles/3/17.glb" "strata tileset with a foreign tile" tileset ref
rm "$tile"
fails 1 "1 of 1280 tiles missing" "strata tileset with a tile missing" tileset ref
run tileset ref --partial
[ "$rc" -eq 0 ] && grep -q "1279 of 1280" err && ok || bad "tileset --partial: $(cat err)"
"$STRATA" $P --resume -o ref && same "repaired by resume" t1 ref

# ------------------------------------------------------------ one run at a time
"$STRATA" planet --level 9 --chunk-level 4 --quiet -o busy &
pid=$!
i=0
while [ $i -lt 400 ] && [ ! -d busy/tiles ]; do
    sleep 0.05
    i=$((i + 1))
done
kill -STOP $pid
fails 1 "in use by another strata run (pid $pid: " "the same world again into a busy directory" \
    planet --level 9 --chunk-level 4 --quiet -o busy
check "the message names the other run's command" 'grep -qF "strata planet --level 9 --chunk-level 4 --quiet -o busy)" err'
fails 1 "another world" "another world into a busy directory" \
    planet --level 9 --chunk-level 4 --terraces 7 --quiet -o busy
fails 1 "(pid $pid: " "a shard into a directory a whole run holds" \
    planet --level 9 --chunk-level 4 --shard 1/2 --quiet -o busy
fails 1 "(pid $pid: " "strata tileset of a directory a run holds" tileset busy
kill -CONT $pid
wait $pid
check "the first run, stopped and continued, ends well" '[ $? -eq 0 ]'
same "the first run's world is whole" full busy
# shards of one world share a directory
"$STRATA" planet --level 9 --chunk-level 4 --shard 1/2 --quiet -o shared &
pid=$!
"$STRATA" planet --level 9 --chunk-level 4 --shard 2/2 --quiet -o shared 2>err
r2=$?
wait $pid
r1=$?
check "two shards at once: both made ($r1 $r2: $(cat err))" '[ $r1 -eq 0 ] && [ $r2 -eq 0 ]'
"$STRATA" tileset shared --quiet && same "two shards at once" full shared
# two worlds started together: one is made, the other refused
"$STRATA" planet --level 8 --chunk-level 3 --quiet -o race 2>race1.err &
p1=$!
"$STRATA" planet --level 8 --chunk-level 3 --terraces 9 --quiet -o race 2>race2.err &
p2=$!
wait $p1
r1=$?
wait $p2
r2=$?
check "two worlds at once: one made, one refused ($r1 $r2)" \
    '[ $((r1 + r2)) -eq 1 ] && [ $((r1 * r2)) -eq 0 ]'
"$STRATA" tileset race --verify --quiet 2>err && ok || bad "two worlds at once: a mixture: $(cat err)"

# ------------------------------------------------------------ terrains
# pgm W H FILE: a binary PGM of heights ((7x + 3y) / 5 mod 9) * 20, all on
# the planes 20, 40, ... (heights exactly on planes, also on tile borders)
pgm() {
    printf 'P5\n%d %d\n255\n' "$1" "$2" >"$3"
    y=0
    while [ $y -lt "$2" ]; do
        x=0
        while [ $x -lt "$1" ]; do
            # shellcheck disable=SC2059
            printf "\\$(printf '%03o' $((((x * 7 + y * 3) / 5) % 9 * 20)))" >>"$3"
            x=$((x + 1))
        done
        y=$((y + 1))
    done
}
pgm 9 7 hm.pgm
T="terrain --heightmap hm.pgm --levels 20,40,60,80,100,120 --quiet"
"$STRATA" $T --tile-cells 3 -o tw && ok || bad "terrain world"
[ "$(find tw/tiles -name "*.glb" | wc -l)" -eq 6 ] && ok || bad "6 tiles expected (8 x 6 cells)"
"$STRATA" $T --tile-cells 3 --tile-format ply -o twp && ok || bad "terrain world in PLY"
OMP_NUM_THREADS=1 "$STRATA" $T --tile-cells 3 -o tw1 && same "terrain, 1 thread" tw tw1
pgm 3 3 tpl.pgm
"$STRATA" terrain --template tpl.pgm --patch-cells 16 --tile-cells 8 --quiet -o tpl &&
    ok || bad "template world"
[ "$(find tpl/tiles -name '*.glb' | wc -l)" -eq 16 ] && ok || bad "16 template tiles expected"

# The union of a world's PLY tiles is the in-memory file's triangles
# (positions by bits, terrace, wall), with the default planes and height
# scale: a heightmap, a template with its default noise, a planet.  GLB
# tiles store positions relative to their node's translation: composed in
# double and rounded to float they are the same bits (wall flags, which
# a GLB does not keep apart from roofs, are not compared then).
cat >union.py <<'PY'
import json, struct, sys
def glb_tris(path):
    d = open(path, "rb").read()
    jl = struct.unpack_from("<I", d, 12)[0]
    doc = json.loads(d[20:20 + jl])
    b = d[28 + jl:]
    node = doc["nodes"][0]
    t = node.get("translation", [0.0, 0.0, 0.0])
    acc = doc["accessors"]
    def array(i, fmt, comps):
        a = acc[i]
        v = doc["bufferViews"][a["bufferView"]]
        return struct.unpack_from("<%d%s" % (comps * a["count"], fmt), b,
                                  v.get("byteOffset", 0) + a.get("byteOffset", 0))
    out = []
    for p in doc["meshes"][node["mesh"]]["primitives"]:
        xyz = array(p["attributes"]["POSITION"], "f", 3)
        # composed in double (Python floats), rounded to float32 bits
        bits = lambda i: struct.unpack("<3I", struct.pack("<3f", *(t[k] + xyz[3 * i + k] for k in range(3))))
        ix = array(p["indices"], "H" if acc[p["indices"]]["componentType"] == 5123 else "I", 1)
        name = doc["materials"][p["material"]]["name"]
        terrace = -2 if name == "water" else int(name.split("_")[1])
        for f in range(0, len(ix), 3):
            k = [bits(ix[f]), bits(ix[f + 1]), bits(ix[f + 2])]
            r = k.index(min(k))
            out.append((tuple(k[r:] + k[:r]), terrace))
    return out
def tris(path):
    if path.endswith(".glb"):
        return glb_tris(path)
    d = open(path, "rb").read()
    end = d.index(b"end_header\n") + 11
    head = d[:end].decode()
    nv = int(head.split("element vertex ")[1].split()[0])
    nf = int(head.split("element face ")[1].split()[0])
    v = struct.unpack_from("<%dI" % (3 * nv), d, end)
    out, o = [], end + 12 * nv
    for _ in range(nf):
        a, b, c, t, w = struct.unpack_from("<3IiB", d, o + 1)
        o += 18
        k = [v[3 * a:3 * a + 3], v[3 * b:3 * b + 3], v[3 * c:3 * c + 3]]
        r = k.index(min(k))  # the same rotation of the winding
        out.append((tuple(k[r:] + k[:r]), t, w))
    return out
cut = sys.argv.index("--")
one = [x for f in sys.argv[1:cut] for x in tris(f)]
tiles = [x for f in sys.argv[cut + 1:] for x in tris(f)]
if any(f.endswith(".glb") for f in sys.argv[1:]):  # no wall flags
    one, tiles = [x[:2] for x in one], [x[:2] for x in tiles]
one, tiles = sorted(one), sorted(tiles)
sys.exit(0 if one == tiles and one else 1)
PY
union() { # DESC FILE DIR [EXT]
    if python3 union.py "$2" -- $(find "$3/tiles" -name "*.${4:-ply}" | sort); then ok; else bad "$1: the tiles' union differs from $2"; fi
}
if command -v python3 >/dev/null 2>&1; then
    "$STRATA" terrain --heightmap hm.pgm --quiet -o hm-mem.ply &&
        "$STRATA" terrain --heightmap hm.pgm --tile-cells 3 --tile-format ply --quiet -o hm-world &&
        union "heightmap, default height scale and planes" hm-mem.ply hm-world
    "$STRATA" terrain --template tpl.pgm --patch-cells 16 --quiet -o tpl-mem.ply &&
        "$STRATA" terrain --template tpl.pgm --patch-cells 16 --tile-cells 7 --tile-format ply --quiet -o tpl-world &&
        union "template with its noise" tpl-mem.ply tpl-world
    "$STRATA" planet --level 5 --quiet -o p-mem.ply &&
        "$STRATA" planet --level 5 --chunk-level 2 --tile-format ply --quiet -o p-world &&
        union "planet" p-mem.ply p-world
    "$STRATA" planet --level 5 --chunk-level 2 --quiet -o p-glb &&
        union "planet, GLB tiles at their translations" p-mem.ply p-glb glb
    "$STRATA" terrain --heightmap hm.pgm --tile-cells 3 --quiet -o hm-glb &&
        union "heightmap, GLB tiles at their translations" hm-mem.ply hm-glb glb
    # edit logs: every brush, the world's union is the whole mesh's
    printf 'strata-edits 1\nraise 0.36 0.48 0.8 0.3 0.05\nsmooth 0.36 0.48 0.8 0.2 0.8\nterrace -0.6 0 0.8 0.3 1\nnoise 0 1 0 0.2 0.02\nlower 0 -1 0 0.25 0.04\n' >p.edits
    "$STRATA" planet --level 5 --edits p.edits --quiet -o pe-mem.ply &&
        "$STRATA" planet --level 5 --chunk-level 2 --tile-format ply --edits p.edits --quiet -o pe-world &&
        union "planet with edits" pe-mem.ply pe-world
    printf 'strata-edits 1\nraise 1 0 2 3 0.5\nsmooth 0 0 0 4 1\nterrace -3 0 -3 3 1\nnoise 3 0 -3 3 0.3\nlower 1 0 2 3 0.5\n' >t.edits
    "$STRATA" terrain --cells 40 --size 16 --edits t.edits --quiet -o te-mem.ply &&
        "$STRATA" terrain --cells 40 --size 16 --tile-cells 7 --tile-format ply --edits t.edits --quiet -o te-world &&
        union "terrain with edits" te-mem.ply te-world
    cmp -s pe-mem.ply p-mem.ply && bad "edits changed nothing" || ok
    E="planet --radius 6378137 --level 5 --quiet"
    "$STRATA" $E -o e-mem.ply && "$STRATA" $E --chunk-level 1 -o e-glb &&
        union "a planet of Earth's radius, GLB tiles at their translations" e-mem.ply e-glb glb
    # Earth's radius, roofs on their planes: every roof vertex composed in
    # double against the double-precision sphere R + L[k] (the slicer
    # places points in float32 about the planet's centre: 1.098 m at
    # worst here, float32's steps at 6.4e6 m being 0.5 m), and every
    # stored coordinate within twice its tile's box (the translation
    # carries the rest)
    EL="-10000,-5000,0,5000,10000"
    if "$STRATA" planet --radius 6378137 --amplitude 20000 --level 6 --chunk-level 1 \
        --walls separate --levels $EL --quiet -o earth &&
        python3 - earth 6378137 $EL >prec.out <<'PY'
import json, math, struct, sys, glob
R = float(sys.argv[2]); L = [float(v) for v in sys.argv[3].split(",")]
worst, far, n = 0.0, 0.0, 0
for path in glob.glob(sys.argv[1] + "/tiles/*/*.glb"):
    d = open(path, "rb").read()
    jl = struct.unpack_from("<I", d, 12)[0]
    doc = json.loads(d[20:20 + jl]); b = d[28 + jl:]
    t = doc["nodes"][0].get("translation", [0.0, 0.0, 0.0])
    box = doc["extras"]["strata"]["box"]
    size = 2 * math.sqrt(sum(v * v for v in box[3:]))
    acc = doc["accessors"]
    def array(i, fmt, comps):
        a = acc[i]; v = doc["bufferViews"][a["bufferView"]]
        return struct.unpack_from("<%d%s" % (comps * a["count"], fmt), b,
                                  v.get("byteOffset", 0) + a.get("byteOffset", 0))
    far = max(far, max(abs(v) for v in acc[0]["min"] + acc[0]["max"]) / size)
    for p in doc["meshes"][0]["primitives"]:
        name = doc["materials"][p["material"]]["name"]
        if not name.startswith("terrace_"):
            continue
        k = int(name.split("_")[1])
        xyz = array(p["attributes"]["POSITION"], "f", 3)
        wide = acc[p["indices"]]["componentType"] == 5125
        for i in set(array(p["indices"], "I" if wide else "H", 1)):
            q = [t[c] + xyz[3 * i + c] for c in range(3)]
            worst = max(worst, abs(math.sqrt(sum(v * v for v in q)) - (R + L[k])))
            n += 1
print("roofs=%d worst=%.4f far=%.3f" % (n, worst, far))
sys.exit(0 if n > 100000 and worst < 1.1 and far <= 2 else 1)
PY
    then ok; else bad "Earth's radius: roofs off their spheres or far from their tiles"; fi
    echo "  Earth's radius, tiles at their translations: $(cat prec.out)"

    # A heightmap wider than one held in memory may be (32768): the world
    # reads it from its file tile by tile; two tilings give one surface.
    python3 -c '
import sys
w, h = 33001, 3
import struct, zlib
rows = [bytes(((x * 7 + y * 3) // 5) % 9 * 20 for x in range(w)) for y in range(h)]
open("wide.pgm", "wb").write(b"P5\n%d %d\n255\n" % (w, h) + b"".join(rows))
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
open("wide.png", "wb").write(b"\x89PNG\r\n\x1a\n" +
    chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) +
    chunk(b"IDAT", zlib.compress(b"".join(b"\0" + r for r in rows))) + chunk(b"IEND", b""))'
    W="terrain --heightmap wide.pgm --levels 20,40,60,80,100,120 --height-scale 1 --tile-format ply --quiet"
    fails 1 "--tile-cells N" "a heightmap too wide for memory, made whole" terrain --heightmap wide.pgm -o wide.ply
    [ ! -e wide.ply ] && ok || bad "nothing written for a heightmap too wide"
    # the same samples as a PNG: decoded once to a temporary file, the
    # same tiles byte for byte
    if "$STRATA" info | grep -q '^png: yes (heightmaps of any size)'; then
        "$STRATA" $W --tile-cells 5000 -o wide-p0 && "$STRATA" ${W%.pgm*}.png${W#*.pgm} --tile-cells 5000 -o wide-p1 &&
            same "a PNG too wide for memory, as the PGM" wide-p0 wide-p1
    fi
    if "$STRATA" $W --tile-cells 5000 -o wide-a && "$STRATA" $W --tile-cells 777 -o wide-b &&
        python3 union.py $(find wide-a/tiles -name '*.ply' | sort) -- $(find wide-b/tiles -name '*.ply' | sort); then
        ok
    else
        bad "a heightmap wider than memory's limit: two tilings differ"
    fi
    run terrain --heightmap wide.pgm --tile-cells 5000 --dry-run -o wide-c
    [ "$rc" -eq 0 ] && grep -q '^chunks: 7 of 7$' out && ok || bad "dry run of a wide heightmap: $(cat out err)"
fi

# ------------------------------------------------------------ out of memory
# A planet or grid too big to make whole says what it needs and points to
# worlds (not under a sanitizer, whose shadow memory needs the address
# space ulimit -v takes away).
if [ -z "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}" ]; then
    (ulimit -v 400000 && exec "$STRATA" planet --level 10 -o big.ply) >out 2>err
    rc=$?
    [ "$rc" -eq 1 ] && grep -q 'out of memory: a level-10 planet made whole needs about 1.39 GiB, and a job may take at most 0.343 GiB (90% of the address-space limit, ulimit -v, 0.381 GiB).*--chunk-level 2 -o DIR' err &&
        ok || bad "planet out of memory: exit $rc: $(cat err)"
    (ulimit -v 400000 && exec "$STRATA" terrain --cells 4000 -o big.ply) >out 2>err
    rc=$?
    [ "$rc" -eq 1 ] && grep -q 'out of memory: a 4000 x 4000 grid made whole.*--tile-cells 256 -o DIR' err &&
        ok || bad "grid out of memory: exit $rc: $(cat err)"
    # What grows with the options is counted up front: 65535 terraces on
    # a 10 x 10 grid (every triangle crossed by thousands of planes), a
    # million props per unit of area; a job that fits still runs.
    (ulimit -v 400000 && exec "$STRATA" terrain --cells 10 --terraces 65535 -o big.ply) >out 2>err
    rc=$?
    [ "$rc" -eq 1 ] && grep -q '^strata: --terraces 65535: the slice may make up to 2.5e+07 triangles, and the job may need about 1.68 GiB, over the 0.343 GiB it may take (90% of the address-space limit, ulimit -v, 0.381 GiB); give fewer terraces' err &&
        [ ! -e big.ply ] && ok || bad "65535 terraces under ulimit -v: exit $rc: $(cat err)"
    (ulimit -v 400000 && exec "$STRATA" terrain --cells 10 --props 1e6 --props-csv big.csv -o big.ply) >out 2>err
    rc=$?
    [ "$rc" -eq 1 ] && grep -q '^strata: --props 1e6: up to 1e+08 props, and the job may need about 7.45 GiB, over the 0.343 GiB it may take (90% of the address-space limit, ulimit -v, 0.381 GiB); give a lower DENSITY$' err &&
        [ ! -e big.ply ] && [ ! -e big.csv ] && ok || bad "--props 1e6 under ulimit -v: exit $rc: $(cat err)"
    (ulimit -v 400000 && exec "$STRATA" terrain --cells 10 --terraces 2000 --props 100 --props-csv big.csv -o big.ply --quiet) >out 2>err
    rc=$?
    [ "$rc" -eq 0 ] && [ -s big.ply ] && [ -s big.csv ] && ok ||
        bad "2000 terraces and --props 100 under ulimit -v: exit $rc: $(cat err)"
    rm -f big.ply big.csv
fi
# Without a limit, against the machine's memory (when it has less than
# 80 GiB): a level-13 planet (89 GiB) and a tiny PNG of 16384 x 16384
# zeros (36 GiB made whole) are refused at once, not killed by the kernel.
mem_kib=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo 2>/dev/null)
if [ -n "$mem_kib" ] && [ "$mem_kib" -lt 83886080 ]; then
    run planet --level 13 -o big.ply
    [ "$rc" -eq 1 ] && grep -q "^strata: out of memory: a level-13 planet made whole needs about 88.8 GiB.*of this machine's memory.*--chunk-level 5 -o DIR" err &&
        [ ! -e big.ply ] && ok || bad "level 13 made whole: exit $rc: $(cat err)"
    if command -v python3 >/dev/null 2>&1 && "$STRATA" info | grep -q '^png: yes'; then
        python3 -c '
import struct, zlib
w = h = 16384
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
open("zeros.png", "wb").write(b"\x89PNG\r\n\x1a\n" +
    chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)) +
    chunk(b"IDAT", zlib.compress((b"\0" + bytes(w)) * h, 9)) + chunk(b"IEND", b""))'
        run terrain --heightmap zeros.png -o big.ply
        [ "$rc" -eq 1 ] && grep -q "^strata: out of memory: a 16383 x 16383 cell terrain from 'zeros.png' made whole needs about 35.5 GiB.*--tile-cells 256 -o DIR" err &&
            [ ! -e big.ply ] && ok || bad "a PNG of 16384 x 16384 zeros made whole: exit $rc: $(cat err)"
        rm -f zeros.png
    fi
    [ ! -e big.ply ] && ok || bad "nothing written when out of memory"
fi

# ------------------------------------------------------------ dry run
run planet --level 8 --chunk-level 3 --dry-run -o dry
[ "$rc" -eq 0 ] && grep -q '^chunks: 1280 of 1280$' out && grep -q '^bytes: about' out &&
    grep -q '^memory: about' out && [ ! -e dry ] && ok || bad "dry run: $(cat out err)"
run planet --level 8 --chunk-level 3 --dry-run --shard 2/5 -o dry
grep -q '^chunks: 256 of 1280$' out && ok || bad "dry run of a shard: $(cat out)"
# A dry run makes one chunk and allocates nothing per chunk: 2^26 tiles
# (once a 1 GiB ordering of them, made only to count them) fit in 300 MB
# of address space.
(ulimit -v 300000 && exec "$STRATA" terrain --cells 65535 --tile-cells 8 --dry-run -o dry) \
    >out 2>err
grep -q '^chunks: 67108864 of 67108864$' out && [ ! -e dry ] && ok ||
    bad "dry run of 2^26 tiles under ulimit -v 300000: $(cat out err)"

# ------------------------------------------------------------ previews
# A world's --preview is drawn chunk by chunk as they are made: a terrain's
# top view (whose frame, the grid's box, is the surface's own) is the
# in-memory terrain's picture byte for byte, for any thread count.
if "$STRATA" info | grep -q '^png: yes'; then
    T="terrain --cells 96 --terraces 8 --view top --preview-size 200 --quiet"
    run $T --tile-cells 32 --threads 3 --preview wtop3.png -o wtop3
    if [ "$rc" -eq 0 ]; then ok; else bad "terrain world --preview: exit $rc: $(cat err)"; fi
    run $T --tile-cells 32 --threads 1 --preview wtop1.png -o wtop1
    run $T --preview mtop.png -o mtop.ply
    check "world preview independent of threads" 'cmp -s wtop1.png wtop3.png'
    check "world preview (top) == the in-memory terrain's" 'cmp -s wtop1.png mtop.png'
    run planet --level 5 --chunk-level 2 --preview wp.png --preview-size 64 --stats -o wp
    check "planet world --preview: a 64 x 64 PNG and time.preview" \
        '[ "$rc" -eq 0 ] && [ "$(od -An -tu1 -j16 -N8 wp.png | tr -s " " | sed "s/^ //;s/ \$//")" = "0 0 0 64 0 0 0 64" ] && grep -q "^time\.preview=" err'
    mkdir dpng.png
    fails 1 "dpng.png" "world preview into a directory" planet --level 5 --chunk-level 2 --preview dpng.png -o wq
    check "nothing made when the preview cannot be written" '[ ! -e wq ]'
fi

# ------------------------------------------------------------ external tilesets
# A world of more than 4096 tiles puts subtrees in tilesets/K/ID.json; a
# content URI is relative to the tileset file that holds it (3D Tiles), so
# every URI of every tileset file must name a file from that file's
# directory.
run terrain --cells 66 --tile-cells 1 --terraces 4 --quiet -o ext
missing=0 uris=0
for f in ext/tileset.json ext/tilesets/*/*.json; do
    [ -f "$f" ] || continue
    d=$(dirname "$f")
    for u in $(grep -o '"uri":"[^"]*"' "$f" | sed 's/^"uri":"//; s/"$//'); do
        uris=$((uris + 1))
        [ -f "$d/$u" ] || missing=$((missing + 1))
    done
done
check "external tilesets: some (4356 tiles)" '[ -n "$(ls ext/tilesets 2>/dev/null)" ]'
check "every content URI resolves from its tileset's directory ($uris URIs, $missing missing)" \
    '[ "$uris" -gt 4356 ] && [ "$missing" -eq 0 ]'

# ------------------------------------------------------------ simplified roofs
# Tiles with fewer roof triangles (borders locked, so the tiles still weld
# into one closed surface: check_world compares every chunk with the
# library call), the same bytes for any thread count, and a world of their
# own: a plain directory is not resumed into a simplified one.
SR="planet --level 6 --chunk-level 2 --terraces 12 --quiet --tile-format ply"
run $SR -o sr0 && run $SR --simplify-roofs --threads 1 -o sr1 && run $SR --simplify-roofs --threads 3 -o sr3
same "--simplify-roofs: 1 and 3 threads" sr1 sr3
[ "$(du -sb sr1/tiles | cut -f1)" -lt "$(du -sb sr0/tiles | cut -f1)" ] && ok ||
    bad "--simplify-roofs: tiles not smaller"
fails 1 "another world" "--resume of a plain world with --simplify-roofs" $SR --simplify-roofs --resume -o sr0

# ------------------------------------------------------------ sea, water, props
# A terrain world with the sea level among its planes, the water over each
# tile's square and props on the roofs (check_world compares every tile
# with its plain twin and the whole mesh): the same bytes for any thread
# count, shard and ISA; the water and the instanced props in every tile.
SW="terrain --cells 96 --tile-cells 32 --terraces 8 --sea-level 0 --water --props 4 --quiet"
run $SW --threads 1 -o sw1 && run $SW --threads 3 -o sw3
same "--sea-level --water --props: 1 and 3 threads" sw1 sw3
for k in 1 2; do "$STRATA" $SW --shard $k/2 -o swsh || bad "props shard $k/2"; done
"$STRATA" tileset swsh --quiet && same "--water --props: 2 shards" sw1 swsh
STRATA_SIMD=scalar "$STRATA" $SW -o swsc && same "--water --props: scalar kernels" sw1 swsc
n=0 w=0
for t in sw1/tiles/*/*.glb; do
    n=$((n + 1))
    grep -q EXT_mesh_gpu_instancing "$t" && grep -q '"name":"water"' "$t" && w=$((w + 1))
done
check "--water --props: water and instanced props in all $n tiles" '[ "$n" -eq 9 ] && [ "$w" -eq 9 ]'
check "--water --props: recorded in world.json" \
    'grep -q "\"water\":0" sw1/world.json && grep -q "\"props\":{\"density\":4" sw1/world.json'
fails 1 "another world" "--resume of a world without props into one with them" \
    terrain --cells 96 --tile-cells 32 --terraces 8 --sea-level 0 --water --quiet --resume -o sw1
find_validator
if [ -n "$module" ]; then
    node "$SRCDIR/tests/gltf-validate.mjs" "$module" sw1/tiles/*/*.glb >val.out 2>&1 &&
        ok || bad "--water --props tile: glTF-Validator: $(cat val.out)"
fi
fails 2 "not in --tile-format ply" "props in ply tiles" $SW --tile-format ply -o x
fails 2 "--props-csv" "props CSV of a world" $SW --props-csv p.csv -o x
# a planet world's water: each tile its part of the whole mesh's sphere
PW="planet --level 6 --chunk-level 2 --terraces 10 --sea-level 0.01 --water --props 2000 --quiet"
run $PW --threads 1 -o pw1 && run $PW --threads 3 -o pw3
same "planet world --water --props: 1 and 3 threads" pw1 pw3
n=0 w=0
for t in pw1/tiles/*/*.glb; do
    n=$((n + 1))
    grep -q EXT_mesh_gpu_instancing "$t" && grep -q '"name":"water"' "$t" && w=$((w + 1))
done
check "planet world: water and props in all $n tiles" '[ "$n" -eq 320 ] && [ "$w" -eq 320 ]'
# with --lod the coarser tiles have water too, their own parts of a
# sphere no finer than their ground; the same bytes with 1 or 3 threads
PL="planet --level 6 --chunk-level 2 --terraces 10 --sea-level 0.01 --water --lod --quiet"
run $PL --threads 1 -o pl1 && run $PL --threads 3 -o pl3
same "planet world --water --lod: 1 and 3 threads" pl1 pl3
n=0 w=0
for t in pl1/tiles/*/*.glb; do
    n=$((n + 1))
    grep -q '"name":"water"' "$t" && w=$((w + 1))
done
check "planet world --lod: water in all $n tiles (320 + 80 + 20)" '[ "$n" -eq 420 ] && [ "$w" -eq 420 ]'
succeeds "planet world --water --lod: tileset --verify" tileset --verify pl1

# ------------------------------------------------------------ shorelines
# --shoreline W: each tile's piece of the ribbons along the coasts
# (check_world compares their union with the whole mesh's and U at every
# border crossing): the same bytes for any thread count, shard and ISA,
# and resumed after SIGKILL; a shoreline primitive in the tiles with a
# coast, glTF-Validator clean; with --lod every depth has its own.
SH="terrain --cells 96 --tile-cells 32 --terraces 8 --sea-level 0 --water --shoreline 0.5 --quiet"
run $SH --threads 1 -o sh1 && run $SH --threads 3 -o sh3
same "--shoreline: 1 and 3 threads" sh1 sh3
for k in 1 2; do "$STRATA" $SH --shard $k/2 -o shsh || bad "shoreline shard $k/2"; done
"$STRATA" tileset shsh --quiet && same "--shoreline: 2 shards" sh1 shsh
STRATA_SIMD=scalar "$STRATA" $SH -o shsc && same "--shoreline: scalar kernels" sh1 shsc
n=$(grep -l '"name":"shoreline"' sh1/tiles/*/*.glb | wc -l)
check "--shoreline: ribbons in $n of 9 terrain tiles" '[ "$n" -ge 5 ]'
check "--shoreline: recorded in world.json" 'grep -q "\"shoreline\":0.5" sh1/world.json'
fails 1 "another world" "--resume of a world without a shoreline into one with it" \
    terrain --cells 96 --tile-cells 32 --terraces 8 --sea-level 0 --water --quiet --resume -o sh1
if [ -n "$module" ]; then
    node "$SRCDIR/tests/gltf-validate.mjs" "$module" sh1/tiles/*/*.glb >val.out 2>&1 &&
        ok || bad "--shoreline tile: glTF-Validator: $(cat val.out)"
fi
PS="planet --level 7 --chunk-level 3 --terraces 10 --sea-level 0.01 --water --shoreline 0.01 --quiet"
run $PS --threads 1 -o ps1 && run $PS --threads 2 -o ps2
same "planet world --shoreline: 1 and 2 threads" ps1 ps2
STRATA_SIMD=scalar "$STRATA" $PS -o pssc && same "planet world --shoreline: scalar kernels" ps1 pssc
for k in 1 2 3; do "$STRATA" $PS --shard $k/3 -o pssh || bad "planet shoreline shard $k/3"; done
"$STRATA" tileset pssh --quiet && same "planet world --shoreline: 3 shards" ps1 pssh
n=$(grep -l '"name":"shoreline"' ps1/tiles/*/*.glb | wc -l)
check "planet world --shoreline: ribbons in $n of 1280 tiles" '[ "$n" -ge 200 ]'
PS="planet --level 8 --chunk-level 4 --terraces 10 --sea-level 0.01 --water --shoreline 0.01 --quiet"
"$STRATA" $PS -o psfull || bad "planet world --shoreline, level 8"
"$STRATA" $PS -o pskill &
pid=$!
sleep 1
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
n=$(find pskill/tiles -name '*.glb' 2>/dev/null | wc -l)
"$STRATA" $PS --resume -o pskill 2>err || bad "--shoreline: resume after SIGKILL: $(cat err)"
same "planet world --shoreline: resumed after SIGKILL ($n tiles survived)" psfull pskill
PSL="planet --level 6 --chunk-level 2 --terraces 10 --sea-level 0.01 --water --shoreline 0.02 --lod --quiet"
run $PSL --threads 1 -o psl1 && run $PSL --threads 3 -o psl3
same "planet world --shoreline --lod: 1 and 3 threads" psl1 psl3
n=0 w=0
for t in psl1/tiles/*/*.glb; do
    n=$((n + 1))
    grep -q '"name":"shoreline"' "$t" && w=$((w + 1))
done
check "planet world --shoreline --lod: ribbons in $w of $n tiles, coarser ones too" \
    '[ "$n" -eq 420 ] && [ "$(grep -l "\"name\":\"shoreline\"" psl1/tiles/0/*.glb | wc -l)" -ge 1 ] && [ "$w" -ge 100 ]'
succeeds "planet world --shoreline --lod: tileset --verify" tileset --verify psl1

# ------------------------------------------------------------ loops
# --loops FILE: each leaf tile's loops beside it, joined into FILE: the
# whole mesh's loops, segment for segment (bits of the decimals), as many
# closed ones; the same bytes for any thread count, ISA, shards and
# --lod; strata tileset --loops joins the shards' tiles; a tile whose
# loops are missing is made again by --resume.
loops_same() { # DESC WHOLE JOINED: same segments and closed loops
    /usr/bin/python3 - "$2" "$3" <<'PY' >lcmp.out 2>&1 && ok || bad "$1: $(cat lcmp.out)"
import json, sys
def load(p):
    segs, closed, lines = [], 0, 0
    for f in json.load(open(p))['features']:
        g, e = f['geometry'], f['properties']['elev']
        for c in [g['coordinates']] if g['type'] == 'LineString' else g['coordinates']:
            lines += 1
            assert all(a != b for a, b in zip(c, c[1:])), '%s: a segment of no length' % p
            closed += c[0] == c[-1] and len(set(map(tuple, c))) > 1
            segs += [(e, tuple(a), tuple(b)) for a, b in zip(c, c[1:])]
    return sorted(segs), closed, lines
(sw, cw, lw), (sj, cj, lj) = load(sys.argv[1]), load(sys.argv[2])
assert len(sw) > 1000, 'only %d segments' % len(sw)
assert sw == sj, '%d segments against %d, %d differ' % (len(sw), len(sj), len(set(sw) ^ set(sj)))
assert cw == cj, '%d closed loops against %d' % (cw, cj)
assert lj <= lw, '%d lines joined, the whole mesh has %d' % (lj, lw)
PY
}
LP="planet --level 6 --chunk-level 2 --terraces 10 --quiet"
run ${LP% --chunk-level 2} --loops lwhole.geojson -o lwhole.ply
run $LP --loops lw1.geojson -o lw1
loops_same "planet world --loops: the whole mesh's loops" lwhole.geojson lw1.geojson
run $LP --loops lw3.geojson --threads 3 --lod -o lw3
same "planet world --loops: 1 and 3 threads, --lod" lw1.geojson lw3.geojson
STRATA_SIMD=scalar "$STRATA" $LP --loops lwsc.geojson -o lwsc && same "--loops: scalar kernels" lw1.geojson lwsc.geojson
run $LP --loops x.geojson --shard 1/2 -o lwsh && run $LP --loops x.geojson --shard 2/2 -o lwsh
check "--loops with --shard: tiles' loops only, no joined file" '[ ! -e x.geojson ] && [ "$(ls lwsh/tiles/2/*.geojson | wc -l)" -eq 320 ]'
"$STRATA" tileset lwsh --loops lwsh.geojson --quiet && same "--loops: strata tileset joins the shards' tiles" lw1.geojson lwsh.geojson
rm lwsh/tiles/2/7.geojson
fails 1 "cannot read tile loops 'lwsh/tiles/2/7.geojson'" "a tile's loops missing" tileset lwsh --loops j.geojson
run $LP --loops x.geojson --resume -o lwsh
check "--resume: a tile whose loops are missing made again" '[ -s lwsh/tiles/2/7.geojson ]'
"$STRATA" tileset lwsh --loops lwsh.geojson --quiet && same "--loops: joined after --resume" lw1.geojson lwsh.geojson
printf '{"features":[{"geometry":{"type":"Point"}}]}' >lwsh/tiles/2/9.geojson
fails 1 "tile loops 'lwsh/tiles/2/9.geojson': not loops strata wrote" "a tile's loops not GeoJSON lines" \
    tileset lwsh --loops j.geojson
TL="terrain --cells 96 --tile-cells 32 --terraces 8 --quiet"
run ${TL% --tile-cells 32} --loops ltwhole.geojson -o ltwhole.ply
run $TL --loops ltw.geojson -o ltw
loops_same "terrain world --loops: the whole mesh's loops" ltwhole.geojson ltw.geojson
fails 2 "a world's loops are GeoJSON" "--loops FILE.obj for a world" $TL --loops l.obj -o x
run planet --level 3 --chunk-level 1 --quiet -o lnone
fails 2 "made without --loops" "strata tileset --loops of a world without" tileset lnone --loops j.geojson
fails 2 "unknown loops format" "strata tileset --loops FILE.obj" tileset lw1 --loops j.obj

# ------------------------------------------------------------ compressed tiles
if "$STRATA" info | grep -q '^meshoptimizer: yes'; then
    run planet --level 6 --chunk-level 2 --terraces 12 --quiet --compress --threads 1 -o cz1
    run planet --level 6 --chunk-level 2 --terraces 12 --quiet --compress --threads 3 -o cz3
    same "compressed tiles independent of threads" cz1 cz3
    run planet --level 6 --chunk-level 2 --terraces 12 --quiet -o cz0
    check "compressed tiles are smaller" '[ "$(du -sb cz1/tiles | cut -f1)" -lt "$(du -sb cz0/tiles | cut -f1)" ]'
    check "compressed world: the same tileset but for the tiles' sizes" \
        '[ "$(sed "s/\"bytes\":[0-9]*//g" cz1/tileset.json | cksum)" = "$(sed "s/\"bytes\":[0-9]*//g" cz0/tileset.json | cksum)" ]'
fi

# ------------------------------------------------------------ bad input
fails 2 "--chunk-level 7" "chunk level = level" planet --level 7 --chunk-level 7 -o x
fails 2 "--shard 0/2" "shard 0" $P --shard 0/2 -o x
fails 2 "--shard 3/2" "shard 3/2" $P --shard 3/2 -o x
fails 2 "--shard 1-2" "shard 1-2" $P --shard 1-2 -o x
fails 2 "below 2^64" "shard N past 2^64" $P --shard 1/99999999999999999999999 -o x
fails 2 "below 2^64" "shard K past 2^64" $P --shard 99999999999999999999999/2 -o x
fails 2 "expected K/N" "shard with a sign" $P --shard +1/2 -o x
fails 2 "--shard" "shard without a world" planet --shard 1/2 -o x.ply
fails 2 "--resume" "resume without a world" terrain --resume -o x.ply
fails 2 "needs -o DIR" "world without -o" planet --chunk-level 2
fails 2 "--chunk 1280" "chunk out of range" $P --chunk 1280 -o x
fails 2 "--preview p.png: draws a whole world" "preview of a shard" $P --preview p.png --shard 1/2 -o x
fails 2 "not with --chunk" "preview of one chunk" $P --preview p.png --chunk 3 -o x
fails 2 "not with --resume" "preview of a resumed run" $P --preview p.png --resume -o x
fails 2 "--terraces 0" "unsliced world" planet --level 5 --chunk-level 2 --terraces 0 -o x
fails 2 "polygons" "polygon world" terrain --shape polygon --tile-cells 4 -o x
touch afile
fails 1 "afile" "a file for the directory" $P -o afile
mkdir ro && chmod 555 ro
if [ "$(id -u)" -ne 0 ]; then
    fails 1 "ro" "directory not writable" $P -o ro/w
fi
fails 1 "holds another world" "another world in the directory" planet --level 7 --chunk-level 3 --terraces 5 --quiet -o t1
fails 1 "not a world directory" "tileset of a plain directory" tileset ro
rm -f t1/world.json
printf '{"strataWorld": 1}' >t1/world.json
fails 1 "world.json" "tileset with a broken manifest" tileset t1
fails 1 "'t1/world.json' is not a world manifest" "a run into a directory with a broken manifest" \
    planet --level 7 --chunk-level 3 --terraces 5 --quiet --resume -o t1
# a manifest that cannot be read (as root a chmod 000 file still can:
# a directory and a FIFO in its place) is named, not the directory
rm -f t1/world.json
mkdir t1/world.json
fails 1 "cannot read 't1/world.json' (the world's manifest): a directory" \
    "--resume with a directory for world.json" \
    planet --level 7 --chunk-level 3 --terraces 5 --quiet --resume -o t1
fails 1 "cannot read 't1/world.json' (the world's manifest): a directory" \
    "tileset with a directory for world.json" tileset t1
rmdir t1/world.json
mkfifo t1/world.json
fails 1 "cannot read 't1/world.json' (the world's manifest): a FIFO" \
    "--resume with a FIFO for world.json" \
    planet --level 7 --chunk-level 3 --terraces 5 --quiet --resume -o t1
rm -f t1/world.json

# ------------------------------------------------------------ --place
# The root transform: columns east, north, up (orthonormal, times the
# scale) and the place's ECEF position, against the WGS84 formulas worked
# here with the reduced latitude (another route to the same point) within
# 1 mm; the boxes stay in the world's frame; `strata tileset` keeps it; a
# directory holds one placement.
if command -v python3 >/dev/null 2>&1; then
    PL="terrain --cells 32 --tile-cells 8 --terraces 4 --quiet"
    if "$STRATA" $PL --place -122.4194,37.7749,12.5 --place-scale 30 -o placed &&
        python3 - placed/tileset.json -122.4194 37.7749 12.5 30 <<'PY'
import json, math, sys
ts = json.load(open(sys.argv[1]))
lon, lat, h, s = (float(v) for v in sys.argv[2:6])
m = ts["root"]["transform"]
a, f = 6378137.0, 1 / 298.257223563
b = a * (1 - f)
l, p = math.radians(lon), math.radians(lat)
beta = math.atan2(b * math.sin(p), a * math.cos(p))  # tan beta = (1 - f) tan p
ecef = [a * math.cos(beta) * math.cos(l) + h * math.cos(p) * math.cos(l),
        a * math.cos(beta) * math.sin(l) + h * math.cos(p) * math.sin(l),
        b * math.sin(beta) + h * math.sin(p)]
err = max(abs(m[12 + k] - ecef[k]) for k in range(3))
cols = [[m[4 * c + r] / s for r in range(3)] for c in range(3)]
dot = lambda u, v: sum(x * y for x, y in zip(u, v))
ortho = max(abs(dot(cols[i], cols[j]) - (i == j)) for i in range(3) for j in range(3))
up = [math.cos(p) * math.cos(l), math.cos(p) * math.sin(l), math.sin(p)]
east = [-math.sin(l), math.cos(l), 0.0]
ok = (err < 1e-3 and ortho < 1e-12 and max(abs(x - y) for x, y in zip(cols[2], up)) < 1e-12 and
      max(abs(x - y) for x, y in zip(cols[0], east)) < 1e-12 and m[3] == m[7] == m[11] == 0 and
      m[15] == 1 and "transform" not in json.dumps(ts["root"].get("children", [])))
print("ecef error %.3g m, orthonormal within %.3g" % (err, ortho))
sys.exit(0 if ok else 1)
PY
    then ok; else bad "--place: the root transform"; fi
    cp placed/tileset.json placed.json
    "$STRATA" tileset placed --quiet && same "strata tileset keeps the placement" placed.json placed/tileset.json
    "$STRATA" $PL -o unplaced && ok || bad "the same world unplaced"
    # the same tiles and boxes; the root's transform added and the
    # tileset's own geometric error (metres, no transform over it) scaled
    check "--place: the same tiles, boxes and all, the root's transform added, the tileset's error x30" \
        'diff -r -x tileset.json -x world.json -x world.lock placed unplaced >/dev/null &&
         python3 -c "
import json, sys
p, u = (json.load(open(f + \"/tileset.json\")) for f in (\"placed\", \"unplaced\"))
t = p[\"root\"].pop(\"transform\")
sys.exit(0 if len(t) == 16 and p[\"root\"] == u[\"root\"] and
         p[\"geometricError\"] == 30 * u[\"geometricError\"] else 1)"'
    fails 1 "holds another world (other options, planes, tile format or --place)" \
        "another placement in the directory" $PL --place -122.4194,37.78,12.5 --place-scale 30 --resume -o placed
    fails 1 "--place" "no placement into a placed directory" $PL --resume -o placed
fi

finish
