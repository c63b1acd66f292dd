"""strata: terraced terrain and planets, over libstrata (see core/strata.h).

    import numpy as np, strata
    planet = strata.planet(level=6)                  # a noise-displaced icosphere
    result = strata.slice(planet, terraces=16)       # flat terraces, vertical walls
    result.faces                                     # (m, 3) uint32, no copy
    result.write("planet.glb")

Meshes come from strata.planet(), strata.terrain() or NumPy arrays
(strata.Mesh(vertices, faces, up="z") or radial=True).  Results and loops
give NumPy arrays: read-only views of the library's own buffers where they
are laid out as NumPy wants them (they keep the result alive), copies
where they are not (positions are stored as three arrays x, y, z: the
(n, 3) `vertices` is a copy, `x`, `y`, `z` are views).

Errors are StrataError exceptions carrying the library's message, the call
and what it was given; bad Python arguments are ValueError or TypeError.
Every call releases the GIL while the library works.  A progress callback
(on a Context, or progress= on a call) is called as fn(stage, done) from
the calling thread and cancels the call by returning a true value; Ctrl-C
(KeyboardInterrupt) cancels a running call at its next progress report
and is raised once the library has returned and freed what it made.
"""

import os
import threading

import numpy as np

from ._lib import ffi, lib, LIBRARY_PATH

__all__ = ["StrataError", "Context", "Mesh", "Result", "Loops", "planet", "terrain", "slice",
           "levels", "contours", "world", "version", "LIBRARY_PATH"]

_STATUS_NAMES = ["OK", "INVALID_ARG", "NOMEM", "OVERFLOW", "IO", "FORMAT", "TRUNCATED",
                 "TOO_LARGE", "UNSUPPORTED", "NOT_FINITE", "BAD_MESH", "BAD_LEVELS", "CANCELLED",
                 "ISA", "CONFLICT"]
IO = _STATUS_NAMES.index("IO")


def version():
    """The version of the libstrata this module opened, e.g. "0.1.0"."""
    return ffi.string(lib.strata_version()).decode()


class StrataError(Exception):
    """A libstrata call failed.  .status is the strata_status code, .name
    its name without the prefix ("BAD_LEVELS"), .call the function, and
    str() the library's message with what the call was given."""

    def __init__(self, call, status, detail=None, errno=0):
        self.call = call
        self.status = status
        self.name = _STATUS_NAMES[status] if 0 <= status < len(_STATUS_NAMES) else str(status)
        self.errno = errno
        msg = "%s: %s" % (call, ffi.string(lib.strata_status_str(status)).decode())
        if status == IO and errno:
            msg += ": " + os.strerror(errno)
        if detail:
            msg += " (%s)" % detail
        super().__init__(msg)


# ------------------------------------------------------------------ context

@ffi.callback("int(void *, const char *, double)", onerror=lambda *exc: _callback_error(*exc))
def _progress(user, stage, done):
    ctx = ffi.from_handle(user)
    fn = ctx._call_progress or ctx.progress
    if fn is not None and fn(ffi.string(stage).decode(), done):
        return 1
    return 0


_in_callback = threading.local()


def _callback_error(exc_type, exc, tb):
    """An exception in the progress callback (KeyboardInterrupt from Ctrl-C
    included): kept for the Context to raise once the call has returned,
    and the call cancelled."""
    ctx = getattr(_in_callback, "ctx", None)
    if ctx is not None and ctx._pending is None:
        ctx._pending = exc if exc is not None else exc_type()
    return 1


class Context:
    """A libstrata context: worker threads, instruction set, progress and
    cancel flag.  Used by one thread at a time; each thread gets its own
    default (strata.Context.default()).

    threads: worker threads, 0 for one per core.  progress: None or
    fn(stage, done) -> cancel?, called during every call on this context.
    sync: files written are synced to disk before they are renamed into
    place (False: faster, for scratch files; as the program's --no-sync)."""

    _local = threading.local()

    def __init__(self, threads=0, progress=None, sync=True):
        out = ffi.new("strata_ctx **")
        opt = ffi.new("strata_ctx_options *")
        lib.strata_ctx_defaults(opt)
        opt.threads = _int(threads, "threads", 0, 1 << 16)
        st = lib.strata_ctx_create(opt, out)
        if st:
            raise StrataError("strata_ctx_create", st, "threads=%d" % threads)
        self._ptr = ffi.gc(out[0], lib.strata_ctx_destroy)
        lib.strata_ctx_set_sync(self._ptr, bool(sync))
        self.progress = progress
        self._call_progress = None
        self._pending = None
        self._handle = ffi.new_handle(self)
        lib.strata_ctx_set_progress(self._ptr, _progress, self._handle)

    @classmethod
    def default(cls):
        """This thread's default context (made on first use)."""
        ctx = getattr(cls._local, "ctx", None)
        if ctx is None:
            ctx = cls._local.ctx = cls()
        return ctx

    @property
    def threads(self):
        return lib.strata_ctx_threads(self._ptr)

    @threads.setter
    def threads(self, n):
        self._check("strata_ctx_set_threads",
                    lib.strata_ctx_set_threads(self._ptr, _int(n, "threads", 0, 1 << 16)))

    @property
    def isa(self):
        """The instruction set of the kernels ("scalar", "avx2", "avx512", "neon")."""
        return ffi.string(lib.strata_isa_name(lib.strata_ctx_isa(self._ptr))).decode()

    def cancel(self):
        """Ask the running call (from another thread) to stop: it raises
        StrataError with name "CANCELLED"."""
        lib.strata_ctx_cancel(self._ptr)

    def _check(self, call, st, detail=None):
        if st:
            raise StrataError(call, st, detail, ffi.errno if st == IO else 0)

    def call(self, name, fn, *args, detail=None, progress=None):
        """Run lib function fn(ctx, *args) with the GIL released, progress
        reported and Ctrl-C turned into a cancel; raise on failure."""
        lib.strata_ctx_reset_cancel(self._ptr)
        self._pending = None
        self._call_progress = progress
        _in_callback.ctx = self
        try:
            st = fn(self._ptr, *args)
        finally:
            _in_callback.ctx = None
            self._call_progress = None
        pending, self._pending = self._pending, None
        if pending is not None:
            raise pending  # KeyboardInterrupt, or the progress callback's error
        self._check(name, st, detail)


def _ctx(ctx):
    return Context.default() if ctx is None else ctx


# ------------------------------------------------------------------ arrays

class _Memory:
    """The owner of library memory a NumPy array looks at: the array's
    base, so the handle lives as long as any view of it."""

    def __init__(self, owner, ptr, nbytes):
        self._owner = owner
        self.__array_interface__ = {
            "data": (int(ffi.cast("uintptr_t", ptr)), True),  # read-only
            "shape": (nbytes,), "typestr": "|u1", "version": 3}


def _view(owner, ptr, count, dtype, shape=None):
    """A read-only NumPy view of count items of dtype at ptr, kept alive
    by owner."""
    dtype = np.dtype(dtype)
    if count == 0 or ptr == ffi.NULL:
        a = np.zeros(0, dtype)
    else:
        a = np.asarray(_Memory(owner, ptr, count * dtype.itemsize)).view(dtype)
    if shape is not None:
        a = a.reshape(shape)
    a.flags.writeable = False
    return a


def _struct_dtype(ctype, fields):
    """The NumPy dtype of a C struct, from cffi's layout of it."""
    names, formats, offsets = [], [], []
    for name, fmt in fields:
        names.append(name)
        formats.append(fmt)
        offsets.append(ffi.offsetof(ctype, name))
    return np.dtype({"names": names, "formats": formats, "offsets": offsets,
                     "itemsize": ffi.sizeof(ctype)})


TERRACE_DTYPE = _struct_dtype("strata_terrace", [
    ("level", "<f4"), ("roof_first", "<u8"), ("roof_count", "<u8"), ("wall_first", "<u8"),
    ("wall_count", "<u8"), ("roof_area", "<f8"), ("wall_area", "<f8")])
LOOP_DTYPE = _struct_dtype("strata_loop", [
    ("plane", "<u4"), ("closed", "<u4"), ("first", "<u8"), ("count", "<u4"), ("length", "<f8"),
    ("area", "<f8")])


def _int(v, name, lo, hi):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError("%s: expected an integer, got %r" % (name, v))
    if not lo <= v <= hi:
        raise ValueError("%s: %d is outside %d..%d" % (name, v, lo, hi))
    return int(v)


def _float_array(v, name):
    a = np.ascontiguousarray(v, dtype=np.float32)
    if a.ndim != 1:
        raise ValueError("%s: expected a 1-D sequence of numbers, got shape %s" % (name, a.shape))
    return a


def _ptr(ctype, a):
    return ffi.cast(ctype, ffi.from_buffer(a))


_AXES = {"y": 0, "z": 1, "x": 2}
_WALLS = {"upper": 0, "lower": 1, "separate": 2}
_NOISE = {"simplex": 0, "perlin": 1}
_FORMATS = {None: 0, "ply": 1, "obj": 2, "glb": 3, "stl": 4}
_LOOP_FORMATS = {None: 0, "geojson": 1, "svg": 2, "obj": 3}


def _choice(v, table, name):
    if v not in table:
        raise ValueError("%s: %r is not one of %s" % (
            name, v, ", ".join(repr(k) for k in table if k is not None)))
    return table[v]


# ------------------------------------------------------------------ meshes

class Mesh:
    """A triangle mesh with a height per vertex: FLAT (height along the up
    axis) or RADIAL (a planet: height is the distance from a centre minus
    a base radius).

    Mesh(vertices, faces, up="y", radial=False, center=None, radius=None):
    vertices an (n, 3) float32 array (other real dtypes are converted),
    faces an (m, 3) array of vertex ids (uint32), counter-clockwise seen
    from above (radial: from outside).  up: which axis heights run along
    ("x", "y" or "z"; the mesh is kept y-up inside, and slicing turns the
    result back into this frame).  radial: heights from center (default
    the bounding box's centre) minus radius (default the mean distance)."""

    def __init__(self, vertices, faces, up="y", radial=False, center=None, radius=None,
                 ctx=None):
        ctx = _ctx(ctx)
        v = np.asarray(vertices)
        f = np.asarray(faces)
        if v.ndim != 2 or v.shape[1] != 3:
            raise ValueError("vertices: expected an (n, 3) array, got shape %s" % (v.shape,))
        if f.ndim != 2 or f.shape[1] != 3:
            raise ValueError("faces: expected an (m, 3) array, got shape %s" % (f.shape,))
        if not np.issubdtype(f.dtype, np.integer) and f.size:
            raise TypeError("faces: expected integer vertex ids, got dtype %s" % f.dtype)
        if f.size and (f.min() < 0 or f.max() > 0xFFFFFFFF):
            raise ValueError("faces: vertex ids must be in 0..2^32-1 (got %d..%d)"
                             % (f.min(), f.max()))
        if len(v) > 0xFFFFFFFF or len(f) > 0xFFFFFFFF // 3:
            raise ValueError("too many vertices or faces for 32-bit ids")
        axis = _choice(up, _AXES, "up")
        v = np.ascontiguousarray(v, dtype=np.float32)
        # into the y-up frame, as strata_mesh_load turns an import (the
        # inverse of strata_result_rotate_from_y_up, negations as 0 - v)
        if not radial and axis == 1:
            v = np.ascontiguousarray(np.stack([v[:, 0], v[:, 2], np.float32(0) - v[:, 1]], 1))
        elif not radial and axis == 2:
            v = np.ascontiguousarray(np.stack([np.float32(0) - v[:, 1], v[:, 0], v[:, 2]], 1))
        f = np.ascontiguousarray(f, dtype=np.uint32)
        out = ffi.new("strata_mesh **")
        ctx.call("strata_mesh_create", lib.strata_mesh_create, _ptr("float *", v), len(v),
                 _ptr("uint32_t *", f), len(f), out,
                 detail="%d vertices, %d faces" % (len(v), len(f)))
        self._ptr = ffi.gc(out[0], lib.strata_mesh_destroy)
        self.up = "y" if radial else up
        if radial:
            if center is None:
                c = (v.min(0) + v.max(0)) / np.float32(2) if len(v) else np.zeros(3, np.float32)
            else:
                c = np.asarray(center, np.float32)
                if c.shape != (3,):
                    raise ValueError("center: expected 3 numbers, got shape %s" % (c.shape,))
            r = (float(np.mean(np.linalg.norm(v.astype(np.float64) - c, axis=1)))
                 if radius is None else float(radius))
            self._set_radial(c, r)
        elif center is not None or radius is not None:
            raise ValueError("center and radius: only for radial=True")

    @classmethod
    def _wrap(cls, ptr, up="y"):
        m = cls.__new__(cls)
        m._ptr = ffi.gc(ptr, lib.strata_mesh_destroy)
        m.up = up
        return m

    def _set_radial(self, center, radius):
        c = ffi.new("float[3]", [float(x) for x in center])
        st = lib.strata_mesh_set_geometry(self._ptr, 1, c, radius)
        if st:
            raise StrataError("strata_mesh_set_geometry", st,
                              "center=%s, radius=%r" % (list(map(float, center)), radius))

    def _view(self):
        v = ffi.new("strata_mesh_view *")
        lib.strata_mesh_get_view(self._ptr, v)
        return v

    @property
    def vertex_count(self):
        return self._view().nverts

    @property
    def triangle_count(self):
        return self._view().ntris

    @property
    def radial(self):
        return self._view().geometry == 1

    @property
    def heights(self):
        """The per-vertex heights (view)."""
        v = self._view()
        return _view(self, v.h, v.nverts, np.float32)

    @property
    def vertices(self):
        """(n, 3) float32 positions in the y-up frame (a copy)."""
        v = self._view()
        return np.stack([_view(self, p, v.nverts, np.float32) for p in (v.x, v.y, v.z)], 1)

    @property
    def faces(self):
        """(m, 3) uint32 vertex ids (a copy)."""
        v = self._view()
        return np.stack([_view(self, p, v.ntris, np.uint32) for p in (v.a, v.b, v.c)], 1)


def _fbm(seed, noise, octaves, frequency, lacunarity, gain, amplitude):
    f = ffi.new("strata_fbm *")
    lib.strata_fbm_defaults(f)
    f.kind = _choice(noise, _NOISE, "noise")
    f.seed = _int(seed, "seed", 0, 0xFFFFFFFF)
    f.octaves = _int(octaves, "octaves", 1, 16)
    f.frequency, f.lacunarity, f.gain, f.amplitude = frequency, lacunarity, gain, amplitude
    if lib.strata_fbm_validate(f):
        raise ValueError("noise: frequency %g and lacunarity %g must be > 0, gain %g and "
                         "amplitude %g >= 0, all finite (and the last octave's frequency and "
                         "the bound too)" % (frequency, lacunarity, gain, amplitude))
    return f


def planet(level=6, radius=1.0, seed=1, noise="simplex", frequency=1.5, amplitude=None,
           octaves=6, lacunarity=2.0, gain=0.5, ctx=None, progress=None):
    """An icosphere of `level` (20 * 4^level triangles) displaced by fBm
    noise, as `strata planet` makes it (the same options and defaults:
    frequency per radius, amplitude 0.1 x radius): a RADIAL Mesh."""
    ctx = _ctx(ctx)
    _int(level, "level", 0, 13)
    if not radius > 0:
        raise ValueError("radius: %r must be > 0" % (radius,))
    f = _fbm(seed, noise, octaves, frequency / radius,
             lacunarity, gain, 0.1 * radius if amplitude is None else amplitude)
    if not lib.strata_fbm_bound(f) < np.float32(radius):
        raise ValueError("amplitude: the noise reaches %g, which must stay below the radius %g"
                         % (lib.strata_fbm_bound(f), radius))
    out = ffi.new("strata_mesh **")
    ctx.call("strata_shape_icosphere", lib.strata_shape_icosphere, level, radius, out,
             detail="level %d" % level, progress=progress)
    m = Mesh._wrap(out[0])
    ctx.call("strata_displace_radial", lib.strata_displace_radial, m._ptr, f, ffi.NULL,
             progress=progress)
    return m


def terrain(shape="grid", cells=256, size=10.0, sides=6, depth=None, seed=1, noise="simplex",
            frequency=None, amplitude=None, octaves=6, lacunarity=2.0, gain=0.5, ctx=None,
            progress=None):
    """A flat grid of cells x cells (or a regular polygon of `sides`
    subdivided `depth` times, default 6) of side `size`, displaced by fBm
    noise, as `strata terrain` makes it (frequency 3 / size and amplitude
    0.15 x size by default): a FLAT Mesh, y up."""
    ctx = _ctx(ctx)
    if shape not in ("grid", "polygon"):
        raise ValueError("shape: %r is not one of 'grid', 'polygon'" % (shape,))
    if not size > 0:
        raise ValueError("size: %r must be > 0" % (size,))
    depth = (6 if shape == "polygon" else 0) if depth is None else _int(depth, "depth", 0, 16)
    f = _fbm(seed, noise, octaves, 3.0 / size if frequency is None else frequency,
             lacunarity, gain, 0.15 * size if amplitude is None else amplitude)
    out = ffi.new("strata_mesh **")
    if shape == "grid":
        n = _int(cells, "cells", 1, 65535)
        ctx.call("strata_shape_grid", lib.strata_shape_grid, n, n, size / n, out,
                 detail="%d x %d cells" % (n, n), progress=progress)
    else:
        ctx.call("strata_shape_polygon", lib.strata_shape_polygon,
                 _int(sides, "sides", 3, 64), size / 2, out, progress=progress)
    m = Mesh._wrap(out[0])
    if depth:
        out = ffi.new("strata_mesh **")
        ctx.call("strata_mesh_subdivide", lib.strata_mesh_subdivide, m._ptr, depth, 0, out,
                 detail="depth %d" % depth, progress=progress)
        m = Mesh._wrap(out[0])
    ctx.call("strata_displace_flat", lib.strata_displace_flat, m._ptr, f, ffi.NULL,
             progress=progress)
    return m


def _levels_uniform(mesh, n):
    _int(n, "n", 1, 65535)
    out = np.empty(n, np.float32)
    st = lib.strata_levels_uniform(mesh._ptr, n, ffi.NULL, _ptr("float *", out))
    if st:
        raise StrataError("strata_levels_uniform", st, "%d levels" % n)
    return out


def levels(mesh, n=16):
    """n plane heights spread evenly from the mesh's lowest height (as
    `--terraces n`): a float32 array."""
    return _levels_uniform(mesh, n)


# ------------------------------------------------------------------ results

def slice(mesh, levels=None, terraces=16, walls="upper", normals=False, areas=False, ctx=None,
          progress=None):
    """Cut mesh into terraces: at the plane heights `levels` (ascending),
    else `terraces` planes spread over its heights.  walls: "upper",
    "lower" or "separate" (which terrace's range holds the walls).
    normals: as the library, off unless asked for (the program writes a
    .glb with them: normals=True gives its bytes).
    Returns a Result in the mesh's own frame (its up axis)."""
    ctx = _ctx(ctx)
    if levels is None:
        lv = _levels_uniform(mesh, terraces)
    else:
        lv = _float_array(levels, "levels")
        st = lib.strata_levels_validate(_ptr("float *", lv), len(lv))
        if st:
            raise StrataError("strata_levels_validate", st,
                              "levels %s: at least 1 and at most 65535, finite, strictly "
                              "ascending" % np.array2string(lv, threshold=8))
    opt = ffi.new("strata_slice_options *")
    lib.strata_slice_defaults(opt)
    opt.levels = _ptr("float *", lv)
    opt.nlevels = len(lv)
    opt.walls = _choice(walls, _WALLS, "walls")
    opt.normals = bool(normals)
    opt.areas = bool(areas)
    out = ffi.new("strata_result **")
    ctx.call("strata_slice", lib.strata_slice, mesh._ptr, opt, out,
             detail="%d levels" % len(lv), progress=progress)
    r = Result(out[0])
    if mesh.up != "y":
        st = lib.strata_result_rotate_from_y_up(r._ptr, _AXES[mesh.up])
        if st:
            raise StrataError("strata_result_rotate_from_y_up", st)
    return r


class Result:
    """A terraced mesh: vertices, one index array ordered by terrace, and
    per terrace the ranges of its roofs and walls.  Arrays are read-only
    views unless they say otherwise; they keep the result alive."""

    def __init__(self, ptr):
        self._ptr = ffi.gc(ptr, lib.strata_result_destroy)
        self._v = ffi.new("strata_result_view *")
        lib.strata_result_get_view(self._ptr, self._v)

    @property
    def vertex_count(self):
        return self._v.nverts

    @property
    def triangle_count(self):
        return self._v.nindices // 3

    @property
    def x(self):
        return _view(self, self._v.x, self._v.nverts, np.float32)

    @property
    def y(self):
        return _view(self, self._v.y, self._v.nverts, np.float32)

    @property
    def z(self):
        return _view(self, self._v.z, self._v.nverts, np.float32)

    @property
    def vertices(self):
        """(n, 3) float32 positions (a copy: the library keeps x, y, z apart)."""
        return np.stack([self.x, self.y, self.z], 1)

    @property
    def normals(self):
        """(n, 3) float32 normals (a copy), or None when sliced without."""
        v = self._v
        if v.nx == ffi.NULL:
            return None
        return np.stack([_view(self, p, v.nverts, np.float32) for p in (v.nx, v.ny, v.nz)], 1)

    @property
    def faces(self):
        """(m, 3) uint32 vertex ids, counter-clockwise (a view)."""
        return _view(self, self._v.indices, self._v.nindices, np.uint32, (-1, 3))

    @property
    def terraces(self):
        """Per terrace: level, roof_first, roof_count, wall_first,
        wall_count (in indices: 3 a triangle), roof_area, wall_area (a
        structured view; areas 0 unless sliced with areas=True)."""
        return _view(self, self._v.terraces, self._v.nterraces, TERRACE_DTYPE)

    @property
    def levels(self):
        return self.terraces["level"].copy()

    @property
    def walls(self):
        return {v: k for k, v in _WALLS.items()}[self._v.walls]

    @property
    def radial(self):
        return self._v.geometry == 1

    def roof_faces(self, k):
        """(r, 3) view of terrace k's roof triangles."""
        t = self.terraces[k]
        return self.faces[int(t["roof_first"]) // 3:int(t["roof_first"] + t["roof_count"]) // 3]

    def wall_faces(self, k):
        """(w, 3) view of terrace k's wall triangles."""
        t = self.terraces[k]
        return self.faces[int(t["wall_first"]) // 3:int(t["wall_first"] + t["wall_count"]) // 3]

    def face_terrace(self):
        """Per triangle its terrace and whether it is a wall: two arrays
        (int32, bool) of triangle_count (copies), e.g. for materials."""
        n = self.triangle_count
        terrace = np.full(n, -1, np.int32)
        wall = np.zeros(n, bool)
        for k, t in enumerate(self.terraces):
            terrace[int(t["roof_first"]) // 3:int(t["roof_first"] + t["roof_count"]) // 3] = k
            a, b = int(t["wall_first"]) // 3, int(t["wall_first"] + t["wall_count"]) // 3
            terrace[a:b] = k
            wall[a:b] = True
        return terrace, wall

    def write(self, path, format=None, palette=None, compress=False, ctx=None, progress=None):
        """Write .ply, .obj (+ .mtl), .glb or .stl (format: from the
        extension, or "ply", "obj", "glb", "stl").  palette: a preset name
        ("earth", "desert", "ice", "mono") or a palette file.  The file
        appears whole or not at all."""
        ctx = _ctx(ctx)
        path = os.fsencode(path)
        opt = ffi.new("strata_write_options *")
        lib.strata_write_defaults(opt)
        opt.format = _choice(format, _FORMATS, "format")
        opt.compress = bool(compress)
        pal = _palette(palette)  # kept alive through the call
        opt.palette = pal
        ctx.call("strata_result_write", lib.strata_result_write, self._ptr, path, opt,
                 detail=os.fsdecode(path), progress=progress)

    def loops(self, ctx=None, progress=None):
        """The contour loops of this slice (made without normals): Loops."""
        ctx = _ctx(ctx)
        out = ffi.new("strata_loops **")
        ctx.call("strata_loops_from_result", lib.strata_loops_from_result, self._ptr, out,
                 progress=progress)
        loops = Loops(out[0])
        loops._keep = self  # its vertex ids refer to this result
        return loops


# ------------------------------------------------------------------ loops

class Loops:
    """Contour polylines per plane (closed loops, and open lines from
    border to border), uphill on the right."""

    def __init__(self, ptr, domain=None):
        self._ptr = ffi.gc(ptr, lib.strata_loops_destroy)
        self._v = ffi.new("strata_loops_view *")
        lib.strata_loops_get_view(self._ptr, self._v)
        self._domain = domain  # contours(): what polygons and SVG need

    @property
    def levels(self):
        return _view(self, self._v.levels, self._v.nplanes, np.float32)

    @property
    def records(self):
        """Per polyline: plane, closed, first, count, length, area (a
        structured view)."""
        return _view(self, self._v.loops, self._v.nloops, LOOP_DTYPE)

    @property
    def plane_first(self):
        """nplanes + 1 offsets: plane k's polylines are records[plane_first[k]:plane_first[k+1]]."""
        return _view(self, self._v.plane_first, self._v.nplanes + 1 if self._v.nplanes else 0,
                     np.uint64)

    @property
    def points(self):
        """(n, 3) float32 points of all polylines (a copy)."""
        v = self._v
        return np.stack([_view(self, p, v.npoints, np.float32) for p in (v.x, v.y, v.z)], 1)

    def __len__(self):
        return self._v.nloops

    def arrays(self, plane=None):
        """The polylines as a list of (count, 3) float32 arrays (a closed
        loop's first point not repeated), of one plane or all."""
        rec = self.records
        if plane is not None:
            pf = self.plane_first
            rec = rec[int(pf[plane]):int(pf[plane + 1])]
        pts = self.points
        return [pts[int(r["first"]):int(r["first"]) + int(r["count"])] for r in rec]

    def write(self, path, format=None, polygons=False, svg_scale=1.0, ctx=None, progress=None):
        """Write .geojson/.json (lines, or band polygons with
        polygons=True), .svg (laser-cut layers) or .obj polylines.
        Polygons and SVG need loops of strata.contours()."""
        ctx = _ctx(ctx)
        opt = ffi.new("strata_loops_write_options *")
        lib.strata_loops_write_defaults(opt)
        opt.format = _choice(format, _LOOP_FORMATS, "format")
        opt.polygons = bool(polygons)
        opt.svg_scale = svg_scale
        if self._domain is not None:
            d = self._domain
            opt.origin = d["origin"]
            opt.has_domain = 1
            opt.domain = d["domain"]
            opt.corner_height = d["corner"]
            opt.height_min, opt.height_max = d["range"]
        path = os.fsencode(path)
        ctx.call("strata_loops_write", lib.strata_loops_write, self._ptr, path, opt,
                 detail=os.fsdecode(path), progress=progress)


def contours(grid, levels, cell_size=1.0, height_scale=1.0, ctx=None, progress=None):
    """The contour loops of a (rows, columns) grid of heights at the plane
    heights `levels`, as `strata contours` traces a heightmap (the grid's
    two triangles a cell; row 0 is the north edge).  Points are in the
    frame of strata.terrain's grids: x = (column - (columns-1)/2) x
    cell_size, z = (row - (rows-1)/2) x cell_size, y the height.  Plane 0
    of the Loops lies below everything (no lines): plane k is levels[k-1].
    The Loops write GeoJSON (X = column x cell_size, Y = (rows-1-row) x
    cell_size), band polygons and SVG as the program does."""
    ctx = _ctx(ctx)
    g = np.asarray(grid)
    if g.ndim != 2:
        raise ValueError("grid: expected a 2-D array of heights, got shape %s" % (g.shape,))
    rows, cols = g.shape
    scaled = g.astype(np.float32) * np.float32(height_scale)
    hmin, hmax = float(np.nanmin(scaled)), float(np.nanmax(scaled))
    given = _float_array(levels, "levels")
    # plane 0 just below every height and level (as the program does):
    # everything below plane 0 is terrace 0, which has no lines
    low = min(float(given[0]), hmin) if len(given) else hmin
    lv = np.concatenate([[np.nextafter(np.float32(low), np.float32(-np.inf))], given])
    lv = lv.astype(np.float32)
    # The samples as a little-endian PFM in memory (rows bottom to top),
    # which strata_heightmap_decode takes as they are.
    data = (b"Pf\n%d %d\n-1.0\n" % (cols, rows) +
            np.ascontiguousarray(g[::-1], dtype="<f4").tobytes())
    hm = ffi.new("strata_heightmap **")
    ctx.call("strata_heightmap_decode", lib.strata_heightmap_decode, ffi.from_buffer(data),
             len(data), hm,
             detail="a %d x %d grid" % (rows, cols))
    hm = ffi.gc(hm[0], lib.strata_heightmap_destroy)
    out = ffi.new("strata_loops **")
    ctx.call("strata_loops_from_heightmap", lib.strata_loops_from_heightmap, hm, cell_size,
             height_scale, _ptr("float *", lv), len(lv), out,
             detail="%d levels" % len(lv), progress=progress)
    cs = np.float32(cell_size)
    domain = {
        "origin": [0.5 * (cols - 1) * cell_size, 0.5 * (rows - 1) * cell_size],
        "domain": [float(np.float32(-0.5 * (cols - 1) * float(cs))),
                   float(np.float32(-0.5 * (rows - 1) * float(cs))),
                   float(np.float32(0.5 * (cols - 1) * float(cs))),
                   float(np.float32(0.5 * (rows - 1) * float(cs)))],
        "corner": float(scaled[0, 0]),
        "range": (hmin, hmax),
    }
    return Loops(out[0], domain)


# ------------------------------------------------------------------ worlds

def _palette(palette):
    """A strata_palette from a preset name or a file (None: NULL)."""
    if palette is None:
        return ffi.NULL
    pal = ffi.new("strata_palette *")
    name = os.fsencode(palette)
    if lib.strata_palette_preset(name, pal):
        st = lib.strata_palette_load(name, pal)
        if st:
            raise StrataError("strata_palette_load", st, "palette %r" % (palette,),
                              ffi.errno if st == IO else 0)
    return pal


def world(path, kind="planet", level=6, chunk_level=2, radius=1.0, cells=256, size=10.0,
          tile_cells=None, terraces=None, levels=None, walls="upper", normals=None, lod=False,
          skirts=True, tile_format="glb", compress=False, palette=None, seed=1,
          noise="simplex", frequency=None, amplitude=None, octaves=6, lacunarity=2.0,
          gain=0.5, resume=False, ctx=None, progress=None):
    """Make a world into the directory `path`, chunk by chunk in bounded
    memory, as `strata planet --chunk-level C -o DIR` or `strata terrain
    --tile-cells N -o DIR` does (the same options and defaults, the same
    bytes): DIR/world.json, a tile per chunk under DIR/tiles/ and the 3D
    Tiles DIR/tileset.json.  kind "planet" (level, chunk_level, radius) or
    "terrain" (a grid of cells x cells of side size, cut into tiles of
    tile_cells).  normals: None (the default) as the program, on for glb
    tiles and off for PLY.  PLY tiles get no tileset.json (no 3D Tiles
    client loads PLY).  Returns a dict: chunks, made, skipped, triangles,
    bytes."""
    ctx = _ctx(ctx)
    opt = ffi.new("strata_world_options *")
    lib.strata_world_defaults(opt)
    if kind == "planet":
        opt.kind = 0
        opt.level = _int(level, "level", 1, 13)
        opt.chunk_level = _int(chunk_level, "chunk_level", 0, level - 1)
        if not radius > 0:
            raise ValueError("radius: %r must be > 0" % (radius,))
        opt.radius = radius
        f = _fbm(seed, noise, octaves, (1.5 if frequency is None else frequency) / radius,
                 lacunarity, gain, 0.1 * radius if amplitude is None else amplitude)
    elif kind == "terrain":
        opt.kind = 1
        n = _int(cells, "cells", 1, 65535)
        if tile_cells is None:
            raise ValueError("tile_cells: a terrain world needs its tile side in cells")
        opt.tile_cells = _int(tile_cells, "tile_cells", 1, 65535)
        if not size > 0:
            raise ValueError("size: %r must be > 0" % (size,))
        opt.cells_x = opt.cells_z = n
        opt.cell_size = size / n
        f = _fbm(seed, noise, octaves, 3.0 / size if frequency is None else frequency,
                 lacunarity, gain, 0.15 * size if amplitude is None else amplitude)
    else:
        raise ValueError("kind: %r is not one of 'planet', 'terrain'" % (kind,))
    opt.noise = f
    if levels is not None:
        lv = _float_array(levels, "levels")
        opt.levels = _ptr("float *", lv)
        opt.nlevels = len(lv)
    else:
        opt.terraces = _int((16 if kind == "planet" else 12) if terraces is None else terraces,
                            "terraces", 1, 65535)
    opt.walls = _choice(walls, _WALLS, "walls")
    opt.normals = tile_format == "glb" if normals is None else bool(normals)
    opt.lod = bool(lod)
    opt.skirts = bool(skirts)
    fmt = {"glb": 3, "ply": 1}.get(tile_format)
    if fmt is None:
        raise ValueError("tile_format: %r is not one of 'glb', 'ply'" % (tile_format,))
    pal = _palette(palette)
    out = ffi.new("strata_world **")
    ctx.call("strata_world_create", lib.strata_world_create, opt, out, progress=progress)
    w = ffi.gc(out[0], lib.strata_world_destroy)
    dout = ffi.new("strata_world_dir **")
    name = os.fsencode(path)
    ctx.call("strata_world_dir_create", lib.strata_world_dir_create, w, name, fmt, dout,
             detail=os.fsdecode(name))
    d = ffi.gc(dout[0], lib.strata_world_dir_close)
    # as the program does: this run alone writes the directory
    holder = ffi.new("long *")
    st = lib.strata_world_dir_lock(d, 1, holder)
    if st:
        raise StrataError("strata_world_dir_lock", st,
                          "%s: in use by process %d" % (os.fsdecode(name), holder[0]))
    if compress:
        st = lib.strata_world_dir_set_compress(d, 1)
        if st:
            raise StrataError("strata_world_dir_set_compress", st)
    ro = ffi.new("strata_world_run_options *")
    lib.strata_world_run_defaults(ro)
    ro.dir = d
    ro.palette = pal
    ro.resume = bool(resume)
    nchunks = lib.strata_world_chunk_count(w)
    ids = np.arange(nchunks, dtype=np.uint64)
    ro.ids = _ptr("uint64_t *", ids)
    ro.nids = nchunks
    stats = ffi.new("strata_world_run_stats *")
    ctx.call("strata_world_run", lib.strata_world_run, w, ro, stats,
             detail=os.fsdecode(name), progress=progress)
    # every tile's record, read back, for the tileset
    recs = ffi.new("strata_tile_record[]", max(nchunks, 1))
    for i in range(nchunks):
        ctx.call("strata_world_dir_read_tile", lib.strata_world_dir_read_tile, d, i, recs + i,
                 detail="tile %d" % i)
    ctx.call("strata_world_dir_clean", lib.strata_world_dir_clean, d, ffi.NULL)
    if fmt == 3:  # glb: PLY tiles get no tileset
        ctx.call("strata_world_dir_write_tileset", lib.strata_world_dir_write_tileset, d, recs,
                 nchunks, detail=os.fsdecode(name))
    return {"chunks": nchunks, "made": stats.made, "skipped": stats.skipped,
            "triangles": stats.triangles, "bytes": stats.bytes}

