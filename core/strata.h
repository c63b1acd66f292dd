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
 *  - Options: every options struct (strata_fbm, strata_X_options) has a
 *    strata_X_defaults() function.  Fill the struct with *_defaults(),
 *    then set fields; NULL means defaults where every field is optional.
 *    New fields are added at the end and get their default from
 *    *_defaults(), so code written this way keeps its meaning.
 *  - Inputs and outputs are separate: options structs are read only
 *    (const); what a call reports comes back through its own arguments.
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
    STRATA_ERR_CONFLICT,      /* an existing output belongs to another job  */
    STRATA_STATUS_COUNT_
} strata_status;

/* A constant one-line explanation; never NULL, also for unknown values. */
STRATA_API const char *strata_status_str(strata_status s);

/* ------------------------------------------------------------------ */
/* Context                                                             */
/* ------------------------------------------------------------------ */

typedef struct strata_ctx strata_ctx;

/* Allocator hook.  alloc must return memory aligned to `align` (a power of
 * two, at most 4096) or NULL; free receives exactly what alloc returned.
 * Both may be called from several worker threads at once (the slicer's
 * per-thread arenas take their blocks from the threads that fill them), so
 * they must be thread-safe. */
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

/* Defaults: threads 0, allocator NULL. */
STRATA_API void strata_ctx_defaults(strata_ctx_options *opt);

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

/* Durability of output files.  Every file the library writes goes to a
 * temporary name beside its destination (NAME.tmpXXXXXX, the name cut so
 * that it fits 255 bytes), locked (flock) while its writer lives, and is
 * renamed into place only when complete.  With sync on (the default) the
 * file is fsync'ed before the rename and its directory after, so a power
 * loss leaves the old file or the new one, never an empty or partial one;
 * off, the rename alone still keeps other processes from seeing a partial
 * file but the data reaches the disk when the kernel decides (scratch
 * files; faster when writing many small files).  Worker contexts follow
 * ctx. */
STRATA_API void strata_ctx_set_sync(strata_ctx *ctx, int on);
STRATA_API int strata_ctx_sync(const strata_ctx *ctx);

/* Temporary files.  strata_output_clean removes the temporaries a killed
 * writer of path left (its own temporary names, not locked by a live
 * writer, whichever process: those of a writer still running are kept),
 * their count in *removed (may be NULL); STRATA_ERR_IO (errno set) when
 * the directory cannot be read or a file not removed.
 * strata_remove_temporaries removes every temporary file this process's
 * writers have open at the moment (the first 64; the others are left for
 * strata_output_clean): async-signal-safe, for a signal handler that is
 * about to end the process. */
STRATA_API strata_status strata_output_clean(const char *path, unsigned long *removed);
STRATA_API void strata_remove_temporaries(void);

/* Memory before a big job.  strata_whole_memory_estimate: the peak bytes
 * of making a surface of `triangles` input triangles whole in memory
 * (build, noise, slice into up to 32 planes, write): 71 bytes a triangle,
 * measured on a level-11 planet with 32 terraces (5.97 GB for 84M
 * triangles); more planes cut more triangles and need more.
 * strata_memory_limit: what a job of this process may use: the physical
 * memory, or the address-space limit (RLIMIT_AS, `ulimit -v`) when that is
 * lower; 0 when unknown.  A job whose estimate exceeds 90% of the limit
 * will not fit: make it as a world (strata_world_*), in bounded memory. */
STRATA_API uint64_t strata_whole_memory_estimate(uint64_t triangles);
STRATA_API uint64_t strata_memory_limit(void);

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
 * regular file (a directory: EISDIR; a FIFO or a device: EINVAL, at once,
 * without waiting for data), STRATA_ERR_TOO_LARGE when it is bigger than any valid
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
/* width*height samples, row-major, row 0 at the top (smallest z); NULL
 * for a heightmap opened by strata_heightmap_open whose samples stay in
 * its file (read them with strata_heightmap_read). */
STRATA_API const float *strata_heightmap_data(const strata_heightmap *hm);

/* Heightmaps larger than memory.  strata_heightmap_open opens a PGM or PFM
 * file and keeps its samples in the file: the header is checked (and the
 * file's size against it) but no sample is read, so opening is instant
 * and costs no memory whatever the size.  Sides go up to
 * STRATA_HEIGHTMAP_OPEN_MAX_SIDE with no limit on the pixel count (the
 * terrain worlds read such a file tile by tile, see strata_world_options).
 * The file must stay as it is while the heightmap is open.  A PNG
 * within the limits of strata_heightmap_decode is decoded whole, as by
 * strata_heightmap_load; a bigger one as strata_png_support says.
 * Errors as strata_heightmap_load, the sizes of an opened file excepted;
 * a PGM or PFM header of more than 64 KiB is STRATA_ERR_FORMAT, and for a
 * PNG decoded to a temporary file STRATA_ERR_IO (errno set) when that
 * file cannot be made or written.
 *
 * strata_heightmap_read copies samples (x + i, y + j), i < w, j < h, of
 * any heightmap to out[j * w + i], normalised as decoding does;
 * STRATA_ERR_INVALID_ARG for a window outside the heightmap, and for an
 * opened file STRATA_ERR_IO (errno set) or STRATA_ERR_TRUNCATED when the
 * file cannot be read or has shrunk, STRATA_ERR_NOT_FINITE for a PFM
 * sample that is not finite (found only when read), STRATA_ERR_NOMEM.
 * Safe to call from several threads at once on the same heightmap.
 *
 * strata_heightmap_range gives the smallest and largest sample, reading
 * an opened file once in strips of about 4 MiB (errors as
 * strata_heightmap_read). */
#define STRATA_HEIGHTMAP_OPEN_MAX_SIDE (1u << 24)

/* What this build does with PNG: STRATA_PNG_DECODE (heightmaps decoded
 * whole, previews written: libspng or libpng), STRATA_PNG_OPEN (a PNG
 * heightmap beyond the limits of decoding whole is opened by
 * strata_heightmap_open: decoded once, row by row, into an unnamed file
 * under $TMPDIR, else /var/tmp, holding its grey samples (1 or 2 bytes
 * each), then read in windows; not for interlaced images, which give
 * STRATA_ERR_UNSUPPORTED; libspng only).  0 without a PNG library. */
#define STRATA_PNG_DECODE 1u
#define STRATA_PNG_OPEN 2u
STRATA_API unsigned strata_png_support(void);
STRATA_API strata_status strata_heightmap_open(strata_ctx *ctx, const char *path,
                                               strata_heightmap **out);
STRATA_API strata_status strata_heightmap_read(const strata_heightmap *hm, uint32_t x,
                                               uint32_t y, uint32_t w, uint32_t h,
                                               float *out);
STRATA_API strata_status strata_heightmap_range(const strata_heightmap *hm, float *lo,
                                                float *hi);

/* Rasters through GDAL.  A build with GDAL (configure --with-gdal,
 * strata_gdal_support() == 1) decodes and loads any raster GDAL reads
 * (GeoTIFF, ASCII grids, ENVI, HGT, ...) whose bytes are not PGM, PFM or
 * PNG: band 1 as floats, the band's scale and offset applied, samples
 * kept in the raster's own units (not normalised); strata_heightmap_load
 * lets GDAL open the file itself, so side files (world files, .aux.xml)
 * count.  Nodata samples (the band's nodata value, or NaN) become NaN:
 * strata_mesh_from_heightmap leaves out every grid triangle with such a
 * corner (and the vertices no triangle keeps, the others in order), and
 * heightmap ranges skip them; templates and terrain worlds refuse them
 * (STRATA_ERR_UNSUPPORTED).  Errors: STRATA_ERR_FORMAT for what GDAL
 * cannot read (a file cut short, a vector file, a raster with no band or
 * only nodata: then errno is ENODATA), STRATA_ERR_TOO_LARGE beyond the
 * heightmap limits,
 * STRATA_ERR_TRUNCATED for more samples than the file's bytes could
 * encode (8256 a byte, the bound of a PNG's deflate),
 * STRATA_ERR_UNSUPPORTED for complex samples, STRATA_ERR_NOT_FINITE for
 * an infinite sample.  GDAL's own messages are silenced.  Without GDAL
 * such input is STRATA_ERR_FORMAT, as before. */
STRATA_API unsigned strata_gdal_support(void);

/* What a heightmap says beyond its samples. */
typedef struct strata_heightmap_info {
    int source_units;       /* 1: samples as the file holds them (PFM, GDAL
                               rasters); 0: normalised to [0,1] (PGM, PNG) */
    int georeferenced;      /* 1: geotransform is the raster's */
    double geotransform[6]; /* GDAL's affine map from (column, row) of a
                               pixel corner to map coordinates: X = g0 +
                               col g1 + row g2, Y = g3 + col g4 + row g5;
                               a pixel centre is at (col + 0.5, row + 0.5) */
    int projected;          /* 1: the CRS is projected (linear units, so
                               |g1| is a cell size); 0: geographic or none */
    const char *crs_wkt;    /* the CRS as WKT, NULL when none; valid while
                               the heightmap lives */
    uint64_t nodata;        /* nodata samples (NaN in the data) */
} strata_heightmap_info;

/* Fill *out (STRATA_ERR_INVALID_ARG for NULLs). */
STRATA_API strata_status strata_heightmap_get_info(const strata_heightmap *hm,
                                                   strata_heightmap_info *out);

/* Where a raster georeferenced in a projected CRS lies on the Earth
 * (built with GDAL): at its centre, pixel coordinates (w/2, h/2), where
 * strata_mesh_from_heightmap puts x = z = 0, the WGS84 longitude and
 * latitude (degrees, reprojected by GDAL, datum shifts included), the
 * heading of its grid north there (the azimuth in degrees east of true
 * north of a step up the image, a mesh's -z: the projection's meridian
 * convergence), and metres: the ground length on the ellipsoid of one
 * pixel's step there, the mean of a column's and a row's (the pixel size
 * times the projection's scale factor).  strata_geo_frame(lon, lat, 0,
 * metres / cell_size, heading) then places a mesh of that cell size, a
 * world's tileset (strata_world_options.place).  STRATA_ERR_UNSUPPORTED
 * for a raster without a geotransform or CRS, in a geographic CRS, with
 * a rotated geotransform or mirrored (columns not east of rows' north),
 * or without GDAL; STRATA_ERR_FORMAT when GDAL cannot take its CRS to
 * longitude and latitude; STRATA_ERR_INVALID_ARG for NULLs. */
STRATA_API strata_status strata_heightmap_place(const strata_heightmap *hm, double *lon,
                                                double *lat, double *heading, double *metres);

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

/* A FLAT grid mesh from a *template* heightmap: every cell between four
 * samples becomes patch_cells x patch_cells grid cells of size cell_size,
 * so the grid has (w-1) patch_cells x (h-1) patch_cells cells (laid out as
 * strata_shape_grid).  Grid vertex (i, j) lies in template cell
 * (ci, cj) = (i / patch_cells, j / patch_cells) (the last cell for the far
 * borders) at u = (i - ci patch_cells) / patch_cells, v likewise, and its
 * height is the cell's linear interpolation over the triangle holding it,
 * the cell split along the diagonal from sample (ci, cj) to (ci+1, cj+1)
 * as the grid's triangles are:
 *     v >= u:  (1 - v) s00 + (v - u) s01 + u s11
 *     v <  u:  (1 - u) s00 + (u - v) s10 + v s11
 * (s01 the sample below s00 in the image, s10 the one to its right), in
 * exactly that float arithmetic, times height_scale.  Add detail with
 * strata_displace_flat.  Errors as strata_mesh_from_heightmap, and
 * STRATA_ERR_INVALID_ARG for patch_cells 0, STRATA_ERR_OVERFLOW when the
 * grid's counts do not fit uint32. */
STRATA_API strata_status strata_mesh_from_template(strata_ctx *ctx,
                                                   const strata_heightmap *hm,
                                                   uint32_t patch_cells,
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

/* The planes strata_levels_uniform gives a mesh whose heights span
 * [hmin, hmax], from that range alone (for heights not all in memory at
 * once, as in worlds).  STRATA_ERR_BAD_LEVELS also for a non-finite or
 * reversed range. */
STRATA_API strata_status strata_levels_range(float hmin, float hmax, uint32_t n,
                                             const strata_curve *curve, float *levels);

/* How a job chooses its planes, in one type that every command, the
 * whole-mesh pipeline and worlds turn into heights the same way
 * (strata_terraces_heights): explicit heights, or `count` planes spread
 * over the surface's height range as strata_levels_range spreads them
 * (evenly, or along `curve`), and with `sea` a plane at exactly
 * sea_level added in its place when they lack one (alone when there are
 * no others: count 0 and no levels). */
typedef struct strata_terraces {
    const float *levels; /* nlevels ascending heights; NULL: use count */
    uint32_t nlevels;
    uint32_t count;             /* planes over the height range; 0: none */
    const strata_curve *curve;  /* NULL: evenly */
    int sea;                    /* non-zero: a plane at sea_level */
    float sea_level;
} strata_terraces;

/* Defaults: no levels, count 0, no curve, no sea level (no planes). */
STRATA_API void strata_terraces_defaults(strata_terraces *t);

/* How many planes strata_terraces_heights may write at most (the room
 * `out` needs): nlevels or count, plus one with a sea level. */
STRATA_API uint32_t strata_terraces_bound(const strata_terraces *t);

/* The plane heights of t for a surface whose heights span [hmin, hmax]
 * (read only when count planes are spread over it): *n of them into
 * out[0 .. strata_terraces_bound(t)), ascending; *n is 0 when t asks for
 * no planes (an unsliced surface).  Errors: STRATA_ERR_BAD_LEVELS (the
 * explicit levels invalid, the count planes not strictly ascending in
 * float, more than STRATA_MAX_LEVELS with the sea level, a non-finite sea
 * level), STRATA_ERR_INVALID_ARG (NULL arguments). */
STRATA_API strata_status strata_terraces_heights(const strata_terraces *t, float hmin,
                                                 float hmax, float *out, uint32_t *n);

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

/* Options of strata_slice.  Fill with strata_slice_defaults(), then set
 * the levels (required) and what else you need. */
typedef struct strata_slice_options {
    const float *levels; /* nlevels ascending plane heights */
    uint32_t nlevels;
    strata_walls walls;
    int normals; /* non-zero: per-vertex normals; roofs keep shared vertices
                    (normal up, or radial on planets), each wall quad gets
                    four vertices of its own (hard edges) */
    int areas;   /* non-zero: fill each terrace's roof_area and wall_area.
                    That reads the corners of every output triangle, in
                    no cache-friendly order: about a third of the slicer's
                    time on a level-10 planet.  Zero: they stay 0. */
} strata_slice_options;

/* Defaults: no levels (set them), STRATA_WALLS_UPPER, no normals, no
 * areas. */
STRATA_API void strata_slice_defaults(strata_slice_options *opt);

/* Cut every triangle of m into height bands (see docs/DESIGN.md, "bands, not
 * stacks").  The result is watertight by vertex id: every interior edge is
 * used by exactly two triangles in opposite directions (without normals),
 * roofs of terrace k lie exactly at height L[k] (FLAT: y == L[k]; RADIAL:
 * at radius R + L[k]), walls are vertical (radial), triangles keep the
 * input's winding, and the bytes depend only on the mesh and options,
 * never on the thread count or the instruction set.  Heights exactly on a
 * plane belong to the upper terrace; a vertex within rounding of a plane
 * (one that a cut of one of its edges would land on, so that a triangle
 * would have no area) is taken as lying on it, so no output triangle has
 * zero area.  Working memory besides the result: 3 bytes a vertex, 4 an
 * edge, 2 a triangle (and some 20 bytes a triangle touching a vertex
 * that lies on a plane), 16 bytes a triangle cut across
 * terraces in the per-thread arenas (see strata_ctx_arena_stats), and
 * per-chunk tables of at most 2M entries.  Progress stage "slice" reports
 * each of these
 * milestones once, in order, for profiling: 0 (start), 0.15 (vertex
 * bands, vertices on planes), 0.3 (crossings numbered), 0.5 (pass A:
 * triangles counted, those across terraces cut into the arenas), 0.6
 * (output vertices placed), 0.85 (pass B: triangles written), 1 (normals,
 * done); about 20 reports within each pass between them.
 * Errors: STRATA_ERR_BAD_LEVELS, STRATA_ERR_NOT_FINITE
 * (a NaN height), STRATA_ERR_OVERFLOW (more than 2^32-1 output vertices),
 * STRATA_ERR_NOMEM, STRATA_ERR_CANCELLED. */
STRATA_API strata_status strata_slice(strata_ctx *ctx, const strata_mesh *m,
                                      const strata_slice_options *opt,
                                      strata_result **out);

/* An empty result (no vertices, indices or terraces) for
 * strata_slice_into to fill, and fill again.  Its arrays will come from
 * ctx's allocator, also when another context slices into it.  Free it
 * with strata_result_destroy.  Errors: STRATA_ERR_INVALID_ARG (NULL ctx
 * or out), STRATA_ERR_NOMEM. */
STRATA_API strata_status strata_result_create(strata_ctx *ctx, strata_result **out);

/* strata_slice into an existing result r (from strata_result_create or
 * any strata_slice): r then holds exactly what strata_slice would return,
 * byte for byte, and its previous content is gone.  The arrays r already
 * has are reused when they are big enough; one that is too small is
 * replaced by one of the size needed (1/8 more if it had been grown
 * before, so that a run of similar slices settles quickly).  r never
 * shrinks (destroy it to give the memory back), except that its normal
 * arrays are freed by a slice without normals.  A thread that slices
 * chunk after chunk into one result thus allocates a few times and
 * writes warm memory.  The slicer's own working memory (about as much
 * again as the output on a terrain, the per-edge and per-vertex tables
 * and the cut triangles' arenas) is kept with r too, from r's allocator,
 * so the next slice into r touches no fresh page; strata_result_trim
 * gives it back.  One slice into a given result at a time.
 * Errors as strata_slice, and STRATA_ERR_INVALID_ARG for a NULL r; on any
 * error r is left empty (no vertices, indices or terraces), keeps its
 * arrays and can be sliced into again. */
STRATA_API strata_status strata_slice_into(strata_ctx *ctx, const strata_mesh *m,
                                           const strata_slice_options *opt,
                                           strata_result *r);

/* Free the slicer's working memory that strata_slice_into keeps with r
 * (its output stays).  NULL is allowed. */
STRATA_API void strata_result_trim(strata_result *r);

/* Working memory of the last strata_slice on a context.  The slicer cuts
 * the triangles that span several terraces into per-thread arenas (one per
 * worker thread, 64-byte-aligned pieces of big blocks, bump allocated,
 * first touched by their thread) and then copies them, chunk by chunk in
 * input order, into the result; triangles inside one terrace go straight
 * to the result.  bytes_used is what the pieces asked for, bytes_wasted
 * what alignment and the unused ends of full blocks cost, bytes_reserved
 * all blocks (used + wasted + the free end of each arena's last block).
 * All zero before the first slice or after a slice that failed. */
typedef struct strata_arena_stats {
    uint32_t arenas; /* worker threads that had an arena */
    uint64_t blocks;
    uint64_t bytes_reserved, bytes_used, bytes_wasted;
} strata_arena_stats;

STRATA_API void strata_ctx_arena_stats(const strata_ctx *ctx, strata_arena_stats *out);

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
    double roof_area;            /* true area of the roof triangles (0
                                    unless strata_slice_options.areas) */
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
    /* strata_result_add_water, strata_result_add_shoreline: their index
     * ranges (after every terrace's; count 0: none), and the shoreline's
     * vertices [uv_first, uv_first + nuv) with their texture coordinates
     * (uv: 2 floats a vertex, U then V; NULL without a shoreline) */
    uint64_t water_first, water_count;
    uint64_t shore_first, shore_count;
    uint32_t uv_first, nuv;
    const float *uv;
    /* strata_result_bake_ao: the ambient occlusion of each vertex, one
     * byte a vertex (ao[i] / 255 in [0, 1]: 0 fully occluded, 255 open);
     * NULL when none is baked for the vertices as they are */
    const uint8_t *ao;
    /* strata_result_apply_colours: 3 sRGB bytes a vertex; NULL when the
     * vertices as they are have none */
    const uint8_t *rgb;
} strata_result_view;

STRATA_API void strata_result_get_view(const strata_result *r,
                                       strata_result_view *v);

/* ------------------------------------------------------------------ */
/* Water                                                               */
/* ------------------------------------------------------------------ */

/* The largest sphere_level strata_result_add_water takes. */
#define STRATA_WATER_SPHERE_LEVEL_MAX 8

/* Add a water surface at height `level` to r, as triangles of its own
 * after everything else (the view's water_first, water_count: outside
 * every terrace's range, so loops, roof simplification, props and the
 * index optimiser leave it alone; writers give it a material of its own:
 * glTF "water", translucent; OBJ group and material "water"; PLY faces
 * with terrace -2).  Its vertices are appended to r's (with normals when
 * r has them: up, or radial), owned by r like the rest; nothing else of r
 * changes.  FLAT: the convex polygon `outline` (npoints x, z pairs, at
 * least 3, in either turning direction, no three consecutive points on a
 * line) at y = level, fanned from its first point into npoints - 2
 * triangles facing up; outline NULL: the rectangle the vertices of r span
 * in x and z (2 triangles).  RADIAL: the sphere of radius radius + level
 * about r's centre, an icosphere of sphere_level (0 to
 * STRATA_WATER_SPHERE_LEVEL_MAX: 10 x 4^L + 2 vertices, 20 x 4^L
 * triangles, facing outwards; its vertices at that radius, as
 * strata_shape_icosphere places them, its faces' middles up to about
 * 0.2 x radius / 4^L below it: 5e-5 x radius at level 6); outline is
 * ignored.
 * Add it last, after strata_result_simplify_roofs and
 * strata_result_solidify (which expect a result as the slicer made it
 * and refuse one with water or a shoreline: STRATA_ERR_INVALID_ARG);
 * strata_result_fit_size and the rotations move it with the rest; the
 * preview draws it translucent (see "Preview images"; canvases do not).
 * Errors: STRATA_ERR_INVALID_ARG (NULL ctx or r, water already added, an
 * outline that is not convex or has fewer than 3 points, an empty r with
 * no outline, a radius + level that is not > 0, sphere_level out of
 * range, a level that is not finite), STRATA_ERR_OVERFLOW (more than
 * 2^32-1 vertices), STRATA_ERR_NOMEM (r unchanged). */
STRATA_API strata_status strata_result_add_water(strata_ctx *ctx, strata_result *r,
                                                 float level, const float *outline,
                                                 uint32_t npoints, uint32_t sphere_level);

/* ------------------------------------------------------------------ */
/* Ambient occlusion                                                   */
/* ------------------------------------------------------------------ */

/* Horizon samples of strata_result_bake_ao: directions per vertex and
 * points per direction. */
#define STRATA_AO_DIRECTIONS 8
#define STRATA_AO_STEPS 8
/* The radius of the strata program's plain --ao (and of a pipeline's
 * ao_radius 0): this many times the mean spacing of the planes. */
#define STRATA_AO_RADIUS_PLANES 2.0

/* Bake the ambient occlusion of r's surface into its vertices (the
 * view's ao: a byte a vertex, 255 open, 0 shut): how much of the sky
 * above each vertex (planets: away from the centre) the terraced surface
 * itself hides within `radius`, so the feet of walls and the inner
 * corners of terraces come out darker and open roofs light.
 *
 * Method (docs/DESIGN.md, "Ambient occlusion"): the surface is a height
 * field (FLAT: y over x and z; RADIAL: distance from r's centre over the
 * directions), rasterised once into a grid of its highest point per cell
 * at the cells' centres (FLAT: square cells of radius / STRATA_AO_STEPS in
 * x and z; RADIAL: a cube map, cells about radius / STRATA_AO_STEPS
 * across at r's radius); the triangles of r's terraces (roofs and walls:
 * not a skirt, water or shoreline) are drawn, a roof at its height, a
 * sloped triangle (an unsliced mesh) by the plane through its corners.
 * Each vertex then looks along STRATA_AO_DIRECTIONS directions of its
 * horizontal (tangent) plane, every 45 degrees from +x (FLAT; RADIAL: from
 * a tangent axis fixed by the vertex's direction), at STRATA_AO_STEPS
 * points t_s = (s + 1) radius / STRATA_AO_STEPS; what lies at a point
 * rises e above the vertex's plane and is seen at the elevation sine
 * sin_s = (e / t_s) / sqrt(1 + (e / t_s)^2) (0 where it lies below).  A
 * direction occludes o_d = max_s (1 - s / STRATA_AO_STEPS) sin_s, and
 * ao = 1 - mean_d o_d, stored as round(255 ao).  A vertex at the foot of
 * a straight wall thus gets about 0.5, in an inner corner about 0.25,
 * on an open roof or a wall's top 1.
 *
 * Every vertex is baked (water and shoreline vertices too, from the
 * terraces around them).  The occlusion belongs to the vertices as
 * baked: functions that move them all alike keep it (fit_size, the
 * rotations), those that add or remove vertices (water, shoreline,
 * simplify, solid, slicing into r again) drop it, so bake last.  The
 * bytes depend only on r and radius: the same for every thread count and
 * instruction set (scalar double precision; the grid's cells are maxima,
 * written in any order).
 *
 * Writers: glTF COLOR_0 (see "glTF"), PLY vertex colours red, green,
 * blue (each ao[i]), the preview's shading (see "Preview images").
 * Working memory: 4 bytes a grid cell (at most STRATA_AO_MAX_GRID_CELLS)
 * plus a byte a vertex kept with r.  Errors: STRATA_ERR_INVALID_ARG (NULL
 * ctx or r, a radius not > 0 or not finite), STRATA_ERR_NOT_FINITE (a
 * vertex), STRATA_ERR_TOO_LARGE (the grid would have more than
 * STRATA_AO_MAX_GRID_CELLS cells: the radius is too small for the extent
 * of r), STRATA_ERR_NOMEM, STRATA_ERR_CANCELLED; on an error r has no
 * occlusion. */
#define STRATA_AO_MAX_GRID_CELLS (1u << 27)
STRATA_API strata_status strata_result_bake_ao(strata_ctx *ctx, strata_result *r, float radius);

/* ------------------------------------------------------------------ */
/* Texture coordinates                                                 */
/* ------------------------------------------------------------------ */

/* Give every vertex of a terrain's result texture coordinates (the
 * view's uv, with uv_first 0 and nuv = nverts), `texel` the size in
 * the surface's units of one repeat of the texture:
 *  - roofs (and any vertex no wall uses): U = x / texel, V = z / texel,
 *    computed in double and rounded to float;
 *  - walls: each wall quad gets four vertices of its own, appended after
 *    the others (positions and normals copied; the vertices the walls
 *    used stay, for the roofs), so roof and wall coordinates never blend.
 *    U is the distance along the wall's top polyline over texel, V the
 *    height below the wall's top over texel (0 on top).  Quads link into
 *    polylines by the bits of their top corners' positions; an open
 *    polyline's U starts at 0 at its first quad, a closed loop's at its
 *    quad whose first top corner is least by (x, z, y), scaled by
 *    N / length (N the nearest whole number of texels, at least 1) so
 *    that the loop closes on a whole number of repeats.  Where two
 *    polylines touch (a vertex exactly on a plane) their quads pair in
 *    quad order.
 * One brick or rock texture thus tiles on every wall without stretching.
 * Call it on a result as strata_slice made it (walls as its quads: not
 * after strata_result_optimize), before water or a shoreline (which
 * refuse a result with texture coordinates); AO baked before is dropped
 * (the vertex count changes).  The same bytes for every thread count and
 * instruction set (sequential, double precision).
 * Errors: STRATA_ERR_INVALID_ARG (NULL ctx or r, texel not > 0 or not
 * finite, r already has texture coordinates, water, a shoreline or a
 * skirt, or walls that are not a slicer's quads), STRATA_ERR_UNSUPPORTED
 * (a RADIAL result: planets have no projection yet), STRATA_ERR_OVERFLOW
 * (more than 2^32-1 vertices), STRATA_ERR_NOMEM, STRATA_ERR_CANCELLED (r
 * unchanged on every error). */
STRATA_API strata_status strata_result_add_uv(strata_ctx *ctx, strata_result *r, float texel);

/* ------------------------------------------------------------------ */
/* Edge loops: contours                                                */
/* ------------------------------------------------------------------ */

/* The top edges of a slice's walls, linked per plane into polylines
 * (docs/DESIGN.md, "Edge loops"): closed loops, and on a surface with a border
 * (a terrain) open polylines from border to border.  Their points are the
 * slicer's top copies of its cut points, the same floats as the wall
 * tops, so a loop follows the mesh exactly.  Orientation: uphill on the
 * right seen from above (planets: from outside), so a loop around a hill
 * runs clockwise and one around a basin counter-clockwise.  A vertex
 * lying exactly on a plane counts as infinitesimally above it, as in the
 * slicer: two contours passing such a vertex touch there but never cross
 * or merge, and a peak or ridge lying exactly in a plane makes no loop
 * (its walls are dropped too).  Plane 0 has no loops: everything below it
 * belongs to terrace 0, nothing is cut there.
 *
 * Order: planes ascending; within a plane the open polylines first, then
 * the closed loops, each in the order of its first wall in the result,
 * starting there.  All of it follows from the result's bytes, so the
 * loops are the same for any thread count and instruction set. */
typedef struct strata_loops strata_loops;

typedef struct strata_loop {
    uint32_t plane;  /* k: at height L[k] */
    uint32_t closed; /* 1: a closed loop (its first point is not repeated);
                        0: open, both ends on the border */
    uint64_t first;  /* its first point in the point arrays (its points
                        are consecutive; polylines need not be stored in
                        their order) */
    uint32_t count;  /* its points */
    double length;   /* sum of its segments' lengths (closed: with the
                        closing one), in double from the float points */
    double area;     /* closed loops: signed area, positive counter-
                        clockwise (around lower ground).  FLAT: seen from
                        above, north = -z; RADIAL: the vector area's
                        component along the mean direction of its points
                        from the centre.  Open polylines: 0 */
} strata_loop;

typedef struct strata_loops_view {
    uint32_t nplanes;
    const float *levels;          /* nplanes: L[k] */
    const uint64_t *plane_first;  /* nplanes + 1: plane k's polylines are
                                     loops[plane_first[k] .. plane_first[k+1]) */
    uint64_t nloops;
    const strata_loop *loops;     /* nloops */
    uint64_t npoints;
    const float *x, *y, *z;       /* npoints: positions */
    const uint32_t *vertex;       /* npoints: the result vertex each point is
                                     (a wall's top corner) */
    strata_geometry geometry;
    float center[3];
    float radius;
} strata_loops_view;

/* The loops of a result as strata_slice made it, without normals (with
 * them each wall has vertices of its own and the links are gone:
 * STRATA_ERR_INVALID_ARG) and not reordered by strata_result_optimize
 * (which may split a wall's two triangles).  Memory: the loops (40 bytes a polyline, 16 a
 * point) and 5 bytes a result vertex plus 1 a wall quad while linking.
 * Progress stage "loops".  Errors: STRATA_ERR_INVALID_ARG,
 * STRATA_ERR_NOMEM, STRATA_ERR_OVERFLOW (2^32-1 or more walls, or a
 * polyline of 2^32 points), STRATA_ERR_BAD_MESH (walls that do not link
 * into polylines: an input edge shared by three or more triangles),
 * STRATA_ERR_CANCELLED.  Free with strata_loops_destroy. */
STRATA_API strata_status strata_loops_from_result(strata_ctx *ctx,
                                                  const strata_result *r,
                                                  strata_loops **out);
/* The loops of m cut by levels (as strata_slice takes them): m is sliced
 * (walls separate, no normals) and the result freed once the loops are
 * made, so the peak memory is the slice's.  Errors as strata_slice and
 * strata_loops_from_result. */
STRATA_API strata_status strata_loops_from_mesh(strata_ctx *ctx, const strata_mesh *m,
                                                const float *levels, uint32_t nlevels,
                                                strata_loops **out);
/* The loops strata_loops_from_mesh gives for the mesh
 * strata_mesh_from_heightmap(hm, cell_size, height_scale) would make,
 * straight from the samples: no mesh, no slice.  The same points, bits
 * and all, the same order.  Memory besides the samples: 3 bytes a sample
 * for bands, and about 36 bytes a crossing of an edge by a plane (the
 * loops' points included); on a 4096 x 4096 DEM with 80 levels several
 * times faster than slicing it (perf/contours.sh).  Progress
 * stage "loops".  Errors as strata_mesh_from_heightmap and
 * strata_loops_from_mesh (STRATA_ERR_BAD_LEVELS, STRATA_ERR_NOT_FINITE,
 * STRATA_ERR_OVERFLOW beyond 2^32-1 crossings). */
STRATA_API strata_status strata_loops_from_heightmap(strata_ctx *ctx,
                                                     const strata_heightmap *hm,
                                                     float cell_size, float height_scale,
                                                     const float *levels, uint32_t nlevels,
                                                     strata_loops **out);
STRATA_API void strata_loops_get_view(const strata_loops *l, strata_loops_view *v);
STRATA_API void strata_loops_destroy(strata_loops *l);

/* Shorelines: a ribbon of quads along every polyline of plane `plane` of
 * l (loops of r's slice: strata_loops_from_result, _from_mesh or
 * _from_heightmap with the same levels), on the water side (the left:
 * loops run uphill on the right), `width` wide, added to r after
 * everything else (the view's shore_first, shore_count; its vertices
 * [uv_first, uv_first + nuv), owned by r, with normals when r has them:
 * up, or radial).  Per point of a polyline (a closed loop's first point
 * again at its end) two vertices: on the coast, the loop's point bit for
 * bit, and outside it, `width` away along the bisector of the sides of
 * its two segments (one at an open end): FLAT at y = L[plane] exactly,
 * RADIAL on the sphere radius + L[plane] about the centre, `width` along
 * its great circle.  Where the coast bends towards the water more sharply
 * than `width` allows, the bisectors of a segment's ends meet before
 * `width`: both outer points stop short, at most 0.9 of the way to where
 * they meet, so the outer edge never folds over.  FLAT: an outer point
 * outside r's domain (the convex hull of r's vertices' x, z before the
 * call: the grid's rectangle, a polygon) is moved onto its border, so
 * the ribbon never runs past the terrain's edge.  Texture coordinates: U the length of the polyline up
 * to the point (double, from the float points) over width, the same for
 * both vertices, so a texture repeats every `width` without stretching;
 * V 0 on the coast, 1 outside.  Triangles face up (outwards), each with
 * an area, two a segment (except at a segment of no length or an exact
 * hairpin, which no outer point mends).  Writers: glTF a primitive of material "shoreline" with
 * TEXCOORD_0 (its own POSITION, NORMAL and TEXCOORD_0 accessors over its
 * vertices, indices from its first vertex; compressed too); OBJ group and material "shoreline", its texture
 * coordinates as "vt U V" lines (one per shoreline vertex, in order) and
 * its faces "f a/t b/t c/t" ("a/t/a" with normals); PLY faces with
 * terrace -3, without texture coordinates.  Polylines of
 * one point are skipped.  Errors: STRATA_ERR_INVALID_ARG (NULL ctx, r or
 * l, a shoreline already added, plane >= l's planes, width not > 0 or not
 * finite, l and r of different geometries), STRATA_ERR_OVERFLOW (more
 * than 2^32-1 vertices), STRATA_ERR_NOMEM (r unchanged). */
STRATA_API strata_status strata_result_add_shoreline(strata_ctx *ctx, strata_result *r,
                                                     const strata_loops *l, uint32_t plane,
                                                     float width);

/* Writing loops: strata_loops_write.
 *  - GeoJSON (.geojson or .json; RFC 7946): a FeatureCollection, one
 *    LineString feature per polyline with property "elev" (its plane's
 *    height; a closed loop repeats its first position at the end, as
 *    RFC 7946 rings do), in the loops' order.  No loops: an empty
 *    FeatureCollection.  With `polygons`: one MultiPolygon feature
 *    per non-empty band (even of one polygon: the layer has one geometry
 *    type), "elev_min" and "elev_max" its plane
 *    heights (the lowest band from height_min, the top band up to
 *    height_max): band k is L[k] <= h < L[k+1] with band 0 reaching down
 *    and the top band up without bound.  Exterior rings counter-
 *    clockwise, holes clockwise, each hole in the smallest exterior
 *    around it; rings touching themselves at a vertex lying exactly on a
 *    plane are split there so every ring is simple.  The bands tile the
 *    domain: open polylines are closed along its border.
 *  - SVG (.svg): one group (layer) per plane k >= 1, id "level-H", the
 *    region at or above L[k] as one filled path (even-odd rule: its
 *    holes cut out), sized in millimetres: svg_scale mm per map unit,
 *    north up.  What a laser cutter takes for layered models.
 *  - OBJ (.obj): "v x y z" per point in the mesh's frame, one "l" record
 *    per polyline (a closed one ends on its first point again), "g
 *    plane_K" per plane.
 * Map coordinates (GeoJSON, SVG): FLAT X = origin[0] + scale x,
 * Y = origin[1] - scale z (north = -z, as a heightmap's rows run);
 * RADIAL (GeoJSON lines only): longitude atan2(-z, x) and latitude
 * atan2(y, sqrt(x^2 + z^2)) in degrees about the centre (the north pole
 * at +y, longitude 0 towards +x, east counter-clockwise seen from above
 * the north pole); a line crossing the antimeridian is cut there into the
 * parts of a MultiLineString (RFC 7946, 3.1.9), the latitude of the cut
 * interpolated linearly in degrees.  Every number
 * is the float the point has in that frame, written as the shortest
 * decimal that reads back as that float.
 * Polygons and SVG need a FLAT surface covering the rectangle domain
 * (x0, z0, x1, z1) whose open polylines end on its border, and the
 * height at its corner (x0, z0), which says whether a band no polyline
 * reaches covers the border.
 * The file is written to a temporary name and renamed when complete: an
 * error leaves no file.  Progress stage "write".  Errors:
 * STRATA_ERR_INVALID_ARG (an unknown extension with format AUTO, a RADIAL
 * surface or missing domain for polygons or SVG, open polylines that do
 * not end on the domain's border), STRATA_ERR_IO (errno set),
 * STRATA_ERR_NOMEM, STRATA_ERR_CANCELLED. */
typedef enum strata_loops_format {
    STRATA_LOOPS_AUTO = 0, /* from the file name */
    STRATA_LOOPS_GEOJSON = 1,
    STRATA_LOOPS_SVG = 2,
    STRATA_LOOPS_OBJ = 3,
    STRATA_LOOPS_OGR = 4 /* any vector format GDAL writes (see below) */
} strata_loops_format;

typedef struct strata_loops_write_options {
    strata_loops_format format;
    int polygons;          /* GeoJSON: band polygons instead of lines */
    double origin[2];      /* map frame: see above */
    double scale;          /* > 0 */
    int has_domain;        /* polygons, SVG: domain and corner_height set */
    float domain[4];       /* x0, z0, x1, z1 (x0 < x1, z0 < z1) */
    float corner_height;   /* the surface's height at (x0, z0); loops of
                              strata_loops_from_heightmap whose grid has
                              its first sample there take that sample's
                              band instead, snapping included (a height
                              within rounding of a plane taken as on it,
                              as the slicer takes it) */
    float height_min, height_max; /* polygons: elev_min of band 0,
                                     elev_max of the top band */
    double svg_scale;      /* SVG: millimetres per map unit, > 0 */
    int up;                /* OBJ: a strata_axis (declared below, with
                              imports): the points are turned from the y-up
                              frame into that one, as
                              strata_result_rotate_from_y_up turns a result
                              (STRATA_AXIS_Y: as they are) */
    /* STRATA_LOOPS_OGR only (see "Loops through GDAL" below): */
    const char *driver;    /* a GDAL vector driver's short name ("GPKG",
                              "FlatGeobuf"); NULL: the one
                              strata_loops_ogr_driver picks for the path */
    int has_transform;     /* 1: map coordinates are the affine map below
                              (origin and scale unused), else the frame of
                              origin and scale */
    double transform[6];   /* X = t[0] + t[1] x + t[2] z, Y = t[3] + t[4] x
                              + t[5] z, in double, in that order of
                              operations */
    const char *crs;       /* the map coordinates' CRS (WKT, or anything
                              OSRSetFromUserInput takes); NULL: none */
    int lonlat;            /* 1: written in WGS 84 longitude, latitude
                              (EPSG:4326, longitude first), reprojected from
                              crs (needed) */
} strata_loops_write_options;

/* Defaults: AUTO, lines, origin 0, scale 1, no domain, svg_scale 1, up
 * STRATA_AXIS_Y, driver NULL, no transform, no CRS, lonlat 0. */
STRATA_API void strata_loops_write_defaults(strata_loops_write_options *opt);
STRATA_API strata_status strata_loops_write(strata_ctx *ctx, const strata_loops *l,
                                            const char *path,
                                            const strata_loops_write_options *opt);

/* Contour lines of a heightmap straight to GeoJSON: the very bytes
 * strata_loops_write (lines, opt's frame) writes for the loops
 * strata_loops_from_heightmap(ctx, hm, cell_size, height_scale, levels,
 * nlevels) makes, made and written a plane at a time, so memory holds the
 * crossings of the grid's edges (16 bytes each) and a few planes,
 * not the loops; with a heightmap opened by strata_heightmap_open, not
 * its samples either.  stats (NULL: none): the loops and points written
 * and, per plane (arrays of nlevels, each NULL or filled), the lines'
 * lengths summed in order (strata_loop.length) and their closed and open
 * counts.  opt: GeoJSON lines only (a format other than AUTO or GEOJSON,
 * or polygons: STRATA_ERR_INVALID_ARG).  Progress stages "loops" (the
 * grid) then "write" (the planes, made and written); errors as both
 * functions. */
/* Loops through GDAL (format STRATA_LOOPS_OGR, builds with GDAL:
 * strata_gdal_support): one layer "contours" written by the GDAL vector
 * driver opt->driver (GeoPackage, FlatGeobuf, GeoJSON, Shapefile, ...),
 * with opt->crs as its CRS (EPSG:4326 with lonlat; without crs a
 * Cartesian engineering CRS "strata map units (no CRS)", and none in
 * GeoJSON).  FLAT loops only.
 * Lines: one LineString feature per polyline, field "elev" (a real);
 * polygons: one MultiPolygon feature per non-empty band (every feature
 * of the layer MultiPolygon), fields "elev_min" and "elev_max", the
 * rings as the GeoJSON writer's.  Levels are the doubles of their
 * shortest float decimals (0.1, not 0.100000001490116).  Coordinates
 * are doubles: the affine map of the mesh's points, then with lonlat
 * reprojected through OSR (GeoJSON is then RFC 7946's: no "crs"
 * member, 7 decimals, exteriors counter-clockwise; lines crossing the
 * antimeridian are not cut).  Where the map mirrors the plane (a
 * negative determinant) every ring and line is written backwards, so
 * exteriors stay counter-clockwise and lines keep uphill on the right.
 * The files (a Shapefile's side files too) are made in a temporary
 * directory beside path and moved into place when complete: an error
 * leaves none.  Errors as strata_loops_write, and
 * STRATA_ERR_UNSUPPORTED (a build without GDAL; no such driver; a
 * driver that refuses the layer, its geometry type or its fields),
 * STRATA_ERR_INVALID_ARG (lonlat without crs, a crs OSR cannot read, a
 * RADIAL surface), STRATA_ERR_NOT_FINITE (a point with no longitude and
 * latitude in crs), STRATA_ERR_IO (GDAL failed to write; errno EIO
 * unless a system call set it). */

/* The GDAL vector driver that writes path: the one named name (NULL:
 * the first registered driver that creates vector files and lists
 * path's extension, in any letter case), its short name in *driver
 * (GDAL's string).  STRATA_ERR_UNSUPPORTED: a build without GDAL, an
 * unknown name, a driver that does not create vector files, or no
 * driver for the extension. */
STRATA_API strata_status strata_loops_ogr_driver(const char *path, const char *name,
                                                 const char **driver);

typedef struct strata_loops_stats {
    uint64_t nloops, npoints;
    double *length;   /* nlevels, or NULL */
    uint64_t *closed; /* nlevels, or NULL */
    uint64_t *open;   /* nlevels, or NULL */
} strata_loops_stats;
STRATA_API strata_status strata_loops_write_heightmap(strata_ctx *ctx, const strata_heightmap *hm,
                                                      float cell_size, float height_scale,
                                                      const float *levels, uint32_t nlevels,
                                                      const char *path,
                                                      const strata_loops_write_options *opt,
                                                      strata_loops_stats *stats);

/* ------------------------------------------------------------------ */
/* Writing results                                                     */
/* ------------------------------------------------------------------ */

typedef enum strata_format {
    STRATA_FORMAT_AUTO = 0, /* from the file name's extension */
    STRATA_FORMAT_PLY = 1,  /* binary little-endian PLY */
    STRATA_FORMAT_OBJ = 2,  /* Wavefront OBJ + MTL beside it */
    STRATA_FORMAT_GLB = 3,  /* binary glTF 2.0 (see "glTF" below) */
    STRATA_FORMAT_STL = 4   /* binary STL: triangles with facet normals,
                               z-up (see strata_result_write) */
} strata_format;

typedef struct strata_palette strata_palette; /* see "Palettes" below */

/* Options of strata_result_write.  Fill with strata_write_defaults(),
 * then set what you need. */
typedef struct strata_write_options {
    strata_format format;          /* STRATA_FORMAT_AUTO: from the extension
                                      of the path (.ply, .obj, .glb, .stl, in any
                                      letter case) */
    const strata_palette *palette; /* material colours of OBJ (MTL) and
                                      glTF files; NULL: the "earth"
                                      preset.  PLY has no colours. */
    int compress;                  /* GLB only: buffers compressed with
                                      EXT_meshopt_compression (see "glTF"
                                      below); needs meshoptimizer
                                      (strata_optimize_supported) */
    const struct strata_props *props; /* GLB only (other formats ignore
                                         it): props of strata_props_scatter
                                         drawn as one node per kind (trees,
                                         rocks) of a small built-in mesh with
                                         EXT_mesh_gpu_instancing (listed in
                                         extensionsUsed, so a viewer without
                                         it draws one of each); NULL: none.
                                         With compress their views are
                                         compressed too */
} strata_write_options;

/* Defaults: STRATA_FORMAT_AUTO, palette NULL, compress 0. */
STRATA_API void strata_write_defaults(strata_write_options *opt);

/* Write a result to path in the format opt says (opt NULL: defaults).
 *
 *  PLY: `float x, y, z` (+ `float nx, ny, nz` with normals) (+ `uchar
 *    red, green, blue`, each the vertex's occlusion byte, with
 *    strata_result_bake_ao) per vertex; per face `list uchar uint
 *    vertex_indices`, `int terrace`, `uchar wall`.
 *  OBJ: one group and one material per terrace (`g terrace_3`, `usemtl
 *    terrace_3`), walls in their group `walls_3` with material `wall_3`
 *    under STRATA_WALLS_SEPARATE, and FILE.mtl (the .obj suffix replaced)
 *    with one material per group: `Kd` is the palette's sRGB colour
 *    (strata_palette_color with STRATA_COLOR_SRGB), four decimals.
 *  GLB: see "glTF" below.
 *  STL: per triangle its unit facet normal (zero for a degenerate one),
 *    three corners and a zero attribute word.  Turned z-up, as slicers for
 *    3D printing expect: each corner and normal (x, y, z) is written as
 *    (x, -z, y), exactly (the quarter turn about x that
 *    strata_result_rotate_from_y_up makes for STRATA_AXIS_Z: a rotation,
 *    nothing mirrored, triangles still counter-clockwise seen from
 *    outside).  A terrain's heights are the file's z, a solid's base
 *    (strata_result_solidify) its lowest z; nothing is moved, so the base
 *    is at its own height, not at z 0 (slicers drop a model onto the
 *    plate).  The turn applies to whatever r holds: one already turned
 *    z-up by the caller is turned again.
 *  Water (strata_result_add_water): PLY faces with terrace -2 (wall 0);
 *    OBJ group and material "water" (Kd 0.15 0.42 0.70, d 0.6: opacity);
 *    glTF a primitive of material "water" after the others.
 *
 * PLY and GLB are written by the context's worker threads, each encoding
 * blocks of the file at their final offsets; OBJ (variable length text)
 * is written by the calling thread.  The bytes are the same for every
 * thread count.  Working memory comes from the context's allocator.
 *
 * Progress stage "write": 0 before any file is created, then rising
 * fractions of the file written (at most about 64 reports), then 1 once
 * everything is written, before the file is renamed into place.  The
 * cancel flag (strata_ctx_cancel, or a non-zero return of the progress
 * callback, 1 included) stops the write with STRATA_ERR_CANCELLED.
 *
 * Files are written to a temporary name in the same directory and renamed
 * when complete: a failure or a cancel never leaves a partial file, nor a
 * temporary one.  Errors: STRATA_ERR_FORMAT for an unknown extension with
 * STRATA_FORMAT_AUTO, STRATA_ERR_INVALID_ARG for a NULL ctx, r or path,
 * an empty path, an unknown format or an index count that is not a
 * multiple of 3 or compress with a format other than GLB,
 * STRATA_ERR_UNSUPPORTED for compress in a library built without
 * meshoptimizer, STRATA_ERR_TOO_LARGE for a .glb over 4 GiB (checked
 * before any file is created), STRATA_ERR_NOMEM, STRATA_ERR_CANCELLED,
 * STRATA_ERR_IO when writing fails (errno is kept, whichever thread met
 * the error; an existing path that is not a regular file is refused before
 * anything is written: EISDIR for a directory, EINVAL for a device, FIFO
 * or socket, which a rename would replace). */
STRATA_API strata_status strata_result_write(strata_ctx *ctx, const strata_result *r,
                                             const char *path,
                                             const strata_write_options *opt);

/* ------------------------------------------------------------------ */
/* Index order                                                         */
/* ------------------------------------------------------------------ */

/* Reorder the triangles of a result for the GPU's post-transform vertex
 * cache, with meshoptimizer (meshopt_optimizeVertexCache).  Each index
 * range (the roofs of terrace k, the walls of terrace k) is reordered on
 * its own, so every range holds exactly the triangles it held before, each
 * with the same corners in the same cyclic order (the winding is kept; a
 * triangle's first corner may change).  Vertices, normals, terrace ranges
 * and areas are unchanged.  The bytes depend only on the result, never on
 * the thread count.
 *
 * Cache figures use meshopt_analyzeVertexCache on each range alone (a
 * range is one draw call: the cache starts empty) with a FIFO cache of
 * STRATA_OPTIMIZE_CACHE_SIZE vertices and no warp or primitive-group
 * limit.  ACMR, the average cache miss ratio, is vertices transformed per
 * triangle, summed over all ranges: 3 at worst, about 0.5 at best on
 * regular meshes.
 *
 * Errors: STRATA_ERR_UNSUPPORTED when the library was built without
 * meshoptimizer (checked first; see strata_optimize_supported),
 * STRATA_ERR_INVALID_ARG for a NULL ctx or r or a range outside the index
 * array or not a multiple of 3, STRATA_ERR_OVERFLOW for a range of more
 * than 2^32-1 indices (both found before anything changes),
 * STRATA_ERR_BAD_MESH for an index >= nverts, STRATA_ERR_NOMEM,
 * STRATA_ERR_CANCELLED.  After BAD_MESH or CANCELLED some ranges may be
 * reordered, each still holding its triangles as above; *stats is then
 * unspecified.  Working memory: 4 bytes a vertex plus 12 bytes an index
 * of the largest range, per thread (meshoptimizer allocates its own with
 * operator new besides).  Progress stage "optimize". */
#define STRATA_OPTIMIZE_CACHE_SIZE 16u

typedef struct strata_optimize_stats {
    uint64_t triangles;          /* in all ranges */
    uint64_t transformed_before; /* cache misses over all ranges */
    uint64_t transformed_after;
    double acmr_before;          /* transformed / triangles, 0 if none */
    double acmr_after;
} strata_optimize_stats;

STRATA_API strata_status strata_result_optimize(strata_ctx *ctx,
                                                strata_result *r,
                                                strata_optimize_stats *stats);

/* 1 when this library was built with meshoptimizer, else 0. */
STRATA_API int strata_optimize_supported(void);

/* ------------------------------------------------------------------ */
/* Threads and placement                                               */
/* ------------------------------------------------------------------ */

/* With hwloc, a context places its worker threads: a plan of one PU per
 * thread from hwloc_distrib over the PUs the calling thread may use
 * (packages first, one thread per physical core, and a second thread per
 * core only when every core has one), applied by the parallel entry points
 * (strata_slice, strata_mesh_subdivide and the shapes built with it,
 * strata_displace_*, strata_fbm*_batch) before their work.
 *
 * Worker threads 1..n-1 of the OpenMP team are bound, each to its PU.  The
 * calling thread (thread 0) is never bound: the library does not change
 * the affinity of the application's threads, which threads they create
 * would inherit.  Binding is done once per plan and calling thread: the
 * OpenMP runtime keeps its pool of worker threads between parallel regions
 * of the same size (libgomp does), so the bindings persist.  An
 * application that runs OpenMP regions of other sizes from the same thread
 * may get fresh, unbound workers; that only costs speed.  Placement never
 * changes results: output bytes do not depend on it.
 *
 * Default: on with hwloc, except when the environment already controls
 * placement (OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY or KMP_AFFINITY
 * set and not empty) or STRATA_BIND is 0, no or off.  STRATA_BIND=1, yes
 * or on turns it on even then.  Both are read by strata_ctx_create.
 * Without hwloc or OpenMP threads are never bound.  A failed binding (a
 * container may forbid it) is not an error: work runs unbound and
 * strata_ctx_binding says why. */

/* Turn placement on (on != 0) or off for the following calls; turning it
 * off hands workers bound earlier back to the calling thread's CPU set.
 * STRATA_ERR_UNSUPPORTED for on without hwloc, STRATA_ERR_INVALID_ARG for
 * a NULL ctx. */
STRATA_API strata_status strata_ctx_set_binding(strata_ctx *ctx, int on);

/* A one-line, human-readable description of the placement for the
 * current thread count, written to buf (at most len bytes with the
 * terminating NUL, truncated if needed), for diagnostics such as
 * `strata info`.  When placement is on and not yet applied, this applies
 * it first (what the next parallel call would do), so the text tells the
 * outcome.  Examples:
 *   "4 threads: 3 workers bound to PUs 1-3, the calling thread not pinned"
 *   "unbound (no hwloc)"            "unbound (OMP_PROC_BIND is set)"
 *   "unbound (STRATA_BIND=0)"       "unbound (turned off)"
 *   "unbound (1 thread: the calling thread is never pinned)"
 *   "unbound (binding failed for 3 of 3 workers: Operation not permitted)"
 * PU numbers are the operating system's (as taskset and hwloc-ls -p).
 * The wording may change between versions; do not parse it.
 * STRATA_ERR_INVALID_ARG for a NULL ctx, or a NULL buf with len > 0. */
STRATA_API strata_status strata_ctx_binding(strata_ctx *ctx, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Palettes                                                            */
/* ------------------------------------------------------------------ */

/* A palette is an ordered list of sRGB colour stops, from the lowest
 * terrace to the highest.  It is a plain value (no allocation): declare
 * one, fill it with one of the functions below, pass its address.
 *
 * Colour of terrace k of n: t = k / (n - 1) (t = 0.5 when n == 1) is
 * spread over the stops, stop i sitting at t = i / (nstops - 1), and the
 * two neighbouring stops are mixed linearly in sRGB (the way colour ramp
 * editors mix them).  A single stop colours every terrace alike.  Walls
 * are the same colour times 0.6 in sRGB, so they read darker than roofs
 * in every format. */
#define STRATA_PALETTE_MAX_STOPS 256u

struct strata_palette {
    uint32_t nstops;                                /* 1..MAX_STOPS */
    unsigned char rgb[STRATA_PALETTE_MAX_STOPS][3]; /* sRGB bytes   */
};

typedef enum strata_color_space {
    STRATA_COLOR_SRGB = 0,  /* sRGB-encoded values in [0,1] (OBJ/MTL Kd)  */
    STRATA_COLOR_LINEAR = 1 /* linear light in [0,1], the sRGB transfer
                               function undone (glTF baseColorFactor)     */
} strata_color_space;

/* Built-in palettes, by name:
 *   "earth"  (the default) deep sea, shallow sea, sand, grass, forest,
 *            brown earth, grey rock, snow
 *   "desert" dark red rock to ochre, sand and pale dune
 *   "ice"    deep blue water, glacier blues, white
 *   "mono"   dark grey to near white
 * STRATA_ERR_INVALID_ARG for NULL arguments or an unknown name (exact,
 * lower case); *out is unchanged then. */
STRATA_API strata_status strata_palette_preset(const char *name,
                                               strata_palette *out);

/* Name of preset i (0: "earth"), NULL past the last: for listings. */
STRATA_API const char *strata_palette_preset_name(unsigned i);

/* Parse a palette from text: colours `#rrggbb` or `rrggbb` (hex, either
 * letter case) separated by whitespace or newlines, lowest terrace first;
 * `;` starts a comment to the end of the line; blank lines are ignored.
 * len bytes are read (text need not be NUL-terminated; a NUL byte is a
 * format error).  Errors: STRATA_ERR_FORMAT for anything else (a bad
 * digit, a wrong length, no colour at all), STRATA_ERR_TOO_LARGE for more
 * than STRATA_PALETTE_MAX_STOPS colours, STRATA_ERR_INVALID_ARG for NULL
 * pointers.  *out is written only on success. */
STRATA_API strata_status strata_palette_parse(const char *text, size_t len,
                                              strata_palette *out);

/* Read a palette file (at most 1 MiB) and parse it as above.
 * STRATA_ERR_IO (errno set) when it cannot be opened or read or is not a
 * regular file (as strata_heightmap_load),
 * STRATA_ERR_TOO_LARGE when it is bigger than 1 MiB. */
STRATA_API strata_status strata_palette_load(const char *path,
                                             strata_palette *out);

/* Colour of terrace k of n (k < n; k >= n is clamped to n - 1), a roof
 * (wall = 0) or a wall (wall != 0), in the given space: three values in
 * [0,1] into rgb.  p NULL means the "earth" preset. */
STRATA_API void strata_palette_color(const strata_palette *p, uint32_t k,
                                     uint32_t n, int wall,
                                     strata_color_space space, float rgb[3]);

/* ------------------------------------------------------------------ */
/* Colour rules                                                        */
/* ------------------------------------------------------------------ */

/* Colour rules give every triangle of the terraces (roofs and walls; not
 * water, a shoreline or a skirt) one sRGB colour from what it is and
 * where it lies, so regions read as distinct flat colours: rock on
 * walls, grass on roofs, sand along the sea, snow on the heights.
 *
 * A triangle's measures:
 *  - height: the highest of its corners' heights (FLAT: y; RADIAL: the
 *    distance from r's centre less r's radius), taken as a terrace's
 *    level when within 1e-6 (|level| + RADIAL radius) of it, so a roof
 *    has its plane's height exactly and a wall its top's;
 *  - slope: the angle in degrees between its plane's normal and up
 *    (FLAT: +y; RADIAL: from r's centre through its centroid), 0 flat,
 *    90 a wall, from the corners in double precision;
 *  - sea: height less the sea level (only with a sea level);
 *  - terrace: the index of the terrace whose roof or wall range holds it.
 * Heights written with `%` are fractions of the span [lo, hi] of the
 * heights of every terraced triangle's corners: height `h%` is
 * lo + h / 100 (hi - lo), sea `s%` is s / 100 (hi - lo).
 *
 * Rules are tried in order; the first whose conditions all hold colours
 * the triangle; a triangle no rule takes gets its terrace's palette
 * colour (strata_palette_color, sRGB, walls darker), as without rules.
 * A rule's colour is one of:
 *  - one colour;
 *  - a gradient over height: stops (height, colour) in ascending height,
 *    mixed linearly in sRGB between the two stops around the triangle's
 *    height, the end colours beyond them;
 *  - a palette over a terrace range: the rule's terrace conditions give
 *    the range [a, b] (none: every terrace), terrace k gets the palette's
 *    colour of k - a of b - a + 1 (walls darker).
 * Colour bytes are round(255 v) of the sRGB value v, computed in double.
 *
 * The file format (text, lines ending in '\n', at most 256 bytes each;
 * `#` as a line's first non-blank character starts a comment; blank
 * lines skipped), one rule a line: conditions, then the colour:
 *     slope>=60 colour 8d7b68
 *     sea<0 colour 2f6fa8
 *     sea<6% colour e8d9a0
 *     height>=88% colour f4f6f8
 *     terrace>=2 terrace<=5 palette 5a2a1a,b8622b,e6c48a
 *     * gradient 0%:7cc25a 60%:4e9a3a 100%:6b8f4a
 * A condition is QUANTITY OP VALUE without spaces: quantity slope,
 * height, sea or terrace; OP <, <=, > or >=; the value a decimal number
 * (slope in [0, 90], terrace a whole number >= 0, height and sea may end
 * in `%`).  `*` is a rule without conditions.  Colours are rrggbb or
 * #rrggbb (hex).  A gradient has 1 to STRATA_COLOUR_MAX_STOPS stops
 * HEIGHT:COLOUR in ascending height, all in `%` or none; a palette 1 to
 * STRATA_COLOUR_MAX_STOPS colours separated by commas.  At most
 * STRATA_COLOUR_MAX_RULES rules, at least one. */
#define STRATA_COLOUR_MAX_RULES 64u
#define STRATA_COLOUR_MAX_STOPS 16u
#define STRATA_COLOUR_FILE_MAX (1u << 20)

typedef struct strata_colours strata_colours;

/* Where a rules text is wrong: its line (1 is the first), the field (1
 * is the line's first word; 0: the line as a whole) and what was
 * expected there. */
typedef struct strata_colours_error {
    uint32_t line;
    uint32_t field;
    char what[96];
} strata_colours_error;

/* Parse rules from text[0..len) into a new rule set *out.  Errors:
 * STRATA_ERR_FORMAT with *err (when not NULL) filled, STRATA_ERR_TOO_LARGE
 * for more than STRATA_COLOUR_MAX_RULES rules (*err names the line),
 * STRATA_ERR_NOMEM, STRATA_ERR_INVALID_ARG for NULL arguments; *out is
 * NULL on every error. */
STRATA_API strata_status strata_colours_parse(const char *text, size_t len,
                                              strata_colours **out,
                                              strata_colours_error *err);
/* Read a rules file (a regular file of at most STRATA_COLOUR_FILE_MAX
 * bytes) and parse it: the errors above, STRATA_ERR_IO (errno set),
 * STRATA_ERR_TOO_LARGE for a bigger file (err->line 0). */
STRATA_API strata_status strata_colours_load(const char *path, strata_colours **out,
                                             strata_colours_error *err);
/* Built-in rule sets, written in the format above (README shows them):
 *   "cartoon" rock walls, blue under the sea, sand within 3% above it,
 *             snow above 86%, grey-green above 76%, bright grass
 *             between
 *   "desert"  red rock walls, pale sand by the sea, ochre and red roofs
 *             by terrace
 *   "snow"    grey rock walls, dark water, snow above 35%, pale green
 *             below
 * STRATA_ERR_INVALID_ARG for NULL arguments or an unknown name;
 * STRATA_ERR_NOMEM. */
STRATA_API strata_status strata_colours_preset(const char *name, strata_colours **out);
/* Name of preset i (0: "cartoon"), NULL past the last; its text, NULL
 * for an unknown name. */
STRATA_API const char *strata_colours_preset_name(unsigned i);
STRATA_API const char *strata_colours_preset_text(const char *name);
STRATA_API void strata_colours_destroy(strata_colours *c);

/* Colour r's terrace triangles by the rules c (palette pal for the
 * triangles no rule takes and for rules without a palette; NULL:
 * "earth"; sea_level NULL: no sea, and conditions on `sea` never hold),
 * into the view's rgb (3 sRGB bytes a vertex).  Hard edges: each vertex
 * keeps the colour of the first triangle (in index order) that uses it;
 * a triangle of another colour gets a copy of the vertex (position,
 * normal, texture coordinates when every vertex has them, occlusion when
 * baked), appended after the others, one copy per vertex and colour, so
 * no colour blends across a boundary in any viewer.  Vertices no
 * terrace triangle uses (water, shoreline) are white (255, 255, 255).
 * The colours belong to the vertices as coloured: functions that add or
 * remove vertices drop them (as the occlusion).  Colours are per-triangle
 * functions of positions, computed in double precision, and the copies
 * made in index order: the same bytes for every thread count and
 * instruction set.
 * Errors: STRATA_ERR_INVALID_ARG (NULL ctx, r or c), STRATA_ERR_OVERFLOW
 * (more than 2^32-1 vertices), STRATA_ERR_NOMEM, STRATA_ERR_CANCELLED (r
 * without colours then; its vertices may have been split). */
STRATA_API strata_status strata_result_apply_colours(strata_ctx *ctx, strata_result *r,
                                                     const strata_colours *c,
                                                     const strata_palette *pal,
                                                     const float *sea_level);

/* ------------------------------------------------------------------ */
/* glTF                                                                */
/* ------------------------------------------------------------------ */

/* strata_result_write with STRATA_FORMAT_GLB (or a .glb name) writes
 * one binary glTF 2.0 file:
 *
 *  - one scene with one node holding one mesh;
 *  - one primitive (TRIANGLES) per terrace that has triangles, roofs and
 *    walls together, with material "terrace_K"; under
 *    STRATA_WALLS_SEPARATE the walls of terrace K are a primitive of their
 *    own with material "wall_K" (darker), after all roofs;
 *  - materials are pbrMetallicRoughness with baseColorFactor the palette
 *    colour in LINEAR light (glTF's convention), metallicFactor 0,
 *    roughnessFactor 0.9;
 *  - water (strata_result_add_water): a primitive after every terrace's
 *    (and a world tile's skirt) with material "water": alphaMode BLEND,
 *    baseColorFactor (0.02, 0.15, 0.45, 0.6) in linear light,
 *    metallicFactor 0, roughnessFactor 0.2;
 *  - ambient occlusion (strata_result_bake_ao): one COLOR_0 accessor
 *    (VEC4 UNSIGNED_BYTE normalized: ao, ao, ao, 255 a vertex, its own
 *    buffer view after everything else) on every primitive but a
 *    shoreline's: glTF multiplies baseColorFactor by COLOR_0, so the
 *    terrace colours stay in the materials and every viewer (three.js,
 *    Blender, Godot, Unity glTFast) darkens by the occlusion without a
 *    custom shader.  Compressed, it is one more ATTRIBUTES stream, last;
 *  - all primitives share one POSITION accessor (float VEC3, with min and
 *    max) and, when the result has normals, one NORMAL accessor; each has
 *    its own indices accessor, UNSIGNED_SHORT when every index it holds is
 *    below 65535, else UNSIGNED_INT;
 *  - asset.generator is "strata VERSION"; every chunk, buffer view and
 *    accessor is 4-byte aligned; nothing unused is written.
 * A result without triangles gives a scene with one empty node.
 *
 * Compressed (strata_write_options.compress), the same document declares
 * EXT_meshopt_compression in extensionsUsed and extensionsRequired: the
 * BIN chunk (buffer 0) holds one stream per buffer view (positions,
 * normals, a shoreline's TEXCOORD_0 and props' vertices in mode
 * ATTRIBUTES, so are the props' instance translations, rotations and
 * scales, a view each; each primitive's and each prop part's indices,
 * then a buffer view of their own, in mode INDICES; the water is a
 * primitive like the others), and the views lie in buffer 1, a
 * fallback buffer without data ("fallback": true) sized for the
 * uncompressed layout.  Decoded (meshopt_decodeVertexBuffer,
 * meshopt_decodeIndexSequence) every view holds exactly the bytes of the
 * uncompressed file: the same vertices, the same indices in the same
 * order.  Encoding keeps the streams in memory until the file is written
 * (about the uncompressed size again) and splits the work over the
 * context's threads by stream; the bytes do not depend on them.  The
 * 4 GiB limit applies to the uncompressed layout too.
 *
 * A .glb stores its total length as uint32, so it cannot exceed 4 GiB.
 * STRATA_ERR_TOO_LARGE from the writers means: the output exceeds the
 * format's 4 GiB limit; write PLY instead or use fewer triangles.  It is
 * found before any file is created. */

/* Exact size in bytes of the .glb strata_result_write would write for r
 * (reads the index array once, with the context's threads).
 * STRATA_ERR_TOO_LARGE when it would be over 4 GiB (*bytes is then at
 * least 2^32, possibly a lower bound), STRATA_ERR_INVALID_ARG for NULL
 * arguments or an index count that is not a multiple of 3,
 * STRATA_ERR_NOMEM. */
STRATA_API strata_status strata_result_glb_size(strata_ctx *ctx, const strata_result *r,
                                                uint64_t *bytes);

/* ------------------------------------------------------------------ */
/* Preview images                                                      */
/* ------------------------------------------------------------------ */

/* A small software rasteriser that draws a result into an RGBA image, for
 * thumbnails and quick looks: orthographic projection, a float depth
 * buffer, flat shading from one light, terrace colours from a palette.
 *
 * Views (all orthographic, all fitted to the image with a margin):
 *  - TOP: looking down -y; +x to the right, -z towards the top of the
 *    image (row 0 of a heightmap is at the top).  Fitted to the x/z
 *    bounding box.
 *  - OBLIQUE: from an elevated diagonal, the viewer in the direction
 *    (sin 40deg, tan 35deg, cos 40deg) (35 degrees above the horizon),
 *    fitted to the projection of every vertex.
 *  - PLANET: RADIAL results only, from outside looking at the centre, the
 *    viewer in the direction (0.5, 0.35, 1) normalised; fitted to the
 *    bounding sphere about the result's centre.
 * Shading, in view space (x right, y up, z towards the viewer):
 *   light l = (-1, 1, 1.5) / |(-1, 1, 1.5)|  (from the upper left, front)
 *   shade   = STRATA_PREVIEW_AMBIENT + STRATA_PREVIEW_DIFFUSE * max(0, n.l)
 *   pixel   = round(255 * colour * shade) per channel, alpha 255
 * (with ambient occlusion, strata_result_bake_ao, shade times the
 * occlusion interpolated linearly from the triangle's corners, ao / 255,
 * at the pixel: only ever darker; the water layer has none)
 * with n the unit normal of the triangle (facing the viewer) and colour
 * the palette's sRGB colour of the triangle's terrace, roof or wall
 * (strata_palette_color with STRATA_COLOR_SRGB: walls are 0.6 times
 * darker).  Triangles of RADIAL results (closed surfaces) are culled when
 * they face away from the viewer; FLAT results are drawn from both sides.  A pixel is covered when
 * its centre lies inside a triangle (top-left fill rule on a 1/256 pixel
 * grid, so shared edges leave neither gaps nor double hits); the nearest
 * triangle wins, ties go to the larger packed colour, which makes the
 * image independent of the drawing order and the thread count: the same
 * bytes for the same result and options, always.
 * Water (strata_result_add_water; canvases ignore it): drawn and shaded
 * the same way into a layer of its own in the sRGB of its glTF colour,
 * linear (0.02, 0.15, 0.45), i.e. about (38.68, 108.01, 178.86) of 255;
 * where it is nearer than the terrain (or covers the background) the
 * pixel is the water at alpha 0.6 over it ("over", rounded per channel:
 * with an opaque pixel below, (153 water + 102 below) / 255); where the
 * terrain is nearer the pixel is the terrain's.  The layer costs another
 * 8 bytes a pixel. */

typedef enum strata_preview_view {
    STRATA_VIEW_AUTO = 0,    /* PLANET for RADIAL results, else OBLIQUE */
    STRATA_VIEW_TOP = 1,
    STRATA_VIEW_OBLIQUE = 2,
    STRATA_VIEW_PLANET = 3   /* RADIAL results only */
} strata_preview_view;

#define STRATA_PREVIEW_MIN_SIZE 16u
#define STRATA_PREVIEW_MAX_SIZE 8192u
#define STRATA_PREVIEW_AMBIENT 0.35f
#define STRATA_PREVIEW_DIFFUSE 0.65f

/* Initialise with strata_preview_defaults, then set what you need. */
typedef struct strata_preview_options {
    strata_preview_view view;
    uint32_t size;         /* square image side in pixels, 16..8192 */
    uint8_t background[4]; /* RGBA of pixels no triangle covers */
    const strata_palette *palette; /* terrace colours; NULL: "earth" */
} strata_preview_options;

/* Defaults: STRATA_VIEW_AUTO, size 1024, background (24, 26, 33, 255),
 * palette NULL. */
STRATA_API void strata_preview_defaults(strata_preview_options *opt);

/* The view STRATA_VIEW_AUTO stands for with this result (TOP, OBLIQUE or
 * PLANET); OBLIQUE for NULL. */
STRATA_API strata_preview_view strata_preview_auto_view(const strata_result *r);

/* Draw r into rgba, which the caller owns: size * size * 4 bytes, rows
 * from the top, 4 bytes a pixel (R, G, B, A; not premultiplied).  opt may
 * be NULL for defaults.  Working memory: 8 bytes a pixel plus 12 bytes a
 * vertex of r (plus, for strata_preview_write_png, 4 bytes a pixel for
 * the image).  An empty result
 * gives an image of background; a result whose extent is zero or not
 * finite along an axis is drawn with a unit extent there; triangles with
 * a non-finite corner are skipped.  Errors: STRATA_ERR_INVALID_ARG (a NULL
 * ctx, r or rgba, a size outside [16, 8192], an unknown view, PLANET for a
 * FLAT result), STRATA_ERR_NOMEM,
 * STRATA_ERR_CANCELLED (rgba is then unspecified).  Progress stage
 * "preview". */
STRATA_API strata_status strata_preview_render(strata_ctx *ctx,
                                               const strata_result *r,
                                               const strata_preview_options *opt,
                                               uint8_t *rgba);

/* Render and write a PNG file: 8-bit RGB when the background is opaque,
 * RGBA otherwise, no interlacing.  Written to a temporary name in the same
 * directory and renamed when complete, like strata_result_write: a failure
 * never leaves a partial file.  Errors: those of strata_preview_render,
 * STRATA_ERR_UNSUPPORTED when the library was built without a PNG library
 * (checked first), STRATA_ERR_IO when the file cannot be written (errno is
 * kept). */
STRATA_API strata_status strata_preview_write_png(strata_ctx *ctx,
                                                  const strata_result *r,
                                                  const strata_preview_options *opt,
                                                  const char *path);

/* Canvases: one preview drawn from many results, such as a world's
 * chunks, in bounded memory (8 bytes a pixel, plus 12 bytes a vertex of
 * the result being drawn), with the renderer and colours above.  The
 * camera is fitted up front to a frame instead of the drawn vertices:
 * PLANET views to the sphere (center, radius), TOP and OBLIQUE views to
 * the projection of the box [lo, hi].  Results may be drawn in any order
 * and by any number of threads at once (each with its own ctx): the
 * image depends only on the set of triangles drawn.  A frame that bounds
 * a result as tightly as the result's own extent gives the image
 * strata_preview_render makes of it, up to the rounding of the fit. */
typedef struct strata_preview_frame {
    float center[3], radius; /* PLANET */
    float lo[3], hi[3];      /* TOP, OBLIQUE */
} strata_preview_frame;

typedef struct strata_preview_canvas strata_preview_canvas;

/* A canvas for results of `geometry` (STRATA_VIEW_AUTO: PLANET for
 * STRATA_RADIAL, else OBLIQUE); opt's palette must outlive it.  Errors:
 * STRATA_ERR_INVALID_ARG (NULL ctx, frame or out, an unknown geometry or
 * view, a size outside [16, 8192], PLANET for STRATA_FLAT),
 * STRATA_ERR_NOMEM. */
STRATA_API strata_status strata_preview_canvas_create(strata_ctx *ctx,
                                                      const strata_preview_options *opt,
                                                      strata_geometry geometry,
                                                      const strata_preview_frame *frame,
                                                      strata_preview_canvas **out);
STRATA_API void strata_preview_canvas_destroy(strata_preview_canvas *c);
/* Draw r (of the canvas's geometry, else STRATA_ERR_INVALID_ARG) with
 * ctx's threads; STRATA_ERR_NOMEM, STRATA_ERR_CANCELLED (the canvas then
 * holds part of r).  No progress reports. */
STRATA_API strata_status strata_preview_canvas_draw(strata_ctx *ctx, strata_preview_canvas *c,
                                                    const strata_result *r);
/* The image so far, as strata_preview_render writes it (size * size * 4
 * bytes into rgba). */
STRATA_API strata_status strata_preview_canvas_image(strata_ctx *ctx,
                                                     const strata_preview_canvas *c,
                                                     uint8_t *rgba);
/* The image so far as a PNG file, as strata_preview_write_png writes it
 * (same errors, STRATA_ERR_UNSUPPORTED without a PNG library). */
STRATA_API strata_status strata_preview_canvas_write_png(strata_ctx *ctx,
                                                         const strata_preview_canvas *c,
                                                         const char *path);

/* ------------------------------------------------------------------ */
/* Mesh import                                                         */
/* ------------------------------------------------------------------ */

/* Decode a triangle mesh from memory or a file.  Formats, detected from
 * the bytes: data starting with "ply\n" (or "ply\r\n") is PLY, anything
 * else is read as Wavefront OBJ text.
 *
 *  - PLY 1.0, format ascii, binary_little_endian or binary_big_endian.
 *    Scalar types char/int8, uchar/uint8, short/int16, ushort/uint16,
 *    int/int32, uint/uint32, float/float32, double/float64.  The element
 *    `vertex` needs scalar properties x, y and z (any numeric type, in any
 *    position among other properties); the element `face` a list property
 *    `vertex_indices` (or `vertex_index`) with an integer count and item
 *    type.  Every other property (lists too) and every other element is
 *    read past and ignored.  "comment" and "obj_info" lines and blank
 *    lines are allowed in the header; at most 64 elements and 1024
 *    properties in all.  In ASCII bodies values are whitespace-separated
 *    tokens.  Bytes after the last element are ignored.
 *  - OBJ: `v x y z` (a w or colour values after them are ignored) and `f`
 *    with corners `v`, `v/vt`, `v/vt/vn` or `v//vn`; indices are 1-based,
 *    negative ones count back from the latest vertex, positive ones may
 *    point forward.  Every other statement (vt, vn, g, o, s, usemtl,
 *    mtllib, l, p...) and `#` comments are ignored.  Line continuations
 *    (a trailing backslash) are not supported.
 *
 * Faces with more than three corners are fan-triangulated around their
 * first corner.  Faces with fewer than three corners and triangles that
 * repeat a vertex (strata_mesh_create refuses those) are dropped and
 * counted in report->dropped.  Vertices are kept as the file lists them
 * (unreferenced ones too), so an indexed mesh keeps its sharing; opt->weld
 * also merges vertices at exactly the same position.  Numbers are read the
 * same way whatever the locale, and each decimal rounds to the nearest
 * float.
 *
 * Geometry.  FLAT (the default): the mesh is rotated by a quarter turn
 * (exact in float: a permutation with one sign change, handedness and
 * winding kept) from opt->up into strata's y-up frame:
 *     up z: (x, y, z) -> (x, z, -y)        up x: (x, y, z) -> (-y, x, z)
 * and strata_result_rotate_from_y_up() turns results back.  RADIAL
 * (opt->radial): no rotation; the centre is opt->center if
 * opt->has_center, else the centre of the vertices' bounding box (it does
 * not drift towards densely sampled regions as a centroid would), and the
 * base radius is opt->radius if > 0, else the mean distance of the
 * vertices from the centre (so, as for strata_shape_icosphere plus noise,
 * height 0 is the mean surface and explicit levels are relative to it).
 *
 * Winding.  strata wants triangles counter-clockwise seen from above
 * (flat) or from outside (radial).  When the sum over all triangles of
 * their signed area projected on the xz plane (flat, after the rotation)
 * or of their signed volume about the centre (radial) is negative, every
 * triangle is reversed and report->flipped is set, unless opt->keep_winding.
 *
 * Errors, all found before anything of a claimed size is allocated:
 * data ending early (a prefix of "ply\n", also no data, a header without
 * "end_header", fewer values than the header claims, or element counts
 * the remaining bytes cannot hold) STRATA_ERR_TRUNCATED; a malformed
 * header, value or OBJ statement (also a NUL byte in OBJ text, an OBJ
 * without any v or f statement, a float list count, a list x)
 * STRATA_ERR_FORMAT; a non-finite coordinate (NaN, inf, or beyond the
 * float range) STRATA_ERR_NOT_FINITE; an index out of range (OBJ: also 0)
 * or no triangle left STRATA_ERR_BAD_MESH; more than 2^32-1 vertices or
 * (2^32-1)/3 triangles STRATA_ERR_OVERFLOW; a bad up axis or radius
 * STRATA_ERR_INVALID_ARG.
 *
 * strata_mesh_load reads a whole regular file, then decodes it:
 * STRATA_ERR_IO (errno set) when it cannot be opened or read or is not a
 * regular file (a directory: EISDIR; a FIFO or a device: EINVAL, at once,
 * without waiting for data).  A file of 1 MiB or more is mapped into
 * memory rather than copied: it must not be truncated while it is read
 * (as with any mapped file, the process would get SIGBUS).
 *
 * Threads.  Binary PLY files whose records have one size per element
 * (scalars, and lists of one length, such as triangles) and OBJ files of
 * 2 MiB or more are decoded on the context's threads; the winding and
 * the edge table are made there too.  The mesh, the report and the
 * errors are the same for any thread count. */

/* Which input axis points up. */
typedef enum strata_axis {
    STRATA_AXIS_Y = 0,
    STRATA_AXIS_Z = 1,
    STRATA_AXIS_X = 2
} strata_axis;

typedef enum strata_import_format {
    STRATA_IMPORT_OBJ = 0,
    STRATA_IMPORT_PLY_ASCII = 1,
    STRATA_IMPORT_PLY_LE = 2, /* binary_little_endian */
    STRATA_IMPORT_PLY_BE = 3  /* binary_big_endian */
} strata_import_format;

/* Options of strata_mesh_decode and strata_mesh_load.  Fill with
 * strata_import_defaults(), then set what you need. */
typedef struct strata_import_options {
    strata_axis up;   /* FLAT: the input's up axis (ignored when radial) */
    int weld;         /* non-zero: merge exactly equal positions (+0 ==
                         -0); the first occurrence wins, ids are renumbered
                         in order of first occurrence */
    int keep_winding; /* non-zero: never reverse the triangles */
    int radial;       /* non-zero: a RADIAL mesh (a planet) */
    int has_center;   /* radial: use center[] (else the bounding-box centre) */
    float center[3];
    float radius;     /* radial: base radius > 0, or 0 for the mean distance */
} strata_import_options;

/* Defaults: STRATA_AXIS_Y up, no weld, winding corrected, FLAT (no
 * centre, radius 0). */
STRATA_API void strata_import_defaults(strata_import_options *opt);

/* What an import found and repaired. */
typedef struct strata_import_report {
    strata_import_format format; /* what the data was */
    uint32_t dropped;            /* faces dropped as degenerate */
    uint32_t welded;             /* vertices merged away by weld */
    int flipped;                 /* 1 when every triangle was reversed */
} strata_import_report;

/* opt may be NULL for the defaults; report may be NULL, else it is
 * written by a successful call (left alone on failure). */
STRATA_API strata_status strata_mesh_decode(strata_ctx *ctx, const void *data,
                                            size_t len,
                                            const strata_import_options *opt,
                                            strata_import_report *report,
                                            strata_mesh **out);
STRATA_API strata_status strata_mesh_load(strata_ctx *ctx, const char *path,
                                          const strata_import_options *opt,
                                          strata_import_report *report,
                                          strata_mesh **out);

/* Turn a result sliced from a mesh imported with the given up axis back
 * into the input's frame: positions, normals and the centre get the
 * inverse quarter turn, exactly (up z: (x, y, z) -> (x, -z, y); up x:
 * (x, y, z) -> (y, -x, z); up y: nothing).  strata_result_rotate_to_y_up
 * is its inverse (the import's rotation), e.g. to draw a preview after
 * writing the file.  A negated coordinate is computed as 0 - v: no -0 is
 * introduced.
 * STRATA_ERR_INVALID_ARG for a NULL result or an unknown axis. */
STRATA_API strata_status strata_result_rotate_from_y_up(strata_result *r,
                                                        strata_axis up);
STRATA_API strata_status strata_result_rotate_to_y_up(strata_result *r,
                                                      strata_axis up);

/* ------------------------------------------------------------------ */
/* Fewer roof triangles                                                */
/* ------------------------------------------------------------------ */

/* What strata_result_simplify_roofs did. */
typedef struct strata_simplify_stats {
    uint64_t roof_triangles_before, roof_triangles_after;
    uint32_t roofs_kept; /* roofs of 2 or more triangles left as they were
                            (nothing to gain, or the result failed a check) */
    double max_error;    /* planets: the largest dip of a new roof triangle
                            below its sphere, relative to the radius; 0 flat */
} strata_simplify_stats;

/* The default err of strata_result_simplify_roofs (and of strata
 * --simplify-roofs): 1e-4 of the radius, a twentieth of a pixel on a
 * planet drawn 1000 pixels wide. */
#define STRATA_SIMPLIFY_DEFAULT_ERROR 1e-4

/* Re-triangulate each terrace's roof with fewer triangles, in place, by
 * half-edge collapses of the roof's inner vertices with its border
 * locked: no vertex is moved or added, and every vertex on the roof's
 * border (the tops and bottoms of walls, the domain border, a world
 * chunk's border) is kept, so walls still join roofs by vertex id and
 * tiles still meet bit for bit.  Walls are not touched.  A vertex is
 * merged into a neighbour only when every triangle around it keeps a
 * clearly positive orientation seen from above (planets: from the
 * centre), so the star becomes a fan over the same area; on planets also
 * only when no new triangle dips more than err x radius below its sphere.
 * (meshoptimizer's simplifier, tried first, let zero-area and inward
 * triangles through; see core/edit/simplify.c.)  Each simplified roof is then
 * checked as a whole and kept as it was if it fails: the same directed
 * border edges, no edge used twice one way (still manifold by vertex id;
 * a planet still closed), no new triangle facing down (in) or of zero
 * area (the roof's own triangles left as they were are not judged).  FLAT roofs stay exactly on their planes
 * and keep their coverage exactly (upward triangles with the same border
 * cover each point once); err is then unused.  RADIAL roofs keep their
 * vertices on their spheres, the new shell within err x radius of the
 * old one, the solid angle covered unchanged.  Vertices no triangle uses
 * any more are removed (the others keep their order; normals follow),
 * ranges are renumbered, planets' roof areas measured again when they
 * were filled.  The bytes depend on r and err only, not on the thread
 * count.  Working memory per thread: 4 bytes a vertex of r plus about 80
 * bytes an index of the largest roof.  Progress stage "simplify".
 * Errors: STRATA_ERR_INVALID_ARG (NULL ctx or r, err not positive and
 * finite, a roof range outside the index array), STRATA_ERR_BAD_MESH (an
 * index out of range), STRATA_ERR_OVERFLOW (a roof of 2^32 indices or
 * more), STRATA_ERR_NOMEM, STRATA_ERR_CANCELLED (r unchanged after any
 * error). */
STRATA_API strata_status strata_result_simplify_roofs(strata_ctx *ctx, strata_result *r,
                                                      double err,
                                                      strata_simplify_stats *stats);

/* ------------------------------------------------------------------ */
/* Props on terraces                                                   */
/* ------------------------------------------------------------------ */

typedef enum strata_prop_kind {
    STRATA_PROP_TREE = 0,
    STRATA_PROP_ROCK = 1
} strata_prop_kind;

/* Options of strata_props_scatter.  Fill with strata_props_defaults(). */
typedef struct strata_props_options {
    double density;         /* expected instances per unit of roof area, > 0 */
    double noise_frequency; /* > 0: the density is weighted by simplex noise
                               of this frequency per unit (0.5 + 0.5 noise,
                               in [0, 1]; 2D on terrains, 3D on planets);
                               0: uniform */
    uint32_t seed;
    uint32_t first_terrace, last_terrace; /* roofs of these terraces only
                                             (inclusive; last past the end:
                                             to the top) */
    float min_scale, max_scale;           /* uniform, 0 < min <= max */
    float rock_share;                     /* the share of rocks, [0, 1] */
    /* Where a painter would put them (all >= 0; the defaults keep none):
     * spacing > 0: no two props closer than this (3D distance; a
     * Poisson-disk set from a hashed candidate lattice, seamless in
     * worlds; see strata_props_scatter); wall_foot: none within this
     * distance (3D) of a wall's base (its lowest edge); min_height ..
     * max_height: the terraces whose level (L[k]: y on terrains, the
     * height above the radius on planets) is in this range only;
     * max_slope: roof triangles tilted from up by at most this many
     * degrees (0..90; a terraced roof is level: 0). */
    double spacing;
    double wall_foot;
    float min_height, max_height;
    float max_slope;
} strata_props_options;

/* Defaults: density 1, no noise, seed 1, every terrace, scale 0.8..1.2,
 * rocks 0.3, no spacing, no wall foot, every height (-inf..inf), any
 * slope (90). */
STRATA_API void strata_props_defaults(strata_props_options *o);

typedef struct strata_props strata_props;

/* The instances, as arrays of count elements each (owned by the props). */
typedef struct strata_props_view {
    uint64_t count;
    const float *x, *y, *z;    /* a point of a roof triangle (terrains: y is
                                  exactly the terrace's level) */
    const float *ux, *uy, *uz; /* up: (0, 1, 0) on terrains, from the centre
                                  through the point on planets (unit) */
    const float *yaw;          /* about up, radians in [0, 2 pi) */
    const float *scale;
    const uint8_t *kind;       /* strata_prop_kind */
    const uint32_t *terrace;
} strata_props_view;

/* Scatter instances on the roofs of r (walls never; a solid's sides and
 * base are walls): each roof triangle of the chosen terraces gets
 * density x its area x the noise's weight at its centroid instances,
 * the fraction rounded up with that probability, each at a uniform point
 * of it with a random yaw, scale and kind.  Every random number is a
 * hash of the seed, the triangle's place in the index array and the
 * instance's number, so the same result and options give the same
 * instances, in index order, for any thread count.
 *
 * With spacing D > 0 the props are a Poisson-disk set instead: one
 * candidate per cell of a lattice fixed in space (cells D / sqrt 2 wide:
 * the x, z plane on terrains; on planets 3D cells about the centre, the
 * candidates in the shell around the sphere of radius 0.99 x (radius +
 * the lowest chosen level), projected onto it), kept with probability
 * min(1, density x cell area) x the noise's weight, then thinned by
 * STRATA_PROPS_ROUNDS rounds of "keep a candidate that has the highest
 * hash among the live ones within D; kill those within D of a kept
 * one", so no two kept candidates are closer than D (on planets closer
 * on that sphere, hence in 3D on every roof above it).  A candidate's
 * fate depends only on the candidates within ROUNDS x D of it, never
 * on the mesh, so a world's tile keeps exactly the whole mesh's props
 * on its roofs.  A kept candidate is a prop where it lies on a chosen
 * roof triangle (terrains: over it in x, z; planets: on the ray from
 * the centre), in index order of the triangles, then of the cells.
 * The density is then at most about 0.7 / D^2.
 * Free with strata_props_destroy.
 * Errors: STRATA_ERR_INVALID_ARG (NULL argument, an option outside its
 * range, first_terrace not a terrace of r), STRATA_ERR_OVERFLOW (more
 * than 2^32-1 instances), STRATA_ERR_NOMEM, STRATA_ERR_CANCELLED
 * (progress stage "props"). */
#define STRATA_PROPS_ROUNDS 3
STRATA_API strata_status strata_props_scatter(strata_ctx *ctx, const strata_result *r,
                                              const strata_props_options *opt,
                                              strata_props **out);
STRATA_API void strata_props_get_view(const strata_props *p, strata_props_view *v);
STRATA_API void strata_props_destroy(strata_props *p);

/* The instances as a CSV file: a header line
 * "x,y,z,up_x,up_y,up_z,yaw,scale,kind,terrace", then one line each,
 * numbers as %.9g (they read back as the same floats; the C locale's
 * decimal point is assumed), kind "tree" or "rock".  Written through a
 * temporary renamed into place, as strata_result_write does; errors as
 * there. */
STRATA_API strata_status strata_props_write_csv(strata_ctx *ctx, const strata_props *p,
                                                const char *path);

/* ------------------------------------------------------------------ */
/* Solids for 3D printing                                              */
/* ------------------------------------------------------------------ */

/* What strata_result_solidify did. */
typedef struct strata_solid_stats {
    float base;                /* height of the base plane */
    uint32_t border_points;    /* points of the footprint's border: base
                                  vertices added (plus one, the centroid) */
    uint32_t vertices_merged;  /* border spikes zipped (see below) */
    uint64_t fins_removed;     /* wall triangles standing on the border
                                  (see below) */
    uint64_t triangles_added;  /* side walls and base */
} strata_solid_stats;

/* Close a FLAT result (a terrain: grid, polygon, heightmap, sliced or
 * not) into a solid, in place: outer walls from the domain border
 * straight down to a flat base `depth` below the lowest vertex (for a
 * sliced result, the plane of terrace 0), and the base.  The result is
 * then a closed 2-manifold by vertex id, every edge used by exactly two
 * triangles in opposite directions, all facing outwards (the base down),
 * with the volume of the terrain above the base; no triangle has zero
 * area.  The new triangles are appended to terrace 0's walls (ranges
 * after it move; with strata_slice_options.areas, terrace 0's wall_area
 * grows by their area).  Each horizontal border edge gets a rectangle
 * below it, split between the two vertical lines at its ends (which also
 * close the terrace walls ending on the border); the base is a fan from
 * the centroid of the border's footprint, so the footprint must be
 * star-shaped from it (convex shapes are).  Vertices lying exactly on
 * their plane can leave the border lying on itself, which would need
 * zero-area triangles to close; the border is first made one clean loop,
 * in rounds until nothing changes: walls standing on the border (an
 * input edge along the border lying in a plane, the inner triangle
 * lower: a wall facing inwards with nothing behind it) are removed
 * (fins_removed counts the triangles; their area leaves wall_area); two
 * border edges on the same segment walked both ways (a vertex on its
 * plane whose two wedges of lower neighbours both reach the border, or
 * the two sides of a slit) are zipped by merging their ends
 * (vertices_merged), unless they are the sides of two walls back to back
 * on one line, which are removed, as are walls made back to back by a
 * merge.  Before that, corners of one triangle at one position (the
 * slicer's cut points rounded onto the vertex beside them, which admesh
 * calls degenerate facets) are merged and the triangles holding both
 * removed (counted in vertices_merged); should that leave a border that
 * cannot be closed, the solid is made again without it.  Vertices left
 * unused are removed; the others keep their order.  Adds about one vertex and three triangles a border point;
 * working memory about 26 bytes a vertex (1 a triangle when walls are
 * removed) plus 24 bytes an edge between border vertices, and one pass
 * over the triangles a round.  Serial; the same bytes for any thread
 * count.  stats may be NULL.
 * Errors: STRATA_ERR_INVALID_ARG (NULL ctx or r, depth not a positive
 * finite number or lost below the lowest height's precision, a RADIAL
 * result: planets are closed already, a result with normals, an empty
 * one), STRATA_ERR_BAD_MESH (the border is not one loop, a vertex where
 * the border crosses itself, an edge used by more than two triangles or
 * twice the same way, a footprint not star-shaped from its centroid;
 * r unchanged), STRATA_ERR_OVERFLOW, STRATA_ERR_NOMEM (r unchanged, its
 * arrays possibly grown), STRATA_ERR_CANCELLED (between rounds; r
 * unchanged). */
STRATA_API strata_status strata_result_solidify(strata_ctx *ctx, strata_result *r,
                                               float depth, strata_solid_stats *stats);

/* Scale r about the origin so that the longest side of its bounding box
 * is `size` (STL has no units; printers read millimetres): positions,
 * the centre and radius, terrace levels, and areas (by the factor
 * squared) are multiplied by factor = size / longest side, each float
 * once, so roofs stay exactly at their levels.  Normals are unchanged.
 * *factor (may be NULL) gets the factor.  STRATA_ERR_INVALID_ARG for a
 * NULL r, a size that is not positive and finite, an empty result or
 * one of zero extent; STRATA_ERR_OVERFLOW when a coordinate would not
 * be a finite float. */
STRATA_API strata_status strata_result_fit_size(strata_result *r, double size, double *factor);

/* ------------------------------------------------------------------ */
/* The pipeline                                                        */
/* ------------------------------------------------------------------ */

/* What the strata program does with a surface, as one library call: the
 * stages below, in this order, each run only when its options ask for it
 * (docs/DESIGN.md, "Pipeline").  A whole mesh goes through all of them
 * (strata_pipeline_run); a world's chunks are sliced by the world and go
 * through the stages after the slice tile by tile.  Each stage reports
 * its progress under its name and its wall time in the report. */
typedef enum strata_stage {
    STRATA_STAGE_LEVELS = 0, /* the planes (strata_terraces_heights) */
    STRATA_STAGE_SLICE,      /* strata_slice (no planes: the mesh as it is) */
    STRATA_STAGE_LOOPS,      /* the loops file, and the coasts of --shoreline */
    STRATA_STAGE_SIMPLIFY,   /* strata_result_simplify_roofs */
    STRATA_STAGE_SOLID,      /* strata_result_solidify */
    STRATA_STAGE_UV,         /* strata_result_add_uv */
    STRATA_STAGE_WATER,      /* strata_result_add_water */
    STRATA_STAGE_SHORELINE,  /* strata_result_add_shoreline */
    STRATA_STAGE_COLOURS,    /* strata_result_apply_colours */
    STRATA_STAGE_FIT,        /* strata_result_fit_size */
    STRATA_STAGE_PROPS,      /* strata_props_scatter (and the CSV file) */
    STRATA_STAGE_OPTIMIZE,   /* strata_result_optimize */
    STRATA_STAGE_AO,         /* strata_result_bake_ao */
    STRATA_STAGE_WRITE,      /* strata_result_write */
    STRATA_STAGE_PREVIEW,    /* strata_preview_write_png */
    STRATA_STAGE_COUNT_
} strata_stage;

/* "levels", "slice", ...: the name of the stage, also its progress stage
 * where the stage has none of its own; "unknown" out of range. */
STRATA_API const char *strata_stage_name(strata_stage s);

/* Fill with strata_pipeline_defaults, then set what the job needs. */
typedef struct strata_pipeline_options {
    strata_terraces terraces; /* no planes: the surface unsliced */
    strata_walls walls;
    int normals;
    int areas; /* the terraces' roof and wall areas (strata_slice_options) */
    /* loops: written to loops_path (NULL: none) with loops_write */
    const char *loops_path;
    strata_loops_write_options loops_write;
    double simplify_roofs; /* > 0: strata_result_simplify_roofs's error */
    int solid;             /* flat surfaces: close into a solid */
    float solid_depth;     /* its base below the lowest terrace; NAN:
                              STRATA_SOLID_DEPTH x the longest horizontal
                              side of the result */
    int uv;                /* texture coordinates (strata_result_add_uv;
                              terrains, without water or a shoreline) */
    float uv_texel;        /* their texel (one repeat of the texture) in the
                              surface's units: texture coordinates are made
                              before fit_size, so they keep to the surface
                              as it is scaled; 0: the mean spacing of the
                              planes (at least two planes, else
                              STRATA_ERR_INVALID_ARG), so a terrace's wall
                              is about one repeat high */
    int water;             /* a water surface at terraces.sea_level */
    const float *water_outline; /* strata_result_add_water's outline */
    uint32_t water_npoints;
    uint32_t water_sphere_level;
    const strata_mesh *water_part; /* RADIAL: instead of the whole sphere,
                              this mesh's triangles (a world's chunk of the
                              sphere: vertices at radius + sea level about
                              the origin, r's centre added), added as
                              strata_result_add_water adds the sphere */
    float shoreline;       /* > 0: a ribbon this wide along the coasts of
                              the sea-level plane (needs terraces.sea) */
    double fit_size;       /* > 0: strata_result_fit_size to this size */
    const strata_props_options *props; /* NULL: none */
    double props_size[2];  /* > 0: the props' min and max scale as these
                              fractions of the longest side of the result
                              (props->min_scale and max_scale ignored) */
    const char *props_csv; /* NULL: no CSV of the props */
    int optimize;
    int ao;                /* bake ambient occlusion (strata_result_bake_ao) */
    float ao_radius;       /* its radius in the surface's units (scaled with
                              fit_size); 0: STRATA_AO_RADIUS_PLANES x the
                              mean spacing of the planes (at least two
                              planes, else STRATA_ERR_INVALID_ARG) */
    const strata_colours *colours; /* NULL: none; else strata_result_apply_colours
                              with write.palette and the sea level when
                              terraces.sea, after the shoreline and before
                              fit_size (heights in the surface's units) */
    /* the mesh file (NULL: none) and how to write it; write.props is
     * set to the props made here */
    const char *path;
    strata_write_options write;
    strata_axis up; /* the file's frame (.stl is z-up whatever this is) */
    const char *preview; /* PNG (NULL: none) */
    strata_preview_options preview_options;
} strata_pipeline_options;

/* The default base depth of a solid, times the longest horizontal side. */
#define STRATA_SOLID_DEPTH 0.05

/* Defaults: no planes, walls UPPER, nothing else asked for; up Y. */
STRATA_API void strata_pipeline_defaults(strata_pipeline_options *opt);

typedef struct strata_pipeline_report {
    double seconds[STRATA_STAGE_COUNT_]; /* wall time of each stage run */
    uint32_t ran;                        /* bit s: stage s ran */
    uint32_t nlevels;                    /* the planes used */
    strata_stage failed;                 /* the stage of an error */
    strata_arena_stats arena;            /* the slicer's arenas */
    strata_simplify_stats simplify;
    strata_solid_stats solid;
    strata_optimize_stats optimize;
    double fit_factor;                   /* 1 without fit_size */
    float solid_depth;                   /* the depth used */
    /* Memory, stage by stage (strata_pipeline_run only: zeros from a
     * world's tiles, whose threads share one process): the page faults
     * the whole process took during the stage (minor + major; on a
     * virtual machine each first touch of fresh memory is one, and dear),
     * and the process's peak resident set at the stage's end, in bytes
     * (getrusage; zeros where it fails). */
    uint64_t faults[STRATA_STAGE_COUNT_];
    uint64_t peak_rss[STRATA_STAGE_COUNT_];
} strata_pipeline_report;

/* Run every stage opt asks for on m: slice it into *out (owned by the
 * caller), then the stages after the slice on *out, then write the files.
 * *props (may be NULL when opt->props is NULL) gets the props, owned by
 * the caller.  rep (may be NULL) gets the times and figures; after an
 * error, rep->failed names the stage that failed (levels for a height
 * range that cannot be measured: STRATA_ERR_NOT_FINITE), and nothing is
 * returned.  The files (mesh, .mtl, loops, props CSV, preview) are all
 * renamed into place at the end, once every one is written, or none is:
 * after an error (or a cancel) no destination has changed and no
 * temporary file is left; a rename that fails puts back the files
 * already renamed (rep->failed names the stage of the file).  Errors: those
 * of the stages' functions; STRATA_ERR_INVALID_ARG for NULL arguments, a
 * shoreline or water without a sea level, or the loops of an unsliced
 * surface. */
STRATA_API strata_status strata_pipeline_run(strata_ctx *ctx, const strata_mesh *m,
                                             const strata_pipeline_options *opt,
                                             strata_result **out, strata_props **props,
                                             strata_pipeline_report *rep);

/* An upper bound on the peak bytes strata_pipeline_run(ctx, m, opt)
 * allocates, m itself included (the input's part as
 * strata_whole_memory_estimate), for refusing a job that cannot fit
 * (against strata_memory_limit) before it starts.  What grows with the
 * options is counted: the slice's output from each triangle's span of
 * planes (the planes opt->terraces makes over m's heights: a triangle
 * spanning d planes leaves at most 5d + 3 triangles), at
 * STRATA_BOUND_TRIANGLE_BYTES and STRATA_BOUND_VERTEX_BYTES each beyond
 * the input's share, and the props (density x the roofs' area bound,
 * plus one per roof triangle) at STRATA_BOUND_PROP_BYTES each.
 * *triangles (may be NULL) gets the bound on the sliced triangles,
 * *props (may be NULL) on the props.  Errors: STRATA_ERR_INVALID_ARG
 * (NULL m, opt or bytes), those of strata_terraces_heights and
 * strata_mesh_height_range, STRATA_ERR_NOMEM. */
#define STRATA_BOUND_TRIANGLE_BYTES 40.0
#define STRATA_BOUND_VERTEX_BYTES 40.0
#define STRATA_BOUND_PROP_BYTES 80.0
STRATA_API strata_status strata_pipeline_memory_bound(const strata_mesh *m,
                                                      const strata_pipeline_options *opt,
                                                      uint64_t *bytes, uint64_t *triangles,
                                                      uint64_t *props);

/* ------------------------------------------------------------------ */
/* Edit logs: brush dabs                                               */
/* ------------------------------------------------------------------ */

/* A sculpted surface is its generated heights plus a log of brush dabs
 * applied in order (strata_mesh_apply_edits for a whole mesh,
 * strata_world_set_edits for a world's chunks).  Each dab changes the
 * height h of the vertices within `radius` of its centre, as a function
 * of the vertex's position alone, so chunks agree on shared vertices and
 * any thread count, shard or instruction set gives the same bits (plain
 * scalar float arithmetic).  Distance d: terrains in x and z; planets
 * (about the origin) the chord between the vertex's and the centre's
 * directions times the centre's distance from the origin.  With the
 * falloff f = s * t^2 (3 - 2t), t = 1 - d / radius, s the strength:
 *   raise    h += f                 (strength in height units)
 *   lower    h -= f
 *   noise    h += f * simplex noise of the vertex's point at frequency
 *            4 / radius (planets: its direction times the centre's
 *            distance; terrains: (x, 0, z)), seed fixed
 *   smooth   h += f * (mean of R at six points a quarter of the radius
 *            around the vertex - R at the vertex), R the surface's noise
 *            height (as displacement made it, through the height curve)
 *            plus the raise, lower and noise dabs before this one
 *            (strength 0..1; without noise and such dabs it does nothing)
 *   terrace  h += f * (the nearest plane - h): flattened towards the
 *            terrace it is closest to (strength 0..1; planes of the
 *            unedited surface)
 * Consecutive raise, lower and noise dabs are summed before they are
 * added to h, so a lower with the numbers of the raise just before it
 * leaves h's bits as they were.  The planes are never changed by edits:
 * a whole mesh with edits is sliced with the planes of its unedited
 * surface (strata_pipeline_options.terraces given explicit levels), as
 * a world is. */
typedef enum strata_brush {
    STRATA_BRUSH_RAISE = 0,
    STRATA_BRUSH_LOWER = 1,
    STRATA_BRUSH_SMOOTH = 2,
    STRATA_BRUSH_TERRACE = 3,
    STRATA_BRUSH_NOISE = 4
} strata_brush;

/* Bounds of a dab's numbers and of a log. */
#define STRATA_EDIT_COORD_MAX 1e30f
#define STRATA_EDITS_MAX (1u << 20)
#define STRATA_EDITS_FILE_MAX (64u << 20)

/* One dab: centre finite (|coordinate| <= STRATA_EDIT_COORD_MAX),
 * 0 < radius <= STRATA_EDIT_COORD_MAX, 0 <= strength (<= 1 for smooth
 * and terrace, else <= STRATA_EDIT_COORD_MAX). */
typedef struct strata_edit {
    strata_brush brush;
    float center[3];
    float radius;
    float strength;
} strata_edit;

typedef struct strata_edits strata_edits;

/* Where a log file is wrong: its line (1 is the first) and the field,
 * one of "header", "line" (too long, a NUL or CR byte), "brush", "x",
 * "y", "z", "radius", "strength", "end of line" (a field too many). */
typedef struct strata_edits_error {
    uint64_t line;
    char field[16];
} strata_edits_error;

/* "raise", "lower", "smooth", "terrace", "noise"; "unknown" for other
 * values.  strata_brush_from_name is the inverse (exact, lower case),
 * STRATA_ERR_INVALID_ARG for an unknown name. */
STRATA_API const char *strata_brush_name(strata_brush b);
STRATA_API strata_status strata_brush_from_name(const char *name, strata_brush *out);
/* STRATA_OK, or STRATA_ERR_INVALID_ARG for a dab outside the bounds. */
STRATA_API strata_status strata_edit_validate(const strata_edit *e);

/* An empty log; STRATA_ERR_NOMEM. */
STRATA_API strata_status strata_edits_create(strata_edits **out);
STRATA_API void strata_edits_destroy(strata_edits *e);
/* The dabs in effect, and those strata_edits_redo can bring back. */
STRATA_API uint64_t strata_edits_count(const strata_edits *e);
STRATA_API uint64_t strata_edits_redo_count(const strata_edits *e);
/* Dab i (< count); STRATA_ERR_INVALID_ARG out of range. */
STRATA_API strata_status strata_edits_get(const strata_edits *e, uint64_t i, strata_edit *out);
/* Add a dab at the end (forgetting the undone ones): STRATA_ERR_INVALID_ARG
 * (strata_edit_validate), STRATA_ERR_TOO_LARGE past STRATA_EDITS_MAX,
 * STRATA_ERR_NOMEM. */
STRATA_API strata_status strata_edits_append(strata_edits *e, const strata_edit *ed);
/* Take the last dab out of effect (*undone, when not NULL, gets it), or
 * put the last undone one back (*redone); STRATA_ERR_INVALID_ARG when
 * there is none. */
STRATA_API strata_status strata_edits_undo(strata_edits *e, strata_edit *undone);
STRATA_API strata_status strata_edits_redo(strata_edits *e, strata_edit *redone);

/* The file format, UTF-8 text of lines ending in '\n' (the last one's
 * optional), at most 256 bytes each:
 *   strata-edits 1
 *   # a comment; blank lines are skipped
 *   raise 0.12 0.98 0.05 0.1 0.02
 * one dab a line: brush name, x, y, z, radius, strength, separated by
 * spaces or tabs; numbers decimal ([+-]digits[.digits][e[+-]digits]).
 * Parse text[0..len) into e, replacing its dabs (and what redo could
 * bring back) only on success.  Errors: STRATA_ERR_FORMAT with *err (when
 * not NULL) naming the line and field; STRATA_ERR_TOO_LARGE past
 * STRATA_EDITS_MAX dabs; STRATA_ERR_NOMEM; STRATA_ERR_INVALID_ARG for
 * NULL arguments. */
STRATA_API strata_status strata_edits_parse(strata_edits *e, const char *text, size_t len,
                                            strata_edits_error *err);
/* Read a log file (a regular file of at most STRATA_EDITS_FILE_MAX
 * bytes) and parse it: errors of strata_edits_parse, STRATA_ERR_IO
 * (errno kept), STRATA_ERR_TOO_LARGE. */
STRATA_API strata_status strata_edits_load(strata_edits *e, const char *path,
                                           strata_edits_error *err);
/* Write the dabs in effect to path in the format above (numbers with 9
 * significant digits: read back, the same floats), atomically (a
 * temporary file renamed over path).  STRATA_ERR_IO (errno kept). */
STRATA_API strata_status strata_edits_save(strata_ctx *ctx, const strata_edits *e,
                                           const char *path);

/* Apply the dabs in effect to a displaced mesh (a FLAT terrain, or a
 * RADIAL planet about the origin, else STRATA_ERR_INVALID_ARG): noise and
 * curve those it was displaced with (smooth reads them; NULL: none), the
 * planes levels[0..nlevels) (terrace reads them).  Vertices whose height
 * changes move to it (FLAT: y = h; RADIAL along their direction), the
 * others keep their bits.  STRATA_ERR_NOMEM. */
STRATA_API strata_status strata_mesh_apply_edits(strata_ctx *ctx, strata_mesh *m,
                                                 const strata_edits *e,
                                                 const strata_fbm *noise,
                                                 const strata_curve *curve,
                                                 const float *levels, uint32_t nlevels);

/* ------------------------------------------------------------------ */
/* Worlds                                                              */
/* ------------------------------------------------------------------ */

/* A world is a planet or a terrain made chunk by chunk, so its size is
 * bounded by disk, not memory (docs/DESIGN.md, "Worlds").
 *
 *  - PLANET: the icosphere of level L cut into 20 * 4^C chunks (chunk
 *    level C < L): chunk t is triangle t of the level-C icosphere with its
 *    4^(L-C) level-L descendants.  Noise as strata_displace_radial.
 *  - TERRAIN: a grid cut into tiles of tile_cells x tile_cells cells (the
 *    last row and column narrower), tile id = tz * tiles_x + tx: the grid
 *    of a heightmap (strata_mesh_from_heightmap), of a template
 *    (strata_mesh_from_template) or a flat grid, plus noise as
 *    strata_displace_flat.
 *
 * A chunk depends only on the world and its id.  Its vertices have the
 * same bits as the same vertices of the whole surface made in memory (the
 * same shape, strata_mesh_subdivide's midpoints, the same noise) and it is
 * sliced with the world's planes, looking at the triangles around it for
 * the slicer's decisions across its border (heights exactly on a plane),
 * so the union of all chunks is, triangle for triangle, the whole surface
 * sliced in memory, and chunks meet along their borders with the same
 * bits, without stitching.
 *
 * Thread safety: a world is read-only once created (except
 * strata_world_set_height_fn), so any number of threads may make chunks of
 * it at once, each with its own context and result. */
typedef struct strata_world strata_world;

typedef enum strata_world_kind {
    STRATA_WORLD_PLANET = 0,
    STRATA_WORLD_TERRAIN = 1
} strata_world_kind;

typedef struct strata_world_options {
    strata_world_kind kind;
    /* PLANET */
    int level;         /* icosphere level L, 1..13 */
    int chunk_level;   /* C, 0..L-1 */
    float radius;      /* base radius, > 0 */
    /* TERRAIN */
    const strata_heightmap *heightmap; /* NULL: a flat grid of cells_x x
                                          cells_z; must outlive the world.
                                          An opened one (strata_heightmap_open)
                                          is read a window per chunk, the
                                          same bits as decoded whole */
    uint32_t patch_cells; /* 0: one grid vertex per sample; > 0: the
                             heightmap is a template */
    uint32_t cells_x, cells_z; /* a flat grid's size (no heightmap) */
    float cell_size;           /* > 0 */
    float height_scale;        /* samples times this (finite) */
    uint32_t tile_cells;       /* tile side in cells, >= 1 */
    /* Heights (both kinds) */
    const strata_fbm *noise;   /* NULL: none; copied */
    const strata_curve *curve; /* reshapes the noise; must outlive the world */
    /* Planes: explicit ascending heights (copied), or else `terraces`
     * planes spread over the world's height range as
     * strata_levels_range does, along terrace_curve (NULL: evenly; must
     * outlive the call).  The range is measured when the world is created,
     * by a pass over every vertex (noise included: about a third of the
     * time of making all chunks; progress stage "range"). */
    const float *levels;
    uint32_t nlevels;
    uint32_t terraces;
    const strata_curve *terrace_curve;
    /* sea: a plane at exactly sea_level among them, added where they lack
     * it (terraces may then be 0).  The planes are those
     * strata_terraces_heights makes of these six fields (a strata_terraces
     * spelled out), over the world's height range: the planes of the
     * whole mesh of the same options. */
    int sea;
    float sea_level;
    /* Slicing */
    strata_walls walls;
    int normals;
    /* Levels of detail (chunked planets and terrains): 0, only the chunks
     * (the leaves of the chunk tree); 1, also one tile for every inner
     * node of the chunk tree (planets: the level-k icosphere triangles,
     * k < C, under the 20 base faces; terrains: the quadtree over the
     * tiles), holding its region made at a coarser lattice level with a
     * quarter of a leaf's triangles (half a leaf's side; the leaves' own
     * when they cannot be halved), sliced with the same planes.  Their ids
     * follow the leaves' (see strata_world_chunk_info); the leaves keep
     * their ids and, without skirts, their bytes. */
    int lod;
    /* With lod: every tile (leaves too) gets a skirt, a strip of walls
     * hanging from its border (planets: towards the centre) by
     * strata_world_lod_error's skirt depth, facing outwards, so the
     * cracks between tiles of different depths are hidden; none on a
     * terrain's outer border, and with normals the skirt has those of
     * the triangle it hangs from (lit like its roof or wall).  The tile's
     * own vertices and triangles are unchanged; the skirt's vertices come
     * after them and its triangles after the terraces', grouped by the
     * terrace they hang from (in glTF a primitive "skirt_K" per terrace K,
     * in that terrace's roof colour; terrace -1 in PLY). */
    int skirts;
    /* > 0: every tile's roofs simplified by strata_result_simplify_roofs
     * with this error, after slicing and before its skirt (their borders,
     * the tile's border among them, are locked, so tiles still meet bit
     * for bit); part of the fingerprint.  0: off (the default). */
    double simplify_roofs;
    /* Per tile, after the slice, simplification and skirt, through the
     * pipeline's stages (docs/DESIGN.md, "Worlds"): both change every
     * tile's bytes and are part of the fingerprint.
     *   water   the sea at sea_level (needs sea).  Terrains: each
     *           tile's square, the squares of all tiles tiling the grid's
     *           rectangle (a whole mesh has that rectangle as 2
     *           triangles).  Planets: each chunk's part of the icosphere
     *           of level max(water_level, chunk_level + 1) (at most
     *           level) and radius + sea_level, so the chunks' parts are,
     *           bit for bit, the sphere strata_result_add_water gives a
     *           whole mesh with that sphere_level.  With lod, a
     *           coarser depth k has its part of the icosphere of level
     *           max(k + 1, min(the leaves' level, its surface's level)):
     *           the same sphere as the leaves' where that is no finer
     *           than the tile's ground, so depths meet without a gap
     *   props   NULL: none; else copied: scattered on each tile's roofs
     *           with the seed mixed with the chunk id (strata_world_props_seed),
     *           or, with a spacing, with the world's seed itself (the
     *           candidates are fixed in space, so a tile's props are the
     *           whole mesh's on its roofs); either way a prop depends
     *           only on the world and its tile, never on which thread or
     *           process made it; the scales as given.
     *           Written into GLB tiles as instanced nodes; PLY tiles have
     *           none (STRATA_ERR_INVALID_ARG from strata_world_dir_create). */
    int water;
    uint32_t water_level;
    const strata_props_options *props;
    /* > 0: a shoreline this wide (needs sea; 0: none): each tile's piece
     * of the ribbons strata_result_add_shoreline lays along the coasts
     * at sea_level, after its water, from the tile's loops (every depth
     * with lod: a coarser tile's from its own coasts).  Cut where a coast
     * crosses the tile's border; there the tile also reads the coast two
     * points beyond (its mesh's context ring sliced again: one more slice
     * a tile), so the union of the leaves' ribbons is the whole mesh's,
     * position for position (docs/DESIGN.md, "Worlds", says where it
     * may not be).  U is not the whole mesh's: at a border crossing it
     * is a value made from the point alone, so both tiles have the same
     * U there up to a whole number (no jump with a repeating texture),
     * and runs by length over width from it, scaled by at most half a
     * repeat over a piece that crosses twice; pieces that cross no
     * border and closed loops have the whole mesh's U.  Part of the
     * fingerprint. */
    float shoreline;
    /* Per leaf tile (coarser lod tiles have none): the contour loops of
     * the tile's slice as made (strata_loops_from_result; with normals
     * strata_loops_from_mesh), polylines cut where they leave the tile,
     * their points the whole mesh's loops' points bit for bit.
     * strata_world_run writes them beside the tile, tiles/K/NAME.geojson
     * (GeoJSON lines in the frame strata_world_loops_frame gives, before
     * the tile), and strata_world_dir_join_loops links the pieces across
     * tile borders into the whole mesh's loops.  Part of the
     * fingerprint. */
    int loops;
    /* Ambient occlusion (strata_result_bake_ao) baked into every tile,
     * last, with the roofs of the tiles around it within the radius (a
     * halo: those tiles are sliced again for it, up to 8 more slices a
     * tile when the radius is below a tile's side), so the tiles' union
     * has the occlusion of the whole mesh bit for bit.  ao_radius 0:
     * STRATA_AO_RADIUS_PLANES x the planes' mean spacing (at least two
     * planes, else STRATA_ERR_INVALID_ARG).  TERRAIN only, not with lod
     * or simplify_roofs (STRATA_ERR_UNSUPPORTED: a planet's cube map is
     * not windowed per tile yet).  Part of the fingerprint. */
    int ao;
    float ao_radius;
    /* Placing on the Earth: with place, the tileset's root tile gets the
     * transform strata_geo_frame(place_lon, place_lat, place_height,
     * place_scale, place_heading) makes, so the world's origin lies at
     * that WGS84 place, its x east, -z north (the tileset's y; turned by
     * place_heading) and y up (the tileset's z),
     * place_scale metres a unit (the tileset's own geometric error is
     * scaled; the tiles', under the transform, are not: 3D Tiles 1.1
     * clients scale them).  Not part of the fingerprint (the tiles
     * do not change), but written to DIR/world.json and compared like it:
     * a directory holds one placement (STRATA_ERR_CONFLICT). */
    int place;
    double place_lon, place_lat, place_height, place_scale;
    /* the world's -z (the tileset's y) place_heading degrees east of
     * north, -360..360 (strata_geo_frame; 0: north) */
    double place_heading;
    /* TERRAIN, not with lod (STRATA_ERR_UNSUPPORTED; planets:
     * STRATA_ERR_INVALID_ARG): each tile its part of the solid
     * strata_result_solidify makes of the whole mesh, after its
     * simplification: the tile's surface, the side walls on the sides of
     * the tile lying on the world's border, and the tile's rectangle of
     * the flat base, so the tiles' union welded by position is one closed
     * solid (docs/DESIGN.md, "Worlds").  The base lies solid_depth (NAN:
     * STRATA_SOLID_DEPTH x the longest horizontal side of the world)
     * below the lowest terrace's plane, the same in every tile, as the
     * whole mesh's; the height range is measured for it when the planes
     * are explicit.  A tile on the world's border slices the tiles next
     * to it along that border again (at most four) to meet their walls
     * at the tile corners there.  Part of the fingerprint. */
    int solid;
    float solid_depth;
} strata_world_options;

/* Defaults: PLANET, level 6, chunk level 2, radius 1; terrain: no
 * heightmap, cells 0 x 0, cell size 1, height scale 1, tiles of 256
 * cells; no noise, no curve; 16 terraces, no sea level; walls UPPER, no
 * normals; no lod, skirts on (when lod is); no simplification, water or
 * props; not placed (place_scale 1); no solid (solid_depth NAN). */
STRATA_API void strata_world_defaults(strata_world_options *opt);

/* Geodesy on the WGS84 ellipsoid (a = 6378137 m, 1/f = 298.257223563;
 * core/world/geo.c).  Longitude and latitude in degrees, -180..180 and
 * -90..90, height in metres above the ellipsoid, at most
 * STRATA_GEO_HEIGHT_MAX in size; else STRATA_ERR_INVALID_ARG. */
#define STRATA_GEO_HEIGHT_MAX 1e7
#define STRATA_GEO_SCALE_MAX 1e9
/* The place's Earth-centred, Earth-fixed coordinates (metres). */
STRATA_API strata_status strata_geo_ecef(double lon, double lat, double height, double ecef[3]);
/* The east-north-up frame at the place, as a 3D Tiles transform: a 4x4
 * matrix in column-major order, its columns east, north and up (unit
 * vectors of ECEF, times scale, 0 < scale <= STRATA_GEO_SCALE_MAX) and
 * the place's ECEF position. */
STRATA_API strata_status strata_geo_enu(double lon, double lat, double height, double scale,
                                        double m[16]);
/* strata_geo_enu with the frame turned clockwise (seen from above) about
 * up by heading degrees, -360..360: its x axis cos h east - sin h north,
 * its y axis sin h east + cos h north, so y points heading degrees east
 * of north (a raster's grid north, strata_heightmap_place).  heading 0
 * gives strata_geo_enu's matrix bit for bit. */
STRATA_API strata_status strata_geo_frame(double lon, double lat, double height, double scale,
                                          double heading, double m[16]);

/* The seed chunk id's props are scattered with when they have no
 * spacing: `seed` mixed with the id by a 64-bit hash, so that
 * neighbouring tiles do not repeat each other's pattern. */
STRATA_API uint32_t strata_world_props_seed(uint32_t seed, uint64_t id);

/* Create a world (measuring its height range when the planes are asked
 * for by count).  Errors: STRATA_ERR_INVALID_ARG (a value outside the
 * ranges above, also a noise bound at or above the planet's radius),
 * STRATA_ERR_BAD_LEVELS, STRATA_ERR_OVERFLOW (a chunk or the grid too
 * large for uint32 counts), STRATA_ERR_NOT_FINITE, STRATA_ERR_NOMEM,
 * STRATA_ERR_CANCELLED.  The range pass uses ctx's threads, one chunk
 * each. */
STRATA_API strata_status strata_world_create(strata_ctx *ctx,
                                             const strata_world_options *opt,
                                             strata_world **out);
STRATA_API void strata_world_destroy(strata_world *w);

/* Chunks (tiles) to make: the leaves, and with lod the inner nodes' tiles. */
STRATA_API uint64_t strata_world_chunk_count(const strata_world *w);

/* The lowest and highest height of the own vertices of chunks
 * ids[0..n), noise and edits included (each chunk measured once, with
 * ctx's threads; progress stage "range").  Over all chunks this is the
 * range strata_world_create spreads `terraces` planes over: processes
 * sharing a world can each measure a part, combine the minima and
 * maxima, and create the world on strata_levels_range of the result.
 * No chunk: +INFINITY, -INFINITY.  STRATA_ERR_INVALID_ARG for an id out
 * of range, errors of the noise. */
STRATA_API strata_status strata_world_height_range(strata_ctx *ctx, const strata_world *w,
                                                   const uint64_t *ids, uint64_t n,
                                                   float *hmin, float *hmax);
/* The world's planes (n of them), valid while the world lives. */
STRATA_API const float *strata_world_levels(const strata_world *w, uint32_t *n);
/* A 64-bit fingerprint of everything a chunk's bytes depend on (the
 * options, the planes, the heightmap's samples): two worlds with the same
 * fingerprint make the same chunks. */
STRATA_API uint64_t strata_world_fingerprint(const strata_world *w);

/* Shard k of n (0 <= k < n): a fixed partition of the chunk ids balanced
 * by expected work, the same in every process: chunks ordered by their
 * input triangles (largest first, then by id) go one by one to the shard
 * with the fewest triangles so far (the lowest-numbered on ties); a
 * planet's chunks are all alike, so shard k gets ids k, k + n, k + 2n...
 * ids gets the shard's ids in ascending order (at most cap), *count their
 * number.  Memory for n shards only; time: the chunks walked once for
 * each tile size (a few per depth), 67 million tiles in seconds.
 * STRATA_ERR_INVALID_ARG for k >= n or n == 0, STRATA_ERR_NOMEM. */
STRATA_API strata_status strata_world_shard(const strata_world *w, uint64_t k, uint64_t n,
                                            uint64_t *ids, uint64_t cap, uint64_t *count);

typedef struct strata_chunk_info {
    uint64_t id;
    uint32_t vertices;  /* of the chunk's input mesh (before slicing) */
    uint32_t triangles;
    /* PLANET: the level-C icosphere triangle (== id) and its base face;
     * TERRAIN: the tile's column and row and its cells [x0, x1) x [z0, z1). */
    uint32_t face, tx, tz, x0, x1, z0, z1;
    /* Its place in a world directory, without extension:
     * "tiles/K/ID" (planets) or "tiles/K/TX_TZ" (terrains), K its depth. */
    char path[48];
    /* Its depth in the chunk tree: the leaves (the chunks) are at depth C
     * (planets) or D (terrains: 2^D >= tiles across and down); with lod,
     * the tiles of the inner nodes at depth k < C (D) follow the leaves'
     * ids, depth by depth from the root down, each depth in the order of
     * its nodes (planets: triangle `face` of the level-k icosphere;
     * terrains: row tz, column tx of the depth-k grid of 2^(D-k) x
     * 2^(D-k) tiles, the region cells [x0, x1) x [z0, z1)). */
    uint32_t depth;
} strata_chunk_info;

/* STRATA_ERR_INVALID_ARG for an id >= strata_world_chunk_count. */
STRATA_API strata_status strata_world_chunk_info(const strata_world *w, uint64_t id,
                                                 strata_chunk_info *out);

/* Levels of detail: the number of leaves (the chunks without lod) and
 * the depth of the leaves (C, or D for terrains). */
STRATA_API uint64_t strata_world_leaf_count(const strata_world *w);
STRATA_API uint32_t strata_world_leaf_depth(const strata_world *w);

/* The geometric error of the tiles at depth k (0 <= k <= leaf depth) of a
 * lod world, and the depth of their skirts; STRATA_ERR_INVALID_ARG for a
 * world without lod or k out of range.  The error estimates the
 * largest distance from a tile's surface to the leaves' surface over its
 * region (0 at the leaves, strictly decreasing with depth), computed
 * from the world's parameters, so that every process finds the same:
 *   E_k = V_k + G (+ S_k + S_leaf on planets),
 * G the largest gap between consecutive planes (terracing heights that
 * differ by v gives planes that differ by at most v + G), V_k how far the
 * tile's linearly interpolated heights lie from the leaves' (the base
 * heights' slope times the diameter of the tile's triangles, plus the
 * noise's deviation from its linear interpolation over that diameter and
 * over the leaves' one: measured at the midpoints of 4096 segments of
 * that length spread over the world, times 1.5, at most the noise's whole
 * swing, times the height curve's steepest slope), S the sag of flat
 * triangles below the sphere, and V_k + G at most the span of the planes
 * (terraced heights lie between the lowest and the highest).  The noise
 * part is an estimate, not a bound: the strict bound (the noise's
 * steepest slope times the diameter) is 5 to 15 times larger than what
 * the noise does, and a viewer would refine every tile at once.  Each
 * depth's error is raised to at least 1.0625 times the next one's (so it
 * strictly decreases).  Height edits (strata_world_set_height_fn) are not
 * in the estimate.  *skirt = E_(k-1) + E_k (the roots E_0 + E_1, the
 * leaves E_(leaf-1)): deep enough to hide the crack to a neighbour one
 * depth coarser or finer, what a viewer refining by screen-space error
 * draws side by side (planets: at most half the way to the centre). */
STRATA_API strata_status strata_world_lod_error(const strata_world *w, uint32_t k, double *error,
                                                double *skirt);

/* Make chunk `id` into r, a result from strata_result_create or an
 * earlier call: r's buffers are reused when they are big enough (and
 * ctx keeps the chunk's working memory), so a thread that makes chunk
 * after chunk allocates once and touches warm memory.  On failure r is
 * left empty.  ctx's threads work inside the chunk (use contexts of one
 * thread each when threads take whole chunks).  Errors as
 * strata_slice, STRATA_ERR_INVALID_ARG for a bad id. */
STRATA_API strata_status strata_world_make_chunk(strata_ctx *ctx, const strata_world *w,
                                                 uint64_t id, strata_result *r);
/* strata_world_make_chunk and, for a world with props, *props the chunk's
 * props (NULL without; owned by the caller), as strata_world_run writes
 * them into its tile.  STRATA_ERR_INVALID_ARG for a NULL props. */
STRATA_API strata_status strata_world_make_chunk_props(strata_ctx *ctx, const strata_world *w,
                                                       uint64_t id, strata_result *r,
                                                       strata_props **props);
/* strata_world_make_chunk and, for a leaf of a world with loops, *loops
 * the chunk's loops (NULL otherwise; owned by the caller), as
 * strata_world_run writes them beside its tile.  STRATA_ERR_INVALID_ARG
 * for a NULL loops; errors of strata_loops_from_result. */
STRATA_API strata_status strata_world_make_chunk_loops(strata_ctx *ctx, const strata_world *w,
                                                       uint64_t id, strata_result *r,
                                                       strata_loops **loops);
/* strata_loops_write_defaults with the map frame of the whole mesh of w's
 * options (the one strata terrain --loops uses): a terrain from a
 * heightmap X = column x cell size, Y = (rows - 1 - row) x cell size;
 * other terrains X = x, Y = -z; planets longitude and latitude. */
STRATA_API void strata_world_loops_frame(const strata_world *w, strata_loops_write_options *o);

/* Chunks to re-make after the heights changed within `radius` of `center`
 * (interactive editing): those whose vertices or context could lie
 * within that distance (planets: measured along the sphere's directions,
 * at any height).  *count gets their number, ids the first `cap` of them
 * in ascending order.  STRATA_ERR_INVALID_ARG for a negative or
 * non-finite radius or a NULL count. */
STRATA_API strata_status strata_world_chunks_near(const strata_world *w, const float center[3],
                                                  float radius, uint64_t *ids, uint64_t cap,
                                                  uint64_t *count);

/* Edits on top of the world's heights: for every chunk made after this
 * call, fn is called (from the making thread) with the chunk's vertices,
 * its context included, after the noise: x, y, z their positions, h their
 * heights, to be changed in place.  Each vertex then moves to its new
 * height (planets: along its direction from the centre; terrains:
 * y = h).  fn must depend on the positions alone, so chunks agree on the
 * vertices they share.  The planes stay those of the world's creation.
 * NULL removes it.  Not to be called while chunks are being made. */
typedef void (*strata_height_fn)(void *user, const float *x, const float *y, const float *z,
                                 float *h, size_t n);
STRATA_API void strata_world_set_height_fn(strata_world *w, strata_height_fn fn, void *user);

/* strata_world_set_height_fn with the dabs of e in effect at the time a
 * chunk is made (the world's noise, curve and planes read by smooth and
 * terrace): the chunks' union is the whole mesh of the same options
 * with strata_mesh_apply_edits.  e must outlive its use and not change
 * while chunks are made; NULL removes the edits.  The chunks a dab
 * changes are among strata_world_chunks_near(its centre, its radius). */
STRATA_API void strata_world_set_edits(strata_world *w, const strata_edits *e);

/* What a world directory knows of each tile in it, for its tileset. */
typedef struct strata_tile_record {
    uint64_t id;
    uint64_t triangles; /* in the tile */
    uint64_t bytes;     /* of its file */
    /* A 3D Tiles bounding box holding the tile: centre, then three
     * half-axes, in the tileset's frame, which has z up where glTF has y
     * up: glTF's (x, y, z) is the tileset's (x, -z, y). */
    double box[12];
} strata_tile_record;

/* World directories: what `strata planet --chunk-level C -o DIR` writes.
 *
 *   DIR/world.json     the manifest: the world's fingerprint, kind, chunk
 *                      count, tile format and parameters (with lod also
 *                      "lod": leaves, skirts and the errors per depth)
 *   DIR/tiles/...      one file per chunk, at strata_chunk_info.path plus
 *                      ".glb" or ".ply", holding its record
 *                      (strata_tile_record: fingerprint, chunk id,
 *                      triangles, box; and the file's size "bytes" and
 *                      CRC-32C "crc32c", taken with its own 8 hex digits
 *                      read as '0') in the glTF's extras.strata or in a
 *                      PLY comment "strata {...}"
 *   DIR/world.lock     locked by a run writing tiles (strata_world_dir_lock)
 *   DIR/tileset.json   a 3D Tiles 1.1 tileset of the tiles (and
 *                      DIR/tilesets/... for subtrees of big worlds);
 *                      glb tiles only (no 3D Tiles client loads PLY)
 *
 * Every file is written to a temporary name and renamed when complete, so
 * a tile is either whole or absent (stale temporaries of a killed run are
 * left alone: another process may still be writing them; they end in
 * ".tmpXXXXXX").  Tile bytes depend only on the world and the chunk id.
 * Any number of processes may write tiles of the same world into one
 * directory at once (distinct chunks). */
typedef struct strata_world_dir strata_world_dir;

/* Open DIR (created if needed) for w's tiles in `format`
 * (STRATA_FORMAT_GLB or STRATA_FORMAT_PLY): writes world.json, or checks
 * the one there.  Errors: STRATA_ERR_CONFLICT when DIR holds another world
 * (another fingerprint or tile format), STRATA_ERR_FORMAT when world.json
 * is not a world manifest, STRATA_ERR_IO (errno kept: DIR not a directory,
 * not writable), STRATA_ERR_INVALID_ARG (another format). */
STRATA_API strata_status strata_world_dir_create(strata_ctx *ctx, const strata_world *w,
                                                 const char *path, strata_format format,
                                                 strata_world_dir **out);
/* Open DIR as an earlier run left it, to read its tiles' records and write
 * its tileset without the world.  Errors as strata_world_dir_create. */
STRATA_API strata_status strata_world_dir_open(strata_ctx *ctx, const char *path,
                                               strata_world_dir **out);
STRATA_API void strata_world_dir_close(strata_world_dir *d);
/* Tiles written from now on are compressed (on != 0: GLB with
 * EXT_meshopt_compression, see "glTF") or not (the default).  Not
 * recorded in world.json: a directory may hold both kinds, and a resumed
 * run keeps the tiles already there.  STRATA_ERR_INVALID_ARG for a PLY
 * directory, STRATA_ERR_UNSUPPORTED without meshoptimizer. */
STRATA_API strata_status strata_world_dir_set_compress(strata_world_dir *d, int on);
STRATA_API uint64_t strata_world_dir_chunk_count(const strata_world_dir *d);
/* "tiles/.../ID.glb": the tile's path relative to DIR. */
STRATA_API strata_status strata_world_dir_tile_path(const strata_world_dir *d, uint64_t id,
                                                    char *buf, size_t len);

/* Write chunk id's tile from r (strata_world_make_chunk of the world d was
 * created for), with the palette's colours (NULL: "earth"); *rec gets its
 * record.  Errors as strata_result_write, STRATA_ERR_INVALID_ARG for a
 * directory opened without a world or a bad id. */
STRATA_API strata_status strata_world_dir_write_tile(strata_ctx *ctx, strata_world_dir *d,
                                                     const strata_world *w, uint64_t id,
                                                     const strata_result *r,
                                                     const strata_palette *pal,
                                                     strata_tile_record *rec);
/* Read back the record of chunk id's tile.  STRATA_ERR_IO with errno
 * ENOENT when there is none, STRATA_ERR_FORMAT when the file is not a
 * whole tile (its size is not the one its record gives, an unreadable
 * record, or one without size and checksum, which tiles written before
 * they were recorded lack), STRATA_ERR_CONFLICT when it is one of another world or chunk. */
STRATA_API strata_status strata_world_dir_read_tile(strata_ctx *ctx, strata_world_dir *d,
                                                    uint64_t id, strata_tile_record *rec);
/* strata_world_dir_read_tile, and the whole file read to check its CRC-32C
 * (STRATA_ERR_FORMAT when it differs: bytes changed).  SSE4.2's CRC32
 * instruction where the CPU has it and ctx is not forced to scalar.  In
 * a world with loops, also STRATA_ERR_IO (errno ENOENT) for a leaf whose
 * loops file is missing, so that a resumed run makes it again. */
STRATA_API strata_status strata_world_dir_check_tile(strata_ctx *ctx, strata_world_dir *d,
                                                     uint64_t id, strata_tile_record *rec);
/* Lock DIR for a run: exclusive (a whole world made by one process) or
 * shared (shards and MPI ranks of one world, `strata tileset`).  A POSIX
 * record lock on DIR/world.lock (made when missing), not waited for,
 * held until strata_world_dir_close.  STRATA_ERR_CONFLICT when another
 * process holds a lock that excludes it, *holder (when not NULL) getting
 * that process's id (0 when unknown); STRATA_ERR_IO (errno) when the
 * lock file cannot be opened. */
STRATA_API strata_status strata_world_dir_lock(strata_world_dir *d, int exclusive, long *holder);
/* Remove the temporary tile files a killed run left in DIR/tiles (names
 * ending in ".tmp" and six characters, not locked by a live writer: the
 * temporaries of another process still writing tiles into DIR stay);
 * *removed gets their number.  `strata tileset` and a whole-world run
 * call it just before writing the tileset.  STRATA_ERR_IO
 * (errno kept) when a directory cannot be read or a file removed. */
STRATA_API strata_status strata_world_dir_clean(strata_ctx *ctx, strata_world_dir *d,
                                                uint64_t *removed);
/* The loops of a world made with strata_world_options.loops, joined:
 * the pieces its leaf tiles wrote beside them, each linked to the one
 * that starts on the point where it ends (same elev, same X and Y bits),
 * written to path as one GeoJSON FeatureCollection of LineStrings with an
 * elev each (a closed loop ends on its first point).  The joined lines
 * are the whole mesh's loops, point for point: a closed loop may start
 * elsewhere, and a planet's line cut at the antimeridian is written as
 * its parts, one feature each.  Lines in order: those with an end (on
 * the world's border, or at the antimeridian) by their first piece's
 * tile, then the closed ones.  Progress stages "loops" (reading) and
 * "write"; the file is written as strata_loops_write writes.  Errors:
 * STRATA_ERR_INVALID_ARG (a world without loops), STRATA_ERR_IO (a
 * tile's loops missing or unreadable: *failed_chunk, when not NULL, names
 * it), STRATA_ERR_FORMAT (a tile's file not loops as written),
 * STRATA_ERR_NOMEM, STRATA_ERR_CANCELLED. */
STRATA_API strata_status strata_world_dir_join_loops(strata_ctx *ctx, strata_world_dir *d,
                                                     const char *path, uint64_t *failed_chunk);
/* Write DIR/tileset.json for the tiles recs[0..n) (ids ascending, each
 * once: all of them, or those present for a partial tileset).
 * STRATA_ERR_UNSUPPORTED, writing nothing, for a world of PLY tiles: 3D
 * Tiles content is glTF, and no 3D Tiles client loads PLY. */
STRATA_API strata_status strata_world_dir_write_tileset(strata_ctx *ctx, strata_world_dir *d,
                                                        const strata_tile_record *recs,
                                                        uint64_t n);

/* Make chunks of a world into a directory with all of ctx's threads, each
 * thread taking whole chunks (its own one-thread context and result,
 * reused chunk after chunk, so memory stays warm and bounded by chunk size
 * times threads).  Which chunks: ids[0..nids) in that order, or, with ids
 * NULL, those next() hands out (UINT64_MAX: no more), for dynamic load
 * balancing across processes (next is called by one thread at a time).
 * With resume, a chunk whose tile is already complete (its record reads
 * back, strata_world_dir_check_tile: its size and checksum too) is
 * skipped; a corrupt one (cut short, bytes changed) is made again; a tile
 * of another world stops the run with STRATA_ERR_CONFLICT (its id in
 * *stats). done
 * (optional, one thread at a time) is told of every chunk made or
 * skipped.  Progress stage "chunks" (share of ids, or of chunks handed out
 * by next), reported from the calling thread; cancel stops after the
 * chunks under way.  Errors: those of strata_world_make_chunk and
 * strata_world_dir_write_tile (the first one met; *stats says which
 * chunk). */
typedef struct strata_world_run_options {
    strata_world_dir *dir;
    const strata_palette *palette; /* NULL: "earth" */
    int resume;
    const uint64_t *ids;
    uint64_t nids;
    uint64_t (*next)(void *user);
    void *next_user;
    void (*done)(void *user, const strata_tile_record *rec, int skipped);
    void *done_user;
    /* NULL, or a canvas every chunk made is drawn into (chunks skipped by
     * resume are not): a preview of the whole world in bounded memory. */
    strata_preview_canvas *preview;
} strata_world_run_options;

typedef struct strata_world_run_stats {
    uint64_t made, skipped;
    uint64_t triangles, bytes;  /* of the tiles made */
    /* seconds summed over chunks and threads: lattice (and ring), noise
     * (and edits), slice, write */
    double seconds_lattice, seconds_noise, seconds_slice, seconds_write;
    uint64_t failed_chunk; /* the chunk of the error, UINT64_MAX if none */
} strata_world_run_stats;

STRATA_API void strata_world_run_defaults(strata_world_run_options *opt);
/* The frame a preview canvas of the whole of w is fitted to (see
 * "Canvases"): planets the sphere about the centre whose radius is the
 * base radius plus the highest plane; terrains the grid's extent with
 * heights from the lowest plane to the highest.  STRATA_ERR_INVALID_ARG
 * for NULL arguments. */
STRATA_API strata_status strata_world_preview_frame(const strata_world *w,
                                                    strata_preview_frame *f);
STRATA_API strata_status strata_world_run(strata_ctx *ctx, const strata_world *w,
                                          const strata_world_run_options *opt,
                                          strata_world_run_stats *stats);

/* ------------------------------------------------------------------ */
/* Instruction sets                                                    */
/* ------------------------------------------------------------------ */

/* The hot kernels (fBm batches, radial displacement, the slicer's level
 * classification, band tests, roof placement and edge spans) exist once
 * per instruction set.  Every kernel gives the same bytes as the scalar
 * reference, so the choice changes speed only, never output.  A context
 * picks its instruction set when it is created, unless the environment
 * variable STRATA_SIMD names one (auto, scalar, avx2, avx512, neon): a
 * forced ISA runs all its kernels.  An ISA the CPU or build lacks makes
 * strata_ctx_create fail with STRATA_ERR_ISA, an unknown name with
 * STRATA_ERR_INVALID_ARG.
 *
 * The automatic choice is NEON on AArch64 and AVX2 on x86-64, except on
 * the processors where AVX-512 was measured to be faster: there each
 * kernel whose AVX-512 version was faster on that processor uses it, the
 * others keep AVX2, and strata_ctx_isa() reports avx512.  Today that is
 * AMD family 1Ah models 00h-0Fh (Zen 5 EPYC, full-width 512-bit units),
 * and Intel family 06h model CFh (Xeon Emerald Rapids), where every
 * AVX-512 kernel pays.  Elsewhere AVX2 stays the default for
 * want of a measurement: Zen 4 runs 512-bit operations on 256-bit units
 * and some Intel cores lower their clock for them; on those, measure with
 * `perf/strata-bench --stage kernels` and force avx512 where it wins.
 * strata_ctx_isa_reason() says which rule applied (`strata info` prints
 * it). */
typedef enum strata_isa {
    STRATA_ISA_AUTO = -1,  /* strata_ctx_set_isa: the default choice    */
    STRATA_ISA_SCALAR = 0, /* portable C: the reference                 */
    STRATA_ISA_AVX2 = 1,   /* x86-64 AVX2, 8 lanes (no FMA used)         */
    STRATA_ISA_AVX512 = 2, /* x86-64 AVX-512F, 16 lanes                  */
    STRATA_ISA_NEON = 3,   /* AArch64 Advanced SIMD, 4 lanes             */
    STRATA_ISA_COUNT_
} strata_isa;

/* Bit of an ISA in the mask of strata_cpu_isas(). */
#define STRATA_ISA_BIT(isa) (1u << (unsigned)(isa))

/* Instruction sets usable here: kernels built into this library AND
 * supported by the CPU and the operating system (AVX state saved by the
 * OS).  STRATA_ISA_BIT(STRATA_ISA_SCALAR) is always set. */
STRATA_API unsigned strata_cpu_isas(void);

/* The instruction set ctx's kernels use (never STRATA_ISA_AUTO); with the
 * automatic choice on an AVX-512 processor some kernels may be AVX2 ones
 * (see above). */
STRATA_API strata_isa strata_ctx_isa(const strata_ctx *ctx);

/* Why ctx uses its instruction set, one line starting with the ISA's name,
 * e.g. "avx512: AuthenticAMD family 1Ah model 02h (Zen 5, full-width
 * AVX-512 units)", "avx2: AVX-512 not measured to pay on GenuineIntel
 * family 06h model 8Fh (STRATA_SIMD=avx512 forces it)", "avx2: forced by
 * STRATA_SIMD".  Owned by ctx, valid until its ISA changes or it is
 * destroyed; "" for a NULL ctx.  Never NULL. */
STRATA_API const char *strata_ctx_isa_reason(const strata_ctx *ctx);

/* Force ctx onto an instruction set; STRATA_ISA_AUTO restores the default
 * choice (ignoring STRATA_SIMD).  STRATA_ERR_ISA when the CPU or build
 * lacks it (ctx unchanged), STRATA_ERR_INVALID_ARG for a value outside the
 * enum. */
STRATA_API strata_status strata_ctx_set_isa(strata_ctx *ctx, strata_isa isa);

/* Lower-case name: "auto", "scalar", "avx2", "avx512", "neon"; "unknown"
 * for other values.  Never NULL. */
STRATA_API const char *strata_isa_name(strata_isa isa);

/* The inverse of strata_isa_name (exact, lower case; "auto" included):
 * STRATA_OK or STRATA_ERR_INVALID_ARG for an unknown name. */
STRATA_API strata_status strata_isa_from_name(const char *name,
                                              strata_isa *out);

#ifdef __cplusplus
}
#endif

#endif /* STRATA_H */
