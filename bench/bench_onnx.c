/* ONNX benchmark, in-process: per model, the time of sy_onnx_load_file
 * (read: the pre-scan that drops weight payloads and the unpack of the
 * graph), sy_env_trace_onnx (trace) and sy_gset_produce_inputs +
 * sy_gset_minimize (guards), the median over --runs runs after one warm-up
 * run (so the file is in the page cache: the OS read is a copy from it), in
 * wall time and CPU time of the process; and the peak heap of one run.
 *
 * Peak heap: this program defines malloc, calloc, realloc, free and the
 * aligned allocators (glibc lets the executable interpose them for every
 * library: symshape, protobuf-c, FLINT, GMP, jansson, libc), counts the live
 * bytes with malloc_usable_size, and reports the peak of one run minus the
 * bytes live before it: every heap byte the run allocated, whatever library
 * allocated it. The graph without its weights (the goal's reference size) is
 * what the reader keeps (sy_onnx_sizes: the serialized model with every
 * tensor payload over SY_ONNX_MAX_PAYLOAD bytes dropped); bench/onnx_bench.py
 * prints onnx's own figure next to it (the serialized ModelProto with every
 * initializer's raw_data cleared).
 *
 * usage: bench_onnx [--runs N] [--dynamic SPEC]... [--empty] MODEL.onnx...
 * Output: one JSON object per model on stdout; --empty prints the
 * empty-context baseline: the peak heap of sy_ctx_new + sy_env_new alone. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "symshape/symshape.h"

/* ---- counting heap */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static long long live, peak;
static void count_add(void *p)
{
    if (!p) return;
    live += (long long)malloc_usable_size(p);
    if (live > peak) peak = live;
}
static void count_sub(void *p)
{
    if (p) live -= (long long)malloc_usable_size(p);
}
void *malloc(size_t n)
{
    void *p = __libc_malloc(n);
    count_add(p);
    return p;
}
void *calloc(size_t a, size_t b)
{
    void *p = __libc_calloc(a, b);
    count_add(p);
    return p;
}
void *realloc(void *q, size_t n)
{
    count_sub(q);
    void *p = __libc_realloc(q, n);
    count_add(p ? p : (n ? q : NULL));
    return p;
}
void free(void *p)
{
    count_sub(p);
    __libc_free(p);
}
void *memalign(size_t a, size_t n)
{
    void *p = __libc_memalign(a, n);
    count_add(p);
    return p;
}
void *aligned_alloc(size_t a, size_t n) { return memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n)
{
    void *p = memalign(a, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

typedef struct {
    double read, trace, guards, total, cpu;
    long long heap;
    size_t nodes, values, guards_n, kept, violations;
} one_run;

static int run_once(const char *path, size_t nov, const sy_trace_override *ov, one_run *r)
{
    long long base = live;
    peak = live;
    double c0 = cpu_ns(), t0 = now_ns();
    sy_ctx *ctx = NULL;
    sy_onnx_model *m = NULL;
    sy_env *env = NULL;
    sy_onnx_trace *tr = NULL;
    sy_gset *gs = NULL;
    int rc = 1;
    if (sy_ctx_new(NULL, &ctx) != SY_OK) return 1;
    if (sy_onnx_load_file(ctx, path, &m) != SY_OK) goto out;
    double t1 = now_ns();
    if (!(env = sy_env_new(ctx, NULL))) goto out;
    sy_onnx_trace_options to = SY_ONNX_TRACE_OPTIONS_INIT;
    to.nov = nov;
    to.ov = ov;
    if (sy_env_trace_onnx(env, m, &to, &tr) != SY_OK) goto out;
    double t2 = now_ns();
    size_t nin;
    const sy_graph_input *const *ins = sy_onnx_trace_gset_inputs(tr, &nin);
    if (sy_gset_produce_inputs(env, sy_onnx_name(m), nin, ins, &gs) != SY_OK || sy_gset_minimize(gs) != SY_OK) goto out;
    double t3 = now_ns();
    r->read = t1 - t0;
    r->trace = t2 - t1;
    r->guards = t3 - t2;
    r->total = t3 - t0;
    r->cpu = cpu_ns() - c0;
    r->nodes = sy_onnx_nnodes(m);
    r->values = sy_onnx_trace_nvalues(tr);
    r->guards_n = sy_gset_size(gs);
    r->violations = sy_gset_nviolations(gs);
    sy_onnx_sizes(m, &r->kept, NULL);
    rc = 0;
out:
    if (rc) fprintf(stderr, "bench_onnx: %s: %s\n", path, sy_ctx_last_error_msg(ctx));
    sy_gset_free(gs);
    sy_onnx_trace_free(tr);
    sy_env_free(env);
    sy_onnx_free(m);
    sy_ctx_free(ctx);
    r->heap = peak - base;
    return rc;
}

/* the empty-context baseline: the peak heap of sy_ctx_new + sy_env_new and
 * their release, with no model (the fixed cost every run pays) */
static long long empty_once(void)
{
    long long base = live;
    peak = live;
    sy_ctx *ctx = NULL;
    if (sy_ctx_new(NULL, &ctx) != SY_OK) return -1;
    sy_env *env = sy_env_new(ctx, NULL);
    long long r = env ? 0 : -1;
    sy_env_free(env);
    sy_ctx_free(ctx);
    return r ? r : peak - base;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int runs = 20, status = 0;
    sy_ctx *pctx = NULL;
    if (sy_ctx_new(NULL, &pctx) != SY_OK) return 1;
    sy_trace_override ov[16];
    size_t nov = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            runs = atoi(argv[++i]);
            if (runs < 1 || runs > 10000) runs = 20;
            continue;
        }
        if (!strcmp(argv[i], "--empty")) {
            long long h = 0;
            for (int k = 0; k < 3; k++) {
                long long e = empty_once();
                if (e < 0) return 1;
                if (e > h) h = e;
            }
            printf("{\"empty_heap_bytes\": %lld}\n", h);
            continue;
        }
        if (!strcmp(argv[i], "--dynamic") && i + 1 < argc && nov < 16) {
            sy_input_spec *sp = NULL;
            if (sy_input_spec_parse(pctx, argv[++i], (size_t)-1, &sp) != SY_OK) {
                fprintf(stderr, "bench_onnx: --dynamic: %s\n", sy_ctx_last_error_msg(pctx));
                return 2;
            }
            memset(&ov[nov], 0, sizeof ov[nov]);
            ov[nov].input = sp->input;
            ov[nov++].spec = sp;
            continue;
        }
        const char *path = argv[i];
        one_run w, r;
        if (run_once(path, nov, ov, &w)) {
            status = 1;
            continue;
        }
        double *tt = malloc((size_t)runs * 5 * sizeof *tt);
        if (!tt) return 1;
        long long heap = w.heap;
        for (int k = 0; k < runs; k++) {
            if (run_once(path, nov, ov, &r)) {
                status = 1;
                break;
            }
            tt[k] = r.read;
            tt[runs + k] = r.trace;
            tt[2 * runs + k] = r.guards;
            tt[3 * runs + k] = r.total;
            tt[4 * runs + k] = r.cpu;
            if (r.heap > heap) heap = r.heap;
        }
        printf("{\"model\": \"%s\", \"nodes\": %zu, \"values\": %zu, \"guards\": %zu, \"violations\": %zu, \"runs\": %d, "
               "\"read_ms\": %.3f, \"trace_ms\": %.3f, \"guards_ms\": %.3f, \"total_ms\": %.3f, \"cpu_ms\": %.3f, "
               "\"peak_heap_bytes\": %lld, \"graph_bytes\": %zu}\n",
               path, w.nodes, w.values, w.guards_n, w.violations, runs, median(tt, runs) / 1e6, median(tt + runs, runs) / 1e6,
               median(tt + 2 * runs, runs) / 1e6, median(tt + 3 * runs, runs) / 1e6, median(tt + 4 * runs, runs) / 1e6, heap,
               w.kept);
        fflush(stdout);
        free(tt);
    }
    for (size_t i = 0; i < nov; i++) sy_input_spec_free(pctx, (sy_input_spec *)ov[i].spec);
    sy_ctx_free(pctx);
    return status;
}
