/* Numbers in the text mesh formats (see lex.h). */
#include "base/lex.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>

static unsigned char lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

static bool token_is_ci(const char *t, size_t n, const char *word)
{
    size_t m = strlen(word);
    if (n != m)
        return false;
    for (size_t i = 0; i < n; i++)
        if (lower((unsigned char)t[i]) != (unsigned char)word[i])
            return false;
    return true;
}

strata_status strata__parse_real(const char *t, size_t n, float *out)
{
    if (n == 0 || n > STRATA_MAX_NUMBER_CHARS)
        return STRATA_ERR_FORMAT;
    size_t i = 0;
    bool neg = false;
    if (t[0] == '+' || t[0] == '-') {
        neg = t[0] == '-';
        i++;
    }
    if (token_is_ci(t + i, n - i, "nan")) {
        if (out)
            *out = NAN;
        return STRATA_OK;
    }
    if (token_is_ci(t + i, n - i, "inf") || token_is_ci(t + i, n - i, "infinity")) {
        if (out)
            *out = neg ? -INFINITY : INFINITY;
        return STRATA_OK;
    }
    size_t digits = 0, dot = n;
    for (; i < n && (strata__is_digit((unsigned char)t[i]) || (t[i] == '.' && dot == n)); i++) {
        if (t[i] == '.')
            dot = i;
        else
            digits++;
    }
    if (digits == 0)
        return STRATA_ERR_FORMAT;
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        i++;
        if (i < n && (t[i] == '+' || t[i] == '-'))
            i++;
        size_t ed = 0;
        for (; i < n && strata__is_digit((unsigned char)t[i]); i++)
            ed++;
        if (ed == 0)
            return STRATA_ERR_FORMAT;
    }
    if (i != n)
        return STRATA_ERR_FORMAT;
    if (!out)
        return STRATA_OK;
    /* Copy with the locale's decimal point (which may be several bytes). */
    char buf[STRATA_MAX_NUMBER_CHARS + 16];
    const struct lconv *lc = localeconv();
    const char *dp = lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point : ".";
    size_t dpl = strlen(dp);
    if (dpl > 8)
        return STRATA_ERR_FORMAT;
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        if (j == dot) {
            memcpy(buf + k, dp, dpl);
            k += dpl;
        } else {
            buf[k++] = t[j];
        }
    }
    buf[k] = '\0';
    char *end;
    float v = strtof(buf, &end);
    if (end != buf + k)
        return STRATA_ERR_FORMAT;
    *out = v; /* an out-of-range value is +-inf: NOT_FINITE later */
    return STRATA_OK;
}

strata_status strata__parse_integer(const char *t, size_t n, int64_t *out)
{
    size_t i = 0;
    bool neg = false;
    if (n > 0 && (t[0] == '+' || t[0] == '-')) {
        neg = t[0] == '-';
        i++;
    }
    if (i == n || n - i > 19)
        return STRATA_ERR_FORMAT;
    uint64_t v = 0;
    for (; i < n; i++) {
        if (!strata__is_digit((unsigned char)t[i]))
            return STRATA_ERR_FORMAT;
        v = v * 10 + (uint64_t)(t[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX)
        return STRATA_ERR_FORMAT;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return STRATA_OK;
}

