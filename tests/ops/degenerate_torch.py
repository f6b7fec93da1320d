#!/usr/bin/python3
"""Degenerate integer (and a few float) arguments of the ops of issue 12 - ctest
'degenerate_args' (LABEL python). Issue 10, item "degenerate arguments".

Each row is one call with one bad argument (zero or negative sizes, factors, groups, kernel /
stride / dilation, layer counts, dims out of range, chunks <= 0, ...). For each row:
  1. symshape's trace must fail with exactly the listed message (after the "node 'o' (OP): "
     prefix), never a raw "division by zero", a Mod/FloorDiv text or a wrong shape;
  2. real PyTorch (CPU) must raise too, with a message containing the listed torch text.
Usage: degenerate_torch.py   (SYMSHAPE_LIB names the library; the package is ../../python)
"""
import os
import re
import sys

if os.environ.get("SY_SKIP_TORCH_TESTS") == "1":  # explicit opt-out only: a missing torch is a failure
    print("skipped: SY_SKIP_TORCH_TESTS=1")
    sys.exit(77)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import symshape  # noqa: E402

X = {"ref": "x"}


def P(name, shape):
    return {"name": name, "op": "param", "dtype": "float32", "shape": shape}


LSTM_P = [P("a", [16, 5]), P("b", [16, 4]), P("c", [16]), P("d", [16])]
LSTM_REFS = [{"ref": n} for n in "abcd"]
W134 = [P("w", [4, 4, 3])]

# torch 2.x on x86 runs torch.lstm through oneDNN (mkldnn_rnn), which does not check the weights'
# shapes: a malformed weight list runs there. No nn.LSTM can hold such weights; symshape keeps the
# checks of the reference kernel (_lstm_impl, RNN.cpp) and rejects them (stricter, never unsound).
RUNS_ONEDNN = "<runs: oneDNN LSTM, torch 2.x>"

# (name, x shape, x dtype, params, op, args, kwargs, symshape message, torch call or None, torch text)
# torch text: a string, or a tuple of alternatives (1.13's and 2.x's wording of one check)
# torch call: a function of (x, params dict); None: F.<op> / torch.<op> / Tensor.<op> with the same arguments.
CASES = [
    ("pixel_shuffle_zero", [1, 8, 3, 3], "float32", [], "pixel_shuffle", [X, 0], {},
     "pixel_shuffle expects a positive upscale_factor, but got 0", None, "expects a positive upscale_factor, but got 0"),
    ("pixel_shuffle_negative", [1, 8, 3, 3], "float32", [], "pixel_shuffle", [X, -2], {},
     "pixel_shuffle expects a positive upscale_factor, but got -2", None, "expects a positive upscale_factor, but got -2"),
    ("pixel_unshuffle_zero", [1, 8, 4, 4], "float32", [], "pixel_unshuffle", [X, 0], {},
     "pixel_unshuffle expects a positive downscale_factor, but got 0", None, "expects a positive downscale_factor, but got 0"),
    ("channel_shuffle_zero", [1, 8, 4, 4], "float32", [], "channel_shuffle", [X, 0], {},
     "Number of groups to divide channels in must be positive. Value of groups:0", None, "must be positive. Value of groups:0"),
    ("channel_shuffle_negative", [1, 8, 4, 4], "float32", [], "channel_shuffle", [X, -2], {},
     "Number of groups to divide channels in must be positive. Value of groups:-2", None, "Value of groups:-2"),
    ("channel_shuffle_indivisible", [1, 8, 4, 4], "float32", [], "channel_shuffle", [X, 3], {},
     "Number of channels must be divisible by groups. Got 8 channels and 3 groups.", None, "Got 8 channels and 3 groups"),
    ("local_response_norm_size_zero", [1, 8, 4, 4], "float32", [], "local_response_norm", [X, 0], {},
     "avg_pool: kernel size should be greater than zero, but got 0", None, "kernel size should be greater than zero"),
    ("glu_dim_out_of_range", [4, 6], "float32", [], "glu", [X, 2], {},
     "Dimension out of range (expected to be in range of [-2, 1], but got 2)", None, "Dimension out of range"),
    ("glu_odd", [4, 5], "float32", [], "glu", [X, 1], {},
     "Halving dimension must be even, but dimension 1 is size 5", None, "Halving dimension must be even"),
    ("topk_negative_k", [4, 6], "float32", [], "topk", [X, -1], {}, "selected index k out of range", None,
     "selected index k out of range"),
    ("topk_k_too_large", [4, 6], "float32", [], "topk", [X, 7], {}, "selected index k out of range", None,
     "selected index k out of range"),
    ("kthvalue_zero", [4, 6], "float32", [], "kthvalue", [X, 0], {},
     "kthvalue(): selected number k out of range for dimension 1", None, "selected number k out of range"),
    ("tensor_unfold_step_zero", [4, 6], "float32", [], "unfold", [X, 1, 2, 0], {}, "step is 0 but must be > 0",
     lambda x, p: x.unfold(1, 2, 0), "step is 0 but must be > 0"),
    ("tensor_unfold_size_too_large", [4, 6], "float32", [], "unfold", [X, 1, 7, 1], {},
     "maximum size for tensor at dimension 1 is 6 but size is 7", lambda x, p: x.unfold(1, 7, 1),
     "maximum size for tensor at dimension 1 is 6 but size is 7"),
    ("im2col_kernel_zero", [1, 2, 6, 6], "float32", [], "unfold", [X], {"kernel_size": 0},
     "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0", None,
     "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0"),
    ("im2col_stride_zero", [1, 2, 6, 6], "float32", [], "unfold", [X], {"kernel_size": 2, "stride": 0},
     "stride should be greater than zero, but got stride_height: 0 stride_width: 0", None,
     "stride should be greater than zero, but got stride_height: 0 stride_width: 0"),
    ("im2col_dilation_zero", [1, 2, 6, 6], "float32", [], "unfold", [X], {"kernel_size": 2, "dilation": 0},
     "dilation should be greater than zero, but got dilation_height: 0 dilation_width: 0", None,
     "dilation should be greater than zero, but got dilation_height: 0 dilation_width: 0"),
    ("im2col_padding_negative", [1, 2, 6, 6], "float32", [], "unfold", [X], {"kernel_size": 2, "padding": -1},
     "padding should be non-negative, but got pad_height: -1 pad_width: -1", None,
     "padding should be non-negative, but got pad_height: -1 pad_width: -1"),
    ("col2im_kernel_zero", [1, 8, 9], "float32", [], "fold", [X, [4, 4]], {"kernel_size": 0},
     "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0", None,
     "kernel size should be greater than zero"),
    ("col2im_stride_zero", [1, 8, 9], "float32", [], "fold", [X, [4, 4]], {"kernel_size": 2, "stride": 0},
     "stride should be greater than zero, but got stride_height: 0 stride_width: 0", None, "stride should be greater than zero"),
    ("diagonal_same_dims", [4, 6], "float32", [], "diagonal", [X, 0, 0, 0], {},
     "diagonal dimensions cannot be identical 0, 0", None, "diagonal dimensions cannot be identical 0, 0"),
    ("cumsum_dim_out_of_range", [4, 6], "float32", [], "cumsum", [X, -3], {},
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)", None,
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    ("flip_repeated_dim", [4, 6], "float32", [], "flip", [X, [0, 0]], {},
     "dim 0 appears multiple times in the list of dims", None, "dim 0 appears multiple times in the list of dims"),
    ("repeat_negative", [4, 6], "float32", [], "repeat", [X, -1, 1], {},
     "Trying to create tensor with negative dimension -1", None, "Trying to create tensor with negative dimension"),
    ("repeat_too_few", [4, 6], "float32", [], "repeat", [X, 1], {},
     "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor", None,
     "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"),
    ("repeat_interleave_negative", [4, 6], "float32", [], "repeat_interleave", [X, -1], {},
     "repeats can not be negative", None, ("repeats can not be negative", "Repeats must be non-negative")),
    ("tensor_split_zero", [4, 6], "float32", [], "tensor_split", [X, 0], {},
     "number of sections must be larger than 0, got 0", None, "number of sections must be larger than 0, got 0"),
    ("chunk_zero", [4, 6], "float32", [], "chunk", [X, 0], {},
     "chunk expects `chunks` to be greater than 0, got: 0", None, "chunk expects `chunks` to be greater than 0, got: 0"),
    ("chunk_negative", [4, 6], "float32", [], "chunk", [X, -1], {},
     "chunk expects `chunks` to be greater than 0, got: -1", None, "got: -1"),
    ("split_size_zero", [4, 6], "float32", [], "split", [X, 0], {},
     "split_size can only be 0 if dimension size is 0, but got dimension size of 4", None,
     "split_size can only be 0 if dimension size is 0, but got dimension size of 4"),
    ("split_size_negative", [4, 6], "float32", [], "split", [X, -1], {},
     "split expects split_size be non-negative", None, "split expects split_size be non-negative"),
    ("split_with_sizes_negative", [4, 6], "float32", [], "split_with_sizes", [X, [2, -1]], {},
     "split_with_sizes expects split_sizes have only non-negative entries", None,
     "split_with_sizes expects split_sizes have only non-negative entries"),
    ("movedim_repeated", [4, 6], "float32", [], "movedim", [X, [0, 0], [1, 0]], {},
     "repeated dim in `source`", None, "movedim: repeated dim in `source`"),
    ("rot90_same_dims", [4, 6], "float32", [], "rot90", [X, 1, [0, 0]], {},
     "expected rotation dims to be different, but got dim0 = 0 and dim1 = 0", None,
     "expected rotation dims to be different, but got dim0 = 0 and dim1 = 0"),
    ("unflatten_wrong_product", [4, 6], "float32", [], "unflatten", [X, 1, [4, 2]], {},
     "Provided sizes don't multiply up to the size of dim 1 (6) in the input tensor", None,
     "don't multiply up to the size of dim 1 (6) in the input tensor"),
    ("narrow_negative_length", [4, 6], "float32", [], "narrow", [X, 1, 0, -1], {},
     "narrow(): length must be non-negative.", None,
     ("start (0) + length (-1) exceeds dimension size (6)", "narrow(): length must be non-negative.")),
    ("eye_negative_n", [1], "float32", [], "eye", [-1], {}, "n must be greater or equal to 0, got -1",
     lambda x, p: torch.eye(-1), "n must be greater or equal to 0, got -1"),
    ("eye_negative_m", [1], "float32", [], "eye", [3, -1], {}, "m must be greater or equal to 0, got -1",
     lambda x, p: torch.eye(3, -1), "m must be greater or equal to 0, got -1"),
    ("linspace_negative_steps", [1], "float32", [], "linspace", [0, 1, -1], {}, "number of steps must be non-negative",
     lambda x, p: torch.linspace(0, 1, -1), "number of steps must be non-negative"),
    ("hann_window_negative", [1], "float32", [], "hann_window", [-1], {},
     "hann_window requires non-negative window_length, got window_length=-1", lambda x, p: torch.hann_window(-1),
     "hann_window requires non-negative window_length, got window_length=-1"),
    ("tril_indices_negative_row", [1], "float32", [], "tril_indices", [-1, 3], {}, "row must be non-negative, got-1",
     lambda x, p: torch.tril_indices(-1, 3), "row must be non-negative, got-1"),
    ("arange_step_zero", [1], "float32", [], "arange", [0, 10, 0], {}, "step must be nonzero",
     lambda x, p: torch.arange(0, 10, 0), "step must be nonzero"),
    ("zeros_negative", [1], "float32", [], "zeros", [-1], {}, "Trying to create tensor with negative dimension -1",
     lambda x, p: torch.zeros(-1), ("Trying to create tensor with negative dimension -1", "Dimension size must be non-negative")),
    ("stft_hop_zero", [2, 100], "float32", [], "stft", [X, 16], {"hop_length": 0, "return_complex": True},
     "expected hop_length > 0, but got hop_length=0", None, "expected hop_length > 0, but got hop_length=0"),
    ("stft_win_length_too_large", [2, 100], "float32", [], "stft", [X, 16], {"win_length": 17, "return_complex": True},
     "expected 0 < win_length <= n_fft, but got win_length=17", None, "expected 0 < win_length <= n_fft"),
    ("one_hot_negative_classes", [4, 6], "int64", [], "one_hot", [X, -2], {}, "Class values must be smaller than num_classes.",
     None, "Class values must be smaller than num_classes."),
    ("bincount_negative_minlength", [6], "int64", [], "bincount", [X], {"minlength": -1}, "minlength should be >= 0", None,
     "minlength should be >= 0"),
    ("max_pool1d_kernel_zero", [1, 4, 6], "float32", [], "max_pool1d", [X, 0], {}, "kernel size should be greater than zero",
     None, "kernel_size must be greater than zero"),
    ("max_pool1d_stride_zero", [1, 4, 6], "float32", [], "max_pool1d", [X, 2], {"stride": 0}, "stride should be greater than zero",
     None, "stride must be greater than zero"),
    ("avg_pool1d_pad_too_large", [1, 4, 6], "float32", [], "avg_pool1d", [X, 2], {"padding": 2},
     "pad should be at most half of effective kernel size", None,
     ("pad should be at most half of kernel size", "pad should be at most half of effective kernel size")),
    ("conv1d_groups_zero", [1, 4, 6], "float32", W134, "conv1d", [X, {"ref": "w"}], {"groups": 0},
     "non-positive groups is not supported", None, "non-positive groups is not supported"),
    ("conv1d_stride_zero", [1, 4, 6], "float32", W134, "conv1d", [X, {"ref": "w"}], {"stride": 0},
     "non-positive stride is not supported", None, "non-positive stride is not supported"),
    ("conv1d_dilation_zero", [1, 4, 6], "float32", W134, "conv1d", [X, {"ref": "w"}], {"dilation": 0},
     "dilation should be greater than zero", None, "dilation should be greater than zero"),
    ("conv_transpose1d_stride_zero", [1, 4, 6], "float32", W134, "conv_transpose1d", [X, {"ref": "w"}], {"stride": 0},
     "non-positive stride is not supported", None, "non-positive stride is not supported"),
    ("conv_transpose1d_padding_negative", [1, 4, 6], "float32", W134, "conv_transpose1d", [X, {"ref": "w"}], {"padding": -1},
     "negative padding is not supported", None, "negative padding is not supported"),
    ("group_norm_groups_zero", [2, 4, 5], "float32", [], "group_norm", [X, 0], {},
     "num_groups must be a positive integer (Expected num groups to be greater than 0), got 0", None,
     "integer division or modulo by zero"),  # F.group_norm's own check divides first
    ("group_norm_indivisible", [2, 4, 5], "float32", [], "group_norm", [X, 3], {},
     "Expected number of channels in input to be divisible by num_groups, but got 4 channels and num_groups=3",
     None, "Expected number of channels in input to be divisible by num_groups"),
    ("layer_norm_empty_shape", [2, 3, 4], "float32", [], "layer_norm", [X, []], {},
     "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []",
     None, "Expected normalized_shape to be at least 1-dimensional"),
    ("batch_norm_training_one_value", [1, 3, 1, 1], "float32", [], "batch_norm", [X, None, None], {"training": True},
     "Expected more than 1 value per channel when training, got input size (1, 3, 1, 1)", None,
     "Expected more than 1 value per channel when training, got input size torch.Size([1, 3, 1, 1])"),
    ("embedding_padding_idx", [4, 6], "int64", [P("w", [5, 3])], "embedding", [X, {"ref": "w"}], {"padding_idx": 5},
     "Padding_idx must be within num_embeddings", None, "Padding_idx must be within num_embeddings"),
    ("embedding_padding_idx_negative", [4, 6], "int64", [P("w", [5, 3])], "embedding", [X, {"ref": "w"}], {"padding_idx": -6},
     "Padding_idx must be within num_embeddings", None, "Padding_idx must be within num_embeddings"),
    ("dropout_p_negative", [2, 3, 4], "float32", [], "dropout", [X, -0.1], {},
     "dropout probability has to be between 0 and 1, but got -0.1", None, "dropout probability has to be between 0 and 1"),
    ("dropout_p_above_one_eval", [2, 3, 4], "float32", [], "dropout", [X, 1.5], {"training": False},
     "dropout probability has to be between 0 and 1, but got 1.5", None, "dropout probability has to be between 0 and 1"),
    ("celu_alpha_zero", [2, 3, 4], "float32", [], "celu", [X], {"alpha": 0.0}, "ZeroDivisionError: alpha cannot be 0 for CELU",
     None, "alpha cannot be 0 for CELU"),
    ("rrelu_bounds", [2, 3, 4], "float32", [], "rrelu", [X, 0.5, 0.1], {},
     "Lower bound should be less than or equal to the upper bound", None, "Lower bound should be less than or equal to the upper bound"),
    ("mha_num_heads_zero", [2, 4, 6], "float32", [], "multi_head_attention_forward",
     [X, X, X, 6, 0, None, None, None, None, False, 0.0, None, None], {}, "num_heads must be a positive integer, got 0", None,
     "integer division or modulo by zero"),
    ("lstm_num_layers_zero", [7, 3, 5], "float32", LSTM_P, "lstm", [X, [], LSTM_REFS, True, 0, 0.0, False, False, False], {},
     "num_layers must be at least 1, got 0",
     lambda x, p: torch.lstm(x, [torch.zeros(1, 3, 4)] * 2, [p[n] for n in "abcd"], True, 0, 0.0, False, False, False),
     ("Expected more hidden states in stacked_rnn", "stack expects a non-empty TensorList")),
    ("lstm_gates_indivisible", [7, 3, 5], "float32", [P("a", [15, 5]), P("b", [15, 4]), P("c", [15]), P("d", [15])], "lstm",
     [X, [], LSTM_REFS, True, 1, 0.0, False, False, False], {}, "weight_ih_l0 has 15 rows, not a multiple of the 4 gates",
     lambda x, p: torch.lstm(x, [torch.zeros(1, 3, 4)] * 2, [p[n] for n in "abcd"], True, 1, 0.0, False, False, False),
     ("must match the size of tensor b", RUNS_ONEDNN)),
    ("lstm_weight_hh_shape", [7, 3, 5], "float32", [P("a", [16, 5]), P("b", [16, 3]), P("c", [16]), P("d", [16])], "lstm",
     [X, [], LSTM_REFS, True, 1, 0.0, False, False, False], {}, "params[1] (weight_hh_l0) must have shape (16, 4), got (16, 3)",
     lambda x, p: torch.lstm(x, [torch.zeros(1, 3, 4)] * 2, [p[n] for n in "abcd"], True, 1, 0.0, False, False, False),
     ("mat1 and mat2 shapes cannot be multiplied", RUNS_ONEDNN)),
    ("lstm_bias_shape", [7, 3, 5], "float32", [P("a", [16, 5]), P("b", [16, 4]), P("c", [12]), P("d", [16])], "lstm",
     [X, [], LSTM_REFS, True, 1, 0.0, False, False, False], {}, "params[2] (bias_ih_l0) must have shape (16,), got (12,)",
     lambda x, p: torch.lstm(x, [torch.zeros(1, 3, 4)] * 2, [p[n] for n in "abcd"], True, 1, 0.0, False, False, False),
     ("The expanded size of the tensor (16) must match the existing size (12)",
      "The size of tensor a (12) must match the size of tensor b (16)")),
    ("gru_weight_hh_shape", [7, 3, 5], "float32", [P("a", [12, 5]), P("b", [12, 5])], "gru",
     [X, [], [{"ref": "a"}, {"ref": "b"}], False, 1, 0.0, False, False, False], {},
     "params[1] (weight_hh_l0) must have shape (12, 4), got (12, 5)",
     lambda x, p: torch.gru(x, torch.zeros(1, 3, 4), [p["a"], p["b"]], False, 1, 0.0, False, False, False),
     "mat1 and mat2 shapes cannot be multiplied"),
]


def graph(shape, dtype, params, op, args, kwargs):
    nodes = [{"name": "x", "op": "input", "dtype": dtype, "shape": shape, "dynamic": []}] + params + \
        [{"name": "o", "op": op, "args": args, "kwargs": kwargs}]
    return {"format": "symshape.graph", "version": 1, "torch_version": torch.__version__, "name": "degenerate", "nodes": nodes, "outputs": [{"ref": "o"}]}


def torch_arg(a, env):
    if isinstance(a, dict) and "ref" in a:
        return env[a["ref"]]
    if isinstance(a, list):
        return [torch_arg(v, env) for v in a]
    return a


def torch_error(shape, dtype, params, op, args, kwargs, call):
    x = torch.randn(*shape) if dtype == "float32" else torch.zeros(*shape, dtype=getattr(torch, dtype))
    p = {n["name"]: torch.randn(*n["shape"]) for n in params}
    env = dict(p, x=x)
    try:
        if call is not None:
            call(x, p)
        else:
            fn = getattr(F, op, None) or getattr(torch, op, None) or getattr(torch.Tensor, op)
            fn(*[torch_arg(a, env) for a in args], **{k: torch_arg(v, env) for k, v in kwargs.items()})
    except Exception as e:  # what torch raises: RuntimeError, ValueError, IndexError, AssertionError, ZeroDivisionError
        return "%s: %s" % (type(e).__name__, e)
    return None


failures = []
stricter = []
names = set()
for name, shape, dtype, params, op, args, kwargs, want, call, ttext in CASES:
    assert name not in names, name
    names.add(name)
    try:
        symshape.trace(graph(shape, dtype, params, op, args, kwargs))
        got = None
    except symshape.Error as e:
        got = str(e)
    prefix = "node 'o' (%s): " % op
    if got is None:
        failures.append("%s: symshape accepts (torch: %s)" % (name, torch_error(shape, dtype, params, op, args, kwargs, call)))
        continue
    msg = got[len(prefix):] if got.startswith(prefix) else got
    head = msg.split(": ", 1)[0]
    if ": " in msg and re.fullmatch(r"[a-z_0-9]+", head):  # the op's own prefix ("chunk: ", "split: " for split_with_sizes)
        msg = msg.split(": ", 1)[1]
    if msg != want:
        failures.append("%s: symshape says %r, expected %r" % (name, msg, want))
    terr = torch_error(shape, dtype, params, op, args, kwargs, call)
    alts = ttext if isinstance(ttext, tuple) else (ttext,)
    if terr is None and RUNS_ONEDNN in alts and int(torch.__version__.split(".")[0]) >= 2:
        stricter.append(name)
    elif terr is None:
        failures.append("%s: torch runs, symshape rejects with %r" % (name, msg))
    elif not any(t in terr for t in alts if t != RUNS_ONEDNN):
        failures.append("%s: torch raises %r, expected it to contain %r" % (name, terr[:200], ttext))
    for raw in ("division by zero", "Mod(", "FloorDiv("):
        if raw in msg and "ZeroDivisionError" not in msg:
            failures.append("%s: raw message %r" % (name, msg))
print("torch %s: %d degenerate-argument cases, %d failures; %d where torch's oneDNN LSTM runs malformed weights "
      "that symshape rejects (%s)" % (torch.__version__, len(CASES), len(failures), len(stricter), ", ".join(stricter)))
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
