/* strata bench: the benchmark (apps/bench.c) and what it makes of its own
 * measurement lines (apps/bench_report.c). */
#ifndef STRATA_APPS_BENCH_H
#define STRATA_APPS_BENCH_H

#include <stdio.h>

typedef enum bench_format {
    BENCH_LINES,   /* key=value lines, as measured */
    BENCH_SUMMARY, /* tables a person reads */
    BENCH_JSON     /* the lines as one JSON document */
} bench_format;

/* The benchmark: arguments as `strata bench --help` lists them (argv[0]
 * the command's name).  command: 1 for `strata bench` (summary by
 * default, its planet child run as `strata bench --planet-child`), 0 for
 * perf/strata-bench (lines by default).  Exits 1 on a failure, 2 on bad
 * arguments; returns 0. */
int bench_main(int argc, char **argv, int command);

/* The reports of a run's lines (text: whole lines, each a tag word and
 * key=value words, as bench_main prints them with --lines). */
void bench_summary(const char *text, FILE *out);
void bench_json(const char *text, FILE *out);
/* An SVG chart: each stage's speedup over the fewest threads measured, at
 * the machine's default instruction set (else the first measured),
 * against the thread count, with the ideal (linear) line; each stage's
 * polyline carries its figures in data-stage, data-case, data-threads and
 * data-speedups. */
void bench_chart(const char *text, FILE *out);

#endif
