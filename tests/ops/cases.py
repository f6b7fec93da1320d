"""Cases for torch_compare.py: one op call per case on inputs whose dims are
letters (dynamic, drawn at random in `sizes`) or ints (static).

Each case: name, op (the graph op), fn (the torch callable: torch.X, F.X,
Tensor.X or C.X for a helper below), inputs {name: (dtype, shape)}, params
{name: (dtype, shape)} (static), args / kwargs ("$x" refers to an input or
param, {"size": ["x", d]} is x.size(d) as a graph size node, {"dtype": d}
a dtype), sizes {letter: (lo, hi)}."""
import torch
import torch.nn as nn

CASES = []


def case(name, op, fn, inputs, args, kwargs=None, sizes=None, params=None):
    letters = {d for _, decl in inputs.values() for d in decl if isinstance(d, str)}
    sz = {k: (0, 6) for k in sorted(letters)}
    sz.update(sizes or {})
    CASES.append({"name": name, "op": op, "fn": fn, "inputs": inputs, "params": params or {}, "args": args,
                  "kwargs": kwargs or {}, "sizes": sz})


F32, I64, B, C64 = "float32", "int64", "bool", "complex64"


def x(*shape, dt=F32):
    return {"x": (dt, list(shape))}


# ---------------------------------------------------------------- helpers: the nn modules the RNN ops stand for

def _rnn_module(kind, params, has_biases, num_layers, bidirectional, batch_first):
    gates = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}[kind]
    d = 2 if bidirectional else 1
    per = 4 if has_biases else 2
    proj = len(params) == num_layers * d * (per + 1)
    hidden = params[0].shape[0] // gates
    kw = dict(input_size=params[0].shape[1], hidden_size=hidden, num_layers=num_layers, bias=has_biases,
              batch_first=batch_first, bidirectional=bidirectional)
    if kind == "lstm":
        m = nn.LSTM(proj_size=params[per].shape[0] if proj else 0, **kw)
    elif kind == "gru":
        m = nn.GRU(**kw)
    else:
        m = nn.RNN(nonlinearity="tanh" if kind == "rnn_tanh" else "relu", **kw)
    return m


def _rnn(kind, inp, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    m = _rnn_module(kind, params, has_biases, num_layers, bidirectional, batch_first)
    if isinstance(hx, list):
        hx = tuple(hx) if hx else None
    with torch.no_grad():
        return m(inp, hx)


def lstm(*a):
    return _rnn("lstm", *a)


def gru(*a):
    return _rnn("gru", *a)


def rnn_tanh(*a):
    return _rnn("rnn_tanh", *a)


def rnn_relu(*a):
    return _rnn("rnn_relu", *a)


def rnn_params(kind, in_size, hidden, layers=1, bidir=False, bias=True, proj=0, dt=F32):
    g = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}[kind]
    d = 2 if bidir else 1
    hr = proj or hidden
    ps = {}
    names = []
    for layer in range(layers):
        for k in range(d):
            lin = in_size if layer == 0 else hr * d
            sfx = f"l{layer}{'r' if k else ''}"
            ps["w_ih_" + sfx] = (dt, [g * hidden, lin])
            ps["w_hh_" + sfx] = (dt, [g * hidden, hr])
            names += ["w_ih_" + sfx, "w_hh_" + sfx]
            if bias:
                ps["b_ih_" + sfx] = (dt, [g * hidden])
                ps["b_hh_" + sfx] = (dt, [g * hidden])
                names += ["b_ih_" + sfx, "b_hh_" + sfx]
            if proj:
                ps["w_hr_" + sfx] = (dt, [proj, hidden])
                names.append("w_hr_" + sfx)
    return ps, ["$" + n for n in names]


# ---------------------------------------------------------------- recurrent layers
for kind in ["lstm", "gru", "rnn_tanh", "rnn_relu"]:
    for (tag, layers, bidir, bias, bf, proj) in [("basic", 1, False, True, False, 0), ("bi2", 2, True, True, True, 0),
                                                 ("nobias", 1, False, False, False, 0), ("proj", 2, True, True, False, 3)]:
        if proj and kind != "lstm":
            continue
        ps, names = rnn_params(kind, 5, 4, layers, bidir, bias, proj)
        inp = {"x": (F32, ["b", "t", "f"] if bf else ["t", "b", "f"])}
        case(f"{kind}_{tag}", kind, "C." + kind, inp, ["$x", None, names, bias, layers, 0.0, False, bidir, bf],
             sizes={"f": (4, 6), "t": (0, 5), "b": (0, 4)}, params=ps)
    ps, names = rnn_params(kind, 5, 4)
    case(f"{kind}_unbatched", kind, "C." + kind, {"x": (F32, ["t", "f"])}, ["$x", [], names, True, 1, 0.0, False, False, False],
         sizes={"f": (4, 6), "t": (0, 5)}, params=ps)
    # explicit initial state whose batch size is an input size
    hdims = {"h": (F32, [1, "hb", 4])}
    if kind == "lstm":
        hdims["c"] = (F32, [1, "hb", 4])
        hx = ["$h", "$c"]
    else:
        hx = "$h"
    case(f"{kind}_state", kind, "C." + kind, dict({"x": (F32, ["t", "b", 5])}, **hdims), ["$x", hx, names, True, 1, 0.0, False, False, False],
         sizes={"t": (1, 4), "b": (1, 4), "hb": (1, 4)}, params=ps)

# ---------------------------------------------------------------- max / min and reductions with indices
for op in ["max", "min"]:
    case(f"{op}_all", op, f"torch.{op}", x("a", "b"), ["$x"])
    case(f"{op}_dim", op, f"torch.{op}", x("a", "b", 3), ["$x", 1])
    case(f"{op}_dim_keepdim", op, f"torch.{op}", x("a", "b"), ["$x"], {"dim": -1, "keepdim": True})
    case(f"{op}_other", op, f"torch.{op}", {"x": (F32, ["a", "b"]), "y": (F32, ["c", "b"])}, ["$x", "$y"], sizes={"c": (1, 2)})
    case(f"{op}_0d", op, f"torch.{op}", x(), ["$x", 0], sizes={})
for op in ["argmax", "argmin"]:
    case(f"{op}_all", op, f"torch.{op}", x("a", "b"), ["$x"])
    case(f"{op}_dim", op, f"torch.{op}", x("a", "b", 2), ["$x", 0], {"keepdim": True})
    case(f"{op}_all_keepdim", op, f"torch.{op}", x("a", "b"), ["$x"], {"keepdim": True})
case("maximum", "maximum", "torch.maximum", {"x": (F32, ["a", 1]), "y": (F32, ["b"])}, ["$x", "$y"])
for op in ["std", "var"]:
    case(f"{op}_all", op, f"torch.{op}", x("a", "b"), ["$x"])
    case(f"{op}_dims", op, f"torch.{op}", x("a", "b", "c"), ["$x", [0, 2]], {"keepdim": True})
    case(f"{op}_unbiased_overload", op, f"torch.{op}", x("a", "b"), ["$x", False])
case("var_mean", "var_mean", "torch.var_mean", x("a", "b"), ["$x", 1])
case("std_mean", "std_mean", "torch.std_mean", x("a", "b"), ["$x"], {"dim": [0], "keepdim": True})
case("norm_fro", "norm", "torch.norm", x("a", "b"), ["$x"])
case("norm_p1_dim", "norm", "torch.norm", x("a", "b", "c"), ["$x", 1, 1, True])
case("norm_p_half", "norm", "torch.norm", x("a", "b"), ["$x", 0.5, 0])
case("norm_p_neg", "norm", "torch.norm", x("a", "b"), ["$x", -1.0, 1])
case("norm_nuc", "norm", "torch.norm", x("a", "b", 3), ["$x", "nuc", [0, 1]])
case("norm_fro_dims", "norm", "Tensor.norm", x("a", "b", 3), ["$x"], {"p": "fro", "dim": [1, 2]})
case("logsumexp", "logsumexp", "torch.logsumexp", x("a", "b"), ["$x", 1])
case("logsumexp_list", "logsumexp", "torch.logsumexp", x("a", "b", "c"), ["$x", [0, 2]], {"keepdim": True})
for op in ["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp"]:
    case(op, op, f"torch.{op}", x("a", "b"), ["$x", 1])
case("cumsum_int", "cumsum", "torch.cumsum", x("a", dt=I64), ["$x", 0])
case("cumsum_0d", "cumsum", "torch.cumsum", x(), ["$x", -1], sizes={})
case("sort", "sort", "torch.sort", x("a", "b"), ["$x"], {"dim": 0, "descending": True})
case("argsort", "argsort", "torch.argsort", x("a", "b"), ["$x", 1])
case("topk_const", "topk", "torch.topk", x("a", "b"), ["$x", 3])
case("topk_dim0", "topk", "torch.topk", x("a", "b"), ["$x", 2], {"dim": 0, "largest": False})
case("topk_size_k", "topk", "torch.topk", {"x": (F32, ["a", "b"]), "k": (F32, ["c"])}, ["$x", {"size": ["k", 0]}])
case("kthvalue", "kthvalue", "torch.kthvalue", x("a", "b"), ["$x", 2])
case("kthvalue_keepdim", "kthvalue", "torch.kthvalue", x("a", "b"), ["$x", 1, 0, True])
case("median_all", "median", "torch.median", x("a", "b"), ["$x"])
case("median_dim", "median", "torch.median", x("a", "b"), ["$x", 1])
case("mode", "mode", "torch.mode", x("a", "b"), ["$x", 0])
case("all_dim", "all", "torch.all", x("a", "b", dt=B), ["$x", 1])
case("any_keepdim", "any", "torch.any", x("a", "b", dt=B), ["$x", 0, True])

# ---------------------------------------------------------------- index patterns
case("gather", "gather", "torch.gather", {"x": (F32, ["a", "b"]), "i": (I64, ["c", "d"])}, ["$x", 1, "$i"])
case("gather_dim0", "gather", "torch.gather", {"x": (F32, ["a", 3]), "i": (I64, ["c", "d"])}, ["$x", 0, "$i"])
case("scatter", "scatter", "torch.scatter", {"x": (F32, ["a", "b"]), "i": (I64, ["c", "d"]), "s": (F32, ["e", "f"])}, ["$x", 1, "$i", "$s"],
     sizes={"c": (0, 4), "d": (0, 4)})
case("scatter_value", "scatter", "torch.scatter", {"x": (F32, ["a", "b"]), "i": (I64, ["c", "d"])}, ["$x", 0, "$i"], {"value": 1.5})
case("scatter_add", "scatter_add", "torch.scatter_add", {"x": (F32, ["a", "b"]), "i": (I64, ["c", "d"]), "s": (F32, ["e", "f"])},
     ["$x", 0, "$i", "$s"], sizes={"c": (0, 4), "d": (0, 4)})
case("index_select", "index_select", "torch.index_select", {"x": (F32, ["a", "b"]), "i": (I64, ["c"])}, ["$x", 1, "$i"])
case("take_along_dim", "take_along_dim", "torch.take_along_dim", {"x": (F32, ["a", "b"]), "i": (I64, ["c", "d"])}, ["$x", "$i", 1],
     sizes={"c": (0, 3), "d": (0, 3)})
case("take_along_dim_flat", "take_along_dim", "torch.take_along_dim", {"x": (F32, ["a", "b"]), "i": (I64, ["c"])}, ["$x", "$i"])
case("masked_fill", "masked_fill", "torch.masked_fill", {"x": (F32, ["a", "b"]), "m": (B, ["c", "b"])}, ["$x", "$m", 0.5], sizes={"c": (1, 3)})
case("masked_fill_", "masked_fill_", "Tensor.masked_fill_", {"x": (F32, ["a", "b"]), "m": (B, ["c", "b"])}, ["$x", "$m", 0.5], sizes={"c": (1, 3)})
case("repeat_interleave_int", "repeat_interleave", "torch.repeat_interleave", x("a", "b"), ["$x", 3])
case("repeat_interleave_dim", "repeat_interleave", "torch.repeat_interleave", x("a", "b"), ["$x", 2], {"dim": 1})
case("repeat_interleave_size", "repeat_interleave", "torch.repeat_interleave", {"x": (F32, ["a", "b"]), "r": (F32, ["c"])},
     ["$x", {"size": ["r", 0]}], {"dim": 0})
for n in [1, 3]:
    case(f"tensor_split_sections{n}", "tensor_split", "torch.tensor_split", x("a", "b"), ["$x", n], {"dim": 1}, sizes={"b": (0, 9)})
case("tensor_split_indices", "tensor_split", "torch.tensor_split", x("a"), ["$x", [1, 4, -2]], sizes={"a": (0, 9)})
case("unbind", "unbind", "torch.unbind", x(3, "a"), ["$x"])
case("unbind_dim", "unbind", "torch.unbind", x("a", 2), ["$x", 1])

# ---------------------------------------------------------------- shape changes
case("flip", "flip", "torch.flip", x("a", "b", "c"), ["$x", [0, -1]])
case("fliplr", "fliplr", "torch.fliplr", x("a", "b"), ["$x"])
case("roll", "roll", "torch.roll", x("a", "b"), ["$x", [1, -2], [0, 1]])
case("roll_flat", "roll", "torch.roll", x("a", "b"), ["$x", 3])
case("repeat", "repeat", "Tensor.repeat", x("a", "b"), ["$x", 2, 1, 3])
case("repeat_sizes", "repeat", "Tensor.repeat", {"x": (F32, ["a", "b"]), "r": (F32, ["c"])}, ["$x", {"size": ["r", 0]}, 2])
case("tile", "tile", "torch.tile", x("a", "b", "c"), ["$x", [2, 3]])
case("movedim", "movedim", "torch.movedim", x("a", "b", "c", "d"), ["$x", [0, 1], [3, 0]])
case("movedim_int", "movedim", "torch.movedim", x("a", "b", "c"), ["$x", -1, 0])
case("swapaxes", "swapaxes", "torch.swapaxes", x("a", "b", "c"), ["$x", 0, 2])
case("swapdims", "swapdims", "torch.swapdims", x("a", "b"), ["$x", 1, 0])
case("squeeze_", "squeeze_", "Tensor.squeeze_", x("a", 1, "b"), ["$x", 1])
case("squeeze_all", "squeeze", "torch.squeeze", x("a", 1, "b"), ["$x"], sizes={"a": (2, 6), "b": (2, 6)})
case("squeeze_dim", "squeeze", "torch.squeeze", x("a", "b"), ["$x", 1], sizes={"a": (2, 6), "b": (1, 3)})
case("squeeze_dim_neg", "squeeze", "Tensor.squeeze", x("a", 1), ["$x", -1])
case("unsqueeze", "unsqueeze", "torch.unsqueeze", x("a", "b"), ["$x", 1])
case("unsqueeze_neg", "unsqueeze", "Tensor.unsqueeze", x("a", "b"), ["$x", -3])
case("unsqueeze_", "unsqueeze_", "Tensor.unsqueeze_", x("a", "b"), ["$x", -1])
case("narrow_copy", "narrow_copy", "torch.narrow_copy", x("a", "b"), ["$x", 1, 1, 2])
case("diagonal", "diagonal", "torch.diagonal", x("a", "b", "c"), ["$x", 1, 0, 2])
case("diagonal_neg", "diagonal", "torch.diagonal", x("a", "b"), ["$x", -2])
case("diag_1d", "diag", "torch.diag", x("a"), ["$x", -1])
case("diag_2d", "diag", "torch.diag", x("a", "b"), ["$x", 2])
case("diag_embed", "diag_embed", "torch.diag_embed", x("a", "b"), ["$x", 1])
case("expand_as", "expand_as", "Tensor.expand_as", {"x": (F32, ["a", 1]), "y": (F32, ["b", "c", "d"])}, ["$x", "$y"], sizes={"a": (1, 3)})
case("view_as", "view_as", "Tensor.view_as", {"x": (F32, ["a", "b"]), "y": (F32, ["c", "d"])}, ["$x", "$y"])
case("unfold_tensor", "unfold", "Tensor.unfold", x("a", "b"), ["$x", 1, 3, 2], sizes={"b": (0, 9)})
case("unfold_tensor_kw", "unfold", "Tensor.unfold", x("a"), ["$x"], {"dimension": 0, "size": 2, "step": 1})
case("unfold_F", "unfold", "F.unfold", x("n", "c", "h", "w"), ["$x"], {"kernel_size": [2, 3], "stride": 2, "padding": 1},
     sizes={"n": (0, 2), "c": (0, 3)})
case("unfold_F_3d", "unfold", "F.unfold", x("c", "h", "w"), ["$x", 3], sizes={"c": (0, 3)})
case("unfold_F_dil", "unfold", "F.unfold", x("n", 2, "h", "w"), ["$x", 2, 2, 0, 1], sizes={"n": (0, 2), "h": (0, 9), "w": (0, 9)})
# lp_pool{1,2}d (issue 38, fix38f): avg_poolNd of input.pow(p), padding 0 (torch/nn/functional.py)
case("lp_pool1d", "lp_pool1d", "F.lp_pool1d", x("n", "c", "l"), ["$x", 2, 3, 2], sizes={"n": (0, 2), "c": (0, 3), "l": (0, 12)})
case("lp_pool1d_nostride", "lp_pool1d", "F.lp_pool1d", x("c", "l"), ["$x", 2.0, 3], sizes={"l": (0, 12)})
case("lp_pool1d_ceil", "lp_pool1d", "F.lp_pool1d", x("n", "c", "l"), ["$x", 1.5, 4, 3], {"ceil_mode": True},
     sizes={"n": (0, 2), "l": (0, 14)})
case("lp_pool2d", "lp_pool2d", "F.lp_pool2d", x("n", "c", "h", "w"), ["$x", 2, [2, 3], 2], sizes={"n": (0, 2), "c": (0, 2), "h": (0, 9), "w": (0, 9)})
case("lp_pool2d_ceil", "lp_pool2d", "F.lp_pool2d", x("n", 2, "h", "w"), ["$x", 3, 3, 2, True], sizes={"n": (0, 2), "h": (0, 9), "w": (0, 9)})
case("fold", "fold", "F.fold", x("n", "k", "l"), ["$x", [4, 5], [2, 2]], sizes={"n": (0, 2), "k": (3, 9), "l": (10, 13)})
case("fold_sized", "fold", "F.fold", {"x": (F32, [2, 12, "l"]), "y": (F32, ["h", "w"])},
     ["$x", [{"size": ["y", 0]}, {"size": ["y", 1]}]], {"kernel_size": 2, "stride": 2},
     sizes={"l": (0, 4), "h": (0, 9), "w": (2, 3)})
case("fold_stride", "fold", "F.fold", x("k", "l"), ["$x"], {"output_size": 6, "kernel_size": 2, "stride": 2}, sizes={"k": (3, 9), "l": (8, 10)})
case("einsum_mm", "einsum", "torch.einsum", {"a": (F32, ["i", "j"]), "b": (F32, ["k", "l"])}, ["ij,jk->ik", "$a", "$b"])
case("einsum_attn", "einsum", "torch.einsum", {"q": (F32, ["b", "h", "i", "d"]), "k": (F32, ["b2", "h", "j", "d"])},
     ["bhid,bhjd->bhij", "$q", "$k"], sizes={"b2": (1, 3)})
case("einsum_ellipsis", "einsum", "torch.einsum", {"a": (F32, ["p", "i", "j"]), "b": (F32, ["q", "j", "k"])}, ["...ij,...jk", "$a", "$b"],
     sizes={"p": (1, 3), "q": (1, 3)})
case("einsum_implicit", "einsum", "torch.einsum", {"a": (F32, ["i", "j"]), "b": (F32, ["j"])}, ["ij,j", "$a", "$b"])
case("einsum_trace", "einsum", "torch.einsum", {"a": (F32, ["i", "j"])}, ["ii->i", "$a"])
case("einsum_list", "einsum", "torch.einsum", {"a": (F32, ["i", "j"]), "b": (F32, ["i", "j"])}, ["ij,ij->", ["$a", "$b"]])
case("einsum_bcast_label", "einsum", "torch.einsum", {"a": (F32, ["i", "j"]), "b": (F32, ["k", "j"])}, ["ij,ij->ij", "$a", "$b"],
     sizes={"k": (1, 3)})
case("einsum_ell_out", "einsum", "torch.einsum", {"a": (F32, ["p", "q", "i"])}, ["...i->i...", "$a"])

# ---------------------------------------------------------------- nn functions
case("prelu_channels", "prelu", "F.prelu", x("n", 3, "h"), ["$x", "$w"], params={"w": (F32, [3])}, sizes={"n": (0, 3)})
case("prelu_mismatch", "prelu", "F.prelu", x("n", "c"), ["$x", "$w"], params={"w": (F32, [4])}, sizes={"c": (3, 5)})
case("prelu_single", "prelu", "F.prelu", x("n", "c", "h"), ["$x", "$w"], params={"w": (F32, [1])})
case("prelu_1d", "prelu", "F.prelu", x("c"), ["$x", "$w"], params={"w": (F32, [1])}, sizes={"c": (0, 3)})
case("glu", "glu", "F.glu", x("a", "b"), ["$x"], sizes={"b": (0, 9)})
case("glu_dim0", "glu", "F.glu", x("a", "b"), ["$x", 0], sizes={"a": (0, 9)})
case("pixel_shuffle", "pixel_shuffle", "F.pixel_shuffle", x("n", "c", "h", "w"), ["$x", 2], sizes={"c": (0, 13)})
case("pixel_shuffle_3d", "pixel_shuffle", "F.pixel_shuffle", x("c", "h", "w"), ["$x", 3], sizes={"c": (0, 19)})
case("pixel_unshuffle", "pixel_unshuffle", "F.pixel_unshuffle", x("n", "c", "h", "w"), ["$x", 2], sizes={"h": (0, 9), "w": (0, 9)})
case("channel_shuffle", "channel_shuffle", "F.channel_shuffle", x("n", "c", "h", "w"), ["$x", 2], sizes={"c": (0, 9)})
case("grid_sample", "grid_sample", "F.grid_sample", {"x": (F32, ["n", "c", "h", "w"]), "g": (F32, ["m", "p", "q", 2])}, ["$x", "$g"],
     {"align_corners": False}, sizes={"n": (1, 3), "m": (1, 3)})
case("grid_sample_3d", "grid_sample", "F.grid_sample", {"x": (F32, ["n", 2, "d", "h", "w"]), "g": (F32, ["n", "p", "q", "r", 3])}, ["$x", "$g"],
     {"align_corners": True, "mode": "nearest"}, sizes={"n": (1, 2), "d": (0, 3), "h": (0, 3), "w": (0, 3)})
case("affine_grid", "affine_grid", "F.affine_grid", {"t": (F32, ["n", 2, 3]), "x": (F32, ["m", "c", "h", "w"])},
     ["$t", {"tuple": [{"size": ["x", 0]}, {"size": ["x", 1]}, {"size": ["x", 2]}, {"size": ["x", 3]}]}], {"align_corners": False},
     sizes={"n": (1, 3), "m": (1, 3)})
case("affine_grid_ac", "affine_grid", "F.affine_grid", {"t": (F32, [2, 2, 3]), "x": (F32, ["c", "h", "w"])},
     ["$t", [2, {"size": ["x", 0]}, {"size": ["x", 1]}, {"size": ["x", 2]}]], {"align_corners": True}, sizes={"c": (0, 2), "h": (0, 2)})
case("embedding_bag_2d", "embedding_bag", "F.embedding_bag", {"x": (I64, ["b", "n"])}, ["$x", "$w"], {"mode": "sum"},
     params={"w": (F32, [10, 3])})
case("embedding_bag_offsets", "embedding_bag", "F.embedding_bag", {"x": (I64, ["n"]), "o": (I64, ["b"])}, ["$x", "$w", "$o"],
     params={"w": (F32, [10, 3])})
case("embedding_bag_last", "embedding_bag", "F.embedding_bag", {"x": (I64, ["n"]), "o": (I64, ["b"])}, ["$x", "$w", "$o"],
     {"include_last_offset": True, "mode": "sum"}, params={"w": (F32, [10, 3])})
case("one_hot", "one_hot", "F.one_hot", x("a", "b", dt=I64), ["$x", 5])
case("one_hot_sized", "one_hot", "F.one_hot", {"x": (I64, ["a"]), "k": (F32, ["k"])}, ["$x", {"size": ["k", 0]}])
for red in ["none", "mean", "sum"]:
    case(f"cross_entropy_{red}", "cross_entropy", "F.cross_entropy", {"x": (F32, ["n", "c"]), "t": (I64, ["m"])}, ["$x", "$t"],
         {"reduction": red})
    case(f"nll_loss_{red}", "nll_loss", "F.nll_loss", {"x": (F32, ["n", "c"]), "t": (I64, ["m"])}, ["$x", "$t"], {"reduction": red})
case("cross_entropy_2d", "cross_entropy", "F.cross_entropy", {"x": (F32, ["n", "c", "h", "w"]), "t": (I64, ["m", "h", "w2"])},
     ["$x", "$t"], {"reduction": "none"}, sizes={"h": (0, 3), "w": (0, 3), "w2": (0, 3)})
case("cross_entropy_3d", "cross_entropy", "F.cross_entropy", {"x": (F32, ["n", "c", "l"]), "t": (I64, ["m", "l"])}, ["$x", "$t"])
case("cross_entropy_5d", "cross_entropy", "F.cross_entropy", {"x": (F32, ["n", 2, "a", "b", "d"]), "t": (I64, ["n", "a", "b", "d"])},
     ["$x", "$t"], {"reduction": "none"}, sizes={"a": (0, 2), "b": (0, 2), "d": (0, 2)})
case("cross_entropy_probs", "cross_entropy", "F.cross_entropy", {"x": (F32, ["n", "c"]), "t": (F32, ["m", "c2"])}, ["$x", "$t"],
     {"reduction": "none"})
case("cross_entropy_weight", "cross_entropy", "F.cross_entropy", {"x": (F32, ["n", "c"]), "t": (I64, ["n"])}, ["$x", "$t", "$w"],
     params={"w": (F32, [4])}, sizes={"c": (3, 5)})
case("cross_entropy_1d", "cross_entropy", "F.cross_entropy", {"x": (F32, ["c"]), "t": (I64, [])}, ["$x", "$t"])
case("nll_loss_legacy", "nll_loss", "F.nll_loss", {"x": (F32, ["n", "c"]), "t": (I64, ["n"])}, ["$x", "$t"], {"reduce": False})
case("instance_norm", "instance_norm", "F.instance_norm", x("n", "c", "l"), ["$x"], sizes={"l": (0, 3)})
case("instance_norm_affine", "instance_norm", "F.instance_norm", x("n", "c", "h", "w"), ["$x"], {"weight": "$w", "bias": "$b"},
     params={"w": (F32, [3]), "b": (F32, [3])}, sizes={"c": (2, 4), "h": (1, 3), "w": (1, 3)})
case("local_response_norm", "local_response_norm", "F.local_response_norm", x("n", "c", "h"), ["$x", 3])
case("local_response_norm_4d", "local_response_norm", "F.local_response_norm", x("n", "c", "h", "w"), ["$x", 2])

# ---------------------------------------------------------------- factories
for op in ["zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"]:
    case(op, op, f"torch.{op}", x("a", "b"), ["$x"])
case("full_like", "full_like", "torch.full_like", x("a", "b"), ["$x", 2.0])
case("randint_like", "randint_like", "torch.randint_like", x("a", "b"), ["$x", 10])
case("zeros_like_dtype", "zeros_like", "torch.zeros_like", x("a"), ["$x"], {"dtype": {"dtype": I64}})
case("eye", "eye", "torch.eye", x("a"), [{"size": ["x", 0]}])
case("eye_nm", "eye", "torch.eye", x("a", "b"), [{"size": ["x", 0]}, {"size": ["x", 1]}])
case("linspace", "linspace", "torch.linspace", x("a"), [0.0, 1.0, {"size": ["x", 0]}])
case("logspace", "logspace", "torch.logspace", x("a"), [0.0, 1.0, 4])
case("meshgrid", "meshgrid", "torch.meshgrid", {"a": (F32, ["i"]), "b": (F32, ["j"])}, ["$a", "$b"], {"indexing": "ij"})
case("meshgrid_xy", "meshgrid", "torch.meshgrid", {"a": (F32, ["i"]), "b": (F32, ["j"]), "c": (F32, [])}, ["$a", "$b", "$c"],
     {"indexing": "xy"})
case("tensor_nested", "tensor", "torch.tensor", x("a"), [[[1, 2, 3], [4, 5, 6]]])
case("tensor_sizes", "tensor", "torch.tensor", x("a", "b"), [[{"size": ["x", 0]}, {"size": ["x", 1]}]])
case("triu_indices", "triu_indices", "torch.triu_indices", x("a"), [4, 5, 1])
case("tril_indices", "tril_indices", "torch.tril_indices", x("a"), [5, 3, -1])

# ---------------------------------------------------------------- linear algebra
case("bilinear", "bilinear", "F.bilinear", {"a": (F32, ["n", 3]), "b": (F32, ["m", 4])}, ["$a", "$b", "$w", "$bias"],
     params={"w": (F32, [5, 3, 4]), "bias": (F32, [5])})
case("bilinear_batch", "bilinear", "F.bilinear", {"a": (F32, ["n", "l", "i"]), "b": (F32, ["n", "l2", 4])}, ["$a", "$b", "$w"],
     params={"w": (F32, [5, 3, 4])}, sizes={"i": (2, 4)})
case("baddbmm", "baddbmm", "torch.baddbmm", {"x": (F32, ["q", 1]), "a": (F32, ["b", "n", "m"]), "c": (F32, ["b2", "m2", "p"])},
     ["$x", "$a", "$c"], sizes={"q": (1, 3), "m": (1, 3), "m2": (1, 3)})
case("addmm", "addmm", "torch.addmm", {"x": (F32, ["p"]), "a": (F32, ["n", "m"]), "c": (F32, ["m2", "p2"])}, ["$x", "$a", "$c"],
     sizes={"m": (1, 3), "m2": (1, 3), "p": (1, 3), "p2": (1, 3)})
case("addmv", "addmv", "torch.addmv", {"x": (F32, ["n"]), "a": (F32, ["n2", "m"]), "v": (F32, ["m2"])}, ["$x", "$a", "$v"],
     sizes={"n": (1, 3), "n2": (1, 3), "m": (1, 3), "m2": (1, 3)})
case("addr", "addr", "torch.addr", {"x": (F32, [1, "m"]), "a": (F32, ["n"]), "v": (F32, ["m2"])}, ["$x", "$a", "$v"],
     sizes={"m": (1, 3), "m2": (1, 3)})
case("outer", "outer", "torch.outer", {"a": (F32, ["n"]), "b": (F32, ["m"])}, ["$a", "$b"])
case("kron", "kron", "torch.kron", {"a": (F32, ["n", "m"]), "b": (F32, ["p", "q", "r"])}, ["$a", "$b"])
case("cdist", "cdist", "torch.cdist", {"a": (F32, ["b", "p", "m"]), "c": (F32, ["b2", "r", "m2"])}, ["$a", "$c"],
     sizes={"b": (1, 3), "b2": (1, 3), "m": (1, 3), "m2": (1, 3)})
case("cdist_2d", "cdist", "torch.cdist", {"a": (F32, ["p", "m"]), "c": (F32, ["r", "m"])}, ["$a", "$c"], {"p": 1.0})

# ---------------------------------------------------------------- spectral and complex views
case("stft", "stft", "torch.stft", x("l"), ["$x", 8], {"return_complex": True}, sizes={"l": (0, 20)})
case("stft_batch_hop", "stft", "torch.stft", x("b", "l"), ["$x", 6], {"hop_length": 2, "return_complex": True}, sizes={"l": (0, 20)})
case("stft_window", "stft", "torch.stft", x("l"), ["$x", 8], {"hop_length": 3, "win_length": 6, "window": "$w", "return_complex": True},
     params={"w": (F32, [6])}, sizes={"l": (0, 20)})
case("stft_nocenter_real", "stft", "torch.stft", x("b", "l"), ["$x", 5], {"center": False, "return_complex": False, "onesided": False},
     sizes={"l": (0, 12)})
case("stft_constant", "stft", "torch.stft", x("l"), ["$x", 8], {"pad_mode": "constant", "return_complex": True}, sizes={"l": (0, 20)})
case("stft_no_return_complex", "stft", "torch.stft", x("l"), ["$x", 8], sizes={"l": (8, 20)})
case("istft", "istft", "torch.istft", {"x": (C64, [5, "t"])}, ["$x", 8], sizes={"t": (0, 8)})
case("istft_batch_length", "istft", "torch.istft", {"x": (C64, ["b", 5, "t"])}, ["$x", 8], {"hop_length": 2, "length": 9},
     sizes={"t": (0, 8)})
case("istft_nocenter", "istft", "torch.istft", {"x": (C64, [5, "t"])}, ["$x", 8], {"center": False, "hop_length": 3},
     sizes={"t": (0, 8)})
case("istft_short_window", "istft", "torch.istft", {"x": (C64, [5, "t"])}, ["$x", 8], {"win_length": 6, "hop_length": 3},
     sizes={"t": (0, 8)})
case("istft_length_short_window", "istft", "torch.istft", {"x": (C64, [5, "t"])}, ["$x", 8], {"win_length": 6, "hop_length": 3, "length": 11},
     sizes={"t": (0, 8)})
case("istft_window", "istft", "torch.istft", {"x": (C64, ["b", "f", "t"])}, ["$x", 8], {"window": "$w"}, params={"w": (F32, [8])},
     sizes={"t": (0, 6), "f": (4, 6)})
case("istft_length_sized", "istft", "torch.istft", {"x": (C64, [5, "t"]), "y": (F32, ["n"])}, ["$x", 8], {"length": {"size": ["y", 0]}},
     sizes={"t": (1, 8), "n": (0, 30)})
case("view_as_real", "view_as_real", "torch.view_as_real", {"x": (C64, ["a", "b"])}, ["$x"])
case("view_as_complex", "view_as_complex", "torch.view_as_complex", x("a", "b"), ["$x"], sizes={"b": (1, 3)})
case("ceil", "ceil", "torch.ceil", x("a", "b"), ["$x"])

# ---------------------------------------------------------------- pointwise (ops_pointwise.c)
for op in ["acos", "arccos", "acosh", "arccosh", "asin", "arcsin", "asinh", "arcsinh", "atan", "arctan", "atanh", "arctanh", "cos",
           "cosh", "sin", "sinh", "tan", "sinc", "absolute", "angle", "conj", "conj_physical", "deg2rad", "rad2deg", "digamma",
           "lgamma", "erfc", "erfinv", "exp2", "expm1", "fix", "frac", "i0", "log10", "log1p", "log2", "logit", "nan_to_num",
           "negative", "positive", "reciprocal", "sgn", "sign", "signbit", "square", "isnan", "isinf", "isposinf", "isneginf",
           "isfinite", "isreal", "logical_not"]:
    case(f"pw_{op}", op, f"torch.{op}", x("a", "b"), ["$x"])
case("pw_real", "real", "torch.real", {"x": (C64, ["a", "b"])}, ["$x"])
case("pw_imag", "imag", "torch.imag", {"x": (C64, ["a", "b"])}, ["$x"])
case("pw_bitwise_not", "bitwise_not", "torch.bitwise_not", x("a", "b", dt=I64), ["$x"])
for op in ["celu", "selu", "softplus", "softsign", "softshrink", "hardshrink", "tanhshrink", "rrelu", "mish", "logsigmoid"]:
    case(f"pw_F_{op}", op, f"F.{op}", x("a", "b"), ["$x"])
case("pw_threshold", "threshold", "F.threshold", x("a", "b"), ["$x", 0.5, 0.0])
case("pw_softmin", "softmin", "F.softmin", x("a", "b"), ["$x"], {"dim": 1})
case("pw_gumbel_softmax", "gumbel_softmax", "F.gumbel_softmax", x("a", "b"), ["$x"])
case("pw_dropout1d", "dropout1d", "F.dropout1d", x("a", "b", "c"), ["$x"], {"training": False})
case("pw_dropout3d", "dropout3d", "F.dropout3d", x("a", "b", "c", "d"), ["$x"], {"training": False})
for op in ["exp_", "log_", "sqrt_", "abs_", "sin_", "cos_", "zero_", "uniform_", "normal_", "exponential_", "requires_grad_", "cpu"]:
    case(f"pw_{op}", op, f"Tensor.{op}", x("a", "b"), ["$x"])
case("pw_fill_", "fill_", "Tensor.fill_", x("a", "b"), ["$x", 1.5])
TWO = {"x": (F32, ["a", 1, "b"]), "y": (F32, ["c", "b"])}
for op in ["atan2", "arctan2", "copysign", "float_power", "floor_divide", "fmod", "remainder", "hypot", "logaddexp",
           "logaddexp2", "logical_and", "logical_or", "logical_xor", "multiply", "subtract", "true_divide", "divide",
           "nextafter", "xlogy", "isclose", "greater", "greater_equal", "less", "less_equal", "not_equal", "heaviside",
           "igamma", "igammac", "clamp_min", "clamp_max"]:
    case(f"pw_{op}", op, f"torch.{op}", TWO, ["$x", "$y"], sizes={"a": (0, 3), "c": (0, 4)})
case("pw_scalar_other", "fmod", "torch.fmod", x("a", "b"), ["$x", 2.5])
II = {"x": (I64, ["a", 1, "b"]), "y": (I64, ["c", "b"])}
for op in ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm"]:
    case(f"pw_{op}", op, f"torch.{op}", II, ["$x", "$y"], sizes={"a": (0, 3), "c": (0, 4)})
case("pw_ldexp", "ldexp", "torch.ldexp", {"x": (F32, ["a", 1]), "y": (I64, ["b"])}, ["$x", "$y"])
case("pw_masked_scatter", "masked_scatter", "Tensor.masked_scatter", {"x": (F32, ["a", "b"]), "m": (B, ["c", "b"])}, ["$x", "$m", "$s"],
     params={"s": (F32, [64])}, sizes={"c": (1, 3)})
for op in ["pow_", "fmod_", "remainder_", "clamp_min_", "clamp_max_"]:
    case(f"pw_{op}", op, f"Tensor.{op}", {"x": (F32, ["a", "b"]), "y": (F32, ["c", "d"])}, ["$x", "$y"], sizes={"c": (1, 3), "d": (1, 3)})
T3 = {"x": (F32, ["a", 1]), "y": (F32, ["b"]), "z": (F32, ["c", 1, 1])}
for op in ["addcmul", "addcdiv"]:
    case(f"pw_{op}", op, f"torch.{op}", T3, ["$x", "$y", "$z"], sizes={"c": (1, 3)})
    case(f"pw_{op}_", op + "_", f"Tensor.{op}_", {"x": (F32, ["a", "b"]), "y": (F32, ["b2"]), "z": (F32, [1, "b"])}, ["$x", "$y", "$z"],
         sizes={"b2": (1, 3)})
case("pw_lerp", "lerp", "torch.lerp", T3, ["$x", "$y", 0.5])
case("pw_lerp_tensor", "lerp", "torch.lerp", T3, ["$x", "$y", "$z"], sizes={"c": (1, 3)})
case("pw_lerp_", "lerp_", "Tensor.lerp_", T3, ["$x", "$y", 0.5])
case("pw_clamp", "clamp", "torch.clamp", x("a", "b"), ["$x"], {"min": -0.5})
case("pw_clamp_tensor", "clamp", "torch.clamp", T3, ["$x", "$y", "$z"], sizes={"c": (1, 3)})
case("pw_clip", "clip", "torch.clip", x("a", "b"), ["$x", -1.0, 1.0])
case("pw_clamp_", "clamp_", "Tensor.clamp_", T3, ["$x", "$y"], sizes={"c": (1, 3)})
case("pw_clip_", "clip_", "Tensor.clip_", x("a", "b"), ["$x"], {"max": 1.0})

# ---------------------------------------------------------------- in-place pointwise forms
for op in ["absolute_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "asin_", "asinh_",
           "atan_", "atanh_", "ceil_", "celu_", "conj_physical_", "cosh_", "deg2rad_", "digamma_", "elu_", "erf_", "erfc_",
           "erfinv_", "exp2_", "expm1_", "fix_", "floor_", "frac_", "i0_", "lgamma_", "log10_", "log1p_", "log2_", "logit_",
           "nan_to_num_", "negative_", "rad2deg_", "reciprocal_", "round_", "rsqrt_", "selu_", "sgn_", "sign_", "sinc_",
           "sinh_", "square_", "tan_", "tril_", "triu_", "trunc_", "logical_not_"]:
    case(f"ip_{op}", op, f"Tensor.{op}", x("a", "b"), ["$x"])
case("ip_bitwise_not_", "bitwise_not_", "Tensor.bitwise_not_", x("a", "b", dt=I64), ["$x"])
case("ip_threshold_", "threshold_", "F.threshold_", x("a", "b"), ["$x", 0.1, 0.0])
case("ip_rrelu_", "rrelu_", "F.rrelu_", x("a", "b"), ["$x"])
case("ip_alpha_dropout_", "alpha_dropout_", "torch.alpha_dropout_", x("a", "b"), ["$x", 0.5, False])
case("ip_feature_alpha_dropout_", "feature_alpha_dropout_", "torch.feature_alpha_dropout_", x("a", "b", "c"), ["$x", 0.5, False])
case("ip_feature_dropout_", "feature_dropout_", "torch.feature_dropout_", x("a", "b", "c"), ["$x", 0.5, False])
for op in ["arctan2_", "atan2_", "copysign_", "divide_", "eq_", "float_power_", "floor_divide_", "ge_", "greater_",
           "greater_equal_", "gt_", "heaviside_", "hypot_", "igamma_", "igammac_", "le_", "less_", "less_equal_",
           "logical_and_", "logical_or_", "logical_xor_", "lt_", "multiply_", "ne_", "nextafter_", "not_equal_", "subtract_",
           "true_divide_", "xlogy_"]:
    if op == "float_power_":
        IPX = {"x": (F32 if False else "float64", ["a", "b"]), "y": ("float64", ["c", "d"])}
    else:
        IPX = {"x": (F32, ["a", "b"]), "y": (F32, ["c", "d"])}
    case(f"ip_{op}", op, f"Tensor.{op}", IPX, ["$x", "$y"], sizes={"c": (1, 3), "d": (1, 3)})
for op in ["bitwise_and_", "bitwise_left_shift_", "bitwise_or_", "bitwise_right_shift_", "bitwise_xor_", "gcd_", "lcm_"]:
    case(f"ip_{op}", op, f"Tensor.{op}", {"x": (I64, ["a", "b"]), "y": (I64, ["c", "d"])}, ["$x", "$y"], sizes={"c": (1, 3), "d": (1, 3)})
case("ip_ldexp_", "ldexp_", "Tensor.ldexp_", {"x": (F32, ["a", "b"]), "y": (I64, ["c"])}, ["$x", "$y"], sizes={"c": (1, 3)})
case("ip_masked_scatter_", "masked_scatter_", "Tensor.masked_scatter_", {"x": (F32, ["a", "b"]), "m": (B, ["c", "b"])}, ["$x", "$m", "$s"],
     params={"s": (F32, [64])}, sizes={"c": (1, 3)})

# ---------------------------------------------------------------- ops_extra.c
case("broadcast_to", "broadcast_to", "torch.broadcast_to", x("a", 1), ["$x", [3, {"size": ["x", 0]}, 4]], sizes={"a": (1, 3)})
case("broadcast_tensors", "broadcast_tensors", "torch.broadcast_tensors", {"a": (F32, ["i", 1]), "b": (F32, ["j"])}, ["$a", "$b"])
for k in [1, 2, 3]:
    case(f"atleast_{k}d", f"atleast_{k}d", f"torch.atleast_{k}d", x("a"), ["$x"])
    case(f"atleast_{k}d_0d", f"atleast_{k}d", f"torch.atleast_{k}d", x(), ["$x"], sizes={})
case("atleast_3d_2d", "atleast_3d", "torch.atleast_3d", x("a", "b"), ["$x"])
case("hstack", "hstack", "torch.hstack", {"a": (F32, ["i", "j"]), "b": (F32, ["k", "l"])}, [["$a", "$b"]])
case("hstack_1d", "hstack", "torch.hstack", {"a": (F32, ["i"]), "b": (F32, ["k"])}, [["$a", "$b"]])
case("vstack", "vstack", "torch.vstack", {"a": (F32, ["i"]), "b": (F32, ["k", "l"])}, [["$a", "$b"]])
case("row_stack", "row_stack", "torch.row_stack", {"a": (F32, ["i", "j"]), "b": (F32, ["k", "l"])}, [["$a", "$b"]])
case("dstack", "dstack", "torch.dstack", {"a": (F32, ["i", "j"]), "b": (F32, ["k", "l", "m"])}, [["$a", "$b"]])
case("mv", "mv", "torch.mv", {"a": (F32, ["n", "m"]), "v": (F32, ["k"])}, ["$a", "$v"])
case("dot", "dot", "torch.dot", {"a": (F32, ["n"]), "b": (F32, ["m"])}, ["$a", "$b"])
case("vdot", "vdot", "torch.vdot", {"a": (F32, ["n"]), "b": (F32, ["m"])}, ["$a", "$b"])
case("inner", "inner", "torch.inner", {"a": (F32, ["n", "m"]), "b": (F32, ["p", "q", "r"])}, ["$a", "$b"])
case("trace", "trace", "torch.trace", x("a", "b"), ["$x"])
case("rot90", "rot90", "torch.rot90", x("a", "b", "c"), ["$x", 1, [0, 2]])
case("rot90_k2", "rot90", "torch.rot90", x("a", "b"), ["$x", -2])
case("nansum", "nansum", "torch.nansum", x("a", "b"), ["$x", 1])
case("nanmean", "nanmean", "torch.nanmean", x("a", "b", "c"), ["$x", [0, 2]], {"keepdim": True})
case("count_nonzero", "count_nonzero", "torch.count_nonzero", x("a", "b"), ["$x"], {"dim": 0})
case("aminmax", "aminmax", "torch.aminmax", x("a", "b"), ["$x"])
case("aminmax_dim", "aminmax", "torch.aminmax", x("a", "b"), ["$x"], {"dim": 1, "keepdim": True})
for op in ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss"]:
    for red in ["none", "sum"]:
        case(f"{op}_{red}", op, f"F.{op}", {"x": (F32, ["a", "b"]), "t": (F32, ["c", "b"])}, ["$x", "$t"], {"reduction": red},
             sizes={"c": (1, 3)})
case("kl_div_batchmean", "kl_div", "F.kl_div", {"x": (F32, ["a", "b"]), "t": (F32, ["c", "b"])}, ["$x", "$t"], {"reduction": "batchmean"},
     sizes={"c": (1, 3)})
case("kl_div_none", "kl_div", "F.kl_div", {"x": (F32, ["a", "b"]), "t": (F32, ["c", "b"])}, ["$x", "$t"], {"reduction": "none"},
     sizes={"c": (1, 3)})
case("bce_none", "binary_cross_entropy", "F.binary_cross_entropy", {"prob": (F32, ["a", "b"]), "probt": (F32, ["c", "b"])}, ["$prob", "$probt"],
     {"reduction": "none"}, sizes={"c": (1, 3)})
case("bce_logits", "binary_cross_entropy_with_logits", "F.binary_cross_entropy_with_logits", {"x": (F32, ["a", "b"]), "t": (F32, ["c", "b"])},
     ["$x", "$t"], sizes={"c": (1, 3)})
case("cosine_similarity", "cosine_similarity", "F.cosine_similarity", {"a": (F32, ["n", "m"]), "b": (F32, ["k", "m"])}, ["$a", "$b"],
     sizes={"k": (1, 3)})
case("cosine_similarity_dim0", "cosine_similarity", "F.cosine_similarity", {"a": (F32, ["n", "m"]), "b": (F32, ["m"])}, ["$a", "$b", 0])
case("pairwise_distance", "pairwise_distance", "F.pairwise_distance", {"a": (F32, ["n", "m"]), "b": (F32, ["k", "m"])}, ["$a", "$b"],
     sizes={"k": (1, 3)})
case("rand", "rand", "torch.rand", x("a", "b"), [{"size": ["x", 0]}, 3])
case("randn_list", "randn", "torch.randn", x("a", "b"), [[{"size": ["x", 1]}, 2]])
case("randint", "randint", "torch.randint", x("a", "b"), [0, 5, {"tuple": [{"size": ["x", 0]}]}])
for w in ["hann_window", "hamming_window", "bartlett_window", "blackman_window", "kaiser_window"]:
    case(w, w, f"torch.{w}", x("a"), [{"size": ["x", 0]}])
case("unflatten", "unflatten", "torch.unflatten", x("a", "b"), ["$x", 1, [2, -1]], sizes={"b": (0, 9)})
case("unflatten_exact", "unflatten", "torch.unflatten", x("a", "b"), ["$x", 0, [2, 3]], sizes={"a": (4, 8)})
case("split_with_sizes", "split_with_sizes", "torch.split_with_sizes", x("a", "b"), ["$x", [2, 3], 1], sizes={"b": (4, 6)})
case("take", "take", "torch.take", {"x": (F32, ["a", "b"]), "i": (I64, ["c", "d"])}, ["$x", "$i"])
case("index_add", "index_add", "torch.index_add", {"x": (F32, ["a", "b"]), "i": (I64, ["c"]), "s": (F32, ["d", "e"])}, ["$x", 1, "$i", "$s"],
     sizes={"c": (0, 3), "d": (0, 3), "e": (0, 3)})
case("index_copy", "index_copy", "torch.index_copy", {"x": (F32, ["a", "b"]), "i": (I64, ["c"]), "s": (F32, ["d", "e"])}, ["$x", 0, "$i", "$s"],
     sizes={"c": (0, 1), "d": (0, 1), "e": (0, 3)})
case("index_fill", "index_fill", "torch.index_fill", {"x": (F32, ["a", "b"]), "i": (I64, ["c"])}, ["$x", 1, "$i", 2.0])
case("msort", "msort", "torch.msort", x("a", "b"), ["$x"])
for op in ["byte", "char", "short", "int", "bfloat16", "cfloat", "cdouble"]:
    case(f"conv_{op}", op, f"Tensor.{op}", x("a", "b"), ["$x"])
case("ravel", "ravel", "torch.ravel", x("a", "b", "c"), ["$x"])
case("normalize", "normalize", "F.normalize", x("a", "b"), ["$x"])
case("normalize_1d", "normalize", "F.normalize", x("a"), ["$x"], {"dim": 0})
case("rsub", "rsub", "torch.rsub", {"x": (F32, ["a", 1]), "y": (F32, ["b"])}, ["$x", "$y"])

# ---------------------------------------------------------------- found by the adversarial pass of issue 31
# layer_norm's weight and bias must have normalized_shape's sizes (_check_layer_norm_inputs)
case("layer_norm_weight_bias", "layer_norm", "F.layer_norm", x("a", "b"), ["$x", [{"size": ["x", 1]}], "$w", "$bb"],
     params={"w": (F32, [4]), "bb": (F32, [4])}, sizes={"b": (2, 6)})
