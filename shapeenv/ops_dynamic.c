/* Data-dependent values and sizes: item, tolist, unique, unique_consecutive,
 * bincount. Each creates unbacked symbols (sy_env_create_unbacked, named by
 * the op and node that produced them), as PyTorch's fake tensors do with
 * create_unbacked_symint (torch/fx/experimental/symbolic_shapes.py). A size
 * is size-like ([0, oo), _constrain_range_for_size); a value read with item()
 * or tolist() is unbounded (an int tensor may hold anything) and becomes a
 * size only through the requirement of the op that uses it (`>= 0`: a
 * runtime assert). Facts that always hold (unique's length <= numel,
 * bincount's length >= minlength) are added to the facts, not guarded.
 * Kernels (PyTorch 1.13): aten/src/ATen/native/Scalar.cpp item ("only one
 * element tensors can be converted to Python scalars"),
 * aten/src/ATen/native/Unique.cpp (_unique2_cpu, unique_dim_cpu,
 * unique_consecutive_cpu), aten/src/ATen/native/SummaryOps.cpp
 * _bincount_cpu. (nonzero, masked_select and repeat_interleave with tensor
 * repeats are in ops_index.c.) */
#include <stdio.h>
#include <string.h>

#include "shapeenv/env_private.h"

static int is_integral(sy_dtype d) { return d >= SY_DT_INT64 && d <= SY_DT_BOOL; }

static const sy_expr *numel_of(opcall *c, const sy_tensor *t)
{
    const sy_expr *n = KI(c, 1);
    for (size_t i = 0; i < t->ndim && n; i++) n = sy_expr_mul(c->env->ctx, n, t->sizes[i]);
    return n;
}

/* one data-dependent scalar read from an element of t: an int (unbounded) or
 * a bool (Ne(u, 0), u in [0, 1]) */
static sy_status scalar_of(opcall *c, const sy_tensor *t, const char *what, sy_value *out)
{
    sy_ctx *ctx = c->env->ctx;
    if (!is_integral(t->dtype))
        return op_err(c, SY_EUNSUPPORTED, "%s of a %s tensor is a data-dependent float, which symshape does not model",
                      c->op, sy_dtype_name(t->dtype));
    const sy_expr *u = sy_env_create_unbacked(c->env, t->dtype == SY_DT_BOOL, what);
    if (!u) return sy_ctx_last_error(ctx);
    if (t->dtype == SY_DT_BOOL) {
        sy_status st = sy_facts_set_range(sy_env_facts(c->env), u, KI(c, 0), KI(c, 1));
        if (st) return st;
        *out = sy_value_bool(sy_expr_ne(ctx, u, KI(c, 0)));
        return SY_OK;
    }
    *out = sy_value_int(u);
    return SY_OK;
}

static sy_status item(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    if ((st = op_require(c, sy_expr_eq(c->env->ctx, numel_of(c, x), KI(c, 1)),
                         "only one element tensors can be converted to Python scalars")))
        return st;
    char what[64];
    snprintf(what, sizeof what, "%s.item()", c->where && c->where->node ? c->where->node : "tensor");
    return scalar_of(c, x, what, c->out);
}

/* Tensor.tolist(): nested lists of data-dependent scalars; the sizes must be
 * constants (the list structure is Python-level). */
#define TOLIST_MAX 4096
static sy_status tolist_rec(opcall *c, const sy_tensor *x, size_t d, const int64_t *dims, char *path, size_t plen,
                            sy_value *out)
{
    if (d == x->ndim) return scalar_of(c, x, path, out);
    sy_value *items = sy_env_alloc(c->env, (dims[d] ? (size_t)dims[d] : 1) * sizeof *items);
    if (!items) return sy_ctx_last_error(c->env->ctx);
    for (int64_t i = 0; i < dims[d]; i++) {
        int k = snprintf(path + plen, 256 - plen, "[%lld]", (long long)i);
        sy_status st = tolist_rec(c, x, d + 1, dims, path, plen + (k > 0 ? (size_t)k : 0), &items[i]);
        if (st) return st;
        path[plen] = 0;
    }
    *out = sy_value_list(c->env, (size_t)dims[d], items);
    return SY_OK;
}

static sy_status tolist(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    int64_t dims[64], n = 1;
    if (x->ndim > 8) return op_err(c, SY_EUNSUPPORTED, "tolist of a %zu-d tensor", x->ndim);
    for (size_t i = 0; i < x->ndim; i++) {
        if (sy_expr_get_si(x->sizes[i], &dims[i]))
            return op_err(c, SY_EUNSUPPORTED, "tolist of a tensor of symbolic size %s: the list's length is Python-level",
                          sy_env_show(c->env, x->sizes[i]));
        n *= dims[i];
        if (n > TOLIST_MAX) return op_err(c, SY_EUNSUPPORTED, "tolist of more than %d elements", TOLIST_MAX);
    }
    char path[256];
    snprintf(path, sizeof path, "%s.tolist()", c->where && c->where->node ? c->where->node : "tensor");
    return tolist_rec(c, x, 0, dims, path, strlen(path), c->out);
}

/* a size-like unbacked size of the output of this op */
static const sy_expr *unbacked_size(opcall *c, const char *what)
{
    char src[96];
    snprintf(src, sizeof src, "%s.%s", c->where && c->where->node ? c->where->node : c->op, what);
    return sy_env_create_unbacked(c->env, 1, src);
}

/* torch.unique(input, sorted=True, return_inverse=False, return_counts=False,
 * dim=None) and unique_consecutive(input, return_inverse, return_counts,
 * dim): values (u) (dim None: flattened) or input with size(dim) -> u;
 * inverse: input's shape (dim None) or (size(dim)); counts (u). A tuple when
 * an extra output is asked for. u <= the number of elements (or size(dim)). */
static sy_status unique(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    int consec = !strcmp(c->op, "unique_consecutive");
    int inv, cnt, sorted_;
    if ((!consec && (st = op_bool_def(c, 1, "sorted", 1, &sorted_))) ||
        (st = op_bool_def(c, consec ? 1 : 2, "return_inverse", 0, &inv)) ||
        (st = op_bool_def(c, consec ? 2 : 3, "return_counts", 0, &cnt)))
        return st;
    const sy_value *dv = op_arg(c, consec ? 3 : 4, "dim");
    int has_dim = dv && dv->kind != SY_V_NONE;
    size_t w = 0;
    if (has_dim) {
        int64_t d;
        if ((st = op_const_int(c, consec ? 3 : 4, "dim", 0, &d)) || (st = op_wrap_dim(c, d, x->ndim, &w))) return st;
        /* _unique_dim_cpu_template (Unique.cpp, 1.13 and 2.x): with size(dim) == 0 no other dim
         * may be 0 ("Number of zero sized dimensions is more than one"), else none may be: either
         * way every other dim >= 1 (the message is the second case's); accepted at [2, 0] with
         * dim=0 before (attack38h) */
        for (size_t i = 0; i < x->ndim; i++)
            if (i != w && (st = op_require(c, sy_expr_ge(ctx, x->sizes[i], KI(c, 1)),
                                            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")))
                return st;
    }
    const sy_expr *u = unbacked_size(c, "size()[0]");
    if (!u) return sy_ctx_last_error(ctx);
    const sy_expr *bound = has_dim ? x->sizes[w] : numel_of(c, x);
    if ((st = sy_facts_add(sy_env_facts(c->env), sy_expr_le(ctx, u, bound)))) return st;
    const sy_tensor *vals, *ti = NULL, *tc = NULL;
    if (has_dim) {
        const sy_expr **sz = sy_env_alloc(c->env, x->ndim * sizeof *sz);
        if (!sz) return sy_ctx_last_error(ctx);
        SY_COPY(sz, x->sizes, x->ndim * sizeof *sz);
        sz[w] = u;
        /* _unique_dim_cpu_template: the rows are stacked as a contiguous [u, rest] tensor and
         * moved back, so dim w is outermost in memory (as contiguous, unique(x, dim=1).view(-1) was
         * accepted where the CPU refuses: verify38). The rest's order: 2.x moveaxis(w, 0), the
         * other dims in order; 1.13 transpose(0, w), dims 0 and w swapped (measured on 1.13:
         * unique of [2, 3, 1] zeros, dim=2, has strides (1, 2, 6), 2.14.1 (3, 1, 6)). Contiguous
         * strides multiply Max(size, 1) (sy_tensor_contig_stride). With size(w) == 0 (u == 0)
         * the kernel returns an empty tensor of the output sizes: their contiguous strides. So each
         * stride is B + Min(u, 1) * (A - B), A the stacked layout's, B the empty one's (equal
         * where the layouts agree). Measured (both versions, every shape in {0..3}^1..3, each
         * dim): equal. */
        const sy_expr **str = sy_env_alloc(c->env, x->ndim * sizeof *str);
        size_t *ord = sy_env_alloc(c->env, x->ndim * sizeof *ord);
        if (!str || !ord) return sy_ctx_last_error(ctx);
        for (size_t k = 0; k < x->ndim; k++) ord[k] = k;
        if (sy_opc_torch1(c)) { /* transpose(0, w) */
            ord[0] = w;
            ord[w] = 0;
        } else { /* moveaxis(w, 0) */
            for (size_t k = w; k > 0; k--) ord[k] = k - 1;
            ord[0] = w;
        }
        const sy_expr *acc = KI(c, 1), *ind = sy_expr_min(ctx, u, KI(c, 1));
        for (size_t k = x->ndim; k-- > 0;) {
            str[ord[k]] = acc;
            if (k) {
                const sy_expr *pair[2] = {KI(c, 1), sz[ord[k]]};
                acc = sy_expr_mul(ctx, acc, sy_tensor_contig_stride(ctx, 2, pair, 0));
            }
        }
        for (size_t k = 0; k < x->ndim && ind; k++) {
            const sy_expr *b = sy_tensor_contig_stride(ctx, x->ndim, sz, k);
            if (!b || !str[k]) return sy_ctx_last_error(ctx);
            if (b != str[k]) str[k] = sy_expr_add(ctx, b, sy_expr_mul(ctx, ind, sy_expr_sub(ctx, str[k], b)));
        }
        if (!ind) return sy_ctx_last_error(ctx);
        vals = op_new_strided(c, x->dtype, x->ndim, sz, str);
        if (inv) ti = op_new_tensor(c, SY_DT_INT64, 1, &x->sizes[w]);
    } else {
        vals = op_new_tensor(c, x->dtype, 1, &u);
        if (inv) ti = op_new_tensor(c, SY_DT_INT64, x->ndim, x->sizes);
    }
    if (cnt) tc = op_new_tensor(c, SY_DT_INT64, 1, &u);
    if (!vals || (inv && !ti) || (cnt && !tc)) return sy_ctx_last_error(ctx);
    if (!inv && !cnt) {
        *c->out = sy_value_tensor(vals);
        return SY_OK;
    }
    sy_value items[3];
    size_t n = 0;
    items[n++] = sy_value_tensor(vals);
    if (inv) items[n++] = sy_value_tensor(ti);
    if (cnt) items[n++] = sy_value_tensor(tc);
    *c->out = sy_value_list(c->env, n, items);
    return c->out->kind == SY_V_LIST ? SY_OK : sy_ctx_last_error(ctx);
}

/* bincount(input, weights=None, minlength=0) (_bincount_cpu): input 1-D
 * integral; weights the same size; minlength >= 0. Output (u), u >=
 * minlength; int64, or with weights float32 for float32 weights else
 * float64. */
static sy_status bincount(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *x, *wt;
    const sy_expr *minl;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_opt_tensor(c, 1, "weights", &wt)) ||
        (st = op_int_def(c, 2, "minlength", 0, &minl)))
        return st;
    if (x->ndim != 1 || !is_integral(x->dtype) || x->dtype == SY_DT_BOOL)
        return op_err(c, SY_EINVAL, "bincount only supports 1-d non-negative integral inputs.");
    if ((st = op_require(c, sy_expr_ge(ctx, minl, KI(c, 0)), "minlength should be >= 0"))) return st;
    if (wt && (wt->ndim != 1 || (st = op_require(c, sy_expr_eq(ctx, wt->sizes[0], x->sizes[0]),
                                                  "weights should be 1-d and have the same length as input"))))
        return st ? st : op_err(c, SY_EINVAL, "weights should be 1-d and have the same length as input");
    const sy_expr *u = unbacked_size(c, "size()[0]");
    if (!u) return sy_ctx_last_error(ctx);
    if ((st = sy_facts_add(sy_env_facts(c->env), sy_expr_ge(ctx, u, minl)))) return st;
    sy_dtype dt = !wt ? SY_DT_INT64 : wt->dtype == SY_DT_FLOAT32 ? SY_DT_FLOAT32 : SY_DT_FLOAT64;
    return op_set_tensor(c, dt, 1, &u);
}

const opentry sy_ops_dynamic[] = {
    OP_ROW("item", item, OP_IMPURE),
    OP_ROW("tolist", tolist, OP_IMPURE),
    OP_ROW("unique", unique, OP_IMPURE),
    OP_ROW("unique_consecutive", unique, OP_IMPURE),
    OP_ROW("bincount", bincount, OP_IMPURE),
    OP_END};
