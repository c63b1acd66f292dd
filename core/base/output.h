/* Atomic output files shared by the writers (ply.c, obj.c + MTL, glb.c;
 * png.c for preview images).
 *
 * A file goes to a fresh temporary name beside its destination and is
 * renamed over it only once complete, so a failure (disk full, a bad
 * directory, ...) never leaves a partial file and never touches an existing
 * one.  Output is assembled in blocks and handed to write(2) or pwrite(2)
 * whole: per-number stdio calls would cap the writers far below disk
 * speed. */
#ifndef STRATA_OUTPUT_H
#define STRATA_OUTPUT_H

#include "base.h"

#include <stdint.h>
#include <string.h>

#define STRATA_OUT_BUF (1u << 20)

typedef struct strata_out {
    strata_ctx *ctx; /* allocator, threads, progress and cancel flag */
    const strata_allocator *al;
    char *tmp; /* temporary path, NULL when none was created */
    int fd;    /* -1 when closed */
    int hold;  /* a duplicate of fd holding the file's lock until the
                  rename or the removal, -1 when none */
    int slot;  /* in the process's table of live temporaries, -1: none */
    unsigned char *buf;
    size_t len;
    int err;       /* errno of the first failure, 0 while all is well */
    int cancelled; /* the context's cancel flag was seen: stop, discard */
    double reported; /* the last fraction strata__out_progress reported */
    int seal;        /* a world tile: strata__tile_seal it when finished */
} strata_out;

/* A closed output on ctx that strata__out_discard accepts (where used,
 * include ctx.h: it reads ctx->alloc). */
#define STRATA_OUT_INIT(c) {.ctx = (c), .al = &(c)->alloc, .fd = -1, .hold = -1, .slot = -1}

/* Create PATH.tmpXXXXXX exclusively (mode 0644 less the umask; the part
 * before ".tmp" cut so that the name fits 255 bytes), locked while o
 * lives; 0 or -1 with o->err set.  o needs no initialisation. */
STRATA_HIDDEN int strata__out_open(strata_out *o, const char *path, strata_ctx *ctx);

/* Neither an error nor a cancel so far: the writer may go on. */
static inline int strata__out_ok(const strata_out *o) { return !o->err && !o->cancelled; }

/* Progress of a write (stage "write"): done of total units are written.
 * Reports done / total when it is at least 1/64 above the last report
 * and below 1 (the writer reports 1 itself once the file is complete), so
 * the fractions rise.  Sets o->cancelled and returns non-zero when the
 * write must stop.  Calling thread only. */
STRATA_HIDDEN int strata__out_progress(strata_out *o, uint64_t done, uint64_t total);
/* Hand the buffered bytes to write(2). */
STRATA_HIDDEN void strata__out_flush(strata_out *o);
STRATA_HIDDEN void strata__out_bytes(strata_out *o, const void *p, size_t n);
STRATA_HIDDEN void strata__out_str(strata_out *o, const char *s);
/* Flush, seal (o->seal: a world tile's size and checksum written into
 * its record), fsync (unless the context's sync is off) and close; the
 * file stays under its temporary name, still locked. */
STRATA_HIDDEN void strata__out_finish(strata_out *o);
/* Move the finished temporary file onto path (only if all went well),
 * then fsync the directory (unless sync is off); in a group (below),
 * hand the file to the group instead. */
STRATA_HIDDEN void strata__out_commit(strata_out *o, const char *path);
/* Groups: the outputs of one run, renamed into place all together or
 * not at all (strata_pipeline_run).  While ctx has a group,
 * strata__out_commit hands each finished temporary file (still locked)
 * to it instead of renaming it.  strata__out_group_end with commit
 * renames them all (an existing destination backed up first, and put
 * back if a later rename fails: then no destination has changed) or,
 * without commit or when the cancel flag is set, removes them all;
 * either way the group is gone.  Its status: OK, CANCELLED, IO or NOMEM
 * (errno says why, *tag is the tag of the file that failed).  A second
 * signal whose handler calls strata_remove_temporaries during the
 * renames puts the destinations back too. */
typedef struct strata_out_group strata_out_group;
STRATA_HIDDEN strata_status strata__out_group_begin(strata_ctx *ctx);
/* The tag of the files added from now on (a pipeline stage). */
STRATA_HIDDEN void strata__out_group_tag(strata_ctx *ctx, int tag);
STRATA_HIDDEN strata_status strata__out_group_end(strata_ctx *ctx, int commit, int *tag);
/* A finished file written elsewhere (GDAL's, core/io/loops_ogr.c) for
 * the group to rename onto dest or remove: 0, or -1 with errno. */
STRATA_HIDDEN int strata__out_group_file(strata_ctx *ctx, const char *tmp, const char *dest);
/* A temporary directory the group removes at its end, once emptied: 0,
 * or -1 with errno. */
STRATA_HIDDEN int strata__out_group_dir(strata_ctx *ctx, const char *dir);

/* Fill the size and CRC-32C of the tile file path (written through fd,
 * flushed) into the placeholders of its record (core/world/world_dir.c): 0, or
 * an errno value. */
STRATA_HIDDEN int strata__tile_seal(strata_ctx *ctx, const char *path, int fd);
/* Remove the temporary file (if any is left) and free everything. */
STRATA_HIDDEN void strata__out_discard(strata_out *o);
/* Remove path if it is a regular file no live writer locks: 1 removed,
 * 0 kept or gone, -1 with errno on an error. */
STRATA_HIDDEN int strata__remove_if_stale(const char *path);
/* strata__remove_if_stale on every file of dir whose name match()es,
 * counting the removed ones in *count: 0, or -1 with errno (the directory
 * cannot be read, a file not removed). */
STRATA_HIDDEN int strata__remove_stale_in(const char *dir,
                                          int (*match)(const char *name, const void *arg),
                                          const void *arg, uint64_t *count);

/* ------------------------------------------------ fixed-layout files
 *
 * PLY and GLB are a short header followed by fixed-size records (vertices,
 * faces, indices), so the byte offset of every record is known before
 * anything is written.  Such a file is described as spans laid end to end;
 * strata__out_spans cuts the whole file into STRATA_OUT_BLOCK-byte blocks
 * at fixed offsets, and worker threads encode blocks into buffers of their
 * own and pwrite(2) each at its offset.  The bytes never depend on the
 * thread count, only which thread writes which block does.
 *
 * Buffered writes to one file hold its inode lock on Linux (ext4, xfs,
 * btrfs, tmpfs), so the copies into the page cache still take turns; what
 * runs in parallel is the encoding, overlapped with the other threads'
 * copies. */
typedef struct strata_span strata_span;
/* Encode records [i, i + n) of s into dst (n * s->rec bytes). */
typedef void (*strata_encode_fn)(const strata_span *s, uint64_t i, uint64_t n,
                                 unsigned char *dst);
/* The largest record: a PLY vertex with normals, texture coordinates
 * and colour (12 + 12 + 8 + 3 bytes). */
#define STRATA_SPAN_REC_MAX 35u
struct strata_span {
    strata_encode_fn encode;
    uint64_t n;         /* records */
    uint32_t rec;       /* bytes per record, 1..STRATA_SPAN_REC_MAX */
    uint32_t tag[2];    /* encoder constants */
    const void *src[8]; /* encoder arrays */
};

/* Block size of strata__out_spans: one pwrite(2) each, and the buffer a
 * thread encodes into, small enough to stay in its core's L2 cache until
 * the kernel copies it out. */
#define STRATA_OUT_BLOCK (256u << 10)

/* Write spans s[0..ns) as the whole file (o must be freshly opened and its
 * buffer empty) with the context's threads.  The first error (errno, or
 * ENOMEM for a thread's buffer) stops every thread and lands in o->err;
 * the cancel flag stops them too (o->cancelled).  Progress: the fraction
 * of blocks written, reported by thread 0 (the calling thread) through
 * strata__out_progress. */
STRATA_HIDDEN void strata__out_spans(strata_out *o, const strata_span *s, size_t ns);

/* Shared encoders: src[0] bytes as they are (rec 1); float triples from
 * the arrays src[0..2] (rec 12). */
STRATA_HIDDEN void strata__enc_bytes(const strata_span *s, uint64_t i, uint64_t n,
                                     unsigned char *dst);
STRATA_HIDDEN void strata__enc_vec3(const strata_span *s, uint64_t i, uint64_t n,
                                    unsigned char *dst);

/* The status of a finished write: CANCELLED, NOMEM, IO (o->err says
 * why) or OK. */
STRATA_HIDDEN strata_status strata__out_status(const strata_out *o);

/* Room for at least n more bytes (n <= STRATA_OUT_BUF): the write
 * position.  The caller adds what it wrote to o->len. */
static inline unsigned char *strata__out_room(strata_out *o, size_t n)
{
    if (STRATA_OUT_BUF - o->len < n)
        strata__out_flush(o);
    return o->buf + o->len;
}

/* Little-endian stores.  On little-endian hosts a memcpy of the value:
 * one move.  The byte-by-byte form is right on any host, but compilers do
 * not merge its stores when loads from the source arrays come between
 * them (an unsigned char store may alias anything), which made encoding
 * cost a third of the writers' time. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define STRATA_LITTLE_ENDIAN 1
#else
#define STRATA_LITTLE_ENDIAN 0
#endif

static inline unsigned char *put_u32(unsigned char *p, uint32_t v)
{
#if STRATA_LITTLE_ENDIAN
    memcpy(p, &v, 4);
#else
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
#endif
    return p + 4;
}

static inline unsigned char *put_u16(unsigned char *p, uint32_t v)
{
#if STRATA_LITTLE_ENDIAN
    const uint16_t h = (uint16_t)v;
    memcpy(p, &h, 2);
#else
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
#endif
    return p + 2;
}

static inline unsigned char *put_f32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return put_u32(p, u);
}

#endif
