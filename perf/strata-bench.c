/* perf/strata-bench: `strata bench --lines` as a program of its own, so
 * perf/against.sh can run the same benchmark from any build, old or new.
 * One implementation: apps/bench.c. */
#include "../apps/bench.h"

int main(int argc, char **argv)
{
    return bench_main(argc, argv, 0);
}
