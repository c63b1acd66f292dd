#!/usr/bin/env python3
"""Walk a whole 3D Tiles tileset that `strata ... --lod` wrote and check it.

Usage: tileset-walk.py DIR [--lod] [--list FILE]

Checks, over tileset.json and every external tileset it references:
  - asset.version is "1.1" in every file;
  - the root of every file has refine REPLACE and no tile says ADD;
  - geometricError is finite, >= 0, strictly smaller in every child than in
    its parent (an external tileset's root: not larger than the tile that
    references it), 0 at the leaves;
  - every content URI names a file that exists;
  - every child's box lies inside its parent's box, and every vertex of a
    tile's content (read from the .glb, glTF y-up turned into the
    tileset's z-up) inside its tile's box;
  - with --lod: every tile with children has content of its own;
  - every skirt triangle (glTF materials "skirt_K") faces away from its
    tile (terrains: across, planets: from the tile's middle), reaches no
    deeper below its border (terrains: in height, planets: in radius)
    than the tile's geometricError plus the next coarser depth's (the
    roots: the next finer's), and none lies along a terrain's outer
    border (the sides of the ground's extent).
Tiles compressed with EXT_meshopt_compression (--compress) are checked
for everything but their vertices and skirts (counted as "compressed").
With --list FILE, the paths of the .glb contents are written to FILE (for
the glTF validator).  Prints a summary line; exits 1 on any failure.
"""
import json
import math
import os
import struct
import sys

failures = []


def fail(msg):
    if len(failures) < 20:
        print("FAIL:", msg)
    failures.append(msg)


def box_corners(b):
    c, u, v, w = b[0:3], b[3:6], b[6:9], b[9:12]
    out = []
    for i in range(8):
        s = [1 if i & 1 else -1, 1 if i & 2 else -1, 1 if i & 4 else -1]
        out.append([c[k] + s[0] * u[k] + s[1] * v[k] + s[2] * w[k] for k in range(3)])
    return out


class Box:
    """An oriented box: points inside when their coordinates along each
    half-axis lie within its length (with a small tolerance)."""

    def __init__(self, b):
        self.c = b[0:3]
        self.axes = []
        for a in (b[3:6], b[6:9], b[9:12]):
            n = math.sqrt(sum(x * x for x in a))
            self.axes.append((a, n))
        self.tol = 1e-6 * (sum(n for _, n in self.axes) + max(abs(x) for x in self.c)) + 1e-12

    def contains(self, p):
        d = [p[k] - self.c[k] for k in range(3)]
        for a, n in self.axes:
            if n == 0:
                t = 0.0
                # a flat box: the point must lie in its plane; checked by
                # the other axes only
                continue
            t = sum(d[k] * a[k] for k in range(3)) / n
            if abs(t) > n + self.tol:
                return False
        return True


def glb_read(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, version, length = struct.unpack_from("<III", data, 0)
    if magic != 0x46546C67 or version != 2 or length != len(data):
        raise ValueError("not a glb")
    jlen, jtype = struct.unpack_from("<II", data, 12)
    doc = json.loads(data[20:20 + jlen])
    off = 20 + jlen
    blen, btype = struct.unpack_from("<II", data, off)
    bin_ = data[off + 8:off + 8 + blen]
    if "EXT_meshopt_compression" in doc.get("extensionsUsed", []):
        return None, None  # --compress: the buffers are not read here
    prims = doc["meshes"][0]["primitives"] if doc.get("meshes") else []
    if not prims:
        return [], []

    def array(i, comps):
        acc = doc["accessors"][i]
        view = doc["bufferViews"][acc["bufferView"]]
        start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
        fmt = {5126: "f", 5123: "H", 5125: "I"}[acc["componentType"]]
        return struct.unpack_from("<%d%s" % (comps * acc["count"], fmt), bin_, start)

    xs = array(prims[0]["attributes"]["POSITION"], 3)
    # positions relative to the node's translation; glTF's (x, y, z) is
    # the tileset's (x, -z, y)
    t = doc["nodes"][0].get("translation", [0.0, 0.0, 0.0])
    pts = [(t[0] + xs[3 * i], -(t[2] + xs[3 * i + 2]), t[1] + xs[3 * i + 1])
           for i in range(len(xs) // 3)]
    skirt = []
    for p in prims:
        if doc["materials"][p["material"]].get("name", "").startswith("skirt"):
            skirt.extend(array(p["indices"], 1))
    return pts, skirt


def skirt_outward(pts, skirt, planet):
    """How many skirt triangles face towards the tile's middle."""
    c = [sum(p[k] for p in pts) / len(pts) for k in range(3)]
    wrong = 0
    for t in range(0, len(skirt), 3):
        a, b, d = (pts[i] for i in skirt[t:t + 3])
        u = [b[k] - a[k] for k in range(3)]
        v = [d[k] - a[k] for k in range(3)]
        n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
        m = [(a[k] + b[k] + d[k]) / 3 - c[k] for k in range(3)]
        if not planet:
            m[2] = 0.0  # across, in the tileset's z-up frame
        wrong += sum(n[k] * m[k] for k in range(3)) <= 0
    return wrong


def skirt_depth(pts, skirt, planet):
    """The largest height (planets: radius) extent of a skirt triangle."""
    most = 0.0
    for t in range(0, len(skirt), 3):
        if planet:
            hs = [math.sqrt(sum(c * c for c in pts[i])) for i in skirt[t:t + 3]]
        else:
            hs = [pts[i][2] for i in skirt[t:t + 3]]
        most = max(most, max(hs) - min(hs))
    return most


def content_of(tile):
    """Whether a tile has a content of its own (not an external tileset)."""
    c = tile.get("content")
    return bool(c) and not c.get("uri", "").endswith(".json")


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    top = args[0]
    lod = "--lod" in args
    listfile = args[args.index("--list") + 1] if "--list" in args else None
    skirts = []  # (content, its tile's error, its skirt's depth)
    tile_errors = set()
    ground = [math.inf, -math.inf, math.inf, -math.inf]  # x and y extents
    sides = []  # skirt triangles in a plane x or y = const: (content, axis, value)
    deepest = {"skirt": 0.0, "skirt_low": math.inf, "ground_low": math.inf}
    stats = {"files": 0, "tiles": 0, "contents": 0, "vertices": 0, "depth": 0, "skirt": 0,
             "compressed": 0}
    try:
        with open(os.path.join(top, "world.json")) as f:
            planet = json.load(f).get("kind") == "planet"
    except (OSError, ValueError):
        planet = False
    glbs = []

    def walk_file(rel, parent_error, parent_box):
        path = os.path.join(top, rel)
        try:
            with open(path) as f:
                ts = json.load(f)
        except (OSError, ValueError) as e:
            fail("%s: %s" % (rel, e))
            return
        stats["files"] += 1
        if ts.get("asset", {}).get("version") != "1.1":
            fail("%s: asset.version is not 1.1" % rel)
        root = ts.get("root")
        if not isinstance(root, dict):
            fail("%s: no root" % rel)
            return
        if root.get("refine") != "REPLACE":
            fail("%s: the root does not refine with REPLACE" % rel)
        if parent_error is not None and not root["geometricError"] <= parent_error:
            fail("%s: root error %r above the referencing tile's %r" %
                 (rel, root["geometricError"], parent_error))
        if not ts.get("geometricError", -1) >= root["geometricError"]:
            fail("%s: tileset geometricError below its root's" % rel)
        base = os.path.dirname(rel)
        walk_tile(root, base, None, parent_box, 0, rel)

    def walk_tile(tile, base, parent_error, parent_box, depth, where):
        stats["tiles"] += 1
        stats["depth"] = max(stats["depth"], depth)
        err = tile.get("geometricError")
        if not isinstance(err, (int, float)) or not math.isfinite(err) or err < 0:
            fail("%s: bad geometricError %r" % (where, err))
            return
        if content_of(tile):
            tile_errors.add(err)
        if parent_error is not None and not err < parent_error:
            fail("%s: geometricError %r not below its parent's %r" % (where, err, parent_error))
        if tile.get("refine") == "ADD":
            fail("%s: refine ADD" % where)
        b = tile.get("boundingVolume", {}).get("box")
        if not b or len(b) != 12:
            fail("%s: no box" % where)
            return
        box = Box(b)
        if parent_box is not None:
            for p in box_corners(b):
                if not parent_box.contains(p):
                    fail("%s: box not inside its parent's" % where)
                    break
        children = tile.get("children", [])
        content = tile.get("content")
        if not children and err != 0 and not (content and content["uri"].endswith(".json")):
            fail("%s: a leaf with geometricError %r" % (where, err))
        if content:
            uri = content["uri"]
            rel = os.path.normpath(os.path.join(base, uri))
            if not os.path.isfile(os.path.join(top, rel)):
                fail("%s: content %s missing" % (where, uri))
            elif uri.endswith(".json"):
                walk_file(rel, err, box)
            else:
                stats["contents"] += 1
                glbs.append(os.path.join(top, rel))
                if rel.endswith(".glb"):
                    try:
                        pts, skirt = glb_read(os.path.join(top, rel))
                    except (OSError, ValueError, KeyError, struct.error) as e:
                        fail("%s: %s" % (rel, e))
                        pts, skirt = [], []
                    if pts is None:
                        stats["compressed"] += 1
                        pts, skirt = [], []
                    stats["vertices"] += len(pts)
                    stats["skirt"] += len(skirt) // 3
                    if skirt and skirt_outward(pts, skirt, planet):
                        fail("%s: %d skirt triangles face the tile" %
                             (rel, skirt_outward(pts, skirt, planet)))
                    check_skirt(rel, err, pts, skirt)
                    for p in pts:
                        if not box.contains(p):
                            fail("%s: vertex %r outside its tile's box" % (rel, p))
                            break
        elif lod and children and not (depth == 0 and where == "tileset.json"):
            # (a planet's root only groups the 20 base faces)
            fail("%s: an inner tile without content" % where)
        for i, ch in enumerate(children):
            walk_tile(ch, base, err, box, depth + 1, "%s/%d" % (where, i))

    def check_skirt(rel, err, pts, skirt):
        if not skirt:
            return
        d = skirt_depth(pts, skirt, planet)
        deepest["skirt"] = max(deepest["skirt"], d)
        skirts.append((rel, err, d))
        ids = set(skirt)
        if not planet:
            deepest["skirt_low"] = min([deepest["skirt_low"]] + [pts[i][2] for i in ids])
            deepest["ground_low"] = min([deepest["ground_low"]] +
                                        [p[2] for i, p in enumerate(pts) if i not in ids])
            # the domain: the ground's extent; a skirt triangle along its
            # border has its three corners on one side (checked at the end)
            for i, p in enumerate(pts):
                if i not in ids:
                    ground[0], ground[1] = min(ground[0], p[0]), max(ground[1], p[0])
                    ground[2], ground[3] = min(ground[2], p[1]), max(ground[3], p[1])
            for t in range(0, len(skirt), 3):
                tri = [pts[i] for i in skirt[t:t + 3]]
                for k in range(2):
                    if tri[0][k] == tri[1][k] == tri[2][k]:
                        sides.append((rel, k, tri[0][k]))

    walk_file("tileset.json", None, None)
    # every depth has an error of its own: the next larger is the coarser
    # depth's (the roots': the next smaller, the finer depth's)
    errors = sorted(tile_errors | {0.0})
    for rel, k, c in sides:
        if c in (ground[2 * k], ground[2 * k + 1]):
            fail("%s: a skirt along the outer border (%s = %r)" % (rel, "xy"[k], c))
    for rel, e, d in skirts:
        i = errors.index(e)
        coarser = errors[i + 1] if i + 1 < len(errors) else errors[i - 1] if i else 0.0
        if d > (e + coarser) * (1 + 1e-5) + 1e-6:
            fail("%s: skirt %.6g deep, more than %.6g + %.6g" % (rel, d, e, coarser))
    if listfile:
        with open(listfile, "w") as f:
            f.write("\n".join(glbs) + "\n")
    print("tileset-walk %s: files=%d tiles=%d contents=%d vertices=%d skirt_triangles=%d "
          "depth=%d compressed=%d (vertices not read) skirt_depth=%.6g skirt_low=%.6g "
          "ground_low=%.6g failures=%d" %
          (top, stats["files"], stats["tiles"], stats["contents"], stats["vertices"],
           stats["skirt"], stats["depth"], stats["compressed"], deepest["skirt"],
           deepest["skirt_low"], deepest["ground_low"], len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
