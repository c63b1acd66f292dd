/* Chunks packed for the sculpt editor: see pack.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "pack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void pack_put(pack_buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q) {
            fputs("strata: out of memory\n", stderr);
            exit(1);
        }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void put_u32(pack_buf *b, uint32_t v)
{
    pack_put(b, &v, 4);
}

static void put_vec3(pack_buf *b, const float *x, const float *y, const float *z, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const float v[3] = {x[i], y[i], z[i]};
        pack_put(b, v, sizeof v);
    }
}

static void put_range(pack_buf *b, uint64_t first, uint64_t count, int32_t terrace,
                      uint32_t wall)
{
    put_u32(b, (uint32_t)first);
    put_u32(b, (uint32_t)count);
    pack_put(b, &terrace, 4);
    put_u32(b, wall);
}

void pack_begin(pack_buf *b, uint64_t n)
{
    pack_put(b, "STRATAPK", 8);
    put_u32(b, 1);
    put_u32(b, (uint32_t)n);
}

strata_status pack_chunk(strata_ctx *ctx, const strata_world *w, strata_result *r, uint64_t id,
                         pack_buf *b)
{
    const strata_status st = strata_world_make_chunk(ctx, w, id, r);
    if (st != STRATA_OK)
        return st;
    strata_result_view v;
    strata_result_get_view(r, &v);
    const uint32_t nranges = 2 * v.nterraces + (v.water_count > 0);
    pack_put(b, &id, 8);
    put_u32(b, v.nverts);
    put_u32(b, (uint32_t)v.nindices);
    put_u32(b, nranges);
    put_u32(b, v.nx != NULL);
    put_vec3(b, v.x, v.y, v.z, v.nverts);
    if (v.nx)
        put_vec3(b, v.nx, v.ny, v.nz, v.nverts);
    pack_put(b, v.indices, 4 * v.nindices);
    for (uint32_t k = 0; k < v.nterraces; k++) {
        const strata_terrace *t = &v.terraces[k];
        put_range(b, t->roof_first, t->roof_count, (int32_t)k, 0);
        put_range(b, t->wall_first, t->wall_count, (int32_t)k, 1);
    }
    if (v.water_count)
        put_range(b, v.water_first, v.water_count, -2, 0);
    return STRATA_OK;
}
