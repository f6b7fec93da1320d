/* The bytecode compiler: guard set -> register program. docs/bytecode.md
 * ("Compilation" and "Semantics") explains each rule and why it keeps the
 * program exact: whenever the VM does not fail closed its answer is the
 * reference checker's (sy_gset_check).
 *
 * Code generation: cexpr(e, dst) leaves the value of e in r[dst] and uses
 * only registers above dst as temporaries (a register stack); each emit
 * checks its format and field ranges; hitting a limit of the format is
 * SY_EUNSUPPORTED. Errors are sticky: after the first one every call does
 * nothing and sy_bc_compile returns that first status. */
#include <stdarg.h>
#include <string.h>

#include "backends/bc_private.h"

#define MAX_DEPTH 1000u

/* the three walks over the guards (see "Shared subterms") */
enum { EMIT = 0, COUNT = 1, HOIST = 2 };

typedef struct builder {
    sy_ctx *ctx;
    const sy_gset *gs;
    sy_status st;            /* sticky: the first error */
    size_t guard;            /* guard being compiled (messages) */
    uint32_t *code;
    size_t ncode, capcode;
    fmpz *k;                 /* constant pool, in order of first use */
    size_t nk, capk;
    size_t *pend;            /* pending forward jumps (a stack of lists) */
    size_t npend, cappend;
    unsigned nregs;          /* highest register used + 1 */
    unsigned depth;
    uint64_t max_bits;       /* the context's max_const_bits */
    int runtime;             /* compiling the runtime asserts (after RTCHECKS) */
    /* common subexpressions over the hash-consed DAG (see "Shared
     * subterms" below): one entry per compound node met, open addressing by
     * node hash */
    sy_etab nodes;           /* node -> struct cse */
    int mode;                /* COUNT, HOIST: walk, emit nothing; EMIT */
    int noshare;             /* compile every use of a node (the fallback past 256 live registers) */
    int regs_out;            /* failed for want of a register */
    const sy_expr *live[SY_BC_MAX_REGS]; /* the shared node a register holds, NULL free */
    unsigned nlive;          /* highest live register + 1 */
} builder;

/* What the compiler knows of one compound node. */
typedef struct cse {
    uint32_t uses;           /* the places that compile it (counting pass) */
    uint32_t left;           /* the reads not emitted yet: its register is freed after the last */
    int reg;                 /* the register holding it, -1 not computed, -2 freed */
    unsigned char safe;      /* safe_expr's memo: 0 not known, 1 safe, 2 not safe */
    uint64_t bits;           /* safe_expr's bit bound, when safe is 1 or 2 */
} cse;

static sy_status bfail(builder *b, sy_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static sy_status bfail(builder *b, sy_status st, const char *fmt, ...)
{
    if (b->st) return b->st;
    b->st = st;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sy_fail_st(b->ctx, st, "bc_compile: guard %zu: %s", b->guard, msg);
}

static int grow(builder *b, void **p, size_t *cap, size_t n, size_t elt)
{
    if (n < *cap) return 1;
    size_t nc = *cap ? *cap * 2 : 64;
    void *np = sy_realloc(b->ctx, *p, *cap * elt, nc * elt);
    if (!np) {
        bfail(b, SY_ENOMEM, "out of memory");
        return 0;
    }
    *p = np;
    *cap = nc;
    return 1;
}

/* ------------------------------------------------------------------ emission */

static int use_reg(builder *b, unsigned r)
{
    if (b->mode != EMIT) return 1;
    if (r >= SY_BC_MAX_REGS) {
        bfail(b, SY_EUNSUPPORTED, "the expression needs more than %u registers", SY_BC_MAX_REGS);
        b->regs_out = 1;
        return 0;
    }
    if (r + 1 > b->nregs) b->nregs = r + 1;
    return 1;
}

static void emit(builder *b, uint32_t w)
{
    if (b->st || b->mode != EMIT) return;
    if (b->ncode >= SY_BC_MAX_INSTR) {
        bfail(b, SY_EUNSUPPORTED, "more than %u instructions", SY_BC_MAX_INSTR);
        return;
    }
    if (!grow(b, (void **)&b->code, &b->capcode, b->ncode, sizeof *b->code)) return;
    b->code[b->ncode++] = w;
}

/* Field value against its role; registers extend the register count. */
static int field_ok(builder *b, unsigned role, uint32_t v, uint32_t max)
{
    if (role == SY_BC_ROLE_RIN || role == SY_BC_ROLE_ROUT) return use_reg(b, v);
    if (role == SY_BC_ROLE_NONE && v) return bfail(b, SY_ERROR, "internal: operand for an unused field"), 0;
    if (v > max) return bfail(b, SY_ERROR, "internal: operand %u out of field range", (unsigned)v), 0;
    return 1;
}

static void emit_abc(builder *b, unsigned op, unsigned a, unsigned bb, unsigned c)
{
    if (b->st || b->mode != EMIT) return;
    if (op >= SY_OP_COUNT || sy_bc_op_fmt[op] != SY_BC_FMT_ABC) {
        bfail(b, SY_ERROR, "internal: %s is not an ABC instruction", sy_bc_op_name(op));
        return;
    }
    const unsigned char *r = sy_bc_op_role[op];
    if (field_ok(b, r[0], a, 0xFF) && field_ok(b, r[1], bb, 0xFF) && field_ok(b, r[2], c, 0xFF))
        emit(b, SY_BC_ABC(op, a, bb, c));
}

static void emit_abx(builder *b, unsigned op, unsigned a, uint32_t bx)
{
    if (b->st || b->mode != EMIT) return;
    if (op >= SY_OP_COUNT || sy_bc_op_fmt[op] != SY_BC_FMT_ABX) {
        bfail(b, SY_ERROR, "internal: %s is not an ABx instruction", sy_bc_op_name(op));
        return;
    }
    const unsigned char *r = sy_bc_op_role[op];
    if (field_ok(b, r[0], a, 0xFF) && field_ok(b, r[1], bx, 0xFFFF)) emit(b, SY_BC_ABX(op, a, bx));
}

/* A forward jump to a label resolved later (patch_jumps). */
static void emit_jump(builder *b, unsigned op, unsigned a)
{
    if (b->st || b->mode != EMIT) return;
    if (sy_bc_op_fmt[op] != SY_BC_FMT_ASBX || !use_reg(b, a)) {
        bfail(b, SY_ERROR, "internal: bad jump");
        return;
    }
    if (!grow(b, (void **)&b->pend, &b->cappend, b->npend, sizeof *b->pend)) return;
    b->pend[b->npend++] = b->ncode;
    emit(b, SY_BC_ASBX(op, a, 0));
}

/* Resolve the jumps pending since @p mark to the next instruction. */
static void patch_jumps(builder *b, size_t mark)
{
    for (size_t i = mark; i < b->npend && !b->st; i++) {
        size_t at = b->pend[i], d = b->ncode - at - 1;
        if (d > SY_BC_MAX_JUMP) {
            bfail(b, SY_EUNSUPPORTED, "a jump over %zu instructions (the limit is %d)", d, SY_BC_MAX_JUMP);
            break;
        }
        uint32_t w = b->code[at];
        b->code[at] = SY_BC_ASBX(SY_BC_GET_OP(w), SY_BC_GET_A(w), (int)d);
    }
    b->npend = mark;
}

/* ------------------------------------------------------------------ constants */

static uint32_t kindex(builder *b, const fmpz_t v)
{
    for (size_t i = 0; i < b->nk; i++)
        if (fmpz_equal(&b->k[i], v)) return (uint32_t)i;
    if (b->nk >= SY_BC_MAX_INDEX) {
        bfail(b, SY_EUNSUPPORTED, "more than %u constants", SY_BC_MAX_INDEX);
        return 0;
    }
    if (!grow(b, (void **)&b->k, &b->capk, b->nk, sizeof *b->k)) return 0;
    fmpz_init_set(&b->k[b->nk], v);
    return (uint32_t)b->nk++;
}

static void emit_loadk(builder *b, unsigned dst, const fmpz_t v)
{
    if (b->st || b->mode != EMIT) return;
    uint32_t i = kindex(b, v);
    emit_abx(b, SY_OP_LOADK, dst, i);
}

static void emit_loadk_si(builder *b, unsigned dst, int64_t v)
{
    fmpz_t t;
    fmpz_init_set_si(t, v);
    emit_loadk(b, dst, t);
    fmpz_clear(t);
}

/* The value of an integer constant node, exactly (public accessors only). */
static int int_value(builder *b, const sy_expr *e, fmpz_t out)
{
    int64_t v;
    if (!e) return bfail(b, sy_ctx_last_error(b->ctx) ? sy_ctx_last_error(b->ctx) : SY_ENOMEM, "%s",
                         sy_ctx_last_error_msg(b->ctx)),
                   0;
    sy_status st = sy_expr_get_si(e, &v);
    if (st == SY_OK) {
        fmpz_set_si(out, v);
        return 1;
    }
    if (st != SY_EOVERFLOW) return bfail(b, SY_EINVAL, "not an integer constant"), 0;
    char *s = sy_expr_print(b->ctx, e, SY_PRINT_CANONICAL);
    if (!s) return bfail(b, SY_ENOMEM, "out of memory"), 0;
    int ok = fmpz_set_str(out, s, 10) == 0;
    sy_str_free(b->ctx, s);
    if (!ok) return bfail(b, SY_ERROR, "internal: unreadable constant"), 0;
    return 1;
}

static int coeff(builder *b, const sy_expr *e, size_t i, fmpz_t out)
{
    return int_value(b, sy_expr_add_coeff(b->ctx, e, i), out);
}

static int fits64(const fmpz_t v) { return fmpz_fits_si(v); }

/* ------------------------------------------------------------------ shared subterms */

/* Hash-consing makes a guard a DAG whose tree can be exponentially larger
 * (issue 14's nested FloorDiv chain). Every walk below is memoized on node
 * identity, and a compound node compiled from more than one place is
 * computed once into a register that holds it until its last reader:
 *  1. a counting pass walks the guards exactly as code generation will and
 *     counts, per compound node, the places that compile it (its children
 *     only on its first visit) and the last conjunct reading it;
 *  2. before a conjunct (one CHECK) is compiled, every shared node it needs
 *     and that is not computed yet is computed, children first, straight
 *     line, into the lowest free register (MOVE when it was computed above
 *     the live ones): never inside a short-circuit, so it is written on
 *     every path that reads it (the verifier proves this);
 *  3. the conjunct's own code starts above the live registers; a shared
 *     node is a MOVE from its register, which is freed after its last
 *     reader (the counting pass counted the reads), so the registers live
 *     at a time are the shared values still to be read.
 * Computing a shared node before its conjunct instead of inside a branch
 * cannot change an answer: the reference checker evaluates every operand of
 * And/Or, so a value of the conjunct that divides by zero fails it there
 * too, and one beyond int64 is a fail-closed answer naming this guard, whose
 * exact evaluation does leave int64. The program is linear in the DAG. */

static cse *cse_find(builder *b, const sy_expr *e, int create)
{
    if (b->st) return NULL;
    b->nodes.fresh = false;
    size_t j = sy_etab_slot(b->ctx, &b->nodes, e, sizeof(cse), create);
    if (j == SIZE_MAX) {
        if (create) bfail(b, SY_ENOMEM, "out of memory");
        return NULL;
    }
    cse *c = (cse *)b->nodes.vals + j;
    if (b->nodes.fresh) c->reg = -1;
    return c;
}

static int is_leaf(sy_expr_kind k)
{
    return k == SY_EXPR_INT || k == SY_EXPR_SYM || k == SY_EXPR_TRUE || k == SY_EXPR_FALSE;
}

/* ------------------------------------------------------------------ safety of short-circuits */

static uint64_t sat_add(uint64_t a, uint64_t c) { return a + c < a ? UINT64_MAX : a + c; }
static uint64_t sat_mul(uint64_t a, uint64_t c) { return c && a > UINT64_MAX / c ? UINT64_MAX : a * c; }

/* 1 if exact evaluation of e at any int64 point cannot fail: no divisor can
 * be zero (only non-zero constant divisors) and no value exceeds the
 * context's max_const_bits (the reference checker's SY_EQUOTA). *bits is a
 * bound on the bit size of e's value. Skipping such an operand cannot hide
 * a failure of the reference checker. */
static int safe_expr_node(builder *b, const sy_expr *e, uint64_t *bits, unsigned depth);
static int safe_expr(builder *b, const sy_expr *e, uint64_t *bits, unsigned depth)
{
    if (depth > MAX_DEPTH || b->st) return 0;
    if (is_leaf(sy_expr_kind_of(e))) return safe_expr_node(b, e, bits, depth);
    cse *c = cse_find(b, e, 1);
    if (!c) return 0;
    if (c->safe) {
        *bits = c->bits;
        return c->safe == 1;
    }
    int ok = safe_expr_node(b, e, bits, depth);
    if ((c = cse_find(b, e, 0)) != NULL && !b->st) { /* the table may have grown */
        c->safe = ok ? 1 : 2;
        c->bits = *bits;
    }
    return ok;
}

static int safe_expr_node(builder *b, const sy_expr *e, uint64_t *bits, unsigned depth)
{
    uint64_t x = 0, y;
    size_t n = sy_expr_nargs(e);
    fmpz_t c;
    fmpz_init(c);
    int ok = 1;
    switch (sy_expr_kind_of(e)) {
    case SY_EXPR_INT: ok = int_value(b, e, c); x = fmpz_bits(c); break;
    case SY_EXPR_SYM: x = 64; break;
    case SY_EXPR_TRUE:
    case SY_EXPR_FALSE: x = 1; break;
    case SY_EXPR_ADD:
        ok = int_value(b, sy_expr_add_const(b->ctx, e), c);
        x = fmpz_bits(c);
        for (size_t i = 0; ok && i < n; i++) {
            ok = safe_expr(b, sy_expr_arg(e, i), &y, depth + 1) && coeff(b, e, i, c);
            y = sat_add(y, fmpz_bits(c));
            if (y > x) x = y;
        }
        x = sat_add(x, 64 - (uint64_t)__builtin_clzll((unsigned long long)n + 1)); /* + log2(n + 1) carries */
        break;
    case SY_EXPR_MUL:
        for (size_t i = 0; ok && i < n; i++) {
            ok = safe_expr(b, sy_expr_arg(e, i), &y, depth + 1);
            x = sat_add(x, y);
        }
        break;
    case SY_EXPR_POW:
        ok = safe_expr(b, sy_expr_arg(e, 0), &y, depth + 1);
        x = sat_mul(y, sy_expr_pow_exp(e));
        break;
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_CEILDIV:
    case SY_EXPR_MOD: {
        const sy_expr *d = sy_expr_arg(e, 1);
        ok = sy_expr_kind_of(d) == SY_EXPR_INT && int_value(b, d, c) && !fmpz_is_zero(c);
        ok = ok && safe_expr(b, sy_expr_arg(e, 0), &x, depth + 1) && safe_expr(b, d, &y, depth + 1);
        if (sy_expr_kind_of(e) == SY_EXPR_MOD) x = y; /* |a mod b| < |b|; |a // b| <= |a| */
        break;
    }
    case SY_EXPR_MIN:
    case SY_EXPR_MAX:
        for (size_t i = 0; ok && i < n; i++) {
            ok = safe_expr(b, sy_expr_arg(e, i), &y, depth + 1);
            if (y > x) x = y;
        }
        break;
    case SY_EXPR_EQ:
    case SY_EXPR_NE:
    case SY_EXPR_LE:
    case SY_EXPR_AND:
    case SY_EXPR_OR:
        for (size_t i = 0; ok && i < n; i++) ok = safe_expr(b, sy_expr_arg(e, i), &y, depth + 1);
        x = 1;
        break;
    default: ok = 0; break;
    }
    fmpz_clear(c);
    *bits = x;
    return ok && x <= b->max_bits;
}

/* ------------------------------------------------------------------ expressions */

static void cexpr(builder *b, const sy_expr *e, unsigned dst);

static long slot_of(builder *b, const sy_expr *sym)
{
    size_t n = sy_gset_nsources(b->gs);
    for (size_t i = 0; i < n; i++)
        if (sy_gset_source_var(b->gs, i) == sym) return (long)i;
    if (b->runtime) /* after RTCHECKS: the unbacked values follow the sources */
        for (size_t i = 0; i < sy_gset_nunbacked(b->gs); i++)
            if (sy_gset_unbacked_var(b->gs, i) == sym) return (long)(n + i);
    return -1;
}

/* r[dst] := c * m */
static void emit_scaled(builder *b, const fmpz_t c, const sy_expr *m, unsigned dst)
{
    cexpr(b, m, dst);
    if (fmpz_is_one(c)) return;
    if (fmpz_equal_si(c, -1)) {
        emit_abc(b, SY_OP_NEG, dst, dst, 0);
        return;
    }
    emit_loadk(b, dst + 1, c);
    emit_abc(b, SY_OP_MUL, dst, dst, dst + 1);
}

/* r[acc] += c * m: a negative c whose magnitude fits is subtracted. */
static void emit_acc(builder *b, const fmpz_t c, const sy_expr *m, unsigned acc)
{
    fmpz_t a;
    fmpz_init(a);
    fmpz_neg(a, c);
    if (fmpz_sgn(c) < 0 && fits64(a)) {
        emit_scaled(b, a, m, acc + 1);
        emit_abc(b, SY_OP_SUB, acc, acc, acc + 1);
    } else {
        emit_scaled(b, c, m, acc + 1);
        emit_abc(b, SY_OP_ADD, acc, acc, acc + 1);
    }
    fmpz_clear(a);
}

/* r[acc] += v for a constant v */
static void emit_add_const(builder *b, const fmpz_t v, unsigned acc)
{
    if (fmpz_is_zero(v)) return;
    fmpz_t a;
    fmpz_init(a);
    fmpz_neg(a, v);
    if (!fits64(v) && fits64(a)) {
        emit_loadk(b, acc + 1, a);
        emit_abc(b, SY_OP_SUB, acc, acc, acc + 1);
    } else {
        emit_loadk(b, acc + 1, v); /* a constant beyond int64 fails closed at run time */
        emit_abc(b, SY_OP_ADD, acc, acc, acc + 1);
    }
    fmpz_clear(a);
}

/* A sum in integer context: the terms in order, then the constant. */
static void cadd(builder *b, const sy_expr *e, unsigned dst)
{
    size_t n = sy_expr_nargs(e);
    fmpz_t c, c0;
    fmpz_init(c);
    fmpz_init(c0);
    if (int_value(b, sy_expr_add_const(b->ctx, e), c0)) {
        if (n == 0) emit_loadk(b, dst, c0);
        for (size_t i = 0; i < n && !b->st; i++) {
            if (!coeff(b, e, i, c)) break;
            if (i == 0) emit_scaled(b, c, sy_expr_arg(e, i), dst);
            else emit_acc(b, c, sy_expr_arg(e, i), dst);
        }
        if (n) emit_add_const(b, c0, dst);
    }
    fmpz_clear(c);
    fmpz_clear(c0);
}

/* r[dst] := the terms of sum e with coefficients of sign sgn, scaled by
 * their magnitudes, plus the non-negative constant add (may be 0). Returns
 * 0 when there is no such term (nothing emitted). */
static int emit_side(builder *b, const sy_expr *e, int sgn, const fmpz_t add, unsigned dst)
{
    size_t n = sy_expr_nargs(e);
    int any = 0;
    fmpz_t c;
    fmpz_init(c);
    for (size_t i = 0; i < n && !b->st; i++) {
        if (!coeff(b, e, i, c) || fmpz_sgn(c) != sgn) continue;
        fmpz_abs(c, c);
        if (!any) emit_scaled(b, c, sy_expr_arg(e, i), dst);
        else emit_acc(b, c, sy_expr_arg(e, i), dst);
        any = 1;
    }
    if (any) emit_add_const(b, add, dst);
    fmpz_clear(c);
    return any;
}

/* r[dst] := truth of `x op k` (x_left) or `k op x` where x, an int64 value
 * the VM just computed without fault, is in r[dst] and the constant k does
 * not fit int64: the answer is known. x is still computed: the truth relies
 * on x being exact. */
static void emit_known(builder *b, sy_expr_kind kind, int x_left, const fmpz_t k, unsigned dst)
{
    int above = fmpz_sgn(k) > 0; /* k > INT64_MAX, else k < INT64_MIN */
    int t;
    if (kind == SY_EXPR_EQ) t = 0;
    else if (kind == SY_EXPR_NE) t = 1;
    else t = x_left ? above : !above; /* x <= k, or k <= x */
    emit_loadk_si(b, dst, t);
}

static unsigned rel_op(sy_expr_kind kind)
{
    return kind == SY_EXPR_EQ ? SY_OP_EQ : kind == SY_EXPR_NE ? SY_OP_NE : SY_OP_LE;
}

/* A relation d == 0, d != 0, d <= 0 with d = c0 + P - N (P: the terms with
 * positive coefficients, N: the magnitudes of the negative ones) is compiled
 * as the comparison `P + c0 op N`, with the constant moved to the side where
 * it is added as a non-negative number (or alone): no subtraction that the
 * exact relation does not need, so no spurious overflow. */
static void crel(builder *b, const sy_expr *e, unsigned dst)
{
    sy_expr_kind kind = sy_expr_kind_of(e);
    const sy_expr *d = sy_expr_arg(e, 0);
    unsigned op = rel_op(kind);
    if (sy_expr_kind_of(d) != SY_EXPR_ADD) {
        cexpr(b, d, dst);
        emit_loadk_si(b, dst + 1, 0);
        emit_abc(b, op, dst, dst, dst + 1);
        return;
    }
    fmpz_t c0, zero, absc0, negc0, c;
    fmpz_init(c0);
    fmpz_init(zero);
    fmpz_init(absc0);
    fmpz_init(negc0);
    fmpz_init(c);
    if (!int_value(b, sy_expr_add_const(b->ctx, d), c0)) goto done;
    fmpz_abs(absc0, c0);
    fmpz_neg(negc0, c0);
    int npos = 0, nneg = 0;
    for (size_t i = 0; i < sy_expr_nargs(d); i++) {
        if (!coeff(b, d, i, c)) goto done;
        npos += fmpz_sgn(c) > 0;
        nneg += fmpz_sgn(c) < 0;
    }
    if (npos && nneg) {
        if (fits64(absc0)) {
            emit_side(b, d, 1, fmpz_sgn(c0) > 0 ? c0 : zero, dst);
            emit_side(b, d, -1, fmpz_sgn(c0) < 0 ? absc0 : zero, dst + 1);
            emit_abc(b, op, dst, dst, dst + 1);
        } else if (fits64(negc0)) {
            /* c0 = 2^63: -c0 = INT64_MIN fits, so P - N vs -c0 is not known: compare. emit_known
             * read INT64_MIN as below int64 (a - b != 2^63 at a = INT64_MAX, b = -1 accepted, the
             * exact relation is false; attack38e) */
            emit_side(b, d, 1, zero, dst);
            emit_side(b, d, -1, zero, dst + 1);
            emit_abc(b, SY_OP_SUB, dst, dst, dst + 1);
            emit_loadk(b, dst + 1, negc0);
            emit_abc(b, op, dst, dst, dst + 1);
        } else { /* |c0| >= 2^63 and -c0 past int64: P - N (exact or fail closed) vs -c0 is known */
            emit_side(b, d, 1, zero, dst);
            emit_side(b, d, -1, zero, dst + 1);
            emit_abc(b, SY_OP_SUB, dst, dst, dst + 1);
            emit_known(b, kind, 1, negc0, dst);
        }
    } else if (npos) { /* P op -c0 */
        emit_side(b, d, 1, zero, dst);
        if (fits64(negc0)) {
            emit_loadk(b, dst + 1, negc0);
            emit_abc(b, op, dst, dst, dst + 1);
        } else {
            emit_known(b, kind, 1, negc0, dst);
        }
    } else if (nneg) { /* c0 op N */
        if (fits64(c0)) {
            emit_loadk(b, dst, c0);
            emit_side(b, d, -1, zero, dst + 1);
            emit_abc(b, op, dst, dst, dst + 1);
        } else {
            emit_side(b, d, -1, zero, dst);
            emit_known(b, kind, 0, c0, dst);
        }
    } else { /* a constant (not canonical, handled anyway) */
        int s = fmpz_sgn(c0);
        emit_loadk_si(b, dst, kind == SY_EXPR_EQ ? s == 0 : kind == SY_EXPR_NE ? s != 0 : s <= 0);
    }
done:
    fmpz_clear(c0);
    fmpz_clear(zero);
    fmpz_clear(absc0);
    fmpz_clear(negc0);
    fmpz_clear(c);
}

/* And / Or as a value. The reference evaluates every operand (a division by
 * zero anywhere fails the guard), so the VM may skip the remaining operands
 * only when none of them can fail exact evaluation (safe_expr). */
static void cconn(builder *b, const sy_expr *e, unsigned dst)
{
    int is_and = sy_expr_kind_of(e) == SY_EXPR_AND;
    size_t n = sy_expr_nargs(e), first_skippable = n;
    uint64_t bits;
    while (first_skippable > 1 && safe_expr(b, sy_expr_arg(e, first_skippable - 1), &bits, 0)) first_skippable--;
    size_t mark = b->npend;
    cexpr(b, sy_expr_arg(e, 0), dst);
    for (size_t i = 1; i < n && !b->st; i++) {
        if (i >= first_skippable) emit_jump(b, is_and ? SY_OP_JMPZ : SY_OP_JMPNZ, dst);
        cexpr(b, sy_expr_arg(e, i), dst + 1);
        emit_abc(b, is_and ? SY_OP_AND : SY_OP_OR, dst, dst, dst + 1);
    }
    patch_jumps(b, mark);
}

/* The code of e itself (its shared children are MOVEs from their registers). */
static void cexpr_node(builder *b, const sy_expr *e, unsigned dst)
{
    if (b->st || !use_reg(b, dst)) return;
    if (++b->depth > MAX_DEPTH) {
        bfail(b, SY_EUNSUPPORTED, "expression nested deeper than %u", MAX_DEPTH);
        b->depth--;
        return;
    }
    sy_expr_kind kind = sy_expr_kind_of(e);
    size_t n = sy_expr_nargs(e);
    switch (kind) {
    case SY_EXPR_INT: {
        fmpz_t v;
        fmpz_init(v);
        if (int_value(b, e, v)) emit_loadk(b, dst, v);
        fmpz_clear(v);
        break;
    }
    case SY_EXPR_SYM: {
        long s = slot_of(b, e);
        if (s < 0) {
            bfail(b, SY_EINVAL, "symbol %s is not a source of the guard set", sy_expr_sym_name(e));
            break;
        }
        emit_abx(b, SY_OP_LOADSLOT, dst, (uint32_t)s);
        break;
    }
    case SY_EXPR_TRUE: emit_loadk_si(b, dst, 1); break;
    case SY_EXPR_FALSE: emit_loadk_si(b, dst, 0); break;
    case SY_EXPR_ADD: cadd(b, e, dst); break;
    case SY_EXPR_MUL:
    case SY_EXPR_MIN:
    case SY_EXPR_MAX: {
        unsigned op = kind == SY_EXPR_MUL ? SY_OP_MUL : kind == SY_EXPR_MIN ? SY_OP_MIN : SY_OP_MAX;
        cexpr(b, sy_expr_arg(e, 0), dst);
        for (size_t i = 1; i < n; i++) {
            cexpr(b, sy_expr_arg(e, i), dst + 1);
            emit_abc(b, op, dst, dst, dst + 1);
        }
        break;
    }
    case SY_EXPR_POW: {
        /* b ** k for k > 255: the same parity >= 64 gives the same value for
         * |b| <= 1 and overflows for |b| >= 2, like b ** k itself */
        uint64_t k = sy_expr_pow_exp(e);
        if (k > 255) k = 254 + (k & 1u);
        cexpr(b, sy_expr_arg(e, 0), dst);
        emit_abc(b, SY_OP_POW, dst, dst, (unsigned)k);
        break;
    }
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_MOD:
    case SY_EXPR_CEILDIV: {
        unsigned op = kind == SY_EXPR_FLOORDIV ? SY_OP_FLOORDIV : kind == SY_EXPR_MOD ? SY_OP_MOD : SY_OP_CEILDIV;
        cexpr(b, sy_expr_arg(e, 0), dst);
        cexpr(b, sy_expr_arg(e, 1), dst + 1);
        emit_abc(b, op, dst, dst, dst + 1);
        break;
    }
    case SY_EXPR_EQ:
    case SY_EXPR_NE:
    case SY_EXPR_LE: crel(b, e, dst); break;
    case SY_EXPR_AND:
    case SY_EXPR_OR: cconn(b, e, dst); break;
    default: bfail(b, SY_EINVAL, "unknown expression kind %d", (int)kind); break;
    }
    b->depth--;
}

/* Compute shared node e (its shared children are computed already) into
 * the lowest free register. */
static void materialize(builder *b, const sy_expr *e)
{
    unsigned top = b->nlive, r = 0;
    int mode = b->mode;
    b->mode = EMIT;
    cexpr_node(b, e, top);
    while (r < top && b->live[r]) r++;
    if (r < top) emit_abc(b, SY_OP_MOVE, r, top, 0);
    b->mode = mode;
    cse *c = cse_find(b, e, 0);
    if (b->st) return;
    if (!c) {
        bfail(b, SY_ERROR, "internal: a shared subterm has no entry");
        return;
    }
    c->reg = (int)r;
    b->live[r] = e;
    if (r + 1 > b->nlive) b->nlive = r + 1;
}

/* r[dst] := the value of e, by walk (see "Shared subterms"). */
static void cexpr(builder *b, const sy_expr *e, unsigned dst)
{
    if (b->st) return;
    if (is_leaf(sy_expr_kind_of(e)) || b->noshare) {
        if (b->mode == EMIT) cexpr_node(b, e, dst);
        return;
    }
    cse *c = cse_find(b, e, b->mode == COUNT);
    if (b->mode == COUNT) {
        if (!c) return;
        c->left++;
        if (c->uses++ == 0) cexpr_node(b, e, dst); /* the children once */
        return;
    }
    if (!c) {
        bfail(b, SY_ERROR, "internal: a subterm the counting pass did not see");
        return;
    }
    int shared = c->uses >= 2, reg = c->reg;
    if (b->mode == HOIST) { /* children first, then e if shared and not computed yet */
        if (shared && reg >= 0) return;
        if (shared && reg == -2) {
            bfail(b, SY_ERROR, "internal: a shared subterm read after its last reader");
            return;
        }
        cexpr_node(b, e, dst);
        if (shared) materialize(b, e);
        return;
    }
    if (!shared) {
        cexpr_node(b, e, dst);
        return;
    }
    if (reg < 0) {
        bfail(b, SY_ERROR, "internal: a shared subterm not computed before its conjunct");
        return;
    }
    if (use_reg(b, dst) && (unsigned)reg != dst) emit_abc(b, SY_OP_MOVE, dst, (unsigned)reg, 0);
    if (--c->left == 0) { /* its last reader: the register is free again */
        c->reg = -2;
        b->live[reg] = NULL;
        while (b->nlive && !b->live[b->nlive - 1]) b->nlive--;
    }
}

/* One conjunct, ending in its CHECK. */
static void cconjunct(builder *b, const sy_expr *e, uint32_t g)
{
    if (b->mode == COUNT) {
        cexpr(b, e, 0);
        return;
    }
    if (!b->noshare) {
        b->mode = HOIST;
        cexpr(b, e, b->nlive);
        b->mode = EMIT;
    }
    unsigned base = b->nlive;
    cexpr(b, e, base);
    emit_abx(b, SY_OP_CHECK, base, g);
}

/* A guard: rejecting on a false conjunct or on a fault is the same answer
 * for the same guard, so a top-level And becomes one CHECK per conjunct. */
static void cguard(builder *b, const sy_expr *e, uint32_t g)
{
    switch (sy_expr_kind_of(e)) {
    case SY_EXPR_TRUE: return;
    case SY_EXPR_AND:
        for (size_t i = 0; i < sy_expr_nargs(e) && !b->st; i++) cguard(b, sy_expr_arg(e, i), g);
        return;
    default: cconjunct(b, e, g); return;
    }
}

/* ------------------------------------------------------------------ the program */

static sy_status set_const_fmpz(sy_bc_program *p, uint32_t i, const fmpz_t v)
{
    size_t nbytes = (fmpz_bits(v) + 7) / 8;
    if (nbytes > UINT32_MAX) return sy_fail_st(p->ctx, SY_EUNSUPPORTED, "bc_compile: constant too large");
    unsigned char *tmp = sy_alloc(p->ctx, nbytes ? nbytes : 1);
    if (!tmp) return sy_fail_st(p->ctx, SY_ENOMEM, "out of memory");
    fmpz_t t;
    fmpz_init(t);
    fmpz_abs(t, v);
    for (size_t j = 0; j < nbytes; j++) {
        tmp[j] = (unsigned char)fmpz_fdiv_ui(t, 256);
        fmpz_fdiv_q_2exp(t, t, 8);
    }
    fmpz_clear(t);
    sy_status st = sy_bc_set_const(p, i, fmpz_sgn(v) < 0, tmp, (uint32_t)nbytes);
    sy_dealloc(p->ctx, tmp, nbytes ? nbytes : 1);
    return st;
}

static char *pstrdup(sy_bc_program *p, const char *s, sy_status *st)
{
    if (!s) s = "";
    size_t n = strlen(s);
    if (n > UINT32_MAX) {
        *st = sy_fail_st(p->ctx, SY_EUNSUPPORTED, "bc_compile: string too long");
        return NULL;
    }
    char *c = sy_bc_palloc(p, n + 1);
    if (!c) {
        *st = SY_ENOMEM;
        return NULL;
    }
    memcpy(c, s, n + 1);
    return c;
}

static sy_status finish(builder *b, uint32_t flags, sy_bc_program **out)
{
    const sy_gset *gs = b->gs;
    sy_bc_program *p = sy_bc_program_new(b->ctx);
    if (!p) return SY_ENOMEM;
    p->flags = flags;
    p->nregs = b->nregs;
    p->nconsts = (uint32_t)b->nk;
    p->nslots = (uint32_t)sy_gset_nsources(gs);
    p->nguards = (uint32_t)sy_gset_size(gs);
    p->ninstr = (uint32_t)b->ncode;
    p->minor = b->runtime ? 1u : 0u;
    p->nunbacked = b->runtime ? (uint32_t)sy_gset_nunbacked(gs) : 0u;
    sy_status st = sy_bc_alloc_tables(p);
    if (!st && p->minor) {
        p->unbacked = sy_bc_palloc(p, (p->nunbacked ? p->nunbacked : 1) * sizeof *p->unbacked);
        if (!p->unbacked) st = SY_ENOMEM;
        for (uint32_t i = 0; i < p->nunbacked && !st; i++) p->unbacked[i] = pstrdup(p, sy_gset_unbacked_source(gs, i), &st);
    }
    if (!st) memcpy(p->code, b->code, b->ncode * sizeof *b->code);
    for (uint32_t i = 0; i < p->nconsts && !st; i++) st = set_const_fmpz(p, i, &b->k[i]);
    for (uint32_t i = 0; i < p->nslots && !st; i++) p->slots[i] = pstrdup(p, sy_gset_source(gs, i), &st);
    for (uint32_t i = 0; i < p->nguards && !st; i++) {
        const sy_gset_guard *g = sy_gset_at(gs, i);
        p->gkind[i] = (unsigned char)g->kind;
        p->guards[i] = pstrdup(p, g->text, &st);
    }
    sy_bc_load_err err;
    sy_status vs = st ? SY_OK : sy_bc_verify(p, &err);
    if (vs == SY_ENOMEM) st = sy_fail_st(b->ctx, SY_ENOMEM, "out of memory");
    else if (vs)
        st = sy_fail_st(b->ctx, SY_EVERIFY, "bc_compile: internal error: the program fails verification: %s", err.msg);
    if (st) {
        sy_bc_free(p);
        return st;
    }
    *out = p;
    return SY_OK;
}

/* Every guard in order, then (format x.1) the runtime asserts after
 * RTCHECKS, for sy_bc_check_runtime. */
static void compile_guards(builder *b, uint32_t *flags)
{
    const sy_gset *gs = b->gs;
    for (size_t i = 0; i < sy_gset_size(gs) && !b->st; i++) {
        const sy_gset_guard *g = sy_gset_at(gs, i);
        b->guard = i;
        if (g->kind == SY_GK_RUNTIME_ASSERT) {
            *flags |= SY_BC_FLAG_UNCHECKED_ASSERTS;
            continue;
        }
        cguard(b, g->expr, (uint32_t)i);
    }
    if ((*flags & SY_BC_FLAG_UNCHECKED_ASSERTS) || sy_gset_nunbacked(gs)) {
        if (!b->st && sy_gset_nsources(gs) + sy_gset_nunbacked(gs) > SY_BC_MAX_INDEX)
            bfail(b, SY_EUNSUPPORTED, "more than %u sources and unbacked values", SY_BC_MAX_INDEX);
        emit_abc(b, SY_OP_RTCHECKS, 0, 0, 0);
        b->runtime = 1;
        for (size_t i = 0; i < sy_gset_size(gs) && !b->st; i++) {
            const sy_gset_guard *g = sy_gset_at(gs, i);
            b->guard = i;
            if (g->kind == SY_GK_RUNTIME_ASSERT) cguard(b, g->expr, (uint32_t)i);
        }
    }
}

static sy_status compile_with(const sy_gset *gs, int noshare, int *regs_out, sy_bc_program **out)
{
    sy_ctx *ctx = sy_gset_ctx(gs);
    builder b;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.gs = gs;
    b.max_bits = sy_ctx_opts(ctx)->max_const_bits;
    b.noshare = noshare;
    uint32_t flags = 0;
    if (!noshare) {
        b.mode = COUNT; /* the counting pass, then the code */
        compile_guards(&b, &flags);
    }
    b.mode = EMIT;
    b.runtime = 0;
    compile_guards(&b, &flags);
    emit_abc(&b, SY_OP_RETURN, 0, 0, 0);
    sy_status st = b.st ? b.st : finish(&b, flags, out);
    *regs_out = b.regs_out;
    if (b.code) sy_dealloc(ctx, b.code, b.capcode * sizeof *b.code);
    if (b.pend) sy_dealloc(ctx, b.pend, b.cappend * sizeof *b.pend);
    for (size_t i = 0; i < b.nk; i++) fmpz_clear(&b.k[i]);
    if (b.k) sy_dealloc(ctx, b.k, b.capk * sizeof *b.k);
    sy_etab_clear(ctx, &b.nodes, sizeof(cse));
    return st;
}

sy_status sy_bc_compile(const sy_gset *gs, sy_bc_program **out)
{
    if (out) *out = NULL;
    if (!gs) return SY_EINVAL;
    sy_ctx *ctx = sy_gset_ctx(gs);
    if (!out) return sy_fail_st(ctx, SY_EINVAL, "bc_compile: NULL argument");
    if (sy_ctx_opts(ctx)->max_const_bits < 128)
        return sy_fail_st(ctx, SY_EUNSUPPORTED,
                          "bc_compile: the context's max_const_bits (%llu) is below 128: the reference checker would "
                          "reject values the VM computes exactly",
                          (unsigned long long)sy_ctx_opts(ctx)->max_const_bits);
    if (sy_gset_nsources(gs) > SY_BC_MAX_INDEX || sy_gset_size(gs) > SY_BC_MAX_INDEX)
        return sy_fail_st(ctx, SY_EUNSUPPORTED, "bc_compile: more than %u sources or guards", SY_BC_MAX_INDEX);
    int regs_out = 0;
    sy_status st = compile_with(gs, 0, &regs_out, out);
    /* more than 256 shared values live at once (each read long after it is
     * computed): compile every use instead, as format 1 did; that can only
     * be larger, and stops at the format's limits */
    if (st == SY_EUNSUPPORTED && regs_out) st = compile_with(gs, 1, &regs_out, out);
    return st;
}
