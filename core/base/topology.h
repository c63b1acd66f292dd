/* Thread placement (core/base/topology.c).  _init reads STRATA_BIND and the
 * OpenMP placement variables when a context is created; _free releases
 * the plan.  strata__bind_threads binds the workers of the calling
 * thread's OpenMP pool to the plan (once: a no-op while the pool is bound
 * for this plan); call it first in every entry point with parallel work. */
#ifndef STRATA_TOPOLOGY_H
#define STRATA_TOPOLOGY_H

#include "base.h"

typedef struct strata_placement strata_placement;
STRATA_HIDDEN void strata__placement_init(strata_ctx *ctx);
STRATA_HIDDEN void strata__placement_free(strata_ctx *ctx);
STRATA_HIDDEN void strata__bind_threads(strata_ctx *ctx);

/* hwloc builds only: n single-PU cpusets from hwloc_distrib over the whole
 * topology (one per core before any core gets two), allocated into sets[]
 * (free with hwloc_bitmap_free).  0, or -1 without memory.  The types are
 * hwloc_topology_t and hwloc_bitmap_t, spelled so this header needs no
 * hwloc.h. */
struct hwloc_topology;
struct hwloc_bitmap_s;
STRATA_HIDDEN int strata__placement_plan(struct hwloc_topology *topo, int n,
                                         struct hwloc_bitmap_s **sets);

#endif
