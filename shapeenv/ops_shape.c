/* Shape ops: view/reshape (aten/src/ATen/InferSize.h infer_size), flatten,
 * permute, transpose, unsqueeze, squeeze, expand (ExpandUtils.cpp
 * inferExpandGeometry), cat (aten cat_compute_output_memory_format /
 * check_cat_shape_except_dim), stack, chunk and split
 * (aten/src/ATen/native/TensorShape.cpp), narrow, select, index_select,
 * reductions, pad, factories, tensor indexing. */
#include <string.h>

#include "shapeenv/env_private.h"
#include "shapeenv/rules.h"

sy_status sy_slice_len(opcall *c, const sy_value *sl, const sy_expr *len, const sy_expr **start, const sy_expr **n,
                       int64_t *step);

static const sy_expr *numel_of(opcall *c, size_t n, const sy_expr *const *s)
{
    const sy_expr *r = KI(c, 1);
    for (size_t i = 0; i < n && r; i++) r = sy_expr_mul(c->env->ctx, r, s[i]);
    return r;
}

static sy_status set_list(opcall *c, size_t n, const sy_tensor *const *ts)
{
    sy_value *items = sy_env_alloc(c->env, (n ? n : 1) * sizeof *items);
    if (!items) return sy_ctx_last_error(c->env->ctx);
    for (size_t i = 0; i < n; i++) items[i] = sy_value_tensor(ts[i]);
    *c->out = sy_value_list(c->env, n, items);
    return SY_OK;
}

/* The strides of x seen with a new shape: view (computeStride; an
 * incompatible layout is PyTorch's error) or reshape/flatten (a view when
 * computeStride succeeds, else a contiguous copy: TensorShape.cpp reshape). */
static sy_status view_or_copy(opcall *c, const sy_tensor *x, size_t n, const sy_expr *const *shape, int is_view)
{
    if (!is_view) return op_reshape_strides(c, x, n, shape); /* deferred when the facts do not decide (layout.c) */
    int ok;
    sy_status st = op_view_result(c, x, n, shape, &ok); /* deferred when possible at every size (layout.c) */
    if (st) return st;
    if (!ok)
        return op_err(c, SY_EINVAL, "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
    return SY_OK;
}

/* the reasons of sy_rule_infer_size's requirements: PyTorch's messages (InferSize.h) */
typedef struct {
    opcall *c;
    const sy_expr *numel, *newsize;
    char msg[768];
} infer_arg;

static const char *infer_reason(void *arg, int which)
{
    infer_arg *a = arg;
    if (which == 0)
        snprintf(a->msg, sizeof a->msg,
                 "cannot reshape tensor of %s elements: the unspecified dimension size -1 can be any value and is ambiguous",
                 sy_env_show(a->c->env, a->numel));
    else
        snprintf(a->msg, sizeof a->msg, "shape is invalid for input of size %s (not divisible by %s)", sy_env_show(a->c->env, a->numel),
                 sy_env_show(a->c->env, a->newsize));
    return a->msg;
}

/* view / reshape: one -1 inferred by exact division of the element count. */
static sy_status view(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *x;
    const sy_expr **shape;
    size_t n;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_shape_args(c, 1, "shape", &shape, &n))) return st;
    const sy_expr *numel = numel_of(c, x->ndim, x->sizes), *newsize = KI(c, 1);
    long infer = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        if (!sy_expr_get_si(shape[i], &v) && v < 0) {
            if (v != -1) return op_err(c, SY_EINVAL, "invalid shape dimension %lld", (long long)v);
            if (infer >= 0) return op_err(c, SY_EINVAL, "only one dimension can be inferred");
            infer = (long)i;
            continue;
        }
        if ((st = op_require(c, sy_expr_ge(ctx, shape[i], KI(c, 0)), "invalid shape dimension %s", sy_env_show(c->env, shape[i]))))
            return st;
        newsize = sy_expr_mul(ctx, newsize, shape[i]);
    }
    if (!numel || !newsize) return sy_ctx_last_error(ctx);
    const sy_expr **out = sy_env_alloc(c->env, (n ? n : 1) * sizeof *out);
    if (!out) return sy_ctx_last_error(ctx);
    SY_COPY(out, shape, n * sizeof *out);
    if (infer >= 0) { /* the rule both frontends share (shapeenv/rules.c) */
        sy_provenance why = {c->where ? c->where->node : NULL, c->op, NULL};
        infer_arg ia = {c, numel, newsize, ""};
        st = sy_rule_infer_size(c->env, &why, numel, newsize, infer_reason, &ia, &out[infer]);
        if (st == SY_EINVAL && ia.msg[0] && !strcmp(sy_ctx_last_error_msg(ctx), ia.msg)) return op_err(c, st, "%s", ia.msg);
        if (st) return st;
    } else if ((st = op_require(c, sy_expr_eq(ctx, numel, newsize), "shape '%s' is invalid for input of size %s",
                                sy_env_show(c->env, newsize), sy_env_show(c->env, numel)))) {
        return st;
    }
    return view_or_copy(c, x, n, out, !strcmp(c->op, "view"));
}

static sy_status flatten(opcall *c)
{
    const sy_tensor *x;
    int64_t s, e;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "start_dim", 0, &s)) ||
        (st = op_const_int(c, 2, "end_dim", -1, &e)))
        return st;
    if (x->ndim == 0) return view_or_copy(c, x, 1, (const sy_expr *[]){KI(c, 1)}, 0);
    size_t a, b;
    if ((st = op_wrap_dim(c, s, x->ndim, &a)) || (st = op_wrap_dim(c, e, x->ndim, &b))) return st;
    if (a > b) return op_err(c, SY_EINVAL, "flatten() has invalid args: start_dim cannot come after end_dim");
    if (a == b) { /* returns self (deferred strides stay deferred) */
        if (sy_layout_is_deferred(c->env, x)) {
            c->env->layout_owned = 1;
            *c->out = sy_value_tensor(x);
            return SY_OK;
        }
        return op_set_strided(c, x->dtype, x->ndim, x->sizes, x->strides);
    }
    const sy_expr **out = sy_env_alloc(c->env, x->ndim * sizeof *out);
    if (!out) return sy_ctx_last_error(c->env->ctx);
    size_t n = 0;
    for (size_t i = 0; i < a; i++) out[n++] = x->sizes[i];
    out[n++] = numel_of(c, b - a + 1, x->sizes + a);
    for (size_t i = b + 1; i < x->ndim; i++) out[n++] = x->sizes[i];
    return view_or_copy(c, x, n, out, 0);
}

static sy_status permute(opcall *c)
{
    const sy_tensor *x;
    const sy_expr **dims;
    size_t n;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_shape_args(c, 1, "dims", &dims, &n))) return st;
    if (n != x->ndim) return op_err(c, SY_EINVAL, "number of dims don't match in permute");
    const sy_expr **out = sy_env_alloc(c->env, (n ? n : 1) * sizeof *out);
    const sy_expr **ost = sy_env_alloc(c->env, (n ? n : 1) * sizeof *ost);
    bool seen[64] = {false};
    if (!out || !ost || n > 64) return out && ost ? op_err(c, SY_EINVAL, "too many dims") : sy_ctx_last_error(c->env->ctx);
    for (size_t i = 0; i < n; i++) {
        int64_t d;
        size_t w;
        if (sy_expr_get_si(dims[i], &d)) return op_err(c, SY_EINVAL, "dims must be constants");
        if ((st = op_wrap_dim(c, d, n, &w))) return st;
        if (seen[w]) return op_err(c, SY_EINVAL, "repeated dim in permute");
        seen[w] = true;
        out[i] = x->sizes[w];
        if (x->strides) ost[i] = x->strides[w];
    }
    return op_set_strided(c, x->dtype, n, out, x->strides ? ost : NULL);
}

static sy_status transpose(opcall *c)
{
    const sy_tensor *x;
    int64_t d0, d1;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    if (!strcmp(c->op, "t")) {
        if (x->ndim > 2) return op_err(c, SY_EINVAL, "t() expects a tensor with <= 2 dimensions");
        d0 = 0;
        d1 = x->ndim == 2 ? 1 : 0;
    } else if ((st = op_const_int(c, 1, "dim0", 0, &d0)) || (st = op_const_int(c, 2, "dim1", 1, &d1))) {
        return st;
    }
    if (x->ndim == 0) return op_set_strided(c, x->dtype, 0, x->sizes, x->strides);
    size_t a, b;
    if ((st = op_wrap_dim(c, d0, x->ndim, &a)) || (st = op_wrap_dim(c, d1, x->ndim, &b))) return st;
    const sy_expr **out = sy_env_alloc(c->env, x->ndim * sizeof *out);
    const sy_expr **ost = sy_env_alloc(c->env, x->ndim * sizeof *ost);
    if (!out || !ost) return sy_ctx_last_error(c->env->ctx);
    SY_COPY(out, x->sizes, x->ndim * sizeof *out);
    out[a] = x->sizes[b];
    out[b] = x->sizes[a];
    if (x->strides) {
        SY_COPY(ost, x->strides, x->ndim * sizeof *ost);
        ost[a] = x->strides[b];
        ost[b] = x->strides[a];
    }
    return op_set_strided(c, x->dtype, x->ndim, out, x->strides ? ost : NULL);
}

static sy_status unsqueeze(opcall *c)
{
    const sy_tensor *x;
    int64_t d;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "dim", 0, &d))) return st;
    size_t w;
    if ((st = op_wrap_dim(c, d, x->ndim + 1, &w))) return st;
    const sy_expr **out = sy_env_alloc(c->env, (x->ndim + 1) * sizeof *out);
    const sy_expr **ost = sy_env_alloc(c->env, (x->ndim + 1) * sizeof *ost);
    if (!out || !ost) return sy_ctx_last_error(c->env->ctx);
    size_t n = 0;
    for (size_t i = 0; i <= x->ndim; i++) {
        if (i == w) {
            /* inferUnsqueezeGeometry (TensorShape.cpp): sizes[dim] * strides[dim], 1 at the end */
            if (x->strides) ost[n] = w < x->ndim ? sy_expr_mul(c->env->ctx, x->sizes[w], x->strides[w]) : KI(c, 1);
            out[n++] = KI(c, 1);
        }
        if (i < x->ndim) {
            if (x->strides) ost[n] = x->strides[i];
            out[n++] = x->sizes[i];
        }
    }
    return op_set_strided(c, x->dtype, x->ndim + 1, out, x->strides ? ost : NULL);
}

/* squeeze: a dim is removed when its size is 1 (a guard when symbolic). */
static sy_status squeeze(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    const sy_value *dv = op_arg(c, 1, "dim");
    bool sel[64] = {false};
    if (x->ndim > 64) return op_err(c, SY_EINVAL, "too many dims");
    if (!dv || dv->kind == SY_V_NONE) {
        for (size_t i = 0; i < x->ndim; i++) sel[i] = true;
    } else if (dv->kind == SY_V_LIST) {
        for (size_t i = 0; i < dv->u.list.n; i++) {
            int64_t d;
            size_t w;
            if (dv->u.list.items[i].kind != SY_V_INT || sy_expr_get_si(dv->u.list.items[i].u.i, &d))
                return op_err(c, SY_EINVAL, "dims must be constant integers");
            if ((st = op_wrap_dim(c, d, x->ndim, &w))) return st;
            sel[w] = true;
        }
    } else {
        int64_t d;
        size_t w;
        if ((st = op_const_int(c, 1, "dim", 0, &d)) || (st = op_wrap_dim(c, d, x->ndim, &w))) return st;
        sel[w] = true;
    }
    const sy_expr **out = sy_env_alloc(c->env, (x->ndim ? x->ndim : 1) * sizeof *out);
    const sy_expr **ost = sy_env_alloc(c->env, (x->ndim ? x->ndim : 1) * sizeof *ost);
    if (!out || !ost) return sy_ctx_last_error(ctx);
    size_t n = 0;
    for (size_t i = 0; i < x->ndim; i++) {
        int one = 0;
        if (sel[i] && (st = op_decide_bool(c, sy_expr_eq(ctx, x->sizes[i], KI(c, 1)), "squeeze: is the size 1?", &one))) return st;
        if (!one) {
            if (x->strides) ost[n] = x->strides[i];
            out[n++] = x->sizes[i];
        }
    }
    return op_set_strided(c, x->dtype, n, out, x->strides ? ost : NULL);
}

/* inferExpandGeometry (aten/src/ATen/ExpandUtils.cpp), from the last dim: a
 * kept dim keeps its stride, a dim whose size changes (it was 1) gets stride
 * 0, a new leading dim of size 1 gets expandedSizes[i+1] * expandedStrides[i+1]. */
static sy_status expand_strides(opcall *c, const sy_tensor *x, size_t n, const sy_expr *const *out)
{
    sy_ctx *ctx = c->env->ctx;
    if (!x->strides) return op_set_strided(c, x->dtype, n, out, NULL);
    const sy_expr **st = sy_env_alloc(c->env, (n ? n : 1) * sizeof *st);
    if (!st) return sy_ctx_last_error(ctx);
    for (size_t i = n; i-- > 0;) {
        long dim = (long)i - (long)(n - x->ndim);
        const sy_expr *size = dim >= 0 ? x->sizes[dim] : KI(c, 1);
        const sy_expr *stride = dim >= 0 ? x->strides[dim] : i + 1 < n ? sy_expr_mul(ctx, out[i + 1], st[i + 1]) : KI(c, 1);
        if (size != out[i]) {
            int same = 0, differ = 0, one = 0;
            const sy_expr *eq = sy_expr_eq(ctx, size, out[i]);
            sy_status s2;
            if ((s2 = op_known_true(c, eq, &same)) || (!same && (s2 = op_known_true(c, sy_expr_not(ctx, eq), &differ))) ||
                (!same && !differ && (s2 = op_known_true(c, sy_expr_eq(ctx, size, KI(c, 1)), &one))))
                return s2;
            if (!same && !differ && one) {
                /* a dim of size 1 expanded to t (a [1, C] parameter to the batch): the stride is kept
                 * when t == 1, else 0. One expression instead of a guard on t (whose answer changes no
                 * size): [t == 1] = Max(0, Min(t, 2 - t)) for an integer t */
                const sy_expr *t = out[i];
                stride = sy_expr_mul(ctx, stride, sy_expr_max(ctx, KI(c, 0), sy_expr_min(ctx, t, sy_expr_sub(ctx, KI(c, 2), t))));
            } else if (!same && !differ) {
                /* expand required Or(size == 1, size == t) (op_require_expands): the stride is kept
                 * when size == t, else (size 1 expanded) 0; [size == t] = Max(0, 1 - |size - t|) */
                const sy_expr *d = sy_expr_sub(ctx, size, out[i]);
                const sy_expr *ind = sy_expr_max(ctx, KI(c, 0), sy_expr_sub(ctx, KI(c, 1), sy_expr_max(ctx, d, sy_expr_neg(ctx, d))));
                stride = sy_expr_mul(ctx, stride, ind);
            } else if (differ) {
                stride = KI(c, 0);
            }
        }
        if (!stride) return sy_ctx_last_error(ctx);
        st[i] = stride;
    }
    return op_set_strided(c, x->dtype, n, out, st);
}

/* expand (aten/src/ATen/ExpandUtils.cpp inferExpandGeometry): -1 keeps the
 * size (a symbolic size is asked whether it is -1); a size-1 dim takes the
 * new size; otherwise the sizes must match; new leading dims may be added
 * (not with -1). Every other size must be >= 0 (issue 10: expand(x, -5, -1)
 * gave [-5, 3]). */
static sy_status expand(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *x;
    const sy_expr **sz;
    size_t n;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_shape_args(c, 1, "size", &sz, &n))) return st;
    if (n < x->ndim)
        return op_err(c, SY_EINVAL, "the number of sizes provided (%zu) must be greater or equal to the number of dimensions in the tensor (%zu)", n, x->ndim);
    const sy_expr **out = sy_env_alloc(c->env, (n ? n : 1) * sizeof *out);
    if (!out) return sy_ctx_last_error(ctx);
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        bool keep = !sy_expr_get_si(sz[i], &v) && v == -1;
        if (!keep && sy_expr_kind_of(sz[i]) != SY_EXPR_INT && i >= n - x->ndim) { /* a symbolic size may be -1 at run time */
            int m1;
            if ((st = op_decide_bool(c, sy_expr_eq(ctx, sz[i], KI(c, -1)), "expand: is the size -1 (keep)?", &m1))) return st;
            keep = m1;
        }
        if (i < n - x->ndim) {
            if (keep) return op_err(c, SY_EINVAL, "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension %zu", i);
            if ((st = op_require(c, sy_expr_ge(ctx, sz[i], KI(c, 0)),
                                 "The expanded size of the tensor (%s) isn't allowed in a leading, non-existing dimension %zu",
                                 sy_env_show(c->env, sz[i]), i)))
                return st;
            out[i] = sz[i];
            continue;
        }
        /* other negative sizes: PyTorch builds a tensor of that size and fails
         * ("numel: integer multiplication overflow"), so require >= 0 */
        if (!keep && (st = op_require(c, sy_expr_ge(ctx, sz[i], KI(c, 0)),
                                      "Trying to create tensor with negative dimension %s (expand, dimension %zu)",
                                      sy_env_show(c->env, sz[i]), i)))
            return st;
        const sy_expr *cur = x->sizes[i - (n - x->ndim)];
        if (keep) {
            out[i] = cur;
            continue;
        }
        if ((st = op_require_expands(c, cur, sz[i], i))) return st;
        out[i] = sz[i];
    }
    return expand_strides(c, x, n, out);
}

static sy_status tensor_list(opcall *c, size_t pos, const char *kw, const sy_tensor ***ts, size_t *n)
{
    const sy_value *v = op_arg(c, pos, kw);
    if (!v || v->kind != SY_V_LIST) return op_err(c, SY_EINVAL, "expected a list of tensors");
    const sy_tensor **a = sy_env_alloc(c->env, (v->u.list.n ? v->u.list.n : 1) * sizeof *a);
    if (!a) return sy_ctx_last_error(c->env->ctx);
    for (size_t i = 0; i < v->u.list.n; i++) {
        if (v->u.list.items[i].kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "expected a list of tensors");
        a[i] = v->u.list.items[i].u.t;
    }
    *ts = a;
    *n = v->u.list.n;
    return SY_OK;
}

/* cat: same rank (legacy 1-D empty tensors are skipped), equal sizes except
 * in dim; output dim is the sum. */
static sy_status cat(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor **ts;
    size_t n;
    int64_t d;
    sy_status st;
    if ((st = tensor_list(c, 0, "tensors", &ts, &n)) || (st = op_const_int(c, 1, "dim", 0, &d))) return st;
    if (n == 0) return op_err(c, SY_EINVAL, "expected a non-empty list of Tensors");
    /* the reference: the first tensor of rank >= 2 when there is one (a 1-D tensor among
     * them is skipped when empty, and must be), else the first one not the constant [0] */
    const sy_tensor *ref = NULL;
    for (size_t i = 0; i < n && !ref; i++)
        if (ts[i]->ndim >= 2) ref = ts[i];
    for (size_t i = 0; i < n && !ref; i++)
        if (!(ts[i]->ndim == 1 && sy_expr_is_int(ts[i]->sizes[0]) && ts[i]->sizes[0] == KI(c, 0))) ref = ts[i];
    if (!ref) return op_set_tensor(c, ts[0]->dtype, 1, ts[0]->sizes);
    size_t w;
    if ((st = op_wrap_dim(c, d, ref->ndim, &w))) return st;
    const sy_expr **out = sy_env_alloc(c->env, ref->ndim * sizeof *out);
    if (!out) return sy_ctx_last_error(ctx);
    SY_COPY(out, ref->sizes, ref->ndim * sizeof *out);
    /* the sizes along w, added at once (sy_expr_add_n: O(n log n)); one at a time the sum was
     * rebuilt n times, quadratic (issue 38: 2,000 inputs 0.74 s, 4,000 2.7 s) */
    const sy_expr **parts = sy_env_alloc(c->env, n * sizeof *parts);
    if (!parts) return sy_ctx_last_error(ctx);
    size_t np = 0;
    for (size_t i = 0; i < n; i++) {
        const sy_tensor *t = ts[i];
        if (t->ndim == 1 && ref->ndim != 1) {
            /* ATen's cat skips a 1-D tensor of size 0 (legacy, both versions); one of a symbolic size
             * must be empty (lost46: x[n, 3] and y[k] traced at k = 0 was refused, "Tensors must
             * have same number of dimensions", though the CPU runs it) */
            if (t->sizes[0] != KI(c, 0) &&
                (st = op_require(c, sy_expr_eq(ctx, t->sizes[0], KI(c, 0)), "Tensors must have same number of dimensions: got %zu and 1",
                                 ref->ndim)))
                return st;
            continue;
        }
        if (t->ndim != ref->ndim)
            return op_err(c, SY_EINVAL, "Tensors must have same number of dimensions: got %zu and %zu", ref->ndim, t->ndim);
        for (size_t k = 0; k < ref->ndim; k++) {
            if (k == w || t->sizes[k] == out[k]) continue;
            if ((st = op_require(c, sy_expr_eq(ctx, t->sizes[k], out[k]),
                                 "cat: sizes of dim %zu must match (expected %s but got %s for tensor %zu)", k,
                                 sy_env_show(c->env, out[k]), sy_env_show(c->env, t->sizes[k]), i)))
                return st;
        }
        parts[np++] = t->sizes[w];
    }
    out[w] = np ? sy_expr_add_n(ctx, np, parts) : KI(c, 0);
    if (!out[w]) return sy_ctx_last_error(ctx);
    return op_set_tensor(c, ref->dtype, ref->ndim, out);
}

static sy_status stack(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor **ts;
    size_t n;
    int64_t d;
    sy_status st;
    if ((st = tensor_list(c, 0, "tensors", &ts, &n)) || (st = op_const_int(c, 1, "dim", 0, &d))) return st;
    if (n == 0) return op_err(c, SY_EINVAL, "stack expects a non-empty TensorList");
    size_t w;
    if ((st = op_wrap_dim(c, d, ts[0]->ndim + 1, &w))) return st;
    for (size_t i = 1; i < n; i++) {
        if (ts[i]->ndim != ts[0]->ndim) return op_err(c, SY_EINVAL, "stack expects each tensor to be equal size");
        for (size_t k = 0; k < ts[0]->ndim; k++)
            if ((st = op_require(c, sy_expr_eq(ctx, ts[i]->sizes[k], ts[0]->sizes[k]),
                                 "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %zu (dim %zu)",
                                 sy_env_show(c->env, ts[0]->sizes[k]), sy_env_show(c->env, ts[i]->sizes[k]), i, k)))
                return st;
    }
    const sy_expr **out = sy_env_alloc(c->env, (ts[0]->ndim + 1) * sizeof *out);
    if (!out) return sy_ctx_last_error(ctx);
    size_t m = 0;
    for (size_t k = 0; k <= ts[0]->ndim; k++) {
        if (k == w) out[m++] = KI(c, (int64_t)n);
        if (k < ts[0]->ndim) out[m++] = ts[0]->sizes[k];
    }
    return op_set_tensor(c, ts[0]->dtype, m, out);
}

/* split into pieces of split_size (last one smaller): TensorShape.cpp split */
static sy_status split_even(opcall *c, const sy_tensor *x, size_t w, const sy_expr *split)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_expr *L = x->sizes[w];
    sy_status st;
    int zero;
    if ((st = op_decide_bool(c, sy_expr_eq(ctx, split, KI(c, 0)), "split: is the split size 0?", &zero))) return st;
    const sy_expr *num = KI(c, 1);
    if (zero && (st = op_require(c, sy_expr_eq(ctx, L, KI(c, 0)),
                                 "split_size can only be 0 if dimension size is 0, but got dimension size of %s",
                                 sy_env_show(c->env, L))))
        return st;
    if (!zero) {
        /* num_splits = max(CeilDiv(L, split), 1) */
        num = sy_expr_max(ctx, sy_expr_ceildiv(ctx, L, split), KI(c, 1));
        if (!num) return sy_ctx_last_error(ctx);
    }
    /* the number of outputs is a Python-level count: it must be concrete */
    const sy_expr *nv;
    sy_provenance why = {c->where ? c->where->node : NULL, c->op, "number of chunks"};
    if ((st = sy_env_evaluate_expr(c->env, num, &why, &nv))) return st;
    int64_t k;
    if (sy_expr_get_si(nv, &k) || k < 1 || k > 100000) return op_err(c, SY_EINVAL, "bad number of chunks");
    const sy_tensor **outs = sy_env_alloc(c->env, (size_t)k * sizeof *outs);
    if (!outs) return sy_ctx_last_error(ctx);
    for (int64_t i = 0; i < k; i++) {
        const sy_expr **sz = sy_env_alloc(c->env, x->ndim * sizeof *sz);
        if (!sz) return sy_ctx_last_error(ctx);
        SY_COPY(sz, x->sizes, x->ndim * sizeof *sz);
        /* last: split - (split*num - L) = L - (num - 1)*split */
        sz[w] = i + 1 < k ? split : sy_expr_sub(ctx, L, sy_expr_mul_si(ctx, split, k - 1));
        if (!sz[w]) return sy_ctx_last_error(ctx);
        if (!(outs[i] = op_new_strided(c, x->dtype, x->ndim, sz, x->strides))) return sy_ctx_last_error(ctx);
    }
    return set_list(c, (size_t)k, outs);
}

/* chunk: split_size = CeilDiv(L, chunks), then split (TensorShape.cpp chunk) */
static sy_status chunk(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *x;
    int64_t chunks, d;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "chunks", 1, &chunks)) ||
        (st = op_const_int(c, 2, "dim", 0, &d)))
        return st;
    if (x->ndim == 0) return op_err(c, SY_EINVAL, "chunk expects at least a 1-dimensional tensor");
    if (chunks <= 0) return op_err(c, SY_EINVAL, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)chunks);
    size_t w;
    if ((st = op_wrap_dim(c, d, x->ndim, &w))) return st;
    const sy_expr *L = x->sizes[w];
    const sy_expr *split = sy_expr_ceildiv(ctx, L, KI(c, chunks));
    if (!split) return sy_ctx_last_error(ctx);
    /* An empty dim gives `chunks` pieces of size 0 (ATen's split_with_sizes case), a dim of L >= 1
     * CeilDiv(L, split) pieces: when that is `chunks`, both are one formula (pieces of `split`, the
     * last L - (chunks - 1)*split, all 0 at L = 0), so the case split is whether the count is
     * `chunks` or L is 0, not whether L is 0 (x.chunk(2, -1) in rotate_half, traced at L = 8, had
     * rejected L = 0, which the CPU runs under 1.13 and 2.14, with the same two pieces [.., 0]). */
    const sy_expr *count = sy_expr_ceildiv(ctx, L, sy_expr_max(ctx, split, KI(c, 1)));
    const sy_expr *full = count ? sy_expr_or(ctx, sy_expr_eq(ctx, L, KI(c, 0)), sy_expr_eq(ctx, count, KI(c, chunks))) : NULL;
    if (!full) return sy_ctx_last_error(ctx);
    int all;
    if ((st = op_decide_bool(c, full, "chunk: are there `chunks` pieces?", &all))) return st;
    if (all) {
        const sy_tensor **outs = sy_env_alloc(c->env, (size_t)chunks * sizeof *outs);
        if (!outs) return sy_ctx_last_error(ctx);
        for (int64_t i = 0; i < chunks; i++) {
            const sy_expr **sz = sy_env_alloc(c->env, x->ndim * sizeof *sz);
            if (!sz) return sy_ctx_last_error(ctx);
            SY_COPY(sz, x->sizes, x->ndim * sizeof *sz);
            sz[w] = i + 1 < chunks ? split : sy_expr_sub(ctx, L, sy_expr_mul_si(ctx, split, chunks - 1));
            if (!sz[w]) return sy_ctx_last_error(ctx);
            if (!(outs[i] = op_new_strided(c, x->dtype, x->ndim, sz, x->strides))) return sy_ctx_last_error(ctx);
        }
        return set_list(c, (size_t)chunks, outs);
    }
    return split_even(c, x, w, split);
}

static sy_status split(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *x;
    int64_t d;
    sy_status st;
    if ((st = op_tensor(c, 0, "tensor", &x)) || (st = op_const_int(c, 2, "dim", 0, &d))) return st;
    const sy_value *s = op_arg(c, 1, "split_size_or_sections");
    if (!s) s = op_arg(c, 1, "split_size");
    if (!s) return op_err(c, SY_EINVAL, "missing split size");
    size_t w;
    if ((st = op_wrap_dim(c, d, x->ndim, &w))) return st;
    if (s->kind == SY_V_INT) {
        if ((st = op_require(c, sy_expr_ge(ctx, s->u.i, KI(c, 0)), "split expects split_size be non-negative"))) return st;
        return split_even(c, x, w, s->u.i);
    }
    if (s->kind != SY_V_LIST) return op_err(c, SY_EINVAL, "split sizes must be an int or a list of ints");
    const sy_expr *sum = KI(c, 0);
    const sy_tensor **outs = sy_env_alloc(c->env, (s->u.list.n ? s->u.list.n : 1) * sizeof *outs);
    if (!outs) return sy_ctx_last_error(ctx);
    for (size_t i = 0; i < s->u.list.n; i++) {
        if (s->u.list.items[i].kind != SY_V_INT) return op_err(c, SY_EINVAL, "split sizes must be integers");
        const sy_expr *p = s->u.list.items[i].u.i;
        if ((st = op_require(c, sy_expr_ge(ctx, p, KI(c, 0)), "split_with_sizes expects split_sizes have only non-negative entries"))) return st;
        sum = sy_expr_add(ctx, sum, p);
        const sy_expr **sz = sy_env_alloc(c->env, x->ndim * sizeof *sz);
        if (!sz) return sy_ctx_last_error(ctx);
        SY_COPY(sz, x->sizes, x->ndim * sizeof *sz);
        sz[w] = p;
        if (!(outs[i] = op_new_strided(c, x->dtype, x->ndim, sz, x->strides))) return sy_ctx_last_error(ctx);
    }
    if ((st = op_require(c, sy_expr_eq(ctx, sum, x->sizes[w]),
                         "split_with_sizes expects split_sizes to sum exactly to %s (input tensor's size at dimension %zu), but got %s",
                         sy_env_show(c->env, x->sizes[w]), w, sy_env_show(c->env, sum))))
        return st;
    return set_list(c, s->u.list.n, outs);
}

static sy_status narrow(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *x;
    int64_t d;
    const sy_expr *start, *len;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "dim", 0, &d)) || (st = op_int(c, 2, "start", &start)) ||
        (st = op_int(c, 3, "length", &len)))
        return st;
    size_t w;
    if ((st = op_wrap_dim(c, d, x->ndim, &w))) return st;
    const sy_expr *L = x->sizes[w];
    int neg;
    if ((st = op_decide_bool(c, sy_expr_lt(ctx, start, KI(c, 0)), "narrow: negative start?", &neg))) return st;
    if (neg) start = sy_expr_add(ctx, start, L);
    if ((st = op_require(c, sy_expr_ge(ctx, start, KI(c, 0)), "start out of range")) ||
        (st = op_require(c, sy_expr_ge(ctx, len, KI(c, 0)), "narrow(): length must be non-negative.")) ||
        (st = op_require(c, sy_expr_le(ctx, sy_expr_add(ctx, start, len), L), "start (%s) + length (%s) exceeds dimension size (%s).",
                         sy_env_show(c->env, start), sy_env_show(c->env, len), sy_env_show(c->env, L))))
        return st;
    const sy_expr **out = sy_env_alloc(c->env, x->ndim * sizeof *out);
    if (!out) return sy_ctx_last_error(ctx);
    SY_COPY(out, x->sizes, x->ndim * sizeof *out);
    out[w] = len;
    return op_set_strided(c, x->dtype, x->ndim, out, x->strides); /* a view: same strides, offset start */
}

static sy_status select_dim(opcall *c, const sy_tensor *x, size_t w, const sy_expr *idx, const sy_tensor **res)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_expr *L = x->sizes[w];
    sy_status st;
    if ((st = op_require(c, sy_expr_and(ctx, sy_expr_ge(ctx, idx, sy_expr_neg(ctx, L)), sy_expr_lt(ctx, idx, L)),
                         "index %s is out of bounds for dimension %zu with size %s", sy_env_show(c->env, idx), w,
                         sy_env_show(c->env, L))))
        return st;
    const sy_expr **out = sy_env_alloc(c->env, (x->ndim ? x->ndim : 1) * sizeof *out);
    const sy_expr **ost = sy_env_alloc(c->env, (x->ndim ? x->ndim : 1) * sizeof *ost);
    if (!out || !ost) return sy_ctx_last_error(ctx);
    size_t n = 0;
    for (size_t i = 0; i < x->ndim; i++)
        if (i != w) {
            if (x->strides) ost[n] = x->strides[i];
            out[n++] = x->sizes[i];
        }
    *res = op_new_strided(c, x->dtype, n, out, x->strides ? ost : NULL);
    return *res ? SY_OK : sy_ctx_last_error(ctx);
}

static sy_status select_(opcall *c)
{
    const sy_tensor *x, *r;
    int64_t d;
    const sy_expr *idx;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "dim", 0, &d)) || (st = op_int(c, 2, "index", &idx))) return st;
    if (x->ndim == 0) return op_err(c, SY_EINVAL, "select() cannot be applied to a 0-dim tensor.");
    size_t w;
    if ((st = op_wrap_dim(c, d, x->ndim, &w)) || (st = select_dim(c, x, w, idx, &r))) return st;
    *c->out = sy_value_tensor(r);
    return SY_OK;
}

static sy_status index_select(opcall *c)
{
    const sy_tensor *x, *idx;
    int64_t d;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_const_int(c, 1, "dim", 0, &d)) || (st = op_tensor(c, 2, "index", &idx))) return st;
    if (idx->ndim > 1) return op_err(c, SY_EINVAL, "index_select(): Index is supposed to be a vector");
    if (idx->dtype != SY_DT_INT64 && idx->dtype != SY_DT_INT32)
        return op_err(c, SY_EINVAL, "index_select(): Expected dtype int32 or int64 for index");
    size_t w;
    if ((st = op_wrap_dim(c, d, x->ndim ? x->ndim : 1, &w))) return st;
    /* index_select_out_cpu_: a non-empty index into an empty dim fails
     * ("self indexing axis dim should be positive") */
    const sy_expr *L = x->ndim ? x->sizes[w] : KI(c, 1), *ni = idx->ndim ? idx->sizes[0] : KI(c, 1);
    if ((st = op_require(c, sy_expr_or(c->env->ctx, sy_expr_eq(c->env->ctx, ni, KI(c, 0)), sy_expr_ge(c->env->ctx, L, KI(c, 1))),
                         "index_select(): self indexing axis dim should be positive")))
        return st;
    /* indices from sizes (values.c): TORCH_CHECK_INDEX(0 <= index < self.size(dim), "index out of
     * range in self") of index_select_out_cpu_ (TensorAdvancedIndexing.cpp) where there is one */
    if ((st = sy_env_values_require_in(c, idx, sy_expr_eq(c->env->ctx, ni, KI(c, 0)), KI(c, 0),
                                       sy_expr_sub(c->env->ctx, L, KI(c, 1)), "index out of range in self")))
        return st;
    const sy_expr **out = sy_env_alloc(c->env, (x->ndim ? x->ndim : 1) * sizeof *out);
    if (!out) return sy_ctx_last_error(c->env->ctx);
    SY_COPY(out, x->sizes, x->ndim * sizeof *out);
    if (x->ndim) out[w] = idx->ndim ? idx->sizes[0] : KI(c, 1);
    return op_set_tensor(c, x->dtype, x->ndim, out);
}

/* mean / sum / amax / amin / max(dim) style reductions over dims (None: all) */
static sy_status reduce(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    const sy_value *dv = op_arg(c, 1, "dim");
    int keep;
    if ((st = op_bool_def(c, 2, "keepdim", 0, &keep))) return st;
    bool sel[64] = {false};
    if (x->ndim > 64) return op_err(c, SY_EINVAL, "too many dims");
    bool all = !dv || dv->kind == SY_V_NONE || (dv->kind == SY_V_LIST && dv->u.list.n == 0);
    if (all) {
        for (size_t i = 0; i < x->ndim; i++) sel[i] = true;
    } else {
        size_t nd = dv->kind == SY_V_LIST ? dv->u.list.n : 1;
        for (size_t i = 0; i < nd; i++) {
            const sy_value *e = dv->kind == SY_V_LIST ? &dv->u.list.items[i] : dv;
            int64_t d;
            size_t w;
            if (e->kind != SY_V_INT || sy_expr_get_si(e->u.i, &d)) return op_err(c, SY_EINVAL, "dims must be constant integers");
            if ((st = op_wrap_dim(c, d, x->ndim, &w))) return st;
            if (sel[w]) return op_err(c, SY_EINVAL, "dim %zu appears multiple times in the list of dims", w);
            sel[w] = true;
        }
    }
    const sy_expr **out = sy_env_alloc(c->env, (x->ndim ? x->ndim : 1) * sizeof *out);
    if (!out) return sy_ctx_last_error(c->env->ctx);
    size_t n = 0;
    for (size_t i = 0; i < x->ndim; i++) {
        if (!sel[i]) out[n++] = x->sizes[i];
        else if (keep) out[n++] = KI(c, 1);
    }
    if (!strcmp(c->op, "amax") || !strcmp(c->op, "amin")) {
        for (size_t i = 0; i < x->ndim; i++)
            if (sel[i] && (st = op_require(c, sy_expr_ge(c->env->ctx, x->sizes[i], KI(c, 1)),
                                           "Expected reduction dim %zu to have non-zero size.", i)))
                return st;
    }
    /* sum of a bool or integer tensor is int64, or the dtype= asked (ReduceOps.cpp sum: get_dtype_from_self(self,
     * opt_dtype, promote_integers=true)); .item() of it is then an integer, not a symbolic boolean */
    sy_dtype dt = x->dtype;
    if (!strcmp(c->op, "sum")) {
        if (!op_is_floating(dt) && !op_is_complex(dt)) dt = SY_DT_INT64;
        const sy_value *dtv = op_arg(c, (size_t)-1, "dtype");
        if (dtv && dtv->kind == SY_V_DTYPE) dt = dtv->u.dtype;
    }
    return op_set_tensor(c, dt, n, out);
}

/* F.pad (aten/src/ATen/native/PadNd.cpp at::pad, PyTorch 1.13): (left, right)
 * pairs from the last dim backwards. Checks of the CPU kernels (verified
 * against torch 1.13, tests/kernels/test_kernel_checks.py):
 *  - constant (PadNd.cpp constant_pad_nd): a negative pad narrows the input,
 *    left first: L + min(l, 0) + min(r, 0) >= 0 ("start + length exceeds");
 *    when any pad is positive, every padded dim must end >= 1 (new_dim > 0);
 *  - other modes: 2k pads with k in 1..3 on a (k+1)-D or (k+2)-D input ("Only
 *    2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
 *  - reflect (ReflectionPad.cpp): reflection_pad{1,2}d need dims 1.. non-zero
 *    (batched: channels and spatial; unbatched: the spatial dims only, the
 *    channels may be 0); reflection_pad3d as replicate; every pad < its dim
 *    ("Padding size should be less than the corresponding input dimension");
 *  - replicate (ReplicationPadding.cpp padding::check_valid_input): batched:
 *    dims 1.. non-zero, unbatched: every dim non-zero;
 *  - reflect, replicate: 1-D output >= 1; 2-D/3-D: each output >= 0 and
 *    at least one >= 1 (the kernels check "W >= 1 || H >= 1 ..." - "too small");
 * PyTorch 2.x (sy_env_set_torch_version; ReflectionPad.cpp / ReplicationPadding.cpp
 * padding::check_valid_input and the TORCH_META_FUNCs, mirrored in
 * torch/_meta_registrations.py _padding_check_valid_input and _pad{1,2,3}d_common; PadNd.cpp
 * constant_pad_nd, torch/_refs constant_pad_nd) differs in three checks:
 *  - reflect, replicate: an unbatched input needs every dim non-zero (reflect too);
 *  - replicate: every padded output >= 1 ("Calculated output H: .. W: .. must be >= 1 in
 *    every dimension"; the CPU's reflect keeps 1.13's rule, though the meta function says >= 1);
 *  - constant: a padded dim may end at 0 (new_dim >= 0, no longer > 0 when a pad is positive);
 *  - circular (PadNd.cpp _pad_circular): exactly 2*(ndim - 2) pads; every pad
 *    <= its dim ("Padding value causes wrapping around more than once"); each
 *    output >= 0 ("Negative padding value is resulting in an empty dimension"). */
/* torch's _pad_circular_symint (PadNd.cpp, 1.13 and 2.x) on one dim of size L with pads (l, r): the
 * input goes into the middle of the output, then the wrapped parts are copied from the output
 * itself, with ATen's slice clamping (a negative bound counts from the end) and copy_'s checks (the
 * source broadcasts to the destination; two regions of one tensor that intersect must be the same
 * region). 1 when it runs. Checked against the CPU over L 0..9 and pads -10..10 under both
 * versions: the same answer at all 4,410. Arguments at most 2^40 in magnitude. */
static void circ_slice(int64_t n, int64_t a, int64_t b, int64_t *o0, int64_t *o1)
{
    if (a < 0) a += n;
    if (b < 0) b += n;
    a = a < 0 ? 0 : a > n ? n : a;
    b = b < 0 ? 0 : b > n ? n : b;
    *o0 = a;
    *o1 = b < a ? a : b;
}
static int circ_copy(int same, int64_t d0, int64_t d1, int64_t s0, int64_t s1)
{
    int64_t ld = d1 - d0, ls = s1 - s0;
    if (ls != ld && ls != 1) return 0;
    if (same && ld > 0 && ls > 0 && (d0 > s0 ? d0 : s0) < (d1 < s1 ? d1 : s1) && (d0 != s0 || d1 != s1)) return 0;
    return 1;
}
static int circular_runs(int64_t L, int64_t l, int64_t r)
{
    if (l > L || r > L) return 0;
    int64_t O = L + l + r, pl = l > 0 ? l : 0, pr = r > 0 ? r : 0, a, b, s0, s1;
    if (O < 0) return 0;
    circ_slice(O, pl, O - pr, &a, &b);
    circ_slice(L, l < 0 ? -l : 0, L - (r < 0 ? -r : 0), &s0, &s1);
    if (!circ_copy(0, a, b, s0, s1)) return 0;
    if (l > 0) {
        circ_slice(O, 0, l, &a, &b);
        circ_slice(O, O - l - pr, O - pr, &s0, &s1);
        if (!circ_copy(1, a, b, s0, s1)) return 0;
    }
    if (r > 0) {
        circ_slice(O, O - r, O, &a, &b);
        circ_slice(O, pl, pl + r, &s0, &s1);
        if (!circ_copy(1, a, b, s0, s1)) return 0;
    }
    return 1;
}

static sy_status pad(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    const sy_value *pv = op_arg(c, 1, "pad");
    if (!pv || pv->kind != SY_V_LIST) return op_err(c, SY_EINVAL, "pad must be a list of integers");
    const sy_value *mv = op_arg(c, 2, "mode");
    const char *mode = "constant";
    if (mv && mv->kind == SY_V_STR) mode = mv->u.s;
    else if (mv && mv->kind != SY_V_NONE) return op_err(c, SY_EINVAL, "mode must be a string");
    enum { CONSTANT, REFLECT, REPLICATE, CIRCULAR } m;
    if (!strcmp(mode, "constant")) m = CONSTANT;
    else if (!strcmp(mode, "reflect")) m = REFLECT;
    else if (!strcmp(mode, "replicate")) m = REPLICATE;
    else if (!strcmp(mode, "circular")) m = CIRCULAR;
    else return op_err(c, SY_EINVAL, "Unrecognised padding mode %s", mode);
    size_t np = pv->u.list.n, k = np / 2;
    if (np % 2) return op_err(c, SY_EINVAL, "Padding length must be divisible by 2");
    if (k > x->ndim) return op_err(c, SY_EINVAL, "Padding length too large");
    if (m != CONSTANT && (k < 1 || k > 3 || (x->ndim != k + 1 && x->ndim != k + 2)))
        return op_err(c, SY_EINVAL, "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
    if (m == CIRCULAR && x->ndim != k + 2)
        return op_err(c, SY_EINVAL, "Invalid padding size, expected %zu but got %zu", 2 * (x->ndim >= 2 ? x->ndim - 2 : 0), np);
    for (size_t i = 0; i < np; i++)
        if (pv->u.list.items[i].kind != SY_V_INT) return op_err(c, SY_EINVAL, "pad entries must be integers");
    const sy_expr **out = sy_env_alloc(c->env, (x->ndim ? x->ndim : 1) * sizeof *out);
    if (!out) return sy_ctx_last_error(ctx);
    SY_COPY(out, x->sizes, x->ndim * sizeof *out);
    const sy_expr *zero = KI(c, 0), *one = KI(c, 1);
    if (m == REFLECT || m == REPLICATE) {
        int batched = x->ndim == k + 2;
        /* dims that must be non-zero: reflection_pad{1,2}d skip dim 0 of an
         * unbatched input (its channels); the others check every non-batch dim */
        size_t from = batched ? 1 : (m == REFLECT && k <= 2 && op_torch1(c)) ? 1 : 0;
        for (size_t d = from; d < x->ndim; d++)
            if ((st = op_require(c, sy_expr_ge(ctx, x->sizes[d], one),
                                 "Expected %zuD or %zuD (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but dim %zu is %s",
                                 k + 1, k + 2, d, sy_env_show(c->env, x->sizes[d]))))
                return st;
    }
    /* constant_pad_nd: when no pad is positive it only narrows (and returns a clone), else every
     * padded dim must end >= 1: the sizes are L + l + r either way, so the pads' signs are not
     * decided (a computed F.pad amount such as (7 - w % 7) % 7 is 0 at some sizes): each dim
     * requires Or(no pad positive, out >= 1), true by construction where out >= 1 is */
    const sy_expr *none_positive = sy_expr_true(ctx);
    for (size_t i = 0; i < np && m == CONSTANT && op_torch1(c); i++) none_positive = sy_expr_and(ctx, none_positive, sy_expr_le(ctx, pv->u.list.items[i].u.i, zero));
    if (!none_positive) return sy_ctx_last_error(ctx);
    for (size_t i = 0; i < k; i++) {
        const sy_expr *l = pv->u.list.items[2 * i].u.i, *r = pv->u.list.items[2 * i + 1].u.i;
        size_t d = x->ndim - 1 - i;
        const sy_expr *L = x->sizes[d];
        const sy_expr *kept = NULL; /* the padded dim by the rule both frontends share (shapeenv/rules.c) */
        if ((st = sy_rule_pad_dim(c->env, L, l, r, &out[d], m == CONSTANT ? &kept : NULL))) return st;
        if (m == CONSTANT) {
            if ((st = op_require(c, sy_expr_ge(ctx, kept, zero),
                                 "The input size %s, plus negative padding %s and %s resulted in a negative output size",
                                 sy_env_show(c->env, L), sy_env_show(c->env, l), sy_env_show(c->env, r))))
                return st;
            if (op_torch1(c) && (st = op_require(c, sy_expr_or(ctx, none_positive, sy_expr_ge(ctx, out[d], one)),
                                 "The input size %s, plus negative padding %s and %s resulted in a negative output size, "
                                 "which is invalid. Check dimension %zu of your input.",
                                 sy_env_show(c->env, L), sy_env_show(c->env, l), sy_env_show(c->env, r), d)))
                return st;
        } else if (m == REFLECT) {
            if ((st = op_require(c, sy_expr_and(ctx, sy_expr_lt(ctx, l, L), sy_expr_lt(ctx, r, L)),
                                 "Padding size should be less than the corresponding input dimension, but got: padding (%s, %s) at dimension %zu of input size %s",
                                 sy_env_show(c->env, l), sy_env_show(c->env, r), d, sy_env_show(c->env, L))))
                return st;
        } else if (m == CIRCULAR) {
            /* the wrapped part is copied from the input narrowed by the negative pad on the other side:
             * a positive pad past that overlaps the output it writes (copy_'s "unsupported operation:
             * some elements of the input tensor and the written-to tensor refer to a single memory
             * location"; PadNd.cpp _pad_circular_symint, both versions) */
            int64_t lv, rv, Lv;
            const int64_t big = (int64_t)1 << 40;
            int exact = 0;
            if (!sy_expr_get_si(l, &lv) && !sy_expr_get_si(r, &rv) && ((lv < 0 && rv > 0) || (lv > 0 && rv < 0)) &&
                lv > -big && lv < big && rv > -big && rv < big) {
                /* constant pads of mixed signs: whether it runs depends on L exactly (circular_runs): a
                 * symbolic L is specialized to its example (a guard), then the kernel's copies decide */
                if (sy_expr_get_si(L, &Lv)) {
                    const sy_expr *v = NULL;
                    sy_provenance why = {c->where ? c->where->node : NULL, c->op, "circular padding of mixed signs"};
                    if ((st = sy_env_evaluate_expr(c->env, L, &why, &v))) return st;
                    if (sy_expr_get_si(v, &Lv)) return op_err(c, SY_EINVAL, "pad: dim %zu out of range", d);
                }
                if (Lv >= big || !circular_runs(Lv, lv, rv))
                    return op_err(c, SY_EINVAL, "Padding value causes wrapping around more than once, or overlaps itself "
                                  "(padding (%lld, %lld) at dimension %zu of size %lld)", (long long)lv, (long long)rv, d, (long long)Lv);
                exact = 1;
            }
            /* symbolic pads: ... except an empty output whose main copy is empty too (left pad <= 0 or
             * = L). Checked against the CPU over widths 0..9 and pads -10..10 (1.13 and 2.14): never
             * accepts what torch refuses (circular_runs is exact; this is its sound over-approximation) */
            const sy_expr *ln = sy_expr_add(ctx, L, sy_expr_min(ctx, r, zero)), *rn = sy_expr_add(ctx, L, sy_expr_min(ctx, l, zero));
            const sy_expr *empty = sy_expr_and(ctx, sy_expr_eq(ctx, sy_expr_add(ctx, L, sy_expr_add(ctx, l, r)), zero),
                                               sy_expr_or(ctx, sy_expr_le(ctx, l, zero), sy_expr_ge(ctx, l, L)));
            if (!exact && (st = op_require(c, sy_expr_or(ctx, empty, sy_expr_and(ctx, sy_expr_le(ctx, l, ln), sy_expr_le(ctx, r, rn))),
                                 "Padding value causes wrapping around more than once, or overlaps itself (padding (%s, %s) at dimension %zu of size %s)",
                                 sy_env_show(c->env, l), sy_env_show(c->env, r), d, sy_env_show(c->env, L))))
                return st;
            if ((st = op_require(c, sy_expr_and(ctx, sy_expr_le(ctx, l, L), sy_expr_le(ctx, r, L)),
                                 "Padding value causes wrapping around more than once (padding (%s, %s) at dimension %zu of size %s)",
                                 sy_env_show(c->env, l), sy_env_show(c->env, r), d, sy_env_show(c->env, L))))
                return st;
        }
        if (m != CONSTANT && (st = op_require(c, sy_expr_ge(ctx, out[d], (m != CIRCULAR && (k == 1 || (m == REPLICATE && !op_torch1(c)))) ? one : zero),
                                              "input size %s at dimension %zu is too small: padded by %s and %s it is %s",
                                              sy_env_show(c->env, L), d, sy_env_show(c->env, l), sy_env_show(c->env, r),
                                              sy_env_show(c->env, out[d]))))
            return st;
    }
    if ((m == REFLECT || (m == REPLICATE && op_torch1(c))) && k > 1) {
        const sy_expr *any = sy_expr_false(ctx);
        for (size_t i = 0; i < k; i++) any = sy_expr_or(ctx, any, sy_expr_ge(ctx, out[x->ndim - 1 - i], one));
        if ((st = op_require(c, any, "input is too small: every padded output size is 0"))) return st;
    }
    return op_set_tensor(c, x->dtype, x->ndim, out);
}

static sy_status factory(opcall *c)
{
    const sy_expr **sz;
    size_t n;
    sy_status st;
    size_t first = (!strcmp(c->op, "new_zeros") || !strcmp(c->op, "new_ones") || !strcmp(c->op, "new_empty") ||
                    !strcmp(c->op, "new_full")) ? 1 : 0;
    sy_dtype dt = SY_DT_FLOAT32;
    if (first) {
        const sy_tensor *base;
        if ((st = op_tensor(c, 0, "input", &base))) return st;
        dt = base->dtype;
    }
    opcall c2 = *c;
    size_t nargs = c->nargs;
    if (!strcmp(c->op, "full") || !strcmp(c->op, "new_full")) nargs = first + 1; /* full(size, fill_value) */
    c2.nargs = nargs;
    if ((st = op_shape_args(&c2, first, "size", &sz, &n))) return st;
    for (size_t i = 0; i < n; i++)
        if ((st = op_require(c, sy_expr_ge(c->env->ctx, sz[i], KI(c, 0)), "Trying to create tensor with negative dimension %s",
                             sy_env_show(c->env, sz[i]))))
            return st;
    const sy_value *dv = op_arg(c, (size_t)-1, "dtype");
    if (dv && dv->kind == SY_V_DTYPE) dt = dv->u.dtype;
    return op_set_tensor(c, dt, n, sz);
}

/* arange(end) / arange(start, end[, step]) with integer arguments:
 * length CeilDiv(end - start, step) (step a positive constant). */
static sy_status arange(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_expr *start = KI(c, 0), *end, *stepe = KI(c, 1);
    sy_status st;
    if (c->nargs <= 1) {
        if ((st = op_int(c, 0, "end", &end))) return st;
    } else if ((st = op_int(c, 0, "start", &start)) || (st = op_int(c, 1, "end", &end)) ||
               (st = op_int_def(c, 2, "step", 1, &stepe))) {
        return st;
    }
    int64_t step;
    if (!sy_expr_get_si(stepe, &step) && step == 0) return op_err(c, SY_EINVAL, "step must be nonzero"); /* RangeFactories.cpp */
    if (sy_expr_get_si(stepe, &step) || step <= 0) return op_err(c, SY_EUNSUPPORTED, "step must be a positive constant");
    if ((st = op_require(c, sy_expr_ge(ctx, end, start), "upper bound and larger bound inconsistent with step sign"))) return st;
    const sy_expr *n = sy_expr_ceildiv(ctx, sy_expr_sub(ctx, end, start), KI(c, step));
    sy_dtype dt = SY_DT_INT64;
    const sy_value *dv = op_arg(c, (size_t)-1, "dtype");
    if (dv && dv->kind == SY_V_DTYPE) dt = dv->u.dtype;
    if ((st = op_set_tensor(c, dt, 1, &n))) return st;
    /* its values start + k * step, k < n: least start, greatest start + (n - 1) * step when
     * n >= 1 (values.c). An integer dtype only (no rounding); RangeFactories.cpp (arange_out)
     * computes start + k * step in int64 and casts it to the dtype, so int32, int16, int8 and
     * uint8 values wrap modulo 2^bits (uint8: arange(300) ends 41, 42, 43; CPU, 1.13 and 2.x):
     * ring bounds, exact where they fit the dtype (values.c need_fit); int64 ones cannot wrap */
    if (sy_vb_int_dtype(dt, NULL, NULL, NULL)) {
        c->env->vpend_b = sy_vbounds_seq(ctx, start, step, n);
        if (!c->env->vpend_b.part[0].lo || !c->env->vpend_b.part[0].hi) return sy_ctx_last_error(ctx);
        c->env->vpend_b.ring = dt != SY_DT_INT64;
        c->env->vpend = 1;
    }
    return SY_OK;
}

static sy_status same_shape(opcall *c) /* triu, tril, masked_fill, ... */
{
    const sy_tensor *x;
    sy_status st = op_tensor(c, 0, "input", &x);
    if (st) return st;
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

/* Tensor indexing x[...]: ints select, slices narrow (clamped like Python),
 * None inserts a dim, one Ellipsis expands. An index with a tensor, a list or
 * a Python bool is advanced indexing (sy_tensor_getitem_adv, ops_advindex.c). */
sy_status sy_tensor_getitem(opcall *c, const sy_tensor *t, const sy_value *idx)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_value *items = idx->kind == SY_V_LIST ? idx->u.list.items : idx;
    size_t n = idx->kind == SY_V_LIST ? idx->u.list.n : 1;
    size_t consumed = 0;
    long ell = -1;
    for (size_t i = 0; i < n; i++) {
        if (items[i].kind == SY_V_ELLIPSIS) {
            if (ell >= 0) return op_err(c, SY_EINVAL, "an index can only have a single ellipsis");
            ell = (long)i;
        } else if (items[i].kind == SY_V_INT || items[i].kind == SY_V_SLICE) {
            consumed++;
        } else if (items[i].kind == SY_V_TENSOR || items[i].kind == SY_V_LIST || items[i].kind == SY_V_BOOL) {
            return sy_tensor_getitem_adv(c, t, items, n); /* advanced indexing: ops_advindex.c */
        } else if (items[i].kind != SY_V_NONE) {
            return op_err(c, SY_EINVAL, "unsupported index");
        }
    }
    if (consumed > t->ndim) return op_err(c, SY_EINVAL, "too many indices for tensor of dimension %zu", t->ndim);
    const sy_expr **out = sy_env_alloc(c->env, (t->ndim + n + 1) * sizeof *out);
    const sy_expr **ost = sy_env_alloc(c->env, (t->ndim + n + 1) * sizeof *ost);
    if (!out || !ost) return sy_ctx_last_error(ctx);
    /* strides (aten/src/ATen/TensorIndexing.h applySlicing): a slice is
     * x.slice(dim, start, stop, step), stride * step; an int is select (dim
     * removed); None is unsqueeze at the current position */
    const sy_expr *const *tst = t->strides;
    size_t m = 0, d = 0;
    sy_status st;
    for (size_t i = 0; i < n; i++) {
        const sy_value *v = &items[i];
        if (v->kind == SY_V_ELLIPSIS) {
            size_t skip = t->ndim - consumed;
            for (size_t k = 0; k < skip; k++) {
                if (tst) ost[m] = tst[d];
                out[m++] = t->sizes[d++];
            }
        } else if (v->kind == SY_V_NONE) {
            if (tst) ost[m] = d < t->ndim ? sy_expr_mul(ctx, t->sizes[d], tst[d]) : KI(c, 1);
            out[m++] = KI(c, 1);
        } else if (v->kind == SY_V_INT) {
            const sy_expr *L = t->sizes[d];
            if ((st = op_require(c, sy_expr_and(ctx, sy_expr_ge(ctx, v->u.i, sy_expr_neg(ctx, L)), sy_expr_lt(ctx, v->u.i, L)),
                                 "index %s is out of bounds for dimension %zu with size %s", sy_env_show(c->env, v->u.i), d,
                                 sy_env_show(c->env, L))))
                return st;
            d++;
        } else {
            const sy_expr *start, *cnt;
            int64_t step;
            if ((st = sy_slice_len(c, v, t->sizes[d], &start, &cnt, &step))) return st;
            if (tst) ost[m] = step == 1 ? tst[d] : sy_expr_mul(ctx, tst[d], KI(c, step));
            out[m++] = cnt;
            d++;
        }
    }
    while (d < t->ndim) {
        if (tst) ost[m] = tst[d];
        out[m++] = t->sizes[d++];
    }
    for (size_t i = 0; tst && i < m; i++)
        if (!ost[i]) return sy_ctx_last_error(ctx);
    return op_set_strided(c, t->dtype, m, out, tst ? ost : NULL);
}

/* x.as_strided(size, stride, storage_offset=None) (aten/src/ATen/native/TensorShape.cpp
 * as_strided_tensorimpl -> setStrided, 1.13 and 2.x): a view with the given sizes and strides
 * (same length: "mismatch in length of strides and shape"; "as_strided: Negative strides are
 * not supported at the moment"; "Tensor: invalid storage offset"), which checkInBoundsForStorage
 * requires to fit x's storage: computeStorageNbytes(size, stride) = 0 when a size is 0, else
 * 1 + sum (size_i - 1) * stride_i elements, plus the offset, at most the storage's size.
 * symshape models no storage: x's own span (computeStorageNbytes of x, which x's storage holds
 * past x's offset, itself >= 0) stands for it, so the requirement span(view) + offset <=
 * span(x) is sufficient (never accepts a size the CPU refuses); it is exact for a tensor that
 * owns its storage from offset 0 (a graph input, a fresh result), and may refuse a view of a
 * larger base. The result's storage offset is not modelled (docs/ops.md section 8). */
static sy_status as_strided(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *x;
    sy_status st = op_tensor(c, 0, "input", &x);
    if (st) return st;
    const sy_value *vs = op_arg(c, 1, "size"), *vt = op_arg(c, 2, "stride");
    if (!vs || !vt || vs->kind != SY_V_LIST || vt->kind != SY_V_LIST)
        return op_err(c, SY_EINVAL, "as_strided(size, stride, storage_offset=None): size and stride must be lists of ints");
    const sy_expr **size, **stride;
    size_t n, m;
    if ((st = op_shape_args(c, 1, "size", &size, &n)) || (st = op_shape_args(c, 2, "stride", &stride, &m))) return st;
    if (n != m) return op_err(c, SY_EINVAL, "mismatch in length of strides and shape");
    const sy_expr *off = KI(c, 0);
    const sy_value *vo = op_arg(c, 3, "storage_offset");
    if (vo && vo->kind != SY_V_NONE && (st = op_int_def(c, 3, "storage_offset", 0, &off))) return st;
    const sy_expr *const *xs;
    if ((st = op_strides(c, x, &xs))) return st;
    if (!xs) return op_err(c, SY_EUNSUPPORTED, "as_strided: the strides of the input are not modelled (docs/ops.md section 8); insert .contiguous()");
    for (size_t i = 0; i < n; i++) {
        if ((st = op_require(c, sy_expr_ge(ctx, size[i], KI(c, 0)), "Trying to create tensor with negative dimension %s", sy_env_show(c->env, size[i]))))
            return st;
        if ((st = op_require(c, sy_expr_ge(ctx, stride[i], KI(c, 0)), "as_strided: Negative strides are not supported at the moment, got strides: %s", sy_env_show(c->env, stride[i]))))
            return st;
    }
    if ((st = op_require(c, sy_expr_ge(ctx, off, KI(c, 0)), "Tensor: invalid storage offset %s", sy_env_show(c->env, off)))) return st;
    /* span(view): 0 when a size is 0 (no check then), else 1 + sum (size_i - 1) * stride_i */
    const sy_expr *any0 = sy_expr_false(ctx), *need = KI(c, 1), *have = KI(c, 1), *xempty = sy_expr_false(ctx);
    for (size_t i = 0; i < n && need; i++) {
        any0 = sy_expr_or(ctx, any0, sy_expr_eq(ctx, size[i], KI(c, 0)));
        need = sy_expr_add(ctx, need, sy_expr_mul(ctx, sy_expr_sub(ctx, size[i], KI(c, 1)), stride[i]));
    }
    for (size_t i = 0; i < x->ndim && have; i++) {
        xempty = sy_expr_or(ctx, xempty, sy_expr_eq(ctx, x->sizes[i], KI(c, 0)));
        have = sy_expr_add(ctx, have, sy_expr_mul(ctx, sy_expr_sub(ctx, x->sizes[i], KI(c, 1)), xs[i]));
    }
    if (!need || !have || !any0 || !xempty) return sy_ctx_last_error(ctx);
    /* x empty: its storage may hold nothing past its offset (span 0) */
    const sy_expr *fits = sy_expr_or(ctx, any0, sy_expr_and(ctx, sy_expr_not(ctx, xempty), sy_expr_le(ctx, sy_expr_add(ctx, need, off), have)));
    if (!fits) return sy_ctx_last_error(ctx);
    if ((st = op_require(c, fits, "setStorage: sizes, strides and storage offset %s are out of bounds for the storage of the input (symshape bounds the storage by the input's own extent)", sy_env_show(c->env, off))))
        return st;
    return op_set_strided(c, x->dtype, n, size, stride);
}

const opentry sy_ops_shape[] = {
    OP_ROW("as_strided", as_strided, 0, OPL_OWN),
    OP_ROW("view", view, 0, OPL_OWN),
    OP_ROW("reshape", view, 0, OPL_OWN),
    OP_ROW("flatten", flatten, 0, OPL_OWN),
    OP_ROW("permute", permute, OP_CARRIES, OPL_OWN),
    OP_ROW("transpose", transpose, OP_CARRIES, OPL_OWN),
    OP_ROW("t", transpose, OP_CARRIES, OPL_OWN),
    OP_ROW("unsqueeze", unsqueeze, OP_CARRIES, OPL_OWN),
    OP_ROW("squeeze", squeeze, OP_CARRIES, OPL_OWN),
    OP_ROW("expand", expand, OP_CARRIES, OPL_OWN),
    OP_ROW("cat", cat, 0, OPL_MEMFMT),
    OP_ROW("concat", cat, 0, OPL_MEMFMT),
    OP_ROW("stack", stack),
    OP_ROW("chunk", chunk, OP_CARRIES, OPL_OWN),
    OP_ROW("split", split, OP_CARRIES, OPL_OWN),
    OP_ROW("narrow", narrow, OP_CARRIES, OPL_OWN),
    OP_ROW("select", select_, OP_CARRIES, OPL_OWN),
    OP_ROW("index_select", index_select, 0, OPL_FRESH),
    OP_ROW("mean", reduce, 0, OPL_FRESH),
    OP_ROW("sum", reduce, 0, OPL_FRESH),
    OP_ROW("amax", reduce, 0, OPL_FRESH),
    OP_ROW("amin", reduce, 0, OPL_FRESH),
    OP_ROW("prod", reduce, 0, OPL_FRESH),
    OP_ROW("pad", pad, 0, OPL_MEMFMT),
    OP_ROW("full", factory),
    OP_ROW("zeros", factory),
    OP_ROW("ones", factory),
    OP_ROW("empty", factory),
    OP_ROW("new_zeros", factory),
    OP_ROW("new_ones", factory),
    OP_ROW("new_empty", factory),
    OP_ROW("new_full", factory),
    OP_ROW("arange", arange),
    OP_ROW("triu", same_shape),
    OP_ROW("tril", same_shape),
    OP_END};
