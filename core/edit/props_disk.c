/* Props spaced like a painter would (strata_props_options.spacing and
 * wall_foot; core/edit/props.c calls these).
 *
 *   lattice  one candidate per cell of a lattice fixed in space, cells
 *            h = D / sqrt 2 wide (terrains: x, z; planets: 3D cells about
 *            the centre, a candidate only where its jittered point is
 *            within h / 2 of the sphere of radius rs, projected onto it);
 *            its point, priority and whether it is live (the density and
 *            the noise) are hashes of the seed and the cell, nothing else
 *   rounds   STRATA_PROPS_ROUNDS rounds of: a live candidate whose
 *            priority beats every live one within D is kept; the ones
 *            within D of a kept one die.  Round r's answer for a
 *            candidate reads the candidates within r x D, memoised in a
 *            hash table of the cells met, so a candidate's fate is the
 *            same whatever region (tile, whole mesh) asks for it
 *   props    the kept candidates lying on a chosen roof triangle
 *   foot     props within wall_foot of a wall's base dropped, the bases
 *            bucketed in a grid of wall_foot cells
 *
 * All of it runs on one thread in a fixed order, so the bytes are the
 * same for any thread count and ISA (no SIMD: plain double arithmetic). */
#define _POSIX_C_SOURCE 200809L
#include "base/alloc.h"
#include "base/ctx.h"
#include "edit/props.h"
#include "mesh/result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cand {
    int64_t i, j, k;
    double p[3]; /* terrains: x, z; planets: on the rs sphere, about the centre */
    uint64_t prio;
    uint8_t valid, taken;
    uint8_t known, acc, dead; /* bit r: round r's answer known / yes */
} cand;

typedef struct disk {
    const strata_allocator *al;
    const strata_props_options *o;
    int radial;
    double h, d, rs;
    double keep;
    float center[3];
    cand *c;
    uint32_t n, cap;
    uint32_t *slot; /* index + 1, 0: empty */
    uint64_t mask;
    int nomem;
} disk;

#define NEAR_MAX 343

static uint64_t cell_hash(uint32_t seed, int64_t i, int64_t j, int64_t k)
{
    return strata__props_mix(strata__props_mix(strata__props_mix((uint64_t)seed ^
                                                                 0x5d1c0ffee5eedull) ^
                                               (uint64_t)i) ^
                             (uint64_t)j) ^
           (uint64_t)k;
}

static double unit(uint64_t h, unsigned what)
{
    return (double)(strata__props_mix(h + what) >> 11) * (1.0 / 9007199254740992.0);
}

static void generate(const disk *s, cand *c)
{
    const uint64_t h = strata__props_mix(cell_hash(s->o->seed, c->i, c->j, c->k));
    c->prio = strata__props_mix(h ^ 0x9e37ull);
    c->valid = 0;
    c->known = c->acc = c->dead = c->taken = 0;
    double w;
    if (!s->radial) {
        c->p[0] = ((double)c->i + unit(h, 1)) * s->h;
        c->p[1] = ((double)c->j + unit(h, 2)) * s->h;
        c->p[2] = 0;
        w = strata__props_weight(STRATA_FLAT, s->o, c->p[0], 0, c->p[1]);
    } else {
        const double q[3] = {((double)c->i + unit(h, 1)) * s->h, ((double)c->j + unit(h, 2)) * s->h,
                             ((double)c->k + unit(h, 3)) * s->h};
        const double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        if (!(fabs(len - s->rs) < 0.5 * s->h))
            return;
        for (int a = 0; a < 3; a++)
            c->p[a] = q[a] * (s->rs / len);
        w = strata__props_weight(STRATA_RADIAL, s->o, s->center[0] + c->p[0],
                                 s->center[1] + c->p[1], s->center[2] + c->p[2]);
    }
    c->valid = unit(h, 4) < s->keep * w;
}

static int grow(disk *s)
{
    const uint64_t cap = s->mask ? 2 * (s->mask + 1) : 4096;
    uint32_t *slot = strata__alloc_array(s->al, (size_t)cap, sizeof *slot);
    cand *c = strata__alloc_array(s->al, (size_t)cap / 2, sizeof *c);
    if (!slot || !c || cap / 2 > UINT32_MAX) {
        strata__free(s->al, slot);
        strata__free(s->al, c);
        return 0;
    }
    memset(slot, 0, (size_t)cap * sizeof *slot);
    if (s->n)
        memcpy(c, s->c, (size_t)s->n * sizeof *c);
    for (uint32_t x = 0; x < s->n; x++) {
        uint64_t at = cell_hash(0, c[x].i, c[x].j, c[x].k) & (cap - 1);
        while (slot[at])
            at = (at + 1) & (cap - 1);
        slot[at] = x + 1;
    }
    strata__free(s->al, s->slot);
    strata__free(s->al, s->c);
    s->slot = slot;
    s->c = c;
    s->mask = cap - 1;
    s->cap = (uint32_t)(cap / 2);
    return 1;
}

/* The candidate of cell (i, j, k), made when first met; UINT32_MAX out
 * of memory. */
static uint32_t get(disk *s, int64_t i, int64_t j, int64_t k)
{
    if (s->nomem || (s->n >= s->cap && !grow(s))) {
        s->nomem = 1;
        return UINT32_MAX;
    }
    uint64_t at = cell_hash(0, i, j, k) & s->mask;
    for (uint32_t x; (x = s->slot[at]); at = (at + 1) & s->mask)
        if (s->c[x - 1].i == i && s->c[x - 1].j == j && s->c[x - 1].k == k)
            return x - 1;
    const uint32_t x = s->n++;
    s->slot[at] = x + 1;
    s->c[x].i = i;
    s->c[x].j = j;
    s->c[x].k = k;
    generate(s, &s->c[x]);
    return x;
}

static double dist2(const double a[3], const double b[3])
{
    const double u = a[0] - b[0], v = a[1] - b[1], w = a[2] - b[2];
    return u * u + v * v + w * w;
}

/* The live candidates closer than D to candidate x (not x), into nb. */
static int near(disk *s, uint32_t x, uint32_t nb[NEAR_MAX])
{
    const double r = s->d + (s->radial ? 0.5 * s->h : 0.0);
    const int dims = s->radial ? 3 : 2;
    int64_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    double p[3];
    memcpy(p, s->c[x].p, sizeof p);
    for (int a = 0; a < dims; a++) {
        lo[a] = (int64_t)floor((p[a] - r) / s->h);
        hi[a] = (int64_t)floor((p[a] + r) / s->h);
    }
    int n = 0;
    for (int64_t i = lo[0]; i <= hi[0]; i++)
        for (int64_t j = lo[1]; j <= hi[1]; j++)
            for (int64_t k = lo[2]; k <= hi[2]; k++) {
                const uint32_t y = get(s, i, j, k);
                if (y == UINT32_MAX || y == x || !s->c[y].valid)
                    continue;
                if (dist2(s->c[y].p, p) < s->d * s->d && n < NEAR_MAX)
                    nb[n++] = y;
            }
    return n;
}

/* Whether y's priority beats x's (ties by cell, never equal). */
static int beats(const disk *s, uint32_t y, uint32_t x)
{
    const cand *a = &s->c[y], *b = &s->c[x];
    if (a->prio != b->prio)
        return a->prio > b->prio;
    if (a->i != b->i)
        return a->i > b->i;
    return a->j != b->j ? a->j > b->j : a->k > b->k;
}

static int dead(disk *s, uint32_t x, int r);

/* Whether x is kept by the end of round r. */
static int kept(disk *s, uint32_t x, int r)
{
    if (r == 0)
        return 0;
    if (s->c[x].known >> r & 1)
        return s->c[x].acc >> r & 1;
    int a = 0;
    if (kept(s, x, r - 1))
        a = 1;
    else if (s->c[x].valid && !dead(s, x, r - 1)) {
        uint32_t nb[NEAR_MAX];
        const int n = near(s, x, nb);
        a = 1;
        for (int i = 0; i < n && a; i++)
            if (beats(s, nb[i], x) && !dead(s, nb[i], r - 1))
                a = 0;
    }
    s->c[x].known |= (uint8_t)(1u << r);
    s->c[x].acc |= (uint8_t)(a << r);
    return a;
}

/* Whether x or a candidate within D of it is kept by the end of round r. */
static int dead(disk *s, uint32_t x, int r)
{
    if (r == 0)
        return 0;
    const unsigned bit = 1u << (3 + r);
    if (s->c[x].known & bit)
        return (s->c[x].dead & bit) != 0;
    int a = kept(s, x, r);
    if (!a) {
        uint32_t nb[NEAR_MAX];
        const int n = near(s, x, nb);
        for (int i = 0; i < n && !a; i++)
            a = kept(s, nb[i], r);
    }
    s->c[x].known |= (uint8_t)bit;
    s->c[x].dead |= (uint8_t)(a ? bit : 0);
    return a;
}

/* A point of the triangle at index position t for candidate c, in q
 * (world coordinates): terrains where its x, z falls in the triangle's,
 * planets where the ray from the centre through it meets it. */
static int on_triangle(const disk *s, const strata_result *r, uint64_t t, const cand *c,
                       double level, double q[3])
{
    double v[3][3];
    for (int k = 0; k < 3; k++) {
        const uint32_t i = r->indices[t + (uint64_t)k];
        v[k][0] = r->x[i];
        v[k][1] = r->y[i];
        v[k][2] = r->z[i];
    }
    if (!s->radial) {
        const double x = c->p[0], z = c->p[1];
        double e[3];
        for (int k = 0; k < 3; k++) {
            const double *a = v[k], *b = v[(k + 1) % 3];
            e[k] = (b[0] - a[0]) * (z - a[2]) - (b[2] - a[2]) * (x - a[0]);
        }
        if (!((e[0] >= 0 && e[1] >= 0 && e[2] >= 0) || (e[0] <= 0 && e[1] <= 0 && e[2] <= 0)) ||
            (e[0] == 0 && e[1] == 0 && e[2] == 0))
            return 0;
        q[0] = x;
        q[1] = level;
        q[2] = z;
        return 1;
    }
    /* Moller-Trumbore from the centre along c->p */
    double o[3], e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        o[k] = s->center[k];
        e1[k] = v[1][k] - v[0][k];
        e2[k] = v[2][k] - v[0][k];
    }
    const double *d = c->p;
    const double pv[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2],
                          d[0] * e2[1] - d[1] * e2[0]};
    const double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
    if (det == 0)
        return 0;
    const double tv[3] = {o[0] - v[0][0], o[1] - v[0][1], o[2] - v[0][2]};
    const double u = (tv[0] * pv[0] + tv[1] * pv[1] + tv[2] * pv[2]) / det;
    const double qv[3] = {tv[1] * e1[2] - tv[2] * e1[1], tv[2] * e1[0] - tv[0] * e1[2],
                          tv[0] * e1[1] - tv[1] * e1[0]};
    const double w = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) / det;
    const double f = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) / det;
    if (!(u >= 0 && w >= 0 && u + w <= 1 && f > 0))
        return 0;
    for (int k = 0; k < 3; k++)
        q[k] = o[k] + f * d[k];
    return 1;
}

/* The cells a roof triangle's candidates can come from. */
static void triangle_cells(const disk *s, const strata_result *r, uint64_t t, int64_t lo[3],
                           int64_t hi[3])
{
    double mn[3] = {INFINITY, INFINITY, INFINITY}, mx[3] = {-INFINITY, -INFINITY, -INFINITY};
    double q[3][3], edge = 0;
    for (int k = 0; k < 3; k++) {
        const uint32_t i = r->indices[t + (uint64_t)k];
        q[k][0] = r->x[i] - (double)s->center[0];
        q[k][1] = r->y[i] - (double)s->center[1];
        q[k][2] = r->z[i] - (double)s->center[2];
        if (!s->radial) {
            q[k][1] = q[k][2];
            q[k][2] = 0;
        } else {
            const double len = sqrt(q[k][0] * q[k][0] + q[k][1] * q[k][1] + q[k][2] * q[k][2]);
            for (int a = 0; a < 3; a++)
                q[k][a] = len > 0 ? q[k][a] * (s->rs / len) : 0;
        }
    }
    for (int k = 0; k < 3; k++) {
        edge = fmax(edge, sqrt(dist2(q[k], q[(k + 1) % 3])));
        for (int a = 0; a < 3; a++) {
            mn[a] = fmin(mn[a], q[k][a]);
            mx[a] = fmax(mx[a], q[k][a]);
        }
    }
    /* planets: the arc bulges past the chord, the candidate sits within h / 2 */
    const double m = s->radial ? 0.5 * edge + s->h : 0.0;
    for (int a = 0; a < 3; a++) {
        lo[a] = a < 2 || s->radial ? (int64_t)floor((mn[a] - m) / s->h) : 0;
        hi[a] = a < 2 || s->radial ? (int64_t)floor((mx[a] + m) / s->h) : 0;
    }
}

static double triangle_area(const strata_result *r, uint64_t t)
{
    double p[3][3], n[3];
    strata__props_triangle(r, t, p, n);
    return 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
}

typedef struct rec {
    float q[3];
    uint32_t terrace;
    uint64_t h; /* the cell's hash: yaw, scale, kind */
} rec;

typedef struct recs {
    const strata_allocator *al;
    rec *a;
    uint64_t n, cap;
} recs;

static int push(recs *v, const double q[3], uint32_t terrace, uint64_t h)
{
    if (v->n == v->cap) {
        const uint64_t cap = v->cap ? 2 * v->cap : 1024;
        rec *a = strata__alloc_array(v->al, (size_t)cap, sizeof *a);
        if (!a)
            return 0;
        if (v->n)
            memcpy(a, v->a, (size_t)v->n * sizeof *a);
        strata__free(v->al, v->a);
        v->a = a;
        v->cap = cap;
    }
    rec *e = &v->a[v->n++];
    for (int k = 0; k < 3; k++)
        e->q[k] = (float)q[k];
    e->terrace = terrace;
    e->h = h;
    return 1;
}

/* The kept candidates on roof triangle t of terrace k, appended to v. */
static int triangle_props(disk *s, const strata_result *r, uint64_t t, uint32_t k, recs *v)
{
    int64_t lo[3], hi[3];
    triangle_cells(s, r, t, lo, hi);
    for (int64_t i = lo[0]; i <= hi[0]; i++)
        for (int64_t j = lo[1]; j <= hi[1]; j++)
            for (int64_t l = lo[2]; l <= hi[2]; l++) {
                const uint32_t x = get(s, i, j, l);
                if (x == UINT32_MAX)
                    return 0;
                double q[3];
                if (!s->c[x].valid || s->c[x].taken ||
                    !on_triangle(s, r, t, &s->c[x], r->terraces[k].level, q))
                    continue;
                s->c[x].taken = 1;
                if (kept(s, x, STRATA_PROPS_ROUNDS) &&
                    !push(v, q, k, cell_hash(s->o->seed, i, j, l)))
                    return 0;
                if (s->nomem)
                    return 0;
            }
    return 1;
}

static strata_status fill(const disk *s, const strata_result *r, const recs *v, strata_props *p)
{
    float **f[8] = {&p->x, &p->y, &p->z, &p->ux, &p->uy, &p->uz, &p->yaw, &p->scale};
    const size_t n = v->n ? (size_t)v->n : 1;
    for (int i = 0; i < 8; i++)
        if (!(*f[i] = strata__alloc_array(&p->alloc, n, sizeof(float))))
            return STRATA_ERR_NOMEM;
    if (!(p->kind = strata__alloc_array(&p->alloc, n, 1)) ||
        !(p->terrace = strata__alloc_array(&p->alloc, n, sizeof *p->terrace)))
        return STRATA_ERR_NOMEM;
    const strata_props_options *o = s->o;
    for (uint64_t w = 0; w < v->n; w++) {
        const rec *e = &v->a[w];
        p->x[w] = e->q[0];
        p->y[w] = e->q[1];
        p->z[w] = e->q[2];
        if (!s->radial) {
            p->ux[w] = 0.0f;
            p->uy[w] = 1.0f;
            p->uz[w] = 0.0f;
        } else {
            const double d[3] = {(double)e->q[0] - r->center[0], (double)e->q[1] - r->center[1],
                                 (double)e->q[2] - r->center[2]};
            const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            p->ux[w] = (float)(d[0] / len);
            p->uy[w] = (float)(d[1] / len);
            p->uz[w] = (float)(d[2] / len);
        }
        p->yaw[w] = (float)(unit(e->h, 11) * 6.283185307179586);
        p->scale[w] = (float)(o->min_scale + (o->max_scale - o->min_scale) * unit(e->h, 12));
        p->kind[w] = unit(e->h, 13) < o->rock_share ? STRATA_PROP_ROCK : STRATA_PROP_TREE;
        p->terrace[w] = e->terrace;
    }
    p->count = v->n;
    return STRATA_OK;
}

strata_status strata__props_disk(strata_ctx *ctx, const strata_result *r,
                                 const strata_props_options *o, uint32_t first, uint32_t last,
                                 strata_props *p)
{
    disk s;
    memset(&s, 0, sizeof s);
    s.al = &ctx->alloc;
    s.o = o;
    s.radial = r->geometry == STRATA_RADIAL;
    s.d = o->spacing;
    s.h = o->spacing / sqrt(2.0);
    s.keep = o->density * s.h * s.h;
    if (s.radial) {
        memcpy(s.center, r->center, sizeof s.center);
        s.rs = 0.99 * ((double)r->radius + r->terraces[first].level);
        if (!(s.rs > 0))
            return STRATA_ERR_INVALID_ARG;
        if (!(s.rs / s.h < 1e15))
            return STRATA_ERR_OVERFLOW;
    }
    /* the candidates met: about the roofs' area over h^2 (a chord's
     * area on planets), with the rounds' ring around */
    double area = 0;
    for (uint32_t k = first; k <= last; k++)
        for (uint64_t i = 0; i + 3 <= r->terraces[k].roof_count; i += 3)
            area += triangle_area(r, r->terraces[k].roof_first + i);
    if (!(area / (s.h * s.h) < 4e9))
        return STRATA_ERR_OVERFLOW;
    recs v = {.al = s.al};
    strata_status st = STRATA_OK;
    for (uint32_t k = first; k <= last && st == STRATA_OK; k++) {
        if (!strata__props_terrace_ok(r, o, k))
            continue;
        const strata_terrace *t = &r->terraces[k];
        for (uint64_t i = 0; i + 3 <= t->roof_count && st == STRATA_OK; i += 3) {
            const uint64_t at = t->roof_first + i;
            if (strata__props_roof_ok(r, o, at) && !triangle_props(&s, r, at, k, &v))
                st = STRATA_ERR_NOMEM;
            if (st == STRATA_OK && v.n > UINT32_MAX)
                st = STRATA_ERR_OVERFLOW;
        }
        if (st == STRATA_OK)
            st = strata__progress(ctx, "props", (double)(k - first + 1) / (last - first + 2));
    }
    if (st == STRATA_OK)
        st = fill(&s, r, &v, p);
    strata__free(s.al, v.a);
    strata__free(s.al, s.c);
    strata__free(s.al, s.slot);
    return st;
}

/* ---- the wall foot ---------------------------------------------------- */

typedef struct bucket {
    uint64_t key;
    uint32_t seg;
} bucket;

static int bucket_cmp(const void *a, const void *b)
{
    const bucket *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->seg < y->seg ? -1 : x->seg > y->seg;
}

static double height_of(const strata_result *r, const float v[3])
{
    if (r->geometry != STRATA_RADIAL)
        return v[1];
    const double d[3] = {(double)v[0] - r->center[0], (double)v[1] - r->center[1],
                         (double)v[2] - r->center[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* The bases of r's walls as segments (6 floats: two ends; a wall
 * triangle with one corner at its lowest height gives that point
 * twice), appended to *segs (grown with al).  The lowest corners are
 * those within 1/1000 of the triangle's height of its lowest. */
strata_status strata__props_wall_bases(const strata_allocator *al, const strata_result *r,
                                       float **segs, uint64_t *nsegs)
{
    uint64_t n = 0;
    for (uint32_t k = 0; k < r->nterraces; k++)
        n += r->terraces[k].wall_count / 3;
    float *s = strata__alloc_array(al, (size_t)(*nsegs + n) * 6 + 6, sizeof *s);
    if (!s)
        return STRATA_ERR_NOMEM;
    if (*nsegs)
        memcpy(s, *segs, (size_t)*nsegs * 6 * sizeof *s);
    strata__free(al, *segs);
    *segs = s;
    for (uint32_t k = 0; k < r->nterraces; k++) {
        const strata_terrace *t = &r->terraces[k];
        for (uint64_t i = 0; i + 3 <= t->wall_count; i += 3) {
            float v[3][3];
            double h[3], lo = INFINITY, hi = -INFINITY;
            for (int c = 0; c < 3; c++) {
                const uint32_t x = r->indices[t->wall_first + i + (uint64_t)c];
                v[c][0] = r->x[x];
                v[c][1] = r->y[x];
                v[c][2] = r->z[x];
                h[c] = height_of(r, v[c]);
                lo = fmin(lo, h[c]);
                hi = fmax(hi, h[c]);
            }
            if (!(hi > lo))
                continue;
            float *e = s + 6 * *nsegs;
            int m = 0;
            for (int c = 0; c < 3 && m < 2; c++)
                if (h[c] <= lo + 1e-3 * (hi - lo))
                    memcpy(e + 3 * m++, v[c], sizeof v[c]);
            if (m == 1)
                memcpy(e + 3, e, 3 * sizeof *e);
            ++*nsegs;
        }
    }
    return STRATA_OK;
}

static double seg_dist2(const float *s, const double p[3])
{
    double a[3], ab[3], ap[3], l = 0, t = 0;
    for (int k = 0; k < 3; k++) {
        a[k] = s[k];
        ab[k] = (double)s[3 + k] - s[k];
        ap[k] = p[k] - a[k];
        l += ab[k] * ab[k];
        t += ab[k] * ap[k];
    }
    t = l > 0 ? fmin(1.0, fmax(0.0, t / l)) : 0.0;
    double d = 0;
    for (int k = 0; k < 3; k++) {
        const double e = ap[k] - t * ab[k];
        d += e * e;
    }
    return d;
}

static uint64_t foot_key(int64_t i, int64_t j, int64_t k)
{
    return cell_hash(7, i, j, k);
}

/* The buckets: every cell (wall_foot wide) a segment's box grown by
 * wall_foot meets, sorted by cell. */
static strata_status foot_buckets(const strata_allocator *al, const float *segs, uint64_t n,
                                  double g, bucket **out, uint64_t *nout)
{
    uint64_t m = 0, cap = 0;
    bucket *b = NULL;
    for (uint64_t i = 0; i < n; i++) {
        int64_t lo[3], hi[3];
        for (int a = 0; a < 3; a++) {
            const double u = fmin(segs[6 * i + a], segs[6 * i + 3 + a]) - g;
            const double v = fmax(segs[6 * i + a], segs[6 * i + 3 + a]) + g;
            if (!(fabs(u) / g < 1e15 && fabs(v) / g < 1e15 && (v - u) / g < 1e6)) {
                strata__free(al, b);
                return STRATA_ERR_OVERFLOW;
            }
            lo[a] = (int64_t)floor(u / g);
            hi[a] = (int64_t)floor(v / g);
        }
        for (int64_t x = lo[0]; x <= hi[0]; x++)
            for (int64_t y = lo[1]; y <= hi[1]; y++)
                for (int64_t z = lo[2]; z <= hi[2]; z++) {
                    if (m == cap) {
                        cap = cap ? 2 * cap : 1024;
                        bucket *nb = strata__alloc_array(al, (size_t)cap, sizeof *nb);
                        if (!nb) {
                            strata__free(al, b);
                            return STRATA_ERR_NOMEM;
                        }
                        if (m)
                            memcpy(nb, b, (size_t)m * sizeof *nb);
                        strata__free(al, b);
                        b = nb;
                    }
                    b[m].key = foot_key(x, y, z);
                    b[m++].seg = (uint32_t)i;
                }
    }
    if (m)
        qsort(b, (size_t)m, sizeof *b, bucket_cmp);
    *out = b;
    *nout = m;
    return STRATA_OK;
}

/* Whether p is within g of a segment. */
static int near_wall(const float *segs, const bucket *b, uint64_t m, double g, const double p[3])
{
    const uint64_t key = foot_key((int64_t)floor(p[0] / g), (int64_t)floor(p[1] / g),
                                  (int64_t)floor(p[2] / g));
    uint64_t lo = 0, hi = m;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (b[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < m && b[lo].key == key; lo++)
        if (seg_dist2(segs + 6 * (uint64_t)b[lo].seg, p) < g * g)
            return 1;
    return 0;
}

strata_status strata__props_foot(const strata_allocator *al, strata_props *p, double foot,
                                 const float *segs, uint64_t nsegs)
{
    if (!(foot > 0) || !p->count)
        return STRATA_OK;
    if (nsegs > UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    bucket *b = NULL;
    uint64_t m = 0;
    strata_status st = foot_buckets(al, segs, nsegs, foot, &b, &m);
    if (st != STRATA_OK)
        return st;
    uint64_t w = 0;
    for (uint64_t i = 0; i < p->count; i++) {
        const double q[3] = {p->x[i], p->y[i], p->z[i]};
        if (fabs(q[0]) / foot < 1e15 && fabs(q[1]) / foot < 1e15 && fabs(q[2]) / foot < 1e15 &&
            near_wall(segs, b, m, foot, q))
            continue;
        p->x[w] = p->x[i];
        p->y[w] = p->y[i];
        p->z[w] = p->z[i];
        p->ux[w] = p->ux[i];
        p->uy[w] = p->uy[i];
        p->uz[w] = p->uz[i];
        p->yaw[w] = p->yaw[i];
        p->scale[w] = p->scale[i];
        p->kind[w] = p->kind[i];
        p->terrace[w] = p->terrace[i];
        w++;
    }
    p->count = w;
    strata__free(al, b);
    return STRATA_OK;
}
