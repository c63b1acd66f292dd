/* strata bench (and perf/strata-bench) - throughput of libstrata's stages.
 *
 * Measures; one line per measurement, words of key=value after a leading tag
 * (machine, topology, bench, ratio, scaling, memory), so scripts can diff
 * runs:
 *
 *   bench stage=fbm3 isa=scalar threads=1 size=10000000 seconds=0.812 ...
 *
 * Inputs are built before the clock starts; every figure is the best of
 * --reps runs (the machine is shared: the minimum is the least disturbed
 * run, not an average of interference).  The `stacked` stage is a scalar
 * port of the classic stacked-roof terracing (icospheric.com, "Making
 * terraced terrain", 2016) run on the same input and planes as strata's
 * band slicer, as the baseline the band design is measured against.
 *
 * To tell where the time goes on a large machine: `topology` shows what
 * the threads run on, the `bandwidth` stage measures the memory's own
 * write and copy speed at each thread count, every stage's `bw_share` is
 * how much of that write speed its unavoidable bytes use, the `planet`
 * line has the pipeline's memory footprint against its input and output,
 * and `scaling` lines (at the end) give each stage's speedup over one
 * thread.  The `planet` line also has each step's page faults and peak
 * resident set (icosphere_minflt=, slice_peak_rss_mb=, ...): first
 * touches of fresh memory cost a page fault each, dear on virtual
 * machines.
 */
#define _POSIX_C_SOURCE 200809L

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "strata.h"
#include "bench.h"
/* The `kernels` stage runs the dispatch table's entries directly, through
 * the context, as tests/check_simd.c does. */
#include "base/ctx.h"
#include "../simd/displace.h"
#include "../simd/noise.h"
#include "../simd/slice.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef HAVE_HWLOC
#include <hwloc.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define MAX_THREADS 16
#define MAX_RUNS (MAX_THREADS * STRATA_ISA_COUNT_)
#define MIB (1024.0 * 1024.0) /* every *_mb figure is in MiB */

static struct {
    int quick, reps;
    int child; /* --planet-child: run one planet measurement (see bench_planet) */
    int busy;  /* --busy N: threads spinning all through the run */
    int nthreads, threads[MAX_THREADS];
    int nisas;
    strata_isa isas[STRATA_ISA_COUNT_];
    const char *stage; /* NULL: all; else a comma list */
    char ply[4096];    /* scratch output file */
    int command;       /* `strata bench`, not perf/strata-bench */
    bench_format format;
    const char *chart; /* --chart FILE.svg */
    FILE *out;         /* the lines: stdout, or kept for the report */
    int parsing;       /* errors now are the arguments': exit status 2 */
} cfg = {.reps = 3, .isas = {STRATA_ISA_SCALAR}};

/* ------------------------------------------------------------ helpers */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

_Noreturn static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(cfg.command ? "strata bench: " : "strata-bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(cfg.parsing ? 2 : 1);
}

static void check(strata_status st, const char *what)
{
    if (st != STRATA_OK)
        die("%s: %s", what, strata_status_str(st));
}

/* 64-byte aligned, like the library's own arrays, so that inputs do not
 * straddle cache lines differently from run to run. */
static void *xalloc(size_t size)
{
    void *p = aligned_alloc(64, (size + 63) / 64 * 64);
    if (!p)
        die("out of memory (%zu bytes)", size);
    return p;
}

static int want(const char *stage)
{
    if (!cfg.stage)
        return 1;
    const size_t n = strlen(stage);
    for (const char *s = cfg.stage; *s;) {
        const size_t len = strcspn(s, ",");
        if (len == n && !strncmp(s, stage, n))
            return 1;
        s += len + (s[len] == ',');
    }
    return 0;
}

/* Start a bench line with ctx's settings (NULL: code outside the library's
 * kernels and threads: scalar, 1); the caller appends " key=value" words. */
static void bench_begin(const char *stage, const strata_ctx *ctx, uint64_t size)
{
    fprintf(cfg.out, "bench stage=%s isa=%s threads=%d size=%llu", stage,
           ctx ? strata_isa_name(strata_ctx_isa(ctx)) : "scalar",
           ctx ? strata_ctx_threads(ctx) : 1, (unsigned long long)size);
    if (cfg.busy)
        fprintf(cfg.out, " busy=%d", cfg.busy);
}

/* --busy N: N threads that spin from start to end, as other jobs on a
 * shared machine would, so `scaling` lines show whether more threads
 * still help when some cores are taken (a stage should never get slower
 * than at one thread).  They are not bound: the OS places them. */
static atomic_int busy_stop;

static void *busy_loop(void *arg)
{
    (void)arg;
    volatile unsigned long spins = 0;
    while (!atomic_load_explicit(&busy_stop, memory_order_relaxed))
        spins++;
    return NULL;
}

static pthread_t busy_threads[MAX_THREADS];

static void busy_start(void)
{
    for (int i = 0; i < cfg.busy; i++)
        if (pthread_create(&busy_threads[i], NULL, busy_loop, NULL) != 0)
            die("--busy: cannot start a thread");
}

static void busy_end(void)
{
    atomic_store(&busy_stop, 1);
    for (int i = 0; i < cfg.busy; i++)
        pthread_join(busy_threads[i], NULL);
}

static void bench_end(void)
{
    fputc('\n', cfg.out);
    fflush(cfg.out); /* lines appear as they are measured, also through tee */
}

/* Best of cfg.reps runs of fn, which returns the seconds of its own timed
 * part (setup and freeing stay outside the clock). */
static double best_of(double (*fn)(void *), void *arg)
{
    double best = INFINITY;
    for (int r = 0; r < cfg.reps; r++) {
        const double t = fn(arg);
        best = t < best ? t : best;
    }
    return best;
}

/* Measurements sweep every (ISA, thread count) pair: run r of nruns(). */
static int nruns(void)
{
    return cfg.nisas * cfg.nthreads;
}

static void set_run(strata_ctx *ctx, int r)
{
    check(strata_ctx_set_isa(ctx, cfg.isas[r / cfg.nthreads]), "isa");
    check(strata_ctx_set_threads(ctx, cfg.threads[r % cfg.nthreads]), "threads");
}

/* Building inputs is not measured: the library's own choices, fastest. */
static void set_default(strata_ctx *ctx)
{
    check(strata_ctx_set_isa(ctx, STRATA_ISA_AUTO), "isa");
    check(strata_ctx_set_threads(ctx, 0), "threads");
}

/* ------------------------------------------- memory bandwidth, scaling
 *
 * Every stage writes its output to memory at least once, so the machine's
 * own write bandwidth bounds it.  The `bandwidth` stage measures that bound
 * per thread count; the other stages report
 *
 *   bw_share = (min_bytes / seconds) / (kind=write GB/s at that thread count)
 *
 * where min_bytes is what the stage cannot avoid moving (defined where each
 * stage prints it).  Near 1, a stage runs at the memory's speed and more
 * threads or SIMD will not help it; far below 1, the time goes to
 * computation, synchronisation or stalls, not to bandwidth.  The
 * library's ordinary stores also read each line before writing it
 * (write-allocate), so for them the practical ceiling lies nearer half of
 * kind=write (about kind=copy / 2 in bytes written).
 */

#define MAX_BW 32

static struct {
    int threads;
    double write, copy; /* GB/s (1e9 bytes) */
} bw[MAX_BW];
static int nbw;

/* Write bandwidth at `threads`, 0 when not measured. */
static double bw_write(int threads)
{
    for (int i = 0; i < nbw; i++)
        if (bw[i].threads == threads)
            return bw[i].write;
    return 0;
}

/* Append " min_bytes=B bw_share=S" (bw_share only when the bandwidth at
 * that thread count was measured). */
static void print_bw_share(double min_bytes, double seconds, int threads)
{
    fprintf(cfg.out, " min_bytes=%.0f", min_bytes);
    const double w = bw_write(threads);
    if (w > 0 && seconds > 0)
        fprintf(cfg.out, " bw_share=%.3f", min_bytes / seconds / 1e9 / w);
}

/* Bytes of a mesh's arrays: x, y, z, h (16 B a vertex), a, b, c, e0, e1, e2
 * (24 B a triangle), ev0, ev1 (8 B an edge). */
static double mesh_bytes(uint64_t verts, uint64_t tris, uint64_t edges)
{
    return 16.0 * (double)verts + 24.0 * (double)tris + 8.0 * (double)edges;
}

/* Bytes of a result's arrays: positions, normals when present, indices and
 * the terrace table. */
static double result_bytes(const strata_result *r)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    return (v.nx ? 24.0 : 12.0) * v.nverts + 4.0 * (double)v.nindices +
           (double)v.nterraces * sizeof(strata_terrace);
}

/* Timings kept for the `scaling` lines printed at the end: a measurement is
 * one stage and one case (`what`, e.g. "level=7") at one ISA and thread
 * count. */
#define MAX_RECS 2048

static struct {
    char stage[16], what[48];
    int isa; /* a strata_isa; STRATA_ISA_COUNT_: not the library's code */
    int threads;
    double seconds;
} recs[MAX_RECS];
static int nrecs;

static void record(const char *stage, const char *what, int isa, int threads, double seconds)
{
    if (nrecs == MAX_RECS)
        return;
    snprintf(recs[nrecs].stage, sizeof recs[nrecs].stage, "%s", stage);
    snprintf(recs[nrecs].what, sizeof recs[nrecs].what, "%s", what);
    recs[nrecs].isa = isa;
    recs[nrecs].threads = threads;
    recs[nrecs].seconds = seconds;
    nrecs++;
}

static void record_ctx(const char *stage, const char *what, const strata_ctx *ctx, double seconds)
{
    record(stage, what, (int)strata_ctx_isa(ctx), strata_ctx_threads(ctx), seconds);
}

/* For every measurement also made at fewer threads: speedup = t(base) /
 * t(N) against the fewest threads measured (1 unless --threads left it
 * out), and efficiency = speedup / (N / base), 1 for perfect scaling. */
static void print_scaling(void)
{
    for (int i = 0; i < nrecs; i++) {
        int base = -1;
        for (int j = 0; j < nrecs; j++)
            if (recs[j].isa == recs[i].isa && !strcmp(recs[j].stage, recs[i].stage) &&
                !strcmp(recs[j].what, recs[i].what) &&
                (base < 0 || recs[j].threads < recs[base].threads))
                base = j;
        if (base < 0 || recs[base].threads >= recs[i].threads)
            continue;
        const double speedup = recs[base].seconds / recs[i].seconds;
        fprintf(cfg.out, "scaling stage=%s isa=%s threads=%d base_threads=%d %s speedup=%.2f"
               " efficiency=%.2f\n",
               recs[i].stage,
               recs[i].isa < STRATA_ISA_COUNT_ ? strata_isa_name((strata_isa)recs[i].isa)
                                               : "scalar",
               recs[i].threads, recs[base].threads, recs[i].what, speedup,
               speedup * recs[base].threads / recs[i].threads);
    }
    fflush(cfg.out);
}

/* Streaming stores, as a memset that bypasses the caches would do: the
 * fastest way to write memory, the bound the stages are measured against.
 * p is 64-byte aligned. */
static void stream_fill(unsigned char *p, size_t n, int byte)
{
    size_t i = 0;
#ifdef __SSE2__
    const __m128i v = _mm_set1_epi8((char)byte);
    for (; i + 64 <= n; i += 64) {
        _mm_stream_si128((__m128i *)(void *)(p + i), v);
        _mm_stream_si128((__m128i *)(void *)(p + i + 16), v);
        _mm_stream_si128((__m128i *)(void *)(p + i + 32), v);
        _mm_stream_si128((__m128i *)(void *)(p + i + 48), v);
    }
    _mm_sfence();
#endif
    memset(p + i, byte, n - i);
}

enum { BW_TOUCH, BW_WRITE, BW_COPY };

/* One pass over buf by `threads` threads, each on its own page-aligned
 * slice, the same slices every pass: on a NUMA machine each thread's pages
 * are first touched, so placed, by that thread, and stay local to it.
 * BW_COPY copies the first half of each slice into its second half.
 * Returns the seconds; *moved gets the bytes written (copy: plus read). */
static double bw_pass(unsigned char *buf, size_t size, int threads, int kind, double *moved)
{
    double bytes = 0;
    const double t0 = now();
#pragma omp parallel num_threads(threads) reduction(+ : bytes)
    {
        size_t id = 0, n = 1;
#ifdef _OPENMP
        id = (size_t)omp_get_thread_num();
        n = (size_t)omp_get_num_threads();
#endif
        const size_t chunk = size / n / 8192 * 8192;
        const size_t lo = id * chunk, len = id + 1 == n ? size - lo : chunk;
        if (kind == BW_TOUCH) {
            memset(buf + lo, 1, len);
            bytes = (double)len;
        } else if (kind == BW_WRITE) {
            stream_fill(buf + lo, len, (int)(id & 0x7f));
            bytes = (double)len;
        } else {
            const size_t half = len / 2 / 4096 * 4096;
            memcpy(buf + lo + half, buf + lo, half);
            bytes = 2.0 * (double)half;
        }
    }
    const double t = now() - t0;
    if (moved)
        *moved = bytes;
    return t;
}

/* Measure write and copy bandwidth at every thread count the runs use (as
 * the context reports them) and at 1, which the single-threaded stages
 * (write, stacked) are compared against.  The buffer is far larger than
 * any L3, so this is DRAM, and touched once before the clock so page
 * faults are not measured.  Copy counts the bytes read plus the bytes
 * written, as STREAM does. */
static void bench_bandwidth(strata_ctx *ctx)
{
    const size_t size = (cfg.quick ? 128u : 1024u) << 20;
    int counts[MAX_THREADS + 1], ncounts = 0;
    counts[ncounts++] = 1;
    for (int i = 0; i < cfg.nthreads; i++) {
        check(strata_ctx_set_threads(ctx, cfg.threads[i]), "threads");
        const int t = strata_ctx_threads(ctx);
        int seen = 0;
        for (int j = 0; j < ncounts; j++)
            seen |= counts[j] == t;
        if (!seen)
            counts[ncounts++] = t;
    }
    for (int i = 0; i < ncounts && nbw < MAX_BW; i++) {
        const int t = counts[i];
        unsigned char *buf = xalloc(size);
        bw_pass(buf, size, t, BW_TOUCH, NULL);
        double best[2] = {INFINITY, INFINITY}, moved[2] = {0, 0};
        for (int r = 0; r < cfg.reps; r++)
            for (int k = 0; k < 2; k++) {
                const double s = bw_pass(buf, size, t, k == 0 ? BW_WRITE : BW_COPY, &moved[k]);
                best[k] = s < best[k] ? s : best[k];
            }
        free(buf);
        bw[nbw].threads = t;
        bw[nbw].write = moved[0] / best[0] / 1e9;
        bw[nbw].copy = moved[1] / best[1] / 1e9;
        for (int k = 0; k < 2; k++) {
            fprintf(cfg.out, "bench stage=bandwidth isa=scalar threads=%d size=%zu kind=%s seconds=%.6f"
                   " bytes=%.0f gb_per_s=%.2f",
                   t, size, k == 0 ? "write" : "copy", best[k], moved[k],
                   k == 0 ? bw[nbw].write : bw[nbw].copy);
            bench_end();
            record("bandwidth", k == 0 ? "kind=write" : "kind=copy", STRATA_ISA_COUNT_, t, best[k]);
        }
        nbw++;
    }
}

/* Level of a height, as docs/DESIGN.md defines it: L[k] <= h < L[k+1]. */
static uint32_t level_of(const float *L, uint32_t n, float h)
{
    uint32_t lo = 0, len = n;
    while (len > 0) {
        const uint32_t half = len / 2;
        if (L[lo + half] <= h) {
            lo += half + 1;
            len -= half + 1;
        } else {
            len = half;
        }
    }
    return lo > 0 ? lo - 1 : 0;
}

/* Share of triangles spanning more than one band: they leave the slicer's
 * fast path, so this explains most differences between inputs. */
static double multiband_pct(const strata_mesh *m, const float *L, uint32_t n)
{
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    uint64_t multi = 0;
    for (uint32_t t = 0; t < v.ntris; t++) {
        const uint32_t la = level_of(L, n, v.h[v.a[t]]);
        multi += la != level_of(L, n, v.h[v.b[t]]) || la != level_of(L, n, v.h[v.c[t]]);
    }
    return v.ntris ? 100.0 * (double)multi / v.ntris : 0.0;
}

/* ------------------------------------------------------- the stages */

typedef struct {
    strata_ctx *ctx;
    int level, depth;
    const strata_mesh *base;
} shape_arg;

static double run_icosphere(void *p)
{
    shape_arg *a = p;
    strata_mesh *m;
    const double t0 = now();
    check(strata_shape_icosphere(a->ctx, a->level, 1.0f, &m), "icosphere");
    const double t = now() - t0;
    strata_mesh_destroy(m);
    return t;
}

static double run_subdivide(void *p)
{
    shape_arg *a = p;
    strata_mesh *m;
    const double t0 = now();
    check(strata_mesh_subdivide(a->ctx, a->base, a->depth, STRATA_SUBDIVIDE_PROJECT, &m),
          "subdivide");
    const double t = now() - t0;
    strata_mesh_destroy(m);
    return t;
}

static void bench_shapes(strata_ctx *ctx)
{
    if (want("icosphere")) {
        static const int full[] = {6, 8, 10}, quick[] = {5, 7};
        const int *lv = cfg.quick ? quick : full;
        const int nl = cfg.quick ? 2 : 3;
        for (int i = 0; i < nl; i++)
            for (int ri = 0; ri < nruns(); ri++) {
                shape_arg a = {ctx, lv[i], 0, NULL};
                set_run(ctx, ri);
                const double s = best_of(run_icosphere, &a);
                const uint64_t tris = 20ull << (2 * lv[i]);
                char what[32];
                snprintf(what, sizeof what, "level=%d", lv[i]);
                bench_begin("icosphere", ctx, tris);
                fprintf(cfg.out, " level=%d seconds=%.6f mtri_per_s=%.2f", lv[i], s, tris / s / 1e6);
                /* min_bytes: the final mesh (10*4^L+2 vertices, 30*4^L edges). */
                print_bw_share(mesh_bytes(tris / 2 + 2, tris, tris / 2 * 3), s,
                               strata_ctx_threads(ctx));
                bench_end();
                record_ctx("icosphere", what, ctx, s);
            }
    }
    if (want("subdivide")) {
        const int base_level = cfg.quick ? 4 : 6;
        strata_mesh *base;
        set_default(ctx);
        check(strata_shape_icosphere(ctx, base_level, 1.0f, &base), "icosphere");
        for (int depth = 2; depth <= 3; depth++)
            for (int ri = 0; ri < nruns(); ri++) {
                shape_arg a = {ctx, base_level, depth, base};
                set_run(ctx, ri);
                const double s = best_of(run_subdivide, &a);
                const uint64_t tris = (uint64_t)strata_mesh_triangle_count(base) << (2 * depth);
                uint32_t ov, ot, oe;
                check(strata_subdivide_counts(strata_mesh_vertex_count(base),
                                              strata_mesh_triangle_count(base),
                                              strata_mesh_edge_count(base), depth, &ov, &ot, &oe),
                      "subdivide counts");
                char what[32];
                snprintf(what, sizeof what, "depth=%d", depth);
                bench_begin("subdivide", ctx, tris);
                fprintf(cfg.out, " base_level=%d depth=%d seconds=%.6f mtri_per_s=%.2f", base_level, depth,
                       s, tris / s / 1e6);
                print_bw_share(mesh_bytes(ov, ot, oe), s, strata_ctx_threads(ctx)); /* the result */
                bench_end();
                record_ctx("subdivide", what, ctx, s);
            }
        strata_mesh_destroy(base);
    }
}

typedef struct {
    strata_ctx *ctx;
    strata_fbm f;
    const float *x, *y, *z; /* z NULL: 2D */
    size_t n;
    float *out;
    double cpu; /* the process CPU seconds of the fastest run (best_of) */
} fbm_arg;

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double run_fbm(void *p)
{
    fbm_arg *a = p;
    const double c0 = cpu_now(), t0 = now();
    check(a->z ? strata_fbm3_batch(a->ctx, &a->f, a->x, a->y, a->z, a->n, a->out)
               : strata_fbm2_batch(a->ctx, &a->f, a->x, a->y, a->n, a->out),
          "fbm");
    const double t = now() - t0, c = cpu_now() - c0;
    a->cpu = c < a->cpu ? c : a->cpu;
    return t;
}

/* One line per run at a->f.octaves, plus, when short_octaves > 0, a line
 * at that many octaves measured just before it, and on the main line
 * per_octave_ns = (t(octaves) - t(short_octaves)) / (octaves -
 * short_octaves) per point: what one more octave costs, without the
 * fixed part (loads, stores, blocks, threads).  cpu_seconds is the
 * process CPU time of the fastest run: on a shared machine, with one
 * thread, it leaves out the time the thread waited for a core. */
static void bench_fbm_run(fbm_arg *a, const char *stage, const char *input, int short_octaves)
{
    const int octaves = a->f.octaves;
    for (int ri = 0; ri < nruns(); ri++) {
        set_run(a->ctx, ri);
        double s_short = 0, c_short = 0;
        for (int pass = short_octaves > 0 ? 0 : 1; pass < 2; pass++) {
            a->f.octaves = pass ? octaves : short_octaves;
            a->cpu = INFINITY;
            const double s = best_of(run_fbm, a);
            bench_begin(stage, a->ctx, a->n);
            fprintf(cfg.out, " input=%s octaves=%d seconds=%.6f cpu_seconds=%.6f mpts_per_s=%.2f"
                   " ns_per_point_octave=%.3f",
                   input, a->f.octaves, s, a->cpu, a->n / s / 1e6,
                   s * 1e9 / ((double)a->n * a->f.octaves));
            if (!pass) {
                s_short = s;
                c_short = a->cpu;
            } else if (short_octaves > 0) {
                const double k = 1e9 / ((double)a->n * (octaves - short_octaves));
                fprintf(cfg.out, " per_octave_ns=%.3f per_octave_cpu_ns=%.3f", (s - s_short) * k,
                       (a->cpu - c_short) * k);
            }
            /* min_bytes: 4 B a point out, 4 B a coordinate in. */
            print_bw_share((double)a->n * (a->z ? 16.0 : 12.0), s, strata_ctx_threads(a->ctx));
            bench_end();
            char what[48];
            snprintf(what, sizeof what, "input=%s octaves=%d", input, a->f.octaves);
            record_ctx(stage, what, a->ctx, s);
        }
    }
    a->f.octaves = octaves;
}

/* n points of a Fibonacci sphere of radius 1: deterministic, evenly
 * spread unit vectors. */
static void sphere_points(size_t n, float *x, float *y, float *z)
{
    const double golden = 3.14159265358979323846 * (3.0 - sqrt(5.0));
    for (size_t i = 0; i < n; i++) {
        const double yy = 1.0 - 2.0 * ((double)i + 0.5) / (double)n;
        const double r = sqrt(1.0 - yy * yy), phi = golden * (double)i;
        x[i] = (float)(r * cos(phi));
        y[i] = (float)yy;
        z[i] = (float)(r * sin(phi));
    }
}

static void bench_fbm(strata_ctx *ctx)
{
    strata_fbm f;
    strata_fbm_defaults(&f); /* simplex, 6 octaves */
    f.frequency = 1.5f;      /* the CLI's planet default, per radius */
    if (want("fbm3")) {
        const size_t n = cfg.quick ? 1000000 : 10000000;
        float *x = xalloc(n * sizeof *x), *y = xalloc(n * sizeof *y), *z = xalloc(n * sizeof *z);
        float *out = xalloc(n * sizeof *out);
        sphere_points(n, x, y, z);
        memset(out, 0, n * sizeof *out); /* fault the pages in before timing */
        fbm_arg a = {ctx, f, x, y, z, n, out, 0};
        bench_fbm_run(&a, "fbm3", "sphere", 1);
        free(x);
        free(y);
        free(z);
        free(out);
    }
    if (want("fbm2")) {
        const uint32_t w = cfg.quick ? 1000 : 3200, h = cfg.quick ? 1000 : 3125;
        const size_t n = (size_t)w * h;
        float *x = xalloc(n * sizeof *x), *y = xalloc(n * sizeof *y), *out = xalloc(n * sizeof *out);
        for (uint32_t j = 0; j < h; j++)
            for (uint32_t i = 0; i < w; i++) {
                x[(size_t)j * w + i] = 8.0f * (float)i / (float)w;
                y[(size_t)j * w + i] = 8.0f * (float)j / (float)w;
            }
        memset(out, 0, n * sizeof *out);
        fbm_arg a = {ctx, f, x, y, NULL, n, out, 0};
        bench_fbm_run(&a, "fbm2", "grid", 0);
        free(x);
        free(y);
        free(out);
    }
}

/* displace: a level-10 icosphere (level 7 with --quick) moved radially by
 * the CLI's planet noise; each run displaces a fresh copy (the copy is
 * not timed). */
typedef struct {
    strata_ctx *ctx;
    const strata_mesh *base;
    strata_fbm f;
} displace_arg;

static double run_displace(void *p)
{
    displace_arg *a = p;
    strata_mesh *m;
    check(strata_mesh_clone(a->ctx, a->base, &m), "clone");
    const double t0 = now();
    check(strata_displace_radial(a->ctx, m, &a->f, NULL), "displace");
    const double t = now() - t0;
    strata_mesh_destroy(m);
    return t;
}

static void bench_displace(strata_ctx *ctx)
{
    if (!want("displace"))
        return;
    const int level = cfg.quick ? 7 : 10;
    strata_mesh *base;
    set_default(ctx);
    check(strata_shape_icosphere(ctx, level, 1.0f, &base), "icosphere");
    displace_arg a = {ctx, base, {0}};
    strata_fbm_defaults(&a.f);
    a.f.frequency = 1.5f; /* the CLI's planet defaults */
    a.f.amplitude = 0.1f;
    const uint64_t n = strata_mesh_vertex_count(base);
    for (int ri = 0; ri < nruns(); ri++) {
        set_run(ctx, ri);
        const double s = best_of(run_displace, &a);
        bench_begin("displace", ctx, n);
        fprintf(cfg.out, " input=ico%d octaves=%d seconds=%.6f mverts_per_s=%.2f", level, a.f.octaves, s,
               (double)n / s / 1e6);
        /* min_bytes: 12 B of position read, 16 B of position and height
         * written a vertex. */
        print_bw_share((double)n * 28.0, s, strata_ctx_threads(ctx));
        bench_end();
        char what[48];
        snprintf(what, sizeof what, "input=ico%d", level);
        record_ctx("displace", what, ctx, s);
    }
    strata_mesh_destroy(base);
}

/* ---------------------------------------------------- slicing inputs */

typedef struct {
    strata_mesh *m;
    float levels[64];
    uint32_t nlevels;
    char name[32];
} input;

/* An N x N cell terrain that goes the way a user's would: fBm heights
 * written as a PFM file in memory, decoded, meshed.  Heights follow the
 * CLI's terrain defaults (3 periods across, amplitude 0.15 x size). */
static void terrain_input(strata_ctx *ctx, uint32_t cells, uint32_t terraces, input *in)
{
    const uint32_t side = cells + 1;
    char head[64];
    const int hl = snprintf(head, sizeof head, "Pf\n%u %u\n-1.0\n", side, side);
    const size_t len = (size_t)hl + 4 * (size_t)side * side;
    unsigned char *pfm = xalloc(len);
    memcpy(pfm, head, (size_t)hl);
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 3.0f / (float)cells;
    f.amplitude = 0.15f * (float)cells;
    unsigned char *o = pfm + hl;
    for (uint32_t j = 0; j < side; j++)
        for (uint32_t i = 0; i < side; i++) {
            const float v = strata_fbm2(&f, (float)i, (float)j);
            uint32_t bits;
            memcpy(&bits, &v, 4);
            for (int b = 0; b < 4; b++) /* little-endian whatever the host */
                *o++ = (unsigned char)(bits >> (8 * b));
        }
    strata_heightmap *hm;
    check(strata_heightmap_decode(ctx, pfm, len, &hm), "heightmap decode");
    free(pfm);
    check(strata_mesh_from_heightmap(ctx, hm, 1.0f, 1.0f, &in->m), "mesh from heightmap");
    strata_heightmap_destroy(hm);
    in->nlevels = terraces;
    check(strata_levels_uniform(in->m, terraces, NULL, in->levels), "levels");
    snprintf(in->name, sizeof in->name, "grid%u", cells);
}

/* A planet: icosphere of radius 1 displaced by 0.1 with 3D fBm. */
static void planet_input(strata_ctx *ctx, int level, uint32_t terraces, input *in)
{
    check(strata_shape_icosphere(ctx, level, 1.0f, &in->m), "icosphere");
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 1.5f;
    f.amplitude = 0.1f;
    check(strata_displace_radial(ctx, in->m, &f, NULL), "displace");
    in->nlevels = terraces;
    check(strata_levels_uniform(in->m, terraces, NULL, in->levels), "levels");
    snprintf(in->name, sizeof in->name, "ico%d", level);
}

/* ------------------------------------------------------------ slice */

/* Where the slicer's time goes: the clock at each of its documented
 * progress milestones (strata.h, strata_slice). */
#define SLICE_PHASES 6
static const double slice_milestone[SLICE_PHASES + 1] = {0.0, 0.15, 0.3, 0.5, 0.6, 0.85, 1.0};
static const char *const slice_phase_name[SLICE_PHASES] = {"levels", "numbering", "pass_a",
                                                           "vertices", "pass_b", "finish"};
static double slice_clock[SLICE_PHASES + 1];

static int slice_progress(void *user, const char *stage, double done)
{
    (void)user;
    if (!strcmp(stage, "slice"))
        for (int i = 0; i <= SLICE_PHASES; i++)
            if (done == slice_milestone[i])
                slice_clock[i] = now();
    return 0;
}

typedef struct {
    strata_ctx *ctx;
    const input *in;
    strata_result *r; /* of the last run */
    int warm;         /* slice into the last run's result (strata_slice_into) */
    double best, phase[SLICE_PHASES]; /* seconds of the best run, by phase */
} slice_arg;

/* One slice: cold, a new result each time (strata_slice, as the program
 * does: fresh pages, first touched by the slice), or warm, into the
 * result of the run before (strata_slice_into, as a world's threads do
 * chunk after chunk: its buffers already faulted in). */
static double run_slice(void *p)
{
    slice_arg *a = p;
    if (!a->warm || !a->r) {
        strata_result_destroy(a->r); /* before the clock: no double footprint */
        a->r = NULL;
    }
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = a->in->levels;
    so.nlevels = a->in->nlevels;
    double clock[SLICE_PHASES + 1];
    strata_ctx_set_progress(a->ctx, slice_progress, NULL);
    const double t0 = now();
    check(a->r ? strata_slice_into(a->ctx, a->in->m, &so, a->r)
               : strata_slice(a->ctx, a->in->m, &so, &a->r),
          "slice");
    const double s = now() - t0;
    strata_ctx_set_progress(a->ctx, NULL, NULL);
    memcpy(clock, slice_clock, sizeof clock);
    if (s < a->best) { /* keep the phases of the best run */
        a->best = s;
        for (int i = 0; i < SLICE_PHASES; i++)
            a->phase[i] = clock[i + 1] - clock[i];
    }
    return s;
}

/* Slice `in` in every run configuration; returns the seconds of each in
 * secs[] and the last result (the caller destroys it). */
static strata_result *bench_slice(strata_ctx *ctx, const input *in, double *secs)
{
    const uint32_t tris = strata_mesh_triangle_count(in->m);
    const double multi = multiband_pct(in->m, in->levels, in->nlevels);
    slice_arg a = {ctx, in, NULL, 0, 0.0, {0}};
    for (int ri = 0; ri < 2 * nruns(); ri++) {
        set_run(ctx, ri / 2);
        a.warm = ri % 2;
        a.best = INFINITY;
        if (a.warm && !a.r)
            run_slice(&a); /* a result to slice into */
        const double s = best_of(run_slice, &a);
        if (!a.warm)
            secs[ri / 2] = s;
        strata_result_view v;
        strata_result_get_view(a.r, &v);
        const double bytes = 12.0 * v.nverts + 4.0 * (double)v.nindices;
        bench_begin("slice", ctx, tris);
        fprintf(cfg.out, " input=%s mode=%s terraces=%u multiband_pct=%.2f seconds=%.6f mtri_per_s=%.2f"
               " ns_per_tri=%.2f out_tris=%llu out_verts=%u out_bytes=%.0f out_mb_per_s=%.1f",
               in->name, a.warm ? "warm" : "cold", in->nlevels, multi, s, tris / s / 1e6,
               s * 1e9 / tris,
               (unsigned long long)(v.nindices / 3), v.nverts, bytes, bytes / s / 1e6);
        /* min_bytes: the output, 12 B a vertex (24 with normals) and 4 B an
         * index. */
        print_bw_share(bytes + (v.nx ? 12.0 * v.nverts : 0.0), s, strata_ctx_threads(ctx));
        /* The per-thread arenas holding the cut triangles until pass B. */
        strata_arena_stats as;
        strata_ctx_arena_stats(ctx, &as);
        fprintf(cfg.out, " arenas=%u arena_blocks=%llu arena_mb_reserved=%.1f arena_mb_used=%.1f"
               " arena_mb_wasted=%.2f",
               as.arenas, (unsigned long long)as.blocks, as.bytes_reserved / 1e6,
               as.bytes_used / 1e6, as.bytes_wasted / 1e6);
        for (int i = 0; i < SLICE_PHASES; i++)
            fprintf(cfg.out, " %s_s=%.6f %s_ns_per_tri=%.2f", slice_phase_name[i], a.phase[i],
                   slice_phase_name[i], a.phase[i] * 1e9 / tris);
        bench_end();
        char what[48];
        snprintf(what, sizeof what, "input=%s mode=%s", in->name, a.warm ? "warm" : "cold");
        record_ctx("slice", what, ctx, s);
    }
    return a.r;
}

/* ---------------------------------------- stacked roofs (the baseline)
 *
 * The classic algorithm, per triangle and per plane from the one at or
 * below its lowest corner to the one at or below its highest:
 *  - all three corners on or above the plane: the triangle, flattened onto
 *    the plane, is a roof;
 *  - one or two above: cut the triangle along the plane; the part above,
 *    flattened (a triangle or a quad), is a roof, and a wall quad hangs
 *    from the cut line down to the plane below.
 * Roofs thus stack on every plane under a triangle, the hidden ones
 * included.  As in the article, output goes into growable vertex and index
 * lists with no sharing between polygons (3 vertices a triangle, 4 a quad)
 * and planes are found by flooring the height over the spacing.  The flat
 * case only, single-threaded, floats.
 */

typedef struct {
    float *xyz; /* interleaved, like a list of Vector3 */
    uint32_t *idx;
    size_t nv, capv, ni, capi;
} soup;

static void grow(void **p, size_t *cap, size_t need, size_t elem)
{
    size_t c = *cap ? *cap : 4096;
    while (c < need)
        c *= 2; /* a List's doubling, copies included */
    void *q = realloc(*p, c * elem);
    if (!q)
        die("out of memory");
    *p = q;
    *cap = c;
}

static inline uint32_t soup_vertex(soup *s, float x, float y, float z)
{
    if (s->nv == s->capv)
        grow((void **)&s->xyz, &s->capv, s->nv + 1, 3 * sizeof(float));
    float *o = s->xyz + 3 * s->nv;
    o[0] = x;
    o[1] = y;
    o[2] = z;
    return (uint32_t)s->nv++;
}

static inline void soup_tri(soup *s, uint32_t a, uint32_t b, uint32_t c)
{
    if (s->ni + 3 > s->capi)
        grow((void **)&s->idx, &s->capi, s->ni + 3, sizeof(uint32_t));
    s->idx[s->ni++] = a;
    s->idx[s->ni++] = b;
    s->idx[s->ni++] = c;
}

typedef struct {
    const float *L;
    uint32_t n;
    float inv_spacing;
} planes;

/* floor((h - L0) / spacing), nudged so that L[k] <= h < L[k+1] holds in
 * float exactly as strata decides it: both then cut at the same planes. */
static inline uint32_t plane_at_or_below(const planes *P, float h)
{
    float f = floorf((h - P->L[0]) * P->inv_spacing);
    uint32_t k = f <= 0.0f ? 0 : f >= (float)(P->n - 1) ? P->n - 1 : (uint32_t)f;
    while (k + 1 < P->n && P->L[k + 1] <= h)
        k++;
    while (k > 0 && P->L[k] > h)
        k--;
    return k;
}

static inline void lerp_xz(const float *p, const float *q, float hp, float hq, float level,
                           float *x, float *z)
{
    const float t = (level - hp) / (hq - hp);
    *x = p[0] + t * (q[0] - p[0]);
    *z = p[2] + t * (q[2] - p[2]);
}

static void stacked_triangle(soup *s, const planes *P, const float v[3][3])
{
    const float h[3] = {v[0][1], v[1][1], v[2][1]};
    const float lo = fminf(h[0], fminf(h[1], h[2])), hi = fmaxf(h[0], fmaxf(h[1], h[2]));
    const uint32_t k0 = plane_at_or_below(P, lo), k1 = plane_at_or_below(P, hi);
    for (uint32_t k = k0; k <= k1; k++) {
        const float y = P->L[k];
        const int up[3] = {h[0] >= y, h[1] >= y, h[2] >= y};
        const int above = up[0] + up[1] + up[2];
        if (above == 0)
            continue; /* only below L[0], which uniform planes never have */
        if (above == 3) {
            const uint32_t i = soup_vertex(s, v[0][0], y, v[0][2]);
            soup_vertex(s, v[1][0], y, v[1][2]);
            soup_vertex(s, v[2][0], y, v[2][2]);
            soup_tri(s, i, i + 1, i + 2);
            continue;
        }
        /* Rotate (keeping the winding) so the odd corner out is the third:
         * the lone corner above (one above) or below (two above). */
        int odd = 0;
        while (up[odd] == (above == 1 ? 0 : 1))
            odd++;
        const float *p1 = v[(odd + 1) % 3], *p2 = v[(odd + 2) % 3], *p3 = v[odd];
        const float h1 = p1[1], h2 = p2[1], h3 = p3[1];
        float c1x, c1z, c2x, c2z; /* cuts on p3-p1 and p2-p3 */
        lerp_xz(p1, p3, h1, h3, y, &c1x, &c1z);
        lerp_xz(p2, p3, h2, h3, y, &c2x, &c2z);
        uint32_t i = soup_vertex(s, c1x, y, c1z);
        soup_vertex(s, c2x, y, c2z);
        if (above == 1) { /* roof c1, c2, p3 */
            soup_vertex(s, p3[0], y, p3[2]);
            soup_tri(s, i, i + 1, i + 2);
        } else { /* roof p1, p2, c2, c1 */
            soup_vertex(s, p1[0], y, p1[2]);
            soup_vertex(s, p2[0], y, p2[2]);
            soup_tri(s, i + 2, i + 3, i + 1);
            soup_tri(s, i + 2, i + 1, i);
        }
        if (k == 0)
            continue; /* no plane below to hang a wall to */
        const float yb = P->L[k - 1];
        const uint32_t w = soup_vertex(s, c1x, y, c1z); /* c1 top, c2 top, c1 bot, c2 bot */
        soup_vertex(s, c2x, y, c2z);
        soup_vertex(s, c1x, yb, c1z);
        soup_vertex(s, c2x, yb, c2z);
        /* Facing the lower side, as strata's walls do. */
        if (above == 1) {
            soup_tri(s, w + 2, w + 3, w + 1);
            soup_tri(s, w + 2, w + 1, w);
        } else {
            soup_tri(s, w + 3, w + 2, w);
            soup_tri(s, w + 3, w, w + 1);
        }
    }
}

typedef struct {
    const input *in;
    soup out;
} stacked_arg;

static double run_stacked(void *p)
{
    stacked_arg *a = p;
    free(a->out.xyz);
    free(a->out.idx);
    memset(&a->out, 0, sizeof a->out); /* start empty, as a fresh List does */
    strata_mesh_view mv;
    strata_mesh_get_view(a->in->m, &mv);
    const float *L = a->in->levels;
    const uint32_t n = a->in->nlevels;
    const planes P = {L, n, n > 1 ? (float)(n - 1) / (L[n - 1] - L[0]) : 1.0f};
    const double t0 = now();
    for (uint32_t t = 0; t < mv.ntris; t++) {
        const uint32_t id[3] = {mv.a[t], mv.b[t], mv.c[t]};
        float v[3][3];
        for (int c = 0; c < 3; c++) {
            v[c][0] = mv.x[id[c]];
            v[c][1] = mv.h[id[c]];
            v[c][2] = mv.z[id[c]];
        }
        stacked_triangle(&a->out, &P, v);
    }
    return now() - t0;
}

/* The roof area of a flat strata result seen from above (the timed runs
 * leave the library's own area figures off). */
static double result_roof_area(const strata_result *r)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    double sum = 0;
    for (uint32_t k = 0; k < v.nterraces; k++) {
        const uint32_t *ix = v.indices + v.terraces[k].roof_first;
        for (uint64_t i = 0; i < v.terraces[k].roof_count; i += 3) {
            const uint32_t p = ix[i], q = ix[i + 1], s = ix[i + 2];
            sum += 0.5 * fabs(((double)v.x[q] - v.x[p]) * ((double)v.z[s] - v.z[p]) -
                              ((double)v.z[q] - v.z[p]) * ((double)v.x[s] - v.x[p]));
        }
    }
    return sum;
}

/* Area of the output seen from above: walls are vertical and add nothing,
 * so this is the roof area, hidden stacked roofs included. */
static double soup_roof_area(const soup *s)
{
    double sum = 0;
    for (size_t i = 0; i < s->ni; i += 3) {
        const float *p = s->xyz + 3 * (size_t)s->idx[i], *q = s->xyz + 3 * (size_t)s->idx[i + 1],
                    *r = s->xyz + 3 * (size_t)s->idx[i + 2];
        sum += 0.5 * fabs(((double)q[0] - p[0]) * ((double)r[2] - p[2]) -
                          ((double)q[2] - p[2]) * ((double)r[0] - p[0]));
    }
    return sum;
}

static void bench_terrain(strata_ctx *ctx)
{
    static const uint32_t full[] = {1024, 2048}, quick[] = {256, 512};
    const int do_slice = want("slice"), do_stacked = want("stacked");
    if (!do_slice && !do_stacked)
        return;
    for (int i = 0; i < 2; i++) {
        input in;
        set_default(ctx);
        terrain_input(ctx, cfg.quick ? quick[i] : full[i], 16, &in);
        double secs[MAX_RUNS];
        /* The ratio needs strata timed in the same run: slice runs for
         * `stacked` too. */
        strata_result *r = bench_slice(ctx, &in, secs);
        if (do_stacked) {
            const uint32_t tris = strata_mesh_triangle_count(in.m);
            stacked_arg a = {&in, {0}};
            const double s = best_of(run_stacked, &a);
            const double bytes = 12.0 * (double)a.out.nv + 4.0 * (double)a.out.ni;
            const double band_roof = result_roof_area(r);
            bench_begin("stacked", NULL, tris);
            fprintf(cfg.out, " input=%s terraces=%u seconds=%.6f mtri_per_s=%.2f out_tris=%zu out_verts=%zu"
                   " out_bytes=%.0f out_mb_per_s=%.1f extra_roof_area_pct=%.2f",
                   in.name, in.nlevels, s, tris / s / 1e6, a.out.ni / 3, a.out.nv, bytes,
                   bytes / s / 1e6, 100.0 * (soup_roof_area(&a.out) / band_roof - 1.0));
            bench_end();
            for (int ri = 0; ri < nruns(); ri++) {
                set_run(ctx, ri);
                fprintf(cfg.out, "ratio stage=slice_vs_stacked input=%s size=%u isa=%s threads=%d"
                       " ratio=%.2f\n",
                       in.name, tris, strata_isa_name(strata_ctx_isa(ctx)),
                       strata_ctx_threads(ctx), s / secs[ri]);
            }
            fflush(cfg.out);
            free(a.out.xyz);
            free(a.out.idx);
        }
        strata_result_destroy(r);
        strata_mesh_destroy(in.m);
    }
}

static void bench_planet_slice(strata_ctx *ctx)
{
    if (!want("slice"))
        return;
    static const int full[] = {8, 10}, quick[] = {6, 7};
    for (int i = 0; i < 2; i++) {
        input in;
        set_default(ctx);
        planet_input(ctx, cfg.quick ? quick[i] : full[i], 32, &in);
        double secs[MAX_RUNS];
        strata_result_destroy(bench_slice(ctx, &in, secs));
        strata_mesh_destroy(in.m);
    }
}

/* ---------------------------------------------------------- ao
 *
 * Baked ambient occlusion against the slice it follows, in the same run
 * and on the same input (a noise planet, level 8 and 10, 16 planes as the
 * strata program's default), at every ISA and thread count: the slice
 * cold (a fresh result), then strata_result_bake_ao at the program's
 * default radius (STRATA_AO_RADIUS_PLANES x the planes' spacing) on it.
 * ratio = ao seconds / slice seconds; the target is ratio <= 1. */

typedef struct {
    strata_ctx *ctx;
    strata_result *r;
    float radius;
} ao_arg;

static double run_ao(void *p)
{
    ao_arg *a = p;
    const double t0 = now();
    check(strata_result_bake_ao(a->ctx, a->r, a->radius), "ao");
    return now() - t0;
}

static void bench_ao(strata_ctx *ctx)
{
    if (!want("ao"))
        return;
    static const int full[] = {8, 10}, quick[] = {6, 7};
    for (int i = 0; i < 2; i++) {
        input in;
        set_default(ctx);
        planet_input(ctx, cfg.quick ? quick[i] : full[i], 16, &in);
        const uint32_t tris = strata_mesh_triangle_count(in.m);
        const float radius = (float)(STRATA_AO_RADIUS_PLANES *
                                     ((double)in.levels[in.nlevels - 1] - in.levels[0]) /
                                     (in.nlevels - 1));
        for (int ri = 0; ri < nruns(); ri++) {
            set_run(ctx, ri);
            slice_arg sa = {ctx, &in, NULL, 0, INFINITY, {0}};
            const double slice_s = best_of(run_slice, &sa);
            ao_arg a = {ctx, sa.r, radius};
            const double s = best_of(run_ao, &a);
            strata_result_view v;
            strata_result_get_view(sa.r, &v);
            uint64_t open = 0;
            for (uint32_t k = 0; k < v.nverts; k++)
                open += v.ao[k] == 255;
            bench_begin("ao", ctx, v.nverts);
            fprintf(cfg.out, " input=%s terraces=%u radius=%.6g tris=%u out_verts=%u seconds=%.6f"
                   " ns_per_vertex=%.2f slice_seconds=%.6f ratio=%.3f open_pct=%.1f",
                   in.name, in.nlevels, (double)radius, tris, v.nverts, s, s * 1e9 / v.nverts,
                   slice_s, s / slice_s, 100.0 * (double)open / v.nverts);
            bench_end();
            char what[48];
            snprintf(what, sizeof what, "input=%s", in.name);
            record_ctx("ao", what, ctx, s);
            strata_result_destroy(sa.r);
        }
        strata_mesh_destroy(in.m);
    }
}

/* ---------------------------------------------------------- uv
 *
 * Texture coordinates against the slice they follow, in the same run and
 * on the same input (a 1024^2 and a 2048^2 cell terrain, 16 planes), at
 * every ISA and thread count: the slice cold, then strata_result_add_uv
 * (one thread, double precision: the same bytes everywhere) on a fresh
 * slice each repetition, texel the planes' spacing as plain --uv.
 * ratio = uv seconds / slice seconds. */

typedef struct {
    slice_arg *sa;
    float texel;
} uv_arg;

static double run_uv(void *p)
{
    uv_arg *a = p;
    run_slice(a->sa); /* a fresh result, outside the clock */
    const double t0 = now();
    check(strata_result_add_uv(a->sa->ctx, a->sa->r, a->texel), "uv");
    return now() - t0;
}

static void bench_uv(strata_ctx *ctx)
{
    if (!want("uv"))
        return;
    static const uint32_t full[] = {1024, 2048}, quick[] = {256, 512};
    for (int i = 0; i < 2; i++) {
        input in;
        set_default(ctx);
        terrain_input(ctx, cfg.quick ? quick[i] : full[i], 16, &in);
        const uint32_t tris = strata_mesh_triangle_count(in.m);
        const float texel =
            (float)(((double)in.levels[in.nlevels - 1] - in.levels[0]) / (in.nlevels - 1));
        for (int ri = 0; ri < nruns(); ri++) {
            set_run(ctx, ri);
            slice_arg sa = {ctx, &in, NULL, 0, INFINITY, {0}};
            const double slice_s = best_of(run_slice, &sa);
            strata_result_view v0;
            strata_result_get_view(sa.r, &v0);
            const uint32_t before = v0.nverts;
            uv_arg a = {&sa, texel};
            const double s = best_of(run_uv, &a);
            strata_result_view v;
            strata_result_get_view(sa.r, &v);
            bench_begin("uv", ctx, v.nverts);
            fprintf(cfg.out, " input=%s terraces=%u texel=%.6g tris=%u slice_verts=%u out_verts=%u"
                   " seconds=%.6f ns_per_vertex=%.2f slice_seconds=%.6f ratio=%.3f",
                   in.name, in.nlevels, (double)texel, tris, before, v.nverts, s,
                   s * 1e9 / v.nverts, slice_s, s / slice_s);
            bench_end();
            char what[48];
            snprintf(what, sizeof what, "input=%s", in.name);
            record_ctx("uv", what, ctx, s);
            strata_result_destroy(sa.r);
        }
        strata_mesh_destroy(in.m);
    }
}

/* ---------------------------------------------------------- kernels
 *
 * Each entry of the dispatch table alone, on one thread, at every ISA of
 * the run: the evidence behind simd/dispatch.c's AVX-512 rule.  Inputs
 * come from a level-9 planet with 32 terraces (the slicer's and the
 * displacement's kernels) and from strata-bench's fbm3 sphere and fbm2
 * grid (the noise kernels, 6 octaves); kernels run on blocks of the sizes
 * the library uses.  One line per kernel and ISA (ns_per_item: per point,
 * vertex, triangle or edge), then one `ratio` line per kernel with its
 * AVX-512 speed over its AVX2 speed and the ISA of the automatic choice. */

enum { KB_FBM3_SIMPLEX, KB_FBM3_PERLIN, KB_FBM2_SIMPLEX, KB_FBM2_PERLIN, KB_RADIAL_SAMPLES,
       KB_RADIAL_MOVE, KB_CLASSIFY, KB_TRI_LEVELS, KB_PLACE_ROOFS_FLAT, KB_PLACE_ROOFS_RADIAL,
       KB_EDGE_SPANS, KB_COUNT };
static const char *const kb_names[KB_COUNT] = {
    "fbm3_simplex", "fbm3_perlin",         "fbm2_simplex",          "fbm2_perlin",
    "radial_samples", "radial_move",       "classify",              "tri_levels",
    "place_roofs_flat", "place_roofs_radial", "edge_spans"};

typedef struct {
    const strata_dispatch *d;
    int kernel;
    /* noise */
    strata_fbm_plan plan3, plan2; /* kind set per kernel */
    size_t npts;
    const float *px, *py, *pz, *gx, *gy;
    float *out;
    /* mesh */
    strata_mesh_view v;
    const float *L;
    uint32_t nL;
    float *x, *y, *z, *h, *v_h; /* radial_move's copies; v_h: the heights */
    uint16_t *lev, *mark;
    uint64_t *cross; /* edge_spans' bits */
    uint8_t *on;
    float *ox, *oy, *oz;
    uint64_t sink;
} kernel_arg;

static size_t kernel_items(const kernel_arg *a)
{
    switch (a->kernel) {
    case KB_FBM3_SIMPLEX: case KB_FBM3_PERLIN: case KB_FBM2_SIMPLEX: case KB_FBM2_PERLIN:
        return a->npts;
    case KB_TRI_LEVELS: return a->v.ntris;
    case KB_EDGE_SPANS: return a->v.nedges;
    default: return a->v.nverts;
    }
}

/* A plan like strata_fbm_defaults' at frequency 1.5: the plan's seeds are
 * any numbers here (the time does not depend on them). */
static void bench_plan(strata_fbm_plan *p, strata_noise_kind kind)
{
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->octaves = 6;
    float f = 1.5f, amp = 1.0f;
    for (int o = 0; o < p->octaves; o++, f *= 2.0f, amp *= 0.5f) {
        p->freq[o] = f;
        p->amp[o] = amp;
        p->seed[o] = 0x9E3779B9u * (uint32_t)(o + 1);
        p->bound += amp;
    }
}

/* The table's entry that kernel k runs, as a plain address. */
static const void *kernel_fn(const strata_dispatch *d, int k)
{
    switch (k) {
    case KB_FBM3_SIMPLEX: case KB_FBM3_PERLIN: return (const void *)d->fbm3;
    case KB_FBM2_SIMPLEX: case KB_FBM2_PERLIN: return (const void *)d->fbm2;
    case KB_RADIAL_SAMPLES: return (const void *)d->radial_samples;
    case KB_RADIAL_MOVE: return (const void *)d->radial_move;
    case KB_CLASSIFY: return (const void *)d->classify;
    case KB_TRI_LEVELS: return (const void *)d->tri_levels;
    case KB_EDGE_SPANS: return (const void *)d->edge_spans;
    default: return (const void *)d->place_roofs;
    }
}

static double run_kernel(void *p)
{
    kernel_arg *a = p;
    const strata_dispatch *d = a->d;
    const size_t n = kernel_items(a);
    enum { NB = 1024, SB = 4096 }; /* noise and displacement blocks; slicer blocks */
    static _Alignas(64) float sx[NB], sy[NB], sz[NB];
    uint64_t sink = 0;
    const strata_place flat = {STRATA_FLAT, {0, 0, 0}, 0};
    const strata_place radial = {STRATA_RADIAL, {a->v.center[0], a->v.center[1], a->v.center[2]},
                                 a->v.radius};
    if (a->kernel == KB_RADIAL_MOVE) { /* fresh positions, before the clock */
        memcpy(a->x, a->v.x, n * sizeof *a->x);
        memcpy(a->y, a->v.y, n * sizeof *a->y);
        memcpy(a->z, a->v.z, n * sizeof *a->z);
    }
    const double t0 = now();
    switch (a->kernel) {
    case KB_FBM3_SIMPLEX: case KB_FBM3_PERLIN:
        for (size_t i = 0; i < n; i += NB)
            d->fbm3(&a->plan3, a->px + i, a->py + i, a->pz + i, n - i < NB ? n - i : NB, a->out + i);
        break;
    case KB_FBM2_SIMPLEX: case KB_FBM2_PERLIN:
        for (size_t i = 0; i < n; i += NB)
            d->fbm2(&a->plan2, a->gx + i, a->gy + i, NULL, n - i < NB ? n - i : NB, a->out + i);
        break;
    case KB_RADIAL_SAMPLES:
        for (size_t i = 0; i < n; i += NB)
            sink += d->radial_samples(a->v.center, a->v.radius, a->v.x + i, a->v.y + i, a->v.z + i,
                                      n - i < NB ? n - i : NB, sx, sy, sz);
        sink += (uint64_t)sx[0];
        break;
    case KB_RADIAL_MOVE:
        for (size_t i = 0; i < n; i += NB)
            d->radial_move(a->v.center, a->v.radius, a->v_h + i, n - i < NB ? n - i : NB, a->x + i,
                           a->y + i, a->z + i, a->h + i);
        break;
    case KB_CLASSIFY: {
        uint64_t cnt[2] = {0, 0};
        for (size_t i = 0; i < n; i += SB)
            d->classify(a->L, a->nL, a->v.h + i, n - i < SB ? n - i : SB, a->lev + i, a->on + i, cnt);
        sink += cnt[0] + cnt[1];
        break;
    }
    case KB_TRI_LEVELS:
        for (size_t i = 0; i < n; i += SB)
            sink += d->tri_levels(a->v.a + i, a->v.b + i, a->v.c + i, n - i < SB ? n - i : SB,
                                  a->lev, a->mark + i);
        break;
    case KB_PLACE_ROOFS_FLAT: case KB_PLACE_ROOFS_RADIAL:
        for (size_t i = 0; i < n; i += SB)
            d->place_roofs(a->kernel == KB_PLACE_ROOFS_FLAT ? &flat : &radial, a->L, a->v.x + i,
                           a->v.y + i, a->v.z + i, a->lev + i, n - i < SB ? n - i : SB, a->ox + i,
                           a->oy + i, a->oz + i);
        break;
    case KB_EDGE_SPANS:
        for (size_t i = 0; i < n; i += SB)
            sink += d->edge_spans(a->v.ev0 + i, a->v.ev1 + i, n - i < SB ? n - i : SB, a->lev,
                                  a->cross + i / 64);
        break;
    }
    const double t = now() - t0;
    a->sink += sink; /* keeps the results alive */
    return t;
}

static void bench_kernels(strata_ctx *ctx)
{
    if (!want("kernels"))
        return;
    input in;
    set_default(ctx);
    planet_input(ctx, cfg.quick ? 7 : 9, 32, &in);
    kernel_arg a;
    memset(&a, 0, sizeof a);
    strata_mesh_get_view(in.m, &a.v);
    const size_t nv = a.v.nverts;
    a.L = in.levels;
    a.nL = in.nlevels;
    a.npts = cfg.quick ? 200000 : 1000000;
    float *px = xalloc(a.npts * sizeof *px), *py = xalloc(a.npts * sizeof *py);
    float *pz = xalloc(a.npts * sizeof *pz), *gx = xalloc(a.npts * sizeof *gx);
    float *gy = xalloc(a.npts * sizeof *gy);
    sphere_points(a.npts, px, py, pz);
    for (size_t i = 0; i < a.npts; i++) { /* fbm2's grid: 1000 points a row, 8 periods */
        gx[i] = 8.0f * (float)(i % 1000) / 1000.0f;
        gy[i] = 8.0f * (float)(i / 1000) / 1000.0f;
    }
    a.px = px, a.py = py, a.pz = pz, a.gx = gx, a.gy = gy;
    a.out = xalloc(a.npts * sizeof *a.out);
    a.x = xalloc(nv * sizeof *a.x), a.y = xalloc(nv * sizeof *a.y), a.z = xalloc(nv * sizeof *a.z);
    a.h = xalloc(nv * sizeof *a.h), a.v_h = xalloc(nv * sizeof *a.v_h);
    for (size_t i = 0; i < nv; i++)
        a.v_h[i] = a.v.h[i] * 0.5f; /* heights within the bound */
    a.lev = xalloc((nv + 1) * sizeof *a.lev); /* + the kernels' padding */
    a.lev[nv] = 0;
    a.on = xalloc(nv);
    a.mark = xalloc((size_t)a.v.ntris * sizeof *a.mark);
    a.cross = xalloc(((size_t)a.v.nedges + 63) / 64 * sizeof *a.cross);
    a.ox = xalloc(nv * sizeof *a.ox), a.oy = xalloc(nv * sizeof *a.oy), a.oz = xalloc(nv * sizeof *a.oz);
    /* Levels for the kernels that read them, from the scalar classify. */
    {
        strata_ctx *ref;
        check(strata_ctx_create(NULL, &ref), "context");
        check(strata_ctx_set_isa(ref, STRATA_ISA_SCALAR), "isa");
        uint64_t cnt[2] = {0, 0};
        ref->simd.classify(a.L, a.nL, a.v.h, nv, a.lev, a.on, cnt);
        strata_ctx_destroy(ref);
    }
    memset(a.out, 0, a.npts * sizeof *a.out); /* fault the pages in before timing */
    memset(a.mark, 0, (size_t)a.v.ntris * sizeof *a.mark);
    memset(a.ox, 0, nv * sizeof *a.ox), memset(a.oy, 0, nv * sizeof *a.oy);
    memset(a.oz, 0, nv * sizeof *a.oz), memset(a.h, 0, nv * sizeof *a.h);

    strata_ctx *isactx[STRATA_ISA_COUNT_] = {NULL}, *autoctx;
    check(strata_ctx_create(NULL, &autoctx), "context");
    check(strata_ctx_set_isa(autoctx, STRATA_ISA_AUTO), "isa");
    for (int i = 0; i < cfg.nisas; i++)
        if (cfg.isas[i] != STRATA_ISA_AUTO) {
            check(strata_ctx_create(NULL, &isactx[cfg.isas[i]]), "context");
            check(strata_ctx_set_isa(isactx[cfg.isas[i]], cfg.isas[i]), "isa");
        }
    for (int k = 0; k < KB_COUNT; k++) {
        a.kernel = k;
        const strata_noise_kind kind =
            k == KB_FBM3_PERLIN || k == KB_FBM2_PERLIN ? STRATA_NOISE_PERLIN : STRATA_NOISE_SIMPLEX;
        bench_plan(&a.plan3, kind);
        bench_plan(&a.plan2, kind);
        /* The ISAs take turns, run by run: a disturbance of the shared
         * machine then hits them alike instead of one ISA's whole series. */
        double secs[STRATA_ISA_COUNT_] = {0};
        for (int r = 0; r < cfg.reps; r++)
            for (int isa = 0; isa < STRATA_ISA_COUNT_; isa++)
                if (isactx[isa]) {
                    a.d = &isactx[isa]->simd;
                    const double t = run_kernel(&a);
                    secs[isa] = r == 0 || t < secs[isa] ? t : secs[isa];
                }
        for (int isa = 0; isa < STRATA_ISA_COUNT_; isa++) {
            if (!isactx[isa])
                continue;
            const double sec = secs[isa];
            const size_t items = kernel_items(&a);
            fprintf(cfg.out, "bench stage=kernel kernel=%s isa=%s threads=1 size=%zu seconds=%.6f"
                   " ns_per_item=%.3f",
                   kb_names[k], strata_isa_name((strata_isa)isa), items, sec, sec * 1e9 / items);
            bench_end();
        }
        /* Which ISA's kernel the automatic table holds for this entry. */
        const char *auto_isa = "unknown";
        for (int isa = 0; isa < STRATA_ISA_COUNT_; isa++) {
            strata_ctx *c;
            if (strata_ctx_create(NULL, &c) != STRATA_OK)
                continue;
            if (strata_ctx_set_isa(c, (strata_isa)isa) == STRATA_OK &&
                kernel_fn(&c->simd, k) == kernel_fn(&autoctx->simd, k))
                auto_isa = strata_isa_name((strata_isa)isa);
            strata_ctx_destroy(c);
        }
        fprintf(cfg.out, "ratio stage=kernel kernel=%s", kb_names[k]);
        if (secs[STRATA_ISA_AVX2] > 0 && secs[STRATA_ISA_AVX512] > 0)
            fprintf(cfg.out, " avx512_vs_avx2=%.3f", secs[STRATA_ISA_AVX2] / secs[STRATA_ISA_AVX512]);
        if (secs[STRATA_ISA_SCALAR] > 0)
            for (int isa = 1; isa < STRATA_ISA_COUNT_; isa++)
                if (secs[isa] > 0)
                    fprintf(cfg.out, " %s_vs_scalar=%.2f", strata_isa_name((strata_isa)isa),
                           secs[STRATA_ISA_SCALAR] / secs[isa]);
        fprintf(cfg.out, " auto=%s", auto_isa);
        bench_end();
    }
    for (int isa = 0; isa < STRATA_ISA_COUNT_; isa++)
        strata_ctx_destroy(isactx[isa]);
    strata_ctx_destroy(autoctx);
    if (a.sink == 42) /* never: uses the results */
        puts("");
    free(px), free(py), free(pz), free(gx), free(gy), free(a.out);
    free(a.x), free(a.y), free(a.z), free(a.h), free(a.v_h), free(a.lev), free(a.on), free(a.mark);
    free(a.cross);
    free(a.ox), free(a.oy), free(a.oz);
    strata_mesh_destroy(in.m);
}

/* ------------------------------------------------------------ write */

static off_t file_size(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        die("cannot stat %s", path);
    return sb.st_size;
}

typedef struct {
    strata_ctx *ctx;
    const strata_result *r;
    off_t bytes;
} write_arg;

static double run_write(void *p)
{
    write_arg *a = p;
    strata_write_options wo;
    strata_write_defaults(&wo);
    wo.format = STRATA_FORMAT_PLY;
    const double t0 = now();
    check(strata_result_write(a->ctx, a->r, cfg.ply, &wo), "write");
    const double t = now() - t0;
    a->bytes = file_size(cfg.ply);
    remove(cfg.ply);
    return t;
}

static void bench_write(strata_ctx *ctx)
{
    if (!want("write"))
        return;
    input in;
    set_default(ctx);
    terrain_input(ctx, cfg.quick ? 512 : 2048, 16, &in);
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = in.levels;
    so.nlevels = in.nlevels;
    strata_result *r;
    check(strata_slice(ctx, in.m, &so, &r), "slice");
    strata_result_view v;
    strata_result_get_view(r, &v);
    for (int ri = 0; ri < nruns(); ri++) {
        set_run(ctx, ri); /* the writer runs on the context's threads */
        write_arg a = {ctx, r, 0};
        const double s = best_of(run_write, &a);
        bench_begin("write", ctx, v.nindices / 3);
        fprintf(cfg.out, " input=%s format=ply seconds=%.6f bytes=%lld mb_per_s=%.1f", in.name, s,
               (long long)a.bytes, (double)a.bytes / s / 1e6);
        print_bw_share((double)a.bytes, s, strata_ctx_threads(ctx)); /* min_bytes: the file */
        bench_end();
        record_ctx("write", "format=ply", ctx, s);
    }
    strata_result_destroy(r);
    strata_mesh_destroy(in.m);
}

/* ----------------------------------------------------------- planet */

/* A field of /proc/self/status in KiB ("VmRSS:", "VmHWM:"), -1 without it. */
static long proc_status_kib(const char *key)
{
    char line[256];
    long v = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key))) {
            v = strtol(line + strlen(key), NULL, 10);
            break;
        }
    if (f)
        fclose(f);
    return v;
}

/* Page faults and peak resident set of one step of the pipeline: the
 * peak (VmHWM) is reset before the step where the kernel allows it
 * (clear_refs 5), so it is the step's own high-water mark; faults are
 * getrusage deltas (minor: first touches of fresh memory, each costing
 * a page's zeroing and, on a virtual machine, the host's fault). */
typedef struct step_mem {
    long minflt, majflt;
    long peak_kib; /* -1: not known */
} step_mem;

/* Reset the peak (VmHWM) to the current size where the kernel allows
 * it. */
static void reset_peak(void)
{
    FILE *cr = fopen("/proc/self/clear_refs", "w");
    if (cr) {
        fputs("5", cr);
        fclose(cr);
    }
}

static void step_begin(struct rusage *ru)
{
    reset_peak();
    getrusage(RUSAGE_SELF, ru);
}

static void step_end(const struct rusage *before, step_mem *m)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    m->minflt = ru.ru_minflt - before->ru_minflt;
    m->majflt = ru.ru_majflt - before->ru_majflt;
    m->peak_kib = proc_status_kib("VmHWM:");
}

/* The whole pipeline as `strata planet --level L --terraces 32` runs it,
 * at ctx's settings, best of cfg.reps; prints its bench line but for
 * bw_share, which needs the bandwidth the parent measured (see
 * bench_planet).  Runs in a process of its own: its peak resident set is
 * this stage's alone.  Each step's faults and peak are those of the
 * first repetition (a process's first touches: what a batch job pays). */
static void planet_measure(strata_ctx *ctx)
{
    const int level = cfg.quick ? 7 : 10;
    /* The base is what the process held before the stage. */
    reset_peak();
    const long base_kib = proc_status_kib("VmRSS:");
    double best[6]; /* icosphere, displace, levels, slice, write, total */
    struct rusage ru;
    for (int k = 0; k < 6; k++)
        best[k] = INFINITY;
    uint32_t tris = 0;
    off_t bytes = 0;
    double in_bytes = 0, out_bytes = 0, slice_bytes = 0, verts = 0;
    strata_arena_stats arena = {0};
    step_mem mem[5] = {{0, 0, -1}, {0, 0, -1}, {0, 0, -1}, {0, 0, -1}, {0, 0, -1}};
    for (int rep = 0; rep < cfg.reps; rep++) {
        double t[6];
        step_mem *sm = rep == 0 ? mem : NULL;
#define STEP_BEGIN() (sm ? step_begin(&ru) : (void)0)
#define STEP_END(k) (sm ? step_end(&ru, &sm[k]) : (void)0)
        strata_mesh *m;
        strata_result *r;
        strata_fbm f;
        float levels[32];
        strata_fbm_defaults(&f);
        f.frequency = 1.5f;
        f.amplitude = 0.1f;
        double ts[5], te[5];
        STEP_BEGIN();
        ts[0] = now();
        check(strata_shape_icosphere(ctx, level, 1.0f, &m), "icosphere");
        te[0] = now();
        STEP_END(0);
        STEP_BEGIN();
        ts[1] = now();
        check(strata_displace_radial(ctx, m, &f, NULL), "displace");
        te[1] = now();
        STEP_END(1);
        STEP_BEGIN();
        ts[2] = now();
        check(strata_levels_uniform(m, 32, NULL, levels), "levels");
        te[2] = now();
        STEP_END(2);
        strata_slice_options so;
        strata_slice_defaults(&so);
        so.levels = levels;
        so.nlevels = 32;
        STEP_BEGIN();
        ts[3] = now();
        check(strata_slice(ctx, m, &so, &r), "slice");
        te[3] = now();
        STEP_END(3);
        strata_ctx_arena_stats(ctx, &arena);
        strata_write_options wo;
        strata_write_defaults(&wo);
        wo.format = STRATA_FORMAT_PLY;
        STEP_BEGIN();
        ts[4] = now();
        check(strata_result_write(ctx, r, cfg.ply, &wo), "write");
        te[4] = now();
        STEP_END(4);
#undef STEP_BEGIN
#undef STEP_END
        /* the steps' own times (the bookkeeping between them left out) */
        t[0] = 0.0;
        for (int k = 0; k < 5; k++)
            t[k + 1] = t[k] + (te[k] - ts[k]);
        tris = strata_mesh_triangle_count(m);
        verts = strata_mesh_vertex_count(m);
        bytes = file_size(cfg.ply);
        in_bytes = mesh_bytes(strata_mesh_vertex_count(m), tris, strata_mesh_edge_count(m));
        out_bytes = result_bytes(r);
        strata_result_view v;
        strata_result_get_view(r, &v);
        slice_bytes = 12.0 * v.nverts + 4.0 * (double)v.nindices;
        remove(cfg.ply);
        strata_result_destroy(r);
        strata_mesh_destroy(m);
        if (t[5] - t[0] < best[5]) {
            for (int k = 0; k < 5; k++)
                best[k] = t[k + 1] - t[k];
            best[5] = t[5] - t[0];
        }
    }
    long peak_kib = proc_status_kib("VmHWM:"), from_kib = base_kib;
    for (int k = 0; k < 5; k++) /* the peak was reset before each step of the first rep */
        if (mem[k].peak_kib > peak_kib)
            peak_kib = mem[k].peak_kib;
    if (peak_kib < 0) { /* no /proc: the process's peak, startup included */
        getrusage(RUSAGE_SELF, &ru);
        peak_kib = ru.ru_maxrss;
        from_kib = 0;
    }
    if (from_kib < 0)
        from_kib = 0;
    bench_begin("planet", ctx, tris);
    fprintf(cfg.out, " level=%d terraces=32 seconds=%.6f icosphere_s=%.6f displace_s=%.6f"
           " levels_s=%.6f slice_s=%.6f write_s=%.6f ply_bytes=%lld",
           level, best[5], best[0], best[1], best[2], best[3], best[4], (long long)bytes);
    /* Memory: input = the displaced mesh's arrays, output = the result's;
     * mem_ratio = (peak - base) / (input + output), the resident memory
     * the stage added over what it cannot do without (the target is
     * <= 1.3).  base is the process before the stage (program, library,
     * runtime): a few MiB that would swamp small levels. */
    fprintf(cfg.out, " input_mb=%.1f output_mb=%.1f base_rss_mb=%.1f peak_rss_mb=%.1f mem_ratio=%.3f",
           in_bytes / MIB, out_bytes / MIB, (double)from_kib / 1024.0, (double)peak_kib / 1024.0,
           (double)(peak_kib - from_kib) * 1024.0 / (in_bytes + out_bytes));
    /* min_bytes: the sum of the steps' own: the icosphere's mesh, x, y, z,
     * h rewritten by displace (16 B a vertex), the slice's output and the
     * file. */
    fprintf(cfg.out, " min_bytes=%.0f", in_bytes + 16.0 * verts + slice_bytes + (double)bytes);
    fprintf(cfg.out, " arena_mb_reserved=%.1f arena_mb_used=%.1f arena_mb_wasted=%.2f",
           arena.bytes_reserved / 1e6, arena.bytes_used / 1e6, arena.bytes_wasted / 1e6);
    /* Per step, first repetition: minor and major faults, peak RSS (MiB;
     * -1 without /proc). */
    static const char *const steps[5] = {"icosphere", "displace", "levels", "slice", "write"};
    for (int k = 0; k < 5; k++)
        fprintf(cfg.out, " %s_minflt=%ld %s_majflt=%ld %s_peak_rss_mb=%.1f", steps[k], mem[k].minflt,
               steps[k], mem[k].majflt, steps[k],
               mem[k].peak_kib < 0 ? -1.0 : (double)mem[k].peak_kib / 1024.0);
    fflush(cfg.out);
}

/* Where this program's executable is, to run it again as a child. */
static char self_exe[4096];

/* Each run configuration's planet pipeline runs in a child process, so
 * that its peak resident set is its own, not the high-water mark of every
 * earlier stage.  The child is this program again (fork and exec, with
 * --planet-child): a plain fork would copy the parent's memory into the
 * child's peak and, worse, hang in libgomp, whose thread pool does not
 * survive fork.  The child prints its line into a pipe; the parent adds
 * bw_share and keeps the seconds for the scaling lines. */
static void bench_planet(strata_ctx *ctx)
{
    if (!want("planet"))
        return;
    const int level = cfg.quick ? 7 : 10;
    for (int ri = 0; ri < nruns(); ri++) {
        char reps[16], threads[16];
        const char *isa = strata_isa_name(cfg.isas[ri / cfg.nthreads]);
        snprintf(reps, sizeof reps, "%d", cfg.reps);
        snprintf(threads, sizeof threads, "%d", cfg.threads[ri % cfg.nthreads]);
        char *args[13];
        int na = 0;
        args[na++] = self_exe;
        if (cfg.command)
            args[na++] = (char *)"bench";
        args[na++] = (char *)"--planet-child";
        if (cfg.quick)
            args[na++] = (char *)"--quick";
        args[na++] = (char *)"--reps";
        args[na++] = reps;
        args[na++] = (char *)"--isa";
        args[na++] = (char *)isa;
        args[na++] = (char *)"--threads";
        args[na++] = threads;
        args[na] = NULL;

        int fd[2];
        fflush(cfg.out);
        if (pipe(fd) != 0)
            die("pipe failed");
        const pid_t pid = fork();
        if (pid < 0)
            die("fork failed");
        if (pid == 0) {
            close(fd[0]);
            if (dup2(fd[1], STDOUT_FILENO) < 0)
                _exit(126);
            close(fd[1]);
            execv(self_exe, args);
            _exit(127);
        }
        close(fd[1]);
        char line[2048];
        size_t len = 0;
        ssize_t got;
        while ((got = read(fd[0], line + len, sizeof line - 1 - len)) > 0)
            len += (size_t)got;
        close(fd[0]);
        line[len] = '\0';
        int status;
        while (waitpid(pid, &status, 0) < 0)
            ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || len == 0)
            die("planet: the child process (%s --planet-child) failed", self_exe);
        line[strcspn(line, "\n")] = '\0';
        const char *sec = strstr(line, " seconds="), *mb = strstr(line, " min_bytes="),
                   *th = strstr(line, " threads=");
        if (!sec || !mb || !th)
            die("planet: unexpected child output '%s'", line);
        const double s = strtod(sec + 9, NULL);
        const int nt = atoi(th + 9);
        fputs(line, cfg.out);
        const double w = bw_write(nt);
        if (w > 0 && s > 0)
            fprintf(cfg.out, " bw_share=%.3f", strtod(mb + 11, NULL) / s / 1e9 / w);
        bench_end();
        char what[32];
        snprintf(what, sizeof what, "level=%d", level);
        /* The ISA as the child resolved it (auto: its default). */
        char isa_word[32] = "";
        const char *iw = strstr(line, " isa=");
        strata_isa isa_v = STRATA_ISA_SCALAR;
        if (iw)
            snprintf(isa_word, sizeof isa_word, "%.*s", (int)strcspn(iw + 5, " "), iw + 5);
        if (strata_isa_from_name(isa_word, &isa_v) != STRATA_OK)
            die("planet: unexpected child output '%s'", line);
        record("planet", what, (int)isa_v, nt, s);
    }
}

/* ------------------------------------------------------------- main */

static void usage(FILE *f)
{
    fprintf(f, "Usage: %s [--quick] [--threads LIST] [--isa LIST] [--stage NAME]\n"
               "          [--reps N] [--busy N] [--summary|--lines|--json] [--chart FILE.svg]\n",
            cfg.command ? "strata bench" : "strata-bench");
    fputs("Measure libstrata's stages: throughput over thread counts and instruction\n"
          "sets, scaling, share of the memory's bandwidth, page faults.\n"
          "  --quick          small sizes (the whole run takes seconds)\n"
          "  --threads LIST   thread counts, e.g. 1,2 (default: 1 and the library default)\n"
          "  --isa LIST       instruction sets, e.g. scalar,avx2, or auto (the library's\n"
          "                   choice); default: every one this CPU and build offer\n"
          "  --stage NAME     run only NAME (a comma list is allowed): bandwidth,\n"
          "                   icosphere, subdivide, fbm3, fbm2, displace, slice, kernels,\n"
          "                   stacked, write, planet, ao, uv (bandwidth is measured\n"
          "                   whenever a stage's bw_share needs it)\n"
          "  --reps N         best of N runs per measurement (default 3)\n"
          "  --busy N         keep N threads spinning all through the run (a shared\n"
          "                   machine: compare the scaling lines with and without)\n"
          "  --summary        a table a person reads (the default of strata bench)\n"
          "  --lines          one key=value line per measurement, printed as it is\n"
          "                   measured (the default of perf/strata-bench)\n"
          "  --json           the lines as one JSON document\n"
          "  --chart FILE     also write an SVG chart of each stage's speedup over\n"
          "                   thread counts\n"
          "  --help           this text\n",
          f);
}

static void add_thread(int n)
{
    for (int i = 0; i < cfg.nthreads; i++)
        if (cfg.threads[i] == n)
            return;
    if (cfg.nthreads == MAX_THREADS)
        die("--threads: at most %d counts", MAX_THREADS);
    cfg.threads[cfg.nthreads++] = n;
}

static void parse_threads(const char *s)
{
    while (*s) {
        char *end;
        const long n = strtol(s, &end, 10);
        if (end == s || n < 1 || n > 1024 || (*end && *end != ','))
            die("--threads: expected a list like 1,2, not '%s'", s);
        add_thread((int)n);
        s = *end ? end + 1 : end;
    }
}

static void parse_isas(const char *s)
{
    char name[32];
    while (*s) {
        const size_t len = strcspn(s, ",");
        strata_isa isa;
        snprintf(name, sizeof name, "%.*s", (int)len, s);
        if (len >= sizeof name || strata_isa_from_name(name, &isa) != STRATA_OK)
            die("--isa: unknown instruction set '%s'", name);
        if (isa != STRATA_ISA_AUTO && !(strata_cpu_isas() & STRATA_ISA_BIT(isa)))
            die("--isa: %s is not available on this CPU or in this build", name);
        int seen = 0;
        for (int i = 0; i < cfg.nisas; i++)
            seen |= cfg.isas[i] == isa;
        if (!seen && cfg.nisas < STRATA_ISA_COUNT_)
            cfg.isas[cfg.nisas++] = isa;
        s += len + (s[len] == ',');
    }
}

/* A value for key=value: spaces would split the word. */
static void print_word(const char *key, const char *val)
{
    fprintf(cfg.out, " %s=", key);
    for (const char *c = val; *c && *c != '\n'; c++)
        fputc(*c == ' ' || *c == '\t' ? '_' : *c, cfg.out);
}

/* The 1-minute load average: other work on a shared machine explains
 * outliers better than anything measured here. */
static double load1(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

static void print_machine(strata_ctx *ctx)
{
#if defined(__clang__)
    const char *cc = "clang-" __clang_version__;
#elif defined(__GNUC__)
    const char *cc = "gcc-" __VERSION__;
#else
    const char *cc = "unknown";
#endif
    char cpu[256] = "unknown", line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            snprintf(cpu, sizeof cpu, "%s", strchr(line, ':') + 2);
            break;
        }
    if (f)
        fclose(f);
    fprintf(cfg.out, "machine version=%s header_version=%s threads_default=%d online_cpus=%ld",
           strata_version(), STRATA_VERSION, strata_ctx_threads(ctx), sysconf(_SC_NPROCESSORS_ONLN));
    print_word("compiler", cc);
    print_word("cpu", cpu);
    fprintf(cfg.out, " isa_default=%s cpu_isas=", strata_isa_name(strata_ctx_isa(ctx)));
    for (int i = 0, n = 0; i < STRATA_ISA_COUNT_; i++)
        if (strata_cpu_isas() & STRATA_ISA_BIT(i))
            fprintf(cfg.out, "%s%s", n++ ? "," : "", strata_isa_name((strata_isa)i));
    fprintf(cfg.out, " quick=%d reps=%d busy=%d threads=", cfg.quick, cfg.reps, cfg.busy);
    for (int i = 0; i < cfg.nthreads; i++)
        fprintf(cfg.out, "%s%d", i ? "," : "", cfg.threads[i]);
    fprintf(cfg.out, " isas=");
    for (int i = 0; i < cfg.nisas; i++)
        fprintf(cfg.out, "%s%s", i ? "," : "", strata_isa_name(cfg.isas[i]));
    fprintf(cfg.out, " stage=%s load1=%.2f\n", cfg.stage ? cfg.stage : "all", load1());
    fflush(cfg.out);
}

/* Where the threads can run: packages, NUMA nodes (with their memory),
 * cores, hardware threads and L3 caches (with their sizes), from hwloc
 * when the build has it; else the online CPUs only. */
static void print_topology(void)
{
#ifdef HAVE_HWLOC
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0) {
        const int nnuma = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE),
                  nl3 = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_L3CACHE);
        fprintf(cfg.out, "topology source=hwloc packages=%d numa_nodes=%d cores=%d pus=%d l3_caches=%d",
               hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE), nnuma,
               hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE),
               hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU), nl3);
        fprintf(cfg.out, " l3_kib=");
        for (int i = 0; i < nl3; i++) {
            const hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L3CACHE, (unsigned)i);
            fprintf(cfg.out, "%s%llu", i ? "," : "",
                   (unsigned long long)(o && o->attr ? o->attr->cache.size / 1024 : 0));
        }
        if (nl3 == 0)
            fprintf(cfg.out, "none");
        fprintf(cfg.out, " numa_mb=");
        for (int i = 0; i < nnuma; i++) {
            const hwloc_obj_t o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
            fprintf(cfg.out, "%s%.0f", i ? "," : "",
                   o && o->attr ? (double)o->attr->numanode.local_memory / MIB : 0.0);
        }
        if (nnuma == 0)
            fprintf(cfg.out, "none");
        fprintf(cfg.out, " online_cpus=%ld\n", sysconf(_SC_NPROCESSORS_ONLN));
        hwloc_topology_destroy(topo);
        fflush(cfg.out);
        return;
    }
#endif
    fprintf(cfg.out, "topology source=sysconf online_cpus=%ld\n", sysconf(_SC_NPROCESSORS_ONLN));
    fflush(cfg.out);
}

/* --chart FILE: refused before anything is measured when FILE's folder
 * cannot take it (the chart itself is written at the end). */
static void check_chart(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        slash[slash == dir] = '\0'; /* "/x.svg": the root */
    struct stat st;
    if (!*path || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
        die("--chart '%s': not a file name", path);
    if (access(dir, W_OK) != 0)
        die("--chart '%s': cannot write in '%s': %s", path, dir, strerror(errno));
}

static void parse_args(int argc, char **argv, const char **threads, const char **isas)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const int has_val = i + 1 < argc;
        if (!strcmp(a, "--quick")) {
            cfg.quick = 1;
        } else if (!strcmp(a, "--planet-child")) { /* internal: see bench_planet */
            cfg.child = 1;
        } else if (!strcmp(a, "--threads") && has_val) {
            *threads = argv[++i];
        } else if (!strcmp(a, "--isa") && has_val) {
            *isas = argv[++i];
        } else if (!strcmp(a, "--stage") && has_val) {
            cfg.stage = argv[++i];
        } else if (!strcmp(a, "--busy") && has_val) {
            cfg.busy = atoi(argv[++i]);
            if (cfg.busy < 1 || cfg.busy > MAX_THREADS)
                die("--busy: expected 1..%d, not '%s'", MAX_THREADS, argv[i]);
        } else if (!strcmp(a, "--reps") && has_val) {
            cfg.reps = atoi(argv[++i]);
            if (cfg.reps < 1 || cfg.reps > 1000)
                die("--reps: expected 1..1000, not '%s'", argv[i]);
        } else if (!strcmp(a, "--lines") || !strcmp(a, "--summary") || !strcmp(a, "--json")) {
            cfg.format = a[2] == 'l' ? BENCH_LINES : a[2] == 's' ? BENCH_SUMMARY : BENCH_JSON;
        } else if (!strcmp(a, "--chart") && has_val) {
            cfg.chart = argv[++i];
            check_chart(cfg.chart);
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        } else {
            fprintf(stderr, "%s: '%s': unknown option, or an option without its value\n",
                    cfg.command ? "strata bench" : "strata-bench", a);
            usage(stderr);
            exit(2);
        }
    }
    for (const char *s = cfg.stage; s && *s;) { /* every listed stage must exist */
        static const char *const stages[] = {"bandwidth", "icosphere", "subdivide", "fbm3",
                                             "fbm2",      "displace",  "slice",     "kernels",
                                             "stacked",   "write",     "planet",
                                             "ao",        "uv"};
        const size_t len = strcspn(s, ",");
        size_t i = 0;
        while (i < sizeof stages / sizeof *stages &&
               !(strlen(stages[i]) == len && !strncmp(s, stages[i], len)))
            i++;
        if (i == sizeof stages / sizeof *stages)
            die("--stage: unknown stage '%.*s'", (int)len, s);
        s += len + (s[len] == ',');
    }
}

/* Every stage asked for, one after another. */
static void measure(strata_ctx *ctx)
{
    print_machine(ctx);
    print_topology();

    /* Every stage's bw_share needs the bandwidth: measured first (the
     * stacked baseline and the kernels have none). */
    static const char *const bw_stages[] = {"bandwidth", "icosphere", "subdivide", "fbm3",
                                            "fbm2",      "displace",  "slice",     "write",
                                            "planet"};
    int need_bw = 0;
    for (size_t i = 0; i < sizeof bw_stages / sizeof *bw_stages; i++)
        need_bw |= want(bw_stages[i]);
    busy_start();
    if (need_bw)
        bench_bandwidth(ctx);
    bench_shapes(ctx);
    bench_fbm(ctx);
    bench_displace(ctx);
    bench_terrain(ctx);
    bench_planet_slice(ctx);
    bench_kernels(ctx);
    bench_write(ctx);
    bench_planet(ctx);
    bench_ao(ctx);
    bench_uv(ctx);
    busy_end();

    print_scaling();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    fprintf(cfg.out, "memory peak_rss_mb=%.1f load1=%.2f\n", (double)ru.ru_maxrss / 1024.0,
            /* KiB */ load1());
}

/* The lines kept in text, as --summary, --json and --chart ask. */
static void report(const char *text)
{
    if (cfg.format == BENCH_LINES)
        fputs(text, stdout);
    else if (cfg.format == BENCH_JSON)
        bench_json(text, stdout);
    else
        bench_summary(text, stdout);
    if (fflush(stdout) != 0 || ferror(stdout))
        die("cannot write the standard output: %s", strerror(errno));
    if (!cfg.chart)
        return;
    FILE *f = fopen(cfg.chart, "w");
    if (!f)
        die("--chart '%s': cannot write: %s", cfg.chart, strerror(errno));
    bench_chart(text, f);
    if (ferror(f) | (fclose(f) != 0)) {
        unlink(cfg.chart);
        die("--chart '%s': cannot write: %s", cfg.chart, strerror(errno));
    }
}

int bench_main(int argc, char **argv, int command)
{
    const char *threads = NULL, *isas = NULL;
    cfg.command = command;
    cfg.format = command ? BENCH_SUMMARY : BENCH_LINES;
    cfg.out = stdout;
    cfg.parsing = 1;
    parse_args(argc, argv, &threads, &isas);

    strata_ctx *ctx;
    check(strata_ctx_create(NULL, &ctx), "context");
    if (threads) {
        parse_threads(threads);
    } else {
        add_thread(1);
        add_thread(strata_ctx_threads(ctx));
    }
    if (isas) {
        parse_isas(isas);
    } else {
        for (int i = 0; i < STRATA_ISA_COUNT_; i++)
            if (strata_cpu_isas() & STRATA_ISA_BIT(i))
                cfg.isas[cfg.nisas++] = (strata_isa)i;
    }
    cfg.parsing = 0;
    const char *tmp = getenv("TMPDIR");
    snprintf(cfg.ply, sizeof cfg.ply, "%s/strata-bench-%ld.ply", tmp && *tmp ? tmp : "/tmp",
             (long)getpid());
    if (cfg.child) { /* lines on stdout, for the parent */
        cfg.format = BENCH_LINES;
        set_run(ctx, 0);
        planet_measure(ctx);
        strata_ctx_destroy(ctx);
        return 0;
    }
    const ssize_t n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    if (n > 0)
        self_exe[n] = '\0';
    else
        snprintf(self_exe, sizeof self_exe, "%s", argv[0]);

    char *text = NULL;
    size_t len = 0;
    if (cfg.format != BENCH_LINES || cfg.chart) { /* kept for the report */
        cfg.out = open_memstream(&text, &len);
        if (!cfg.out)
            die("out of memory");
    }
    measure(ctx);
    strata_ctx_destroy(ctx);
    if (cfg.out != stdout) {
        if (fclose(cfg.out) != 0)
            die("out of memory");
        cfg.out = stdout;
        report(text);
        free(text);
    }
    return 0;
}
