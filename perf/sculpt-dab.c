/* sculpt-dab: the latency of one brush dab on a world, as an editor
 * pays it.
 *
 *   perf/sculpt-dab [--level L] [--chunk-level C,...] [--radius R] [--dabs N]
 *                   [--threads T] [--tile-sync 0|1] [--brush NAME]
 *   perf/sculpt-dab --memory [--terrain CELLS] [--level L] [--chunk-level C,...]
 *                   [--radius R] [--dabs N] [--threads T] [--log-sync 0|1]
 *
 * With --memory, the path of 'strata ... --sculpt' (apps/sculpt.c): the
 * dab appended to the log, the log saved (fsync'ed unless --log-sync 0),
 * the chunks near it made again in memory and packed into the bytes the
 * editor's reply carries (apps/pack.c), no tile files; a planet of level
 * L (chunk levels C), or with --terrain a CELLS x CELLS grid terrain
 * (size 1, the command line's default noise, tile sides C cells,
 * default 64,128; the radius a share of the side, default 0.02).  One
 * line a chunk size: bench=sculpt_dab_memory, the chunks a dab touched
 * and the reply's bytes (means), the latency's median, p99 and max, its
 * parts' medians (log save; re-slice and pack), and whether it meets the
 * target (median <= 16 ms, p99 <= 33 ms).
 *
 * Without --memory, a planet world directory: the chunks near the dab
 * re-sliced and their tiles re-written.
 * For each chunk level: a planet world of level L (default 9: 5.2M
 * triangles; 32 terraces, simplex fBm) made whole into a directory of GLB
 * tiles, then N dabs (default 200) of the brush (default raise) with
 * radius R (default 0.05 of the planet's radius) at pseudo-random
 * centres, one after the other, each timed from the append to the last
 * tile renamed into place.  The log is fsync'ed (it is what a restart
 * continues from); the tiles too unless --tile-sync 0 (an editor can make
 * them again from the log).  Prints one key=value line per chunk level:
 * the chunks a dab touched (mean), the latency's median and 99th
 * percentile and its parts' medians (log save; re-slice and re-write),
 * in milliseconds. */
#define _POSIX_C_SOURCE 200809L

#include "strata.h"
#include "pack.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void need(strata_status st, const char *what)
{
    if (st != STRATA_OK) {
        fprintf(stderr, "sculpt-dab: %s: %s\n", what, strata_status_str(st));
        exit(1);
    }
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile of sorted v[0..n) (nearest rank). */
static double quantile(const double *v, int n, double q)
{
    int k = (int)ceil(q * n) - 1;
    return v[k < 0 ? 0 : k >= n ? n - 1 : k];
}

static int parse_list(const char *s, int *v, int cap)
{
    int n = 0;
    while (*s && n < cap) {
        char *end;
        v[n++] = (int)strtol(s, &end, 10);
        if (end == s)
            return 0;
        s = *end == ',' ? end + 1 : end;
    }
    return n;
}

typedef struct {
    int level, threads, dabs;
    int tile_sync; /* tiles fsync'ed (the log always is) */
    float radius;
    strata_brush brush;
    int memory;   /* --memory: the editor's in-memory path */
    int terrain;  /* --terrain CELLS, 0: a planet */
    int log_sync; /* --memory: the log fsync'ed */
} bench;

/* A pseudo-random point on the unit sphere (xorshift32, fixed seed). */
static void random_centre(uint32_t *s, float c[3])
{
    float v[3], len;
    do {
        for (int k = 0; k < 3; k++) {
            *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
            v[k] = (float)(*s >> 8) / 8388608.0f - 1.0f;
        }
        len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    } while (len < 0.1f || len > 1.0f);
    for (int k = 0; k < 3; k++)
        c[k] = v[k] / len;
}

/* A pseudo-random point of the terrain [-1/2, 1/2]^2 (y 0). */
static void random_point(uint32_t *s, float c[3])
{
    for (int k = 0; k < 3; k += 2) {
        *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
        c[k] = (float)(*s >> 8) / 16777216.0f - 0.5f;
    }
    c[1] = 0.0f;
}

static void sorted_figures(double *v, int n, double out[3])
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    out[0] = quantile(v, n, 0.5);
    out[1] = quantile(v, n, 0.99);
    out[2] = v[n - 1];
}

/* The editor's dab: append, save the log, re-make and pack the chunks
 * near it (no files but the log). */
static void run_memory(strata_ctx *ctx, const bench *b, int cl, const char *tmp)
{
    strata_fbm fbm;
    strata_fbm_defaults(&fbm);
    strata_world_options wo;
    strata_world_defaults(&wo);
    if (b->terrain) {
        fbm.frequency = 3.0f; /* the command line's terrain defaults for size 1 */
        fbm.amplitude = 0.15f;
        wo.kind = STRATA_WORLD_TERRAIN;
        wo.cells_x = wo.cells_z = (uint32_t)b->terrain;
        wo.cell_size = 1.0f / (float)b->terrain;
        wo.tile_cells = (uint32_t)cl;
    } else {
        fbm.frequency = 1.5f;
        fbm.amplitude = 0.08f;
        wo.level = b->level;
        wo.chunk_level = cl;
    }
    wo.noise = &fbm;
    wo.terraces = 32;
    wo.normals = 1;
    strata_world *w;
    double t = now();
    need(strata_world_create(ctx, &wo, &w), "world");
    const double create = now() - t;
    char logpath[300];
    snprintf(logpath, sizeof logpath, "%s/edits.strata", tmp);
    const uint64_t n = strata_world_chunk_count(w);
    uint64_t *near = malloc(sizeof *near * n), touched = 0, bytes = 0;
    double *lat = malloc(sizeof *lat * (size_t)b->dabs), *save = malloc(sizeof *save * (size_t)b->dabs),
           *remake = malloc(sizeof *remake * (size_t)b->dabs);
    strata_edits *e;
    strata_result *r;
    if (!near || !lat || !save || !remake)
        exit(1);
    need(strata_edits_create(&e), "edits");
    need(strata_result_create(ctx, &r), "result");
    strata_world_set_edits(w, e);
    strata_ctx_set_sync(ctx, b->log_sync);
    uint32_t seed = 2463534242u;
    for (int i = 0; i < b->dabs; i++) {
        const int gentle = b->brush == STRATA_BRUSH_SMOOTH || b->brush == STRATA_BRUSH_TERRACE;
        strata_edit d = {b->brush, {0, 0, 0}, b->radius, gentle ? 0.8f : 0.01f};
        if (b->terrain)
            random_point(&seed, d.center);
        else
            random_centre(&seed, d.center);
        const double t0 = now();
        need(strata_edits_append(e, &d), "append");
        need(strata_edits_save(ctx, e, logpath), "save the log");
        const double t1 = now();
        uint64_t nn;
        need(strata_world_chunks_near(w, d.center, d.radius, near, n, &nn), "chunks_near");
        pack_buf pb = {0};
        pack_begin(&pb, nn);
        for (uint64_t k = 0; k < nn; k++)
            need(pack_chunk(ctx, w, r, near[k], &pb), "chunk");
        const double t2 = now();
        touched += nn;
        bytes += pb.len;
        free(pb.p);
        lat[i] = 1e3 * (t2 - t0);
        save[i] = 1e3 * (t1 - t0);
        remake[i] = 1e3 * (t2 - t1);
    }
    double fl[3], fs[3], fr[3];
    sorted_figures(lat, b->dabs, fl);
    sorted_figures(save, b->dabs, fs);
    sorted_figures(remake, b->dabs, fr);
    printf("bench=sculpt_dab_memory world=%s size=%d chunk=%d chunks=%llu brush=%s radius=%.4f "
           "threads=%d log_sync=%d dabs=%d create_s=%.3f chunks_touched_mean=%.2f "
           "reply_bytes_mean=%.0f median_ms=%.3f p99_ms=%.3f max_ms=%.3f save_median_ms=%.3f "
           "remake_median_ms=%.3f remake_p99_ms=%.3f target_median_ms=16 target_p99_ms=33 "
           "meets_target=%d\n",
           b->terrain ? "terrain" : "planet", b->terrain ? b->terrain : b->level, cl,
           (unsigned long long)n, strata_brush_name(b->brush), (double)b->radius,
           strata_ctx_threads(ctx), b->log_sync, b->dabs, create,
           (double)touched / b->dabs, (double)bytes / b->dabs, fl[0], fl[1], fl[2], fs[0], fr[0],
           fr[1], fl[0] <= 16.0 && fl[1] <= 33.0);
    fflush(stdout);
    unlink(logpath);
    free(near);
    free(lat);
    free(save);
    free(remake);
    strata_result_destroy(r);
    strata_world_destroy(w);
    strata_edits_destroy(e);
}

static void run_level(strata_ctx *ctx, const bench *b, int cl, const char *tmp)
{
    strata_fbm fbm;
    strata_fbm_defaults(&fbm);
    fbm.frequency = 1.5f;
    fbm.amplitude = 0.08f;
    strata_world_options wo;
    strata_world_defaults(&wo);
    wo.level = b->level;
    wo.chunk_level = cl;
    wo.noise = &fbm;
    wo.terraces = 32;
    wo.normals = 1;
    strata_world *w;
    need(strata_world_create(ctx, &wo, &w), "world");
    char dirpath[256], logpath[300];
    snprintf(dirpath, sizeof dirpath, "%s/c%d", tmp, cl);
    snprintf(logpath, sizeof logpath, "%s/edits.txt", dirpath);
    strata_world_dir *dir;
    need(strata_world_dir_create(ctx, w, dirpath, STRATA_FORMAT_GLB, &dir), "directory");
    strata_world_run_options ro;
    strata_world_run_defaults(&ro);
    ro.dir = dir;
    const uint64_t n = strata_world_chunk_count(w);
    uint64_t *near = malloc(sizeof *near * n), touched = 0;
    if (!near)
        exit(1);
    for (uint64_t i = 0; i < n; i++)
        near[i] = i;
    ro.ids = near;
    ro.nids = n;
    double t = now();
    need(strata_world_run(ctx, w, &ro, NULL), "whole run");
    const double whole = now() - t;
    strata_edits *e;
    need(strata_edits_create(&e), "edits");
    strata_world_set_edits(w, e);
    double *lat = malloc(sizeof *lat * (size_t)b->dabs), *save = malloc(sizeof *save * (size_t)b->dabs),
           *remake = malloc(sizeof *remake * (size_t)b->dabs);
    if (!lat || !save || !remake)
        exit(1);
    uint32_t seed = 2463534242u;
    for (int i = 0; i < b->dabs; i++) {
        strata_edit d = {b->brush, {0, 0, 0}, b->radius,
                         b->brush == STRATA_BRUSH_SMOOTH || b->brush == STRATA_BRUSH_TERRACE
                             ? 0.8f
                             : 0.01f};
        random_centre(&seed, d.center);
        const double t0 = now();
        need(strata_edits_append(e, &d), "append");
        strata_ctx_set_sync(ctx, 1);
        need(strata_edits_save(ctx, e, logpath), "save the log");
        strata_ctx_set_sync(ctx, b->tile_sync);
        const double t1 = now();
        uint64_t nn;
        need(strata_world_chunks_near(w, d.center, d.radius, near, n, &nn), "chunks_near");
        ro.ids = near;
        ro.nids = nn;
        need(strata_world_run(ctx, w, &ro, NULL), "dab run");
        const double t2 = now();
        touched += nn;
        lat[i] = 1e3 * (t2 - t0);
        save[i] = 1e3 * (t1 - t0);
        remake[i] = 1e3 * (t2 - t1);
    }
    qsort(lat, (size_t)b->dabs, sizeof *lat, cmp_double);
    qsort(save, (size_t)b->dabs, sizeof *save, cmp_double);
    qsort(remake, (size_t)b->dabs, sizeof *remake, cmp_double);
    printf("bench=sculpt_dab level=%d chunk_level=%d chunks=%llu brush=%s radius=%.4f "
           "threads=%d tile_sync=%d dabs=%d whole_s=%.3f chunks_touched_mean=%.2f median_ms=%.3f "
           "p99_ms=%.3f max_ms=%.3f save_median_ms=%.3f remake_median_ms=%.3f "
           "remake_p99_ms=%.3f\n",
           b->level, cl, (unsigned long long)n, strata_brush_name(b->brush), (double)b->radius,
           strata_ctx_threads(ctx), b->tile_sync, b->dabs, whole, (double)touched / b->dabs,
           quantile(lat, b->dabs, 0.5), quantile(lat, b->dabs, 0.99), lat[b->dabs - 1],
           quantile(save, b->dabs, 0.5), quantile(remake, b->dabs, 0.5),
           quantile(remake, b->dabs, 0.99));
    fflush(stdout);
    free(near);
    free(lat);
    free(save);
    free(remake);
    strata_world_dir_close(dir);
    strata_world_destroy(w);
    strata_edits_destroy(e);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dirpath);
    if (system(cmd) != 0)
        fprintf(stderr, "sculpt-dab: could not remove %s\n", dirpath);
}

int main(int argc, char **argv)
{
    bench b = {9, 0, 200, 1, 0.05f, STRATA_BRUSH_RAISE, 0, 0, 1};
    int cl[8] = {4, 5}, ncl = 2, given_cl = 0, given_radius = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--memory")) {
            b.memory = 1;
            continue;
        }
        if (v && !strcmp(a, "--terrain"))
            b.terrain = atoi(v);
        else if (v && !strcmp(a, "--log-sync"))
            b.log_sync = atoi(v) != 0;
        else if (v && !strcmp(a, "--level"))
            b.level = atoi(v);
        else if (v && !strcmp(a, "--chunk-level"))
            ncl = parse_list(v, cl, 8), given_cl = 1;
        else if (v && !strcmp(a, "--radius"))
            b.radius = (float)atof(v), given_radius = 1;
        else if (v && !strcmp(a, "--dabs"))
            b.dabs = atoi(v);
        else if (v && !strcmp(a, "--threads"))
            b.threads = atoi(v);
        else if (v && !strcmp(a, "--tile-sync"))
            b.tile_sync = atoi(v) != 0;
        else if (!(v && !strcmp(a, "--brush") && strata_brush_from_name(v, &b.brush) == STRATA_OK))
            ncl = 0;
        i++;
    }
    if (b.terrain && !given_cl)
        cl[0] = 64, cl[1] = 128;
    if (b.terrain && !given_radius)
        b.radius = 0.02f;
    if (!ncl || b.dabs < 1 || !(b.radius > 0.0f) || b.terrain < 0 || (b.terrain && !b.memory)) {
        fprintf(stderr, "usage: sculpt-dab [--level L] [--chunk-level C,...] [--radius R] "
                        "[--dabs N] [--threads T] [--tile-sync 0|1]\n"
                        "                  [--brush raise|lower|smooth|terrace|noise]\n"
                        "       sculpt-dab --memory [--terrain CELLS] [--level L] "
                        "[--chunk-level C,...] [--radius R]\n"
                        "                  [--dabs N] [--threads T] [--log-sync 0|1] "
                        "[--brush NAME]\n");
        return 2;
    }
    strata_ctx_options co;
    strata_ctx_defaults(&co);
    co.threads = b.threads;
    strata_ctx *ctx;
    need(strata_ctx_create(&co, &ctx), "context");
    char tmpl[] = "/tmp/strata-sculpt-dab.XXXXXX";
    if (!mkdtemp(tmpl)) {
        perror("sculpt-dab: mkdtemp");
        return 1;
    }
    for (int k = 0; k < ncl; k++)
        (b.memory ? run_memory : run_level)(ctx, &b, cl[k], tmpl);
    rmdir(tmpl);
    strata_ctx_destroy(ctx);
    return 0;
}
