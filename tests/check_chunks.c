/* Suite "chunks": slicing chunk meshes with a context ring (core/lattice.h,
 * strata_mesh.ghost_*) against slicing the whole surface in memory.
 * White-box: linked against the static library for the lattices.
 *
 * For every chunk of a world, the slicer writes only the chunk's own
 * triangles, deciding wedges and fins of heights exactly on planes from
 * the context as on the whole surface.  The chunks of a world are sliced
 * one after the other into one result (strata_slice_into), as a thread
 * making a world does.  Checked:
 *  - union: the multiset of all chunks' output triangles, each as (its
 *    corners' position bits, rotated to start at the smallest corner;
 *    terrace; roof or wall), equals the whole mesh's slice;
 *  - each chunk's result is manifold by vertex id (no directed edge
 *    twice, DESIGN.md property 2) and a disc (Euler characteristic 1);
 *  - seams: every border edge of a chunk's result meets the reversed
 *    edge, at the same position bits, of another chunk, unless it lies on
 *    the whole result's border (a terrain's domain border), so the tiles
 *    weld into the whole surface;
 *  - no unused output vertex but the roof copy of a vertex lying exactly
 *    on its plane (roof copies keep input ids; the whole slice leaves the
 *    same ones unused).
 * Planets: levels 3 to 6, (nearly) every chunk level, fBm displacement (on the
 * chunk mesh it gives the whole mesh's heights, checked bit for bit) with
 * float heights, and the same heights quantized onto the planes.
 * Terrains: heightmaps and templates of integer heights with integer
 * planes (many vertices on planes, fins and saddles on tile borders),
 * tile sizes 1, 2, 3, 5 and 64. */
#include "testutil.h"

#include "lattice.h"
#include "mesh.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* ck_assert_ok for loops (Check writes a record per passing assert). */
#define require_ok(expr)                                                                   \
    do {                                                                                   \
        const strata_status st_ = (expr);                                                  \
        require(st_ == STRATA_OK, "%s -> %s", #expr, strata_status_str(st_));              \
    } while (0)

static strata_ctx *new_ctx(int threads)
{
    strata_ctx *ctx;
    strata_ctx_options o = {threads, NULL};
    ck_assert_ok(strata_ctx_create(&o, &ctx));
    return ctx;
}

/* ------------------------------------------------------------ keys */

/* An output triangle by position: corners' x, y, z bits from the
 * smallest corner on (keeping the winding), its terrace, roof or wall. */
typedef struct {
    uint32_t w[9];
    uint32_t terrace, wall;
} tri_key;

/* A directed edge by position: both ends' x, y, z bits. */
typedef struct {
    uint32_t w[6];
} edge_key;

static int cmp_tri(const void *a, const void *b) { return memcmp(a, b, sizeof(tri_key)); }
static int cmp_edge(const void *a, const void *b) { return memcmp(a, b, sizeof(edge_key)); }

static int cmp_u64(const void *pa, const void *pb)
{
    const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

static void corner_bits(const strata_result_view *r, uint32_t v, uint32_t *w)
{
    memcpy(&w[0], &r->x[v], 4);
    memcpy(&w[1], &r->y[v], 4);
    memcpy(&w[2], &r->z[v], 4);
}

/* A growable array of keys. */
typedef struct {
    void *p;
    size_t n, cap, size;
} keys;

static void *push(keys *k)
{
    if (k->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 1024;
        k->p = realloc(k->p, k->cap * k->size);
        ck_assert_ptr_nonnull(k->p);
    }
    return (char *)k->p + k->size * k->n++;
}

/* Append the keys of r's triangles to tris. */
static void triangle_keys(const strata_result_view *r, keys *tris)
{
    for (uint32_t k = 0; k < r->nterraces; k++) {
        const strata_terrace *t = &r->terraces[k];
        for (int wall = 0; wall < 2; wall++) {
            const uint64_t first = wall ? t->wall_first : t->roof_first;
            const uint64_t count = wall ? t->wall_count : t->roof_count;
            for (uint64_t i = first; i < first + count; i += 3) {
                uint32_t c[3][3];
                for (int s = 0; s < 3; s++)
                    corner_bits(r, r->indices[i + s], c[s]);
                int s0 = 0;
                for (int s = 1; s < 3; s++)
                    if (memcmp(c[s], c[s0], sizeof c[s]) < 0)
                        s0 = s;
                tri_key *key = push(tris);
                for (int s = 0; s < 3; s++)
                    memcpy(&key->w[3 * s], c[(s0 + s) % 3], sizeof c[0]);
                key->terrace = k;
                key->wall = (uint32_t)wall;
            }
        }
    }
}

/* Property 2 on one result by vertex id: no directed edge twice.  Appends
 * its border edges (those whose reverse it lacks) to border by position
 * and returns the Euler characteristic of the used part. */
static int64_t check_manifold(const strata_result_view *r, keys *border)
{
    const uint64_t ni = r->nindices;
    uint64_t *d = malloc(sizeof *d * (ni ? ni : 1));
    uint8_t *used = calloc(r->nverts ? r->nverts : 1, 1);
    ck_assert(d && used);
    for (uint64_t i = 0; i < ni; i++) {
        const uint32_t p = r->indices[i], q = r->indices[i - i % 3 + (i % 3 + 1) % 3];
        require(p < r->nverts, "index %u of %u vertices", p, r->nverts);
        used[p] = 1;
        d[i] = (uint64_t)p << 32 | q;
    }
    qsort(d, ni, sizeof *d, cmp_u64);
    uint64_t undirected = 0;
    for (uint64_t i = 0; i < ni; i++) {
        require(i == 0 || d[i] != d[i - 1], "property 2: directed edge %u->%u twice",
                (unsigned)(d[i] >> 32), (unsigned)d[i]);
        const uint64_t rev = d[i] << 32 | d[i] >> 32;
        const int shared = bsearch(&rev, d, ni, sizeof *d, cmp_u64) != NULL;
        undirected += shared ? 1 : 2;
        if (!shared && border) {
            edge_key *e = push(border);
            corner_bits(r, (uint32_t)(d[i] >> 32), &e->w[0]);
            corner_bits(r, (uint32_t)d[i], &e->w[3]);
        }
    }
    int64_t nused = 0;
    for (uint32_t v = 0; v < r->nverts; v++)
        nused += used[v];
    free(d);
    free(used);
    return nused - (int64_t)(undirected / 2) + (int64_t)(ni / 3);
}

static uint32_t band_of(const float *L, uint32_t n, float h)
{
    uint32_t k = 0;
    while (k + 1 < n && L[k + 1] <= h)
        k++;
    return k;
}

/* A chunk's unused output vertices: only roof copies (ids below the own
 * vertex count) of own vertices lying exactly on their plane. */
static void check_unused(const strata_result_view *r, const strata_mesh *m, const float *L,
                         uint32_t n)
{
    uint8_t *used = calloc(r->nverts ? r->nverts : 1, 1);
    ck_assert_ptr_nonnull(used);
    for (uint64_t i = 0; i < r->nindices; i++)
        used[r->indices[i]] = 1;
    const uint32_t own = m->nverts - m->ghost_verts;
    for (uint32_t v = 0; v < r->nverts; v++) {
        if (used[v])
            continue;
        require(v < own, "unused output vertex %u (%u own vertices, %u in all)", v, own,
                r->nverts);
        /* on its plane, or within rounding of it or of the next one
         * (snapped onto it, slice_onplane.h) */
        const uint32_t k = band_of(L, n, m->h[v]);
        const float near = k + 1 < n && L[k + 1] - m->h[v] < m->h[v] - L[k] ? L[k + 1] : L[k];
        require(m->h[v] == near || fabsf(m->h[v] - near) <= 1e-5f * (L[n - 1] - L[0]),
                "unused roof copy of vertex %u, h=%.9g not on a plane (nearest %.9g)", v,
                m->h[v], near);
    }
    free(used);
}

/* The collected state of one world: its chunks' triangles and border
 * edges. */
typedef struct {
    keys tris, border;
    uint64_t chunks, on_plane_border; /* own vertices on a plane and on a
                                         chunk border, summed over chunks */
    strata_result *res; /* every chunk is sliced into this one */
} world_keys;

static void world_keys_init(strata_ctx *ctx, world_keys *wk)
{
    memset(wk, 0, sizeof *wk);
    wk->tris.size = sizeof(tri_key);
    wk->border.size = sizeof(edge_key);
    ck_assert_ok(strata_result_create(ctx, &wk->res));
}

/* Slice chunk mesh m (into the world's result, as a thread making chunk
 * after chunk does) and add it to wk, checking it on its own. */
static void add_chunk(strata_ctx *ctx, const strata_mesh *m, const strata_slice_options *o,
                      world_keys *wk)
{
    require_ok(strata_slice_into(ctx, m, o, wk->res));
    strata_result_view r;
    strata_result_get_view(wk->res, &r);
    triangle_keys(&r, &wk->tris);
    if (!o->normals) {
        const int64_t euler = check_manifold(&r, &wk->border);
        require(euler == 1, "property 2: chunk result's Euler characteristic %lld",
                (long long)euler);
    }
    check_unused(&r, m, o->levels, o->nlevels);
    /* own vertices of context triangles are the chunk's border */
    for (uint32_t t = m->ntris - m->ghost_tris; t < m->ntris; t++) {
        const uint32_t v[3] = {m->a[t], m->b[t], m->c[t]};
        for (int k = 0; k < 3; k++) {
            const uint32_t b = band_of(o->levels, o->nlevels, m->h[v[k]]);
            wk->on_plane_border += v[k] < m->nverts - m->ghost_verts && b > 0 &&
                                   m->h[v[k]] == o->levels[b];
        }
    }
    wk->chunks++;
}

/* Count of key e in a sorted array. */
static size_t count_of(const keys *k, const edge_key *e)
{
    const edge_key *a = k->p;
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (memcmp(&a[mid], e, sizeof *e) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t c = 0;
    while (lo + c < k->n && !memcmp(&a[lo + c], e, sizeof *e))
        c++;
    return c;
}

/* The union of the chunks against the whole slice, and the seams. */
static void compare_world(strata_ctx *ctx, const strata_mesh *whole,
                          const strata_slice_options *o, world_keys *wk, const char *what)
{
    strata_result *res;
    ck_assert_ok(strata_slice(ctx, whole, o, &res));
    strata_result_view r;
    strata_result_get_view(res, &r);
    keys tris = {NULL, 0, 0, sizeof(tri_key)}, border = {NULL, 0, 0, sizeof(edge_key)};
    triangle_keys(&r, &tris);
    if (!o->normals)
        check_manifold(&r, &border);
    require(tris.n == wk->tris.n, "%s: %zu chunks give %zu triangles, the whole slice %zu", what,
            (size_t)wk->chunks, wk->tris.n, tris.n);
    qsort(tris.p, tris.n, sizeof(tri_key), cmp_tri);
    qsort(wk->tris.p, wk->tris.n, sizeof(tri_key), cmp_tri);
    for (size_t i = 0; i < tris.n; i++) {
        const tri_key *a = (tri_key *)tris.p + i, *b = (tri_key *)wk->tris.p + i;
        require(!memcmp(a, b, sizeof *a),
                "%s: triangle %zu of the sorted union differs: terrace %u wall %u, whole: "
                "terrace %u wall %u",
                what, i, b->terrace, b->wall, a->terrace, a->wall);
    }
    /* Seams: the chunks' border edges but those on the whole result's
     * border pair up with their reverses (as multisets: a vertex on a
     * plane can have several bottom copies at one position). */
    if (wk->border.n) /* a planet has none: NULL, which qsort may not take */
        qsort(wk->border.p, wk->border.n, sizeof(edge_key), cmp_edge);
    if (border.n)
        qsort(border.p, border.n, sizeof(edge_key), cmp_edge);
    const edge_key *e = wk->border.p;
    for (size_t i = 0; i < wk->border.n; i++) {
        edge_key rev;
        memcpy(&rev.w[0], &e[i].w[3], 12);
        memcpy(&rev.w[3], &e[i].w[0], 12);
        const size_t fwd = count_of(&wk->border, &e[i]) - count_of(&border, &e[i]);
        const size_t back = count_of(&wk->border, &rev) - count_of(&border, &rev);
        require(fwd == back, "%s: a chunk border edge meets %zu reversed ones, not %zu", what,
                back, fwd);
    }
    for (size_t i = 0; i < border.n; i++) {
        const edge_key *w = (const edge_key *)border.p + i;
        require(count_of(&wk->border, w) >= count_of(&border, w),
                "%s: a border edge of the whole slice is no chunk's", what);
    }
    free(tris.p);
    free(border.p);
    strata_result_destroy(res);
}

static void world_keys_free(world_keys *wk)
{
    free(wk->tris.p);
    free(wk->border.p);
    strata_result_destroy(wk->res);
}

/* ------------------------------------------------------------ planets */

/* Heights quantized onto multiples of 1/Q, positions moved radially to
 * match (as strata_displace_radial moves them): a function of each
 * vertex's bits alone, so chunk and whole agree. */
#define Q 32.0f
static void quantize(strata_mesh *m)
{
    for (uint32_t v = 0; v < m->nverts; v++) {
        const float hq = floorf(m->h[v] * Q + 0.5f) / Q;
        const float d = sqrtf(m->x[v] * m->x[v] + m->y[v] * m->y[v] + m->z[v] * m->z[v]);
        const float s = (m->radius + hq) / d;
        m->x[v] *= s;
        m->y[v] *= s;
        m->z[v] *= s;
        m->h[v] = hq;
    }
}

/* Planet worlds: _i = level - 3 (3..6); every chunk level (level 6:
 * 0, 1, 3, 5); fBm heights, then quantized ones on planes. */
START_TEST(test_planet_union)
{
    const int L = 3 + _i;
    const float R = 1.0f;
    strata_ctx *ctx = new_ctx(2);
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 1.5f;
    f.amplitude = 0.1f;
    for (int quant = 0; quant < 2; quant++) {
        strata_mesh *whole;
        ck_assert_ok(strata_shape_icosphere(ctx, L, R, &whole));
        ck_assert_ok(strata_displace_radial(ctx, whole, &f, NULL));
        float levels[64];
        uint32_t n;
        if (quant) {
            quantize(whole);
            float lo, hi;
            ck_assert_ok(strata_mesh_height_range(whole, &lo, &hi));
            n = 0; /* a plane on every other step: heights on and between them */
            for (int q = (int)(lo * Q); q <= (int)(hi * Q) && n < 64; q += 2)
                levels[n++] = (float)q / Q;
        } else {
            n = 24;
            ck_assert_ok(strata_levels_uniform(whole, n, NULL, levels));
        }
        for (int C = 0; C < L; C += L == 6 && C > 0 ? 2 : 1) { /* L6: C 0, 1, 3, 5 */
            strata_slice_options o = {levels, n, (strata_walls)((L + C) % 3), C == 1, 0};
            strata_planet_lattice pl;
            ck_assert_ok(strata__planet_lattice_init(ctx, L, C, R, &pl));
            strata_ring_scratch scratch = {0};
            strata_mesh *m;
            ck_assert_ok(strata__planet_chunk_alloc(&pl, &m));
            strata_ctx *cctx = new_ctx(C == 0 ? 2 : 1); /* 2 threads: few chunks */
            world_keys wk;
            world_keys_init(cctx, &wk);
            for (uint64_t id = 0; id < strata__planet_chunks(&pl); id++) {
                require_ok(strata__planet_chunk_build(&pl, id, &scratch, m));
                require_ok(strata_displace_radial(cctx, m, &f, NULL));
                if (quant)
                    quantize(m);
                /* the same heights as the whole mesh, bit for bit */
                for (uint32_t t = 0; t < pl.ntris; t++) {
                    const uint32_t g = (uint32_t)id * pl.ntris + t;
                    const uint32_t cv[3] = {m->a[t], m->b[t], m->c[t]};
                    const uint32_t wv[3] = {whole->a[g], whole->b[g], whole->c[g]};
                    for (int k = 0; k < 3; k++)
                        require(!memcmp(&m->h[cv[k]], &whole->h[wv[k]], 4) &&
                                    !memcmp(&m->x[cv[k]], &whole->x[wv[k]], 4),
                                "L%d C%d chunk %u triangle %u: displaced differently", L, C,
                                (unsigned)id, t);
                }
                add_chunk(cctx, m, &o, &wk);
            }
            char what[64];
            snprintf(what, sizeof what, "planet L%d C%d %s", L, C, quant ? "quantized" : "fBm");
            compare_world(ctx, whole, &o, &wk, what);
            if (quant && C > 0)
                ck_assert_uint_gt(wk.on_plane_border, 0);
            world_keys_free(&wk);
            strata_ctx_destroy(cctx);
            strata_mesh_destroy(m);
            strata__ring_scratch_free(&scratch);
            strata__planet_lattice_free(&pl);
        }
        strata_mesh_destroy(whole);
    }
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ terrains */

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* A w x h PFM of integer heights 0..4, decoded.  designed: a ridge at
 * height 2 along column 2 with height 1 beside it (fins on the border of
 * tiles of 1 and 2 cells), and a saddle at (4, 4) at height 2 (two lower
 * wedges on a tile corner). */
static strata_heightmap *integer_heightmap(strata_ctx *ctx, uint32_t w, uint32_t h, int designed)
{
    float *px = malloc(sizeof *px * w * h);
    ck_assert_ptr_nonnull(px);
    for (size_t i = 0; i < (size_t)w * h; i++)
        px[i] = (float)rnd(5);
    if (designed) {
        for (uint32_t j = 0; j < h; j++) {
            px[j * w + 1] = px[j * w + 3] = 1;
            px[j * w + 2] = 2;
        }
        px[4 * w + 4] = 2;
        px[4 * w + 3] = px[4 * w + 5] = 1;
        px[3 * w + 4] = px[5 * w + 4] = 3;
    }
    char head[64];
    const int nh = snprintf(head, sizeof head, "Pf\n%u %u\n-1.0\n", w, h);
    const size_t len = (size_t)nh + 4 * (size_t)w * h;
    unsigned char *buf = malloc(len);
    ck_assert_ptr_nonnull(buf);
    memcpy(buf, head, (size_t)nh);
    memcpy(buf + nh, px, 4 * (size_t)w * h); /* little-endian host */
    strata_heightmap *hm;
    ck_assert_ok(strata_heightmap_decode(ctx, buf, len, &hm));
    free(buf);
    free(px);
    return hm;
}

static const uint32_t tile_sizes[] = {1, 2, 3, 5, 64};

/* Every tile of a terrain world against the whole grid. */
static void terrain_union(strata_ctx *ctx, const strata_mesh *whole,
                          const strata_terrain_source *src, float cell, uint32_t tile,
                          const strata_slice_options *o, const char *what)
{
    strata_terrain_lattice tl;
    ck_assert_ok(strata__terrain_lattice_init(ctx, src, cell, tile, &tl));
    strata_tile_scratch scratch = {0};
    strata_mesh *m;
    ck_assert_ok(strata__terrain_tile_alloc(&tl, &m));
    strata_ctx *cctx = new_ctx(tile > 5 ? 2 : 1); /* 2 threads: one tile */
    world_keys wk;
    world_keys_init(cctx, &wk);
    for (uint64_t id = 0; id < strata__terrain_tiles(&tl); id++) {
        require_ok(strata__terrain_tile_build(&tl, id, &scratch, m));
        add_chunk(cctx, m, o, &wk);
    }
    char w[96];
    snprintf(w, sizeof w, "%s, tiles of %u", what, tile);
    compare_world(ctx, whole, o, &wk, w);
    if (tl.ntx * tl.ntz > 1)
        ck_assert_uint_gt(wk.on_plane_border, 0);
    world_keys_free(&wk);
    strata_ctx_destroy(cctx);
    strata_mesh_destroy(m);
    strata__tile_scratch_free(&scratch);
}

static const float int_planes[][5] = {{1, 2, 3}, {0, 1, 2, 3, 4}, {2, 3, 4}};
static const uint32_t int_nplanes[] = {3, 5, 3};

/* Heightmaps: _i over tile sizes x {random, designed}. */
START_TEST(test_terrain_heightmap_union)
{
    const uint32_t tile = tile_sizes[_i / 2];
    const int designed = _i % 2;
    strata_ctx *ctx = new_ctx(2);
    rng = 88172645463325252ull + (uint64_t)_i;
    strata_heightmap *hm = integer_heightmap(ctx, 23, 18, designed);
    strata_mesh *whole;
    ck_assert_ok(strata_mesh_from_heightmap(ctx, hm, 0.5f, 1.0f, &whole));
    strata_terrain_source src;
    ck_assert_ok(strata__terrain_source_init(&src, hm, 0, 1.0f, 0, 0));
    for (int p = 0; p < 3; p++) {
        strata_slice_options o = {int_planes[p], int_nplanes[p], (strata_walls)p, 0, 0};
        terrain_union(ctx, whole, &src, 0.5f, tile, &o,
                      designed ? "designed heightmap" : "random heightmap");
    }
    strata_mesh_destroy(whole);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Templates: patches of 2 and 4 cells over a 6 x 5 heightmap of integer
 * heights (patch corners, and many points between, on integer planes),
 * over the tile sizes. */
START_TEST(test_terrain_template_union)
{
    const uint32_t tile = tile_sizes[_i / 2], patch = _i % 2 ? 4 : 2;
    strata_ctx *ctx = new_ctx(2);
    rng = 1234567 + (uint64_t)_i;
    strata_heightmap *hm = integer_heightmap(ctx, 6, 5, 0);
    strata_mesh *whole;
    ck_assert_ok(strata_mesh_from_template(ctx, hm, patch, 0.25f, 1.0f, &whole));
    strata_terrain_source src;
    ck_assert_ok(strata__terrain_source_init(&src, hm, patch, 1.0f, 0, 0));
    for (int p = 0; p < 3; p++) {
        strata_slice_options o = {int_planes[p], int_nplanes[p], (strata_walls)p, p == 2, 0};
        terrain_union(ctx, whole, &src, 0.25f, tile, &o, "template");
    }
    strata_mesh_destroy(whole);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("chunks");
    TCase *tc = tcase_create("Planet");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_planet_union, 0, 4);
    suite_add_tcase(s, tc);
    tc = tcase_create("Terrain");
    tcase_set_timeout(tc, 600);
    const int nsizes = (int)(sizeof tile_sizes / sizeof tile_sizes[0]);
    tcase_add_loop_test(tc, test_terrain_heightmap_union, 0, 2 * nsizes);
    tcase_add_loop_test(tc, test_terrain_template_union, 0, 2 * nsizes);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
