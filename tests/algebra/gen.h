/* Random expression trees for property tests: generator, canonical build
 * through the constructors, reference bignum evaluation, printing.
 * Shared by test_props.c and test_decide_props.c. */
#ifndef SY_TEST_GEN_H
#define SY_TEST_GEN_H
#include "common.h"

#include <flint/fmpz.h>

enum { N_CONST, N_SYM, N_ADD, N_SUB, N_MUL, N_NEG, N_FDIV, N_MOD, N_CDIV, N_MIN, N_MAX, N_POW, N_COUNT };
enum { R_EQ, R_NE, R_LT, R_LE, R_GT, R_GE };

typedef struct tnode {
    int op;
    int64_t c;
    int sym;
    struct tnode *a, *b;
} tnode;

static uint64_t rng = 1;
static inline uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static tnode pool[4096];
static int gen_nsyms = 3;
static int npool;

static inline tnode *gen(int depth)
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
            n->sym = (int)(rnd() % (uint64_t)gen_nsyms);
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

static inline const sy_expr *build(const tnode *n, const sy_expr *const *syms)
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
static inline int refeval(const tnode *n, const fmpz *vals, fmpz_t out)
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

static inline void random_value(fmpz_t v)
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

static inline void show_rec(const tnode *n, char *buf, size_t cap, size_t *pos)
{
    static const char *names[] = {"", "", "+", "-", "*", "neg", "FloorDiv", "Mod", "CeilDiv", "Min", "Max", "**"};
#define PUT(...)                                                                      \
    do {                                                                              \
        if (*pos < cap) *pos += (size_t)snprintf(buf + *pos, cap - *pos, __VA_ARGS__); \
    } while (0)
    if (n->op == N_CONST) PUT("%lld", (long long)n->c);
    else if (n->op == N_SYM) PUT("%c", "xyz"[n->sym]);
    else if (n->op == N_NEG) { PUT("(-("); show_rec(n->a, buf, cap, pos); PUT("))"); }
    else if (n->op == N_POW) { PUT("(("); show_rec(n->a, buf, cap, pos); PUT(")**%lld)", (long long)n->c); }
    else if (n->op <= N_MUL) {
        PUT("((");
        show_rec(n->a, buf, cap, pos);
        PUT(") %s (", names[n->op]);
        show_rec(n->b, buf, cap, pos);
        PUT("))");
    } else {
        PUT("%s(", names[n->op]);
        show_rec(n->a, buf, cap, pos);
        PUT(", ");
        show_rec(n->b, buf, cap, pos);
        PUT(")");
    }
#undef PUT
}

static inline char *show(const tnode *n, char *buf, size_t cap)
{
    size_t pos = 0;
    buf[0] = '\0';
    show_rec(n, buf, cap, &pos);
    return buf;
}

#endif
