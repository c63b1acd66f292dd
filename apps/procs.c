/* The processes of a world run (see procs.h): MPI when built with it and
 * started by an MPI launcher, one process otherwise. */
#define _POSIX_C_SOURCE 200809L

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "procs.h"
#include "fail.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_MPI
#include <mpi.h>
#include <pthread.h>
#include <time.h>
#endif

static struct {
    int rank, size;
    bool dynamic; /* ids handed out by rank 0 (else taken round robin) */
    char describe[160];
    /* the shared ids */
    const uint64_t *ids;
    uint64_t n;
    _Atomic uint64_t cursor;  /* rank 0: next index into ids */
    _Atomic int stop;         /* rank 0: a rank failed, hand out no more */
    bool exhausted;           /* this rank was told there are no more */
    uint64_t mine;            /* round robin: next index of this rank */
    uint64_t batch, batch_end; /* the ids[batch..batch_end) rank 0 gave this rank */
#ifdef HAVE_MPI
    pthread_t server;
    bool serving;
#endif
} g = {.rank = 0, .size = 1, .describe = "one process"};

int procs_rank(void)
{
    return g.rank;
}

int procs_size(void)
{
    return g.size;
}

const char *procs_describe(void)
{
    return g.describe;
}

/* The next index into the ids, taken on rank 0 (or round robin). */
static uint64_t take_local(void)
{
    if (atomic_load(&g.stop))
        return UINT64_MAX;
    const uint64_t i = atomic_fetch_add(&g.cursor, 1);
    return i < g.n ? i : UINT64_MAX;
}

double procs_handed(void)
{
    const uint64_t c = atomic_load(&g.cursor);
    return g.n ? (double)(c < g.n ? c : g.n) / (double)g.n : 1.0;
}

#ifndef HAVE_MPI

void procs_init(void) {}
bool procs_all_ok(bool ok) { return ok; }
_Noreturn void procs_exit(int code) { exit(code); }
void procs_minmax(float *lo, float *hi) { (void)lo, (void)hi; }
void procs_gather(strata_tile_record *recs, uint8_t *have, uint64_t nchunks)
{
    (void)recs, (void)have, (void)nchunks;
}
void procs_sum(strata_world_run_stats *rs, long long *rss_max, long long *rss_sum)
{
    (void)rs, (void)rss_max, (void)rss_sum;
}
void procs_share(const uint64_t *ids, uint64_t n)
{
    g.ids = ids;
    g.n = n;
    atomic_store(&g.cursor, 0);
}
uint64_t procs_next(void *user)
{
    (void)user;
    const uint64_t i = take_local();
    return i == UINT64_MAX ? UINT64_MAX : g.ids[i];
}
void procs_unshare(bool failed) { (void)failed; }

#else /* HAVE_MPI */

enum { TAG_ASK = 1, TAG_ID = 2 };
/* What a rank asks rank 0. */
enum { ASK_NEXT = 0, ASK_DONE = 1, ASK_FAILED = 2 };

static void finalize(void)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin)
        MPI_Finalize();
}

void procs_init(void)
{
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK"))
        return;
    int provided = MPI_THREAD_SINGLE;
    /* the threads of a rank ask for ids one at a time, and rank 0's
     * service thread is the only one there that calls MPI while chunks
     * are made: SERIALIZED is enough */
    if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        die(EXIT_RUNTIME, "MPI: cannot initialise");
    atexit(finalize);
    MPI_Comm_rank(MPI_COMM_WORLD, &g.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g.size);
    g.dynamic = provided >= MPI_THREAD_SERIALIZED && g.size > 1;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, ",\n")] = '\0';
    snprintf(g.describe, sizeof g.describe, "%.80s, %d rank%s, %s", lib, g.size,
             g.size == 1 ? "" : "s",
             g.dynamic ? "dynamic" : "round robin (the MPI library lacks MPI_THREAD_SERIALIZED)");
}

bool procs_all_ok(bool ok)
{
    if (g.size == 1)
        return ok;
    int mine = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all != 0;
}

_Noreturn void procs_exit(int code)
{
    exit(code); /* finalize runs at exit */
}

void procs_minmax(float *lo, float *hi)
{
    if (g.size == 1)
        return;
    float a = *lo, b = *hi;
    MPI_Allreduce(&a, lo, 1, MPI_FLOAT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&b, hi, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
}

/* A batch of indices for another rank: guided self-scheduling, a quarter
 * of an even share of what is left (at least one), so a rank asks about
 * 4 P ln(n) times in all and the last chunks still go one by one. */
static void take_batch(uint64_t out[2])
{
    out[0] = out[1] = 0;
    if (atomic_load(&g.stop))
        return;
    uint64_t c = atomic_load(&g.cursor);
    for (;;) {
        if (c >= g.n)
            return;
        uint64_t k = (g.n - c) / (4 * (uint64_t)g.size);
        k = k ? k : 1;
        if (atomic_compare_exchange_weak(&g.cursor, &c, c + k)) {
            out[0] = c;
            out[1] = k;
            return;
        }
    }
}

/* Rank 0's service thread: answer every other rank's requests until each
 * has said it is done.  It polls (a blocking receive spins in most MPI
 * libraries and would take a core from the chunks), sleeping 200 us
 * between empty polls: a chunk takes milliseconds at least. */
static void *serve(void *arg)
{
    (void)arg;
    int left = g.size - 1;
    while (left > 0) {
        int flag = 0;
        MPI_Status s;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_ASK, MPI_COMM_WORLD, &flag, &s);
        if (!flag) {
            const struct timespec ts = {0, 200000};
            nanosleep(&ts, NULL);
            continue;
        }
        int ask;
        MPI_Recv(&ask, 1, MPI_INT, s.MPI_SOURCE, TAG_ASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (ask != ASK_NEXT) {
            if (ask == ASK_FAILED)
                atomic_store(&g.stop, 1);
            left--;
            continue;
        }
        uint64_t batch[2];
        take_batch(batch);
        MPI_Send(batch, 2, MPI_UINT64_T, s.MPI_SOURCE, TAG_ID, MPI_COMM_WORLD);
    }
    return NULL;
}

void procs_share(const uint64_t *ids, uint64_t n)
{
    g.ids = ids;
    g.n = n;
    atomic_store(&g.cursor, 0);
    atomic_store(&g.stop, 0);
    g.exhausted = false;
    g.mine = (uint64_t)g.rank;
    g.batch = g.batch_end = 0;
    if (g.dynamic && g.rank == 0) {
        if (pthread_create(&g.server, NULL, serve, NULL) != 0)
            die(EXIT_RUNTIME, "MPI: cannot start the chunk service thread");
        g.serving = true;
    }
}

uint64_t procs_next(void *user)
{
    (void)user;
    if (g.size == 1 || (g.dynamic && g.rank == 0)) {
        const uint64_t i = take_local();
        return i == UINT64_MAX ? UINT64_MAX : g.ids[i];
    }
    if (!g.dynamic) {
        const uint64_t i = g.mine;
        g.mine += (uint64_t)g.size;
        return i < g.n ? g.ids[i] : UINT64_MAX;
    }
    if (g.batch == g.batch_end && !g.exhausted) {
        const int ask = ASK_NEXT;
        uint64_t batch[2];
        MPI_Send(&ask, 1, MPI_INT, 0, TAG_ASK, MPI_COMM_WORLD);
        MPI_Recv(batch, 2, MPI_UINT64_T, 0, TAG_ID, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        g.batch = batch[0];
        g.batch_end = batch[0] + batch[1];
        g.exhausted = batch[1] == 0 || g.batch_end > g.n;
    }
    if (g.exhausted)
        return UINT64_MAX;
    return g.ids[g.batch++];
}


void procs_unshare(bool failed)
{
    if (!g.dynamic)
        return;
    if (g.rank == 0) {
        if (failed)
            atomic_store(&g.stop, 1);
        if (g.serving)
            pthread_join(g.server, NULL);
        g.serving = false;
        return;
    }
    const int ask = failed ? ASK_FAILED : ASK_DONE;
    MPI_Send(&ask, 1, MPI_INT, 0, TAG_ASK, MPI_COMM_WORLD);
}

void procs_gather(strata_tile_record *recs, uint8_t *have, uint64_t nchunks)
{
    if (g.size == 1)
        return;
    /* each rank's records, packed; counts in records (an int each: a
     * world has far fewer than 2^31 chunks per rank in practice, and
     * more is refused) */
    uint64_t mine = 0;
    for (uint64_t id = 0; id < nchunks; id++)
        mine += have[id];
    if (mine > (uint64_t)(INT32_MAX / (int)sizeof *recs))
        die(EXIT_RUNTIME, "MPI: too many tiles on one rank to gather (%llu)",
            (unsigned long long)mine);
    strata_tile_record *pack = malloc(sizeof *pack * (mine ? mine : 1));
    if (!pack)
        die(EXIT_RUNTIME, "out of memory");
    uint64_t k = 0;
    for (uint64_t id = 0; id < nchunks; id++)
        if (have[id])
            pack[k++] = recs[id];
    const int bytes = (int)(mine * sizeof *pack);
    int *counts = NULL, *displs = NULL;
    strata_tile_record *all = NULL;
    if (g.rank == 0) {
        counts = malloc(sizeof *counts * (size_t)g.size);
        displs = malloc(sizeof *displs * (size_t)g.size);
        if (!counts || !displs)
            die(EXIT_RUNTIME, "out of memory");
    }
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (g.rank == 0) {
        long long total = 0;
        for (int r = 0; r < g.size; r++) {
            displs[r] = (int)total;
            total += counts[r];
        }
        if (total > INT32_MAX)
            die(EXIT_RUNTIME, "MPI: too many tiles to gather (%lld bytes of records)", total);
        if (!(all = malloc(total ? (size_t)total : 1)))
            die(EXIT_RUNTIME, "out of memory");
    }
    MPI_Gatherv(pack, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (g.rank == 0) {
        const uint64_t n = (uint64_t)(displs[g.size - 1] + counts[g.size - 1]) / sizeof *all;
        for (uint64_t i = 0; i < n; i++)
            if (all[i].id < nchunks) {
                recs[all[i].id] = all[i];
                have[all[i].id] = 1;
            }
    }
    free(all);
    free(counts);
    free(displs);
    free(pack);
}

void procs_sum(strata_world_run_stats *rs, long long *rss_max, long long *rss_sum)
{
    if (g.size == 1)
        return;
    uint64_t u[4] = {rs->made, rs->skipped, rs->triangles, rs->bytes}, us[4];
    double d[4] = {rs->seconds_lattice, rs->seconds_noise, rs->seconds_slice,
                   rs->seconds_write},
           ds[4];
    long long r = *rss_max, rmax, rsum;
    MPI_Reduce(u, us, 4, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(d, ds, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&r, &rmax, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&r, &rsum, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (g.rank != 0)
        return;
    rs->made = us[0];
    rs->skipped = us[1];
    rs->triangles = us[2];
    rs->bytes = us[3];
    rs->seconds_lattice = ds[0];
    rs->seconds_noise = ds[1];
    rs->seconds_slice = ds[2];
    rs->seconds_write = ds[3];
    *rss_max = rmax;
    *rss_sum = rsum;
}

#endif /* HAVE_MPI */
