/* strata_mesh_decode: PLY (ASCII, binary either endian) and OBJ.  The
 * first byte chooses the import options, the rest is the file:
 *   bit 0 weld, bit 1 radial, bit 2 keep_winding, bits 3-4 the up axis
 *   (flat; 3 is y too), bit 5 radial: a given centre, bit 6 radial: a
 *   given radius, bit 7 slice the mesh into three terraces.
 * A decoded mesh has triangles of three distinct in-range vertices and
 * finite coordinates; a failure leaves no mesh, no report and no memory
 * behind; the memory asked for stays within what the input can describe
 * (a triangle takes at least a byte of binary PLY, a vertex three; each
 * costs the builder and the mesh's tables a bounded number of bytes). */
#include "fuzz.h"

#include <math.h>
#include <string.h>

/* Memory the decoder may ask for: per input byte (see above; a triangle
 * is about 100 bytes in the builder, its growth and the mesh's vertex,
 * triangle and edge tables), and at most (the PLY header's tables, the
 * parallel readers' layouts and chunks). */
#define BYTES_PER_INPUT_BYTE 256
#define BYTES_AT_MOST ((uint64_t)1 << 20)

static void slice_three(strata_ctx *ctx, const strata_mesh *m)
{
    float levels[3];
    if (strata_levels_uniform(m, 3, NULL, levels) != STRATA_OK)
        return;
    strata_slice_options opt;
    strata_slice_defaults(&opt);
    opt.levels = levels;
    opt.nlevels = 3;
    strata_result *r = (strata_result *)&r;
    if (strata_slice(ctx, m, &opt, &r) != STRATA_OK) {
        FUZZ_REQUIRE(r == NULL);
        return;
    }
    strata_result_view v;
    strata_result_get_view(r, &v);
    FUZZ_REQUIRE(v.nindices % 3 == 0 && v.nterraces == 3);
    for (uint64_t i = 0; i < v.nindices; i++)
        FUZZ_REQUIRE(v.indices[i] < v.nverts);
    /* The terraces' ranges (in indices) tile the index array in order. */
    uint64_t next = 0;
    for (uint32_t k = 0; k < v.nterraces; k++) {
        const strata_terrace *t = &v.terraces[k];
        FUZZ_REQUIRE(t->roof_first == next && t->wall_first == next + t->roof_count);
        next += t->roof_count + t->wall_count;
    }
    FUZZ_REQUIRE(next == v.nindices);
    strata_result_destroy(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const uint8_t flags = data[0];
    data++;
    size--;
    strata_import_options opt;
    strata_import_defaults(&opt);
    opt.weld = flags & 1;
    opt.radial = (flags >> 1) & 1;
    opt.keep_winding = (flags >> 2) & 1;
    opt.up = (flags >> 3 & 3) == 1 ? STRATA_AXIS_Z : (flags >> 3 & 3) == 2 ? STRATA_AXIS_X
                                                                            : STRATA_AXIS_Y;
    if (flags & 32) {
        opt.has_center = 1;
        opt.center[0] = 0.5f;
        opt.center[1] = -1.0f;
        opt.center[2] = 2.0f;
    }
    if (flags & 64)
        opt.radius = 2.0f;
    strata_import_report rep; /* left alone on failure */
    rep.format = (strata_import_format)7;
    rep.dropped = rep.welded = 7;
    rep.flipped = 7;

    strata_ctx *ctx = fuzz_ctx();
    fuzz_mem_reset();
    strata_mesh *m = (strata_mesh *)&m; /* must be cleared */
    const strata_status st = strata_mesh_decode(ctx, data, size, &opt, &rep, &m);
    FUZZ_REQUIRE(fuzz_mem_peak() <= (uint64_t)BYTES_PER_INPUT_BYTE * size + BYTES_AT_MOST);
    if (st != STRATA_OK) {
        FUZZ_REQUIRE(m == NULL);
        FUZZ_REQUIRE(rep.format == 7 && rep.dropped == 7 && rep.welded == 7 && rep.flipped == 7);
        FUZZ_REQUIRE(fuzz_mem_live() == 0);
        return 0;
    }
    strata_mesh_view v;
    strata_mesh_get_view(m, &v);
    FUZZ_REQUIRE(v.nverts >= 3 && v.ntris >= 1);
    FUZZ_REQUIRE(v.geometry == (opt.radial ? STRATA_RADIAL : STRATA_FLAT));
    for (uint32_t i = 0; i < v.nverts; i++)
        FUZZ_REQUIRE(isfinite(v.x[i]) && isfinite(v.y[i]) && isfinite(v.z[i]));
    for (uint32_t t = 0; t < v.ntris; t++) {
        FUZZ_REQUIRE(v.a[t] < v.nverts && v.b[t] < v.nverts && v.c[t] < v.nverts);
        FUZZ_REQUIRE(v.a[t] != v.b[t] && v.b[t] != v.c[t] && v.a[t] != v.c[t]);
    }
    const bool ply = (size >= 4 && !memcmp(data, "ply\n", 4)) ||
                     (size >= 5 && !memcmp(data, "ply\r\n", 5));
    FUZZ_REQUIRE(ply ? rep.format != STRATA_IMPORT_OBJ && rep.format <= STRATA_IMPORT_PLY_BE
                     : rep.format == STRATA_IMPORT_OBJ);
    FUZZ_REQUIRE((rep.welded == 0 || opt.weld) && (rep.flipped == 0 || rep.flipped == 1));
    FUZZ_REQUIRE(rep.flipped == 0 || !opt.keep_winding);
    if (flags & 128)
        slice_three(ctx, m);
    strata_mesh_destroy(m);
    FUZZ_REQUIRE(fuzz_mem_live() == 0);
    return 0;
}
