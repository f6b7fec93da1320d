/* The process-wide tables (backend registry, op index, op name list) are
 * built lazily on first use: concurrent first uses from several threads must
 * all see the complete tables (docs/ownership.md, thread safety). Each run is
 * a fresh forked process whose 8 threads make their first calls at the same
 * moment (a barrier); before the fix 174 of 300 runs saw NULL for
 * sy_backend_find("bytecode"). */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#define NTHREADS 8
#define NRUNS 300

static pthread_barrier_t start;
static const char *const want_backends[] = {"bytecode", "json", "c", "report", "markdown"};

static void *first_use(void *arg)
{
    size_t k = (size_t)arg;
    pthread_barrier_wait(&start);
    int ok = 1;
    /* every thread starts with a different entry point */
    switch (k % 4) {
    case 0: ok &= sy_backend_find(want_backends[k % 5]) != NULL; break;
    case 1: ok &= sy_backend_count() >= 5; break;
    case 2: ok &= sy_env_has_op("conv2d") && sy_env_has_op("add"); break;
    default: ok &= sy_env_op_names()[0] != NULL; break;
    }
    for (size_t i = 0; i < 5; i++) ok &= sy_backend_find(want_backends[i]) != NULL;
    ok &= sy_backend_count() >= 5 && sy_backend_at(4) != NULL;
    ok &= sy_env_has_op("conv2d") && sy_env_has_op("view") && !sy_env_has_op("no_such_op");
    size_t n = 0;
    for (const char *const *p = sy_env_op_names(); *p; p++) n++;
    ok &= n > 50;
    return ok ? (void *)1 : NULL;
}

static int one_run(void)
{
    pthread_t th[NTHREADS];
    if (pthread_barrier_init(&start, NULL, NTHREADS)) return 2;
    for (size_t i = 0; i < NTHREADS; i++)
        if (pthread_create(&th[i], NULL, first_use, (void *)i)) return 2;
    int bad = 0;
    for (size_t i = 0; i < NTHREADS; i++) {
        void *r;
        pthread_join(th[i], &r);
        bad |= r == NULL;
    }
    return bad;
}

Test(backends_threads, first_use_from_8_threads_sees_complete_tables, .timeout = SY_TIMEOUT(120))
{
    int failed = 0, errors = 0;
    for (int run = 0; run < NRUNS; run++) {
        pid_t pid = fork();
        cr_assert(ge(int, pid, 0));
        if (pid == 0) _exit(one_run());
        int status = 0;
        cr_assert(eq(int, waitpid(pid, &status, 0), pid));
        if (!WIFEXITED(status) || WEXITSTATUS(status) == 2) errors++;
        else if (WEXITSTATUS(status)) failed++;
    }
    cr_assert(eq(int, errors, 0), "%d runs could not start their threads or crashed", errors);
    cr_assert(eq(int, failed, 0), "%d of %d runs saw an incomplete table", failed, NRUNS);
}

/* Every thread with its own context runs the whole library at once: parse,
 * decide, simplify, trace + produce + minimize + render of a corpus model, and
 * an ONNX load and trace (when built with ONNX). Contexts share nothing
 * (docs/ownership.md), so the results must be the same in every thread, and
 * the ThreadSanitizer build (scripts/tsan.sh) must report no race: before
 * issue 38 two threads minimizing shared gset.c's sort index (hl_sort_ix; TSan
 * 5 of 5 runs) and the ONNX frontend's message buffers (show). */
#define WORK_THREADS 8

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211u;
    return h;
}

typedef struct {
    uint64_t hash;  /* of every result, in order */
    int ok;         /* 1: every step succeeded */
    char why[200];  /* else the first failure */
} work_result;

#define WCHK(cond, ...)                                                         \
    do {                                                                        \
        if (!(cond)) {                                                          \
            if (r->ok) snprintf(r->why, sizeof r->why, __VA_ARGS__);            \
            r->ok = 0;                                                          \
            goto done;                                                          \
        }                                                                       \
    } while (0)

static void hash_expr(sy_ctx *c, work_result *r, const sy_expr *e)
{
    char *s = e ? sy_expr_print(c, e, SY_PRINT_CANONICAL) : NULL;
    r->hash = fnv(r->hash, s ? s : "(null)", s ? strlen(s) : 6);
    sy_str_free(c, s);
}

static void work_algebra(sy_ctx *c, work_result *r)
{
    sy_facts *f = sy_facts_new(c);
    WCHK(f, "facts_new");
    static const char *const facts[] = {"s0 >= 2", "s1 >= 1", "s1 <= 64", "Mod(s2, 8) == 0", "s2 >= 8"};
    for (size_t i = 0; i < sizeof facts / sizeof *facts; i++) {
        const sy_expr *e;
        WCHK(sy_expr_parse(c, facts[i], (size_t)-1, &e) == SY_OK, "parse %s", facts[i]);
        WCHK(sy_facts_add(f, e) == SY_OK, "facts_add %s", facts[i]);
    }
    static const char *const rels[] = {"FloorDiv(s2, 8)*8 == s2", "s0*s1 >= 2", "Max(s0, s1) <= 64",
                                       "FloorDiv(s0 + 7, 8) <= s0", "Mod(s2 + 4, 8) == 4", "s1 > 64"};
    for (size_t i = 0; i < sizeof rels / sizeof *rels; i++) {
        const sy_expr *e;
        sy_truth t;
        WCHK(sy_expr_parse(c, rels[i], (size_t)-1, &e) == SY_OK, "parse %s", rels[i]);
        WCHK(sy_decide(f, e, &t) == SY_OK, "decide %s: %s", rels[i], sy_ctx_last_error_msg(c));
        r->hash = fnv(r->hash, &t, sizeof t);
    }
    static const char *const exprs[] = {"FloorDiv(s2*s1 + 8*s1, 8)", "Mod(s2*s0, 8)", "Max(Min(s1, 64), 1)",
                                        "CeilDiv(s0*s1, s1)", "FloorDiv(FloorDiv(s2, 2), 4) - FloorDiv(s2, 8)"};
    for (size_t i = 0; i < sizeof exprs / sizeof *exprs; i++) {
        const sy_expr *e;
        WCHK(sy_expr_parse(c, exprs[i], (size_t)-1, &e) == SY_OK, "parse %s", exprs[i]);
        const sy_expr *s = sy_simplify(f, e);
        WCHK(s, "simplify %s: %s", exprs[i], sy_ctx_last_error_msg(c));
        hash_expr(c, r, s);
        const sy_expr *lo, *hi;
        WCHK(sy_bound(f, e, &lo, &hi) == SY_OK, "bound %s", exprs[i]);
        hash_expr(c, r, lo);
        hash_expr(c, r, hi);
    }
done:
    sy_facts_free(f);
}

static void work_model(sy_ctx *c, work_result *r, const char *path)
{
    sy_graph *g = NULL;
    sy_env *env = NULL;
    sy_trace *tr = NULL;
    sy_gset *gs = NULL;
    WCHK(sy_graph_load_file(c, path, &g) == SY_OK, "load %s: %s", path, sy_ctx_last_error_msg(c));
    env = sy_env_new(c, NULL);
    WCHK(env, "env_new");
    WCHK(sy_env_trace(env, g, 0, NULL, &tr) == SY_OK, "trace %s: %s", path, sy_ctx_last_error_msg(c));
    WCHK(sy_gset_produce(env, g, &gs) == SY_OK, "produce %s: %s", path, sy_ctx_last_error_msg(c));
    WCHK(sy_gset_minimize(gs) == SY_OK, "minimize %s: %s", path, sy_ctx_last_error_msg(c));
    static const char *const backends[] = {"report", "json", "c", "bytecode"};
    for (size_t b = 0; b < sizeof backends / sizeof *backends; b++) {
        sy_backend_options o = SY_BACKEND_OPTIONS_INIT;
        o.env = env;
        o.graph = g;
        unsigned char *data = NULL;
        size_t len = 0;
        WCHK(sy_backend_render(backends[b], gs, &o, &data, &len) == SY_OK, "render %s: %s", backends[b],
             sy_ctx_last_error_msg(c));
        r->hash = fnv(r->hash, data, len);
        sy_mem_free(c, data);
    }
done:
    sy_gset_free(gs);
    sy_trace_free(tr);
    sy_env_free(env);
    sy_graph_free(g);
}

static void work_onnx(sy_ctx *c, work_result *r, const char *path)
{
    if (!sy_onnx_available()) return;
    sy_onnx_model *m = NULL;
    sy_env *env = NULL;
    sy_onnx_trace *t = NULL;
    sy_gset *gs = NULL;
    WCHK(sy_onnx_load_file(c, path, &m) == SY_OK, "onnx load %s: %s", path, sy_ctx_last_error_msg(c));
    env = sy_env_new(c, NULL);
    WCHK(env, "env_new");
    WCHK(sy_env_trace_onnx(env, m, NULL, &t) == SY_OK, "onnx trace %s: %s", path, sy_ctx_last_error_msg(c));
    size_t nin;
    const sy_graph_input *const *ins = sy_onnx_trace_gset_inputs(t, &nin);
    WCHK(sy_gset_produce_inputs(env, sy_onnx_name(m), nin, ins, &gs) == SY_OK, "onnx produce %s", path);
    WCHK(sy_gset_minimize(gs) == SY_OK, "onnx minimize %s", path);
    sy_backend_options o = SY_BACKEND_OPTIONS_INIT;
    o.env = env;
    unsigned char *data = NULL;
    size_t len = 0;
    WCHK(sy_backend_render("report", gs, &o, &data, &len) == SY_OK, "onnx render %s", path);
    r->hash = fnv(r->hash, data, len);
    sy_mem_free(c, data);
done:
    sy_gset_free(gs);
    sy_onnx_trace_free(t);
    sy_env_free(env);
    sy_onnx_free(m);
}

static void *work(void *arg)
{
    work_result *r = arg;
    r->hash = 14695981039346656037u;
    r->ok = 1;
    sy_ctx *c = NULL;
    pthread_barrier_wait(&start);
    if (sy_ctx_new(NULL, &c) != SY_OK) {
        r->ok = 0;
        snprintf(r->why, sizeof r->why, "ctx_new");
        return NULL;
    }
    work_algebra(c, r);
    work_model(c, r, SY_TESTS_DIR "/../examples/resnet18.json");
    work_onnx(c, r, SY_TESTS_DIR "/../fuzz/corpus_onnx/op_bcast_pin.onnx");
    work_onnx(c, r, SY_TESTS_DIR "/../fuzz/corpus_onnx/small_model.onnx");
    sy_ctx_free(c);
    flint_cleanup(); /* this thread's FLINT caches (the sanitizer build's leak check) */
    return NULL;
}

/* 0 when every thread succeeded with the same results, else 1 and why */
static int eight_contexts(char *why, size_t cap)
{
    pthread_t th[WORK_THREADS];
    work_result res[WORK_THREADS];
    memset(res, 0, sizeof res);
    if (pthread_barrier_init(&start, NULL, WORK_THREADS)) return snprintf(why, cap, "barrier_init"), 1;
    for (size_t i = 0; i < WORK_THREADS; i++)
        if (pthread_create(&th[i], NULL, work, &res[i])) return snprintf(why, cap, "pthread_create"), 1;
    for (size_t i = 0; i < WORK_THREADS; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&start);
    for (size_t i = 0; i < WORK_THREADS; i++) {
        if (!res[i].ok) return snprintf(why, cap, "thread %zu: %s", i, res[i].why), 1;
        if (res[i].hash != res[0].hash) return snprintf(why, cap, "thread %zu's results differ from thread 0's", i), 1;
    }
    return 0;
}

Test(backends_threads, eight_contexts_at_once_agree, .timeout = SY_TIMEOUT(600))
{
    char why[300] = "";
    cr_assert(eq(int, eight_contexts(why, sizeof why), 0), "%s", why);
}

#ifdef SY_THREADS_MAIN
/* scripts/tsan.sh: Criterion's runner cannot start under ThreadSanitizer
 * ("Could not initialize inheritable arena"), so the TSan build runs the
 * test's bodies from this main: the first-use test once (in process), then
 * the 8 contexts argv[1] times (default 3). */
int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 3;
    /* first: the lazy process-wide tables' first use from 8 threads, once
     * (they are built once per process) */
    if (one_run()) {
        fprintf(stderr, "test_threads: first use from %d threads failed\n", NTHREADS);
        return 1;
    }
    for (int i = 0; i < reps; i++) {
        char why[300] = "";
        if (eight_contexts(why, sizeof why)) {
            fprintf(stderr, "test_threads: run %d: %s\n", i, why);
            return 1;
        }
    }
    fprintf(stderr, "test_threads: %d runs of %d threads agree\n", reps, WORK_THREADS);
    return 0;
}
#endif
