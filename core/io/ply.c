/* PLY files: reading ASCII, binary little- and big-endian PLY into the
 * importer's builder (import.h), and writing results as binary
 * little-endian PLY (write.h).
 *
 * Reading: every count a header claims is checked against the bytes that
 * follow it before anything of that size is allocated.  Binary files
 * whose records have one size per element are decoded on the context's
 * threads; the rest, and files with a fault, by one reader in order.
 *
 * Writing: a header and fixed-size records (vertices, then faces in index
 * order), so the file is laid out as spans written in parallel blocks
 * (output.h), the same bytes for any thread count. */
#define _POSIX_C_SOURCE 200809L

#include "base/alloc.h"
#include "base/ctx.h"
#include "io/import.h"
#include "base/lex.h"
#include "base/par.h"
#include "mesh/result.h"
#include "io/write.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

enum { T_CHAR, T_UCHAR, T_SHORT, T_USHORT, T_INT, T_UINT, T_FLOAT, T_DOUBLE, T_COUNT };
static const char *const type_names[T_COUNT][2] = {
    {"char", "int8"},   {"uchar", "uint8"}, {"short", "int16"},  {"ushort", "uint16"},
    {"int", "int32"},   {"uint", "uint32"}, {"float", "float32"}, {"double", "float64"},
};
static const uint8_t type_size[T_COUNT] = {1, 1, 2, 2, 4, 4, 4, 8};
#define IS_INTEGER(t) ((t) < T_FLOAT)

enum { ROLE_NONE, ROLE_X, ROLE_Y, ROLE_Z, ROLE_INDICES };
enum { ELEM_OTHER, ELEM_VERTEX, ELEM_FACE };
enum { PLY_ASCII, PLY_LE, PLY_BE };

/* Header limits (documented in strata.h). */
#define PLY_MAX_ELEMENTS 64
#define PLY_MAX_PROPERTIES 1024

typedef struct ply_prop {
    uint8_t list, type, count_type, role;
} ply_prop;

typedef struct ply_elem {
    uint8_t kind;
    uint64_t count;
    uint32_t first, nprops;
} ply_elem;

typedef struct ply {
    int format;
    ply_elem elem[PLY_MAX_ELEMENTS];
    ply_prop prop[PLY_MAX_PROPERTIES];
    uint32_t nelem, nprop;
    uint64_t nverts; /* declared vertex count */
    const uint8_t *p, *end;
} ply;

static int type_from(const char *t, size_t n)
{
    for (int i = 0; i < T_COUNT; i++)
        for (int j = 0; j < 2; j++)
            if (strlen(type_names[i][j]) == n && !memcmp(t, type_names[i][j], n))
                return i;
    return -1;
}

/* Split a header line into at most `max` tokens separated by spaces or
 * tabs; returns the token count, or max + 1 when there are more. */
static size_t split(const char *s, size_t n, const char **tok, size_t *len, size_t max)
{
    size_t k = 0, i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i == n)
            break;
        if (k == max)
            return max + 1;
        const size_t from = i;
        while (i < n && s[i] != ' ' && s[i] != '\t')
            i++;
        tok[k] = s + from;
        len[k] = i - from;
        k++;
    }
    return k;
}

/* Parse the header from just after "ply\n" up to and including the
 * "end_header" line; leaves p->p at the first data byte. */
/* A "property" line of the header (k tokens): its type, list or not, and
 * the role its name gives it in the current element. */
static strata_status ply_property(ply *h, const char *const *tok, const size_t *tl, size_t k)
{
    if (h->nelem == 0 || h->nprop == PLY_MAX_PROPERTIES)
        return STRATA_ERR_FORMAT;
    ply_elem *e = &h->elem[h->nelem - 1];
    ply_prop *pr = &h->prop[h->nprop];
    memset(pr, 0, sizeof *pr);
    const char *name;
    size_t nlen;
    if (k == 5 && strata__tok_eq(tok[1], tl[1], "list")) {
        int ct = type_from(tok[2], tl[2]), it = type_from(tok[3], tl[3]);
        if (ct < 0 || it < 0 || !IS_INTEGER(ct))
            return STRATA_ERR_FORMAT;
        pr->list = 1;
        pr->count_type = (uint8_t)ct;
        pr->type = (uint8_t)it;
        name = tok[4];
        nlen = tl[4];
    } else if (k == 3) {
        int t = type_from(tok[1], tl[1]);
        if (t < 0)
            return STRATA_ERR_FORMAT;
        pr->type = (uint8_t)t;
        name = tok[2];
        nlen = tl[2];
    } else {
        return STRATA_ERR_FORMAT;
    }
    int role = ROLE_NONE;
    if (e->kind == ELEM_VERTEX)
        role = strata__tok_eq(name, nlen, "x") ? ROLE_X
               : strata__tok_eq(name, nlen, "y") ? ROLE_Y
               : strata__tok_eq(name, nlen, "z") ? ROLE_Z
                                         : ROLE_NONE;
    else if (e->kind == ELEM_FACE &&
             (strata__tok_eq(name, nlen, "vertex_indices") || strata__tok_eq(name, nlen, "vertex_index")))
        role = ROLE_INDICES;
    for (uint32_t i = e->first; i < h->nprop && role != ROLE_NONE; i++) {
        if (h->prop[i].role == role) {
            if (role != ROLE_INDICES)
                return STRATA_ERR_FORMAT; /* x twice */
            role = ROLE_NONE;             /* both spellings: use the first */
        }
    }
    if ((role == ROLE_X || role == ROLE_Y || role == ROLE_Z) && pr->list)
        return STRATA_ERR_FORMAT;
    if (role == ROLE_INDICES && (!pr->list || !IS_INTEGER(pr->type)))
        return STRATA_ERR_FORMAT;
    pr->role = (uint8_t)role;
    h->nprop++;
    e->nprops++;
    return STRATA_OK;
}

static strata_status ply_header(ply *h, const uint8_t *data, size_t len, size_t start)
{
    const char *s = (const char *)data;
    size_t pos = start;
    bool have_format = false;
    for (;;) {
        const char *nl = memchr(s + pos, '\n', len - pos);
        if (!nl)
            return STRATA_ERR_TRUNCATED; /* the header never ends */
        size_t n = (size_t)(nl - (s + pos));
        const char *line = s + pos;
        pos += n + 1;
        if (n > 0 && line[n - 1] == '\r')
            n--;
        if (memchr(line, '\0', n))
            return STRATA_ERR_FORMAT;
        const char *tok[6];
        size_t tl[6];
        size_t k = split(line, n, tok, tl, 5);
        if (k == 0)
            continue; /* tolerate blank lines */
        if (strata__tok_eq(tok[0], tl[0], "comment") || strata__tok_eq(tok[0], tl[0], "obj_info"))
            continue;
        if (k > 5)
            return STRATA_ERR_FORMAT;
        if (strata__tok_eq(tok[0], tl[0], "end_header")) {
            if (k != 1 || !have_format)
                return STRATA_ERR_FORMAT;
            break;
        }
        if (strata__tok_eq(tok[0], tl[0], "format")) {
            if (have_format || h->nelem || k != 3 || !strata__tok_eq(tok[2], tl[2], "1.0"))
                return STRATA_ERR_FORMAT;
            if (strata__tok_eq(tok[1], tl[1], "ascii"))
                h->format = PLY_ASCII;
            else if (strata__tok_eq(tok[1], tl[1], "binary_little_endian"))
                h->format = PLY_LE;
            else if (strata__tok_eq(tok[1], tl[1], "binary_big_endian"))
                h->format = PLY_BE;
            else
                return STRATA_ERR_FORMAT;
            have_format = true;
        } else if (strata__tok_eq(tok[0], tl[0], "element")) {
            int64_t count;
            if (k != 3 || h->nelem == PLY_MAX_ELEMENTS ||
                strata__parse_integer(tok[2], tl[2], &count) != STRATA_OK || count < 0)
                return STRATA_ERR_FORMAT;
            ply_elem *e = &h->elem[h->nelem++];
            e->kind = strata__tok_eq(tok[1], tl[1], "vertex") ? ELEM_VERTEX
                      : strata__tok_eq(tok[1], tl[1], "face") ? ELEM_FACE
                                                      : ELEM_OTHER;
            for (uint32_t i = 0; i + 1 < h->nelem; i++)
                if (e->kind != ELEM_OTHER && h->elem[i].kind == e->kind)
                    return STRATA_ERR_FORMAT; /* a second vertex or face element */
            e->count = (uint64_t)count;
            e->first = h->nprop;
            e->nprops = 0;
        } else if (strata__tok_eq(tok[0], tl[0], "property")) {
            const strata_status st = ply_property(h, tok, tl, k);
            if (st != STRATA_OK)
                return st;
        } else {
            return STRATA_ERR_FORMAT;
        }
    }
    /* The vertex element must have x, y and z; a face element its list. */
    h->nverts = 0;
    for (uint32_t i = 0; i < h->nelem; i++) {
        const ply_elem *e = &h->elem[i];
        unsigned roles = 0;
        for (uint32_t j = 0; j < e->nprops; j++)
            roles |= 1u << h->prop[e->first + j].role;
        if (e->kind == ELEM_VERTEX) {
            if ((roles & 0xeu) != 0xeu)
                return STRATA_ERR_FORMAT;
            h->nverts = e->count;
        }
        if (e->kind == ELEM_FACE && !(roles & (1u << ROLE_INDICES)))
            return STRATA_ERR_FORMAT;
    }
    h->p = data + pos;
    h->end = data + len;

    /* Every element instance needs some bytes: binary, the sizes of its
     * scalars and list counts; ASCII, a token and a separator per property
     * (the last token may end the file).  Claims the data cannot hold are
     * refused here, before the vertex array is allocated. */
    const uint64_t remaining = (uint64_t)(h->end - h->p);
    const uint64_t budget = h->format == PLY_ASCII ? (remaining + 1) / 2 : remaining;
    uint64_t need = 0;
    for (uint32_t i = 0; i < h->nelem; i++) {
        const ply_elem *e = &h->elem[i];
        uint64_t per = 0;
        for (uint32_t j = 0; j < e->nprops; j++) {
            const ply_prop *pr = &h->prop[e->first + j];
            per += h->format == PLY_ASCII ? 1 : pr->list ? type_size[pr->count_type]
                                                         : type_size[pr->type];
        }
        if (per && e->count > (budget - need) / per)
            return STRATA_ERR_TRUNCATED;
        need += per * e->count;
    }
    if (h->nverts > UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    return STRATA_OK;
}

/* Binary scalars. */
static uint64_t load_bytes(const uint8_t *p, unsigned n, bool be)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[be ? n - 1 - i : i] << (8 * i);
    return v;
}

/* A binary scalar of type t as a double (integers exactly). */
static double scalar_value(const uint8_t *p, int t, bool be)
{
    const uint64_t u = load_bytes(p, type_size[t], be);
    switch (t) {
    case T_CHAR: return (double)(int8_t)u;
    case T_UCHAR: return (double)(uint8_t)u;
    case T_SHORT: return (double)(int16_t)u;
    case T_USHORT: return (double)(uint16_t)u;
    case T_INT: return (double)(int32_t)u;
    case T_UINT: return (double)(uint32_t)u;
    case T_FLOAT: {
        uint32_t b = (uint32_t)u;
        float f;
        memcpy(&f, &b, sizeof f);
        return (double)f;
    }
    default: {
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    }
}

/* A binary integer scalar as int64 (t is an integer type). */
static int64_t integer_value(const uint8_t *p, int t, bool be)
{
    const uint64_t u = load_bytes(p, type_size[t], be);
    switch (t) {
    case T_CHAR: return (int8_t)u;
    case T_SHORT: return (int16_t)u;
    case T_INT: return (int32_t)u;
    default: return (int64_t)u; /* unsigned types */
    }
}

/* The next ASCII token (whitespace-separated). */
static strata_status next_token(ply *h, const char **t, size_t *n)
{
    const uint8_t *p = h->p;
    while (p < h->end && strata__is_space(*p))
        p++;
    if (p == h->end)
        return STRATA_ERR_TRUNCATED;
    const uint8_t *s = p;
    while (p < h->end && !strata__is_space(*p))
        p++;
    *t = (const char *)s;
    *n = (size_t)(p - s);
    h->p = p;
    return STRATA_OK;
}

/* One value of a property as an integer (list counts and indices) or as
 * a float (coordinates); skipped values are only checked. */
static strata_status ply_integer(ply *h, int type, int64_t *out)
{
    if (h->format == PLY_ASCII) {
        const char *t;
        size_t n;
        strata_status st = next_token(h, &t, &n);
        return st != STRATA_OK ? st : strata__parse_integer(t, n, out);
    }
    if ((size_t)(h->end - h->p) < type_size[type])
        return STRATA_ERR_TRUNCATED;
    *out = integer_value(h->p, type, h->format == PLY_BE);
    h->p += type_size[type];
    return STRATA_OK;
}

static strata_status ply_real(ply *h, int type, float *out)
{
    if (h->format == PLY_ASCII) {
        const char *t;
        size_t n;
        strata_status st = next_token(h, &t, &n);
        return st != STRATA_OK ? st : strata__parse_real(t, n, out);
    }
    if ((size_t)(h->end - h->p) < type_size[type])
        return STRATA_ERR_TRUNCATED;
    if (out) {
        /* Out of float range: infinite (a plain conversion would be
         * undefined behaviour in ISO C), refused later as NOT_FINITE. */
        const double dv = scalar_value(h->p, type, h->format == PLY_BE);
        *out = fabs(dv) > FLT_MAX ? (float)copysign(INFINITY, dv) : (float)dv;
    }
    h->p += type_size[type];
    return STRATA_OK;
}

static strata_status ply_body(ply *h, strata_builder *b)
{
    strata_status st;
    /* nverts fits the data (checked by the header): allocate it at once. */
    if ((st = strata__builder_reserve(b, (size_t)h->nverts, 0)) != STRATA_OK)
        return st;
    for (uint32_t ei = 0; ei < h->nelem; ei++) {
        const ply_elem *e = &h->elem[ei];
        if (e->nprops == 0)
            continue;
        for (uint64_t i = 0; i < e->count; i++) {
            float v[3] = {0, 0, 0};
            for (uint32_t j = 0; j < e->nprops; j++) {
                const ply_prop *pr = &h->prop[e->first + j];
                if (!pr->list) {
                    float *dst = pr->role >= ROLE_X && pr->role <= ROLE_Z ? &v[pr->role - ROLE_X]
                                                                          : NULL;
                    if ((st = ply_real(h, pr->type, dst)) != STRATA_OK)
                        return st;
                    continue;
                }
                int64_t count;
                if ((st = ply_integer(h, pr->count_type, &count)) != STRATA_OK)
                    return st;
                if (count < 0)
                    return STRATA_ERR_FORMAT;
                /* Each item takes at least a byte: a bigger count cannot fit. */
                if ((uint64_t)count > (uint64_t)(h->end - h->p))
                    return STRATA_ERR_TRUNCATED;
                if (pr->role == ROLE_INDICES)
                    strata__face_begin(b);
                for (int64_t k = 0; k < count; k++) {
                    if (pr->role != ROLE_INDICES) {
                        if ((st = ply_real(h, pr->type, NULL)) != STRATA_OK)
                            return st;
                        continue;
                    }
                    int64_t id;
                    if ((st = ply_integer(h, pr->type, &id)) != STRATA_OK)
                        return st;
                    if (id < 0 || (uint64_t)id >= h->nverts)
                        return STRATA_ERR_BAD_MESH;
                    if ((st = strata__face_corner(b, (uint32_t)id)) != STRATA_OK)
                        return st;
                }
                if (pr->role == ROLE_INDICES)
                    strata__face_end(b);
            }
            if (e->kind == ELEM_VERTEX && (st = strata__push_vertex(b, v[0], v[1], v[2])) != STRATA_OK)
                return st;
        }
    }
    return STRATA_OK;
}

/* ------------------------------------------------------------------ */
/* Reading binary files in parallel                                    */
/* ------------------------------------------------------------------ */

/* Most binary files have records of one size per element: scalars, and
 * lists whose length is the same in every record (faces of three
 * corners).  Such a file is laid out by its header and its first records
 * alone, so its vertices and faces are decoded on the context's threads,
 * each block straight into its place in the builder.  Anything else, and
 * any file in which a block finds a fault, is read again by ply_body
 * from the start: the errors (and which one a file with several gets)
 * are that reader's, and so are the bytes of every mesh. */
#define FAST_LISTS 8               /* lists per element the fast path takes */
#define FAST_BLOCK ((uint64_t)1 << 15) /* records per block */

typedef struct rec_layout {
    const uint8_t *base; /* the first record */
    uint64_t count, stride;
    uint32_t nlists;
    uint64_t list_off[FAST_LISTS]; /* each list's count: where, type, value */
    uint8_t list_type[FAST_LISTS];
    int64_t list_n[FAST_LISTS];
    uint64_t off[3]; /* vertex: x, y, z */
    uint8_t type[3];
    uint64_t ioff; /* face: the first index */
    uint8_t itype;
    int64_t corners;
} rec_layout;

/* The layout of element e's records from its first one at p (of `left`
 * bytes to the end); false if the fast path cannot take it. */
static bool layout(const ply *h, const ply_elem *e, const uint8_t *p, uint64_t left,
                   rec_layout *L)
{
    memset(L, 0, sizeof *L);
    L->base = p;
    L->count = e->count;
    const bool be = h->format == PLY_BE;
    uint64_t at = 0;
    for (uint32_t j = 0; j < e->nprops; j++) {
        const ply_prop *pr = &h->prop[e->first + j];
        if (!pr->list) {
            if (pr->role >= ROLE_X && pr->role <= ROLE_Z) {
                L->off[pr->role - ROLE_X] = at;
                L->type[pr->role - ROLE_X] = pr->type;
            }
            at += type_size[pr->type];
            continue;
        }
        if (L->nlists == FAST_LISTS || at + type_size[pr->count_type] > left)
            return false;
        const int64_t n = integer_value(p + at, pr->count_type, be);
        if (n < 0 || (uint64_t)n > left / type_size[pr->type])
            return false;
        L->list_off[L->nlists] = at;
        L->list_type[L->nlists] = pr->count_type;
        L->list_n[L->nlists++] = n;
        at += type_size[pr->count_type];
        if (pr->role == ROLE_INDICES) {
            L->ioff = at;
            L->itype = pr->type;
            L->corners = n;
        }
        at += (uint64_t)n * type_size[pr->type];
        if (at > left)
            return false;
    }
    L->stride = at;
    return at > 0 && e->count <= left / at;
}

typedef struct fast_job {
    const ply *h;
    strata_builder *b;
    const rec_layout *L;
    int kind;
} fast_job;

/* The common faces: triangles of little-endian 32-bit indices after a
 * one-byte count, the element's only list (strata's own files). */
static bool plain_triangles(const fast_job *j)
{
    const rec_layout *L = j->L;
    return j->kind == ELEM_FACE && j->h->format == PLY_LE && L->corners == 3 &&
           L->nlists == 1 && type_size[L->list_type[0]] == 1 &&
           (L->itype == T_UINT || (L->itype == T_INT && j->h->nverts <= INT32_MAX));
}

static strata_status plain_triangles_block(const fast_job *j, uint64_t from, uint64_t to)
{
    const rec_layout *L = j->L;
    strata_builder *b = j->b;
    const uint64_t nverts = j->h->nverts, stride = L->stride, ioff = L->ioff;
    const uint64_t coff = L->list_off[0];
    const uint8_t *p = L->base + from * stride;
    for (uint64_t i = from; i < to; i++, p += stride) {
        uint32_t v[3]; /* a negative int is >= 2^31 > nverts - 1 as uint32 */
        memcpy(v, p + ioff, sizeof v);
        if (p[coff] != 3 || v[0] >= nverts || v[1] >= nverts || v[2] >= nverts)
            return STRATA_ERR_FORMAT;
        b->a[i] = v[0], b->b[i] = v[1], b->c[i] = v[2];
    }
    return STRATA_OK;
}

/* One block of records: their list lengths checked, and their vertices
 * or faces decoded into the builder. */
static strata_status fast_block(void *arg, size_t blk, int thread)
{
    (void)thread;
    const fast_job *j = arg;
    const rec_layout *L = j->L;
    strata_builder *b = j->b;
    const bool be = j->h->format == PLY_BE;
    const uint64_t from = blk * FAST_BLOCK;
    const uint64_t to = L->count - from < FAST_BLOCK ? L->count : from + FAST_BLOCK;
    const uint64_t nverts = j->h->nverts;
    if (plain_triangles(j))
        return plain_triangles_block(j, from, to);
    const uint8_t *p = L->base + from * L->stride;
    for (uint64_t i = from; i < to; i++, p += L->stride) {
        for (uint32_t k = 0; k < L->nlists; k++)
            if (type_size[L->list_type[k]] == 1
                    ? p[L->list_off[k]] != (uint8_t)L->list_n[k] /* n < 128 for char */
                    : integer_value(p + L->list_off[k], L->list_type[k], be) != L->list_n[k])
                return STRATA_ERR_FORMAT;
        if (j->kind == ELEM_VERTEX) {
            float v[3];
            for (int k = 0; k < 3; k++) {
                if (L->type[k] == T_FLOAT && !be) {
                    memcpy(&v[k], p + L->off[k], sizeof v[k]);
                } else {
                    const double dv = scalar_value(p + L->off[k], L->type[k], be);
                    v[k] = fabs(dv) > FLT_MAX ? (float)copysign(INFINITY, dv) : (float)dv;
                }
            }
            if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]))
                return STRATA_ERR_NOT_FINITE;
            b->x[i] = v[0], b->y[i] = v[1], b->z[i] = v[2];
        } else if (j->kind == ELEM_FACE) {
            const unsigned isz = type_size[L->itype];
            const uint8_t *q = p + L->ioff;
            uint64_t t = i * (uint64_t)(L->corners - 2);
            uint32_t first = 0, prev = 0;
            for (int64_t k = 0; k < L->corners; k++, q += isz) {
                int64_t id;
                if (L->itype == T_UINT && !be) {
                    uint32_t u;
                    memcpy(&u, q, sizeof u);
                    id = u;
                } else {
                    id = integer_value(q, L->itype, be);
                }
                if (id < 0 || (uint64_t)id >= nverts)
                    return STRATA_ERR_BAD_MESH;
                if (k >= 2) {
                    b->a[t] = first, b->b[t] = prev, b->c[t] = (uint32_t)id;
                    t++;
                } else if (k == 0) {
                    first = (uint32_t)id;
                }
                prev = (uint32_t)id;
            }
        }
    }
    return STRATA_OK;
}

/* The parallel reading of a binary file: STRATA_OK with the builder
 * filled, STRATA_ERR_NOMEM, or anything else for a file to read in order
 * (the builder then holds nothing). */
static strata_status ply_body_fast(ply *h, strata_builder *b)
{
    if (h->format == PLY_ASCII || h->nverts >= UINT32_MAX)
        return STRATA_ERR_FORMAT;
    rec_layout *L = strata__alloc_array(b->al, h->nelem ? h->nelem : 1, sizeof *L);
    if (!L)
        return STRATA_ERR_NOMEM;
    const uint8_t *p = h->p;
    uint64_t ntris = 0, dropped = 0;
    strata_status st = STRATA_OK;
    for (uint32_t ei = 0; ei < h->nelem && st == STRATA_OK; ei++) {
        const ply_elem *e = &h->elem[ei];
        L[ei].count = 0;
        if (e->nprops == 0 || e->count == 0)
            continue;
        if (!layout(h, e, p, (uint64_t)(h->end - p), &L[ei])) {
            st = STRATA_ERR_FORMAT;
            break;
        }
        p += L[ei].count * L[ei].stride;
        if (e->kind == ELEM_FACE) {
            if (L[ei].corners >= 3)
                ntris = e->count * (uint64_t)(L[ei].corners - 2);
            else
                dropped = e->count;
        }
    }
    if (st == STRATA_OK && ntris > UINT32_MAX / 3)
        st = STRATA_ERR_OVERFLOW;
    if (st == STRATA_OK)
        st = strata__builder_reserve(b, (size_t)h->nverts, (size_t)ntris);
    for (uint32_t ei = 0; ei < h->nelem && st == STRATA_OK; ei++) {
        if (L[ei].count == 0)
            continue;
        fast_job j = {h, b, &L[ei], h->elem[ei].kind};
        st = strata__par_blocks(b->ctx, (size_t)((L[ei].count + FAST_BLOCK - 1) / FAST_BLOCK),
                                fast_block, &j, NULL, 0, 0, 0);
    }
    strata__free(b->al, L);
    if (st == STRATA_OK) {
        b->nv = (size_t)h->nverts;
        b->nt = (size_t)ntris;
        b->dropped = dropped;
        h->p = p;
    }
    return st;
}

strata_status strata__ply_read(strata_builder *b, const uint8_t *data, size_t len, size_t start,
                               strata_import_format *fmt)
{
    ply *h = strata__alloc(b->al, sizeof *h); /* ~ 10 KiB: not on the stack */
    if (!h)
        return STRATA_ERR_NOMEM;
    memset(h, 0, sizeof *h);
    strata_status st = ply_header(h, data, len, start);
    if (st == STRATA_OK) {
        *fmt = h->format == PLY_ASCII ? STRATA_IMPORT_PLY_ASCII
               : h->format == PLY_LE  ? STRATA_IMPORT_PLY_LE
                                      : STRATA_IMPORT_PLY_BE;
        const uint8_t *body = h->p;
        st = ply_body_fast(h, b);
        if (st != STRATA_OK && st != STRATA_ERR_NOMEM) { /* a fault of the file's: */
            h->p = body;
            st = ply_body(h, b);
        }
    }
    strata__free(b->al, h);
    return st;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

/* A vertex with its normal: src[0..5] = x, y, z, nx, ny, nz (rec 24). */
static void enc_ply_vertex_normal(const strata_span *s, uint64_t i, uint64_t n,
                                  unsigned char *restrict p)
{
    const float *restrict x = s->src[0], *restrict y = s->src[1], *restrict z = s->src[2];
    const float *restrict nx = s->src[3], *restrict ny = s->src[4], *restrict nz = s->src[5];
    for (const uint64_t end = i + n; i < end; i++) {
        p = put_f32(p, x[i]);
        p = put_f32(p, y[i]);
        p = put_f32(p, z[i]);
        p = put_f32(p, nx[i]);
        p = put_f32(p, ny[i]);
        p = put_f32(p, nz[i]);
    }
}

/* A vertex's colour bytes: the occlusion (NULL: none) and the colours
 * (3 sRGB bytes a vertex, NULL: none). */
typedef struct ply_colour {
    const uint8_t *ao, *rgb;
} ply_colour;

/* A vertex with its optional attributes: src[0..2] = x, y, z, src[3..5] =
 * nx, ny, nz or NULL, src[6] a ply_colour (both NULL: no colour; else the
 * occlusion as a grey, or the sRGB colour times ao / 255, rounded),
 * src[7] the texture coordinates (s, t) or NULL; rec 12 + 12 + 8 + 3 at
 * most. */
static void enc_ply_vertex_attrs(const strata_span *s, uint64_t i, uint64_t n,
                                 unsigned char *restrict p)
{
    const float *restrict x = s->src[0], *restrict y = s->src[1], *restrict z = s->src[2];
    const float *restrict nx = s->src[3], *restrict ny = s->src[4], *restrict nz = s->src[5];
    const ply_colour *col = s->src[6];
    const uint8_t *restrict ao = col->ao, *restrict rgb = col->rgb;
    const float *restrict uv = s->src[7];
    for (const uint64_t end = i + n; i < end; i++) {
        p = put_f32(p, x[i]);
        p = put_f32(p, y[i]);
        p = put_f32(p, z[i]);
        if (nx) {
            p = put_f32(p, nx[i]);
            p = put_f32(p, ny[i]);
            p = put_f32(p, nz[i]);
        }
        if (uv) {
            p = put_f32(p, uv[2 * i]);
            p = put_f32(p, uv[2 * i + 1]);
        }
        if (ao || rgb) {
            const unsigned a = ao ? ao[i] : 255;
            for (int c = 0; c < 3; c++)
                p[c] = rgb ? (unsigned char)((rgb[3 * i + c] * a + 127) / 255) : (unsigned char)a;
            p += 3;
        }
    }
}

/* Faces of one strata_range: src[0] its first index, tag = terrace, wall. */
enum { PLY_FACE = 1 + 12 + 4 + 1 };
static void enc_ply_face(const strata_span *s, uint64_t i, uint64_t n, unsigned char *restrict p)
{
    const uint32_t *restrict ix = (const uint32_t *)s->src[0] + 3 * i;
    const uint32_t terrace = s->tag[0];
    const unsigned char wall = (unsigned char)s->tag[1];
    for (uint64_t f = 0; f < n; f++, ix += 3) {
        *p++ = 3;
        p = put_u32(p, ix[0]);
        p = put_u32(p, ix[1]);
        p = put_u32(p, ix[2]);
        p = put_u32(p, terrace);
        *p++ = wall;
    }
}

/* The faces of indices [from, to) as a span (whole triangles only, as
 * many as fit). */
static strata_span ply_faces(const strata_result *r, uint64_t from, uint64_t to, int32_t terrace,
                             unsigned char wall)
{
    strata_span sp = {.encode = enc_ply_face, .n = (to - from) / 3, .rec = PLY_FACE};
    sp.src[0] = r->indices + from;
    sp.tag[0] = (uint32_t)terrace;
    sp.tag[1] = wall;
    return sp;
}

/* The file: header, vertices, then one span of faces per strata_range. */
static void write_spans(strata_out *o, const strata_result *r, const strata_range *rg, size_t nrg,
                        const char *extras)
{
    strata_span *sp = strata__alloc_array(o->al, 2 * nrg + 3, sizeof *sp);
    if (!sp) {
        o->err = ENOMEM;
        return;
    }
    const int normals = r->nx != NULL;
    const ply_colour col = {strata__result_ao(r), strata__result_rgb(r)};
    const int colour = col.ao || col.rgb;
    /* texture coordinates of every vertex (strata_result_add_uv), not a
     * shoreline's own */
    const float *uv = !r->shore_count && r->nuv && r->uv_first == 0 && r->nuv == r->nverts
                          ? r->uv
                          : NULL;
    char head[512 + STRATA_TILE_EXTRAS_MAX];
    const int hl = snprintf(
        head, sizeof head,
        "ply\nformat binary_little_endian 1.0\ncomment generated by strata %s\n%s%s%s"
        "element vertex %lu\nproperty float x\nproperty float y\nproperty float z\n%s%s%s"
        "element face %llu\nproperty list uchar uint vertex_indices\n"
        "property int terrace\nproperty uchar wall\nend_header\n",
        STRATA_VERSION, extras ? "comment strata " : "", extras ? extras : "",
        extras ? "\n" : "", (unsigned long)r->nverts,
        normals ? "property float nx\nproperty float ny\nproperty float nz\n" : "",
        uv ? "property float s\nproperty float t\n" : "",
        colour ? "property uchar red\nproperty uchar green\nproperty uchar blue\n" : "",
        (unsigned long long)(r->nindices / 3));
    size_t n = 0;
    sp[n++] = (strata_span){.encode = strata__enc_bytes, .n = (uint64_t)hl, .rec = 1,
                            .src = {head}};
    if (colour || uv)
        sp[n++] = (strata_span){.encode = enc_ply_vertex_attrs, .n = r->nverts,
                                .rec = 12 + (normals ? 12 : 0) + (uv ? 8 : 0) + (colour ? 3 : 0),
                                .src = {r->x, r->y, r->z, r->nx, r->ny, r->nz, &col, uv}};
    else if (normals)
        sp[n++] = (strata_span){.encode = enc_ply_vertex_normal, .n = r->nverts, .rec = 24,
                                .src = {r->x, r->y, r->z, r->nx, r->ny, r->nz}};
    else
        sp[n++] = (strata_span){.encode = strata__enc_vec3, .n = r->nverts, .rec = 12,
                                .src = {r->x, r->y, r->z}};

    /* Faces in index order; a face outside every strata_range (no result the
     * library makes has one) gets terrace -1. */
    uint64_t pos = 0;
    for (size_t k = 0; k < nrg; k++) {
        const uint64_t first = rg[k].first > pos ? rg[k].first : pos;
        const uint64_t end = rg[k].first + rg[k].count;
        if (first > pos)
            sp[n++] = ply_faces(r, pos, first, -1, 0);
        if (end > first)
            sp[n++] = ply_faces(r, first, end, rg[k].terrace, rg[k].wall);
        if (end > pos)
            pos = end;
    }
    if (pos < r->nindices)
        sp[n++] = ply_faces(r, pos, r->nindices, -1, 0);
    strata__out_spans(o, sp, n);
    strata__free(o->al, sp);
}

strata_status strata__ply_write(strata_ctx *ctx, const strata_result *r, const char *path,
                               const char *extras)
{
    const int saved_errno = errno;
    size_t nrg = 0;
    strata_range *rg = strata__sorted_ranges(r, &ctx->alloc, &nrg);
    if (!rg)
        return STRATA_ERR_NOMEM;
    strata_out f = STRATA_OUT_INIT(ctx);
    if (strata__out_open(&f, path, ctx) == 0) {
        f.seal = extras != NULL;
        write_spans(&f, r, rg, nrg, extras);
        strata__out_finish(&f);
    }
    strata__free(&ctx->alloc, rg);
    return strata__write_finish(ctx, &f, &path, 1, saved_errno);
}
