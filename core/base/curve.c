/* Height curves: piecewise linear and monotone cubic (Fritsch-Carlson)
 * interpolation through control points in [0,1] x [0,1].
 *
 * Exactness rules (relied on by the displacement and its tests):
 *  - eval(xs[i]) == ys[i] exactly: each segment is written in its local
 *    parameter u = (t - x0) / (x1 - x0) as y0 + u * (...), and u == 0 there;
 *  - a linear segment lying on the diagonal (y0 == x0, y1 == x1) returns t;
 *  - a curve whose control points all lie on the diagonal and span [0, 1]
 *    is flagged as the identity: eval returns t on [0, 1] for either kind,
 *    and strata__curve_is_identity() lets callers skip it altogether;
 *  - every segment's value is clamped to [min(y0, y1), max(y0, y1)], which
 *    the exact interpolant respects, so rounding never overshoots;
 *  - cubics are evaluated in double and rounded once: a float Horner
 *    evaluation wobbles by an ulp and would make monotone curves step back
 *    now and then (linear segments are monotone in float already).
 * Outside [xs[0], xs[n-1]] (and for NaN) the curve is constant.
 */
#include "base/alloc.h"
#include "base/ctx.h"
#include "base/curve.h"

#include <math.h>
#include <string.h>

struct strata_curve {
    strata_allocator alloc;
    strata_curve_kind kind;
    bool identity;
    size_t n;
    float *xs, *ys; /* n control points */
    double *cubic;  /* MONOTONE: per segment c1, c2, c3 of y0 + u (c1 + u (c2 + u c3)) */
};

/* Also declared in displace.c. */

bool strata__curve_is_identity(const strata_curve *c) { return c && c->identity; }

/* Fritsch-Carlson tangents (in double; secants of nearby points can exceed
 * the float range) and the cubic of each segment in its parameter u:
 *   m_k   = 0 where the secants d_{k-1}, d_k differ in sign or one is 0,
 *           else (d_{k-1} + d_k) / 2; one-sided secants at both ends;
 *   then per segment with a = m_k / d_k, b = m_{k+1} / d_k: if
 *   a^2 + b^2 > 9 scale both by 3 / sqrt(a^2 + b^2) (monotone region).
 * Hermite with endpoint derivatives D0 = m_k dx, D1 = m_{k+1} dx (both
 * at most 3 |dy|, so they fit a float):
 *   p(u) = y0 + D0 u + (3 dy - 2 D0 - D1) u^2 + (D0 + D1 - 2 dy) u^3. */
static void monotone_coefficients(strata_curve *c, double *m)
{
    const size_t n = c->n;
    const float *x = c->xs, *y = c->ys;
#define SECANT(k) (((double)y[(k) + 1] - y[k]) / ((double)x[(k) + 1] - x[k]))
    m[0] = SECANT(0);
    m[n - 1] = SECANT(n - 2);
    for (size_t k = 1; k + 1 < n; k++) {
        double d0 = SECANT(k - 1), d1 = SECANT(k);
        m[k] = (d0 > 0 && d1 > 0) || (d0 < 0 && d1 < 0) ? 0.5 * (d0 + d1) : 0.0;
    }
    for (size_t k = 0; k + 1 < n; k++) {
        double d = SECANT(k);
        if (d == 0.0)
            continue; /* both tangents are already 0 */
        double a = m[k] / d, b = m[k + 1] / d, r = a * a + b * b;
        if (r > 9.0) {
            double tau = 3.0 / sqrt(r);
            m[k] = tau * a * d;
            m[k + 1] = tau * b * d;
        }
    }
    for (size_t k = 0; k + 1 < n; k++) {
        double dx = (double)x[k + 1] - x[k], dy = (double)y[k + 1] - y[k];
        double d0 = m[k] * dx, d1 = m[k + 1] * dx;
        c->cubic[3 * k] = d0;
        c->cubic[3 * k + 1] = 3.0 * dy - 2.0 * d0 - d1;
        c->cubic[3 * k + 2] = d0 + d1 - 2.0 * dy;
    }
#undef SECANT
}

strata_status strata_curve_create(strata_ctx *ctx, strata_curve_kind kind, const float *xs,
                                  const float *ys, size_t n, strata_curve **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !xs || !ys || n < 2 ||
        (kind != STRATA_CURVE_LINEAR && kind != STRATA_CURVE_MONOTONE))
        return STRATA_ERR_INVALID_ARG;
    bool diagonal = true;
    for (size_t i = 0; i < n; i++) {
        if (!(xs[i] >= 0.0f && xs[i] <= 1.0f && ys[i] >= 0.0f && ys[i] <= 1.0f))
            return STRATA_ERR_INVALID_ARG; /* also NaN */
        if (i > 0 && !(xs[i] > xs[i - 1]))
            return STRATA_ERR_INVALID_ARG;
        diagonal = diagonal && ys[i] == xs[i];
    }

    /* One block: the struct, 3n doubles of coefficients (monotone only),
     * then 2n floats of points. */
    const size_t head = (sizeof(strata_curve) + 15) & ~(size_t)15;
    const size_t per = 2 * sizeof(float) + (kind == STRATA_CURVE_MONOTONE ? 3 * sizeof(double) : 0);
    if (n > (SIZE_MAX - head) / per)
        return STRATA_ERR_OVERFLOW;
    strata_curve *c = strata__alloc(&ctx->alloc, head + per * n);
    if (!c)
        return STRATA_ERR_NOMEM;
    memset(c, 0, sizeof *c);
    c->alloc = ctx->alloc;
    c->kind = kind;
    c->n = n;
    c->identity = diagonal && xs[0] == 0.0f && xs[n - 1] == 1.0f;
    c->cubic = kind == STRATA_CURVE_MONOTONE ? (double *)((char *)c + head) : NULL;
    c->xs = (float *)((char *)c + head + (c->cubic ? 3 * n * sizeof(double) : 0));
    c->ys = c->xs + n;
    memcpy(c->xs, xs, n * sizeof(float));
    memcpy(c->ys, ys, n * sizeof(float));
    if (kind == STRATA_CURVE_MONOTONE) {
        double *m = strata__alloc_array(&ctx->alloc, n, sizeof(double));
        if (!m) {
            strata__free(&ctx->alloc, c);
            return STRATA_ERR_NOMEM;
        }
        monotone_coefficients(c, m);
        strata__free(&ctx->alloc, m);
    }
    *out = c;
    return STRATA_OK;
}

void strata_curve_destroy(strata_curve *c)
{
    if (!c)
        return;
    strata_allocator al = c->alloc;
    strata__free(&al, c);
}

float strata_curve_eval(const strata_curve *c, float t)
{
    if (!c)
        return 0.0f;
    const float *xs = c->xs, *ys = c->ys;
    if (!(t > xs[0]))
        return ys[0];
    if (t >= xs[c->n - 1])
        return ys[c->n - 1];
    if (c->identity)
        return t;
    /* Segment k with xs[k] <= t < xs[k + 1]. */
    size_t lo = 0, hi = c->n - 1;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (xs[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    const float x0 = xs[lo], x1 = xs[lo + 1], y0 = ys[lo], y1 = ys[lo + 1];
    float y;
    if (c->kind == STRATA_CURVE_LINEAR) {
        if (y0 == x0 && y1 == x1)
            return t;
        const float u = (t - x0) / (x1 - x0);
        y = y0 + u * (y1 - y0);
    } else {
        const double u = ((double)t - x0) / ((double)x1 - x0), *k = c->cubic + 3 * lo;
        y = (float)(y0 + u * (k[0] + u * (k[1] + u * k[2])));
    }
    const float ylo = y0 < y1 ? y0 : y1, yhi = y0 < y1 ? y1 : y0;
    y = y > ylo ? y : ylo;
    y = y < yhi ? y : yhi;
    return y;
}
