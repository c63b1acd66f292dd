"""Headless test of the Strata Terrace add-on, run by tests/blender.sh as
    blender -b --factory-startup --python-exit-code 1 --python test_addon.py
with SRCDIR, STRATA (the program) and STRATA_LIBRARY set.  Terraces a
subdivided icosphere (radial) and a grid (up Z) with the add-on's
operator, and checks that each result has the triangle count and terraces
the strata program gives for the same triangles, one material slot per
terrace, and its roofs on their planes.  Prints "N passed, N failed"."""

import math
import os
import subprocess
import sys
import tempfile

SRCDIR = os.environ["SRCDIR"]
sys.path[:0] = [os.path.join(SRCDIR, "python"), os.path.join(SRCDIR, "blender")]

import bpy  # noqa: E402
import numpy as np  # noqa: E402

import strata_terrace  # noqa: E402

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what)


def program_counts(v, t, args, tmp):
    """Triangles and terraces `strata slice` makes of these triangles."""
    path = os.path.join(tmp, "in.obj")
    with open(path, "w") as f:
        for p in v:
            f.write("v %r %r %r\n" % (float(p[0]), float(p[1]), float(p[2])))
        for tri in t:
            f.write("f %d %d %d\n" % (tri[0] + 1, tri[1] + 1, tri[2] + 1))
    out = subprocess.run([os.environ["STRATA"], "slice", path, "-o", os.path.join(tmp, "o.ply"),
                          "--stats", *args], capture_output=True, text=True, check=True)
    stats = dict(line.split("=", 1) for line in out.stderr.splitlines() if "=" in line)
    return int(stats["triangles"]), int(stats["terraces"])


def new_object(kind):
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o)
    if kind == "icosphere":
        bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=5, radius=1.0)
    else:
        bpy.ops.mesh.primitive_grid_add(x_subdivisions=60, y_subdivisions=60, size=4.0)
    obj = bpy.context.active_object
    v = np.empty(len(obj.data.vertices) * 3, np.float32)
    obj.data.vertices.foreach_get("co", v)
    v = v.reshape(-1, 3)
    if kind == "icosphere":  # hills: radius 1 + bumps along each direction
        d = v / np.linalg.norm(v, axis=1, keepdims=True)
        r = 1 + 0.08 * np.sin(5 * d[:, 0]) * np.cos(4 * d[:, 1]) + 0.05 * np.sin(7 * d[:, 2])
        v = (d * r[:, None]).astype(np.float32)
    else:
        v[:, 2] = 0.6 * np.sin(1.7 * v[:, 0]) * np.cos(1.3 * v[:, 1])
    obj.data.vertices.foreach_set("co", v.ravel())
    obj.data.update()
    return obj


def case(kind, op_args, cli_args, up_axis):
    obj = new_object(kind)
    v, t = strata_terrace._mesh_arrays(obj.data)
    with tempfile.TemporaryDirectory() as tmp:
        want_tris, want_terraces = program_counts(v, t, cli_args, tmp)
    result = bpy.ops.object.strata_terrace(**op_args)
    check(result == {"FINISHED"}, "%s: the operator returned %s" % (kind, result))
    mesh = obj.data
    mesh.calc_loop_triangles()
    tris = len(mesh.polygons)
    check(all(p.loop_total == 3 for p in mesh.polygons), kind + ": every face a triangle")
    check(tris == want_tris and len(mesh.loop_triangles) == want_tris,
          "%s: %d triangles, the program made %d" % (kind, tris, want_tris))
    slots = len(obj.material_slots)
    want_slots = want_terraces * (2 if op_args.get("walls") == "separate" else 1)
    check(slots == want_slots, "%s: %d material slots, want %d" % (kind, slots, want_slots))
    mat = np.empty(tris, np.int32)
    mesh.polygons.foreach_get("material_index", mat)
    # walls of terrace k >= 1 (the walls below it), separate: slots after the roofs'
    used = set(range(want_terraces))
    if op_args.get("walls") == "separate":
        used |= set(range(want_terraces + 1, 2 * want_terraces))
    check(set(np.unique(mat)) == used,
          "%s: material indices %s" % (kind, np.unique(mat)))
    # every roof vertex on its plane: the terrace's level (up) or sphere
    co = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    print("%s: %d triangles, %d material slots, %d vertices (program: %d triangles, %d "
          "terraces)" % (kind, tris, slots, len(co), want_tris, want_terraces))
    return obj, co, mat


strata_terrace.register()
try:
    # a planet: radial heights about the origin, radius 1, 8 terraces
    case("icosphere", {"terraces": 8, "heights": "RADIAL", "radius": 1.0},
         ["--radial", "--center", "0,0,0", "--radius", "1", "--terraces", "8"], None)
    # a grid, z up, explicit levels, walls separate
    levels = [-0.45, -0.3, -0.15, 0.0, 0.15, 0.3, 0.45]
    obj, co, mat = case("grid", {"levels": ",".join(map(str, levels)), "walls": "separate"},
                        ["--up", "z", "--levels", ",".join(map(str, levels)), "--walls",
                         "separate"], 2)
    mesh = obj.data
    bad = 0
    for p in mesh.polygons:
        if p.material_index < len(levels):  # a roof of terrace k
            z = co[list(p.vertices), 2]
            bad += int(not np.all(z == np.float32(levels[p.material_index])))
    check(bad == 0, "grid: %d roof triangles off their plane" % bad)
    # a bad level list is reported, the mesh left alone
    n = len(mesh.polygons)
    try:
        r = bpy.ops.object.strata_terrace(levels="1,0")
    except RuntimeError as e:  # Blender raises the operator's ERROR report
        r = str(e)
    check("not ascending" in str(r) and len(mesh.polygons) == n,
          "descending levels: %s" % (r,))
finally:
    strata_terrace.unregister()
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
