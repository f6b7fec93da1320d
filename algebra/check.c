/* The canonical-form checker (algebra/internal.h, sy_expr_check): the invariants the
 * constructors of expr.c, minmax.c, div.c and rel.c keep, checked on one node. */
#include "algebra/expr_private.h"

static unsigned child_depth(const sy_expr *e)
{
    unsigned d = 0;
    for (uint32_t i = 0; i < e->n; i++) {
        const sy_expr *c = e->kind == SY_EXPR_ADD ? SY_CTERMS(e)[i].mono : e->args[i];
        if (c->depth > d) d = c->depth;
    }
    return d;
}

static bool rules_all_on(const sy_ctx *ctx)
{
    for (size_t w = 0; w < SY_RULE_WORDS; w++)
        if (ctx->rules.off[w]) return false;
    return true;
}

const char *sy_expr_check(const sy_ctx *ctx, const sy_expr *e)
{
    if (!e) return "NULL node";
    if (e->kind > SY_EXPR_FALSE) return "unknown kind";
    if (e->lo > e->hi) return "lo > hi";
    bool boolean = e->kind >= SY_EXPR_EQ;
    if ((bool)e->isbool != boolean) return "isbool does not match the kind";
    unsigned want = (e->kind == SY_EXPR_INT || e->kind == SY_EXPR_SYM || !e->n) ? 0 : child_depth(e) + 1;
    if (e->depth != want) return "depth is not 1 + the deepest child's";
    for (uint32_t i = 0; i < e->n; i++) {
        const sy_expr *c = e->kind == SY_EXPR_ADD ? SY_CTERMS(e)[i].mono : e->args[i];
        if (!c) return "NULL child";
        if (c->isbool != (e->kind == SY_EXPR_AND || e->kind == SY_EXPR_OR)) return "child of the wrong sort (boolean / integer)";
    }
    if (ctx && !rules_all_on(ctx)) return NULL; /* a test switched a rewrite off: other forms are legal */
    switch ((sy_expr_kind)e->kind) {
    case SY_EXPR_INT:
    case SY_EXPR_TRUE:
    case SY_EXPR_FALSE:
        if (e->n) return "leaf with children";
        if (e->kind == SY_EXPR_INT) { /* the bounds hold the value; exact inside (INT64_MIN + 1, INT64_MAX - 1)
                                       * (ival.c sy_ival_get_bounds64 rounds outward past it) */
            const fmpz *v = &e->u.value;
            if ((e->lo != SY_NEG_INF && fmpz_cmp_si(v, e->lo) < 0) || (e->hi != SY_POS_INF && fmpz_cmp_si(v, e->hi) > 0))
                return "integer outside its bounds";
            if (fmpz_cmp_si(v, INT64_MIN + 1) > 0 && fmpz_cmp_si(v, INT64_MAX - 1) < 0 &&
                (e->lo != fmpz_get_si(v) || e->hi != e->lo))
                return "integer whose bounds are not its value";
        }
        return NULL;
    case SY_EXPR_SYM:
        if (e->n || !e->u.sym.name || !*e->u.sym.name) return "symbol without a name";
        if (e->deg != 1) return "symbol of degree != 1";
        return NULL;
    case SY_EXPR_ADD:
        if (!e->n) return "sum without terms";
        for (uint32_t i = 0; i < e->n; i++) {
            const sy_term *t = &SY_CTERMS(e)[i];
            if (fmpz_is_zero(&t->coef)) return "sum with a zero coefficient";
            if (!sy_is_monomial(t->mono)) return "sum term that is not a monomial";
            if (i && sy_mono_cmp(SY_CTERMS(e)[i - 1].mono, t->mono) >= 0) return "sum terms not sorted or repeated";
        }
        if (e->n == 1 && fmpz_is_zero(&e->u.c0) && fmpz_is_one(&SY_CTERMS(e)[0].coef))
            return "sum 1*m + 0 (should be m)";
        return NULL;
    case SY_EXPR_MUL: {
        if (e->n < 2) return "product of fewer than 2 factors";
        uint64_t deg = 0;
        for (uint32_t i = 0; i < e->n; i++) {
            const sy_expr *f = e->args[i], *b = f->kind == SY_EXPR_POW ? f->args[0] : f;
            if (!sy_is_atom(b)) return "product factor that is not an atom or a power of one";
            deg += f->deg;
            if (i) {
                const sy_expr *p = e->args[i - 1], *pb = p->kind == SY_EXPR_POW ? p->args[0] : p;
                if (sy_atom_cmp(pb, b) >= 0) return "product factors not sorted or repeated";
            }
        }
        if (deg != e->deg) return "product degree is not the sum of its factors'";
        return NULL;
    }
    case SY_EXPR_POW:
        if (e->n != 1 || !sy_is_atom(e->args[0])) return "power of a non-atom";
        if (e->u.exp < 2) return "power with exponent < 2";
        return NULL;
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_MOD:
    case SY_EXPR_CEILDIV:
        if (e->n != 2) return "division without 2 operands";
        if (e->deg != 1) return "division atom of degree != 1";
        return NULL;
    case SY_EXPR_MIN:
    case SY_EXPR_MAX:
        if (e->n < 2) return "Min/Max of fewer than 2 arguments";
        for (uint32_t i = 1; i < e->n; i++)
            if (sy_expr_cmp(e->args[i - 1], e->args[i]) >= 0) return "Min/Max arguments not sorted or repeated";
        return NULL;
    case SY_EXPR_EQ:
    case SY_EXPR_NE:
    case SY_EXPR_LE: {
        if (e->n != 1) return "relation without 1 operand";
        const sy_expr *d = e->args[0];
        if (d->kind == SY_EXPR_INT) return "relation on a constant (should be true or false)";
        bool le = e->kind == SY_EXPR_LE;
        if (d->hi != SY_POS_INF && (le ? d->hi <= 0 : d->hi < 0)) return "relation decided by the bounds (hi)";
        if (d->lo != SY_NEG_INF && d->lo > 0) return "relation decided by the bounds (lo)";
        fmpz_t g;
        fmpz_init(g);
        sy_content_nonconst(g, d);
        bool one = fmpz_is_one(g);
        fmpz_clear(g);
        if (!one) return "relation whose non-constant content is not 1";
        if (!le && sy_leading_sign(d) < 0) return "Eq/Ne with a negative leading coefficient";
        return NULL;
    }
    case SY_EXPR_AND:
    case SY_EXPR_OR:
        if (e->n < 2) return "And/Or of fewer than 2 arguments";
        for (uint32_t i = 0; i < e->n; i++) {
            if (e->args[i]->kind == e->kind) return "And/Or not flattened";
            if (e->args[i]->kind == SY_EXPR_TRUE || e->args[i]->kind == SY_EXPR_FALSE) return "And/Or with a constant";
            if (i && sy_expr_cmp(e->args[i - 1], e->args[i]) >= 0) return "And/Or arguments not sorted or repeated";
        }
        return NULL;
    }
    return "unknown kind";
}
