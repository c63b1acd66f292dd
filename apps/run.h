/* The work of the strata program: a job, as the command line describes
 * it (the option table in strata.c fills it), and the functions that
 * build, displace, slice and write it. */
#ifndef STRATA_APPS_RUN_H
#define STRATA_APPS_RUN_H

#include "cli.h"
#include "strata.h"

#include <stdbool.h>

/* Defaults computed when running (the others are in the option table).
 * Kept here as text too, so that --help shows the numbers used. */
#define PLANET_AMPLITUDE 0.1   /* times the radius */
#define TERRAIN_FREQUENCY 3    /* periods across --size */
#define TERRAIN_AMPLITUDE 0.15 /* times --size */
#define POLYGON_DEPTH 6
#define HEIGHTMAP_SCALE 0.25 /* times the heightmap's extent */
#define WATER_SPHERE_LEVEL 6 /* --water on planets: the sphere's level at most */
#define SOLID_DEPTH 0.05     /* --solid: the base's depth, times the longest side */

/* The range of radii and sizes.  Below LENGTH_MIN, the squared distances
 * of a planet's vertices from its centre, which give their directions,
 * are no longer normal floats (FLT_MIN is about 1.2e-38) and lose
 * precision: a radius of 1e-21 already gives another planet, 1e-23
 * vertices without a direction.  Terrains share the range: their default
 * noise frequency (3 / size) and cells (size / cells) must stay floats
 * too. */
#define LENGTH_MIN 1e-18
#define LENGTH_MAX 1e9

enum { SHAPE_GRID, SHAPE_POLYGON };
enum { CONTOURS_CRS_LONLAT = 1, CONTOURS_CRS_NATIVE = 2 };

/* Values as the option table stores them: CLI_INT options in long long,
 * CLI_REAL in double (NAN: not given), CLI_CHOICE in int. */
typedef struct job {
    enum { JOB_PLANET, JOB_TERRAIN, JOB_SLICE } kind; /* set by run_* */
    /* planet */
    long long level;
    double radius; /* also strata slice --radius (NAN: not given) */
    /* terrain */
    int shape;
    long long sides, cells, depth; /* depth -1: not given */
    double size, cell_size, height_scale;
    const char *heightmap;
    /* slice: the input mesh and how to read it */
    const char *input;
    int up; /* strata_axis */
    bool radial, weld, has_center;
    float center[3];
    /* noise: frequency and amplitude NAN until given (planet frequency
     * has a default: it is per radius) */
    int noise; /* strata_noise_kind */
    long long seed, octaves;
    double frequency, amplitude, lacunarity, gain;
    bool noise_given; /* any noise option: heightmaps get noise only then */
    cli_curve curve;
    const char *edits; /* --edits FILE, NULL: none */
    /* terraces */
    long long terraces;
    cli_curve terrace_curve;
    cli_floats levels;
    int walls; /* strata_walls */
    bool normals;        /* --normals, or by default for glb files and tiles */
    bool no_normals;     /* --no-normals */
    bool optimize;       /* vertex-cache order of each range */
    bool compress;       /* .glb buffers with EXT_meshopt_compression */
    const char *palette; /* a preset name or a file */
    const char *colours; /* --colours FILE, NULL: none */
    const char *style;   /* --style NAME, NULL: none */
    const char *preview; /* FILE.png, NULL: none */
    int view;            /* strata_preview_view */
    long long preview_size;
    /* common */
    long long threads;
    const char *simd; /* --simd, NULL: STRATA_SIMD or auto */
    bool stats, quiet;
    bool no_sync; /* --no-sync */
    const char *output;
    bool ao;               /* --ao given */
    double ao_radius;      /* --ao=RADIUS; NAN: from the planes' spacing */
    bool uv;               /* --uv given */
    double uv_texel;       /* --uv=TEXEL; NAN: the planes' spacing */
    bool simplify;         /* --simplify-roofs given */
    double simplify_error; /* --simplify-roofs=ERR; NAN: the default */
    /* props */
    bool props;                 /* --props given */
    double props_density;       /* --props DENSITY */
    double props_noise;         /* --props-noise */
    long long props_seed;
    const char *props_terraces; /* "A-B" or "A", NULL: all */
    const char *props_csv;      /* --props-csv FILE */
    double props_spacing;       /* --props-spacing; 0: none */
    double props_wall_foot;     /* --props-wall-foot; 0: none */
    const char *props_heights;  /* --props-heights LO:HI, NULL: all */
    double props_max_slope;     /* --props-max-slope, degrees */
    /* 3D printing */
    bool solid;         /* --solid given */
    double solid_depth; /* --solid=DEPTH; NAN: SOLID_DEPTH x the longest side */
    double print_size;  /* --print-size MM; NAN: not given */
    /* shorelines and water (issue 12) */
    bool sea;           /* --sea-level given */
    double sea_level;   /* --sea-level H: a plane at H among the levels */
    bool water;         /* --water: a water surface at H */
    bool shore;         /* --shoreline given */
    double shore_width; /* --shoreline W */
    /* worlds (apps/world.c) */
    long long chunk_level; /* planets; -1: not a world */
    long long tile_cells;  /* terrains; -1: not a world */
    const char *template_path;
    long long patch_cells;
    int tile_format; /* 0 glb, 1 ply */
    const char *place;  /* --place LON,LAT[,H] or none, NULL: not given */
    double place_at[3]; /* its longitude, latitude, height */
    double place_scale; /* --place-scale: metres a unit */
    double place_heading; /* grid north east of north (a raster's place) */
    bool place_auto;      /* placed where its georeferenced heightmap lies */
    const char *shard; /* "K/N" */
    long long chunk;   /* -1: all */
    bool resume, dry_run, partial, verify;
    bool lod;        /* --lod */
    long long skirt; /* --skirt 0|1 */
    long long port; /* strata view (apps/view.c), --sculpt */
    bool sculpt;    /* --sculpt (apps/sculpt.c) */
    /* contours (apps/contours.c), and --loops of the mesh commands */
    double interval, base, svg_scale;
    bool polygons;
    int crs;            /* CONTOURS_CRS_*; 0: not given */
    const char *format; /* --format: a GDAL vector driver, NULL: by -o */
    const char *driver; /* the GDAL driver -o is written by, NULL: strata's own */
    const char *loops; /* --loops FILE, NULL: none */
} job;

/* The commands: exit status 0 (failures exit on their own). */
int run_planet(job *j);
int run_terrain(job *j);
int run_slice(job *j);
int run_info(job *j);
int run_tileset(job *j);
/* Refuse (exit 1, with the reason) a path the job could not write, before
 * any work: a directory, a missing or read-only parent. */
void check_writable(const char *path, bool quiet);
/* strata view DIR (apps/view.c): serves until killed. */
int run_view(job *j);
/* Find the viewer's pages (index.html, sculpt.html and their scripts, in
 * $STRATA_VIEWER or $(pkgdatadir)/viewer) and the npm packages they load:
 * 0, or -1 and why not in why[0..cap). */
int view_find_page(char *why, size_t cap);
/* The open file (or -1, *status 403 or 404) a decoded, checked path
 * names: "/" is `index`, "/_strata/NAME" a page file or an npm package's;
 * anything else a file of 'strata view''s world directory (none for
 * sculpt: 404).  *type its Content-Type. */
int view_page_file(const char *path, const char *index, int *status, const char **type);
/* --sculpt of a world job (apps/sculpt.c): the world w made, serve its
 * editor until killed. */
int run_sculpt(strata_ctx *ctx, const job *j, strata_world *w);
/* strata contours (apps/contours.c). */
int run_contours(job *j);
/* --loops FILE of planet, terrain and slice: the frame its map
 * coordinates are written in (apps/contours.c). */
void job_loops_frame(const job *o, const strata_mesh *m, strata_loops_write_options *wo);
/* Fail before the work if --loops cannot be written there. */
void job_check_loops(const job *o);
/* strata planet --chunk-level, strata terrain --tile-cells (apps/world.c). */
int run_world(job *j);

/* Shared by run.c and world.c: the context (--simd, STRATA_SIMD), the
 * noise of a planet or terrain of the given extent with the defaults that
 * scale with it (a usage error when the library would refuse it), the
 * palette, and whether a heightmap file is a PFM (heights as they are). */
strata_ctx *job_ctx(const job *o);
void job_noise(const job *o, double extent, strata_fbm *f);
void job_palette(const job *o, strata_palette *pal);
/* --colours or --style: the rules (NULL: neither given); a bad file
 * ends the program with its line and field. */
strata_colours *job_colours(const job *o);
void job_raster_defaults(job *o, const strata_heightmap *hm);
double job_noise_extent(const job *o, double extent);
/* The job's terraces as the library takes them (*curve: the
 * --terrace-curve made, destroyed by the caller), and the message when
 * they cannot become planes (nothing for STRATA_OK). */
void job_terraces(strata_ctx *ctx, const job *o, strata_terraces *t, strata_curve **curve);
void job_terraces_check(const job *o, strata_status st);
/* --edits' log read (dying with the file, line and field of an error),
 * or NULL without --edits. */
strata_edits *job_edits(const job *o);
/* --props as the options give them (sizes left to the caller). */
void job_props(const job *o, strata_props_options *po);

#endif
