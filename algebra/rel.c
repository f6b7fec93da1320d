/* Relations and connectives. A relation is normalised to d == 0, d != 0 or
 * d <= 0 with d a polynomial whose non-constant integer content is 1; Eq/Ne
 * also make the leading coefficient positive. Not is pushed into relations
 * (exact over the integers). And/Or are flattened, sorted, duplicate-free,
 * constants absorbed, complementary pairs resolved. */
#include <stdlib.h>
#include <string.h>

#include "algebra/expr_private.h"

/* The literal relation node d OP 0 (a rule that would apply is switched off). */
static const sy_expr *raw_rel(sy_ctx *ctx, sy_expr_kind k, const sy_expr *d)
{
    return d ? sy_node2(ctx, k, d, NULL) : NULL;
}

/* Every step is a rule of algebra/rules.def, applied only through its gate. */
static const sy_expr *make_le(sy_ctx *ctx, const sy_expr *d)
{
    if (!d) return NULL;
    if (d->kind == SY_EXPR_INT) {
        bool le = fmpz_sgn(&d->u.value) <= 0;
        if (!sy_rule_on(ctx, le ? SY_R_REL_LE_TRUE : SY_R_REL_LE_FALSE)) return raw_rel(ctx, SY_EXPR_LE, d);
        return sy_expr_bool(ctx, le);
    }
    if (d->hi != SY_POS_INF && d->hi <= 0 && sy_rule_on(ctx, SY_R_REL_LE_TRUE)) return sy_expr_true(ctx);
    if (d->lo != SY_NEG_INF && d->lo > 0 && sy_rule_on(ctx, SY_R_REL_LE_FALSE)) return sy_expr_false(ctx);
    fmpz_t g, c, t;
    fmpz_init(g);
    fmpz_init(c);
    fmpz_init(t);
    sy_content_nonconst(g, d);
    const sy_expr *res;
    if (!fmpz_is_one(g) && sy_rule_on(ctx, SY_R_REL_LE_CONTENT)) {
        /* g*D + c <= 0  <=>  D <= floor(-c/g)  <=>  D - floor(-c/g) <= 0 */
        sy_const_term(c, d);
        fmpz_neg(t, c);
        fmpz_fdiv_q(t, t, g);
        fmpz_neg(t, t);
        const sy_expr *D = sy_divexact_fmpz(ctx, sy_nonconst_part(ctx, d), g);
        d = sy_add_fmpz(ctx, D, t);
    }
    res = raw_rel(ctx, SY_EXPR_LE, d);
    fmpz_clear(g);
    fmpz_clear(c);
    fmpz_clear(t);
    return res;
}

static const sy_expr *make_eq(sy_ctx *ctx, const sy_expr *d, bool ne)
{
    if (!d) return NULL;
    sy_expr_kind kind = ne ? SY_EXPR_NE : SY_EXPR_EQ;
    if (d->kind == SY_EXPR_INT) {
        int sg = fmpz_sgn(&d->u.value);
        sy_rule_id id = sg == 0 ? (ne ? SY_R_REL_NE_FALSE : SY_R_REL_EQ_TRUE)
                      : sg > 0 ? (ne ? SY_R_REL_NE_TRUE : SY_R_REL_EQ_FALSE)
                               : (ne ? SY_R_REL_NE_TRUE_NEG : SY_R_REL_EQ_FALSE_NEG);
        if (!sy_rule_on(ctx, id)) return raw_rel(ctx, kind, d);
        return sy_expr_bool(ctx, (sg == 0) != ne);
    }
    if (d->hi != SY_POS_INF && d->hi < 0 && sy_rule_on(ctx, ne ? SY_R_REL_NE_TRUE_NEG : SY_R_REL_EQ_FALSE_NEG))
        return sy_expr_bool(ctx, ne);
    if (d->lo != SY_NEG_INF && d->lo > 0 && sy_rule_on(ctx, ne ? SY_R_REL_NE_TRUE : SY_R_REL_EQ_FALSE))
        return sy_expr_bool(ctx, ne);
    fmpz_t g, c;
    fmpz_init(g);
    fmpz_init(c);
    sy_content_nonconst(g, d);
    sy_const_term(c, d);
    const sy_expr *res;
    if (!fmpz_divisible(c, g) && sy_rule_on(ctx, ne ? SY_R_REL_NE_NO_SOLUTION : SY_R_REL_EQ_NO_SOLUTION)) {
        res = sy_expr_bool(ctx, ne); /* g*D == -c has no integer solution */
    } else {
        if (!fmpz_is_one(g) && fmpz_divisible(c, g) && sy_rule_on(ctx, ne ? SY_R_REL_NE_CONTENT : SY_R_REL_EQ_CONTENT))
            d = sy_divexact_fmpz(ctx, d, g);
        if (d && sy_leading_sign(d) < 0 && sy_rule_on(ctx, ne ? SY_R_REL_NE_SIGN : SY_R_REL_EQ_SIGN))
            d = sy_expr_neg(ctx, d);
        res = raw_rel(ctx, kind, d);
    }
    fmpz_clear(g);
    fmpz_clear(c);
    return res;
}

static const sy_expr *rel_build(sy_ctx *ctx, sy_rel_op op, const sy_expr *a, const sy_expr *b);

const sy_expr *sy_expr_rel(sy_ctx *ctx, sy_rel_op op, const sy_expr *a, const sy_expr *b)
{
    if (!ctx || !a || !b) return NULL;
    if (!sy_check_int(ctx, a, "relation") || !sy_check_int(ctx, b, "relation")) return NULL;
    uint64_t h = (a->hash * 0x9E3779B97F4A7C15ull) ^ b->hash ^ ((uint64_t)op << 56);
    size_t slot = (size_t)(h ^ h >> 29);
    const struct sy_relc *c = &ctx->relc[slot & (ctx->relc_cap - 1)];
    if (c->a == a && c->b == b && c->op == (int)op && c->gen == ctx->gen && c->repoch == ctx->rules_epoch) return c->r;
    const sy_expr *r = rel_build(ctx, op, a, b);
    if (!r) return NULL;
    if (ctx->relc_cap < SY_RELC_MAX && ctx->relc_stores >= 2 * ctx->relc_cap) {
        size_t ncap = 2 * ctx->relc_cap;
        struct sy_relc *nt = ctx->alc.malloc(ctx->alc.ud, ncap * sizeof *nt);
        if (nt) { /* the memo starts over in the larger table, which replaces the old one: the allocation count stays */
            memset(nt, 0, ncap * sizeof *nt);
            ctx->alc.free(ctx->alc.ud, ctx->relc, ctx->relc_cap * sizeof *ctx->relc);
            ctx->relc = nt;
            ctx->relc_cap = ncap;
            ctx->relc_stores = 0;
        }
    }
    ctx->relc[slot & (ctx->relc_cap - 1)] = (struct sy_relc){a, b, r, ctx->gen, ctx->rules_epoch, (int)op};
    ctx->relc_stores++;
    return r;
}

/* Both sides integers: the relation's value from d in exact arithmetic, with
 * the rule hits make_le/make_eq record, without building d as a node (most
 * of the kernel checks on static sizes compare two constants). NULL: the
 * rule that decides it is off, so the general path builds the literal. */
static const sy_expr *rel_const(sy_ctx *ctx, sy_rel_op op, const sy_expr *a, const sy_expr *b)
{
    fmpz_t d;
    fmpz_init(d);
    if (op == SY_REL_GE || op == SY_REL_GT) fmpz_sub(d, &b->u.value, &a->u.value);
    else fmpz_sub(d, &a->u.value, &b->u.value);
    if (op == SY_REL_LT || op == SY_REL_GT) fmpz_add_ui(d, d, 1);
    int sg = fmpz_sgn(d);
    fmpz_clear(d);
    sy_rule_id id;
    bool val;
    if (op == SY_REL_EQ || op == SY_REL_NE) {
        bool ne = op == SY_REL_NE;
        id = sg == 0 ? (ne ? SY_R_REL_NE_FALSE : SY_R_REL_EQ_TRUE)
           : sg > 0  ? (ne ? SY_R_REL_NE_TRUE : SY_R_REL_EQ_FALSE)
                     : (ne ? SY_R_REL_NE_TRUE_NEG : SY_R_REL_EQ_FALSE_NEG);
        val = (sg == 0) != ne;
    } else {
        id = sg <= 0 ? SY_R_REL_LE_TRUE : SY_R_REL_LE_FALSE;
        val = sg <= 0;
    }
    if (!sy_rule_on(ctx, id)) return NULL; /* counts the hit when on, as make_le/make_eq do */
    static const sy_rule_id form[] = {[SY_REL_EQ] = SY_R_REL_EQ_FORM, [SY_REL_NE] = SY_R_REL_NE_FORM, [SY_REL_LE] = SY_R_REL_LE_FORM,
                                      [SY_REL_LT] = SY_R_REL_LT_FORM, [SY_REL_GE] = SY_R_REL_GE_FORM, [SY_REL_GT] = SY_R_REL_GT_FORM};
    sy_rule_form(ctx, form[op]);
    return sy_expr_bool(ctx, val);
}

static const sy_expr *rel_build(sy_ctx *ctx, sy_rel_op op, const sy_expr *a, const sy_expr *b)
{
    if (a->kind == SY_EXPR_INT && b->kind == SY_EXPR_INT && (unsigned)op <= SY_REL_GE) {
        const sy_expr *r = rel_const(ctx, op, a, b);
        if (r) return r;
    }
    switch (op) {
    case SY_REL_EQ: sy_rule_form(ctx, SY_R_REL_EQ_FORM); return make_eq(ctx, sy_expr_sub(ctx, a, b), false);
    case SY_REL_NE: sy_rule_form(ctx, SY_R_REL_NE_FORM); return make_eq(ctx, sy_expr_sub(ctx, a, b), true);
    case SY_REL_LE: sy_rule_form(ctx, SY_R_REL_LE_FORM); return make_le(ctx, sy_expr_sub(ctx, a, b));
    case SY_REL_LT: sy_rule_form(ctx, SY_R_REL_LT_FORM); return make_le(ctx, sy_expr_add_si(ctx, sy_expr_sub(ctx, a, b), 1));
    case SY_REL_GE: sy_rule_form(ctx, SY_R_REL_GE_FORM); return make_le(ctx, sy_expr_sub(ctx, b, a));
    case SY_REL_GT: sy_rule_form(ctx, SY_R_REL_GT_FORM); return make_le(ctx, sy_expr_add_si(ctx, sy_expr_sub(ctx, b, a), 1));
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
    case SY_EXPR_TRUE: sy_rule_form(ctx, SY_R_NOT_TRUE); return sy_expr_false(ctx);
    case SY_EXPR_FALSE: sy_rule_form(ctx, SY_R_NOT_FALSE); return sy_expr_true(ctx);
    case SY_EXPR_EQ: sy_rule_form(ctx, SY_R_NOT_EQ); return sy_node2(ctx, SY_EXPR_NE, a->args[0], NULL);
    case SY_EXPR_NE: sy_rule_form(ctx, SY_R_NOT_NE); return sy_node2(ctx, SY_EXPR_EQ, a->args[0], NULL);
    case SY_EXPR_LE: /* not (d <= 0)  <=>  1 - d <= 0 */
        sy_rule_form(ctx, SY_R_NOT_LE);
        return make_le(ctx, sy_expr_sub(ctx, sy_expr_int_si(ctx, 1), a->args[0]));
    case SY_EXPR_AND:
    case SY_EXPR_OR: {
        sy_rule_form(ctx, a->kind == SY_EXPR_AND ? SY_R_NOT_AND : SY_R_NOT_OR);
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

/* Sort (rule AND_SORT / OR_SORT) and drop duplicates (AND_DUP / OR_DUP):
 * adjacent once sorted; unsorted (the sort switched off, a test switch) any
 * pair. */
static void sort_dedup(sy_ctx *ctx, const sy_expr **v, size_t *mp, bool is_and)
{
    size_t m = *mp;
    bool sorted = true;
    for (size_t i = 1; i < m && sorted; i++) sorted = sy_expr_cmp(v[i - 1], v[i]) <= 0;
    if (!sorted && sy_rule_on(ctx, is_and ? SY_R_AND_SORT : SY_R_OR_SORT)) {
        qsort(v, m, sizeof *v, cmp_ptr);
        sorted = true;
    }
    bool dup = false;
    for (size_t i = 0; i < m && !dup; i++)
        for (size_t j = i + 1; j < (sorted ? i + 2 : m) && j < m && !dup; j++) dup = v[i] == v[j];
    if (dup && sy_rule_on(ctx, is_and ? SY_R_AND_DUP : SY_R_OR_DUP)) {
        size_t k = 0;
        for (size_t i = 0; i < m; i++) {
            bool seen = false;
            for (size_t j = sorted && k ? k - 1 : 0; j < k && !seen; j++) seen = v[j] == v[i];
            if (!seen) v[k++] = v[i];
        }
        *mp = k;
    }
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
    bool flatten = false;
    for (size_t i = 0; i < n; i++) flatten = flatten || in[i]->kind == (uint8_t)kind;
    if (flatten) flatten = sy_rule_on(ctx, is_and ? SY_R_AND_FLATTEN : SY_R_OR_FLATTEN);
    for (size_t i = 0; i < n; i++) {
        const sy_expr *e = in[i];
        bool flat = flatten && e->kind == (uint8_t)kind;
        size_t k = flat ? e->n : 1;
        for (size_t j = 0; j < k; j++) {
            const sy_expr *x = flat ? e->args[j] : e;
            if (x == absorbing && sy_rule_on(ctx, is_and ? SY_R_AND_FALSE : SY_R_OR_TRUE)) {
                res = absorbing;
                goto done;
            }
            if (x != neutral || !sy_rule_on(ctx, is_and ? SY_R_AND_TRUE : SY_R_OR_FALSE)) v[m++] = x;
        }
    }
    sort_dedup(ctx, v, &m, is_and);
    if (m >= 2 && m <= 32) { /* both rules need two operands */
        /* complementary pairs: And(r, not r) = false, Or(r, not r) = true */
        for (size_t i = 0; i < m; i++) {
            const sy_expr *nr = sy_expr_not(ctx, v[i]);
            if (!nr) goto done;
            if (contains(v, m, nr) && sy_rule_on(ctx, is_and ? SY_R_AND_COMPLEMENT : SY_R_OR_COMPLEMENT)) {
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
                if (!sy_rule_on(ctx, is_and ? SY_R_AND_LE_PAIR : SY_R_OR_LE_PAIR)) continue;
                const sy_expr *merged = is_and ? make_eq(ctx, d, false)
                                               : make_eq(ctx, sy_expr_add_si(ctx, d, -1), true);
                if (!merged) goto done;
                v[i] = merged;
                v[j] = v[--m];
                i = (size_t)-1; /* restart: m shrank, so this terminates */
                break;
            }
        }
        sort_dedup(ctx, v, &m, is_and);
    }
    if (m == 0) {
        sy_rule_form(ctx, is_and ? SY_R_AND_EMPTY : SY_R_OR_EMPTY);
        res = neutral;
    } else if (m == 1 && sy_rule_on(ctx, is_and ? SY_R_AND_SINGLE : SY_R_OR_SINGLE)) {
        res = v[0];
    } else {
        res = sy_node_n(ctx, kind, m, v);
    }
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
