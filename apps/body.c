/* The bodies of --sculpt's POST requests: apps/body.h. */
#include "body.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the value of "key" starts in a JSON object body: the key quoted
 * once in the body, then blanks and ':' (blanks after it skipped). */
static bool value(const char *body, const char *key, const char **at)
{
    char q[40];
    snprintf(q, sizeof q, "\"%s\"", key);
    const char *p = strstr(body, q);
    if (!p || strstr(p + 1, q))
        return false; /* missing, or twice */
    p += strlen(q);
    p += strspn(p, " \t\r\n");
    if (*p != ':')
        return false;
    p++;
    *at = p + strspn(p, " \t\r\n");
    return true;
}

/* A finite number within STRATA_EDIT_COORD_MAX at *p, blanks after it
 * skipped. */
static bool number(const char **p, float *out)
{
    char *end;
    errno = 0;
    const double d = strtod(*p, &end);
    if (end == *p || errno || !isfinite(d) || fabs(d) > STRATA_EDIT_COORD_MAX)
        return false;
    *out = (float)d;
    *p = end + strspn(end, " \t\r\n");
    return true;
}

/* "key":"word" with word of [a-z0-9_-], into w[0..cap). */
bool body_word(const char *body, const char *key, char *w, size_t cap)
{
    const char *p;
    if (!value(body, key, &p) || *p++ != '"')
        return false;
    const size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");
    if (n == 0 || n >= cap || p[n] != '"')
        return false;
    memcpy(w, p, n);
    w[n] = '\0';
    return true;
}

const char *body_dab(const char *body, strata_edit *d)
{
    char name[16];
    const char *p;
    if (!body_word(body, "brush", name, sizeof name) ||
        strata_brush_from_name(name, &d->brush) != STRATA_OK)
        return "\"brush\": one of raise, lower, smooth, terrace, noise";
    if (!value(body, "center", &p) || *p++ != '[')
        return "\"center\": [x, y, z]";
    for (int k = 0; k < 3; k++) {
        p += strspn(p, " \t\r\n");
        if (!number(&p, &d->center[k]) || *p++ != (k < 2 ? ',' : ']'))
            return "\"center\": [x, y, z], three finite numbers";
    }
    if (!value(body, "radius", &p) || !number(&p, &d->radius))
        return "\"radius\": a number";
    if (!value(body, "strength", &p) || !number(&p, &d->strength))
        return "\"strength\": a number";
    if (strata_edit_validate(d) != STRATA_OK)
        return "a dab out of bounds (radius > 0, strength >= 0, at most 1 for smooth and "
               "terrace)";
    return NULL;
}

const char *body_export(const char *body, char format[8], char name[65])
{
    if (!body_word(body, "format", format, 8) ||
        (strcmp(format, "glb") && strcmp(format, "stl") && strcmp(format, "world")))
        return "\"format\": glb, stl or world";
    if (!body_word(body, "name", name, 65) || name[0] == '-')
        return "\"name\": 1 to 64 letters, digits, '_' or '-' (not first)";
    return NULL;
}
