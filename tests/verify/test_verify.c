/* The Z3 verifier (symshape/verify.h): every obligation of the corpus models
 * is proven; planted faults (a guard set missing a guard, a replacement no
 * guard implies, a wrong rewrite, a Euclidean reading of FloorDiv) are
 * refuted with a counterexample. */
#include "common.h"
#include "corpus.h"

TestSuite(verify, .init = ctx_setup, .fini = ctx_teardown);

typedef struct { size_t n[4][3]; } tally;
static void count(void *ud, const sy_verify_obligation *ob)
{
    tally *t = ud;
    t->n[ob->kind][ob->verdict]++;
    if (ob->verdict != SY_VERIFY_PROVEN) fprintf(stderr, "not proven: %s (%s)\n", ob->what, ob->counterexample ? ob->counterexample : "");
}

static void corpus_model(const char *path, const char *probes, const char *name, void *ud)
{
    (void)probes;
    size_t *models = ud;
    sy_graph *g;
    cr_assert(eq(int, sy_graph_load_file(ctx, path, &g), SY_OK));
    sy_env *env = sy_env_new(ctx, NULL);
    sy_trace *t;
    cr_assert(eq(int, sy_env_trace(env, g, 0, NULL, &t), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    sy_gset *fin, *pro;
    cr_assert(eq(int, sy_gset_produce(env, g, &fin), SY_OK));
    cr_assert(eq(int, sy_gset_produce(env, g, &pro), SY_OK));
    cr_assert(eq(int, sy_gset_minimize(fin), SY_OK));
    tally ty;
    memset(&ty, 0, sizeof ty);
    sy_verify_summary s;
    cr_assert(eq(int, sy_verify_model(env, pro, fin, NULL, NULL, count, &ty, &s), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(sz, s.refuted + s.unknown, (size_t)0), "%s: %zu refuted, %zu unknown", name, s.refuted, s.unknown);
    cr_assert(eq(sz, ty.n[SY_VERIFY_EQUIVALENT][SY_VERIFY_PROVEN], (size_t)1));
    size_t rec = 0;
    for (size_t i = 0; i < sy_env_nguards(env); i++) rec += sy_env_guard(env, i)->kind == SY_GUARD_RELATION;
    cr_assert(eq(sz, ty.n[SY_VERIFY_IMPLIES][SY_VERIFY_PROVEN] + s.skipped_runtime, sy_env_nguards(env)), "%s", name);
    (*models)++;
    sy_gset_free(fin);
    sy_gset_free(pro);
    sy_trace_free(t);
    sy_env_free(env);
    sy_graph_free(g);
}

Test(verify, every_corpus_obligation_is_proven)
{
    cr_assert(sy_verify_available());
    size_t models = 0;
    cr_assert(corpus_for_each(corpus_model, &models) > 0);
    cr_assert(gt(sz, models, (size_t)0));
}

/* x: [8, 3] dynamic, one user fact 2*x.size()[0] >= 10 recorded as a guard. */
static sy_env *env_with_fact(int fact, const sy_tensor **x)
{
    sy_env *env = sy_env_new(ctx, NULL);
    int64_t shape[2] = {8, 3};
    sy_dim_policy pol[2] = {SY_DIM_DYNAMIC, SY_DIM_DYNAMIC};
    *x = sy_env_input(env, "x", SY_DT_FLOAT32, 2, shape, pol);
    cr_assert(not(eq(ptr, (void *)*x, NULL)));
    if (fact) {
        sy_provenance why = {"n1", "assume", "planted"};
        cr_assert(eq(int, sy_env_assume(env, sy_expr_ge(ctx, sy_expr_mul_si(ctx, (*x)->sizes[0], 2), sy_expr_int_si(ctx, 10)), &why), SY_OK),
                  "%s", sy_ctx_last_error_msg(ctx));
    }
    return env;
}

typedef struct { int kind; int refuted; char cex[256]; } last_refuted;
static void keep_refuted(void *ud, const sy_verify_obligation *ob)
{
    last_refuted *l = ud;
    if (ob->verdict == SY_VERIFY_REFUTED && ob->kind == (sy_verify_kind)l->kind) {
        l->refuted++;
        snprintf(l->cex, sizeof l->cex, "%s", ob->counterexample);
    }
}

Test(verify, a_guard_set_missing_a_guard_is_refuted)
{
    const sy_tensor *x1, *x2;
    sy_env *with = env_with_fact(1, &x1), *without = env_with_fact(0, &x2);
    sy_gset *pro, *fin;
    cr_assert(eq(int, sy_gset_produce(with, NULL, &pro), SY_OK));
    cr_assert(eq(int, sy_gset_produce(without, NULL, &fin), SY_OK)); /* planted: the fact's guard is missing */
    last_refuted l = {SY_VERIFY_EQUIVALENT, 0, ""};
    sy_verify_summary s;
    cr_assert(eq(int, sy_verify_model(with, pro, fin, NULL, NULL, keep_refuted, &l, &s), SY_OK));
    cr_assert(eq(int, l.refuted, 1));
    /* the counterexample has x.size()[0] <= 4 (2*s < 10) */
    const char *p = strstr(l.cex, "x.size()[0] = ");
    cr_assert(p != NULL, "%s", l.cex);
    long v = strtol(p + strlen("x.size()[0] = "), NULL, 10);
    cr_assert(le(long, v, 4L), "%s", l.cex);
    cr_assert(ge(long, v, 0L), "%s", l.cex);
    /* (b) the recorded guard is not implied either */
    l.kind = SY_VERIFY_IMPLIES;
    l.refuted = 0;
    cr_assert(eq(int, sy_verify_model(with, pro, fin, NULL, NULL, keep_refuted, &l, &s), SY_OK));
    cr_assert(eq(int, l.refuted, 1));
    cr_assert(eq(sz, s.refuted, (size_t)2));
    /* with the right set: everything proven, (d) included */
    int64_t example[8];
    cr_assert(le(sz, sy_gset_nsources(pro), (size_t)8));
    for (size_t i = 0; i < sy_gset_nsources(pro); i++) {
        const char *src = sy_gset_source(pro, i);
        example[i] = strstr(src, ".dim()") ? 2 : strstr(src, ".dtype") ? 0 : strstr(src, "[0]") ? 8 : 3;
    }
    cr_assert(eq(int, sy_verify_model(with, pro, pro, example, NULL, NULL, NULL, &s), SY_OK));
    cr_assert(eq(sz, s.refuted + s.unknown, (size_t)0));
    cr_assert(gt(sz, s.proven, (size_t)2));
    /* an example point that violates a guard is refuted in (d) */
    for (size_t i = 0; i < sy_gset_nsources(pro); i++)
        if (strstr(sy_gset_source(pro, i), "[0]")) example[i] = 4;
    l.kind = SY_VERIFY_EXAMPLE;
    l.refuted = 0;
    cr_assert(eq(int, sy_verify_model(with, pro, pro, example, NULL, keep_refuted, &l, &s), SY_OK));
    cr_assert(eq(int, l.refuted, 1));
    sy_gset_free(pro);
    sy_gset_free(fin);
    sy_env_free(with);
    sy_env_free(without);
}

Test(verify, a_replacement_no_guard_implies_is_refuted)
{
    const sy_tensor *x;
    sy_env *env = env_with_fact(0, &x);
    /* planted: a fact added behind the env's back, so no guard records it */
    const sy_expr *planted = sy_expr_eq(ctx, x->sizes[0], sy_expr_add_si(ctx, sy_expr_mul_si(ctx, x->sizes[1], 2), 2));
    cr_assert(eq(int, sy_facts_add(sy_env_facts(env), planted), SY_OK));
    cr_assert(sy_facts_replacement(sy_env_facts(env), x->sizes[0]) != NULL ||
              sy_facts_replacement(sy_env_facts(env), x->sizes[1]) != NULL);
    sy_gset *gs;
    cr_assert(eq(int, sy_gset_produce(env, NULL, &gs), SY_OK));
    last_refuted l = {SY_VERIFY_REPLACEMENT, 0, ""};
    sy_verify_summary s;
    cr_assert(eq(int, sy_verify_model(env, gs, gs, NULL, NULL, keep_refuted, &l, &s), SY_OK));
    cr_assert(eq(int, l.refuted, 1));
    cr_assert(strstr(l.cex, "x.size()[0] = ") && strstr(l.cex, "x.size()[1] = "), "%s", l.cex);
    sy_gset_free(gs);
    sy_env_free(env);
}

Test(verify, rewrites_are_proved_or_refuted)
{
    sy_verify_verdict v;
    char *cex;
    /* a true rewrite: FloorDiv(x + 2*y, 2) == FloorDiv(x, 2) + y (any signs) */
    cr_assert(eq(int, sy_verify_equal(ctx, 0, NULL, P("FloorDiv(x + 2*y, 2)"), sy_expr_add(ctx, P("FloorDiv(x, 2)"), P("y")), NULL, &v, &cex), SY_OK));
    cr_assert(eq(int, v, SY_VERIFY_PROVEN));
    cr_assert(cex == NULL);
    /* a wrong rule (planted): FloorDiv(x, 2)*2 -> x */
    cr_assert(eq(int, sy_verify_equal(ctx, 0, NULL, P("FloorDiv(x, 2)*2"), P("x"), NULL, &v, &cex), SY_OK));
    cr_assert(eq(int, v, SY_VERIFY_REFUTED));
    cr_assert(cex != NULL && strstr(cex, "x = "), "%s", cex ? cex : "");
    long xv = strtol(strstr(cex, "x = ") + 4, NULL, 10);
    cr_assert(ne(long, xv % 2, 0L), "%s", cex);
    sy_str_free(ctx, cex);
    /* Python floor vs Euclidean: Mod(x, -3) is in (-3, 0]; the Euclidean
     * reading [0, 3) would make this false */
    const sy_expr *a[1] = {P("x >= -100")};
    cr_assert(eq(int, sy_verify_bound(ctx, 1, a, P("Mod(x, -3)"), sy_expr_int_si(ctx, -2), sy_expr_int_si(ctx, 0), NULL, &v, &cex), SY_OK));
    cr_assert(eq(int, v, SY_VERIFY_PROVEN));
    cr_assert(eq(int, sy_verify_bound(ctx, 1, a, P("Mod(x, -3)"), sy_expr_int_si(ctx, 0), sy_expr_int_si(ctx, 2), NULL, &v, &cex), SY_OK));
    cr_assert(eq(int, v, SY_VERIFY_REFUTED));
    sy_str_free(ctx, cex);
    /* CeilDiv with a symbolic divisor: defined where y != 0 */
    const sy_expr *ay[1] = {P("y >= 1")};
    sy_verify_options big = SY_VERIFY_OPTIONS_INIT;
    big.rlimit = 50000000; /* nonlinear (a symbolic divisor): more of Z3's deterministic budget */
    cr_assert(eq(int, sy_verify_equal(ctx, 1, ay, P("CeilDiv(x, y)"), P("FloorDiv(x + y - 1, y)"), &big, &v, &cex), SY_OK));
    cr_assert(eq(int, v, SY_VERIFY_PROVEN));
    /* without the assumption the right side is still defined where the left is */
    cr_assert(eq(int, sy_verify_equal(ctx, 0, NULL, P("CeilDiv(x, y)"), P("FloorDiv(x + y - 1, y)"), &big, &v, &cex), SY_OK));
    cr_assert(eq(int, v, SY_VERIFY_REFUTED)); /* y < 0: CeilDiv(7, -2) = -3, FloorDiv(4, -2) = -2 */
    sy_str_free(ctx, cex);
    /* decide answers: a wrong "true" is refuted */
    cr_assert(eq(int, sy_verify_equal(ctx, 1, ay, P("Mod(x, y) < y"), sy_expr_true(ctx), NULL, &v, NULL), SY_OK));
    cr_assert(eq(int, v, SY_VERIFY_PROVEN));
    cr_assert(eq(int, sy_verify_equal(ctx, 1, ay, P("Mod(x, y) < y - 1"), sy_expr_true(ctx), NULL, &v, NULL), SY_OK));
    cr_assert(eq(int, v, SY_VERIFY_REFUTED));
    /* type mismatch and NULLs are errors */
    cr_assert(eq(int, sy_verify_equal(ctx, 0, NULL, P("x"), sy_expr_true(ctx), NULL, &v, NULL), SY_EINVAL));
    cr_assert(eq(int, sy_verify_model(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), SY_EINVAL));
}
