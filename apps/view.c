/* strata view DIR: serve a world directory and the viewer page
 * (docs/viewer) over HTTP on 127.0.0.1, for a browser on this machine.
 *
 *   /                          the viewer's index.html
 *   /_strata/viewer.js ...     the viewer's files
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
 * GET only (else 405), one request per connection (Connection: close), a
 * thread per connection.  A path is percent-decoded and checked by
 * apps/http.c (no "." or ".." segments, NUL or backslash) and must
 * resolve (symbolic links followed) inside its root: else 403; only
 * regular files are served (no listings). */
#define _GNU_SOURCE /* realpath with NULL, MSG_NOSIGNAL */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "fail.h"
#include "http.h"
#include "run.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#ifndef STRATA_PKGDATADIR
#define STRATA_PKGDATADIR "/usr/local/share/strata"
#endif

#define REQUEST_MAX 8192 /* bytes of a request's head */
#define NPM_PACKAGES "three and 3d-tiles-renderer"

/* The roots files are served from, each a realpath. */
typedef struct roots {
    char *world;   /* DIR */
    char *viewer;  /* index.html, viewer.js */
    char *modules; /* node_modules */
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
    if (!is_file(g_roots.world, "tileset.json"))
        die(EXIT_RUNTIME,
            "'%s' has no tileset.json: make a world with --chunk-level or --tile-cells (after "
            "shards: strata tileset DIR)",
            dir);

    /* 3D Tiles viewers load glTF content: a world of PLY tiles would only
     * fill the browser's console with errors */
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

    const char *env = getenv("STRATA_VIEWER");
    const char *vdir = env && *env ? env : STRATA_PKGDATADIR "/viewer";
    g_roots.viewer = real_dir(vdir);
    if (!g_roots.viewer || !is_file(g_roots.viewer, "index.html") ||
        !is_file(g_roots.viewer, "viewer.js"))
        die(EXIT_RUNTIME,
            "the viewer's files (index.html, viewer.js) are not in '%s': run 'make install', or "
            "set STRATA_VIEWER to the source tree's docs/viewer",
            vdir);

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
    if (!g_roots.modules)
        die(EXIT_RUNTIME,
            "the npm packages " NPM_PACKAGES " were not found (%s): install them with "
            "%s/install-deps.sh, or set STRATA_NODE_MODULES to a node_modules holding them",
            env && *env ? env : "$HOME/.cache/strata-npm/node_modules", g_roots.viewer);
}

/* The file a decoded path names, as a realpath inside its root (malloc'd),
 * or NULL with *status 403 (outside) or 404. */
static char *resolve(const char *path, int *status)
{
    const char *root = g_roots.world, *rel = path + 1;
    static const char prefix[] = "/_strata/";
    if (!strcmp(path, "/")) {
        root = g_roots.viewer;
        rel = "index.html";
    } else if (!strncmp(path, prefix, sizeof prefix - 1)) {
        rel = path + sizeof prefix - 1;
        const bool module = !strncmp(rel, "three/", 6) || !strncmp(rel, "3d-tiles-renderer/", 18);
        root = module ? g_roots.modules : g_roots.viewer;
    }
    char joined[PATH_MAX];
    *status = 404;
    if (snprintf(joined, sizeof joined, "%s/%s", root, rel) >= (int)sizeof joined)
        return NULL;
    char *real = realpath(joined, NULL);
    if (!real)
        return NULL;
    const size_t n = strlen(root);
    if (strncmp(real, root, n) != 0 || (real[n] != '/' && real[n] != '\0')) {
        *status = 403;
        free(real);
        return NULL;
    }
    return real;
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

/* ------------------------------------------------------------ HTTP */

static bool send_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        const ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

static void send_status(int fd, int status, const char *reason, const char *extra)
{
    char buf[512];
    char body[128];
    const int blen = snprintf(body, sizeof body, "%d %s\n", status, reason);
    const int n = snprintf(buf, sizeof buf,
                           "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
                           "Content-Length: %d\r\n%sConnection: close\r\n\r\n%s",
                           status, reason, blen, extra ? extra : "", body);
    send_all(fd, buf, (size_t)n);
}

static void send_file(int fd, const char *path)
{
    const int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat sb;
    if (f < 0 || fstat(f, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        if (f >= 0)
            close(f);
        send_status(fd, 404, "Not Found", NULL);
        return;
    }
    char head[512];
    const int n = snprintf(head, sizeof head,
                           "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %lld\r\n"
                           "Cache-Control: no-cache\r\nConnection: close\r\n\r\n",
                           content_type(path), (long long)sb.st_size);
    bool ok = send_all(fd, head, (size_t)n);
    static const size_t BUF = 1 << 16;
    char *buf = ok ? malloc(BUF) : NULL;
    for (off_t left = sb.st_size; ok && buf && left > 0;) {
        const ssize_t k = read(f, buf, BUF);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break; /* the file shrank: the client sees a short body */
        ok = send_all(fd, buf, (size_t)k);
        left -= k;
    }
    free(buf);
    close(f);
}

/* One connection: read the request head, answer, close. */
static void *serve(void *arg)
{
    const int fd = (int)(intptr_t)arg;
    char req[REQUEST_MAX + 1];
    size_t n = 0;
    while (n < REQUEST_MAX) {
        const ssize_t k = recv(fd, req + n, REQUEST_MAX - n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
        req[n] = '\0';
        if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
            break;
    }
    req[n] = '\0';
    char path[PATH_MAX];
    const int status = n ? http_request_path(req, n, path, sizeof path) : 0;
    if (status == 200) {
        int why = 404;
        char *file = resolve(path, &why);
        if (file)
            send_file(fd, file);
        else if (why == 403)
            send_status(fd, 403, "Forbidden", NULL);
        else
            send_status(fd, 404, "Not Found", NULL);
        free(file);
    } else if (status == 400) {
        send_status(fd, 400, "Bad Request", NULL);
    } else if (status == 405) {
        send_status(fd, 405, "Method Not Allowed", "Allow: GET\r\n");
    } else if (status == 403) {
        send_status(fd, 403, "Forbidden", NULL);
    } /* 0: closed or timed out before a request, nothing to answer */
    close(fd);
    return NULL;
}

int run_view(job *o)
{
    find_roots(o->input);

    const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        die(EXIT_RUNTIME, "cannot open a socket: %s", strerror(errno));
    const int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)o->port);
    if (bind(s, (struct sockaddr *)&a, sizeof a) != 0)
        die(EXIT_RUNTIME, "--port %lld: cannot listen on 127.0.0.1:%lld: %s%s", o->port, o->port,
            strerror(errno),
            errno == EADDRINUSE ? " (another program uses it; choose another, or 0 for any)"
                                : "");
    socklen_t len = sizeof a;
    if (listen(s, 64) != 0 || getsockname(s, (struct sockaddr *)&a, &len) != 0)
        die(EXIT_RUNTIME, "cannot listen on 127.0.0.1: %s", strerror(errno));
    printf("http://127.0.0.1:%u/\n", (unsigned)ntohs(a.sin_port));
    if (!o->quiet)
        fprintf(stderr, "strata: serving '%s' and the viewer; open the URL above in a "
                        "browser, Ctrl-C to stop\n",
                o->input);
    fflush(stdout);

    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (;;) {
        const int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EMFILE || errno == ENFILE)
                usleep(10000); /* out of descriptors until threads finish */
            if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE || errno == ENFILE)
                continue;
            die(EXIT_RUNTIME, "accept: %s", strerror(errno));
        }
        /* a client that sends nothing does not hold its thread for ever */
        const struct timeval tv = {10, 0};
        setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        pthread_t t;
        if (pthread_create(&t, &attr, serve, (void *)(intptr_t)c) != 0)
            serve((void *)(intptr_t)c);
    }
}
