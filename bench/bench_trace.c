/* Shape-environment benchmark: trace every corpus model (../shared/corpus,
 * else examples/) many times; print microseconds per trace and per node,
 * symbols, guards recorded and deduplicated, and the guard-set pipeline
 * (produce + minimize) time. Figures only: nothing is asserted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "symshape/symshape.h"
#include "bench_util.h"

/* Scaling in the number of inputs: N inputs of shape [2 + i % 50, 3], all
 * dims dynamic, so duck sizing joins them into large equality components
 * (the shape of a model with many KV-cache tensors). One run each. */
static void many_inputs(void)
{
    static const int ns[] = {100, 300, 1000};
    printf("\nmany inputs (duck-sized equalities): one trace + produce + minimize + JSON render\n");
    printf("%8s %8s %10s %12s %12s\n", "inputs", "guards", "trace ms", "minimize ms", "render ms");
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        int N = ns[k];
        size_t cap = (size_t)N * 120 + 256, len = 0;
        char *t = malloc(cap);
        len += (size_t)snprintf(t + len, cap - len, "{\"format\":\"symshape.graph\",\"version\":1,\"nodes\":[");
        for (int i = 0; i < N; i++)
            len += (size_t)snprintf(t + len, cap - len,
                                    "%s{\"name\":\"x%d\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[%d,3],\"dynamic\":[0,1]}",
                                    i ? "," : "", i, 2 + i % 50);
        len += (size_t)snprintf(t + len, cap - len, "],\"outputs\":[]}");
        sy_ctx *ctx;
        sy_graph *g;
        if (sy_ctx_new(NULL, &ctx) != SY_OK || sy_graph_load_text(ctx, t, len, "many.json", &g) != SY_OK) {
            printf("%8d setup failed\n", N);
            free(t);
            continue;
        }
        sy_env *env = sy_env_new(ctx, NULL);
        sy_trace *tr = NULL;
        sy_gset *gs = NULL;
        double t0 = bench_now_ns();
        int ok = sy_env_trace(env, g, 0, NULL, &tr) == SY_OK && sy_gset_produce(env, g, &gs) == SY_OK;
        double t1 = bench_now_ns();
        ok = ok && sy_gset_minimize(gs) == SY_OK;
        double t2 = bench_now_ns();
        char *js = ok ? sy_gset_to_json(gs) : NULL;
        double t3 = bench_now_ns();
        if (ok && js)
            printf("%8d %8zu %10.2f %12.2f %12.2f\n", N, sy_gset_size(gs), (t1 - t0) * 1e-6, (t2 - t1) * 1e-6, (t3 - t2) * 1e-6);
        else
            printf("%8d failed: %s\n", N, sy_ctx_last_error_msg(ctx));
        sy_str_free(ctx, js);
        sy_gset_free(gs);
        sy_trace_free(tr);
        sy_env_free(env);
        sy_graph_free(g);
        sy_ctx_free(ctx);
        free(t);
    }
}

int main(int argc, char **argv)
{
    int reps = (argc > 1 && !strcmp(argv[1], "--quick")) ? 20 : 200;
    printf("symshape %s bench_trace: %d traces per model (median shown)\n\n", sy_version_string(), reps);
    printf("%-22s %6s %9s %8s %8s %7s %8s %8s %11s\n", "model", "nodes", "trace us", "us/node", "symbols", "guards", "dedup",
           "kept", "guardset us");
    const char *dir = NULL;
    char *names[64];
    int n = bench_models(&dir, names, 64);
    for (int m = 0; m < n; m++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[m]);
        sy_ctx *ctx;
        sy_graph *g;
        if (sy_ctx_new(NULL, &ctx) != SY_OK) return 1;
        if (sy_graph_load_file(ctx, path, &g) != SY_OK) {
            printf("%-22s load failed: %s\n", names[m], sy_ctx_last_error_msg(ctx));
            sy_ctx_free(ctx);
            continue;
        }
        double *tt = malloc((size_t)reps * sizeof *tt), *tg = malloc((size_t)reps * sizeof *tg);
        size_t syms = 0, rec = 0, dedup = 0, kept = 0;
        int ok = 1;
        for (int r = 0; r < reps && ok; r++) {
            sy_env *env = sy_env_new(ctx, NULL);
            sy_trace *t = NULL;
            double t0 = (bench_now_ns() * 1e-3);
            ok = sy_env_trace(env, g, 0, NULL, &t) == SY_OK;
            double t1 = (bench_now_ns() * 1e-3);
            sy_gset *gs = NULL;
            if (ok) ok = sy_gset_produce(env, g, &gs) == SY_OK && sy_gset_minimize(gs) == SY_OK;
            double t2 = (bench_now_ns() * 1e-3);
            tt[r] = t1 - t0;
            tg[r] = t2 - t1;
            syms = sy_env_nsymbols(env);
            if (gs) sy_gset_counts(gs, &rec, &dedup, &kept);
            sy_gset_free(gs);
            sy_trace_free(t);
            sy_env_free(env);
        }
        if (!ok) {
            printf("%-22s trace failed: %s\n", names[m], sy_ctx_last_error_msg(ctx));
        } else {
            qsort(tt, (size_t)reps, sizeof *tt, bench_cmpd);
            qsort(tg, (size_t)reps, sizeof *tg, bench_cmpd);
            size_t nodes = sy_graph_nnodes(g);
            printf("%-22s %6zu %9.1f %8.3f %8zu %7zu %8zu %8zu %11.1f\n", names[m], nodes, tt[reps / 2],
                   tt[reps / 2] / (double)nodes, syms, rec, dedup, kept, tg[reps / 2]);
        }
        free(tt);
        free(tg);
        sy_graph_free(g);
        sy_ctx_free(ctx);
    }
    for (int m = 0; m < n; m++) free(names[m]);
    printf("\n(trace: fresh env per trace in a warm context; guards = recorded during tracing,\n"
           " dedup = distinct, kept = in the minimized set incl. rank/dtype/duck/range guards)\n");
    many_inputs();
    return 0;
}
