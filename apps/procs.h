/* The processes of a world run: one, or the ranks of an MPI job.
 *
 * Under `mpirun -n P strata planet --chunk-level C -o DIR` (a build
 * configured with MPI), the P processes share the chunks: rank 0 hands
 * out chunk ids in order of expected cost, in shrinking batches to
 * whichever rank asks next (guided self-scheduling: a quarter of an even
 * share of what is left) and one at a time to its own threads (dynamic
 * load balancing), from a service thread that sleeps between requests; every rank makes its
 * chunks with its own threads into the shared directory; then rank 0
 * gathers the tiles' records and writes the tileset.  The height range
 * behind --terraces is measured by all ranks, each on its share, and
 * combined, so the planes are those of a one-process run bit for bit.
 *
 * Without MPI at build time, or when the program was not started by an
 * MPI launcher (no OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK in the
 * environment), there is one process and every function below is
 * trivial. */
#ifndef STRATA_APPS_PROCS_H
#define STRATA_APPS_PROCS_H

#include "strata.h"

#include <stdbool.h>
#include <stdint.h>

/* Join the MPI job if the program was started by an MPI launcher; MPI
 * is finalized at exit. */
void procs_init(void);
int procs_rank(void);
int procs_size(void);
/* "Open MPI v4.1.4, 3 ranks, dynamic", or "one process". */
const char *procs_describe(void);

/* Whether ok holds on every rank (a collective: every rank calls it at
 * the same point). */
bool procs_all_ok(bool ok);
/* Leave quietly with status code (after another rank failed and said
 * why). */
_Noreturn void procs_exit(int code);

/* The minimum of *lo and the maximum of *hi over all ranks. */
void procs_minmax(float *lo, float *hi);

/* Share ids[0..n) (all ranks pass the same list, costliest first):
 * procs_next then hands them out across ranks.  Rank 0 starts its
 * service thread here. */
void procs_share(const uint64_t *ids, uint64_t n);
/* The next id for this rank's threads, UINT64_MAX when none is left (a
 * strata_world_run_options.next; called by one thread at a time). */
uint64_t procs_next(void *user);
/* The share of the ids handed out so far, over all ranks (rank 0; for
 * the progress bar). */
double procs_handed(void);
/* This rank is done making chunks (failed: it stopped on an error, so no
 * rank gets more ids).  Rank 0 waits here until every rank is done. */
void procs_unshare(bool failed);

/* Gather the records of every rank's tiles to rank 0: recs/have are
 * indexed by chunk id (nchunks of them). */
void procs_gather(strata_tile_record *recs, uint8_t *have, uint64_t nchunks);
/* Sums of the run's figures over ranks (to rank 0); *rss_max the largest
 * peak RSS of a rank, *rss_sum their sum. */
void procs_sum(strata_world_run_stats *rs, long long *rss_max, long long *rss_sum);

#endif
