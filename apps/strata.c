/* strata - the command line program: terraced planets and terrains.
 *
 *   strata planet  [options]      icosphere + 3D noise, sliced, written
 *   strata terrain [options]      grid / polygon / heightmap + 2D noise
 *   strata info                   version, ISA, threads, topology
 *
 * Exit status: 0 success, 1 runtime failure (files, library errors),
 * 2 usage error, 130 interrupted.  Every failure prints one line to stderr. */
#define _POSIX_C_SOURCE 200809L

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "strata.h"
#include "fail.h"
#include "progress.h"

#include <errno.h>
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif

/* Defaults, shown by --help. */
#define DEF_PLANET_LEVEL 6
#define DEF_PLANET_RADIUS 1.0
#define DEF_PLANET_FREQUENCY 1.5 /* per radius */
#define DEF_PLANET_AMPLITUDE 0.1 /* times the radius */
#define DEF_PLANET_TERRACES 16
#define DEF_TERRAIN_CELLS 256
#define DEF_TERRAIN_SIZE 10.0
#define DEF_TERRAIN_FREQUENCY 3.0  /* periods across --size */
#define DEF_TERRAIN_AMPLITUDE 0.15 /* times --size */
#define DEF_TERRAIN_TERRACES 12
#define DEF_SIDES 6
#define DEF_POLYGON_DEPTH 6
#define DEF_HEIGHTMAP_SCALE 0.25 /* times the heightmap's extent */

/* ------------------------------------------------------------ parsing */

/* Strict integer: all of s, no spaces, within [lo, hi]. */
static long long parse_int(const char *opt, const char *s, long long lo, long long hi)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || s[0] == ' ' || s[0] == '\t' || errno == ERANGE)
        usage_error("%s: expected an integer, got '%s'", opt, s);
    if (v < lo || v > hi)
        usage_error("%s: %lld is out of range [%lld, %lld]", opt, v, lo, hi);
    return v;
}

/* Strict real number that fits a float: no NaN, no infinity, no trailing
 * text.  Parses s up to *endp when endp is given (for lists). */
static double parse_number(const char *opt, const char *s, char **endp)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || s[0] == ' ' || s[0] == '\t' || (!endp && *end))
        usage_error("%s: expected a number, got '%s'", opt, s);
    if (!isfinite(v))
        usage_error("%s: '%.*s' is not a finite number", opt, (int)(end - s), s);
    if (errno == ERANGE || fabs(v) > FLT_MAX)
        usage_error("%s: '%.*s' is out of range for a float", opt, (int)(end - s), s);
    if (endp)
        *endp = end;
    return v;
}

/* A number with a lower bound (strict or not) and an upper bound. */
static double parse_real(const char *opt, const char *s, double lo, bool lo_strict, double hi)
{
    double v = parse_number(opt, s, NULL);
    if (lo_strict ? !(v > lo) : !(v >= lo))
        usage_error("%s: must be %s %g (got %s)", opt, lo_strict ? ">" : ">=", lo, s);
    if (v > hi)
        usage_error("%s: must be <= %g (got %s)", opt, hi, s);
    return v;
}

static int parse_choice(const char *opt, const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(s, names[i]))
            return i;
    char list[160] = "";
    for (int i = 0; i < n; i++) {
        strcat(list, names[i]);
        strcat(list, i + 2 < n ? ", " : i + 1 < n ? " or " : "");
    }
    usage_error("%s: expected %s (got '%s')", opt, list, s);
}

/* --levels a,b,c: strictly ascending plane heights. */
static float *parse_levels(const char *s, uint32_t *n)
{
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    if (cap > STRATA_MAX_LEVELS)
        usage_error("--levels: at most %u values (got %zu)", STRATA_MAX_LEVELS, cap);
    float *v = malloc(cap * sizeof *v);
    if (!v)
        die(EXIT_RUNTIME, "out of memory");
    size_t k = 0;
    for (const char *p = s;; p++) {
        char *end;
        if (*p == ',' || *p == '\0')
            usage_error("--levels: empty value in '%s'", s);
        double x = parse_number("--levels", p, &end);
        if (*end != ',' && *end != '\0')
            usage_error("--levels: expected numbers separated by commas (got '%s')", s);
        if (k > 0 && !((float)x > v[k - 1]))
            usage_error("--levels: values must be strictly ascending (got %.*s after %g)",
                        (int)(end - p), p, (double)v[k - 1]);
        v[k++] = (float)x;
        p = end;
        if (!*p)
            break;
    }
    *n = (uint32_t)k;
    return v;
}

/* --curve x:y,x:y,...: control points in [0,1]^2, x strictly ascending. */
static size_t parse_curve(const char *s, float **xs, float **ys)
{
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    *xs = malloc(cap * sizeof **xs);
    *ys = malloc(cap * sizeof **ys);
    if (!*xs || !*ys)
        die(EXIT_RUNTIME, "out of memory");
    size_t n = 0;
    for (const char *p = s;; p++) {
        char *end;
        double x = parse_number("--curve", p, &end);
        if (*end != ':')
            usage_error("--curve: expected x:y pairs separated by commas (got '%s')", s);
        double y = parse_number("--curve", end + 1, &end);
        if (*end != ',' && *end != '\0')
            usage_error("--curve: expected x:y pairs separated by commas (got '%s')", s);
        if (x < 0 || x > 1 || y < 0 || y > 1)
            usage_error("--curve: points must lie in [0,1] (got %g:%g)", x, y);
        if (n > 0 && !((float)x > (*xs)[n - 1]))
            usage_error("--curve: x values must be strictly ascending (got %g after %g)", x,
                        (double)(*xs)[n - 1]);
        (*xs)[n] = (float)x;
        (*ys)[n++] = (float)y;
        p = end;
        if (!*p)
            break;
    }
    if (n < 2)
        usage_error("--curve: needs at least two points (got '%s')", s);
    return n;
}

/* ------------------------------------------------------------ options */

enum {
    OPT_LEVEL = 256, OPT_RADIUS, OPT_SHAPE, OPT_SIDES, OPT_CELLS, OPT_SIZE, OPT_DEPTH,
    OPT_HEIGHTMAP, OPT_CELL_SIZE, OPT_HEIGHT_SCALE,
    OPT_SEED, OPT_NOISE, OPT_FREQUENCY, OPT_OCTAVES, OPT_LACUNARITY, OPT_GAIN, OPT_AMPLITUDE,
    OPT_CURVE,
    OPT_TERRACES, OPT_TERRACE_CURVE, OPT_LEVELS, OPT_WALLS, OPT_NORMALS, OPT_OPTIMIZE,
    OPT_THREADS, OPT_SIMD, OPT_STATS, OPT_QUIET,
    OPT_PALETTE,
    OPT_PREVIEW, OPT_VIEW, OPT_PREVIEW_SIZE,
    OPT_UP, OPT_RADIAL, OPT_CENTER, OPT_WELD
};

#define NOISE_OPTIONS                                                          \
    {"seed", required_argument, NULL, OPT_SEED},                               \
    {"noise", required_argument, NULL, OPT_NOISE},                             \
    {"frequency", required_argument, NULL, OPT_FREQUENCY},                     \
    {"octaves", required_argument, NULL, OPT_OCTAVES},                         \
    {"lacunarity", required_argument, NULL, OPT_LACUNARITY},                   \
    {"gain", required_argument, NULL, OPT_GAIN},                               \
    {"amplitude", required_argument, NULL, OPT_AMPLITUDE},                     \
    {"curve", required_argument, NULL, OPT_CURVE}
#define COMMON_OPTIONS                                                         \
    {"terraces", required_argument, NULL, OPT_TERRACES},                       \
    {"terrace-curve", required_argument, NULL, OPT_TERRACE_CURVE},             \
    {"levels", required_argument, NULL, OPT_LEVELS},                           \
    {"walls", required_argument, NULL, OPT_WALLS},                             \
    {"normals", no_argument, NULL, OPT_NORMALS},                               \
    {"optimize", no_argument, NULL, OPT_OPTIMIZE},                             \
    {"palette", required_argument, NULL, OPT_PALETTE},                         \
    {"preview", required_argument, NULL, OPT_PREVIEW},                         \
    {"view", required_argument, NULL, OPT_VIEW},                               \
    {"preview-size", required_argument, NULL, OPT_PREVIEW_SIZE},               \
    {"threads", required_argument, NULL, OPT_THREADS},                         \
    {"simd", required_argument, NULL, OPT_SIMD},                               \
    {"stats", no_argument, NULL, OPT_STATS},                                   \
    {"quiet", no_argument, NULL, OPT_QUIET},                                   \
    {"output", required_argument, NULL, 'o'},                                  \
    {"help", no_argument, NULL, 'h'},                                          \
    {NULL, 0, NULL, 0}

static const struct option planet_options[] = {
    {"level", required_argument, NULL, OPT_LEVEL},
    {"radius", required_argument, NULL, OPT_RADIUS},
    NOISE_OPTIONS,
    COMMON_OPTIONS,
};

static const struct option terrain_options[] = {
    {"shape", required_argument, NULL, OPT_SHAPE},
    {"sides", required_argument, NULL, OPT_SIDES},
    {"cells", required_argument, NULL, OPT_CELLS},
    {"size", required_argument, NULL, OPT_SIZE},
    {"depth", required_argument, NULL, OPT_DEPTH},
    {"heightmap", required_argument, NULL, OPT_HEIGHTMAP},
    {"cell-size", required_argument, NULL, OPT_CELL_SIZE},
    {"height-scale", required_argument, NULL, OPT_HEIGHT_SCALE},
    NOISE_OPTIONS,
    COMMON_OPTIONS,
};

static const struct option slice_options[] = {
    {"up", required_argument, NULL, OPT_UP},
    {"radial", no_argument, NULL, OPT_RADIAL},
    {"center", required_argument, NULL, OPT_CENTER},
    {"radius", required_argument, NULL, OPT_RADIUS},
    {"weld", no_argument, NULL, OPT_WELD},
    COMMON_OPTIONS,
};

static const struct option info_options[] = {
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef enum { CMD_PLANET, CMD_TERRAIN, CMD_INFO, CMD_SLICE } command;
typedef enum { SHAPE_GRID, SHAPE_POLYGON } shape_kind;

typedef struct options {
    command cmd;
    const char *name; /* "planet", "terrain" */
    /* planet */
    int level;
    double radius;
    /* terrain */
    shape_kind shape;
    int sides, depth;
    long cells;
    double size, cell_size, height_scale;
    const char *heightmap;
    /* slice: the input mesh and how to read it */
    const char *input;
    strata_import_options import;
    const char *given_radial_opt; /* --center or --radius */
    bool up_given;
    /* noise: frequency and amplitude stay NAN until given */
    strata_fbm fbm;
    double frequency, amplitude;
    bool noise_given; /* any noise option: heightmaps get noise only then */
    float *curve_x, *curve_y;
    size_t ncurve;
    /* terraces */
    long terraces; /* -1: not given */
    float *tcurve_x, *tcurve_y; /* --terrace-curve */
    size_t ntcurve;
    float *levels;
    uint32_t nlevels;
    strata_walls walls;
    bool normals;
    bool optimize; /* --optimize: vertex-cache order of each range */
    const char *palette; /* --palette NAME|FILE, NULL: earth */
    const char *preview; /* --preview FILE.png, NULL: none */
    strata_preview_view view;
    long preview_size;
    const char *given_preview_opt; /* --view or --preview-size */
    /* common */
    int threads;
    bool stats, quiet;
    const char *simd;     /* --simd, NULL: STRATA_SIMD or auto */
    const char *isa_used; /* the context's ISA, for --stats */
    const char *output;
    /* which shape options were given, for the conflict checks */
    const char *given_shape_opt, *given_grid_opt, *given_polygon_opt, *given_heightmap_opt;
} options;

/* noise: also list the noise options (strata slice has none) */
static void print_common_help(FILE *f, int terraces, bool noise)
{
    if (noise)
        fputs("\nNoise options:\n"
              "  --seed N             noise seed, 0..4294967295 (default 1)\n"
              "  --noise KIND         simplex or perlin (default simplex)\n"
              "  --octaves N          fBm octaves, 1..16 (default 6)\n"
              "  --lacunarity F       frequency factor per octave (default 2)\n"
              "  --gain F             amplitude factor per octave (default 0.5)\n"
              "  --curve X:Y,...      monotone height curve through control points in [0,1],\n"
              "                       applied to the noise (default none)\n",
              f);
    fprintf(f,
            "\nTerrace options:\n"
            "  --terraces N         N evenly spaced terraces from the lowest to the highest\n"
            "                       point; 0 writes the displaced mesh unsliced (default %d)\n"
            "  --terrace-curve X:Y,...\n"
            "                       distribute the --terraces planes along a monotone\n"
            "                       curve: plane k at curve(k/N) of the height range\n"
            "                       (default: evenly)\n"
            "  --levels A,B,...     explicit ascending plane heights instead of --terraces\n"
            "  --walls WHERE        upper, lower or separate (default upper)\n"
            "  --normals            write per-vertex normals (hard-edged walls)\n"
            "  --optimize           reorder each terrace's triangles for the GPU vertex\n"
            "                       cache (meshoptimizer; same triangles; --stats shows\n"
            "                       the cache miss ratio before and after) (default off)\n"
            "  --palette NAME|FILE  terrace colours of .obj and .glb files: earth, desert,\n"
            "                       ice or mono, else a file of #rrggbb colours, lowest\n"
            "                       terrace first (default earth)\n"
            "\nPreview options:\n"
            "  --preview FILE.png   also draw the result into a PNG image (terrace colours\n"
            "                       from --palette, walls darker, one light)\n"
            "  --view VIEW          top, oblique or planet (default planet for planets,\n"
            "                       oblique for terrains; planet needs a planet)\n"
            "  --preview-size PX    image width and height, %u..%u (default 1024)\n"
            "\nCommon options:\n"
            "  -o, --output FILE    .ply (binary), .obj (+ .mtl) or .glb (binary glTF) file\n"
            "  --threads N          worker threads, 0 = one per core (default 0)\n"
            "  --simd ISA           auto, scalar, avx2, avx512 or neon (default auto: the\n"
            "                       best this CPU has; the output is the same for all;\n"
            "                       overrides STRATA_SIMD; 'strata info' lists them)\n"
            "  --stats              timings and per-terrace figures as key=value lines on stderr\n"
            "  --quiet              print nothing on success\n"
            "  -h, --help           show this help\n",
            terraces, STRATA_PREVIEW_MIN_SIZE, STRATA_PREVIEW_MAX_SIZE);
}

static void help_main(void)
{
    printf("Usage: strata COMMAND [OPTIONS]\n"
           "Turn terrain into terraced terrain.\n"
           "\nCommands:\n"
           "  planet    a terraced noise planet (icosphere)\n"
           "  terrain   a terraced flat terrain: grid, polygon or heightmap\n"
           "  slice     terrace an existing PLY or OBJ mesh\n"
           "  info      version, instruction set, threads and machine topology\n"
           "\n'strata COMMAND --help' lists the options of a command.\n"
           "\n  -h, --help       show this help\n"
           "  -V, --version    show the version\n");
}

static void help_planet(void)
{
    printf("Usage: strata planet [OPTIONS]\n"
           "Build an icosphere, displace it radially with 3D fBm noise and cut it into\n"
           "terraces.\n"
           "\nPlanet options:\n"
           "  --level L            icosphere subdivision level, 0..13 (default %d);\n"
           "                       20*4^L triangles before slicing\n"
           "  --radius R           base radius, > 0 (default %g)\n"
           "  --frequency F        noise frequency per radius, > 0 (default %g)\n"
           "  --amplitude A        noise amplitude, >= 0 (default %g x radius)\n",
           DEF_PLANET_LEVEL, DEF_PLANET_RADIUS, DEF_PLANET_FREQUENCY, DEF_PLANET_AMPLITUDE);
    print_common_help(stdout, DEF_PLANET_TERRACES, true);
    printf("\nDefault output: planet.ply\n");
}

static void help_terrain(void)
{
    printf("Usage: strata terrain [OPTIONS]\n"
           "Build a flat shape (or load a heightmap), displace it with 2D fBm noise and\n"
           "cut it into terraces.\n"
           "\nTerrain options:\n"
           "  --shape KIND         grid or polygon (default grid)\n"
           "  --cells N            grid cells per side, 1..65535 (default %d)\n"
           "  --sides N            polygon sides, 3..64 (default %d)\n"
           "  --size S             grid side / polygon diameter, > 0 (default %g)\n"
           "  --depth D            subdivide the shape D times, 0..16 (default %d for\n"
           "                       polygons, 0 otherwise)\n"
           "  --heightmap FILE     PGM, PFM or PNG heightmap instead of a shape; no noise is\n"
           "                       added unless a noise option is given\n"
           "  --cell-size X        heightmap pixel spacing, > 0 (default 1)\n"
           "  --height-scale Y     heightmap sample scale (default: 1 for PFM, whose values\n"
           "                       are heights; for PGM/PNG, whose samples are in [0,1],\n"
           "                       %g x cell-size x max(width, height))\n"
           "  --frequency F        noise frequency per unit, > 0 (default %g / size: %g)\n"
           "  --amplitude A        noise amplitude, >= 0 (default %g x size: %g)\n",
           DEF_TERRAIN_CELLS, DEF_SIDES, DEF_TERRAIN_SIZE, DEF_POLYGON_DEPTH, DEF_HEIGHTMAP_SCALE,
           DEF_TERRAIN_FREQUENCY, DEF_TERRAIN_FREQUENCY / DEF_TERRAIN_SIZE, DEF_TERRAIN_AMPLITUDE,
           DEF_TERRAIN_AMPLITUDE * DEF_TERRAIN_SIZE);
    print_common_help(stdout, DEF_TERRAIN_TERRACES, true);
    printf("\nDefault output: terrain.ply\n");
}

static void help_slice(void)
{
    printf("Usage: strata slice INPUT -o OUTPUT [OPTIONS]\n"
           "Cut an existing triangle mesh into terraces: PLY (ASCII or binary, either byte\n"
           "order) or OBJ, detected from the contents; polygons are fan-triangulated and\n"
           "degenerate faces dropped.  The output is written in the input's frame.  Faces\n"
           "should wind counter-clockwise seen from above (from outside, radially); a mesh\n"
           "facing down (inwards) on the whole has all its triangles reversed.\n"
           "\nInput options:\n"
           "  --up AXIS            the input's up axis: x, y or z (default y)\n"
           "  --radial             heights are distances from a centre (a planet)\n"
           "  --center X,Y,Z       with --radial: the centre (default: the centre of the\n"
           "                       bounding box)\n"
           "  --radius R           with --radial: base radius, > 0, height 0 (default: the\n"
           "                       mean distance of the vertices from the centre)\n"
           "  --weld               merge vertices at exactly the same position (default off:\n"
           "                       vertices as the file lists them)\n");
    print_common_help(stdout, DEF_TERRAIN_TERRACES, false);
}

static void help_info(void)
{
    printf("Usage: strata info\n"
           "Print the version, the instruction set in use, the default thread count, its\n"
           "placement on cores and the machine topology as 'key: value' lines.\n");
}

/* --simd and STRATA_SIMD: an unknown name is a usage error; whether this
 * CPU has the ISA is found out when the context is made (make_ctx). */
static void check_simd(const char *what, const char *s)
{
    strata_isa isa;
    if (strata_isa_from_name(s, &isa) != STRATA_OK)
        usage_error("%s %s: unknown instruction set (auto, scalar, avx2, avx512 or neon)", what,
                    s);
}

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

static void parse_args(int argc, char **argv, options *o)
{
    const struct option *table = o->cmd == CMD_PLANET    ? planet_options
                                 : o->cmd == CMD_TERRAIN ? terrain_options
                                 : o->cmd == CMD_SLICE   ? slice_options
                                                         : info_options;
    static const char *const noises[] = {"simplex", "perlin"};
    static const char *const walls[] = {"upper", "lower", "separate"};
    static const char *const shapes[] = {"grid", "polygon"};
    const char *terraces_arg = NULL, *levels_arg = NULL, *tcurve_arg = NULL;

    opterr = 0; /* our own messages */
    optind = 1;
    int c, li;
    while ((c = getopt_long(argc, argv, o->cmd == CMD_INFO ? ":h" : ":ho:", table, &li)) != -1) {
        const char *a = optarg;
        switch (c) {
        case 'h':
            o->cmd == CMD_PLANET    ? help_planet()
            : o->cmd == CMD_TERRAIN ? help_terrain()
            : o->cmd == CMD_SLICE   ? help_slice()
                                    : help_info();
            exit(EXIT_SUCCESS);
        case 'o': o->output = a; break;
        case OPT_LEVEL: o->level = (int)parse_int("--level", a, 0, 13); break;
        case OPT_RADIUS:
            o->radius = parse_real("--radius", a, 0, true, 1e9);
            o->import.radius = (float)o->radius;
            o->given_radial_opt = "--radius";
            break;
        case OPT_UP: {
            static const char *const axes[] = {"x", "y", "z"};
            static const strata_axis ids[] = {STRATA_AXIS_X, STRATA_AXIS_Y, STRATA_AXIS_Z};
            o->import.up = ids[parse_choice("--up", a, axes, 3)];
            o->up_given = true;
            break;
        }
        case OPT_RADIAL: o->import.radial = 1; break;
        case OPT_CENTER: {
            char *end;
            const char *p = a;
            for (int k = 0; k < 3; k++) {
                o->import.center[k] = (float)parse_number("--center", p, &end);
                if (*end != (k < 2 ? ',' : '\0'))
                    usage_error("--center: expected X,Y,Z (got '%s')", a);
                p = end + 1;
            }
            o->import.has_center = 1;
            o->given_radial_opt = "--center";
            break;
        }
        case OPT_WELD: o->import.weld = 1; break;
        case OPT_SHAPE:
            o->shape = (shape_kind)parse_choice("--shape", a, shapes, 2);
            o->given_shape_opt = "--shape";
            break;
        case OPT_SIDES:
            o->sides = (int)parse_int("--sides", a, 3, 64);
            o->given_polygon_opt = "--sides";
            break;
        case OPT_CELLS:
            o->cells = (long)parse_int("--cells", a, 1, 65535);
            o->given_grid_opt = "--cells";
            break;
        case OPT_SIZE:
            o->size = parse_real("--size", a, 0, true, 1e9);
            o->given_shape_opt = "--size";
            break;
        case OPT_DEPTH: o->depth = (int)parse_int("--depth", a, 0, 16); break;
        case OPT_HEIGHTMAP: o->heightmap = a; break;
        case OPT_CELL_SIZE:
            o->cell_size = parse_real("--cell-size", a, 0, true, 1e9);
            o->given_heightmap_opt = "--cell-size";
            break;
        case OPT_HEIGHT_SCALE:
            o->height_scale = parse_real("--height-scale", a, -1e9, false, 1e9);
            o->given_heightmap_opt = "--height-scale";
            break;
        case OPT_SEED: o->fbm.seed = (uint32_t)parse_int("--seed", a, 0, UINT32_MAX); break;
        case OPT_NOISE: o->fbm.kind = (strata_noise_kind)parse_choice("--noise", a, noises, 2); break;
        case OPT_FREQUENCY: o->frequency = parse_real("--frequency", a, 0, true, 1e9); break;
        case OPT_OCTAVES: o->fbm.octaves = (int)parse_int("--octaves", a, 1, 16); break;
        case OPT_LACUNARITY: o->fbm.lacunarity = (float)parse_real("--lacunarity", a, 0, true, 1e3); break;
        case OPT_GAIN: o->fbm.gain = (float)parse_real("--gain", a, 0, false, 1e3); break;
        case OPT_AMPLITUDE: o->amplitude = parse_real("--amplitude", a, 0, false, 1e9); break;
        case OPT_CURVE:
            free(o->curve_x);
            free(o->curve_y);
            o->ncurve = parse_curve(a, &o->curve_x, &o->curve_y);
            break;
        case OPT_TERRACES:
            o->terraces = (long)parse_int("--terraces", a, 0, STRATA_MAX_LEVELS);
            terraces_arg = a;
            break;
        case OPT_TERRACE_CURVE:
            free(o->tcurve_x);
            free(o->tcurve_y);
            o->ntcurve = parse_curve(a, &o->tcurve_x, &o->tcurve_y);
            tcurve_arg = a;
            break;
        case OPT_LEVELS:
            free(o->levels);
            o->levels = parse_levels(a, &o->nlevels);
            levels_arg = a;
            break;
        case OPT_WALLS: o->walls = (strata_walls)parse_choice("--walls", a, walls, 3); break;
        case OPT_NORMALS: o->normals = true; break;
        case OPT_OPTIMIZE: o->optimize = true; break;
        case OPT_PALETTE: o->palette = a; break;
        case OPT_PREVIEW: o->preview = a; break;
        case OPT_VIEW: {
            static const char *const views[] = {"top", "oblique", "planet"};
            o->view = (strata_preview_view)(STRATA_VIEW_TOP + parse_choice("--view", a, views, 3));
            o->given_preview_opt = "--view";
            break;
        }
        case OPT_PREVIEW_SIZE:
            o->preview_size = (long)parse_int("--preview-size", a, STRATA_PREVIEW_MIN_SIZE,
                                              STRATA_PREVIEW_MAX_SIZE);
            o->given_preview_opt = "--preview-size";
            break;
        case OPT_THREADS: o->threads = (int)parse_int("--threads", a, 0, 4096); break;
        case OPT_SIMD:
            check_simd("--simd", a);
            o->simd = a;
            break;
        case OPT_STATS: o->stats = true; break;
        case OPT_QUIET: o->quiet = true; break;
        case ':':
            usage_error("%s: missing value", argv[optind - 1]);
        default:
            /* optopt is 0 for unknown long options: name the word itself */
            if (optopt && optopt < 256)
                usage_error("unknown option '-%c' (see 'strata %s --help')", optopt, o->name);
            usage_error("unknown or invalid option '%s' (see 'strata %s --help')", argv[optind - 1], o->name);
        }
        if (c >= OPT_SEED && c <= OPT_CURVE)
            o->noise_given = true;
    }
    if (o->cmd == CMD_SLICE && optind < argc)
        o->input = argv[optind++];
    if (optind < argc)
        usage_error("unexpected argument '%s' (see 'strata %s --help')", argv[optind], o->name);
    if (o->cmd == CMD_SLICE) {
        if (!o->input)
            usage_error("missing input mesh (see 'strata slice --help')");
        if (!o->output)
            usage_error("missing -o OUTPUT (see 'strata slice --help')");
        if (o->given_radial_opt && !o->import.radial)
            usage_error("%s needs --radial", o->given_radial_opt);
        if (o->up_given && o->import.radial)
            usage_error("--up and --radial cannot be used together");
    }

    if (terraces_arg && levels_arg)
        usage_error("--terraces %s and --levels cannot be used together", terraces_arg);
    if (tcurve_arg && levels_arg)
        usage_error("--terrace-curve %s and --levels cannot be used together", tcurve_arg);
    if (o->output && !has_suffix(o->output, ".ply") && !has_suffix(o->output, ".obj") &&
        !has_suffix(o->output, ".glb"))
        usage_error("-o %s: unknown output format (the name must end in .ply, .obj or .glb)",
                    o->output);
    /* a preset name first, else a file (read in run(): a bad one is a
     * runtime failure) */
    strata_palette pal;
    if (o->palette && strata_palette_preset(o->palette, &pal) != STRATA_OK &&
        access(o->palette, F_OK) != 0)
        usage_error("--palette %s: neither a palette name (earth, desert, ice, mono) nor a file",
                    o->palette);
    if (o->preview && !has_suffix(o->preview, ".png"))
        usage_error("--preview %s: the image name must end in .png", o->preview);
    if (!o->preview && o->given_preview_opt)
        usage_error("%s needs --preview FILE.png", o->given_preview_opt);
    if (o->view == STRATA_VIEW_PLANET && o->cmd != CMD_PLANET)
        usage_error("--view planet: only for planets (use top or oblique)");
    if (o->output && !*o->output)
        usage_error("-o: empty file name");

    if (o->cmd == CMD_TERRAIN) {
        if (o->heightmap) {
            const char *conflict = o->given_shape_opt ? o->given_shape_opt
                                   : o->given_grid_opt ? o->given_grid_opt
                                                       : o->given_polygon_opt;
            if (conflict)
                usage_error("--heightmap and %s cannot be used together", conflict);
        } else if (o->given_heightmap_opt) {
            usage_error("%s needs --heightmap", o->given_heightmap_opt);
        }
        if (o->shape == SHAPE_GRID && o->given_polygon_opt)
            usage_error("%s needs --shape polygon", o->given_polygon_opt);
        if (o->shape == SHAPE_POLYGON && o->given_grid_opt)
            usage_error("%s applies to --shape grid only", o->given_grid_opt);
    }
}

/* STRATA_SIMD is read by the library; check its spelling here so that a
 * typo is a usage error like a bad --simd. */
static void check_simd_env(void)
{
    const char *env = getenv("STRATA_SIMD");
    if (env && *env)
        check_simd("STRATA_SIMD", env);
}

/* ------------------------------------------------------------ running */

/* Instruction sets this CPU and build can use, space-separated. */
static void isa_list(char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0; i < STRATA_ISA_COUNT_; i++)
        if (strata_cpu_isas() & STRATA_ISA_BIT(i))
            snprintf(buf + strlen(buf), size - strlen(buf), "%s%s", buf[0] ? " " : "",
                     strata_isa_name((strata_isa)i));
}

/* The context, on the ISA --simd or else STRATA_SIMD asks for.  --simd
 * wins over the environment: the library reads STRATA_SIMD, so set it. */
static strata_ctx *make_ctx(const options *o)
{
    if (o->simd && setenv("STRATA_SIMD", o->simd, 1) != 0)
        die(EXIT_RUNTIME, "out of memory");
    strata_ctx *ctx;
    const strata_status st = strata_ctx_create(NULL, &ctx);
    static const char *const pretty[] = {"scalar", "AVX2", "AVX-512", "NEON"};
    const char *want = getenv("STRATA_SIMD");
    strata_isa isa = STRATA_ISA_SCALAR;
    strata_isa_from_name(want, &isa);
    char avail[64], what[64], why[128];
    isa_list(avail, sizeof avail);
    snprintf(what, sizeof what, "%s%s", o->simd ? "--simd " : "STRATA_SIMD=", want ? want : "");
    snprintf(why, sizeof why, "this CPU (or this build) lacks %s (available: %s)", pretty[isa],
             avail);
    check_call(st, st == STRATA_ERR_ISA ? (call){.what = what, .why = why}
                                        : (call){.what = "context"});
    return ctx;
}

/* PFM files store heights as they are; PGM and PNG store [0,1] samples. */
static bool is_pfm(const char *path)
{
    FILE *f = fopen(path, "rb");
    char m[2] = {0, 0};
    if (f) {
        if (fread(m, 1, 2, f) != 2)
            m[0] = 0;
        fclose(f);
    }
    return m[0] == 'P' && (m[1] == 'f' || m[1] == 'F');
}

/* Fail before the work if the output directory cannot take the file. */
static void check_output_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        die(EXIT_RUNTIME, "out of memory");
    const int ok = access(dir, W_OK | X_OK) == 0;
    const int err = errno;
    free(dir);
    if (!ok)
        die(EXIT_RUNTIME, "cannot write '%s': %s", path, strerror(err));
}

/* strata slice: read the input mesh, say what was repaired. */
static strata_mesh *load_input(strata_ctx *ctx, options *o)
{
    strata_mesh *m;
    check_call(strata_mesh_load(ctx, o->input, &o->import, &m),
               (call){.what = "mesh", .path = o->input});
    if (!o->quiet && o->import.dropped)
        fprintf(stderr, "strata: %s: dropped %u degenerate face%s\n", o->input,
                o->import.dropped, o->import.dropped == 1 ? "" : "s");
    if (!o->quiet && o->import.flipped)
        fprintf(stderr, "strata: %s: the faces pointed %s; all triangles reversed\n", o->input,
                o->import.radial ? "inwards" : "down");
    return m;
}

/* Build the input mesh (shape, heightmap, subdivision, or strata slice's
 * file). */
static strata_mesh *build(strata_ctx *ctx, options *o, double *extent)
{
    strata_mesh *m = NULL;
    if (o->cmd == CMD_SLICE)
        return load_input(ctx, o);
    if (o->cmd == CMD_PLANET) {
        check(strata_shape_icosphere(ctx, o->level, (float)o->radius, &m), "icosphere");
        *extent = o->radius;
        return m;
    }
    if (o->heightmap) {
        strata_heightmap *hm;
        check_call(strata_heightmap_load(ctx, o->heightmap, &hm),
                   (call){.what = "heightmap", .path = o->heightmap});
        const uint32_t w = strata_heightmap_width(hm), h = strata_heightmap_height(hm);
        *extent = o->cell_size * (double)((w > h ? w : h) - 1);
        if (isnan(o->height_scale))
            o->height_scale = is_pfm(o->heightmap)
                                  ? 1.0
                                  : DEF_HEIGHTMAP_SCALE * o->cell_size * (w > h ? w : h);
        strata_status st =
            strata_mesh_from_heightmap(ctx, hm, (float)o->cell_size, (float)o->height_scale, &m);
        strata_heightmap_destroy(hm);
        check(st, "heightmap");
    } else if (o->shape == SHAPE_GRID) {
        check(strata_shape_grid(ctx, (uint32_t)o->cells, (uint32_t)o->cells,
                                (float)(o->size / (double)o->cells), &m),
              "grid");
        *extent = o->size;
    } else {
        check(strata_shape_polygon(ctx, o->sides, (float)(o->size / 2), &m), "polygon");
        *extent = o->size;
    }
    if (o->depth > 0) {
        strata_mesh *sub;
        check(strata_mesh_subdivide(ctx, m, o->depth, 0, &sub), "subdivide");
        strata_mesh_destroy(m);
        m = sub;
    }
    return m;
}

static void displace(strata_ctx *ctx, options *o, strata_mesh *m, double extent)
{
    strata_fbm f = o->fbm;
    if (o->cmd == CMD_PLANET) {
        /* noise is sampled at d * R: per-radius frequency over R */
        f.frequency = (float)((isnan(o->frequency) ? DEF_PLANET_FREQUENCY : o->frequency) / o->radius);
        f.amplitude = (float)(isnan(o->amplitude) ? DEF_PLANET_AMPLITUDE * o->radius : o->amplitude);
    } else {
        f.frequency = (float)(isnan(o->frequency) ? DEF_TERRAIN_FREQUENCY / extent : o->frequency);
        f.amplitude = (float)(isnan(o->amplitude) ? DEF_TERRAIN_AMPLITUDE * extent : o->amplitude);
    }
    if (!(f.frequency > 0) || !isfinite(f.frequency))
        usage_error("--frequency: %g is out of range after scaling", (double)f.frequency);
    strata_curve *curve = NULL;
    if (o->ncurve)
        check(strata_curve_create(ctx, STRATA_CURVE_MONOTONE, o->curve_x, o->curve_y, o->ncurve,
                                  &curve),
              "--curve");
    check(o->cmd == CMD_PLANET ? strata_displace_radial(ctx, m, &f, curve)
                               : strata_displace_flat(ctx, m, &f, curve),
          "displace");
    strata_curve_destroy(curve);
}

static void print_stats(const options *o, const strata_mesh *m, const strata_result *r,
                        const strata_arena_stats *arena, const double t[6], const char *path)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    struct stat sb;
    FILE *e = stderr;
    fprintf(e, "time.build=%.6f\ntime.displace=%.6f\ntime.levels=%.6f\n", t[1] - t[0],
            t[2] - t[1], t[3] - t[2]);
    fprintf(e, "time.slice=%.6f\ntime.write=%.6f\ntime.total=%.6f\n", t[4] - t[3], t[5] - t[4],
            t[5] - t[0]);
    fprintf(e, "threads=%d\nisa=%s\n", o->threads, o->isa_used);
    fprintf(e, "input.vertices=%u\ninput.triangles=%u\n", strata_mesh_vertex_count(m),
            strata_mesh_triangle_count(m));
    fprintf(e, "vertices=%u\ntriangles=%llu\nterraces=%u\n", v.nverts,
            (unsigned long long)(v.nindices / 3), v.nterraces);
    if (arena->arenas) /* sliced: the per-thread arenas of the cut triangles */
        fprintf(e, "arena.count=%u\narena.blocks=%llu\narena.bytes_reserved=%llu\n"
                   "arena.bytes_used=%llu\narena.bytes_wasted=%llu\n",
                arena->arenas, (unsigned long long)arena->blocks,
                (unsigned long long)arena->bytes_reserved, (unsigned long long)arena->bytes_used,
                (unsigned long long)arena->bytes_wasted);
    if (stat(path, &sb) == 0) {
        fprintf(e, "output.bytes=%lld\n", (long long)sb.st_size);
        if (t[5] > t[4])
            fprintf(e, "write.mb_per_s=%.1f\n", (double)sb.st_size / 1e6 / (t[5] - t[4]));
    }
    for (uint32_t k = 0; k < v.nterraces; k++) {
        const strata_terrace *tr = &v.terraces[k];
        fprintf(e,
                "terrace.%u.level=%.9g\nterrace.%u.roof_triangles=%llu\n"
                "terrace.%u.wall_triangles=%llu\nterrace.%u.roof_area=%.9g\n"
                "terrace.%u.wall_area=%.9g\n",
                k, (double)tr->level, k, (unsigned long long)(tr->roof_count / 3), k,
                (unsigned long long)(tr->wall_count / 3), k, tr->roof_area, k, tr->wall_area);
    }
}

static int run(options *o)
{
    const char *path = o->output ? o->output : o->cmd == CMD_PLANET ? "planet.ply" : "terrain.ply";
    check_output_dir(path);
    if (o->preview)
        check_output_dir(o->preview);
    if (o->optimize && !strata_optimize_supported())
        die(EXIT_RUNTIME, "--optimize: this strata was built without meshoptimizer");

    strata_palette pal;
    if (strata_palette_preset(o->palette ? o->palette : "earth", &pal) != STRATA_OK) {
        const strata_status st = strata_palette_load(o->palette, &pal);
        check_call(st, (call){.what = "palette", .path = o->palette,
                              .why = st == STRATA_ERR_FORMAT ? "expected #rrggbb colours" : NULL});
    }

    interrupt_catch();
    strata_ctx *ctx = make_ctx(o);
    check(strata_ctx_set_threads(ctx, o->threads), "--threads");
    o->threads = strata_ctx_threads(ctx);
    o->isa_used = strata_isa_name(strata_ctx_isa(ctx));
    interrupt_watch(ctx);
    check_interrupt(); /* a Ctrl-C while the context was made */
    progress_start(ctx, o->quiet);

    double t[6];
    double extent = 1;
    t[0] = now();
    strata_mesh *m = build(ctx, o, &extent);
    check_interrupt();
    t[1] = now();
    if (o->cmd != CMD_SLICE && (o->cmd == CMD_PLANET || !o->heightmap || o->noise_given))
        displace(ctx, o, m, extent);
    check_interrupt();
    t[2] = now();

    float *levels = o->levels;
    uint32_t nlevels = o->nlevels;
    if (!levels && o->terraces > 0) {
        nlevels = (uint32_t)o->terraces;
        if (!(levels = malloc(nlevels * sizeof *levels)))
            die(EXIT_RUNTIME, "out of memory");
        strata_curve *tc = NULL;
        if (o->ntcurve)
            check(strata_curve_create(ctx, STRATA_CURVE_MONOTONE, o->tcurve_x, o->tcurve_y,
                                      o->ntcurve, &tc),
                  "--terrace-curve");
        strata_status st = strata_levels_uniform(m, nlevels, tc, levels);
        strata_curve_destroy(tc);
        char why[128];
        snprintf(why, sizeof why,
                 o->ntcurve ? "the %u planes would not be strictly ascending (the curve must "
                              "rise wherever planes fall)"
                            : "%u terraces are too many for the height range",
                 nlevels);
        check_call(st, (call){.what = o->ntcurve ? "--terrace-curve" : "--terraces",
                              .why = st == STRATA_ERR_BAD_LEVELS ? why : NULL});
    }
    t[3] = now();
    strata_result *r;
    strata_arena_stats arena = {0};
    if (levels) {
        strata_slice_options so = {levels, nlevels, o->walls, o->normals, o->stats};
        check(strata_slice(ctx, m, &so, &r), "slice");
        strata_ctx_arena_stats(ctx, &arena);
    } else {
        check(strata_result_from_mesh(ctx, m, o->normals, &r), "mesh");
    }
    check_interrupt();
    t[4] = now();

    /* --optimize is timed on its own (time.optimize), outside time.total
     * like the preview: moving the earlier stamps by its duration keeps
     * every other figure as it was. */
    strata_optimize_stats ost = {0, 0, 0, 0.0, 0.0};
    double t_optimize = 0;
    if (o->optimize) {
        check(strata_result_optimize(ctx, r, &ost), "optimize");
        check_interrupt();
        t_optimize = now() - t[4];
        for (int i = 0; i <= 4; i++)
            t[i] += t_optimize;
    }

    strata_write_options wo = {.palette = &pal};
    progress_draw("write", -1); /* the writers take no context: no share done */
    /* strata slice: the file in the input's frame, the preview y-up */
    if (o->cmd == CMD_SLICE)
        check(strata_result_rotate_from_y_up(r, o->import.up), "rotate");
    strata_status st = strata_result_write_ex(r, path, STRATA_FORMAT_AUTO, &wo);
    if (o->cmd == CMD_SLICE)
        check(strata_result_rotate_to_y_up(r, o->import.up), "rotate");
    check_call(st, (call){.path = path, .write = true,
                          .why = st == STRATA_ERR_TOO_LARGE
                                     ? "over the 4 GiB limit of .glb files (write .ply "
                                       "instead or use fewer triangles)"
                                     : NULL});
    t[5] = now();

    /* The preview after the mesh file: its time is reported on its own
     * (time.preview), outside time.total. */
    double t_preview = 0;
    if (o->preview) {
        strata_preview_options po;
        strata_preview_defaults(&po);
        po.view = o->view;
        po.size = (uint32_t)o->preview_size;
        po.palette = &pal;
        st = strata_preview_write_png(ctx, r, &po, o->preview);
        check_call(st, (call){.path = o->preview, .write = true,
                              .why = st == STRATA_ERR_UNSUPPORTED
                                         ? "this strata was built without a PNG library"
                                         : NULL});
        t_preview = now() - t[5];
    }

    progress_clear();
    if (o->stats) {
        print_stats(o, m, r, &arena, t, path);
        if (o->preview)
            fprintf(stderr, "time.preview=%.6f\n", t_preview);
        if (o->optimize)
            fprintf(stderr,
                    "time.optimize=%.6f\noptimize.cache_size=%u\n"
                    "optimize.acmr_before=%.4f\noptimize.acmr_after=%.4f\n",
                    t_optimize, STRATA_OPTIMIZE_CACHE_SIZE, ost.acmr_before, ost.acmr_after);
    }
    if (!o->quiet) {
        strata_result_view v;
        strata_result_get_view(r, &v);
        fprintf(stderr, "strata: wrote %s: %u vertices, %llu triangles, %u terrace%s\n", path,
                v.nverts, (unsigned long long)(v.nindices / 3), v.nterraces,
                v.nterraces == 1 ? "" : "s");
        if (o->preview)
            fprintf(stderr, "strata: wrote %s: %ldx%ld pixels\n", o->preview, o->preview_size,
                    o->preview_size);
    }
    interrupt_watch(NULL);
    if (levels != o->levels)
        free(levels);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------ info */

static int run_info(const options *o)
{
    strata_ctx *ctx = make_ctx(o);
    char avail[64];
    isa_list(avail, sizeof avail);
    printf("version: %s\n", strata_version());
    printf("isa: %s\n", strata_isa_name(strata_ctx_isa(ctx)));
    printf("isas: %s\n", avail);
    printf("threads: %d\n", strata_ctx_threads(ctx));
    char binding[256];
    strata_ctx_binding(ctx, binding, sizeof binding);
    printf("binding: %s\n", binding);
    printf("meshoptimizer: %s\n", strata_optimize_supported() ? "yes" : "no");
    strata_ctx_destroy(ctx);
#ifdef _OPENMP
    printf("openmp: yes\n");
#else
    printf("openmp: no\n");
#endif
#ifdef HAVE_HWLOC
    printf("hwloc: yes\n");
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0) {
        static const struct { const char *key; hwloc_obj_type_t type; } rows[] = {
            {"packages", HWLOC_OBJ_PACKAGE},  {"cores", HWLOC_OBJ_CORE},
            {"pus", HWLOC_OBJ_PU},            {"numa_nodes", HWLOC_OBJ_NUMANODE},
            {"l3_caches", HWLOC_OBJ_L3CACHE},
        };
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            printf("%s: %d\n", rows[i].key, hwloc_get_nbobjs_by_type(topo, rows[i].type));
        hwloc_topology_destroy(topo);
    } else {
        printf("topology: unavailable\n");
    }
#else
    printf("hwloc: no\n");
#ifdef _SC_NPROCESSORS_ONLN
    printf("pus: %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
#endif
#endif
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    if (argc < 2)
        usage_error("missing command (see 'strata --help')");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        help_main();
        return EXIT_SUCCESS;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
        printf("strata %s\n", strata_version());
        return EXIT_SUCCESS;
    }

    options o;
    memset(&o, 0, sizeof o);
    o.name = cmd;
    if (!strcmp(cmd, "planet"))
        o.cmd = CMD_PLANET;
    else if (!strcmp(cmd, "terrain"))
        o.cmd = CMD_TERRAIN;
    else if (!strcmp(cmd, "info"))
        o.cmd = CMD_INFO;
    else if (!strcmp(cmd, "slice"))
        o.cmd = CMD_SLICE;
    else if (cmd[0] == '-')
        usage_error("unknown option '%s' before the command (see 'strata --help')", cmd);
    else
        usage_error("unknown command '%s' (see 'strata --help')", cmd);

    o.level = DEF_PLANET_LEVEL;
    o.radius = DEF_PLANET_RADIUS;
    o.shape = SHAPE_GRID;
    o.sides = DEF_SIDES;
    o.cells = DEF_TERRAIN_CELLS;
    o.size = DEF_TERRAIN_SIZE;
    o.depth = -1;
    o.cell_size = 1;
    o.height_scale = NAN;
    strata_fbm_defaults(&o.fbm);
    o.frequency = o.amplitude = NAN;
    o.terraces = o.cmd == CMD_PLANET ? DEF_PLANET_TERRACES : DEF_TERRAIN_TERRACES;
    o.walls = STRATA_WALLS_UPPER;
    o.view = STRATA_VIEW_AUTO;
    o.preview_size = 1024;

    parse_args(argc - 1, argv + 1, &o);
    if (!o.simd) /* --simd replaces STRATA_SIMD */
        check_simd_env();
    if (o.depth < 0)
        o.depth = o.cmd == CMD_TERRAIN && !o.heightmap && o.shape == SHAPE_POLYGON ? DEF_POLYGON_DEPTH : 0;
    int rc = o.cmd == CMD_INFO ? run_info(&o) : run(&o);
    free(o.levels);
    free(o.curve_x);
    free(o.curve_y);
    free(o.tcurve_x);
    free(o.tcurve_y);
    return rc;
}
