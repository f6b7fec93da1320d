/* Equality classes (issue 32, "--no-duck-sizing never fewer than the default"): without duck
 * sizing the model's own equalities (broadcast, cat, matmul) are recorded guards sJ == sK. Such a
 * guard reads no range, so it touches neither symbol, as duck sizing's shared symbol is untouched;
 * the symbols become one class, touched as a whole once a decision relies on a range
 * (shapeenv/env.c, class_question, link_equal, mark). */
#include "common.h"

static const sy_expr *sym(sy_env *env, int64_t ex, const char *src)
{
    const sy_expr *s = sy_env_create_symbol(env, ex, src, SY_DIM_DUCK);
    cr_assert(s != NULL, "%s", sy_ctx_last_error_msg(ctx));
    return s;
}

static int decide(sy_env *env, const sy_expr *rel)
{
    const sy_expr *v = NULL;
    cr_assert(eq(int, sy_env_evaluate_expr(env, rel, NULL, &v), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    return sy_expr_kind_of(v) == SY_EXPR_TRUE;
}

static sy_env *env_no_duck(void)
{
    sy_env_options o = SY_ENV_OPTIONS_INIT;
    o.duck_sizing = 0;
    sy_env *env = sy_env_new(ctx, &o);
    cr_assert(env != NULL);
    return env;
}

Test(shapeenv_eqclass, an_equality_guard_touches_nothing, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_env *env = env_no_duck();
    const sy_expr *s0 = sym(env, 4, "x.size()[0]"), *s1 = sym(env, 4, "y.size()[0]"), *s2 = sym(env, 4, "z.size()[0]");
    cr_assert(s0 != s1);
    cr_assert(s1 != s2);
    cr_assert(decide(env, sy_expr_eq(ctx, s0, s1)));
    cr_assert(eq(sz, sy_env_nguards(env), 1));
    cr_assert(eq(int, sy_env_symbol_touched(env, s0), 0));
    cr_assert(eq(int, sy_env_symbol_touched(env, s1), 0));
    /* asked again, either way round: true by the class, no guard, no touch */
    cr_assert(decide(env, sy_expr_eq(ctx, s1, s0)));
    cr_assert(decide(env, sy_expr_eq(ctx, s0, s1)));
    cr_assert(eq(sz, sy_env_nguards(env), 1));
    /* a rewrite that only replaces within the class touches nothing */
    const sy_expr *e = sy_expr_add(ctx, sy_expr_add(ctx, s0, s1), sy_expr_int_si(ctx, 3));
    const sy_expr *r = sy_env_simplify(env, e);
    cr_assert(r != NULL);
    cr_assert(r != e);
    cr_assert(eq(int, sy_env_symbol_touched(env, s0), 0));
    cr_assert(eq(int, sy_env_symbol_touched(env, s1), 0));
    /* a third symbol through the replaced one: the applied question is between the classes */
    cr_assert(decide(env, sy_expr_eq(ctx, s1, s2)));
    cr_assert(eq(sz, sy_env_nguards(env), 2));
    cr_assert(eq(int, sy_env_symbol_touched(env, s2), 0));
    cr_assert(eq(int, sy_env_symbol_touched(env, s0), 0));
    /* a decision the range answers (s == 1 is false only because of 0/1 specialization's
     * [2, oo)) touches the whole class */
    cr_assert(not(decide(env, sy_expr_eq(ctx, s2, sy_expr_int_si(ctx, 1)))));
    cr_assert(eq(sz, sy_env_nguards(env), 2));
    cr_assert(eq(int, sy_env_symbol_touched(env, s0), 1));
    cr_assert(eq(int, sy_env_symbol_touched(env, s1), 1));
    cr_assert(eq(int, sy_env_symbol_touched(env, s2), 1));
    sy_env_free(env);
}

Test(shapeenv_eqclass, a_touched_class_touches_what_joins_it, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_env *env = env_no_duck();
    const sy_expr *s0 = sym(env, 4, "x.size()[0]"), *s1 = sym(env, 4, "y.size()[0]"), *s2 = sym(env, 4, "z.size()[0]");
    const sy_expr *lo, *hi;
    cr_assert(eq(int, sy_env_bound(env, s0, &lo, &hi), SY_OK)); /* relies on s0's range */
    cr_assert(eq(int, sy_env_symbol_touched(env, s0), 1));
    cr_assert(eq(int, sy_env_symbol_touched(env, s1), 0));
    cr_assert(decide(env, sy_expr_eq(ctx, s1, s2)));
    cr_assert(eq(int, sy_env_symbol_touched(env, s1), 0));
    cr_assert(eq(int, sy_env_symbol_touched(env, s2), 0));
    cr_assert(decide(env, sy_expr_eq(ctx, s2, s0))); /* joins the touched s0 */
    cr_assert(eq(int, sy_env_symbol_touched(env, s1), 1));
    cr_assert(eq(int, sy_env_symbol_touched(env, s2), 1));
    sy_env_free(env);
}

Test(shapeenv_eqclass, a_narrower_range_of_a_replaced_symbol_is_kept, .init = ctx_setup, .fini = ctx_teardown)
{
    /* x's batch declared @0.. ([0, oo)), y's 0/1-specialized ([2, oo)): once equal, the facts
     * hold [2, oo) on one of them; a decision relying on it must bring y's 2 <= y.size()[0]
     * into the set even when the symbol it reads is x's */
    sy_env *env = env_no_duck();
    sy_dim_spec sp = {.dim = 0, .name = NULL, .min = 0, .max = SY_DIM_SPEC_UNSET};
    const sy_expr *s0 = sy_env_create_symbol_spec(env, 4, "x.size()[0]", &sp);
    const sy_expr *s1 = sym(env, 4, "y.size()[0]");
    cr_assert(s0 != NULL);
    cr_assert(s1 != NULL);
    cr_assert(s0 != s1);
    cr_assert(decide(env, sy_expr_eq(ctx, s0, s1)));
    cr_assert(eq(int, sy_env_symbol_touched(env, s0), 0));
    cr_assert(eq(int, sy_env_symbol_touched(env, s1), 0));
    cr_assert(not(decide(env, sy_expr_eq(ctx, s0, sy_expr_int_si(ctx, 1))))); /* false by y's range */
    cr_assert(eq(int, sy_env_symbol_touched(env, s0), 1));
    cr_assert(eq(int, sy_env_symbol_touched(env, s1), 1));
    sy_env_free(env);
}

Test(shapeenv_eqclass, other_equalities_still_touch, .init = ctx_setup, .fini = ctx_teardown)
{
    sy_env *env = env_no_duck();
    const sy_expr *s0 = sym(env, 4, "x.size()[0]"), *s1 = sym(env, 5, "y.size()[0]"), *s2 = sym(env, 8, "z.size()[0]");
    /* false at the example: the guard is s0 != s1, which the classes do not express */
    cr_assert(not(decide(env, sy_expr_eq(ctx, s0, s1))));
    cr_assert(eq(int, sy_env_symbol_touched(env, s0), 1));
    cr_assert(eq(int, sy_env_symbol_touched(env, s1), 1));
    /* not sym == sym: 2*s0 == s2 */
    cr_assert(decide(env, sy_expr_eq(ctx, sy_expr_mul_si(ctx, s0, 2), s2)));
    cr_assert(eq(int, sy_env_symbol_touched(env, s2), 1));
    sy_env_free(env);
}
