/* The readers index of the replacements (decide_private.h rd_head, decide_facts.c
 * install_replacement): a new replacement s := v rewrites only the entries listed as reading s.
 * Random sets of equalities that hold at a hidden point (offsets s_j == s_i + c, forward and
 * backward chains, sums s_j == s_i + s_k + c, doubles s_j == 2*s_i + c, aliases), added in a
 * random order with ranges and inequalities between them, on a fact set and on copies taken
 * midway, checked by evaluation:
 *  - no replacement reads a replaced symbol (every entry that read s was rewritten when s was
 *    replaced: the index missed none);
 *  - at random values of the symbols that are not replaced, the replaced ones evaluated through
 *    their replacements satisfy every equality added (the rewrites are exact). */
#include "common.h"

#define NSYM 40

static uint64_t rng_state;
static uint64_t rnd64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd64() % (uint64_t)(hi - lo + 1)); }

static int64_t eval_at(const sy_expr *e, size_t n, const sy_expr *const *syms, const int64_t *vals)
{
    int64_t v = 0;
    cr_assert(eq(int, sy_expr_eval_si(ctx, e, n, syms, vals, &v), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    return v;
}

/* the replacements of f: none reads a replaced symbol; the equalities hold at random points */
static size_t check_facts(sy_facts *f, size_t n, const sy_expr *const *s, const sy_expr *const *eqs, size_t neq)
{
    const sy_expr *rep[NSYM];
    for (size_t i = 0; i < n; i++) {
        rep[i] = sy_facts_replacement(f, s[i]);
        if (!rep[i]) continue;
        const sy_expr **fs;
        size_t k;
        cr_assert(eq(int, sy_expr_free_symbols(ctx, rep[i], &fs, &k), SY_OK));
        for (size_t j = 0; j < k; j++)
            cr_assert(sy_facts_replacement(f, fs[j]) == NULL, "%s := %s reads the replaced %s", S(s[i]), S(rep[i]), S(fs[j]));
        sy_mem_free(ctx, fs);
    }
    size_t checked = 0;
    for (int p = 0; p < 8; p++) {
        int64_t vals[NSYM];
        for (size_t i = 0; i < n; i++) vals[i] = rnd_in(-50, 50);
        for (size_t i = 0; i < n; i++)
            if (rep[i]) vals[i] = eval_at(rep[i], n, s, vals); /* reads only symbols that are not replaced */
        for (size_t q = 0; q < neq; q++, checked++)
            cr_assert(eq(i64, eval_at(eqs[q], n, s, vals), 1), "equality %zu %s fails", q, S(eqs[q]));
    }
    return checked;
}

Test(algebra_repl_index, replacements_read_no_replaced_symbol_and_satisfy_every_equality, .init = ctx_setup,
     .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    rng_state = 0x5eed47u;
    const sy_expr *s[NSYM];
    for (int i = 0; i < NSYM; i++) {
        char name[8];
        snprintf(name, sizeof name, "s%d", i);
        s[i] = sy_expr_sym(ctx, name);
    }
    size_t checked = 0, repls = 0;
    for (int trial = 0; trial < 300; trial++) {
        size_t n = (size_t)rnd_in(3, NSYM);
        int64_t hid[NSYM];
        for (size_t i = 0; i < n; i++) hid[i] = rnd_in(-20, 20);
        sy_facts *f = sy_facts_new(ctx), *mid = NULL;
        cr_assert(f != NULL);
        const sy_expr *eqs[3 * NSYM];
        size_t neq = 0, m = (size_t)rnd_in(1, 2 * (int64_t)n);
        for (size_t q = 0; q < m; q++) {
            size_t j = (size_t)rnd_in(0, (int64_t)n - 1), i = (size_t)rnd_in(0, (int64_t)n - 1), k = (size_t)rnd_in(0, (int64_t)n - 1);
            if (rnd64() % 2 && q) i = (j + 1) % n; /* chains: neighbours, in either direction */
            const sy_expr *rhs;
            switch (rnd64() % 5) {
            case 0: rhs = s[i]; break;
            case 1: rhs = sy_expr_add(ctx, s[i], s[k]); break;
            case 2: rhs = sy_expr_mul_si(ctx, s[i], 2); break;
            default: rhs = sy_expr_add_si(ctx, s[i], rnd_in(-3, 3)); break;
            }
            if (i == j) continue;
            int64_t hv[NSYM];
            for (size_t t = 0; t < n; t++) hv[t] = hid[t];
            int64_t c = hid[j] - eval_at(rhs, n, s, hv); /* holds at the hidden point */
            const sy_expr *e = sy_expr_eq(ctx, s[j], sy_expr_add_si(ctx, rhs, c));
            cr_assert(e != NULL);
            if (sy_expr_kind_of(e) == SY_EXPR_TRUE) continue;
            eqs[neq++] = e;
            cr_assert(eq(int, sy_facts_add(f, e), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
            if (mid) cr_assert(eq(int, sy_facts_add(mid, e), SY_OK));
            if (rnd64() % 4 == 0) { /* a range and an inequality, re-added by every replacement after */
                const sy_expr *r = sy_expr_ge(ctx, s[k], sy_expr_int_si(ctx, hid[k] - 30));
                const sy_expr *l = sy_expr_le(ctx, sy_expr_add(ctx, s[i], s[k]), sy_expr_int_si(ctx, hid[i] + hid[k] + 5));
                cr_assert(eq(int, sy_facts_add(f, r), SY_OK));
                cr_assert(eq(int, sy_facts_add(f, l), SY_OK));
                if (mid) cr_assert(eq(int, sy_facts_add(mid, r), SY_OK));
                if (mid) cr_assert(eq(int, sy_facts_add(mid, l), SY_OK));
            }
            if (!mid && q == m / 2) { /* a copy midway goes on with its own replacements */
                mid = sy_facts_copy(f);
                cr_assert(mid != NULL);
            }
        }
        cr_assert(eq(int, sy_facts_consistent(f), SY_TRUE));
        checked += check_facts(f, n, s, eqs, neq);
        if (mid) checked += check_facts(mid, n, s, eqs, neq);
        for (size_t i = 0; i < n; i++) repls += sy_facts_replacement(f, s[i]) != NULL;
        sy_facts_free(mid);
        sy_facts_free(f);
    }
    cr_assert(gt(sz, repls, 2000));
    cr_assert(gt(sz, checked, 20000));
    cr_log_info("repl index: %zu replacements, %zu equality evaluations", repls, checked);
}
