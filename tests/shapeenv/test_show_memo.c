/* sy_env_show's memo (the texts of guard reasons): a repeated expression is a
 * hit with the same text, a new symbol invalidates the entries, and on every
 * corpus model the recorded guards' origins (node, op, reason) are byte for
 * byte the same with the memo off. */
#include "common.h"
#include "corpus.h"
#include "shapeenv/env_private.h"

Test(show_memo, repeated_expression_hits_and_new_symbol_invalidates, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_env *env = sy_env_new(ctx, NULL);
    cr_assert(env != NULL);
    const sy_expr *s = sy_env_create_symbol(env, 5, "x.size()[0]", SY_DIM_DUCK);
    cr_assert(s != NULL);
    const sy_expr *e = sy_expr_add_si(ctx, sy_expr_mul_si(ctx, s, 2), 3);
    unsigned long hits, misses;
    const char *t1 = sy_env_show(env, e);
    cr_assert(eq(str, (char *)t1, "2*x.size()[0] + 3"));
    sy_env_show_memo_stats(env, &hits, &misses);
    cr_assert(eq(sz, (size_t)(hits), 0));
    cr_assert(eq(sz, (size_t)(misses), 1));
    const char *t2 = sy_env_show(env, e);
    cr_assert(eq(ptr, (void *)t2, (void *)t1)); /* the kept text itself */
    sy_env_show_memo_stats(env, &hits, &misses);
    cr_assert(eq(sz, (size_t)(hits), 1));
    cr_assert(eq(sz, (size_t)(misses), 1));
    /* a new symbol: the entry is stale (formatted again, same text) */
    cr_assert(sy_env_create_symbol(env, 7, "x.size()[1]", SY_DIM_DUCK) != NULL);
    cr_assert(eq(str, (char *)sy_env_show(env, e), "2*x.size()[0] + 3"));
    sy_env_show_memo_stats(env, &hits, &misses);
    cr_assert(eq(sz, (size_t)(hits), 1));
    cr_assert(eq(sz, (size_t)(misses), 2));
    cr_assert(eq(str, (char *)sy_env_show(env, e), "2*x.size()[0] + 3"));
    sy_env_show_memo_stats(env, &hits, &misses);
    cr_assert(eq(sz, (size_t)(hits), 2));
    /* more expressions than entries: every text stays its own expression's */
    for (int round = 0; round < 2; round++)
        for (int i = 1; i <= 4 * SY_SHOW_MEMO; i++) {
            char want[64];
            snprintf(want, sizeof want, "x.size()[0] + %d", i);
            cr_assert(eq(str, (char *)sy_env_show(env, sy_expr_add_si(ctx, s, i)), want));
        }
    sy_env_show_memo_stats(env, &hits, &misses);
    cr_assert(eq(sz, (size_t)(hits + misses), 2 + 2 + 8 * SY_SHOW_MEMO));
    /* a symbol made without a source shows by its name until it gets one; that
     * first source changes its text, so the kept one is stale */
    const sy_expr *u = sy_env_create_symbol(env, 11, NULL, SY_DIM_DUCK);
    cr_assert(u != NULL);
    const char *before = sy_env_show(env, u);
    cr_assert(ne(str, (char *)before, "y.size()[0]"));
    cr_assert(sy_env_symbol_add_source(env, u, "y.size()[0]"));
    cr_assert(eq(str, (char *)sy_env_show(env, u), "y.size()[0]"));
    sy_env_show_memo_stats(env, &hits, &misses);
    unsigned long h0 = hits, m0 = misses;
    /* off: no lookups at all, same text */
    sy_env_show_memo_set_off(env, 1);
    cr_assert(eq(str, (char *)sy_env_show(env, e), "2*x.size()[0] + 3"));
    sy_env_show_memo_stats(env, &hits, &misses);
    cr_assert(eq(sz, (size_t)hits, (size_t)h0));
    cr_assert(eq(sz, (size_t)misses, (size_t)m0));
    sy_env_free(env);
}

typedef struct {
    unsigned long hits;
    int models;
} memo_acc;

/* trace the model with the memo on or off; the env (and its graph) stay
 * alive for the comparison */
static sy_env *trace_model(const char *path, int off, sy_graph **g, sy_trace **tr)
{
    cr_assert(eq(int, sy_graph_load_file(ctx, path, g), SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
    sy_env *env = sy_env_new(ctx, NULL);
    cr_assert(env != NULL);
    sy_env_show_memo_set_off(env, off);
    cr_assert(eq(int, sy_env_trace(env, *g, 0, NULL, tr), SY_OK), "%s: %s", path, sy_ctx_last_error_msg(ctx));
    return env;
}

static int same_str(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static void differential_one(const char *path, const char *probes, const char *name, void *ud)
{
    (void)probes;
    memo_acc *acc = ud;
    sy_graph *g1, *g0;
    sy_trace *t1, *t0;
    sy_env *on = trace_model(path, 0, &g1, &t1), *off = trace_model(path, 1, &g0, &t0);
    cr_assert(eq(sz, sy_env_nguards(on), sy_env_nguards(off)), "%s", name);
    for (size_t i = 0; i < sy_env_nguards(on); i++) {
        const sy_guard_record *a = sy_env_guard(on, i), *b = sy_env_guard(off, i);
        cr_assert(eq(ptr, (void *)a->expr, (void *)b->expr), "%s guard %zu", name, i);
        cr_assert(eq(sz, a->norigins, b->norigins), "%s guard %zu", name, i);
        cr_assert(eq(u32, a->count, b->count), "%s guard %zu", name, i);
        for (size_t k = 0; k < a->norigins; k++) {
            const sy_guard_origin *x = &a->origins[k], *y = &b->origins[k];
            cr_assert(same_str(x->node, y->node) && same_str(x->op, y->op) && x->count == y->count,
                      "%s guard %zu origin %zu", name, i, k);
            cr_assert(same_str(x->reason, y->reason), "%s guard %zu origin %zu: '%s' vs '%s'", name, i, k,
                      x->reason ? x->reason : "(null)", y->reason ? y->reason : "(null)");
        }
    }
    unsigned long h, m;
    sy_env_show_memo_stats(off, &h, &m);
    cr_assert(eq(sz, (size_t)(h + m), 0), "%s: the memo was off", name);
    sy_env_show_memo_stats(on, &h, &m);
    acc->hits += h;
    acc->models++;
    sy_trace_free(t1);
    sy_trace_free(t0);
    sy_env_free(on);
    sy_env_free(off);
    sy_graph_free(g1);
    sy_graph_free(g0);
}

Test(show_memo, corpus_reasons_identical_with_memo_off, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(300))
{
    memo_acc acc = {0, 0};
    cr_assert(lt(int, 0, corpus_for_each(differential_one, &acc)), "no model found");
    cr_assert(lt(sz, 0, (size_t)acc.hits), "the memo never hit on %d models", acc.models);
}
