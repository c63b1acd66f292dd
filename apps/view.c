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
 * GET only (else 405), one request per connection (Connection: close),
 * every connection served by one poll loop (see "HTTP" below for its
 * limits).  A request must name this server in its Host header
 * (127.0.0.1:PORT or localhost:PORT, else 403: a page that DNS rebinding
 * sends here names its own site).  A path is percent-decoded and checked
 * by apps/http.c (no NUL, backslash or segment starting with '.': no
 * "..", no dotfile) and opened from its root's descriptor one segment at a
 * time without following symbolic links (a link: 403); only regular files
 * are served (no listings). */
#define _GNU_SOURCE /* realpath with NULL, MSG_NOSIGNAL, accept4, memmem */

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
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#ifndef STRATA_PKGDATADIR
#define STRATA_PKGDATADIR "/usr/local/share/strata"
#endif

#define REQUEST_MAX 8192 /* bytes of a request's head */
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

    char *const *names[] = {&g_roots.world, &g_roots.viewer, &g_roots.modules};
    int *const fds[] = {&g_roots.world_fd, &g_roots.viewer_fd, &g_roots.modules_fd};
    for (int i = 0; i < 3; i++) {
        *fds[i] = open(*names[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (*fds[i] < 0)
            die(EXIT_RUNTIME, "cannot open directory '%s': %s", *names[i], strerror(errno));
    }
}

/* The open file a decoded path names, walked from its root's descriptor
 * one segment at a time (openat with O_NOFOLLOW: a symbolic link anywhere
 * below the root is refused, so a directory swapped for a link while a
 * request is answered cannot lead outside), or -1 with *status 403 (a
 * link, no permission) or 404. */
static int open_beneath(const char *path, int *status)
{
    int root = g_roots.world_fd;
    const char *rel = path + 1;
    static const char prefix[] = "/_strata/";
    if (!strcmp(path, "/")) {
        root = g_roots.viewer_fd;
        rel = "index.html";
    } else if (!strncmp(path, prefix, sizeof prefix - 1)) {
        rel = path + sizeof prefix - 1;
        const bool module = !strncmp(rel, "three/", 6) || !strncmp(rel, "3d-tiles-renderer/", 18);
        root = module ? g_roots.modules_fd : g_roots.viewer_fd;
    }
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

/* ------------------------------------------------------------ HTTP */

/* Every connection is a slot of one fixed table served by one poll loop:
 * no thread per connection, and a client that trickles its request holds
 * a slot and a descriptor, never a thread.  When the table (or one
 * client's share of it) is full, a new connection takes the slot of the
 * oldest one still reading its head (else the oldest one), so clients
 * that stall cannot lock others out. */
#define CONN_MAX 256   /* connections at once (fewer under a low RLIMIT_NOFILE) */
#define CLIENT_MAX 64  /* connections at once from one address */
#define HEAD_MS 5000   /* a request head must be whole this long after its accept */
#define IDLE_MS 10000  /* an answer that makes no progress this long is dropped */
#define SEND_BUF (1 << 16)

typedef struct conn {
    int fd;           /* -1: a free slot */
    int file;         /* the file answered, or -1 */
    uint32_t addr;    /* the client's IPv4 address */
    uint64_t seq;     /* accept order */
    int64_t deadline; /* ms on the monotonic clock */
    char *head;       /* the request head read so far; NULL once answered */
    size_t got;
    char out[512]; /* the answer's head (and a status answer's body) */
    size_t out_len, out_sent;
    off_t off, size; /* the file's bytes sent, its size */
} conn;

typedef struct server {
    conn *t;
    int cap;
    char host[2][64]; /* the Host values accepted: 127.0.0.1:PORT, localhost:PORT */
    unsigned port;
} server;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void drop(conn *c)
{
    close(c->fd);
    if (c->file >= 0)
        close(c->file);
    free(c->head);
    memset(c, 0, sizeof *c);
    c->fd = c->file = -1;
}

static void set_status(conn *c, int status, const char *reason, const char *extra,
                       const char *detail)
{
    char body[256];
    const int blen = snprintf(body, sizeof body, "%d %s%s%s\n", status, reason,
                              detail ? ": " : "", detail ? detail : "");
    const int n = snprintf(c->out, sizeof c->out,
                           "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
                           "Content-Length: %d\r\n%sConnection: close\r\n\r\n%s",
                           status, reason, blen, extra ? extra : "", body);
    c->out_len = n < (int)sizeof c->out ? (size_t)n : sizeof c->out - 1;
}

/* A Host header naming what the server listens on: a page of another
 * site that a DNS rebinding points at 127.0.0.1 sends its own name. */
static bool host_ok(const server *sv, const char *host)
{
    for (int i = 0; i < 2; i++) {
        if (!strcasecmp(host, sv->host[i]))
            return true;
        /* port 80 may be left out */
        const size_t n = strlen(host);
        if (sv->port == 80 && !strncasecmp(host, sv->host[i], n) && sv->host[i][n] == ':')
            return true;
    }
    return false;
}

/* The request head is whole: set the answer. */
static void answer(const server *sv, conn *c)
{
    char path[PATH_MAX], host[64];
    const int status = http_request_path(c->head, c->got, path, sizeof path);
    const int has_host = http_request_host(c->head, c->got, host, sizeof host);
    if (status == 400) {
        set_status(c, 400, "Bad Request", NULL, NULL);
    } else if (has_host != 1) {
        set_status(c, 400, "Bad Request", NULL, "one Host header is required");
    } else if (!host_ok(sv, host)) {
        char why[160];
        snprintf(why, sizeof why, "this server answers only Host %s", sv->host[0]);
        set_status(c, 403, "Forbidden", NULL, why);
    } else if (status == 405) {
        set_status(c, 405, "Method Not Allowed", "Allow: GET\r\n", NULL);
    } else if (status == 403) {
        set_status(c, 403, "Forbidden", NULL, NULL);
    } else {
        int why = 404;
        c->file = open_beneath(path, &why);
        struct stat sb;
        if (c->file >= 0 && fstat(c->file, &sb) == 0) {
            c->size = sb.st_size;
            const int n = snprintf(c->out, sizeof c->out,
                                   "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: "
                                   "%lld\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
                                   content_type(strcmp(path, "/") ? path : "/index.html"),
                                   (long long)sb.st_size);
            c->out_len = (size_t)n;
        } else if (why == 403) {
            set_status(c, 403, "Forbidden", NULL, NULL);
        } else {
            set_status(c, 404, "Not Found", NULL, NULL);
        }
    }
    free(c->head);
    c->head = NULL;
}

static void on_read(const server *sv, conn *c, int64_t now)
{
    for (;;) {
        const ssize_t k = recv(c->fd, c->head + c->got, REQUEST_MAX - c->got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (k <= 0) {
            drop(c); /* closed, or failed, before a whole request */
            return;
        }
        const size_t from = c->got > 3 ? c->got - 3 : 0;
        c->got += (size_t)k;
        c->head[c->got] = '\0';
        const char *h = c->head + from;
        const size_t n = c->got - from;
        if (memmem(h, n, "\r\n\r\n", 4) || memmem(h, n, "\n\n", 2)) {
            answer(sv, c);
        } else if (c->got == REQUEST_MAX) {
            set_status(c, 431, "Request Header Fields Too Large", NULL, NULL);
            free(c->head);
            c->head = NULL;
        } else {
            continue;
        }
        c->deadline = now + IDLE_MS;
        return;
    }
}

static void on_write(conn *c, int64_t now, char *buf)
{
    while (c->out_sent < c->out_len) {
        const ssize_t k = send(c->fd, c->out + c->out_sent, c->out_len - c->out_sent, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (k <= 0)
            break;
        c->out_sent += (size_t)k;
        c->deadline = now + IDLE_MS;
    }
    while (c->out_sent == c->out_len && c->file >= 0 && c->off < c->size) {
        const off_t left = c->size - c->off;
        const ssize_t r = pread(c->file, buf, left < SEND_BUF ? (size_t)left : SEND_BUF, c->off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break; /* the file shrank: the client sees a short body */
        const ssize_t k = send(c->fd, buf, (size_t)r, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (k <= 0)
            break;
        c->off += k;
        c->deadline = now + IDLE_MS;
    }
    drop(c); /* answered, or the client is gone */
}

/* The slot for a new connection from addr: a free one, else the slot of
 * the oldest connection still reading its head (from addr when addr has
 * its share), else of the oldest; its connection is dropped. */
static conn *slot(server *sv, uint32_t addr)
{
    int total = 0, mine = 0;
    conn *free_slot = NULL;
    for (int i = 0; i < sv->cap; i++) {
        conn *c = &sv->t[i];
        if (c->fd < 0) {
            if (!free_slot)
                free_slot = c;
            continue;
        }
        total++;
        mine += c->addr == addr;
    }
    const bool own = mine >= CLIENT_MAX;
    if (!own && total < sv->cap)
        return free_slot;
    conn *reading = NULL, *any = NULL;
    for (int i = 0; i < sv->cap; i++) {
        conn *c = &sv->t[i];
        if (c->fd < 0 || (own && c->addr != addr))
            continue;
        if (!any || c->seq < any->seq)
            any = c;
        if (c->head && (!reading || c->seq < reading->seq))
            reading = c;
    }
    conn *v = reading ? reading : any;
    drop(v);
    return v;
}

static void accept_all(server *sv, int s, int64_t now, uint64_t *seq)
{
    for (;;) {
        struct sockaddr_in a;
        socklen_t len = sizeof a;
        const int fd = accept4(s, (struct sockaddr *)&a, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                usleep(10000); /* descriptors used elsewhere in the process: wait */
                return;
            }
            die(EXIT_RUNTIME, "accept: %s", strerror(errno));
        }
        const uint32_t addr = a.sin_addr.s_addr;
        conn *c = slot(sv, addr);
        c->head = malloc(REQUEST_MAX + 1);
        if (!c->head) {
            close(fd);
            continue;
        }
        c->fd = fd;
        c->addr = addr;
        c->seq = (*seq)++;
        c->deadline = now + HEAD_MS;
    }
}

int run_view(job *o)
{
    find_roots(o->input);

    const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
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
    if (listen(s, 128) != 0 || getsockname(s, (struct sockaddr *)&a, &len) != 0)
        die(EXIT_RUNTIME, "cannot listen on 127.0.0.1: %s", strerror(errno));

    server sv = {.port = ntohs(a.sin_port)};
    snprintf(sv.host[0], sizeof sv.host[0], "127.0.0.1:%u", sv.port);
    snprintf(sv.host[1], sizeof sv.host[1], "localhost:%u", sv.port);
    /* a connection holds its socket and a file: keep both, and a few for
     * the walk of a path and stdio, under the descriptor limit */
    struct rlimit rl;
    sv.cap = CONN_MAX;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        rl.rlim_cur < 2 * CONN_MAX + 16)
        sv.cap = rl.rlim_cur > 18 ? (int)((rl.rlim_cur - 16) / 2) : 1;
    sv.t = malloc((size_t)sv.cap * sizeof *sv.t);
    struct pollfd *p = malloc((size_t)(sv.cap + 1) * sizeof *p);
    int *which = malloc((size_t)(sv.cap + 1) * sizeof *which);
    char *buf = malloc(SEND_BUF);
    if (!sv.t || !p || !which || !buf)
        die(EXIT_RUNTIME, "out of memory");
    for (int i = 0; i < sv.cap; i++) {
        memset(&sv.t[i], 0, sizeof sv.t[i]);
        sv.t[i].fd = sv.t[i].file = -1;
    }

    printf("http://127.0.0.1:%u/\n", sv.port);
    if (!o->quiet)
        fprintf(stderr, "strata: serving '%s' and the viewer; open the URL above in a "
                        "browser, Ctrl-C to stop\n",
                o->input);
    fflush(stdout);

    uint64_t seq = 0;
    for (;;) {
        int64_t now = now_ms(), wait = -1;
        int np = 1;
        p[0] = (struct pollfd){.fd = s, .events = POLLIN};
        for (int i = 0; i < sv.cap; i++) {
            const conn *c = &sv.t[i];
            if (c->fd < 0)
                continue;
            p[np] = (struct pollfd){.fd = c->fd, .events = c->head ? POLLIN : POLLOUT};
            which[np++] = i;
            const int64_t w = c->deadline > now ? c->deadline - now : 0;
            if (wait < 0 || w < wait)
                wait = w;
        }
        if (poll(p, (nfds_t)np, wait > INT_MAX ? INT_MAX : (int)wait) < 0) {
            if (errno == EINTR)
                continue;
            die(EXIT_RUNTIME, "poll: %s", strerror(errno));
        }
        now = now_ms();
        for (int k = 1; k < np; k++) {
            conn *c = &sv.t[which[k]];
            if (p[k].revents) {
                if (c->head)
                    on_read(&sv, c, now);
                else
                    on_write(c, now, buf);
            }
            if (c->fd >= 0 && now >= c->deadline)
                drop(c); /* a head not whole in time, or an answer not taken */
        }
        if (p[0].revents & POLLIN)
            accept_all(&sv, s, now, &seq);
    }
}
