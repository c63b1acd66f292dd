/* Messages and exit statuses of the strata program. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "fail.h"
#include "progress.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    progress_clear(); /* a message on a line of its own, not after the bar */
    fputs("strata: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

/* What kind of file st is, when not a regular file or a directory. */
static const char *special_kind(const struct stat *sb)
{
    return S_ISFIFO(sb->st_mode)                            ? "a FIFO"
           : S_ISSOCK(sb->st_mode)                          ? "a socket"
           : S_ISCHR(sb->st_mode) || S_ISBLK(sb->st_mode) ? "a device"
                                                            : "not a regular file";
}

/* Why an input file that the library found valid but did not take cannot
 * be read, from its first bytes: a PNG of colours (the library says only
 * "unsupported") or interlaced.  NULL when there is nothing to add. */
static const char *input_why(const char *path, strata_status st, int err, char *buf,
                             size_t size)
{
#ifdef ENODATA
    if (st == STRATA_ERR_FORMAT && err == ENODATA)
        return "every sample is nodata: there is no height in it";
#endif
    if (st != STRATA_ERR_UNSUPPORTED && st != STRATA_ERR_FORMAT)
        return NULL;
    unsigned char h[29];
    FILE *f = fopen(path, "rb");
    const size_t n = f ? fread(h, 1, sizeof h, f) : 0;
    if (f)
        fclose(f);
    if (n < sizeof h || memcmp(h, "\x89PNG\r\n\x1a\n", 8) || memcmp(h + 12, "IHDR", 4))
        return NULL;
    static const char *const types[7] = {NULL, NULL, "an RGB", "a palette", NULL, NULL,
                                         "an RGBA"};
    const unsigned type = h[25];
    if (type < 7 && types[type]) {
        snprintf(buf, size,
                 "%s PNG (colour type %u): heightmaps are greyscale PNGs (8 or 16 bits, with or "
                 "without alpha); convert it first, e.g. 'gdal_translate -b 1' or ImageMagick's "
                 "'-colorspace Gray'",
                 types[type], type);
        return buf;
    }
    if (h[28] == 1)
        return "an interlaced (Adam7) PNG, which is read only whole: within the sizes of a "
               "heightmap held in memory, or written again without interlacing";
    return NULL;
}

void check_call(strata_status st, call c)
{
    const int err = errno; /* as the failed call left it */
    if (st == STRATA_OK)
        return;
    if (st == STRATA_ERR_CANCELLED || interrupted())
        die(interrupted() ? interrupt_status() : EXIT_INTERRUPTED, "%s", interrupt_name());
    const char *why = st == STRATA_ERR_IO ? strerror(err) : c.why ? c.why : strata_status_str(st);
    struct stat sb;
    if (st == STRATA_ERR_IO && c.write && err == EINVAL && c.path && stat(c.path, &sb) == 0 &&
        !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
        why = "not a regular file (outputs are written whole and renamed into place)";
    char buf[320], kind[160];
    if (!c.write && c.path && st == STRATA_ERR_IO && err == EINVAL && stat(c.path, &sb) == 0 &&
        !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
        snprintf(kind, sizeof kind,
                 "%s, not a regular file: inputs are read from files (copy it into one first)",
                 special_kind(&sb));
        why = kind;
    }
    const char *more = !c.write && c.path && !c.why ? input_why(c.path, st, err, buf, sizeof buf)
                                                   : NULL;
    if (more)
        why = more;
    if (!c.path)
        die(EXIT_RUNTIME, "%s: %s", c.what, why);
    if (c.write)
        die(EXIT_RUNTIME, "cannot write '%s': %s", c.path, why);
    if (st == STRATA_ERR_IO)
        die(EXIT_RUNTIME, "cannot read %s '%s': %s", c.what, c.path, why);
    die(EXIT_RUNTIME, "%s '%s': %s", c.what, c.path, why);
}

void check_interrupt(void)
{
    if (interrupted())
        die(interrupt_status(), "%s", interrupt_name());
}
