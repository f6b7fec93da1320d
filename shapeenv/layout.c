/* Strides and memory layout of fake tensors (docs/ops.md section 7).
 *
 * Sources (PyTorch 1.13):
 *  - view compatibility: aten/src/ATen/TensorUtils.cpp computeStride_impl;
 *  - elementwise output layout: aten/src/ATen/TensorIterator.cpp
 *    compute_strides (a broadcast dim has stride 0), reorder_dimensions
 *    (insertion sort of the dims by the operands' strides, the first operand
 *    with an unambiguous comparison decides), compatible_stride/invert_perm
 *    (the output is dense in that order);
 *  - contiguity: c10/core/TensorImpl.cpp compute_contiguous (dims of size 1
 *    are skipped);
 *  - memory formats: c10/core/MemoryFormat.h (channels_last is a 4-D/5-D
 *    notion; cat, convolution, pooling, batch_norm allocate their output in
 *    the input's suggest_memory_format()).
 *
 * A tensor whose strides are not modelled has strides == NULL. Every op is
 * in one layout class (its row in the ops_*.c tables); the class says what the dispatcher
 * does with the op's result. An op that builds its result with
 * op_new_strided/op_set_strided owns its layout (OPL_OWN); one that
 * builds it with op_set_tensor (contiguous) gets OPL_DEFAULT unless its
 * row says otherwise. */
#include <pthread.h>
#include <string.h>

#include "shapeenv/env_private.h"

const sy_tensor *op_new_strided(opcall *c, sy_dtype dt, size_t ndim, const sy_expr *const *sizes,
                                const sy_expr *const *strides)
{
    c->env->layout_owned = 1; /* the op computed its output's layout */
    return sy_tensor_new_strided(c->env, dt, ndim, sizes, strides);
}

sy_status op_set_strided(opcall *c, sy_dtype dt, size_t ndim, const sy_expr *const *sizes, const sy_expr *const *strides)
{
    const sy_tensor *t = op_new_strided(c, dt, ndim, sizes, strides);
    if (!t) return sy_ctx_last_error(c->env->ctx);
    *c->out = sy_value_tensor(t);
    return SY_OK;
}

static const sy_expr *const *dense_strides(opcall *c, size_t ndim, const sy_expr *const *sizes, const size_t *perm)
{
    /* perm[0] is the fastest moving dim (stride 1), as in TensorIterator */
    size_t q = 0;
    while (q < ndim && perm[q] == ndim - 1 - q) q++;
    if (q == ndim) return sy_env_contig_strides(c->env, ndim, sizes, false); /* row-major: the shared array */
    const sy_expr **st = sy_env_alloc(c->env, (ndim ? ndim : 1) * sizeof *st);
    if (!st) return NULL;
    const sy_expr *acc = KI(c, 1);
    for (size_t k = 0; k < ndim; k++) {
        st[perm[k]] = acc;
        if (k + 1 == ndim) break; /* the product of all sizes is no stride */
        acc = sy_env_mul(c->env, acc, sizes[perm[k]]);
        if (!acc) return NULL;
    }
    return st;
}

/* a decision of the layout rule from the facts alone: undecided leaves the
 * output layout unknown rather than recording a guard on sizes that only
 * the layout depends on (*known = 0) */
#define TRY(rel, val)                                                  \
    do {                                                               \
        int known_;                                                    \
        sy_status st_ = sy_env_try_decide(c->env, (rel), &known_, &(val)); \
        if (st_) return st_;                                           \
        if (!known_) return SY_OK;                                     \
    } while (0)

/* TensorIterator::reorder_dimensions + compatible_stride for the operands
 * (tensors; NULL entries are non-tensor scalars and skipped). *out NULL:
 * not modelled (an operand's layout is unknown, or a comparison of strides
 * is not decided by the facts). */
sy_status op_ti_strides(opcall *c, size_t nops, const sy_tensor *const *ops, size_t ndim, const sy_expr *const *sizes,
                        const sy_expr *const **out)
{
    sy_ctx *ctx = c->env->ctx;
    *out = NULL;
    int all_contig = 1;
    for (size_t k = 0; k < nops; k++) {
        if (!ops[k]) continue;
        if (!ops[k]->strides) return SY_OK; /* an operand's layout is unknown: so is the output's */
        if (!sy_tensor_is_contiguous(c->env, ops[k])) all_contig = 0;
    }
    size_t *perm = sy_env_alloc(c->env, (ndim ? ndim : 1) * sizeof *perm);
    if (!perm) return sy_ctx_last_error(ctx);
    for (size_t k = 0; k < ndim; k++) perm[k] = ndim - 1 - k;
    if (!all_contig && ndim > 1) {
        /* per operand, the stride of each output dim (0 where broadcast) */
        const sy_expr ***ts = sy_env_alloc(c->env, (nops ? nops : 1) * sizeof *ts);
        if (!ts) return sy_ctx_last_error(ctx);
        for (size_t k = 0; k < nops; k++) {
            ts[k] = NULL;
            const sy_tensor *t = ops[k];
            if (!t) continue;
            const sy_expr **s = sy_env_alloc(c->env, ndim * sizeof *s);
            if (!s) return sy_ctx_last_error(ctx);
            for (size_t i = 0; i < ndim; i++) {
                if (i < ndim - t->ndim) {
                    s[i] = KI(c, 0);
                    continue;
                }
                size_t j = i - (ndim - t->ndim);
                s[i] = t->strides[j];
                if (t->sizes[j] != sizes[i]) { /* broadcast: original size 1, output size not 1 */
                    int one = 0, oone = 0;
                    TRY(sy_expr_eq(ctx, t->sizes[j], KI(c, 1)), one);
                    if (one) TRY(sy_expr_eq(ctx, sizes[i], KI(c, 1)), oone);
                    if (one && !oone) s[i] = KI(c, 0);
                }
            }
            ts[k] = s;
        }
        /* insertion sort with ambiguous comparisons (reorder_dimensions) */
        for (size_t i = 1; i < ndim; i++) {
            size_t dim1 = i;
            for (size_t dim0 = i; dim0-- > 0;) {
                int cmp = 0;
                size_t a = perm[dim0], b = perm[dim1];
                for (size_t k = 0; k < nops && !cmp; k++) {
                    if (!ts[k]) continue;
                    int z0 = 0, z1 = 0, le = 0;
                    TRY(sy_expr_eq(ctx, ts[k][a], KI(c, 0)), z0);
                    if (z0) continue;
                    TRY(sy_expr_eq(ctx, ts[k][b], KI(c, 0)), z1);
                    if (z1) continue;
                    TRY(sy_expr_le(ctx, ts[k][a], ts[k][b]), le);
                    cmp = le ? -1 : 1;
                }
                if (cmp > 0) {
                    size_t tmp = perm[dim0];
                    perm[dim0] = perm[dim1];
                    perm[dim1] = tmp;
                    dim1 = dim0;
                } else if (cmp < 0) {
                    break;
                }
            }
        }
    }
    const sy_expr *const *r = dense_strides(c, ndim, sizes, perm);
    if (!r) return sy_ctx_last_error(ctx);
    *out = r;
    return SY_OK;
}

/* computeStride_impl (aten/src/ATen/TensorUtils.cpp): the strides of a view
 * of x with the new shape, or *ok = 0 when the view is impossible (a chunk of
 * x's dims that are contiguous with each other must be covered by whole view
 * dims). Each branch on symbolic sizes is a decision (guard if undecided). */
sy_status op_view_strides(opcall *c, const sy_tensor *x, size_t n, const sy_expr *const *shape,
                          const sy_expr *const **out, int *ok)
{
    sy_ctx *ctx = c->env->ctx;
    *out = NULL;
    *ok = 1;
    if (!x->strides) {
        *ok = 0;
        return op_err(c, SY_EUNSUPPORTED, "the strides of the input are not modelled (it was produced from a non-contiguous tensor by an op whose output layout symshape does not compute); insert .contiguous() or use .reshape(...)");
    }
    const sy_expr **ns = sy_env_alloc(c->env, (n ? n : 1) * sizeof *ns);
    if (!ns) return sy_ctx_last_error(ctx);
    if (x->ndim == 0) {
        for (size_t i = 0; i < n; i++) ns[i] = KI(c, 1);
        *out = ns;
        return SY_OK;
    }
    if (sy_tensor_is_contiguous(c->env, x)) { /* one chunk: always viewable, contiguous result */
        const sy_tensor *t = sy_tensor_new(c->env, x->dtype, n, shape);
        if (!t) return sy_ctx_last_error(ctx);
        *out = t->strides;
        return SY_OK;
    }
    sy_status st;
    const sy_expr *numel = KI(c, 1);
    for (size_t i = 0; i < x->ndim && numel; i++) numel = sy_expr_mul(ctx, numel, x->sizes[i]);
    int empty;
    if ((st = op_decide_bool(c, sy_expr_eq(ctx, numel, KI(c, 0)), "view: is the tensor empty?", &empty))) return st;
    if (empty) {
        int same = n == x->ndim;
        for (size_t i = 0; same && i < n; i++) {
            int eq;
            if ((st = op_decide_bool(c, sy_expr_eq(ctx, shape[i], x->sizes[i]), "view: same shape?", &eq))) return st;
            same = eq;
        }
        if (same) {
            *out = x->strides;
            return SY_OK;
        }
        for (size_t v = n; v-- > 0;)
            ns[v] = v == n - 1 ? KI(c, 1) : sy_expr_mul(ctx, sy_expr_max(ctx, shape[v + 1], KI(c, 1)), ns[v + 1]);
        *out = ns;
        return SY_OK;
    }
    long view_d = (long)n - 1;
    const sy_expr *chunk_base = x->strides[x->ndim - 1], *tensor_numel = KI(c, 1), *view_numel = KI(c, 1);
    for (size_t td = x->ndim; td-- > 0;) {
        tensor_numel = sy_expr_mul(ctx, tensor_numel, x->sizes[td]);
        int end = td == 0;
        if (!end) {
            int one = 0, brk, joined;
            /* the dims join when size(td-1) == 1 or its stride continues the chunk: a stride the
             * facts already prove continuous makes the size-1 question moot (no guard on it) */
            if ((st = op_known_true(c, sy_expr_eq(ctx, x->strides[td - 1], sy_expr_mul(ctx, tensor_numel, chunk_base)), &joined)))
                return st;
            if (!joined && (st = op_decide_bool(c, sy_expr_eq(ctx, x->sizes[td - 1], KI(c, 1)), "view: is the size 1?", &one)))
                return st;
            if (!joined && !one) {
                if ((st = op_decide_bool(c, sy_expr_ne(ctx, x->strides[td - 1], sy_expr_mul(ctx, tensor_numel, chunk_base)),
                                         "view: does a contiguous chunk of dims end here?", &brk)))
                    return st;
                end = brk;
            }
        }
        if (!end) continue;
        while (view_d >= 0) {
            int lt, one = 0;
            if ((st = op_decide_bool(c, sy_expr_lt(ctx, view_numel, tensor_numel), "view: does the chunk need another view dim?", &lt)))
                return st;
            if (!lt && (st = op_decide_bool(c, sy_expr_eq(ctx, shape[view_d], KI(c, 1)), "view: is the size 1?", &one)))
                return st;
            if (!lt && !one) break;
            ns[view_d] = sy_expr_mul(ctx, view_numel, chunk_base);
            view_numel = sy_expr_mul(ctx, view_numel, shape[view_d]);
            view_d--;
        }
        int ne;
        if ((st = op_decide_bool(c, sy_expr_ne(ctx, view_numel, tensor_numel), "view: do the view dims cover the chunk exactly?", &ne)))
            return st;
        if (ne) {
            *ok = 0;
            return SY_OK;
        }
        if (td > 0) {
            chunk_base = x->strides[td - 1];
            tensor_numel = KI(c, 1);
            view_numel = KI(c, 1);
        }
    }
    if (view_d != -1) {
        *ok = 0;
        return SY_OK;
    }
    for (size_t i = 0; i < n; i++)
        if (!ns[i]) return sy_ctx_last_error(ctx);
    *out = ns;
    return SY_OK;
}

/* ------------------------------------------------------------------ layout classes */

/* Each op's row (the ops_*.c tables) gives its layout class (OPL_*, env_private.h); a row
 * without one is OPL_DEFAULT. Why the rows say what they say (checked on the CPU, 1.13 and 2.14,
 * by tests/shapeenv/strides_torch.py):
 *  - OPL_OWN: the views and layout-aware ops (view, reshape, flatten, permute, transpose, t,
 *    unsqueeze, squeeze, expand, chunk, split, narrow, select, getitem, contiguous, clone,
 *    identity, detach); expand_as / view_as / reshape_as call expand / view / reshape through
 *    sy_env_call, with their layout.
 *  - OPL_FRESH: softmax, log_softmax, layer_norm, rms_norm, matmul, mm, bmm, linear,
 *    index_select (measured: a transposed input gives a contiguous result); the reductions
 *    (resize_reduction allocates the output with no strides, so contiguous whatever the input's
 *    layout, keepdim or not; max/min/median/mode/kthvalue are left out: max(a, b) is
 *    elementwise, the others are tuples); F.multi_head_attention_forward (attn_output is
 *    linear(...).view(L, N, E) and the weights a view/mean of a fresh bmm, whatever the layout
 *    of q/k/v); max_unpool (the CPU kernels resize a fresh output and write the contiguous input
 *    into it); adaptive_avg_pool3d / adaptive_max_pool3d (a contiguous result for a
 *    channels_last_3d input, where the 1-D and 2-D ones keep the input's format).
 *  - OPL_MEMFMT: allocated in suggest_memory_format() of the input (cat:
 *    cat_compute_output_memory_format; convolution, pooling, batch_norm, upsample,
 *    constant_pad_nd, group_norm: suggest_memory_format).
 *  - OPL_VIEW: views whose strides are not computed (yet): unfold, diagonal, movedim,
 *    swapaxes, unbind, unflatten, tensor_split, split_with_sizes, real, imag, the in-place
 *    squeeze_ / unsqueeze_ / transpose_. A new view op must be OPL_OWN or OPL_VIEW: the default
 *    would call the view of a contiguous tensor contiguous. */

/* 1 when the facts prove rel (no guard, no hint) */
static int proved(sy_env *env, const sy_expr *rel)
{
    int known = 0, val = 0; /* sy_env_try_decide marks the symbols relied upon when decided */
    if (sy_env_try_decide(env, rel, &known, &val) != SY_OK) {
        sy_ctx_reset_error(env->ctx);
        return 0;
    }
    return known && val;
}

/* 0 when the facts prove that t is not strided like channels_last(_3d)
 * (c10/core/MemoryFormat.h is_channels_last_strides_2d_s4 / _3d_s5, which
 * suggest_memory_format() uses), 1 when it may be. */
static int maybe_channels_last(sy_env *env, const sy_tensor *t)
{
    static const size_t order4[] = {1, 3, 2, 0}, order5[] = {1, 4, 3, 2, 0};
    if (t->ndim != 4 && t->ndim != 5) return 0;
    if (sy_tensor_is_contiguous(env, t)) return 0; /* the c10 check also finds contiguous tensors not channels_last, except ambiguous size-1 cases */
    if (!t->strides) return 1;
    sy_ctx *ctx = env->ctx;
    const sy_expr *zero = sy_expr_int_si(ctx, 0), *one = sy_expr_int_si(ctx, 1);
    if (proved(env, sy_expr_eq(ctx, t->strides[1], zero))) return 0;
    const size_t *ord = t->ndim == 4 ? order4 : order5;
    const sy_expr *min = zero;
    for (size_t k = 0; k < t->ndim; k++) {
        size_t d = ord[k];
        if (proved(env, sy_expr_eq(ctx, t->sizes[d], zero))) return 0;
        if (proved(env, sy_expr_lt(ctx, t->strides[d], min))) return 0;
        if (d == 0 && proved(env, sy_expr_eq(ctx, min, t->strides[1]))) return 0;
        min = t->strides[d];
        if (proved(env, sy_expr_gt(ctx, t->sizes[d], one))) min = sy_env_mul(env, min, t->sizes[d]);
        else if (!proved(env, sy_expr_le(ctx, t->sizes[d], one))) return 1; /* the running minimum is not known */
        if (!min) return 1;
    }
    return 1;
}

static int value_has_noncontig(sy_env *env, const sy_value *v, int memfmt, int depth)
{
    if (depth > 64) return 1;
    if (v->kind == SY_V_TENSOR)
        return memfmt ? maybe_channels_last(env, v->u.t) : !sy_tensor_is_contiguous(env, v->u.t);
    if (v->kind == SY_V_LIST)
        for (size_t i = 0; i < v->u.list.n; i++)
            if (value_has_noncontig(env, &v->u.list.items[i], memfmt, depth + 1)) return 1;
    return 0;
}

/* replace every tensor in v by a copy whose strides are not modelled */
static sy_status forget_strides(sy_env *env, sy_value *v, int depth)
{
    if (depth > 64) return SY_OK;
    if (v->kind == SY_V_TENSOR) {
        if (!v->u.t->strides) return SY_OK;
        const sy_tensor *t = sy_tensor_new_strided(env, v->u.t->dtype, v->u.t->ndim, v->u.t->sizes, NULL);
        if (!t) return sy_ctx_last_error(env->ctx);
        v->u.t = t;
    } else if (v->kind == SY_V_LIST && v->u.list.n) {
        sy_value *items = sy_env_alloc(env, v->u.list.n * sizeof *items);
        if (!items) return sy_ctx_last_error(env->ctx);
        memcpy(items, v->u.list.items, v->u.list.n * sizeof *items);
        for (size_t i = 0; i < v->u.list.n; i++) {
            sy_status st = forget_strides(env, &items[i], depth + 1);
            if (st) return st;
        }
        v->u.list.items = items;
    }
    return SY_OK;
}

sy_status sy_layout_after_call(opcall *c)
{
    int cls = c->layout_cls;
    if (cls == OPL_VIEW) return forget_strides(c->env, c->out, 0);
    if (cls == OPL_OWN || cls == OPL_FRESH || c->env->layout_owned) return SY_OK;
    int memfmt = cls == OPL_MEMFMT, nc = 0;
    for (size_t i = 0; i < c->nargs && !nc; i++) nc = value_has_noncontig(c->env, &c->args[i], memfmt, 0);
    for (size_t i = 0; i < c->nkw && !nc; i++) nc = value_has_noncontig(c->env, &c->kwvals[i], memfmt, 0);
    return nc ? forget_strides(c->env, c->out, 0) : SY_OK;
}
