/* The request line of 'strata view': see http.h. */
#include "http.h"

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
 * bad escape, a NUL or backslash, a "." or ".." segment or a path too
 * long. */
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
        if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
    }
    return 1;
}

int http_request_path(const char *req, size_t n, char *path, size_t cap)
{
    char method[16], url[4096], version[16];
    size_t i = 0;
    if (cap == 0 || !word(req, n, &i, method, sizeof method) ||
        !word(req, n, &i, url, sizeof url) || !word(req, n, &i, version, sizeof version) ||
        strncmp(version, "HTTP/", 5) != 0)
        return 400;
    if (strcmp(method, "GET") != 0)
        return 405;
    if (!decode_path(url, path, cap)) {
        path[0] = '\0';
        return 403;
    }
    return 200;
}
