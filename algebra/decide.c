/* Facts, bounds and the layered decision procedure. See docs/decision.md.
 * The linear solver (Fourier-Motzkin) is decide_lia.c, simplification under
 * facts decide_simplify.c, adding facts (replacements, congruences) and
 * sy_solve decide_facts.c; decide_private.h is their shared layout.
 *
 * Soundness discipline: every layer answers TRUE/FALSE only from a proof
 * (an interval that excludes the other outcome, or an infeasible linear
 * system derived by valid integer inferences). Anything else is UNKNOWN. */
#include "algebra/decide_private.h"

void caches_clear(sy_facts *f)
{
    sy_ctx *ctx = f->ctx;
    memset(f->sc_key, 0, sizeof f->sc_key);
    if (f->bc) {
        for (size_t i = 0; i < f->bc_cap; i++)
            if (f->bc[i].key) sy_ival_clear(&f->bc[i].iv);
        sy_dealloc(ctx, f->bc, f->bc_cap * sizeof *f->bc);
    }
    f->bc = NULL;
    f->bc_n = f->bc_cap = 0;
    if (f->lm) sy_dealloc(ctx, f->lm, f->lm_cap * sizeof *f->lm);
    f->lm = NULL;
    f->lm_n = f->lm_cap = 0;
    for (int i = 0; i < SIMP_LEVELS; i++)
        if (f->sm[i].keys) sy_memo_clear(ctx, &f->sm[i]);
}

void sy_facts_drop_memos(sy_facts *f)
{
    if (f) caches_clear(f);
}

/* A rolled-back operation released nodes the memos may still name: start
 * them over (the decide answers too). */
void facts_sync(sy_facts *f)
{
    if (f->gen == f->ctx->gen) return;
    caches_clear(f);
    memset(f->dc_key, 0, sizeof f->dc_key);
    f->gen = f->ctx->gen;
}

static const bentry *bc_get(const sy_facts *f, const sy_expr *e)
{
    if (!f->bc) return NULL;
    size_t mask = f->bc_cap - 1, j = (size_t)e->hash & mask;
    while (f->bc[j].key) {
        if (f->bc[j].key == e) return &f->bc[j];
        j = (j + 1) & mask;
    }
    return NULL;
}

/* Remember e's interval (copied). A failed allocation only loses the entry. */
static void bc_put(sy_facts *f, const sy_expr *e, const sy_ival *iv, const sy_expr *culprit, const sy_expr *culprit_div)
{
    sy_ctx *ctx = f->ctx;
    if (f->bc_n >= CACHE_MAX) {
        for (size_t i = 0; i < f->bc_cap; i++)
            if (f->bc[i].key) sy_ival_clear(&f->bc[i].iv);
        memset(f->bc, 0, f->bc_cap * sizeof *f->bc);
        f->bc_n = 0;
    }
    if ((f->bc_n + 1) * 4 > f->bc_cap * 3) { /* linear probing, load at most 3/4: an entry is 48 bytes */
        size_t nc = f->bc_cap ? f->bc_cap * 2 : 32;
        bentry *nb = sy_alloc(ctx, nc * sizeof *nb);
        if (!nb) {
            if (ctx->err == SY_ENOMEM) sy_ctx_reset_error(ctx);
            return;
        }
        memset(nb, 0, nc * sizeof *nb);
        for (size_t i = 0; i < f->bc_cap; i++) {
            if (!f->bc[i].key) continue;
            size_t j = (size_t)f->bc[i].key->hash & (nc - 1);
            while (nb[j].key) j = (j + 1) & (nc - 1);
            nb[j] = f->bc[i]; /* moves the fmpz values */
        }
        if (f->bc) sy_dealloc(ctx, f->bc, f->bc_cap * sizeof *f->bc);
        f->bc = nb;
        f->bc_cap = nc;
    }
    size_t mask = f->bc_cap - 1, j = (size_t)e->hash & mask;
    while (f->bc[j].key) j = (j + 1) & mask;
    bentry *b = &f->bc[j];
    b->key = e;
    sy_ival_init(&b->iv);
    sy_ival_set(&b->iv, iv);
    b->culprit = culprit;
    b->culprit_div = culprit_div;
    f->bc_n++;
}

/* Simplification memos live for one operation (sy_decide, sy_simplify):
 * within it every node is simplified once per depth; between operations
 * they are released, so that an answer depends only on the facts and the
 * query (the linear layer's budget is per operation). */
void simp_memos_release(sy_facts *f)
{
    for (int i = 0; i < SIMP_LEVELS; i++)
        if (f->sm[i].keys) sy_memo_clear(f->ctx, &f->sm[i]);
}

/* The simplification memo for the current depth, created on first use. */
static sy_memo *simp_memo(sy_facts *f)
{
    int d = f->depth < 0 ? 0 : f->depth >= SIMP_LEVELS ? SIMP_LEVELS - 1 : f->depth;
    sy_memo *m = &f->sm[d];
    if (m->keys && m->n >= CACHE_MAX) sy_memo_clear(f->ctx, m);
    if (!m->keys && !sy_memo_init(f->ctx, m)) return NULL;
    return m;
}

/* ------------------------------------------------------------------ storage */

bool ensure(sy_facts *f, size_t id)
{
    if (id < f->cap) return true;
    size_t nc = f->cap ? f->cap : 16;
    while (nc <= id) nc *= 2;
    sy_ival *nr = sy_realloc(f->ctx, f->range, f->cap * sizeof *nr, nc * sizeof *nr);
    if (!nr) return false;
    f->range = nr;
    const sy_expr **np = sy_realloc(f->ctx, f->repl, f->cap * sizeof *np, nc * sizeof *np);
    if (!np) return false;
    f->repl = np;
    unsigned char *nt = sy_realloc(f->ctx, f->taint, f->cap, nc);
    if (!nt) return false;
    f->taint = nt;
    uint32_t *nn = sy_realloc(f->ctx, f->rd_head, f->cap * sizeof *nn, nc * sizeof *nn);
    if (!nn) return false;
    f->rd_head = nn;
    for (size_t i = f->cap; i < nc; i++) {
        sy_ival_init(&f->range[i]);
        f->repl[i] = NULL;
        f->taint[i] = 0;
        f->rd_head[i] = 0;
    }
    f->cap = nc;
    return true;
}

sy_facts *sy_facts_new(sy_ctx *ctx)
{
    if (!ctx) return NULL;
    sy_facts *f = sy_alloc(ctx, sizeof *f);
    if (!f) {
        sy_oom(ctx);
        return NULL;
    }
    memset(f, 0, sizeof *f);
    f->ctx = ctx;
    f->gen = ctx->gen;
    if (!ensure(f, ctx->nsyms + 16)) {
        sy_facts_free(f);
        sy_oom(ctx);
        return NULL;
    }
    return f;
}

sy_facts *sy_facts_free(sy_facts *f)
{
    if (!f) return NULL;
    sy_ctx *ctx = f->ctx;
    for (size_t i = 0; i < f->cap; i++) sy_ival_clear(&f->range[i]);
    if (f->range) sy_dealloc(ctx, f->range, f->cap * sizeof *f->range);
    if (f->repl) sy_dealloc(ctx, f->repl, f->cap * sizeof *f->repl);
    if (f->taint) sy_dealloc(ctx, f->taint, f->cap);
    if (f->rd_head) sy_dealloc(ctx, f->rd_head, f->cap * sizeof *f->rd_head);
    if (f->rd_pool) sy_dealloc(ctx, f->rd_pool, f->rd_cap * sizeof *f->rd_pool);
    if (f->rels) sy_dealloc(ctx, f->rels, f->relcap * sizeof *f->rels);
    for (size_t i = 0; i < f->nfresh; i++) fmpz_clear(&f->fresh[i].k);
    if (f->fresh) sy_dealloc(ctx, f->fresh, f->freshcap * sizeof *f->fresh);
    caches_clear(f);
    if (f->relset.keys) sy_memo_clear(ctx, &f->relset);
    if (f->rinv) sy_dealloc(ctx, f->rinv, f->rinv_cap * sizeof *f->rinv);
    if (f->rpool) sy_dealloc(ctx, f->rpool, f->rpool_cap * sizeof *f->rpool);
    if (f->rfwd) sy_dealloc(ctx, f->rfwd, f->rfwd_cap * sizeof *f->rfwd);
    if (f->rfix) sy_dealloc(ctx, f->rfix, RIDX_MAX * sizeof *f->rfix);
    sy_dealloc(ctx, f, sizeof *f);
    return NULL;
}

sy_facts *sy_facts_copy(const sy_facts *src)
{
    if (!src) return NULL;
    sy_facts *f = sy_facts_new(src->ctx);
    if (!f) return NULL;
    if (!ensure(f, src->cap - 1)) goto oom;
    for (size_t i = 0; i < src->cap; i++) {
        sy_ival_set(&f->range[i], &src->range[i]);
        f->repl[i] = src->repl[i];
        f->taint[i] = src->taint[i];
        f->rd_head[i] = src->rd_head[i];
    }
    f->nrepl = src->nrepl;
    if (src->rd_n) {
        f->rd_pool = sy_alloc(f->ctx, src->rd_n * sizeof *f->rd_pool);
        if (!f->rd_pool) goto oom;
        memcpy(f->rd_pool, src->rd_pool, src->rd_n * sizeof *f->rd_pool);
        f->rd_n = f->rd_cap = src->rd_n;
    }
    if (src->nrels) {
        f->rels = sy_alloc(f->ctx, src->relcap * sizeof *f->rels);
        if (!f->rels) goto oom;
        memcpy(f->rels, src->rels, src->nrels * sizeof *f->rels);
        f->relcap = src->relcap;
        f->nrels = src->nrels;
        if (!sy_memo_init(f->ctx, &f->relset)) goto oom;
        for (size_t i = 0; i < f->nrels; i++)
            if (!sy_memo_put(f->ctx, &f->relset, f->rels[i], f->rels[i])) goto oom;
    }
    if (src->nfresh) {
        f->fresh = sy_alloc(f->ctx, src->freshcap * sizeof *f->fresh);
        if (!f->fresh) goto oom;
        f->freshcap = src->freshcap;
        for (size_t i = 0; i < src->nfresh; i++) {
            f->fresh[i] = src->fresh[i];
            fmpz_init_set(&f->fresh[i].k, &src->fresh[i].k);
        }
        f->nfresh = src->nfresh;
    }
    f->inconsistent = src->inconsistent;
    f->stats = src->stats;
    return f;
oom:
    sy_facts_free(f);
    sy_oom(src->ctx);
    return NULL;
}

sy_ctx *sy_facts_ctx(const sy_facts *f) { return f ? f->ctx : NULL; }
sy_bool sy_facts_consistent(const sy_facts *f) { return !f ? SY_BOOL_ERROR : (f->inconsistent ? SY_FALSE : SY_TRUE); }
void sy_facts_get_stats(const sy_facts *f, sy_decide_stats *out)
{
    if (f && out) *out = f->stats;
}

/* Add r to rels. captured: r is a monotone single-symbol relation already
 * intersected into its symbol's range (add_fact); any other relation
 * taints the symbols it reads. */
bool push_rel_as(sy_facts *f, const sy_expr *r, bool captured)
{
    if (!f->relset.keys && !sy_memo_init(f->ctx, &f->relset)) return false;
    if (sy_memo_get(&f->relset, r)) return true;
    if (!captured) {
        const sy_expr **fs;
        size_t k;
        if (sy_expr_free_symbols(f->ctx, r, &fs, &k) != SY_OK) return false;
        for (size_t i = 0; i < k; i++)
            if (fs[i]->u.sym.id < f->cap) f->taint[fs[i]->u.sym.id] = 1;
            else if (ensure(f, fs[i]->u.sym.id)) f->taint[fs[i]->u.sym.id] = 1;
            else {
                sy_mem_free(f->ctx, fs);
                return false;
            }
        sy_mem_free(f->ctx, fs);
    }
    if (!sy_memo_put(f->ctx, &f->relset, r, r)) return false;
    if (f->nrels == f->relcap) {
        size_t nc = f->relcap ? f->relcap * 2 : 16;
        const sy_expr **nr = sy_realloc(f->ctx, f->rels, f->relcap * sizeof *nr, nc * sizeof *nr);
        if (!nr) return false;
        f->rels = nr;
        f->relcap = nc;
    }
    f->rels[f->nrels++] = r;
    return true;
}

bool push_rel(sy_facts *f, const sy_expr *r) { return push_rel_as(f, r, false); }

static bool has_rel(const sy_facts *f, const sy_expr *r)
{
    return f->relset.keys && sy_memo_get(&f->relset, r) != NULL;
}

/* ------------------------------------------------------------------ monotone single-symbol chains
 * A chain is an integer expression that reads one symbol s once, through
 * steps that are each monotone in their one operand: c + a*X (one term,
 * a != 0), FloorDiv(X, k) and CeilDiv(X, k) with a constant k >= 1, down to
 * s. For such an e the set {s : e(s) <= t} (and {s : e(s) >= t}) is a
 * half-line of the integers, computed exactly by inverting the steps:
 *   c + a*X <= t  <=>  X <= floor((t - c)/a)  (a > 0),  X >= ceil((t - c)/a)  (a < 0)
 *   c + a*X >= t  <=>  X >= ceil((t - c)/a)   (a > 0),  X <= floor((t - c)/a) (a < 0)
 *   FloorDiv(X, k) <= t  <=>  X <= k*t + k - 1     FloorDiv(X, k) >= t  <=>  X >= k*t
 *   CeilDiv(X, k) <= t   <=>  X <= k*t             CeilDiv(X, k) >= t   <=>  X >= k*t - k + 1
 * (floor(X/k) <= t iff X/k < t + 1; ceil(X/k) >= t iff X/k > t - 1.) So a
 * fact d <= 0 with d a chain is exactly a bound on s (add_fact intersects
 * it into the range), and a query d <= 0 or d == 0 on a symbol whose only
 * facts are its range is decided, or shown open, from the range alone
 * (chain_open). */
#define CHAIN_MAX 32 /* steps; longer chains are left to the general layers */

/* s when e is a chain, else NULL */
const sy_expr *chain_sym(const sy_expr *e)
{
    for (int steps = 0; steps < CHAIN_MAX; steps++) {
        switch (e->kind) {
        case SY_EXPR_SYM: return e;
        case SY_EXPR_ADD:
            if (e->n != 1) return NULL;
            e = SY_CTERMS(e)[0].mono;
            break;
        case SY_EXPR_FLOORDIV:
        case SY_EXPR_CEILDIV:
            if (e->args[1]->kind != SY_EXPR_INT || fmpz_sgn(&e->args[1]->u.value) <= 0) return NULL;
            e = e->args[0];
            break;
        default: return NULL;
        }
    }
    return NULL;
}

/* For a chain e (chain_sym(e) != NULL): {s : e(s) <= t} (le) or
 * {s : e(s) >= t} (!le) is {s <= out} when *s_le, else {s >= out}. */
void chain_invert(const sy_expr *e, const fmpz_t t_in, bool le, bool *s_le, fmpz_t out)
{
    fmpz_t t;
    fmpz_init_set(t, t_in);
    for (;;) {
        if (e->kind == SY_EXPR_SYM) break;
        if (e->kind == SY_EXPR_ADD) { /* c + a*X vs t: a*X vs t - c */
            const fmpz *a = &SY_CTERMS(e)[0].coef;
            fmpz_sub(t, t, &e->u.c0);
            bool up = le == (fmpz_sgn(a) > 0); /* the result is X <= ... */
            if (up) fmpz_fdiv_q(t, t, a);
            else fmpz_cdiv_q(t, t, a);
            le = up;
            e = SY_CTERMS(e)[0].mono;
            continue;
        }
        const fmpz *k = &e->args[1]->u.value;
        if (e->kind == SY_EXPR_FLOORDIV) { /* le: X <= k*t + k - 1; ge: X >= k*t */
            if (le) fmpz_add_ui(t, t, 1);
            fmpz_mul(t, t, k);
            if (le) fmpz_sub_ui(t, t, 1);
        } else { /* CeilDiv. le: X <= k*t; ge: X >= k*(t - 1) + 1 */
            if (!le) fmpz_sub_ui(t, t, 1);
            fmpz_mul(t, t, k);
            if (!le) fmpz_add_ui(t, t, 1);
        }
        e = e->args[0];
    }
    *s_le = le;
    fmpz_swap(out, t);
    fmpz_clear(t);
}

/* r = r intersected with the half-line {s <= v} (s_le) or {s >= v} */
void ival_cut(sy_ival *r, bool s_le, const fmpz_t v)
{
    if (s_le) {
        if (r->hi_inf || fmpz_cmp(v, r->hi) < 0) fmpz_set(r->hi, v);
        r->hi_inf = false;
    } else {
        if (r->lo_inf || fmpz_cmp(v, r->lo) > 0) fmpz_set(r->lo, v);
        r->lo_inf = false;
    }
}

/* q (LE or EQ, after the replacements) reads one symbol s through a chain,
 * and s has no facts but its range R (taint 0, not replaced, R not empty):
 * true when q holds at some s in R and fails at another, so that no sound
 * layer can answer anything but UNKNOWN (every layer reasons from the
 * facts that share a symbol with the query, here R alone, and R has a
 * witness for each outcome). Exact integer reasoning, no budget. */
static bool chain_open(const sy_facts *f, const sy_expr *q)
{
    if (q->kind != SY_EXPR_LE && q->kind != SY_EXPR_EQ) return false;
    const sy_expr *d = q->args[0], *s = chain_sym(d);
    if (!s) return false;
    uint32_t id = s->u.sym.id;
    if (id >= f->cap || f->taint[id] || f->repl[id]) return false;
    const sy_ival *R = &f->range[id];
    if (sy_ival_is_empty(R)) return false;
    fmpz_t z, v;
    fmpz_init(z);
    fmpz_init(v);
    bool s_le, open;
    chain_invert(d, z, true, &s_le, v); /* {d <= 0} */
    if (q->kind == SY_EXPR_LE) {
        /* a witness inside {d <= 0} and one outside it */
        open = s_le ? (R->lo_inf || fmpz_cmp(R->lo, v) <= 0) && (R->hi_inf || fmpz_cmp(R->hi, v) > 0)
                    : (R->hi_inf || fmpz_cmp(R->hi, v) >= 0) && (R->lo_inf || fmpz_cmp(R->lo, v) < 0);
    } else {
        /* Z = R & {d <= 0} & {d >= 0} = the zeros of d in R: open when Z is
         * neither empty nor all of R */
        sy_ival Z;
        sy_ival_init(&Z);
        sy_ival_set(&Z, R);
        ival_cut(&Z, s_le, v);
        chain_invert(d, z, false, &s_le, v);
        ival_cut(&Z, s_le, v);
        open = !sy_ival_is_empty(&Z) && (Z.lo_inf != R->lo_inf || Z.hi_inf != R->hi_inf ||
                                          (!Z.lo_inf && !fmpz_equal(Z.lo, R->lo)) || (!Z.hi_inf && !fmpz_equal(Z.hi, R->hi)));
        sy_ival_clear(&Z);
    }
    fmpz_clear(z);
    fmpz_clear(v);
    return open;
}

/* ------------------------------------------------------------------ replacements */

static const sy_expr *repl_leaf(void *ud, const sy_expr *e)
{
    sy_facts *f = ud;
    if (e->kind != SY_EXPR_SYM || e->u.sym.id >= f->cap) return NULL;
    return f->repl[e->u.sym.id];
}

const sy_expr *unfresh(sy_facts *f, const sy_expr *e);

/* Apply replacements; the result may mention internal parameters (#tN). */
const sy_expr *apply_raw(sy_facts *f, const sy_expr *e)
{
    if (!f || !e) return NULL;
    if (f->nrepl == 0) return e;
    sy_memo m;
    if (!sy_memo_init(f->ctx, &m)) return sy_oom(f->ctx);
    const sy_expr *r = sy_rebuild(f->ctx, e, &m, repl_leaf, f);
    sy_memo_clear(f->ctx, &m);
    return r;
}

const sy_expr *sy_facts_apply(sy_facts *f, const sy_expr *e)
{
    const sy_expr *r = apply_raw(f, e);
    return r && f->nfresh ? unfresh(f, r) : r;
}

const sy_expr *sy_facts_replacement(const sy_facts *f, const sy_expr *sym)
{
    if (!f || !sym || sym->kind != SY_EXPR_SYM || sym->u.sym.id >= f->cap) return NULL;
    const sy_expr *r = f->repl[sym->u.sym.id];
    return r && f->nfresh ? unfresh((sy_facts *)f, r) : r;
}

/* ------------------------------------------------------------------ bounds under facts */


static bool nonzero_fact(sy_facts *f, const sy_expr *d)
{
    const sy_expr *ne = sy_expr_ne(f->ctx, d, sy_expr_int_si(f->ctx, 0));
    return ne && (ne->kind == SY_EXPR_TRUE || has_rel(f, ne));
}

void bound_rec(bctx *B, const sy_expr *e, sy_ival *out);

/* Residue enumeration: the set of values of Mod(P, k) for a polynomial P in
 * few symbols depends only on the symbols' residues mod k. */
static bool residue_range(bctx *B, const sy_expr *p, const fmpz *k, sy_ival *out)
{
    sy_ctx *ctx = B->f->ctx;
    if (fmpz_sgn(k) <= 0) return false;
    /* P = c0 + sum c_i*x_i, linear in symbols: over all integers the values
     * of P mod k are exactly c0 + g*t mod k with g = gcd(c_1..c_n, k), that
     * is c0 mod g, c0 mod g + g, ..., c0 mod g + k - g. Closed form, any k. */
    bool linear = p->kind == SY_EXPR_SYM;
    if (p->kind == SY_EXPR_ADD) {
        linear = true;
        for (uint32_t i = 0; i < p->n && linear; i++) linear = SY_CTERMS(p)[i].mono->kind == SY_EXPR_SYM;
    }
    if (linear) {
        fmpz_t g, c;
        fmpz_init(g);
        fmpz_init(c);
        if (p->kind == SY_EXPR_ADD) {
            fmpz_set(g, k);
            for (uint32_t i = 0; i < p->n; i++) fmpz_gcd(g, g, &SY_CTERMS(p)[i].coef);
            fmpz_fdiv_r(c, &p->u.c0, g);
        } else {
            fmpz_one(g); /* a lone symbol: coefficient 1, no constant */
        }
        sy_ival_set_fmpz(out, c);
        fmpz_add(out->hi, c, k);
        fmpz_sub(out->hi, out->hi, g);
        fmpz_clear(g);
        fmpz_clear(c);
        return true;
    }
    if (!fmpz_fits_si(k) || fmpz_get_si(k) > RESIDUE_DIVISOR_MAX) return false;
    int64_t kk = fmpz_get_si(k);
    /* P must be a polynomial in symbols only */
    const sy_expr **syms;
    size_t ns;
    if (sy_expr_free_symbols(ctx, p, &syms, &ns) != SY_OK) {
        sy_ctx_reset_error(ctx);
        return false;
    }
    bool ok = ns > 0;
    size_t combos = 1;
    for (size_t i = 0; i < ns && ok; i++) {
        combos *= (size_t)kk;
        if (combos > RESIDUE_MAX) ok = false;
    }
    /* only polynomial-level symbols */
    size_t nt = p->kind == SY_EXPR_ADD ? p->n : 1;
    for (size_t i = 0; i < nt && ok; i++) {
        const sy_expr *m = p->kind == SY_EXPR_ADD ? SY_CTERMS(p)[i].mono : p;
        uint32_t nf = m->kind == SY_EXPR_MUL ? m->n : 1;
        for (uint32_t j = 0; j < nf && ok; j++) {
            const sy_expr *fct = m->kind == SY_EXPR_MUL ? m->args[j] : m;
            if (fct->kind == SY_EXPR_POW) fct = fct->args[0];
            if (fct->kind != SY_EXPR_SYM) ok = false;
        }
    }
    if (!ok) {
        sy_mem_free(ctx, syms);
        return false;
    }
    sy_binding b;
    if (!sy_binding_init(ctx, &b)) {
        sy_mem_free(ctx, syms);
        return false;
    }
    fmpz_t v, r;
    fmpz_init(v);
    fmpz_init(r);
    int64_t lo = kk, hi = -1;
    for (size_t c = 0; c < combos && ok; c++) {
        size_t idx = c;
        for (size_t i = 0; i < ns; i++) {
            fmpz_set_si(v, (int64_t)(idx % (size_t)kk));
            idx /= (size_t)kk;
            sy_binding_set(&b, sy_expr_sym_id(syms[i]), v);
        }
        if (sy_eval_raw(ctx, p, &b, r) != SY_OK) {
            ok = false;
            break;
        }
        fmpz_fdiv_r(r, r, k);
        int64_t x = fmpz_get_si(r);
        if (x < lo) lo = x;
        if (x > hi) hi = x;
        if (lo == 0 && hi == kk - 1) break; /* every residue: no better than [0, k-1] */
    }
    sy_ctx_reset_error(ctx);
    if (ok) sy_ival_set_si(out, lo, hi);
    fmpz_clear(v);
    fmpz_clear(r);
    sy_binding_clear(ctx, &b);
    sy_mem_free(ctx, syms);
    return ok;
}

static void bound_node(bctx *B, const sy_expr *e, sy_ival *out);

/* Interval of e under the facts, memoized on node identity: on a DAG every
 * node is bounded once per fact set (a tree walk of a shared FloorDiv chain
 * is exponential in its depth). B->culprit gets the first division (in the
 * order of a tree walk) whose divisor may be zero, as without the memo. */
void bound_rec(bctx *B, const sy_expr *e, sy_ival *out)
{
    if (!sy_step(B->f->ctx)) { /* budget spent: the whole line is a sound answer, the operation fails anyway */
        sy_ival_set_full(out);
        return;
    }
    if (e->kind == SY_EXPR_INT || e->kind == SY_EXPR_SYM || e->isbool) {
        bound_node(B, e, out);
        return;
    }
    const bentry *hit = bc_get(B->f, e);
    if (hit) {
        sy_ival_set(out, &hit->iv);
        if (!B->culprit && hit->culprit) {
            B->culprit = hit->culprit;
            B->culprit_div = hit->culprit_div;
        }
        return;
    }
    bctx sub = {B->f, NULL, NULL};
    bound_node(&sub, e, out);
    bc_put(B->f, e, out, sub.culprit, sub.culprit_div);
    if (!B->culprit && sub.culprit) {
        B->culprit = sub.culprit;
        B->culprit_div = sub.culprit_div;
    }
}

static void bound_node(bctx *B, const sy_expr *e, sy_ival *out)
{
    sy_facts *f = B->f;
    sy_ival a, b;
    switch (e->kind) {
    case SY_EXPR_INT: sy_ival_set_fmpz(out, &e->u.value); return;
    case SY_EXPR_SYM:
        if (e->u.sym.id < f->cap) sy_ival_set(out, &f->range[e->u.sym.id]);
        else sy_ival_set_full(out);
        return;
    case SY_EXPR_TRUE: sy_ival_set_si(out, 1, 1); return;
    case SY_EXPR_FALSE: sy_ival_set_si(out, 0, 0); return;
    default: break;
    }
    if (e->isbool) {
        sy_ival_set_si(out, 0, 1);
        return;
    }
    sy_ival_init(&a);
    sy_ival_init(&b);
    switch (e->kind) {
    case SY_EXPR_ADD:
        sy_ival_set_fmpz(out, &e->u.c0);
        for (uint32_t i = 0; i < e->n; i++) {
            bound_rec(B, SY_CTERMS(e)[i].mono, &a);
            sy_ival_scale(&a, &a, &SY_CTERMS(e)[i].coef);
            sy_ival_add(out, out, &a);
        }
        break;
    case SY_EXPR_POW:
        bound_rec(B, e->args[0], &a);
        sy_ival_pow(out, &a, e->u.exp);
        break;
    case SY_EXPR_MUL:
        bound_rec(B, e->args[0], out);
        for (uint32_t i = 1; i < e->n; i++) {
            bound_rec(B, e->args[i], &a);
            sy_ival_mul(out, out, &a);
        }
        break;
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_CEILDIV:
    case SY_EXPR_MOD: {
        bound_rec(B, e->args[0], &a);
        bound_rec(B, e->args[1], &b);
        bool nz = !sy_ival_contains_zero(&b) || nonzero_fact(f, e->args[1]);
        if (!nz) {
            if (!B->culprit) {
                B->culprit = e;
                B->culprit_div = e->args[1];
            }
            sy_ival_set_full(out);
            break;
        }
        if (e->kind == SY_EXPR_FLOORDIV) sy_ival_floordiv(out, &a, &b, true);
        else if (e->kind == SY_EXPR_CEILDIV) sy_ival_ceildiv(out, &a, &b, true);
        else {
            sy_ival_mod(out, &a, &b, true);
            if (e->args[1]->kind == SY_EXPR_INT && residue_range(B, e->args[0], &e->args[1]->u.value, &b))
                sy_ival_intersect(out, out, &b);
        }
        break;
    }
    case SY_EXPR_MIN:
    case SY_EXPR_MAX:
        bound_rec(B, e->args[0], out);
        for (uint32_t i = 1; i < e->n; i++) {
            bound_rec(B, e->args[i], &a);
            if (e->kind == SY_EXPR_MIN) sy_ival_min(out, out, &a); else sy_ival_max(out, out, &a);
        }
        break;
    default: sy_ival_set_full(out); break;
    }
    /* the intrinsic bounds hold everywhere: intersect */
    sy_ival_set_bounds64(&a, e->lo, e->hi);
    sy_ival_intersect(out, out, &a);
    sy_ival_clear(&a);
    sy_ival_clear(&b);
}

/* ------------------------------------------------------------------ decide */

sy_truth decide_rec(sy_facts *f, const sy_expr *q, int *layer);

static sy_truth neg_truth(sy_truth t)
{
    return t == SY_TRUTH_TRUE ? SY_TRUTH_FALSE : t == SY_TRUTH_FALSE ? SY_TRUTH_TRUE : SY_TRUTH_UNKNOWN;
}

const sy_expr *simp(sy_facts *f, const sy_expr *e, sy_memo *memo);

static sy_truth decide_rewrite(sy_facts *f, const sy_expr *q, int *layer);
static sy_truth decide_again(sy_facts *f, const sy_expr *q, int *layer);
static sy_truth decide_lia(sy_facts *f, const sy_expr *q, int *layer);

/* The rows one operand of a joint And/Or question contributes, as alternatives (the operand
 * holds iff one of them does): d <= 0 and d == 0 are one row; d != 0 is the split d <= -1 or
 * d >= 1 (integers: x != c is x <= c - 1 or x >= c + 1); an Or of such relations is the union
 * of its disjuncts' alternatives. 1: *n alternatives in ds/eqs; 0: another form (or out of
 * memory); -1: more than SPLIT_MAX alternatives. */
static int joint_alts(sy_ctx *ctx, const sy_expr *r, const sy_expr **ds, bool *eqs, size_t *n)
{
    if (!r) return 0;
    const sy_expr *one = r->kind == SY_EXPR_OR ? NULL : r;
    size_t nr = one ? 1 : r->n;
    for (size_t i = 0; i < nr; i++) {
        const sy_expr *x = one ? one : r->args[i];
        if (x->kind == SY_EXPR_LE || x->kind == SY_EXPR_EQ) {
            if (*n >= SPLIT_MAX) return -1;
            ds[*n] = x->args[0];
            eqs[(*n)++] = x->kind == SY_EXPR_EQ;
        } else if (x->kind == SY_EXPR_NE) {
            if (*n + 2 > SPLIT_MAX) return -1;
            const sy_expr *d = x->args[0];
            const sy_expr *lo = sy_expr_add_si(ctx, d, 1), *hi = sy_expr_sub(ctx, sy_expr_int_si(ctx, 1), d);
            if (!lo || !hi) return 0;
            ds[*n] = lo; /* d <= -1 */
            eqs[(*n)++] = false;
            ds[*n] = hi; /* d >= 1 */
            eqs[(*n)++] = false;
        } else {
            return 0;
        }
    }
    return 1;
}

/* Joint question of an And (is_and: facts && every conjunct) or an Or (facts && every negated
 * disjunct): 1 when that system is infeasible at every integer point, 0 when not shown, -1
 * when a budget stopped it. Each operand gives its alternatives (joint_alts); the system is
 * infeasible iff every choice of one alternative per operand is (a case split, sound because
 * the alternatives of an operand cover it), each choice one linear run. At most SPLIT_MAX
 * choices (the product of the alternative counts), so no exponential path: past it the answer
 * is -1 with budget_hits counted. Or(x == 0, 1 <= x) under x >= 0: x != 0 and x <= 0 splits
 * into x <= -1 (against x >= 0) and x >= 1 (against x <= 0), both infeasible: TRUE. */
static int joint_infeasible(sy_facts *f, const sy_expr *q, bool is_and)
{
    sy_ctx *ctx = f->ctx;
    const sy_expr *alt[JOINT_MAX][SPLIT_MAX];
    bool alteq[JOINT_MAX][SPLIT_MAX];
    size_t na[JOINT_MAX], combos = 1;
    for (uint32_t i = 0; i < q->n; i++) {
        na[i] = 0;
        int a = joint_alts(ctx, is_and ? q->args[i] : sy_expr_not(ctx, q->args[i]), alt[i], alteq[i], &na[i]);
        if (a == 1 && (combos *= na[i]) > SPLIT_MAX) a = -1;
        if (a != 1) {
            if (a < 0) f->stats.budget_hits++;
            return a;
        }
    }
    size_t pick[JOINT_MAX] = {0};
    const sy_expr *ds[JOINT_MAX];
    bool eqs[JOINT_MAX];
    for (size_t c = 0; c < combos; c++) {
        for (uint32_t i = 0; i < q->n; i++) {
            ds[i] = alt[i][pick[i]];
            eqs[i] = alteq[i][pick[i]];
        }
        int r = lia_infeasible_n(f, q->n, ds, eqs, q);
        if (r != 1) return r;
        for (uint32_t i = 0; i < q->n && ++pick[i] == na[i]; i++) pick[i] = 0; /* next choice */
    }
    return 1;
}

static sy_truth decide_rel(sy_facts *f, const sy_expr *q, int *layer)
{
    sy_ctx *ctx = f->ctx;
    if (q->kind == SY_EXPR_TRUE) { *layer = 0; return SY_TRUTH_TRUE; }
    if (q->kind == SY_EXPR_FALSE) { *layer = 0; return SY_TRUTH_FALSE; }
    if (has_rel(f, q)) { *layer = 0; return SY_TRUTH_TRUE; }
    const sy_expr *nq = sy_expr_not(ctx, q);
    if (!nq) return SY_TRUTH_UNKNOWN;
    if (has_rel(f, nq)) { *layer = 0; return SY_TRUTH_FALSE; }
    if (q->kind == SY_EXPR_NE) return neg_truth(decide_rel(f, nq, layer));
    if (q->kind == SY_EXPR_AND || q->kind == SY_EXPR_OR) {
        bool is_and = q->kind == SY_EXPR_AND;
        bool all = true;
        int lay = 0;
        for (uint32_t i = 0; i < q->n; i++) {
            int l = 0;
            sy_truth t = decide_rec(f, q->args[i], &l);
            if (l > lay) lay = l;
            if (t == (is_and ? SY_TRUTH_FALSE : SY_TRUTH_TRUE)) {
                *layer = l;
                return t;
            }
            if (t == SY_TRUTH_UNKNOWN) all = false;
        }
        *layer = lay;
        if (all) return is_and ? SY_TRUTH_TRUE : SY_TRUTH_FALSE;
        /* joint reasoning: And is FALSE when facts && all conjuncts are
         * infeasible; Or is TRUE when facts && all negated disjuncts are
         * (joint_infeasible: rows, case splits on != and inner Or). */
        if (q->n <= JOINT_MAX && joint_infeasible(f, q, is_and) == 1) {
            *layer = 3;
            return is_and ? SY_TRUTH_FALSE : SY_TRUTH_TRUE;
        }
        return SY_TRUTH_UNKNOWN;
    }
    for (int i = f->nactive; i-- > 0;) /* this call's rewriting would run at f->depth + 1 */
        if (f->active[i].q == q && f->active[i].again && f->depth + 1 >= f->active[i].again) return decide_again(f, q, layer);
    const sy_expr *d = q->args[0];
    /* layer 2: intervals */
    sy_ival iv;
    sy_ival_init(&iv);
    bctx B = {f, NULL, NULL};
    bound_rec(&B, d, &iv);
    sy_truth ans = SY_TRUTH_UNKNOWN;
    if (q->kind == SY_EXPR_LE) {
        if (!iv.hi_inf && fmpz_sgn(iv.hi) <= 0) ans = SY_TRUTH_TRUE;
        else if (!iv.lo_inf && fmpz_sgn(iv.lo) > 0) ans = SY_TRUTH_FALSE;
    } else { /* EQ */
        if (sy_ival_is_point(&iv) && fmpz_is_zero(iv.lo)) ans = SY_TRUTH_TRUE;
        else if (!sy_ival_contains_zero(&iv)) ans = SY_TRUTH_FALSE;
    }
    sy_ival_clear(&iv);
    if (ans != SY_TRUTH_UNKNOWN) {
        *layer = 1;
        return ans;
    }
    if (chain_open(f, q)) return SY_TRUTH_UNKNOWN; /* the later layers could only say so */
    /* layer 3: range-aware rewriting, then decide the rewritten relation */
    if (f->depth < MAX_DEPTH) {
        int a = f->nactive;
        if (a < ACTIVE_MAX) f->active[f->nactive++].q = q, f->active[a].again = 0;
        sy_truth t = decide_rewrite(f, q, layer);
        f->nactive = a;
        if (t != SY_TRUTH_UNKNOWN) return t;
    }
    return decide_lia(f, q, layer);
}

/* Layer 3 of decide_rel: range-aware rewriting of q (memoized per depth),
 * then the decision of the rewritten relation; UNKNOWN when it says nothing. */
static sy_truth decide_rewrite(sy_facts *f, const sy_expr *q, int *layer)
{
    sy_ctx *ctx = f->ctx;
    f->depth++;
    sy_memo *m = simp_memo(f);
    const sy_expr *q2 = m ? simp(f, q, m) : NULL;
    f->depth--;
    sy_ctx_reset_error(ctx);
    if (q2 && q2 != q) {
        if (q2->kind == SY_EXPR_TRUE || q2->kind == SY_EXPR_FALSE) {
            *layer = 2;
            return q2->kind == SY_EXPR_TRUE ? SY_TRUTH_TRUE : SY_TRUTH_FALSE;
        }
        f->depth++;
        int l = 0;
        sy_truth t = decide_rec(f, q2, &l);
        f->depth--;
        if (t != SY_TRUTH_UNKNOWN) {
            *layer = l > 2 ? l : 2;
            return t;
        }
    }
    return SY_TRUTH_UNKNOWN;
}

/* decide_rel of q (d <= 0 or d == 0) asked again while q is in its layer 3
 * further up, where the rewriting left d as it was and asks about q itself
 * (simp_node of a relation decides it): the same facts, so layers 1 and 2
 * say UNKNOWN again and the chain test passes again; this call's rewriting,
 * at that depth or deeper, has no more decisions to rewrite d with (each
 * rule fires only on a decision, and deeper decisions have fewer layers), so
 * it leaves d as it is too and again only asks about q, two levels deeper.
 * That is this recursion, without the rewriting's work: the same linear
 * questions in the same order (the same answers and lia_budget), the same
 * result. */
static sy_truth decide_again(sy_facts *f, const sy_expr *q, int *layer)
{
    if (f->depth < MAX_DEPTH) {
        sy_truth t = SY_TRUTH_UNKNOWN;
        f->depth++;
        if (f->depth <= MAX_DEPTH) { /* simp_node's depth check */
            int l = 0;
            f->depth++;
            t = decide_again(f, q, &l);
            f->depth--;
        }
        f->depth--;
        if ((t == SY_TRUTH_TRUE && sy_rule_on(f->ctx, SY_R_SIMP_REL_TRUE)) ||
            (t == SY_TRUTH_FALSE && sy_rule_on(f->ctx, SY_R_SIMP_REL_FALSE))) {
            *layer = 2;
            return t;
        }
    }
    return decide_lia(f, q, layer);
}

/* layer 4: linear integer arithmetic. LE(d): TRUE iff facts && d >= 1
 * infeasible; FALSE iff facts && d <= 0 infeasible. EQ(d): TRUE iff both
 * d >= 1 and d <= -1 infeasible; FALSE iff d == 0 infeasible. */
static sy_truth decide_lia(sy_facts *f, const sy_expr *q, int *layer)
{
    sy_ctx *ctx = f->ctx;
    const sy_expr *d = q->args[0];
    const sy_expr *one_minus_d = sy_expr_sub(ctx, sy_expr_int_si(ctx, 1), d); /* d >= 1  <=>  1 - d <= 0 */
    if (!one_minus_d) return SY_TRUTH_UNKNOWN;
    if (q->kind == SY_EXPR_LE) {
        if (lia_infeasible(f, one_minus_d, false, q) == 1) { *layer = 3; return SY_TRUTH_TRUE; }
        if (lia_infeasible(f, d, false, q) == 1) { *layer = 3; return SY_TRUTH_FALSE; }
    } else {
        if (lia_infeasible(f, d, true, q) == 1) { *layer = 3; return SY_TRUTH_FALSE; }
        const sy_expr *d_plus_1 = sy_expr_add_si(ctx, d, 1); /* d <= -1 */
        if (d_plus_1 && lia_infeasible(f, one_minus_d, false, q) == 1 && lia_infeasible(f, d_plus_1, false, q) == 1) {
            *layer = 3;
            return SY_TRUTH_TRUE;
        }
    }
    return SY_TRUTH_UNKNOWN;
}

sy_truth decide_rec(sy_facts *f, const sy_expr *q, int *layer)
{
    return decide_rel(f, q, layer);
}

/* What sy_simplify does after applying the replacements: two passes of
 * range-aware rewriting (the second catches rules the first exposed) with
 * the simplification budget. sy_decide falls back on exactly this. */
const sy_expr *simplify_core(sy_facts *f, const sy_expr *q)
{
    f->lia_budget = LIA_RUNS_SIMPLIFY;
    sy_memo *m = simp_memo(f);
    if (!m) return sy_oom(f->ctx);
    const sy_expr *r = simp(f, q, m);
    if (r) r = simp(f, r, m);
    return r;
}

/* The decision layers use the context's error slot for internal failures
 * they recover from (as UNKNOWN); the caller's previous error is kept. */
typedef struct { sy_status st; long off; char msg[512]; } saved_err;
static void save_err(sy_ctx *ctx, saved_err *s)
{
    s->st = ctx->err;
    s->off = ctx->erroff;
    memcpy(s->msg, ctx->errmsg, sizeof s->msg);
    sy_ctx_reset_error(ctx);
}
/* restore; returns SY_ENOMEM when an allocation failed on the way */
static sy_status restore_err(sy_ctx *ctx, const saved_err *s)
{
    if (ctx->err == SY_ENOMEM) return SY_ENOMEM;
    ctx->err = s->st;
    ctx->erroff = s->off;
    memcpy(ctx->errmsg, s->msg, sizeof s->msg);
    return SY_OK;
}

/* ------------------------------------------------------------------ floor pairs
 * d <= 0 with d = c0 + a FloorDiv(A, s) + b FloorDiv(B, s), a, b in {1, -1}, s > 0 a
 * constant, and A - B (a = -b) or A + B (a = b) a constant k: at every integer point
 * FloorDiv(A, s) - FloorDiv(B, s) lies in [floor(k/s), ceil(k/s)] (floor(x) - floor(y) is
 * floor(x - y) or one more) and FloorDiv(A, s) + FloorDiv(B, s) in [floor(k/s) - 1,
 * floor(k/s)] (floor(x) + floor(y) is floor(x + y) or one less). When that interval of d
 * is on one side of 0 the answer holds for every value, so under any facts. Pooling's
 * ceil-mode test (the last window starts inside: FloorDiv(h + 1, 4) <= CeilDiv(h, 4)) is
 * of this form and cost the layers below ~15k instructions each. UNKNOWN otherwise. */

/* the linear part of X (X itself with coefficient 1 when X is not a sum) equals
 * sign * that of Y; *k gets c0(X) - sign * c0(Y) */
static bool same_linear_part(const sy_expr *x, const sy_expr *y, int sign, fmpz_t k)
{
    const sy_term tx1 = {1, x}, ty1 = {1, y};
    const sy_term *tx = x->kind == SY_EXPR_ADD ? SY_CTERMS(x) : &tx1;
    const sy_term *ty = y->kind == SY_EXPR_ADD ? SY_CTERMS(y) : &ty1;
    size_t nx = x->kind == SY_EXPR_ADD ? x->n : 1, ny = y->kind == SY_EXPR_ADD ? y->n : 1;
    if (x->isbool || y->isbool || nx != ny || x->kind == SY_EXPR_INT || y->kind == SY_EXPR_INT) return false;
    for (size_t i = 0; i < nx; i++) {
        if (tx[i].mono != ty[i].mono) return false;
        if (sign > 0 ? !fmpz_equal(&tx[i].coef, &ty[i].coef) : (fmpz_cmpabs(&tx[i].coef, &ty[i].coef) || fmpz_sgn(&tx[i].coef) != -fmpz_sgn(&ty[i].coef))) return false;
    }
    fmpz_zero(k);
    if (x->kind == SY_EXPR_ADD) fmpz_set(k, &x->u.c0);
    if (y->kind == SY_EXPR_ADD) {
        if (sign > 0) fmpz_sub(k, k, &y->u.c0);
        else fmpz_add(k, k, &y->u.c0);
    }
    return true;
}

static sy_truth floor_pair(const sy_expr *q)
{
    if (q->kind != SY_EXPR_LE) return SY_TRUTH_UNKNOWN;
    const sy_expr *d = q->args[0];
    if (d->kind != SY_EXPR_ADD || d->n != 2) return SY_TRUTH_UNKNOWN;
    const sy_term *t = SY_CTERMS(d);
    const sy_expr *m0 = t[0].mono, *m1 = t[1].mono;
    if (m0->kind != SY_EXPR_FLOORDIV || m1->kind != SY_EXPR_FLOORDIV || !fmpz_is_pm1(&t[0].coef) ||
        !fmpz_is_pm1(&t[1].coef))
        return SY_TRUTH_UNKNOWN;
    const sy_expr *s = m0->args[1];
    if (s != m1->args[1] || s->kind != SY_EXPR_INT || fmpz_sgn(&s->u.value) <= 0) return SY_TRUTH_UNKNOWN;
    int a = fmpz_is_one(&t[0].coef) ? 1 : -1, b = fmpz_is_one(&t[1].coef) ? 1 : -1;
    fmpz_t k, lo, hi;
    fmpz_init(k);
    fmpz_init(lo);
    fmpz_init(hi);
    sy_truth r = SY_TRUTH_UNKNOWN;
    if (same_linear_part(m0->args[0], m1->args[0], a == b ? -1 : 1, k)) {
        fmpz_fdiv_q(lo, k, &s->u.value);
        if (a == b) {
            /* a (F(A) + F(B)) in a [fl(k/s) - 1, fl(k/s)] */
            fmpz_set(hi, lo);
            fmpz_sub_ui(lo, lo, 1);
        } else {
            /* a (F(A) - F(B)) in a [fl(k/s), ce(k/s)] */
            fmpz_cdiv_q(hi, k, &s->u.value);
        }
        if (a < 0) {
            fmpz_swap(lo, hi);
            fmpz_neg(lo, lo);
            fmpz_neg(hi, hi);
        }
        fmpz_add(lo, lo, &d->u.c0);
        fmpz_add(hi, hi, &d->u.c0);
        if (fmpz_sgn(hi) <= 0) r = SY_TRUTH_TRUE;
        else if (fmpz_sgn(lo) > 0) r = SY_TRUTH_FALSE;
    }
    fmpz_clear(k);
    fmpz_clear(lo);
    fmpz_clear(hi);
    return r;
}

static sy_status sy_decide_work(sy_facts *f, const sy_expr *rel, sy_truth *out)
{
    if (!f) return SY_EINVAL;
    if (!rel || !out) return sy_fail_st(f->ctx, SY_EINVAL, "decide: NULL argument");
    if (!rel->isbool) return sy_fail_st(f->ctx, SY_EINVAL, "decide: expected a boolean expression");
    f->stats.queries++;
    *out = SY_TRUTH_UNKNOWN;
    if (f->inconsistent) {
        /* nothing is concluded from contradictory facts, except a constant
         * (as sy_simplify, which returns the relation unchanged) */
        if (rel->kind == SY_EXPR_TRUE || rel->kind == SY_EXPR_FALSE) {
            *out = rel->kind == SY_EXPR_TRUE ? SY_TRUTH_TRUE : SY_TRUTH_FALSE;
            f->stats.by_canonical++;
            return SY_OK;
        }
        f->stats.unknown++;
        return SY_OK;
    }
    const sy_expr *q = apply_raw(f, rel);
    if (!q) {
        /* under the replacements a divisor is the constant 0: the relation is
         * undefined wherever the facts hold; UNKNOWN is the sound answer */
        if (sy_ctx_last_error(f->ctx) != SY_EDIVZERO) return sy_ctx_last_error(f->ctx);
        sy_ctx_reset_error(f->ctx);
        f->stats.unknown++;
        return SY_OK;
    }
    size_t slot = (size_t)(sy_expr_hash(q) % DCACHE);
    if (f->dc_key[slot] == q) {
        sy_truth t = (sy_truth)f->dc_val[slot];
        int layer = f->dc_layer[slot];
        *out = t;
        if (t == SY_TRUTH_UNKNOWN) f->stats.unknown++;
        else if (layer == 0) f->stats.by_canonical++;
        else if (layer == 1) f->stats.by_interval++;
        else if (layer == 2) f->stats.by_simplify++;
        else f->stats.by_linear++;
        return SY_OK;
    }
    f->lia_budget = LIA_RUNS_DECIDE;
    int layer = 0;
    saved_err se;
    save_err(f->ctx, &se);
    simp_memos_release(f);
    /* an open chain query is UNKNOWN by every layer and by simplify */
    bool open = chain_open(f, q);
    sy_truth t = open ? SY_TRUTH_UNKNOWN : floor_pair(q);
    if (t != SY_TRUTH_UNKNOWN) layer = 1;
    else if (!open) t = decide_rec(f, q, &layer);
    if (t == SY_TRUTH_UNKNOWN && !open) {
        /* Decide is at least as strong as simplify, by construction: when the
         * layers leave the question open, run exactly what sy_simplify runs on
         * it (same fresh state: memos released, same budget) and take a
         * constant result. */
        simp_memos_release(f);
        const sy_expr *r = simplify_core(f, q);
        if (f->ctx->err != SY_ENOMEM) sy_ctx_reset_error(f->ctx);
        if (r && (r->kind == SY_EXPR_TRUE || r->kind == SY_EXPR_FALSE)) {
            t = r->kind == SY_EXPR_TRUE ? SY_TRUTH_TRUE : SY_TRUTH_FALSE;
            layer = 2;
        }
    }
    simp_memos_release(f);
    if (restore_err(f->ctx, &se) == SY_ENOMEM) return sy_fail_st(f->ctx, SY_ENOMEM, "out of memory");
    f->dc_key[slot] = q;
    f->dc_val[slot] = (unsigned char)t;
    f->dc_layer[slot] = (unsigned char)layer;
    *out = t;
    if (t == SY_TRUTH_UNKNOWN) f->stats.unknown++;
    else if (layer == 0) f->stats.by_canonical++;
    else if (layer == 1) f->stats.by_interval++;
    else if (layer == 2) f->stats.by_simplify++;
    else f->stats.by_linear++;
    return SY_OK;
}

sy_status sy_decide(sy_facts *f, const sy_expr *rel, sy_truth *out)
{
    if (!f) return SY_EINVAL;
    sy_ctx *ctx = f->ctx;
    lm_mark m = lm_op_begin(f);
    sy_status st = sy_op_end_st(ctx, sy_decide_work(f, rel, out));
    lm_after_op(f, m);
    if (st != SY_OK && out) *out = SY_TRUTH_UNKNOWN;
    return st;
}

/* ------------------------------------------------------------------ bound */

static sy_status sy_bound_work(sy_facts *f, const sy_expr *e, const sy_expr **lo, const sy_expr **hi)
{
    if (!f) return SY_EINVAL;
    sy_ctx *ctx = f->ctx;
    if (!e || !lo || !hi) return sy_fail_st(ctx, SY_EINVAL, "bound: NULL argument");
    if (e->isbool) return sy_fail_st(ctx, SY_EINVAL, "bound: expected an integer expression");
    *lo = *hi = NULL;
    const sy_expr *q = apply_raw(f, e);
    if (!q) return sy_ctx_last_error(ctx);
    sy_ival iv;
    sy_ival_init(&iv);
    bctx B = {f, NULL, NULL};
    bound_rec(&B, q, &iv);
    if (B.culprit) {
        sy_ival db;
        sy_ival_init(&db);
        bctx B2 = {f, NULL, NULL};
        bound_rec(&B2, B.culprit_div, &db);
        char *a = sy_expr_print(ctx, B.culprit, SY_PRINT_CANONICAL), *d = sy_expr_print(ctx, B.culprit_div, SY_PRINT_CANONICAL);
        char *lo_s = db.lo_inf ? NULL : fmpz_get_str(NULL, 10, db.lo), *hi_s = db.hi_inf ? NULL : fmpz_get_str(NULL, 10, db.hi);
        sy_status st = sy_fail_st(ctx, SY_EDIVZERO, "no range: in %s the divisor %s may be zero (its range is [%s, %s])",
                                  a ? a : "?", d ? d : "?", lo_s ? lo_s : "-oo", hi_s ? hi_s : "oo");
        flint_free(lo_s);
        flint_free(hi_s);
        sy_str_free(ctx, a);
        sy_str_free(ctx, d);
        sy_ival_clear(&db);
        sy_ival_clear(&iv);
        return st;
    }
    if (f->inconsistent) {
        sy_ival_clear(&iv);
        return SY_OK; /* nothing sound to say beyond [-oo, oo] */
    }
    /* tighten with the linear layer: project the facts onto z = q */
    if (q->kind != SY_EXPR_INT && (q->kind != SY_EXPR_SYM || f->nrels > 0)) {
        lsys L;
        lsys_init(&L, f);
        const sy_expr *z = sy_sym_internal(ctx, "#bound");
        long zv = var_of(&L, z);
        add_facts(&L, q);
        add_poly(&L, sy_expr_sub(ctx, z, q), true);
        define_all(&L);
        if (!L.overflow && zv >= 0) {
            sy_ival proj;
            sy_ival_init(&proj);
            int r = fm_run(&L, zv, &proj);
            if (r == 0) sy_ival_intersect(&iv, &iv, &proj);
            sy_ival_clear(&proj);
        }
        lsys_clear(&L);
    }
    if (!iv.lo_inf) *lo = sy_int_fmpz(ctx, iv.lo);
    if (!iv.hi_inf) *hi = sy_int_fmpz(ctx, iv.hi);
    sy_ival_clear(&iv);
    return SY_OK;
}

sy_status sy_bound(sy_facts *f, const sy_expr *e, const sy_expr **lo, const sy_expr **hi)
{
    if (!f) return SY_EINVAL;
    sy_ctx *ctx = f->ctx;
    lm_mark m = lm_op_begin(f);
    sy_status st = sy_op_end_st(ctx, sy_bound_work(f, e, lo, hi));
    lm_after_op(f, m);
    if (st != SY_OK && lo && hi) *lo = *hi = NULL;
    return st;
}

int sy_facts_int64_fit(sy_facts *f, const sy_expr *e)
{
    if (!f || !e || e->isbool) return -1;
    if (e->kind == SY_EXPR_SYM) return 1;
    /* the intrinsic bounds (int64 sentinels: INT64_MIN/INT64_MAX stand for -oo/+oo) */
    if (e->lo > INT64_MIN && e->hi < INT64_MAX) return 1;
    sy_ctx *ctx = f->ctx;
    if (sy_ctx_last_error(ctx) != SY_OK) return -1;
    lm_mark m = lm_op_begin(f);
    int r = -1;
    const sy_expr *q = apply_raw(f, e);
    if (q) {
        sy_ival iv;
        sy_ival_init(&iv);
        bctx B = {f, NULL, NULL};
        bound_rec(&B, q, &iv); /* memoized: linear in the DAG */
        /* fmpz_cmp_si: no bignum for INT64_MAX (the first one makes FLINT allocate ~167 KB) */
        if (f->inconsistent || sy_ival_is_empty(&iv)) r = -1;
        else if (!iv.lo_inf && !iv.hi_inf && fmpz_cmp_si(iv.hi, INT64_MAX) <= 0 && fmpz_cmp_si(iv.lo, INT64_MIN) >= 0) r = 1;
        else if ((!iv.lo_inf && fmpz_cmp_si(iv.lo, INT64_MAX) > 0) || (!iv.hi_inf && fmpz_cmp_si(iv.hi, INT64_MIN) < 0)) r = 0;
        sy_ival_clear(&iv);
    }
    sy_op_end_st(ctx, q ? SY_OK : sy_ctx_last_error(ctx));
    lm_after_op(f, m);
    if (!q || r < 0) sy_ctx_reset_error(ctx); /* a budget or a division by a maybe-zero: "it depends" */
    return r;
}
