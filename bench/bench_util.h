/* Shared by the bench harnesses: a monotonic clock, a comparator for
 * medians, and the list of models to run (the shared corpus when present,
 * else examples/). */
#ifndef SY_BENCH_UTIL_H
#define SY_BENCH_UTIL_H
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* nanoseconds of CLOCK_MONOTONIC */
static inline double bench_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* qsort comparator over doubles, ascending */
static inline int bench_cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline int bench_cmps(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Fills names[0..max) with the model file names (*.json but not
 * *.probes.json), sorted, of the first of SY_SHARED_CORPUS and SY_EXAMPLES
 * that has any, and *dir with that folder. Returns the count; the caller
 * frees each name. */
static inline int bench_models(const char **dir, char **names, int max)
{
    const char *dirs[2] = {SY_SHARED_CORPUS, SY_EXAMPLES};
    for (int d = 0; d < 2; d++) {
        DIR *dh = opendir(dirs[d]);
        if (!dh) continue;
        struct dirent *de;
        int n = 0;
        while ((de = readdir(dh)) && n < max) {
            size_t l = strlen(de->d_name);
            if (l > 5 && !strcmp(de->d_name + l - 5, ".json") && !strstr(de->d_name, ".probes.")) names[n++] = strdup(de->d_name);
        }
        closedir(dh);
        if (n) {
            qsort(names, (size_t)n, sizeof *names, bench_cmps);
            *dir = dirs[d];
            return n;
        }
    }
    return 0;
}
#endif
