/* FloorDiv, Mod, CeilDiv: construction-time rules. Every rule is an entry of
 * algebra/rules.def (proven with Z3 in tests/verify/test_rules.c) and is
 * applied only through its gate sy_rule_on(ctx, SY_R_...); docs/algebra.md
 * (section "Division rules") sketches the proofs. */
#include <string.h>

#include "algebra/expr_private.h"
#include "algebra/ival.h"

static const sy_expr *floordiv_const(sy_ctx *ctx, const sy_expr *n, const fmpz_t k);
static const sy_expr *mod_const(sy_ctx *ctx, const sy_expr *n, const fmpz_t k);

/* i-th non-constant term of a polynomial (coefficient, monomial). */
static size_t nc_count(const sy_expr *e)
{
    if (e->kind == SY_EXPR_INT) return 0;
    if (e->kind == SY_EXPR_ADD) return e->n;
    return 1;
}
static const sy_expr *nc_term(const sy_expr *e, size_t i, const fmpz **c)
{
    static const fmpz one = 1;
    if (e->kind == SY_EXPR_ADD) {
        *c = &SY_CTERMS(e)[i].coef;
        return SY_CTERMS(e)[i].mono;
    }
    *c = &one;
    return e;
}

/* If the floor of a/k is the same at both ends of a's intrinsic range (k > 0),
 * store it in q and return true. */
static bool const_quotient(const sy_expr *a, const fmpz_t k, fmpz_t q)
{
    if (a->lo == SY_NEG_INF || a->hi == SY_POS_INF) return false;
    fmpz_t lo, hi, q2;
    fmpz_init_set_si(lo, a->lo);
    fmpz_init_set_si(hi, a->hi);
    fmpz_init(q2);
    fmpz_fdiv_q(q, lo, k);
    fmpz_fdiv_q(q2, hi, k);
    bool same = fmpz_equal(q, q2);
    fmpz_clear(lo);
    fmpz_clear(hi);
    fmpz_clear(q2);
    return same;
}

/* ---------------------------------------------------------------- FloorDiv by a constant */

/* The literal node, when a rule that would apply is switched off. */
static const sy_expr *raw_node(sy_ctx *ctx, sy_expr_kind kind, const sy_expr *n, const fmpz_t k)
{
    const sy_expr *kd = sy_int_fmpz(ctx, k);
    return n && kd ? sy_node2(ctx, kind, n, kd) : NULL;
}

/* FloorDiv(s*(A + Mod(P, k)), k), s = +-1, where P == -A (mod k) term by term (constant
 * included): A + Mod(-A, k) is the least multiple of k that is >= A, k*CeilDiv(A, k), so the
 * quotient is s*CeilDiv(A, k) (FLOORDIV_ROUND_UP, _NEG). The pad-up-to-a-multiple idiom:
 * FloorDiv(w + Mod(6*w, 7), 7) = CeilDiv(w, 7) (issue 32). *matched false: no match; true:
 * the result, or NULL on an error (set in ctx). Each application removes one Mod atom from
 * the sum, so the recursion ends. */
static const sy_expr *floordiv_round_up(sy_ctx *ctx, const sy_expr *n, const fmpz_t k, bool *matched)
{
    *matched = false;
    fmpz_t c;
    fmpz_init(c);
    sy_const_term(c, n);
    bool zero_c = fmpz_is_zero(c);
    fmpz_clear(c);
    if (!zero_c) return NULL;
    for (size_t i = 0; i < nc_count(n); i++) {
        const fmpz *ci;
        const sy_expr *m = nc_term(n, i, &ci);
        if (m->kind != SY_EXPR_MOD || m->args[1]->kind != SY_EXPR_INT || !fmpz_equal(&m->args[1]->u.value, k) ||
            !fmpz_is_pm1(ci))
            continue;
        int s = fmpz_sgn(ci);
        /* A = s*(n - s*Mod(P, k)) */
        const sy_expr *rest = sy_expr_sub(ctx, n, sy_expr_mul(ctx, sy_expr_int_si(ctx, s), m));
        const sy_expr *A = !rest ? NULL : s > 0 ? rest : sy_expr_neg(ctx, rest);
        const sy_expr *S = A ? sy_expr_add(ctx, m->args[0], A) : NULL;
        if (!S) { /* an error (set in ctx) */
            *matched = true;
            return NULL;
        }
        fmpz_t b;
        fmpz_init(b);
        sy_const_term(b, S);
        bool ok = fmpz_divisible(b, k) && A->kind != SY_EXPR_INT;
        fmpz_clear(b);
        for (size_t j = 0; ok && j < nc_count(S); j++) {
            const fmpz *cj;
            nc_term(S, j, &cj);
            ok = fmpz_divisible(cj, k);
        }
        if (!ok || !sy_rule_on(ctx, s > 0 ? SY_R_FLOORDIV_ROUND_UP : SY_R_FLOORDIV_ROUND_UP_NEG)) continue;
        *matched = true;
        const sy_expr *C = sy_expr_ceildiv(ctx, A, sy_int_fmpz(ctx, k));
        return C && s < 0 ? sy_expr_neg(ctx, C) : C;
    }
    return NULL;
}

/* Every step is a rule of algebra/rules.def, applied only through its gate. */
static const sy_expr *floordiv_const(sy_ctx *ctx, const sy_expr *n, const fmpz_t k_in)
{
    fmpz_t k, c, q, r, g, t;
    fmpz_init_set(k, k_in);
    fmpz_init(c); fmpz_init(q); fmpz_init(r); fmpz_init(g); fmpz_init(t);
    const sy_expr *res = NULL;
    sy_terms P, R;
    sy_terms_init(&P);
    sy_terms_init(&R);

    if (fmpz_sgn(k) < 0) {
        if (!sy_rule_on(ctx, SY_R_FLOORDIV_NEG_DIVISOR)) { res = raw_node(ctx, SY_EXPR_FLOORDIV, n, k); goto done; }
        n = sy_expr_neg(ctx, n); /* FloorDiv(a, -k) = FloorDiv(-a, k) */
        fmpz_neg(k, k);
        if (!n) goto done;
    }
    if (fmpz_is_one(k)) {
        res = sy_rule_on(ctx, SY_R_FLOORDIV_ONE) ? n : raw_node(ctx, SY_EXPR_FLOORDIV, n, k);
        goto done;
    }
    if (n->kind == SY_EXPR_INT) {
        if (!sy_rule_on(ctx, SY_R_FLOORDIV_FOLD)) { res = raw_node(ctx, SY_EXPR_FLOORDIV, n, k); goto done; }
        fmpz_fdiv_q(q, &n->u.value, k);
        res = sy_int_fmpz(ctx, q);
        goto done;
    }
    {
        bool matched;
        const sy_expr *ru = floordiv_round_up(ctx, n, k, &matched);
        if (matched) { /* applied, or failed with the error set */
            res = ru;
            goto done;
        }
    }
    /* (a) pull out multiples of k: c_i = q_i k + r_i, |r_i| < k, r_i with the
     * sign of c_i. FloorDiv(k*P + R, k) = P + FloorDiv(R, k). */
    bool pull = false;
    for (size_t i = 0; i < nc_count(n) && !pull; i++) {
        const fmpz *ci;
        nc_term(n, i, &ci);
        pull = fmpz_cmpabs(ci, k) >= 0;
    }
    if (pull) pull = sy_rule_on(ctx, SY_R_FLOORDIV_PULL_MULTIPLE);
    for (size_t i = 0; i < nc_count(n); i++) {
        const fmpz *ci;
        const sy_expr *m = nc_term(n, i, &ci);
        if (pull) {
            fmpz_tdiv_qr(q, r, ci, k);
        } else {
            fmpz_zero(q);
            fmpz_set(r, ci);
        }
        if (!fmpz_is_zero(q) && !sy_terms_push(ctx, &P, q, m)) goto done;
        if (!fmpz_is_zero(r) && !sy_terms_push(ctx, &R, r, m)) goto done;
    }
    sy_const_term(c, n);
    if (R.n == 0) { /* P + FloorDiv(c, k) */
        if (sy_rule_on(ctx, SY_R_FLOORDIV_FOLD)) {
            fmpz_fdiv_q(q, c, k);
            fmpz_add(P.c0, P.c0, q);
        } else {
            const sy_expr *cn = sy_int_fmpz(ctx, c);
            const sy_expr *node = cn ? raw_node(ctx, SY_EXPR_FLOORDIV, cn, k) : NULL;
            if (!node || !sy_terms_add_expr(ctx, &P, (fmpz_t){1}, node)) goto done;
        }
        res = sy_terms_build(ctx, &P);
        goto done;
    }
    /* (b) gcd of the remaining coefficients with k:
     * FloorDiv(g*A + c, g*m) = FloorDiv(A + FloorDiv(c, g), m). */
    fmpz_set(g, k);
    for (size_t i = 0; i < R.n; i++) fmpz_gcd(g, g, &R.t[i].coef);
    if (!fmpz_is_one(g) && sy_rule_on(ctx, SY_R_FLOORDIV_CONTENT)) {
        for (size_t i = 0; i < R.n; i++) fmpz_divexact(&R.t[i].coef, &R.t[i].coef, g);
        fmpz_fdiv_q(c, c, g);
        fmpz_divexact(k, k, g);
    }
    const sy_expr *rexpr = sy_terms_build(ctx, &R); /* non-constant part */
    if (!rexpr) goto done;
    if (fmpz_is_one(k)) {
        const sy_expr *num = sy_add_fmpz(ctx, rexpr, c);
        const sy_expr *node = !num ? NULL
                            : sy_rule_on(ctx, SY_R_FLOORDIV_ONE) ? num : raw_node(ctx, SY_EXPR_FLOORDIV, num, k);
        if (!node || !sy_terms_add_expr(ctx, &P, (fmpz_t){1}, node)) goto done;
        res = sy_terms_build(ctx, &P);
        goto done;
    }
    /* (e) sign: FloorDiv(-A + c, k) = -FloorDiv(A - c + k - 1, k). */
    int sign = 1;
    if (sy_leading_sign(rexpr) < 0 && sy_rule_on(ctx, SY_R_FLOORDIV_NEG_NUMERATOR)) {
        sign = -1;
        rexpr = sy_expr_neg(ctx, rexpr);
        if (!rexpr) goto done;
        fmpz_neg(c, c);
        fmpz_add(c, c, k);
        fmpz_sub_ui(c, c, 1);
    }
    fmpz_set_si(t, sign);
    /* (d) nested: FloorDiv(FloorDiv(x, j) + c, k) = FloorDiv(x + c*j, j*k), j > 0. */
    if (rexpr->kind == SY_EXPR_FLOORDIV && rexpr->args[1]->kind == SY_EXPR_INT &&
        fmpz_sgn(&rexpr->args[1]->u.value) > 0 && sy_rule_on(ctx, SY_R_FLOORDIV_NESTED)) {
        const fmpz *j = &rexpr->args[1]->u.value;
        fmpz_t cj;
        fmpz_init(cj);
        fmpz_mul(cj, c, j);
        const sy_expr *inner = sy_add_fmpz(ctx, rexpr->args[0], cj);
        fmpz_mul(cj, j, k);
        const sy_expr *fl = inner ? floordiv_const(ctx, inner, cj) : NULL;
        fmpz_clear(cj);
        if (!fl || !sy_terms_add_expr(ctx, &P, t, fl)) goto done;
        res = sy_terms_build(ctx, &P);
        goto done;
    }
    /* constant: FloorDiv(A + q*k + r, k) = q + FloorDiv(A + r, k), 0 <= r < k */
    fmpz_fdiv_qr(q, r, c, k);
    if (!fmpz_is_zero(q) && !sy_rule_on(ctx, SY_R_FLOORDIV_CONST_SPLIT)) {
        fmpz_zero(q);
        fmpz_set(r, c);
    }
    const sy_expr *num = sy_add_fmpz(ctx, rexpr, r);
    if (!num) goto done;
    const sy_expr *node;
    if (const_quotient(num, k, t) && sy_rule_on(ctx, SY_R_FLOORDIV_RANGE_CONST)) node = sy_int_fmpz(ctx, t);
    else node = raw_node(ctx, SY_EXPR_FLOORDIV, num, k);
    if (!node) goto done;
    fmpz_set_si(t, sign);
    fmpz_addmul(P.c0, t, q);
    if (!sy_terms_add_expr(ctx, &P, t, node)) goto done;
    res = sy_terms_build(ctx, &P);
done:
    sy_terms_clear(ctx, &P);
    sy_terms_clear(ctx, &R);
    fmpz_clear(k); fmpz_clear(c); fmpz_clear(q); fmpz_clear(r); fmpz_clear(g); fmpz_clear(t);
    return res;
}

/* ---------------------------------------------------------------- Mod by a constant */

/* Mod(u, j) with k | j is congruent to u modulo k: inside Mod(., k) replace it
 * by u. Returns the rewritten numerator (or n itself). */
static const sy_expr *strip_inner_mods(sy_ctx *ctx, const sy_expr *n, const fmpz_t k, const sy_expr *ksym)
{
    bool any = false;
    for (size_t i = 0; i < nc_count(n) && !any; i++) {
        const fmpz *ci;
        const sy_expr *m = nc_term(n, i, &ci);
        if (m->kind != SY_EXPR_MOD) continue;
        const sy_expr *j = m->args[1];
        if (ksym ? (j == ksym) : (j->kind == SY_EXPR_INT && fmpz_divisible(&j->u.value, k))) any = true;
    }
    if (!any) return n;
    sy_terms ts;
    sy_terms_init(&ts);
    fmpz_t c0;
    fmpz_init(c0);
    sy_const_term(c0, n);
    fmpz_add(ts.c0, ts.c0, c0);
    fmpz_clear(c0);
    for (size_t i = 0; i < nc_count(n); i++) {
        const fmpz *ci;
        const sy_expr *m = nc_term(n, i, &ci);
        const sy_expr *use = m;
        if (m->kind == SY_EXPR_MOD) {
            const sy_expr *j = m->args[1];
            if (ksym ? (j == ksym) : (j->kind == SY_EXPR_INT && fmpz_divisible(&j->u.value, k))) use = m->args[0];
        }
        if (!sy_terms_add_expr(ctx, &ts, ci, use)) {
            sy_terms_clear(ctx, &ts);
            return NULL;
        }
    }
    return sy_terms_build(ctx, &ts);
}

static const sy_expr *mod_const(sy_ctx *ctx, const sy_expr *n, const fmpz_t k_in)
{
    fmpz_t k, c, g, t;
    fmpz_init_set(k, k_in);
    fmpz_init(c); fmpz_init(g); fmpz_init(t);
    const sy_expr *res = NULL;
    sy_terms R;
    sy_terms_init(&R);
    int outer_sign = 1;

    if (fmpz_sgn(k) < 0) {
        if (!sy_rule_on(ctx, SY_R_MOD_NEG_DIVISOR)) { res = raw_node(ctx, SY_EXPR_MOD, n, k); goto done; }
        n = sy_expr_neg(ctx, n); /* Mod(a, -k) = -Mod(-a, k) */
        fmpz_neg(k, k);
        outer_sign = -1;
        if (!n) goto done;
    }
    if (fmpz_is_one(k)) {
        res = sy_rule_on(ctx, SY_R_MOD_ONE) ? sy_expr_int_si(ctx, 0) : raw_node(ctx, SY_EXPR_MOD, n, k);
        goto done;
    }
    /* Mod(u, j) with k | j inside: replace by u (repeat: replacements can expose more). */
    for (int iter = 0; iter < 8; iter++) {
        const sy_expr *n2 = strip_inner_mods(ctx, n, k, NULL);
        if (!n2) goto done;
        if (n2 == n || !sy_rule_on(ctx, SY_R_MOD_STRIP_INNER)) break;
        n = n2;
    }
    if (n->kind == SY_EXPR_INT) {
        if (!sy_rule_on(ctx, SY_R_MOD_FOLD)) { res = raw_node(ctx, SY_EXPR_MOD, n, k); goto done; }
        fmpz_fdiv_r(t, &n->u.value, k);
        res = sy_int_fmpz(ctx, t);
        goto done;
    }
    /* reduce coefficients into [0, k): Mod(a + k*b, k) = Mod(a, k) */
    bool reduce = false;
    for (size_t i = 0; i < nc_count(n) && !reduce; i++) {
        const fmpz *ci;
        nc_term(n, i, &ci);
        reduce = fmpz_sgn(ci) < 0 || fmpz_cmp(ci, k) >= 0;
    }
    if (reduce) reduce = sy_rule_on(ctx, SY_R_MOD_REDUCE_COEFF);
    for (size_t i = 0; i < nc_count(n); i++) {
        const fmpz *ci;
        const sy_expr *m = nc_term(n, i, &ci);
        if (reduce) fmpz_fdiv_r(t, ci, k);
        else fmpz_set(t, ci);
        if (!fmpz_is_zero(t) && !sy_terms_push(ctx, &R, t, m)) goto done;
    }
    sy_const_term(c, n);
    if ((fmpz_sgn(c) < 0 || fmpz_cmp(c, k) >= 0) && sy_rule_on(ctx, SY_R_MOD_REDUCE_CONST)) fmpz_fdiv_r(c, c, k);
    if (R.n == 0) {
        if (sy_rule_on(ctx, SY_R_MOD_FOLD)) {
            fmpz_fdiv_r(c, c, k);
            res = sy_int_fmpz(ctx, c);
        } else {
            res = raw_node(ctx, SY_EXPR_MOD, sy_int_fmpz(ctx, c), k);
        }
        goto done;
    }
    /* Mod(g*A + c, g*m) = g*Mod(A + FloorDiv(c, g), m) + Mod(c, g) */
    fmpz_set(g, k);
    for (size_t i = 0; i < R.n; i++) fmpz_gcd(g, g, &R.t[i].coef);
    if (!fmpz_is_one(g) && sy_rule_on(ctx, SY_R_MOD_CONTENT)) {
        for (size_t i = 0; i < R.n; i++) fmpz_divexact(&R.t[i].coef, &R.t[i].coef, g);
        fmpz_fdiv_q(R.c0, c, g);
        fmpz_fdiv_r(c, c, g);
        fmpz_divexact(t, k, g);
        const sy_expr *a = sy_terms_build(ctx, &R);
        const sy_expr *inner = a ? mod_const(ctx, a, t) : NULL;
        if (!inner) goto done;
        const sy_expr *s = sy_add_fmpz(ctx, sy_scale_fmpz(ctx, inner, g), c);
        res = s;
        goto done;
    }
    fmpz_set(R.c0, c);
    const sy_expr *num = sy_terms_build(ctx, &R);
    if (!num) goto done;
    /* intrinsic range within one period: Mod(a, k) = a - q*k */
    if (const_quotient(num, k, t) && sy_rule_on(ctx, SY_R_MOD_RANGE_CONST)) {
        fmpz_mul(t, t, k);
        fmpz_neg(t, t);
        res = sy_add_fmpz(ctx, num, t);
        goto done;
    }
    res = raw_node(ctx, SY_EXPR_MOD, num, k);
done:
    if (res && outer_sign < 0) res = sy_expr_neg(ctx, res);
    sy_terms_clear(ctx, &R);
    fmpz_clear(k); fmpz_clear(c); fmpz_clear(g); fmpz_clear(t);
    return res;
}

/* ---------------------------------------------------------------- symbolic divisors */

/* Exponent of atom x in monomial m. */
static uint64_t mono_exp_of(const sy_expr *m, const sy_expr *x)
{
    uint32_t nf = m->kind == SY_EXPR_MUL ? m->n : 1;
    for (uint32_t i = 0; i < nf; i++) {
        const sy_expr *f = m->kind == SY_EXPR_MUL ? m->args[i] : m;
        const sy_expr *base = f->kind == SY_EXPR_POW ? f->args[0] : f;
        if (base == x) return f->kind == SY_EXPR_POW ? f->u.exp : 1;
    }
    return 0;
}

/* m / d for monomials if d divides m: returns the quotient (the integer 1 when
 * equal) or NULL with *ok = false when not divisible. */
static const sy_expr *mono_div(sy_ctx *ctx, const sy_expr *m, const sy_expr *d, bool *ok)
{
    *ok = false;
    uint32_t nd = d->kind == SY_EXPR_MUL ? d->n : 1;
    for (uint32_t i = 0; i < nd; i++) {
        const sy_expr *f = d->kind == SY_EXPR_MUL ? d->args[i] : d;
        const sy_expr *base = f->kind == SY_EXPR_POW ? f->args[0] : f;
        uint64_t e = f->kind == SY_EXPR_POW ? f->u.exp : 1;
        if (mono_exp_of(m, base) < e) return NULL;
    }
    *ok = true;
    /* quotient: multiply out the remaining factors */
    const sy_expr *q = sy_expr_int_si(ctx, 1);
    uint32_t nm = m->kind == SY_EXPR_MUL ? m->n : 1;
    for (uint32_t i = 0; i < nm && q; i++) {
        const sy_expr *f = m->kind == SY_EXPR_MUL ? m->args[i] : m;
        const sy_expr *base = f->kind == SY_EXPR_POW ? f->args[0] : f;
        uint64_t e = f->kind == SY_EXPR_POW ? f->u.exp : 1;
        uint64_t rem = e - mono_exp_of(d, base);
        if (rem) q = sy_expr_mul(ctx, q, sy_expr_pow_ui(ctx, base, rem));
    }
    return q;
}

typedef enum { DIV_FLOOR, DIV_CEIL, DIV_MOD } divkind;

/* Split n = D*Q + R for a single-term divisor c*m: terms of n divisible by it
 * go to Q. */
static bool pull_out(sy_ctx *ctx, const sy_expr *n, const sy_expr *d, const sy_expr **Q, const sy_expr **R)
{
    *Q = sy_expr_int_si(ctx, 0);
    *R = n;
    if (nc_count(d) != 1 || d->kind == SY_EXPR_INT) return true;
    fmpz_t c0;
    fmpz_init(c0);
    sy_const_term(c0, d);
    bool single = fmpz_is_zero(c0);
    fmpz_clear(c0);
    if (!single) return true;
    const fmpz *dc;
    const sy_expr *dm = nc_term(d, 0, &dc);
    sy_terms q, r;
    sy_terms_init(&q);
    sy_terms_init(&r);
    fmpz_t t;
    fmpz_init(t);
    bool okall = true;
    sy_const_term(r.c0, n);
    for (size_t i = 0; i < nc_count(n) && okall; i++) {
        const fmpz *ci;
        const sy_expr *m = nc_term(n, i, &ci);
        bool ok = false;
        const sy_expr *mq = fmpz_divisible(ci, dc) ? mono_div(ctx, m, dm, &ok) : NULL;
        if (ok && !mq) okall = false;
        if (ok && mq) {
            fmpz_divexact(t, ci, dc);
            okall = sy_terms_add_expr(ctx, &q, t, mq);
        } else if (okall) {
            okall = sy_terms_push(ctx, &r, ci, m);
        }
    }
    fmpz_clear(t);
    if (!okall) {
        sy_terms_clear(ctx, &q);
        sy_terms_clear(ctx, &r);
        return false;
    }
    *Q = sy_terms_build(ctx, &q);
    *R = sy_terms_build(ctx, &r);
    sy_terms_clear(ctx, &q);
    sy_terms_clear(ctx, &r);
    return *Q && *R;
}

/* The rule ids of one step, by divkind (DIV_FLOOR, DIV_CEIL, DIV_MOD). */
static const sy_rule_id R_NEG_DIVISOR[3] = {SY_R_FLOORDIV_NEG_DIVISOR, SY_R_CEILDIV_NEG_DIVISOR, SY_R_MOD_NEG_DIVISOR};
static const sy_rule_id R_ZERO[3] = {SY_R_FLOORDIV_ZERO, SY_R_CEILDIV_ZERO, SY_R_MOD_ZERO};
static const sy_rule_id R_CONTENT[3] = {SY_R_FLOORDIV_CONTENT_SYM, SY_R_CEILDIV_CONTENT_SYM, SY_R_MOD_CONTENT_SYM};
static const sy_rule_id R_EXACT[3] = {SY_R_FLOORDIV_EXACT, SY_R_CEILDIV_EXACT, SY_R_MOD_EXACT};
static const sy_rule_id R_GCD[3] = {SY_R_FLOORDIV_POLY_GCD, SY_R_CEILDIV_POLY_GCD, SY_R_MOD_POLY_GCD};
static const sy_rule_id R_PULL[3] = {SY_R_FLOORDIV_PULL_OUT_SYM, SY_R_CEILDIV_PULL_OUT_SYM, SY_R_MOD_PULL_OUT_SYM};

/* The point FloorDiv/CeilDiv(a, b) takes on a box a in [alo, ahi], b in
 * [blo, bhi] with finite ends and 0 outside [blo, bhi]: the quotient is
 * monotone in each argument there, so it is a point iff the four corners
 * agree (rules FLOORDIV_RANGE_SYM, CEILDIV_RANGE_SYM). */
static bool corner_point(const sy_expr *n, const sy_expr *d, bool ceil, fmpz_t out)
{
    if (n->lo == SY_NEG_INF || n->hi == SY_POS_INF || d->lo == SY_NEG_INF || d->hi == SY_POS_INF) return false;
    if (!(d->lo > 0 || d->hi < 0)) return false;
    int64_t a[2] = {n->lo, n->hi}, b[2] = {d->lo, d->hi};
    fmpz_t x, y, q;
    fmpz_init(x); fmpz_init(y); fmpz_init(q);
    bool same = true;
    for (int i = 0; i < 2 && same; i++)
        for (int j = 0; j < 2 && same; j++) {
            fmpz_set_si(x, a[i]);
            fmpz_set_si(y, b[j]);
            if (ceil) fmpz_cdiv_q(q, x, y);
            else fmpz_fdiv_q(q, x, y);
            if (i == 0 && j == 0) fmpz_set(out, q);
            else same = fmpz_equal(out, q);
        }
    fmpz_clear(x); fmpz_clear(y); fmpz_clear(q);
    return same;
}

static const sy_expr *div_sym(sy_ctx *ctx, const sy_expr *n, const sy_expr *d, divkind kind)
{
    if (!n || !d) return NULL;
    /* divisor sign: FloorDiv(a, -d) = FloorDiv(-a, d); CeilDiv likewise;
     * Mod(a, -d) = -Mod(-a, d) */
    if (sy_leading_sign(d) < 0 && sy_rule_on(ctx, R_NEG_DIVISOR[kind])) {
        const sy_expr *r = div_sym(ctx, sy_expr_neg(ctx, n), sy_expr_neg(ctx, d), kind);
        return kind == DIV_MOD ? sy_expr_neg(ctx, r) : r;
    }
    if (!n || !d) return NULL;
    sy_expr_kind nk = kind == DIV_FLOOR ? SY_EXPR_FLOORDIV : (kind == DIV_CEIL ? SY_EXPR_CEILDIV : SY_EXPR_MOD);
    if (sy_is_zero(n) && sy_rule_on(ctx, R_ZERO[kind])) return n;
    /* integer content: Op(g*a, g*d) = Op(a, d) for floor/ceil, g*Mod(a, d) for Mod */
    fmpz_t gn, gd;
    fmpz_init(gn);
    fmpz_init(gd);
    sy_content(gn, n);
    sy_content(gd, d);
    fmpz_gcd(gn, gn, gd);
    const sy_expr *scale = NULL; /* Mod: factor to multiply back */
    if (!fmpz_is_one(gn) && !fmpz_is_zero(gn) && sy_rule_on(ctx, R_CONTENT[kind])) {
        n = sy_divexact_fmpz(ctx, n, gn);
        d = sy_divexact_fmpz(ctx, d, gn);
        if (kind == DIV_MOD) scale = sy_int_fmpz(ctx, gn);
    }
    fmpz_clear(gn);
    fmpz_clear(gd);
    if (!n || !d) return NULL;
    /* exact division */
    const sy_expr *q = NULL;
    int dv = sy_poly_divides_raw(ctx, n, d, &q);
    if (dv < 0) return NULL;
    if (dv > 0 && sy_rule_on(ctx, R_EXACT[kind])) {
        const sy_expr *r = kind == DIV_MOD ? sy_expr_int_si(ctx, 0) : q;
        return scale ? sy_expr_mul(ctx, scale, r) : r;
    }
    /* polynomial gcd: Op(G*a, G*d) = Op(a, d) (G*Mod(a, d) for Mod), G != 0 */
    if (d->kind != SY_EXPR_INT && n->kind != SY_EXPR_INT) {
        const sy_expr *G = sy_poly_gcd_raw(ctx, n, d);
        if (!G) return NULL;
        if (G->kind != SY_EXPR_INT && sy_rule_on(ctx, R_GCD[kind])) {
            const sy_expr *n2 = NULL, *d2 = NULL;
            if (sy_poly_divides_raw(ctx, n, G, &n2) != 1 || sy_poly_divides_raw(ctx, d, G, &d2) != 1)
                return sy_fail(ctx, SY_ERROR, "internal: polynomial gcd does not divide its operands");
            n = n2;
            d = d2;
            if (kind == DIV_MOD) scale = scale ? sy_expr_mul(ctx, scale, G) : G;
            if (sy_leading_sign(d) < 0 && sy_rule_on(ctx, R_NEG_DIVISOR[kind])) { /* G may carry the sign */
                n = sy_expr_neg(ctx, n);
                d = sy_expr_neg(ctx, d);
                if (kind == DIV_MOD) scale = sy_expr_neg(ctx, scale);
            }
        }
    }
    if (!n || !d) return NULL;
    const sy_expr *res;
    if (d->kind == SY_EXPR_INT && !sy_is_zero(d)) {
        if (kind == DIV_FLOOR) res = floordiv_const(ctx, n, &d->u.value);
        else if (kind == DIV_MOD) res = mod_const(ctx, n, &d->u.value);
        else if (sy_rule_on(ctx, SY_R_CEILDIV_TO_FLOORDIV))
            res = sy_expr_neg(ctx, floordiv_const(ctx, sy_expr_neg(ctx, n), &d->u.value));
        else res = sy_node2(ctx, SY_EXPR_CEILDIV, n, d);
        return scale ? sy_expr_mul(ctx, scale, res) : res;
    }
    /* Mod(u, d) inside Mod(., d) is congruent to u */
    if (kind == DIV_MOD) {
        const sy_expr *n2 = strip_inner_mods(ctx, n, NULL, d);
        if (!n2) return NULL;
        if (n2 != n && sy_rule_on(ctx, SY_R_MOD_STRIP_INNER_SYM)) n = n2;
    }
    /* pull out multiples of a single-term divisor */
    const sy_expr *Q, *R;
    if (!pull_out(ctx, n, d, &Q, &R)) return NULL;
    if (!sy_is_zero(Q) && !sy_rule_on(ctx, R_PULL[kind])) {
        Q = sy_expr_int_si(ctx, 0);
        R = n;
    }
    n = R;
    int sign = 1;
    if (sy_is_zero(n) && sy_rule_on(ctx, R_ZERO[kind])) {
        res = sy_expr_int_si(ctx, 0);
    } else {
        /* numerator sign: FloorDiv(-a, d) = -CeilDiv(a, d), CeilDiv(-a, d) = -FloorDiv(a, d) */
        if (kind != DIV_MOD && sy_leading_sign(n) < 0 &&
            sy_rule_on(ctx, kind == DIV_FLOOR ? SY_R_FLOORDIV_NEG_NUMERATOR_SYM : SY_R_CEILDIV_NEG_NUMERATOR_SYM)) {
            sign = -1;
            n = sy_expr_neg(ctx, n);
            nk = kind == DIV_FLOOR ? SY_EXPR_CEILDIV : SY_EXPR_FLOORDIV;
        }
        if (!n) return NULL;
        /* constant by intrinsic bounds */
        fmpz_t pt;
        fmpz_init(pt);
        if (nk != SY_EXPR_MOD && corner_point(n, d, nk == SY_EXPR_CEILDIV, pt) &&
            sy_rule_on(ctx, nk == SY_EXPR_FLOORDIV ? SY_R_FLOORDIV_RANGE_SYM : SY_R_CEILDIV_RANGE_SYM)) {
            res = sy_int_fmpz(ctx, pt);
        } else if (nk == SY_EXPR_MOD && n->lo != SY_NEG_INF && n->lo >= 0 && n->hi != SY_POS_INF &&
                   d->lo != SY_NEG_INF && n->hi < d->lo && sy_rule_on(ctx, SY_R_MOD_SMALL)) {
            res = n; /* 0 <= n < d everywhere */
        } else {
            res = sy_node2(ctx, nk, n, d);
        }
        fmpz_clear(pt);
    }
    if (!res) return NULL;
    if (sign < 0) res = sy_expr_neg(ctx, res);
    if (kind != DIV_MOD) res = sy_expr_add(ctx, Q, res);
    return scale ? sy_expr_mul(ctx, scale, res) : res;
}

/* ---------------------------------------------------------------- public */

static bool div_args(sy_ctx *ctx, const sy_expr *a, const sy_expr *b, const char *name)
{
    if (!sy_check_int(ctx, a, name) || !sy_check_int(ctx, b, name)) return false;
    if (sy_is_zero(b)) {
        char *sa = sy_expr_print(ctx, a, SY_PRINT_CANONICAL);
        sy_fail(ctx, SY_EDIVZERO, "%s(%s, 0): division by zero", name, sa ? sa : "?");
        sy_str_free(ctx, sa);
        return false;
    }
    return true;
}

static const sy_expr *sy_expr_floordiv_work(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    if (!ctx || !a || !b) return NULL;
    if (!div_args(ctx, a, b, "FloorDiv")) return NULL;
    if (b->kind == SY_EXPR_INT) return floordiv_const(ctx, a, &b->u.value);
    return div_sym(ctx, a, b, DIV_FLOOR);
}

const sy_expr *sy_expr_floordiv(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    if (!ctx) return NULL;
    sy_op_begin(ctx, true);
    return sy_op_end_e(ctx, sy_expr_floordiv_work(ctx, a, b));
}

static const sy_expr *sy_expr_mod_work(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    if (!ctx || !a || !b) return NULL;
    if (!div_args(ctx, a, b, "Mod")) return NULL;
    if (b->kind == SY_EXPR_INT) return mod_const(ctx, a, &b->u.value);
    return div_sym(ctx, a, b, DIV_MOD);
}

const sy_expr *sy_expr_mod(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    if (!ctx) return NULL;
    sy_op_begin(ctx, true);
    return sy_op_end_e(ctx, sy_expr_mod_work(ctx, a, b));
}

static const sy_expr *sy_expr_ceildiv_work(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    if (!ctx || !a || !b) return NULL;
    if (!div_args(ctx, a, b, "CeilDiv")) return NULL;
    if (b->kind == SY_EXPR_INT) { /* CeilDiv(a, k) = -FloorDiv(-a, k) */
        if (!sy_rule_on(ctx, SY_R_CEILDIV_TO_FLOORDIV)) return sy_node2(ctx, SY_EXPR_CEILDIV, a, b);
        return sy_expr_neg(ctx, floordiv_const(ctx, sy_expr_neg(ctx, a), &b->u.value));
    }
    return div_sym(ctx, a, b, DIV_CEIL);
}

const sy_expr *sy_expr_ceildiv(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    if (!ctx) return NULL;
    sy_op_begin(ctx, true);
    return sy_op_end_e(ctx, sy_expr_ceildiv_work(ctx, a, b));
}

const sy_expr *sy_expr_add_pad(sy_ctx *ctx, const sy_expr *d, const sy_expr *p)
{
    int64_t m;
    if (!d || !p) return NULL;
    if (sy_expr_kind_of(p) == SY_EXPR_MOD && sy_expr_get_si(sy_expr_arg(p, 1), &m) == SY_OK && m > 0) {
        const sy_expr *km = sy_expr_int_si(ctx, m);
        const sy_expr *r = sy_expr_mod(ctx, sy_expr_add(ctx, d, sy_expr_arg(p, 0)), km);
        if (r && r == sy_expr_int_si(ctx, 0)) return sy_expr_mul_si(ctx, sy_expr_ceildiv(ctx, d, km), m);
        if (!r) sy_ctx_reset_error(ctx);
    }
    return sy_expr_add(ctx, d, p);
}

/* ---------------------------------------------------------------- halves in a sum */

/* Rule ADD_HALVES (sy_terms_build): the atoms FloorDiv(A + c, 2) and Mod(A + c, 2) whose
 * numerators have the same monomials, each with an odd coefficient (the canonical FloorDiv and
 * Mod by 2 have +-1 and 1), are affine in one of them with integer coefficients. With B the sum
 * of those monomials (coefficient 1), F = FloorDiv(B, 2), A = B + 2P (P integral: the
 * coefficients are odd) and c = 2q + r, 0 <= r < 2:
 *   FloorDiv(A + c, 2) = F + P + q                (r = 0)
 *                      = B - F + P + q            (r = 1: FloorDiv(B + 1, 2) = B - FloorDiv(B, 2))
 *   Mod(A + c, 2)      = B - 2F                   (r = 0: Mod(A, 2) = Mod(B, 2) = B - 2F)
 *                      = 1 - B + 2F               (r = 1)
 * When a sum holds two or more of them, they are replaced by one: cF*F, written
 * (cF/2)*B - (cF/2)*Mod(B, 2) when cF is even. So 16*CeilDiv(n, 2) - 16*FloorDiv(n, 2)
 * (= 16*FloorDiv(n + 1, 2) - 16*FloorDiv(n, 2)) is 16*Mod(n, 2), and
 * FloorDiv(n, 2) + CeilDiv(n, 2) is n. */

/* An atom of the family: FloorDiv or Mod by 2 of a non-constant polynomial whose
 * non-constant coefficients are all odd. */
static bool half_atom(const sy_expr *m)
{
    if (m->kind != SY_EXPR_FLOORDIV && m->kind != SY_EXPR_MOD) return false;
    const sy_expr *k = m->args[1], *n = m->args[0];
    if (k->kind != SY_EXPR_INT || fmpz_cmp_ui(&k->u.value, 2) != 0 || n->kind == SY_EXPR_INT) return false;
    for (size_t i = 0, nt = nc_count(n); i < nt; i++) {
        const fmpz *c;
        nc_term(n, i, &c);
        if (fmpz_is_even(c)) return false;
    }
    return true;
}

/* Order of the numerators' monomial lists (content order, never addresses). */
static int half_key_cmp(const sy_expr *a, const sy_expr *b)
{
    const sy_expr *na = a->args[0], *nb = b->args[0];
    size_t ca = nc_count(na), cb = nc_count(nb);
    for (size_t i = 0; i < ca && i < cb; i++) {
        const fmpz *c;
        int r = sy_mono_cmp(nc_term(na, i, &c), nc_term(nb, i, &c));
        if (r) return r;
    }
    return ca < cb ? -1 : ca > cb;
}

typedef struct half_ref {
    const sy_expr *atom;
    size_t i; /* index in the term list */
} half_ref;

static int half_ref_cmp(const void *x, const void *y)
{
    const half_ref *a = x, *b = y;
    int r = half_key_cmp(a->atom, b->atom);
    if (r) return r;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Add coef * (the member's part outside F) to nt, and its F-coefficient times coef to cF. */
static bool half_member(sy_ctx *ctx, sy_terms *nt, fmpz_t cF, const fmpz_t coef, const sy_expr *atom)
{
    const sy_expr *num = atom->args[0];
    fmpz_t c, q, r, t;
    fmpz_init(c); fmpz_init(q); fmpz_init(r); fmpz_init(t);
    sy_const_term(c, num);
    fmpz_fdiv_qr(q, r, c, &atom->args[1]->u.value);
    bool odd = !fmpz_is_zero(r), floor = atom->kind == SY_EXPR_FLOORDIV, ok = true;
    /* per monomial of A (coefficient a): FloorDiv r=0: (a-1)/2; r=1: (a+1)/2; Mod r=0: 1; r=1: -1 */
    for (size_t i = 0, nn = nc_count(num); ok && i < nn; i++) {
        const fmpz *a;
        const sy_expr *m = nc_term(num, i, &a);
        if (floor) {
            if (odd) fmpz_add_ui(t, a, 1);
            else fmpz_sub_ui(t, a, 1);
            fmpz_fdiv_q_2exp(t, t, 1);
        } else {
            fmpz_set_si(t, odd ? -1 : 1);
        }
        fmpz_mul(t, t, coef);
        if (!fmpz_is_zero(t)) ok = sy_terms_push(ctx, nt, t, m);
    }
    /* constant: FloorDiv q; Mod r */
    fmpz_addmul(nt->c0, coef, floor ? q : r);
    /* F: FloorDiv +1 / -1; Mod -2 / +2 */
    fmpz_set_si(t, floor ? (odd ? -1 : 1) : (odd ? 2 : -2));
    fmpz_addmul(cF, t, coef);
    fmpz_clear(c); fmpz_clear(q); fmpz_clear(r); fmpz_clear(t);
    return ok;
}

/* The representative of a group: cF * FloorDiv(B, 2), or (cF/2)*B - (cF/2)*Mod(B, 2) for even cF. */
static bool half_rep(sy_ctx *ctx, sy_terms *nt, const fmpz_t cF, const sy_expr *atom)
{
    if (fmpz_is_zero(cF)) return true;
    const sy_expr *num = atom->args[0], *two = atom->args[1];
    sy_terms bt;
    sy_terms_init(&bt);
    fmpz_t one, h;
    fmpz_init_set_ui(one, 1);
    fmpz_init(h);
    bool ok = true;
    for (size_t i = 0, nn = nc_count(num); ok && i < nn; i++) {
        const fmpz *a;
        ok = sy_terms_push(ctx, &bt, one, nc_term(num, i, &a));
    }
    const sy_expr *B = ok ? sy_terms_build(ctx, &bt) : NULL;
    sy_terms_clear(ctx, &bt);
    if (B && fmpz_is_even(cF)) {
        fmpz_fdiv_q_2exp(h, cF, 1);
        const sy_expr *M = sy_expr_mod(ctx, B, two);
        ok = M && sy_terms_add_expr(ctx, nt, h, B);
        fmpz_neg(h, h);
        ok = ok && sy_terms_add_expr(ctx, nt, h, M);
    } else if (B) {
        const sy_expr *F = sy_expr_floordiv(ctx, B, two);
        ok = F && sy_terms_add_expr(ctx, nt, cF, F);
    } else {
        ok = false;
    }
    fmpz_clear(one);
    fmpz_clear(h);
    return ok;
}

int sy_terms_halves(sy_ctx *ctx, sy_terms *ts, size_t k, const sy_expr **res)
{
    size_t h = 0;
    for (size_t i = 0; i < k; i++) h += half_atom(ts->t[i].mono);
    if (h < 2 || ctx->halves_depth >= 8) return 0;
    half_ref stackbuf[16], *hr = h <= 16 ? stackbuf : sy_alloc(ctx, h * sizeof *hr);
    if (!hr) {
        sy_oom(ctx);
        return -1;
    }
    h = 0;
    for (size_t i = 0; i < k; i++)
        if (half_atom(ts->t[i].mono)) hr[h++] = (half_ref){ts->t[i].mono, i};
    qsort(hr, h, sizeof *hr, half_ref_cmp);
    bool any = false;
    for (size_t j = 1; j < h && !any; j++) any = half_key_cmp(hr[j - 1].atom, hr[j].atom) == 0;
    int ret = 0;
    if (any && sy_rule_on(ctx, SY_R_ADD_HALVES)) {
        ctx->halves_depth++;
        sy_terms nt;
        sy_terms_init(&nt);
        fmpz_set(nt.c0, ts->c0);
        bool ok = true;
        /* the terms outside a group of two or more, as they are */
        bool *grouped = sy_alloc(ctx, k * sizeof *grouped);
        if (!grouped) ok = false;
        for (size_t i = 0; ok && i < k; i++) grouped[i] = false;
        for (size_t j = 0; ok && j < h;) {
            size_t e = j + 1;
            while (e < h && half_key_cmp(hr[j].atom, hr[e].atom) == 0) e++;
            if (e - j >= 2) {
                fmpz_t cF;
                fmpz_init(cF);
                for (size_t u = j; ok && u < e; u++) {
                    grouped[hr[u].i] = true;
                    ok = half_member(ctx, &nt, cF, &ts->t[hr[u].i].coef, hr[u].atom);
                }
                ok = ok && half_rep(ctx, &nt, cF, hr[j].atom);
                fmpz_clear(cF);
            }
            j = e;
        }
        for (size_t i = 0; ok && i < k; i++)
            if (!grouped[i]) ok = sy_terms_push(ctx, &nt, &ts->t[i].coef, ts->t[i].mono);
        if (grouped) sy_dealloc(ctx, grouped, k * sizeof *grouped);
        if (!grouped) sy_oom(ctx);
        *res = ok ? sy_terms_build(ctx, &nt) : NULL;
        sy_terms_clear(ctx, &nt);
        ctx->halves_depth--;
        ret = *res ? 1 : -1;
    }
    if (hr != stackbuf) sy_dealloc(ctx, hr, h * sizeof *hr);
    return ret;
}
