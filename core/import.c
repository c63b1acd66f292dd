/* Mesh import: PLY (ASCII, binary little- and big-endian) and Wavefront OBJ
 * triangle meshes, decoded into a strata_mesh.
 *
 * Every count a PLY header claims is checked against the bytes that follow
 * it before anything of that size is allocated; OBJ files have no counts,
 * and their arrays grow only with what was actually read.  Numbers are
 * parsed without depending on the locale's decimal point.  Both parsers
 * produce one list of positions and one list of fan-triangulated faces;
 * welding, degenerate removal, the up-axis rotation and the winding check
 * are shared. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "alloc.h"
#include "ctx.h"
#include "lex.h"
#include "mesh.h"
#include "readfile.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* What the parsers build                                              */
/* ------------------------------------------------------------------ */

typedef struct builder {
    const strata_allocator *al;
    float *xyz;         /* 3 * vcap floats */
    size_t nv, vcap;
    uint32_t *tri;      /* 3 * tcap ids; OBJ: 1-based or resolved, see obj */
    size_t nt, tcap;
    uint64_t dropped;   /* faces of < 3 corners, degenerate triangles */
    /* the face being read, fan-triangulated as corners arrive */
    uint32_t first, prev;
    uint64_t corners;
} builder;

/* Grow an array of n elements of `size` bytes to hold at least `need`. */
static strata_status grow(const strata_allocator *al, void **p, size_t *cap, size_t need,
                          size_t size)
{
    if (need <= *cap)
        return STRATA_OK;
    size_t c = *cap ? *cap : 64;
    while (c < need) {
        if (c > SIZE_MAX / 2 / size)
            return STRATA_ERR_OVERFLOW;
        c *= 2;
    }
    void *q = strata__alloc_array(al, c, size);
    if (!q)
        return STRATA_ERR_NOMEM;
    if (*p) {
        memcpy(q, *p, *cap * size);
        strata__free(al, *p);
    }
    *p = q;
    *cap = c;
    return STRATA_OK;
}

static strata_status push_vertex(builder *b, float x, float y, float z)
{
    if (!isfinite(x) || !isfinite(y) || !isfinite(z))
        return STRATA_ERR_NOT_FINITE;
    if (b->nv >= UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    strata_status st = grow(b->al, (void **)&b->xyz, &b->vcap, b->nv + 1, 3 * sizeof(float));
    if (st != STRATA_OK)
        return st;
    b->xyz[3 * b->nv] = x;
    b->xyz[3 * b->nv + 1] = y;
    b->xyz[3 * b->nv + 2] = z;
    b->nv++;
    return STRATA_OK;
}

static void face_begin(builder *b) { b->corners = 0; }

/* Corner k >= 2 of a face adds the fan triangle (first, prev, v). */
static strata_status face_corner(builder *b, uint32_t v)
{
    if (b->corners >= 2) {
        if ((uint64_t)b->nt >= UINT32_MAX / 3)
            return STRATA_ERR_OVERFLOW;
        strata_status st = grow(b->al, (void **)&b->tri, &b->tcap, b->nt + 1, 3 * sizeof(uint32_t));
        if (st != STRATA_OK)
            return st;
        b->tri[3 * b->nt] = b->first;
        b->tri[3 * b->nt + 1] = b->prev;
        b->tri[3 * b->nt + 2] = v;
        b->nt++;
    } else if (b->corners == 0) {
        b->first = v;
    }
    b->prev = v;
    b->corners++;
    return STRATA_OK;
}

static void face_end(builder *b)
{
    if (b->corners < 3)
        b->dropped++;
}

/* ------------------------------------------------------------------ */
/* PLY                                                                 */
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

static strata_status ply_body(ply *h, builder *b)
{
    strata_status st;
    /* nverts fits the data (checked by the header): allocate it at once. */
    if ((st = grow(b->al, (void **)&b->xyz, &b->vcap, (size_t)h->nverts, 3 * sizeof(float))) !=
        STRATA_OK)
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
                    face_begin(b);
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
                    if ((st = face_corner(b, (uint32_t)id)) != STRATA_OK)
                        return st;
                }
                if (pr->role == ROLE_INDICES)
                    face_end(b);
            }
            if (e->kind == ELEM_VERTEX && (st = push_vertex(b, v[0], v[1], v[2])) != STRATA_OK)
                return st;
        }
    }
    return STRATA_OK;
}

static strata_status decode_ply(builder *b, const uint8_t *data, size_t len, size_t start,
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
        st = ply_body(h, b);
    }
    strata__free(b->al, h);
    return st;
}

/* ------------------------------------------------------------------ */
/* OBJ                                                                 */
/* ------------------------------------------------------------------ */

/* The next token of a line: ends at whitespace or '#' (a comment). */
static bool line_token(const char **p, const char *end, const char **t, size_t *n)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f'))
        s++;
    if (s == end || *s == '#')
        return false;
    const char *q = s;
    while (q < end && !strata__is_space((unsigned char)*q) && *q != '#')
        q++;
    *t = s;
    *n = (size_t)(q - s);
    *p = q;
    return true;
}

/* One face corner: v, v/vt, v/vt/vn or v//vn; only v is used.  OBJ
 * indices are 1-based; negative ones count back from the last vertex read
 * so far.  Positive ones may refer to vertices defined later in the file,
 * so the 0-based id is range-checked once the whole file is read. */
static strata_status obj_corner(const char *t, size_t n, size_t nv, uint32_t *id)
{
    size_t i = 0;
    while (i < n && t[i] != '/')
        i++;
    int64_t v;
    if (strata__parse_integer(t, i, &v) != STRATA_OK)
        return STRATA_ERR_FORMAT;
    /* The rest: /[int] or /[int]/[int]; the numbers are not used. */
    for (int part = 0; part < 2 && i < n; part++) {
        if (t[i] != '/')
            return STRATA_ERR_FORMAT;
        size_t s = ++i;
        while (i < n && t[i] != '/')
            i++;
        int64_t unused;
        if (i > s && strata__parse_integer(t + s, i - s, &unused) != STRATA_OK)
            return STRATA_ERR_FORMAT;
        if (i == s && (part == 1 || i == n))
            return STRATA_ERR_FORMAT; /* "v/", "v//", "v/vt/" */
    }
    if (i != n)
        return STRATA_ERR_FORMAT;
    if (v > 0 && v <= (int64_t)UINT32_MAX)
        *id = (uint32_t)(v - 1);
    else if (v < 0 && -v <= (int64_t)nv)
        *id = (uint32_t)((int64_t)nv + v);
    else
        return STRATA_ERR_BAD_MESH; /* 0, before the first vertex, or huge */
    return STRATA_OK;
}

static strata_status decode_obj(builder *b, const uint8_t *data, size_t len)
{
    const char *s = (const char *)data, *end = s + len;
    if (memchr(s, '\0', len))
        return STRATA_ERR_FORMAT; /* not a text file */
    bool any = false; /* a v or f statement */
    strata_status st;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end, *p = s;
        s = nl ? nl + 1 : end;
        const char *t;
        size_t n;
        if (!line_token(&p, le, &t, &n))
            continue;
        if (strata__tok_eq(t, n, "v")) {
            float c[3];
            for (int k = 0; k < 3; k++) {
                if (!line_token(&p, le, &t, &n))
                    return STRATA_ERR_FORMAT;
                if ((st = strata__parse_real(t, n, &c[k])) != STRATA_OK)
                    return st;
            }
            /* w or colours may follow: ignored. */
            if ((st = push_vertex(b, c[0], c[1], c[2])) != STRATA_OK)
                return st;
            any = true;
        } else if (strata__tok_eq(t, n, "f")) {
            face_begin(b);
            while (line_token(&p, le, &t, &n)) {
                uint32_t id;
                if ((st = obj_corner(t, n, b->nv, &id)) != STRATA_OK)
                    return st;
                if ((st = face_corner(b, id)) != STRATA_OK)
                    return st;
            }
            face_end(b);
            any = true;
        }
        /* vt, vn, g, o, s, usemtl, mtllib, l, p, ...: ignored */
    }
    if (!any)
        return STRATA_ERR_FORMAT;
    for (size_t i = 0; i < 3 * b->nt; i++)
        if (b->tri[i] >= b->nv)
            return STRATA_ERR_BAD_MESH; /* a forward reference never defined */
    return STRATA_OK;
}

/* ------------------------------------------------------------------ */
/* Shared steps                                                        */
/* ------------------------------------------------------------------ */

static uint32_t float_key(float f)
{
    if (f == 0.0f)
        f = 0.0f; /* -0 and +0 are the same position */
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Merge vertices of equal position: the first occurrence keeps its place
 * (ids are renumbered in order of first occurrence), later ones are
 * remapped to it.  Open addressing on a power-of-two table. */
static strata_status weld(builder *b, uint64_t *merged)
{
    const size_t n = b->nv;
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    uint32_t *table = strata__alloc_array(b->al, cap, sizeof *table);
    uint32_t *remap = strata__alloc_array(b->al, n ? n : 1, sizeof *remap);
    if (!table || !remap) {
        strata__free(b->al, table);
        strata__free(b->al, remap);
        return STRATA_ERR_NOMEM;
    }
    memset(table, 0xff, cap * sizeof *table);
    uint32_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        const float *q = b->xyz + 3 * i;
        const uint32_t kx = float_key(q[0]), ky = float_key(q[1]), kz = float_key(q[2]);
        uint64_t hsh = (uint64_t)kx * 0x9e3779b97f4a7c15u;
        hsh = (hsh ^ ky) * 0xc2b2ae3d27d4eb4fu;
        hsh = (hsh ^ kz) * 0x165667b19e3779f9u;
        size_t slot = (size_t)(hsh >> 32) & (cap - 1);
        for (;;) {
            const uint32_t id = table[slot];
            if (id == UINT32_MAX) {
                table[slot] = kept;
                memmove(b->xyz + 3 * (size_t)kept, q, 3 * sizeof(float));
                remap[i] = kept++;
                break;
            }
            const float *r = b->xyz + 3 * (size_t)id;
            if (r[0] == q[0] && r[1] == q[1] && r[2] == q[2]) {
                remap[i] = id;
                break;
            }
            slot = (slot + 1) & (cap - 1);
        }
    }
    for (size_t i = 0; i < 3 * b->nt; i++)
        b->tri[i] = remap[b->tri[i]];
    *merged = n - kept;
    b->nv = kept;
    strata__free(b->al, table);
    strata__free(b->al, remap);
    return STRATA_OK;
}

static void drop_degenerate(builder *b)
{
    size_t k = 0;
    for (size_t t = 0; t < b->nt; t++) {
        const uint32_t *v = b->tri + 3 * t;
        if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2]) {
            b->dropped++;
            continue;
        }
        memmove(b->tri + 3 * k, v, 3 * sizeof *v);
        k++;
    }
    b->nt = k;
}

/* Twice the signed area seen from above, summed (flat), or six times the
 * signed volume about the centre (radial); both in double, in triangle
 * order.  Negative: the mesh faces down / inwards. */
static double orientation(const builder *b, bool radial, const float *c)
{
    double sum = 0.0;
    for (size_t t = 0; t < b->nt; t++) {
        const float *p0 = b->xyz + 3 * (size_t)b->tri[3 * t];
        const float *p1 = b->xyz + 3 * (size_t)b->tri[3 * t + 1];
        const float *p2 = b->xyz + 3 * (size_t)b->tri[3 * t + 2];
        if (!radial) {
            const double ux = (double)p1[0] - p0[0], uz = (double)p1[2] - p0[2];
            const double vx = (double)p2[0] - p0[0], vz = (double)p2[2] - p0[2];
            sum += uz * vx - ux * vz; /* y of (p1 - p0) x (p2 - p0) */
            continue;
        }
        double a[3], d[3], e[3];
        for (int k = 0; k < 3; k++) {
            a[k] = (double)p0[k] - c[k];
            d[k] = (double)p1[k] - c[k];
            e[k] = (double)p2[k] - c[k];
        }
        sum += a[0] * (d[1] * e[2] - d[2] * e[1]) + a[1] * (d[2] * e[0] - d[0] * e[2]) +
               a[2] * (d[0] * e[1] - d[1] * e[0]);
    }
    return sum;
}

void strata_import_defaults(strata_import_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->up = STRATA_AXIS_Y;
    o->weld = 0;
    o->keep_winding = 0;
    o->radial = 0;
    o->has_center = 0;
    o->radius = 0.0f;
}

strata_status strata_mesh_decode(strata_ctx *ctx, const void *data, size_t len,
                                 const strata_import_options *opts,
                                 strata_import_report *report, strata_mesh **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || (!data && len))
        return STRATA_ERR_INVALID_ARG;
    strata_import_options def;
    strata_import_defaults(&def);
    const strata_import_options *o = opts ? opts : &def;
    if (o->up != STRATA_AXIS_X && o->up != STRATA_AXIS_Y && o->up != STRATA_AXIS_Z)
        return STRATA_ERR_INVALID_ARG;
    if (o->radial && ((o->radius != 0.0f && !(o->radius > 0.0f)) || !isfinite(o->radius)))
        return STRATA_ERR_INVALID_ARG;
    if (o->radial && o->has_center &&
        !(isfinite(o->center[0]) && isfinite(o->center[1]) && isfinite(o->center[2])))
        return STRATA_ERR_NOT_FINITE;

    const uint8_t *d = data ? data : (const uint8_t *)"";
    builder b;
    memset(&b, 0, sizeof b);
    b.al = &ctx->alloc;
    strata_import_format fmt = STRATA_IMPORT_OBJ;
    strata_status st;
    if (len >= 4 && !memcmp(d, "ply\n", 4))
        st = decode_ply(&b, d, len, 4, &fmt);
    else if (len >= 5 && !memcmp(d, "ply\r\n", 5))
        st = decode_ply(&b, d, len, 5, &fmt);
    else if (len < 4 && !memcmp(d, "ply\n", len))
        st = STRATA_ERR_TRUNCATED; /* a PLY magic cut short, or nothing */
    else
        st = decode_obj(&b, d, len);

    uint64_t merged = 0;
    if (st == STRATA_OK && o->weld)
        st = weld(&b, &merged);
    if (st == STRATA_OK) {
        drop_degenerate(&b);
        if (b.nt == 0)
            st = STRATA_ERR_BAD_MESH; /* nothing to terrace */
    }
    float center[3] = {0, 0, 0}, radius = o->radius;
    if (st == STRATA_OK && o->radial) {
        if (o->has_center) {
            memcpy(center, o->center, sizeof center);
        } else { /* bounding-box centre */
            for (size_t k = 0; k < 3; k++) {
                float lo = b.xyz[k], hi = b.xyz[k];
                for (size_t i = 1; i < b.nv; i++) {
                    const float v = b.xyz[3 * i + k];
                    lo = v < lo ? v : lo;
                    hi = v > hi ? v : hi;
                }
                center[k] = (float)(((double)lo + hi) / 2);
            }
        }
        if (radius == 0.0f) { /* mean distance of the vertices */
            double sum = 0.0;
            for (size_t i = 0; i < b.nv; i++) {
                double dx = (double)b.xyz[3 * i] - center[0];
                double dy = (double)b.xyz[3 * i + 1] - center[1];
                double dz = (double)b.xyz[3 * i + 2] - center[2];
                sum += sqrt(dx * dx + dy * dy + dz * dz);
            }
            radius = (float)(sum / (double)b.nv);
            if (!(radius > 0.0f) || !isfinite(radius))
                st = STRATA_ERR_BAD_MESH; /* every vertex at the centre */
        }
    } else if (st == STRATA_OK && o->up != STRATA_AXIS_Y) {
        for (size_t i = 0; i < b.nv; i++)
            strata__to_y_up(b.xyz + 3 * i, b.xyz + 3 * i + 1, b.xyz + 3 * i + 2, o->up);
    }
    int flipped = 0;
    if (st == STRATA_OK && !o->keep_winding && orientation(&b, o->radial, center) < 0.0) {
        for (size_t t = 0; t < b.nt; t++) {
            const uint32_t tmp = b.tri[3 * t + 1];
            b.tri[3 * t + 1] = b.tri[3 * t + 2];
            b.tri[3 * t + 2] = tmp;
        }
        flipped = 1;
    }
    strata_mesh *m = NULL;
    if (st == STRATA_OK)
        st = strata_mesh_create(ctx, b.xyz, (uint32_t)b.nv, b.tri, (uint32_t)b.nt, &m);
    if (st == STRATA_OK && o->radial) {
        st = strata_mesh_set_geometry(m, STRATA_RADIAL, center, radius);
        if (st != STRATA_OK) {
            strata_mesh_destroy(m);
            m = NULL;
        }
    }
    strata__free(b.al, b.xyz);
    strata__free(b.al, b.tri);
    if (st != STRATA_OK)
        return st;
    if (report) {
        report->format = fmt;
        report->dropped = b.dropped > UINT32_MAX ? UINT32_MAX : (uint32_t)b.dropped;
        report->welded = (uint32_t)merged;
        report->flipped = flipped;
    }
    *out = m;
    return STRATA_OK;
}

strata_status strata_mesh_load(strata_ctx *ctx, const char *path,
                               const strata_import_options *opts,
                               strata_import_report *report, strata_mesh **out)
{
    if (!out)
        return STRATA_ERR_INVALID_ARG;
    *out = NULL;
    if (!ctx || !path)
        return STRATA_ERR_INVALID_ARG;
    uint8_t *buf;
    size_t len;
    strata_status st = strata__read_file(&ctx->alloc, path, UINT64_MAX, &buf, &len);
    if (st == STRATA_OK)
        st = strata_mesh_decode(ctx, buf, len, opts, report, out);
    strata__free(&ctx->alloc, buf);
    return st;
}
