"""The part of core/strata.h the module calls, and the library it opens.

cffi in ABI mode: these declarations are copied from core/strata.h (enums
as int, which is their size and alignment in C) and the shared library is
opened with dlopen, so installing the module compiles nothing.  A copy can
drift from the header: python/tests/test_strata.py compiles a C program
that prints every struct's size and field offsets from the real header and
compares them with what cffi computes from these declarations.
"""

import ctypes.util
import os

import cffi

# OpenMP worker threads that spin while the interpreter exits crash the
# process now and then (a segfault after the script's last line: 8 of 80
# runs of the README example, none of 80 with passive waiting).  The
# cause is not found yet; until it is, workers sleep when idle unless the
# user chose otherwise.  libgomp reads this when libstrata loads it, so it
# is set before the library is opened.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

CDEF = """
typedef int strata_status;
typedef int strata_geometry;
typedef int strata_noise_kind;
typedef int strata_walls;
typedef int strata_format;
typedef int strata_loops_format;
typedef int strata_axis;
typedef int strata_isa;
typedef int strata_curve_kind;

typedef struct strata_ctx strata_ctx;
typedef struct strata_mesh strata_mesh;
typedef struct strata_result strata_result;
typedef struct strata_loops strata_loops;
typedef struct strata_heightmap strata_heightmap;
typedef struct strata_curve strata_curve;
typedef struct strata_allocator strata_allocator;

const char *strata_version(void);
const char *strata_status_str(strata_status s);

typedef int (*strata_progress_fn)(void *user, const char *stage, double done);
typedef struct strata_ctx_options {
    int threads;
    const strata_allocator *allocator;
} strata_ctx_options;
void strata_ctx_defaults(strata_ctx_options *opt);
strata_status strata_ctx_create(const strata_ctx_options *opt, strata_ctx **out);
void strata_ctx_destroy(strata_ctx *ctx);
strata_status strata_ctx_set_threads(strata_ctx *ctx, int n);
int strata_ctx_threads(const strata_ctx *ctx);
void strata_ctx_set_progress(strata_ctx *ctx, strata_progress_fn fn, void *user);
void strata_ctx_set_sync(strata_ctx *ctx, int on);
void strata_ctx_cancel(strata_ctx *ctx);
void strata_ctx_reset_cancel(strata_ctx *ctx);
strata_isa strata_ctx_isa(const strata_ctx *ctx);
const char *strata_isa_name(strata_isa isa);

typedef struct strata_mesh_view {
    uint32_t nverts, ntris, nedges;
    strata_geometry geometry;
    float center[3];
    float radius;
    const float *x, *y, *z, *h;
    const uint32_t *a, *b, *c;
    const uint32_t *e0, *e1, *e2;
    const uint32_t *ev0, *ev1;
} strata_mesh_view;
void strata_mesh_get_view(const strata_mesh *m, strata_mesh_view *v);
void strata_mesh_destroy(strata_mesh *m);
strata_status strata_mesh_create(strata_ctx *ctx, const float *xyz, uint32_t nverts,
                                 const uint32_t *tris, uint32_t ntris, strata_mesh **out);
strata_status strata_mesh_set_geometry(strata_mesh *m, strata_geometry g,
                                       const float *center, float r);
strata_status strata_shape_polygon(strata_ctx *ctx, int sides, float r, strata_mesh **out);
strata_status strata_shape_grid(strata_ctx *ctx, uint32_t nx, uint32_t nz, float cell,
                                strata_mesh **out);
strata_status strata_shape_icosphere(strata_ctx *ctx, int level, float r, strata_mesh **out);
strata_status strata_mesh_subdivide(strata_ctx *ctx, const strata_mesh *m, int depth,
                                    unsigned flags, strata_mesh **out);

typedef struct strata_fbm {
    strata_noise_kind kind;
    uint32_t seed;
    int octaves;
    float frequency;
    float lacunarity;
    float gain;
    float amplitude;
} strata_fbm;
void strata_fbm_defaults(strata_fbm *f);
strata_status strata_fbm_validate(const strata_fbm *f);
float strata_fbm_bound(const strata_fbm *f);
strata_status strata_curve_create(strata_ctx *ctx, strata_curve_kind kind, const float *xs,
                                  const float *ys, size_t n, strata_curve **out);
void strata_curve_destroy(strata_curve *c);
strata_status strata_displace_flat(strata_ctx *ctx, strata_mesh *m, const strata_fbm *f,
                                   const strata_curve *curve);
strata_status strata_displace_radial(strata_ctx *ctx, strata_mesh *m, const strata_fbm *f,
                                     const strata_curve *curve);

strata_status strata_heightmap_decode(strata_ctx *ctx, const void *data, size_t len,
                                      strata_heightmap **out);
void strata_heightmap_destroy(strata_heightmap *hm);

strata_status strata_levels_validate(const float *levels, uint32_t n);
strata_status strata_mesh_height_range(const strata_mesh *m, float *hmin, float *hmax);
strata_status strata_levels_uniform(const strata_mesh *m, uint32_t n,
                                    const strata_curve *curve, float *levels);

typedef struct strata_slice_options {
    const float *levels;
    uint32_t nlevels;
    strata_walls walls;
    int normals;
    int areas;
} strata_slice_options;
void strata_slice_defaults(strata_slice_options *opt);
strata_status strata_slice(strata_ctx *ctx, const strata_mesh *m,
                           const strata_slice_options *opt, strata_result **out);
strata_status strata_result_from_mesh(strata_ctx *ctx, const strata_mesh *m, int normals,
                                      strata_result **out);
void strata_result_destroy(strata_result *r);

typedef struct strata_terrace {
    float level;
    uint64_t roof_first, roof_count;
    uint64_t wall_first, wall_count;
    double roof_area;
    double wall_area;
} strata_terrace;
typedef struct strata_result_view {
    uint32_t nverts;
    const float *x, *y, *z;
    const float *nx, *ny, *nz;
    uint64_t nindices;
    const uint32_t *indices;
    uint32_t nterraces;
    const strata_terrace *terraces;
    strata_walls walls;
    strata_geometry geometry;
    float center[3];
    float radius;
    uint64_t water_first, water_count;
    uint64_t shore_first, shore_count;
    uint32_t uv_first, nuv;
    const float *uv;
    const uint8_t *ao;
    const uint8_t *rgb;
} strata_result_view;
void strata_result_get_view(const strata_result *r, strata_result_view *v);
strata_status strata_result_rotate_from_y_up(strata_result *r, strata_axis up);

typedef struct strata_loop {
    uint32_t plane;
    uint32_t closed;
    uint64_t first;
    uint32_t count;
    double length;
    double area;
} strata_loop;
typedef struct strata_loops_view {
    uint32_t nplanes;
    const float *levels;
    const uint64_t *plane_first;
    uint64_t nloops;
    const strata_loop *loops;
    uint64_t npoints;
    const float *x, *y, *z;
    const uint32_t *vertex;
    strata_geometry geometry;
    float center[3];
    float radius;
} strata_loops_view;
strata_status strata_loops_from_result(strata_ctx *ctx, const strata_result *r,
                                       strata_loops **out);
strata_status strata_loops_from_heightmap(strata_ctx *ctx, const strata_heightmap *hm,
                                          float cell_size, float height_scale,
                                          const float *levels, uint32_t nlevels,
                                          strata_loops **out);
void strata_loops_get_view(const strata_loops *l, strata_loops_view *v);
void strata_loops_destroy(strata_loops *l);

typedef struct strata_loops_write_options {
    strata_loops_format format;
    int polygons;
    double origin[2];
    double scale;
    int has_domain;
    float domain[4];
    float corner_height;
    float height_min, height_max;
    double svg_scale;
    int up;
    const char *driver;
    int has_transform;
    double transform[6];
    const char *crs;
    int lonlat;
} strata_loops_write_options;
void strata_loops_write_defaults(strata_loops_write_options *opt);
strata_status strata_loops_write(strata_ctx *ctx, const strata_loops *l, const char *path,
                                 const strata_loops_write_options *opt);

typedef struct strata_palette {
    uint32_t nstops;
    unsigned char rgb[256][3];
} strata_palette;
strata_status strata_palette_preset(const char *name, strata_palette *out);
strata_status strata_palette_load(const char *path, strata_palette *out);

typedef struct strata_write_options {
    strata_format format;
    const strata_palette *palette;
    int compress;
    const struct strata_props *props;
} strata_write_options;
void strata_write_defaults(strata_write_options *opt);
strata_status strata_result_write(strata_ctx *ctx, const strata_result *r, const char *path,
                                  const strata_write_options *opt);

typedef struct strata_world strata_world;
typedef struct strata_world_dir strata_world_dir;
typedef struct strata_preview_canvas strata_preview_canvas;
typedef int strata_world_kind;
typedef struct strata_world_options {
    strata_world_kind kind;
    int level;
    int chunk_level;
    float radius;
    const strata_heightmap *heightmap;
    uint32_t patch_cells;
    uint32_t cells_x, cells_z;
    float cell_size;
    float height_scale;
    uint32_t tile_cells;
    const strata_fbm *noise;
    const strata_curve *curve;
    const float *levels;
    uint32_t nlevels;
    uint32_t terraces;
    const strata_curve *terrace_curve;
    int sea;
    float sea_level;
    strata_walls walls;
    int normals;
    int lod;
    int skirts;
    double simplify_roofs;
    int water;
    uint32_t water_level;
    const void *props;
    float shoreline;
    int loops;
    int ao;
    float ao_radius;
    int place;
    double place_lon, place_lat, place_height, place_scale;
    double place_heading;
    int solid;
    float solid_depth;
} strata_world_options;
void strata_world_defaults(strata_world_options *opt);
strata_status strata_world_create(strata_ctx *ctx, const strata_world_options *opt,
                                  strata_world **out);
void strata_world_destroy(strata_world *w);
uint64_t strata_world_chunk_count(const strata_world *w);
uint64_t strata_world_leaf_count(const strata_world *w);
const float *strata_world_levels(const strata_world *w, uint32_t *n);
typedef struct strata_tile_record {
    uint64_t id;
    uint64_t triangles;
    uint64_t bytes;
    double box[12];
} strata_tile_record;
strata_status strata_world_dir_create(strata_ctx *ctx, const strata_world *w, const char *path,
                                      strata_format format, strata_world_dir **out);
void strata_world_dir_close(strata_world_dir *d);
strata_status strata_world_dir_lock(strata_world_dir *d, int exclusive, long *holder);
strata_status strata_world_dir_set_compress(strata_world_dir *d, int on);
strata_status strata_world_dir_read_tile(strata_ctx *ctx, strata_world_dir *d, uint64_t id,
                                         strata_tile_record *rec);
strata_status strata_world_dir_clean(strata_ctx *ctx, strata_world_dir *d, uint64_t *removed);
strata_status strata_world_dir_write_tileset(strata_ctx *ctx, strata_world_dir *d,
                                             const strata_tile_record *recs, uint64_t n);
typedef struct strata_world_run_options {
    strata_world_dir *dir;
    const strata_palette *palette;
    int resume;
    const uint64_t *ids;
    uint64_t nids;
    uint64_t (*next)(void *user);
    void *next_user;
    void (*done)(void *user, const strata_tile_record *rec, int skipped);
    void *done_user;
    strata_preview_canvas *preview;
} strata_world_run_options;
typedef struct strata_world_run_stats {
    uint64_t made, skipped;
    uint64_t triangles, bytes;
    double seconds_lattice, seconds_noise, seconds_slice, seconds_write;
    uint64_t failed_chunk;
} strata_world_run_stats;
void strata_world_run_defaults(strata_world_run_options *opt);
strata_status strata_world_run(strata_ctx *ctx, const strata_world *w,
                               const strata_world_run_options *opt,
                               strata_world_run_stats *stats);

typedef int strata_brush;
typedef struct strata_edit {
    strata_brush brush;
    float center[3];
    float radius;
    float strength;
} strata_edit;
typedef struct strata_edits strata_edits;
typedef struct strata_colours strata_colours;
typedef struct strata_colours_error {
    uint32_t line;
    uint32_t field;
    char what[96];
} strata_colours_error;
strata_status strata_colours_parse(const char *text, size_t len, strata_colours **out,
                                   strata_colours_error *err);
strata_status strata_colours_load(const char *path, strata_colours **out,
                                  strata_colours_error *err);
strata_status strata_colours_preset(const char *name, strata_colours **out);
const char *strata_colours_preset_name(unsigned i);
const char *strata_colours_preset_text(const char *name);
void strata_colours_destroy(strata_colours *c);
strata_status strata_result_apply_colours(strata_ctx *ctx, strata_result *r,
                                          const strata_colours *c, const strata_palette *pal,
                                          const float *sea_level);

typedef struct strata_edits_error {
    uint64_t line;
    char field[16];
} strata_edits_error;
const char *strata_brush_name(strata_brush b);
strata_status strata_brush_from_name(const char *name, strata_brush *out);
strata_status strata_edit_validate(const strata_edit *e);
strata_status strata_edits_create(strata_edits **out);
void strata_edits_destroy(strata_edits *e);
uint64_t strata_edits_count(const strata_edits *e);
uint64_t strata_edits_redo_count(const strata_edits *e);
strata_status strata_edits_get(const strata_edits *e, uint64_t i, strata_edit *out);
strata_status strata_edits_append(strata_edits *e, const strata_edit *ed);
strata_status strata_edits_undo(strata_edits *e, strata_edit *undone);
strata_status strata_edits_redo(strata_edits *e, strata_edit *redone);
strata_status strata_edits_parse(strata_edits *e, const char *text, size_t len,
                                 strata_edits_error *err);
strata_status strata_edits_load(strata_edits *e, const char *path, strata_edits_error *err);
strata_status strata_edits_save(strata_ctx *ctx, const strata_edits *e, const char *path);
strata_status strata_mesh_apply_edits(strata_ctx *ctx, strata_mesh *m, const strata_edits *e,
                                      const strata_fbm *noise, const strata_curve *curve,
                                      const float *levels, uint32_t nlevels);
void strata_world_set_edits(strata_world *w, const strata_edits *e);
"""

# The structs test_strata.py checks against the header, with their fields.
STRUCTS = {
    "strata_ctx_options": ["threads", "allocator"],
    "strata_mesh_view": ["nverts", "ntris", "nedges", "geometry", "center", "radius", "x", "y",
                         "z", "h", "a", "b", "c", "e0", "e1", "e2", "ev0", "ev1"],
    "strata_fbm": ["kind", "seed", "octaves", "frequency", "lacunarity", "gain", "amplitude"],
    "strata_slice_options": ["levels", "nlevels", "walls", "normals", "areas"],
    "strata_terrace": ["level", "roof_first", "roof_count", "wall_first", "wall_count",
                       "roof_area", "wall_area"],
    "strata_result_view": ["nverts", "x", "y", "z", "nx", "ny", "nz", "nindices", "indices",
                           "nterraces", "terraces", "walls", "geometry", "center", "radius",
                           "water_first", "water_count", "shore_first", "shore_count",
                           "uv_first", "nuv", "uv", "ao", "rgb"],
    "strata_loop": ["plane", "closed", "first", "count", "length", "area"],
    "strata_loops_view": ["nplanes", "levels", "plane_first", "nloops", "loops", "npoints", "x",
                          "y", "z", "vertex", "geometry", "center", "radius"],
    "strata_loops_write_options": ["format", "polygons", "origin", "scale", "has_domain",
                                   "domain", "corner_height", "height_min", "height_max",
                                   "svg_scale", "up", "driver", "has_transform", "transform",
                                   "crs", "lonlat"],
    "strata_palette": ["nstops", "rgb"],
    "strata_write_options": ["format", "palette", "compress", "props"],
    "strata_world_options": ["kind", "level", "chunk_level", "radius", "heightmap",
                             "patch_cells", "cells_x", "cells_z", "cell_size", "height_scale",
                             "tile_cells", "noise", "curve", "levels", "nlevels", "terraces",
                             "terrace_curve", "sea", "sea_level", "walls", "normals", "lod",
                             "skirts", "simplify_roofs", "water", "water_level", "props",
                             "shoreline", "loops", "ao", "ao_radius", "place", "place_lon",
                             "place_lat", "place_height", "place_scale", "place_heading", "solid",
                             "solid_depth"],
    "strata_tile_record": ["id", "triangles", "bytes", "box"],
    "strata_edit": ["brush", "center", "radius", "strength"],
    "strata_edits_error": ["line", "field"],
    "strata_colours_error": ["line", "field", "what"],
    "strata_world_run_options": ["dir", "palette", "resume", "ids", "nids", "next",
                                 "next_user", "done", "done_user", "preview"],
    "strata_world_run_stats": ["made", "skipped", "triangles", "bytes", "seconds_lattice",
                               "seconds_noise", "seconds_slice", "seconds_write",
                               "failed_chunk"],
}

ffi = cffi.FFI()
ffi.cdef(CDEF)


def _candidates():
    """Where libstrata is looked for, in order."""
    env = os.environ.get("STRATA_LIBRARY")
    if env:
        return [env]  # asked for by name: no fallback that would hide a typo
    found = []
    try:
        from . import _libpath  # written by `make install`: its $(libdir)
        found.append(_libpath.LIBRARY)
    except ImportError:
        pass
    name = ctypes.util.find_library("strata")  # the system's loader cache
    if name:
        found.append(name)
    found.append("libstrata.so.0")
    return found


def _open():
    tried = []
    for path in _candidates():
        try:
            return ffi.dlopen(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("strata: cannot open the libstrata shared library; tried " +
                      "; ".join(tried) +
                      ". Install it (make install) or set STRATA_LIBRARY to its path")


lib, LIBRARY_PATH = _open()
