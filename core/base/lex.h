/* ASCII tokens of the text formats (core/base/lex.c): the PLY reader
 * (core/io/ply.c) and the OBJ reader (core/io/obj.c) share these, so both read
 * numbers the same way, whatever the locale; the PGM/PFM header reader
 * (core/io/pnm.c) uses the character classes. */
#ifndef STRATA_LEX_H
#define STRATA_LEX_H

#include "base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline bool strata__is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static inline bool strata__is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* The token t[0..n) is exactly word. */
static inline bool strata__tok_eq(const char *t, size_t n, const char *word)
{
    return strlen(word) == n && !memcmp(t, word, n);
}

/* Longest number token accepted; no float needs more digits to read back
 * exactly, and a longer one is not something a mesh writer produced. */
#define STRATA_MAX_NUMBER_CHARS 96

/* A real number: [+-](nan|inf|infinity) or [+-]digits[.digits][(e|E)[+-]digits]
 * (digits on at least one side of the point).  Converted with strtof, which
 * rounds correctly, after the '.' is replaced by the locale's decimal point
 * (a host application may have set LC_NUMERIC).  Returns FORMAT for
 * anything else; *out is only written when out is non-NULL. */
STRATA_HIDDEN strata_status strata__parse_real(const char *t, size_t n, float *out);

/* A decimal integer [+-]digits that fits int64. */
STRATA_HIDDEN strata_status strata__parse_integer(const char *t, size_t n, int64_t *out);

#endif
