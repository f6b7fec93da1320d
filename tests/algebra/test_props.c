/* Property tests: random expression trees are built through the canonical
 * constructors and evaluated both ways (reference tree evaluation with
 * bignums vs the canonical node); printing re-parses to the same node.
 * Every construction-time rewrite rule is exercised this way. */
#include "gen.h"
#include "algebra/rules.h"

Test(algebra_props, canonical_equals_unsimplified_on_1e5_random_expressions, .timeout = SY_TIMEOUT(900))
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

/* Rule ADD_HALVES (algebra/div.c sy_terms_halves): sums of FloorDiv/Mod/CeilDiv by +-2 over
 * numerators that share their monomials, with odd, even, large and negative coefficients, next to
 * other random terms. The canonical sum must equal the tree evaluated with bignums at random
 * points (small, past int64, INT64_MIN/MAX); over plain symbols (no intrinsic range folds an
 * atom) the difference of two equal forms (CeilDiv(A, 2) against A - FloorDiv(A, 2), Mod(A, 2)
 * against A - 2*FloorDiv(A, 2)) must be the constant 0 (the forms themselves may stay apart:
 * a sum with one such atom is left as it is). */
static tnode *tconst(int64_t c)
{
    tnode *n = &pool[npool++];
    memset(n, 0, sizeof *n);
    n->op = N_CONST;
    n->c = c;
    return n;
}
static tnode *tbin(int op, tnode *a, tnode *b)
{
    tnode *n = &pool[npool++];
    memset(n, 0, sizeof *n);
    n->op = op;
    n->a = a;
    n->b = b;
    return n;
}

Test(algebra_props, halves_in_sums_equal_exact_evaluation, .timeout = SY_TIMEOUT(600))
{
    rng = test_seed() | 1;
    long iters = 20000 * test_multiplier();
    long compared = 0, fired = 0, equal_forms = 0;
    fmpz vals[3];
    fmpz_t ref;
    for (int i = 0; i < 3; i++) fmpz_init(&vals[i]);
    fmpz_init(ref);
    ctx = NULL;
    static const int64_t coefs[] = {1, -1, 2, -2, 16, -16, 3, 5, -7, 32, 1LL << 40, -(1LL << 41) + 1};
    static const int64_t ncoefs[] = {1, -1, 3, -3, 1, 1, -1, 5, 2, 4, 1LL << 33, -7};
    for (long it = 0; it < iters; it++) {
        if (it % 1000 == 0) {
            if (ctx) sy_ctx_free(ctx);
            cr_assert(eq(int, sy_ctx_new(NULL, &ctx), SY_OK));
        }
        const sy_expr *syms[3] = {sy_expr_sym(ctx, "x"), sy_expr_sym(ctx, "y"), sy_expr_sym(ctx, "z")};
        npool = 0;
        bool plain = it % 2 == 0; /* bases are symbols: the equal-forms check applies */
        tnode *base[3];
        int nb = 1 + (int)(rnd() % 3);
        for (int i = 0; i < nb; i++) {
            if (plain) {
                base[i] = &pool[npool++];
                memset(base[i], 0, sizeof *base[i]);
                base[i]->op = N_SYM;
                base[i]->sym = i;
            } else {
                base[i] = gen(1 + (int)(rnd() % 2));
            }
        }
        tnode *sum = NULL, *alt = NULL; /* alt: CeilDiv and Mod written with FloorDiv */
        int nm = 2 + (int)(rnd() % 4);
        for (int m = 0; m < nm; m++) {
            tnode *num = tconst((int64_t)(rnd() % 9) - 4);
            for (int i = 0; i < nb; i++) {
                int64_t c = ncoefs[rnd() % (plain ? 8 : sizeof ncoefs / sizeof ncoefs[0])];
                num = tbin(N_ADD, num, tbin(N_MUL, tconst(c), base[i]));
            }
            static const int ops[] = {N_FDIV, N_MOD, N_CDIV};
            int op = ops[rnd() % 3];
            int64_t d = plain || rnd() % 4 ? 2 : -2;
            int64_t k = coefs[rnd() % (sizeof coefs / sizeof coefs[0])];
            tnode *term = tbin(N_MUL, tconst(k), tbin(op, num, tconst(d)));
            tnode *fl = tbin(N_FDIV, num, tconst(2));
            tnode *aterm = op == N_FDIV ? term
                           : op == N_CDIV ? tbin(N_MUL, tconst(k), tbin(N_SUB, num, fl))
                                          : tbin(N_MUL, tconst(k), tbin(N_SUB, num, tbin(N_MUL, tconst(2), fl)));
            sum = sum ? tbin(N_ADD, sum, term) : term;
            alt = alt ? tbin(N_ADD, alt, aterm) : aterm;
        }
        if (!plain && rnd() % 2) sum = tbin(N_ADD, sum, gen(2));
        sy_ctx_reset_error(ctx);
        sy_rules_reset_hits(ctx);
        const sy_expr *e = build(sum, syms);
        char buf[8192];
        if (!e) {
            sy_status st = sy_ctx_last_error(ctx);
            cr_assert(st == SY_EQUOTA || st == SY_EDIVZERO, "%s: %s %s", show(sum, buf, sizeof buf), sy_status_name(st),
                      sy_ctx_last_error_msg(ctx));
            continue;
        }
        fired += sy_rule_hits(ctx, SY_R_ADD_HALVES) > 0;
        if (plain) {
            const sy_expr *a = build(alt, syms), *diff = a ? sy_expr_sub(ctx, e, a) : NULL;
            cr_assert(diff != NULL, "%s", sy_ctx_last_error_msg(ctx));
            cr_assert(diff == sy_expr_int_si(ctx, 0), "equal forms, nonzero difference %s: %s -> %s, %s -> %s", S(diff),
                      show(sum, buf, 4096), S(e), show(alt, buf + 4096, 4096), S(a));
            equal_forms++;
        }
        for (int p = 0; p < 6; p++) {
            for (int i = 0; i < 3; i++) random_value(&vals[i]);
            if (!refeval(sum, vals, ref)) continue;
            const sy_expr *valexp[3];
            for (int i = 0; i < 3; i++) {
                char *s = fmpz_get_str(NULL, 10, &vals[i]);
                valexp[i] = sy_expr_int_str(ctx, s);
                flint_free(s);
            }
            const sy_expr *v = NULL;
            sy_status st = sy_expr_eval(ctx, e, 3, syms, valexp, &v);
            if (st == SY_EQUOTA) continue;
            cr_assert(eq(int, st, SY_OK), "%s defined but canonical %s fails: %s", show(sum, buf, sizeof buf), S(e),
                      sy_ctx_last_error_msg(ctx));
            char *rs = fmpz_get_str(NULL, 10, ref);
            const sy_expr *want = sy_expr_int_str(ctx, rs);
            flint_free(rs);
            if (v != want) {
                char *xs = fmpz_get_str(NULL, 10, &vals[0]), *ys = fmpz_get_str(NULL, 10, &vals[1]),
                     *zs = fmpz_get_str(NULL, 10, &vals[2]);
                cr_assert(v == want, "%s -> %s differs at x=%s y=%s z=%s: %s vs %s (seed %llu)", show(sum, buf, sizeof buf),
                          S(e), xs, ys, zs, S(v), S(want), (unsigned long long)test_seed());
            }
            compared++;
        }
    }
    sy_ctx_free(ctx);
    ctx = NULL;
    for (int i = 0; i < 3; i++) fmpz_clear(&vals[i]);
    fmpz_clear(ref);
    fprintf(stderr, "halves: %ld sums, the rule fired on %ld, %ld equal-form pairs with difference 0, %ld points compared\n",
            iters, fired, equal_forms, compared);
    cr_assert(lt(long, iters / 4, fired));
    cr_assert(lt(long, iters / 4, equal_forms));
    cr_assert(lt(long, iters, compared));
    flint_cleanup();
}
