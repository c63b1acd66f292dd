/* Suite "faults": every public entry point that allocates, with each of
 * its allocations failing in turn (the counting allocator of testutil.h,
 * one thread so the calls are numbered the same every time).
 *
 * For every k: a fresh context, the inputs made through it, then the call
 * with allocation k of the call failing.  It must return STRATA_ERR_NOMEM
 * (until k passes the call's last allocation, when it succeeds), hand back
 * nothing, leak nothing (no block live once the inputs and the context are
 * gone), and leave no file behind: no new regular file anywhere under the
 * test's directory (temporaries included), except the whole tiles a world
 * run had finished before the failure, which read back complete. */
#define _POSIX_C_SOURCE 200809L

#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ the loop */

typedef struct fx {
    strata_ctx *ctx;
    char *dir;        /* the test's directory (outputs go under it) */
    char path[4096];  /* an output or input path under dir */
    strata_mesh *mesh, *out_mesh;
    strata_result *res, *out_res;
    strata_heightmap *hm, *out_hm;
    strata_world *world, *out_world;
    strata_world_dir *wdir, *out_wdir;
    strata_curve *curve;
    strata_tile_record rec;
    strata_loops *loops, *out_loops;
    strata_props *props, *out_props;
} fx;

typedef struct fault_case {
    const char *name;
    void (*setup)(fx *f);          /* inputs, through f->ctx (may be NULL) */
    strata_status (*call)(fx *f);  /* the call under test: outputs in out_* */
    int world_run;                 /* finished tiles may stay */
} fault_case;

/* Regular files under d (recursively), and how many look temporary. */
static int count_files(const char *d, int *temps)
{
    DIR *dir = opendir(d);
    if (!dir)
        return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", d, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            n += count_files(p, temps);
        } else {
            n++;
            *temps += strstr(e->d_name, ".tmp") != NULL;
        }
    }
    closedir(dir);
    return n;
}

static void remove_tree(const char *d)
{
    DIR *dir = opendir(d);
    if (!dir)
        return;
    for (struct dirent *e; (e = readdir(dir));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", d, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
            remove_tree(p);
        else
            unlink(p);
    }
    closedir(dir);
    rmdir(d);
}

static void free_outputs(fx *f)
{
    strata_mesh_destroy(f->out_mesh);
    strata_result_destroy(f->out_res);
    strata_heightmap_destroy(f->out_hm);
    strata_world_destroy(f->out_world);
    strata_world_dir_close(f->out_wdir);
    strata_loops_destroy(f->out_loops);
    f->out_loops = NULL;
    strata_props_destroy(f->out_props);
    f->out_props = NULL;
    f->out_mesh = NULL;
    f->out_res = NULL;
    f->out_hm = NULL;
    f->out_world = NULL;
    f->out_wdir = NULL;
}

static void free_inputs(fx *f)
{
    strata_mesh_destroy(f->mesh);
    strata_result_destroy(f->res);
    strata_heightmap_destroy(f->hm);
    strata_world_dir_close(f->wdir);
    strata_world_destroy(f->world);
    strata_curve_destroy(f->curve);
    strata_loops_destroy(f->loops);
    strata_props_destroy(f->props);
}

/* Tiles under the world directory f->path that are not whole. */
static int torn_tiles(fx *f)
{
    strata_world_dir *d;
    if (strata_world_dir_open(f->ctx, f->path, &d) != STRATA_OK)
        return 0; /* no manifest: no tile either (checked by count_files) */
    int torn = 0;
    for (uint64_t id = 0; id < strata_world_dir_chunk_count(d); id++) {
        strata_tile_record rec;
        const strata_status st = strata_world_dir_read_tile(f->ctx, d, id, &rec);
        torn += st != STRATA_OK && !(st == STRATA_ERR_IO && errno == ENOENT);
    }
    strata_world_dir_close(d);
    return torn;
}

static void every_failure(const fault_case *c)
{
    long calls = -1;
    for (long k = 0;; k++) {
        test_alloc ta;
        fx f;
        memset(&f, 0, sizeof f);
        f.ctx = ctx_new_counting(1, &ta);
        f.dir = tmpdir_new();
        snprintf(f.path, sizeof f.path, "%s/out", f.dir);
        if (c->setup)
            c->setup(&f);
        int temps = 0;
        const int before = count_files(f.dir, &temps);
        const long start = ta.count;
        ta.fail_at = start + k;
        const strata_status st = c->call(&f);
        ta.fail_at = -1;
        const long made = ta.count - start;
        const int torn = c->world_run && st != STRATA_OK ? torn_tiles(&f) : 0;
        const int after = count_files(f.dir, &temps);
        const int held =
            f.out_mesh || f.out_res || f.out_hm || f.out_world || f.out_wdir || f.out_loops ||
            f.out_props;
        free_outputs(&f);
        free_inputs(&f);
        strata_ctx_destroy(f.ctx);
        remove_tree(f.dir);
        free(f.dir);
        require(ta.live == 0, "%s, allocation %ld failing: %ld blocks leaked", c->name, k,
                (long)ta.live);
        if (st == STRATA_OK) {
            require(made <= k, "%s: succeeded although allocation %ld of %ld failed", c->name,
                    k, made);
            calls = k;
            break;
        }
        require(st == STRATA_ERR_NOMEM, "%s, allocation %ld of %ld failing: %s", c->name, k,
                made, strata_status_str(st));
        require(!held, "%s, allocation %ld failing: an output handed back", c->name, k);
        require(temps == 0, "%s, allocation %ld failing: %d temporary files left", c->name, k,
                temps);
        require(c->world_run ? torn == 0 : after == before,
                "%s, allocation %ld failing: %d files left (%d torn tiles)", c->name, k,
                after - before, torn);
        require(k < 100000, "%s: no end to its allocations", c->name);
    }
    ck_assert_msg(calls > 0, "%s: allocates nothing (the test tests nothing)", c->name);
}

/* ------------------------------------------------------------ inputs */

static void mesh_grid(fx *f)
{
    strata_mesh *g;
    ck_assert_ok(strata_shape_grid(f->ctx, 6, 5, 0.5f, &g));
    /* heights through the result: a bumpy grid */
    strata_mesh_view v;
    strata_mesh_get_view(g, &v);
    float *xyz = malloc(sizeof(float) * 3 * v.nverts);
    uint32_t *tri = malloc(sizeof(uint32_t) * 3 * v.ntris);
    ck_assert(xyz && tri);
    for (uint32_t i = 0; i < v.nverts; i++) {
        xyz[3 * i] = v.x[i];
        xyz[3 * i + 1] = sinf(3 * v.x[i]) * cosf(2 * v.z[i]);
        xyz[3 * i + 2] = v.z[i];
    }
    for (uint32_t t = 0; t < v.ntris; t++) {
        tri[3 * t] = v.a[t];
        tri[3 * t + 1] = v.b[t];
        tri[3 * t + 2] = v.c[t];
    }
    ck_assert_ok(strata_mesh_create(f->ctx, xyz, v.nverts, tri, v.ntris, &f->mesh));
    strata_mesh_destroy(g);
    free(xyz);
    free(tri);
}

static void sliced(fx *f)
{
    mesh_grid(f);
    const float levels[] = {-0.5f, 0.0f, 0.5f};
    strata_slice_options o = slice_options(levels, 3, STRATA_WALLS_UPPER, 1, 0);
    ck_assert_ok(strata_slice(f->ctx, f->mesh, &o, &f->res));
}

static const float loop_levels[] = {-0.5f, 0.0f, 0.5f};

static void sliced_plain(fx *f)
{
    mesh_grid(f);
    strata_slice_options o = slice_options(loop_levels, 3, STRATA_WALLS_SEPARATE, 0, 0);
    ck_assert_ok(strata_slice(f->ctx, f->mesh, &o, &f->res));
}

static void looped(fx *f)
{
    mesh_grid(f);
    ck_assert_ok(strata_loops_from_mesh(f->ctx, f->mesh, loop_levels, 3, &f->loops));
}

/* sliced without normals (a solid needs shared vertices), and its props */
static void sliced_upper(fx *f)
{
    mesh_grid(f);
    const float levels[] = {-0.5f, 0.0f, 0.5f};
    strata_slice_options o = slice_options(levels, 3, STRATA_WALLS_UPPER, 0, 0);
    ck_assert_ok(strata_slice(f->ctx, f->mesh, &o, &f->res));
}
static void with_props(fx *f)
{
    sliced_upper(f);
    strata_props_options o;
    strata_props_defaults(&o);
    o.density = 5;
    ck_assert_ok(strata_props_scatter(f->ctx, f->res, &o, &f->props));
}

static const char pgm[] = "P5 4 3 255\n\x00\x0a\x14\x1e\x28\x32\x3c\x46\x50\x5a\x64\x6e";

static void heightmap(fx *f)
{
    ck_assert_ok(strata_heightmap_decode(f->ctx, pgm, sizeof pgm - 1, &f->hm));
}

static void pgm_file(fx *f)
{
    snprintf(f->path, sizeof f->path, "%s/in.pgm", f->dir);
    FILE *o = fopen(f->path, "w");
    ck_assert_ptr_nonnull(o);
    ck_assert_int_eq(fwrite(pgm, 1, sizeof pgm - 1, o), sizeof pgm - 1);
    ck_assert_int_eq(fclose(o), 0);
}

static void world_options(strata_world_options *o, int terrain)
{
    strata_world_defaults(o);
    o->terraces = 4;
    if (terrain) {
        o->kind = STRATA_WORLD_TERRAIN;
        o->cells_x = 12;
        o->cells_z = 9;
        o->tile_cells = 5;
    } else {
        o->level = 2;
        o->chunk_level = 1;
    }
}

static void planet(fx *f)
{
    strata_world_options o;
    world_options(&o, 0);
    ck_assert_ok(strata_world_create(f->ctx, &o, &f->world));
}

static void planet_dir(fx *f)
{
    planet(f);
    ck_assert_ok(strata_world_dir_create(f->ctx, f->world, f->path, STRATA_FORMAT_GLB, &f->wdir));
}

static void planet_tile(fx *f)
{
    planet_dir(f);
    ck_assert_ok(strata_result_create(f->ctx, &f->res));
    ck_assert_ok(strata_world_make_chunk(f->ctx, f->world, 3, f->res));
    ck_assert_ok(strata_world_dir_write_tile(f->ctx, f->wdir, f->world, 3, f->res, NULL, &f->rec));
}

/* A directory and chunk 7 made, not written. */
static void planet_chunk(fx *f)
{
    planet_dir(f);
    ck_assert_ok(strata_result_create(f->ctx, &f->res));
    ck_assert_ok(strata_world_make_chunk(f->ctx, f->world, 7, f->res));
}

/* ------------------------------------------------------------ calls */

static strata_status c_polygon(fx *f) { return strata_shape_polygon(f->ctx, 7, 1.0f, &f->out_mesh); }
static strata_status c_grid(fx *f) { return strata_shape_grid(f->ctx, 4, 3, 1.0f, &f->out_mesh); }
static strata_status c_icosphere(fx *f)
{
    return strata_shape_icosphere(f->ctx, 2, 1.0f, &f->out_mesh);
}
static strata_status c_mesh_create(fx *f)
{
    const float xyz[] = {0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1};
    const uint32_t tri[] = {0, 2, 1, 1, 2, 3};
    return strata_mesh_create(f->ctx, xyz, 4, tri, 2, &f->out_mesh);
}
static strata_status c_clone(fx *f) { return strata_mesh_clone(f->ctx, f->mesh, &f->out_mesh); }
static strata_status c_subdivide(fx *f)
{
    return strata_mesh_subdivide(f->ctx, f->mesh, 2, 0, &f->out_mesh);
}
static void icosphere(fx *f) { ck_assert_ok(strata_shape_icosphere(f->ctx, 0, 1.0f, &f->mesh)); }
static strata_status c_subdivide_radial(fx *f)
{
    return strata_mesh_subdivide(f->ctx, f->mesh, 2, STRATA_SUBDIVIDE_PROJECT, &f->out_mesh);
}
static strata_status c_curve(fx *f)
{
    const float x[] = {0, 0.3f, 1}, y[] = {0, 0.6f, 1};
    return strata_curve_create(f->ctx, STRATA_CURVE_MONOTONE, x, y, 3, &f->curve);
}
static strata_status c_heightmap_decode(fx *f)
{
    return strata_heightmap_decode(f->ctx, pgm, sizeof pgm - 1, &f->out_hm);
}
static strata_status c_heightmap_load(fx *f)
{
    return strata_heightmap_load(f->ctx, f->path, &f->out_hm);
}
static strata_status c_from_heightmap(fx *f)
{
    return strata_mesh_from_heightmap(f->ctx, f->hm, 1.0f, 0.1f, &f->out_mesh);
}
static void opened(fx *f)
{
    pgm_file(f);
    ck_assert_ok(strata_heightmap_open(f->ctx, f->path, &f->hm));
}
static strata_status c_heightmap_open(fx *f)
{
    return strata_heightmap_open(f->ctx, f->path, &f->out_hm);
}
static strata_status c_world_opened(fx *f)
{
    strata_world_options o;
    strata_world_defaults(&o);
    o.kind = STRATA_WORLD_TERRAIN;
    o.heightmap = f->hm;
    o.patch_cells = 5; /* a template read window by window */
    o.tile_cells = 4;
    o.terraces = 3;
    /* the range pass makes every tile's heights */
    return strata_world_create(f->ctx, &o, &f->out_world);
}
static strata_status c_from_template(fx *f)
{
    return strata_mesh_from_template(f->ctx, f->hm, 3, 1.0f, 0.1f, &f->out_mesh);
}

static const char ply_ascii[] = "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\n"
                                "property float y\nproperty float z\nelement face 2\n"
                                "property list uchar int vertex_indices\nend_header\n"
                                "0 0 0\n1 0 0\n0 0 1\n1 1 1\n3 0 2 1\n3 1 2 3\n";
static const char obj_text[] = "v 0 0 0\nv 1 0 0\nv 0 0 1\nv 1 1 1\nf 1 3 2\nf 2 3 4\n";

static strata_status c_import_ply(fx *f)
{
    strata_import_options o;
    strata_import_defaults(&o);
    o.weld = 1;
    return strata_mesh_decode(f->ctx, ply_ascii, sizeof ply_ascii - 1, &o, NULL, &f->out_mesh);
}
static strata_status c_import_obj(fx *f)
{
    return strata_mesh_decode(f->ctx, obj_text, sizeof obj_text - 1, NULL, NULL, &f->out_mesh);
}
static void ply_binary(fx *f)
{
    /* a binary PLY of the sliced grid, as the writer makes it */
    sliced(f);
    snprintf(f->path, sizeof f->path, "%s/in.ply", f->dir);
    ck_assert_ok(write_as(f->ctx, f->res, f->path, STRATA_FORMAT_PLY));
}
static strata_status c_import_load(fx *f)
{
    strata_import_options o;
    strata_import_defaults(&o);
    o.weld = 1;
    return strata_mesh_load(f->ctx, f->path, &o, NULL, &f->out_mesh);
}

static strata_status c_slice(fx *f)
{
    const float levels[] = {-0.5f, 0.0f, 0.5f};
    strata_slice_options o = slice_options(levels, 3, STRATA_WALLS_LOWER, 1, 1);
    return strata_slice(f->ctx, f->mesh, &o, &f->out_res);
}
static strata_status c_from_mesh(fx *f)
{
    return strata_result_from_mesh(f->ctx, f->mesh, 1, &f->out_res);
}

static strata_status c_loops_from_result(fx *f)
{
    return strata_loops_from_result(f->ctx, f->res, &f->out_loops);
}
static strata_status c_loops_from_mesh(fx *f)
{
    return strata_loops_from_mesh(f->ctx, f->mesh, loop_levels, 3, &f->out_loops);
}
static strata_status c_loops_from_heightmap(fx *f)
{
    const float levels[] = {0.0f, 0.02f, 0.05f, 0.08f};
    return strata_loops_from_heightmap(f->ctx, f->hm, 1.0f, 0.1f, levels, 4, &f->out_loops);
}
static strata_status c_loops_write_heightmap(fx *f)
{
    const float levels[] = {0.0f, 0.02f, 0.05f, 0.08f};
    char out[4096];
    snprintf(out, sizeof out, "%s/lines.geojson", f->dir);
    return strata_loops_write_heightmap(f->ctx, f->hm, 1.0f, 0.1f, levels, 4, out, NULL, NULL);
}
/* The loops of mesh_grid (6 x 5 cells of 0.5 about the origin). */
static strata_status loops_write_in(fx *f, const char *name, int polygons)
{
    snprintf(f->path, sizeof f->path, "%s/%s", f->dir, name);
    strata_loops_write_options o;
    strata_loops_write_defaults(&o);
    o.polygons = polygons;
    o.has_domain = 1;
    o.domain[0] = -1.5f;
    o.domain[1] = -1.25f;
    o.domain[2] = 1.5f;
    o.domain[3] = 1.25f;
    o.corner_height = sinf(3 * -1.5f) * cosf(2 * -1.25f);
    return strata_loops_write(f->ctx, f->loops, f->path, &o);
}
static strata_status c_loops_lines(fx *f) { return loops_write_in(f, "out.geojson", 0); }
static strata_status c_loops_polygons(fx *f) { return loops_write_in(f, "out.geojson", 1); }
static strata_status c_loops_svg(fx *f) { return loops_write_in(f, "out.svg", 0); }
static strata_status c_loops_obj(fx *f) { return loops_write_in(f, "out.obj", 0); }

static strata_status c_displace_flat(fx *f)
{
    strata_fbm fbm;
    strata_fbm_defaults(&fbm);
    return strata_displace_flat(f->ctx, f->mesh, &fbm, NULL);
}
static strata_status c_displace_radial(fx *f)
{
    strata_fbm fbm;
    strata_fbm_defaults(&fbm);
    fbm.amplitude = 0.1f;
    return strata_displace_radial(f->ctx, f->mesh, &fbm, NULL);
}
static strata_status c_result_create(fx *f) { return strata_result_create(f->ctx, &f->out_res); }
static strata_status c_solidify(fx *f) { return strata_result_solidify(f->ctx, f->res, 0.5f, NULL); }
static strata_status c_simplify(fx *f)
{
    return strata_result_simplify_roofs(f->ctx, f->res, 1e-4, NULL);
}
static strata_status c_props(fx *f)
{
    strata_props_options o;
    strata_props_defaults(&o);
    o.density = 5;
    return strata_props_scatter(f->ctx, f->res, &o, &f->out_props);
}
static strata_status c_props_csv(fx *f)
{
    snprintf(f->path, sizeof f->path, "%s/props.csv", f->dir);
    return strata_props_write_csv(f->ctx, f->props, f->path);
}
static strata_status c_write_glb_props(fx *f)
{
    snprintf(f->path, sizeof f->path, "%s/props.glb", f->dir);
    strata_write_options o;
    strata_write_defaults(&o);
    o.props = f->props;
    return strata_result_write(f->ctx, f->res, f->path, &o);
}
static strata_status c_optimize(fx *f)
{
    strata_optimize_stats stats;
    return strata_result_optimize(f->ctx, f->res, &stats);
}

static strata_status write_in(fx *f, strata_format format, const char *name)
{
    snprintf(f->path, sizeof f->path, "%s/%s", f->dir, name);
    return write_as(f->ctx, f->res, f->path, format);
}
static strata_status c_write_ply(fx *f) { return write_in(f, STRATA_FORMAT_PLY, "out.ply"); }
static strata_status c_write_obj(fx *f) { return write_in(f, STRATA_FORMAT_OBJ, "out.obj"); }
static strata_status c_write_glb(fx *f) { return write_in(f, STRATA_FORMAT_GLB, "out.glb"); }
static strata_status c_glb_size(fx *f)
{
    uint64_t size;
    return strata_result_glb_size(f->ctx, f->res, &size);
}

static strata_status c_preview_render(fx *f)
{
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 32;
    uint8_t *rgba = malloc(32 * 32 * 4);
    ck_assert_ptr_nonnull(rgba);
    const strata_status st = strata_preview_render(f->ctx, f->res, &o, rgba);
    free(rgba);
    return st;
}
static strata_status c_preview_png(fx *f)
{
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 32;
    snprintf(f->path, sizeof f->path, "%s/out.png", f->dir);
    return strata_preview_write_png(f->ctx, f->res, &o, f->path);
}

/* A canvas made, drawn into and written; destroyed whatever fails. */
static strata_status c_canvas(fx *f)
{
    strata_preview_options o;
    strata_preview_defaults(&o);
    o.size = 32;
    strata_result_view v;
    strata_result_get_view(f->res, &v);
    strata_preview_frame fr = {{0, 0, 0}, 10, {-5, -5, -5}, {5, 5, 5}};
    strata_preview_canvas *c;
    strata_status st = strata_preview_canvas_create(f->ctx, &o, v.geometry, &fr, &c);
    if (st != STRATA_OK)
        return st;
    st = strata_preview_canvas_draw(f->ctx, c, f->res);
    snprintf(f->path, sizeof f->path, "%s/canvas.png", f->dir);
    if (st == STRATA_OK)
        st = strata_preview_canvas_write_png(f->ctx, c, f->path);
    strata_preview_canvas_destroy(c);
    return st;
}
static strata_status c_write_glb_compressed(fx *f)
{
    strata_write_options o;
    strata_write_defaults(&o);
    o.compress = 1;
    snprintf(f->path, sizeof f->path, "%s/out.glb", f->dir);
    return strata_result_write(f->ctx, f->res, f->path, &o);
}

static strata_status c_world_planet(fx *f)
{
    strata_world_options o;
    world_options(&o, 0);
    return strata_world_create(f->ctx, &o, &f->out_world);
}
static strata_status c_world_terrain(fx *f)
{
    strata_world_options o;
    world_options(&o, 1);
    strata_fbm fbm;
    strata_fbm_defaults(&fbm);
    fbm.amplitude = 0.5f;
    o.noise = &fbm;
    return strata_world_create(f->ctx, &o, &f->out_world);
}
static strata_status c_make_chunk(fx *f)
{
    strata_status st = strata_result_create(f->ctx, &f->out_res);
    if (st == STRATA_OK && (st = strata_world_make_chunk(f->ctx, f->world, 5, f->out_res)) !=
                               STRATA_OK) {
        /* left empty, still the caller's */
        strata_result_view v;
        strata_result_get_view(f->out_res, &v);
        ck_assert_int_eq(v.nindices, 0);
        strata_result_destroy(f->out_res);
        f->out_res = NULL;
    }
    return st;
}
static strata_status c_dir_create(fx *f)
{
    return strata_world_dir_create(f->ctx, f->world, f->path, STRATA_FORMAT_PLY, &f->out_wdir);
}
static strata_status c_dir_open(fx *f) { return strata_world_dir_open(f->ctx, f->path, &f->out_wdir); }
static strata_status c_dir_reopen(fx *f)
{
    /* the manifest is there: read and compared */
    return strata_world_dir_create(f->ctx, f->world, f->path, STRATA_FORMAT_GLB, &f->out_wdir);
}
static strata_status c_write_tile(fx *f)
{
    return strata_world_dir_write_tile(f->ctx, f->wdir, f->world, 7, f->res, NULL, &f->rec);
}
static strata_status c_read_tile(fx *f)
{
    strata_tile_record rec;
    return strata_world_dir_read_tile(f->ctx, f->wdir, 3, &rec);
}
static strata_status c_tileset(fx *f)
{
    return strata_world_dir_write_tileset(f->ctx, f->wdir, &f->rec, 1);
}
static strata_status c_world_run(fx *f)
{
    strata_world_run_options o;
    strata_world_run_defaults(&o);
    o.dir = f->wdir;
    const uint64_t ids[] = {0, 1, 2, 9, 30};
    o.ids = ids;
    o.nids = 5;
    strata_world_run_stats stats;
    return strata_world_run(f->ctx, f->world, &o, &stats);
}

static const fault_case cases[] = {
    {"strata_shape_polygon", NULL, c_polygon, 0},
    {"strata_shape_grid", NULL, c_grid, 0},
    {"strata_shape_icosphere", NULL, c_icosphere, 0},
    {"strata_mesh_create", NULL, c_mesh_create, 0},
    {"strata_mesh_clone", mesh_grid, c_clone, 0},
    {"strata_mesh_subdivide", mesh_grid, c_subdivide, 0},
    {"strata_mesh_subdivide (radial)", icosphere, c_subdivide_radial, 0},
    {"strata_curve_create", NULL, c_curve, 0},
    {"strata_heightmap_decode", NULL, c_heightmap_decode, 0},
    {"strata_heightmap_load", pgm_file, c_heightmap_load, 0},
    {"strata_heightmap_open", pgm_file, c_heightmap_open, 0},
    {"strata_world_create (opened template)", opened, c_world_opened, 0},
    {"strata_mesh_from_heightmap", heightmap, c_from_heightmap, 0},
    {"strata_mesh_from_heightmap (opened)", opened, c_from_heightmap, 0},
    {"strata_mesh_from_template", heightmap, c_from_template, 0},
    {"strata_mesh_decode (PLY)", NULL, c_import_ply, 0},
    {"strata_mesh_decode (OBJ)", NULL, c_import_obj, 0},
    {"strata_mesh_load (binary PLY)", ply_binary, c_import_load, 0},
    {"strata_slice", mesh_grid, c_slice, 0},
    {"strata_result_from_mesh", mesh_grid, c_from_mesh, 0},
    {"strata_result_write (PLY)", sliced, c_write_ply, 0},
    {"strata_result_write (OBJ)", sliced, c_write_obj, 0},
    {"strata_result_write (GLB)", sliced, c_write_glb, 0},
    {"strata_result_glb_size", sliced, c_glb_size, 0},
    {"strata_preview_render", sliced, c_preview_render, 0},
    {"strata_preview_write_png", sliced, c_preview_png, 0},
    {"strata_preview_canvas_*", sliced, c_canvas, 0},
    {"strata_world_create (planet)", NULL, c_world_planet, 0},
    {"strata_world_create (terrain, noise)", NULL, c_world_terrain, 0},
    {"strata_world_make_chunk", planet, c_make_chunk, 0},
    {"strata_world_dir_create", planet, c_dir_create, 0},
    {"strata_world_dir_create (existing)", planet_dir, c_dir_reopen, 0},
    {"strata_world_dir_open", planet_dir, c_dir_open, 0},
    {"strata_world_dir_write_tile", planet_chunk, c_write_tile, 0},
    {"strata_world_dir_read_tile", planet_tile, c_read_tile, 0},
    {"strata_world_dir_write_tileset", planet_tile, c_tileset, 0},
    {"strata_world_run", planet_dir, c_world_run, 1},
    {"strata_displace_flat", mesh_grid, c_displace_flat, 0},
    {"strata_displace_radial", icosphere, c_displace_radial, 0},
    {"strata_result_create", NULL, c_result_create, 0},
    {"strata_loops_from_result", sliced_plain, c_loops_from_result, 0},
    {"strata_loops_from_mesh", mesh_grid, c_loops_from_mesh, 0},
    {"strata_loops_from_heightmap", heightmap, c_loops_from_heightmap, 0},
    {"strata_loops_from_heightmap (opened)", opened, c_loops_from_heightmap, 0},
    {"strata_loops_write_heightmap", heightmap, c_loops_write_heightmap, 0},
    {"strata_loops_write_heightmap (opened)", opened, c_loops_write_heightmap, 0},
    {"strata_loops_write (GeoJSON lines)", looped, c_loops_lines, 0},
    {"strata_loops_write (GeoJSON polygons)", looped, c_loops_polygons, 0},
    {"strata_loops_write (SVG)", looped, c_loops_svg, 0},
    {"strata_loops_write (OBJ)", looped, c_loops_obj, 0},
    {"strata_result_solidify", sliced_upper, c_solidify, 0},
    {"strata_result_simplify_roofs", sliced_upper, c_simplify, 0},
    {"strata_props_scatter", sliced_upper, c_props, 0},
    {"strata_props_write_csv", with_props, c_props_csv, 0},
    {"strata_result_write (GLB with props)", with_props, c_write_glb_props, 0},
    /* the last two: only with meshoptimizer */
    {"strata_result_write (GLB, compressed)", sliced, c_write_glb_compressed, 0},
    {"strata_result_optimize", sliced, c_optimize, 0},
};

START_TEST(test_every_allocation)
{
    every_failure(&cases[_i]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("faults");
    TCase *tc = tcase_create("Allocation");
    tcase_set_timeout(tc, 600);
    const int n = (int)(sizeof cases / sizeof cases[0]);
    tcase_add_loop_test(tc, test_every_allocation, 0, strata_optimize_supported() ? n : n - 2);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
