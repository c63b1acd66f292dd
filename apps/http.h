/* The request side of 'strata view' and 'strata sculpt' (apps/serve.c): one HTTP request
 * head, read from an untrusted client, checked and turned into a safe
 * path.  Apart from the server so that a fuzz harness can drive it
 * (tests/fuzz/fuzz_http.c). */
#ifndef STRATA_APPS_HTTP_H
#define STRATA_APPS_HTTP_H

#include <stddef.h>

/* The request head req[0..n) (NUL bytes included, not necessarily
 * terminated): "METHOD URL HTTP/x.y" then headers.  Returns the status to
 * answer: 200 with the URL's path in path[0..cap) (up to '?' or '#',
 * percent-decoded, starting with '/', without NUL or backslash bytes and
 * without a segment starting with '.': no "." or "..", no dotfile), 400 for a malformed request line, 405
 * for a method other than GET, 403 for a path refused (a bad escape, a
 * forbidden byte or segment, longer than cap - 1). */
int http_request_path(const char *req, size_t n, char *path, size_t cap);

/* The value of the Host header of the request head req[0..n) (the header
 * lines after the request line, up to the empty line or n; the name in any
 * case), blanks around it removed, into host[0..cap).  Returns 1 when
 * there is exactly one, 0 when there is none, -1 when there are several,
 * the value is empty, longer than cap - 1 or holds a byte that is not
 * visible ASCII, or a header line is folded (starts with a blank). */
/* http_request_path for servers that take POST too (apps/serve.c):
 * *post 1 for a POST (0 for a GET), and the URL's query (after '?', up
 * to '#', not decoded) in query[0..qcap); 403 also for a query longer
 * than qcap - 1. */
int http_request_line(const char *req, size_t n, int *post, char *path, size_t cap, char *query,
                      size_t qcap);

/* http_request_header with the name "host". */
int http_request_host(const char *req, size_t n, char *host, size_t cap);

/* The value of the header `name` (matched in any letter case) of the
 * request head req[0..n), as http_request_host says for Host. */
int http_request_header(const char *req, size_t n, const char *name, char *out, size_t cap);

/* The length of a POST's body from the request head req[0..n) (whole, up
 * to its empty line): 0 with *len set when there is exactly one
 * Content-Length header of decimal digits (at most 15) and its value is
 * at most max; else the status to answer: 501 for a Transfer-Encoding
 * header (bodies are sent with a length), 411 for no, several or a
 * malformed Content-Length, 413 for a length over max. */
int http_content_length(const char *req, size_t n, size_t max, size_t *len);

#endif
