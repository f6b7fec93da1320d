/**
 * @file symshape/graph.h
 * @brief Model graphs (../shared/graph-format.md, "symshape.graph" version 1),
 *        the graph interpreter over a shape environment, and real values at
 *        concrete sizes (get_real_value).
 */
#ifndef SYMSHAPE_GRAPH_H
#define SYMSHAPE_GRAPH_H
#include "symshape/tensor.h"

SY_BEGIN_DECLS

typedef struct sy_graph sy_graph;

/** Read a graph document. Errors name the place: malformed JSON with
 *  line/column, unknown format or version, a node without name/op, a dangling
 *  or forward `ref` (node named), a wrong field type.
 *  @param[out] out GIVE: free with sy_graph_free.
 *  @retval SY_OK @retval SY_EFORMAT @retval SY_EVERSION @retval SY_ENOMEM */
SY_API sy_status sy_graph_load_file(sy_ctx *ctx, const char *path, SY_GIVE sy_graph **out);
/** Same from memory (@p len bytes); @p name is used in messages. */
SY_API sy_status sy_graph_load_text(sy_ctx *ctx, const char *text, size_t len, const char *name, SY_GIVE sy_graph **out);
SY_API sy_graph *sy_graph_free(SY_TAKE SY_NULL sy_graph *g);

/** Model name (the document's "name", or the file name); KEEP. */
SY_API const char *sy_graph_name(const sy_graph *g);
/** The PyTorch release the graph was captured with, from its "torch_version"
 *  (docs/graph-format.md), as major * 100 + minor (113 for "1.13.0a0", 214 for
 *  "2.14.1+cu130"); 0 when the graph has none or @p g is NULL. sy_env_trace makes
 *  the env follow that release's kernels (sy_env_set_torch_version). */
SY_API int sy_graph_torch_version(const sy_graph *g);
SY_API size_t sy_graph_nnodes(const sy_graph *g);
SY_API const char *sy_graph_node_name(const sy_graph *g, size_t i);
SY_API const char *sy_graph_node_op(const sy_graph *g, size_t i);
/** The user source location of node @p i (its optional "loc" field,
 *  docs/graph-format.md), or NULL when the node has none or @p i is out of
 *  range. KEEP: lives as long as the graph. */
SY_API const sy_loc *sy_graph_node_loc(const sy_graph *g, size_t i);
/** 1 when a later node or the graph's outputs refer to node @p i (a `ref`),
 *  0 otherwise or out of range. An input nothing reads gets no guard
 *  (sy_gset_produce). */
SY_API int sy_graph_node_read(const sy_graph *g, size_t i);
/** Index of the node named @p name, or -1. */
SY_API long sy_graph_find(const sy_graph *g, const char *name);
/** The nodes node @p i reads (its `ref`s in args and kwargs, nested lists
 *  and slices included, in document order, repeats kept): writes at most
 *  @p cap indexes (all earlier than i) to @p out and returns how many there
 *  are (possibly more than cap; 0 out of range). For drawing the graph. */
SY_API size_t sy_graph_node_refs(const sy_graph *g, size_t i, long *out, size_t cap);
/** The nodes the graph's outputs refer to (their `ref`s, nested lists included, in document
 *  order, repeats kept): writes at most @p cap indexes to @p out and returns how many there are
 *  (possibly more than cap; 0 for NULL). */
SY_API size_t sy_graph_output_refs(const sy_graph *g, long *out, size_t cap);

/** The dynamic-dim spec of one input: the command-line form
 *  `NAME=ENTRY,ENTRY,...` with ENTRY `DIM[:DIMNAME][@[MIN]..[MAX]]`, e.g.
 *  `x=0:batch@1..1024,2:h,3:w` (an empty list `x=` makes every dim static). */
typedef struct sy_input_spec {
    const char *input;       /**< input name */
    size_t ndims;
    const sy_dim_spec *dims; /**< in the order given; dim indexes distinct */
} sy_input_spec;

/** Parse the command-line form (@p len bytes of @p text, or up to its NUL when
 *  @p len is (size_t)-1). The same parser serves the CLI's --dynamic, the ONNX
 *  reader and the Python binding's dynamic=.
 *  @param[out] out GIVE: free with sy_input_spec_free (one allocation owns the
 *              strings and the dims).
 *  @retval SY_OK
 *  @retval SY_EFORMAT the message names the column (1-based) and what was
 *          expected: a missing '=' or input name, a dim that is not a
 *          non-negative integer or is > 63, a bad or empty DIMNAME, a bound
 *          that is not a non-negative int64, a missing '..', MIN > MAX, a dim
 *          listed twice, a trailing ','.
 *  @retval SY_ENOMEM @retval SY_EINVAL NULL argument */
SY_API sy_status sy_input_spec_parse(sy_ctx *ctx, const char *text, size_t len, SY_GIVE sy_input_spec **out);
/** Free a parsed spec; accepts NULL; returns NULL. */
SY_API sy_input_spec *sy_input_spec_free(sy_ctx *ctx, SY_TAKE SY_NULL sy_input_spec *s);
/** The spec in the command-line form (re-parseable); GIVE: sy_str_free. */
SY_API SY_GIVE char *sy_input_spec_print(sy_ctx *ctx, const sy_input_spec *s);

/** An input's declared layout (its optional "strides" field, docs/graph-format.md). */
typedef enum sy_input_layout {
    SY_LAYOUT_CONTIGUOUS = 0,    /**< "contiguous", and the default when the field is absent */
    SY_LAYOUT_CHANNELS_LAST,     /**< "channels_last" (4-D): strides (H*W*C, 1, W*C, C) */
    SY_LAYOUT_CHANNELS_LAST_3D,  /**< "channels_last_3d" (5-D): (D*H*W*C, 1, H*W*C, W*C, C) */
    SY_LAYOUT_EXPLICIT           /**< a list of ndim non-negative integers */
} sy_input_layout;

/** A graph input (op "input"). */
typedef struct sy_graph_input {
    const char *name;
    sy_dtype dtype;
    size_t ndim;
    const int64_t *shape;   /**< example sizes (ndim) */
    const int *dynamic;     /**< ndim flags: 1 if the dim is listed in "dynamic" */
    size_t node;            /**< node index */
    size_t nspec;           /**< entries of "dynamic", in document order */
    const sy_dim_spec *spec; /**< each entry (a bare index: no name, no bounds) */
    int strides_given;       /**< 1 if the node has a "strides" field */
    sy_input_layout layout;  /**< the declared layout (SY_LAYOUT_CONTIGUOUS without the field) */
    const int64_t *strides;  /**< SY_LAYOUT_EXPLICIT: the ndim strides (elements); else NULL */
} sy_graph_input;
SY_API size_t sy_graph_ninputs(const sy_graph *g);
SY_API const sy_graph_input *sy_graph_input_at(const sy_graph *g, size_t i);

/** Overrides of the graph's dynamic lists and the env policies. */
typedef struct sy_trace_override {
    const char *input;      /**< input name */
    int make_static;        /**< 1: every dim static */
    size_t ndims;           /**< dims listed as dynamic (replaces the graph's list) */
    const int *dims;
    const sy_input_spec *spec; /**< when not NULL: replaces the graph's list and @p dims
                                    (spec->input is not consulted: @p input selects the input) */
} sy_trace_override;

typedef struct sy_trace sy_trace;

/** Run the graph over @p env: inputs become fake tensors (dynamic dims get
 *  DUCK symbols, declared dims (sy_dim_spec) their named symbols
 *  (sy_env_create_symbol_spec), the others are static), each node's op is dispatched through
 *  sy_env_call with the node as provenance. @p ov: @p nov overrides (may be 0).
 *  @param[out] out GIVE (free with sy_trace_free); the values live in env.
 *  @retval SY_OK
 *  @retval SY_EUNSUPPORTED unknown op (message: node and op)
 *  @retval SY_EINVAL an op failed (message: node, op, reason), or a declared
 *          dim does not fit its spec at the example (outside its range, or
 *          two dims of one name with different example sizes; message: the
 *          input, the dim, the name) */
SY_API sy_status sy_env_trace(sy_env *env, const sy_graph *g, size_t nov, const sy_trace_override *ov,
                              SY_GIVE sy_trace **out);
SY_API sy_trace *sy_trace_free(SY_TAKE SY_NULL sy_trace *t);
/** Counts of the trace's op memo (shapeenv/trace.c says when a node's op
 *  result is reused and why that gives the same answer). */
typedef struct sy_trace_memo_stats {
    size_t lookups; /**< nodes of a pure op whose arguments the memo could key */
    size_t hits;    /**< of those, nodes that reused an earlier node's result */
    size_t stored;  /**< results stored for reuse */
    size_t refused; /**< calls not stored: a guard, fact, symbol, unknown or flag change */
} sy_trace_memo_stats;
/** The memo counts of trace @p t, in nodes, copied into @p out (caller-owned;
 *  NULL: nothing is written). All 0 for a NULL @p t, or with SY_TRACE_MEMO=0
 *  in the process environment, which turns the memo off. Reports no error. */
SY_API void sy_trace_get_memo_stats(const sy_trace *t, sy_trace_memo_stats *out);
/** Value of node @p i (KEEP; lives with the env). */
SY_API const sy_value *sy_trace_value(const sy_trace *t, size_t i);
SY_API size_t sy_trace_noutputs(const sy_trace *t);
SY_API const sy_value *sy_trace_output(const sy_trace *t, size_t i);

/** Real values: the concrete value of any node at concrete input sizes,
 *  computed by running the graph prefix up to that node with every size a
 *  constant (independent of any symbolic run), memoized per node and
 *  invalidated when the bindings change. */
typedef struct sy_realvals sy_realvals;
SY_API SY_GIVE sy_realvals *sy_realvals_new(sy_ctx *ctx, const sy_graph *g);
SY_API sy_realvals *sy_realvals_free(SY_TAKE SY_NULL sy_realvals *rv);
/** Bind input @p name to the shape (@p ndim sizes). Rank must match the
 *  graph's input (SY_EINVAL otherwise; SY_EINVAL for an unknown name).
 *  Invalidates the memo. */
SY_API sy_status sy_realvals_bind(sy_realvals *rv, const char *name, size_t ndim, const int64_t *shape);
/** get_real_value: value of node @p i at the bound sizes. Values are KEEP
 *  until the next bind. Every input must be bound (SY_EINVAL).
 *  @retval SY_EINVAL an op fails at these sizes (message: node, op, reason:
 *          e.g. an _assert message) — the graph cannot run there. */
SY_API sy_status sy_realvals_get(sy_realvals *rv, size_t i, SY_KEEP const sy_value **out);
/** The graph outputs at the bound sizes (sy_realvals_get of each output). */
SY_API sy_status sy_realvals_output(sy_realvals *rv, size_t i, SY_KEEP const sy_value **out);
SY_API size_t sy_realvals_noutputs(const sy_realvals *rv);
/** Memo statistics: nodes computed and lookups answered from the memo. */
SY_API void sy_realvals_stats(const sy_realvals *rv, size_t *computed, size_t *hits);

SY_END_DECLS
#endif
