/* Texture coordinates of a terrain's roofs and walls (strata_result_add_uv).
 *
 * Roofs: U = x / texel, V = z / texel.  Walls: each wall quad gets four
 * vertices of its own (so roof and wall coordinates never blend), U the
 * distance along its wall's top polyline over texel, V the height below
 * the top over texel.  The quads are linked into polylines by the bits
 * of their top corners' positions (an end of one quad is the start of
 * the next), so the links do not depend on vertex numbering or normals.
 * An open polyline's U starts at 0 at its first quad; a closed one
 * starts at its quad whose first top corner is least by (x, z, y) and is
 * scaled by N / length (N the whole number of texels nearest its length,
 * at least 1) so that it closes on a whole number of repeats. */
#include "base/alloc.h"
#include "base/ctx.h"
#include "mesh/result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef struct quad_end {
    uint32_t bits[3];
    uint32_t quad;
    uint32_t end; /* 0: the quad's first top corner (ci_top), 1: its last */
} quad_end;

static int cmp_end(const void *pa, const void *pb)
{
    const quad_end *a = pa, *b = pb;
    const int c = memcmp(a->bits, b->bits, sizeof a->bits);
    if (c)
        return c;
    if (a->end != b->end)
        return a->end < b->end ? -1 : 1;
    return (a->quad > b->quad) - (a->quad < b->quad);
}

/* The wall quads of r in index order: the index of their first index. */
static strata_status list_quads(const strata_result *r, uint64_t **out, uint32_t *nq)
{
    uint64_t n = 0;
    for (uint32_t k = 0; k < r->nterraces; k++) {
        if (r->terraces[k].wall_count % 6)
            return STRATA_ERR_INVALID_ARG;
        n += r->terraces[k].wall_count / 6;
    }
    if (n > (UINT32_MAX - r->nverts) / 4)
        return STRATA_ERR_OVERFLOW;
    uint64_t *q = strata__alloc_array(&r->alloc, n ? n : 1, sizeof *q);
    if (!q)
        return STRATA_ERR_NOMEM;
    uint64_t i = 0;
    for (uint32_t k = 0; k < r->nterraces; k++)
        for (uint64_t w = 0; w < r->terraces[k].wall_count; w += 6) {
            const uint32_t *ix = r->indices + r->terraces[k].wall_first + w;
            if (ix[3] != ix[0] || ix[4] != ix[2]) { /* not a slicer's quad */
                strata__free(&r->alloc, q);
                return STRATA_ERR_INVALID_ARG;
            }
            q[i++] = r->terraces[k].wall_first + w;
        }
    *out = q;
    *nq = (uint32_t)n;
    return STRATA_OK;
}

static void point_bits(const strata_result *r, uint32_t v, uint32_t b[3])
{
    memcpy(&b[0], &r->x[v], 4);
    memcpy(&b[1], &r->y[v], 4);
    memcpy(&b[2], &r->z[v], 4);
}

/* next[q]: the quad whose first top corner is q's last one (NONE: q ends
 * a polyline).  Several quads at one point pair in quad order. */
static strata_status link_quads(const strata_result *r, const uint64_t *quads, uint32_t nq,
                                uint32_t *next, uint32_t *prev)
{
    quad_end *e = strata__alloc_array(&r->alloc, 2 * (size_t)nq + 1, sizeof *e);
    if (!e)
        return STRATA_ERR_NOMEM;
    for (uint32_t q = 0; q < nq; q++) {
        const uint32_t *ix = r->indices + quads[q];
        point_bits(r, ix[2], e[2 * q].bits);
        e[2 * q].quad = q;
        e[2 * q].end = 0;
        point_bits(r, ix[5], e[2 * q + 1].bits);
        e[2 * q + 1].quad = q;
        e[2 * q + 1].end = 1;
        next[q] = prev[q] = NONE;
    }
    qsort(e, 2 * (size_t)nq, sizeof *e, cmp_end);
    for (size_t i = 0; i < 2 * (size_t)nq;) {
        size_t j = i, s;
        while (j < 2 * (size_t)nq && !memcmp(e[j].bits, e[i].bits, sizeof e[i].bits))
            j++;
        for (s = i; s < j && e[s].end == 0; s++)
            ;
        /* starts [i, s), ends [s, j) */
        for (size_t a = 0; a < s - i && s + a < j; a++) {
            next[e[s + a].quad] = e[i + a].quad;
            prev[e[i + a].quad] = e[s + a].quad;
        }
        i = j;
    }
    strata__free(&r->alloc, e);
    return STRATA_OK;
}

static double top_step(const strata_result *r, const uint64_t *quads, uint32_t q)
{
    const uint32_t *ix = r->indices + quads[q];
    const double d[3] = {(double)r->x[ix[5]] - r->x[ix[2]], (double)r->y[ix[5]] - r->y[ix[2]],
                         (double)r->z[ix[5]] - r->z[ix[2]]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* a's first top corner is less than b's by (x, z, y). */
static int corner_less(const strata_result *r, const uint64_t *quads, uint32_t a, uint32_t b)
{
    const uint32_t va = r->indices[quads[a] + 2], vb = r->indices[quads[b] + 2];
    if (r->x[va] != r->x[vb])
        return r->x[va] < r->x[vb];
    if (r->z[va] != r->z[vb])
        return r->z[va] < r->z[vb];
    return r->y[va] < r->y[vb];
}

/* U at the start and end of each quad (u0, u1) along its polyline. */
static void walk(const strata_result *r, const uint64_t *quads, uint32_t nq, const uint32_t *next,
                 const uint32_t *prev, uint8_t *seen, double texel, double *u0, double *u1)
{
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t q0 = 0; q0 < nq; q0++) {
            if (seen[q0] || (pass == 0 && prev[q0] != NONE))
                continue;
            uint32_t start = q0;
            double len = 0.0, scale = 1.0 / texel;
            if (pass == 1) { /* a closed loop: its least corner, its length */
                for (uint32_t q = next[q0]; q != q0 && q != NONE; q = next[q])
                    if (corner_less(r, quads, q, start))
                        start = q;
                uint32_t q = start;
                do {
                    len += top_step(r, quads, q);
                    q = next[q];
                } while (q != start && q != NONE);
                const double n = fmax(1.0, nearbyint(len / texel));
                scale = len > 0 ? n / len : 0.0;
            }
            double along = 0.0;
            for (uint32_t q = start; q != NONE && !seen[q]; q = next[q]) {
                seen[q] = 1;
                u0[q] = along * scale;
                along += top_step(r, quads, q);
                u1[q] = along * scale;
            }
        }
}

/* Four vertices of its own per wall quad (from nv0 on), with U, V. */
static void split_walls(strata_result *r, const uint64_t *quads, uint32_t nq, uint32_t nv0,
                        const double *u0, const double *u1, double texel)
{
    for (uint32_t q = 0; q < nq; q++) {
        uint32_t *ix = r->indices + quads[q];
        /* (cj_bot, ci_bot, ci_top), (cj_bot, ci_top, cj_top) */
        const uint32_t src[4] = {ix[0], ix[1], ix[2], ix[5]};
        const uint32_t top[4] = {ix[5], ix[2], ix[2], ix[5]};
        const double u[4] = {u1[q], u0[q], u0[q], u1[q]};
        const uint32_t base = nv0 + 4 * q;
        for (int c = 0; c < 4; c++) {
            const uint32_t v = base + (uint32_t)c;
            r->x[v] = r->x[src[c]];
            r->y[v] = r->y[src[c]];
            r->z[v] = r->z[src[c]];
            if (r->nx) {
                r->nx[v] = r->nx[src[c]];
                r->ny[v] = r->ny[src[c]];
                r->nz[v] = r->nz[src[c]];
            }
            r->uv[2 * (size_t)v] = (float)u[c];
            r->uv[2 * (size_t)v + 1] =
                (float)(((double)r->y[top[c]] - (double)r->y[src[c]]) / texel);
        }
        const uint32_t nix[6] = {base, base + 1, base + 2, base, base + 2, base + 3};
        memcpy(ix, nix, sizeof nix);
    }
}

strata_status strata_result_add_uv(strata_ctx *ctx, strata_result *r, float texel)
{
    if (!ctx || !r || !(texel > 0) || !isfinite(texel) || r->nuv || r->water_count ||
        r->shore_count || r->skirt_count)
        return STRATA_ERR_INVALID_ARG;
    if (r->geometry != STRATA_FLAT)
        return STRATA_ERR_UNSUPPORTED;
    uint64_t *quads = NULL;
    uint32_t nq = 0;
    strata_status st = list_quads(r, &quads, &nq);
    if (st != STRATA_OK)
        return st;
    const uint32_t nv0 = r->nverts, nv = nv0 + 4 * nq;
    const size_t m = nq ? nq : 1;
    uint32_t *next = strata__alloc_array(&r->alloc, m, sizeof *next);
    uint32_t *prev = strata__alloc_array(&r->alloc, m, sizeof *prev);
    uint8_t *seen = strata__alloc_array(&r->alloc, m, 1);
    double *u0 = strata__alloc_array(&r->alloc, m, sizeof *u0);
    double *u1 = strata__alloc_array(&r->alloc, m, sizeof *u1);
    float *uv = strata__alloc_array(&r->alloc, 2 * (size_t)(nv ? nv : 1), sizeof *uv);
    st = next && prev && seen && u0 && u1 && uv ? STRATA_OK : STRATA_ERR_NOMEM;
    if (st == STRATA_OK)
        st = strata__result_grow(r, nv, r->nindices);
    if (st == STRATA_OK)
        st = link_quads(r, quads, nq, next, prev);
    if (st == STRATA_OK && strata__cancelled(ctx))
        st = STRATA_ERR_CANCELLED;
    if (st == STRATA_OK) {
        memset(seen, 0, m);
        walk(r, quads, nq, next, prev, seen, texel, u0, u1);
        strata__free(&r->alloc, r->uv);
        r->uv = uv;
        uv = NULL;
        r->uv_first = 0;
        r->nuv = nv;
        for (uint32_t v = 0; v < nv0; v++) {
            r->uv[2 * (size_t)v] = (float)((double)r->x[v] / texel);
            r->uv[2 * (size_t)v + 1] = (float)((double)r->z[v] / texel);
        }
        r->nverts = nv;
        split_walls(r, quads, nq, nv0, u0, u1, texel);
    }
    void *tmp[] = {quads, next, prev, seen, u0, u1, uv};
    for (size_t i = 0; i < sizeof tmp / sizeof tmp[0]; i++)
        strata__free(&r->alloc, tmp[i]);
    return st;
}
