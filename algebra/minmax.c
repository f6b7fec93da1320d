/* Min and Max: flattening, constant collapse, duplicate removal, resolution of
 * arguments whose difference has a known sign (constant difference or
 * intrinsic bounds), absorption, common positive factor and sign flip. Each
 * is a rule of algebra/rules.def, applied only through its gate. */
#include <stdlib.h>
#include <string.h>

#include "algebra/expr_private.h"

typedef struct { const sy_expr **v; size_t n, cap; } argvec;

static bool push(sy_ctx *ctx, argvec *a, const sy_expr *e)
{
    if (a->n == a->cap) {
        size_t nc = a->cap ? a->cap * 2 : 8;
        const sy_expr **nv = sy_realloc(ctx, a->v, a->cap * sizeof *nv, nc * sizeof *nv);
        if (!nv) {
            sy_oom(ctx);
            return false;
        }
        a->v = nv;
        a->cap = nc;
    }
    a->v[a->n++] = e;
    return true;
}

static int cmp_ptr(const void *x, const void *y)
{
    return sy_expr_cmp(*(const sy_expr *const *)x, *(const sy_expr *const *)y);
}

/* sign of (a - b) if known everywhere: -1 (a <= b), +1 (a >= b), 0 unknown */
static int known_order(sy_ctx *ctx, const sy_expr *a, const sy_expr *b, bool *err)
{
    const sy_expr *d = sy_expr_sub(ctx, a, b);
    if (!d) {
        *err = true;
        return 0;
    }
    if (d->hi != SY_POS_INF && d->hi <= 0) return -1;
    if (d->lo != SY_NEG_INF && d->lo >= 0) return 1;
    return 0;
}

/* the absorption of minmax over a sorted argument list (false: out of memory) */
static bool absorb_sorted(sy_ctx *ctx, argvec *a, sy_expr_kind dual, bool is_min)
{
    size_t n = a->n;
    bool *gone = sy_alloc(ctx, n * sizeof *gone);
    if (!gone) return false;
    memset(gone, 0, n * sizeof *gone);
    for (size_t i = 0; i < n; i++) {
        const sy_expr *x = a->v[i];
        if (x->kind != (uint8_t)dual) continue;
        bool absorbed = false;
        for (uint32_t t = 0; t < x->n && !absorbed; t++) {
            const sy_expr *y = x->args[t];
            size_t lo = 0, hi = n; /* the first entry >= y */
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (sy_expr_cmp(a->v[mid], y) < 0) lo = mid + 1;
                else hi = mid;
            }
            for (size_t j = lo; j < n && a->v[j] == y && !absorbed; j++) absorbed = j != i && !gone[j];
        }
        if (absorbed && sy_rule_on(ctx, is_min ? SY_R_MIN_ABSORB : SY_R_MAX_ABSORB)) gone[i] = true;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!gone[i]) a->v[k++] = a->v[i];
    a->n = k;
    sy_dealloc(ctx, gone, n * sizeof *gone);
    return true;
}

static const sy_expr *minmax(sy_ctx *ctx, sy_expr_kind kind, size_t n, const sy_expr *const *in, bool normalise)
{
    const char *name = kind == SY_EXPR_MIN ? "Min" : "Max";
    if (!ctx) return NULL;
    if (n == 0) return sy_fail(ctx, SY_EINVAL, "%s needs at least one argument", name);
    for (size_t i = 0; i < n; i++) {
        if (!in[i]) return NULL;
        if (!sy_check_int(ctx, in[i], name)) return NULL;
    }
    bool is_min = kind == SY_EXPR_MIN;
    argvec a = {0};
    const sy_expr *res = NULL;
    const sy_expr *best_const = NULL;
    /* flatten nested same-kind nodes; collapse constants */
    bool flatten = false;
    size_t nconst = 0;
    for (size_t i = 0; i < n; i++) {
        flatten = flatten || in[i]->kind == (uint8_t)kind;
        nconst += in[i]->kind == SY_EXPR_INT;
    }
    if (flatten) flatten = sy_rule_on(ctx, is_min ? SY_R_MIN_FLATTEN : SY_R_MAX_FLATTEN);
    for (size_t i = 0; i < n && flatten; i++)
        if (in[i]->kind == (uint8_t)kind)
            for (uint32_t j = 0; j < in[i]->n; j++) nconst += in[i]->args[j]->kind == SY_EXPR_INT;
    bool collapse = nconst >= 2 && sy_rule_on(ctx, is_min ? SY_R_MIN_CONST : SY_R_MAX_CONST);
    for (size_t i = 0; i < n; i++) {
        const sy_expr *e = in[i];
        bool flat = flatten && e->kind == (uint8_t)kind;
        size_t m = flat ? e->n : 1;
        for (size_t j = 0; j < m; j++) {
            const sy_expr *x = flat ? e->args[j] : e;
            if (x->kind == SY_EXPR_INT && collapse) {
                if (!best_const) best_const = x;
                else {
                    int c = fmpz_cmp(&x->u.value, &best_const->u.value);
                    if ((kind == SY_EXPR_MIN && c < 0) || (kind == SY_EXPR_MAX && c > 0)) best_const = x;
                }
            } else if (!push(ctx, &a, x)) {
                goto done;
            }
        }
    }
    if (best_const && !push(ctx, &a, best_const)) goto done;
    /* Min(c, k*Min(d, X, ..) + b) = Min(c, k*X + b, ..) when k > 0 and k*d + b >= c (Max dually):
     * k*Min(d, X) + b = Min(k*d + b, k*X + b) and the constant k*d + b is dropped by c. Keeps
     * chains like Slice [1:2^62] then Concat from nesting one Min per step (issue 38 item 3:
     * quadratic trace, then "nested deeper than 2000 levels"). Each rewrite descends one level. */
    const sy_expr *cst = best_const;
    for (size_t i = 0; i < a.n && !cst; i++)
        if (a.v[i]->kind == SY_EXPR_INT) cst = a.v[i];
    if (cst && a.n > 1 && sy_rule_on(ctx, is_min ? SY_R_MIN_CONST_AFFINE : SY_R_MAX_CONST_AFFINE)) {
        fmpz_t kd;
        fmpz_init(kd);
        for (size_t i = 0; i < a.n;) {
            const sy_expr *x = a.v[i], *M = NULL;
            const fmpz *k = NULL, *b = NULL;
            if (x->kind == (uint8_t)kind) M = x;
            else if (x->kind == SY_EXPR_ADD && x->n == 1 && SY_CTERMS(x)[0].mono->kind == (uint8_t)kind &&
                     fmpz_sgn(&SY_CTERMS(x)[0].coef) > 0) {
                M = SY_CTERMS(x)[0].mono;
                k = &SY_CTERMS(x)[0].coef;
                b = &x->u.c0;
            }
            const sy_expr *d = NULL;
            for (uint32_t j = 0; M && j < M->n && !d; j++)
                if (M->args[j]->kind == SY_EXPR_INT) d = M->args[j];
            bool fire = false;
            if (d && M->n >= 2) {
                fmpz_set(kd, &d->u.value);
                if (k) fmpz_mul(kd, kd, k);
                if (b) fmpz_add(kd, kd, b);
                int c = fmpz_cmp(kd, &cst->u.value);
                fire = is_min ? c >= 0 : c <= 0;
            }
            if (!fire) {
                i++;
                continue;
            }
            /* a.v[i] becomes the first other argument's image, the others are appended */
            bool first = true;
            for (uint32_t j = 0; j < M->n; j++) {
                if (M->args[j] == d) continue;
                const sy_expr *y = M->args[j];
                if (k) y = sy_scale_fmpz(ctx, y, k);
                if (y && b) y = sy_add_fmpz(ctx, y, b);
                if (!y) {
                    fmpz_clear(kd);
                    goto done;
                }
                if (first) {
                    a.v[i] = y;
                    first = false;
                } else if (!push(ctx, &a, y)) {
                    fmpz_clear(kd);
                    goto done;
                }
            }
        }
        fmpz_clear(kd);
    }
    bool sorted = true;
    for (size_t i = 1; i < a.n && sorted; i++) sorted = sy_expr_cmp(a.v[i - 1], a.v[i]) <= 0;
    if (!sorted && sy_rule_on(ctx, is_min ? SY_R_MIN_SORT : SY_R_MAX_SORT)) {
        qsort(a.v, a.n, sizeof *a.v, cmp_ptr);
        sorted = true;
    }
    /* duplicates: adjacent once sorted (unsorted only with MIN_SORT off, a
     * test switch: then any pair, quadratic) */
    bool dup = false;
    for (size_t i = 0; i < a.n && !dup; i++)
        for (size_t j = i + 1; j < (sorted ? i + 2 : a.n) && j < a.n && !dup; j++) dup = a.v[i] == a.v[j];
    if (dup && sy_rule_on(ctx, is_min ? SY_R_MIN_DUP : SY_R_MAX_DUP)) {
        size_t k = 0;
        for (size_t i = 0; i < a.n; i++) {
            bool seen = false;
            for (size_t j = sorted && k ? k - 1 : 0; j < k && !seen; j++) seen = a.v[j] == a.v[i];
            if (!seen) a.v[k++] = a.v[i];
        }
        a.n = k;
    }
    /* resolve pairs with a known order (bounded work) */
    if (a.n <= 16) {
        bool err = false, dead[16] = {false};
        for (size_t i = 0; i < a.n; i++) {
            for (size_t j = i + 1; j < a.n && !dead[i]; j++) {
                if (dead[j]) continue;
                int o = known_order(ctx, a.v[i], a.v[j], &err);
                if (err) goto done;
                if (o == 0 || !sy_rule_on(ctx, is_min ? SY_R_MIN_ORDER : SY_R_MAX_ORDER)) continue;
                /* Min keeps the smaller, Max the larger */
                bool drop_j = (kind == SY_EXPR_MIN) ? (o < 0) : (o > 0);
                dead[drop_j ? j : i] = true;
            }
        }
        size_t live = 0;
        for (size_t i = 0; i < a.n; i++)
            if (!dead[i]) a.v[live++] = a.v[i];
        a.n = live;
    }
    /* absorption: Min(a, Max(a, b)) = a, Max(a, Min(a, b)) = a */
    sy_expr_kind dual = kind == SY_EXPR_MIN ? SY_EXPR_MAX : SY_EXPR_MIN;
    if (sorted && a.n > 16) {
        /* Sorted: each argument of a dual node is looked up by binary search, not compared with
         * every other argument (issue 38: Max of 20000 Mins took 1.5 s, quadratic). Same result
         * as the scan below: in index order, x is dropped when an argument of x is another entry
         * not dropped before it. */
        bool any = false;
        for (size_t i = 0; i < a.n && !any; i++) any = a.v[i]->kind == (uint8_t)dual;
        if (any && !absorb_sorted(ctx, &a, dual, is_min)) goto done;
    } else
    for (size_t i = 0; i < a.n; i++) {
        const sy_expr *x = a.v[i];
        if (x->kind != (uint8_t)dual) continue;
        bool absorbed = false;
        for (uint32_t t = 0; t < x->n && !absorbed; t++)
            for (size_t j = 0; j < a.n && !absorbed; j++)
                if (j != i && a.v[j] == x->args[t]) absorbed = true;
        if (absorbed && sy_rule_on(ctx, is_min ? SY_R_MIN_ABSORB : SY_R_MAX_ABSORB)) {
            for (size_t t = i; t + 1 < a.n; t++) a.v[t] = a.v[t + 1];
            a.n--;
            i--;
        }
    }
    if (a.n == 1 && sy_rule_on(ctx, is_min ? SY_R_MIN_SINGLE : SY_R_MAX_SINGLE)) {
        res = a.v[0];
        goto done;
    }
    if (normalise && a.n >= 2) {
        /* common non-constant terms: Max(a + X, b + X) = X + Max(a, b) */
        const sy_expr *first = a.v[0];
        size_t nt = first->kind == SY_EXPR_ADD ? first->n : (first->kind == SY_EXPR_INT ? 0 : 1);
        sy_terms common;
        sy_terms_init(&common);
        bool okc = true;
        for (size_t t = 0; t < nt && okc; t++) {
            const sy_expr *m = first->kind == SY_EXPR_ADD ? SY_CTERMS(first)[t].mono : first;
            fmpz_t cf;
            fmpz_init_set_ui(cf, 1);
            if (first->kind == SY_EXPR_ADD) fmpz_set(cf, &SY_CTERMS(first)[t].coef);
            bool in_all = true;
            for (size_t i = 1; i < a.n && in_all; i++) {
                const sy_expr *x = a.v[i];
                bool found = false;
                if (x == m && fmpz_is_one(cf)) found = true;
                if (x->kind == SY_EXPR_ADD)
                    for (uint32_t j = 0; j < x->n && !found; j++)
                        found = SY_CTERMS(x)[j].mono == m && fmpz_equal(&SY_CTERMS(x)[j].coef, cf);
                in_all = found;
            }
            if (in_all) okc = sy_terms_push(ctx, &common, cf, m);
            fmpz_clear(cf);
        }
        if (!okc) {
            sy_terms_clear(ctx, &common);
            goto done;
        }
        if (common.n > 0 && sy_rule_on(ctx, is_min ? SY_R_MIN_COMMON_TERM : SY_R_MAX_COMMON_TERM)) {
            const sy_expr *X = sy_terms_build(ctx, &common);
            sy_terms_clear(ctx, &common);
            for (size_t i = 0; i < a.n && X; i++) {
                a.v[i] = sy_expr_sub(ctx, a.v[i], X);
                if (!a.v[i]) X = NULL;
            }
            res = X ? sy_expr_add(ctx, X, minmax(ctx, kind, a.n, a.v, true)) : NULL;
            goto done;
        }
        sy_terms_clear(ctx, &common);
        /* common factor g > 1: Min(g*a, g*b) = g*Min(a, b); all leading
         * coefficients negative: Min(-a, -b) = -Max(a, b) */
        fmpz_t g, t;
        fmpz_init(g);
        fmpz_init(t);
        bool allneg = true;
        for (size_t i = 0; i < a.n; i++) {
            sy_content(t, a.v[i]);
            fmpz_gcd(g, g, t);
            if (sy_leading_sign(a.v[i]) >= 0) allneg = false;
        }
        if (allneg) fmpz_neg(g, g);
        if (!fmpz_is_one(g) && !fmpz_is_zero(g) &&
            sy_rule_on(ctx, allneg ? (is_min ? SY_R_MIN_NEG_FACTOR : SY_R_MAX_NEG_FACTOR)
                                   : (is_min ? SY_R_MIN_COMMON_FACTOR : SY_R_MAX_COMMON_FACTOR))) {
            for (size_t i = 0; i < a.n && a.v[i]; i++) a.v[i] = sy_divexact_fmpz(ctx, a.v[i], g);
            bool ok = true;
            for (size_t i = 0; i < a.n; i++) ok = ok && a.v[i];
            const sy_expr *inner = ok ? minmax(ctx, allneg ? dual : kind, a.n, a.v, false) : NULL;
            res = inner ? sy_scale_fmpz(ctx, inner, g) : NULL;
            fmpz_clear(g);
            fmpz_clear(t);
            goto done;
        }
        fmpz_clear(g);
        fmpz_clear(t);
    }
    res = sy_node_n(ctx, kind, a.n, a.v);
done:
    if (a.v) sy_dealloc(ctx, a.v, a.cap * sizeof *a.v);
    return res;
}

const sy_expr *sy_expr_min_n(sy_ctx *ctx, size_t n, const sy_expr *const *args)
{
    return minmax(ctx, SY_EXPR_MIN, n, args, true);
}
const sy_expr *sy_expr_max_n(sy_ctx *ctx, size_t n, const sy_expr *const *args)
{
    return minmax(ctx, SY_EXPR_MAX, n, args, true);
}
const sy_expr *sy_expr_min(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    const sy_expr *v[2] = {a, b};
    return sy_expr_min_n(ctx, 2, v);
}
const sy_expr *sy_expr_max(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    const sy_expr *v[2] = {a, b};
    return sy_expr_max_n(ctx, 2, v);
}
