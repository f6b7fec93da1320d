/**
 * @file symshape/env.h
 * @brief The shape environment (ShapeEnv): symbols created from example
 *        sizes, evaluation of size expressions against their hints, guard
 *        recording with provenance, unbacked symbols and runtime asserts.
 *        PyTorch's torch/fx/experimental/symbolic_shapes.py ShapeEnv, in C.
 *        See docs/shapeenv.md.
 *
 * Lifetime: an environment borrows its context (KEEP) and must be freed
 * before it. Everything an environment returns (tensors, strings, guard
 * records) lives until sy_env_free unless stated otherwise. Not thread-safe.
 */
#ifndef SYMSHAPE_ENV_H
#define SYMSHAPE_ENV_H
#include "symshape/decide.h"

SY_BEGIN_DECLS

typedef struct sy_env sy_env;

/** How a dimension of an input becomes an expression. */
typedef enum sy_dim_policy {
    SY_DIM_DUCK = 0,    /**< default: a symbol shared with every other duck dim of the same example size */
    SY_DIM_DYNAMIC = 1, /**< a fresh symbol of its own */
    SY_DIM_STATIC = 2   /**< the example value as a constant */
} sy_dim_policy;

/** "No bound" for sy_dim_spec's min and max. */
#define SY_DIM_SPEC_UNSET (-1)

/** One dim of a dynamic-dim spec: torch.export's `Dim(name, min=, max=)`
 *  attached to a dim (docs/graph-format.md "Dynamic-dim spec", docs/shapeenv.md).
 *  A dim with a name or a bound is *declared*: it gets a symbol of its own
 *  (never duck-sized with a dim of another name), every dim of one name shares
 *  one symbol, its range is [min, max] (default [2, oo) under 0/1
 *  specialization, [0, oo) without it; a declared min <= 1 turns 0/1
 *  specialization off for it) and the guard set is checked against it
 *  (violations, sy_gset_violations in gset.h). A dim with neither is listed as dynamic
 *  exactly as a bare index (duck sizing applies). */
typedef struct sy_dim_spec {
    size_t dim;          /**< dim index */
    const char *name;    /**< the Dim's name ([A-Za-z_][A-Za-z0-9_]*) or NULL */
    int64_t min;         /**< declared lower bound (>= 0) or SY_DIM_SPEC_UNSET */
    int64_t max;         /**< declared upper bound (> min when both are set: one size is a static dim, as
                              torch.export's Dim asserts) or SY_DIM_SPEC_UNSET */
} sy_dim_spec;

/** 1 when @p d has a name or a bound (a declared dim). */
SY_API int sy_dim_spec_declared(const sy_dim_spec *d);

#define SY_ENV_OPTIONS_VERSION 1u
typedef struct sy_env_options {
    unsigned version;        /**< SY_ENV_OPTIONS_VERSION */
    int duck_sizing;         /**< 1 (default): SY_DIM_DUCK shares symbols by example value; 0: DUCK acts as DYNAMIC */
    int specialize_zero_one; /**< 1 (default): example sizes 0 and 1 become constants and size symbols get [2, oo); 0: sizes get [0, oo) */
} sy_env_options;
#define SY_ENV_OPTIONS_INIT {SY_ENV_OPTIONS_VERSION, 1, 1}

/** Create an environment over @p ctx (KEEP). @p opts NULL: defaults.
 *  Returns NULL on SY_ENOMEM / SY_EVERSION (recorded in ctx). GIVE. */
SY_API SY_GIVE sy_env *sy_env_new(sy_ctx *ctx, const sy_env_options *opts);
/** Free; accepts NULL; returns NULL. */
SY_API sy_env *sy_env_free(SY_TAKE SY_NULL sy_env *env);
SY_API SY_KEEP sy_ctx *sy_env_ctx(const sy_env *env);
/** The options @p env was created with (defaults filled in). KEEP: owned by the env, valid
 *  while it lives; NULL when @p env is NULL. Reports no error. */
SY_API const sy_env_options *sy_env_opts(const sy_env *env);
/** 1 when a traced op read strides (Tensor.stride(), is_contiguous()): guard production then
 *  emits the contiguous-stride guards of inputs with no declared strides; 0 otherwise, and
 *  for NULL. Reports no error. */
SY_API int sy_env_strides_read(const sy_env *env);
/** Release the heap memos of @p env and of its facts (the products of sizes, the touched-node
 *  set, sy_facts_drop_memos): they only save recomputation, so no answer changes and a later
 *  call refills them. Guard production calls it, so that the trace's memos are not part of
 *  the guard phase's peak memory. Accepts NULL; reports no error. */
SY_API void sy_env_drop_memos(sy_env *env);
/** Past this many tree nodes, sy_env_show and the guard set's texts show an expression in
 *  the let-form (sy_expr_print_let, shared subterms named once) instead of the canonical text. */
#define SY_SHOW_LET_NODES 100000u
/** The facts the environment has accumulated (ranges, guards as facts,
 *  replacements). KEEP: owned by the env. To reason with them while tracing, use
 *  sy_env_simplify, sy_env_bound or the decisions below, never sy_simplify / sy_bound /
 *  sy_decide on these facts directly: those do not mark the symbols whose ranges the
 *  answer relied on, so guard production would leave out their range guards (such as
 *  0/1 specialization's `2 <= s`), and the guard set would accept sizes the answer is
 *  wrong at. */
SY_API SY_KEEP sy_facts *sy_env_facts(sy_env *env);
/** @p e simplified under the env's facts (sy_simplify), for an expression the trace goes on
 *  with. When the result differs from @p e, the free symbols of @p e are marked as relied
 *  upon (sy_env_symbol_touched), since the rewrite may hold only in their ranges: slicing
 *  x[2:] of a size s is s - 2 only for s >= 2. KEEP: hash-consed in the env's context.
 *  NULL on error (SY_EQUOTA when a budget trips, SY_ENOMEM; the error is in the context),
 *  or for NULL @p env or @p e. */
SY_API const sy_expr *sy_env_simplify(sy_env *env, const sy_expr *e);
/** Bounds of the integer expression @p e under the env's facts (sy_bound: *lo / *hi NULL
 *  for -oo / +oo, KEEP), and the free symbols of @p e marked as relied upon when a bound
 *  is finite. Errors as sy_bound: SY_EINVAL (a NULL argument, or @p e boolean), SY_EDIVZERO
 *  (a divisor of @p e may be zero), SY_EQUOTA, SY_ENOMEM. */
SY_API sy_status sy_env_bound(sy_env *env, const sy_expr *e, const sy_expr **lo, const sy_expr **hi);

/** A user source location: the innermost frame of the model's own code (not
 *  torch) that ran a graph node, as the exporter records it in the node's
 *  optional "loc" field (docs/graph-format.md). PyTorch's ShapeEnv prints the
 *  same as a guard's "sloc". @p file NULL means unknown; @p line is 1-based,
 *  0 when unknown; @p function may be NULL. */
typedef struct sy_loc {
    const char *file;
    long line;
    const char *function;
} sy_loc;

/** Why a guard was recorded: the graph node, the op, the reason. All strings
 *  are copied by the env; NULL fields are allowed. */
typedef struct sy_provenance {
    const char *node;   /**< graph node name, e.g. "cat_4" */
    const char *op;     /**< op name, e.g. "cat" */
    const char *reason; /**< e.g. "cat: sizes of dim 2 must match", an _assert message */
} sy_provenance;

/** Create the expression of one input dimension from its example value.
 *  @param source its source in PyTorch notation, e.g. "x.size()[2]" (copied),
 *  or NULL (none). **One symbol per source**: a symbol is read by its first source (the
 *  env's texts, the legends of the guard set's runtime asserts, verify's names, probe),
 *  and a guard set checks one value per source, so a source another symbol of the env
 *  already has (created for it, or registered by sy_env_input_exprs) and a source spelled
 *  like a symbol's own name (`s<k>`, `u<k>`: "s1" would read as the symbol s1, and a guard
 *  s0 == s1 as s1 == s1) are refused. A source the returned symbol already has (duck
 *  sizing, a Dim name) is fine.
 *  @return a symbol (sN, range [2, oo) under 0/1 specialization, else
 *  [0, oo)), or an integer constant for STATIC dims and for examples 0 and 1
 *  under 0/1 specialization. NULL with SY_EINVAL for a negative example or a
 *  refused source (the message names it and the symbol that has it).
 *  A symbol remembers every source it was created for (duck sizing). */
SY_API const sy_expr *sy_env_create_symbol(sy_env *env, int64_t example, const char *source, sy_dim_policy policy);

/** Create the expression of a declared input dimension (@p spec; its dim
 *  field is not used). @p spec NULL or not declared (sy_dim_spec_declared):
 *  exactly sy_env_create_symbol(.., SY_DIM_DUCK).
 *  Otherwise the dim gets a symbol that duck sizing never shares; every call
 *  with the same name returns the same symbol (the dims are declared
 *  equal, as sharing a Dim). Its range is [min, max]: an unset min is 2 under
 *  0/1 specialization (0 without it), an unset max is oo. An example of 0 or
 *  1 below the range's min is 0/1-specialized to a constant (reported as a
 *  violation of the spec by the guard set); inside the range it stays
 *  symbolic. Bounds given again for a name must agree with the first.
 *  @retval the symbol or constant; NULL with SY_EINVAL when the example lies
 *  above max or below a declared min, when a name is reused with another
 *  example or other bounds, the example is negative, or the source is refused
 *  as by sy_env_create_symbol (message names the source and the spec). */
SY_API const sy_expr *sy_env_create_symbol_spec(sy_env *env, int64_t example, const char *source,
                                                const sy_dim_spec *spec);

/** A new unbacked symbol (u0, u1, ...) for a data-dependent size: no hint;
 *  range [0, oo) when @p size_like, else unbounded. */
SY_API const sy_expr *sy_env_create_unbacked(sy_env *env, int size_like, const char *source);

/** The hint (example value) of an expression: *out is an integer constant or
 *  true/false. @retval SY_OK @retval SY_EINVAL the expression mentions an
 *  unbacked symbol (message names it) @retval SY_EDIVZERO */
SY_API sy_status sy_env_hint(sy_env *env, const sy_expr *e, const sy_expr **out);

/** evaluate_expr: the concrete value of @p e under the example. When the
 *  facts already decide it, nothing is recorded. Otherwise a guard is
 *  recorded (the relation or its negation for booleans, Eq(e, value) for
 *  integers), added to the facts, and the value returned. A guard equal to
 *  one already recorded is merged: provenance appended, count incremented.
 *  @retval SY_OK @retval SY_EINVAL e depends on an unbacked symbol the facts
 *  cannot decide (message names the expression and the symbol). */
SY_API sy_status sy_env_evaluate_expr(sy_env *env, const sy_expr *e, const sy_provenance *why, const sy_expr **out);

/** Require @p rel to hold (an op's validity check or `_assert`): like
 *  evaluate_expr, but when the hint says the relation is false the call fails
 *  with SY_EINVAL and the message (the example itself is invalid). With an
 *  unbacked symbol the relation becomes a deferred runtime assert. */
SY_API sy_status sy_env_require(sy_env *env, const sy_expr *rel, const sy_provenance *why);

/** What the model needed where the trace failed at the example (issue 32): the relation of the last
 *  sy_env_require that was false at the example, or Eq(a, b) for a broadcast of two sizes that
 *  differ there (shapeenv/rules.c); NULL when none failed. KEEP (the context's). Read by the ONNX
 *  frontend's related-example retry (sy_onnx_trace_relate) to choose an example the model runs at. */
SY_API const sy_expr *sy_env_failed_relation(const sy_env *env);
/** Record @p rel as what the model needed (sy_env_failed_relation), for a rule that fails at the example
 *  without a sy_env_require (a broadcast of two sizes that differ). @p rel KEEP: an expression of the
 *  env's context (hash-consed, it lives as long as the context); it replaces an earlier one, NULL
 *  clears it. A NULL @p env does nothing. No error. */
SY_API void sy_env_set_failed_relation(sy_env *env, const sy_expr *rel);

/** Decide @p rel at the example as evaluate_expr does, for a condition that is a limit of
 *  symshape's own formula, not of the model (the range where an exact formula for a float
 *  product is proven, algebra/flscale.c): a guard recorded now has an origin with limit = 1,
 *  which the dynamic-dim spec check does not report as a violation (docs/guards.md).
 *  @p out: the relation's value at the example (true / false), as evaluate_expr.
 *  @retval SY_OK @retval SY_EINVAL as evaluate_expr (a NULL argument, an undecided unbacked symbol) */
SY_API sy_status sy_env_evaluate_limit(sy_env *env, const sy_expr *rel, const sy_provenance *why, const sy_expr **out);

/** Check the integer @p e, a size a runtime stores in an int64 (a dim),
 *  against int64: one rule for both frontends (the torch frontend's tensors,
 *  the ONNX frontend's output dims). SY_EOVERFLOW when it is a constant past
 *  int64 or never fits (its least value under the facts is past INT64_MAX,
 *  e.g. 2**64*s0). A size that exceeds int64 only at some sizes is decided
 *  again with every input tensor's numel within int64 (a fact: the input
 *  exists); where it still may exceed it, records the guard
 *  `e <= INT64_MAX` (docs/shapeenv.md), and fails with SY_EOVERFLOW when the
 *  example sizes themselves do not fit. A size reading an unbacked symbol is
 *  not guarded.
 *  @param what names @p e in the message, e.g. "output dim 1" (NULL: "size").
 *  @param why the node and op the guard's origin names (NULL: the op call
 *         being run, sy_env_call's node and op, as for the tensors it makes;
 *         outside a call, op "int64").
 *  @retval SY_OK @retval SY_EOVERFLOW @retval SY_EINVAL NULL env or e, or e boolean. */
SY_API sy_status sy_env_require_int64(sy_env *env, const sy_expr *e, const char *what, const sy_provenance *why);

/** Set the user source location of the code being run (PyTorch's "sloc"):
 *  every guard recorded from now until the next call carries it in its
 *  origin (sy_guard_origin.loc). The graph interpreter sets it to each node's
 *  "loc" before running the node and clears it after. @p loc NULL (or
 *  loc->file NULL) clears it.
 *  @param loc KEEP: the strings must stay valid until the next call or until
 *         the env is freed; they are copied into a guard's origin only when a
 *         guard is recorded.
 *  No allocation, cannot fail. */
SY_API void sy_env_set_loc(sy_env *env, const sy_loc *loc);

/** Set the provenance of the typed op calls (sy_op_matmul, sy_op_add, sy_op_cat, sy_op_view,
 *  sy_op_conv2d, tensor.h), which take none: each guard or requirement they record from now
 *  until the next call names @p where's node (and its reason, when the op gives none), with
 *  the call's own op ("matmul"; where->op is not read), so that a C consumer's report names
 *  its nodes instead of "node ?". With sy_env_set_loc for the source line, a C
 *  program gives its ops the provenance the graph interpreter gives each node. sy_env_call
 *  is not affected (it takes its provenance as an argument). @p where NULL (or all its
 *  fields NULL) clears it.
 *  @param where KEEP: the struct is copied, its strings are borrowed: they must stay valid
 *         until the next call or until the env is freed; they are copied into a guard's
 *         origin only when a guard is recorded.
 *  No allocation, cannot fail. */
SY_API void sy_env_set_provenance(sy_env *env, const sy_provenance *where);

/** The PyTorch release whose CPU kernels the ops follow, as major * 100 + minor
 *  (113 for 1.13, 214 for 2.14). 0, the default, is the newest: the 2.x kernels.
 *  Where a 2.x kernel checks or computes a size differently from 1.13 (an op that
 *  raised in 1.13 now runs, or the reverse), an env set to a version below 200
 *  follows 1.13; docs/ops.md "PyTorch 1.13 and 2.x" lists every such op with the
 *  kernel of each version. sy_env_trace sets it from the graph
 *  (sy_graph_torch_version; 0, the newest, for a graph that names none). Versions above 0 and
 *  below 113 are treated as 1.13. No allocation, cannot fail. */
SY_API void sy_env_set_torch_version(sy_env *env, int version);
/** The version set by sy_env_set_torch_version (0: the newest). */
SY_API int sy_env_torch_version(const sy_env *env);
/** Record @p rel as a deferred runtime assert (checked at run time, assumed
 *  true from now on). */
SY_API sy_status sy_env_runtime_assert(sy_env *env, const sy_expr *rel, const sy_provenance *why);

/** A user fact (e.g. x.size(0) == y.size(0)): recorded as a guard with the
 *  origin "assume" and added to the facts, so that later decisions use it and
 *  the guard set checks it. Nothing is recorded when the facts already imply
 *  it. @retval SY_EINVAL it contradicts the facts, or it is false at the
 *  example sizes (the hints). */
SY_API sy_status sy_env_assume(sy_env *env, const sy_expr *rel, const sy_provenance *why);

/** 1 if @p sym appeared in a decision or a guard (its range was relied upon;
 *  guard production emits range guards only for such symbols), 0 otherwise (also for
 *  NULL @p env or a symbol not of @p env). A decision sJ == sK between two backed
 *  symbols that the facts leave open and the example makes true records the guard
 *  sJ == sK and touches neither (it reads no range); the two join an equality class,
 *  and a class is touched as a whole (docs/shapeenv.md section 7). Same for a later
 *  question within one class, and an sy_env_simplify rewrite that only applies the
 *  replacements of classes. */
SY_API int sy_env_symbol_touched(const sy_env *env, const sy_expr *sym);

/** Kinds of recorded guards. */
typedef enum sy_guard_kind {
    SY_GUARD_RELATION = 0,      /**< a decision that depended on the example */
    SY_GUARD_RUNTIME_ASSERT = 1 /**< deferred check on unbacked sizes */
} sy_guard_kind;

/** One provenance entry of a guard. */
typedef struct sy_guard_origin {
    const char *node, *op, *reason;
    unsigned count; /**< how many times this origin produced the guard */
    sy_loc loc;     /**< user source location of the node (file NULL: unknown); strings owned with the record */
    int required;   /**< 1: recorded by sy_env_require (an op's validity check or an `_assert`: the model
                         itself needs the relation, whatever the spec) */
    int limit;      /**< 1: recorded by sy_env_evaluate_limit (a limit of symshape's formula, not of the
                         model: never reported as a violation of the dynamic-dim spec) */
} sy_guard_origin;

/** A recorded guard (KEEP: owned by the env). */
typedef struct sy_guard_record {
    const sy_expr *expr;   /**< canonical boolean expression over symbols */
    sy_guard_kind kind;
    unsigned count;        /**< times recorded in total (>= 1) */
    size_t norigins;
    const sy_guard_origin *origins;
} sy_guard_record;

/** Number of recorded (deduplicated) guards, and the i-th (0-based, in
 *  recording order). */
SY_API size_t sy_env_nguards(const sy_env *env);
SY_API const sy_guard_record *sy_env_guard(const sy_env *env, size_t i);
/** Total guard recordings before deduplication. */
SY_API size_t sy_env_guards_recorded(const sy_env *env);

/** Symbols of the environment in creation order. */
typedef struct sy_symbol_info {
    const sy_expr *sym;
    int unbacked;
    int64_t hint;          /**< example value (0 for unbacked) */
    size_t nsources;
    const char *const *sources; /**< every source it was created for, first first */
    const char *dim_name;  /**< declared Dim name (sy_env_create_symbol_spec) or NULL */
    int declared;          /**< 1: created for a declared dim (named or bounded) */
    int64_t dim_min;       /**< declared range (after defaults): min */
    int64_t dim_max;       /**< max, or -1 for oo */
    const char *display;   /**< the name a frontend shows it by (sy_env_symbol_set_display: the ONNX frontend's
                                dim_param, as infer prints it), or NULL; the report says "symbol NAME" with it */
} sy_symbol_info;
SY_API size_t sy_env_nsymbols(const sy_env *env);
/** Show symbol @p sym of the env by the name of symbol @p display (KEEP: interned in the context, so
 *  its name lives as long as the context). Only the renderers read it: expressions, guards and
 *  decisions keep @p sym's own name.
 *  @retval SY_OK @retval SY_EINVAL @p sym is not a symbol of the env, or @p display is not a symbol. */
SY_API sy_status sy_env_symbol_set_display(sy_env *env, const sy_expr *sym, const sy_expr *display);
SY_API const sy_symbol_info *sy_env_symbol(const sy_env *env, size_t i);
/** The info of a symbol expression, or NULL. */
SY_API const sy_symbol_info *sy_env_symbol_of(const sy_env *env, const sy_expr *sym);

/** Inputs registered with their dims' sources, for guard production. */
typedef struct sy_input_dim {
    const char *source;     /**< "x.size()[2]" */
    const sy_expr *expr;    /**< symbol or constant assigned */
    sy_dim_policy policy;
    int64_t example;
    const sy_dim_spec *spec; /**< the declared spec of this dim (copied, env-owned) or NULL */
} sy_input_dim;

SY_END_DECLS
#endif
