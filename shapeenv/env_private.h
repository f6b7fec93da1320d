/* Private: shape environment internals. */
#ifndef SY_ENV_PRIVATE_H
#define SY_ENV_PRIVATE_H
#include "algebra/eval.h"
#include "symshape/graph.h"
#include "symshape/tensor.h"

typedef struct sy_env_chunk {
    struct sy_env_chunk *next;
    size_t size, used;
    max_align_t data[];
} sy_env_chunk;

typedef struct {
    sy_symbol_info info;
    const char **srcs;
    size_t srccap;
    bool duck;    /* may be shared by duck sizing */
    bool touched; /* appeared in a decision or a guard: its range is relied upon */
    /* its class of symbols made equal by recorded guards sym == sym that touched neither
     * (env.c link_equal): eq_up is the union-find parent, eq_next the next member of the
     * class's ring; both index + 1 into syms, 0: itself. A class is touched as a whole. */
    size_t eq_up, eq_next;
} symrec;

typedef struct {
    sy_guard_record rec;
    sy_guard_origin *orig;
    size_t origcap;
} guardrec;


#define SY_XMEMO_KEY 8  /* words of an sy_env_xmemo key */
#define SY_XMEMO_VALS 3 /* expressions of an sy_env_xmemo entry */
/* Value bounds of an integer tensor whose values are a known function of sizes (values.c).
 * The values lie in the union of the parts present: a part is present when its cnt >= 1,
 * and then (the tensor having an element) its lo and hi are elements of the tensor (attained,
 * not just bounds), so a requirement built from them is the model's own condition. dense: every
 * integer of [lo, hi] is an element. first/step: the tensor is 1-D with one part and its
 * element k is first + k * step, k < cnt (first NULL: unknown order). The bounds are of the
 * exact integers: +, -, * wrap modulo 2^64 on the CPU, so the values agree with them wherever
 * they fit in int64 (always, when they pass an index check); fits records that for the rest. */
#define SY_VB_PARTS 4
typedef struct sy_vbounds {
    size_t n; /* parts, 1..SY_VB_PARTS */
    struct sy_vpart { const sy_expr *lo, *hi, *cnt; int dense; } part[SY_VB_PARTS];
    const sy_expr *first;
    int64_t step;
    /* NULL, or a condition the bounds need: the exact values fit in int64 wherever an op that is
     * not arithmetic modulo 2^64 (//, %, clamp) read them; checked with the bounds */
    const sy_expr *fits;
    int ring; /* +, -, * or neg since the source or the last fits: the bounds may pass int64 */
    int rows; /* 1: the tensor is 2-D and part k holds exactly the values of t[k] (tril_indices,
               * triu_indices: row and column indices); an op other than t[k] / select(t, 0, k)
               * keeps the union only (values.c bounded) */
} sy_vbounds;

struct sy_env {
    sy_ctx *ctx;
    sy_env_options opts;
    sy_facts *facts;
    sy_env_chunk *chunks;
    /* symbols */
    symrec *syms;
    size_t nsyms, symcap;
    size_t *byid; /* sy_expr_sym_id -> index in syms + 1 (0: not this env's), byidcap entries */
    size_t byidcap;
    unsigned next_s, next_u;
    /* the backed symbol each source belongs to (source_ok: one symbol per source): open
     * addressing by the text's hash, srcowncap entries (a power of two, at least twice srcownn);
     * text NULL: empty; owner: index in syms + 1. The texts are the symbols' copies. Not
     * interned as symbols: that would change the context's symbol ids, which orders guards. */
    struct sy_env_srcown { const char *text; size_t owner; } *srcown;
    size_t srcowncap, srcownn;
    /* hints by symbol id */
    sy_binding hints;
    bool hints_ready;
    size_t hints_nbound; /* syms[0 .. hints_nbound) are bound in hints (a new symbol is bound on next use) */
    /* guards */
    guardrec *guards;
    size_t nguards, guardcap, recorded;
    size_t *guard_hash; /* index of guards by expression: position + 1, 0 empty (open addressing) */
    size_t guard_hcap;
    /* input dims */
    sy_input_dim *inputs;
    size_t ninputs, inputcap;
    /* inside sy_env_require: guards recorded now are the model's own requirements */
    int requiring;
    const sy_expr *failed_rel; /* sy_env_failed_relation: what the last failed requirement needed */
    /* inside sy_env_evaluate_limit: guards recorded now are limits of symshape's formulas */
    int limiting;
    /* inputs (name, dtype, rank) */
    sy_env_input_info *tins;
    size_t ntins, tincap;
    size_t *tin_hash; /* index of tins by name: position + 1, 0 empty (open addressing) */
    size_t tin_hcap;
    /* each input tensor's sizes (env-owned arrays): its numel is within int64 (the input
     * exists), a fact sy_env_require_int64 uses; nf is the fact set of the symbols' ranges
     * tightened by it, built for the facts' version nf_ver with nf_nin inputs (env.c) */
    struct sy_env_insz { size_t ndim; const sy_expr *const *sizes; } *insz;
    size_t ninsz, inszcap;
    sy_facts *nf;
    uint64_t nf_ver;
    size_t nf_nin, nf_nsyms;
    /* each input's dims applied to the facts and their least values (env_int64.c insz_lows), made
     * on first use and kept while the facts' version is il_ver: every int64 check of a chain of
     * Concats asks for them all again (attack46n) */
    struct sy_env_inlo { int done; const sy_expr **a; int64_t *lo; } *il;
    size_t nil, ilcap;
    uint64_t il_ver;
    /* concrete mode: every size is a constant (real-value evaluation) */
    int concrete;
    /* the PyTorch release the ops follow (sy_env_set_torch_version): major * 100 + minor, 0 newest */
    int torch_version;
    /* current user source location (borrowed strings; file NULL: none) */
    sy_loc loc;
    /* provenance of the typed op calls (sy_env_set_provenance; borrowed strings; node, op and
     * reason NULL: none) */
    sy_provenance typed_where;
    /* set by op_new_strided during sy_env_call: the op computed its output layout */
    int layout_owned;
    /* a stride()/is_contiguous() op read strides: every input gets its stride guards */
    int strides_read;
    /* the op and node of the current sy_env_call (borrowed; names unbacked symbols) */
    const char *cur_op, *cur_node;
    /* sy_env_mul's products on the pair of factors (open addressing) */
    struct sy_env_prod { const sy_expr *a, *b, *r; } *prod;
    size_t nprod, prodcap;
    /* sy_env_contig_strides: row-major strides by the sizes (ops.c; open
     * addressing; the table on the heap, its arrays in the env's arena) */
    struct sy_env_cstr { uint64_t h; size_t ndim; const sy_expr *const *sizes, *const *strides; } *cstr;
    size_t ncstr, cstrcap;
    /* deferred strides (layout.c): the reshapes whose viewability the facts did not decide, by
     * their result tensor (strides NULL): its source and the reshape's provenance (open addressing) */
    struct sy_env_defer {
        const sy_tensor *t, *src; /* the result; the reshape's source (NULL: a replayed op) */
        const char *node, *op;    /* provenance: the deferring op */
        unsigned weight;          /* the ops a decision replays (bounded: DEFER_MAX_WEIGHT) */
        size_t nargs, nkw, item;  /* replay: the op's arguments (copies); item: the result's list index or SIZE_MAX */
        const sy_value *args, *kwvals;
        const char *const *kwnames;
        int view; /* a view proved possible at every size (layout.c view_always): never a copy */
    } *defer;
    size_t ndefer, defercap;
    /* sy_env_xmemo: op rules' pure size formulas by their operands (ops.c) */
    struct sy_env_xm { uint64_t k[SY_XMEMO_KEY], gen; const sy_expr *r[SY_XMEMO_VALS]; } *xm;
    size_t nxm, xmcap;
    /* touch(): nodes whose symbols are all marked touched already */
    sy_memo touched_nodes;
    bool touched_ready;
    /* sy_env_show's texts by expression (direct-mapped, SY_SHOW_MEMO entries,
     * allocated on first use; NULL: none yet). An entry is valid only while
     * nsyms equals its epoch: a text depends on the symbols' records. */
    struct sy_env_shown { const sy_expr *e; size_t epoch; const char *text; } *shown;
    unsigned long show_hits, show_misses;
    bool show_memo_off; /* tests: format every time (the differential test) */
    /* sy_env_require_passes: relations it found proven (direct-mapped,
     * SY_PASSED_MEMO entries, allocated on first use). An entry holds while
     * the facts (sy_facts_version), the symbols (nsyms: a new symbol gets its
     * range without a version step) and the context's rollback generation
     * are those it was made under: then applying the facts gives the same
     * relation, the decision the same TRUE, and its touch() is done. */
    struct sy_env_passed { const sy_expr *rel; uint64_t fv, gen; size_t nsyms; } *passed;
    unsigned long passed_hits;
    /* value bounds of integer tensors (values.c): sy_vbounds by tensor (open addressing, heap);
     * vpend: the current op (arange) set vpend for its final result */
    struct sy_env_vb { const sy_tensor *t; sy_vbounds b; } *vb;
    size_t nvb, vbcap;
    int vpend;
    int vfail; /* a conversion of bounds failed during the current op's propagation (values.c) */
    sy_vbounds vpend_b;
};
#define SY_SHOW_MEMO 32
#define SY_PASSED_MEMO 64

void *sy_env_alloc(sy_env *env, size_t size);
/* Record an input tensor's sizes (KEEP: env-owned, never changed): its numel is within
 * int64, the fact sy_env_require_int64 uses (env_int64.c) */
sy_status sy_env_note_input_sizes(sy_env *env, size_t ndim, const sy_expr *const *sizes);
/* 1 when op is a known op that the trace's op memo may reuse: its row (the
 * ops_*.c tables) has OP_MEMO and not OP_IMPURE */
int sy_env_op_memoizable(const char *op);
/* 1 if e mentions an unbacked symbol */
int sy_env_mentions_unbacked(sy_env *env, const sy_expr *e);
/* sy_env_require's passing case without the reason (env.c): *done = 1 when
 * the facts prove rel (*st SY_OK) or rel is NULL (*st the error) */
void sy_env_require_passes(sy_env *env, const sy_expr *rel, int *done, sy_status *st);
/* decide rel from the facts only (no guard): *known = 0 if undecided */
sy_status sy_env_try_decide(sy_env *env, const sy_expr *rel, int *known, int *val);
/* the same under facts (env->facts or a copy of it with assumptions added: layout.c's case
 * splits); the symbols decided on are touched as by sy_env_try_decide */
sy_status sy_env_try_decide_in(sy_env *env, sy_facts *facts, const sy_expr *rel, int *known, int *val);
const char *sy_env_strdup(sy_env *env, const char *s);
/* sy_env_show's memo: hits and misses so far (tests); off != 0 turns it off
 * from now on (every text formatted again, as without it) */
void sy_env_show_memo_stats(const sy_env *env, unsigned long *hits, unsigned long *misses);
void sy_env_show_memo_set_off(sy_env *env, int off);
sy_status sy_env_fail(sy_env *env, sy_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* add @p source to a symbol of the env (no duplicate); false when sym is not one of its
 * symbols, on SY_ENOMEM, or with SY_EINVAL when a backed symbol would get a source another
 * backed symbol has or one spelled like a symbol's name (env.c, source_ok) */
bool sy_env_symbol_add_source(sy_env *env, const sy_expr *sym, const char *source);
/* a*b of two integer expressions (NULL on error, recorded), memoized on the
 * pair: strides and contiguity checks multiply the same sizes for every
 * tensor. The product is the node sy_expr_mul gives (hash-consed), so the
 * memo changes no answer; a product is kept only once sy_expr_mul returned
 * it, and the env's ops never run inside a pure operation that a spent
 * budget could roll back, so no entry names a released node. */
const sy_expr *sy_env_mul(sy_env *env, const sy_expr *a, const sy_expr *b);
/* value bounds (values.c): 1 and *b when t's values are a known function of sizes, else 0
 * (t's values are data) */
int sy_env_values_get(const sy_env *env, const sy_tensor *t, sy_vbounds *b);
/* record t's bounds (copied); SY_ENOMEM (or the error that made an expression of b NULL) */
sy_status sy_env_values_set(sy_env *env, const sy_tensor *t, const sy_vbounds *b);
/* an arange's values first + k * step, k < n (step a nonzero constant): the bounds of its result */
sy_vbounds sy_vbounds_seq(sy_ctx *ctx, const sy_expr *first, int64_t step, const sy_expr *n);
void sy_env_values_free(sy_env *env);
/* a constant tensor t (a graph "param" with "values": [lo, hi], docs/graph-format.md) whose least
 * and greatest elements are lo and hi: recorded as one part of numel(t) elements (nothing when t is
 * empty or its dtype is not a tracked integer dtype); step != 0: t is a row (every dim but the last
 * 1) holding the sequence from lo (step > 0) or hi (step < 0), recorded as that sequence (the graph
 * reader checked the shape and count); SY_ENOMEM */
sy_status sy_env_values_set_const(sy_env *env, const sy_tensor *t, int64_t lo, int64_t hi, int64_t step);
/* 1 for an integer dtype whose values are tracked (int64, int32, int16, int8, uint8), with its
 * least and greatest values and its width in bits (each output may be NULL); else 0 */
int sy_vb_int_dtype(sy_dtype dt, int64_t *mn, int64_t *mx, int *bits);
/* printable form of an expression, env-owned */
const char *sy_env_show(sy_env *env, const sy_expr *e);

/* ---- op helpers shared by the op files */
typedef struct opcall {
    sy_env *env;
    const char *op;
    size_t nargs;
    const sy_value *args;
    size_t nkw;
    const char *const *kwnames;
    const sy_value *kwvals;
    const sy_provenance *where;
    sy_value *out;
    const char *dup_kw; /* set by op_arg: an argument given both by position and by keyword */
    size_t dup_pos;
    /* op_require's relation and, when the facts prove it, its status */
    const sy_expr *req_rel;
    int req_done;
    sy_status req_st;
    int layout_cls; /* the op's layout class (its row's layout, OPL_*), set by the dispatcher */
} opcall;

typedef sy_status (*opfn)(opcall *c);
/* values.c: after an op's result is final (sy_env_call): record or propagate its value
 * bounds; an op that may write into a tensor forgets every bound */
/* env_source.c: the entry of source text @p source in env->srcown (its owner, or the empty slot
 * where it goes; NULL: out of memory), and the one-symbol-per-source check before symbol @p will
 * (NULL: a new one) gets @p source (false: SY_EINVAL naming the source, or out of memory) */
struct sy_env_srcown *sy_env_srcown_slot(sy_env *env, const char *source);
bool sy_env_source_ok(sy_env *env, const char *source, const symrec *will);
sy_status sy_env_values_after_call(opcall *c);
/* values.c: the one check of index values (every consumer: embedding, index_select, gather,
 * scatter, take, index_add/copy/fill, one_hot, advanced indexing): when idx's values are
 * tracked, require `skip or every present part within [a, b]` (a, b inclusive; skip: the kernel
 * reads no index value, e.g. an empty index or an empty result; NULL: never); what: the
 * kernel's message, shown with the bounds. SY_OK without a check when idx's values are data. */
sy_status sy_env_values_require_in(opcall *c, const sy_tensor *idx, const sy_expr *skip, const sy_expr *a,
                                   const sy_expr *b, const char *what);

/* The op helpers below are shared by the ops_*.c files but are not API: the
 * library's symbols all start with sy_ (tests/namespace.sh checks it), so
 * their short names are macros for sy_opc_* (a new helper needs a line here). */
#define KI sy_opc_KI
#define op_arg sy_opc_arg
#define op_bool_def sy_opc_bool_def
#define op_broadcast sy_opc_broadcast
#define op_const_int sy_opc_const_int
#define op_decide_bool sy_opc_decide_bool
#define op_decide_limit sy_opc_decide_limit
#define op_err sy_opc_err
#define op_int sy_opc_int
#define op_int_def sy_opc_int_def
#define op_int_list sy_opc_int_list
#define op_known_true sy_opc_known_true
#define op_new_strided sy_opc_new_strided
#define op_new_tensor sy_opc_new_tensor
#define op_opt_tensor sy_opc_opt_tensor
#define op_py_round sy_opc_py_round
#define op_scaled_round sy_opc_scaled_round
#define op_set_strided sy_opc_set_strided
#define op_set_tensor sy_opc_set_tensor
#define op_shape_args sy_opc_shape_args
#define op_sym_list sy_opc_sym_list
#define op_tensor sy_opc_tensor
#define op_ti_strides sy_opc_ti_strides
#define op_preserve_strides sy_opc_preserve_strides
#define op_view_result sy_opc_view_result
#define op_strides sy_opc_strides
#define op_reshape_strides sy_opc_reshape_strides
#define op_wrap_dim sy_opc_wrap_dim
#define op_dims_mask sy_opc_dims_mask
#define op_is_complex sy_opc_is_complex
#define op_is_floating sy_opc_is_floating
#define op_num_def sy_opc_num_def
#define op_numel sy_opc_numel
#define op_show_sizes sy_opc_show_sizes
#define op_reduced sy_opc_reduced
#define op_require_eq sy_opc_require_eq
#define op_require_expands sy_opc_require_expands
#define op_set_tuple sy_opc_set_tuple
#define op_sizes_copy sy_opc_sizes_copy
#define op_str_def sy_opc_str_def
#define op_wrap_dim0 sy_opc_wrap_dim0
#define op_torch1 sy_opc_torch1

/* argument access: positional index or keyword name; NULL if absent */
const sy_value *op_arg(opcall *c, size_t pos, const char *kw);
sy_status op_tensor(opcall *c, size_t pos, const char *kw, const sy_tensor **out);
sy_status op_opt_tensor(opcall *c, size_t pos, const char *kw, const sy_tensor **out);
sy_status op_int(opcall *c, size_t pos, const char *kw, const sy_expr **out);          /* symbolic int */
sy_status op_int_def(opcall *c, size_t pos, const char *kw, int64_t def, const sy_expr **out);
sy_status op_const_int(opcall *c, size_t pos, const char *kw, int64_t def, int64_t *out); /* must be constant */
sy_status op_bool_def(opcall *c, size_t pos, const char *kw, int def, int *out);
/* int or list of ints expanded to n entries (constants) */
sy_status op_int_list(opcall *c, size_t pos, const char *kw, size_t n, const int64_t *def, int64_t *out);
/* int or list of ints expanded to n entries (symbolic: out[i] may be any int expression) */
sy_status op_sym_list(opcall *c, size_t pos, const char *kw, size_t n, const sy_expr **out);
/* list of symbolic ints (a value that is a list, or varargs starting at pos) */
sy_status op_shape_args(opcall *c, size_t pos, const char *kw, const sy_expr ***out, size_t *n);
sy_status op_err(opcall *c, sy_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* require rel (boolean expr) with a formatted reason: op_require(c, rel,
 * fmt, ...). The reason's arguments (sy_env_show texts and the like) are
 * evaluated only when the facts do not prove rel, that is when the reason is
 * used (a guard, a runtime assert or the error): formatting every passing
 * check cost about a third of the trace. c is evaluated more than once. */
#define op_require(c, rel, ...)                                                                                \
    ((sy_env_require_passes((c)->env, ((c)->req_rel = (rel)), &(c)->req_done, &(c)->req_st), (c)->req_done)   \
         ? (c)->req_st                                                                                         \
         : sy_opc_require((c), (c)->req_rel, __VA_ARGS__))
/* 1 when the env follows PyTorch 1.x's kernels (sy_env_set_torch_version below 200, not 0):
 * the ops whose checks differ between 1.13 and 2.x (docs/ops.md) branch on it. */
int sy_opc_torch1(const opcall *c);
sy_status sy_opc_require(opcall *c, const sy_expr *rel, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* evaluate a boolean to 0/1 through the env (guard if needed) */
/* Python int() / math.floor / math.ceil / math.trunc / round of a number v
 * (int, float or a true quotient SY_V_QUOT) to an int: mode 'f' floor, 'c'
 * ceil, 't' truncation toward zero, 'r' round half to even (ops_scalar.c) */
sy_status op_py_round(opcall *c, const sy_value *v, char mode);
/* floor 'f' / ceil 'c' / truncation 't' of the double fl(float(L) * s) for an integer
 * expression L and a double s, exactly (guards where the formula needs them) */
sy_status op_scaled_round(opcall *c, const sy_expr *L, double s, char mode, const sy_expr **out);
sy_status op_decide_bool(opcall *c, const sy_expr *rel, const char *reason, int *out);
/* op_decide_bool of a limit of symshape's own formula, not of the model (sy_env_evaluate_limit) */
sy_status op_decide_limit(opcall *c, const sy_expr *rel, const char *reason, int *out);
/* *out = 1 when the facts prove rel, without recording a guard or touching a
 * symbol (so no range guard follows); 0 when false or undecided */
sy_status op_known_true(opcall *c, const sy_expr *rel, int *out);
/* The row-major (contiguous) strides of sizes[0..ndim): env-owned and
 * immutable, the same array for equal sizes (the same expressions) while the
 * env lives; NULL when out of memory. sizes_owned: sizes is itself an
 * env-owned array that is never changed (kept as the key, else copied). */
const sy_expr *const *sy_env_contig_strides(sy_env *env, size_t ndim, const sy_expr *const *sizes, bool sizes_owned);
/* A memo of pure expression work inside op rules (a convolution's or a
 * pooling's per-dim output size: the H and W of a square input, or the same
 * spatial size in the branches of a module, repeat the construction). key:
 * SY_XMEMO_KEY words naming the formula (a tag word first) and its operands
 * (expression addresses, integers); the values: SY_XMEMO_VALS expressions
 * (NULL allowed). Only for results that are a function of the key alone:
 * hash-consed construction from the same expressions and integers gives the
 * same nodes, so a hit returns what the construction would. No decision, no
 * fact, no side effect may be memoized this way. An entry holds for the
 * context's generation it was made in (sy_ctx_generation: addresses may be
 * reused after a rollback). get: the stored values or NULL; put: a failed
 * allocation only loses the entry. */
enum { SY_XM_CONV_PAD = 1, SY_XM_CONV_OUT, SY_XM_POOL, SY_XM_CONV_NONEMPTY, SY_XM_INT64_FIT }; /* the tags (key[0]); 0: an empty slot */
/* SY_XM_INT64_FIT (env_int64.c) is the one decision kept here: its key holds everything the
 * answer reads (the expression, the facts' version, the inputs noted, the symbols made, the
 * unbacked ones), and only "fits, nothing to record" is stored, so a hit is what the decision
 * would answer and do. */
const sy_expr *const *sy_env_xmemo_get(sy_env *env, const uint64_t key[SY_XMEMO_KEY]);
void sy_env_xmemo_put(sy_env *env, const uint64_t key[SY_XMEMO_KEY], const sy_expr *const vals[SY_XMEMO_VALS]);
/* a new contiguous tensor (sizes copied) */
const sy_tensor *op_new_tensor(opcall *c, sy_dtype dt, size_t ndim, const sy_expr *const *sizes);
sy_status op_set_tensor(opcall *c, sy_dtype dt, size_t ndim, const sy_expr *const *sizes);
/* a tensor with explicit strides (array of ndim expressions, copied; NULL:
 * strides not modelled). Marks the current op as computing its own layout
 * (layout.c). */
const sy_tensor *op_new_strided(opcall *c, sy_dtype dt, size_t ndim, const sy_expr *const *sizes,
                                const sy_expr *const *strides);
sy_status op_set_strided(opcall *c, sy_dtype dt, size_t ndim, const sy_expr *const *sizes, const sy_expr *const *strides);
/* TensorIterator output strides for tensor operands ops[0..nops) (NULL
 * entries: Python scalars, 0-dim operands) broadcast to sizes (ndim): exact at every size the
 * guards accept (a layout that depends on sizes is one expression per stride, no guard); *out
 * NULL when an operand's strides are not modelled or the case split is past its bounds */
sy_status op_ti_strides(opcall *c, size_t nops, const sy_tensor *const *ops, size_t ndim, const sy_expr *const *sizes,
                        const sy_expr *const **out);
/* the strides of empty_like(x) with MemoryFormat::Preserve (clone, a dtype conversion), as exact
 * as op_ti_strides */
sy_status op_preserve_strides(opcall *c, const sy_tensor *x, const sy_expr *const **out);
/* view of x as shape (n) (computeStride): the output tensor into *c->out, or *ok = 0 when not
 * viewable at these sizes (the caller's error); SY_EUNSUPPORTED when x's strides are not
 * modelled. The decisions the facts leave open are split case by case (bounded, layout.c
 * view_always): when every case is viewable, no guard is taken and the output's strides are
 * deferred as a reshape's; else they are decided at the example (guards). */
sy_status op_view_result(opcall *c, const sy_tensor *x, size_t n, const sy_expr *const *shape, int *ok);
/* reshape / flatten of x to shape (n): the output tensor into *c->out. A view when
 * computeStride succeeds, else a contiguous copy (TensorShape.cpp reshape); the shape is the
 * same either way, so when the facts alone do not decide the view (or x's strides are
 * deferred), the output's strides are deferred: the tensor has strides NULL and remembers x,
 * and the decisions (guards, with the reshape's provenance) are taken only when an op
 * observes them (op_strides, sy_layout_force_args). */
sy_status op_reshape_strides(opcall *c, const sy_tensor *x, size_t n, const sy_expr *const *shape);
/* the strides of t (*out NULL: not modelled); a deferred reshape result's are decided now */
sy_status op_strides(opcall *c, const sy_tensor *t, const sy_expr *const **out);
/* 1 when t's strides are deferred (not decided yet) */
int sy_layout_is_deferred(const sy_env *env, const sy_tensor *t);
/* dispatcher hook before the op runs: when the op observes its inputs' strides (its layout
 * class and name: layout.c), the deferred tensors among c's arguments are replaced by copies
 * with their strides decided */
sy_status sy_layout_force_args(opcall *c);
/* dispatcher hook after the op ran: an op that carries deferred strides through (a view, an
 * elementwise op: layout.c) gets its results with strides NULL recorded as deferred, to be
 * decided by running the op again on the decided inputs when observed */
sy_status sy_layout_defer_results(opcall *c);
/* the broadcast binary elementwise op of c on a and b (tensors or numbers): result dtype,
 * broadcast sizes and TensorIterator layout into *c->out (ops_elementwise.c) */
sy_status sy_elementwise_binary(opcall *c, const sy_value *a, const sy_value *b);
/* x[idx] for a tensor x: ints select, slices narrow, None inserts a dim, one Ellipsis
 * expands (ops_shape.c; the getitem op of ops_scalar.c calls it) */
sy_status sy_tensor_getitem(opcall *c, const sy_tensor *t, const sy_value *idx);
/* nonzero of x (ops_index.c): [u, ndim] int64, column-major; as_tuple: ndim (at least 1) int64
 * tensors [u]; u a new unbacked symbol. where(condition) with one argument is the tuple. */
sy_status sy_nonzero(opcall *c, const sy_tensor *x, int as_tuple);
/* x[...] with a tensor, list or bool item: advanced indexing (ops_advindex.c) */
sy_status sy_tensor_getitem_adv(opcall *c, const sy_tensor *t, const sy_value *items, size_t n);
/* the layout of an elementwise unary op's result (ops_elementwise.c) */
sy_status sy_unary_layout(opcall *c, const sy_tensor *x, sy_dtype dt);
/* Memory formats (layout.c; c10/core/MemoryFormat.h, TensorImpl.cpp): fmt 'c' contiguous_format,
 * '4' channels_last (4-D), '5' channels_last_3d (5-D). sy_layout_memfmt_arg reads an op's
 * memory_format argument ('p' when absent, None or torch.preserve_format; an error names any
 * other value). sy_layout_dense_strides: the strides of a fresh tensor of that format
 * (empty_tensor_restride; get_channels_last_strides_2d/_3d: plain products, no max(size, 1)),
 * NULL on error. sy_layout_is_contiguous: the boolean t.is_contiguous(memory_format=fmt)
 * (compute_contiguous / compute_channels_last_contiguous_2d / _3d; false for a channels_last
 * format of another rank). sy_layout_strides_like_cl: the boolean is_channels_last_strides_2d_s4
 * (4-D) / _3d_s5 (5-D) that suggest_memory_format() reads (false for other ranks). t must have
 * strides; the booleans are NULL on error. */
sy_status sy_layout_memfmt_arg(opcall *c, size_t pos, char *fmt);
const sy_expr *const *sy_layout_dense_strides(opcall *c, size_t ndim, const sy_expr *const *sizes, char fmt);
const sy_expr *sy_layout_is_contiguous(opcall *c, const sy_tensor *t, char fmt);
const sy_expr *sy_layout_strides_like_cl(opcall *c, const sy_tensor *t);
/* dispatcher hook: apply the op's layout class (c->layout_cls) to c->out */
sy_status sy_layout_after_call(opcall *c);
/* wrap a python dim index (negative allowed) into [0, ndim) */
sy_status op_wrap_dim(opcall *c, int64_t dim, size_t ndim, size_t *out);
/* broadcast two shapes (PyTorch infer_size) */
sy_status op_broadcast(opcall *c, const sy_expr *const *a, size_t na, const sy_expr *const *b, size_t nb,
                       const sy_expr ***out, size_t *nout);
const sy_expr *KI(opcall *c, int64_t v);
/* memcpy that accepts a NULL source or destination when nothing is copied
 * (a 0-dim tensor has no sizes array; memcpy(NULL, NULL, 0) is undefined) */
#define SY_COPY(dst, src, bytes)                 \
    do {                                         \
        size_t sy_copy_n_ = (bytes);             \
        if (sy_copy_n_) memcpy((dst), (src), sy_copy_n_); \
    } while (0)

/* ---- helpers of the op files added for the wider surface (ops_util.c) */
/* a tuple (list value) of n tensors as the op's result */
sy_status op_set_tuple(opcall *c, size_t n, const sy_tensor *const *ts);
/* wrap a dim index as maybe_wrap_dim(dim, ndim, wrap_scalar=true): a 0-d
 * tensor accepts 0 and -1 (out = 0) */
sy_status op_wrap_dim0(opcall *c, int64_t dim, size_t ndim, size_t *out);
/* dims argument of a reduction: None or [] = all dims (*all = 1), an int or a
 * list of constant ints (wrapped, no repeats); sel has ndim entries (<= 64) */
sy_status op_dims_mask(opcall *c, const sy_value *dv, size_t ndim, bool *sel, int *all);
/* sizes with the selected dims removed (keep = 0) or set to 1 (keep = 1) */
sy_status op_reduced(opcall *c, const sy_tensor *x, const bool *sel, int keep, const sy_expr ***out, size_t *n);
/* product of the sizes */
const sy_expr *op_numel(opcall *c, const sy_tensor *t);
/* "(a, b, c)": n sizes as PyTorch prints a shape tuple (env-owned; "?" on
 * allocation failure) */
const char *op_show_sizes(opcall *c, size_t n, const sy_expr *const *sizes);
/* requirement a == b with the message "WHAT: A != B" */
sy_status op_require_eq(opcall *c, const sy_expr *a, const sy_expr *b, const char *what);
/* requirement that a dim of size cur expands in place to target (ATen inferExpandGeometry,
 * expand_inplace, an in-place add_ of a broadcast operand): Or(cur == 1, cur == target), with
 * ATen's message naming dim (the result's dim index); nothing when cur is target */
sy_status op_require_expands(opcall *c, const sy_expr *cur, const sy_expr *target, size_t dim);
/* a copy of x's sizes in the env arena (n + extra slots) */
const sy_expr **op_sizes_copy(opcall *c, const sy_tensor *x, size_t extra);
/* the string argument (or def when absent or None); error when not a string */
sy_status op_str_def(opcall *c, size_t pos, const char *kw, const char *def, const char **out);
/* the float value of a number argument (int constants allowed) */
sy_status op_num_def(opcall *c, size_t pos, const char *kw, double def, double *out);
int op_is_floating(sy_dtype d);
int op_is_complex(sy_dtype d);

/* ---- the op registry: one row per op (docs/ops.md, "Adding an op")
 *
 * Each ops_*.c file ends with its table of rows, SQLite FUNCTION(...)-style:
 *   OP_ROW("name", handler, flags, layout class, "the PyTorch kernel it follows")
 * Trailing fields may be left out: 0 flags, OPL_DEFAULT, no kernel recorded
 * (the handler's comment cites it). A name is in one row of one table (the
 * test shapeenv_optable checks it, and that every row has a handler). */
enum {
    OP_IMPURE = 1, /* not a function of the argument shapes and the facts: reads real data
                    * values or makes unbacked symbols; the trace's op memo never reuses it */
    OP_MEMO = 2,   /* its shape work costs more than the memo's key and lookup: convolutions and
                    * pooling 10^4 to 10^5 instructions a call, batch_norm or relu about 2000,
                    * against a key of a few hundred (callgrind: resnet50, inception_v3 gain;
                    * googlenet, squeezenet1_0 a small loss). Only these are memoized. */
    OP_CARRIES = 4 /* carries deferred strides through (layout.c sy_layout_defer_results): its
                    * result's sizes never depend on its inputs' strides, it raises no error on
                    * them, a tensor argument with strides NULL gives results with strides NULL,
                    * and running it again on the decided inputs is pure. getitem: basic
                    * indexing only; an OP_IMPURE row: only when no argument but the first is a
                    * tensor (tensor_split with int sections). */
};
/* The layout class: what the dispatcher does with the strides of the op's result
 * (layout.c, sy_layout_after_call; verified on the CPU by tests/shapeenv/strides_torch.py). */
enum {
    OPL_DEFAULT = 0, /* contiguous when every tensor argument is contiguous, else not modelled */
    OPL_OWN,         /* the op computes its output strides itself (op_set_strided) */
    OPL_FRESH,       /* always a new contiguous tensor */
    OPL_MEMFMT,      /* allocated in suggest_memory_format(): contiguous unless a 4-D/5-D
                      * argument may be strided like channels_last */
    OPL_VIEW         /* a view whose strides symshape does not compute: not modelled */
};
typedef struct {
    const char *name;   /* first member: the row is indexed by it (sy_strindex) */
    opfn fn;
    unsigned flags;     /* OP_IMPURE, OP_MEMO, OP_CARRIES */
    int layout;         /* OPL_* */
    const char *kernel; /* the PyTorch source it follows ("file function"), NULL: see the handler */
} opentry;
/* A row: OP_ROW("name", handler[, flags[, layout[, "kernel"]]]); the fields left out are 0,
 * OPL_DEFAULT, NULL. A table ends with OP_END. */
#define OP_ROW(...) OP_ROW_(__VA_ARGS__, 0, 0, 0, ~)
#define OP_ROW_(name, fn, flags, layout, kernel, ...) {name, fn, flags, layout, kernel}
#define OP_END {NULL, NULL, 0, 0, NULL}
/* every table, NULL-terminated, in lookup order (ops.c) */
extern const opentry *const sy_op_tables[];
/* the row of op name, or NULL */
const opentry *sy_env_op_row(const char *name);
extern const opentry sy_ops_elementwise[], sy_ops_nn[], sy_ops_shape[], sy_ops_scalar[];
extern const opentry sy_ops_dynamic[];
/* issue 12: recurrent layers, reductions with indices, index/shape patterns, more nn/factory/linalg ops */
extern const opentry sy_ops_rnn[], sy_ops_reduce[], sy_ops_index[], sy_ops_misc[], sy_ops_pointwise[],
    sy_ops_extra[];
/* issue 32: advanced (tensor) indexing (ops_advindex.c) */
extern const opentry sy_ops_advindex[];
/* issue 32: torchvision's torch.fx-wrapped helpers (ops_torchvision.c) */
extern const opentry sy_ops_torchvision[];
#endif
