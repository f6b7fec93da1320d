/* Work budgets per operation (issue 14): steps, intermediate terms and bytes
 * in sy_ctx_options; exceeding one is SY_EQUOTA with a message naming the
 * budget, and a failed operation releases every node it interned (the
 * allocation counter and the node count return to their values before it).
 * Also memoized evaluation and the let-form printer on the nested FloorDiv
 * chain, whose tree is exponential in its depth. */
#include "common.h"

static char *join(const char *fmt, const char *sep, int n)
{
    size_t cap = (size_t)n * (strlen(fmt) + strlen(sep) + 12) + 64, len = 0;
    char *t = malloc(cap);
    t[0] = 0;
    for (int i = 0; i < n; i++) {
        if (i) len += (size_t)snprintf(t + len, cap - len, "%s", sep);
        len += (size_t)snprintf(t + len, cap - len, fmt, i);
    }
    return t;
}

static char *pow7_text(int n)
{
    char *ys = join("y%d", "*", n + 1);
    const char *ys1 = strchr(ys, '*') + 1;
    size_t cap = strlen(ys1) + 64;
    char *t = malloc(cap);
    snprintf(t, cap, "(a+b+c+d+e+f+g+h+1)**7*%s", ys1);
    free(ys);
    return t;
}

static sy_ctx *budget_ctx(uint64_t steps, uint64_t terms, uint64_t bytes)
{
    g_alloc.live = 0;
    g_alloc.count = 0;
    g_alloc.fail_at = -1;
    sy_ctx_options o;
    cr_assert(eq(int, sy_ctx_options_init(&o, SY_CTX_OPTIONS_VERSION), SY_OK));
    o.allocator = &g_test_allocator;
    if (steps) o.max_steps = steps;
    if (terms) o.max_work_terms = terms;
    if (bytes) o.max_work_bytes = bytes;
    sy_ctx *c = NULL;
    cr_assert(eq(int, sy_ctx_new(&o, &c), SY_OK));
    return c;
}

static void teardown(void)
{
    ctx = sy_ctx_free(ctx);
    cr_assert(eq(long, g_alloc.live, 0), "leaked %ld blocks", g_alloc.live);
    flint_cleanup();
}

#define MSG(n, what, field, flag)                                                                                      \
    "work budget exceeded: the operation needs more than " #n " " what " (raise sy_ctx_options." field                 \
    ", or --budget " flag "=N on the command line)"

/* the context before a failed operation and after it */
typedef struct {
    sy_ctx_stats st;
    long live;
} snapshot;
static snapshot snap(void)
{
    snapshot s;
    sy_ctx_get_stats(ctx, &s.st);
    s.live = g_alloc.live;
    return s;
}
static void same(snapshot a, snapshot b)
{
    cr_assert(eq(sz, a.st.nodes, b.st.nodes));
    cr_assert(eq(sz, a.st.node_bytes, b.st.node_bytes));
    cr_assert(eq(sz, a.st.symbols, b.st.symbols));
    cr_assert(eq(sz, a.st.live_blocks, b.st.live_blocks));
    cr_assert(eq(long, a.live, b.live), "allocator: %ld blocks before, %ld after", a.live, b.live);
}

Test(budget, defaults_and_validation)
{
    sy_ctx_options o;
    cr_assert(eq(int, sy_ctx_options_init(&o, SY_CTX_OPTIONS_VERSION), SY_OK));
    cr_assert(eq(u64, o.max_steps, 20000000u));
    cr_assert(eq(u64, o.max_work_terms, 20000000u));
    cr_assert(eq(u64, o.max_work_bytes, (uint64_t)256 << 20));
    sy_ctx *c = NULL;
    o.max_steps = 0;
    cr_assert(eq(int, sy_ctx_new(&o, &c), SY_EINVAL));
    /* a version-1 struct (before the budgets) still works, with the defaults */
    cr_assert(eq(int, sy_ctx_options_init(&o, 1u), SY_OK));
    cr_assert(eq(u32, o.version, 1u));
    cr_assert(eq(int, sy_ctx_new(&o, &c), SY_OK));
    sy_ctx_free(c);
    cr_assert(eq(int, sy_ctx_options_init(&o, 3u), SY_EVERSION));
}

/* (a+..+h+1)**7*y1*..*y300: the row whose intermediates were never freed.
 * Within the default budgets it is exact (test_scale.c); with 100000
 * intermediate terms it is the budget error, and the context is as before. */
Test(budget, power_row_terms_budget_and_rollback, .fini = teardown, .timeout = SY_TIMEOUT(60))
{
    ctx = budget_ctx(0, 100000, 0);
    const sy_expr *keep = P("a + b*y1");
    snapshot before = snap();
    char *t = pow7_text(300);
    const sy_expr *e = (const sy_expr *)1;
    cr_assert(eq(int, sy_expr_parse(ctx, t, (size_t)-1, &e), SY_EQUOTA));
    cr_assert(e == NULL);
    cr_assert(eq(str, (char *)sy_ctx_last_error_msg(ctx), MSG(100000, "intermediate terms", "max_work_terms", "terms")));
    same(before, snap());
    /* the context is intact: old nodes are found, new ones are built */
    cr_assert(eq(ptr, (void *)P("b*y1 + a"), (void *)keep));
    cr_assert(eq(str, S(P("(a+1)**2*y2")), "a**2*y2 + 2*a*y2 + y2"));
    free(t);
}

Test(budget, product_row_bytes_budget_and_rollback, .fini = teardown, .timeout = SY_TIMEOUT(60))
{
    ctx = budget_ctx(0, 0, 1u << 20);
    snapshot before = snap();
    char *t = join("x%d", "*", 18000);
    const sy_expr *e;
    cr_assert(eq(int, sy_expr_parse(ctx, t, (size_t)-1, &e), SY_EQUOTA));
    cr_assert(eq(str, (char *)sy_ctx_last_error_msg(ctx), MSG(1048576, "bytes", "max_work_bytes", "bytes")));
    same(before, snap());
    free(t);
    t = join("x%d", "*", 2000); /* fits: about 0.3 MB */
    e = P(t);
    cr_assert(eq(sz, sy_expr_nargs(e), 2000));
    free(t);
}

Test(budget, and_and_chain_rows_steps_budget, .fini = teardown, .timeout = SY_TIMEOUT(60))
{
    ctx = budget_ctx(5000, 0, 0);
    snapshot before = snap();
    char *t = join("x%d <= 0", " and ", 8000);
    const sy_expr *e;
    cr_assert(eq(int, sy_expr_parse(ctx, t, (size_t)-1, &e), SY_EQUOTA));
    cr_assert(eq(str, (char *)sy_ctx_last_error_msg(ctx), MSG(5000, "steps", "max_steps", "steps")));
    same(before, snap());
    free(t);
    t = join("x%d", " < ", 4000);
    cr_assert(eq(int, sy_expr_parse(ctx, t, (size_t)-1, &e), SY_EQUOTA));
    same(before, snap());
    free(t);
    t = join("x%d", " < ", 100); /* within the budget */
    e = P(t);
    cr_assert(eq(sz, sy_expr_nargs(e), 99));
    free(t);
}

/* layer(L) of issue 14's FloorDiv chain (see test_scale.c) */
static const sy_expr *layer(const sy_expr *L)
{
    const sy_expr *q = sy_expr_floordiv(ctx, sy_expr_pow_ui(ctx, L, 2), sy_expr_int_si(ctx, 448));
    const sy_expr *a = sy_expr_floordiv(ctx, sy_expr_mul_si(ctx, q, 64), sy_expr_int_si(ctx, 7));
    const sy_expr *t = sy_expr_floordiv(ctx, sy_expr_mul(ctx, sy_expr_floordiv(ctx, sy_expr_int_si(ctx, 512), a), q),
                                        sy_expr_int_si(ctx, 8));
    return sy_expr_floordiv(ctx, sy_expr_mul(ctx, t, a), sy_expr_int_si(ctx, 7));
}

static const sy_expr *chain(int layers)
{
    const sy_expr *L = sy_expr_sym(ctx, "s"), *lay = NULL;
    for (int k = 0; k < layers; k++) {
        lay = layer(L);
        L = sy_expr_floordiv(ctx, lay, sy_expr_int_si(ctx, 4));
    }
    return lay;
}

/* the FloorDiv row: decide and simplify under a budget of 2000 steps fail
 * with the budget error; the facts' memos are intact afterwards */
/* Small integers are interned on first use and cached (ctx.c): a failed
 * operation that interned some releases them, and its cache entries with
 * them, so building them again gives live nodes. */
Test(budget, small_integer_cache_rolled_back, .fini = teardown, .timeout = SY_TIMEOUT(60))
{
    ctx = budget_ctx(400, 0, 0);
    snapshot before = snap();
    char *t = join("x*%d", " + ", 1000); /* x*0 + x*1 + ... : interns 2..1023, then the step budget is spent */
    const sy_expr *e;
    cr_assert(eq(int, sy_expr_parse(ctx, t, (size_t)-1, &e), SY_EQUOTA));
    same(before, snap());
    free(t);
    for (int64_t v = -64; v <= 1024; v++) {
        const sy_expr *k = sy_expr_int_si(ctx, v);
        int64_t got = 0;
        cr_assert(k != NULL);
        cr_assert(eq(int, sy_expr_get_si(k, &got), SY_OK));
        cr_assert(eq(i64, got, v));
        cr_assert(eq(ptr, (void *)sy_expr_int_si(ctx, v), (void *)k)); /* cached */
    }
    cr_assert(eq(str, S(P("x*300 + 7")), "300*x + 7"));
}

Test(budget, floordiv_row_steps_budget, .fini = teardown, .timeout = SY_TIMEOUT(60))
{
    ctx = budget_ctx(2000, 0, 0);
    const sy_expr *lay = chain(6), *s = sy_expr_sym(ctx, "s");
    cr_assert(lay != NULL, "%s", sy_ctx_last_error_msg(ctx));
    sy_facts *f = sy_facts_new(ctx);
    cr_assert(eq(int, sy_facts_add(f, P("s >= 1")), SY_OK));
    sy_truth tr;
    cr_assert(eq(int, sy_decide(f, P("s >= 1"), &tr), SY_OK));
    cr_assert(eq(int, (int)tr, (int)SY_TRUTH_TRUE));
    snapshot before = snap();
    cr_assert(sy_simplify(f, lay) == NULL);
    cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EQUOTA));
    cr_assert(eq(str, (char *)sy_ctx_last_error_msg(ctx), MSG(2000, "steps", "max_steps", "steps")));
    same(before, snap());
    cr_assert(eq(int, sy_decide(f, sy_expr_ge(ctx, lay, sy_expr_int_si(ctx, 0)), &tr), SY_EQUOTA));
    cr_assert(eq(int, (int)tr, (int)SY_TRUTH_UNKNOWN));
    /* small questions still work on the same facts */
    cr_assert(eq(int, sy_decide(f, P("2*s >= 2"), &tr), SY_OK));
    cr_assert(eq(int, (int)tr, (int)SY_TRUTH_TRUE));
    cr_assert(eq(int, sy_decide(f, P("s <= 0"), &tr), SY_OK));
    cr_assert(eq(int, (int)tr, (int)SY_TRUTH_FALSE));
    const sy_expr *lo, *hi;
    cr_assert(eq(int, sy_bound(f, P("FloorDiv(s, 2) + 3"), &lo, &hi), SY_OK));
    cr_assert(eq(str, S(lo), "3"));
    (void)s;
    sy_facts_free(f);
}

static int64_t layer_value(int64_t L, int layers, int *defined)
{
    int64_t lay = 0;
    *defined = 1;
    for (int i = 0; i < layers; i++) {
        int64_t q = L * L / 448, a = 64 * q / 7;
        if (a == 0) {
            *defined = 0;
            return 0;
        }
        lay = (512 / a) * q / 8 * a / 7;
        L = lay / 4;
    }
    return lay;
}

/* Evaluation is memoized per node: the raw 40-layer chain (a tree of about
 * 10^24 nodes) is evaluated exactly; the first layer that divides by zero is
 * reported. Within the default budgets. */
Test(budget, eval_memoized_on_40_layer_chain, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    const sy_expr *s = sy_expr_sym(ctx, "s");
    for (int layers = 1; layers <= 40; layers += 39) {
        const sy_expr *lay = chain(layers);
        cr_assert(lay != NULL);
        for (int64_t v = 22; v <= 160; v += 23) {
            int def;
            int64_t want = layer_value(v, layers, &def), got = -1;
            sy_status st = sy_expr_eval_si(ctx, lay, 1, &s, &v, &got);
            if (!def) {
                cr_assert(eq(int, st, SY_EDIVZERO), "%d layers at s=%lld: %s", layers, (long long)v, sy_ctx_last_error_msg(ctx));
                sy_ctx_reset_error(ctx);
                continue;
            }
            cr_assert(eq(int, st, SY_OK), "%s", sy_ctx_last_error_msg(ctx));
            cr_assert(eq(i64, got, want));
        }
    }
    /* with a bignum value on the way (the exact path is memoized too) */
    const sy_expr *big = P("s**40 + 1"), *e = big;
    for (int k = 0; k < 30; k++) e = sy_expr_add(ctx, sy_expr_floordiv(ctx, e, sy_expr_int_si(ctx, 3)),
                                                  sy_expr_floordiv(ctx, e, sy_expr_int_si(ctx, 5)));
    const sy_expr *two = sy_expr_int_si(ctx, 2), *r;
    cr_assert(eq(int, sy_expr_eval(ctx, e, 1, &s, &two, &r), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    /* (2^40 + 1) through 30 rounds of x -> x//3 + x//5, computed here with exact integers */
    fmpz_t x, a, b;
    fmpz_init_set_ui(x, 1);
    fmpz_mul_2exp(x, x, 40);
    fmpz_add_ui(x, x, 1);
    fmpz_init(a);
    fmpz_init(b);
    for (int k = 0; k < 30; k++) {
        fmpz_fdiv_q_ui(a, x, 3);
        fmpz_fdiv_q_ui(b, x, 5);
        fmpz_add(x, a, b);
    }
    char *want = fmpz_get_str(NULL, 10, x);
    cr_assert(eq(str, S(r), want));
    flint_free(want);
    fmpz_clear(x);
    fmpz_clear(a);
    fmpz_clear(b);
}

/* tree walk without a memo, through the public accessors */
static uint64_t naive_tree_size(const sy_expr *e)
{
    sy_expr_kind k = sy_expr_kind_of(e);
    if (k == SY_EXPR_INT || k == SY_EXPR_SYM || k == SY_EXPR_TRUE || k == SY_EXPR_FALSE) return 1;
    uint64_t n = 1;
    for (size_t i = 0; i < sy_expr_nargs(e); i++) n += naive_tree_size(sy_expr_arg(e, i));
    return n;
}

/* sy_expr_print_bounded: the canonical text up to let_past tree nodes, the
 * let-form past it (the 6-layer chain: 20 million tree nodes, a few KB). */
Test(budget, print_bounded_switches_to_the_let_form_past_the_tree_size, .init = ctx_setup, .fini = ctx_teardown,
     .timeout = SY_TIMEOUT(60))
{
    const sy_expr *e = P("FloorDiv(a + b, 3)*(a + b) + Max(a + b, c)");
    uint64_t n = 0;
    cr_assert(eq(int, sy_expr_tree_size(ctx, e, &n), SY_OK));
    char *s = sy_expr_print_bounded(ctx, e, SY_PRINT_CANONICAL, n);
    cr_assert(eq(str, s, "a*FloorDiv(a + b, 3) + b*FloorDiv(a + b, 3) + Max(c, a + b)"));
    sy_str_free(ctx, s);
    s = sy_expr_print_bounded(ctx, e, SY_PRINT_CANONICAL, n - 1);
    cr_assert(eq(str, s, "let $1 = a + b\nlet $2 = FloorDiv($1, 3)\nin a*$2 + b*$2 + Max(c, $1)"));
    sy_str_free(ctx, s);
    s = sy_expr_print_bounded(ctx, chain(6), SY_PRINT_CANONICAL, 100000);
    char *l = sy_expr_print_let(ctx, chain(6), SY_PRINT_CANONICAL);
    cr_assert(s != NULL && l != NULL, "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(str, s, l));
    sy_str_free(ctx, l);
    sy_str_free(ctx, s);
    cr_assert(eq(ptr, sy_expr_print_bounded(ctx, NULL, SY_PRINT_CANONICAL, 0), NULL));
    cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EINVAL));
    sy_ctx_reset_error(ctx);
}

/* The let-form prints each shared subterm once; an expression without
 * sharing prints as the canonical text; the tree size counts repeats. */
Test(budget, let_form_and_tree_size, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    const sy_expr *e = P("FloorDiv(x**2, 3)*y + FloorDiv(x**2, 3) + Max(FloorDiv(x**2, 3), y)");
    char *s = sy_expr_print_let(ctx, e, SY_PRINT_CANONICAL);
    cr_assert(s != NULL);
    /* the canonical text with the shared subterm named */
    char want[512] = "let $1 = FloorDiv(x**2, 3)\nin ", *canon = S(e), *w = want + strlen(want);
    for (const char *p = canon; *p;) {
        if (!strncmp(p, "FloorDiv(x**2, 3)", 17)) {
            w += sprintf(w, "$1");
            p += 17;
        } else {
            *w++ = *p++;
        }
    }
    *w = 0;
    cr_assert(eq(str, s, want));
    cr_assert(eq(str, s, "let $1 = FloorDiv(x**2, 3)\nin y*$1 + $1 + Max(y, $1)"));
    sy_str_free(ctx, s);
    e = P("x*y + 2*z + 1");
    s = sy_expr_print_let(ctx, e, SY_PRINT_CANONICAL);
    cr_assert(eq(str, s, S(e)));
    sy_str_free(ctx, s);
    uint64_t n6 = 0, n40 = 0, n1 = 0;
    cr_assert(eq(int, sy_expr_tree_size(ctx, chain(1), &n1), SY_OK));
    cr_assert(eq(int, sy_expr_tree_size(ctx, chain(6), &n6), SY_OK));
    cr_assert(eq(int, sy_expr_tree_size(ctx, chain(40), &n40), SY_OK));
    cr_assert(n6 > 1000000u, "6 layers: %llu", (unsigned long long)n6); /* the 139 MB text */
    cr_assert(eq(u64, n40, UINT64_MAX)); /* saturated */
    cr_assert(eq(u64, n1, naive_tree_size(chain(1))));
    uint64_t n3 = 0;
    cr_assert(eq(int, sy_expr_tree_size(ctx, chain(3), &n3), SY_OK));
    cr_assert(eq(u64, n3, naive_tree_size(chain(3))));
    /* the 40-layer let-form: linear, every name defined before use */
    s = sy_expr_print_let(ctx, chain(40), SY_PRINT_CANONICAL);
    cr_assert(s != NULL, "%s", sy_ctx_last_error_msg(ctx));
    size_t lets = 0, len = strlen(s);
    for (const char *p = s; (p = strstr(p, "let $")); p++) {
        lets++;
        char *end;
        unsigned long k = strtoul(p + 5, &end, 10);
        cr_assert(eq(u64, k, lets));
        const char *def = strstr(p, " = ");
        const char *nl = strchr(p, '\n');
        for (const char *q = def; q < nl; q++) /* only earlier names on the right-hand side */
            if (*q == '$') cr_assert(strtoul(q + 1, NULL, 10) < k);
    }
    cr_assert(lets >= 40 * 4, "%zu lets", lets);
    cr_assert(len < 40 * 2000, "%zu bytes", len);
    sy_str_free(ctx, s);
}

/* Nesting is bounded at construction (SY_MAX_DEPTH, 2000 levels): the chain
 * Mod(FloorDiv(... + y, y) + y, y) of a graph that alternates add, floordiv
 * and mod by a size grows one level per step (FloorDiv(e + y, y) is
 * FloorDiv(e, y) + 1), and its 10^4-step version overflowed the stack in
 * bound (about 1.5 levels per step: 15000 levels). Step 1334 is the first
 * past 2000 levels; every recursive pass runs on a node of about 1990 levels
 * (a relation over it adds one). */
Test(budget, nesting_limit_and_passes_at_the_limit, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    const sy_expr *x = sy_expr_sym(ctx, "x"), *y = sy_expr_sym(ctx, "y"), *e = x, *near = NULL;
    int failed_at = 0;
    for (int i = 1; i <= 4000 && !failed_at; i++) {
        if (i == 1328) near = e; /* about 1990 levels: room for a relation and rewrites above it */
        const sy_expr *a = sy_expr_add(ctx, e, y);
        const sy_expr *n = a ? (i % 2 ? sy_expr_floordiv(ctx, a, y) : sy_expr_mod(ctx, a, y)) : NULL;
        if (!n) {
            failed_at = i;
            cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EQUOTA));
            cr_assert(eq(str, (char *)sy_ctx_last_error_msg(ctx), "expression nested deeper than 2000 levels"));
        } else {
            e = n;
        }
    }
    cr_assert(eq(int, failed_at, 1334));
    e = near;
    sy_facts *f = sy_facts_new(ctx);
    cr_assert(f != NULL);
    cr_assert(eq(int, sy_facts_add(f, P("x >= 0")), SY_OK));
    cr_assert(eq(int, sy_facts_add(f, P("y >= 1")), SY_OK));
    const sy_expr *lo = NULL, *hi = NULL;
    cr_assert(eq(int, sy_bound(f, e, &lo, &hi), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(str, S(lo), "1")); /* FloorDiv(a, y) + 1 with a >= 0 on top */
    sy_truth t;
    cr_assert(eq(int, sy_decide(f, sy_expr_rel(ctx, SY_REL_GE, e, sy_expr_int_si(ctx, 1)), &t), SY_OK));
    cr_assert(eq(int, t, SY_TRUE));
    cr_assert(sy_simplify(f, e) != NULL, "%s", sy_ctx_last_error_msg(ctx));
    const sy_expr *syms[2] = {x, y}, *vals[2] = {sy_expr_int_si(ctx, 1000), sy_expr_int_si(ctx, 7)};
    const sy_expr *v = NULL;
    cr_assert(eq(int, sy_expr_eval(ctx, e, 2, syms, vals, &v), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    const sy_expr *s = sy_expr_subs(ctx, e, 2, syms, vals);
    cr_assert(s == v, "%s", sy_ctx_last_error_msg(ctx));
    char *txt = sy_expr_print(ctx, e, SY_PRINT_CANONICAL);
    cr_assert(txt != NULL);
    sy_str_free(ctx, txt);
    sy_facts_free(f);
    /* the context goes on after the refusal */
    cr_assert(eq(str, S(sy_expr_add(ctx, x, y)), "x + y"));
}

/* max_const_bits bounds every constant the context builds: FloorDiv(e + 1, 6)
 * repeated multiplies the divisor by 6 (FloorDiv(FloorDiv(a, 6) + 1, 6) =
 * FloorDiv(a + 6, 36)); 6^1585 is the first past 4096 bits. A 10^5-step graph
 * of them had held 2 GB of constants. */
Test(budget, constant_bits_bound_a_floordiv_chain, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    const sy_expr *e = sy_expr_sym(ctx, "x");
    int failed_at = 0;
    for (int i = 1; i <= 5000 && !failed_at; i++) {
        const sy_expr *n = sy_expr_floordiv(ctx, sy_expr_add_si(ctx, e, 1), sy_expr_int_si(ctx, 6));
        if (!n) {
            failed_at = i;
            cr_assert(eq(int, sy_ctx_last_error(ctx), SY_EQUOTA));
            cr_assert(strstr(sy_ctx_last_error_msg(ctx), "exceeds max_const_bits (4096)") != NULL, "%s",
                      sy_ctx_last_error_msg(ctx));
        } else {
            e = n;
        }
    }
    cr_assert(eq(int, failed_at, 1585));
}

/* Issue 38: the size of a constant power was estimated as bits(a) * k, twice
 * too high for a = 2 (2**2081 was refused as "about 4162 bits"; it has 2082),
 * and eval refused x**2049 at x = 2. The bits of a^k are at least
 * (bits(a) - 1) * k + 1: refused past the limit on that, else computed and
 * checked exactly (max_const_bits 4096). */
Test(budget, constant_power_bits_counted_exactly, .init = ctx_setup, .fini = ctx_teardown, .timeout = SY_TIMEOUT(60))
{
    static const struct { const char *text; int ok; } rows[] = {
        {"2**2081", 1}, {"2**4095", 1}, {"2**4096", 0}, {"(-2)**4095", 1}, {"3**2584", 1},
        {"3**2585", 0}, {"3**2600", 0}, {"5**1764", 1}, {"5**1765", 0}, {"1**100000", 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const sy_expr *e = NULL;
        sy_status st = sy_expr_parse(ctx, rows[i].text, (size_t)-1, &e);
        if (rows[i].ok) {
            cr_assert(eq(int, st, SY_OK), "%s: %s", rows[i].text, sy_ctx_last_error_msg(ctx));
            cr_assert(sy_expr_is_int(e), "%s", rows[i].text);
        } else {
            cr_assert(eq(int, st, SY_EQUOTA), "%s", rows[i].text);
            cr_assert(strstr(sy_ctx_last_error_msg(ctx), "bits, more than the limit of 4096") != NULL, "%s: %s", rows[i].text,
                      sy_ctx_last_error_msg(ctx));
            sy_ctx_reset_error(ctx);
        }
    }
    /* 2**2081 is exact: 2082 bits */
    const sy_expr *p = P("2**2081"), *q = P("2**2080*2");
    cr_assert(p == q);
    /* evaluation: x**2049 at x = 2 is 2**2049; x**4096 at 2 is past the limit */
    const sy_expr *x = sy_expr_sym(ctx, "x"), *two = sy_expr_int_si(ctx, 2), *out = NULL;
    cr_assert(eq(int, sy_expr_eval(ctx, P("x**2049"), 1, &x, &two, &out), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(out == P("2**2049"));
    cr_assert(eq(int, sy_expr_eval(ctx, P("x**4095 + 1"), 1, &x, &two, &out), SY_OK), "%s", sy_ctx_last_error_msg(ctx));
    cr_assert(eq(int, sy_expr_eval(ctx, P("x**4096"), 1, &x, &two, &out), SY_EQUOTA));
    sy_ctx_reset_error(ctx);
    const sy_expr *three = sy_expr_int_si(ctx, 3);
    cr_assert(eq(int, sy_expr_eval(ctx, P("x**2585"), 1, &x, &three, &out), SY_EQUOTA));
    sy_ctx_reset_error(ctx);
}
