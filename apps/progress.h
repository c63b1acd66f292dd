/* The progress bar on stderr and Ctrl-C (SIGINT) handling of the strata
 * program.  Both work through the library's context: the bar is drawn
 * by its progress callback, and Ctrl-C cancels the running call. */
#ifndef STRATA_APPS_PROGRESS_H
#define STRATA_APPS_PROGRESS_H

#include "strata.h"

#include <stdbool.h>

/* Seconds on a monotonic clock. */
double now(void);

/* Catch SIGINT, unless it is ignored on entry (a background job of a
 * script): the first one sets interrupted() and cancels the calls on the
 * context being watched; a second one kills at once. */
void interrupt_catch(void);
/* The context a SIGINT cancels; NULL (before it is destroyed): none. */
void interrupt_watch(strata_ctx *ctx);
/* A SIGINT arrived. */
bool interrupted(void);

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
