/* Shape rules shared by the frontends (shapeenv/rules.h): broadcasting a dim,
 * a window's output size, the -1 of a reshape, a padded dim. The torch ops
 * (ops.c op_broadcast, ops_nn.c conv and pool, ops_shape.c view and pad) and the
 * ONNX ops (frontends/onnx/onnx_ops.c bcast_dim, window_out, op_reshape,
 * op_pad) call these, so both frontends ask the same questions in the same
 * order. */
#include "algebra/internal.h"
#include "shapeenv/env_private.h"
#include "shapeenv/rules.h"

static sy_status decide(sy_env *env, const sy_provenance *why, const sy_expr *rel, const char *reason, int *out)
{
    *out = 0; /* set on every path: GCC -O3 cannot see that sy_ctx_last_error returns nonzero */
    if (!rel) return sy_ctx_last_error(env->ctx);
    sy_provenance w = {why ? why->node : NULL, why ? why->op : NULL, reason};
    const sy_expr *v;
    sy_status st = sy_env_evaluate_expr(env, rel, &w, &v);
    if (st) return st;
    *out = sy_expr_kind_of(v) == SY_EXPR_TRUE;
    return SY_OK;
}

/* require rel; the reason made only when the facts do not prove it (op_require's way) */
static sy_status require(sy_env *env, const sy_provenance *why, const sy_expr *rel, sy_rule_reason reason, void *arg,
                         int which)
{
    int done;
    sy_status st;
    sy_env_require_passes(env, rel, &done, &st);
    if (done) return st;
    sy_provenance w = {why ? why->node : NULL, why ? why->op : NULL, reason(arg, which)};
    return sy_env_require(env, rel, &w);
}

/* e's example value, when it has one (no unbacked symbol) and it fits int64 */
static int hint_si(sy_env *env, const sy_expr *e, int64_t *v)
{
    const sy_expr *h = NULL;
    if (sy_env_hint(env, e, &h) != SY_OK || !h || sy_expr_get_si(h, v) != SY_OK) {
        sy_ctx_reset_error(env->ctx);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ broadcasting
 * PyTorch: infer_size_impl (aten/src/ATen/ExpandUtils.cpp) takes the size
 * that is not 1 and checks "The size of tensor a (%d) must match the size of
 * tensor b (%d) at non-singleton dimension %d"; its symbolic form
 * (torch/_refs/__init__.py _broadcast_shapes) asks "== 1" first. ONNX:
 * docs/Broadcasting.md, multidirectional: "each dimension ... either equal or
 * one of them is 1"; onnxruntime core/framework/ (BroadcastIterator) fails
 * otherwise. The answer for a pair is b when a = 1, a when b = 1, a when a = b.
 * With an example, the rule requires the kernel's whole condition,
 * Or(a == 1, b == 1, a == b), and answers with one expression right on all three
 * branches (lost46; before, it recorded the one branch the example took, "is the
 * size 1?" first, so x[n, 4] + y[m, 4] traced at n = m kept n == m and threw away
 * every n or m of 1 the CPU runs, and traced at n = 1 kept n == 1 only):
 *   b a constant c (not 1): Or(a == 1, a == c), answer c (expanding a, as
 *     ops_util.c op_require_expands; a is 1 or c, the answer c either way);
 *   a constant: the same, mirrored;
 *   else Or(a == 1, b == 1, a == b), answer Max(a, b) * Min(a, b, 1): on the
 *     three branches, for sizes >= 0, the larger one when both are >= 1 (1 and b
 *     give b, a and a give a) and 0 when one is 0 (0 and 1, 1 and 0, 0 and 0:
 *     infer_size gives 0, where Max alone would give 1); a when the facts prove
 *     a == b.
 * The condition is a requirement, not the example's branch: the model runs on
 * each branch. Where the facts exclude 1 for a side that is not a constant
 * (0/1 specialization's range [2, oo), a policy of ours, not the model's), the
 * rule records the branch the example takes, as before (bcast_example_branch):
 * each of b when a = 1, a when b = 1, a when a = b alone makes the answer right
 * at every size, so it records only the one the example satisfies (in that
 * order), as a decision, with no negation (Ne(a, 1) before Eq(b, 1)); the
 * disjunction would be rewritten by the range to Eq(a, b) and add 2 <= a.
 * Sides that share a symbol come first: the whole condition less the branches
 * that are excluded or imply another (bcast_shared). */
/* the branch the example takes ("is the size 1?" first), for sizes whose facts exclude 1 */
static sy_status bcast_example_branch(sy_env *env, const sy_provenance *why, const sy_expr *a, const sy_expr *b, int64_t va,
                                      int64_t vb, const sy_expr **out)
{
    sy_ctx *ctx = env->ctx;
    const sy_expr *one = sy_expr_int_si(ctx, 1);
    static const char *const is1 = "broadcast: is the size 1?";
    int dec;
    sy_status st;
    if (va == 1 || vb == 1) {
        if ((st = decide(env, why, sy_expr_eq(ctx, va == 1 ? a : b, one), is1, &dec))) return st;
        if (dec) *out = va == 1 ? b : a; /* always: the hint */
        return SY_OK;
    }
    if ((st = decide(env, why, sy_expr_eq(ctx, a, b), "broadcast: are the sizes equal?", &dec))) return st;
    if (!dec) return SY_OK;
    /* equal: the constant side when there is one */
    *out = sy_expr_is_int(b) ? b : sy_facts_apply(env->facts, a);
    return *out ? SY_OK : sy_ctx_last_error(ctx);
}

/* *out = 1 when a and b read a common symbol */
static sy_status shares_symbol(sy_ctx *ctx, const sy_expr *a, const sy_expr *b, int *out)
{
    const sy_expr **sa = NULL, **sb = NULL;
    size_t na = 0, nb = 0;
    sy_status st = sy_expr_free_symbols(ctx, a, &sa, &na);
    if (!st) st = sy_expr_free_symbols(ctx, b, &sb, &nb);
    *out = 0;
    for (size_t i = 0; !st && i < na && !*out; i++)
        for (size_t j = 0; j < nb && !*out; j++) *out = sa[i] == sb[j];
    sy_mem_free(ctx, sa);
    sy_mem_free(ctx, sb);
    return st;
}

/* Max(a, b) * Min(a, b, 1): the pair's size on each of the kernel's three branches */
static sy_status bcast_max_min(sy_ctx *ctx, const sy_expr *a, const sy_expr *b, const sy_expr **out)
{
    *out = sy_expr_mul(ctx, sy_expr_max(ctx, a, b), sy_expr_min(ctx, sy_expr_min(ctx, a, b), sy_expr_int_si(ctx, 1)));
    return *out ? SY_OK : sy_ctx_last_error(ctx);
}

/* Sides sharing a symbol (x[1:] against x, a difference t0 = a - b against b, a sequence T
 * against a table's Min(128, T), a flatten n*m against m): the kernel's condition
 * Or(a == 1, b == 1, a == b) is required as for two sizes, not the example's branch (bcast47:
 * the branch kept 10 of 14 CPU-ok sizes of such models, e.g. x[1:] * x at n = 2 kept n == 2
 * where the CPU runs n = 0, 1, 2). The branches of such a pair are often corner points of one
 * another, so before the condition is required
 *   - a branch the facts exclude (sy_decide, no symbol touched) is dropped: 2n == 1, or a side
 *     whose range excludes 1 (0/1 specialization), as bcast_example_branch did;
 *   - a branch d_i that implies another d_j under the facts is dropped: with Not(d_j) added to
 *     a copy of the facts (d_j simplified first: T == Min(128, T) is T <= 128, its negation the
 *     range T >= 129), d_i is false: T == 1 and Min(128, T) == 1 both imply T <= 128, which stays
 *     the one guard, as the example's branch gave.
 * Dropping a disjunct only strengthens the requirement (sound at every size, facts or not).
 * Then the answer: a where the facts prove a == b, b where they prove a == 1, a where b == 1
 * (sy_env_try_decide touches what it uses), else Max(a, b) * Min(a, b, 1). */
static sy_status bcast_shared(sy_env *env, const sy_provenance *why, const sy_expr *a, const sy_expr *b,
                              const sy_expr *a1, const sy_expr *b1, const sy_expr *eq, sy_rule_reason reason, void *arg,
                              const sy_expr **out)
{
    sy_ctx *ctx = env->ctx;
    const sy_expr *d[3] = {eq, a1, b1}; /* eq first: the branch kept when each implies the others */
    int live[3];
    sy_status st;
    for (int i = 0; i < 3; i++) {
        sy_truth t;
        if ((st = sy_decide(env->facts, d[i], &t))) return st;
        live[i] = t != SY_TRUTH_FALSE;
    }
    for (int j = 0; j < 3; j++) {
        if (!live[j]) continue;
        int others = 0;
        for (int i = 0; i < 3; i++) others += i != j && live[i];
        if (!others) break;
        sy_facts *f = sy_facts_copy(env->facts);
        if (!f) return sy_ctx_last_error(ctx);
        const sy_expr *sj = sy_simplify(env->facts, d[j]); /* T == Min(128, T) is T <= 128: its negation a range */
        const sy_expr *nj = sj ? sy_expr_not(ctx, sj) : NULL;
        st = nj ? sy_facts_add(f, nj) : sy_ctx_last_error(ctx);
        for (int i = 0; i < 3 && !st; i++) {
            if (i == j || !live[i]) continue;
            sy_truth t;
            if ((st = sy_decide(f, d[i], &t))) break;
            if (t == SY_TRUTH_FALSE) live[i] = 0; /* d_i implies d_j */
        }
        sy_facts_free(f);
        if (st == SY_EQUOTA) { /* the budget: keep the disjuncts as they are */
            sy_ctx_reset_error(ctx);
            st = SY_OK;
        }
        if (st) return st;
    }
    const sy_expr *cond = NULL;
    for (int i = 0; i < 3; i++)
        if (live[i]) cond = cond ? sy_expr_or(ctx, cond, d[i]) : d[i];
    if (!cond) cond = sy_expr_or(ctx, sy_expr_or(ctx, a1, b1), eq); /* none can hold: the requirement fails */
    if ((st = require(env, why, cond, reason, arg, 0))) return st;
    const sy_expr *ans[3] = {a, b, a};
    for (int i = 0; i < 3; i++) {
        int known, val;
        if ((st = sy_env_try_decide(env, d[i], &known, &val))) return st;
        if (known && val) {
            *out = sy_facts_apply(env->facts, ans[i]);
            return *out ? SY_OK : sy_ctx_last_error(ctx);
        }
    }
    return bcast_max_min(ctx, a, b, out);
}

sy_status sy_rule_bcast_dim(sy_env *env, const sy_provenance *why, const sy_expr *a, const sy_expr *b, sy_rule_reason reason,
                            void *arg, const sy_expr **out)
{
    sy_ctx *ctx = env->ctx;
    const sy_expr *one = sy_expr_int_si(ctx, 1);
    *out = NULL;
    if (!a || !b || !one) return sy_ctx_last_error(ctx);
    if (a == b || b == one) { /* against the constant 1: no question, so no guard (issue 10 item 5) */
        *out = a;
        return SY_OK;
    }
    if (a == one) {
        *out = b;
        return SY_OK;
    }
    static const char *const is1 = "broadcast: is the size 1?";
    const sy_expr *a1 = sy_expr_eq(ctx, a, one), *b1 = sy_expr_eq(ctx, b, one);
    if (!a1 || !b1) return sy_ctx_last_error(ctx);
    int64_t va, vb;
    int dec;
    sy_status st;
    if (hint_si(env, a, &va) && hint_si(env, b, &vb)) {
        const sy_expr *eq = sy_expr_eq(ctx, a, b);
        if (!eq) return sy_ctx_last_error(ctx);
        if (va != vb && va != 1 && vb != 1) { /* the example does not broadcast: the failed trace records
                         * a != b and the relation Eq(a, b) it needed (the ONNX retry at a related example
                         * solves it: frontends/onnx/onnx_relate.c) */
            if ((st = decide(env, why, eq, "broadcast: are the sizes equal?", &dec))) return st;
            sy_env_set_failed_relation(env, eq); /* the retry's target (sy_env_failed_relation) */
            return SY_OK;
        }
        /* a range that excludes 1 (0/1 specialization's [2, oo), a policy): the example's branch,
         * as before; the disjunction would be rewritten by that range to Eq(a, b), and the symbols
         * it reads touched, adding the range guard 2 <= a, which threw away a = b = 0 or 1 (ONNX
         * bcast_unnamed under the default policy) */
        int shared;
        if ((st = shares_symbol(ctx, a, b, &shared))) return st;
        if (shared) return bcast_shared(env, why, a, b, a1, b1, eq, reason, arg, out);
        sy_truth ta1, tb1; /* sy_decide: the facts asked without touching a symbol */
        if ((st = sy_decide(env->facts, a1, &ta1)) || (st = sy_decide(env->facts, b1, &tb1))) return st;
        if ((ta1 == SY_TRUTH_FALSE && !sy_expr_is_int(a)) || (tb1 == SY_TRUTH_FALSE && !sy_expr_is_int(b)))
            return bcast_example_branch(env, why, a, b, va, vb, out);
        /* a constant side c: the other one expands to it (a ViT's sequence FloorDiv(h, 16)*FloorDiv(w, 16) + 1
         * against its positional embedding's 197 gives 197, which the facts do not substitute) */
        if (sy_expr_is_int(b) || sy_expr_is_int(a)) {
            const sy_expr *c = sy_expr_is_int(b) ? b : a, *other = c == b ? a : b;
            if ((st = require(env, why, sy_expr_or(ctx, sy_expr_eq(ctx, other, one), eq), reason, arg, 0))) return st;
            *out = c;
            return SY_OK;
        }
        if ((st = require(env, why, sy_expr_or(ctx, sy_expr_or(ctx, a1, b1), eq), reason, arg, 0))) return st;
        /* equal by the facts (a recorded equality): a. The facts are asked nothing else (an answer
         * from a range touches the symbol: its range guard) */
        int known, val;
        if ((st = sy_env_try_decide(env, eq, &known, &val))) return st;
        if (known && val) {
            *out = sy_facts_apply(env->facts, a);
            return *out ? SY_OK : sy_ctx_last_error(ctx);
        }
        return bcast_max_min(ctx, a, b, out);
    }
    /* an unbacked size: no example to choose by; ask in PyTorch's order */
    if ((st = decide(env, why, a1, is1, &dec))) return st;
    if (dec) {
        *out = b;
        return SY_OK;
    }
    if ((st = decide(env, why, b1, is1, &dec))) return st;
    if (dec) {
        *out = a;
        return SY_OK;
    }
    if ((st = require(env, why, sy_expr_eq(ctx, a, b), reason, arg, 0))) return st;
    *out = sy_facts_apply(env->facts, a);
    return *out ? SY_OK : sy_ctx_last_error(ctx);
}

/* ------------------------------------------------------------------ sliding windows
 * PyTorch pooling_output_shape_pad_lr (aten/src/ATen/native/Pool.h):
 *   out = div_rtn(in + pad_l + pad_r - dilation*(kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
 *   if (ceil_mode && (out - 1) * stride >= in + pad_l) --out;
 * (pooling_output_shape passes pad_l = pad_r = pad); conv's output size
 * (aten/src/ATen/native/ConvUtils.h conv_output_size) is the floor form.
 * ONNX Operators.md (Conv-11, MaxPool-12, AveragePool-11): floor((in + pads - ext)
 * / stride) + 1, ceil with ceil_mode; onnxruntime pool_attributes.h
 * ComputeOutputSize does PyTorch's drop of a last window that starts at or
 * after in + pad_head (googlenet's MaxPool2d(3, 2, ceil_mode=True) on a 2 x 2
 * map: 1 x 1 in both). The formula memoized by its operands (sy_env_xmemo: pure
 * construction).
 * The ceil_mode drop is one expression, not a decision, where it can be:
 *   out = Min(r, cap),  cap = (in + pad_l - 1) // stride + 1
 * (cap is the largest out whose last window starts inside, (out - 1)*stride < in + pad_l).
 * When the last window starts inside, r <= cap and Min is r; when it does not, the rule
 * gives r - 1, which is cap whenever r - cap <= 1. With A = in + pads - ext + stride - 1
 * and B = in + pad_l - 1, r - cap = A//stride - B//stride <= 1 whenever A - B < stride,
 * that is pad_r < ext: true for every torch pool (pool2d_shape_check: pad <= kernel/2)
 * and for ONNX pads smaller than the window; else the decision of PyTorch's branch
 * (a guard). The branch is taken without Min when the facts already decide it, so
 * that stacked pools do not nest Mins. Checked exhaustively against the rule in
 * tests/shapeenv/test_rules.c. */
sy_status sy_rule_window_out(sy_env *env, const sy_provenance *why, const sy_expr *d, const sy_expr *ext, int64_t stride,
                             int64_t pad_begin, int64_t pad_end, int ceil_mode, const sy_expr **out)
{
    sy_ctx *ctx = env->ctx;
    if (!d || !ext) return sy_ctx_last_error(ctx);
    int64_t e;
    int one_expr = ceil_mode && sy_expr_is_int(ext) && sy_expr_get_si(ext, &e) == SY_OK && pad_end < e;
    uint64_t key[SY_XMEMO_KEY] = {SY_XM_POOL, (uintptr_t)d, (uintptr_t)ext, (uint64_t)stride, (uint64_t)pad_begin,
                                  (uint64_t)pad_end, (uint64_t)ceil_mode};
    const sy_expr *const *hit = sy_env_xmemo_get(env, key);
    /* alt: cap (one_expr) or r - 1 (the decision); cond: r - 1 starts outside (the decision) */
    const sy_expr *r, *cond = NULL, *alt = NULL;
    if (hit) {
        r = hit[0];
        cond = hit[1];
        alt = hit[2];
    } else {
        /* the constant parts in exact arithmetic: pads may be near int64 */
        const sy_expr *pads = sy_expr_add(ctx, sy_expr_int_si(ctx, pad_begin), sy_expr_int_si(ctx, pad_end));
        const sy_expr *num = sy_expr_sub(ctx, sy_expr_add(ctx, d, pads), ext);
        if (ceil_mode) num = sy_expr_add_si(ctx, num, stride - 1);
        r = sy_expr_add_si(ctx, sy_expr_floordiv(ctx, num, sy_expr_int_si(ctx, stride)), 1);
        if (!r) return sy_ctx_last_error(ctx);
        if (one_expr) {
            alt = sy_expr_add_si(ctx, sy_expr_floordiv(ctx, sy_expr_add(ctx, d, sy_expr_int_si(ctx, pad_begin - 1)),
                                                       sy_expr_int_si(ctx, stride)),
                                 1);
            cond = sy_expr_le(ctx, r, alt);
            if (!alt || !cond) return sy_ctx_last_error(ctx);
        } else if (ceil_mode) {
            alt = sy_expr_add_si(ctx, r, -1);
            cond = sy_expr_ge(ctx, sy_expr_mul_si(ctx, alt, stride), sy_expr_add_si(ctx, d, pad_begin));
            if (!alt || !cond) return sy_ctx_last_error(ctx);
        }
        sy_env_xmemo_put(env, key, (const sy_expr *const[SY_XMEMO_VALS]){r, cond, alt});
    }
    sy_status st;
    if (one_expr) {
        /* r <= cap known: r; r > cap known: cap; else Min(r, cap) (sy_env_try_decide marks
         * the symbols it relied upon) */
        int known = 0, val = 0;
        if ((st = sy_env_try_decide(env, cond, &known, &val))) return st;
        r = known ? (val ? r : alt) : sy_expr_min(ctx, r, alt);
        if (!r) return sy_ctx_last_error(ctx);
    } else if (ceil_mode) {
        int drop;
        if ((st = decide(env, why, cond, "ceil_mode: does the last window start outside the input?", &drop))) return st;
        if (drop) r = alt;
    }
    *out = r;
    return SY_OK;
}

sy_status sy_rule_window_out_trunc(sy_env *env, const sy_provenance *why, const sy_expr *d, const sy_expr *ext, int64_t stride,
                                   int64_t pad_begin, int64_t pad_end, const sy_expr **out)
{
    sy_ctx *ctx = env->ctx;
    if (!d || !ext) return sy_ctx_last_error(ctx);
    const sy_expr *pads = sy_expr_add(ctx, sy_expr_int_si(ctx, pad_begin), sy_expr_int_si(ctx, pad_end));
    const sy_expr *t = sy_expr_sub(ctx, sy_expr_add(ctx, d, pads), ext), *zero = sy_expr_int_si(ctx, 0);
    const sy_expr *s = sy_expr_int_si(ctx, stride);
    if (!t || !zero || !s) return sy_ctx_last_error(ctx);
    int known = 0, fits = 0;
    sy_status st = sy_env_try_decide(env, sy_expr_ge(ctx, t, zero), &known, &fits);
    if (st) return st;
    if (known && fits) return sy_rule_window_out(env, why, d, ext, stride, pad_begin, pad_end, 0, out);
    /* stride 1: trunc(t / 1) = t */
    const sy_expr *r = stride == 1 ? t
                     : known     ? sy_expr_ceildiv(ctx, t, s)
                             : sy_expr_add(ctx, sy_expr_floordiv(ctx, sy_expr_max(ctx, t, zero), s),
                                           sy_expr_ceildiv(ctx, sy_expr_min(ctx, t, zero), s));
    r = sy_expr_add_si(ctx, r, 1);
    if (!r) return sy_ctx_last_error(ctx);
    *out = r;
    return SY_OK;
}

/* ------------------------------------------------------------------ reshape's -1
 * PyTorch infer_size_impl (aten/src/ATen/InferSize.h): "shape '[...]' is invalid
 * for input of size N" unless numel % newsize == 0, and newsize != 0 ("cannot
 * reshape tensor of 0 elements ... -1 can be any value and is ambiguous").
 * onnxruntime reshape_helper.h ReshapeHelper: ORT_ENFORCE(size != 0 &&
 * input_shape.Size() % size == 0) (an input {0, 364} to {0, -1} fails: the
 * product is checked even when the quotient is a polynomial, n*4 / n). */
sy_status sy_rule_infer_size(sy_env *env, const sy_provenance *why, const sy_expr *numel, const sy_expr *known,
                             sy_rule_reason reason, void *arg, const sy_expr **out)
{
    sy_ctx *ctx = env->ctx;
    if (!numel || !known) return sy_ctx_last_error(ctx);
    const sy_expr *zero = sy_expr_int_si(ctx, 0);
    sy_status st = require(env, why, sy_expr_ne(ctx, known, zero), reason, arg, 0);
    if (st) return st;
    const sy_expr *q = NULL;
    sy_bool ex = known == zero ? SY_FALSE : sy_expr_poly_divexact(ctx, numel, known, &q);
    if (ex == SY_BOOL_ERROR) sy_ctx_reset_error(ctx);
    if (ex != SY_TRUE) {
        if ((st = require(env, why, sy_expr_eq(ctx, sy_expr_mod(ctx, numel, known), zero), reason, arg, 1))) return st;
        q = sy_expr_floordiv(ctx, numel, known);
        if (!q) return sy_ctx_last_error(ctx);
        const sy_expr *sq = sy_env_simplify(env, q);
        if (sq) q = sq;
        else sy_ctx_reset_error(ctx);
    }
    *out = q;
    return q ? SY_OK : sy_ctx_last_error(ctx);
}

/* ------------------------------------------------------------------ pad
 * PyTorch constant_pad_nd (aten/src/ATen/native/PadNd.cpp): new_dim = dim +
 * pad_l + pad_r, the input narrowed by the negative pads; ONNX Pad-18:
 * "output_dim = input_dim + pad_begin + pad_end", negative pads remove
 * (onnxruntime pad.cc crops by them first). add_pad keeps F.pad's "up to a
 * multiple" (m*CeilDiv(d, m)) in its compact form. */
sy_status sy_rule_pad_dim(sy_env *env, const sy_expr *d, const sy_expr *before, const sy_expr *after, const sy_expr **out,
                          const sy_expr **kept)
{
    sy_ctx *ctx = env->ctx;
    *out = sy_expr_add_pad(ctx, d, sy_expr_add(ctx, before, after));
    if (!*out) return sy_ctx_last_error(ctx);
    if (kept) {
        const sy_expr *zero = sy_expr_int_si(ctx, 0);
        *kept = sy_expr_add(ctx, sy_expr_add(ctx, d, sy_expr_min(ctx, before, zero)), sy_expr_min(ctx, after, zero));
        if (!*kept) return sy_ctx_last_error(ctx);
    }
    return SY_OK;
}

/* ------------------------------------------------------------------ slices
 * Python (Objects/sliceobject.c PySlice_AdjustIndices, step > 0): if x < 0:
 * x += len, and if still < 0: x = 0; elif x >= len: x = len. PyTorch's slice
 * (aten/src/ATen/native/TensorShape.cpp slice; the meta function
 * torch/_meta_registrations.py / _refs slice) does the same and then "if
 * (end < start) end = start", so the length is max(end - start, 0) rounded up
 * by the step. ONNX Slice-13 for a positive step: start/end + dim when
 * negative, clamped to [0, dim], length max(0, ceil((end - start) / step)).
 * Each comparison is answered by the facts when they prove it; else it stays
 * in the expression: for an integer x, [x >= 0] = Min(Max(x + 1, 0), 1), so
 * the wrapped index is x + len * (1 - [x >= 0]), then Min(Max(., 0), len).
 * tests/shapeenv/test_rules.c checks the rule against Python's slicing at
 * random points. */
static sy_status known(sy_env *env, const sy_expr *rel, int *k, int *v)
{
    if (!rel) return sy_ctx_last_error(env->ctx);
    return sy_env_try_decide(env, rel, k, v);
}

sy_status sy_rule_slice_bound(sy_env *env, const sy_expr *x, const sy_expr *len, const sy_expr *def, const sy_expr **out)
{
    sy_ctx *ctx = env->ctx;
    *out = NULL;
    if (!x) {
        *out = def;
        return SY_OK;
    }
    int64_t xv;
    if (!sy_expr_get_si(x, &xv) && xv == INT64_MAX) { /* sys.maxsize: to the end (a size is never larger) */
        *out = len;
        return SY_OK;
    }
    const sy_expr *zero = sy_expr_int_si(ctx, 0);
    int k, neg;
    sy_status st = known(env, sy_expr_lt(ctx, x, zero), &k, &neg);
    if (st) return st;
    if (!k) { /* sign unknown: the whole rule as one expression */
        const sy_expr *nonneg = sy_expr_min(ctx, sy_expr_max(ctx, sy_expr_add_si(ctx, x, 1), zero), sy_expr_int_si(ctx, 1));
        x = sy_expr_add(ctx, x, sy_expr_sub(ctx, len, sy_expr_mul(ctx, len, nonneg)));
        if (!x) return sy_ctx_last_error(ctx);
        x = sy_expr_min(ctx, sy_expr_max(ctx, x, zero), len);
    } else {
        if (neg) x = sy_expr_add(ctx, x, len);
        /* both questions on the unclamped x: with len >= 0, Min(Max(x, 0), len) = Max(Min(x, len), 0) */
        int kb, below, ka, above;
        if ((st = known(env, sy_expr_lt(ctx, x, zero), &kb, &below)) || (st = known(env, sy_expr_gt(ctx, x, len), &ka, &above)))
            return st;
        if (kb && below) x = zero;
        else if (ka && above) x = len;
        else {
            if (!ka) x = sy_expr_min(ctx, x, len);
            if (!kb) x = sy_expr_max(ctx, x, zero);
        }
    }
    if (!x) return sy_ctx_last_error(ctx);
    const sy_expr *s = sy_env_simplify(env, x);
    if (!s) sy_ctx_reset_error(ctx);
    *out = s ? s : x;
    return SY_OK;
}

/* One bound of a slice with a negative step (Python's PySlice_AdjustIndices, step < 0; ONNX
 * Slice-13): a negative x counts from the end, then x is clamped to [lo, len - 1], lo = -1 (an end;
 * Python's start) or 0 (ONNX's start: "clamped into [0, dims[axes[i]]-1] for negative stepping",
 * so x[-10:-10:-1] of 5 takes element 0 in onnxruntime and nothing in Python). The clamp is
 * Min(Max(x, lo), len - 1): on a dim of 0 the range [0, -1] is empty and the bound is -1, so the
 * length is 0 (onnxruntime takes nothing there). x NULL (None): len - 1 for a start, -1 for an end. */
static sy_status slice_bound_neg(sy_env *env, const sy_expr *x, const sy_expr *len, int is_start, int64_t lo,
                                 const sy_expr **out)
{
    sy_ctx *ctx = env->ctx;
    const sy_expr *zero = sy_expr_int_si(ctx, 0), *hi = sy_expr_add_si(ctx, len, -1), *L = sy_expr_int_si(ctx, lo);
    *out = NULL;
    if (!hi || !L) return sy_ctx_last_error(ctx);
    if (!x) {
        *out = is_start ? hi : sy_expr_int_si(ctx, -1);
        return *out ? SY_OK : sy_ctx_last_error(ctx);
    }
    int k, neg;
    sy_status st = known(env, sy_expr_lt(ctx, x, zero), &k, &neg);
    if (st) return st;
    if (!k) { /* sign unknown: x + len * (1 - [x >= 0]) */
        const sy_expr *nonneg = sy_expr_min(ctx, sy_expr_max(ctx, sy_expr_add_si(ctx, x, 1), zero), sy_expr_int_si(ctx, 1));
        x = sy_expr_add(ctx, x, sy_expr_sub(ctx, len, sy_expr_mul(ctx, len, nonneg)));
    } else if (neg) {
        x = sy_expr_add(ctx, x, len);
    }
    if (!x) return sy_ctx_last_error(ctx);
    int kb, below, ka, above, ke, nonempty;
    if ((st = known(env, sy_expr_lt(ctx, x, L), &kb, &below)) || (st = known(env, sy_expr_gt(ctx, x, hi), &ka, &above)) ||
        (st = known(env, sy_expr_le(ctx, L, hi), &ke, &nonempty)))
        return st;
    if (ka && above) x = hi;
    else if (kb && below) x = sy_expr_min(ctx, L, hi); /* lo, or -1 on a dim of 0 */
    else {
        if (!kb) x = sy_expr_max(ctx, x, L);
        /* x <= hi proven, and lo <= hi: Max(x, lo) <= hi too, no Min */
        if (!(ka && (kb || (ke && nonempty)))) x = sy_expr_min(ctx, x, hi);
    }
    if (!x) return sy_ctx_last_error(ctx);
    const sy_expr *s = sy_env_simplify(env, x);
    if (!s) sy_ctx_reset_error(ctx);
    *out = s ? s : x;
    return SY_OK;
}

/* the length of a slice from bound b0 to b1 (exclusive) by step: Max(diff, 0) rounded up by |step|,
 * diff = b1 - b0 (step > 0) or b0 - b1 (step < 0), astep = |step| (2^63 for INT64_MIN, in the
 * algebra); what the facts prove is used */
static sy_status slice_count(sy_env *env, const sy_expr *cnt, const sy_expr *astep, const sy_expr **n)
{
    sy_ctx *ctx = env->ctx;
    if (!astep) return sy_ctx_last_error(ctx);
    const sy_expr *zero = sy_expr_int_si(ctx, 0);
    int k, empty, nonneg;
    sy_status st;
    if ((st = known(env, sy_expr_le(ctx, cnt, zero), &k, &empty))) return st;
    if (k && empty) {
        cnt = zero;
    } else {
        if ((st = known(env, sy_expr_ge(ctx, cnt, zero), &k, &nonneg))) return st;
        if (!(k && nonneg)) cnt = sy_expr_max(ctx, cnt, zero); /* Max(stop - start, 0) */
        int64_t a1;
        if (!(sy_expr_get_si(astep, &a1) == SY_OK && a1 == 1)) cnt = sy_expr_ceildiv(ctx, cnt, astep);
    }
    if (!cnt) return sy_ctx_last_error(ctx);
    const sy_expr *s = sy_env_simplify(env, cnt);
    if (!s) sy_ctx_reset_error(ctx);
    *n = s ? s : cnt;
    return SY_OK;
}

/* a - b, with a - Max(b_i) written Min(a - b_i) (and Min(a_i) - b as Min(a_i - b)): equal for
 * integers; a flip's (n - 1) - Max(-1, n - 9223372036854775807) is then Min(n, 9223372036854775806),
 * whose facts (n >= 0) prove it non-negative. At most 4 arguments: no growth. */
static const sy_expr *sub_spread(sy_ctx *ctx, const sy_expr *a, const sy_expr *b)
{
    const sy_expr *r = NULL;
    if (sy_expr_kind_of(b) == SY_EXPR_MAX && sy_expr_nargs(b) <= 4) {
        for (size_t i = 0; i < sy_expr_nargs(b); i++) {
            const sy_expr *t = sy_expr_sub(ctx, a, sy_expr_arg(b, i));
            r = r ? sy_expr_min(ctx, r, t) : t;
        }
        return r;
    }
    if (sy_expr_kind_of(a) == SY_EXPR_MIN && sy_expr_nargs(a) <= 4) {
        for (size_t i = 0; i < sy_expr_nargs(a); i++) {
            const sy_expr *t = sy_expr_sub(ctx, sy_expr_arg(a, i), b);
            r = r ? sy_expr_min(ctx, r, t) : t;
        }
        return r;
    }
    return sy_expr_sub(ctx, a, b);
}

static sy_status slice_len_neg(sy_env *env, const sy_expr *start, const sy_expr *stop, int64_t step, const sy_expr *len,
                               int64_t start_lo, const sy_expr **start_out, const sy_expr **n)
{
    sy_ctx *ctx = env->ctx;
    *n = NULL;
    const sy_expr *b0, *b1;
    sy_status st;
    if ((st = slice_bound_neg(env, start, len, 1, start_lo, &b0)) || (st = slice_bound_neg(env, stop, len, 0, -1, &b1)))
        return st;
    const sy_expr *cnt = sub_spread(ctx, b0, b1);
    if (!cnt) return sy_ctx_last_error(ctx);
    if ((st = slice_count(env, cnt, sy_expr_neg(ctx, sy_expr_int_si(ctx, step)), n))) return st;
    *start_out = b0;
    return SY_OK;
}

sy_status sy_rule_slice_len_onnx(sy_env *env, const sy_expr *start, const sy_expr *stop, int64_t step, const sy_expr *len,
                                 const sy_expr **start_out, const sy_expr **n)
{
    if (step < 0) return slice_len_neg(env, start, stop, step, len, 0, start_out, n);
    return sy_rule_slice_len(env, start, stop, step, len, start_out, n);
}

sy_status sy_rule_slice_len(sy_env *env, const sy_expr *start, const sy_expr *stop, int64_t step, const sy_expr *len,
                            const sy_expr **start_out, const sy_expr **n)
{
    sy_ctx *ctx = env->ctx;
    *n = NULL;
    if (step == 0) return sy_fail_st(ctx, SY_EINVAL, "slice step cannot be zero");
    if (step < 0) return slice_len_neg(env, start, stop, step, len, -1, start_out, n);
    const sy_expr *zero = sy_expr_int_si(ctx, 0), *b0, *b1;
    sy_status st;
    if ((st = sy_rule_slice_bound(env, start, len, zero, &b0)) || (st = sy_rule_slice_bound(env, stop, len, len, &b1)))
        return st;
    const sy_expr *cnt = sy_expr_sub(ctx, b1, b0);
    int64_t c0;
    if (start && !stop && !sy_expr_get_si(start, &c0) && c0 >= 0 && c0 != INT64_MAX)
        cnt = sy_expr_sub(ctx, len, start); /* x[c:]: len - Min(c, len) = Max(len - c, 0), below */
    else if (start && !stop && !sy_expr_get_si(start, &c0) && c0 < 0 && c0 > -INT64_MAX)
        cnt = sy_expr_min(ctx, sy_expr_int_si(ctx, -c0), len); /* x[-c:]: len - Max(len - c, 0) = Min(c, len) */
    if (!cnt) return sy_ctx_last_error(ctx);
    if ((st = slice_count(env, cnt, sy_expr_int_si(ctx, step), n))) return st;
    *start_out = b0;
    return SY_OK;
}
