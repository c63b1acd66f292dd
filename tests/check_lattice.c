/* Suite "lattice": chunk lattices of worlds (core/mesh/lattice.h) against the
 * whole surface built in memory.  White-box: linked against the static
 * library for the hidden functions.
 *
 * Planets: for every level L <= 6 and chunk level C < L, every chunk's own
 * triangles are the icosphere's triangles of that chunk, in order, with
 * the same corner order and the same position bits; its context ring is
 * exactly the set of icosphere triangles outside the chunk that share a
 * vertex with it or with one of those (two edges deep); and its edge table is a valid one (each side's edge
 * joins its two corners, no edge twice, own triangles use own vertices and
 * edges only). */
#include "testutil.h"

#include "mesh/lattice.h"
#include "mesh/mesh.h" /* struct strata_mesh: chunk meshes compared field by field */

#include <math.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    uint32_t w[9];
} tri_bits;

static tri_bits bits_of(const strata_mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
    tri_bits t;
    const uint32_t v[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        memcpy(&t.w[3 * k], &m->x[v[k]], 4);
        memcpy(&t.w[3 * k + 1], &m->y[v[k]], 4);
        memcpy(&t.w[3 * k + 2], &m->z[v[k]], 4);
    }
    return t;
}

static int cmp_tri(const void *pa, const void *pb)
{
    return memcmp(pa, pb, sizeof(tri_bits));
}

/* Edge table checks of a chunk mesh. */
static void check_edges(const strata_mesh *m, uint32_t own_verts, uint32_t own_edges,
                        uint32_t own_tris)
{
    uint64_t *keys = malloc(sizeof *keys * (m->nedges ? m->nedges : 1));
    uint8_t *used = calloc(m->nedges ? m->nedges : 1, 1);
    ck_assert(keys && used);
    for (uint32_t e = 0; e < m->nedges; e++) {
        require(m->ev0[e] < m->ev1[e] && m->ev1[e] < m->nverts, "edge %u: %u-%u", e, m->ev0[e],
                m->ev1[e]);
        require(e >= own_edges || m->ev1[e] < own_verts, "own edge %u has a context vertex", e);
        keys[e] = (uint64_t)m->ev0[e] << 32 | m->ev1[e];
    }
    qsort(keys, m->nedges, sizeof *keys, cmp_u64);
    for (uint32_t e = 1; e < m->nedges; e++)
        require(keys[e] != keys[e - 1], "an edge is listed twice");
    for (uint32_t t = 0; t < m->ntris; t++) {
        const uint32_t v[3] = {m->a[t], m->b[t], m->c[t]}, e[3] = {m->e0[t], m->e1[t], m->e2[t]};
        for (int k = 0; k < 3; k++) {
            const uint32_t p = v[k], q = v[(k + 1) % 3];
            require(e[k] < m->nedges, "triangle %u side %d: edge %u", t, k, e[k]);
            require((m->ev0[e[k]] == p && m->ev1[e[k]] == q) ||
                        (m->ev0[e[k]] == q && m->ev1[e[k]] == p),
                    "triangle %u side %d: edge %u joins %u-%u, not %u-%u", t, k, e[k],
                    m->ev0[e[k]], m->ev1[e[k]], p, q);
            require(t >= own_tris || (p < own_verts && e[k] < own_edges),
                    "own triangle %u uses context", t);
            used[e[k]] = 1;
        }
    }
    for (uint32_t e = 0; e < m->nedges; e++)
        require(used[e], "edge %u belongs to no triangle", e);
    free(keys);
    free(used);
}

START_TEST(test_planet_chunks)
{
    const int L = 1 + _i; /* 1..6 */
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *whole;
    ck_assert_ok(strata_shape_icosphere(ctx, L, 2.5f, &whole));
    const uint32_t V = whole->nverts, T = whole->ntris;
    /* vertex -> triangles of the whole icosphere */
    uint32_t *first = calloc((size_t)V + 1, sizeof *first), *fan = malloc(sizeof *fan * 3 * T);
    uint32_t *cur = malloc(sizeof *cur * V), *mark = calloc(V, sizeof *mark);
    uint32_t *ring_mark = calloc(T, sizeof *ring_mark), *mark1 = calloc(V, sizeof *mark1);
    uint32_t *near = malloc(sizeof *near * V);
    ck_assert(first && fan && cur && mark && ring_mark && mark1 && near);
    const uint32_t *corner[3] = {whole->a, whole->b, whole->c};
    for (uint32_t t = 0; t < T; t++)
        for (int k = 0; k < 3; k++)
            first[corner[k][t] + 1]++;
    for (uint32_t v = 0; v < V; v++)
        first[v + 1] += first[v];
    memcpy(cur, first, sizeof *cur * V);
    for (uint32_t t = 0; t < T; t++)
        for (int k = 0; k < 3; k++)
            fan[cur[corner[k][t]]++] = t;

    uint32_t stamp = 0;
    for (int C = 0; C < L; C++) {
        strata_planet_lattice pl;
        ck_assert_ok(strata__planet_lattice_init(ctx, L, C, 2.5f, &pl));
        strata_ring_scratch scratch = {0};
        strata_mesh *m;
        ck_assert_ok(strata__planet_chunk_alloc(&pl, &m));
        const uint32_t per = 1u << (2 * (L - C));
        ck_assert_uint_eq(pl.ntris, per);
        ck_assert_uint_eq(strata__planet_chunks(&pl), (uint64_t)20 << (2 * C));
        tri_bits *want = malloc(sizeof *want * (pl.cap_tris + 1));
        tri_bits *got = malloc(sizeof *got * (pl.cap_tris + 1));
        ck_assert(want && got);
        for (uint32_t id = 0; id < strata__planet_chunks(&pl); id++) {
            ck_assert_ok(strata__planet_chunk_build(&pl, id, &scratch, m));
            require(m->ntris - m->ghost_tris == per && m->nverts - m->ghost_verts == pl.nverts &&
                        m->nedges - m->ghost_edges == pl.nedges,
                    "L%d C%d chunk %u: own counts", L, C, id);
            /* own triangles: the whole icosphere's, in order, same bits */
            stamp++;
            for (uint32_t k = 0; k < per; k++) {
                const uint32_t g = id * per + k;
                tri_bits a = bits_of(m, m->a[k], m->b[k], m->c[k]);
                tri_bits b = bits_of(whole, whole->a[g], whole->b[g], whole->c[g]);
                require(!memcmp(&a, &b, sizeof a), "L%d C%d chunk %u triangle %u differs", L, C,
                        id, k);
                mark[whole->a[g]] = mark[whole->b[g]] = mark[whole->c[g]] = stamp;
            }
            /* context ring: whole triangles outside the chunk sharing a
             * vertex with it or with one of those */
            uint32_t nnear = 0;
            for (uint32_t v = 0; v < V; v++)
                if (mark[v] == stamp) {
                    near[nnear++] = v;
                    mark1[v] = stamp;
                }
            const uint32_t nown = nnear;
            for (uint32_t i = 0; i < nown; i++)
                for (uint32_t f = first[near[i]]; f < first[near[i] + 1]; f++) {
                    const uint32_t t = fan[f], c[3] = {whole->a[t], whole->b[t], whole->c[t]};
                    for (int k = 0; k < 3; k++)
                        if (t / per != id && mark1[c[k]] != stamp) {
                            mark1[c[k]] = stamp;
                            near[nnear++] = c[k];
                        }
                }
            uint32_t nwant = 0;
            for (uint32_t i = 0; i < nnear; i++) {
                const uint32_t v = near[i];
                for (uint32_t f = first[v]; f < first[v + 1]; f++) {
                    const uint32_t t = fan[f];
                    if (t / per == id || ring_mark[t] == stamp)
                        continue;
                    ring_mark[t] = stamp;
                    require(nwant < pl.cap_tris - per, "L%d C%d chunk %u: ring over its room",
                            L, C, id);
                    want[nwant++] = bits_of(whole, whole->a[t], whole->b[t], whole->c[t]);
                }
            }
            require(nwant == m->ghost_tris, "L%d C%d chunk %u: ring has %u triangles, want %u", L,
                    C, id, m->ghost_tris, nwant);
            for (uint32_t k = 0; k < m->ghost_tris; k++) {
                const uint32_t t = per + k;
                got[k] = bits_of(m, m->a[t], m->b[t], m->c[t]);
            }
            qsort(want, nwant, sizeof *want, cmp_tri);
            qsort(got, nwant, sizeof *got, cmp_tri);
            require(!memcmp(want, got, sizeof *want * nwant), "L%d C%d chunk %u: ring differs",
                    L, C, id);
            check_edges(m, pl.nverts, pl.nedges, per);
            for (uint32_t v = 0; v < m->nverts; v++) {
                const float d = sqrtf(m->x[v] * m->x[v] + m->y[v] * m->y[v] + m->z[v] * m->z[v]);
                require(m->h[v] == d - 2.5f, "height of vertex %u", v);
            }
        }
        free(want);
        free(got);
        strata_mesh_destroy(m);
        strata__ring_scratch_free(&scratch);
        strata__planet_lattice_free(&pl);
    }
    free(first);
    free(fan);
    free(cur);
    free(mark);
    free(ring_mark);
    free(mark1);
    free(near);
    strata_mesh_destroy(whole);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_planet_lattice_limits)
{
    strata_ctx *ctx = ctx_new(1);
    strata_planet_lattice pl;
    ck_assert_status(strata__planet_lattice_init(ctx, 5, 5, 1.0f, &pl), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata__planet_lattice_init(ctx, 5, -1, 1.0f, &pl), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata__planet_lattice_init(ctx, 14, 3, 1.0f, &pl), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata__planet_lattice_init(ctx, 5, 2, 0.0f, &pl), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata__planet_lattice_init(ctx, 5, 2, INFINITY, &pl),
                     STRATA_ERR_INVALID_ARG);
    ck_assert_ok(strata__planet_lattice_init(ctx, 3, 1, 1.0f, &pl));
    strata_ring_scratch s = {0};
    strata_mesh *m;
    ck_assert_ok(strata__planet_chunk_alloc(&pl, &m));
    ck_assert_status(strata__planet_chunk_build(&pl, 80, &s, m), STRATA_ERR_INVALID_ARG);
    strata_mesh_destroy(m);
    strata__ring_scratch_free(&s);
    strata__planet_lattice_free(&pl);
    strata_ctx_destroy(ctx);
}
END_TEST


/* ------------------------------------------------------------ terrains */

static uint64_t rng = 88172645463325252ull;
static float rnd_height(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (float)((int)(rng % 2001) - 1000) / 64.0f; /* many equal heights */
}

/* A w x h PFM heightmap of random heights, decoded. */
static strata_heightmap *random_heightmap(strata_ctx *ctx, uint32_t w, uint32_t h)
{
    char head[64];
    const int n = snprintf(head, sizeof head, "Pf\n%u %u\n-1.0\n", w, h);
    const size_t len = (size_t)n + 4 * (size_t)w * h;
    unsigned char *buf = malloc(len);
    ck_assert_ptr_nonnull(buf);
    memcpy(buf, head, (size_t)n);
    for (size_t i = 0; i < (size_t)w * h; i++) {
        const float f = rnd_height();
        memcpy(buf + n + 4 * i, &f, 4); /* little-endian host */
    }
    strata_heightmap *hm;
    ck_assert_ok(strata_heightmap_decode(ctx, buf, len, &hm));
    free(buf);
    return hm;
}

/* Every tile of every tile size against the whole grid `whole` made in
 * memory from the same source. */
static void check_tiles(strata_ctx *ctx, const strata_mesh *whole, const strata_terrain_source *src,
                        float cell, uint32_t tile)
{
    strata_terrain_lattice tl;
    ck_assert_ok(strata__terrain_lattice_init(ctx, src, cell, tile, &tl));
    strata_tile_scratch scratch = {0};
    strata_mesh *m;
    ck_assert_ok(strata__terrain_tile_alloc(&tl, &m));
    const uint32_t nx = src->nx, nz = src->nz;
    ck_assert_uint_eq(strata__terrain_tiles(&tl),
                      (uint64_t)((nx + tile - 1) / tile) * ((nz + tile - 1) / tile));
    tri_bits *want = malloc(sizeof *want * tl.cap_tris), *got = malloc(sizeof *got * tl.cap_tris);
    uint8_t *near = malloc(whole->nverts);
    ck_assert(want && got && near);
    uint64_t covered = 0;
    for (uint64_t id = 0; id < strata__terrain_tiles(&tl); id++) {
        ck_assert_ok(strata__terrain_tile_build(&tl, id, &scratch, m));
        const uint32_t tx = (uint32_t)(id % tl.ntx), tz = (uint32_t)(id / tl.ntx);
        const uint32_t i0 = tx * tile, j0 = tz * tile;
        const uint32_t i1 = i0 + tile < nx ? i0 + tile : nx, j1 = j0 + tile < nz ? j0 + tile : nz;
        const uint32_t cw = i1 - i0, ch = j1 - j0, own = 2 * cw * ch;
        require(m->ntris - m->ghost_tris == own, "tile %u: %u own triangles, want %u",
                (unsigned)id, m->ntris - m->ghost_tris, own);
        covered += own;
        for (uint32_t j = 0; j < ch; j++)
            for (uint32_t i = 0; i < cw; i++)
                for (uint32_t k = 0; k < 2; k++) {
                    const uint32_t t = 2 * (j * cw + i) + k;
                    const uint32_t g = 2 * ((j0 + j) * nx + (i0 + i)) + k;
                    tri_bits a = bits_of(m, m->a[t], m->b[t], m->c[t]);
                    tri_bits b = bits_of(whole, whole->a[g], whole->b[g], whole->c[g]);
                    require(!memcmp(&a, &b, sizeof a), "tile %u cell (%u,%u) triangle %u differs",
                            (unsigned)id, i0 + i, j0 + j, k);
                }
        /* ring: whole triangles outside the block with a corner in it
         * (near 1) or a corner of one of those (near 2) */
        memset(near, 0, whole->nverts);
        for (uint32_t v = 0; v < whole->nverts; v++) {
            const uint32_t vi = v % (nx + 1), vj = v / (nx + 1);
            near[v] = vi >= i0 && vi <= i1 && vj >= j0 && vj <= j1;
        }
        uint32_t nwant = 0;
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t g = 0; g < whole->ntris; g++) {
                const uint32_t ci = (g / 2) % nx, cj = (g / 2) / nx;
                if (ci >= i0 && ci < i1 && cj >= j0 && cj < j1)
                    continue;
                const uint32_t v[3] = {whole->a[g], whole->b[g], whole->c[g]};
                const int touches = near[v[0]] == 1 || near[v[1]] == 1 || near[v[2]] == 1;
                for (int k = 0; k < 3 && pass == 0 && touches; k++)
                    near[v[k]] = near[v[k]] ? near[v[k]] : 2;
                if (pass == 1 && (touches || near[v[0]] || near[v[1]] || near[v[2]]))
                    want[nwant++] = bits_of(whole, v[0], v[1], v[2]);
            }
        require(nwant == m->ghost_tris, "tile %u: ring has %u triangles, want %u", (unsigned)id,
                m->ghost_tris, nwant);
        for (uint32_t k = 0; k < nwant; k++)
            got[k] = bits_of(m, m->a[own + k], m->b[own + k], m->c[own + k]);
        qsort(want, nwant, sizeof *want, cmp_tri);
        qsort(got, nwant, sizeof *got, cmp_tri);
        require(!memcmp(want, got, sizeof *want * nwant), "tile %u: ring differs", (unsigned)id);
        check_edges(m, (cw + 1) * (ch + 1), cw * (ch + 1) + (cw + 1) * ch + cw * ch, own);
        for (uint32_t v = 0; v < m->nverts; v++)
            require(m->h[v] == m->y[v], "height of vertex %u", v);
    }
    ck_assert_uint_eq(covered, whole->ntris);
    free(want);
    free(got);
    free(near);
    strata_mesh_destroy(m);
    strata__tile_scratch_free(&scratch);
}

static const uint32_t tile_sizes[] = {1, 2, 3, 5, 8, 21, 64};

START_TEST(test_terrain_heightmap_tiles)
{
    strata_ctx *ctx = ctx_new(1);
    strata_heightmap *hm = random_heightmap(ctx, 22, 17);
    strata_mesh *whole;
    ck_assert_ok(strata_mesh_from_heightmap(ctx, hm, 0.75f, 1.5f, &whole));
    strata_terrain_source src;
    ck_assert_ok(strata__terrain_source_init(&src, hm, 0, 1.5f, 0, 0));
    ck_assert_uint_eq(src.nx, 21);
    ck_assert_uint_eq(src.nz, 16);
    check_tiles(ctx, whole, &src, 0.75f, tile_sizes[_i]);
    strata_mesh_destroy(whole);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_terrain_template_tiles)
{
    strata_ctx *ctx = ctx_new(1);
    strata_heightmap *hm = random_heightmap(ctx, 5, 4);
    strata_mesh *whole;
    ck_assert_ok(strata_mesh_from_template(ctx, hm, 6, 0.5f, 2.0f, &whole));
    strata_terrain_source src;
    ck_assert_ok(strata__terrain_source_init(&src, hm, 6, 2.0f, 0, 0));
    ck_assert_uint_eq(src.nx, 24);
    ck_assert_uint_eq(src.nz, 18);
    check_tiles(ctx, whole, &src, 0.5f, tile_sizes[_i]);
    strata_mesh_destroy(whole);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_terrain_flat_tiles)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *whole;
    ck_assert_ok(strata_shape_grid(ctx, 13, 9, 1.25f, &whole));
    strata_terrain_source src;
    ck_assert_ok(strata__terrain_source_init(&src, NULL, 0, 1.0f, 13, 9));
    check_tiles(ctx, whole, &src, 1.25f, tile_sizes[_i]);
    strata_mesh_destroy(whole);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The template's heights: the samples at patch corners, the triangle's
 * linear interpolation inside (to float rounding), one formula per
 * vertex. */
START_TEST(test_template_heights)
{
    strata_ctx *ctx = ctx_new(1);
    static const unsigned char pgm[] = "P5\n3 2\n255\n\x00\x10\x40\x80\xff\x20";
    strata_heightmap *hm;
    ck_assert_ok(strata_heightmap_decode(ctx, pgm, sizeof pgm - 1, &hm));
    const float *s = strata_heightmap_data(hm);
    strata_mesh *m;
    const uint32_t P = 8;
    ck_assert_ok(strata_mesh_from_template(ctx, hm, P, 1.0f, 3.0f, &m));
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    ck_assert_uint_eq(v.nverts, (2 * P + 1) * (P + 1));
    for (uint32_t j = 0; j <= P; j++)
        for (uint32_t i = 0; i <= 2 * P; i++) {
            const uint32_t ci = i / P > 1 ? 1 : i / P;
            const double u = (double)(i - ci * P) / P, w = (double)j / P;
            const double s00 = s[ci], s10 = s[ci + 1], s01 = s[3 + ci], s11 = s[4 + ci];
            const double want = 3.0 * (w >= u ? (1 - w) * s00 + (w - u) * s01 + u * s11
                                              : (1 - u) * s00 + (u - w) * s10 + w * s11);
            const float got = v.y[j * (2 * P + 1) + i];
            require(fabs(got - want) <= 1e-6, "(%u,%u): %g, want %g", i, j, got, want);
            if ((i % P == 0) && (j % P == 0))
                require(got == s[(j / P) * 3 + i / P] * 3.0f, "corner (%u,%u) not exact", i, j);
        }
    strata_mesh *bad;
    ck_assert_status(strata_mesh_from_template(ctx, hm, 0, 1.0f, 1.0f, &bad),
                     STRATA_ERR_INVALID_ARG);
    ck_assert_ptr_null(bad);
    ck_assert_status(strata_mesh_from_template(ctx, hm, 1u << 31, 1.0f, 1.0f, &bad),
                     STRATA_ERR_OVERFLOW);
    strata_mesh_destroy(m);
    strata_heightmap_destroy(hm);
    strata_ctx_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lattice");
    TCase *tc = tcase_create("Planet");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_planet_chunks, 0, 6);
    tcase_add_test(tc, test_planet_lattice_limits);
    suite_add_tcase(s, tc);
    tc = tcase_create("Terrain");
    tcase_set_timeout(tc, 600);
    const int nsizes = (int)(sizeof tile_sizes / sizeof tile_sizes[0]);
    tcase_add_loop_test(tc, test_terrain_heightmap_tiles, 0, nsizes);
    tcase_add_loop_test(tc, test_terrain_template_tiles, 0, nsizes);
    tcase_add_loop_test(tc, test_terrain_flat_tiles, 0, nsizes);
    tcase_add_test(tc, test_template_heights);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
