/* Neural-network ops. Each documents the PyTorch rule it implements. */
#include <math.h>
#include <string.h>

#include "shapeenv/env_private.h"
#include "shapeenv/rules.h"


static sy_status require_eq(opcall *c, const sy_expr *a, const sy_expr *b, const char *what)
{
    return op_require(c, sy_expr_eq(c->env->ctx, a, b), "%s: %s != %s", what, sy_env_show(c->env, a), sy_env_show(c->env, b));
}

/* ------------------------------------------------------------------ convolution
 * Output size (torch/nn/modules/conv.py docs; aten/src/ATen/native/ConvUtils.h
 * conv_output_size):
 *   out = (in + 2*padding - dilation*(kernel - 1) - 1) // stride + 1
 * Transposed (ConvUtils.h conv_input_size):
 *   out = (in - 1)*stride - 2*padding + dilation*(kernel - 1) + output_padding + 1
 *
 * Checks: the CPU kernels, not the meta function. PyTorch 1.13's meta_conv
 * (torch/_meta_registrations.py) only creates the output with new_empty, so it
 * accepts an output size of 0; the CPU path (aten/src/ATen/native/Convolution.cpp
 * at::_convolution) makes these checks, in this order:
 *  - check_shape_forward: weight.size(0) >= groups and divisible by groups;
 *    conv: input channels == weight.size(1)*groups, bias 1-D of weight.size(0);
 *    per spatial dim "padded input >= dilated kernel":
 *      in + 2*padding >= dilation*(kernel - 1) + 1
 *    ("Calculated padded input size per channel: (..). Kernel size: (..).
 *    Kernel size can't be greater than actual input size"); transposed: input
 *    channels == weight.size(0). padding='same' (_convolution_mode) pads by
 *    dilation*(kernel-1) in total, so the check reads in >= 1.
 *  - _select_conv_backend: an input with zero batch or zero channels takes the
 *    Empty backend (output of the computed size, no kernel run); any other
 *    empty input fails "Only zero batch or zero channel inputs are supported".
 *  - transposed, the slow kernels (aten/src/ATen/native/NaiveConvolutionTranspose2d.cpp
 *    slow_conv_transpose2d_shape_check, ...3d.cpp): output_padding < stride or
 *    < dilation per dim; every output size >= 1 ("Output size is too small").
 * Verified against torch 1.13 on the CPU (tests/kernels/test_kernel_checks.py). */
static const char *show_tuple(opcall *c, size_t n, const sy_expr *const *e)
{
    size_t cap = 1, len = 0;
    const char *parts[3];
    for (size_t i = 0; i < n; i++) cap += strlen(parts[i] = sy_env_show(c->env, e[i])) + 3;
    char *s = sy_env_alloc(c->env, cap);
    if (!s) return "?";
    for (size_t i = 0; i < n; i++) len += (size_t)snprintf(s + len, cap - len, "%s%s", i ? " x " : "", parts[i]);
    return s;
}

static sy_status conv(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    int transposed = !strncmp(c->op, "conv_transpose", 14);
    size_t nsp = c->op[strlen(c->op) - 2] - '0'; /* conv1d / conv2d / conv3d */
    if (nsp < 1 || nsp > 3) return op_err(c, SY_EINVAL, "unknown convolution");
    const sy_tensor *x, *w, *bias;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_tensor(c, 1, "weight", &w)) ||
        (st = op_opt_tensor(c, 2, "bias", &bias)))
        return st;
    int batched = x->ndim == nsp + 2;
    if (!batched && x->ndim != nsp + 1)
        return op_err(c, SY_EINVAL, "Expected %zuD (unbatched) or %zuD (batched) input, but got input of size %zuD", nsp + 1,
                      nsp + 2, x->ndim);
    if (w->ndim != nsp + 2) return op_err(c, SY_EINVAL, "weight must be %zuD", nsp + 2);
    int64_t stride[3], pad[3], dil[3], groups;
    /* output_padding may be symbolic: nn.ConvTranspose2d(...)(x, output_size=...) passes
     * output_size - min_size (torch/nn/modules/conv.py _ConvTransposeNd._output_padding) */
    const sy_expr *opad[3];
    static const int64_t ones[3] = {1, 1, 1}, zeros[3] = {0, 0, 0};
    /* positional layout: conv: input, weight, bias, stride, padding, dilation, groups
     * conv_transpose: input, weight, bias, stride, padding, output_padding, groups, dilation */
    if ((st = op_int_list(c, 3, "stride", nsp, ones, stride))) return st;
    const sy_value *pv = op_arg(c, 4, "padding");
    int same = 0;
    if (pv && pv->kind == SY_V_STR) {
        if (transposed) return op_err(c, SY_EINVAL, "padding must be an int or a tuple of ints for transposed convolution");
        if (!strcmp(pv->u.s, "valid")) memset(pad, 0, sizeof pad);
        else if (!strcmp(pv->u.s, "same")) same = 1;
        else return op_err(c, SY_EINVAL, "Invalid padding string '%s'", pv->u.s);
    } else if ((st = op_int_list(c, 4, "padding", nsp, zeros, pad))) {
        return st;
    }
    if (transposed) {
        const sy_value *ov = op_arg(c, 5, "output_padding");
        if (!ov || ov->kind == SY_V_NONE)
            for (size_t i = 0; i < nsp; i++) opad[i] = KI(c, 0);
        else if ((st = op_sym_list(c, 5, "output_padding", nsp, opad)))
            return st;
        if ((st = op_const_int(c, 6, "groups", 1, &groups)) ||
            (st = op_int_list(c, 7, "dilation", nsp, ones, dil)))
            return st;
    } else if ((st = op_int_list(c, 5, "dilation", nsp, ones, dil)) || (st = op_const_int(c, 6, "groups", 1, &groups))) {
        return st;
    } else {
        for (size_t i = 0; i < nsp; i++) opad[i] = KI(c, 0);
    }
    if (groups <= 0) return op_err(c, SY_EINVAL, "non-positive groups is not supported");
    for (size_t i = 0; i < nsp; i++) {
        if (stride[i] <= 0) return op_err(c, SY_EINVAL, "non-positive stride is not supported");
        if (dil[i] <= 0) return op_err(c, SY_EINVAL, "dilation should be greater than zero");
        if (!same && pad[i] < 0) return op_err(c, SY_EINVAL, "negative padding is not supported");
        if (!opad[i]) return sy_ctx_last_error(ctx);
        int64_t op;
        if (sy_expr_get_si(opad[i], &op) == SY_OK) {
            if (op < 0) return op_err(c, SY_EINVAL, "negative output_padding is not supported");
            if (transposed && op >= stride[i] && op >= dil[i])
                return op_err(c, SY_EINVAL, "output padding must be smaller than either stride or dilation, but got output_padding %lld, stride %lld, dilation %lld",
                              (long long)op, (long long)stride[i], (long long)dil[i]);
        } else { /* symbolic: the same checks as requirements (ConvParams is_output_padding_neg; the slow kernels' shape check) */
            if ((st = op_require(c, sy_expr_ge(ctx, opad[i], KI(c, 0)), "negative output_padding is not supported (output_padding %s)",
                                 sy_env_show(c->env, opad[i]))) ||
                (st = op_require(c, sy_expr_lt(ctx, opad[i], KI(c, stride[i] > dil[i] ? stride[i] : dil[i])),
                                 "output padding must be smaller than either stride or dilation, but got output_padding %s, stride %lld, dilation %lld",
                                 sy_env_show(c->env, opad[i]), (long long)stride[i], (long long)dil[i])))
                return st;
        }
    }
    if (same) {
        for (size_t i = 0; i < nsp; i++)
            if (stride[i] != 1) return op_err(c, SY_EINVAL, "padding='same' is not supported for strided convolutions");
    }
    /* check_shape_forward: weight.size(0) against groups */
    if ((st = op_require(c, sy_expr_ge(ctx, w->sizes[0], KI(c, groups)),
                         "Given groups=%lld, expected weight to be at least %lld at dimension 0, but got weight of size %s", (long long)groups,
                         (long long)groups, sy_env_show(c->env, w->sizes[0]))) ||
        (st = op_require(c, sy_expr_eq(ctx, sy_expr_mod(ctx, w->sizes[0], KI(c, groups)), KI(c, 0)),
                         "Given groups=%lld, expected weight to be divisible by %lld at dimension 0, but got weight of size %s",
                         (long long)groups, (long long)groups, sy_env_show(c->env, w->sizes[0]))))
        return st;
    const sy_expr *cin = x->sizes[batched ? 1 : 0];
    const sy_expr **out = sy_env_alloc(c->env, (nsp + 2) * sizeof *out);
    const sy_expr **padded = sy_env_alloc(c->env, 2 * nsp * sizeof *padded), **dks = padded ? padded + nsp : NULL;
    if (!out || !padded) return sy_ctx_last_error(ctx);
    size_t o = 0;
    if (batched) out[o++] = x->sizes[0];
    if (!transposed) {
        if ((st = op_require(c, sy_expr_eq(ctx, cin, sy_expr_mul_si(ctx, w->sizes[1], groups)),
                             "Given groups=%lld, weight of size %s, expected input with %s channels, but got %s channels instead",
                             (long long)groups, sy_env_show(c->env, w->sizes[0]), sy_env_show(c->env, sy_expr_mul_si(ctx, w->sizes[1], groups)),
                             sy_env_show(c->env, cin))))
            return st;
        out[o++] = w->sizes[0];
    } else {
        if ((st = require_eq(c, cin, w->sizes[0], "conv_transpose: input channels must equal weight.size(0)"))) return st;
        out[o++] = sy_expr_mul_si(ctx, w->sizes[1], groups);
    }
    if (bias && (bias->ndim != 1 || (st = require_eq(c, bias->sizes[0], out[o - 1], "bias size must equal the output channels"))))
        return st ? st : op_err(c, SY_EINVAL, "bias must be 1-D");
    const sy_expr *const *L = x->sizes + (batched ? 2 : 1);
    for (size_t i = 0; i < nsp; i++) {
        /* memoized by the operands (sy_env_xmemo: pure construction) */
        uint64_t key[SY_XMEMO_KEY] = {SY_XM_CONV_PAD, (uintptr_t)L[i], (uintptr_t)w->sizes[2 + i], (uint64_t)dil[i], (uint64_t)pad[i],
                                      (uint64_t)same};
        const sy_expr *const *hit = sy_env_xmemo_get(c->env, key);
        if (hit) {
            dks[i] = hit[0];
            padded[i] = hit[1];
            continue;
        }
        /* d*(k-1)+1; the constant parts in exact arithmetic: padding may be near int64 */
        dks[i] = sy_expr_add_si(ctx, sy_expr_mul_si(ctx, sy_expr_add_si(ctx, w->sizes[2 + i], -1), dil[i]), 1);
        padded[i] = same ? sy_expr_add_si(ctx, dks[i], -1) : sy_expr_mul_si(ctx, KI(c, pad[i]), 2);
        padded[i] = sy_expr_add(ctx, L[i], padded[i]);
        if (!dks[i] || !padded[i]) return sy_ctx_last_error(ctx);
        sy_env_xmemo_put(c->env, key, (const sy_expr *const[SY_XMEMO_VALS]){dks[i], padded[i], NULL});
    }
    if (!transposed)
        for (size_t i = 0; i < nsp; i++)
            if ((st = op_require(c, sy_expr_ge(ctx, padded[i], dks[i]),
                                 "Calculated padded input size per channel: (%s). Kernel size: (%s). Kernel size can't be greater than actual input size",
                                 show_tuple(c, nsp, padded), show_tuple(c, nsp, dks))))
                return st;
    /* _select_conv_backend: zero batch or zero channels -> Empty backend; any
     * other empty input fails. One requirement Or(N == 0, C == 0, L >= 1 ...),
     * so that a batch symbol is not asked "is it 0?" (a range guard) when the
     * spatial sizes are known to be positive. */
    const sy_expr *nonempty, *empty_in = NULL;
    {
        /* And(L >= 1 ...), memoized by the sizes (sy_env_xmemo: pure construction) */
        uint64_t key[SY_XMEMO_KEY] = {SY_XM_CONV_NONEMPTY, (uint64_t)nsp, (uintptr_t)L[0], nsp > 1 ? (uintptr_t)L[1] : 0,
                                      nsp > 2 ? (uintptr_t)L[2] : 0};
        const sy_expr *const *hit = sy_env_xmemo_get(c->env, key);
        if (hit) {
            nonempty = hit[0];
        } else {
            nonempty = sy_expr_true(ctx);
            for (size_t i = 0; i < nsp; i++) nonempty = sy_expr_and(ctx, nonempty, sy_expr_ge(ctx, L[i], KI(c, 1)));
            if (!nonempty) return sy_ctx_last_error(ctx);
            sy_env_xmemo_put(c->env, key, (const sy_expr *const[SY_XMEMO_VALS]){nonempty, NULL, NULL});
        }
    }
    int known = 0;
    if ((st = op_known_true(c, nonempty, &known))) return st;
    if (!known || transposed) { /* Or(C == 0, N == 0): only where it is used */
        empty_in = sy_expr_eq(ctx, cin, KI(c, 0));
        if (batched) empty_in = sy_expr_or(ctx, empty_in, sy_expr_eq(ctx, x->sizes[0], KI(c, 0)));
    }
    if ((st = op_require(c, known ? nonempty : sy_expr_or(ctx, empty_in, nonempty),
                         "Only zero batch or zero channel inputs are supported, but got input size per channel (%s)", show_tuple(c, nsp, L))))
        return st;
    size_t first = o;
    for (size_t i = 0; i < nsp; i++) {
        const sy_expr *r;
        uint64_t key[SY_XMEMO_KEY] = {SY_XM_CONV_OUT, (uintptr_t)L[i], (uintptr_t)dks[i], (uintptr_t)padded[i], (uint64_t)stride[i],
                                      (uint64_t)pad[i], (uintptr_t)opad[i], (uint64_t)(same | transposed << 1)};
        const sy_expr *const *hit = sy_env_xmemo_get(c->env, key);
        if (hit) {
            out[o++] = hit[0];
            continue;
        }
        if (transposed) /* (L - 1)*s - 2p + d*(k - 1) + output_padding + 1 */
            r = sy_expr_add(ctx, sy_expr_add(ctx, sy_expr_mul_si(ctx, sy_expr_add_si(ctx, L[i], -1), stride[i]), dks[i]),
                            sy_expr_sub(ctx, opad[i], sy_expr_mul_si(ctx, KI(c, pad[i]), 2)));
        else if (same)
            r = L[i];
        else { /* conv_output_size (ConvUtils.h): the window rule (shapeenv/rules.c), floor mode */
            sy_provenance why = {c->where ? c->where->node : NULL, c->op, NULL};
            if ((st = sy_rule_window_out(c->env, &why, L[i], dks[i], stride[i], pad[i], pad[i], 0, &r))) return st;
        }
        if (!r) return sy_ctx_last_error(ctx);
        sy_env_xmemo_put(c->env, key, (const sy_expr *const[SY_XMEMO_VALS]){r, NULL, NULL});
        out[o++] = r;
    }
    if (transposed)
        for (size_t i = 0; i < nsp; i++) {
            /* the Empty backend views to the computed size (>= 0); the slow kernels need >= 1 */
            if ((st = op_require(c, sy_expr_or(ctx, sy_expr_and(ctx, empty_in, sy_expr_ge(ctx, out[first + i], KI(c, 0))),
                                                sy_expr_ge(ctx, out[first + i], KI(c, 1))),
                                 "Given input size per channel: (%s). Calculated output size per channel: (%s). Output size is too small",
                                 show_tuple(c, nsp, L), show_tuple(c, nsp, out + first))))
                return st;
        }
    return op_set_tensor(c, x->dtype, o, out);
}

/* ------------------------------------------------------------------ max_unpool
 * F.max_unpool{1,2,3}d(input, indices, kernel_size, stride=None, padding=0,
 * output_size=None) (torch/nn/functional.py; 1.13 and 2.x):
 * _unpool_output_size: default (L - 1)*stride + kernel - 2*padding per
 * spatial dim; a given output_size (nsp entries, or nsp + 2 whose first two
 * are dropped) must satisfy default - stride < size < default + stride
 * (ValueError "invalid output_size"). max_unpool1d unsqueezes to 2d. Kernel
 * checks (aten/src/ATen/native/MaxUnpooling.cpp): indices int64, the same
 * shape as the input ("Expected shape of indices to be same as that of the
 * input tensor"), rank nsp+1 or nsp+2 ("Input to max_unpooling2d should be a
 * 3d or 4d Tensor"), non-batch dims > 0; stride > 0 (3d). Every index must
 * be < the output plane ("Found an invalid max index"): that depends on the
 * indices' values (max_pool's indices address its input plane, which may be
 * larger than the default output), so it is a runtime assert on a
 * data-dependent value, listed in the guard set. The output is contiguous. */
static sy_status max_unpool(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    size_t nsp = (size_t)(c->op[strlen(c->op) - 2] - '0');
    if (nsp < 1 || nsp > 3) return op_err(c, SY_EINVAL, "unknown max_unpool op");
    const sy_tensor *x, *ix;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_tensor(c, 1, "indices", &ix))) return st;
    int64_t k[3], sd[3], p[3];
    static const int64_t zeros[3] = {0, 0, 0};
    if ((st = op_int_list(c, 2, "kernel_size", nsp, NULL, k))) return st;
    const sy_value *sv = op_arg(c, 3, "stride");
    if (!sv || sv->kind == SY_V_NONE) memcpy(sd, k, sizeof sd);
    else if ((st = op_int_list(c, 3, "stride", nsp, NULL, sd))) return st;
    if ((st = op_int_list(c, 4, "padding", nsp, zeros, p))) return st;
    for (size_t i = 0; i < nsp; i++)
        if (sd[i] <= 0) return op_err(c, SY_EINVAL, "strides should be greater than zero, but got stride %lld", (long long)sd[i]);
    if (x->ndim != nsp + 1 && x->ndim != nsp + 2)
        return op_err(c, SY_EINVAL, "Input to max_unpooling%zud should be a %zud or %zud Tensor, but got a tensor with %zu dimensions.",
                      nsp == 1 ? (size_t)2 : nsp, (nsp == 1 ? 2 : nsp) + 1, (nsp == 1 ? 2 : nsp) + 2, x->ndim);
    if (ix->dtype != SY_DT_INT64)
        return op_err(c, SY_EINVAL, "elements in indices should be type int64 but got: %s", sy_dtype_name(ix->dtype));
    if (ix->ndim != x->ndim) return op_err(c, SY_EINVAL, "Expected shape of indices to be same as that of the input tensor");
    for (size_t i = 0; i < x->ndim; i++)
        if ((st = require_eq(c, ix->sizes[i], x->sizes[i], "Expected shape of indices to be same as that of the input tensor"))) return st;
    size_t first = x->ndim - nsp;
    for (size_t i = x->ndim == nsp + 2 ? 1 : 0; i < x->ndim; i++)
        if ((st = op_require(c, sy_expr_ge(ctx, x->sizes[i], KI(c, 1)),
                             "Expected input to have non-zero size for non-batch dimensions, but dim %zu is %s", i,
                             sy_env_show(c->env, x->sizes[i]))))
            return st;
    const sy_expr **out = sy_env_alloc(c->env, x->ndim * sizeof *out);
    if (!out) return sy_ctx_last_error(ctx);
    for (size_t i = 0; i < first; i++) out[i] = x->sizes[i];
    const sy_value *ov = op_arg(c, 5, "output_size");
    const sy_value *items = NULL;
    if (ov && ov->kind != SY_V_NONE) {
        if (ov->kind != SY_V_LIST) return op_err(c, SY_EINVAL, "output_size must be a list of ints");
        size_t n = ov->u.list.n;
        if (n == nsp + 2) items = ov->u.list.items + 2;
        else if (n == nsp) items = ov->u.list.items;
        else return op_err(c, SY_EINVAL, "output_size should be a sequence containing %zu or %zu elements, but it has a length of '%zu'",
                           nsp, nsp + 2, n);
    }
    const sy_expr *plane = KI(c, 1);
    for (size_t i = 0; i < nsp; i++) {
        const sy_expr *def = sy_expr_add_si(ctx, sy_expr_mul_si(ctx, sy_expr_add_si(ctx, x->sizes[first + i], -1), sd[i]), k[i] - 2 * p[i]);
        if (!def) return sy_ctx_last_error(ctx);
        if (items) {
            if (items[i].kind != SY_V_INT) return op_err(c, SY_EINVAL, "output_size must be a list of ints");
            const sy_expr *o = items[i].u.i;
            if ((st = op_require(c, sy_expr_and(ctx, sy_expr_gt(ctx, o, sy_expr_add_si(ctx, def, -sd[i])),
                                                sy_expr_lt(ctx, o, sy_expr_add_si(ctx, def, sd[i]))),
                                 "invalid output_size \"%s\" (dim %zu must be between %s and %s)", sy_env_show(c->env, o), i,
                                 sy_env_show(c->env, sy_expr_add_si(ctx, def, -sd[i])), sy_env_show(c->env, sy_expr_add_si(ctx, def, sd[i])))))
                return st;
            out[first + i] = o;
        } else {
            out[first + i] = def;
        }
        if ((st = op_require(c, sy_expr_ge(ctx, out[first + i], KI(c, 0)), "Trying to create tensor with negative dimension %s",
                             sy_env_show(c->env, out[first + i]))))
            return st;
        plane = sy_expr_mul(ctx, plane, out[first + i]);
    }
    /* the indices' values against the output plane: checked by torch at run time */
    char what[160];
    snprintf(what, sizeof what, "largest index at node %s (indices values)", c->where && c->where->node ? c->where->node : "?");
    const sy_expr *u = sy_env_create_unbacked(c->env, 1, what);
    if (!u || !plane) return sy_ctx_last_error(ctx);
    sy_provenance why = {c->where ? c->where->node : NULL, c->op,
                         "max_unpool: every index must be below the output plane (Found an invalid max index); it depends on "
                         "the indices' values, checked by torch at run time"};
    if ((st = sy_env_runtime_assert(c->env, sy_expr_lt(ctx, u, plane), &why))) return st;
    return op_set_tensor(c, x->dtype, x->ndim, out);
}

/* ------------------------------------------------------------------ pooling
 * pooling_output_shape (aten/src/ATen/native/Pool.h, PyTorch 1.13): shapeenv/rules.c
 * sy_rule_window_out, the rule the ONNX frontend's pools use too:
 *   out = div_rtn(in + 2*pad - dilation*(kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1
 *   if ceil_mode and (out - 1)*stride >= in + pad: out -= 1   (the last window must start inside)
 * The ceil_mode branch is one expression, no decision: out = Min(out, (in + pad - 1)//stride + 1)
 * (rules.c: equal to the rule for every pad <= kernel/2)
 * pool2d_shape_check: kernel, stride, dilation > 0; pad <= kernel/2; non-zero
 * input dims; out >= 1 ("Output size is too small"). */
static sy_status pool(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    int is_avg = !strncmp(c->op, "avg_pool", 8);
    size_t nsp = (size_t)(c->op[strlen(c->op) - 2] - '0');
    if (nsp < 1 || nsp > 3) return op_err(c, SY_EINVAL, "unknown pooling op");
    const sy_tensor *x;
    sy_status st = op_tensor(c, 0, "input", &x);
    if (st) return st;
    if (x->ndim != nsp + 1 && x->ndim != nsp + 2)
        return op_err(c, SY_EINVAL, "Expected %zuD or %zuD input tensor, but got %zuD", nsp + 1, nsp + 2, x->ndim);
    int64_t k[3], s[3], p[3], d[3] = {1, 1, 1};
    static const int64_t zeros[3] = {0, 0, 0}, ones[3] = {1, 1, 1};
    if ((st = op_int_list(c, 1, "kernel_size", nsp, NULL, k))) return st;
    const sy_value *sv = op_arg(c, 2, "stride");
    if (!sv || sv->kind == SY_V_NONE || (sv->kind == SY_V_LIST && sv->u.list.n == 0)) memcpy(s, k, sizeof s);
    else if ((st = op_int_list(c, 2, "stride", nsp, NULL, s))) return st;
    if ((st = op_int_list(c, 3, "padding", nsp, zeros, p))) return st;
    int ceil_mode;
    if (is_avg) {
        if ((st = op_bool_def(c, 4, "ceil_mode", 0, &ceil_mode))) return st;
    } else {
        if ((st = op_int_list(c, 4, "dilation", nsp, ones, d)) || (st = op_bool_def(c, 5, "ceil_mode", 0, &ceil_mode))) return st;
    }
    for (size_t i = 0; i < nsp; i++) {
        if (k[i] <= 0) return op_err(c, SY_EINVAL, "kernel size should be greater than zero");
        if (s[i] <= 0) return op_err(c, SY_EINVAL, "stride should be greater than zero");
        if (d[i] <= 0) return op_err(c, SY_EINVAL, "dilation should be greater than zero");
        if (p[i] < 0 || p[i] > k[i] / 2) return op_err(c, SY_EINVAL, "pad should be at most half of effective kernel size");
    }
    size_t first = x->ndim - nsp;
    for (size_t i = (x->ndim == nsp + 2) ? 1 : 0; i < x->ndim; i++)
        if ((st = op_require(c, sy_expr_ge(ctx, x->sizes[i], KI(c, 1)),
                             "Expected input to have non-zero size for non-batch dimensions, but dim %zu is %s", i,
                             sy_env_show(c->env, x->sizes[i]))))
            return st;
    const sy_expr **out = sy_env_alloc(c->env, x->ndim * sizeof *out);
    if (!out) return sy_ctx_last_error(ctx);
    for (size_t i = 0; i < first; i++) out[i] = x->sizes[i];
    for (size_t i = 0; i < nsp; i++) {
        /* the window rule both frontends share (shapeenv/rules.c), torch's pads on both sides */
        const sy_expr *ext = sy_expr_add_si(ctx, sy_expr_mul_si(ctx, KI(c, k[i] - 1), d[i]), 1), *r;
        sy_provenance why = {c->where ? c->where->node : NULL, c->op, NULL};
        if ((st = sy_rule_window_out(c->env, &why, x->sizes[first + i], ext, s[i], p[i], p[i], ceil_mode, &r))) return st;
        out[first + i] = r;
    }
    for (size_t i = 0; i < nsp; i++)
        if ((st = op_require(c, sy_expr_ge(ctx, out[first + i], KI(c, 1)),
                             "Given input size: (%s). Calculated output size: (%s). Output size is too small",
                             sy_env_show(c->env, x->sizes[first + i]), sy_env_show(c->env, out[first + i]))))
            return st;
    /* avg_pool3d (AveragePool3d.cpp, pool3d_shape_check with check_input_size):
     * the unpadded input must hold the kernel */
    if (is_avg && nsp == 3)
        for (size_t i = 0; i < nsp; i++)
            if ((st = op_require(c, sy_expr_ge(ctx, x->sizes[first + i], KI(c, k[i])),
                                 "input image (%s) smaller than kernel size (%lld)", sy_env_show(c->env, x->sizes[first + i]),
                                 (long long)k[i])))
                return st;
    if (!is_avg) {
        int ri;
        if ((st = op_bool_def(c, 6, "return_indices", 0, &ri))) return st;
        if (ri) {
            const sy_tensor *t = op_new_tensor(c, x->dtype, x->ndim, out), *idx = op_new_tensor(c, SY_DT_INT64, x->ndim, out);
            if (!t || !idx) return sy_ctx_last_error(ctx);
            sy_value items[2] = {sy_value_tensor(t), sy_value_tensor(idx)};
            *c->out = sy_value_list(c->env, 2, items);
            return SY_OK;
        }
    }
    return op_set_tensor(c, x->dtype, x->ndim, out);
}

/* lp_pool1d / lp_pool2d / lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False)
 * (torch/nn/functional.py lp_pool1d, the same in PyTorch 1.13 and 2.x):
 *   out = avg_poolNd(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)  (stride None: kernel_size)
 *   return (sign(out) * relu(abs(out))).mul(kernel area).pow(1.0 / norm_type)
 * so the sizes and every size check are avg_poolNd's with padding 0 (pool above: Pool.h
 * pooling_output_shape, pool2d_shape_check; AveragePool3d.cpp for 3d); the elementwise tail keeps
 * them, and its dtype is pow(out, float)'s. norm_type 0 raises (1.13: ZeroDivisionError of
 * `1.0 / norm_type`; 2.x: ValueError "norm_type must be a non-zero value"); 2.x takes
 * max_poolNd(input.abs(), kernel_size, stride, 0, 1, ceil_mode) at +-inf (the same sizes and checks
 * in 1d and 2d; lp_pool3d, 2.x only, then lacks avg_pool3d's input >= kernel). */
static sy_status lp_pool(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_value *x = op_arg(c, 0, "input"), *p = op_arg(c, 1, "norm_type"), *k = op_arg(c, 2, "kernel_size"),
                   *s = op_arg(c, 3, "stride"), *cm = op_arg(c, 4, "ceil_mode");
    if (!x || !p || !k) return op_err(c, SY_EINVAL, "%s() missing a required argument (input, norm_type, kernel_size)", c->op);
    sy_status st;
    if (p->kind == SY_V_FLOAT && p->u.f == 0.0) return op_err(c, SY_EINVAL, "%s: float division by zero (norm_type 0)", c->op);
    if (p->kind == SY_V_INT &&
        (st = op_require(c, sy_expr_ne(ctx, p->u.i, KI(c, 0)), "%s: division by zero (norm_type %s)", c->op, sy_env_show(c->env, p->u.i))))
        return st;
    char avg[16];
    sy_value powed, pooled;
    if (p->kind == SY_V_FLOAT && isinf(p->u.f)) {
        snprintf(avg, sizeof avg, "max_pool%s", c->op + strlen("lp_pool"));
        sy_value ab;
        if ((st = sy_env_call(c->env, "abs", 1, x, 0, NULL, NULL, c->where, &ab))) return st;
        sy_value ma[6] = {ab, *k, s ? *s : sy_value_none(), sy_value_int_si(c->env, 0), sy_value_int_si(c->env, 1),
                          cm ? *cm : sy_value_none()};
        return sy_env_call(c->env, avg, cm ? 6 : 5, ma, 0, NULL, NULL, c->where, c->out);
    }
    snprintf(avg, sizeof avg, "avg_pool%s", c->op + strlen("lp_pool"));
    sy_value pa[2] = {*x, *p};
    if ((st = sy_env_call(c->env, "pow", 2, pa, 0, NULL, NULL, c->where, &powed))) return st;
    sy_value aa[5] = {powed, *k, s ? *s : sy_value_none(), sy_value_int_si(c->env, 0), cm ? *cm : sy_value_none()};
    if ((st = sy_env_call(c->env, avg, cm ? 5 : 4, aa, 0, NULL, NULL, c->where, &pooled))) return st;
    sy_value ra[2] = {pooled, sy_value_float(0.5)}; /* the dtype of .pow(1.0 / norm_type) */
    return sy_env_call(c->env, "pow", 2, ra, 0, NULL, NULL, c->where, c->out);
}

/* adaptive_avg_pool{1,2,3}d / adaptive_max_pool (torch/nn/functional.py;
 * torch/_meta_registrations.py meta_adaptive_avg_pool2d, PyTorch 1.13):
 * output sizes are the requested ones (None keeps the input size), >= 0.
 * The meta kernel does not reject empty inputs; the CPU kernels do
 * (adaptive_nonempty below). */
/* The CPU kernels' non-empty checks ("Expected input to have non-zero size for
 * non-batch dimensions"): adaptive_avg_pool1d/2d (AdaptiveAveragePooling.cpp,
 * 1-D runs as 2-D): the last two dims, i.e. the spatial ones;
 * adaptive_avg_pool3d (AdaptiveAveragePooling3d.cpp) and adaptive_max_pool2d
 * (AdaptiveMaxPooling2d.cpp meta): every dim from 1 on (so the channels of a
 * batched input, not of an unbatched one). Verified against torch 1.13. */
static sy_status adaptive_nonempty(opcall *c, const sy_tensor *x, size_t nsp, int is_max)
{
    size_t from = (nsp == 3 || is_max) ? 1 : x->ndim - nsp;
    for (size_t d = from; d < x->ndim; d++) {
        sy_status st = op_require(c, sy_expr_ge(c->env->ctx, x->sizes[d], KI(c, 1)),
                                  "Expected input to have non-zero size for non-batch dimensions, but dim %zu is %s", d,
                                  sy_env_show(c->env, x->sizes[d]));
        if (st) return st;
    }
    return SY_OK;
}

static sy_status adaptive_pool(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    size_t nsp = (size_t)(c->op[strlen(c->op) - 2] - '0');
    const sy_tensor *x;
    sy_status st = op_tensor(c, 0, "input", &x);
    if (st) return st;
    if (nsp < 1 || nsp > 3 || (x->ndim != nsp + 1 && x->ndim != nsp + 2))
        return op_err(c, SY_EINVAL, "expected a %zuD or %zuD input", nsp + 1, nsp + 2);
    const sy_value *os = op_arg(c, 1, "output_size");
    if (!os) return op_err(c, SY_EINVAL, "missing output_size");
    if ((st = adaptive_nonempty(c, x, nsp, strstr(c->op, "max") != NULL))) return st;
    const sy_expr **out = sy_env_alloc(c->env, x->ndim * sizeof *out);
    if (!out) return sy_ctx_last_error(ctx);
    size_t first = x->ndim - nsp;
    for (size_t i = 0; i < first; i++) out[i] = x->sizes[i];
    for (size_t i = 0; i < nsp; i++) {
        const sy_value *v = os->kind == SY_V_LIST ? (os->u.list.n == nsp ? &os->u.list.items[i] : os->u.list.n == 1 ? &os->u.list.items[0] : NULL) : os;
        if (!v) return op_err(c, SY_EINVAL, "output_size must have %zu elements", nsp);
        if (v->kind == SY_V_NONE) out[first + i] = x->sizes[first + i];
        else if (v->kind == SY_V_INT) {
            out[first + i] = v->u.i;
            if ((st = op_require(c, sy_expr_ge(ctx, v->u.i, KI(c, 0)), "output_size must be non-negative"))) return st;
        } else
            return op_err(c, SY_EINVAL, "output_size entries must be integers or None");
    }
    if (strstr(c->op, "max")) {
        int ri;
        if ((st = op_bool_def(c, 2, "return_indices", 0, &ri))) return st;
        if (ri) {
            const sy_tensor *t = op_new_tensor(c, x->dtype, x->ndim, out), *idx = op_new_tensor(c, SY_DT_INT64, x->ndim, out);
            if (!t || !idx) return sy_ctx_last_error(ctx);
            sy_value items[2] = {sy_value_tensor(t), sy_value_tensor(idx)};
            *c->out = sy_value_list(c->env, 2, items);
            return SY_OK;
        }
    }
    return op_set_tensor(c, x->dtype, x->ndim, out);
}

/* ------------------------------------------------------------------ linear algebra
 * F.linear (aten/src/ATen/native/Linear.cpp): input (*, in), weight (out, in),
 * output (*, out); input.size(-1) must equal weight.size(1).
 * matmul (aten/src/ATen/native/LinearAlgebra.cpp matmul): 1-D vectors are
 * promoted and the added dim removed afterwards; batch dims broadcast. */
static sy_status linear(opcall *c)
{
    const sy_tensor *x, *w, *b;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_tensor(c, 1, "weight", &w)) || (st = op_opt_tensor(c, 2, "bias", &b))) return st;
    if (x->ndim < 1) return op_err(c, SY_EINVAL, "input must have at least one dimension");
    if (w->ndim != 2 && w->ndim != 1) return op_err(c, SY_EINVAL, "weight must be 1-D or 2-D");
    const sy_expr *in = w->ndim == 2 ? w->sizes[1] : w->sizes[0];
    if ((st = op_require(c, sy_expr_eq(c->env->ctx, x->sizes[x->ndim - 1], in),
                         "mat1 and mat2 shapes cannot be multiplied (last input dim %s vs weight in_features %s)",
                         sy_env_show(c->env, x->sizes[x->ndim - 1]), sy_env_show(c->env, in))))
        return st;
    const sy_expr **out = sy_env_alloc(c->env, x->ndim * sizeof *out);
    if (!out) return sy_ctx_last_error(c->env->ctx);
    for (size_t i = 0; i + 1 < x->ndim; i++) out[i] = x->sizes[i];
    size_t n = x->ndim - 1;
    if (w->ndim == 2) out[n++] = w->sizes[0];
    if (b) {
        sy_value r, bv = sy_value_tensor(b);
        const sy_tensor *tmp = op_new_tensor(c, x->dtype, n, out);
        if (!tmp) return sy_ctx_last_error(c->env->ctx);
        sy_value tv = sy_value_tensor(tmp);
        opcall c2 = *c;
        c2.out = &r;
        c2.op = "linear (bias)";
        if ((st = sy_elementwise_binary(&c2, &tv, &bv))) return st;
        *c->out = r;
        return SY_OK;
    }
    return op_set_tensor(c, x->dtype, n, out);
}

static sy_status matmul_core(opcall *c, const sy_tensor *a, const sy_tensor *b)
{
    sy_ctx *ctx = c->env->ctx;
    sy_status st;
    if (a->ndim == 0 || b->ndim == 0) return op_err(c, SY_EINVAL, "both arguments to matmul need to be at least 1D");
    const sy_expr *ka = a->sizes[a->ndim - 1];
    const sy_expr *kb = b->ndim == 1 ? b->sizes[0] : b->sizes[b->ndim - 2];
    if ((st = op_require(c, sy_expr_eq(ctx, ka, kb), "mat1 and mat2 shapes cannot be multiplied (%s vs %s)",
                         sy_env_show(c->env, ka), sy_env_show(c->env, kb))))
        return st;
    /* batch dims */
    size_t ba = a->ndim > 2 ? a->ndim - 2 : 0, bb = b->ndim > 2 ? b->ndim - 2 : 0;
    const sy_expr **batch = NULL;
    size_t nb = 0;
    if ((st = op_broadcast(c, a->sizes, ba, b->sizes, bb, &batch, &nb))) return st;
    const sy_expr **out = sy_env_alloc(c->env, (nb + 2) * sizeof *out);
    if (!out) return sy_ctx_last_error(ctx);
    size_t n = 0;
    for (size_t i = 0; i < nb; i++) out[n++] = batch[i];
    if (a->ndim >= 2) out[n++] = a->sizes[a->ndim - 2];
    if (b->ndim >= 2) out[n++] = b->sizes[b->ndim - 1];
    return op_set_tensor(c, a->dtype, n, out);
}

static sy_status matmul(opcall *c)
{
    const sy_tensor *a, *b;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &a)) || (st = op_tensor(c, 1, "other", &b))) return st;
    if (!strcmp(c->op, "mm") && (a->ndim != 2 || b->ndim != 2)) return op_err(c, SY_EINVAL, "mm expects 2-D tensors");
    if (!strcmp(c->op, "bmm")) {
        if (a->ndim != 3 || b->ndim != 3) return op_err(c, SY_EINVAL, "batch1 and batch2 must be 3D tensors");
        if ((st = require_eq(c, a->sizes[0], b->sizes[0], "bmm: batch sizes must match"))) return st;
    }
    return matmul_core(c, a, b);
}

/* F.embedding (aten/src/ATen/native/Embedding.cpp embedding): output =
 * input.shape + (weight.size(1),); weight 2-D, indices Long or Int
 * (checkScalarTypes); the CPU's index_select fails on a weight with 0 rows
 * unless there are no indices. Index values are data, not checked, unless
 * they are a known function of sizes (values.c). */
static sy_status embedding(opcall *c)
{
    const sy_tensor *idx, *w;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &idx)) || (st = op_tensor(c, 1, "weight", &w))) return st;
    if (w->ndim != 2) return op_err(c, SY_EINVAL, "'weight' must be 2-D");
    if (idx->dtype != SY_DT_INT64 && idx->dtype != SY_DT_INT32)
        return op_err(c, SY_EINVAL, "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got %s",
                      sy_dtype_name(idx->dtype));
    /* F.embedding (torch/nn/functional.py 1.13): padding_idx (#2) within
     * [-num_embeddings, num_embeddings) */
    const sy_value *pv = op_arg(c, 2, "padding_idx");
    if (pv && pv->kind != SY_V_NONE) {
        int64_t pi;
        if ((st = op_const_int(c, 2, "padding_idx", 0, &pi))) return st;
        const sy_expr *rel = pi > 0 ? sy_expr_lt(c->env->ctx, KI(c, pi), w->sizes[0]) : sy_expr_ge(c->env->ctx, KI(c, pi), sy_expr_neg(c->env->ctx, w->sizes[0]));
        if ((st = op_require(c, rel, "Padding_idx must be within num_embeddings"))) return st;
    }
    /* index_select on an empty weight: "self indexing axis dim should be positive" unless there is no index */
    const sy_expr *numel = KI(c, 1);
    for (size_t i = 0; i < idx->ndim; i++) numel = sy_expr_mul(c->env->ctx, numel, idx->sizes[i]);
    if ((st = op_require(c, sy_expr_or(c->env->ctx, sy_expr_ge(c->env->ctx, w->sizes[0], KI(c, 1)), sy_expr_eq(c->env->ctx, numel, KI(c, 0))),
                         "index_select(): self indexing axis dim should be positive (weight has %s rows, %s indices)",
                         sy_env_show(c->env, w->sizes[0]), sy_env_show(c->env, numel))))
        return st;
    /* indices whose values are a known function of sizes (values.c: torch.arange(T) and its
     * views and shifts): index_select's check (aten/src/ATen/native/TensorAdvancedIndexing.cpp
     * index_select_out_cpu_: TORCH_CHECK_INDEX(0 <= index < self.size(dim), "index out of range
     * in self")) where there is an index */
    if ((st = sy_env_values_require_in(c, idx, sy_expr_eq(c->env->ctx, numel, KI(c, 0)), KI(c, 0),
                                       sy_expr_sub(c->env->ctx, w->sizes[0], KI(c, 1)), "index out of range in self")))
        return st;
    const sy_expr **out = sy_env_alloc(c->env, (idx->ndim + 1) * sizeof *out);
    if (!out) return sy_ctx_last_error(c->env->ctx);
    for (size_t i = 0; i < idx->ndim; i++) out[i] = idx->sizes[i];
    out[idx->ndim] = w->sizes[1];
    return op_set_tensor(c, w->dtype, idx->ndim + 1, out);
}

/* F.batch_norm: same shape; the channel dim (1) must match running stats. */
static sy_status batch_norm(opcall *c)
{
    const sy_tensor *x, *rm;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_opt_tensor(c, 1, "running_mean", &rm))) return st;
    if (x->ndim < 2) return op_err(c, SY_EINVAL, "Expected 2D or more input (got %zuD)", x->ndim);
    if (rm && rm->ndim == 1 && (st = require_eq(c, x->sizes[1], rm->sizes[0], "running_mean should contain one element per channel")))
        return st;
    /* F.batch_norm (torch/nn/functional.py 1.13) _verify_batch_size in training:
     * size(0) * prod(size[2:]) must not be 1 */
    int training;
    if ((st = op_bool_def(c, 5, "training", 0, &training))) return st;
    if (training) {
        const sy_expr *prod = x->sizes[0];
        for (size_t i = 2; i < x->ndim && prod; i++) prod = sy_expr_mul(c->env->ctx, prod, x->sizes[i]);
        if (!prod) return sy_ctx_last_error(c->env->ctx);
        if ((st = op_require(c, sy_expr_ne(c->env->ctx, prod, KI(c, 1)),
                             "Expected more than 1 value per channel when training, got input size %s", op_show_sizes(c, x->ndim, x->sizes))))
            return st;
    }
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

/* F.layer_norm (aten/src/ATen/native/layer_norm.cpp _check_layer_norm_inputs):
 * the trailing dims must equal normalized_shape. */
static sy_status layer_norm(opcall *c)
{
    const sy_tensor *x;
    const sy_expr **ns;
    size_t nn;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    const sy_value *v = op_arg(c, 1, "normalized_shape");
    if (!v) return op_err(c, SY_EINVAL, "missing normalized_shape");
    opcall c2 = *c;
    sy_value tmp[1] = {*v};
    c2.args = tmp;
    c2.nargs = 1;
    c2.nkw = 0;
    if (v->kind == SY_V_LIST) {
        if ((st = op_shape_args(&c2, 0, NULL, &ns, &nn))) return st;
    } else {
        if ((st = op_shape_args(&c2, 0, NULL, &ns, &nn))) return st;
    }
    if (nn == 0) /* layer_norm.cpp _check_layer_norm_inputs */
        return op_err(c, SY_EINVAL, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, "
                      "but got normalized_shape = []");
    if (nn > x->ndim) return op_err(c, SY_EINVAL, "normalized_shape has more dims than the input");
    for (size_t i = 0; i < nn; i++)
        if ((st = op_require(c, sy_expr_eq(c->env->ctx, x->sizes[x->ndim - nn + i], ns[i]),
                             "Given normalized_shape=[...%s], expected input with shape [*, ...%s], but got input of size %s at dim %zu",
                             sy_env_show(c->env, ns[i]), sy_env_show(c->env, ns[i]), sy_env_show(c->env, x->sizes[x->ndim - nn + i]),
                             x->ndim - nn + i)))
            return st;
    /* weight (and layer_norm's bias) of normalized_shape (layer_norm.cpp _check_layer_norm_inputs,
     * _check_rms_norm_inputs: "Expected weight to be of same shape as normalized_shape") */
    int rms = !strcmp(c->op, "rms_norm");
    for (int k = 0; k < (rms ? 1 : 2); k++) {
        const sy_tensor *w;
        if ((st = op_opt_tensor(c, 2 + (size_t)k, k ? "bias" : "weight", &w))) return st;
        if (!w) continue;
        if (w->ndim != nn)
            return op_err(c, SY_EINVAL, "Expected %s to be of same shape as normalized_shape, but got %s of %zu dims and normalized_shape of %zu",
                          k ? "bias" : "weight", k ? "bias" : "weight", w->ndim, nn);
        for (size_t i = 0; i < nn; i++)
            if ((st = op_require(c, sy_expr_eq(c->env->ctx, w->sizes[i], ns[i]),
                                 "Expected %s to be of same shape as normalized_shape, but got %s of size %s at dim %zu and normalized_shape [...%s]",
                                 k ? "bias" : "weight", k ? "bias" : "weight", sy_env_show(c->env, w->sizes[i]), i, sy_env_show(c->env, ns[i]))))
                return st;
    }
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

/* F.group_norm: channels divisible by num_groups; 2.x: channels and spatial dims non-empty. */
static sy_status group_norm(opcall *c)
{
    const sy_tensor *x;
    const sy_expr *g;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_int(c, 1, "num_groups", &g))) return st;
    if (x->ndim < 2) return op_err(c, SY_EINVAL, "Expected at least 2 dimensions for input tensor");
    /* F.group_norm (1.13): num_groups 0 is Python's ZeroDivisionError (in
     * _verify_batch_size's arithmetic), < 0 fails in native_group_norm
     * ("Expected num groups to be greater than 0") - one requirement, naming
     * what the argument must be, before Mod(C, num_groups) is formed */
    if ((st = op_require(c, sy_expr_ge(c->env->ctx, g, KI(c, 1)),
                         "num_groups must be a positive integer (Expected num groups to be greater than 0), got %s", sy_env_show(c->env, g))))
        return st;
    if ((st = op_require(c, sy_expr_eq(c->env->ctx, sy_expr_mod(c->env->ctx, x->sizes[1], g), KI(c, 0)),
                         "Expected number of channels in input to be divisible by num_groups, but got %s channels and num_groups=%s",
                         sy_env_show(c->env, x->sizes[1]), sy_env_show(c->env, g))))
        return st;
    /* PyTorch 2.x's native_group_norm (aten/src/ATen/native/group_norm.cpp) also needs C > 0
     * ("Expected number of channels to be greater than 0") and HxW = the product of the dims
     * from 2 on > 0 ("Expected HxW to be greater than 0, got 0"), i.e. each of those dims >= 1
     * (sizes are >= 0); measured on 2.14 at [2, 4, 0, 12], [0, 4, 0, 3] (the batch does not
     * matter) and [2, 0, 0, 3]; 1.13 runs all three */
    if (!sy_opc_torch1(c)) {
        if ((st = op_require(c, sy_expr_ge(c->env->ctx, x->sizes[1], KI(c, 1)),
                             "Expected number of channels to be greater than 0, got %s", sy_env_show(c->env, x->sizes[1]))))
            return st;
        for (size_t d = 2; d < x->ndim; d++)
            if ((st = op_require(c, sy_expr_ge(c->env->ctx, x->sizes[d], KI(c, 1)),
                                 "Expected HxW to be greater than 0, got 0 (dim %zu is %s)", d, sy_env_show(c->env, x->sizes[d]))))
                return st;
    }
    return op_set_tensor(c, x->dtype, x->ndim, x->sizes);
}

/* F.interpolate (torch/nn/functional.py _interp_output_size, 1.13): with
 * size, the spatial dims are size; with scale_factor s, PyTorch computes
 * floor(float(in) * s) in double precision (with or without
 * recompute_scale_factor: functional.py floors the product itself, the kernel's
 * compute_output_size converts it toward zero, the same for in >= 0): exact
 * through op_scaled_round, for every s (0.7 included), with the guards its
 * formula needs (algebra/flscale.c).
 * mode (#3, default 'nearest'): linear/bilinear/bicubic/trilinear need a 3-D/
 * 4-D/4-D/5-D input (functional.py). Kernel checks (aten/src/ATen/native/
 * UpSample.h upsample_{1,2,3}d_common_check): input and output spatial sizes
 * > 0, and numel != 0 or prod(sizes[1:]) != 0 (so channels > 0). 'area' runs
 * adaptive_avg_pool{1,2,3}d instead: its non-empty checks, output >= 0. */
static sy_status interpolate(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &x))) return st;
    if (x->ndim < 3) return op_err(c, SY_EINVAL, "expected at least a 3-D input");
    size_t nsp = x->ndim - 2;
    const sy_value *size = op_arg(c, 1, "size"), *scale = op_arg(c, 2, "scale_factor");
    const sy_expr **out = sy_env_alloc(c->env, x->ndim * sizeof *out);
    if (!out) return sy_ctx_last_error(ctx);
    out[0] = x->sizes[0];
    out[1] = x->sizes[1];
    int has_size = size && size->kind != SY_V_NONE, has_scale = scale && scale->kind != SY_V_NONE;
    if (has_size == has_scale) return op_err(c, SY_EINVAL, "only one of size or scale_factor should be defined");
    const sy_value *mv = op_arg(c, 3, "mode");
    const char *mode = mv && mv->kind == SY_V_STR ? mv->u.s : "nearest";
    if (mv && mv->kind != SY_V_STR && mv->kind != SY_V_NONE) return op_err(c, SY_EINVAL, "mode must be a string");
    static const struct { const char *name; size_t rank; } modes[] = {
        {"nearest", 0}, {"nearest-exact", 0}, {"area", 0}, {"linear", 3}, {"bilinear", 4}, {"bicubic", 4}, {"trilinear", 5}};
    size_t mi = sizeof modes / sizeof *modes;
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
        if (!strcmp(mode, modes[i].name)) mi = i;
    if (mi == sizeof modes / sizeof *modes) return op_err(c, SY_EUNSUPPORTED, "mode %s is not supported", mode);
    if (x->ndim > 5 || (modes[mi].rank && modes[mi].rank != x->ndim))
        return op_err(c, SY_EINVAL, "Got %zuD input, but %s mode needs %zuD input", x->ndim, mode, modes[mi].rank ? modes[mi].rank : 4);
    int area = !strcmp(mode, "area");
    for (size_t i = 0; i < nsp; i++) {
        const sy_expr *L = x->sizes[2 + i];
        if (has_size) {
            const sy_value *v = size->kind == SY_V_LIST ? (size->u.list.n == nsp ? &size->u.list.items[i] : NULL) : size;
            if (!v || v->kind != SY_V_INT)
                return op_err(c, SY_EINVAL, "size shape must match input shape. Input is %zuD, size is %zu", nsp,
                              size->kind == SY_V_LIST ? size->u.list.n : 1);
            out[2 + i] = v->u.i;
        } else {
            const sy_value *v = scale->kind == SY_V_LIST ? (scale->u.list.n == nsp ? &scale->u.list.items[i] : NULL) : scale;
            double sf = v && v->kind == SY_V_FLOAT ? v->u.f : 0;
            int64_t si;
            if (v && v->kind == SY_V_INT && !sy_expr_get_si(v->u.i, &si)) sf = (double)si;
            if (!(sf > 0) || !isfinite(sf)) return op_err(c, SY_EINVAL, "scale_factor must be a positive number");
            /* floor(double(L) * s), exactly (op_scaled_round; a static L in double as PyTorch) */
            if ((st = op_scaled_round(c, L, sf, 'f', &out[2 + i]))) return st;
        }
    }
    if (area) { /* adaptive_avg_pool{1,2,3}d on a batched input */
        if ((st = adaptive_nonempty(c, x, nsp, 0))) return st;
        for (size_t i = 0; i < nsp; i++)
            if ((st = op_require(c, sy_expr_ge(ctx, out[2 + i], KI(c, 0)), "output_size must be non-negative"))) return st;
        return op_set_tensor(c, x->dtype, x->ndim, out);
    }
    for (size_t i = 0; i < nsp; i++)
        if ((st = op_require(c, sy_expr_and(ctx, sy_expr_ge(ctx, x->sizes[2 + i], KI(c, 1)), sy_expr_ge(ctx, out[2 + i], KI(c, 1))),
                             "Input and output sizes should be greater than 0, but got input %s and output %s",
                             sy_env_show(c->env, x->sizes[2 + i]), sy_env_show(c->env, out[2 + i]))))
            return st;
    /* upsample_*_common_check: numel != 0 or prod(sizes[1:]) != 0 - with the
     * spatial sizes > 0, the channels must be non-zero (the batch may be 0) */
    if ((st = op_require(c, sy_expr_ge(ctx, x->sizes[1], KI(c, 1)), "Non-empty %zuD data tensor expected but got %s channels", x->ndim,
                         sy_env_show(c->env, x->sizes[1]))))
        return st;
    return op_set_tensor(c, x->dtype, x->ndim, out);
}

/* F.multi_head_attention_forward (torch/nn/functional.py, 1.13): query
 * (L, N, E) or unbatched (L, E); key/value (S, N, E); returns
 * (attn_output (L, N, E), attn_weights or None). */
/* the masks of multi_head_attention_forward (torch/nn/functional.py 1.13,
 * _mha_shape_check and the "prep attention mask" / "merge key padding and
 * attention masks" steps): attn_mask (#16) 2-D (L, S) or 3-D (N*heads, L, S)
 * with S = key.size(0), bool/uint8/floating; key_padding_mask (#14) 2-D
 * (N, S') batched or 1-D (S') unbatched, bool or floating, where S' = S plus
 * one for bias_k (#7) and one for add_zero_attn (#9) (static_k #21: its
 * size(1)). */
static sy_status mha_masks(opcall *c, const sy_tensor *q, const sy_tensor *k, const sy_expr *nh, int batched, const sy_expr **src_len)
{
    sy_ctx *ctx = c->env->ctx;
    sy_status st;
    const sy_tensor *kpm, *am, *bias_k, *static_k;
    int zero_attn;
    if ((st = op_opt_tensor(c, 14, "key_padding_mask", &kpm)) || (st = op_opt_tensor(c, 16, "attn_mask", &am)) ||
        (st = op_opt_tensor(c, 7, "bias_k", &bias_k)) || (st = op_opt_tensor(c, 21, "static_k", &static_k)) ||
        (st = op_bool_def(c, 9, "add_zero_attn", 0, &zero_attn)))
        return st;
    const sy_expr *L = q->sizes[0], *S = k->sizes[0], *N = batched ? q->sizes[1] : KI(c, 1);
    const sy_expr *src = static_k && static_k->ndim == 3 ? static_k->sizes[1] : sy_expr_add_si(ctx, S, bias_k && !static_k ? 1 : 0);
    if (zero_attn) src = sy_expr_add_si(ctx, src, 1);
    if (!src) return sy_ctx_last_error(ctx);
    *src_len = src;
    if (am) {
        if (am->ndim != 2 && am->ndim != 3)
            return op_err(c, SY_EINVAL, "For %s `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found %zu-D tensor instead",
                          batched ? "batched (3-D)" : "unbatched (2-D)", am->ndim);
        if (am->dtype != SY_DT_UINT8 && am->dtype != SY_DT_BOOL && !op_is_floating(am->dtype))
            return op_err(c, SY_EINVAL, "Only float, byte, and bool types are supported for attn_mask, not torch.%s", sy_dtype_name(am->dtype));
        const sy_expr *want[3] = {sy_expr_mul(ctx, N, nh), L, S};
        const sy_expr *const *w = am->ndim == 2 ? want + 1 : want;
        const sy_expr *eq = sy_expr_true(ctx);
        for (size_t i = 0; i < am->ndim; i++) eq = sy_expr_and(ctx, eq, sy_expr_eq(ctx, am->sizes[i], w[i]));
        if (!eq) return sy_ctx_last_error(ctx);
        if ((st = op_require(c, eq, "The shape of the %zuD attn_mask is %s, but should be %s.", am->ndim, op_show_sizes(c, am->ndim, am->sizes),
                             op_show_sizes(c, am->ndim, w))))
            return st;
    }
    if (kpm) {
        size_t want_rank = batched ? 2 : 1;
        if (kpm->ndim != want_rank)
            return op_err(c, SY_EINVAL, "For %s `query`, expected `key_padding_mask` to be `None` or %zu-D but found %zu-D tensor instead",
                          batched ? "batched (3-D)" : "unbatched (2-D)", want_rank, kpm->ndim);
        if (kpm->dtype != SY_DT_BOOL && !op_is_floating(kpm->dtype))
            return op_err(c, SY_EINVAL, "only bool and floating types of key_padding_mask are supported");
        const sy_expr *want[2] = {N, src};
        const sy_expr *const *w = batched ? want : want + 1;
        const sy_expr *eq = sy_expr_true(ctx);
        for (size_t i = 0; i < kpm->ndim; i++) eq = sy_expr_and(ctx, eq, sy_expr_eq(ctx, kpm->sizes[i], w[i]));
        if (!eq) return sy_ctx_last_error(ctx);
        if ((st = op_require(c, eq, "expecting key_padding_mask shape of %s, but got %s", op_show_sizes(c, 2, want),
                             op_show_sizes(c, kpm->ndim, kpm->sizes))))
            return st;
    }
    return SY_OK;
}

/* The embedding dims of key and value (torch/nn/functional.py multi_head_attention_forward, 1.13
 * and 2.14): with one packed in_proj_weight (3E, E) (#5), `key.shape == value.shape` and
 * _in_projection_packed's linear(k, w_k) needs key.size(-1) == in_proj_weight.size(1); with
 * use_separate_proj_weight (#17; nn.MultiheadAttention's kdim/vdim), _in_projection asserts
 * k_proj_weight (#19) is (Eq, Ek) and v_proj_weight (#20) (Eq, Ev) ("expecting key weights shape
 * of ..."). Neither was read: under the relaxed policy a memory of another width than the
 * model's was accepted (nn.TransformerDecoder's cross-attention, found by attack46p). */
static sy_status mha_embed_dims(opcall *c, const sy_tensor *k, const sy_tensor *v)
{
    int sep;
    sy_status st;
    if ((st = op_bool_def(c, 17, "use_separate_proj_weight", 0, &sep))) return st;
    const sy_expr *Ek = k->sizes[k->ndim - 1], *Ev = v->sizes[v->ndim - 1];
    if (!sep) {
        const sy_tensor *w;
        if ((st = require_eq(c, Ek, Ev, "key shape must match value shape")) || (st = op_opt_tensor(c, 5, "in_proj_weight", &w)))
            return st;
        if (!w) return op_err(c, SY_EINVAL, "use_separate_proj_weight is False but in_proj_weight is None");
        if (w->ndim != 2) return op_err(c, SY_EINVAL, "in_proj_weight must be 2-D, got %zu-D", w->ndim);
        return require_eq(c, Ek, w->sizes[1], "key's last dim must be in_proj_weight.size(1) (mat1 and mat2 shapes cannot be multiplied)");
    }
    const sy_tensor *wk, *wv;
    if ((st = op_opt_tensor(c, 19, "k_proj_weight", &wk)) || (st = op_opt_tensor(c, 20, "v_proj_weight", &wv))) return st;
    if (!wk || !wv) return op_err(c, SY_EINVAL, "use_separate_proj_weight is True but k_proj_weight or v_proj_weight is None");
    if (wk->ndim != 2 || wv->ndim != 2) return op_err(c, SY_EINVAL, "k_proj_weight and v_proj_weight must be 2-D");
    if ((st = require_eq(c, Ek, wk->sizes[1], "expecting key weights shape of (Eq, Ek)"))) return st;
    return require_eq(c, Ev, wv->sizes[1], "expecting value weights shape of (Eq, Ev)");
}

static sy_status mha(opcall *c)
{
    sy_ctx *ctx = c->env->ctx;
    const sy_tensor *q, *k, *v;
    sy_status st;
    if ((st = op_tensor(c, 0, "query", &q)) || (st = op_tensor(c, 1, "key", &k)) || (st = op_tensor(c, 2, "value", &v))) return st;
    const sy_expr *edc, *nh;
    if ((st = op_int(c, 3, "embed_dim_to_check", &edc)) || (st = op_int(c, 4, "num_heads", &nh))) return st;
    int batched = q->ndim == 3;
    if (!batched && q->ndim != 2) return op_err(c, SY_EINVAL, "query should be unbatched 2D or batched 3D tensor but received %zuD", q->ndim);
    if (k->ndim != q->ndim || v->ndim != q->ndim) return op_err(c, SY_EINVAL, "key and value must have the query's rank");
    const sy_expr *E = q->sizes[q->ndim - 1];
    if ((st = require_eq(c, E, edc, "was expecting embedding dimension of embed_dim_to_check"))) return st;
    /* num_heads <= 0: functional.py fails (0: ZeroDivisionError in head_dim =
     * embed_dim // num_heads; < 0: "invalid shape dimension" in the view) */
    if ((st = op_require(c, sy_expr_ge(ctx, nh, KI(c, 1)), "num_heads must be a positive integer, got %s", sy_env_show(c->env, nh))))
        return st;
    if ((st = op_require(c, sy_expr_eq(ctx, sy_expr_mod(ctx, E, nh), KI(c, 0)), "embed_dim must be divisible by num_heads"))) return st;
    if (batched && ((st = require_eq(c, k->sizes[1], q->sizes[1], "key batch size must match query")) ||
                    (st = require_eq(c, v->sizes[1], q->sizes[1], "value batch size must match query"))))
        return st;
    for (size_t i = 0; i + 1 < k->ndim; i++)
        if ((st = require_eq(c, k->sizes[i], v->sizes[i], "key shape must match value shape"))) return st;
    if ((st = mha_embed_dims(c, k, v))) return st;
    const sy_expr *src_len = NULL;
    if ((st = mha_masks(c, q, k, nh, batched, &src_len))) return st;
    int need_weights, average, causal;
    if ((st = op_bool_def(c, 15, "need_weights", 1, &need_weights)) || (st = op_bool_def(c, 23, "average_attn_weights", 1, &average)) ||
        (st = op_bool_def(c, 24, "is_causal", 0, &causal)))
        return st;
    if (causal && !op_torch1(c)) { /* 2.x: the is_causal hint needs the mask it describes */
        const sy_tensor *am;
        if ((st = op_opt_tensor(c, 16, "attn_mask", &am))) return st;
        if (!am)
            return op_err(c, SY_EINVAL, "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method `generate_square_subsequent_mask` to create this mask.");
    }
    if (!need_weights && !op_torch1(c)) {
        /* 2.x, need_weights=False (torch/nn/functional.py multi_head_attention_forward): the
         * merged mask (key_padding_mask reshaped to (N*num_heads, 1, S'), a 3-D attn_mask
         * (N*num_heads, L, S'), a 2-D one unsqueezed to (1, L, S'), or their sum) goes to
         * scaled_dot_product_attention through attn_mask.view(bsz, num_heads, -1, src_len)
         * unless its size(0) is 1; with N or S' zero that view has 0 elements and the -1 is
         * ambiguous (infer_size). No mask, or is_causal without key_padding_mask: no view.
         * 1.13 has no such path (baddbmm, then views without -1). */
        const sy_tensor *kpm, *am;
        if ((st = op_opt_tensor(c, 14, "key_padding_mask", &kpm)) || (st = op_opt_tensor(c, 16, "attn_mask", &am))) return st;
        if (causal && !kpm) am = NULL;
        if (kpm || (am && am->ndim == 3)) {
            const sy_expr *N = batched ? q->sizes[1] : KI(c, 1);
            const sy_expr *rows = sy_expr_mul(ctx, N, nh);
            const sy_expr *ok = sy_expr_or(ctx, sy_expr_eq(ctx, rows, KI(c, 1)), sy_expr_ne(ctx, sy_expr_mul(ctx, N, src_len), KI(c, 0)));
            if (!ok) return sy_ctx_last_error(ctx);
            if ((st = op_require(c, ok, "cannot reshape tensor of 0 elements into shape [%s, %s, -1, %s] because the unspecified dimension size -1 can be any value and is ambiguous",
                                 sy_env_show(c->env, N), sy_env_show(c->env, nh), sy_env_show(c->env, src_len))))
                return st;
        }
    }
    int fast;
    if ((st = op_bool_def(c, (size_t)-1, "sy_fastpath", 0, &fast))) return st;
    if (fast && batched && !op_torch1(c)) {
        /* the exporter marks a call of an nn.MultiheadAttention that may take its fused path at run
         * time (eval, batch_first self-attention, ...; exporter.py _mha_fastpath_eligible); there
         * MultiheadAttention.merge_masks views a 3-D attn_mask (N*num_heads, L, L) as
         * attn_mask.view(N, -1, L, L), which fails with 0 elements whatever need_weights is
         * (measured on the CPU, torch 2.14.1: N = 0 or L = 0); a key padding mask or a 2-D mask
         * runs there at 0. Whether the fused path is taken depends on the grad mode at run time,
         * so the Python path's requirement above stays too: both paths must run. */
        const sy_tensor *am;
        if ((st = op_opt_tensor(c, 16, "attn_mask", &am))) return st;
        if (am && am->ndim == 3) {
            const sy_expr *N = q->sizes[1], *L = q->sizes[0];
            if ((st = op_require(c, sy_expr_ne(ctx, sy_expr_mul(ctx, N, L), KI(c, 0)),
                                 "cannot reshape tensor of 0 elements into shape [%s, -1, %s, %s] because the unspecified dimension size -1 can be any value and is ambiguous",
                                 sy_env_show(c->env, N), sy_env_show(c->env, L), sy_env_show(c->env, L))))
                return st;
        }
    }
    const sy_tensor *out = op_new_tensor(c, q->dtype, q->ndim, q->sizes);
    if (!out) return sy_ctx_last_error(ctx);
    sy_value items[2] = {sy_value_tensor(out), sy_value_none()};
    if (need_weights) {
        const sy_expr *L = q->sizes[0], *S = k->sizes[0];
        const sy_expr *ws[4];
        size_t n = 0;
        if (batched) ws[n++] = q->sizes[1];
        if (!average) ws[n++] = nh;
        ws[n++] = L;
        ws[n++] = S;
        const sy_tensor *w = op_new_tensor(c, q->dtype, n, ws);
        if (!w) return sy_ctx_last_error(ctx);
        items[1] = sy_value_tensor(w);
    }
    *c->out = sy_value_list(c->env, 2, items);
    return SY_OK;
}

/* scaled_dot_product_attention's attn_mask (#3) against the scores attn = matmul(q, k^T):
 * (batch of q and k broadcast, L, S). aten/src/ATen/native/transformers/attention.cpp:
 * validate_sdpa_input ("Expected attn_mask dtype to be bool or float or to match query dtype"),
 * _scaled_dot_product_attention_math (is_causal with an explicit mask fails; attn.add_(mask): the
 * mask expands in place to attn, each dim 1 or attn's, op_require_expands). Measured on the CPU
 * (torch 2.14.1): a 1-D mask fails ("Dimension out of range"), a mask of attn's rank or less
 * expands in place at every size (0 included), one of higher rank fails for 4-D q ("output with
 * shape [B, H, L, S] doesn't match the broadcast shape [1, B, H, L, S]"); a 4-D mask of a 3-D q
 * with leading 1 runs, which is refused here (an error, not a guess). The mask was not read at
 * all before relax38: under the relaxed policy a mask of another batch or length was accepted. */
static sy_status sdpa_mask(opcall *c, const sy_tensor *q, const sy_tensor *k, const sy_expr *const *batch, size_t nb)
{
    const sy_tensor *m;
    int causal;
    sy_status st;
    if ((st = op_opt_tensor(c, 3, "attn_mask", &m)) || (st = op_bool_def(c, 5, "is_causal", 0, &causal))) return st;
    if (!m) return SY_OK;
    if (causal) return op_err(c, SY_EINVAL, "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
    if (m->dtype != SY_DT_BOOL && m->dtype != q->dtype)
        return op_err(c, SY_EINVAL, "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: %s and  query.dtype: %s instead.",
                      sy_dtype_name(m->dtype), sy_dtype_name(q->dtype));
    size_t na = nb + 2;
    if (m->ndim < 2) return op_err(c, SY_EINVAL, "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
    if (m->ndim > na)
        return op_err(c, SY_EINVAL, "attn_mask of %zu dims for scores of %zu dims: the mask must expand in place to the scores (attn.add_(attn_mask))", m->ndim, na);
    for (size_t i = 0; i < m->ndim; i++) {
        size_t d = na - m->ndim + i;
        const sy_expr *t = d < nb ? batch[d] : d == nb ? q->sizes[q->ndim - 2] : k->sizes[k->ndim - 2];
        if ((st = op_require_expands(c, m->sizes[i], t, d))) return st;
    }
    return SY_OK;
}

/* F.scaled_dot_product_attention: q (..., L, E), k (..., S, E), v (..., S, Ev)
 * -> (..., L, Ev); batch dims broadcast. */
static sy_status sdpa(opcall *c)
{
    const sy_tensor *q, *k, *v;
    sy_status st;
    if ((st = op_tensor(c, 0, "query", &q)) || (st = op_tensor(c, 1, "key", &k)) || (st = op_tensor(c, 2, "value", &v))) return st;
    if (q->ndim < 2 || k->ndim < 2 || v->ndim < 2) return op_err(c, SY_EINVAL, "expected at least 2-D query, key, value");
    if ((st = require_eq(c, q->sizes[q->ndim - 1], k->sizes[k->ndim - 1], "query and key embedding sizes must match")) ||
        (st = require_eq(c, k->sizes[k->ndim - 2], v->sizes[v->ndim - 2], "key and value sequence lengths must match")))
        return st;
    const sy_expr *const *ks = k->sizes, *const *vs = v->sizes;
    int gqa;
    if ((st = op_bool_def(c, 7, "enable_gqa", 0, &gqa))) return st;
    if (gqa && q->ndim >= 3 && k->ndim >= 3 && v->ndim >= 3) {
        /* 2.5+ (attention.cpp pre_process_group_query_attention_input): the key's and the value's heads
         * (dim -3) must divide the query's; they are repeat_interleave'd to the query's heads */
        sy_ctx *ctx = c->env->ctx;
        const sy_expr *qh = q->sizes[q->ndim - 3];
        const sy_expr **k2 = sy_env_alloc(c->env, k->ndim * sizeof *k2), **v2 = sy_env_alloc(c->env, v->ndim * sizeof *v2);
        if (!k2 || !v2) return sy_ctx_last_error(ctx);
        for (int w = 0; w < 2; w++) {
            const sy_tensor *t = w ? v : k;
            const sy_expr *h = t->sizes[t->ndim - 3];
            if ((st = op_require(c, sy_expr_and(ctx, sy_expr_ge(ctx, h, KI(c, 1)), sy_expr_eq(ctx, sy_expr_mod(ctx, qh, h), KI(c, 0))),
                                 "Number of heads in key and value must divide the number of heads in query (%s heads, %s query heads)",
                                 sy_env_show(c->env, h), sy_env_show(c->env, qh))))
                return st;
            const sy_expr **d = w ? v2 : k2;
            SY_COPY(d, t->sizes, t->ndim * sizeof *d);
            d[t->ndim - 3] = qh;
        }
        ks = k2;
        vs = v2;
    }
    const sy_expr **b1, **b2;
    size_t n1, n2;
    if ((st = op_broadcast(c, q->sizes, q->ndim - 2, ks, k->ndim - 2, &b1, &n1)) ||
        (st = op_broadcast(c, b1, n1, vs, v->ndim - 2, &b2, &n2)))
        return st;
    if ((st = sdpa_mask(c, q, k, b1, n1))) return st;
    const sy_expr **out = sy_env_alloc(c->env, (n2 + 2) * sizeof *out);
    if (!out) return sy_ctx_last_error(c->env->ctx);
    SY_COPY(out, b2, n2 * sizeof *out);
    out[n2] = q->sizes[q->ndim - 2];
    out[n2 + 1] = v->sizes[v->ndim - 1];
    return op_set_tensor(c, q->dtype, n2 + 2, out);
}

const opentry sy_ops_nn[] = {
    OP_ROW("conv1d", conv, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/Convolution.cpp _convolution, ConvUtils.h"),
    OP_ROW("conv2d", conv, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/Convolution.cpp _convolution, ConvUtils.h"),
    OP_ROW("conv3d", conv, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/Convolution.cpp _convolution, ConvUtils.h"),
    OP_ROW("conv_transpose1d", conv, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/Convolution.cpp _convolution, ConvUtils.h"),
    OP_ROW("conv_transpose2d", conv, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/Convolution.cpp _convolution, ConvUtils.h"),
    OP_ROW("conv_transpose3d", conv, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/Convolution.cpp _convolution, ConvUtils.h"),
    OP_ROW("max_unpool1d", max_unpool, OP_IMPURE, OPL_FRESH, "aten/src/ATen/native/MaxUnpooling.cpp"),
    OP_ROW("max_unpool2d", max_unpool, OP_IMPURE, OPL_FRESH, "aten/src/ATen/native/MaxUnpooling.cpp"),
    OP_ROW("max_unpool3d", max_unpool, OP_IMPURE, OPL_FRESH, "aten/src/ATen/native/MaxUnpooling.cpp"),
    OP_ROW("max_pool1d", pool, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/Pool.h pooling_output_shape"),
    OP_ROW("max_pool2d", pool, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/Pool.h pooling_output_shape"),
    OP_ROW("max_pool3d", pool, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/Pool.h pooling_output_shape"),
    OP_ROW("avg_pool1d", pool, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/Pool.h pooling_output_shape"),
    OP_ROW("avg_pool2d", pool, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/Pool.h pooling_output_shape"),
    OP_ROW("avg_pool3d", pool, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/AveragePool3d.cpp pool3d_shape_check"),
    OP_ROW("lp_pool1d", lp_pool, OP_MEMO, OPL_MEMFMT, "torch/nn/functional.py lp_pool1d; aten/src/ATen/native/Pool.h pooling_output_shape"),
    OP_ROW("lp_pool2d", lp_pool, OP_MEMO, OPL_MEMFMT, "torch/nn/functional.py lp_pool2d; aten/src/ATen/native/Pool.h pooling_output_shape"),
    OP_ROW("lp_pool3d", lp_pool, OP_MEMO, OPL_MEMFMT, "torch/nn/functional.py lp_pool3d; aten/src/ATen/native/AveragePool3d.cpp"),
    OP_ROW("adaptive_avg_pool1d", adaptive_pool, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/AdaptiveAveragePooling.cpp"),
    OP_ROW("adaptive_avg_pool2d", adaptive_pool, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/AdaptiveAveragePooling.cpp"),
    OP_ROW("adaptive_avg_pool3d", adaptive_pool, OP_MEMO, OPL_FRESH, "aten/src/ATen/native/AdaptiveAveragePooling3d.cpp"),
    OP_ROW("adaptive_max_pool1d", adaptive_pool, OP_MEMO, OPL_MEMFMT),
    OP_ROW("adaptive_max_pool2d", adaptive_pool, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/AdaptiveMaxPooling2d.cpp"),
    OP_ROW("adaptive_max_pool3d", adaptive_pool, OP_MEMO, OPL_FRESH),
    OP_ROW("linear", linear, 0, OPL_FRESH, "aten/src/ATen/native/Linear.cpp linear"),
    OP_ROW("matmul", matmul, 0, OPL_FRESH, "aten/src/ATen/native/LinearAlgebra.cpp matmul"),
    OP_ROW("mm", matmul, 0, OPL_FRESH),
    OP_ROW("bmm", matmul, 0, OPL_FRESH),
    OP_ROW("embedding", embedding, 0, OPL_DEFAULT, "aten/src/ATen/native/Embedding.cpp embedding"),
    OP_ROW("batch_norm", batch_norm, OP_MEMO, OPL_MEMFMT),
    OP_ROW("layer_norm", layer_norm, 0, OPL_FRESH, "aten/src/ATen/native/layer_norm.cpp _check_layer_norm_inputs"),
    OP_ROW("rms_norm", layer_norm, 0, OPL_FRESH, "aten/src/ATen/native/layer_norm.cpp rms_norm"), /* 2.4+: layer_norm.cpp rms_norm, _check_rms_norm_inputs = the layer_norm checks */
    OP_ROW("group_norm", group_norm, 0, OPL_MEMFMT),
    OP_ROW("interpolate", interpolate, OP_MEMO, OPL_MEMFMT, "aten/src/ATen/native/UpSample.h upsample_2d_common_check"),
    OP_ROW("upsample", interpolate, 0, OPL_MEMFMT, "aten/src/ATen/native/UpSample.h upsample_2d_common_check"),
    OP_ROW("multi_head_attention_forward", mha, 0, OPL_FRESH),
    OP_ROW("scaled_dot_product_attention", sdpa),
    OP_END};
