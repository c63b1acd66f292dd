/* Levels of detail of worlds (strata.h, strata_world_options.lod).
 *
 * A tile at depth k of the chunk tree is a chunk of a coarser lattice
 * with a quarter of a leaf's triangles (half as many along a side):
 * planets, chunk t of the planet of level L - C + k - 1 cut at chunk
 * level k (the level-k icosphere triangle t with its 4^(L-C-1)
 * descendants); terrains, tile (x, z) of the lattice of every
 * 2^(D-k+1)-th grid line cut into tiles of half the leaves' cells.
 * (Coarse triangles cross more planes, so such a tile has about half a
 * leaf's output triangles, and all depths together cost about a quarter
 * more than the leaves: at a leaf's resolution they would cost 60%
 * more.)  When a leaf is too small to halve (L - C = 1, or an odd
 * number of cells a tile) the coarse tiles keep the leaves' size.
 * Coarse lattice points are points of the finest lattice with the same
 * bits (midpoints depend only on their ends; grid lines keep their
 * coordinates and heights), so a coarse tile is the finest surface
 * sampled more sparsely, made and sliced with the world's planes exactly
 * as a leaf is.
 *
 * Geometric errors are bounds from the world's parameters (see
 * strata_world_lod_error), the same in every process, so a tile's skirt
 * depends on its id alone. */
#include "world/world.h"
#include "base/curve.h"
#include "mesh/heightmap.h"
#include "simd/noise.h"

#include <math.h>
#include <string.h>

/* The height curve's steepest slope, bounded by 3 times the steepest of
 * 4096 chords (a Fritsch-Carlson cubic's tangents are at most 3 times its
 * secants; a polyline's steepest chord is its steepest piece). */
static double curve_slope(const strata_curve *c)
{
    if (!c || strata__curve_is_identity(c))
        return 1.0;
    double most = 0, prev = strata_curve_eval(c, 0.0f);
    for (int i = 1; i <= 4096; i++) {
        const double v = strata_curve_eval(c, (float)i / 4096.0f);
        const double s = fabs(v - prev) * 4096.0;
        most = s > most ? s : most;
        prev = v;
    }
    return 3.0 * most;
}

/* How far the noise interpolated linearly over triangles of diameter d
 * lies from the noise itself, measured: over NSEG segments of length d
 * spread evenly over the domain (planets: a Fibonacci set of directions
 * on the sphere of radius R, each segment turned by the golden angle from
 * the last; terrains: a 2D low-discrepancy set over the extent), the
 * largest gap between the noise at a segment's midpoint and the mean of
 * its ends, times MARGIN for the points between samples and inside
 * triangles; at most the noise's whole swing (2 x the sum of the
 * octaves' amplitudes); times the height curve's steepest slope.
 * A strict bound (the noise's steepest slope, about 35 per unit of
 * frequency for simplex, times d, per octave) came out 5 to 10 times
 * larger than anything the noise does, so a viewer refined every tile at
 * once; this is an estimate, the same in every process (scalar noise at
 * fixed points). */
#define NSEG 4096
#define MARGIN 1.5

static double noise_dev(const strata_world *w, double d, int dims, double extent)
{
    if (!w->has_noise)
        return 0.0;
    strata_fbm_plan p;
    if (strata__fbm_plan_make(&w->fbm, &p) != STRATA_OK)
        return 0.0;
    double swing = 0;
    for (int o = 0; o < p.octaves; o++)
        swing += 2 * fabs((double)p.amp[o]);
    const double golden = 3.14159265358979323846 * (3.0 - sqrt(5.0));
    double most = 0;
    for (int i = 0; i < NSEG; i++) {
        double c[3], u[3]; /* midpoint and unit direction of the segment */
        if (dims == 3) {
            const double y = 1.0 - 2.0 * (i + 0.5) / NSEG, r = sqrt(1.0 - y * y);
            const double phi = golden * i;
            c[0] = r * cos(phi), c[1] = y, c[2] = r * sin(phi);
            /* tangent frame: east and north of c, turned by a */
            const double e[3] = {-sin(phi), 0.0, cos(phi)};
            const double nth[3] = {c[1] * e[2] - c[2] * e[1], c[2] * e[0] - c[0] * e[2],
                                   c[0] * e[1] - c[1] * e[0]};
            const double a = golden * 7.0 * i;
            for (int k = 0; k < 3; k++) {
                c[k] *= extent;
                u[k] = cos(a) * e[k] + sin(a) * nth[k];
            }
        } else {
            c[0] = extent * fmod(0.5 + i * 0.7548776662466927, 1.0);
            c[1] = extent * fmod(0.5 + i * 0.5698402909980532, 1.0);
            c[2] = 0;
            const double a = golden * 7.0 * i;
            u[0] = cos(a), u[1] = sin(a), u[2] = 0;
        }
        float v[3];
        for (int s = 0; s < 3; s++) { /* ends, then midpoint */
            const double t = s == 2 ? 0.0 : (s ? 0.5 : -0.5) * d;
            const float x = (float)(c[0] + t * u[0]), y = (float)(c[1] + t * u[1]),
                        z = (float)(c[2] + t * u[2]);
            v[s] = dims == 3 ? strata_fbm3(&w->fbm, x, y, z) : strata_fbm2(&w->fbm, x, y);
        }
        const double dev = fabs((double)v[2] - 0.5 * ((double)v[0] + v[1]));
        most = dev > most ? dev : most;
    }
    most *= MARGIN;
    return curve_slope(w->curve) * (most < swing ? most : swing);
}

/* The largest difference of two neighbouring samples (along x or y) of a
 * heightmap, read strip by strip when it stays in its file. */
static strata_status sample_step(const strata_heightmap *hm, double *out)
{
    const uint32_t hw = strata_heightmap_width(hm), hh = strata_heightmap_height(hm);
    const float *all = strata_heightmap_data(hm);
    const uint32_t rows = all ? hh : strata__heightmap_strip_rows(hm);
    float *strip = NULL, *prev = NULL;
    if (!all && (!(strip = strata__alloc_array(&hm->alloc, (size_t)rows * hw, sizeof(float))) ||
                 !(prev = strata__alloc_array(&hm->alloc, hw, sizeof(float))))) {
        strata__free(&hm->alloc, strip);
        return STRATA_ERR_NOMEM;
    }
    strata_status st = STRATA_OK;
    double most = 0;
    for (uint32_t y = 0; y < hh; y += rows) {
        const uint32_t n = hh - y < rows ? hh - y : rows;
        const float *p = all ? all : strip;
        if (!all && (st = strata_heightmap_read(hm, 0, y, hw, n, strip)) != STRATA_OK)
            break;
        for (uint32_t j = 0; j < n; j++) {
            const float *row = p + (size_t)j * hw;
            const float *up = j ? row - hw : (y && !all ? prev : NULL);
            for (uint32_t i = 0; i < hw; i++) {
                if (i) {
                    const double d = fabs((double)row[i] - row[i - 1]);
                    most = d > most ? d : most;
                }
                if (up) {
                    const double d = fabs((double)row[i] - up[i]);
                    most = d > most ? d : most;
                }
            }
        }
        if (!all)
            memcpy(prev, p + (size_t)(n - 1) * hw, (size_t)hw * sizeof(float));
    }
    strata__free(&hm->alloc, strip);
    strata__free(&hm->alloc, prev);
    *out = most;
    return st;
}

/* The largest edge angle of the level-l icosphere, l = 0..upto: measured
 * up to level 5, then halved per level with a 5% margin (the middle
 * child's sides are half the parent's to within the square of the edge
 * angle, below 2e-3 from level 5 on). */
static strata_status edge_angles(strata_ctx *ctx, int upto, double *theta)
{
    for (int l = 0; l <= upto; l++) {
        if (l > 5) {
            theta[l] = theta[5] * ldexp(1.05, 5 - l);
            continue;
        }
        strata_mesh *m;
        const strata_status st = strata_shape_icosphere(ctx, l, 1.0f, &m);
        if (st != STRATA_OK)
            return st;
        double most = 0;
        for (uint32_t e = 0; e < m->nedges; e++) {
            const uint32_t p = m->ev0[e], q = m->ev1[e];
            const double a[3] = {m->x[p], m->y[p], m->z[p]}, b[3] = {m->x[q], m->y[q], m->z[q]};
            const double cr[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                                  a[0] * b[1] - a[1] * b[0]};
            const double ang = atan2(sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]),
                                     a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
            most = ang > most ? ang : most;
        }
        strata_mesh_destroy(m);
        theta[l] = most;
    }
    return STRATA_OK;
}

/* Errors of every depth and skirt depths (strata_world_lod_error). */
static strata_status lod_errors(strata_ctx *ctx, strata_world *w)
{
    const uint32_t leaf = w->layout.leaf_depth;
    double gap = 0;
    for (uint32_t k = 0; k + 1 < w->nlevels; k++) {
        const double g = (double)w->levels[k + 1] - w->levels[k];
        gap = g > gap ? g : gap;
    }
    double extent, sag[STRATA_TILESET_DEPTHS] = {0};
    if (w->kind == STRATA_WORLD_PLANET) {
        const int L = w->planet.level, C = w->planet.chunk_level;
        double theta[14];
        const strata_status st = edge_angles(ctx, L, theta);
        if (st != STRATA_OK)
            return st;
        const double R = w->planet.radius;
        const double top = R + (w->levels[w->nlevels - 1] > 0 ? w->levels[w->nlevels - 1] : 0);
        const double fine_dev = noise_dev(w, 1.05 * R * theta[L], 3, R);
        const double fine_sag = top * (1 - cos(theta[L]));
        for (uint32_t k = 0; k < leaf; k++) {
            const double t = theta[L - C + (int)k - w->lod_coarsen];
            sag[k] = top * (1 - cos(t)) + fine_sag;
            w->lod_error[k] = noise_dev(w, 1.05 * R * t, 3, R) + fine_dev + gap + sag[k];
        }
        extent = R;
    } else {
        const strata_terrain_lattice *tl = &w->terrain;
        double base = 0;
        if (tl->src.hm) {
            double step;
            const strata_status st = sample_step(tl->src.hm, &step);
            if (st != STRATA_OK)
                return st;
            base = sqrt(2.0) * step * fabs((double)tl->src.scale) /
                   ((double)tl->cell * (tl->src.patch ? tl->src.patch : 1));
        }
        const double cell = tl->cell, fine = sqrt(2.0) * cell;
        extent = cell * (tl->src.nx > tl->src.nz ? tl->src.nx : tl->src.nz);
        const double fine_dev = noise_dev(w, fine, 2, extent);
        for (uint32_t k = 0; k < leaf; k++) {
            const double d = fine * ldexp(1.0, (int)(leaf - k) + w->lod_coarsen);
            w->lod_error[k] = base * d + noise_dev(w, d, 2, extent) + fine_dev + gap;
        }
    }
    /* terraced heights lie between the lowest and highest plane */
    const double span = (double)w->levels[w->nlevels - 1] - w->levels[0];
    for (uint32_t k = 0; k < leaf; k++)
        w->lod_error[k] = w->lod_error[k] < span + sag[k] ? w->lod_error[k]
                                                                : span + sag[k];
    /* strictly decreasing towards the leaves, which are exact */
    w->lod_error[leaf] = 0;
    for (uint32_t k = leaf; k-- > 0;) {
        const double below = 1.0625 * w->lod_error[k + 1], least = 1e-7 * extent;
        w->lod_error[k] = w->lod_error[k] > below ? w->lod_error[k] : below;
        w->lod_error[k] = w->lod_error[k] > least ? w->lod_error[k] : least;
    }
    /* A tile of depth k meets tiles of depths k - 1, k and k + 1 (a
     * refinement by screen-space error over a continuous surface): the
     * same depth shares its border exactly, and the gap to the coarser
     * neighbour is at most E_(k-1) + E_k, to the finer E_k + E_(k+1), so
     * the skirt reaches E_(k-1) + E_k below its border (the roots: E_0 +
     * E_1; the leaves: E_(leaf-1), theirs being 0). */
    for (uint32_t k = 0; k <= leaf; k++) {
        const double coarser = w->lod_error[k > 0 ? k - 1 : k < leaf ? k + 1 : k];
        w->lod_skirt[k] = w->lod_error[k] + coarser;
        w->layout.errors[k] = w->lod_error[k];
    }
    return STRATA_OK;
}

strata_status strata__planet_caps(const strata_planet_lattice *pl, const strata_allocator *al,
                                  float **out);

/* The water sphere's lattices of the depths above the leaves: no finer
 * than the leaves' sphere or the depth's surface (a coarse tile's water
 * has at most as many triangles as its ground), a level finer than the
 * chunks so that each holds a part of it. */
static strata_status lod_water(strata_ctx *ctx, strata_world *w)
{
    const uint32_t n = w->layout.leaf_depth;
    if (!(w->lod_water = strata__alloc_array(&w->alloc, n, sizeof *w->lod_water)))
        return STRATA_ERR_NOMEM;
    memset(w->lod_water, 0, n * sizeof *w->lod_water);
    strata_status st = STRATA_OK;
    for (uint32_t k = 0; k < n && st == STRATA_OK; k++) {
        int level = w->water.level < w->lod_planet[k].level ? w->water.level
                                                             : w->lod_planet[k].level;
        level = level > (int)k + 1 ? level : (int)k + 1;
        st = strata__planet_lattice_init(ctx, level, (int)k, w->water.radius, &w->lod_water[k]);
        w->lod_water[k].al = &w->alloc; /* the world outlives ctx */
    }
    return st;
}

const strata_planet_lattice *strata__world_water(const strata_world *w, uint64_t id,
                                                 uint64_t *index)
{
    uint32_t k;
    strata__world_locate(w, id, &k, index);
    return k == w->layout.leaf_depth ? &w->water : &w->lod_water[k];
}

strata_status strata__world_lod_init(strata_ctx *ctx, strata_world *w,
                                     const strata_world_options *o)
{
    strata_tileset_desc *d = &w->layout;
    memset(d, 0, sizeof *d);
    d->kind = w->kind;
    d->leaf_depth = w->kind == STRATA_WORLD_PLANET ? (uint32_t)w->planet.chunk_level
                                                   : w->leaf_depth;
    d->tiles_x = w->kind == STRATA_WORLD_TERRAIN ? w->terrain.ntx : 0;
    d->lod = w->lod = o->lod != 0;
    w->skirts = w->lod && o->skirts;
    const uint64_t leaves = w->kind == STRATA_WORLD_PLANET ? strata__planet_chunks(&w->planet)
                                                           : strata__terrain_tiles(&w->terrain);
    if (!strata__tileset_layout(d, leaves))
        return STRATA_ERR_OVERFLOW;
    if (!w->lod || d->leaf_depth == 0)
        return STRATA_OK;
    const uint32_t n = d->leaf_depth;
    strata_status st = STRATA_OK;
    if (w->kind == STRATA_WORLD_PLANET) {
        w->lod_planet = strata__alloc_array(&w->alloc, n, sizeof *w->lod_planet);
        w->lod_cap = strata__alloc_array(&w->alloc, n, sizeof *w->lod_cap);
        if (!w->lod_planet || !w->lod_cap)
            return STRATA_ERR_NOMEM;
        memset(w->lod_planet, 0, n * sizeof *w->lod_planet);
        memset(w->lod_cap, 0, n * sizeof *w->lod_cap);
        const int L = w->planet.level, C = w->planet.chunk_level;
        w->lod_coarsen = L - C >= 2;
        for (uint32_t k = 0; k < n && st == STRATA_OK; k++)
            if ((st = strata__planet_lattice_init(ctx, L - C + (int)k - w->lod_coarsen, (int)k,
                                                  w->planet.radius,
                                                  &w->lod_planet[k])) == STRATA_OK) {
                w->lod_planet[k].al = &w->alloc; /* the world outlives ctx */
                st = strata__planet_caps(&w->lod_planet[k], &w->alloc, &w->lod_cap[k]);
            }
        if (st == STRATA_OK && w->has_water_lattice)
            st = lod_water(ctx, w);
    } else {
        w->lod_terrain = strata__alloc_array(&w->alloc, n, sizeof *w->lod_terrain);
        if (!w->lod_terrain)
            return STRATA_ERR_NOMEM;
        memset(w->lod_terrain, 0, n * sizeof *w->lod_terrain);
        const uint32_t tile = w->terrain.tile;
        w->lod_coarsen = tile % 2 == 0;
        for (uint32_t k = 0; k < n && st == STRATA_OK; k++) {
            st = strata__terrain_lattice_init_stride(ctx, &w->terrain.src, w->terrain.cell,
                                                     tile >> w->lod_coarsen,
                                                     1u << (n - k + w->lod_coarsen),
                                                     &w->lod_terrain[k]);
            w->lod_terrain[k].al = &w->alloc; /* the world outlives ctx */
        }
    }
    if (st == STRATA_OK)
        st = lod_errors(ctx, w);
    return st;
}

void strata__world_lod_free(strata_world *w)
{
    const uint32_t n = w->layout.leaf_depth;
    if (w->lod_water)
        for (uint32_t k = 0; k < w->layout.leaf_depth; k++)
            strata__planet_lattice_free(&w->lod_water[k]);
    strata__free(&w->alloc, w->lod_water);
    w->lod_water = NULL;
    if (w->lod_planet)
        for (uint32_t k = 0; k < n; k++)
            strata__planet_lattice_free(&w->lod_planet[k]);
    if (w->lod_cap)
        for (uint32_t k = 0; k < n; k++)
            strata__free(&w->alloc, w->lod_cap[k]);
    strata__free(&w->alloc, w->lod_planet);
    strata__free(&w->alloc, w->lod_cap);
    strata__free(&w->alloc, w->lod_terrain);
    w->lod_planet = NULL;
    w->lod_cap = NULL;
    w->lod_terrain = NULL;
}

strata_status strata__world_lattice(const strata_world *w, uint64_t id, strata_ring_scratch *ring,
                                    strata_tile_scratch *tile, strata_mesh *m)
{
    uint32_t k;
    uint64_t i;
    strata__world_locate(w, id, &k, &i);
    if (w->kind == STRATA_WORLD_PLANET)
        return strata__planet_chunk_build(k == w->layout.leaf_depth ? &w->planet
                                                                    : &w->lod_planet[k],
                                          i, ring, m);
    return strata__terrain_tile_build(k == w->layout.leaf_depth ? &w->terrain
                                                                : &w->lod_terrain[k],
                                      i, tile, m);
}

const float *strata__world_cap(const strata_world *w, uint64_t id)
{
    uint32_t k;
    uint64_t i;
    strata__world_locate(w, id, &k, &i);
    return (k == w->layout.leaf_depth ? w->cap : w->lod_cap[k]) + 4 * i;
}

void strata__world_chunk_region(const strata_world *w, uint64_t id, float corners[9],
                                uint32_t cells[4])
{
    uint32_t k;
    uint64_t i;
    strata__world_locate(w, id, &k, &i);
    const int leaf = k == w->layout.leaf_depth;
    if (w->kind == STRATA_WORLD_PLANET) {
        const strata_mesh *cm = (leaf ? &w->planet : &w->lod_planet[k])->coarse;
        const uint32_t v[3] = {cm->a[i], cm->b[i], cm->c[i]};
        for (int c = 0; c < 3; c++) {
            corners[3 * c] = cm->x[v[c]];
            corners[3 * c + 1] = cm->y[v[c]];
            corners[3 * c + 2] = cm->z[v[c]];
        }
        return;
    }
    const strata_terrain_lattice *tl = leaf ? &w->terrain : &w->lod_terrain[k];
    uint32_t i0, j0, i1, j1;
    strata__terrain_tile_block(tl, i, &i0, &j0, &i1, &j1);
    cells[0] = strata__terrain_grid_x(tl, i0);
    cells[1] = strata__terrain_grid_z(tl, j0);
    cells[2] = strata__terrain_grid_x(tl, i1);
    cells[3] = strata__terrain_grid_z(tl, j1);
}

uint64_t strata_world_leaf_count(const strata_world *w)
{
    return w ? w->layout.nleaves : 0;
}

uint32_t strata_world_leaf_depth(const strata_world *w)
{
    return w ? w->layout.leaf_depth : 0;
}

strata_status strata_world_lod_error(const strata_world *w, uint32_t k, double *error,
                                     double *skirt)
{
    if (!w || !w->lod || k > w->layout.leaf_depth)
        return STRATA_ERR_INVALID_ARG;
    if (error)
        *error = w->lod_error[k];
    if (skirt)
        *skirt = w->lod_skirt[k];
    return STRATA_OK;
}
