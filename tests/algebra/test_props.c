/* Property tests: random expression trees are built through the canonical
 * constructors and evaluated both ways (reference tree evaluation with
 * bignums vs the canonical node); printing re-parses to the same node.
 * Every construction-time rewrite rule is exercised this way. */
#include "common.h" /* before FLINT: flint.h defines the macro ulong */

#include <flint/fmpz.h>

enum { N_CONST, N_SYM, N_ADD, N_SUB, N_MUL, N_NEG, N_FDIV, N_MOD, N_CDIV, N_MIN, N_MAX, N_POW, N_COUNT };
enum { R_EQ, R_NE, R_LT, R_LE, R_GT, R_GE };

typedef struct tnode {
    int op;
    int64_t c;
    int sym;
    struct tnode *a, *b;
} tnode;

static uint64_t rng;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static tnode pool[4096];
static int npool;

static tnode *gen(int depth)
{
    tnode *n = &pool[npool++];
    memset(n, 0, sizeof *n);
    int r = (int)(rnd() % 100);
    if (depth <= 0 || r < 25) {
        if (rnd() % 3 == 0) {
            n->op = N_CONST;
            static const int64_t consts[] = {0, 1, -1, 2, 3, -3, 4, 7, 8, 16, 12, -8, 64, 100};
            n->c = consts[rnd() % (sizeof consts / sizeof consts[0])];
        } else {
            n->op = N_SYM;
            n->sym = (int)(rnd() % 3);
        }
        return n;
    }
    static const int ops[] = {N_ADD, N_ADD, N_SUB, N_MUL, N_MUL, N_NEG, N_FDIV, N_FDIV, N_MOD, N_MOD, N_CDIV,
                              N_MIN, N_MAX, N_POW};
    n->op = ops[rnd() % (sizeof ops / sizeof ops[0])];
    n->a = gen(depth - 1);
    if (n->op == N_POW) {
        n->c = (int64_t)(rnd() % 4);
    } else if (n->op != N_NEG) {
        /* divisors: often constants (the common case), sometimes symbolic */
        if ((n->op == N_FDIV || n->op == N_MOD || n->op == N_CDIV) && rnd() % 2) {
            n->b = &pool[npool++];
            memset(n->b, 0, sizeof *n->b);
            n->b->op = N_CONST;
            static const int64_t ds[] = {2, 3, 4, 8, 16, -2, -3, 5, 6, 12, 64, 1, -1};
            n->b->c = ds[rnd() % (sizeof ds / sizeof ds[0])];
        } else {
            n->b = gen(depth - 1);
        }
    }
    return n;
}

static const sy_expr *build(const tnode *n, const sy_expr *const *syms)
{
    switch (n->op) {
    case N_CONST: return sy_expr_int_si(ctx, n->c);
    case N_SYM: return syms[n->sym];
    case N_ADD: return sy_expr_add(ctx, build(n->a, syms), build(n->b, syms));
    case N_SUB: return sy_expr_sub(ctx, build(n->a, syms), build(n->b, syms));
    case N_MUL: return sy_expr_mul(ctx, build(n->a, syms), build(n->b, syms));
    case N_NEG: return sy_expr_neg(ctx, build(n->a, syms));
    case N_FDIV: return sy_expr_floordiv(ctx, build(n->a, syms), build(n->b, syms));
    case N_MOD: return sy_expr_mod(ctx, build(n->a, syms), build(n->b, syms));
    case N_CDIV: return sy_expr_ceildiv(ctx, build(n->a, syms), build(n->b, syms));
    case N_MIN: return sy_expr_min(ctx, build(n->a, syms), build(n->b, syms));
    case N_MAX: return sy_expr_max(ctx, build(n->a, syms), build(n->b, syms));
    default: return sy_expr_pow_ui(ctx, build(n->a, syms), (uint64_t)n->c);
    }
}

/* reference: direct bignum evaluation of the tree; returns 0 if undefined */
static int refeval(const tnode *n, const fmpz *vals, fmpz_t out)
{
    fmpz_t a, b;
    int ok = 1;
    switch (n->op) {
    case N_CONST: fmpz_set_si(out, n->c); return 1;
    case N_SYM: fmpz_set(out, &vals[n->sym]); return 1;
    default: break;
    }
    fmpz_init(a);
    fmpz_init(b);
    ok = refeval(n->a, vals, a);
    if (ok && n->b) ok = refeval(n->b, vals, b);
    if (ok) {
        switch (n->op) {
        case N_ADD: fmpz_add(out, a, b); break;
        case N_SUB: fmpz_sub(out, a, b); break;
        case N_MUL: fmpz_mul(out, a, b); break;
        case N_NEG: fmpz_neg(out, a); break;
        case N_FDIV: if (fmpz_is_zero(b)) ok = 0; else fmpz_fdiv_q(out, a, b); break;
        case N_MOD: if (fmpz_is_zero(b)) ok = 0; else fmpz_fdiv_r(out, a, b); break;
        case N_CDIV: if (fmpz_is_zero(b)) ok = 0; else fmpz_cdiv_q(out, a, b); break;
        case N_MIN: fmpz_set(out, fmpz_cmp(a, b) < 0 ? a : b); break;
        case N_MAX: fmpz_set(out, fmpz_cmp(a, b) > 0 ? a : b); break;
        default: fmpz_pow_ui(out, a, (ulong)n->c); break;
        }
    }
    fmpz_clear(a);
    fmpz_clear(b);
    return ok;
}

static void random_value(fmpz_t v)
{
    uint64_t k = rnd() % 10;
    if (k < 5) fmpz_set_si(v, (int64_t)(rnd() % 21) - 10);
    else if (k < 7) fmpz_set_si(v, (int64_t)(rnd() % 2001) - 1000);
    else if (k < 9) {
        fmpz_set_ui(v, rnd());
        fmpz_mul_2exp(v, v, 8); /* past int64 */
        if (rnd() & 1) fmpz_neg(v, v);
    } else {
        fmpz_set_si(v, (rnd() & 1) ? INT64_MAX - (int64_t)(rnd() % 3) : INT64_MIN + (int64_t)(rnd() % 3));
    }
}

static char *show(const tnode *n, char *buf, size_t cap)
{
    static const char *names[] = {"", "", "+", "-", "*", "neg", "FloorDiv", "Mod", "CeilDiv", "Min", "Max", "**"};
    if (n->op == N_CONST) snprintf(buf, cap, "%lld", (long long)n->c);
    else if (n->op == N_SYM) snprintf(buf, cap, "%c", "xyz"[n->sym]);
    else {
        char l[2048], r[2048];
        show(n->a, l, sizeof l);
        if (n->op == N_NEG) snprintf(buf, cap, "(-(%s))", l);
        else if (n->op == N_POW) snprintf(buf, cap, "((%s)**%lld)", l, (long long)n->c);
        else {
            show(n->b, r, sizeof r);
            if (n->op <= N_MUL) snprintf(buf, cap, "((%s) %s (%s))", l, names[n->op], r);
            else snprintf(buf, cap, "%s(%s, %s)", names[n->op], l, r);
        }
    }
    return buf;
}

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
            const sy_expr *bv[3];
            for (int i = 0; i < 3; i++) bv[i] = sy_expr_int_str(ctx, fmpz_get_str(NULL, 10, &vals[i]) ? NULL : NULL);
            (void)bv;
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
    cr_assert(gt(long, compared, iters));
    flint_cleanup();
}
