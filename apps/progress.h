/* The progress bar on stderr and Ctrl-C (SIGINT) handling of the strata
 * program.  Both work through the library's context: the bar is drawn
 * by its progress callback, and Ctrl-C cancels the running call. */
#ifndef STRATA_APPS_PROGRESS_H
#define STRATA_APPS_PROGRESS_H

#include "strata.h"

#include <stdbool.h>

/* Seconds on a monotonic clock. */
double now(void);

/* Catch SIGINT, SIGTERM and SIGHUP, each unless it is ignored on entry
 * (SIGINT of a background job of a script): the first one sets
 * interrupted() and cancels the calls on the context being watched; a
 * second one removes the temporary files being written and ends the
 * process by that signal.  SIGQUIT does that at once. */
void interrupt_catch(void);
/* The context a signal cancels; NULL (before it is destroyed): none. */
void interrupt_watch(strata_ctx *ctx);
/* A signal arrived. */
bool interrupted(void);
/* The exit status for it (128 + its number: 130 for Ctrl-C), 0 before
 * any, and what to say ("interrupted", "terminated (SIGTERM)", ...). */
int interrupt_status(void);
const char *interrupt_name(void);

/* Install the progress callback on ctx and start the clock.  The bar is
 * drawn only when stderr is a terminal and quiet is false, once the run
 * has taken a quarter of a second. */
void progress_start(strata_ctx *ctx, bool quiet);
/* With share set, the bar of the stage "chunks" shows share() instead of
 * the library's figure (the ranks of an MPI run: the share of the whole
 * world's chunks handed out, not of this rank's).  NULL: the library's. */
void progress_share(double (*share)(void));
/* Draw stage with the share done in [0, 1]. */
void progress_draw(const char *stage, double done);
/* Erase the bar (before any other message on stderr). */
void progress_clear(void);

#endif
