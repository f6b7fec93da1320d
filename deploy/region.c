/* The largest valid region of a guard set (include/symshape/deploy.h,
 * docs/deploy.md, issue 36): statics and derived dims from the linear
 * equalities, per root a range and a progression, every guard proved under
 * the region with sy_decide or kept as a runtime check. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/eval.h"
#include "algebra/internal.h"
#include "deploy/deploy_private.h"

/* ---- small helpers */

char *sy_dp_strdup(sy_region *r, const char *s)
{
    size_t n = strlen(s) + 1;
    if (r->nstr == r->strcap) {
        size_t nc = r->strcap ? r->strcap * 2 : 32;
        char **ns = sy_realloc(r->ctx, r->strs, r->strcap * sizeof *ns, nc * sizeof *ns);
        if (!ns) return NULL;
        r->strs = ns;
        r->strcap = nc;
    }
    char *p = sy_alloc(r->ctx, n);
    if (!p) return NULL;
    memcpy(p, s, n);
    r->strs[r->nstr++] = p;
    return p;
}

static int64_t gcd64(int64_t a, int64_t b)
{
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int64_t fmod64(int64_t a, int64_t m) { return ((a % m) + m) % m; }

/* the slot of source variable v, or -1: the set's index of its source texts (O(1); a scan of
 * the n sources here made sy_region_new quadratic in the inputs, issue 38) */
static long slot_of(const sy_gset *gs, size_t n, const sy_expr *v)
{
    const char *name = sy_expr_kind_of(v) == SY_EXPR_SYM ? sy_expr_sym_name(v) : NULL;
    long s = name ? sy_gset_find_source(gs, name) : -1;
    return s >= 0 && (size_t)s < n && sy_gset_source_var(gs, (size_t)s) == v ? s : -1;
}

/* e is `d == 0` with d linear in symbols (no atoms, no products) */
static int linear_eq(const sy_expr *e)
{
    if (sy_expr_kind_of(e) != SY_EXPR_EQ) return 0;
    const sy_expr *d = sy_expr_arg(e, 0);
    if (sy_expr_kind_of(d) == SY_EXPR_SYM) return 1;
    if (sy_expr_kind_of(d) != SY_EXPR_ADD) return 0;
    for (size_t k = 0; k < sy_expr_nargs(d); k++)
        if (sy_expr_kind_of(sy_expr_arg(d, k)) != SY_EXPR_SYM) return 0;
    return 1;
}

/* The disjunct of an Or guard the region takes (lost46: a two-way broadcast's
 * Or(a == 1, a == b, b == 1), shapeenv/rules.c): a linear equality that holds at the example,
 * one relating two sources or more first (a tie, the region's shared dim, which the guard
 * was before), else NULL. The region is then a part of what the guard accepts, and the guard
 * is proved under it; a Dim spec cannot express the disjunction itself. */
static const sy_expr *or_branch(const sy_gset *gs, size_t n, const sy_expr *e)
{
    sy_ctx *ctx = sy_gset_ctx(gs);
    const sy_expr *best = NULL;
    size_t bestn = 0;
    for (size_t j = 0; j < sy_expr_nargs(e); j++) {
        const sy_expr *d = sy_expr_arg(e, j), **fs = NULL;
        size_t nf = 0;
        if (!linear_eq(d) || sy_expr_free_symbols(ctx, d, &fs, &nf) != SY_OK) {
            sy_ctx_reset_error(ctx);
            continue;
        }
        int64_t vals[8], v = 0;
        int ok = nf > 0 && nf <= 8;
        for (size_t k = 0; k < nf && ok; k++) {
            long sl = slot_of(gs, n, fs[k]);
            ok = sl >= 0 && sy_gset_source_example(gs, (size_t)sl, &vals[k]);
        }
        ok = ok && sy_expr_eval_si(ctx, d, nf, fs, vals, &v) == SY_OK && v;
        sy_ctx_reset_error(ctx);
        sy_mem_free(ctx, fs);
        if (ok && (!best || (nf >= 2 && bestn < 2))) {
            best = d;
            bestn = nf;
        }
    }
    return best;
}

/* e is `P != 0` with P a constant times a product of size sources (a Mul or a power of them, no
 * constant term): sizes are >= 0, so it holds exactly when each factor is >= 1 (issue 38: `a*b != 0`
 * was kept as relating several dims). */
static int product_ne(const sy_gset *gs, const sy_region *r, size_t n, const sy_expr *e)
{
    if (sy_expr_kind_of(e) != SY_EXPR_NE) return 0;
    const sy_expr *d = sy_expr_arg(e, 0);
    if (sy_expr_kind_of(d) == SY_EXPR_ADD) { /* c*M: one term, constant term 0 */
        const sy_expr *c0 = sy_expr_add_const(sy_gset_ctx(gs), d);
        if (sy_expr_nargs(d) != 1 || !c0 || c0 != sy_expr_int_si(sy_gset_ctx(gs), 0)) return 0;
        d = sy_expr_arg(d, 0);
    }
    sy_expr_kind k = sy_expr_kind_of(d);
    if (k != SY_EXPR_MUL && k != SY_EXPR_POW) return 0;
    size_t nf = k == SY_EXPR_MUL ? sy_expr_nargs(d) : 1;
    for (size_t i = 0; i < nf; i++) {
        const sy_expr *f = k == SY_EXPR_MUL ? sy_expr_arg(d, i) : d;
        if (sy_expr_kind_of(f) == SY_EXPR_POW) f = sy_expr_arg(f, 0);
        long sl = slot_of(gs, n, f);
        if (sl < 0 || r->srckind[sl] != SY_SOURCE_SIZE) return 0;
    }
    return 1;
}

/* v as a*s + b with s a source slot (*slot), or a constant (*slot = -1, a = 0).
 * 1 on success, 0 when v has another form, -1 on an error (recorded). */
static int affine_of(sy_ctx *ctx, const sy_gset *gs, size_t n, const sy_expr *v, long *slot, int64_t *a, int64_t *b)
{
    *slot = -1;
    *a = 0;
    *b = 0;
    switch (sy_expr_kind_of(v)) {
    case SY_EXPR_INT:
        if (sy_expr_get_si(v, b) != SY_OK) return sy_fail_st(ctx, SY_EOVERFLOW, "region: a size constant does not fit int64"), -1;
        return 1;
    case SY_EXPR_SYM:
        *slot = slot_of(gs, n, v);
        *a = 1;
        return *slot >= 0;
    case SY_EXPR_ADD: {
        if (sy_expr_nargs(v) != 1) return 0;
        const sy_expr *m = sy_expr_arg(v, 0);
        if (sy_expr_kind_of(m) != SY_EXPR_SYM) return 0;
        *slot = slot_of(gs, n, m);
        if (*slot < 0) return 0;
        const sy_expr *c = sy_expr_add_coeff(ctx, v, 0), *k = sy_expr_add_const(ctx, v);
        if (!c || !k) return -1;
        if (sy_expr_get_si(c, a) != SY_OK || sy_expr_get_si(k, b) != SY_OK)
            return sy_fail_st(ctx, SY_EOVERFLOW, "region: a coefficient does not fit int64"), -1;
        return 1;
    }
    default:
        return 0;
    }
}

/* Every size source affine in one size source with a positive coefficient (or
 * constant) under f: 1 yes, 0 no, -1 error. */
static int all_affine(sy_region *r, const sy_gset *gs, sy_facts *f)
{
    for (size_t i = 0; i < r->nsrc; i++) {
        const sy_expr *v = sy_facts_apply(f, sy_gset_source_var(gs, i));
        if (!v) return -1;
        long s;
        int64_t a, b;
        int ok = affine_of(r->ctx, gs, r->nsrc, v, &s, &a, &b);
        if (ok < 0) return -1;
        if (r->srckind[i] != SY_SOURCE_SIZE) {
            if (!ok) continue; /* a dtype or stride source may be anything: its guards are checked as they are */
            continue;
        }
        if (!ok) return 0;
        if (s >= 0 && (r->srckind[s] != SY_SOURCE_SIZE || a < 1)) return 0;
    }
    return 1;
}

/* eq under feq is `r == k` or `-r == k` (a static dim `x.size()[0] == 4`, a dim tied to one
 * already pinned), or `r - q == k` with r and q size sources (two inputs' dims tied, a cat's):
 * adding it to feq pins r, or writes one of r, q as the other plus a constant, which is
 * consistent (r and q are free under feq: symbols of the applied form) and leaves every size
 * affine in a size root with the same coefficient, so it needs neither the trial copy of feq
 * nor the check of every source, which per equality made sy_region_new quadratic in the inputs
 * (issue 38). 1 yes, 0 no (the trial decides), -1 error. */
static int keeps_affine(sy_region *r, const sy_gset *gs, sy_facts *feq, const sy_expr *eq)
{
    sy_ctx *ctx = r->ctx;
    const sy_expr *a = sy_facts_apply(feq, eq);
    if (!a) return -1;
    if (sy_expr_kind_of(a) != SY_EXPR_EQ) return 0;
    const sy_expr *d = sy_expr_arg(a, 0);
    if (sy_expr_kind_of(d) == SY_EXPR_SYM) return 1;
    size_t nt = sy_expr_nargs(d);
    if (sy_expr_kind_of(d) != SY_EXPR_ADD || nt < 1 || nt > 2) return 0;
    int64_t c[2] = {0, 0};
    for (size_t i = 0; i < nt; i++) {
        const sy_expr *m = sy_expr_arg(d, i), *k = sy_expr_add_coeff(ctx, d, i);
        if (!k) return -1;
        if (sy_expr_kind_of(m) != SY_EXPR_SYM) return 0;
        if (sy_expr_get_si(k, &c[i]) != SY_OK) {
            sy_ctx_reset_error(ctx);
            return 0;
        }
        if (c[i] != 1 && c[i] != -1) return 0;
        if (nt == 2) {
            long sl = slot_of(gs, r->nsrc, m);
            if (sl < 0 || r->srckind[sl] != SY_SOURCE_SIZE) return 0;
        }
    }
    return nt == 1 || c[0] == -c[1];
}

/* ---- divisors of a guard (decided non-zero: a division by zero fails the guard) */
typedef struct {
    sy_ctx *ctx;
    const sy_expr **divs;
    size_t n, cap;
    sy_memo seen;
} divwalk;

static int div_skip(void *ud, const sy_expr *e)
{
    divwalk *w = ud;
    return sy_memo_get(&w->seen, e) != NULL;
}

static sy_status div_visit(void *ud, const sy_expr *e)
{
    divwalk *w = ud;
    if (!sy_memo_put(w->ctx, &w->seen, e, e)) return SY_ENOMEM;
    sy_expr_kind k = sy_expr_kind_of(e);
    if (k != SY_EXPR_FLOORDIV && k != SY_EXPR_MOD && k != SY_EXPR_CEILDIV) return SY_OK;
    const sy_expr *d = sy_expr_arg(e, 1);
    if (sy_expr_is_int(d)) return SY_OK;
    if (w->n == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 8;
        const sy_expr **nd = sy_realloc(w->ctx, w->divs, w->cap * sizeof *nd, nc * sizeof *nd);
        if (!nd) return SY_ENOMEM;
        w->divs = nd;
        w->cap = nc;
    }
    w->divs[w->n++] = d;
    return SY_OK;
}

/* TRUE when e holds at every point of the region (facts f) and each of its
 * symbolic divisors is non-zero there; *out the answer. */
sy_status sy_dp_set_range(sy_ctx *ctx, sy_facts *f, const sy_expr *sym, int64_t lo, const int64_t *hi)
{
    const sy_expr *a = sy_expr_ge(ctx, sym, sy_expr_int_si(ctx, lo));
    if (!a) return sy_ctx_last_error(ctx) != SY_OK ? sy_ctx_last_error(ctx) : SY_ENOMEM;
    sy_status st = sy_facts_add(f, a);
    if (st != SY_OK || !hi) return st;
    const sy_expr *b = sy_expr_le(ctx, sym, sy_expr_int_si(ctx, *hi));
    if (!b) return sy_ctx_last_error(ctx) != SY_OK ? sy_ctx_last_error(ctx) : SY_ENOMEM;
    return sy_facts_add(f, b);
}

sy_status sy_dp_decide_total(sy_ctx *ctx, sy_facts *f, const sy_expr *e, sy_truth *out)
{
    sy_status st = sy_decide(f, e, out);
    if (st != SY_OK || *out != SY_TRUTH_TRUE) return st;
    divwalk w = {ctx, NULL, 0, 0, {0}};
    if (!sy_memo_init(ctx, &w.seen)) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    st = sy_expr_walk_postorder(ctx, e, div_skip, div_visit, &w);
    for (size_t i = 0; st == SY_OK && i < w.n && *out == SY_TRUTH_TRUE; i++) {
        const sy_expr *ne = sy_expr_ne(ctx, w.divs[i], sy_expr_int_si(ctx, 0));
        if (!ne) {
            st = sy_ctx_last_error(ctx);
            break;
        }
        sy_truth t;
        st = sy_decide(f, ne, &t);
        if (st == SY_OK && t != SY_TRUTH_TRUE) *out = SY_TRUTH_UNKNOWN;
    }
    sy_memo_clear(ctx, &w.seen);
    if (w.divs) sy_dealloc(ctx, w.divs, w.cap * sizeof *w.divs);
    if (st == SY_ENOMEM) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    return st;
}

sy_status sy_dp_eval_si(sy_ctx *ctx, sy_binding *b, const sy_expr *e, size_t n, const sy_expr *const *syms,
                        const int64_t *vals, int64_t *out)
{
    for (size_t i = 0; i < n; i++)
        if (!syms[i] || sy_expr_kind_of(syms[i]) != SY_EXPR_SYM || sy_expr_sym_id(syms[i]) >= b->n)
            return sy_expr_eval_si(ctx, e, n, syms, vals, out);
    if (!e || !out || (n && !vals)) return sy_fail_st(ctx, SY_EINVAL, "eval: NULL argument");
    fmpz_t x, r;
    fmpz_init(x);
    fmpz_init(r);
    for (size_t i = 0; i < n; i++) {
        fmpz_set_si(x, vals[i]);
        sy_binding_set(b, sy_expr_sym_id(syms[i]), x);
    }
    sy_op_begin(ctx, true);
    sy_status st = sy_eval_raw(ctx, e, b, r);
    if (st == SY_OK) {
        if (fmpz_fits_si(r)) *out = fmpz_get_si(r);
        else st = sy_fail_st(ctx, SY_EOVERFLOW, "value does not fit int64");
    }
    st = sy_op_end_st(ctx, st);
    for (size_t i = 0; i < n; i++) b->has[sy_expr_sym_id(syms[i])] = 0;
    fmpz_clear(x);
    fmpz_clear(r);
    return st;
}

/* ---- the region */

static void region_release(sy_region *r)
{
    sy_ctx *ctx = r->ctx;
    for (size_t i = 0; i < r->nstr; i++) sy_str_free(ctx, r->strs[i]);
    if (r->strs) sy_dealloc(ctx, r->strs, r->strcap * sizeof *r->strs);
    if (r->vars) sy_dealloc(ctx, r->vars, r->nsrc * sizeof *r->vars);
    if (r->dims) sy_dealloc(ctx, r->dims, r->nsrc * sizeof *r->dims);
    if (r->kept) sy_dealloc(ctx, r->kept, r->keptcap * sizeof *r->kept);
    if (r->srckind) sy_dealloc(ctx, r->srckind, r->nsrc * sizeof *r->srckind);
    if (r->dimof) sy_dealloc(ctx, r->dimof, r->nsrc * sizeof *r->dimof);
    if (r->tvar) sy_dealloc(ctx, r->tvar, r->nsrc * sizeof *r->tvar);
}

sy_region *sy_region_free(sy_region *r)
{
    if (!r) return NULL;
    sy_ctx *ctx = r->ctx;
    region_release(r);
    sy_dealloc(ctx, r, sizeof *r);
    return NULL;
}

static sy_status add_kept(sy_region *r, size_t guard, const char *text, const char *reason)
{
    if (r->nkept == r->keptcap) {
        size_t nc = r->keptcap ? r->keptcap * 2 : 8;
        sy_region_kept *nk = sy_realloc(r->ctx, r->kept, r->keptcap * sizeof *nk, nc * sizeof *nk);
        if (!nk) return sy_fail_st(r->ctx, SY_ENOMEM, "out of memory");
        r->kept = nk;
        r->keptcap = nc;
    }
    const char *t = sy_dp_strdup(r, text ? text : "?"), *w = sy_dp_strdup(r, reason);
    if (!t || !w) return sy_fail_st(r->ctx, SY_ENOMEM, "out of memory");
    r->kept[r->nkept++] = (sy_region_kept){guard, t, w};
    return SY_OK;
}

/* a Python identifier from NAME and DIM: NAME_DIM with every other byte '_' */
static sy_status dim_name(sy_region *r, const char *src, size_t namelen, size_t dim, const char *declared, const char **out)
{
    char buf[192];
    if (declared) {
        snprintf(buf, sizeof buf, "%s", declared);
    } else {
        size_t k = 0;
        if (namelen && src[0] >= '0' && src[0] <= '9') buf[k++] = 'd';
        for (size_t i = 0; i < namelen && k < 150; i++) {
            char c = src[i];
            buf[k++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ? c : '_';
        }
        snprintf(buf + k, sizeof buf - k, "_%zu", dim);
    }
    *out = sy_dp_strdup(r, buf);
    return *out ? SY_OK : sy_fail_st(r->ctx, SY_ENOMEM, "out of memory");
}

/* Per-root scan: the guards reading only the root evaluated exactly at every size of one or
 * two windows (the range's low end, the example), and from the accepted sizes the
 * progression the region takes: the step g (gcd of the differences), then the run of
 * accepted sizes step g apart around the example (its component), or, when that run holds
 * under half of the accepted sizes, their hull (the guards that cut holes are then kept). */
typedef struct {
    int64_t m, res, tmin, tmax; /* size = m*t + res, t in [tmin, tmax] (tmax SY_REGION_UNBOUNDED) */
} scan_out;

typedef struct {
    int64_t a, b;       /* sizes [a, b) */
    unsigned char *acc; /* b - a flags */
} window;

static sy_status eval_window(sy_ctx *ctx, sy_binding *b, const sy_expr *var, const sy_expr *const *conds, size_t nc, window *wd)
{
    for (int64_t v = wd->a; v < wd->b; v++) {
        int ok = 1;
        for (size_t k = 0; k < nc && ok; k++) {
            int64_t out = 0;
            sy_status st = sy_dp_eval_si(ctx, b, conds[k], 1, &var, &v, &out);
            if (st == SY_ENOMEM) return st;
            if (st != SY_OK) { /* a division by zero, a budget: not accepted here (the proof decides) */
                sy_ctx_reset_error(ctx);
                ok = 0;
            } else {
                ok = out != 0;
            }
        }
        wd->acc[v - wd->a] = (unsigned char)ok;
    }
    return SY_OK;
}

static int acc_at(const window *w, int nw, int64_t v)
{
    for (int i = 0; i < nw; i++)
        if (v >= w[i].a && v < w[i].b) return w[i].acc[v - w[i].a];
    return -1; /* not scanned */
}

/* the lcm of the constant divisors of FloorDiv/Mod in the conditions (0: none, or past 2^40) */
typedef struct {
    sy_ctx *ctx;
    int64_t l;
    sy_memo seen;
} modwalk;

static int mod_skip(void *ud, const sy_expr *e) { return sy_memo_get(&((modwalk *)ud)->seen, e) != NULL; }

static sy_status mod_visit(void *ud, const sy_expr *e)
{
    modwalk *w = ud;
    if (!sy_memo_put(w->ctx, &w->seen, e, e)) return SY_ENOMEM;
    sy_expr_kind k = sy_expr_kind_of(e);
    int64_t d;
    if ((k != SY_EXPR_FLOORDIV && k != SY_EXPR_MOD && k != SY_EXPR_CEILDIV) || !sy_expr_is_int(sy_expr_arg(e, 1))) return SY_OK;
    if (sy_expr_get_si(sy_expr_arg(e, 1), &d) != SY_OK) {
        sy_ctx_reset_error(w->ctx);
        w->l = -1;
        return SY_OK;
    }
    if (d < 0) d = -d;
    if (d < 2 || w->l < 0) return SY_OK;
    int64_t l = w->l ? w->l : 1, lcm = l / gcd64(l, d);
    w->l = __builtin_mul_overflow(lcm, d, &lcm) || lcm > ((int64_t)1 << 40) ? -1 : lcm;
    return SY_OK;
}

static sy_status cond_moduli(sy_ctx *ctx, const sy_expr *const *conds, size_t nc, int64_t *out)
{
    modwalk w = {ctx, 0, {0}};
    *out = 0;
    if (!sy_memo_init(ctx, &w.seen)) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    sy_status st = SY_OK;
    for (size_t k = 0; k < nc && st == SY_OK; k++) st = sy_expr_walk_postorder(ctx, conds[k], mod_skip, mod_visit, &w);
    sy_memo_clear(ctx, &w.seen);
    if (st == SY_OK) *out = w.l > 0 ? w.l : 0;
    return st;
}

/* 1 when every condition holds at size v (exactly), 0 when one fails or cannot be evaluated */
static sy_status accepts_at(sy_ctx *ctx, sy_binding *b, const sy_expr *var, const sy_expr *const *conds, size_t nc, int64_t v, int *ok)
{
    *ok = 1;
    for (size_t k = 0; k < nc && *ok; k++) {
        int64_t out = 0;
        sy_status st = sy_dp_eval_si(ctx, b, conds[k], 1, &var, &v, &out);
        if (st == SY_ENOMEM) return st;
        if (st != SY_OK) sy_ctx_reset_error(ctx);
        *ok = st == SY_OK && out != 0;
    }
    return SY_OK;
}

static sy_status scan_root(sy_region *r, sy_binding *b, const sy_expr *var, const sy_expr *const *conds, size_t nc, int64_t lo, int have_hi,
                           int64_t hi, int64_t ex, int64_t W, scan_out *o)
{
    sy_ctx *ctx = r->ctx;
    window w[2];
    int nw;
    int64_t top = have_hi && hi < INT64_MAX ? hi + 1 : INT64_MAX;
    if (ex - lo <= 8 * W) {
        nw = 1;
        w[0].a = lo;
        w[0].b = (ex + W > lo + W ? ex + W : lo + W);
    } else {
        nw = 2;
        w[0].a = lo;
        w[0].b = lo + W;
        w[1].a = ex - W;
        w[1].b = ex + W;
    }
    for (int i = 0; i < nw; i++) {
        if (w[i].b > top) w[i].b = top;
        if (w[i].b < w[i].a) w[i].b = w[i].a;
        w[i].acc = NULL;
    }
    sy_status st = SY_OK;
    for (int i = 0; i < nw && st == SY_OK; i++) {
        size_t len = (size_t)(w[i].b - w[i].a);
        if (!(w[i].acc = sy_alloc(ctx, len ? len : 1))) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        else st = eval_window(ctx, b, var, conds, nc, &w[i]);
    }
    if (st != SY_OK) goto out;
    /* the step and the accepted count; gw: the step seen inside one window (two accepted sizes of
     * one window), 0 when each window holds at most one: then the gap between the windows is no
     * step anybody saw (--window 1 made 28*k + 4 of a 4*k, the gap from the low end 4 to the
     * example 32), and the guards' moduli are tried first, as for one accepted size */
    int64_t first = -1, g = 0, gw = 0, count = 0, last = -1;
    for (int i = 0; i < nw; i++) {
        int64_t wfirst = -1;
        for (int64_t v = w[i].a; v < w[i].b; v++)
            if (w[i].acc[v - w[i].a]) {
                if (first < 0) first = v;
                else g = gcd64(g, v - first);
                if (wfirst < 0) wfirst = v;
                else gw = gcd64(gw, v - wfirst);
                last = v;
                count++;
            }
    }
    if (count == 0) { /* nothing accepted: the example alone (the proof decides) */
        *o = (scan_out){1, 0, ex, ex};
        goto out;
    }
    if (gw == 0) { /* at most one size per window: a progression longer than them, when the guards' moduli step to the
                     * next accepted sizes (their lcm L: first + L and first + 2L accepted), else the gap between the
                     * windows' sizes (g), else that size alone */
        int64_t L = 0;
        if ((st = cond_moduli(ctx, conds, nc, &L)) != SY_OK) goto out;
        int ok1 = 0, ok2 = 0;
        if (L > 1 && first <= INT64_MAX / 4 - 2 * L && first + 2 * L < top) {
            if ((st = accepts_at(ctx, b, var, conds, nc, first + L, &ok1)) != SY_OK ||
                (st = accepts_at(ctx, b, var, conds, nc, first + 2 * L, &ok2)) != SY_OK)
                goto out;
        }
        if (ok1 && ok2) g = L;
        else if (g == 0) {
            *o = (scan_out){1, 0, first, first};
            goto out;
        }
    }
    int64_t anchor = acc_at(w, nw, ex) == 1 ? ex : first;
    /* the component around the anchor, step g; from the example's window down into the low end's
     * window across the sizes between them that were not scanned (the proof decides every guard
     * over the region, so a hole there keeps that guard) */
    int64_t cl = anchor, ch = anchor, ccount = 1;
    for (;;) {
        int a = acc_at(w, nw, cl - g);
        if (a == 1) {
            cl -= g;
            ccount++;
            continue;
        }
        if (a < 0 && nw == 2 && cl - g >= w[0].b && cl >= w[1].a && w[0].b > w[0].a) {
            int64_t v = w[0].b - 1 - fmod64(w[0].b - 1 - cl, g); /* the last size of the low window in step */
            if (v >= w[0].a && acc_at(w, nw, v) == 1) {
                cl = v;
                ccount++;
                continue;
            }
        }
        break;
    }
    int chi_open = 0; /* the run reaches the end of the scanned sizes below the range's end */
    for (;;) {
        int a = acc_at(w, nw, ch + g);
        if (a == 1) {
            ch += g;
            ccount++;
        } else {
            chi_open = a < 0 && ch + g < top;
            break;
        }
    }
    int64_t lo_s, hi_s;
    int unbounded = 0;
    if (2 * ccount >= count) {
        lo_s = cl;
        hi_s = ch;
        if (chi_open) {
            if (have_hi) hi_s = hi - fmod64(hi - cl, g);
            else unbounded = 1;
        }
    } else { /* the hull: the guards that cut holes are kept */
        lo_s = first;
        int open = acc_at(w, nw, last + 1) < 0 && last + 1 < top;
        if (open && !have_hi) unbounded = 1;
        hi_s = open && have_hi ? hi - fmod64(hi - first, g) : last;
    }
    o->m = g;
    o->res = fmod64(lo_s, g);
    o->tmin = (lo_s - o->res) / g;
    o->tmax = unbounded ? SY_REGION_UNBOUNDED : (hi_s - o->res) / g;
out:
    for (int i = 0; i < nw; i++)
        if (w[i].acc) sy_dealloc(ctx, w[i].acc, (size_t)(w[i].b - w[i].a) ? (size_t)(w[i].b - w[i].a) : 1);
    return st;
}

/* the per-source working arrays of sy_region_new */
typedef struct {
    const sy_expr **gp;   /* guard i after the equalities (NULL: a runtime assert) */
    const sy_expr **conds;
    const sy_expr **sub;  /* source i in the region's variables (NULL: left as it is) */
    const sy_expr **syms;
    long *root;           /* size source: its root slot, -1 static; other sources: -1 constant, else itself */
    int64_t *ca, *cb;     /* source = ca*root + cb (cb alone when static) */
    int64_t *da, *db;     /* size source = da*t[tvar[root]] + db */
    long *gk, *gone;      /* per guard: the number of roots it reads (0, 1, 2 = several) and the one */
    size_t *gat, *gby;    /* the guards reading root s alone: gby[gat[s] .. gat[s + 1]) */
    size_t *dat, *dby;    /* the size sources of root s: dby[dat[s] .. dat[s + 1]) */
    size_t n, ng;
} work;

static void work_free(sy_ctx *ctx, work *w)
{
    size_t na = w->n ? w->n : 1, nga = w->ng ? w->ng : 1;
    if (w->gp) sy_dealloc(ctx, w->gp, nga * sizeof *w->gp);
    if (w->conds) sy_dealloc(ctx, w->conds, (nga + na) * sizeof *w->conds);
    if (w->sub) sy_dealloc(ctx, w->sub, na * sizeof *w->sub);
    if (w->syms) sy_dealloc(ctx, w->syms, na * sizeof *w->syms);
    if (w->root) sy_dealloc(ctx, w->root, na * sizeof *w->root);
    if (w->ca) sy_dealloc(ctx, w->ca, na * sizeof *w->ca);
    if (w->cb) sy_dealloc(ctx, w->cb, na * sizeof *w->cb);
    if (w->da) sy_dealloc(ctx, w->da, na * sizeof *w->da);
    if (w->db) sy_dealloc(ctx, w->db, na * sizeof *w->db);
    if (w->gk) sy_dealloc(ctx, w->gk, nga * sizeof *w->gk);
    if (w->gone) sy_dealloc(ctx, w->gone, nga * sizeof *w->gone);
    if (w->gat) sy_dealloc(ctx, w->gat, (na + 1) * sizeof *w->gat);
    if (w->gby) sy_dealloc(ctx, w->gby, nga * sizeof *w->gby);
    if (w->dat) sy_dealloc(ctx, w->dat, (na + 1) * sizeof *w->dat);
    if (w->dby) sy_dealloc(ctx, w->dby, na * sizeof *w->dby);
}

/* the number of distinct roots (size sources of the region) e reads; -1 on error */
static long roots_read(sy_ctx *ctx, const sy_gset *gs, const work *w, const sy_expr *e, long *one)
{
    const sy_expr **fsyms = NULL;
    size_t nf = 0;
    if (sy_expr_free_symbols(ctx, e, &fsyms, &nf) != SY_OK) return -1;
    long cnt = 0, first = -1;
    for (size_t k = 0; k < nf; k++) {
        long sl = slot_of(gs, w->n, fsyms[k]);
        if (sl < 0 || w->root[sl] < 0) continue;
        long rt = w->root[sl];
        if (first < 0) {
            first = rt;
            cnt = 1;
        } else if (rt != first) {
            cnt = 2;
        }
    }
    sy_mem_free(ctx, fsyms);
    if (one) *one = first;
    return cnt;
}

sy_status sy_region_new(const sy_gset *gs, const sy_region_options *opts, sy_region **out)
{
    if (out) *out = NULL;
    sy_ctx *ctx = sy_gset_ctx(gs);
    if (!gs || !out) return ctx ? sy_fail_st(ctx, SY_EINVAL, "sy_region_new: NULL argument") : SY_EINVAL;
    sy_region_options o = SY_REGION_OPTIONS_INIT;
    if (opts) {
        if (opts->version != SY_REGION_OPTIONS_VERSION)
            return sy_fail_st(ctx, SY_EVERSION, "sy_region_new: options version %u (this library knows %u)", opts->version,
                              SY_REGION_OPTIONS_VERSION);
        o = *opts;
    }
    if (o.window < 1 || o.window > 1000000)
        return sy_fail_st(ctx, SY_EINVAL, "sy_region_new: window %" PRId64 " outside 1 .. 1000000", o.window);
    sy_region *r = sy_alloc(ctx, sizeof *r);
    if (!r) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    memset(r, 0, sizeof *r);
    r->ctx = ctx;
    size_t n = r->nsrc = sy_gset_nsources(gs), ng = sy_gset_size(gs);
    size_t na = n ? n : 1, nga = ng ? ng : 1;
    sy_status st = SY_OK;
    sy_facts *feq = NULL, *fs = NULL, *P = NULL;
    work w = {0};
    size_t *split = NULL, nsplit = 0; /* the guards product_ne splits, by index */
    sy_binding bind = {0};
    int have_bind = 0;
    w.n = n;
    w.ng = ng;
#define FAIL_OOM()                                                                                                       \
    do {                                                                                                                 \
        st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");                                                                \
        goto done;                                                                                                       \
    } while (0)
#define CHECK(c)                                                                                                         \
    do {                                                                                                                 \
        if (c) {                                                                                                         \
            st = sy_ctx_last_error(ctx);                                                                                 \
            if (st == SY_OK) st = SY_ENOMEM;                                                                             \
            goto done;                                                                                                   \
        }                                                                                                                \
    } while (0)
    r->srckind = sy_alloc(ctx, na * sizeof *r->srckind);
    r->dimof = sy_alloc(ctx, na * sizeof *r->dimof);
    r->tvar = sy_alloc(ctx, na * sizeof *r->tvar);
    r->vars = sy_alloc(ctx, na * sizeof *r->vars);
    r->dims = sy_alloc(ctx, na * sizeof *r->dims);
    w.gp = sy_alloc(ctx, nga * sizeof *w.gp);
    w.conds = sy_alloc(ctx, (nga + na) * sizeof *w.conds);
    w.sub = sy_alloc(ctx, na * sizeof *w.sub);
    w.syms = sy_alloc(ctx, na * sizeof *w.syms);
    w.root = sy_alloc(ctx, na * sizeof *w.root);
    w.ca = sy_alloc(ctx, na * sizeof *w.ca);
    w.cb = sy_alloc(ctx, na * sizeof *w.cb);
    w.da = sy_alloc(ctx, na * sizeof *w.da);
    w.db = sy_alloc(ctx, na * sizeof *w.db);
    w.gk = sy_alloc(ctx, nga * sizeof *w.gk);
    w.gone = sy_alloc(ctx, nga * sizeof *w.gone);
    w.gat = sy_alloc(ctx, (na + 1) * sizeof *w.gat);
    w.gby = sy_alloc(ctx, nga * sizeof *w.gby);
    w.dat = sy_alloc(ctx, (na + 1) * sizeof *w.dat);
    w.dby = sy_alloc(ctx, na * sizeof *w.dby);
    if (!r->srckind || !r->dimof || !r->tvar || !r->vars || !r->dims || !w.gp || !w.conds || !w.sub || !w.syms ||
        !w.root || !w.ca || !w.cb || !w.da || !w.db || !w.gk || !w.gone || !w.gat || !w.gby || !w.dat || !w.dby)
        FAIL_OOM();
    for (size_t i = 0; i < n; i++) {
        r->srckind[i] = sy_gset_source_parse(sy_gset_source(gs, i), NULL, NULL);
        r->dimof[i] = -1;
        r->tvar[i] = -1;
    }
    const char *mn = sy_gset_model(gs);
    if (!(r->model = sy_dp_strdup(r, mn ? mn : "model"))) FAIL_OOM();

    /* 1. the linear equalities, one at a time, while every size stays affine in one root */
    if (!(feq = sy_facts_new(ctx))) FAIL_OOM();
    /* a guard And(e1, e2, ...) (two inputs' dims tied pairwise, e.g. a padding mask's and the
     * tokens') gives each of its linear conjuncts, as the guards e1, e2, ... would */
    for (size_t i = 0; i < ng; i++) {
        const sy_gset_guard *g = sy_gset_at(gs, i);
        if (g->kind == SY_GK_RUNTIME_ASSERT) continue;
        int conj = sy_expr_kind_of(g->expr) == SY_EXPR_AND;
        size_t nconj = conj ? sy_expr_nargs(g->expr) : 1;
        const sy_expr *branch = sy_expr_kind_of(g->expr) == SY_EXPR_OR ? or_branch(gs, n, g->expr) : NULL;
        for (size_t j = 0; j < nconj; j++) {
            const sy_expr *eq = branch ? branch : conj ? sy_expr_arg(g->expr, j) : g->expr;
            if (!linear_eq(eq)) continue;
            int pin = keeps_affine(r, gs, feq, eq);
            if (pin < 0) CHECK(1);
            if (pin) { /* no trial copy: consistent, and every size stays affine */
                sy_status a = sy_facts_add(feq, eq);
                if (a == SY_ENOMEM) {
                    st = a;
                    goto done;
                }
                if (a != SY_OK) sy_ctx_reset_error(ctx);
                continue;
            }
            sy_facts *c = sy_facts_copy(feq);
            if (!c) FAIL_OOM();
            sy_status a = sy_facts_add(c, eq);
            int ok = a == SY_OK && sy_facts_consistent(c) == SY_TRUE ? all_affine(r, gs, c) : 0;
            if (a == SY_ENOMEM || ok < 0) {
                sy_facts_free(c);
                st = a == SY_ENOMEM ? a : sy_ctx_last_error(ctx);
                goto done;
            }
            if (a != SY_OK) sy_ctx_reset_error(ctx);
            if (ok) {
                sy_facts_free(feq);
                feq = c;
            } else {
                sy_facts_free(c);
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        const sy_expr *v = sy_facts_apply(feq, sy_gset_source_var(gs, i));
        CHECK(!v);
        int ok = affine_of(ctx, gs, n, v, &w.root[i], &w.ca[i], &w.cb[i]);
        if (ok < 0) CHECK(1);
        if (!ok) { /* a non-size source of another form: left as it is */
            w.root[i] = (long)i;
            w.ca[i] = 1;
            w.cb[i] = 0;
        }
    }
    for (size_t i = 0; i < ng; i++) {
        const sy_gset_guard *g = sy_gset_at(gs, i);
        w.gp[i] = NULL;
        if (g->kind != SY_GK_RUNTIME_ASSERT) CHECK(!(w.gp[i] = sy_facts_apply(feq, g->expr)));
    }

    /* the roots each guard reads (once: a scan of the guards per root was quadratic, issue 38),
     * and the guards reading one root alone and the size sources, bucketed by root (in order) */
    memset(w.gat, 0, (na + 1) * sizeof *w.gat);
    memset(w.dat, 0, (na + 1) * sizeof *w.dat);
    for (size_t i = 0; i < ng; i++) {
        w.gk[i] = 0;
        w.gone[i] = -1;
        if (!w.gp[i]) continue;
        w.gk[i] = roots_read(ctx, gs, &w, w.gp[i], &w.gone[i]);
        CHECK(w.gk[i] < 0);
        if (w.gk[i] == 1) w.gat[w.gone[i] + 1]++;
        if (w.gk[i] >= 2 && product_ne(gs, r, n, sy_gset_at(gs, i)->expr)) {
            if (!split && !(split = sy_alloc(ctx, nga * sizeof *split))) FAIL_OOM();
            split[nsplit++] = i;
        }
    }
    for (size_t d = 0; d < n; d++)
        if (r->srckind[d] == SY_SOURCE_SIZE && w.root[d] >= 0) w.dat[w.root[d] + 1]++;
    for (size_t s = 0; s < n; s++) {
        w.gat[s + 1] += w.gat[s];
        w.dat[s + 1] += w.dat[s];
    }
    for (size_t i = 0; i < ng; i++) /* filled through gat[s]/dat[s] as cursors, restored below */
        if (w.gp[i] && w.gk[i] == 1) w.gby[w.gat[w.gone[i]]++] = i;
    for (size_t d = 0; d < n; d++)
        if (r->srckind[d] == SY_SOURCE_SIZE && w.root[d] >= 0) w.dby[w.dat[w.root[d]]++] = d;
    for (size_t s = n; s > 0; s--) {
        w.gat[s] = w.gat[s - 1];
        w.dat[s] = w.dat[s - 1];
    }
    w.gat[0] = w.dat[0] = 0;

    if (!sy_binding_init(ctx, &bind)) FAIL_OOM();
    have_bind = 1;

    /* 2. per root: the guards reading only it and the sizes >= 0 of its dims give its
     *    range (facts) and its progression (exact evaluation over two windows) */
    for (size_t s = 0; s < n; s++) {
        if (r->srckind[s] != SY_SOURCE_SIZE || w.root[s] != (long)s) continue;
        const sy_expr *var = sy_gset_source_var(gs, s);
        size_t nc = 0;
        for (size_t j = w.gat[s]; j < w.gat[s + 1]; j++) w.conds[nc++] = w.gp[w.gby[j]];
        /* a product of sizes != 0 (product_ne): its factors of this root each >= 1, one cond */
        for (size_t j = 0; j < nsplit; j++) {
            const sy_expr *all = NULL, **fsyms = NULL;
            size_t nf = 0;
            int err = 0;
            CHECK(sy_expr_free_symbols(ctx, sy_gset_at(gs, split[j])->expr, &fsyms, &nf) != SY_OK);
            for (size_t k = 0; k < nf && !err; k++) {
                long sl = slot_of(gs, n, fsyms[k]);
                if (sl < 0 || w.root[sl] != (long)s) continue;
                const sy_expr *ge = sy_expr_ge(ctx, sy_facts_apply(feq, fsyms[k]), sy_expr_int_si(ctx, 1));
                all = ge && all ? sy_expr_and(ctx, all, ge) : ge;
                err = !all;
            }
            sy_mem_free(ctx, fsyms);
            CHECK(err);
            if (all) w.conds[nc++] = all;
        }
        for (size_t j = w.dat[s]; j < w.dat[s + 1]; j++) {
            size_t d = w.dby[j];
            CHECK(!(w.conds[nc++] = sy_expr_ge(ctx, sy_expr_add_si(ctx, sy_expr_mul_si(ctx, var, w.ca[d]), w.cb[d]),
                                               sy_expr_int_si(ctx, 0))));
        }
        if (!(fs = sy_facts_new(ctx))) FAIL_OOM();
        for (size_t k = 0; k < nc; k++) {
            sy_status a = sy_facts_add(fs, w.conds[k]);
            if (a == SY_ENOMEM) {
                st = a;
                goto done;
            }
            if (a != SY_OK) sy_ctx_reset_error(ctx);
        }
        const sy_expr *lo = NULL, *hi = NULL;
        int64_t lo64 = 0, hi64 = 0;
        int have_hi = 0;
        if (sy_facts_consistent(fs) == SY_TRUE && sy_facts_get_range(fs, var, &lo, &hi) == SY_OK) {
            if (lo && sy_expr_get_si(lo, &lo64) != SY_OK) lo64 = 0;
            if (hi && sy_expr_get_si(hi, &hi64) == SY_OK) have_hi = 1;
        } else {
            sy_ctx_reset_error(ctx);
        }
        fs = sy_facts_free(fs);
        if (lo64 < 0) lo64 = 0;
        if (have_hi && hi64 < lo64) hi64 = lo64;
        int64_t ex = lo64;
        if (!sy_gset_source_example(gs, s, &ex) || ex < lo64) ex = lo64;
        if (ex > INT64_MAX / 4 || lo64 > INT64_MAX / 4) {
            st = sy_fail_st(ctx, SY_EOVERFLOW, "region: the sizes of %s (example %" PRId64 ", low end %" PRId64
                            ") are past the range a region handles (2^61)", sy_gset_source(gs, s), ex, lo64);
            goto done;
        }
        scan_out so = {1, 0, 0, 0};
        if ((st = scan_root(r, &bind, var, w.conds, nc, lo64, have_hi, hi64, ex, o.window, &so)) != SY_OK) goto done;
        int64_t m = so.m, res = so.res, tmin = so.tmin, tmax = so.tmax;
        size_t v = r->nvars++;
        r->tvar[s] = (long)v;
        r->vars[v] = (sy_region_var){NULL, tmin, tmax};
        for (size_t j = w.dat[s]; j < w.dat[s + 1]; j++) {
            size_t d = w.dby[j];
            if (__builtin_mul_overflow(w.ca[d], m, &w.da[d]) || __builtin_mul_overflow(w.ca[d], res, &w.db[d]) ||
                __builtin_add_overflow(w.db[d], w.cb[d], &w.db[d])) {
                st = sy_fail_st(ctx, SY_EOVERFLOW, "region: a coefficient of %s does not fit int64", sy_gset_source(gs, d));
                goto done;
            }
        }
    }

    /* 3. the dims: names, affine forms, ranges */
    for (size_t d = 0; d < n; d++) {
        if (r->srckind[d] != SY_SOURCE_SIZE) continue;
        sy_region_dim *dd = &r->dims[r->ndims];
        memset(dd, 0, sizeof *dd);
        r->dimof[d] = (long)r->ndims;
        size_t namelen = 0, dim = 0;
        const char *src = sy_gset_source(gs, d);
        sy_gset_source_parse(src, &namelen, &dim);
        char ib[160];
        snprintf(ib, sizeof ib, "%.*s", (int)(namelen < 150 ? namelen : 150), src);
        if (!(dd->input = sy_dp_strdup(r, ib))) FAIL_OOM();
        dd->source = d;
        dd->dim = dim;
        const char *decl = NULL;
        sy_gset_source_spec(gs, d, &decl, NULL, NULL, NULL);
        if ((st = dim_name(r, src, namelen, dim, decl, &dd->name)) != SY_OK) goto done;
        if (!sy_gset_source_example(gs, d, &dd->example)) dd->example = -1;
        const sy_region_var *tv = w.root[d] >= 0 ? &r->vars[r->tvar[w.root[d]]] : NULL;
        if (!tv || (tv->tmax == tv->tmin)) {
            dd->is_static = 1;
            dd->value = tv ? w.da[d] * tv->tmin + w.db[d] : w.cb[d];
            dd->min = dd->max = dd->value;
            dd->var = 0;
            dd->a = 0;
            dd->b = dd->value;
        } else {
            dd->var = (size_t)r->tvar[w.root[d]];
            dd->a = w.da[d];
            dd->b = w.db[d];
            if (__builtin_mul_overflow(dd->a, tv->tmin, &dd->min) || __builtin_add_overflow(dd->min, dd->b, &dd->min)) {
                st = sy_fail_st(ctx, SY_EOVERFLOW, "region: the range of %s does not fit int64", src);
                goto done;
            }
            if (tv->tmax == SY_REGION_UNBOUNDED) dd->max = SY_REGION_UNBOUNDED;
            else if (__builtin_mul_overflow(dd->a, tv->tmax, &dd->max) || __builtin_add_overflow(dd->max, dd->b, &dd->max)) {
                st = sy_fail_st(ctx, SY_EOVERFLOW, "region: the range of %s does not fit int64", src);
                goto done;
            }
        }
        r->ndims++;
    }
    /* variable names: the root dim's name, + "_k" for a progression */
    for (size_t s = 0; s < n; s++) {
        if (r->tvar[s] < 0) continue;
        const sy_region_dim *rd = &r->dims[r->dimof[s]];
        char nb[200];
        snprintf(nb, sizeof nb, rd->is_static || (rd->a == 1 && rd->b == 0) ? "%s" : "%s_k", rd->name);
        if (!(r->vars[r->tvar[s]].name = sy_dp_strdup(r, nb))) FAIL_OOM();
    }

    /* 4. the proof: every guard, each source replaced by its form in the variables,
     *    decided under the variables' ranges */
    if (!(P = sy_facts_new(ctx))) FAIL_OOM();
    const sy_expr **tsym = w.syms; /* t of each var, by var index */
    for (size_t v = 0; v < r->nvars; v++) {
        char nb[64];
        snprintf(nb, sizeof nb, "deploy_t%zu", v);
        CHECK(!(tsym[v] = sy_expr_sym(ctx, nb)));
        CHECK(sy_dp_set_range(ctx, P, tsym[v], r->vars[v].tmin,
                              r->vars[v].tmax == SY_REGION_UNBOUNDED ? NULL : &r->vars[v].tmax) != SY_OK);
    }
    /* w.sub[i]: source i's form in the variables (NULL: left as it is); each guard substitutes
     * the sources it reads alone (all n keys per guard made this loop quadratic, issue 38) */
    const sy_expr **keys = sy_alloc(ctx, 2 * na * sizeof *keys);
    if (!keys) FAIL_OOM();
    const sy_expr **gvals = keys + na;
    for (size_t i = 0; i < n; i++) {
        w.sub[i] = NULL;
        const sy_expr *val = NULL;
        if (r->dimof[i] >= 0) {
            const sy_region_dim *dd = &r->dims[r->dimof[i]];
            val = dd->is_static ? sy_expr_int_si(ctx, dd->value)
                                : sy_expr_add_si(ctx, sy_expr_mul_si(ctx, tsym[dd->var], dd->a), dd->b);
        } else if (w.root[i] < 0) {
            val = sy_expr_int_si(ctx, w.cb[i]);
        } else {
            continue;
        }
        if (!val) {
            sy_dealloc(ctx, keys, 2 * na * sizeof *keys);
            CHECK(1);
        }
        w.sub[i] = val;
    }
    int proved = 1;
    for (size_t i = 0; i < ng && st == SY_OK; i++) {
        const sy_gset_guard *g = sy_gset_at(gs, i);
        if (g->kind == SY_GK_RUNTIME_ASSERT) {
            st = add_kept(r, i, g->text, "a runtime assert on data-dependent values: checked once the data exists");
            continue;
        }
        const sy_expr **fsyms = NULL;
        size_t nf = 0, nsub = 0;
        if ((st = sy_expr_free_symbols(ctx, g->expr, &fsyms, &nf)) != SY_OK) break;
        for (size_t k = 0; k < nf && nsub < na; k++) {
            long sl = slot_of(gs, n, fsyms[k]);
            if (sl < 0 || !w.sub[sl]) continue;
            keys[nsub] = fsyms[k];
            gvals[nsub++] = w.sub[sl];
        }
        sy_mem_free(ctx, fsyms);
        const sy_expr *e = sy_expr_subs(ctx, g->expr, nsub, keys, gvals);
        sy_truth t = SY_TRUTH_UNKNOWN;
        if (!e || (st = sy_dp_decide_total(ctx, P, e, &t)) != SY_OK) {
            if (!e) st = sy_ctx_last_error(ctx);
            if (st == SY_EQUOTA) { /* a budget: not proved, kept */
                sy_ctx_reset_error(ctx);
                st = add_kept(r, i, g->text, "not proved within the work budget");
            }
            continue;
        }
        if (t == SY_TRUTH_TRUE) {
            r->nproved++;
            continue;
        }
        long one = -1, k = roots_read(ctx, gs, &w, w.gp[i], &one);
        if (k < 0) {
            st = sy_ctx_last_error(ctx);
            break;
        }
        char why[400];
        if (t == SY_TRUTH_FALSE) {
            snprintf(why, sizeof why, "false at every point of the region (the region is wrong)");
            proved = 0;
        } else if (k >= 2) {
            snprintf(why, sizeof why, "relates several dims in a way no Dim expresses");
        } else if (k == 1) {
            snprintf(why, sizeof why, "cuts the sizes of %s to more than one range and progression",
                     r->dims[r->dimof[one]].name);
        } else {
            snprintf(why, sizeof why, "not proved by the decision procedure over the region");
        }
        st = add_kept(r, i, g->text, why);
    }
    sy_dealloc(ctx, keys, 2 * na * sizeof *keys);
    if (st != SY_OK) goto done;
    /* every size >= 0 over the region, and the example inside */
    r->example_inside = 1;
    int64_t *tex = sy_alloc(ctx, na * sizeof *tex);
    if (!tex) FAIL_OOM();
    for (size_t v = 0; v < r->nvars; v++) tex[v] = INT64_MIN;
    for (size_t k = 0; k < r->ndims; k++) {
        const sy_region_dim *dd = &r->dims[k];
        if (dd->is_static) {
            if (dd->value < 0) proved = 0;
            if (dd->example >= 0 && dd->example != dd->value) r->example_inside = 0;
            continue;
        }
        sy_truth t = SY_TRUTH_UNKNOWN;
        const sy_expr *ge = sy_expr_ge(ctx, sy_expr_add_si(ctx, sy_expr_mul_si(ctx, tsym[dd->var], dd->a), dd->b),
                                       sy_expr_int_si(ctx, 0));
        if (!ge || sy_decide(P, ge, &t) != SY_OK) {
            sy_dealloc(ctx, tex, na * sizeof *tex);
            CHECK(1);
        }
        if (t != SY_TRUTH_TRUE) proved = 0;
        if (dd->example < 0) continue;
        const sy_region_var *tv = &r->vars[dd->var];
        int64_t q = (dd->example - dd->b) / dd->a;
        if ((dd->example - dd->b) % dd->a || q < tv->tmin || (tv->tmax != SY_REGION_UNBOUNDED && q > tv->tmax) ||
            (tex[dd->var] != INT64_MIN && tex[dd->var] != q))
            r->example_inside = 0;
        tex[dd->var] = q;
    }
    sy_dealloc(ctx, tex, na * sizeof *tex);
    r->proved = proved && r->example_inside;
done:
#undef FAIL_OOM
#undef CHECK
    sy_facts_free(feq);
    sy_facts_free(fs);
    sy_facts_free(P);
    work_free(ctx, &w);
    if (split) sy_dealloc(ctx, split, nga * sizeof *split);
    if (have_bind) sy_binding_clear(ctx, &bind);
    if (st != SY_OK) {
        sy_region_free(r);
        return st;
    }
    *out = r;
    return SY_OK;
}

size_t sy_region_nvars(const sy_region *r) { return r ? r->nvars : 0; }
const sy_region_var *sy_region_var_at(const sy_region *r, size_t i) { return r && i < r->nvars ? &r->vars[i] : NULL; }
size_t sy_region_ndims(const sy_region *r) { return r ? r->ndims : 0; }
const sy_region_dim *sy_region_dim_at(const sy_region *r, size_t i) { return r && i < r->ndims ? &r->dims[i] : NULL; }
size_t sy_region_nkept(const sy_region *r) { return r ? r->nkept : 0; }
const sy_region_kept *sy_region_kept_at(const sy_region *r, size_t i) { return r && i < r->nkept ? &r->kept[i] : NULL; }
int sy_region_proved(const sy_region *r, size_t *nproved)
{
    if (nproved) *nproved = r ? r->nproved : 0;
    return r ? r->proved : 0;
}

sy_status sy_region_contains_si(const sy_region *r, const int64_t *values, size_t n, int *inside, char *why, size_t whylen)
{
    if (!r || !values || !inside) return r ? sy_fail_st(r->ctx, SY_EINVAL, "sy_region_contains_si: NULL argument") : SY_EINVAL;
    if (n != r->nsrc)
        return sy_fail_st(r->ctx, SY_EINVAL, "sy_region_contains_si: %zu values for %zu sources", n, r->nsrc);
    *inside = 1;
    if (why && whylen) why[0] = '\0';
    size_t nv = r->nvars ? r->nvars : 1;
    int64_t *tv = sy_alloc(r->ctx, nv * sizeof *tv);
    unsigned char *seen = sy_alloc(r->ctx, nv);
    if (!tv || !seen) {
        if (tv) sy_dealloc(r->ctx, tv, nv * sizeof *tv);
        if (seen) sy_dealloc(r->ctx, seen, nv);
        return sy_fail_st(r->ctx, SY_ENOMEM, "out of memory");
    }
    memset(seen, 0, nv);
    for (size_t k = 0; k < r->ndims && *inside; k++) {
        const sy_region_dim *d = &r->dims[k];
        int64_t x = values[d->source];
        if (d->is_static) {
            if (x != d->value) {
                *inside = 0;
                if (why) snprintf(why, whylen, "%s = %" PRId64 ": static %" PRId64, d->name, x, d->value);
            }
            continue;
        }
        const sy_region_var *v = &r->vars[d->var];
        int64_t diff, q;
        if (__builtin_sub_overflow(x, d->b, &diff)) { /* x - b past int64: not a size of this dim */
            *inside = 0;
            if (why) snprintf(why, whylen, "%s = %" PRId64 ": outside its range", d->name, x);
            continue;
        }
        q = diff / d->a;
        if (diff % d->a && diff < 0) q--; /* floor */
        char hi[32];
        snprintf(hi, sizeof hi, "%" PRId64, d->max);
        if (diff - q * d->a) {
            *inside = 0;
            if (why) snprintf(why, whylen, "%s = %" PRId64 ": not %" PRId64 "*%s + %" PRId64, d->name, x, d->a, v->name, d->b);
        } else if (q < v->tmin || (v->tmax != SY_REGION_UNBOUNDED && q > v->tmax)) {
            *inside = 0;
            if (why) snprintf(why, whylen, "%s = %" PRId64 ": outside [%" PRId64 ", %s]", d->name, x, d->min,
                              d->max == SY_REGION_UNBOUNDED ? "oo" : hi);
        } else if (seen[d->var] && tv[d->var] != q) {
            *inside = 0;
            if (why) snprintf(why, whylen, "%s = %" PRId64 ": breaks its relation to the other dims of %s", d->name, x, v->name);
        }
        seen[d->var] = 1;
        tv[d->var] = q;
    }
    sy_dealloc(r->ctx, tv, nv * sizeof *tv);
    sy_dealloc(r->ctx, seen, nv);
    return SY_OK;
}
