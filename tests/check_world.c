/* Suite "world": worlds made chunk by chunk (strata.h, "Worlds").
 *
 *  - The union of every chunk's triangles is the whole surface sliced in
 *    memory, triangle for triangle: corner position bits (up to rotation),
 *    terrace and roof/wall; planets with noise, terrains from heightmaps
 *    with heights exactly on planes (fins and saddles on tile borders) and
 *    from templates, many chunk and tile sizes.
 *  - Seams: welded by exact position, a planet's chunks close up (every
 *    edge used twice, in opposite directions) and a terrain's tiles leave
 *    open edges only on the domain's border.
 *  - Heights within an ulp or three of a plane on and next to chunk
 *    borders (the slicer snaps them onto it, looking at every edge around
 *    them): terrains from float heightmaps (fins whose third corner only
 *    snaps by an edge in its own tile), random ones, planets with planes
 *    near border vertices' heights and a fin made by heights alone; the
 *    union is the whole surface sliced (or the same at other chunk
 *    levels) and welds watertight.
 *  - A chunk is the same made alone or after others, with 1 or 2 threads,
 *    on every instruction set.
 *  - World directories: records read back as written, tile files and
 *    tilesets the same for any thread count and order, resume skips
 *    complete tiles, corrupt or foreign tiles and manifests are refused.
 *  - Shards partition the chunks; chunks_near covers every chunk a ball
 *    reaches; edits re-made on the chunks near them equal a whole re-make.
 *  - Water, props and shorelines per tile against the whole mesh's.
 */
#define _POSIX_C_SOURCE 200809L

#include "poscheck.h"
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------ triangles */

/* A triangle as bits: corners rotated so the smallest comes first (the
 * winding is kept), its terrace and whether it is a wall. */
typedef struct {
    uint32_t w[9];
    uint32_t terrace, wall;
} tri_key;

static int cmp_key(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(tri_key));
}

typedef struct {
    tri_key *k;
    size_t n, cap;
} key_list;

/* The triangles of indices [first, first + count) of v, as keys of that
 * terrace and kind. */
static void keys_add_range(key_list *l, const strata_result_view *v, uint64_t first,
                           uint64_t count, uint32_t terrace, uint32_t wall)
{
    for (uint64_t i = first; i < first + count; i += 3) {
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 4096;
            l->k = realloc(l->k, l->cap * sizeof *l->k);
            ck_assert_ptr_nonnull(l->k);
        }
        tri_key *k = &l->k[l->n++];
        uint32_t c[3][3];
        for (int j = 0; j < 3; j++) {
            const uint32_t id = v->indices[i + j];
            memcpy(&c[j][0], &v->x[id], 4);
            memcpy(&c[j][1], &v->y[id], 4);
            memcpy(&c[j][2], &v->z[id], 4);
        }
        int first_corner = 0;
        for (int j = 1; j < 3; j++)
            if (memcmp(c[j], c[first_corner], sizeof c[j]) < 0)
                first_corner = j;
        for (int j = 0; j < 3; j++)
            memcpy(&k->w[3 * j], c[(first_corner + j) % 3], sizeof c[0]);
        k->terrace = terrace;
        k->wall = wall;
    }
}

static void keys_add_result(key_list *l, const strata_result *r)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    for (uint32_t t = 0; t < v.nterraces; t++) {
        const strata_terrace *tr = &v.terraces[t];
        keys_add_range(l, &v, tr->roof_first, tr->roof_count, t, 0);
        keys_add_range(l, &v, tr->wall_first, tr->wall_count, t, 1);
    }
}

/* The water's triangles of r (terrace UINT32_MAX, kind 2). */
static void keys_add_water(key_list *l, const strata_result *r)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    keys_add_range(l, &v, v.water_first, v.water_count, UINT32_MAX, 2);
}

static void keys_equal(key_list *a, key_list *b, const char *what)
{
    qsort(a->k, a->n, sizeof *a->k, cmp_key);
    qsort(b->k, b->n, sizeof *b->k, cmp_key);
    ck_assert_msg(a->n == b->n, "%s: %zu triangles, want %zu", what, b->n, a->n);
    for (size_t i = 0; i < a->n; i++)
        require(!memcmp(&a->k[i], &b->k[i], sizeof a->k[i]), "%s: triangle %zu differs", what,
                i);
}

/* ------------------------------------------------------------ worlds */

static const strata_fbm *planet_noise(void)
{
    static strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 1.5f;
    f.amplitude = 0.1f;
    f.seed = 7;
    return &f;
}

/* A w x h PGM with integer heights (multiples of 20 on integer planes:
 * nearly every vertex lies exactly on a plane). */
static strata_heightmap *integer_heightmap_as(strata_ctx *ctx, uint32_t w, uint32_t h,
                                              int opened);
static strata_heightmap *integer_heightmap(strata_ctx *ctx, uint32_t w, uint32_t h)
{
    return integer_heightmap_as(ctx, w, h, 0);
}

/* The same heightmap decoded (opened 0) or opened from a file, its
 * samples left there (opened 1). */
static strata_heightmap *integer_heightmap_as(strata_ctx *ctx, uint32_t w, uint32_t h,
                                              int opened)
{
    char head[32];
    const int n = snprintf(head, sizeof head, "P5\n%u %u\n255\n", w, h);
    unsigned char *buf = malloc((size_t)n + (size_t)w * h);
    ck_assert_ptr_nonnull(buf);
    memcpy(buf, head, (size_t)n);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++)
            buf[n + y * w + x] = (unsigned char)((((x * 7 + y * 3) / 5) % 9) * 20);
    strata_heightmap *hm;
    if (opened) {
        char path[] = "/tmp/strata-world-hm-XXXXXX";
        const int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, buf, (size_t)n + (size_t)w * h), (ssize_t)n + (ssize_t)w * h);
        ck_assert_ok(strata_heightmap_open(ctx, path, &hm));
        ck_assert_int_eq(close(fd), 0);
        ck_assert_int_eq(unlink(path), 0); /* an open file outlives its name */
        ck_assert_ptr_null(strata_heightmap_data(hm));
    } else {
        ck_assert_ok(strata_heightmap_decode(ctx, buf, (size_t)n + (size_t)w * h, &hm));
    }
    free(buf);
    return hm;
}

static const float integer_planes[] = {20, 40, 60, 80, 100, 120, 140};

/* All chunks of w into keys, with contexts of `threads` threads. */
static void world_keys(strata_ctx *ctx, const strata_world *w, key_list *l)
{
    strata_result *r;
    ck_assert_ok(strata_result_create(ctx, &r));
    for (uint64_t id = 0; id < strata_world_chunk_count(w); id++) {
        ck_assert_ok(strata_world_make_chunk(ctx, w, id, r));
        keys_add_result(l, r);
    }
    strata_result_destroy(r);
}

static void slice_keys(strata_ctx *ctx, const strata_mesh *m, const float *L, uint32_t n,
                       key_list *l)
{
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = L;
    so.nlevels = n;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    keys_add_result(l, r);
    strata_result_destroy(r);
}

/* A world of the opened twin of the heightmap in o gives the same chunks
 * and fingerprint. */
static void expect_opened_same(strata_ctx *ctx, strata_world_options o, uint32_t w, uint32_t h,
                               const strata_world *mem, key_list *want, const char *what)
{
    strata_heightmap *hm = integer_heightmap_as(ctx, w, h, 1);
    o.heightmap = hm;
    strata_world *wo;
    ck_assert_ok(strata_world_create(ctx, &o, &wo));
    ck_assert_uint_eq(strata_world_fingerprint(wo), strata_world_fingerprint(mem));
    key_list got = {0};
    world_keys(ctx, wo, &got);
    keys_equal(want, &got, what);
    free(got.k);
    strata_world_destroy(wo);
    strata_heightmap_destroy(hm);
}

/* Planets: level 3..5, every chunk level, noise and 12 terraces. */
START_TEST(test_planet_union)
{
    const int L = 3 + _i;
    strata_ctx *ctx = ctx_new(2);
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, L, 1.0f, &m));
    ck_assert_ok(strata_displace_radial(ctx, m, planet_noise(), NULL));
    float levels[12];
    ck_assert_ok(strata_levels_uniform(m, 12, NULL, levels));
    key_list whole = {0};
    slice_keys(ctx, m, levels, 12, &whole);
    for (int C = 0; C < L; C++) {
        strata_world_options o;
        strata_world_defaults(&o);
        o.level = L;
        o.chunk_level = C;
        o.noise = planet_noise();
        o.terraces = 12;
        strata_world *w;
        ck_assert_ok(strata_world_create(ctx, &o, &w));
        uint32_t n;
        const float *wl = strata_world_levels(w, &n);
        ck_assert_uint_eq(n, 12);
        ck_assert_msg(!memcmp(wl, levels, sizeof levels), "L%d C%d: planes differ", L, C);
        key_list parts = {0};
        world_keys(ctx, w, &parts);
        char what[32];
        snprintf(what, sizeof what, "planet L%d C%d", L, C);
        keys_equal(&whole, &parts, what);
        free(parts.k);
        strata_world_destroy(w);
    }
    free(whole.k);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

static const uint32_t tile_sizes[] = {1, 2, 3, 7, 64};

/* ------------------------------------------------------------ loops */

typedef struct {
    uint32_t plane, p[6]; /* a segment's plane and its ends' float bits */
} seg_key;

typedef struct {
    seg_key *k;
    size_t n, cap;
    size_t closed, open;
} seg_list;

static int cmp_seg(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(seg_key));
}

/* The segments of l's polylines (a closed one's closing one too). */
static void segs_add(seg_list *s, const strata_loops *l)
{
    strata_loops_view v;
    strata_loops_get_view(l, &v);
    for (uint64_t i = 0; i < v.nloops; i++) {
        const strata_loop *lp = &v.loops[i];
        *(lp->closed ? &s->closed : &s->open) += 1;
        const uint32_t nseg = lp->closed ? lp->count : lp->count - 1;
        for (uint32_t k = 0; k < nseg; k++) {
            if (s->n == s->cap) {
                s->cap = s->cap ? 2 * s->cap : 4096;
                s->k = realloc(s->k, s->cap * sizeof *s->k);
                ck_assert_ptr_nonnull(s->k);
            }
            const uint64_t a = lp->first + k, b = lp->first + (k + 1) % lp->count;
            seg_key *key = &s->k[s->n++];
            key->plane = lp->plane;
            memcpy(&key->p[0], &v.x[a], 4);
            memcpy(&key->p[1], &v.y[a], 4);
            memcpy(&key->p[2], &v.z[a], 4);
            memcpy(&key->p[3], &v.x[b], 4);
            memcpy(&key->p[4], &v.y[b], 4);
            memcpy(&key->p[5], &v.z[b], 4);
        }
    }
}

/* The leaves' loops of w (with loops) against the loops of m sliced at
 * w's planes: the same segments, bit for bit, each once; a closed loop in
 * a tile is one of the whole mesh's. */
static void expect_loops_union(strata_ctx *ctx, const strata_world *w, const strata_mesh *m,
                               const char *what)
{
    uint32_t n;
    const float *levels = strata_world_levels(w, &n);
    strata_loops *l;
    ck_assert_ok(strata_loops_from_mesh(ctx, m, levels, n, &l));
    seg_list whole = {0}, parts = {0};
    segs_add(&whole, l);
    strata_loops_destroy(l);
    strata_result *r;
    ck_assert_ok(strata_result_create(ctx, &r));
    for (uint64_t id = 0; id < strata_world_chunk_count(w); id++) {
        ck_assert_ok(strata_world_make_chunk_loops(ctx, w, id, r, &l));
        ck_assert_ptr_nonnull(l);
        segs_add(&parts, l);
        strata_loops_destroy(l);
    }
    strata_result_destroy(r);
    qsort(whole.k, whole.n, sizeof *whole.k, cmp_seg);
    qsort(parts.k, parts.n, sizeof *parts.k, cmp_seg);
    ck_assert_msg(whole.n > 100, "%s: only %zu segments", what, whole.n);
    ck_assert_msg(whole.n == parts.n, "%s: %zu segments in the tiles, want %zu", what, parts.n,
                  whole.n);
    for (size_t i = 0; i < whole.n; i++)
        require(!memcmp(&whole.k[i], &parts.k[i], sizeof whole.k[i]), "%s: segment %zu differs",
                what, i);
    ck_assert_msg(parts.closed <= whole.closed, "%s: %zu closed loops in tiles, %zu in all",
                  what, parts.closed, whole.closed);
    free(whole.k);
    free(parts.k);
}

/* Loops per leaf tile (strata_world_options.loops): planets of level 4,
 * every chunk level; a template terrain with noise, tiles of 1, 3 and 7
 * (7 with normals). */
START_TEST(test_loops)
{
    strata_ctx *ctx = ctx_new(2);
    strata_mesh *m;
    strata_world *w;
    strata_world_options o;
    char what[48];
    ck_assert_ok(strata_shape_icosphere(ctx, 4, 1.0f, &m));
    ck_assert_ok(strata_displace_radial(ctx, m, planet_noise(), NULL));
    for (int C = 0; C < 4; C++) {
        strata_world_defaults(&o);
        o.level = 4;
        o.chunk_level = C;
        o.noise = planet_noise();
        o.terraces = 12;
        o.loops = 1;
        ck_assert_ok(strata_world_create(ctx, &o, &w));
        snprintf(what, sizeof what, "planet loops C%d", C);
        expect_loops_union(ctx, w, m, what);
        const uint64_t fp = strata_world_fingerprint(w);
        strata_world_destroy(w);
        o.loops = 0;
        ck_assert_ok(strata_world_create(ctx, &o, &w));
        ck_assert_uint_ne(strata_world_fingerprint(w), fp);
        strata_result *r;
        strata_loops *l = (strata_loops *)&o; /* set to NULL by the call */
        ck_assert_ok(strata_result_create(ctx, &r));
        ck_assert_ok(strata_world_make_chunk_loops(ctx, w, 0, r, &l));
        ck_assert_ptr_null(l);
        ck_assert_int_eq(strata_world_make_chunk_loops(ctx, w, 0, r, NULL),
                         STRATA_ERR_INVALID_ARG);
        strata_result_destroy(r);
        strata_world_destroy(w);
    }
    strata_mesh_destroy(m);
    strata_heightmap *hm = integer_heightmap(ctx, 5, 4);
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.3f;
    f.amplitude = 4.0f;
    ck_assert_ok(strata_mesh_from_template(ctx, hm, 9, 1.0f, 1.0f, &m));
    ck_assert_ok(strata_displace_flat(ctx, m, &f, NULL));
    for (int t = 0; t < 3; t++) {
        strata_world_defaults(&o);
        o.kind = STRATA_WORLD_TERRAIN;
        o.heightmap = hm;
        o.patch_cells = 9;
        o.noise = &f;
        o.tile_cells = (uint32_t[]){1, 3, 7}[t];
        o.terraces = 10;
        o.loops = 1;
        o.normals = t == 2; /* loops from the tile sliced again */
        ck_assert_ok(strata_world_create(ctx, &o, &w));
        snprintf(what, sizeof what, "terrain loops, tiles of %u", o.tile_cells);
        expect_loops_union(ctx, w, m, what);
        strata_world_destroy(w);
    }
    strata_mesh_destroy(m);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Terrains from an integer heightmap on integer planes. */
START_TEST(test_terrain_union)
{
    strata_ctx *ctx = ctx_new(2);
    strata_heightmap *hm = integer_heightmap(ctx, 31, 23);
    strata_mesh *m;
    ck_assert_ok(strata_mesh_from_heightmap(ctx, hm, 0.5f, 1.0f, &m));
    key_list whole = {0};
    slice_keys(ctx, m, integer_planes, 7, &whole);
    strata_world_options o;
    strata_world_defaults(&o);
    o.kind = STRATA_WORLD_TERRAIN;
    o.heightmap = hm;
    o.cell_size = 0.5f;
    o.height_scale = 1.0f;
    o.tile_cells = tile_sizes[_i];
    o.levels = integer_planes;
    o.nlevels = 7;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    key_list parts = {0};
    world_keys(ctx, w, &parts);
    char what[48];
    snprintf(what, sizeof what, "terrain tiles of %u", tile_sizes[_i]);
    keys_equal(&whole, &parts, what);
    expect_opened_same(ctx, o, 31, 23, w, &parts, "terrain from an opened file");
    free(parts.k);
    free(whole.k);
    strata_world_destroy(w);
    strata_mesh_destroy(m);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Spaced props (strata_props_options.spacing, with a wall foot on
 * terrains) in a world: the union of the tiles' props is the whole
 * mesh's props, the same set bit for bit (positions, yaw, scale, kind,
 * terrace), for several tile sizes (terrains) and chunk levels
 * (planets). */
typedef struct prop_key {
    float f[6];
    uint32_t kind, terrace;
} prop_key;

typedef struct prop_list {
    prop_key *k;
    size_t n, cap;
} prop_list;

static void props_add(prop_list *l, const strata_props *p)
{
    strata_props_view v;
    strata_props_get_view(p, &v);
    for (uint64_t i = 0; i < v.count; i++) {
        if (l->n == l->cap) {
            l->cap = l->cap ? 2 * l->cap : 256;
            l->k = realloc(l->k, l->cap * sizeof *l->k);
            ck_assert_ptr_nonnull(l->k);
        }
        prop_key *k = &l->k[l->n++];
        memset(k, 0, sizeof *k);
        k->f[0] = v.x[i];
        k->f[1] = v.y[i];
        k->f[2] = v.z[i];
        k->f[3] = v.yaw[i];
        k->f[4] = v.scale[i];
        k->f[5] = v.ux[i];
        k->kind = v.kind[i];
        k->terrace = v.terrace[i];
    }
}

static int prop_key_cmp(const void *a, const void *b) { return memcmp(a, b, sizeof(prop_key)); }

static void props_equal(prop_list *whole, prop_list *parts, const char *what)
{
    qsort(whole->k, whole->n, sizeof *whole->k, prop_key_cmp);
    qsort(parts->k, parts->n, sizeof *parts->k, prop_key_cmp);
    require(whole->n == parts->n, "%s: %zu props in the tiles, %zu in the whole mesh", what,
            parts->n, whole->n);
    for (size_t i = 0; i < whole->n; i++)
        require(!memcmp(&whole->k[i], &parts->k[i], sizeof(prop_key)),
                "%s: prop %zu differs: (%.9g %.9g %.9g) in the whole, (%.9g %.9g %.9g) in tiles",
                what, i, (double)whole->k[i].f[0], (double)whole->k[i].f[1],
                (double)whole->k[i].f[2], (double)parts->k[i].f[0], (double)parts->k[i].f[1],
                (double)parts->k[i].f[2]);
}

static void world_props(strata_ctx *ctx, const strata_world *w, prop_list *l)
{
    strata_result *r;
    ck_assert_ok(strata_result_create(ctx, &r));
    for (uint64_t id = 0; id < strata_world_chunk_count(w); id++) {
        strata_props *p;
        ck_assert_ok(strata_world_make_chunk_props(ctx, w, id, r, &p));
        props_add(l, p);
        strata_props_destroy(p);
    }
    strata_result_destroy(r);
}

static void whole_props(strata_ctx *ctx, const strata_mesh *m, const float *L, uint32_t n,
                        const strata_props_options *po, prop_list *l)
{
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = L;
    so.nlevels = n;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    strata_props *p;
    ck_assert_ok(strata_props_scatter(ctx, r, po, &p));
    props_add(l, p);
    strata_props_destroy(p);
    strata_result_destroy(r);
}

START_TEST(test_props_union)
{
    strata_ctx *ctx = ctx_new(2);
    strata_props_options po;
    strata_props_defaults(&po);
    po.density = 50;
    po.seed = 9;
    po.spacing = 0.35;
    po.wall_foot = 0.3;
    po.max_height = 130;
    strata_heightmap *hm = integer_heightmap(ctx, 31, 23);
    strata_mesh *m;
    ck_assert_ok(strata_mesh_from_heightmap(ctx, hm, 0.5f, 1.0f, &m));
    prop_list whole = {0};
    whole_props(ctx, m, integer_planes, 7, &po, &whole);
    require(whole.n > 300, "%zu props on the terrain", whole.n);
    strata_world_options o;
    strata_world_defaults(&o);
    o.kind = STRATA_WORLD_TERRAIN;
    o.heightmap = hm;
    o.cell_size = 0.5f;
    o.height_scale = 1.0f;
    o.tile_cells = tile_sizes[_i];
    o.levels = integer_planes;
    o.nlevels = 7;
    o.props = &po;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    prop_list parts = {0};
    world_props(ctx, w, &parts);
    char what[48];
    snprintf(what, sizeof what, "terrain props, tiles of %u", tile_sizes[_i]);
    props_equal(&whole, &parts, what);
    free(parts.k);
    free(whole.k);
    strata_world_destroy(w);
    strata_mesh_destroy(m);
    strata_heightmap_destroy(hm);
    /* a planet, chunk level _i (a wall foot is refused there) */
    const int L = 4, C = _i < 3 ? _i : 3;
    ck_assert_ok(strata_shape_icosphere(ctx, L, 1.0f, &m));
    ck_assert_ok(strata_displace_radial(ctx, m, planet_noise(), NULL));
    float levels[12];
    ck_assert_ok(strata_levels_uniform(m, 12, NULL, levels));
    po.wall_foot = 0;
    po.max_height = INFINITY;
    po.spacing = 0.06;
    po.density = 1e4;
    whole.n = 0;
    whole.k = NULL;
    whole.cap = 0;
    whole_props(ctx, m, levels, 12, &po, &whole);
    require(whole.n > 500, "%zu props on the planet", whole.n);
    strata_world_defaults(&o);
    o.level = L;
    o.chunk_level = C;
    o.noise = planet_noise();
    o.terraces = 12;
    o.props = &po;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    parts.n = 0;
    parts.k = NULL;
    parts.cap = 0;
    world_props(ctx, w, &parts);
    snprintf(what, sizeof what, "planet props, L%d C%d", L, C);
    props_equal(&whole, &parts, what);
    strata_world_destroy(w);
    po.wall_foot = 0.01;
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_UNSUPPORTED);
    free(parts.k);
    free(whole.k);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* A triangle soup: positions and indices of results appended. */
typedef struct soup {
    float *x, *y, *z;
    uint32_t *idx;
    uint32_t nv;
    uint64_t ni;
} soup;

static void soup_add(soup *s, const strata_result *r)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    float **c[3] = {&s->x, &s->y, &s->z};
    const float *from[3] = {v.x, v.y, v.z};
    for (int k = 0; k < 3; k++) {
        *c[k] = realloc(*c[k], ((size_t)s->nv + v.nverts) * sizeof(float));
        ck_assert_ptr_nonnull(*c[k]);
        memcpy(*c[k] + s->nv, from[k], (size_t)v.nverts * sizeof(float));
    }
    s->idx = realloc(s->idx, (size_t)(s->ni + v.nindices) * sizeof *s->idx);
    ck_assert_ptr_nonnull(s->idx);
    for (uint64_t i = 0; i < v.nindices; i++)
        s->idx[s->ni + i] = s->nv + v.indices[i];
    s->nv += v.nverts;
    s->ni += v.nindices;
}

/* The enclosed volume (divergence theorem) and the lowest height. */
static double soup_volume(const soup *s, float *ymin)
{
    double vol = 0;
    *ymin = INFINITY;
    for (uint64_t i = 0; i < s->ni; i += 3) {
        const uint32_t a = s->idx[i], b = s->idx[i + 1], c = s->idx[i + 2];
        const double ax = s->x[a], ay = s->y[a], az = s->z[a];
        const double bx = s->x[b], by = s->y[b], bz = s->z[b];
        const double cx = s->x[c], cy = s->y[c], cz = s->z[c];
        vol += ax * (by * cz - bz * cy) - ay * (bx * cz - bz * cx) + az * (bx * cy - by * cx);
        for (int k = 0; k < 3; k++)
            *ymin = fminf(*ymin, s->y[s->idx[i + k]]);
    }
    return vol / 6;
}

static int cmp_pos3(const void *p, const void *q)
{
    return memcmp(p, q, 3 * sizeof(float));
}

/* Positions (canonical zeros) above the base, sorted, distinct: *n. */
static float *soup_points(const soup *s, float base, size_t *n)
{
    float *p = malloc((size_t)s->nv * 3 * sizeof *p + 1);
    ck_assert_ptr_nonnull(p);
    size_t m = 0;
    for (uint32_t v = 0; v < s->nv; v++)
        if (s->y[v] > base) {
            p[3 * m] = s->x[v] + 0.0f;
            p[3 * m + 1] = s->y[v] + 0.0f;
            p[3 * m + 2] = s->z[v] + 0.0f;
            m++;
        }
    qsort(p, m, 3 * sizeof *p, cmp_pos3);
    size_t w = 0;
    for (size_t i = 0; i < m; i++)
        if (!w || memcmp(p + 3 * (w - 1), p + 3 * i, 3 * sizeof *p))
            memmove(p + 3 * w++, p + 3 * i, 3 * sizeof *p);
    *n = w;
    return p;
}

static void soup_free(soup *s)
{
    free(s->x);
    free(s->y);
    free(s->z);
    free(s->idx);
}

/* --solid worlds: the union of the tiles, welded by position, is closed
 * like the whole mesh's solid of the same options, with its base height
 * (the default depth), its volume and every point of it above the base. */
START_TEST(test_solid_union)
{
    strata_ctx *ctx = ctx_new(2);
    strata_heightmap *hm = integer_heightmap(ctx, 31, 23);
    strata_mesh *m;
    ck_assert_ok(strata_mesh_from_heightmap(ctx, hm, 0.5f, 1.0f, &m));
    strata_pipeline_options po;
    strata_pipeline_defaults(&po);
    po.terraces.levels = integer_planes;
    po.terraces.nlevels = 7;
    po.solid = 1;
    strata_result *whole_r;
    ck_assert_ok(strata_pipeline_run(ctx, m, &po, &whole_r, NULL, NULL));
    soup whole = {0}, parts = {0};
    soup_add(&whole, whole_r);
    strata_world_options o;
    strata_world_defaults(&o);
    o.kind = STRATA_WORLD_TERRAIN;
    o.heightmap = hm;
    o.cell_size = 0.5f;
    o.tile_cells = tile_sizes[_i];
    o.levels = integer_planes;
    o.nlevels = 7;
    o.solid = 1;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    strata_result *r;
    ck_assert_ok(strata_result_create(ctx, &r));
    for (uint64_t id = 0; id < strata_world_chunk_count(w); id++) {
        ck_assert_ok(strata_world_make_chunk(ctx, w, id, r));
        soup_add(&parts, r);
    }
    poscheck pw, pp;
    ck_assert_int_eq(poscheck_run(whole.x, whole.y, whole.z, whole.nv, whole.idx,
                                  whole.ni / 3, &pw), 0);
    ck_assert_int_eq(poscheck_run(parts.x, parts.y, parts.z, parts.nv, parts.idx,
                                  parts.ni / 3, &pp), 0);
    ck_assert_uint_eq(pw.border, 0);
    ck_assert_msg(pp.border == 0 && pp.collapsed == 0 && pp.nonmanifold == pw.nonmanifold &&
                      pp.repeated == pw.repeated && pp.pinches == pw.pinches,
                  "tiles of %u: border %llu collapsed %llu nonmanifold %llu repeated %llu "
                  "pinches %llu (whole: %llu %llu %llu)",
                  tile_sizes[_i], (unsigned long long)pp.border,
                  (unsigned long long)pp.collapsed, (unsigned long long)pp.nonmanifold,
                  (unsigned long long)pp.repeated, (unsigned long long)pp.pinches,
                  (unsigned long long)pw.nonmanifold, (unsigned long long)pw.repeated,
                  (unsigned long long)pw.pinches);
    float bw, bp;
    const double vw = soup_volume(&whole, &bw), vp = soup_volume(&parts, &bp);
    ck_assert_msg(bw == bp, "base %.9g in the tiles, %.9g whole", (double)bp, (double)bw);
    ck_assert_msg(vw > 0 && fabs(vp - vw) <= 1e-6 * vw, "volume %.9g in the tiles, %.9g whole",
                  vp, vw);
    size_t nw, np;
    float *qw = soup_points(&whole, bw, &nw), *qp = soup_points(&parts, bp, &np);
    for (size_t i = 0, j = 0; i < nw; i++) {
        while (j < np && cmp_pos3(qp + 3 * j, qw + 3 * i) < 0)
            j++;
        ck_assert_msg(j < np && !cmp_pos3(qp + 3 * j, qw + 3 * i),
                      "tiles of %u: the whole's point (%g %g %g) is not in the tiles",
                      tile_sizes[_i], (double)qw[3 * i], (double)qw[3 * i + 1],
                      (double)qw[3 * i + 2]);
    }
    free(qw);
    free(qp);
    soup_free(&whole);
    soup_free(&parts);
    strata_result_destroy(r);
    strata_result_destroy(whole_r);
    strata_world_destroy(w);
    strata_mesh_destroy(m);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Terrains from a template with noise and counted planes. */
START_TEST(test_template_union)
{
    strata_ctx *ctx = ctx_new(2);
    strata_heightmap *hm = integer_heightmap(ctx, 5, 4);
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.3f;
    f.amplitude = 4.0f;
    strata_mesh *m;
    ck_assert_ok(strata_mesh_from_template(ctx, hm, 9, 1.0f, 1.0f, &m));
    ck_assert_ok(strata_displace_flat(ctx, m, &f, NULL));
    float levels[10];
    ck_assert_ok(strata_levels_uniform(m, 10, NULL, levels));
    key_list whole = {0};
    slice_keys(ctx, m, levels, 10, &whole);
    strata_world_options o;
    strata_world_defaults(&o);
    o.kind = STRATA_WORLD_TERRAIN;
    o.heightmap = hm;
    o.patch_cells = 9;
    o.tile_cells = tile_sizes[_i];
    o.noise = &f;
    o.terraces = 10;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    key_list parts = {0};
    world_keys(ctx, w, &parts);
    keys_equal(&whole, &parts, "template");
    expect_opened_same(ctx, o, 5, 4, w, &parts, "template from an opened file");
    free(parts.k);
    free(whole.k);
    strata_world_destroy(w);
    strata_mesh_destroy(m);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ seams */

typedef struct {
    uint32_t p[3], q[3]; /* an edge's ends as position bits, p < q */
    int dir;             /* +1: the triangle runs p -> q, -1: q -> p */
} edge_key;

static int cmp_edge(const void *a, const void *b)
{
    const edge_key *x = a, *y = b;
    const int c = memcmp(x->p, y->p, sizeof x->p);
    if (c)
        return c;
    const int d = memcmp(x->q, y->q, sizeof x->q);
    return d ? d : (x->dir > y->dir) - (x->dir < y->dir);
}

/* Every edge of the union, welded by position: a planet's used exactly
 * twice in opposite directions; a terrain's once only on the border.
 * saddles: an edge may also be used 2k times, k in each direction (the
 * walls of two wedges around a vertex on a plane, whose bottom copies lie
 * at one point). */
static void check_welded_as(const key_list *l, int planet, float xmin, float xmax, float zmin,
                            float zmax, int saddles)
{
    edge_key *e = malloc(3 * l->n * sizeof *e);
    ck_assert_ptr_nonnull(e);
    size_t n = 0;
    for (size_t t = 0; t < l->n; t++)
        for (int j = 0; j < 3; j++) {
            const uint32_t *a = &l->k[t].w[3 * j], *b = &l->k[t].w[3 * ((j + 1) % 3)];
            const int fwd = memcmp(a, b, 12) < 0;
            memcpy(e[n].p, fwd ? a : b, 12);
            memcpy(e[n].q, fwd ? b : a, 12);
            e[n++].dir = fwd ? 1 : -1;
        }
    qsort(e, n, sizeof *e, cmp_edge);
    size_t open = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && !memcmp(e[j].p, e[i].p, 12) && !memcmp(e[j].q, e[i].q, 12))
            j++;
        int fwd = 0;
        for (size_t k = i; k < j; k++)
            fwd += e[k].dir > 0;
        if (j - i == 2) {
            require(e[i].dir != e[i + 1].dir, "edge used twice in the same direction");
        } else if (saddles && 2 * (size_t)fwd == j - i) {
            /* closed, around a saddle */
        } else {
            /* open: used once, or around a saddle once more in one
             * direction than in the other */
            const size_t more = 2 * (size_t)fwd > j - i ? 2 * (size_t)fwd - (j - i)
                                                        : (j - i) - 2 * (size_t)fwd;
            require(!planet && (j - i == 1 || (saddles && more == 1)),
                    "edge used %zu times, %d forwards", j - i, fwd);
            float p[3], q[3];
            memcpy(p, e[i].p, 12);
            memcpy(q, e[i].q, 12);
            /* a roof edge on the border, or a wall's vertical edge there */
            const int on_border = (p[0] == q[0] && (p[0] == xmin || p[0] == xmax)) ||
                                  (p[2] == q[2] && (p[2] == zmin || p[2] == zmax));
            require(on_border, "open edge inside the domain at (%g,%g,%g)-(%g,%g,%g)",
                    (double)p[0], (double)p[1], (double)p[2], (double)q[0], (double)q[1],
                    (double)q[2]);
            open++;
        }
        i = j;
    }
    ck_assert(planet ? open == 0 : open > 0);
    free(e);
}

static void check_welded(const key_list *l, int planet, float xmin, float xmax, float zmin,
                         float zmax)
{
    check_welded_as(l, planet, xmin, xmax, zmin, zmax, 0);
}

START_TEST(test_seams)
{
    strata_ctx *ctx = ctx_new(2);
    strata_world_options o;
    strata_world_defaults(&o);
    o.level = 5;
    o.chunk_level = 2;
    o.noise = planet_noise();
    o.terraces = 9;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    key_list l = {0};
    world_keys(ctx, w, &l);
    check_welded(&l, 1, 0, 0, 0, 0);
    free(l.k);
    strata_world_destroy(w);

    strata_heightmap *hm = integer_heightmap(ctx, 25, 19);
    strata_world_defaults(&o);
    o.kind = STRATA_WORLD_TERRAIN;
    o.heightmap = hm;
    o.tile_cells = 4;
    o.levels = integer_planes;
    o.nlevels = 7;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    memset(&l, 0, sizeof l);
    world_keys(ctx, w, &l);
    /* the grid of 24 x 18 unit cells, centred */
    check_welded(&l, 0, -12.0f, 12.0f, -9.0f, 9.0f);
    free(l.k);
    strata_world_destroy(w);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------ heights near planes */

/* h moved by d ulps (d < 0: down). */
static float nudge(float h, int d)
{
    for (; d > 0; d--)
        h = nextafterf(h, INFINITY);
    for (; d < 0; d++)
        h = nextafterf(h, -INFINITY);
    return h;
}

/* A w x h PFM heightmap of the samples s (row 0 at the top, as
 * strata_heightmap_data has them), decoded. */
static strata_heightmap *float_heightmap(strata_ctx *ctx, uint32_t w, uint32_t h, const float *s)
{
    char head[48];
    const int n = snprintf(head, sizeof head, "Pf\n%u %u\n-1.0\n", w, h);
    unsigned char *buf = malloc((size_t)n + 4 * (size_t)w * h);
    ck_assert_ptr_nonnull(buf);
    memcpy(buf, head, (size_t)n);
    for (uint32_t y = 0; y < h; y++) /* PFM rows run bottom to top, little-endian */
        for (uint32_t x = 0; x < w; x++) {
            uint32_t bits;
            memcpy(&bits, &s[(size_t)(h - 1 - y) * w + x], 4);
            for (int b = 0; b < 4; b++)
                buf[n + 4 * ((size_t)y * w + x) + b] = (unsigned char)(bits >> (8 * b));
        }
    strata_heightmap *hm;
    ck_assert_ok(strata_heightmap_decode(ctx, buf, (size_t)n + 4 * (size_t)w * h, &hm));
    const float *got = strata_heightmap_data(hm);
    ck_assert_msg(!memcmp(got, s, 4 * (size_t)w * h), "PFM samples read back differently");
    free(buf);
    return hm;
}

/* The terrain world of the samples s (cells of 1, heights as they are) in
 * tiles of `tile` cells, sliced at L: its chunks' triangles into *parts,
 * the whole grid's into *whole (when not NULL). */
static void float_terrain_keys(strata_ctx *ctx, uint32_t w, uint32_t h, const float *s,
                               float cell, uint32_t tile, const float *L, uint32_t n,
                               key_list *parts, key_list *whole)
{
    strata_heightmap *hm = float_heightmap(ctx, w, h, s);
    if (whole) {
        strata_mesh *m;
        ck_assert_ok(strata_mesh_from_heightmap(ctx, hm, cell, 1.0f, &m));
        slice_keys(ctx, m, L, n, whole);
        strata_mesh_destroy(m);
    }
    strata_world_options o;
    strata_world_defaults(&o);
    o.kind = STRATA_WORLD_TERRAIN;
    o.heightmap = hm;
    o.cell_size = cell;
    o.tile_cells = tile;
    o.levels = L;
    o.nlevels = n;
    strata_world *wo;
    ck_assert_ok(strata_world_create(ctx, &o, &wo));
    world_keys(ctx, wo, parts);
    strata_world_destroy(wo);
    strata_heightmap_destroy(hm);
}

/* The chunks' union is the whole surface sliced, and welded it leaves
 * open edges only on the domain's border (its corners' extremes). */
static void union_welded(key_list *whole, key_list *parts, int planet, const char *what)
{
    keys_equal(whole, parts, what);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t t = 0; t < parts->n; t++)
        for (int k = 0; k < 9; k++) {
            float f;
            memcpy(&f, &parts->k[t].w[k], 4);
            lo[k % 3] = fminf(lo[k % 3], f);
            hi[k % 3] = fmaxf(hi[k % 3], f);
        }
    check_welded_as(parts, planet, lo[0], hi[0], lo[2], hi[2], 1);
}

#define NEAR_W 13
#define NEAR_H 13
#define NEAR_P 1.0f

/* Sample (i, j) of a NEAR_W x NEAR_H grid. */
static float *at(float *s, int i, int j)
{
    return &s[(size_t)j * NEAR_W + (size_t)i];
}

/* Heights on the tile borders of 4 cells (grid columns and rows 4 and 8)
 * within an ulp of the plane P (NEAR_P), the rest at 0 (below it) but for
 * the high points (20) that make them snap, laid out so that in some of
 * them only the neighbouring tile holds the edge that does.  exact: those
 * heights on P instead.
 *  - fins: a border edge with both ends exactly on P between a triangle
 *    with its third corner at 0 and one with it an ulp below P, whose
 *    only rise (the edge that snaps it up onto P, and so stops the edge
 *    from being a fin) lies two cells into its tile, out of the other
 *    tile's context; on every side of a tile, and one with the third
 *    corner an ulp above P instead;
 *  - border vertices an ulp below P whose one rise lies in the tile
 *    across, an ulp above P among lower ones, a tile corner. */
static void near_features(float *s, int exact)
{
    const float below = exact ? NEAR_P : nudge(NEAR_P, -1);
    const float above = exact ? NEAR_P : nudge(NEAR_P, 1);
    for (int k = 0; k < NEAR_W * NEAR_H; k++)
        s[k] = 0.0f;
    /* fins on column 4 (third corner right), column 8 (left), row 4
     * (below), row 8 (above) */
    *at(s, 4, 1) = *at(s, 4, 2) = NEAR_P;
    *at(s, 5, 2) = below;
    *at(s, 6, 2) = 20.0f;
    *at(s, 8, 1) = *at(s, 8, 2) = NEAR_P;
    *at(s, 7, 1) = below;
    *at(s, 6, 1) = 20.0f;
    *at(s, 1, 4) = *at(s, 2, 4) = NEAR_P;
    *at(s, 2, 5) = below;
    *at(s, 2, 6) = 20.0f;
    *at(s, 1, 8) = *at(s, 2, 8) = NEAR_P;
    *at(s, 1, 7) = below;
    *at(s, 1, 6) = 20.0f;
    *at(s, 8, 5) = *at(s, 8, 6) = NEAR_P; /* third corner above P */
    *at(s, 9, 6) = above;
    /* border vertices, their rise across */
    *at(s, 4, 10) = below;
    *at(s, 5, 10) = 20.0f;
    *at(s, 8, 10) = below;
    *at(s, 7, 10) = 20.0f;
    *at(s, 10, 4) = below;
    *at(s, 10, 5) = 20.0f;
    *at(s, 11, 8) = below;
    *at(s, 11, 7) = 20.0f;
    *at(s, 4, 6) = above;
    *at(s, 6, 4) = above;
    *at(s, 8, 8) = below; /* a corner of four tiles */
    *at(s, 9, 9) = 20.0f;
}

/* Terrain tiles whose border vertices (and their neighbours across) lie
 * an ulp from a plane: the snapping decides the same in every tile, so
 * the tiles' union is the whole grid sliced (fins and their walls
 * included) and welds watertight, for tiles of 1 to 4 cells. */
START_TEST(test_near_plane_seams)
{
    strata_ctx *ctx = ctx_new(2);
    float s[NEAR_W * NEAR_H], exact[NEAR_W * NEAR_H];
    near_features(s, 0);
    near_features(exact, 1);
    const float L[] = {-50.0f, NEAR_P, 50.0f};
    /* The snapping takes place: every vertex an ulp from P snaps onto it,
     * so the whole grid slices as with those heights exactly on P. */
    strata_heightmap *hm = float_heightmap(ctx, NEAR_W, NEAR_H, s),
                     *hx = float_heightmap(ctx, NEAR_W, NEAR_H, exact);
    strata_mesh *m, *mx;
    ck_assert_ok(strata_mesh_from_heightmap(ctx, hm, 1.0f, 1.0f, &m));
    ck_assert_ok(strata_mesh_from_heightmap(ctx, hx, 1.0f, 1.0f, &mx));
    key_list whole = {0}, want = {0};
    slice_keys(ctx, m, L, 3, &whole);
    slice_keys(ctx, mx, L, 3, &want);
    keys_equal(&want, &whole, "near heights snapped");
    free(want.k);
    strata_mesh_destroy(m);
    strata_mesh_destroy(mx);
    strata_heightmap_destroy(hm);
    strata_heightmap_destroy(hx);
    for (uint32_t tile = 1; tile <= 4; tile++) {
        key_list parts = {0};
        float_terrain_keys(ctx, NEAR_W, NEAR_H, s, 1.0f, tile, L, 3, &parts, NULL);
        char what[48];
        snprintf(what, sizeof what, "near features, tiles of %u", tile);
        union_welded(&whole, &parts, 0, what);
        free(parts.k);
    }
    free(whole.k);
    strata_ctx_destroy(ctx);
}
END_TEST

static uint64_t near_rng;

static double near_rnd(void)
{
    near_rng ^= near_rng << 13;
    near_rng ^= near_rng >> 7;
    near_rng ^= near_rng << 17;
    return (double)(near_rng >> 11) * 0x1p-53;
}

/* Random terrains where many heights lie within 3 ulps of a plane (above,
 * below, on it) among lower and higher ones, cells of 1 and 0.37: every
 * tiling's union is the whole grid sliced, welded watertight. */
START_TEST(test_near_plane_random_tiles)
{
    near_rng = 0x9E3779B97F4A7C15ull + (uint64_t)_i;
    strata_ctx *ctx = ctx_new(2);
    const uint32_t w = 17, h = 13;
    const float L[] = {-50.0f, NEAR_P, 7.0f, 50.0f};
    float s[17 * 13];
    for (uint32_t k = 0; k < w * h; k++) {
        const double r = near_rnd();
        s[k] = r < 0.3 ? 0.0f : r < 0.45 ? 20.0f : r < 0.55 ? 7.0f
                                                : nudge(k % 5 ? NEAR_P : 7.0f,
                                                        (int)(near_rnd() * 7.0) - 3);
    }
    const float cell = _i & 1 ? 0.37f : 1.0f;
    key_list whole = {0};
    for (uint32_t tile = 1; tile <= 5; tile++) {
        key_list parts = {0};
        float_terrain_keys(ctx, w, h, s, cell, tile, L, 4, &parts, tile == 1 ? &whole : NULL);
        char what[64];
        snprintf(what, sizeof what, "random near heights %d, tiles of %u", _i, tile);
        union_welded(&whole, &parts, 0, what);
        free(parts.k);
    }
    free(whole.k);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The icosphere's vertices on a chunk's border: those whose triangles
 * (chunk after chunk, 4^(L-C) each) lie in two chunks or more. */
static uint8_t *border_vertices(const strata_mesh_view *v, int L, int C)
{
    const uint32_t per = 1u << (2 * (L - C));
    uint32_t *chunk = malloc(sizeof *chunk * v->nverts);
    uint8_t *border = calloc(v->nverts, 1);
    ck_assert(chunk && border);
    for (uint32_t i = 0; i < v->nverts; i++)
        chunk[i] = UINT32_MAX;
    for (uint32_t t = 0; t < v->ntris; t++) {
        const uint32_t c[3] = {v->a[t], v->b[t], v->c[t]};
        for (int k = 0; k < 3; k++) {
            if (chunk[c[k]] != UINT32_MAX && chunk[c[k]] != t / per)
                border[c[k]] = 1;
            chunk[c[k]] = t / per;
        }
    }
    free(chunk);
    return border;
}

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Planes at the heights of `nl` border vertices of m moved by d (up to 64
 * of them, at least 1e-3 apart, ascending): into L, their number. */
static uint32_t border_planes(const strata_mesh_view *v, const uint8_t *border, const int *d,
                              uint32_t nl, float *L)
{
    float cand[64];
    uint32_t nc = 0;
    for (uint32_t i = 0, step = v->nverts / nl; i < v->nverts && nc < nl; i++)
        if (border[(i * step + i / step) % v->nverts]) {
            cand[nc] = nudge(v->h[(i * step + i / step) % v->nverts], d[nc % 4]);
            nc++;
        }
    qsort(cand, nc, sizeof(float), cmp_float);
    uint32_t n = 0;
    for (uint32_t k = 0; k < nc; k++)
        if (n == 0 || cand[k] > L[n - 1] + 1e-3f)
            L[n++] = cand[k];
    return n;
}

/* The output vertices of m sliced at L. */
static uint32_t sliced_verts(strata_ctx *ctx, const strata_mesh *m, const float *L, uint32_t n)
{
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = L;
    so.nlevels = n;
    strata_result *r;
    ck_assert_ok(strata_slice(ctx, m, &so, &r));
    strata_result_view v;
    strata_result_get_view(r, &v);
    strata_result_destroy(r);
    return v.nverts;
}

/* Planets whose planes lie 1 or 2 ulps above or below the heights of
 * vertices on chunk borders: the chunks' union is the whole sphere
 * sliced, and closes up.  The snapping takes place: the whole sphere
 * sliced so has fewer vertices than with every plane moved 4096 ulps
 * from its vertex (where nothing snaps, every crossing a point of its
 * own). */
START_TEST(test_near_plane_planet)
{
    const int L = 4, C = 1 + _i;
    strata_ctx *ctx = ctx_new(2);
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, L, 1.0f, &m));
    ck_assert_ok(strata_displace_radial(ctx, m, planet_noise(), NULL));
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    uint8_t *border = border_vertices(&v, L, C);
    static const int near_d[4] = {1, -1, 2, -2}, far_d[4] = {4096, -4096, 4096, -4096};
    float levels[64], far[64];
    const uint32_t n = border_planes(&v, border, near_d, 48, levels);
    ck_assert_uint_eq(border_planes(&v, border, far_d, 48, far), n);
    ck_assert_uint_ge(n, 8);
    require(sliced_verts(ctx, m, levels, n) < sliced_verts(ctx, m, far, n),
            "C%d: the planes near vertices snap none", C);
    key_list whole = {0};
    slice_keys(ctx, m, levels, n, &whole);
    strata_world_options o;
    strata_world_defaults(&o);
    o.level = L;
    o.chunk_level = C;
    o.noise = planet_noise();
    o.levels = levels;
    o.nlevels = n;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    key_list parts = {0};
    world_keys(ctx, w, &parts);
    char what[64];
    snprintf(what, sizeof what, "planet L%d C%d, planes near border vertices", L, C);
    union_welded(&whole, &parts, 1, what);
    free(parts.k);
    free(whole.k);
    strata_world_destroy(w);
    free(border);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Heights of a planet by position: `n` points (within 1e-5) at their
 * heights, every other vertex at 0. */
typedef struct {
    float p[4][3], h[4];
    int n;
} spot_heights;

static void spot_fn(void *user, const float *x, const float *y, const float *z, float *h, size_t n)
{
    const spot_heights *sh = user;
    for (size_t i = 0; i < n; i++) {
        h[i] = 0.0f;
        for (int k = 0; k < sh->n; k++) {
            const float dx = x[i] - sh->p[k][0], dy = y[i] - sh->p[k][1],
                        dz = z[i] - sh->p[k][2];
            if (dx * dx + dy * dy + dz * dz < 1e-10f)
                h[i] = sh->h[k];
        }
    }
}

/* Is vertex q a corner of a triangle of chunk `chunk` (per triangles a
 * chunk)? */
static int in_chunk(const strata_mesh_view *v, uint32_t per, uint32_t chunk, uint32_t q)
{
    for (uint32_t t = chunk * per; t < (chunk + 1) * per; t++)
        if (v->a[t] == q || v->b[t] == q || v->c[t] == q)
            return 1;
    return 0;
}

/* Do p and q share a triangle, one with a corner in chunk `chunk` when
 * `chunk` is not UINT32_MAX? */
static int joined(const strata_mesh_view *v, uint32_t per, uint32_t chunk, uint32_t p, uint32_t q)
{
    for (uint32_t t = 0; t < v->ntris; t++) {
        const uint32_t c[3] = {v->a[t], v->b[t], v->c[t]};
        if ((c[0] == p || c[1] == p || c[2] == p) && (c[0] == q || c[1] == q || c[2] == q) &&
            (chunk == UINT32_MAX || in_chunk(v, per, chunk, c[0]) ||
             in_chunk(v, per, chunk, c[1]) || in_chunk(v, per, chunk, c[2])))
            return 1;
    }
    return 0;
}

/* A fin on a chunk border of a level-4 planet with chunks of level 2,
 * made by heights alone (strata_world_set_height_fn, no noise): a border
 * edge u-v exactly on a plane, the third corner w of its triangle in the
 * chunk B across an ulp below the plane (or, loop 1, above it), and w's
 * one rise z (the edge that snaps w onto the plane, so that the edge is
 * no fin) out of the context of chunk A; every other vertex below.  The
 * chunks of level 2, 1 and 0 (where the edge lies inside a chunk) give
 * the same triangles, those of the heights on the plane exactly, and
 * close up. */
START_TEST(test_near_plane_planet_fin)
{
    const int L = 4;
    strata_ctx *ctx = ctx_new(2);
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, L, 1.0f, &m));
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    const uint32_t per2 = 16, per1 = 64;
    uint32_t u = 0, vv = 0, w = 0, z = UINT32_MAX;
    int found = 0;
    for (uint32_t t1 = 0; t1 < v.ntris && z == UINT32_MAX; t1++) {
        const uint32_t c1[3] = {v.a[t1], v.b[t1], v.c[t1]};
        for (int k = 0; k < 3 && z == UINT32_MAX; k++) {
            u = c1[k];
            vv = c1[(k + 1) % 3];
            for (uint32_t t2 = 0; t2 < v.ntris && z == UINT32_MAX; t2++) {
                const uint32_t c2[3] = {v.a[t2], v.b[t2], v.c[t2]};
                int j = 0;
                while (j < 3 && !(c2[j] == vv && c2[(j + 1) % 3] == u))
                    j++;
                if (j == 3 || t2 / per2 == t1 / per2 || t2 / per1 != t1 / per1)
                    continue;
                w = c2[(j + 2) % 3];
                const uint32_t A = t1 / per2;
                if (in_chunk(&v, per2, A, w))
                    continue;
                for (uint32_t q = 0; q < v.nverts && z == UINT32_MAX; q++)
                    if (q != w && q != u && q != vv && joined(&v, per2, UINT32_MAX, w, q) &&
                        !in_chunk(&v, per2, A, q) && !joined(&v, per2, UINT32_MAX, u, q) &&
                        !joined(&v, per2, UINT32_MAX, vv, q) && !joined(&v, per2, A, w, q) &&
                        found++ == _i)
                        z = q;
            }
        }
    }
    ck_assert_uint_ne(z, UINT32_MAX);
    const float P = 0.02f;
    const float levels[] = {-0.01f, P, 0.9f};
    const uint32_t ids[4] = {u, vv, w, z};
    spot_heights near = {.n = 4}, exact = {.n = 4};
    const float h[4] = {P, P, nudge(P, _i ? 1 : -1), 0.5f};
    for (int k = 0; k < 4; k++) {
        near.p[k][0] = exact.p[k][0] = v.x[ids[k]];
        near.p[k][1] = exact.p[k][1] = v.y[ids[k]];
        near.p[k][2] = exact.p[k][2] = v.z[ids[k]];
        near.h[k] = h[k];
        exact.h[k] = k == 2 ? P : h[k];
    }
    key_list want = {0};
    for (int C = 2; C >= -1; C--) {
        strata_world_options o;
        strata_world_defaults(&o);
        o.level = L;
        o.chunk_level = C < 0 ? 1 : C;
        o.levels = levels;
        o.nlevels = 3;
        strata_world *wo;
        ck_assert_ok(strata_world_create(ctx, &o, &wo));
        strata_world_set_height_fn(wo, spot_fn, C < 0 ? &exact : &near);
        key_list parts = {0};
        world_keys(ctx, wo, &parts);
        strata_world_destroy(wo);
        char what[64];
        snprintf(what, sizeof what, "planet fin %d, chunk level %d%s", _i, o.chunk_level,
                 C < 0 ? ", heights exact" : "");
        if (C == 2) {
            check_welded_as(&parts, 1, 0, 0, 0, 0, 1);
            want = parts;
        } else {
            keys_equal(&want, &parts, what);
            free(parts.k);
        }
    }
    free(want.k);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ sameness */

static strata_world *small_planet(strata_ctx *ctx)
{
    strata_world_options o;
    strata_world_defaults(&o);
    o.level = 6;
    o.chunk_level = 2;
    o.noise = planet_noise();
    o.terraces = 16;
    o.normals = 1;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    return w;
}

/* simplify_roofs: every chunk is the plain world's chunk with its roofs
 * simplified by strata_result_simplify_roofs (byte for byte), fewer
 * triangles in all, a fingerprint of its own; bad errors refused. */
START_TEST(test_simplified_chunks)
{
    strata_ctx *ctx = ctx_new(2);
    strata_world_options o;
    strata_world_defaults(&o);
    o.level = 6;
    o.chunk_level = 2;
    o.noise = planet_noise();
    o.terraces = 16;
    strata_world *plain, *simple;
    ck_assert_ok(strata_world_create(ctx, &o, &plain));
    o.simplify_roofs = 1e-4;
    ck_assert_ok(strata_world_create(ctx, &o, &simple));
    ck_assert(strata_world_fingerprint(plain) != strata_world_fingerprint(simple));
    strata_result *a, *b;
    ck_assert_ok(strata_result_create(ctx, &a));
    ck_assert_ok(strata_result_create(ctx, &b));
    uint64_t before = 0, after = 0;
    for (uint64_t id = 0; id < strata_world_chunk_count(plain); id++) {
        strata_result_view v;
        ck_assert_ok(strata_world_make_chunk(ctx, plain, id, a));
        strata_result_get_view(a, &v);
        before += v.nindices / 3;
        ck_assert_ok(strata_result_simplify_roofs(ctx, a, 1e-4, NULL));
        ck_assert_ok(strata_world_make_chunk(ctx, simple, id, b));
        strata_result_get_view(b, &v);
        after += v.nindices / 3;
        char what[48];
        snprintf(what, sizeof what, "simplified chunk %llu", (unsigned long long)id);
        same_result(a, b, what);
    }
    ck_assert_uint_lt(after, before);
    strata_result_destroy(a);
    strata_result_destroy(b);
    strata_world_destroy(plain);
    strata_world_destroy(simple);
    const double bad[] = {-1e-4, NAN, INFINITY};
    for (int k = 0; k < 3; k++) {
        strata_world *w = (strata_world *)&w;
        o.simplify_roofs = bad[k];
        ck_assert_int_eq(strata_world_create(ctx, &o, &w), STRATA_ERR_INVALID_ARG);
    }
    strata_ctx_destroy(ctx);
}
END_TEST

/* One chunk alone == the same chunk after others, on 1 or 2 threads and
 * on every instruction set of this CPU. */
START_TEST(test_chunk_independence)
{
    strata_ctx *ctx = ctx_new(2);
    strata_world *w = small_planet(ctx);
    const uint64_t n = strata_world_chunk_count(w);
    strata_result *alone[3], *r;
    for (int k = 0; k < 3; k++) {
        strata_ctx *fresh = ctx_new(1);
        ck_assert_ok(strata_result_create(fresh, &alone[k]));
        ck_assert_ok(strata_world_make_chunk(fresh, w, (uint64_t)k * (n / 3) + 5, alone[k]));
        strata_ctx_destroy(fresh);
    }
    for (int isa = 0; isa < STRATA_ISA_COUNT_; isa++) {
        if (!(strata_cpu_isas() & STRATA_ISA_BIT(isa)))
            continue;
        for (int threads = 1; threads <= 2; threads++) {
            strata_ctx *c = ctx_new(threads);
            ck_assert_ok(strata_ctx_set_isa(c, (strata_isa)isa));
            ck_assert_ok(strata_result_create(c, &r));
            for (uint64_t id = 0; id < n; id++) {
                ck_assert_ok(strata_world_make_chunk(c, w, id, r));
                for (int k = 0; k < 3; k++)
                    if (id == (uint64_t)k * (n / 3) + 5) {
                        char what[64];
                        snprintf(what, sizeof what, "chunk %llu, %s, %d threads",
                                 (unsigned long long)id, strata_isa_name((strata_isa)isa),
                                 threads);
                        same_result(alone[k], r, what);
                    }
            }
            strata_result_destroy(r);
            strata_ctx_destroy(c);
        }
    }
    for (int k = 0; k < 3; k++)
        strata_result_destroy(alone[k]);
    strata_world_destroy(w);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ directories */

static int files_equal(const char *a, const char *b)
{
    size_t la, lb;
    unsigned char *x = slurp(a, &la), *y = slurp(b, &lb);
    const int eq = la == lb && !memcmp(x, y, la);
    free(x);
    free(y);
    return eq;
}

/* Make all of w into dir with `threads` threads, ids in `order` (NULL:
 * ascending), resume or not; the tileset after. */
static void make_dir(const strata_world *w, const char *dir, int threads, const uint64_t *order,
                     int resume, strata_world_run_stats *rs)
{
    strata_ctx *ctx = ctx_new(threads);
    strata_world_dir *d;
    ck_assert_ok(strata_world_dir_create(ctx, w, dir, STRATA_FORMAT_GLB, &d));
    const uint64_t n = strata_world_chunk_count(w);
    uint64_t *ids = malloc(n * sizeof *ids);
    for (uint64_t i = 0; i < n; i++)
        ids[i] = order ? order[i] : i;
    strata_world_run_options o;
    strata_world_run_defaults(&o);
    o.dir = d;
    o.ids = ids;
    o.nids = n;
    o.resume = resume;
    ck_assert_ok(strata_world_run(ctx, w, &o, rs));
    strata_tile_record *recs = malloc(n * sizeof *recs);
    for (uint64_t id = 0; id < n; id++)
        ck_assert_ok(strata_world_dir_read_tile(ctx, d, id, &recs[id]));
    ck_assert_ok(strata_world_dir_write_tileset(ctx, d, recs, n));
    free(recs);
    free(ids);
    strata_world_dir_close(d);
    strata_ctx_destroy(ctx);
}

START_TEST(test_directories)
{
    strata_ctx *ctx = ctx_new(2);
    strata_world *w = small_planet(ctx);
    const uint64_t n = strata_world_chunk_count(w);
    char *tmp = tmpdir_new();
    char *a = join(tmp, "a"), *b = join(tmp, "b");
    strata_world_run_stats rs;
    make_dir(w, a, 1, NULL, 0, &rs);
    ck_assert_uint_eq(rs.made, n);
    uint64_t *rev = malloc(n * sizeof *rev);
    for (uint64_t i = 0; i < n; i++)
        rev[i] = n - 1 - i;
    make_dir(w, b, 2, rev, 0, &rs);
    char rel[128];
    strata_world_dir *da, *db;
    ck_assert_ok(strata_world_dir_open(ctx, a, &da));
    ck_assert_ok(strata_world_dir_open(ctx, b, &db));
    ck_assert_uint_eq(strata_world_dir_chunk_count(da), n);
    for (uint64_t id = 0; id < n; id++) {
        ck_assert_ok(strata_world_dir_tile_path(da, id, rel, sizeof rel));
        char *pa = join(a, rel), *pb = join(b, rel);
        require(files_equal(pa, pb), "tile %s differs between 1 and 2 threads", rel);
        free(pa);
        free(pb);
    }
    char *ta = join(a, "tileset.json"), *tb = join(b, "tileset.json");
    ck_assert_msg(files_equal(ta, tb), "tilesets differ");
    char *ma = join(a, "world.json"), *mb = join(b, "world.json");
    ck_assert_msg(files_equal(ma, mb), "manifests differ");

    /* resume: everything is there */
    make_dir(w, a, 2, NULL, 1, &rs);
    ck_assert_uint_eq(rs.made, 0);
    ck_assert_uint_eq(rs.skipped, n);
    ck_assert_msg(files_equal(ta, tb), "tileset after resume differs");

    /* a tile cut short: FORMAT; the resume makes it again */
    ck_assert_ok(strata_world_dir_tile_path(da, 7, rel, sizeof rel));
    char *p7 = join(a, rel);
    size_t len, len2;
    unsigned char *bytes = slurp(p7, &len);
    FILE *f = fopen(p7, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, len / 2, f), len / 2);
    fclose(f);
    strata_tile_record rec;
    ck_assert_status(strata_world_dir_read_tile(ctx, da, 7, &rec), STRATA_ERR_FORMAT);
    ck_assert_status(strata_world_dir_check_tile(ctx, da, 7, &rec), STRATA_ERR_FORMAT);
    strata_world_run_options o;
    strata_world_run_defaults(&o);
    o.dir = da;
    const uint64_t seven = 7;
    o.ids = &seven;
    o.nids = 1;
    o.resume = 1;
    ck_assert_ok(strata_world_run(ctx, w, &o, &rs));
    ck_assert_uint_eq(rs.made, 1);
    unsigned char *again = slurp(p7, &len2);
    ck_assert(len2 == len && !memcmp(again, bytes, len));
    free(again);
    /* one byte changed, the size kept: only the checksum tells */
    f = fopen(p7, "r+b");
    ck_assert_int_eq(fseek(f, (long)len - 5, SEEK_SET), 0);
    fputc(bytes[len - 5] ^ 0x40, f);
    fclose(f);
    ck_assert_ok(strata_world_dir_read_tile(ctx, da, 7, &rec));
    ck_assert_uint_eq(rec.bytes, len);
    ck_assert_status(strata_world_dir_check_tile(ctx, da, 7, &rec), STRATA_ERR_FORMAT);
    ck_assert_ok(strata_world_run(ctx, w, &o, &rs));
    ck_assert_uint_eq(rs.made, 1);
    ck_assert_ok(strata_world_dir_check_tile(ctx, da, 7, &rec));
    again = slurp(p7, &len2);
    ck_assert(len2 == len && !memcmp(again, bytes, len));
    free(again);
    /* the lock: another process holding it exclusively is named */
    int ready[2], go[2];
    ck_assert_int_eq(pipe(ready), 0);
    ck_assert_int_eq(pipe(go), 0);
    const pid_t child = fork();
    ck_assert_int_ge(child, 0);
    if (child == 0) {
        strata_world_dir *dc;
        char c = strata_world_dir_open(ctx, a, &dc) == STRATA_OK &&
                         strata_world_dir_lock(dc, 1, NULL) == STRATA_OK
                     ? 'y'
                     : 'n';
        if (write(ready[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
            _exit(2);
        _exit(0); /* the lock goes with the process */
    }
    char c = 0;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    ck_assert_int_eq(c, 'y');
    long holder = 0;
    ck_assert_status(strata_world_dir_lock(da, 0, &holder), STRATA_ERR_CONFLICT);
    ck_assert_int_eq(holder, (long)child);
    ck_assert_status(strata_world_dir_lock(da, 1, &holder), STRATA_ERR_CONFLICT);
    ck_assert_int_eq(holder, (long)child);
    ck_assert_int_eq(write(go[1], "x", 1), 1);
    int wst;
    ck_assert_int_eq(waitpid(child, &wst, 0), child);
    ck_assert_ok(strata_world_dir_lock(da, 1, &holder));
    close(ready[0]), close(ready[1]), close(go[0]), close(go[1]);
    /* another chunk's tile in its place: CONFLICT */
    char rel8[128];
    ck_assert_ok(strata_world_dir_tile_path(da, 8, rel8, sizeof rel8));
    char *p8 = join(a, rel8);
    free(bytes);
    bytes = slurp(p8, &len);
    f = fopen(p7, "wb");
    ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    fclose(f);
    ck_assert_status(strata_world_dir_read_tile(ctx, da, 7, &rec), STRATA_ERR_CONFLICT);
    /* missing: IO, ENOENT */
    ck_assert_int_eq(unlink(p7), 0);
    ck_assert_status(strata_world_dir_read_tile(ctx, da, 7, &rec), STRATA_ERR_IO);
    ck_assert_int_eq(errno, ENOENT);
    /* made again by a resumed run: the same bytes as before */
    o.resume = 1;
    ck_assert_ok(strata_world_run(ctx, w, &o, &rs));
    ck_assert_uint_eq(rs.made, 1);
    char *pb7 = join(b, rel);
    ck_assert_msg(files_equal(p7, pb7), "re-made tile differs");

    /* another world in the directory: CONFLICT; a file for a directory: IO */
    strata_world_options wo;
    strata_world_defaults(&wo);
    wo.level = 6;
    wo.chunk_level = 2;
    wo.terraces = 5;
    strata_world *other;
    ck_assert_ok(strata_world_create(ctx, &wo, &other));
    strata_world_dir *d;
    ck_assert_status(strata_world_dir_create(ctx, other, a, STRATA_FORMAT_GLB, &d),
                     STRATA_ERR_CONFLICT);
    ck_assert_ptr_null(d);
    ck_assert_status(strata_world_dir_create(ctx, w, a, STRATA_FORMAT_PLY, &d),
                     STRATA_ERR_CONFLICT);
    ck_assert_status(strata_world_dir_create(ctx, w, p8, STRATA_FORMAT_GLB, &d), STRATA_ERR_IO);
    ck_assert_int_eq(errno, ENOTDIR);
    /* a manifest that is not one */
    f = fopen(ma, "wb");
    fputs("{\"strataWorld\":1}", f);
    fclose(f);
    ck_assert_status(strata_world_dir_open(ctx, a, &d), STRATA_ERR_FORMAT);
    ck_assert_status(strata_world_dir_create(ctx, w, a, STRATA_FORMAT_GLB, &d),
                     STRATA_ERR_FORMAT);

    strata_world_destroy(other);
    strata_world_dir_close(da);
    strata_world_dir_close(db);
    free(bytes);
    free(p7);
    free(p8);
    free(pb7);
    free(rev);
    free(ta);
    free(tb);
    free(ma);
    free(mb);
    free(a);
    free(b);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    ck_assert_int_eq(system(cmd), 0);
    free(tmp);
    strata_world_destroy(w);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ shards */

typedef struct {
    uint64_t work, id;
} weighted;

static int by_work(const void *pa, const void *pb)
{
    const weighted *a = pa, *b = pb;
    if (a->work != b->work)
        return a->work > b->work ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* strata_world_shard as its documentation says, the plain way: every
 * chunk sorted by (triangles down, id up), each to the least loaded
 * shard (lowest number on ties); sets owner[id]. */
static void shard_reference(const strata_world *w, uint64_t n, uint64_t *owner)
{
    const uint64_t nchunks = strata_world_chunk_count(w);
    weighted *order = malloc(nchunks * sizeof *order);
    uint64_t *load = calloc(n, sizeof *load);
    for (uint64_t id = 0; id < nchunks; id++) {
        strata_chunk_info ci;
        ck_assert_ok(strata_world_chunk_info(w, id, &ci));
        order[id] = (weighted){ci.triangles, id};
    }
    qsort(order, nchunks, sizeof *order, by_work);
    for (uint64_t i = 0; i < nchunks; i++) {
        uint64_t best = 0;
        for (uint64_t s = 1; s < n; s++)
            best = load[s] < load[best] ? s : best;
        load[best] += order[i].work;
        owner[order[i].id] = best;
    }
    free(order);
    free(load);
}

START_TEST(test_shards)
{
    strata_ctx *ctx = ctx_new(1);
    strata_heightmap *hm = integer_heightmap(ctx, 50, 37);
    strata_world_options o;
    strata_world_defaults(&o);
    o.kind = STRATA_WORLD_TERRAIN;
    o.heightmap = hm;
    o.tile_cells = 10; /* last row and column narrower */
    o.levels = integer_planes;
    o.nlevels = 7;
    strata_world *terrain, *lod;
    ck_assert_ok(strata_world_create(ctx, &o, &terrain));
    o.tile_cells = 3;
    o.lod = 1; /* tiles of several sizes at every depth */
    ck_assert_ok(strata_world_create(ctx, &o, &lod));
    strata_world *planet = small_planet(ctx);
    strata_world *worlds[3] = {planet, terrain, lod};
    for (int k = 0; k < 3; k++) {
        const strata_world *w = worlds[k];
        const uint64_t n = strata_world_chunk_count(w);
        uint64_t *owner = malloc(n * sizeof *owner);
        for (uint64_t shards = 1; shards <= 7; shards++) {
            if (k > 0)
                shard_reference(w, shards, owner);
            uint8_t *seen = calloc(n, 1);
            uint64_t lo = UINT64_MAX, hi = 0, biggest = 0;
            for (uint64_t s = 0; s < shards; s++) {
                uint64_t cnt, got, *ids = malloc((n + 1) * sizeof *ids), load = 0;
                ck_assert_ok(strata_world_shard(w, s, shards, NULL, 0, &cnt));
                ck_assert_ok(strata_world_shard(w, s, shards, ids, cnt, &got));
                ck_assert_uint_eq(cnt, got);
                for (uint64_t i = 0; i < got; i++) {
                    require(ids[i] < n && !seen[ids[i]], "id %llu twice or out of range",
                            (unsigned long long)ids[i]);
                    require(i == 0 || ids[i] > ids[i - 1], "ids not ascending");
                    seen[ids[i]] = 1;
                    strata_chunk_info ci;
                    ck_assert_ok(strata_world_chunk_info(w, ids[i], &ci));
                    load += ci.triangles;
                    biggest = ci.triangles > biggest ? ci.triangles : biggest;
                    if (k == 0)
                        require(ids[i] % shards == s, "planet shards deal round robin");
                    else
                        require(owner[ids[i]] == s, "chunk %llu in shard %llu, not %llu",
                                (unsigned long long)ids[i], (unsigned long long)s,
                                (unsigned long long)owner[ids[i]]);
                }
                lo = load < lo ? load : lo;
                hi = load > hi ? load : hi;
                free(ids);
            }
            for (uint64_t id = 0; id < n; id++)
                require(seen[id], "chunk %llu in no shard", (unsigned long long)id);
            /* greedy by size: within one chunk of each other */
            ck_assert_uint_le(hi - lo, biggest);
            free(seen);
        }
        free(owner);
        uint64_t cnt;
        ck_assert_status(strata_world_shard(w, 3, 3, NULL, 0, &cnt), STRATA_ERR_INVALID_ARG);
        ck_assert_status(strata_world_shard(w, 0, 0, NULL, 0, &cnt), STRATA_ERR_INVALID_ARG);
    }
    strata_world_destroy(planet);
    strata_world_destroy(terrain);
    strata_world_destroy(lod);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ edits */

typedef struct {
    float c[3], r, dh;
} bump;

/* A smooth bump of height dh within distance r of c (a function of the
 * position alone). */
static void bump_fn(void *user, const float *x, const float *y, const float *z, float *h, size_t n)
{
    const bump *b = user;
    for (size_t i = 0; i < n; i++) {
        const float dx = x[i] - b->c[0], dy = y[i] - b->c[1], dz = z[i] - b->c[2];
        const float d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < b->r * b->r)
            h[i] += b->dh * (1.0f - d2 / (b->r * b->r));
    }
}

static strata_world *lod_world(strata_ctx *ctx, int i, int lod, int skirts,
                               strata_heightmap **hm);

/* The chunks near an edit are every chunk it changes: re-making them is
 * re-making the world (loop 1: with --lod's coarser tiles and skirts). */
START_TEST(test_edits)
{
    strata_ctx *ctx = ctx_new(1);
    strata_heightmap *hm = NULL;
    strata_world *w = _i ? lod_world(ctx, 0, 1, 1, &hm) : small_planet(ctx);
    const uint64_t n = strata_world_chunk_count(w);
    strata_result **before = malloc(n * sizeof *before), *r;
    for (uint64_t id = 0; id < n; id++) {
        ck_assert_ok(strata_result_create(ctx, &before[id]));
        ck_assert_ok(strata_world_make_chunk(ctx, w, id, before[id]));
    }
    const float d = 1.0f / sqrtf(3.0f);
    bump b = {{d, d, d}, 0.25f, 0.05f};
    uint64_t count, *ids = malloc(n * sizeof *ids);
    ck_assert_ok(strata_world_chunks_near(w, b.c, b.r, ids, n, &count));
    ck_assert_uint_gt(count, 0);
    ck_assert_uint_lt(count, n / 2);
    strata_world_set_height_fn(w, bump_fn, &b);
    uint8_t *near = calloc(n, 1);
    for (uint64_t i = 0; i < count; i++)
        near[ids[i]] = 1;
    ck_assert_ok(strata_result_create(ctx, &r));
    uint64_t changed = 0, changed_inner = 0;
    for (uint64_t id = 0; id < n; id++) {
        ck_assert_ok(strata_world_make_chunk(ctx, w, id, r));
        strata_result_view u, v;
        strata_result_get_view(before[id], &u);
        strata_result_get_view(r, &v);
        const int same = u.nverts == v.nverts && u.nindices == v.nindices &&
                         !memcmp(u.x, v.x, 4 * (size_t)u.nverts) &&
                         !memcmp(u.y, v.y, 4 * (size_t)u.nverts) &&
                         !memcmp(u.z, v.z, 4 * (size_t)u.nverts) &&
                         !memcmp(u.indices, v.indices, 4 * (size_t)u.nindices);
        require(same || near[id], "chunk %llu changed but is not near the edit",
                (unsigned long long)id);
        changed += !same;
        changed_inner += !same && id >= strata_world_leaf_count(w);
    }
    ck_assert_uint_gt(changed, 0);
    if (_i) /* every depth above the leaves holds the edit */
        ck_assert_uint_ge(changed_inner, strata_world_leaf_depth(w));
    /* a ball holding the centre reaches every chunk */
    const float origin[3] = {0, 0, 0};
    ck_assert_ok(strata_world_chunks_near(w, origin, 0.5f, NULL, 0, &count));
    ck_assert_uint_eq(count, n);
    ck_assert_status(strata_world_chunks_near(w, origin, -1.0f, NULL, 0, &count),
                     STRATA_ERR_INVALID_ARG);
    strata_result_destroy(r);
    for (uint64_t id = 0; id < n; id++)
        strata_result_destroy(before[id]);
    free(before);
    free(ids);
    free(near);
    strata_world_destroy(w);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ limits */

/* WGS84 by the reduced latitude beta (tan beta = (1 - f) tan lat): the
 * same point as strata_geo_ecef's prime-vertical formula, another way. */
static void reduced_ecef(double lon, double lat, double h, double out[3])
{
    const double a = 6378137.0, b = a * (1 - 1 / 298.257223563);
    const double deg = 3.14159265358979323846 / 180, l = lon * deg, p = lat * deg;
    const double beta = atan2(b * sin(p), a * cos(p));
    out[0] = (a * cos(beta) + h * cos(p)) * cos(l);
    out[1] = (a * cos(beta) + h * cos(p)) * sin(l);
    out[2] = b * sin(beta) + h * sin(p);
}

/* Placing on the Earth: ECEF within 1 mm of the reduced-latitude
 * route (exact on the axes), the ENU frame orthonormal, up the
 * ellipsoid's normal, north and east the directions the place moves in
 * as its latitude and longitude grow, scaled; bad places refused. */
START_TEST(test_geo)
{
    static const double places[][3] = {
        {0, 0, 0},          {90, 0, 0},        {180, 0, 0},          {-180, 0, 100},
        {0, 90, 0},         {0, -90, -50},     {2.3522, 48.8566, 35}, {-122.4194, 37.7749, 12.5},
        {151.2093, -33.8688, 58}, {-70.6693, -33.4489, 8848}, {45, 45, -430}, {179.999, 89.999, 1e6}};
    const double a = 6378137.0, b = a * (1 - 1 / 298.257223563);
    double e[3], m[16];
    ck_assert_ok(strata_geo_ecef(0, 0, 0, e));
    ck_assert(e[0] == a && e[1] == 0 && e[2] == 0);
    ck_assert_ok(strata_geo_ecef(90, 0, 0, e));
    ck_assert(e[0] == 0 && e[1] == a && e[2] == 0);
    ck_assert_ok(strata_geo_ecef(0, 90, 0, e));
    ck_assert(e[0] == 0 && e[1] == 0);
    ck_assert_double_eq_tol(e[2], b, 1e-6);
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        const double lon = places[i][0], lat = places[i][1], h = places[i][2];
        double want[3];
        reduced_ecef(lon, lat, h, want);
        ck_assert_ok(strata_geo_ecef(lon, lat, h, e));
        for (int k = 0; k < 3; k++)
            require(fabs(e[k] - want[k]) < 1e-3, "place %zu axis %d: %.6f, want %.6f", i, k,
                    e[k], want[k]);
        const double scale = 1 + (double)i;
        ck_assert_ok(strata_geo_enu(lon, lat, h, scale, m));
        for (int k = 0; k < 3; k++)
            ck_assert(m[12 + k] == e[k]);
        ck_assert(m[3] == 0 && m[7] == 0 && m[11] == 0 && m[15] == 1);
        for (int c = 0; c < 3; c++)
            for (int d = 0; d < 3; d++) {
                double dot = 0;
                for (int k = 0; k < 3; k++)
                    dot += m[4 * c + k] * m[4 * d + k];
                ck_assert_double_eq_tol(dot, c == d ? scale * scale : 0, 1e-12 * scale * scale);
            }
        /* right-handed: east x north = up */
        const double *E = m, *N = m + 4, *U = m + 8;
        const double x[3] = {E[1] * N[2] - E[2] * N[1], E[2] * N[0] - E[0] * N[2],
                             E[0] * N[1] - E[1] * N[0]};
        for (int k = 0; k < 3; k++)
            ck_assert_double_eq_tol(x[k], scale * U[k], 1e-12 * scale * scale);
        /* up: the ellipsoid's normal (x / a^2, y / a^2, z / b^2) at the
         * point on the surface below */
        double s0[3];
        ck_assert_ok(strata_geo_ecef(lon, lat, 0, s0));
        double g[3] = {s0[0] / (a * a), s0[1] / (a * a), s0[2] / (b * b)};
        const double gl = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
        for (int k = 0; k < 3; k++)
            ck_assert_double_eq_tol(U[k] / scale, g[k] / gl, 1e-12);
        /* north and east: where a small step of latitude (longitude) goes */
        if (fabs(lat) < 89) {
            double p1[3], q1[3];
            ck_assert_ok(strata_geo_ecef(lon, lat + 1e-6, h, p1));
            ck_assert_ok(strata_geo_ecef(lon + (lon < 179 ? 1e-6 : -1e-6), lat, h, q1));
            double dn[3], de[3], ln = 0, le = 0;
            for (int k = 0; k < 3; k++) {
                dn[k] = p1[k] - e[k], de[k] = (q1[k] - e[k]) * (lon < 179 ? 1 : -1);
                ln += dn[k] * dn[k], le += de[k] * de[k];
            }
            for (int k = 0; k < 3; k++) {
                ck_assert_double_eq_tol(N[k] / scale, dn[k] / sqrt(ln), 1e-6);
                ck_assert_double_eq_tol(E[k] / scale, de[k] / sqrt(le), 1e-6);
            }
        }
    }
    ck_assert_status(strata_geo_ecef(180.5, 0, 0, e), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_geo_ecef(0, -90.5, 0, e), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_geo_ecef(NAN, 0, 0, e), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_geo_ecef(0, 0, 2e7, e), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_geo_ecef(0, 0, 0, NULL), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_geo_enu(0, 0, 0, 0, m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_geo_enu(0, 0, 0, -1, m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_geo_enu(0, 0, 0, NAN, m), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_geo_enu(0, 0, 0, 2e9, m), STRATA_ERR_INVALID_ARG);
    /* turned by a heading: heading 0 is the east-north-up frame bit for
     * bit; h degrees turn its x and y clockwise seen from above (y, the
     * world's -z, then points h east of north), up and origin kept */
    static const double headings[] = {0.623, -1.5, 90, 180, -270, 359.9};
    double f[16];
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        const double lon = places[i][0], lat = places[i][1], hgt = places[i][2];
        ck_assert_ok(strata_geo_enu(lon, lat, hgt, 2.5, m));
        ck_assert_ok(strata_geo_frame(lon, lat, hgt, 2.5, 0.0, f));
        ck_assert_mem_eq(f, m, sizeof m);
        for (size_t k = 0; k < sizeof headings / sizeof headings[0]; k++) {
            const double h = headings[k] * (3.14159265358979323846 / 180);
            ck_assert_ok(strata_geo_frame(lon, lat, hgt, 2.5, headings[k], f));
            for (int r = 0; r < 3; r++) {
                ck_assert_double_eq_tol(f[r], cos(h) * m[r] - sin(h) * m[4 + r], 1e-12);
                ck_assert_double_eq_tol(f[4 + r], sin(h) * m[r] + cos(h) * m[4 + r], 1e-12);
                ck_assert(f[8 + r] == m[8 + r] && f[12 + r] == m[12 + r]);
            }
        }
    }
    ck_assert_status(strata_geo_frame(0, 0, 0, 1, 360.5, f), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_geo_frame(0, 0, 0, 1, NAN, f), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_geo_frame(0, 0, 0, 1, 0, NULL), STRATA_ERR_INVALID_ARG);
    /* a world placed badly is refused when made */
    strata_ctx *ctx = ctx_new(1);
    strata_world_options o;
    strata_world_defaults(&o);
    ck_assert(o.place == 0 && o.place_scale == 1);
    o.level = 3;
    o.chunk_level = 1;
    o.place = 1;
    o.place_lat = 91;
    strata_world *w;
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_INVALID_ARG);
    o.place_lat = 45;
    o.place_scale = 0;
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_INVALID_ARG);
    o.place_scale = 2;
    o.place_heading = 400;
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_INVALID_ARG);
    o.place_heading = -12.5;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    strata_world_destroy(w);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_bad_options)
{
    strata_ctx *ctx = ctx_new(1);
    strata_world_options o;
    strata_world *w = (strata_world *)1;
    strata_world_defaults(&o);
    o.chunk_level = 6; /* == level */
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_INVALID_ARG);
    ck_assert_ptr_null(w);
    strata_world_defaults(&o);
    o.level = 14;
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_INVALID_ARG);
    strata_world_defaults(&o);
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.amplitude = 0.6f; /* bound 1.18 >= radius 1 */
    o.noise = &f;
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_INVALID_ARG);
    strata_world_defaults(&o);
    o.terraces = 0;
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_BAD_LEVELS);
    const float down[] = {2, 1};
    strata_world_defaults(&o);
    o.levels = down;
    o.nlevels = 2;
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_BAD_LEVELS);
    strata_world_defaults(&o);
    o.kind = STRATA_WORLD_TERRAIN; /* no heightmap, no cells */
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_INVALID_ARG);
    o.cells_x = o.cells_z = 10;
    o.tile_cells = 0;
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_INVALID_ARG);
    o.tile_cells = 4;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    ck_assert_uint_eq(strata_world_chunk_count(w), 9);
    strata_result *r;
    ck_assert_ok(strata_result_create(ctx, &r));
    ck_assert_status(strata_world_make_chunk(ctx, w, 9, r), STRATA_ERR_INVALID_ARG);
    strata_chunk_info ci;
    ck_assert_ok(strata_world_chunk_info(w, 8, &ci));
    ck_assert_uint_eq(ci.x1 - ci.x0, 2); /* the narrow last tile */
    ck_assert_str_eq(ci.path, "tiles/2/2_2");
    strata_result_destroy(r);
    strata_world_destroy(w);
    strata_ctx_destroy(ctx);
}
END_TEST


/* ------------------------------------------------------------ levels of detail */

/* World i of the lod tests (lod and skirts as given): 0 a noise planet,
 * 1 a terrain from a template with noise, 2 a terrain from an integer
 * heightmap on integer planes (heights exactly on planes), with normals. */
static strata_world *lod_world(strata_ctx *ctx, int i, int lod, int skirts,
                               strata_heightmap **hm)
{
    static strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.3f;
    f.amplitude = 4.0f;
    strata_world_options o;
    strata_world_defaults(&o);
    *hm = NULL;
    if (i == 0) {
        o.level = 6;
        o.chunk_level = 2;
        o.noise = planet_noise();
        o.terraces = 16;
    } else if (i == 1) {
        *hm = integer_heightmap(ctx, 9, 7);
        o.kind = STRATA_WORLD_TERRAIN;
        o.heightmap = *hm;
        o.patch_cells = 8;
        o.tile_cells = 8;
        o.noise = &f;
        o.terraces = 10;
    } else {
        *hm = integer_heightmap(ctx, 31, 23);
        o.kind = STRATA_WORLD_TERRAIN;
        o.heightmap = *hm;
        o.cell_size = 0.5f;
        o.tile_cells = 4;
        o.levels = integer_planes;
        o.nlevels = 7;
        o.normals = 1; /* the skirts' normals */
    }
    o.lod = lod;
    o.skirts = skirts;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    return w;
}

/* The part of r before its skirt equals a (the same tile without); a
 * skirt there when need_skirt (a tile whose whole border is the world's
 * outer border has none). */
static void prefix_same(const strata_result *a, const strata_result *r, uint32_t *nverts,
                        int need_skirt, const char *what)
{
    strata_result_view u, v;
    strata_result_get_view(a, &u);
    strata_result_get_view(r, &v);
    ck_assert_msg(v.nterraces == u.nterraces && (v.nverts > u.nverts && v.nindices > u.nindices ||
                                                 !need_skirt),
                  "%s: no skirt", what);
    ck_assert_msg(!memcmp(u.x, v.x, 4 * (size_t)u.nverts) &&
                      !memcmp(u.y, v.y, 4 * (size_t)u.nverts) &&
                      !memcmp(u.z, v.z, 4 * (size_t)u.nverts) &&
                      !memcmp(u.indices, v.indices, 4 * (size_t)u.nindices) &&
                      !memcmp(u.terraces, v.terraces, sizeof *u.terraces * u.nterraces),
                  "%s: the tile's own vertices or triangles changed", what);
    *nverts = u.nverts;
}

/* Water and props per tile (strata_world_options.water, .props): each
 * tile is the plain world's tile with its water square and props after
 * it; the squares tile the grid's rectangle (the whole mesh's water); a
 * prop stands on its own tile's roofs at a plane's height, the same for
 * any thread count; the tiles hold as many props as the whole mesh holds
 * give or take chance; both change the fingerprint. */
START_TEST(test_water_and_props)
{
    strata_ctx *ctx = ctx_new(2), *one = ctx_new(1);
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.35f;
    f.amplitude = 0.5f;
    f.seed = 11;
    strata_props_options props;
    strata_props_defaults(&props);
    props.density = 6;
    props.seed = 3;
    props.min_scale = 0.05f;
    props.max_scale = 0.1f;
    strata_world_options o;
    strata_world_defaults(&o);
    o.kind = STRATA_WORLD_TERRAIN;
    o.cells_x = 48;
    o.cells_z = 40;
    o.cell_size = 0.25f;
    o.tile_cells = 16;
    o.noise = &f;
    o.terraces = 8;
    o.sea = 1;
    o.sea_level = 0.0f;
    strata_world *plain, *w;
    ck_assert_ok(strata_world_create(ctx, &o, &plain));
    o.water = 1;
    o.props = &props;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    ck_assert_uint_ne(strata_world_fingerprint(plain), strata_world_fingerprint(w));
    uint32_t nl;
    const float *L = strata_world_levels(w, &nl);

    strata_result *a, *b, *c;
    ck_assert_ok(strata_result_create(ctx, &a));
    ck_assert_ok(strata_result_create(ctx, &b));
    ck_assert_ok(strata_result_create(one, &c));
    double water_area = 0;
    uint64_t nprops = 0;
    for (uint64_t id = 0; id < strata_world_chunk_count(w); id++) {
        char what[48];
        snprintf(what, sizeof what, "tile %llu", (unsigned long long)id);
        strata_props *p, *q;
        ck_assert_ok(strata_world_make_chunk(ctx, plain, id, a));
        ck_assert_ok(strata_world_make_chunk_props(ctx, w, id, b, &p));
        ck_assert_ok(strata_world_make_chunk_props(one, w, id, c, &q));
        same_result(b, c, what);
        uint32_t nv;
        prefix_same(a, b, &nv, 1, what);
        strata_result_view u, v;
        strata_result_get_view(a, &u);
        strata_result_get_view(b, &v);
        /* the water: the tile's square at the sea, 2 triangles */
        float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
        for (uint32_t i = 0; i < u.nverts; i++) {
            lo[0] = fminf(lo[0], u.x[i]);
            hi[0] = fmaxf(hi[0], u.x[i]);
            lo[1] = fminf(lo[1], u.z[i]);
            hi[1] = fmaxf(hi[1], u.z[i]);
        }
        ck_assert_uint_eq(v.water_count, 6);
        ck_assert_uint_eq(v.nverts, u.nverts + 4);
        for (uint32_t i = u.nverts; i < v.nverts; i++) {
            ck_assert_float_eq(v.y[i], 0.0f);
            ck_assert(v.x[i] == lo[0] || v.x[i] == hi[0]);
            ck_assert(v.z[i] == lo[1] || v.z[i] == hi[1]);
        }
        water_area += ((double)hi[0] - lo[0]) * ((double)hi[1] - lo[1]);
        /* the props: on the tile, at a plane, the same for 1 thread */
        strata_props_view pv, qv;
        strata_props_get_view(p, &pv);
        strata_props_get_view(q, &qv);
        ck_assert_uint_eq(pv.count, qv.count);
        ck_assert_int_eq(memcmp(pv.x, qv.x, pv.count * sizeof(float)), 0);
        ck_assert_int_eq(memcmp(pv.yaw, qv.yaw, pv.count * sizeof(float)), 0);
        for (uint64_t i = 0; i < pv.count; i++) {
            require(pv.x[i] >= lo[0] && pv.x[i] <= hi[0] && pv.z[i] >= lo[1] &&
                        pv.z[i] <= hi[1],
                    "%s: prop %llu at (%g, %g) off the tile", what, (unsigned long long)i,
                    (double)pv.x[i], (double)pv.z[i]);
            require(pv.terrace[i] < nl && pv.y[i] == L[pv.terrace[i]],
                    "%s: prop %llu at height %g, not on its terrace", what,
                    (unsigned long long)i, (double)pv.y[i]);
            require(pv.scale[i] >= props.min_scale && pv.scale[i] <= props.max_scale,
                    "%s: prop %llu of scale %g", what, (unsigned long long)i,
                    (double)pv.scale[i]);
        }
        nprops += pv.count;
        strata_props_destroy(p);
        strata_props_destroy(q);
    }
    ck_assert_double_eq_tol(water_area, 12.0 * 10.0, 1e-9);

    /* the whole mesh of the same options: its water is the rectangle,
     * its props as many give or take chance (the same roof area and
     * density: a count of about 2000, so 5 standard deviations are
     * about 230) */
    strata_mesh *m;
    ck_assert_ok(strata_shape_grid(ctx, 48, 40, 0.25f, &m));
    ck_assert_ok(strata_displace_flat(ctx, m, &f, NULL));
    strata_pipeline_options po;
    strata_pipeline_defaults(&po);
    po.terraces.count = 8;
    po.terraces.sea = 1;
    po.terraces.sea_level = 0.0f;
    po.water = 1;
    po.props = &props;
    strata_result *r;
    strata_props *whole;
    ck_assert_ok(strata_pipeline_run(ctx, m, &po, &r, &whole, NULL));
    strata_props_view wv;
    strata_props_get_view(whole, &wv);
    ck_assert_uint_gt(wv.count, 500);
    const double sd = sqrt((double)wv.count);
    ck_assert_msg(fabs((double)nprops - (double)wv.count) < 5 * sd,
                  "tiles hold %llu props, the whole mesh %llu", (unsigned long long)nprops,
                  (unsigned long long)wv.count);
    strata_props_destroy(whole);
    strata_result_destroy(r);
    strata_mesh_destroy(m);

    /* refused: water without a sea level, below a planet's centre; bad props */
    o.sea = 0;
    strata_world *bad;
    ck_assert_status(strata_world_create(ctx, &o, &bad), STRATA_ERR_INVALID_ARG);
    o.sea = 1;
    props.min_scale = 0;
    ck_assert_status(strata_world_create(ctx, &o, &bad), STRATA_ERR_INVALID_ARG);
    strata_world_defaults(&o);
    o.sea = 1;
    o.sea_level = -2.0f; /* at or below the planet's centre */
    o.water = 1;
    ck_assert_status(strata_world_create(ctx, &o, &bad), STRATA_ERR_INVALID_ARG);

    strata_result_destroy(a);
    strata_result_destroy(b);
    strata_result_destroy(c);
    strata_world_destroy(w);
    strata_world_destroy(plain);
    strata_ctx_destroy(one);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The water a whole level-5 noise planet gets, sphere of level s, as
 * keys added to l. */
static void whole_planet_water(strata_ctx *ctx, uint32_t s, key_list *l)
{
    strata_mesh *m;
    strata_result *r;
    ck_assert_ok(strata_shape_icosphere(ctx, 5, 1.0f, &m));
    ck_assert_ok(strata_displace_radial(ctx, m, planet_noise(), NULL));
    strata_pipeline_options po;
    strata_pipeline_defaults(&po);
    po.terraces.count = 10;
    po.terraces.sea = 1;
    po.terraces.sea_level = 0.02f;
    po.water = 1;
    po.water_sphere_level = s;
    ck_assert_ok(strata_pipeline_run(ctx, m, &po, &r, NULL, NULL));
    keys_add_water(l, r);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
}

/* The water of every chunk of w into keys, a list per depth. */
static void water_by_depth(strata_ctx *ctx, const strata_world *w, key_list *by_depth)
{
    strata_result *r;
    ck_assert_ok(strata_result_create(ctx, &r));
    for (uint64_t id = 0; id < strata_world_chunk_count(w); id++) {
        strata_chunk_info ci;
        ck_assert_ok(strata_world_chunk_info(w, id, &ci));
        ck_assert_ok(strata_world_make_chunk(ctx, w, id, r));
        keys_add_water(&by_depth[ci.depth], r);
    }
    strata_result_destroy(r);
}

/* A planet world's water: each chunk holds its part of the sphere, and
 * the parts are, bit for bit, the sphere a whole mesh gets (the same
 * triangles with the same corners); raised to a level finer than the
 * chunks.  With lod (loop 1): the leaves' parts as without it, and the
 * tiles of each coarser depth k together the whole mesh's sphere of level
 * max(k + 1, min(4, the depth's ground level 2 + k)). */
START_TEST(test_planet_water)
{
    strata_ctx *ctx = ctx_new(2);
    strata_world_options o;
    strata_world_defaults(&o);
    o.level = 5;
    o.chunk_level = 2;
    o.noise = planet_noise();
    o.terraces = 10;
    o.sea = 1;
    o.sea_level = 0.02f;
    o.water = 1;
    o.water_level = 4;
    o.lod = _i;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    key_list parts[3] = {{0}}, whole = {0};
    strata_result *r;
    water_by_depth(ctx, w, parts);
    ck_assert_uint_eq(parts[2].n, 20u * 256u); /* 16 of level 4 in each of 320 */
    whole_planet_water(ctx, 4, &whole);
    keys_equal(&whole, &parts[2], "the chunks' water against the whole mesh's");
    for (uint32_t k = 0; _i && k < 2; k++) {
        const uint32_t level = 2 + k; /* min(4, 5 - 2 + k - 1), above k + 1 */
        whole.n = 0;
        whole_planet_water(ctx, level, &whole);
        ck_assert_uint_eq(parts[k].n, 20u << (2 * level));
        keys_equal(&whole, &parts[k], "a coarser depth's water against the whole mesh's");
    }
    if (!_i)
        ck_assert_uint_eq(parts[0].n + parts[1].n, 0);
    strata_world_destroy(w);
    for (int k = 0; k < 3; k++)
        parts[k].n = 0;

    /* coarser parts bigger than a leaf's (level 7, chunk level 3, the
     * sphere's level 4): depths 1 and 2 hold the leaves' sphere in
     * chunks of 64 and 16 triangles against a leaf's 4, depth 0 one of
     * level 3 (its ground's) */
    if (_i) {
        strata_world_options b = o;
        b.level = 7;
        b.chunk_level = 3;
        ck_assert_ok(strata_world_create(ctx, &b, &w));
        key_list deep[4] = {{0}};
        water_by_depth(ctx, w, deep);
        for (uint32_t k = 0; k < 4; k++) {
            whole.n = 0;
            whole_planet_water(ctx, k ? 4 : 3, &whole);
            keys_equal(&whole, &deep[k], "level 7 lod: a depth's water against the whole's");
            free(deep[k].k);
        }
        strata_world_destroy(w);
    }

    /* a sphere coarser than the chunks is raised to a level finer */
    o.water_level = 1;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    ck_assert_ok(strata_result_create(ctx, &r));
    ck_assert_ok(strata_world_make_chunk(ctx, w, 7, r)); /* the leaves come first */
    strata_result_view v;
    strata_result_get_view(r, &v);
    ck_assert_uint_eq(v.water_count, 3 * 4); /* level 3: 4 triangles a chunk */
    strata_result_destroy(r);
    strata_world_destroy(w);
    for (int k = 0; k < 3; k++)
        free(parts[k].k);
    free(whole.k);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ shorelines */

/* A coast vertex of a tile's ribbon: its position bits and U. */
typedef struct {
    uint32_t p[3];
    float u;
    uint32_t tile;
} coast_pt;

static int cmp_coast(const void *a, const void *b)
{
    const coast_pt *x = a, *y = b;
    const int c = memcmp(x->p, y->p, sizeof x->p);
    return c ? c : (x->tile > y->tile) - (x->tile < y->tile);
}

/* U along each piece of v's ribbons (a run of segments whose quads
 * share their pairs) against its length over width: forwards, and off
 * by at most half a repeat (under one repeat for a piece under half of
 * one); returns the pieces. */
static size_t u_along(const strata_result_view *v, float width, const char *what)
{
    const uint32_t *ix = v->indices + v->shore_first;
    const uint64_t nseg = v->shore_count / 6;
    size_t pieces = 0;
    for (uint64_t s = 0; s < nseg;) {
        const uint32_t first = ix[6 * s];
        double len = 0;
        uint64_t e = s;
        for (;; e++) {
            const uint32_t c1 = ix[6 * e], c0 = ix[6 * e + 1];
            const double d[3] = {(double)v->x[c0] - v->x[c1], (double)v->y[c0] - v->y[c1],
                                 (double)v->z[c0] - v->z[c1]};
            len += sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (e + 1 == nseg || ix[6 * (e + 1)] != c0)
                break;
        }
        const uint32_t last = ix[6 * e + 1];
        const double du = (double)v->uv[2 * (last - v->uv_first)] - v->uv[2 * (first - v->uv_first)];
        len /= width;
        const double tol = 1e-5 * (1 + len);
        require(du >= -tol && (fabs(du - len) <= 0.5 + tol || (len < 0.5 && du < 1 + tol)),
                "%s: a piece %.6g repeats long has U running %.6g", what, len, du);
        pieces++;
        s = e + 1;
    }
    return pieces;
}

/* Every tile of w (made with 2 threads and again with 1: the same
 * bytes): its shoreline triangles into parts, its coast vertices (V 0)
 * into *pts; U along its pieces (u_along). */
static void tile_shores(strata_ctx *ctx, strata_ctx *one, const strata_world *w, key_list *parts,
                        coast_pt **pts, size_t *npts, float width)
{
    strata_result *r, *q;
    ck_assert_ok(strata_result_create(ctx, &r));
    ck_assert_ok(strata_result_create(one, &q));
    size_t cap = 0;
    *pts = NULL;
    *npts = 0;
    for (uint64_t id = 0; id < strata_world_chunk_count(w); id++) {
        char what[48];
        snprintf(what, sizeof what, "shoreline tile %llu", (unsigned long long)id);
        ck_assert_ok(strata_world_make_chunk(ctx, w, id, r));
        ck_assert_ok(strata_world_make_chunk(one, w, id, q));
        same_result(r, q, what);
        strata_result_view v;
        strata_result_get_view(r, &v);
        keys_add_range(parts, &v, v.shore_first, v.shore_count, UINT32_MAX, 3);
        u_along(&v, width, what);
        for (uint32_t i = 0; i < v.nuv; i += 2) { /* pairs: coast, outer */
            const uint32_t c = v.uv_first + i;
            require(v.uv[2 * i + 1] == 0.0f && v.uv[2 * i + 3] == 1.0f &&
                        v.uv[2 * i] == v.uv[2 * i + 2],
                    "%s: pair %u's V or U", what, i / 2);
            if (*npts == cap) {
                cap = cap ? 2 * cap : 4096;
                *pts = realloc(*pts, cap * sizeof **pts);
                ck_assert_ptr_nonnull(*pts);
            }
            coast_pt *pt = &(*pts)[(*npts)++];
            memcpy(&pt->p[0], &v.x[c], 4);
            memcpy(&pt->p[1], &v.y[c], 4);
            memcpy(&pt->p[2], &v.z[c], 4);
            pt->u = v.uv[2 * i];
            pt->tile = (uint32_t)id;
        }
    }
    strata_result_destroy(r);
    strata_result_destroy(q);
}

/* Where a coast point is in two tiles (a border crossing), U differs by
 * a whole number, exactly (tolerance 0: U there is a multiple of 1/256
 * plus a whole number, exact in float below 2^16); returns the
 * crossings. */
static size_t u_continuous(coast_pt *pts, size_t n, const char *what)
{
    qsort(pts, n, sizeof *pts, cmp_coast);
    size_t crossings = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (memcmp(pts[i].p, pts[i + 1].p, sizeof pts[i].p) || pts[i].tile == pts[i + 1].tile)
            continue;
        const double d = (double)pts[i + 1].u - pts[i].u;
        require(d == nearbyint(d), "%s: U %.9g and %.9g at a border point of tiles %u and %u",
                what, (double)pts[i].u, (double)pts[i + 1].u, pts[i].tile, pts[i + 1].tile);
        crossings++;
    }
    return crossings;
}

/* The union of the tiles' shoreline triangles against the whole mesh's
 * (the same corners, bit for bit), U continuous across borders and
 * running with the length along each piece. */
static void expect_shore_union(strata_ctx *ctx, const strata_world *w, const strata_mesh *m,
                               const strata_pipeline_options *po, const char *what)
{
    strata_ctx *one = ctx_new(1);
    strata_result *r;
    ck_assert_ok(strata_pipeline_run(ctx, m, po, &r, NULL, NULL));
    strata_result_view v;
    strata_result_get_view(r, &v);
    key_list whole = {0}, parts = {0};
    keys_add_range(&whole, &v, v.shore_first, v.shore_count, UINT32_MAX, 3);
    ck_assert_uint_gt(u_along(&v, po->shoreline, "the whole mesh"), 10);
    strata_result_destroy(r);
    coast_pt *pts;
    size_t npts;
    tile_shores(ctx, one, w, &parts, &pts, &npts, po->shoreline);
    ck_assert_msg(whole.n > 200, "%s: only %zu shoreline triangles", what, whole.n);
    keys_equal(&whole, &parts, what);
    const size_t crossings = u_continuous(pts, npts, what);
    ck_assert_msg(crossings > 10, "%s: only %zu border crossings", what, crossings);
    free(pts);
    free(whole.k);
    free(parts.k);
    strata_ctx_destroy(one);
}

/* Shorelines per tile (strata_world_options.shoreline): a noise planet
 * at chunk levels 1 and 2, a noise terrain in tiles of 16 and 7 cells
 * (the ribbons reach the grid's border): the union of the tiles'
 * ribbons is the whole mesh's, triangle for triangle (positions bit for
 * bit; without the coast past the border they differ), the tiles are
 * the same for 1 and 2 threads, U differs by exactly a whole number at
 * every border crossing and runs with the length along each piece
 * (within half a repeat); the width is in the fingerprint; refused
 * without a sea level, or not finite. */
START_TEST(test_shoreline)
{
    strata_ctx *ctx = ctx_new(2);
    strata_world_options o;
    strata_pipeline_options po;
    strata_world *w;
    strata_mesh *m;
    char what[64];
    strata_pipeline_defaults(&po);
    po.terraces.count = 10;
    po.terraces.sea = 1;
    po.terraces.sea_level = 0.02f;
    po.water = 1;
    po.shoreline = 0.03f;
    ck_assert_ok(strata_shape_icosphere(ctx, 5, 1.0f, &m));
    ck_assert_ok(strata_displace_radial(ctx, m, planet_noise(), NULL));
    for (int C = 1; C <= 2; C++) {
        strata_world_defaults(&o);
        o.level = 5;
        o.chunk_level = C;
        o.noise = planet_noise();
        o.terraces = 10;
        o.sea = 1;
        o.sea_level = 0.02f;
        o.water = 1;
        o.water_level = 5;
        o.shoreline = 0.03f;
        po.water_sphere_level = 5;
        ck_assert_ok(strata_world_create(ctx, &o, &w));
        snprintf(what, sizeof what, "planet shoreline C%d", C);
        expect_shore_union(ctx, w, m, &po, what);
        const uint64_t fp = strata_world_fingerprint(w);
        strata_world_destroy(w);
        o.shoreline = 0.04f;
        ck_assert_ok(strata_world_create(ctx, &o, &w));
        ck_assert_uint_ne(strata_world_fingerprint(w), fp);
        strata_world_destroy(w);
    }
    strata_mesh_destroy(m);

    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.35f;
    f.amplitude = 0.5f;
    f.seed = 11;
    ck_assert_ok(strata_shape_grid(ctx, 48, 40, 0.25f, &m));
    ck_assert_ok(strata_displace_flat(ctx, m, &f, NULL));
    po.terraces.count = 8;
    po.terraces.sea_level = 0.0f;
    po.shoreline = 0.4f;
    for (int t = 0; t < 2; t++) {
        strata_world_defaults(&o);
        o.kind = STRATA_WORLD_TERRAIN;
        o.cells_x = 48;
        o.cells_z = 40;
        o.cell_size = 0.25f;
        o.tile_cells = t ? 7 : 16;
        o.noise = &f;
        o.terraces = 8;
        o.sea = 1;
        o.sea_level = 0.0f;
        o.water = 1;
        o.shoreline = 0.4f;
        ck_assert_ok(strata_world_create(ctx, &o, &w));
        snprintf(what, sizeof what, "terrain shoreline, tiles of %u", o.tile_cells);
        expect_shore_union(ctx, w, m, &po, what);
        strata_world_destroy(w);
    }
    strata_mesh_destroy(m);
    o.sea = 0;
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_INVALID_ARG);
    o.sea = 1;
    o.shoreline = NAN;
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_INVALID_ARG);
    o.shoreline = -1.0f;
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_INVALID_ARG);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Leaves: --lod without skirts changes nothing (results, fingerprint,
 * tile bytes); with skirts, the same vertices and triangles come first. */
START_TEST(test_lod_leaves)
{
    strata_ctx *ctx = ctx_new(2);
    strata_heightmap *h0, *h1, *h2;
    strata_world *plain = lod_world(ctx, _i, 0, 1, &h0);
    strata_world *bare = lod_world(ctx, _i, 1, 0, &h1);
    strata_world *skirted = lod_world(ctx, _i, 1, 1, &h2);
    ck_assert_uint_eq(strata_world_fingerprint(plain), strata_world_fingerprint(bare));
    ck_assert_uint_ne(strata_world_fingerprint(plain), strata_world_fingerprint(skirted));
    const uint64_t leaves = strata_world_chunk_count(plain);
    ck_assert_uint_eq(strata_world_leaf_count(bare), leaves);
    ck_assert_uint_gt(strata_world_chunk_count(bare), leaves);
    strata_result *a, *b, *c;
    ck_assert_ok(strata_result_create(ctx, &a));
    ck_assert_ok(strata_result_create(ctx, &b));
    ck_assert_ok(strata_result_create(ctx, &c));
    for (uint64_t id = 0; id < strata_world_chunk_count(bare); id++) {
        char what[64];
        snprintf(what, sizeof what, "world %d chunk %llu", _i, (unsigned long long)id);
        ck_assert_ok(strata_world_make_chunk(ctx, bare, id, b));
        ck_assert_ok(strata_world_make_chunk(ctx, skirted, id, c));
        uint32_t nv;
        prefix_same(b, c, &nv, id < leaves, what);
        if (id < leaves) {
            ck_assert_ok(strata_world_make_chunk(ctx, plain, id, a));
            same_result(a, b, what);
        }
    }
    /* tile files: the leaves of the two directories are the same bytes */
    char *tmp = tmpdir_new();
    char *da = join(tmp, "plain"), *db = join(tmp, "bare");
    strata_world_run_stats rs;
    make_dir(plain, da, 2, NULL, 0, &rs);
    make_dir(bare, db, 2, NULL, 0, &rs);
    ck_assert_uint_eq(rs.made, strata_world_chunk_count(bare));
    for (uint64_t id = 0; id < leaves; id++) {
        strata_chunk_info ci;
        ck_assert_ok(strata_world_chunk_info(bare, id, &ci));
        char pa[4200], pb[4200];
        snprintf(pa, sizeof pa, "%s/%s.glb", da, ci.path);
        snprintf(pb, sizeof pb, "%s/%s.glb", db, ci.path);
        require(files_equal(pa, pb), "leaf %s differs with --lod", ci.path);
    }
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    ck_assert_int_eq(system(cmd), 0);
    free(da);
    free(db);
    free(tmp);
    strata_result_destroy(a);
    strata_result_destroy(b);
    strata_result_destroy(c);
    strata_world_destroy(plain);
    strata_world_destroy(bare);
    strata_world_destroy(skirted);
    strata_heightmap_destroy(h0);
    strata_heightmap_destroy(h1);
    strata_heightmap_destroy(h2);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Coarse tiles: every roof vertex of terrace k lies on plane k (the
 * world's planes), a quarter of a leaf's input triangles (planets) or at
 * most as many (terrains), ids, depths and paths in order, errors
 * strictly decreasing to 0 at the leaves. */
START_TEST(test_lod_planes)
{
    strata_ctx *ctx = ctx_new(2);
    strata_heightmap *hm;
    strata_world *w = lod_world(ctx, _i, 1, 0, &hm);
    uint32_t np;
    const float *L = strata_world_levels(w, &np);
    const uint32_t leaf = strata_world_leaf_depth(w);
    double prev = INFINITY, skirt;
    for (uint32_t k = 0; k <= leaf; k++) {
        double e;
        ck_assert_ok(strata_world_lod_error(w, k, &e, &skirt));
        require(e < prev && e >= 0 && skirt >= e, "depth %u: error %g after %g, skirt %g", k, e,
                prev, skirt);
        prev = e;
    }
    ck_assert(prev == 0);
    ck_assert_int_eq(strata_world_lod_error(w, leaf + 1, NULL, NULL), STRATA_ERR_INVALID_ARG);
    strata_chunk_info leaf0;
    ck_assert_ok(strata_world_chunk_info(w, 0, &leaf0));
    ck_assert_uint_eq(leaf0.depth, leaf);
    strata_result *r;
    ck_assert_ok(strata_result_create(ctx, &r));
    uint32_t last_depth = 0;
    uint64_t off_plane = 0, roofs = 0;
    for (uint64_t id = strata_world_leaf_count(w); id < strata_world_chunk_count(w); id++) {
        strata_chunk_info ci;
        ck_assert_ok(strata_world_chunk_info(w, id, &ci));
        require(ci.depth < leaf && ci.depth >= last_depth, "chunk %llu: depth %u",
                (unsigned long long)id, ci.depth);
        last_depth = ci.depth;
        char want[32];
        snprintf(want, sizeof want, "tiles/%u/", ci.depth);
        require(!strncmp(ci.path, want, strlen(want)), "chunk %llu: path %s",
                (unsigned long long)id, ci.path);
        require(_i ? ci.triangles <= leaf0.triangles : 4 * ci.triangles == leaf0.triangles,
                "chunk %llu: %u triangles, a leaf %u", (unsigned long long)id, ci.triangles,
                leaf0.triangles);
        ck_assert_ok(strata_world_make_chunk(ctx, w, id, r));
        strata_result_view v;
        strata_result_get_view(r, &v);
        ck_assert_uint_eq(v.nterraces, np);
        for (uint32_t k = 0; k < v.nterraces; k++)
            for (uint64_t i = v.terraces[k].roof_first;
                 i < v.terraces[k].roof_first + v.terraces[k].roof_count; i++) {
                const uint32_t u = v.indices[i];
                roofs++;
                if (v.geometry == STRATA_FLAT) {
                    off_plane += v.y[u] != L[k];
                } else {
                    const double d = sqrt((double)v.x[u] * v.x[u] + (double)v.y[u] * v.y[u] +
                                          (double)v.z[u] * v.z[u]);
                    off_plane += fabs(d - (v.radius + L[k])) > 1e-5 * (v.radius + fabs(L[k]));
                }
            }
    }
    ck_assert_uint_eq(last_depth, leaf - 1);
    ck_assert_uint_gt(roofs, 0);
    ck_assert_msg(off_plane == 0, "%llu of %llu roof corners off their plane",
                  (unsigned long long)off_plane, (unsigned long long)roofs);
    strata_result_destroy(r);
    strata_world_destroy(w);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The skirt-top vertices of r (the ends of its skirt's border edges)
 * after the first nv, as sorted position bits. */
typedef struct {
    uint32_t p[3];
} pbits;

static int cmp_pbits(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(pbits));
}

static size_t skirt_tops(const strata_result *r, pbits **out)
{
    strata_result_view v;
    strata_result_get_view(r, &v);
    size_t n = 0;
    pbits *p = NULL;
    /* the skirt follows every terrace's triangles */
    uint64_t end = 0;
    for (uint32_t k = 0; k < v.nterraces; k++) {
        const strata_terrace *t = &v.terraces[k];
        if (t->roof_first + t->roof_count > end)
            end = t->roof_first + t->roof_count;
        if (t->wall_first + t->wall_count > end)
            end = t->wall_first + t->wall_count;
    }
    p = malloc(sizeof *p * (size_t)((v.nindices - end) / 3 + 1));
    for (uint64_t i = end; i < v.nindices; i += 6)
        for (int e = 0; e < 2; e++) { /* (v, u, u'): v and u */
            const uint32_t top = v.indices[i + (uint64_t)e];
            memcpy(&p[n].p[0], &v.x[top], 4);
            memcpy(&p[n].p[1], &v.y[top], 4);
            memcpy(&p[n].p[2], &v.z[top], 4);
            n++;
        }
    qsort(p, n, sizeof *p, cmp_pbits);
    *out = p;
    return n;
}

/* Skirts: after every terrace's triangles, quads (v, u, u'), (v, u', v')
 * hanging from border vertices u, v of the tile by at least the tile's
 * error (planets: towards the centre, at most half way), straight down;
 * neighbouring leaves share their border vertices bit for bit; the
 * same bytes for 1 and 3 threads. */
START_TEST(test_lod_skirts)
{
    strata_ctx *ctx = ctx_new(1), *ctx3 = ctx_new(3);
    strata_heightmap *hm, *h2;
    strata_world *w = lod_world(ctx, _i, 1, 1, &hm);
    strata_world *bare = lod_world(ctx, _i, 1, 0, &h2);
    strata_result *r, *r3, *b;
    ck_assert_ok(strata_result_create(ctx, &r));
    ck_assert_ok(strata_result_create(ctx3, &r3));
    ck_assert_ok(strata_result_create(ctx, &b));
    uint64_t quads = 0, short_drop = 0, lit_up = 0;
    /* a terrain's domain: the leaves' extent (no skirt on its edge) */
    float dom[4] = {INFINITY, -INFINITY, INFINITY, -INFINITY};
    for (uint64_t id = 0; id < strata_world_leaf_count(bare); id++) {
        strata_result_view vb;
        ck_assert_ok(strata_world_make_chunk(ctx, bare, id, b));
        strata_result_get_view(b, &vb);
        for (uint32_t i = 0; i < vb.nverts; i++) {
            dom[0] = fminf(dom[0], vb.x[i]), dom[1] = fmaxf(dom[1], vb.x[i]);
            dom[2] = fminf(dom[2], vb.z[i]), dom[3] = fmaxf(dom[3], vb.z[i]);
        }
    }
    const uint32_t leaf = strata_world_leaf_depth(w);
    for (uint64_t id = 0; id < strata_world_chunk_count(w); id++) {
        strata_chunk_info ci;
        ck_assert_ok(strata_world_chunk_info(w, id, &ci));
        double err, depth, coarser;
        ck_assert_ok(strata_world_lod_error(w, ci.depth, &err, &depth));
        /* as deep as the gap to a neighbour one depth coarser (the
         * roots: finer) */
        ck_assert_ok(strata_world_lod_error(w, ci.depth ? ci.depth - 1 : ci.depth < leaf ? 1 : 0,
                                            &coarser, NULL));
        require(depth == err + coarser, "depth %u: skirt %g, errors %g and %g", ci.depth, depth,
                err, coarser);
        ck_assert_ok(strata_world_make_chunk(ctx, w, id, r));
        ck_assert_ok(strata_world_make_chunk(ctx3, w, id, r3));
        char what[64];
        snprintf(what, sizeof what, "world %d chunk %llu, 1 and 3 threads", _i,
                 (unsigned long long)id);
        same_result(r, r3, what);
        ck_assert_ok(strata_world_make_chunk(ctx, bare, id, b));
        uint32_t nv;
        prefix_same(b, r, &nv, ci.depth == leaf, what);
        strata_result_view v, vb;
        strata_result_get_view(r, &v);
        strata_result_get_view(b, &vb);
        ck_assert_uint_eq((v.nindices - vb.nindices) % 6, 0);
        for (uint64_t i = vb.nindices; i < v.nindices; i += 6) {
            const uint32_t *q = v.indices + i;
            const uint32_t vv = q[0], u = q[1], lu = q[2], lv = q[5];
            /* (with normals u and v are copies of the border's vertices) */
            require(q[3] == vv && q[4] == lu && (u < nv && vv < nv || v.nx) && lu >= nv &&
                        lv >= nv,
                    "%s: quad %llu is not (v, u, u'), (v, u', v')", what,
                    (unsigned long long)i);
            const uint32_t top[2] = {u, vv}, bot[2] = {lu, lv};
            for (int e = 0; e < 2; e++) {
                const uint32_t t = top[e], d = bot[e];
                if (v.nx) { /* the normal of the edge's triangle, top and bottom */
                    require(v.nx[t] == v.nx[d] && v.ny[t] == v.ny[d] && v.nz[t] == v.nz[d],
                            "%s: skirt normals differ along a side", what);
                    lit_up += v.geometry == STRATA_FLAT && v.ny[t] > 0.99f;
                }
                if (v.geometry == STRATA_FLAT) {
                    require(v.x[t] == v.x[d] && v.z[t] == v.z[d], "%s: not straight down", what);

                    short_drop += (double)v.y[t] - v.y[d] < depth * (1 - 1e-5) ||
                                  (double)v.y[t] - v.y[d] < err;
                } else {
                    const double rt = sqrt((double)v.x[t] * v.x[t] + (double)v.y[t] * v.y[t] +
                                           (double)v.z[t] * v.z[t]),
                                 rd = sqrt((double)v.x[d] * v.x[d] + (double)v.y[d] * v.y[d] +
                                           (double)v.z[d] * v.z[d]);
                    const double want = depth < 0.5 * rt ? depth : 0.5 * rt;
                    short_drop += rt - rd < want * (1 - 1e-5) || rt - rd < (err < want ? err : want);
                    /* towards the centre: the same direction */
                    const double c = ((double)v.x[t] * v.x[d] + (double)v.y[t] * v.y[d] +
                                      (double)v.z[t] * v.z[d]) / (rt * rd);
                    require(c > 1 - 1e-9, "%s: not towards the centre", what);
                }
            }
            if (v.geometry == STRATA_FLAT) /* not along the domain's edge */
                require(!(v.x[u] == v.x[vv] && (v.x[u] == dom[0] || v.x[u] == dom[1])) &&
                            !(v.z[u] == v.z[vv] && (v.z[u] == dom[2] || v.z[u] == dom[3])),
                        "%s: a skirt on the outer border at (%g, %g)", what, (double)v.x[u],
                        (double)v.z[u]);
            quads++;
        }
    }
    ck_assert_uint_gt(quads, 0);
    /* with normals, skirts below roofs are lit as the roofs (up) */
    if (_i == 2)
        ck_assert_uint_gt(lit_up, 0);
    ck_assert_msg(short_drop == 0, "%llu skirt vertices not deep enough",
                  (unsigned long long)short_drop);
    /* Neighbouring leaves: planets, chunks 0 and 3 (a corner child and
     * the middle child of one triangle share a side); terrains, tiles
     * (0,0) and (1,0).  The border vertices of the shared side are in
     * both skirts with the same bits. */
    pbits *pa, *pb;
    ck_assert_ok(strata_world_make_chunk(ctx, w, 0, r));
    const size_t na = skirt_tops(r, &pa);
    ck_assert_ok(strata_world_make_chunk(ctx, w, _i == 0 ? 3 : 1, r));
    const size_t nb = skirt_tops(r, &pb);
    size_t shared = 0;
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        const int c = cmp_pbits(&pa[i], &pb[j]);
        if (c == 0) {
            shared++;
            i++;
            j++;
        } else if (c < 0) {
            i++;
        } else {
            j++;
        }
    }
    /* at least the lattice points of the shared side: 2^(L-C) + 1 on the
     * planet, a tile's side + 1 on the terrains */
    const size_t want = _i == 0 ? 17 : _i == 1 ? 9 : 5;
    ck_assert_msg(shared >= want, "world %d: neighbouring leaves share %zu skirt-top vertices",
                  _i, shared);
    free(pa);
    free(pb);
    strata_result_destroy(r);
    strata_result_destroy(r3);
    strata_result_destroy(b);
    strata_world_destroy(w);
    strata_world_destroy(bare);
    strata_heightmap_destroy(hm);
    strata_heightmap_destroy(h2);
    strata_ctx_destroy(ctx);
    strata_ctx_destroy(ctx3);
}
END_TEST

/* Previews of worlds: every chunk drawn into one canvas, in reverse order
 * on one thread or by a run on three threads, gives the image
 * strata_preview_render makes of the whole surface when the frame is the
 * surface's own extent (TOP: its box; PLANET: its largest distance from
 * the centre), bit for bit; with the frame strata_world_preview_frame
 * finds before any chunk is made, all but a few pixels (PLANET). */
static uint8_t *canvas_of_chunks(strata_ctx *ctx, const strata_world *w,
                                 const strata_preview_options *po, const strata_preview_frame *f)
{
    strata_preview_canvas *c;
    ck_assert_ok(strata_preview_canvas_create(ctx, po, STRATA_RADIAL, f, &c));
    strata_result *r;
    ck_assert_ok(strata_result_create(ctx, &r));
    for (uint64_t id = strata_world_chunk_count(w); id-- > 0;) {
        ck_assert_ok(strata_world_make_chunk(ctx, w, id, r));
        ck_assert_ok(strata_preview_canvas_draw(ctx, c, r));
    }
    uint8_t *img = malloc((size_t)po->size * po->size * 4);
    ck_assert_ok(strata_preview_canvas_image(ctx, c, img));
    strata_result_destroy(r);
    strata_preview_canvas_destroy(c);
    return img;
}

static double share_differing(const uint8_t *a, const uint8_t *b, uint32_t size)
{
    uint64_t d = 0;
    for (size_t i = 0; i < (size_t)size * size; i++)
        d += memcmp(a + 4 * i, b + 4 * i, 4) != 0;
    return (double)d / ((double)size * size);
}

START_TEST(test_preview_canvas)
{
    static const strata_preview_view views[] = {STRATA_VIEW_TOP, STRATA_VIEW_PLANET};
    const int L = 5;
    strata_ctx *ctx = ctx_new(2);
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, L, 1.0f, &m));
    ck_assert_ok(strata_displace_radial(ctx, m, planet_noise(), NULL));
    float levels[12];
    ck_assert_ok(strata_levels_uniform(m, 12, NULL, levels));
    strata_slice_options so = slice_options(levels, 12, STRATA_WALLS_UPPER, 0, 0);
    strata_result *whole;
    ck_assert_ok(strata_slice(ctx, m, &so, &whole));
    strata_world_options o;
    strata_world_defaults(&o);
    o.level = L;
    o.chunk_level = 2;
    o.noise = planet_noise();
    o.terraces = 12;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    uint32_t nl;
    ck_assert(!memcmp(strata_world_levels(w, &nl), levels, sizeof levels));

    strata_preview_options po;
    strata_preview_defaults(&po);
    po.view = views[_i];
    po.size = 256;
    uint8_t *want = malloc((size_t)po.size * po.size * 4);
    ck_assert_ok(strata_preview_render(ctx, whole, &po, want));

    /* the surface's own frame, measured as the renderer measures it */
    strata_result_view v;
    strata_result_get_view(whole, &v);
    strata_preview_frame f;
    memset(&f, 0, sizeof f);
    float d2 = 0;
    for (int k = 0; k < 3; k++) {
        f.lo[k] = INFINITY;
        f.hi[k] = -INFINITY;
        f.center[k] = v.center[k];
    }
    for (uint32_t i = 0; i < v.nverts; i++) {
        const float p[3] = {v.x[i], v.y[i], v.z[i]};
        for (int k = 0; k < 3; k++) {
            f.lo[k] = p[k] < f.lo[k] ? p[k] : f.lo[k];
            f.hi[k] = p[k] > f.hi[k] ? p[k] : f.hi[k];
        }
        const float dx = p[0] - v.center[0], dy = p[1] - v.center[1], dz = p[2] - v.center[2];
        const float d = dx * dx + dy * dy + dz * dz;
        d2 = d > d2 ? d : d2;
    }
    f.radius = sqrtf(d2);

    uint8_t *serial = canvas_of_chunks(ctx, w, &po, &f);
    ck_assert_msg(!memcmp(serial, want, (size_t)po.size * po.size * 4),
                  "view %d: chunks drawn one by one: %.5f of the pixels differ", po.view,
                  share_differing(serial, want, po.size));

    /* drawn by a run's threads as the chunks are made */
    strata_ctx *ctx3 = ctx_new(3);
    strata_preview_canvas *c;
    ck_assert_ok(strata_preview_canvas_create(ctx3, &po, STRATA_RADIAL, &f, &c));
    char *tmp = tmpdir_new(), *dir = join(tmp, "w");
    strata_world_dir *d;
    ck_assert_ok(strata_world_dir_create(ctx3, w, dir, STRATA_FORMAT_GLB, &d));
    const uint64_t n = strata_world_chunk_count(w);
    uint64_t *ids = malloc(n * sizeof *ids);
    for (uint64_t i = 0; i < n; i++)
        ids[i] = i;
    strata_world_run_options ro;
    strata_world_run_defaults(&ro);
    ro.dir = d;
    ro.ids = ids;
    ro.nids = n;
    ro.preview = c;
    strata_world_run_stats rs;
    ck_assert_ok(strata_world_run(ctx3, w, &ro, &rs));
    ck_assert_uint_eq(rs.made, n);
    uint8_t *run = malloc((size_t)po.size * po.size * 4);
    ck_assert_ok(strata_preview_canvas_image(ctx3, c, run));
    ck_assert_msg(!memcmp(run, want, (size_t)po.size * po.size * 4),
                  "view %d: chunks drawn by a run: %.5f of the pixels differ", po.view,
                  share_differing(run, want, po.size));

    /* the frame known before making anything */
    strata_preview_frame fw;
    ck_assert_ok(strata_world_preview_frame(w, &fw));
    ck_assert_float_eq(fw.radius, 1.0f + levels[11]);
    if (po.view == STRATA_VIEW_PLANET) {
        uint8_t *early = canvas_of_chunks(ctx, w, &po, &fw);
        const double share = share_differing(early, want, po.size);
        ck_assert_msg(share < 0.005, "a-priori frame: %.5f of the pixels differ", share);
        free(early);
    }
    /* a flat canvas does not take a planet's chunks */
    strata_preview_options pt = po;
    pt.view = STRATA_VIEW_TOP;
    strata_preview_canvas *flat;
    ck_assert_ok(strata_preview_canvas_create(ctx, &pt, STRATA_FLAT, &f, &flat));
    ck_assert_int_eq(strata_preview_canvas_draw(ctx, flat, whole), STRATA_ERR_INVALID_ARG);
    strata_preview_canvas_destroy(flat);
    pt.view = STRATA_VIEW_PLANET;
    ck_assert_int_eq(strata_preview_canvas_create(ctx, &pt, STRATA_FLAT, &f, &flat),
                     STRATA_ERR_INVALID_ARG);
    ck_assert_ptr_null(flat);

    strata_preview_canvas_destroy(c);
    strata_world_dir_close(d);
    tmpdir_remove(tmp);
    free(dir);
    free(ids);
    free(run);
    free(serial);
    free(want);
    strata_ctx_destroy(ctx3);
    strata_world_destroy(w);
    strata_result_destroy(whole);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("world");
    TCase *tc = tcase_create("Union");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, test_planet_union, 0, 3);
    const int ntiles = (int)(sizeof tile_sizes / sizeof tile_sizes[0]);
    tcase_add_loop_test(tc, test_terrain_union, 0, ntiles);
    tcase_add_loop_test(tc, test_template_union, 0, ntiles);
    tcase_add_loop_test(tc, test_solid_union, 0, ntiles);
    tcase_add_loop_test(tc, test_props_union, 0, ntiles);
    tcase_add_test(tc, test_seams);
    tcase_add_test(tc, test_near_plane_seams);
    tcase_add_loop_test(tc, test_near_plane_random_tiles, 0, 4);
    tcase_add_loop_test(tc, test_near_plane_planet, 0, 2);
    tcase_add_loop_test(tc, test_near_plane_planet_fin, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("Sameness");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_chunk_independence);
    tcase_add_test(tc, test_simplified_chunks);
    tcase_add_test(tc, test_water_and_props);
    tcase_add_loop_test(tc, test_planet_water, 0, 2);
    tcase_add_test(tc, test_shoreline);
    tcase_add_test(tc, test_loops);
    tcase_add_test(tc, test_directories);
    tcase_add_loop_test(tc, test_preview_canvas, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("Parts");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_shards);
    tcase_add_loop_test(tc, test_edits, 0, 2);
    tcase_add_test(tc, test_bad_options);
    tcase_add_test(tc, test_geo);
    suite_add_tcase(s, tc);
    tc = tcase_create("Lod");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_lod_leaves, 0, 3);
    tcase_add_loop_test(tc, test_lod_planes, 0, 3);
    tcase_add_loop_test(tc, test_lod_skirts, 0, 3);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
