/* The local HTTP server of 'strata view' and 'strata sculpt': see
 * serve.h.
 *
 * Every connection is a slot of one fixed table served by one poll loop:
 * no thread per connection, and a client that trickles its request holds
 * a slot and a descriptor, never a thread.  When the table (or one
 * client's share of it) is full, a new connection takes the slot of the
 * oldest one still reading its request (else the oldest one), so clients
 * that stall cannot lock others out.  A request (head and body) must be
 * whole HEAD_MS after its accept; one request per connection
 * (Connection: close).  The head is at most REQUEST_MAX bytes (431), a
 * POST body needs a Content-Length (411) of at most body_max bytes (413;
 * no chunked bodies: 501).  Checked before the handler sees a request: a
 * well-formed request line (400), one Host header naming this server
 * (127.0.0.1:PORT or localhost:PORT, else 403: a page that DNS rebinding
 * sends here names its own site), with check_origin an Origin header, if
 * any, of this server (403: a cross-site request), the client's rate
 * (429), the method (405) and the path (403, apps/http.c). */
#define _GNU_SOURCE /* MSG_NOSIGNAL, accept4, memmem */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "serve.h"
#include "fail.h"
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REQUEST_MAX 8192 /* bytes of a request's head */
#define CONN_MAX 256     /* connections at once (fewer under a low RLIMIT_NOFILE) */
#define CLIENT_MAX 64    /* connections at once from one address */
#define HEAD_MS 5000     /* a request must be whole this long after its accept */
#define IDLE_MS 10000    /* an answer that makes no progress this long is dropped */
#define SEND_BUF (1 << 16)
#define RATE_SLOTS 64 /* client addresses whose rate is counted */

typedef struct conn {
    int fd;           /* -1: a free slot */
    int file;         /* the file answered, or -1 */
    uint32_t addr;    /* the client's IPv4 address */
    uint64_t seq;     /* accept order */
    int64_t deadline; /* ms on the monotonic clock */
    char *head;       /* the request read so far; NULL once answered */
    size_t got, cap;  /* bytes read, the buffer's size (less the NUL) */
    size_t need;      /* the request's length once its head is whole, else 0 */
    size_t hend;      /* the head's length once whole */
    char out[512];    /* the answer's head (and a status answer's body) */
    size_t out_len, out_sent;
    unsigned char *body; /* an answer's body from memory, or NULL */
    off_t off, size;     /* the body's (or file's) bytes sent, its size */
} conn;

typedef struct rate_slot {
    uint32_t addr;
    int64_t second; /* the second counted */
    unsigned count;
} rate_slot;

typedef struct server {
    const serve_options *o;
    conn *t;
    int cap;
    char host[2][64];    /* the Host values accepted: 127.0.0.1:PORT, localhost:PORT */
    char origin[2][80];  /* the Origin values accepted */
    unsigned port;
    rate_slot rates[RATE_SLOTS];
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
    free(c->body);
    memset(c, 0, sizeof *c);
    c->fd = c->file = -1;
}

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "Internal Server Error";
    }
}

static void set_status(conn *c, int status, const char *extra, const char *detail)
{
    char body[256];
    const int blen = snprintf(body, sizeof body, "%d %s%s%s\n", status, reason(status),
                              detail ? ": " : "", detail ? detail : "");
    const int n = snprintf(c->out, sizeof c->out,
                           "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
                           "Content-Length: %d\r\n%sConnection: close\r\n\r\n%s",
                           status, reason(status), blen, extra ? extra : "", body);
    c->out_len = n < (int)sizeof c->out ? (size_t)n : sizeof c->out - 1;
}

void serve_text(serve_reply *rp, int status, const char *detail)
{
    char body[512];
    const int n = snprintf(body, sizeof body, "%d %s%s%s\n", status, reason(status),
                           detail ? ": " : "", detail ? detail : "");
    free(rp->body);
    rp->status = status;
    rp->type = "text/plain; charset=utf-8";
    rp->len = n < (int)sizeof body ? (size_t)n : sizeof body - 1;
    rp->body = malloc(rp->len);
    if (rp->body)
        memcpy(rp->body, body, rp->len);
    else
        rp->len = 0;
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

/* One more request from addr this second: false past the rate. */
static bool rate_ok(server *sv, uint32_t addr, int64_t now)
{
    if (!sv->o->rate)
        return true;
    const int64_t second = now / 1000;
    rate_slot *r = NULL, *old = &sv->rates[0];
    for (int i = 0; i < RATE_SLOTS && !r; i++) {
        if (sv->rates[i].addr == addr && sv->rates[i].second)
            r = &sv->rates[i];
        else if (sv->rates[i].second < old->second)
            old = &sv->rates[i];
    }
    if (!r) {
        r = old;
        *r = (rate_slot){.addr = addr};
    }
    if (r->second != second) {
        r->second = second;
        r->count = 0;
    }
    return ++r->count <= sv->o->rate;
}

/* The checks every request passes before its handler: 0, or the status
 * set on c. */
static int refuse(server *sv, conn *c, int status, bool post, int64_t now)
{
    char host[80];
    const int has_host = http_request_host(c->head, c->need, host, sizeof host);
    if (status == 400) {
        set_status(c, 400, NULL, NULL);
    } else if (has_host != 1) {
        set_status(c, 400, NULL, "one Host header is required");
    } else if (!host_ok(sv, host)) {
        char why[160];
        snprintf(why, sizeof why, "this server answers only Host %s", sv->host[0]);
        set_status(c, 403, NULL, why);
    } else if (sv->o->check_origin &&
               http_request_header(c->head, c->need, "origin", host, sizeof host) != 0 &&
               (http_request_header(c->head, c->need, "origin", host, sizeof host) != 1 ||
                (strcmp(host, sv->origin[0]) && strcmp(host, sv->origin[1])))) {
        set_status(c, 403, NULL, "a request from another site (Origin)");
    } else if (!rate_ok(sv, c->addr, now)) {
        set_status(c, 429, "Retry-After: 1\r\n", NULL);
    } else if (status == 405 || (post && !sv->o->post)) {
        set_status(c, 405, sv->o->post ? "Allow: GET, POST\r\n" : "Allow: GET\r\n", NULL);
    } else if (status == 403) {
        set_status(c, 403, NULL, NULL);
    } else {
        return 0;
    }
    return -1;
}

/* The request is whole (c->need bytes): set the answer. */
static void answer(server *sv, conn *c, int64_t now)
{
    char path[PATH_MAX], query[1024];
    int post;
    const int status = http_request_line(c->head, c->need, &post, path, sizeof path, query,
                                         sizeof query);
    if (refuse(sv, c, status, post, now) == 0) {
        const size_t head_len = c->hend;
        serve_request rq = {.post = post, .path = path, .query = query, .head = c->head,
                            .head_len = head_len,
                            .body = (const unsigned char *)c->head + head_len,
                            .body_len = c->need - head_len};
        serve_reply rp = {.status = 404, .fd = -1};
        sv->o->handle(sv->o->user, &rq, &rp);
        if (!rp.type)
            rp.type = "application/octet-stream";
        off_t size = (off_t)rp.len;
        struct stat sb;
        if (rp.fd >= 0 && fstat(rp.fd, &sb) == 0)
            size = sb.st_size;
        const int n = snprintf(c->out, sizeof c->out,
                               "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: "
                               "%lld\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
                               rp.status, reason(rp.status), rp.type, (long long)size);
        c->out_len = (size_t)n;
        c->file = rp.fd;
        c->body = rp.body;
        c->size = size;
    }
    free(c->head);
    c->head = NULL;
}

/* The head is whole in c->head[0..end): the request's length, or 0 with
 * a status set on c (a body refused). */
static size_t request_length(const server *sv, conn *c, size_t end)
{
    if (!sv->o->post || strncmp(c->head, "POST ", 5) != 0)
        return end;
    size_t len;
    const int status = http_content_length(c->head, end, sv->o->body_max, &len);
    if (status == 0)
        return end + len;
    char why[64];
    if (status == 413)
        snprintf(why, sizeof why, "a body of at most %zu bytes", sv->o->body_max);
    set_status(c, status, NULL,
               status == 501   ? "no Transfer-Encoding: send a Content-Length"
               : status == 411 ? "one Content-Length header is required"
                               : why);
    return 0;
}

/* The end of the head in c->head (new bytes from `from`), or 0. */
static size_t head_end(const conn *c, size_t from)
{
    const char *h = c->head + from;
    const size_t n = c->got - from;
    const char *crlf = memmem(h, n, "\r\n\r\n", 4), *lf = memmem(h, n, "\n\n", 2);
    if (crlf && (!lf || crlf < lf))
        return (size_t)(crlf - c->head) + 4;
    return lf ? (size_t)(lf - c->head) + 2 : 0;
}

static void on_read(server *sv, conn *c, int64_t now)
{
    for (;;) {
        const ssize_t k = recv(c->fd, c->head + c->got, c->cap - c->got, 0);
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
        size_t end;
        if (!c->need && (end = head_end(c, from)) != 0) {
            c->hend = end;
            c->need = request_length(sv, c, end);
            if (!c->need) {
                free(c->head);
                c->head = NULL;
                c->deadline = now + IDLE_MS;
                return;
            }
            if (c->need > c->cap) {
                char *h = realloc(c->head, c->need + 1);
                if (!h) {
                    drop(c);
                    return;
                }
                c->head = h;
                c->cap = c->need;
            }
        }
        if (c->need && c->got >= c->need) {
            answer(sv, c, now);
        } else if (!c->need && c->got == c->cap) {
            set_status(c, 431, NULL, NULL);
            free(c->head);
            c->head = NULL;
        } else {
            continue;
        }
        c->deadline = now + IDLE_MS;
        return;
    }
}

/* Send what is left of c's answer (returns 1 while the socket is full). */
static int send_body(conn *c, int64_t now, char *buf)
{
    while (c->off < c->size) {
        const off_t left = c->size - c->off;
        const char *p = c->body ? (const char *)c->body + c->off : buf;
        ssize_t r = left < SEND_BUF ? (ssize_t)left : SEND_BUF;
        if (!c->body) {
            r = pread(c->file, buf, (size_t)r, c->off);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                return 0; /* the file shrank: the client sees a short body */
            p = buf;
        }
        const ssize_t k = send(c->fd, p, (size_t)r, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 1;
        if (k <= 0)
            return 0;
        c->off += k;
        c->deadline = now + IDLE_MS;
    }
    return 0;
}

static void on_write(conn *c, int64_t now, char *buf)
{
    while (c->out_sent < c->out_len) {
        const ssize_t k = send(c->fd, c->out + c->out_sent, c->out_len - c->out_sent, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (k <= 0) {
            drop(c);
            return;
        }
        c->out_sent += (size_t)k;
        c->deadline = now + IDLE_MS;
    }
    if ((c->file >= 0 || c->body) && send_body(c, now, buf))
        return;
    drop(c); /* answered, or the client is gone */
}

/* The slot for a new connection from addr: a free one, else the slot of
 * the oldest connection still reading its request (from addr when addr
 * has its share), else of the oldest; its connection is dropped. */
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
        c->cap = REQUEST_MAX;
        c->fd = fd;
        c->addr = addr;
        c->seq = (*seq)++;
        c->deadline = now + HEAD_MS;
    }
}

/* The listening socket on 127.0.0.1:port (dies when it cannot be). */
static int listen_on(unsigned port, unsigned *taken)
{
    const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0)
        die(EXIT_RUNTIME, "cannot open a socket: %s", strerror(errno));
    const int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    if (bind(s, (struct sockaddr *)&a, sizeof a) != 0)
        die(EXIT_RUNTIME, "--port %u: cannot listen on 127.0.0.1:%u: %s%s", port, port,
            strerror(errno),
            errno == EADDRINUSE ? " (another program uses it; choose another, or 0 for any)"
                                : "");
    socklen_t len = sizeof a;
    if (listen(s, 128) != 0 || getsockname(s, (struct sockaddr *)&a, &len) != 0)
        die(EXIT_RUNTIME, "cannot listen on 127.0.0.1: %s", strerror(errno));
    *taken = ntohs(a.sin_port);
    return s;
}

/* One turn of the loop: poll the sockets, serve what is ready. */
static void turn(server *sv, int s, struct pollfd *p, int *which, char *buf, uint64_t *seq)
{
    int64_t now = now_ms(), wait = -1;
    int np = 1;
    p[0] = (struct pollfd){.fd = s, .events = POLLIN};
    for (int i = 0; i < sv->cap; i++) {
        const conn *c = &sv->t[i];
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
            return;
        die(EXIT_RUNTIME, "poll: %s", strerror(errno));
    }
    now = now_ms();
    for (int k = 1; k < np; k++) {
        conn *c = &sv->t[which[k]];
        if (p[k].revents) {
            if (c->head)
                on_read(sv, c, now);
            else
                on_write(c, now, buf);
        }
        if (c->fd >= 0 && now >= c->deadline)
            drop(c); /* a request not whole in time, or an answer not taken */
    }
    if (p[0].revents & POLLIN)
        accept_all(sv, s, now, seq);
}

void serve_run(const serve_options *o)
{
    server sv = {.o = o};
    const int s = listen_on(o->port, &sv.port);
    for (int i = 0; i < 2; i++) {
        snprintf(sv.host[i], sizeof sv.host[i], "%s:%u", i ? "localhost" : "127.0.0.1", sv.port);
        snprintf(sv.origin[i], sizeof sv.origin[i], "http://%s", sv.host[i]);
    }
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
    if (o->ready)
        o->ready(o->user, sv.port);
    uint64_t seq = 0;
    while (!o->stop || !o->stop())
        turn(&sv, s, p, which, buf, &seq);
    for (int i = 0; i < sv.cap; i++)
        if (sv.t[i].fd >= 0)
            drop(&sv.t[i]);
    close(s);
    free(sv.t);
    free(p);
    free(which);
    free(buf);
}
