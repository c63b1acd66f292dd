/* sculpt-dab: the latency of one brush dab on a world directory, as an
 * editor would pay it: the dab appended to the edit log, the log saved
 * beside the tiles, the chunks near the dab found, re-sliced and their
 * tiles re-written.
 *
 *   perf/sculpt-dab [--level L] [--chunk-level C,...] [--radius R] [--dabs N]
 *                   [--threads T] [--tile-sync 0|1] [--brush NAME]
 *
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
    bench b = {9, 0, 200, 1, 0.05f, STRATA_BRUSH_RAISE};
    int cl[8] = {4, 5}, ncl = 2;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v && !strcmp(a, "--level"))
            b.level = atoi(v);
        else if (v && !strcmp(a, "--chunk-level"))
            ncl = parse_list(v, cl, 8);
        else if (v && !strcmp(a, "--radius"))
            b.radius = (float)atof(v);
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
    if (!ncl || b.dabs < 1 || !(b.radius > 0.0f)) {
        fprintf(stderr, "usage: sculpt-dab [--level L] [--chunk-level C,...] [--radius R] "
                        "[--dabs N] [--threads T] [--tile-sync 0|1]\n"
                        "                  [--brush raise|lower|smooth|terrace|noise]\n");
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
        run_level(ctx, &b, cl[k], tmpl);
    rmdir(tmpl);
    strata_ctx_destroy(ctx);
    return 0;
}
