/* Simplification under facts (sy_simplify): range-aware rewriting of each
 * node, with the decisions it asks of the layers in decide.c. See
 * docs/decision.md, "Simplification". */
#include "algebra/decide_private.h"

/* ------------------------------------------------------------------ simplify */

static bool decided(sy_facts *f, const sy_expr *rel)
{
    if (!rel) return false;
    if (rel->kind == SY_EXPR_TRUE) return true;
    if (rel->kind == SY_EXPR_FALSE) return false;
    int l = 0;
    return decide_rec(f, rel, &l) == SY_TRUTH_TRUE;
}

/* q == Min(q, a, b, ...) is q <= a and q <= b ...; q == Max(q, a, ...) is a <= q and ...
 * (SIMP_EQ_MIN_ARG / SIMP_EQ_MAX_ARG, by associativity for more arguments): the relation
 * ONNX's related-example note printed as `x_1 == Min(16, x_1)` (issue 38). e is d == 0 with d =
 * R -+ M (M the Min / Max, coefficient -1 or +1): q is R or -R, and must be an argument of M. */
static const sy_expr *eq_minmax_arg(sy_ctx *ctx, const sy_expr *e)
{
    const sy_expr *d = e->args[0];
    if (d->kind != SY_EXPR_ADD) return e;
    for (uint32_t i = 0; i < d->n; i++) {
        const sy_expr *m = sy_expr_arg(d, i), *c = sy_expr_add_coeff(ctx, d, i);
        if ((m->kind != SY_EXPR_MIN && m->kind != SY_EXPR_MAX) || m->n > 8 || !c || c->kind != SY_EXPR_INT ||
            !fmpz_is_pm1(&c->u.value))
            continue;
        bool minus = fmpz_sgn(&c->u.value) < 0;
        /* d = R + c*M: d == 0 is M == -R / c */
        const sy_expr *r = sy_expr_sub(ctx, d, sy_expr_mul(ctx, c, m));
        const sy_expr *q = minus ? r : sy_expr_neg(ctx, r);
        if (!q) return NULL;
        uint32_t at = m->n;
        for (uint32_t j = 0; j < m->n && at == m->n; j++)
            if (m->args[j] == q) at = j;
        if (at == m->n || !sy_rule_on(ctx, m->kind == SY_EXPR_MIN ? SY_R_SIMP_EQ_MIN_ARG : SY_R_SIMP_EQ_MAX_ARG)) continue;
        const sy_expr *v[8];
        size_t k = 0;
        for (uint32_t j = 0; j < m->n; j++)
            if (j != at) v[k++] = m->kind == SY_EXPR_MIN ? sy_expr_le(ctx, q, m->args[j]) : sy_expr_le(ctx, m->args[j], q);
        return sy_expr_and_n(ctx, k, v);
    }
    return e;
}

static const sy_expr *simp_node(sy_facts *f, const sy_expr *e)
{
    sy_ctx *ctx = f->ctx;
    const sy_expr *zero = sy_expr_int_si(ctx, 0);
    switch (e->kind) {
    case SY_EXPR_MOD: {
        const sy_expr *x = e->args[0], *k = e->args[1];
        /* 0 <= x < k  ->  x */
        if (decided(f, sy_expr_ge(ctx, k, sy_expr_int_si(ctx, 1))) && decided(f, sy_expr_ge(ctx, x, zero)) &&
            decided(f, sy_expr_lt(ctx, x, k)) && sy_rule_on(ctx, SY_R_SIMP_MOD_SMALL))
            return x;
        if (k->kind == SY_EXPR_INT) { /* x within one period */
            sy_ival iv;
            sy_ival_init(&iv);
            bctx B = {f, NULL, NULL};
            bound_rec(&B, x, &iv);
            const sy_expr *r = NULL;
            if (!iv.lo_inf && !iv.hi_inf) {
                fmpz_t q1, q2;
                fmpz_init(q1);
                fmpz_init(q2);
                fmpz_fdiv_q(q1, iv.lo, &k->u.value);
                fmpz_fdiv_q(q2, iv.hi, &k->u.value);
                if (fmpz_equal(q1, q2) && fmpz_sgn(&k->u.value) > 0 && sy_rule_on(ctx, SY_R_SIMP_MOD_PERIOD)) {
                    fmpz_mul(q1, q1, &k->u.value);
                    fmpz_neg(q1, q1);
                    r = sy_add_fmpz(ctx, x, q1);
                }
                fmpz_clear(q1);
                fmpz_clear(q2);
            }
            sy_ival_clear(&iv);
            if (r) return r;
        }
        return e;
    }
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_CEILDIV: {
        sy_ival iv;
        sy_ival_init(&iv);
        bctx B = {f, NULL, NULL};
        bound_rec(&B, e, &iv);
        const sy_expr *r = NULL;
        if (!B.culprit && sy_ival_is_point(&iv) &&
            sy_rule_on(ctx, e->kind == SY_EXPR_FLOORDIV ? SY_R_SIMP_FLOORDIV_POINT : SY_R_SIMP_CEILDIV_POINT))
            r = sy_int_fmpz(ctx, iv.lo);
        sy_ival_clear(&iv);
        if (r) return r;
        /* FloorDiv(x, k) -> 0 when 0 <= x < k (symbolic k) */
        const sy_expr *x = e->args[0], *k = e->args[1];
        if (e->kind == SY_EXPR_FLOORDIV && decided(f, sy_expr_ge(ctx, k, sy_expr_int_si(ctx, 1))) &&
            decided(f, sy_expr_ge(ctx, x, zero)) && decided(f, sy_expr_lt(ctx, x, k)) &&
            sy_rule_on(ctx, SY_R_SIMP_FLOORDIV_SMALL))
            return zero;
        return e;
    }
    case SY_EXPR_MIN:
    case SY_EXPR_MAX: {
        if (e->n > 8) return e;
        bool dead[8] = {false};
        bool changed = false;
        for (uint32_t i = 0; i < e->n; i++) {
            for (uint32_t j = i + 1; j < e->n && !dead[i]; j++) {
                if (dead[j]) continue;
                bool i_le_j = decided(f, sy_expr_le(ctx, e->args[i], e->args[j]));
                bool j_le_i = !i_le_j && decided(f, sy_expr_le(ctx, e->args[j], e->args[i]));
                if (!i_le_j && !j_le_i) continue;
                if (!sy_rule_on(ctx, e->kind == SY_EXPR_MIN ? SY_R_SIMP_MIN_ORDER : SY_R_SIMP_MAX_ORDER)) continue;
                bool drop_j = (e->kind == SY_EXPR_MIN) ? i_le_j : j_le_i;
                dead[drop_j ? j : i] = true;
                changed = true;
            }
        }
        if (!changed) return e;
        const sy_expr *v[8];
        size_t n = 0;
        for (uint32_t i = 0; i < e->n; i++)
            if (!dead[i]) v[n++] = e->args[i];
        return e->kind == SY_EXPR_MIN ? sy_expr_min_n(ctx, n, v) : sy_expr_max_n(ctx, n, v);
    }
    case SY_EXPR_EQ:
    case SY_EXPR_NE:
    case SY_EXPR_LE: {
        if (f->depth > MAX_DEPTH) return e;
        int l = 0;
        f->depth++;
        sy_truth t = decide_rec(f, e, &l);
        f->depth--;
        if (t == SY_TRUTH_TRUE && sy_rule_on(ctx, SY_R_SIMP_REL_TRUE)) return sy_expr_true(ctx);
        if (t == SY_TRUTH_FALSE && sy_rule_on(ctx, SY_R_SIMP_REL_FALSE)) return sy_expr_false(ctx);
        return e->kind == SY_EXPR_EQ ? eq_minmax_arg(ctx, e) : e;
    }
    default: return e;
    }
}

/* A relation d REL 0 with a term c*FloorDiv(B, k) (constant k) under a fact Mod(A, k) == r
 * that the facts kept as a relation (no symbol of A to parametrise: Mod(h*w, 2) == 0), B =
 * +-A + b: FloorDiv(B, k) is exactly (B - r')/k, r' = Mod(+-r + b, k), so the relation is
 * k*(d - c*FloorDiv(B, k)) + c*(B - r') REL 0 (k > 0; SIMP_REL_SCALE_*, the same statement as
 * for a parametrised fact). One term per call (the result is simplified again). */
/* R is a congruence Mod(A, k) == r with k >= 2 a constant (the relations rel_congruence uses) */
static bool is_congruence(const sy_expr *R)
{
    if (R->kind != SY_EXPR_EQ) return false;
    const sy_expr *m = R->args[0];
    if (m->kind == SY_EXPR_ADD && m->n == 1 && fmpz_is_one(&SY_CTERMS(m)[0].coef)) m = SY_CTERMS(m)[0].mono;
    return m->kind == SY_EXPR_MOD && m->args[1]->kind == SY_EXPR_INT && fmpz_cmp_si(&m->args[1]->u.value, 2) >= 0;
}

/* some relation of f is a congruence (counted once per relation, see cg_n) */
static bool any_congruence(sy_facts *f)
{
    if (f->cg_epoch != f->rels_epoch || f->cg_seen > f->nrels) {
        f->cg_epoch = f->rels_epoch;
        f->cg_seen = f->cg_n = 0;
    }
    for (; f->cg_seen < f->nrels; f->cg_seen++) f->cg_n += is_congruence(f->rels[f->cg_seen]);
    return f->cg_n > 0;
}

static const sy_expr *rel_congruence(sy_facts *f, const sy_expr *e)
{
    if (!any_congruence(f)) return e;
    sy_ctx *ctx = f->ctx;
    const sy_expr *d = e->args[0];
    size_t nt = d->kind == SY_EXPR_ADD ? d->n : d->kind == SY_EXPR_INT ? 0 : 1;
    for (size_t j = 0; j < f->nrels; j++) {
        const sy_expr *R = f->rels[j], *m;
        if (R->kind != SY_EXPR_EQ) continue;
        m = R->args[0];
        fmpz_t r, b;
        if (m->kind == SY_EXPR_ADD && m->n == 1 && fmpz_is_one(&SY_CTERMS(m)[0].coef)) m = SY_CTERMS(m)[0].mono;
        if (m->kind != SY_EXPR_MOD || m->args[1]->kind != SY_EXPR_INT || fmpz_cmp_si(&m->args[1]->u.value, 2) < 0) continue;
        const fmpz *k = &m->args[1]->u.value;
        for (size_t i = 0; i < nt; i++) {
            const sy_expr *t = d->kind == SY_EXPR_ADD ? SY_CTERMS(d)[i].mono : d;
            if (t->kind != SY_EXPR_FLOORDIV || t->args[1]->kind != SY_EXPR_INT || !fmpz_equal(&t->args[1]->u.value, k)) continue;
            /* B = sg*A + b: Mod(B, k) = Mod(sg*r + b, k) (a CeilDiv is -FloorDiv(-A, k): sg = -1) */
            int sg = 1;
            const sy_expr *diff = sy_expr_sub(ctx, t->args[0], m->args[0]);
            if (diff && diff->kind != SY_EXPR_INT) {
                sg = -1;
                diff = sy_expr_add(ctx, t->args[0], m->args[0]);
            }
            if (!diff) return NULL;
            if (diff->kind != SY_EXPR_INT) continue;
            static const sy_rule_id R_SCALE[3] = {SY_R_SIMP_REL_SCALE_EQ, SY_R_SIMP_REL_SCALE_NE, SY_R_SIMP_REL_SCALE_LE};
            if (!sy_rule_on(ctx, R_SCALE[e->kind == SY_EXPR_EQ ? 0 : e->kind == SY_EXPR_NE ? 1 : 2])) return e;
            fmpz one = 1;
            const fmpz *c = d->kind == SY_EXPR_ADD ? &SY_CTERMS(d)[i].coef : &one;
            fmpz_init(r);
            fmpz_init(b);
            sy_const_term(r, R->args[0]);
            if (sg > 0) fmpz_neg(r, r); /* Mod(A, k) - r == 0; sg*r */
            fmpz_add(b, r, &diff->u.value);
            fmpz_fdiv_r(b, b, k);
            fmpz_neg(b, b);
            /* k*(d - c*t) + c*(B - r') */
            const sy_expr *ct = sy_expr_mul(ctx, sy_int_fmpz(ctx, c), t);
            const sy_expr *rest = sy_expr_mul(ctx, sy_int_fmpz(ctx, k), sy_expr_sub(ctx, d, ct));
            const sy_expr *nd = sy_expr_add(ctx, rest, sy_expr_mul(ctx, sy_int_fmpz(ctx, c), sy_add_fmpz(ctx, t->args[0], b)));
            fmpz_clear(r);
            fmpz_clear(b);
            if (!nd) return NULL;
            return sy_expr_rel(ctx, e->kind == SY_EXPR_EQ ? SY_REL_EQ : e->kind == SY_EXPR_NE ? SY_REL_NE : SY_REL_LE, nd,
                               sy_expr_int_si(ctx, 0));
        }
    }
    return e;
}

const sy_expr *simp(sy_facts *f, const sy_expr *e, sy_memo *memo)
{
    if (!e) return NULL;
    const sy_expr *hit = sy_memo_get(memo, e);
    if (hit) return hit;
    sy_ctx *ctx = f->ctx;
    if (!sy_step(ctx)) return NULL;
    const sy_expr *r = e;
    switch (e->kind) {
    case SY_EXPR_INT:
    case SY_EXPR_SYM:
    case SY_EXPR_TRUE:
    case SY_EXPR_FALSE: break;
    case SY_EXPR_ADD: {
        sy_terms ts;
        sy_terms_init(&ts);
        fmpz_set(ts.c0, &e->u.c0);
        bool ok = true, same = true;
        for (uint32_t i = 0; i < e->n && ok; i++) {
            const sy_expr *m = simp(f, SY_CTERMS(e)[i].mono, memo);
            same = same && m == SY_CTERMS(e)[i].mono;
            ok = m && sy_terms_add_expr(ctx, &ts, &SY_CTERMS(e)[i].coef, m);
        }
        r = !ok ? NULL : same ? e : sy_terms_build(ctx, &ts);
        sy_terms_clear(ctx, &ts);
        break;
    }
    case SY_EXPR_POW: {
        const sy_expr *b = simp(f, e->args[0], memo);
        r = b == e->args[0] ? e : sy_expr_pow_ui(ctx, b, e->u.exp);
        break;
    }
    case SY_EXPR_MUL: { /* one n-ary product, not n binary ones */
        const sy_expr *stackbuf[16];
        const sy_expr **v = e->n <= 16 ? stackbuf : sy_alloc(ctx, e->n * sizeof *v);
        if (!v) return sy_oom(ctx);
        bool ok = true, same = true;
        for (uint32_t i = 0; i < e->n && ok; i++) {
            v[i] = simp(f, e->args[i], memo);
            ok = v[i] != NULL;
            same = same && v[i] == e->args[i];
        }
        r = !ok ? NULL : same ? e : sy_expr_mul_n(ctx, e->n, v);
        if (v != stackbuf) sy_dealloc(ctx, v, e->n * sizeof *v);
        break;
    }
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_CEILDIV:
    case SY_EXPR_MOD: {
        /* b only after a succeeded: simplifying b runs decisions that reset
         * the context's error, which would lose a's (e.g. division by zero) */
        const sy_expr *a = simp(f, e->args[0], memo);
        if (!a) return NULL;
        const sy_expr *b = simp(f, e->args[1], memo);
        if (!b) return NULL;
        const sy_expr *n = (a == e->args[0] && b == e->args[1]) ? e
                         : e->kind == SY_EXPR_FLOORDIV ? sy_expr_floordiv(ctx, a, b)
                         : e->kind == SY_EXPR_MOD ? sy_expr_mod(ctx, a, b) : sy_expr_ceildiv(ctx, a, b);
        r = n && n->kind == e->kind ? simp_node(f, n) : (n ? simp(f, n, memo) : NULL);
        break;
    }
    case SY_EXPR_EQ:
    case SY_EXPR_NE:
    case SY_EXPR_LE: {
        const sy_expr *d = simp(f, e->args[0], memo);
        if (!d) return NULL;
        if (d == e->args[0] && f->depth > 0) /* simp_node decides e itself: decide_again when e is in its layer 3 */
            for (int i = f->nactive; i-- > 0;)
                if (f->active[i].q == e && (!f->active[i].again || f->active[i].again > f->depth)) f->active[i].again = f->depth;
        const sy_expr *n = d == e->args[0] ? e : sy_expr_rel(ctx, e->kind == SY_EXPR_EQ ? SY_REL_EQ : e->kind == SY_EXPR_NE ? SY_REL_NE : SY_REL_LE, d, sy_expr_int_si(ctx, 0));
        if (n && f->nrels && (n->kind == SY_EXPR_EQ || n->kind == SY_EXPR_NE || n->kind == SY_EXPR_LE)) {
            const sy_expr *q = rel_congruence(f, n);
            if (q != n) { /* rewritten: simplified again (each rewrite removes one FloorDiv term) */
                r = q ? simp(f, q, memo) : NULL;
                break;
            }
        }
        r = n && (n->kind == SY_EXPR_EQ || n->kind == SY_EXPR_NE || n->kind == SY_EXPR_LE) ? simp_node(f, n) : n;
        break;
    }
    default: { /* Min Max And Or */
        const sy_expr *stackbuf[16];
        const sy_expr **v = e->n <= 16 ? stackbuf : sy_alloc(ctx, e->n * sizeof *v);
        if (!v) return sy_oom(ctx);
        bool ok = true, same = true;
        for (uint32_t i = 0; i < e->n && ok; i++) {
            v[i] = simp(f, e->args[i], memo);
            ok = v[i] != NULL;
            same = same && v[i] == e->args[i];
        }
        const sy_expr *n = NULL;
        if (ok) {
            if (same) n = e;
            else if (e->kind == SY_EXPR_MIN) n = sy_expr_min_n(ctx, e->n, v);
            else if (e->kind == SY_EXPR_MAX) n = sy_expr_max_n(ctx, e->n, v);
            else if (e->kind == SY_EXPR_AND) n = sy_expr_and_n(ctx, e->n, v);
            else n = sy_expr_or_n(ctx, e->n, v);
        }
        if (v != stackbuf) sy_dealloc(ctx, v, e->n * sizeof *v);
        r = n && (n->kind == SY_EXPR_MIN || n->kind == SY_EXPR_MAX) ? simp_node(f, n) : n;
        break;
    }
    }
    if (r && !sy_memo_put(ctx, memo, e, r)) return sy_oom(ctx);
    return r;
}

static bool mentions(sy_ctx *ctx, const sy_expr *e, const sy_expr *t)
{
    const sy_expr **syms;
    size_t ns;
    bool in = true; /* unknown (an error) counts as "still there" */
    if (sy_expr_free_symbols(ctx, e, &syms, &ns) == SY_OK) {
        in = false;
        for (size_t i = 0; i < ns; i++) in = in || syms[i] == t;
        sy_mem_free(ctx, syms);
    }
    return in;
}

/* k^deg * e(t = num/k) = sum_j coeff_j * num^j * k^(deg - j): an integer
 * polynomial in which t occurs only where e had it inside an atom */
static const sy_expr *scaled_subs(sy_ctx *ctx, const sy_expr *e, const sy_expr *t, long deg, const sy_expr *num,
                                  const sy_expr *kk)
{
    const sy_expr *acc = sy_expr_int_si(ctx, 0);
    for (long j = 0; j <= deg && acc; j++) {
        const sy_expr *cj = sy_expr_coeff(ctx, e, t, (uint64_t)j);
        acc = sy_expr_add(ctx, acc, sy_expr_mul(ctx, cj, sy_expr_mul(ctx, sy_expr_pow_ui(ctx, num, (uint64_t)j),
                                                                     sy_expr_pow_ui(ctx, kk, (uint64_t)(deg - j)))));
    }
    return acc;
}

/* t := (s - x)/k in e, for one parameter. A relation d REL 0 becomes
 * k^deg * d(t = (s - x)/k) REL 0 (k >= 2, so k^deg > 0: equivalent for ==, !=
 * and <=; under the fact s == x (mod k) the quotient is exact), so that
 * FloorDiv(n, 2) != 1 under Mod(n, 2) == 0 reads n != 2, not the general
 * t = FloorDiv(s - x, k) (issue 32). And and Or map over their relations. */
static const sy_expr *unfresh_one(sy_facts *f, const fresh_sym *fs, const sy_expr *e)
{
    sy_ctx *ctx = f->ctx;
    if (!e) return NULL;
    const sy_expr *num = sy_expr_sub(ctx, fs->s, fs->x);
    const sy_expr *kk = sy_int_fmpz(ctx, &fs->k);
    if (!num || !kk) return NULL;
    if (e->kind == SY_EXPR_AND || e->kind == SY_EXPR_OR) {
        const sy_expr *stackbuf[16];
        const sy_expr **v = e->n <= 16 ? stackbuf : sy_alloc(ctx, e->n * sizeof *v);
        if (!v) return sy_oom(ctx);
        bool ok = true, same = true;
        for (uint32_t i = 0; i < e->n && ok; i++) {
            v[i] = unfresh_one(f, fs, e->args[i]);
            ok = v[i] != NULL;
            same = same && v[i] == e->args[i];
        }
        const sy_expr *r = !ok ? NULL : same ? e : e->kind == SY_EXPR_AND ? sy_expr_and_n(ctx, e->n, v) : sy_expr_or_n(ctx, e->n, v);
        if (v != stackbuf) sy_dealloc(ctx, v, e->n * sizeof *v);
        return r;
    }
    bool rel = e->kind == SY_EXPR_EQ || e->kind == SY_EXPR_NE || e->kind == SY_EXPR_LE;
    const sy_expr *p = rel ? e->args[0] : e;
    long deg = sy_expr_degree(p, fs->t);
    if (deg > 0 && fmpz_cmp_si(&fs->k, 2) >= 0) {
        const sy_expr *acc = scaled_subs(ctx, p, fs->t, deg, num, kk);
        if (!acc) return NULL;
        static const sy_rule_id R_SCALE[3] = {SY_R_SIMP_REL_SCALE_EQ, SY_R_SIMP_REL_SCALE_NE, SY_R_SIMP_REL_SCALE_LE};
        if (rel && !mentions(ctx, acc, fs->t) &&
            sy_rule_on(ctx, R_SCALE[e->kind == SY_EXPR_EQ ? 0 : e->kind == SY_EXPR_NE ? 1 : 2]))
            return sy_expr_rel(ctx, e->kind == SY_EXPR_EQ ? SY_REL_EQ : e->kind == SY_EXPR_NE ? SY_REL_NE : SY_REL_LE, acc,
                               sy_expr_int_si(ctx, 0));
        const sy_expr *kd = sy_expr_pow_ui(ctx, kk, (uint64_t)deg);
        const sy_expr *q = NULL;
        if (!rel && kd && sy_poly_divides_raw(ctx, acc, kd, &q) == 1 && q && !mentions(ctx, q, fs->t)) return q;
    }
    /* general: t = FloorDiv(s - x, k) (exact since s - x is a multiple of k) */
    const sy_expr *tv = sy_expr_floordiv(ctx, num, kk);
    return tv ? sy_expr_subs(ctx, e, 1, &fs->t, &tv) : NULL;
}

/* Replace internal parameters t by (s - x)/k when the result is an integer
 * polynomial (or, in a relation, an integer polynomial times k^deg), else by
 * FloorDiv(s - x, k). */
const sy_expr *unfresh(sy_facts *f, const sy_expr *e)
{
    for (size_t i = f->nfresh; i-- > 0 && e;) e = unfresh_one(f, &f->fresh[i], e);
    return e;
}

static const sy_expr *sy_simplify_work(sy_facts *f, const sy_expr *e)
{
    if (!f || !e) return NULL;
    sy_ctx *ctx = f->ctx;
    if (f->inconsistent) return e;
    const sy_expr *q = apply_raw(f, e);
    if (!q) return NULL;
    simp_memos_release(f);
    const sy_expr *r = simplify_core(f, q);
    simp_memos_release(f);
    if (!r) /* every failing path records why; a NULL without a reason is a bug, never a silent result */
        return sy_ctx_last_error(ctx) != SY_OK ? NULL : sy_fail(ctx, SY_ERROR, "simplify: a rewrite failed without a reason");
    return unfresh(f, r);
}

const sy_expr *sy_simplify(sy_facts *f, const sy_expr *e)
{
    if (!f) return NULL;
    sy_ctx *ctx = f->ctx;
    lm_mark m = lm_op_begin(f); /* facts_sync: a rollback since the last call empties the memo */
    size_t slot = e ? (size_t)e->hash & (SCACHE - 1) : 0;
    bool hit = e && f->sc_key[slot] == e && f->sc_repoch[slot] == ctx->rules_epoch;
    const sy_expr *r = sy_op_end_e(ctx, hit ? f->sc_val[slot] : sy_simplify_work(f, e));
    lm_after_op(f, m);
    if (r && !hit && ctx->gen == f->gen) { /* gen: the operation was not rolled back */
        f->sc_key[slot] = e;
        f->sc_val[slot] = r;
        f->sc_repoch[slot] = ctx->rules_epoch;
    }
    return r;
}
