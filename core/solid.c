/* strata_result_solidify: close a flat terrain into a solid for 3D
 * printing.  Phases:
 *
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
#include "alloc.h"
#include "ctx.h"
#include "mesh.h"
#include "result.h"

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

/* Border vertices: around an inner vertex each neighbour is the end of
 * one edge out of it and the start of one edge into it, so the sums of
 * their hashes agree; at a border vertex they differ (an equal sum there
 * has probability 2^-64 and would leave the loop open: BAD_MESH, never a
 * wrong solid).  flag[v] = 1 for a border vertex. */
static strata_status border_vertices(const strata_result *r, uint8_t *flag)
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
        for (int k = 0; k < 3; k++) {
            const uint32_t a = r->indices[i + (uint64_t)k], b = r->indices[i + (uint64_t)(k + 1) % 3];
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

/* The directed edges a -> b of the triangles whose reverse no triangle
 * uses, sorted by a, in *out (count *n).  An edge used more than twice,
 * or twice the same way, is BAD_MESH. */
static strata_status border_edges(const strata_result *r, const uint8_t *flag, dedge **out,
                                  uint32_t *n)
{
    const strata_allocator *al = &r->alloc;
    uint64_t cand = 0;
    for (uint64_t i = 0; i < r->nindices; i += 3)
        for (int k = 0; k < 3; k++)
            cand += flag[r->indices[i + (uint64_t)k]] && flag[r->indices[i + (uint64_t)(k + 1) % 3]];
    if (cand > UINT32_MAX)
        return STRATA_ERR_OVERFLOW;
    dedge *e = strata__alloc_array(al, cand ? (size_t)cand : 1, sizeof *e);
    if (!e)
        return STRATA_ERR_NOMEM;
    uint32_t m = 0;
    for (uint64_t i = 0; i < r->nindices; i += 3)
        for (int k = 0; k < 3; k++) {
            const uint32_t a = r->indices[i + (uint64_t)k], b = r->indices[i + (uint64_t)(k + 1) % 3];
            if (flag[a] && flag[b])
                e[m++] = (dedge){a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a, a, b};
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
        uint32_t lo = 0, hi = n;
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo) / 2;
            if (e[mid].a < next)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == n || e[lo].a != next) {
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

static int same_point(const strata_result *r, uint32_t a, uint32_t b)
{
    return r->x[a] == r->x[b] && r->z[a] == r->z[b];
}

/* A stack: the vertices of the loop above one point of the footprint,
 * first .. first + count - 1 of the reduced loop, lowest first when up. */
typedef struct stack {
    uint32_t first, count;
    int up; /* walked upwards (count > 1) */
} stack;

/* Cut the loop (n vertices) into stacks, zipping spikes: a wall side
 * walked up and then down again at the same point (a vertex on its plane
 * whose two wedges of lower neighbours both reach the border) ends on two
 * bottom copies at the same position; the second is merged into the
 * first (remap), so the two sides become one inner edge.  The loop is
 * rewritten in place, starting at a stack's first vertex; *nst stacks.
 * A stack that still turns is BAD_MESH. */
static strata_status stacks(const strata_result *r, uint32_t *loop, uint32_t *n, uint32_t *remap,
                            stack *st, uint32_t *nst, uint32_t *merged)
{
    const uint32_t len = *n;
    uint32_t start = 0;
    while (start < len && same_point(r, loop[(start + len - 1) % len], loop[start]))
        start++;
    if (start == len)
        return STRATA_ERR_BAD_MESH; /* no footprint at all */
    reverse(loop, start); /* rotate left by start */
    reverse(loop + start, len - start);
    reverse(loop, len);
    uint32_t w = 0, ns = 0;
    *merged = 0;
    for (uint32_t i = 0; i < len;) {
        uint32_t j = i + 1;
        while (j < len && same_point(r, loop[i], loop[j]))
            j++;
        const uint32_t first = w;
        for (uint32_t k = i; k < j; k++) {
            const uint32_t v = loop[k];
            if (w - first >= 2 && r->y[loop[w - 2]] == r->y[v]) {
                remap[v] = loop[w - 2]; /* up and down again: zip */
                w--;
                (*merged)++;
                continue;
            }
            loop[w++] = v;
        }
        stack s = {first, w - first, 0};
        if (s.count > 1) {
            s.up = r->y[loop[first + 1]] > r->y[loop[first]];
            for (uint32_t k = first + 1; k < w; k++)
                if ((r->y[loop[k]] > r->y[loop[k - 1]]) != s.up ||
                    r->y[loop[k]] == r->y[loop[k - 1]])
                    return STRATA_ERR_BAD_MESH;
        }
        st[ns++] = s;
        i = j;
    }
    if (ns < 3)
        return STRATA_ERR_BAD_MESH;
    *n = w;
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

/* Drop the vertices merged away (remap[v] != v): ids renumbered in order,
 * indices rewritten. */
static void compact(strata_result *r, uint32_t *remap)
{
    for (uint64_t i = 0; i < r->nindices; i++)
        r->indices[i] = remap[r->indices[i]];
    uint32_t w = 0;
    for (uint32_t v = 0; v < r->nverts; v++) {
        if (remap[v] != v) {
            remap[v] = UINT32_MAX;
            continue;
        }
        r->x[w] = r->x[v];
        r->y[w] = r->y[v];
        r->z[w] = r->z[v];
        remap[v] = w++;
    }
    for (uint64_t i = 0; i < r->nindices; i++)
        r->indices[i] = remap[r->indices[i]];
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

strata_status strata_result_solidify(strata_ctx *ctx, strata_result *r, float depth,
                                     strata_solid_stats *stats)
{
    if (!ctx || !r || !(depth > 0) || !isfinite(depth) || r->nterraces == 0 || r->nindices == 0)
        return STRATA_ERR_INVALID_ARG;
    if (r->geometry != STRATA_FLAT || r->nx)
        return STRATA_ERR_INVALID_ARG;
    if (strata__cancelled(ctx))
        return STRATA_ERR_CANCELLED;
    const strata_allocator *al = &r->alloc;
    float ymin = INFINITY;
    for (uint64_t i = 0; i < r->nindices; i++)
        ymin = fminf(ymin, r->y[r->indices[i]]);
    const float base = ymin - depth;
    if (!isfinite(base) || !(base < ymin))
        return STRATA_ERR_INVALID_ARG; /* depth lost in ymin's precision */

    uint8_t *flag = strata__alloc_array(al, r->nverts, 1);
    uint32_t *remap = strata__alloc_array(al, r->nverts, sizeof *remap);
    dedge *e = NULL;
    uint32_t *loop = NULL, ne = 0;
    stack *st = NULL;
    strata_status s = flag && remap ? border_vertices(r, flag) : STRATA_ERR_NOMEM;
    if (s == STRATA_OK)
        s = border_edges(r, flag, &e, &ne);
    if (s == STRATA_OK)
        s = ne >= 3 ? border_loop(al, e, ne, &loop) : STRATA_ERR_BAD_MESH;
    uint32_t nl = ne, nst = 0, merged = 0;
    if (s == STRATA_OK && !(st = strata__alloc_array(al, ne, sizeof *st)))
        s = STRATA_ERR_NOMEM;
    if (s == STRATA_OK) {
        for (uint32_t v = 0; v < r->nverts; v++)
            remap[v] = v;
        s = stacks(r, loop, &nl, remap, st, &nst, &merged);
    }
    uint64_t ntri = 0;
    if (s == STRATA_OK) {
        /* columns: nl + nr - 2 triangles each, at most 2 a loop vertex
         * in all; the base: one a stack */
        const uint64_t nidx = 3 * (2 * (uint64_t)nl + nst);
        const uint64_t nv = (uint64_t)r->nverts + nst + 1;
        if (nv > UINT32_MAX)
            s = STRATA_ERR_OVERFLOW;
        else
            s = grow(r, (uint32_t)nv, r->nindices + nidx);
    }
    if (s == STRATA_OK) {
        const uint32_t p0 = r->nverts, c = p0 + nst;
        double cx = 0, cz = 0;
        for (uint32_t i = 0; i < nst; i++) {
            const uint32_t v = loop[st[i].first];
            r->x[p0 + i] = r->x[v];
            r->y[p0 + i] = base;
            r->z[p0 + i] = r->z[v];
            cx += r->x[v];
            cz += r->z[v];
        }
        r->x[c] = (float)(cx / nst);
        r->y[c] = base;
        r->z[c] = (float)(cz / nst);
        r->nverts = c + 1;
        uint32_t *out = r->indices + r->nindices;
        uint64_t w = 0;
        for (uint32_t i = 0; i < nst; i++)
            w += column(r, loop, &st[i], &st[(i + 1) % nst], p0 + i, p0 + (i + 1) % nst, out + w);
        for (uint32_t i = 0; i < nst; i++) {
            const uint32_t a = c, b = p0 + (i + 1) % nst, d = p0 + i;
            double n[3];
            strata__tri_cross(r->x, r->y, r->z, a, b, d, n);
            if (!(n[1] < 0)) {
                s = STRATA_ERR_BAD_MESH; /* footprint not star-shaped from its centroid */
                break;
            }
            out[w++] = a;
            out[w++] = b;
            out[w++] = d;
        }
        if (s == STRATA_OK) {
            ntri = w / 3;
            r->nindices += w;
            if (merged)
                compact(r, remap);
            insert(r, w);
            if (r->terraces[0].roof_area > 0 || r->terraces[0].wall_area > 0) {
                const uint64_t f = r->terraces[0].wall_first + r->terraces[0].wall_count - w;
                for (uint64_t i = f; i < f + w; i += 3) {
                    double n[3];
                    strata__tri_cross(r->x, r->y, r->z, r->indices[i], r->indices[i + 1],
                                      r->indices[i + 2], n);
                    r->terraces[0].wall_area += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
                }
            }
        } else {
            r->nverts = p0;
        }
    }
    if (stats) {
        stats->base = base;
        stats->border_points = s == STRATA_OK ? nst : 0;
        stats->triangles_added = ntri;
        stats->vertices_merged = s == STRATA_OK ? merged : 0;
    }
    strata__free(al, flag);
    strata__free(al, remap);
    strata__free(al, e);
    strata__free(al, loop);
    strata__free(al, st);
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
