/* The graph loader against jansson, by instructions (issue 14: the loader
 * adds at most 10% on top of jansson's json_load_file). For every model
 * file given, one warm-up of each loader (so that first-call costs such as
 * lazy binding and heap growth fall outside), then bench_load_jansson (REPS
 * calls of json_load_file(path, 0, &err)) and bench_load_ours (REPS calls of
 * sy_graph_load_file into a context created outside), each result freed
 * outside the measured function, and malloc_trim between them. Run under
 * callgrind, the inclusive Ir of those two functions divided by REPS are the
 * figures: bench/loader_ir.sh does that and prints them side by side.
 *
 *   ./build/bench/bench_load [--reps N] [--rounds K] [--no-trim] [--cold jansson|ours] MODEL.json...
 * It prints, per model, the minimum wall time per call of each loader over
 * K rounds (default 7) that interleave the two loaders, and the overhead;
 * under callgrind pass --rounds 1. --no-trim: no malloc_trim between the
 * loaders. --cold NAME: only one call of that loader (jansson or ours), the
 * first of the process, no warm-up (as the CLI loads a model); it prints
 * that call's thread CPU time. */
#include <jansson.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symshape/symshape.h"
#include "bench_util.h"

#define MAXR 1024

/* noinline: callgrind must see these as functions of their own */
__attribute__((noinline)) static int bench_load_jansson(const char *path, int reps, json_t **out)
{
    json_error_t err;
    for (int r = 0; r < reps; r++)
        if (!(out[r] = json_load_file(path, 0, &err))) return -1;
    return 0;
}

__attribute__((noinline)) static int bench_load_ours(sy_ctx *ctx, const char *path, int reps, sy_graph **out)
{
    for (int r = 0; r < reps; r++)
        if (sy_graph_load_file(ctx, path, &out[r]) != SY_OK) return -1;
    return 0;
}

static int trim = 1, only = -1; /* only: 0 jansson, 1 ours, -1 both */

static void free_all(json_t **js, sy_graph **gs, int reps)
{
    for (int r = 0; r < reps; r++) {
        if (js[r]) json_decref(js[r]);
        js[r] = NULL;
        gs[r] = sy_graph_free(gs[r]);
    }
    /* glibc keeps small freed chunks in fastbins and merges them all at the
     * next large request (malloc_consolidate): without this, whichever
     * loader runs after the other's frees pays for them (~0.9M Ir on
     * resnet50), which a fresh process (the CLI) does not */
    if (trim) malloc_trim(0);
}

int main(int argc, char **argv)
{
    int reps = 1, rounds = 7, a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (!strcmp(argv[a], "--reps") && a + 1 < argc) reps = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--rounds") && a + 1 < argc) rounds = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--no-trim")) trim = 0;
        else if (!strcmp(argv[a], "--cold") && a + 1 < argc) only = !strcmp(argv[++a], "ours");
        else break;
    }
    if (reps < 1 || reps > MAXR || rounds < 1 || a >= argc) {
        fprintf(stderr, "usage: bench_load [--reps N (1..%d)] [--rounds K] [--no-trim] [--cold jansson|ours] MODEL.json...\n", MAXR);
        return 2;
    }
    static json_t *js[MAXR];
    static sy_graph *gs[MAXR];
    sy_ctx *ctx;
    if (sy_ctx_new(NULL, &ctx) != SY_OK) return 1;
    int rc = 0;
    for (; a < argc; a++) {
        const char *path = argv[a];
        if (only >= 0) { /* cold: this loader's first call in the process, nothing else */
            struct timespec c0, c1;
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
            int bad = only ? bench_load_ours(ctx, path, 1, gs) : bench_load_jansson(path, 1, js);
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
            free_all(js, gs, 1);
            /* the call's thread CPU time (bench_peer's cold table reads it) */
            printf("%s\tcold_%s_ms=%.4f\n", path, only ? "loader" : "jansson",
                   ((double)(c1.tv_sec - c0.tv_sec) * 1e9 + (double)(c1.tv_nsec - c0.tv_nsec)) * 1e-6);
            if (bad) rc = 1;
            continue;
        }
        /* the warm-up, outside the measured functions */
        json_error_t err;
        js[0] = json_load_file(path, 0, &err);
        if (!js[0] || sy_graph_load_file(ctx, path, &gs[0]) != SY_OK) {
            fprintf(stderr, "%s: %s\n", path, js[0] ? sy_ctx_last_error_msg(ctx) : err.text);
            free_all(js, gs, 1);
            rc = 1;
            continue;
        }
        free_all(js, gs, 1);
        /* rounds interleave the two loaders; the minimum per loader */
        double best[2] = {1e300, 1e300};
        for (int round = 0; round < rounds && !rc; round++) {
            for (int which = 0; which < 2; which++) {
                double t0 = bench_now_ns();
                int bad = which ? bench_load_ours(ctx, path, reps, gs) : bench_load_jansson(path, reps, js);
                double t1 = bench_now_ns();
                free_all(js, gs, reps);
                if (bad) {
                    fprintf(stderr, "%s: a loader failed after the warm-up\n", path);
                    rc = 1;
                    break;
                }
                if ((t1 - t0) / reps < best[which]) best[which] = (t1 - t0) / reps;
            }
        }
        if (!rc)
            printf("%s\tjansson_ms=%.3f\tloader_ms=%.3f\toverhead=%.1f%%\n", path, best[0] * 1e-6, best[1] * 1e-6,
                   (best[1] / best[0] - 1) * 100);
    }
    sy_ctx_free(ctx);
    return rc;
}
