/* Index patterns and shape changes (PyTorch 1.13). Sources, per op below:
 *   aten/src/ATen/native/TensorAdvancedIndexing.cpp  gather/scatter meta, take_along_dim,
 *                                                     masked_select, masked_fill
 *   aten/src/ATen/native/ScatterGatherChecks.h       gather_shape_check, scatter_shape_check
 *   aten/src/ATen/native/Repeat.cpp                  repeat_interleave
 *   aten/src/ATen/native/TensorShape.cpp             tensor_split, unbind, repeat, tile, movedim,
 *                                                     diagonal, diag, unfold (Tensor.unfold)
 *   aten/src/ATen/native/TensorTransformations.cpp   flip, fliplr, flipud, roll
 *   aten/src/ATen/native/TensorFactories.h           get_tril_size (triu/tril_indices)
 *   aten/src/ATen/native/im2col_shape_check.h        im2col / col2im (F.unfold, F.fold)
 *   aten/src/ATen/native/Linear.cpp                  einsum
 * Data-dependent sizes (masked_select, nonzero, repeat_interleave with tensor
 * repeats and no output_size) are unbacked symbols (sy_env_create_unbacked). */
#include <stdio.h>
#include <string.h>

#include "shapeenv/env_private.h"

sy_status sy_slice_len(opcall *c, const sy_value *sl, const sy_expr *len, const sy_expr **start, const sy_expr **n,
                       int64_t *step);

#define CTX (c->env->ctx)
#define SHOW(e) sy_env_show(c->env, (e))

/* call another op with these arguments (its messages name that op) */
static sy_status call_op(opcall *c, const char *op, size_t n, const sy_value *args)
{
    return sy_env_call(c->env, op, n, args, 0, NULL, NULL, c->where, c->out);
}

/* a list of constant ints: one int, a list, or varargs from pos */
static sy_status const_list(opcall *c, size_t pos, const char *kw, int64_t *out, size_t cap, size_t *n)
{
    const sy_value *v = op_arg(c, pos, kw);
    const sy_value *items;
    size_t cnt;
    if (!v) return op_err(c, SY_EINVAL, "missing argument '%s'", kw);
    if (v->kind == SY_V_LIST) {
        items = v->u.list.items;
        cnt = v->u.list.n;
    } else if (!op_arg(c, (size_t)-1, kw) && pos < c->nargs) {
        items = &c->args[pos];
        cnt = c->nargs - pos;
    } else {
        items = v;
        cnt = 1;
    }
    if (cnt > cap) return op_err(c, SY_EINVAL, "too many entries in '%s'", kw);
    for (size_t i = 0; i < cnt; i++) {
        if (items[i].kind != SY_V_INT || sy_expr_get_si(items[i].u.i, &out[i]))
            return op_err(c, SY_EINVAL, "argument '%s' must be constant integers", kw);
    }
    *n = cnt;
    return SY_OK;
}

/* ------------------------------------------------------------------ gather / scatter */

/* index.numel() != 0 and an index into an empty dim: any index value is out
 * of bounds ("index 0 is out of bounds for dimension D with size 0"), so a
 * non-empty index needs size(dim) >= 1 — the only part of the kernel's value
 * check that sizes decide. */
static sy_status index_nonempty_dim(opcall *c, const sy_tensor *x, size_t w, const sy_tensor *idx)
{
    const sy_expr *L = x->ndim ? x->sizes[w] : KI(c, 1);
    return op_require(c, sy_expr_or(CTX, sy_expr_eq(CTX, op_numel(c, idx), KI(c, 0)), sy_expr_ge(CTX, L, KI(c, 1))),
                      "index 0 is out of bounds for dimension %zu with size %s", w, SHOW(L));
}

static const sy_expr *nonempty_size(opcall *c, const sy_tensor *t, size_t i)
{
    return t->ndim ? t->sizes[i] : KI(c, 1);
}

/* gather(input, dim, index) (TORCH_META_FUNC(gather)): result has index's
 * sizes; index int64; when index.numel() != 0, gather_shape_check: same
 * number of dims (0-d counts as 1) and index.size(d) <= input.size(d) for d != dim.
 * The result has the index's sizes either way, so each check is a requirement
 * `numel(index) == 0 or ...`, not a decision on the emptiness: a decision kept
 * only the example's side (an index empty at some sizes was refused there). */
static sy_status gather_check(opcall *c, const sy_tensor *x, size_t w, const sy_tensor *idx, const char *fn)
{
    sy_status st;
    size_t nd = x->ndim ? x->ndim : 1;
    const sy_expr *empty = sy_expr_eq(CTX, op_numel(c, idx), KI(c, 0));
    if ((idx->ndim ? idx->ndim : 1) != nd)
        return op_require(c, empty, "Index tensor must have the same number of dimensions as input tensor");
    for (size_t i = 0; i < nd; i++)
        if (i != w && (st = op_require(c, sy_expr_or(CTX, empty, sy_expr_le(CTX, nonempty_size(c, idx, i), nonempty_size(c, x, i))),
                                       "%s: Size does not match at dimension %zu expected index to be smaller than self apart from dimension %zu",
                                       fn, i, w)))
            return st;
    return index_nonempty_dim(c, x, w, idx);
}

/* gather / scatter* on index values from sizes (values.c): the CPU kernel checks every element of
 * a non-empty index (aten/src/ATen/native/cpu/ScatterGatherKernel.cpp
 * cpu_scatter_gather_base_kernel: TORCH_CHECK(idx_dim >= 0 && idx_dim < index_upper_bound, "index
 * ", idx_dim, " is out of bounds for dimension ", dim, " with size ", index_upper_bound), the
 * bound self.size(dim) (1 for a 0-d self); no negative index */
static sy_status gather_values(opcall *c, const sy_tensor *x, size_t w, const sy_tensor *idx)
{
    return sy_env_values_require_in(c, idx, sy_expr_eq(CTX, op_numel(c, idx), KI(c, 0)), KI(c, 0),
                                    sy_expr_sub(CTX, nonempty_size(c, x, w), KI(c, 1)), "index is out of bounds for the dimension");
}

static sy_status gather(opcall *c)
{
    const sy_tensor *x, *idx;
    int64_t d;
    size_t w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "dim", 0, &d)) || (st = op_tensor(c, 2, "index", &idx)) ||
        (st = op_wrap_dim0(c, d, x->ndim, &w)))
        return st;
    if (idx->dtype != SY_DT_INT64) return op_err(c, SY_EINVAL, "gather(): Expected dtype int64 for index");
    if ((st = gather_check(c, x, w, idx, "gather")) || (st = gather_values(c, x, w, idx))) return st;
    return op_set_tensor(c, x->dtype, idx->ndim, idx->sizes);
}

/* scatter / scatter_add / scatter_reduce (+ in-place forms): result has
 * input's sizes. scatter_meta_impl: index int64; scatter_shape_check when
 * index.numel() != 0: same dims for input, index and src; index.size(d) <=
 * src.size(d) for all d, <= input.size(d) for d != dim. src may be a number
 * (scatter with value). */
static sy_status scatter(opcall *c)
{
    const sy_tensor *x, *idx, *src = NULL;
    int64_t d;
    size_t w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "dim", 0, &d)) || (st = op_tensor(c, 2, "index", &idx)) ||
        (st = op_wrap_dim0(c, d, x->ndim, &w)))
        return st;
    const sy_value *s = op_arg(c, 3, "src");
    if (!s) s = op_arg(c, (size_t)-1, "value");
    if (!s) return op_err(c, SY_EINVAL, "missing argument 'src'");
    if (s->kind == SY_V_TENSOR) src = s->u.t;
    else if (strncmp(c->op, "scatter_add", 11) && s->kind != SY_V_INT && s->kind != SY_V_FLOAT && s->kind != SY_V_BOOL)
        return op_err(c, SY_EINVAL, "src must be a tensor or a number");
    else if (!strncmp(c->op, "scatter_add", 11) || !strncmp(c->op, "scatter_reduce", 14))
        return op_err(c, SY_EINVAL, "argument 'src' must be a tensor");
    if (idx->dtype != SY_DT_INT64) return op_err(c, SY_EINVAL, "%s(): Expected dtype int64 for index", c->op);
    if (src && src->dtype != x->dtype)
        return op_err(c, SY_EINVAL, "%s(): Expected self.dtype to be equal to src.dtype", c->op);
    /* the result has the input's sizes either way: requirements `numel(index) == 0 or ...` */
    const sy_expr *empty = sy_expr_eq(CTX, op_numel(c, idx), KI(c, 0));
    size_t nd = x->ndim ? x->ndim : 1;
    if ((idx->ndim ? idx->ndim : 1) != nd || (src && (src->ndim ? src->ndim : 1) != nd))
        return op_require(c, empty, "Index tensor must have the same number of dimensions as self tensor");
    for (size_t i = 0; i < nd; i++) {
        if (i != w && (st = op_require(c, sy_expr_or(CTX, empty, sy_expr_le(CTX, nonempty_size(c, idx, i), nonempty_size(c, x, i))),
                                       "Expected index to be smaller than self apart from dimension %zu (dim %zu)", w, i)))
            return st;
        if (src && (st = op_require(c, sy_expr_or(CTX, empty, sy_expr_le(CTX, nonempty_size(c, idx, i), nonempty_size(c, src, i))),
                                    "Expected index to be smaller than src (dim %zu)", i)))
            return st;
    }
    if ((st = index_nonempty_dim(c, x, w, idx)) || (st = gather_values(c, x, w, idx))) return st;
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

/* take_along_dim(input, indices, dim=None) (TensorAdvancedIndexing.cpp):
 * dim None: input.view(-1).gather(0, indices.view(-1)) -> (indices.numel(),);
 * with dim: same rank required, both broadcast except at dim, then gather. */
static sy_status take_along_dim(opcall *c)
{
    const sy_tensor *x, *idx;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_tensor(c, 1, "indices", &idx))) return st;
    if (idx->dtype != SY_DT_INT64)
        return op_err(c, SY_EINVAL, "torch.take_along_dim(): dtype of indices should be Long but got %s", sy_dtype_name(idx->dtype));
    const sy_value *dv = op_arg(c, 2, "dim");
    if (!dv || dv->kind == SY_V_NONE) {
        const sy_expr *n = op_numel(c, idx), *L = op_numel(c, x);
        if ((st = op_require(c, sy_expr_or(CTX, sy_expr_eq(CTX, n, KI(c, 0)), sy_expr_ge(CTX, L, KI(c, 1))),
                             "index 0 is out of bounds for dimension 0 with size %s", SHOW(L))))
            return st;
        /* index values from sizes: gather(0) of the flattened input, [0, numel) (1.13 and 2.x) */
        if ((st = sy_env_values_require_in(c, idx, sy_expr_eq(CTX, n, KI(c, 0)), KI(c, 0), sy_expr_sub(CTX, L, KI(c, 1)),
                                           "index is out of bounds for dimension 0")))
            return st;
        return op_set_tensor(c, x->dtype, 1, &n);
    }
    int64_t d;
    size_t w;
    if (x->ndim != idx->ndim)
        return op_err(c, SY_EINVAL, "torch.take_along_dim(): input and indices should have the same number of dimensions, but got %zu dimensions for input, and %zu dimensions for indices",
                      x->ndim, idx->ndim);
    if ((st = op_const_int(c, 2, "dim", 0, &d)) || (st = op_wrap_dim(c, d, x->ndim, &w))) return st;
    const sy_expr **xs = op_sizes_copy(c, x, 0), **is = op_sizes_copy(c, idx, 0), **b1, **b2;
    size_t n1, n2;
    if (!xs || !is) return sy_ctx_last_error(CTX);
    xs[w] = idx->sizes[w];
    if ((st = op_broadcast(c, xs, x->ndim, idx->sizes, idx->ndim, &b1, &n1))) return st; /* indices broadcast shape */
    is[w] = x->sizes[w];
    if ((st = op_broadcast(c, is, idx->ndim, x->sizes, x->ndim, &b2, &n2))) return st; /* input broadcast shape */
    const sy_expr *L = b2[w];
    if ((st = op_require(c, sy_expr_or(CTX, sy_expr_eq(CTX, sy_expr_mul_n(CTX, n1, b1), KI(c, 0)), sy_expr_ge(CTX, L, KI(c, 1))),
                         "index 0 is out of bounds for dimension %zu with size %s", w, SHOW(L))))
        return st;
    /* index values from sizes: 1.13 gathers ([0, size(dim)), as gather); 2.x takes each index
     * modulo size(dim) (measured on the CPU, torch 2.14: 3, -1 and -4 of a dim of 3 run), no check */
    if (op_torch1(c) && (st = sy_env_values_require_in(c, idx, sy_expr_eq(CTX, sy_expr_mul_n(CTX, n1, b1), KI(c, 0)), KI(c, 0),
                                                       sy_expr_sub(CTX, L, KI(c, 1)), "index is out of bounds for the dimension")))
        return st;
    return op_set_tensor(c, x->dtype, n1, b1);
}

/* masked_select(input, mask) (TensorAdvancedIndexing.cpp masked_select_cpu):
 * input and mask broadcast; mask bool; the length is data-dependent: an
 * unbacked size-like symbol. nonzero(input): (u, ndim) int64; as_tuple=True: ndim
 * (at least 1) int64 tensors (u). */
static sy_status masked_select(opcall *c)
{
    const sy_tensor *x, *m;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_tensor(c, 1, "mask", &m))) return st;
    if (m->dtype != SY_DT_BOOL) return op_err(c, SY_EINVAL, "masked_select: expected BoolTensor for mask");
    const sy_expr **b;
    size_t n;
    if ((st = op_broadcast(c, x->sizes, x->ndim, m->sizes, m->ndim, &b, &n))) return st;
    const sy_expr *u = sy_env_create_unbacked(c->env, 1, c->where && c->where->node ? c->where->node : "masked_select");
    if (!u) return sy_ctx_last_error(CTX);
    return op_set_tensor(c, x->dtype, 1, &u);
}

sy_status sy_nonzero(opcall *c, const sy_tensor *x, int as_tuple)
{
    const sy_expr *u = sy_env_create_unbacked(c->env, 1, c->where && c->where->node ? c->where->node : "nonzero");
    if (!u) return sy_ctx_last_error(CTX);
    if (as_tuple) {
        /* nonzero(as_tuple=True) (torch/_tensor_docs, nonzero_numpy in TensorAdvancedIndexing.cpp):
         * one int64 index tensor [u] per dim, a 0-d input as 1-d (unsqueeze(0)); each
         * contiguous (stride 1: nonzero's result is column-major, measured on 1.13 and 2.x).
         * It was the [u, ndim] tensor of as_tuple=False, so x[x.nonzero(as_tuple=True)]
         * indexed dim 0 with a 2-D index: a 3-D result where the CPU gives [u]. */
        size_t n = x->ndim ? x->ndim : 1;
        const sy_tensor **outs = sy_env_alloc(c->env, n * sizeof *outs);
        if (!outs) return sy_ctx_last_error(CTX);
        for (size_t i = 0; i < n; i++)
            if (!(outs[i] = op_new_tensor(c, SY_DT_INT64, 1, &u))) return sy_ctx_last_error(CTX);
        return op_set_tuple(c, n, outs);
    }
    /* column-major: nonzero_out_cpu's as_strided_({n, ndim}, {1, n}) ("fortran-contiguous
     * output", gh-46224), measured on 1.13 and 2.x; as contiguous, x.nonzero().view(-1) was
     * accepted where the CPU fails for two or more nonzeros */
    const sy_expr *sz[2] = {u, KI(c, (int64_t)x->ndim)}, *str[2] = {KI(c, 1), u};
    return op_set_strided(c, SY_DT_INT64, 2, sz, str);
}

/* nonzero(input, *, as_tuple=False); argwhere(input) is nonzero(input) (TensorAdvancedIndexing.cpp) */
static sy_status nonzero(opcall *c)
{
    const sy_tensor *x;
    int as_tuple = 0;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    if (strcmp(c->op, "argwhere") && (st = op_bool_def(c, (size_t)-1, "as_tuple", 0, &as_tuple))) return st;
    return sy_nonzero(c, x, as_tuple);
}

/* masked_fill(input, mask, value) (TensorAdvancedIndexing.cpp): out of
 * place, mask and input broadcast (expand_outplace); in place
 * (masked_fill_), the mask must broadcast to input's sizes (expand_inplace).
 * mask bool; a tensor value must be 0-d. */
static sy_status masked_fill(opcall *c)
{
    const sy_tensor *x, *m;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_tensor(c, 1, "mask", &m))) return st;
    if (m->dtype != SY_DT_BOOL)
        return op_err(c, SY_EINVAL, "masked_fill_ only supports boolean masks, but got mask with dtype %s", sy_dtype_name(m->dtype));
    const sy_value *v = op_arg(c, 2, "value");
    if (!v) return op_err(c, SY_EINVAL, "missing argument 'value'");
    if (v->kind == SY_V_TENSOR && v->u.t->ndim != 0)
        return op_err(c, SY_EINVAL, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %zu dimension(s).",
                      v->u.t->ndim);
    if (c->op[strlen(c->op) - 1] == '_') {
        if (m->ndim > x->ndim)
            return op_err(c, SY_EINVAL, "the size of the mask (%zu-D) must broadcast to the input's (%zu-D)", m->ndim, x->ndim);
        for (size_t i = 0; i < m->ndim; i++) {
            if ((st = op_require_expands(c, m->sizes[i], x->sizes[x->ndim - m->ndim + i], x->ndim - m->ndim + i))) return st;
        }
        return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
    }
    const sy_expr **b;
    size_t n;
    if ((st = op_broadcast(c, m->sizes, m->ndim, x->sizes, x->ndim, &b, &n))) return st;
    return op_set_tensor(c, x->dtype, n, b);
}

/* ------------------------------------------------------------------ repeat_interleave */

/* repeat_interleave(input, repeats, dim=None, *, output_size=None) (Repeat.cpp,
 * TensorShape? no: native/Repeat.cpp and TensorConversions): an int repeats r
 * (>= 0): dim None flattens, numel*r; with dim, size(dim)*r. Tensor repeats
 * (0-d or 1-D of size 1 or size(dim)): the length is data-dependent
 * (sum(repeats)): output_size if given, else an unbacked symbol.
 * repeat_interleave(repeats) (one tensor): 1-D of sum(repeats). */
static sy_status repeat_interleave(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    const sy_value *rv = op_arg(c, 1, "repeats");
    const sy_value *osv = op_arg(c, (size_t)-1, "output_size");
    const sy_expr *len = NULL;
    if (osv && osv->kind != SY_V_NONE) {
        if (osv->kind != SY_V_INT) return op_err(c, SY_EINVAL, "output_size must be an integer");
        len = osv->u.i;
    }
    if (!rv) { /* repeat_interleave(repeats): input is the repeats tensor */
        if (x->ndim > 1) return op_err(c, SY_EINVAL, "repeat_interleave only accept 1D vector as repeat");
        if (x->dtype != SY_DT_INT64 && x->dtype != SY_DT_INT32) return op_err(c, SY_EINVAL, "repeats has to be Long or Int tensor");
        if (!len && !(len = sy_env_create_unbacked(c->env, 1, c->where && c->where->node ? c->where->node : c->op)))
            return sy_ctx_last_error(CTX);
        return op_set_tensor(c, x->dtype, 1, &len);
    }
    const sy_value *dv = op_arg(c, 2, "dim");
    int flat = !dv || dv->kind == SY_V_NONE;
    size_t w = 0;
    if (!flat) {
        int64_t d;
        if ((st = op_const_int(c, 2, "dim", 0, &d)) || (st = op_wrap_dim0(c, d, x->ndim, &w))) return st;
    }
    const sy_expr *L = flat ? op_numel(c, x) : x->ndim ? x->sizes[w] : KI(c, 1);
    if (rv->kind == SY_V_INT || rv->kind == SY_V_BOOL) {
        const sy_expr *r;
        if ((st = op_int(c, 1, "repeats", &r))) return st;
        if ((st = op_require(c, sy_expr_ge(CTX, r, KI(c, 0)), "repeats can not be negative"))) return st;
        const sy_expr *n = sy_expr_mul(CTX, L, r);
        if (len && (st = op_require_eq(c, len, n, "repeat_interleave: output_size must equal the sum of repeats"))) return st;
        len = n;
    } else if (rv->kind == SY_V_TENSOR) {
        const sy_tensor *r = rv->u.t;
        if (r->ndim > 1) return op_err(c, SY_EINVAL, "repeats must be 0-dim or 1-dim tensor");
        if (r->dtype != SY_DT_INT64 && r->dtype != SY_DT_INT32) return op_err(c, SY_EINVAL, "repeats has to be Long or Int tensor");
        if (r->ndim == 1) {
            int one;
            if ((st = op_decide_bool(c, sy_expr_eq(CTX, r->sizes[0], KI(c, 1)), "repeat_interleave: one repeat for all?", &one))) return st;
            if (!one && (st = op_require(c, sy_expr_eq(CTX, r->sizes[0], L), "repeats must have the same size as input along dim")))
                return st;
        }
        if (!len && !(len = sy_env_create_unbacked(c->env, 1, c->where && c->where->node ? c->where->node : c->op)))
            return sy_ctx_last_error(CTX);
    } else {
        return op_err(c, SY_EINVAL, "repeats must be an int or a tensor");
    }
    if (flat) return op_set_tensor(c, x->dtype, 1, &len);
    const sy_expr **out = op_sizes_copy(c, x, 0);
    if (!out) return sy_ctx_last_error(CTX);
    if (!x->ndim) return op_set_tensor(c, x->dtype, 1, &len);
    out[w] = len;
    return op_set_tensor(c, x->dtype, x->ndim, out);
}

/* ------------------------------------------------------------------ split-like */

static sy_status piece(opcall *c, const sy_tensor *x, size_t w, const sy_expr *n, const sy_tensor **out)
{
    const sy_expr **sz = op_sizes_copy(c, x, 0);
    if (!sz) return sy_ctx_last_error(CTX);
    sz[w] = n;
    *out = op_new_strided(c, x->dtype, x->ndim, sz, x->strides); /* a narrow: x's strides (NULL: not modelled) */
    return *out ? SY_OK : sy_ctx_last_error(CTX);
}

/* tensor_split(input, tensor_indices_or_sections, dim) with a tensor
 * (TensorShape.cpp, 1.13): the tensor must be a CPU long tensor ("to have
 * dtype of long, but got ...") of 0 or 1 dims ("to be a zero-dimensional or
 * one-dimensional tensor, but got a tensor with N dims"); a 1-D tensor is
 * read as its list of values (indices[i] = data[i * stride]) and split with
 * the int-list overload. Its length is the number of outputs (Python-level):
 * evaluate_expr specializes it, as for unbind. Each value is data-dependent:
 * an unbacked symbol (unbounded, like tolist()), so the piece sizes are the
 * clamped slice lengths Max(Min(..) - Min(..), 0) of those symbols. A 0-D
 * tensor holds the number of sections, i.e. the number of outputs: that is
 * data-dependent, so unsupported (the exporter writes a constant tensor's
 * value as the int or list it stands for, docs/ops.md). */
static sy_status tensor_split_values(opcall *c, const sy_tensor *t, const sy_value **out)
{
    sy_status st;
    if (t->dtype != SY_DT_INT64)
        return op_err(c, SY_EINVAL, "tensor_split expected tensor_indices_or_sections to have dtype of long, but got %s",
                      sy_dtype_name(t->dtype));
    if (t->ndim > 1)
        return op_err(c, SY_EINVAL,
                      "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, "
                      "but got a tensor with %zu dims", t->ndim);
    if (t->ndim == 0)
        return op_err(c, SY_EUNSUPPORTED, "tensor_split with a 0-dim tensor of sections: the number of outputs is the "
                                          "tensor's value (data-dependent); pass an int or a constant tensor");
    const sy_expr *nv;
    int64_t k;
    sy_provenance why = {c->where ? c->where->node : NULL, c->op, "number of outputs of tensor_split (length of the indices tensor)"};
    if ((st = sy_env_evaluate_expr(c->env, t->sizes[0], &why, &nv))) return st;
    if (sy_expr_get_si(nv, &k) || k < 0) return op_err(c, SY_EINVAL, "tensor_split: the length of the indices tensor is not a constant");
    if (k > 100000) return op_err(c, SY_EQUOTA, "tensor_split: too many indices (%lld)", (long long)k);
    sy_value *items = sy_env_alloc(c->env, (k ? (size_t)k : 1) * sizeof *items);
    sy_value *lv = sy_env_alloc(c->env, sizeof *lv);
    if (!items || !lv) return sy_ctx_last_error(CTX);
    for (int64_t i = 0; i < k; i++) {
        char what[96];
        snprintf(what, sizeof what, "%s.indices[%lld]", c->where && c->where->node ? c->where->node : "tensor_split", (long long)i);
        const sy_expr *u = sy_env_create_unbacked(c->env, 0, what);
        if (!u) return sy_ctx_last_error(CTX);
        items[i] = sy_value_int(u);
    }
    *lv = sy_value_list(c->env, (size_t)k, items);
    *out = lv;
    return SY_OK;
}

/* tensor_split(input, sections | indices, dim=0) (TensorShape.cpp): input
 * at least 1-D; sections n > 0: the first L mod n pieces have L//n + 1
 * elements, the rest L//n, i.e. piece i has FloorDiv(L + n - 1 - i, n);
 * indices: pieces input[idx[i-1]:idx[i]] along dim with Python slice
 * clamping (at::slice clamps as Python does). A tensor: tensor_split_values. */
static sy_status tensor_split(opcall *c)
{
    const sy_tensor *x;
    int64_t d;
    size_t w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    if (x->ndim == 0)
        return op_err(c, SY_EINVAL, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
    const sy_value *s = op_arg(c, 1, "indices_or_sections");
    if (!s) s = op_arg(c, (size_t)-1, "sections");
    if (!s) s = op_arg(c, (size_t)-1, "indices");
    if (!s) s = op_arg(c, (size_t)-1, "tensor_indices_or_sections");
    if (!s) return op_err(c, SY_EINVAL, "missing argument 'indices_or_sections'");
    if ((st = op_const_int(c, 2, "dim", 0, &d)) || (st = op_wrap_dim(c, d, x->ndim, &w))) return st;
    const sy_expr *L = x->sizes[w];
    if (s->kind == SY_V_TENSOR && (st = tensor_split_values(c, s->u.t, &s))) return st;
    if (s->kind == SY_V_INT) {
        int64_t n;
        /* the number of sections is the number of outputs, a Python-level length: a traced
         * int (tensor_split(x, T // 2)) is specialized to its example, as unbind's size */
        const sy_expr *nv = s->u.i;
        sy_provenance why = {c->where ? c->where->node : NULL, c->op, "number of outputs of tensor_split (sections)"};
        if (sy_expr_get_si(nv, &n) && (st = sy_env_evaluate_expr(c->env, s->u.i, &why, &nv))) return st;
        if (sy_expr_get_si(nv, &n)) return op_err(c, SY_EINVAL, "the number of sections must be a constant");
        if (n <= 0) return op_err(c, SY_EINVAL, "number of sections must be larger than 0, got %lld", (long long)n);
        if (n > 100000) return op_err(c, SY_EQUOTA, "too many sections (%lld)", (long long)n);
        const sy_tensor **outs = sy_env_alloc(c->env, (size_t)n * sizeof *outs);
        if (!outs) return sy_ctx_last_error(CTX);
        for (int64_t i = 0; i < n; i++)
            if ((st = piece(c, x, w, sy_expr_floordiv(CTX, sy_expr_add_si(CTX, L, n - 1 - i), KI(c, n)), &outs[i]))) return st;
        return op_set_tuple(c, (size_t)n, outs);
    }
    if (s->kind != SY_V_LIST) return op_err(c, SY_EINVAL, "indices_or_sections must be an int, a list of ints or a tensor");
    size_t k = s->u.list.n;
    const sy_tensor **outs = sy_env_alloc(c->env, (k + 1) * sizeof *outs);
    if (!outs) return sy_ctx_last_error(CTX);
    sy_value none = sy_value_none();
    for (size_t i = 0; i <= k; i++) {
        const sy_value *a = i ? &s->u.list.items[i - 1] : &none, *b = i < k ? &s->u.list.items[i] : &none;
        if ((a->kind != SY_V_INT && a->kind != SY_V_NONE) || (b->kind != SY_V_INT && b->kind != SY_V_NONE))
            return op_err(c, SY_EINVAL, "indices must be integers");
        sy_value zero = sy_value_int(KI(c, 0));
        sy_value sl = sy_value_none();
        sl.kind = SY_V_SLICE;
        sl.u.slice.start = i ? a : &zero;
        sl.u.slice.stop = b;
        sl.u.slice.step = &none;
        const sy_expr *start, *n;
        int64_t step;
        if ((st = sy_slice_len(c, &sl, L, &start, &n, &step)) || (st = piece(c, x, w, n, &outs[i]))) return st;
    }
    return op_set_tuple(c, k + 1, outs);
}

/* unbind(input, dim=0) (TensorShape.cpp): one 0-dim-removed tensor per index;
 * the count is a Python-level length: evaluate_expr specializes size(dim). */
static sy_status unbind(opcall *c)
{
    const sy_tensor *x;
    int64_t d;
    size_t w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "dim", 0, &d)) || (st = op_wrap_dim(c, d, x->ndim, &w))) return st;
    const sy_expr *nv;
    sy_provenance why = {c->where ? c->where->node : NULL, c->op, "number of outputs of unbind"};
    int64_t n;
    if ((st = sy_env_evaluate_expr(c->env, x->sizes[w], &why, &nv))) return st;
    if (sy_expr_get_si(nv, &n) || n < 0) return op_err(c, SY_EINVAL, "unbind: the size is not a constant");
    if (n > 100000) return op_err(c, SY_EQUOTA, "unbind: too many outputs (%lld)", (long long)n);
    const sy_expr **sz = sy_env_alloc(c->env, x->ndim * sizeof *sz), **xst = sy_env_alloc(c->env, x->ndim * sizeof *xst);
    const sy_tensor **outs = sy_env_alloc(c->env, (n ? (size_t)n : 1) * sizeof *outs);
    if (!sz || !xst || !outs) return sy_ctx_last_error(CTX);
    size_t m = 0;
    for (size_t i = 0; i < x->ndim; i++)
        if (i != w) {
            if (x->strides) xst[m] = x->strides[i];
            sz[m++] = x->sizes[i];
        }
    /* each output is select(x, dim, i) (TensorShape.cpp unbind): x's strides without dim's */
    for (int64_t i = 0; i < n; i++)
        if (!(outs[i] = op_new_strided(c, x->dtype, m, sz, x->strides ? xst : NULL))) return sy_ctx_last_error(CTX);
    return op_set_tuple(c, (size_t)n, outs);
}

/* ------------------------------------------------------------------ same-shape permutations */

/* flip(input, dims) (TensorTransformations.cpp: dim_list_to_bitset, wrap
 * scalar, no repeats); fliplr (>= 2-D), flipud (>= 1-D); roll(input, shifts,
 * dims=None): shifts required, as many as dims unless dims is empty and one
 * shift (a roll of the flattened tensor). All keep the sizes. */
static sy_status flip(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    if (!strcmp(c->op, "fliplr") && x->ndim < 2) return op_err(c, SY_EINVAL, "Input must be >= 2-d.");
    if (!strcmp(c->op, "flipud") && x->ndim < 1) return op_err(c, SY_EINVAL, "Input must be >= 1-d.");
    if (!strcmp(c->op, "flip")) {
        int64_t dims[64];
        size_t n;
        bool sel[64];
        int all;
        if ((st = const_list(c, 1, "dims", dims, 64, &n))) return st;
        sy_value items[64];
        for (size_t i = 0; i < n; i++) items[i] = sy_value_int(KI(c, dims[i]));
        sy_value lv = sy_value_list(c->env, n, items);
        if (n && (st = op_dims_mask(c, &lv, x->ndim, sel, &all))) return st;
    }
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

static sy_status roll(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    int64_t sh[64], dims[64];
    size_t ns, nd = 0;
    const sy_value *sv = op_arg(c, 1, "shifts");
    if (!sv) return op_err(c, SY_EINVAL, "`shifts` required");
    if (sv->kind == SY_V_LIST) {
        ns = sv->u.list.n;
        if (ns > 64) return op_err(c, SY_EINVAL, "too many shifts");
        for (size_t i = 0; i < ns; i++)
            if (sv->u.list.items[i].kind != SY_V_INT) return op_err(c, SY_EINVAL, "shifts must be integers");
    } else if (sv->kind == SY_V_INT) {
        ns = 1;
    } else {
        return op_err(c, SY_EINVAL, "shifts must be integers");
    }
    const sy_value *dv = op_arg(c, 2, "dims");
    if (dv && dv->kind != SY_V_NONE && (st = const_list(c, 2, "dims", dims, 64, &nd))) return st;
    (void)sh;
    if (ns == 0) return op_err(c, SY_EINVAL, "`shifts` required");
    if (!(nd == 0 && ns == 1)) {
        if (ns != nd) return op_err(c, SY_EINVAL, "shifts and dimensions must align. shifts: %zu, dims:%zu", ns, nd);
        for (size_t i = 0; i < nd; i++) {
            size_t w;
            if ((st = op_wrap_dim(c, dims[i], x->ndim, &w))) return st;
        }
    }
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

/* repeat(input, *sizes) (TensorShape.cpp repeat): at least input.dim()
 * entries; leading new dims; each size multiplied (a negative repeat is a
 * negative dimension). tile(input, dims): dims padded with leading 1s to the
 * rank, then repeat. */
static sy_status repeat(opcall *c)
{
    const sy_tensor *x;
    const sy_expr **r;
    size_t n;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_shape_args(c, 1, strcmp(c->op, "tile") ? "repeats" : "dims", &r, &n)))
        return st;
    if (!strcmp(c->op, "tile") && n < x->ndim) {
        const sy_expr **p = sy_env_alloc(c->env, x->ndim * sizeof *p);
        if (!p) return sy_ctx_last_error(CTX);
        for (size_t i = 0; i < x->ndim; i++) p[i] = i < x->ndim - n ? KI(c, 1) : r[i - (x->ndim - n)];
        r = p;
        n = x->ndim;
    }
    if (n < x->ndim)
        return op_err(c, SY_EINVAL, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    const sy_expr **out = sy_env_alloc(c->env, (n ? n : 1) * sizeof *out);
    if (!out) return sy_ctx_last_error(CTX);
    for (size_t i = 0; i < n; i++) {
        const sy_expr *s = i < n - x->ndim ? KI(c, 1) : x->sizes[i - (n - x->ndim)];
        if ((st = op_require(c, sy_expr_ge(CTX, r[i], KI(c, 0)), "Trying to create tensor with negative dimension %s", SHOW(r[i]))))
            return st;
        out[i] = sy_expr_mul(CTX, s, r[i]);
    }
    return op_set_tensor(c, x->dtype, n, out);
}

/* movedim / moveaxis(input, source, destination) (TensorShape.cpp movedim):
 * ints or lists of the same length, no repeats; the other dims keep their
 * order in the free positions. */
static sy_status movedim(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    int64_t src[64], dst[64];
    size_t ns, nd;
    const sy_value *sv = op_arg(c, 1, "source"), *dv = op_arg(c, 2, "destination");
    if (!sv || !dv) return op_err(c, SY_EINVAL, "expected movedim(input, source, destination)");
    opcall c1 = *c;
    c1.nargs = 0; /* no varargs: one int or one list each */
    c1.nkw = 2;
    const char *kn[2] = {"source", "destination"};
    sy_value kv[2] = {*sv, *dv};
    c1.kwnames = kn;
    c1.kwvals = kv;
    if ((st = const_list(&c1, (size_t)-1, "source", src, 64, &ns)) || (st = const_list(&c1, (size_t)-1, "destination", dst, 64, &nd)))
        return st;
    if (ns != nd)
        return op_err(c, SY_EINVAL, "movedim: Invalid source or destination dims: source (%zu dims) should contain the same number of dims as destination (%zu dims)", ns, nd);
    size_t n = x->ndim ? x->ndim : 1;
    bool used_s[64] = {false}, used_d[64] = {false};
    long order[64];
    for (size_t i = 0; i < 64; i++) order[i] = -1;
    for (size_t i = 0; i < ns; i++) {
        size_t a, b;
        if ((st = op_wrap_dim(c, src[i], n, &a)) || (st = op_wrap_dim(c, dst[i], n, &b))) return st;
        if (used_s[a]) return op_err(c, SY_EINVAL, "movedim: repeated dim in `source`");
        if (used_d[b]) return op_err(c, SY_EINVAL, "movedim: repeated dim in `destination`");
        used_s[a] = used_d[b] = true;
        order[b] = (long)a;
    }
    if (x->ndim == 0) return op_set_tensor(c, x->dtype, 0, NULL);
    size_t next = 0;
    for (size_t b = 0; b < n; b++) {
        if (order[b] >= 0) continue;
        while (used_s[next]) next++;
        order[b] = (long)next++;
    }
    const sy_expr **out = sy_env_alloc(c->env, n * sizeof *out), **ost = sy_env_alloc(c->env, n * sizeof *ost);
    if (!out || !ost) return sy_ctx_last_error(CTX);
    for (size_t b = 0; b < n; b++) {
        out[b] = x->sizes[order[b]];
        if (x->strides) ost[b] = x->strides[order[b]];
    }
    /* self.permute(perm) (TensorShape.cpp movedim): the strides permuted like the sizes (NULL: not modelled) */
    return op_set_strided(c, x->dtype, n, out, x->strides ? ost : NULL);
}

/* swapaxes / swapdims: transpose (aliases in native_functions.yaml) */
static sy_status swapaxes(opcall *c)
{
    const sy_value *x = op_arg(c, 0, "input");
    const sy_value *a = op_arg(c, 1, !strcmp(c->op, "swapaxes") ? "axis0" : "dim0");
    const sy_value *b = op_arg(c, 2, !strcmp(c->op, "swapaxes") ? "axis1" : "dim1");
    if (!x || !a || !b) return op_err(c, SY_EINVAL, "expected %s(input, dim0, dim1)", c->op);
    sy_value args[3] = {*x, *a, *b};
    return call_op(c, "transpose", 3, args);
}

/* narrow_copy(input, dim, start, length): narrow's sizes and checks, a new
 * contiguous tensor (TensorShape.cpp narrow_copy_dense_cpu) */
static sy_status narrow_copy(opcall *c)
{
    if (c->nkw) return op_err(c, SY_EINVAL, "narrow_copy takes positional arguments");
    sy_status st = call_op(c, "narrow", c->nargs, c->args);
    if (st) return st;
    const sy_tensor *t = c->out->u.t;
    return op_set_tensor(c, t->dtype, t->ndim, t->sizes);
}

/* squeeze_ / unsqueeze_ / expand_as / view_as / reshape_as: the out-of-place
 * op with the other tensor's sizes */
static sy_status inplace_alias(opcall *c)
{
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)strlen(c->op) - 1, c->op);
    return call_op(c, name, c->nargs, c->args);
}

static sy_status as_other(opcall *c)
{
    const sy_value *x = op_arg(c, 0, "input"), *o = op_arg(c, 1, "other");
    if (!x || !o || o->kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "expected %s(input, other: Tensor)", c->op);
    size_t n = o->u.t->ndim;
    sy_value *args = sy_env_alloc(c->env, (n + 1) * sizeof *args);
    if (!args) return sy_ctx_last_error(CTX);
    args[0] = *x;
    for (size_t i = 0; i < n; i++) args[i + 1] = sy_value_int(o->u.t->sizes[i]);
    sy_value lst = sy_value_list(c->env, n, args + 1);
    sy_value two[2] = {*x, lst};
    const char *op = !strcmp(c->op, "expand_as") ? "expand" : !strcmp(c->op, "view_as") ? "view" : "reshape";
    return call_op(c, op, 2, two);
}

/* ------------------------------------------------------------------ diagonals */

/* diagonal length (TensorShape.cpp diagonal): offset >= 0: max(min(s1, s2 -
 * offset), 0); offset < 0: max(min(s1 + offset, s2), 0). Both branches are one
 * expression, max(min(s1 + min(offset, 0), s2 - max(offset, 0)), 0), so a
 * symbolic offset (torch.diagonal(x, T // 2)) is no question (it was
 * specialized to its example) */
static const sy_expr *diag_len(opcall *c, const sy_expr *s1, const sy_expr *s2, const sy_expr *off)
{
    const sy_expr *zero = KI(c, 0);
    const sy_expr *m = sy_expr_min(CTX, sy_expr_add(CTX, s1, sy_expr_min(CTX, off, zero)), sy_expr_sub(CTX, s2, sy_expr_max(CTX, off, zero)));
    return sy_expr_max(CTX, m, zero);
}

static sy_status diagonal(opcall *c)
{
    const sy_tensor *x;
    const sy_expr *off;
    int64_t d1, d2;
    size_t a, b;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_int_def(c, 1, "offset", 0, &off)) ||
        (st = op_const_int(c, 2, "dim1", 0, &d1)) || (st = op_const_int(c, 3, "dim2", 1, &d2)) ||
        (st = op_wrap_dim(c, d1, x->ndim, &a)) || (st = op_wrap_dim(c, d2, x->ndim, &b)))
        return st;
    if (a == b) return op_err(c, SY_EINVAL, "diagonal dimensions cannot be identical %lld, %lld", (long long)d1, (long long)d2);
    const sy_expr **out = sy_env_alloc(c->env, x->ndim * sizeof *out), **ost = sy_env_alloc(c->env, x->ndim * sizeof *ost);
    if (!out || !ost) return sy_ctx_last_error(CTX);
    size_t m = 0;
    for (size_t i = 0; i < x->ndim; i++)
        if (i != a && i != b) {
            if (x->strides) ost[m] = x->strides[i];
            out[m++] = x->sizes[i];
        }
    /* TensorShape.cpp diagonal: dim1 and dim2 erased, the joint dim appended with
     * stride(dim1) + stride(dim2) (the offset moves only the storage offset) */
    if (x->strides && !(ost[m] = sy_expr_add(CTX, x->strides[a], x->strides[b]))) return sy_ctx_last_error(CTX);
    if (!(out[m++] = diag_len(c, x->sizes[a], x->sizes[b], off))) return sy_ctx_last_error(CTX);
    return op_set_strided(c, x->dtype, m, out, x->strides ? ost : NULL);
}

/* diag(input, diagonal=0): 1-D -> square (n + |k|); 2-D -> its diagonal,
 * whose unclamped length min(s0, s1 - k) (k >= 0) / min(s0 + k, s1) must
 * not be negative (TensorShape.cpp diag / diag_cpu resize_output) */
static sy_status diag(opcall *c)
{
    const sy_tensor *x;
    int64_t k;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "diagonal", 0, &k))) return st;
    if (x->ndim == 1) {
        const sy_expr *n = sy_expr_add_si(CTX, x->sizes[0], k < 0 ? -k : k);
        const sy_expr *sz[2] = {n, n};
        return op_set_tensor(c, x->dtype, 2, sz);
    }
    if (x->ndim != 2) return op_err(c, SY_EINVAL, "diag(): Supports 1D or 2D tensors. Got %zuD", x->ndim);
    /* 2.x: diag of a matrix is diagonal(offset).clone() (TensorShape.cpp diag, 2.0+): the length is
     * clamped at 0. diag_cpu (1.13, TriangularOps.cpp) does not clamp: a negative one fails */
    if (!op_torch1(c)) {
        const sy_expr *len = diag_len(c, x->sizes[0], x->sizes[1], KI(c, k));
        if (!len) return sy_ctx_last_error(CTX);
        return op_set_tensor(c, x->dtype, 1, &len);
    }
    const sy_expr *n = k >= 0 ? sy_expr_min(CTX, x->sizes[0], sy_expr_add_si(CTX, x->sizes[1], -k))
                              : sy_expr_min(CTX, sy_expr_add_si(CTX, x->sizes[0], k), x->sizes[1]);
    if ((st = op_require(c, sy_expr_ge(CTX, n, KI(c, 0)), "diag(): the diagonal length %s is negative (numel: integer multiplication overflow)", SHOW(n))))
        return st;
    return op_set_tensor(c, x->dtype, 1, &n);
}

/* diag_embed(input, offset=0, dim1=-2, dim2=-1) (TensorShape.cpp diag_embed: new_dim_len =
 * std::abs(offset) + self.size(-1)): two new dims of n + |offset|, Max(offset, -offset) for a
 * symbolic offset (no question; it was specialized to its example) */
static sy_status diag_embed(opcall *c)
{
    const sy_tensor *x;
    const sy_expr *off;
    int64_t d1, d2;
    size_t a, b;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_int_def(c, 1, "offset", 0, &off)) ||
        (st = op_const_int(c, 2, "dim1", -2, &d1)) || (st = op_const_int(c, 3, "dim2", -1, &d2)) ||
        (st = op_wrap_dim(c, d1, x->ndim + 1, &a)) || (st = op_wrap_dim(c, d2, x->ndim + 1, &b)))
        return st;
    if (a == b) return op_err(c, SY_EINVAL, "diagonal dimensions cannot be identical %lld, %lld", (long long)d1, (long long)d2);
    if (x->ndim == 0) return op_err(c, SY_EINVAL, "diag_embed: the input must have at least one dimension");
    const sy_expr *n = sy_expr_add(CTX, x->sizes[x->ndim - 1], sy_expr_max(CTX, off, sy_expr_neg(CTX, off)));
    if (!n) return sy_ctx_last_error(CTX);
    const sy_expr **out = sy_env_alloc(c->env, (x->ndim + 1) * sizeof *out);
    if (!out) return sy_ctx_last_error(CTX);
    size_t k = 0;
    for (size_t i = 0; i <= x->ndim; i++) out[i] = (i == a || i == b) ? n : x->sizes[k++];
    return op_set_tensor(c, x->dtype, x->ndim + 1, out);
}

/* get_tril_size (TensorFactories.h) */
static int64_t tril_size(int64_t row, int64_t col, int64_t offset)
{
    if (row == 0 || col == 0) return 0;
    int64_t m_first = offset > 0 ? (col < 1 + offset ? col : 1 + offset) : (row + offset > 0);
    int64_t m_last = col < row + offset ? col : row + offset;
    if (m_last < 0) m_last = 0;
    int64_t n_all = row < row + offset ? row : row + offset;
    if (n_all < 0) n_all = 0;
    int64_t n_trap = m_last - m_first + 1;
    int64_t s = (m_first + m_last) * n_trap >> 1;
    int64_t diff = n_all - n_trap;
    if (diff > 0) s += diff * col;
    return s;
}

/* triu_indices / tril_indices(row, col, offset=0): (2, count) int64;
 * triu count = row*col - tril_size(row, col, offset - 1). row and col are
 * specialized to constants (the count is a piecewise polynomial). */
static sy_status tri_indices(opcall *c)
{
    int64_t row, col, off;
    sy_status st;
    if ((st = op_const_int(c, 0, "row", 0, &row)) || (st = op_const_int(c, 1, "col", 0, &col)) ||
        (st = op_const_int(c, 2, "offset", 0, &off)))
        return st;
    if (row < 0) return op_err(c, SY_EINVAL, "row must be non-negative, got%lld", (long long)row);
    if (col < 0) return op_err(c, SY_EINVAL, "col must be non-negative, got%lld", (long long)col);
    if (row > 3037000499 || col > 3037000499 || off > 3037000499 || off < -3037000499)
        return op_err(c, SY_EOVERFLOW, "row, col or offset too large");
    int64_t n = !strcmp(c->op, "tril_indices") ? tril_size(row, col, off) : row * col - tril_size(row, col, off - 1);
    sy_dtype dt = SY_DT_INT64;
    const sy_value *dv = op_arg(c, (size_t)-1, "dtype");
    if (dv && dv->kind == SY_V_DTYPE) dt = dv->u.dtype;
    const sy_expr *sz[2] = {KI(c, 2), KI(c, n)};
    if ((st = op_set_tensor(c, dt, 2, sz))) return st;
    /* the values (TensorFactories.cpp tril_indices_cpu / triu_indices_cpu): tril walks rows r from
     * max(0, -offset) to row - 1, each the columns 0 .. min(r + offset, col - 1); triu walks rows r
     * from 0, each the columns max(0, r + offset) .. col - 1, while a column is left (r <= col - 1 -
     * offset). Row 0 of the result holds the row indices, row 1 the column indices; with an element,
     * each end below is attained: tril rows max(0, -offset) .. row - 1 (the last row is not empty
     * when the first is not), columns 0 .. min(col - 1, row - 1 + offset); triu rows
     * 0 .. min(row - 1, col - 1 - offset) (row 0 is not empty when any is), columns
     * max(0, offset) .. col - 1. One part per row (sy_vbounds.rows), checked where it is an index. */
    int64_t mn, mx;
    if (n <= 0 || !sy_vb_int_dtype(dt, &mn, &mx, NULL)) return SY_OK;
    int64_t lo[2], hi[2];
    if (!strcmp(c->op, "tril_indices")) {
        lo[0] = off < 0 ? -off : 0, hi[0] = row - 1;
        lo[1] = 0, hi[1] = col - 1 < row - 1 + off ? col - 1 : row - 1 + off;
    } else {
        lo[0] = 0, hi[0] = row - 1 < col - 1 - off ? row - 1 : col - 1 - off;
        lo[1] = off > 0 ? off : 0, hi[1] = col - 1;
    }
    if (lo[0] < mn || hi[0] > mx || lo[1] < mn || hi[1] > mx) return SY_OK; /* wrapped at a narrow dtype: data */
    sy_vbounds *b = &c->env->vpend_b;
    memset(b, 0, sizeof *b);
    b->n = 2;
    b->rows = 1;
    for (int k = 0; k < 2; k++) b->part[k] = (struct sy_vpart){KI(c, lo[k]), KI(c, hi[k]), KI(c, n), 0};
    c->env->vpend = 1;
    return SY_OK;
}

/* ------------------------------------------------------------------ unfold / fold */

/* Tensor.unfold(dimension, size, step) (TensorShape.cpp unfold): size <=
 * size(dim) (1 for 0-d), step > 0; dim becomes (L - size) // step + 1 and a
 * last dim of `size` is appended. */
static sy_status tensor_unfold(opcall *c)
{
    const sy_tensor *x;
    int64_t d, step;
    const sy_expr *size;
    size_t w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "dimension", 0, &d)) || (st = op_int(c, 2, "size", &size)) ||
        (st = op_const_int(c, 3, "step", 1, &step)) || (st = op_wrap_dim0(c, d, x->ndim, &w)))
        return st;
    const sy_expr *L = x->ndim ? x->sizes[w] : KI(c, 1);
    if ((st = op_require(c, sy_expr_le(CTX, size, L), "maximum size for tensor at dimension %zu is %s but size is %s", w, SHOW(L), SHOW(size))))
        return st;
    if (step <= 0) return op_err(c, SY_EINVAL, "step is %lld but must be > 0", (long long)step);
    if ((st = op_require(c, sy_expr_ge(CTX, size, KI(c, 0)), "Trying to create tensor with negative dimension %s", SHOW(size)))) return st;
    const sy_expr **out = op_sizes_copy(c, x, 1), **ost = sy_env_alloc(c->env, (x->ndim + 1) * sizeof *ost);
    if (!out || !ost) return sy_ctx_last_error(CTX);
    if (x->ndim) out[w] = sy_expr_add_si(CTX, sy_expr_floordiv(CTX, sy_expr_sub(CTX, L, size), KI(c, step)), 1);
    out[x->ndim] = size;
    /* TensorShape.cpp unfold: as_strided with dim's stride times step, and dim's stride (1 for a
     * 0-dim input) appended for the window */
    if (x->strides || !x->ndim) {
        for (size_t i = 0; i < x->ndim; i++) ost[i] = x->strides[i];
        ost[x->ndim] = x->ndim ? x->strides[w] : KI(c, 1);
        if (x->ndim && !(ost[w] = sy_expr_mul_si(CTX, x->strides[w], step))) return sy_ctx_last_error(CTX);
    }
    return op_set_strided(c, x->dtype, x->ndim + 1, out, x->strides || !x->ndim ? ost : NULL);
}

static sy_status pairs4(opcall *c, size_t pos0, int64_t k[2], int64_t d[2], int64_t p[2], int64_t s[2])
{
    static const int64_t ones[2] = {1, 1}, zeros[2] = {0, 0};
    sy_status st;
    if ((st = op_int_list(c, pos0, "kernel_size", 2, NULL, k)) || (st = op_int_list(c, pos0 + 1, "dilation", 2, ones, d)) ||
        (st = op_int_list(c, pos0 + 2, "padding", 2, zeros, p)) || (st = op_int_list(c, pos0 + 3, "stride", 2, ones, s)))
        return st;
    if (k[0] <= 0 || k[1] <= 0)
        return op_err(c, SY_EINVAL, "kernel size should be greater than zero, but got kernel_height: %lld kernel_width: %lld", (long long)k[0], (long long)k[1]);
    if (d[0] <= 0 || d[1] <= 0)
        return op_err(c, SY_EINVAL, "dilation should be greater than zero, but got dilation_height: %lld dilation_width: %lld", (long long)d[0], (long long)d[1]);
    if (p[0] < 0 || p[1] < 0)
        return op_err(c, SY_EINVAL, "padding should be non-negative, but got pad_height: %lld pad_width: %lld", (long long)p[0], (long long)p[1]);
    if (s[0] <= 0 || s[1] <= 0)
        return op_err(c, SY_EINVAL, "stride should be greater than zero, but got stride_height: %lld stride_width: %lld", (long long)s[0], (long long)s[1]);
    if (k[0] > 1000000 || k[1] > 1000000 || d[0] > 1000000 || d[1] > 1000000 || p[0] > 1000000000 || p[1] > 1000000000)
        return op_err(c, SY_EOVERFLOW, "kernel_size, dilation or padding too large");
    return SY_OK;
}

/* sliding blocks along one dim: div_rtn(L + 2p - (d(k-1) + 1), s) + 1 */
static const sy_expr *blocks(opcall *c, const sy_expr *L, int64_t k, int64_t d, int64_t p, int64_t s)
{
    return sy_expr_add_si(CTX, sy_expr_floordiv(CTX, sy_expr_add_si(CTX, L, 2 * p - (d * (k - 1) + 1)), KI(c, s)), 1);
}

/* F.unfold = im2col(input, kernel_size, dilation, padding, stride)
 * (im2col_shape_check): 3-D (C, H, W) with every dim non-zero, or 4-D with
 * C, H, W non-zero (batch may be 0); out (N?, C*kh*kw, bh*bw), both block
 * counts >= 1. */
static sy_status im2col(opcall *c)
{
    const sy_tensor *x;
    int64_t k[2], d[2], p[2], s[2];
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = pairs4(c, 1, k, d, p, s))) return st;
    if (x->ndim != 3 && x->ndim != 4)
        return op_err(c, SY_EINVAL, "Expected 3D or 4D (batch mode) tensor input with possible 0 batch size and non-zero dimensions, but got a %zuD tensor", x->ndim);
    size_t b = x->ndim == 4;
    for (size_t i = 0; i < 3; i++)
        if ((st = op_require(c, sy_expr_ge(CTX, x->sizes[b + i], KI(c, 1)),
                             "Expected 3D or 4D (batch mode) tensor input with possible 0 batch size and non-zero dimensions, but dim %zu is %s",
                             b + i, SHOW(x->sizes[b + i]))))
            return st;
    const sy_expr *bh = blocks(c, x->sizes[b + 1], k[0], d[0], p[0], s[0]), *bw = blocks(c, x->sizes[b + 2], k[1], d[1], p[1], s[1]);
    if ((st = op_require(c, sy_expr_and(CTX, sy_expr_ge(CTX, bh, KI(c, 1)), sy_expr_ge(CTX, bw, KI(c, 1))),
                         "Given input with spatial size (%s, %s), calculated shape of the array of sliding blocks as (%s, %s), but its components must be at least one.",
                         SHOW(x->sizes[b + 1]), SHOW(x->sizes[b + 2]), SHOW(bh), SHOW(bw))))
        return st;
    const sy_expr *out[3];
    size_t n = 0;
    if (b) out[n++] = x->sizes[0];
    out[n++] = sy_expr_mul_si(CTX, x->sizes[b], k[0] * k[1]);
    out[n++] = sy_expr_mul(CTX, bh, bw);
    return op_set_tensor(c, x->dtype, n, out);
}

/* "unfold" names both Tensor.unfold(dimension, size, step) and F.unfold(input,
 * kernel_size, dilation=1, padding=0, stride=1) in a captured graph. F.unfold
 * when kernel_size/dilation/padding/stride is a keyword, when argument #1 is
 * a list, or with 2, 3 or 5 positional arguments; Tensor.unfold otherwise
 * (exactly 4 positional arguments, or dimension/size/step keywords). */
static sy_status unfold(opcall *c)
{
    int fn = op_arg(c, (size_t)-1, "kernel_size") || op_arg(c, (size_t)-1, "dilation") || op_arg(c, (size_t)-1, "padding") ||
             op_arg(c, (size_t)-1, "stride");
    if (!fn && (op_arg(c, (size_t)-1, "dimension") || op_arg(c, (size_t)-1, "step"))) return tensor_unfold(c);
    if (!fn && c->nargs >= 2 && c->args[1].kind == SY_V_LIST) fn = 1;
    if (!fn && c->nargs != 4) fn = 1;
    return fn ? im2col(c) : tensor_unfold(c);
}

/* F.fold = col2im(input, output_size, kernel_size, dilation, padding, stride)
 * (col2im_shape_check): 2-D (C*kh*kw, L) with both dims non-zero or 3-D
 * with dims 1, 2 non-zero; C*kh*kw divisible by kh*kw; L equal to the block
 * count for output_size; blocks >= 1. Out (N?, C, oh, ow); output_size may be symbolic
 * (F.fold(x, output_size=(h, w)) with h, w read from sizes). */
static sy_status col2im(opcall *c)
{
    const sy_tensor *x;
    const sy_expr *o[2];
    int64_t k[2], d[2], p[2], s[2];
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_sym_list(c, 1, "output_size", 2, o)) || (st = pairs4(c, 2, k, d, p, s)))
        return st;
    if (x->ndim != 2 && x->ndim != 3)
        return op_err(c, SY_EINVAL, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got a %zuD tensor", x->ndim);
    if ((st = op_require(c, sy_expr_and(CTX, sy_expr_ge(CTX, o[0], KI(c, 1)), sy_expr_ge(CTX, o[1], KI(c, 1))),
                         "output should be greater than zero, but got output_height: %s output_width: %s", SHOW(o[0]), SHOW(o[1]))))
        return st;
    size_t b = x->ndim == 3;
    for (size_t i = 0; i < 2; i++)
        if ((st = op_require(c, sy_expr_ge(CTX, x->sizes[b + i], KI(c, 1)),
                             "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but dim %zu is %s",
                             b + i, SHOW(x->sizes[b + i]))))
            return st;
    const sy_expr *plane = x->sizes[b];
    if ((st = op_require(c, sy_expr_eq(CTX, sy_expr_mod(CTX, plane, KI(c, k[0] * k[1])), KI(c, 0)),
                         "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=%s and kernel_size=(%lld, %lld).",
                         SHOW(plane), (long long)k[0], (long long)k[1])))
        return st;
    /* div_rtn(o + 2p - (d(k-1) + 1), s) + 1: the block count of unfold (floor division) */
    const sy_expr *bh = blocks(c, o[0], k[0], d[0], p[0], s[0]), *bw = blocks(c, o[1], k[1], d[1], p[1], s[1]);
    if ((st = op_require(c, sy_expr_eq(CTX, x->sizes[b + 1], sy_expr_mul(CTX, bh, bw)),
                         "expected size of input's dimension 2 to match the calculated number of sliding blocks %s * %s = %s, but got input.size(2)=%s.",
                         SHOW(bh), SHOW(bw), SHOW(sy_expr_mul(CTX, bh, bw)), SHOW(x->sizes[b + 1]))))
        return st;
    if ((st = op_require(c, sy_expr_and(CTX, sy_expr_ge(CTX, bh, KI(c, 1)), sy_expr_ge(CTX, bw, KI(c, 1))),
                         "calculated shape of the array of sliding blocks as (%s, %s), which is too small (non-positive)", SHOW(bh), SHOW(bw))))
        return st;
    const sy_expr *out[4];
    size_t n = 0;
    if (b) out[n++] = x->sizes[0];
    out[n++] = sy_expr_floordiv(CTX, plane, KI(c, k[0] * k[1]));
    out[n++] = o[0];
    out[n++] = o[1];
    return op_set_tensor(c, x->dtype, n, out);
}

/* ------------------------------------------------------------------ einsum */

/* einsum(equation, *operands) (Linear.cpp einsum, PyTorch 1.13): labels
 * [a-zA-Z], one '...' per operand (broadcast, aligned on the right); the
 * number of labels must equal the operand's rank (without '...'), or be at
 * most the rank with it; a label repeated within an operand takes its
 * diagonal (sizes must be equal); across operands the sizes of a label
 * broadcast (1 takes the other size); explicit output "->": labels must
 * occur in the inputs, at most once; implicit output: '...' then the labels
 * that occur exactly once, in alphabetical order (upper case first). */
#define EINSUM_LABELS 52
static int label_index(char ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return 26 + ch - 'a';
    return -1;
}

static sy_status einsum(opcall *c)
{
    const sy_value *ev = op_arg(c, 0, "equation");
    if (!ev || ev->kind != SY_V_STR) return op_err(c, SY_EINVAL, "einsum(): expected the equation string as argument #0");
    const sy_value *ops;
    size_t nops;
    if (c->nargs == 2 && c->args[1].kind == SY_V_LIST) {
        ops = c->args[1].u.list.items;
        nops = c->args[1].u.list.n;
    } else {
        ops = c->args + 1;
        nops = c->nargs ? c->nargs - 1 : 0;
    }
    for (size_t i = 0; i < nops; i++)
        if (ops[i].kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "einsum(): operand %zu is not a tensor", i);
    const char *eq = ev->u.s, *arrow = strstr(eq, "->");
    const sy_expr *lsize[EINSUM_LABELS] = {NULL};
    int count[EINSUM_LABELS] = {0};
    const sy_expr **ell = NULL; /* broadcast ellipsis sizes */
    size_t nell = 0;
    int any_ell = 0;
    sy_status st;
    const char *p = eq;
    size_t op = 0;
    while (1) { /* one operand's subscripts per iteration */
        const char *end = p;
        while (*end && *end != ',' && (!arrow || end < arrow)) end++;
        if (op >= nops) return op_err(c, SY_EINVAL, "einsum(): more operands were provided than specified in the equation");
        const sy_tensor *t = ops[op].u.t;
        int labels[64], has_ell = 0;
        size_t nl = 0, ell_at = 0;
        for (const char *q = p; q < end; q++) {
            if (*q == ' ') continue;
            if (*q == '.') {
                if (has_ell || q + 2 >= end + 0 || q[1] != '.' || q[2] != '.')
                    return op_err(c, SY_EINVAL, "einsum(): found '.' for operand %zu that is not part of any ellipsis", op);
                has_ell = 1;
                ell_at = nl;
                q += 2;
                continue;
            }
            int li = label_index(*q);
            if (li < 0) return op_err(c, SY_EINVAL, "einsum(): invalid subscript given at index %ld in the equation string, subscripts must be in [a-zA-Z]", (long)(q - eq));
            if (nl == 64) return op_err(c, SY_EINVAL, "einsum(): too many subscripts");
            labels[nl++] = li;
        }
        if (has_ell ? nl > t->ndim : nl != t->ndim)
            return op_err(c, SY_EINVAL, "einsum(): the number of subscripts in the equation (%zu) %s the number of dimensions (%zu) for operand %zu%s",
                          nl, has_ell ? "is more than" : "does not match", t->ndim, op, has_ell ? "" : " and no ellipsis was given");
        size_t ne = t->ndim - nl;
        int local[EINSUM_LABELS];
        for (int i = 0; i < EINSUM_LABELS; i++) local[i] = -1;
        for (size_t j = 0; j < t->ndim; j++) {
            if (has_ell && j >= ell_at && j < ell_at + ne) continue;
            int li = labels[j < ell_at || !has_ell ? j : j - ne];
            const sy_expr *sz = t->sizes[j];
            if (local[li] >= 0) {
                if ((st = op_require(c, sy_expr_eq(CTX, sz, t->sizes[local[li]]),
                                     "einsum(): subscript %c is repeated for operand %zu but the sizes don't match, %s != %s",
                                     (char)(li < 26 ? 'A' + li : 'a' + li - 26), op, SHOW(t->sizes[local[li]]), SHOW(sz))))
                    return st;
                continue;
            }
            local[li] = (int)j;
            count[li]++;
            if (!lsize[li]) {
                lsize[li] = sz;
                continue;
            }
            const sy_expr **r;
            size_t n;
            if ((st = op_broadcast(c, &lsize[li], 1, &sz, 1, &r, &n))) return st;
            lsize[li] = r[0];
        }
        if (has_ell) {
            any_ell = 1;
            const sy_expr **r;
            size_t n;
            if ((st = op_broadcast(c, ell ? ell : t->sizes, ell ? nell : 0, t->sizes + ell_at, ne, &r, &n))) return st;
            ell = r;
            nell = n;
        }
        op++;
        if (*end != ',') {
            p = end;
            break;
        }
        p = end + 1;
    }
    if (op < nops) return op_err(c, SY_EINVAL, "einsum(): more operands were provided than specified in the equation");
    if (nops == 0) return op_err(c, SY_EINVAL, "einsum(): must provide at least one operand");
    const sy_expr **out = sy_env_alloc(c->env, (nell + EINSUM_LABELS) * sizeof *out);
    if (!out) return sy_ctx_last_error(CTX);
    size_t n = 0;
    if (arrow) {
        int seen[EINSUM_LABELS] = {0}, out_ell = 0;
        for (const char *q = arrow + 2; *q; q++) {
            if (*q == ' ') continue;
            if (*q == '.') {
                if (out_ell || q[1] != '.' || q[2] != '.')
                    return op_err(c, SY_EINVAL, "einsum(): found '.' for output that is not part of any ellipsis");
                out_ell = 1;
                q += 2;
                for (size_t i = 0; i < nell; i++) out[n++] = ell[i];
                continue;
            }
            int li = label_index(*q);
            if (li < 0) return op_err(c, SY_EINVAL, "einsum(): invalid subscript given at index %ld in the equation string, subscripts must be in [a-zA-Z]", (long)(q - eq));
            if (seen[li]) return op_err(c, SY_EINVAL, "einsum(): output subscript %c appears more than once in the output", *q);
            if (!count[li]) return op_err(c, SY_EINVAL, "einsum(): output subscript %c does not appear in the equation for any input operand", *q);
            seen[li] = 1;
            out[n++] = lsize[li];
        }
        (void)any_ell;
    } else {
        for (size_t i = 0; i < nell; i++) out[n++] = ell[i];
        for (int li = 0; li < EINSUM_LABELS; li++)
            if (count[li] == 1) out[n++] = lsize[li];
    }
    return op_set_tensor(c, ops[0].u.t->dtype, n, out);
}

const opentry sy_ops_index[] = {
    OP_ROW("gather", gather),
    OP_ROW("scatter", scatter),
    OP_ROW("scatter_", scatter),
    OP_ROW("scatter_add", scatter),
    OP_ROW("scatter_add_", scatter),
    OP_ROW("scatter_reduce", scatter),
    OP_ROW("take_along_dim", take_along_dim),
    OP_ROW("masked_select", masked_select, OP_IMPURE),
    OP_ROW("nonzero", nonzero, OP_IMPURE),
    OP_ROW("argwhere", nonzero, OP_IMPURE),
    OP_ROW("masked_fill", masked_fill),
    OP_ROW("masked_fill_", masked_fill),
    OP_ROW("repeat_interleave", repeat_interleave, OP_IMPURE),
    OP_ROW("tensor_split", tensor_split, OP_IMPURE | OP_CARRIES, OPL_OWN),
    OP_ROW("unbind", unbind, OP_CARRIES, OPL_OWN),
    OP_ROW("flip", flip),
    OP_ROW("fliplr", flip),
    OP_ROW("flipud", flip),
    OP_ROW("roll", roll),
    OP_ROW("repeat", repeat),
    OP_ROW("tile", repeat),
    OP_ROW("movedim", movedim, OP_CARRIES, OPL_OWN),
    OP_ROW("moveaxis", movedim, OP_CARRIES, OPL_OWN),
    OP_ROW("swapaxes", swapaxes, OP_CARRIES, OPL_OWN),
    OP_ROW("swapdims", swapaxes, OP_CARRIES, OPL_OWN),
    OP_ROW("squeeze_", inplace_alias, 0, OPL_VIEW),
    OP_ROW("unsqueeze_", inplace_alias, 0, OPL_VIEW),
    OP_ROW("transpose_", inplace_alias, 0, OPL_VIEW),
    OP_ROW("expand_as", as_other, 0, OPL_OWN),
    OP_ROW("view_as", as_other, 0, OPL_OWN),
    OP_ROW("reshape_as", as_other, 0, OPL_OWN),
    OP_ROW("diagonal", diagonal, OP_CARRIES, OPL_OWN),
    OP_ROW("diag", diag),
    OP_ROW("diag_embed", diag_embed),
    OP_ROW("triu_indices", tri_indices),
    OP_ROW("tril_indices", tri_indices),
    OP_ROW("unfold", unfold, OP_CARRIES, OPL_OWN),
    OP_ROW("fold", col2im),
    OP_ROW("einsum", einsum),
    OP_ROW("narrow_copy", narrow_copy),
    OP_END};
