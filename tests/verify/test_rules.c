/* Every rewrite rule of algebra/rules.def proven with Z3 (docs/proof.md,
 * "Rewrite rules as data"). LHS, RHS and the side conditions are parsed with
 * every rule switched off, so they are the literal pattern, and
 * sy_verify_equal proves: for all integers, if the side conditions hold and
 * LHS is defined, RHS is defined and equal (equivalent, for relations). An
 * entry marked bounded (BOUND = N) is proven with every pattern variable in
 * [-N, N]; the test prints which. A wrong rule planted in the same form is
 * refuted with a counterexample. */
#include <ctype.h>
#include <stdio.h>

#include "common.h"
#include "algebra/rules.h"

TestSuite(rules_z3, .init = ctx_setup, .fini = ctx_teardown);

static const sy_expr *parse_literal(const char *text)
{
    const sy_expr *e = NULL;
    sy_status st = sy_expr_parse(ctx, text, strlen(text), &e);
    cr_assert(eq(int, st, SY_OK), "parse '%s': %s", text, sy_ctx_last_error_msg(ctx));
    return e;
}

/* text with every whole-word occurrence of names[i] replaced by "(vals[i])" */
static void subst(const char *text, char names[16][8], const long *vals, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *p = text; *p && o + 24 < cap;) {
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *s = p;
            while (isalnum((unsigned char)*p) || *p == '_') p++;
            size_t len = (size_t)(p - s);
            size_t i = 0;
            while (i < n && !(strlen(names[i]) == len && !memcmp(names[i], s, len))) i++;
            if (i < n) o += (size_t)snprintf(out + o, cap - o, "(%ld)", vals[i]);
            else {
                memcpy(out + o, s, len);
                o += len;
            }
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
}

/* side conditions (';'-separated) parsed literally into as[] */
static size_t parse_side(const char *side, const sy_expr **as)
{
    size_t na = 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", side);
    for (char *tok = strtok(buf, ";"); tok; tok = strtok(NULL, ";")) as[na++] = parse_literal(tok);
    return na;
}

/* One instance's claim: (every side condition) => lhs == rhs (<=> for relations). */
static const sy_expr *claim_of(const sy_expr *l, const sy_expr *r, size_t na, const sy_expr *const *as)
{
    const sy_expr *v[64];
    size_t n = 0;
    for (size_t i = 0; i < na; i++) v[n++] = sy_expr_not(ctx, as[i]);
    if (sy_expr_is_bool(l)) {
        const sy_expr *both = sy_expr_and(ctx, l, r);
        const sy_expr *neither = sy_expr_and(ctx, sy_expr_not(ctx, l), sy_expr_not(ctx, r));
        v[n++] = sy_expr_or(ctx, both, neither);
    } else {
        v[n++] = sy_expr_eq(ctx, l, r);
    }
    return sy_expr_or_n(ctx, n, v);
}

/* Prove lhs == rhs under side. split "" : for all integers; "v1 v2=N": the
 * conjunction of the instances for every value of v1, v2 in [-N, N] (an
 * instance whose LHS divides by zero has nothing to prove), all integers of
 * the other variables. *ninst: the number of instances. */
static sy_verify_verdict prove(const char *lhs, const char *rhs, const char *side, const char *split, unsigned rlimit,
                               char **cex, size_t *ninst)
{
    sy_rules_set_all(ctx, false);
    sy_verify_options o = SY_VERIFY_OPTIONS_INIT;
    o.rlimit = rlimit;
    sy_verify_verdict v = SY_VERIFY_UNKNOWN;
    *ninst = 1;
    if (!*split) {
        const sy_expr *as[64];
        size_t na = parse_side(side, as);
        const sy_expr *l = parse_literal(lhs), *r = parse_literal(rhs);
        sy_rules_set_all(ctx, true);
        cr_assert(eq(int, sy_verify_equal(ctx, na, as, l, r, &o, &v, cex), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
        return v;
    }
    char names[16][8];
    size_t nn = 0;
    const char *eqs = strchr(split, '=');
    cr_assert(eqs != NULL, "split '%s' has no '=N'", split);
    long N = strtol(eqs + 1, NULL, 10);
    char list[64];
    snprintf(list, sizeof list, "%.*s", (int)(eqs - split), split);
    for (char *tok = strtok(list, " "); tok; tok = strtok(NULL, " ")) snprintf(names[nn++], sizeof names[0], "%s", tok);
    long vals[16];
    for (size_t i = 0; i < nn; i++) vals[i] = -N;
    const sy_expr **claims = malloc(200000 * sizeof *claims);
    size_t nc = 0;
    char tl[1024], tr_[1024], ts[1024];
    for (;;) {
        subst(lhs, names, vals, nn, tl, sizeof tl);
        subst(rhs, names, vals, nn, tr_, sizeof tr_);
        subst(side, names, vals, nn, ts, sizeof ts);
        /* an instance whose LHS or a side condition divides by zero has
         * nothing to prove (LHS undefined, or the side does not hold); one
         * whose RHS alone does must have a false side */
        const sy_expr *l = NULL, *r = NULL, *as[64];
        size_t na = 0;
        sy_status st = sy_expr_parse(ctx, tl, strlen(tl), &l);
        for (char *tok = strtok(ts, ";"); tok && st == SY_OK; tok = strtok(NULL, ";"))
            st = sy_expr_parse(ctx, tok, strlen(tok), &as[na++]);
        if (st == SY_OK) {
            st = sy_expr_parse(ctx, tr_, strlen(tr_), &r);
            if (st == SY_EDIVZERO) {
                sy_ctx_reset_error(ctx);
                const sy_expr *nots[64];
                for (size_t k = 0; k < na; k++) nots[k] = sy_expr_not(ctx, as[k]);
                claims[nc++] = sy_expr_or_n(ctx, na, nots);
                st = SY_OK;
            } else {
                cr_assert(eq(int, st, SY_OK), "parse '%s': %s", tr_, sy_ctx_last_error_msg(ctx));
                claims[nc++] = claim_of(l, r, na, as);
            }
        } else {
            cr_assert(eq(int, st, SY_EDIVZERO), "parse '%s' / '%s': %s", tl, side, sy_ctx_last_error_msg(ctx));
            sy_ctx_reset_error(ctx);
        }
        size_t i = 0;
        while (i < nn && vals[i] == N) vals[i++] = -N;
        if (i == nn) break;
        vals[i]++;
    }
    const sy_expr *all = sy_expr_and_n(ctx, nc, claims);
    cr_assert(all != NULL, "%s", sy_ctx_last_error_msg(ctx));
    free(claims);
    *ninst = nc;
    sy_rules_set_all(ctx, true);
    cr_assert(eq(int, sy_verify_equal(ctx, 0, NULL, all, sy_expr_true(ctx), &o, &v, cex), SY_OK), "%s",
              sy_ctx_last_error_msg(ctx));
    return v;
}

static const char *verdict_name(sy_verify_verdict v)
{
    return v == SY_VERIFY_PROVEN ? "proven" : v == SY_VERIFY_REFUTED ? "REFUTED" : "unknown";
}

Test(rules_z3, every_rule_of_the_table_is_proven, .timeout = SY_TIMEOUT(600))
{
    size_t unbounded = 0, bounded = 0, form = 0;
    for (unsigned i = 0; i < SY_R_COUNT; i++) {
        const sy_rule *R = &sy_rules_table[i];
        char *cex = NULL;
        size_t ninst = 0;
        sy_verify_verdict v = prove(R->lhs, R->rhs, R->side, R->split, 2000000, &cex, &ninst);
        /* Z3's default solver switches strategies on wall-clock time, so a
         * loaded machine can turn a proof into unknown: retry with more budget
         * (unknown is never taken as proven) */
        for (int retry = 0; v == SY_VERIFY_UNKNOWN && retry < 2; retry++) {
            cex = sy_str_free(ctx, cex); /* an unknown's reason */
            v = prove(R->lhs, R->rhs, R->side, R->split, 8000000, &cex, &ninst);
        }
        printf("rule %-26s %-4s %s -> %s%s%s: %s", R->name, R->kind == SY_RULE_FORM ? "form" : "", R->lhs, R->rhs,
               *R->side ? " if " : "", R->side, verdict_name(v));
        if (*R->split) printf(" (BOUNDED: %s, %zu instances, the other variables all integers)", R->split, ninst);
        else printf(" (all integers)");
        if (cex) printf(" %s %s", v == SY_VERIFY_REFUTED ? "counterexample" : "reason:", cex);
        printf("\n");
        cr_expect(eq(int, v, SY_VERIFY_PROVEN), "rule %s: %s %s", R->name, verdict_name(v), cex ? cex : "");
        sy_str_free(ctx, cex);
        if (*R->split) bounded++;
        else unbounded++;
        form += R->kind == SY_RULE_FORM;
    }
    printf("rules: %u, proven for all integers: %zu, proven bounded: %zu (form rules among them: %zu)\n",
           (unsigned)SY_R_COUNT, unbounded, bounded, form);
    fflush(stdout);
}

/* The same statement refutes wrong rules: a missing side condition, an
 * off-by-one, a Euclidean reading of Mod. */
Test(rules_z3, wrong_rules_in_table_form_are_refuted)
{
    static const char *const wrong[][4] = {
        {"FloorDiv(FloorDiv(x, c0) + c1, c2)", "FloorDiv(x + c1*c0, c0*c2)", "c0 > 0", "c0 c2=8"}, /* c2 > 0 dropped */
        {"FloorDiv(-x + c0, c1)", "-FloorDiv(x - c0 + c1, c1)", "c1 > 0", "c1=32"},              /* off by one */
        {"Mod(c0*Mod(x, c1) + y, c2)", "Mod(c0*x + y, c2)", "", "c0 c1 c2=5"},                    /* c2 | c1 dropped */
        {"Min(c0*x, c0*y)", "c0*Min(x, y)", "", ""},                                              /* c0 > 0 dropped */
        {"Mod(x, d)", "x", "0 <= x", ""},                                                         /* x < d dropped */
        {"c0*x + c1 <= 0", "x - FloorDiv(c1, c0) <= 0", "c0 > 0", "c0=32"},                       /* wrong rounding */
    };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        char *cex = NULL;
        size_t ninst;
        sy_verify_verdict v = prove(wrong[i][0], wrong[i][1], wrong[i][2], wrong[i][3], 2000000, &cex, &ninst);
        cr_expect(eq(int, v, SY_VERIFY_REFUTED), "%s -> %s if %s: %s", wrong[i][0], wrong[i][1], wrong[i][2],
                  verdict_name(v));
        cr_expect(cex != NULL && strlen(cex) > 0);
        sy_str_free(ctx, cex);
    }
}
