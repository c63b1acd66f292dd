/* Suite "lattice": chunk lattices of worlds (core/lattice.h) against the
 * whole surface built in memory.  White-box: linked against the static
 * library for the hidden functions.
 *
 * Planets: for every level L <= 6 and chunk level C < L, every chunk's own
 * triangles are the icosphere's triangles of that chunk, in order, with
 * the same corner order and the same position bits; its context ring is
 * exactly the set of icosphere triangles outside the chunk that share a
 * vertex with it; and its edge table is a valid one (each side's edge
 * joins its two corners, no edge twice, own triangles use own vertices and
 * edges only). */
#include "testutil.h"

#include "lattice.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static strata_ctx *new_ctx(int threads)
{
    strata_ctx *ctx;
    strata_ctx_options o = {threads, NULL};
    ck_assert_ok(strata_ctx_create(&o, &ctx));
    return ctx;
}

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

static int cmp_u64(const void *pa, const void *pb)
{
    const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
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
    strata_ctx *ctx = new_ctx(1);
    strata_mesh *whole;
    ck_assert_ok(strata_shape_icosphere(ctx, L, 2.5f, &whole));
    const uint32_t V = whole->nverts, T = whole->ntris;
    /* vertex -> triangles of the whole icosphere */
    uint32_t *first = calloc((size_t)V + 1, sizeof *first), *fan = malloc(sizeof *fan * 3 * T);
    uint32_t *cur = malloc(sizeof *cur * V), *mark = calloc(V, sizeof *mark);
    uint32_t *ring_mark = calloc(T, sizeof *ring_mark);
    ck_assert(first && fan && cur && mark && ring_mark);
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
            /* context ring: whole triangles outside the chunk touching it */
            uint32_t nwant = 0;
            for (uint32_t v = 0; v < V; v++) {
                if (mark[v] != stamp)
                    continue;
                for (uint32_t f = first[v]; f < first[v + 1]; f++) {
                    const uint32_t t = fan[f];
                    if (t / per == id || ring_mark[t] == stamp)
                        continue;
                    ring_mark[t] = stamp;
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
    strata_mesh_destroy(whole);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_planet_lattice_limits)
{
    strata_ctx *ctx = new_ctx(1);
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

int main(void)
{
    Suite *s = suite_create("lattice");
    TCase *tc = tcase_create("Planet");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_planet_chunks, 0, 6);
    tcase_add_test(tc, test_planet_lattice_limits);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
