/* Relations and connectives. A relation is normalised to d == 0, d != 0 or
 * d <= 0 with d a polynomial whose non-constant integer content is 1; Eq/Ne
 * also make the leading coefficient positive. Not is pushed into relations
 * (exact over the integers). And/Or are flattened, sorted, duplicate-free,
 * constants absorbed, complementary pairs resolved. */
#include <stdlib.h>

#include "algebra/expr_private.h"

static const sy_expr *make_le(sy_ctx *ctx, const sy_expr *d)
{
    if (!d) return NULL;
    if (d->kind == SY_EXPR_INT) return sy_expr_bool(ctx, fmpz_sgn(&d->u.value) <= 0);
    if (d->hi != SY_POS_INF && d->hi <= 0) return sy_expr_true(ctx);
    if (d->lo != SY_NEG_INF && d->lo > 0) return sy_expr_false(ctx);
    fmpz_t g, c, t;
    fmpz_init(g);
    fmpz_init(c);
    fmpz_init(t);
    sy_content_nonconst(g, d);
    const sy_expr *res;
    if (!fmpz_is_one(g)) {
        /* g*D + c <= 0  <=>  D <= floor(-c/g)  <=>  D - floor(-c/g) <= 0 */
        sy_const_term(c, d);
        fmpz_neg(t, c);
        fmpz_fdiv_q(t, t, g);
        fmpz_neg(t, t);
        const sy_expr *D = sy_divexact_fmpz(ctx, sy_nonconst_part(ctx, d), g);
        d = sy_add_fmpz(ctx, D, t);
    }
    res = d ? sy_node2(ctx, SY_EXPR_LE, d, NULL) : NULL;
    fmpz_clear(g);
    fmpz_clear(c);
    fmpz_clear(t);
    return res;
}

static const sy_expr *make_eq(sy_ctx *ctx, const sy_expr *d, bool ne)
{
    if (!d) return NULL;
    if (d->kind == SY_EXPR_INT) return sy_expr_bool(ctx, fmpz_is_zero(&d->u.value) != ne);
    if ((d->hi != SY_POS_INF && d->hi < 0) || (d->lo != SY_NEG_INF && d->lo > 0))
        return sy_expr_bool(ctx, ne);
    fmpz_t g, c;
    fmpz_init(g);
    fmpz_init(c);
    sy_content_nonconst(g, d);
    sy_const_term(c, d);
    const sy_expr *res;
    if (!fmpz_divisible(c, g)) {
        res = sy_expr_bool(ctx, ne); /* g*D == -c has no integer solution */
    } else {
        if (!fmpz_is_one(g)) d = sy_divexact_fmpz(ctx, d, g);
        if (d && sy_leading_sign(d) < 0) d = sy_expr_neg(ctx, d);
        res = d ? sy_node2(ctx, ne ? SY_EXPR_NE : SY_EXPR_EQ, d, NULL) : NULL;
    }
    fmpz_clear(g);
    fmpz_clear(c);
    return res;
}

const sy_expr *sy_expr_rel(sy_ctx *ctx, sy_rel_op op, const sy_expr *a, const sy_expr *b)
{
    if (!ctx || !a || !b) return NULL;
    if (!sy_check_int(ctx, a, "relation") || !sy_check_int(ctx, b, "relation")) return NULL;
    switch (op) {
    case SY_REL_EQ: return make_eq(ctx, sy_expr_sub(ctx, a, b), false);
    case SY_REL_NE: return make_eq(ctx, sy_expr_sub(ctx, a, b), true);
    case SY_REL_LE: return make_le(ctx, sy_expr_sub(ctx, a, b));
    case SY_REL_LT: return make_le(ctx, sy_expr_add_si(ctx, sy_expr_sub(ctx, a, b), 1));
    case SY_REL_GE: return make_le(ctx, sy_expr_sub(ctx, b, a));
    case SY_REL_GT: return make_le(ctx, sy_expr_add_si(ctx, sy_expr_sub(ctx, b, a), 1));
    }
    return sy_fail(ctx, SY_EINVAL, "unknown relation operator %d", (int)op);
}

const sy_expr *sy_expr_eq(sy_ctx *ctx, const sy_expr *a, const sy_expr *b) { return sy_expr_rel(ctx, SY_REL_EQ, a, b); }
const sy_expr *sy_expr_ne(sy_ctx *ctx, const sy_expr *a, const sy_expr *b) { return sy_expr_rel(ctx, SY_REL_NE, a, b); }
const sy_expr *sy_expr_lt(sy_ctx *ctx, const sy_expr *a, const sy_expr *b) { return sy_expr_rel(ctx, SY_REL_LT, a, b); }
const sy_expr *sy_expr_le(sy_ctx *ctx, const sy_expr *a, const sy_expr *b) { return sy_expr_rel(ctx, SY_REL_LE, a, b); }
const sy_expr *sy_expr_gt(sy_ctx *ctx, const sy_expr *a, const sy_expr *b) { return sy_expr_rel(ctx, SY_REL_GT, a, b); }
const sy_expr *sy_expr_ge(sy_ctx *ctx, const sy_expr *a, const sy_expr *b) { return sy_expr_rel(ctx, SY_REL_GE, a, b); }

static const sy_expr *connective(sy_ctx *ctx, sy_expr_kind kind, size_t n, const sy_expr *const *in);

const sy_expr *sy_expr_not(sy_ctx *ctx, const sy_expr *a)
{
    if (!ctx || !a) return NULL;
    if (!sy_check_bool(ctx, a, "Not")) return NULL;
    switch (a->kind) {
    case SY_EXPR_TRUE: return sy_expr_false(ctx);
    case SY_EXPR_FALSE: return sy_expr_true(ctx);
    case SY_EXPR_EQ: return sy_node2(ctx, SY_EXPR_NE, a->args[0], NULL);
    case SY_EXPR_NE: return sy_node2(ctx, SY_EXPR_EQ, a->args[0], NULL);
    case SY_EXPR_LE: /* not (d <= 0)  <=>  1 - d <= 0 */
        return make_le(ctx, sy_expr_sub(ctx, sy_expr_int_si(ctx, 1), a->args[0]));
    case SY_EXPR_AND:
    case SY_EXPR_OR: {
        const sy_expr *stackbuf[16];
        const sy_expr **v = a->n <= 16 ? stackbuf : sy_alloc(ctx, a->n * sizeof *v);
        if (!v) return sy_oom(ctx);
        bool ok = true;
        for (uint32_t i = 0; i < a->n && ok; i++) ok = (v[i] = sy_expr_not(ctx, a->args[i])) != NULL;
        const sy_expr *r = ok ? connective(ctx, a->kind == SY_EXPR_AND ? SY_EXPR_OR : SY_EXPR_AND, a->n, v) : NULL;
        if (v != stackbuf) sy_dealloc(ctx, v, a->n * sizeof *v);
        return r;
    }
    default: return sy_fail(ctx, SY_EINVAL, "Not: unexpected node");
    }
}

static int cmp_ptr(const void *x, const void *y)
{
    return sy_expr_cmp(*(const sy_expr *const *)x, *(const sy_expr *const *)y);
}

static bool contains(const sy_expr *const *v, size_t n, const sy_expr *x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x) return true;
    return false;
}

static const sy_expr *connective(sy_ctx *ctx, sy_expr_kind kind, size_t n, const sy_expr *const *in)
{
    bool is_and = kind == SY_EXPR_AND;
    const char *name = is_and ? "And" : "Or";
    for (size_t i = 0; i < n; i++) {
        if (!in[i]) return NULL;
        if (!sy_check_bool(ctx, in[i], name)) return NULL;
    }
    const sy_expr *absorbing = is_and ? sy_expr_false(ctx) : sy_expr_true(ctx);
    const sy_expr *neutral = is_and ? sy_expr_true(ctx) : sy_expr_false(ctx);
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) cap += in[i]->kind == (uint8_t)kind ? in[i]->n : 1;
    const sy_expr **v = sy_alloc(ctx, (cap ? cap : 1) * sizeof *v);
    if (!v) return sy_oom(ctx);
    size_t m = 0;
    const sy_expr *res = NULL;
    for (size_t i = 0; i < n; i++) {
        const sy_expr *e = in[i];
        size_t k = e->kind == (uint8_t)kind ? e->n : 1;
        for (size_t j = 0; j < k; j++) {
            const sy_expr *x = e->kind == (uint8_t)kind ? e->args[j] : e;
            if (x == absorbing) {
                res = absorbing;
                goto done;
            }
            if (x != neutral) v[m++] = x;
        }
    }
    qsort(v, m, sizeof *v, cmp_ptr);
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        if (k == 0 || v[k - 1] != v[i]) v[k++] = v[i];
    m = k;
    if (m <= 32) {
        /* complementary pairs: And(r, not r) = false, Or(r, not r) = true */
        for (size_t i = 0; i < m; i++) {
            const sy_expr *nr = sy_expr_not(ctx, v[i]);
            if (!nr) goto done;
            if (contains(v, m, nr)) {
                res = absorbing;
                goto done;
            }
        }
        /* And(d <= 0, -d <= 0) = (d == 0); Or(e <= 0, 2 - e <= 0) = (e - 1 != 0) */
        for (size_t i = 0; i < m; i++) {
            if (v[i]->kind != SY_EXPR_LE) continue;
            const sy_expr *d = v[i]->args[0];
            const sy_expr *other = is_and ? sy_expr_neg(ctx, d) : sy_expr_sub(ctx, sy_expr_int_si(ctx, 2), d);
            const sy_expr *orel = other ? make_le(ctx, other) : NULL;
            if (!orel) goto done;
            for (size_t j = 0; j < m; j++) {
                if (j == i || v[j] != orel) continue;
                const sy_expr *merged = is_and ? make_eq(ctx, d, false)
                                               : make_eq(ctx, sy_expr_add_si(ctx, d, -1), true);
                if (!merged) goto done;
                v[i] = merged;
                v[j] = v[--m];
                i = (size_t)-1; /* restart: m shrank, so this terminates */
                break;
            }
        }
        qsort(v, m, sizeof *v, cmp_ptr);
        k = 0;
        for (size_t i = 0; i < m; i++)
            if (k == 0 || v[k - 1] != v[i]) v[k++] = v[i];
        m = k;
    }
    if (m == 0) res = neutral;
    else if (m == 1) res = v[0];
    else res = sy_node_n(ctx, kind, m, v);
done:
    sy_dealloc(ctx, v, (cap ? cap : 1) * sizeof *v);
    return res;
}

const sy_expr *sy_expr_and_n(sy_ctx *ctx, size_t n, const sy_expr *const *args)
{
    if (!ctx) return NULL;
    return connective(ctx, SY_EXPR_AND, n, args);
}
const sy_expr *sy_expr_or_n(sy_ctx *ctx, size_t n, const sy_expr *const *args)
{
    if (!ctx) return NULL;
    return connective(ctx, SY_EXPR_OR, n, args);
}
const sy_expr *sy_expr_and(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    const sy_expr *v[2] = {a, b};
    return sy_expr_and_n(ctx, 2, v);
}
const sy_expr *sy_expr_or(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    const sy_expr *v[2] = {a, b};
    return sy_expr_or_n(ctx, 2, v);
}
