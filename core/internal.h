/* Internal declarations shared by the library's source files. */
#ifndef STRATA_INTERNAL_H
#define STRATA_INTERNAL_H

#include "strata.h"

#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>

#define STRATA_ALIGN 64

#if defined(__GNUC__)
#define STRATA_HIDDEN __attribute__((visibility("hidden")))
#define STRATA_LIKELY(x) __builtin_expect(!!(x), 1)
#define STRATA_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define STRATA_HIDDEN
#define STRATA_LIKELY(x) (x)
#define STRATA_UNLIKELY(x) (x)
#endif

/* Dispatch table: the kernels of one instruction set, filled by
 * strata__dispatch_init() (simd/dispatch.c) when a context is created and
 * changed only by strata_ctx_set_isa().  Kernels are chosen once per batch
 * through ctx->simd, never per element. */
struct strata_fbm_plan;
typedef void (*strata_fbm_kernel)(const struct strata_fbm_plan *p, const float *x,
                                  const float *y, const float *z, size_t n, float *out);
struct strata_place;
typedef void (*strata_classify_kernel)(const float *L, uint32_t nL, const float *h, size_t n,
                                       uint16_t *lev, uint8_t *on, uint64_t counts[2]);
typedef size_t (*strata_tri_levels_kernel)(const uint32_t *a, const uint32_t *b,
                                           const uint32_t *c, size_t n, const uint16_t *lev,
                                           uint16_t *out);
typedef void (*strata_place_roofs_kernel)(const struct strata_place *g, const float *L,
                                          const float *x, const float *y, const float *z,
                                          const uint16_t *lev, size_t n, float *ox, float *oy,
                                          float *oz);
typedef uint64_t (*strata_edge_spans_kernel)(const uint32_t *ev0, const uint32_t *ev1, size_t n,
                                             const uint16_t *lev);
typedef size_t (*strata_radial_samples_kernel)(const float c[3], float radius, const float *x,
                                               const float *y, const float *z, size_t n,
                                               float *sx, float *sy, float *sz);
typedef void (*strata_radial_move_kernel)(const float c[3], float radius, const float *v,
                                          size_t n, float *x, float *y, float *z, float *h);
typedef struct strata_dispatch {
    strata_isa isa;
    strata_fbm_kernel fbm2, fbm3;          /* simd/noise.h */
    strata_classify_kernel classify;       /* simd/slice.h */
    strata_tri_levels_kernel tri_levels;
    strata_place_roofs_kernel place_roofs;
    strata_edge_spans_kernel edge_spans;
    strata_radial_samples_kernel radial_samples; /* simd/displace.h */
    strata_radial_move_kernel radial_move;
} strata_dispatch;

/* The per-octave plan of an fBm (core/noise.c), for callers that run the
 * fbm2/fbm3 kernels themselves; STRATA_ERR_INVALID_ARG as
 * strata_fbm_validate. */
STRATA_HIDDEN strata_status strata__fbm_plan_make(const strata_fbm *f,
                                                  struct strata_fbm_plan *p);

/* Fill ctx->simd from STRATA_SIMD (unset, empty or "auto": the best ISA).
 * STRATA_ERR_ISA for an ISA this CPU or build lacks, STRATA_ERR_INVALID_ARG
 * for an unknown name. */
STRATA_HIDDEN strata_status strata__dispatch_init(strata_ctx *ctx);

struct strata_ctx {
    strata_dispatch simd; /* kernels of the chosen instruction set */
    strata_allocator alloc;
    int threads;         /* effective worker count, >= 1 */
    int default_threads; /* what threads = 0 means */
    strata_progress_fn progress;
    void *progress_user;
    atomic_int cancel;
    /* Thread placement (core/topology.c). */
    int bind;                      /* place worker threads on cores */
    const char *bind_off;          /* why not, when bind is 0 */
    struct strata_placement *placement; /* plan; NULL until first needed */
    strata_arena_stats arena_stats; /* of the last strata_slice */
};

struct strata_mesh {
    strata_allocator alloc; /* copied from the creating context */
    uint32_t nverts, ntris, nedges;
    strata_geometry geometry;
    float center[3];
    float radius;
    float *x, *y, *z, *h;       /* nverts each */
    uint32_t *a, *b, *c;        /* ntris each */
    uint32_t *e0, *e1, *e2;     /* ntris each */
    uint32_t *ev0, *ev1;        /* nedges each */
    /* Context (core/lattice.h): the last ghost_* vertices, edges and
     * triangles are only read by the slicer's decisions across edges and
     * around vertices; nothing is written for them.  0: none. */
    uint32_t ghost_verts, ghost_edges, ghost_tris;
};

struct strata_result {
    strata_allocator alloc;
    uint32_t nverts;
    float *x, *y, *z;
    float *nx, *ny, *nz; /* NULL without normals */
    uint64_t nindices;
    uint32_t *indices;
    uint32_t nterraces;
    strata_terrace *terraces;
    strata_walls walls;
    strata_geometry geometry;
    float center[3];
    float radius;
};

/* An empty result with the given counts allocated (normals if asked). */
STRATA_HIDDEN strata_status strata__result_alloc(const strata_allocator *a,
                                                 uint32_t nverts, uint64_t nindices,
                                                 uint32_t nterraces, int normals,
                                                 strata_result **out);

/* Fill roof_area / wall_area of every terrace from the final buffers. */
STRATA_HIDDEN void strata__result_areas(strata_ctx *ctx, strata_result *r);

/* Allocation through a context's or mesh's allocator (64-byte aligned). */
STRATA_HIDDEN void *strata__alloc(const strata_allocator *a, size_t size);
STRATA_HIDDEN void strata__free(const strata_allocator *a, void *p);
/* n * size with overflow check; returns NULL (and sets *ok=false) on
 * overflow. */
STRATA_HIDDEN void *strata__alloc_array(const strata_allocator *a, size_t n,
                                        size_t size);

/* A per-thread bump arena (core/arena.c): 64-byte-aligned pieces of big
 * blocks from the context's allocator, all freed together.  Padded to a
 * cache line so that arenas of different threads never share one. */
typedef struct strata_arena {
    _Alignas(STRATA_ALIGN) const strata_allocator *al;
    struct arena_block *blocks; /* newest first */
    unsigned char *cur, *end;   /* free part of the newest block */
    uint64_t nblocks, reserved, used, wasted;
} strata_arena;
STRATA_HIDDEN void strata__arena_init(strata_arena *a, const strata_allocator *al);
/* size bytes at a 64-byte boundary, or NULL without memory. */
STRATA_HIDDEN void *strata__arena_alloc(strata_arena *a, size_t size);
STRATA_HIDDEN void strata__arena_free(strata_arena *a);
/* Add this arena's figures to s (one more arena). */
STRATA_HIDDEN void strata__arena_stats_add(const strata_arena *a, strata_arena_stats *s);

/* Allocate a mesh with room for the given counts; arrays uninitialised. */
STRATA_HIDDEN strata_status strata__mesh_alloc(const strata_allocator *a,
                                               uint32_t nverts, uint32_t ntris,
                                               uint32_t nedges,
                                               strata_mesh **out);

/* The height of a point of mesh m: y (FLAT) or distance from the centre
 * minus the base radius (RADIAL).  Every place that sets h[] uses this, so
 * heights computed in different passes agree bit for bit. */
static inline float strata__height(const strata_mesh *m, float x, float y, float z)
{
    if (m->geometry == STRATA_FLAT)
        return y;
    const float dx = x - m->center[0], dy = y - m->center[1], dz = z - m->center[2];
    return sqrtf(dx * dx + dy * dy + dz * dz) - m->radius;
}

/* (b - a) x (c - a) for a triangle of SoA positions, in double: along the
 * normal of a counter-clockwise triangle, twice its area long. */
static inline void strata__tri_cross(const float *x, const float *y, const float *z, uint32_t a,
                                     uint32_t b, uint32_t c, double n[3])
{
    const double ux = (double)x[b] - x[a], uy = (double)y[b] - y[a], uz = (double)z[b] - z[a];
    const double vx = (double)x[c] - x[a], vy = (double)y[c] - y[a], vz = (double)z[c] - z[a];
    n[0] = uy * vz - uz * vy;
    n[1] = uz * vx - ux * vz;
    n[2] = ux * vy - uy * vx;
}

/* The triangle's unit normal (left at zero length if it is degenerate). */
static inline void strata__tri_normal(const float *x, const float *y, const float *z, uint32_t a,
                                      uint32_t b, uint32_t c, double n[3])
{
    strata__tri_cross(x, y, z, a, b, c, n);
    const double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (len > 0) {
        n[0] /= len;
        n[1] /= len;
        n[2] /= len;
    }
}

/* Proper rotations between an input frame with the given up axis and
 * strata's y-up frame (mesh import, strata_result_rotate_*): a quarter
 * turn is a permutation with one sign change, exact in float.  0 - v
 * rather than -v so that no -0 appears in the output. */
static inline void strata__to_y_up(float *x, float *y, float *z, strata_axis up)
{
    const float a = *x, b = *y, c = *z;
    if (up == STRATA_AXIS_Z) { /* about x: (x, y, z) -> (x, z, -y) */
        *y = c;
        *z = 0.0f - b;
    } else if (up == STRATA_AXIS_X) { /* about z: (x, y, z) -> (-y, x, z) */
        *x = 0.0f - b;
        *y = a;
    }
}

/* The inverse of strata__to_y_up. */
static inline void strata__from_y_up(float *x, float *y, float *z, strata_axis up)
{
    const float a = *x, b = *y, c = *z;
    if (up == STRATA_AXIS_Z) { /* (x', y', z') -> (x', -z', y') */
        *y = 0.0f - c;
        *z = b;
    } else if (up == STRATA_AXIS_X) { /* (x', y', z') -> (y', -x', z') */
        *x = b;
        *y = 0.0f - a;
    }
}

/* Recompute h[] from the positions and the mesh's geometry. */
STRATA_HIDDEN void strata__mesh_update_heights(strata_mesh *m);

/* Cancel flag / progress: returns STRATA_ERR_CANCELLED when the run must
 * stop.  Call from the calling thread only. */
STRATA_HIDDEN strata_status strata__progress(strata_ctx *ctx, const char *stage,
                                             double done);
static inline bool strata__cancelled(const strata_ctx *ctx)
{
    return atomic_load_explicit(&((strata_ctx *)ctx)->cancel,
                                memory_order_relaxed) != 0;
}

/* Read a regular file of at most max_bytes into a new buffer (one spare
 * byte allocated); STRATA_ERR_IO (errno kept) or STRATA_ERR_TOO_LARGE
 * before allocating. */
STRATA_HIDDEN strata_status strata__read_file(const strata_allocator *al, const char *path,
                                              uint64_t max_bytes, uint8_t **out,
                                              size_t *out_len);
/* Open path for reading if it is a regular file, without blocking on a
 * FIFO or a device: the descriptor with *sb filled, or -1 with errno set
 * (EISDIR for a directory, EINVAL for anything else not regular). */
struct stat;
STRATA_HIDDEN int strata__open_regular(const char *path, struct stat *sb);
/* read(2) until n bytes or the end of the file, the count in *got: 0, or
 * -1 with errno set on an error. */
STRATA_HIDDEN int strata__read_fd(int fd, void *buf, size_t n, size_t *got);

/* True when a curve maps every t to itself (points on the diagonal from
 * 0 to 1): displacement then skips it, leaving heights bit for bit. */
STRATA_HIDDEN bool strata__curve_is_identity(const strata_curve *c);

/* Build the edge table of a mesh whose triangles are set, by sorting the
 * vertex pairs.  Fills nedges, ev0, ev1, e0, e1, e2 (allocating ev0/ev1). */
STRATA_HIDDEN strata_status strata__mesh_build_edges(strata_mesh *m);

/* Thread placement (core/topology.c).  _init reads STRATA_BIND and the
 * OpenMP placement variables when a context is created; _free releases
 * the plan.  strata__bind_threads binds the workers of the calling
 * thread's OpenMP pool to the plan (once: a no-op while the pool is bound
 * for this plan); call it first in every entry point with parallel work. */
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
