/* Worlds from the command line: `strata planet --chunk-level C -o DIR`,
 * `strata terrain --tile-cells N -o DIR` (shards, one chunk, resume, dry
 * run) and `strata tileset DIR`. */
#define _POSIX_C_SOURCE 200809L

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "run.h"
#include "values.h"
#include "fail.h"
#include "procs.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ counting allocator
 *
 * For --dry-run: the bytes one chunk needs at its peak. */

typedef struct {
    _Atomic long long now, peak;
} tally;

/* Blocks carry their size and header length just before the pointer
 * handed out; the header is as long as the alignment asked for (at least
 * 64 bytes), so the pointer keeps that alignment. */
static void *tally_alloc(void *user, size_t size, size_t align)
{
    tally *t = user;
    const size_t hdr = align > 64 ? align : 64;
    void *p = NULL;
    if (size > SIZE_MAX - hdr || posix_memalign(&p, hdr, size + hdr) != 0)
        return NULL;
    char *ret = (char *)p + hdr;
    const size_t meta[2] = {size, hdr};
    memcpy(ret - sizeof meta, meta, sizeof meta);
    const long long now = atomic_fetch_add(&t->now, (long long)size) + (long long)size;
    long long peak = atomic_load(&t->peak);
    while (now > peak && !atomic_compare_exchange_weak(&t->peak, &peak, now))
        ;
    return ret;
}

static void tally_free(void *user, void *p)
{
    if (!p)
        return;
    tally *t = user;
    size_t meta[2];
    memcpy(meta, (char *)p - sizeof meta, sizeof meta);
    atomic_fetch_sub(&t->now, (long long)meta[0]);
    free((char *)p - meta[1]);
}

/* ------------------------------------------------------------ the world */

/* What a world job holds besides the job itself. */
typedef struct world_job {
    strata_world_options wo;
    strata_fbm fbm;
    strata_curve *curve, *terrace_curve;
    strata_terraces t; /* the planes asked for */
    strata_props_options props;
    strata_heightmap *hm;
    float *levels; /* planes by count made here (ranks, dry run) */
    double extent;
    strata_edits *edits; /* --edits */
} world_job;

static void world_job_free(world_job *wj)
{
    strata_curve_destroy(wj->curve);
    strata_curve_destroy(wj->terrace_curve);
    strata_heightmap_destroy(wj->hm);
    free(wj->levels);
    strata_edits_destroy(wj->edits);
}

/* A world of glb tiles from a heightmap georeferenced in a projected CRS,
 * without --place: placed where the raster lies, its centre (the grid's
 * x = z = 0) at the raster's centre on the ellipsoid, turned to its grid
 * north, a unit the raster's metres over the cell size.  A raster whose
 * CRS says where it is but that cannot be placed stops the run (an
 * unplaced world would lie at the Earth's centre). */
static void place_raster(job *o, const strata_heightmap *hm, const char *src)
{
    strata_heightmap_info info;
    strata_heightmap_get_info(hm, &info);
    if (o->place || o->template_path || o->tile_format != 0 || !info.georeferenced ||
        !info.projected || !info.crs_wkt || !strata_gdal_support())
        return;
    double lon, lat, heading, metres;
    const strata_status st = strata_heightmap_place(hm, &lon, &lat, &heading, &metres);
    if (st != STRATA_OK)
        die(EXIT_RUNTIME,
            "heightmap '%s': %s, so the world cannot be placed where the raster lies; give "
            "--place LON,LAT[,H] or --place none",
            src,
            st == STRATA_ERR_UNSUPPORTED
                ? "its geotransform is rotated or mirrored (columns not east of its rows' north)"
                : "GDAL cannot take its CRS to WGS84 longitude and latitude");
    o->place_auto = true;
    o->place_at[0] = lon;
    o->place_at[1] = lat;
    o->place_at[2] = 0.0;
    o->place_scale = metres / o->cell_size;
    o->place_heading = heading;
}

/* Fill wj from the job (heightmaps and templates read here). */
static void world_setup(strata_ctx *ctx, job *o, world_job *wj)
{
    memset(wj, 0, sizeof *wj);
    strata_world_options *wo = &wj->wo;
    strata_world_defaults(wo);
    if (o->kind == JOB_PLANET) {
        wo->kind = STRATA_WORLD_PLANET;
        wo->level = (int)o->level;
        wo->chunk_level = (int)o->chunk_level;
        wo->radius = (float)o->radius;
        wj->extent = o->radius;
    } else {
        wo->kind = STRATA_WORLD_TERRAIN;
        wo->tile_cells = (uint32_t)o->tile_cells;
        const char *src = o->template_path ? o->template_path : o->heightmap;
        if (src) {
            /* PGM and PFM stay in their file, read tile by tile */
            check_call(strata_heightmap_open(ctx, src, &wj->hm),
                       (call){.what = o->template_path ? "template" : "heightmap", .path = src});
            job_raster_defaults(o, wj->hm);
            place_raster(o, wj->hm, src);
            strata_heightmap_info info;
            strata_heightmap_get_info(wj->hm, &info);
            if (info.nodata)
                die(EXIT_RUNTIME,
                    "%s '%s': %llu nodata samples; worlds and templates need a height at "
                    "every sample (make it whole, without --tile-cells, to leave the holes out)",
                    o->template_path ? "template" : "heightmap", src,
                    (unsigned long long)info.nodata);
            const uint32_t w = strata_heightmap_width(wj->hm), h = strata_heightmap_height(wj->hm);
            const double patch = o->template_path ? (double)o->patch_cells : 1.0;
            wj->extent = o->cell_size * patch * (double)((w > h ? w : h) - 1);
            wo->heightmap = wj->hm;
            wo->patch_cells = o->template_path ? (uint32_t)o->patch_cells : 0;
            wo->cell_size = (float)o->cell_size;
            wo->height_scale = (float)o->height_scale;
        } else {
            wo->cells_x = wo->cells_z = (uint32_t)o->cells;
            wo->cell_size = (float)(o->size / (double)o->cells);
            wj->extent = o->size;
        }
    }
    /* noise: always on planets and flat grids; on heightmaps only when a
     * noise option is given; on templates by default (their detail) */
    const bool noisy = o->kind == JOB_PLANET || o->template_path || !o->heightmap ||
                       o->noise_given;
    if (noisy) {
        job_noise(o, job_noise_extent(o, wj->extent), &wj->fbm);
        wo->noise = &wj->fbm;
        if (o->curve.n) {
            check(strata_curve_create(ctx, STRATA_CURVE_MONOTONE, o->curve.x, o->curve.y,
                                      o->curve.n, &wj->curve),
                  "--curve");
            wo->curve = wj->curve;
        }
    }
    job_terraces(ctx, o, &wj->t, &wj->terrace_curve);
    wo->levels = wj->t.levels;
    wo->nlevels = wj->t.nlevels;
    wo->terraces = wj->t.count;
    wo->terrace_curve = wj->t.curve;
    wo->sea = wj->t.sea;
    wo->sea_level = wj->t.sea_level;
    wo->walls = (strata_walls)o->walls;
    wo->normals = o->normals;
    wo->place = o->place_auto || (o->place && strcmp(o->place, "none") != 0);
    wo->place_lon = o->place_at[0];
    wo->place_lat = o->place_at[1];
    wo->place_height = o->place_at[2];
    wo->place_scale = o->place_scale;
    wo->place_heading = o->place_heading;
    wo->lod = o->lod;
    wo->skirts = o->skirt != 0;
    if (o->simplify) /* --simplify-roofs[=ERR] */
        wo->simplify_roofs =
            isnan(o->simplify_error) ? STRATA_SIMPLIFY_DEFAULT_ERROR : o->simplify_error;
    wo->water = o->water;
    wo->shoreline = o->shore ? (float)o->shore_width : 0.0f;
    wo->solid = o->solid;
    wo->solid_depth = (float)o->solid_depth; /* NAN: the default */
    wo->loops = o->loops != NULL;
    wo->ao = o->ao; /* --ao[=RADIUS]: 0 takes it from the planes */
    wo->ao_radius = o->ao && !isnan(o->ao_radius) ? (float)o->ao_radius : 0.0f;
    /* planets: the whole mesh's water sphere, chunk by chunk */
    wo->water_level = (uint32_t)(o->level < WATER_SPHERE_LEVEL ? o->level : WATER_SPHERE_LEVEL);
    if (o->props) {
        /* sizes: 0.8 to 1.2 % of the world's extent (a planet's
         * diameter), as a whole mesh's are of its longest side */
        const double side = o->kind == JOB_PLANET ? 2.0 * wj->extent : wj->extent;
        job_props(o, &wj->props);
        wj->props.min_scale = (float)(0.008 * side);
        wj->props.max_scale = (float)(0.012 * side);
        wo->props = &wj->props;
    }
}

/* The planes of wj's terraces over heights [lo, hi], as the world's
 * explicit levels (made by count here when every rank measured a part of
 * the range, or estimated by a dry run). */
static void planes_over(const job *o, world_job *wj, float lo, float hi)
{
    if (!(wj->levels = malloc(sizeof *wj->levels * strata_terraces_bound(&wj->t))))
        die(EXIT_RUNTIME, "out of memory");
    uint32_t n = 0;
    job_terraces_check(o, strata_terraces_heights(&wj->t, lo, hi, wj->levels, &n));
    wj->wo.levels = wj->levels;
    wj->wo.nlevels = n;
    wj->wo.sea = 0; /* among them */
}

/* Planes by count over the height range measured by all ranks, each on
 * its shard of the chunks (a world with a single plane at 0 stands in for
 * the world while measuring: heights do not depend on the planes).  The
 * minimum and maximum do not depend on how the chunks are shared, so the
 * planes are those strata_world_create finds in one process. */
static void planes_by_ranks(strata_ctx *ctx, const job *o, world_job *wj)
{
    strata_world_options probe = wj->wo;
    const float zero = 0.0f;
    probe.levels = &zero;
    probe.nlevels = 1;
    strata_world *pw;
    probe.sea = 0;
    job_terraces_check(o, strata_world_create(ctx, &probe, &pw));
    uint64_t n = 0;
    check(strata_world_shard(pw, (uint64_t)procs_rank(), (uint64_t)procs_size(), NULL, 0, &n),
          "world");
    uint64_t *ids = malloc(sizeof *ids * (n ? n : 1));
    if (!ids)
        die(EXIT_RUNTIME, "out of memory");
    check(strata_world_shard(pw, (uint64_t)procs_rank(), (uint64_t)procs_size(), ids, n, &n),
          "world");
    float lo, hi;
    const strata_status st = strata_world_height_range(ctx, pw, ids, n, &lo, &hi);
    free(ids);
    strata_world_destroy(pw);
    if (!procs_all_ok(st == STRATA_OK) && st == STRATA_OK)
        procs_exit(EXIT_RUNTIME);
    check(st, "range");
    procs_minmax(&lo, &hi);
    planes_over(o, wj, lo, hi);
}

static void create_world(strata_ctx *ctx, const job *o, world_job *wj, strata_world **w)
{
    if (!wj->wo.levels && procs_size() > 1)
        planes_by_ranks(ctx, o, wj);
    job_terraces_check(o, strata_world_create(ctx, &wj->wo, w));
    if ((wj->edits = job_edits(o)))
        strata_world_set_edits(*w, wj->edits);
}

/* Chunk ids costliest first (most input triangles, then by id): the order
 * the ranks of an MPI run take them in, so the big ones do not come
 * last. */
static const strata_world *g_order_world;

static int by_cost(const void *pa, const void *pb)
{
    const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    strata_chunk_info ia, ib;
    strata_world_chunk_info(g_order_world, a, &ia);
    strata_world_chunk_info(g_order_world, b, &ib);
    if (ia.triangles != ib.triangles)
        return ia.triangles > ib.triangles ? -1 : 1;
    return (a > b) - (a < b);
}

/* ------------------------------------------------------------ dry run */

static void human_bytes(double b, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (b >= 1024 && u < 5) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, "%.3g %s", b, unit[u]);
}

/* --compress: what share of its bytes the sample chunk r keeps when its
 * .glb is compressed, found by writing it compressed into a temporary
 * directory (TMPDIR, else /var/tmp) removed at once; 0 when that cannot be
 * written (*why then says why, *tmp where).  The share of one chunk
 * stands for the world's.  Measured (byte counts, one run each, --threads
 * 1; "world" the real tiles' share, "sample" the dry run's, "est" the
 * dry run's compressed_bytes over the real compressed bytes):
 *   planet --level 7 --chunk-level 2 --terraces 12       0.713  0.727  0.85
 *   planet --level 8 --chunk-level 3 --terraces 24 --seed 5
 *                                                        0.713  0.703  0.73
 *   planet --level 7 --chunk-level 2 --normals           0.630  0.662  0.87
 *   planet --level 4 --chunk-level 1 (64 triangles)      0.970  1.013  0.82
 *   terrain --cells 512 --tile-cells 128 --terraces 12   0.527  0.452  0.78
 *     the same, --terraces 40 --normals                  0.380  0.382  0.81
 *   terrain --cells 1024 --tile-cells 256 --terraces 16 --seed 9
 *                                                        0.326  0.282  0.81
 *   terrain --cells 256 --tile-cells 64                  0.579  0.483  0.72
 *   terrain --cells 64 --tile-cells 16                   0.697  0.603  0.68
 * The sample is within 0.1 of the world, far closer than any one share
 * for all worlds (0.33 to 0.97); what is left low is mostly the plain
 * bytes' own estimate (0.74 to 0.94 of the real ones: the dry run's
 * planes span the noise's whole range) and, on terrains, the sample's
 * share, its terraces as few as those planes leave. */
static double sample_compressed(strata_ctx *ctx, const strata_result *r, uint64_t plain,
                                const char **why, const char **tmp)
{
    char dir[4096], path[4096 + 16];
    *tmp = getenv("TMPDIR");
    if (!*tmp || !**tmp)
        *tmp = "/var/tmp"; /* disk, as for big PNG heightmaps: a chunk may be big */
    if (snprintf(dir, sizeof dir, "%s/strata-dry-XXXXXX", *tmp) >= (int)sizeof dir) {
        *why = strerror(ENAMETOOLONG);
        return 0;
    }
    if (!mkdtemp(dir)) {
        *why = strerror(errno);
        return 0;
    }
    snprintf(path, sizeof path, "%s/sample.glb", dir);
    strata_write_options wr;
    strata_write_defaults(&wr);
    wr.format = STRATA_FORMAT_GLB;
    wr.compress = 1;
    const strata_status st = strata_result_write(ctx, r, path, &wr);
    int err = errno;
    struct stat sb;
    bool got = false;
    if (st == STRATA_OK && !(got = stat(path, &sb) == 0))
        err = errno;
    unlink(path);
    rmdir(dir);
    if (st != STRATA_OK && st != STRATA_ERR_IO)
        check(st, "--compress");
    if (!got) {
        *why = strerror(err);
        return 0;
    }
    return (double)sb.st_size / (double)plain;
}

/* The chunks of a shard (ids NULL: their count), with a message naming
 * the world's size when the ordering of its chunks does not fit in
 * memory (it is not --shard's fault). */
static void shard_ids(const job *o, const strata_world *w, uint64_t k, uint64_t n, uint64_t *ids,
                      uint64_t cap, uint64_t *count)
{
    const strata_status st = strata_world_shard(w, k, n, ids, cap, count);
    if (st == STRATA_ERR_NOMEM && !interrupted())
        die(EXIT_RUNTIME,
            "out of memory ordering the %llu chunks of this world among shards; make fewer, "
            "larger chunks (%s)",
            (unsigned long long)strata_world_chunk_count(w),
            o->kind == JOB_PLANET ? "a lower --chunk-level" : "a larger --tile-cells");
    check(st, "--shard");
}

/* Chunks, triangles, bytes and peak memory, from one chunk made for real
 * (the one in the middle of the ids) and the planes the world would get
 * if its heights spanned the noise's whole range (the range pass is what
 * a dry run avoids).  With --compress the bytes are those of the plain
 * tiles, and the compressed ones are estimated from the sample chunk
 * compressed (sample_compressed, after the peak is read: the memory is
 * the chunk's making, as without --compress). */
static int dry_run(job *o, world_job *wj, int threads, uint64_t shard_k, uint64_t shard_n)
{
    tally t = {0, 0};
    strata_ctx_options co;
    strata_ctx_defaults(&co);
    co.threads = 1;
    const strata_allocator al = {tally_alloc, tally_free, &t};
    co.allocator = &al;
    strata_ctx *ctx;
    check(strata_ctx_create(&co, &ctx), "context");
    if (!wj->wo.levels) {
        /* planes over the expected range: base heights (0 for planets,
         * the samples' range for heightmaps) plus or minus the noise */
        float lo = 0, hi = 0;
        if (wj->hm) {
            check_call(strata_heightmap_range(wj->hm, &lo, &hi),
                       (call){.what = o->template_path ? "template" : "heightmap",
                              .path = o->template_path ? o->template_path : o->heightmap});
            const float a = lo * wj->wo.height_scale, b = hi * wj->wo.height_scale;
            lo = a < b ? a : b;
            hi = a < b ? b : a;
        }
        const float b = wj->wo.noise ? strata_fbm_bound(wj->wo.noise) : 0.0f;
        planes_over(o, wj, lo - b, hi + b);
    }
    strata_world *w;
    check(strata_world_create(ctx, &wj->wo, &w), "world");
    const uint64_t n = strata_world_chunk_count(w);
    uint64_t nids = 1;
    if (o->chunk < 0)
        shard_ids(o, w, shard_k, shard_n, NULL, 0, &nids);
    else if ((uint64_t)o->chunk >= n)
        usage_error("--chunk %lld: out of range (valid: 0..%llu, this world has %llu chunks)",
                    o->chunk, (unsigned long long)n - 1, (unsigned long long)n);
    strata_chunk_info ci;
    check(strata_world_chunk_info(w, n / 2, &ci), "world");
    const long long before = atomic_load(&t.now);
    atomic_store(&t.peak, before);
    strata_result *r;
    check(strata_result_create(ctx, &r), "world");
    check(strata_world_make_chunk(ctx, w, n / 2, r), "chunk");
    strata_result_view v;
    strata_result_get_view(r, &v);
    strata_write_options wr;
    strata_write_defaults(&wr);
    wr.format = o->tile_format == 1 ? STRATA_FORMAT_PLY : STRATA_FORMAT_GLB;
    uint64_t bytes = 0;
    if (wr.format == STRATA_FORMAT_GLB)
        check(strata_result_glb_size(ctx, r, &bytes), "world");
    else
        bytes = 256 + (uint64_t)v.nverts * 12 + (uint64_t)(v.nindices / 3) * 18;
    const double per_chunk = (double)(atomic_load(&t.peak) - before);
    const char *why = "no bytes", *tmp = "";
    const double share =
        o->compress && bytes > 0 ? sample_compressed(ctx, r, bytes, &why, &tmp) : 0;
    char b1[32], b2[32], b3[32];
    human_bytes((double)bytes * (double)nids, b1, sizeof b1);
    human_bytes(per_chunk * threads, b2, sizeof b2);
    printf("chunks: %" PRIu64 " of %" PRIu64 "\n", nids, n);
    printf("input_triangles: %" PRIu64 "\n", (uint64_t)ci.triangles * nids);
    printf("output_triangles: about %.0f\n", (double)(v.nindices / 3) * (double)nids);
    printf("bytes: about %.0f (%s)%s\n", (double)bytes * (double)nids, b1,
           o->compress ? " uncompressed" : "");
    if (o->compress && share > 0) {
        /* two significant digits: the share of one chunk, not of them all */
        char cs[32];
        snprintf(cs, sizeof cs, "%.2g", (double)bytes * (double)nids * share);
        const double c = strtod(cs, NULL);
        human_bytes(c, b3, sizeof b3);
        printf("compressed_bytes: about %.0f (%s): %.2f of the bytes, as the sample chunk\n", c,
               b3, share);
    } else if (o->compress) {
        printf("compressed_bytes: unknown (no sample chunk written in %s: %s); on the worlds "
               "measured compression kept from a third of the bytes (big chunks) to all of "
               "them (chunks of a few KiB)\n",
               tmp, why);
    }
    printf("memory: about %.0f bytes (%s) beyond the program's own, %d thread%s\n",
           per_chunk * threads, b2, threads, threads == 1 ? "" : "s");
    strata_result_destroy(r);
    strata_world_destroy(w);
    strata_ctx_destroy(ctx);
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------ runs */

typedef struct {
    strata_tile_record *recs; /* by id */
    uint8_t *have;
} collected;

static void collect(void *user, const strata_tile_record *rec, int skipped)
{
    (void)skipped;
    collected *c = user;
    c->recs[rec->id] = *rec;
    c->have[rec->id] = 1;
}

/* "K/N" with 1 <= K <= N: shard K-1 of N for the library. */
static void parse_shard(const char *s, uint64_t *k, uint64_t *n)
{
    unsigned long long a = 1, b = 1;
    const char *why = value_shard(s, &a, &b); /* checked when parsed */
    if (why)
        usage_error("--shard %s: %s", s, why);
    *k = a - 1;
    *n = b;
}

/* Lock a world directory for this run (strata_world_dir_lock): exclusive
 * for a whole world made by one process, shared for shards, ranks and
 * 'strata tileset'. */
/* "another strata run (pid N: its command line)" into who[0..cap): the
 * command line from /proc when it can be read (an editor, --sculpt, says
 * so there), shortened to fit. */
static void holder_name(long pid, char *who, size_t cap)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    size_t n = 0;
    FILE *f = fopen(path, "rb");
    if (f) {
        n = fread(line, 1, sizeof line - 1, f);
        fclose(f);
    }
    for (size_t i = 0; i + 1 < n; i++)
        if (line[i] == '\0')
            line[i] = ' '; /* the arguments, NUL-separated */
    line[n] = '\0';
    if (n == sizeof line - 1)
        memcpy(line + n - 3, "...", 3);
    snprintf(who, cap, "another strata run (pid %ld%s%s)", pid, n ? ": " : "", line);
}

static void lock_dir(strata_world_dir *dir, const char *path, bool exclusive)
{
    long pid = 0;
    const strata_status st = strata_world_dir_lock(dir, exclusive, &pid);
    if (st == STRATA_ERR_CONFLICT) {
        char who[320] = "another strata run";
        if (pid > 0)
            holder_name(pid, who, sizeof who);
        die(EXIT_RUNTIME,
            "'%s' is in use by %s: wait for it to end, or use another directory (shards of "
            "one world may run together: --shard)",
            path, who);
    }
    check_call(st, (call){.what = "world directory lock", .path = path, .write = true});
}

/* A world run as it goes: the world, its directory, the chunks asked
 * for, their records, the preview canvas, the figures. */
typedef struct world_run {
    strata_ctx *ctx;
    job *o;
    world_job wj;
    strata_world *w;
    strata_world_dir *dir;
    uint64_t nchunks, *ids, nids;
    bool lead, whole;
    collected col;
    strata_preview_canvas *canvas;
    strata_world_run_stats rs;
    double t_range, t_chunks, t_tileset, t_preview;
    long long rss_max, rss_sum;
} world_run;

/* The chunks asked for: --chunk, the shard's, or all. */
static void chunk_ids(world_run *wr, uint64_t shard_k, uint64_t shard_n)
{
    const job *o = wr->o;
    if (o->chunk >= 0) {
        if ((uint64_t)o->chunk >= wr->nchunks)
            usage_error("--chunk %lld: out of range (valid: 0..%llu, this world has %llu chunks)",
                        o->chunk, (unsigned long long)wr->nchunks - 1,
                        (unsigned long long)wr->nchunks);
        if (!(wr->ids = malloc(sizeof *wr->ids)))
            die(EXIT_RUNTIME, "out of memory");
        wr->ids[0] = (uint64_t)o->chunk;
        wr->nids = 1;
    } else {
        uint64_t cnt;
        shard_ids(o, wr->w, shard_k, shard_n, NULL, 0, &cnt);
        if (!(wr->ids = malloc(sizeof *wr->ids * (cnt ? cnt : 1))))
            die(EXIT_RUNTIME, "out of memory");
        shard_ids(o, wr->w, shard_k, shard_n, wr->ids, cnt, &wr->nids);
    }
    wr->whole = o->chunk < 0 && shard_n == 1;
}

/* An I/O error of opening the world directory dir that is its manifest's:
 * world.json there but not a regular file, or one that cannot be opened
 * (errno as it was when nothing is said). */
static void check_manifest(const char *dir)
{
    const int err = errno;
    char path[4096];
    struct stat sb;
    if ((size_t)snprintf(path, sizeof path, "%s/world.json", dir) >= sizeof path ||
        stat(path, &sb) != 0) {
        errno = err;
        return; /* nothing there: the directory's own error */
    }
    const char *why = S_ISDIR(sb.st_mode)    ? "a directory, not a file"
                      : S_ISFIFO(sb.st_mode) ? "a FIFO, not a regular file"
                      : !S_ISREG(sb.st_mode) ? "not a regular file"
                                             : NULL;
    if (!why) {
        const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            why = strerror(errno);
        else
            close(fd);
    }
    if (why)
        die(EXIT_RUNTIME,
            "cannot read '%s' (the world's manifest): %s; remove it or use another directory",
            path, why);
    errno = err;
}

/* The world directory: rank 0 makes it and its manifest, then the others
 * open it. */
static void open_dir(world_run *wr)
{
    const job *o = wr->o;
    const strata_format fmt = o->tile_format == 1 ? STRATA_FORMAT_PLY : STRATA_FORMAT_GLB;
    strata_status st = STRATA_OK;
    if (wr->lead)
        st = strata_world_dir_create(wr->ctx, wr->w, o->output, fmt, &wr->dir);
    if (!procs_all_ok(st == STRATA_OK) && st == STRATA_OK)
        procs_exit(EXIT_RUNTIME);
    if (!wr->lead)
        st = strata_world_dir_create(wr->ctx, wr->w, o->output, fmt, &wr->dir);
    if (procs_size() > 1 && !procs_all_ok(st == STRATA_OK) && st == STRATA_OK)
        procs_exit(EXIT_RUNTIME);
    if (st == STRATA_ERR_CONFLICT)
        die(EXIT_RUNTIME,
            "'%s' holds another world (other options, planes, tile format or --place): use "
            "another directory, or remove it",
            o->output);
    if (st == STRATA_ERR_FORMAT)
        die(EXIT_RUNTIME,
            "'%s/world.json' is not a world manifest (malformed, or of another version): use "
            "another directory, or remove it",
            o->output);
    if (st == STRATA_ERR_IO)
        check_manifest(o->output);
    check_call(st, (call){.what = "world directory", .path = o->output, .write = true});
    lock_dir(wr->dir, o->output, wr->whole && procs_size() == 1);
    if (o->compress)
        check(strata_world_dir_set_compress(wr->dir, 1), "--compress");
}

/* --preview: a canvas every chunk is drawn into as it is made. */
static void open_canvas(world_run *wr, const strata_palette *pal)
{
    const job *o = wr->o;
    if (!o->preview)
        return;
    strata_preview_options po;
    strata_preview_defaults(&po);
    po.view = (strata_preview_view)o->view;
    po.size = (uint32_t)o->preview_size;
    po.palette = pal;
    strata_preview_frame frame;
    check(strata_world_preview_frame(wr->w, &frame), "preview");
    check(strata_preview_canvas_create(wr->ctx, &po,
                                       wr->wj.wo.kind == STRATA_WORLD_PLANET ? STRATA_RADIAL
                                                                              : STRATA_FLAT,
                                       &frame, &wr->canvas),
          "preview");
}

/* Make the chunks (shared by the MPI ranks, rank 0 handing them out
 * costliest first), their records collected; a failure's message names
 * the tile. */
static void make_chunks(world_run *wr, const strata_palette *pal)
{
    const job *o = wr->o;
    wr->col.recs = calloc(wr->nchunks, sizeof *wr->col.recs);
    wr->col.have = calloc(wr->nchunks, 1);
    if (!wr->col.recs || !wr->col.have)
        die(EXIT_RUNTIME, "out of memory");
    strata_world_run_options ro;
    strata_world_run_defaults(&ro);
    ro.dir = wr->dir;
    ro.palette = pal;
    ro.resume = o->resume;
    ro.ids = wr->ids;
    ro.nids = wr->nids;
    if (procs_size() > 1) {
        g_order_world = wr->w;
        qsort(wr->ids, wr->nids, sizeof *wr->ids, by_cost);
        procs_share(wr->ids, wr->nids);
        ro.ids = NULL;
        ro.nids = 0;
        ro.next = procs_next;
        progress_share(procs_handed);
    }
    ro.done = collect;
    ro.done_user = &wr->col;
    ro.preview = wr->canvas;
    const double t1 = now();
    const strata_status st = strata_world_run(wr->ctx, wr->w, &ro, &wr->rs);
    if (procs_size() > 1) {
        procs_unshare(st != STRATA_OK);
        if (!procs_all_ok(st == STRATA_OK) && st == STRATA_OK) {
            if (wr->lead)
                fprintf(stderr, "strata: another rank failed (its message is above); the tiles "
                                "written are complete: run again with --resume\n");
            procs_exit(EXIT_RUNTIME);
        }
    }
    wr->t_chunks = now() - t1;
    if (st != STRATA_OK && wr->rs.failed_chunk != UINT64_MAX && st != STRATA_ERR_CANCELLED &&
        !interrupted()) {
        char rel[96], path[4200];
        strata_world_dir_tile_path(wr->dir, wr->rs.failed_chunk, rel, sizeof rel);
        snprintf(path, sizeof path, "%s/%s", o->output, rel);
        if (st == STRATA_ERR_CONFLICT || st == STRATA_ERR_FORMAT)
            die(EXIT_RUNTIME,
                "tile '%s': %s; remove it and run again with --resume",
                path, st == STRATA_ERR_CONFLICT ? "belongs to another world or chunk"
                                                : "not a complete tile (corrupt)");
        check_call(st, (call){.path = path, .write = true});
    }
    check(st, "chunks");
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    wr->rss_max = wr->rss_sum = (long long)ru.ru_maxrss * 1024;
    procs_gather(wr->col.recs, wr->col.have, wr->nchunks);
    procs_sum(&wr->rs, &wr->rss_max, &wr->rss_sum);
}

/* The loops of world directory dir (at path) joined into file. */
static void join_loops(strata_ctx *ctx, strata_world_dir *dir, const char *path,
                       const char *file)
{
    uint64_t failed;
    const strata_status st = strata_world_dir_join_loops(ctx, dir, file, &failed);
    if (st == STRATA_ERR_INVALID_ARG)
        die(EXIT_USAGE, "--loops %s: '%s' was made without --loops (no loops beside its tiles)",
            file, path);
    if (failed != UINT64_MAX && (st == STRATA_ERR_IO || st == STRATA_ERR_FORMAT)) {
        char rel[96], p[4200];
        strata_world_dir_tile_path(dir, failed, rel, sizeof rel);
        *strrchr(rel, '.') = '\0';
        snprintf(p, sizeof p, "%s/%s.geojson", path, rel);
        if (st == STRATA_ERR_FORMAT)
            die(EXIT_RUNTIME, "tile loops '%s': not loops strata wrote", p);
        check_call(st, (call){.what = "tile loops", .path = p});
    }
    check_call(st, (call){.path = file, .write = true});
}

/* Every chunk made or read back (a whole run, rank 0): the tileset. */
static void write_tileset(world_run *wr)
{
    if (!wr->whole || !wr->lead || wr->o->tile_format != 0) /* PLY tiles: none */
        return;
    const double t2 = now();
    strata_tile_record *all = malloc(sizeof *all * (wr->nchunks ? wr->nchunks : 1));
    if (!all)
        die(EXIT_RUNTIME, "out of memory");
    uint64_t n = 0;
    for (uint64_t id = 0; id < wr->nchunks; id++)
        if (wr->col.have[id])
            all[n++] = wr->col.recs[id];
    const char *out = wr->o->output;
    check_call(strata_world_dir_clean(wr->ctx, wr->dir, NULL),
               (call){.path = out, .write = true});
    check_call(strata_world_dir_write_tileset(wr->ctx, wr->dir, all, n),
               (call){.path = out, .write = true});
    free(all);
    if (wr->o->loops)
        join_loops(wr->ctx, wr->dir, out, wr->o->loops);
    wr->t_tileset = now() - t2;
}

static void write_canvas(world_run *wr)
{
    if (!wr->canvas)
        return;
    const double t3 = now();
    const strata_status st =
        strata_preview_canvas_write_png(wr->ctx, wr->canvas, wr->o->preview);
    check_call(st, (call){.path = wr->o->preview, .write = true,
                          .why = st == STRATA_ERR_UNSUPPORTED
                                     ? "this strata was built without a PNG library"
                                     : NULL});
    wr->t_preview = now() - t3;
}

/* --stats (rank 0) and the summary lines. */
static void print_run(const world_run *wr)
{
    const job *o = wr->o;
    const strata_world_run_stats *rs = &wr->rs;
    if (o->stats && wr->lead) {
        FILE *e = stderr;
        fprintf(e, "time.range=%.6f\ntime.chunks=%.6f\ntime.tileset=%.6f\n", wr->t_range,
                wr->t_chunks, wr->t_tileset);
        if (o->preview)
            fprintf(e, "time.preview=%.6f\n", wr->t_preview);
        fprintf(e, "threads=%d\nisa=%s\n", strata_ctx_threads(wr->ctx),
                strata_isa_name(strata_ctx_isa(wr->ctx)));
        fprintf(e, "chunks.total=%llu\nchunks.asked=%llu\nchunks.made=%llu\nchunks.skipped=%llu\n",
                (unsigned long long)wr->nchunks, (unsigned long long)wr->nids,
                (unsigned long long)rs->made, (unsigned long long)rs->skipped);
        fprintf(e, "triangles=%llu\nbytes=%llu\n", (unsigned long long)rs->triangles,
                (unsigned long long)rs->bytes);
        fprintf(e, "seconds.lattice=%.6f\nseconds.noise=%.6f\nseconds.slice=%.6f\n"
                   "seconds.write=%.6f\n",
                rs->seconds_lattice, rs->seconds_noise, rs->seconds_slice, rs->seconds_write);
        fprintf(e, "peak_rss_bytes=%lld\n", wr->rss_max);
        fprintf(e, "ranks=%d\nranks.peak_rss_bytes_sum=%lld\nprocesses=%s\n", procs_size(),
                wr->rss_sum, procs_describe());
    }
    if (o->quiet)
        return;
    char b[32];
    human_bytes((double)rs->bytes, b, sizeof b);
    fprintf(stderr, "strata: wrote %s: %llu tile%s (%llu made, %llu already there), %llu "
                    "triangles, %s%s\n",
            o->output, (unsigned long long)(rs->made + rs->skipped),
            rs->made + rs->skipped == 1 ? "" : "s", (unsigned long long)rs->made,
            (unsigned long long)rs->skipped, (unsigned long long)rs->triangles, b,
            !wr->whole ? "" : o->tile_format == 0 ? ", tileset.json" : "; no tileset.json");
    if (wr->whole && o->tile_format != 0)
        fprintf(stderr, "strata: no 3D Tiles client loads PLY tiles: make the world with "
                        "--tile-format glb for a tileset.json\n");
    else if (!wr->whole && o->tile_format == 0)
        fprintf(stderr, "strata: run 'strata tileset %s' once every shard is done\n", o->output);
    if (o->preview)
        fprintf(stderr, "strata: wrote %s: %lldx%lld pixels\n", o->preview, o->preview_size,
                o->preview_size);
    if (o->place_auto)
        fprintf(stderr,
                "strata: placed where '%s' lies: its centre at %.7f, %.7f (WGS84), its grid "
                "north %.4f degrees east of north, %.6g m a unit (--place none: unplaced)\n",
                o->heightmap, o->place_at[0], o->place_at[1], o->place_heading,
                o->place_scale);
}

int run_world(job *o)
{
    world_run wr = {.o = o};
    procs_init();
    wr.lead = procs_rank() == 0; /* prints, writes the tileset */
    if (!wr.lead)
        o->quiet = true;
    interrupt_catch();
    wr.ctx = job_ctx(o);
    check(strata_ctx_set_threads(wr.ctx, (int)o->threads), "--threads");
    interrupt_watch(wr.ctx);
    check_interrupt();
    world_setup(wr.ctx, o, &wr.wj);
    strata_palette pal;
    job_palette(o, &pal);
    if (o->preview && procs_size() > 1)
        usage_error("--preview %s: draws a world made by one process, not by %d MPI ranks",
                    o->preview, procs_size());
    if (o->preview && !o->dry_run)
        check_writable(o->preview, o->quiet);
    uint64_t shard_k = 0, shard_n = 1;
    if (o->shard)
        parse_shard(o->shard, &shard_k, &shard_n);
    if (o->dry_run) { /* figures without the range pass: see dry_run */
        if (!wr.lead)
            procs_exit(EXIT_SUCCESS);
        const int rc = dry_run(o, &wr.wj, strata_ctx_threads(wr.ctx), shard_k, shard_n);
        world_job_free(&wr.wj);
        interrupt_watch(NULL);
        strata_ctx_destroy(wr.ctx);
        return rc;
    }
    progress_start(wr.ctx, o->quiet);
    const double t0 = now();
    create_world(wr.ctx, o, &wr.wj, &wr.w);
    wr.t_range = now() - t0;
    if (o->sculpt) {
        /* DIR is the world's directory (world.json, no tiles), locked for
         * the editor's life: another editor or a world run on it fails,
         * naming this one */
        progress_clear();
        wr.whole = true;
        open_dir(&wr);
        const int rc = run_sculpt(wr.ctx, o, wr.w);
        strata_world_dir_close(wr.dir);
        interrupt_watch(NULL);
        strata_world_destroy(wr.w);
        world_job_free(&wr.wj);
        strata_ctx_destroy(wr.ctx);
        return rc;
    }
    check_interrupt();
    wr.nchunks = strata_world_chunk_count(wr.w);
    chunk_ids(&wr, shard_k, shard_n);
    open_dir(&wr);
    open_canvas(&wr, &pal);
    make_chunks(&wr, &pal);
    write_tileset(&wr);
    write_canvas(&wr);
    progress_clear();
    print_run(&wr);
    interrupt_watch(NULL);
    strata_preview_canvas_destroy(wr.canvas);
    free(wr.col.recs);
    free(wr.col.have);
    free(wr.ids);
    strata_world_dir_close(wr.dir);
    strata_world_destroy(wr.w);
    world_job_free(&wr.wj);
    strata_ctx_destroy(wr.ctx);
    return EXIT_SUCCESS;
}

/* ------------------------------------------------------------ tileset */

int run_tileset(job *o)
{
    strata_ctx *ctx = job_ctx(o);
    strata_world_dir *dir;
    const char *path = o->input;
    strata_status st = strata_world_dir_open(ctx, path, &dir);
    if (st == STRATA_ERR_IO && errno == ENOENT)
        die(EXIT_RUNTIME, "'%s' is not a world directory (no world.json in it)", path);
    if (st == STRATA_ERR_IO)
        check_manifest(path);
    check_call(st, (call){.what = "world directory", .path = path,
                          .why = st == STRATA_ERR_FORMAT ? "world.json is not a world manifest"
                                                         : NULL});
    lock_dir(dir, path, false);
    const uint64_t n = strata_world_dir_chunk_count(dir);
    strata_tile_record *recs = malloc(sizeof *recs * (n ? n : 1));
    if (!recs)
        die(EXIT_RUNTIME, "out of memory");
    uint64_t have = 0, missing = 0, first_missing = 0;
    for (uint64_t id = 0; id < n; id++) {
        st = (o->verify ? strata_world_dir_check_tile : strata_world_dir_read_tile)(ctx, dir, id,
                                                                                  &recs[have]);
        if (st == STRATA_OK) {
            have++;
            continue;
        }
        char rel[96], p[4200];
        strata_world_dir_tile_path(dir, id, rel, sizeof rel);
        snprintf(p, sizeof p, "%s/%s", path, rel);
        if (st == STRATA_ERR_IO && errno == ENOENT) {
            if (!missing++)
                first_missing = id;
            continue;
        }
        if (st == STRATA_ERR_CONFLICT || st == STRATA_ERR_FORMAT)
            die(EXIT_RUNTIME, "tile '%s': %s", p,
                st == STRATA_ERR_CONFLICT ? "belongs to another world or chunk"
                                          : "not a complete tile (corrupt)");
        check_call(st, (call){.what = "tile", .path = p});
    }
    if (missing && !o->partial) {
        char rel[96];
        strata_world_dir_tile_path(dir, first_missing, rel, sizeof rel);
        die(EXIT_RUNTIME,
            "%s: %llu of %llu tiles missing (the first: %s); make them (--resume) or write a "
            "partial tileset with --partial",
            path, (unsigned long long)missing, (unsigned long long)n, rel);
    }
    uint64_t stale = 0;
    check_call(strata_world_dir_clean(ctx, dir, &stale), (call){.path = path, .write = true});
    st = strata_world_dir_write_tileset(ctx, dir, recs, have);
    if (st == STRATA_ERR_UNSUPPORTED)
        die(EXIT_RUNTIME,
            "%s: its tiles are PLY, which no 3D Tiles client loads: no tileset.json written "
            "(%llu of %llu tiles %s); make the world with --tile-format glb for a tileset",
            path, (unsigned long long)have, (unsigned long long)n,
            o->verify ? "whole, checksums verified" : "whole");
    check_call(st, (call){.path = path, .write = true});
    if (o->loops)
        join_loops(ctx, dir, path, o->loops);
    if (stale && !o->quiet)
        fprintf(stderr, "strata: removed %llu temporary file%s a killed run left\n",
                (unsigned long long)stale, stale == 1 ? "" : "s");
    if (!o->quiet)
        fprintf(stderr, "strata: wrote %s/tileset.json: %llu of %llu tiles\n", path,
                (unsigned long long)have, (unsigned long long)n);
    free(recs);
    strata_world_dir_close(dir);
    strata_ctx_destroy(ctx);
    return EXIT_SUCCESS;
}
