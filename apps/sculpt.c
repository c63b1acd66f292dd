/* strata planet --chunk-level C -o DIR --sculpt (and terrain --tile-cells
 * N): serve an editor of the world on 127.0.0.1 (apps/serve.c).  DIR
 * holds the edit log (DIR/edits.strata, saved atomically after every
 * change: starting again on DIR continues from it), the exports
 * (DIR/exports/) and, as a world directory without tiles, world.json and
 * world.lock: apps/world.c locks DIR for the editor's life, so a second
 * editor or a world run on DIR fails naming this one.
 *
 * Every URL starts with /TOKEN/, TOKEN 32 hex digits from getrandom
 * printed in the one URL (as Jupyter does); a request without it is
 * refused (403; compared in constant time).  POST bodies are at most
 * BODY_MAX bytes, a client makes at most RATE requests a second, an
 * Origin header must be this server's (serve.c).
 *
 *   GET  /TOKEN/               the editor's page (docs/viewer/sculpt.html;
 *                              found as 'strata view' finds its viewer:
 *                              apps/view.c), /TOKEN/_strata/... its
 *                              script and the npm package three
 *   GET  /TOKEN/api/state     {"kind":..,"chunks":N,"edits":N,"redo":N}
 *   GET  /TOKEN/api/palettes  {"earth":["#rrggbb",...],...}: the built-in
 *                              palettes' stops (strata_palette_preset)
 *   GET  /TOKEN/api/chunks    every chunk, as a pack (below)
 *   POST /TOKEN/api/dab       {"brush":"raise","center":[x,y,z],
 *                              "radius":r,"strength":s}: appended to the
 *                              log, the log saved, the chunks it changes
 *                              re-sliced in memory and sent back as a pack
 *   POST /TOKEN/api/undo, /TOKEN/api/redo   the same for the last dab
 *   POST /TOKEN/api/export    {"format":"glb"|"stl"|"world","name":NAME}:
 *                              the command line run again (this program,
 *                              the same options, --edits DIR/edits.strata)
 *                              into DIR/exports/NAME.glb, NAME.stl (a
 *                              terrain, with --solid) or the world
 *                              directory DIR/exports/NAME
 *
 * A pack: apps/pack.h. */
#define _GNU_SOURCE /* getrandom, posix_spawn */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "body.h"
#include "fail.h"
#include "pack.h"
#include "progress.h"
#include "run.h"
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define BODY_MAX 1024  /* bytes of a POST body */
#define RATE 400       /* requests a second from one client */
#define LOG_NAME "edits.strata"
#define ARGS_MAX 256

typedef struct sculpt {
    strata_ctx *ctx;
    const job *o;
    strata_world *w;
    strata_edits *e;
    const char *dir; /* DIR as given */
    char log[PATH_MAX];
    char token[33];
    uint64_t nchunks, *near;
    strata_result *r;
    char *args[ARGS_MAX]; /* the command's options but the world's and sculpt's */
    size_t nargs;
    char no_page[PATH_MAX + 256]; /* why the page's files are missing, or "" */
} sculpt;

/* ------------------------------------------------------------ packs */

static strata_status pack(sculpt *s, const uint64_t *ids, uint64_t n, pack_buf *b)
{
    pack_begin(b, n);
    for (uint64_t i = 0; i < n; i++) {
        const strata_status st = pack_chunk(s->ctx, s->w, s->r, ids ? ids[i] : i, b);
        if (st != STRATA_OK)
            return st;
    }
    return STRATA_OK;
}

/* ------------------------------------------------------------ requests */

/* The changed chunks around dab d as the reply (the log saved first). */
static void reply_chunks(sculpt *s, const strata_edit *d, serve_reply *rp)
{
    strata_status st = strata_edits_save(s->ctx, s->e, s->log);
    if (st != STRATA_OK) {
        char why[PATH_MAX + 64];
        snprintf(why, sizeof why, "cannot save '%s': %s", s->log, strerror(errno));
        serve_text(rp, 500, why);
        return;
    }
    uint64_t n;
    st = strata_world_chunks_near(s->w, d->center, d->radius, s->near, s->nchunks, &n);
    pack_buf b = {0};
    if (st == STRATA_OK)
        st = pack(s, s->near, n, &b);
    if (st != STRATA_OK) {
        free(b.p);
        serve_text(rp, 500, strata_status_str(st));
        return;
    }
    rp->status = 200;
    rp->type = "application/octet-stream";
    rp->body = b.p;
    rp->len = b.len;
}

static void reply_json(serve_reply *rp, const char *text)
{
    rp->status = 200;
    rp->type = "application/json";
    rp->len = strlen(text);
    rp->body = malloc(rp->len);
    if (!rp->body)
        die(EXIT_RUNTIME, "out of memory");
    memcpy(rp->body, text, rp->len);
}

/* The built-in palettes as JSON: {"NAME":["#rrggbb",...],...}. */
static void reply_palettes(serve_reply *rp)
{
    pack_buf b = {0};
    const char *name;
    for (unsigned i = 0; (name = strata_palette_preset_name(i)) != NULL; i++) {
        strata_palette p;
        if (strata_palette_preset(name, &p) != STRATA_OK)
            continue;
        char text[96];
        snprintf(text, sizeof text, "%s\"%s\":[", i ? "," : "{", name);
        pack_put(&b, text, strlen(text));
        for (uint32_t k = 0; k < p.nstops; k++) {
            snprintf(text, sizeof text, "%s\"#%02x%02x%02x\"", k ? "," : "", p.rgb[k][0],
                     p.rgb[k][1], p.rgb[k][2]);
            pack_put(&b, text, strlen(text));
        }
        pack_put(&b, "]", 1);
    }
    pack_put(&b, b.len ? "}\n" : "{}\n", b.len ? 2 : 3);
    *rp = (serve_reply){.status = 200, .type = "application/json", .fd = -1, .body = b.p,
                        .len = b.len};
}

/* ------------------------------------------------------------ export */

/* Run this program again: the command, its options but the world's and
 * sculpt's, then extra[]; 0, or the failure's text in why. */
static int run_again(sculpt *s, const char *const *extra, char *why, size_t cap)
{
    char *argv[ARGS_MAX + 16];
    size_t n = 0;
    argv[n++] = "strata";
    argv[n++] = s->o->kind == JOB_PLANET ? "planet" : "terrain";
    for (size_t i = 0; i < s->nargs; i++)
        argv[n++] = s->args[i];
    for (size_t i = 0; extra[i]; i++)
        argv[n++] = (char *)extra[i];
    argv[n++] = "--quiet";
    argv[n] = NULL;
    pid_t pid;
    const int err = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ);
    int status = 0;
    if (err != 0) {
        snprintf(why, cap, "cannot run strata: %s", strerror(err));
        return -1;
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(why, cap, "the export failed (strata exited with %d; its message is on the "
                           "server's terminal)",
                 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        return -1;
    }
    return 0;
}

static void do_export(sculpt *s, const char *body, serve_reply *rp)
{
    char format[8], name[65], out[PATH_MAX], edits[PATH_MAX + 16], rel[128], why[256];
    const char *bad = body_export(body, format, name);
    if (bad)
        return serve_text(rp, 400, bad);
    if (!strcmp(format, "stl") && s->o->kind != JOB_TERRAIN)
        return serve_text(rp, 400, "STL solids are made of terrains");
    snprintf(out, sizeof out, "%s/exports", s->dir);
    struct stat sb;
    if (mkdir(out, 0777) != 0 && errno != EEXIST)
        return serve_text(rp, 500, strerror(errno));
    if (lstat(out, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return serve_text(rp, 403, "DIR/exports is not a directory (a symbolic link?)");
    const bool world = !strcmp(format, "world");
    snprintf(rel, sizeof rel, "exports/%s%s%s", name, world ? "" : ".", world ? "" : format);
    snprintf(out, sizeof out, "%s/%s", s->dir, rel);
    if (lstat(out, &sb) == 0 && S_ISLNK(sb.st_mode))
        return serve_text(rp, 403, "the export's name is a symbolic link");
    snprintf(out, sizeof out, "--output=%s/%s", s->dir, rel);
    snprintf(edits, sizeof edits, "--edits=%s", s->log);
    char level[48];
    if (s->o->kind == JOB_PLANET)
        snprintf(level, sizeof level, "--chunk-level=%lld", s->o->chunk_level);
    else
        snprintf(level, sizeof level, "--tile-cells=%lld", s->o->tile_cells);
    const char *extra[] = {edits, out, world ? level : "--solid", NULL};
    if (!strcmp(format, "glb"))
        extra[2] = NULL;
    if (run_again(s, extra, why, sizeof why) != 0)
        return serve_text(rp, 500, why);
    char text[256];
    snprintf(text, sizeof text, "{\"path\":\"%s\"}\n", rel);
    reply_json(rp, text);
}

/* ------------------------------------------------------------ routes */

/* The token at the start of path, compared in constant time: the rest
 * of the path after it, or NULL. */
static const char *after_token(const sculpt *s, const char *path)
{
    /* the length is no secret: every token has 32 digits */
    if (strlen(path) < 34 || path[0] != '/' || path[33] != '/')
        return NULL;
    unsigned char diff = 0;
    for (size_t i = 0; i < 32; i++)
        diff |= (unsigned char)(path[1 + i] ^ s->token[i]);
    return diff ? NULL : path + 33;
}

static void edit(sculpt *s, const char *what, const char *body, serve_reply *rp)
{
    strata_edit d;
    strata_status st;
    if (!strcmp(what, "dab")) {
        const char *why = body_dab(body, &d);
        if (why)
            return serve_text(rp, 400, why);
        st = strata_edits_append(s->e, &d);
    } else if (!strcmp(what, "undo")) {
        st = strata_edits_undo(s->e, &d);
    } else {
        st = strata_edits_redo(s->e, &d);
    }
    if (st == STRATA_ERR_INVALID_ARG)
        return serve_text(rp, 409, !strcmp(what, "dab") ? "the dab is refused" : "nothing to do");
    if (st != STRATA_OK)
        return serve_text(rp, 500, strata_status_str(st));
    reply_chunks(s, &d, rp);
}

static void handle(void *user, const serve_request *rq, serve_reply *rp)
{
    sculpt *s = user;
    const char *rest = after_token(s, rq->path);
    if (!rest)
        return serve_text(rp, 403, "the URL's token is missing or wrong");
    char body[BODY_MAX + 1];
    memcpy(body, rq->body, rq->body_len);
    body[rq->body_len] = '\0';
    if (memchr(rq->body, 0, rq->body_len))
        return serve_text(rp, 400, "a NUL byte in the body");
    if (!rq->post && (!strcmp(rest, "/") || !strncmp(rest, "/_strata/", 9))) {
        if (s->no_page[0])
            return serve_text(rp, 404, s->no_page);
        int why = 404;
        rp->fd = view_page_file(rest, "sculpt.html", &why, &rp->type);
        if (rp->fd < 0)
            return serve_text(rp, why, NULL);
        rp->status = 200;
        return;
    }
    if (!rq->post && !strcmp(rest, "/api/state")) {
        char text[256];
        snprintf(text, sizeof text,
                 "{\"kind\":\"%s\",\"chunks\":%llu,\"edits\":%llu,\"redo\":%llu}\n",
                 s->o->kind == JOB_PLANET ? "planet" : "terrain",
                 (unsigned long long)s->nchunks, (unsigned long long)strata_edits_count(s->e),
                 (unsigned long long)strata_edits_redo_count(s->e));
        return reply_json(rp, text);
    }
    if (!rq->post && !strcmp(rest, "/api/palettes"))
        return reply_palettes(rp);
    if (!rq->post && !strcmp(rest, "/api/chunks")) {
        pack_buf b = {0};
        const strata_status st = pack(s, NULL, s->nchunks, &b);
        if (st != STRATA_OK) {
            free(b.p);
            return serve_text(rp, 500, strata_status_str(st));
        }
        *rp = (serve_reply){.status = 200, .type = "application/octet-stream", .fd = -1,
                            .body = b.p, .len = b.len};
        return;
    }
    if (rq->post && (!strcmp(rest, "/api/dab") || !strcmp(rest, "/api/undo") ||
                     !strcmp(rest, "/api/redo")))
        return edit(s, rest + 5, body, rp);
    if (rq->post && !strcmp(rest, "/api/export"))
        return do_export(s, body, rp);
    serve_text(rp, rq->post ? 405 : 404, NULL);
}

static void ready(void *user, unsigned port)
{
    const sculpt *s = user;
    printf("http://127.0.0.1:%u/%s/\n", port, s->token);
    if (s->no_page[0])
        fprintf(stderr, "strata: warning: no editor page: %s\n", s->no_page);
    if (!s->o->quiet)
        fprintf(stderr,
                "strata: sculpting '%s' (%llu dabs in its log); open the URL above in a "
                "browser, Ctrl-C to stop\n",
                s->dir, (unsigned long long)strata_edits_count(s->e));
    fflush(stdout);
}

/* ------------------------------------------------------------ start */

static void make_token(char token[33])
{
    unsigned char r[16];
    size_t got = 0;
    while (got < sizeof r) {
        const ssize_t k = getrandom(r + got, sizeof r - got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            die(EXIT_RUNTIME, "getrandom: %s", strerror(errno));
        got += (size_t)k;
    }
    for (int i = 0; i < 16; i++)
        snprintf(token + 2 * i, 3, "%02x", r[i]);
}

/* DIR made (or found) and its log read: a directory holding only what
 * sculpt writes. */
static void open_log(sculpt *s)
{
    if (mkdir(s->dir, 0777) != 0 && errno != EEXIST)
        die(EXIT_RUNTIME, "cannot make directory '%s': %s", s->dir, strerror(errno));
    struct stat sb;
    if (stat(s->dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        die(EXIT_RUNTIME, "-o %s: not a directory", s->dir);
    if ((size_t)snprintf(s->log, sizeof s->log, "%s/" LOG_NAME, s->dir) >= sizeof s->log)
        die(EXIT_RUNTIME, "-o %s: the path is too long", s->dir);
    check(strata_edits_create(&s->e), "edits");
    strata_edits_error err;
    const strata_status st = strata_edits_load(s->e, s->log, &err);
    if (st == STRATA_ERR_IO && errno == ENOENT)
        return;
    if (st == STRATA_ERR_FORMAT)
        die(EXIT_RUNTIME, "'%s' line %llu: bad %s", s->log, (unsigned long long)err.line,
            err.field);
    check_call(st, (call){.what = "edit log", .path = s->log});
}

int run_sculpt(strata_ctx *ctx, const job *o, strata_world *w)
{
    sculpt s = {.ctx = ctx, .o = o, .w = w, .dir = o->output};
    /* a dab's chunks are small: made by one thread each, they take a few
     * ms; threads inside so small a chunk cost more than they give (on 2
     * busy cores, perf/sculpt-dab --memory --threads 2: a median of 50 to
     * 100 ms, against 15 ms).  Exports run with --threads as given. */
    check(strata_ctx_set_threads(ctx, 1), "--threads");
    open_log(&s);
    strata_world_set_edits(w, s.e);
    s.nchunks = strata_world_chunk_count(w);
    s.near = malloc(sizeof *s.near * (s.nchunks ? s.nchunks : 1));
    if (!s.near)
        die(EXIT_RUNTIME, "out of memory");
    check(strata_result_create(ctx, &s.r), "world");
    static const char *const skip[] = {"sculpt", "port", "output", "chunk-level", "tile-cells",
                                       "quiet", "stats", "tile-format", NULL};
    s.nargs = cli_given_args(skip, s.args, ARGS_MAX);
    make_token(s.token);
    if (view_find_page(s.no_page, sizeof s.no_page) == 0)
        s.no_page[0] = '\0';
    const serve_options so = {.port = (unsigned)o->port, .post = true, .body_max = BODY_MAX,
                              .check_origin = true, .rate = RATE, .handle = handle,
                              .ready = ready, .stop = interrupted, .user = &s};
    serve_run(&so);
    for (size_t i = 0; i < s.nargs; i++)
        free(s.args[i]);
    free(s.near);
    strata_result_destroy(s.r);
    strata_world_set_edits(w, NULL);
    strata_edits_destroy(s.e);
    return interrupt_status();
}
