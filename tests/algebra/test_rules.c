/* The rule table as the only way to rewrite (algebra/rules.def,
 * docs/proof.md "Rewrite rules as data"):
 * - a rule switched off is no longer applied;
 * - with every rule off, every constructor builds the literal node of its
 *   arguments and sy_simplify returns its input, on random arguments: a
 *   rewrite site without a table gate would change them (this is the check
 *   that no rewrite happens outside the table);
 * - every table id is used at a gate in the algebra sources (no dead entry);
 * - random instances of every rule's LHS (constants c0..c9 random integers,
 *   the other pattern variables random expressions) simplify to a value equal
 *   to the literal LHS's at random points, and every rule fires on them. */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>

#include "gen.h"
#include "algebra/expr_private.h"
#include "algebra/rules.h"

TestSuite(rules, .init = ctx_setup, .fini = ctx_teardown);

static const sy_expr *parse1(const char *s)
{
    const sy_expr *e = NULL;
    cr_assert(eq(int, sy_expr_parse(ctx, s, strlen(s), &e), SY_OK), "parse '%s': %s", s, sy_ctx_last_error_msg(ctx));
    return e;
}

static char *show_e(const sy_expr *e) { return sy_expr_print(ctx, e, SY_PRINT_CANONICAL); }

Test(rules, a_rule_switched_off_is_not_applied)
{
    static const struct { sy_rule_id id; const char *in, *on, *off; } cases[] = {
        {SY_R_FLOORDIV_NESTED, "FloorDiv(FloorDiv(x, 2), 3)", "x // 6", "(x // 2) // 3"},
        {SY_R_MOD_STRIP_INNER, "Mod(Mod(x, 6) + y, 3)", "(x + y) % 3", "(x % 6 + y) % 3"},
        {SY_R_MIN_ABSORB, "Min(x, Max(x, y))", "x", "Min(x, Max(x, y))"},
        {SY_R_REL_LE_CONTENT, "2*x + 3 <= 0", "x + 2 <= 0", "2*x + 3 <= 0"},
        {SY_R_FLOORDIV_PULL_OUT_SYM, "FloorDiv(x*y + 1, y)", "x + 1 // y", "(x*y + 1) // y"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sy_rules_set_all(ctx, true);
        sy_rules_reset_hits(ctx);
        char *a = show_e(parse1(cases[i].in));
        cr_expect(sy_rule_hits(ctx, cases[i].id) > 0, "%s did not fire on %s", sy_rules_table[cases[i].id].name, cases[i].in);
        cr_assert(eq(int, sy_rules_set_enabled(ctx, cases[i].id, false), 1));
        sy_rules_reset_hits(ctx);
        char *b = show_e(parse1(cases[i].in));
        cr_expect(eq(u64, sy_rule_hits(ctx, cases[i].id), 0));
        cr_expect(strcmp(a, b) != 0, "%s: the same result with the rule off: %s", cases[i].in, a);
        sy_str_free(ctx, a);
        sy_str_free(ctx, b);
        (void)cases[i].on;
        (void)cases[i].off;
    }
    sy_rules_set_all(ctx, true);
    cr_expect(eq(int, sy_rules_set_enabled(ctx, SY_R_REL_LT_FORM, false), 0), "a FORM rule cannot be switched off");
}

static bool literal(const sy_expr *r, sy_expr_kind k, size_t n, const sy_expr *const *args)
{
    if (!r || sy_expr_kind_of(r) != k || sy_expr_nargs(r) != n) return false;
    for (size_t i = 0; i < n; i++)
        if (sy_expr_arg(r, i) != args[i]) return false;
    return true;
}

Test(rules, with_every_rule_off_constructors_build_literal_nodes, .timeout = SY_TIMEOUT(300))
{
    rng = test_seed() | 1;
    const sy_expr *syms[3] = {sy_expr_sym(ctx, "x"), sy_expr_sym(ctx, "y"), sy_expr_sym(ctx, "z")};
    long checked = 0;
    for (int it = 0; it < 3000; it++) {
        sy_rules_set_all(ctx, true);
        npool = 0;
        const sy_expr *a = build(gen(1 + (int)(rnd() % 3)), syms);
        const sy_expr *b = build(gen(1 + (int)(rnd() % 3)), syms);
        sy_ctx_reset_error(ctx);
        if (!a || !b) continue;
        const sy_expr *ra = sy_expr_le(ctx, a, b), *rb = sy_expr_ne(ctx, b, sy_expr_int_si(ctx, 3));
        sy_ctx_reset_error(ctx);
        if (!ra || !rb) continue;
        sy_rules_set_all(ctx, false);
        const sy_expr *ab[2] = {a, b}, *rr[2] = {ra, rb};
        if (!sy_is_zero(b)) {
            cr_assert(literal(sy_expr_floordiv(ctx, a, b), SY_EXPR_FLOORDIV, 2, ab), "FloorDiv rewrote");
            cr_assert(literal(sy_expr_mod(ctx, a, b), SY_EXPR_MOD, 2, ab), "Mod rewrote");
            cr_assert(literal(sy_expr_ceildiv(ctx, a, b), SY_EXPR_CEILDIV, 2, ab), "CeilDiv rewrote");
        }
        cr_assert(literal(sy_expr_min(ctx, a, b), SY_EXPR_MIN, 2, ab), "Min rewrote");
        cr_assert(literal(sy_expr_max(ctx, a, b), SY_EXPR_MAX, 2, ab), "Max rewrote");
        const sy_expr *d = sy_expr_sub(ctx, a, b);
        cr_assert(literal(sy_expr_le(ctx, a, b), SY_EXPR_LE, 1, &d), "Le rewrote");
        cr_assert(literal(sy_expr_eq(ctx, a, b), SY_EXPR_EQ, 1, &d), "Eq rewrote");
        cr_assert(literal(sy_expr_ne(ctx, a, b), SY_EXPR_NE, 1, &d), "Ne rewrote");
        cr_assert(literal(sy_expr_and(ctx, ra, rb), SY_EXPR_AND, 2, rr), "And rewrote");
        cr_assert(literal(sy_expr_or(ctx, ra, rb), SY_EXPR_OR, 2, rr), "Or rewrote");
        /* simplify under range facts (no replacement): the input itself */
        sy_facts *f = sy_facts_new(ctx);
        for (int s = 0; s < 3; s++) sy_facts_set_range(f, syms[s], sy_expr_int_si(ctx, 0), sy_expr_int_si(ctx, 40));
        const sy_expr *e = rnd() % 2 ? a : ra;
        const sy_expr *se = sy_simplify(f, e);
        sy_ctx_reset_error(ctx);
        if (se) cr_assert(se == e, "sy_simplify rewrote with every rule off");
        sy_facts_free(f);
        checked++;
    }
    sy_rules_set_all(ctx, true);
    cr_assert(checked > 2000);
}

/* every id of the table occurs at a gate (sy_rule_on / sy_rule_form) in the
 * algebra sources other than rules.c */
Test(rules, every_table_entry_has_a_rewrite_site)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/../algebra", SY_TESTS_DIR);
    DIR *dp = opendir(dir);
    cr_assert(dp != NULL, "%s", dir);
    size_t cap = 1 << 20, len = 0;
    char *all = malloc(cap);
    struct dirent *de;
    while ((de = readdir(dp))) {
        size_t n = strlen(de->d_name);
        if (n < 3 || strcmp(de->d_name + n - 2, ".c") || !strcmp(de->d_name, "rules.c")) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *fp = fopen(path, "r");
        cr_assert(fp != NULL);
        for (;;) {
            if (cap - len < 65536) all = realloc(all, cap *= 2);
            size_t k = fread(all + len, 1, cap - len - 1, fp);
            if (!k) break;
            len += k;
        }
        fclose(fp);
    }
    closedir(dp);
    all[len] = '\0';
    size_t unused = 0;
    for (unsigned i = 0; i < SY_R_COUNT; i++) {
        char id[96];
        snprintf(id, sizeof id, "SY_R_%s", sy_rules_table[i].name);
        bool found = false;
        for (const char *p = all; !found && (p = strstr(p, id)); p += strlen(id))
            found = !isalnum((unsigned char)p[strlen(id)]) && p[strlen(id)] != '_';
        if (!found) {
            unused++;
            cr_log_error("table entry %s has no rewrite site", sy_rules_table[i].name);
        }
    }
    free(all);
    cr_expect(eq(sz, unused, 0));
}

/* ---- random instances */

static const char *const EXPRS[] = {"s", "t", "2*s - 3", "-s + 5", "s + t", "s*t", "Mod(s, 4) + 1", "FloorDiv(t, 3)",
                                    "Mod(t, 6)", "-t", "3*s", "Max(s, 2)", "Min(t, 7)", "s - t", "Mod(s, 5) + 2", "6*t + 4",
                                    "FloorDiv(s, 2)", "-Mod(s, 3) - 1", "Mod(s, 3)", "4", "-2", "s*s", "Mod(t, 3) + 10", "0",
                                    "FloorDiv(s, 10)", "t + 40", "FloorDiv(s, 10) + 1", "Max(FloorDiv(s, 10), 5)"};
#define NEXPR (sizeof EXPRS / sizeof EXPRS[0])

/* The instance text; occ[] receives the expression pieces substituted (one per occurrence). */
static void instance(const char *pat, const char *cv[10], const char *ev[26], char *out, size_t cap, const char **occ,
                     size_t *nocc)
{
    size_t o = 0;
    *nocc = 0;
    for (const char *p = pat; *p && o + 64 < cap;) {
        if (isalpha((unsigned char)*p)) {
            const char *s = p;
            while (isalnum((unsigned char)*p) || *p == '_') p++;
            size_t n = (size_t)(p - s);
            if (n == 2 && s[0] == 'c' && isdigit((unsigned char)s[1])) o += (size_t)snprintf(out + o, cap - o, "(%s)", cv[s[1] - '0']);
            else if (n == 1 && islower((unsigned char)s[0])) {
                o += (size_t)snprintf(out + o, cap - o, "(%s)", ev[s[0] - 'a']);
                occ[(*nocc)++] = ev[s[0] - 'a'];
            }
            else {
                memcpy(out + o, s, n);
                o += n;
            }
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
}

Test(rules, every_rule_fires_on_random_instances_and_agrees_with_evaluation, .timeout = SY_TIMEOUT(300))
{
    rng = test_seed() | 1;
    const sy_expr *st[2] = {sy_expr_sym(ctx, "s"), sy_expr_sym(ctx, "t")};
    size_t not_fired = 0, compared = 0;
    for (unsigned r = 0; r < SY_R_COUNT; r++) {
        const sy_rule *R = &sy_rules_table[r];
        bool simp = !strncmp(R->name, "SIMP_", 5);
        uint64_t fired = 0;
        for (int it = 0; it < 3000 && (fired == 0 || it < 40); it++) {
            char cbuf[10][16];
            const char *cv[10], *ev[26];
            for (int i = 0; i < 10; i++) {
                long v = (long)(rnd() % 19) - 9;
                if (rnd() % 3 == 0) v = (long)(rnd() % 7) + 1;
                snprintf(cbuf[i], sizeof cbuf[i], "%ld", v);
                cv[i] = cbuf[i];
            }
            for (int i = 0; i < 26; i++) ev[i] = EXPRS[rnd() % NEXPR];
            char text[1024];
            const char *occ[32];
            size_t nocc;
            instance(R->lhs, cv, ev, text, sizeof text, occ, &nocc);
            /* the literal LHS, and the pieces alone (their own rewrites are not this rule's) */
            sy_rules_set_all(ctx, false);
            const sy_expr *lit = NULL;
            sy_status st0 = sy_expr_parse(ctx, text, strlen(text), &lit);
            sy_rules_set_all(ctx, true);
            if (st0 != SY_OK) {
                sy_ctx_reset_error(ctx);
                continue;
            }
            sy_rules_reset_hits(ctx);
            for (size_t i = 0; i < nocc; i++) {
                const sy_expr *piece = NULL;
                sy_expr_parse(ctx, occ[i], strlen(occ[i]), &piece);
            }
            uint64_t base = sy_rule_hits(ctx, (sy_rule_id)r);
            sy_rules_reset_hits(ctx);
            const sy_expr *got = NULL;
            if (sy_expr_parse(ctx, text, strlen(text), &got) != SY_OK) {
                sy_ctx_reset_error(ctx);
                continue;
            }
            sy_facts *f = NULL;
            const sy_expr *cong[4];
            size_t ncong = 0;
            if (simp) {
                f = sy_facts_new(ctx);
                sy_facts_set_range(f, st[0], sy_expr_int_si(ctx, 0), sy_expr_int_si(ctx, 30));
                sy_facts_set_range(f, st[1], sy_expr_int_si(ctx, 10), sy_expr_int_si(ctx, 12));
                /* a congruence side condition (SIMP_REL_SCALE_*: Mod(s, c0) == c2) is a fact
                 * of the instance: assumed, and the points compared satisfy it */
                char sbuf[512];
                snprintf(sbuf, sizeof sbuf, "%s", R->side);
                for (char *tok = strtok(sbuf, ";"); tok && ncong < 4; tok = strtok(NULL, ";")) {
                    if (!strstr(tok, "Mod(")) continue;
                    char ct[1024];
                    const char *occ2[32];
                    size_t nocc2;
                    instance(tok, cv, ev, ct, sizeof ct, occ2, &nocc2);
                    const sy_expr *ce = NULL;
                    if (sy_expr_parse(ctx, ct, strlen(ct), &ce) != SY_OK || !ce) {
                        sy_ctx_reset_error(ctx);
                        continue;
                    }
                    cong[ncong++] = ce;
                    sy_facts_add(f, ce);
                }
                got = sy_simplify(f, got);
                cr_assert(got != NULL, "%s: simplify %s: %s", R->name, text, sy_ctx_last_error_msg(ctx));
            }
            if (sy_rule_hits(ctx, (sy_rule_id)r) > base) fired++;
            for (int k = 0; k < 12; k++) {
                int64_t vals[2];
                for (int s = 0; s < 2; s++) vals[s] = (int64_t)(rnd() % 61) - 30;
                if (simp) { /* inside the facts: s in [0, 30], t in [10, 12] */
                    vals[0] = (int64_t)(rnd() % 31);
                    vals[1] = 10 + (int64_t)(rnd() % 3);
                }
                int64_t want, have, holds = 1;
                for (size_t q = 0; q < ncong && holds; q++)
                    if (sy_expr_eval_si(ctx, cong[q], 2, st, vals, &holds) != SY_OK) holds = 0;
                sy_ctx_reset_error(ctx);
                if (!holds) continue; /* outside the instance's congruence fact */
                sy_status a = sy_expr_eval_si(ctx, lit, 2, st, vals, &want);
                sy_ctx_reset_error(ctx);
                if (a != SY_OK) continue; /* the literal LHS is undefined (or too large) there */
                sy_status b = sy_expr_eval_si(ctx, got, 2, st, vals, &have);
                char *gs = show_e(got);
                cr_assert(eq(int, b, SY_OK), "%s: %s -> %s undefined at s=%ld t=%ld", R->name, text, gs, (long)vals[0], (long)vals[1]);
                cr_assert(eq(i64, have, want), "%s: %s -> %s at s=%ld t=%ld", R->name, text, gs, (long)vals[0], (long)vals[1]);
                sy_str_free(ctx, gs);
                compared++;
            }
            if (f) sy_facts_free(f);
        }
        if (!fired) {
            not_fired++;
            cr_log_error("rule %s never fired on its random instances", R->name);
        }
    }
    printf("rules: %u, random instances compared with evaluation at %zu points\n", (unsigned)SY_R_COUNT, compared);
    cr_expect(eq(sz, not_fired, 0));
}

/* sy_expr_add_pad (algebra/expr_private.h): d + Mod(P, m) is written m*CeilDiv(d, m) when
 * Mod(d + P, m) is 0 by construction. At random points it must equal d + Mod(P, m) as built
 * literally, for pads that are F.pad's "up to a multiple of m" (where it fires) and for others
 * (where it must not change the value). */
Test(rules, add_pad_agrees_with_evaluation)
{
    rng = test_seed() | 1;
    const sy_expr *syms[2] = {sy_expr_sym(ctx, "s"), sy_expr_sym(ctx, "t")};
    static const char *const dims[] = {"s", "2*s + 1", "FloorDiv(s, 4)", "s*t", "s + t - 3", "CeilDiv(s, 3) + 2"};
    /* P as a function of the dim D and m: D's negation (fires), shifted by multiples of m (fires),
     * and unrelated or off by one (must not fire) */
    static const char *const pads[] = {"-(%1$s)", "%2$d - (%1$s)", "(%2$d - 1)*(%1$s)", "%2$d*t - (%1$s)",
                                       "%2$d - Mod(%1$s, %2$d)", "-(%1$s) + 1", "t", "%1$s"};
    size_t fired = 0, kept = 0;
    for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++)
        for (size_t pi = 0; pi < sizeof pads / sizeof pads[0]; pi++)
            for (int m = 1; m <= 9; m++) {
                char ptxt[256];
                snprintf(ptxt, sizeof ptxt, pads[pi], dims[di], m);
                const sy_expr *d = parse1(dims[di]), *P = parse1(ptxt);
                const sy_expr *p = sy_expr_mod(ctx, P, sy_expr_int_si(ctx, m));
                cr_assert(p != NULL);
                const sy_expr *got = sy_expr_add_pad(ctx, d, p);
                cr_assert(got != NULL, "add_pad(%s, Mod(%s, %d)): %s", dims[di], ptxt, m, sy_ctx_last_error_msg(ctx));
                const sy_expr *lit = sy_expr_add(ctx, d, p);
                if (got == lit) kept++;
                else fired++;
                for (int k = 0; k < 40; k++) {
                    int64_t v[2] = {(int64_t)(rnd() % 201) - 100, (int64_t)(rnd() % 41) - 20}, a, b;
                    cr_assert(eq(int, sy_expr_eval_si(ctx, got, 2, syms, v, &a), SY_OK));
                    cr_assert(eq(int, sy_expr_eval_si(ctx, lit, 2, syms, v, &b), SY_OK));
                    cr_assert(eq(i64, a, b), "d = %s, P = %s, m = %d at s = %lld, t = %lld: add_pad %lld, d + Mod(P, m) %lld",
                              dims[di], ptxt, m, (long long)v[0], (long long)v[1], (long long)a, (long long)b);
                }
            }
    cr_expect(fired > 100, "the rule fired %zu times", fired);
    cr_expect(kept > 100, "the rule kept d + p %zu times", kept);
}

/* sy_expr_rel on two integers decides in exact arithmetic without building
 * d (rel.c rel_const): the value, the rule hits (the form once, the deciding
 * rule once) and, with the deciding rule off, the literal d OP 0 that the
 * general path builds, for every operator and small and beyond-int64 pairs. */
Test(rules, relations_of_two_integers)
{
    static const char *nums[] = {"-3", "-1", "0", "1", "2", "5", "36893488147419103232", "-36893488147419103232",
                                 "9223372036854775807", "-9223372036854775808"};
    static const sy_rule_id form[] = {[SY_REL_EQ] = SY_R_REL_EQ_FORM, [SY_REL_NE] = SY_R_REL_NE_FORM, [SY_REL_LE] = SY_R_REL_LE_FORM,
                                      [SY_REL_LT] = SY_R_REL_LT_FORM, [SY_REL_GE] = SY_R_REL_GE_FORM, [SY_REL_GT] = SY_R_REL_GT_FORM};
    static const char *lit[] = {[SY_REL_EQ] = "Eq", [SY_REL_NE] = "Ne", [SY_REL_LE] = "Le", [SY_REL_LT] = "Lt", [SY_REL_GE] = "Ge", [SY_REL_GT] = "Gt"};
    size_t n = sizeof nums / sizeof nums[0];
    for (int op = SY_REL_EQ; op <= SY_REL_GE; op++)
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                const sy_expr *a = parse1(nums[i]), *b = parse1(nums[j]);
                /* the expected value from the literal's text through the parser's own relation on (a - b) vs 0 */
                char txt[160];
                snprintf(txt, sizeof txt, "(%s) - (%s)", nums[i], nums[j]);
                const sy_expr *d = parse1(txt);
                int sg = fmpz_sgn(&d->u.value);
                int want = op == SY_REL_EQ ? sg == 0 : op == SY_REL_NE ? sg != 0 : op == SY_REL_LT ? sg < 0 : op == SY_REL_LE ? sg <= 0
                         : op == SY_REL_GT ? sg > 0 : sg >= 0;
                sy_rules_set_all(ctx, true);
                sy_rules_reset_hits(ctx);
                const sy_expr *r = sy_expr_rel(ctx, (sy_rel_op)op, a, b);
                cr_assert(r == sy_expr_bool(ctx, want), "%s(%s, %s) = %s", lit[op], nums[i], nums[j], S(r));
                cr_expect(eq(u64, sy_rule_hits(ctx, form[op]), 1));
                sy_rule_id id = op == SY_REL_EQ || op == SY_REL_NE
                                    ? (sg == 0 ? (op == SY_REL_NE ? SY_R_REL_NE_FALSE : SY_R_REL_EQ_TRUE)
                                               : (op == SY_REL_NE ? (sg > 0 ? SY_R_REL_NE_TRUE : SY_R_REL_NE_TRUE_NEG)
                                                                  : (sg > 0 ? SY_R_REL_EQ_FALSE : SY_R_REL_EQ_FALSE_NEG)))
                                    : (want ? SY_R_REL_LE_TRUE : SY_R_REL_LE_FALSE);
                if (op == SY_REL_GE || op == SY_REL_GT) /* decided on b - a (+ 1) */
                    id = want ? SY_R_REL_LE_TRUE : SY_R_REL_LE_FALSE;
                cr_expect(eq(u64, sy_rule_hits(ctx, id), 1), "%s(%s, %s): %s", lit[op], nums[i], nums[j], sy_rules_table[id].name);
                /* the deciding rule off: the literal relation, never a constant */
                cr_assert(eq(int, sy_rules_set_enabled(ctx, id, false), 1));
                const sy_expr *raw = sy_expr_rel(ctx, (sy_rel_op)op, a, b);
                cr_assert(raw && sy_expr_kind_of(raw) != SY_EXPR_TRUE && sy_expr_kind_of(raw) != SY_EXPR_FALSE, "%s(%s, %s) with %s off: %s",
                          lit[op], nums[i], nums[j], sy_rules_table[id].name, raw ? S(raw) : "NULL");
                sy_rules_set_all(ctx, true);
            }
}

/* A random point for s and t: small, or beyond int64 (2^70 + a small value, either sign), as
 * integer constants for sy_expr_eval (exact big-integer evaluation). */
static void big_point(const sy_expr *v[2], int64_t small[2])
{
    for (int i = 0; i < 2; i++) {
        char b[64];
        int64_t x = (int64_t)(rnd() % 201) - 100;
        small[i] = x;
        if (rnd() % 3 == 0) snprintf(b, sizeof b, "%s1180591620717411303424 + %lld", rnd() % 2 ? "-" : "", (long long)x);
        else snprintf(b, sizeof b, "%lld", (long long)x);
        v[i] = parse1(b);
    }
}

/* exact values of a and b at v agree (both defined, or both not) */
static void agree_at(const sy_expr *a, const sy_expr *b, const sy_expr *const syms[2], const sy_expr *const v[2], const char *what)
{
    const sy_expr *x = NULL, *y = NULL;
    sy_status sa = sy_expr_eval(ctx, a, 2, syms, v, &x);
    sy_ctx_reset_error(ctx);
    sy_status sb = sy_expr_eval(ctx, b, 2, syms, v, &y);
    sy_ctx_reset_error(ctx);
    cr_assert(eq(int, sa, sb), "%s: status %d vs %d", what, sa, sb);
    if (sa == SY_OK) {
        char *p = show_e(a), *q = show_e(b), *vs = show_e(v[0]), *vt = show_e(v[1]), *xs = show_e(x), *ys = show_e(y);
        cr_assert(x == y, "%s: %s = %s but %s = %s at s = %s, t = %s", what, p, xs, q, ys, vs, vt);
        sy_str_free(ctx, p), sy_str_free(ctx, q), sy_str_free(ctx, vs), sy_str_free(ctx, vt), sy_str_free(ctx, xs), sy_str_free(ctx, ys);
    }
}

/* FLOORDIV_ROUND_UP(_NEG) (div.c floordiv_round_up): FloorDiv(+-(A + Mod(P, m)), m) with P a
 * multiple of m away from -A (fires: +-CeilDiv(A, m)) or not (must keep the value), built with
 * every rule on, against the literal (every rule off) by exact evaluation at random points,
 * a third of the coordinates beyond int64 (issue 32: pad_window's FloorDiv(CeilDiv(s, 2) +
 * Mod(6*CeilDiv(s, 2), 7), 7) is CeilDiv(s, 14)). */
Test(rules, floordiv_round_up_agrees_with_big_evaluation)
{
    rng = test_seed() | 1;
    const sy_expr *syms[2] = {sy_expr_sym(ctx, "s"), sy_expr_sym(ctx, "t")};
    static const char *const dims[] = {"s", "2*s + 1", "FloorDiv(s, 4)", "s*t", "s + t - 3", "CeilDiv(s, 2)", "-s + 7"};
    static const char *const pads[] = {"-(%1$s)", "%2$d - (%1$s)", "(%2$d - 1)*(%1$s)", "%2$d*t - (%1$s)",
                                       "(2*%2$d - 1)*(%1$s) + %2$d", "-(%1$s) + 1", "t", "%1$s", "(%2$d + 1)*(%1$s)"};
    size_t fired = 0, kept = 0;
    for (size_t di = 0; di < sizeof dims / sizeof dims[0]; di++)
        for (size_t pi = 0; pi < sizeof pads / sizeof pads[0]; pi++)
            for (int m = 1; m <= 9; m++)
                for (int sg = -1; sg <= 1; sg += 2) {
                    char ptxt[256], txt[600];
                    snprintf(ptxt, sizeof ptxt, pads[pi], dims[di], m);
                    snprintf(txt, sizeof txt, "FloorDiv(%s((%s) + Mod(%s, %d)), %d)", sg < 0 ? "-" : "", dims[di], ptxt, m, m);
                    sy_rules_set_all(ctx, false);
                    const sy_expr *lit = parse1(txt);
                    sy_rules_set_all(ctx, true);
                    sy_rules_reset_hits(ctx);
                    const sy_expr *got = parse1(txt);
                    if (sy_rule_hits(ctx, SY_R_FLOORDIV_ROUND_UP) + sy_rule_hits(ctx, SY_R_FLOORDIV_ROUND_UP_NEG)) fired++;
                    else kept++;
                    for (int k = 0; k < 30; k++) {
                        const sy_expr *v[2];
                        int64_t small[2];
                        big_point(v, small);
                        agree_at(got, lit, syms, v, txt);
                    }
                }
    printf("floordiv_round_up: fired on %zu of %zu sums\n", fired, fired + kept);
    cr_expect(fired > 100, "the rule fired %zu times", fired);
    cr_expect(kept > 100, "the rule kept %zu", kept);
}

/* SIMP_REL_SCALE_* (decide_simplify.c unfresh_one): a relation over FloorDiv(E, m) simplified
 * under Mod(E, m) == r goes back to E scaled by m^deg. Checked by exact evaluation at random
 * points where the congruence holds (t chosen to make it hold), a third beyond int64: the
 * simplification equals the literal relation there. Issue 32: FloorDiv(x, 2) != 1 under
 * Mod(x, 2) == 0 is x != 2. */
Test(rules, relation_scaled_under_a_congruence_agrees_with_big_evaluation)
{
    rng = test_seed() | 1;
    const sy_expr *syms[2] = {sy_expr_sym(ctx, "s"), sy_expr_sym(ctx, "t")};
    static const char *const rels[] = {"FloorDiv(%1$s, %2$d) != 1", "FloorDiv(%1$s, %2$d) == 3", "FloorDiv(%1$s, %2$d) <= 5",
                                       "2*FloorDiv(%1$s, %2$d) - s >= 0", "FloorDiv(%1$s, %2$d)*FloorDiv(%1$s, %2$d) <= s",
                                       "-3*FloorDiv(%1$s, %2$d) + 7 < 0", "CeilDiv(%1$s, %2$d) != s",
                                       "FloorDiv(%1$s + 5, %2$d) <= 4", "CeilDiv(%1$s - 1, %2$d) == 2"};
    /* E = t: the facts parametrise t (unfresh_one); E = s*t: no symbol to parametrise, the fact
     * stays a relation (rel_congruence) */
    static const char *const es[] = {"t", "s*t"};
    size_t fired = 0, total = 0, compared = 0;
    for (size_t ei = 0; ei < 2; ei++)
        for (size_t ri = 0; ri < sizeof rels / sizeof rels[0]; ri++)
            for (int m = 2; m <= 7; m++)
                for (int r = 0; r < m; r++) {
                    char txt[400], cong[128];
                    snprintf(txt, sizeof txt, rels[ri], es[ei], m);
                    snprintf(cong, sizeof cong, "Mod(%s, %d) == %d", es[ei], m, r);
                    const sy_expr *rel = parse1(txt), *c = parse1(cong);
                    sy_facts *f = sy_facts_new(ctx);
                    cr_assert(f != NULL);
                    cr_assert(eq(int, sy_facts_add(f, c), SY_OK));
                    sy_rules_reset_hits(ctx);
                    const sy_expr *got = sy_simplify(f, rel);
                    cr_assert(got != NULL, "%s under %s: %s", txt, cong, sy_ctx_last_error_msg(ctx));
                    if (sy_rule_hits(ctx, SY_R_SIMP_REL_SCALE_EQ) + sy_rule_hits(ctx, SY_R_SIMP_REL_SCALE_NE) +
                        sy_rule_hits(ctx, SY_R_SIMP_REL_SCALE_LE))
                        fired++;
                    total++;
                    sy_facts_free(f);
                    for (int k = 0, tries = 0; k < 30 && tries < 3000; tries++) {
                        const sy_expr *v[2], *cv = NULL;
                        int64_t small[2];
                        big_point(v, small);
                        if (ei == 0) /* t := m*t' + r, so that Mod(t, m) == r */
                            v[1] = sy_expr_add(ctx, sy_expr_mul(ctx, sy_expr_int_si(ctx, m), v[1]), sy_expr_int_si(ctx, r));
                        else if (sy_expr_eval(ctx, c, 2, syms, v, &cv) != SY_OK || cv != sy_expr_true(ctx))
                            continue; /* outside the fact */
                        agree_at(got, rel, syms, v, txt);
                        compared++;
                        k++;
                    }
                }
    printf("relation scaled under a congruence: fired on %zu of %zu, %zu points\n", fired, total, compared);
    cr_expect(fired * 10 > total * 9, "the rule fired on %zu of %zu", fired, total);
}
