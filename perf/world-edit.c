/* world-edit: the cost of an interactive edit on a planet world against
 * re-making the whole planet.
 *
 *   perf/world-edit [--level L] [--chunk-level C,...] [--share S] [--threads N] [--reps R]
 *
 * For each chunk level: a planet world of level L (default 10, 32
 * terraces, 6 octaves of simplex fBm) is made whole into a directory of
 * GLB tiles; then a brush raises a spherical cap covering the share S
 * (default 0.01) of the sphere by a smooth bump, and only the chunks
 * strata_world_chunks_near names are re-made and re-written.  Prints
 * key=value lines: the chunks touched, seconds of the whole run and of
 * the edit (best of R), and their ratio (target: at most 0.05 for
 * S = 0.01). */
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
        fprintf(stderr, "world-edit: %s: %s\n", what, strata_status_str(st));
        exit(1);
    }
}

/* A bump of height `lift` at `c`, falling smoothly to 0 at distance r. */
typedef struct {
    float c[3], r, lift;
} brush;

static void brush_fn(void *user, const float *x, const float *y, const float *z, float *h,
                     size_t n)
{
    const brush *b = user;
    for (size_t i = 0; i < n; i++) {
        /* distance between directions, on the unit sphere */
        const float len = sqrtf(x[i] * x[i] + y[i] * y[i] + z[i] * z[i]);
        const float dx = x[i] / len - b->c[0], dy = y[i] / len - b->c[1],
                    dz = z[i] / len - b->c[2];
        const float d = sqrtf(dx * dx + dy * dy + dz * dz);
        if (d < b->r) {
            const float t = 1.0f - d / b->r;
            h[i] += b->lift * t * t * (3.0f - 2.0f * t);
        }
    }
}

static int parse_list(const char *s, int *v, int cap)
{
    int n = 0;
    while (*s && n < cap) {
        char *end;
        v[n++] = (int)strtol(s, &end, 10);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *end)
            break;
    }
    return n;
}

int main(int argc, char **argv)
{
    int level = 10, threads = 0, reps = 3, cl[8] = {3, 4}, ncl = 2;
    double share = 0.01;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--level") && i + 1 < argc)
            level = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--chunk-level") && i + 1 < argc)
            ncl = parse_list(argv[++i], cl, 8);
        else if (!strcmp(argv[i], "--share") && i + 1 < argc)
            share = atof(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: world-edit [--level L] [--chunk-level C,...] [--share S] "
                            "[--threads N] [--reps R]\n");
            return 2;
        }
    }
    strata_ctx_options co;
    strata_ctx_defaults(&co);
    co.threads = threads;
    strata_ctx *ctx;
    need(strata_ctx_create(&co, &ctx), "context");
    char tmpl[] = "/tmp/strata-world-edit.XXXXXX";
    if (!mkdtemp(tmpl)) {
        perror("world-edit: mkdtemp");
        return 1;
    }
    /* the cap of solid-angle share S: 1 - cos(theta) = 2 S; its edge is at
     * chord 2 sin(theta / 2) between unit directions */
    const double theta = acos(1.0 - 2.0 * share);
    brush b = {{0.36f, 0.48f, 0.8f}, (float)(2.0 * sin(theta / 2.0)), 0.05f};
    for (int k = 0; k < ncl; k++) {
        strata_fbm fbm;
        strata_fbm_defaults(&fbm);
        fbm.frequency = 1.5f;
        fbm.amplitude = 0.08f;
        strata_world_options wo;
        strata_world_defaults(&wo);
        wo.kind = STRATA_WORLD_PLANET;
        wo.level = level;
        wo.chunk_level = cl[k];
        wo.noise = &fbm;
        wo.terraces = 32;
        strata_world *w;
        need(strata_world_create(ctx, &wo, &w), "world");
        char dirpath[64];
        snprintf(dirpath, sizeof dirpath, "%s/c%d", tmpl, cl[k]);
        strata_world_dir *dir;
        need(strata_world_dir_create(ctx, w, dirpath, STRATA_FORMAT_GLB, &dir), "directory");
        const uint64_t n = strata_world_chunk_count(w);
        uint64_t *all = malloc(sizeof *all * n), *near = malloc(sizeof *near * n), nnear = 0;
        if (!all || !near)
            return 1;
        for (uint64_t i = 0; i < n; i++)
            all[i] = i;
        need(strata_world_chunks_near(w, b.c, b.r, near, n, &nnear), "chunks_near");
        strata_world_run_options ro;
        strata_world_run_defaults(&ro);
        ro.dir = dir;
        double whole = 1e30, edit = 1e30;
        for (int r = 0; r < reps; r++) {
            strata_world_set_height_fn(w, NULL, NULL);
            ro.ids = all;
            ro.nids = n;
            double t = now();
            need(strata_world_run(ctx, w, &ro, NULL), "whole run");
            t = now() - t;
            whole = t < whole ? t : whole;
            strata_world_set_height_fn(w, brush_fn, &b);
            ro.ids = near;
            ro.nids = nnear;
            t = now();
            need(strata_world_run(ctx, w, &ro, NULL), "edit run");
            t = now() - t;
            edit = t < edit ? t : edit;
        }
        printf("bench=world_edit level=%d chunk_level=%d chunks=%llu share=%.4f "
               "chunks_touched=%llu chunks_touched_share=%.4f threads=%d whole_s=%.4f "
               "edit_s=%.4f ratio=%.4f\n",
               level, cl[k], (unsigned long long)n, share, (unsigned long long)nnear,
               (double)nnear / (double)n, strata_ctx_threads(ctx), whole, edit, edit / whole);
        fflush(stdout);
        free(all);
        free(near);
        strata_world_dir_close(dir);
        strata_world_destroy(w);
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dirpath);
        if (system(cmd) != 0)
            fprintf(stderr, "world-edit: could not remove %s\n", dirpath);
    }
    rmdir(tmpl);
    strata_ctx_destroy(ctx);
    return 0;
}
