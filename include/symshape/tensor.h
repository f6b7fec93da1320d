/**
 * @file symshape/tensor.h
 * @brief Fake tensors with symbolic sizes and strides, interpreter values,
 *        and PyTorch shape semantics for each supported op (docs/ops.md).
 *
 * Every op takes the environment first, computes its output's sizes with
 * PyTorch's own rule (each op cites its source: the ATen meta function, the
 * Python meta registration or the torch.nn.functional docs), and records a
 * guard through the environment whenever the rule branches on a size that the
 * facts do not decide. Validity checks PyTorch makes (matching sizes, output
 * size >= 1 for pooling, ...) are sy_env_require() calls: guards when
 * symbolic, errors when the example itself violates them.
 *
 * Ownership: tensors and values returned by the ops live in the env's arena
 * until sy_env_free. Inputs are borrowed (KEEP).
 */
#ifndef SYMSHAPE_TENSOR_H
#define SYMSHAPE_TENSOR_H
#include "symshape/env.h"

SY_BEGIN_DECLS

typedef enum sy_dtype {
    SY_DT_FLOAT32 = 0, SY_DT_FLOAT64, SY_DT_FLOAT16, SY_DT_BFLOAT16, SY_DT_COMPLEX64, SY_DT_COMPLEX128,
    SY_DT_INT64, SY_DT_INT32, SY_DT_INT16, SY_DT_INT8, SY_DT_UINT8, SY_DT_BOOL, SY_DT_COUNT
} sy_dtype;

/** PyTorch name of a dtype ("float32", ...); static storage. */
SY_API const char *sy_dtype_name(sy_dtype d);
/** Parse a dtype name ("float32", "torch.float32", "float", "long", ...).
 *  @retval SY_OK @retval SY_EINVAL unknown name. */
SY_API sy_status sy_dtype_parse(const char *name, sy_dtype *out);

/** A fake tensor: dtype, rank and symbolic sizes/strides (arrays of ndim
 *  expressions, outermost dimension first; strides in elements, as
 *  Tensor.stride()). @c strides is NULL when the layout is not modelled: the
 *  tensor came from a non-contiguous one through an op whose output layout
 *  symshape does not compute (docs/ops.md section 7); a view of it is then
 *  SY_EUNSUPPORTED rather than a guess. */
typedef struct sy_tensor {
    sy_dtype dtype;
    size_t ndim;
    const sy_expr *const *sizes;
    const sy_expr *const *strides;
} sy_tensor;

/** A contiguous tensor with the given sizes (array of ndim integer
 *  expressions, copied). NULL on error (SY_EINVAL for a boolean size,
 *  SY_EOVERFLOW for a size past int64 at every value of its symbols:
 *  sy_env_require_int64). */
SY_API SY_KEEP const sy_tensor *sy_tensor_new(sy_env *env, sy_dtype dtype, size_t ndim, const sy_expr *const *sizes);

/** A tensor with the given sizes and strides (arrays of ndim integer
 *  expressions, copied; @p strides NULL: strides not modelled). NULL on error
 *  (SY_EINVAL for a boolean size or stride, SY_EOVERFLOW as sy_tensor_new). No check that the strides
 *  describe a valid layout. */
SY_API SY_KEEP const sy_tensor *sy_tensor_new_strided(sy_env *env, sy_dtype dtype, size_t ndim, const sy_expr *const *sizes,
                                              const sy_expr *const *strides);

/** 1 if @p t is known to be contiguous (c10 compute_contiguous: every dim of
 *  size other than the constant 1 has the stride of the product of the later
 *  sizes, or of their Max(size, 1), compared as canonical expressions); 0 if it
 *  may not be, or its strides are not modelled. Decides nothing, records nothing. */
SY_API int sy_tensor_is_contiguous(sy_env *env, const sy_tensor *t);

/** The contiguous (row-major) stride of dim @p d, in elements, of a tensor with
 *  the sizes @p sizes (array of @p ndim integer expressions, outermost first;
 *  KEEP): the product of Max(size, 1) over the dims after @p d, as ATen's
 *  empty / contiguous() / computeStride of an empty tensor give it
 *  (torch.empty(2, 3, 0, 5).stride() is (15, 5, 5, 1)); a constant size
 *  folds. The one rule of contiguous strides: every contiguous tensor of an env
 *  has these, and guard production and checking use the same.
 *  @return KEEP (hash-consed in @p ctx); NULL on error: SY_EINVAL when
 *  @p d >= @p ndim or @p sizes is NULL, SY_EQUOTA / SY_ENOMEM from the products;
 *  NULL without an error for a NULL @p ctx. Thread-safety: as any construction in @p ctx. */
SY_API const sy_expr *sy_tensor_contig_stride(sy_ctx *ctx, size_t ndim, const sy_expr *const *sizes, size_t d);

/** A graph input: creates one expression per dimension from the example
 *  shape with the policy of each dim (array of ndim policies, NULL: every
 *  dim DUCK), records the sources "NAME.size()[i]" and the input's name,
 *  dtype and rank for guard production, and returns the contiguous fake
 *  tensor. NULL on error: SY_EINVAL for a NULL argument or a name already
 *  given to an earlier input of this env (`input 'NAME' is already defined`).
 *  Source names have no length limit. */
SY_API const sy_tensor *sy_env_input(sy_env *env, const char *name, sy_dtype dtype, size_t ndim,
                                     const int64_t *shape, const sy_dim_policy *policies);

/** Same, with a declared spec per dim: @p specs NULL, or ndim entries each
 *  NULL (the policy applies) or a spec (sy_env_create_symbol_spec; the
 *  policy is ignored). Errors as sy_env_create_symbol_spec. */
SY_API const sy_tensor *sy_env_input_spec(sy_env *env, const char *name, sy_dtype dtype, size_t ndim,
                                          const int64_t *shape, const sy_dim_policy *policies,
                                          const sy_dim_spec *const *specs);
/** A graph input whose dims are given as expressions, for frontends that
 *  declare equal dims themselves (ONNX: one symbol per dim_param name, shared
 *  by every input that names it). Each of the @p ndim @p dims (KEEP) is a
 *  non-negative int64 constant (registered as a static dim) or a backed
 *  symbol of @p env from sy_env_create_symbol (registered as a dynamic dim
 *  with its hint as example; the source "NAME.size()[i]" is added to the
 *  symbol's sources, so guard production emits the equality of two sources
 *  sharing a symbol). Returns the contiguous fake tensor, or NULL with
 *  SY_EINVAL (a NULL, negative, unbacked or foreign dim, message names the
 *  input and dim; a source "NAME.size()[i]" that another symbol has: one
 *  symbol per source, sy_env_create_symbol) or SY_ENOMEM. */
SY_API const sy_tensor *sy_env_input_exprs(sy_env *env, const char *name, sy_dtype dtype, size_t ndim,
                                           const sy_expr *const *dims);
/** sy_env_input_exprs with a dynamic-dim spec per dim: @p specs NULL, or
 *  @p ndim entries each NULL or the sy_dim_spec (KEEP during the call; copied)
 *  that dim @p i was declared with. A declared entry (sy_dim_spec_declared)
 *  is recorded with the input dim, so that the guard set checks its guards
 *  against it (sy_gset_violations); its `dim` field is ignored (@p i is
 *  used). The frontend creates the dim's expression itself
 *  (sy_env_create_symbol_spec, or a constant when 0/1-specialized). Errors
 *  as sy_env_input_exprs. */
SY_API const sy_tensor *sy_env_input_exprs_spec(sy_env *env, const char *name, sy_dtype dtype, size_t ndim,
                                                const sy_expr *const *dims, const sy_dim_spec *const *specs);

/** sy_env_input_exprs_spec with a policy per dim: @p policies NULL, or @p ndim entries. A constant
 *  dim whose entry is not SY_DIM_STATIC is a dynamic dim that the frontend made a constant
 *  (sy_env_create_symbol's 0/1 specialization): it is registered with that policy, so the guard
 *  set says why it is pinned (as sy_env_input records a JSON graph's dynamic dims); a symbolic dim
 *  is SY_DIM_DYNAMIC whatever its entry, and a declared spec makes the dim SY_DIM_DYNAMIC. The ONNX
 *  frontend calls it for every graph input. Ownership, the returned tensor and the errors as
 *  sy_env_input_exprs (@p policies is only read during the call). */
SY_API const sy_tensor *sy_env_input_exprs_policy(sy_env *env, const char *name, sy_dtype dtype, size_t ndim,
                                                  const sy_expr *const *dims, const sy_dim_spec *const *specs,
                                                  const sy_dim_policy *policies);

/** An input as sy_env_input registered it (name env-owned). */
typedef struct sy_env_input_info {
    const char *name;
    sy_dtype dtype;
    size_t ndim;
    /** The declared strides (ndim expressions over the input's sizes, env-owned), set by
     *  sy_env_input_set_strides; NULL: none declared (the input is contiguous). */
    const sy_expr *const *strides;
} sy_env_input_info;

/** Declare the strides of input @p name (registered by sy_env_input*): @p strides (KEEP,
 *  ndim integer expressions, copied) become the input's fake-tensor strides, and guard
 *  production (sy_gset_produce) emits the stride guards `NAME.stride()[i] == strides[i]`
 *  for it (PyTorch's tensor-match guard on strides). Returns the input's new fake tensor
 *  (use it instead of the one sy_env_input returned), or NULL: SY_EINVAL (NULL argument,
 *  no such input, a boolean stride, strides declared twice). */
SY_API SY_KEEP const sy_tensor *sy_env_input_set_strides(sy_env *env, const char *name, const sy_expr *const *strides);
/** Number of registered inputs and the i-th (registration order; NULL past the end). */
SY_API size_t sy_env_ninputs(const sy_env *env);
SY_API const sy_env_input_info *sy_env_input_info_at(const sy_env *env, size_t i);
/** The registered input named @p name (KEEP: env-owned, valid until the next input is
 *  registered), found through the env's name index in O(1) expected; NULL when there is no such
 *  input or an argument is NULL. Reports no error. */
SY_API const sy_env_input_info *sy_env_input_info_find(const sy_env *env, const char *name);

/** Number of registered input dims and the i-th (registration order). */
SY_API size_t sy_env_ninput_dims(const sy_env *env);
SY_API const sy_input_dim *sy_env_input_dim(const sy_env *env, size_t i);

/* ------------------------------------------------------------------ values */

typedef enum sy_value_kind {
    SY_V_NONE = 0, SY_V_INT, SY_V_BOOL, SY_V_FLOAT, SY_V_STR, SY_V_TENSOR, SY_V_LIST,
    SY_V_DTYPE, SY_V_SLICE, SY_V_ELLIPSIS,
    /** A Python float that is the true quotient num / den of two integer
     *  expressions, at least one symbolic (`x.size(0) / 2`); den != 0 was
     *  required when it was made. Its consumers are `int()`, `math.floor`,
     *  `math.ceil`, `math.trunc` (docs/ops.md, "True division of sizes"). */
    SY_V_QUOT,
    /** A Python float that is the double product fl(float(x) * s) of an integer
     *  expression x (symbolic) and a double s (`h * 0.7`). Its consumers are
     *  `int()`, `math.floor`, `math.ceil`, `math.trunc` (exact: docs/ops.md,
     *  "Float arithmetic on sizes") and tensor arithmetic (as a Python float). */
    SY_V_SCALED
} sy_value_kind;

/** An interpreter value: what a graph node or an op argument can be. */
typedef struct sy_value {
    sy_value_kind kind;
    union {
        const sy_expr *i;        /**< INT: integer expression; BOOL: boolean expression */
        double f;                /**< FLOAT */
        const char *s;           /**< STR (env-owned copy) */
        const sy_tensor *t;      /**< TENSOR */
        struct { size_t n; const struct sy_value *items; } list; /**< LIST / tuple */
        sy_dtype dtype;          /**< DTYPE */
        struct { const struct sy_value *start, *stop, *step; } slice; /**< SLICE (NONE parts allowed) */
        struct { const sy_expr *num, *den; } quot; /**< QUOT: integer expressions */
        struct { const sy_expr *x; double s; } scaled; /**< SCALED: x * s in double */
    } u;
} sy_value;

SY_API sy_value sy_value_none(void);
SY_API sy_value sy_value_int(const sy_expr *e);
SY_API sy_value sy_value_int_si(sy_env *env, int64_t v);
SY_API sy_value sy_value_bool(const sy_expr *e);
SY_API sy_value sy_value_float(double f);
SY_API sy_value sy_value_tensor(const sy_tensor *t);
/** A list value; @p items (n values) is copied into the env. */
SY_API sy_value sy_value_list(sy_env *env, size_t n, const sy_value *items);
SY_API sy_value sy_value_str(sy_env *env, const char *s);

/* ------------------------------------------------------------------ ops */

/** Call a PyTorch function or Tensor method by its torch.fx name (see
 *  docs/ops.md for the list) with positional @p args (n values) and keyword
 *  arguments (@p nkw names and values). The graph interpreter is a thin
 *  dispatcher over this call.
 *  @param where provenance for guards (node name; may be NULL).
 *  @param[out] out the result (tensor, int, bool, list, ...).
 *  @retval SY_OK
 *  @retval SY_EUNSUPPORTED unknown op (message names it).
 *  @retval SY_EINVAL wrong arguments, or a check PyTorch makes fails at the
 *          example (message says which), or an undecidable question on an
 *          unbacked size. */
SY_API sy_status sy_env_call(sy_env *env, const char *op, size_t nargs, const sy_value *args, size_t nkw,
                             const char *const *kwnames, const sy_value *kwvals, const sy_provenance *where,
                             sy_value *out);

/** 1 if @p op is supported by sy_env_call. Thread-safe (the op index is
 *  built once, with pthread_once). */
SY_API int sy_env_has_op(const char *op);
/** Names of all supported ops, NULL-terminated, static storage (KEEP, valid
 *  for the life of the process). Thread-safe: built once, with pthread_once. */
SY_API const char *const *sy_env_op_names(void);

/** Typed shortcuts over sy_env_call for the most used ops. Each returns the
 *  output tensor (env-owned) or NULL with the error in the context. */
SY_API const sy_tensor *sy_op_matmul(sy_env *env, const sy_tensor *a, const sy_tensor *b);
SY_API const sy_tensor *sy_op_add(sy_env *env, const sy_tensor *a, const sy_tensor *b);
/** torch.cat(tensors, dim): @p ts is an array of n tensors. */
SY_API const sy_tensor *sy_op_cat(sy_env *env, size_t n, const sy_tensor *const *ts, int64_t dim);
/** Tensor.view(*shape): @p shape is an array of n integer expressions; at
 *  most one may be the constant -1 (inferred by exact division). */
SY_API const sy_tensor *sy_op_view(sy_env *env, const sy_tensor *x, size_t n, const sy_expr *const *shape);
/** F.conv2d(x, w, bias, stride, padding, dilation, groups) with symmetric
 *  integer parameters (arrays of 2). @p bias may be NULL. */
SY_API const sy_tensor *sy_op_conv2d(sy_env *env, const sy_tensor *x, const sy_tensor *w, const sy_tensor *bias,
                                     const int64_t stride[2], const int64_t padding[2], const int64_t dilation[2],
                                     int64_t groups);

SY_END_DECLS
#endif
