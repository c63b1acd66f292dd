/* The brushes of an edit log applied to heights, as a function of
 * position alone (see "Edit logs" in strata.h for their definitions).
 *
 * Vertices go in blocks of BLOCK: a block's bounding box (of unit
 * directions on planets, of x and z on terrains) skips the edits that
 * cannot reach any of its vertices, then each edit in log order updates
 * the block's heights.  Plain scalar float arithmetic throughout, so the
 * bits depend on the position only. */
#include "edit/edits.h"

#include "base/curve.h"
#include "mesh/mesh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256
#define NOISE_SEED 0x5eed1234u
/* smooth samples the surface at six points this share of the radius
 * around the vertex, 60 degrees apart */
#define SMOOTH_RING 0.25f

/* The point a vertex is measured at: its unit direction times the
 * edit's centre distance (planets), or (x, 0, z) (terrains). */
typedef struct {
    float u[3]; /* planets: unit direction; terrains: x, 0, z */
} place;

static void place_of(const strata_edit_surface *s, float x, float y, float z, place *p)
{
    if (s->radial) {
        const float len = sqrtf(x * x + y * y + z * z);
        const float inv = len > 0.0f ? 1.0f / len : 0.0f;
        p->u[0] = x * inv, p->u[1] = y * inv, p->u[2] = z * inv;
    } else {
        p->u[0] = x, p->u[1] = 0.0f, p->u[2] = z;
    }
}

/* An edit's centre in the same terms: unit direction and the length
 * that scales it (planets), or (x, 0, z) and 1 (terrains). */
typedef struct {
    float c[3], scale;
} centre;

static void centre_of(const strata_edit_surface *s, const strata_edit *e, centre *c)
{
    if (s->radial) {
        const float len = sqrtf(e->center[0] * e->center[0] + e->center[1] * e->center[1] +
                                e->center[2] * e->center[2]);
        const float inv = len > 0.0f ? 1.0f / len : 0.0f;
        c->c[0] = e->center[0] * inv, c->c[1] = e->center[1] * inv, c->c[2] = e->center[2] * inv;
        c->scale = len;
    } else {
        c->c[0] = e->center[0], c->c[1] = 0.0f, c->c[2] = e->center[2];
        c->scale = 1.0f;
    }
}

/* Distance of a vertex from the edit's centre: terrains in x and z;
 * planets the chord between their directions at the centre's distance. */
static float dist(const place *p, const centre *c)
{
    const float dx = p->u[0] - c->c[0], dy = p->u[1] - c->c[1], dz = p->u[2] - c->c[2];
    return c->scale * sqrtf(dx * dx + dy * dy + dz * dz);
}

/* 1 at the centre, falling smoothly (smoothstep) to 0 at the radius. */
static float falloff(float d, float r)
{
    const float t = 1.0f - d / r;
    return t * t * (3.0f - 2.0f * t);
}

/* The additive brushes' offset at p: raise and lower their strength
 * times the falloff, noise that times simplex noise of the point at a
 * frequency of 4 / radius. */
static float additive(const strata_edit *e, const place *p, const centre *c, float d)
{
    const float f = e->strength * falloff(d, e->radius);
    if (e->brush == STRATA_BRUSH_RAISE)
        return f;
    if (e->brush == STRATA_BRUSH_LOWER)
        return -f;
    const float k = 4.0f / e->radius * c->scale;
    return f * strata_noise3(STRATA_NOISE_SIMPLEX, NOISE_SEED, p->u[0] * k, p->u[1] * k,
                             p->u[2] * k);
}

/* The noise height of the surface at p (0 without noise): fbm at d * R
 * (planets) or at (x, z), through the height curve as displacement
 * reshapes it. */
static float base_height(const strata_edit_surface *s, const place *p)
{
    if (!s->has_noise)
        return 0.0f;
    float v = s->radial ? strata_fbm3(&s->fbm, p->u[0] * s->radius, p->u[1] * s->radius,
                                      p->u[2] * s->radius)
                        : strata_fbm2(&s->fbm, p->u[0], p->u[2]);
    if (s->curve) {
        const float b = strata_fbm_bound(&s->fbm);
        v = b > 0.0f ? b * (2.0f * strata_curve_eval(s->curve, (v / b + 1.0f) * 0.5f) - 1.0f)
                     : 0.0f;
    }
    return v;
}

/* The surface smooth low-passes at p: the noise height plus the offsets
 * of the additive edits before edit `upto`. */
static float raw_height(const strata_edit_surface *s, uint64_t upto, const place *p)
{
    float acc = 0.0f;
    for (uint64_t k = 0; k < upto; k++) {
        strata_edit e;
        strata_edits_get(s->edits, k, &e);
        if (e.brush == STRATA_BRUSH_SMOOTH || e.brush == STRATA_BRUSH_TERRACE)
            continue;
        centre c;
        centre_of(s, &e, &c);
        const float d = dist(p, &c);
        if (d < e.radius)
            acc += additive(&e, p, &c, d);
    }
    return base_height(s, p) + acc;
}

/* Two unit vectors across n (unit), fixed for n. */
static void tangents(const float n[3], float t1[3], float t2[3])
{
    const float ax = fabsf(n[0]), ay = fabsf(n[1]), az = fabsf(n[2]);
    float a[3] = {0, 0, 0};
    a[ax <= ay && ax <= az ? 0 : ay <= az ? 1 : 2] = 1.0f;
    t1[0] = n[1] * a[2] - n[2] * a[1];
    t1[1] = n[2] * a[0] - n[0] * a[2];
    t1[2] = n[0] * a[1] - n[1] * a[0];
    const float l = sqrtf(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
    t1[0] /= l, t1[1] /= l, t1[2] /= l;
    t2[0] = n[1] * t1[2] - n[2] * t1[1];
    t2[1] = n[2] * t1[0] - n[0] * t1[2];
    t2[2] = n[0] * t1[1] - n[1] * t1[0];
}

/* smooth's change at p: the mean of the raw surface at six points around
 * p minus the raw surface at p. */
static float smooth_delta(const strata_edit_surface *s, uint64_t k, const strata_edit *e,
                          const place *p)
{
    static const float cs[6][2] = {{1.0f, 0.0f},   {0.5f, 0.8660254f},  {-0.5f, 0.8660254f},
                                   {-1.0f, 0.0f},  {-0.5f, -0.8660254f}, {0.5f, -0.8660254f}};
    float t1[3] = {1, 0, 0}, t2[3] = {0, 0, 1}, step = SMOOTH_RING * e->radius;
    if (s->radial) {
        tangents(p->u, t1, t2);
        const float len = sqrtf(e->center[0] * e->center[0] + e->center[1] * e->center[1] +
                                e->center[2] * e->center[2]);
        step /= len; /* in unit directions */
    }
    float sum = 0.0f;
    for (int j = 0; j < 6; j++) {
        place q;
        for (int a = 0; a < 3; a++)
            q.u[a] = p->u[a] + step * (cs[j][0] * t1[a] + cs[j][1] * t2[a]);
        if (s->radial)
            place_of(s, q.u[0], q.u[1], q.u[2], &q);
        sum += raw_height(s, k, &q);
    }
    return sum / 6.0f - raw_height(s, k, p);
}

/* The plane nearest h (the lower on a tie); h itself without planes. */
static float nearest_plane(const strata_edit_surface *s, float h)
{
    if (!s->nlevels)
        return h;
    uint32_t lo = 0, hi = s->nlevels; /* first plane above h */
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (s->levels[mid] <= h)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return s->levels[0];
    if (lo == s->nlevels)
        return s->levels[lo - 1];
    const float below = s->levels[lo - 1], above = s->levels[lo];
    return above - h < h - below ? above : below;
}

/* Whether edit c (radius r) can reach the box [lo, hi] of places. */
static int reaches(const centre *c, float r, const float lo[3], const float hi[3])
{
    float d2 = 0.0f;
    for (int a = 0; a < 3; a++) {
        const float d = c->c[a] < lo[a] ? lo[a] - c->c[a] : c->c[a] > hi[a] ? c->c[a] - hi[a] : 0;
        d2 += d * d;
    }
    /* a little slack: the per-vertex test decides */
    return c->scale * sqrtf(d2) <= r * 1.0001f + 1e-6f * c->scale;
}

static void apply_block(const strata_edit_surface *s, const place *p, float *h, size_t n)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = p[i].u[a] < lo[a] ? p[i].u[a] : lo[a];
            hi[a] = p[i].u[a] > hi[a] ? p[i].u[a] : hi[a];
        }
    float acc[BLOCK];
    memset(acc, 0, sizeof acc);
    const uint64_t ne = strata_edits_count(s->edits);
    for (uint64_t k = 0; k < ne; k++) {
        strata_edit e;
        strata_edits_get(s->edits, k, &e);
        centre c;
        centre_of(s, &e, &c);
        if (!reaches(&c, e.radius, lo, hi))
            continue;
        const int add = e.brush != STRATA_BRUSH_SMOOTH && e.brush != STRATA_BRUSH_TERRACE;
        for (size_t i = 0; i < n; i++) {
            const float d = dist(&p[i], &c);
            if (!(d < e.radius))
                continue;
            if (add) {
                acc[i] += additive(&e, &p[i], &c, d);
                continue;
            }
            if (acc[i] != 0.0f) /* the offsets so far, before a brush that reads h */
                h[i] += acc[i], acc[i] = 0.0f;
            const float f = e.strength * falloff(d, e.radius);
            if (e.brush == STRATA_BRUSH_SMOOTH)
                h[i] += f * smooth_delta(s, k, &e, &p[i]);
            else
                h[i] += f * (nearest_plane(s, h[i]) - h[i]);
        }
    }
    for (size_t i = 0; i < n; i++)
        if (acc[i] != 0.0f)
            h[i] += acc[i];
}

void strata__edits_height_fn(void *user, const float *x, const float *y, const float *z,
                             float *h, size_t n)
{
    const strata_edit_surface *s = user;
    if (!s || !s->edits || !strata_edits_count(s->edits))
        return;
    place p[BLOCK];
    for (size_t b = 0; b < n; b += BLOCK) {
        const size_t m = n - b < BLOCK ? n - b : BLOCK;
        for (size_t i = 0; i < m; i++)
            place_of(s, x[b + i], y[b + i], z[b + i], &p[i]);
        apply_block(s, p, h + b, m);
    }
}

void strata__mesh_move_to_heights(strata_mesh *m, const float *before)
{
    const float *c = m->center;
    for (uint32_t i = 0; i < m->nverts; i++) {
        if (!memcmp(&before[i], &m->h[i], sizeof(float)))
            continue;
        if (m->geometry == STRATA_FLAT) {
            m->y[i] = m->h[i];
            continue;
        }
        const float dx = m->x[i] - c[0], dy = m->y[i] - c[1], dz = m->z[i] - c[2];
        const float sc = (m->radius + m->h[i]) / sqrtf(dx * dx + dy * dy + dz * dz);
        m->x[i] = c[0] + dx * sc;
        m->y[i] = c[1] + dy * sc;
        m->z[i] = c[2] + dz * sc;
    }
}

strata_status strata_mesh_apply_edits(strata_ctx *ctx, strata_mesh *m, const strata_edits *e,
                                      const strata_fbm *noise, const strata_curve *curve,
                                      const float *levels, uint32_t nlevels)
{
    if (!ctx || !m || !e || (nlevels && !levels) || (noise && strata_fbm_validate(noise)))
        return STRATA_ERR_INVALID_ARG;
    if (m->geometry == STRATA_RADIAL &&
        (m->center[0] != 0.0f || m->center[1] != 0.0f || m->center[2] != 0.0f))
        return STRATA_ERR_INVALID_ARG; /* planets about the origin */
    strata_edit_surface s = {.edits = e, .radial = m->geometry == STRATA_RADIAL,
                             .radius = m->radius, .has_noise = noise != NULL,
                             .curve = strata__curve_is_identity(curve) ? NULL : curve,
                             .levels = levels, .nlevels = nlevels};
    if (noise)
        s.fbm = *noise;
    float *before = malloc((size_t)m->nverts * sizeof *before + 1);
    if (!before)
        return STRATA_ERR_NOMEM;
    memcpy(before, m->h, (size_t)m->nverts * sizeof *before);
    strata__edits_height_fn(&s, m->x, m->y, m->z, m->h, m->nverts);
    strata__mesh_move_to_heights(m, before);
    free(before);
    return STRATA_OK;
}
