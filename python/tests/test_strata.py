"""Tests of the strata Python module (run by tests/python.sh in make check,
with STRATA_LIBRARY naming the library just built and STRATA the program,
SRCDIR the source tree, CC the compiler)."""

import gc
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import strata
from strata._lib import ffi, STRUCTS

SRCDIR = os.environ.get("SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
STRATA = os.environ.get("STRATA")


def cli(*args, cwd=None):
    assert STRATA, "STRATA must name the strata program"
    subprocess.run([STRATA, *args, "--quiet"], check=True, cwd=cwd)


def read(path):
    with open(path, "rb") as f:
        return f.read()


# ------------------------------------------------------------ the binding itself

def test_struct_layouts_match_the_header(tmp_path):
    """cffi's copy of the structs has the header's sizes and offsets."""
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "strata.h"', 'int main(void) {']
    for s, fields in STRUCTS.items():
        lines.append('printf("%s %%zu\\n", sizeof(%s));' % (s, s))
        for f in fields:
            lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));' % (s, f, s, f))
    lines.append('return 0; }')
    (tmp_path / "layout.c").write_text("\n".join(lines))
    cc = os.environ.get("CC", "cc").split()
    subprocess.run(cc + ["-I" + os.path.join(SRCDIR, "core"), "-o", str(tmp_path / "layout"),
                         str(tmp_path / "layout.c")], check=True)
    want = subprocess.run([str(tmp_path / "layout")], check=True, capture_output=True,
                          text=True).stdout.split("\n")
    got = []
    for s, fields in STRUCTS.items():
        got.append("%s %d" % (s, ffi.sizeof(s)))
        got += ["%s.%s %d" % (s, f, ffi.offsetof(s, f)) for f in fields]
    assert got == want[:-1]


def test_version_is_the_headers():
    text = open(os.path.join(SRCDIR, "core", "strata.h")).read()
    want = re.search(r'#define STRATA_VERSION "([^"]+)"', text).group(1)
    assert strata.version() == want
    setup = open(os.path.join(SRCDIR, "python", "setup.py")).read()
    assert 'version="%s"' % want in setup


# ------------------------------------------------------------ the same bytes as the program

def test_planet_is_the_programs(tmp_path):
    r = strata.slice(strata.planet(level=4), terraces=16)
    r.write(tmp_path / "py.ply")
    cli("planet", "--level", "4", "-o", str(tmp_path / "cli.ply"))
    assert read(tmp_path / "py.ply") == read(tmp_path / "cli.ply")


def test_terrain_is_the_programs(tmp_path):
    m = strata.terrain(cells=64, seed=7, amplitude=2.0)
    # the program's .glb has normals by default (clients light them)
    strata.slice(m, terraces=12, walls="separate", normals=True).write(tmp_path / "py.glb",
                                                                      palette="ice")
    cli("terrain", "--cells", "64", "--seed", "7", "--amplitude", "2", "--walls", "separate",
        "--palette", "ice", "-o", str(tmp_path / "cli.glb"))
    assert read(tmp_path / "py.glb") == read(tmp_path / "cli.glb")
    os.mkdir(tmp_path / "py")
    os.mkdir(tmp_path / "cli")
    strata.slice(strata.terrain(shape="polygon", sides=5, depth=3), terraces=8).write(
        tmp_path / "py" / "poly.obj")
    cli("terrain", "--shape", "polygon", "--sides", "5", "--depth", "3", "--terraces", "8",
        "-o", str(tmp_path / "cli" / "poly.obj"))
    for name in ("poly.obj", "poly.mtl"):
        assert read(tmp_path / "py" / name) == read(tmp_path / "cli" / name)


def write_obj(path, v, f):
    with open(path, "w") as out:
        for p in v:
            out.write("v %r %r %r\n" % tuple(float(c) for c in p))
        for t in f:
            out.write("f %d %d %d\n" % tuple(int(i) + 1 for i in t))


def bumpy_grid(n=24, up="z"):
    """An (n+1)^2 grid with a bump, heights along `up`, counter-clockwise
    seen from above."""
    i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1))
    a, b = (i.ravel() / n - 0.5).astype(np.float32), (j.ravel() / n - 0.5).astype(np.float32)
    h = (np.exp(-8 * (a * a + b * b)) * 0.6).astype(np.float32)
    if up == "z":
        v = np.stack([a, b, h], 1)
    else:  # y up: the grid in x, z
        v = np.stack([a, h, b], 1)
    faces = []
    for r in range(n):
        for c in range(n):
            k = r * (n + 1) + c
            if up == "z":  # counter-clockwise seen from +z
                faces += [(k, k + 1, k + n + 2), (k, k + n + 2, k + n + 1)]
            else:  # counter-clockwise seen from +y
                faces += [(k, k + n + 2, k + 1), (k, k + n + 1, k + n + 2)]
    return v, np.array(faces, np.uint32)


@pytest.mark.parametrize("up", ["z", "y"])
def test_numpy_mesh_is_the_programs_slice(tmp_path, up):
    v, f = bumpy_grid(up=up)
    lv = [0.05, 0.2, 0.35, 0.5]
    r = strata.slice(strata.Mesh(v, f, up=up), levels=lv)
    r.write(tmp_path / "py.ply")
    write_obj(tmp_path / "in.obj", v, f)
    cli("slice", str(tmp_path / "in.obj"), "--up", up, "--levels", "0.05,0.2,0.35,0.5",
        "-o", str(tmp_path / "cli.ply"))
    assert read(tmp_path / "py.ply") == read(tmp_path / "cli.ply")
    # in the input's frame: every roof vertex at its plane's height
    axis = "xyz".index(up)
    verts = r.vertices
    for k, level in enumerate(lv):
        ids = np.unique(r.roof_faces(k))
        assert np.all(verts[ids, axis] == np.float32(level))


def test_radial_numpy_mesh(tmp_path):
    p = strata.planet(level=3)
    m = strata.Mesh(p.vertices, p.faces, radial=True, center=(0, 0, 0), radius=1.0)
    assert m.radial
    # heights from the positions: the noise's, within rounding
    np.testing.assert_allclose(m.heights, p.heights, atol=1e-6)
    lv = strata.levels(p, 8)
    b = strata.slice(m, levels=lv)
    b.write(tmp_path / "py.ply")
    write_obj(tmp_path / "in.obj", p.vertices, p.faces)
    cli("slice", str(tmp_path / "in.obj"), "--radial", "--center", "0,0,0", "--radius", "1",
        "--levels", ",".join(repr(float(x)) for x in lv), "-o", str(tmp_path / "cli.ply"))
    assert read(tmp_path / "py.ply") == read(tmp_path / "cli.ply")
    # roofs on their spheres
    rr = np.linalg.norm(b.vertices.astype(np.float64), axis=1)
    for k in range(len(lv)):
        ids = np.unique(b.roof_faces(k))
        np.testing.assert_allclose(rr[ids], 1.0 + lv[k], rtol=1e-6)


# ------------------------------------------------------------ arrays

def test_result_arrays_are_views_that_keep_it_alive():
    r = strata.slice(strata.planet(level=3), terraces=6, areas=True)
    faces, x, t = r.faces, r.x, r.terraces
    assert faces.dtype == np.uint32 and faces.shape == (r.triangle_count, 3)
    assert not faces.flags.writeable and not x.flags.writeable
    assert np.shares_memory(r.roof_faces(2), faces)
    with pytest.raises(ValueError):
        faces[0, 0] = 1
    assert t.dtype.names == ("level", "roof_first", "roof_count", "wall_first", "wall_count",
                             "roof_area", "wall_area")
    # ranges tile the index array, terrace after terrace (walls upper)
    ends = [0]
    for row in t:
        assert row["roof_first"] == ends[-1] and row["wall_first"] == row["roof_first"] + row["roof_count"]
        ends.append(row["wall_first"] + row["wall_count"])
    assert ends[-1] == faces.size
    assert np.all(t["roof_area"] > 0)
    np.testing.assert_allclose(t["roof_area"].sum(), 4 * np.pi, rtol=0.05)
    before = faces.sum(dtype=np.uint64), float(x.sum())
    del r, t
    gc.collect()
    big = [np.ones(100000) for _ in range(20)]  # reuse freed memory, if any
    assert (faces.sum(dtype=np.uint64), float(x.sum())) == before
    del big


def test_face_terrace_and_normals():
    r = strata.slice(strata.terrain(cells=32), terraces=5, normals=True)
    terrace, wall = r.face_terrace()
    assert terrace.min() == 0 and terrace.max() == 4 and wall.any() and not wall.all()
    n = r.normals
    np.testing.assert_allclose(np.linalg.norm(n, axis=1), 1, rtol=1e-5)
    # roof vertices' normals point up
    roof_ids = np.unique(r.faces[~wall])
    assert np.all(n[roof_ids, 1] == 1)
    assert strata.slice(strata.terrain(cells=8), terraces=3).normals is None


def test_loops_as_arrays(tmp_path):
    m = strata.terrain(cells=48)
    r = strata.slice(m, terraces=6)
    loops = r.loops()
    rec = loops.records
    assert len(loops) == len(rec) > 0
    assert np.all(rec["plane"] >= 1)  # plane 0 has none
    np.testing.assert_array_equal(loops.levels, r.levels)
    pts = loops.points
    for k in range(1, 6):
        for a in loops.arrays(k):
            assert a.shape[1] == 3 and np.all(a[:, 1] == r.levels[k])
    # lengths as the library sums them
    for row, a in zip(rec, loops.arrays()):
        closed = np.vstack([a, a[:1]]) if row["closed"] else a
        seg = np.linalg.norm(np.diff(closed.astype(np.float64), axis=0), axis=1).sum()
        assert seg == pytest.approx(row["length"], rel=1e-9)
    assert pts.shape == (int(rec["count"].sum()), 3)
    loops.write(tmp_path / "l.geojson")
    assert read(tmp_path / "l.geojson").startswith(b'{"type":"FeatureCollection"')
    loops.write(tmp_path / "l.obj")
    assert read(tmp_path / "l.obj").count(b"\nl ") + read(tmp_path / "l.obj").startswith(b"l ") == len(loops)


def test_contours_of_a_grid_are_the_programs(tmp_path):
    rng = np.random.default_rng(3)
    g = np.cumsum(np.cumsum(rng.standard_normal((40, 50)), 0), 1).astype(np.float32)
    lv = np.linspace(g.min() + 1, g.max() - 1, 7).astype(np.float32)
    c = strata.contours(g, lv, cell_size=2.0)
    assert len(c) > 0 and c.levels[0] < g.min() and np.all(c.levels[1:] == lv)
    assert set(c.records["plane"]) == set(range(1, 8))
    # the PFM the program reads: rows bottom to top
    with open(tmp_path / "g.pfm", "wb") as f:
        f.write(b"Pf\n50 40\n-1.0\n" + g[::-1].astype("<f4").tobytes())
    levels = ",".join(repr(float(x)) for x in lv)
    for name, extra in (("lines.geojson", []), ("bands.geojson", ["--polygons"]),
                        ("layers.svg", [])):
        cli("contours", str(tmp_path / "g.pfm"), "--cell-size", "2", "--levels", levels,
            *extra, "-o", str(tmp_path / ("cli-" + name)))
        c.write(tmp_path / name, polygons=bool(extra))
        assert read(tmp_path / name) == read(tmp_path / ("cli-" + name)), name


def tree(top):
    """{relative path: bytes} of every file under top."""
    files = {}
    for d, _, names in os.walk(top):
        for n in names:
            files[os.path.relpath(os.path.join(d, n), top)] = read(os.path.join(d, n))
    return files


def test_worlds_are_the_programs(tmp_path):
    s = strata.world(tmp_path / "py", level=4, chunk_level=1, terraces=8)
    assert s["chunks"] == 80 and s["made"] == 80 and s["triangles"] > 20 * 4 ** 4
    cli("planet", "--level", "4", "--chunk-level", "1", "--terraces", "8", "-o",
        str(tmp_path / "cli"))
    py, want = tree(tmp_path / "py"), tree(tmp_path / "cli")
    assert len(py) == 83 and "tileset.json" in py and "world.lock" in py and py == want
    strata.world(tmp_path / "tpy", kind="terrain", cells=64, tile_cells=16, tile_format="ply",
                 lod=True)
    cli("terrain", "--cells", "64", "--tile-cells", "16", "--tile-format", "ply", "--lod",
        "-o", str(tmp_path / "tcli"))
    assert tree(tmp_path / "tpy") == tree(tmp_path / "tcli")
    assert "tileset.json" not in tree(tmp_path / "tpy")  # PLY tiles: none
    with pytest.raises(strata.StrataError) as e:  # another world's directory
        strata.world(tmp_path / "py", level=4, chunk_level=1, terraces=9)
    assert e.value.name == "CONFLICT" and "py" in str(e.value)


# ------------------------------------------------------------ writing

@pytest.mark.parametrize("ext,magic", [("ply", b"ply\n"), ("obj", b"#"), ("glb", b"glTF"),
                                       ("stl", None)])
def test_write_every_format(tmp_path, ext, magic):
    r = strata.slice(strata.terrain(cells=16), terraces=4)
    path = tmp_path / ("t." + ext)
    r.write(path)
    data = read(path)
    if magic:
        assert data.startswith(magic)
    else:  # binary STL: 80-byte header, count, 50 bytes a triangle
        assert int.from_bytes(data[80:84], "little") == r.triangle_count
        assert len(data) == 84 + 50 * r.triangle_count
    r.write(tmp_path / "forced.bin", format=ext)
    assert read(tmp_path / "forced.bin") == data or ext == "obj"


# ------------------------------------------------------------ errors

def test_errors_carry_the_library_message(tmp_path):
    m = strata.terrain(cells=4)
    with pytest.raises(strata.StrataError) as e:
        strata.slice(m, levels=[0.5, 0.5])
    assert e.value.name == "BAD_LEVELS" and "not ascending" in str(e.value)
    with pytest.raises(strata.StrataError) as e:
        strata.Mesh(np.zeros((3, 3), np.float32), [[0, 1, 5]])
    assert e.value.name == "BAD_MESH" and "strata_mesh_create" in str(e.value)
    assert "3 vertices, 1 faces" in str(e.value)
    r = strata.slice(m, terraces=2)
    os.mkdir(tmp_path / "dir.ply")
    with pytest.raises(strata.StrataError) as e:
        r.write(tmp_path / "dir.ply")
    assert e.value.name == "IO" and "Is a directory" in str(e.value) and "dir.ply" in str(e.value)
    with pytest.raises(strata.StrataError) as e:
        r.write(tmp_path / "x.unknown")
    assert e.value.name == "FORMAT"
    assert os.listdir(tmp_path) == ["dir.ply"]  # nothing partial left
    with pytest.raises(ValueError, match="vertices: expected an \\(n, 3\\) array"):
        strata.Mesh(np.zeros((4, 2)), [[0, 1, 2]])
    with pytest.raises(ValueError, match="walls: 'sideways' is not one of"):
        strata.slice(m, walls="sideways")
    with pytest.raises(ValueError, match="amplitude"):
        strata.planet(level=2, amplitude=0.9)
    with pytest.raises(strata.StrataError, match="palette 'nope'"):
        r.write(tmp_path / "p.obj", palette="nope")


# ------------------------------------------------------------ progress, cancel, threads

def test_progress_and_cancel():
    ctx = strata.Context(threads=1)
    m = strata.planet(level=5, ctx=ctx)
    seen = []
    strata.slice(m, terraces=8, ctx=ctx, progress=lambda s, d: seen.append((s, d)))
    assert ("slice", 0.0) in seen and ("slice", 1.0) in seen
    done = [d for s, d in seen if s == "slice"]
    assert done == sorted(done) and {0.15, 0.3, 0.5, 0.6, 0.85} <= set(done)
    with pytest.raises(strata.StrataError) as e:
        strata.slice(m, terraces=8, ctx=ctx, progress=lambda s, d: d >= 0.5)
    assert e.value.name == "CANCELLED"
    # Context.cancel from another thread (here while the slice reports 0.3)
    def cancel_from_a_thread(stage, done):
        if done >= 0.3:
            t = threading.Thread(target=ctx.cancel)
            t.start()
            t.join()
    with pytest.raises(strata.StrataError) as e:
        strata.slice(m, terraces=8, ctx=ctx, progress=cancel_from_a_thread)
    assert e.value.name == "CANCELLED"
    with pytest.raises(ZeroDivisionError):  # the callback's own error
        strata.slice(m, terraces=8, ctx=ctx, progress=lambda s, d: 1 / 0)
    assert strata.slice(m, terraces=8, ctx=ctx).triangle_count > 0  # usable again


CTRL_C = textwrap.dedent("""
    import os, signal, sys, threading, time
    import strata
    ctx = strata.Context(threads=1)
    m = strata.planet(level=8, ctx=ctx)
    t0 = time.perf_counter(); strata.slice(m, terraces=64, ctx=ctx)
    full = time.perf_counter() - t0
    sent, seen, timer = [], [], []
    def interrupt():
        sent.append(time.perf_counter()); os.kill(os.getpid(), signal.SIGINT)
    def progress(stage, done):
        # from 0.3 of the slice on, Ctrl-C comes from outside while the
        # library works (a thread's timer), not from this callback
        if stage == "slice" and done >= 0.3 and not timer:
            timer.append(threading.Timer(0.05, interrupt))
            timer[0].start()
        if stage == "slice":
            seen.append(done)
    try:
        strata.slice(m, terraces=64, ctx=ctx, progress=progress)
        print("finished", full)
    except KeyboardInterrupt:
        print("interrupted", full, time.perf_counter() - sent[0], max(seen))
    print("after", strata.slice(m, terraces=4, ctx=ctx).triangle_count > 0)
""")


def test_ctrl_c_cancels_a_long_slice_promptly():
    out = subprocess.run([sys.executable, "-c", CTRL_C], capture_output=True, text=True,
                         env=os.environ, timeout=300)
    words = out.stdout.split()
    assert words[:1] == ["interrupted"], out.stdout + out.stderr
    full, latency, last = float(words[1]), float(words[2]), float(words[3])
    # cancelled inside the slice: it never reported its end (1), which it
    # would have if the KeyboardInterrupt had waited for the call to return
    assert last < 1.0, "the slice ran to its end (%g) before the interrupt" % last
    assert latency < full, "Ctrl-C took %.3f s in a slice of %.3f s" % (latency, full)
    assert words[4:] == ["after", "True"]


def test_gil_released_during_calls():
    ctx = strata.Context(threads=1)
    m = strata.planet(level=7, ctx=ctx)
    done = threading.Event()
    spins = [0]

    def work():
        for _ in range(3):
            strata.slice(m, terraces=32, ctx=ctx)
        done.set()

    t = threading.Thread(target=work)
    t0 = time.perf_counter()
    t.start()
    while not done.is_set():
        spins[0] += 1
    t.join()
    # while the other thread was in the library, this one kept running
    assert spins[0] > 1000 * (time.perf_counter() - t0)


def test_context_threads_and_isa():
    ctx = strata.Context(threads=2)
    assert ctx.threads in (1, 2)  # 1 without OpenMP
    assert ctx.isa in ("scalar", "avx2", "avx512", "neon")
    with pytest.raises(ValueError):
        strata.Context(threads=-1)


# ------------------------------------------------------------ README

def test_readme_example(tmp_path):
    text = open(os.path.join(SRCDIR, "README.md")).read()
    block = re.search(r"<!-- python-example[^>]*-->\n```python\n(.*?)```", text, re.S)
    assert block, "no Python example in README.md"
    code = block.group(1)
    assert len(code.strip().splitlines()) <= 12
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, env=os.environ, timeout=300)
    assert out.returncode == 0, out.stderr
    assert re.search(r"^\d+ triangles in 16 terraces", out.stdout, re.M), out.stdout
    assert read(tmp_path / "planet.glb")[:4] == b"glTF"
