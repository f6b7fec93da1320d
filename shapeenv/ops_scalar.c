/* Values of sizes: size, dim, getattr, getitem, Python int arithmetic and
 * comparisons on symbolic ints, and/or/not, _assert, guard_bool, guard_int.
 * The arithmetic ops are polymorphic like Python's operators: with a tensor
 * operand they are elementwise tensor ops. Python semantics: // floors, %
 * takes the divisor's sign (symshape FloorDiv / Mod). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "algebra/internal.h"
#include "shapeenv/env_private.h"
#include "shapeenv/rules.h"


static const sy_value *A(opcall *c, size_t i) { return i < c->nargs ? &c->args[i] : NULL; }

static bool is_num(const sy_value *v) { return v && (v->kind == SY_V_INT || v->kind == SY_V_BOOL); }

static const sy_expr *as_int_expr(opcall *c, const sy_value *v)
{
    if (!v) return NULL;
    if (v->kind == SY_V_INT) return v->u.i;
    if (v->kind != SY_V_BOOL) return NULL; /* a list, None, dtype, str, ...: u.i is not the member in use */
    /* bool as int: Piecewise-free form for constants only */
    if (sy_expr_kind_of(v->u.i) == SY_EXPR_TRUE) return KI(c, 1);
    if (sy_expr_kind_of(v->u.i) == SY_EXPR_FALSE) return KI(c, 0);
    return NULL;
}

static sy_status set_int(opcall *c, const sy_expr *e)
{
    if (!e) return sy_ctx_last_error(c->env->ctx);
    *c->out = sy_value_int(e);
    return SY_OK;
}
static sy_status set_bool(opcall *c, const sy_expr *e)
{
    if (!e) return sy_ctx_last_error(c->env->ctx);
    *c->out = sy_value_bool(e);
    return SY_OK;
}

static sy_status set_quot(opcall *c, const sy_expr *num, const sy_expr *den)
{
    if (!num || !den) return sy_ctx_last_error(c->env->ctx);
    *c->out = sy_value_none();
    c->out->kind = SY_V_QUOT;
    c->out->u.quot.num = num;
    c->out->u.quot.den = den;
    return SY_OK;
}

/* Python arithmetic of a symbolic int x and a float f (x op f, or f op x when
 * swapped): x * f is the double product (SY_V_SCALED, rounded exactly by its
 * consumer); x + f, x - f, x / f and f / x are one correctly rounded double
 * operation on float(x), exact for |x| <= 2^53, that is the correctly rounded
 * exact rational: a true quotient (SY_V_QUOT) with f = m / 2^E written out. */
static sy_status float_sym(opcall *c, const char *op, const sy_expr *x, double f, int swapped)
{
    sy_ctx *ctx = c->env->ctx;
    if (!isfinite(f)) return op_err(c, SY_EUNSUPPORTED, "arithmetic of a symbolic int with %g is not supported", f);
    if (!strcmp(op, "mul") || !strcmp(op, "imul")) {
        *c->out = sy_value_none();
        c->out->kind = SY_V_SCALED;
        c->out->u.scaled.x = x;
        c->out->u.scaled.s = f;
        return SY_OK;
    }
    /* f = m * 2^e exactly, m an integer of at most 53 bits */
    int e = 0;
    double fr = f == 0 ? 0 : frexp(f, &e);
    int64_t m = (int64_t)ldexp(fr, 53);
    e -= 53;
    while (m && !(m & 1)) m /= 2, e++;
    if (!m) e = 0;
    if (e < -62 || e > 62) return op_err(c, SY_EUNSUPPORTED, "arithmetic of a symbolic int with %g is not supported", f);
    /* f = M / D: integers */
    const sy_expr *M = e >= 0 ? sy_expr_mul_si(ctx, KI(c, m), (int64_t)1 << e) : KI(c, m);
    const sy_expr *D = KI(c, e >= 0 ? 1 : (int64_t)1 << -e);
    if (!M || !D) return sy_ctx_last_error(ctx);
    const sy_expr *xd = sy_expr_mul(ctx, x, D);
    if (!strcmp(op, "add") || !strcmp(op, "iadd")) return set_quot(c, sy_expr_add(ctx, xd, M), D);
    if (!strcmp(op, "sub") || !strcmp(op, "isub")) return set_quot(c, swapped ? sy_expr_sub(ctx, M, xd) : sy_expr_sub(ctx, xd, M), D);
    if (!strcmp(op, "truediv") || !strcmp(op, "div")) {
        if (!swapped) { /* x / f = x*D / M */
            if (!m) return op_err(c, SY_EINVAL, "ZeroDivisionError: float division by zero");
            return set_quot(c, xd, M);
        }
        sy_status st = op_require(c, sy_expr_ne(ctx, x, KI(c, 0)), "ZeroDivisionError: float division by zero");
        if (st) return st;
        return set_quot(c, M, xd); /* f / x = M / (x*D) */
    }
    return op_err(c, SY_EUNSUPPORTED, "'%s' of a symbolic int and a float is not supported", op);
}

/* Python arithmetic of a true quotient q = num / den of sizes (SY_V_QUOT) and a float or int
 * constant f (q op f, or f op q when swapped; m2.py capacity_router: math.ceil(T * 2 / 4 * 1.25)).
 * When den is a constant power of two 2^k and |num| <= 2^52, Python's double q is num / 2^k
 * exactly, and f = m * 2^e is exact too, so q * f, q / f, f / q, q + f, q - f, f - q are each one
 * correctly rounded double operation of exact operands: the correctly rounded exact rational,
 * which is what a QUOT means (its rounding consumers are exact, op_py_round). Any other den
 * (T / 3: q is already rounded) stays SY_EUNSUPPORTED. *done = 0: not this case. */
static sy_status quot_float(opcall *c, const sy_value *q, const sy_value *fv, int swapped, int *done)
{
    sy_ctx *ctx = c->env->ctx;
    const char *op = c->op;
    *done = 0;
    int64_t dv, iv;
    double f;
    if (fv->kind == SY_V_FLOAT) f = fv->u.f;
    else if (fv->kind == SY_V_INT && !sy_expr_get_si(fv->u.i, &iv) && iv > -((int64_t)1 << 53) && iv < ((int64_t)1 << 53)) f = (double)iv;
    else return SY_OK;
    if (sy_expr_get_si(q->u.quot.den, &dv) || dv <= 0 || (dv & (dv - 1)) || !isfinite(f)) return SY_OK;
    int mul = !strcmp(op, "mul") || !strcmp(op, "imul"), div = !strcmp(op, "truediv") || !strcmp(op, "div");
    int add = !strcmp(op, "add") || !strcmp(op, "iadd"), sub = !strcmp(op, "sub") || !strcmp(op, "isub");
    if (!mul && !div && !add && !sub) return SY_OK;
    /* f = P / Q: P = m * 2^max(e, 0), Q = 2^max(-e, 0) */
    int e = 0, k = 0;
    double fr = f == 0 ? 0 : frexp(f, &e);
    int64_t m = (int64_t)ldexp(fr, 53);
    e -= 53;
    while (m && !(m & 1)) m /= 2, e++;
    if (!m) e = 0;
    while (((int64_t)1 << k) < dv) k++;
    /* a short binary value (1.25, 0.75, 2.0, 0.125; not 0.1): P and Q within 2^20, so that the
     * rounding consumers' bound (numerator and denominator within 2^52) keeps the sizes */
    if (e > 20 || e < -20 || k > 30) return SY_OK;
    int64_t pv = e >= 0 ? m * ((int64_t)1 << e) : m;
    if (pv > ((int64_t)1 << 20) || pv < -((int64_t)1 << 20)) return SY_OK;
    const sy_expr *num = q->u.quot.num, *den = q->u.quot.den;
    const sy_expr *P = KI(c, pv), *Q = KI(c, e >= 0 ? 1 : (int64_t)1 << -e);
    const sy_expr *lim = KI(c, (int64_t)1 << 52);
    sy_status st = op_require(c, sy_expr_and(ctx, sy_expr_le(ctx, num, lim), sy_expr_ge(ctx, num, sy_expr_neg(ctx, lim))),
                              "%s / %s: a true division of sizes is exact in a double only while its numerator stays within +-2^52",
                              sy_env_show(c->env, num), sy_env_show(c->env, den));
    if (st) return st;
    *done = 1;
    const sy_expr *nQ = sy_expr_mul(ctx, num, Q), *Pd = sy_expr_mul(ctx, P, den), *dQ = sy_expr_mul(ctx, den, Q);
    if (mul) return set_quot(c, sy_expr_mul(ctx, num, P), dQ);
    if (add) return set_quot(c, sy_expr_add(ctx, nQ, Pd), dQ);
    if (sub) return set_quot(c, swapped ? sy_expr_sub(ctx, Pd, nQ) : sy_expr_sub(ctx, nQ, Pd), dQ);
    if (!swapped) { /* q / f = num*Q / (den*P) */
        if (!m) return op_err(c, SY_EINVAL, "ZeroDivisionError: float division by zero");
        return set_quot(c, nQ, sy_expr_mul(ctx, den, P));
    }
    if ((st = op_require(c, sy_expr_ne(ctx, num, KI(c, 0)), "ZeroDivisionError: float division by zero"))) return st;
    return set_quot(c, Pd, nQ); /* f / q = P*den / (Q*num) */
}

static sy_status binary(opcall *c)
{
    const sy_value *a = A(c, 0), *b = A(c, 1);
    if (!a || !b) return op_err(c, SY_EINVAL, "expected two operands");
    if (!strcmp(c->op, "is_") || !strcmp(c->op, "is_not")) { /* identity: only None / same object */
        int same = a->kind == b->kind && (a->kind == SY_V_NONE || (a->kind == SY_V_TENSOR && a->u.t == b->u.t));
        return set_bool(c, sy_expr_bool(c->env->ctx, !strcmp(c->op, "is_") ? same : !same));
    }
    if (a->kind == SY_V_TENSOR || b->kind == SY_V_TENSOR) {
        /* tensor.add(other, alpha=...) and friends */
        return sy_elementwise_binary(c, a, b);
    }
    sy_ctx *ctx = c->env->ctx;
    const char *op = c->op;
    if (a->kind == SY_V_SCALED || b->kind == SY_V_SCALED)
        return op_err(c, SY_EUNSUPPORTED, "arithmetic on a size times a float (x * 0.7) is not supported; only int(), "
                      "math.floor, math.ceil and math.trunc of it are (write int(x * s) first)");
    if (a->kind == SY_V_QUOT && b->kind != SY_V_QUOT) {
        int done;
        sy_status st = quot_float(c, a, b, 0, &done);
        if (st || done) return st;
    } else if (b->kind == SY_V_QUOT && a->kind != SY_V_QUOT) {
        int done;
        sy_status st = quot_float(c, b, a, 1, &done);
        if (st || done) return st;
    }
    if (a->kind == SY_V_QUOT || b->kind == SY_V_QUOT)
        return op_err(c, SY_EUNSUPPORTED, "arithmetic on a true quotient of sizes (x / y) is not supported (but with a "
                      "float or int constant when y is a constant power of two); only int(), "
                      "math.floor, math.ceil and math.trunc of it are");
    if (a->kind == SY_V_FLOAT || b->kind == SY_V_FLOAT) {
        if ((a->kind != SY_V_FLOAT && !is_num(a)) || (b->kind != SY_V_FLOAT && !is_num(b)))
            return op_err(c, SY_EINVAL, "unsupported operand types: a float with a non-number");
        double x = a->kind == SY_V_FLOAT ? a->u.f : 0, y = b->kind == SY_V_FLOAT ? b->u.f : 0;
        int64_t iv;
        const sy_expr *sym = NULL;
        if (a->kind != SY_V_FLOAT && (sym = as_int_expr(c, a)) && sy_expr_get_si(sym, &iv)) return float_sym(c, op, sym, y, 0);
        if (b->kind != SY_V_FLOAT && (sym = as_int_expr(c, b)) && sy_expr_get_si(sym, &iv)) return float_sym(c, op, sym, x, 1);
        if (a->kind != SY_V_FLOAT) {
            const sy_expr *e = as_int_expr(c, a);
            if (!e || sy_expr_get_si(e, &iv)) return op_err(c, SY_EINVAL, "float arithmetic on a symbolic int is not supported");
            x = (double)iv;
        }
        if (b->kind != SY_V_FLOAT) {
            const sy_expr *e = as_int_expr(c, b);
            if (!e || sy_expr_get_si(e, &iv)) return op_err(c, SY_EINVAL, "float arithmetic on a symbolic int is not supported");
            y = (double)iv;
        }
        if (!strcmp(op, "add") || !strcmp(op, "iadd")) *c->out = sy_value_float(x + y);
        else if (!strcmp(op, "sub") || !strcmp(op, "isub")) *c->out = sy_value_float(x - y);
        else if (!strcmp(op, "mul") || !strcmp(op, "imul")) *c->out = sy_value_float(x * y);
        else if (!strcmp(op, "truediv") || !strcmp(op, "div")) *c->out = sy_value_float(x / y);
        else if (!strcmp(op, "pow")) { /* float.__pow__ (Objects/floatobject.c float_pow): libm pow */
            if (x == 0 && y < 0) return op_err(c, SY_EINVAL, "ZeroDivisionError: 0.0 cannot be raised to a negative power");
            if (x < 0 && y != floor(y)) return op_err(c, SY_EUNSUPPORTED, "a negative number to a fractional power is complex");
            *c->out = sy_value_float(pow(x, y));
        } else return op_err(c, SY_EUNSUPPORTED, "unsupported float operation '%s'", op);
        return SY_OK;
    }
    if (a->kind == SY_V_DTYPE || b->kind == SY_V_DTYPE || a->kind == SY_V_STR || b->kind == SY_V_STR ||
        a->kind == SY_V_NONE || b->kind == SY_V_NONE) {
        int equal;
        if ((a->kind == SY_V_DTYPE && b->kind == SY_V_STR) || (a->kind == SY_V_STR && b->kind == SY_V_DTYPE)) {
            /* the graph format spells a dtype literal as its torch name
             * ("bool", "torch.bool", "float", ...; docs/graph-format.md) */
            const sy_value *dv = a->kind == SY_V_DTYPE ? a : b, *sv = a->kind == SY_V_STR ? a : b;
            sy_dtype d;
            if (sy_dtype_parse(sv->u.s, &d))
                return op_err(c, SY_EINVAL, "'%s' compared with a dtype names no dtype (torch names such as bool, float32, "
                              "torch.int64, long)", sv->u.s);
            equal = dv->u.dtype == d;
        } else if (a->kind != b->kind) equal = 0;
        else if (a->kind == SY_V_DTYPE) equal = a->u.dtype == b->u.dtype;
        else if (a->kind == SY_V_STR) equal = !strcmp(a->u.s, b->u.s);
        else equal = 1;
        if (!strcmp(op, "eq") || !strcmp(op, "is_")) return set_bool(c, sy_expr_bool(ctx, equal));
        if (!strcmp(op, "ne") || !strcmp(op, "is_not")) return set_bool(c, sy_expr_bool(ctx, !equal));
        return op_err(c, SY_EINVAL, "unsupported operands");
    }
    if (a->kind == SY_V_LIST && b->kind == SY_V_LIST && (!strcmp(op, "eq") || !strcmp(op, "ne") || !strcmp(op, "add"))) {
        if (!strcmp(op, "add")) { /* list concatenation (torch.Size + tuple) */
            size_t n = a->u.list.n + b->u.list.n;
            sy_value *items = sy_env_alloc(c->env, (n ? n : 1) * sizeof *items);
            if (!items) return sy_ctx_last_error(ctx);
            SY_COPY(items, a->u.list.items, a->u.list.n * sizeof *items);
            SY_COPY(items + a->u.list.n, b->u.list.items, b->u.list.n * sizeof *items);
            *c->out = sy_value_list(c->env, n, items);
            return SY_OK;
        }
        const sy_expr *acc = sy_expr_bool(ctx, a->u.list.n == b->u.list.n);
        for (size_t i = 0; i < a->u.list.n && i < b->u.list.n && acc; i++) {
            const sy_expr *x = is_num(&a->u.list.items[i]) ? as_int_expr(c, &a->u.list.items[i]) : NULL;
            const sy_expr *y = is_num(&b->u.list.items[i]) ? as_int_expr(c, &b->u.list.items[i]) : NULL;
            if (!x || !y) return op_err(c, SY_EINVAL, "list comparison of non-integers");
            acc = sy_expr_and(ctx, acc, sy_expr_eq(ctx, x, y));
        }
        return set_bool(c, !strcmp(op, "eq") ? acc : sy_expr_not(ctx, acc));
    }
    if (!is_num(a) || !is_num(b)) return op_err(c, SY_EINVAL, "operands must be integers or tensors");
    if ((!strcmp(op, "and_") || !strcmp(op, "or_")) && a->kind == SY_V_BOOL && b->kind == SY_V_BOOL)
        return set_bool(c, !strcmp(op, "and_") ? sy_expr_and(ctx, a->u.i, b->u.i) : sy_expr_or(ctx, a->u.i, b->u.i));
    const sy_expr *x = as_int_expr(c, a), *y = as_int_expr(c, b);
    if (!x || !y) return op_err(c, SY_EINVAL, "symbolic booleans cannot be used as integers");
    if (!strcmp(op, "add") || !strcmp(op, "iadd")) return set_int(c, sy_expr_add(ctx, x, y));
    if (!strcmp(op, "sub") || !strcmp(op, "isub")) return set_int(c, sy_expr_sub(ctx, x, y));
    if (!strcmp(op, "mul") || !strcmp(op, "imul")) return set_int(c, sy_expr_mul(ctx, x, y));
    if (!strcmp(op, "floordiv") || !strcmp(op, "ifloordiv") || !strcmp(op, "mod")) {
        /* a zero divisor is a ZeroDivisionError in Python */
        sy_status st = op_require(c, sy_expr_ne(ctx, y, KI(c, 0)), "integer division or modulo by zero");
        if (st) return st;
        return set_int(c, !strcmp(op, "mod") ? sy_expr_mod(ctx, x, y) : sy_expr_floordiv(ctx, x, y));
    }
    if (!strcmp(op, "pow")) {
        int64_t k;
        if (sy_expr_get_si(y, &k) || k < 0) return op_err(c, SY_EINVAL, "exponent must be a non-negative constant");
        return set_int(c, sy_expr_pow_ui(ctx, x, (uint64_t)k));
    }
    if (!strcmp(op, "eq")) return set_bool(c, sy_expr_eq(ctx, x, y));
    if (!strcmp(op, "ne")) return set_bool(c, sy_expr_ne(ctx, x, y));
    if (!strcmp(op, "lt")) return set_bool(c, sy_expr_lt(ctx, x, y));
    if (!strcmp(op, "le")) return set_bool(c, sy_expr_le(ctx, x, y));
    if (!strcmp(op, "gt")) return set_bool(c, sy_expr_gt(ctx, x, y));
    if (!strcmp(op, "ge")) return set_bool(c, sy_expr_ge(ctx, x, y));
    if (!strcmp(op, "truediv") || !strcmp(op, "div")) {
        int64_t p, q;
        if (!sy_expr_get_si(x, &p) && !sy_expr_get_si(y, &q)) {
            if (q == 0) return op_err(c, SY_EINVAL, "ZeroDivisionError: division by zero");
            *c->out = sy_value_float((double)p / (double)q);
            return SY_OK;
        }
        /* symbolic: the exact quotient, rounded only by its consumer */
        sy_status st = op_require(c, sy_expr_ne(ctx, y, KI(c, 0)), "ZeroDivisionError: division by zero");
        if (st) return st;
        *c->out = sy_value_none();
        c->out->kind = SY_V_QUOT;
        c->out->u.quot.num = x;
        c->out->u.quot.den = y;
        return SY_OK;
    }
    return op_err(c, SY_EUNSUPPORTED, "unsupported integer operation");
}

/* floor ('f'), ceil ('c') or truncation ('t') of the double fl(float(L) * s), an
 * integer L times a double s as Python's int * float and PyTorch's upsample
 * kernels compute it (aten/src/ATen/native/UpSample.cpp compute_output_size:
 * static_cast<double>(input_size) * scale, converted toward zero; functional.py
 * interpolate with recompute_scale_factor: math.floor(float(size) * scale) in
 * 1.13, sym_int(size * scale) in 2.x). Exact (algebra/flscale.c): the formula
 * FloorDiv(P*L + off*Min(L, 1), Q) of a convergent P/Q of s, decided rather than
 * assumed: L's sign (fl is odd: a negative product is the negated one, floor
 * and ceil swapped), L <= H (the range of the formula: a limit of symshape, not
 * of the model) and, for the scales whose multiples of Q round to the integer
 * only in runs (0.7: 10*0.7 = 7.0, 90*0.7 = 62.99999999999999), the run of the
 * example. A static L is computed in double as PyTorch does. */
sy_status op_scaled_round(opcall *c, const sy_expr *L, double s, char mode, const sy_expr **out)
{
    sy_ctx *ctx = c->env->ctx;
    sy_status st;
    *out = NULL;
    if (mode == 'r') return op_err(c, SY_EUNSUPPORTED, "round() of a size times a float is not supported (use int(), math.floor or math.ceil)");
    if (!isfinite(s)) return op_err(c, SY_EINVAL, "cannot convert float %g to integer", s);
    int64_t Lc;
    if (sy_expr_get_si(L, &Lc) == SY_OK) {
        double y = (double)Lc * s;
        double r = mode == 'c' ? ceil(y) : mode == 'f' ? floor(y) : trunc(y);
        if (!isfinite(r) || r >= 9.2e18 || r <= -9.2e18) return op_err(c, SY_EOVERFLOW, "cannot convert float %g to integer", y);
        *out = KI(c, (int64_t)r);
        return *out ? SY_OK : sy_ctx_last_error(ctx);
    }
    if (s == 0) {
        *out = KI(c, 0);
        return *out ? SY_OK : sy_ctx_last_error(ctx);
    }
    int nonneg;
    if ((st = op_decide_bool(c, sy_expr_ge(ctx, L, KI(c, 0)), "float(size) * scale: is the integer non-negative?", &nonneg))) return st;
    int negprod = (s < 0) != !nonneg;
    const sy_expr *M = nonneg ? L : sy_expr_neg(ctx, L);
    double as = fabs(s);
    /* y = +-fl(M * |s|): floor(-z) = -ceil(z), trunc is floor of |y| */
    char m = mode == 't' ? 'f' : !negprod ? mode : mode == 'f' ? 'c' : 'f';
    const sy_expr *hv;
    int64_t ex = 0;
    if (!M) return sy_ctx_last_error(ctx);
    /* the example picks the run of multiples (mixed scales); an unbacked size has none: 0 */
    if (sy_env_hint(c->env, M, &hv) != SY_OK || sy_expr_get_si(hv, &ex)) ex = 0;
    sy_ctx_reset_error(ctx);
    sy_flscale pl;
    if (sy_flscale_plan(as, 53, m == 'c', ex, &pl))
        return op_err(c, SY_EUNSUPPORTED, "%s * %.17g: a scale of this magnitude on a symbolic size is outside what symshape "
                      "models exactly (its exact value a/2^E needs E <= 70: most decimals from about 2^-17 up; an integer scale must "
                      "fit int64); make the size static", sy_env_show(c->env, L), s);
    char why[400];
    snprintf(why, sizeof why, "float(%s) * %.17g: symshape's exact formula for the double product holds up to %lld "
             "(a limit of symshape's formula, not of the model)", sy_env_show(c->env, M), as, (long long)pl.hmax);
    int within;
    if ((st = op_decide_limit(c, sy_expr_le(ctx, M, KI(c, pl.hmax)), why, &within))) return st;
    if (!within)
        return op_err(c, SY_EUNSUPPORTED, "%s: the example is above it; give a smaller example or make the size static", why);
    const sy_expr *P = KI(c, pl.p), *Q = KI(c, pl.q);
    if (pl.runs) {
        const sy_expr *notmul = sy_expr_ne(ctx, sy_expr_mod(ctx, M, Q), KI(c, 0));
        /* the window of multiples around the example, less the runs that round the other way */
        const sy_expr *inrun = sy_expr_le(ctx, M, KI(c, pl.khi * pl.q));
        if (pl.klo > 0) inrun = sy_expr_and(ctx, inrun, sy_expr_ge(ctx, M, KI(c, pl.klo * pl.q)));
        for (int i = 0; i < pl.nex; i++)
            inrun = sy_expr_and(ctx, inrun, sy_expr_or(ctx, sy_expr_lt(ctx, M, KI(c, pl.exlo[i] * pl.q)),
                                                       sy_expr_gt(ctx, M, KI(c, pl.exhi[i] * pl.q))));
        snprintf(why, sizeof why, "float(%s) * %.17g: on the multiples of %lld the double product rounds %s the integer "
                 "%lld*size/%lld only outside runs (90*0.7 = 62.99999999999999); symshape's formula covers the multiples "
                 "from %lld to %lld but %d runs (a limit of symshape's formula, not of the model)", sy_env_show(c->env, M),
                 as, (long long)pl.q, m == 'c' ? "down to" : "up to", (long long)pl.p, (long long)pl.q,
                 (long long)(pl.klo * pl.q), (long long)(pl.khi * pl.q), pl.nex);
        int ok;
        if ((st = op_decide_limit(c, sy_expr_or(ctx, notmul, inrun), why, &ok))) return st;
        if (!ok) return op_err(c, SY_EUNSUPPORTED, "%s: the example is outside it", why);
    }
    const sy_expr *num = sy_expr_mul(ctx, P, M);
    if (pl.off) num = sy_expr_add(ctx, num, sy_expr_mul_si(ctx, sy_expr_min(ctx, M, KI(c, 1)), pl.off));
    const sy_expr *r = m == 'c' ? sy_expr_ceildiv(ctx, num, Q) : sy_expr_floordiv(ctx, num, Q);
    if (r && negprod) r = sy_expr_neg(ctx, r);
    if (!r) return sy_ctx_last_error(ctx);
    *out = r;
    return SY_OK;
}

/* int(q), math.floor(q), math.ceil(q), math.trunc(q) of q = num / den (a
 * Python float): exact integer semantics. Python rounds num / den once to a
 * double (long_true_divide, Objects/longobject.c: correctly rounded); the
 * rounded double has the same floor/ceil/truncation as the exact rational
 * when |num| + |den| <= 2^53 (a non-integer num/den is then at least 1/den
 * from the next integer, more than half an ulp), so that is required
 * (a guard only when the facts do not imply it, as interpolate's
 * float(size)*scale). floor = FloorDiv(num, den) and ceil = CeilDiv(num, den)
 * for every sign (docs/algebra.md); truncation toward zero (int(), trunc)
 * depends on the sign of the quotient, decided (a guard when the facts do
 * not decide it; never assumed). PyTorch 1.13 instead rewrites
 * int(a / b) to FloorDiv (sympy), wrong for a negative quotient. */
sy_status op_py_round(opcall *c, const sy_value *q, char mode)
{
    sy_ctx *ctx = c->env->ctx;
    if (q->kind == SY_V_INT || q->kind == SY_V_BOOL) {
        const sy_expr *e = as_int_expr(c, q);
        if (!e) return op_err(c, SY_EINVAL, "symbolic booleans cannot be used as integers");
        return set_int(c, e);
    }
    if (q->kind == SY_V_FLOAT) {
        double f = q->u.f;
        double r = mode == 'c' ? ceil(f) : mode == 'f' ? floor(f) : mode == 'r' ? nearbyint(f) : trunc(f);
        if (!isfinite(r) || r >= 9.2e18 || r <= -9.2e18) return op_err(c, SY_EOVERFLOW, "cannot convert float %g to integer", f);
        return set_int(c, KI(c, (int64_t)r));
    }
    if (q->kind == SY_V_SCALED) {
        const sy_expr *r;
        sy_status st = op_scaled_round(c, q->u.scaled.x, q->u.scaled.s, mode, &r);
        return st ? st : set_int(c, r);
    }
    if (q->kind != SY_V_QUOT) return op_err(c, SY_EINVAL, "expected a tensor or a number");
    if (mode == 'r')
        return op_err(c, SY_EUNSUPPORTED, "round() of a true quotient of sizes is not supported (use //, math.floor or math.ceil)");
    const sy_expr *num = q->u.quot.num, *den = q->u.quot.den;
    const sy_expr *lim = KI(c, (int64_t)1 << 52); /* each of |num|, |den| <= 2^52: the sum is <= 2^53 */
    const sy_expr *ok = sy_expr_and(ctx, sy_expr_and(ctx, sy_expr_le(ctx, num, lim), sy_expr_ge(ctx, num, sy_expr_neg(ctx, lim))),
                                    sy_expr_and(ctx, sy_expr_le(ctx, den, lim), sy_expr_ge(ctx, den, sy_expr_neg(ctx, lim))));
    if (!ok) return sy_ctx_last_error(ctx);
    sy_status st = op_require(c, ok, "%s / %s: a true division of sizes is rounded exactly only while both operands stay "
                              "within +-2^52", sy_env_show(c->env, num), sy_env_show(c->env, den));
    if (st) return st;
    if (mode == 'f') return set_int(c, sy_expr_floordiv(ctx, num, den));
    if (mode == 'c') return set_int(c, sy_expr_ceildiv(ctx, num, den));
    /* truncation: floor when num and den have the same sign, ceil when they
     * differ; at num = 0 both are 0, so a sign the facts prove including 0
     * (num >= 0 or num <= 0) decides without a guard */
    int dpos, known, v;
    if ((st = op_decide_bool(c, sy_expr_gt(ctx, den, KI(c, 0)), "int(a / b): is the divisor positive?", &dpos))) return st;
    const sy_expr *same = dpos ? sy_expr_ge(ctx, num, KI(c, 0)) : sy_expr_le(ctx, num, KI(c, 0));
    const sy_expr *differ = dpos ? sy_expr_le(ctx, num, KI(c, 0)) : sy_expr_ge(ctx, num, KI(c, 0));
    if ((st = sy_env_try_decide(c->env, same, &known, &v))) return st;
    if (known && v) return set_int(c, sy_expr_floordiv(ctx, num, den));
    if ((st = sy_env_try_decide(c->env, differ, &known, &v))) return st;
    if (known && v) return set_int(c, sy_expr_ceildiv(ctx, num, den));
    if ((st = op_decide_bool(c, same, "int(a / b): is the quotient non-negative?", &v))) return st;
    return set_int(c, v ? sy_expr_floordiv(ctx, num, den) : sy_expr_ceildiv(ctx, num, den));
}

static sy_status unary_num(opcall *c)
{
    const sy_value *a = A(c, 0);
    if (!a) return op_err(c, SY_EINVAL, "expected an operand");
    if (a->kind == SY_V_TENSOR) return sy_unary_layout(c, a->u.t, a->u.t->dtype);
    sy_ctx *ctx = c->env->ctx;
    if (!strcmp(c->op, "not_")) {
        if (a->kind == SY_V_BOOL) return set_bool(c, sy_expr_not(ctx, a->u.i));
        if (a->kind == SY_V_INT) return set_bool(c, sy_expr_eq(ctx, a->u.i, KI(c, 0)));
        if (a->kind == SY_V_LIST) return set_bool(c, sy_expr_bool(ctx, a->u.list.n == 0));
        if (a->kind == SY_V_NONE) return set_bool(c, sy_expr_true(ctx));
        return op_err(c, SY_EINVAL, "unsupported operand of not");
    }
    if (a->kind == SY_V_FLOAT) {
        if (!strcmp(c->op, "sym_int")) return op_py_round(c, a, 't'); /* torch.sym_int(float): toward zero, as int() */
        *c->out = sy_value_float(!strcmp(c->op, "neg") ? -a->u.f : a->u.f);
        return SY_OK;
    }
    if (a->kind == SY_V_QUOT || a->kind == SY_V_SCALED) {
        if (!strcmp(c->op, "sym_int")) return op_py_round(c, a, 't');
        return op_err(c, SY_EUNSUPPORTED, "%s of a true quotient of sizes (x / y) is not supported", c->op);
    }
    const sy_expr *x = is_num(a) ? as_int_expr(c, a) : NULL;
    if (!x) return op_err(c, SY_EINVAL, "operand must be an integer");
    if (!strcmp(c->op, "neg")) return set_int(c, sy_expr_neg(ctx, x));
    return set_int(c, x); /* pos, int, sym_int */
}

static sy_status size(opcall *c)
{
    const sy_tensor *t;
    sy_status st = op_tensor(c, 0, "input", &t);
    if (st) return st;
    const sy_value *d = op_arg(c, 1, "dim");
    if (d && d->kind != SY_V_NONE) {
        int64_t dim;
        size_t w;
        if ((st = op_const_int(c, 1, "dim", 0, &dim)) || (st = op_wrap_dim(c, dim, t->ndim, &w))) return st;
        return set_int(c, t->sizes[w]);
    }
    sy_value *items = sy_env_alloc(c->env, (t->ndim ? t->ndim : 1) * sizeof *items);
    if (!items) return sy_ctx_last_error(c->env->ctx);
    for (size_t i = 0; i < t->ndim; i++) items[i] = sy_value_int(t->sizes[i]);
    *c->out = sy_value_list(c->env, t->ndim, items);
    return SY_OK;
}

/* Tensor.stride() / stride(dim): the fake tensor's strides (docs/ops.md
 * section 8). Reading strides makes guard production emit every input's
 * stride guards (env->strides_read). */
static sy_status stride(opcall *c)
{
    const sy_tensor *t;
    sy_status st = op_tensor(c, 0, "input", &t);
    if (st) return st;
    if (!t->strides)
        return op_err(c, SY_EUNSUPPORTED, "the strides of this tensor are not modelled (docs/ops.md section 8); insert .contiguous()");
    c->env->strides_read = 1;
    const sy_value *d = op_arg(c, 1, "dim");
    if (d && d->kind != SY_V_NONE) {
        int64_t dv;
        size_t w;
        if ((st = op_const_int(c, 1, "dim", 0, &dv)) || (st = op_wrap_dim(c, dv, t->ndim, &w))) return st;
        return set_int(c, t->strides[w]);
    }
    sy_value *items = sy_env_alloc(c->env, (t->ndim ? t->ndim : 1) * sizeof *items);
    if (!items) return sy_ctx_last_error(c->env->ctx);
    for (size_t i = 0; i < t->ndim; i++) items[i] = sy_value_int(t->strides[i]);
    *c->out = sy_value_list(c->env, t->ndim, items);
    return SY_OK;
}

/* Tensor.is_contiguous(memory_format=torch.contiguous_format): a symbolic
 * bool (c10/core/TensorImpl.cpp compute_contiguous: true when empty, else
 * every dim of size != 1 has the stride of the product of the sizes after it;
 * compute_channels_last_contiguous_2d / _3d: the same in the order
 * (1, 3, 2, 0) / (1, 4, 3, 2, 0), for 4-D / 5-D tensors only, no empty case). */
static sy_status is_contiguous(opcall *c)
{
    const sy_tensor *t;
    sy_status st = op_tensor(c, 0, "input", &t);
    if (st) return st;
    sy_ctx *ctx = c->env->ctx;
    const sy_value *mf = op_arg(c, 1, "memory_format");
    const char *fmt = "contiguous_format";
    if (mf && mf->kind == SY_V_STR) fmt = !strncmp(mf->u.s, "torch.", 6) ? mf->u.s + 6 : mf->u.s;
    else if (mf && mf->kind != SY_V_NONE) return op_err(c, SY_EINVAL, "memory_format must be a torch.memory_format");
    char f = !strcmp(fmt, "channels_last") ? '4' : !strcmp(fmt, "channels_last_3d") ? '5' : 'c';
    if (f == 'c' && strcmp(fmt, "contiguous_format")) return op_err(c, SY_EINVAL, "is_contiguous: unsupported memory format %s", fmt);
    if ((f == '4' && t->ndim != 4) || (f == '5' && t->ndim != 5)) return set_bool(c, sy_expr_false(ctx));
    if (!t->strides)
        return op_err(c, SY_EUNSUPPORTED, "the strides of this tensor are not modelled (docs/ops.md section 8); insert .contiguous()");
    c->env->strides_read = 1;
    return set_bool(c, sy_layout_is_contiguous(c, t, f)); /* set_bool reports a NULL */
}

static sy_status dim(opcall *c)
{
    const sy_tensor *t;
    sy_status st = op_tensor(c, 0, "input", &t);
    if (st) return st;
    return set_int(c, KI(c, (int64_t)t->ndim));
}

/* x.is_floating_point() / torch.is_floating_point(x), is_complex, is_signed: properties of the
 * dtype, which the trace knows exactly (c10/core/ScalarType.h isFloatingType, isComplexType,
 * isSignedType: bool and uint8 are unsigned) */
static sy_status dtype_pred(opcall *c)
{
    const sy_tensor *t;
    sy_status st = op_tensor(c, 0, "input", &t);
    if (st) return st;
    int v;
    if (!strcmp(c->op, "is_floating_point")) v = t->dtype <= SY_DT_BFLOAT16;
    else if (!strcmp(c->op, "is_complex")) v = t->dtype == SY_DT_COMPLEX64 || t->dtype == SY_DT_COMPLEX128;
    else v = t->dtype != SY_DT_BOOL && t->dtype != SY_DT_UINT8;
    return set_bool(c, sy_expr_bool(c->env->ctx, v));
}

static sy_status numel(opcall *c)
{
    const sy_tensor *t;
    sy_status st = op_tensor(c, 0, "input", &t);
    if (st) return st;
    const sy_expr *n = KI(c, 1);
    for (size_t i = 0; i < t->ndim && n; i++) n = sy_expr_mul(c->env->ctx, n, t->sizes[i]);
    return set_int(c, n);
}

static sy_status getattr(opcall *c)
{
    const sy_value *o = A(c, 0), *nm = A(c, 1);
    if (!o || !nm || nm->kind != SY_V_STR) return op_err(c, SY_EINVAL, "expected getattr(object, name)");
    const char *n = nm->u.s;
    if (o->kind == SY_V_TENSOR) {
        const sy_tensor *t = o->u.t;
        if (!strcmp(n, "shape")) {
            opcall c2 = *c;
            c2.nargs = 1;
            return size(&c2);
        }
        if (!strcmp(n, "dtype")) {
            *c->out = sy_value_none();
            c->out->kind = SY_V_DTYPE;
            c->out->u.dtype = t->dtype;
            return SY_OK;
        }
        if (!strcmp(n, "ndim")) return set_int(c, KI(c, (int64_t)t->ndim));
        if (!strcmp(n, "is_nested") || !strcmp(n, "is_sparse") || !strcmp(n, "is_cuda") ||
            !strcmp(n, "requires_grad") || !strcmp(n, "is_quantized") || !strcmp(n, "is_meta"))
            return set_bool(c, sy_expr_false(c->env->ctx));
        if (!strcmp(n, "is_floating_point")) return set_bool(c, sy_expr_bool(c->env->ctx, t->dtype <= SY_DT_BFLOAT16));
        if (!strcmp(n, "device")) { /* fake tensors model the capture device */
            *c->out = sy_value_str(c->env, "cpu");
            return SY_OK;
        }
        if (!strcmp(n, "real") || !strcmp(n, "imag")) { /* a view: the complex tensor's real or imaginary parts */
            if (!op_is_complex(t->dtype)) {
                if (!strcmp(n, "imag")) return op_err(c, SY_EINVAL, "imag is not implemented for tensors with non-complex dtypes.");
                *c->out = *o; /* .real of a real tensor is itself */
                return SY_OK;
            }
            const sy_expr **str = NULL;
            if (t->strides) { /* view_as_real(t)[..., 0 or 1]: the strides doubled */
                str = sy_env_alloc(c->env, (t->ndim ? t->ndim : 1) * sizeof *str);
                if (!str) return sy_ctx_last_error(c->env->ctx);
                for (size_t i = 0; i < t->ndim; i++)
                    if (!(str[i] = sy_expr_mul_si(c->env->ctx, t->strides[i], 2))) return sy_ctx_last_error(c->env->ctx);
            }
            return op_set_strided(c, t->dtype == SY_DT_COMPLEX128 ? SY_DT_FLOAT64 : SY_DT_FLOAT32, t->ndim, t->sizes, str);
        }
        return op_err(c, SY_EUNSUPPORTED, "unknown tensor attribute '%s'", n);
    }
    return op_err(c, SY_EUNSUPPORTED, "getattr '%s' on a non-tensor", n);
}

/* Python slice bounds on a length (all symbolic): PySlice_AdjustIndices. */
static sy_status slice_len(opcall *c, const sy_value *sl, const sy_expr *len, const sy_expr **start, const sy_expr **n,
                           int64_t *step);

/* A list slice with a step <= 0 (Python's PySlice_Unpack and
 * PySlice_AdjustIndices, Objects/sliceobject.c): a size list is a Python
 * tuple, so x.size()[::-1] is legal (tensors reject negative steps, see
 * sy_tensor_getitem). The bounds must be constants. */
static sy_status list_slice_neg(opcall *c, const sy_value *o, const sy_value *sl, int64_t step)
{
    if (step == 0) return op_err(c, SY_EINVAL, "ValueError: slice step cannot be zero");
    if (step < -INT64_MAX) step = -INT64_MAX; /* PySlice_Unpack clamps to -PY_SSIZE_T_MAX */
    int64_t len = (int64_t)o->u.list.n, b[2];
    const sy_value *parts[2] = {sl->u.slice.start, sl->u.slice.stop};
    for (int k = 0; k < 2; k++) {
        const sy_value *p = parts[k];
        if (!p || p->kind == SY_V_NONE) {
            b[k] = k == 0 ? len - 1 : -1; /* None: from the last item, to before the first */
            continue;
        }
        const sy_expr *x = is_num(p) ? as_int_expr(c, p) : NULL;
        int64_t v;
        if (!x) return op_err(c, SY_EINVAL, "slice bounds must be integers");
        if (sy_expr_get_si(x, &v))
            return op_err(c, SY_EUNSUPPORTED, "a list slice with a negative step needs constant bounds");
        if (v < 0) {
            v += len;
            if (v < 0) v = -1;
        } else if (v >= len) {
            v = len - 1;
        }
        b[k] = v;
    }
    int64_t cnt = b[1] < b[0] ? (b[0] - b[1] - 1) / -step + 1 : 0; 
    sy_value *items = sy_env_alloc(c->env, (cnt > 0 ? (size_t)cnt : 1) * sizeof *items);
    if (!items) return sy_ctx_last_error(c->env->ctx);
    for (int64_t i = 0; i < cnt; i++) items[i] = o->u.list.items[b[0] + i * step];
    *c->out = sy_value_list(c->env, (size_t)cnt, items);
    return SY_OK;
}

static sy_status getitem(opcall *c)
{
    const sy_value *o = A(c, 0), *idx = A(c, 1);
    if (!o || !idx) return op_err(c, SY_EINVAL, "expected getitem(object, index)");
    if (o->kind == SY_V_TENSOR) return sy_tensor_getitem(c, o->u.t, idx);
    if (o->kind != SY_V_LIST) return op_err(c, SY_EINVAL, "object is not subscriptable");
    size_t n = o->u.list.n;
    if (idx->kind == SY_V_SLICE) {
        const sy_value *vt = idx->u.slice.step;
        const sy_expr *te = vt && is_num(vt) ? as_int_expr(c, vt) : NULL;
        int64_t tv;
        if (te && !sy_expr_get_si(te, &tv) && tv <= 0) return list_slice_neg(c, o, idx, tv);
        const sy_expr *start = NULL, *cnt = NULL;
        int64_t step = 1;
        sy_status st = slice_len(c, idx, KI(c, (int64_t)n), &start, &cnt, &step);
        if (st) return st;
        int64_t s0, k;
        if (sy_expr_get_si(start, &s0) || sy_expr_get_si(cnt, &k)) return op_err(c, SY_EINVAL, "list slice must be constant");
        sy_value *items = sy_env_alloc(c->env, (k > 0 ? (size_t)k : 1) * sizeof *items);
        if (!items) return sy_ctx_last_error(c->env->ctx);
        for (int64_t i = 0; i < k; i++) items[i] = o->u.list.items[s0 + i * step];
        *c->out = sy_value_list(c->env, (size_t)k, items);
        return SY_OK;
    }
    int64_t i;
    const sy_expr *ie = is_num(idx) ? as_int_expr(c, idx) : NULL;
    if (!ie || sy_expr_get_si(ie, &i)) return op_err(c, SY_EINVAL, "list index must be a constant integer");
    if (i < -(int64_t)n || i >= (int64_t)n) return op_err(c, SY_EINVAL, "index %lld out of range for length %zu", (long long)i, n);
    *c->out = o->u.list.items[i < 0 ? i + (int64_t)n : i];
    return SY_OK;
}

/* x[index] = value (operator.setitem, Tensor.__setitem__; TensorIndexing.h set_item, copy_to):
 * the region is x[index] under the getitem rules (an integer index must be in range, slices
 * clamp); a tensor value loses its leading dims of size 1 (slicePrefix1sStrip) and must expand
 * to the region (expand_inplace: each of its dims, aligned from the right, equals the region's or
 * is 1); a number always fits. The result is None; x keeps its sizes. */
static sy_status setitem(opcall *c)
{
    const sy_value *o = A(c, 0), *idx = A(c, 1), *val = A(c, 2);
    if (!o || !idx || !val) return op_err(c, SY_EINVAL, "expected setitem(object, index, value)");
    if (o->kind != SY_V_TENSOR) return op_err(c, SY_EUNSUPPORTED, "item assignment on a %s", o->kind == SY_V_LIST ? "list" : "non-tensor");
    sy_value region;
    opcall c2 = *c;
    c2.out = &region;
    sy_status st = sy_tensor_getitem(&c2, o->u.t, idx);
    if (st) return st;
    if (val->kind == SY_V_TENSOR && region.kind == SY_V_TENSOR) {
        const sy_tensor *v = val->u.t, *r = region.u.t;
        size_t lead = 0;
        int64_t one;
        while (lead < v->ndim && !sy_expr_get_si(v->sizes[lead], &one) && one == 1) lead++;
        size_t vn = v->ndim - lead;
        if (vn > r->ndim)
            return op_err(c, SY_EINVAL, "shape mismatch: value tensor of %zu dims cannot be broadcast to indexing result of %zu dims",
                          v->ndim, r->ndim);
        for (size_t i = 0; i < vn; i++) {
            const sy_expr *vd = v->sizes[lead + i], *rd = r->sizes[r->ndim - vn + i];
            if ((st = op_require(c, sy_expr_or(c->env->ctx, sy_expr_eq(c->env->ctx, vd, rd), sy_expr_eq(c->env->ctx, vd, KI(c, 1))),
                                 "shape mismatch: value tensor of size %s at dim %zu cannot be broadcast to indexing result of size %s",
                                 sy_env_show(c->env, vd), lead + i, sy_env_show(c->env, rd))))
                return st;
        }
    } else if (val->kind != SY_V_INT && val->kind != SY_V_FLOAT && val->kind != SY_V_BOOL && val->kind != SY_V_TENSOR) {
        return op_err(c, SY_EINVAL, "setitem: the value must be a tensor or a number");
    }
    *c->out = sy_value_none();
    return SY_OK;
}

/* start/stop/step of a slice over a symbolic length, clamped like Python:
 * x[-n:] with n = 0 is the whole axis. Returns the start index and the
 * number of elements (both expressions; step must be a positive constant). */
static sy_status slice_len(opcall *c, const sy_value *sl, const sy_expr *len, const sy_expr **start, const sy_expr **n,
                           int64_t *step)
{
    sy_ctx *ctx = c->env->ctx;
    *step = 1;
    const sy_value *vs = sl->u.slice.start, *ve = sl->u.slice.stop, *vt = sl->u.slice.step;
    if (vt && vt->kind != SY_V_NONE) {
        const sy_expr *e = is_num(vt) ? as_int_expr(c, vt) : NULL;
        if (!e || sy_expr_get_si(e, step)) return op_err(c, SY_EUNSUPPORTED, "slice step must be a positive constant");
        /* a tensor (python_variable_indexing.cpp applySlicing): step <= 0 is an error; lists
         * take the list_slice_neg path before */
        if (*step == 0) return op_err(c, SY_EINVAL, "ValueError: slice step cannot be zero");
        if (*step < 0) return op_err(c, SY_EINVAL, "ValueError: step must be greater than zero");
    }
    /* the bounds as integer expressions (None: NULL), then the rule both frontends share
     * (shapeenv/rules.c sy_rule_slice_len: Python's and PyTorch's clamps, exact with Min/Max,
     * no guard) */
    const sy_expr *b[2] = {NULL, NULL};
    const sy_value *parts[2] = {vs, ve};
    for (int k = 0; k < 2; k++) {
        const sy_value *p = parts[k];
        if (!p || p->kind == SY_V_NONE) continue;
        b[k] = is_num(p) ? as_int_expr(c, p) : NULL;
        if (!b[k]) return op_err(c, SY_EINVAL, "slice bounds must be integers");
    }
    (void)ctx;
    return sy_rule_slice_len(c->env, b[0], b[1], *step, len, start, n);
}

sy_status sy_slice_len(opcall *c, const sy_value *sl, const sy_expr *len, const sy_expr **start, const sy_expr **n,
                       int64_t *step);
sy_status sy_slice_len(opcall *c, const sy_value *sl, const sy_expr *len, const sy_expr **start, const sy_expr **n,
                       int64_t *step)
{
    return slice_len(c, sl, len, start, n, step);
}

static sy_status assert_(opcall *c)
{
    const sy_value *cond = A(c, 0), *msg = A(c, 1);
    if (!cond) return op_err(c, SY_EINVAL, "expected _assert(condition, message)");
    const sy_expr *rel = NULL;
    if (cond->kind == SY_V_BOOL) rel = cond->u.i;
    else if (cond->kind == SY_V_INT) rel = sy_expr_ne(c->env->ctx, cond->u.i, KI(c, 0));
    else return op_err(c, SY_EINVAL, "assert condition must be a bool");
    const char *m = msg && msg->kind == SY_V_STR ? msg->u.s : "assertion failed";
    sy_provenance why = {c->where ? c->where->node : NULL, c->op, m};
    sy_status st = sy_env_require(c->env, rel, &why);
    if (st == SY_EINVAL && !strcmp(sy_ctx_last_error_msg(c->env->ctx), m))
        return sy_fail_st(c->env->ctx, st, "AssertionError: %s", m);
    if (st == SY_OK) *c->out = sy_value_none();
    return st;
}

static sy_status guard_bool(opcall *c)
{
    const sy_value *cond = A(c, 0), *want = A(c, 1);
    if (!cond || !want || want->kind != SY_V_BOOL) return op_err(c, SY_EINVAL, "expected guard_bool(condition, expected_bool)");
    sy_ctx *ctx = c->env->ctx;
    const sy_expr *rel;
    if (cond->kind == SY_V_BOOL) rel = cond->u.i;
    else if (cond->kind == SY_V_INT) rel = sy_expr_ne(ctx, cond->u.i, KI(c, 0));
    else if (cond->kind == SY_V_NONE) rel = sy_expr_false(ctx);
    else if (cond->kind == SY_V_LIST) rel = sy_expr_bool(ctx, cond->u.list.n != 0);
    else return op_err(c, SY_EINVAL, "guard_bool condition must be a bool");
    if (sy_expr_kind_of(want->u.i) == SY_EXPR_FALSE) rel = sy_expr_not(ctx, rel);
    char reason[256];
    snprintf(reason, sizeof reason, "guard_bool at node %s", c->where && c->where->node ? c->where->node : "?");
    sy_provenance why = {c->where ? c->where->node : NULL, c->op, reason};
    sy_status st = sy_env_require(c->env, rel, &why);
    if (st == SY_EINVAL && !strcmp(sy_ctx_last_error_msg(ctx), reason))
        return op_err(c, st, "the branch recorded at capture is not taken here");
    if (st == SY_OK) *c->out = *want;
    return st;
}

static sy_status guard_int(opcall *c)
{
    const sy_value *v = A(c, 0), *want = A(c, 1);
    if (!v || !want || !is_num(v) || !is_num(want)) return op_err(c, SY_EINVAL, "expected guard_int(int, expected_int)");
    sy_ctx *ctx = c->env->ctx;
    const sy_expr *x = as_int_expr(c, v), *y = as_int_expr(c, want), *rel = NULL;
    int64_t w;
    /* int() of a symbolic bool (int(x.is_contiguous()), int(h > w)): Python's int of a bool is 0 or
     * 1, so the recorded value pins the condition, as guard_bool pins a branch */
    if (!x && y && v->kind == SY_V_BOOL && !sy_expr_get_si(y, &w) && (w == 0 || w == 1))
        rel = w ? v->u.i : sy_expr_not(ctx, v->u.i);
    else if (!x || !y)
        return op_err(c, SY_EINVAL, "guard_int operands must be integers");
    else
        rel = sy_expr_eq(ctx, x, y);
    char reason[256];
    snprintf(reason, sizeof reason, "guard_int at node %s: specialized to %s", c->where && c->where->node ? c->where->node : "?",
             sy_env_show(c->env, y));
    sy_provenance why = {c->where ? c->where->node : NULL, c->op, reason};
    sy_status st = sy_env_require(c->env, rel, &why);
    if (st == SY_EINVAL && !strcmp(sy_ctx_last_error_msg(ctx), reason))
        return op_err(c, st, "value %s differs from the captured %s", sy_env_show(c->env, x ? x : v->u.i), sy_env_show(c->env, y));
    if (st == SY_OK) *c->out = sy_value_int(y);
    return st;
}

/* len() of a list / tensor */
static sy_status len_(opcall *c)
{
    const sy_value *o = A(c, 0);
    if (!o) return op_err(c, SY_EINVAL, "expected len(object)");
    if (o->kind == SY_V_LIST) return set_int(c, KI(c, (int64_t)o->u.list.n));
    if (o->kind == SY_V_TENSOR) {
        if (o->u.t->ndim == 0) return op_err(c, SY_EINVAL, "len() of a 0-d tensor");
        return set_int(c, o->u.t->sizes[0]);
    }
    return op_err(c, SY_EINVAL, "object has no len()");
}

const opentry sy_ops_scalar[] = {
    OP_ROW("add", binary, OP_CARRIES),
    OP_ROW("iadd", binary),
    OP_ROW("add_", binary),
    OP_ROW("sub", binary, OP_CARRIES),
    OP_ROW("isub", binary),
    OP_ROW("sub_", binary),
    OP_ROW("mul", binary, OP_CARRIES),
    OP_ROW("imul", binary),
    OP_ROW("mul_", binary),
    OP_ROW("truediv", binary, OP_CARRIES),
    OP_ROW("div", binary, OP_CARRIES),
    OP_ROW("div_", binary),
    OP_ROW("floordiv", binary),
    OP_ROW("ifloordiv", binary),
    OP_ROW("mod", binary),
    OP_ROW("pow", binary),
    OP_ROW("eq", binary),
    OP_ROW("ne", binary),
    OP_ROW("lt", binary),
    OP_ROW("le", binary),
    OP_ROW("gt", binary),
    OP_ROW("ge", binary),
    OP_ROW("and_", binary),
    OP_ROW("or_", binary),
    OP_ROW("is_", binary),
    OP_ROW("is_not", binary),
    OP_ROW("neg", unary_num, OP_CARRIES),
    OP_ROW("pos", unary_num),
    OP_ROW("not_", unary_num),
    OP_ROW("sym_int", unary_num),
    OP_ROW("size", size),
    OP_ROW("stride", stride),
    OP_ROW("is_contiguous", is_contiguous),
    OP_ROW("dim", dim),
    OP_ROW("numel", numel),
    OP_ROW("getattr", getattr),
    OP_ROW("is_floating_point", dtype_pred),
    OP_ROW("is_complex", dtype_pred),
    OP_ROW("is_signed", dtype_pred),
    OP_ROW("getitem", getitem, OP_CARRIES, OPL_OWN),
    OP_ROW("setitem", setitem),
    OP_ROW("__setitem__", setitem), /* Tensor.__setitem__ on a real tensor with a traced value */
    OP_ROW("_assert", assert_, OP_IMPURE),
    OP_ROW("guard_bool", guard_bool),
    OP_ROW("guard_int", guard_int),
    OP_ROW("len", len_),
    OP_END};
