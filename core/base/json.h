/* JSON text: a builder for the documents strata writes (glTF, 3D Tiles
 * tilesets, world manifests) and a strict reader for those it reads back
 * (manifests and tile metadata of worlds on --resume).
 *
 * The builder never follows the locale: numbers are written with '.',
 * floats so that they read back as the same float.  The reader accepts
 * exactly RFC 8259 JSON (UTF-8, no comments, no trailing commas, no
 * leading zeros, no NaN), nested at most STRATA_JSON_MAX_DEPTH deep, and
 * needs at most a small multiple of the text's size: any malformed,
 * truncated or over-deep text is STRATA_ERR_FORMAT, never a crash. */
#ifndef STRATA_JSON_H
#define STRATA_JSON_H

#include "base.h"

#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------ builder */

typedef struct strata_jtext {
    const strata_allocator *al;
    char *s;
    size_t len, cap;
    int nomem; /* set by the first failed allocation; later calls do nothing */
    char dp;   /* the locale's decimal point */
} strata_jtext;

/* Start an empty text (no allocation yet). */
STRATA_HIDDEN void strata__jtext_init(strata_jtext *j, const strata_allocator *al);
STRATA_HIDDEN void strata__jtext_free(strata_jtext *j);
/* Raw text, as it is. */
STRATA_HIDDEN void strata__jtext_raw(strata_jtext *j, const char *s);
/* printf without float conversions (those would follow the locale). */
STRATA_HIDDEN void strata__jtext_printf(strata_jtext *j, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A float that reads back as the same float (its exact double value,
 * %.17g); non-finite values are written as null. */
STRATA_HIDDEN void strata__jtext_float(strata_jtext *j, float v);
/* A double that reads back as the same double. */
STRATA_HIDDEN void strata__jtext_double(strata_jtext *j, double v);
/* A quoted string, escaped as JSON requires (s is UTF-8). */
STRATA_HIDDEN void strata__jtext_string(strata_jtext *j, const char *s);

/* ------------------------------------------------------------ reader */

#define STRATA_JSON_MAX_DEPTH 64

typedef enum strata_json_type {
    STRATA_JSON_NONE = 0, /* a missing member or element */
    STRATA_JSON_NULL,
    STRATA_JSON_FALSE,
    STRATA_JSON_TRUE,
    STRATA_JSON_NUMBER,
    STRATA_JSON_STRING,
    STRATA_JSON_ARRAY,
    STRATA_JSON_OBJECT
} strata_json_type;

typedef struct strata_json_doc strata_json_doc;
/* A value of a document: an index, STRATA_JSON_NIL for none. */
typedef uint32_t strata_json_ref;
#define STRATA_JSON_NIL UINT32_MAX

/* Parse len bytes (no NUL needed).  STRATA_ERR_FORMAT for anything but one
 * JSON value surrounded by whitespace, STRATA_ERR_NOMEM.  The root is
 * strata__json_root(). */
STRATA_HIDDEN strata_status strata__json_parse(const strata_allocator *al, const char *text,
                                               size_t len, strata_json_doc **out);
STRATA_HIDDEN void strata__json_free(strata_json_doc *d);
STRATA_HIDDEN strata_json_ref strata__json_root(const strata_json_doc *d);
STRATA_HIDDEN strata_json_type strata__json_type(const strata_json_doc *d, strata_json_ref v);
/* Elements of an array or members of an object (0 for other values). */
STRATA_HIDDEN uint32_t strata__json_count(const strata_json_doc *d, strata_json_ref v);
/* Element i of an array, or the value of member i of an object. */
STRATA_HIDDEN strata_json_ref strata__json_at(const strata_json_doc *d, strata_json_ref v,
                                              uint32_t i);
/* The value of the member named key (the last one if repeated), or NIL. */
STRATA_HIDDEN strata_json_ref strata__json_get(const strata_json_doc *d, strata_json_ref obj,
                                               const char *key);
/* A number's value (false for other types). */
STRATA_HIDDEN int strata__json_number(const strata_json_doc *d, strata_json_ref v, double *out);
/* A number that is an integer in [0, 2^53] (false otherwise). */
STRATA_HIDDEN int strata__json_u64(const strata_json_doc *d, strata_json_ref v, uint64_t *out);
/* A string's bytes, decoded (NUL-terminated; may contain NUL bytes when
 * the text escaped them as \u0000; false for other types). */
STRATA_HIDDEN int strata__json_string(const strata_json_doc *d, strata_json_ref v,
                                      const char **s, size_t *len);

#endif
