/* The context ring of a chunk (core/mesh/lattice.h), shared by planet and
 * terrain lattices: ring triangles arrive as corner positions and are
 * attached to the chunk mesh by the bits of those positions, so a ring
 * corner on the chunk's border becomes that border vertex and one outside
 * becomes a context vertex, each made once. */
#include "base/alloc.h"
#include "mesh/mesh.h"
#include "mesh/lattice.h"

#include <string.h>

void strata__ring_scratch_free(strata_ring_scratch *s)
{
    if (!s || !s->al)
        return;
    strata__free(s->al, s->tri);
    strata__free(s->al, s->vslot);
    strata__free(s->al, s->ekey);
    strata__free(s->al, s->eval);
    memset(s, 0, sizeof *s);
}

static uint32_t table_size(uint32_t entries)
{
    uint32_t size = 64;
    while (size < 2 * (uint64_t)entries) /* at most half full */
        size *= 2;
    return size;
}

strata_status strata__ring_reserve(strata_ring_scratch *s, const strata_allocator *al,
                                   uint32_t nverts, uint32_t nedges)
{
    const uint32_t vsize = table_size(nverts), esize = table_size(nedges);
    if (s->vslot && s->vmask + 1 >= vsize && s->emask + 1 >= esize)
        return STRATA_OK;
    if (s->al) { /* the scratch's owner's allocator, once set, stays */
        strata__free(s->al, s->vslot);
        strata__free(s->al, s->ekey);
        strata__free(s->al, s->eval);
        al = s->al;
    }
    s->al = al;
    s->vslot = strata__alloc_array(al, vsize, sizeof(uint32_t));
    s->ekey = strata__alloc_array(al, esize, sizeof(uint64_t));
    s->eval = strata__alloc_array(al, esize, sizeof(uint32_t));
    s->vmask = s->emask = 0;
    if (!s->vslot || !s->ekey || !s->eval) {
        strata__free(al, s->vslot);
        strata__free(al, s->ekey);
        strata__free(al, s->eval);
        s->vslot = NULL;
        s->ekey = NULL;
        s->eval = NULL;
        return STRATA_ERR_NOMEM;
    }
    s->vmask = vsize - 1;
    s->emask = esize - 1;
    return STRATA_OK;
}

strata_status strata__ring_push(strata_ring_scratch *s, const float p[9])
{
    if (s->ntri == s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 1024;
        float *n = strata__alloc_array(s->al, cap, 9 * sizeof(float));
        if (!n)
            return STRATA_ERR_NOMEM;
        if (s->ntri)
            memcpy(n, s->tri, s->ntri * 9 * sizeof(float));
        strata__free(s->al, s->tri);
        s->tri = n;
        s->cap = cap;
    }
    memcpy(s->tri + 9 * s->ntri++, p, 9 * sizeof(float));
    return STRATA_OK;
}

void strata__ring_clear(strata_ring_scratch *s)
{
    memset(s->vslot, 0xFF, ((size_t)s->vmask + 1) * sizeof(uint32_t));
    memset(s->ekey, 0xFF, ((size_t)s->emask + 1) * sizeof(uint64_t));
}

static inline uint32_t hash_pos(float x, float y, float z)
{
    uint32_t a, b, c;
    memcpy(&a, &x, 4);
    memcpy(&b, &y, 4);
    memcpy(&c, &z, 4);
    uint64_t h = a * 0x9E3779B97F4A7C15ull ^ b * 0xC2B2AE3D27D4EB4Full ^ c * 0x165667B19E3779F9ull;
    h ^= h >> 31;
    h *= 0xD6E8FEB86659FD93ull;
    return (uint32_t)(h >> 32);
}

static inline int same_bits(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static inline uint64_t hash_pair(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xFF51AFD7ED558CCDull;
    k ^= k >> 33;
    return k;
}

void strata__ring_border_vertex(strata_ring_scratch *s, const strata_mesh *m, uint32_t v)
{
    for (uint32_t h = hash_pos(m->x[v], m->y[v], m->z[v]) & s->vmask;; h = (h + 1) & s->vmask) {
        if (s->vslot[h] == v)
            return;
        if (s->vslot[h] == UINT32_MAX) {
            s->vslot[h] = v;
            return;
        }
    }
}

void strata__ring_border_edge(strata_ring_scratch *s, uint32_t p, uint32_t q, uint32_t id)
{
    const uint32_t lo = p < q ? p : q, hi = p < q ? q : p;
    const uint64_t key = (uint64_t)lo << 32 | hi;
    for (uint64_t h = hash_pair(key) & s->emask;; h = (h + 1) & s->emask) {
        if (s->ekey[h] == key)
            return;
        if (s->ekey[h] == UINT64_MAX) {
            s->ekey[h] = key;
            s->eval[h] = id;
            return;
        }
    }
}

/* The vertex of m at (x, y, z), added (as a context vertex) when new. */
static uint32_t vertex_at(strata_ring_scratch *s, strata_mesh *m, float x, float y, float z)
{
    for (uint32_t h = hash_pos(x, y, z) & s->vmask;; h = (h + 1) & s->vmask) {
        const uint32_t v = s->vslot[h];
        if (v == UINT32_MAX) {
            const uint32_t id = m->nverts++;
            m->x[id] = x;
            m->y[id] = y;
            m->z[id] = z;
            s->vslot[h] = id;
            return id;
        }
        if (same_bits(m->x[v], x) && same_bits(m->y[v], y) && same_bits(m->z[v], z))
            return v;
    }
}

/* The edge of m joining p and q, added (as a context edge) when new;
 * UINT32_MAX for two own vertices that no border edge joins. */
static uint32_t edge_at(strata_ring_scratch *s, strata_mesh *m, uint32_t own_verts, uint32_t p,
                        uint32_t q)
{
    const uint32_t lo = p < q ? p : q, hi = p < q ? q : p;
    const uint64_t key = (uint64_t)lo << 32 | hi;
    for (uint64_t h = hash_pair(key) & s->emask;; h = (h + 1) & s->emask) {
        if (s->ekey[h] == key)
            return s->eval[h];
        if (s->ekey[h] == UINT64_MAX) {
            if (hi < own_verts)
                return UINT32_MAX;
            const uint32_t id = m->nedges++;
            m->ev0[id] = lo;
            m->ev1[id] = hi;
            s->ekey[h] = key;
            s->eval[h] = id;
            return id;
        }
    }
}

strata_status strata__ring_attach(strata_ring_scratch *s, strata_mesh *m, uint32_t own_verts)
{
    for (size_t r = 0; r < s->ntri; r++) {
        const float *p = s->tri + 9 * r;
        uint32_t v[3], e[3];
        for (int k = 0; k < 3; k++)
            v[k] = vertex_at(s, m, p[3 * k], p[3 * k + 1], p[3 * k + 2]);
        for (int k = 0; k < 3; k++)
            if ((e[k] = edge_at(s, m, own_verts, v[k], v[(k + 1) % 3])) == UINT32_MAX)
                return STRATA_ERR_BAD_MESH; /* a ring side across the chunk: a bug */
        const uint32_t t = m->ntris++;
        m->a[t] = v[0];
        m->b[t] = v[1];
        m->c[t] = v[2];
        m->e0[t] = e[0];
        m->e1[t] = e[1];
        m->e2[t] = e[2];
    }
    return STRATA_OK;
}
