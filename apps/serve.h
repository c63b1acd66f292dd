/* The local HTTP server of 'strata view' (apps/view.c) and 'strata
 * sculpt' (apps/sculpt.c): one poll loop on 127.0.0.1, a fixed table of
 * connections, a deadline on every request head, the Host header
 * checked, one request per connection; what a request gets is the
 * caller's handler's answer (apps/serve.c says how the limits work). */
#ifndef STRATA_APPS_SERVE_H
#define STRATA_APPS_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A request whose head passed the server's checks: the method, the path
 * (percent-decoded and checked by apps/http.c), the raw query, and for a
 * POST its body (Content-Length bytes, at most serve_options.body_max). */
typedef struct serve_request {
    bool post;
    const char *path;
    const char *query;
    const char *head; /* the head as received, for other headers */
    size_t head_len;
    const unsigned char *body;
    size_t body_len;
} serve_request;

/* The handler's answer: a status and either an open file (fd >= 0,
 * closed by the server once sent) or body[0..len) (malloc'ed, freed by
 * the server); type its Content-Type (a static string). */
typedef struct serve_reply {
    int status;
    const char *type;
    int fd;
    unsigned char *body;
    size_t len;
} serve_reply;

typedef struct serve_options {
    unsigned port;  /* 0: any free one */
    /* POST requests taken (else 405, GET only), with bodies of at most
     * body_max bytes (else 413) */
    bool post;
    size_t body_max;
    /* an Origin header, when present, must be this server's
     * (http://127.0.0.1:PORT or http://localhost:PORT), else 403 */
    bool check_origin;
    /* requests a second from one client address (0: no bound); past it
     * 429 */
    unsigned rate;
    void (*handle)(void *user, const serve_request *rq, serve_reply *rp);
    void *user;
    /* called once listening, with the port taken */
    void (*ready)(void *user, unsigned port);
    /* NULL, or true when serving must end (checked after every turn of
     * the loop: a caught signal interrupts its poll) */
    bool (*stop)(void);
} serve_options;

/* Listen on 127.0.0.1 and serve until killed or o->stop() (dies on a
 * failure to listen, naming --port). */
void serve_run(const serve_options *o);

/* A reply with a short text body "STATUS REASON: detail\n". */
void serve_text(serve_reply *rp, int status, const char *detail);

#endif
