/* Reductions with and without indices, scans, sorting and selection
 * (PyTorch 1.13). Sources, cited per op below:
 *   aten/src/ATen/native/TensorCompare.cpp  max/min (3 overloads), zero_numel_check_dims
 *   aten/src/ATen/native/ReduceOps.cpp      argmax/argmin, std/var(_mean), logsumexp, cumsum/cumprod,
 *                                           cummax/cummin, all/any, resize_reduction
 *   aten/src/ATen/native/ReduceOpsUtils.h   zero_numel_check_dims, make_reduction
 *   aten/src/ATen/native/Sorting.cpp        sort, topk (TORCH_META_FUNC(topk)), kthvalue, median, mode
 *   aten/src/ATen/native/LinearAlgebra.cpp  linalg_vector_norm / matrix_norm; torch/functional.py norm
 * A reduction over dims removes them (keepdim: sets them to 1); a 0-d input
 * accepts dim 0 and -1 (maybe_wrap_dim with wrap_scalar). */
#include <math.h>
#include <string.h>

#include "shapeenv/env_private.h"


/* zero_numel_check_dims (ReduceOpsUtils.h): the reduced dim must not be empty */
static sy_status check_nonempty_dim(opcall *c, const sy_tensor *x, size_t w, const char *fn)
{
    if (x->ndim == 0) return SY_OK;
    return op_require(c, sy_expr_ge(c->env->ctx, x->sizes[w], KI(c, 1)), "%s: Expected reduction dim %zu to have non-zero size.", fn, w);
}

static sy_status check_nonempty(opcall *c, const sy_tensor *x, const char *fn)
{
    return op_require(c, sy_expr_ge(c->env->ctx, op_numel(c, x), KI(c, 1)),
                      "%s: Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.", fn);
}

/* values and int64 indices of a reduction over one dim */
static sy_status values_indices(opcall *c, const sy_tensor *x, size_t w, int keep)
{
    bool sel[64] = {false};
    if (x->ndim > 64) return op_err(c, SY_EINVAL, "too many dims");
    if (x->ndim) sel[w] = true;
    const sy_expr **r;
    size_t n;
    sy_status st = op_reduced(c, x, sel, keep, &r, &n);
    if (st) return st;
    const sy_tensor *ts[2] = {op_new_tensor(c, x->dtype, n, r), op_new_tensor(c, SY_DT_INT64, n, r)};
    return op_set_tuple(c, 2, ts);
}

/* Python's builtin max/min on ints (a list or varargs) */
static sy_status int_minmax(opcall *c, int is_max)
{
    const sy_value *items = c->args;
    size_t n = c->nargs;
    if (n == 1 && c->args[0].kind == SY_V_LIST) {
        items = c->args[0].u.list.items;
        n = c->args[0].u.list.n;
    }
    if (n == 0) return op_err(c, SY_EINVAL, "%s() arg is an empty sequence", c->op);
    const sy_expr *r = NULL;
    for (size_t i = 0; i < n; i++) {
        if (items[i].kind != SY_V_INT) return op_err(c, SY_EINVAL, "expected integers");
        r = !r ? items[i].u.i : is_max ? sy_expr_max(c->env->ctx, r, items[i].u.i) : sy_expr_min(c->env->ctx, r, items[i].u.i);
        if (!r) return sy_ctx_last_error(c->env->ctx);
    }
    *c->out = sy_value_int(r);
    return SY_OK;
}

/* max / min: max(input) -> 0-d; max(input, dim, keepdim=False) -> (values,
 * indices); max(input, other) -> maximum (broadcast). TensorCompare.cpp:
 * TORCH_PRECOMPUTE_META_FUNC2(max, dim) calls zero_numel_check_dims; the full
 * reduction (max_all / min_all) requires numel > 0. */
static sy_status maxmin(opcall *c)
{
    int is_max = !strcmp(c->op, "max");
    if (c->nargs >= 1 && c->args[0].kind != SY_V_TENSOR) return int_minmax(c, is_max);
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    const sy_value *o = op_arg(c, 1, "other");
    if (o && o->kind == SY_V_TENSOR) return sy_elementwise_binary(c, &c->args[0], o);
    const sy_value *dv = op_arg(c, 1, "dim");
    if (!dv || dv->kind == SY_V_NONE) {
        if ((st = check_nonempty(c, x, is_max ? "max()" : "min()"))) return st;
        return op_set_tensor(c, x->dtype, 0, NULL);
    }
    int64_t d;
    int keep;
    size_t w;
    if ((st = op_const_int(c, 1, "dim", 0, &d)) || (st = op_bool_def(c, 2, "keepdim", 0, &keep)) ||
        (st = op_wrap_dim0(c, d, x->ndim, &w)) || (st = check_nonempty_dim(c, x, w, is_max ? "max()" : "min()")))
        return st;
    return values_indices(c, x, w, keep);
}

/* maximum / minimum / fmax / fmin: broadcasting binary ops */
static sy_status binary_tensor(opcall *c)
{
    const sy_value *a = op_arg(c, 0, "input"), *b = op_arg(c, 1, "other");
    if (!a || !b) return op_err(c, SY_EINVAL, "expected (input, other)");
    return sy_elementwise_binary(c, a, b);
}

/* argmax / argmin (ReduceOps.cpp check_argmax_argmin + resize_reduction):
 * dim None reduces everything (keepdim: all ones) and needs numel > 0;
 * with a dim, zero_numel_check_dims. Result int64. */
static sy_status argmaxmin(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    int keep;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_bool_def(c, 2, "keepdim", 0, &keep))) return st;
    const char *fn = !strcmp(c->op, "argmax") ? "argmax()" : "argmin()";
    const sy_value *dv = op_arg(c, 1, "dim");
    bool sel[64];
    if (x->ndim > 64) return op_err(c, SY_EINVAL, "too many dims");
    if (!dv || dv->kind == SY_V_NONE) {
        if ((st = check_nonempty(c, x, fn))) return st;
        for (size_t i = 0; i < x->ndim; i++) sel[i] = true;
    } else {
        int64_t d;
        size_t w;
        if ((st = op_const_int(c, 1, "dim", 0, &d)) || (st = op_wrap_dim0(c, d, x->ndim, &w)) ||
            (st = check_nonempty_dim(c, x, w, fn)))
            return st;
        memset(sel, 0, sizeof sel);
        if (x->ndim) sel[w] = true;
    }
    const sy_expr **r;
    size_t n;
    if ((st = op_reduced(c, x, sel, keep, &r, &n))) return st;
    return op_set_tensor(c, SY_DT_INT64, n, r);
}

static sy_dtype real_of(sy_dtype d)
{
    return d == SY_DT_COMPLEX64 ? SY_DT_FLOAT32 : d == SY_DT_COMPLEX128 ? SY_DT_FLOAT64 : d;
}

/* std / var / std_mean / var_mean (ReduceOps.cpp std_var_out: "std and var
 * only support floating point and complex dtypes"). Overloads: (input,
 * unbiased: bool) over all dims; (input, dim, unbiased, keepdim) and the
 * correction= form with keepdim as keyword. Empty reductions give nan. */
static sy_status stdvar(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    if (!op_is_floating(x->dtype) && !op_is_complex(x->dtype))
        return op_err(c, SY_EINVAL, "std and var only support floating point and complex dtypes");
    const sy_value *dv = op_arg(c, 1, "dim");
    if (dv && dv->kind == SY_V_BOOL && !op_arg(c, (size_t)-1, "dim")) dv = NULL; /* (input, unbiased) overload */
    int keep;
    if ((st = op_bool_def(c, 3, "keepdim", 0, &keep))) return st;
    bool sel[64];
    int all;
    if ((st = op_dims_mask(c, dv, x->ndim, sel, &all))) return st;
    const sy_expr **r;
    size_t n;
    if ((st = op_reduced(c, x, sel, keep, &r, &n))) return st;
    const sy_tensor *v = op_new_tensor(c, real_of(x->dtype), n, r);
    if (strstr(c->op, "_mean")) {
        const sy_tensor *ts[2] = {v, op_new_tensor(c, x->dtype, n, r)};
        return op_set_tuple(c, 2, ts);
    }
    if (!v) return sy_ctx_last_error(c->env->ctx);
    *c->out = sy_value_tensor(v);
    return SY_OK;
}

/* norm (torch/functional.py norm, 1.13): p a number or None -> linalg.vector_norm
 * over dim (None: all); 'fro' with at most 2 dims -> vector_norm(2); 'nuc'
 * (or 'fro' with more dims) -> linalg.matrix_norm over exactly 2 dims (dim
 * None: all dims, which must then be 2). keepdim #3. vector_norm of ord inf
 * over an empty reduction raises (no identity). */
static sy_status norm(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    int keep;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_bool_def(c, 3, "keepdim", 0, &keep))) return st;
    const sy_value *pv = op_arg(c, 1, "p"), *dv = op_arg(c, 2, "dim");
    bool sel[64];
    int all;
    if ((st = op_dims_mask(c, dv, x->ndim, sel, &all))) return st;
    size_t ndims = 0;
    for (size_t i = 0; i < x->ndim; i++) ndims += sel[i];
    int matrix = 0;
    double p = 2;
    if (pv && pv->kind == SY_V_STR && (!strcmp(pv->u.s, "inf") || !strcmp(pv->u.s, "-inf"))) {
        p = pv->u.s[0] == '-' ? -INFINITY : INFINITY; /* the graph format writes float('inf') as "inf" */
    } else if (pv && pv->kind == SY_V_STR) {
        if (!strcmp(pv->u.s, "fro") && (all || ndims <= 2)) matrix = 0;
        else if (!strcmp(pv->u.s, "fro") || !strcmp(pv->u.s, "nuc")) matrix = 1;
        else return op_err(c, SY_EINVAL, "linalg.matrix_norm: Order %s not supported.", pv->u.s);
    } else if ((st = op_num_def(c, 1, "p", 2, &p))) {
        return st;
    }
    if (matrix) {
        if (x->ndim < 2) return op_err(c, SY_EINVAL, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
        if (ndims != 2) return op_err(c, SY_EINVAL, "linalg.matrix_norm: dim must be a 2-tuple. Got %zu dims", ndims);
    } else if (isinf(p) || (p < 0 && !op_torch1(c))) {
        /* 1.13: +-inf need every reduced dim non-empty; 2.x (LinearAlgebra.cpp linalg_vector_norm,
         * torch/_refs/linalg _check_vector_norm_args): every order without an identity, ord < 0
         * or inf: the tensor non-empty (dim None) or each reduced dim non-empty */
        for (size_t i = 0; i < x->ndim; i++)
            if (sel[i] && (st = op_require(c, sy_expr_ge(c->env->ctx, x->sizes[i], KI(c, 1)),
                                           "linalg.vector_norm cannot compute the %g norm on an empty tensor because the operation does not have an identity", p)))
                return st;
    }
    const sy_expr **r;
    size_t n;
    if ((st = op_reduced(c, x, sel, keep, &r, &n))) return st;
    sy_dtype dt = real_of(x->dtype);
    const sy_value *dtv = op_arg(c, (size_t)-1, "dtype");
    if (dtv && dtv->kind == SY_V_DTYPE) dt = dtv->u.dtype;
    return op_set_tensor(c, dt, n, r);
}

/* logsumexp(input, dim, keepdim=False) (ReduceOps.cpp logsumexp): dim
 * required (an int or a list); integral inputs give float32. */
static sy_status logsumexp(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    int keep;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_bool_def(c, 2, "keepdim", 0, &keep))) return st;
    const sy_value *dv = op_arg(c, 1, "dim");
    if (!dv || dv->kind == SY_V_NONE) return op_err(c, SY_EINVAL, "logsumexp() missing required argument 'dim'");
    bool sel[64];
    int all;
    if ((st = op_dims_mask(c, dv, x->ndim, sel, &all))) return st;
    const sy_expr **r;
    size_t n;
    if ((st = op_reduced(c, x, sel, keep, &r, &n))) return st;
    return op_set_tensor(c, op_is_floating(x->dtype) || op_is_complex(x->dtype) ? x->dtype : SY_DT_FLOAT32, n, r);
}

/* all / any (ReduceOps.cpp): bool result (uint8 stays uint8) */
static sy_status allany(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    int keep;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_bool_def(c, 2, "keepdim", 0, &keep))) return st;
    bool sel[64];
    int all;
    if ((st = op_dims_mask(c, op_arg(c, 1, "dim"), x->ndim, sel, &all))) return st;
    const sy_expr **r;
    size_t n;
    if ((st = op_reduced(c, x, sel, keep, &r, &n))) return st;
    return op_set_tensor(c, x->dtype == SY_DT_UINT8 ? SY_DT_UINT8 : SY_DT_BOOL, n, r);
}

/* cumsum / cumprod / logcumsumexp (ReduceOps.cpp TORCH_META_FUNC(cumsum):
 * maybe_wrap_dim(dim, self.dim()) on a 0-d tensor accepts 0/-1); same sizes;
 * integral inputs accumulate in int64 unless dtype= is given. cummax /
 * cummin: (values, int64 indices). */
static sy_status scan(opcall *c)
{
    const sy_tensor *x;
    int64_t d;
    size_t w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    if (!op_arg(c, 1, "dim")) return op_err(c, SY_EINVAL, "%s() missing required argument 'dim'", c->op);
    if ((st = op_const_int(c, 1, "dim", 0, &d)) || (st = op_wrap_dim0(c, d, x->ndim, &w))) return st;
    if (!strcmp(c->op, "cummax") || !strcmp(c->op, "cummin")) {
        const sy_tensor *ts[2] = {op_new_tensor(c, x->dtype, x->ndim, x->sizes), op_new_tensor(c, SY_DT_INT64, x->ndim, x->sizes)};
        return op_set_tuple(c, 2, ts);
    }
    sy_dtype dt = x->dtype;
    if (!strncmp(c->op, "cum", 3) && !op_is_floating(dt) && !op_is_complex(dt)) dt = SY_DT_INT64;
    if (!strcmp(c->op, "logcumsumexp") && !op_is_floating(dt) && !op_is_complex(dt)) dt = SY_DT_FLOAT32;
    const sy_value *dtv = op_arg(c, 2, "dtype");
    if (dtv && dtv->kind == SY_V_DTYPE) dt = dtv->u.dtype;
    return op_set_tensor(c, dt, x->ndim, x->sizes);
}

/* sort(input, dim=-1, descending=False) -> (values, indices); the
 * sort(input, stable, dim, descending) overload takes dim by keyword.
 * argsort -> indices. Same sizes. (Sorting.cpp TORCH_META_FUNC2(sort, stable)) */
static sy_status sort(opcall *c)
{
    const sy_tensor *x;
    int64_t d;
    size_t w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    size_t dpos = 1;
    if (c->nargs >= 2 && c->args[1].kind == SY_V_BOOL) dpos = 2; /* sort(input, stable, dim) */
    if ((st = op_const_int(c, dpos, "dim", -1, &d)) || (st = op_wrap_dim0(c, d, x->ndim, &w))) return st;
    if (!strcmp(c->op, "argsort")) return op_set_tensor(c, SY_DT_INT64, x->ndim, x->sizes);
    const sy_tensor *ts[2] = {op_new_tensor(c, x->dtype, x->ndim, x->sizes), op_new_tensor(c, SY_DT_INT64, x->ndim, x->sizes)};
    return op_set_tuple(c, 2, ts);
}

/* topk(input, k, dim=-1, largest=True, sorted=True) (Sorting.cpp
 * TORCH_META_FUNC(topk)): 0 <= k <= size(dim) (1 for a 0-d input), "selected
 * index k out of range"; the dim becomes k. */
static sy_status topk(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *x;
    const sy_expr *k;
    int64_t d;
    size_t w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_int(c, 1, "k", &k)) || (st = op_const_int(c, 2, "dim", -1, &d)) ||
        (st = op_wrap_dim0(c, d, x->ndim, &w)))
        return st;
    const sy_expr *L = x->ndim ? x->sizes[w] : KI(c, 1);
    if ((st = op_require(c, sy_expr_and(ctx, sy_expr_ge(ctx, k, KI(c, 0)), sy_expr_le(ctx, k, L)), "selected index k out of range")))
        return st;
    const sy_expr **r = op_sizes_copy(c, x, 0);
    if (!r) return sy_ctx_last_error(ctx);
    if (x->ndim) r[w] = k;
    const sy_tensor *ts[2] = {op_new_tensor(c, x->dtype, x->ndim, r), op_new_tensor(c, SY_DT_INT64, x->ndim, r)};
    return op_set_tuple(c, 2, ts);
}

/* kthvalue(input, k, dim=-1, keepdim=False) (Sorting.cpp kthvalue_out_impl_cpu):
 * zero_numel_check_dims, then 1 <= k <= size(dim): "kthvalue(): selected
 * number k out of range for dimension D". */
static sy_status kthvalue(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *x;
    const sy_expr *k;
    int64_t d;
    size_t w;
    int keep;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_int(c, 1, "k", &k)) || (st = op_const_int(c, 2, "dim", -1, &d)) ||
        (st = op_bool_def(c, 3, "keepdim", 0, &keep)) || (st = op_wrap_dim0(c, d, x->ndim, &w)))
        return st;
    if ((st = check_nonempty_dim(c, x, w, "kthvalue()"))) return st;
    const sy_expr *L = x->ndim ? x->sizes[w] : KI(c, 1);
    if ((st = op_require(c, sy_expr_and(ctx, sy_expr_ge(ctx, k, KI(c, 1)), sy_expr_le(ctx, k, L)),
                         "kthvalue(): selected number k out of range for dimension %zu", w)))
        return st;
    return values_indices(c, x, w, keep);
}

/* median / nanmedian / mode: median(input) -> 0-d (median_impl: an empty
 * input gives nan); median(input, dim, keepdim) -> (values, indices) with
 * zero_numel_check_dims; mode(input, dim=-1, keepdim) likewise. */
static sy_status median(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    int keep;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_bool_def(c, 2, "keepdim", 0, &keep))) return st;
    const sy_value *dv = op_arg(c, 1, "dim");
    int is_mode = !strcmp(c->op, "mode");
    if (!is_mode && (!dv || dv->kind == SY_V_NONE)) return op_set_tensor(c, x->dtype, 0, NULL);
    int64_t d;
    size_t w;
    if ((st = op_const_int(c, 1, "dim", -1, &d)) || (st = op_wrap_dim0(c, d, x->ndim, &w))) return st;
    char fn[32];
    snprintf(fn, sizeof fn, "%s()", c->op);
    if ((st = check_nonempty_dim(c, x, w, fn))) return st;
    return values_indices(c, x, w, keep);
}

const opentry sy_ops_reduce[] = {
    OP_ROW("max", maxmin),
    OP_ROW("min", maxmin),
    OP_ROW("maximum", binary_tensor),
    OP_ROW("minimum", binary_tensor),
    OP_ROW("fmax", binary_tensor),
    OP_ROW("fmin", binary_tensor),
    OP_ROW("argmax", argmaxmin, 0, OPL_FRESH),
    OP_ROW("argmin", argmaxmin, 0, OPL_FRESH),
    OP_ROW("std", stdvar, 0, OPL_FRESH),
    OP_ROW("var", stdvar, 0, OPL_FRESH),
    OP_ROW("std_mean", stdvar, 0, OPL_FRESH),
    OP_ROW("var_mean", stdvar, 0, OPL_FRESH),
    OP_ROW("norm", norm, 0, OPL_FRESH),
    OP_ROW("logsumexp", logsumexp, 0, OPL_FRESH),
    OP_ROW("all", allany, 0, OPL_FRESH),
    OP_ROW("any", allany, 0, OPL_FRESH),
    OP_ROW("cumsum", scan),
    OP_ROW("cumsum_", scan),
    OP_ROW("cumprod", scan),
    OP_ROW("cumprod_", scan),
    OP_ROW("logcumsumexp", scan),
    OP_ROW("cummax", scan),
    OP_ROW("cummin", scan),
    OP_ROW("sort", sort),
    OP_ROW("argsort", sort),
    OP_ROW("topk", topk),
    OP_ROW("kthvalue", kthvalue),
    OP_ROW("median", median),
    OP_ROW("nanmedian", median),
    OP_ROW("mode", median),
    OP_END};
