/* strata_world_dir_open: the manifest DIR/world.json a world directory
 * starts with (the input is written there, in a directory of its own).  An
 * accepted manifest describes a world the library can make: its chunk
 * count is that of its kind and layout (a planet's 20 4^C with C <= 12, a
 * terrain's tiles across times tiles down, covered by its quadtree of
 * leafDepth levels and no deeper; with "lod", plus one tile per inner node
 * of that tree), so `strata tileset` and `--resume` never
 * walk chunks the manifest merely claims; every tile path fits; a tileset
 * of no tiles can be written from it (glb tiles; PLY tiles get none,
 * STRATA_ERR_UNSUPPORTED) and is JSON the reader takes back, leaving
 * nothing else in the directory.  A refusal is STRATA_ERR_FORMAT
 * with no directory and no memory left behind; the reader asks for at most
 * a small multiple of the manifest's size. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz.h"

#include "base/alloc.h"
#include "base/ctx.h"
#include "base/json.h"
#include "base/readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64], manifest[96], tileset[96];

static void put_file(const char *path, const uint8_t *data, size_t size)
{
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    FUZZ_REQUIRE(fd >= 0);
    FUZZ_REQUIRE(write(fd, data, size) == (ssize_t)size);
    FUZZ_REQUIRE(close(fd) == 0);
}

static void remove_dir(void)
{
    unlink(manifest);
    unlink(tileset);
    rmdir(dir);
}

/* The depth of the quadtree over a terrain of tx x tz tiles. */
static uint32_t depth_of(uint64_t tx, uint64_t tz)
{
    const uint64_t most = tx > tz ? tx : tz;
    uint32_t d = 0;
    while (((uint64_t)1 << d) < most)
        d++;
    return d;
}

static void check_world(strata_ctx *ctx, strata_world_dir *d, const uint8_t *data, size_t size)
{
    /* What the manifest says, read again by the JSON reader. */
    strata_json_doc *doc;
    FUZZ_REQUIRE(strata__json_parse(&ctx->alloc, (const char *)data, size, &doc) == STRATA_OK);
    const strata_json_ref root = strata__json_root(doc);
    uint64_t depth, tiles_x;
    const char *kind;
    size_t len;
    FUZZ_REQUIRE(strata__json_u64(doc, strata__json_get(doc, root, "leafDepth"), &depth));
    FUZZ_REQUIRE(strata__json_u64(doc, strata__json_get(doc, root, "tilesX"), &tiles_x));
    FUZZ_REQUIRE(strata__json_string(doc, strata__json_get(doc, root, "kind"), &kind, &len));
    const int planet = !strcmp(kind, "planet");
    const char *format;
    FUZZ_REQUIRE(strata__json_string(doc, strata__json_get(doc, root, "tileFormat"), &format,
                                     &len));
    const int ply = !strcmp(format, "ply"); /* no tileset: no 3D Tiles client loads PLY */
    const strata_json_ref lod = strata__json_get(doc, root, "lod");
    const uint64_t n = strata_world_dir_chunk_count(d);
    uint64_t leaves = n;
    if (lod != STRATA_JSON_NIL)
        FUZZ_REQUIRE(strata__json_u64(doc, strata__json_get(doc, lod, "leaves"), &leaves));
    strata__json_free(doc);

    uint64_t inner = 0; /* with lod, the nodes above the leaves */
    if (planet) {
        FUZZ_REQUIRE(depth <= 12 && leaves == (uint64_t)20 << (2 * depth));
        for (uint64_t k = 0; lod != STRATA_JSON_NIL && k < depth; k++)
            inner += (uint64_t)20 << (2 * k);
    } else {
        FUZZ_REQUIRE(tiles_x >= 1 && leaves >= 1 && leaves % tiles_x == 0);
        FUZZ_REQUIRE(leaves / tiles_x <= UINT32_MAX &&
                     depth == depth_of(tiles_x, leaves / tiles_x));
        for (uint64_t k = 0; lod != STRATA_JSON_NIL && k < depth; k++) {
            const uint64_t up = depth - k;
            inner += ((tiles_x + (1ull << up) - 1) >> up) *
                     ((leaves / tiles_x + (1ull << up) - 1) >> up);
        }
    }
    FUZZ_REQUIRE(n == leaves + inner);
    char rel[128];
    FUZZ_REQUIRE(strata_world_dir_tile_path(d, 0, rel, sizeof rel) == STRATA_OK);
    FUZZ_REQUIRE(strata_world_dir_tile_path(d, n - 1, rel, sizeof rel) == STRATA_OK);
    FUZZ_REQUIRE(strata_world_dir_tile_path(d, n, rel, sizeof rel) == STRATA_ERR_INVALID_ARG);
    strata_tile_record rec;
    errno = 0;
    FUZZ_REQUIRE(strata_world_dir_read_tile(ctx, d, 0, &rec) == STRATA_ERR_IO && errno == ENOENT);

    if (ply) {
        FUZZ_REQUIRE(strata_world_dir_write_tileset(ctx, d, NULL, 0) == STRATA_ERR_UNSUPPORTED);
        FUZZ_REQUIRE(access(tileset, F_OK) != 0);
        return;
    }
    FUZZ_REQUIRE(strata_world_dir_write_tileset(ctx, d, NULL, 0) == STRATA_OK);
    uint8_t *text;
    size_t tlen;
    FUZZ_REQUIRE(strata__read_file(&ctx->alloc, tileset, 1u << 24, &text, &tlen) == STRATA_OK);
    FUZZ_REQUIRE(strata__json_parse(&ctx->alloc, (const char *)text, tlen, &doc) == STRATA_OK);
    strata__json_free(doc);
    strata__free(&ctx->alloc, text);
    FUZZ_REQUIRE(unlink(tileset) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/strata-fuzz-world-XXXXXX");
        FUZZ_REQUIRE(mkdtemp(dir) != NULL);
        snprintf(manifest, sizeof manifest, "%s/world.json", dir);
        snprintf(tileset, sizeof tileset, "%s/tileset.json", dir);
        atexit(remove_dir);
    }
    put_file(manifest, data, size);
    strata_ctx *ctx = fuzz_ctx();
    fuzz_mem_reset();
    strata_world_dir *d = (strata_world_dir *)&d; /* must be cleared */
    const strata_status st = strata_world_dir_open(ctx, dir, &d);
    FUZZ_REQUIRE(fuzz_mem_peak() <= 128 * (uint64_t)size + 65536);
    if (st != STRATA_OK) {
        FUZZ_REQUIRE(st == STRATA_ERR_FORMAT && d == NULL && fuzz_mem_live() == 0);
        return 0;
    }
    check_world(ctx, d, data, size);
    strata_world_dir_close(d);
    FUZZ_REQUIRE(fuzz_mem_live() == 0);
    /* nothing but the manifest: no temporary, no tilesets/ */
    FUZZ_REQUIRE(rmdir(dir) != 0 && errno == ENOTEMPTY);
    FUZZ_REQUIRE(unlink(manifest) == 0 && rmdir(dir) == 0 && mkdir(dir, 0700) == 0);
    return 0;
}
