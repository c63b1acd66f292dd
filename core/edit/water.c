/* Water and shorelines at a height: surfaces of their own appended to a
 * result (strata_result_add_water, strata_result_add_shoreline). */
#include "base/alloc.h"
#include "base/ctx.h"
#include "edit/water.h"
#include "mesh/mesh.h"
#include "loops/loops.h"
#include "mesh/result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The y of (b - a) x (c - b) for the outline's points a, b, c = i, i + 1,
 * i + 2 (x, z pairs, cyclic): positive where a triangle a, b, c faces up
 * (+y), counter-clockwise on the map (X = x, Y = -z). */
static double turn(const float *p, uint32_t n, uint32_t i)
{
    const uint32_t a = i, b = (i + 1) % n, c = (i + 2) % n;
    const double ux = (double)p[2 * b] - p[2 * a], uz = (double)p[2 * b + 1] - p[2 * a + 1];
    const double vx = (double)p[2 * c] - p[2 * b], vz = (double)p[2 * c + 1] - p[2 * b + 1];
    return uz * vx - ux * vz; /* the y of (u x v): > 0 turns up-facing */
}

/* The flat water: the convex outline fanned from its first point. */
static strata_status flat_water(strata_result *r, float level, const float *outline, uint32_t n)
{
    float rect[8];
    if (!outline) {
        if (!r->nverts)
            return STRATA_ERR_INVALID_ARG;
        float lo[2] = {r->x[0], r->z[0]}, hi[2] = {r->x[0], r->z[0]};
        for (uint32_t i = 1; i < r->nverts; i++) {
            lo[0] = fminf(lo[0], r->x[i]);
            hi[0] = fmaxf(hi[0], r->x[i]);
            lo[1] = fminf(lo[1], r->z[i]);
            hi[1] = fmaxf(hi[1], r->z[i]);
        }
        const float q[8] = {lo[0], lo[1], hi[0], lo[1], hi[0], hi[1], lo[0], hi[1]};
        memcpy(rect, q, sizeof rect);
        outline = rect;
        n = 4;
    }
    if (n < 3)
        return STRATA_ERR_INVALID_ARG;
    int sign = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!isfinite(outline[2 * i]) || !isfinite(outline[2 * i + 1]))
            return STRATA_ERR_INVALID_ARG;
        const double t = turn(outline, n, i);
        const int s = (t > 0) - (t < 0);
        if (s == 0 || (sign && s != sign))
            return STRATA_ERR_INVALID_ARG; /* not strictly convex */
        sign = s;
    }
    const uint64_t nv = (uint64_t)r->nverts + n, ni = r->nindices + 3 * (uint64_t)(n - 2);
    strata_status st = strata__result_grow(r, nv, ni);
    if (st != STRATA_OK)
        return st;
    const uint32_t v0 = r->nverts;
    for (uint32_t i = 0; i < n; i++) {
        r->x[v0 + i] = outline[2 * i];
        r->y[v0 + i] = level;
        r->z[v0 + i] = outline[2 * i + 1];
        if (r->nx) {
            r->nx[v0 + i] = 0.0f;
            r->ny[v0 + i] = 1.0f;
            r->nz[v0 + i] = 0.0f;
        }
    }
    uint32_t *ix = r->indices + r->nindices;
    for (uint32_t i = 1; i + 1 < n; i++, ix += 3) {
        ix[0] = v0;
        ix[1] = v0 + (sign > 0 ? i : i + 1);
        ix[2] = v0 + (sign > 0 ? i + 1 : i);
    }
    r->water_first = r->nindices;
    r->water_count = ni - r->nindices;
    r->nverts = (uint32_t)nv;
    r->nindices = ni;
    return STRATA_OK;
}

/* m's vertices (about the origin, at `radius`) and triangles appended to
 * r as its water, r's centre added; radial normals when r has normals. */
static strata_status append_water(strata_result *r, const strata_mesh *m, float radius)
{
    const uint64_t nv = (uint64_t)r->nverts + m->nverts, ni = r->nindices + 3 * (uint64_t)m->ntris;
    const strata_status st = strata__result_grow(r, nv, ni);
    if (st != STRATA_OK)
        return st;
    const uint32_t v0 = r->nverts;
    for (uint32_t i = 0; i < m->nverts; i++) {
        r->x[v0 + i] = m->x[i] + r->center[0];
        r->y[v0 + i] = m->y[i] + r->center[1];
        r->z[v0 + i] = m->z[i] + r->center[2];
        if (r->nx) {
            r->nx[v0 + i] = m->x[i] / radius;
            r->ny[v0 + i] = m->y[i] / radius;
            r->nz[v0 + i] = m->z[i] / radius;
        }
    }
    uint32_t *ix = r->indices + r->nindices;
    for (uint32_t t = 0; t < m->ntris; t++, ix += 3) {
        ix[0] = v0 + m->a[t];
        ix[1] = v0 + m->b[t];
        ix[2] = v0 + m->c[t];
    }
    r->water_first = r->nindices;
    r->water_count = ni - r->nindices;
    r->nverts = (uint32_t)nv;
    r->nindices = ni;
    return STRATA_OK;
}

/* The planet's water: an icosphere of radius + level about the centre. */
static strata_status sphere_water(strata_ctx *ctx, strata_result *r, float level,
                                  uint32_t sphere_level)
{
    const float radius = r->radius + level;
    if (!(radius > 0) || !isfinite(radius) || sphere_level > STRATA_WATER_SPHERE_LEVEL_MAX)
        return STRATA_ERR_INVALID_ARG;
    strata_mesh *m;
    strata_status st = strata_shape_icosphere(ctx, (int)sphere_level, radius, &m);
    if (st == STRATA_OK)
        st = append_water(r, m, radius);
    strata_mesh_destroy(m);
    return st;
}

strata_status strata__result_add_water_part(strata_ctx *ctx, strata_result *r, float level,
                                            const strata_mesh *part)
{
    const float radius = r ? r->radius + level : 0.0f;
    if (!ctx || !r || !part || r->water_count || r->geometry != STRATA_RADIAL ||
        !isfinite(level) || !(radius > 0) || !isfinite(radius))
        return STRATA_ERR_INVALID_ARG;
    return append_water(r, part, radius);
}

strata_status strata_result_add_water(strata_ctx *ctx, strata_result *r, float level,
                                      const float *outline, uint32_t npoints,
                                      uint32_t sphere_level)
{
    if (!ctx || !r || r->water_count || !isfinite(level))
        return STRATA_ERR_INVALID_ARG;
    return r->geometry == STRATA_RADIAL ? sphere_water(ctx, r, level, sphere_level)
                                        : flat_water(r, level, outline, npoints);
}

/* ------------------------------------------------------------ shorelines */

/* The unit direction, in double, on the water side (the left, seen from
 * above or outside) of the segment a -> b, at point a: FLAT in the x, z
 * plane; RADIAL tangent to the sphere at a (n x (b - a), n the unit
 * radial at a).  0 for a segment of no length. */
static int side_of(const strata_loops *l, uint64_t a, uint64_t b, const double n[3],
                   double out[3])
{
    const double d[3] = {(double)l->x[b] - l->x[a], (double)l->y[b] - l->y[a],
                         (double)l->z[b] - l->z[a]};
    if (l->geometry == STRATA_RADIAL) {
        out[0] = n[1] * d[2] - n[2] * d[1];
        out[1] = n[2] * d[0] - n[0] * d[2];
        out[2] = n[0] * d[1] - n[1] * d[0];
    } else {
        out[0] = d[2]; /* north = -z: map (X, Y) = (x, -z), left (-dY, dX) */
        out[1] = 0.0;
        out[2] = -d[0];
    }
    const double len = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
    if (!(len > 0))
        return 0;
    for (int c = 0; c < 3; c++)
        out[c] /= len;
    return 1;
}

/* Where a ribbon's outer points go, per point k of a polyline: the up
 * (FLAT +y, RADIAL the unit radial), the unit side the outer point lies
 * towards, and how far (at most the width). */
typedef struct reach {
    double up[3], side[3], d;
} reach;

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* Each point's up and side: the bisector of the sides of the segments
 * before and after it, so the side is on the water side of both (a
 * hairpin, whose sides cancel, keeps the side before it). */
static void ribbon_sides(const strata_loops *l, const strata_loop *lp, reach *rc)
{
    const uint32_t n = lp->count;
    double prev_side[3] = {0, 0, 0};
    for (uint32_t k = 0; k < n; k++) {
        const uint64_t p = lp->first + k;
        double *nrm = rc[k].up, *s = rc[k].side;
        nrm[0] = nrm[2] = 0.0;
        nrm[1] = 1.0;
        if (l->geometry == STRATA_RADIAL) {
            const double d[3] = {(double)l->x[p] - l->center[0], (double)l->y[p] - l->center[1],
                                 (double)l->z[p] - l->center[2]};
            const double len = sqrt(dot3(d, d));
            for (int c = 0; c < 3; c++)
                nrm[c] = d[c] / len;
        }
        double t[3];
        int have = 0;
        s[0] = s[1] = s[2] = 0.0;
        if (lp->closed || k > 0)
            if (side_of(l, lp->first + (k + n - 1) % n, p, nrm, t)) {
                for (int c = 0; c < 3; c++)
                    s[c] += t[c];
                have = 1;
            }
        if (lp->closed || k + 1 < n)
            if (side_of(l, p, lp->first + (k + 1) % n, nrm, t)) {
                for (int c = 0; c < 3; c++)
                    s[c] += t[c];
                have = 1;
            }
        const double up = dot3(s, nrm); /* RADIAL: keep it tangent */
        for (int c = 0; c < 3; c++)
            s[c] -= up * nrm[c];
        double len = sqrt(dot3(s, s));
        if (!have || !(len > 1e-12)) { /* a hairpin or no length: as before */
            memcpy(s, prev_side, sizeof prev_side);
            len = sqrt(dot3(s, s));
            if (!(len > 0)) {
                s[0] = l->geometry == STRATA_RADIAL ? 0 : 1;
                len = 1;
            }
        }
        for (int c = 0; c < 3; c++)
            s[c] /= len;
        memcpy(prev_side, s, sizeof prev_side);
    }
}

/* Where the coast bends towards the water more sharply than the width
 * allows, the sides of a segment's two ends meet before the width: the
 * outer points would pass each other and the quad between them fold
 * over.  Each end reaches at most REACH_MEET of the way to where they
 * meet (worked in the plane through the segment's first point square to
 * its up), so every quad stays a convex one, a triangle with its tip cut
 * off, both of its triangles facing up and its outer edge the coast's
 * way round. */
#define REACH_MEET 0.9

static void ribbon_limit(const strata_loops *l, const strata_loop *lp, reach *rc)
{
    const uint32_t n = lp->count, segs = lp->closed ? n : n - 1;
    for (uint32_t k = 0; k < segs; k++) {
        const uint32_t j = (k + 1) % n;
        const uint64_t p = lp->first + k, q = lp->first + j;
        const double *up = rc[k].up;
        double e1[3] = {(double)l->x[q] - l->x[p], (double)l->y[q] - l->y[p],
                        (double)l->z[q] - l->z[p]};
        const double h = dot3(e1, up);
        for (int c = 0; c < 3; c++)
            e1[c] -= h * up[c];
        const double len = sqrt(dot3(e1, e1));
        if (!(len > 0))
            continue;
        for (int c = 0; c < 3; c++)
            e1[c] /= len;
        double e2[3]; /* the water side of the segment */
        cross3(up, e1, e2);
        const double ax = dot3(rc[k].side, e1), ay = dot3(rc[k].side, e2);
        const double bx = dot3(rc[j].side, e1), by = dot3(rc[j].side, e2);
        /* p + ta a = q + tb b: ta = -len by / det, tb = -len ay / det */
        const double det = bx * ay - ax * by;
        if (!(ay > 0 && by > 0 && det < 0))
            continue; /* apart, parallel, or a hairpin's: nothing to meet */
        const double ta = -len * by / det, tb = -len * ay / det;
        rc[k].d = fmin(rc[k].d, REACH_MEET * ta);
        rc[j].d = fmin(rc[j].d, REACH_MEET * tb);
    }
}

/* A flat terrain's domain on the map: the convex hull of its vertices'
 * (x, z), counter-clockwise in (x, z), n corners (0: none, a planet),
 * and their bounding box. */
typedef struct domain {
    double *p; /* x, z pairs */
    uint32_t n;
    float lo[2], hi[2];
} domain;

static double cross_at(const double *a, const double *b, double qx, double qz)
{
    return (b[0] - a[0]) * (qz - a[1]) - (b[1] - a[1]) * (qx - a[0]);
}

static int cmp_xz(const void *pa, const void *pb)
{
    const double *a = pa, *b = pb;
    return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1];
}

/* The hull of r's first nv vertices: the points not strictly inside the
 * quadrilateral of the four extreme ones (the rest cannot be corners),
 * then Andrew's monotone chain over them. */
static strata_status domain_make(const strata_result *r, uint32_t nv, domain *d)
{
    memset(d, 0, sizeof *d);
    if (r->geometry == STRATA_RADIAL || nv == 0)
        return STRATA_OK;
    uint32_t ext[4] = {0, 0, 0, 0}; /* min x, min z, max x, max z */
    for (uint32_t i = 1; i < nv; i++) {
        ext[0] = r->x[i] < r->x[ext[0]] ? i : ext[0];
        ext[1] = r->z[i] < r->z[ext[1]] ? i : ext[1];
        ext[2] = r->x[i] > r->x[ext[2]] ? i : ext[2];
        ext[3] = r->z[i] > r->z[ext[3]] ? i : ext[3];
    }
    d->lo[0] = r->x[ext[0]], d->lo[1] = r->z[ext[1]];
    d->hi[0] = r->x[ext[2]], d->hi[1] = r->z[ext[3]];
    double q[8];
    for (int k = 0; k < 4; k++)
        q[2 * k] = r->x[ext[k]], q[2 * k + 1] = r->z[ext[k]];
    uint32_t m = 0;
    for (int pass = 0; pass < 2; pass++) { /* count, then copy */
        m = 0;
        for (uint32_t i = 0; i < nv; i++) {
            const double x = r->x[i], z = r->z[i];
            int inside = 1;
            for (int k = 0; k < 4 && inside; k++)
                inside = cross_at(q + 2 * k, q + 2 * ((k + 1) % 4), x, z) > 0;
            if (!inside && pass)
                d->p[2 * m] = x, d->p[2 * m + 1] = z;
            m += !inside;
        }
        if (!pass && !(d->p = strata__alloc_array(&r->alloc, 2 * (size_t)m + 2, sizeof(double))))
            return STRATA_ERR_NOMEM;
    }
    if (m < 3)
        return STRATA_OK; /* the box alone */
    qsort(d->p, m, 2 * sizeof(double), cmp_xz);
    /* lower chain left to right, then upper right to left, in place of a
     * scratch copy: the hull has at most m + 1 corners */
    double *h = strata__alloc_array(&r->alloc, 2 * (size_t)m + 2, sizeof(double));
    if (!h)
        return STRATA_ERR_NOMEM;
    uint32_t n = 0;
    for (int up = 0; up < 2; up++) {
        const uint32_t base = n;
        for (uint32_t j = 0; j < m; j++) {
            const double *pt = d->p + 2 * (up ? m - 1 - j : j);
            while (n >= base + 2 && cross_at(h + 2 * (n - 2), h + 2 * (n - 1), pt[0], pt[1]) <= 0)
                n--;
            h[2 * n] = pt[0], h[2 * n + 1] = pt[1];
            n++;
        }
        n--; /* each chain's last point starts the other */
    }
    strata__free(&r->alloc, d->p);
    d->p = h;
    d->n = n >= 3 ? n : 0; /* a line or a point: the box alone */
    return STRATA_OK;
}

/* (x, z) moved into the domain: onto the nearest point of the hull's
 * border when outside it, then into the box (against rounding). */
static void domain_clamp(const domain *d, float *x, float *z)
{
    const double qx = *x, qz = *z;
    int out = 0;
    for (uint32_t k = 0; k < d->n && !out; k++)
        out = cross_at(d->p + 2 * k, d->p + 2 * ((k + 1) % d->n), qx, qz) < 0;
    if (out) {
        double best = INFINITY, bx = qx, bz = qz;
        for (uint32_t k = 0; k < d->n; k++) {
            const double *a = d->p + 2 * k, *b = d->p + 2 * ((k + 1) % d->n);
            const double ex = b[0] - a[0], ez = b[1] - a[1], ee = ex * ex + ez * ez;
            double t = ee > 0 ? ((qx - a[0]) * ex + (qz - a[1]) * ez) / ee : 0;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            const double px = a[0] + t * ex, pz = a[1] + t * ez;
            const double dd = (px - qx) * (px - qx) + (pz - qz) * (pz - qz);
            if (dd < best)
                best = dd, bx = px, bz = pz;
        }
        *x = (float)bx;
        *z = (float)bz;
    }
    *x = fminf(fmaxf(*x, d->lo[0]), d->hi[0]);
    *z = fminf(fmaxf(*z, d->lo[1]), d->hi[1]);
}

/* Outer point of pair w from its coast point at rc: FLAT d along the
 * side, moved into the terrain's domain dom; RADIAL along the great
 * circle through the side, d away. */
static void ribbon_outer(const strata_loops *l, const reach *rc, double rad, float level,
                         const domain *dom, strata_result *r, uint32_t w)
{
    if (l->geometry == STRATA_RADIAL) {
        const double a = rc->d / rad, ca = cos(a), sa = sin(a);
        r->x[w] = (float)(l->center[0] + rad * (ca * rc->up[0] + sa * rc->side[0]));
        r->y[w] = (float)(l->center[1] + rad * (ca * rc->up[1] + sa * rc->side[1]));
        r->z[w] = (float)(l->center[2] + rad * (ca * rc->up[2] + sa * rc->side[2]));
    } else {
        r->x[w] = (float)((double)r->x[w - 1] + rc->d * rc->side[0]);
        r->y[w] = level;
        r->z[w] = (float)((double)r->z[w - 1] + rc->d * rc->side[2]);
        domain_clamp(dom, &r->x[w], &r->z[w]);
    }
}

/* Triangle a, b, c of r faces up (FLAT +y, RADIAL away from the centre
 * at a) with an area, in double from the stored floats. */
static int faces_up(const strata_result *r, uint32_t a, uint32_t b, uint32_t c)
{
    const double u[3] = {(double)r->x[b] - r->x[a], (double)r->y[b] - r->y[a],
                         (double)r->z[b] - r->z[a]};
    const double v[3] = {(double)r->x[c] - r->x[a], (double)r->y[c] - r->y[a],
                         (double)r->z[c] - r->z[a]};
    double nrm[3];
    cross3(u, v, nrm);
    if (r->geometry != STRATA_RADIAL)
        return nrm[1] > 0;
    const double out[3] = {(double)r->x[a] - r->center[0], (double)r->y[a] - r->center[1],
                           (double)r->z[a] - r->center[2]};
    return dot3(nrm, out) > 0;
}

/* The limit above is worked in double on a plane; the stored points are
 * floats (and on a sphere).  Where a quad's triangle still does not face
 * up, both its ends draw in by half, until none is left or a pass limit
 * (a segment of no length or a hairpin has no fix: it stays as it is). */
#define SETTLE_PASSES 48

static void ribbon_settle(const strata_loops *l, const strata_loop *lp, reach *rc, double rad,
                          float level, const domain *dom, strata_result *r, uint32_t v,
                          uint32_t e0, uint32_t pairs)
{
    const uint32_t n = lp->count;
    for (int pass = 0; pass < SETTLE_PASSES; pass++) {
        int moved = 0;
        for (uint32_t i = 1; i < pairs; i++) {
            const uint32_t c1 = v + 2 * (i - 1), c0 = c1 + 2, o1 = c1 + 1, o0 = c0 + 1;
            if (faces_up(r, c1, c0, o0) && faces_up(r, c1, o0, o1))
                continue;
            const uint32_t k1 = (e0 + i - 1) % n, k0 = (e0 + i) % n;
            rc[k1].d *= 0.5;
            rc[k0].d *= 0.5;
            ribbon_outer(l, &rc[k1], rad, level, dom, r, o1);
            ribbon_outer(l, &rc[k0], rad, level, dom, r, o0);
            if (lp->closed && (k0 == 0 || k1 == 0)) /* pair 0 and pair n: one point */
                ribbon_outer(l, &rc[0], rad, level, dom, r, k0 == 0 ? v + 1 : v + 2 * n + 1);
            moved = 1;
        }
        if (!moved)
            return;
    }
}

/* The texture's U along the pairs a ribbon writes: from t, the length
 * from the first written point over the width, U = u0 + c (t / d), or
 * with from_end U = u0 - (total - t) (t = total at the last point, so
 * the last U is u0 exactly).  A whole polyline's: u0 0, c = d = 1, so
 * U = t. */
typedef struct uspan {
    uint32_t e0, pairs; /* the points written: [e0, e0 + pairs), cyclic */
    double u0, c, d;
    int from_end;
} uspan;

/* The length of points [e0, e0 + pairs) of lp (cyclic) over width, as
 * ribbon sums it. */
static double span_length(const strata_loops *l, const strata_loop *lp, uint32_t e0,
                          uint32_t pairs, float width)
{
    const uint32_t n = lp->count;
    double along = 0.0;
    for (uint32_t i = 1; i < pairs; i++) {
        const uint64_t p = lp->first + (e0 + i) % n, q = lp->first + (e0 + i - 1) % n;
        const double d[3] = {(double)l->x[p] - l->x[q], (double)l->y[p] - l->y[q],
                             (double)l->z[p] - l->z[q]};
        along += sqrt(dot3(d, d));
    }
    return along / width;
}

/* The shoreline's vertices and triangles of one polyline: the pairs
 * (coast, outer) of its points u->e0.. from vertex v, U as u says, 6
 * indices a segment at ix; the sides and reaches from all of its points
 * (rc scratch for them); returns the pairs written. */
static uint32_t ribbon(const strata_loops *l, const strata_loop *lp, float level, float width,
                       const domain *dom, reach *rc, strata_result *r, uint32_t v, uint32_t *ix,
                       const uspan *u)
{
    const uint32_t n = lp->count, pairs = u->pairs;
    const double rad = (double)l->radius + level;
    const double total = u->from_end ? span_length(l, lp, u->e0, pairs, width) : 0.0;
    ribbon_sides(l, lp, rc);
    for (uint32_t k = 0; k < n; k++)
        rc[k].d = width;
    ribbon_limit(l, lp, rc);
    double along = 0.0;
    for (uint32_t i = 0; i < pairs; i++) {
        const uint32_t k = (u->e0 + i) % n;
        const uint64_t p = lp->first + k;
        if (i > 0) {
            const uint64_t q = lp->first + (k + n - 1) % n;
            const double d[3] = {(double)l->x[p] - l->x[q], (double)l->y[p] - l->y[q],
                                 (double)l->z[p] - l->z[q]};
            along += sqrt(dot3(d, d));
        }
        const uint32_t c0 = v + 2 * i, o0 = c0 + 1;
        r->x[c0] = l->x[p];
        r->y[c0] = l->y[p];
        r->z[c0] = l->z[p];
        ribbon_outer(l, &rc[k], rad, level, dom, r, o0);
        if (r->nx)
            for (uint32_t w = c0; w <= o0; w++) {
                r->nx[w] = (float)rc[k].up[0];
                r->ny[w] = (float)rc[k].up[1];
                r->nz[w] = (float)rc[k].up[2];
            }
        const double t = along / width;
        float *uv = r->uv + 2 * (size_t)(c0 - r->uv_first);
        uv[0] = uv[2] = (float)(u->from_end ? u->u0 - (total - t) : u->u0 + u->c * (t / u->d));
        uv[1] = 0.0f;
        uv[3] = 1.0f;
        if (i > 0) { /* coast forward, the water to the left: up-facing */
            const uint32_t c1 = c0 - 2, o1 = c1 + 1;
            const uint32_t tri[6] = {c1, c0, o0, c1, o0, o1};
            memcpy(ix + 6 * (size_t)(i - 1), tri, sizeof tri);
        }
    }
    ribbon_settle(l, lp, rc, rad, level, dom, r, v, u->e0, pairs);
    return pairs;
}

/* ------------------------------------------------ a world tile's ribbons */

/* A point of the wider loops (strata__result_add_shoreline_tile's ext):
 * its position's bits, its polyline and place in it. */
typedef struct ext_point {
    uint32_t bits[3];
    uint64_t loop;
    uint32_t at;
} ext_point;

static int cmp_ext(const void *pa, const void *pb)
{
    const ext_point *a = pa, *b = pb;
    const int c = memcmp(a->bits, b->bits, sizeof a->bits);
    if (c)
        return c;
    return a->loop != b->loop ? (a->loop > b->loop) - (a->loop < b->loop)
                              : (a->at > b->at) - (a->at < b->at);
}

static void point_bits(const strata_loops *l, uint64_t p, uint32_t out[3])
{
    memcpy(&out[0], &l->x[p], 4);
    memcpy(&out[1], &l->y[p], 4);
    memcpy(&out[2], &l->z[p], 4);
}

/* ext's points of one plane, sorted by position (then polyline, place). */
typedef struct ext_index {
    const strata_loops *l;
    ext_point *p;
    uint64_t n;
} ext_index;

static strata_status ext_index_make(const strata_allocator *al, const strata_loops *l,
                                    uint32_t plane, ext_index *x)
{
    x->l = l;
    x->n = 0;
    for (uint64_t i = l->plane_first[plane]; i < l->plane_first[plane + 1]; i++)
        x->n += l->loops[i].count;
    if (!(x->p = strata__alloc_array(al, x->n ? (size_t)x->n : 1, sizeof *x->p)))
        return STRATA_ERR_NOMEM;
    uint64_t m = 0;
    for (uint64_t i = l->plane_first[plane]; i < l->plane_first[plane + 1]; i++)
        for (uint32_t k = 0; k < l->loops[i].count; k++, m++) {
            point_bits(l, l->loops[i].first + k, x->p[m].bits);
            x->p[m].loop = i;
            x->p[m].at = k;
        }
    qsort(x->p, (size_t)x->n, sizeof *x->p, cmp_ext);
    return STRATA_OK;
}

/* Point k + step of ext polyline lp (cyclic when closed), or -1. */
static int64_t ext_step(const strata_loop *lp, uint32_t k, int step)
{
    const int64_t j = (int64_t)k + step, n = lp->count;
    if (lp->closed)
        return lp->first + (uint64_t)((j % n + n) % n);
    return j >= 0 && j < n ? (int64_t)(lp->first + (uint64_t)j) : -1;
}

/* Where own point p continues past the tile: the first ext point at p's
 * position whose neighbour against `dir` (-1: the point before) is own
 * point q, then up to two ext points beyond it in `dir`, into out
 * (nearest first); returns how many (0: p is no crossing of the tile's
 * border, an end of the whole mesh's polyline). */
static uint32_t ext_beyond(const ext_index *x, const strata_loops *own, uint64_t p, uint64_t q,
                           int dir, uint64_t out[2])
{
    ext_point key;
    point_bits(own, p, key.bits);
    uint32_t qb[3];
    point_bits(own, q, qb);
    uint64_t lo = 0, hi = x->n;
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (memcmp(x->p[mid].bits, key.bits, sizeof key.bits) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < x->n && !memcmp(x->p[lo].bits, key.bits, sizeof key.bits); lo++) {
        const strata_loop *lp = &x->l->loops[x->p[lo].loop];
        const int64_t back = ext_step(lp, x->p[lo].at, -dir);
        uint32_t bb[3];
        if (back < 0)
            continue;
        point_bits(x->l, (uint64_t)back, bb);
        if (memcmp(bb, qb, sizeof bb))
            continue;
        uint32_t n = 0;
        for (int s = 1; s <= 2; s++) {
            const int64_t b = ext_step(lp, x->p[lo].at, s * dir);
            if (b < 0)
                break;
            out[n++] = (uint64_t)b;
        }
        return n;
    }
    return 0;
}

/* U's value at a point where a coast crosses a tile border: a multiple
 * of 1/256 in [0, 1) hashed from the point's bits, which both tiles
 * share. */
static double border_u(const strata_loops *l, uint64_t p)
{
    uint32_t b[3];
    point_bits(l, p, b);
    uint64_t z = ((uint64_t)b[0] << 32 | b[1]) ^ ((uint64_t)b[2] * 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 56) / 256.0;
}

/* One open polyline of a tile (own's lp) with the points of ext past its
 * ends copied around it into the scratch line `line` (x, y, z arrays of
 * room for count + 4), and the U span of its own points. */
static void tile_line(const strata_loops *own, const strata_loop *lp, const ext_index *x,
                      float width, strata_loops *line, strata_loop *llp, uspan *u)
{
    const uint64_t f = lp->first, e = lp->first + lp->count - 1;
    uint64_t before[2], after[2];
    const uint32_t nb = ext_beyond(x, own, f, f + 1, -1, before);
    const uint32_t na = ext_beyond(x, own, e, e - 1, 1, after);
    uint32_t n = 0;
    for (uint32_t i = nb; i-- > 0; n++) {
        line->x[n] = x->l->x[before[i]];
        line->y[n] = x->l->y[before[i]];
        line->z[n] = x->l->z[before[i]];
    }
    memcpy(line->x + n, own->x + f, lp->count * sizeof(float));
    memcpy(line->y + n, own->y + f, lp->count * sizeof(float));
    memcpy(line->z + n, own->z + f, lp->count * sizeof(float));
    n += lp->count;
    for (uint32_t i = 0; i < na; i++, n++) {
        line->x[n] = x->l->x[after[i]];
        line->y[n] = x->l->y[after[i]];
        line->z[n] = x->l->z[after[i]];
    }
    *llp = (strata_loop){.plane = lp->plane, .closed = 0, .first = 0, .count = n};
    *u = (uspan){nb, lp->count, 0.0, 1.0, 1.0, 0};
    if (nb && na) { /* from g0 to g1 plus the whole number nearest the length */
        const double g0 = border_u(own, f), g1 = border_u(own, e);
        const double len = span_length(line, llp, nb, lp->count, width);
        double target = g1 - g0 + nearbyint(len - (g1 - g0));
        if (target < 0)
            target += 1.0; /* a piece shorter than half a repeat: forwards */
        u->u0 = g0;
        u->c = target;
        u->d = len > 0 ? len : 1.0;
    } else if (nb) {
        u->u0 = border_u(own, f);
    } else if (na) {
        u->u0 = border_u(own, e);
        u->from_end = 1;
    }
}

/* The vertices and triangles of plane's ribbons of l added to r: the
 * domain from r's vertices (box NULL) or the box (x0, z0, x1, z1); with
 * ext (a world's tile) each open polyline's ends continued by ext's
 * points and U as tile_line makes it. */
static strata_status add_shoreline(strata_ctx *ctx, strata_result *r, const strata_loops *l,
                                   uint32_t plane, float width, const float *box,
                                   const strata_loops *ext)
{
    const float level = l->levels[plane];
    uint64_t pairs = 0, quads = 0;
    uint32_t longest = 1;
    for (uint64_t i = l->plane_first[plane]; i < l->plane_first[plane + 1]; i++) {
        const strata_loop *lp = &l->loops[i];
        if (lp->count < 2)
            continue;
        const uint64_t n = lp->closed ? lp->count + 1u : lp->count;
        pairs += n;
        quads += n - 1;
        longest = lp->count > longest ? lp->count : longest;
    }
    const uint64_t nv = (uint64_t)r->nverts + 2 * pairs, ni = r->nindices + 6 * quads;
    if (nv > UINT32_MAX || longest > UINT32_MAX - 4)
        return STRATA_ERR_OVERFLOW;
    longest += ext ? 4 : 0;
    domain dom = {0};
    double corners[8];
    strata_status st = STRATA_OK;
    if (!box) {
        st = domain_make(r, r->nverts, &dom);
    } else if (r->geometry != STRATA_RADIAL) { /* counter-clockwise from the low corner */
        const double q[8] = {box[0], box[1], box[2], box[1], box[2], box[3], box[0], box[3]};
        memcpy(corners, q, sizeof q);
        dom = (domain){corners, 4, {box[0], box[1]}, {box[2], box[3]}};
    }
    ext_index xi = {0};
    float *uv = strata__alloc_array(&r->alloc, pairs ? (size_t)(4 * pairs) : 1, sizeof(float));
    reach *rc = strata__alloc_array(&r->alloc, longest, sizeof *rc);
    float *line = ext ? strata__alloc_array(&r->alloc, 3 * (size_t)longest, sizeof(float)) : NULL;
    if (st == STRATA_OK && ext && ext->nplanes)
        st = ext_index_make(&r->alloc, ext, plane, &xi);
    if (st == STRATA_OK)
        st = uv && rc && (line || !ext) ? strata__result_grow(r, nv, ni) : STRATA_ERR_NOMEM;
    if (st == STRATA_OK) {
        strata__free(&r->alloc, r->uv); /* a reused tile result's last one */
        r->uv = uv;
        r->uv_first = r->nverts;
        r->nuv = (uint32_t)(2 * pairs);
        uv = NULL;
        uint32_t v = r->nverts;
        uint32_t *ix = r->indices + r->nindices;
        strata_loops tl = ext ? *l : (strata_loops){0};
        if (line) /* with ext: the piece's points, copied */
            tl.x = line, tl.y = line + longest, tl.z = line + 2 * (size_t)longest;
        for (uint64_t i = l->plane_first[plane]; i < l->plane_first[plane + 1]; i++) {
            const strata_loop *lp = &l->loops[i];
            if (lp->count < 2)
                continue;
            uspan u = {0, lp->closed ? lp->count + 1 : lp->count, 0.0, 1.0, 1.0, 0};
            strata_loop tlp;
            const int piece = ext && !lp->closed;
            if (piece)
                tile_line(l, lp, &xi, width, &tl, &tlp, &u);
            const uint32_t n = ribbon(piece ? &tl : l, piece ? &tlp : lp, level, width, &dom,
                                      rc, r, v, ix, &u);
            v += 2 * n;
            ix += 6 * (size_t)(n - 1);
        }
        r->shore_first = r->nindices;
        r->shore_count = ni - r->nindices;
        r->nverts = (uint32_t)nv;
        r->nindices = ni;
    }
    strata__free(&r->alloc, uv);
    strata__free(&r->alloc, rc);
    strata__free(&r->alloc, line);
    strata__free(&r->alloc, xi.p);
    if (!box)
        strata__free(&r->alloc, dom.p);
    return st;
}

strata_status strata_result_add_shoreline(strata_ctx *ctx, strata_result *r,
                                          const strata_loops *l, uint32_t plane, float width)
{
    if (!ctx || !r || !l || r->shore_count || r->nuv || plane >= l->nplanes ||
        !(width > 0) || !isfinite(width) || l->geometry != r->geometry)
        return STRATA_ERR_INVALID_ARG;
    return add_shoreline(ctx, r, l, plane, width, NULL, NULL);
}

strata_status strata__result_add_shoreline_tile(strata_ctx *ctx, strata_result *r,
                                                const strata_loops *own, const strata_loops *ext,
                                                uint32_t plane, float width, const float box[4])
{
    const strata_loops none = {.nplanes = 0};
    if (!ext)
        ext = &none;
    if (!ctx || !r || !own || r->shore_count || r->nuv || plane >= own->nplanes ||
        (ext->nplanes && (plane >= ext->nplanes || own->levels[plane] != ext->levels[plane] ||
                          ext->geometry != r->geometry)) ||
        !(width > 0) ||
        !isfinite(width) || own->geometry != r->geometry ||
        (r->geometry != STRATA_RADIAL && !box))
        return STRATA_ERR_INVALID_ARG;
    return add_shoreline(ctx, r, own, plane, width, box, ext);
}
