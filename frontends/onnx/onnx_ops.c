/* The ONNX op table: one entry per operator (name, input count, shape rule).
 * Every rule follows the operator's definition in onnx/docs/Operators.md of
 * ONNX 1.12 (opset versions cited as Op-N); where an op changed between
 * opsets 11 and 21 the rule accepts both forms (e.g. axes as an attribute
 * before Squeeze-13 / ReduceMean-18, as an input after).
 *
 * Conventions: a branch on a size the facts do not decide goes through
 * sy_env_evaluate_expr (a guard); a condition the runtime checks (matching
 * dims, an index in range, a non-empty conv window) is sy_env_require. Small
 * integer tensors (SY_ONNX_MAX_VALUES elements) carry symbolic element values
 * (ox_val.iv), so that shape subgraphs (Shape -> Gather -> Concat -> Reshape)
 * give exact expressions. Values that depend on data are unknown: a shape
 * read from them gets unbacked symbols.
 *
 * Length (about 2,800 lines, over the tree's 1,200): the table of ~140 ops
 * (ops[] at the end) with each op's rule beside its spec citation, so a rule
 * is found by its op; the rules shared with the PyTorch frontend (window size,
 * broadcast dim, reshape's -1, pad) are in shapeenv/rules.c (issue 34 item 2). */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algebra/sy_int64.h"
#include "algebra/internal.h"
#include "frontends/onnx/onnx_private.h"
#include "shapeenv/rules.h"

#define MAXR 64 /* largest rank handled */

static const sy_expr *K(ox_call *c, int64_t v) { return sy_expr_int_si(c->ctx, v); }
static sy_status lasterr(ox_call *c)
{
    sy_status st = sy_ctx_last_error(c->ctx);
    return st ? st : SY_ENOMEM;
}
#define CHK(p)                                                                                                         \
    do {                                                                                                               \
        if (!(p)) return lasterr(c);                                                                                   \
    } while (0)
#define TRY(x)                                                                                                         \
    do {                                                                                                               \
        sy_status st_ = (x);                                                                                           \
        if (st_) return st_;                                                                                           \
    } while (0)

static const sy_tensor *T(ox_call *c, size_t k) { return k < c->nin && c->in[k] ? c->in[k]->t : NULL; }
static int has(ox_call *c, size_t k) { return k < c->nin && c->in[k]; }

static const char *show(ox_call *c, const sy_expr *e);
static const char *show_user(ox_call *c, const sy_expr *e);
static sy_status set_bounds(ox_call *c, size_t k, const sy_expr *lo, const sy_expr *hi, int loose);
static int elem_bounds(ox_call *c, size_t k, const sy_expr **lo, const sy_expr **hi);
static sy_status set_aff(ox_call *c, size_t k, const sy_expr *base, const sy_expr *const *co);

/* ONNX dims and shape tensors are int64: a constant past int64 is an error (the
 * runtime's int64 arithmetic would wrap) */
static sy_status fits_int64(ox_call *c, const sy_expr *e, const char *what, size_t i)
{
    int64_t v;
    if (!e || sy_expr_kind_of(e) != SY_EXPR_INT || sy_expr_get_si(e, &v) != SY_EOVERFLOW) return SY_OK;
    return ox_err(c, SY_EOVERFLOW, "%s %zu = %s does not fit int64", what, i, show_user(c, e));
}

/* sy_env_require_int64's SY_EOVERFLOW: past int64 at every size, or at the example's (the guard that
 * it fits would reject the example itself) */
static const char *int64_when(ox_call *c)
{
    return strstr(sy_ctx_last_error_msg(sy_env_ctx(c->env)), "at the example sizes") ? "at the example sizes" : "at any size";
}

/* The least value of size e under the env's facts: 0 when unknown or negative, INT64_MAX when past
 * it. Its symbols are not marked relied upon (as sy_env_require_int64 decides under the facts): the
 * 0/1 specialization's 2 <= s would otherwise become a guard of every model, for a check that matters
 * only past int64 */
static int64_t size_lo(ox_call *c, const sy_expr *e)
{
    int64_t v;
    if (sy_expr_get_si(e, &v) == SY_OK) return v > 0 ? v : 0;
    sy_ctx_reset_error(c->ctx);
    const sy_expr *lo = NULL, *hi = NULL;
    sy_facts *f = sy_env_facts(c->env);
    /* a symbol's range is its bound (no interval walk) */
    if ((sy_expr_kind_of(e) == SY_EXPR_SYM ? sy_facts_get_range(f, e, &lo, &hi) : sy_bound(f, e, &lo, &hi)) != SY_OK || !lo) {
        sy_ctx_reset_error(c->ctx);
        return 0;
    }
    if (sy_expr_get_si(lo, &v) == SY_OK) return v > 0 ? v : 0;
    sy_ctx_reset_error(c->ctx);
    return sy_expr_kind_of(sy_expr_gt(c->ctx, lo, K(c, 0))) == SY_EXPR_TRUE ? INT64_MAX : 0;
}
static int at_least_1(ox_call *c, const sy_expr *e) { return size_lo(c, e) >= 1; }

/* The element count of every tensor a node makes is an int64: onnxruntime computes it with
 * SafeInt<int64_t>, one dim at a time from dim 0 (core/framework/tensor_shape.cc
 * TensorShape::SizeHelper, called by every output's allocation, ExecutionFrame's
 * AllocateMLValueTensorSelfOwnBufferHelper), so a product of leading dims past int64 fails even when
 * a later dim is 0 (ConstantOfShape [n, 2^31, 0] runs at n = 2^32 - 1 and fails at n = 2^32: "SafeInt
 * ... Integer overflow"; [n, 0, 2^62, 4] runs at every n). A leading product followed by dims all >= 1
 * is at most a longer one, so only these products are checked, each by sy_env_require_int64 (an error
 * where it never fits, a guard where it may not although every input tensor's does):
 *  - a product before a dim that may be 0: an empty tensor needs no memory, so the count is the
 *    runtime's only limit there;
 *  - a product (the whole count included) whose least non-zero value under the facts is past int64
 *    (ConstantOfShape [n, 2^31, 2^31, 4]: 2^64*n, which fits only at n = 0).
 * The bytes of a non-empty tensor (onnx47w): its allocation computes numel * element size + 63 in a SafeInt
 * size_t (Tensor::CalculateTensorStorageSize, IAllocator::CalcMemSizeForArrayWithAlignment<64>: "Calculation
 * for Tensor storage size overflowed" past 2^64 - 1), and the default CPU arena grows its region by doubling
 * a SafeInt size_t up to the request (BFCArena::Extend: "Integer overflow" past 2^63 bytes); so at most
 * 2^63 bytes, numel <= 2^63 / size: 2^61 float32 elements, 2^60 double. ConstantOfShape [n, 2^61] int16
 * at n = 2 (2^63 bytes) is an allocation failure (memory: not modelled), at n = 3 an overflow, as float32
 * [n, 2^61] at n = 2. bytes_fit checks it, with SafeInt's INT64_MAX count for 1-byte types.
 * The whole count of a tensor that is not empty is not guarded otherwise: past INT64_MAX elements it
 * needs 8 EiB and more, where no allocation succeeds, and memory is not modelled (a guard on every
 * layer that grows the count, conv1 of a CNN, would be a relation no Dim range expresses). */
static sy_status bytes_fit(ox_call *c, const sy_expr *P, int64_t L, int64_t es);
static const sy_expr *numel(ox_call *c, const sy_tensor *t);
/* the least non-zero |value| of a dim that may be 0: the gcd of its coefficients when it is a sum without a
 * constant term (Range(0, n*2^58)'s count 2^58*n: 2^58), else 1 (INT64_MAX: past it) */
static int64_t content(ox_call *c, const sy_expr *d)
{
    sy_expr_kind k = sy_expr_kind_of(d);
    if (k != SY_EXPR_ADD) return 1;
    sy_ctx *x = c->ctx;
    int64_t g = 0, v;
    const sy_expr *c0 = sy_expr_add_const(x, d);
    if (!c0 || sy_expr_get_si(c0, &v) != SY_OK || v != 0) {
        sy_ctx_reset_error(x);
        return 1;
    }
    for (size_t i = 0; i < sy_expr_nargs(d); i++) {
        const sy_expr *ci = sy_expr_add_coeff(x, d, i);
        if (!ci || sy_expr_get_si(ci, &v) != SY_OK || v == INT64_MIN) {
            sy_ctx_reset_error(x);
            return 1;
        }
        v = v < 0 ? -v : v;
        while (v) {
            int64_t t = g % v;
            g = v, v = t;
        }
    }
    return g >= 1 ? g : 1;
}
static sy_status require(ox_call *c, const sy_expr *rel, const char *fmt, ...);
static sy_status numel_fits(ox_call *c, size_t nd, const sy_expr *const *sz, int64_t es)
{
    int64_t p = 1, v;
    for (size_t j = 0; j < nd; j++)
        if (!sz[j]) return SY_OK; /* ox_tensor reports it */
    size_t i = 0;
    for (; i < nd && sy_expr_get_si(sz[i], &v) == SY_OK; i++) /* constant leading dims: SafeInt's own test */
        if (sy_i64_mul(p, v, &p))
            return ox_err(c, SY_EOVERFLOW, "the element count of output dims 0..%zu does not fit int64 (at any size)", i);
    sy_ctx_reset_error(c->ctx);
    if (i >= nd) return bytes_fit(c, K(c, p), p, es); /* all constant */
    if (!p) return SY_OK; /* a 0 before any symbol: the count stays 0 */
    const sy_expr *P = K(c, p);
    int64_t L = p, lo = 0, lo_next = size_lo(c, sz[i]); /* L: the least non-zero value of P */
    int64_t Lb = p; /* the same with a dim that may be 0 at its content (bytes_fit) */
    for (; i < nd; i++) {
        P = sy_expr_mul(c->ctx, P, sz[i]);
        CHK(P);
        lo = lo_next;
        if (sy_i64_mul(L, lo > 1 ? lo : 1, &L)) L = INT64_MAX;
        if (sy_i64_mul(Lb, lo >= 1 ? lo : content(c, sz[i]), &Lb)) Lb = INT64_MAX;
        lo_next = i + 1 < nd ? size_lo(c, sz[i + 1]) : 1;
        if (lo_next >= 1 && L < INT64_MAX) continue; /* at most the next product, or fits where non-zero */
        if (sy_expr_kind_of(P) == SY_EXPR_INT && sy_expr_get_si(P, &v) == SY_OK) continue;
        sy_ctx_reset_error(c->ctx);
        char what[64];
        snprintf(what, sizeof what, "the element count of output dims 0..%zu", i);
        sy_status st = sy_env_require_int64(c->env, P, what, &c->why);
        if (st == SY_EOVERFLOW) return ox_err(c, st, "%s = %s does not fit int64 (%s)", what, show_user(c, P), int64_when(c));
        if (st) return st;
    }
    return bytes_fit(c, P, Lb, es);
}

/* The bytes of an output of count P (its least non-zero value L under the facts, INT64_MAX when past it)
 * and es bytes an element: P * es <= 2^63 (numel_fits above), and P <= INT64_MAX. Required only where
 * the tensor is large at its least: L * es >= 2^32 (4 GiB; a model's layer is far below that at its least
 * size, so no model gets a guard on every layer; ConstantOfShape [n, 2^61] gets n <= 1 under the relaxed
 * policy, an error under the default one, where n >= 2); a constant count past it is an error. */
static sy_status bytes_fit(ox_call *c, const sy_expr *P, int64_t L, int64_t es)
{
    if (es < 1) return SY_OK;
    uint64_t lim = (UINT64_C(1) << 63) / (uint64_t)es;
    int64_t M = lim > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)lim;
    if (L < (INT64_C(1) << 32) / es) return SY_OK;
    int64_t v;
    CHK(P);
    /* a node input of this count and at least es bytes an element exists (an input of the graph, or checked
     * when made): Relu or Flatten of an input [n, 2^61, 2] */
    for (size_t q = 0; q < c->nin; q++)
        if (T(c, q) && (int64_t)ox_elem_size(c->in[q]->elem) >= es && numel(c, T(c, q)) == P) return SY_OK;
    if (sy_expr_get_si(P, &v) == SY_OK) {
        if (v <= M) return SY_OK;
        return ox_err(c, SY_EOVERFLOW, "the output's bytes, %lld elements of %lld bytes, are past 2^63 "
                      "(onnxruntime's size overflow, at any size)", (long long)v, (long long)es);
    }
    sy_ctx_reset_error(c->ctx);
    return require(c, sy_expr_le(c->ctx, P, K(c, M)),
                   "the output's bytes, numel * %lld, must be at most 2^63 (onnxruntime's size overflow)", (long long)es);
}

static sy_status set_out(ox_call *c, size_t k, int elem, size_t nd, const sy_expr *const *sz)
{
    if (k >= c->nout) return SY_OK;
    if (nd > MAXR) return ox_err(c, SY_EUNSUPPORTED, "output rank %zu exceeds %d", nd, MAXR);
    for (size_t i = 0; i < nd; i++) TRY(fits_int64(c, sz[i], "output dim", i));
    for (size_t i = 0; i < nd; i++) { /* a dim is an int64: sy_env_require_int64, the torch frontend's rule too */
        if (!sz[i] || sy_expr_kind_of(sz[i]) == SY_EXPR_INT) continue;
        char what[48];
        snprintf(what, sizeof what, "output dim %zu", i);
        sy_status st = sy_env_require_int64(c->env, sz[i], what, &c->why);
        if (st == SY_EOVERFLOW) return ox_err(c, st, "%s = %s does not fit int64 (%s)", what, show_user(c, sz[i]), int64_when(c));
        if (st) return st;
    }
    /* ONNX tensors have no layout (no strides): not modelled, so no stride products are built */
    int made;
    const sy_tensor *t = ox_tensor_made(c->tr, ox_dtype(elem), nd, sz, &made);
    CHK(t);
    /* a shape the trace has seen was checked when it was new (facts only grow), or is an input's or an
     * initializer's (constant dims, or an input: it exists) */
    /* the element size of the widest ONNX type of this dtype (uint32 shares int64's tensors, uint16 int32's:
     * the first one's check holds for both) */
    if (made) TRY(numel_fits(c, nd, sz, (int64_t)ox_elem_size(elem == OX_UINT32 ? OX_INT64 : elem == OX_UINT16 ? OX_INT32 : elem)));
    c->out[k].elem = elem;
    c->out[k].t = t;
    return SY_OK;
}
static sy_status same_as(ox_call *c, size_t k, size_t from)
{
    const sy_tensor *t = T(c, from);
    return set_out(c, k, c->in[from]->elem, t->ndim, t->sizes);
}

/* rel's truth at the example, recorded as a guard (limit: a limit of symshape's own formula, not
 * of the model: its guard is marked so by sy_env_evaluate_limit, and the dynamic-dim spec check
 * does not report it) */
static sy_status eval_truth(ox_call *c, const sy_expr *rel, const char *reason, int limit, int *out)
{
    CHK(rel);
    sy_provenance w = c->why;
    w.reason = reason;
    const sy_expr *v;
    TRY(limit ? sy_env_evaluate_limit(c->env, rel, &w, &v) : sy_env_evaluate_expr(c->env, rel, &w, &v));
    *out = sy_expr_kind_of(v) == SY_EXPR_TRUE;
    return SY_OK;
}

static sy_status truth(ox_call *c, const sy_expr *rel, const char *reason, int *out)
{
    return eval_truth(c, rel, reason, 0, out);
}

static sy_status limit_truth(ox_call *c, const sy_expr *rel, const char *reason, int *out)
{
    return eval_truth(c, rel, reason, 1, out);
}

static sy_status require(ox_call *c, const sy_expr *rel, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static sy_status require(ox_call *c, const sy_expr *rel, const char *fmt, ...)
{
    CHK(rel);
    if (sy_expr_kind_of(rel) == SY_EXPR_TRUE) return SY_OK; /* decided by construction: no guard, no message */
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    sy_provenance w = c->why;
    w.reason = reason;
    return sy_env_require(c->env, rel, &w);
}

/* show() of e with the user's dim names (dim_param or INPUT_dK, sy_onnx_trace_display) in place of
 * the env's symbols s0, s1, ...: for error messages (issue 38) */
static const char *show_user(ox_call *c, const sy_expr *e)
{
    const sy_expr *d = e ? sy_onnx_trace_display(c->tr, e) : NULL;
    if (!d) {
        sy_ctx_reset_error(c->ctx);
        d = e;
    }
    return show(c, d);
}

static const char *show(ox_call *c, const sy_expr *e)
{
    /* per thread: a message holds up to 4 at once; shared by every thread
     * (and its own context) before issue 38 */
    static _Thread_local char buf[4][256];
    static _Thread_local int k;
    char *s = sy_expr_print(c->ctx, e, SY_PRINT_CANONICAL);
    char *b = buf[k++ & 3];
    snprintf(b, 256, "%s", s ? s : "?");
    sy_str_free(c->ctx, s);
    return b;
}

/* the concrete value of an integer expression: a guard when symbolic */
static sy_status concrete(ox_call *c, const sy_expr *e, const char *what, int64_t *out)
{
    CHK(e);
    if (sy_expr_get_si(e, out) == SY_OK) return SY_OK;
    sy_ctx_reset_error(c->ctx);
    sy_provenance w = c->why;
    w.reason = what;
    const sy_expr *v;
    TRY(sy_env_evaluate_expr(c->env, e, &w, &v));
    if (sy_expr_get_si(v, out) != SY_OK) return ox_err(c, SY_EOVERFLOW, "%s does not fit int64", what);
    return SY_OK;
}

/* e's value when e is an integer constant that fits int64. Reshape and Gather decide their
 * comparisons of constants in checked int64 before building relations, which the algebra would fold to
 * true or false (no guard, no requirement either way) at ~500 instructions a relation; an overflow or a
 * comparison that fails takes the general path, so errors and guards are the same (callgrind, the
 * reduced vit_b16's constant shape vectors: 1.56M -> 1.46M instructions a run) */
static int ival(const sy_expr *e, int64_t *v)
{
    return e && sy_expr_kind_of(e) == SY_EXPR_INT && sy_expr_get_si(e, v) == SY_OK;
}

static sy_status norm_axis(ox_call *c, int64_t a, size_t rank, size_t *out)
{
    *out = 0;
    if (a < -(int64_t)rank || a >= (int64_t)rank)
        return ox_err(c, SY_EINVAL, "axis %lld is out of range for rank %zu", (long long)a, rank);
    *out = (size_t)(a < 0 ? a + (int64_t)rank : a);
    return SY_OK;
}

static const sy_expr *numel(ox_call *c, const sy_tensor *t) { return sy_expr_mul_n(c->ctx, t->ndim, t->sizes); }

/* element values of input k (NULL when unknown); n receives their count */
static const sy_expr **vals(ox_call *c, size_t k, size_t *n)
{
    if (!has(c, k)) return NULL;
    ox_val *v = c->in[k];
    if (ox_kv(v) && ox_materialize(c->tr, v)) return NULL;
    if (v->iv) {
        *n = v->nv;
        return v->iv;
    }
    if (v->fv) { /* integral float constants act as integers */
        const sy_expr **iv = ox_alloc(c, (v->nv ? v->nv : 1) * sizeof *iv);
        if (!iv) return NULL;
        for (size_t i = 0; i < v->nv; i++) {
            if (!(v->fv[i] == floor(v->fv[i])) || fabs(v->fv[i]) > 9e15) return NULL;
            iv[i] = K(c, (int64_t)v->fv[i]);
        }
        *n = v->nv;
        return iv;
    }
    return NULL;
}

/* constant integer list of input k (a guard specializes symbolic entries) */
static sy_status const_ints(ox_call *c, size_t k, const char *what, size_t *n, int64_t **out)
{
    size_t m = 0;
    const sy_expr **v = vals(c, k, &m);
    if (!v)
        return ox_err(c, SY_EUNSUPPORTED, "the values of input %zu '%s' (%s) are not known: they depend on tensor data", k,
                      c->node->input[k], what);
    int64_t *r = ox_alloc(c, (m ? m : 1) * sizeof *r);
    CHK(r);
    for (size_t i = 0; i < m; i++) {
        if (sy_expr_is_bool(v[i])) {
            r[i] = sy_expr_kind_of(v[i]) == SY_EXPR_TRUE;
            continue;
        }
        TRY(concrete(c, v[i], what, &r[i]));
    }
    *n = m;
    *out = r;
    return SY_OK;
}

/* ints from attribute @p attr or, when absent, input @p k (opset changes) */
static sy_status ints_attr_or_input(ox_call *c, const char *attr, size_t k, const char *what, int *present, size_t *n,
                                    int64_t **out)
{
    size_t m;
    const int64_t *a;
    TRY(ox_attr_ints(c, attr, &m, &a));
    if (ox_attr(c, attr)) {
        int64_t *r = ox_alloc(c, (m ? m : 1) * sizeof *r);
        CHK(r);
        if (m) memcpy(r, a, m * sizeof *r);
        *present = 1;
        *n = m;
        *out = r;
        return SY_OK;
    }
    if (has(c, k)) {
        *present = 1;
        return const_ints(c, k, what, n, out);
    }
    *present = 0;
    *n = 0;
    *out = NULL;
    return SY_OK;
}

static sy_status set_vals(ox_call *c, size_t k, size_t n, const sy_expr **iv)
{
    if (k >= c->nout || !iv || n > SY_ONNX_MAX_VALUES) return SY_OK;
    for (size_t i = 0; i < n; i++) {
        CHK(iv[i]);
        TRY(fits_int64(c, iv[i], "element", i));
    }
    for (size_t i = 0; i < n; i++) { /* after the constants: their message names the value */
        if (sy_expr_is_bool(iv[i]) || sy_expr_kind_of(iv[i]) == SY_EXPR_INT || sy_expr_kind_of(iv[i]) == SY_EXPR_SYM) continue;
        /* a symbolic element past int64 at every size (sy_env_require_int64's rule, as for dims) */
        char what[48];
        snprintf(what, sizeof what, "element %zu", i);
        sy_status st = sy_env_require_int64(c->env, iv[i], what, &c->why);
        if (st == SY_EOVERFLOW) return ox_err(c, st, "%s = %s does not fit int64 (%s)", what, show_user(c, iv[i]), int64_when(c));
        if (st) return st;
    }
    c->out[k].iv = iv;
    c->out[k].nv = n;
    return SY_OK;
}

static sy_status unbacked_dims(ox_call *c, size_t n, const sy_expr **dims, const char *what)
{
    for (size_t i = 0; i < n; i++) {
        char src[300];
        snprintf(src, sizeof src, "%s of node %s (dim %zu)", what, c->nname, i);
        dims[i] = sy_env_create_unbacked(c->env, 1, src);
        CHK(dims[i]);
    }
    return SY_OK;
}

/* ------------------------------------------------------------------ broadcasting */

/* Numpy multidirectional broadcasting (onnx/docs/Broadcasting.md): per dim, equal
 * dims stay, a dim 1 stretches; the rule the torch frontend uses too
 * (shapeenv/rules.c sy_rule_bcast_dim: the same questions in the same order). */
typedef struct {
    ox_call *c;
    const sy_expr *a, *b;
    char msg[600];
} bcast_arg;

static const char *bcast_reason(void *arg, int which)
{
    (void)which;
    bcast_arg *x = arg;
    snprintf(x->msg, sizeof x->msg, "cannot broadcast dims %s and %s", show_user(x->c, x->a), show_user(x->c, x->b));
    return x->msg;
}

static sy_status bcast_dim(ox_call *c, const sy_expr *a, const sy_expr *b, const sy_expr **out)
{
    bcast_arg ba = {c, a, b, ""};
    sy_status st = sy_rule_bcast_dim(c->env, &c->why, a, b, bcast_reason, &ba, out);
    if (st == SY_EINVAL && ba.msg[0] && !strcmp(sy_ctx_last_error_msg(c->ctx), ba.msg)) return ox_err(c, st, "%s", ba.msg);
    if (st) return st;
    if (!*out) return ox_err(c, SY_EINVAL, "%s", bcast_reason(&ba, 0));
    return SY_OK;
}

static sy_status bcast_shapes(ox_call *c, size_t n, const sy_tensor *const *ts, size_t *ndo, const sy_expr **out)
{
    size_t r = 0;
    for (size_t i = 0; i < n; i++)
        if (ts[i] && ts[i]->ndim > r) r = ts[i]->ndim;
    if (r > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank %zu exceeds %d", r, MAXR);
    for (size_t d = 0; d < r; d++) out[d] = K(c, 1);
    for (size_t i = 0; i < n; i++) {
        if (!ts[i]) continue;
        size_t off = r - ts[i]->ndim;
        for (size_t d = 0; d < ts[i]->ndim; d++) TRY(bcast_dim(c, out[off + d], ts[i]->sizes[d], &out[off + d]));
    }
    *ndo = r;
    return SY_OK;
}

/* element index of a broadcast operand for output element i (constant shapes) */
static int const_shape(const sy_tensor *t, int64_t *d)
{
    for (size_t i = 0; i < t->ndim; i++)
        if (sy_expr_get_si(t->sizes[i], &d[i]) != SY_OK) return 0;
    return 1;
}
static size_t src_index(size_t i, size_t r, const int64_t *od, const sy_tensor *t, const int64_t *td)
{
    size_t idx = 0, stride = 1;
    size_t off = r - t->ndim;
    for (size_t k = r; k-- > 0;) {
        size_t coord = i % (size_t)od[k];
        i /= (size_t)od[k];
        if (k >= off) {
            size_t tk = k - off;
            if (td[tk] != 1) idx += coord * stride;
            stride *= (size_t)td[tk];
        }
    }
    return idx;
}

/* The element values of input `from` (its iv, or its fv) as the values of output k, rearranged: output
 * element i is input element src[i] (a row-major index below the input's value count). Transpose,
 * Slice, Gather and Concat of small tensors of any rank move values this way. */
static sy_status pick_vals(ox_call *c, size_t k, const ox_val *in, size_t n, const size_t *src)
{
    if (k >= c->nout || n > SY_ONNX_MAX_VALUES) return SY_OK;
    for (size_t i = 0; i < n; i++)
        if (src[i] >= in->nv) return SY_OK;
    if (in->iv) {
        const sy_expr **r = ox_alloc(c, (n ? n : 1) * sizeof *r);
        CHK(r);
        for (size_t i = 0; i < n; i++) r[i] = in->iv[src[i]];
        return set_vals(c, k, n, r);
    }
    if (in->fv) {
        double *r = ox_alloc(c, (n ? n : 1) * sizeof *r);
        CHK(r);
        for (size_t i = 0; i < n; i++) r[i] = in->fv[src[i]];
        c->out[k].fv = r;
        c->out[k].nv = (uint16_t)n;
    }
    return SY_OK;
}

/* the constant dims d of a tensor that holds values (all of its nv elements), with their
 * row-major strides st; 0 when a dim is symbolic or the count differs */
static int held_shape(const ox_val *v, int64_t *d, size_t *st)
{
    if (!v || !(v->iv || v->fv) || v->t->ndim > MAXR || !const_shape(v->t, d)) return 0;
    size_t n = 1;
    for (size_t i = v->t->ndim; i-- > 0;) {
        if (d[i] < 0 || (d[i] && n > SY_ONNX_MAX_VALUES / (size_t)d[i])) return 0;
        st[i] = n;
        n *= (size_t)d[i];
    }
    return n == v->nv;
}

typedef const sy_expr *(*elt_fn)(ox_call *c, const sy_expr *const *x, int *unknown);

/* values of an elementwise op over broadcast inputs 0..n-1 */
static sy_status elt_values(ox_call *c, size_t n, size_t ndo, const sy_expr *const *out_dims, elt_fn fn)
{
    int64_t od[MAXR], td[8][MAXR];
    const sy_expr **iv[8];
    size_t nv[8];
    if (n > 8) return SY_OK;
    for (size_t d = 0; d < ndo; d++)
        if (sy_expr_get_si(out_dims[d], &od[d]) != SY_OK) {
            sy_ctx_reset_error(c->ctx);
            return SY_OK;
        }
    size_t total = 1;
    for (size_t d = 0; d < ndo; d++) {
        if (od[d] && total > SY_ONNX_MAX_VALUES / (size_t)od[d]) return SY_OK; /* too many (and the product could wrap) */
        total *= (size_t)od[d];
    }
    for (size_t k = 0; k < n; k++) {
        if (!has(c, k)) continue;
        if (!(iv[k] = (const sy_expr **)vals(c, k, &nv[k])) || !const_shape(T(c, k), td[k])) return SY_OK;
    }
    const sy_expr **r = ox_alloc(c, (total ? total : 1) * sizeof *r);
    CHK(r);
    for (size_t i = 0; i < total; i++) {
        const sy_expr *x[8] = {0};
        for (size_t k = 0; k < n; k++)
            if (has(c, k)) x[k] = iv[k][src_index(i, ndo, od, T(c, k), td[k])];
        int unknown = 0;
        r[i] = fn(c, x, &unknown);
        if (unknown) return SY_OK;
        if (!r[i]) return lasterr(c);
    }
    return set_vals(c, 0, total, r);
}

static int is_b(const sy_expr *e) { return e && sy_expr_is_bool(e); }
static const sy_expr *f_add(ox_call *c, const sy_expr *const *x, int *u)
{
    if (is_b(x[0]) || is_b(x[1])) return *u = 1, NULL;
    return sy_expr_add(c->ctx, x[0], x[1]);
}
static const sy_expr *f_sub(ox_call *c, const sy_expr *const *x, int *u)
{
    if (is_b(x[0]) || is_b(x[1])) return *u = 1, NULL;
    return sy_expr_sub(c->ctx, x[0], x[1]);
}
static const sy_expr *f_mul(ox_call *c, const sy_expr *const *x, int *u)
{
    if (is_b(x[0]) || is_b(x[1])) return *u = 1, NULL;
    return sy_expr_mul(c->ctx, x[0], x[1]);
}
/* integer Div truncates toward zero (the C semantics runtimes implement;
 * Operators.md Div-14 leaves integer rounding to numpy's, which for the
 * non-negative sizes of shape arithmetic is floor): FloorDiv when the
 * operands are non-negative / positive, guarded on their signs otherwise */
static const sy_expr *f_div(ox_call *c, const sy_expr *const *x, int *u)
{
    if (is_b(x[0]) || is_b(x[1]) || !ox_is_int(c->in[0]->elem)) return *u = 1, NULL;
    int an, bp;
    if (x[1] == K(c, 0)) return ox_err(c, SY_EINVAL, "integer division by zero"), NULL; /* the runtime fails */
    if (truth(c, sy_expr_ge(c->ctx, x[0], K(c, 0)), "Div: sign of the dividend", &an)) return NULL;
    if (truth(c, sy_expr_gt(c->ctx, x[1], K(c, 0)), "Div: sign of the divisor", &bp)) return NULL;
    const sy_expr *a = an ? x[0] : sy_expr_neg(c->ctx, x[0]), *b = bp ? x[1] : sy_expr_neg(c->ctx, x[1]);
    if (!bp && require(c, sy_expr_ne(c->ctx, x[1], K(c, 0)), "Div: division by zero")) return NULL;
    const sy_expr *q = sy_expr_floordiv(c->ctx, a, b);
    return an == bp ? q : sy_expr_neg(c->ctx, q);
}
static const sy_expr *f_mod(ox_call *c, const sy_expr *const *x, int *u)
{
    int64_t fm = 0;
    if (is_b(x[0]) || is_b(x[1]) || ox_attr_int(c, "fmod", 0, &fm) || !ox_is_int(c->in[0]->elem)) return *u = 1, NULL;
    if (x[1] == K(c, 0)) return ox_err(c, SY_EINVAL, "integer Mod by zero"), NULL; /* the runtime fails */
    if (!fm) return sy_expr_mod(c->ctx, x[0], x[1]); /* Mod-13 fmod=0: sign of the divisor, as Python */
    int an;
    if (truth(c, sy_expr_ge(c->ctx, x[0], K(c, 0)), "Mod: sign of the dividend", &an)) return NULL;
    const sy_expr *a = an ? x[0] : sy_expr_neg(c->ctx, x[0]), *b = x[1];
    int bp;
    if (truth(c, sy_expr_gt(c->ctx, b, K(c, 0)), "Mod: sign of the divisor", &bp)) return NULL;
    if (!bp) b = sy_expr_neg(c->ctx, b);
    const sy_expr *r = sy_expr_mod(c->ctx, a, b);
    return an ? r : sy_expr_neg(c->ctx, r);
}
static const sy_expr *f_max(ox_call *c, const sy_expr *const *x, int *u)
{
    const sy_expr *r = x[0];
    for (size_t k = 1; k < c->nin; k++) {
        if (is_b(x[k]) || is_b(r)) return *u = 1, NULL;
        r = sy_expr_max(c->ctx, r, x[k]);
    }
    return r;
}
static const sy_expr *f_min(ox_call *c, const sy_expr *const *x, int *u)
{
    const sy_expr *r = x[0];
    for (size_t k = 1; k < c->nin; k++) {
        if (is_b(x[k]) || is_b(r)) return *u = 1, NULL;
        r = sy_expr_min(c->ctx, r, x[k]);
    }
    return r;
}
static const sy_expr *f_sum(ox_call *c, const sy_expr *const *x, int *u)
{
    const sy_expr *r = x[0];
    for (size_t k = 1; k < c->nin; k++) {
        if (is_b(x[k]) || is_b(r)) return *u = 1, NULL;
        r = sy_expr_add(c->ctx, r, x[k]);
    }
    return r;
}
static const sy_expr *f_pow(ox_call *c, const sy_expr *const *x, int *u)
{
    int64_t e;
    if (is_b(x[0]) || sy_expr_get_si(x[1], &e) != SY_OK || e < 0 || e > 64) return *u = 1, NULL;
    const sy_expr *r = sy_expr_pow_ui(c->ctx, x[0], (uint64_t)e);
    /* a symbolic power grows past int64 quickly (n**64 at n = 2): the value must fit */
    if (r && e >= 2 && !sy_expr_is_int(r) && require(c, sy_expr_le(c->ctx, r, K(c, INT64_MAX)), "Pow: the int64 value must not overflow"))
        return NULL;
    return r;
}
static const sy_expr *rel_or_bool(ox_call *c, sy_rel_op op, const sy_expr *a, const sy_expr *b, int *u)
{
    if (is_b(a) || is_b(b)) {
        if (op != SY_REL_EQ || !is_b(a) || !is_b(b)) return *u = 1, NULL;
        /* a == b for booleans: (a and b) or (not a and not b) */
        return sy_expr_or(c->ctx, sy_expr_and(c->ctx, a, b), sy_expr_and(c->ctx, sy_expr_not(c->ctx, a), sy_expr_not(c->ctx, b)));
    }
    return sy_expr_rel(c->ctx, op, a, b);
}
static const sy_expr *f_eq(ox_call *c, const sy_expr *const *x, int *u) { return rel_or_bool(c, SY_REL_EQ, x[0], x[1], u); }
static const sy_expr *f_lt(ox_call *c, const sy_expr *const *x, int *u) { return rel_or_bool(c, SY_REL_LT, x[0], x[1], u); }
static const sy_expr *f_le(ox_call *c, const sy_expr *const *x, int *u) { return rel_or_bool(c, SY_REL_LE, x[0], x[1], u); }
static const sy_expr *f_gt(ox_call *c, const sy_expr *const *x, int *u) { return rel_or_bool(c, SY_REL_GT, x[0], x[1], u); }
static const sy_expr *f_ge(ox_call *c, const sy_expr *const *x, int *u) { return rel_or_bool(c, SY_REL_GE, x[0], x[1], u); }
static const sy_expr *f_and(ox_call *c, const sy_expr *const *x, int *u)
{
    if (!is_b(x[0]) || !is_b(x[1])) return *u = 1, NULL;
    return sy_expr_and(c->ctx, x[0], x[1]);
}
static const sy_expr *f_or(ox_call *c, const sy_expr *const *x, int *u)
{
    if (!is_b(x[0]) || !is_b(x[1])) return *u = 1, NULL;
    return sy_expr_or(c->ctx, x[0], x[1]);
}
static const sy_expr *f_xor(ox_call *c, const sy_expr *const *x, int *u)
{
    if (!is_b(x[0]) || !is_b(x[1])) return *u = 1, NULL;
    return sy_expr_or(c->ctx, sy_expr_and(c->ctx, x[0], sy_expr_not(c->ctx, x[1])),
                      sy_expr_and(c->ctx, sy_expr_not(c->ctx, x[0]), x[1]));
}
/* Where-16: the condition of each element is decided (a guard when it depends on sizes) */
static const sy_expr *f_where(ox_call *c, const sy_expr *const *x, int *u)
{
    if (!is_b(x[0])) return *u = 1, NULL;
    int t;
    if (truth(c, x[0], "Where: condition", &t)) return NULL;
    return t ? x[1] : x[2];
}

static sy_status elementwise(ox_call *c, int out_elem, elt_fn fn)
{
    const sy_tensor *ts[16];
    size_t n = c->nin < 16 ? c->nin : 16;
    for (size_t k = 0; k < n; k++) ts[k] = T(c, k);
    const sy_expr *od[MAXR];
    size_t r;
    TRY(bcast_shapes(c, n, ts, &r, od));
    TRY(set_out(c, 0, out_elem, r, od));
    if (fn) TRY(elt_values(c, n, r, od, fn));
    return SY_OK;
}

static int first_elem(ox_call *c)
{
    for (size_t k = 0; k < c->nin; k++)
        if (c->in[k]) return c->in[k]->elem;
    return OX_FLOAT;
}

/* Add-14, Sub-14, Mul-14, Div-14, Pow-15, Mod-13, PRelu-16, BitShift-11, Max-13, Min-13, Sum-13, Mean-13 */
/* Element bounds through an op with one held integer scalar v (Add, Sub, Mul, Div, Min, Max: position ids
 * Range(0, n) + offset, strided ids r * 2, r / 2, clamps), input k holding bounds lo..hi. Each map is monotone,
 * so tight bounds stay tight (the elements at lo and hi map to the new ends): x + v, x - v, v - x; x * v by
 * v's sign under the facts; x / v for a constant v != 0 (ONNX's integer Div truncates toward zero, C's /:
 * onnxruntime element_wise_ops.cc Div<int64_t> is `a / b`; trunc(x / d) for d > 0 is
 * FloorDiv(Max(x, 0), d) - FloorDiv(Max(-x, 0), d), non-decreasing; for d < 0 it is -trunc(x / -d), the ends
 * swapped: Range(0, n) / -2 holds 0..-FloorDiv(n - 1, 2); kept no bounds, so no check, where lo < 0 or v < 0);
 * Min(x, v), Max(x, v). Any other case keeps no bounds (indices then unknown, as data). */
/* trunc(a / d) for a constant d > 0 (C's integer division), as an expression */
static const sy_expr *trunc_div(sy_ctx *x, const sy_expr *a, const sy_expr *d)
{
    const sy_expr *z = sy_expr_int_si(x, 0);
    return sy_expr_sub(x, sy_expr_floordiv(x, sy_expr_max(x, a, z), d), sy_expr_floordiv(x, sy_expr_max(x, sy_expr_neg(x, a), z), d));
}
static sy_status scalar_bounds(ox_call *c)
{
    const char *op = c->node->op_type; /* Add, Sub, Mul, Div, Max or Min (arith) */
    if (!c->nout || c->out[0].iv || !ox_is_int(c->out[0].elem) || c->nin != 2) return SY_OK;
    sy_ctx *x = c->ctx;
    for (size_t k = 0; k < 2; k++) {
        size_t n;
        const sy_expr **v;
        if (!ox_eb(c->in[k])) continue;
        if (!has(c, 1 - k) || !(v = vals(c, 1 - k, &n)) || n != 1 || is_b(v[0])) continue;
        const sy_expr *const *eb = ox_eb(c->in[k]), *s = v[0];
        int loose = c->in[k]->has_eb == 2;
        const sy_expr *const *a = ox_aff(c->in[k]);
        size_t nd = c->in[k]->t->ndim;
        /* an affine input stays affine through + s, - s, s - x and * s (same shape: the scalar broadcasts
         * into it) */
        if (a && c->out[0].t && c->out[0].t->ndim == nd && (op[0] == 'A' || op[0] == 'S' || !strcmp(op, "Mul"))) {
            const sy_expr *co[MAXR], *b;
            int neg = op[0] == 'S' && k == 1;
            for (size_t j = 0; j < nd; j++)
                CHK(co[j] = op[0] == 'M' ? sy_expr_mul(x, a[1 + j], s) : neg ? sy_expr_neg(x, a[1 + j]) : a[1 + j]);
            b = op[0] == 'M' ? sy_expr_mul(x, a[0], s) : op[0] == 'A' ? sy_expr_add(x, a[0], s)
                : neg ? sy_expr_sub(x, s, a[0]) : sy_expr_sub(x, a[0], s);
            return set_aff(c, 0, b, co);
        }
        switch (op[0]) {
        case 'A': return set_bounds(c, 0, sy_expr_add(x, eb[0], s), sy_expr_add(x, eb[1], s), loose);
        case 'S':
            if (k == 0) return set_bounds(c, 0, sy_expr_sub(x, eb[0], s), sy_expr_sub(x, eb[1], s), loose);
            return set_bounds(c, 0, sy_expr_sub(x, s, eb[1]), sy_expr_sub(x, s, eb[0]), loose);
        case 'M':
            if (op[1] == 'i') return set_bounds(c, 0, sy_expr_min(x, eb[0], s), sy_expr_min(x, eb[1], s), loose);
            if (op[1] == 'a') return set_bounds(c, 0, sy_expr_max(x, eb[0], s), sy_expr_max(x, eb[1], s), loose);
            {
                const sy_expr *slo = NULL, *shi = NULL;
                int64_t b;
                if (sy_env_bound(c->env, s, &slo, &shi) != SY_OK) { /* a symbol of s relied upon when bounded */
                    sy_ctx_reset_error(x);
                    return SY_OK;
                }
                if (slo && sy_expr_get_si(slo, &b) == SY_OK && b >= 0)
                    return set_bounds(c, 0, sy_expr_mul(x, eb[0], s), sy_expr_mul(x, eb[1], s), loose);
                if (shi && sy_expr_get_si(shi, &b) == SY_OK && b <= 0)
                    return set_bounds(c, 0, sy_expr_mul(x, eb[1], s), sy_expr_mul(x, eb[0], s), loose);
                sy_ctx_reset_error(x);
                return SY_OK;
            }
        case 'D': {
            int64_t d;
            if (k != 0 || sy_expr_get_si(s, &d) != SY_OK || d == 0 || d == INT64_MIN) break;
            if (d > 0) return set_bounds(c, 0, trunc_div(x, eb[0], s), trunc_div(x, eb[1], s), loose);
            const sy_expr *m = K(c, -d);
            return set_bounds(c, 0, sy_expr_neg(x, trunc_div(x, eb[1], m)), sy_expr_neg(x, trunc_div(x, eb[0], m)), loose);
        }
        default: break;
        }
        sy_ctx_reset_error(x);
        return SY_OK;
    }
    return SY_OK;
}
/* Add, Sub, Mul, Div, Max, Min: broadcast values, then the element bounds of a tensor and a scalar */
static sy_status arith(ox_call *c, elt_fn fn)
{
    TRY(elementwise(c, first_elem(c), fn));
    return scalar_bounds(c);
}
static sy_status op_add(ox_call *c) { return arith(c, f_add); }
static sy_status op_sub(ox_call *c) { return arith(c, f_sub); }
static sy_status op_mul(ox_call *c) { return arith(c, f_mul); }
static sy_status op_div(ox_call *c) { return arith(c, f_div); }
static sy_status op_mod(ox_call *c) { return elementwise(c, first_elem(c), f_mod); }
static sy_status op_pow(ox_call *c) { return elementwise(c, first_elem(c), f_pow); }
static sy_status op_max(ox_call *c) { return arith(c, f_max); }
static sy_status op_min(ox_call *c) { return arith(c, f_min); }
static sy_status op_sum(ox_call *c) { return elementwise(c, first_elem(c), f_sum); }
static sy_status op_bcast(ox_call *c) { return elementwise(c, first_elem(c), NULL); }
/* Equal-13, Less-13, LessOrEqual-16, Greater-13, GreaterOrEqual-16, And/Or/Xor-7: bool outputs */
static sy_status op_equal(ox_call *c) { return elementwise(c, OX_BOOL, f_eq); }
static sy_status op_less(ox_call *c) { return elementwise(c, OX_BOOL, f_lt); }
static sy_status op_lesseq(ox_call *c) { return elementwise(c, OX_BOOL, f_le); }
static sy_status op_greater(ox_call *c) { return elementwise(c, OX_BOOL, f_gt); }
static sy_status op_greatereq(ox_call *c) { return elementwise(c, OX_BOOL, f_ge); }
static sy_status op_and(ox_call *c) { return elementwise(c, OX_BOOL, f_and); }
static sy_status op_or(ox_call *c) { return elementwise(c, OX_BOOL, f_or); }
static sy_status op_xor(ox_call *c) { return elementwise(c, OX_BOOL, f_xor); }
static sy_status op_bool_bcast(ox_call *c) { return elementwise(c, OX_BOOL, NULL); }
/* Where-16: cond, X, Y broadcast together; the output type is X's. Integer values not held (a Range's
 * elements, cond computed from them) get the union of X's and Y's element bounds, Min(lo_X, lo_Y) ..
 * Max(hi_X, hi_Y): every element is one of X's or Y's (an empty X or Y makes the output empty), so
 * the union holds them all though it may not be attained, and Gather & co. require it as a Slice's
 * superset bounds (verify47n: Gather(x, Where(Less(-Range(m, 7), -1), -Range(m, 7), 0)) on m columns
 * was accepted at m = 5, where the index -6 makes onnxruntime fail: without bounds, the indices were
 * the runtime's check, as data's). Loose (a subset's) on either side: loose, as Gather's. Where either
 * side has no bounds (data), neither has the output */
static sy_status op_where(ox_call *c)
{
    TRY(elementwise(c, c->in[1]->elem, f_where));
    if (!c->nout || c->out[0].iv || c->out[0].u.kv || !ox_is_int(c->out[0].elem)) return SY_OK;
    const sy_expr *lx, *hx, *ly, *hy;
    if (!elem_bounds(c, 1, &lx, &hx) || !elem_bounds(c, 2, &ly, &hy)) return SY_OK;
    int loose = (c->in[1]->has_eb == 2 && ox_eb(c->in[1])) || (c->in[2]->has_eb == 2 && ox_eb(c->in[2]));
    return set_bounds(c, 0, sy_expr_min(c->ctx, lx, ly), sy_expr_max(c->ctx, hx, hy), loose);
}

/* unary ops keeping the shape; values pass through the listed ones */
static sy_status op_unary(ox_call *c) { return same_as(c, 0, 0); }

/* LRN-13: the input's shape. onnxruntime 1.32 lrn.h refuses the model when it makes the kernel
 * unless size is an odd int > 0, alpha > 0 and beta > 0 (attack38g: symshape took
 * sizes -1, 0, 2^62 and INT64_MAX; onnxruntime refused or failed at every input size) */
static sy_status op_lrn(ox_call *c)
{
    int64_t size;
    double alpha, beta;
    TRY(ox_attr_int(c, "size", 0, &size));
    TRY(ox_attr_float(c, "alpha", 0.0001, &alpha));
    TRY(ox_attr_float(c, "beta", 0.75, &beta));
    if (size <= 0 || size > INT32_MAX || size % 2 != 1) /* 2^32 + 3 is refused too: an int, not its low bits */
        return ox_err(c, SY_EINVAL, "size %lld: onnxruntime needs an odd size in [1, 2^31 - 1]", (long long)size);
    if (!((float)alpha > 0.0f) || !((float)beta > 0.0f))
        return ox_err(c, SY_EINVAL, "alpha %g, beta %g: onnxruntime needs both > 0", alpha, beta);
    /* lrn.cc Compute: ORT_ENFORCE(X->Shape().NumDimensions() == 4) -- the spec allows N x C x D1..Dk,
     * onnxruntime 1.32 fails at every size of another rank (verify38: 240 of 240 points) */
    if (T(c, 0)->ndim != 4)
        return ox_err(c, SY_EINVAL, "input of rank %zu: onnxruntime's LRN kernel needs a 4-D input (N, C, H, W)", T(c, 0)->ndim);
    return same_as(c, 0, 0);
}
/* EyeLike-9: shape of X, element type the dtype attribute's when given (else X's): the output's type
 * is what the next node's type constraints are checked against (onnx_types.c) */
static sy_status op_eyelike(ox_call *c)
{
    int64_t dt;
    TRY(ox_attr_int(c, "dtype", c->in[0]->elem, &dt));
    if (dt < 1 || dt > 16) return ox_err(c, SY_EUNSUPPORTED, "dtype %lld is not an element type symshape supports (1 .. 16)", (long long)dt);
    const sy_tensor *t = T(c, 0);
    return set_out(c, 0, (int)dt, t->ndim, t->sizes);
}
/* CumSum-14: shape of X; the axis (a 0-D tensor) must be in [-rank, rank) (Operators.md CumSum,
 * onnxruntime cumsum.cc GetAxis: "Axis should be in the range [-r, r-1]") */
static sy_status op_cumsum(ox_call *c)
{
    size_t n, ax;
    const sy_expr **v = vals(c, 1, &n);
    int64_t a;
    if (v && n == 1 && sy_expr_get_si(v[0], &a) == SY_OK) TRY(norm_axis(c, a, T(c, 0)->ndim, &ax));
    return same_as(c, 0, 0);
}
static sy_status op_identity(ox_call *c)
{
    TRY(same_as(c, 0, 0));
    c->out[0].iv = c->in[0]->iv;
    c->out[0].fv = c->in[0]->fv;
    c->out[0].nv = c->in[0]->nv;
    return SY_OK;
}
static sy_status unary_vals(ox_call *c, const sy_expr *(*f)(ox_call *, const sy_expr *))
{
    TRY(same_as(c, 0, 0));
    size_t n;
    const sy_expr **v = vals(c, 0, &n);
    if (!v) return SY_OK;
    const sy_expr **r = ox_alloc(c, (n ? n : 1) * sizeof *r);
    CHK(r);
    for (size_t i = 0; i < n; i++) {
        r[i] = f(c, v[i]);
        if (!r[i]) {
            sy_ctx_reset_error(c->ctx);
            return SY_OK;
        }
    }
    return set_vals(c, 0, n, r);
}
static const sy_expr *u_neg(ox_call *c, const sy_expr *x) { return is_b(x) ? NULL : sy_expr_neg(c->ctx, x); }
static const sy_expr *u_abs(ox_call *c, const sy_expr *x)
{
    return is_b(x) ? NULL : sy_expr_max(c->ctx, x, sy_expr_neg(c->ctx, x));
}
static const sy_expr *u_not(ox_call *c, const sy_expr *x) { return is_b(x) ? sy_expr_not(c->ctx, x) : NULL; }
static const sy_expr *u_relu(ox_call *c, const sy_expr *x) { return is_b(x) ? NULL : sy_expr_max(c->ctx, x, K(c, 0)); }
static const sy_expr *u_same(ox_call *c, const sy_expr *x) { return is_b(x) ? NULL : x; }
/* Neg: values negated; element bounds lo..hi become -hi..-lo (tightness kept) */
static sy_status op_neg(ox_call *c)
{
    TRY(unary_vals(c, u_neg));
    const sy_expr *const *eb = ox_eb(c->in[0]), *const *a = ox_aff(c->in[0]);
    if (!eb || !c->nout || c->out[0].iv || !ox_is_int(c->out[0].elem)) return SY_OK;
    if (a && c->out[0].t && c->out[0].t->ndim == c->in[0]->t->ndim) {
        const sy_expr *co[MAXR];
        for (size_t j = 0; j < c->in[0]->t->ndim; j++) CHK(co[j] = sy_expr_neg(c->ctx, a[1 + j]));
        return set_aff(c, 0, sy_expr_neg(c->ctx, a[0]), co);
    }
    return set_bounds(c, 0, sy_expr_neg(c->ctx, eb[1]), sy_expr_neg(c->ctx, eb[0]), c->in[0]->has_eb == 2);
}
static sy_status op_abs(ox_call *c) { return unary_vals(c, u_abs); }
static sy_status op_not(ox_call *c) { return unary_vals(c, u_not); }
static sy_status op_relu(ox_call *c) { return unary_vals(c, u_relu); }
static sy_status op_floor(ox_call *c) { return unary_vals(c, u_same); } /* integral values only */

/* Cast-13 / CastLike-15: the element type changes, integer values pass
 * (bool <-> int converts; float values that are integers stay exact) */
static sy_status op_cast(ox_call *c)
{
    int64_t to = 0;
    if (!strcmp(c->node->op_type, "CastLike")) to = c->in[1]->elem;
    else {
        TRY(ox_attr_int(c, "to", -1, &to));
        if (!ox_attr(c, "to")) return ox_err(c, SY_EINVAL, "attribute 'to' is required");
        /* a TensorProto.DataType code (onnx.proto: 1 .. 23; 0 is UNDEFINED): onnx's type inference
         * refuses another ("Attribute to does not specify a valid type") */
        if (to < 1 || to > 23) return ox_err(c, SY_EINVAL, "Cast: attribute 'to' = %lld is not a tensor element type", (long long)to);
    }
    const sy_tensor *x = T(c, 0);
    TRY(set_out(c, 0, (int)to, x->ndim, x->sizes));
    ox_val *in = c->in[0];
    size_t n;
    const sy_expr **v = (const sy_expr **)vals(c, 0, &n);
    if (in->fv && ox_is_float((int)to)) {
        c->out[0].fv = in->fv;
        c->out[0].nv = in->nv;
        return SY_OK;
    }
    if (!v) return SY_OK;
    const sy_expr **r = ox_alloc(c, (n ? n : 1) * sizeof *r);
    CHK(r);
    for (size_t i = 0; i < n; i++) {
        if (to == OX_BOOL) r[i] = is_b(v[i]) ? v[i] : sy_expr_ne(c->ctx, v[i], K(c, 0));
        else if (is_b(v[i])) {
            int t;
            TRY(truth(c, v[i], "Cast: bool value", &t));
            r[i] = K(c, t);
        } else r[i] = v[i];
    }
    return set_vals(c, 0, n, r);
}

/* 1 when input k of Clip (1: min, 2: max) is a constant at or beyond the end of x's integer type (INT64_MIN /
 * INT64_MAX for int64, torch's "no bound"): it clips nothing, and is not built (FLINT would allocate its
 * first bignum block, ~167 KB, for |v| >= 2^62) */
static int clip_noop(ox_call *c, size_t k)
{
    const int64_t *kv = ox_kv(c->in[k]);
    if (!kv || c->in[k]->nv != 1) return 0;
    int64_t lo = c->in[0]->elem == OX_INT64 ? INT64_MIN : c->in[0]->elem == OX_INT32 ? INT32_MIN : 0;
    int64_t hi = c->in[0]->elem == OX_INT64 ? INT64_MAX : c->in[0]->elem == OX_INT32 ? INT32_MAX : 0;
    if (lo == hi) return 0;
    return k == 1 ? kv[0] <= lo : kv[0] >= hi;
}

/* Clip-13: min/max inputs optional; integer element values pass through Max(x, min), then Min(., max) */
static sy_status op_clip(ox_call *c)
{
    TRY(same_as(c, 0, 0));
    size_t n, nl = 0, nh = 0;
    const sy_expr **v = vals(c, 0, &n);
    if (!v) return SY_OK;
    int hl = has(c, 1) && !clip_noop(c, 1), hh = has(c, 2) && !clip_noop(c, 2);
    const sy_expr **lo = hl ? vals(c, 1, &nl) : NULL, **hi = hh ? vals(c, 2, &nh) : NULL;
    if ((hl && (!lo || nl != 1)) || (hh && (!hi || nh != 1))) return SY_OK;
    const sy_expr **r = ox_alloc(c, (n ? n : 1) * sizeof *r);
    CHK(r);
    for (size_t i = 0; i < n; i++) {
        if (is_b(v[i])) return SY_OK;
        r[i] = v[i];
        if (lo) r[i] = sy_expr_max(c->ctx, r[i], lo[0]);
        if (hi) r[i] = sy_expr_min(c->ctx, r[i], hi[0]);
    }
    return set_vals(c, 0, n, r);
}

/* Dropout-13: output and optional mask (bool), both X's shape */
static sy_status op_dropout(ox_call *c)
{
    TRY(op_identity(c));
    if (c->nout > 1) TRY(set_out(c, 1, OX_BOOL, T(c, 0)->ndim, T(c, 0)->sizes));
    return SY_OK;
}

/* ------------------------------------------------------------------ shape ops */

/* Shape-15: dims [start, end) (clamped, negative counts from the back) */
static sy_status op_shape(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    int64_t r = (int64_t)x->ndim, s, e;
    TRY(ox_attr_int(c, "start", 0, &s));
    TRY(ox_attr_int(c, "end", r, &e));
    if (s < 0) s += r;
    if (e < 0) e += r;
    s = s < 0 ? 0 : s > r ? r : s;
    e = e < 0 ? 0 : e > r ? r : e;
    int64_t n = e > s ? e - s : 0;
    const sy_expr *d = K(c, n);
    TRY(set_out(c, 0, OX_INT64, 1, &d));
    const sy_expr **v = ox_alloc(c, (n ? (size_t)n : 1) * sizeof *v);
    CHK(v);
    for (int64_t i = 0; i < n; i++) v[i] = x->sizes[s + i];
    return set_vals(c, 0, (size_t)n, v);
}

/* Size-13: a scalar, the number of elements */
static sy_status op_size(ox_call *c)
{
    TRY(set_out(c, 0, OX_INT64, 0, NULL));
    const sy_expr **v = ox_alloc(c, sizeof *v);
    CHK(v);
    v[0] = numel(c, T(c, 0));
    return set_vals(c, 0, 1, v);
}

/* Constant-13: value (tensor) or value_int(s) / value_float(s) */
static sy_status op_constant(ox_call *c)
{
    const Onnx__AttributeProto *a;
    if ((a = ox_attr(c, "value"))) {
        if (!a->has_type || a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR || !a->t)
            return ox_err(c, SY_EINVAL, "attribute 'value' must be a TENSOR");
        return ox_tensor_val(c->tr, a->t, "attribute 'value'", NULL, &c->out[0]);
    }
    if ((a = ox_attr(c, "value_int"))) {
        int64_t v;
        TRY(ox_attr_int(c, "value_int", 0, &v));
        TRY(set_out(c, 0, OX_INT64, 0, NULL));
        const sy_expr **iv = ox_alloc(c, sizeof *iv);
        CHK(iv);
        iv[0] = K(c, v);
        return set_vals(c, 0, 1, iv);
    }
    if ((a = ox_attr(c, "value_ints"))) {
        size_t n;
        const int64_t *v;
        TRY(ox_attr_ints(c, "value_ints", &n, &v));
        const sy_expr *d = K(c, (int64_t)n);
        TRY(set_out(c, 0, OX_INT64, 1, &d));
        const sy_expr **iv = ox_alloc(c, (n ? n : 1) * sizeof *iv);
        CHK(iv);
        for (size_t i = 0; i < n; i++) iv[i] = K(c, v[i]);
        return set_vals(c, 0, n, iv);
    }
    if ((a = ox_attr(c, "value_float"))) {
        double f;
        TRY(ox_attr_float(c, "value_float", 0, &f));
        TRY(set_out(c, 0, OX_FLOAT, 0, NULL));
        double *fv = ox_alloc(c, sizeof *fv);
        CHK(fv);
        fv[0] = f;
        c->out[0].fv = fv;
        c->out[0].nv = 1;
        return SY_OK;
    }
    if ((a = ox_attr(c, "value_floats"))) {
        size_t n;
        const float *v;
        TRY(ox_attr_floats(c, "value_floats", &n, NULL, &v));
        const sy_expr *d = K(c, (int64_t)n);
        TRY(set_out(c, 0, OX_FLOAT, 1, &d));
        if (n <= SY_ONNX_MAX_VALUES) {
            double *fv = ox_alloc(c, (n ? n : 1) * sizeof *fv);
            CHK(fv);
            for (size_t i = 0; i < n; i++) fv[i] = v[i];
            c->out[0].fv = fv;
            c->out[0].nv = n;
        }
        return SY_OK;
    }
    return ox_err(c, SY_EUNSUPPORTED, "Constant without a value, value_int(s) or value_float(s) attribute (sparse and string constants are not supported)");
}

/* the shape given by the values of input k (ConstantOfShape, Expand, Reshape targets) */
static sy_status shape_input(ox_call *c, size_t k, size_t *n, const sy_expr ***dims, int *known)
{
    const sy_tensor *s = T(c, k);
    /* Reshape-14, Expand-13, ConstantOfShape-9: the shape is tensor(int64) (onnxruntime refuses
     * the model otherwise: "Type Error: Type 'tensor(float)' of input parameter"); a float
     * shape was read as data-dependent sizes and accepted */
    if (s->dtype != SY_DT_INT64)
        return ox_err(c, SY_EINVAL, "the shape input %zu '%s' must be tensor(int64), is tensor(%s)", k, c->node->input[k],
                      sy_dtype_name(s->dtype));
    if (s->ndim != 1) return ox_err(c, SY_EINVAL, "the shape input %zu must be 1-D, has rank %zu", k, s->ndim);
    int64_t len;
    TRY(concrete(c, s->sizes[0], "length of a shape tensor", &len));
    if (len < 0 || len > MAXR) return ox_err(c, SY_EUNSUPPORTED, "shape of length %lld", (long long)len);
    size_t m;
    const sy_expr **v = vals(c, k, &m);
    const sy_expr **r = ox_alloc(c, (len ? (size_t)len : 1) * sizeof *r);
    CHK(r);
    *known = v != NULL;
    if (v) {
        for (size_t i = 0; i < m; i++) {
            if (is_b(v[i])) return ox_err(c, SY_EINVAL, "shape values must be integers");
            r[i] = v[i];
        }
    } else {
        TRY(unbacked_dims(c, (size_t)len, r, "data-dependent size"));
    }
    *n = (size_t)len;
    *dims = r;
    return SY_OK;
}

/* ConstantOfShape-9: output shape = the input's values (each >= 0); value default float 0 */
static sy_status op_constantofshape(ox_call *c)
{
    size_t n;
    const sy_expr **d;
    int known;
    TRY(shape_input(c, 0, &n, &d, &known));
    for (size_t i = 0; i < n; i++) TRY(require(c, sy_expr_ge(c->ctx, d[i], K(c, 0)), "ConstantOfShape: dims must be >= 0"));
    int elem = OX_FLOAT;
    ox_val fill;
    memset(&fill, 0, sizeof fill);
    const Onnx__AttributeProto *a = ox_attr(c, "value");
    if (a) {
        if (!a->has_type || a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR || !a->t)
            return ox_err(c, SY_EINVAL, "attribute 'value' must be a TENSOR");
        TRY(ox_tensor_val(c->tr, a->t, "attribute 'value'", NULL, &fill));
        elem = fill.elem;
    }
    TRY(set_out(c, 0, elem, n, d));
    int64_t tot = 1;
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        if (sy_expr_get_si(d[i], &v) != SY_OK) {
            sy_ctx_reset_error(c->ctx);
            return SY_OK;
        }
        /* as Expand: tot*v could pass int64 ([2, INT64_MAX] wrapped to -2 and allocated 2^64 - 16
         * bytes: a crash, attack38g) */
        if (v < 0 || (v && tot > SY_ONNX_MAX_VALUES / v)) return SY_OK;
        tot *= v;
    }
    if (!a) {
        double *fv = ox_alloc(c, (tot ? (size_t)tot : 1) * sizeof *fv);
        CHK(fv);
        c->out[0].fv = fv;
        c->out[0].nv = (size_t)tot;
        return SY_OK;
    }
    if (fill.iv && fill.nv == 1) {
        const sy_expr **iv = ox_alloc(c, (tot ? (size_t)tot : 1) * sizeof *iv);
        CHK(iv);
        for (int64_t i = 0; i < tot; i++) iv[i] = fill.iv[0];
        return set_vals(c, 0, (size_t)tot, iv);
    }
    if (fill.fv && fill.nv == 1) {
        double *fv = ox_alloc(c, (tot ? (size_t)tot : 1) * sizeof *fv);
        CHK(fv);
        for (int64_t i = 0; i < tot; i++) fv[i] = fill.fv[0];
        c->out[0].fv = fv;
        c->out[0].nv = (size_t)tot;
    }
    return SY_OK;
}

/* the reasons of sy_rule_infer_size's requirements */
static const char *reshape_reason(void *arg, int which)
{
    (void)arg;
    return which == 0 ? "Reshape: the known dims' product must be non-zero to infer -1"
                      : "Reshape: the element count must be divisible by the known dims' product";
}

/* Reshape-14: 0 copies the input dim (unless allowzero), one -1 is inferred */
static sy_status op_reshape(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    int64_t allowzero;
    TRY(ox_attr_int(c, "allowzero", 0, &allowzero));
    size_t n;
    const sy_expr **d;
    int known;
    TRY(shape_input(c, 1, &n, &d, &known));
    const sy_expr **o = ox_alloc(c, (n ? n : 1) * sizeof *o);
    CHK(o);
    long infer = -1;
    for (size_t i = 0; i < n; i++) {
        int is0 = 0, ism1 = 0;
        if (known && i < x->ndim && d[i] == x->sizes[i]) {
            /* the target is the input's own dim i (a size, >= 0: not -1): a 0 copies that
             * dim, which is 0 too, so both readings give d[i] and nothing is decided (swin's
             * attention mask reshapes [pH - 7, pW - 7] to itself: no guard pH != 7) */
            o[i] = d[i];
            continue;
        }
        int64_t dv;
        int cst = known && ival(d[i], &dv) && dv >= -1; /* decided here; below -1 fails in require */
        if (cst) {
            is0 = dv == 0;
            ism1 = dv == -1;
        } else if (known) {
            /* with allowzero a 0 is a 0, as any other size: only -1 is special (a branch on the
             * target being 0 pinned [2^31, n, 0] to n >= 1 where n = 0 runs) */
            if (!allowzero) TRY(truth(c, sy_expr_eq(c->ctx, d[i], K(c, 0)), "Reshape: target dim is 0", &is0));
            if (!is0) TRY(truth(c, sy_expr_eq(c->ctx, d[i], K(c, -1)), "Reshape: target dim is -1", &ism1));
        }
        if (is0 && !allowzero) {
            if (i >= x->ndim) return ox_err(c, SY_EINVAL, "target dim %zu is 0 (copy) but the input has rank %zu", i, x->ndim);
            o[i] = x->sizes[i];
        } else if (ism1) {
            if (infer >= 0) return ox_err(c, SY_EINVAL, "more than one -1 in the target shape");
            infer = (long)i;
            o[i] = NULL;
        } else {
            if (!cst) TRY(require(c, sy_expr_ge(c->ctx, d[i], K(c, 0)), "Reshape: target dims must be >= -1"));
            o[i] = d[i];
        }
    }
    /* a constant 0 with a -1 under allowzero: onnxruntime refuses the model at load ("Invalid Target
     * shape product of 0. Product cannot be 0 in combination with -1": its shape inference sees an
     * initializer, a Constant and the dim_values through Shape). A concrete run's constants are a
     * point's sizes, not the model's: there (unless the shape is an initializer) the runtime rule below */
    if (allowzero && infer >= 0 && (!ox_trace_concrete(c->tr) || c->in[1]->role == 2))
        for (size_t i = 0; i < n; i++)
            if (o[i] == K(c, 0)) return ox_err(c, SY_EINVAL, "allowzero=1 with both 0 and -1 in the target shape");
    if (infer < 0) { /* all dims given: a product of constants equal to the input's is no requirement */
        int64_t po = 1, pi = 1, v;
        int cst = 1;
        for (size_t i = 0; cst && i < n; i++) cst = ival(o[i], &v) && !sy_i64_mul(po, v, &po);
        for (size_t i = 0; cst && i < x->ndim; i++) cst = ival(x->sizes[i], &v) && !sy_i64_mul(pi, v, &pi);
        if (cst && po == pi) {
            TRY(set_out(c, 0, c->in[0]->elem, n, o));
            goto values;
        }
    }
    const sy_expr *in_n = numel(c, x);
    CHK(in_n);
    if (infer >= 0) {
        const sy_expr **rest = ox_alloc(c, (n ? n : 1) * sizeof *rest);
        CHK(rest);
        size_t nr = 0;
        for (size_t i = 0; i < n; i++)
            if ((long)i != infer) rest[nr++] = o[i];
        const sy_expr *p = sy_expr_mul_n(c->ctx, nr, rest);
        CHK(p);
        /* the rule the torch frontend uses too (shapeenv/rules.c sy_rule_infer_size): the known dims'
         * product is required non-zero also when the division is exact as polynomials: [0, -1] on
         * (n, 4) is n*4 / n, which the runtime does not infer at n = 0 (onnxruntime
         * core/providers/cpu/tensor/reshape_helper.h ReshapeHelper: ORT_ENFORCE(size != 0 && ...),
         * size the product of the other dims; input {0,364}, requested {0,-1} fails there) */
        const sy_expr *q = NULL, *lo = NULL, *hi = NULL;
        int64_t plo = 0;
        if (allowzero && !sy_expr_is_int(p)) TRY(sy_env_bound(c->env, p, &lo, &hi));
        if (allowzero && (sy_expr_is_int(p) ? p == K(c, 0) : !(lo && sy_expr_get_si(lo, &plo) == SY_OK && plo >= 1))) {
            /* allowzero with a -1 and a product P of the other entries that may be 0 (a symbolic
             * entry, or a concrete run's 0: a constant 0 of the model is refused above). onnxruntime 1.32
             * runs P = 0 (measured: x [a, b] to [a, -1] at a = 0 gives [0, b], [0, 1] when b = 0;
             * [2, 0, -1] on [6, 0] gives [2, 0, 3]): the input must be empty ("input_shape_size ==
             * 0") and -1 is the product of the input's non-zero dims over the product of the
             * target's non-zero entries, which must divide it. One expression for both cases, so
             * that no size is thrown away (a requirement P != 0 rejected a = 0, which runs):
             *   q = numel // Max(P, 1) + (1 - Min(P, 1)) * (prod Max(x_i, 1) // prod Max(t_i, 1)) */
            const sy_expr *one = K(c, 1), **nz = ox_alloc(c, (x->ndim + n + 1) * sizeof *nz);
            CHK(nz);
            for (size_t i = 0; i < x->ndim; i++) nz[i] = sy_expr_max(c->ctx, x->sizes[i], one);
            const sy_expr *nzin = sy_expr_mul_n(c->ctx, x->ndim, nz);
            for (size_t i = 0; i < nr; i++) nz[i] = sy_expr_max(c->ctx, rest[i], one);
            const sy_expr *nzreq = sy_expr_mul_n(c->ctx, nr, nz);
            const sy_expr *pos = sy_expr_ge(c->ctx, p, one), *p1 = sy_expr_max(c->ctx, p, one);
            TRY(require(c, sy_expr_eq(c->ctx, sy_expr_mod(c->ctx, in_n, p1), K(c, 0)),
                        "Reshape: the element count must be divisible by the known dims' product"));
            TRY(require(c, sy_expr_or(c->ctx, pos, sy_expr_eq(c->ctx, in_n, K(c, 0))),
                        "Reshape: allowzero with a 0 entry and -1 needs an empty input (onnxruntime: input_shape_size == 0)"));
            TRY(require(c, sy_expr_or(c->ctx, pos, sy_expr_eq(c->ctx, sy_expr_mod(c->ctx, nzin, nzreq), K(c, 0))),
                        "Reshape: allowzero with a 0 entry and -1: the input's non-zero dims' product must be divisible by "
                        "the target's non-zero entries' product"));
            q = sy_expr_add(c->ctx, sy_expr_floordiv(c->ctx, in_n, p1),
                            sy_expr_mul(c->ctx, sy_expr_sub(c->ctx, one, sy_expr_min(c->ctx, p, one)), sy_expr_floordiv(c->ctx, nzin, nzreq)));
            CHK(q);
        } else
            TRY(sy_rule_infer_size(c->env, &c->why, in_n, p, reshape_reason, NULL, &q));
        o[infer] = q;
    } else {
        TRY(require(c, sy_expr_eq(c->ctx, sy_expr_mul_n(c->ctx, n, o), in_n),
                    "Reshape: the target shape must have as many elements as the input"));
    }
    TRY(set_out(c, 0, c->in[0]->elem, n, o));
values:
    if (c->in[0]->iv) return set_vals(c, 0, c->in[0]->nv, c->in[0]->iv);
    if (c->in[0]->fv) {
        c->out[0].fv = c->in[0]->fv;
        c->out[0].nv = c->in[0]->nv;
    }
    return SY_OK;
}

/* Flatten-13 */
static sy_status op_flatten(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    int64_t a;
    TRY(ox_attr_int(c, "axis", 1, &a));
    if (a < -(int64_t)x->ndim || a > (int64_t)x->ndim) return ox_err(c, SY_EINVAL, "axis %lld out of range", (long long)a);
    size_t ax = (size_t)(a < 0 ? a + (int64_t)x->ndim : a);
    const sy_expr *d[2] = {sy_expr_mul_n(c->ctx, ax, x->sizes), sy_expr_mul_n(c->ctx, x->ndim - ax, x->sizes + ax)};
    TRY(set_out(c, 0, c->in[0]->elem, 2, d));
    if (c->in[0]->iv) return set_vals(c, 0, c->in[0]->nv, c->in[0]->iv);
    return SY_OK;
}

/* Transpose-13: perm default reversed */
static sy_status op_transpose(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    size_t n;
    const int64_t *p;
    TRY(ox_attr_ints(c, "perm", &n, &p));
    const sy_expr *d[MAXR];
    if (x->ndim > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    if (ox_attr(c, "perm") && n != x->ndim) return ox_err(c, SY_EINVAL, "perm has %zu entries, the input rank is %zu", n, x->ndim);
    int seen[MAXR] = {0};
    size_t pa[MAXR];
    for (size_t i = 0; i < x->ndim; i++) {
        size_t a = x->ndim - 1 - i;
        if (p) TRY(norm_axis(c, p[i], x->ndim, &a));
        if (seen[a]++) return ox_err(c, SY_EINVAL, "perm repeats axis %zu", a);
        d[i] = x->sizes[a];
        pa[i] = a;
    }
    TRY(set_out(c, 0, c->in[0]->elem, x->ndim, d));
    /* values: output element (o_0, ..., o_r-1) is input element o_i at axis perm[i] */
    int64_t xd[MAXR];
    size_t xs[MAXR], src[SY_ONNX_MAX_VALUES];
    if (!held_shape(c->in[0], xd, xs)) return SY_OK;
    for (size_t i = 0; i < c->in[0]->nv; i++) {
        size_t rest = i, j = 0;
        for (size_t k = x->ndim; k-- > 0;) {
            size_t dk = (size_t)xd[pa[k]];
            j += rest % dk * xs[pa[k]];
            rest /= dk;
        }
        src[i] = j;
    }
    return pick_vals(c, 0, c->in[0], c->in[0]->nv, src);
}

/* Unsqueeze-13 (axes input) / -11 (attribute): axes refer to the output rank */
static sy_status op_unsqueeze(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    size_t n;
    int64_t *ax;
    int present;
    TRY(ints_attr_or_input(c, "axes", 1, "Unsqueeze axes", &present, &n, &ax));
    if (!present) return ox_err(c, SY_EINVAL, "axes are required");
    size_t r = x->ndim + n;
    if (r > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    int mark[MAXR] = {0};
    for (size_t i = 0; i < n; i++) {
        size_t a;
        TRY(norm_axis(c, ax[i], r, &a));
        if (mark[a]++) return ox_err(c, SY_EINVAL, "axis %lld repeated", (long long)ax[i]);
    }
    const sy_expr *d[MAXR];
    for (size_t i = 0, j = 0; i < r; i++) d[i] = mark[i] ? K(c, 1) : x->sizes[j++];
    TRY(set_out(c, 0, c->in[0]->elem, r, d));
    if (c->in[0]->iv) TRY(set_vals(c, 0, c->in[0]->nv, c->in[0]->iv));
    else if (c->in[0]->fv) c->out[0].fv = c->in[0]->fv, c->out[0].nv = c->in[0]->nv;
    return SY_OK;
}

/* Squeeze-13 / -11: listed axes must be 1; without axes every dim equal to 1 goes (a guard per symbolic dim) */
static sy_status op_squeeze(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    size_t n;
    int64_t *ax;
    int present;
    TRY(ints_attr_or_input(c, "axes", 1, "Squeeze axes", &present, &n, &ax));
    int mark[MAXR] = {0};
    if (x->ndim > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    if (present) {
        for (size_t i = 0; i < n; i++) {
            size_t a;
            TRY(norm_axis(c, ax[i], x->ndim, &a));
            TRY(require(c, sy_expr_eq(c->ctx, x->sizes[a], K(c, 1)), "Squeeze: a squeezed dim must be 1"));
            mark[a] = 1;
        }
    } else {
        for (size_t i = 0; i < x->ndim; i++)
            TRY(truth(c, sy_expr_eq(c->ctx, x->sizes[i], K(c, 1)), "Squeeze: dim is 1", &mark[i]));
    }
    const sy_expr *d[MAXR];
    size_t r = 0;
    for (size_t i = 0; i < x->ndim; i++)
        if (!mark[i]) d[r++] = x->sizes[i];
    TRY(set_out(c, 0, c->in[0]->elem, r, d));
    if (c->in[0]->iv) TRY(set_vals(c, 0, c->in[0]->nv, c->in[0]->iv));
    else if (c->in[0]->fv) c->out[0].fv = c->in[0]->fv, c->out[0].nv = c->in[0]->nv;
    return SY_OK;
}

/* Element bounds of Concat's output when some input's values are not held: each input's bounds lo_k..hi_k
 * (Range(0, n) and Range(n, 2*n): position ids of two segments), an input that may be empty weighted by
 * e_k = Min(numel_k, 1), so lo = Min_k(e_k*lo_k), hi = Max_k(e_k*hi_k). An empty input adds a 0 that is no
 * element, yet the index check stays exact: for a non-empty output, lo >= -D and hi < D is every non-empty
 * input's check and 0 in [-D, D), which a non-empty input's check implies. An input decided empty adds
 * nothing, one decided non-empty its bounds. Loose when an input's are; none when an input has none. */
static sy_status concat_bounds(ox_call *c)
{
    if (!c->nout || !c->out[0].t || !ox_is_int(c->out[0].elem)) return SY_OK;
    const sy_expr *lo = NULL, *hi = NULL, *l, *h;
    int loose = 0;
    sy_ctx *x = c->ctx;
    for (size_t k = 0; k < c->nin; k++) {
        const sy_tensor *t = T(c, k);
        int64_t v;
        int full = 1;
        for (size_t i = 0; i < t->ndim; i++) {
            if (ival(t->sizes[i], &v) && v == 0) full = -1;
            if (full == 1 && !at_least_1(c, t->sizes[i])) full = 0;
        }
        if (full < 0) continue; /* empty: no element */
        if (!elem_bounds(c, k, &l, &h)) return SY_OK;
        if (ox_eb(c->in[k]) && c->in[k]->has_eb == 2) loose = 1;
        if (!full) {
            const sy_expr *e = sy_expr_min(x, numel(c, t), K(c, 1));
            l = sy_expr_mul(x, e, l), h = sy_expr_mul(x, e, h);
        }
        lo = lo ? sy_expr_min(x, lo, l) : l;
        hi = hi ? sy_expr_max(x, hi, h) : h;
        CHK(lo && hi);
    }
    if (!lo) return SY_OK; /* every input empty */
    return set_bounds(c, 0, lo, hi, loose);
}

/* Concat-13: other dims must match */
static sy_status op_concat(ox_call *c)
{
    int64_t a;
    TRY(ox_attr_int(c, "axis", 0, &a));
    if (!ox_attr(c, "axis")) return ox_err(c, SY_EINVAL, "attribute 'axis' is required");
    const sy_tensor *x0 = T(c, 0);
    size_t ax;
    TRY(norm_axis(c, a, x0->ndim, &ax));
    const sy_expr *d[MAXR];
    if (x0->ndim > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    int differ = 0; /* some input's dims off the axis are not input 0's */
    for (size_t k = 1; k < c->nin; k++) {
        const sy_tensor *x = T(c, k);
        if (!x) return ox_err(c, SY_EINVAL, "input %zu is missing", k);
        if (x->ndim != x0->ndim) return ox_err(c, SY_EINVAL, "input %zu has rank %zu, input 0 has rank %zu", k, x->ndim, x0->ndim);
        for (size_t i = 0; i < x->ndim; i++) differ |= i != ax && x->sizes[i] != x0->sizes[i];
    }
    /* onnxruntime 1.32's Concat checks the dims off the axis only between inputs with elements: an
     * empty input is skipped, and the output takes the dims of the first input with elements (of
     * input 0 when every input is empty), its axis the sum of every input's (measured: [0, 3, 17, 32]
     * ++ [0, 3, 18, 32] on axis 1 gives [0, 6, 17, 32]; [2, 0, 5] ++ [3, 1, 6] gives [3, 1, 6];
     * [2, 3, 0, 32] ++ [2, 4, 5, 32] gives [2, 7, 5, 32]). Where an input may be empty (a dim whose
     * lower bound is not >= 1) and its dims differ from another's, the first input with elements
     * is a guard ("is input k empty while a later one is not?") and each equality is required only
     * where both inputs have elements; inputs known non-empty keep the plain equality */
    size_t ref = 0;
    int ne[64] = {0}; /* 1: input k non-empty by the facts (every dim's lower bound >= 1), else 0 */
    const sy_expr *emp[64] = {0}, *efull[64] = {0}; /* input k is empty: over the dims not known >= 1; over all */
    if (c->nin > 64) differ = 0; /* past 64 inputs: every equality required (refuses more, never accepts more) */
    if (differ) {
        sy_facts *f = sy_env_facts(c->env);
        for (size_t k = 0; k < c->nin; k++) {
            const sy_tensor *x = T(c, k);
            const sy_expr *e = sy_expr_false(c->ctx), *ef = e;
            ne[k] = 1;
            for (size_t i = 0; i < x->ndim; i++) {
                const sy_expr *lo, *hi, *z = sy_expr_eq(c->ctx, x->sizes[i], K(c, 0));
                int64_t v;
                ef = sy_expr_or(c->ctx, ef, z);
                CHK(ef);
                /* the facts' bound without marking the symbols relied upon (sy_env_bound would add the
                 * 0/1 specialization's 2 <= s): a lower bound >= 1 here only makes the requirements
                 * stricter (the plain equality, E_k dropped from the Or), never the output other
                 * than onnxruntime's: every input with elements is then required equal to ref */
                if (sy_bound(f, x->sizes[i], &lo, &hi) != SY_OK) sy_ctx_reset_error(c->ctx);
                else if (lo && sy_expr_get_si(lo, &v) == SY_OK && v >= 1) continue;
                e = sy_expr_or(c->ctx, e, z);
                CHK(e);
                ne[k] = 0;
            }
            emp[k] = e;
            efull[k] = ef;
        }
        for (; ref + 1 < c->nin && ne[ref] != 1; ref++) {
            /* input ref is the first with elements unless it is empty and a later one is not: decided
             * exactly (a guard where the facts do not decide it) */
            const sy_expr *later_all = sy_expr_true(c->ctx);
            for (size_t j = ref + 1; j < c->nin; j++) later_all = sy_expr_and(c->ctx, later_all, efull[j]);
            char why[96];
            snprintf(why, sizeof why, "Concat: is input %zu empty while a later input is not?", ref);
            int moved;
            TRY(truth(c, sy_expr_and(c->ctx, efull[ref], sy_expr_not(c->ctx, later_all)), why, &moved));
            if (!moved) break;
        }
    }
    const sy_tensor *xr = T(c, ref);
    for (size_t i = 0; i < x0->ndim; i++) d[i] = i == ax ? K(c, 0) : xr->sizes[i];
    for (size_t k = 0; k < c->nin; k++) {
        const sy_tensor *x = T(c, k);
        d[ax] = k ? sy_expr_add(c->ctx, d[ax], x->sizes[ax]) : x->sizes[ax];
        CHK(d[ax]);
        if (k <= ref) continue; /* ref itself; the inputs before it are empty (guarded) */
        int plain = !differ || (ne[ref] == 1 && ne[k] == 1);
        for (size_t i = 0; i < x->ndim; i++) {
            if (i == ax || d[i] == x->sizes[i]) continue;
            const sy_expr *eq = sy_expr_eq(c->ctx, d[i], x->sizes[i]);
            if (plain) TRY(require(c, eq, "Concat: dims off the axis must match"));
            else
                TRY(require(c, sy_expr_or(c->ctx, sy_expr_or(c->ctx, emp[ref], emp[k]), eq),
                            "Concat: dims off the axis must match where both inputs have elements (onnxruntime skips an empty one)"));
            if (plain && !sy_expr_is_int(d[i]) && sy_expr_is_int(x->sizes[i])) d[i] = x->sizes[i];
        }
    }
    TRY(set_out(c, 0, c->in[0]->elem, x0->ndim, d));
    /* values (any rank): the inputs' blocks along the axis, in order; every input's values and
     * dims must be known. An output element's coordinate on the axis picks the input and the
     * offset in it; the other coordinates are the same. */
    size_t tot = 0;
    int64_t od[MAXR];
    for (size_t k = 0; k < c->nin; k++) {
        size_t m;
        if (!vals(c, k, &m)) return concat_bounds(c);
        tot += m;
    }
    if (tot > SY_ONNX_MAX_VALUES || !c->out[0].t || !const_shape(c->out[0].t, od)) return SY_OK; /* no output: nothing to fill */
    size_t outer = 1, inner = 1;
    for (size_t i = 0; i < ax; i++) outer *= (size_t)od[i];
    for (size_t i = ax + 1; i < x0->ndim; i++) inner *= (size_t)od[i];
    const sy_expr **r = ox_alloc(c, (tot ? tot : 1) * sizeof *r);
    CHK(r);
    size_t j = 0;
    for (size_t o = 0; o < outer; o++)
        for (size_t k = 0; k < c->nin; k++) {
            size_t m;
            const sy_expr **v = vals(c, k, &m);
            int64_t dk;
            CHK(v);
            if (sy_expr_get_si(T(c, k)->sizes[ax], &dk) != SY_OK || (size_t)dk * outer * inner != m) return SY_OK;
            size_t blk = (size_t)dk * inner; /* input k's elements per outer index */
            for (size_t i = 0; i < blk; i++) r[j++] = v[o * blk + i];
        }
    return set_vals(c, 0, tot, r);
}

/* Split-13 (split input) / -11 (attribute) / -18 (num_outputs: the last chunk may be smaller, even empty) */
static sy_status op_split(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    int64_t a;
    TRY(ox_attr_int(c, "axis", 0, &a));
    size_t ax;
    TRY(norm_axis(c, a, x->ndim, &ax));
    size_t n;
    int64_t *sp;
    int present;
    const sy_expr *d[MAXR];
    if (x->ndim > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    for (size_t i = 0; i < x->ndim; i++) d[i] = x->sizes[i];
    const sy_expr *D = x->sizes[ax];
    /* Split-13's split input computed from sizes (Shape -> Gather -> Div ...): its values are
     * tracked expressions, kept symbolic (const_ints pinned each one with a guard: n == 224 for
     * [n // 2, n - n // 2]); the same requirements as for constants, each entry >= 0 and their sum
     * the dim (onnxruntime split.cc: "Cannot split using values in 'split' attribute") */
    size_t m = 0;
    const sy_expr **sv = !ox_attr(c, "split") ? vals(c, 1, &m) : NULL;
    int symbolic = 0;
    for (size_t i = 0; sv && i < m; i++) {
        if (is_b(sv[i])) return ox_err(c, SY_EINVAL, "split values must be integers");
        if (!sy_expr_is_int(sv[i])) symbolic = 1;
    }
    if (symbolic) {
        if (m != c->nout) return ox_err(c, SY_EINVAL, "split has %zu entries for %zu outputs", m, c->nout);
        for (size_t k = 0; k < m; k++)
            TRY(require(c, sy_expr_ge(c->ctx, sv[k], K(c, 0)), "Split: the split sizes must be >= 0"));
        TRY(require(c, sy_expr_eq(c->ctx, D, sy_expr_add_n(c->ctx, m, sv)), "Split: the split sizes must sum to the dim"));
        for (size_t k = 0; k < m; k++) {
            d[ax] = sv[k];
            TRY(set_out(c, k, c->in[0]->elem, x->ndim, d));
        }
        return SY_OK;
    }
    TRY(ints_attr_or_input(c, "split", 1, "Split sizes", &present, &n, &sp));
    if (present) {
        if (n != c->nout) return ox_err(c, SY_EINVAL, "split has %zu entries for %zu outputs", n, c->nout);
        int64_t s = 0;
        for (size_t i = 0; i < n; i++) {
            if (sp[i] < 0) return ox_err(c, SY_EINVAL, "split entry %zu is negative (%lld)", i, (long long)sp[i]);
            if (sy_i64_add(s, sp[i], &s)) return ox_err(c, SY_EINVAL, "the split sizes overflow int64");
        }
        TRY(require(c, sy_expr_eq(c->ctx, D, K(c, s)), "Split: the split sizes must sum to the dim"));
        for (size_t k = 0; k < n; k++) {
            d[ax] = K(c, sp[k]);
            TRY(set_out(c, k, c->in[0]->elem, x->ndim, d));
        }
        return SY_OK;
    }
    int64_t no;
    TRY(ox_attr_int(c, "num_outputs", (int64_t)c->nout, &no));
    if (no <= 0) return ox_err(c, SY_EINVAL, "num_outputs must be positive");
    if (ox_attr(c, "num_outputs")) { /* Split-18: chunks of ceil(D / n), the last one the rest */
        const sy_expr *chunk = sy_expr_ceildiv(c->ctx, D, K(c, no));
        CHK(chunk);
        for (size_t k = 0; k < c->nout; k++) {
            const sy_expr *lo = sy_expr_mul_si(c->ctx, chunk, (int64_t)k);
            d[ax] = k + 1 < c->nout ? chunk : sy_expr_sub(c->ctx, D, lo);
            CHK(d[ax]);
            /* the last chunk may be empty but not negative: onnxruntime 1.32 splits 3 in 4 as
             * [1, 1, 1, 0] and 0 as [0, 0, 0, 0], and fails at 5 (attack46n: 2-5 outputs, 0..12) */
            if (k + 1 == c->nout)
                TRY(require(c, sy_expr_ge(c->ctx, d[ax], K(c, 0)), "Split: the other chunks must fit in the dim"));
            TRY(set_out(c, k, c->in[0]->elem, x->ndim, d));
        }
        return SY_OK;
    }
    TRY(require(c, sy_expr_eq(c->ctx, sy_expr_mod(c->ctx, D, K(c, no)), K(c, 0)),
                "Split: the dim must be divisible by the number of outputs"));
    d[ax] = sy_expr_floordiv(c->ctx, D, K(c, no));
    CHK(d[ax]);
    for (size_t k = 0; k < c->nout; k++) TRY(set_out(c, k, c->in[0]->elem, x->ndim, d));
    return SY_OK;
}

/* Slice-13: per axis, start/end clamped as the spec says:
 *   start < 0 -> start + dim; end < 0 -> end + dim;
 *   step > 0: start, end clamped to [0, dim]; step < 0: start to [0, dim-1], end to [-1, dim-1];
 *   length = max(0, ceil((end - start) / step)).
 * shapeenv/rules.c sy_rule_slice_len_onnx computes it for both signs of step (shared with the torch
 * frontend's slicing): a clamp to [lo, hi] is Min(Max(v, lo), hi), so on a dim of 0 a negative
 * step's start range [0, -1] is empty and the start is -1 (hi), the length 0 (onnxruntime, numpy
 * and torch's flip of an empty dim take nothing).
 * A start or end that is an int64 constant beyond FLINT's small integers (|v| >= 2^62: INT64_MAX and
 * INT64_MIN, torch's "to the end" / "to the start", and torch's -INT64_MAX) is kept as int64
 * (slice_end.far) and clamped by slice_far, so that no expression (a FLINT bignum, whose first block
 * is ~167 KB of mpz) is built for it. */
typedef struct slice_end {
    const sy_expr *e; /* the value, unless far */
    int64_t v;        /* far: the value */
    int far;          /* 1: v is beyond FLINT's small integers (|v| >= 2^62) and e is not used */
} slice_end;

/* FLINT holds |v| <= 2^62 - 1 (COEFF_MAX) in the fmpz word itself; anything larger allocates a bignum */
static int slice_is_far(int64_t v) { return v >= (INT64_C(1) << 62) || v <= -(INT64_C(1) << 62); }

/* The clamped far start or end v, without building v, when it is the same for every dim the value
 * ranges allow: dim's upper bound U is its value, or its bound under the facts (sy_bound), or else
 * INT64_MAX (an ONNX dim is an int64: TensorShapeProto's dim_value, Shape's output). For every dim in
 * [0, U]:
 *   v >= U: v >= U >= dim >= hi (hi = dim or dim - 1), so Min(Max(v, lo), hi) = hi;
 *   v + U <= lo (v < 0): v + dim <= lo, so the negative v + dim clamps to Min(lo, hi): lo, unless
 *   empty: then Min(0, dim - 1).
 * lo is 0 (a start, a positive step's end) or -1 (a negative step's end); hi is dim or dim - 1.
 * *out NULL: neither holds for every dim (the caller builds v as an expression). */
static sy_status slice_far(ox_call *c, const sy_expr *dim, int64_t v, int64_t lo, const sy_expr *hi, int empty,
                           const sy_expr **out)
{
    *out = NULL;
    int64_t U = INT64_MAX;
    /* INT64_MAX >= U and INT64_MIN + U <= -1 for every U: no bound needed (torch's common ends) */
    if (v != INT64_MAX && v != INT64_MIN && sy_expr_get_si(dim, &U) != SY_OK) {
        const sy_expr *blo = NULL, *bhi = NULL;
        U = INT64_MAX;
        if (sy_env_bound(c->env, dim, &blo, &bhi) == SY_OK && bhi && sy_expr_get_si(bhi, &U) != SY_OK)
            U = INT64_MAX; /* a bound beyond int64: the int64 one is tighter */
        sy_ctx_reset_error(c->ctx);
        if (U < 0) U = 0; /* a dim is >= 0 */
    }
    if (v >= U) *out = hi;
    else if (v < 0 && v + U <= lo) *out = empty ? sy_expr_min(c->ctx, K(c, lo), hi) : K(c, lo);
    else return SY_OK;
    CHK(*out);
    return SY_OK;
}

/* A start or end for the shared rule: its expression, or NULL where it is the rule's None (a far
 * bound that slice_far clamps to the default for every dim the ranges allow: a start to 0 (step > 0)
 * or dim - 1 (step < 0), an end to dim (step > 0) or -1 (step < 0)); any other far bound is built
 * exactly (a bignum, only for a dim near 2^62 or of unknown bound) */
static sy_status slice_rule_bound(ox_call *c, const sy_expr *dim, const slice_end *b, int is_start, int64_t step,
                                  const sy_expr **out)
{
    *out = b->e;
    if (!b->far) return SY_OK;
    const sy_expr *hi = step > 0 ? dim : sy_expr_add_si(c->ctx, dim, -1), *r = NULL;
    CHK(hi);
    int64_t lo = step > 0 || is_start ? 0 : -1; /* ONNX: a negative step's start is clamped to [0, dim - 1] */
    TRY(slice_far(c, dim, b->v, lo, hi, 0, &r));
    /* the default of this role: 0 / dim - 1 for a start, dim / -1 for an end */
    int none = r && (is_start ? (step > 0 ? (r != hi) : (r == hi)) : (step > 0 ? (r == hi) : (r != hi)));
    if (none) {
        *out = NULL;
        return SY_OK;
    }
    if (r && r != hi) { /* clamped to lo = 0 (a negative step's start): 0, which the rule clamps to dim - 1 */
        CHK(*out = K(c, 0));
        return SY_OK;
    }
    CHK(*out = K(c, b->v));
    return SY_OK;
}

/* the length and clamped start of one axis: shapeenv/rules.c sy_rule_slice_len_onnx, the torch
 * frontend's rule for a positive step and ONNX's clamps for a negative one (Min/Max where the facts do
 * not decide, no guard) */
static sy_status slice_len(ox_call *c, const sy_expr *dim, const slice_end *sb, const slice_end *eb, int64_t step,
                           const sy_expr **len, const sy_expr **start_out)
{
    const sy_expr *s, *e;
    TRY(slice_rule_bound(c, dim, sb, 1, step, &s));
    TRY(slice_rule_bound(c, dim, eb, 0, step, &e));
    return sy_rule_slice_len_onnx(c->env, s, e, step, dim, start_out, len);
}

/* n int64 starts or ends (an attribute, or a constant read as int64, ox_val.kv) as slice_ends: the far
 * ones stay int64 */
static sy_status int64_bounds(ox_call *c, size_t n, const int64_t *a, slice_end **out)
{
    slice_end *r = ox_alloc(c, (n ? n : 1) * sizeof *r);
    CHK(r);
    for (size_t i = 0; i < n; i++) {
        r[i].v = a[i];
        r[i].far = slice_is_far(a[i]);
        r[i].e = NULL;
        if (!r[i].far) CHK(r[i].e = K(c, a[i]));
    }
    *out = r;
    return SY_OK;
}

/* Slice's starts or ends (input k) as slice_ends. NULL *out: the values depend on data. */
static sy_status slice_bounds(ox_call *c, size_t k, size_t *n, slice_end **out)
{
    ox_val *v = c->in[k];
    *out = NULL;
    *n = 0;
    if (ox_kv(v) && !v->iv) {
        *n = v->nv;
        return int64_bounds(c, v->nv, ox_kv(v), out);
    }
    const sy_expr **r = (const sy_expr **)vals(c, k, n);
    if (!r) return SY_OK;
    slice_end *b = ox_alloc(c, (*n ? *n : 1) * sizeof *b);
    CHK(b);
    for (size_t i = 0; i < *n; i++) {
        b[i].e = r[i];
        b[i].far = sy_expr_get_si(r[i], &b[i].v) == SY_OK && slice_is_far(b[i].v);
    }
    sy_ctx_reset_error(c->ctx);
    *out = b;
    return SY_OK;
}

static sy_status op_slice(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    size_t ns, ne, na = 0, nst = 0;
    const sy_expr **A = NULL, **ST = NULL;
    slice_end *S, *E;
    if (c->nin == 1) { /* Slice-1 form (attributes) is not in opsets 11-18, accepted anyway */
        size_t n1, n2, n3;
        const int64_t *a1, *a2, *a3;
        TRY(ox_attr_ints(c, "starts", &n1, &a1));
        TRY(ox_attr_ints(c, "ends", &n2, &a2));
        TRY(ox_attr_ints(c, "axes", &n3, &a3));
        TRY(int64_bounds(c, n1, a1, &S));
        TRY(int64_bounds(c, n2, a2, &E));
        ns = n1;
        ne = n2;
        if (n3) {
            A = ox_alloc(c, n3 * sizeof *A);
            CHK(A);
            for (size_t i = 0; i < n3; i++) A[i] = K(c, a3[i]);
            na = n3;
        }
    } else {
        if (c->nin < 3 || !has(c, 1) || !has(c, 2)) return ox_err(c, SY_EINVAL, "starts and ends are required");
        TRY(slice_bounds(c, 1, &ns, &S));
        TRY(slice_bounds(c, 2, &ne, &E));
        if (!S || !E) {
            /* data-dependent bounds: the sliced dims are unbacked */
            size_t nax = 0;
            int64_t len;
            TRY(concrete(c, T(c, 1)->sizes[0], "number of sliced axes", &len));
            (void)nax;
            const sy_expr *d[MAXR];
            for (size_t i = 0; i < x->ndim; i++) d[i] = x->sizes[i];
            if (has(c, 3)) {
                int64_t *axs;
                size_t m;
                TRY(const_ints(c, 3, "Slice axes", &m, &axs));
                for (size_t i = 0; i < m; i++) {
                    size_t a;
                    TRY(norm_axis(c, axs[i], x->ndim, &a));
                    TRY(unbacked_dims(c, 1, &d[a], "data-dependent slice"));
                }
            } else {
                for (int64_t i = 0; i < len && (size_t)i < x->ndim; i++) TRY(unbacked_dims(c, 1, &d[i], "data-dependent slice"));
            }
            return set_out(c, 0, c->in[0]->elem, x->ndim, d);
        }
        if (has(c, 3)) {
            A = (const sy_expr **)vals(c, 3, &na);
            if (!A) return ox_err(c, SY_EUNSUPPORTED, "Slice axes depend on data");
        }
        if (has(c, 4)) {
            ST = (const sy_expr **)vals(c, 4, &nst);
            if (!ST) return ox_err(c, SY_EUNSUPPORTED, "Slice steps depend on data");
        }
    }
    if (ns != ne || (A && na != ns) || (ST && nst != ns))
        return ox_err(c, SY_EINVAL, "starts, ends, axes and steps must have the same length");
    const sy_expr *d[MAXR];
    if (x->ndim > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    for (size_t i = 0; i < x->ndim; i++) d[i] = x->sizes[i];
    int seen[MAXR] = {0};
    const sy_expr *start[MAXR] = {0}; /* per axis: the clamped start (NULL: not sliced, 0) */
    int64_t stepv[MAXR];
    for (size_t i = 0; i < x->ndim; i++) stepv[i] = 1;
    for (size_t i = 0; i < ns; i++) {
        int64_t a = (int64_t)i, step = 1;
        if (A) TRY(concrete(c, A[i], "Slice axis", &a));
        size_t ax;
        TRY(norm_axis(c, a, x->ndim, &ax));
        if (seen[ax]++) return ox_err(c, SY_EINVAL, "axis %zu repeated", ax);
        if (ST) TRY(concrete(c, ST[i], "Slice step", &step));
        if (step == 0) return ox_err(c, SY_EINVAL, "step 0");
        if ((!S[i].far && is_b(S[i].e)) || (!E[i].far && is_b(E[i].e))) return ox_err(c, SY_EINVAL, "starts/ends must be integers");
        /* onnxruntime 1.32 (slice_helper.h PrepareForCompute): an end of INT64_MAX or INT32_MAX is
         * numpy's None, "to the end" in the step's direction: -1 for a negative step, where the spec's
         * clamp gives dim - 1 ([-3:INT64_MAX:-1] of [0, 1, 2, 3, 4] is [2, 1, 0] there, empty by the
         * spec; symshape gave 0 where onnxruntime gives h - 2: attack38e). INT64_MIN is the far end
         * that clamps to -1 for a negative step and dim for a positive one. */
        int64_t ev;
        if (E[i].far ? E[i].v == INT64_MAX : sy_expr_get_si(E[i].e, &ev) == SY_OK && ev == INT32_MAX) {
            E[i].far = 1;
            E[i].v = step < 0 ? INT64_MIN : INT64_MAX;
            E[i].e = NULL;
        }
        sy_ctx_reset_error(c->ctx);
        const sy_expr *st;
        TRY(slice_len(c, x->sizes[ax], &S[i], &E[i], step, &d[ax], &st));
        start[ax] = st;
        stepv[ax] = step;
    }
    TRY(set_out(c, 0, c->in[0]->elem, x->ndim, d));
    const sy_expr *const *af = ox_aff(c->in[0]), *hf[MAXR + 1];
    /* held values affine in the index (a short Range, Unsqueezed or not; a constant) are an affine form too:
     * a symbolic start or length leaves them unheld, with exact bounds */
    int held_ok = 1;
    int64_t cs, hd[MAXR];
    size_t hs[MAXR], nh;
    for (size_t a = 0; a < x->ndim; a++)
        if ((start[a] && !ival(start[a], &cs)) || !ival(d[a], &cs)) held_ok = 0; /* else the values path below */
    const sy_expr **hv = !af && !held_ok && ox_is_int(c->in[0]->elem) && held_shape(c->in[0], hd, hs) ? vals(c, 0, &nh) : NULL;
    if (hv && nh >= 1 && !is_b(hv[0])) {
        hf[0] = hv[0];
        for (size_t a = 0; a < x->ndim; a++) CHK(hf[1 + a] = hd[a] >= 2 ? sy_expr_sub(c->ctx, hv[hs[a]], hv[0]) : K(c, 0));
        size_t i = 1;
        for (; i < nh; i++) {
            const sy_expr *e = hf[0];
            for (size_t a = 0; a < x->ndim; a++)
                e = sy_expr_add(c->ctx, e, sy_expr_mul(c->ctx, hf[1 + a], K(c, (int64_t)(i / hs[a] % (size_t)hd[a]))));
            if (is_b(hv[i]) || hv[i] != e) break;
        }
        sy_ctx_reset_error(c->ctx);
        if (i == nh) af = hf;
    }
    if (af && ox_is_int(c->in[0]->elem)) {
        /* elements affine in the index (a Range, ...): output element (o_0, ...) is input element
         * (start_a + o_a*step_a, ...), so base + sum co_a*start_a + sum co_a*step_a*o_a: affine again, its
         * bounds exact (tight). start_a is the clamped first index (onnxruntime slice_helper.h
         * PrepareForCompute clamps starts and ends to the dim as the spec says, its INT64_MAX end for a
         * negative step to the start: above), valid when the axis is not empty (else there is nothing to
         * index) */
        const sy_expr *co[MAXR], *b = af[0];
        for (size_t a = 0; a < x->ndim; a++) {
            if (start[a]) b = sy_expr_add(c->ctx, b, sy_expr_mul(c->ctx, af[1 + a], start[a]));
            CHK(co[a] = sy_expr_mul_si(c->ctx, af[1 + a], stepv[a]));
        }
        return set_aff(c, 0, b, co);
    }
    /* values (any rank): output element (o_0, ...) is input element (start_a + o_a*step_a, ...),
     * with the starts clamped as the spec says; every start and length must be constant */
    int64_t xd[MAXR], s0[MAXR], len[MAXR];
    size_t xs[MAXR], src[SY_ONNX_MAX_VALUES];
    if (!held_shape(c->in[0], xd, xs)) return SY_OK;
    size_t total = 1;
    for (size_t a = 0; a < x->ndim; a++) {
        s0[a] = 0;
        if ((start[a] && sy_expr_get_si(start[a], &s0[a]) != SY_OK) || sy_expr_get_si(d[a], &len[a]) != SY_OK || len[a] < 0)
            return SY_OK;
        /* the first and the last index taken on this axis are inside it (the clamping guarantees it) */
        if (len[a] && (s0[a] < 0 || s0[a] >= xd[a] || s0[a] + (len[a] - 1) * stepv[a] < 0 ||
                       s0[a] + (len[a] - 1) * stepv[a] >= xd[a]))
            return SY_OK;
        total *= (size_t)len[a]; /* len[a] <= xd[a]: at most the input's count */
    }
    for (size_t i = 0; i < total; i++) {
        size_t rest = i, j = 0;
        for (size_t a = x->ndim; a-- > 0;) {
            int64_t o = (int64_t)(rest % (size_t)len[a]);
            rest /= (size_t)len[a];
            j += (size_t)(s0[a] + o * stepv[a]) * xs[a];
        }
        src[i] = j;
    }
    return pick_vals(c, 0, c->in[0], total, src);
}

/* Element bounds of input k: lo <= every element <= hi. Its eb, or the Min and Max of its held
 * integer values; 0 when neither is known (data, or values the trace dropped) */
static int elem_bounds(ox_call *c, size_t k, const sy_expr **lo, const sy_expr **hi)
{
    if (!has(c, k) || !ox_is_int(c->in[k]->elem)) return 0;
    const ox_val *v = c->in[k];
    if (ox_eb(v)) {
        *lo = ox_eb(v)[0], *hi = ox_eb(v)[1];
        return 1;
    }
    size_t n;
    const sy_expr **iv = vals(c, k, &n);
    if (!iv || !n) return 0;
    for (size_t i = 0; i < n; i++)
        if (is_b(iv[i])) return 0;
    *lo = sy_expr_min_n(c->ctx, n, iv);
    *hi = sy_expr_max_n(c->ctx, n, iv);
    if (*lo && *hi) return 1;
    sy_ctx_reset_error(c->ctx);
    return 0;
}
/* output k's element bounds lo..hi; loose: not attained (bounds of a superset) */
static sy_status set_bounds(ox_call *c, size_t k, const sy_expr *lo, const sy_expr *hi, int loose)
{
    CHK(lo && hi);
    const sy_expr **eb = ox_alloc(c, 2 * sizeof *eb);
    CHK(eb);
    eb[0] = lo, eb[1] = hi;
    ox_set_eb(&c->out[k], eb, loose);
    return SY_OK;
}

/* the least (hi 0) or greatest (hi 1) of co*k over k in 0..d-1, d >= 1: 0 or co*(d - 1) by co's sign (under
 * the facts; Min/Max with 0 where they do not decide it) */
static const sy_expr *aff_end(ox_call *c, const sy_expr *co, const sy_expr *d, int hi)
{
    sy_ctx *x = c->ctx;
    int64_t v;
    const sy_expr *t = sy_expr_mul(x, co, sy_expr_add_si(x, d, -1)), *z = K(c, 0);
    if (sy_expr_get_si(co, &v) != SY_OK) {
        sy_ctx_reset_error(x);
        const sy_expr *lo = NULL, *up = NULL;
        v = 0;
        if (sy_env_bound(c->env, co, &lo, &up) == SY_OK) {
            int64_t b;
            if (lo && sy_expr_get_si(lo, &b) == SY_OK && b >= 0) v = 1;
            else if (up && sy_expr_get_si(up, &b) == SY_OK && b <= 0) v = -1;
        }
        sy_ctx_reset_error(x);
        if (!v) return hi ? sy_expr_max(x, t, z) : sy_expr_min(x, t, z);
    }
    return (v >= 0) == (hi != 0) ? t : z;
}

/* output k (its shape set) holds base + sum co[j]*k_j at index (k_0, ...): its affine form and its bounds,
 * tight (the least and the greatest are at corners of the index box, when it is not empty) */
static sy_status set_aff(ox_call *c, size_t k, const sy_expr *base, const sy_expr *const *co)
{
    const sy_tensor *t = c->out[k].t;
    CHK(base && t);
    const sy_expr **eb = ox_alloc(c, (3 + t->ndim) * sizeof *eb);
    CHK(eb);
    const sy_expr *lo = base, *hi = base;
    eb[2] = base;
    for (size_t j = 0; j < t->ndim; j++) {
        CHK(eb[3 + j] = co[j]);
        lo = sy_expr_add(c->ctx, lo, aff_end(c, co[j], t->sizes[j], 0));
        hi = sy_expr_add(c->ctx, hi, aff_end(c, co[j], t->sizes[j], 1));
    }
    CHK(lo && hi);
    eb[0] = lo, eb[1] = hi;
    c->out[k].u.eb = eb;
    c->out[k].has_eb = 3;
    return SY_OK;
}

static int is_one(const sy_expr *d)
{
    int64_t v;
    return ival(d, &v) && v == 1;
}

/* the affine form of output 0 of an op that moves the elements of input 0 (affine a): Identity, Dropout
 * and Cast keep the index; Reshape, Flatten, Squeeze, Unsqueeze keep the row-major order, so the dims
 * other than 1 map one to one when they are the same expressions in order, or else a flat progression
 * (co_j = step * the product of the dims after j, every dim that is not 1) stays one with the output's
 * strides; Transpose permutes; Expand's new and broadcast dims (input dim 1) step 0. 0: not affine
 * (then the bounds alone are kept) */
static int aff_move(ox_call *c, const sy_expr *const *a, const sy_expr **co)
{
    const char *op = c->node->op_type;
    const sy_tensor *x = T(c, 0), *y = c->out[0].t;
    size_t r = x->ndim, R = y->ndim;
    sy_ctx *X = c->ctx;
    if (r > MAXR || R > MAXR) return 0;
    if (!strcmp(op, "Identity") || !strcmp(op, "Dropout") || !strncmp(op, "Cast", 4)) {
        if (R != r) return 0;
        for (size_t j = 0; j < r; j++) co[j] = a[1 + j];
        return 1;
    }
    if (!strcmp(op, "Transpose")) {
        size_t n;
        const int64_t *p;
        if (R != r || ox_attr_ints(c, "perm", &n, &p) || (p && n != r)) return 0;
        for (size_t i = 0; i < r; i++) {
            int64_t q = p ? p[i] : (int64_t)(r - 1 - i);
            if (q < 0) q += (int64_t)r;
            if (q < 0 || q >= (int64_t)r) return 0;
            co[i] = a[1 + q];
        }
        return 1;
    }
    if (!strcmp(op, "Expand")) {
        if (R < r) return 0;
        for (size_t i = 0; i < R; i++) {
            if (i < R - r || is_one(x->sizes[i - (R - r)])) co[i] = K(c, 0);
            else if (x->sizes[i - (R - r)] == y->sizes[i]) co[i] = a[1 + i - (R - r)];
            else return 0; /* a symbolic input dim that may be 1 */
            if (!co[i]) return 0;
        }
        return 1;
    }
    if (strcmp(op, "Reshape") && strcmp(op, "Flatten") && strcmp(op, "Squeeze") && strcmp(op, "Unsqueeze")) return 0;
    size_t i = 0, j = 0;
    for (;; i++, j++) { /* the dims other than 1, in order */
        while (i < r && is_one(x->sizes[i])) i++;
        while (j < R && is_one(y->sizes[j])) co[j++] = K(c, 0);
        if (i == r || j == R || x->sizes[i] != y->sizes[j]) break;
        co[j] = a[1 + i];
    }
    if (i == r && j == R) return 1;
    /* a flat progression: co_i = step * P_i */
    const sy_expr *step = NULL, *P = K(c, 1);
    for (size_t k = r; k-- > 0;) {
        if (is_one(x->sizes[k])) continue;
        if (!step) step = a[1 + k];
        else if (a[1 + k] != sy_expr_mul(X, step, P)) return 0;
        P = sy_expr_mul(X, P, x->sizes[k]);
        if (!P) return 0;
    }
    if (!step) step = K(c, 0); /* one element */
    P = K(c, 1);
    for (size_t k = R; k-- > 0;) {
        co[k] = sy_expr_mul(X, step, P);
        P = sy_expr_mul(X, P, y->sizes[k]);
        if (!co[k] || !P) return 0;
    }
    return 1;
}

/* the ops whose output 0 holds only elements of input 0 (moved, repeated or a subset), sorted */
static const char *const keep_ops[] = {"Cast",    "CastLike", "Dropout", "Expand", "Flatten",   "Gather",   "Identity",
                                       "Reshape", "Slice",    "Squeeze", "Tile",   "Transpose", "Unsqueeze"};
static int cmp_name(const void *a, const void *b) { return strcmp((const char *)a, *(const char *const *)b); }

sy_status ox_keep_bounds(ox_call *c)
{
    /* the cheap tests first: most nodes have no integer values to keep (run_node calls this for each) */
    if (!c->nout || !has(c, 0) || (!c->in[0]->u.kv && !c->in[0]->iv)) return SY_OK; /* u: kv or eb */
    if (c->out[0].iv || c->out[0].fv || c->out[0].u.kv || !c->out[0].t) return SY_OK;
    int oe = c->out[0].elem;
    /* a Cast to int32 wraps (onnxruntime static_cast) but keeps the bounds for the index checks: the indices
     * required in [-D, D) with D <= 2^31 are int32 values, equal to their wrapped ones (Add/Sub/Mul/Neg after
     * it agree modulo 2^32), and with D > 2^31 every int32 value is in range; a wrap breaks Min/Max/Div after
     * it only past 2^31 elements (not modelled) */
    int to32 = oe == OX_INT32 && c->in[0]->elem == OX_INT64 && !strncmp(c->node->op_type, "Cast", 4);
    if (!ox_is_int(oe) || (oe != c->in[0]->elem && oe != OX_INT64 && !to32)) return SY_OK;
    if (!bsearch(c->node->op_type, keep_ops, sizeof keep_ops / sizeof keep_ops[0], sizeof keep_ops[0], cmp_name)) return SY_OK;
    const sy_expr *lo, *hi, *const *a = ox_aff(c->in[0]), *co[MAXR];
    if (a && aff_move(c, a, co)) return set_aff(c, 0, a[0], co);
    sy_ctx_reset_error(c->ctx);
    if (!elem_bounds(c, 0, &lo, &hi)) return SY_OK;
    /* Gather keeps a subset: its bounds are loose (not required). So does a Slice of a tensor without an affine
     * form (op_slice makes an affine one's exact), but its bounds, a superset's, are required (onnx47w: a Slice
     * of a Concat of Ranges was accepted where onnxruntime fails): never a wrong accept, at the cost of sizes
     * where the elements left out are the only ones out of range (Slice(Range(0, n) / 2, 0, 5) holds 0..2
     * and requires FloorDiv(n - 1, 2) < D). The others keep every element (Expand and Tile to an empty
     * output: nothing to index) */
    int loose = c->in[0]->has_eb == 2 || !strcmp(c->node->op_type, "Gather");
    if (ox_eb(c->in[0])) {
        ox_set_eb(&c->out[0], ox_eb(c->in[0]), loose);
        return SY_OK;
    }
    return set_bounds(c, 0, lo, hi, loose);
}

/* Indices of input k index a dim of size D: each must be in [-D, D) (Gather-13, GatherElements-13:
 * "out-of-bounds index values" are an error; onnxruntime and PyTorch's index_select / embedding
 * raise). Held values are checked one by one (op_gather); otherwise their element bounds, when
 * known, must be: an empty indices tensor reads nothing. Unknown bounds (indices read from data)
 * are the runtime's check, as PyTorch's data-dependent asserts. */
static sy_status index_bounds(ox_call *c, size_t k, const sy_expr *D, const char *what)
{
    const sy_expr *lo, *hi;
    if (!elem_bounds(c, k, &lo, &hi)) return SY_OK;
    /* loose bounds (a subset's) are not a requirement: the elements may all be inside while a bound is out */
    if (c->in[k]->has_eb == 2 && ox_eb(c->in[k])) return SY_OK;
    sy_ctx *x = c->ctx;
    const sy_expr *in = sy_expr_and(x, sy_expr_ge(x, lo, sy_expr_neg(x, D)), sy_expr_lt(x, hi, D));
    const sy_expr *empty = sy_expr_eq(x, numel(c, T(c, k)), K(c, 0));
    return require(c, sy_expr_or(x, empty, in), "%s: every index in [-dim, dim)", what);
}

/* Gather-13: data.shape[:axis] + indices.shape + data.shape[axis+1:]; constant indices must be in [-dim, dim) */
static sy_status op_gather(ox_call *c)
{
    const sy_tensor *x = T(c, 0), *ix = T(c, 1);
    int64_t a;
    TRY(ox_attr_int(c, "axis", 0, &a));
    size_t ax;
    TRY(norm_axis(c, a, x->ndim, &ax));
    const sy_expr *d[MAXR];
    size_t r = 0;
    if (x->ndim + ix->ndim > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    for (size_t i = 0; i < ax; i++) d[r++] = x->sizes[i];
    for (size_t i = 0; i < ix->ndim; i++) d[r++] = ix->sizes[i];
    for (size_t i = ax + 1; i < x->ndim; i++) d[r++] = x->sizes[i];
    TRY(set_out(c, 0, c->in[0]->elem, r, d));
    size_t ni;
    const sy_expr **iv = vals(c, 1, &ni);
    const sy_expr *D = x->sizes[ax];
    if (!iv) return index_bounds(c, 1, D, "Gather");
    const sy_expr **norm = ox_alloc(c, (ni ? ni : 1) * sizeof *norm);
    CHK(norm);
    for (size_t i = 0; i < ni; i++) {
        if (is_b(iv[i])) return ox_err(c, SY_EINVAL, "indices must be integers");
        int64_t q, dv, qd;
        if (ival(iv[i], &q) && ival(D, &dv) && q < dv && !sy_i64_add(q, dv, &qd) && qd >= 0) { /* in [-dim, dim) */
            norm[i] = q < 0 ? K(c, qd) : iv[i];
            CHK(norm[i]);
            continue;
        }
        TRY(require(c, sy_expr_and(c->ctx, sy_expr_ge(c->ctx, iv[i], sy_expr_neg(c->ctx, D)), sy_expr_lt(c->ctx, iv[i], D)),
                    "Gather: index in [-dim, dim)"));
        int neg;
        TRY(truth(c, sy_expr_lt(c->ctx, iv[i], K(c, 0)), "Gather: index is negative", &neg));
        norm[i] = neg ? sy_expr_add(c->ctx, iv[i], D) : iv[i];
    }
    /* values (the Shape -> Gather pattern, and data of any rank): output element
     * (pre, i, post) is data element (pre, indices[i], post); the indices must be constant */
    int64_t xd[MAXR];
    size_t xs[MAXR], src[SY_ONNX_MAX_VALUES];
    if (!held_shape(c->in[0], xd, xs)) return SY_OK;
    size_t outer = 1, inner = xs[ax], tot;
    for (size_t i = 0; i < ax; i++) outer *= (size_t)xd[i];
    if (ni && outer * inner > SY_ONNX_MAX_VALUES / ni) return SY_OK;
    tot = outer * ni * inner;
    size_t j = 0;
    for (size_t o = 0; o < outer; o++)
        for (size_t i = 0; i < ni; i++) {
            int64_t q;
            if (sy_expr_get_si(norm[i], &q) != SY_OK || q < 0 || q >= xd[ax]) return SY_OK;
            for (size_t p = 0; p < inner; p++) src[j++] = o * xs[ax] * (size_t)xd[ax] + (size_t)q * inner + p;
        }
    return pick_vals(c, 0, c->in[0], tot, src);
}

/* GatherElements-13: output has the indices' shape; ranks must match */
static sy_status op_gatherelements(ox_call *c)
{
    if (T(c, 0)->ndim != T(c, 1)->ndim) return ox_err(c, SY_EINVAL, "data and indices must have the same rank");
    int64_t a;
    TRY(ox_attr_int(c, "axis", 0, &a));
    size_t ax;
    TRY(norm_axis(c, a, T(c, 0)->ndim, &ax));
    TRY(index_bounds(c, 1, T(c, 0)->sizes[ax], "GatherElements"));
    /* onnxruntime gather_elements.cc ValidateInputShapes: off the axis, every indices dim is at
     * most the data's ("'indices' shape should have values within bounds of 'data' shape") */
    for (size_t i = 0; i < T(c, 0)->ndim; i++)
        if (i != ax)
            TRY(require(c, sy_expr_le(c->ctx, T(c, 1)->sizes[i], T(c, 0)->sizes[i]),
                        "GatherElements: indices dim %zu must be <= the data's", i));
    return set_out(c, 0, c->in[0]->elem, T(c, 1)->ndim, T(c, 1)->sizes);
}

/* GatherND-13: indices[..., k] picks k leading (after batch_dims) dims */
static sy_status op_gathernd(ox_call *c)
{
    const sy_tensor *x = T(c, 0), *ix = T(c, 1);
    int64_t b, k;
    TRY(ox_attr_int(c, "batch_dims", 0, &b));
    if (!ix->ndim) return ox_err(c, SY_EINVAL, "indices must have rank >= 1");
    TRY(concrete(c, ix->sizes[ix->ndim - 1], "GatherND index depth", &k));
    if (b < 0 || (size_t)(b + k) > x->ndim) return ox_err(c, SY_EINVAL, "index depth out of range");
    const sy_expr *d[MAXR];
    size_t r = 0;
    for (size_t i = 0; i + 1 < ix->ndim; i++) d[r++] = ix->sizes[i];
    for (size_t i = (size_t)(b + k); i < x->ndim; i++) d[r++] = x->sizes[i];
    TRY(set_out(c, 0, c->in[0]->elem, r, d));
    /* onnxruntime gather_nd.cc: each index in [-dim, dim) of the data dim it picks ("invalid index found");
     * element bounds say which dim only at depth 1 (every element picks dim batch_dims) */
    return k == 1 ? index_bounds(c, 1, x->sizes[(size_t)b], "GatherND") : SY_OK;
}

/* ScatterND-18, ScatterElements-18, Scatter: the data's shape. The indices' element bounds, where
 * they say which dim each element indexes, must be in [-dim, dim) as onnxruntime checks them (measured:
 * -4 and 3 run on a dim of 4, -5 and 4 fail): ScatterElements on `axis` (scatter.cc, "indices element
 * out of data bounds"), ScatterND at depth 1 on dim 0 (scatter_nd.cc, "invalid indice found") */
static sy_status op_scatter(ox_call *c)
{
    TRY(same_as(c, 0, 0));
    const sy_tensor *x = T(c, 0), *ix = T(c, 1);
    if (!strcmp(c->node->op_type, "ScatterND")) {
        int64_t k;
        if (!x->ndim || !ix->ndim || sy_expr_get_si(ix->sizes[ix->ndim - 1], &k) != SY_OK || k != 1) {
            sy_ctx_reset_error(c->ctx);
            return SY_OK;
        }
        return index_bounds(c, 1, x->sizes[0], "ScatterND");
    }
    int64_t a;
    TRY(ox_attr_int(c, "axis", 0, &a));
    size_t ax;
    TRY(norm_axis(c, a, x->ndim, &ax));
    return index_bounds(c, 1, x->sizes[ax], strcmp(c->node->op_type, "Scatter") ? "ScatterElements" : "Scatter");
}

/* Expand-13: broadcast of the input shape and the target shape */
static sy_status op_expand(ox_call *c)
{
    size_t n = 0;          /* set by shape_input on success; initialised for gcc -O3's */
    const sy_expr **d = NULL; /* -Wmaybe-uninitialized, which cannot see through TRY */
    int known;
    TRY(shape_input(c, 1, &n, &d, &known));
    /* Expand-13: the shape's entries are sizes; a negative one fails at run time (the
     * spec's reference, input * numpy.ones(shape): "negative dimensions are not allowed") */
    for (size_t i = 0; i < n; i++) TRY(require(c, sy_expr_ge(c->ctx, d[i], K(c, 0)), "Expand: shape values must be >= 0"));
    const sy_tensor *s = sy_tensor_new(c->env, SY_DT_INT64, n, d);
    CHK(s);
    const sy_tensor *ts[2] = {T(c, 0), s};
    const sy_expr *od[MAXR];
    size_t r;
    TRY(bcast_shapes(c, 2, ts, &r, od));
    TRY(set_out(c, 0, c->in[0]->elem, r, od));
    int64_t tot = 1;
    for (size_t i = 0; i < r; i++) {
        int64_t v;
        if (sy_expr_get_si(od[i], &v) != SY_OK) {
            sy_ctx_reset_error(c->ctx);
            return SY_OK;
        }
        if (v < 0 || (v && tot > SY_ONNX_MAX_VALUES / v)) return SY_OK; /* too many values to carry (and tot*v could pass int64) */
        tot *= v;
    }
    if (c->in[0]->iv && c->in[0]->nv == 1 && tot <= SY_ONNX_MAX_VALUES) {
        const sy_expr **v = ox_alloc(c, (tot ? (size_t)tot : 1) * sizeof *v);
        CHK(v);
        for (int64_t i = 0; i < tot; i++) v[i] = c->in[0]->iv[0];
        return set_vals(c, 0, (size_t)tot, v);
    }
    return SY_OK;
}

/* Tile-13: dim * repeats */
static sy_status op_tile(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    size_t n;
    const sy_expr **rep = vals(c, 1, &n);
    const sy_expr *d[MAXR];
    if (x->ndim > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    if (!rep) {
        TRY(unbacked_dims(c, x->ndim, d, "data-dependent tile"));
        return set_out(c, 0, c->in[0]->elem, x->ndim, d);
    }
    if (n != x->ndim) return ox_err(c, SY_EINVAL, "repeats has %zu entries, the input rank is %zu", n, x->ndim);
    int maybe0 = 0;
    for (size_t i = 0; i < n; i++) {
        TRY(require(c, sy_expr_ge(c->ctx, rep[i], K(c, 0)), "Tile: repeats must be >= 0"));
        d[i] = sy_expr_mul(c->ctx, x->sizes[i], rep[i]);
        CHK(d[i]);
    }
    /* onnxruntime's CPU Tile refuses an output past 4 GiB: "Tile output tensor would require more
     * than 4294967296 bytes, which exceeds the supported maximum of 4294967296 bytes" (onnxruntime
     * 1.32 tile.cc, M = 2^32 / element size elements): each output dim that is not 0 must be <= M,
     * and the product of the dims up to each one too (it stops growing at a 0 dim), so a dim past M
     * is refused even when another dim is 0 ([2^40, n, 0] at every n, measured); measured at the
     * border: float32 [1024] x 1048576 = 2^32 bytes runs, x 1048577 is refused, uint8 [4096] x
     * 1048577 too. Where no dim may be 0, the whole product bounds every dim and every leading
     * product: it alone is required. */
    size_t es = ox_elem_size(c->in[0]->elem);
    if (!es) return set_out(c, 0, c->in[0]->elem, x->ndim, d);
    const sy_expr *M = K(c, ((int64_t)1 << 32) / (int64_t)es), *P = K(c, 1);
    for (size_t i = 0; i < n && !maybe0; i++) maybe0 = !at_least_1(c, d[i]);
    for (size_t i = 0; i < n; i++) {
        P = sy_expr_mul(c->ctx, P, d[i]);
        CHK(P);
        if (maybe0)
            TRY(require(c, sy_expr_le(c->ctx, d[i], M), "Tile: output dim %zu must be at most %s elements (4294967296 bytes, "
                                                        "onnxruntime's limit for Tile)", i, show(c, M)));
        if (i + 1 == n || (maybe0 && !at_least_1(c, d[i + 1])))
            TRY(require(c, sy_expr_le(c->ctx, P, M), "Tile: the output must be at most 4294967296 bytes (onnxruntime's limit for Tile)"));
    }
    return set_out(c, 0, c->in[0]->elem, x->ndim, d);
}

/* Range-11: max(ceil((limit - start) / delta), 0) elements */
static sy_status op_range(ox_call *c)
{
    size_t n0, n1, n2;
    const sy_expr **s = vals(c, 0, &n0), **l = vals(c, 1, &n1), **dl = vals(c, 2, &n2);
    const sy_expr *d;
    int elem = c->in[0]->elem;
    if (!s || !l || !dl || n0 != 1 || n1 != 1 || n2 != 1) {
        TRY(unbacked_dims(c, 1, &d, "data-dependent range"));
        return set_out(c, 0, elem, 1, &d);
    }
    int64_t delta;
    TRY(concrete(c, dl[0], "Range delta", &delta));
    if (delta == 0) return ox_err(c, SY_EINVAL, "delta is 0");
    const sy_expr *diff = sy_expr_sub(c->ctx, l[0], s[0]);
    d = delta > 0 ? sy_expr_ceildiv(c->ctx, diff, K(c, delta))
                  : sy_expr_ceildiv(c->ctx, sy_expr_neg(c->ctx, diff), sy_expr_neg(c->ctx, K(c, delta))); /* -INT64_MIN: in the algebra */
    d = sy_expr_max(c->ctx, d, K(c, 0));
    CHK(d);
    const sy_expr *sd = sy_env_simplify(c->env, d);
    if (sd) d = sd;
    else sy_ctx_reset_error(c->ctx);
    TRY(set_out(c, 0, elem, 1, &d));
    int64_t len;
    if (sy_expr_get_si(d, &len) == SY_OK && len <= SY_ONNX_MAX_VALUES) {
        const sy_expr **v = ox_alloc(c, (len ? (size_t)len : 1) * sizeof *v);
        CHK(v);
        for (int64_t i = 0; i < len; i++) v[i] = sy_expr_add(c->ctx, s[0], sy_expr_mul_si(c->ctx, K(c, i), delta)); /* i*delta can pass int64 */
        return set_vals(c, 0, (size_t)len, v);
    }
    sy_ctx_reset_error(c->ctx);
    if (!ox_is_int(elem)) return SY_OK;
    /* not held: the first element s and the last s + (d-1)*delta bound them all (vacuous when d = 0,
     * which index_bounds allows for) */
    const sy_expr *co = K(c, delta);
    return set_aff(c, 0, s[0], &co); /* element k is s + k*delta (onnxruntime range.cc) */
}

/* Pad-18 / -13 / -11: pads input [x1_begin, x2_begin, ..., x1_end, ...], optional axes (18) */
static sy_status op_pad(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    size_t n, na = 0;
    const sy_expr **p = NULL;
    size_t nattr;
    const int64_t *pa;
    TRY(ox_attr_ints(c, "pads", &nattr, &pa));
    const sy_expr *pv[2 * MAXR];
    if (x->ndim > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    if (ox_attr(c, "pads")) {
        if (nattr > 2 * MAXR) return ox_err(c, SY_EINVAL, "too many pads");
        for (size_t i = 0; i < nattr; i++) pv[i] = K(c, pa[i]);
        p = pv;
        n = nattr;
    } else {
        p = (const sy_expr **)vals(c, 1, &n);
    }
    const sy_expr *d[MAXR];
    if (!p) {
        TRY(unbacked_dims(c, x->ndim, d, "data-dependent pad"));
        return set_out(c, 0, c->in[0]->elem, x->ndim, d);
    }
    int64_t *axes = NULL;
    if (has(c, 3)) TRY(const_ints(c, 3, "Pad axes", &na, &axes));
    size_t m = axes ? na : x->ndim;
    if (n != 2 * m) return ox_err(c, SY_EINVAL, "pads has %zu entries, expected %zu", n, 2 * m);
    char mode[16];
    TRY(ox_attr_string(c, "mode", "constant", mode, sizeof mode));
    int refl = !strcmp(mode, "reflect");
    if (strcmp(mode, "constant") && !refl && strcmp(mode, "edge") && strcmp(mode, "wrap"))
        return ox_err(c, SY_EINVAL, "Pad: unknown mode '%s'", mode);
    for (size_t i = 0; i < x->ndim; i++) d[i] = x->sizes[i];
    /* Pad-18: a repeated axis is an error (onnx's shape inference: "Axis N is referred to more
     * than once", onnxruntime rejects the model); the second pad would otherwise be lost */
    for (size_t i = 0; axes && i < m; i++) {
        size_t a, b;
        TRY(norm_axis(c, axes[i], x->ndim, &a));
        for (size_t j = 0; j < i; j++) {
            TRY(norm_axis(c, axes[j], x->ndim, &b));
            if (a == b) return ox_err(c, SY_EINVAL, "Pad: axis %zu repeated", a);
        }
    }
    /* an input without elements: onnxruntime 1.32 skips the cropped-extent and reflect checks, only a
     * padded axis must not be 0 and the output dims >= 0 ([0, h] with edge pads -3, +2 on axis 1 runs
     * at h = 1..5; symshape required n >= 1, an unpadded axis, and h >= 4: attack38e) */
    const sy_expr *numel = x->ndim ? sy_expr_mul_n(c->ctx, x->ndim, x->sizes) : K(c, 1);
    CHK(numel);
    const sy_expr *empty = sy_expr_eq(c->ctx, numel, K(c, 0));
    CHK(empty);
    for (size_t i = 0; i < m; i++) {
        size_t a = i;
        if (axes) TRY(norm_axis(c, axes[i], x->ndim, &a));
        int unpadded = p[i] == K(c, 0) && p[i + m] == K(c, 0);
        if (strcmp(mode, "constant") && !unpadded) {
            /* a padded axis of size 0: "Cannot use 'edge' mode to pad dimension with a value of 0",
             * even when the input is empty (onnxruntime 1.32 pad.cc) */
            TRY(require(c, sy_expr_ge(c->ctx, d[a], K(c, 1)), "Pad (%s): axis %zu is padded and has size 0", mode, a));
            /* reflect / edge / wrap copy from the input cropped by the negative pads: it must not be
             * empty (onnxruntime: "zero effective input extent"; wrap of an empty input fails too),
             * and a reflected pad must stay inside it (onnxruntime pad.cc: "pre-pad (3) exceeds maximum
             * allowed (2)", max = extent - 1; the cropped extent here, never more than the dim) */
            const sy_expr *e, *padded; /* e: the input left after the negative pads crop it */
            TRY(sy_rule_pad_dim(c->env, d[a], p[i], p[i + m], &padded, &e));
            TRY(require(c, sy_expr_or(c->ctx, empty, sy_expr_ge(c->ctx, e, K(c, 1))), "Pad (%s): axis %zu has no input left to pad from",
                        mode, a));
            if (refl)
                TRY(require(c, sy_expr_or(c->ctx, empty, sy_expr_and(c->ctx, sy_expr_le(c->ctx, p[i], sy_expr_add_si(c->ctx, e, -1)),
                                                                      sy_expr_le(c->ctx, p[i + m], sy_expr_add_si(c->ctx, e, -1)))),
                            "Pad (reflect): a pad of axis %zu exceeds its size - 1", a));
        }
        /* an axis with both pads 0 is the input's dim, >= 0 by itself: no requirement, which would rely
         * on the dim's range (a guard 2 <= d under 0/1 specialization, where the model runs at 0 and 1) */
        if (p[i] == K(c, 0) && p[i + m] == K(c, 0)) continue;
        TRY(sy_rule_pad_dim(c->env, d[a], p[i], p[i + m], &d[a], NULL)); /* the rule shared with the torch frontend */
        TRY(require(c, sy_expr_ge(c->ctx, d[a], K(c, 0)), "Pad: the padded dim must be >= 0"));
    }
    return set_out(c, 0, c->in[0]->elem, x->ndim, d);
}

/* ------------------------------------------------------------------ reductions, normalization */

/* Reduce*-13/18 (axes attribute before 18, input from 18; ReduceSum from 13),
 * ArgMax/ArgMin-13 (axis, int64 output) */
static sy_status reduce(ox_call *c, int arg)
{
    const sy_tensor *x = T(c, 0);
    int64_t keep, nwa = 0;
    TRY(ox_attr_int(c, "keepdims", 1, &keep));
    TRY(ox_attr_int(c, "noop_with_empty_axes", 0, &nwa));
    int mark[MAXR] = {0};
    if (x->ndim > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    if (arg) {
        int64_t a;
        TRY(ox_attr_int(c, "axis", 0, &a));
        size_t ax;
        TRY(norm_axis(c, a, x->ndim, &ax));
        mark[ax] = 1;
        /* an empty axis has no index to return: onnxruntime 1.32 fails (RUNTIME_EXCEPTION, no message)
         * unless the output is empty too ([2, 0, 3] on axis 1 fails; [0, 0, 3] and [2, 0, 0] run;
         * attack38e, tests/onnx/test_issue38.py) */
        if (x->ndim) {
            const sy_expr *rest[MAXR];
            size_t nr = 0;
            for (size_t i = 0; i < x->ndim; i++)
                if (i != ax) rest[nr++] = x->sizes[i];
            const sy_expr *numel = nr ? sy_expr_mul_n(c->ctx, nr, rest) : K(c, 1);
            TRY(require(c, sy_expr_or(c->ctx, sy_expr_ge(c->ctx, x->sizes[ax], K(c, 1)), sy_expr_eq(c->ctx, numel, K(c, 0))),
                        "%s: the reduced axis %zu is empty while the output is not", c->node->op_type, ax));
        }
    } else {
        size_t n;
        int64_t *ax;
        int present;
        TRY(ints_attr_or_input(c, "axes", 1, "reduction axes", &present, &n, &ax));
        if (!present || !n) {
            if (nwa) return op_identity(c);
            for (size_t i = 0; i < x->ndim; i++) mark[i] = 1;
        }
        for (size_t i = 0; i < n; i++) {
            size_t a;
            TRY(norm_axis(c, ax[i], x->ndim, &a));
            mark[a] = 1;
        }
    }
    const sy_expr *d[MAXR];
    size_t r = 0;
    for (size_t i = 0; i < x->ndim; i++) {
        if (!mark[i]) d[r++] = x->sizes[i];
        else if (keep) d[r++] = K(c, 1);
    }
    TRY(set_out(c, 0, arg ? OX_INT64 : c->in[0]->elem, r, d));
    /* values: ReduceProd / ReduceSum / ReduceMax / ReduceMin over a 1-D shape tensor */
    const char *op = c->node->op_type;
    size_t n;
    const sy_expr **v;
    if (!arg && x->ndim == 1 && (v = vals(c, 0, &n))) {
        const sy_expr *acc = NULL;
        for (size_t i = 0; i < n; i++) if (is_b(v[i])) return SY_OK;
        if (!strcmp(op, "ReduceProd")) acc = sy_expr_mul_n(c->ctx, n, v);
        else if (!strcmp(op, "ReduceSum")) acc = sy_expr_add_n(c->ctx, n, v);
        else if (!strcmp(op, "ReduceMax") && n) acc = sy_expr_max_n(c->ctx, n, v);
        else if (!strcmp(op, "ReduceMin") && n) acc = sy_expr_min_n(c->ctx, n, v);
        if (acc) {
            const sy_expr **r1 = ox_alloc(c, sizeof *r1);
            CHK(r1);
            r1[0] = acc;
            return set_vals(c, 0, 1, r1);
        }
    }
    return SY_OK;
}
static sy_status op_reduce(ox_call *c) { return reduce(c, 0); }
static sy_status op_argreduce(ox_call *c) { return reduce(c, 1); }

/* Softmax-13, LogSoftmax-13, Hardmax-13, LpNormalization-1, LRN-13: shape of X, axis in range */
static sy_status op_softmax(ox_call *c)
{
    int64_t a;
    TRY(ox_attr_int(c, "axis", -1, &a));
    size_t ax;
    if (T(c, 0)->ndim) TRY(norm_axis(c, a, T(c, 0)->ndim, &ax));
    return same_as(c, 0, 0);
}

static sy_status channel_check(ox_call *c, size_t k, const char *what)
{
    const sy_tensor *x = T(c, 0), *p = T(c, k);
    if (!p) return SY_OK;
    if (x->ndim < 2) return ox_err(c, SY_EINVAL, "X must have rank >= 2");
    if (p->ndim != 1) return ox_err(c, SY_EINVAL, "%s must be 1-D", what);
    return require(c, sy_expr_eq(c->ctx, p->sizes[0], x->sizes[1]), "%s: length must equal the channel count", what);
}

/* BatchNormalization-15: Y like X; training outputs running mean/var [C] */
static sy_status op_batchnorm(ox_call *c)
{
    for (size_t k = 1; k < 5 && k < c->nin; k++) TRY(channel_check(c, k, "BatchNormalization parameter"));
    TRY(same_as(c, 0, 0));
    for (size_t k = 1; k < c->nout; k++) TRY(set_out(c, k, c->in[0]->elem, 1, &T(c, 0)->sizes[1]));
    return SY_OK;
}

/* InstanceNormalization-6 */
static sy_status op_instancenorm(ox_call *c)
{
    TRY(channel_check(c, 1, "InstanceNormalization scale"));
    TRY(channel_check(c, 2, "InstanceNormalization B"));
    return same_as(c, 0, 0);
}

/* LayerNormalization-17: Y like X; Mean / InvStdDev with dims from axis on = 1 */
static sy_status op_layernorm(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    int64_t a;
    TRY(ox_attr_int(c, "axis", -1, &a));
    size_t ax;
    TRY(norm_axis(c, a, x->ndim, &ax));
    const sy_tensor *s = T(c, 1);
    size_t nt = x->ndim - ax;
    const sy_tensor *ts[2] = {NULL, s};
    (void)ts;
    if (s && s->ndim > nt) return ox_err(c, SY_EINVAL, "Scale has rank %zu, more than the normalized dims (%zu)", s->ndim, nt);
    /* onnxruntime (core/providers/cpu/nn/layer_norm_helper.h, kLayerNormInputShapeMismatchError): "Size
     * of scale and bias (if provided) must match X.shape[axis:]" (its other case, scale and bias of one
     * shape broadcast to X at axis 2, is not accepted here: rejected, never wrongly accepted) */
    for (size_t k = 1; k < 3 && k < c->nin; k++) {
        const sy_tensor *p = T(c, k);
        if (!p) continue;
        const sy_expr *ne = sy_expr_mul_n(c->ctx, nt, x->sizes + ax);
        TRY(require(c, ne ? sy_expr_eq(c->ctx, numel(c, p), ne) : NULL,
                    "LayerNormalization: %s must have as many elements as X.shape[axis:]", k == 1 ? "Scale" : "B"));
    }
    TRY(same_as(c, 0, 0));
    const sy_expr *d[MAXR];
    if (x->ndim > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    for (size_t i = 0; i < x->ndim; i++) d[i] = i < ax ? x->sizes[i] : K(c, 1);
    for (size_t k = 1; k < c->nout; k++) TRY(set_out(c, k, OX_FLOAT, x->ndim, d));
    return SY_OK;
}

/* GroupNormalization-18/21: X [N, C, ...]; num_groups >= 1 dividing C (onnxruntime reshapes X to
 * [N, num_groups, -1]); scale and bias of num_groups entries (18) or C (21); X not empty:
 * onnxruntime 1.32 runs the op as its function body, whose Reshapes fail on every empty X (N = 0:
 * "cannot be reshaped ... requested shape:{0,2,-1}"; a spatial or channel dim 0: "The dimension
 * with value zero exceeds the dimension size of the input tensor"; attack46n, ranks 2-4, 18 and 21) */
static sy_status op_groupnorm(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    if (x->ndim < 2) return ox_err(c, SY_EINVAL, "GroupNormalization: X must have rank >= 2");
    int64_t g;
    TRY(ox_attr_int(c, "num_groups", 0, &g));
    if (g < 1) return ox_err(c, SY_EINVAL, "GroupNormalization: num_groups must be >= 1, got %lld", (long long)g);
    TRY(require(c, sy_expr_eq(c->ctx, sy_expr_mod(c->ctx, x->sizes[1], K(c, g)), K(c, 0)),
                "GroupNormalization: the channels must be divisible by num_groups %lld", (long long)g));
    for (size_t i = 0; i < x->ndim; i++)
        TRY(require(c, sy_expr_ge(c->ctx, x->sizes[i], K(c, 1)),
                    "GroupNormalization: X must not be empty (dim %zu), onnxruntime's Reshapes fail on it", i));
    const sy_expr *want = c->opset >= 21 ? x->sizes[1] : K(c, g);
    for (size_t k = 1; k <= 2; k++) {
        const sy_tensor *t = T(c, k);
        if (t->ndim != 1) return ox_err(c, SY_EINVAL, "GroupNormalization: %s must be 1-D", k == 1 ? "scale" : "bias");
        TRY(require(c, sy_expr_eq(c->ctx, t->sizes[0], want), "GroupNormalization: %s must have %s entries (opset %d)",
                    k == 1 ? "scale" : "bias", c->opset >= 21 ? "C" : "num_groups", (int)c->opset));
    }
    return same_as(c, 0, 0);
}

/* ------------------------------------------------------------------ linear algebra */

/* MatMul-13: numpy matmul (1-D operands promoted, batch dims broadcast) */
static sy_status op_matmul(ox_call *c)
{
    const sy_tensor *a = T(c, 0), *b = T(c, 1);
    if (!a->ndim || !b->ndim) return ox_err(c, SY_EINVAL, "MatMul operands must have rank >= 1");
    const sy_expr *one = K(c, 1);
    size_t ra = a->ndim, rb = b->ndim;
    const sy_expr *ka = a->sizes[ra - 1], *kb = rb == 1 ? b->sizes[0] : b->sizes[rb - 2];
    if (ka != kb) TRY(require(c, sy_expr_eq(c->ctx, ka, kb), "MatMul: inner dims must match"));
    size_t nba = ra >= 2 ? ra - 2 : 0, nbb = rb >= 2 ? rb - 2 : 0;
    /* the batch dims as shapes to broadcast (bcast_shapes reads ndim and sizes: no tensor of the env) */
    const sy_tensor ba = {.dtype = SY_DT_INT64, .ndim = nba, .sizes = a->sizes};
    const sy_tensor bb = {.dtype = SY_DT_INT64, .ndim = nbb, .sizes = b->sizes};
    const sy_tensor *ts[2] = {&ba, &bb};
    const sy_expr *d[MAXR + 2];
    size_t r;
    TRY(bcast_shapes(c, 2, ts, &r, d));
    if (ra >= 2) d[r++] = a->sizes[ra - 2];
    if (rb >= 2) d[r++] = b->sizes[rb - 1];
    (void)one;
    return set_out(c, 0, c->in[0]->elem, r, d);
}

/* Gemm-13: A' [M, K], B' [K, N] (transA / transB), C broadcastable to [M, N] */
static sy_status op_gemm(ox_call *c)
{
    const sy_tensor *a = T(c, 0), *b = T(c, 1);
    if (a->ndim != 2 || b->ndim != 2) return ox_err(c, SY_EINVAL, "Gemm operands must be 2-D");
    int64_t ta, tb;
    TRY(ox_attr_int(c, "transA", 0, &ta));
    TRY(ox_attr_int(c, "transB", 0, &tb));
    const sy_expr *M = a->sizes[ta ? 1 : 0], *Ka = a->sizes[ta ? 0 : 1], *Kb = b->sizes[tb ? 1 : 0], *N = b->sizes[tb ? 0 : 1];
    if (Ka != Kb) TRY(require(c, sy_expr_eq(c->ctx, Ka, Kb), "Gemm: inner dims must match"));
    const sy_expr *d[2] = {M, N};
    if (has(c, 2)) {
        const sy_tensor mn = {.dtype = SY_DT_INT64, .ndim = 2, .sizes = d}; /* a shape to broadcast */
        const sy_tensor *ts[2] = {&mn, T(c, 2)};
        size_t r;
        const sy_expr *od[MAXR];
        TRY(bcast_shapes(c, 2, ts, &r, od));
        if (r != 2) return ox_err(c, SY_EINVAL, "C must broadcast to [M, N]");
        for (int i = 0; i < 2; i++)
            if (od[i] != d[i]) TRY(require(c, sy_expr_eq(c->ctx, od[i], d[i]), "Gemm: C must broadcast to [M, N]"));
    }
    return set_out(c, 0, c->in[0]->elem, 2, d);
}

/* Einsum-12: explicit (->) or implicit output; '...' broadcast */
static sy_status op_einsum(ox_call *c)
{
    char eq[512];
    TRY(ox_attr_string(c, "equation", "", eq, sizeof eq));
    char *arrow = strstr(eq, "->");
    const sy_expr *letter[128] = {0};
    int count[128] = {0};
    const sy_tensor *ell[16];
    sy_tensor ellt[16]; /* the ellipsis dims of each operand, shapes to broadcast */
    size_t nell = 0;
    char *p = eq;
    const sy_expr *elld[MAXR];
    size_t ellr = 0;
    for (size_t k = 0; k < c->nin; k++) {
        const sy_tensor *x = T(c, k);
        char term[128];
        size_t tl = 0;
        while (*p == ' ') p++;
        while (*p && *p != ',' && (!arrow || p < arrow)) {
            if (*p != ' ' && tl < sizeof term - 1) term[tl++] = *p;
            p++;
        }
        term[tl] = 0;
        if (*p == ',') p++;
        char *dots = strstr(term, "...");
        size_t nlet = tl - (dots ? 3 : 0);
        if (nlet > x->ndim || (!dots && nlet != x->ndim))
            return ox_err(c, SY_EINVAL, "term '%s' does not match the rank %zu of input %zu", term, x->ndim, k);
        size_t ne = x->ndim - nlet, di = 0;
        for (char *q = term; *q; q++) {
            if (q == dots) {
                if (nell < 16) {
                    ellt[nell] = (sy_tensor){.dtype = SY_DT_INT64, .ndim = ne, .sizes = x->sizes + di};
                    ell[nell] = &ellt[nell];
                    nell++;
                }
                di += ne;
                q += 2;
                continue;
            }
            unsigned char ch = (unsigned char)*q;
            if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) return ox_err(c, SY_EINVAL, "bad equation '%s'", eq);
            const sy_expr *dim = x->sizes[di++];
            if (letter[ch]) {
                const sy_expr *o;
                TRY(bcast_dim(c, letter[ch], dim, &o));
                letter[ch] = o;
            } else letter[ch] = dim;
            count[ch]++;
        }
    }
    if (nell) TRY(bcast_shapes(c, nell, ell, &ellr, elld));
    const sy_expr *d[MAXR];
    size_t r = 0;
    if (arrow) {
        for (char *q = arrow + 2; *q; q++) {
            if (*q == ' ') continue;
            if (!strncmp(q, "...", 3)) {
                for (size_t i = 0; i < ellr && r < MAXR; i++) d[r++] = elld[i];
                q += 2;
                continue;
            }
            unsigned char ch = (unsigned char)*q;
            if (ch >= 128 || !letter[ch]) return ox_err(c, SY_EINVAL, "output letter '%c' not among the inputs", *q);
            if (r < MAXR) d[r++] = letter[ch];
        }
    } else {
        for (size_t i = 0; i < ellr && r < MAXR; i++) d[r++] = elld[i];
        for (int ch = 0; ch < 128; ch++)
            if (count[ch] == 1 && r < MAXR) d[r++] = letter[ch];
    }
    return set_out(c, 0, c->in[0]->elem, r, d);
}

/* ------------------------------------------------------------------ conv, pool */

typedef struct {
    size_t ns;
    int64_t k[MAXR], s[MAXR], dil[MAXR], pb[MAXR], pe[MAXR];
    char autopad[32];
} winp;

static sy_status window_params(ox_call *c, size_t ns, const int64_t *kernel, winp *w)
{
    w->ns = ns;
    size_t n;
    const int64_t *v;
    for (size_t i = 0; i < ns; i++) w->k[i] = kernel[i], w->s[i] = 1, w->dil[i] = 1, w->pb[i] = 0, w->pe[i] = 0;
    TRY(ox_attr_ints(c, "strides", &n, &v));
    if (v && n != ns) return ox_err(c, SY_EINVAL, "strides has %zu entries for %zu spatial dims", n, ns);
    for (size_t i = 0; v && i < n; i++) w->s[i] = v[i];
    TRY(ox_attr_ints(c, "dilations", &n, &v));
    if (v && n != ns) return ox_err(c, SY_EINVAL, "dilations has %zu entries for %zu spatial dims", n, ns);
    for (size_t i = 0; v && i < n; i++) w->dil[i] = v[i];
    TRY(ox_attr_ints(c, "pads", &n, &v));
    if (v && n != 2 * ns) return ox_err(c, SY_EINVAL, "pads has %zu entries for %zu spatial dims", n, ns);
    for (size_t i = 0; v && i < ns; i++) w->pb[i] = v[i], w->pe[i] = v[i + ns];
    TRY(ox_attr_string(c, "auto_pad", "NOTSET", w->autopad, sizeof w->autopad));
    for (size_t i = 0; i < ns; i++) {
        if (w->s[i] <= 0 || w->dil[i] <= 0 || w->k[i] <= 0)
            return ox_err(c, SY_EINVAL, "kernel, strides and dilations must be positive");
        if (w->pb[i] < 0 || w->pe[i] < 0) return ox_err(c, SY_EINVAL, "pads must be non-negative");
        if (w->k[i] > (int64_t)1 << 40 || w->s[i] > (int64_t)1 << 40 || w->dil[i] > (int64_t)1 << 40 || w->pb[i] > (int64_t)1 << 40 ||
            w->pe[i] > (int64_t)1 << 40)
            return ox_err(c, SY_EUNSUPPORTED, "window parameters past 2^40");
    }
    if (strcmp(w->autopad, "NOTSET") && strcmp(w->autopad, "VALID") && strcmp(w->autopad, "SAME_UPPER") &&
        strcmp(w->autopad, "SAME_LOWER"))
        return ox_err(c, SY_EINVAL, "unknown auto_pad '%s'", w->autopad);
    return SY_OK;
}

/* output size of a window op (Conv-11, MaxPool-12, AveragePool-11, LpPool-18):
 *   NOTSET: floor((d + pb + pe - dil*(k-1) - 1) / s) + 1, the window fitting the padded
 *           input (Conv); a pool without ceil_mode truncates toward 0 as onnxruntime's
 *           PoolAttributes does and needs only an output >= 0 (sy_rule_window_out_trunc);
 *           ceil with ceil_mode, where a last window starting in the end padding is
 *           dropped (PyTorch's pooling_output_shape, onnxruntime's PoolAttributes), the
 *           output >= 0
 *   VALID:  floor((d - dil*(k-1) - 1) / s) + 1;  SAME_*: ceil(d / s). */
/* the window's extent dil*(k-1) + 1 in a message: up to 2^80 (k and dil up to 2^40 each), so
 * printed from its exact constant (in int64 the product overflowed: UBSan, attack38e) */
static const char *ext_text(ox_call *c, const sy_expr *ext, char *buf, size_t n)
{
    char *t = sy_expr_print(c->ctx, ext, SY_PRINT_CANONICAL);
    snprintf(buf, n, "%s", t ? t : "?");
    sy_str_free(c->ctx, t);
    return buf;
}

static sy_status window_out(ox_call *c, const winp *w, size_t i, const sy_expr *d, int pool, int ceil_mode,
                            const sy_expr **out)
{
    sy_ctx *x = c->ctx;
    const sy_expr *o;
    if (!strncmp(w->autopad, "SAME", 4)) {
        /* a pool with SAME_* and a dilation: the spec (and onnx's shape inference) give ceil(d / s),
         * onnxruntime 1.32 one less at some sizes (k 3, dilation 2, stride 2: L = 8 gives 4 and 3):
         * the runtime is the ground truth and differs from the spec, so neither is promised */
        /* Conv: onnxruntime 1.32 refuses it at every size (conv_attributes.h: "Dilation not supported
         * for AutoPadType::SAME_UPPER or AutoPadType::SAME_LOWER"); symshape accepted every size
         * (attack38e: 468 of 468 accepted sizes failed) */
        if (w->dil[i] > 1 && !strcmp(c->node->op_type, "Conv"))
            return ox_err(c, SY_EINVAL, "Conv with auto_pad %s and dilations > 1: onnxruntime refuses it at every size "
                          "(\"Dilation not supported for AutoPadType::SAME_UPPER or AutoPadType::SAME_LOWER\"); give explicit pads",
                          w->autopad);
        if (w->dil[i] > 1 && strcmp(c->node->op_type, "Conv") && strcmp(c->node->op_type, "ConvTranspose"))
            return ox_err(c, SY_EUNSUPPORTED, "%s with auto_pad %s and dilations > 1: onnxruntime's output size differs from "
                          "the ONNX spec's ceil(d / stride); give explicit pads", c->node->op_type, w->autopad);
        o = sy_expr_ceildiv(x, d, K(c, w->s[i]));
        CHK(o);
        TRY(require(c, sy_expr_ge(x, d, K(c, 1)), "%s: spatial dim must be >= 1", c->node->op_type));
        /* onnxruntime 1.32's MaxPool (every opset) and AveragePool before 19 (not AveragePool-19, not
         * LpPool) fail on the negative total pad SAME_* gives when the kernel is shorter than the
         * stride, (ceil(d / s) - 1)*s + k - d < 0 ("padding values must be non-negative"): k 1,
         * stride 2 runs only odd d (symshape accepted every d: 62 violations in 0..21, opset 19) */
        if (w->k[i] < w->s[i] && (!strcmp(c->node->op_type, "MaxPool") || (!strcmp(c->node->op_type, "AveragePool") && c->opset < 19)))
            TRY(require(c, sy_expr_ge(x, sy_expr_add_si(x, sy_expr_sub(x, sy_expr_mul_si(x, sy_expr_add_si(x, o, -1), w->s[i]), d), w->k[i]), K(c, 0)),
                        "%s: the total pad of auto_pad %s must be >= 0 (onnxruntime: padding values must be non-negative)", c->node->op_type, w->autopad));
        *out = o;
        return SY_OK;
    }
    int valid = !strcmp(w->autopad, "VALID");
    int64_t pb = valid ? 0 : w->pb[i], pe = valid ? 0 : w->pe[i];
    /* the rule the torch frontend uses too (shapeenv/rules.c sy_rule_window_out): floor, or with
     * ceil_mode the window need not fit: Operators.md (MaxPool-12, AveragePool-11) gives
     * ceil(num / s + 1), 1 for -s < num < 0, and PyTorch's CPU kernels, which the
     * exports come from, compute pooling_output_shape_pad_lr (aten/src/ATen/native/Pool.h)
     * div_rtn(num + s - 1, s) + 1, minus 1 when the last window starts at or after
     * d + pad_begin, and pool2d_shape_check / pool3d_shape_check require only that
     * result >= 1 ("Output size is too small"): a last window may overhang the input
     * (googlenet's MaxPool2d(3, 2, ceil_mode=True) on a 2 x 2 map gives 1 x 1) */
    const sy_expr *ext = sy_expr_add_si(x, sy_expr_mul_si(x, K(c, w->k[i] - 1), w->dil[i]), 1);
    CHK(ext);
    char extb[64];
    if (pool && !ceil_mode) {
        /* onnxruntime 1.32's pools in floor mode (pool_attributes.h ComputeOutputSize: "numerator
         * / stride + 1" in C division, ORT_ENFORCE(out_size >= 0): "Calculated output dimension is
         * negative") do not require the window to fit: MaxPool k 3 on L = 2 gives [1, 1, 0], k 3,
         * dilation 2, stride 3 on L = 3 and 4 gives 1 (the fit requirement threw away 121
         * configuration x policy entries of MaxPool/AveragePool at L in 0..21); the output is
         * >= 0 where d + pads - extent >= 1 - 2*stride */
        TRY(require(c, sy_expr_ge(x, sy_expr_sub(x, sy_expr_add_si(x, d, pb + pe), ext), K(c, 1 - 2 * w->s[i])),
                    "%s: the output size must be >= 0 (onnxruntime: (d + pads - extent %s) / stride + 1, truncated)",
                    c->node->op_type, ext_text(c, ext, extb, sizeof extb)));
        TRY(sy_rule_window_out_trunc(c->env, &c->why, d, ext, w->s[i], pb, pe, &o));
        *out = o;
        return SY_OK;
    }
    if (!ceil_mode)
        TRY(require(c, sy_expr_ge(x, sy_expr_sub(x, sy_expr_add_si(x, d, pb + pe), ext), K(c, 0)),
                    "%s: the window (extent %s) must fit the padded input", c->node->op_type, ext_text(c, ext, extb, sizeof extb)));
    TRY(sy_rule_window_out(c->env, &c->why, d, ext, w->s[i], pb, pe, ceil_mode, &o));
    /* onnxruntime 1.32 (pool_attributes.h ComputeOutputSize: "out_size >= 0 ... Calculated output
     * dimension is negative") runs a pool whose output is 0: MaxPool k 3, ceil_mode, on L = 2 gives
     * [1, 1, 0]; L = 1 (-1) fails. PyTorch's pool2d_shape_check wants >= 1, but the ground truth of
     * an ONNX model is onnxruntime (>= 1 threw away 90 sizes it runs in 228 configurations x L in
     * 0..21 under the relaxed policy, each of them an output 0). An empty input (L = 0) is the
     * "only N can be zero" requirement of op_pool. */
    if (ceil_mode)
        TRY(require(c, sy_expr_ge(x, o, K(c, 0)), "%s: the output size (ceil_mode) must be >= 0", c->node->op_type));
    *out = o;
    return SY_OK;
}

/* Conv-11: X [N, C, D...], W [M, C/group, k...] -> [N, M, o...] */
static sy_status op_conv(ox_call *c)
{
    const sy_tensor *x = T(c, 0), *w = T(c, 1);
    if (x->ndim < 3 || w->ndim != x->ndim) return ox_err(c, SY_EINVAL, "X (rank %zu) and W (rank %zu) must have the same rank >= 3", x->ndim, w->ndim);
    size_t ns = x->ndim - 2;
    int64_t group, kernel[MAXR];
    TRY(ox_attr_int(c, "group", 1, &group));
    if (group <= 0) return ox_err(c, SY_EINVAL, "group must be positive");
    size_t nk;
    const int64_t *ks;
    TRY(ox_attr_ints(c, "kernel_shape", &nk, &ks));
    for (size_t i = 0; i < ns; i++) {
        if (ks && nk == ns) kernel[i] = ks[i];
        else TRY(concrete(c, w->sizes[2 + i], "Conv kernel size", &kernel[i]));
    }
    winp wp;
    TRY(window_params(c, ns, kernel, &wp));
    TRY(require(c, sy_expr_eq(c->ctx, x->sizes[1], sy_expr_mul_si(c->ctx, w->sizes[1], group)),
                "Conv: input channels must equal W.shape[1] * group"));
    if (group > 1)
        TRY(require(c, sy_expr_eq(c->ctx, sy_expr_mod(c->ctx, w->sizes[0], K(c, group)), K(c, 0)),
                    "Conv: output channels must be divisible by group"));
    if (has(c, 2)) {
        const sy_tensor *b = T(c, 2);
        if (b->ndim != 1) return ox_err(c, SY_EINVAL, "B must be 1-D");
        TRY(require(c, sy_expr_eq(c->ctx, b->sizes[0], w->sizes[0]), "Conv: B must have M entries"));
    }
    const sy_expr *d[MAXR];
    d[0] = x->sizes[0];
    d[1] = w->sizes[0];
    for (size_t i = 0; i < ns; i++) TRY(window_out(c, &wp, i, x->sizes[2 + i], 0, 0, &d[2 + i]));
    return set_out(c, 0, c->in[0]->elem, x->ndim, d);
}

/* ConvTranspose-11: o = s*(d-1) + output_padding + (k-1)*dil + 1 - pb - pe, or output_shape */
static sy_status op_convtranspose(ox_call *c)
{
    const sy_tensor *x = T(c, 0), *w = T(c, 1);
    if (x->ndim < 3 || w->ndim != x->ndim) return ox_err(c, SY_EINVAL, "X and W must have the same rank >= 3");
    size_t ns = x->ndim - 2;
    int64_t group, kernel[MAXR];
    TRY(ox_attr_int(c, "group", 1, &group));
    if (group <= 0) return ox_err(c, SY_EINVAL, "group must be positive");
    for (size_t i = 0; i < ns; i++) TRY(concrete(c, w->sizes[2 + i], "ConvTranspose kernel size", &kernel[i]));
    size_t nk;
    const int64_t *ks;
    TRY(ox_attr_ints(c, "kernel_shape", &nk, &ks));
    for (size_t i = 0; ks && i < ns && nk == ns; i++) kernel[i] = ks[i];
    winp wp;
    TRY(window_params(c, ns, kernel, &wp));
    TRY(require(c, sy_expr_eq(c->ctx, x->sizes[1], w->sizes[0]), "ConvTranspose: input channels must equal W.shape[0]"));
    size_t nop, nos;
    const int64_t *op, *os;
    TRY(ox_attr_ints(c, "output_padding", &nop, &op));
    TRY(ox_attr_ints(c, "output_shape", &nos, &os));
    /* an explicit output_shape has one entry per spatial dim (onnxruntime's shape inference:
     * "Attribute output_shape has incorrect size"; before, another length was ignored) */
    if (os && nos != ns)
        return ox_err(c, SY_EINVAL, "ConvTranspose: output_shape has %zu entries, expected %zu (one per spatial dim)", nos, ns);
    const sy_expr *d[MAXR];
    d[0] = x->sizes[0];
    d[1] = sy_expr_mul_si(c->ctx, w->sizes[1], group);
    for (size_t i = 0; i < ns; i++) {
        if (os) {
            /* onnxruntime (1.32, conv_transpose_attributes.h ComputeTransposePadAndOutputShape and
             * its consistency check): the pads are made from the output size O, total
             * T = max(0, full - O) with full = s*(in-1) + output_padding + (k-1)*dil + 1, and the
             * run fails unless O > 0 and (O + T - (k-1)*dil - 1) / s + 1 == in ("Expected input
             * size"), which is: output_padding < s and O <= s*in + (k-1)*dil (checked against
             * onnxruntime at 600 random configurations, tests/onnx) */
            int64_t opad = op && nop == ns ? op[i] : 0;
            if (os[i] < 1)
                return ox_err(c, SY_EINVAL, "ConvTranspose: output_shape[%zu] (%lld) must be positive", i, (long long)os[i]);
            if (opad < 0 || opad >= wp.s[i])
                return ox_err(c, SY_EINVAL, "ConvTranspose: with output_shape, output_padding[%zu] (%lld) must be in [0, stride %lld)",
                              i, (long long)opad, (long long)wp.s[i]);
            /* onnxruntime 1.32 with an output_shape: "Input spatial dimension must be positive. Got:
             * 0" at every configuration (648 of them at L = 0, attack46n) */
            TRY(require(c, sy_expr_ge(c->ctx, x->sizes[2 + i], K(c, 1)),
                        "ConvTranspose: with output_shape, input spatial dim %zu must be positive", i));
            const sy_expr *reach = sy_expr_add(c->ctx, sy_expr_mul_si(c->ctx, x->sizes[2 + i], wp.s[i]),
                                               sy_expr_mul(c->ctx, K(c, kernel[i] - 1), K(c, wp.dil[i])));
            CHK(reach);
            TRY(require(c, sy_expr_ge(c->ctx, reach, K(c, os[i])),
                        "ConvTranspose: output_shape[%zu] = %lld needs stride*in + (kernel-1)*dilation >= it", i, (long long)os[i]));
            d[2 + i] = K(c, os[i]);
            continue;
        }
        int64_t opad = op && nop == ns ? op[i] : 0;
        /* onnxruntime conv_transpose_attributes.h: "output_padding[i] must be less than
         * max(stride, dilation)"; negative is refused too */
        if (opad < 0 || opad >= (wp.s[i] > wp.dil[i] ? wp.s[i] : wp.dil[i]))
            return ox_err(c, SY_EINVAL, "ConvTranspose: output_padding[%zu] (%lld) must be in [0, max(stride, dilation))", i,
                          (long long)opad);
        /* onnxruntime 1.32 then checks every output size against its input as for an output_shape
         * (above): (out + pb + pe - (k-1)*dil - 1) / s + 1 == in in C division, that is
         * (s*(in-1) + output_padding) / s + 1 == in: false at every size when output_padding >= s
         * (a dilation above the stride allows it up to the dilation; "Computed output shape is
         * inconsistent with input spatial dimensions. output_padding (2) may be too large for
         * stride (1)"), and at in = 0 when 0 < output_padding (-s + output_padding truncates to 0,
         * not -1: "Expected input size 1 but got 0"); attack46n, 140 configurations x 12 sizes */
        if (opad >= wp.s[i])
            return ox_err(c, SY_EINVAL, "ConvTranspose: output_padding[%zu] (%lld) must be below the stride %lld (onnxruntime "
                          "refuses every size past it)", i, (long long)opad, (long long)wp.s[i]);
        if (opad > 0 && strncmp(wp.autopad, "SAME", 4)) /* SAME's output s*in + ... >= 1 implies it */
            TRY(require(c, sy_expr_ge(c->ctx, x->sizes[2 + i], K(c, 1)),
                        "ConvTranspose: with output_padding[%zu] > 0, input spatial dim %zu must be positive", i, i));
        const sy_expr *base = sy_expr_mul_si(c->ctx, sy_expr_add_si(c->ctx, x->sizes[2 + i], -1), wp.s[i]);
        if (!strncmp(wp.autopad, "SAME", 4)) {
            /* onnxruntime 1.32 makes SAME's pads from the output size s*in as from an output_shape
             * (above): total T = max(0, full - s*in), full = s*(in-1) + output_padding + (k-1)*dil + 1,
             * so the output is min(s*in, full), s*in less the constant max(0, s - output_padding -
             * (k-1)*dil - 1) (kernel 2, stride 3: 3*in - 1, not the spec's 3*in), and output_padding
             * must be below the stride (else "output_padding too large for stride" at every size,
             * checked above): checked against onnxruntime at 1904 sizes of 272 configurations (attack38e) */
            int64_t reach, km; /* reach = full - s*(in-1); past int64 it is >= s */
            bool big = __builtin_mul_overflow(kernel[i] - 1, wp.dil[i], &km) || __builtin_add_overflow(km, opad + 1, &reach);
            d[2 + i] = sy_expr_add_si(c->ctx, sy_expr_mul_si(c->ctx, x->sizes[2 + i], wp.s[i]),
                                      !big && reach < wp.s[i] ? reach - wp.s[i] : 0);
        } else {
            /* exact: (kernel-1)*dilation reaches 2^80 (each up to 2^40); in int64 it wrapped, and
             * kernel 2^40, dilation 2^40 gave the output L (attack38e, UBSan) */
            const sy_expr *ext = sy_expr_add_si(c->ctx, sy_expr_mul(c->ctx, K(c, kernel[i] - 1), K(c, wp.dil[i])), opad + 1);
            d[2 + i] = sy_expr_add_si(c->ctx, sy_expr_add(c->ctx, base, ext),
                                      strcmp(wp.autopad, "VALID") ? -(wp.pb[i] + wp.pe[i]) : 0);
        }
        CHK(d[2 + i]);
        TRY(require(c, sy_expr_ge(c->ctx, d[2 + i], K(c, 1)), "ConvTranspose: output size must be >= 1"));
    }
    return set_out(c, 0, c->in[0]->elem, x->ndim, d);
}

/* MaxPool-12 (optional Indices output), AveragePool-11, LpPool-18 */
static sy_status op_pool(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    if (x->ndim < 3) return ox_err(c, SY_EINVAL, "X must have rank >= 3");
    size_t ns = x->ndim - 2, nk;
    const int64_t *ks;
    TRY(ox_attr_ints(c, "kernel_shape", &nk, &ks));
    if (!ks || nk != ns) return ox_err(c, SY_EINVAL, "kernel_shape must have %zu entries", ns);
    winp wp;
    TRY(window_params(c, ns, ks, &wp));
    /* onnxruntime pool_attributes.h: "Pad should be smaller than kernel" (every pool) */
    for (size_t i = 0; i < ns && !strcmp(wp.autopad, "NOTSET"); i++)
        if (wp.pb[i] >= ks[i] || wp.pe[i] >= ks[i])
            return ox_err(c, SY_EINVAL, "%s: pads (%lld, %lld) of spatial dim %zu must be smaller than the kernel (%lld)",
                          c->node->op_type, (long long)wp.pb[i], (long long)wp.pe[i], i, (long long)ks[i]);
    int64_t cm;
    TRY(ox_attr_int(c, "ceil_mode", 0, &cm));
    const sy_expr *d[MAXR];
    d[0] = x->sizes[0];
    d[1] = x->sizes[1];
    for (size_t i = 0; i < ns; i++) TRY(window_out(c, &wp, i, x->sizes[2 + i], 1, (int)cm, &d[2 + i]));
    /* onnxruntime pool_attributes.h SetOutputSize: "input_shape.Size() > 0 || input_shape[0] == 0
     * ... Invalid input shape. Only N can be zero" (1.32; [1, 0, 4, 4] and [1, 2, 0, 4] fail).
     * After the window's own requirements, which usually imply C and the spatial dims >= 1
     * (their lower bounds under the facts): then nothing is required and N is not read */
    int implied = 1;
    for (size_t i = 1; i < x->ndim && implied; i++) {
        const sy_expr *lo, *hi;
        int64_t v;
        TRY(sy_env_bound(c->env, x->sizes[i], &lo, &hi));
        if (!lo || sy_expr_get_si(lo, &v) != SY_OK || v < 1) implied = 0;
    }
    if (!implied) {
        const sy_expr *nonempty = sy_expr_ge(c->ctx, x->sizes[1], K(c, 1));
        for (size_t i = 0; i < ns; i++)
            nonempty = sy_expr_and(c->ctx, nonempty, sy_expr_ge(c->ctx, x->sizes[2 + i], K(c, 1)));
        TRY(require(c, sy_expr_or(c->ctx, nonempty, sy_expr_eq(c->ctx, x->sizes[0], K(c, 0))),
                    "%s: only N can be zero (onnxruntime: the input is empty with N > 0)", c->node->op_type));
    }
    TRY(set_out(c, 0, c->in[0]->elem, x->ndim, d));
    if (c->nout > 1) TRY(set_out(c, 1, OX_INT64, x->ndim, d));
    return SY_OK;
}

/* GlobalAveragePool-1, GlobalMaxPool-1, GlobalLpPool-2: [N, C, 1, ...] */
static sy_status op_globalpool(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    if (x->ndim < 2) return ox_err(c, SY_EINVAL, "X must have rank >= 2");
    const sy_expr *d[MAXR];
    if (x->ndim > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    for (size_t i = 0; i < x->ndim; i++) d[i] = i < 2 ? x->sizes[i] : K(c, 1);
    return set_out(c, 0, c->in[0]->elem, x->ndim, d);
}

/* DepthToSpace-13 / SpaceToDepth-13 */
static sy_status op_depthtospace(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    if (x->ndim != 4) return ox_err(c, SY_EINVAL, "X must be 4-D");
    int64_t b;
    TRY(ox_attr_int(c, "blocksize", 0, &b));
    if (b <= 0) return ox_err(c, SY_EINVAL, "blocksize must be positive");
    const sy_expr *d[4] = {x->sizes[0], x->sizes[1], x->sizes[2], x->sizes[3]};
    if (!strcmp(c->node->op_type, "DepthToSpace")) {
        const sy_expr *bb = sy_expr_mul(c->ctx, K(c, b), K(c, b)); /* b*b can pass int64 */
        TRY(require(c, sy_expr_eq(c->ctx, sy_expr_mod(c->ctx, d[1], bb), K(c, 0)), "DepthToSpace: C divisible by blocksize^2"));
        d[1] = sy_expr_floordiv(c->ctx, d[1], bb);
        d[2] = sy_expr_mul_si(c->ctx, d[2], b);
        d[3] = sy_expr_mul_si(c->ctx, d[3], b);
    } else {
        TRY(require(c, sy_expr_eq(c->ctx, sy_expr_mod(c->ctx, d[2], K(c, b)), K(c, 0)), "SpaceToDepth: H divisible by blocksize"));
        TRY(require(c, sy_expr_eq(c->ctx, sy_expr_mod(c->ctx, d[3], K(c, b)), K(c, 0)), "SpaceToDepth: W divisible by blocksize"));
        d[1] = sy_expr_mul(c->ctx, d[1], sy_expr_mul(c->ctx, K(c, b), K(c, b)));
        d[2] = sy_expr_floordiv(c->ctx, d[2], K(c, b));
        d[3] = sy_expr_floordiv(c->ctx, d[3], K(c, b));
    }
    return set_out(c, 0, c->in[0]->elem, 4, d);
}

/* ------------------------------------------------------------------ Resize */

/* Resize/Upsample output size for a float32 scale, as the runtimes compute it:
 * onnx shape inference (onnx/defs/tensor/utils.cc resizeShapeInferenceHelper)
 * takes static_cast<int64_t>(std::floor(static_cast<float>(dim) * scale)), and
 * onnxruntime (core/providers/cpu/tensor/upsamplebase.h ComputeOutputShape)
 * static_cast<int64_t>(scales[i] * input_dims[i]), the same float32 product
 * (dim is converted to float, scales are positive). The rounding of fl32(d) and
 * of the product makes this differ from floor(d * s) for the exact value of s
 * (10 * 0.7f is 7 in float32, floor(10 * 11744051 / 2^24) = 6). */
static int64_t fl32_scaled(int64_t d, float s)
{
    float p = (float)((float)d * s); /* the cast rounds to float32 whatever FLT_EVAL_METHOD is */
    return (int64_t)floorf(p);
}

/* floor(fl32(d * scale)): the float32 value when d is static; else exactly,
 * by algebra/flscale.c with 24-bit products (the derivation is docs/ops.md,
 * "Float arithmetic on sizes"): FloorDiv(P*d + off*Min(d, 1), Q) for a
 * convergent P/Q of the float's value, decided where it holds: d <= H (at most
 * 2^24, where fl32(d) = d; 1.3f: 798915) and, for the scales whose multiples of
 * Q round to the integer d*P/Q only in runs, the window of the example less the
 * other runs. Those decisions are limits of symshape's formula, not of the
 * model (the op runs at every d): guards, never requirements. */
static sy_status scale_dim(ox_call *c, const sy_expr *d, double scale, const sy_expr **out)
{
    float s = (float)scale;
    *out = NULL;
    if (!(s > 0) || isinf(s)) return ox_err(c, SY_EINVAL, "scales must be positive and finite");
    int64_t v;
    if (sy_expr_get_si(d, &v) == SY_OK) {
        float pr = (float)((float)v * s);
        if (!(pr < 9.2233720368547758e18f)) return ox_err(c, SY_EOVERFLOW, "output size %lld * %.9g does not fit int64", (long long)v, (double)s);
        *out = K(c, fl32_scaled(v, s));
        return SY_OK;
    }
    sy_ctx_reset_error(c->ctx);
    const sy_expr *hv;
    int64_t ex = 0;
    if (sy_env_hint(c->env, d, &hv) != SY_OK || sy_expr_get_si(hv, &ex) || ex < 0) ex = 0; /* unbacked: no example */
    sy_ctx_reset_error(c->ctx);
    sy_flscale pl;
    if (sy_flscale_plan((double)s, 24, 0, ex, &pl))
        return ox_err(c, SY_EUNSUPPORTED, "scale %.9g on a symbolic dim is not supported (scales from 2^-46 to 2^40 are)", (double)s);
    char reason[600];
    snprintf(reason, sizeof reason,
             "%s: symshape's exact formula FloorDiv(%lld*d, %lld) for floor(d * %.9g) in float32 holds for d <= %lld "
             "(a limit of symshape's formula, not of the model)",
             c->node->op_type, (long long)pl.p, (long long)pl.q, (double)s, (long long)pl.hmax);
    int within = 0;
    TRY(limit_truth(c, sy_expr_le(c->ctx, d, K(c, pl.hmax)), reason, &within));
    if (!within)
        return ox_err(c, SY_EUNSUPPORTED,
                      "scale %.9g on a symbolic dim above %lld at the example: symshape's exact formula FloorDiv(%lld*d, %lld) "
                      "for floor(d * %.9g) in float32 holds only for d <= %lld (a limit of symshape's formula, not of the "
                      "model): give an example <= %lld or make the dim static",
                      (double)s, (long long)pl.hmax, (long long)pl.p, (long long)pl.q, (double)s, (long long)pl.hmax,
                      (long long)pl.hmax);
    const sy_expr *Q = K(c, pl.q);
    if (pl.runs) {
        const sy_expr *in = sy_expr_le(c->ctx, d, K(c, pl.khi * pl.q));
        if (pl.klo > 0) in = sy_expr_and(c->ctx, in, sy_expr_ge(c->ctx, d, K(c, pl.klo * pl.q)));
        for (int i = 0; i < pl.nex; i++)
            in = sy_expr_and(c->ctx, in, sy_expr_or(c->ctx, sy_expr_lt(c->ctx, d, K(c, pl.exlo[i] * pl.q)),
                                                    sy_expr_gt(c->ctx, d, K(c, pl.exhi[i] * pl.q))));
        snprintf(reason, sizeof reason,
                 "%s: on the multiples of %lld, floor(d * %.9g) in float32 rounds up to %lld*d/%lld only outside runs; "
                 "symshape's formula covers the multiples from %lld to %lld but %d runs (a limit of symshape's formula, "
                 "not of the model)", c->node->op_type, (long long)pl.q, (double)s, (long long)pl.p, (long long)pl.q,
                 (long long)(pl.klo * pl.q), (long long)(pl.khi * pl.q), pl.nex);
        int ok = 0;
        TRY(limit_truth(c, sy_expr_or(c->ctx, sy_expr_ne(c->ctx, sy_expr_mod(c->ctx, d, Q), K(c, 0)), in), reason, &ok));
        if (!ok) return ox_err(c, SY_EUNSUPPORTED, "%s: the example is outside it", reason);
    }
    const sy_expr *num = sy_expr_mul_si(c->ctx, d, pl.p);
    if (pl.off) num = sy_expr_add(c->ctx, num, sy_expr_mul_si(c->ctx, sy_expr_min(c->ctx, d, K(c, 1)), pl.off));
    *out = sy_expr_floordiv(c->ctx, num, Q);
    CHK(*out);
    return SY_OK;
}

/* Resize-18 / -13 / -11 (X, roi, scales, sizes), Upsample-9 (X, scales):
 * sizes given: the output dims (with axes-18; keep_aspect_ratio_policy
 * "stretch"); scales given: floor(d * scale) (Operators.md Resize: "output_dimension
 * = floor(input_dimension * (roi_end - roi_start) * scale)" when tf_crop_and_resize,
 * else floor(input_dimension * scale)) */
/* onnxruntime 1.32 upsamplebase.h ScalesValidation, after the scales of the axes not listed are set
 * to 1 (a Resize it refuses fails at every size, or, for sizes, where a scale is not 1): 'linear'
 * runs on 2-D and 3-D inputs, 4-D ones whose scales 0 and 1 or 0 and 3 are 1, 5-D ones whose scales
 * 0 and 1 are 1; 'cubic' on 2-D inputs and 4-D ones whose scales 0 and 1 are 1, or 0 and 3 with
 * antialias, or 0 and 3 with the scales 1 and 2 >= 1 without it. one[k], ge1[k]: "scale k is 1",
 * "scale k >= 1" (constants for scales; sizes[k] == x[k], sizes[k] >= x[k] for sizes, whose scale is
 * sizes[k] / x[k]). attack38g: symshape took every rank and scale (44 of 120 points onnxruntime
 * refuses: tests/onnx/test_issue38.py). */
static sy_status resize_mode_check(ox_call *c, const char *mode, int64_t antialias, size_t r, const sy_expr *const *one,
                                   const sy_expr *const *ge1)
{
    int lin = !strcmp(mode, "linear") || !strcmp(mode, "bilinear"), cub = !strcmp(mode, "cubic");
    sy_ctx *ctx = c->ctx;
    if ((!lin && !cub) || r == 2 || (lin && r == 3)) return SY_OK;
    const sy_expr *ok;
    if (r == 4) {
        const sy_expr *nhwc = sy_expr_and(ctx, one[0], one[3]);
        if (cub && !antialias) nhwc = sy_expr_and(ctx, nhwc, sy_expr_and(ctx, ge1[1], ge1[2]));
        ok = sy_expr_or(ctx, sy_expr_and(ctx, one[0], one[1]), nhwc);
    } else if (lin && r == 5) {
        ok = sy_expr_and(ctx, one[0], one[1]);
    } else {
        ok = sy_expr_false(ctx);
    }
    CHK(ok);
    if (sy_expr_kind_of(ok) == SY_EXPR_FALSE)
        return ox_err(c, SY_EINVAL,
                      "mode '%s' on a %zu-D input with these scales: onnxruntime runs 'linear' on 2-D and 3-D inputs and on 4-D "
                      "(5-D) ones whose outermost 2 scales are 1 (4-D: or the outermost and innermost), 'cubic' on 2-D inputs "
                      "and 4-D ones whose outermost 2 scales are 1 (or the outermost and innermost, with antialias or with "
                      "the other scales >= 1)",
                      mode, r);
    return require(c, ok, "Resize: mode '%s' needs the outermost scales 1 (sizes equal to the input's dims there)", mode);
}

static sy_status op_resize(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    int up = !strcmp(c->node->op_type, "Upsample");
    size_t ksc = up ? 1 : 2, ksz = 3;
    const sy_expr *d[MAXR];
    if (x->ndim > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    for (size_t i = 0; i < x->ndim; i++) d[i] = x->sizes[i];
    size_t naxes;
    const int64_t *axes;
    TRY(ox_attr_ints(c, "axes", &naxes, &axes));
    char pol[32], ctm[64], mode[16];
    int64_t aa;
    TRY(ox_attr_string(c, "mode", "nearest", mode, sizeof mode));
    TRY(ox_attr_int(c, "antialias", 0, &aa));
    /* onnxruntime 1.32 UpsampleBase: "when anti-aliasing is set, Resize only supports mode LINEAR and CUBIC" */
    if (aa && strcmp(mode, "linear") && strcmp(mode, "cubic"))
        return ox_err(c, SY_EINVAL, "antialias with mode '%s': onnxruntime supports it with 'linear' and 'cubic' only", mode);
    const sy_expr *one[MAXR], *ge1[MAXR]; /* per dim of x: its scale is 1, is >= 1 (resize_mode_check) */
    for (size_t i = 0; i < x->ndim; i++) one[i] = ge1[i] = sy_expr_true(c->ctx);
    TRY(ox_attr_string(c, "keep_aspect_ratio_policy", "stretch", pol, sizeof pol));
    TRY(ox_attr_string(c, "coordinate_transformation_mode", "half_pixel", ctm, sizeof ctm));
    if (strcmp(pol, "stretch")) return ox_err(c, SY_EUNSUPPORTED, "keep_aspect_ratio_policy '%s' is not supported", pol);
    if (!strcmp(ctm, "tf_crop_and_resize")) return ox_err(c, SY_EUNSUPPORTED, "coordinate_transformation_mode tf_crop_and_resize is not supported");
    size_t m = naxes ? naxes : x->ndim;
    size_t ax[MAXR];
    for (size_t i = 0; i < m; i++) {
        ax[i] = i;
        if (naxes) TRY(norm_axis(c, axes[i], x->ndim, &ax[i]));
    }
    int use_sizes = has(c, ksz) && T(c, ksz)->ndim == 1 && T(c, ksz)->sizes[0] != K(c, 0);
    if (use_sizes) {
        size_t n;
        const sy_expr **sz = vals(c, ksz, &n);
        if (!sz) {
            for (size_t i = 0; i < m; i++) TRY(unbacked_dims(c, 1, &d[ax[i]], "data-dependent resize"));
            return set_out(c, 0, c->in[0]->elem, x->ndim, d);
        }
        if (n != m) return ox_err(c, SY_EINVAL, "sizes has %zu entries, expected %zu", n, m);
        for (size_t i = 0; i < m; i++) {
            if (is_b(sz[i])) return ox_err(c, SY_EINVAL, "sizes must be integers");
            TRY(require(c, sy_expr_ge(c->ctx, sz[i], K(c, 0)), "Resize: sizes must be >= 0"));
            /* onnxruntime upsamplebase.h ParseScalesDataAndAdjustOutputSize (1.32): "Input dim is
             * zero but required output dim is non-zero" ([1, 2, 0, 4] resized to sizes 7 x 5) */
            TRY(require(c, sy_expr_or(c->ctx, sy_expr_ge(c->ctx, x->sizes[ax[i]], K(c, 1)), sy_expr_eq(c->ctx, sz[i], K(c, 0))),
                        "Resize: an input dim of 0 needs an output size of 0 (onnxruntime: cannot scale 0 to a non-zero size)"));
            /* ScalesValidation: the scale sizes / dim must be > 0 (attack38g: sizes [1, 1, 0, 4] of a
             * [2, 3, 4, 4] input were accepted; onnxruntime: "Scale value should be greater than 0") */
            TRY(require(c, sy_expr_or(c->ctx, sy_expr_eq(c->ctx, x->sizes[ax[i]], K(c, 0)), sy_expr_ge(c->ctx, sz[i], K(c, 1))),
                        "Resize: an output size of 0 needs an input dim of 0 (onnxruntime: the scale must be > 0)"));
            one[ax[i]] = sy_expr_eq(c->ctx, sz[i], x->sizes[ax[i]]);
            ge1[ax[i]] = sy_expr_ge(c->ctx, sz[i], x->sizes[ax[i]]);
            d[ax[i]] = sz[i];
        }
        TRY(resize_mode_check(c, mode, aa, x->ndim, one, ge1));
        return set_out(c, 0, c->in[0]->elem, x->ndim, d);
    }
    if (!has(c, ksc)) {
        size_t n;
        const float *sc;
        TRY(ox_attr_floats(c, "scales", &n, NULL, &sc)); /* Upsample-7 attribute form */
        if (!sc) return ox_err(c, SY_EINVAL, "one of scales or sizes is required");
        if (n != m) return ox_err(c, SY_EINVAL, "scales has %zu entries, expected %zu", n, m);
        for (size_t i = 0; i < m; i++) {
            TRY(scale_dim(c, x->sizes[ax[i]], sc[i], &d[ax[i]]));
            one[ax[i]] = sc[i] == 1.0f ? sy_expr_true(c->ctx) : sy_expr_false(c->ctx);
            ge1[ax[i]] = sc[i] >= 1.0f ? sy_expr_true(c->ctx) : sy_expr_false(c->ctx);
        }
        TRY(resize_mode_check(c, mode, aa, x->ndim, one, ge1));
        return set_out(c, 0, c->in[0]->elem, x->ndim, d);
    }
    ox_val *s = c->in[ksc];
    if (!s->fv) {
        if (s->t->ndim == 1 && s->t->sizes[0] == K(c, 0)) return ox_err(c, SY_EINVAL, "one of scales or sizes is required");
        for (size_t i = 0; i < m; i++) TRY(unbacked_dims(c, 1, &d[ax[i]], "data-dependent resize"));
        return set_out(c, 0, c->in[0]->elem, x->ndim, d);
    }
    if (s->nv != m) return ox_err(c, SY_EINVAL, "scales has %zu entries, expected %zu", (size_t)s->nv, m);
    for (size_t i = 0; i < m; i++) {
        TRY(scale_dim(c, x->sizes[ax[i]], s->fv[i], &d[ax[i]]));
        one[ax[i]] = (float)s->fv[i] == 1.0f ? sy_expr_true(c->ctx) : sy_expr_false(c->ctx);
        ge1[ax[i]] = (float)s->fv[i] >= 1.0f ? sy_expr_true(c->ctx) : sy_expr_false(c->ctx);
    }
    TRY(resize_mode_check(c, mode, aa, x->ndim, one, ge1));
    return set_out(c, 0, c->in[0]->elem, x->ndim, d);
}

/* ------------------------------------------------------------------ misc */

/* TopK-11: K (1-element tensor) along axis; K <= dim */
static sy_status op_topk(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    int64_t a;
    TRY(ox_attr_int(c, "axis", -1, &a));
    size_t ax;
    TRY(norm_axis(c, a, x->ndim, &ax));
    size_t n;
    const sy_expr **k = vals(c, 1, &n);
    const sy_expr *d[MAXR];
    for (size_t i = 0; i < x->ndim; i++) d[i] = x->sizes[i];
    if (k && n == 1 && !is_b(k[0])) {
        TRY(require(c, sy_expr_and(c->ctx, sy_expr_ge(c->ctx, k[0], K(c, 0)), sy_expr_le(c->ctx, k[0], x->sizes[ax])),
                    "TopK: 0 <= K <= dim"));
        d[ax] = k[0];
    } else {
        TRY(unbacked_dims(c, 1, &d[ax], "data-dependent TopK K"));
    }
    TRY(set_out(c, 0, c->in[0]->elem, x->ndim, d));
    return set_out(c, 1, OX_INT64, x->ndim, d);
}

/* NonZero-13: [rank, u] with u an unbacked size (runtime assert u <= numel) */
static sy_status op_nonzero(ox_call *c)
{
    const sy_tensor *x = T(c, 0);
    const sy_expr *d[2] = {K(c, (int64_t)x->ndim), NULL};
    TRY(unbacked_dims(c, 1, &d[1], "NonZero count"));
    sy_provenance w = c->why;
    w.reason = "NonZero: count <= number of elements";
    TRY(sy_env_runtime_assert(c->env, sy_expr_le(c->ctx, d[1], numel(c, x)), &w));
    return set_out(c, 0, OX_INT64, 2, d);
}

/* OneHot-11: a new axis of size depth */
static sy_status op_onehot(ox_call *c)
{
    const sy_tensor *ix = T(c, 0);
    int64_t a;
    TRY(ox_attr_int(c, "axis", -1, &a));
    size_t r = ix->ndim + 1, ax;
    TRY(norm_axis(c, a, r, &ax));
    size_t n;
    const sy_expr **dv = vals(c, 1, &n);
    const sy_expr *depth;
    if (dv && n == 1 && !is_b(dv[0])) depth = dv[0];
    else TRY(unbacked_dims(c, 1, &depth, "data-dependent OneHot depth"));
    /* onnxruntime onehot.cc: depth <= 0 fails ("Depth is negative."), 0 included */
    TRY(require(c, sy_expr_ge(c->ctx, depth, K(c, 1)), "OneHot: depth must be >= 1"));
    const sy_expr *d[MAXR];
    if (r > MAXR) return ox_err(c, SY_EUNSUPPORTED, "rank too large");
    for (size_t i = 0, j = 0; i < r; i++) d[i] = i == ax ? depth : ix->sizes[j++];
    return set_out(c, 0, c->in[2]->elem, r, d);
}

/* LSTM-14, GRU-14, RNN-14: X [seq, batch, input] (layout 0) or [batch, seq, input] (layout 1);
 * Y [seq, dirs, batch, hidden] (layout 1: [batch, seq, dirs, hidden]), Y_h / Y_c [dirs, batch, hidden] */
static sy_status op_rnn(ox_call *c)
{
    const sy_tensor *x = T(c, 0), *w = T(c, 1);
    if (x->ndim != 3 || w->ndim != 3) return ox_err(c, SY_EINVAL, "X and W must be 3-D");
    int64_t hs, layout;
    char dir[32];
    TRY(ox_attr_int(c, "hidden_size", -1, &hs));
    TRY(ox_attr_int(c, "layout", 0, &layout));
    TRY(ox_attr_string(c, "direction", "forward", dir, sizeof dir));
    int64_t nd = !strcmp(dir, "bidirectional") ? 2 : 1;
    if (strcmp(dir, "forward") && strcmp(dir, "reverse") && nd == 1) return ox_err(c, SY_EINVAL, "unknown direction '%s'", dir);
    int gates = !strcmp(c->node->op_type, "LSTM") ? 4 : !strcmp(c->node->op_type, "GRU") ? 3 : 1;
    const sy_expr *H = hs > 0 ? K(c, hs) : sy_expr_floordiv(c->ctx, w->sizes[1], K(c, gates));
    CHK(H);
    const sy_expr *seq = x->sizes[layout ? 1 : 0], *batch = x->sizes[layout ? 0 : 1];
    TRY(require(c, sy_expr_eq(c->ctx, w->sizes[0], K(c, nd)), "%s: W.shape[0] must be num_directions", c->node->op_type));
    TRY(require(c, sy_expr_eq(c->ctx, w->sizes[1], sy_expr_mul_si(c->ctx, H, gates)), "%s: W.shape[1] must be %d*hidden_size",
                c->node->op_type, gates));
    TRY(require(c, sy_expr_eq(c->ctx, w->sizes[2], x->sizes[2]), "%s: W.shape[2] must be input_size", c->node->op_type));
    for (size_t k = 5; k < c->nin && k < 7; k++) {
        const sy_tensor *h0 = T(c, k);
        if (!h0) continue;
        if (h0->ndim != 3) return ox_err(c, SY_EINVAL, "initial state must be 3-D");
        const sy_expr *want[3] = {layout ? batch : K(c, nd), layout ? K(c, nd) : batch, H};
        for (int i = 0; i < 3; i++)
            TRY(require(c, sy_expr_eq(c->ctx, h0->sizes[i], want[i]), "%s: initial state shape", c->node->op_type));
    }
    /* onnxruntime 1.32 ends the process ("terminate called without an active exception", no
     * error returned) on an LSTM or GRU of batch 0, and on a GRU of sequence length 0 (a [0, 1, 4]
     * X); RNN runs both. Found by running region corners (issue 38, fourth pass) */
    if (gates > 1)
        TRY(require(c, sy_expr_ge(c->ctx, batch, K(c, 1)), "%s: batch must be >= 1 (onnxruntime aborts on an empty batch)",
                    c->node->op_type));
    if (gates == 3)
        TRY(require(c, sy_expr_ge(c->ctx, seq, K(c, 1)), "GRU: sequence length must be >= 1 (onnxruntime aborts on it)"));
    const sy_expr *y[4], *yh[3];
    if (!layout) y[0] = seq, y[1] = K(c, nd), y[2] = batch, y[3] = H;
    else y[0] = batch, y[1] = seq, y[2] = K(c, nd), y[3] = H;
    if (!layout) yh[0] = K(c, nd), yh[1] = batch, yh[2] = H;
    else yh[0] = batch, yh[1] = K(c, nd), yh[2] = H;
    TRY(set_out(c, 0, c->in[0]->elem, 4, y));
    TRY(set_out(c, 1, c->in[0]->elem, 3, yh));
    if (gates == 4) TRY(set_out(c, 2, c->in[0]->elem, 3, yh));
    return SY_OK;
}

/* Trilu-14, CumSum-14, EyeLike-9, Shrink, etc.: shape of X */

/* If-16: a condition that depends on sizes is decided (a guard) and only the
 * taken branch is traced; a data-dependent condition traces both, and the
 * outputs must agree in rank (differing dims become unbacked). */
static sy_status op_if(ox_call *c)
{
    const Onnx__AttributeProto *at = ox_attr(c, "then_branch"), *af = ox_attr(c, "else_branch");
    if (!at || !af || !at->g || !af->g) return ox_err(c, SY_EINVAL, "then_branch and else_branch graphs are required");
    size_t n;
    const sy_expr **cv = vals(c, 0, &n);
    ox_val **ot, **of;
    if (cv && n == 1) {
        int t;
        const sy_expr *cond = is_b(cv[0]) ? cv[0] : sy_expr_ne(c->ctx, cv[0], K(c, 0));
        TRY(truth(c, cond, "If: condition", &t));
        const Onnx__GraphProto *g = t ? at->g : af->g;
        if (g->n_output != c->nout) return ox_err(c, SY_EINVAL, "branch has %zu outputs, the node %zu", g->n_output, c->nout);
        TRY(ox_run_graph(c->tr, c->scope, g, 0, NULL, NULL, &ot, NULL));
        for (size_t k = 0; k < c->nout; k++) c->out[k] = *ot[k];
        return SY_OK;
    }
    if (at->g->n_output != c->nout || af->g->n_output != c->nout) return ox_err(c, SY_EINVAL, "branches must have %zu outputs", c->nout);
    TRY(ox_run_graph(c->tr, c->scope, at->g, 0, NULL, NULL, &ot, NULL));
    TRY(ox_run_graph(c->tr, c->scope, af->g, 0, NULL, NULL, &of, NULL));
    for (size_t k = 0; k < c->nout; k++) {
        const sy_tensor *a = ot[k]->t, *b = of[k]->t;
        if (a->ndim != b->ndim) return ox_err(c, SY_EUNSUPPORTED, "output %zu has rank %zu in then_branch and %zu in else_branch", k, a->ndim, b->ndim);
        const sy_expr *d[MAXR];
        for (size_t i = 0; i < a->ndim && i < MAXR; i++) {
            if (a->sizes[i] == b->sizes[i]) d[i] = a->sizes[i];
            else TRY(unbacked_dims(c, 1, &d[i], "If output (branches differ)"));
        }
        TRY(set_out(c, k, ot[k]->elem, a->ndim, d));
    }
    return SY_OK;
}

static sy_status op_loop(ox_call *c)
{
    return ox_err(c, SY_EUNSUPPORTED, "%s is not supported yet (its loop-carried shapes need a fixpoint); docs/onnx.md", c->node->op_type);
}

/* ------------------------------------------------------------------ the table */

static const ox_op ops[] = {
    {"Abs", op_abs, 1, 1, 0},
    {"Acos", op_unary, 1, 1, 0},
    {"Acosh", op_unary, 1, 1, 0},
    {"Add", op_add, 2, 2, 0},
    {"And", op_and, 2, 2, 0},
    {"ArgMax", op_argreduce, 1, 1, 0},
    {"ArgMin", op_argreduce, 1, 1, 0},
    {"Asin", op_unary, 1, 1, 0},
    {"Asinh", op_unary, 1, 1, 0},
    {"Atan", op_unary, 1, 1, 0},
    {"Atanh", op_unary, 1, 1, 0},
    {"AveragePool", op_pool, 1, 1, 0},
    {"BatchNormalization", op_batchnorm, 5, 5, 0},
    {"BitShift", op_bcast, 2, 2, 0},
    {"BitwiseAnd", op_bcast, 2, 2, 0},
    {"BitwiseNot", op_unary, 1, 1, 0},
    {"BitwiseOr", op_bcast, 2, 2, 0},
    {"BitwiseXor", op_bcast, 2, 2, 0},
    {"Cast", op_cast, 1, 1, 0},
    {"CastLike", op_cast, 2, 2, 0},
    {"Ceil", op_floor, 1, 1, 0},
    {"Celu", op_unary, 1, 1, 0},
    {"Clip", op_clip, 1, 3, 0x6u}, /* min and max: read as int64 (clip_noop) */
    {"Concat", op_concat, 1, -1, 0},
    {"Constant", op_constant, 0, 0, 0},
    {"ConstantOfShape", op_constantofshape, 1, 1, 0},
    {"Conv", op_conv, 2, 3, 0},
    {"ConvTranspose", op_convtranspose, 2, 3, 0},
    {"Cos", op_unary, 1, 1, 0},
    {"Cosh", op_unary, 1, 1, 0},
    {"CumSum", op_cumsum, 2, 2, 0},
    {"DepthToSpace", op_depthtospace, 1, 1, 0},
    {"Div", op_div, 2, 2, 0},
    {"Dropout", op_dropout, 1, 3, 0},
    {"Einsum", op_einsum, 1, -1, 0},
    {"Elu", op_unary, 1, 1, 0},
    {"Equal", op_equal, 2, 2, 0},
    {"Erf", op_unary, 1, 1, 0},
    {"Exp", op_unary, 1, 1, 0},
    {"Expand", op_expand, 2, 2, 0},
    {"EyeLike", op_eyelike, 1, 1, 0},
    {"Flatten", op_flatten, 1, 1, 0},
    {"Floor", op_floor, 1, 1, 0},
    {"GRU", op_rnn, 3, 6, 0},
    {"Gather", op_gather, 2, 2, 0},
    {"GatherElements", op_gatherelements, 2, 2, 0},
    {"GatherND", op_gathernd, 2, 2, 0},
    {"Gelu", op_unary, 1, 1, 0}, /* Gelu-20: elementwise */
    {"Gemm", op_gemm, 2, 3, 0},
    {"GlobalAveragePool", op_globalpool, 1, 1, 0},
    {"GlobalLpPool", op_globalpool, 1, 1, 0},
    {"GlobalMaxPool", op_globalpool, 1, 1, 0},
    {"Greater", op_greater, 2, 2, 0},
    {"GreaterOrEqual", op_greatereq, 2, 2, 0},
    {"GroupNormalization", op_groupnorm, 3, 3, 0},
    {"HardSigmoid", op_unary, 1, 1, 0},
    {"HardSwish", op_unary, 1, 1, 0},
    {"Hardmax", op_softmax, 1, 1, 0},
    {"Identity", op_identity, 1, 1, 0},
    {"If", op_if, 1, 1, 0},
    {"InstanceNormalization", op_instancenorm, 3, 3, 0},
    {"IsInf", op_bool_bcast, 1, 1, 0},
    {"IsNaN", op_bool_bcast, 1, 1, 0},
    {"LRN", op_lrn, 1, 1, 0},
    {"LSTM", op_rnn, 3, 8, 0},
    {"LayerNormalization", op_layernorm, 2, 3, 0},
    {"LeakyRelu", op_unary, 1, 1, 0},
    {"Less", op_less, 2, 2, 0},
    {"LessOrEqual", op_lesseq, 2, 2, 0},
    {"Log", op_unary, 1, 1, 0},
    {"LogSoftmax", op_softmax, 1, 1, 0},
    {"Loop", op_loop, 0, -1, 0},
    {"LpNormalization", op_unary, 1, 1, 0},
    {"LpPool", op_pool, 1, 1, 0},
    {"MatMul", op_matmul, 2, 2, 0},
    {"Max", op_max, 1, -1, 0},
    {"MaxPool", op_pool, 1, 1, 0},
    {"Mean", op_bcast, 1, -1, 0},
    {"Min", op_min, 1, -1, 0},
    {"Mish", op_unary, 1, 1, 0},
    {"Mod", op_mod, 2, 2, 0},
    {"Mul", op_mul, 2, 2, 0},
    {"Neg", op_neg, 1, 1, 0},
    {"NonZero", op_nonzero, 1, 1, 0},
    {"Not", op_not, 1, 1, 0},
    {"OneHot", op_onehot, 3, 3, 0},
    {"Or", op_or, 2, 2, 0},
    {"PRelu", op_bcast, 2, 2, 0},
    {"Pad", op_pad, 1, 4, 0},
    {"Pow", op_pow, 2, 2, 0},
    {"RNN", op_rnn, 3, 6, 0},
    {"Range", op_range, 3, 3, 0},
    {"Reciprocal", op_unary, 1, 1, 0},
    {"ReduceL1", op_reduce, 1, 2, 0},
    {"ReduceL2", op_reduce, 1, 2, 0},
    {"ReduceLogSum", op_reduce, 1, 2, 0},
    {"ReduceLogSumExp", op_reduce, 1, 2, 0},
    {"ReduceMax", op_reduce, 1, 2, 0},
    {"ReduceMean", op_reduce, 1, 2, 0},
    {"ReduceMin", op_reduce, 1, 2, 0},
    {"ReduceProd", op_reduce, 1, 2, 0},
    {"ReduceSum", op_reduce, 1, 2, 0},
    {"ReduceSumSquare", op_reduce, 1, 2, 0},
    {"Relu", op_relu, 1, 1, 0},
    {"Reshape", op_reshape, 2, 2, 0},
    {"Resize", op_resize, 1, 4, 0},
    {"Round", op_floor, 1, 1, 0},
    {"Scan", op_loop, 0, -1, 0},
    {"Scatter", op_scatter, 3, 3, 0},
    {"ScatterElements", op_scatter, 3, 3, 0},
    {"ScatterND", op_scatter, 3, 3, 0},
    {"Selu", op_unary, 1, 1, 0},
    {"Shape", op_shape, 1, 1, 0},
    {"Shrink", op_unary, 1, 1, 0},
    {"Sigmoid", op_unary, 1, 1, 0},
    {"Sign", op_unary, 1, 1, 0},
    {"Sin", op_unary, 1, 1, 0},
    {"Sinh", op_unary, 1, 1, 0},
    {"Size", op_size, 1, 1, 0},
    {"Slice", op_slice, 1, 5, 0x6u}, /* starts and ends: INT64_MAX/INT64_MIN read as int64 */
    {"Softmax", op_softmax, 1, 1, 0},
    {"Softplus", op_unary, 1, 1, 0},
    {"Softsign", op_unary, 1, 1, 0},
    {"SpaceToDepth", op_depthtospace, 1, 1, 0},
    {"Split", op_split, 1, 2, 0},
    {"Sqrt", op_unary, 1, 1, 0},
    {"Squeeze", op_squeeze, 1, 2, 0},
    {"Sub", op_sub, 2, 2, 0},
    {"Sum", op_sum, 1, -1, 0},
    {"Tan", op_unary, 1, 1, 0},
    {"Tanh", op_unary, 1, 1, 0},
    {"ThresholdedRelu", op_unary, 1, 1, 0},
    {"Tile", op_tile, 2, 2, 0},
    {"TopK", op_topk, 2, 2, 0},
    {"Transpose", op_transpose, 1, 1, 0},
    {"Trilu", op_unary, 1, 2, 0},
    {"Unsqueeze", op_unsqueeze, 1, 2, 0},
    {"Upsample", op_resize, 1, 2, 0},
    {"Where", op_where, 3, 3, 0},
    {"Xor", op_xor, 2, 2, 0},
};

/* op lookup, once per node: the index by name shared with the torch ops (sy_strindex, algebra/strindex.c),
 * built once (pthread_once: the table is shared by every thread and context): a hash of the name and one
 * strcmp, where a bsearch over the 139 names made 8 strcmp calls (callgrind, the test suite's reduced
 * vit_b16: 1.60M -> 1.56M instructions a read + trace + guards run, 332 nodes) */
#define OX_OPHASH 512 /* a power of two, at least twice the table */
static const void *op_slots[OX_OPHASH];
static sy_strindex op_index = SY_STRINDEX_INIT(op_slots);
_Static_assert(sizeof ops / sizeof ops[0] * 2 <= OX_OPHASH, "the op index holds at most half its slots");
static pthread_once_t op_index_once = PTHREAD_ONCE_INIT;

static void build_op_index(void)
{
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) (void)sy_strindex_add(&op_index, &ops[i]);
}

const ox_op *ox_find_op(const char *name)
{
    pthread_once(&op_index_once, build_op_index);
    return sy_strindex_find(&op_index, name);
}
