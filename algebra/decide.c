/* Facts, bounds and the layered decision procedure. See docs/decision.md.
 *
 * Soundness discipline: every layer answers TRUE/FALSE only from a proof
 * (an interval that excludes the other outcome, or an infeasible linear
 * system derived by valid integer inferences). Anything else is UNKNOWN. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/eval_private.h"
#include "algebra/ival.h"
#include "symshape/decide.h"

#define MAX_DEPTH 3
#define ACTIVE_MAX 8
#define LIA_MAX_VARS 48
#define LIA_MAX_ROWS 1500
#define LIA_MAX_STEPS 20000
#define RESIDUE_MAX 4096

typedef struct fresh_sym {
    const sy_expr *t; /* internal symbol */
    const sy_expr *s; /* the symbol it parametrises: s = k*t + x */
    fmpz k;
    const sy_expr *x;
} fresh_sym;

#define DCACHE 256 /* decide() answers memoized per fact-set version */
#define SCACHE 32 /* sy_simplify() results memoized per fact-set version (a power of two) */
#define SIMP_LEVELS 8 /* simplification memos, one per decision depth */
#define CACHE_MAX ((size_t)1 << 20) /* a memo past this many entries starts over */
#define RIDX_MAX 512 /* relations the linear layer considers (add_facts) */

/* Interval of a node under the facts, and the first division in it whose
 * divisor may be zero (see bctx), memoized on node identity. */
typedef struct bentry {
    const sy_expr *key;
    sy_ival iv;
    const sy_expr *culprit, *culprit_div;
} bentry;

struct sy_facts {
    sy_ctx *ctx;
    const sy_expr *dc_key[DCACHE];
    unsigned char dc_val[DCACHE];
    unsigned char dc_layer[DCACHE];
    /* sy_simplify's results on node identity, direct-mapped on the node's
     * hash, for the current facts (emptied with the other memos: by every
     * sy_facts_add, a rollback, sy_facts_drop_memos) and the rules_epoch
     * they were made in. Every call starts from the same fresh state (memos
     * released, the same budgets), so a result is a function of the facts
     * and the node: a hit gives what the computation gives. The shape
     * environment simplifies the same clamps and sizes again and again
     * (swin: 375 simplifications in its 125 Slices). Failures are not kept.
     * 32 entries (640 bytes in every fact set) keep nearly all of the gain
     * of 128 (swin_hw: 26.18M against 26.00M instructions). */
    const sy_expr *sc_key[SCACHE], *sc_val[SCACHE];
    uint32_t sc_repoch[SCACHE];
    size_t cap;
    sy_ival *range;
    const sy_expr **repl;
    /* per symbol id: 1 when a relation of rels reads the symbol and is not
     * one of the monotone single-symbol relations whose set is exactly a
     * half-line of the symbol, already intersected into range (see
     * chain_sym). A symbol with taint 0 has no facts but its range. */
    unsigned char *taint;
    size_t nrepl;
    const sy_expr **rels;
    size_t nrels, relcap;
    fresh_sym *fresh;
    size_t nfresh, freshcap;
    bool inconsistent;
    int depth;
    size_t lia_budget;
    /* decide_rel: the relations in their layer 3 (rewriting) further up the
     * stack; again > 0: a rewriting at that depth (the smallest such) left
     * the relation's d as it was and asks about the relation itself (see
     * decide_again) */
    struct { const sy_expr *q; int again; } active[ACTIVE_MAX];
    int nactive;
    uint64_t version; /* sy_facts_add calls so far (sy_facts_version) */
    sy_decide_stats stats;
    /* Memos on node identity, valid for the current facts (cleared by
     * sy_facts_add): bounds, and simplification results per depth (a result
     * depends on how deep the decision layers may still recurse). */
    bentry *bc;
    size_t bc_n, bc_cap;
    sy_memo sm[SIMP_LEVELS];
    sy_memo relset; /* the relations of rels, for O(1) membership */
    uint64_t gen;   /* ctx->gen when the memos were filled */
    /* Index of the first RIDX_MAX relations by the symbols they read, so the
     * linear layer's relevance closure (add_facts) visits only relations
     * sharing a symbol with the query instead of rescanning every one with
     * its free symbols per call. Valid for rels_epoch; extended as
     * relations are pushed. */
    uint64_t rels_epoch, ridx_epoch;
    size_t ridx_n;
    uint64_t ridx_all[RIDX_MAX / 64]; /* bit set: free symbols unknown, relevant to every query */
    struct rinv { const sy_expr *sym; uint32_t head; } *rinv; /* open addressing on the symbol */
    size_t rinv_cap, rinv_n;
    struct rpool { uint32_t rel, next; } *rpool; /* lists: next is index + 1, 0 ends */
    size_t rpool_n, rpool_cap;
    /* Answers of the linear layer (lia_infeasible) on node identity (d, eq,
     * query), valid for the current facts (cleared with the other memos):
     * the nested decisions of range-aware rewriting ask the same questions
     * again and again (about 4 in 5 calls on the corpus models). The answer
     * -1 (fm_run's row or step limit, or an int64 overflow while building the
     * system) is kept too: it is a function of the same system, so the
     * computation would give it again, and one such system asked 12 times cost
     * 12 full eliminations (fuzz_expr found it). Nothing is kept when an error
     * is recorded (allocation failure). A hit still spends the call's unit of
     * lia_budget, so every later answer is the one the computation gives. */
    struct lentry { const sy_expr *d, *query; int eq, r; } *lm;
    size_t lm_n, lm_cap;
};

static void caches_clear(sy_facts *f)
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
static void facts_sync(sy_facts *f)
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
static void simp_memos_release(sy_facts *f)
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

static bool ensure(sy_facts *f, size_t id)
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
    for (size_t i = f->cap; i < nc; i++) {
        sy_ival_init(&f->range[i]);
        f->repl[i] = NULL;
        f->taint[i] = 0;
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
    if (f->rels) sy_dealloc(ctx, f->rels, f->relcap * sizeof *f->rels);
    for (size_t i = 0; i < f->nfresh; i++) fmpz_clear(&f->fresh[i].k);
    if (f->fresh) sy_dealloc(ctx, f->fresh, f->freshcap * sizeof *f->fresh);
    caches_clear(f);
    if (f->relset.keys) sy_memo_clear(ctx, &f->relset);
    if (f->rinv) sy_dealloc(ctx, f->rinv, f->rinv_cap * sizeof *f->rinv);
    if (f->rpool) sy_dealloc(ctx, f->rpool, f->rpool_cap * sizeof *f->rpool);
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
    }
    f->nrepl = src->nrepl;
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
static bool push_rel_as(sy_facts *f, const sy_expr *r, bool captured)
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

static bool push_rel(sy_facts *f, const sy_expr *r) { return push_rel_as(f, r, false); }

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
static const sy_expr *chain_sym(const sy_expr *e)
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
static void chain_invert(const sy_expr *e, const fmpz_t t_in, bool le, bool *s_le, fmpz_t out)
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
static void ival_cut(sy_ival *r, bool s_le, const fmpz_t v)
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

static const sy_expr *unfresh(sy_facts *f, const sy_expr *e);

/* Apply replacements; the result may mention internal parameters (#tN). */
static const sy_expr *apply_raw(sy_facts *f, const sy_expr *e)
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

typedef struct {
    sy_facts *f;
    const sy_expr *culprit; /* a division whose divisor may be zero */
    const sy_expr *culprit_div;
} bctx;

static bool nonzero_fact(sy_facts *f, const sy_expr *d)
{
    const sy_expr *ne = sy_expr_ne(f->ctx, d, sy_expr_int_si(f->ctx, 0));
    return ne && (ne->kind == SY_EXPR_TRUE || has_rel(f, ne));
}

static void bound_rec(bctx *B, const sy_expr *e, sy_ival *out);

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
    if (!fmpz_fits_si(k) || fmpz_get_si(k) > 64) return false;
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
static void bound_rec(bctx *B, const sy_expr *e, sy_ival *out)
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

/* ------------------------------------------------------------------ linear integer arithmetic */

typedef struct {
    fmpz *a; /* nv coefficients */
    fmpz_t c;
} row; /* sum a_i x_i + c <= 0 */

typedef struct {
    sy_facts *f;
    sy_ctx *ctx;
    const sy_expr *vars[LIA_MAX_VARS];
    size_t nv;
    row *rows;
    size_t nrows, cap;
    row *eqs;
    size_t neqs, eqcap;
    bool overflow; /* too many vars/rows: give up */
    size_t nextdef; /* next variable whose definition is pending */
} lsys;

/* Rows are allocated through the context allocator; a failed allocation
 * leaves r->a NULL and the caller's system marked overflowed (UNKNOWN). */
static bool row_init(sy_ctx *ctx, row *r, size_t nv)
{
    fmpz_init(r->c);
    r->a = sy_alloc(ctx, (nv ? nv : 1) * sizeof(fmpz));
    if (!r->a) return false;
    memset(r->a, 0, (nv ? nv : 1) * sizeof(fmpz)); /* fmpz 0 is a valid initialised zero */
    return true;
}
static void row_clear(sy_ctx *ctx, row *r, size_t nv)
{
    if (r->a) {
        for (size_t i = 0; i < nv; i++) fmpz_clear(&r->a[i]);
        sy_dealloc(ctx, r->a, (nv ? nv : 1) * sizeof(fmpz));
    }
    r->a = NULL;
    fmpz_clear(r->c);
}

static void lsys_init(lsys *L, sy_facts *f)
{
    memset(L, 0, sizeof *L);
    L->f = f;
    L->ctx = f->ctx;
}
static void lsys_clear(lsys *L)
{
    for (size_t i = 0; i < L->nrows; i++) row_clear(L->ctx, &L->rows[i], LIA_MAX_VARS);
    for (size_t i = 0; i < L->neqs; i++) row_clear(L->ctx, &L->eqs[i], LIA_MAX_VARS);
    if (L->rows) sy_dealloc(L->ctx, L->rows, L->cap * sizeof *L->rows);
    if (L->eqs) sy_dealloc(L->ctx, L->eqs, L->eqcap * sizeof *L->eqs);
}

static long var_of(lsys *L, const sy_expr *m)
{
    for (size_t i = 0; i < L->nv; i++)
        if (L->vars[i] == m) return (long)i;
    if (L->nv == LIA_MAX_VARS) {
        L->overflow = true;
        return -1;
    }
    L->vars[L->nv] = m;
    return (long)L->nv++;
}

/* Coefficients of polynomial d into a fresh row (constant into c). */
static bool linearize(lsys *L, const sy_expr *d, row *r)
{
    if (!row_init(L->ctx, r, LIA_MAX_VARS)) {
        row_clear(L->ctx, r, LIA_MAX_VARS);
        L->overflow = true;
        return false;
    }
    sy_const_term(r->c, d);
    size_t nt = d->kind == SY_EXPR_ADD ? d->n : (d->kind == SY_EXPR_INT ? 0 : 1);
    for (size_t i = 0; i < nt; i++) {
        const sy_expr *m = d->kind == SY_EXPR_ADD ? SY_CTERMS(d)[i].mono : d;
        long v = var_of(L, m);
        if (v < 0) {
            row_clear(L->ctx, r, LIA_MAX_VARS);
            return false;
        }
        if (d->kind == SY_EXPR_ADD) fmpz_add(&r->a[v], &r->a[v], &SY_CTERMS(d)[i].coef);
        else fmpz_add_ui(&r->a[v], &r->a[v], 1);
    }
    return true;
}

static bool add_row(lsys *L, row *r, bool eq)
{
    row **arr = eq ? &L->eqs : &L->rows;
    size_t *n = eq ? &L->neqs : &L->nrows, *cap = eq ? &L->eqcap : &L->cap;
    if (*n >= LIA_MAX_ROWS || !r->a) {
        row_clear(L->ctx, r, LIA_MAX_VARS);
        L->overflow = true;
        return false;
    }
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 32;
        row *na = sy_realloc(L->ctx, *arr, *cap * sizeof *na, nc * sizeof *na);
        if (!na) {
            row_clear(L->ctx, r, LIA_MAX_VARS);
            L->overflow = true;
            return false;
        }
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = *r;
    return true;
}

/* add "d <= 0" (or d == 0) */
static bool add_poly(lsys *L, const sy_expr *d, bool eq)
{
    if (!d) {
        L->overflow = true;
        return false;
    }
    row r;
    if (!linearize(L, d, &r)) return false;
    return add_row(L, &r, eq);
}

/* bounds: lo <= v <= hi from an interval */
static void add_bounds(lsys *L, long v, const sy_ival *iv)
{
    row r;
    if (!iv->hi_inf) { /* v - hi <= 0 */
        row_init(L->ctx, &r, LIA_MAX_VARS);
        if (!r.a) {
            add_row(L, &r, false);
            return;
        }
        fmpz_one(&r.a[v]);
        fmpz_neg(r.c, iv->hi);
        add_row(L, &r, false);
    }
    if (!iv->lo_inf) { /* lo - v <= 0 */
        row_init(L->ctx, &r, LIA_MAX_VARS);
        if (!r.a) {
            add_row(L, &r, false);
            return;
        }
        fmpz_set_si(&r.a[v], -1);
        fmpz_set(r.c, iv->lo);
        add_row(L, &r, false);
    }
}

/* McCormick envelope of w = x*y over the boxes of x and y. */
static void add_mccormick(lsys *L, long w, long x, long y, const sy_ival *X, const sy_ival *Y)
{
    /* (x - xl)(y - yl) >= 0:  xl*y + yl*x - xl*yl - w <= 0 */
    /* (xh - x)(yh - y) >= 0:  xh*y + yh*x - xh*yh - w <= 0 */
    /* (x - xl)(yh - y) >= 0:  w - xl*y - yh*x + xl*yh <= 0 */
    /* (xh - x)(y - yl) >= 0:  w - xh*y - yl*x + xh*yl <= 0 */
    const fmpz *xs[2] = {X->lo, X->hi}, *ys[2] = {Y->lo, Y->hi};
    bool xinf[2] = {X->lo_inf, X->hi_inf}, yinf[2] = {Y->lo_inf, Y->hi_inf};
    int pairs[4][3] = {{0, 0, -1}, {1, 1, -1}, {0, 1, 1}, {1, 0, 1}}; /* xi, yi, sign of w */
    for (int p = 0; p < 4; p++) {
        int xi = pairs[p][0], yi = pairs[p][1], sw = pairs[p][2];
        if (xinf[xi] || yinf[yi]) continue;
        row r;
        if (!row_init(L->ctx, &r, LIA_MAX_VARS)) {
            row_clear(L->ctx, &r, LIA_MAX_VARS);
            L->overflow = true;
            return;
        }
        /* sw = -1: xb*y + yb*x - xb*yb - w <= 0 ; sw = +1: w - xb*y - yb*x + xb*yb <= 0 */
        fmpz_set_si(&r.a[w], sw);
        if (x == y) {
            fmpz_t t;
            fmpz_init(t);
            fmpz_add(t, xs[xi], ys[yi]);
            if (sw < 0) fmpz_add(&r.a[x], &r.a[x], t); else fmpz_sub(&r.a[x], &r.a[x], t);
            fmpz_clear(t);
        } else {
            if (sw < 0) {
                fmpz_add(&r.a[y], &r.a[y], xs[xi]);
                fmpz_add(&r.a[x], &r.a[x], ys[yi]);
            } else {
                fmpz_sub(&r.a[y], &r.a[y], xs[xi]);
                fmpz_sub(&r.a[x], &r.a[x], ys[yi]);
            }
        }
        fmpz_mul(r.c, xs[xi], ys[yi]);
        if (sw < 0) fmpz_neg(r.c, r.c);
        add_row(L, &r, false);
    }
}

static void bound_of(sy_facts *f, const sy_expr *e, sy_ival *out)
{
    bctx B = {f, NULL, NULL};
    bound_rec(&B, e, out);
}

/* Defining constraints of variable v (an atom or a non-linear monomial). */
static void define_var(lsys *L, size_t v)
{
    sy_facts *f = L->f;
    sy_ctx *ctx = f->ctx;
    const sy_expr *m = L->vars[v];
    sy_ival iv, iy;
    sy_ival_init(&iv);
    sy_ival_init(&iy);
    bound_of(f, m, &iv);
    add_bounds(L, (long)v, &iv);
    switch (m->kind) {
    case SY_EXPR_FLOORDIV:
    case SY_EXPR_CEILDIV:
        if (m->args[1]->kind == SY_EXPR_INT && fmpz_sgn(&m->args[1]->u.value) > 0) {
            const sy_expr *k = m->args[1], *a = m->args[0];
            const sy_expr *km = sy_expr_mul(ctx, k, m);
            if (m->kind == SY_EXPR_FLOORDIV) {
                /* k*q <= a <= k*q + k - 1 */
                add_poly(L, sy_expr_sub(ctx, km, a), false);
                add_poly(L, sy_expr_sub(ctx, sy_expr_sub(ctx, a, km), sy_expr_add_si(ctx, k, -1)), false);
            } else {
                /* k*c - k + 1 <= a <= k*c */
                add_poly(L, sy_expr_sub(ctx, a, km), false);
                add_poly(L, sy_expr_add_si(ctx, sy_expr_sub(ctx, sy_expr_sub(ctx, km, k), a), 1), false);
            }
        }
        break;
    case SY_EXPR_MOD:
        if (m->args[1]->kind == SY_EXPR_INT && fmpz_sgn(&m->args[1]->u.value) > 0) {
            /* r = a - k*FloorDiv(a, k) */
            const sy_expr *k = m->args[1], *a = m->args[0];
            const sy_expr *q = sy_expr_floordiv(ctx, a, k);
            add_poly(L, sy_expr_sub(ctx, m, sy_expr_sub(ctx, a, sy_expr_mul(ctx, k, q))), true);
        } else {
            sy_ival_set_full(&iy);
            bound_of(f, m->args[1], &iy);
            if (sy_ival_positive(&iy)) {
                /* 0 <= r <= b - 1; r <= a when a >= 0 */
                add_poly(L, sy_expr_add_si(ctx, sy_expr_sub(ctx, m, m->args[1]), 1), false);
                add_poly(L, sy_expr_neg(ctx, m), false);
                bound_of(f, m->args[0], &iy);
                if (!iy.lo_inf && fmpz_sgn(iy.lo) >= 0) add_poly(L, sy_expr_sub(ctx, m, m->args[0]), false);
            }
        }
        break;
    case SY_EXPR_MIN:
    case SY_EXPR_MAX:
        for (uint32_t i = 0; i < m->n; i++)
            add_poly(L, m->kind == SY_EXPR_MIN ? sy_expr_sub(ctx, m, m->args[i]) : sy_expr_sub(ctx, m->args[i], m),
                     false);
        if (m->n == 2) {
            /* Min(a, b) + Max(a, b) == a + b when both are variables of the
             * system already (no variable is added).  The row is added once,
             * when the later of the two is defined. */
            const sy_expr *dual = m->kind == SY_EXPR_MIN ? sy_expr_max(ctx, m->args[0], m->args[1])
                                                         : sy_expr_min(ctx, m->args[0], m->args[1]);
            for (size_t i = 0; dual && i < v; i++)
                if (L->vars[i] == dual) {
                    add_poly(L, sy_expr_sub(ctx, sy_expr_add(ctx, m, dual), sy_expr_add(ctx, m->args[0], m->args[1])),
                             true);
                    break;
                }
        }
        break;
    case SY_EXPR_POW:
    case SY_EXPR_MUL: {
        /* w = x * rest */
        const sy_expr *x, *rest;
        if (m->kind == SY_EXPR_POW) {
            x = m->args[0];
            rest = sy_expr_pow_ui(ctx, x, m->u.exp - 1);
        } else {
            x = m->args[0];
            rest = sy_expr_int_si(ctx, 1);
            for (uint32_t i = 1; i < m->n && rest; i++) rest = sy_expr_mul(ctx, rest, m->args[i]);
            if (x->kind == SY_EXPR_POW) { /* split x^e * R as x * (x^(e-1) R) */
                const sy_expr *base = x->args[0];
                rest = sy_expr_mul(ctx, rest, sy_expr_pow_ui(ctx, base, x->u.exp - 1));
                x = base;
            }
        }
        if (!rest) break;
        long xv = var_of(L, x), rv = var_of(L, rest);
        if (xv < 0 || rv < 0) break;
        sy_ival ix;
        sy_ival_init(&ix);
        bound_of(f, x, &ix);
        bound_of(f, rest, &iy);
        add_mccormick(L, (long)v, xv, rv, &ix, &iy);
        sy_ival_clear(&ix);
        break;
    }
    default: break;
    }
    sy_ival_clear(&iv);
    sy_ival_clear(&iy);
}

static void define_all(lsys *L)
{
    while (L->nextdef < L->nv && !L->overflow) define_var(L, L->nextdef++);
}

/* normalise a row: divide by the gcd of variable coefficients, round the
 * constant up (valid over the integers). Returns 1 if the row is trivially
 * true (no variables, c <= 0), -1 if trivially false, 0 otherwise. */
static int normalise(sy_ctx *ctx, row *r, size_t nv)
{
    (void)ctx;
    fmpz_t g;
    fmpz_init(g);
    for (size_t i = 0; i < nv; i++) fmpz_gcd(g, g, &r->a[i]);
    int res = 0;
    if (fmpz_is_zero(g)) {
        res = fmpz_sgn(r->c) > 0 ? -1 : 1;
    } else if (!fmpz_is_one(g)) {
        for (size_t i = 0; i < nv; i++) fmpz_divexact(&r->a[i], &r->a[i], g);
        fmpz_cdiv_q(r->c, r->c, g);
    }
    fmpz_clear(g);
    return res;
}

/* Eliminate equalities: a unit-coefficient variable is substituted
 * everywhere; otherwise the equality becomes two inequalities (after a
 * divisibility check: gcd of coefficients must divide the constant). */
static bool eliminate_eqs(lsys *L, bool *infeasible, long keep)
{
    size_t nv = L->nv;
    for (size_t e = 0; e < L->neqs; e++) {
        row *q = &L->eqs[e];
        fmpz_t g;
        fmpz_init(g);
        for (size_t i = 0; i < nv; i++) fmpz_gcd(g, g, &q->a[i]);
        if (fmpz_is_zero(g)) {
            bool bad = !fmpz_is_zero(q->c);
            fmpz_clear(g);
            if (bad) {
                *infeasible = true;
                return true;
            }
            continue;
        }
        if (!fmpz_divisible(q->c, g)) {
            fmpz_clear(g);
            *infeasible = true;
            return true;
        }
        fmpz_clear(g);
        long piv = -1;
        for (size_t i = 0; i < nv && piv < 0; i++)
            if (fmpz_is_pm1(&q->a[i]) && (long)i != keep) piv = (long)i;
        if (piv < 0) {
            /* two inequalities */
            row r1, r2;
            bool ok1 = row_init(L->ctx, &r1, LIA_MAX_VARS), ok2 = row_init(L->ctx, &r2, LIA_MAX_VARS);
            if (!ok1 || !ok2) {
                row_clear(L->ctx, &r1, LIA_MAX_VARS);
                row_clear(L->ctx, &r2, LIA_MAX_VARS);
                return false;
            }
            for (size_t i = 0; i < nv; i++) {
                fmpz_set(&r1.a[i], &q->a[i]);
                fmpz_neg(&r2.a[i], &q->a[i]);
            }
            fmpz_set(r1.c, q->c);
            fmpz_neg(r2.c, q->c);
            if (!add_row(L, &r1, false)) {
                row_clear(L->ctx, &r2, LIA_MAX_VARS);
                return false;
            }
            if (!add_row(L, &r2, false)) return false;
            continue;
        }
        /* x_piv = -(rest)/a_piv; substitute into other equalities and rows:
         * row += (-row.a[piv] / q.a[piv]) * q */
        fmpz_t m;
        fmpz_init(m);
        for (size_t k = 0; k < L->neqs + L->nrows; k++) {
            row *t = k < L->neqs ? &L->eqs[k] : &L->rows[k - L->neqs];
            if (t == q || fmpz_is_zero(&t->a[piv])) continue;
            fmpz_mul(m, &t->a[piv], &q->a[piv]); /* a_piv = +-1: -t.a/q.a = -t.a*q.a */
            fmpz_neg(m, m);
            for (size_t i = 0; i < nv; i++) fmpz_addmul(&t->a[i], m, &q->a[i]);
            fmpz_addmul(t->c, m, q->c);
        }
        fmpz_clear(m);
    }
    return true;
}

/* A hash of a row's coefficients (not its constant): fm_run's dedupe looks a
 * new row up by it instead of comparing it with every kept row, which made
 * one elimination step cost O(rows * vars) and a bound() on a degree-8
 * polynomial take 0.6 s (fuzz_expr found it). Equal coefficient vectors hash
 * equal; a collision only costs a comparison. */
static uint64_t row_hash(const row *r, size_t nv)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (size_t v = 0; v < nv; v++) {
        const fmpz *a = &r->a[v];
        uint64_t x = fmpz_fits_si(a) ? (uint64_t)fmpz_get_si(a) : (uint64_t)fmpz_fdiv_ui(a, 4294967291u) ^ 0xa5a5a5a5ull;
        h = (h ^ x) * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
    }
    return h;
}

static bool row_coeffs_equal(const row *p, const row *q, size_t nv)
{
    for (size_t v = 0; v < nv; v++)
        if (!fmpz_equal(&p->a[v], &q->a[v])) return false;
    return true;
}

/* Fourier-Motzkin with integer tightening. Returns 1 when the system is
 * infeasible over the integers, 0 when no contradiction was found, -1 when a
 * budget ran out. If keep >= 0, that variable is not eliminated and its
 * resulting bounds are written to *proj. */
static int fm_run(lsys *L, long keep, sy_ival *proj)
{
    bool infeasible = false;
    if (!eliminate_eqs(L, &infeasible, keep)) return -1;
    if (infeasible) return 1;
    size_t nv = L->nv;
    row *rows = L->rows;
    size_t n = L->nrows;
    /* normalise; trivially true rows are dropped, a trivially false one
     * proves infeasibility (the row count stays consistent for lsys_clear) */
    size_t w = 0;
    bool trivially_false = false;
    for (size_t i = 0; i < n; i++) {
        int t = normalise(L->ctx, &rows[i], nv);
        if (t < 0) trivially_false = true;
        if (t > 0) {
            row_clear(L->ctx, &rows[i], LIA_MAX_VARS);
            continue;
        }
        rows[w++] = rows[i];
    }
    n = w;
    L->nrows = n;
    if (trivially_false) return 1;
    bool *alive = sy_alloc(L->ctx, (nv ? nv : 1) * sizeof *alive);
    if (!alive) return -1;
    memset(alive, 0, (nv ? nv : 1) * sizeof *alive);
    for (size_t v = 0; v < nv; v++) alive[v] = (long)v != keep;
    size_t steps = 0;
    int result = 0;
    for (;;) {
        /* choose variable with the fewest new rows */
        long best = -1;
        size_t bestcost = (size_t)-1;
        for (size_t v = 0; v < nv; v++) {
            if (!alive[v]) continue;
            size_t np = 0, nn = 0;
            for (size_t i = 0; i < n; i++) {
                int s = fmpz_sgn(&L->rows[i].a[v]);
                if (s > 0) np++; else if (s < 0) nn++;
            }
            size_t cost = np * nn;
            if (cost < bestcost) {
                bestcost = cost;
                best = (long)v;
            }
        }
        if (best < 0) break;
        alive[best] = false;
        if (bestcost + n > LIA_MAX_ROWS * 2) {
            result = -1;
            break;
        }
        /* combine */
        size_t nrcap = n + bestcost + 1;
        row *nr = sy_alloc(L->ctx, nrcap * sizeof *nr);
        if (!nr) {
            result = -1;
            break;
        }
        /* open-addressed table of indexes into nr (+1; 0 = empty), at most half full */
        size_t hcap = 16;
        while (hcap < 2 * nrcap) hcap *= 2;
        size_t *ht = sy_alloc(L->ctx, hcap * sizeof *ht);
        if (!ht) {
            sy_dealloc(L->ctx, nr, nrcap * sizeof *nr);
            result = -1;
            break;
        }
        memset(ht, 0, hcap * sizeof *ht);
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (fmpz_is_zero(&L->rows[i].a[best])) {
                /* every kept row is indexed; a new row whose coefficients equal several
                 * kept rows' merges into the first of them, as the linear scan did */
                size_t hi = (size_t)row_hash(&L->rows[i], nv) & (hcap - 1);
                while (ht[hi]) hi = (hi + 1) & (hcap - 1);
                ht[hi] = m + 1;
                nr[m++] = L->rows[i];
            }
        for (size_t i = 0; i < n && result == 0; i++) {
            if (fmpz_sgn(&L->rows[i].a[best]) <= 0) continue;
            for (size_t j = 0; j < n && result == 0; j++) {
                if (fmpz_sgn(&L->rows[j].a[best]) >= 0) continue;
                if (++steps > LIA_MAX_STEPS) {
                    result = -1;
                    break;
                }
                /* |a_j| * row_i + a_i * row_j */
                row c;
                if (!row_init(L->ctx, &c, LIA_MAX_VARS)) {
                    row_clear(L->ctx, &c, LIA_MAX_VARS);
                    result = -1;
                    break;
                }
                fmpz_t ai, aj;
                fmpz_init_set(ai, &L->rows[i].a[best]);
                fmpz_init(aj);
                fmpz_neg(aj, &L->rows[j].a[best]);
                for (size_t v = 0; v < nv; v++) {
                    fmpz_mul(&c.a[v], aj, &L->rows[i].a[v]);
                    fmpz_addmul(&c.a[v], ai, &L->rows[j].a[v]);
                }
                fmpz_mul(c.c, aj, L->rows[i].c);
                fmpz_addmul(c.c, ai, L->rows[j].c);
                fmpz_clear(ai);
                fmpz_clear(aj);
                int t = normalise(L->ctx, &c, nv);
                if (t < 0) result = 1;
                if (t != 0) {
                    row_clear(L->ctx, &c, LIA_MAX_VARS);
                    continue;
                }
                /* dedupe: same coefficients keep the larger constant (the first
                 * kept row with them, in the order the rows were kept) */
                size_t hi = (size_t)row_hash(&c, nv) & (hcap - 1), first = 0;
                for (; ht[hi]; hi = (hi + 1) & (hcap - 1))
                    if (row_coeffs_equal(&nr[ht[hi] - 1], &c, nv) && (!first || ht[hi] < first)) first = ht[hi];
                if (first) {
                    if (fmpz_cmp(c.c, nr[first - 1].c) > 0) fmpz_set(nr[first - 1].c, c.c);
                    row_clear(L->ctx, &c, LIA_MAX_VARS);
                } else {
                    ht[hi] = m + 1;
                    nr[m++] = c;
                }
            }
        }
        sy_dealloc(L->ctx, ht, hcap * sizeof *ht);
        for (size_t i = 0; i < n; i++)
            if (!fmpz_is_zero(&L->rows[i].a[best])) row_clear(L->ctx, &L->rows[i], LIA_MAX_VARS);
        sy_dealloc(L->ctx, L->rows, L->cap * sizeof *L->rows);
        L->rows = nr;
        L->nrows = n = m;
        L->cap = nrcap;
        if (result != 0) break;
    }
    if (result == 0 && keep >= 0 && proj) {
        /* rows now only mention keep: a*x + c <= 0 */
        sy_ival_set_full(proj);
        fmpz_t t;
        fmpz_init(t);
        for (size_t i = 0; i < n; i++) {
            const fmpz *a = &L->rows[i].a[keep];
            if (fmpz_is_zero(a)) continue;
            fmpz_neg(t, L->rows[i].c);
            if (fmpz_sgn(a) > 0) { /* x <= floor(-c/a) */
                fmpz_fdiv_q(t, t, a);
                if (proj->hi_inf || fmpz_cmp(t, proj->hi) < 0) fmpz_set(proj->hi, t);
                proj->hi_inf = false;
            } else { /* x >= ceil(-c/a) = ceil(c/|a|) */
                fmpz_cdiv_q(t, t, a);
                if (proj->lo_inf || fmpz_cmp(t, proj->lo) > 0) fmpz_set(proj->lo, t);
                proj->lo_inf = false;
            }
        }
        fmpz_clear(t);
        if (sy_ival_is_empty(proj)) result = 1;
    }
    sy_dealloc(L->ctx, alive, (nv ? nv : 1) * sizeof *alive);
    return result;
}

static bool rel_mentions_any(const sy_expr *r, const sy_expr *const *syms, size_t n, sy_ctx *ctx)
{
    const sy_expr **fs;
    size_t k;
    if (sy_expr_free_symbols(ctx, r, &fs, &k) != SY_OK) return true;
    bool hit = false;
    for (size_t i = 0; i < k && !hit; i++)
        for (size_t j = 0; j < n && !hit; j++) hit = fs[i] == syms[j];
    sy_mem_free(ctx, fs);
    return hit;
}

static size_t rinv_find(const sy_facts *f, const sy_expr *sym)
{
    size_t mask = f->rinv_cap - 1, j = (size_t)sym->hash & mask;
    while (f->rinv[j].sym && f->rinv[j].sym != sym) j = (j + 1) & mask;
    return j;
}

/* Bring the symbol index up to date; false when out of memory (then the
 * caller scans as before). */
static bool ridx_update(sy_facts *f)
{
    sy_ctx *ctx = f->ctx;
    size_t nr = f->nrels < RIDX_MAX ? f->nrels : RIDX_MAX;
    if (f->ridx_epoch != f->rels_epoch || f->ridx_n > nr) {
        if (f->rinv) memset(f->rinv, 0, f->rinv_cap * sizeof *f->rinv);
        f->rinv_n = f->rpool_n = f->ridx_n = 0;
        f->ridx_epoch = f->rels_epoch;
    }
    for (; f->ridx_n < nr; f->ridx_n++) {
        size_t i = f->ridx_n;
        const sy_expr *r = f->rels[i];
        f->ridx_all[i / 64] &= ~((uint64_t)1 << (i % 64));
        if (r->kind != SY_EXPR_LE && r->kind != SY_EXPR_EQ) continue;
        const sy_expr **fs;
        size_t k;
        if (sy_expr_free_symbols(ctx, r, &fs, &k) != SY_OK) {
            if (ctx->err == SY_ENOMEM) return false;
            f->ridx_all[i / 64] |= (uint64_t)1 << (i % 64); /* as rel_mentions_any: relevant */
            continue;
        }
        bool ok = true;
        for (size_t j = 0; j < k && ok; j++) {
            if ((f->rinv_n + 1) * 2 > f->rinv_cap) {
                size_t nc = f->rinv_cap ? f->rinv_cap * 2 : 64;
                struct rinv *ni = sy_alloc(ctx, nc * sizeof *ni);
                if (!ni) { ok = false; break; }
                memset(ni, 0, nc * sizeof *ni);
                for (size_t t = 0; t < f->rinv_cap; t++) {
                    if (!f->rinv[t].sym) continue;
                    size_t u = (size_t)f->rinv[t].sym->hash & (nc - 1);
                    while (ni[u].sym) u = (u + 1) & (nc - 1);
                    ni[u] = f->rinv[t];
                }
                if (f->rinv) sy_dealloc(ctx, f->rinv, f->rinv_cap * sizeof *f->rinv);
                f->rinv = ni;
                f->rinv_cap = nc;
            }
            if (f->rpool_n == f->rpool_cap) {
                size_t nc = f->rpool_cap ? f->rpool_cap * 2 : 64;
                struct rpool *np = sy_realloc(ctx, f->rpool, f->rpool_cap * sizeof *np, nc * sizeof *np);
                if (!np) { ok = false; break; }
                f->rpool = np;
                f->rpool_cap = nc;
            }
            size_t u = rinv_find(f, fs[j]);
            if (!f->rinv[u].sym) {
                f->rinv[u].sym = fs[j];
                f->rinv[u].head = 0;
                f->rinv_n++;
            }
            f->rpool[f->rpool_n] = (struct rpool){(uint32_t)i, f->rinv[u].head};
            f->rinv[u].head = (uint32_t)++f->rpool_n;
        }
        sy_mem_free(ctx, fs);
        if (!ok) {
            f->ridx_epoch = f->rels_epoch - 1; /* incomplete: rebuild next time */
            return false;
        }
    }
    return true;
}

/* Set the bit of every indexed relation that reads sym in cand; with
 * pend, also in pend for those after index `after` not yet taken. */
static void ridx_mark(const sy_facts *f, const sy_expr *sym, uint64_t *cand, uint64_t *pend, const uint64_t *taken,
                      size_t after)
{
    if (!f->rinv_cap) return;
    size_t slot = rinv_find(f, sym);
    if (!f->rinv[slot].sym) return;
    for (uint32_t p = f->rinv[slot].head; p; p = f->rpool[p - 1].next) {
        size_t u = f->rpool[p - 1].rel;
        cand[u / 64] |= (uint64_t)1 << (u % 64);
        if (pend && u > after && !(taken[u / 64] >> (u % 64) & 1)) pend[u / 64] |= (uint64_t)1 << (u % 64);
    }
}

/* Build the system: relevant facts + extra rows. goal rows are added by the
 * caller through add_poly before solving. */
static void add_facts(lsys *L, const sy_expr *query)
{
    sy_facts *f = L->f;
    sy_ctx *ctx = f->ctx;
    const sy_expr **qs;
    size_t nq;
    if (sy_expr_free_symbols(ctx, query, &qs, &nq) != SY_OK) {
        L->overflow = true;
        return;
    }
    /* relevance: facts sharing a symbol with the query (one round of
     * closure over the facts) */
    const sy_expr *syms[128];
    size_t ns = 0;
    for (size_t i = 0; i < nq && ns < 128; i++) syms[ns++] = qs[i];
    sy_mem_free(ctx, qs);
    size_t nr = f->nrels < RIDX_MAX ? f->nrels : RIDX_MAX;
    /* Bit sets over the first RIDX_MAX relations: pend = relations that read
     * one of syms (what rel_mentions_any says), kept up to date as syms
     * grows, minus those taken. Each round takes them in index order, a
     * relation made relevant during a round by a later index in the same
     * round, as the scan over every relation did. */
    uint64_t pend[RIDX_MAX / 64] = {0}, taken[RIDX_MAX / 64] = {0}, cand[RIDX_MAX / 64];
    bool indexed = ridx_update(f);
    if (indexed) {
        memcpy(cand, f->ridx_all, sizeof cand);
        for (size_t t = 0; t < ns; t++) ridx_mark(f, syms[t], cand, NULL, NULL, 0);
    }
    for (int round = 0; round < 3; round++) {
        if (indexed) /* the pending set of this round (bits past nr are never set) */
            for (size_t w = 0; w < RIDX_MAX / 64; w++) pend[w] = cand[w] & ~taken[w];
        for (size_t i = 0; i < nr; i++) {
            if (indexed) { /* next pending index >= i */
                size_t w = i / 64;
                uint64_t m = pend[w] & (~(uint64_t)0 << (i % 64));
                while (!m && ++w < RIDX_MAX / 64) m = pend[w];
                if (!m) break;
                i = w * 64 + (size_t)__builtin_ctzll(m);
                if (i >= nr) break;
                pend[w] &= ~((uint64_t)1 << (i % 64));
            } else if (taken[i / 64] >> (i % 64) & 1) {
                continue;
            }
            const sy_expr *r = f->rels[i];
            if (r->kind != SY_EXPR_LE && r->kind != SY_EXPR_EQ) continue;
            if (!indexed && !rel_mentions_any(r, syms, ns, ctx)) continue;
            taken[i / 64] |= (uint64_t)1 << (i % 64);
            const sy_expr **fs;
            size_t k;
            if (sy_expr_free_symbols(ctx, r, &fs, &k) == SY_OK) {
                for (size_t j = 0; j < k && ns < 128; j++) {
                    bool have = false;
                    for (size_t t = 0; t < ns && !have; t++) have = syms[t] == fs[j];
                    if (have) continue;
                    syms[ns++] = fs[j];
                    if (!indexed) continue;
                    ridx_mark(f, fs[j], cand, pend, taken, i); /* later indices join this round, earlier ones the next */
                }
                sy_mem_free(ctx, fs);
            }
            add_poly(L, r->args[0], r->kind == SY_EXPR_EQ);
        }
    }
}

/* Is facts && (d <= 0) [or d == 0 when eq] infeasible? 1 yes, 0 no/unknown, -1 budget */
/* Is facts && every given row infeasible? rows: n polynomials with eq flags
 * (d <= 0, or d == 0). 1 yes, 0 no/unknown, -1 budget. */
static int lia_infeasible_n(sy_facts *f, size_t n, const sy_expr *const *ds, const bool *eqs, const sy_expr *query)
{
    if (f->lia_budget == 0) {
        f->stats.budget_hits++;
        return -1;
    }
    f->lia_budget--;
    lsys L;
    lsys_init(&L, f);
    add_facts(&L, query);
    for (size_t i = 0; i < n; i++) add_poly(&L, ds[i], eqs[i]);
    define_all(&L);
    int r = L.overflow ? -1 : fm_run(&L, -1, NULL);
    lsys_clear(&L);
    if (r < 0) f->stats.budget_hits++;
    return r;
}

static size_t lm_slot(const sy_facts *f, const sy_expr *d, bool eq, const sy_expr *query)
{
    uint64_t h = d->hash * 0x9E3779B97F4A7C15ull ^ query->hash ^ (uint64_t)eq;
    size_t mask = f->lm_cap - 1, j = (size_t)(h ^ h >> 29) & mask;
    while (f->lm[j].d && !(f->lm[j].d == d && f->lm[j].query == query && f->lm[j].eq == (int)eq)) j = (j + 1) & mask;
    return j;
}

static bool lm_used(const void *e) { return ((const struct lentry *)e)->d != NULL; }
static size_t lm_reslot(const void *f, const void *e)
{
    const struct lentry *l = e;
    return lm_slot(f, l->d, l->eq, l->query);
}

/* Remember a definite answer. A failed allocation only loses the entry. */
static void lm_put(sy_facts *f, const sy_expr *d, bool eq, const sy_expr *query, int r)
{
    sy_ctx *ctx = f->ctx;
    if (f->lm_n >= CACHE_MAX) {
        memset(f->lm, 0, f->lm_cap * sizeof *f->lm);
        f->lm_n = 0;
    }
    if ((f->lm_n + 1) * 2 > f->lm_cap &&
        !sy_otab_grow(ctx, (void **)&f->lm, &f->lm_cap, sizeof *f->lm, f->lm_cap ? f->lm_cap * 2 : 64, lm_used, lm_reslot,
                      f)) {
        if (ctx->err == SY_ENOMEM) sy_ctx_reset_error(ctx);
        return;
    }
    size_t j = lm_slot(f, d, eq, query);
    if (!f->lm[j].d) f->lm_n++;
    f->lm[j] = (struct lentry){d, query, (int)eq, r};
}

/* After a top-level operation: one that spent its budget (ctx->gen moved)
 * leaves the context as it found it, so a memo it created is released again
 * (entries it added to an older memo go at the next facts_sync). */
typedef struct {
    bool had;      /* the memo existed before the operation */
    uint64_t gen0; /* ctx->gen before it */
} lm_mark;

/* Enter a top-level pure operation (sy_decide, sy_simplify, sy_bound). */
static lm_mark lm_op_begin(sy_facts *f)
{
    facts_sync(f);
    lm_mark m = {f->lm != NULL, f->ctx->gen};
    sy_op_begin(f->ctx, true);
    return m;
}

/* After sy_op_end_*: see above. */
static void lm_after_op(sy_facts *f, lm_mark m)
{
    if (m.had || !f->lm || f->ctx->gen == m.gen0) return;
    sy_dealloc(f->ctx, f->lm, f->lm_cap * sizeof *f->lm);
    f->lm = NULL;
    f->lm_n = f->lm_cap = 0;
}

static int lia_infeasible(sy_facts *f, const sy_expr *d, bool eq, const sy_expr *query)
{
    if (f->lia_budget == 0) {
        f->stats.budget_hits++;
        return -1;
    }
    f->lia_budget--;
    if (f->lm) {
        size_t j = lm_slot(f, d, eq, query);
        if (f->lm[j].d) {
            if (f->lm[j].r < 0) f->stats.budget_hits++; /* counted as the computation would */
            return f->lm[j].r;
        }
    }
    lsys L;
    lsys_init(&L, f);
    add_facts(&L, query);
    add_poly(&L, d, eq);
    define_all(&L);
    int r = L.overflow ? -1 : fm_run(&L, -1, NULL);
    lsys_clear(&L);
    if (r < 0) f->stats.budget_hits++;
    if (f->ctx->err == SY_OK) lm_put(f, d, eq, query, r);
    return r;
}

/* ------------------------------------------------------------------ decide */

static sy_truth decide_rec(sy_facts *f, const sy_expr *q, int *layer);

static sy_truth neg_truth(sy_truth t)
{
    return t == SY_TRUTH_TRUE ? SY_TRUTH_FALSE : t == SY_TRUTH_FALSE ? SY_TRUTH_TRUE : SY_TRUTH_UNKNOWN;
}

const sy_expr *sy_simplify(sy_facts *f, const sy_expr *e);
static const sy_expr *simp(sy_facts *f, const sy_expr *e, sy_memo *memo);

static sy_truth decide_rewrite(sy_facts *f, const sy_expr *q, int *layer);
static sy_truth decide_again(sy_facts *f, const sy_expr *q, int *layer);
static sy_truth decide_lia(sy_facts *f, const sy_expr *q, int *layer);

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
         * infeasible; Or is TRUE when facts && all negated disjuncts are.
         * Only operands that are (after negation for Or) d <= 0 or d == 0 can
         * be rows; any other operand makes the joint question unanswerable. */
        if (q->n <= 16) {
            const sy_expr *ds[16];
            bool eqs[16];
            size_t k = 0;
            bool ok = true;
            for (uint32_t i = 0; i < q->n && ok; i++) {
                const sy_expr *r = is_and ? q->args[i] : sy_expr_not(ctx, q->args[i]);
                if (!r || (r->kind != SY_EXPR_LE && r->kind != SY_EXPR_EQ)) {
                    ok = false;
                    break;
                }
                ds[k] = r->args[0];
                eqs[k++] = r->kind == SY_EXPR_EQ;
            }
            if (ok && lia_infeasible_n(f, k, ds, eqs, q) == 1) {
                *layer = 3;
                return is_and ? SY_TRUTH_FALSE : SY_TRUTH_TRUE;
            }
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

static sy_truth decide_rec(sy_facts *f, const sy_expr *q, int *layer)
{
    return decide_rel(f, q, layer);
}

/* What sy_simplify does after applying the replacements: two passes of
 * range-aware rewriting (the second catches rules the first exposed) with
 * the simplification budget. sy_decide falls back on exactly this. */
static const sy_expr *simplify_core(sy_facts *f, const sy_expr *q)
{
    f->lia_budget = 64;
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
    f->lia_budget = 24;
    int layer = 0;
    saved_err se;
    save_err(f->ctx, &se);
    simp_memos_release(f);
    /* an open chain query is UNKNOWN by every layer and by simplify */
    bool open = chain_open(f, q);
    sy_truth t = open ? SY_TRUTH_UNKNOWN : decide_rec(f, q, &layer);
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

/* ------------------------------------------------------------------ simplify */

static bool decided(sy_facts *f, const sy_expr *rel)
{
    if (!rel) return false;
    if (rel->kind == SY_EXPR_TRUE) return true;
    if (rel->kind == SY_EXPR_FALSE) return false;
    int l = 0;
    return decide_rec(f, rel, &l) == SY_TRUTH_TRUE;
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
        return e;
    }
    default: return e;
    }
}

static const sy_expr *simp(sy_facts *f, const sy_expr *e, sy_memo *memo)
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

/* Replace internal parameters t by (s - x)/k when the result is an integer
 * polynomial, else by FloorDiv(s - x, k). */
static const sy_expr *unfresh(sy_facts *f, const sy_expr *e)
{
    if (!e) return NULL;
    sy_ctx *ctx = f->ctx;
    for (size_t i = f->nfresh; i-- > 0 && e;) {
        const fresh_sym *fs = &f->fresh[i];
        long deg = sy_expr_degree(e, fs->t);
        const sy_expr *num = sy_expr_sub(ctx, fs->s, fs->x);
        const sy_expr *kk = sy_int_fmpz(ctx, &fs->k);
        if (deg > 0 && num && kk) {
            /* k^deg * e(t = num/k) = sum_j coeff_j * num^j * k^(deg - j) */
            const sy_expr *acc = sy_expr_int_si(ctx, 0);
            for (long j = 0; j <= deg && acc; j++) {
                const sy_expr *cj = sy_expr_coeff(ctx, e, fs->t, (uint64_t)j);
                acc = sy_expr_add(ctx, acc, sy_expr_mul(ctx, cj, sy_expr_mul(ctx, sy_expr_pow_ui(ctx, num, (uint64_t)j),
                                                                             sy_expr_pow_ui(ctx, kk, (uint64_t)(deg - j)))));
            }
            const sy_expr *kd = sy_expr_pow_ui(ctx, kk, (uint64_t)deg);
            const sy_expr *q = NULL;
            if (acc && kd && sy_poly_divides_raw(ctx, acc, kd, &q) == 1 && q) {
                /* check that t no longer occurs anywhere (e.g. inside atoms) */
                const sy_expr **syms;
                size_t ns;
                bool still = false;
                if (sy_expr_free_symbols(ctx, q, &syms, &ns) == SY_OK) {
                    for (size_t t = 0; t < ns; t++) still = still || syms[t] == fs->t;
                    sy_mem_free(ctx, syms);
                }
                if (!still) {
                    e = q;
                    continue;
                }
            }
        }
        /* general: t = FloorDiv(s - x, k) (exact since s - x is a multiple of k) */
        const sy_expr *tv = sy_expr_floordiv(ctx, num, kk);
        e = tv ? sy_expr_subs(ctx, e, 1, &fs->t, &tv) : NULL;
    }
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

/* ------------------------------------------------------------------ adding facts */

static sy_status add_fact(sy_facts *f, const sy_expr *e, int depth);

static sy_status range_changed(sy_facts *f, uint32_t id, int depth)
{
    sy_ival *r = &f->range[id];
    if (sy_ival_is_empty(r)) {
        f->inconsistent = true;
        return SY_OK;
    }
    (void)depth;
    /* NE facts at the boundary tighten it */
    bool again = true;
    while (again && !sy_ival_is_empty(r)) {
        again = false;
        for (size_t i = 0; i < f->nrels; i++) {
            const sy_expr *x = f->rels[i];
            if (x->kind != SY_EXPR_NE) continue;
            const sy_expr *d = x->args[0]; /* s + c != 0 */
            const sy_expr *s = d->kind == SY_EXPR_ADD && d->n == 1 && fmpz_is_one(&SY_CTERMS(d)[0].coef)
                                   ? SY_CTERMS(d)[0].mono : d;
            if (s->kind != SY_EXPR_SYM || s->u.sym.id != id) continue;
            fmpz_t v;
            fmpz_init(v);
            sy_const_term(v, d);
            fmpz_neg(v, v);
            if (!r->lo_inf && fmpz_equal(v, r->lo)) { fmpz_add_ui(r->lo, r->lo, 1); again = true; }
            if (!r->hi_inf && fmpz_equal(v, r->hi)) { fmpz_sub_ui(r->hi, r->hi, 1); again = true; }
            fmpz_clear(v);
        }
    }
    if (sy_ival_is_empty(r)) f->inconsistent = true;
    return SY_OK;
}

static const sy_expr *single_symbol(const sy_expr *d, fmpz_t a, fmpz_t c)
{
    /* d = a*s + c */
    if (d->kind == SY_EXPR_SYM) {
        fmpz_one(a);
        fmpz_zero(c);
        return d;
    }
    if (d->kind == SY_EXPR_ADD && d->n == 1 && SY_CTERMS(d)[0].mono->kind == SY_EXPR_SYM) {
        fmpz_set(a, &SY_CTERMS(d)[0].coef);
        fmpz_set(c, &d->u.c0);
        return SY_CTERMS(d)[0].mono;
    }
    return NULL;
}

/* occurrences of s in e other than as the polynomial-level linear term */
static bool occurs_inside(sy_ctx *ctx, const sy_expr *e, const sy_expr *s)
{
    size_t nt = e->kind == SY_EXPR_ADD ? e->n : (e->kind == SY_EXPR_INT ? 0 : 1);
    for (size_t i = 0; i < nt; i++) {
        const sy_expr *m = e->kind == SY_EXPR_ADD ? SY_CTERMS(e)[i].mono : e;
        if (m == s) continue;
        const sy_expr **fs;
        size_t k;
        if (sy_expr_free_symbols(ctx, m, &fs, &k) != SY_OK) return true;
        bool hit = false;
        for (size_t j = 0; j < k; j++) hit = hit || fs[j] == s;
        sy_mem_free(ctx, fs);
        if (hit) return true;
    }
    return false;
}

/* Pick the symbol to solve d == 0 for: unit coefficient, linear, occurring
 * nowhere else; the largest in canonical order (the newest symbol). */
static const sy_expr *pick_unit(sy_ctx *ctx, const sy_expr *d, int *sign, bool need_unit)
{
    const sy_expr *best = NULL;
    size_t nt = d->kind == SY_EXPR_ADD ? d->n : (d->kind == SY_EXPR_INT ? 0 : 1);
    for (size_t i = 0; i < nt; i++) {
        const sy_expr *m = d->kind == SY_EXPR_ADD ? SY_CTERMS(d)[i].mono : d;
        const fmpz *c = NULL;
        fmpz one = 1;
        c = d->kind == SY_EXPR_ADD ? &SY_CTERMS(d)[i].coef : &one;
        if (m->kind != SY_EXPR_SYM) continue;
        if (need_unit && !fmpz_is_pm1(c)) continue;
        if (occurs_inside(ctx, d, m)) continue;
        /* prefer user symbols over internal parameters, then the newest */
        bool internal = m->u.sym.name[0] == '#';
        bool best_internal = best && best->u.sym.name[0] == '#';
        if (!best || (best_internal && !internal) ||
            (internal == best_internal && sy_expr_cmp(m, best) > 0)) {
            best = m;
            *sign = fmpz_sgn(c);
        }
    }
    return best;
}

static sy_status install_replacement(sy_facts *f, const sy_expr *s, const sy_expr *v, int depth)
{
    sy_ctx *ctx = f->ctx;
    uint32_t id = s->u.sym.id;
    if (!ensure(f, id)) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    sy_ival old;
    sy_ival_init(&old);
    sy_ival_set(&old, &f->range[id]);
    sy_ival_set_full(&f->range[id]);
    /* update existing replacements */
    for (size_t i = 0; i < f->cap; i++) {
        if (!f->repl[i]) continue;
        f->repl[i] = sy_expr_subs(ctx, f->repl[i], 1, &s, &v);
        if (!f->repl[i]) {
            sy_ival_clear(&old);
            return sy_ctx_last_error(ctx);
        }
    }
    f->repl[id] = v;
    f->nrepl++;
    /* re-add the old relations and the old range of s as facts about v */
    size_t n = f->nrels;
    const sy_expr **old_rels = NULL;
    if (n) {
        old_rels = sy_alloc(ctx, n * sizeof *old_rels);
        if (!old_rels) {
            sy_ival_clear(&old);
            return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        }
        memcpy(old_rels, f->rels, n * sizeof *old_rels);
    }
    f->nrels = 0;
    memset(f->taint, 0, f->cap); /* recomputed as the relations are re-added */
    f->rels_epoch++; /* the relations are re-added: the symbol index starts over */
    if (f->relset.keys) sy_memo_clear(ctx, &f->relset);
    sy_status st = SY_OK;
    if (!old.lo_inf) st = add_fact(f, sy_expr_ge(ctx, v, sy_int_fmpz(ctx, old.lo)), depth + 1);
    if (st == SY_OK && !old.hi_inf) st = add_fact(f, sy_expr_le(ctx, v, sy_int_fmpz(ctx, old.hi)), depth + 1);
    for (size_t i = 0; i < n && st == SY_OK; i++) st = add_fact(f, old_rels[i], depth + 1);
    if (old_rels) sy_dealloc(ctx, old_rels, n * sizeof *old_rels);
    sy_ival_clear(&old);
    return st;
}

static sy_status add_congruence(sy_facts *f, const sy_expr *e, const fmpz_t r_in, const fmpz_t k, int depth)
{
    /* e == r (mod k), k >= 2 */
    sy_ctx *ctx = f->ctx;
    fmpz_t r, a, inv, g;
    fmpz_init(r);
    fmpz_init(a);
    fmpz_init(inv);
    fmpz_init(g);
    fmpz_fdiv_r(r, r_in, k);
    sy_status st = SY_OK;
    const sy_expr *s = NULL;
    /* find a linear symbol whose coefficient is invertible mod k */
    size_t nt = e->kind == SY_EXPR_ADD ? e->n : (e->kind == SY_EXPR_INT ? 0 : 1);
    for (size_t i = 0; i < nt; i++) {
        const sy_expr *m = e->kind == SY_EXPR_ADD ? SY_CTERMS(e)[i].mono : e;
        if (m->kind != SY_EXPR_SYM || occurs_inside(ctx, e, m)) continue;
        const fmpz *c = e->kind == SY_EXPR_ADD ? &SY_CTERMS(e)[i].coef : NULL;
        fmpz_set(a, c ? c : (const fmpz *)&(fmpz){1});
        fmpz_gcd(g, a, k);
        if (!fmpz_is_one(g)) continue;
        if (!s || sy_expr_cmp(m, s) > 0) s = m;
    }
    if (!s) {
        /* keep as a relation: Mod(e, k) == r */
        const sy_expr *rel = sy_expr_eq(ctx, sy_expr_mod(ctx, e, sy_int_fmpz(ctx, k)), sy_int_fmpz(ctx, r));
        st = rel ? (push_rel(f, rel) ? SY_OK : SY_ENOMEM) : sy_ctx_last_error(ctx);
        goto done;
    }
    {
        /* a*s + rest == r (mod k)  =>  s == inv(a)*(r - rest) (mod k)  =>  s := k*t + X */
        fmpz_set(a, &(fmpz){0});
        fmpz one_c = 1;
        for (size_t i = 0; i < nt; i++) {
            const sy_expr *m = e->kind == SY_EXPR_ADD ? SY_CTERMS(e)[i].mono : e;
            if (m == s) fmpz_set(a, e->kind == SY_EXPR_ADD ? &SY_CTERMS(e)[i].coef : &one_c);
        }
        fmpz_invmod(inv, a, k);
        const sy_expr *as = sy_expr_mul(ctx, sy_int_fmpz(ctx, a), s);
        const sy_expr *rest = sy_expr_sub(ctx, e, as);
        const sy_expr *X = sy_scale_fmpz(ctx, sy_expr_sub(ctx, sy_int_fmpz(ctx, r), rest), inv);
        if (!X) { st = sy_ctx_last_error(ctx); goto done; }
        /* reduce X's coefficients modulo k (symmetric), valid since s - X must be a multiple of k */
        sy_terms ts;
        sy_terms_init(&ts);
        fmpz_t c;
        fmpz_init(c);
        size_t xn = X->kind == SY_EXPR_ADD ? X->n : (X->kind == SY_EXPR_INT ? 0 : 1);
        bool ok = true;
        for (size_t i = 0; i < xn && ok; i++) {
            const sy_expr *m = X->kind == SY_EXPR_ADD ? SY_CTERMS(X)[i].mono : X;
            fmpz_set(c, X->kind == SY_EXPR_ADD ? &SY_CTERMS(X)[i].coef : &one_c);
            fmpz_smod(c, c, k);
            if (!fmpz_is_zero(c)) ok = sy_terms_push(ctx, &ts, c, m);
        }
        sy_const_term(c, X);
        fmpz_fdiv_r(ts.c0, c, k);
        fmpz_clear(c);
        if (!ok) {
            sy_terms_clear(ctx, &ts);
            st = sy_ctx_last_error(ctx);
            goto done;
        }
        X = sy_terms_build(ctx, &ts);
        sy_terms_clear(ctx, &ts);
        if (!X) { st = sy_ctx_last_error(ctx); goto done; }
        char name[32];
        snprintf(name, sizeof name, "#t%zu", f->nfresh);
        const sy_expr *t = sy_sym_internal(ctx, name);
        if (!t) { st = sy_ctx_last_error(ctx); goto done; }
        if (f->nfresh == f->freshcap) {
            size_t nc = f->freshcap ? f->freshcap * 2 : 4;
            fresh_sym *nf = sy_realloc(ctx, f->fresh, f->freshcap * sizeof *nf, nc * sizeof *nf);
            if (!nf) { st = sy_fail_st(ctx, SY_ENOMEM, "out of memory"); goto done; }
            f->fresh = nf;
            f->freshcap = nc;
        }
        f->fresh[f->nfresh].t = t;
        f->fresh[f->nfresh].s = s;
        fmpz_init_set(&f->fresh[f->nfresh].k, k);
        f->fresh[f->nfresh].x = X;
        f->nfresh++;
        if (!ensure(f, t->u.sym.id)) { st = sy_fail_st(ctx, SY_ENOMEM, "out of memory"); goto done; }
        const sy_expr *v = sy_expr_add(ctx, sy_expr_mul(ctx, sy_int_fmpz(ctx, k), t), X);
        st = v ? install_replacement(f, s, v, depth) : sy_ctx_last_error(ctx);
    }
done:
    fmpz_clear(r);
    fmpz_clear(a);
    fmpz_clear(inv);
    fmpz_clear(g);
    return st;
}

static sy_status add_fact(sy_facts *f, const sy_expr *e, int depth)
{
    sy_ctx *ctx = f->ctx;
    if (!e) return sy_ctx_last_error(ctx) ? sy_ctx_last_error(ctx) : SY_ERROR;
    if (depth > 64) return SY_OK; /* re-adding cascades are bounded; dropping a fact is sound (weaker) */
    e = apply_raw(f, e);
    if (!e) return sy_ctx_last_error(ctx);
    fmpz_t a, c;
    sy_status st = SY_OK;
    switch (e->kind) {
    case SY_EXPR_TRUE: return SY_OK;
    case SY_EXPR_FALSE: f->inconsistent = true; return SY_OK;
    case SY_EXPR_AND:
        for (uint32_t i = 0; i < e->n && st == SY_OK; i++) st = add_fact(f, e->args[i], depth + 1);
        return st;
    case SY_EXPR_OR:
    case SY_EXPR_NE:
        if (!push_rel(f, e)) return sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        if (e->kind == SY_EXPR_NE) {
            fmpz_init(a);
            fmpz_init(c);
            const sy_expr *s = single_symbol(e->args[0], a, c);
            if (s && ensure(f, s->u.sym.id)) range_changed(f, s->u.sym.id, depth);
            fmpz_clear(a);
            fmpz_clear(c);
        }
        return SY_OK;
    case SY_EXPR_LE: {
        fmpz_init(a);
        fmpz_init(c);
        const sy_expr *s = single_symbol(e->args[0], a, c);
        if (s && fmpz_is_pm1(a)) {
            if (!ensure(f, s->u.sym.id)) st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
            else {
                sy_ival *r = &f->range[s->u.sym.id];
                fmpz_neg(c, c);
                if (fmpz_sgn(a) > 0) { /* s + c0 <= 0 -> s <= -c0 */
                    if (r->hi_inf || fmpz_cmp(c, r->hi) < 0) fmpz_set(r->hi, c);
                    r->hi_inf = false;
                } else { /* -s + c0 <= 0 -> s >= c0 */
                    fmpz_neg(c, c);
                    if (r->lo_inf || fmpz_cmp(c, r->lo) > 0) fmpz_set(r->lo, c);
                    r->lo_inf = false;
                }
                range_changed(f, s->u.sym.id, depth);
                /* a point range becomes a replacement */
                if (!f->inconsistent && sy_ival_is_point(r)) {
                    const sy_expr *v = sy_int_fmpz(ctx, r->lo);
                    st = v ? install_replacement(f, s, v, depth) : sy_ctx_last_error(ctx);
                }
            }
        } else if ((s = chain_sym(e->args[0])) != NULL) {
            /* a chain: the relation is exactly a half-line of s. Kept as a
             * relation (as before) and intersected into s's range, so that
             * intervals see it and s stays free of other facts (taint). */
            if (!ensure(f, s->u.sym.id) || !push_rel_as(f, e, true)) {
                st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
            } else {
                bool s_le;
                fmpz_zero(c);
                chain_invert(e->args[0], c, true, &s_le, a);
                sy_ival *r = &f->range[s->u.sym.id];
                ival_cut(r, s_le, a);
                range_changed(f, s->u.sym.id, depth);
                if (!f->inconsistent && sy_ival_is_point(r)) {
                    const sy_expr *v = sy_int_fmpz(ctx, r->lo);
                    st = v ? install_replacement(f, s, v, depth) : sy_ctx_last_error(ctx);
                }
            }
        } else if (!push_rel(f, e)) {
            st = sy_fail_st(ctx, SY_ENOMEM, "out of memory");
        }
        fmpz_clear(a);
        fmpz_clear(c);
        return st;
    }
    case SY_EXPR_EQ: {
        const sy_expr *d = e->args[0];
        int sign = 0;
        const sy_expr *s = pick_unit(ctx, d, &sign, true);
        if (s) {
            /* d = sign*s + rest == 0  ->  s := -sign*rest */
            const sy_expr *rest = sy_expr_sub(ctx, d, sy_expr_mul_si(ctx, s, sign));
            const sy_expr *v = sy_expr_mul_si(ctx, rest, -sign);
            return v ? install_replacement(f, s, v, depth) : sy_ctx_last_error(ctx);
        }
        /* congruence: Mod(E, k) + c == 0 */
        if (d->kind == SY_EXPR_ADD && d->n == 1 && fmpz_is_one(&SY_CTERMS(d)[0].coef) &&
            SY_CTERMS(d)[0].mono->kind == SY_EXPR_MOD && SY_CTERMS(d)[0].mono->args[1]->kind == SY_EXPR_INT) {
            const sy_expr *m = SY_CTERMS(d)[0].mono;
            fmpz_init(c);
            fmpz_neg(c, &d->u.c0);
            if (fmpz_sgn(c) < 0 || fmpz_cmp(c, &m->args[1]->u.value) >= 0) f->inconsistent = true;
            else st = add_congruence(f, m->args[0], c, &m->args[1]->u.value, depth);
            fmpz_clear(c);
            return st;
        }
        if (d->kind == SY_EXPR_MOD && d->args[1]->kind == SY_EXPR_INT) {
            fmpz_init(c);
            st = add_congruence(f, d->args[0], c, &d->args[1]->u.value, depth);
            fmpz_clear(c);
            return st;
        }
        /* no unit-coefficient symbol: kept as a relation for the linear layer */
        return push_rel(f, e) ? SY_OK : sy_fail_st(ctx, SY_ENOMEM, "out of memory");
    }
    default: return sy_fail_st(ctx, SY_EINVAL, "facts: expected a boolean expression");
    }
}

static sy_status sy_facts_add_work(sy_facts *f, const sy_expr *fact)
{
    if (!f) return SY_EINVAL;
    f->version++; /* counted before anything can fail: a failed add may have changed the set too */
    memset(f->dc_key, 0, sizeof f->dc_key); /* answers depend on the facts */
    caches_clear(f);
    if (!fact) return sy_fail_st(f->ctx, SY_EINVAL, "facts: NULL fact");
    if (!fact->isbool) return sy_fail_st(f->ctx, SY_EINVAL, "facts: expected a boolean expression, got an integer");
    if (!ensure(f, f->ctx->nsyms)) return sy_fail_st(f->ctx, SY_ENOMEM, "out of memory");
    return add_fact(f, fact, 0);
}

sy_status sy_facts_add(sy_facts *f, const sy_expr *fact)
{
    if (!f) return SY_EINVAL;
    sy_ctx *ctx = f->ctx;
    facts_sync(f);
    sy_op_begin(ctx, false);
    sy_status st = sy_op_end_st(ctx, sy_facts_add_work(f, fact));
    return st;
}

uint64_t sy_facts_version(const sy_facts *f) { return f ? f->version : 0; }

sy_status sy_facts_set_range(sy_facts *f, const sy_expr *sym, const sy_expr *lo, const sy_expr *hi)
{
    if (!f) return SY_EINVAL;
    sy_ctx *ctx = f->ctx;
    if (!sym || sym->kind != SY_EXPR_SYM) return sy_fail_st(ctx, SY_EINVAL, "set_range: not a symbol");
    if ((lo && lo->kind != SY_EXPR_INT) || (hi && hi->kind != SY_EXPR_INT))
        return sy_fail_st(ctx, SY_EINVAL, "set_range: bounds must be integer constants");
    sy_status st = SY_OK;
    if (lo) st = sy_facts_add(f, sy_expr_ge(ctx, sym, lo));
    if (st == SY_OK && hi) st = sy_facts_add(f, sy_expr_le(ctx, sym, hi));
    return st;
}

sy_status sy_facts_get_range(sy_facts *f, const sy_expr *sym, const sy_expr **lo, const sy_expr **hi)
{
    if (!f) return SY_EINVAL;
    if (!sym || sym->kind != SY_EXPR_SYM || !lo || !hi) return sy_fail_st(f->ctx, SY_EINVAL, "get_range: bad argument");
    return sy_bound(f, sym, lo, hi);
}

sy_status sy_solve(sy_facts *f, const sy_expr *eq, const sy_expr **sym, const sy_expr **value,
                   const sy_expr **divisibility)
{
    if (!f) return SY_EINVAL;
    sy_ctx *ctx = f->ctx;
    if (!eq || !sym || !value || !divisibility) return sy_fail_st(ctx, SY_EINVAL, "solve: NULL argument");
    *sym = *value = *divisibility = NULL;
    facts_sync(f);
    const sy_expr *e = apply_raw(f, eq);
    if (!e) return sy_ctx_last_error(ctx);
    if (e->kind != SY_EXPR_EQ) return e->isbool ? SY_OK : sy_fail_st(ctx, SY_EINVAL, "solve: expected an equality");
    const sy_expr *d = e->args[0];
    int sign = 0;
    const sy_expr *s = pick_unit(ctx, d, &sign, true);
    const sy_expr *v = NULL, *div = NULL;
    if (s) {
        v = sy_expr_mul_si(ctx, sy_expr_sub(ctx, d, sy_expr_mul_si(ctx, s, sign)), -sign);
    } else {
        /* k*s + rest == 0: s := FloorDiv(-rest, k) with divisibility Mod(rest, k) == 0 */
        s = pick_unit(ctx, d, &sign, false);
        if (s) {
            const sy_expr *k = sy_expr_coeff(ctx, d, s, 1);
            const sy_expr *rest = sy_expr_sub(ctx, d, sy_expr_mul(ctx, k, s));
            v = sy_expr_floordiv(ctx, sy_expr_neg(ctx, rest), k);
            div = sy_expr_eq(ctx, sy_expr_mod(ctx, rest, k), sy_expr_int_si(ctx, 0));
        }
    }
    if (!s || !v) return SY_OK;
    /* the solution must keep the symbol's range */
    sy_ival r, vb;
    sy_ival_init(&r);
    sy_ival_init(&vb);
    if (s->u.sym.id < f->cap) sy_ival_set(&r, &f->range[s->u.sym.id]);
    bctx B = {f, NULL, NULL};
    bound_rec(&B, v, &vb);
    sy_ival_intersect(&vb, &vb, &r);
    bool ok = !sy_ival_is_empty(&vb);
    sy_ival_clear(&r);
    sy_ival_clear(&vb);
    if (!ok) return SY_OK;
    if (f->nfresh) { /* never hand out internal parameters */
        v = unfresh(f, v);
        if (div) div = unfresh(f, div);
        if (!v || s->u.sym.name[0] == '#') return sy_ctx_last_error(f->ctx);
    }
    *sym = s;
    *value = v;
    *divisibility = div;
    return SY_OK;
}
