/* Suite "edits": edit logs (strata.h, "Edit logs").
 *
 *  - The file format: every kind of bad line refused with its line and
 *    field, the log left as it was; save and load give the same floats.
 *  - Undo and redo, and a new dab forgetting what could be redone.
 *  - A dab changes only chunks strata_world_chunks_near names (planets
 *    and terrains, every brush), and changes some.
 *  - A lower repeating a raise restores every chunk's bytes and a whole
 *    mesh's positions bit for bit.
 *  - Chunks and whole meshes with edits are the same for 1 and 2 threads
 *    and for every instruction set. */
#define _POSIX_C_SOURCE 200809L

#include "testutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the file */

typedef struct {
    const char *text;
    uint64_t line;
    const char *field;
} bad_case;

static const bad_case bad_cases[] = {
    {"", 1, "header"},
    {"strata-edits 2\n", 1, "header"},
    {"strata-edits 1 \n", 1, "header"},
    {"strata-edits 1\nraise 0 0 0 1\n", 2, "strength"},
    {"strata-edits 1\n\n# c\nrise 0 0 0 1 1\n", 4, "brush"},
    {"strata-edits 1\nraise 0 0 0 1 1 1\n", 2, "end of line"},
    {"strata-edits 1\nraise 0 1x 0 1 1\n", 2, "y"},
    {"strata-edits 1\nraise 0 0 nan 1 1\n", 2, "z"},
    {"strata-edits 1\nraise 0x1 0 0 1 1\n", 2, "x"},
    {"strata-edits 1\nraise 0 0 0 0 1\n", 2, "radius"},
    {"strata-edits 1\nraise 0 0 0 -1 1\n", 2, "radius"},
    {"strata-edits 1\nraise 0 0 0 1 -0.5\n", 2, "strength"},
    {"strata-edits 1\nsmooth 0 0 0 1 1.5\n", 2, "strength"},
    {"strata-edits 1\nterrace 0 0 0 1 2\n", 2, "strength"},
    {"strata-edits 1\nraise 0 0 0 1e39 1\n", 2, "radius"},
    {"strata-edits 1\nraise 0 0 0 1 1\r\n", 2, "line"},
    {"strata-edits 1\nraise 0 0 0 1 1\nlower 0 0\n", 3, "z"},
    {"strata-edits 1\nraise . 0 0 1 1\n", 2, "x"},
    {"strata-edits 1\nraise 1e 0 0 1 1\n", 2, "x"},
};

START_TEST(test_parse_errors)
{
    const bad_case *c = &bad_cases[_i];
    strata_edits *e;
    ck_assert_ok(strata_edits_create(&e));
    const char *good = "strata-edits 1\nnoise 1 2 3 4 0.5\n";
    ck_assert_ok(strata_edits_parse(e, good, strlen(good), NULL));
    strata_edits_error err;
    ck_assert_status(strata_edits_parse(e, c->text, strlen(c->text), &err), STRATA_ERR_FORMAT);
    require(err.line == c->line && !strcmp(err.field, c->field),
            "case %d: line %llu field '%s', want line %llu field '%s'", _i,
            (unsigned long long)err.line, err.field, (unsigned long long)c->line, c->field);
    require_eq(strata_edits_count(e), 1); /* unchanged */
    strata_edits_destroy(e);
}
END_TEST

START_TEST(test_parse_and_save)
{
    const char *text = "strata-edits 1\n# comment\n\n  raise\t0.5 -1 2.25e1 0.125 3\n"
                       "smooth 0 0 0 1 1\nterrace 1 1 1 2 0\nnoise 0 1 0 1 0\nlower 1 2 3 4 5";
    strata_edits *e, *f;
    ck_assert_ok(strata_edits_create(&e));
    ck_assert_ok(strata_edits_parse(e, text, strlen(text), NULL));
    require_eq(strata_edits_count(e), 5);
    strata_edit d;
    ck_assert_ok(strata_edits_get(e, 0, &d));
    require(d.brush == STRATA_BRUSH_RAISE && d.center[0] == 0.5f && d.center[1] == -1.0f &&
                d.center[2] == 22.5f && d.radius == 0.125f && d.strength == 3.0f,
            "first dab read wrong");
    ck_assert_status(strata_edits_get(e, 5, &d), STRATA_ERR_INVALID_ARG);
    /* awkward floats survive a save and a load */
    uint32_t seed = 12345;
    for (int i = 0; i < 200; i++) {
        float v[5];
        for (int k = 0; k < 5; k++) {
            seed = seed * 1664525u + 1013904223u;
            v[k] = ((float)(seed >> 8) / 16777216.0f - 0.5f) * (k == 4 ? 2e-3f : 3e3f);
        }
        strata_edit ed = {STRATA_BRUSH_NOISE, {v[0], v[1], v[2]}, fabsf(v[3]) + 1e-7f,
                          fabsf(v[4])};
        ck_assert_ok(strata_edits_append(e, &ed));
    }
    strata_ctx *ctx = ctx_new(1);
    char *dir = tmpdir_new();
    char path[512];
    snprintf(path, sizeof path, "%s/log.txt", dir);
    ck_assert_ok(strata_edits_save(ctx, e, path));
    ck_assert_ok(strata_edits_create(&f));
    ck_assert_ok(strata_edits_load(f, path, NULL));
    require_eq(strata_edits_count(f), strata_edits_count(e));
    for (uint64_t i = 0; i < strata_edits_count(e); i++) {
        strata_edit a, b;
        strata_edits_get(e, i, &a);
        strata_edits_get(f, i, &b);
        require(!memcmp(&a, &b, sizeof a), "dab %llu differs after save and load",
                (unsigned long long)i);
    }
    snprintf(path, sizeof path, "%s/none.txt", dir);
    ck_assert_status(strata_edits_load(f, path, NULL), STRATA_ERR_IO);
    strata_edits_destroy(f);
    strata_edits_destroy(e);
    tmpdir_remove(dir);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_undo_redo)
{
    strata_edits *e;
    ck_assert_ok(strata_edits_create(&e));
    strata_edit d = {STRATA_BRUSH_RAISE, {0, 0, 0}, 1, 1}, got;
    ck_assert_status(strata_edits_undo(e, &got), STRATA_ERR_INVALID_ARG);
    for (int i = 0; i < 3; i++) {
        d.center[0] = (float)i;
        ck_assert_ok(strata_edits_append(e, &d));
    }
    ck_assert_ok(strata_edits_undo(e, &got));
    require(got.center[0] == 2.0f && strata_edits_count(e) == 2 &&
                strata_edits_redo_count(e) == 1,
            "undo took the last dab");
    ck_assert_ok(strata_edits_undo(e, NULL));
    ck_assert_ok(strata_edits_redo(e, &got));
    require(got.center[0] == 1.0f && strata_edits_count(e) == 2, "redo brought it back");
    d.center[0] = 9;
    ck_assert_ok(strata_edits_append(e, &d));
    require_eq(strata_edits_redo_count(e), 0);
    ck_assert_status(strata_edits_redo(e, NULL), STRATA_ERR_INVALID_ARG);
    d.radius = 0;
    ck_assert_status(strata_edits_append(e, &d), STRATA_ERR_INVALID_ARG);
    d.radius = 1;
    d.brush = (strata_brush)7;
    ck_assert_status(strata_edits_append(e, &d), STRATA_ERR_INVALID_ARG);
    require_eq(strata_edits_count(e), 3);
    strata_edits_destroy(e);
}
END_TEST

/* ------------------------------------------------------------ worlds */

static const strata_fbm *noise(int planet)
{
    static strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = planet ? 1.5f : 0.1f;
    f.amplitude = planet ? 0.1f : 3.0f;
    f.seed = 7;
    return &f;
}

/* A planet (level 6, chunk level 2) or a 60 x 50 terrain in tiles of 16
 * cells, with noise and 20 planes. */
static strata_world *world_new(strata_ctx *ctx, int planet)
{
    strata_world_options o;
    strata_world_defaults(&o);
    o.kind = planet ? STRATA_WORLD_PLANET : STRATA_WORLD_TERRAIN;
    o.level = 6;
    o.chunk_level = 2;
    o.cells_x = 60;
    o.cells_z = 50;
    o.cell_size = 0.5f;
    o.tile_cells = 16;
    o.noise = noise(planet);
    o.terraces = 20;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    return w;
}

/* FNV-1a of chunk id's result: positions, indices, terraces' ranges. */
static uint64_t chunk_hash(strata_ctx *ctx, const strata_world *w, uint64_t id)
{
    strata_result *r;
    ck_assert_ok(strata_result_create(ctx, &r));
    ck_assert_ok(strata_world_make_chunk(ctx, w, id, r));
    strata_result_view v;
    strata_result_get_view(r, &v);
    uint64_t h = 1469598103934665603ull;
#define MIX(p, n)                                                                          \
    for (size_t q_ = 0; q_ < (n); q_++)                                                    \
        h = (h ^ ((const unsigned char *)(p))[q_]) * 1099511628211ull;
    MIX(v.x, v.nverts * sizeof(float));
    MIX(v.y, v.nverts * sizeof(float));
    MIX(v.z, v.nverts * sizeof(float));
    MIX(v.indices, v.nindices * sizeof(uint32_t));
    for (uint32_t k = 0; k < v.nterraces; k++) {
        MIX(&v.terraces[k].roof_count, sizeof(uint64_t));
        MIX(&v.terraces[k].wall_count, sizeof(uint64_t));
    }
#undef MIX
    strata_result_destroy(r);
    return h;
}

static uint64_t *all_hashes(strata_ctx *ctx, const strata_world *w)
{
    const uint64_t n = strata_world_chunk_count(w);
    uint64_t *h = malloc(n * sizeof *h);
    ck_assert_ptr_nonnull(h);
    for (uint64_t i = 0; i < n; i++)
        h[i] = chunk_hash(ctx, w, i);
    return h;
}

/* A dab of each brush, on a planet's surface or a terrain's middle. */
static strata_edit dab(int planet, strata_brush b)
{
    strata_edit d;
    memset(&d, 0, sizeof d);
    d.brush = b;
    if (planet) {
        d.center[0] = 0.36f, d.center[1] = 0.48f, d.center[2] = 0.8f;
        d.radius = 0.3f;
    } else {
        d.center[0] = 3.0f, d.center[2] = -2.0f;
        d.radius = 4.0f;
    }
    d.strength = b == STRATA_BRUSH_SMOOTH || b == STRATA_BRUSH_TERRACE ? 1.0f
                 : planet                                              ? 0.05f
                                                                       : 2.0f;
    return d;
}

/* _i: planet (bit 0), brush (_i / 2). */
START_TEST(test_only_near)
{
    const int planet = _i & 1;
    const strata_brush b = (strata_brush)(_i / 2);
    strata_ctx *ctx = ctx_new(1);
    strata_world *w = world_new(ctx, planet);
    uint64_t *before = all_hashes(ctx, w);
    strata_edits *e;
    ck_assert_ok(strata_edits_create(&e));
    const strata_edit d = dab(planet, b);
    ck_assert_ok(strata_edits_append(e, &d));
    strata_world_set_edits(w, e);
    uint64_t *after = all_hashes(ctx, w);
    const uint64_t n = strata_world_chunk_count(w);
    uint64_t *near = malloc(n * sizeof *near), nnear = 0, changed = 0;
    ck_assert_ok(strata_world_chunks_near(w, d.center, d.radius, near, n, &nnear));
    for (uint64_t i = 0, j = 0; i < n; i++) {
        while (j < nnear && near[j] < i)
            j++;
        const int is_near = j < nnear && near[j] == i;
        if (before[i] != after[i]) {
            changed++;
            require(is_near, "%s %s: chunk %llu changed but is not near the dab",
                    planet ? "planet" : "terrain", strata_brush_name(b), (unsigned long long)i);
        }
    }
    require(changed > 0 && nnear < n, "%s %s: %llu chunks changed of %llu near, %llu in all",
            planet ? "planet" : "terrain", strata_brush_name(b), (unsigned long long)changed,
            (unsigned long long)nnear, (unsigned long long)n);
    free(near);
    free(after);
    free(before);
    strata_world_destroy(w);
    strata_edits_destroy(e);
    strata_ctx_destroy(ctx);
}
END_TEST

/* raise then lower with the same numbers: every chunk as without edits,
 * and a whole mesh's positions as displaced. */
START_TEST(test_raise_lower_restores)
{
    const int planet = _i;
    strata_ctx *ctx = ctx_new(1);
    strata_world *w = world_new(ctx, planet);
    uint64_t *before = all_hashes(ctx, w);
    strata_edits *e;
    ck_assert_ok(strata_edits_create(&e));
    strata_edit d = dab(planet, STRATA_BRUSH_RAISE);
    ck_assert_ok(strata_edits_append(e, &d));
    d.brush = STRATA_BRUSH_LOWER;
    ck_assert_ok(strata_edits_append(e, &d));
    strata_world_set_edits(w, e);
    uint64_t *after = all_hashes(ctx, w);
    for (uint64_t i = 0; i < strata_world_chunk_count(w); i++)
        require(before[i] == after[i], "chunk %llu not restored", (unsigned long long)i);
    /* a whole mesh: raise alone moves vertices, raise + lower none */
    strata_mesh *m, *c;
    if (planet)
        ck_assert_ok(strata_shape_icosphere(ctx, 5, 1.0f, &m));
    else
        ck_assert_ok(strata_shape_grid(ctx, 60, 50, 0.5f, &m));
    ck_assert_ok(planet ? strata_displace_radial(ctx, m, noise(1), NULL)
                        : strata_displace_flat(ctx, m, noise(0), NULL));
    ck_assert_ok(strata_mesh_clone(ctx, m, &c));
    ck_assert_ok(strata_mesh_apply_edits(ctx, c, e, noise(planet), NULL, NULL, 0));
    strata_mesh_view a, b;
    strata_mesh_get_view(m, &a);
    strata_mesh_get_view(c, &b);
    require(!memcmp(a.x, b.x, a.nverts * sizeof(float)) &&
                !memcmp(a.y, b.y, a.nverts * sizeof(float)) &&
                !memcmp(a.z, b.z, a.nverts * sizeof(float)),
            "raise then lower moved a vertex of the whole mesh");
    strata_mesh_destroy(c);
    ck_assert_ok(strata_edits_undo(e, NULL));
    ck_assert_ok(strata_mesh_clone(ctx, m, &c));
    ck_assert_ok(strata_mesh_apply_edits(ctx, c, e, noise(planet), NULL, NULL, 0));
    strata_mesh_get_view(c, &b);
    require(memcmp(a.y, b.y, a.nverts * sizeof(float)) != 0, "raise alone moved nothing");
    strata_mesh_destroy(c);
    strata_mesh_destroy(m);
    free(after);
    free(before);
    strata_world_destroy(w);
    strata_edits_destroy(e);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Every brush, overlapping: chunks made with 1 and 2 threads and on
 * every instruction set alike. */
START_TEST(test_threads_isas)
{
    const int planet = _i;
    strata_ctx *one = ctx_new(1), *two = ctx_new(2);
    strata_world *w = world_new(one, planet);
    strata_edits *e;
    ck_assert_ok(strata_edits_create(&e));
    for (int b = 0; b < 5; b++) {
        strata_edit d = dab(planet, (strata_brush)b);
        d.center[0] += 0.05f * (float)b;
        ck_assert_ok(strata_edits_append(e, &d));
    }
    strata_world_set_edits(w, e);
    uint64_t *ref = all_hashes(one, w), *h2 = all_hashes(two, w);
    const uint64_t n = strata_world_chunk_count(w);
    for (uint64_t i = 0; i < n; i++)
        require(ref[i] == h2[i], "chunk %llu differs with 2 threads", (unsigned long long)i);
    const unsigned isas = strata_cpu_isas();
    for (int isa = 0; isa < STRATA_ISA_COUNT_; isa++) {
        if (!(isas & STRATA_ISA_BIT(isa)))
            continue;
        ck_assert_ok(strata_ctx_set_isa(two, (strata_isa)isa));
        uint64_t *hi = all_hashes(two, w);
        for (uint64_t i = 0; i < n; i++)
            require(ref[i] == hi[i], "chunk %llu differs on %s", (unsigned long long)i,
                    strata_isa_name((strata_isa)isa));
        free(hi);
    }
    free(h2);
    free(ref);
    strata_world_destroy(w);
    strata_edits_destroy(e);
    strata_ctx_destroy(two);
    strata_ctx_destroy(one);
}
END_TEST

START_TEST(test_bad_args)
{
    strata_ctx *ctx = ctx_new(1);
    strata_edits *e;
    ck_assert_ok(strata_edits_create(&e));
    strata_mesh *m;
    ck_assert_ok(strata_shape_icosphere(ctx, 1, 1.0f, &m));
    const float c[3] = {1, 0, 0};
    ck_assert_ok(strata_mesh_set_geometry(m, STRATA_RADIAL, c, 1.0f));
    ck_assert_status(strata_mesh_apply_edits(ctx, m, e, NULL, NULL, NULL, 0),
                     STRATA_ERR_INVALID_ARG); /* not about the origin */
    ck_assert_status(strata_mesh_apply_edits(ctx, m, NULL, NULL, NULL, NULL, 0),
                     STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_edits_parse(e, NULL, 3, NULL), STRATA_ERR_INVALID_ARG);
    strata_brush b;
    ck_assert_status(strata_brush_from_name("Raise", &b), STRATA_ERR_INVALID_ARG);
    ck_assert_ok(strata_brush_from_name("terrace", &b));
    require(b == STRATA_BRUSH_TERRACE && !strcmp(strata_brush_name(b), "terrace"), "names");
    strata_mesh_destroy(m);
    strata_edits_destroy(e);
    strata_ctx_destroy(ctx);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("edits");
    TCase *tc = tcase_create("Core");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_parse_errors, 0, (int)(sizeof bad_cases / sizeof bad_cases[0]));
    tcase_add_test(tc, test_parse_and_save);
    tcase_add_test(tc, test_undo_redo);
    tcase_add_test(tc, test_bad_args);
    tcase_add_loop_test(tc, test_only_near, 0, 10);
    tcase_add_loop_test(tc, test_raise_lower_restores, 0, 2);
    tcase_add_loop_test(tc, test_threads_isas, 0, 2);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
