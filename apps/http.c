/* The request head of 'strata view' and 'strata sculpt': see http.h. */
#include "http.h"

#include <stdlib.h>
#include <string.h>

static int hex(int c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The next space-delimited word of s[*i..n) into w[0..cap): its length,
 * or 0 when there is none or it does not fit. */
static size_t word(const char *s, size_t n, size_t *i, char *w, size_t cap)
{
    while (*i < n && s[*i] == ' ')
        (*i)++;
    size_t k = 0;
    while (*i < n && s[*i] != ' ' && s[*i] != '\r' && s[*i] != '\n' && s[*i] != '\0') {
        if (k + 1 >= cap)
            return 0;
        w[k++] = s[(*i)++];
    }
    w[k] = '\0';
    return k;
}

/* The URL path (up to '?' or '#') percent-decoded into out; false for a
 * bad escape, a NUL or backslash, a segment starting with '.' (".", "..",
 * and dotfiles such as ".git" or ".env") or a path too long. */
static int decode_path(const char *url, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *s = url; *s && *s != '?' && *s != '#'; s++) {
        int c = (unsigned char)*s;
        if (c == '%') {
            const int hi = hex(s[1]), lo = hi < 0 ? -1 : hex(s[2]);
            if (lo < 0)
                return 0;
            c = hi * 16 + lo;
            s += 2;
        }
        if (c == 0 || c == '\\' || n + 1 >= cap)
            return 0;
        out[n++] = (char)c;
    }
    out[n] = '\0';
    if (out[0] != '/')
        return 0;
    for (const char *seg = out; seg; seg = strchr(seg + 1, '/')) {
        const char *p = seg + 1;
        const size_t len = strcspn(p, "/");
        if (len > 0 && p[0] == '.')
            return 0;
    }
    return 1;
}

/* The query of url (after '?', up to '#'), as it is, into q[0..cap);
 * false when it does not fit. */
static int copy_query(const char *url, char *q, size_t cap)
{
    const char *s = strchr(url, '?');
    const char *hash = strchr(url, '#');
    size_t len = 0;
    if (s && (!hash || s < hash)) {
        s++;
        len = hash ? (size_t)(hash - s) : strlen(s);
    }
    if (len >= cap)
        return 0;
    if (len)
        memcpy(q, s, len);
    q[len] = '\0';
    return 1;
}

int http_request_line(const char *req, size_t n, int *post, char *path, size_t cap, char *query,
                      size_t qcap)
{
    char method[16], url[4096], version[16];
    size_t i = 0;
    *post = 0;
    if (cap == 0 || qcap == 0 || !word(req, n, &i, method, sizeof method) ||
        !word(req, n, &i, url, sizeof url) || !word(req, n, &i, version, sizeof version) ||
        strncmp(version, "HTTP/", 5) != 0)
        return 400;
    *post = !strcmp(method, "POST");
    if (strcmp(method, "GET") != 0 && !*post)
        return 405;
    if (!decode_path(url, path, cap) || !copy_query(url, query, qcap)) {
        path[0] = query[0] = '\0';
        return 403;
    }
    return 200;
}

int http_request_path(const char *req, size_t n, char *path, size_t cap)
{
    char query[4096];
    int post;
    const int st = http_request_line(req, n, &post, path, cap, query, sizeof query);
    return st != 400 && post ? 405 : st;
}

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

int http_request_header(const char *req, size_t n, const char *name, char *host, size_t cap)
{
    int found = 0;
    if (cap == 0)
        return -1;
    host[0] = '\0';
    /* past the request line */
    size_t i = 0;
    while (i < n && req[i] != '\n')
        i++;
    while (++i < n) {
        size_t end = i;
        while (end < n && req[end] != '\n')
            end++;
        size_t stop = end; /* the line is req[i..stop) without its CR */
        if (stop > i && req[stop - 1] == '\r')
            stop--;
        if (stop == i)
            break; /* the empty line ending the head */
        if (req[i] == ' ' || req[i] == '\t')
            return -1; /* a folded line: obsolete, and a way to smuggle a header */
        const size_t len = strlen(name);
        size_t k = 0;
        while (k < len && i + k < stop && lower((unsigned char)req[i + k]) == lower(name[k]))
            k++;
        if (k == len && i + k < stop && req[i + k] == ':') {
            k++;
            size_t a = i + k, b = stop;
            while (a < b && (req[a] == ' ' || req[a] == '\t'))
                a++;
            while (b > a && (req[b - 1] == ' ' || req[b - 1] == '\t'))
                b--;
            if (found || a == b || b - a >= cap)
                return -1;
            for (size_t j = a; j < b; j++)
                if ((unsigned char)req[j] <= ' ' || (unsigned char)req[j] >= 127)
                    return -1;
            memcpy(host, req + a, b - a);
            host[b - a] = '\0';
            found = 1;
        }
        i = end;
    }
    return found;
}

int http_request_host(const char *req, size_t n, char *host, size_t cap)
{
    return http_request_header(req, n, "host", host, cap);
}

int http_content_length(const char *req, size_t n, size_t max, size_t *len)
{
    char v[32];
    if (http_request_header(req, n, "transfer-encoding", v, sizeof v) != 0)
        return 501;
    if (http_request_header(req, n, "content-length", v, sizeof v) != 1 || !v[0] ||
        strspn(v, "0123456789") != strlen(v) || strlen(v) > 15)
        return 411;
    const unsigned long long k = strtoull(v, NULL, 10);
    if (k > max)
        return 413;
    *len = (size_t)k;
    return 0;
}
