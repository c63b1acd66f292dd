/* strata view DIR: serve a world directory and the viewer page
 * (docs/viewer) over HTTP on 127.0.0.1, for a browser on this machine.
 *
 *   /                          the viewer's index.html
 *   /_strata/viewer.js ...     the viewer's files (also 'strata sculpt''s
 *                              sculpt.html and sculpt.js, which it serves
 *                              itself under its token, apps/sculpt.c)
 *   /_strata/three/...         the npm package three
 *   /_strata/3d-tiles-renderer/...   the npm package 3d-tiles-renderer
 *   anything else              DIR's files (tileset.json, tiles/...)
 *
 * Where the viewer's files are: $STRATA_VIEWER, else $(pkgdatadir)/viewer
 * (make install puts docs/viewer there).  The npm packages:
 * $STRATA_NODE_MODULES, else $HOME/.cache/strata-npm/node_modules (where
 * docs/viewer/install-deps.sh installs them), else the viewer directory's
 * node_modules.
 *
 * GET only (else 405), one request per connection (Connection: close),
 * every connection served by one poll loop (apps/serve.c, shared with
 * 'strata sculpt': its limits are there).  A request must name this server in its Host header
 * (127.0.0.1:PORT or localhost:PORT, else 403: a page that DNS rebinding
 * sends here names its own site).  A path is percent-decoded and checked
 * by apps/http.c (no NUL, backslash or segment starting with '.': no
 * "..", no dotfile) and opened from its root's descriptor one segment at a
 * time without following symbolic links (a link: 403); only regular files
 * are served (no listings). */
#define _GNU_SOURCE /* realpath with NULL */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "fail.h"
#include "serve.h"
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef STRATA_PKGDATADIR
#define STRATA_PKGDATADIR "/usr/local/share/strata"
#endif

#define NPM_PACKAGES "three and 3d-tiles-renderer"

/* The roots files are served from, each a realpath and its directory
 * opened once at start. */
typedef struct roots {
    char *world;   /* DIR */
    char *viewer;  /* index.html, viewer.js */
    char *modules; /* node_modules */
    int world_fd, viewer_fd, modules_fd;
} roots;

static roots g_roots;

/* ------------------------------------------------------------ paths */

static bool is_file(const char *dir, const char *name)
{
    char p[PATH_MAX];
    struct stat sb;
    return snprintf(p, sizeof p, "%s/%s", dir, name) < (int)sizeof p && stat(p, &sb) == 0 &&
           S_ISREG(sb.st_mode);
}

static char *real_dir(const char *p)
{
    char *r = p ? realpath(p, NULL) : NULL;
    struct stat sb;
    if (r && (stat(r, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
        free(r);
        r = NULL;
        errno = ENOTDIR;
    }
    return r;
}

static void find_roots(const char *dir)
{
    g_roots.world = real_dir(dir);
    if (!g_roots.world)
        die(EXIT_RUNTIME, "cannot read world directory '%s': %s", dir,
            errno ? strerror(errno) : "not a directory");
    /* 3D Tiles viewers load glTF content: a world of PLY tiles has no
     * tileset.json (and one an older strata wrote would only fill the
     * browser's console with errors) */
    char manifest[PATH_MAX], text[4096];
    snprintf(manifest, sizeof manifest, "%s/world.json", g_roots.world);
    FILE *f = fopen(manifest, "r");
    if (f) {
        const size_t n = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[n] = '\0';
        if (strstr(text, "\"tileFormat\":\"ply\""))
            die(EXIT_RUNTIME,
                "'%s' holds PLY tiles, which 3D Tiles viewers do not load: make the world "
                "with --tile-format glb",
                dir);
    }
    if (!is_file(g_roots.world, "tileset.json"))
        die(EXIT_RUNTIME,
            "'%s' has no tileset.json: make a world with --chunk-level or --tile-cells (after "
            "shards: strata tileset DIR)",
            dir);

    g_roots.world_fd = open(g_roots.world, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (g_roots.world_fd < 0)
        die(EXIT_RUNTIME, "cannot open directory '%s': %s", g_roots.world, strerror(errno));
    char why[PATH_MAX + 256];
    if (view_find_page(why, sizeof why) != 0)
        die(EXIT_RUNTIME, "%s", why);
}

/* The viewer's files and the npm packages: see run.h. */
int view_find_page(char *why, size_t cap)
{
    const char *env = getenv("STRATA_VIEWER");
    const char *vdir = env && *env ? env : STRATA_PKGDATADIR "/viewer";
    g_roots.viewer = real_dir(vdir);
    if (!g_roots.viewer || !is_file(g_roots.viewer, "index.html") ||
        !is_file(g_roots.viewer, "viewer.js") || !is_file(g_roots.viewer, "sculpt.html") ||
        !is_file(g_roots.viewer, "sculpt.js")) {
        snprintf(why, cap,
                 "the viewer's files (index.html, viewer.js, sculpt.html, sculpt.js) are not "
                 "in '%s': run 'make install', or set STRATA_VIEWER to the source tree's "
                 "docs/viewer",
                 vdir);
        return -1;
    }

    char home[PATH_MAX] = "";
    const char *h = getenv("HOME");
    if (h && *h)
        snprintf(home, sizeof home, "%s/.cache/strata-npm/node_modules", h);
    char own[PATH_MAX];
    snprintf(own, sizeof own, "%s/node_modules", g_roots.viewer);
    env = getenv("STRATA_NODE_MODULES");
    const char *tries[] = {env && *env ? env : NULL, env && *env ? NULL : home, own};
    for (int i = 0; i < 3 && !g_roots.modules; i++) {
        if (!tries[i] || !*tries[i])
            continue;
        char *m = real_dir(tries[i]);
        if (m && is_file(m, "three/build/three.module.js") &&
            is_file(m, "3d-tiles-renderer/build/index.js"))
            g_roots.modules = m;
        else
            free(m);
        if (i == 0 && !g_roots.modules)
            break; /* an explicit STRATA_NODE_MODULES is the only place looked at */
    }
    if (!g_roots.modules) {
        snprintf(why, cap,
                 "the npm packages " NPM_PACKAGES " were not found (%s): install them with "
                 "%s/install-deps.sh, or set STRATA_NODE_MODULES to a node_modules holding them",
                 env && *env ? env : "$HOME/.cache/strata-npm/node_modules", g_roots.viewer);
        return -1;
    }

    char *const *names[] = {&g_roots.viewer, &g_roots.modules};
    int *const fds[] = {&g_roots.viewer_fd, &g_roots.modules_fd};
    for (int i = 0; i < 2; i++) {
        *fds[i] = open(*names[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (*fds[i] < 0) {
            snprintf(why, cap, "cannot open directory '%s': %s", *names[i], strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* The open file a decoded path names, walked from its root's descriptor
 * one segment at a time (openat with O_NOFOLLOW: a symbolic link anywhere
 * below the root is refused, so a directory swapped for a link while a
 * request is answered cannot lead outside), or -1 with *status 403 (a
 * link, no permission) or 404. */
static int open_beneath(int root, const char *rel, int *status)
{
    char buf[PATH_MAX];
    *status = 404;
    if (snprintf(buf, sizeof buf, "%s", rel) >= (int)sizeof buf)
        return -1;
    int dir = root;
    char *save = NULL;
    char *seg = strtok_r(buf, "/", &save);
    while (seg) {
        char *next = strtok_r(NULL, "/", &save);
        const int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
                          (next ? O_DIRECTORY : O_NONBLOCK);
        const int fd = openat(dir, seg, flags);
        if (fd < 0) {
            struct stat sb;
            if (errno == ELOOP || errno == EACCES || errno == EPERM ||
                (fstatat(dir, seg, &sb, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(sb.st_mode)))
                *status = 403;
        }
        if (dir != root)
            close(dir);
        if (fd < 0)
            return -1;
        if (!next) {
            struct stat sb;
            if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
                return fd;
            close(fd);
            return -1;
        }
        dir = fd;
        seg = next;
    }
    if (dir != root)
        close(dir);
    return -1; /* no segment: a directory */
}

static const char *content_type(const char *path)
{
    static const char *const types[][2] = {
        {".json", "application/json"},
        {".glb", "model/gltf-binary"},
        {".gltf", "model/gltf+json"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".html", "text/html; charset=utf-8"},
        {".png", "image/png"},
        {".wasm", "application/wasm"},
        {".css", "text/css; charset=utf-8"},
        {".ply", "application/octet-stream"},
    };
    const size_t n = strlen(path);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        const size_t m = strlen(types[i][0]);
        if (n >= m && !strcmp(path + n - m, types[i][0]))
            return types[i][1];
    }
    return "application/octet-stream";
}

/* The page's file for a decoded path: see run.h. */
int view_page_file(const char *path, const char *index, int *status, const char **type)
{
    int root = g_roots.world_fd;
    const char *rel = path + 1;
    static const char prefix[] = "/_strata/";
    if (!strcmp(path, "/")) {
        root = g_roots.viewer_fd;
        rel = index;
    } else if (!strncmp(path, prefix, sizeof prefix - 1)) {
        rel = path + sizeof prefix - 1;
        const bool module = !strncmp(rel, "three/", 6) || !strncmp(rel, "3d-tiles-renderer/", 18);
        root = module ? g_roots.modules_fd : g_roots.viewer_fd;
    } else if (!g_roots.world) {
        *status = 404;
        return -1;
    }
    *type = content_type(rel);
    return open_beneath(root, rel, status);
}

/* ------------------------------------------------------------ serving */

static void handle(void *user, const serve_request *rq, serve_reply *rp)
{
    (void)user;
    int why = 404;
    rp->fd = view_page_file(rq->path, "index.html", &why, &rp->type);
    if (rp->fd >= 0) {
        rp->status = 200;
    } else {
        serve_text(rp, why, NULL);
    }
}

static void ready(void *user, unsigned port)
{
    const job *o = user;
    printf("http://127.0.0.1:%u/\n", port);
    if (!o->quiet)
        fprintf(stderr, "strata: serving '%s' and the viewer; open the URL above in a "
                        "browser, Ctrl-C to stop\n",
                o->input);
    fflush(stdout);
}

int run_view(job *o)
{
    find_roots(o->input);
    const serve_options so = {.port = (unsigned)o->port, .handle = handle, .ready = ready,
                              .user = o};
    serve_run(&so);
    return 0;
}
