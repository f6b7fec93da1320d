/* Elementwise ops. Unary ops keep the input's sizes (sources: the ATen
 * structured meta functions of each op return a tensor of the input's shape;
 * softmax/log_softmax: aten/src/ATen/native/SoftMax.cpp meta checks the dim).
 * Binary ops broadcast (aten/src/ATen/ExpandUtils.cpp infer_size), the
 * result dtype follows type promotion for the cases the corpus uses (the
 * tensor operand's dtype; floating wins over integral). */
#include <math.h>
#include <string.h>

#include "shapeenv/env_private.h"

/* Output layout (docs/ops.md section 7): an in-place op (name ending in
 * '_'), identity, detach and dropout outside training return the input
 * itself or an alias (same strides); contiguous() a contiguous tensor; the
 * others are TensorIterator ops (clone preserves the layout the same way:
 * empty_like with MemoryFormat::Preserve). */
/* math.sqrt / math.exp / math.log of a Python number (an attention scale
 * 1 / math.sqrt(d), a positional encoding's math.log(10000.0) / d): a float.
 * A symbolic int is specialized first (float() of a size, a guard_int), as
 * the values it produces are concrete floats. Python raises ValueError "math
 * domain error" for sqrt of a negative number and log of a number <= 0. */
static sy_status math_unary(opcall *c, const sy_value *v)
{
    double x;
    if (v->kind == SY_V_FLOAT) {
        x = v->u.f;
    } else {
        int64_t iv;
        sy_status st = op_const_int(c, 0, "input", 0, &iv);
        if (st) return st;
        x = (double)iv;
    }
    double r;
    if (!strcmp(c->op, "sqrt")) {
        if (x < 0) return op_err(c, SY_EINVAL, "ValueError: math domain error (sqrt of %g)", x);
        r = sqrt(x);
    } else if (!strcmp(c->op, "log")) {
        if (!(x > 0)) return op_err(c, SY_EINVAL, "ValueError: math domain error (log of %g)", x);
        r = log(x);
    } else {
        r = exp(x);
        if (isinf(r)) return op_err(c, SY_EOVERFLOW, "OverflowError: math range error (exp of %g)", x);
    }
    *c->out = sy_value_float(r);
    return SY_OK;
}

/* An in-place TensorIterator op (add_, iadd, relu_, ...) writes self, which must not overlap itself:
 * assert_no_internal_overlap (MemOverlap.cpp has_internal_overlap: a stride 0 at a size > 1),
 * "unsupported operation: more than one element of the written-to tensor refers to a single memory
 * location" (verify38: x[:, :1].expand(-1, n).add_(y) and .relu_() were accepted at n >= 2). Not
 * fill_/zero_ (Fill.cpp: set_check_mem_overlap(false), fill is idempotent). Strides not modelled:
 * nothing is checked. */
static sy_status require_no_overlap(opcall *c, const sy_tensor *t)
{
    if (!t->strides) return SY_OK;
    sy_status st = SY_OK;
    sy_ctx *ctx = c->env->ctx;
    /* the common case without the copy below (a copy per in-place op grows with the facts): every
     * stride >= 1 by the env's own ranges (sy_bound reads them and touches no symbol) */
    size_t open = 0;
    for (size_t i = 0; i < t->ndim && !open; i++) {
        const sy_expr *lo = NULL, *hi = NULL;
        int64_t v;
        if (sy_bound(sy_env_facts(c->env), t->strides[i], &lo, &hi) != SY_OK) {
            sy_ctx_reset_error(ctx);
            open = 1;
        } else if (!lo || sy_expr_get_si(lo, &v) != SY_OK || v < 1) {
            open = 1;
        }
    }
    if (!open) return SY_OK;
    /* a stride that may be 0 only where the tensor is empty (row-major strides are products of
     * the later sizes) writes nothing twice: decided on a copy of the facts with every size >= 1,
     * which touches no symbol; only an expanded dim (stride 0 or [size == t]*stride) is left */
    sy_facts *f = sy_facts_copy(sy_env_facts(c->env));
    if (!f) return sy_ctx_last_error(ctx);
    const sy_expr *numel = KI(c, 1);
    for (size_t i = 0; i < t->ndim && st == SY_OK; i++) {
        numel = sy_expr_mul(ctx, numel, t->sizes[i]);
        st = sy_facts_add(f, sy_expr_ge(ctx, t->sizes[i], KI(c, 1)));
    }
    for (size_t i = 0; i < t->ndim && st == SY_OK; i++) {
        const sy_expr *ne0 = sy_expr_ne(ctx, t->strides[i], KI(c, 0));
        const sy_expr *once = sy_expr_or(ctx, sy_expr_le(ctx, t->sizes[i], KI(c, 1)), ne0);
        sy_truth tr = SY_TRUTH_UNKNOWN;
        if ((st = sy_decide(f, once, &tr)) == SY_EQUOTA) st = SY_OK, sy_ctx_reset_error(ctx); /* unknown: require */
        if (st != SY_OK || tr == SY_TRUTH_TRUE) continue;
        st = op_require(c, sy_expr_or(ctx, once, sy_expr_eq(ctx, numel, KI(c, 0))),
                        "unsupported operation: more than one element of the written-to tensor refers to a "
                        "single memory location (dim %zu has stride 0 and size %s)",
                        i, sy_env_show(c->env, t->sizes[i]));
    }
    sy_facts_free(f);
    return st;
}

static sy_status unary(opcall *c)
{
    const sy_tensor *x;
    const sy_value *v = op_arg(c, 0, "input");
    if (v && (v->kind == SY_V_FLOAT || v->kind == SY_V_INT || v->kind == SY_V_BOOL) &&
        (!strcmp(c->op, "sqrt") || !strcmp(c->op, "exp") || !strcmp(c->op, "log")))
        return math_unary(c, v);
    sy_status st = op_tensor(c, 0, "input", &x);
    if (st) return st;
    size_t n = strlen(c->op);
    if (n > 1 && c->op[n - 1] == '_' && strcmp(c->op, "dropout_") && (st = require_no_overlap(c, x))) return st; /* relu_, ... */
    return sy_unary_layout(c, x, x->dtype);
}

/* to / contiguous / clone with an explicit memory_format fmt (relax38; before, the argument was
 * ignored: x.to(memory_format=torch.channels_last) kept x's row-major strides, wrong at every
 * size where a stride is read). ATen (TensorConversions.cpp, TensorProperties.cpp, TensorFactories.cpp):
 *  - to: self when to_will_alias (the same dtype, copy=False, self.suggest_memory_format() ==
 *    memory_format: channels_last(_3d) when is_channels_last_strides_2d/_3d, else
 *    contiguous_format), else _to_copy into a fresh tensor of that format;
 *  - contiguous: self when self.is_contiguous(memory_format), else clone(memory_format);
 *  - clone: empty_like(self, memory_format), always a fresh tensor.
 * A fresh channels_last tensor must be 4-D ("required rank 4 tensor to use channels_last
 * format"), channels_last_3d 5-D. Whether self is returned is decided by the facts, else at the
 * example (a guard: at H = W = 1, or C = 1, the two answers differ in strides only, e.g.
 * contiguous(memory_format=channels_last) of a row-major [N, 3, 1, 1] is itself, (3, 1, 1, 1),
 * its copy (3, 1, 3, 3)); self's strides not modelled: the result's are not either, unless it is
 * a fresh tensor. Measured on the CPU (1.13 and 2.14.1, tests/.../test_relax38.py). */
static sy_status memfmt_result(opcall *c, const sy_tensor *x, sy_dtype dt, char fmt)
{
    sy_ctx *ctx = c->env->ctx;
    sy_status st;
    const char *op = c->op;
    if ((fmt == '4' && x->ndim != 4) || (fmt == '5' && x->ndim != 5))
        return op_err(c, SY_EINVAL, "required rank %d tensor to use channels_last%s format", fmt == '4' ? 4 : 5, fmt == '4' ? "" : "_3d");
    const sy_expr *alias = sy_expr_false(ctx);
    int self_unknown = 0;
    if (!strcmp(op, "contiguous")) {
        if (x->strides) alias = sy_layout_is_contiguous(c, x, fmt);
        else self_unknown = 1;
    } else if (!strcmp(op, "to")) {
        int copy;
        if ((st = op_bool_def(c, (size_t)-1, "copy", 0, &copy))) return st;
        if (dt == x->dtype && !copy) {
            if (x->ndim != 4 && x->ndim != 5) alias = sy_expr_bool(ctx, fmt == 'c');
            else if (!x->strides) self_unknown = 1;
            else if (fmt == 'c') alias = sy_expr_not(ctx, sy_layout_strides_like_cl(c, x));
            else alias = sy_layout_strides_like_cl(c, x); /* fmt is the channels_last of x's rank here */
        }
    }
    if (self_unknown) return op_set_strided(c, dt, x->ndim, x->sizes, NULL);
    if (!alias) return sy_ctx_last_error(ctx);
    int same = sy_expr_kind_of(alias) == SY_EXPR_TRUE;
    if (sy_expr_kind_of(alias) == SY_EXPR_AND) {
        /* a conjunct the facts prove false answers "a copy", relying on that conjunct's symbols
         * only (the decision of the whole touches every symbol in it: a row-major [N, 4, H, W]
         * is not channels_last because of H and W, yet N's conjunct Or(N == 1, ...) marked N,
         * adding 2 <= N) */
        for (size_t i = 0; i < sy_expr_nargs(alias); i++) {
            const sy_expr *cj = sy_expr_arg(alias, i);
            sy_truth tr = SY_TRUTH_UNKNOWN;
            int known = 0, val = 1;
            if ((st = sy_decide(sy_env_facts(c->env), cj, &tr))) return st;
            if (tr != SY_TRUTH_FALSE) continue;
            if ((st = sy_env_try_decide(c->env, cj, &known, &val))) return st;
            if (known && !val) {
                alias = sy_expr_false(ctx);
                break;
            }
        }
    }
    if (sy_expr_kind_of(alias) != SY_EXPR_TRUE && sy_expr_kind_of(alias) != SY_EXPR_FALSE &&
        (st = op_decide_bool(c, alias, !strcmp(op, "to") ? "to(memory_format): is the input already in that memory format (no copy)?"
                                                          : "contiguous(memory_format): is the input already contiguous in that format?",
                             &same)))
        return st;
    if (same) return op_set_strided(c, dt, x->ndim, x->sizes, x->strides);
    const sy_expr *const *ds = sy_layout_dense_strides(c, x->ndim, x->sizes, fmt);
    if (!ds) return sy_ctx_last_error(ctx);
    return op_set_strided(c, dt, x->ndim, x->sizes, ds);
}

sy_status sy_unary_layout(opcall *c, const sy_tensor *x, sy_dtype dt)
{
    const char *op = c->op;
    size_t len = strlen(op);
    if (!strcmp(op, "contiguous") || !strcmp(op, "clone") || !strcmp(op, "to")) {
        char fmt;
        sy_status st = sy_layout_memfmt_arg(c, !strcmp(op, "contiguous") ? 1 : (size_t)-1, &fmt);
        if (st) return st;
        if (fmt != 'p' && (fmt != 'c' || strcmp(op, "contiguous"))) return memfmt_result(c, x, dt, fmt);
    }
    if (!strcmp(op, "contiguous")) {
        /* TensorProperties.cpp contiguous: self when self.is_contiguous() (c10 compute_contiguous:
         * true when numel is 0, dims of size 1 skipped), else clone(contiguous_format). The two
         * differ in the strides of size-1 dims and of empty tensors only (x.transpose(1, 2) of
         * [B, 1, C] is itself, (C, 1, C), where its copy has (C, 1, 1)). Self when the strides are
         * the contiguous ones or the facts prove it contiguous, the copy when they prove it is not;
         * undecided: the copy (no guard: a guard on sizes only a stride of a size-1 dim depends on
         * would throw away sizes the model runs; docs/ops.md section 8 lists the gap). */
        const sy_tensor *t = sy_tensor_new(c->env, dt, x->ndim, x->sizes);
        if (!t) return sy_ctx_last_error(c->env->ctx);
        if (x->strides && x->strides != t->strides) {
            /* only a proof of "contiguous" is relied upon (and its symbols touched): "not" or
             * "undecided" both give the copy, so they mark nothing (a permuted [B, C, T] is not
             * contiguous only for B >= 1 and C, T >= 2: marking B would add 2 <= B) */
            int known = 0, val = 0;
            sy_truth tr = SY_TRUTH_TRUE;
            const sy_expr *alias = sy_tensor_is_contiguous(c->env, x) ? sy_expr_true(c->env->ctx) : sy_layout_is_contiguous(c, x, 'c');
            if (!alias) return sy_ctx_last_error(c->env->ctx);
            sy_status st = sy_expr_kind_of(alias) == SY_EXPR_TRUE ? SY_OK : sy_decide(sy_env_facts(c->env), alias, &tr);
            if (st) return st;
            if (tr == SY_TRUTH_TRUE && (st = sy_env_try_decide(c->env, alias, &known, &val))) return st;
            if (known && val) return op_set_strided(c, dt, x->ndim, x->sizes, x->strides);
        }
        return op_set_strided(c, dt, x->ndim, x->sizes, t->strides);
    }
    int alias = (len > 1 && op[len - 1] == '_') || !strcmp(op, "identity") || !strcmp(op, "detach");
    if (strstr(op, "dropout") && strncmp(op, "native_", 7)) {
        /* F.dropout, dropout1d/2d/3d, alpha_dropout, feature_alpha_dropout (torch/nn/functional.py 1.13) */
        double p;
        sy_status st = op_num_def(c, 1, "p", 0.5, &p);
        if (st) return st;
        if (!(p >= 0.0 && p <= 1.0)) return op_err(c, SY_EINVAL, "dropout probability has to be between 0 and 1, but got %g", p);
    }
    if (!alias && (strstr(op, "dropout") || !strcmp(op, "stochastic_depth"))) {
        /* F.dropout(input, p, training=True, ...) returns input when not training;
         * torchvision stochastic_depth(input, p, mode, training=True) too */
        int training;
        sy_status st = op_bool_def(c, !strcmp(op, "stochastic_depth") ? 3 : 2, "training", 1, &training);
        if (st) return st;
        alias = !training;
    }
    if (alias) return op_set_strided(c, dt, x->ndim, x->sizes, x->strides);
    const sy_expr *const *ts;
    sy_status st;
    /* clone and the dtype conversions: empty_like(preserve_format) + copy_, not TensorIterator;
     * a conversion to the same dtype returns self (to_will_alias) */
    static const char *const conv[] = {"to", "float", "double", "half", "long", "int", "bool", "type_as", "byte", "char",
                                       "short", "bfloat16", "cfloat", "cdouble", NULL};
    int is_conv = 0;
    for (int i = 0; conv[i] && !is_conv; i++) is_conv = !strcmp(op, conv[i]);
    if (is_conv && dt == x->dtype) return op_set_strided(c, dt, x->ndim, x->sizes, x->strides);
    /* hardtanh / relu6 (Activation.cpp hardtanh: result = at::empty_like(self), then
     * hardtanh_out; relu6 is hardtanh(0, 6)) and nan_to_num (UnaryOps.cpp: empty_like(self),
     * then nan_to_num_out) allocate as clone does: a transposed [3, 1, 1] keeps (1, 3, 3), where
     * a unary TensorIterator gives (1, 1, 1) */
    if (is_conv || !strcmp(op, "clone") || !strcmp(op, "hardtanh") || !strcmp(op, "relu6") || !strcmp(op, "nan_to_num")) {
        if (!x->strides) return op_set_strided(c, dt, x->ndim, x->sizes, NULL);
        if ((st = op_preserve_strides(c, x, &ts))) return st;
        return op_set_strided(c, dt, x->ndim, x->sizes, ts);
    }
    st = op_ti_strides(c, 1, &x, x->ndim, x->sizes, &ts);
    if (st) return st;
    return op_set_strided(c, dt, x->ndim, x->sizes, ts);
}

static sy_status softmax(opcall *c)
{
    const sy_tensor *x;
    sy_status st = op_tensor(c, 0, "input", &x);
    if (st) return st;
    const sy_value *d = op_arg(c, 1, "dim");
    if (d && d->kind != SY_V_NONE) {
        int64_t dim;
        size_t w;
        if ((st = op_const_int(c, 1, "dim", 0, &dim))) return st;
        if (x->ndim == 0 ? (dim != 0 && dim != -1) : (st = op_wrap_dim(c, dim, x->ndim, &w)) != SY_OK)
            return st ? st : op_err(c, SY_EINVAL, "Dimension out of range (expected to be in range of [-1, 0], but got %lld)", (long long)dim);
    }
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

static int is_float(sy_dtype d) { return d <= SY_DT_COMPLEX128; }

/* float('inf'), float('-inf'), float('nan'): the graph format writes them as the strings "inf",
 * "-inf", "nan" (docs/python.md; JSON has no such numbers), a Python float all the same
 * (torch.where(mask, scores, float("-inf")), x + float("inf")) */
static int is_nonfinite(const sy_value *v)
{
    return v->kind == SY_V_STR && v->u.s && (!strcmp(v->u.s, "inf") || !strcmp(v->u.s, "-inf") || !strcmp(v->u.s, "nan"));
}

/* Broadcasting binary op on values (one of them at least a tensor). */
sy_status sy_elementwise_binary(opcall *c, const sy_value *a, const sy_value *b)
{
    static const sy_expr *const none[1] = {NULL};
    const sy_expr *const *sa = none, *const *sb = none;
    size_t na = 0, nb = 0;
    sy_dtype dt = SY_DT_FLOAT32;
    int have = 0;
    if (a->kind == SY_V_TENSOR) {
        sa = a->u.t->sizes;
        na = a->u.t->ndim;
        dt = a->u.t->dtype;
        have = 1;
    }
    if (b->kind == SY_V_TENSOR) {
        sb = b->u.t->sizes;
        nb = b->u.t->ndim;
        if (!have || (is_float(b->u.t->dtype) && !is_float(dt))) dt = b->u.t->dtype;
        have = 1;
    }
    /* a Python float: a constant, or one computed from sizes (x / y, x * 0.7) whose value does not shape the result */
#define PYFLOAT(v) ((v)->kind == SY_V_FLOAT || (v)->kind == SY_V_QUOT || (v)->kind == SY_V_SCALED || is_nonfinite(v))
    if ((PYFLOAT(a) || PYFLOAT(b)) && !is_float(dt)) dt = SY_DT_FLOAT32; /* int tensor op float scalar */
    if (!have) return op_err(c, SY_EINVAL, "expected a tensor operand");
    if ((a->kind != SY_V_TENSOR && a->kind != SY_V_INT && !PYFLOAT(a) && a->kind != SY_V_BOOL) ||
        (b->kind != SY_V_TENSOR && b->kind != SY_V_INT && !PYFLOAT(b) && b->kind != SY_V_BOOL))
        return op_err(c, SY_EINVAL, "operands must be tensors or numbers");
#undef PYFLOAT
    const sy_expr **r;
    size_t n;
    sy_status st = SY_OK;
    /* in place: a method name ending in '_', or Python's augmented operators (operator.iadd, ...);
     * not isclose, igamma, ... nor operator.is_, and_, or_ (out of place) */
    static const char *const augmented[] = {"iadd", "isub", "imul", "itruediv", "idiv", "ifloordiv", "imod", "ipow",
                                            "iand", "ior", "ixor", "ilshift", "irshift", NULL};
    size_t len = strlen(c->op);
    int inplace = c->op[len - 1] == '_' && strcmp(c->op, "is_") && strcmp(c->op, "and_") && strcmp(c->op, "or_");
    for (int i = 0; augmented[i] && !inplace; i++) inplace = !strcmp(c->op, augmented[i]);
    if (inplace && a->kind == SY_V_TENSOR && (st = require_no_overlap(c, a->u.t))) return st;
    if (inplace && a->kind == SY_V_TENSOR && nb <= na) {
        /* in place (add_, iadd, ...): TensorIterator's output is self, so the other operand expands
         * into self's sizes (EXPAND-IN-PLACE, docs/ops.md) and the result has self's sizes; the
         * two-way broadcast decided each dim's branch at the example (relax38: x.add_(y) with equal
         * batches rejected y's batch 1, 8 of 14 CPU-ok sizes) */
        for (size_t i = 0; i < nb; i++)
            if ((st = op_require_expands(c, sb[i], sa[na - nb + i], na - nb + i))) return st;
        if (!(r = sy_env_alloc(c->env, (na ? na : 1) * sizeof *r))) return sy_ctx_last_error(c->env->ctx);
        SY_COPY(r, sa, na * sizeof *r);
        n = na;
    } else if ((st = op_broadcast(c, sa, na, sb, nb, &r, &n))) {
        return st;
    }
    if (!strcmp(c->op, "truediv") || !strcmp(c->op, "div")) {
        if (!is_float(dt)) dt = SY_DT_FLOAT32;
    }
    static const char *const cmps[] = {"eq", "ne", "lt", "le", "gt", "ge", NULL};
    for (int i = 0; cmps[i]; i++)
        if (!strcmp(c->op, cmps[i])) dt = SY_DT_BOOL;
    /* layout: in place (add_, iadd, ...) writes self; else TensorIterator */
    const sy_tensor *ops[2] = {a->kind == SY_V_TENSOR ? a->u.t : NULL, b->kind == SY_V_TENSOR ? b->u.t : NULL};
    if (ops[0] && ops[0]->ndim == n && inplace)
        return op_set_strided(c, ops[0]->dtype, n, r, ops[0]->strides);
    const sy_expr *const *ts;
    /* pow / float_power with a number, clamp_min / clamp_max of a number: the number is no
     * TensorIterator operand (as it is in x * 2, a wrapped 0-dim one), so pow of a [0, 1, 3] has
     * (3, 3, 1) where x * 2 has (3, 0, 1), and of a transposed [3, 1, 2] the contiguous strides:
     *  - pow(Tensor, Scalar) (Pow.cpp TORCH_META_FUNC2(pow, Tensor_Scalar)), clamp_min /
     *    clamp_max(Tensor, Scalar) (TensorCompare.cpp): a unary op on the tensor;
     *    float_power(Tensor, Scalar) is pow(self.to(float64), exp), the same layout;
     *  - pow(Scalar, Tensor) (2 ** x, TORCH_META_FUNC2(pow, Scalar)) sets its output with no
     *    strides (contiguous) before the kernel. 1.13's Tensor.__rpow__ (torch/_tensor.py) is
     *    torch.tensor(other) ** self, a 0-dim operand (TensorIterator); the graph records 2 ** x
     *    and torch.pow(2, x) alike, so 1.x keeps the operator's layout (docs/ops.md section 8). */
    int powlike = !strcmp(c->op, "pow") || !strcmp(c->op, "float_power") || !strcmp(c->op, "rpow") ||
                  (ops[1] == NULL && (!strcmp(c->op, "clamp_min") || !strcmp(c->op, "clamp_max")));
    if (powlike && !ops[0] != !ops[1] && (ops[0] || !sy_opc_torch1(c))) {
        if (!ops[0]) {
            if (!(ts = sy_env_contig_strides(c->env, n, r, false))) return sy_ctx_last_error(c->env->ctx);
        } else if ((st = op_ti_strides(c, 1, ops, n, r, &ts))) {
            return st;
        }
        return op_set_strided(c, dt, n, r, ts);
    }
    if ((st = op_ti_strides(c, 2, ops, n, r, &ts))) return st;
    return op_set_strided(c, dt, n, r, ts);
}

/* self.copy_(src, non_blocking=False) (aten/src/ATen/native/Copy.cpp copy_impl, 1.13 and 2.x): a
 * TensorIterator with self as its output, resize_outputs(false) and check_mem_overlap: src
 * broadcasts into self's sizes (each of its dims 1 or self's; with more dims than self the
 * broadcast shape is not self's: "output with shape [...] doesn't match the broadcast shape"),
 * self must not overlap itself (assert_no_internal_overlap); the result is self, its sizes,
 * dtype and strides (a copy between dtypes converts). */
static sy_status copy_inplace(opcall *c)
{
    const sy_tensor *x;
    sy_status st = op_tensor(c, 0, "input", &x);
    if (st) return st;
    const sy_value *v = op_arg(c, 1, "src");
    if (!v || v->kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "copy_(): argument 'src' must be Tensor");
    const sy_tensor *src = v->u.t;
    if (src->ndim > x->ndim)
        return op_err(c, SY_EINVAL, "output with shape of rank %zu doesn't match the broadcast shape of rank %zu", x->ndim, src->ndim);
    if ((st = require_no_overlap(c, x))) return st;
    for (size_t i = 0; i < src->ndim; i++)
        if ((st = op_require_expands(c, src->sizes[i], x->sizes[x->ndim - src->ndim + i], x->ndim - src->ndim + i))) return st;
    return op_set_strided(c, x->dtype, x->ndim, x->sizes, x->strides);
}

/* where(condition, scalar, scalar), as `torch.where(mask, 0.0, float("-inf"))`: the condition's
 * sizes, the dtype of the two scalars promoted (bool < int64 < float32, the default dtype), the
 * layout TensorIterator gives the condition with two 0-d operands. TensorCompare.cpp
 * where(const Tensor& condition, const Scalar& self, const Scalar& other): result_type(self,
 * other), each scalar wrapped as a 0-d tensor of that type, then where.self. Measured on the CPU
 * under 1.13 and 2.14: (1, 0) int64, (1, 0.5) float32, (True, False) bool, (True, 2) int64. */
static sy_status where_scalars(opcall *c, const sy_tensor *cond, const sy_value *x, const sy_value *y)
{
    const sy_value *v[2] = {x, y};
    int rank = 0; /* 0 bool, 1 int, 2 float */
    for (int i = 0; i < 2; i++) {
        int k = v[i]->kind == SY_V_BOOL ? 0 : v[i]->kind == SY_V_INT ? 1
              : v[i]->kind == SY_V_FLOAT || v[i]->kind == SY_V_QUOT || v[i]->kind == SY_V_SCALED || is_nonfinite(v[i]) ? 2 : -1;
        if (k < 0) return op_err(c, SY_EINVAL, "where: input and other must be tensors or numbers");
        if (k > rank) rank = k;
    }
    sy_dtype dt = rank == 0 ? SY_DT_BOOL : rank == 1 ? SY_DT_INT64 : SY_DT_FLOAT32;
    const sy_tensor *ops[3] = {cond, NULL, NULL};
    const sy_expr *const *ts;
    sy_status st = op_ti_strides(c, 3, ops, cond->ndim, cond->sizes, &ts);
    if (st) return st;
    return op_set_strided(c, dt, cond->ndim, cond->sizes, ts);
}

static sy_status where(opcall *c)
{
    const sy_value *cond = op_arg(c, 0, "condition"), *x = op_arg(c, 1, "input"), *y = op_arg(c, 2, "other");
    /* where(condition) alone is nonzero(condition, as_tuple=True) (TensorCompare.cpp where(cond)) */
    if (cond && cond->kind == SY_V_TENSOR && !x && !y) return sy_nonzero(c, cond->u.t, 1);
    if (!cond || !x || !y || cond->kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "expected where(condition, input, other)");
    if (x->kind != SY_V_TENSOR && y->kind != SY_V_TENSOR)
        return where_scalars(c, cond->u.t, x, y);
    sy_value xy, full;
    opcall c1 = *c;
    c1.out = &xy;
    sy_status st = sy_elementwise_binary(&c1, x, y);
    if (st) return st;
    c1.out = &full;
    if ((st = sy_elementwise_binary(&c1, cond, &xy))) return st;
    /* TensorIterator operands in order: condition, self, other */
    const sy_tensor *ops[3] = {cond->u.t, x->kind == SY_V_TENSOR ? x->u.t : NULL, y->kind == SY_V_TENSOR ? y->u.t : NULL};
    const sy_expr *const *ts;
    if ((st = op_ti_strides(c, 3, ops, full.u.t->ndim, full.u.t->sizes, &ts))) return st;
    return op_set_strided(c, xy.u.t->dtype, full.u.t->ndim, full.u.t->sizes, ts);
}

/* Tensor.to(dtype) / .float() / .type_as(other): same sizes, new dtype. */
static sy_status convert(opcall *c)
{
    const sy_tensor *x;
    sy_status st = op_tensor(c, 0, "input", &x);
    if (st) return st;
    sy_dtype dt = x->dtype;
    if (!strcmp(c->op, "float")) dt = SY_DT_FLOAT32;
    else if (!strcmp(c->op, "double")) dt = SY_DT_FLOAT64;
    else if (!strcmp(c->op, "half")) dt = SY_DT_FLOAT16;
    else if (!strcmp(c->op, "long")) dt = SY_DT_INT64;
    else if (!strcmp(c->op, "int")) dt = SY_DT_INT32;
    else if (!strcmp(c->op, "bool")) dt = SY_DT_BOOL;
    else if (!strcmp(c->op, "type_as")) {
        const sy_tensor *o;
        if ((st = op_tensor(c, 1, "other", &o))) return st;
        dt = o->dtype;
    } else { /* to: a dtype among the arguments (device strings are ignored) */
        for (size_t i = 1; i < c->nargs; i++)
            if (c->args[i].kind == SY_V_DTYPE) dt = c->args[i].u.dtype;
        const sy_value *d = op_arg(c, (size_t)-1, "dtype");
        if (d && d->kind == SY_V_DTYPE) dt = d->u.dtype;
    }
    /* to(memory_format=torch.preserve_format): a copy laid out like the input (TensorIterator) */
    return sy_unary_layout(c, x, dt);
}

const opentry sy_ops_elementwise[] = {
    OP_ROW("relu", unary, OP_MEMO | OP_CARRIES),
    OP_ROW("relu_", unary, OP_MEMO),
    OP_ROW("relu6", unary, OP_MEMO),
    OP_ROW("gelu", unary, OP_CARRIES),
    OP_ROW("silu", unary, OP_CARRIES),
    OP_ROW("silu_", unary),
    OP_ROW("sigmoid", unary, OP_CARRIES),
    OP_ROW("sigmoid_", unary),
    OP_ROW("tanh", unary, OP_CARRIES),
    OP_ROW("tanh_", unary),
    OP_ROW("hardswish", unary),
    OP_ROW("hardswish_", unary),
    OP_ROW("hardsigmoid", unary),
    OP_ROW("hardsigmoid_", unary),
    OP_ROW("hardtanh", unary),
    OP_ROW("hardtanh_", unary),
    OP_ROW("leaky_relu", unary),
    OP_ROW("leaky_relu_", unary),
    OP_ROW("elu", unary),
    OP_ROW("dropout", unary, OP_CARRIES),
    OP_ROW("dropout_", unary),
    OP_ROW("alpha_dropout", unary),
    OP_ROW("feature_alpha_dropout", unary),
    OP_ROW("dropout2d", unary),
    OP_ROW("identity", unary, OP_CARRIES, OPL_OWN),
    OP_ROW("contiguous", unary, 0, OPL_OWN),
    OP_ROW("clone", unary, OP_CARRIES, OPL_OWN),
    OP_ROW("copy_", copy_inplace, 0, OPL_OWN),
    OP_ROW("detach", unary, OP_CARRIES, OPL_OWN),
    OP_ROW("stochastic_depth", unary),
    OP_ROW("softmax", softmax, 0, OPL_FRESH),
    OP_ROW("log_softmax", softmax, 0, OPL_FRESH),
    OP_ROW("exp", unary),
    OP_ROW("log", unary),
    OP_ROW("sqrt", unary),
    OP_ROW("rsqrt", unary),
    OP_ROW("abs", unary),
    OP_ROW("neg_", unary),
    OP_ROW("erf", unary),
    OP_ROW("float", convert),
    OP_ROW("double", convert),
    OP_ROW("half", convert),
    OP_ROW("long", convert),
    OP_ROW("bool", convert),
    OP_ROW("to", convert),
    OP_ROW("type_as", convert),
    OP_ROW("where", where),
    OP_END};
