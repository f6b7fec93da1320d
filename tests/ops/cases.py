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
case("fold", "fold", "F.fold", x("n", "k", "l"), ["$x", [4, 5], [2, 2]], sizes={"n": (0, 2), "k": (3, 9), "l": (10, 13)})
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
