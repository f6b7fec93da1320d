/* sy_dispatch against checking the entries one by one (issue 37): shape
 * buckets of resnet18 (its minimized guard set plus a batch bucket and an
 * image-size bucket per entry, every other entry also requiring an even
 * size), 1, 8, 64 and 512 entries. Prints ns per dispatch (median of 7
 * runs over the same 2^16 random points), for
 *   dispatch    sy_dispatch_run (binary search over the interval guards,
 *               shared nodes evaluated once)
 *   sequential  sy_dispatch_run_sequential (each entry's guards in order,
 *               the same int64 evaluation, nothing shared between entries)
 *   C           sy_dispatch_to_c compiled with cc -O2 and dlopened
 *   VM          sy_bc_dispatch on sy_bc_dispatch_compile's program (format
 *               2.2), loaded back from its bytes (the loader verifies)
 *   vm x N      one sy_bc_check of resnet18's own compiled set times the
 *               entries a sequential runtime would check (the first
 *               accepting entry, or all): the bytecode VM's per-entry cost
 * and checks that dispatch, sequential, C and VM give the same entry everywhere. */
#include <dlfcn.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "symshape/symshape.h"

#define NPTS 65536
#define REPS 7

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

typedef long (*cfn)(const int64_t *);

/* the C form of d, compiled with cc -O2 into dir, or NULL */
static cfn compile_c(const sy_dispatch *d, sy_ctx *ctx, size_t n, void **h)
{
    char *code = sy_dispatch_to_c(d, "bk");
    char src[256], so[256], cmd[1024];
    snprintf(src, sizeof src, "/tmp/sy_bench_dispatch_%zu.c", n);
    snprintf(so, sizeof so, "/tmp/sy_bench_dispatch_%zu.so", n);
    FILE *f = code ? fopen(src, "wb") : NULL;
    if (!f) return NULL;
    fputs(code, f);
    fclose(f);
    sy_str_free(ctx, code);
    const char *cc = getenv("CC");
    snprintf(cmd, sizeof cmd, "%s -std=c99 -O2 -shared -fPIC -o %s %s", cc && *cc ? cc : "cc", so, src);
    if (system(cmd) != 0) return NULL;
    *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    remove(src);
    remove(so);
    void *p = *h ? dlsym(*h, "bk_dispatch") : NULL;
    cfn fn = NULL;
    if (p) memcpy(&fn, &p, sizeof p);
    return fn;
}

int main(void)
{
    sy_ctx *ctx = NULL;
    sy_graph *g = NULL;
    if (sy_ctx_new(NULL, &ctx) != SY_OK || sy_graph_load_file(ctx, SY_EXAMPLES "/resnet18.json", &g) != SY_OK) {
        fprintf(stderr, "cannot load resnet18\n");
        return 1;
    }
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t = NULL;
    sy_gset *gs = NULL;
    sy_bc_program *bc = NULL;
    if (sy_env_trace(env, g, 0, NULL, &t) != SY_OK || sy_gset_produce(env, g, &gs) != SY_OK || sy_gset_minimize(gs) != SY_OK ||
        sy_bc_compile(gs, &bc) != SY_OK) {
        fprintf(stderr, "trace: %s\n", sy_ctx_last_error_msg(ctx));
        return 1;
    }
    char *js = sy_gset_to_json(gs);
    long sb = sy_gset_find_source(gs, "x.size()[0]"), sh = sy_gset_find_source(gs, "x.size()[2]");
    size_t nsrc = sy_gset_nsources(gs);
    if (nsrc != 6 || sb < 0 || sh < 0) {
        fprintf(stderr, "unexpected sources\n");
        return 1;
    }
    static const size_t ns[] = {1, 8, 64, 512};
    printf("entries | guards | nodes | tree nodes | depth | VM instr | dispatch ns | C ns | VM ns | sequential ns | vm x N ns | "
           "speedup | VM speedup | agree\n");
    printf("---|---|---|---|---|---|---|---|---|---|---|---|---|---\n");
    for (size_t q = 0; q < sizeof ns / sizeof ns[0]; q++) {
        size_t n = ns[q], nb = n < 8 ? 1 : 8, nh = (n + nb - 1) / nb;
        char **texts = calloc(n, sizeof *texts);
        size_t *lens = calloc(n, sizeof *lens);
        for (size_t i = 0; i < n; i++) {
            json_error_t err;
            json_t *root = json_loads(js, 0, &err), *guards = json_object_get(root, "guards");
            size_t bi = i % nb, hi = i / nb;
            char e[5][128];
            snprintf(e[0], sizeof e[0], "%zu <= _s%ld", 4 * bi + 1, sb);
            snprintf(e[1], sizeof e[1], "_s%ld <= %zu", sb, 4 * bi + 4);
            snprintf(e[2], sizeof e[2], "%zu <= _s%ld", 32 + 8 * hi, sh);
            snprintf(e[3], sizeof e[3], "_s%ld <= %zu", sh, 39 + 8 * hi);
            snprintf(e[4], sizeof e[4], "Mod(_s%ld, 2) == 0", sh);
            for (int k = 0; k < (i % 2 ? 5 : 4); k++)
                json_array_append_new(guards, json_pack("{s:s, s:s}", "kind", k < 4 ? "range" : "relation", "expr", e[k]));
            texts[i] = json_dumps(root, 0);
            lens[i] = (size_t)-1;
            json_decref(root);
        }
        sy_dispatch *d = NULL;
        if (sy_dispatch_new_json(ctx, n, (const char *const *)texts, lens, &d) != SY_OK) {
            fprintf(stderr, "dispatch: %s\n", sy_ctx_last_error_msg(ctx));
            return 1;
        }
        int64_t *pts = malloc(sizeof *pts * NPTS * nsrc);
        uint64_t seed = 42;
        for (size_t p = 0; p < NPTS; p++) {
            int64_t *v = pts + p * nsrc;
            uint64_t r = rng_next(&seed);
            v[0] = r % 16 ? 4 : 3;
            v[1] = (r >> 8) % 16 ? 0 : 2;
            v[2] = (int64_t)((r >> 16) % (4 * nb + 6));
            v[3] = (r >> 24) % 16 ? 3 : 1;
            int64_t h = 28 + (int64_t)((r >> 32) % (8 * nh + 10));
            v[4] = h;
            v[5] = (r >> 48) % 8 ? h : h + 1;
        }
        int64_t *f = calloc(sy_dispatch_frame_len(d), sizeof *f);
        long *res = malloc(sizeof *res * NPTS);
        size_t agree = 0, vmchecks = 0;
        void *h = NULL;
        cfn cf = compile_c(d, ctx, n, &h);
        sy_bc_program *dv = NULL, *dp = NULL;
        unsigned char *bytes = NULL;
        size_t nbytes = 0;
        if (sy_bc_dispatch_compile(d, &dp) != SY_OK || sy_bc_encode(dp, &bytes, &nbytes) != SY_OK ||
            sy_bc_load(ctx, bytes, nbytes, &dv, NULL) != SY_OK) {
            fprintf(stderr, "bytecode dispatch: %s\n", sy_ctx_last_error_msg(ctx));
            return 1;
        }
        sy_mem_free(ctx, bytes);
        sy_bc_free(dp);
        for (size_t p = 0; p < NPTS; p++) {
            res[p] = sy_dispatch_run(d, pts + p * nsrc, nsrc, f);
            long s = sy_dispatch_run_sequential(d, pts + p * nsrc, nsrc, f);
            agree += res[p] == s && (!cf || cf(pts + p * nsrc) == s) && sy_bc_dispatch(dv, pts + p * nsrc, nsrc) == s;
            vmchecks += res[p] >= 0 ? (size_t)res[p] + 1 : n;
        }
        double td[REPS], ts[REPS], tv[REPS], tc[REPS], tb[REPS];
        volatile long sink = 0;
        for (int r = 0; r < REPS; r++) {
            double a = bench_now_ns();
            for (size_t p = 0; p < NPTS; p++) sink += sy_dispatch_run(d, pts + p * nsrc, nsrc, f);
            double b = bench_now_ns();
            for (size_t p = 0; p < NPTS; p++) sink += sy_dispatch_run_sequential(d, pts + p * nsrc, nsrc, f);
            double c = bench_now_ns();
            /* the VM: as many checks of resnet18's own program as a sequential runtime would make */
            int32_t failed;
            size_t left = vmchecks;
            for (size_t p = 0; left; p = (p + 1) % NPTS, left--) sink += sy_bc_check(bc, pts + p * nsrc, nsrc, &failed);
            double e = bench_now_ns();
            if (cf)
                for (size_t p = 0; p < NPTS; p++) sink += cf(pts + p * nsrc);
            double g2 = bench_now_ns();
            for (size_t p = 0; p < NPTS; p++) sink += sy_bc_dispatch(dv, pts + p * nsrc, nsrc);
            double g3 = bench_now_ns();
            tb[r] = (g3 - g2) / NPTS;
            tc[r] = cf ? (g2 - e) / NPTS : 0;
            td[r] = (b - a) / NPTS;
            ts[r] = (c - b) / NPTS;
            tv[r] = (e - c) / NPTS;
        }
        (void)sink;
        qsort(td, REPS, sizeof *td, bench_cmpd);
        qsort(ts, REPS, sizeof *ts, bench_cmpd);
        qsort(tv, REPS, sizeof *tv, bench_cmpd);
        qsort(tc, REPS, sizeof *tc, bench_cmpd);
        qsort(tb, REPS, sizeof *tb, bench_cmpd);
        size_t ng, nn, ntn, depth, nsplit, maxleaf;
        sy_dispatch_stats(d, &ng, &nn, &ntn, &depth, &nsplit, &maxleaf);
        printf("%zu | %zu | %zu | %zu | %zu | %zu | %.0f | %.0f | %.0f | %.0f | %.0f | %.1fx | %.1fx | %zu/%d\n", n, ng, nn, ntn, depth,
               sy_bc_ninstr(dv), td[REPS / 2], tc[REPS / 2], tb[REPS / 2], ts[REPS / 2], tv[REPS / 2], ts[REPS / 2] / td[REPS / 2],
               ts[REPS / 2] / tb[REPS / 2], agree, NPTS);
        sy_bc_free(dv);
        if (h) dlclose(h);
        fflush(stdout);
        free(f);
        free(res);
        free(pts);
        sy_dispatch_free(d);
        for (size_t i = 0; i < n; i++) free(texts[i]);
        free(texts);
        free(lens);
    }
    sy_str_free(ctx, js);
    sy_bc_free(bc);
    sy_gset_free(gs);
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
    sy_ctx_free(ctx);
    return 0;
}
