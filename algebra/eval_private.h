/* Private: bindings for evaluation, memo tables, generic rebuild. */
#ifndef SY_EVAL_PRIVATE_H
#define SY_EVAL_PRIVATE_H
#include <stdlib.h>
#include "algebra/expr_private.h"
#include "symshape/decide.h"

/* Values of symbols by dense id. has[id]: 0 unbound, 1 bignum only, 2 fits int64. */
typedef struct sy_binding {
    size_t n;
    unsigned char *has;
    int64_t *v64;
    fmpz *vz;
} sy_binding;

bool sy_binding_init(sy_ctx *ctx, sy_binding *b);
void sy_binding_clear(sy_ctx *ctx, sy_binding *b);
void sy_binding_set(sy_binding *b, uint32_t id, const fmpz_t v);
/* Exact value of e (booleans as 0/1). Errors: SY_EINVAL unbound symbol,
 * SY_EDIVZERO, SY_EQUOTA (message set). */
sy_status sy_eval_raw(sy_ctx *ctx, const sy_expr *e, const sy_binding *b, fmpz_t out);

/* pointer-keyed memo (internal only; never used for ordering) */
typedef struct sy_memo {
    const sy_expr **keys, **vals;
    size_t n, cap;
} sy_memo;
/* Grow an open-addressing table keyed by expression (linear probing from
 * the node's hash; cap and ncap powers of two, cap 0 with *keys NULL for a
 * new table) to ncap slots: the keys and one parallel value array of vsize
 * bytes per slot (NULL *vals and vsize 0: none) are moved (bytewise, so an
 * fmpz value moves without a copy) into new arrays and the old ones
 * released. False when out of memory, the table unchanged. The one rehash
 * of the memo tables of eval.c and of the guard set's cost memo. */
bool sy_etab_grow(sy_ctx *ctx, const sy_expr ***keys, void **vals, size_t vsize, size_t cap, size_t ncap);
/* Grow an open-addressing table of *cap entries of esize bytes each (an
 * all-zero entry is free; cap a power of two or 0 with *tab NULL) to ncap
 * slots: a new zeroed array, every used entry moved to the slot that
 * slot(owner, entry) returns once *tab and *cap are the new ones, the old
 * array released. False when out of memory, the table unchanged. The one
 * rehash of the tables keyed by something other than one expression (the
 * env's products, the graph's refs, decide's linear-layer memo). */
bool sy_otab_grow(sy_ctx *ctx, void **tab, size_t *cap, size_t esize, size_t ncap, bool (*used)(const void *entry),
                  size_t (*slot)(const void *owner, const void *entry), const void *owner);
/* A table keyed by expression in sy_etab_grow's layout: keys, and a
 * parallel array of values of a fixed size per slot (the caller's struct).
 * Zero-initialize it; release with sy_etab_clear. */
typedef struct sy_etab {
    const sy_expr **keys;
    void *vals;
    size_t n, cap;
    bool fresh; /* set by sy_etab_slot when it inserted (the caller clears it) */
} sy_etab;
/* The slot of e (keys compared by identity, probing from the node's hash):
 * its index when e is there; otherwise, with insert, e is added (the table
 * grown to stay at most half full, the value's vsize bytes zeroed, fresh
 * set) and its new index returned. SIZE_MAX when e is absent and insert is
 * false, or when growing fails (SY_ENOMEM, not recorded; the table is
 * unchanged). Growing moves the values: an index or pointer into vals from
 * before an insert is stale after it. Expected O(1). */
size_t sy_etab_slot(sy_ctx *ctx, sy_etab *t, const sy_expr *e, size_t vsize, bool insert);
void sy_etab_clear(sy_ctx *ctx, sy_etab *t, size_t vsize);
bool sy_memo_init(sy_ctx *ctx, sy_memo *m);
void sy_memo_clear(sy_ctx *ctx, sy_memo *m);
const sy_expr *sy_memo_get(const sy_memo *m, const sy_expr *k);
bool sy_memo_put(sy_ctx *ctx, sy_memo *m, const sy_expr *k, const sy_expr *v);
const sy_expr *sy_rebuild(sy_ctx *ctx, const sy_expr *e, sy_memo *memo,
                          const sy_expr *(*leaf)(void *ud, const sy_expr *e), void *ud);

void *sy_alloc_array(sy_ctx *ctx, size_t bytes);
/* The number of sy_facts_add calls on f so far (0 for NULL): every change
 * of the fact set (facts, ranges, replacements, consistency) goes through
 * sy_facts_add, so two equal versions of one fact set mean the same facts
 * (the trace's op memo keys on it, shapeenv/trace.c). */
uint64_t sy_facts_version(const sy_facts *f);
/* Release f's memos on node identity (bounds, simplification per depth, the
 * linear layer's answers), as a change of the facts does; NULL: nothing.
 * Answers do not change: the memos only save recomputation. */
void sy_facts_drop_memos(sy_facts *f);
#endif
