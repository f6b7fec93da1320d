/* Issue 38: every size a runtime stores in an int64 (a dim, a shape-tensor element) is checked
 * against int64 by one rule, sy_env_require_int64, which both frontends use: an error where it
 * never fits, a guard `e <= INT64_MAX` where it may not fit although every input tensor's numel
 * does (each input exists in memory: a fact, not a guard), nothing where it always fits. */
#include <stdio.h>
#include <string.h>

#include "shapeenv/env_private.h"

sy_status sy_env_note_input_sizes(sy_env *env, size_t ndim, const sy_expr *const *sizes)
{
    if (env->ninsz == env->inszcap) {
        size_t nc = env->inszcap ? env->inszcap * 2 : 8;
        struct sy_env_insz *n = sy_realloc(env->ctx, env->insz, env->inszcap * sizeof *n, nc * sizeof *n);
        if (!n) return sy_fail_st(env->ctx, SY_ENOMEM, "out of memory");
        env->insz = n;
        env->inszcap = nc;
    }
    env->insz[env->ninsz++] = (struct sy_env_insz){ndim, sizes};
    return SY_OK;
}

/* The least value of size e under the facts as an int64, 0 when negative or unknown (a lower
 * bound: 0 only weakens what is derived from it). */
static int64_t size_lo(sy_env *env, const sy_expr *e)
{
    int64_t v = 0;
    if (sy_expr_kind_of(e) == SY_EXPR_INT) {
        if (sy_expr_get_si(e, &v) != SY_OK) sy_ctx_reset_error(env->ctx);
        return v > 0 ? v : 0;
    }
    const sy_expr *lo = NULL, *hi = NULL;
    if (sy_bound(env->facts, e, &lo, &hi) != SY_OK) {
        sy_ctx_reset_error(env->ctx);
        return 0;
    }
    if (!lo || sy_expr_get_si(lo, &v) != SY_OK) {
        sy_ctx_reset_error(env->ctx);
        return 0;
    }
    return v > 0 ? v : 0;
}

/* One rebuild of numel_facts bounds each env symbol at most once: sy_bound of a symbol under
 * relations runs the linear layer's projection (~20k instructions), and a rebuild asks for the
 * same symbol twice (an input dim's least value, then its range). The facts do not change
 * during a rebuild, so the memo gives what sy_bound gives (status included). */
struct nf_bound {
    const sy_expr *lo, *hi;
    sy_status st;
    int done;
};

static sy_status bound_memo(sy_env *env, struct nf_bound *m, size_t i, const sy_expr **lo, const sy_expr **hi)
{
    if (!m[i].done) {
        m[i].st = sy_facts_get_range(env->facts, env->syms[i].info.sym, &m[i].lo, &m[i].hi);
        sy_ctx_reset_error(env->ctx);
        m[i].done = 1;
    }
    *lo = m[i].lo;
    *hi = m[i].hi;
    return m[i].st;
}

/* size_lo of applied dim a, through the memo when a is an env symbol */
static int64_t size_lo_memo(sy_env *env, struct nf_bound *m, const sy_expr *a)
{
    const sy_symbol_info *r = sy_expr_kind_of(a) == SY_EXPR_SYM ? sy_env_symbol_of(env, a) : NULL;
    if (!r) return size_lo(env, a);
    size_t i = (size_t)((const symrec *)(const void *)r - env->syms); /* info is a symrec's first member */
    const sy_expr *lo, *hi;
    int64_t v = 0;
    if (bound_memo(env, m, i, &lo, &hi) != SY_OK || !lo || sy_expr_get_si(lo, &v) != SY_OK) {
        sy_ctx_reset_error(env->ctx);
        return 0;
    }
    return v > 0 ? v : 0;
}

/* a*b saturated at 2^63 (past INT64_MAX: only "more than INT64_MAX" matters) */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    const uint64_t cap = (uint64_t)1 << 63;
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) || r > cap ? cap : r;
}

/* The fact set sy_env_require_int64 decides in: every symbol's range under the env's facts,
 * each input dim's symbol s also <= INT64_MAX / (the least product of the input's other
 * dims), as an input tensor exists only when its numel fits int64 (torch's TensorImpl
 * computes numel with overflow checks: c10/core/TensorImpl.h, safe_compute_numel). Relations
 * between symbols are dropped (fewer proofs, never a wrong one). Rebuilt when the facts, the
 * symbols or the inputs changed, but not for the fact of an int64 guard sy_env_require_int64
 * records itself (the set still holds); NULL on an error (cleared). */
static sy_facts *numel_facts(sy_env *env)
{
    sy_ctx *ctx = env->ctx;
    uint64_t ver = sy_facts_version(env->facts);
    if (env->nf && env->nf_ver == ver && env->nf_nin == env->ninsz && env->nf_nsyms == env->nsyms) return env->nf;
    env->nf = sy_facts_free(env->nf);
    size_t ns = env->nsyms ? env->nsyms : 1;
    int64_t *ub = sy_alloc(ctx, ns * sizeof *ub);
    struct nf_bound *bm = sy_alloc(ctx, ns * sizeof *bm);
    sy_facts *nf = sy_facts_new(ctx);
    uint64_t *pre = NULL;
    size_t precap = 0;
    sy_status st = ub && bm && nf ? SY_OK : SY_ENOMEM;
    if (bm) memset(bm, 0, ns * sizeof *bm);
    for (size_t i = 0; i < env->nsyms && st == SY_OK; i++) ub[i] = INT64_MAX; /* a symbol is a dim or a value: an int64 */
    for (size_t k = 0; k < env->ninsz && st == SY_OK; k++) {
        size_t nd = env->insz[k].ndim;
        const sy_expr *const *sz = env->insz[k].sizes;
        if (nd + 1 > precap) { /* lo[d], then prefix products, then suffix products: 3 arrays */
            uint64_t *np = sy_realloc(ctx, pre, precap * 3 * sizeof *np, (nd + 1) * 3 * sizeof *np);
            if (!np) {
                st = SY_ENOMEM;
                break;
            }
            pre = np;
            precap = nd + 1;
        }
        uint64_t *lo = pre, *pf = pre + precap, *sf = pre + 2 * precap;
        for (size_t d = 0; d < nd; d++) {
            const sy_expr *a = sy_facts_apply(env->facts, sz[d]);
            if (!a) {
                st = sy_ctx_last_error(ctx);
                break;
            }
            lo[d] = (uint64_t)size_lo_memo(env, bm, a);
        }
        if (st) break;
        pf[0] = 1;
        for (size_t d = 0; d < nd; d++) pf[d + 1] = mul_sat(pf[d], lo[d]);
        sf[nd] = 1;
        for (size_t d = nd; d-- > 0;) sf[d] = mul_sat(sf[d + 1], lo[d]);
        for (size_t d = 0; d < nd; d++) {
            const sy_expr *a = sy_facts_apply(env->facts, sz[d]);
            const sy_symbol_info *r = a ? sy_env_symbol_of(env, a) : NULL;
            uint64_t others = mul_sat(pf[d], sf[d + 1]);
            if (!r || others == 0) continue;
            int64_t b = (int64_t)((uint64_t)INT64_MAX / others);
            size_t i = (size_t)((const symrec *)(const void *)r - env->syms); /* info is a symrec's first member */
            if (b < ub[i]) ub[i] = b;
        }
    }
    for (size_t i = 0; i < env->nsyms && st == SY_OK; i++) {
        const sy_expr *sym = env->syms[i].info.sym, *lo = NULL, *hi = NULL;
        if (sy_facts_replacement(env->facts, sym)) continue; /* replaced: not in an applied expression */
        if ((st = bound_memo(env, bm, i, &lo, &hi))) break;
        int64_t h, l = 0;
        /* an input past int64 at its least sizes (it cannot exist, nor could its example): not tightened */
        int below = lo && sy_expr_get_si(lo, &l) == SY_OK && l > ub[i];
        if (!below && (!hi || (sy_expr_get_si(hi, &h) == SY_OK && h > ub[i]))) hi = sy_expr_int_si(ctx, ub[i]);
        sy_ctx_reset_error(ctx);
        if ((lo || hi) && (st = sy_facts_set_range(nf, sym, lo, hi))) break;
    }
    if (pre) sy_dealloc(ctx, pre, precap * 3 * sizeof *pre);
    if (ub) sy_dealloc(ctx, ub, ns * sizeof *ub);
    if (bm) sy_dealloc(ctx, bm, ns * sizeof *bm);
    if (st != SY_OK) {
        sy_facts_free(nf);
        sy_ctx_reset_error(ctx);
        return NULL;
    }
    env->nf = nf;
    env->nf_ver = ver;
    env->nf_nin = env->ninsz;
    env->nf_nsyms = env->nsyms;
    return nf;
}

/* Factor f as an upper bound alpha*a + beta of dim a (a >= 0): a is (1, 0); FloorDiv(a, k) and
 * FloorDiv(a + c, k) with k >= 1 (CeilDiv(a, k) is FloorDiv(a + k - 1, k)) are (1/k, max(c, 0)/k).
 * 0 when f is none of these. */
static int factor_affine(sy_env *env, const sy_expr *f, const sy_expr *a, double *alpha, double *beta)
{
    *alpha = 1;
    *beta = 0;
    if (f == a) return 1;
    int64_t k, c = 0;
    if (sy_expr_kind_of(f) != SY_EXPR_FLOORDIV || sy_expr_get_si(sy_expr_arg(f, 1), &k) != SY_OK || k < 1) {
        sy_ctx_reset_error(env->ctx);
        return 0;
    }
    const sy_expr *x = sy_expr_arg(f, 0);
    if (x != a) {
        const sy_expr *c0 = sy_expr_kind_of(x) == SY_EXPR_ADD ? sy_expr_add_const(env->ctx, x) : NULL;
        const sy_expr *c1 = c0 && sy_expr_nargs(x) == 1 ? sy_expr_add_coeff(env->ctx, x, 0) : NULL;
        if (!c1 || c1 != sy_expr_int_si(env->ctx, 1) || sy_expr_arg(x, 0) != a || sy_expr_get_si(c0, &c) != SY_OK) {
            sy_ctx_reset_error(env->ctx);
            return 0;
        }
    }
    *alpha = 1.0 / (double)k;
    *beta = c > 0 ? (double)c / (double)k : 0;
    return 1;
}

/* The share of INT64_MAX that monomial m (a product of factors alpha_j*a_j + beta_j over distinct
 * dims a_j of one input: factor_affine) is at most, or -1. The product expands to the products
 * over the subsets S of its factors, prod_{S} alpha_j a_j * prod_{not S} beta_j, and
 * prod_{S} a_j <= INT64_MAX / (the least product of the input's dims outside S), as the input's
 * numel fits int64. *exact: the share is 1.0 exactly (the product of all of one input's dims). */
/* Input k's dims applied to the facts and their least values (env->il[k]), made on first use and
 * kept while the facts do not change (their version): every term of a sum asks for the same ones,
 * and so does every int64 check of the next node: a concat of K inputs has a width of about K terms,
 * and each size_lo is a bound under the facts (the linear layer). Rebuilt per term they made a
 * chain of K Concats cost about K^5 (attack46n: K = 40, 7 s; 64, 98 s), rebuilt per call K^3.3
 * (64: 1.5 s, 128: 24 s); now each input's once per version of the facts. 0: not made (error,
 * cleared, or an input of more than 64 dims). */
static int insz_lows(sy_env *env, size_t k)
{
    uint64_t ver = sy_facts_version(env->facts);
    if (env->il_ver != ver) {
        for (size_t i = 0; i < env->nil; i++) env->il[i].done = 0;
        env->il_ver = ver;
    }
    if (k >= env->nil) {
        if (env->ninsz > env->ilcap) {
            size_t nc = env->ilcap ? env->ilcap : 8;
            while (nc < env->ninsz) nc *= 2;
            struct sy_env_inlo *n = sy_realloc(env->ctx, env->il, env->ilcap * sizeof *n, nc * sizeof *n);
            if (!n) {
                sy_ctx_reset_error(env->ctx);
                return 0;
            }
            env->il = n;
            env->ilcap = nc;
        }
        for (size_t i = env->nil; i < env->ninsz; i++) env->il[i] = (struct sy_env_inlo){0, NULL, NULL};
        env->nil = env->ninsz;
    }
    struct sy_env_inlo *c = &env->il[k];
    if (c->done) return c->done > 0;
    size_t nd = env->insz[k].ndim;
    c->done = -1;
    if (!c->a && nd) {
        c->a = sy_alloc(env->ctx, nd * sizeof *c->a);
        c->lo = c->a ? sy_alloc(env->ctx, nd * sizeof *c->lo) : NULL;
        if (!c->lo) {
            if (c->a) sy_dealloc(env->ctx, c->a, nd * sizeof *c->a);
            c->a = NULL;
            sy_ctx_reset_error(env->ctx);
            c->done = 0;
            return 0;
        }
    }
    for (size_t d = 0; d < nd; d++) {
        if (!(c->a[d] = sy_facts_apply(env->facts, env->insz[k].sizes[d]))) {
            sy_ctx_reset_error(env->ctx);
            return 0;
        }
        c->lo[d] = size_lo(env, c->a[d]);
    }
    c->done = 1;
    return 1;
}

static double monomial_share(sy_env *env, const sy_expr *m, size_t *work, int *exact)
{
    const sy_expr *f[8];
    size_t nf = 0;
    size_t na = sy_expr_kind_of(m) == SY_EXPR_MUL ? sy_expr_nargs(m) : 1;
    for (size_t i = 0; i < na; i++) {
        const sy_expr *a = sy_expr_kind_of(m) == SY_EXPR_MUL ? sy_expr_arg(m, i) : m;
        uint64_t k = 1;
        if (sy_expr_kind_of(a) == SY_EXPR_POW) {
            k = sy_expr_pow_exp(a);
            a = sy_expr_arg(a, 0);
        }
        if (k > 8 || nf + k > 8) return -1;
        while (k--) f[nf++] = a;
    }
    double best = -1;
    for (size_t k = 0; k < env->ninsz; k++) {
        size_t nd = env->insz[k].ndim;
        if (nd < nf || nd > 64) continue;
        if ((*work += nd * (nf + 1) + ((size_t)1 << nf)) > 100000) return -1;
        if (!insz_lows(env, k)) return -1;
        const sy_expr *const *a = env->il[k].a;
        const int64_t *lo = env->il[k].lo;
        int used[64] = {0};
        size_t at[8];
        double al[8], be[8];
        int plain = 1;
        size_t matched = 0;
        for (size_t j = 0; j < nf; j++)
            for (size_t d = 0; d < nd; d++)
                if (!used[d] && factor_affine(env, f[j], a[d], &al[j], &be[j])) {
                    used[d] = 1;
                    at[j] = d;
                    matched++;
                    plain &= al[j] == 1 && be[j] == 0;
                    break;
                }
        if (matched != nf) continue;
        uint64_t others = 1;
        for (size_t d = 0; d < nd; d++)
            if (!used[d]) others = mul_sat(others, (uint64_t)lo[d]);
        if (others == 0) continue;
        double share = 0;
        int ok = 1;
        for (size_t S = 0; S < ((size_t)1 << nf) && ok; S++) { /* bit j set: factor j's alpha*a part */
            double p = 1;
            uint64_t out = others;
            for (size_t j = 0; j < nf; j++) {
                if (S >> j & 1) {
                    p *= al[j];
                } else {
                    p *= be[j];
                    out = mul_sat(out, (uint64_t)lo[at[j]]);
                }
            }
            if (p == 0) continue;
            if (out == 0) ok = 0; /* a beta part over a dim that may be 0: not bounded this way */
            else share += p / (double)out;
        }
        if (ok && (best < 0 || share < best)) {
            best = share;
            *exact = plain && others == 1; /* the share is 1.0, no rounding */
        }
    }
    return best;
}

/* The share of INT64_MAX that q (applied) is at most when every input's numel fits int64, or -1:
 * FloorDiv(X, k) is X/k (a symbolic k: its least value, >= 1); a sum adds its terms' shares times their coefficients (a constant <= 0;
 * a negative term dropped when its monomial is >= 0); a monomial as monomial_share (view,
 * flatten, reshape; an FPN's anchors: retinanet's 9 * sum over levels of CeilDiv(h, 2^l)*
 * CeilDiv(w, 2^l)). Depth at most 8, at most 64 terms a sum, and a work cap (past any: -1). */
static double numel_share(sy_env *env, const sy_expr *q, int depth, size_t *work, int *exact)
{
    if (depth > 8) return -1;
    int64_t k;
    if (sy_expr_kind_of(q) == SY_EXPR_FLOORDIV) { /* a symbolic divisor: its least value */
        const sy_expr *dv = sy_expr_arg(q, 1);
        if (sy_expr_kind_of(dv) == SY_EXPR_INT ? sy_expr_get_si(dv, &k) != SY_OK : (k = size_lo(env, dv)) < 1) {
            sy_ctx_reset_error(env->ctx);
            return -1;
        }
        if (k < 1) return -1;
        double s = numel_share(env, sy_expr_arg(q, 0), depth + 1, work, exact);
        if (k > 1) *exact = 0;
        return s < 0 ? -1 : s / (double)k;
    }
    if (sy_expr_kind_of(q) != SY_EXPR_ADD) return monomial_share(env, q, work, exact);
    int64_t c0;
    const sy_expr *k0 = sy_expr_add_const(env->ctx, q);
    size_t nt = sy_expr_nargs(q);
    if (!k0 || sy_expr_get_si(k0, &c0) != SY_OK || c0 > 0 || nt > 64) {
        sy_ctx_reset_error(env->ctx);
        return -1;
    }
    double total = 0;
    int terms = 0;
    for (size_t t = 0; t < nt; t++) {
        int64_t c = 0;
        const sy_expr *ct = sy_expr_add_coeff(env->ctx, q, t), *m = sy_expr_arg(q, t), *mlo = NULL, *mhi = NULL;
        if (!ct || sy_expr_get_si(ct, &c) != SY_OK) {
            sy_ctx_reset_error(env->ctx);
            return -1;
        }
        if (c < 0) { /* c*m <= 0 when m >= 0: dropped from the upper bound */
            int64_t l = -1;
            if (sy_bound(env->facts, m, &mlo, &mhi) != SY_OK || !mlo || sy_expr_get_si(mlo, &l) != SY_OK || l < 0) {
                sy_ctx_reset_error(env->ctx);
                return -1;
            }
            continue;
        }
        double s = numel_share(env, m, depth + 1, work, exact);
        if (s < 0) return -1;
        total += (double)c * s;
        terms++;
        if (c != 1) *exact = 0;
    }
    if (terms != 1) *exact = 0;
    return total;
}

/* 1 when q is at most INT64_MAX wherever every input's numel is (numel_share: under 1, with a
 * margin of 1e-9 for the doubles' rounding, 1e-16 relative; exactly 1 when it is exact). */
static int numel_covers(sy_env *env, const sy_expr *q)
{
    size_t work = 0;
    int exact = 1;
    double s = numel_share(env, q, 0, &work, &exact);
    return s >= 0 && (exact ? s <= 1.0 : s <= 1.0 - 1e-9);
}

sy_status sy_env_require_int64(sy_env *env, const sy_expr *e, const char *what, const sy_provenance *why)
{
    if (!env) return SY_EINVAL;
    if (!e || sy_expr_is_bool(e)) return sy_env_fail(env, SY_EINVAL, "require_int64: expected an integer expression");
    if (!what) what = "size";
    sy_expr_kind k = sy_expr_kind_of(e);
    if (k == SY_EXPR_SYM) return SY_OK; /* an input's dim or a value read from a tensor: an int64 */
    int fit = 0;
    /* the same size (a layer's output dims in the next layers' tensors) under the same facts: the
     * memoized "fits" (env_private.h, SY_XM_INT64_FIT) */
    uint64_t key[SY_XMEMO_KEY] = {SY_XM_INT64_FIT, (uint64_t)(uintptr_t)e, sy_facts_version(env->facts), env->ninsz,
                                  env->nsyms, (uint64_t)env->next_u, 0, 0};
    if (k == SY_EXPR_INT) {
        int64_t v;
        if (sy_expr_get_si(e, &v) == SY_OK) return SY_OK;
        sy_ctx_reset_error(env->ctx);
    } else if (sy_env_xmemo_get(env, key)) {
        return SY_OK;
    } else if ((fit = sy_facts_int64_fit(env->facts, e)) < 0) {
        /* past int64 at some sizes: decided again with every input's numel within int64 */
        const sy_expr *q = sy_facts_apply(env->facts, e);
        /* The numel fact set of an earlier version first: facts are only ever added, so what it
         * holds still follows from the env's facts and the inputs' numels (ranges and numel
         * bounds at most as tight as a rebuild's), and a "fits" it proves holds. Only when it
         * does not prove it is the set rebuilt (each rebuild bounds every symbol in the linear
         * layer: a fifth of inception_v3's trace). */
        fit = q && env->nf ? sy_facts_int64_fit(env->nf, q) : -1;
        if (fit != 1) {
            sy_facts *nf = q ? numel_facts(env) : NULL;
            sy_ctx_reset_error(env->ctx);
            fit = nf ? sy_facts_int64_fit(nf, q) : -1;
        }
        if (fit < 0 && q && numel_covers(env, q)) fit = 1;
        /* a size read from data (unbacked): bounded by tensors the env does not relate it to; not
         * guarded (docs/shapeenv.md, a limit) */
        if (fit < 0 && sy_env_mentions_unbacked(env, e)) fit = 1;
        if (fit < 0) { /* a guard where it may not fit although every input does: e <= INT64_MAX */
            char reason[96];
            snprintf(reason, sizeof reason, "%s fits int64", what);
            /* no provenance given (a tensor the env makes): the op call being run names it */
            const char *node = why ? why->node : env->cur_node, *op = why ? why->op : env->cur_op;
            sy_provenance w = {node, op ? op : "int64", reason};
            const sy_expr *rel = sy_expr_le(env->ctx, e, sy_expr_int_si(env->ctx, INT64_MAX));
            if (!rel) return sy_ctx_last_error(env->ctx);
            /* the guard's own fact does not make the numel fact set and the inputs' least values
             * stale: both still hold (facts are only added) and the guard bounds e, which they do not
             * read. Rebuilt for it, every node of a chain of K Concats (each width one guard) bounded
             * every symbol and input again under a growing set of relations: K^3.3 (attack46n: K =
             * 64 2.7 s, 128 24-30 s) */
            uint64_t v0 = sy_facts_version(env->facts);
            int nf_cur = env->nf && env->nf_ver == v0 && env->nf_nin == env->ninsz && env->nf_nsyms == env->nsyms;
            int il_cur = env->il_ver == v0;
            sy_status st = sy_env_require(env, rel, &w);
            if (st == SY_OK) {
                uint64_t v1 = sy_facts_version(env->facts);
                if (nf_cur) env->nf_ver = v1;
                if (il_cur) env->il_ver = v1;
            }
            if (st == SY_EINVAL && sy_ctx_last_error(env->ctx) == SY_EINVAL)
                return sy_env_fail(env, SY_EOVERFLOW, "%s = %s does not fit int64 at the example sizes", what, sy_env_show(env, e));
            return st;
        }
    }
    if (fit) {
        if (k != SY_EXPR_INT) sy_env_xmemo_put(env, key, (const sy_expr *const[SY_XMEMO_VALS]){e, NULL, NULL});
        return SY_OK;
    }
    /* the user's names: each symbol as its first source (x.size()[0]), as the ops' messages */
    return sy_env_fail(env, SY_EOVERFLOW, "%s = %s does not fit int64%s", what, sy_env_show(env, e),
                       k == SY_EXPR_INT ? "" : " at any size");
}

