/**
 * @file symshape/dispatch.h
 * @brief One decision structure for N guard sets of one model (N compiled
 *        entries, shape buckets): the index of the first entry whose guard
 *        set accepts the input sizes, or -1, at a cost that grows with the
 *        depth of the structure rather than with N x guards (docs/guards.md
 *        section 9).
 *
 * Construction. The entries' checked guards (runtime asserts are not
 * checked, as sy_gset_check) are pooled: a guard that several entries share
 * is one guard, and every subexpression shared between guards is one node
 * (the expressions are hash-consed). A guard that bounds one source by
 * constants (`v == c`, `c <= v`, `v <= c`, `-v + c <= 0`) is an *interval
 * guard*; the sources some interval guard reads are split by a balanced
 * binary search over the bounds of the entries (the "breakpoints"), source
 * after source, each leaf holding the entries whose intervals contain the
 * leaf's box, in entry order. Subtrees with the same set of entries at the
 * same depth are one node (a DAG). The remaining guards of those entries
 * (relations, equalities, ...) are checked at the leaf in entry order, each
 * node evaluated at most once per call.
 *
 * Evaluation is exact int64 arithmetic (algebra/sy_int64.h): an overflow or
 * a division by zero fails the guard it occurs in (fail closed), so the
 * dispatcher never answers an entry whose guards reject the sizes, and
 * answers the same entry as checking the sets one by one with
 * sy_gset_check_si wherever no guard overflows int64 and every input can
 * exist. sy_gset_check's other rule, an input whose numel (the product of
 * its sizes) is past int64 cannot exist, is not applied here, as in the
 * bytecode VM and the generated C: the sizes of real tensors satisfy it;
 * sy_gset_numel_check_si is that rule alone (`symshape dispatch --sizes`
 * applies it first).
 *
 * Ownership: a sy_dispatch (GIVE) borrows its context; free it with
 * sy_dispatch_free before the context. It is immutable after
 * sy_dispatch_new: any number of threads may call sy_dispatch_run on it at
 * once, each with its own frame.
 */
#ifndef SYMSHAPE_DISPATCH_H
#define SYMSHAPE_DISPATCH_H
#include "symshape/gset.h"

SY_BEGIN_DECLS

typedef struct sy_dispatch sy_dispatch;

/** Build the dispatcher of @p n guard sets (@p sets: n sets, KEEP: read
 *  now, not kept; any contexts). Every set must have the same sources, in
 *  the same order (one model).
 *  @retval SY_OK @retval SY_EINVAL n = 0, a NULL set, or sources that differ
 *  (the message names the entry and the slot) @retval SY_ENOMEM
 *  @retval SY_EQUOTA the structure would exceed the context's work budget
 *  Cost: linear in the guards' distinct nodes, plus the tree: at most
 *  64 * (n + breakpoints) + 4096 nodes; past that budget the remaining
 *  sources are not split and their interval guards are checked at the
 *  leaves like the others (still exact, less fast). */
SY_API sy_status sy_dispatch_new(sy_ctx *ctx, size_t n, const sy_gset *const *sets, SY_GIVE sy_dispatch **out);
/** Same, from the JSON forms of the sets (sy_gset_to_json, "symshape.guards"
 *  version 1): @p texts[i] of @p lens[i] bytes ((size_t)-1: NUL-terminated).
 *  @retval SY_EFORMAT a malformed document (the message names the entry and
 *  the guard), another version, or a guard reading a symbol that is not
 *  one of its sources (_s0 .. _sN-1); otherwise as sy_dispatch_new. */
SY_API sy_status sy_dispatch_new_json(sy_ctx *ctx, size_t n, const char *const *texts, const size_t *lens,
                                      SY_GIVE sy_dispatch **out);
/** Free; accepts NULL; returns NULL. */
SY_API sy_dispatch *sy_dispatch_free(SY_TAKE SY_NULL sy_dispatch *d);

/** Number of sources (values sy_dispatch_run reads), entries, and int64
 *  elements of a frame. */
SY_API size_t sy_dispatch_nsources(const sy_dispatch *d);
SY_API const char *sy_dispatch_source(const sy_dispatch *d, size_t i);
SY_API size_t sy_dispatch_nentries(const sy_dispatch *d);
SY_API size_t sy_dispatch_frame_len(const sy_dispatch *d);

/** Shape of the structure: the distinct guards, their distinct nodes, the
 *  tree's nodes, its depth (binary tests on the longest path), the sources
 *  split, and the most entries a leaf holds. Any pointer may be NULL. */
SY_API void sy_dispatch_stats(const sy_dispatch *d, size_t *guards, size_t *nodes, size_t *tree_nodes, size_t *depth,
                              size_t *split_sources, size_t *max_leaf);

/** The first entry accepting @p values (@p n int64, one per source), or -1.
 *  @param frame sy_dispatch_frame_len(d) int64 owned by the caller, all 0
 *         before its first use, then reused as it is (it holds the values of
 *         the nodes and a call counter; one frame per thread).
 *  @return the entry index, -1 (none accepts), or -2 for a bad call (NULL, n
 *          different from the number of sources). Never allocates;
 *          reentrant with distinct frames. */
SY_API long sy_dispatch_run(const sy_dispatch *d, const int64_t *values, size_t n, int64_t *frame);

/** The reference: the first entry whose set accepts, checking every entry's
 *  guards one by one with the same int64 evaluation (no tree, no sharing
 *  across entries); for benchmarks and tests. Same frame and result as
 *  sy_dispatch_run. */
SY_API long sy_dispatch_run_sequential(const sy_dispatch *d, const int64_t *values, size_t n, int64_t *frame);

/** Why no entry accepts @p values, naming a guard that failed closed (as `symshape check` names
 *  one): the entries one by one, each rejected by its first failing guard in set order (its
 *  checked guards, numbered from 0 as the dispatcher holds them); an entry whose first failing
 *  guard could not be evaluated in int64 (an overflow, a zero divisor: the guard fails closed)
 *  failed closed.
 *  @param frame as sy_dispatch_run (the same frame may serve both).
 *  @param msg NULL or @p cap bytes: for a fail-closed answer "SY_EOVERFLOW in guard G of entry E:
 *         EXPR" (EXPR the guard over the slots _s0 ..), cut at @p cap; else "".
 *  @return the entry index when one accepts (sy_dispatch_run's answer), -1 when none accepts and
 *          no entry failed closed, SY_EOVERFLOW or SY_EDIVZERO (the first entry that failed
 *          closed) when none accepts, -2 for a bad call (as sy_dispatch_run). Not for the hot
 *          path: it checks every entry's guards (sy_dispatch_run_sequential's cost) and
 *          allocates the message's text; reentrant with distinct frames. */
SY_API long sy_dispatch_why(const sy_dispatch *d, const int64_t *values, size_t n, int64_t *frame, char *msg, size_t cap);

/** The dispatcher as C source (C99, no library needed): `long PREFIX_dispatch(const int64_t *v)`
 *  with the same answers as sy_dispatch_run (the same tree, the same int64 evaluation: overflow or
 *  a zero divisor fails the guard), `PREFIX_sources` and `PREFIX_nsources`. The tree is a chain of
 *  labels and gotos (shared subtrees emitted once), each guard a static function.
 *  @param prefix a C identifier (KEEP).
 *  @return the text (GIVE: sy_str_free), or NULL: SY_EINVAL (d NULL, prefix not an identifier),
 *          SY_ENOMEM. */
SY_API SY_GIVE char *sy_dispatch_to_c(const sy_dispatch *d, const char *prefix);

/* ------------------------------------------------------------------ the structure, read-only
 * For other back ends (the bytecode form, sy_bc_dispatch_compile in symshape/bc.h): the
 * evaluation DAG of the pooled guards, the guards, the entries and the decision tree, as
 * sy_dispatch_run walks them. Pointers returned are KEEP (they live as long as @p d). */

/** Node operations of the evaluation DAG. A node reads the values of its arguments (node
 *  indices, always smaller than its own index); every operation is exact int64 arithmetic and
 *  an overflow or a zero divisor is an *error* of the node, which fails every guard reading it.
 *  SY_DOP_BAD (a constant beyond int64, a symbol that is no source) is always an error. */
typedef enum sy_dispatch_op {
    SY_DOP_CONST = 0,  /**< k */
    SY_DOP_SLOT,       /**< values[k] */
    SY_DOP_ADD,        /**< k + sum coef[i] * arg[i], left to right (each product, each partial sum checked) */
    SY_DOP_MUL,        /**< 1 * arg[0] * arg[1] ..., left to right */
    SY_DOP_POW,        /**< arg[0] ** k, by repeated multiplication (k >= 0; a base 0, 1 or -1 never overflows) */
    SY_DOP_FLOORDIV,   /**< arg[0] // arg[1] (Python) */
    SY_DOP_MOD,        /**< arg[0] % arg[1] (Python: the divisor's sign) */
    SY_DOP_CEILDIV,    /**< -(-arg[0] // arg[1]) */
    SY_DOP_MIN,        /**< min over the args */
    SY_DOP_MAX,        /**< max over the args */
    SY_DOP_EQ,         /**< arg[0] == 0 */
    SY_DOP_NE,         /**< arg[0] != 0 */
    SY_DOP_LE,         /**< arg[0] <= 0 */
    SY_DOP_AND,        /**< every arg non-zero */
    SY_DOP_OR,         /**< some arg non-zero */
    SY_DOP_BAD         /**< not representable: always an error */
} sy_dispatch_op;

/** One node of the evaluation DAG. */
typedef struct sy_dispatch_node {
    sy_dispatch_op op;
    size_t nargs;
    const uint32_t *args; /**< nargs node indices (KEEP) */
    const int64_t *coef;  /**< SY_DOP_ADD: nargs coefficients (KEEP), else NULL */
    int64_t k;            /**< CONST: value; SLOT: source index; ADD: constant term; POW: exponent */
} sy_dispatch_node;

/** The context the dispatcher borrows (KEEP); NULL for NULL. */
SY_API SY_KEEP sy_ctx *sy_dispatch_ctx(const sy_dispatch *d);
/** Number of nodes of the evaluation DAG (0 for NULL). */
SY_API size_t sy_dispatch_nnodes(const sy_dispatch *d);
/** Node @p i into @p out. @retval SY_OK @retval SY_EINVAL NULL or out of range. */
SY_API sy_status sy_dispatch_get_node(const sy_dispatch *d, size_t i, sy_dispatch_node *out);
/** Guard @p i (0 .. guards of sy_dispatch_stats - 1): its root node, the distinct nodes it reads in
 *  post-order (children first; KEEP), and its canonical text over the slots _s0 .. (GIVE: sy_str_free
 *  with the dispatcher's context; NULL if @p text is NULL). A guard holds when no node of its list
 *  has an error and its root is non-zero.
 *  @retval SY_OK @retval SY_EINVAL NULL or out of range @retval SY_ENOMEM */
SY_API sy_status sy_dispatch_get_guard(const sy_dispatch *d, size_t i, uint32_t *root, SY_KEEP const uint32_t **list,
                                       size_t *nlist, SY_NULL SY_GIVE char **text);
/** The guards entry @p e checks, in its set's order (KEEP), and for guard @p g the split rank
 *  that decides it in the tree (a guard of rank r is skipped at a leaf whose kdone > r; SIZE_MAX:
 *  never decided by the tree). @retval SY_OK @retval SY_EINVAL NULL or out of range. */
SY_API sy_status sy_dispatch_get_entry(const sy_dispatch *d, size_t e, SY_KEEP const uint32_t **guards,
                                       size_t *nguards);
SY_API size_t sy_dispatch_guard_rank(const sy_dispatch *d, size_t g);

/** One node of the decision tree: an inner node goes to @c lo when values[slot] < thr, else to
 *  @c hi; a leaf answers the first of its entries (ascending) whose guards of rank >= kdone all
 *  hold, else -1. Children may be shared (a DAG) and may have smaller indices than the parent. */
typedef struct sy_dispatch_tnode {
    int leaf;
    size_t slot;
    int64_t thr;
    uint32_t lo, hi;
    size_t nent;
    const uint32_t *ent; /**< KEEP */
    size_t kdone;
} sy_dispatch_tnode;

/** Number of tree nodes and the root's index. */
SY_API size_t sy_dispatch_ntree(const sy_dispatch *d);
SY_API size_t sy_dispatch_root(const sy_dispatch *d);
/** Tree node @p i. @retval SY_OK @retval SY_EINVAL NULL or out of range. */
SY_API sy_status sy_dispatch_get_tnode(const sy_dispatch *d, size_t i, sy_dispatch_tnode *out);

SY_END_DECLS
#endif
