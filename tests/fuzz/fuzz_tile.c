/* strata_world_dir_read_tile: the record a tile file carries, in a glTF's
 * extras.strata or a PLY's "comment strata {...}" (--resume and `strata
 * tileset` read it to tell a whole tile from a torn or foreign one).  The
 * first byte chooses the directory's tile format (bit 0: PLY), the rest is
 * chunk 0's tile file of a planet of 80 chunks, the world of `strata planet
 * --level 2 --chunk-level 1` (its manifest below; the seeds are its tiles).  A
 * record read is that chunk's, of this world, with the file's size and a
 * finite box; anything else is STRATA_ERR_FORMAT (not a whole tile) or
 * STRATA_ERR_CONFLICT (another world's or chunk's), with no memory left
 * behind; the reader asks for at most the file's JSON (or the PLY header)
 * and a small multiple of it for the parse. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];
static char tile[2][160];
static strata_world_dir *dirs[2];

static void cleanup(void)
{
    char cmd[128];
    for (int f = 0; f < 2; f++)
        strata_world_dir_close(dirs[f]);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "fuzz_tile: could not remove %s\n", root);
}

/* The world's manifest, in both formats (written as the program writes
 * it; the tiles are checked against its fingerprint). */
static const char manifest[] =
    "{\"strataWorld\":1,\"fingerprint\":\"766ab32c1761f3f5\",\"kind\":\"planet\","
    "\"chunks\":80,\"leafDepth\":1,\"tilesX\":0,\"tileFormat\":\"%s\",\"parameters\":{}}\n";

/* The two directories, made once. */
static void setup(strata_ctx *ctx)
{
    snprintf(root, sizeof root, "/tmp/strata-fuzz-tile-XXXXXX");
    FUZZ_REQUIRE(mkdtemp(root) != NULL);
    atexit(cleanup);
    for (int f = 0; f < 2; f++) {
        char path[96], rel[64], sub[160];
        snprintf(path, sizeof path, "%s/%s", root, f ? "ply" : "glb");
        FUZZ_REQUIRE(mkdir(path, 0700) == 0);
        snprintf(sub, sizeof sub, "%s/world.json", path);
        FILE *m = fopen(sub, "w");
        FUZZ_REQUIRE(m != NULL);
        fprintf(m, manifest, f ? "ply" : "glb");
        FUZZ_REQUIRE(fclose(m) == 0);
        FUZZ_REQUIRE(strata_world_dir_open(ctx, path, &dirs[f]) == STRATA_OK);
        FUZZ_REQUIRE(strata_world_dir_tile_path(dirs[f], 0, rel, sizeof rel) == STRATA_OK);
        snprintf(tile[f], sizeof tile[f], "%s/%s", path, rel);
        /* tiles/1/: the directories the tile's name needs */
        snprintf(sub, sizeof sub, "%s/tiles", path);
        FUZZ_REQUIRE(mkdir(sub, 0700) == 0);
        snprintf(sub, sizeof sub, "%s/%s", path, rel);
        *strrchr(sub, '/') = '\0';
        FUZZ_REQUIRE(mkdir(sub, 0700) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    strata_ctx *ctx = fuzz_ctx();
    if (!dirs[0])
        setup(ctx);
    const int f = data[0] & 1;
    data++;
    size--;
    const int fd = open(tile[f], O_WRONLY | O_CREAT | O_TRUNC, 0600);
    FUZZ_REQUIRE(fd >= 0 && write(fd, data, size) == (ssize_t)size && close(fd) == 0);

    fuzz_mem_reset();
    strata_tile_record rec;
    memset(&rec, 0x55, sizeof rec);
    const strata_status st = strata_world_dir_read_tile(ctx, dirs[f], 0, &rec);
    FUZZ_REQUIRE(fuzz_mem_peak() <= 130 * (uint64_t)size + 65536);
    FUZZ_REQUIRE(fuzz_mem_live() == 0);
    if (st != STRATA_OK) {
        FUZZ_REQUIRE(st == STRATA_ERR_FORMAT || st == STRATA_ERR_CONFLICT);
        return 0;
    }
    FUZZ_REQUIRE(rec.id == 0 && rec.bytes == size);
    for (int i = 0; i < 12; i++)
        FUZZ_REQUIRE(isfinite(rec.box[i]));
    return 0;
}
