/* JSON text builder and strict reader (core/base/json.h). */
#define _POSIX_C_SOURCE 200809L

#include "base/alloc.h"
#include "base/json.h"

#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ builder */

static char locale_decimal_point(void)
{
    const struct lconv *lc = localeconv();
    return lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point[0] : '.';
}

void strata__jtext_init(strata_jtext *j, const strata_allocator *al)
{
    memset(j, 0, sizeof *j);
    j->al = al;
    j->dp = locale_decimal_point();
}

void strata__jtext_free(strata_jtext *j)
{
    strata__free(j->al, j->s);
    j->s = NULL;
    j->len = j->cap = 0;
}

/* Room for `more` bytes and a NUL after them. */
static int reserve(strata_jtext *j, size_t more)
{
    if (j->nomem)
        return 0;
    if (j->cap - j->len > more)
        return 1;
    size_t cap = j->cap ? j->cap : 4096;
    while (cap - j->len <= more) {
        if (cap > SIZE_MAX / 2) {
            j->nomem = 1;
            return 0;
        }
        cap *= 2;
    }
    char *s = strata__alloc(j->al, cap);
    if (!s) {
        j->nomem = 1;
        return 0;
    }
    if (j->len)
        memcpy(s, j->s, j->len);
    strata__free(j->al, j->s);
    j->s = s;
    j->cap = cap;
    return 1;
}

static void append(strata_jtext *j, const char *s, size_t n)
{
    if (!reserve(j, n))
        return;
    memcpy(j->s + j->len, s, n);
    j->len += n;
    j->s[j->len] = '\0';
}

void strata__jtext_raw(strata_jtext *j, const char *s)
{
    append(j, s, strlen(s));
}

void strata__jtext_printf(strata_jtext *j, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        j->nomem = 1; /* callers print short pieces only */
        return;
    }
    append(j, tmp, (size_t)n);
}

static void number(strata_jtext *j, double v)
{
    if (!isfinite(v)) {
        strata__jtext_raw(j, "null");
        return;
    }
    char tmp[40];
    const int n = snprintf(tmp, sizeof tmp, "%.17g", v);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        j->nomem = 1;
        return;
    }
    for (int i = 0; i < n; i++)
        if (tmp[i] == j->dp)
            tmp[i] = '.';
    append(j, tmp, (size_t)n);
}

void strata__jtext_float(strata_jtext *j, float v)
{
    number(j, (double)v);
}

void strata__jtext_double(strata_jtext *j, double v)
{
    number(j, v);
}

void strata__jtext_string(strata_jtext *j, const char *s)
{
    append(j, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            append(j, esc, 2);
        } else if (*p < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", *p);
            append(j, esc, 6);
        } else {
            append(j, (const char *)p, 1);
        }
    }
    append(j, "\"", 1);
}

/* ------------------------------------------------------------ reader */

typedef struct node {
    uint8_t type;
    uint32_t count; /* children */
    uint32_t first; /* arrays, objects: their children at kids[first..]; strings:
                       their bytes at pool[first..] */
    uint32_t len;   /* strings: bytes */
    double num;
} node;

struct strata_json_doc {
    const strata_allocator *al;
    node *nodes;
    uint32_t nnodes, cap_nodes;
    uint32_t *kids; /* child values, contiguous per container */
    uint32_t *keys; /* for object members: their key's string node, at the
                       same index as the member's value in kids */
    uint32_t nkids, cap_kids, cap_keys;
    uint32_t *stack; /* children (and keys) of containers still open */
    uint32_t nstack, cap_stack;
    char *pool; /* decoded strings, each NUL-terminated */
    size_t npool, cap_pool;
    const char *p, *end;
    char dp;
    int nomem;
};

/* Grow array *a of *cap elements to hold need; 0 without memory. */
static int grow(strata_json_doc *d, void **a, uint32_t *cap, uint64_t need, size_t size)
{
    if (need <= *cap)
        return 1;
    uint64_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    if (c > UINT32_MAX) {
        d->nomem = 1;
        return 0;
    }
    void *n = strata__alloc_array(d->al, (size_t)c, size);
    if (!n) {
        d->nomem = 1;
        return 0;
    }
    if (*cap)
        memcpy(n, *a, (size_t)*cap * size);
    strata__free(d->al, *a);
    *a = n;
    *cap = (uint32_t)c;
    return 1;
}

static uint32_t new_node(strata_json_doc *d, uint8_t type)
{
    if (!grow(d, (void **)&d->nodes, &d->cap_nodes, (uint64_t)d->nnodes + 1, sizeof(node)))
        return STRATA_JSON_NIL;
    node *n = &d->nodes[d->nnodes];
    memset(n, 0, sizeof *n);
    n->type = type;
    return d->nnodes++;
}

static int push(strata_json_doc *d, uint32_t v)
{
    if (!grow(d, (void **)&d->stack, &d->cap_stack, (uint64_t)d->nstack + 1, sizeof(uint32_t)))
        return 0;
    d->stack[d->nstack++] = v;
    return 1;
}

static void skip_ws(strata_json_doc *d)
{
    while (d->p < d->end && (*d->p == ' ' || *d->p == '\t' || *d->p == '\n' || *d->p == '\r'))
        d->p++;
}

static int pool_bytes(strata_json_doc *d, const void *s, size_t n)
{
    if (d->cap_pool - d->npool < n + 1) {
        size_t c = d->cap_pool ? d->cap_pool : 1024;
        while (c - d->npool < n + 1)
            c *= 2;
        char *np = strata__alloc(d->al, c);
        if (!np) {
            d->nomem = 1;
            return 0;
        }
        if (d->npool)
            memcpy(np, d->pool, d->npool);
        strata__free(d->al, d->pool);
        d->pool = np;
        d->cap_pool = c;
    }
    memcpy(d->pool + d->npool, s, n);
    d->npool += n;
    return 1;
}

static int hex4(const char *p, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        const char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

/* Length of the valid UTF-8 sequence at p (< end), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
    const unsigned c = p[0];
    size_t n;
    uint32_t min, cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

static void put_utf8(uint32_t cp, unsigned char *b, size_t *n)
{
    if (cp < 0x80) {
        b[0] = (unsigned char)cp;
        *n = 1;
    } else if (cp < 0x800) {
        b[0] = (unsigned char)(0xC0 | cp >> 6);
        b[1] = (unsigned char)(0x80 | (cp & 0x3F));
        *n = 2;
    } else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xE0 | cp >> 12);
        b[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp & 0x3F));
        *n = 3;
    } else {
        b[0] = (unsigned char)(0xF0 | cp >> 18);
        b[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
        b[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        b[3] = (unsigned char)(0x80 | (cp & 0x3F));
        *n = 4;
    }
}

/* A string at d->p (on its opening quote): a new string node. */
static uint32_t parse_string(strata_json_doc *d)
{
    d->p++;
    const size_t start = d->npool;
    while (1) {
        if (d->p >= d->end)
            return STRATA_JSON_NIL;
        const unsigned char c = (unsigned char)*d->p;
        if (c == '"') {
            d->p++;
            break;
        }
        if (c < 0x20)
            return STRATA_JSON_NIL;
        if (c == '\\') {
            if (d->end - d->p < 2)
                return STRATA_JSON_NIL;
            const char e = d->p[1];
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *k = e ? strchr(from, e) : NULL;
            if (k) {
                if (!pool_bytes(d, &to[k - from], 1))
                    return STRATA_JSON_NIL;
                d->p += 2;
                continue;
            }
            uint32_t cp;
            if (e != 'u' || d->end - d->p < 6 || !hex4(d->p + 2, &cp))
                return STRATA_JSON_NIL;
            d->p += 6;
            if (cp >= 0xDC00 && cp <= 0xDFFF)
                return STRATA_JSON_NIL; /* a lone low surrogate */
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo;
                if (d->end - d->p < 6 || d->p[0] != '\\' || d->p[1] != 'u' ||
                    !hex4(d->p + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
                    return STRATA_JSON_NIL;
                d->p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            unsigned char b[4];
            size_t n;
            put_utf8(cp, b, &n);
            if (!pool_bytes(d, b, n))
                return STRATA_JSON_NIL;
            continue;
        }
        const size_t n = utf8_len((const unsigned char *)d->p, (const unsigned char *)d->end);
        if (n == 0 || !pool_bytes(d, d->p, n))
            return STRATA_JSON_NIL;
        d->p += n;
    }
    if (d->npool - start > UINT32_MAX || start > UINT32_MAX || !pool_bytes(d, "", 1))
        return STRATA_JSON_NIL;
    const uint32_t v = new_node(d, STRATA_JSON_STRING);
    if (v != STRATA_JSON_NIL) {
        d->nodes[v].first = (uint32_t)start;
        d->nodes[v].len = (uint32_t)(d->npool - 1 - start);
    }
    return v;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static uint32_t parse_number(strata_json_doc *d)
{
    const char *s = d->p, *p = s;
    if (p < d->end && *p == '-')
        p++;
    if (p >= d->end || !is_digit(*p))
        return STRATA_JSON_NIL;
    if (*p == '0')
        p++;
    else
        while (p < d->end && is_digit(*p))
            p++;
    if (p < d->end && *p == '.') {
        p++;
        if (p >= d->end || !is_digit(*p))
            return STRATA_JSON_NIL;
        while (p < d->end && is_digit(*p))
            p++;
    }
    if (p < d->end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < d->end && (*p == '+' || *p == '-'))
            p++;
        if (p >= d->end || !is_digit(*p))
            return STRATA_JSON_NIL;
        while (p < d->end && is_digit(*p))
            p++;
    }
    /* strtod follows the locale's decimal point: hand it that. */
    char tmp[512];
    const size_t n = (size_t)(p - s);
    if (n >= sizeof tmp)
        return STRATA_JSON_NIL; /* no JSON strata reads has such numbers */
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    for (size_t i = 0; i < n; i++)
        if (tmp[i] == '.')
            tmp[i] = d->dp;
    const double v = strtod(tmp, NULL);
    if (!isfinite(v))
        return STRATA_JSON_NIL; /* beyond the double range */
    d->p = p;
    const uint32_t id = new_node(d, STRATA_JSON_NUMBER);
    if (id != STRATA_JSON_NIL)
        d->nodes[id].num = v;
    return id;
}

static int literal(strata_json_doc *d, const char *word)
{
    const size_t n = strlen(word);
    if ((size_t)(d->end - d->p) < n || memcmp(d->p, word, n))
        return 0;
    d->p += n;
    return 1;
}

static uint32_t parse_value(strata_json_doc *d, int depth);

/* Close a container whose n children (and, for objects, keys before each)
 * are on top of the stack. */
static uint32_t close_container(strata_json_doc *d, uint8_t type, uint32_t n)
{
    const uint32_t per = type == STRATA_JSON_OBJECT ? 2 : 1;
    const uint32_t v = new_node(d, type);
    if (v == STRATA_JSON_NIL ||
        !grow(d, (void **)&d->kids, &d->cap_kids, (uint64_t)d->nkids + n, sizeof(uint32_t)) ||
        (type == STRATA_JSON_OBJECT &&
         !grow(d, (void **)&d->keys, &d->cap_keys, (uint64_t)d->nkids + n, sizeof(uint32_t))))
        return STRATA_JSON_NIL;
    /* An index, not a pointer: the stack is still NULL when only empty
     * containers were read so far, and NULL + 0 is undefined. */
    const uint32_t top = d->nstack - per * n;
    for (uint32_t i = 0; i < n; i++) {
        if (type == STRATA_JSON_OBJECT) {
            d->keys[d->nkids + i] = d->stack[top + 2 * i];
            d->kids[d->nkids + i] = d->stack[top + 2 * i + 1];
        } else {
            d->kids[d->nkids + i] = d->stack[top + i];
        }
    }
    d->nstack -= per * n;
    d->nodes[v].first = d->nkids;
    d->nodes[v].count = n;
    d->nkids += n;
    return v;
}

static uint32_t parse_container(strata_json_doc *d, int depth, char close)
{
    const uint8_t type = close == '}' ? STRATA_JSON_OBJECT : STRATA_JSON_ARRAY;
    d->p++;
    uint32_t n = 0;
    skip_ws(d);
    if (d->p < d->end && *d->p == close) {
        d->p++;
        return close_container(d, type, 0);
    }
    while (1) {
        skip_ws(d);
        if (type == STRATA_JSON_OBJECT) {
            if (d->p >= d->end || *d->p != '"')
                return STRATA_JSON_NIL;
            const uint32_t key = parse_string(d);
            if (key == STRATA_JSON_NIL || !push(d, key))
                return STRATA_JSON_NIL;
            skip_ws(d);
            if (d->p >= d->end || *d->p != ':')
                return STRATA_JSON_NIL;
            d->p++;
        }
        const uint32_t v = parse_value(d, depth + 1);
        if (v == STRATA_JSON_NIL || !push(d, v))
            return STRATA_JSON_NIL;
        n++;
        skip_ws(d);
        if (d->p >= d->end)
            return STRATA_JSON_NIL;
        if (*d->p == ',') {
            d->p++;
            continue;
        }
        if (*d->p != close)
            return STRATA_JSON_NIL;
        d->p++;
        return close_container(d, type, n);
    }
}

static uint32_t parse_value(strata_json_doc *d, int depth)
{
    if (depth > STRATA_JSON_MAX_DEPTH)
        return STRATA_JSON_NIL;
    skip_ws(d);
    if (d->p >= d->end)
        return STRATA_JSON_NIL;
    switch (*d->p) {
    case '{':
        return parse_container(d, depth, '}');
    case '[':
        return parse_container(d, depth, ']');
    case '"':
        return parse_string(d);
    case 't':
        return literal(d, "true") ? new_node(d, STRATA_JSON_TRUE) : STRATA_JSON_NIL;
    case 'f':
        return literal(d, "false") ? new_node(d, STRATA_JSON_FALSE) : STRATA_JSON_NIL;
    case 'n':
        return literal(d, "null") ? new_node(d, STRATA_JSON_NULL) : STRATA_JSON_NIL;
    default:
        return parse_number(d);
    }
}

void strata__json_free(strata_json_doc *d)
{
    if (!d)
        return;
    const strata_allocator *al = d->al;
    strata__free(al, d->nodes);
    strata__free(al, d->kids);
    strata__free(al, d->keys);
    strata__free(al, d->stack);
    strata__free(al, d->pool);
    strata__free(al, d);
}

strata_status strata__json_parse(const strata_allocator *al, const char *text, size_t len,
                                 strata_json_doc **out)
{
    *out = NULL;
    strata_json_doc *d = strata__alloc(al, sizeof *d);
    if (!d)
        return STRATA_ERR_NOMEM;
    memset(d, 0, sizeof *d);
    d->al = al;
    d->p = text;
    d->end = text + len;
    d->dp = locale_decimal_point();
    const uint32_t root = parse_value(d, 0);
    skip_ws(d);
    if (root == STRATA_JSON_NIL || d->p != d->end) {
        const strata_status st = d->nomem ? STRATA_ERR_NOMEM : STRATA_ERR_FORMAT;
        strata__json_free(d);
        return st;
    }
    /* the root is the last node made */
    *out = d;
    return STRATA_OK;
}

strata_json_ref strata__json_root(const strata_json_doc *d)
{
    return d && d->nnodes ? d->nnodes - 1 : STRATA_JSON_NIL;
}

strata_json_type strata__json_type(const strata_json_doc *d, strata_json_ref v)
{
    return d && v < d->nnodes ? (strata_json_type)d->nodes[v].type : STRATA_JSON_NONE;
}

uint32_t strata__json_count(const strata_json_doc *d, strata_json_ref v)
{
    const strata_json_type t = strata__json_type(d, v);
    return t == STRATA_JSON_ARRAY || t == STRATA_JSON_OBJECT ? d->nodes[v].count : 0;
}

strata_json_ref strata__json_at(const strata_json_doc *d, strata_json_ref v, uint32_t i)
{
    if (i >= strata__json_count(d, v))
        return STRATA_JSON_NIL;
    return d->kids[d->nodes[v].first + i];
}

strata_json_ref strata__json_get(const strata_json_doc *d, strata_json_ref obj, const char *key)
{
    if (strata__json_type(d, obj) != STRATA_JSON_OBJECT)
        return STRATA_JSON_NIL;
    const node *o = &d->nodes[obj];
    const size_t klen = strlen(key);
    for (uint32_t i = o->count; i-- > 0;) {
        const node *k = &d->nodes[d->keys[o->first + i]];
        if (k->len == klen && !memcmp(d->pool + k->first, key, klen))
            return d->kids[o->first + i];
    }
    return STRATA_JSON_NIL;
}

int strata__json_number(const strata_json_doc *d, strata_json_ref v, double *out)
{
    if (strata__json_type(d, v) != STRATA_JSON_NUMBER)
        return 0;
    *out = d->nodes[v].num;
    return 1;
}

int strata__json_u64(const strata_json_doc *d, strata_json_ref v, uint64_t *out)
{
    double x;
    if (!strata__json_number(d, v, &x) || !(x >= 0.0) || x > 9007199254740992.0 ||
        x != floor(x))
        return 0;
    *out = (uint64_t)x;
    return 1;
}

int strata__json_string(const strata_json_doc *d, strata_json_ref v, const char **s, size_t *len)
{
    if (strata__json_type(d, v) != STRATA_JSON_STRING)
        return 0;
    *s = d->pool + d->nodes[v].first;
    *len = d->nodes[v].len;
    return 1;
}
