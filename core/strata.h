/*
 * strata.h - terraced terrain and planets from height fields.
 *
 * One public header for libstrata.  Conventions used throughout:
 *
 *  - Every fallible call returns a strata_status; STRATA_OK is 0 and
 *    strata_status_str() gives a one-line English explanation.  On failure
 *    no output handle is created (*out is set to NULL) and no input is
 *    modified unless the function says otherwise.
 *  - The library never exits, never prints and never reads the environment
 *    except where documented (STRATA_SIMD, OMP_NUM_THREADS).
 *  - Handles are opaque and come in create/destroy pairs.  Destroy functions
 *    accept NULL.
 *  - Counts of vertices, triangles and edges are uint32_t because indices
 *    are uint32_t; functions that would produce more refuse with
 *    STRATA_ERR_OVERFLOW before allocating anything.
 *  - Vertex data is structure of arrays, each array 64-byte aligned.
 *  - Heights: a mesh is either FLAT (height is the y coordinate, "up" is +y)
 *    or RADIAL (a planet: height is the distance from the centre minus the
 *    base radius).
 */
#ifndef STRATA_H
#define STRATA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(STRATA_BUILDING) && defined(__GNUC__)
#define STRATA_API __attribute__((visibility("default")))
#else
#define STRATA_API
#endif

/* ------------------------------------------------------------------ */
/* Version                                                             */
/* ------------------------------------------------------------------ */

#define STRATA_VERSION_MAJOR 0
#define STRATA_VERSION_MINOR 1
#define STRATA_VERSION_PATCH 0
#define STRATA_VERSION "0.1.0"
/* Encoded as major * 10000 + minor * 100 + patch. */
#define STRATA_VERSION_NUMBER                                                  \
    (STRATA_VERSION_MAJOR * 10000 + STRATA_VERSION_MINOR * 100 +               \
     STRATA_VERSION_PATCH)

/* Version of the library actually linked, e.g. "0.1.0". */
STRATA_API const char *strata_version(void);

/* ------------------------------------------------------------------ */
/* Status codes                                                        */
/* ------------------------------------------------------------------ */

typedef enum strata_status {
    STRATA_OK = 0,
    STRATA_ERR_INVALID_ARG,   /* a NULL pointer, a value out of its range   */
    STRATA_ERR_NOMEM,         /* an allocation failed                       */
    STRATA_ERR_OVERFLOW,      /* counts would not fit uint32 / size_t       */
    STRATA_ERR_IO,            /* open/read/write/rename failed (see errno)  */
    STRATA_ERR_FORMAT,        /* a file is malformed or of unknown format   */
    STRATA_ERR_TRUNCATED,     /* a file ends before its header says         */
    STRATA_ERR_TOO_LARGE,     /* dimensions beyond the documented limits    */
    STRATA_ERR_UNSUPPORTED,   /* a valid file or option this build lacks    */
    STRATA_ERR_NOT_FINITE,    /* NaN or infinite coordinate or height       */
    STRATA_ERR_BAD_MESH,      /* index out of range, degenerate triangle    */
    STRATA_ERR_BAD_LEVELS,    /* terrace planes empty / not ascending / NaN */
    STRATA_ERR_CANCELLED,     /* the cancel flag or progress callback said so */
    STRATA_ERR_ISA,           /* a forced instruction set the CPU lacks     */
    STRATA_STATUS_COUNT_
} strata_status;

/* A constant one-line explanation; never NULL, also for unknown values. */
STRATA_API const char *strata_status_str(strata_status s);

/* ------------------------------------------------------------------ */
/* Context                                                             */
/* ------------------------------------------------------------------ */

typedef struct strata_ctx strata_ctx;

/* Allocator hook.  alloc must return memory aligned to `align` (a power of
 * two, at most 4096) or NULL; free receives exactly what alloc returned. */
typedef struct strata_allocator {
    void *(*alloc)(void *user, size_t size, size_t align);
    void (*free)(void *user, void *ptr);
    void *user;
} strata_allocator;

/* Progress callback: `stage` is a short constant name ("subdivide",
 * "displace", "slice", ...), `done` goes from 0 to 1 within a stage.
 * Return non-zero to cancel: the running call then returns
 * STRATA_ERR_CANCELLED at its next check.  Called from the calling thread
 * only, never from worker threads. */
typedef int (*strata_progress_fn)(void *user, const char *stage, double done);

typedef struct strata_ctx_options {
    int threads;                       /* 0: library default (one per core) */
    const strata_allocator *allocator; /* NULL: aligned malloc              */
} strata_ctx_options;

/* Create a context.  opt may be NULL for defaults.  A context may be used
 * by one thread at a time; distinct contexts are independent. */
STRATA_API strata_status strata_ctx_create(const strata_ctx_options *opt,
                                           strata_ctx **out);
STRATA_API void strata_ctx_destroy(strata_ctx *ctx);

/* Number of worker threads used by parallel stages (>= 1).  n = 0 restores
 * the default.  Without OpenMP the count is always 1. */
STRATA_API strata_status strata_ctx_set_threads(strata_ctx *ctx, int n);
STRATA_API int strata_ctx_threads(const strata_ctx *ctx);

STRATA_API void strata_ctx_set_progress(strata_ctx *ctx, strata_progress_fn fn,
                                        void *user);

/* Ask running and future calls on ctx to stop with STRATA_ERR_CANCELLED.
 * Safe to call from any thread or a signal handler.  Cleared by
 * strata_ctx_reset_cancel(). */
STRATA_API void strata_ctx_cancel(strata_ctx *ctx);
STRATA_API void strata_ctx_reset_cancel(strata_ctx *ctx);

/* ------------------------------------------------------------------ */
/* Meshes                                                              */
/* ------------------------------------------------------------------ */

typedef struct strata_mesh strata_mesh;

typedef enum strata_geometry {
    STRATA_FLAT = 0,  /* height = y, terraces are horizontal planes         */
    STRATA_RADIAL = 1 /* height = |p - centre| - radius, terraces spheres  */
} strata_geometry;

/* Read-only view of a mesh's arrays.  Pointers stay valid until the mesh is
 * modified or destroyed.
 *
 *  x, y, z, h    nverts floats each (h: the per-vertex height)
 *  a, b, c       ntris vertex ids each; triangles wind counter-clockwise
 *                seen from above (flat) or from outside (radial)
 *  e0, e1, e2    ntris edge ids each: edge of (a,b), (b,c), (c,a)
 *  ev0, ev1      nedges vertex ids each, ev0[e] < ev1[e]
 */
typedef struct strata_mesh_view {
    uint32_t nverts, ntris, nedges;
    strata_geometry geometry;
    float center[3]; /* RADIAL only */
    float radius;    /* RADIAL only: base radius */
    const float *x, *y, *z, *h;
    const uint32_t *a, *b, *c;
    const uint32_t *e0, *e1, *e2;
    const uint32_t *ev0, *ev1;
} strata_mesh_view;

STRATA_API void strata_mesh_get_view(const strata_mesh *m, strata_mesh_view *v);
STRATA_API uint32_t strata_mesh_vertex_count(const strata_mesh *m);
STRATA_API uint32_t strata_mesh_triangle_count(const strata_mesh *m);
STRATA_API uint32_t strata_mesh_edge_count(const strata_mesh *m);
STRATA_API void strata_mesh_destroy(strata_mesh *m);

/* Build a FLAT mesh from caller arrays: xyz holds 3*nverts floats
 * (interleaved), tris 3*ntris vertex ids.  The edge table is built by
 * sorting vertex pairs.  Fails with STRATA_ERR_BAD_MESH for an index >=
 * nverts or a triangle repeating a vertex, STRATA_ERR_NOT_FINITE for a
 * non-finite coordinate.  Heights are set from y. */
STRATA_API strata_status strata_mesh_create(strata_ctx *ctx, const float *xyz,
                                            uint32_t nverts,
                                            const uint32_t *tris,
                                            uint32_t ntris, strata_mesh **out);

/* Switch a mesh between FLAT (heights := y) and RADIAL about centre (NULL:
 * origin) with base radius r > 0 (heights := |p - centre| - r). */
STRATA_API strata_status strata_mesh_set_geometry(strata_mesh *m,
                                                  strata_geometry g,
                                                  const float *center, float r);

/* Copy a mesh. */
STRATA_API strata_status strata_mesh_clone(strata_ctx *ctx,
                                           const strata_mesh *m,
                                           strata_mesh **out);

/* ------------------------------------------------------------------ */
/* Shapes (all built with their edge tables, no sorting)               */
/* ------------------------------------------------------------------ */

/* Regular polygon in the xz plane (y = 0), centred at the origin, with
 * 3 <= sides <= 64 and circumradius r > 0.  3 sides: 3 vertices and 1
 * triangle; 4: 4 vertices and 2 triangles; >= 5: a centre vertex fanned to
 * the rim (sides + 1 vertices, sides triangles).  FLAT. */
STRATA_API strata_status strata_shape_polygon(strata_ctx *ctx, int sides,
                                              float r, strata_mesh **out);

/* Grid of nx x nz cells of size `cell` in the xz plane (y = 0), centred at
 * the origin, two triangles a cell: (nx+1)(nz+1) vertices, 2 nx nz
 * triangles, nx(nz+1) + (nx+1)nz + nx nz edges.  Vertex (i, j) has id
 * j*(nx+1)+i and x = (i - nx/2) cell, z = (j - nz/2) cell.  FLAT. */
STRATA_API strata_status strata_shape_grid(strata_ctx *ctx, uint32_t nx,
                                           uint32_t nz, float cell,
                                           strata_mesh **out);

/* Icosphere of the given level (0 = icosahedron) and radius r centred at the
 * origin: exactly 10*4^L+2 vertices, 20*4^L triangles, 30*4^L edges;
 * midpoints are projected onto the sphere.  RADIAL with base radius r.
 * Levels above 13 overflow uint32 and fail with STRATA_ERR_OVERFLOW. */
STRATA_API strata_status strata_shape_icosphere(strata_ctx *ctx, int level,
                                                float r, strata_mesh **out);

/* Flags for strata_mesh_subdivide. */
#define STRATA_SUBDIVIDE_PROJECT 1u /* RADIAL meshes: midpoints onto the
                                       sphere of the mesh's base radius */

/* 1->4 subdivision repeated `depth` times: every edge is split once at its
 * midpoint (shared by both neighbours), each triangle becomes four.
 * Result: T*4^D triangles, V + E*(4^D-1)/3 ... exactly as the recurrence
 * V' = V + E, E' = 2E + 3T, T' = 4T gives.  Heights of new vertices are the
 * midpoint heights (FLAT: y; RADIAL: recomputed from the position).
 * Refuses depths whose counts overflow uint32 before allocating. */
STRATA_API strata_status strata_mesh_subdivide(strata_ctx *ctx,
                                               const strata_mesh *m, int depth,
                                               unsigned flags,
                                               strata_mesh **out);

/* Predict the counts of strata_mesh_subdivide without building anything.
 * Returns STRATA_ERR_OVERFLOW when they do not fit uint32. */
STRATA_API strata_status strata_subdivide_counts(uint32_t nverts,
                                                 uint32_t ntris,
                                                 uint32_t nedges, int depth,
                                                 uint32_t *out_verts,
                                                 uint32_t *out_tris,
                                                 uint32_t *out_edges);

/* ------------------------------------------------------------------ */
/* Noise                                                               */
/* ------------------------------------------------------------------ */

typedef enum strata_noise_kind {
    STRATA_NOISE_SIMPLEX = 0,
    STRATA_NOISE_PERLIN = 1
} strata_noise_kind;

/* Single-octave noise.  Gradients come from an integer hash of the lattice
 * point and the seed (no permutation table), so any seed works and SIMD
 * kernels can match the scalar code bit for bit.  Output ranges:
 * all four functions return values in [-1, 1], reaching within float
 * rounding of +-1.  Perlin noise is 0 at integer points.  Coordinates are
 * clamped to [-2^24, 2^24] (NaN to -2^24); an unknown kind gives 0. */
STRATA_API float strata_noise2(strata_noise_kind kind, uint32_t seed, float x,
                               float y);
STRATA_API float strata_noise3(strata_noise_kind kind, uint32_t seed, float x,
                               float y, float z);

/* Fractal Brownian motion: sum over octaves o = 0..octaves-1 of
 *   amplitude * gain^o * noise(seed + o, frequency * lacunarity^o * p).
 * The result lies in [-strata_fbm_bound(), +strata_fbm_bound()].
 * In float, exactly: freq_0 = frequency, freq_o = freq_(o-1) * lacunarity,
 * amp_0 = amplitude, amp_o = amp_(o-1) * gain, and
 *   fbm = ((0 + amp_0 n_0) + amp_1 n_1) + ...,  n_o = noise(seed + o,
 *   x * freq_o, y * freq_o (, z * freq_o))  (seed + o wraps around). */
typedef struct strata_fbm {
    strata_noise_kind kind;
    uint32_t seed;
    int octaves;      /* 1..16 */
    float frequency;  /* > 0 */
    float lacunarity; /* > 0 */
    float gain;       /* >= 0 */
    float amplitude;  /* >= 0 */
} strata_fbm;

/* Defaults: simplex, seed 1, 6 octaves, frequency 1, lacunarity 2, gain
 * 0.5, amplitude 1. */
STRATA_API void strata_fbm_defaults(strata_fbm *f);
/* STRATA_OK or STRATA_ERR_INVALID_ARG naming nothing; see the field ranges.
 * Floats must be finite, and so must the last octave's frequency and the
 * bound (no overflow). */
STRATA_API strata_status strata_fbm_validate(const strata_fbm *f);
/* amplitude * sum of gain^o: the bound of |fbm|, summed in float as
 * amp_0 + amp_1 + ... in that order, which makes it exact.  0 for an
 * invalid f. */
STRATA_API float strata_fbm_bound(const strata_fbm *f);
/* 0 for a NULL or invalid f. */
STRATA_API float strata_fbm2(const strata_fbm *f, float x, float y);
STRATA_API float strata_fbm3(const strata_fbm *f, float x, float y, float z);

/* Batch forms: out[i] = fbm(x[i], y[i] (, z[i])) for i < n.  The same bytes
 * as the single-point functions, for any thread count.  NULL arrays with
 * n > 0 or an invalid f give STRATA_ERR_INVALID_ARG; the cancel flag
 * STRATA_ERR_CANCELLED (out is then partly written).  Progress stage
 * "noise". */
STRATA_API strata_status strata_fbm2_batch(strata_ctx *ctx, const strata_fbm *f,
                                           const float *x, const float *y,
                                           size_t n, float *out);
STRATA_API strata_status strata_fbm3_batch(strata_ctx *ctx, const strata_fbm *f,
                                           const float *x, const float *y,
                                           const float *z, size_t n,
                                           float *out);

/* ------------------------------------------------------------------ */
/* Height curves                                                       */
/* ------------------------------------------------------------------ */

typedef struct strata_curve strata_curve;

typedef enum strata_curve_kind {
    STRATA_CURVE_LINEAR = 0,  /* piecewise linear through the points      */
    STRATA_CURVE_MONOTONE = 1 /* monotone cubic (Fritsch-Carlson) Hermite  */
} strata_curve_kind;

/* A curve through n >= 2 control points (xs[i], ys[i]) in [0,1]x[0,1] with
 * strictly increasing xs.  Outside [xs[0], xs[n-1]] the curve is constant.
 * A monotone curve never overshoots its control points. */
STRATA_API strata_status strata_curve_create(strata_ctx *ctx,
                                             strata_curve_kind kind,
                                             const float *xs, const float *ys,
                                             size_t n, strata_curve **out);
STRATA_API void strata_curve_destroy(strata_curve *c);
/* The curve at t: exactly ys[i] at xs[i]; ys[0] for NaN; 0 for NULL. */
STRATA_API float strata_curve_eval(const strata_curve *c, float t);

/* ------------------------------------------------------------------ */
/* Displacement                                                        */
/* ------------------------------------------------------------------ */

/* Height of a point from noise and an optional curve (NULL: none):
 *   v = fbm(p)                                 (in [-B, B], B = fbm bound)
 *   with a curve: v = B * (2 * curve((v / B + 1) / 2) - 1)  (0 if B == 0)
 * A curve equal to the identity (all control points on the diagonal, the
 * first at 0 and the last at 1, either kind) is skipped: v is unchanged
 * bit for bit.
 * Both functions return STRATA_ERR_INVALID_ARG for a NULL ctx, mesh or
 * fbm, an invalid fbm or the wrong geometry, and STRATA_ERR_CANCELLED when
 * cancelled; on any failure the mesh is unchanged.  Progress stages
 * "displace" and "noise".  The result does not depend on the thread
 * count. */

/* FLAT meshes only: y += v(x, z) (2D noise), then h = y. */
STRATA_API strata_status strata_displace_flat(strata_ctx *ctx, strata_mesh *m,
                                              const strata_fbm *f,
                                              const strata_curve *curve);
/* RADIAL meshes only: each vertex moves along its direction from the
 * centre to radius R + v(d * R) where d is that unit direction and R the
 * base radius (3D noise sampled on the base sphere); h = v.  Requires
 * B < R (checked first, else STRATA_ERR_INVALID_ARG) so every radius stays
 * positive; a vertex at the centre gives STRATA_ERR_BAD_MESH. */
STRATA_API strata_status strata_displace_radial(strata_ctx *ctx,
                                                strata_mesh *m,
                                                const strata_fbm *f,
                                                const strata_curve *curve);

/* ------------------------------------------------------------------ */
/* Heightmaps                                                          */
/* ------------------------------------------------------------------ */

typedef struct strata_heightmap strata_heightmap;

/* Limits: width and height each in [2, 32768], width*height <= 2^28. */
#define STRATA_HEIGHTMAP_MAX_SIDE 32768u
#define STRATA_HEIGHTMAP_MAX_PIXELS (1u << 28)

/* Decode a heightmap from memory or a file.  Formats, detected from the
 * bytes:
 *  - binary PGM (P5): maxval 1..65535, one byte a sample below 256, else
 *    two big-endian; '#' comments allowed between header fields; exactly
 *    one whitespace byte after maxval; samples above maxval read as maxval.
 *  - PFM: Pf grey or PF colour (the first channel is used).  A negative
 *    scale means little-endian samples, a positive one big-endian; a zero
 *    or non-finite scale is malformed and its magnitude is not applied.
 *    Rows are stored bottom to top.  Every sample must be finite, else
 *    STRATA_ERR_NOT_FINITE.
 *  - PNG, when built with libspng or libpng (else STRATA_ERR_UNSUPPORTED):
 *    greyscale of 1, 2, 4, 8 or 16 bits, with or without alpha (ignored),
 *    interlaced or not.  Colour and palette images give
 *    STRATA_ERR_UNSUPPORTED: their channels often encode height in ways a
 *    luminance would destroy.  Gamma and other ancillary chunks are ignored.
 * Samples are normalised: PGM and PNG to [0,1] by maxval (2^depth - 1 for
 * PNG); PFM values are kept as they are.  Row 0 of the result is the top
 * row of the image; bytes after the image are ignored.
 * Errors, all found before the pixels are allocated: data ending early
 * (any proper prefix of a valid file, also an empty one, or a PNG too short
 * to inflate to its size) STRATA_ERR_TRUNCATED; an unknown magic or a
 * malformed header (a non-numeric, negative or over-long number, maxval 0
 * or > 65535, a bad chunk) STRATA_ERR_FORMAT; a width or height outside
 * [2, 32768], more than 2^28 pixels, or a PNG chunk other than IDAT over
 * 64 MiB STRATA_ERR_TOO_LARGE.
 *
 * strata_heightmap_load reads a whole regular file, then decodes it:
 * STRATA_ERR_IO (errno set) when it cannot be opened or read or is not a
 * regular file, STRATA_ERR_TOO_LARGE when it is bigger than any valid
 * heightmap (12 * 2^28 + 4096 bytes) without reading it. */
STRATA_API strata_status strata_heightmap_decode(strata_ctx *ctx,
                                                 const void *data, size_t len,
                                                 strata_heightmap **out);
STRATA_API strata_status strata_heightmap_load(strata_ctx *ctx,
                                               const char *path,
                                               strata_heightmap **out);
STRATA_API void strata_heightmap_destroy(strata_heightmap *hm);
STRATA_API uint32_t strata_heightmap_width(const strata_heightmap *hm);
STRATA_API uint32_t strata_heightmap_height(const strata_heightmap *hm);
/* width*height samples, row-major, row 0 at the top (smallest z). */
STRATA_API const float *strata_heightmap_data(const strata_heightmap *hm);

/* A FLAT grid mesh with one vertex per sample: (w-1) x (h-1) cells of size
 * cell_size (laid out as strata_shape_grid: sample (i, j) is vertex
 * j*w + i), y = sample * height_scale.  cell_size must be finite and > 0
 * and height_scale finite (else STRATA_ERR_INVALID_ARG); a product that
 * overflows gives STRATA_ERR_NOT_FINITE. */
STRATA_API strata_status strata_mesh_from_heightmap(strata_ctx *ctx,
                                                    const strata_heightmap *hm,
                                                    float cell_size,
                                                    float height_scale,
                                                    strata_mesh **out);

/* ------------------------------------------------------------------ */
/* Terrace levels                                                      */
/* ------------------------------------------------------------------ */

/* Terrace k is the band L[k] <= h < L[k+1] flattened to height L[k]; all
 * of h < L[0] belongs to terrace 0 and all of h >= L[n-1] to terrace n-1,
 * so every point of the input lies in exactly one terrace.  Levels must be
 * finite and strictly ascending, 1 <= n <= STRATA_MAX_LEVELS. */
#define STRATA_MAX_LEVELS 65535u

/* STRATA_OK or STRATA_ERR_BAD_LEVELS. */
STRATA_API strata_status strata_levels_validate(const float *levels,
                                                uint32_t n);

/* Lowest and highest vertex height of a mesh (STRATA_ERR_NOT_FINITE if a
 * height is NaN or infinite, STRATA_ERR_INVALID_ARG for an empty mesh). */
STRATA_API strata_status strata_mesh_height_range(const strata_mesh *m,
                                                  float *hmin, float *hmax);

/* n planes spread evenly from the mesh's lowest height: L[k] = hmin + k *
 * (hmax - hmin) / n, so terrace 0 starts at the lowest point and the top
 * terrace holds the highest.  A mesh of constant height gets spacing 1.
 * `curve` (NULL: linear) redistributes them: L[k] = hmin + curve(k/n) *
 * (hmax - hmin).  Writes n floats to levels.  STRATA_ERR_BAD_LEVELS when
 * they would not be strictly ascending (too many for the float precision
 * of the range, or a curve that is not increasing). */
STRATA_API strata_status strata_levels_uniform(const strata_mesh *m,
                                               uint32_t n,
                                               const strata_curve *curve,
                                               float *levels);

/* ------------------------------------------------------------------ */
/* Slicing                                                             */
/* ------------------------------------------------------------------ */

typedef struct strata_result strata_result;

/* Where the wall between terrace k-1 and terrace k goes. */
typedef enum strata_walls {
    STRATA_WALLS_UPPER = 0,   /* with terrace k (default)                */
    STRATA_WALLS_LOWER = 1,   /* with terrace k-1                        */
    STRATA_WALLS_SEPARATE = 2 /* in a range of their own after all roofs,
                                 still listed per upper terrace k        */
} strata_walls;

typedef struct strata_slice_options {
    const float *levels; /* nlevels ascending plane heights */
    uint32_t nlevels;
    strata_walls walls;
    int normals; /* non-zero: per-vertex normals; roofs keep shared vertices
                    (normal up, or radial on planets), each wall quad gets
                    four vertices of its own (hard edges) */
} strata_slice_options;

/* Cut every triangle of m into height bands (see DESIGN.md, "bands, not
 * stacks").  The result is watertight by vertex id: every interior edge is
 * used by exactly two triangles in opposite directions (without normals),
 * roofs of terrace k lie exactly at height L[k] (FLAT: y == L[k]; RADIAL:
 * at radius R + L[k]), walls are vertical (radial), triangles keep the
 * input's winding, and the bytes depend only on the mesh and options,
 * never on the thread count.  Heights exactly on a plane belong to the
 * upper terrace.  Errors: STRATA_ERR_BAD_LEVELS, STRATA_ERR_NOT_FINITE
 * (a NaN height), STRATA_ERR_OVERFLOW (more than 2^32-1 output vertices),
 * STRATA_ERR_NOMEM, STRATA_ERR_CANCELLED. */
STRATA_API strata_status strata_slice(strata_ctx *ctx, const strata_mesh *m,
                                      const strata_slice_options *opt,
                                      strata_result **out);

/* The mesh itself as a result with one terrace (level = lowest height),
 * positions unchanged: for writing an unsliced mesh with the same writers. */
STRATA_API strata_status strata_result_from_mesh(strata_ctx *ctx,
                                                 const strata_mesh *m,
                                                 int normals,
                                                 strata_result **out);

STRATA_API void strata_result_destroy(strata_result *r);

/* Per-terrace ranges of the index array, in indices (3 per triangle).
 * Layout: UPPER/LOWER: [roofs 0][walls 0][roofs 1][walls 1]...;
 * SEPARATE: [roofs 0][roofs 1]...[walls 0][walls 1]... */
typedef struct strata_terrace {
    float level;                 /* L[k] */
    uint64_t roof_first, roof_count;
    uint64_t wall_first, wall_count;
    double roof_area;            /* true area of the roof triangles */
    double wall_area;
} strata_terrace;

typedef struct strata_result_view {
    uint32_t nverts;
    const float *x, *y, *z;      /* nverts each */
    const float *nx, *ny, *nz;   /* nverts each, or NULL without normals */
    uint64_t nindices;
    const uint32_t *indices;     /* nindices, counter-clockwise triangles */
    uint32_t nterraces;
    const strata_terrace *terraces;
    strata_walls walls;
    strata_geometry geometry;
    float center[3];
    float radius;
} strata_result_view;

STRATA_API void strata_result_get_view(const strata_result *r,
                                       strata_result_view *v);

/* ------------------------------------------------------------------ */
/* Writing results                                                     */
/* ------------------------------------------------------------------ */

typedef enum strata_format {
    STRATA_FORMAT_AUTO = 0, /* from the file name's extension */
    STRATA_FORMAT_PLY = 1,  /* binary little-endian PLY */
    STRATA_FORMAT_OBJ = 2   /* Wavefront OBJ + MTL beside it */
} strata_format;

/* Write a result.  PLY: `float x, y, z` (+ `float nx, ny, nz` with normals)
 * per vertex; per face `list uchar uint vertex_indices`, `int terrace`,
 * `uchar wall`.  OBJ: one group and one material per terrace (`g
 * terrace_3`, `usemtl terrace_3`), walls in their group `walls_3` with
 * STRATA_WALLS_SEPARATE, and FILE.mtl (the .obj suffix replaced) with one
 * colour per terrace.  Files are written to a temporary name in the same
 * directory and renamed when complete: a failure never leaves a partial
 * file.  STRATA_ERR_FORMAT for an unknown extension with
 * STRATA_FORMAT_AUTO, STRATA_ERR_IO when writing fails (errno is kept). */
STRATA_API strata_status strata_result_write(const strata_result *r,
                                             const char *path,
                                             strata_format format);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_H */
