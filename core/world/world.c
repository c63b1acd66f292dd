/* Worlds (docs/DESIGN.md, "Worlds: chunks, seams, shards"): planets and
 * terrains made chunk by chunk.
 *
 * A chunk is made in four steps, each a function of the world and the
 * chunk id alone: its lattice with the context ring (core/lattice_*.c),
 * the noise (strata_displace_*), the user's height edits, and the slicer
 * (which reads the ring and writes only the chunk).  The working memory of
 * the first two steps stays with the context, sized for the largest chunk,
 * so that a thread making chunk after chunk allocates once. */
#define _POSIX_C_SOURCE 200809L

#include "edit/props.h"
#include "loops/loops.h"
#include "pipeline/pipeline.h"
#include "world/world.h"
#include "base/curve.h"
#include "mesh/heightmap.h"
#include "base/topology.h"

#include <stdio.h>
#include <stdlib.h>

#include <errno.h>
#include <string.h>
#include <time.h>

#ifdef _OPENMP
#include <omp.h>
#else
typedef int omp_lock_t;
static inline void omp_init_lock(omp_lock_t *l) { (void)l; }
static inline void omp_destroy_lock(omp_lock_t *l) { (void)l; }
static inline void omp_set_lock(omp_lock_t *l) { (void)l; }
static inline void omp_unset_lock(omp_lock_t *l) { (void)l; }
static inline int omp_get_thread_num(void) { return 0; }
#endif

/* The working memory a context keeps for worlds. */
typedef struct strata_world_scratch {
    uint64_t serial;
    float *heights; /* before the edits, nverts of them */
    strata_mesh *mesh;
    strata_mesh *water; /* planets with water: a chunk's part of the sphere */
    strata_ring_scratch ring;
    strata_tile_scratch tile;
    strata_skirt_scratch skirt;
    strata_result *halo; /* with ambient occlusion: a neighbour's slice */
    strata_result *wide; /* with a shoreline: the chunk and its ring sliced */
    strata_result *beside; /* with a solid: a neighbour's slice */
} strata_world_scratch;

static void world_scratch_free(strata_ctx *ctx)
{
    strata_world_scratch *s = ctx->world_scratch;
    if (!s)
        return;
    strata_mesh_destroy(s->mesh);
    strata_mesh_destroy(s->water);
    strata__free(&ctx->alloc, s->heights);
    strata__ring_scratch_free(&s->ring);
    strata__tile_scratch_free(&s->tile);
    strata__skirt_scratch_free(&s->skirt);
    strata_result_destroy(s->halo);
    strata_result_destroy(s->wide);
    strata_result_destroy(s->beside);
    strata__free(&ctx->alloc, s);
    ctx->world_scratch = NULL;
}

/* ctx's scratch, sized for w. */
static strata_status world_scratch(strata_ctx *ctx, const strata_world *w,
                                   strata_world_scratch **out)
{
    strata_world_scratch *s = ctx->world_scratch;
    if (s && s->serial == w->serial) {
        *out = s;
        return STRATA_OK;
    }
    world_scratch_free(ctx);
    if (!(s = strata__alloc(&ctx->alloc, sizeof *s)))
        return STRATA_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    /* ctx's own allocator for everything the scratch holds: worlds and
     * the contexts that make their chunks may go in any order */
    s->skirt.al = s->ring.al = s->tile.ring.al = &ctx->alloc;
    ctx->world_scratch = s;
    ctx->world_scratch_free = world_scratch_free;
    strata_status st = w->kind == STRATA_WORLD_PLANET
                           ? strata__planet_chunk_alloc(&w->planet, &s->mesh)
                           : strata__terrain_tile_alloc(&w->terrain, &s->mesh);
    if (st == STRATA_OK &&
        !(s->heights = strata__alloc_array(&ctx->alloc, s->mesh->nverts, sizeof(float))))
        st = STRATA_ERR_NOMEM;
    if (st == STRATA_OK && w->has_water_lattice) { /* room for the largest part */
        const strata_planet_lattice *most = &w->water;
        for (uint32_t k = 0; w->lod_water && k < w->layout.leaf_depth; k++)
            if (w->lod_water[k].ntris > most->ntris)
                most = &w->lod_water[k];
        st = strata__planet_chunk_alloc(most, &s->water);
    }
    if (st == STRATA_OK && (w->ao_radius > 0 || (w->stages.props && w->props.wall_foot > 0)))
        st = strata_result_create(ctx, &s->halo);
    if (st == STRATA_OK && w->stages.shoreline > 0)
        st = strata_result_create(ctx, &s->wide);
    if (st == STRATA_OK && w->stages.solid)
        st = strata_result_create(ctx, &s->beside);
    if (st != STRATA_OK) {
        world_scratch_free(ctx);
        return st;
    }
    s->serial = w->serial;
    *out = s;
    return STRATA_OK;
}

void strata_world_defaults(strata_world_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->kind = STRATA_WORLD_PLANET;
    o->level = 6;
    o->chunk_level = 2;
    o->radius = 1.0f;
    o->cell_size = 1.0f;
    o->height_scale = 1.0f;
    o->tile_cells = 256;
    o->terraces = 16;
    o->walls = STRATA_WALLS_UPPER;
    o->skirts = 1;
    o->place_scale = 1.0;
    o->solid_depth = NAN;
}

/* ------------------------------------------------------------ fingerprint */

typedef struct {
    uint64_t h;
} fnv;

static void fnv_bytes(fnv *f, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        f->h ^= b[i];
        f->h *= 0x100000001B3ull;
    }
}

static void fnv_u64(fnv *f, uint64_t v)
{
    fnv_bytes(f, &v, sizeof v);
}

static void fnv_float(fnv *f, float v)
{
    uint32_t b;
    memcpy(&b, &v, 4);
    fnv_u64(f, b);
}

/* The samples, 8 bytes a step (a heightmap read from a file may be tens
 * of GB), strip by strip for an opened one: the same value either way. */
static strata_status fnv_samples(fnv *f, const strata_heightmap *hm)
{
    const uint32_t hw = strata_heightmap_width(hm), hh = strata_heightmap_height(hm);
    const float *all = strata_heightmap_data(hm);
    const uint32_t rows = all ? hh : strata__heightmap_strip_rows(hm);
    float *strip = NULL;
    if (!all && !(strip = strata__alloc_array(&hm->alloc, (size_t)rows * hw, sizeof(float))))
        return STRATA_ERR_NOMEM;
    strata_status st = STRATA_OK;
    uint64_t carry = 0;
    size_t have = 0; /* floats in carry: an odd row count leaves one */
    for (uint32_t y = 0; y < hh; y += rows) {
        const uint32_t n = hh - y < rows ? hh - y : rows;
        const float *p = all ? all : strip;
        if (!all && (st = strata_heightmap_read(hm, 0, y, hw, n, strip)) != STRATA_OK)
            break;
        for (size_t i = 0; i < (size_t)n * hw; i++) {
            uint32_t b;
            memcpy(&b, p + i, 4);
            carry |= (uint64_t)b << (32 * have);
            if (++have == 2) {
                f->h ^= carry;
                f->h *= 0x100000001B3ull;
                carry = 0;
                have = 0;
            }
        }
    }
    if (have)
        fnv_u64(f, carry);
    strata__free(&hm->alloc, strip);
    return st;
}

static strata_status fingerprint(strata_world *w, const strata_world_options *o)
{
    fnv f = {0xCBF29CE484222325ull};
    fnv_bytes(&f, "strata world 2", 14);
    fnv_u64(&f, (uint64_t)w->kind);
    if (w->kind == STRATA_WORLD_PLANET) {
        fnv_u64(&f, (uint64_t)o->level);
        fnv_u64(&f, (uint64_t)o->chunk_level);
        fnv_float(&f, o->radius);
    } else {
        const strata_terrain_source *src = &w->terrain.src;
        fnv_u64(&f, src->nx);
        fnv_u64(&f, src->nz);
        fnv_u64(&f, src->patch);
        fnv_float(&f, src->scale);
        fnv_float(&f, w->terrain.cell);
        fnv_u64(&f, w->terrain.tile);
        if (src->hm) {
            fnv_u64(&f, strata_heightmap_width(src->hm));
            fnv_u64(&f, strata_heightmap_height(src->hm));
            const strata_status st = fnv_samples(&f, src->hm);
            if (st != STRATA_OK)
                return st;
        }
    }
    fnv_u64(&f, (uint64_t)w->has_noise);
    if (w->has_noise) {
        fnv_u64(&f, (uint64_t)w->fbm.kind);
        fnv_u64(&f, w->fbm.seed);
        fnv_u64(&f, (uint64_t)w->fbm.octaves);
        fnv_float(&f, w->fbm.frequency);
        fnv_float(&f, w->fbm.lacunarity);
        fnv_float(&f, w->fbm.gain);
        fnv_float(&f, w->fbm.amplitude);
    }
    /* A curve is fingerprinted by its values on a fine grid (it has no
     * other public view); the planes come in as they are. */
    fnv_u64(&f, w->curve != NULL && !strata__curve_is_identity(w->curve));
    if (w->curve && !strata__curve_is_identity(w->curve))
        for (int i = 0; i <= 4096; i++)
            fnv_float(&f, strata_curve_eval(w->curve, (float)i / 4096.0f));
    fnv_u64(&f, w->nlevels);
    for (uint32_t k = 0; k < w->nlevels; k++)
        fnv_float(&f, w->levels[k]);
    fnv_u64(&f, (uint64_t)w->walls);
    fnv_u64(&f, (uint64_t)(w->normals != 0));
    /* Skirts change every tile's bytes; levels of detail without them
     * add tiles but leave the leaves' bytes (and this) as they are. */
    if (w->skirts)
        fnv_bytes(&f, "lod skirts", 10);
    if (w->simplify > 0) { /* changes every tile's bytes */
        uint64_t bits;
        memcpy(&bits, &w->simplify, sizeof bits);
        fnv_bytes(&f, "simplified roofs", 16);
        fnv_u64(&f, bits);
    }
    if (w->stages.water) {
        fnv_bytes(&f, "water", 5);
        fnv_float(&f, w->stages.terraces.sea_level);
        if (w->has_water_lattice)
            fnv_u64(&f, (uint64_t)w->water.level);
    }
    if (w->loops)
        fnv_bytes(&f, "loops", 5);
    if (w->stages.shoreline > 0) { /* changes every tile with a coast */
        fnv_bytes(&f, "shoreline", 9);
        fnv_float(&f, w->stages.shoreline);
    }
    if (w->stages.solid) { /* changes the border tiles' bytes */
        fnv_bytes(&f, "solid", 5);
        fnv_float(&f, w->solid_base);
    }
    if (w->ao_radius > 0) { /* changes every tile's bytes */
        fnv_bytes(&f, "ambient occlusion", 17);
        fnv_float(&f, w->ao_radius);
    }
    if (w->stages.props) {
        const strata_props_options *p = &w->props;
        fnv_bytes(&f, "props", 5);
        fnv_bytes(&f, &p->density, sizeof p->density);
        fnv_bytes(&f, &p->noise_frequency, sizeof p->noise_frequency);
        fnv_u64(&f, p->seed);
        fnv_u64(&f, p->first_terrace);
        fnv_u64(&f, p->last_terrace);
        fnv_float(&f, p->min_scale);
        fnv_float(&f, p->max_scale);
        fnv_float(&f, p->rock_share);
        if (p->spacing > 0 || p->wall_foot > 0 || p->max_slope < 90 ||
            p->min_height > -INFINITY || p->max_height < INFINITY) {
            fnv_bytes(&f, &p->spacing, sizeof p->spacing);
            fnv_bytes(&f, &p->wall_foot, sizeof p->wall_foot);
            fnv_float(&f, p->min_height);
            fnv_float(&f, p->max_height);
            fnv_float(&f, p->max_slope);
        }
    }
    w->fingerprint = f.h;
    return STRATA_OK;
}

uint32_t strata_world_props_seed(uint32_t seed, uint64_t id)
{
    /* splitmix64 of the pair */
    uint64_t z = ((uint64_t)seed << 32 ^ id) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)(z ^ (z >> 31));
}

/* ------------------------------------------------------------ chunks */

/* A chunk's own positions and heights (noise included) into m: for the
 * range pass. */
static strata_status chunk_heights(strata_ctx *ctx, const strata_world *w, uint64_t id,
                                   strata_world_scratch *s)
{
    strata_status st = STRATA_OK;
    if (w->kind == STRATA_WORLD_PLANET)
        strata__planet_chunk_positions(&w->planet, id, s->mesh);
    else
        st = strata__terrain_tile_positions(&w->terrain, id, &s->tile, s->mesh);
    if (st == STRATA_OK && w->has_noise)
        st = w->kind == STRATA_WORLD_PLANET
                 ? strata_displace_radial(ctx, s->mesh, &w->fbm, w->curve)
                 : strata_displace_flat(ctx, s->mesh, &w->fbm, w->curve);
    return st;
}

/* Heights after the user's edits; the vertices whose height changed moved
 * to it (the others keep their bits).  before: room for the heights. */
static void apply_edits(const strata_world *w, strata_mesh *m, float *before)
{
    memcpy(before, m->h, (size_t)m->nverts * sizeof(float));
    w->edit(w->edit_user, m->x, m->y, m->z, m->h, m->nverts);
    strata__mesh_move_to_heights(m, before);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The loops of leaf chunk id's slice r (mesh m), as the pipeline's loops
 * stage makes them: linked from the walls, or with normals (each wall
 * its own vertices) from m sliced again. */
static strata_status chunk_loops(strata_ctx *ctx, const strata_world *w, uint64_t id,
                                 const strata_mesh *m, const strata_result *r,
                                 strata_loops **loops)
{
    uint32_t k;
    uint64_t i;
    strata__world_locate(w, id, &k, &i);
    if (!w->loops || k != w->layout.leaf_depth)
        return STRATA_OK;
    return w->normals ? strata_loops_from_mesh(ctx, m, w->levels, w->nlevels, loops)
                      : strata_loops_from_result(ctx, r, loops);
}

/* Chunk id's surface sliced into r, adding the seconds of its steps to
 * t[0..2] (lattice, noise and edits, slice) when t is not NULL. */
static strata_status slice_chunk(strata_ctx *ctx, const strata_world *w, uint64_t id,
                                 strata_world_scratch *s, strata_result *r, double *t)
{
    const double t0 = t ? now() : 0;
    strata_status st = strata__world_lattice(w, id, &s->ring, &s->tile, s->mesh);
    const double t1 = t ? now() : 0;
    if (st == STRATA_OK && w->has_noise)
        st = w->kind == STRATA_WORLD_PLANET
                 ? strata_displace_radial(ctx, s->mesh, &w->fbm, w->curve)
                 : strata_displace_flat(ctx, s->mesh, &w->fbm, w->curve);
    if (st == STRATA_OK && w->edit)
        apply_edits(w, s->mesh, s->heights);
    const double t2 = t ? now() : 0;
    if (st == STRATA_OK) {
        strata_slice_options so;
        strata_slice_defaults(&so);
        so.levels = w->levels;
        so.nlevels = w->nlevels;
        so.walls = w->walls;
        so.normals = w->normals;
        st = strata_slice_into(ctx, s->mesh, &so, r);
    }
    if (t) {
        t[0] += t1 - t0;
        t[1] += t2 - t1;
        t[2] += now() - t2;
    }
    return st;
}

strata_status strata__world_slice_chunk(strata_ctx *ctx, const strata_world *w, uint64_t id,
                                        strata_result *r)
{
    strata_world_scratch *s;
    strata_status st = world_scratch(ctx, w, &s);
    return st == STRATA_OK ? slice_chunk(ctx, w, id, s, r, NULL) : st;
}

/* Whether l has an open polyline at the plane at `level` (a coast that
 * leaves the tile). */
static int open_coast(const strata_loops *l, float level)
{
    for (uint32_t k = 0; k < l->nplanes; k++)
        if (l->levels[k] == level)
            for (uint64_t i = l->plane_first[k]; i < l->plane_first[k + 1]; i++)
                if (!l->loops[i].closed && l->loops[i].count >= 2)
                    return 1;
    return 0;
}

/* The coasts of chunk id's tile for its shoreline: its own loops (own,
 * when its loops were made already, else made here into *made), and the
 * loops of its mesh m sliced again with the context ring as its own (the
 * coasts a little past the tile's border, the same points as the whole
 * mesh's there: docs/DESIGN.md, "Worlds"), from s->wide, when a coast
 * leaves the tile. */
static strata_status chunk_coasts(strata_ctx *ctx, const strata_world *w, strata_world_scratch *s,
                                  const strata_result *r, const strata_loops *own,
                                  strata_loops **made, strata_loops **wide,
                                  strata_tile_coasts *c)
{
    uint32_t sea = 0; /* the sea's plane: the only loops read */
    while (sea < w->nlevels && w->levels[sea] != w->stages.terraces.sea_level)
        sea++;
    strata_status st = STRATA_OK;
    if (!own) {
        st = w->normals ? strata_loops_from_mesh(ctx, s->mesh, w->levels, w->nlevels, made)
                        : strata__loops_from_result_plane(ctx, r, sea, made);
        own = *made;
    }
    c->own = own;
    c->ext = NULL;
    memset(c->box, 0, sizeof c->box);
    if (w->kind == STRATA_WORLD_TERRAIN) { /* the whole grid's rectangle */
        const strata_terrain_source *src = &w->terrain.src;
        c->box[0] = strata__grid_coord(0, src->nx, w->terrain.cell);
        c->box[1] = strata__grid_coord(0, src->nz, w->terrain.cell);
        c->box[2] = strata__grid_coord(src->nx, src->nx, w->terrain.cell);
        c->box[3] = strata__grid_coord(src->nz, src->nz, w->terrain.cell);
    }
    if (st != STRATA_OK || !open_coast(own, w->stages.terraces.sea_level))
        return st; /* no coast leaves the tile: no wider slice */
    strata_mesh *m = s->mesh;
    const uint32_t gv = m->ghost_verts, ge = m->ghost_edges, gt = m->ghost_tris;
    m->ghost_verts = m->ghost_edges = m->ghost_tris = 0;
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = w->levels;
    so.nlevels = w->nlevels;
    so.walls = STRATA_WALLS_SEPARATE;
    if (st == STRATA_OK)
        st = strata_slice_into(ctx, m, &so, s->wide);
    m->ghost_verts = gv, m->ghost_edges = ge, m->ghost_tris = gt;
    if (st == STRATA_OK)
        st = strata__loops_from_result_plane(ctx, s->wide, sea, wide);
    c->ext = *wide;
    return st;
}

/* Where leaf tile id lies in w's rectangle, for its part of the solid
 * (t->ends not set). */
static void solid_place(const strata_world *w, uint64_t id, strata_solid_tile *t)
{
    const strata_terrain_lattice *tl = &w->terrain;
    uint32_t i0, j0, i1, j1;
    strata__terrain_tile_block(tl, id, &i0, &j0, &i1, &j1);
    const uint32_t nx = tl->src.nx, nz = tl->src.nz;
    *t = (strata_solid_tile){
        .base = w->solid_base,
        .world = {strata__grid_coord(0, nx, tl->cell), strata__grid_coord(nx, nx, tl->cell),
                  strata__grid_coord(0, nz, tl->cell), strata__grid_coord(nz, nz, tl->cell)},
        .tile = {strata__grid_coord(strata__terrain_grid_x(tl, i0), nx, tl->cell),
                 strata__grid_coord(strata__terrain_grid_x(tl, i1), nx, tl->cell),
                 strata__grid_coord(strata__terrain_grid_z(tl, j0), nz, tl->cell),
                 strata__grid_coord(strata__terrain_grid_z(tl, j1), nz, tl->cell)}};
}

/* The solid's place of leaf tile id, with the border points of the
 * tiles next to it along the world's border at its chain ends (each
 * such tile sliced again into s->beside, simplified as when it is made,
 * and its border found as its own part of the solid finds it): ends has
 * room for 32. */
static strata_status solid_tile(strata_ctx *ctx, const strata_world *w, uint64_t id,
                                strata_world_scratch *s, float (*ends)[3], strata_solid_tile *t)
{
    const strata_terrain_lattice *tl = &w->terrain;
    const uint32_t tx = (uint32_t)(id % tl->ntx), tz = (uint32_t)(id / tl->ntx);
    const int along_x = tz == 0 || tz + 1 == tl->ntz, along_z = tx == 0 || tx + 1 == tl->ntx;
    const int64_t nb[4][2] = {{along_x ? (int64_t)tx - 1 : -1, tz},
                              {along_x ? (int64_t)tx + 1 : -1, tz},
                              {tx, along_z ? (int64_t)tz - 1 : -1},
                              {tx, along_z ? (int64_t)tz + 1 : -1}};
    strata_pipeline_options simplify = w->stages;
    simplify.solid = 0;
    strata_pipeline_report rep;
    memset(&rep, 0, sizeof rep);
    uint32_t n = 0;
    strata_status st = STRATA_OK;
    for (int k = 0; k < 4 && st == STRATA_OK; k++) {
        if (nb[k][0] < 0 || nb[k][1] < 0 || nb[k][0] >= tl->ntx || nb[k][1] >= tl->ntz)
            continue;
        const uint64_t other = (uint64_t)nb[k][1] * tl->ntx + (uint64_t)nb[k][0];
        strata_solid_tile ot;
        solid_place(w, other, &ot);
        uint32_t got = 0;
        strata__result_clear(s->beside);
        st = slice_chunk(ctx, w, other, s, s->beside, NULL);
        if (st == STRATA_OK)
            st = strata__pipeline_stages(ctx, s->beside, &simplify, STRATA_STAGE_SIMPLIFY,
                                         STRATA_STAGE_SIMPLIFY, NULL, NULL, NULL, &rep);
        if (st == STRATA_OK)
            st = strata__result_solid_ends(ctx, s->beside, &ot, ends + n, &got);
        n += got;
    }
    solid_place(w, id, t);
    t->ends = (const float(*)[3])ends;
    t->nends = n;
    return st;
}

/* Chunk id's props on r: by area with the seed mixed with the id, or
 * spaced on the world's lattice with the world's seed (seamless), the
 * wall foot measured to the walls of the tiles around too. */
static strata_status chunk_props(strata_ctx *ctx, const strata_world *w, uint64_t id,
                                 strata_world_scratch *s, strata_result *r, strata_props **props)
{
    strata_props_options po = w->props;
    if (!(po.spacing > 0))
        po.seed = strata_world_props_seed(w->props.seed, id);
    float *segs = NULL;
    uint64_t nsegs = 0;
    strata_status st = STRATA_OK;
    if (po.wall_foot > 0)
        st = strata__world_props_walls(ctx, w, id, r, s->halo, &segs, &nsegs);
    if (st == STRATA_OK)
        st = strata__props_scatter_walls(ctx, r, &po, segs, nsegs, props);
    strata__free(&ctx->alloc, segs);
    return st;
}

/* strata_world_make_chunk, with its props and loops when asked (props,
 * loops not NULL), adding the seconds of its stages to t[0..2] (lattice,
 * noise and edits, slice and the stages after it) when t is not NULL. */
static strata_status make_chunk(strata_ctx *ctx, const strata_world *w, uint64_t id,
                                strata_result *r, strata_props **props, strata_loops **loops,
                                double *t)
{
    if (!ctx || !w || !r)
        return STRATA_ERR_INVALID_ARG;
    strata__result_clear(r);
    if (id >= strata_world_chunk_count(w))
        return STRATA_ERR_INVALID_ARG;
    strata_world_scratch *s;
    strata_status st = world_scratch(ctx, w, &s);
    if (st != STRATA_OK)
        return st;
    st = slice_chunk(ctx, w, id, s, r, t);
    const double t2 = t ? now() : 0;
    if (st == STRATA_OK && loops)
        st = chunk_loops(ctx, w, id, s->mesh, r, loops);
    strata_loops *own = NULL, *wide = NULL;
    strata_tile_coasts coasts = {0};
    if (st == STRATA_OK && w->stages.shoreline > 0) /* before the walls move */
        st = chunk_coasts(ctx, w, s, r, loops ? *loops : NULL, &own, &wide, &coasts);
    /* the pipeline's stages: simplify before the skirt (it wants the
     * slice as made), water and props after it (the skirt hangs from the
     * terraces' border, not the water's) */
    strata_pipeline_options stages = w->stages;
    stages.props = NULL;
    strata_pipeline_report rep;
    memset(&rep, 0, sizeof rep);
    strata_solid_tile tile;
    float ends[32][3];
    if (st == STRATA_OK && w->stages.solid)
        st = solid_tile(ctx, w, id, s, ends, &tile);
    if (st == STRATA_OK)
        st = strata__pipeline_stages(ctx, r, &stages, STRATA_STAGE_SIMPLIFY, STRATA_STAGE_SOLID,
                                     NULL, &tile, NULL, &rep);
    if (st == STRATA_OK && w->skirts) {
        uint32_t k;
        uint64_t i;
        strata__world_locate(w, id, &k, &i);
        if (w->lod_skirt[k] > 0)
            st = strata__skirt_add(w, id, r, w->lod_skirt[k], &s->skirt);
    }
    if (w->has_water_lattice) { /* the chunk's part of the water sphere */
        uint64_t i;
        const strata_planet_lattice *wl = strata__world_water(w, id, &i);
        strata__planet_chunk_positions(wl, i, s->water);
        memcpy(s->water->a, wl->a, wl->ntris * sizeof *wl->a);
        memcpy(s->water->b, wl->b, wl->ntris * sizeof *wl->b);
        memcpy(s->water->c, wl->c, wl->ntris * sizeof *wl->c);
        s->water->ntris = wl->ntris;
        stages.water_part = s->water;
    }
    if (st == STRATA_OK)
        st = strata__pipeline_stages(ctx, r, &stages, STRATA_STAGE_WATER, STRATA_STAGE_PROPS,
                                     &coasts, NULL, NULL, &rep);
    if (st == STRATA_OK && w->stages.props && props) /* the props stage, last of those */
        st = chunk_props(ctx, w, id, s, r, props);
    strata_loops_destroy(own);
    strata_loops_destroy(wide);
    if (st == STRATA_OK && w->ao_radius > 0) /* last: it reads the tile as written */
        st = strata__world_ao(ctx, w, id, r, s->halo);
    if (st != STRATA_OK) {
        strata__result_clear(r);
        if (loops) {
            strata_loops_destroy(*loops);
            *loops = NULL;
        }
    }
    if (t)
        t[2] += now() - t2;
    return st;
}

strata_status strata_world_make_chunk(strata_ctx *ctx, const strata_world *w, uint64_t id,
                                      strata_result *r)
{
    return make_chunk(ctx, w, id, r, NULL, NULL, NULL);
}

strata_status strata_world_make_chunk_props(strata_ctx *ctx, const strata_world *w, uint64_t id,
                                            strata_result *r, strata_props **props)
{
    if (!props)
        return STRATA_ERR_INVALID_ARG;
    *props = NULL;
    return make_chunk(ctx, w, id, r, props, NULL, NULL);
}

strata_status strata_world_make_chunk_loops(strata_ctx *ctx, const strata_world *w, uint64_t id,
                                            strata_result *r, strata_loops **loops)
{
    if (!loops)
        return STRATA_ERR_INVALID_ARG;
    *loops = NULL;
    return make_chunk(ctx, w, id, r, NULL, loops, NULL);
}

void strata_world_loops_frame(const strata_world *w, strata_loops_write_options *o)
{
    if (!o)
        return;
    strata_loops_write_defaults(o);
    if (!w || w->kind != STRATA_WORLD_TERRAIN || !w->terrain.src.hm || w->terrain.src.patch)
        return;
    /* as a whole mesh's: minus its first vertex's x, its last one's z */
    const strata_terrain_source *src = &w->terrain.src;
    o->origin[0] = -(double)strata__grid_coord(0, src->nx, w->terrain.cell);
    o->origin[1] = (double)strata__grid_coord(src->nz, src->nz, w->terrain.cell);
}

/* ------------------------------------------------------------ runs */

void strata_world_run_defaults(strata_world_run_options *o)
{
    if (o)
        memset(o, 0, sizeof *o);
}

/* One worker of a run, padded to its own cache lines. */
typedef struct {
    _Alignas(STRATA_ALIGN) strata_ctx *ctx;
    strata_result *r;
    strata_props *props; /* the chunk's, when the world has props */
    strata_loops *loops; /* the chunk's, when the world has loops */
    strata_world_run_stats st;
    double t[4];
    strata_status status;
} run_worker;

typedef struct {
    strata_ctx *ctx;
    const strata_world *w;
    const strata_world_run_options *o;
    _Atomic uint64_t cursor; /* next index into ids */
    _Atomic uint64_t handed, finished;
    _Atomic int stop;
    omp_lock_t lock; /* next() and done() */
    uint64_t failed;            /* the first chunk that failed, */
    strata_status failed_status; /* its status */
    int failed_errno;           /* and errno in the thread that met it */
} run_state;

/* The next chunk to make, UINT64_MAX when none is left. */
static uint64_t next_chunk(run_state *rs)
{
    if (atomic_load(&rs->stop))
        return UINT64_MAX;
    const strata_world_run_options *o = rs->o;
    if (o->ids) {
        const uint64_t i = atomic_fetch_add(&rs->cursor, 1);
        return i < o->nids ? o->ids[i] : UINT64_MAX;
    }
    omp_set_lock(&rs->lock);
    const uint64_t id = o->next(o->next_user);
    omp_unset_lock(&rs->lock);
    if (id != UINT64_MAX)
        atomic_fetch_add(&rs->handed, 1);
    return id;
}

static strata_status run_one(run_state *rs, run_worker *wk, uint64_t id)
{
    const strata_world_run_options *o = rs->o;
    strata_tile_record rec;
    if (id >= strata_world_chunk_count(rs->w))
        return STRATA_ERR_INVALID_ARG;
    if (o->resume) {
        /* a tile cut short or with bytes changed (STRATA_ERR_FORMAT) is
         * made again; one of another world or chunk is an error */
        const strata_status st = strata_world_dir_check_tile(wk->ctx, o->dir, id, &rec);
        if (st == STRATA_OK) {
            wk->st.skipped++;
            if (o->done) {
                omp_set_lock(&rs->lock);
                o->done(o->done_user, &rec, 1);
                omp_unset_lock(&rs->lock);
            }
            return STRATA_OK;
        }
        if (!(st == STRATA_ERR_IO && errno == ENOENT) && st != STRATA_ERR_FORMAT)
            return st;
    }
    strata_props_destroy(wk->props);
    strata_loops_destroy(wk->loops);
    wk->props = NULL;
    wk->loops = NULL;
    strata_status st = make_chunk(wk->ctx, rs->w, id, wk->r, &wk->props, &wk->loops, wk->t);
    if (st == STRATA_OK && o->preview)
        st = strata_preview_canvas_draw(wk->ctx, o->preview, wk->r);
    if (st != STRATA_OK)
        return st;
    const double t0 = now();
    st = strata__world_dir_write_tile(wk->ctx, o->dir, rs->w, id, wk->r, o->palette, wk->props,
                                      wk->loops, &rec);
    wk->t[3] += now() - t0;
    if (st != STRATA_OK)
        return st;
    wk->st.made++;
    wk->st.triangles += rec.triangles;
    wk->st.bytes += rec.bytes;
    if (o->done) {
        omp_set_lock(&rs->lock);
        o->done(o->done_user, &rec, 0);
        omp_unset_lock(&rs->lock);
    }
    return STRATA_OK;
}

strata_status strata_world_run(strata_ctx *ctx, const strata_world *w,
                               const strata_world_run_options *o, strata_world_run_stats *stats)
{
    strata_world_run_stats dummy;
    if (!stats)
        stats = &dummy;
    memset(stats, 0, sizeof *stats);
    stats->failed_chunk = UINT64_MAX;
    if (!ctx || !w || !o || !o->dir || (!o->ids && !o->next) || (o->ids && o->next))
        return STRATA_ERR_INVALID_ARG;
    strata__bind_threads(ctx);
    const int threads = ctx->threads;
    run_worker *wk = strata__alloc_array(&ctx->alloc, (size_t)threads, sizeof *wk);
    if (!wk)
        return STRATA_ERR_NOMEM;
    memset(wk, 0, (size_t)threads * sizeof *wk);
    strata_status st = STRATA_OK;
    for (int i = 0; i < threads && st == STRATA_OK; i++)
        if ((st = strata__ctx_worker(ctx, &wk[i].ctx)) == STRATA_OK)
            st = strata_result_create(wk[i].ctx, &wk[i].r);
    run_state rs = {.ctx = ctx, .w = w, .o = o, .failed = UINT64_MAX};
    omp_init_lock(&rs.lock);
    if (st == STRATA_OK)
        st = strata__progress(ctx, "chunks", 0.0);
    if (st == STRATA_OK) {
#pragma omp parallel num_threads(threads)
        {
            const int me = omp_get_thread_num();
            run_worker *self = &wk[me];
            uint64_t id;
            while ((id = next_chunk(&rs)) != UINT64_MAX) {
                self->status = run_one(&rs, self, id);
                if (self->status != STRATA_OK) {
                    const int err = errno;
                    omp_set_lock(&rs.lock);
                    if (rs.failed == UINT64_MAX) {
                        rs.failed = id;
                        rs.failed_status = self->status;
                        rs.failed_errno = err;
                    }
                    omp_unset_lock(&rs.lock);
                    atomic_store(&rs.stop, 1);
                    break;
                }
                const uint64_t done = atomic_fetch_add(&rs.finished, 1) + 1;
                if (me == 0) {
                    const uint64_t total = o->ids ? o->nids : atomic_load(&rs.handed);
                    const double frac = total ? (double)done / (double)total : 1.0;
                    if (strata__progress(ctx, "chunks", frac < 1 ? frac : 1) != STRATA_OK)
                        atomic_store(&rs.stop, 1);
                }
                if (strata__cancelled(ctx))
                    atomic_store(&rs.stop, 1);
            }
        }
    }
    omp_destroy_lock(&rs.lock);
    /* The first chunk's failure, with its errno (errno is per thread). */
    int err = errno;
    if (st == STRATA_OK && rs.failed != UINT64_MAX) {
        st = rs.failed_status;
        err = rs.failed_errno;
    }
    for (int i = 0; i < threads; i++) {
        stats->made += wk[i].st.made;
        stats->skipped += wk[i].st.skipped;
        stats->triangles += wk[i].st.triangles;
        stats->bytes += wk[i].st.bytes;
        stats->seconds_lattice += wk[i].t[0];
        stats->seconds_noise += wk[i].t[1];
        stats->seconds_slice += wk[i].t[2];
        stats->seconds_write += wk[i].t[3];
        strata_result_destroy(wk[i].r);
        strata_props_destroy(wk[i].props);
        strata_loops_destroy(wk[i].loops);
        strata_ctx_destroy(wk[i].ctx);
    }
    strata__free(&ctx->alloc, wk);
    stats->failed_chunk = rs.failed;
    if (st == STRATA_OK && strata__cancelled(ctx))
        st = STRATA_ERR_CANCELLED;
    if (st == STRATA_OK)
        st = strata__progress(ctx, "chunks", 1.0);
    errno = err;
    return st;
}

/* ------------------------------------------------------------ creation */

/* Per-thread minimum and maximum height, padded to a cache line. */
typedef struct {
    _Alignas(STRATA_ALIGN) float lo, hi;
    int any;
    strata_status st;
} range_slot;

/* The height range of the own vertices of chunks ids[0..n) (all chunks
 * when ids is NULL): over all chunks, the range strata_levels_uniform
 * would measure on the whole surface in memory. */
static strata_status measure_range(strata_ctx *ctx, const strata_world *w, const uint64_t *ids,
                                   uint64_t n, float *hmin, float *hmax, int *any_out)
{
    const int threads = ctx->threads;
    range_slot *slot = strata__alloc_array(&ctx->alloc, (size_t)threads, sizeof *slot);
    strata_ctx **sub = strata__alloc_array(&ctx->alloc, (size_t)threads, sizeof *sub);
    if (!slot || !sub) {
        strata__free(&ctx->alloc, slot);
        strata__free(&ctx->alloc, sub);
        return STRATA_ERR_NOMEM;
    }
    strata_status st = STRATA_OK;
    for (int i = 0; i < threads; i++) {
        slot[i] = (range_slot){0.0f, 0.0f, 0, STRATA_OK};
        sub[i] = NULL;
        if (st == STRATA_OK)
            st = strata__ctx_worker(ctx, &sub[i]);
    }
    _Atomic uint64_t next = 0, done = 0;
    if (st == STRATA_OK && (st = strata__progress(ctx, "range", 0.0)) == STRATA_OK) {
#pragma omp parallel num_threads(threads)
        {
            const int me = omp_get_thread_num();
            range_slot *rs = &slot[me];
            strata_world_scratch *s = NULL;
            rs->st = world_scratch(sub[me], w, &s);
            while (rs->st == STRATA_OK) {
                const uint64_t i = atomic_fetch_add(&next, 1);
                if (i >= n || strata__cancelled(ctx))
                    break;
                /* coarser tiles' vertices are leaves' vertices */
                if ((ids ? ids[i] : i) >= w->layout.nleaves)
                    continue;
                if ((rs->st = chunk_heights(sub[me], w, ids ? ids[i] : i, s)) != STRATA_OK)
                    break;
                const strata_mesh *m = s->mesh;
                for (uint32_t v = 0; v < m->nverts; v++) {
                    const float h = m->h[v];
                    if (!isfinite(h)) {
                        rs->st = STRATA_ERR_NOT_FINITE;
                        break;
                    }
                    if (!rs->any || h < rs->lo)
                        rs->lo = h;
                    if (!rs->any || h > rs->hi)
                        rs->hi = h;
                    rs->any = 1;
                }
                const uint64_t d = atomic_fetch_add(&done, 1) + 1;
                if (me == 0 && strata__progress(ctx, "range", (double)d / (double)n) != STRATA_OK)
                    strata_ctx_cancel(ctx);
            }
        }
    }
    int any = 0;
    for (int i = 0; i < threads; i++) {
        if (st == STRATA_OK && slot[i].st != STRATA_OK)
            st = slot[i].st;
        if (slot[i].any) {
            *hmin = !any || slot[i].lo < *hmin ? slot[i].lo : *hmin;
            *hmax = !any || slot[i].hi > *hmax ? slot[i].hi : *hmax;
            any = 1;
        }
        strata_ctx_destroy(sub[i]);
    }
    *any_out = any;
    if (st == STRATA_OK && strata__cancelled(ctx))
        st = STRATA_ERR_CANCELLED;
    strata__free(&ctx->alloc, slot);
    strata__free(&ctx->alloc, sub);
    if (st == STRATA_OK)
        st = strata__progress(ctx, "range", 1.0);
    return st;
}

strata_status strata_world_height_range(strata_ctx *ctx, const strata_world *w,
                                        const uint64_t *ids, uint64_t n, float *hmin,
                                        float *hmax)
{
    if (!ctx || !w || !hmin || !hmax || (n && !ids))
        return STRATA_ERR_INVALID_ARG;
    for (uint64_t i = 0; i < n; i++)
        if (ids[i] >= strata_world_chunk_count(w))
            return STRATA_ERR_INVALID_ARG;
    int any = 0;
    *hmin = INFINITY;
    *hmax = -INFINITY;
    return measure_range(ctx, w, ids, n, hmin, hmax, &any);
}

/* Planets: the cap of every coarse triangle of pl (see struct
 * strata_world) into a new array *out. */
strata_status strata__planet_caps(const strata_planet_lattice *pl, const strata_allocator *al,
                                  float **out);
strata_status strata__planet_caps(const strata_planet_lattice *pl, const strata_allocator *al,
                                  float **out)
{
    const strata_mesh *cm = pl->coarse;
    float *cap = strata__alloc_array(al, (size_t)cm->ntris, 4 * sizeof(float));
    if (!(*out = cap))
        return STRATA_ERR_NOMEM;
    /* A level-L edge subtends at most the longest coarse edge's angle over
     * 2^(L-C) (times a margin for the projection's unevenness): the ring
     * reaches two such edges beyond the chunk. */
    double longest = 0;
    for (uint32_t e = 0; e < cm->nedges; e++) {
        const uint32_t p = cm->ev0[e], q = cm->ev1[e];
        const double d = ((double)cm->x[p] * cm->x[q] + (double)cm->y[p] * cm->y[q] +
                          (double)cm->z[p] * cm->z[q]) /
                         ((double)pl->radius * pl->radius);
        const double ang = acos(d > 1 ? 1 : d < -1 ? -1 : d);
        longest = ang > longest ? ang : longest;
    }
    const double ring = 3.0 * longest / (double)pl->n;
    for (uint32_t t = 0; t < cm->ntris; t++) {
        const uint32_t v[3] = {cm->a[t], cm->b[t], cm->c[t]};
        double a[3] = {0, 0, 0};
        for (int k = 0; k < 3; k++) {
            a[0] += cm->x[v[k]];
            a[1] += cm->y[v[k]];
            a[2] += cm->z[v[k]];
        }
        const double len = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        double widest = 0;
        for (int k = 0; k < 3; k++) {
            const double d = (a[0] * cm->x[v[k]] + a[1] * cm->y[v[k]] + a[2] * cm->z[v[k]]) /
                             (len * pl->radius);
            const double ang = acos(d > 1 ? 1 : d < -1 ? -1 : d);
            widest = ang > widest ? ang : widest;
        }
        float *c = cap + 4 * (size_t)t;
        c[0] = (float)(a[0] / len);
        c[1] = (float)(a[1] / len);
        c[2] = (float)(a[2] / len);
        c[3] = (float)(widest + ring);
    }
    return STRATA_OK;
}

/* The base of w's solid: depth (NAN: STRATA_SOLID_DEPTH x the longest
 * side of the rectangle, as the pipeline measures the whole mesh) below
 * the plane the lowest height hmin is flattened to, the whole mesh's
 * lowest vertex (docs/DESIGN.md, "Worlds"). */
static strata_status solid_base(strata_world *w, float depth, float hmin)
{
    const strata_terrain_lattice *tl = &w->terrain;
    const uint32_t nx = tl->src.nx, nz = tl->src.nz;
    const float x0 = strata__grid_coord(0, nx, tl->cell), x1 = strata__grid_coord(nx, nx, tl->cell);
    const float z0 = strata__grid_coord(0, nz, tl->cell), z1 = strata__grid_coord(nz, nz, tl->cell);
    if (isnan(depth))
        depth = (float)(STRATA_SOLID_DEPTH * fmax((double)x1 - x0, (double)z1 - z0));
    uint32_t k = 0;
    while (k + 1 < w->nlevels && w->levels[k + 1] <= hmin)
        k++;
    const float ymin = w->levels[k];
    w->stages.solid = 1;
    w->stages.solid_depth = depth;
    w->solid_base = ymin - depth;
    if (!isfinite(w->solid_base) || !(w->solid_base < ymin))
        return STRATA_ERR_INVALID_ARG; /* depth lost in ymin's precision */
    return STRATA_OK;
}

/* What strata_props_scatter would refuse, checked when the world is
 * made rather than at its first tile. */
static int props_valid(const strata_props_options *p)
{
    return p->density > 0 && isfinite(p->density) && p->noise_frequency >= 0 &&
           isfinite(p->noise_frequency) && p->min_scale > 0 && p->min_scale <= p->max_scale &&
           isfinite(p->max_scale) && p->rock_share >= 0 && p->rock_share <= 1 &&
           p->first_terrace <= p->last_terrace && p->spacing >= 0 && isfinite(p->spacing) &&
           p->wall_foot >= 0 && isfinite(p->wall_foot) && !isnan(p->min_height) &&
           !isnan(p->max_height) && p->min_height <= p->max_height && p->max_slope >= 0 &&
           p->max_slope <= 90;
}

/* The occlusion radius: given, or from the planes' spacing. */
static strata_status ao_radius(float given, const float *L, uint32_t n, float *out)
{
    if (given > 0) {
        *out = given;
        return STRATA_OK;
    }
    if (n < 2)
        return STRATA_ERR_INVALID_ARG;
    *out = (float)(STRATA_AO_RADIUS_PLANES * ((double)L[n - 1] - L[0]) / (n - 1));
    return STRATA_OK;
}

static strata_status check_world_options(const strata_world_options *o)
{
    if (o->kind == STRATA_WORLD_PLANET) {
        if (o->level < 1 || o->level > 13 || o->chunk_level < 0 || o->chunk_level >= o->level ||
            !(o->radius > 0.0f) || !isfinite(o->radius))
            return STRATA_ERR_INVALID_ARG;
    } else if (o->kind == STRATA_WORLD_TERRAIN) {
        if (!(o->cell_size > 0.0f) || !isfinite(o->cell_size) || !isfinite(o->height_scale) ||
            o->tile_cells == 0 || (!o->heightmap && (o->cells_x == 0 || o->cells_z == 0)) ||
            (!o->heightmap && o->patch_cells))
            return STRATA_ERR_INVALID_ARG;
    } else {
        return STRATA_ERR_INVALID_ARG;
    }
    if (o->noise && strata_fbm_validate(o->noise) != STRATA_OK)
        return STRATA_ERR_INVALID_ARG;
    if (!(o->simplify_roofs >= 0) || !isfinite(o->simplify_roofs))
        return STRATA_ERR_INVALID_ARG;
    if ((o->water || o->shoreline > 0) && !o->sea)
        return STRATA_ERR_INVALID_ARG;
    if (!(o->shoreline >= 0) || !isfinite(o->shoreline))
        return STRATA_ERR_INVALID_ARG;
    if (o->water && o->kind == STRATA_WORLD_PLANET &&
        (!(o->radius + o->sea_level > 0.0f) || !isfinite(o->radius + o->sea_level)))
        return STRATA_ERR_INVALID_ARG;
    if (o->props && !props_valid(o->props))
        return STRATA_ERR_INVALID_ARG;
    if (o->props && o->props->wall_foot > 0 && (o->kind != STRATA_WORLD_TERRAIN || o->lod))
        return STRATA_ERR_UNSUPPORTED;
    if (o->ao && (!(o->ao_radius >= 0.0f) || !isfinite(o->ao_radius)))
        return STRATA_ERR_INVALID_ARG;
    if (o->ao && (o->kind == STRATA_WORLD_PLANET || o->lod || o->simplify_roofs > 0))
        return STRATA_ERR_UNSUPPORTED;
    if (o->solid && (o->kind != STRATA_WORLD_TERRAIN ||
                     !(isnan(o->solid_depth) || (o->solid_depth > 0 && isfinite(o->solid_depth)))))
        return STRATA_ERR_INVALID_ARG;
    if (o->solid && o->lod)
        return STRATA_ERR_UNSUPPORTED;
    double m[16];
    if (o->place && strata_geo_frame(o->place_lon, o->place_lat, o->place_height,
                                     o->place_scale, o->place_heading, m) != STRATA_OK)
        return STRATA_ERR_INVALID_ARG;
    if (o->kind == STRATA_WORLD_PLANET && o->noise && !(strata_fbm_bound(o->noise) < o->radius))
        return STRATA_ERR_INVALID_ARG;
    if (o->walls != STRATA_WALLS_UPPER && o->walls != STRATA_WALLS_LOWER &&
        o->walls != STRATA_WALLS_SEPARATE)
        return STRATA_ERR_INVALID_ARG;
    if (o->levels)
        return strata_levels_validate(o->levels, o->nlevels);
    if ((o->terraces == 0 && !o->sea) || o->terraces > STRATA_MAX_LEVELS)
        return STRATA_ERR_BAD_LEVELS;
    return STRATA_OK;
}

void strata_world_destroy(strata_world *w)
{
    if (!w)
        return;
    const strata_allocator al = w->alloc;
    strata__world_lod_free(w);
    strata__planet_lattice_free(&w->planet);
    if (w->has_water_lattice)
        strata__planet_lattice_free(&w->water);
    strata__free(&al, w->levels);
    strata__free(&al, w->cap);
    strata__free(&al, w);
}

strata_status strata_world_create(strata_ctx *ctx, const strata_world_options *o,
                                  strata_world **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !o)
        return STRATA_ERR_INVALID_ARG;
    strata_status st = check_world_options(o);
    if (st != STRATA_OK)
        return st;
    strata_world *w = strata__alloc(&ctx->alloc, sizeof *w);
    if (!w)
        return STRATA_ERR_NOMEM;
    memset(w, 0, sizeof *w);
    static _Atomic uint64_t serials;
    w->alloc = ctx->alloc;
    w->serial = atomic_fetch_add(&serials, 1) + 1;
    w->kind = o->kind;
    w->has_noise = o->noise != NULL;
    if (o->noise)
        w->fbm = *o->noise;
    w->curve = o->curve;
    w->walls = o->walls;
    w->normals = o->normals != 0;
    w->placed = o->place != 0;
    if (w->placed) {
        w->place[0] = o->place_lon;
        w->place[1] = o->place_lat;
        w->place[2] = o->place_height;
        w->place[3] = o->place_scale;
        w->place[4] = o->place_heading;
    }
    w->simplify = o->simplify_roofs;
    strata_pipeline_defaults(&w->stages);
    w->stages.simplify_roofs = o->simplify_roofs;
    w->stages.terraces.sea = o->sea;
    w->stages.terraces.sea_level = o->sea_level;
    w->stages.water = o->water;
    w->stages.shoreline = o->shoreline;
    w->loops = o->loops != 0;
    if (o->props) {
        w->props = *o->props;
        w->stages.props = &w->props;
    }
    if (o->kind == STRATA_WORLD_PLANET) {
        if ((st = strata__planet_lattice_init(ctx, o->level, o->chunk_level, o->radius,
                                              &w->planet)) == STRATA_OK) {
            w->planet.al = &w->alloc; /* the world outlives ctx */
            st = strata__planet_caps(&w->planet, &w->alloc, &w->cap);
        }
    } else {
        strata_terrain_source src;
        st = strata__terrain_source_init(&src, o->heightmap, o->patch_cells, o->height_scale,
                                         o->cells_x, o->cells_z);
        if (st == STRATA_OK)
            st = strata__terrain_lattice_init(ctx, &src, o->cell_size, o->tile_cells,
                                              &w->terrain);
        w->terrain.al = &w->alloc; /* the world outlives ctx */
        const uint32_t most = w->terrain.ntx > w->terrain.ntz ? w->terrain.ntx : w->terrain.ntz;
        while (st == STRATA_OK && (1ull << w->leaf_depth) < most)
            w->leaf_depth++;
    }
    if (st == STRATA_OK) {
        /* the layout only: the rest of the lod part needs the planes */
        strata_world_options bare = *o;
        bare.lod = 0;
        st = strata__world_lod_init(ctx, w, &bare);
    }
    if (st == STRATA_OK && o->water && o->kind == STRATA_WORLD_PLANET) {
        /* the sphere of the whole mesh, at least a level finer than the
         * chunks so that each chunk holds a part of it */
        uint32_t level = o->water_level;
        if (level < (uint32_t)o->chunk_level + 1)
            level = (uint32_t)o->chunk_level + 1;
        if (level > (uint32_t)o->level)
            level = (uint32_t)o->level;
        st = strata__planet_lattice_init(ctx, (int)level, o->chunk_level,
                                         o->radius + o->sea_level, &w->water);
        if (st == STRATA_OK) {
            w->water.al = &w->alloc; /* the world outlives ctx */
            w->has_water_lattice = 1;
        }
    }
    /* the planes: as a whole mesh of the same options gets them */
    const strata_terraces t = {.levels = o->levels,
                               .nlevels = o->nlevels,
                               .count = o->levels ? 0 : o->terraces,
                               .curve = o->terrace_curve,
                               .sea = o->sea,
                               .sea_level = o->sea_level};
    const uint32_t room = strata_terraces_bound(&t);
    if (st == STRATA_OK && !(w->levels = strata__alloc_array(&w->alloc, room, sizeof(float))))
        st = STRATA_ERR_NOMEM;
    float lo = 0, hi = 0;
    int any = 0;
    if (st == STRATA_OK && (t.count || o->solid))
        st = measure_range(ctx, w, NULL, w->layout.nleaves, &lo, &hi, &any);
    if (st == STRATA_OK)
        st = strata_terraces_heights(&t, lo, hi, w->levels, &w->nlevels);
    if (st == STRATA_OK && o->solid)
        st = solid_base(w, o->solid_depth, lo);
    if (st == STRATA_OK && o->kind == STRATA_WORLD_PLANET && !(o->radius + w->levels[0] > 0.0f))
        st = STRATA_ERR_BAD_LEVELS; /* a terrace at or below the centre */
    if (st == STRATA_OK && o->lod)
        st = strata__world_lod_init(ctx, w, o);
    if (st == STRATA_OK && o->ao) /* as a whole mesh's pipeline takes it */
        st = ao_radius(o->ao_radius, w->levels, w->nlevels, &w->ao_radius);
    if (st != STRATA_OK) {
        strata_world_destroy(w);
        return st;
    }
    if ((st = fingerprint(w, o)) != STRATA_OK) {
        strata_world_destroy(w);
        return st;
    }
    *out = w;
    return STRATA_OK;
}

/* ------------------------------------------------------------ queries */

void strata__world_tileset_desc(const strata_world *w, const char *ext, strata_tileset_desc *d)
{
    *d = w->layout;
    d->ext = ext;
    d->placed = w->placed;
    memcpy(d->place, w->place, sizeof d->place);
    if (w->placed) /* checked when w was made */
        strata_geo_frame(w->place[0], w->place[1], w->place[2], w->place[3], w->place[4],
                         d->transform);
}

uint64_t strata_world_chunk_count(const strata_world *w)
{
    return w ? w->layout.count : 0;
}

const float *strata_world_levels(const strata_world *w, uint32_t *n)
{
    if (n)
        *n = w ? w->nlevels : 0;
    return w ? w->levels : NULL;
}

uint64_t strata_world_fingerprint(const strata_world *w)
{
    return w ? w->fingerprint : 0;
}

void strata_world_set_height_fn(strata_world *w, strata_height_fn fn, void *user)
{
    if (!w)
        return;
    w->edit = fn;
    w->edit_user = user;
}

void strata_world_set_edits(strata_world *w, const strata_edits *e)
{
    if (!w)
        return;
    if (!e) {
        strata_world_set_height_fn(w, NULL, NULL);
        return;
    }
    strata_edit_surface *s = &w->edits;
    memset(s, 0, sizeof *s);
    s->edits = e;
    s->radial = w->kind == STRATA_WORLD_PLANET;
    s->radius = w->planet.radius;
    s->has_noise = w->has_noise;
    s->fbm = w->fbm;
    s->curve = strata__curve_is_identity(w->curve) ? NULL : w->curve;
    s->levels = w->levels;
    s->nlevels = w->nlevels;
    strata_world_set_height_fn(w, strata__edits_height_fn, s);
}

strata_status strata_world_chunk_info(const strata_world *w, uint64_t id, strata_chunk_info *out)
{
    if (!w || !out || id >= strata_world_chunk_count(w))
        return STRATA_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->id = id;
    uint32_t k;
    uint64_t i;
    strata__world_locate(w, id, &k, &i);
    const int leaf = k == w->layout.leaf_depth;
    out->depth = k;
    if (w->kind == STRATA_WORLD_PLANET) {
        const strata_planet_lattice *pl = leaf ? &w->planet : &w->lod_planet[k];
        out->vertices = pl->nverts;
        out->triangles = pl->ntris;
        out->face = leaf ? (uint32_t)(id >> (2 * pl->chunk_level)) : (uint32_t)i;
    } else {
        const strata_terrain_lattice *tl = leaf ? &w->terrain : &w->lod_terrain[k];
        uint32_t i0, j0, i1, j1;
        strata__terrain_tile_block(tl, i, &i0, &j0, &i1, &j1);
        out->tx = (uint32_t)(i % tl->ntx);
        out->tz = (uint32_t)(i / tl->ntx);
        const uint32_t cw = i1 - i0, ch = j1 - j0;
        out->vertices = (cw + 1) * (ch + 1);
        out->triangles = 2 * cw * ch;
        out->x0 = strata__terrain_grid_x(tl, i0);
        out->x1 = strata__terrain_grid_x(tl, i1);
        out->z0 = strata__terrain_grid_z(tl, j0);
        out->z1 = strata__terrain_grid_z(tl, j1);
    }
    strata_tileset_desc desc;
    strata__world_tileset_desc(w, "", &desc);
    strata__tile_path(&desc, id, out->path, sizeof out->path);
    return STRATA_OK;
}

static int cmp_u64(const void *pa, const void *pb)
{
    const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* A terrain's chunk id's input triangles (strata_world_chunk_info's,
 * without the rest). */
static uint64_t tile_triangles(const strata_world *w, uint64_t id)
{
    uint32_t k, i0, j0, i1, j1;
    uint64_t i;
    strata__world_locate(w, id, &k, &i);
    strata__terrain_tile_block(k == w->layout.leaf_depth ? &w->terrain : &w->lod_terrain[k], i,
                               &i0, &j0, &i1, &j1);
    return 2 * (uint64_t)(i1 - i0) * (j1 - j0);
}

/* Sift the root of the min-heap heap[0..n) of shards ordered by (load,
 * shard) down to its place. */
static void sift_down(uint64_t *heap, const uint64_t *load, uint64_t n)
{
    uint64_t at = 0;
    for (;;) {
        const uint64_t l = 2 * at + 1, r = l + 1;
        uint64_t m = at;
        if (l < n && (load[heap[l]] < load[heap[m]] ||
                      (load[heap[l]] == load[heap[m]] && heap[l] < heap[m])))
            m = l;
        if (r < n && (load[heap[r]] < load[heap[m]] ||
                      (load[heap[r]] == load[heap[m]] && heap[r] < heap[m])))
            m = r;
        if (m == at)
            return;
        const uint64_t t = heap[m];
        heap[m] = heap[at];
        heap[at] = t;
        at = m;
    }
}

strata_status strata_world_shard(const strata_world *w, uint64_t k, uint64_t n, uint64_t *ids,
                                 uint64_t cap, uint64_t *count)
{
    if (!w || !count || n == 0 || k >= n || (cap && !ids))
        return STRATA_ERR_INVALID_ARG;
    const uint64_t nchunks = strata_world_chunk_count(w);
    uint64_t found = 0;
    if (n == 1 || w->kind == STRATA_WORLD_PLANET) {
        /* one shard: every chunk, no ordering to make (a dry run of a
         * world of 2^26 tiles needs only their count); a planet's are
         * all alike: the greedy rule deals them round robin */
        for (uint64_t id = k; id < nchunks; id += n) {
            if (found < cap)
                ids[found] = id;
            found++;
        }
        *count = found;
        return STRATA_OK;
    }
    /* Greedy by size: chunks by work (input triangles) from the largest
     * down, ids ascending within one work, each to the shard with the
     * least load so far (lowest number on ties): the root of a min-heap of
     * shards ordered by (load, shard).  A terrain's tiles come in a few
     * sizes (full, the last column and row, per depth), so the chunks are
     * walked once per size rather than sorted: memory for the shards
     * only, whatever the number of chunks. */
    uint64_t *load = strata__alloc_array(&w->alloc, n, sizeof *load);
    uint64_t *heap = strata__alloc_array(&w->alloc, n, sizeof *heap);
    if (!load || !heap) {
        strata__free(&w->alloc, load);
        strata__free(&w->alloc, heap);
        return STRATA_ERR_NOMEM;
    }
    for (uint64_t s = 0; s < n; s++) {
        load[s] = 0;
        heap[s] = s; /* all loads 0: ordered by shard */
    }
    uint64_t work = UINT64_MAX; /* the size being dealt */
    for (bool more = true; more;) {
        uint64_t next = 0; /* the largest size below work */
        more = false;
        for (uint64_t id = 0; id < nchunks; id++) {
            const uint64_t t = tile_triangles(w, id);
            if (t < work && (!more || t > next)) {
                next = t;
                more = true;
            }
            if (t != work)
                continue;
            const uint64_t best = heap[0];
            load[best] += work;
            if (best == k) {
                if (found < cap)
                    ids[found] = id;
                found++;
            }
            sift_down(heap, load, n);
        }
        work = next;
    }
    strata__free(&w->alloc, heap);
    strata__free(&w->alloc, load);
    if (ids)
        qsort(ids, found < cap ? found : cap, sizeof *ids, cmp_u64);
    *count = found;
    return STRATA_OK;
}

strata_status strata_world_chunks_near(const strata_world *w, const float center[3], float radius,
                                       uint64_t *ids, uint64_t cap, uint64_t *count)
{
    if (!w || !center || !count || !(radius >= 0.0f) || !isfinite(radius) ||
        (cap && !ids))
        return STRATA_ERR_INVALID_ARG;
    uint64_t found = 0;
    const uint64_t n = strata_world_chunk_count(w);
    if (w->kind == STRATA_WORLD_PLANET) {
        /* the ball seen from the centre: a cone of half-angle asin(r/|c|),
         * all directions when the ball holds the centre */
        const double d = sqrt((double)center[0] * center[0] + (double)center[1] * center[1] +
                              (double)center[2] * center[2]);
        const double cone = radius >= d ? 3.14159265358979323846 : asin(radius / d);
        for (uint64_t t = 0; t < n; t++) {
            const float *c = strata__world_cap(w, t);
            double cosang = d > 0 ? (c[0] * center[0] + c[1] * center[1] + c[2] * center[2]) / d
                                  : 1.0;
            cosang = cosang > 1 ? 1 : cosang < -1 ? -1 : cosang;
            if (acos(cosang) <= (double)c[3] + cone + 1e-6) {
                if (found < cap)
                    ids[found] = t;
                found++;
            }
        }
    } else {
        for (uint64_t id = 0; id < n; id++) {
            uint32_t k;
            uint64_t at;
            strata__world_locate(w, id, &k, &at);
            const strata_terrain_lattice *tl =
                k == w->layout.leaf_depth ? &w->terrain : &w->lod_terrain[k];
            uint32_t i0, j0, i1, j1;
            strata__terrain_tile_block(tl, at, &i0, &j0, &i1, &j1);
            /* the block and its ring (two lattice cells), in x and z */
            const uint32_t gx0 = strata__terrain_grid_x(tl, i0 > 2 ? i0 - 2 : 0),
                           gx1 = strata__terrain_grid_x(tl, i1 + 2 < tl->nx ? i1 + 2 : tl->nx),
                           gz0 = strata__terrain_grid_z(tl, j0 > 2 ? j0 - 2 : 0),
                           gz1 = strata__terrain_grid_z(tl, j1 + 2 < tl->nz ? j1 + 2 : tl->nz);
            const double x0 = strata__grid_coord(gx0, tl->src.nx, tl->cell);
            const double x1 = strata__grid_coord(gx1, tl->src.nx, tl->cell);
            const double z0 = strata__grid_coord(gz0, tl->src.nz, tl->cell);
            const double z1 = strata__grid_coord(gz1, tl->src.nz, tl->cell);
            const double dx = center[0] < x0 ? x0 - center[0] : center[0] > x1 ? center[0] - x1 : 0;
            const double dz = center[2] < z0 ? z0 - center[2] : center[2] > z1 ? center[2] - z1 : 0;
            if (dx * dx + dz * dz <= (double)radius * radius) {
                if (found < cap)
                    ids[found] = id;
                found++;
            }
        }
    }
    *count = found;
    return STRATA_OK;
}
