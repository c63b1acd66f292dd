/* Option values from text (see values.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "values.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Set *why to the formatted message; VALUE_BAD (VALUE_NOMEM if the
 * message cannot be made). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static value_status bad(char **why, const char *fmt, ...);

static value_status bad(char **why, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    *why = n < 0 ? NULL : malloc((size_t)n + 1);
    if (!*why)
        return VALUE_NOMEM;
    va_start(ap, fmt);
    vsnprintf(*why, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return VALUE_BAD;
}

bool value_decimal(const char *s, bool integer, const char **end)
{
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    size_t digits = strspn(p, "0123456789");
    p += digits;
    if (!integer && *p == '.') {
        const size_t frac = strspn(p + 1, "0123456789");
        digits += frac;
        p += 1 + frac;
    }
    if (digits == 0) {
        *end = s;
        return false;
    }
    if (!integer && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1 + (p[1] == '+' || p[1] == '-');
        const size_t exp = strspn(q, "0123456789");
        if (exp)
            p = q + exp;
    }
    *end = p;
    return true;
}

value_status value_int(const char *opt, const char *s, long long min, long long max,
                       const char *range, long long *out, char **why)
{
    const char *end;
    if (!value_decimal(s, true, &end) || *end)
        return bad(why, "%s %s: not a decimal integer (valid: %s)", opt, s, range);
    errno = 0;
    const long long v = strtoll(s, NULL, 10);
    if (errno == ERANGE || v < min || v > max)
        return bad(why, "%s %s: out of range (valid: %s)", opt, s, range);
    *out = v;
    return VALUE_OK;
}

value_status value_real(const char *opt, const char *s, double min, double max, bool above_min,
                        const char *range, double *out, char **why)
{
    const char *end;
    if (!value_decimal(s, false, &end) || *end)
        return bad(why, "%s %s: not a decimal number (valid: %s)", opt, s, range);
    errno = 0;
    const double v = strtod(s, NULL);
    const bool low = above_min ? !(v > min) : !(v >= min);
    if (errno == ERANGE || low || v > max)
        return bad(why, "%s %s: out of range (valid: %s)", opt, s, range);
    /* strata computes in 32-bit floats: a positive value must stay one */
    if (above_min && min == 0 && (float)v == 0.0f)
        return bad(why, "%s %s: out of range (valid: %s; %s is 0 as a 32-bit float, in which "
                        "strata computes)",
                   opt, s, range, s);
    *out = v;
    return VALUE_OK;
}

/* One number of the list option `opt` (whole value `list`): a decimal
 * that fits a float, starting at s and ending at one of seps or at the end
 * of the text.  Sets *x and *end (after the number). */
static value_status list_number(const char *opt, const char *list, const char *s,
                                const char *seps, float *x, const char **end, char **why)
{
    if (!value_decimal(s, false, end) || (**end && !strchr(seps, **end)))
        return bad(why, "%s %s: '%.*s' is not a decimal number", opt, list,
                   (int)strcspn(s, ",:"), s);
    errno = 0;
    const double v = strtod(s, NULL);
    if (errno == ERANGE || fabs(v) > FLT_MAX)
        return bad(why, "%s %s: %.*s is out of range for a float", opt, list, (int)(*end - s),
                   s);
    *x = (float)v;
    return VALUE_OK;
}

value_status value_levels(const char *opt, const char *s, size_t max, cli_floats *out,
                          char **why)
{
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    if (cap > max)
        return bad(why, "%s: at most %zu values (got %zu)", opt, max, cap);
    float *v = malloc(cap * sizeof *v);
    if (!v)
        return VALUE_NOMEM;
    value_status st = VALUE_OK;
    size_t k = 0;
    double prev = 0; /* the value before, as written */
    for (const char *p = s;; p++) {
        const char *end;
        float x;
        if (*p == ',' || *p == '\0') {
            st = bad(why, "%s %s: empty value", opt, s);
            break;
        }
        if ((st = list_number(opt, s, p, ",", &x, &end, why)) != VALUE_OK)
            break;
        if (k > 0 && x == v[k - 1] && strtod(p, NULL) != (double)prev) {
            st = bad(why,
                     "%s %s: %.*s and the value before it are the same 32-bit float (%.9g), "
                     "the precision of heights: give values at least %.3g apart there",
                     opt, s, (int)(end - p), p, (double)x,
                     (double)(nextafterf(x, INFINITY) - x));
            break;
        }
        if (k > 0 && !(x > v[k - 1])) {
            st = bad(why, "%s %s: values must be strictly ascending (got %.*s after %g)", opt, s,
                     (int)(end - p), p, (double)v[k - 1]);
            break;
        }
        prev = strtod(p, NULL);
        v[k++] = x;
        p = end;
        if (!*p)
            break;
    }
    if (st != VALUE_OK) {
        free(v);
        return st;
    }
    free(out->v);
    out->v = v;
    out->n = k;
    return VALUE_OK;
}

value_status value_curve(const char *opt, const char *s, cli_curve *out, char **why)
{
    size_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    float *xs = malloc(cap * sizeof *xs), *ys = malloc(cap * sizeof *ys);
    if (!xs || !ys) {
        free(xs);
        free(ys);
        return VALUE_NOMEM;
    }
    value_status st = VALUE_OK;
    size_t n = 0;
    for (const char *p = s;; p++) {
        const char *end;
        float x, y;
        if ((st = list_number(opt, s, p, ":,", &x, &end, why)) != VALUE_OK)
            break;
        if (*end != ':') {
            st = bad(why, "%s %s: expected X:Y pairs separated by commas", opt, s);
            break;
        }
        if ((st = list_number(opt, s, end + 1, ":,", &y, &end, why)) != VALUE_OK)
            break;
        if (*end != ',' && *end != '\0') {
            st = bad(why, "%s %s: expected X:Y pairs separated by commas", opt, s);
            break;
        }
        if (x < 0 || x > 1 || y < 0 || y > 1) {
            st = bad(why, "%s %s: points must lie in [0,1] (got %g:%g)", opt, s, (double)x,
                     (double)y);
            break;
        }
        if (n > 0 && !(x > xs[n - 1])) {
            st = bad(why, "%s %s: X values must be strictly ascending (got %g after %g)", opt, s,
                     (double)x, (double)xs[n - 1]);
            break;
        }
        xs[n] = x;
        ys[n++] = y;
        p = end;
        if (!*p)
            break;
    }
    if (st == VALUE_OK && n < 2)
        st = bad(why, "%s %s: needs at least two points", opt, s);
    if (st != VALUE_OK) {
        free(xs);
        free(ys);
        return st;
    }
    free(out->x);
    free(out->y);
    out->x = xs;
    out->y = ys;
    out->n = n;
    return VALUE_OK;
}

value_status value_vec3(const char *opt, const char *s, float v[3], char **why)
{
    const char *p = s, *end;
    float r[3];
    for (int k = 0; k < 3; k++) {
        value_status st = list_number(opt, s, p, ",", &r[k], &end, why);
        if (st != VALUE_OK)
            return st;
        if (*end != (k < 2 ? ',' : '\0'))
            return bad(why, "%s %s: expected three numbers X,Y,Z", opt, s);
        p = end + 1;
    }
    memcpy(v, r, sizeof r);
    return VALUE_OK;
}

/* One unsigned decimal of s (digits only), its end in *end; false when
 * there is none or it does not fit in 64 bits. */
static bool udecimal(const char *s, unsigned long long *v, const char **end)
{
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    char *e;
    *v = strtoull(s, &e, 10);
    *end = e;
    return errno != ERANGE;
}

const char *value_place(const char *s, double v[3])
{
    static const char *const expected =
        "expected LON,LAT[,H] or none: longitude -180..180 and latitude -90..90 in degrees, height "
        "-1e7..1e7 metres above the WGS84 ellipsoid";
    double t[3] = {0, 0, 0};
    int n = 0;
    for (const char *p = s;; n++) {
        const char *e;
        if (n == 3 || !value_decimal(p, false, &e) || (*e && *e != ','))
            return expected;
        t[n] = strtod(p, NULL);
        if (!*e)
            break;
        p = e + 1;
    }
    if (n < 1)
        return expected;
    if (!(t[0] >= -180 && t[0] <= 180))
        return "the longitude must be in -180..180 degrees";
    if (!(t[1] >= -90 && t[1] <= 90))
        return "the latitude must be in -90..90 degrees";
    if (!(t[2] >= -1e7 && t[2] <= 1e7))
        return "the height must be in -1e7..1e7 metres";
    for (int i = 0; i < 3; i++)
        v[i] = t[i];
    return NULL;
}

const char *value_shard(const char *s, unsigned long long *k, unsigned long long *n)
{
    const char *e;
    unsigned long long a, b;
    if (!udecimal(s, &a, &e) || *e != '/' || !udecimal(e + 1, &b, &e) || *e)
        return (*s >= '0' && *s <= '9' && errno == ERANGE)
                   ? "K and N must be below 2^64 (18446744073709551616)"
                   : "expected K/N: shard K of N, 1 <= K <= N";
    if (b < 1 || a < 1 || a > b)
        return "K must be in 1..N";
    *k = a;
    *n = b;
    return NULL;
}
