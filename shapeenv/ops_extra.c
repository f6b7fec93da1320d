/* More of the common surface (PyTorch 1.13): broadcasting helpers, stacking,
 * vector products, rotations, nan-reductions, pointwise losses, random
 * factories and windows, unflatten, take, index_add/copy/fill, conversions.
 * Sources, per op below: aten/src/ATen/native/TensorShape.cpp (broadcast_to,
 * broadcast_tensors, atleast_Nd, hstack/vstack/dstack, unflatten,
 * split_with_sizes), LinearAlgebra.cpp (mv, dot, vdot, inner),
 * ReduceOps.cpp (trace, nansum, nanmean, count_nonzero, aminmax),
 * TensorTransformations.cpp (rot90), Sorting.cpp (msort), Loss.cpp and
 * torch/nn/functional.py (mse_loss, l1_loss, smooth_l1_loss, huber_loss,
 * soft_margin_loss, kl_div, binary_cross_entropy(_with_logits)),
 * Distance.cpp (cosine_similarity, pairwise_distance), TensorFactories.cpp
 * (rand, randn, randint, *_window), TensorAdvancedIndexing.cpp (take,
 * index_add, index_copy, index_fill). */
#include <string.h>

#include "shapeenv/env_private.h"


#define CTX (c->env->ctx)
#define SHOW(e) sy_env_show(c->env, (e))

static sy_status call_op(opcall *c, const char *op, size_t n, const sy_value *args, sy_value *out)
{
    return sy_env_call(c->env, op, n, args, 0, NULL, NULL, c->where, out);
}

static sy_status list_of_tensors(opcall *c, const sy_value **items, size_t *n)
{
    *items = c->args;
    *n = c->nargs;
    if (c->nargs >= 1 && c->args[0].kind == SY_V_LIST) {
        *items = c->args[0].u.list.items;
        *n = c->args[0].u.list.n;
    }
    for (size_t i = 0; i < *n; i++)
        if ((*items)[i].kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "expected a list of tensors");
    return SY_OK;
}

/* broadcast_to(input, size): expand (a view with its strides) */
static sy_status broadcast_to(opcall *c)
{
    const sy_value *x = op_arg(c, 0, "input"), *s = op_arg(c, 1, "size");
    if (!x || !s) return op_err(c, SY_EINVAL, "expected broadcast_to(input, size)");
    sy_value a[2] = {*x, *s};
    return call_op(c, "expand", 2, a, c->out);
}

/* broadcast_tensors(*tensors): every tensor expanded to the broadcast shape */
static sy_status broadcast_tensors(opcall *c)
{
    const sy_value *items;
    size_t n;
    sy_status st;
    if ((st = list_of_tensors(c, &items, &n))) return st;
    const sy_expr **sz = NULL;
    size_t nd = 0;
    for (size_t i = 0; i < n; i++) {
        const sy_tensor *t = items[i].u.t;
        if (!i) {
            sz = op_sizes_copy(c, t, 0);
            nd = t->ndim;
            if (!sz) return sy_ctx_last_error(CTX);
        } else if ((st = op_broadcast(c, sz, nd, t->sizes, t->ndim, &sz, &nd))) {
            return st;
        }
    }
    sy_value *outs = sy_env_alloc(c->env, (n ? n : 1) * sizeof *outs);
    sy_value *lst = sy_env_alloc(c->env, (nd ? nd : 1) * sizeof *lst);
    if (!outs || !lst) return sy_ctx_last_error(CTX);
    for (size_t k = 0; k < nd; k++) lst[k] = sy_value_int(sz[k]);
    for (size_t i = 0; i < n; i++) {
        sy_value a[2] = {items[i], sy_value_list(c->env, nd, lst)};
        if ((st = call_op(c, "expand", 2, a, &outs[i]))) return st;
    }
    *c->out = sy_value_list(c->env, n, outs);
    return SY_OK;
}

/* atleast_1d/2d/3d: 0-d -> (1)/(1,1)/(1,1,1); 1-d (n) -> (1,n) / (1,n,1); 2-d (m,n) -> (m,n,1) for 3d */
static const sy_tensor *atleast(opcall *c, const sy_tensor *t, int k)
{
    const sy_expr *sz[64];
    size_t n = 0;
    if (t->ndim >= (size_t)k) return t;
    if (t->ndim == 0) {
        for (int i = 0; i < k; i++) sz[n++] = KI(c, 1);
    } else if (t->ndim == 1) {
        sz[n++] = KI(c, 1);
        sz[n++] = t->sizes[0];
        if (k == 3) sz[n++] = KI(c, 1);
    } else {
        sz[n++] = t->sizes[0];
        sz[n++] = t->sizes[1];
        sz[n++] = KI(c, 1);
    }
    return op_new_tensor(c, t->dtype, n, sz);
}

static sy_status atleast_nd(opcall *c)
{
    int k = c->op[8] - '0';
    const sy_value *items;
    size_t n;
    sy_status st;
    if ((st = list_of_tensors(c, &items, &n))) return st;
    if (n == 1 && c->args[0].kind == SY_V_TENSOR) {
        const sy_tensor *r = atleast(c, items[0].u.t, k);
        if (!r) return sy_ctx_last_error(CTX);
        if (r == items[0].u.t) return op_set_strided(c, r->dtype, r->ndim, r->sizes, r->strides);
        *c->out = sy_value_tensor(r);
        return SY_OK;
    }
    const sy_tensor **ts = sy_env_alloc(c->env, (n ? n : 1) * sizeof *ts);
    if (!ts) return sy_ctx_last_error(CTX);
    for (size_t i = 0; i < n; i++) ts[i] = atleast(c, items[i].u.t, k);
    return op_set_tuple(c, n, ts);
}

/* hstack (atleast_1d; cat dim 0 for 1-D, else 1), vstack / row_stack
 * (atleast_2d, cat 0), dstack (atleast_3d, cat 2) */
static sy_status hvstack(opcall *c)
{
    const sy_value *v = op_arg(c, 0, "tensors");
    if (!v || v->kind != SY_V_LIST) return op_err(c, SY_EINVAL, "expected a list of tensors");
    int k = c->op[0] == 'h' ? 1 : c->op[0] == 'd' ? 3 : 2;
    size_t n = v->u.list.n;
    if (n == 0) return op_err(c, SY_EINVAL, "%s expects a non-empty TensorList", c->op);
    sy_value *items = sy_env_alloc(c->env, n * sizeof *items);
    if (!items) return sy_ctx_last_error(CTX);
    for (size_t i = 0; i < n; i++) {
        if (v->u.list.items[i].kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "expected a list of tensors");
        const sy_tensor *t = atleast(c, v->u.list.items[i].u.t, k);
        if (!t) return sy_ctx_last_error(CTX);
        items[i] = sy_value_tensor(t);
    }
    int64_t dim = k == 1 ? (items[0].u.t->ndim == 1 ? 0 : 1) : k == 3 ? 2 : 0;
    sy_value a[2] = {sy_value_list(c->env, n, items), sy_value_int(KI(c, dim))};
    return call_op(c, "cat", 2, a, c->out);
}

/* mv(mat, vec) (n); dot / vdot (1-D, equal length) 0-d; inner: last dims equal,
 * out a.shape[:-1] + b.shape[:-1] (a 0-d operand: a product, broadcast) */
static sy_status vecprod(opcall *c)
{
    const sy_tensor *a, *b;
    sy_status st;
    int is_mv = !strcmp(c->op, "mv");
    if ((st = op_tensor(c, 0, "input", &a)) || (st = op_tensor(c, 1, is_mv ? "vec" : "other", &b))) return st;
    if (is_mv) {
        if (a->ndim != 2 || b->ndim != 1)
            return op_err(c, SY_EINVAL, "vector + matrix @ vector expected, got 1, %zu, %zu", a->ndim, b->ndim);
        if ((st = op_require(c, sy_expr_eq(CTX, a->sizes[1], b->sizes[0]), "size mismatch, got input (%s), mat (%sx%s), vec (%s)",
                             SHOW(a->sizes[0]), SHOW(a->sizes[0]), SHOW(a->sizes[1]), SHOW(b->sizes[0]))))
            return st;
        return op_set_tensor(c, a->dtype, 1, a->sizes);
    }
    if (!strcmp(c->op, "inner")) {
        if (a->ndim == 0 || b->ndim == 0) return sy_elementwise_binary(c, &c->args[0], &c->args[1]);
        if ((st = op_require(c, sy_expr_eq(CTX, a->sizes[a->ndim - 1], b->sizes[b->ndim - 1]),
                             "inner() the last dimension must match on both input tensors but got %s and %s",
                             SHOW(a->sizes[a->ndim - 1]), SHOW(b->sizes[b->ndim - 1]))))
            return st;
        const sy_expr **out = sy_env_alloc(c->env, (a->ndim + b->ndim) * sizeof *out);
        if (!out) return sy_ctx_last_error(CTX);
        size_t n = 0;
        for (size_t i = 0; i + 1 < a->ndim; i++) out[n++] = a->sizes[i];
        for (size_t i = 0; i + 1 < b->ndim; i++) out[n++] = b->sizes[i];
        return op_set_tensor(c, a->dtype, n, out);
    }
    if (a->ndim != 1 || b->ndim != 1)
        return op_err(c, SY_EINVAL, "1D tensors expected, but got %zuD and %zuD tensors", a->ndim, b->ndim);
    if ((st = op_require(c, sy_expr_eq(CTX, a->sizes[0], b->sizes[0]),
                         "inconsistent tensor size, expected tensor [%s] and src [%s] to have the same number of elements, but got %s and %s elements respectively",
                         SHOW(a->sizes[0]), SHOW(b->sizes[0]), SHOW(a->sizes[0]), SHOW(b->sizes[0]))))
        return st;
    return op_set_tensor(c, a->dtype, 0, NULL);
}

/* trace(matrix) -> 0-d */
static sy_status trace(opcall *c)
{
    const sy_tensor *x;
    sy_status st = op_tensor(c, 0, "input", &x);
    if (st) return st;
    if (x->ndim != 2) return op_err(c, SY_EINVAL, "trace: expected a matrix, but got tensor with dim %zu", x->ndim);
    return op_set_tensor(c, op_is_floating(x->dtype) || op_is_complex(x->dtype) ? x->dtype : SY_DT_INT64, 0, NULL);
}

/* rot90(input, k=1, dims=[0, 1]): two different dims of a >= 2-D input; an odd k mod 4 swaps their sizes */
static sy_status rot90(opcall *c)
{
    const sy_tensor *x;
    int64_t k;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "k", 1, &k))) return st;
    int64_t dims[2] = {0, 1};
    const sy_value *dv = op_arg(c, 2, "dims");
    size_t nd = 2;
    if (dv && dv->kind == SY_V_LIST) {
        nd = dv->u.list.n;
        for (size_t i = 0; i < nd && i < 2; i++)
            if (dv->u.list.items[i].kind != SY_V_INT || sy_expr_get_si(dv->u.list.items[i].u.i, &dims[i]))
                return op_err(c, SY_EINVAL, "dims must be constant integers");
    }
    if (nd != 2) return op_err(c, SY_EINVAL, "expected total rotation dims == 2, but got dims = %zu", nd);
    if (x->ndim < 2) return op_err(c, SY_EINVAL, "expected total dims >= 2, but got total dims = %zu", x->ndim);
    size_t a, b;
    if ((st = op_wrap_dim(c, dims[0], x->ndim, &a)) || (st = op_wrap_dim(c, dims[1], x->ndim, &b))) return st;
    if (a == b) return op_err(c, SY_EINVAL, "expected rotation dims to be different, but got dim0 = %zu and dim1 = %zu", a, b);
    const sy_expr **out = op_sizes_copy(c, x, 0);
    if (!out) return sy_ctx_last_error(CTX);
    if (((k % 4) + 4) % 4 % 2) {
        out[a] = x->sizes[b];
        out[b] = x->sizes[a];
    }
    return op_set_tensor(c, x->dtype, x->ndim, out);
}

/* nansum / nanmean(input, dim=None, keepdim=False); count_nonzero(input, dim=None) (int64, no keepdim) */
static sy_status nanreduce(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    int keep = 0;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    int cnt = !strcmp(c->op, "count_nonzero");
    if (!cnt && (st = op_bool_def(c, 2, "keepdim", 0, &keep))) return st;
    if (!strcmp(c->op, "nanmean") && !op_is_floating(x->dtype))
        return op_err(c, SY_EINVAL, "nanmean(): expected input to have floating point dtype but got %s", sy_dtype_name(x->dtype));
    bool sel[64];
    int all;
    if ((st = op_dims_mask(c, op_arg(c, 1, "dim"), x->ndim, sel, &all))) return st;
    const sy_expr **r;
    size_t n;
    if ((st = op_reduced(c, x, sel, keep, &r, &n))) return st;
    sy_dtype dt = cnt ? SY_DT_INT64 : (!strcmp(c->op, "nansum") && !op_is_floating(x->dtype) && !op_is_complex(x->dtype)) ? SY_DT_INT64 : x->dtype;
    return op_set_tensor(c, dt, n, r);
}

/* aminmax(input, *, dim=None, keepdim=False) -> (min, max); no identity: the
 * reduced dims (all for dim None) must be non-empty */
static sy_status aminmax(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    int keep;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_bool_def(c, (size_t)-1, "keepdim", 0, &keep))) return st;
    const sy_value *dv = op_arg(c, (size_t)-1, "dim");
    bool sel[64];
    int all;
    if ((st = op_dims_mask(c, dv, x->ndim, sel, &all))) return st;
    if (all) {
        if ((st = op_require(c, sy_expr_ge(CTX, op_numel(c, x), KI(c, 1)),
                             "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")))
            return st;
    } else {
        for (size_t i = 0; i < x->ndim; i++)
            if (sel[i] && (st = op_require(c, sy_expr_ge(CTX, x->sizes[i], KI(c, 1)),
                                           "aminmax(): Expected reduction dim %zu to have non-zero size.", i)))
                return st;
    }
    const sy_expr **r;
    size_t n;
    if ((st = op_reduced(c, x, sel, keep, &r, &n))) return st;
    const sy_tensor *ts[2] = {op_new_tensor(c, x->dtype, n, r), op_new_tensor(c, x->dtype, n, r)};
    return op_set_tuple(c, 2, ts);
}

/* the reduction mode at the given positions: 0 none, 1 mean (batchmean), 2 sum */
static sy_status loss_reduction(opcall *c, size_t pos_sa, size_t pos_reduce, size_t pos_red, int *out)
{
    const sy_value *sa = pos_sa != (size_t)-1 ? op_arg(c, pos_sa, "size_average") : NULL;
    const sy_value *rd = pos_reduce != (size_t)-1 ? op_arg(c, pos_reduce, "reduce") : NULL;
    sy_status st;
    if ((sa && sa->kind != SY_V_NONE) || (rd && rd->kind != SY_V_NONE)) {
        int s, r;
        if ((st = op_bool_def(c, pos_sa, "size_average", 1, &s)) || (st = op_bool_def(c, pos_reduce, "reduce", 1, &r))) return st;
        *out = !r ? 0 : s ? 1 : 2;
        return SY_OK;
    }
    const char *m;
    if ((st = op_str_def(c, pos_red, "reduction", "mean", &m))) return st;
    if (!strcmp(m, "none")) *out = 0;
    else if (!strcmp(m, "mean") || (!strcmp(m, "batchmean") && !strcmp(c->op, "kl_div"))) *out = 1;
    else if (!strcmp(m, "sum")) *out = 2;
    else return op_err(c, SY_EINVAL, "%s is not a valid value for reduction", m);
    return SY_OK;
}

/* pointwise losses: input and target broadcast (F.mse_loss / l1_loss /
 * smooth_l1_loss / huber_loss / soft_margin_loss / kl_div; only a warning
 * when the sizes differ); binary_cross_entropy(_with_logits) require equal
 * sizes ("Using a target size ... that is different to the input size",
 * "Target size ... must be the same as input size"). 'none' keeps the
 * broadcast sizes, otherwise a 0-d result. */
static sy_status pointwise_loss(opcall *c)
{
    const sy_value *a = op_arg(c, 0, "input"), *b = op_arg(c, 1, "target");
    if (!a || !b || a->kind != SY_V_TENSOR || b->kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "expected %s(input, target)", c->op);
    int red;
    sy_status st;
    int bce = !strncmp(c->op, "binary_cross_entropy", 20);
    if (!strcmp(c->op, "huber_loss")) st = loss_reduction(c, (size_t)-1, (size_t)-1, 2, &red);
    else if (bce) st = loss_reduction(c, 3, 4, 5, &red);
    else st = loss_reduction(c, 2, 3, 4, &red);
    if (st) return st;
    const sy_tensor *x = a->u.t, *t = b->u.t;
    if (bce) {
        if (x->ndim != t->ndim) return op_err(c, SY_EINVAL, "Target size (%zu-D) must be the same as input size (%zu-D)", t->ndim, x->ndim);
        for (size_t i = 0; i < x->ndim; i++)
            if ((st = op_require_eq(c, t->sizes[i], x->sizes[i], "Target size must be the same as input size"))) return st;
        const sy_tensor *w;
        if ((st = op_opt_tensor(c, 2, "weight", &w))) return st;
        if (w) {
            const sy_expr **r;
            size_t n;
            if ((st = op_broadcast(c, t->sizes, t->ndim, w->sizes, w->ndim, &r, &n))) return st;
        }
        return op_set_tensor(c, x->dtype, red ? 0 : x->ndim, x->sizes);
    }
    sy_value v;
    opcall c1 = *c;
    c1.out = &v;
    if ((st = sy_elementwise_binary(&c1, a, b))) return st;
    if (!strcmp(c->op, "soft_margin_loss")) { /* computed into a tensor of input's sizes (in place) */
        const sy_tensor *r = v.u.t;
        if (r->ndim != x->ndim) return op_err(c, SY_EINVAL, "output with shape of rank %zu doesn't match the broadcast shape of rank %zu", x->ndim, r->ndim);
        for (size_t i = 0; i < x->ndim; i++)
            if (r->sizes[i] != x->sizes[i] && (st = op_require(c, sy_expr_eq(CTX, r->sizes[i], x->sizes[i]),
                                                               "output with shape [.. %s ..] doesn't match the broadcast shape [.. %s ..] at dim %zu",
                                                               SHOW(x->sizes[i]), SHOW(r->sizes[i]), i)))
                return st;
    }
    if (red) return op_set_tensor(c, x->dtype, 0, NULL);
    return op_set_tensor(c, x->dtype, v.u.t->ndim, v.u.t->sizes);
}

/* cosine_similarity(x1, x2, dim=1): broadcast, then dim reduced;
 * pairwise_distance(x1, x2, p, eps, keepdim): broadcast, the last dim reduced */
static sy_status similarity(opcall *c)
{
    const sy_value *a = op_arg(c, 0, "x1"), *b = op_arg(c, 1, "x2");
    if (!a || !b || a->kind != SY_V_TENSOR || b->kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "expected %s(x1, x2)", c->op);
    sy_value v;
    opcall c1 = *c;
    c1.out = &v;
    sy_status st = sy_elementwise_binary(&c1, a, b);
    if (st) return st;
    const sy_tensor *t = v.u.t;
    int64_t d = -1;
    int keep = 0;
    if (!strcmp(c->op, "cosine_similarity")) {
        if ((st = op_const_int(c, 2, "dim", 1, &d))) return st;
    } else if ((st = op_bool_def(c, 4, "keepdim", 0, &keep))) {
        return st;
    }
    size_t w;
    if ((st = op_wrap_dim0(c, d, t->ndim, &w))) return st;
    bool sel[64] = {false};
    if (t->ndim > 64) return op_err(c, SY_EINVAL, "too many dims");
    if (t->ndim) sel[w] = true;
    const sy_expr **r;
    size_t n;
    if ((st = op_reduced(c, t, sel, keep, &r, &n))) return st;
    return op_set_tensor(c, a->u.t->dtype, n, r);
}

/* rand / randn(*size), randint([low,] high, size): like zeros; windows
 * (hann/hamming/bartlett/blackman/kaiser_window(window_length, ...)): (L), L >= 0 */
static sy_status random_factory(opcall *c)
{
    if (!strcmp(c->op, "randint")) {
        size_t pos = (size_t)-1;
        for (size_t i = 0; i < c->nargs; i++)
            if (c->args[i].kind == SY_V_LIST) pos = i;
        const sy_value *sv = pos != (size_t)-1 ? &c->args[pos] : op_arg(c, (size_t)-1, "size");
        if (!sv) return op_err(c, SY_EINVAL, "randint() missing required argument 'size'");
        sy_value a[1] = {*sv};
        sy_value out;
        sy_status st = call_op(c, "zeros", 1, a, &out);
        if (st) return st;
        const sy_value *dv = op_arg(c, (size_t)-1, "dtype");
        return op_set_tensor(c, dv && dv->kind == SY_V_DTYPE ? dv->u.dtype : SY_DT_INT64, out.u.t->ndim, out.u.t->sizes);
    }
    sy_status st = sy_env_call(c->env, "zeros", c->nargs, c->args, c->nkw, c->kwnames, c->kwvals, c->where, c->out);
    return st;
}

static sy_status window(opcall *c)
{
    const sy_expr *L;
    sy_status st;
    if ((st = op_int(c, 0, "window_length", &L))) return st;
    if ((st = op_require(c, sy_expr_ge(CTX, L, KI(c, 0)), "%s requires non-negative window_length, got window_length=%s", c->op, SHOW(L))))
        return st;
    const sy_value *dv = op_arg(c, (size_t)-1, "dtype");
    return op_set_tensor(c, dv && dv->kind == SY_V_DTYPE ? dv->u.dtype : SY_DT_FLOAT32, 1, &L);
}

/* unflatten(input, dim, sizes): one -1 inferred; the product must equal size(dim) */
static sy_status unflatten(opcall *c)
{
    const sy_tensor *x;
    int64_t d;
    size_t w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "dim", 0, &d)) || (st = op_wrap_dim(c, d, x->ndim, &w))) return st;
    const sy_value *sv = op_arg(c, 2, "sizes");
    if (!sv || sv->kind != SY_V_LIST) return op_err(c, SY_EINVAL, "unflatten: sizes must be a list of ints");
    size_t k = sv->u.list.n;
    if (k == 0) return op_err(c, SY_EINVAL, "unflatten: sizes must be non-empty");
    const sy_expr **out = sy_env_alloc(c->env, (x->ndim + k) * sizeof *out);
    if (!out) return sy_ctx_last_error(CTX);
    size_t n = 0;
    for (size_t i = 0; i < w; i++) out[n++] = x->sizes[i];
    long infer = -1;
    const sy_expr *prod = KI(c, 1);
    for (size_t i = 0; i < k; i++) {
        if (sv->u.list.items[i].kind != SY_V_INT) return op_err(c, SY_EINVAL, "unflatten: sizes must be integers");
        const sy_expr *e = sv->u.list.items[i].u.i;
        int64_t v;
        if (!sy_expr_get_si(e, &v) && v == -1) {
            if (infer >= 0) return op_err(c, SY_EINVAL, "only one dimension can be inferred");
            infer = (long)n;
        } else {
            prod = sy_expr_mul(CTX, prod, e);
        }
        out[n++] = e;
    }
    const sy_expr *L = x->sizes[w];
    if (infer >= 0) {
        if ((st = op_require(c, sy_expr_and(CTX, sy_expr_ne(CTX, prod, KI(c, 0)), sy_expr_eq(CTX, sy_expr_mod(CTX, L, prod), KI(c, 0))),
                             "unflatten: Provided sizes don't multiply up to the size of dim %zu (%s) in the input tensor", w, SHOW(L))))
            return st;
        out[infer] = sy_expr_floordiv(CTX, L, prod);
    } else if ((st = op_require(c, sy_expr_eq(CTX, prod, L), "unflatten: Provided sizes don't multiply up to the size of dim %zu (%s) in the input tensor",
                                w, SHOW(L)))) {
        return st;
    }
    for (size_t i = w + 1; i < x->ndim; i++) out[n++] = x->sizes[i];
    /* TensorShape.cpp unflatten: self.view(shape), computeStride's strides (a dim split in
     * parts is viewable at every size). Strides NULL (not modelled, or deferred and carried
     * here): NULL */
    if (!x->strides) return op_set_strided(c, x->dtype, n, out, NULL);
    int ok = 0;
    if ((st = op_view_result(c, x, n, out, &ok))) return st;
    return ok ? SY_OK : op_set_strided(c, x->dtype, n, out, NULL);
}

/* split_with_sizes(input, split_sizes, dim=0): split with a list */
static sy_status split_with_sizes(opcall *c)
{
    const sy_value *x = op_arg(c, 0, "input"), *s = op_arg(c, 1, "split_sizes"), *d = op_arg(c, 2, "dim");
    if (!x || !s || s->kind != SY_V_LIST) return op_err(c, SY_EINVAL, "expected split_with_sizes(input, split_sizes, dim=0)");
    sy_value a[3] = {*x, *s, d ? *d : sy_value_int(KI(c, 0))};
    return call_op(c, "split", 3, a, c->out);
}

/* take(input, index): index's sizes; int64 index; a non-empty index into an empty input is out of range */
static sy_status take(opcall *c)
{
    const sy_tensor *x, *i;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_tensor(c, 1, "index", &i))) return st;
    if (i->dtype != SY_DT_INT64) return op_err(c, SY_EINVAL, "take(): Expected a long tensor for index, but got %s", sy_dtype_name(i->dtype));
    if ((st = op_require(c, sy_expr_or(CTX, sy_expr_eq(CTX, op_numel(c, i), KI(c, 0)), sy_expr_ge(CTX, op_numel(c, x), KI(c, 1))),
                         "out of range: tried to access index 0 on a tensor of 0 elements.")))
        return st;
    /* index values from sizes (values.c): take_kernel (aten/src/ATen/native/cpu/IndexKernel.cpp)
     * checks each index within [-numel, numel) ("out of range: tried to access index ..."; a
     * negative one wraps), 1.13 and 2.x */
    const sy_expr *nx = op_numel(c, x);
    if ((st = sy_env_values_require_in(c, i, sy_expr_eq(CTX, op_numel(c, i), KI(c, 0)), sy_expr_neg(CTX, nx),
                                       sy_expr_sub(CTX, nx, KI(c, 1)), "out of range: tried to access an index past the tensor's elements")))
        return st;
    return op_set_tensor(c, x->dtype, i->ndim, i->sizes);
}

/* index_add / index_copy (input, dim, index, source) and index_fill(input,
 * dim, index, value): input's sizes; index 0-D or 1-D int64; source has
 * input's rank, index.numel() entries at dim and (a non-empty index) input's
 * sizes elsewhere (index_add: sizes of 1 broadcast, its CPU loop adds
 * slices in place); a non-empty index into an empty dim is out of range
 * (index_fill: unless the other dims are empty: it restrides self). */
static sy_status index_op(opcall *c)
{
    const sy_tensor *x, *idx, *src = NULL;
    int64_t d;
    size_t w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "dim", 0, &d)) || (st = op_tensor(c, 2, "index", &idx)) ||
        (st = op_wrap_dim0(c, d, x->ndim, &w)))
        return st;
    char fn[32];
    snprintf(fn, sizeof fn, "%.*s_()", (int)(c->op[strlen(c->op) - 1] == '_' ? strlen(c->op) - 1 : strlen(c->op)), c->op);
    if (idx->ndim > 1) return op_err(c, SY_EINVAL, "%s: Index is supposed to be a vector", fn);
    if (idx->dtype != SY_DT_INT64 && (strncmp(c->op, "index_add", 9) || idx->dtype != SY_DT_INT32))
        return op_err(c, SY_EINVAL, "%s: Expected dtype int64 for index", fn);
    const sy_expr *ni = idx->ndim ? idx->sizes[0] : KI(c, 1);
    if (strncmp(c->op, "index_fill", 10)) {
        if ((st = op_tensor(c, 3, "source", &src))) return st;
        if ((src->ndim ? src->ndim : 1) != (x->ndim ? x->ndim : 1))
            return op_err(c, SY_EINVAL, "%s: source and self must have the same number of dimensions", fn);
        const sy_expr *sd = src->ndim ? src->sizes[w] : KI(c, 1);
        if ((st = op_require(c, sy_expr_eq(CTX, ni, sd), "%s: Number of indices (%s) should be equal to source.size(dim) (%s)", fn, SHOW(ni), SHOW(sd))))
            return st;
        /* 2.x: index_add checks like index_copy (TensorAdvancedIndexing.cpp index_func_meta_impl,
         * TORCH_META_FUNC(index_add)): source's other dims equal self's, no size-1 broadcast and
         * no exemption for an empty index; index_copy_ compares the slice shapes even for an empty
         * index. 1.13's index_add_cpu_ added slices in place, self.select(dim, j).add_(
         * source.select(dim, i)), one per index: an empty index checks nothing, else each of
         * source's other dims expands into self's (1 or equal). That is one requirement,
         * Or(index empty, every dim 1 or equal) (lost46: deciding "is the index empty?" and "is
         * the size 1?" at the example kept the example's branch: traced with a non-empty index,
         * the guard 1 <= index.size(0) threw away every empty index, which 1.13 runs). */
        int add = !strncmp(c->op, "index_add", 9) && op_torch1(c);
        if (add) {
            const sy_expr *all = sy_expr_true(CTX);
            for (size_t i = 0; i < x->ndim; i++)
                if (i != w)
                    all = sy_expr_and(CTX, all, sy_expr_or(CTX, sy_expr_eq(CTX, src->sizes[i], KI(c, 1)),
                                                           sy_expr_eq(CTX, src->sizes[i], x->sizes[i])));
            if ((st = op_require(c, sy_expr_or(CTX, sy_expr_eq(CTX, ni, KI(c, 0)), all),
                                 "%s: source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = %s source.shape = %s",
                                 fn, op_show_sizes(c, x->ndim, x->sizes), op_show_sizes(c, src->ndim, src->sizes))))
                return st;
        }
        for (size_t i = 0; i < x->ndim && !add; i++) {
            if (i == w) continue;
            if ((st = op_require(c, sy_expr_eq(CTX, src->sizes[i], x->sizes[i]),
                                 "%s: source tensor shape must match self tensor shape, excluding the specified dimension. Got self.shape = [.. %s ..] source.shape = [.. %s ..] at dim %zu",
                                 fn, SHOW(x->sizes[i]), SHOW(src->sizes[i]), i)))
                return st;
        }
    }
    const sy_expr *L = x->ndim ? x->sizes[w] : KI(c, 1);
    const sy_expr *ok = sy_expr_or(CTX, sy_expr_eq(CTX, ni, KI(c, 0)), sy_expr_ge(CTX, L, KI(c, 1)));
    /* 2.x's index_add_cpu_ (TensorAdvancedIndexing.cpp) on a self of rank > 1 returns before it reads
     * an index when "numel == 0 || self.numel() == 0": an empty dim (L = 0) is then fine whatever the
     * index (lost46: x[0, 3].index_add(0, i[2], s[2, 3]) runs under 2.14.1; 1.13 selects slice 0 and
     * fails; a 1-D self checks every index, "index out of range in self", in both) */
    int add2 = !strncmp(c->op, "index_add", 9) && !op_torch1(c) && x->ndim > 1;
    if (add2) ok = sy_expr_true(CTX);
    if (!strncmp(c->op, "index_fill", 10)) { /* index_fill_ restrides self over the index: fine when the other dims are empty */
        const sy_expr *rest = KI(c, 1);
        for (size_t i = 0; i < x->ndim; i++)
            if (i != w) rest = sy_expr_mul(CTX, rest, x->sizes[i]);
        ok = sy_expr_or(CTX, ok, sy_expr_eq(CTX, rest, KI(c, 0)));
    }
    if ((st = op_require(c, ok, "%s: index 0 is out of bounds for dimension %zu with size %s", fn, w, SHOW(L))))
        return st;
    /* index values from sizes (values.c), each kernel's check (measured on the CPU, 1.13 and 2.14):
     * index_fill_kernel (cpu/IndexKernel.cpp) within [-size, size), a negative index wraps;
     * index_copy_kernel within [0, size); both iterate over self's slices, so nothing is read when
     * self's other dims are empty. index_add: [0, size) ("index out of range in self"); 1.13's
     * index_add_cpu_ checks every index before it selects the (maybe empty) slice, 2.x's
     * (TensorAdvancedIndexing.cpp index_add_cpu_) reads none when the slices are empty. */
    {
        int fill = !strncmp(c->op, "index_fill", 10), add1 = !strncmp(c->op, "index_add", 9) && op_torch1(c);
        const sy_expr *rest = KI(c, 1);
        for (size_t i = 0; i < x->ndim; i++)
            if (i != w) rest = sy_expr_mul(CTX, rest, x->sizes[i]);
        const sy_expr *skip = sy_expr_eq(CTX, ni, KI(c, 0));
        if (!add1) skip = sy_expr_or(CTX, skip, sy_expr_eq(CTX, rest, KI(c, 0)));
        if (add2) skip = sy_expr_or(CTX, skip, sy_expr_eq(CTX, L, KI(c, 0))); /* self.numel() == 0: no index read */
        if ((st = sy_env_values_require_in(c, idx, skip, fill ? sy_expr_neg(CTX, L) : KI(c, 0), sy_expr_sub(CTX, L, KI(c, 1)),
                                           "index out of range in self")))
            return st;
    }
    if (c->op[strlen(c->op) - 1] == '_') return op_set_strided(c, x->dtype, x->ndim, x->sizes, x->strides);
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

/* msort(input): sort along dim 0; conversions byte/char/short/int/bfloat16/cfloat/cdouble */
static sy_status msort(opcall *c)
{
    const sy_tensor *x;
    sy_status st = op_tensor(c, 0, "input", &x);
    if (st) return st;
    if (x->ndim == 0) return op_err(c, SY_EINVAL, "msort: dimension specified as 0 but tensor has no dimensions");
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

/* ravel(input): flatten (a view when possible, else a copy); normalize(input,
 * p, dim=1, eps): input's sizes, the dim must exist (the norm over it);
 * rsub(input, other): other - input, broadcast */
static sy_status ravel(opcall *c)
{
    const sy_value *x = op_arg(c, 0, "input");
    if (!x) return op_err(c, SY_EINVAL, "expected ravel(input)");
    return call_op(c, "flatten", 1, x, c->out);
}

static sy_status normalize(opcall *c)
{
    const sy_tensor *x;
    int64_t d;
    size_t w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 2, "dim", 1, &d)) || (st = op_wrap_dim0(c, d, x->ndim, &w))) return st;
    return sy_unary_layout(c, x, x->dtype);
}

static sy_status rsub(opcall *c)
{
    const sy_value *a = op_arg(c, 0, "input"), *b = op_arg(c, 1, "other");
    if (!a || !b) return op_err(c, SY_EINVAL, "expected rsub(input, other)");
    return sy_elementwise_binary(c, a, b);
}

static sy_status convert(opcall *c)
{
    const sy_tensor *x;
    const sy_value *a0 = c->nargs ? &c->args[0] : NULL;
    if (a0 && !strcmp(c->op, "int") && a0->kind != SY_V_TENSOR) return op_py_round(c, a0, 't'); /* Python int() of a number */
    sy_status st = op_tensor(c, 0, "input", &x);
    if (st) return st;
    static const struct { const char *name; sy_dtype dt; } map[] = {
        {"byte", SY_DT_UINT8}, {"char", SY_DT_INT8}, {"short", SY_DT_INT16}, {"int", SY_DT_INT32},
        {"bfloat16", SY_DT_BFLOAT16}, {"cfloat", SY_DT_COMPLEX64}, {"cdouble", SY_DT_COMPLEX128}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(c->op, map[i].name)) return sy_unary_layout(c, x, map[i].dt);
    return op_err(c, SY_EINVAL, "unknown conversion");
}


/* ------------------------------------------------------------------ bucketization, histograms, sampling (issue 38, pyexp47) */

/* searchsorted(sorted_sequence, input, *, out_int32, right, side, sorter) and
 * bucketize(input, boundaries, *, out_int32, right) (Bucketization.cpp searchsorted_cpu /
 * bucketize_cpu, BucketizationUtils.h searchsorted_pre_check): the result has the input's
 * sizes (0-d for a Python number), int64 or int32 with out_int32. Checks: boundaries not 0-d;
 * searchsorted: 1-D boundaries, or of the input's rank with the same leading sizes; bucketize:
 * 1-D boundaries; side 'left'/'right' and not opposite to right; a sorter of the boundaries'
 * sizes and dtype long; with out_int32 the last boundary dim < INT_MAX; bool and complex are
 * not implemented ("searchsorted_out_cpu" not implemented for 'Bool'). Measured under 1.13 and
 * 2.14. The values (positions in [0, size(-1)]) are data here. */
static sy_status bucketization(opcall *c)
{
    int bk = !strcmp(c->op, "bucketize");
    const sy_tensor *bd, *x = NULL, *sorter = NULL;
    const sy_value *xv = op_arg(c, bk ? 0 : 1, bk ? "input" : "self");
    sy_status st;
    if (!xv && !bk) xv = op_arg(c, (size_t)-1, "input");
    if (!xv && !bk) xv = op_arg(c, (size_t)-1, "values");
    if (!xv) return op_err(c, SY_EINVAL, "missing argument 'input'");
    if (xv->kind == SY_V_TENSOR) x = xv->u.t;
    else if (xv->kind != SY_V_INT && xv->kind != SY_V_FLOAT && xv->kind != SY_V_BOOL && xv->kind != SY_V_QUOT &&
             xv->kind != SY_V_SCALED)
        return op_err(c, SY_EINVAL, "input must be a tensor or a number");
    if ((st = op_tensor(c, bk ? 1 : 0, bk ? "boundaries" : "sorted_sequence", &bd))) return st;
    int out32, right;
    if ((st = op_bool_def(c, (size_t)-1, "out_int32", 0, &out32)) || (st = op_bool_def(c, (size_t)-1, "right", 0, &right)))
        return st;
    if (bd->dtype == SY_DT_BOOL || op_is_complex(bd->dtype) || (x && (x->dtype == SY_DT_BOOL || op_is_complex(x->dtype))))
        return op_err(c, SY_EINVAL, "\"searchsorted_out_cpu\" not implemented for '%s'",
                      sy_dtype_name(bd->dtype == SY_DT_BOOL || op_is_complex(bd->dtype) ? bd->dtype : x->dtype));
    size_t xnd = x ? x->ndim : 0;
    if (bk) {
        if (bd->ndim != 1) return op_err(c, SY_EINVAL, "boundaries tensor must be 1 dimension, but got dim(%zu)", bd->ndim);
    } else {
        const char *side;
        if ((st = op_str_def(c, (size_t)-1, "side", NULL, &side))) return st;
        if (side && strcmp(side, "left") && strcmp(side, "right"))
            return op_err(c, SY_EINVAL, "torch.searchsorted(): side can only be 'left' or 'right' but got %s", side);
        if (side && right && !strcmp(side, "left"))
            return op_err(c, SY_EINVAL, "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True");
        if (bd->ndim == 0)
            return op_err(c, SY_EINVAL, "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
        if (bd->ndim != 1) {
            if (xnd != bd->ndim)
                return op_err(c, SY_EINVAL, "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                                            "of boundaries tensor and input value tensor must match, but we got boundaries tensor "
                                            "of rank %zu and input value tensor of rank %zu", bd->ndim, xnd);
            for (size_t i = 0; i + 1 < bd->ndim; i++)
                if ((st = op_require(c, sy_expr_eq(CTX, bd->sizes[i], x->sizes[i]),
                                     "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                                     "boundaries tensor and input value tensor must match, but we got boundaries tensor %s and "
                                     "input value tensor %s", op_show_sizes(c, bd->ndim, bd->sizes), op_show_sizes(c, xnd, x->sizes))))
                    return st;
        }
        if ((st = op_opt_tensor(c, (size_t)-1, "sorter", &sorter))) return st;
        if (sorter) {
            if (sorter->dtype != SY_DT_INT64)
                return op_err(c, SY_EINVAL, "torch.searchsorted(): sorter must be a tensor of long dtype but got %s", sy_dtype_name(sorter->dtype));
            if (sorter->ndim != bd->ndim)
                return op_err(c, SY_EINVAL, "torch.searchsorted(): boundary and sorter must have the same size, but got rank %zu and %zu",
                              bd->ndim, sorter->ndim);
            for (size_t i = 0; i < bd->ndim; i++)
                if ((st = op_require(c, sy_expr_eq(CTX, bd->sizes[i], sorter->sizes[i]),
                                     "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor %s "
                                     "and got sorter tensor %s", op_show_sizes(c, bd->ndim, bd->sizes),
                                     op_show_sizes(c, sorter->ndim, sorter->sizes))))
                    return st;
        }
    }
    if (out32 && (st = op_require(c, sy_expr_lt(CTX, bd->sizes[bd->ndim - 1], KI(c, 2147483647)),
                                  "torch.searchsorted(): the size of boundaries' last dimension should be less than 2147483647, but we got %s",
                                  SHOW(bd->sizes[bd->ndim - 1]))))
        return st;
    return op_set_tensor(c, out32 ? SY_DT_INT32 : SY_DT_INT64, xnd, x ? x->sizes : NULL);
}

/* histc(input, bins=100, min=0, max=0) (SummaryOps.cpp histogram_histc_cpu_out ->
 * histogramdd_check_inputs / histogramdd_prepare_out): a 1-D (bins) tensor of the input's dtype,
 * any input rank (0-d included) and size (0 included); bins > 0 ("torch.histogram(): bins
 * must be > 0, but got B for dimension 0", a requirement: bins may be a size); constant min >
 * max, or a non-finite one, is an error; an integral, bool or complex input is not implemented
 * ("histogram_cpu" not implemented for 'Long'); half and bfloat16 are refused (not measured). A
 * non-finite element with min == max is data, not modelled. */
static sy_status histc(opcall *c)
{
    const sy_tensor *x;
    const sy_expr *bins;
    double lo, hi;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_int_def(c, 1, "bins", 100, &bins)) ||
        (st = op_num_def(c, 2, "min", 0, &lo)) || (st = op_num_def(c, 3, "max", 0, &hi)))
        return st;
    if (x->dtype == SY_DT_FLOAT16 || x->dtype == SY_DT_BFLOAT16)
        return op_err(c, SY_EUNSUPPORTED, "histc of a %s tensor is not modelled", sy_dtype_name(x->dtype));
    if (x->dtype != SY_DT_FLOAT32 && x->dtype != SY_DT_FLOAT64)
        return op_err(c, SY_EINVAL, "\"histogram_cpu\" not implemented for '%s'", sy_dtype_name(x->dtype));
    if (!(lo == lo) || !(hi == hi) || lo - lo != 0 || hi - hi != 0)
        return op_err(c, SY_EINVAL, "torch.histc: range of [%g, %g] is not finite", lo, hi);
    if (lo > hi) return op_err(c, SY_EINVAL, "torch.histc: max must be larger than min");
    if ((st = op_require(c, sy_expr_gt(CTX, bins, KI(c, 0)), "torch.histogram(): bins must be > 0, but got %s for dimension 0", SHOW(bins))))
        return st;
    return op_set_tensor(c, x->dtype, 1, &bins);
}

/* multinomial(input, num_samples, replacement=False) (Distributions.cpp multinomial_out): input
 * 1-D or 2-D ("prob_dist must be 1 or 2 dim"), floating ("multinomial only supports
 * floating-point dtypes for input, got: Long"); num_samples > 0; without replacement
 * num_samples <= size(-1); size(-1) <= 2^24. Result (num_samples) or (size(0), num_samples),
 * int64. With replacement and no category the CPU fails unless there is no row (a 2-D input
 * of 0 rows): "invalid multinomial distribution (sum of probabilities <= 0)" (1.13, and 2.14
 * with more than one sample; 2.14 with one: "aminmax(): cannot compute aminmax over an empty
 * dimension"), measured at (0,), (2, 0), (0, 0). Negative, infinite or all-zero probabilities
 * are data, not modelled. */
static sy_status multinomial(opcall *c)
{
    const sy_tensor *x;
    const sy_expr *ns;
    int rep;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_int(c, 1, "num_samples", &ns)) ||
        (st = op_bool_def(c, 2, "replacement", 0, &rep)))
        return st;
    if (x->ndim != 1 && x->ndim != 2) return op_err(c, SY_EINVAL, "prob_dist must be 1 or 2 dim");
    if (!op_is_floating(x->dtype))
        return op_err(c, SY_EINVAL, "multinomial only supports floating-point dtypes for input, got: %s", sy_dtype_name(x->dtype));
    const sy_expr *ncat = x->sizes[x->ndim - 1], *zero = KI(c, 0);
    if ((st = op_require(c, sy_expr_gt(CTX, ns, zero), "cannot sample n_sample <= 0 samples"))) return st;
    if (!rep && (st = op_require(c, sy_expr_le(CTX, ns, ncat), "cannot sample n_sample > prob_dist.size(-1) samples without replacement")))
        return st;
    if ((st = op_require(c, sy_expr_le(CTX, ncat, KI(c, (int64_t)1 << 24)), "number of categories cannot exceed 2^24"))) return st;
    if (rep && (st = op_require(c, sy_expr_or(CTX, sy_expr_ge(CTX, ncat, KI(c, 1)),
                                              x->ndim == 2 ? sy_expr_eq(CTX, x->sizes[0], zero) : sy_expr_false(CTX)),
                                "invalid multinomial distribution (sum of probabilities <= 0): no category (size(-1) = %s)", SHOW(ncat))))
        return st;
    const sy_expr *out[2] = {x->sizes[0], ns};
    return op_set_tensor(c, SY_DT_INT64, x->ndim, x->ndim == 2 ? out : &ns);
}

/* combinations(input, r=2, with_replacement=False) (Itertools.cpp combinations): input 1-D
 * ("Expect a 1D vector, but got shape [..]"), r >= 0 a constant ("Expect a non-negative
 * number, but got R"); r == 0: an empty (0) tensor; else (C, r) with C = n(n-1)...(n-r+1)/r!
 * (with replacement n(n+1)...(n+r-1)/r!): an exact quotient at every n >= 0 (a product of r
 * consecutive integers, a factor 0 when n < r), measured at n 0..5, r 0..3 under 1.13 and 2.14.
 * The kernel builds an n^r mask: r above 16 is refused. */
static sy_status combinations(opcall *c)
{
    const sy_tensor *x;
    int64_t r;
    int wr;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "r", 2, &r)) ||
        (st = op_bool_def(c, 2, "with_replacement", 0, &wr)))
        return st;
    if (x->ndim != 1) return op_err(c, SY_EINVAL, "Expect a 1D vector, but got shape %s", op_show_sizes(c, x->ndim, x->sizes));
    if (r < 0) return op_err(c, SY_EINVAL, "Expect a non-negative number, but got %lld", (long long)r);
    if (r > 16) return op_err(c, SY_EUNSUPPORTED, "combinations with r = %lld (> 16) is not modelled", (long long)r);
    if (r == 0) {
        const sy_expr *z = KI(c, 0);
        return op_set_tensor(c, x->dtype, 1, &z);
    }
    const sy_expr *num = KI(c, 1);
    int64_t fact = 1;
    for (int64_t i = 0; i < r; i++) {
        num = sy_expr_mul(CTX, num, sy_expr_add_si(CTX, x->sizes[0], wr ? i : -i));
        fact *= i + 1;
    }
    const sy_expr *out[2] = {sy_expr_floordiv(CTX, num, KI(c, fact)), KI(c, r)};
    if (!out[0]) return sy_ctx_last_error(CTX);
    return op_set_tensor(c, x->dtype, 2, out);
}

/* empty_strided(size, stride, *, dtype) (TensorFactories.cpp empty_strided_cpu, EmptyTensor.cpp
 * computeStorageNbytes): sizes >= 0 ("Trying to create tensor with negative dimension"), one
 * stride per size ("dimensionality of sizes (N) must match dimensionality of strides (M)"); a
 * negative stride overflows the storage size ("Storage size calculation overflowed with
 * sizes=... and strides=...") unless its dim has one element or the tensor none. The CPU
 * does not keep the strides it is given where a size is 0 or 1 (empty_strided((1, 3), (-1, 1))
 * has strides (3, 1), (3, 1) with (1, -5): (1, 1); 1.13 and 2.14): the strides are not
 * modelled. */
static sy_status empty_strided(opcall *c)
{
    const sy_expr **sz;
    size_t n;
    sy_status st;
    opcall c2 = *c;
    c2.nargs = c->nargs ? 1 : 0;
    if ((st = op_shape_args(&c2, 0, "size", &sz, &n))) return st;
    const sy_value *sv = op_arg(c, 1, "stride");
    if (!sv || sv->kind != SY_V_LIST) return op_err(c, SY_EINVAL, "empty_strided(): argument 'stride' must be a list of ints");
    if (sv->u.list.n != n)
        return op_err(c, SY_EINVAL, "dimensionality of sizes (%zu) must match dimensionality of strides (%zu)", n, sv->u.list.n);
    const sy_expr *numel = KI(c, 1), *ok = sy_expr_true(CTX);
    for (size_t i = 0; i < n; i++) {
        if (sv->u.list.items[i].kind != SY_V_INT) return op_err(c, SY_EINVAL, "empty_strided(): argument 'stride' must be a list of ints");
        if ((st = op_require(c, sy_expr_ge(CTX, sz[i], KI(c, 0)), "Trying to create tensor with negative dimension %s", SHOW(sz[i]))))
            return st;
        numel = sy_expr_mul(CTX, numel, sz[i]);
        ok = sy_expr_and(CTX, ok, sy_expr_or(CTX, sy_expr_ge(CTX, sv->u.list.items[i].u.i, KI(c, 0)), sy_expr_le(CTX, sz[i], KI(c, 1))));
    }
    if ((st = op_require(c, sy_expr_or(CTX, sy_expr_eq(CTX, numel, KI(c, 0)), ok),
                         "Storage size calculation overflowed with sizes=%s and a negative stride", op_show_sizes(c, n, sz))))
        return st;
    const sy_value *dv = op_arg(c, (size_t)-1, "dtype");
    return op_set_strided(c, dv && dv->kind == SY_V_DTYPE ? dv->u.dtype : SY_DT_FLOAT32, n, sz, NULL);
}

const opentry sy_ops_extra[] = {
    OP_ROW("broadcast_to", broadcast_to),
    OP_ROW("broadcast_tensors", broadcast_tensors),
    OP_ROW("atleast_1d", atleast_nd),
    OP_ROW("atleast_2d", atleast_nd),
    OP_ROW("atleast_3d", atleast_nd),
    OP_ROW("hstack", hvstack),
    OP_ROW("vstack", hvstack),
    OP_ROW("row_stack", hvstack),
    OP_ROW("dstack", hvstack),
    OP_ROW("mv", vecprod),
    OP_ROW("dot", vecprod),
    OP_ROW("vdot", vecprod),
    OP_ROW("inner", vecprod),
    OP_ROW("trace", trace),
    OP_ROW("rot90", rot90),
    OP_ROW("nansum", nanreduce),
    OP_ROW("nanmean", nanreduce),
    OP_ROW("count_nonzero", nanreduce),
    OP_ROW("aminmax", aminmax),
    OP_ROW("mse_loss", pointwise_loss),
    OP_ROW("l1_loss", pointwise_loss),
    OP_ROW("smooth_l1_loss", pointwise_loss),
    OP_ROW("huber_loss", pointwise_loss),
    OP_ROW("soft_margin_loss", pointwise_loss),
    OP_ROW("kl_div", pointwise_loss),
    OP_ROW("binary_cross_entropy", pointwise_loss),
    OP_ROW("binary_cross_entropy_with_logits", pointwise_loss),
    OP_ROW("cosine_similarity", similarity),
    OP_ROW("pairwise_distance", similarity),
    OP_ROW("rand", random_factory),
    OP_ROW("randn", random_factory),
    OP_ROW("randint", random_factory),
    OP_ROW("hann_window", window),
    OP_ROW("hamming_window", window),
    OP_ROW("bartlett_window", window),
    OP_ROW("blackman_window", window),
    OP_ROW("kaiser_window", window),
    OP_ROW("unflatten", unflatten, OP_CARRIES, OPL_OWN),
    OP_ROW("split_with_sizes", split_with_sizes, OP_CARRIES, OPL_OWN),
    OP_ROW("take", take),
    OP_ROW("index_add", index_op),
    OP_ROW("index_add_", index_op),
    OP_ROW("index_copy", index_op),
    OP_ROW("index_copy_", index_op),
    OP_ROW("index_fill", index_op),
    OP_ROW("index_fill_", index_op),
    OP_ROW("msort", msort),
    OP_ROW("ravel", ravel),
    OP_ROW("normalize", normalize),
    OP_ROW("rsub", rsub),
    OP_ROW("byte", convert),
    OP_ROW("char", convert),
    OP_ROW("short", convert),
    OP_ROW("int", convert),
    OP_ROW("bfloat16", convert),
    OP_ROW("cfloat", convert),
    OP_ROW("cdouble", convert),
    OP_ROW("searchsorted", bucketization, 0, OPL_FRESH, "aten/src/ATen/native/Bucketization.cpp searchsorted_cpu"),
    OP_ROW("bucketize", bucketization, 0, OPL_FRESH, "aten/src/ATen/native/Bucketization.cpp bucketize_cpu"),
    OP_ROW("histc", histc, 0, OPL_FRESH, "aten/src/ATen/native/SummaryOps.cpp histogram_histc_cpu_out"),
    OP_ROW("multinomial", multinomial, 0, OPL_FRESH, "aten/src/ATen/native/Distributions.cpp multinomial_out"),
    OP_ROW("combinations", combinations, 0, OPL_FRESH, "aten/src/ATen/native/Itertools.cpp combinations"),
    OP_ROW("empty_strided", empty_strided, 0, OPL_OWN, "aten/src/ATen/native/TensorFactories.cpp empty_strided_cpu"),
    OP_END};
