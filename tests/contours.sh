#!/bin/sh
# Tests of strata contours and --loops: GeoJSON lines (closed or ending on
# the border, float32 round trips, the same bytes as the wall tops of
# 'strata terrain'), band polygons checked by shapely (valid, rings wound
# as RFC 7946 says, areas summing to the raster's rectangle without
# overlap) on smooth, integer and random integer heights, SVG layers,
# empty level lists, bad input (message, exit status, no file), and the
# same bytes for any thread count and instruction set.  Needs python3 with
# shapely (Debian: python3-shapely); skips without it.

. "$(dirname "$0")/lib.sh"
unset STRATA_SIMD

PY=
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import shapely' 2>/dev/null; then
        PY=$p
        break
    fi
done
if [ -z "$PY" ]; then
    echo "SKIP: python3 with shapely not found (Debian: python3-shapely)"
    exit 77
fi

test_dir contours
succeeds() {
    desc=$1
    shift
    run "$@"
    if [ "$rc" -eq 0 ]; then ok; else bad "$desc: exit $rc: $(cat err)"; fi
}
# fails CODE WORD DESC FILE ARGS...: exit CODE, one 'strata: ' line naming
# WORD, and FILE (the output) not made, no temporary left.
fails() {
    code=$1 word=$2 desc=$3 file=$4
    shift 4
    rm -f "$file"
    run "$@"
    if [ "$rc" -ne "$code" ]; then
        bad "$desc: exit $rc, want $code: $(cat err)"
    elif [ "$(wc -l <err)" -ne 1 ] || ! grep -q '^strata: ' err || ! grep -qF -- "$word" err; then
        bad "$desc: want one 'strata: ...' line naming '$word', got: $(cat err)"
    elif [ -e "$file" ] || ls | grep -q '\.tmp'; then
        bad "$desc: a file was left"
    else
        ok
    fi
}
check() {
    if eval "$2"; then ok; else bad "$1"; fi
}

# ------------------------------------------------------------ inputs
# dem.pfm: smooth float heights whose left column is exactly 0;
# int.pfm: the same rounded; rnd*.pfm: random integers 0..K; near.pfm:
# smooth heights, 40% of them 0 to 4 ulps from a tenth; corner.pfm below.
"$PY" - <<'EOF' || exit 99
import math, random, struct
def pfm(name, rows):
    H, W = len(rows), len(rows[0])
    with open(name, 'wb') as f:
        f.write(b'Pf\n%d %d\n-1.0\n' % (W, H))
        for r in reversed(rows):
            f.write(struct.pack('<%df' % W, *r))
W, H = 90, 70
dem = [[100 * math.sin(6 * i / W) * math.cos(5 * j / H) + 50 * i / W + 20 * math.sin(17 * i * j / (W * H))
        for i in range(W)] for j in range(H)]
pfm('dem.pfm', dem)
pfm('int.pfm', [[float(round(v)) for v in r] for r in dem])
for seed in range(6):
    random.seed(seed)
    w, h, k = 12 + 3 * seed, 9 + 2 * seed, 1 + seed % 4
    pfm('rnd%d.pfm' % seed, [[float(random.randint(0, k)) for i in range(w)] for j in range(h)])
def ulps(x, d):
    b = struct.unpack('<I', struct.pack('<f', x))[0] + d
    return struct.unpack('<f', struct.pack('<I', b))[0]
random.seed(11)
near = [[1.5 + math.sin(6 * i / W) * math.cos(5 * j / H) + 0.3 * math.sin(17 * i * j / (W * H))
         for i in range(W)] for j in range(H)]
for r in near:
    for i in range(W):
        if random.random() < 0.4:
            r[i] = ulps(struct.unpack('<f', struct.pack('<f', round(r[i] * 10) / 10))[0],
                        random.randint(-4, 4))
pfm('near.pfm', near)
# corner.pfm: all 3 but its first sample (row 0, column 0: the domain's
# corner), an ulp below 2, which its edges snap onto the plane at 2
pfm('corner.pfm', [[ulps(2.0, -1) if i == 0 and j == 0 else 3.0 for i in range(64)]
                   for j in range(64)])
# long.pfm: 20 x 6000, a contour at 9.5 down its whole length (rings of
# over 12000 positions, which the writers cut into pieces)
pfm('long.pfm', [[i + 0.4 * math.sin(0.9 * j) for i in range(20)] for j in range(6000)])
open('bad.pgm', 'wb').write(b'P5\n10 10\n255\n' + bytes(20))
EOF

cat >lines.py <<'EOF'
import json, struct, sys
# numbers kept as written: each must be the shortest decimal that reads
# back (rounded to float32) as the same float
d = json.load(open(sys.argv[1]), parse_float=str, parse_int=str)
W = float(sys.argv[2]); H = float(sys.argv[3])
assert d['type'] == 'FeatureCollection'
f32 = lambda v: struct.unpack('f', struct.pack('f', float(v)))[0]
def shortest(s):
    f = f32(s)
    digits = len(s.lstrip('-').split('e')[0].replace('.', '').strip('0')) or 1
    for n in range(1, digits):
        assert f32('%.*g' % (n, f)) != f, ('not the shortest', s, '%.*g' % (n, f))
    return f
for f in d['features']:
    g = f['geometry']
    assert g['type'] == 'LineString' and 'elev' in f['properties'], f
    c = [(shortest(x), shortest(y)) for x, y in g['coordinates']]
    assert len(c) >= 2
    for x, y in c:
        assert 0 <= x <= W and 0 <= y <= H, (x, y)
    if c[0] != c[-1]:
        for x, y in (c[0], c[-1]):
            assert x in (0, W) or y in (0, H), ('open line ends inside', x, y)
print(len(d['features']))
EOF

cat >polys.py <<'EOF'
import json, sys
from shapely.geometry import shape
from shapely.ops import unary_union
from shapely.validation import explain_validity
d = json.load(open(sys.argv[1])); W = float(sys.argv[2]); H = float(sys.argv[3])
geoms, total, prev = [], 0.0, None
for f in d['features']:
    p = f['properties']
    assert p['elev_min'] <= p['elev_max'], p
    assert prev is None or p['elev_min'] >= prev, 'bands out of order'
    prev = p['elev_max']
    g = shape(f['geometry'])
    assert g.is_valid, (p, explain_validity(g))
    for q in ([g] if g.geom_type == 'Polygon' else list(g.geoms)):
        assert q.exterior.is_ccw, ('exterior not counter-clockwise', p)
        assert all(not h.is_ccw for h in q.interiors), ('hole not clockwise', p)
    total += g.area
    geoms.append(g)
u = unary_union(geoms).area
assert abs(total - W * H) <= 1e-9 * W * H, ('areas', total, W * H)
assert abs(u - W * H) <= 1e-9 * W * H, ('union', u, W * H)
print(len(geoms))
EOF

# ------------------------------------------------------------ lines
succeeds "contours --interval" contours dem.pfm -o l.geojson --interval 10
check "lines: LineStrings with elev, float32 coordinates, open lines end on the border" \
    '"$PY" lines.py l.geojson 89 69 >n && [ "$(cat n)" -gt 10 ]'
succeeds "contours --levels" contours dem.pfm -o l2.geojson --levels -40,-15.5,0,7.25,33
check "--levels: only those levels" '"$PY" -c "import json; d=json.load(open(\"l2.geojson\")); assert {f[\"properties\"][\"elev\"] for f in d[\"features\"]} == {-40,-15.5,0,7.25,33}"'
# The same points as the OBJ loops (mesh frame), in the map frame.
succeeds "terrain --loops .obj, levels" terrain --heightmap dem.pfm --levels -90,-40,-15.5,0,7.25,33 -o t.ply --loops l2.obj --quiet
check "GeoJSON X, Y = the OBJ points' x + 44.5, 34.5 - z as float32" '"$PY" -c "
import json, struct
f32=lambda v: struct.unpack(\"f\", struct.pack(\"f\", v))[0]
v=[tuple(map(float,s.split()[1:])) for s in open(\"l2.obj\") if s.startswith(\"v \")]
pts=[(f32(f32(x)+44.5), f32(34.5-f32(z))) for x,y,z in v]
d=json.load(open(\"l2.geojson\"))
got=[]
for f in d[\"features\"]:
    c=f[\"geometry\"][\"coordinates\"]
    if c[0]==c[-1] and len(c)>2: c=c[:-1]
    got+= [(f32(x),f32(y)) for x,y in c]
assert got==pts, (len(got), len(pts))
"'
succeeds "contours on integers" contours int.pfm -o li.geojson --interval 5
check "integer heights: lines" '"$PY" lines.py li.geojson 89 69 >/dev/null'

# The loops of strata terrain are the same lines, byte for byte.
succeeds "contours --terraces 9" contours dem.pfm -o c9.geojson --terraces 9
succeeds "terrain --loops" terrain --heightmap dem.pfm --terraces 9 -o t.ply --loops t9.geojson --quiet
check "contours = terrain's wall tops (--loops)" 'cmp -s c9.geojson t9.geojson'
# Heights a few ulps from the levels: the contours snap them onto the
# levels as the slicer does (a level below every height: its plane 0
# has no walls).
near_levels=0.0,0.4,0.5,0.6,0.7,0.8,0.9,1.0,1.1,1.2,1.3,1.4,1.5,1.6,1.7,1.8,1.9,2.0,2.1,2.2,2.3,2.4,2.5,2.6
succeeds "contours, heights near levels" contours near.pfm -o cn.geojson --levels $near_levels
succeeds "terrain --loops, heights near levels" terrain --heightmap near.pfm --levels $near_levels -o t.ply --loops tn.geojson --quiet
check "heights near levels: contours = terrain's wall tops" 'cmp -s cn.geojson tn.geojson'
# No line anywhere (the corner snaps up onto 2, every other height is 3):
# the band of the whole raster is the snapped corner's, 2..3, not the
# band its raw height lies in.
succeeds "polygons, the corner an ulp below a level" contours corner.pfm --interval 2 --polygons -o corner.geojson
check "polygons: the snapped corner's band ($(cat corner.geojson | head -c 300))" \
    '"$PY" -c "import json,sys; f = json.load(open(\"corner.geojson\"))[\"features\"]; sys.exit(not (len(f) == 1 and f[0][\"properties\"] == {\"elev_min\": 2, \"elev_max\": 3}))"'
succeeds "SVG, the corner an ulp below a level" contours corner.pfm --interval 2 -o corner.svg
check "SVG: the layer at 2 covers the whole raster" 'grep -A1 "id=\"level-2\"" corner.svg | grep -q "d=\"M0 63L63 63L63 0L0 0Z\""'
succeeds "terrain --loops --normals" terrain --heightmap dem.pfm --terraces 9 --normals -o t.ply --loops t9n.geojson --quiet
check "--loops with normals: the same" 'cmp -s c9.geojson t9n.geojson'
succeeds "terrain --loops .obj" terrain --heightmap dem.pfm --terraces 9 -o t.ply --loops t9.obj --quiet
check "OBJ loops: l records name existing v records" \
    '"$PY" -c "
v=0; l=0
for s in open(\"t9.obj\"):
    if s.startswith(\"v \"): v+=1
    elif s.startswith(\"l \"):
        l+=1; ids=[int(t) for t in s.split()[1:]]
        assert len(ids)>=2 and all(1<=i<=v for i in ids)
assert l>0
"'

# strata slice --up z: the OBJ loops in the input's frame.
succeeds "terrain to OBJ" terrain --cells 16 --terraces 0 -o in.obj --quiet
"$PY" -c "
out=[]
for l in open('in.obj'):
    if l.startswith('v '):
        x,y,z=map(float,l.split()[1:4]); out.append('v %r %r %r\\n'%(x,-z,y))
    else: out.append(l)
open('inz.obj','w').writelines(out)
"
succeeds "slice --up z --loops" slice inz.obj --up z -o outz.obj --terraces 5 --loops lz.obj --quiet
succeeds "slice --loops" slice in.obj -o outy.obj --terraces 5 --loops ly.obj --quiet
check "slice --up z: loops turned into the input's frame" '"$PY" -c "
vz=[tuple(map(float,l.split()[1:])) for l in open(\"lz.obj\") if l.startswith(\"v \")]
vy=[tuple(map(float,l.split()[1:])) for l in open(\"ly.obj\") if l.startswith(\"v \")]
assert len(vz)==len(vy)>0
assert all(a==(b[0],0.0-b[2],b[1]) for a,b in zip(vz,vy))
"'

# ------------------------------------------------------------ polygons
for iv in 3 10 25; do
    succeeds "polygons --interval $iv" contours dem.pfm -o p.geojson --interval "$iv" --polygons
    check "polygons, smooth heights, interval $iv: valid, tiling" '"$PY" polys.py p.geojson 89 69 >/dev/null'
    succeeds "polygons on integers --interval $iv" contours int.pfm -o p.geojson --interval "$iv" --polygons
    check "polygons, integer heights on integer levels, interval $iv" '"$PY" polys.py p.geojson 89 69 >/dev/null'
done
for s in 0 1 2 3 4 5; do
    w=$((11 + 3 * s)) h=$((8 + 2 * s))
    for iv in 1 2; do
        succeeds "polygons rnd$s" contours "rnd$s.pfm" -o p.geojson --interval "$iv" --polygons
        check "polygons, random integer heights $s, interval $iv" '"$PY" polys.py p.geojson $w $h >/dev/null'
    done
done

# ------------------------------------------------------------ SVG
succeeds "svg" contours dem.pfm -o m.svg --interval 20 --svg-scale 0.5
check "svg: one layer per level, sized in mm" '"$PY" -c "
import xml.etree.ElementTree as E
r=E.parse(\"m.svg\").getroot()
assert r.get(\"width\")==\"44.500000mm\" and r.get(\"height\")==\"34.500000mm\", r.attrib
gs=r.findall(\"{http://www.w3.org/2000/svg}g\")
assert len(gs)==12, len(gs)
for g in gs: assert g.find(\"{http://www.w3.org/2000/svg}path\").get(\"d\").startswith(\"M\")
"'
# Each layer is the ground at or above its level: its even-odd region has
# the area of the bands above that level (polygons of the same levels).
succeeds "polygons for the svg" contours dem.pfm -o m.geojson --interval 20 --polygons
check "svg layers: the area of the bands above each level" '"$PY" -c "
import json, re, xml.etree.ElementTree as E
from shapely.geometry import Polygon, shape
r=E.parse(\"m.svg\").getroot()
bands=[(f[\"properties\"][\"elev_min\"], shape(f[\"geometry\"]).area) for f in json.load(open(\"m.geojson\"))[\"features\"]]
for g in r.findall(\"{http://www.w3.org/2000/svg}g\"):
    lev=float(g.get(\"data-elev\"))
    d=g.find(\"{http://www.w3.org/2000/svg}path\").get(\"d\")
    region=None
    for ring in re.findall(\"M([^Z]*)Z\", d):
        pts=[tuple(map(float,p.split())) for p in re.split(\"[ML]\", \"M\"+ring) if p.strip()]
        q=Polygon(pts)
        assert q.is_valid
        region=q if region is None else region.symmetric_difference(q)
    want=sum(a for e,a in bands if e>=lev)*0.25
    assert abs(region.area-want)<=1e-6*89*69*0.25, (lev, region.area, want)
"'

# ------------------------------------------------------------ empty levels
succeeds "levels above every height" contours dem.pfm -o e.geojson --levels 1000,2000
check "no contour: an empty FeatureCollection" '"$PY" -c "import json; d=json.load(open(\"e.geojson\")); assert d==dict(type=\"FeatureCollection\",features=[])"'
succeeds "polygons with no level inside" contours dem.pfm -o e.geojson --levels 1000 --polygons
check "no level inside: one band, the whole rectangle" '"$PY" polys.py e.geojson 89 69 | grep -qx 1'

# ------------------------------------------------------------ determinism
succeeds "reference bytes" contours dem.pfm -o ref.geojson --interval 4 --polygons
for t in 1 2 3; do
    OMP_NUM_THREADS=$t "$STRATA" contours dem.pfm -o t.geojson --interval 4 --polygons --threads "$t" 2>/dev/null
    check "$t threads: the same bytes" 'cmp -s ref.geojson t.geojson'
done
succeeds "polygons with rings of over 12000 positions" contours long.pfm -o long.geojson --levels 9.5 --polygons
check "long rings: valid, tiling the domain" '"$PY" polys.py long.geojson 19 5999 | grep -qx 2'
for t in 1 3; do
    OMP_NUM_THREADS=$t "$STRATA" contours long.pfm -o t.geojson --levels 9.5 --polygons --threads "$t" 2>/dev/null
    check "long rings, $t threads: the same bytes" 'cmp -s long.geojson t.geojson'
done
STRATA_SIMD=scalar "$STRATA" contours dem.pfm -o t.geojson --interval 4 --polygons 2>/dev/null
check "scalar kernels: the same bytes" 'cmp -s ref.geojson t.geojson'

# ------------------------------------------------------------ planets
succeeds "planet --loops" planet --level 4 --terraces 6 -o pl.ply --loops pl.geojson --quiet
check "planet loops: in longitude and latitude, cut at the antimeridian" '"$PY" -c "
import json
d=json.load(open(\"pl.geojson\"))
assert len(d[\"features\"])>0
cut=0
for f in d[\"features\"]:
    g=f[\"geometry\"]
    parts=g[\"coordinates\"] if g[\"type\"]==\"MultiLineString\" else [g[\"coordinates\"]]
    cut+=g[\"type\"]==\"MultiLineString\"
    if len(parts)==1: assert parts[0][0]==parts[0][-1]
    else: assert parts[0][0]==parts[-1][-1]
    for c in parts:
        assert all(-180<=x<=180 and -90<=y<=90 for x,y in c)
        assert all(abs(c[i][0]-c[i+1][0])<=180 for i in range(len(c)-1)), \"crosses the antimeridian\"
assert cut>0, \"no loop crossed the antimeridian: the test tests nothing\"
"'
# points exactly on the antimeridian (crossings of icosphere edges in the
# plane z = 0): the cut is the point itself, never a part of zero length
succeeds "planet --loops, points on the antimeridian" planet --level 6 --terraces 10 -o pl6.ply --loops pl6.geojson --quiet
check "planet loops: no segment of zero length, no part under 2 points" '"$PY" -c "
import json
on=0
for f in json.load(open(\"pl6.geojson\"))[\"features\"]:
    g=f[\"geometry\"]
    for c in g[\"coordinates\"] if g[\"type\"]==\"MultiLineString\" else [g[\"coordinates\"]]:
        assert len(c)>=2, c
        assert all(a!=b for a,b in zip(c,c[1:])), c
        on+=sum(abs(x)==180 for x,y in c)
assert on>0, \"no point on the antimeridian: the test tests nothing\"
"'

# ------------------------------------------------------------ bad input
fails 1 "missing.pfm" "a missing raster" x.geojson contours missing.pfm -o x.geojson
fails 1 "bad.pgm" "a truncated raster" x.geojson contours bad.pgm -o x.geojson
fails 2 "--levels" "levels not ascending" x.geojson contours dem.pfm -o x.geojson --levels 3,2
fails 2 "--levels" "a level that is not a number" x.geojson contours dem.pfm -o x.geojson --levels 1,x
fails 2 "--interval" "interval 0" x.geojson contours dem.pfm -o x.geojson --interval 0
fails 2 "--interval" "a negative interval" x.geojson contours dem.pfm -o x.geojson --interval -5
fails 2 "--interval" "too many levels" x.geojson contours dem.pfm -o x.geojson --interval 1e-5
fails 2 "--base" "--base without --interval" x.geojson contours dem.pfm -o x.geojson --base 3
fails 2 "--interval" "--interval with --levels" x.geojson contours dem.pfm -o x.geojson --interval 3 --levels 1
fails 2 "-o" "an unknown output format" x.xyz contours dem.pfm -o x.xyz
fails 2 "--polygons" "--polygons to SVG" x.svg contours dem.pfm -o x.svg --polygons
fails 2 "--loops" "--loops of an unknown format" t.ply terrain --cells 8 -o t.ply --loops x.txt
fails 2 "--loops" "--loops without terraces" t.ply terrain --cells 8 -o t.ply --terraces 0 --loops x.geojson
mkdir d.geojson
fails 1 "d.geojson" "an output that is a directory" x.geojson contours dem.pfm -o d.geojson
check "no temporary files left" '[ -z "$(ls | grep "\.tmp")" ]'

finish
