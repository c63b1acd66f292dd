/* Is a triangle mesh clean by position, not only by vertex id?  (issue
 * 28.)  A mesh is used by position: printers, collision, CAD and every
 * tool that welds merge vertices at one point.  poscheck_run welds the
 * vertices by exact position (-0 and +0 are one point) and counts, on the
 * welded mesh:
 *
 *   collapsed    triangles with two corners at one point (no area at all)
 *   repeated     uses of a directed edge beyond its first: two triangles
 *                running the same way along one segment (a fold: pieces
 *                lying on one another with distinct ids)
 *   nonmanifold  undirected edges used by more than two triangles
 *   border       directed edges with no opposite (0 for a closed surface;
 *                on a terrain only on the domain border)
 *   inner_border those of them not on the bounding box's sides in the
 *                horizontal axes (x and z: a grid terrain's border lies
 *                there)
 *   pinches      points whose triangles form more than one fan (the
 *                surface touches itself at a point)
 *   thin         triangles one of whose altitudes (so also sides) is
 *                shorter than POSCHECK_ULPS ulps of their largest
 *                coordinate: a corner within a few roundings of the line
 *                through the other two, so its normal is noise
 *   short_side   those of them with a side that short
 *
 * Plain C (no Check), for the Check suites and tests/poscheck.c. */
#ifndef STRATA_TESTS_POSCHECK_H
#define STRATA_TESTS_POSCHECK_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A triangle is thin when an altitude is below this many ulps of its
 * largest coordinate (the bound README.md documents). */
#define POSCHECK_ULPS 4.0

typedef struct {
    uint64_t ntris, npoints;
    uint64_t collapsed, repeated, nonmanifold, border, inner_border, pinches;
    uint64_t thin, short_side;
    double min_alt_ulps; /* the thinnest triangle's altitude, in ulps */
} poscheck;

typedef struct {
    float x, y, z;
    uint32_t id;
} poscheck_pt_;

static inline float poscheck_canon_(float v) { return v == 0.0f ? 0.0f : v; }

static inline int poscheck_cmp_pt_(const void *pa, const void *pb)
{
    const poscheck_pt_ *a = pa, *b = pb;
    if (a->x != b->x)
        return a->x < b->x ? -1 : 1;
    if (a->y != b->y)
        return a->y < b->y ? -1 : 1;
    if (a->z != b->z)
        return a->z < b->z ? -1 : 1;
    return 0;
}

static inline int poscheck_cmp_u64_(const void *pa, const void *pb)
{
    const uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* (undirected edge key, corner) pairs for the fans around each point */
typedef struct {
    uint64_t key;
    uint32_t pt, corner;
} poscheck_ec_;

static inline int poscheck_cmp_ec_(const void *pa, const void *pb)
{
    const poscheck_ec_ *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->pt != b->pt)
        return a->pt < b->pt ? -1 : 1;
    return a->corner < b->corner ? -1 : a->corner > b->corner;
}

static inline uint32_t poscheck_find_(uint32_t *up, uint32_t i)
{
    while (up[i] != i)
        i = up[i] = up[up[i]];
    return i;
}

/* The ulp of a float of magnitude m (the spacing of floats at m). */
static inline double poscheck_ulp(double m)
{
    if (!(m >= 0x1p-126))
        return 0x1p-149;
    return ldexp(1.0, ilogb(m) - 23);
}

/* Welds n points (x, y, z: n floats each) by exact position; weld[i] gets
 * point i's welded id; returns the number of distinct points, or -1
 * without memory. */
static inline int64_t poscheck_weld(const float *x, const float *y, const float *z, uint32_t n,
                                    uint32_t *weld)
{
    poscheck_pt_ *p = malloc(sizeof *p * (n ? n : 1));
    if (!p)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        p[i] = (poscheck_pt_){poscheck_canon_(x[i]), poscheck_canon_(y[i]), poscheck_canon_(z[i]),
                              i};
    qsort(p, n, sizeof *p, poscheck_cmp_pt_);
    int64_t np = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == 0 || poscheck_cmp_pt_(&p[i], &p[i - 1]) != 0)
            np++;
        weld[p[i].id] = (uint32_t)(np - 1);
    }
    free(p);
    return np;
}

/* The figures of the triangles idx[0 .. 3 ntris) over the points x, y, z
 * (n of them).  0, or -1 without memory. */
static inline int poscheck_run(const float *x, const float *y, const float *z, uint32_t n,
                               const uint32_t *idx, uint64_t ntris, poscheck *out)
{
    memset(out, 0, sizeof *out);
    out->ntris = ntris;
    out->min_alt_ulps = INFINITY;
    uint32_t *weld = malloc(sizeof *weld * (n ? n : 1));
    uint64_t *de = malloc(sizeof *de * (3 * ntris + 1));
    poscheck_ec_ *ec = malloc(sizeof *ec * (6 * ntris + 1));
    uint32_t *up = malloc(sizeof *up * (3 * ntris + 1));
    uint32_t *cv = malloc(sizeof *cv * (3 * ntris + 1));
    uint32_t *rep = malloc(sizeof *rep * (n ? n : 1)); /* per welded point: a vertex there */
    int64_t np = weld ? poscheck_weld(x, y, z, n, weld) : -1;
    if (np < 0 || !de || !ec || !up || !cv || !rep) {
        free(weld), free(de), free(ec), free(up), free(cv), free(rep);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        rep[weld[i]] = i;
    out->npoints = (uint64_t)np;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++) {
        const float p[3] = {x[i], y[i], z[i]};
        for (int c = 0; c < 3; c++) {
            lo[c] = p[c] < lo[c] ? p[c] : lo[c];
            hi[c] = p[c] > hi[c] ? p[c] : hi[c];
        }
    }
    uint64_t nde = 0, nec = 0;
    uint32_t ncorner = 0;
    for (uint64_t t = 0; t < ntris; t++) {
        const uint32_t *v = idx + 3 * t;
        const uint32_t w[3] = {weld[v[0]], weld[v[1]], weld[v[2]]};
        if (w[0] == w[1] || w[1] == w[2] || w[2] == w[0]) {
            out->collapsed++;
            continue;
        }
        /* thinness, in double from the float corners */
        double P[3][3], big = 0.0;
        for (int i = 0; i < 3; i++) {
            P[i][0] = x[v[i]], P[i][1] = y[v[i]], P[i][2] = z[v[i]];
            for (int c = 0; c < 3; c++)
                big = fabs(P[i][c]) > big ? fabs(P[i][c]) : big;
        }
        double side[3], longest = 0.0, shortest = INFINITY;
        for (int i = 0; i < 3; i++) {
            const double *a = P[i], *b = P[(i + 1) % 3];
            side[i] = sqrt((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) +
                           (b[2] - a[2]) * (b[2] - a[2]));
            longest = side[i] > longest ? side[i] : longest;
            shortest = side[i] < shortest ? side[i] : shortest;
        }
        const double u[3] = {P[1][0] - P[0][0], P[1][1] - P[0][1], P[1][2] - P[0][2]};
        const double s[3] = {P[2][0] - P[0][0], P[2][1] - P[0][1], P[2][2] - P[0][2]};
        const double cr[3] = {u[1] * s[2] - u[2] * s[1], u[2] * s[0] - u[0] * s[2],
                              u[0] * s[1] - u[1] * s[0]};
        const double alt = sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]) / longest;
        const double ulp = poscheck_ulp(big);
        if (alt / ulp < out->min_alt_ulps)
            out->min_alt_ulps = alt / ulp;
        if (alt < POSCHECK_ULPS * ulp) {
            out->thin++;
            out->short_side += shortest < POSCHECK_ULPS * ulp;
        }
        for (int i = 0; i < 3; i++) {
            const uint32_t a = w[i], b = w[(i + 1) % 3], c = w[(i + 2) % 3];
            de[nde++] = (uint64_t)a << 32 | b;
            /* corner at a: its edges a-b and c-a */
            const uint32_t corner = ncorner++;
            cv[corner] = a;
            up[corner] = corner;
            ec[nec++] = (poscheck_ec_){a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a,
                                       a, corner};
            ec[nec++] = (poscheck_ec_){a < c ? (uint64_t)a << 32 | c : (uint64_t)c << 32 | a,
                                       a, corner};
        }
    }
    qsort(de, nde, sizeof *de, poscheck_cmp_u64_);
    for (uint64_t i = 0; i < nde;) {
        uint64_t j = i + 1;
        while (j < nde && de[j] == de[i])
            j++;
        out->repeated += j - i - 1;
        const uint64_t rev = (de[i] << 32) | (de[i] >> 32);
        /* the opposite's uses, by binary search */
        uint64_t a = 0, b = nde;
        while (a < b) {
            const uint64_t mid = a + (b - a) / 2;
            if (de[mid] < rev)
                a = mid + 1;
            else
                b = mid;
        }
        uint64_t nrev = 0;
        while (a + nrev < nde && de[a + nrev] == rev)
            nrev++;
        if (nrev == 0) {
            out->border += j - i;
            const uint32_t p = rep[de[i] >> 32], q = rep[(uint32_t)de[i]];
            const int side = (x[p] == lo[0] && x[q] == lo[0]) || (x[p] == hi[0] && x[q] == hi[0]) ||
                             (z[p] == lo[2] && z[q] == lo[2]) || (z[p] == hi[2] && z[q] == hi[2]);
            out->inner_border += side ? 0 : j - i;
        }
        if (de[i] >> 32 < (de[i] & 0xffffffffu) && (j - i) + nrev > 2)
            out->nonmanifold++;
        if (de[i] >> 32 > (de[i] & 0xffffffffu) && nrev == 0 && j - i > 2)
            out->nonmanifold++; /* one direction only, used thrice or more */
        i = j;
    }
    /* fans: corners at one point joined across the edges they share */
    qsort(ec, nec, sizeof *ec, poscheck_cmp_ec_);
    for (uint64_t i = 0; i + 1 < nec; i++)
        if (ec[i].key == ec[i + 1].key && ec[i].pt == ec[i + 1].pt) {
            const uint32_t ra = poscheck_find_(up, ec[i].corner),
                           rb = poscheck_find_(up, ec[i + 1].corner);
            if (ra != rb)
                up[ra < rb ? rb : ra] = ra < rb ? ra : rb;
        }
    /* per point: the number of distinct roots among its corners */
    uint64_t *pr = de; /* reuse: (point << 32 | root) */
    for (uint32_t c = 0; c < ncorner; c++)
        pr[c] = (uint64_t)cv[c] << 32 | poscheck_find_(up, c);
    qsort(pr, ncorner, sizeof *pr, poscheck_cmp_u64_);
    for (uint32_t i = 0; i < ncorner;) {
        uint32_t j = i + 1, roots = 1;
        while (j < ncorner && pr[j] >> 32 == pr[i] >> 32) {
            roots += pr[j] != pr[j - 1];
            j++;
        }
        out->pinches += roots > 1;
        i = j;
    }
    free(weld), free(de), free(ec), free(up), free(cv), free(rep);
    return 0;
}

#endif
