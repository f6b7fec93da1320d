/* Memory envelopes beyond test_region.c's resnet18 (include/symshape/deploy.h, issue 36): a
 * graph of thousands of outputs (sy_memory_new is linear, and every output lives to the end),
 * sy_memory_new_values' checks, and the largest batch under a relation (sy_memory_largest_tied)
 * against a brute-force scan of the exact bytes. */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "common.h"

/* the minimized guard set, env and trace of graph text under the most relaxed policy */
typedef struct {
    sy_graph *g;
    sy_env *env;
    sy_trace *tr;
    sy_gset *gs;
    sy_region *r;
} traced;

static void trace_text(const char *text, traced *t)
{
    cr_assert(eq(int, sy_graph_load_text(ctx, text, strlen(text), "t", &t->g), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_env_options eo = SY_ENV_OPTIONS_INIT;
    eo.duck_sizing = 0;
    eo.specialize_zero_one = 0;
    t->env = sy_env_new(ctx, &eo);
    cr_assert(t->env != NULL);
    cr_assert(eq(int, sy_env_trace(t->env, t->g, 0, NULL, &t->tr), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_produce(t->env, t->g, &t->gs), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_gset_minimize(t->gs), SY_OK));
    cr_assert(eq(int, sy_region_new(t->gs, NULL, &t->r), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
}

static void traced_free(traced *t)
{
    sy_region_free(t->r);
    sy_gset_free(t->gs);
    sy_trace_free(t->tr);
    sy_env_free(t->env);
    sy_graph_free(t->g);
}

/* N relus of x [x_0, 8] (float32), every one a graph output: at the last node x (read there)
 * and all N outputs are live, (N + 1) * 32 * x_0 bytes. Matching the outputs to their nodes was
 * a pointer comparison per output and node (O(outputs x nodes)) that never matched (the trace's
 * outputs are copies), so each output died at its node: a live peak of 2 * 32 * x_0. */
Test(deploy_memory, thousands_of_outputs_live_to_the_end, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120))
{
    enum { N = 6000 };
    size_t cap = 200 + (size_t)N * 120, len = 0;
    char *text = malloc(cap);
    cr_assert(text != NULL);
    len += (size_t)snprintf(text + len, cap - len, "{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"t\",\"nodes\":["
                                                   "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[2,8],"
                                                   "\"dynamic\":[0]}");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(text + len, cap - len, ",{\"name\":\"r%d\",\"op\":\"relu\",\"args\":[{\"ref\":\"x\"}]}", i);
    len += (size_t)snprintf(text + len, cap - len, "],\"outputs\":[");
    for (int i = 0; i < N; i++) len += (size_t)snprintf(text + len, cap - len, "%s{\"ref\":\"r%d\"}", i ? "," : "", i);
    len += (size_t)snprintf(text + len, cap - len, "]}");
    cr_assert(len < cap);
    traced t;
    trace_text(text, &t);
    free(text);
    long refs[4];
    cr_assert(eq(sz, sy_graph_output_refs(t.g, refs, 4), N)); /* more than cap: the count */
    cr_assert(eq(long, refs[3], 4));
    cr_assert(eq(sz, sy_graph_output_refs(NULL, refs, 4), 0));
    sy_memory *m = NULL;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    cr_assert(eq(int, sy_memory_new(t.env, t.g, t.tr, t.r, &m), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    clock_gettime(CLOCK_MONOTONIC, &b);
    cr_log_info("sy_memory_new over %d outputs: %.3f s", N, (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec));
    cr_assert(eq(sz, sy_memory_size(m), N + 1));
    size_t nv = sy_region_nvars(t.r);
    cr_assert(eq(sz, nv, 1));
    for (int64_t x0 = 1; x0 <= 3; x0 += 2) {
        int64_t lo[1] = {x0}, hi[1] = {x0};
        uint64_t peak = 0;
        int proved = 0;
        cr_assert(eq(int, sy_memory_peak(m, t.r, lo, hi, SY_MEM_LIVE, &peak, &proved), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        cr_assert(eq(u64, peak, (uint64_t)(N + 1) * 32 * (uint64_t)x0));
        cr_assert(proved);
        cr_assert(eq(int, sy_memory_peak(m, t.r, lo, hi, SY_MEM_TOTAL, &peak, &proved), SY_OK));
        cr_assert(eq(u64, peak, (uint64_t)(N + 1) * 32 * (uint64_t)x0));
    }
    /* the largest batch whose live sum fits 1 MiB: (N + 1) * 32 * x_0 <= 2^20 */
    int64_t fixed[1] = {2}, best = 0;
    int proved = 0;
    cr_assert(eq(int, sy_memory_largest(m, t.r, 0, fixed, SY_MEM_LIVE, 1u << 20, &best, &proved), SY_OK));
    cr_assert(eq(i64, best, (1 << 20) / ((N + 1) * 32)));
    cr_assert(proved);
    sy_memory_free(m);
    traced_free(&t);
}

/* sy_memory_new_values refuses values out of node order or with a bad size */
Test(deploy_memory, new_values_checks_its_input, .init = ctx_setup, .fini = ctx_teardown)
{
    traced t;
    trace_text("{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"t\",\"nodes\":["
               "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float16\",\"shape\":[2,8],\"dynamic\":[0]},"
               "{\"name\":\"r\",\"op\":\"relu\",\"args\":[{\"ref\":\"x\"}]}],\"outputs\":[{\"ref\":\"r\"}]}",
               &t);
    const sy_tensor *x = sy_trace_value(t.tr, 0)->u.t;
    sy_memory_input in[2] = {{"x", "input", x, 2, 0, 1}, {"r", "relu", x, 2, 1, 1}};
    sy_memory *m = NULL;
    cr_assert(eq(int, sy_memory_new_values(t.env, 2, 2, in, t.r, &m), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(sz, sy_memory_size(m), 2));
    cr_assert(eq(i64, sy_memory_at(m, 1)->elem_bytes, 2));
    m = sy_memory_free(m);
    sy_memory_input bad[2];
    memcpy(bad, in, sizeof in);
    bad[1].born = 0, bad[0].born = 1; /* born decreasing */
    cr_assert(eq(int, sy_memory_new_values(t.env, 2, 2, bad, t.r, &m), SY_EINVAL));
    cr_assert(m == NULL);
    memcpy(bad, in, sizeof in);
    bad[1].dies = 2; /* past the last node */
    cr_assert(eq(int, sy_memory_new_values(t.env, 2, 2, bad, t.r, &m), SY_EINVAL));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "'r'") != NULL);
    memcpy(bad, in, sizeof in);
    bad[0].elem_bytes = 0;
    cr_assert(eq(int, sy_memory_new_values(t.env, 2, 2, bad, t.r, &m), SY_EINVAL));
    memcpy(bad, in, sizeof in);
    bad[0].t = NULL;
    cr_assert(eq(int, sy_memory_new_values(t.env, 2, 2, bad, t.r, &m), SY_EINVAL));
    cr_assert(eq(int, sy_memory_new_values(t.env, 0, 2, in, t.r, &m), SY_EINVAL));
    cr_assert(eq(int, sy_memory_new_values(NULL, 2, 2, in, t.r, &m), SY_EINVAL));
    traced_free(&t);
}

/* the exact measure at (b, s) by evaluating every value's bytes: the largest one, or the sum */
static uint64_t measure(const sy_memory *m, const sy_region *r, int64_t b, int64_t s, int total)
{
    const sy_expr *sym[2] = {sy_expr_sym(ctx, sy_region_var_at(r, 0)->name), sy_expr_sym(ctx, sy_region_var_at(r, 1)->name)};
    int64_t at[2] = {b, s};
    uint64_t acc = 0;
    for (size_t i = 0; i < sy_memory_size(m); i++) {
        int64_t v = 0;
        cr_assert(eq(int, sy_expr_eval_si(ctx, sy_memory_at(m, i)->bytes, 2, sym, at, &v), SY_OK));
        acc = total ? acc + (uint64_t)v : (uint64_t)v > acc ? (uint64_t)v : acc;
    }
    return acc;
}

/* x [b, s, 16] and the scores x @ x^T [b, s, s] (quadratic in s): the largest b with s = 4*b + 3
 * (and with s fixed) whose largest activation or total fits, against a scan of every b */
Test(deploy_memory, largest_batch_under_a_relation, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(120))
{
    traced t;
    trace_text("{\"format\":\"symshape.graph\",\"version\":1,\"name\":\"t\",\"nodes\":["
               "{\"name\":\"x\",\"op\":\"input\",\"dtype\":\"float32\",\"shape\":[2,5,16],\"dynamic\":[0,1]},"
               "{\"name\":\"xt\",\"op\":\"transpose\",\"args\":[{\"ref\":\"x\"},1,2]},"
               "{\"name\":\"sc\",\"op\":\"matmul\",\"args\":[{\"ref\":\"x\"},{\"ref\":\"xt\"}]}],\"outputs\":[{\"ref\":\"sc\"}]}",
               &t);
    cr_assert(eq(sz, sy_region_nvars(t.r), 2));
    cr_assert(eq(str, (char *)sy_region_var_at(t.r, 0)->name, "x_0"));
    sy_memory *m = NULL;
    cr_assert(eq(int, sy_memory_new(t.env, t.g, t.tr, t.r, &m), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    int64_t fixed[2] = {2, 5}, ta[2] = {0, 4}, tb[2] = {0, 3};
    const uint64_t budgets[] = {1000, 1u << 20, (uint64_t)1 << 30};
    for (int total = 0; total <= 1; total++)
        for (size_t q = 0; q < sizeof budgets / sizeof budgets[0]; q++) {
            int64_t best = -2;
            int proved = 0, stop = -1;
            cr_assert(eq(int, sy_memory_largest_tied(m, t.r, 0, fixed, ta, tb, total ? SY_MEM_TOTAL : SY_MEM_LARGEST, budgets[q], &best,
                                                     &proved, &stop),
                         SY_OK),
                      "%s", sy_ctx_last_error_msg(ctx));
            /* the scan: the first b whose measure passes the budget, less one */
            int64_t want = -1;
            for (int64_t b = 0; b < 100000; b++) {
                if (measure(m, t.r, b, 4 * b + 3, total) > budgets[q]) break;
                want = b;
            }
            cr_assert(eq(i64, best, want), "budget %" PRIu64 " total %d", budgets[q], total);
            cr_assert(proved);
            cr_assert(eq(int, stop, 0));
            if (q == 0) { /* fixed s = 7 instead of the relation (the scan is long for the larger budgets) */
                int64_t fx[2] = {0, 7};
                cr_assert(eq(int, sy_memory_largest_tied(m, t.r, 0, fx, NULL, NULL, total ? SY_MEM_TOTAL : SY_MEM_LARGEST, budgets[q], &best,
                                                         &proved, &stop),
                             SY_OK));
                want = -1;
                for (int64_t b = 0; b < ((int64_t)1 << 27); b++) {
                    if (measure(m, t.r, b, 7, total) > budgets[q]) break;
                    want = b;
                }
                cr_assert(eq(i64, best, want));
                cr_assert(proved);
            }
        }
    /* errors: a factor of 0 is "no tie" but a negative one is refused, as are one NULL array and
     * an offset past 2^40 */
    int64_t best;
    int proved, stop;
    int64_t neg[2] = {0, -1};
    cr_assert(eq(int, sy_memory_largest_tied(m, t.r, 0, fixed, neg, tb, SY_MEM_LARGEST, 1000, &best, &proved, &stop), SY_EINVAL));
    cr_assert(eq(int, sy_memory_largest_tied(m, t.r, 0, fixed, ta, NULL, SY_MEM_LARGEST, 1000, &best, &proved, &stop), SY_EINVAL));
    int64_t far[2] = {0, -((int64_t)1 << 41)};
    cr_assert(eq(int, sy_memory_largest_tied(m, t.r, 0, fixed, ta, far, SY_MEM_LARGEST, 1000, &best, &proved, &stop), SY_EINVAL));
    sy_memory_free(m);
    traced_free(&t);
}
