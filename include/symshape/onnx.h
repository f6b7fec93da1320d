/**
 * @file symshape/onnx.h
 * @brief The ONNX frontend: read a `.onnx` model (protobuf, onnx.proto from
 *        libonnx-dev) and trace its graph over a shape environment with the
 *        ONNX operator semantics (onnx/docs/Operators.md, opsets 11-21 of the
 *        default domain). See docs/onnx.md.
 *
 * Reading costs in proportion to the graph, not to the weights: the file is
 * read with pread through a small window, and a pre-scan of the protobuf wire
 * format drops every tensor payload (raw_data, *_data) longer than
 * SY_ONNX_MAX_PAYLOAD bytes before protobuf-c unpacks the rest. The dims and
 * data type of every initializer are kept; the values only of small tensors.
 * The main graph's nodes and initializers are not kept: the load records
 * where each one is (and each initializer's name), and a trace reads, unpacks
 * and releases them one at a time, so the peak memory of a trace is the
 * trace's own state plus one node. A model from
 * sy_onnx_load_file therefore keeps its file open until sy_onnx_free (the file
 * must not change meanwhile: a trace of a changed file fails with SY_EFORMAT
 * or traces the new bytes); one from sy_onnx_load_mem keeps a copy of its
 * nodes (without large payloads).
 *
 * Inputs: a dim_value is a static dim; a dim_param is a symbol, one per
 * distinct name (the same dim_param on several inputs is the same symbol: the
 * guard set checks the equality); a dim with neither gets a fresh symbol.
 * Symbols need an example size (the hint the environment decides branches
 * with): sy_onnx_trace_options.examples, else the example another input
 * gives the same dim_param (SY_EINVAL when two inputs give it different
 * sizes), else SY_ONNX_DEFAULT_EXAMPLE.
 *
 * Built without protobuf-c (CMake SY_WITH_ONNX=OFF or the packages missing),
 * every function that reads or traces fails with SY_EUNSUPPORTED and the
 * message "built without ONNX support"; sy_onnx_available() returns 0.
 *
 * Ownership: a model (GIVE from sy_onnx_load_file) is freed with
 * sy_onnx_free; it borrows its context. A trace (GIVE from sy_env_trace_onnx) is
 * freed with sy_onnx_trace_free, before the env it was traced over and the
 * model (its initializer and input names are the model's); its
 * tensors and expressions live in that env / context. Not thread-safe.
 */
#ifndef SYMSHAPE_ONNX_H
#define SYMSHAPE_ONNX_H
#include "symshape/gset.h"

SY_BEGIN_DECLS

/** Tensor payloads longer than this many bytes are not read (their values
 *  are unknown to the trace; only dims and data type are kept). */
#define SY_ONNX_MAX_PAYLOAD 4096
/** Example size of a symbolic input dim that no example names. */
#define SY_ONNX_DEFAULT_EXAMPLE 224
/** Elements up to which integer tensors carry symbolic element values. */
#define SY_ONNX_MAX_VALUES 64

typedef struct sy_onnx_model sy_onnx_model;

/** 1 when the library was built with the ONNX frontend, else 0. */
SY_API int sy_onnx_available(void);

/** Read a model. Errors name the place: a truncated or corrupt protobuf
 *  (SY_EFORMAT, with the byte offset and the message being read), an opset
 *  of the default domain outside 11-21 or no graph (SY_EUNSUPPORTED /
 *  SY_EFORMAT), a file that cannot be read (SY_EFORMAT, with the reason).
 *  @param[out] out GIVE: free with sy_onnx_free.
 *  @retval SY_OK @retval SY_EFORMAT @retval SY_EUNSUPPORTED @retval SY_ENOMEM */
SY_API sy_status sy_onnx_load_file(sy_ctx *ctx, const char *path, SY_GIVE sy_onnx_model **out);
/** Same from memory (@p len bytes, KEEP: read during the call only); @p name
 *  is used in messages. */
SY_API sy_status sy_onnx_load_mem(sy_ctx *ctx, const void *data, size_t len, const char *name, SY_GIVE sy_onnx_model **out);
SY_API sy_onnx_model *sy_onnx_free(SY_TAKE SY_NULL sy_onnx_model *m);

/** The graph's name (or the file name); KEEP. */
SY_API const char *sy_onnx_name(const sy_onnx_model *m);
/** Opset of the default domain. */
SY_API int64_t sy_onnx_opset(const sy_onnx_model *m);
/** Nodes of the main graph (not counting subgraphs). */
SY_API size_t sy_onnx_nnodes(const sy_onnx_model *m);
/** The size of the graph without its weights: the bytes of the model with
 *  every payload over SY_ONNX_MAX_PAYLOAD dropped (the nodes counted as they
 *  are read, within a few bytes of length prefixes), and the payload bytes
 *  skipped. */
SY_API void sy_onnx_sizes(const sy_onnx_model *m, size_t *kept, size_t *skipped);

/** A graph input that is not an initializer. */
typedef struct sy_onnx_input {
    const char *name;
    sy_dtype dtype;               /**< closest sy_dtype of its elem_type */
    int elem_type;                /**< ONNX TensorProto.DataType */
    size_t ndim;
    const int64_t *dims;          /**< dim_value, or -1 when the dim is symbolic */
    const char *const *params;    /**< dim_param, or NULL (fresh symbol / static) */
} sy_onnx_input;
SY_API size_t sy_onnx_ninputs(const sy_onnx_model *m);
SY_API const sy_onnx_input *sy_onnx_input_at(const sy_onnx_model *m, size_t i);

/** An example shape (hints) for an input. */
typedef struct sy_onnx_example {
    const char *input;
    size_t ndim;
    const int64_t *shape;
} sy_onnx_example;

#define SY_ONNX_TRACE_OPTIONS_VERSION 1u
typedef struct sy_onnx_trace_options {
    unsigned version;                /**< SY_ONNX_TRACE_OPTIONS_VERSION */
    size_t nexamples;
    const sy_onnx_example *examples; /**< example sizes; a dim_value dim must match its example */
    size_t nov;
    const sy_trace_override *ov;     /**< as for JSON graphs: --static NAME, --dynamic NAME=D,... and the
                                          dynamic-dim spec (ov[i].spec: Dims with names and ranges; a
                                          Dim on a dim with a dim_param declares every dim with it, and
                                          dims of one dim_param with different expressions keep the
                                          equality as a guard: docs/onnx.md "The dynamic-dim spec") */
    int concrete;                    /**< 1: every dim static at its example (a concrete run) */
} sy_onnx_trace_options;
#define SY_ONNX_TRACE_OPTIONS_INIT {SY_ONNX_TRACE_OPTIONS_VERSION, 0, NULL, 0, NULL, 0}

typedef struct sy_onnx_trace sy_onnx_trace;

/** Trace the main graph of @p m over @p env: inputs become fake tensors
 *  (sy_env_input_exprs), each node's shape rule runs with the node as
 *  provenance, small integer tensors carry symbolic element values.
 *  @p opts NULL: defaults.
 *  @param[out] out GIVE: free with sy_onnx_trace_free before the env.
 *  @retval SY_OK
 *  @retval SY_EUNSUPPORTED an unknown op, an op of another domain, a
 *          construct not supported (message: node name and op)
 *  @retval SY_EINVAL an op's check fails at the example, a wrong attribute
 *          type, an input that is not defined (message: node, op, reason);
 *          an override naming no input or a dim past its rank, an example
 *          outside a declared range, dims of one Dim name or one dim_param
 *          with different examples (message: input, dim, name)
 *  @retval SY_ENOMEM */
SY_API sy_status sy_env_trace_onnx(sy_env *env, const sy_onnx_model *m, const sy_onnx_trace_options *opts,
                               SY_GIVE sy_onnx_trace **out);
SY_API sy_onnx_trace *sy_onnx_trace_free(SY_TAKE SY_NULL sy_onnx_trace *t);

/** Trace as sy_env_trace_onnx over a new env (sy_env_new(ctx, @p eo)), and when that trace fails
 *  because an op's requirement is false at the example (SY_EINVAL with sy_env_failed_relation set:
 *  a model whose input dims are related, which cannot run where every dim is 224), trace again at
 *  an example that satisfies the relation the failed requirement needed (issue 32; docs/onnx.md
 *  "Related inputs"). Only dims that nothing fixes move: not a dim_value, a dim of an input
 *  @p opts->examples gives (nor one sharing its dim_param), a declared Dim of the spec, a static
 *  dim. What is tried, per failed trace: each dim of the relation alone (those not moved before
 *  first) at the roots of the relation's polynomial where it is linear in the dim (any nonzero
 *  slope: Split's sizes, past + seq == total), at the relation's constants and their neighbours
 *  (a weight's in-features, a bound such as Min(16, x) == x: 16), and at each constant's
 *  multiples next to the example (divisibility), values >= 2 first, nearest the example first;
 *  then a product of dims equal to a constant (Flatten then Linear: C*H*W == 297), its prime
 *  factors spread over the dims (values >= 2 where there are enough factors). Each choice is
 *  checked on the relation at the example before it is traced; at most 8 retraces, each over a
 *  new env, and at most 8 dims, 32 constants (4096 nodes visited) and 256 values per
 *  relation: bounded work.
 *  Sound whatever it picks: the retrace records its own guards, so the relation becomes a guard
 *  over the dim names. @p opts->concrete: no retry.
 *  @param[out] env GIVE: the env of the returned trace (sy_env_free after the trace).
 *  @param[out] out GIVE: the trace; sy_onnx_trace_related says the example chosen, if any.
 *  @retval SY_OK
 *  @retval SY_EINVAL as sy_env_trace_onnx; when no retry traces, the first trace's message then
 *          "; the model needs REL" (dim names: sy_onnx_trace_display, never s0) and how to give an
 *          example (--example) or static dims
 *  @retval SY_EUNSUPPORTED, SY_EVERSION, SY_ENOMEM as sy_env_trace_onnx / sy_env_new */
SY_API sy_status sy_onnx_trace_relate(sy_ctx *ctx, const sy_onnx_model *m, const sy_env_options *eo,
                                      const sy_onnx_trace_options *opts, SY_GIVE sy_env **env, SY_GIVE sy_onnx_trace **out);
/** The example a related retry chose (sy_onnx_trace_relate), in dim names: "x_1 = 16 instead of 224
 *  (the model needs x_1 == Min(16, x_1))"; NULL when the trace ran at the examples it was given. KEEP. */
SY_API const char *sy_onnx_trace_related(const sy_onnx_trace *t);

/** Values of the main graph in definition order (inputs, initializers, node
 *  outputs); each has a name (KEEP) and a fake tensor (KEEP). */
SY_API size_t sy_onnx_trace_nvalues(const sy_onnx_trace *t);
SY_API const char *sy_onnx_trace_value_name(const sy_onnx_trace *t, size_t i);
SY_API const sy_tensor *sy_onnx_trace_value(const sy_onnx_trace *t, size_t i);
/** 1 if value @p i is a graph input, 2 an initializer, 3 a graph output, 0 otherwise. */
SY_API int sy_onnx_trace_value_role(const sy_onnx_trace *t, size_t i);
/** Bytes per element of value @p i from its ONNX element type (bool, int8, uint8: 1; int16,
 *  uint16, float16, bfloat16: 2; int32, uint32, float: 4; int64, uint64, double, complex64: 8;
 *  complex128: 16); 0 for string, undefined or an unknown type, and out of range. */
SY_API size_t sy_onnx_trace_value_elem_bytes(const sy_onnx_trace *t, size_t i);
/** The life of value @p i in the main graph's node order (0 .. sy_onnx_nnodes - 1): *born is the
 *  node that makes it (graph inputs and initializers: 0), *last the last node that reads it (a
 *  read inside a node's subgraph counts at that node; a graph output: the last node; a value
 *  nothing reads: *born). Returns 1, or 0 out of range (nothing written). */
SY_API int sy_onnx_trace_value_life(const sy_onnx_trace *t, size_t i, size_t *born, size_t *last);
/** Graph outputs, in order: index into the values. */
SY_API size_t sy_onnx_trace_noutputs(const sy_onnx_trace *t);
SY_API size_t sy_onnx_trace_output(const sy_onnx_trace *t, size_t i);
/** The inputs as guard-production inputs (for sy_gset_produce_inputs): @p n
 *  receives their number; KEEP. */
SY_API const sy_graph_input *const *sy_onnx_trace_gset_inputs(const sy_onnx_trace *t, size_t *n);
/** @p e with each env symbol renamed to its display name: the dim_param, or
 *  INPUT_dK for a dim without one (made a valid, unique identifier). Symbols
 *  that are not input dims (unbacked) keep their names. NULL on error. */
SY_API const sy_expr *sy_onnx_trace_display(sy_onnx_trace *t, const sy_expr *e);
/** The display symbol of source @p source ("x.size()[2]") or NULL. */
SY_API const sy_expr *sy_onnx_trace_source_symbol(const sy_onnx_trace *t, const char *source);

/** Write @p path: a copy of the model file @p model_path with graph.value_info
 *  filled for every value of the trace that is neither an input, an
 *  initializer, a graph output nor already in value_info: dim_value where a
 *  dim is constant, dim_param = the printed expression (display names)
 *  otherwise; the graph outputs' shapes are rewritten the same way (their
 *  other fields kept). Every other field keeps its original bytes. The file
 *  is written to PATH.symshape-tmp and renamed, so @p path may be
 *  @p model_path. External data (TensorProto.external_data "location", in
 *  initializers and node attributes, subgraphs included) is copied from the
 *  model's directory to @p path's under the same relative location, unless it
 *  is the same file or a file with the same bytes is there; another file of
 *  that name is an error, not overwritten.
 *  @retval SY_OK @retval SY_EFORMAT cannot read/write (message says which), a
 *  location that is absolute or leaves the model's directory, a file of the
 *  data's name in the way @retval SY_ENOMEM */
SY_API sy_status sy_onnx_write_value_info(sy_onnx_trace *t, const char *model_path, const char *path);

SY_END_DECLS
#endif
