/* Suite "pipeline": the job's planes (strata_terraces_heights) and the
 * pipeline (strata_pipeline_run).
 *
 * The pipeline must give, byte for byte, what the stages' own functions
 * give called one after another in its order; run only the stages asked
 * for, name the stage that failed, and leave nothing to the caller after
 * a failure.  The planes must be those of strata_levels_range with the
 * sea level put in its place, and a world's planes those of the whole
 * mesh of the same options. */
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------ planes */

START_TEST(test_terraces_count)
{
    strata_terraces t;
    strata_terraces_defaults(&t);
    float out[8], want[8];
    uint32_t n = 99;
    ck_assert_uint_eq(strata_terraces_bound(&t), 0);
    ck_assert_ok(strata_terraces_heights(&t, -1.0f, 2.0f, out, &n));
    ck_assert_uint_eq(n, 0); /* no planes: the surface unsliced */
    t.count = 6;
    ck_assert_uint_eq(strata_terraces_bound(&t), 6);
    ck_assert_ok(strata_terraces_heights(&t, -1.0f, 2.0f, out, &n));
    ck_assert_ok(strata_levels_range(-1.0f, 2.0f, 6, NULL, want));
    ck_assert_uint_eq(n, 6);
    ck_assert_int_eq(memcmp(out, want, 6 * sizeof *out), 0);
}
END_TEST

START_TEST(test_terraces_sea)
{
    strata_terraces t;
    strata_terraces_defaults(&t);
    t.count = 6;
    t.sea = 1;
    t.sea_level = 0.1f;
    float out[8], even[6];
    uint32_t n = 0;
    ck_assert_uint_eq(strata_terraces_bound(&t), 7);
    ck_assert_ok(strata_terraces_heights(&t, -1.0f, 2.0f, out, &n));
    ck_assert_ok(strata_levels_range(-1.0f, 2.0f, 6, NULL, even));
    ck_assert_uint_eq(n, 7);
    /* even planes at -1, -0.5, 0, 0.5, ...: the sea goes after 0 */
    const float want[7] = {even[0], even[1], even[2], 0.1f, even[3], even[4], even[5]};
    ck_assert_int_eq(memcmp(out, want, sizeof want), 0);
    /* a sea level that is already a plane adds none */
    t.sea_level = even[2];
    ck_assert_ok(strata_terraces_heights(&t, -1.0f, 2.0f, out, &n));
    ck_assert_uint_eq(n, 6);
    ck_assert_int_eq(memcmp(out, even, sizeof even), 0);
    /* the sea alone, and below or above every plane */
    t.count = 0;
    t.sea_level = -3.0f;
    ck_assert_ok(strata_terraces_heights(&t, 0, 0, out, &n));
    ck_assert_uint_eq(n, 1);
    ck_assert_float_eq(out[0], -3.0f);
    const float lv[3] = {1, 2, 3};
    t.levels = lv;
    t.nlevels = 3;
    t.sea_level = 5.0f;
    ck_assert_ok(strata_terraces_heights(&t, 0, 0, out, &n));
    ck_assert_uint_eq(n, 4);
    ck_assert_float_eq(out[3], 5.0f);
    t.sea_level = 0.5f;
    ck_assert_ok(strata_terraces_heights(&t, 0, 0, out, &n));
    ck_assert_uint_eq(n, 4);
    ck_assert_float_eq(out[0], 0.5f);
    ck_assert_float_eq(out[1], 1.0f);
}
END_TEST

START_TEST(test_terraces_errors)
{
    strata_terraces t;
    strata_terraces_defaults(&t);
    float out[4];
    uint32_t n;
    ck_assert_status(strata_terraces_heights(NULL, 0, 1, out, &n), STRATA_ERR_INVALID_ARG);
    ck_assert_status(strata_terraces_heights(&t, 0, 1, NULL, &n), STRATA_ERR_INVALID_ARG);
    t.sea = 1;
    t.sea_level = NAN;
    ck_assert_status(strata_terraces_heights(&t, 0, 1, out, &n), STRATA_ERR_BAD_LEVELS);
    t.sea_level = INFINITY;
    ck_assert_status(strata_terraces_heights(&t, 0, 1, out, &n), STRATA_ERR_BAD_LEVELS);
    const float bad[3] = {1, 1, 2};
    strata_terraces_defaults(&t);
    t.levels = bad;
    t.nlevels = 3;
    ck_assert_status(strata_terraces_heights(&t, 0, 1, out, &n), STRATA_ERR_BAD_LEVELS);
    strata_terraces_defaults(&t);
    t.count = 3;
    ck_assert_status(strata_terraces_heights(&t, NAN, 1, out, &n), STRATA_ERR_BAD_LEVELS);
    /* more than STRATA_MAX_LEVELS once the sea is added */
    float *many = malloc(STRATA_MAX_LEVELS * sizeof *many), *room = malloc(
        ((size_t)STRATA_MAX_LEVELS + 1) * sizeof *room);
    ck_assert_ptr_nonnull(many);
    ck_assert_ptr_nonnull(room);
    for (uint32_t k = 0; k < STRATA_MAX_LEVELS; k++)
        many[k] = (float)k;
    strata_terraces_defaults(&t);
    t.levels = many;
    t.nlevels = STRATA_MAX_LEVELS;
    t.sea = 1;
    t.sea_level = 0.5f;
    ck_assert_status(strata_terraces_heights(&t, 0, 1, room, &n), STRATA_ERR_BAD_LEVELS);
    t.sea_level = 7.0f; /* one of them: fine */
    ck_assert_ok(strata_terraces_heights(&t, 0, 1, room, &n));
    ck_assert_uint_eq(n, STRATA_MAX_LEVELS);
    free(many);
    free(room);
}
END_TEST

/* A noise grid of 48 x 40 cells, heights about -0.75 .. 0.75. */
static strata_mesh *noise_grid(strata_ctx *ctx)
{
    strata_mesh *m;
    ck_assert_ok(strata_shape_grid(ctx, 48, 40, 0.25f, &m));
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.35f;
    f.amplitude = 0.5f;
    f.seed = 7;
    ck_assert_ok(strata_displace_flat(ctx, m, &f, NULL));
    return m;
}

/* A world's planes are those its in-memory twin gets: a terrain world of
 * the same grid and noise, by count with a sea level, and a planet. */
START_TEST(test_world_planes_are_the_meshes)
{
    strata_ctx *ctx = ctx_new(2);
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.frequency = 0.35f;
    f.amplitude = 0.5f;
    f.seed = 7;
    strata_world_options o;
    strata_world_defaults(&o);
    o.kind = STRATA_WORLD_TERRAIN;
    o.cells_x = 48;
    o.cells_z = 40;
    o.cell_size = 0.25f;
    o.tile_cells = 16;
    o.noise = &f;
    o.terraces = 9;
    o.sea = 1;
    o.sea_level = 0.03f;
    strata_world *w;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    uint32_t nw;
    const float *lw = strata_world_levels(w, &nw);

    strata_mesh *m = noise_grid(ctx);
    strata_terraces t;
    strata_terraces_defaults(&t);
    t.count = 9;
    t.sea = 1;
    t.sea_level = 0.03f;
    float lo, hi, lm[10];
    uint32_t nm;
    ck_assert_ok(strata_mesh_height_range(m, &lo, &hi));
    ck_assert_ok(strata_terraces_heights(&t, lo, hi, lm, &nm));
    ck_assert_uint_eq(nw, 10);
    ck_assert_uint_eq(nm, nw);
    ck_assert_int_eq(memcmp(lw, lm, nm * sizeof *lm), 0);
    /* the pipeline of that mesh uses them too */
    strata_pipeline_options po;
    strata_pipeline_defaults(&po);
    po.terraces = t;
    strata_result *r;
    strata_pipeline_report rep;
    ck_assert_ok(strata_pipeline_run(ctx, m, &po, &r, NULL, &rep));
    ck_assert_uint_eq(rep.nlevels, nw);
    strata_result_view v;
    strata_result_get_view(r, &v);
    for (uint32_t k = 0; k < nw; k++)
        ck_assert_float_eq(v.terraces[k].level, lw[k]);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_world_destroy(w);

    /* a world of the sea level alone */
    o.terraces = 0;
    ck_assert_ok(strata_world_create(ctx, &o, &w));
    lw = strata_world_levels(w, &nw);
    ck_assert_uint_eq(nw, 1);
    ck_assert_float_eq(lw[0], 0.03f);
    strata_world_destroy(w);
    o.sea = 0;
    ck_assert_status(strata_world_create(ctx, &o, &w), STRATA_ERR_BAD_LEVELS);
    strata_ctx_destroy(ctx);
}
END_TEST

/* ------------------------------------------------------------ pipeline */

/* The pipeline's result against the stages called by hand, in its
 * order: slice, solid, water, shoreline (coasts of the slice's loops),
 * fit; props scattered on the result as written. */
START_TEST(test_same_as_stages)
{
    strata_ctx *ctx = ctx_new(2);
    strata_mesh *m = noise_grid(ctx);
    const float levels[] = {-0.4f, -0.1f, 0.2f, 0.45f};
    strata_props_options props;
    strata_props_defaults(&props);
    props.density = 3;
    props.seed = 5;

    strata_pipeline_options po;
    strata_pipeline_defaults(&po);
    po.terraces.levels = levels;
    po.terraces.nlevels = 4;
    po.terraces.sea = 1;
    po.terraces.sea_level = 0.0f;
    po.water = 1;
    po.shoreline = 0.3f;
    po.fit_size = 100.0;
    po.props = &props;
    po.props_size[0] = 0.01;
    po.props_size[1] = 0.02;
    strata_result *r;
    strata_props *pr;
    strata_pipeline_report rep;
    ck_assert_ok(strata_pipeline_run(ctx, m, &po, &r, &pr, &rep));
    const uint32_t ran = (1u << STRATA_STAGE_LEVELS) | (1u << STRATA_STAGE_SLICE) |
                         (1u << STRATA_STAGE_LOOPS) | (1u << STRATA_STAGE_WATER) |
                         (1u << STRATA_STAGE_SHORELINE) | (1u << STRATA_STAGE_FIT) |
                         (1u << STRATA_STAGE_PROPS);
    ck_assert_uint_eq(rep.ran, ran);
    ck_assert_uint_eq(rep.nlevels, 5);
    uint64_t peak = 0;
    for (int s = 0; s < STRATA_STAGE_COUNT_; s++) {
        ck_assert(rep.seconds[s] >= 0.0);
        /* memory: the process's peak at each stage's end, never lower
         * than an earlier stage's; nothing for a stage not run */
        if (!(ran & (1u << s))) {
            ck_assert_uint_eq(rep.faults[s], 0);
            ck_assert_uint_eq(rep.peak_rss[s], 0);
            continue;
        }
        ck_assert_uint_ge(rep.peak_rss[s], peak);
        peak = rep.peak_rss[s];
    }
    ck_assert_uint_gt(peak, 1u << 20);

    const float with_sea[] = {-0.4f, -0.1f, 0.0f, 0.2f, 0.45f};
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = with_sea;
    so.nlevels = 5;
    strata_result *h;
    strata_loops *coast;
    ck_assert_ok(strata_slice(ctx, m, &so, &h));
    ck_assert_ok(strata_loops_from_result(ctx, h, &coast));
    ck_assert_ok(strata_result_add_water(ctx, h, 0.0f, NULL, 0, 0));
    ck_assert_ok(strata_result_add_shoreline(ctx, h, coast, 2, 0.3f));
    double factor;
    ck_assert_ok(strata_result_fit_size(h, 100.0, &factor));
    ck_assert_double_eq(factor, rep.fit_factor);
    same_result(r, h, "pipeline against its stages");

    /* props: 1 to 2 % of the longest side of the result's box (100 after
     * the fit) */
    strata_result_view v;
    strata_result_get_view(h, &v);
    double side = 0;
    const float *c[3] = {v.x, v.y, v.z};
    for (int k = 0; k < 3; k++) {
        float lo = INFINITY, hi = -INFINITY;
        for (uint32_t i = 0; i < v.nverts; i++) {
            lo = fminf(lo, c[k][i]);
            hi = fmaxf(hi, c[k][i]);
        }
        side = fmax(side, (double)hi - lo);
    }
    ck_assert_double_eq_tol(side, 100.0, 1e-3);
    strata_props_options hp = props;
    hp.min_scale = (float)(0.01 * side);
    hp.max_scale = (float)(0.02 * side);
    strata_props *ph;
    ck_assert_ok(strata_props_scatter(ctx, h, &hp, &ph));
    strata_props_view a, b;
    strata_props_get_view(pr, &a);
    strata_props_get_view(ph, &b);
    ck_assert_uint_gt(a.count, 10);
    ck_assert_uint_eq(a.count, b.count);
    ck_assert_int_eq(memcmp(a.x, b.x, a.count * sizeof(float)), 0);
    ck_assert_int_eq(memcmp(a.scale, b.scale, a.count * sizeof(float)), 0);
    for (uint64_t i = 0; i < a.count; i++)
        require(a.scale[i] >= hp.min_scale && a.scale[i] <= hp.max_scale,
                "prop %llu: scale %g outside %g..%g", (unsigned long long)i,
                (double)a.scale[i], (double)hp.min_scale, (double)hp.max_scale);

    strata_props_destroy(ph);
    strata_props_destroy(pr);
    strata_loops_destroy(coast);
    strata_result_destroy(h);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Simplified roofs, a solid: the pipeline against the calls by hand; and
 * no planes: the mesh as it is. */
START_TEST(test_solid_and_unsliced)
{
    strata_ctx *ctx = ctx_new(2);
    strata_mesh *m = noise_grid(ctx);
    strata_pipeline_options po;
    strata_pipeline_defaults(&po);
    po.terraces.count = 7;
    po.simplify_roofs = 1e-4;
    po.solid = 1;
    strata_result *r, *h;
    strata_pipeline_report rep;
    ck_assert_ok(strata_pipeline_run(ctx, m, &po, &r, NULL, &rep));
    float lv[7];
    ck_assert_ok(strata_levels_uniform(m, 7, NULL, lv));
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = lv;
    so.nlevels = 7;
    ck_assert_ok(strata_slice(ctx, m, &so, &h));
    ck_assert_ok(strata_result_simplify_roofs(ctx, h, 1e-4, NULL));
    /* the default base: 0.05 x the longest horizontal side (12) */
    ck_assert_float_eq_tol(rep.solid_depth, 0.6f, 1e-6f);
    ck_assert_ok(strata_result_solidify(ctx, h, rep.solid_depth, NULL));
    same_result(r, h, "simplified solid");
    ck_assert_uint_gt(rep.solid.triangles_added, 0);
    ck_assert_uint_gt(rep.simplify.roof_triangles_before, rep.simplify.roof_triangles_after);
    strata_result_destroy(h);
    strata_result_destroy(r);

    strata_pipeline_defaults(&po);
    ck_assert_ok(strata_pipeline_run(ctx, m, &po, &r, NULL, &rep));
    ck_assert_uint_eq(rep.ran, 1u << STRATA_STAGE_SLICE);
    ck_assert_ok(strata_result_from_mesh(ctx, m, 0, &h));
    same_result(r, h, "unsliced");
    strata_result_destroy(h);
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* Failures name their stage, return nothing, and leave no file. */
START_TEST(test_failures)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *m, *planet;
    m = noise_grid(ctx);
    ck_assert_ok(strata_shape_icosphere(ctx, 3, 1.0f, &planet));
    strata_pipeline_options po;
    strata_pipeline_report rep;
    strata_result *r = (strata_result *)&rep; /* must stay as it is */
    strata_result *const untouched = r;

    strata_pipeline_defaults(&po);
    po.water = 1; /* without a sea level */
    ck_assert_status(strata_pipeline_run(ctx, m, &po, &r, NULL, &rep), STRATA_ERR_INVALID_ARG);
    ck_assert_ptr_eq(r, untouched);
    strata_pipeline_defaults(&po);
    po.props = &(strata_props_options){0};
    ck_assert_status(strata_pipeline_run(ctx, m, &po, &r, NULL, &rep), STRATA_ERR_INVALID_ARG);

    /* a solid of a planet: the solid stage */
    strata_pipeline_defaults(&po);
    po.terraces.count = 4;
    po.solid = 1;
    ck_assert_status(strata_pipeline_run(ctx, planet, &po, &r, NULL, &rep),
                     STRATA_ERR_INVALID_ARG);
    ck_assert_int_eq(rep.failed, STRATA_STAGE_SOLID);
    ck_assert_ptr_eq(r, untouched);

    /* explicit levels that do not ascend: the levels stage */
    const float bad[2] = {1.0f, 0.0f};
    strata_pipeline_defaults(&po);
    po.terraces.levels = bad;
    po.terraces.nlevels = 2;
    ck_assert_status(strata_pipeline_run(ctx, m, &po, &r, NULL, &rep), STRATA_ERR_BAD_LEVELS);
    ck_assert_int_eq(rep.failed, STRATA_STAGE_LEVELS);

    /* loops of an unsliced surface */
    strata_pipeline_defaults(&po);
    po.loops_path = "never.geojson";
    ck_assert_status(strata_pipeline_run(ctx, m, &po, &r, NULL, &rep), STRATA_ERR_INVALID_ARG);
    ck_assert_int_eq(rep.failed, STRATA_STAGE_LOOPS);

    /* a file that cannot be written: the write stage, no preview made */
    char *d = tmpdir_new();
    char *path = join(d, "no/such/dir.ply"), *png = join(d, "p.png");
    strata_pipeline_defaults(&po);
    po.terraces.count = 4;
    po.path = path;
    po.preview = png;
    ck_assert_status(strata_pipeline_run(ctx, m, &po, &r, NULL, &rep), STRATA_ERR_IO);
    ck_assert_int_eq(rep.failed, STRATA_STAGE_WRITE);
    ck_assert_uint_eq(rep.ran & (1u << STRATA_STAGE_PREVIEW), 0);
    int temps = 0;
    ck_assert_int_eq(dir_entries(d, &temps), 0);

    /* cancelled: nothing returned */
    strata_pipeline_defaults(&po);
    po.terraces.count = 4;
    strata_ctx_cancel(ctx);
    ck_assert_status(strata_pipeline_run(ctx, m, &po, &r, NULL, &rep), STRATA_ERR_CANCELLED);
    ck_assert_ptr_eq(r, untouched);
    strata_ctx_reset_cancel(ctx);

    free(path);
    free(png);
    tmpdir_remove(d);
    strata_mesh_destroy(planet);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The files: the mesh, its loops and the props' CSV are those the
 * library's writers make of the pipeline's result; the same bytes for 1
 * and 2 threads. */
START_TEST(test_files)
{
    char *d = tmpdir_new();
    unsigned char *bytes[2][3];
    size_t len[2][3];
    for (int threads = 1; threads <= 2; threads++) {
        strata_ctx *ctx = ctx_new(threads);
        strata_mesh *m = noise_grid(ctx);
        strata_props_options props;
        strata_props_defaults(&props);
        props.density = 2;
        char *glb = join(d, "t.glb"), *loops = join(d, "t.geojson"), *csv = join(d, "t.csv");
        strata_pipeline_options po;
        strata_pipeline_defaults(&po);
        po.terraces.count = 6;
        po.path = glb;
        po.loops_path = loops;
        po.props = &props;
        po.props_csv = csv;
        strata_result *r;
        strata_props *pr;
        ck_assert_ok(strata_pipeline_run(ctx, m, &po, &r, &pr, NULL));
        const char *files[3] = {glb, loops, csv};
        for (int i = 0; i < 3; i++) {
            bytes[threads - 1][i] = slurp(files[i], &len[threads - 1][i]);
            ck_assert_ptr_nonnull(bytes[threads - 1][i]);
        }
        /* the loops file as strata_loops_write makes it */
        strata_loops *l;
        ck_assert_ok(strata_loops_from_result(ctx, r, &l));
        char *again = join(d, "again.geojson");
        ck_assert_ok(strata_loops_write(ctx, l, again, NULL));
        size_t n;
        unsigned char *b = slurp(again, &n);
        ck_assert_uint_eq(n, len[threads - 1][1]);
        ck_assert_int_eq(memcmp(b, bytes[threads - 1][1], n), 0);
        free(b);
        free(again);
        strata_loops_destroy(l);
        /* the glb with the props as strata_result_write makes it */
        char *glb2 = join(d, "again.glb");
        strata_write_options wo;
        strata_write_defaults(&wo);
        wo.props = pr;
        ck_assert_ok(strata_result_write(ctx, r, glb2, &wo));
        b = slurp(glb2, &n);
        ck_assert_uint_eq(n, len[threads - 1][0]);
        ck_assert_int_eq(memcmp(b, bytes[threads - 1][0], n), 0);
        free(b);
        free(glb2);
        free(glb);
        free(loops);
        free(csv);
        strata_props_destroy(pr);
        strata_result_destroy(r);
        strata_mesh_destroy(m);
        strata_ctx_destroy(ctx);
    }
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq(len[0][i], len[1][i]);
        ck_assert_int_eq(memcmp(bytes[0][i], bytes[1][i], len[0][i]), 0);
        free(bytes[0][i]);
        free(bytes[1][i]);
    }
    tmpdir_remove(d);
}
END_TEST

/* A file of the given bytes at path. */
static void put_file(const char *path, const char *bytes)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fputs(bytes, f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
}

/* Whether path holds exactly bytes. */
static int has_bytes(const char *path, const char *bytes)
{
    size_t n;
    unsigned char *b = slurp(path, &n);
    const int same = b && n == strlen(bytes) && memcmp(b, bytes, n) == 0;
    free(b);
    return same;
}

/* Progress that makes a directory at the path *user once the preview
 * starts: the mesh, written by then, can no longer be renamed there. */
static int block_mesh(void *user, const char *stage, double done)
{
    (void)done;
    if (!strcmp(stage, "preview"))
        mkdir((const char *)user, 0755); /* EEXIST on the later reports */
    return 0;
}

/* The files of a run are renamed into place all together or not at all:
 * a preview that cannot be written leaves the old mesh and loops files
 * as they were, a mesh that cannot be renamed at the end puts back the
 * loops file renamed before it, and no temporary stays. */
START_TEST(test_all_or_none)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *m = noise_grid(ctx);
    char *d = tmpdir_new();
    char *mesh = join(d, "t.ply"), *loops = join(d, "t.geojson"), *csv = join(d, "t.csv");
    char *png = join(d, "no/such/dir.png");
    put_file(mesh, "old mesh");
    put_file(loops, "old loops");
    strata_props_options props;
    strata_props_defaults(&props);
    strata_pipeline_options po;
    strata_pipeline_defaults(&po);
    po.terraces.count = 6;
    po.path = mesh;
    po.loops_path = loops;
    po.props = &props;
    po.props_csv = csv;
    po.preview = png;
    strata_result *r;
    strata_props *pr;
    strata_pipeline_report rep;
    ck_assert_status(strata_pipeline_run(ctx, m, &po, &r, &pr, &rep), STRATA_ERR_IO);
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_int_eq(rep.failed, STRATA_STAGE_PREVIEW);
    ck_assert(has_bytes(mesh, "old mesh"));
    ck_assert(has_bytes(loops, "old loops"));
    int temps;
    ck_assert_int_eq(dir_entries(d, &temps), 2); /* no CSV */
    ck_assert_int_eq(temps, 0);

    /* the mesh's rename fails (a directory made in its way): the loops
     * file, renamed before it, is put back */
    free(png);
    png = join(d, "t.png");
    po.preview = png;
    ck_assert_int_eq(unlink(mesh), 0);
    strata_ctx_set_progress(ctx, block_mesh, mesh);
    ck_assert_status(strata_pipeline_run(ctx, m, &po, &r, &pr, &rep), STRATA_ERR_IO);
    ck_assert_int_eq(errno, EISDIR);
    ck_assert_int_eq(rep.failed, STRATA_STAGE_WRITE);
    ck_assert(has_bytes(loops, "old loops"));
    ck_assert_int_eq(dir_entries(d, &temps), 2); /* the loops, the directory */
    ck_assert_int_eq(temps, 0);

    /* all written: all in place */
    ck_assert_int_eq(rmdir(mesh), 0);
    strata_ctx_set_progress(ctx, NULL, NULL);
    ck_assert_ok(strata_pipeline_run(ctx, m, &po, &r, &pr, &rep));
    ck_assert_int_eq(dir_entries(d, &temps), 4); /* the mesh, loops, CSV, preview */
    ck_assert_int_eq(temps, 0);
    ck_assert(!has_bytes(loops, "old loops"));
    strata_props_destroy(pr);
    strata_result_destroy(r);
    free(mesh);
    free(loops);
    free(csv);
    free(png);
    tmpdir_remove(d);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* strata_pipeline_memory_bound: the slice's triangles and the props it
 * bounds are at least what the pipeline makes, within a small factor for
 * the triangles; more terraces and a higher density raise it. */
START_TEST(test_memory_bound)
{
    strata_ctx *ctx = ctx_new(1);
    strata_mesh *m = noise_grid(ctx);
    strata_props_options props;
    strata_props_defaults(&props);
    props.density = 50;
    strata_pipeline_options po;
    strata_pipeline_defaults(&po);
    uint64_t b0, t0, p0;
    ck_assert_ok(strata_pipeline_memory_bound(m, &po, &b0, &t0, &p0));
    ck_assert_uint_eq(t0, strata_mesh_triangle_count(m)); /* no planes: the mesh */
    ck_assert_uint_eq(p0, 0);
    uint64_t last = b0;
    const uint32_t counts[3] = {8, 200, 3000};
    for (int i = 0; i < 3; i++) {
        po.terraces.count = counts[i];
        po.props = &props;
        uint64_t bytes, tris, np;
        ck_assert_ok(strata_pipeline_memory_bound(m, &po, &bytes, &tris, &np));
        strata_result *r;
        strata_props *pr;
        ck_assert_ok(strata_pipeline_run(ctx, m, &po, &r, &pr, NULL));
        strata_result_view v;
        strata_result_get_view(r, &v);
        strata_props_view pv;
        strata_props_get_view(pr, &pv);
        ck_assert_uint_ge(tris, v.nindices / 3);
        ck_assert_uint_le(tris, 4 * (uint64_t)(v.nindices / 3));
        ck_assert_uint_ge(np, pv.count);
        ck_assert_uint_gt(bytes, last);
        last = bytes;
        strata_props_destroy(pr);
        strata_result_destroy(r);
    }
    ck_assert_status(strata_pipeline_memory_bound(NULL, &po, &b0, NULL, NULL),
                     STRATA_ERR_INVALID_ARG);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

/* The uv stage: strata_result_add_uv with the given texel or the planes'
 * mean spacing, after the slice and before the fit (the coordinates keep
 * to the surface as it is scaled); fewer than two planes and no texel:
 * the uv stage fails. */
START_TEST(test_uv_stage)
{
    strata_ctx *ctx = ctx_new(2);
    strata_mesh *m = noise_grid(ctx);
    strata_pipeline_options po;
    strata_pipeline_defaults(&po);
    po.terraces.count = 5;
    po.uv = 1;
    po.fit_size = 100.0;
    strata_pipeline_report rep;
    strata_result *r, *ref;
    ck_assert_ok(strata_pipeline_run(ctx, m, &po, &r, NULL, &rep));
    ck_assert(rep.ran & (1u << STRATA_STAGE_UV));
    /* the same by hand: slice, the texel from the planes, then fit */
    float L[5];
    uint32_t n;
    float lo, hi;
    ck_assert_ok(strata_mesh_height_range(m, &lo, &hi));
    ck_assert_ok(strata_terraces_heights(&po.terraces, lo, hi, L, &n));
    ck_assert_uint_eq(n, 5);
    strata_slice_options so = slice_options(L, n, STRATA_WALLS_UPPER, 0, 0);
    ck_assert_ok(strata_slice(ctx, m, &so, &ref));
    ck_assert_ok(strata_result_add_uv(ctx, ref, (float)(((double)L[4] - L[0]) / 4)));
    double factor;
    ck_assert_ok(strata_result_fit_size(ref, 100.0, &factor));
    strata_result_view a, b;
    strata_result_get_view(r, &a);
    strata_result_get_view(ref, &b);
    ck_assert_uint_eq(a.nuv, a.nverts);
    ck_assert_uint_eq(a.nuv, b.nuv);
    ck_assert(!memcmp(a.uv, b.uv, 8 * (size_t)a.nuv));
    ck_assert(!memcmp(a.x, b.x, 4 * (size_t)a.nverts));
    strata_result_destroy(r);
    strata_result_destroy(ref);
    po.terraces.count = 1;
    ck_assert_status(strata_pipeline_run(ctx, m, &po, &r, NULL, &rep), STRATA_ERR_INVALID_ARG);
    ck_assert_int_eq(rep.failed, STRATA_STAGE_UV);
    po.uv_texel = 0.5f;
    ck_assert_ok(strata_pipeline_run(ctx, m, &po, &r, NULL, &rep));
    strata_result_destroy(r);
    strata_mesh_destroy(m);
    strata_ctx_destroy(ctx);
}
END_TEST

START_TEST(test_stage_names)
{
    ck_assert_str_eq(strata_stage_name(STRATA_STAGE_LEVELS), "levels");
    ck_assert_str_eq(strata_stage_name(STRATA_STAGE_SHORELINE), "shoreline");
    ck_assert_str_eq(strata_stage_name(STRATA_STAGE_UV), "uv");
    ck_assert_str_eq(strata_stage_name(STRATA_STAGE_PREVIEW), "preview");
    ck_assert_str_eq(strata_stage_name(STRATA_STAGE_COUNT_), "unknown");
    ck_assert_str_eq(strata_stage_name((strata_stage)-1), "unknown");
}
END_TEST

static Suite *pipeline_suite(void)
{
    Suite *s = suite_create("pipeline");
    TCase *planes = tcase_create("Planes");
    tcase_add_test(planes, test_terraces_count);
    tcase_add_test(planes, test_terraces_sea);
    tcase_add_test(planes, test_terraces_errors);
    tcase_add_test(planes, test_world_planes_are_the_meshes);
    suite_add_tcase(s, planes);
    TCase *core = tcase_create("Core");
    tcase_add_test(core, test_same_as_stages);
    tcase_add_test(core, test_solid_and_unsliced);
    tcase_add_test(core, test_files);
    tcase_add_test(core, test_stage_names);
    tcase_add_test(core, test_uv_stage);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("Limits");
    tcase_add_test(limits, test_failures);
    tcase_add_test(limits, test_all_or_none);
    tcase_add_test(limits, test_memory_bound);
    suite_add_tcase(s, limits);
    return s;
}

int main(void)
{
    return run_suite(pipeline_suite());
}
