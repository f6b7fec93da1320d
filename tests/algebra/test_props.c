/* Property tests: random expression trees are built through the canonical
 * constructors and evaluated both ways (reference tree evaluation with
 * bignums vs the canonical node); printing re-parses to the same node.
 * Every construction-time rewrite rule is exercised this way. */
#include "gen.h"

Test(algebra_props, canonical_equals_unsimplified_on_1e5_random_expressions, .timeout = 900)
{
    rng = test_seed() | 1;
    long iters = 100000 * test_multiplier();
    long compared = 0, roundtrips = 0;
    fmpz vals[3];
    fmpz_t ref, got;
    for (int i = 0; i < 3; i++) fmpz_init(&vals[i]);
    fmpz_init(ref);
    fmpz_init(got);
    ctx = NULL;
    for (long it = 0; it < iters; it++) {
        if (it % 2000 == 0) {
            if (ctx) sy_ctx_free(ctx);
            cr_assert(eq(int, sy_ctx_new(NULL, &ctx), SY_OK));
        }
        const sy_expr *syms[3] = {sy_expr_sym(ctx, "x"), sy_expr_sym(ctx, "y"), sy_expr_sym(ctx, "z")};
        npool = 0;
        tnode *t = gen(1 + (int)(rnd() % 4));
        sy_ctx_reset_error(ctx);
        const sy_expr *e = build(t, syms);
        if (!e) {
            /* only a constant zero divisor or a budget may refuse construction */
            sy_status st = sy_ctx_last_error(ctx);
            char buf[4096];
            cr_assert(st == SY_EDIVZERO || st == SY_EQUOTA, "%s: %s %s", show(t, buf, sizeof buf),
                      sy_status_name(st), sy_ctx_last_error_msg(ctx));
            continue;
        }
        if (it % 10 == 0) { /* print/parse round trip */
            char *s = sy_expr_print(ctx, e, SY_PRINT_CANONICAL);
            const sy_expr *back = NULL;
            cr_assert(eq(int, sy_expr_parse(ctx, s, (size_t)-1, &back), SY_OK), "%s: %s", s, sy_ctx_last_error_msg(ctx));
            cr_assert(back == e, "round trip of %s", s);
            sy_str_free(ctx, s);
            roundtrips++;
        }
        for (int p = 0; p < 4; p++) {
            for (int i = 0; i < 3; i++) random_value(&vals[i]);
            if (!refeval(t, vals, ref)) continue;
            /* evaluate the canonical node exactly */
            const sy_expr *valexp[3];
            for (int i = 0; i < 3; i++) {
                char *s = fmpz_get_str(NULL, 10, &vals[i]);
                valexp[i] = sy_expr_int_str(ctx, s);
                flint_free(s);
            }
            const sy_expr *v = NULL;
            sy_status st = sy_expr_eval(ctx, e, 3, syms, valexp, &v);
            if (st == SY_EQUOTA) continue;
            char buf[4096];
            cr_assert(eq(int, st, SY_OK), "%s defined but canonical %s fails: %s", show(t, buf, sizeof buf), S(e),
                      sy_ctx_last_error_msg(ctx));
            char *rs = fmpz_get_str(NULL, 10, ref);
            const sy_expr *want = sy_expr_int_str(ctx, rs);
            flint_free(rs);
            if (v != want) {
                char *xs = fmpz_get_str(NULL, 10, &vals[0]), *ys = fmpz_get_str(NULL, 10, &vals[1]),
                     *zs = fmpz_get_str(NULL, 10, &vals[2]);
                cr_assert(v == want, "%s -> %s differs at x=%s y=%s z=%s: %s vs %s (seed %llu)",
                          show(t, buf, sizeof buf), S(e), xs, ys, zs, S(v), S(want),
                          (unsigned long long)test_seed());
            }
            compared++;
        }
    }
    sy_ctx_free(ctx);
    ctx = NULL;
    for (int i = 0; i < 3; i++) fmpz_clear(&vals[i]);
    fmpz_clear(ref);
    fmpz_clear(got);
    fprintf(stderr, "props: %ld expressions, %ld points compared, %ld round trips\n", iters, compared, roundtrips);
    cr_assert(lt(long, iters, compared));
    flint_cleanup();
}
