/* Backend benchmark: checks per second of the generated C (compiled with the
 * system compiler at -O2 and loaded with dlopen) and of the bytecode VM, on
 * each corpus model's minimized guard set, at the model's example point
 * (every guard evaluated: the accept path). Figures only. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symshape/bc.h"
#include "symshape/symshape.h"
#include "bench_util.h"

typedef int (*check_fn)(const int64_t *, size_t, int32_t *);

/* median over rounds of (time per check) */
#define ROUNDS 31
#define ITERS 200000
static volatile int sink;

int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    long iters = quick ? ITERS / 10 : ITERS;
    const char *cc = getenv("CC") ? getenv("CC") : "cc";
    char tmpdir[] = "/tmp/sybenchXXXXXX";
    if (!mkdtemp(tmpdir)) return 1;
    printf("symshape %s bench_backends: median of %d rounds x %ld checks at the example point (accept path)\n\n",
           sy_version_string(), ROUNDS, iters);
    printf("%-22s %6s %11s %11s %11s %11s\n", "model", "guards", "C ns/check", "C ns/guard", "VM ns/check", "VM ns/guard");
    const char *dir = NULL;
    char *names[64];
    int n = bench_models(&dir, names, 64);
    for (int m = 0; m < n; m++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[m]);
        sy_ctx *ctx;
        sy_graph *g;
        sy_env *env;
        sy_trace *t;
        sy_gset *gs;
        if (sy_ctx_new(NULL, &ctx) || sy_graph_load_file(ctx, path, &g) || !(env = sy_env_new(ctx, NULL)) ||
            sy_env_trace(env, g, 0, NULL, &t) || sy_gset_produce(env, g, &gs) || sy_gset_minimize(gs)) {
            printf("%-22s failed\n", names[m]);
            continue;
        }
        size_t ns = sy_gset_nsources(gs), ng = sy_gset_size(gs);
        int64_t *vals = calloc(ns, sizeof *vals);
        const sy_graph_input *in = sy_graph_input_at(g, 0);
        const char *nm[1] = {in->name};
        size_t rk[1] = {in->ndim};
        const int64_t *sh[1] = {in->shape};
        sy_dtype dt[1] = {in->dtype};
        sy_gset_values_from_shapes(gs, 1, nm, rk, sh, dt, vals);
        /* C backend */
        double c_med = -1;
        unsigned char *code;
        size_t len;
        sy_backend_options bo = SY_BACKEND_OPTIONS_INIT;
        bo.prefix = "bench";
        if (sy_backend_render("c", gs, &bo, &code, &len) == SY_OK) {
            char src[1200], so[1200], cmd[4096];
            snprintf(src, sizeof src, "%s/%s.c", tmpdir, names[m]);
            snprintf(so, sizeof so, "%s/%s.so", tmpdir, names[m]);
            FILE *fp = fopen(src, "wb");
            fwrite(code, 1, len, fp);
            fclose(fp);
            snprintf(cmd, sizeof cmd, "%s -std=c99 -O2 -shared -fPIC -o '%s' '%s'", cc, so, src);
            void *h = system(cmd) == 0 ? dlopen(so, RTLD_NOW) : NULL;
            check_fn fn = h ? (check_fn)dlsym(h, "bench_check") : NULL;
            if (fn) {
                double r[ROUNDS];
                for (int k = 0; k < ROUNDS; k++) {
                    double t0 = bench_now_ns();
                    int acc = 0;
                    for (long it = 0; it < iters; it++) {
                        int32_t f;
                        acc += fn(vals, ns, &f);
                    }
                    sink = acc;
                    r[k] = (bench_now_ns() - t0) / (double)iters;
                }
                qsort(r, ROUNDS, sizeof *r, bench_cmpd);
                c_med = r[ROUNDS / 2];
            }
            if (h) dlclose(h);
            sy_mem_free(ctx, code);
        }
        /* VM */
        double vm_med = -1;
        sy_bc_program *p;
        if (sy_bc_compile(gs, &p) == SY_OK) {
            double r[ROUNDS];
            for (int k = 0; k < ROUNDS; k++) {
                double t0 = bench_now_ns();
                int acc = 0;
                for (long it = 0; it < iters; it++) {
                    int32_t f;
                    acc += sy_bc_check(p, vals, ns, &f);
                }
                sink = acc;
                r[k] = (bench_now_ns() - t0) / (double)iters;
            }
            qsort(r, ROUNDS, sizeof *r, bench_cmpd);
            vm_med = r[ROUNDS / 2];
            sy_bc_free(p);
        }
        printf("%-22s %6zu %11.2f %11.2f %11.2f %11.2f\n", names[m], ng, c_med, c_med / (double)ng, vm_med,
               vm_med / (double)ng);
        free(vals);
        sy_gset_free(gs);
        sy_trace_free(t);
        sy_env_free(env);
        sy_graph_free(g);
        sy_ctx_free(ctx);
    }
    for (int m = 0; m < n; m++) free(names[m]);
    char rm[256];
    snprintf(rm, sizeof rm, "rm -rf '%s'", tmpdir);
    if (system(rm) != 0) return 1;
    return 0;
}
