/* strata - the command line program: terraced planets and terrains.
 *
 *   strata planet  [options]      icosphere + 3D noise, sliced, written
 *   strata terrain [options]      grid / polygon / heightmap + 2D noise
 *   strata slice IN -o OUT        an existing mesh, sliced
 *   strata info                   version, ISA, threads, topology
 *
 * This file holds the program's two tables, its commands and its
 * options, from which cli.c parses the command line and makes every
 * --help; run.c does the work, progress.c draws the bar and handles
 * Ctrl-C, fail.c turns failures into messages.
 *
 * Exit status: 0 success, 1 runtime failure (files, library errors),
 * 2 usage error, 130 interrupted.  Every failure prints one line to stderr. */
#define _POSIX_C_SOURCE 200809L

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "bench.h"
#include "cli.h"
#include "fail.h"
#include "run.h"
#include "strata.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STR(x) #x
#define XSTR(x) STR(x) /* a macro's value as text, for --help */

/* ------------------------------------------------------------ checks */

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    if (n < m)
        return false;
    for (size_t i = 0; i < m; i++) {
        char c = s[n - m + i];
        if ((c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != suffix[i])
            return false;
    }
    return true;
}

static const char *check_output(const char *s)
{
    return has_suffix(s, ".ply") || has_suffix(s, ".obj") || has_suffix(s, ".glb") ||
                   has_suffix(s, ".stl")
               ? NULL
               : "unknown output format (the name must end in .ply, .obj, .glb or .stl)";
}

static const char *check_preview(const char *s)
{
    return has_suffix(s, ".png") ? NULL : "the image name must end in .png";
}

/* A preset name first, else a file (read when running: a bad one is a
 * runtime failure). */
static const char *check_palette(const char *s)
{
    strata_palette pal;
    return strata_palette_preset(s, &pal) == STRATA_OK || access(s, F_OK) == 0
               ? NULL
               : "neither a palette name (earth, desert, ice, mono) nor a file";
}

static const char *check_csv(const char *s)
{
    return has_suffix(s, ".csv") ? NULL : "the list's name must end in .csv";
}

/* --props-terraces A-B or A: terraces counted from 0, A <= B.  Whether
 * they exist is checked with the terrace count (check_props). */
static bool parse_span(const char *s, unsigned long long *a, unsigned long long *b)
{
    int used = 0;
    if (s[0] < '0' || s[0] > '9')
        return false;
    if (sscanf(s, "%llu%n", a, &used) != 1)
        return false;
    *b = *a;
    if (!s[used])
        return true;
    const char *t = s + used;
    int more = 0;
    return t[0] == '-' && t[1] >= '0' && t[1] <= '9' && sscanf(t + 1, "%llu%n", b, &more) == 1 &&
           !t[1 + more];
}

static const char *check_props_terraces(const char *s)
{
    unsigned long long a, b;
    if (!parse_span(s, &a, &b))
        return "expected A-B or A: terraces counted from 0 at the bottom";
    return a <= b ? NULL : "A must not be above B";
}

/* --props-heights LO:HI: two finite numbers, LO <= HI. */
static const char *check_props_heights(const char *s)
{
    double lo, hi;
    int used = 0;
    if (sscanf(s, "%lf:%lf%n", &lo, &hi, &used) != 2 || s[used] || !isfinite(lo) ||
        !isfinite(hi))
        return "expected LO:HI, two numbers (terrace levels: heights; planets: above the radius)";
    return lo <= hi ? NULL : "LO must not be above HI";
}

/* Where props go (a .glb, a CSV, a world's glb tiles), and
 * --props-terraces against the terraces the job makes. */
static void check_props(const job *j, bool world, bool planet)
{
    const char *v;
    if (j->props && world && j->tile_format != 0)
        usage_error("--props %s: a world's props are drawn in its glb tiles, not in "
                    "--tile-format ply",
                    cli_given("props"));
    if (world && (v = cli_given("props-csv")))
        usage_error("--props-csv %s: not available for worlds (each tile's props are instances "
                    "in its glb)",
                    v);
    if (j->props && !world && !j->props_csv && !has_suffix(j->output, ".glb"))
        usage_error("--props %s needs --props-csv FILE.csv or -o FILE.glb (where they are drawn)",
                    cli_given("props"));
    if (world && (v = cli_given("props-wall-foot")) && (j->lod || planet))
        usage_error("--props-wall-foot %s: not available for %s (a tile reads the walls of the "
                    "tiles around it: terrain worlds without --lod only)",
                    v, j->lod ? "--lod worlds" : "planet worlds");
    v = cli_given("props-terraces");
    unsigned long long a, b;
    if (!v || !parse_span(v, &a, &b))
        return;
    const long long n = (j->levels.n ? (long long)j->levels.n : j->terraces) + (j->sea ? 1 : 0);
    if (n <= 0)
        usage_error("--props-terraces %s: the mesh is not terraced (--terraces 0); props need "
                    "terraces", v);
    if (b >= (unsigned long long)n)
        usage_error("--props-terraces %s: terrace %llu does not exist (there are %lld: 0..%lld)",
                    v, b, n, n - 1);
}

/* --ao: where the occlusion goes, and planes to take the default radius
 * from. */
static void check_ao(const job *j, bool world, const char *world_opt)
{
    const char *v = cli_given("ao");
    if (!v)
        return;
    const char *eq = *v ? "=" : "";
    if (world && !strcmp(world_opt, "--chunk-level"))
        usage_error("--ao%s%s: not available for planet worlds (--chunk-level) yet: a tile's "
                    "occlusion needs its neighbours' surface within RADIUS, and the planet's "
                    "height grid (a cube map) is not cut into tiles; make one mesh, or a "
                    "terrain world",
                    eq, v);
    if (world && j->lod)
        usage_error("--ao%s%s: not with --lod: coarser tiles would need the occlusion of "
                    "their own surface around them (make the world without --lod)",
                    eq, v);
    if (world && j->simplify)
        usage_error("--ao%s%s: not with --simplify-roofs in worlds yet (a tile's occlusion is "
                    "made equal to the whole mesh's on roofs as the slicer makes them)",
                    eq, v);
    if (!world && !has_suffix(j->output, ".glb") && !has_suffix(j->output, ".ply") &&
        !j->preview)
        usage_error("--ao%s%s: -o %s cannot hold it (.glb writes COLOR_0, .ply vertex colours; "
                    "or draw it with --preview FILE.png)",
                    eq, v, j->output);
    const long long n = (j->levels.n ? (long long)j->levels.n : j->terraces) + (j->sea ? 1 : 0);
    if (!*v && n < 2)
        usage_error("--ao: the default radius is %g x the mean spacing of the planes, and "
                    "there are %lld; give --ao=RADIUS",
                    STRATA_AO_RADIUS_PLANES, n);
}

/* --uv: terrains, in a file that holds texture coordinates, and planes
 * to take the default texel from. */
static void check_uv(const job *j, bool world, bool planet)
{
    const char *v = cli_given("uv");
    if (!v)
        return;
    const char *eq = *v ? "=" : "";
    if (planet)
        usage_error("--uv%s%s: not available for planets yet (their roofs need a projection "
                    "without a visible seam, still to choose); terrains only",
                    eq, v);
    if (world)
        usage_error("--uv%s%s: not available for worlds yet; make one mesh", eq, v);
    if (j->solid)
        usage_error("--uv%s%s and --solid cannot be used together (a solid's outer walls and "
                    "base are not the slicer's wall quads that texture coordinates follow)",
                    eq, v);
    if (j->water || j->shore)
        usage_error("--uv%s%s and --%s cannot be used together (the %s has texture "
                    "coordinates of its own, not yet merged with the terrain's)",
                    eq, v, j->water ? "water" : "shoreline", j->water ? "water" : "shoreline");
    if (!has_suffix(j->output, ".glb") && !has_suffix(j->output, ".ply") &&
        !has_suffix(j->output, ".obj"))
        usage_error("--uv%s%s: -o %s cannot hold texture coordinates (.glb TEXCOORD_0, .ply "
                    "s and t, .obj vt; STL has none)",
                    eq, v, j->output);
    const long long n = (j->levels.n ? (long long)j->levels.n : j->terraces) + (j->sea ? 1 : 0);
    if (!*v && n < 2)
        usage_error("--uv: the default texel is the mean spacing of the planes, and there are "
                    "%lld; give --uv=TEXEL",
                    n);
}

/* --style: a built-in rule set. */
static const char *check_style(const char *s)
{
    return strata_colours_preset_text(s) ? NULL : "unknown style (cartoon, desert or snow)";
}

/* --colours and --style: one mesh (worlds refuse them for now), a file
 * or a preview that shows them. */
static void check_colours(const job *j, bool world, const char *world_opt)
{
    const char *opt = j->style ? "--style" : "--colours";
    const char *v = j->style ? j->style : j->colours;
    if (!v)
        return;
    if (world)
        usage_error("%s %s: not available for worlds (%s) yet: make one mesh (the rules are "
                    "per-triangle, but the tiles' vertex splits and skirts are not written "
                    "with colours)",
                    opt, v, world_opt);
    if (!has_suffix(j->output, ".glb") && !has_suffix(j->output, ".ply") && !j->preview)
        usage_error("%s %s: -o %s cannot hold the colours (.glb writes COLOR_0, .ply vertex "
                    "colours; or draw them with --preview FILE.png)",
                    opt, v, j->output);
}

/* --place: where on the Earth, or none. */
static const char *check_place(const char *s)
{
    double v[3];
    return strcmp(s, "none") ? value_place(s, v) : NULL;
}

/* --simd and STRATA_SIMD: an instruction set's name (whether this CPU has
 * it is found out when the context is made). */
static const char *check_simd(const char *s)
{
    strata_isa isa;
    return strata_isa_from_name(s, &isa) == STRATA_OK
               ? NULL
               : "unknown instruction set (auto, scalar, avx2, avx512 or neon)";
}

/* --compress: .glb files (or tiles) and a library with meshoptimizer. */
static void check_compress(const job *j, bool world)
{
    if (!j->compress)
        return;
    if (!strata_optimize_supported())
        usage_error("--compress: this strata was built without meshoptimizer, whose codecs "
                    "EXT_meshopt_compression uses (configure --with-meshoptimizer; Debian: "
                    "libmeshoptimizer-dev)");
    if (world && j->tile_format == 1)
        usage_error("--compress: needs glb tiles (--tile-format glb), not ply");
    if (!world && !has_suffix(j->output, ".glb"))
        usage_error("--compress: -o %s is not a .glb file (EXT_meshopt_compression is a glTF "
                    "extension; other formats cannot be compressed)",
                    j->output);
}

/* Normals: glb files and tiles get them unless --no-normals (CesiumJS
 * draws a glTF without NORMAL unlit, one flat colour), other formats only
 * with --normals; a solid shares its vertices, so none by default. */
static void check_normals(job *j, bool world)
{
    if (j->normals && j->no_normals)
        usage_error("--normals and --no-normals cannot be used together");
    const bool glb = world ? j->tile_format == 0 : has_suffix(j->output, ".glb");
    if (glb && !j->no_normals && !j->solid)
        j->normals = true;
}

/* -o: a mesh file, or for a world a directory. */
static void check_world_output(job *j, bool world, const char *world_opt)
{
    check_normals(j, world);
    static const char *const world_only[] = {"tile-format", "shard", "chunk", "resume",
                                             "dry-run", "lod", NULL};
    const char *v;
    for (int i = 0; world_only[i]; i++)
        if (!world && (v = cli_given(world_only[i])))
            usage_error("--%s%s%s needs %s (a world)", world_only[i], *v ? " " : "", v,
                        world_opt);
    check_ao(j, world, world_opt);
    check_uv(j, world, !strcmp(world_opt, "--chunk-level"));
    check_colours(j, world, world_opt);
    if (!world) {
        const char *why = check_output(j->output);
        if (why)
            usage_error("-o %s: %s", j->output, why);
        check_compress(j, false);
        return;
    }
    if (!cli_given("output"))
        usage_error("%s %s needs -o DIR, the directory of the world's tiles", world_opt,
                    cli_given(world_opt + 2));
    static const char *const partial[] = {"shard", "chunk", "resume", NULL};
    for (int i = 0; j->preview && partial[i]; i++)
        if ((v = cli_given(partial[i])))
            usage_error("--preview %s: draws a whole world made in one run; not with --%s%s%s "
                        "(look at the tiles with 'strata view DIR')",
                        j->preview, partial[i], *v ? " " : "", v);
    if ((v = cli_given("loops")) && has_suffix(v, ".obj"))
        usage_error("--loops %s: a world's loops are GeoJSON (.geojson or .json): each leaf "
                    "tile's beside it, joined into FILE",
                    v);
    static const char *const mesh_only[] = {"print-size", NULL};
    for (int i = 0; mesh_only[i]; i++)
        if ((v = cli_given(mesh_only[i])))
            usage_error("--%s: not available for worlds (%s); make the mesh without it",
                        mesh_only[i], world_opt);
    if (j->terraces == 0 && !j->levels.n && !j->sea)
        usage_error("--terraces 0: a world is always terraced (give N >= 1, --levels or "
                    "--sea-level)");
    check_compress(j, true);
}

/* --place: a world's tileset (glb tiles), its value kept for the run. */
static void check_placed(job *j, bool world, const char *world_opt)
{
    if (j->place && !strcmp(j->place, "none") && cli_given("place-scale"))
        usage_error("--place-scale %s: the world is not placed (--place none)",
                    cli_given("place-scale"));
    if (!j->place || !strcmp(j->place, "none"))
        return;
    if (!world)
        usage_error("--place %s needs %s (a world: the place is its tileset's root transform)",
                    j->place, world_opt);
    if (j->tile_format != 0)
        usage_error("--place %s: needs glb tiles and their tileset (--tile-format glb)",
                    j->place);
    value_place(j->place, j->place_at); /* checked by check_place */
}

static void check_slice(job *j)
{
    check_normals(j, false);
    check_compress(j, false);
    check_ao(j, false, NULL);
    check_uv(j, false, j->radial);
    check_colours(j, false, NULL);
}

/* --sculpt: a world, made by this one process, whose edits are its
 * log (apps/sculpt.c). */
static void check_sculpt(const job *j, bool world, const char *flag)
{
    if (!j->sculpt)
        return;
    if (!world)
        usage_error("--sculpt: edits a world: give %s", flag);
    static const char *const not_with[] = {"lod", "shard", "chunk", "dry-run", "resume",
                                           "edits", "preview", "loops", "place", NULL};
    for (int i = 0; not_with[i]; i++)
        if (cli_given(not_with[i]))
            usage_error("--sculpt and --%s cannot be used together (%s)", not_with[i],
                        !strcmp(not_with[i], "edits")
                            ? "the editor's log is DIR/edits.strata, which it continues"
                            : "the editor makes every chunk of the world in memory");
}

static void check_planet(job *j)
{
    const bool world = j->chunk_level >= 0;
    const char *v;
    check_props(j, world, true);
    if ((v = cli_given("solid")))
        usage_error("--solid%s%s: planets are closed surfaces already; it applies to terrains "
                    "(strata terrain: grid, polygon or heightmap)",
                    *v ? "=" : "", v);
    if (world && j->chunk_level >= j->level)
        usage_error("--chunk-level %lld: must be below --level %lld (each chunk holds 4^(L-C) "
                    "triangles)",
                    j->chunk_level, j->level);
    check_world_output(j, world, "--chunk-level");
    check_sculpt(j, world, "--chunk-level");
    check_placed(j, world, "--chunk-level");
    /* a plane is a sphere of radius R + H: H must be above -R (the slicer
     * says only "invalid terrace levels") */
    const float r = (float)j->radius;
    if ((v = cli_given("sea-level")) && !(r + (float)j->sea_level > 0.0f))
        usage_error("--sea-level %s: the sea would be a sphere of radius R + H = %g around the "
                    "centre; H must be above -R (%g for --radius %g)",
                    v, (double)(r + (float)j->sea_level), -(double)r, (double)r);
    if ((v = cli_given("levels")) && j->levels.n && !(r + j->levels.v[0] > 0.0f))
        usage_error("--levels %s: a plane at %g would be a sphere of radius R + L = %g around "
                    "the centre; planes must be above -R (%g for --radius %g)",
                    v, (double)j->levels.v[0], (double)(r + j->levels.v[0]), -(double)r,
                    (double)r);
}

/* What the terrain options cannot say in the table: shape options that
 * apply to one shape, worlds on grids. */
static void check_terrain(job *j)
{
    const char *v;
    if (j->shape == SHAPE_GRID && (v = cli_given("sides")))
        usage_error("--sides %s needs --shape polygon", v);
    if (j->shape == SHAPE_POLYGON && (v = cli_given("cells")))
        usage_error("--cells %s applies to --shape grid only", v);
    if (j->template_path && (v = cli_given("shape")))
        usage_error("--template and --shape %s cannot be used together", v);
    const bool world = j->tile_cells >= 0;
    check_props(j, world, false);
    if (j->solid && world && j->lod)
        usage_error("--solid: not with --lod: a coarser tile's border is not the leaves' "
                    "border, so it would need side walls and a base of its own, and its skirt "
                    "would hang through the walls (make the world without --lod)");
    if (j->solid && j->normals)
        usage_error("--solid and --normals cannot be used together (a solid shares its "
                    "vertices; STL has facet normals of its own)");
    if (world && j->shape == SHAPE_POLYGON)
        usage_error("--tile-cells %lld: worlds are grids (--shape grid, --heightmap or "
                    "--template), not polygons",
                    j->tile_cells);
    if (world && (v = cli_given("depth")))
        usage_error("--depth %s: not available for worlds (--tile-cells); use a finer grid "
                    "(--cells) or --template with more --patch-cells",
                    v);
    check_world_output(j, world, "--tile-cells");
    check_sculpt(j, world, "--tile-cells");
    check_placed(j, world, "--tile-cells");
}

/* strata contours: one way of choosing levels; the output's kind. */
static void check_contours(job *j)
{
    const char *v;
    if ((v = cli_given("base")) && !cli_given("interval"))
        usage_error("--base %s needs --interval", v);
    const bool svg = has_suffix(j->output, ".svg");
    const bool own = svg || has_suffix(j->output, ".geojson") || has_suffix(j->output, ".json");
    if (svg && j->format)
        usage_error("--format %s: -o %s is an SVG file, which strata writes itself; give -o a "
                    "name for the GDAL format (such as contours.gpkg)",
                    j->format, j->output);
    if (!own || j->format) {
        const char *driver;
        if (strata_loops_ogr_driver(j->output, j->format, &driver) == STRATA_OK)
            j->driver = driver;
        else if (j->format)
            usage_error("--format %s: not a vector format %s (accepted: the short name of a "
                        "GDAL vector driver that creates files, such as GPKG, FlatGeobuf, "
                        "GeoJSON or \"ESRI Shapefile\", as ogr2ogr -f takes it)",
                        j->format,
                        strata_gdal_support() ? "GDAL writes" : "(this strata has no GDAL)");
        else
            usage_error("-o %s: unknown output format (the name must end in .geojson, .json or "
                        ".svg%s; or name the driver with --format)",
                        j->output,
                        strata_gdal_support()
                            ? ", or in the extension of a vector format GDAL writes, such as "
                              ".gpkg, .fgb or .shp"
                            : "; other formats need a build with GDAL");
    }
    if (j->polygons && svg)
        usage_error("--polygons: GeoJSON only (an .svg file always holds regions)");
    if ((v = cli_given("svg-scale")) && !svg)
        usage_error("--svg-scale %s needs an .svg output", v);
    if ((v = cli_given("crs")) && svg)
        usage_error("--crs %s: an .svg file has no CRS (its layers are drawn in millimetres); "
                    "give a GeoJSON or GDAL output such as .geojson, .gpkg or .fgb",
                    v);
    if (j->crs == CONTOURS_CRS_NATIVE && (j->driver ? !strcmp(j->driver, "GeoJSON") : !svg))
        usage_error("--crs native: GeoJSON (RFC 7946, -o %s) holds longitude and latitude "
                    "only; write the raster's CRS to a GeoPackage (.gpkg) or FlatGeobuf (.fgb)",
                    j->output);
}

/* --loops FILE: .geojson/.json (terrains and planets) or .obj. */
static const char *check_loops_geojson(const char *s)
{
    return has_suffix(s, ".geojson") || has_suffix(s, ".json")
               ? NULL
               : "unknown loops format (the name must end in .geojson or .json)";
}

static const char *check_loops(const char *s)
{
    return has_suffix(s, ".geojson") || has_suffix(s, ".json") || has_suffix(s, ".obj")
               ? NULL
               : "unknown loops format (the name must end in .geojson, .json or .obj)";
}

/* ------------------------------------------------------------ commands */

static job g_job; /* what the command line asks for */

/* The commands, in the order of 'strata --help'. */
/* strata bench: apps/bench.c, with its own arguments. */
static int bench_command(int argc, char **argv)
{
    return bench_main(argc, argv, 1);
}

enum { CMD_PLANET, CMD_TERRAIN, CMD_SLICE, CMD_TILESET, CMD_VIEW, CMD_INFO, CMD_CONTOURS, CMD_BENCH };
/* Their bits, for cli_option.commands. */
#define PLANET (1u << CMD_PLANET)
#define TERRAIN (1u << CMD_TERRAIN)
#define SLICE (1u << CMD_SLICE)
#define TILESET (1u << CMD_TILESET)
#define VIEW (1u << CMD_VIEW)
#define INFO (1u << CMD_INFO)
#define CONTOURS (1u << CMD_CONTOURS)
#define MAKERS (PLANET | TERRAIN) /* the commands that make a mesh */
#define WRITERS (PLANET | TERRAIN | SLICE)

static const cli_command commands[] = {
    [CMD_PLANET] = {
        .name = "planet",
        .summary = "a terraced noise planet (icosphere)",
        .usage = "[OPTIONS]",
        .about = "Build an icosphere, displace it radially with 3D fBm noise and cut it into\n"
                 "terraces.  With --chunk-level, make it as a world: chunk by chunk into a\n"
                 "directory of tiles and a 3D Tiles tileset, any size in bounded memory.\n",
        .check = check_planet,
        .run = run_planet,
    },
    [CMD_TERRAIN] = {
        .name = "terrain",
        .summary = "a terraced flat terrain: grid, polygon or heightmap",
        .usage = "[OPTIONS]",
        .about = "Build a flat shape (or load a heightmap or a template), displace it with 2D\n"
                 "fBm noise and cut it into terraces.  With --tile-cells, make it as a world:\n"
                 "tile by tile into a directory of tiles and a 3D Tiles tileset.\n",
        .check = check_terrain,
        .run = run_terrain,
    },
    [CMD_SLICE] = {
        .name = "slice",
        .summary = "terrace an existing PLY or OBJ mesh",
        .usage = "INPUT -o OUTPUT [OPTIONS]",
        .about = "Cut an existing triangle mesh into terraces: PLY (ASCII or binary, either byte\n"
                 "order) or OBJ, detected from the contents; polygons are fan-triangulated and\n"
                 "degenerate faces dropped.  The output is written in the input's frame.  Faces\n"
                 "should wind counter-clockwise seen from above (from outside, radially); a mesh\n"
                 "facing down (inwards) on the whole has all its triangles reversed.\n",
        .operand = "input mesh",
        .operand_target = &g_job.input,
        .check = check_slice,
        .run = run_slice,
    },
    [CMD_TILESET] = {
        .name = "tileset",
        .summary = "write the 3D Tiles tileset of a world's tiles (after shards)",
        .usage = "DIR [OPTIONS]",
        .about = "Write DIR/tileset.json from the tiles in DIR, a world directory made by\n"
                 "'strata planet --chunk-level' or 'strata terrain --tile-cells' (in shards,\n"
                 "by several processes or machines).  Every tile is checked: a missing tile is\n"
                 "an error unless --partial; a corrupt tile (its size not the one its record\n"
                 "gives; with --verify, also its checksum) or one of another world is one.\n",
        .operand = "world directory",
        .operand_target = &g_job.input,
        .run = run_tileset,
    },
    [CMD_VIEW] = {
        .name = "view",
        .summary = "look at a world in a browser: serve it and the viewer on 127.0.0.1",
        .usage = "DIR [OPTIONS]",
        .about = "Serve DIR, a world directory with its tileset.json, and the viewer page (three.js\n"
                 "and 3d-tiles-renderer) over HTTP on 127.0.0.1, and print the URL to open.\n"
                 "Runs until Ctrl-C.  The page and its npm packages come from $STRATA_VIEWER\n"
                 "(else the installed viewer) and $STRATA_NODE_MODULES (else\n"
                 "$HOME/.cache/strata-npm/node_modules, where the viewer's install-deps.sh\n"
                 "puts them).\n",
        .operand = "world directory",
        .operand_target = &g_job.input,
        .run = run_view,
    },
    [CMD_INFO] = {
        .name = "info",
        .summary = "version, instruction set, threads and machine topology",
        .usage = "",
        .about = "Print the version, the instruction set in use, the default thread count, its\n"
                 "placement on cores and the machine topology as 'key: value' lines.\n",
        .run = run_info,
    },
    [CMD_CONTOURS] = {
        .name = "contours",
        .summary = "contour lines or band polygons of a heightmap (GeoJSON, SVG)",
        .usage = "INPUT -o OUTPUT [OPTIONS]",
        .about = "Trace the contours of a heightmap (PGM, PFM, PNG, or any raster GDAL reads),\n"
                 "exactly where 'strata terrain --heightmap' puts its wall tops: GeoJSON\n"
                 "LineStrings with an \"elev\" property, or with --polygons one MultiPolygon per\n"
                 "band between levels (\"elev_min\", \"elev_max\"), or SVG (.svg): one layer per\n"
                 "level, the ground at or above it, in millimetres for a laser cutter; or any\n"
                 "vector format GDAL writes (.gpkg, .fgb, .shp, ...; --format).  Coordinates: a\n"
                 "georeferenced raster's own, each sample at its pixel's centre, in longitude and\n"
                 "latitude (RFC 7946) or with --crs native in its CRS; else X = column x cell\n"
                 "size, Y = (height - 1 - row) x cell size (north up), in the raster's units.\n",
        .operand = "input heightmap",
        .operand_target = &g_job.input,
        .check = check_contours,
        .run = run_contours,
    },
    [CMD_BENCH] = {
        .name = "bench",
        .summary = "measure this machine: each stage's throughput, scaling, memory",
        .main = bench_command,
    },
};

/* ------------------------------------------------------------ options */

/* Sections of --help, in this order. */
enum { G_PLANET, G_TERRAIN, G_INPUT, G_NOISE, G_TERRACE, G_PREVIEW, G_WORLD, G_COMMON,
       G_CONTOURS };
static const char *const groups[] = {
    "Planet options", "Terrain options", "Input options", "Noise options",
    "Terrace options", "Preview options", "World options", "Common options",
    "Contour options", NULL,
};

/* --shard K/N, 1 <= K <= N. */
static const char *check_shard(const char *s)
{
    unsigned long long k, n;
    return value_shard(s, &k, &n);
}

static const cli_choice shapes[] = {{"grid", SHAPE_GRID}, {"polygon", SHAPE_POLYGON}, {0}};
static const cli_choice axes[] = {
    {"x", STRATA_AXIS_X}, {"y", STRATA_AXIS_Y}, {"z", STRATA_AXIS_Z}, {0}};
static const cli_choice noises[] = {
    {"simplex", STRATA_NOISE_SIMPLEX}, {"perlin", STRATA_NOISE_PERLIN}, {0}};
static const cli_choice walls[] = {{"upper", STRATA_WALLS_UPPER},
                                   {"lower", STRATA_WALLS_LOWER},
                                   {"separate", STRATA_WALLS_SEPARATE},
                                   {0}};
static const cli_choice planet_views[] = {
    {"top", STRATA_VIEW_TOP}, {"oblique", STRATA_VIEW_OBLIQUE}, {"planet", STRATA_VIEW_PLANET}, {0}};
static const cli_choice flat_views[] = {{"top", STRATA_VIEW_TOP}, {"oblique", STRATA_VIEW_OBLIQUE}, {0}};
static const cli_choice tile_formats[] = {{"glb", 0}, {"ply", 1}, {0}};
static const cli_choice contour_crs[] = {{"lonlat", CONTOURS_CRS_LONLAT},
                                         {"native", CONTOURS_CRS_NATIVE}, {0}};

/* Every option of every command, in the order of --help.  An option that
 * means something else (or has another default) for some command has one
 * entry per meaning. */
static const cli_option options[] = {
    /* planet */
    {.name = "level", .kind = CLI_INT, .arg = "L", .target = &g_job.level, .min = 0, .max = 13,
     .def = "6", .help = "icosphere subdivision level",
     .note = "; 20*4^L triangles before slicing", .commands = PLANET, .group = G_PLANET},
    {.name = "radius", .kind = CLI_REAL, .arg = "R", .target = &g_job.radius,
     .min = LENGTH_MIN, .max = LENGTH_MAX, .def = "1", .help = "base radius",
     .commands = PLANET, .group = G_PLANET},
    {.name = "frequency", .kind = CLI_REAL, .arg = "F", .target = &g_job.frequency,
     .mark = &g_job.noise_given, .min = 0, .max = 1e9, .flags = CLI_ABOVE_MIN, .def = "1.5",
     .help = "noise frequency per radius", .commands = PLANET, .group = G_PLANET},
    {.name = "amplitude", .kind = CLI_REAL, .arg = "A", .target = &g_job.amplitude,
     .mark = &g_job.noise_given, .min = 0, .max = 1e9,
     .def_text = XSTR(PLANET_AMPLITUDE) " x radius", .help = "noise amplitude",
     .note = "; the noise, up to A x (1 + gain + gain^2 + ...) over the octaves, must stay "
             "below the radius: A < 0.5079 x radius with the default gain and octaves",
     .commands = PLANET, .group = G_PLANET},

    /* terrain */
    {.name = "shape", .kind = CLI_CHOICE, .arg = "KIND", .target = &g_job.shape,
     .choices = shapes, .def = "grid", .conflicts = "heightmap",
     .commands = TERRAIN, .group = G_TERRAIN},
    {.name = "cells", .kind = CLI_INT, .arg = "N", .target = &g_job.cells, .min = 1,
     .max = 65535, .def = "256", .help = "grid cells per side", .conflicts = "heightmap",
     .commands = TERRAIN, .group = G_TERRAIN},
    {.name = "sides", .kind = CLI_INT, .arg = "N", .target = &g_job.sides, .min = 3, .max = 64,
     .def = "6", .help = "polygon sides", .conflicts = "heightmap", .commands = TERRAIN,
     .group = G_TERRAIN},
    {.name = "size", .kind = CLI_REAL, .arg = "S", .target = &g_job.size, .min = LENGTH_MIN,
     .max = LENGTH_MAX, .def = "10", .help = "grid side / polygon diameter",
     .conflicts = "heightmap", .commands = TERRAIN, .group = G_TERRAIN},
    {.name = "depth", .kind = CLI_INT, .arg = "D", .target = &g_job.depth, .min = 0, .max = 16,
     .def_text = XSTR(POLYGON_DEPTH) " for polygons, 0 otherwise",
     .help = "subdivide the shape D times", .commands = TERRAIN, .group = G_TERRAIN},
    {.name = "heightmap", .kind = CLI_STRING, .arg = "FILE", .target = &g_job.heightmap,
     .help = "PGM, PFM or PNG heightmap (any GDAL raster, e.g. GeoTIFF, in a build with GDAL) "
             "instead of a shape; no noise is added unless a noise option is given",
     .commands = TERRAIN, .group = G_TERRAIN},
    {.name = "template", .kind = CLI_STRING, .arg = "FILE", .target = &g_job.template_path,
     .help = "a coarse PGM, PFM or PNG heightmap whose every cell becomes --patch-cells x "
             "--patch-cells grid cells, heights interpolated over the cell's two triangles, "
             "plus the noise (on by default, scaled to a patch)",
     .conflicts = "heightmap", .commands = TERRAIN, .group = G_TERRAIN},
    {.name = "patch-cells", .kind = CLI_INT, .arg = "N", .target = &g_job.patch_cells,
     .min = 1, .max = 65535, .def = "64", .help = "grid cells along a template cell",
     .needs = "template", .commands = TERRAIN, .group = G_TERRAIN},
    {.name = "cell-size", .kind = CLI_REAL, .arg = "X", .target = &g_job.cell_size,
     .min = LENGTH_MIN, .max = LENGTH_MAX, .def = "1",
     .help = "heightmap pixel spacing (templates: the grid's cell size)",
     .note = "; a raster georeferenced in a projected CRS with square pixels gives its pixel "
             "size instead",
     .needs = "heightmap|template", .commands = TERRAIN, .group = G_TERRAIN},
    {.name = "height-scale", .kind = CLI_REAL, .arg = "Y", .target = &g_job.height_scale,
     .min = -1e9, .max = 1e9,
     .def_text = "1 for PFM and GDAL rasters, whose values are heights; for PGM/PNG, whose samples are in "
                 "[0,1], " XSTR(HEIGHTMAP_SCALE) " x cell-size x max(width, height)",
     .help = "heightmap (or template) sample scale", .commands = TERRAIN,
     .group = G_TERRAIN},
    {.name = "frequency", .kind = CLI_REAL, .arg = "F", .target = &g_job.frequency,
     .mark = &g_job.noise_given, .min = 0, .max = 1e9, .flags = CLI_ABOVE_MIN,
     .def_text = XSTR(TERRAIN_FREQUENCY) " / size", .help = "noise frequency per unit",
     .commands = TERRAIN, .group = G_TERRAIN},
    {.name = "amplitude", .kind = CLI_REAL, .arg = "A", .target = &g_job.amplitude,
     .mark = &g_job.noise_given, .min = 0, .max = 1e9,
     .def_text = XSTR(TERRAIN_AMPLITUDE) " x size", .help = "noise amplitude",
     .commands = TERRAIN, .group = G_TERRAIN},
    {.name = "solid", .kind = CLI_REAL, .arg = "DEPTH", .target = &g_job.solid_depth,
     .mark = &g_job.solid, .min = 0, .max = LENGTH_MAX,
     .flags = CLI_ABOVE_MIN | CLI_OPTIONAL_VALUE,
     .def_text = XSTR(SOLID_DEPTH) " x the longest horizontal side",
     .help = "close the terrain into a solid for 3D printing: outer walls from the border "
             "down to a flat base DEPTH below the lowest terrace, and the base (planets are "
             "closed already)",
     .commands = TERRAIN | PLANET, .group = G_TERRAIN},

    /* slice */
    {.name = "up", .kind = CLI_CHOICE, .arg = "AXIS", .target = &g_job.up, .choices = axes,
     .def = "y", .help = "the input's up axis", .commands = SLICE, .group = G_INPUT},
    {.name = "radial", .kind = CLI_FLAG, .target = &g_job.radial,
     .help = "heights are distances from a centre (a planet)", .conflicts = "up",
     .commands = SLICE, .group = G_INPUT},
    {.name = "center", .kind = CLI_VEC3, .arg = "X,Y,Z", .target = &g_job.center,
     .mark = &g_job.has_center, .def_text = "the centre of the bounding box",
     .help = "with --radial: the centre", .needs = "radial", .commands = SLICE,
     .group = G_INPUT},
    {.name = "radius", .kind = CLI_REAL, .arg = "R", .target = &g_job.radius, .min = 0,
     .max = 1e9, .flags = CLI_ABOVE_MIN,
     .def_text = "the mean distance of the vertices from the centre",
     .help = "with --radial: the base radius (height 0)", .needs = "radial", .commands = SLICE,
     .group = G_INPUT},
    {.name = "weld", .kind = CLI_FLAG, .target = &g_job.weld,
     .def_text = "off: vertices as the file lists them",
     .help = "merge vertices at exactly the same position", .commands = SLICE,
     .group = G_INPUT},

    /* noise */
    {.name = "seed", .kind = CLI_INT, .arg = "N", .target = &g_job.seed,
     .mark = &g_job.noise_given, .min = 0, .max = 4294967295.0, .def = "1",
     .help = "noise seed", .commands = MAKERS, .group = G_NOISE},
    {.name = "noise", .kind = CLI_CHOICE, .arg = "KIND", .target = &g_job.noise,
     .mark = &g_job.noise_given, .choices = noises, .def = "simplex",
     .commands = MAKERS, .group = G_NOISE},
    {.name = "octaves", .kind = CLI_INT, .arg = "N", .target = &g_job.octaves,
     .mark = &g_job.noise_given, .min = 1, .max = 16, .def = "6", .help = "fBm octaves",
     .commands = MAKERS, .group = G_NOISE},
    {.name = "lacunarity", .kind = CLI_REAL, .arg = "F", .target = &g_job.lacunarity,
     .mark = &g_job.noise_given, .min = 0, .max = 1e3, .flags = CLI_ABOVE_MIN, .def = "2",
     .help = "frequency factor per octave", .commands = MAKERS, .group = G_NOISE},
    {.name = "gain", .kind = CLI_REAL, .arg = "F", .target = &g_job.gain,
     .mark = &g_job.noise_given, .min = 0, .max = 1e3, .def = "0.5",
     .help = "amplitude factor per octave", .commands = MAKERS, .group = G_NOISE},
    {.name = "curve", .kind = CLI_CURVE, .arg = "X:Y,...", .target = &g_job.curve,
     .mark = &g_job.noise_given, .def_text = "none",
     .help = "monotone height curve through control points in [0,1], applied to the noise",
     .commands = MAKERS, .group = G_NOISE},
    {.name = "edits", .kind = CLI_STRING, .arg = "FILE", .target = &g_job.edits,
     .def_text = "none",
     .help = "apply an edit log's brush dabs (raise, lower, smooth, terrace, noise; the file "
             "'strata sculpt' keeps) to the heights after the noise; the planes stay those of "
             "the unedited surface",
     .conflicts = "resume", .commands = MAKERS, .group = G_NOISE},

    /* terraces */
    {.name = "terraces", .kind = CLI_INT, .arg = "N", .target = &g_job.terraces, .min = 0,
     .max = STRATA_MAX_LEVELS, .def = "16",
     .help = "N evenly spaced terraces from the lowest to the highest point",
     .note = "; 0 writes the displaced mesh unsliced", .conflicts = "levels",
     .commands = PLANET, .group = G_TERRACE},
    {.name = "terraces", .kind = CLI_INT, .arg = "N", .target = &g_job.terraces, .min = 0,
     .max = STRATA_MAX_LEVELS, .def = "12",
     .help = "N evenly spaced terraces from the lowest to the highest point",
     .note = "; 0 writes the mesh unsliced", .conflicts = "levels",
     .commands = TERRAIN | SLICE, .group = G_TERRACE},
    {.name = "terrace-curve", .kind = CLI_CURVE, .arg = "X:Y,...",
     .target = &g_job.terrace_curve, .def_text = "evenly",
     .help = "distribute the --terraces planes along a monotone curve: plane k at "
             "curve(k/N) of the height range",
     .conflicts = "levels", .commands = WRITERS, .group = G_TERRACE},
    {.name = "levels", .kind = CLI_LEVELS, .arg = "A,B,...", .target = &g_job.levels,
     .max = STRATA_MAX_LEVELS,
     .help = "explicit ascending plane heights instead of --terraces", .commands = WRITERS,
     .group = G_TERRACE},
    {.name = "sea-level", .kind = CLI_REAL, .arg = "H", .target = &g_job.sea_level,
     .mark = &g_job.sea, .min = -1e9, .max = 1e9, .def_text = "none",
     .help = "a plane at exactly H (as a float) among the levels, added when they lack one, so a "
             "terrace starts at the sea",
     .commands = TERRAIN | PLANET, .group = G_TERRACE},
    {.name = "water", .kind = CLI_FLAG, .target = &g_job.water,
     .help = "add a translucent water surface at the sea level, a primitive and material of its "
             "own: the terrain's domain (rectangle or polygon), or a planet's sphere of radius "
             "R + H (an icosphere of the planet's --level, at most " XSTR(WATER_SPHERE_LEVEL) ")",
     .needs = "sea-level", .commands = TERRAIN | PLANET, .group = G_TERRACE},
    {.name = "shoreline", .kind = CLI_REAL, .arg = "W", .target = &g_job.shore_width,
     .mark = &g_job.shore,
     .min = 0, .max = LENGTH_MAX, .flags = CLI_ABOVE_MIN, .def_text = "none",
     .help = "add a ribbon W wide along every coast of the sea-level plane, on the water side, "
             "flat at the sea level (planets: on the sphere R + H), a primitive and material of "
             "its own with TEXCOORD_0: U the length along the coast over W, V 0 at the coast "
             "and 1 outside; in a world each tile's piece, U the same up to a whole number "
             "where a coast crosses a tile border",
     .needs = "sea-level", .commands = TERRAIN | PLANET, .group = G_TERRACE},
    {.name = "walls", .kind = CLI_CHOICE, .arg = "WHERE", .target = &g_job.walls,
     .choices = walls, .def = "upper", .commands = WRITERS, .group = G_TERRACE},
    {.name = "normals", .kind = CLI_FLAG, .target = &g_job.normals,
     .def_text = "on for .glb files and glb tiles",
     .help = "write per-vertex normals: roofs up (planets: radial), each wall quad four "
             "vertices of its own facing out (hard edges), so every glTF client lights the "
             "terraces",
     .commands = WRITERS, .group = G_TERRACE},
    {.name = "no-normals", .kind = CLI_FLAG, .target = &g_job.no_normals,
     .help = "no normals in .glb files and tiles (smaller; CesiumJS then draws them unlit)",
     .commands = WRITERS, .group = G_TERRACE},
    {.name = "simplify-roofs", .kind = CLI_REAL, .arg = "ERR", .target = &g_job.simplify_error,
     .mark = &g_job.simplify, .min = 0, .max = 1, .flags = CLI_ABOVE_MIN | CLI_OPTIONAL_VALUE,
     .def_text = XSTR(STRATA_SIMPLIFY_DEFAULT_ERROR) " of the radius",
     .help = "fewer roof triangles: each terrace's roof re-triangulated with its border "
             "locked (walls and the domain border keep every vertex); flat roofs exactly, "
             "planets' roofs within ERR x radius of their spheres",
     .commands = WRITERS, .group = G_TERRACE},
    {.name = "optimize", .kind = CLI_FLAG, .target = &g_job.optimize, .def_text = "off",
     .help = "reorder each terrace's triangles for the GPU vertex cache (meshoptimizer; same "
             "triangles; --stats shows the cache miss ratio before and after)",
     .commands = WRITERS, .group = G_TERRACE},
    {.name = "ao", .kind = CLI_REAL, .arg = "RADIUS", .target = &g_job.ao_radius,
     .mark = &g_job.ao, .min = 0, .max = LENGTH_MAX,
     .flags = CLI_ABOVE_MIN | CLI_OPTIONAL_VALUE,
     .def_text = "2 x the mean spacing of the planes",
     .help = "bake ambient occlusion within RADIUS of each vertex (wall feet and inner corners "
             "darker, open roofs light): .glb COLOR_0, .ply vertex colours, --preview shading",
     .commands = WRITERS, .group = G_TERRACE},
    {.name = "uv", .kind = CLI_REAL, .arg = "TEXEL", .target = &g_job.uv_texel,
     .mark = &g_job.uv, .min = 0, .max = LENGTH_MAX,
     .flags = CLI_ABOVE_MIN | CLI_OPTIONAL_VALUE,
     .def_text = "the mean spacing of the planes",
     .help = "texture coordinates, one repeat every TEXEL units: roofs planar (U = x / TEXEL, "
             "V = z / TEXEL), walls U along the wall's top and V down from it (vertices of "
             "their own); .glb TEXCOORD_0, .ply s and t, .obj vt; terrains",
     .commands = WRITERS, .group = G_TERRACE},
    {.name = "compress", .kind = CLI_FLAG, .target = &g_job.compress, .def_text = "off",
     .help = "compress .glb buffers (and world tiles) with meshoptimizer's codecs under the "
             "glTF extension EXT_meshopt_compression (lossless; three.js, Babylon.js and "
             "glTF-Transform decode it)",
     .commands = WRITERS, .group = G_TERRACE},
    {.name = "palette", .kind = CLI_STRING, .arg = "NAME|FILE", .target = &g_job.palette,
     .check = check_palette, .def = "earth",
     .help = "terrace colours of .obj and .glb files: earth, desert, ice or mono, else a file "
             "of at most 256 #rrggbb colours, lowest terrace first",
     .commands = WRITERS, .group = G_TERRACE},
    {.name = "colours", .kind = CLI_STRING, .arg = "FILE", .target = &g_job.colours,
     .conflicts = "style",
     .help = "colour each terrace triangle by rules: slope, height, height above the sea "
             "level, terrace (see 'Colour rules' in README.md); hard edges between colours; "
             ".glb COLOR_0 (times --ao), .ply vertex colours, --preview",
     .commands = WRITERS, .group = G_TERRACE},
    {.name = "style", .kind = CLI_STRING, .arg = "NAME", .target = &g_job.style,
     .check = check_style,
     .help = "built-in colour rules: cartoon, desert or snow (as --colours)",
     .commands = WRITERS, .group = G_TERRACE},

    /* preview */
    {.name = "preview", .kind = CLI_STRING, .arg = "FILE.png", .target = &g_job.preview,
     .check = check_preview,
     .help = "also draw the result into a PNG image (terrace colours from --palette, walls "
             "darker, one light)",
     .commands = WRITERS, .group = G_PREVIEW},
    {.name = "view", .kind = CLI_CHOICE, .arg = "VIEW", .target = &g_job.view,
     .choices = planet_views, .def_text = "planet", .needs = "preview",
     .commands = PLANET, .group = G_PREVIEW},
    {.name = "view", .kind = CLI_CHOICE, .arg = "VIEW", .target = &g_job.view,
     .choices = flat_views, .def_text = "oblique", .needs = "preview",
     .commands = TERRAIN | SLICE, .group = G_PREVIEW},
    {.name = "preview-size", .kind = CLI_INT, .arg = "PX", .target = &g_job.preview_size,
     .min = STRATA_PREVIEW_MIN_SIZE, .max = STRATA_PREVIEW_MAX_SIZE, .def = "1024",
     .help = "image width and height", .needs = "preview", .commands = WRITERS,
     .group = G_PREVIEW},

    /* worlds */
    {.name = "chunk-level", .kind = CLI_INT, .arg = "C", .target = &g_job.chunk_level,
     .min = 0, .max = 12,
     .help = "make a world: 20*4^C chunks of 4^(L-C) triangles each, C < --level, into the "
             "directory -o names: tiles/C/ID.glb and a 3D Tiles tileset.json",
     .commands = PLANET, .group = G_WORLD},
    {.name = "tile-cells", .kind = CLI_INT, .arg = "N", .target = &g_job.tile_cells, .min = 1,
     .max = 65535,
     .help = "make a world of tiles of N x N grid cells into the directory -o names: "
             "tiles/D/X_Z.glb and a 3D Tiles tileset.json",
     .commands = TERRAIN, .group = G_WORLD},
    {.name = "tile-format", .kind = CLI_CHOICE, .arg = "FORMAT", .target = &g_job.tile_format,
     .choices = tile_formats, .def = "glb",
     .help = "tile files: glb (binary glTF, what 3D Tiles viewers load) or ply (no "
             "tileset.json then: no 3D Tiles client loads PLY)",
     .commands = MAKERS, .group = G_WORLD},
    {.name = "place", .kind = CLI_STRING, .arg = "LON,LAT[,H]", .target = &g_job.place,
     .check = check_place,
     .def_text = "where a heightmap georeferenced in a projected CRS lies (glb tiles); else "
                 "none: the world's centre at the Earth's",
     .help = "put the world's origin at this WGS84 place (degrees; H metres above the "
             "ellipsoid, default 0), its x east, -z north and y up: the tileset's root "
             "transform; none: not placed",
     .commands = MAKERS, .group = G_WORLD},
    {.name = "place-scale", .kind = CLI_REAL, .arg = "S", .target = &g_job.place_scale,
     .min = 0, .max = 1e9, .flags = CLI_ABOVE_MIN, .def = "1",
     .help = "metres a world unit, with --place", .needs = "place", .commands = MAKERS,
     .group = G_WORLD},
    {.name = "shard", .kind = CLI_STRING, .arg = "K/N", .target = &g_job.shard,
     .check = check_shard,
     .help = "make only shard K of N (1 <= K <= N), a fixed partition of the chunks balanced by "
             "their triangles, for job arrays; then 'strata tileset DIR'",
     .conflicts = "chunk", .commands = MAKERS, .group = G_WORLD},
    {.name = "chunk", .kind = CLI_INT, .arg = "ID", .target = &g_job.chunk, .min = 0,
     .max = 9007199254740992.0, .help = "make only chunk ID (as in its tile's name)",
     .commands = MAKERS, .group = G_WORLD},
    {.name = "resume", .kind = CLI_FLAG, .target = &g_job.resume,
     .help = "skip chunks whose tile is already complete (after a killed run)",
     .commands = MAKERS, .group = G_WORLD},
    {.name = "lod", .kind = CLI_FLAG, .target = &g_job.lod,
     .help = "levels of detail: every inner node of the chunk tree gets a tile too, its region "
             "made coarser with as many triangles as a chunk and the same planes, in a tileset "
             "that refines them (tiles/K/...)",
     .commands = MAKERS, .group = G_WORLD},
    {.name = "skirt", .kind = CLI_INT, .arg = "0|1", .target = &g_job.skirt, .min = 0, .max = 1,
     .def = "1",
     .help = "with --lod, a skirt on every tile, walls hanging from its border that hide the "
             "cracks between tiles of different depths (0: none)",
     .needs = "lod", .commands = MAKERS, .group = G_WORLD},
    {.name = "dry-run", .kind = CLI_FLAG, .target = &g_job.dry_run,
     .help = "print the chunks, triangles, bytes (with --compress: uncompressed, and about "
             "how many compressed) and peak memory a run would take (from one chunk made for "
             "real), write nothing",
     .commands = MAKERS, .group = G_WORLD},
    {.name = "partial", .kind = CLI_FLAG, .target = &g_job.partial,
     .help = "write the tileset of the tiles present even when some are missing",
     .commands = TILESET, .group = G_WORLD},
    {.name = "loops", .kind = CLI_STRING, .arg = "FILE", .target = &g_job.loops,
     .check = check_loops_geojson,
     .help = "also join the leaf tiles' loops (a world made with --loops) into one GeoJSON "
             "FILE",
     .commands = TILESET, .group = G_WORLD},
    {.name = "verify", .kind = CLI_FLAG, .target = &g_job.verify,
     .help = "read every tile whole and check its CRC-32C against its record (else only its "
             "size)",
     .commands = TILESET, .group = G_WORLD},
    {.name = "port", .kind = CLI_INT, .arg = "P", .target = &g_job.port, .min = 0,
     .max = 65535, .def = "8765", .help = "the TCP port on 127.0.0.1; 0: any free one",
     .commands = VIEW, .group = G_WORLD},
    {.name = "sculpt", .kind = CLI_FLAG, .target = &g_job.sculpt,
     .help = "do not write the world: serve an editor of it on 127.0.0.1 (brush dabs, "
             "undo, redo, export) and print its URL with a secret token; the edit log is "
             "DIR/edits.strata, continued when started again, exports go to DIR/exports",
     .commands = MAKERS, .group = G_WORLD},
    {.name = "port", .kind = CLI_INT, .arg = "P", .target = &g_job.port, .min = 0,
     .max = 65535, .def = "8765", .help = "the TCP port on 127.0.0.1; 0: any free one",
     .needs = "sculpt", .commands = MAKERS, .group = G_WORLD},

    /* contours */
    {.name = "interval", .kind = CLI_REAL, .arg = "I", .target = &g_job.interval, .min = 0,
     .max = 1e30, .flags = CLI_ABOVE_MIN,
     .help = "a contour every I height units: B + k I for every k within the heights",
     .conflicts = "levels", .commands = CONTOURS, .group = G_CONTOURS},
    {.name = "base", .kind = CLI_REAL, .arg = "B", .target = &g_job.base, .min = -1e30,
     .max = 1e30, .def = "0", .help = "with --interval: the level the others are counted from",
     .commands = CONTOURS, .group = G_CONTOURS},
    {.name = "levels", .kind = CLI_LEVELS, .arg = "A,B,...", .target = &g_job.levels,
     .max = STRATA_MAX_LEVELS - 1, .help = "explicit ascending contour levels",
     .commands = CONTOURS, .group = G_CONTOURS},
    {.name = "terraces", .kind = CLI_INT, .arg = "N", .target = &g_job.terraces, .min = 1,
     .max = STRATA_MAX_LEVELS, .def = "12",
     .help = "the planes of 'strata terrain --terraces N': N - 1 levels evenly spaced above "
             "the lowest point (used when neither --interval nor --levels is given)",
     .conflicts = "levels", .commands = CONTOURS, .group = G_CONTOURS},
    {.name = "polygons", .kind = CLI_FLAG, .target = &g_job.polygons,
     .help = "band polygons (like gdal_contour -p), one MultiPolygon per band, instead of "
             "lines",
     .commands = CONTOURS, .group = G_CONTOURS},
    {.name = "cell-size", .kind = CLI_REAL, .arg = "X", .target = &g_job.cell_size,
     .min = LENGTH_MIN, .max = LENGTH_MAX, .def = "1",
     .help = "pixel spacing (with a geotransform, only the frame the lines are traced in: "
             "they are written in the raster's coordinates)",
     .note = "; a raster georeferenced in a projected CRS with square pixels gives its pixel "
             "size instead, as strata terrain takes it",
     .commands = CONTOURS, .group = G_CONTOURS},
    {.name = "height-scale", .kind = CLI_REAL, .arg = "Y", .target = &g_job.height_scale,
     .min = -1e9, .max = 1e9, .def = "1",
     .help = "sample scale: heights are samples x Y (PGM and PNG samples are in [0,1])",
     .commands = CONTOURS, .group = G_CONTOURS},
    {.name = "crs", .kind = CLI_CHOICE, .arg = "CRS", .target = &g_job.crs,
     .choices = contour_crs,
     .def_text = "lonlat for a raster with a CRS, else the raster's own coordinates",
     .help = "a georeferenced raster's output coordinates; lonlat: WGS 84 longitude, "
             "latitude (RFC 7946 GeoJSON); native: the raster's CRS (.gpkg, .fgb or another "
             "GDAL format that records one)",
     .commands = CONTOURS, .group = G_CONTOURS},
    {.name = "format", .kind = CLI_STRING, .arg = "NAME", .target = &g_job.format,
     .help = "write through this GDAL vector driver (GPKG, FlatGeobuf, GeoJSON, ... as "
             "ogr2ogr -f); default: strata's own GeoJSON and SVG, else the driver of -o's "
             "extension",
     .commands = CONTOURS, .group = G_CONTOURS},
    {.name = "svg-scale", .kind = CLI_REAL, .arg = "S", .target = &g_job.svg_scale, .min = 0,
     .max = 1e9, .flags = CLI_ABOVE_MIN, .def = "1",
     .help = "SVG millimetres per map unit (cell size units)", .commands = CONTOURS,
     .group = G_CONTOURS},
    {.name = "loops", .kind = CLI_STRING, .arg = "FILE", .target = &g_job.loops,
     .check = check_loops,
     .help = "also write the slice's contour loops: .geojson (terrains: X, Y as strata "
             "contours; planets: longitude, latitude) or .obj polylines; worlds: each leaf "
             "tile's beside it (tiles/K/NAME.geojson), joined into FILE",
     .commands = WRITERS, .group = G_TERRACE},

    /* common */
    {.name = "output", .alias = 'o', .kind = CLI_STRING, .arg = "FILE",
     .target = &g_job.output, .flags = CLI_REQUIRED,
     .help = ".geojson or .json (GeoJSON), .svg, or a vector format GDAL writes (.gpkg, .fgb, "
             ".shp, ...)",
     .commands = CONTOURS, .group = G_COMMON},
    {.name = "output", .alias = 'o', .kind = CLI_STRING, .arg = "FILE",
     .target = &g_job.output, .def = "planet.ply",
     .help = ".ply (binary), .obj (+ .mtl), .glb (binary glTF) or .stl (binary, z-up) file; a "
             "directory for worlds",
     .commands = PLANET, .group = G_COMMON},
    {.name = "output", .alias = 'o', .kind = CLI_STRING, .arg = "FILE",
     .target = &g_job.output, .def = "terrain.ply",
     .help = ".ply (binary), .obj (+ .mtl), .glb (binary glTF) or .stl (binary, z-up) file; a "
             "directory for worlds",
     .commands = TERRAIN, .group = G_COMMON},
    {.name = "output", .alias = 'o', .kind = CLI_STRING, .arg = "FILE",
     .target = &g_job.output, .check = check_output, .flags = CLI_REQUIRED,
     .help = ".ply (binary), .obj (+ .mtl), .glb (binary glTF) or .stl (binary, z-up) file",
     .commands = SLICE, .group = G_COMMON},
    {.name = "props", .kind = CLI_REAL, .arg = "DENSITY", .target = &g_job.props_density,
     .mark = &g_job.props, .min = 0, .max = 1e9, .flags = CLI_ABOVE_MIN,
     .help = "scatter props (trees and rocks, about 1% of the model's longest side high) on "
             "the roofs: DENSITY expected instances per square unit of roof, never on walls; "
             "drawn in a .glb output (EXT_mesh_gpu_instancing), listed by --props-csv",
     .commands = MAKERS, .group = G_COMMON},
    {.name = "props-noise", .kind = CLI_REAL, .arg = "F", .target = &g_job.props_noise,
     .min = 0, .max = 1e9, .def = "0",
     .help = "weight the density by simplex noise of frequency F per unit (0: uniform)",
     .needs = "props", .commands = MAKERS, .group = G_COMMON},
    {.name = "props-seed", .kind = CLI_INT, .arg = "N", .target = &g_job.props_seed, .min = 0,
     .max = 4294967295.0, .def = "1", .help = "seed of the props: the same seed, the same props",
     .needs = "props", .commands = MAKERS, .group = G_COMMON},
    {.name = "props-terraces", .kind = CLI_STRING, .arg = "A-B", .target = &g_job.props_terraces,
     .check = check_props_terraces, .def_text = "all",
     .help = "props only on terraces A to B (or A alone), counted from 0 at the bottom",
     .needs = "props", .commands = MAKERS, .group = G_COMMON},
    {.name = "props-spacing", .kind = CLI_REAL, .arg = "D", .target = &g_job.props_spacing,
     .min = 0, .max = LENGTH_MAX, .def = "0",
     .help = "no two props closer than D (3D; a Poisson-disk set, the same in a world's tiles "
             "as in the whole mesh; DENSITY then thins it, at most about 0.7/D^2); 0: none",
     .needs = "props", .commands = MAKERS, .group = G_COMMON},
    {.name = "props-wall-foot", .kind = CLI_REAL, .arg = "F", .target = &g_job.props_wall_foot,
     .min = 0, .max = LENGTH_MAX, .def = "0",
     .help = "no prop within F (3D) of a wall's base (its lowest edge); 0: none",
     .needs = "props", .commands = MAKERS, .group = G_COMMON},
    {.name = "props-heights", .kind = CLI_STRING, .arg = "LO:HI", .target = &g_job.props_heights,
     .check = check_props_heights, .def_text = "all",
     .help = "props only on terraces whose level is in LO..HI (planets: height above the radius)",
     .needs = "props", .commands = MAKERS, .group = G_COMMON},
    {.name = "props-max-slope", .kind = CLI_REAL, .arg = "DEG", .target = &g_job.props_max_slope,
     .min = 0, .max = 90, .def = "90",
     .help = "props only on roof triangles tilted at most DEG degrees from up (terraced roofs "
             "are level)",
     .needs = "props", .commands = MAKERS, .group = G_COMMON},
    {.name = "props-csv", .kind = CLI_STRING, .arg = "FILE.csv", .target = &g_job.props_csv,
     .check = check_csv,
     .help = "write the props as CSV: x,y,z,up_x,up_y,up_z,yaw,scale,kind,terrace",
     .needs = "props", .commands = MAKERS, .group = G_COMMON},
    {.name = "print-size", .kind = CLI_REAL, .arg = "MM", .target = &g_job.print_size,
     .min = 1e-3, .max = LENGTH_MAX, .def_text = "the model's own units",
     .help = "scale the model so that its longest side is MM, at least 0.001 (STL has no "
             "units; printers read millimetres)",
     .commands = WRITERS, .group = G_COMMON},
    {.name = "threads", .kind = CLI_INT, .arg = "N", .target = &g_job.threads, .min = 0,
     .max = 4096, .def = "0", .help = "worker threads, 0 = one per core", .commands = WRITERS | CONTOURS,
     .group = G_COMMON},
    {.name = "simd", .kind = CLI_STRING, .arg = "ISA", .target = &g_job.simd,
     .check = check_simd,
     .def_text = "auto: the best this CPU has; the output is the same for all; overrides "
                 "STRATA_SIMD; 'strata info' lists them",
     .help = "auto, scalar, avx2, avx512 or neon", .commands = WRITERS | CONTOURS, .group = G_COMMON},
    {.name = "stats", .kind = CLI_FLAG, .target = &g_job.stats,
     .help = "timings and per-terrace figures as key=value lines on stderr",
     .commands = WRITERS | CONTOURS, .group = G_COMMON},
    {.name = "no-sync", .kind = CLI_FLAG, .target = &g_job.no_sync,
     .help = "rename outputs into place without fsync: faster for scratch files, but a power "
             "loss may leave them empty (by default each file is synced before its rename "
             "and its directory after)",
     .commands = WRITERS | TILESET | CONTOURS, .group = G_COMMON},
    {.name = "quiet", .kind = CLI_FLAG, .target = &g_job.quiet,
     .help = "print nothing on success", .commands = WRITERS | TILESET | VIEW | CONTOURS,
     .group = G_COMMON},
    {.name = "help", .alias = 'h', .kind = CLI_HELP, .help = "show this help",
     .commands = WRITERS | TILESET | VIEW | INFO | CONTOURS, .group = G_COMMON},
};

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const cli_program program = {
        .name = "strata",
        .summary = "Turn terrain into terraced terrain.",
        .version = strata_version(),
        .commands = commands,
        .ncommands = sizeof commands / sizeof commands[0],
        .options = options,
        .noptions = sizeof options / sizeof options[0],
        .groups = groups,
    };
    const cli_command *cmd = cli_parse(&program, &g_job, argc, argv);
    if (cmd->main)
        return cmd->main(argc - 1, argv + 1);
    /* STRATA_SIMD is read by the library; check its spelling here so that
     * a typo is a usage error like a bad --simd, which replaces it. */
    const char *env = getenv("STRATA_SIMD");
    if (!g_job.simd && env && *env && check_simd(env))
        usage_error("STRATA_SIMD %s: %s", env, check_simd(env));
    const int rc = cmd->run(&g_job);
    free(g_job.levels.v);
    free(g_job.curve.x);
    free(g_job.curve.y);
    free(g_job.terrace_curve.x);
    free(g_job.terrace_curve.y);
    return rc;
}
