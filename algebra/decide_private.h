/* Private to algebra/: the layout of a fact set and the helpers the files of
 * the decision procedure share (decide.c, decide_lia.c, decide_simplify.c,
 * decide_facts.c). Not installed. */
#ifndef SY_DECIDE_PRIVATE_H
#define SY_DECIDE_PRIVATE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/expr_private.h"
#include "algebra/ival.h"
#include "symshape/decide.h"


#define MAX_DEPTH 3
#define ACTIVE_MAX 8
#define LIA_MAX_VARS 48
#define LIA_MAX_ROWS 1500
#define LIA_MAX_STEPS 20000
#define RESIDUE_MAX 4096
#define RESIDUE_DIVISOR_MAX 64 /* residues are enumerated for divisors up to this */
/* Linear-arithmetic (Fourier-Motzkin) runs one top-level operation may make; nested
 * decisions share them; a spent budget makes further LIA tests UNKNOWN (docs/decision.md) */
#define LIA_RUNS_DECIDE 24   /* per sy_decide */
#define LIA_RUNS_SIMPLIFY 64 /* per sy_simplify, and per sy_decide's fall-back to it */
#define FACT_CASCADE_MAX 64  /* recursion depth of re-added facts in sy_facts_add */
#define JOINT_MAX 16         /* operands of an And/Or decided jointly (decide.c, joint_infeasible) */
#define SPLIT_MAX 8          /* case-split systems (linear runs) of one joint And/Or question */

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
    /* The readers of each symbol: rd_head[t] (per symbol id, 0 for none) heads a list in rd_pool
     * (entry k is rd_pool[k - 1]) of the ids i whose repl[i] may read t. A superset, each id
     * possibly more than once: an entry rewritten since stays listed; the list of a symbol is
     * dropped when the symbol is replaced (no entry reads it then). A replacement of s rewrites
     * only the entries listed under s, so each new replacement touches only what reads its
     * symbol (bcast47: an offset chain x_i := x_0 + i, one compound entry each, walked every id
     * per replacement, 4,000 inputs 1.88 s; a set tying n sizes to one was O(n^3) in
     * minimization before the walk skipped symbol entries, issue 38) */
    uint32_t *rd_head;
    struct rd_entry { uint32_t id, next; } *rd_pool;
    size_t rd_n, rd_cap;
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
    /* how many of rels[0 .. cg_seen) are congruences Mod(A, k) == r (cg_n), for rels_epoch
     * cg_epoch: rel_congruence looks for one only when there is one, instead of scanning every
     * relation per simplified relation (O(n^2) over a trace that records n Or guards, issue 38) */
    uint64_t cg_epoch;
    size_t cg_seen, cg_n;
    size_t ridx_n;
    uint64_t ridx_all[RIDX_MAX / 64]; /* bit set: free symbols unknown, relevant to every query */
    struct rinv { const sy_expr *sym; uint32_t head; } *rinv; /* open addressing on the symbol */
    size_t rinv_cap, rinv_n;
    struct rpool { uint32_t rel, next; } *rpool; /* lists: next is index + 1, 0 ends */
    size_t rpool_n, rpool_cap;
    /* The other way round: the free symbols of indexed relation i (sorted, as
     * sy_expr_free_symbols gives them) are rfwd[rfix[i].off .. + rfix[i].len),
     * len UINT32_MAX when not listed (not LE/EQ, or free_symbols failed).
     * add_facts's closure took them from sy_expr_free_symbols per relation
     * per decision: a walk and a sort each, 62% of infer on a chain of 512
     * Concats (issue 38). rfix has RIDX_MAX entries once allocated. */
    const sy_expr **rfwd;
    size_t rfwd_n, rfwd_cap;
    struct rfix { uint32_t off, len; } *rfix;
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


typedef struct {
    sy_facts *f;
    const sy_expr *culprit; /* a division whose divisor may be zero */
    const sy_expr *culprit_div;
} bctx;

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

/* After a top-level operation: one that spent its budget (ctx->gen moved)
 * leaves the context as it found it, so a memo it created is released again
 * (entries it added to an older memo go at the next facts_sync). */
typedef struct {
    bool had;      /* the memo existed before the operation */
    uint64_t gen0; /* ctx->gen before it */
} lm_mark;


/* Helpers shared between the files of the decision procedure, grouped below by the file that
 * defines them. Each keeps its short name in the code; its linkage name is sy_dc_NAME, so the
 * static archive defines only sy_ names (tests/namespace.sh). */
#define caches_clear sy_dc_caches_clear
#define facts_sync sy_dc_facts_sync
#define simp_memos_release sy_dc_simp_memos_release
#define ensure sy_dc_ensure
#define push_rel_as sy_dc_push_rel_as
#define push_rel sy_dc_push_rel
#define chain_sym sy_dc_chain_sym
#define chain_invert sy_dc_chain_invert
#define ival_cut sy_dc_ival_cut
#define apply_raw sy_dc_apply_raw
#define bound_rec sy_dc_bound_rec
#define lsys_init sy_dc_lsys_init
#define lsys_clear sy_dc_lsys_clear
#define var_of sy_dc_var_of
#define add_poly sy_dc_add_poly
#define define_all sy_dc_define_all
#define fm_run sy_dc_fm_run
#define add_facts sy_dc_add_facts
#define lia_infeasible_n sy_dc_lia_infeasible_n
#define lm_op_begin sy_dc_lm_op_begin
#define lm_after_op sy_dc_lm_after_op
#define lia_infeasible sy_dc_lia_infeasible
#define decide_rec sy_dc_decide_rec
#define simplify_core sy_dc_simplify_core
#define simp sy_dc_simp
#define unfresh sy_dc_unfresh

/* decide.c */
void caches_clear(sy_facts *f);
void facts_sync(sy_facts *f);
void simp_memos_release(sy_facts *f);
bool ensure(sy_facts *f, size_t id);
bool push_rel_as(sy_facts *f, const sy_expr *r, bool captured);
bool push_rel(sy_facts *f, const sy_expr *r);
const sy_expr *chain_sym(const sy_expr *e);
void chain_invert(const sy_expr *e, const fmpz_t t_in, bool le, bool *s_le, fmpz_t out);
void ival_cut(sy_ival *r, bool s_le, const fmpz_t v);
const sy_expr *apply_raw(sy_facts *f, const sy_expr *e);
void bound_rec(bctx *B, const sy_expr *e, sy_ival *out);
sy_truth decide_rec(sy_facts *f, const sy_expr *q, int *layer);
const sy_expr *simplify_core(sy_facts *f, const sy_expr *q);

/* decide_lia.c */
void lsys_init(lsys *L, sy_facts *f);
void lsys_clear(lsys *L);
long var_of(lsys *L, const sy_expr *m);
bool add_poly(lsys *L, const sy_expr *d, bool eq);
void define_all(lsys *L);
int fm_run(lsys *L, long keep, sy_ival *proj);
void add_facts(lsys *L, const sy_expr *query);
int lia_infeasible_n(sy_facts *f, size_t n, const sy_expr *const *ds, const bool *eqs, const sy_expr *query);
lm_mark lm_op_begin(sy_facts *f);
void lm_after_op(sy_facts *f, lm_mark m);
int lia_infeasible(sy_facts *f, const sy_expr *d, bool eq, const sy_expr *query);

/* decide_simplify.c */
const sy_expr *simp(sy_facts *f, const sy_expr *e, sy_memo *memo);
const sy_expr *unfresh(sy_facts *f, const sy_expr *e);

#endif
