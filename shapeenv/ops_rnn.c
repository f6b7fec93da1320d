/* Recurrent layers: lstm, gru, rnn_tanh, rnn_relu — the functional forms
 * (_VF.lstm etc.) that nn.LSTM / nn.GRU / nn.RNN call (PyTorch 1.13):
 *   lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
 *     -> (output, h_n, c_n)
 *   gru / rnn_tanh / rnn_relu(input, hx, params, has_biases, num_layers, dropout, train,
 *     bidirectional, batch_first) -> (output, h_n)
 * With the nn module's argument forms (torch/nn/modules/rnn.py forward):
 * hx None (or an empty list) is the zero initial state; a 2-D input is
 * unbatched (the module unsqueezes the batch dim, hx must then be 2-D, and
 * the outputs lose it again). Sizes (aten/src/ATen/native/RNN.cpp, and
 * RNNBase.check_input / get_expected_hidden_size / check_hidden_size):
 *   params per layer and direction: w_ih (G*H, in), w_hh (G*H, Hr), [b_ih, b_hh]
 *   if has_biases, [w_hr (Hr, H)] with projections (proj_size), G = 4 / 3 / 1;
 *   output (L, N, D*Hr) ((N, L, D*Hr) batch_first), h_n (num_layers*D, N, Hr),
 *   c_n (num_layers*D, N, H); Hr = proj_size or H; D = 2 if bidirectional.
 * Checks: input 3-D after the unbatched unsqueeze ("input must have 3
 * dimensions"), input.size(-1) == w_ih.size(1) of layer 0, hx sizes equal the
 * expected ones; the CPU kernel unbinds the sequence and stacks the steps, so
 * an empty sequence fails ("stack expects a non-empty TensorList").
 * PackedSequence input (the data, batch_sizes overload) is not supported:
 * its sizes depend on the batch_sizes tensor's values. */
#include <string.h>

#include "shapeenv/env_private.h"

#define CTX (c->env->ctx)
#define SHOW(e) sy_env_show(c->env, (e))

static sy_status check_hidden(opcall *c, const sy_tensor *h, const sy_expr *const *want, int batched, const char *which)
{
    size_t n = batched ? 3 : 2;
    if (h->ndim != n)
        return op_err(c, SY_EINVAL, "For %s input, %s should also be %zu-D but got %zu-D tensor", batched ? "batched 3-D" : "unbatched 2-D",
                      which, n, h->ndim);
    for (size_t i = 0, k = 0; i < 3; i++) {
        if (!batched && i == 1) continue;
        sy_status st = op_require(c, sy_expr_eq(CTX, h->sizes[k], want[i]), "Expected %s size (%s, %s, %s), got size %s at dim %zu", which,
                                  SHOW(want[0]), SHOW(want[1]), SHOW(want[2]), SHOW(h->sizes[k]), k);
        if (st) return st;
        k++;
    }
    return SY_OK;
}

/* the shape of every parameter tensor, per layer l and direction (the
 * matmuls and gate additions of RNN.cpp fail otherwise, with messages that do
 * not name the parameter): w_ih (G*H, l ? D*Hr : input_size), w_hh (G*H, Hr),
 * b_ih, b_hh (G*H), w_hr (Hr, H); G*H = w_ih_l0.size(0) must be a multiple of
 * the G gates */
static sy_status check_params(opcall *c, const sy_value *pv, int64_t G, int64_t layers, int64_t D, int64_t per, int proj,
                              const sy_expr *H, const sy_expr *Hr, const sy_expr *in)
{
    static const char *const names[5] = {"weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"};
    const sy_expr *GH = pv->u.list.items[0].u.t->sizes[0];
    sy_status st;
    if ((st = op_require(c, sy_expr_eq(CTX, sy_expr_mod(CTX, GH, KI(c, G)), KI(c, 0)),
                         "weight_ih_l0 has %s rows, not a multiple of the %lld gates", SHOW(GH), (long long)G)))
        return st;
    size_t stride = (size_t)(per + proj), k = 0;
    for (int64_t l = 0; l < layers; l++)
        for (int64_t d = 0; d < D; d++)
            for (size_t j = 0; j < stride; j++, k++) {
                const sy_tensor *t = pv->u.list.items[k].u.t;
                size_t role = j < 2 ? j : (per == 4 && j < 4) ? j : 4;
                const sy_expr *want[2];
                size_t nd = role >= 2 && role < 4 ? 1 : 2;
                if (role == 0) want[0] = GH, want[1] = l ? sy_expr_mul_si(CTX, Hr, D) : in;
                else if (role == 1) want[0] = GH, want[1] = proj ? Hr : H; /* without projections Hr is H */
                else if (role < 4) want[0] = GH;
                else want[0] = Hr, want[1] = H;
                const sy_expr *ok = sy_expr_bool(CTX, t->ndim == nd);
                for (size_t i = 0; i < nd && t->ndim == nd; i++) ok = sy_expr_and(CTX, ok, sy_expr_eq(CTX, t->sizes[i], want[i]));
                if (!ok) return sy_ctx_last_error(CTX);
                if ((st = op_require(c, ok, "params[%zu] (%s_l%lld%s) must have shape %s, got %s", k, names[role], (long long)l,
                                     d ? "_reverse" : "", op_show_sizes(c, nd, want), op_show_sizes(c, t->ndim, t->sizes))))
                    return st;
            }
    return SY_OK;
}

static sy_status rnn(opcall *c)
{
    int is_lstm = !strcmp(c->op, "lstm");
    int64_t gates = is_lstm ? 4 : !strcmp(c->op, "gru") ? 3 : 1;
    const sy_value *a3 = op_arg(c, 3, "has_biases");
    if (a3 && a3->kind == SY_V_LIST)
        return op_err(c, SY_EUNSUPPORTED, "PackedSequence input (data, batch_sizes) is not supported: its sizes depend on the values of batch_sizes");
    const sy_tensor *x;
    sy_status st;
    int bias, bidir, bf;
    int64_t layers;
    if ((st = op_tensor(c, 0, "input", &x)) || (st = op_bool_def(c, 3, "has_biases", 1, &bias)) ||
        (st = op_const_int(c, 4, "num_layers", 1, &layers)) || (st = op_bool_def(c, 7, "bidirectional", 0, &bidir)) ||
        (st = op_bool_def(c, 8, "batch_first", 0, &bf)))
        return st;
    const sy_value *pv = op_arg(c, 2, "params");
    if (!pv || pv->kind != SY_V_LIST) return op_err(c, SY_EINVAL, "argument 'params' must be a list of tensors");
    int64_t D = bidir ? 2 : 1, per = bias ? 4 : 2;
    if (layers < 1) return op_err(c, SY_EINVAL, "num_layers must be at least 1, got %lld", (long long)layers);
    if (layers > 10000) return op_err(c, SY_EQUOTA, "num_layers too large");
    size_t np = pv->u.list.n;
    int proj;
    if ((int64_t)np == layers * D * per) proj = 0;
    else if ((int64_t)np == layers * D * (per + 1) && is_lstm) proj = 1;
    else
        return op_err(c, SY_EINVAL, "expected %lld parameter tensors for num_layers=%lld, bidirectional=%d, has_biases=%d, got %zu",
                      (long long)(layers * D * per), (long long)layers, bidir, bias, np);
    for (size_t i = 0; i < np; i++)
        if (pv->u.list.items[i].kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "argument 'params' must be a list of tensors");
    const sy_tensor *wih = pv->u.list.items[0].u.t, *whh = pv->u.list.items[1].u.t;
    if (wih->ndim != 2 || whh->ndim != 2) return op_err(c, SY_EINVAL, "RNN weights must be 2-D");
    const sy_expr *H = sy_expr_floordiv(CTX, wih->sizes[0], KI(c, gates)), *Hr = whh->sizes[1];
    if (proj) {
        const sy_tensor *whr = pv->u.list.items[per].u.t;
        if (whr->ndim != 2) return op_err(c, SY_EINVAL, "RNN projection weight must be 2-D");
        Hr = whr->sizes[0];
    }
    int batched = x->ndim == 3;
    if (x->ndim != 2 && x->ndim != 3) return op_err(c, SY_EINVAL, "input must have 3 dimensions, got %zu", x->ndim == 2 ? 2 : x->ndim + 1);
    if ((st = check_params(c, pv, gates, layers, D, per, proj, H, Hr, wih->sizes[1]))) return st;
    const sy_expr *N = !batched ? KI(c, 1) : bf ? x->sizes[0] : x->sizes[1];
    const sy_expr *L = !batched ? x->sizes[0] : bf ? x->sizes[1] : x->sizes[0];
    const sy_expr *in = x->sizes[x->ndim - 1];
    if ((st = op_require(c, sy_expr_eq(CTX, in, wih->sizes[1]), "input.size(-1) must be equal to input_size. Expected %s, got %s",
                         SHOW(wih->sizes[1]), SHOW(in))))
        return st;
    const sy_expr *hw[3] = {KI(c, layers * D), N, Hr}, *cw[3] = {KI(c, layers * D), N, H};
    const sy_value *hv = op_arg(c, 1, "hx");
    if (hv && hv->kind == SY_V_LIST && hv->u.list.n == 0) hv = NULL;
    if (hv && hv->kind != SY_V_NONE) {
        if (is_lstm) {
            if (hv->kind != SY_V_LIST || hv->u.list.n != 2 || hv->u.list.items[0].kind != SY_V_TENSOR || hv->u.list.items[1].kind != SY_V_TENSOR)
                return op_err(c, SY_EINVAL, "lstm expects two hidden states");
            const sy_tensor *h0 = hv->u.list.items[0].u.t, *c0 = hv->u.list.items[1].u.t;
            if (h0->ndim != (size_t)(batched ? 3 : 2) || c0->ndim != (size_t)(batched ? 3 : 2))
                return op_err(c, SY_EINVAL, "For %s input, hx and cx should also be %d-D but got (%zu-D, %zu-D) tensors",
                              batched ? "batched 3-D" : "unbatched 2-D", batched ? 3 : 2, h0->ndim, c0->ndim);
            if ((st = check_hidden(c, h0, hw, batched, "hidden[0]")) || (st = check_hidden(c, c0, cw, batched, "hidden[1]"))) return st;
        } else {
            if (hv->kind != SY_V_TENSOR) return op_err(c, SY_EINVAL, "hx must be a tensor");
            if ((st = check_hidden(c, hv->u.t, hw, batched, "hx"))) return st;
        }
    }
    if ((st = op_require(c, sy_expr_ge(CTX, L, KI(c, 1)), "stack expects a non-empty TensorList (the sequence length is 0)"))) return st;
    const sy_expr *od = sy_expr_mul_si(CTX, Hr, D);
    const sy_expr *o[3], *h[3], *cc[3];
    size_t no = 0, nh = 0;
    if (!batched) {
        o[no++] = L;
    } else if (bf) {
        o[no++] = N;
        o[no++] = L;
    } else {
        o[no++] = L;
        o[no++] = N;
    }
    o[no++] = od;
    h[nh] = cc[nh] = KI(c, layers * D);
    nh++;
    if (batched) {
        h[nh] = cc[nh] = N;
        nh++;
    }
    h[nh] = Hr;
    cc[nh] = H;
    nh++;
    const sy_tensor *ts[3] = {op_new_tensor(c, x->dtype, no, o), op_new_tensor(c, x->dtype, nh, h), op_new_tensor(c, x->dtype, nh, cc)};
    return op_set_tuple(c, is_lstm ? 3 : 2, ts);
}

const opentry sy_ops_rnn[] = {
    OP_ROW("lstm", rnn),
    OP_ROW("gru", rnn),
    OP_ROW("rnn_tanh", rnn),
    OP_ROW("rnn_relu", rnn),
    OP_END};
