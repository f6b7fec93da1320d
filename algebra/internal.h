/* The algebra module's internal interface to the library's other modules
 * (shapeenv, guards, backends, frontends, verify): the context's allocator,
 * error recording, and tables keyed by expression identity. Not installed,
 * not part of the public API.
 *
 * It exposes no node layout and no context field. A module outside algebra/
 * reads expressions through the accessors of symshape/expr.h (sy_expr_kind_of,
 * sy_expr_arg, ...), the context through the accessors below, and evaluates
 * and reads a node's FLINT integers through algebra/eval.h; the layout
 * in algebra/expr_private.h stays algebra's own
 * (tests/layers.sh and tests/symbols.sh check it). */
#ifndef SY_ALGEBRA_INTERNAL_H
#define SY_ALGEBRA_INTERNAL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symshape/ctx.h"
#include "symshape/decide.h"
#include "symshape/expr.h"

/* ---- the context: what symshape/ctx.h does not give. The number of symbols the context has
 * made (sy_expr_sym_id is below it) and its options (KEEP: as given to sy_ctx_new, defaults
 * filled in). Evaluation under bindings and a node's FLINT values are in algebra/eval.h (this
 * header stays free of FLINT). */
size_t sy_ctx_nsyms(const sy_ctx *ctx);
const sy_ctx_options *sy_ctx_opts(const sy_ctx *ctx);
/* A symbol no text can name, so it never collides with a parsed one ("$..." names: the
 * env's unbacked and guard-set source symbols). */
const sy_expr *sy_sym_internal(sy_ctx *ctx, const char *name);

/* ---- work budgets (budget.c): an operation bracketed by sy_op_begin and sy_op_end_st counts
 * its steps, terms and bytes against the context's budgets as one (the trace brackets one node's
 * work). pure: the operation stores nothing outside the intern table, so a failed outermost one
 * is rolled back. sy_op_end_st returns st unless a budget was spent (then SY_EQUOTA, the
 * recorded error). */
void sy_op_begin(sy_ctx *ctx, bool pure);
sy_status sy_op_end_st(sy_ctx *ctx, sy_status st);

/* ---- memory */
void *sy_alloc(sy_ctx *ctx, size_t size);
void *sy_realloc(sy_ctx *ctx, void *p, size_t old_size, size_t new_size);
void sy_dealloc(sy_ctx *ctx, void *p, size_t size);

/* A list of blocks freed together (sy_blocks_free): the allocator of an object whose parts all
 * live until the object is freed (a diff, a dispatcher, a bytecode program). Each block is one
 * sy_alloc of header + n bytes, zeroed, aligned for any object. On failure (n past SIZE_MAX / 2,
 * or out of memory) NULL with SY_ENOMEM recorded on ctx. */
typedef struct sy_block {
    struct sy_block *next;
    size_t size; /* bytes requested from the allocator, header included */
    max_align_t data[];
} sy_block;
void *sy_blocks_alloc(sy_ctx *ctx, sy_block **list, size_t n);
/* n elements of el bytes (NULL + SY_ENOMEM when n * el would pass SIZE_MAX / 4) */
void *sy_blocks_array(sy_ctx *ctx, sy_block **list, size_t n, size_t el);
/* every block of the list (NULL: nothing) */
void sy_blocks_free(sy_ctx *ctx, sy_block *list);

/* The size of an arena's next chunk after one of @p last bytes (0: none yet):
 * @p first, then 5/4 of the last (a multiple of 16), at most @p cap. The
 * arenas that use it (the ONNX trace, protobuf-c unpacks) hold everything
 * until they are freed, so the slack of the newest chunk is part of the peak:
 * growing by a quarter keeps it under a fifth of the arena (doubling left up
 * to half of it unused, a quarter on average). The expression nodes, the env
 * and the guard set use fixed chunks of SY_ARENA_CHUNK bytes (after the
 * nodes' first SY_ARENA_FIRST): their slack stays under SY_ARENA_CHUNK.
 * docs/algebra.md and docs/onnx.md quote both (test doc_numbers). */
#define SY_ARENA_FIRST 4096
#define SY_ARENA_CHUNK 2048
static inline size_t sy_arena_next(size_t last, size_t first, size_t cap)
{
    if (!last) return first;
    size_t n = (last + last / 4 + 15) & ~(size_t)15;
    return n < cap ? n : cap;
}

/* ---- errors: record and return NULL / status */
const sy_expr *sy_fail(sy_ctx *ctx, sy_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
sy_status sy_fail_st(sy_ctx *ctx, sy_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void sy_set_error_offset(sy_ctx *ctx, long off);
const sy_expr *sy_oom(sy_ctx *ctx);
/* record an error and yield NULL of any pointer type */
#define SY_NFAIL(ctx, ...) (sy_fail((ctx), __VA_ARGS__), (void *)0)
#define SY_NOOM(ctx) (sy_oom(ctx), (void *)0)

/* ---- tables keyed by expression identity (eval.c) */
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
/* Whether integer e fits int64 for every value of its symbols in their
 * ranges under f (the memoized bound, linear in the DAG): 1 always, 0 never
 * (its least value is past INT64_MAX, or its greatest below INT64_MIN), -1 it
 * depends or is unknown (a symbol without an upper bound, a division by a
 * maybe-zero, a spent budget: the error is cleared), or e is a boolean. Does
 * nothing when the context already holds an error (-1). */
int sy_facts_int64_fit(sy_facts *f, const sy_expr *e);
/* Release f's memos on node identity (bounds, simplification per depth, the
 * linear layer's answers), as a change of the facts does; NULL: nothing.
 * Answers do not change: the memos only save recomputation. */
void sy_facts_drop_memos(sy_facts *f);

/* ---- a static index by name (algebra/strindex.c): one for the torch op rows (shapeenv/ops.c)
 * and one for the ONNX op rows (frontends/onnx/onnx_ops.c). A row is any struct whose first
 * member is its name (const char *); the index stores pointers to rows and never copies them.
 * slot has cap entries (a power of two, zeroed); at most cap/2 rows fit. */
typedef struct sy_strindex {
    const void **slot;
    size_t cap, n;
} sy_strindex;
#define SY_STRINDEX_INIT(slots) {(slots), sizeof(slots) / sizeof((slots)[0]), 0}
/* Add row under its name: 1 added; 0 when a row of that name is already in (the first row of a
 * name wins, the new one is not added); -1 when the index is full or row or its name is NULL. */
int sy_strindex_add(sy_strindex *ix, const void *row);
/* The row named name, or NULL. */
const void *sy_strindex_find(const sy_strindex *ix, const char *name);

/* ---- the canonical-form checker (algebra/check.c), FLINT's *_assert_canonical: NULL when the
 * node e is canonical for its kind, else what is wrong. One node, assuming its children are
 * (they were checked when interned): sorted, distinct terms and factors, no zero coefficient,
 * no single-term sum that is its monomial, relations normalized (content 1, Eq/Ne leading
 * coefficient positive, not decided by the bounds), And/Or flattened, sorted, duplicate-free,
 * Min/Max sorted, lo <= hi, the depth 1 + the deepest child's. O(n) comparisons of the node's
 * children. When a rewrite rule is switched off (a test switch) only the kind-independent
 * checks are made. sy_intern calls it on every new node in builds without NDEBUG and with
 * SY_EXPR_CHECK (the fuzzers) and aborts on a violation. */
const char *sy_expr_check(const sy_ctx *ctx, const sy_expr *e);

/* ---- constructions the frontends share */
/* d + p, a dim padded by p. Padding up to a multiple of m pads Mod(m - Mod(d, m), m), which
 * the constructors keep as Mod(-d, m) (printed Mod((m-1)*d, m)): when p is Mod(P, m) (m > 0
 * constant) and Mod(d + P, m) is 0 by construction (d + P a multiple of m at every value),
 * d + p = m*CeilDiv(d, m) (Mod(P, m) = Mod(-d, m) = m*CeilDiv(d, m) - d), the form in which a
 * later FloorDiv(., m) and products of the window counts cancel exactly; else d + p. NULL with
 * the error in ctx (p NULL: NULL). ONNX Pad (frontends/onnx/onnx_ops.c) and F.pad (shapeenv). */
const sy_expr *sy_expr_add_pad(sy_ctx *ctx, const sy_expr *d, const sy_expr *p);
/* ---- floor/ceil of a float product fl(L * s) (algebra/flscale.c) */
/* A plan for floor(fl(L * s)) (ceil_mode 0) or ceil(fl(L * s)) (1), the product of an integer
 * L >= 0 and a float s > 0 rounded once to prec significand bits (53: double, PyTorch's
 * float(size) * scale and Python's int * float; 24: float32, ONNX Resize), exactly: for
 * 0 <= L <= hmax the value is FloorDiv(p*L + off*Min(L, 1), q) (CeilDiv for ceil), except
 * that when runs is 1 this holds for the multiples L = k*q only where klo <= k <= khi and k is
 * in none of the nex runs [exlo[i], exhi[i]] (every other L is exact). The window [klo, khi]
 * holds the example and ends where a (SY_FLSCALE_MAXEX+1)-th run would be needed.
 * hmax <= 2^prec (float(L) = L). */
#define SY_FLSCALE_MAXEX 12
typedef struct sy_flscale {
    int64_t p, q, off, hmax;
    int runs, nex;
    int64_t klo, khi;
    int64_t exlo[SY_FLSCALE_MAXEX], exhi[SY_FLSCALE_MAXEX];
} sy_flscale;
/* s = a / 2^E exactly with a odd; -1 when s is not a positive finite float of that precision */
int sy_flscale_split(double s, int prec, uint64_t *a, int *E);
/* the plan (its mixed run chosen around example); 0, or -1 when s is outside the supported
 * range (E in [-40, 70], convergents with q < 2^24) */
int sy_flscale_plan(double s, int prec, int ceil_mode, int64_t example, sy_flscale *out);
/* the exact value floor/ceil(fl(L * a / 2^E)), 0 <= L <= 2^prec, the result within int64 */
int64_t sy_flscale_eval(uint64_t a, int E, int prec, int ceil_mode, int64_t L);
/* the plan's formula at L (-1 when L is outside what the plan covers) */
int sy_flscale_formula(const sy_flscale *pl, int ceil_mode, int64_t L, int64_t *out);
/* The prime factors of n (n >= 2; FLINT's n_factor, complete), ascending with multiplicity, at
 * most maxp of them; the count (0 for n < 2). algebra/factor.c, with sy_fmpz_divisors (eval.h). */
size_t sy_factor_u64(uint64_t n, uint64_t *p, size_t maxp);
#endif
