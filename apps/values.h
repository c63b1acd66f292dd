/* The values of command-line options, from text: plain decimal numbers,
 * lists of plane heights, curves and X,Y,Z vectors.
 *
 * Each parser stores the value and returns VALUE_OK, or returns VALUE_BAD
 * with *why set to the usage message (naming the option `opt`, the value
 * and what is valid; malloc'ed, for the caller to free) and the target
 * untouched.  They never print or exit, so cli.c turns a failure into a
 * usage error and tests/fuzz calls them on arbitrary text. */
#ifndef STRATA_APPS_VALUES_H
#define STRATA_APPS_VALUES_H

#include <stdbool.h>
#include <stddef.h>

typedef enum value_status {
    VALUE_OK,
    VALUE_BAD,  /* *why says what is wrong */
    VALUE_NOMEM /* out of memory (*why is NULL) */
} value_status;

typedef struct cli_floats {
    float *v; /* malloc'ed */
    size_t n;
} cli_floats;

typedef struct cli_curve {
    float *x, *y; /* malloc'ed */
    size_t n;
} cli_curve;

/* Whether s starts with a plain decimal number, [+-]digits for an
 * integer, [+-]digits[.digits][(e|E)[+-]digits] (digits on at least one
 * side of the point) for a real; *end is set after it (to s if not). */
bool value_decimal(const char *s, bool integer, const char **end);

/* --shard K/N: two plain decimal integers, 1 <= K <= N < 2^64, with
 * nothing around them; NULL when s is one (K and N stored), else what is
 * wrong with it (a static string). */
const char *value_shard(const char *s, unsigned long long *k, unsigned long long *n);

/* --place LON,LAT[,H]: two or three plain decimal numbers, longitude
 * -180..180 and latitude -90..90 degrees, height -1e7..1e7 metres (0
 * when left out); NULL when s is one (v[0..2] stored), else what is wrong
 * with it (a static string). */
const char *value_place(const char *s, double v[3]);

/* A decimal integer in [min, max].  `range` is the valid range as the
 * messages show it ("0..13"). */
value_status value_int(const char *opt, const char *s, long long min, long long max,
                       const char *range, long long *out, char **why);

/* A decimal number in [min, max], or in (min, max] when above_min. */
value_status value_real(const char *opt, const char *s, double min, double max, bool above_min,
                        const char *range, double *out, char **why);

/* A,B,...: one to max strictly ascending numbers that fit a float.  On
 * success the old out->v is freed and replaced. */
value_status value_levels(const char *opt, const char *s, size_t max, cli_floats *out,
                          char **why);

/* X:Y,...: two or more points in [0,1]^2, X strictly ascending.  On
 * success the old arrays are freed and replaced. */
value_status value_curve(const char *opt, const char *s, cli_curve *out, char **why);

/* X,Y,Z: three numbers that fit a float. */
value_status value_vec3(const char *opt, const char *s, float v[3], char **why);

#endif
