/* torchvision helper functions that torch.fx records as one call node because
 * torchvision wraps them (torch.fx.wrap): a graph captured by symbolic tracing
 * holds `_get_relative_position_bias`, `_patch_merging_pad`,
 * `shifted_window_attention` (torchvision/models/swin_transformer.py, 0.14 to
 * 0.2x, the same code) and `_unsqueeze`, `_squeeze` (torchvision/models/video/
 * mvit.py) as ops (../shared/corpus2 swin_t, swin_v2_t, mvit_v1_b).
 *
 * Each op follows its Python body line by line through the ops it calls
 * (sy_env_call), so every requirement and guard is the one that op records at
 * that point of the function; the lines that only write values (roll,
 * masked_fill, the attention mask's slice assignments, dropout with p = 0,
 * clamp/exp of the logit scale, zeroing part of the qkv bias) keep shapes and
 * cannot fail on shapes, and are left out, each named at its place. */
#include <string.h>

#include "shapeenv/env_private.h"

#define CTX (c->env->ctx)

static sy_status sub(opcall *c, const char *op, size_t n, const sy_value *args, sy_value *out)
{
    sy_status st = sy_env_call(c->env, op, n, args, 0, NULL, NULL, c->where, out);
    if (st) return st;
    return SY_OK;
}

static sy_status sub_tensor(opcall *c, const char *op, size_t n, const sy_value *args, const sy_tensor **out)
{
    sy_value v;
    *out = NULL; /* set on every path: GCC -O3 cannot see that op_err returns nonzero */
    sy_status st = sub(c, op, n, args, &v);
    if (st) return st;
    if (v.kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "%s did not return a tensor", op);
    *out = v.u.t;
    return SY_OK;
}

static sy_value T(const sy_tensor *t) { return sy_value_tensor(t); }
static sy_value I(const sy_expr *e) { return sy_value_int(e); }

/* a list value of n integer expressions */
static sy_value ilist(opcall *c, size_t n, const sy_expr *const *e)
{
    sy_value items[8];
    for (size_t i = 0; i < n && i < 8; i++) items[i] = sy_value_int(e[i]);
    return sy_value_list(c->env, n, items);
}

static sy_value ilist_si(opcall *c, size_t n, const int64_t *v)
{
    const sy_expr *e[8];
    for (size_t i = 0; i < n && i < 8; i++) e[i] = KI(c, v[i]);
    return ilist(c, n, e);
}

/* t.op(list of ints) (view, reshape, permute) */
static sy_status shape_op(opcall *c, const char *op, const sy_tensor *t, size_t n, const sy_expr *const *e, const sy_tensor **out)
{
    sy_value a[2] = {T(t), ilist(c, n, e)};
    return sub_tensor(c, op, 2, a, out);
}

static sy_status permute_si(opcall *c, const sy_tensor *t, size_t n, const int64_t *p, const sy_tensor **out)
{
    sy_value a[2] = {T(t), ilist_si(c, n, p)};
    return sub_tensor(c, "permute", 2, a, out);
}

static sy_status window_size(opcall *c, size_t pos, int64_t ws[2])
{
    static const int64_t none[2] = {0, 0};
    sy_status st = op_int_list(c, pos, "window_size", 2, none, ws);
    if (st) return st;
    const sy_value *v = op_arg(c, pos, "window_size");
    if (!v || v->kind != SY_V_LIST || v->u.list.n != 2) return op_err(c, SY_EINVAL, "window_size must be a list of two ints");
    return SY_OK;
}

/* _get_relative_position_bias(relative_position_bias_table, relative_position_index, window_size)
 * (torchvision/models/swin_transformer.py):
 *     N = window_size[0] * window_size[1]
 *     relative_position_bias = relative_position_bias_table[relative_position_index]
 *     relative_position_bias = relative_position_bias.view(N, N, -1)
 *     relative_position_bias = relative_position_bias.permute(2, 0, 1).contiguous().unsqueeze(0)
 * The result [1, heads, N, N] for a table [(2*Wh-1)*(2*Ww-1), heads] and an index of N*N entries. */
static sy_status rel_pos_bias(opcall *c)
{
    const sy_tensor *tab, *idx, *t;
    int64_t ws[2];
    sy_status st;
    if ((st = op_tensor(c, 0, "relative_position_bias_table", &tab)) ||
        (st = op_tensor(c, 1, "relative_position_index", &idx)) || (st = window_size(c, 2, ws)))
        return st;
    sy_value a[2] = {T(tab), T(idx)};
    if ((st = sub_tensor(c, "getitem", 2, a, &t))) return st;
    const sy_expr *N = KI(c, ws[0] * ws[1]);
    const sy_expr *shape[3] = {N, N, KI(c, -1)};
    if ((st = shape_op(c, "view", t, 3, shape, &t))) return st;
    static const int64_t p[3] = {2, 0, 1};
    if ((st = permute_si(c, t, 3, p, &t))) return st;
    sy_value b[2] = {T(t), sy_value_int(KI(c, 0))};
    if ((st = sub_tensor(c, "contiguous", 1, b, &t))) return st;
    b[0] = T(t);
    return sub(c, "unsqueeze", 2, b, c->out);
}

/* x[..., a::2, b::2, :] */
static sy_status every_other(opcall *c, const sy_tensor *x, int64_t a, int64_t b, const sy_tensor **out)
{
    sy_value *v = sy_env_alloc(c->env, 10 * sizeof *v);
    if (!v) return sy_ctx_last_error(CTX);
    /* v[0..2]: slice parts of dim H, v[3..5]: of dim W, v[6]: None; items v[7..9]... built below */
    v[0] = sy_value_int(KI(c, a));
    v[1] = sy_value_int(KI(c, b));
    v[2] = sy_value_int(KI(c, 2));
    v[6] = sy_value_none();
    sy_value items[4];
    items[0] = sy_value_none();
    items[0].kind = SY_V_ELLIPSIS;
    for (int k = 0; k < 3; k++) {
        items[k + 1] = sy_value_none();
        items[k + 1].kind = SY_V_SLICE;
        items[k + 1].u.slice.start = k == 2 ? &v[6] : &v[k];
        items[k + 1].u.slice.stop = &v[6];
        items[k + 1].u.slice.step = k == 2 ? &v[6] : &v[2];
    }
    sy_value args[2] = {T(x), sy_value_list(c->env, 4, items)};
    return sub_tensor(c, "getitem", 2, args, out);
}

/* _patch_merging_pad(x) (torchvision/models/swin_transformer.py):
 *     H, W, _ = x.shape[-3:]
 *     x = F.pad(x, (0, 0, 0, W % 2, 0, H % 2))
 *     x0 = x[..., 0::2, 0::2, :]; x1 = x[..., 1::2, 0::2, :]
 *     x2 = x[..., 0::2, 1::2, :]; x3 = x[..., 1::2, 1::2, :]
 *     x = torch.cat([x0, x1, x2, x3], -1)  # ... H/2 W/2 4*C */
static sy_status patch_merging_pad(opcall *c)
{
    const sy_tensor *x;
    sy_status st;
    if ((st = op_tensor(c, 0, "x", &x))) return st;
    if (x->ndim < 3) return op_err(c, SY_EINVAL, "ValueError: not enough values to unpack (expected 3, got %zu)", x->ndim);
    const sy_expr *H = x->sizes[x->ndim - 3], *W = x->sizes[x->ndim - 2];
    const sy_expr *pads[6] = {KI(c, 0), KI(c, 0), KI(c, 0), sy_expr_mod(CTX, W, KI(c, 2)), KI(c, 0), sy_expr_mod(CTX, H, KI(c, 2))};
    if (!pads[3] || !pads[5]) return sy_ctx_last_error(CTX);
    sy_value a[2] = {T(x), ilist(c, 6, pads)};
    if ((st = sub_tensor(c, "pad", 2, a, &x))) return st;
    sy_value parts[4];
    static const int64_t ab[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    for (int k = 0; k < 4; k++) {
        const sy_tensor *p;
        if ((st = every_other(c, x, ab[k][0], ab[k][1], &p))) return st;
        parts[k] = T(p);
    }
    sy_value b[2] = {sy_value_list(c->env, 4, parts), sy_value_int(KI(c, -1))};
    return sub(c, "cat", 2, b, c->out);
}

/* shifted_window_attention(input, qkv_weight, proj_weight, relative_position_bias, window_size,
 * num_heads, shift_size, attention_dropout=0.0, dropout=0.0, qkv_bias=None, proj_bias=None,
 * logit_scale=None[, training=True]) (torchvision/models/swin_transformer.py; the statements
 * quoted before each step). Output: input's shape [B, H, W, C]. */
static sy_status shifted_window_attention(opcall *c)
{
    const sy_tensor *in, *qkv_w, *proj_w, *rpb, *qkv_b = NULL, *proj_b = NULL, *logit = NULL;
    int64_t ws[2], shift[2], heads;
    static const int64_t zero2[2] = {0, 0};
    sy_status st;
    if ((st = op_tensor(c, 0, "input", &in)) || (st = op_tensor(c, 1, "qkv_weight", &qkv_w)) ||
        (st = op_tensor(c, 2, "proj_weight", &proj_w)) || (st = op_tensor(c, 3, "relative_position_bias", &rpb)) ||
        (st = window_size(c, 4, ws)) || (st = op_const_int(c, 5, "num_heads", 0, &heads)) ||
        (st = op_int_list(c, 6, "shift_size", 2, zero2, shift)) || (st = op_opt_tensor(c, 9, "qkv_bias", &qkv_b)) ||
        (st = op_opt_tensor(c, 10, "proj_bias", &proj_b)) || (st = op_opt_tensor(c, 11, "logit_scale", &logit)))
        return st;
    if (!op_arg(c, 6, "shift_size")) return op_err(c, SY_EINVAL, "shifted_window_attention() missing argument 'shift_size'");
    if (ws[0] <= 0 || ws[1] <= 0) return op_err(c, SY_EINVAL, "window_size must be positive, got [%lld, %lld]", (long long)ws[0], (long long)ws[1]);
    if (heads <= 0) return op_err(c, SY_EINVAL, "num_heads must be positive, got %lld", (long long)heads);
    if (in->ndim != 4)
        return op_err(c, SY_EINVAL, "ValueError: not enough values to unpack (B, H, W, C = input.shape of %zu dims)", in->ndim);
    /* B, H, W, C = input.shape; C is a Python int used by reshape and C // num_heads */
    const sy_expr *B = in->sizes[0], *H = in->sizes[1], *W = in->sizes[2], *C = in->sizes[3];
    const sy_expr *w0 = KI(c, ws[0]), *w1 = KI(c, ws[1]);
    /* pad_r = (window_size[1] - W % window_size[1]) % window_size[1]; pad_b likewise with H
     * x = F.pad(input, (0, 0, 0, pad_r, 0, pad_b)) */
    const sy_expr *pad_r = sy_expr_mod(CTX, sy_expr_sub(CTX, w1, sy_expr_mod(CTX, W, w1)), w1);
    const sy_expr *pad_b = sy_expr_mod(CTX, sy_expr_sub(CTX, w0, sy_expr_mod(CTX, H, w0)), w0);
    if (!pad_r || !pad_b) return sy_ctx_last_error(CTX);
    const sy_expr *pads[6] = {KI(c, 0), KI(c, 0), KI(c, 0), pad_r, KI(c, 0), pad_b};
    const sy_tensor *x;
    sy_value a[3] = {T(in), ilist(c, 6, pads)};
    if ((st = sub_tensor(c, "pad", 2, a, &x))) return st;
    const sy_expr *pH = x->sizes[1], *pW = x->sizes[2];
    /* if window_size[0] >= pad_H: shift_size[0] = 0 (and W); if sum(shift_size) > 0: torch.roll(...)
     * The roll keeps the shape. The shifted branch adds the attention mask (below); it changes
     * no shape, and it fails only where num_windows == 0 (x.size(0) // num_windows), which needs
     * pad_H == 0 or pad_W == 0. So where H >= 1 and W >= 1 are known, both branches give the
     * same shape and no decision is made; else the branch is decided (a guard). */
    int shifted = 0;
    if (shift[0] > 0 || shift[1] > 0) {
        int nonempty = 0;
        const sy_expr *ne = sy_expr_and(CTX, sy_expr_ge(CTX, H, KI(c, 1)), sy_expr_ge(CTX, W, KI(c, 1)));
        if (!ne) return sy_ctx_last_error(CTX);
        if ((st = op_known_true(c, ne, &nonempty))) return st;
        if (!nonempty) {
            const sy_expr *s0 = shift[0] > 0 ? sy_expr_gt(CTX, pH, w0) : sy_expr_int_si(CTX, 0);
            const sy_expr *s1 = shift[1] > 0 ? sy_expr_gt(CTX, pW, w1) : sy_expr_int_si(CTX, 0);
            const sy_expr *any = shift[0] > 0 && shift[1] > 0 ? sy_expr_or(CTX, s0, s1) : shift[0] > 0 ? s0 : s1;
            if (!any) return sy_ctx_last_error(CTX);
            if ((st = op_decide_bool(c, any, "shifted_window_attention: is the window smaller than the padded map (the shifted branch)?", &shifted)))
                return st;
        }
    }
    /* num_windows = (pad_H // window_size[0]) * (pad_W // window_size[1])
     * x = x.view(B, pad_H // window_size[0], window_size[0], pad_W // window_size[1], window_size[1], C)
     * x = x.permute(0, 1, 3, 2, 4, 5).reshape(B * num_windows, window_size[0] * window_size[1], C) */
    const sy_expr *nh = sy_expr_floordiv(CTX, pH, w0), *nw = sy_expr_floordiv(CTX, pW, w1);
    const sy_expr *nW = sy_expr_mul(CTX, nh, nw), *N = KI(c, ws[0] * ws[1]);
    if (!nW) return sy_ctx_last_error(CTX);
    const sy_expr *v6[6] = {B, nh, w0, nw, w1, C};
    if ((st = shape_op(c, "view", x, 6, v6, &x))) return st;
    static const int64_t p6[6] = {0, 1, 3, 2, 4, 5};
    if ((st = permute_si(c, x, 6, p6, &x))) return st;
    const sy_expr *r3[3] = {sy_expr_mul(CTX, B, nW), N, C};
    if (!r3[0]) return sy_ctx_last_error(CTX);
    if ((st = shape_op(c, "reshape", x, 3, r3, &x))) return st;
    /* (v2: qkv_bias = qkv_bias.clone(); its middle third zeroed: values only)
     * qkv = F.linear(x, qkv_weight, qkv_bias) */
    const sy_tensor *qkv;
    sy_value la[3] = {T(x), T(qkv_w), qkv_b ? T(qkv_b) : sy_value_none()};
    if ((st = sub_tensor(c, "linear", 3, la, &qkv))) return st;
    /* qkv = qkv.reshape(x.size(0), x.size(1), 3, num_heads, C // num_heads).permute(2, 0, 3, 1, 4) */
    const sy_expr *hd = sy_expr_floordiv(CTX, C, KI(c, heads));
    if (!hd) return sy_ctx_last_error(CTX);
    const sy_expr *r5[5] = {x->sizes[0], x->sizes[1], KI(c, 3), KI(c, heads), hd};
    if ((st = shape_op(c, "reshape", qkv, 5, r5, &qkv))) return st;
    static const int64_t p5[5] = {2, 0, 3, 1, 4};
    if ((st = permute_si(c, qkv, 5, p5, &qkv))) return st;
    /* q, k, v = qkv[0], qkv[1], qkv[2] */
    const sy_tensor *q, *k, *v, *attn;
    sy_value g[2] = {T(qkv), I(KI(c, 0))};
    if ((st = sub_tensor(c, "getitem", 2, g, &q))) return st;
    g[1] = I(KI(c, 1));
    if ((st = sub_tensor(c, "getitem", 2, g, &k))) return st;
    g[1] = I(KI(c, 2));
    if ((st = sub_tensor(c, "getitem", 2, g, &v))) return st;
    sy_value ta[3] = {T(k), I(KI(c, -2)), I(KI(c, -1))};
    if (logit) {
        /* attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
         * logit_scale = torch.clamp(logit_scale, max=math.log(100.0)).exp()   (shape kept)
         * attn = attn * logit_scale */
        sy_value na[2] = {T(q), I(KI(c, -1))};
        if ((st = sub_tensor(c, "normalize", 2, na, &q))) return st;
        na[0] = T(k);
        if ((st = sub_tensor(c, "normalize", 2, na, &k))) return st;
        ta[0] = T(k);
        if ((st = sub_tensor(c, "transpose", 3, ta, &k))) return st;
        sy_value ma[2] = {T(q), T(k)};
        if ((st = sub_tensor(c, "matmul", 2, ma, &attn))) return st;
        ma[0] = T(attn);
        ma[1] = T(logit);
        if ((st = sub_tensor(c, "mul", 2, ma, &attn))) return st;
    } else {
        /* q = q * (C // num_heads) ** -0.5; attn = q.matmul(k.transpose(-2, -1)) */
        /* the scale's value does not change a shape: 1.0 stands for (C // num_heads) ** -0.5 */
        sy_value ma[2] = {T(q), sy_value_float(1.0)};
        if ((st = sub_tensor(c, "mul", 2, ma, &q))) return st;
        if ((st = sub_tensor(c, "transpose", 3, ta, &k))) return st;
        ma[0] = T(q);
        ma[1] = T(k);
        if ((st = sub_tensor(c, "matmul", 2, ma, &attn))) return st;
    }
    /* attn = attn + relative_position_bias */
    sy_value aa[2] = {T(attn), T(rpb)};
    if ((st = sub_tensor(c, "add", 2, aa, &attn))) return st;
    if (shifted) {
        /* attn_mask: zeros (pad_H, pad_W) viewed (pad_H // ws0, ws0, pad_W // ws1, ws1), permuted
         * (0, 2, 1, 3), reshaped (num_windows, ws0 * ws1): every step is valid for these sizes;
         * attn_mask.unsqueeze(1) - attn_mask.unsqueeze(2): [nW, N, N]; masked_fill keeps it.
         * attn = attn.view(x.size(0) // num_windows, num_windows, num_heads, x.size(1), x.size(1))
         * attn = attn + attn_mask.unsqueeze(1).unsqueeze(0)
         * attn = attn.view(-1, num_heads, x.size(1), x.size(1)) */
        if ((st = op_require(c, sy_expr_ne(CTX, nW, KI(c, 0)), "ZeroDivisionError: integer division or modulo by zero (x.size(0) // num_windows)")))
            return st;
        const sy_expr *m2[2] = {pH, pW};
        sy_value za[1] = {ilist(c, 2, m2)};
        const sy_tensor *mask;
        if ((st = sub_tensor(c, "zeros", 1, za, &mask))) return st;
        const sy_expr *m4[4] = {nh, w0, nw, w1};
        if ((st = shape_op(c, "view", mask, 4, m4, &mask))) return st;
        static const int64_t p4[4] = {0, 2, 1, 3};
        if ((st = permute_si(c, mask, 4, p4, &mask))) return st;
        const sy_expr *m22[2] = {nW, N};
        if ((st = shape_op(c, "reshape", mask, 2, m22, &mask))) return st;
        const sy_tensor *u1, *u2;
        sy_value ua[2] = {T(mask), I(KI(c, 1))};
        if ((st = sub_tensor(c, "unsqueeze", 2, ua, &u1))) return st;
        ua[1] = I(KI(c, 2));
        if ((st = sub_tensor(c, "unsqueeze", 2, ua, &u2))) return st;
        sy_value sa[2] = {T(u1), T(u2)};
        if ((st = sub_tensor(c, "sub", 2, sa, &mask))) return st;
        const sy_expr *x0 = x->sizes[0], *x1 = x->sizes[1];
        const sy_expr *a5[5] = {sy_expr_floordiv(CTX, x0, nW), nW, KI(c, heads), x1, x1};
        if (!a5[0]) return sy_ctx_last_error(CTX);
        if ((st = shape_op(c, "view", attn, 5, a5, &attn))) return st;
        ua[0] = T(mask);
        ua[1] = I(KI(c, 1));
        if ((st = sub_tensor(c, "unsqueeze", 2, ua, &mask))) return st;
        ua[0] = T(mask);
        ua[1] = I(KI(c, 0));
        if ((st = sub_tensor(c, "unsqueeze", 2, ua, &mask))) return st;
        sa[0] = T(attn);
        sa[1] = T(mask);
        if ((st = sub_tensor(c, "add", 2, sa, &attn))) return st;
        const sy_expr *a4[4] = {KI(c, -1), KI(c, heads), x1, x1};
        if ((st = shape_op(c, "view", attn, 4, a4, &attn))) return st;
    }
    /* attn = F.softmax(attn, dim=-1); attn = F.dropout(attn, p=attention_dropout) (shape kept) */
    sy_value sm[2] = {T(attn), I(KI(c, -1))};
    if ((st = sub_tensor(c, "softmax", 2, sm, &attn))) return st;
    /* x = attn.matmul(v).transpose(1, 2).reshape(x.size(0), x.size(1), C) */
    const sy_tensor *o;
    sy_value mv[2] = {T(attn), T(v)};
    if ((st = sub_tensor(c, "matmul", 2, mv, &o))) return st;
    sy_value tr[3] = {T(o), I(KI(c, 1)), I(KI(c, 2))};
    if ((st = sub_tensor(c, "transpose", 3, tr, &o))) return st;
    const sy_expr *o3[3] = {x->sizes[0], x->sizes[1], C};
    if ((st = shape_op(c, "reshape", o, 3, o3, &o))) return st;
    /* x = F.linear(x, proj_weight, proj_bias); x = F.dropout(x, p=dropout) (shape kept) */
    sy_value pa[3] = {T(o), T(proj_w), proj_b ? T(proj_b) : sy_value_none()};
    if ((st = sub_tensor(c, "linear", 3, pa, &o))) return st;
    /* x = x.view(B, pad_H // ws0, pad_W // ws1, ws0, ws1, C)
     * x = x.permute(0, 1, 3, 2, 4, 5).reshape(B, pad_H, pad_W, C)
     * (if shifted: torch.roll back, shape kept) */
    const sy_expr *b6[6] = {B, nh, nw, w0, w1, C};
    if ((st = shape_op(c, "view", o, 6, b6, &o))) return st;
    if ((st = permute_si(c, o, 6, p6, &o))) return st;
    const sy_expr *b4[4] = {B, pH, pW, C};
    if ((st = shape_op(c, "reshape", o, 4, b4, &o))) return st;
    /* x = x[:, :H, :W, :].contiguous() */
    sy_value na[4] = {T(o), I(KI(c, 1)), I(KI(c, 0)), I(H)};
    if ((st = sub_tensor(c, "narrow", 4, na, &o))) return st;
    na[0] = T(o);
    na[1] = I(KI(c, 2));
    na[3] = I(W);
    if ((st = sub_tensor(c, "narrow", 4, na, &o))) return st;
    sy_value ca[1] = {T(o)};
    return sub(c, "contiguous", 1, ca, c->out);
}

/* _unsqueeze(x, target_dim, expand_dim) -> (x, tensor_dim) (torchvision/models/video/mvit.py):
 *     tensor_dim = x.dim()
 *     if tensor_dim == target_dim - 1: x = x.unsqueeze(expand_dim)
 *     elif tensor_dim != target_dim: raise ValueError(f"Unsupported input dimension {x.shape}")
 *     return x, tensor_dim */
static sy_status mvit_unsqueeze(opcall *c)
{
    const sy_tensor *x;
    int64_t target, expand;
    sy_status st;
    if ((st = op_tensor(c, 0, "x", &x)) || (st = op_const_int(c, 1, "target_dim", 0, &target)) ||
        (st = op_const_int(c, 2, "expand_dim", 0, &expand)))
        return st;
    if (!op_arg(c, 1, "target_dim") || !op_arg(c, 2, "expand_dim"))
        return op_err(c, SY_EINVAL, "_unsqueeze() missing arguments target_dim, expand_dim");
    sy_value r[2] = {T(x), sy_value_int_si(c->env, (int64_t)x->ndim)};
    if ((int64_t)x->ndim == target - 1) {
        sy_value a[2] = {T(x), I(KI(c, expand))};
        if ((st = sub(c, "unsqueeze", 2, a, &r[0]))) return st;
    } else if ((int64_t)x->ndim != target) {
        return op_err(c, SY_EINVAL, "ValueError: Unsupported input dimension %s", op_show_sizes(c, x->ndim, x->sizes));
    }
    *c->out = sy_value_list(c->env, 2, r);
    return SY_OK;
}

/* _squeeze(x, target_dim, expand_dim, tensor_dim) (torchvision/models/video/mvit.py):
 *     if tensor_dim == target_dim - 1: x = x.squeeze(expand_dim)
 *     return x */
static sy_status mvit_squeeze(opcall *c)
{
    const sy_tensor *x;
    int64_t target, expand, tdim;
    sy_status st;
    if ((st = op_tensor(c, 0, "x", &x)) || (st = op_const_int(c, 1, "target_dim", 0, &target)) ||
        (st = op_const_int(c, 2, "expand_dim", 0, &expand)) || (st = op_const_int(c, 3, "tensor_dim", 0, &tdim)))
        return st;
    if (!op_arg(c, 1, "target_dim") || !op_arg(c, 2, "expand_dim") || !op_arg(c, 3, "tensor_dim"))
        return op_err(c, SY_EINVAL, "_squeeze() missing arguments target_dim, expand_dim, tensor_dim");
    if (tdim == target - 1) {
        sy_value a[2] = {T(x), I(KI(c, expand))};
        return sub(c, "squeeze", 2, a, c->out);
    }
    *c->out = T(x);
    return SY_OK;
}

const opentry sy_ops_torchvision[] = {
    OP_ROW("_get_relative_position_bias", rel_pos_bias, 0, OPL_OWN, "torchvision/models/swin_transformer.py _get_relative_position_bias"),
    OP_ROW("_patch_merging_pad", patch_merging_pad, 0, OPL_OWN, "torchvision/models/swin_transformer.py _patch_merging_pad"),
    OP_ROW("shifted_window_attention", shifted_window_attention, 0, OPL_OWN,
           "torchvision/models/swin_transformer.py shifted_window_attention"),
    OP_ROW("_unsqueeze", mvit_unsqueeze, 0, OPL_OWN, "torchvision/models/video/mvit.py _unsqueeze"),
    OP_ROW("_squeeze", mvit_squeeze, 0, OPL_OWN, "torchvision/models/video/mvit.py _squeeze"),
    OP_END};
