/* strata_result_solidify: close a flat terrain into a solid for 3D
 * printing.  Phases:
 *
 *   weld              corners of one triangle at one position merged
 *   border_vertices   vertices on the border, by a hash of their fans
 *   border_edges      the directed edges used by one triangle only
 *   border_loop       those edges as one closed loop
 *   stacks            the loop cut into stacks: runs of vertices above one
 *                     point of the domain border (joined by wall sides),
 *                     spikes zipped
 *   emit              side columns (one per horizontal border edge, a
 *                     ladder between the two vertical lines), the base (a
 *                     fan from the centroid of the border's footprint)
 *   insert            the new triangles into terrace 0's walls
 *
 * A terrain is counter-clockwise seen from above, so its border loop runs
 * counter-clockwise with the surface on its left and the outside on its
 * right; the side triangles use every border edge backwards and each
 * base edge forwards, the base every base edge backwards: the result is
 * closed by vertex id. */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/mesh.h"
#include "mesh/result.h"
#include "edit/solid.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A well-mixed 64-bit word of a vertex id (splitmix64's finaliser). */
static uint64_t mix(uint32_t v)
{
    uint64_t z = (uint64_t)v + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The vertex v stands for after the merges so far (remap NULL: none). */
static uint32_t root(const uint32_t *remap, uint32_t v)
{
    if (remap)
        while (remap[v] != v)
            v = remap[v];
    return v;
}

/* Corner k of the triangle at index i, merges applied. */
static uint32_t corner(const strata_result *r, const uint32_t *remap, uint64_t i, int k)
{
    return root(remap, r->indices[i + (uint64_t)k % 3]);
}

/* Border vertices: around an inner vertex each neighbour is the end of
 * one edge out of it and the start of one edge into it, so the sums of
 * their hashes agree; at a border vertex they differ (an equal sum there
 * has probability 2^-64 and would leave the loop open: BAD_MESH, never a
 * wrong solid).  flag[v] = 1 for a border vertex. */
static strata_status border_vertices(const strata_result *r, const uint8_t *gone,
                                     const uint32_t *remap, uint8_t *flag)
{
    const strata_allocator *al = &r->alloc;
    uint64_t *out = strata__alloc_array(al, r->nverts, sizeof *out);
    uint64_t *in = strata__alloc_array(al, r->nverts, sizeof *in);
    if (!out || !in) {
        strata__free(al, out);
        strata__free(al, in);
        return STRATA_ERR_NOMEM;
    }
    memset(out, 0, (size_t)r->nverts * sizeof *out);
    memset(in, 0, (size_t)r->nverts * sizeof *in);
    for (uint64_t i = 0; i < r->nindices; i += 3)
        for (int k = 0; !(gone && gone[i / 3]) && k < 3; k++) {
            const uint32_t a = corner(r, remap, i, k), b = corner(r, remap, i, k + 1);
            out[a] += mix(b);
            in[b] += mix(a);
        }
    for (uint32_t v = 0; v < r->nverts; v++)
        flag[v] = out[v] != in[v];
    strata__free(al, out);
    strata__free(al, in);
    return STRATA_OK;
}

typedef struct dedge {
    uint64_t key; /* min << 32 | max */
    uint32_t a, b;
    uint64_t tri; /* the triangle using it */
} dedge;

static int cmp_dedge(const void *p, const void *q)
{
    const dedge *x = p, *y = q;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->a < y->a ? -1 : x->a > y->a;
}

static int cmp_from(const void *p, const void *q)
{
    const dedge *x = p, *y = q;
    return x->a < y->a ? -1 : x->a > y->a;
}

/* The directed edges a -> b of the triangles (but those gone) whose
 * reverse no triangle uses, sorted by a, in *out (count *n).  An edge
 * used more than twice, or twice the same way, is BAD_MESH. */
static strata_status border_edges(const strata_result *r, const uint8_t *gone,
                                  const uint32_t *remap, const uint8_t *flag, dedge **out,
                                  uint32_t *n)
{
    const strata_allocator *al = &r->alloc;
    uint64_t cand = 0;
    for (uint64_t i = 0; i < r->nindices; i += 3)
        for (int k = 0; !(gone && gone[i / 3]) && k < 3; k++)
            cand += flag[corner(r, remap, i, k)] && flag[corner(r, remap, i, k + 1)];
    if (cand > UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    dedge *e = strata__alloc_array(al, cand ? (size_t)cand : 1, sizeof *e);
    if (!e)
        return STRATA_ERR_NOMEM;
    uint32_t m = 0;
    for (uint64_t i = 0; i < r->nindices; i += 3)
        for (int k = 0; !(gone && gone[i / 3]) && k < 3; k++) {
            const uint32_t a = corner(r, remap, i, k), b = corner(r, remap, i, k + 1);
            if (flag[a] && flag[b])
                e[m++] = (dedge){a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a, a, b,
                                 i / 3};
        }
    qsort(e, m, sizeof *e, cmp_dedge);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m;) {
        uint32_t j = i + 1;
        while (j < m && e[j].key == e[i].key)
            j++;
        if (j - i > 2 || (j - i == 2 && e[i].a == e[i + 1].a)) {
            strata__free(al, e);
            return STRATA_ERR_BAD_MESH;
        }
        if (j - i == 1)
            e[kept++] = e[i];
        i = j;
    }
    qsort(e, kept, sizeof *e, cmp_from);
    *out = e;
    *n = kept;
    return STRATA_OK;
}

/* Mark triangle t gone (the map made on first use). */
static strata_status mark_gone(const strata_result *r, uint8_t **gone, uint64_t t, uint64_t *found)
{
    if (!*gone) {
        const uint64_t ntri = r->nindices / 3;
        if (!(*gone = strata__alloc_array(&r->alloc, (size_t)ntri, 1)))
            return STRATA_ERR_NOMEM;
        memset(*gone, 0, (size_t)ntri);
    }
    if (!(*gone)[t]) {
        (*gone)[t] = 1;
        (*found)++;
    }
    return STRATA_OK;
}

static int upright(const strata_result *r, uint64_t t)
{
    const uint32_t *v = r->indices + 3 * t;
    double n[3];
    strata__tri_cross(r->x, r->y, r->z, v[0], v[1], v[2], n);
    return n[1] == 0;
}

static int same_point(const strata_result *r, uint32_t a, uint32_t b)
{
    return r->x[a] == r->x[b] && r->z[a] == r->z[b];
}

/* Border fins: a plane through a border edge of the input whose inner
 * triangle lies below it stands a wall on the border, facing inwards,
 * with nothing behind it: the side of the solid would lie on it, back to
 * back.  Such walls (upright triangles with a border edge that is not
 * upright) are marked gone; the other half of such a wall quad then has
 * its diagonal on the border and goes in the next round.  *found: the
 * triangles marked. */
static strata_status border_fins(const strata_result *r, const dedge *e, uint32_t ne,
                                 uint8_t **gone, uint64_t *found)
{
    *found = 0;
    strata_status s = STRATA_OK;
    for (uint32_t i = 0; i < ne && s == STRATA_OK; i++)
        if (!same_point(r, e[i].a, e[i].b) && upright(r, e[i].tri))
            s = mark_gone(r, gone, e[i].tri, found);
    return s;
}

/* The corner of triangle t that is neither a nor b. */
static uint32_t third(const strata_result *r, const uint32_t *remap, uint64_t t, uint32_t a,
                      uint32_t b)
{
    for (int k = 0; k < 3; k++) {
        const uint32_t v = corner(r, remap, 3 * t, k);
        if (v != a && v != b)
            return v;
    }
    return a;
}

/* A border edge by the positions of its ends, for finding the edges
 * that lie on each other. */
typedef struct gedge {
    float lo[3], hi[3]; /* the ends, lexicographically ordered */
    uint32_t i;         /* index into the border edges */
} gedge;

static int cmp_pos(const float *p, const float *q)
{
    for (int k = 0; k < 3; k++)
        if (p[k] != q[k])
            return p[k] < q[k] ? -1 : 1;
    return 0;
}

static int cmp_gedge(const void *p, const void *q)
{
    const gedge *x = p, *y = q;
    int c = cmp_pos(x->lo, y->lo);
    if (!c)
        c = cmp_pos(x->hi, y->hi);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Zip the border where it lies on itself: two border edges on the same
 * segment, walked both ways.  Up a wall side and down again (a vertex on
 * its plane whose two wedges of lower neighbours both reach the border:
 * two bottom copies at one point), or along the two sides of a slit (a
 * ridge lying in a plane, once its walls are gone): the ends of the
 * second are merged into those of the first (remap), so the two become
 * one inner edge.  When the two walls of such a spike stand on the same
 * line (a ridge in the plane, walls back to back, enclosing nothing),
 * both are marked gone instead, and the slit left below them is zipped
 * in a later round.  A vertex is changed once a round.  *merged, *found:
 * what was done.  g: room for ne. */
static strata_status zip(const strata_result *r, const dedge *e, uint32_t ne, gedge *g,
                         uint32_t *remap, uint8_t *touched, uint8_t **gone, uint32_t *merged,
                         uint64_t *found)
{
    for (uint32_t i = 0; i < ne; i++) {
        const float pa[3] = {r->x[e[i].a], r->y[e[i].a], r->z[e[i].a]};
        const float pb[3] = {r->x[e[i].b], r->y[e[i].b], r->z[e[i].b]};
        const int swap = cmp_pos(pa, pb) > 0;
        memcpy(g[i].lo, swap ? pb : pa, sizeof pa);
        memcpy(g[i].hi, swap ? pa : pb, sizeof pa);
        g[i].i = i;
        touched[e[i].a] = touched[e[i].b] = 0;
    }
    qsort(g, ne, sizeof *g, cmp_gedge);
    strata_status s = STRATA_OK;
    for (uint32_t k = 0; k + 1 < ne && s == STRATA_OK; k++) {
        if (cmp_pos(g[k].lo, g[k + 1].lo) || cmp_pos(g[k].hi, g[k + 1].hi))
            continue;
        const dedge *x = &e[g[k].i], *y = &e[g[k + 1].i];
        if (cmp_pos((float[3]){r->x[x->a], r->y[x->a], r->z[x->a]},
                    (float[3]){r->x[y->b], r->y[y->b], r->z[y->b]}))
            return STRATA_ERR_BAD_MESH; /* two border edges one way: overlapping sheets */
        if (touched[x->a] || touched[x->b] || touched[y->a] || touched[y->b])
            continue;
        touched[x->a] = touched[x->b] = touched[y->a] = touched[y->b] = 1;
        k++;
        if (same_point(r, x->a, x->b)) { /* a spike: walls back to back? */
            const uint32_t p = third(r, remap, x->tri, x->a, x->b);
            const uint32_t q = third(r, remap, y->tri, y->a, y->b);
            if (same_point(r, p, q) && p != x->a && q != y->a) {
                s = mark_gone(r, gone, x->tri, found);
                if (s == STRATA_OK)
                    s = mark_gone(r, gone, y->tri, found);
                continue;
            }
        }
        if (y->b != x->a) {
            remap[y->b] = x->a;
            (*merged)++;
        }
        if (y->a != x->b) {
            remap[y->a] = x->b;
            (*merged)++;
        }
    }
    return s;
}

/* After a round of merges: triangles around the vertices zipped
 * (touched) that now use an edge in the same direction as another were
 * walls back to back along the zipped slit, over bottom copies that have
 * just become one (a fin, which the slicer drops when it sees it whole):
 * the upright ones among them are marked gone (the other halves of their
 * quads follow as border fins).  An edge used twice the same way by
 * roofs is BAD_MESH. */
static strata_status dedupe(const strata_result *r, const uint32_t *remap,
                            const uint8_t *touched, uint8_t **gone, uint64_t *found)
{
    const strata_allocator *al = &r->alloc;
    uint64_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        dedge *d = NULL;
        if (pass && !(d = strata__alloc_array(al, n ? (size_t)n : 1, sizeof *d)))
            return STRATA_ERR_NOMEM;
        uint64_t w = 0;
        for (uint64_t i = 0; i < r->nindices; i += 3) {
            if (*gone && (*gone)[i / 3])
                continue;
            const uint32_t v[3] = {corner(r, remap, i, 0), corner(r, remap, i, 1),
                                   corner(r, remap, i, 2)};
            if (!touched[v[0]] && !touched[v[1]] && !touched[v[2]])
                continue;
            for (int k = 0; k < 3; k++, w++)
                if (pass)
                    d[w] = (dedge){(uint64_t)v[k] << 32 | v[(k + 1) % 3], v[k], v[(k + 1) % 3],
                                   i / 3};
        }
        if (!pass) {
            n = w;
            continue;
        }
        qsort(d, n, sizeof *d, cmp_dedge);
        strata_status s = STRATA_OK;
        for (uint64_t i = 0; i + 1 < n && s == STRATA_OK; i++) {
            if (d[i].key != d[i + 1].key)
                continue;
            int walls = 0;
            for (uint64_t j = i; j < i + 2 && s == STRATA_OK; j++)
                if (upright(r, d[j].tri)) {
                    walls++;
                    s = mark_gone(r, gone, d[j].tri, found);
                }
            if (s == STRATA_OK && !walls)
                s = STRATA_ERR_BAD_MESH;
        }
        strata__free(al, d);
        return s;
    }
    return STRATA_OK;
}

/* The slicer leaves a few triangles with two corners at one position (a
 * cut point rounded onto the vertex beside it): admesh calls them
 * degenerate.  Such corners are merged, the higher id into the lower,
 * which removes the triangles holding both (a collapse of an edge of no
 * length); what a merge makes back to back is left to dedupe (touched
 * marks the vertices kept).  *merged, *found: what was done. */
static strata_status weld(const strata_result *r, uint32_t *remap, uint8_t *touched,
                          uint8_t **gone, uint32_t *merged, uint64_t *found)
{
    for (uint64_t i = 0; i < r->nindices; i += 3) {
        if (*gone && (*gone)[i / 3])
            continue;
        for (int k = 0; k < 3; k++) {
            const uint32_t a = corner(r, remap, i, k), b = corner(r, remap, i, k + 1);
            if (a == b || !same_point(r, a, b) || r->y[a] != r->y[b])
                continue;
            remap[a > b ? a : b] = a < b ? a : b;
            touched[a < b ? a : b] = 1;
            (*merged)++;
        }
    }
    strata_status s = STRATA_OK;
    for (uint64_t i = 0; i < r->nindices && s == STRATA_OK && *merged; i += 3) {
        if (*gone && (*gone)[i / 3])
            continue;
        const uint32_t a = corner(r, remap, i, 0), b = corner(r, remap, i, 1);
        const uint32_t c = corner(r, remap, i, 2);
        if (a == b || b == c || a == c)
            s = mark_gone(r, gone, i / 3, found);
    }
    return s;
}

typedef struct range_ref {
    uint64_t *first, *count;
    double *area;
    uint64_t rank; /* place in the layout */
} range_ref;

static int cmp_range(const void *p, const void *q)
{
    const range_ref *x = p, *y = q;
    if (*x->first != *y->first)
        return *x->first < *y->first ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* Remove the triangles marked gone from r's index array, keeping the
 * order; each range keeps its place and loses its gone triangles (and
 * their area, when areas were filled).  refs: room for 2 nterraces. */
static void drop_gone(strata_result *r, const uint8_t *gone, range_ref *refs)
{
    const uint32_t n = r->nterraces;
    for (uint32_t k = 0; k < n; k++) {
        strata_terrace *t = &r->terraces[k];
        const int sep = r->walls == STRATA_WALLS_SEPARATE;
        refs[2 * k] = (range_ref){&t->roof_first, &t->roof_count, &t->roof_area,
                                  sep ? k : 2 * (uint64_t)k};
        refs[2 * k + 1] = (range_ref){&t->wall_first, &t->wall_count, &t->wall_area,
                                      sep ? (uint64_t)n + k : 2 * (uint64_t)k + 1};
    }
    qsort(refs, 2 * (size_t)n, sizeof *refs, cmp_range);
    uint64_t w = 0;
    for (uint32_t i = 0; i < 2 * n; i++) {
        const uint64_t first = *refs[i].first, end = first + *refs[i].count;
        *refs[i].first = w;
        for (uint64_t j = first; j < end; j += 3) {
            if (!gone[j / 3]) {
                memmove(r->indices + w, r->indices + j, 3 * sizeof *r->indices);
                w += 3;
            } else if (*refs[i].area > 0) {
                double c[3];
                strata__tri_cross(r->x, r->y, r->z, r->indices[j], r->indices[j + 1],
                                  r->indices[j + 2], c);
                *refs[i].area -= 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
            }
        }
        *refs[i].count = w - *refs[i].first;
    }
    r->nindices = w;
}

/* The edge of e (n, sorted by start) that starts at vertex a; n if none. */
static uint32_t edge_from(const dedge *e, uint32_t n, uint32_t a)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (e[mid].a < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && e[lo].a == a ? lo : n;
}

/* The border edges as one loop: loop[i] -> loop[i + 1] (and the last
 * back to the first), n vertices.  A vertex with two border edges out of
 * it (a pinch), or a border of several loops (holes), is BAD_MESH. */
static strata_status border_loop(const strata_allocator *al, const dedge *e, uint32_t n,
                                 uint32_t **loop)
{
    for (uint32_t i = 1; i < n; i++)
        if (e[i].a == e[i - 1].a)
            return STRATA_ERR_BAD_MESH;
    uint32_t *l = strata__alloc_array(al, n, sizeof *l);
    if (!l)
        return STRATA_ERR_NOMEM;
    uint32_t cur = 0, len = 0;
    do {
        l[len++] = e[cur].a;
        const uint32_t next = e[cur].b;
        const uint32_t lo = edge_from(e, n, next);
        if (lo == n) {
            strata__free(al, l);
            return STRATA_ERR_BAD_MESH; /* open: cannot happen on a manifold */
        }
        cur = lo;
    } while (cur != 0 && len < n);
    if (cur != 0 || len != n) {
        strata__free(al, l);
        return STRATA_ERR_BAD_MESH;
    }
    *loop = l;
    return STRATA_OK;
}

/* p[0 .. n-1] in reverse order. */
static void reverse(uint32_t *p, uint64_t n)
{
    for (uint64_t i = 0, j = n; i + 1 < j; i++, j--) {
        const uint32_t t = p[i];
        p[i] = p[j - 1];
        p[j - 1] = t;
    }
}


/* A stack: the vertices of the loop above one point of the footprint,
 * first .. first + count - 1 of the reduced loop, lowest first when up. */
typedef struct stack {
    uint32_t first, count;
    int up; /* walked upwards (count > 1) */
} stack;

/* Cut the loop (n vertices, zipped) into stacks, rewriting it in place
 * to start at a stack's first vertex; *nst stacks.  A stack that turns
 * is BAD_MESH. */
static strata_status stacks(const strata_result *r, uint32_t *loop, uint32_t n, stack *st,
                            uint32_t *nst)
{
    uint32_t start = 0;
    while (start < n && same_point(r, loop[(start + n - 1) % n], loop[start]))
        start++;
    if (start == n)
        return STRATA_ERR_BAD_MESH; /* no footprint at all */
    reverse(loop, start); /* rotate left by start */
    reverse(loop + start, n - start);
    reverse(loop, n);
    uint32_t ns = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i + 1;
        while (j < n && same_point(r, loop[i], loop[j]))
            j++;
        stack sk = {i, j - i, 0};
        if (sk.count > 1) {
            sk.up = r->y[loop[i + 1]] > r->y[loop[i]];
            for (uint32_t k = i + 1; k < j; k++)
                if ((r->y[loop[k]] > r->y[loop[k - 1]]) != sk.up)
                    return STRATA_ERR_BAD_MESH;
        }
        st[ns++] = sk;
        i = j;
    }
    if (ns < 3)
        return STRATA_ERR_BAD_MESH;
    *nst = ns;
    return STRATA_OK;
}

/* Triangles of the side column from stack A to the next stack B: the
 * rectangle below the border edge from A's last vertex to B's first,
 * down to the base points pa, pb.  Its left chain (at A, bottom up) is
 * pa then A's vertices when A walks up (their sides are this column's),
 * else pa and A's last; its right chain likewise at B when B walks down.
 * The chains are joined as a ladder, always advancing the lower next
 * vertex: triangles with two corners on one vertical line and one on the
 * other, never degenerate. */
static uint64_t column(const strata_result *r, const uint32_t *loop, const stack *A,
                       const stack *B, uint32_t pa, uint32_t pb, uint32_t *out)
{
    const uint32_t nl = A->up ? 1 + A->count : 2;
    const uint32_t nr = B->count > 1 && !B->up ? 1 + B->count : 2;
#define LEFT(i) ((i) == 0 ? pa : A->up ? loop[A->first + (i) - 1] : loop[A->first + A->count - 1])
#define RIGHT(j) ((j) == 0 ? pb : nr > 2 ? loop[B->first + B->count - (j)] : loop[B->first])
    uint32_t i = 0, j = 0;
    uint64_t w = 0;
    while (i + 1 < nl || j + 1 < nr) {
        const int left = j + 1 >= nr || (i + 1 < nl && r->y[LEFT(i + 1)] <= r->y[RIGHT(j + 1)]);
        if (left) {
            out[w++] = RIGHT(j);
            out[w++] = LEFT(i + 1);
            out[w++] = LEFT(i);
            i++;
        } else {
            out[w++] = LEFT(i);
            out[w++] = RIGHT(j);
            out[w++] = RIGHT(j + 1);
            j++;
        }
    }
#undef LEFT
#undef RIGHT
    return w;
}

/* Grow r's vertex and index arrays to hold nv and ni, keeping their
 * content. */
static strata_status grow(strata_result *r, uint32_t nv, uint64_t ni)
{
    const strata_allocator *al = &r->alloc;
    if (nv > r->cap_verts) {
        float *p[3] = {NULL, NULL, NULL};
        float **old[3] = {&r->x, &r->y, &r->z};
        for (int k = 0; k < 3; k++)
            if (!(p[k] = strata__alloc_array(al, nv, sizeof(float)))) {
                for (int j = 0; j < k; j++)
                    strata__free(al, p[j]);
                return STRATA_ERR_NOMEM;
            }
        for (int k = 0; k < 3; k++) {
            memcpy(p[k], *old[k], (size_t)r->nverts * sizeof(float));
            strata__free(al, *old[k]);
            *old[k] = p[k];
        }
        r->cap_verts = nv;
    }
    if (ni > r->cap_indices) {
        if (ni > SIZE_MAX / sizeof(uint32_t))
            return STRATA_ERR_OVERFLOW;
        uint32_t *p = strata__alloc_array(al, (size_t)ni, sizeof *p);
        if (!p)
            return STRATA_ERR_NOMEM;
        memcpy(p, r->indices, (size_t)r->nindices * sizeof *p);
        strata__free(al, r->indices);
        r->indices = p;
        r->cap_indices = ni;
    }
    return STRATA_OK;
}

/* Apply the merges (remap, over the first nold vertices) and drop the
 * vertices no triangle uses any more (merged ones, tops of border fins):
 * the others keep their order, indices rewritten.  ids: room for nverts. */
static void compact(strata_result *r, const uint32_t *remap, uint32_t nold, uint32_t *ids)
{
    for (uint64_t i = 0; i < r->nindices; i++)
        if (r->indices[i] < nold)
            r->indices[i] = root(remap, r->indices[i]);
    for (uint32_t v = 0; v < r->nverts; v++)
        ids[v] = UINT32_MAX;
    for (uint64_t i = 0; i < r->nindices; i++)
        ids[r->indices[i]] = 0;
    uint32_t w = 0;
    for (uint32_t v = 0; v < r->nverts; v++) {
        if (ids[v] == UINT32_MAX)
            continue;
        r->x[w] = r->x[v];
        r->y[w] = r->y[v];
        r->z[w] = r->z[v];
        ids[v] = w++;
    }
    for (uint64_t i = 0; i < r->nindices; i++)
        r->indices[i] = ids[r->indices[i]];
    r->nverts = w;
}

/* Put the nnew indices at the end of r's index array into terrace 0's
 * walls, moving the ranges after them. */
static void insert(strata_result *r, uint64_t nnew)
{
    strata_terrace *t = r->terraces;
    const uint64_t pos = t[0].wall_first + t[0].wall_count;
    const uint64_t old = r->nindices - nnew;
    reverse(r->indices + pos, old - pos); /* rotate the new ones to pos */
    reverse(r->indices + old, nnew);
    reverse(r->indices + pos, old - pos + nnew);
    t[0].wall_count += nnew;
    for (uint32_t k = 1; k < r->nterraces; k++) {
        if (r->walls != STRATA_WALLS_SEPARATE)
            t[k].roof_first += nnew;
        t[k].wall_first += nnew;
    }
}

/* The scratch of one strata_result_solidify and what its phases found,
 * over the nold vertices the result had. */
typedef struct solid {
    uint32_t nold;
    uint8_t *flag;    /* border_vertices' marks */
    uint8_t *touched; /* a vertex changed this round (weld, zip) */
    uint8_t *gone;    /* triangles removed (fins, walls on the border); NULL: none */
    uint32_t *remap;  /* merged vertices: root() finds a vertex's survivor */
    dedge *e;         /* the border edges, ne of them */
    uint32_t ne;
    gedge *g;         /* zip's room for ne */
    uint32_t *loop;   /* the border as one loop, ne vertices */
    stack *st;        /* the loop cut into nst stacks */
    uint32_t nst;
    range_ref *refs;  /* drop_gone's room for 2 nterraces */
    uint32_t *ids;    /* compact's room for the vertices */
    uint32_t merged;  /* vertices merged by weld and zip */
    uint64_t fins;    /* triangles marked gone */
} solid;

static void solid_free(const strata_allocator *al, solid *sd)
{
    strata__free(al, sd->flag);
    strata__free(al, sd->touched);
    strata__free(al, sd->gone);
    strata__free(al, sd->remap);
    strata__free(al, sd->e);
    strata__free(al, sd->g);
    strata__free(al, sd->loop);
    strata__free(al, sd->st);
    strata__free(al, sd->refs);
    strata__free(al, sd->ids);
}

/* Weld the slicer's coincident corners; *welding becomes 0 when there
 * were none (no second try without). */
static strata_status weld_corners(const strata_result *r, solid *sd, int *welding)
{
    uint64_t found = 0;
    uint32_t welded = 0;
    strata_status s = weld(r, sd->remap, sd->touched, &sd->gone, &welded, &found);
    if (s == STRATA_OK && welded)
        s = dedupe(r, sd->remap, sd->touched, &sd->gone, &found);
    memset(sd->touched, 0, sd->nold);
    sd->merged += welded;
    sd->fins += found;
    if (s == STRATA_OK && !welded)
        *welding = 0;
    return s;
}

/* The sides of the world's border (bit per side: x0, x1, z0, z1) that
 * vertex v lies on, and that are the tile's sides too. */
static unsigned outer_sides(const strata_result *r, const strata_solid_tile *t, uint32_t v)
{
    const float p[4] = {r->x[v], r->x[v], r->z[v], r->z[v]};
    unsigned m = 0;
    for (int k = 0; k < 4; k++)
        m |= (unsigned)(p[k] == t->world[k] && t->tile[k] == t->world[k]) << k;
    return m;
}

/* Keep the border edges lying on one side of the world's border (in
 * order): a tile's others are its inner borders, left as they are. */
static void keep_outer(const strata_result *r, const strata_solid_tile *t, dedge *e,
                       uint32_t *n)
{
    uint32_t w = 0;
    for (uint32_t i = 0; i < *n; i++)
        if (outer_sides(r, t, e[i].a) & outer_sides(r, t, e[i].b))
            e[w++] = e[i];
    *n = w;
}

/* Rounds of finding the border (sd->e), removing the walls standing on
 * it and zipping it, until a round changes nothing.  t not NULL: only
 * the parts of the border on the world's border (a tile's). */
static strata_status clean_border(strata_ctx *ctx, const strata_result *r, solid *sd,
                                  const strata_solid_tile *t)
{
    const strata_allocator *al = &r->alloc;
    strata_status s = STRATA_OK;
    for (int round = 0; s == STRATA_OK; round++) {
        uint64_t found = 0;
        uint32_t zipped = 0;
        if (round && strata__cancelled(ctx))
            return STRATA_ERR_CANCELLED;
        strata__free(al, sd->e);
        strata__free(al, sd->g);
        sd->e = NULL;
        sd->g = NULL;
        s = border_vertices(r, sd->gone, sd->remap, sd->flag);
        if (s == STRATA_OK)
            s = border_edges(r, sd->gone, sd->remap, sd->flag, &sd->e, &sd->ne);
        if (s == STRATA_OK && t)
            keep_outer(r, t, sd->e, &sd->ne);
        if (s == STRATA_OK)
            s = border_fins(r, sd->e, sd->ne, &sd->gone, &found);
        sd->fins += found;
        if (s != STRATA_OK || found)
            continue;
        if (!(sd->g = strata__alloc_array(al, sd->ne ? sd->ne : 1, sizeof *sd->g)))
            s = STRATA_ERR_NOMEM;
        if (s == STRATA_OK)
            s = zip(r, sd->e, sd->ne, sd->g, sd->remap, sd->touched, &sd->gone, &zipped, &found);
        if (s == STRATA_OK && zipped)
            s = dedupe(r, sd->remap, sd->touched, &sd->gone, &found);
        sd->fins += found;
        sd->merged += zipped;
        if (s != STRATA_OK || (!found && !zipped))
            break;
    }
    return s;
}

/* The clean border as one loop, cut into stacks. */
static strata_status border_stacks(const strata_result *r, solid *sd)
{
    strata_status s = sd->ne >= 3 ? border_loop(&r->alloc, sd->e, sd->ne, &sd->loop)
                                  : STRATA_ERR_BAD_MESH;
    if (s == STRATA_OK && !(sd->st = strata__alloc_array(&r->alloc, sd->ne, sizeof *sd->st)))
        s = STRATA_ERR_NOMEM;
    if (s == STRATA_OK)
        s = stacks(r, sd->loop, sd->ne, sd->st, &sd->nst);
    return s;
}

/* The border, made one clean loop of stacks: first with the slicer's
 * coincident corners welded; should that leave a border that cannot be
 * closed, again without.  r is not changed. */
static strata_status find_border(strata_ctx *ctx, const strata_result *r, solid *sd)
{
    const strata_allocator *al = &r->alloc;
    strata_status s = STRATA_OK;
    for (int welding = 1; welding >= 0 && (s == STRATA_OK || s == STRATA_ERR_BAD_MESH);
         welding--) {
        for (uint32_t v = 0; v < sd->nold; v++)
            sd->remap[v] = v;
        strata__free(al, sd->gone);
        strata__free(al, sd->loop);
        strata__free(al, sd->st);
        sd->gone = NULL;
        sd->loop = NULL;
        sd->st = NULL;
        sd->fins = 0;
        sd->merged = 0;
        memset(sd->touched, 0, sd->nold);
        s = welding ? weld_corners(r, sd, &welding) : STRATA_OK;
        if (s == STRATA_OK)
            s = clean_border(ctx, r, sd, NULL);
        if (s == STRATA_OK)
            s = border_stacks(r, sd);
        if (s != STRATA_ERR_BAD_MESH)
            break;
    }
    return s;
}

/* Room for what emit adds: a base point a stack and the centroid;
 * columns of nl + nr - 2 triangles each, at most 2 a loop vertex in all,
 * and the base, one a stack. */
static strata_status reserve(strata_result *r, solid *sd)
{
    const uint64_t nidx = 3 * (2 * (uint64_t)sd->ne + sd->nst);
    const uint64_t nv = (uint64_t)r->nverts + sd->nst + 1;
    if (nv > UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    if (!(sd->ids = strata__alloc_array(&r->alloc, (size_t)nv, sizeof *sd->ids)))
        return STRATA_ERR_NOMEM;
    return grow(r, (uint32_t)nv, r->nindices + nidx);
}

/* Past r's vertices and indices (not counted yet): the base points below
 * each stack and their centroid, the side columns and the base fan;
 * *nidx indices.  A footprint not star-shaped from its centroid is
 * BAD_MESH. */
static strata_status emit(strata_result *r, const solid *sd, float base, uint64_t *nidx)
{
    const uint32_t nst = sd->nst, p0 = r->nverts, c = p0 + nst;
    const uint32_t *loop = sd->loop;
    double cx = 0, cz = 0;
    for (uint32_t i = 0; i < nst; i++) {
        const uint32_t v = loop[sd->st[i].first];
        r->x[p0 + i] = r->x[v];
        r->y[p0 + i] = base;
        r->z[p0 + i] = r->z[v];
        cx += r->x[v];
        cz += r->z[v];
    }
    r->x[c] = (float)(cx / nst);
    r->y[c] = base;
    r->z[c] = (float)(cz / nst);
    uint32_t *out = r->indices + r->nindices;
    uint64_t w = 0;
    for (uint32_t i = 0; i < nst; i++)
        w += column(r, loop, &sd->st[i], &sd->st[(i + 1) % nst], p0 + i, p0 + (i + 1) % nst,
                    out + w);
    for (uint32_t i = 0; i < nst; i++) {
        const uint32_t a = c, b = p0 + (i + 1) % nst, d = p0 + i;
        double n[3];
        strata__tri_cross(r->x, r->y, r->z, a, b, d, n);
        out[w++] = a;
        out[w++] = b;
        out[w++] = d;
        if (!(n[1] < 0))
            return STRATA_ERR_BAD_MESH;
    }
    *nidx = w;
    return STRATA_OK;
}

/* Make what emit wrote (nv vertices, w indices) part of r: the gone triangles
 * dropped, the merges applied, the new triangles in terrace 0's walls
 * (their area added when areas were filled). */
static void apply(strata_result *r, solid *sd, uint32_t nv, uint64_t w)
{
    r->nverts += nv;
    if (sd->gone) {
        const uint64_t old = r->nindices;
        drop_gone(r, sd->gone, sd->refs);
        memmove(r->indices + r->nindices, r->indices + old, (size_t)w * sizeof *r->indices);
    }
    r->nindices += w;
    compact(r, sd->remap, sd->nold, sd->ids);
    insert(r, w);
    strata_terrace *t = &r->terraces[0];
    if (t->roof_area > 0 || t->wall_area > 0) {
        const uint64_t f = t->wall_first + t->wall_count - w;
        for (uint64_t i = f; i < f + w; i += 3) {
            double n[3];
            strata__tri_cross(r->x, r->y, r->z, r->indices[i], r->indices[i + 1],
                              r->indices[i + 2], n);
            t->wall_area += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        }
    }
}

strata_status strata_result_solidify(strata_ctx *ctx, strata_result *r, float depth,
                                     strata_solid_stats *stats)
{
    if (!ctx || !r || !(depth > 0) || !isfinite(depth) || r->nterraces == 0 || r->nindices == 0)
        return STRATA_ERR_INVALID_ARG;
    if (r->geometry != STRATA_FLAT || r->nx || r->water_count || r->shore_count)
        return STRATA_ERR_INVALID_ARG; /* water, shorelines: added after it */
    if (strata__cancelled(ctx))
        return STRATA_ERR_CANCELLED;
    const strata_allocator *al = &r->alloc;
    float ymin = INFINITY;
    for (uint64_t i = 0; i < r->nindices; i++)
        ymin = fminf(ymin, r->y[r->indices[i]]);
    const float base = ymin - depth;
    if (!isfinite(base) || !(base < ymin))
        return STRATA_ERR_INVALID_ARG; /* depth lost in ymin's precision */

    solid sd;
    memset(&sd, 0, sizeof sd);
    sd.nold = r->nverts;
    sd.flag = strata__alloc_array(al, sd.nold, 1);
    sd.remap = strata__alloc_array(al, sd.nold, sizeof *sd.remap);
    sd.touched = sd.flag ? strata__alloc_array(al, sd.nold, 1) : NULL;
    strata_status s = sd.flag && sd.remap && sd.touched ? STRATA_OK : STRATA_ERR_NOMEM;
    if (s == STRATA_OK)
        s = find_border(ctx, r, &sd);
    strata__free(al, sd.g); /* the search's scratch, done with */
    strata__free(al, sd.touched);
    sd.g = NULL;
    sd.touched = NULL;
    if (s == STRATA_OK && sd.gone &&
        !(sd.refs = strata__alloc_array(al, 2 * (size_t)r->nterraces, sizeof *sd.refs)))
        s = STRATA_ERR_NOMEM;
    if (s == STRATA_OK)
        s = reserve(r, &sd);
    uint64_t w = 0;
    if (s == STRATA_OK)
        s = emit(r, &sd, base, &w);
    if (s == STRATA_OK) /* from here on r changes */
        apply(r, &sd, sd.nst + 1, w);
    if (stats) {
        const int ok = s == STRATA_OK;
        stats->base = base;
        stats->border_points = ok ? sd.nst : 0;
        stats->triangles_added = ok ? w / 3 : 0;
        stats->vertices_merged = ok ? sd.merged : 0;
        stats->fins_removed = ok ? sd.fins : 0;
    }
    solid_free(al, &sd);
    return s;
}

/* ------------------------------------------------------------ a world tile's part
 *
 * A tile's border on the world's border is one or two open chains (one
 * closed loop for a world of one tile).  A chain ends at a tile corner
 * on the world's border, where the tile next to it goes on.  There the
 * lattice vertex has at most two heights (its top copy, and bottom
 * copies when it lies on its plane), each tile at most one wall end
 * (from its border point to the seam's first vertex), and each tile's
 * end stack keeps only its border point; the column of the tile whose
 * border point is higher gets a vertex at the other's (t->ends, from the
 * neighbour's own border phase), so the two columns share the line's
 * lower piece, the higher column closes what lies between the two
 * border points (its own wall end or the neighbour's), and wall ends
 * going up and down again (a spike the whole mesh zips) pair with each
 * other across the seam. */

/* The chains of the border edges e (n, sorted by start) in loop (room
 * for n + 2 vertices a chain), chain c in loop[ch[c] .. ch[c + 1]);
 * *closed: one closed loop (loop[0 .. n)).  mark: room for the vertices. */
static strata_status chains(const dedge *e, uint32_t n, uint8_t *mark, uint32_t nverts,
                            uint32_t *loop, uint32_t *ch, uint32_t *nch, int *closed)
{
    for (uint32_t i = 1; i < n; i++)
        if (e[i].a == e[i - 1].a)
            return STRATA_ERR_BAD_MESH; /* a pinch */
    memset(mark, 0, nverts);
    for (uint32_t i = 0; i < n; i++)
        mark[e[i].b] = 1;
    uint32_t w = 0, c = 0, seen = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (mark[e[i].a])
            continue;
        if (c == 4)
            return STRATA_ERR_BAD_MESH; /* a rectangle's border has at most 2 */
        ch[c++] = w;
        uint32_t cur = i;
        for (;;) {
            loop[w++] = e[cur].a;
            seen++;
            const uint32_t next = e[cur].b;
            const uint32_t lo = edge_from(e, n, next);
            if (lo == n) {
                loop[w++] = next;
                break;
            }
            if (seen > n)
                return STRATA_ERR_BAD_MESH;
            cur = lo;
        }
    }
    ch[c] = w;
    *nch = c;
    *closed = c == 0 && n > 0;
    if (*closed)
        return STRATA_OK; /* the caller makes the loop */
    return seen == n ? STRATA_OK : STRATA_ERR_BAD_MESH; /* a loop besides the chains */
}

/* The open chain loop[0 .. n) cut into stacks (st, *nst): as stacks()
 * does, but the end stacks may turn (only their border points are
 * used). */
static strata_status chain_stacks(const strata_result *r, const uint32_t *loop, uint32_t n,
                                  stack *st, uint32_t *nst)
{
    uint32_t ns = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i + 1;
        while (j < n && same_point(r, loop[i], loop[j]))
            j++;
        stack sk = {i, j - i, 0};
        if (sk.count > 1) {
            sk.up = r->y[loop[i + 1]] > r->y[loop[i]];
            for (uint32_t k = i + 1; k < j && i > 0 && j < n; k++)
                if ((r->y[loop[k]] > r->y[loop[k - 1]]) != sk.up)
                    return STRATA_ERR_BAD_MESH;
        }
        st[ns++] = sk;
        i = j;
    }
    if (ns < 2)
        return STRATA_ERR_BAD_MESH;
    *nst = ns;
    return STRATA_OK;
}

/* The other tile's border point at the chain end at vertex h (t->ends):
 * its height, or NAN when t has none there. */
static float other_end(const strata_result *r, const strata_solid_tile *t, uint32_t h)
{
    for (uint32_t k = 0; k < t->nends; k++)
        if (t->ends[k][0] == r->x[h] && t->ends[k][2] == r->z[h])
            return t->ends[k][1];
    return NAN;
}

/* One vertical side of a column, bottom up, into out (returns its
 * length): base point p, then at stack s the vertices the column uses,
 * as column() takes them (left: A's side; right: B's); cut: s ends an
 * open chain, so only its border point h, and below it a new vertex (*nv,
 * the next free id) at the other tile's border point there when that is
 * lower: the two tiles' lines then share their pieces. */
static uint32_t side(strata_result *r, const uint32_t *loop, const stack *s, uint32_t p,
                     int left, int cut, const strata_solid_tile *t, uint32_t *nv,
                     uint32_t *out)
{
    uint32_t n = 0;
    out[n++] = p;
    if (cut) {
        const uint32_t h = loop[left ? s->first + s->count - 1 : s->first];
        const float o = other_end(r, t, h);
        if (o < r->y[h]) {
            r->x[*nv] = r->x[h];
            r->y[*nv] = o;
            r->z[*nv] = r->z[h];
            out[n++] = (*nv)++;
        }
        out[n++] = h;
    } else if (left && s->up) {
        for (uint32_t k = 0; k < s->count; k++)
            out[n++] = loop[s->first + k];
    } else if (!left && s->count > 1 && !s->up) {
        for (uint32_t k = s->count; k-- > 0;)
            out[n++] = loop[s->first + k];
    } else {
        out[n++] = loop[left ? s->first + s->count - 1 : s->first];
    }
    return n;
}

/* column() over two sides given bottom up: the same ladder. */
static uint64_t ladder(const strata_result *r, const uint32_t *L, uint32_t nl, const uint32_t *R,
                       uint32_t nr, uint32_t *out)
{
    uint32_t i = 0, j = 0;
    uint64_t w = 0;
    while (i + 1 < nl || j + 1 < nr) {
        if (j + 1 >= nr || (i + 1 < nl && r->y[L[i + 1]] <= r->y[R[j + 1]])) {
            out[w++] = R[j];
            out[w++] = L[i + 1];
            out[w++] = L[i];
            i++;
        } else {
            out[w++] = L[i];
            out[w++] = R[j];
            out[w++] = R[j + 1];
            j++;
        }
    }
    return w;
}

/* A base point and where it lies along the tile's rectangle. */
typedef struct rim {
    double t;
    uint32_t v;
} rim;

static int cmp_rim(const void *p, const void *q)
{
    const rim *a = p, *b = q;
    return a->t < b->t ? -1 : a->t > b->t;
}

/* Where (x, z) lies along the border of rectangle b (x0, x1, z0, z1),
 * from (x0, z0) on; -1 off it. */
static double along(const float *b, float x, float z)
{
    const double w = (double)b[1] - b[0], h = (double)b[3] - b[2];
    if (z == b[2])
        return (double)x - b[0];
    if (x == b[1])
        return w + ((double)z - b[2]);
    if (z == b[3])
        return w + h + ((double)b[1] - x);
    if (x == b[0])
        return 2 * w + h + ((double)b[3] - z);
    return -1;
}

/* The tile's rectangle of the base: the base points rm[0 .. n) (room
 * for 4 more: the corners that are none, new vertices from *nv), a fan
 * from the rectangle's centre (a new vertex), facing down; *w indices
 * written to out.  BAD_MESH for a point off the rectangle. */
static strata_status base_fan(strata_result *r, const strata_solid_tile *t, rim *rm, uint32_t n,
                              uint32_t *nv, uint32_t *out, uint64_t *w)
{
    const float *b = t->tile;
    const float cx[4] = {b[0], b[1], b[1], b[0]}, cz[4] = {b[2], b[2], b[3], b[3]};
    for (uint32_t i = 0; i < n; i++)
        if ((rm[i].t = along(b, r->x[rm[i].v], r->z[rm[i].v])) < 0)
            return STRATA_ERR_BAD_MESH;
    for (int k = 0; k < 4; k++) {
        const double at = along(b, cx[k], cz[k]);
        uint32_t i = 0;
        while (i < n && rm[i].t != at)
            i++;
        if (i < n)
            continue;
        r->x[*nv] = cx[k];
        r->y[*nv] = t->base;
        r->z[*nv] = cz[k];
        rm[n++] = (rim){at, (*nv)++};
    }
    qsort(rm, n, sizeof *rm, cmp_rim);
    const uint32_t c = (*nv)++;
    r->x[c] = (float)(0.5 * ((double)b[0] + b[1]));
    r->y[c] = t->base;
    r->z[c] = (float)(0.5 * ((double)b[2] + b[3]));
    for (uint32_t i = 0; i < n; i++) {
        if (i + 1 < n && rm[i].t == rm[i + 1].t)
            return STRATA_ERR_BAD_MESH;
        uint32_t *o = out + *w;
        o[0] = c;
        o[1] = rm[i].v;
        o[2] = rm[(i + 1) % n].v;
        double nn[3];
        strata__tri_cross(r->x, r->y, r->z, o[0], o[1], o[2], nn);
        if (nn[1] > 0) { /* the rectangle walked the other way round */
            o[1] = rm[(i + 1) % n].v;
            o[2] = rm[i].v;
            strata__tri_cross(r->x, r->y, r->z, o[0], o[1], o[2], nn);
        }
        if (!(nn[1] < 0))
            return STRATA_ERR_BAD_MESH;
        *w += 3;
    }
    return STRATA_OK;
}

/* The chains of sd->e into sd->loop and their stacks into sd->st; ch:
 * chain c's stacks are st[ch[c] .. ch[c + 1]); *closed: one loop. */
static strata_status tile_stacks(const strata_result *r, solid *sd, uint32_t *ch, uint32_t *nch,
                                 int *closed)
{
    const strata_allocator *al = &r->alloc;
    uint32_t at[5];
    if (!(sd->loop = strata__alloc_array(al, (size_t)sd->ne + 8, sizeof *sd->loop)) ||
        !(sd->st = strata__alloc_array(al, (size_t)sd->ne + 8, sizeof *sd->st)))
        return STRATA_ERR_NOMEM;
    strata_status s = chains(sd->e, sd->ne, sd->flag, sd->nold, sd->loop, at, nch, closed);
    if (s == STRATA_OK && *closed) {
        uint32_t *l = NULL;
        s = sd->ne >= 3 ? border_loop(al, sd->e, sd->ne, &l) : STRATA_ERR_BAD_MESH;
        if (s == STRATA_OK)
            memcpy(sd->loop, l, (size_t)sd->ne * sizeof *l);
        strata__free(al, l);
        *nch = 1;
        ch[0] = 0;
        if (s == STRATA_OK)
            s = stacks(r, sd->loop, sd->ne, sd->st, &ch[1]);
        sd->nst = ch[1];
        return s;
    }
    sd->nst = 0;
    for (uint32_t c = 0; c < *nch && s == STRATA_OK; c++) {
        uint32_t n = 0;
        ch[c] = sd->nst;
        s = chain_stacks(r, sd->loop + at[c], at[c + 1] - at[c], sd->st + sd->nst, &n);
        for (uint32_t i = 0; i < n; i++)
            sd->st[sd->nst + i].first += at[c];
        sd->nst += n;
    }
    ch[*nch] = sd->nst;
    return s;
}

/* The columns and the base of a tile past r's vertices and indices (not
 * counted yet); *nv, *nidx: what was written. */
static strata_status tile_emit(strata_result *r, const solid *sd, const strata_solid_tile *t,
                               const uint32_t *ch, uint32_t nch, int closed, uint32_t *sides,
                               rim *rm, uint32_t *nv, uint64_t *nidx)
{
    const uint32_t p0 = r->nverts, room = sd->ne + 8;
    uint32_t v = p0 + sd->nst;
    for (uint32_t i = 0; i < sd->nst; i++) {
        const uint32_t q = sd->loop[sd->st[i].first];
        r->x[p0 + i] = r->x[q];
        r->y[p0 + i] = t->base;
        r->z[p0 + i] = r->z[q];
        rm[i] = (rim){0, p0 + i};
    }
    uint32_t *out = r->indices + r->nindices;
    uint64_t w = 0;
    for (uint32_t c = 0; c < nch; c++) {
        const uint32_t o = ch[c], n = ch[c + 1] - ch[c];
        for (uint32_t i = 0; i < (closed ? n : n - 1); i++) {
            const uint32_t a = o + i, b = o + (i + 1) % n;
            const uint32_t nl = side(r, sd->loop, &sd->st[a], p0 + a, 1, !closed && i == 0, t,
                                     &v, sides);
            const uint32_t nr = side(r, sd->loop, &sd->st[b], p0 + b, 0,
                                     !closed && i + 2 == n, t, &v, sides + room);
            w += ladder(r, sides, nl, sides + room, nr, out + w);
        }
    }
    const strata_status s = base_fan(r, t, rm, sd->nst, &v, out, &w);
    *nv = v - p0;
    *nidx = w;
    return s;
}

/* The border phase of a tile's part (r not changed): the border on the
 * world's border cleaned, its chains and stacks. */
static strata_status tile_border(strata_ctx *ctx, const strata_result *r,
                                 const strata_solid_tile *t, solid *sd, uint32_t *ch,
                                 uint32_t *nch, int *closed)
{
    memset(sd, 0, sizeof *sd);
    if (!ctx || !r || !t || !isfinite(t->base) || r->nterraces == 0 || r->nindices == 0 ||
        r->geometry != STRATA_FLAT || r->nx || r->water_count || r->shore_count)
        return STRATA_ERR_INVALID_ARG;
    if (strata__cancelled(ctx))
        return STRATA_ERR_CANCELLED;
    for (uint64_t i = 0; i < r->nindices; i++)
        if (!(t->base < r->y[r->indices[i]]))
            return STRATA_ERR_INVALID_ARG;
    const strata_allocator *al = &r->alloc;
    sd->nold = r->nverts;
    sd->flag = strata__alloc_array(al, sd->nold, 1);
    sd->remap = strata__alloc_array(al, sd->nold, sizeof *sd->remap);
    sd->touched = sd->flag ? strata__alloc_array(al, sd->nold, 1) : NULL;
    strata_status s = sd->flag && sd->remap && sd->touched ? STRATA_OK : STRATA_ERR_NOMEM;
    for (uint32_t v = 0; s == STRATA_OK && v < sd->nold; v++)
        sd->remap[v] = v;
    if (s == STRATA_OK) {
        memset(sd->touched, 0, sd->nold);
        s = clean_border(ctx, r, sd, t);
    }
    *nch = 0;
    *closed = 0;
    return s == STRATA_OK ? tile_stacks(r, sd, ch, nch, closed) : s;
}

strata_status strata__result_solid_ends(strata_ctx *ctx, const strata_result *r,
                                        const strata_solid_tile *t, float (*ends)[3],
                                        uint32_t *n)
{
    solid sd;
    uint32_t ch[5], nch;
    int closed;
    strata_status s = tile_border(ctx, r, t, &sd, ch, &nch, &closed);
    *n = 0;
    if (!r)
        return s;
    for (uint32_t c = 0; s == STRATA_OK && !closed && c < nch; c++)
        for (int end = 0; end < 2; end++) {
            const stack *k = &sd.st[end ? ch[c + 1] - 1 : ch[c]];
            const uint32_t v = sd.loop[end ? k->first : k->first + k->count - 1];
            ends[*n][0] = r->x[v];
            ends[*n][1] = r->y[v];
            ends[*n][2] = r->z[v];
            (*n)++;
        }
    solid_free(&r->alloc, &sd);
    return s;
}

strata_status strata__result_solidify_tile(strata_ctx *ctx, strata_result *r,
                                           const strata_solid_tile *t, strata_solid_stats *stats)
{
    solid sd;
    uint32_t ch[5], nch = 0;
    int closed = 0;
    strata_status s = tile_border(ctx, r, t, &sd, ch, &nch, &closed);
    if (!r)
        return s;
    const strata_allocator *al = &r->alloc;
    strata__free(al, sd.g); /* the search's scratch, done with */
    strata__free(al, sd.touched);
    sd.g = NULL;
    sd.touched = NULL;
    const uint32_t room = sd.ne + 8;
    uint32_t *sides = NULL;
    rim *rm = NULL;
    if (s == STRATA_OK && ((sd.gone && !(sd.refs = strata__alloc_array(
                                             al, 2 * (size_t)r->nterraces, sizeof *sd.refs))) ||
                           !(sides = strata__alloc_array(al, 2 * (size_t)room, sizeof *sides)) ||
                           !(rm = strata__alloc_array(al, (size_t)sd.nst + 4, sizeof *rm))))
        s = STRATA_ERR_NOMEM;
    const uint64_t nv = (uint64_t)r->nverts + sd.nst + 2ull * nch + 5;
    const uint64_t ni = r->nindices + 3 * (2 * ((uint64_t)sd.ne + 8 + sd.nst) + 4ull * nch +
                                           sd.nst + 4);
    if (s == STRATA_OK && nv > UINT32_MAX)
        s = STRATA_ERR_OVERFLOW;
    if (s == STRATA_OK && !(sd.ids = strata__alloc_array(al, (size_t)nv, sizeof *sd.ids)))
        s = STRATA_ERR_NOMEM;
    if (s == STRATA_OK)
        s = grow(r, (uint32_t)nv, ni);
    uint32_t added = 0;
    uint64_t w = 0;
    if (s == STRATA_OK)
        s = tile_emit(r, &sd, t, ch, nch, closed, sides, rm, &added, &w);
    if (s == STRATA_OK) /* from here on r changes */
        apply(r, &sd, added, w);
    if (stats) {
        const int ok = s == STRATA_OK;
        stats->base = t->base;
        stats->border_points = ok ? sd.nst : 0;
        stats->triangles_added = ok ? w / 3 : 0;
        stats->vertices_merged = ok ? sd.merged : 0;
        stats->fins_removed = ok ? sd.fins : 0;
    }
    strata__free(al, sides);
    strata__free(al, rm);
    solid_free(al, &sd);
    return s;
}

strata_status strata_result_fit_size(strata_result *r, double size, double *factor)
{
    if (!r || !(size > 0) || !isfinite(size) || r->nverts == 0)
        return STRATA_ERR_INVALID_ARG;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const float *p[3] = {r->x, r->y, r->z};
    for (int k = 0; k < 3; k++)
        for (uint32_t v = 0; v < r->nverts; v++) {
            lo[k] = fminf(lo[k], p[k][v]);
            hi[k] = fmaxf(hi[k], p[k][v]);
        }
    double side = 0;
    for (int k = 0; k < 3; k++)
        side = fmax(side, (double)hi[k] - lo[k]);
    if (!(side > 0))
        return STRATA_ERR_INVALID_ARG;
    const double f = size / side;
    for (int k = 0; k < 3; k++) {
        const double big = fmax(fabs((double)lo[k]), fabs((double)hi[k])) * f;
        if (!(big <= FLT_MAX))
            return STRATA_ERR_OVERFLOW;
    }
    const float ff = (float)f;
    float *q[3] = {r->x, r->y, r->z};
    for (int k = 0; k < 3; k++)
        for (uint32_t v = 0; v < r->nverts; v++)
            q[k][v] *= ff;
    for (int k = 0; k < 3; k++)
        r->center[k] *= ff;
    r->radius *= ff;
    for (uint32_t t = 0; t < r->nterraces; t++) {
        r->terraces[t].level *= ff;
        r->terraces[t].roof_area *= (double)ff * ff;
        r->terraces[t].wall_area *= (double)ff * ff;
    }
    if (factor)
        *factor = ff;
    return STRATA_OK;
}
