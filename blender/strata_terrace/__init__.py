"""Blender add-on: terrace the active mesh object in place with libstrata.

Object > Strata Terrace (bpy.ops.object.strata_terrace): the mesh's
triangles (its faces fan-triangulated as Blender's loop triangles) are cut
into flat terraces joined by vertical walls by the strata Python module
(python/ in the strata sources; `make install` puts it where Debian's
python3, Blender's python, finds it), and the mesh is replaced by the
result.  Terraces: a count spread over the heights, or explicit levels.
Heights run up the object's local Z axis, or radially from its origin (a
planet).  Each terrace gets a material slot ("terrace_K", and "walls_K"
with the walls separate), so terraces can be coloured one by one.
"""

bl_info = {
    "name": "Strata Terrace",
    "author": "strata",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "View3D > Object > Strata Terrace",
    "description": "Terrace the active mesh: flat terraces and vertical walls (libstrata)",
    "category": "Object",
}

import bpy
import numpy as np


def _mesh_arrays(mesh):
    """Vertices (n, 3) float32 and triangles (m, 3) uint32 of a mesh."""
    mesh.calc_loop_triangles()
    v = np.empty(len(mesh.vertices) * 3, np.float32)
    mesh.vertices.foreach_get("co", v)
    t = np.empty(len(mesh.loop_triangles) * 3, np.int32)
    mesh.loop_triangles.foreach_get("vertices", t)
    return v.reshape(-1, 3), t.reshape(-1, 3).astype(np.uint32)


def _parse_levels(text):
    try:
        return [float(x) for x in text.replace(";", ",").split(",") if x.strip()]
    except ValueError:
        raise ValueError("levels: %r is not a list of numbers separated by commas" % text)


def terrace_mesh(mesh, terraces=8, levels=None, radial=False, walls="upper", radius=0.0):
    """Replace mesh's geometry by its terraced version, with one material
    per terrace ("terrace_K"; and one per terrace's walls, "walls_K", when
    walls == "separate"); returns the strata Result."""
    import strata

    v, t = _mesh_arrays(mesh)
    if len(t) == 0:
        raise ValueError("the mesh has no faces")
    if radial:
        m = strata.Mesh(v, t, radial=True, center=(0.0, 0.0, 0.0),
                        radius=radius if radius > 0 else None)
    else:
        m = strata.Mesh(v, t, up="z")
    r = strata.slice(m, levels=levels, terraces=terraces, walls=walls)
    terrace, wall = r.face_terrace()
    faces = r.faces
    mesh.clear_geometry()
    mesh.vertices.add(r.vertex_count)
    mesh.vertices.foreach_set("co", r.vertices.ravel())
    n = len(faces)
    mesh.loops.add(3 * n)
    mesh.loops.foreach_set("vertex_index", faces.astype(np.int32).ravel())
    mesh.polygons.add(n)
    mesh.polygons.foreach_set("loop_start", np.arange(0, 3 * n, 3, dtype=np.int32))
    mesh.polygons.foreach_set("loop_total", np.full(n, 3, np.int32))
    names = ["terrace_%d" % k for k in range(len(r.terraces))]
    if walls == "separate":
        names += ["walls_%d" % k for k in range(len(r.terraces))]
    mesh.materials.clear()  # first: validate() clamps indices to the slots
    for name in names:
        mesh.materials.append(bpy.data.materials.get(name) or bpy.data.materials.new(name))
    slot = terrace.copy()
    if walls == "separate":  # walls after all roofs' slots
        slot[wall] += len(r.terraces)
    mesh.polygons.foreach_set("material_index", slot.astype(np.int32))
    mesh.update(calc_edges=True)
    mesh.validate()
    return r


def terrace_object(obj, terraces=8, levels=None, radial=False, walls="upper", radius=0.0):
    """Terrace obj's mesh: its material slots become the terraces'."""
    return terrace_mesh(obj.data, terraces, levels, radial, walls, radius)


class OBJECT_OT_strata_terrace(bpy.types.Operator):
    """Cut the active mesh into flat terraces joined by vertical walls"""

    bl_idname = "object.strata_terrace"
    bl_label = "Strata Terrace"
    bl_options = {"REGISTER", "UNDO"}

    terraces: bpy.props.IntProperty(
        name="Terraces", description="Planes spread evenly over the heights",
        default=8, min=1, max=65535)
    levels: bpy.props.StringProperty(
        name="Levels", description="Explicit ascending plane heights, comma-separated "
        "(empty: use Terraces)", default="")
    heights: bpy.props.EnumProperty(
        name="Heights", default="UP",
        items=[("UP", "Up (local Z)", "Heights along the object's local Z axis"),
               ("RADIAL", "Radial", "Heights as distances from the object's origin (a planet)")])
    radius: bpy.props.FloatProperty(
        name="Radius", description="Radial heights: the base radius (0: the mean distance "
        "of the vertices from the origin)", default=0.0, min=0.0)
    walls: bpy.props.EnumProperty(
        name="Walls", default="upper",
        items=[("upper", "Upper", "A wall belongs to the terrace above it"),
               ("lower", "Lower", "A wall belongs to the terrace below it"),
               ("separate", "Separate", "Walls get material slots of their own")])

    @classmethod
    def poll(cls, context):
        obj = context.active_object
        return obj is not None and obj.type == "MESH" and obj.mode == "OBJECT"

    def execute(self, context):
        try:
            levels = _parse_levels(self.levels) or None
            r = terrace_object(context.active_object, self.terraces, levels,
                               self.heights == "RADIAL", self.walls, self.radius)
        except Exception as e:  # strata.StrataError, ValueError: the message says it
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        self.report({"INFO"}, "%d triangles in %d terraces" % (r.triangle_count,
                                                               len(r.terraces)))
        return {"FINISHED"}


def _menu(self, context):
    self.layout.operator(OBJECT_OT_strata_terrace.bl_idname)


def register():
    bpy.utils.register_class(OBJECT_OT_strata_terrace)
    bpy.types.VIEW3D_MT_object.append(_menu)


def unregister():
    bpy.types.VIEW3D_MT_object.remove(_menu)
    bpy.utils.unregister_class(OBJECT_OT_strata_terrace)
