/* strata_colours_parse: colour rules, one a line.  A failure names a
 * line within the text (a field within the line) and leaves no rules;
 * parsed rules colour a small terraced terrain so that every triangle's
 * corners share one colour (hard edges), with no triangle moved. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

/* A 12 x 12 grid with heights from a fixed pattern, sliced at three
 * planes: roofs, walls, three terraces. */
static strata_result *terrain(strata_ctx *ctx)
{
    strata_mesh *m;
    FUZZ_REQUIRE(strata_shape_grid(ctx, 12, 12, 1.0f, &m) == STRATA_OK);
    strata_fbm f;
    strata_fbm_defaults(&f);
    f.amplitude = 3.0f;
    f.frequency = 0.2f;
    FUZZ_REQUIRE(strata_displace_flat(ctx, m, &f, NULL) == STRATA_OK);
    static const float L[3] = {-1, 0, 1};
    strata_slice_options so;
    strata_slice_defaults(&so);
    so.levels = L;
    so.nlevels = 3;
    strata_result *r;
    FUZZ_REQUIRE(strata_slice(ctx, m, &so, &r) == STRATA_OK);
    strata_mesh_destroy(m);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    strata_colours *c = (strata_colours *)&c;
    strata_colours_error err;
    const strata_status st = strata_colours_parse((const char *)data, size, &c, &err);
    if (st != STRATA_OK) {
        FUZZ_REQUIRE(c == NULL);
        FUZZ_REQUIRE(st == STRATA_ERR_FORMAT || st == STRATA_ERR_TOO_LARGE);
        uint32_t lines = 0;
        for (size_t i = 0; i < size; i++)
            lines += data[i] == '\n';
        FUZZ_REQUIRE(err.line <= lines + 1);
        FUZZ_REQUIRE(err.what[0] != '\0' && memchr(err.what, '\0', sizeof err.what));
        return 0;
    }
    strata_ctx *ctx = fuzz_ctx();
    strata_result *r = terrain(ctx);
    strata_result_view v;
    strata_result_get_view(r, &v);
    const uint32_t nv0 = v.nverts;
    const uint64_t ni = v.nindices;
    float *pos = malloc(sizeof(float) * 3 * ni);
    for (uint64_t i = 0; i < ni; i++) {
        pos[3 * i] = v.x[v.indices[i]];
        pos[3 * i + 1] = v.y[v.indices[i]];
        pos[3 * i + 2] = v.z[v.indices[i]];
    }
    const float sea = 0.25f;
    FUZZ_REQUIRE(strata_result_apply_colours(ctx, r, c, NULL, size & 1 ? &sea : NULL) ==
                 STRATA_OK);
    strata_result_get_view(r, &v);
    FUZZ_REQUIRE(v.rgb != NULL && v.nindices == ni && v.nverts >= nv0 && v.nverts <= nv0 + ni);
    for (uint64_t i = 0; i < ni; i++) {
        FUZZ_REQUIRE(v.x[v.indices[i]] == pos[3 * i] && v.y[v.indices[i]] == pos[3 * i + 1] &&
                     v.z[v.indices[i]] == pos[3 * i + 2]);
        FUZZ_REQUIRE(!memcmp(v.rgb + 3 * (size_t)v.indices[i],
                             v.rgb + 3 * (size_t)v.indices[i - i % 3], 3));
    }
    free(pos);
    strata_result_destroy(r);
    strata_colours_destroy(c);
    return 0;
}
