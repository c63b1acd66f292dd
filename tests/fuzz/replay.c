/* main() of the harnesses when they are not libFuzzer programs: run
 * LLVMFuzzerTestOneInput once on each file named, or on each file of each
 * directory named (in name order, dot files skipped).  Every input gets a
 * buffer of exactly its size, so a sanitizer build catches reads past it.
 * Prints each file before running it (the last one printed is the one
 * that crashed); exit 0, or 1 when an argument cannot be read or names no
 * input at all.  Arguments starting with '-' (libFuzzer's options) are
 * ignored. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Run one file: 1, or -1 when it cannot be read. */
static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    struct stat sb;
    if (!f || fstat(fileno(f), &sb) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        if (f)
            fclose(f);
        return -1;
    }
    const size_t size = (size_t)sb.st_size;
    uint8_t *data = malloc(size ? size : 1);
    if (!data || fread(data, 1, size, f) != size) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        free(data);
        fclose(f);
        return -1;
    }
    fclose(f);
    printf("%s\n", path);
    fflush(stdout);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files of a directory; returns how many were run, -1 on an error. */
static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *names);
            FUZZ_REQUIRE(grown != NULL);
            names = grown;
        }
        const size_t len = strlen(dir) + 1 + strlen(e->d_name) + 1;
        FUZZ_REQUIRE((names[n] = malloc(len)) != NULL);
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    int ran = 0;
    for (size_t i = 0; i < n; i++) {
        if (ran >= 0)
            ran = run_file(names[i]) < 0 ? -1 : ran + 1;
        free(names[i]);
    }
    free(names);
    return ran;
}

int main(int argc, char **argv)
{
    long total = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-')
            continue;
        struct stat sb;
        const int r = stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode) ? run_dir(argv[i])
                                                                      : run_file(argv[i]);
        if (r < 0)
            return 1;
        total += r;
    }
    printf("%ld inputs\n", total);
    return total > 0 ? 0 : 1;
}
