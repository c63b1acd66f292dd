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
