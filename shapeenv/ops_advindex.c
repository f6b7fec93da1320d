/* Advanced (tensor) indexing: x[idx], x[:, idx], x[i1, i2], x[..., idx], x[mask],
 * x[[0, 2]], x[True], x[idx] = v (via sy_tensor_getitem), and the ATen ops
 * index(self, indices) / index_put(self, indices, values, accumulate).
 *
 * Sources (PyTorch 1.13 and 2.x, checked against both on the CPU by
 * python/tests/test_indexing.py):
 *  - torch/csrc/autograd/python_variable_indexing.cpp count_specified_dimensions
 *    (a bool/byte tensor counts its dims, a Python bool, None and ... count none;
 *    "too many indices for tensor of dimension D"), treatSequenceAsTuple (a
 *    list of plain ints or bools is one tensor index);
 *  - aten/src/ATen/TensorIndexing.h applySlicing: an int selects, a slice
 *    narrows, None unsqueezes; a 0-d integer tensor selects (a view); a 0-d
 *    bool tensor or Python bool unsqueezes and indexes the new dim with a
 *    [1] or [0] index; any other tensor is recorded (recordTensorIndex).
 *    1.13: at the current dim of the sliced result (the list is resized to
 *    dim + 1), and the dim advances by 1, also for a mask. 2.x: the first at
 *    the current dim, the next ones appended, a slice, None or ... after the
 *    first appending empty entries (handleDimInMultiDimIndexing), and a
 *    bool/byte mask advances the dim by its dims (x[m2, 0] with a 2-D mask
 *    runs under 2.x only);
 *  - aten/src/ATen/native/IndexingUtils.h expandTensors (a k-dim mask must
 *    equal the indexed sizes: "The shape of the mask [..] at index j does not
 *    match the shape of the indexed tensor [..] at index p+j"; it becomes k
 *    index tensors of nonzero's length, an unbacked symbol u <= numel(mask)),
 *    checkIndexTensorTypes ("tensors used as indices must be long, (int,) byte
 *    or bool tensors");
 *  - aten/src/ATen/native/TensorAdvancedIndexing.cpp make_info /
 *    AdvancedIndex: the index tensors broadcast together ("shape mismatch:
 *    indexing tensors could not be broadcast together"); when the indexed
 *    dims are not adjacent (hasContiguousSubspace) they move to the front
 *    (transposeToFront), else the broadcast shape replaces them in place; an
 *    indexed dim of size 0 with a non-empty broadcast index fails ("index is
 *    out of bounds for dimension with size 0") whatever the values;
 *    index_put_: the value must expand to the indexing result
 *    (make_index_put_iterator, is_expandable_to).
 * Out-of-range index values are a runtime error of the kernel: data values are not checked; a
 * list of ints and an index tensor whose values are a known function of sizes (values.c) are
 * (docs/ops.md, "Index values from sizes"). */
#include <stdio.h>
#include <string.h>

#include "shapeenv/env_private.h"

#define CTX (c->env->ctx)
#define SHOW(e) sy_env_show(c->env, (e))

sy_status sy_slice_len(opcall *c, const sy_value *sl, const sy_expr *len, const sy_expr **start, const sy_expr **n,
                       int64_t *step);

/* one entry of the index list of index(self, indices): no index (sizes NULL), or a
 * tensor's sizes and dtype */
typedef struct {
    const sy_expr *const *sizes;
    size_t ndim;
    sy_dtype dtype;
    int contig;
    const sy_expr *nz; /* a mask's count of true values when known (a list of constant bools), else NULL */
    const sy_value *list; /* a list of ints: its values (known, so their bounds are checked) */
    const sy_tensor *t;   /* an index tensor: its values may be tracked (values.c), then checked */
} ixent;

static int is_mask(sy_dtype d) { return d == SY_DT_BOOL || d == SY_DT_UINT8; }

static sy_status check_dtype(opcall *c, sy_dtype d)
{
    if (d == SY_DT_INT64 || is_mask(d) || (d == SY_DT_INT32 && !op_torch1(c))) return SY_OK;
    return op_err(c, SY_EINVAL, op_torch1(c) ? "tensors used as indices must be long, byte or bool tensors"
                                             : "tensors used as indices must be long, int, byte or bool tensors");
}

static const sy_expr *numel_of(opcall *c, size_t n, const sy_expr *const *s)
{
    const sy_expr *r = KI(c, 1);
    for (size_t i = 0; i < n && r; i++) r = sy_expr_mul(CTX, r, s[i]);
    return r;
}

static const sy_expr *unbacked(opcall *c, const sy_expr *hi, const char *what)
{
    char src[160];
    snprintf(src, sizeof src, "%s.%s", c->where && c->where->node ? c->where->node : c->op, what);
    const sy_expr *u = sy_env_create_unbacked(c->env, 1, src);
    if (!u || !hi) return NULL;
    if (sy_facts_add(sy_env_facts(c->env), sy_expr_le(CTX, u, hi))) return NULL;
    return u;
}

/* index(self, indices) on self's sizes (ns dims): the result sizes (*out, *nout); *contig = 1 when
 * every index tensor is contiguous (the result of a contiguous self is then contiguous) */
static sy_status index_core(opcall *c, size_t ns, const sy_expr *const *self, const ixent *ix, size_t nix,
                            const sy_expr ***out, size_t *nout, int *contig)
{
    sy_status st;
    size_t cap = ns + 1;
    for (size_t i = 0; i < nix; i++) cap += ix[i].sizes ? ix[i].ndim : 1;
    ixent *e = sy_env_alloc(c->env, cap * sizeof *e);
    if (!e) return sy_ctx_last_error(CTX);
    size_t ne = 0;
    *contig = 1;
    /* expandTensors: a mask of k dims becomes k index tensors of its nonzero count */
    for (size_t i = 0; i < nix; i++) {
        if (!ix[i].sizes) {
            e[ne++] = ix[i];
            continue;
        }
        if ((st = check_dtype(c, ix[i].dtype))) return st;
        *contig &= ix[i].contig;
        if (!is_mask(ix[i].dtype)) {
            e[ne++] = ix[i];
            continue;
        }
        size_t k = ix[i].ndim;
        if (k == 0) return op_err(c, SY_EUNSUPPORTED, "index: a 0-dim bool index in the index list");
        if (ne + k > ns) return op_err(c, SY_EINVAL, "too many indices for tensor of dimension %zu (got %zu)", ns, ne + k);
        for (size_t j = 0; j < k; j++)
            if ((st = op_require(c, sy_expr_eq(CTX, ix[i].sizes[j], self[ne + j]),
                                 "The shape of the mask %s at index %zu does not match the shape of the indexed tensor %s at index %zu",
                                 op_show_sizes(c, k, ix[i].sizes), j, op_show_sizes(c, ns, self), ne + j)))
                return st;
        const sy_expr **u = sy_env_alloc(c->env, sizeof *u);
        if (!u || !(*u = ix[i].nz ? ix[i].nz : unbacked(c, numel_of(c, k, ix[i].sizes), "nonzero"))) return sy_ctx_last_error(CTX);
        for (size_t j = 0; j < k; j++) e[ne++] = (ixent){u, 1, SY_DT_INT64, 1, NULL, NULL, NULL};
    }
    if (ne > ns) return op_err(c, SY_EINVAL, "too many indices for tensor of dimension %zu (got %zu)", ns, ne);
    /* broadcast the index tensors (expand_outplace) */
    const sy_expr *const *b = NULL;
    size_t nb = 0;
    long first = -1, last = -1;
    int adjacent = 1;
    for (size_t i = 0; i < ne; i++) {
        if (!e[i].sizes) continue;
        if (first >= 0 && last != (long)i - 1) adjacent = 0;
        if (first < 0) {
            first = (long)i;
            b = e[i].sizes;
            nb = e[i].ndim;
        } else {
            const sy_expr **r;
            if ((st = op_broadcast(c, b, nb, e[i].sizes, e[i].ndim, &r, &nb))) return st;
            b = r;
        }
        last = (long)i;
    }
    if (first < 0) return op_err(c, SY_EINVAL, "index: no index tensor");
    /* an indexed dim of size 0 and a non-empty index: every value is out of bounds */
    const sy_expr *all_pos = sy_expr_true(CTX);
    for (size_t i = 0; i < ne; i++)
        if (e[i].sizes) all_pos = sy_expr_and(CTX, all_pos, sy_expr_ge(CTX, self[i], KI(c, 1)));
    if ((st = op_require(c, sy_expr_or(CTX, sy_expr_eq(CTX, numel_of(c, nb, b), KI(c, 0)), all_pos),
                         "index is out of bounds for dimension with size 0")))
        return st;
    const sy_expr **o = sy_env_alloc(c->env, (ns + nb + 1) * sizeof *o);
    if (!o) return sy_ctx_last_error(CTX);
    size_t m = 0;
    if (adjacent) {
        for (size_t i = 0; i < (size_t)first; i++) o[m++] = self[i];
        for (size_t i = 0; i < nb; i++) o[m++] = b[i];
        for (size_t i = (size_t)last + 1; i < ns; i++) o[m++] = self[i];
    } else { /* transposeToFront */
        for (size_t i = 0; i < nb; i++) o[m++] = b[i];
        for (size_t i = 0; i < ns; i++)
            if (i >= ne || !e[i].sizes) o[m++] = self[i];
    }
    /* a list of ints has known values: out of range is an error when the result is not empty
     * (the kernel checks each index it reads: x[[5]] of a [3, 0] tensor runs) */
    const sy_expr *inb = sy_expr_true(CTX);
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; e[i].list && j < e[i].list->u.list.n; j++) {
            const sy_expr *v = e[i].list->u.list.items[j].u.i;
            inb = sy_expr_and(CTX, inb, sy_expr_and(CTX, sy_expr_ge(CTX, v, sy_expr_neg(CTX, self[i])), sy_expr_lt(CTX, v, self[i])));
        }
    if (inb != sy_expr_true(CTX) &&
        (st = op_require(c, sy_expr_or(CTX, sy_expr_eq(CTX, numel_of(c, m, o), KI(c, 0)), inb),
                         "index out of bounds: an index of the list is out of range of the dim it indexes")))
        return st;
    /* index tensors whose values are a known function of sizes (values.c): the kernel's check of
     * each index it reads (aten/src/ATen/native/cpu/IndexKernel.cpp cpu_index_kernel / index_put:
     * TORCH_CHECK_INDEX(idx >= -size && idx < size, "index ", idx, " is out of bounds for
     * dimension ", dim, " with size ", size); a negative index wraps), made when the result has an
     * element: x[arange(5)] of a [3, 0] tensor runs (1.13 and 2.x on the CPU) */
    for (size_t i = 0; i < ne; i++)
        if (e[i].t && (st = sy_env_values_require_in(c, e[i].t, sy_expr_eq(CTX, numel_of(c, m, o), KI(c, 0)), sy_expr_neg(CTX, self[i]),
                                                     sy_expr_sub(CTX, self[i], KI(c, 1)), "index is out of bounds for the dimension it indexes")))
            return st;
    *out = o;
    *nout = m;
    return SY_OK;
}

static sy_status set_result(opcall *c, const sy_tensor *x, size_t n, const sy_expr *const *sz, int contig)
{
    /* a fresh TensorIterator output: contiguous for a contiguous self and contiguous index tensors
     * (measured on the CPU, 1.13 and 2.14, with slices, None and masks); else not modelled */
    if (contig && x->strides && sy_tensor_is_contiguous(c->env, x)) return op_set_tensor(c, x->dtype, n, sz);
    return op_set_strided(c, x->dtype, n, sz, NULL);
}

/* a tensor-like index item: a tensor, or a list of ints / bools (one 1-D tensor) */
static sy_status item_tensor(opcall *c, const sy_value *v, ixent *out)
{
    if (v->kind == SY_V_TENSOR) {
        *out = (ixent){v->u.t->sizes, v->u.t->ndim, v->u.t->dtype, v->u.t->strides && sy_tensor_is_contiguous(c->env, v->u.t), NULL, NULL, v->u.t};
        return SY_OK;
    }
    int all_bool = v->u.list.n > 0;
    int64_t ntrue = 0;
    for (size_t i = 0; i < v->u.list.n; i++) {
        const sy_value *e = &v->u.list.items[i];
        if (e->kind != SY_V_INT && e->kind != SY_V_BOOL)
            return op_err(c, SY_EUNSUPPORTED, "an index list of other than ints and bools (nested lists) is not supported");
        all_bool &= e->kind == SY_V_BOOL;
        if (i && (e->kind == SY_V_BOOL) != (v->u.list.items[0].kind == SY_V_BOOL))
            return op_err(c, SY_EUNSUPPORTED, "an index list that mixes ints and bools is not supported");
        if (e->kind == SY_V_BOOL && ntrue >= 0)
            ntrue = sy_expr_kind_of(e->u.i) == SY_EXPR_TRUE ? ntrue + 1 : sy_expr_kind_of(e->u.i) == SY_EXPR_FALSE ? ntrue : -1;
    }
    const sy_expr **len = sy_env_alloc(c->env, sizeof *len);
    if (!len) return sy_ctx_last_error(CTX);
    *len = KI(c, (int64_t)v->u.list.n);
    *out = (ixent){len, 1, all_bool ? SY_DT_BOOL : SY_DT_INT64, 1, all_bool && ntrue >= 0 ? KI(c, ntrue) : NULL,
            all_bool ? NULL : v, NULL};
    return SY_OK;
}

/* x[items] when an item is a tensor, a list or a Python bool (applySlicing, then index) */
sy_status sy_tensor_getitem_adv(opcall *c, const sy_tensor *t, const sy_value *items, size_t n)
{
    sy_status st;
    size_t spec = 0;
    for (size_t i = 0; i < n; i++) {
        const sy_value *v = &items[i];
        if (v->kind == SY_V_TENSOR) {
            if ((st = check_dtype(c, v->u.t->dtype))) return st;
            spec += is_mask(v->u.t->dtype) ? v->u.t->ndim : 1;
        } else if (v->kind == SY_V_INT || v->kind == SY_V_SLICE || v->kind == SY_V_LIST) {
            spec++;
        } else if (v->kind != SY_V_NONE && v->kind != SY_V_ELLIPSIS && v->kind != SY_V_BOOL) {
            return op_err(c, SY_EINVAL, "unsupported index");
        }
    }
    if (spec > t->ndim) return op_err(c, SY_EINVAL, "too many indices for tensor of dimension %zu", t->ndim);
    size_t cap = 2 * (t->ndim + n) + 2;
    const sy_expr **rs = sy_env_alloc(c->env, cap * sizeof *rs), **rt = sy_env_alloc(c->env, cap * sizeof *rt);
    ixent *ix = sy_env_alloc(c->env, cap * sizeof *ix);
    if (!rs || !rt || !ix) return sy_ctx_last_error(CTX);
    SY_COPY(rs, t->sizes, t->ndim * sizeof *rs);
    if (t->strides) SY_COPY(rt, t->strides, t->ndim * sizeof *rt);
    size_t m = t->ndim, dim = 0, nix = 0;
    int has_strides = t->strides != NULL, contig = 1, torch1 = op_torch1(c);
    memset(ix, 0, cap * sizeof *ix);
#define INSERT(sz, stv)                                                         \
    do {                                                                        \
        memmove(rs + dim + 1, rs + dim, (m - dim) * sizeof *rs);                \
        memmove(rt + dim + 1, rt + dim, (m - dim) * sizeof *rt);                \
        rs[dim] = (sz);                                                         \
        rt[dim] = (stv);                                                        \
        m++;                                                                    \
    } while (0)
/* recordTensorIndex: the entry for index e (1.13: at dim; 2.x: at dim when first, else appended) */
#define RECORD(e)                                                               \
    do {                                                                        \
        size_t at_ = (torch1 || !nix) ? dim : nix;                              \
        while (nix < at_) ix[nix++] = (ixent){NULL, 0, SY_DT_INT64, 1, NULL, NULL, NULL};         \
        ix[at_] = (e);                                                          \
        nix = at_ + 1;                                                          \
    } while (0)
/* 2.x: a slice, None or ... after the first index appends k empty entries */
#define SKIP(k)                                                                 \
    do {                                                                        \
        if (!torch1 && nix)                                                     \
            for (size_t k_ = 0; k_ < (k); k_++) ix[nix++] = (ixent){NULL, 0, SY_DT_INT64, 1, NULL, NULL, NULL}; \
    } while (0)
#define REMOVE()                                                                \
    do {                                                                        \
        memmove(rs + dim, rs + dim + 1, (m - dim - 1) * sizeof *rs);            \
        memmove(rt + dim, rt + dim + 1, (m - dim - 1) * sizeof *rt);            \
        m--;                                                                    \
    } while (0)
    for (size_t i = 0; i < n; i++) {
        const sy_value *v = &items[i];
        const sy_expr *unsq_stride = has_strides ? (dim < m ? sy_expr_mul(CTX, rs[dim], rt[dim]) : KI(c, 1)) : NULL;
        if (v->kind == SY_V_ELLIPSIS) {
            dim += t->ndim - spec;
            SKIP(t->ndim - spec);
            continue;
        }
        if (v->kind == SY_V_NONE || v->kind == SY_V_BOOL) {
            INSERT(KI(c, 1), unsq_stride);
            if (v->kind == SY_V_BOOL) { /* x[True]: index [0] (or [] for False) of the new dim */
                int tv;
                if ((st = op_decide_bool(c, v->u.i, "index: a bool index", &tv))) return st;
                const sy_expr **len = sy_env_alloc(c->env, sizeof *len);
                if (!len) return sy_ctx_last_error(CTX);
                *len = KI(c, tv ? 1 : 0);
                RECORD(((ixent){len, 1, SY_DT_INT64, 1, NULL, NULL, NULL}));
            } else {
                SKIP(1);
            }
            dim++;
            continue;
        }
        if (dim >= m) return op_err(c, SY_EINVAL, "too many indices for tensor of dimension %zu", t->ndim);
        if (v->kind == SY_V_INT) {
            const sy_expr *L = rs[dim];
            if ((st = op_require(c, sy_expr_and(CTX, sy_expr_ge(CTX, v->u.i, sy_expr_neg(CTX, L)), sy_expr_lt(CTX, v->u.i, L)),
                                 "index %s is out of bounds for dimension %zu with size %s", SHOW(v->u.i), dim, SHOW(L))))
                return st;
            REMOVE();
        } else if (v->kind == SY_V_SLICE) {
            const sy_expr *start, *cnt;
            int64_t step;
            if ((st = sy_slice_len(c, v, rs[dim], &start, &cnt, &step))) return st;
            rs[dim] = cnt;
            if (has_strides) rt[dim] = step == 1 ? rt[dim] : sy_expr_mul(CTX, rt[dim], KI(c, step));
            SKIP(1);
            dim++;
        } else if (v->kind == SY_V_TENSOR && v->u.t->ndim == 0 && !is_mask(v->u.t->dtype)) {
            /* applySelect with the tensor's value: any value is out of range of an empty dim */
            if ((st = op_require(c, sy_expr_ge(CTX, rs[dim], KI(c, 1)),
                                 "index is out of bounds for dimension %zu with size 0", dim)))
                return st;
            /* a value from sizes (values.c: x[arange(T)[-1]]): applySelect's range check, -size..size-1 */
            if ((st = sy_env_values_require_in(c, v->u.t, NULL, sy_expr_neg(CTX, rs[dim]), sy_expr_sub(CTX, rs[dim], KI(c, 1)),
                                               "index is out of bounds for the dimension it selects")))
                return st;
            REMOVE();
        } else if (v->kind == SY_V_TENSOR && v->u.t->ndim == 0) {
            /* a 0-d bool: unsqueeze, then an index of its value's length (0 or 1: data) */
            INSERT(KI(c, 1), unsq_stride);
            const sy_expr **len = sy_env_alloc(c->env, sizeof *len);
            if (!len || !(*len = unbacked(c, KI(c, 1), "bool_index"))) return sy_ctx_last_error(CTX);
            RECORD(((ixent){len, 1, SY_DT_INT64, 1, NULL, NULL, NULL}));
            dim++;
        } else {
            ixent e;
            if ((st = item_tensor(c, v, &e))) return st;
            RECORD(e);
            dim += (is_mask(e.dtype) && !torch1) ? e.ndim : 1;
        }
    }
#undef INSERT
#undef REMOVE
#undef RECORD
#undef SKIP
    if (dim > m) return op_err(c, SY_EINVAL, "too many indices for tensor of dimension %zu", t->ndim);
    for (size_t i = 0; has_strides && i < m; i++)
        if (!rs[i] || !rt[i]) return sy_ctx_last_error(CTX);
    if (!nix) return op_set_strided(c, t->dtype, m, rs, has_strides ? rt : NULL); /* only selects: a view */
    const sy_expr **out;
    size_t nout;
    if ((st = index_core(c, m, rs, ix, nix, &out, &nout, &contig))) return st;
    return set_result(c, t, nout, out, contig);
}

/* the index list of index / index_put: None or a tensor per entry */
static sy_status index_list(opcall *c, size_t pos, ixent **out, size_t *n)
{
    const sy_value *l = op_arg(c, pos, "indices");
    if (!l || l->kind != SY_V_LIST) return op_err(c, SY_EINVAL, "%s: expected a list of optional tensors (indices)", c->op);
    ixent *ix = sy_env_alloc(c->env, (l->u.list.n + 1) * sizeof *ix);
    if (!ix) return sy_ctx_last_error(CTX);
    for (size_t i = 0; i < l->u.list.n; i++) {
        const sy_value *v = &l->u.list.items[i];
        if (v->kind == SY_V_NONE) {
            ix[i] = (ixent){NULL, 0, SY_DT_INT64, 1, NULL, NULL, NULL};
        } else if (v->kind == SY_V_TENSOR) {
            ix[i] = (ixent){v->u.t->sizes, v->u.t->ndim, v->u.t->dtype, v->u.t->strides && sy_tensor_is_contiguous(c->env, v->u.t), NULL, NULL, v->u.t};
        } else {
            return op_err(c, SY_EINVAL, "%s: indices[%zu] must be a tensor or None", c->op, i);
        }
    }
    *out = ix;
    *n = l->u.list.n;
    return SY_OK;
}

/* aten.index.Tensor(self, indices) and _unsafe_index (same shapes, no bounds check of the values) */
static sy_status index_op(opcall *c)
{
    const sy_tensor *x;
    ixent *ix;
    size_t nix, nout;
    const sy_expr **out;
    int contig;
    sy_status st;
    if ((st = op_tensor(c, 0, "self", &x)) || (st = index_list(c, 1, &ix, &nix))) return st;
    if ((st = index_core(c, x->ndim, x->sizes, ix, nix, &out, &nout, &contig))) return st;
    return set_result(c, x, nout, out, contig);
}

/* index_put(self, indices, values, accumulate=False): self's sizes; the values must expand to
 * the indexing result (make_index_put_iterator: "shape mismatch: value tensor of shape [..]
 * cannot be broadcast to indexing result of shape [..]") */
static sy_status index_put(opcall *c)
{
    const sy_tensor *x, *v;
    ixent *ix;
    size_t nix, nout;
    const sy_expr **out;
    int contig;
    sy_status st;
    if ((st = op_tensor(c, 0, "self", &x)) || (st = index_list(c, 1, &ix, &nix)) || (st = op_tensor(c, 2, "values", &v)))
        return st;
    if ((st = index_core(c, x->ndim, x->sizes, ix, nix, &out, &nout, &contig))) return st;
    if (v->ndim > nout)
        return op_err(c, SY_EINVAL, "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s",
                      op_show_sizes(c, v->ndim, v->sizes), op_show_sizes(c, nout, out));
    for (size_t i = 0; i < v->ndim; i++) {
        const sy_expr *vd = v->sizes[i], *rd = out[nout - v->ndim + i];
        if ((st = op_require(c, sy_expr_or(CTX, sy_expr_eq(CTX, vd, rd), sy_expr_eq(CTX, vd, KI(c, 1))),
                             "shape mismatch: value tensor of size %s at dim %zu cannot be broadcast to indexing result of size %s",
                             SHOW(vd), i, SHOW(rd))))
            return st;
    }
    if (c->op[strlen(c->op) - 1] == '_') return op_set_strided(c, x->dtype, x->ndim, x->sizes, x->strides);
    return set_result(c, x, x->ndim, x->sizes, 1);
}

const opentry sy_ops_advindex[] = {
    OP_ROW("index", index_op, 0, OPL_DEFAULT, "aten/src/ATen/native/TensorAdvancedIndexing.cpp index (make_info)"),
    OP_ROW("_unsafe_index", index_op),
    OP_ROW("index_put", index_put, 0, OPL_DEFAULT, "aten/src/ATen/native/TensorAdvancedIndexing.cpp index_put_"),
    OP_ROW("index_put_", index_put),
    OP_ROW("_unsafe_index_put", index_put),
    OP_END};
