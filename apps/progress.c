/* The progress bar and Ctrl-C handling of the strata program. */
#define _POSIX_C_SOURCE 200809L

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "progress.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------ Ctrl-C */

static strata_ctx *volatile g_ctx;
static volatile sig_atomic_t g_interrupted; /* the first signal's number */

/* SIGINT, SIGTERM, SIGHUP: the first one cancels the running library call
 * (it stops with STRATA_ERR_CANCELLED at its next check, removing its
 * temporary files, and the program exits 128 + the signal).  A second
 * one removes the temporary files being written and ends the process at
 * once, by that signal. */
static void on_signal(int sig)
{
    if (g_interrupted) {
        strata_remove_temporaries();
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    g_interrupted = sig;
    strata_ctx *ctx = g_ctx;
    if (ctx)
        strata_ctx_cancel(ctx);
}

/* SIGQUIT (Ctrl-\\): end at once, as asked (with a core dump where that is
 * on), but without the temporary files being written. */
static void on_quit(int sig)
{
    strata_remove_temporaries();
    signal(sig, SIG_DFL);
    raise(sig);
}

void interrupt_catch(void)
{
    struct sigaction q;
    if (sigaction(SIGQUIT, NULL, &q) == 0 && q.sa_handler != SIG_IGN) {
        memset(&q, 0, sizeof q);
        q.sa_handler = on_quit;
        sigemptyset(&q.sa_mask);
        sigaction(SIGQUIT, &q, NULL);
    }
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, old;
        /* one ignored on entry (SIGINT of a background job) stays so */
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < sizeof sigs / sizeof sigs[0]; j++)
            sigaddset(&sa.sa_mask, sigs[j]); /* one handler at a time */
        sigaction(sigs[i], &sa, NULL);
    }
}

void interrupt_watch(strata_ctx *ctx) { g_ctx = ctx; }

int interrupt_status(void) { return g_interrupted ? 128 + g_interrupted : 0; }

const char *interrupt_name(void)
{
    return g_interrupted == SIGTERM  ? "terminated (SIGTERM)"
           : g_interrupted == SIGHUP ? "hung up (SIGHUP)"
                                     : "interrupted";
}

bool interrupted(void) { return g_interrupted != 0; }

/* ------------------------------------------------------------ progress bar */

/* A one-line bar on stderr when it is a terminal (and not --quiet),
 * redrawn in place with '\r': stage, bar, percent, seconds since the start.
 * Drawn only once a run has taken PROGRESS_DELAY seconds (short runs stay
 * silent), then at most every PROGRESS_PERIOD seconds or when the stage
 * changes, and erased before any other message. */
#define PROGRESS_DELAY 0.25
#define PROGRESS_PERIOD 0.1
#define PROGRESS_BAR 24

static struct {
    bool on;           /* stderr is a terminal and the bar is wanted */
    double start;      /* when the run started */
    double last;       /* when the line was last drawn */
    const char *stage; /* the stage last drawn, NULL before the first */
    int width;         /* characters of the line on screen, 0: none */
} g_bar;

void progress_clear(void)
{
    /* After Ctrl-C the terminal has echoed "^C" after the bar: keep both
     * and end the line rather than leave the echo beside the message. */
    if (g_bar.width > 0 && g_interrupted)
        fputc('\n', stderr);
    else if (g_bar.width > 0)
        fprintf(stderr, "\r%*s\r", g_bar.width, "");
    g_bar.width = 0;
}

void progress_draw(const char *stage, double done)
{
    const double t = now();
    if (!g_bar.on || t - g_bar.start < PROGRESS_DELAY)
        return;
    if (g_bar.stage && !strcmp(stage, g_bar.stage) && t - g_bar.last < PROGRESS_PERIOD)
        return;
    g_bar.stage = stage;
    g_bar.last = t;
    char bar[PROGRESS_BAR + 1];
    const int fill = (int)(PROGRESS_BAR * (done < 1 ? done : 1) + 0.5);
    memset(bar, '#', (size_t)fill);
    memset(bar + fill, '.', (size_t)(PROGRESS_BAR - fill));
    bar[PROGRESS_BAR] = '\0';
    char pct[8];
    snprintf(pct, sizeof pct, "%3d%%", (int)(100 * (done < 1 ? done : 1)));
    const int n = fprintf(stderr, "\rstrata: %-10s [%s] %4s %6.1fs", stage, bar, pct,
                          t - g_bar.start);
    if (n > 1)
        g_bar.width = n - 1; /* without the '\r' */
}

/* The library's progress callback (called from the calling thread only):
 * draws the bar, and a non-zero return after Ctrl-C cancels the run. */
static double (*g_share)(void);

void progress_share(double (*share)(void))
{
    g_share = share;
}

static int on_progress(void *user, const char *stage, double done)
{
    (void)user;
    if (g_interrupted)
        return 1;
    if (g_share && strcmp(stage, "chunks") == 0)
        done = g_share();
    progress_draw(stage, done);
    return 0;
}

void progress_start(strata_ctx *ctx, bool quiet)
{
    g_bar.on = !quiet && isatty(STDERR_FILENO);
    g_bar.start = now();
    g_bar.stage = NULL;
    strata_ctx_set_progress(ctx, on_progress, NULL);
}
