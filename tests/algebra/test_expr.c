/* Canonical expressions: the inputs issue 2 names, hash-consing, printing,
 * parsing errors, budgets, API error paths. */
#include <time.h>

#include "common.h"

#define CASE(name) Test(algebra_expr, name, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(30))

static void same(const char *a, const char *b)
{
    const sy_expr *x = P(a), *y = P(b);
    cr_assert(x == y, "'%s' -> %s but '%s' -> %s", a, S(x), b, S(y));
}

static int64_t ev1(const char *text, const char *sym, int64_t v)
{
    const sy_expr *e = P(text), *s = sy_expr_sym(ctx, sym);
    int64_t out = 0;
    cr_assert(eq(int, sy_expr_eval_si(ctx, e, 1, &s, &v, &out), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    return out;
}

CASE(mod_of_scaled_mod_is_not_wrapped)
{
    /* a popular engine returns a wrong value at x = 2 */
    same("Mod(8*Mod(x, 4), 64)", "8*Mod(x, 4)");
    for (int64_t x = -20; x <= 20; x++) cr_assert(eq(i64, ev1("Mod(8*Mod(x, 4), 64)", "x", x), 8 * (((x % 4) + 4) % 4)));
}

CASE(mod_128_mod3_356_with_positive_x)
{
    const sy_expr *e = P("Mod(128*Mod(x,3), 356)");
    sy_facts *f = sy_facts_new(ctx);
    cr_assert(eq(int, sy_facts_add(f, P("x >= 1")), SY_OK));
    cr_assert(sy_simplify(f, e) == P("128*Mod(x, 3)"));
    sy_facts_free(f);
}

CASE(simplify_keeps_the_division_by_zero_of_an_inner_divisor)
{
    /* CeilDiv(x, 8) is 0 for -6 <= x <= -1, so the middle CeilDiv divides by
     * zero; simplifying the outer divisor afterwards used to clear that error
     * and return NULL with SY_OK (found by the decide property test) */
    const sy_expr *e = P("-CeilDiv(CeilDiv(FloorDiv(x, y), CeilDiv(x, 8)), CeilDiv(y, 2))");
    sy_facts *f = sy_facts_new(ctx);
    const char *facts[] = {"-6 <= x", "x <= -1", "-1 <= y", "y <= 4", "x + y <= -1"};
    for (size_t i = 0; i < 5; i++) cr_assert(eq(int, sy_facts_add(f, P(facts[i])), SY_OK));
    cr_assert(sy_simplify(f, e) == NULL);
    cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EDIVZERO), "%s", sy_status_name(sy_ctx_last_error(ctx)));
    sy_ctx_reset_error(ctx);
    sy_facts_free(f);
}

CASE(floordiv_2x_minus_1_negative_x)
{
    same("FloorDiv(2*x - 1, 2)", "x - 1");
    cr_assert(eq(i64, ev1("FloorDiv(2*x - 1, 2)", "x", -2), -3));
}

CASE(mod_4_minus_mod)
{
    same("Mod(4 - Mod(x, 4), 4)", "Mod(-x, 4)");
    cr_assert(eq(i64, ev1("Mod(4 - Mod(x, 4), 4)", "x", 1), 3));
}

CASE(floordiv_stays_integer)
{
    const sy_expr *e = P("FloorDiv((24*a + 672)*FloorDiv(b, 2016) + 21, 22)");
    /* the result is integer-valued everywhere: compare against direct evaluation */
    const sy_expr *a = sy_expr_sym(ctx, "a"), *b = sy_expr_sym(ctx, "b");
    for (int64_t av = -30; av <= 30; av += 7)
        for (int64_t bv = -5000; bv <= 5000; bv += 997) {
            const sy_expr *syms[2] = {a, b};
            int64_t vals[2] = {av, bv}, out;
            cr_assert(eq(int, sy_expr_eval_si(ctx, e, 2, syms, vals, &out), SY_OK));
            int64_t fb = bv >= 0 ? bv / 2016 : -((-bv + 2015) / 2016);
            int64_t n = (24 * av + 672) * fb + 21;
            int64_t want = n >= 0 ? n / 22 : -((-n + 21) / 22);
            cr_assert(eq(i64, out, want));
        }
}

CASE(floordiv_pull_out_is_floor_not_trunc)
{
    same("FloorDiv(241 + 48*x, 16)", "3*x + 15");
    same("FloorDiv(3*x + y, 3)", "x + FloorDiv(y, 3)");
}

CASE(sum_of_floordivs_cancels)
{
    same("x0 - FloorDiv(-5*x1, 2) - 1 + FloorDiv(37 + (x1 + 7)*(-5), 2)", "x0");
}

CASE(exact_polynomial_division)
{
    same("FloorDiv((a + b)**2, a + b)", "a + b");
    same("FloorDiv(x*y + x + y + 1, x + 1)", "y + 1");
}

static const sy_expr *big_sum(int n, int coef, const char *prefix)
{
    const sy_expr **v = malloc((size_t)n * sizeof *v);
    char name[32];
    for (int i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s%d", prefix, i + 1);
        v[i] = sy_expr_mul_si(ctx, sy_expr_sym(ctx, name), coef);
    }
    const sy_expr *s = sy_expr_add_n(ctx, (size_t)n, v);
    free(v);
    return s;
}

CASE(scale_5000_symbols)
{
    /* FloorDiv(3*s1+...+3*sN, 3) = s1+...+sN, N = 5000, and the Mod identity
     * with 199 terms: both must be fast (linear-ish), not seconds. */
    clock_t t0 = clock();
    const sy_expr *s3 = big_sum(5000, 3, "s"), *s1 = big_sum(5000, 1, "s");
    cr_assert(sy_expr_floordiv(ctx, s3, sy_expr_int_si(ctx, 3)) == s1);
    const sy_expr *a = big_sum(199, 1, "a");
    const sy_expr *lhs = sy_expr_mod(ctx, sy_expr_mul_si(ctx, a, 192), sy_expr_int_si(ctx, 213));
    const sy_expr *rhs = sy_expr_mul_si(ctx, sy_expr_mod(ctx, sy_expr_mul_si(ctx, a, 64), sy_expr_int_si(ctx, 71)), 3);
    cr_assert(lhs == rhs);
    /* also through the parser (n-ary sums) */
    size_t cap = 5000 * 12 + 64;
    char *text = malloc(cap);
    size_t pos = (size_t)snprintf(text, cap, "FloorDiv(");
    for (int i = 0; i < 5000; i++) pos += (size_t)snprintf(text + pos, cap - pos, "%s3*s%d", i ? "+" : "", i + 1);
    snprintf(text + pos, cap - pos, ", 3)");
    cr_assert(P(text) == s1);
    free(text);
    /* not a timing assertion: a sanity ceiling far above the measured
     * milliseconds, catching quadratic regressions only */
    cr_assert(lt(dbl, (double)(clock() - t0) / CLOCKS_PER_SEC, 20.0));
}

CASE(gcd_of_sum_of_60)
{
    const sy_expr *S60 = big_sum(60, 1, "v");
    const sy_expr *l = sy_expr_floordiv(ctx, sy_expr_mul_si(ctx, S60, 4), sy_expr_add_si(ctx, sy_expr_mul_si(ctx, S60, 2), 2));
    const sy_expr *r = sy_expr_floordiv(ctx, sy_expr_mul_si(ctx, S60, 2), sy_expr_add_si(ctx, S60, 1));
    cr_assert(l == r, "%s", S(l));
}

CASE(expansion_budget)
{
    const sy_expr *e = NULL;
    clock_t t0 = clock();
    cr_assert(eq(int, sy_expr_parse(ctx, "(a+b+c+d)**200", (size_t)-1, &e), SY_EQUOTA));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "term budget") != NULL);
    cr_assert(lt(dbl, (double)(clock() - t0) / CLOCKS_PER_SEC, 5.0));
    cr_assert(eq(int, sy_expr_parse(ctx, "x**100000", (size_t)-1, &e), SY_EQUOTA));
    cr_assert(eq(int, sy_expr_parse(ctx, "2**10000000", (size_t)-1, &e), SY_EQUOTA));
    /* the context stays usable */
    cr_assert(P("x + 1") != NULL);
}

CASE(hash_consing_and_relation_normal_forms)
{
    same("Eq(a, b)", "Eq(b, a)");
    same("Eq(2*a, 2*b)", "Eq(a, b)");
    same("a < b", "a - b + 1 <= 0");
    same("a > b", "b < a");
    same("x + y", "y + x");
    same("(x + 1)*(x - 1)", "x**2 - 1");
    same("Not(x < 3)", "x >= 3");
    same("And(x < 2, y > 1, x < 2)", "And(y > 1, x < 2)");
    same("And(x < 2, true)", "x < 2");
    same("Or(x < 2, true)", "true");
    same("Eq(2*x, 1)", "false");
    same("Min(Min(a, b), Min(b, c))", "Min(a, b, c)");
    same("Max(a, a + 2)", "a + 2");
    same("Min(8*x, 24)", "8*Min(x, 3)");
    cr_assert(P("x") == sy_expr_sym(ctx, "x"));
    cr_assert(P("12345678901234567890123") == sy_expr_int_str(ctx, "12345678901234567890123"));
}

CASE(python_division_semantics_table)
{
    static const struct { int64_t a, b, q, r, c; } t[] = {
        {-7, 2, -4, 1, -3}, {7, -2, -4, -1, -3}, {-7, -2, 3, -1, 4}, {7, 2, 3, 1, 4},
        {0, 5, 0, 0, 0}, {-1, 3, -1, 2, 0}, {INT64_MIN, 1, INT64_MIN, 0, INT64_MIN}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const sy_expr *a = sy_expr_int_si(ctx, t[i].a), *b = sy_expr_int_si(ctx, t[i].b);
        int64_t q, r, c;
        cr_assert(eq(int, sy_expr_get_si(sy_expr_floordiv(ctx, a, b), &q), SY_OK));
        cr_assert(eq(int, sy_expr_get_si(sy_expr_mod(ctx, a, b), &r), SY_OK));
        cr_assert(eq(int, sy_expr_get_si(sy_expr_ceildiv(ctx, a, b), &c), SY_OK));
        cr_assert(eq(i64, q, t[i].q));
        cr_assert(eq(i64, r, t[i].r));
        cr_assert(eq(i64, c, t[i].c));
    }
    /* INT64_MIN // -1 is exact in bignums */
    cr_assert(P("FloorDiv(-9223372036854775808, -1)") == P("9223372036854775808"));
}

CASE(print_roundtrip_is_pointer_equal)
{
    static const char *exprs[] = {
        "FloorDiv(s0 + 1, 2)", "CeilDiv(x, y)", "-FloorDiv(x, y)", "Mod(3*x + 1, 7)", "x**3*y - 2*x*y**2 + 5",
        "Min(x, y + 1, 3)", "And(x <= 3, Or(y == 2, z != 1))", "2*x + 3 <= y", "-x + 3 <= 0",
        "Max(FloorDiv(h - 1, 2) + 1, 1)", "Mod(x, y)**2 + 1", "FloorDiv(2*x + 2, 3)", "true", "false",
        "-12345678901234567890*x", "x == y + 1"};
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        const sy_expr *e = P(exprs[i]);
        char *s = sy_expr_print(ctx, e, SY_PRINT_CANONICAL);
        const sy_expr *back = P(s);
        cr_assert(back == e, "'%s' printed as '%s' re-parses to %s", exprs[i], s, S(back));
        sy_str_free(ctx, s);
    }
}

CASE(python_and_c_printers)
{
    char *p = sy_expr_print(ctx, P("Min(FloorDiv(x, 2), Mod(y, 3)) <= 1"), SY_PRINT_PYTHON);
    cr_assert(eq(str, p, "(min((x // 2), (y % 3)) <= 1)"));
    sy_str_free(ctx, p);
    char *c = sy_expr_print(ctx, P("Max(FloorDiv(x, 2), 3*y, 1)"), SY_PRINT_C);
    cr_assert(eq(str, c, "sy_max(sy_max(1, sy_floordiv(x, 2)), 3*y)"));
    sy_str_free(ctx, c);
}

CASE(parse_errors_have_offsets)
{
    static const struct { const char *text; sy_status st; long off; const char *msg; } t[] = {
        {"x +* 2", SY_EFORMAT, 3, "expected an expression"},
        {"FloorDiv(x)", SY_EFORMAT, 0, "FloorDiv expects 2 arguments, got 1"},
        {"Foo(x, 1)", SY_EFORMAT, 0, "unknown function 'Foo'"},
        {"(x + 1", SY_EFORMAT, 6, "expected ')'"},
        {"x / 2", SY_EFORMAT, 2, "true division"},
        {"x ** -1", SY_EFORMAT, 5, "non-negative integer constant"},
        {"x ** y", SY_EFORMAT, 5, "non-negative integer constant"},
        {"FloorDiv(x, 0)", SY_EDIVZERO, 0, "division by zero"},
        {"x % (3 - 3)", SY_EDIVZERO, 2, "division by zero"},
        {"(x < 1) + 2", SY_EFORMAT, 0, "must be an integer"},
        {"x and y", SY_EFORMAT, 0, "must be a boolean"},
        {"", SY_EFORMAT, 0, "empty expression"},
        {"x y", SY_EFORMAT, 2, "expected an operator or end of input"},
        {"12abc", SY_EFORMAT, 2, "expected an operator"},
        {"oo + 1", SY_EFORMAT, 0, "infinity"},
        {"x @ 2", SY_EFORMAT, 2, "invalid character '@'"},
        {"x \xc3\xa9", SY_EFORMAT, 2, "invalid byte 0xc3 (only ASCII"},
        {"x + \x01", SY_EFORMAT, 4, "invalid byte 0x01"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const sy_expr *e = (const sy_expr *)1;
        sy_status st = sy_expr_parse(ctx, t[i].text, (size_t)-1, &e);
        cr_assert(eq(int, st, t[i].st), "'%s': %s (%s)", t[i].text, sy_status_name(st), sy_ctx_last_error_msg(ctx));
        cr_assert(e == NULL);
        cr_assert(eq(long, sy_ctx_last_error_offset(ctx), t[i].off), "'%s': offset %ld (%s)", t[i].text,
                  sy_ctx_last_error_offset(ctx), sy_ctx_last_error_msg(ctx));
        cr_assert(strstr(sy_ctx_last_error_msg(ctx), t[i].msg) != NULL, "'%s': message '%s'", t[i].text,
                  sy_ctx_last_error_msg(ctx));
    }
    /* deep nesting is an error, not a stack overflow */
    char deep[20001];
    memset(deep, '(', 10000);
    memset(deep + 10000, ')', 10000);
    deep[20000] = '\0';
    const sy_expr *e;
    cr_assert(eq(int, sy_expr_parse(ctx, deep, (size_t)-1, &e), SY_EFORMAT));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "nested too deeply") != NULL);
    /* the documented limit: 400 levels (parentheses, calls, unary signs, 'not', '**'), not 199 */
    char lim[1300];
    for (int depth = 400; depth <= 401; depth++) {
        size_t n = 0;
        for (int i = 0; i < depth; i++) lim[n++] = '(';
        lim[n++] = 'x';
        for (int i = 0; i < depth; i++) lim[n++] = ')';
        lim[n] = '\0';
        cr_assert(eq(int, sy_expr_parse(ctx, lim, n, &e), depth <= 400 ? SY_OK : SY_EFORMAT), "%d parentheses", depth);
        n = 0;
        for (int i = 0; i < depth; i++) lim[n++] = '-';
        lim[n++] = 'x';
        lim[n] = '\0';
        cr_assert(eq(int, sy_expr_parse(ctx, lim, n, &e), depth <= 400 ? SY_OK : SY_EFORMAT), "%d minus signs", depth);
        n = 0;
        lim[n++] = 'x';
        for (int i = 0; i < depth; i++) n += (size_t)sprintf(lim + n, "**1");
        cr_assert(eq(int, sy_expr_parse(ctx, lim, n, &e), depth <= 400 ? SY_OK : SY_EFORMAT), "%d powers", depth);
    }
}

CASE(eval_errors)
{
    const sy_expr *e = P("FloorDiv(x, y - 2)"), *syms[2] = {sy_expr_sym(ctx, "x"), sy_expr_sym(ctx, "y")};
    int64_t vals[2] = {5, 2}, out;
    cr_assert(eq(int, sy_expr_eval_si(ctx, e, 2, syms, vals, &out), SY_EDIVZERO));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "FloorDiv(x, y - 2)") != NULL);
    cr_assert(eq(int, sy_expr_eval_si(ctx, e, 1, syms, vals, &out), SY_EINVAL));
    cr_assert(strstr(sy_ctx_last_error_msg(ctx), "'y'") != NULL);
    /* int64 overflow of the result, exact intermediate */
    int64_t big[2] = {INT64_MAX, 3};
    cr_assert(eq(int, sy_expr_eval_si(ctx, P("x*y - 2*x"), 2, syms, big, &out), SY_OK));
    cr_assert(eq(i64, out, INT64_MAX));
    cr_assert(eq(int, sy_expr_eval_si(ctx, P("x*y"), 2, syms, big, &out), SY_EOVERFLOW));
    const sy_expr *v;
    const sy_expr *bv[2] = {P("9223372036854775807"), P("3")};
    cr_assert(eq(int, sy_expr_eval(ctx, P("x*y"), 2, syms, bv, &v), SY_OK));
    cr_assert(v == P("27670116110564327421"));
}

CASE(constructor_errors_propagate)
{
    const sy_expr *x = sy_expr_sym(ctx, "x");
    cr_assert(sy_expr_add(ctx, x, NULL) == NULL);
    cr_assert(sy_expr_sym(ctx, "1abc") == NULL);
    cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EINVAL));
    cr_assert(sy_expr_sym(ctx, "Mod") == NULL);
    cr_assert(sy_expr_add(ctx, x, sy_expr_true(ctx)) == NULL);
    cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EINVAL));
    cr_assert(sy_expr_and(ctx, x, sy_expr_true(ctx)) == NULL);
    cr_assert(sy_expr_min_n(ctx, 0, NULL) == NULL);
    cr_assert(sy_expr_int_str(ctx, "12a") == NULL);
    cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EFORMAT));
    sy_ctx_reset_error(ctx);
    cr_assert(eq(int, sy_ctx_last_error(ctx), SY_OK));
}

CASE(polynomial_operations)
{
    const sy_expr *x = sy_expr_sym(ctx, "x");
    const sy_expr *e = P("3*x**2*y + x*y - 7");
    cr_assert(eq(long, sy_expr_degree(e, x), 2));
    cr_assert(sy_expr_coeff(ctx, e, x, 2) == P("3*y"));
    cr_assert(sy_expr_coeff(ctx, e, x, 0) == P("-7"));
    cr_assert(sy_expr_poly_gcd(ctx, P("x**2 - y**2"), P("x**2 + 2*x*y + y**2")) == P("x + y"));
    const sy_expr *q;
    cr_assert(eq(int, sy_expr_poly_divexact(ctx, P("x**3 - 1"), P("x - 1"), &q), SY_TRUE));
    cr_assert(q == P("x**2 + x + 1"));
    cr_assert(eq(int, sy_expr_poly_divexact(ctx, P("x**3 - 2"), P("x - 1"), &q), SY_FALSE));
    cr_assert(eq(int, sy_expr_poly_divexact(ctx, P("x"), P("0"), &q), SY_BOOL_ERROR));
    cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EDIVZERO));
    const sy_expr **syms;
    size_t n;
    cr_assert(eq(int, sy_expr_free_symbols(ctx, P("FloorDiv(s10, s2) + s1*z"), &syms, &n), SY_OK));
    cr_assert(eq(sz, n, 4));
    cr_assert(eq(str, (char *)sy_expr_sym_name(syms[0]), "s1"));
    cr_assert(eq(str, (char *)sy_expr_sym_name(syms[1]), "s2"));
    cr_assert(eq(str, (char *)sy_expr_sym_name(syms[2]), "s10"));
    sy_mem_free(ctx, syms);
    const sy_expr *k[1] = {x}, *val[1] = {P("y + 1")};
    cr_assert(sy_expr_subs(ctx, P("FloorDiv(x, 2) + x**2"), 1, k, val) == P("FloorDiv(y + 1, 2) + y**2 + 2*y + 1"));
}

CASE(deterministic_order_independent_of_creation)
{
    /* printed text does not depend on which symbol was created first */
    sy_ctx *c2 = NULL;
    cr_assert(eq(int, sy_ctx_new(NULL, &c2), SY_OK));
    sy_expr_sym(c2, "zeta");
    sy_expr_sym(c2, "b");
    const sy_expr *e2 = NULL;
    cr_assert(eq(int, sy_expr_parse(c2, "b*zeta + Mod(zeta, 3) + a + FloorDiv(b, 2)", (size_t)-1, &e2), SY_OK));
    char *s2 = sy_expr_print(c2, e2, SY_PRINT_CANONICAL);
    const sy_expr *e1 = P("a + FloorDiv(b, 2) + Mod(zeta, 3) + zeta*b");
    cr_assert(eq(str, S(e1), s2));
    sy_str_free(c2, s2);
    sy_ctx_free(c2);
}

Test(algebra_expr, out_of_memory_at_every_allocation, .timeout = SY_TIMEOUT(120))
{
    /* make the n-th allocation fail: every run returns SY_ENOMEM (or
     * succeeds), leaks nothing and leaves the context usable */
    const char *text = "FloorDiv(3*x + Mod(y, 4)*z, 2) + Max(x, y + 1) <= (a + b)**3";
    long n;
    for (n = 0; n < 4000; n++) {
        sy_ctx *c = new_counting_ctx(n);
        if (!c) {
            cr_assert(eq(long, g_alloc.live, 0));
            continue;
        }
        const sy_expr *e = NULL;
        sy_status st = sy_expr_parse(c, text, (size_t)-1, &e);
        cr_assert(st == SY_OK || st == SY_ENOMEM, "n=%ld: %s %s", n, sy_status_name(st), sy_ctx_last_error_msg(c));
        sy_ctx_free(c);
        cr_assert(eq(long, g_alloc.live, 0), "n=%ld leaked %ld", n, g_alloc.live);
        if (st == SY_OK) break;
    }
    cr_assert(lt(long, n, 4000));
    flint_cleanup();
}

CASE(context_options_and_versions)
{
    sy_ctx_options o;
    cr_assert(eq(int, sy_ctx_options_init(&o, 99), SY_EVERSION));
    cr_assert(eq(int, sy_ctx_options_init(&o, SY_CTX_OPTIONS_VERSION), SY_OK));
    o.version = 7;
    sy_ctx *c = NULL;
    cr_assert(eq(int, sy_ctx_new(&o, &c), SY_EVERSION));
    cr_assert(c == NULL);
    cr_assert(eq(int, sy_version_number(), SY_VERSION_NUMBER));
    cr_assert(sy_ctx_free(NULL) == NULL);
    sy_ctx_stats st;
    sy_ctx_get_stats(ctx, &st);
    cr_assert(lt(sz, 0, st.nodes));
}
