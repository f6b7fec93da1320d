"""torch.export programs in: an ``ExportedProgram`` (PyTorch 2.x, ATen level, normally after
``ep.run_decompositions()``) to a symshape graph document (docs/graph-format.md, version 1,
the same format symshape.export writes), so that trace() gives its guard set (docs/python.md
"torch.export programs").

What is read, and how:
  * placeholders, by the program's graph signature: USER_INPUT tensors become ``input`` nodes
    whose sizes are the example (the shape environment's hint of each symbol); PARAMETER,
    BUFFER and CONSTANT_TENSOR placeholders become ``param`` nodes; a non-tensor user input
    (export specializes it) a ``constant``;
  * the symbolic sizes in ``meta["val"]`` become the input's dynamic-dim spec: a dim whose size
    is a symbol is dynamic and named (the user's ``Dim`` name where the shape environment has
    it, else the symbol's name), so dims sharing a symbol share it; a static dim stays static;
    the symbol's range in ``ep.range_constraints`` is the declared ``[min, max]``. A dim whose
    size is an expression of symbols (a derived ``Dim``, ``2*h``) gets its own name and an
    ``_assert`` tying it to the others;
  * the program's validity domain is written before the first op: ``_assert`` nodes of every
    derived-dim relation, and ``guard_bool`` nodes (the conditions torch.export traced the
    program under, its decisions and policies, not checks of the model) of every range
    constraint and every guard of
    ``ep._guards_code`` (the guards ``ExportedProgram.module()`` checks on its inputs, which
    include what export decided from the model's Python control flow; without them a point the
    program was never traced for could be accepted). ``program_guards=False`` leaves the last
    group out (for the guard-for-guard comparison only: the result may then accept sizes where
    the model takes another branch);
  * ATen calls go through ATEN_TABLE (one entry per op: the engine op, how the arguments are
    rearranged); ops listed in ATEN_REJECTED raise ExportError naming the op and the reason;
    an ATen op in neither whose name is an engine op is passed through with its arguments (the
    non-core ops the engine has); anything else raises ExportError naming it;
  * SymInt nodes: ``sym_size.int``/``sym_numel``/``sym_stride.int`` are ``size``/``numel``/
    ``stride``; Python operators on SymInts (``operator.add``, ``torch.sym_max``, ...) are the
    engine's scalar ops; ``_assert_scalar`` is ``_assert``; ``sym_constrain_range(_for_size)``
    and ``_check_is_size`` become ``_assert`` of their bounds (a runtime assert and a fact on an
    unbacked symbol); ``_local_scalar_dense`` is ``item`` (an unbacked symbol).

Only public torch API is used, except ``ep._guards_code`` (read when present; the module's
docstring above says why) and the shape environment reached through a SymInt's ``.node``
(``shape_env.var_to_val`` for the hints, ``source_name_to_debug_name`` for the Dim names).
"""
import ast
import math
import operator
import re
import sys

from .errors import ExportError

__all__ = ["from_exported", "ATEN_TABLE", "ATEN_REJECTED", "core_aten_ops", "aten_status"]

_ID_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_INT64_MAX = 2 ** 63 - 1


# ----------------------------------------------------------------------------- the ATen table
# Each entry: packet name -> handler(cx, node, args, kwargs) returning the graph value of the
# node (a {"ref": ...} or a tuple of them for ops whose ATen result is a tuple the engine's op
# does not return). ``args`` / ``kwargs`` are already graph VALUEs (refs and literals).

def _drop(kwargs, *names):
    return {k: v for k, v in kwargs.items() if k not in names and k not in _IGNORED_KW}


#: keyword arguments of ATen factories and conversions that say where or how memory is
#: allocated, not what shape it has
_IGNORED_KW = ("device", "layout", "pin_memory", "non_blocking", "requires_grad", "generator")


def _same(name, npos=None, rename=None):
    """The engine op ``name`` with the ATen arguments in the same order (the Python signature
    of torch.NAME / Tensor.NAME is the ATen schema's for these ops); ``npos`` keeps the first
    positional arguments only; ``rename`` maps ATen keyword names to the engine's."""
    def h(cx, node, args, kwargs):
        a = list(args if npos is None else args[:npos])
        kw = _drop(kwargs, "memory_format")
        if rename:
            kw = {rename.get(k, k): v for k, v in kw.items()}
        if "self" in kw:  # the ATen name of the first argument
            a.insert(0, kw.pop("self"))
        return cx.emit(name, a, kw)
    h.engine = name
    return h


def _reduce(name):
    """sum/mean/amax/...(self, dim, keepdim, *, dtype): an empty or None ``dim`` reduces every
    dim (ATen's IntArrayRef[1]? opt: empty = all), which the engine spells by leaving it out."""
    def h(cx, node, args, kwargs):
        a = list(args)
        kw = _drop(kwargs)
        dim = a[1] if len(a) > 1 else kw.pop("dim", None)
        keep = a[2] if len(a) > 2 else kw.pop("keepdim", False)
        kw.pop("dim", None)
        kw.pop("keepdim", None)
        if dim is None or dim == []:
            if keep:
                # every dim reduced with keepdim: the engine's all-dims form has no keepdim, so the dims are listed
                dim = list(range(cx.rank(node.args[0])))
            else:
                return cx.emit(name, [a[0]], kw)
        return cx.emit(name, [a[0], dim, keep], kw)
    h.engine = name
    return h


def _h_var(cx, node, args, kwargs):
    a = list(args)
    kw = _drop(kwargs)
    dim = a[1] if len(a) > 1 else kw.pop("dim", None)
    corr = kw.pop("correction", 1)
    keep = kw.pop("keepdim", False)
    if dim == []:
        dim = None
    return cx.emit("var", [a[0], dim], {"correction": corr, "keepdim": keep})


def _h_conv(cx, node, args, kwargs):
    """convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
    groups) -> conv{1,2,3}d / conv_transpose{1,2,3}d, by the weight's rank."""
    names = ["input", "weight", "bias", "stride", "padding", "dilation", "transposed", "output_padding", "groups"]
    v = dict(zip(names, args))
    v.update(kwargs)
    nd = cx.rank(node.args[1]) - 2
    if nd not in (1, 2, 3):
        raise cx.error(node, "convolution with a %d-D weight" % (nd + 2))
    if v.get("transposed"):
        return cx.emit("conv_transpose%dd" % nd, [v["input"], v["weight"], v["bias"], v["stride"], v["padding"],
                                                  v["output_padding"], v["groups"], v["dilation"]], {})
    return cx.emit("conv%dd" % nd, [v["input"], v["weight"], v["bias"], v["stride"], v["padding"], v["dilation"],
                                    v["groups"]], {})


def _h_bn_eval(cx, node, args, kwargs):
    """_native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var,
    momentum, eps) -> (out, save_mean, save_invstd): out is batch_norm in eval mode; the other
    two are empty ([0]) in the CPU kernel."""
    x, w, b, rm, rv = args[:5]
    out = cx.emit("batch_norm", [x, rm, rv, w, b], {"training": False})
    return (out, cx.lazy(node, "empty", [[0]], {}), cx.lazy(node, "empty", [[0]], {}))


def _h_bn_train(cx, node, args, kwargs):
    """_native_batch_norm_legit(input, weight, bias, running_mean, running_var, training,
    momentum, eps) and its no_stats overload (input, weight, bias, training, momentum, eps):
    (out, save_mean [C], save_invstd [C]) in training mode."""
    if node.target.name().endswith("no_stats"):
        x, w, b, training = args[0], args[1], args[2], args[3]
        rm = rv = None
    else:
        x, w, b, rm, rv, training = args[:6]
    out = cx.emit("batch_norm", [x, rm, rv, w, b], {"training": training})
    c = cx.lazy(node, "size", [x, 1], {})
    return (out, cx.lazy(node, "empty", [[c]], {}, after=c), cx.lazy(node, "empty", [[c]], {}, after=c))


def _h_layer_norm(cx, node, args, kwargs):
    """native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out, mean, rstd)."""
    x, shape, w, b, eps = (list(args) + [None] * 5)[:5]
    out = cx.emit("layer_norm", [x, shape, w, b, eps if eps is not None else 1e-5], {})
    return (out, cx.unsupported(node, "the mean output of native_layer_norm"),
            cx.unsupported(node, "the rstd output of native_layer_norm"))


def _h_group_norm(cx, node, args, kwargs):
    """native_group_norm(input, weight, bias, N, C, HxW, group, eps) -> (out, mean, rstd): the
    sizes N, C, HxW the decomposition passes must be the input's (asserted)."""
    x, w, b, n, c, hxw, group, eps = args[:8]
    numel = cx.emit("numel", [x], {})
    prod = cx.emit("mul", [cx.emit("mul", [n, c], {}), hxw], {})
    cx.emit("_assert", [cx.emit("eq", [prod, numel], {}), "native_group_norm: N*C*HxW must be the input's numel"], {})
    cx.emit("_assert", [cx.emit("eq", [cx.emit("size", [x, 0], {}), n], {}),
                        "native_group_norm: N must be the input's size(0)"], {})
    cx.emit("_assert", [cx.emit("eq", [cx.emit("size", [x, 1], {}), c], {}),
                        "native_group_norm: C must be the input's size(1)"], {})
    out = cx.emit("group_norm", [x, group, w, b, eps], {})
    return (out, cx.lazy(node, "empty", [[n, group]], {}), cx.lazy(node, "empty", [[n, group]], {}))


def _h_dropout(cx, node, args, kwargs):
    """native_dropout(input, p, train) -> (out, mask): both of the input's sizes."""
    x, p, train = (list(args) + [None, None, None])[:3]
    out = cx.emit("dropout", [x, p, bool(train)], {})
    return (out, cx.lazy(node, "ne", [out, 0], {}))


def _h_softmax(name):
    def h(cx, node, args, kwargs):
        return cx.emit(name, [args[0], args[1]], {})
    h.engine = name
    return h


def _h_max_pool(nd):
    def h(cx, node, args, kwargs):
        names = ["input", "kernel_size", "stride", "padding", "dilation", "ceil_mode"]
        v = {"stride": [], "padding": 0, "dilation": 1, "ceil_mode": False}
        v.update(dict(zip(names, args)))
        v.update(kwargs)
        return cx.emit("max_pool%dd" % nd, [v["input"], v["kernel_size"], v["stride"], v["padding"], v["dilation"],
                                            v["ceil_mode"], True], {})
    h.engine = "max_pool%dd" % nd
    return h


def _h_adaptive_max_pool(nd):
    # aten::adaptive_max_poolNd(self, output_size) -> (Tensor, Tensor) always, where
    # F.adaptive_max_poolNd (the engine op) returns one tensor unless return_indices=True: the
    # program's getitem(..., 0) then indexed the output's batch (issue 38, third pass)
    def h(cx, node, args, kwargs):
        v = {"output_size": None}
        v.update(dict(zip(["input", "output_size"], args)))
        v.update(kwargs)
        return cx.emit("adaptive_max_pool%dd" % nd, [v["input"], v["output_size"], True], {})
    h.engine = "adaptive_max_pool%dd" % nd
    return h


def _h_unique_consecutive(cx, node, args, kwargs):
    # aten::unique_consecutive(self, return_inverse=False, return_counts=False, dim=None)
    # -> (Tensor, Tensor, Tensor) always; the engine (torch.unique_consecutive) gives the tuple
    # only when an extra output is asked for, so ask for both
    v = {"dim": None}
    v.update(dict(zip(["input", "return_inverse", "return_counts", "dim"], args)))
    v.update(kwargs)
    return cx.emit("unique_consecutive", [v["input"], True, True, v["dim"]], {})


_h_unique_consecutive.engine = "unique_consecutive"


def _h_unique2(cx, node, args, kwargs):
    # aten::_unique2(self, sorted=True, return_inverse=False, return_counts=False)
    # -> (Tensor, Tensor, Tensor) always (torch.unique(x) exports to it): values (u) with u a
    # data-dependent length, the engine's unique (an unbacked symbol, u <= numel); inverse the
    # input's shape and counts (u) when asked for, else the empty (0,) int64 tensors of
    # aten/src/ATen/native/Unique.cpp _unique2_cpu_template (at::empty({0}), resized only when
    # return_inverse / return_counts). The engine gives the tuple only when an extra output is
    # asked for, so ask for both and read each item lazily
    v = {"sorted": True, "return_inverse": False, "return_counts": False}
    v.update(dict(zip(["input", "sorted", "return_inverse", "return_counts"], args)))
    v.update(kwargs)
    out = cx.emit("unique", [v["input"], bool(v["sorted"]), True, True, None], {})
    empty = cx.lazy(node, "zeros", [[0]], {"dtype": {"dtype": "int64"}})
    return (cx.lazy(node, "getitem", [out, 0], {}),
            cx.lazy(node, "getitem", [out, 1], {}) if v["return_inverse"] else empty,
            cx.lazy(node, "getitem", [out, 2], {}) if v["return_counts"] else empty)


_h_unique2.engine = "unique"


def _h_avg_pool(nd):
    def h(cx, node, args, kwargs):
        names = ["input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override"]
        v = {"stride": [], "padding": 0, "ceil_mode": False, "count_include_pad": True, "divisor_override": None}
        v.update(dict(zip(names, args)))
        v.update(kwargs)
        a = [v["input"], v["kernel_size"], v["stride"], v["padding"], v["ceil_mode"], v["count_include_pad"]]
        if nd > 1:  # avg_pool1d has no divisor_override
            a.append(v["divisor_override"])
        return cx.emit("avg_pool%dd" % nd, a, {})
    h.engine = "avg_pool%dd" % nd
    return h


def _h_upsample(mode, nd):
    """upsample_*.vec(input, output_size, [align_corners,] scale_factors) and the .default
    overloads (input, output_size, [align_corners,] scales...) -> interpolate."""
    def h(cx, node, args, kwargs):
        a = list(args)
        linear = mode != "nearest"
        x, size = a[0], a[1]
        ac = a[2] if linear and len(a) > 2 else kwargs.get("align_corners")
        rest = a[3:] if linear else a[2:]
        kw = {"mode": mode}
        if linear:
            kw["align_corners"] = bool(ac)
        if node.target.name().endswith(".vec"):
            scales = rest[0] if rest else kwargs.get("scale_factors")
            if size is None:
                if scales is None:
                    raise cx.error(node, "neither output_size nor scale_factors")
                kw["scale_factor"] = scales
                return cx.emit("interpolate", [x], kw)
        if size is None:
            raise cx.error(node, "no output_size")
        kw["size"] = size
        return cx.emit("interpolate", [x], kw)
    h.engine = "interpolate"
    return h


def _h_pad(mode):
    def h(cx, node, args, kwargs):
        v = [args[0], args[1]]
        if mode == "constant":
            value = args[2] if len(args) > 2 else kwargs.get("value", 0)
            return cx.emit("pad", v, {"mode": "constant", "value": value})
        return cx.emit("pad", v, {"mode": mode})
    h.engine = "pad"
    return h


def _slice_index(cx, node, dim, sl):
    """The Python index tuple selecting ``sl`` on dim ``dim`` (negative: from the end)."""
    if dim >= 0:
        return [{"slice": [None, None, None]}] * dim + [sl]
    return [{"ellipsis": True}, sl] + [{"slice": [None, None, None]}] * (-dim - 1)


def _h_slice(cx, node, args, kwargs):
    """slice.Tensor(self, dim=0, start=None, end=None, step=1): Python slicing of that dim
    (both clamp the bounds and wrap negative ones; step must be positive)."""
    names = ["self", "dim", "start", "end", "step"]
    v = {"dim": 0, "start": None, "end": None, "step": 1}
    v.update(dict(zip(names, args)))
    v.update(kwargs)
    dim = cx.const_int(node, v["dim"], "dim")
    end = None if v["end"] == _INT64_MAX else v["end"]
    start = None if v["start"] == 0 else v["start"]
    return cx.emit("getitem", [v["self"], _slice_index(cx, node, dim, {"slice": [start, end, v["step"]]})], {})


def _h_select(cx, node, args, kwargs):
    """select.int(self, dim, index)."""
    return cx.emit("select", [args[0], args[1], args[2]], {})


def _h_scatter_like(kind):
    """select_scatter(self, src, dim, index) / slice_scatter(self, src, dim, start, end, step):
    the result has self's sizes; src must have the sizes of the selected part (asserted)."""
    def h(cx, node, args, kwargs):
        if kind == "select":
            x, src, dim, index = args[:4]
            part = cx.emit("select", [x, dim, index], {})
        else:
            names = ["self", "src", "dim", "start", "end", "step"]
            v = {"dim": 0, "start": None, "end": None, "step": 1}
            v.update(dict(zip(names, args)))
            v.update(kwargs)
            x, src = v["self"], v["src"]
            part = _h_slice(cx, node, [x, v["dim"], v["start"], v["end"], v["step"]], {})
        same = cx.emit("eq", [cx.emit("size", [src], {}), cx.emit("size", [part], {})], {})
        cx.emit("_assert", [same, "%s_scatter: expected src to have a size equal to the slice of self" % kind], {})
        return cx.emit("clone", [x], {})
    h.engine = "clone"
    return h


def _h_copy(cx, node, args, kwargs):
    """copy(self, src, non_blocking): self's sizes and dtype; src must broadcast to them."""
    cx.emit("expand_as", [args[1], args[0]], {})
    return cx.emit("clone", [args[0]], {})


def _h_clone(cx, node, args, kwargs):
    """clone(self, memory_format): preserve_format (the default) is the engine's clone (dense,
    in the input's stride order); contiguous_format is contiguous(); other formats are refused
    (strides the engine does not model here)."""
    mf = kwargs.get("memory_format")
    if mf in (None, "torch.preserve_format"):
        return cx.emit("clone", [args[0]], {})
    if mf == "torch.contiguous_format":
        return cx.emit("contiguous", [args[0]], {})
    raise cx.error(node, "clone to memory format %s is not modelled" % mf)


def _h_to_copy(cx, node, args, kwargs):
    """_to_copy(self, *, dtype, layout, device, pin_memory, non_blocking, memory_format)."""
    x = _h_clone(cx, node, args, {"memory_format": kwargs.get("memory_format")})
    dt = kwargs.get("dtype")
    if dt is not None:
        return cx.emit("to", [x], {"dtype": dt})
    return x


def _h_empty_strided(cx, node, args, kwargs):
    """empty_strided(size, stride): the engine's empty is contiguous, so only contiguous
    strides are accepted (checked on the program's own symbolic strides)."""
    val = node.meta.get("val")
    if val is None or not _contiguous_val(val):
        raise cx.error(node, "empty_strided with non-contiguous strides (the engine's factories are contiguous)")
    return cx.emit("empty", [args[0]], {k: v for k, v in _drop(kwargs).items() if k == "dtype"})


def _contiguous_val(val):
    exp = 1
    for s, st in reversed(list(zip(val.shape, val.stride()))):
        if str(s) != "1" and str(st) != str(exp):
            return False
        exp = exp * s if str(exp) != "1" else s
    return True


def _h_factory(name, npos):
    def h(cx, node, args, kwargs):
        kw = {k: v for k, v in _drop(kwargs, "memory_format").items() if k == "dtype"}
        return cx.emit(name, list(args[:npos]), kw)
    h.engine = name
    return h


def _h_arange(cx, node, args, kwargs):
    kw = {k: v for k, v in _drop(kwargs).items() if k == "dtype"}
    a = list(args)
    if "start" in kwargs:
        a = [kwargs["start"]] + a
    if "end" in kwargs:
        a.append(kwargs["end"])
    if "step" in kwargs:
        a.append(kwargs["step"])
    return cx.emit("arange", a, kw)


def _h_embedding(cx, node, args, kwargs):
    """embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse) -> F.embedding(input, weight)."""
    return cx.emit("embedding", [args[1], args[0]], {})


def _h_addmm(cx, node, args, kwargs):
    """addmm(self, mat1, mat2, beta, alpha): mm(mat1, mat2) plus self expanded to its sizes (the
    one-way broadcast addmm checks). Written so because the engine's addmm does not give its
    output's strides (it is contiguous, like mm's), which the views after nn.Linear read."""
    mm = cx.emit("mm", [args[1], args[2]], {})
    b = cx.emit("expand", [args[0], cx.emit("size", [mm], {})], {})
    return cx.emit("add", [mm, b], {})


_h_addmm.engine = "mm"


def _h_baddbmm(cx, node, args, kwargs):
    """baddbmm(self, batch1, batch2, beta, alpha) (not core ATen: in a program read without
    run_decompositions): bmm(batch1, batch2) plus self expanded to its sizes, as addmm and for
    the same reason: the result is a fresh contiguous tensor (LinearAlgebra.cpp baddbmm_meta
    allocates it with no strides), which the engine's bmm gives."""
    mm = cx.emit("bmm", [args[1], args[2]], {})
    b = cx.emit("expand", [args[0], cx.emit("size", [mm], {})], {})
    return cx.emit("add", [mm, b], {})


_h_baddbmm.engine = "bmm"


def _h_cdist(cx, node, args, kwargs):
    return cx.emit("cdist", list(args[:3]), {})


def _h_col2im(cx, node, args, kwargs):
    """col2im(input, output_size, kernel_size, dilation, padding, stride) -> F.fold."""
    x, out, k, d, p, s = args[:6]
    return cx.emit("fold", [x], {"output_size": out, "kernel_size": k, "dilation": d, "padding": p, "stride": s})


def _h_grid_sampler(cx, node, args, kwargs):
    """grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners): the modes
    are ints here; they do not change sizes."""
    return cx.emit("grid_sample", [args[0], args[1]], {"align_corners": bool(args[4]) if len(args) > 4 else False})


def _h_fill(cx, node, args, kwargs):
    return cx.emit("full_like", [args[0], args[1]], {})


def _h_scalar_tensor(cx, node, args, kwargs):
    kw = {k: v for k, v in _drop(kwargs).items() if k == "dtype"}
    return cx.emit("tensor", [args[0]], kw)


def _h_randperm(cx, node, args, kwargs):
    """randperm(n): a 1-D int64 tensor of n elements, n >= 0 (arange's sizes and check)."""
    return cx.emit("arange", [args[0]], {"dtype": {"dtype": "int64"}})


def _h_alias(cx, node, args, kwargs):
    return cx.emit("identity", [args[0]], {})


def _h_local_scalar(cx, node, args, kwargs):
    return cx.emit("item", [args[0]], {})


def _h_sym_size(cx, node, args, kwargs):
    return cx.emit("size", [args[0], args[1]], {})


def _h_sym_stride(cx, node, args, kwargs):
    return cx.emit("stride", [args[0], args[1]], {})


def _h_sym_numel(cx, node, args, kwargs):
    return cx.emit("numel", [args[0]], {})


def _h_squeeze(cx, node, args, kwargs):
    return cx.emit("squeeze", list(args[:2]), {})


def _h_split_with_sizes(cx, node, args, kwargs):
    """split_with_sizes(self, split_sizes, dim=0): the engine's split with the list of sizes (the
    same checks), whose pieces carry their strides (a view of the input, OPL_OWN): the engine's
    split_with_sizes row leaves them not modelled (OPL_VIEW), so a view after an elementwise op
    on a piece failed (the LSTM cell's gates, in the decomposed nn.LSTM of lstm_tagger)."""
    return cx.emit("split", list(args[:3]), {})


def _h_max(name):
    """max/min: .default (all) -> a tensor; .dim -> (values, indices); .other -> maximum."""
    def h(cx, node, args, kwargs):
        return cx.emit(name, list(args), _drop(kwargs))
    h.engine = name
    return h


def _h_assert_scalar(cx, node, args, kwargs):
    msg = args[1] if len(args) > 1 else kwargs.get("assert_msg", "runtime assertion")
    return cx.emit("_assert", [args[0], msg if isinstance(msg, str) else "runtime assertion"], {})


def _h_constrain(for_size):
    """sym_constrain_range(_for_size)(size, min=None, max=None): the bounds as asserts (on an
    unbacked symbol a runtime assert, then a fact); _for_size also >= 0."""
    def h(cx, node, args, kwargs):
        u = args[0]
        lo = args[1] if len(args) > 1 else kwargs.get("min")
        hi = args[2] if len(args) > 2 else kwargs.get("max")
        what = "sym_constrain_range_for_size" if for_size else "sym_constrain_range"
        if for_size:
            lo = 0 if lo is None else max(int(lo), 0)
        if lo is not None:
            cx.emit("_assert", [cx.emit("ge", [u, lo], {}), "%s: %s >= %s" % (what, cx.text(node.args[0]), lo)], {})
        if hi is not None and hi < _INT64_MAX:
            cx.emit("_assert", [cx.emit("le", [u, hi], {}), "%s: %s <= %s" % (what, cx.text(node.args[0]), hi)], {})
        return None
    h.engine = "_assert"
    return h


def _h_check_is_size(cx, node, args, kwargs):
    cx.emit("_assert", [cx.emit("ge", [args[0], 0], {}), "_check_is_size: %s >= 0" % cx.text(node.args[0])], {})
    return None


def _h_assert_async(cx, node, args, kwargs):
    """_assert_async.msg(tensor, msg): the tensor's one value must be true (an unbacked
    boolean: a runtime assert)."""
    msg = args[1] if len(args) > 1 and isinstance(args[1], str) else "assertion failed"
    return cx.emit("_assert", [cx.emit("item", [args[0]], {}), msg], {})


def _h_tensor_metadata(cx, node, args, kwargs):
    """_assert_tensor_metadata(a, size=None, stride=None, dtype=None, ...): the sizes when given."""
    size = kwargs.get("size", args[1] if len(args) > 1 else None)
    if size is not None:
        cx.emit("_assert", [cx.emit("eq", [cx.emit("size", [args[0]], {}), size], {}),
                            "_assert_tensor_metadata: sizes"], {})
    return None


def _h_unsafe_view(cx, node, args, kwargs):
    return cx.emit("reshape", [args[0], args[1]], {})


def _h_expand(cx, node, args, kwargs):
    return cx.emit("expand", [args[0], args[1]], {})


def _h_where(cx, node, args, kwargs):
    if len(args) == 1:
        raise cx.error(node, "where(condition) with one argument (nonzero) is not supported")
    return cx.emit("where", list(args[:3]), {})


_UNARY = ("abs acos acosh asin asinh atan atanh bitwise_not ceil cos cosh erf exp expm1 floor isinf isnan "
          "log log10 log1p log2 logical_not neg reciprocal relu rsqrt sigmoid sign sin sinh sqrt tan tanh "
          "trunc detach").split()
_BINARY = ("add sub mul div eq ne lt le gt ge atan2 bitwise_and bitwise_or bitwise_xor fmod remainder pow "
           "maximum minimum logical_and logical_or logical_xor").split()

#: ATen op packet name -> handler. The one table of the frontend (docs/ops.md "Core ATen ops").
ATEN_TABLE = {}
for _n in _UNARY:
    ATEN_TABLE[_n] = _same(_n, 1)
for _n in _BINARY:
    ATEN_TABLE[_n] = _same(_n)
ATEN_TABLE.update({
    "round": _same("round", 1), "gelu": _same("gelu"), "elu": _same("elu", 1), "leaky_relu": _same("leaky_relu"),
    "hardtanh": _same("hardtanh"), "clamp": _same("clamp"), "where": _h_where,
    "sum": _reduce("sum"), "mean": _reduce("mean"), "amax": _reduce("amax"), "amin": _reduce("amin"),
    "any": _reduce("any"), "prod": _reduce("prod"), "var": _h_var,
    "argmax": _same("argmax"), "argmin": _same("argmin"), "max": _h_max("max"), "min": _h_max("min"),
    "cumsum": _same("cumsum", 2), "sort": _same("sort"), "topk": _same("topk"),
    "convolution": _h_conv, "_native_batch_norm_legit_no_training": _h_bn_eval,
    "_native_batch_norm_legit": _h_bn_train, "native_layer_norm": _h_layer_norm,
    "native_group_norm": _h_group_norm, "native_dropout": _h_dropout,
    "_softmax": _h_softmax("softmax"), "_log_softmax": _h_softmax("log_softmax"),
    "max_pool2d_with_indices": _h_max_pool(2), "max_pool3d_with_indices": _h_max_pool(3),
    "adaptive_max_pool1d": _h_adaptive_max_pool(1), "adaptive_max_pool2d": _h_adaptive_max_pool(2),
    "adaptive_max_pool3d": _h_adaptive_max_pool(3), "unique_consecutive": _h_unique_consecutive,
    "_unique2": _h_unique2,
    "avg_pool1d": _h_avg_pool(1), "avg_pool2d": _h_avg_pool(2), "avg_pool3d": _h_avg_pool(3),
    "adaptive_avg_pool1d": _same("adaptive_avg_pool1d", 2), "sym_is_contiguous": _same("is_contiguous", 1),
    "_adaptive_avg_pool2d": _same("adaptive_avg_pool2d", 2), "_adaptive_avg_pool3d": _same("adaptive_avg_pool3d", 2),
    "upsample_nearest2d": _h_upsample("nearest", 2), "upsample_bilinear2d": _h_upsample("bilinear", 2),
    "constant_pad_nd": _h_pad("constant"), "reflection_pad1d": _h_pad("reflect"),
    "reflection_pad2d": _h_pad("reflect"), "reflection_pad3d": _h_pad("reflect"),
    "replication_pad2d": _h_pad("replicate"), "replication_pad3d": _h_pad("replicate"),
    "embedding": _h_embedding, "addmm": _h_addmm, "mm": _same("mm", 2), "bmm": _same("bmm", 2),
    "baddbmm": _h_baddbmm, "t": _same("t", 1), "transpose": _same("transpose", 3),
    "_cdist_forward": _h_cdist, "col2im": _h_col2im, "grid_sampler_2d": _h_grid_sampler,
    "view": _same("view", 2), "_unsafe_view": _h_unsafe_view, "permute": _same("permute", 2),
    "expand": _h_expand, "squeeze": _h_squeeze, "unsqueeze": _same("unsqueeze", 2), "cat": _same("cat", 2),
    "select": _h_select, "slice": _h_slice, "split_with_sizes": _h_split_with_sizes,
    "diagonal": _same("diagonal", 4), "flip": _same("flip", 2), "repeat": _same("repeat", 2),
    "index": _same("index", 2), "_unsafe_index": _same("index", 2), "index_put": _same("index_put", 4),
    "_unsafe_index_put": _same("index_put", 4), "index_select": _same("index_select", 3), "gather": _same("gather", 3), "scatter": _same("scatter", 5),
    "scatter_add": _same("scatter_add", 4), "scatter_reduce": _same("scatter_reduce"),
    "masked_scatter": _same("masked_scatter", 3), "nonzero": _same("nonzero", 1),
    "select_scatter": _h_scatter_like("select"), "slice_scatter": _h_scatter_like("slice"),
    "copy": _h_copy, "_to_copy": _h_to_copy, "alias": _h_alias, "lift_fresh_copy": _same("clone", 1), "clone": _h_clone,
    "arange": _h_arange, "full": _h_factory("full", 2), "full_like": _h_factory("full_like", 2),
    "empty": _h_factory("empty", 1), "empty_strided": _h_empty_strided, "rand": _h_factory("rand", 1),
    "randn": _h_factory("randn", 1), "randperm": _h_randperm, "scalar_tensor": _h_scalar_tensor, "fill": _h_fill,
    "_local_scalar_dense": _h_local_scalar, "sym_size": _h_sym_size, "sym_stride": _h_sym_stride,
    "sym_numel": _h_sym_numel, "_assert_scalar": _h_assert_scalar,
    "sym_constrain_range": _h_constrain(False), "sym_constrain_range_for_size": _h_constrain(True),
    "_check_is_size": _h_check_is_size, "_assert_async": _h_assert_async,
    "_assert_tensor_metadata": _h_tensor_metadata,
})

for _k, _e in {"var": "var", "convolution": "conv1d/conv2d/conv3d, conv_transpose1d/2d/3d",
               "_native_batch_norm_legit_no_training": "batch_norm", "_native_batch_norm_legit": "batch_norm",
               "native_layer_norm": "layer_norm", "native_group_norm": "group_norm", "native_dropout": "dropout",
               "slice": "getitem", "select": "select", "select_scatter": "select, clone",
               "slice_scatter": "getitem, clone", "copy": "expand_as, clone", "_to_copy": "to", "clone": "clone, contiguous",
               "empty_strided": "empty", "arange": "arange", "embedding": "embedding", "addmm": "mm, expand, add", "baddbmm": "bmm, expand, add",
               "_cdist_forward": "cdist", "col2im": "fold", "grid_sampler_2d": "grid_sample", "fill": "full_like",
               "scalar_tensor": "tensor", "randperm": "arange", "alias": "identity", "_local_scalar_dense": "item",
               "sym_size": "size", "sym_stride": "stride", "sym_numel": "numel", "squeeze": "squeeze",
               "split_with_sizes": "split", "_assert_scalar": "_assert", "_check_is_size": "_assert",
               "_assert_async": "item, _assert", "_assert_tensor_metadata": "_assert", "_unsafe_view": "reshape",
               "expand": "expand", "where": "where"}.items():
    ATEN_TABLE[_k].engine = _e

_BACKWARD = "a backward op: symshape reads inference graphs (export the model in eval mode, without autograd)"
#: ATen ops the frontend refuses, with the reason (the error names the op and says this).
ATEN_REJECTED = {
    "as_strided": "a view with explicit strides and storage offset, whose validity depends on the storage size",
    "sym_storage_offset": "the engine does not track storage offsets",
    "_embedding_bag": "the engine's embedding_bag reads F.embedding_bag's arguments; the ATen form's offsets "
                      "and per-sample weights are not mapped",
    "embedding_bag": "aten.embedding_bag returns 4 tensors (output, offset2bag, bag_size, max_indices); the "
                     "engine's embedding_bag is F.embedding_bag, one tensor",
    "_pdist_forward": "the engine has no pdist",
    "resize_": "an in-place resize (a mutation of the tensor's sizes, which exported programs are not read with)",
    "_fft_r2c": "the engine has no FFT ops (only stft/istft)",
    "_fft_c2r": "the engine has no FFT ops (only stft/istft)",
    "convolution_backward": _BACKWARD, "avg_pool2d_backward": _BACKWARD, "embedding_dense_backward": _BACKWARD,
    "max_pool2d_with_indices_backward": _BACKWARD, "native_group_norm_backward": _BACKWARD,
    "native_layer_norm_backward": _BACKWARD, "_adaptive_avg_pool2d_backward": _BACKWARD,
}

#: Python-level functions on SymInts in an exported graph -> engine scalar op
_SYM_FUNCS = {
    operator.add: "add", operator.sub: "sub", operator.mul: "mul", operator.floordiv: "floordiv",
    operator.mod: "mod", operator.truediv: "truediv", operator.pow: "pow", operator.neg: "neg",
    operator.eq: "eq", operator.ne: "ne", operator.lt: "lt", operator.le: "le", operator.gt: "gt",
    operator.ge: "ge", operator.and_: "and_", operator.or_: "or_", operator.not_: "not_",
    operator.pos: "pos", math.ceil: "ceil", math.floor: "floor", operator.getitem: "getitem",
    math.trunc: "int",  # toward zero: the engine's int() of a number (a size times a float included)
}


def _sym_funcs_torch():
    import torch
    out = {}
    for name, op in (("sym_max", "max"), ("sym_min", "min"), ("sym_not", "not_"), ("sym_int", "sym_int")):
        f = getattr(torch, name, None)
        if f is not None:
            out[f] = op
    return out


#: torch.sym_float(size): the size itself. The engine's arithmetic of a size with a float is
#: Python's on float(size) (a product is the double product fl(float(L) * s), rounded exactly by
#: int()/math.trunc/floor/ceil; + - / one correctly rounded operation), exact for |size| <= 2^53.
_SYM_PASS = {"sym_float"}

_SYM_REJECTED = {"sym_float": None,
                 "sym_ite": "a conditional expression on sizes (sym_ite) is not in the engine",
                 "_sym_sqrt": "the square root of a size is not in the engine",
                 "sym_sum": None}


# ----------------------------------------------------------------------------- core op list
def core_aten_ops():
    """The overloads of torch's core ATen op set (ops tagged torch.Tag.core), as
    ``aten::name.overload`` strings, sorted."""
    import torch
    out = set()
    # every registered aten schema (torch.ops.aten's attributes are created lazily, so dir() of it
    # depends on what ran before)
    packets = sorted({n.split("::", 1)[1].split(".", 1)[0] for n in torch._C._dispatch_get_all_op_names()
                      if n.startswith("aten::")})
    for name in packets:
        try:
            pk = getattr(torch.ops.aten, name)
        except Exception:  # noqa: BLE001 - a name without a Python binding
            continue
        if not isinstance(pk, torch._ops.OpOverloadPacket):
            continue
        for ov in pk.overloads():
            o = getattr(pk, ov)
            if torch.Tag.core in o.tags:
                out.add(o.name())
    return sorted(out)


def _packet(opname):
    """'aten::add.Tensor' -> 'add'."""
    return opname.split("::", 1)[-1].split(".", 1)[0]


def aten_status(opname, engine_ops=None):
    """("supported", engine op) / ("rejected", reason) / ("missing", None) for an ATen op name
    (``aten::name.overload`` or the packet name)."""
    p = _packet(opname)
    if p in ATEN_TABLE:
        eng = getattr(ATEN_TABLE[p], "engine", None)
        names = [e for e in re.split(r"[,/ ]+", eng or "") if e.isidentifier()]  # "conv_transpose1d/2d/3d": the first
        if engine_ops is not None and any(n not in engine_ops for n in names):
            return ("missing", "mapped to %s, which the engine lacks" % eng)
        return ("supported", eng)
    if p in ATEN_REJECTED:
        return ("rejected", ATEN_REJECTED[p])
    return ("missing", None)


# ----------------------------------------------------------------------------- conversion
def _loc_of(node):
    st = node.meta.get("stack_trace") if hasattr(node, "meta") else None
    if not st:
        return None
    last = None
    for m in re.finditer(r'File "([^"]+)", line (\d+), in (\S+)', st):
        last = m
    if last is None:
        return None
    return {"file": last.group(1), "line": int(last.group(2)), "function": last.group(3)}


class _Cx:
    """The conversion's state: emitted nodes, names, the program's symbols."""

    def __init__(self, ep, engine_ops):
        self.ep = ep
        self.engine_ops = engine_ops
        self.nodes = []
        self.names = set()
        self.vals = {}          # fx Node -> graph value ({"ref"} or tuple of them)
        self.cur = None         # the fx node being converted (its loc and name prefix)
        self.sym_def = {}       # sympy Symbol -> graph value that computes it
        self.lazy_specs = {}

    # --- naming and emission
    def fresh(self, base):
        base = re.sub(r"[^A-Za-z0-9_]", "_", base) or "n"
        n, i = base, 1
        while n in self.names:
            n = "%s_%d" % (base, i)
            i += 1
        self.names.add(n)
        return n

    def emit(self, op, args, kwargs, name=None):
        if name is None:
            name = op if self.cur is None else (self.cur.name if self.cur.name not in self.names
                                                else self.cur.name + "_" + op)
        nm = self.fresh(name)
        j = {"name": nm, "op": op, "args": list(args), "kwargs": dict(kwargs)}
        loc = _loc_of(self.cur) if self.cur is not None else None
        if loc:
            j["loc"] = loc
        self.nodes.append(j)
        return {"ref": nm}

    def lazy(self, node, op, args, kwargs, after=None):
        """An extra output of a multi-output ATen op, emitted only when a getitem reads it."""
        return ("lazy", op, args, kwargs)

    def unsupported(self, node, what):
        return ("unsupported", what)

    def error(self, node, msg):
        op = node.target.name() if hasattr(node.target, "name") else getattr(node.target, "__name__", str(node.target))
        return ExportError(msg, None, op, _loc_of(node))

    def rank(self, arg):
        v = arg.meta.get("val") if hasattr(arg, "meta") else None
        if v is None or not hasattr(v, "dim"):
            raise ExportError("the rank of %s is not known (no meta['val'])" % getattr(arg, "name", arg))
        return v.dim()

    def const_int(self, node, v, what):
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.error(node, "%s must be a constant int here, got %r" % (what, v))
        return v

    def text(self, arg):
        return getattr(arg, "name", str(arg))

    def resolve(self, v):
        """A graph value of an item of a multi-output op (lazy outputs emitted now)."""
        if isinstance(v, tuple) and len(v) == 4 and v[0] == "lazy":
            return self.emit(v[1], v[2], v[3])
        if isinstance(v, tuple) and len(v) == 2 and v[0] == "unsupported":
            raise self.error(self.cur, "%s is used, which symshape does not model" % v[1])
        return v


def _scalar_json(v, cx, node):
    import torch
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        # JSON has no inf/nan, and the graph format no spelling of them; a float argument's value
        # never decides a size in the ops these appear in (masked_fill(-inf), eq(x, -inf), full), only
        # that it is a float does (type promotion): the largest finite double stands in for them
        if not math.isfinite(v):
            return 1.7976931348623157e308 if v > 0 else (-1.7976931348623157e308 if v < 0 else 0.0)
        return v
    if isinstance(v, torch.dtype):
        return {"dtype": str(v).replace("torch.", "")}
    if isinstance(v, (torch.device, torch.layout, torch.memory_format)):
        return str(v)
    if isinstance(v, (torch.SymInt, torch.SymBool)):
        raise cx.error(node, "a symbolic literal %s in the arguments (expected a graph node)" % v)
    raise cx.error(node, "an argument of type %s cannot be written to the graph" % type(v).__name__)


def _arg(v, cx, node):
    from torch.fx import Node
    if isinstance(v, Node):
        if v not in cx.vals:
            raise cx.error(node, "argument %s has no value (a node the conversion skipped)" % v.name)
        val = cx.vals[v]
        if isinstance(val, tuple) and val and isinstance(val[0], dict):
            return [cx.resolve(x) for x in val]
        if isinstance(val, tuple):  # an extra output of a multi-output op, emitted when first used
            cx.vals[v] = val = cx.resolve(val)
        return val
    if isinstance(v, (list, tuple)):
        return [_arg(x, cx, node) for x in v]
    if isinstance(v, dict):
        return {str(k): _arg(x, cx, node) for k, x in v.items()}
    return _scalar_json(v, cx, node)


def _dtype_name(dt):
    return str(dt).replace("torch.", "")


_DTYPES = {"float32", "float64", "float16", "bfloat16", "complex64", "complex128", "int64", "int32", "int16",
           "int8", "uint8", "bool"}


def _static_contiguous(v):
    import torch
    if any(isinstance(s, torch.SymInt) for s in v.shape) or any(isinstance(s, torch.SymInt) for s in v.stride()):
        return False
    return v.is_contiguous()


def _finite_int(x):
    """A range bound as an int, or None for an infinite one (sympy oo or torch's int_oo)."""
    import sympy
    if isinstance(x, (int, sympy.Integer)) and not isinstance(x, bool):
        return int(x)
    return None


# --- sympy expressions of the program's symbols as graph nodes
def _sym_nodes(cx, e, what):
    """Graph nodes computing the sympy expression ``e`` of the program's input symbols."""
    import sympy
    if isinstance(e, (int, sympy.Integer)):
        return int(e)
    if e is sympy.true:
        return True
    if e is sympy.false:
        return False
    if isinstance(e, sympy.Symbol):
        if e not in cx.sym_def:
            raise ExportError("%s: the symbol %s is not an input size of the program" % (what, e))
        return cx.sym_def[e]
    name = type(e).__name__
    a = [_sym_nodes(cx, x, what) for x in e.args]
    if isinstance(e, sympy.Add):
        out = a[0]
        for x in a[1:]:
            out = cx.emit("add", [out, x], {}, name="rc_add")
        return out
    if isinstance(e, sympy.Mul):
        out = a[0]
        for x in a[1:]:
            out = cx.emit("mul", [out, x], {}, name="rc_mul")
        return out
    if name in ("FloorDiv", "CleanDiv"):
        return cx.emit("floordiv", a, {}, name="rc_floordiv")
    if name in ("Mod", "PythonMod"):
        return cx.emit("mod", a, {}, name="rc_mod")
    if name in ("Max",):
        out = a[0]
        for x in a[1:]:
            out = cx.emit("max", [out, x], {}, name="rc_max")
        return out
    if name in ("Min",):
        out = a[0]
        for x in a[1:]:
            out = cx.emit("min", [out, x], {}, name="rc_min")
        return out
    if isinstance(e, sympy.Pow) and isinstance(e.args[1], sympy.Integer) and int(e.args[1]) >= 0:
        return cx.emit("pow", a, {}, name="rc_pow")
    rel = {"Equality": "eq", "Unequality": "ne", "StrictLessThan": "lt", "LessThan": "le",
           "StrictGreaterThan": "gt", "GreaterThan": "ge"}.get(name)
    if rel:
        return cx.emit(rel, a, {}, name="rc_" + rel)
    if name in ("And", "Or"):
        out = a[0]
        for x in a[1:]:
            out = cx.emit(name.lower() + "_", [out, x], {}, name="rc_" + name.lower())
        return out
    if name == "Not":
        return cx.emit("not_", a, {}, name="rc_not")
    raise ExportError("%s: cannot write %s (a %s) as graph nodes" % (what, e, name))


# --- ep._guards_code (Python text over L['x'].size()[i]) as graph nodes
_PY_BIN = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.FloorDiv: "floordiv", ast.Mod: "mod",
           ast.Pow: "pow", ast.Div: "truediv"}
_PY_CMP = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}


def _cut(s, n=300):
    """s, or its first n characters and how many more there were (a guard can be megabytes)."""
    return s if len(s) <= n else "%s... (%d more characters)" % (s[:n], len(s) - n)


def _source_bases(user_inputs):
    """{"L['x'][0]": placeholder name} from the program's own shape env: each placeholder's
    symbolic sizes name their sources (``var_to_sources``, the texts ``_guards_code`` is written
    in). The placeholder names alone are ambiguous: torch joins the key path with '_' and then
    renames clashes, so ``forward(self, x, x_0)`` with ``x`` a list has placeholders x_0 (x[0]),
    x_1 and x_0_1 (the tensor x_0), and L['x_0'] is x_0_1, not x_0. A placeholder's path is the
    one path that is a source of every symbolic dim of it (dim i: PATH.size()[i]); a placeholder
    whose dims are all shared with another input's (the same symbols) names no path here, unless
    one of the placeholders claiming the path is named as torch names that path (its keys
    joined by '_': L['xs'][0] -> xs_0) and no placeholder bears that name renamed (xs_0_1): the
    shape env lists one source for a symbol two inputs share (xs[0] and xs[1] of one Dim both
    give L['xs'][0]), and that placeholder is the path's."""
    claims = {}
    names = [u.name for u in user_inputs]
    for u in user_inputs:
        v = u.meta.get("val") if hasattr(u, "meta") else None
        cand = None
        for i, s in enumerate(getattr(v, "shape", None) or ()):
            node = getattr(s, "node", None)
            env = getattr(node, "shape_env", None)
            if env is None:
                continue
            here = set()
            for src in (getattr(env, "var_to_sources", {}) or {}).get(node.expr, []):
                nm = getattr(src, "name", None)
                nm = nm() if callable(nm) else nm
                suffix = ".size()[%d]" % i
                if isinstance(nm, str) and nm.endswith(suffix):
                    here.add(nm[:-len(suffix)])
            cand = here if cand is None else cand & here
        if cand is not None and len(cand) == 1:
            claims.setdefault(cand.pop(), []).append(u.name)
    out = {}
    for b, us in claims.items():
        j = _joined_path(b)
        renamed = any(re.fullmatch(re.escape(j) + r"_[0-9]+", n) for n in names) if j else True
        if j in names and not renamed:
            # the placeholder torch names for the path, not renamed: the path's, even when its own
            # dims name other paths (forward(x, y, z), x and y of one Dim.AUTO shape and z [1, c]
            # broadcast: the shape env's one source of c is L['x'], of x's batch L['y'], so z
            # alone "claimed" L['x'] and a guard on L['x'] was read on z or refused)
            out[b] = j
        elif len(us) == 1:
            out[b] = us[0]
        else:
            out[b] = None  # two placeholders with one path, neither of them told apart: refuse it
    return out


def _joined_path(path):
    """the placeholder name torch gives the input at a source path before renaming clashes:
    L['xs'][0] -> xs_0, L['d']['k'] -> d_k; None for another text"""
    try:
        n = ast.parse(path, mode="eval").body
    except SyntaxError:
        return None
    parts = []
    while isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant):
        parts.append(str(n.slice.value))
        n = n.value
    if not (isinstance(n, ast.Name) and n.id == "L") or not parts:
        return None
    return "_".join(reversed(parts))


def _guard_nodes(cx, text, inputs, bases=None):
    """Graph nodes computing one guard of ep._guards_code; ``inputs``: placeholder names;
    ``bases``: _source_bases of the program (None: the names alone)."""
    text_g = text
    try:
        tree = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:  # nesting past Python's parser limit
        raise ExportError("cannot parse the program's guard %s: %s" % (_cut(repr(text)), type(e).__name__ + ": " + str(e))) from None

    def base(n):
        # L['x'] and nested L['x'][0] / L['x']['k'] -> placeholder name x / x_0 / x_k
        parts, parts_v = [], []
        while isinstance(n, ast.Subscript):
            k = n.slice
            if not isinstance(k, ast.Constant):
                return None
            parts.append(str(k.value))
            parts_v.append(k.value)
            n = n.value
        if not (isinstance(n, ast.Name) and n.id == "L") or not parts:
            return None
        if bases:
            text = "L" + "".join("[%r]" % (int(p) if isinstance(p, int) else p,) for p in reversed(parts_v))
            if text in bases:
                if bases[text] is None:
                    raise ExportError("the program's guard %s reads %s, which names two inputs of the program"
                                      % (_cut(repr(text_g)), text))
                return bases[text]
        nm = "_".join(reversed(parts))
        if nm not in inputs:
            return None
        if bases and nm in bases.values():
            # the placeholder of that name is another path's input (torch renamed a clash):
            # refuse rather than read the guard on the wrong tensor
            raise ExportError("the program's guard %s reads an input whose placeholder cannot be told apart "
                              "from %r; from_exported(..., program_guards=False) leaves the program's guards out"
                              % (_cut(repr(text_g)), nm))
        return nm

    def go(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool) and \
                not -_INT64_MAX - 1 <= n.value <= _INT64_MAX:
            # the graph holds int64 constants (the reader stopped at a JSON "too big integer" with
            # a column in the generated document, not the guard; issue 38)
            raise ExportError("cannot read the program's guard %s: its constant %s is past int64; "
                              "from_exported(..., program_guards=False) leaves the program's guards out"
                              % (_cut(repr(text)), _cut(str(n.value), 40)))
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, bool, float)):
            return n.value
        if isinstance(n, ast.BinOp) and type(n.op) in _PY_BIN:
            return cx.emit(_PY_BIN[type(n.op)], [go(n.left), go(n.right)], {}, name="pg_" + _PY_BIN[type(n.op)])
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant) and \
                type(n.operand.value) is int:  # -9223372036854775808 is an int64 (its 9223372036854775808 is not)
            return go(ast.Constant(-n.operand.value))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return cx.emit("neg", [go(n.operand)], {}, name="pg_neg")
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            return cx.emit("not_", [go(n.operand)], {}, name="pg_not")
        if isinstance(n, ast.BoolOp):
            vals = [go(v) for v in n.values]
            out = vals[0]
            for v in vals[1:]:
                out = cx.emit("and_" if isinstance(n.op, ast.And) else "or_", [out, v], {}, name="pg_bool")
            return out
        if isinstance(n, ast.Compare):
            left = go(n.left)
            out = None
            for op, right in zip(n.ops, n.comparators):
                if type(op) not in _PY_CMP:
                    break
                r = go(right)
                c = cx.emit(_PY_CMP[type(op)], [left, r], {}, name="pg_cmp")
                out = c if out is None else cx.emit("and_", [out, c], {}, name="pg_bool")
                left = r
            else:
                return out
        fname = (n.func.id if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) else
                 n.func.attr if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and
                 isinstance(n.func.value, ast.Name) and n.func.value.id in ("torch", "math") else None)
        fname = {"sym_max": "max", "sym_min": "min"}.get(fname, fname)
        if fname == "sym_float" and len(n.args) == 1 and not n.keywords:
            return cx.emit("pos", [go(n.args[0])], {}, name="pg_float")  # see _SYM_PASS
        if fname in ("trunc", "floor", "ceil") and len(n.args) == 1 and not n.keywords:
            return cx.emit({"trunc": "int"}.get(fname, fname), [go(n.args[0])], {}, name="pg_" + fname)
        if fname in ("max", "min") and len(n.args) >= 2 and not n.keywords:
            vals = [go(v) for v in n.args]
            out = vals[0]
            for v in vals[1:]:
                out = cx.emit(fname, [out, v], {}, name="pg_" + fname)
            return out
        if fname in ("abs",) and len(n.args) == 1:
            x = go(n.args[0])
            return cx.emit("max", [x, cx.emit("neg", [x], {}, name="pg_neg")], {}, name="pg_abs")
        # L['x'].size()[i], L['x'].stride()[i], L['x'].numel()
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and isinstance(n.value, ast.Call):
            call = n.value
            if isinstance(call.func, ast.Attribute) and call.func.attr in ("size", "stride") and not call.args:
                b = base(call.func.value)
                if b is not None:
                    return cx.emit(call.func.attr, [{"ref": inputs[b]}, n.slice.value], {}, name="pg_" + call.func.attr)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "numel" and not n.args:
            b = base(n.func.value)
            if b is not None:
                return cx.emit("numel", [{"ref": inputs[b]}], {}, name="pg_numel")
        raise ExportError("cannot read the program's guard %r (at %r); from_exported(..., program_guards=False) "
                          "leaves the program's guards out" % (text, ast.unparse(n)))
    try:
        return go(tree)
    except RecursionError:  # a guard nested deeper than Python's recursion limit (ast.parse took it)
        raise ExportError("cannot read the program's guard %s: nested deeper than Python's recursion limit (%d); "
                          "from_exported(..., program_guards=False) leaves the program's guards out"
                          % (_cut(repr(text)), sys.getrecursionlimit())) from None


def _input_specs(ep):
    """{placeholder name: (kind, target)} from the graph signature."""
    out = {}
    for s in ep.graph_signature.input_specs:
        out[s.arg.name] = (s.kind.name, getattr(s, "target", None))
    return out


def _user_outputs(ep):
    kinds = [s.kind.name for s in ep.graph_signature.output_specs]
    return kinds


def from_exported_doc(ep, dynamic=None, name=None, program_guards=True, engine_ops=None, user_spec=False):
    """The graph document of an ExportedProgram (see the module docstring). Raises ExportError
    naming the op (and the user's source line) for anything it cannot write. ``user_spec``: the
    inputs' dynamic-dim specs are exactly ``dynamic`` (the user's, as `--capture export` got
    it), not the program's symbols with their names and ranges merged in: a dim given by its
    index stays unnamed and unranged (torch.export's Dim.AUTO name and its [2, oo) are its
    own policy, kept as guards), a dim the program made static that the user gave by index
    stays static, and dims sharing one of the program's symbols without sharing a user's name
    get an equality guard (the program was traced with them equal)."""
    import sympy
    import torch
    from torch.fx import Node

    if not hasattr(ep, "graph_signature") or not hasattr(ep, "graph"):
        raise ExportError("from_exported needs a torch.export.ExportedProgram, got %s" % type(ep).__name__)
    if dynamic is not None and not isinstance(dynamic, dict):
        raise ExportError("dynamic must be None or a dict {input name: [dim, ...]}")
    cx = _Cx(ep, engine_ops)
    specs = _input_specs(ep)
    sym_funcs = dict(_SYM_FUNCS)
    sym_funcs.update(_sym_funcs_torch())
    rc = dict(ep.range_constraints)

    shape_env = None
    for nd in ep.graph.nodes:
        if nd.op == "placeholder":
            v = nd.meta.get("val")
            for s in (v.shape if isinstance(v, torch.Tensor) else ()):
                if isinstance(s, torch.SymInt):
                    shape_env = s.node.shape_env
                    break
        if shape_env is not None:
            break
    debug = dict(getattr(shape_env, "source_name_to_debug_name", {}) or {}) if shape_env is not None else {}
    var_to_val = {}
    if shape_env is not None:
        var_to_val = dict(getattr(shape_env, "backed_var_to_val", None) or getattr(shape_env, "var_to_val", {}) or {})

    def hint(s):
        if isinstance(s, int):
            return s
        e = s.node.expr
        try:
            return int(e.xreplace({k: sympy.Integer(int(v)) for k, v in var_to_val.items()}))
        except (TypeError, ValueError):
            h = s.node.hint
            if h is None:
                raise ExportError("the size %s of an input has no example value" % e) from None
            return int(h)

    user_inputs = []
    shared = []             # (input name, dim, Symbol): a dim whose symbol an earlier dim has
    sym_names = {}          # Symbol -> Dim name
    derived = []            # (input name, dim, expr)
    declared_names = set()
    for nd in ep.graph.nodes:
        if nd.op != "placeholder":
            continue
        kind, target = specs.get(nd.name, ("USER_INPUT", None))
        v = nd.meta.get("val")
        cx.names.add(nd.name)
        cx.cur = nd
        if kind in ("PARAMETER", "BUFFER", "CONSTANT_TENSOR"):
            if not isinstance(v, torch.Tensor) or any(isinstance(s, torch.SymInt) for s in v.shape):
                raise cx.error(nd, "%s %s has no static tensor value" % (kind.lower(), target))
            cx.nodes.append({"name": nd.name, "op": "param", "dtype": _dtype_name(v.dtype), "shape": list(v.shape)})
            cx.vals[nd] = {"ref": nd.name}
            continue
        if kind != "USER_INPUT":
            raise ExportError("input %s is a %s, which symshape does not read" % (nd.name, kind))
        if not isinstance(v, torch.Tensor):
            if isinstance(v, (torch.SymInt, torch.SymFloat, torch.SymBool)):
                raise ExportError("input %s is a symbolic scalar (%s): only tensor sizes are symbolic in symshape"
                                  % (nd.name, v))
            cx.nodes.append({"name": nd.name, "op": "constant", "value": _scalar_json(v, cx, nd)})
            cx.vals[nd] = {"ref": nd.name}
            continue
        shape = [hint(s) for s in v.shape]
        dyn = []
        for i, s in enumerate(v.shape):
            if not isinstance(s, torch.SymInt):
                continue
            e = s.node.expr
            if isinstance(e, sympy.Integer):
                continue
            if isinstance(e, sympy.Symbol):
                if e in sym_names:
                    shared.append((nd.name, i, e))
                else:
                    dn = debug.get("L['%s'].size()[%d]" % (nd.name, i))
                    nm = dn if dn and _ID_RE.match(dn) and dn not in declared_names else str(e)
                    sym_names[e] = nm
                    declared_names.add(nm)
                    cx.sym_def[e] = None  # filled below, once the input node exists
                spec = {"dim": i, "name": sym_names[e]}
                r = rc.get(e)
            else:
                nm = "%s_d%d" % (nd.name, i)
                while nm in declared_names:
                    nm += "_"
                declared_names.add(nm)
                spec = {"dim": i, "name": nm}
                derived.append((nd.name, i, e))
                r = rc.get(e)
            if r is not None:
                lo, hi = _finite_int(r.lower), _finite_int(r.upper)
                spec["min"] = max(lo or 0, 0)
                if hi is not None and hi < _INT64_MAX:
                    spec["max"] = hi
            dyn.append(spec)
        j = {"name": nd.name, "op": "input", "dtype": _dtype_name(v.dtype), "shape": shape, "dynamic": dyn}
        if dynamic is not None and nd.name in dynamic:
            from ._dynamic import normalize_dynamic_dims
            want = normalize_dynamic_dims(nd.name, dynamic[nd.name])
            have = {d["dim"]: d for d in dyn}
            out = []
            for d in want:
                k = d["dim"] if isinstance(d, dict) else d
                k = k + v.dim() if k < 0 else k
                if k not in have:
                    if user_spec and not isinstance(d, dict):
                        continue  # Dim.AUTO that export made static: static, as the program is
                    raise ExportError("dynamic: dim %d of input %s is static in the exported program "
                                      "(export specialized it)" % (k, nd.name))
                if user_spec:
                    o = {kk: vv for kk, vv in d.items()} if isinstance(d, dict) else k
                else:
                    o = dict(have[k])
                    if isinstance(d, dict):
                        o.update({kk: vv for kk, vv in d.items() if kk != "dim"})
                out.append(o)
            j["dynamic"] = out
        if not v.is_contiguous():
            if v.dim() == 4 and v.is_contiguous(memory_format=torch.channels_last):
                j["strides"] = "channels_last"
            elif v.dim() == 5 and v.is_contiguous(memory_format=torch.channels_last_3d):
                j["strides"] = "channels_last_3d"
            else:
                raise cx.error(nd, "input %s has non-contiguous symbolic strides" % nd.name)
        cx.nodes.append(j)
        cx.vals[nd] = {"ref": nd.name}
        user_inputs.append(nd)
    if dynamic is not None:
        for k in dynamic:
            if k not in {u.name for u in user_inputs}:
                raise ExportError("dynamic: no tensor input named %r (inputs: %s)" %
                                  (k, ", ".join(u.name for u in user_inputs)))

    # where each symbol comes from: the first input dim whose size is exactly it
    cx.cur = None
    for nd in user_inputs:
        for i, s in enumerate(nd.meta["val"].shape):
            if isinstance(s, torch.SymInt) and isinstance(s.node.expr, sympy.Symbol) and cx.sym_def.get(s.node.expr) is None:
                cx.sym_def[s.node.expr] = cx.emit("size", [{"ref": nd.name}, i], {}, name="%s_size%d" % (nd.name, i))
    # with the user's spec, dims of one program symbol need not share a name: the program's
    # equality is a guard of torch.export's (a guard_bool: its decision, not the model's check)
    if user_spec:
        for (xn, i, e) in shared:
            cx.emit("guard_bool", [cx.emit("eq", [cx.emit("size", [{"ref": xn}, i], {}, name="%s_size%d" % (xn, i)),
                                                  cx.sym_def[e]], {}, name="export_same_eq"), True], {},
                    name="torch_export_same_symbol")
    # derived dims: a symbol seen only inside a*s + b is defined by that dim ((size - b) // a, with
    # Mod(size - b, a) == 0 asserted); then every derived dim is asserted equal to its expression
    for (xn, i, e) in derived:
        size = cx.emit("size", [{"ref": xn}, i], {}, name="%s_size%d" % (xn, i))
        free = [f for f in e.free_symbols if cx.sym_def.get(f) is None]
        if len(free) == 1:
            f = free[0]
            p = sympy.Poly(e, f)
            if p.degree() == 1 and all(c.is_Integer for c in p.all_coeffs()):
                a, b = (int(c) for c in p.all_coeffs())
                if a > 0:
                    d = cx.emit("sub", [size, b], {}, name="derived_sub") if b else size
                    cx.emit("_assert", [cx.emit("eq", [cx.emit("mod", [d, a], {}, name="derived_mod"), 0], {},
                                                name="derived_eq"),
                                        "derived Dim: %s.size()[%d] == %s" % (xn, i, e)], {}, name="derived_assert")
                    cx.sym_def[f] = cx.emit("floordiv", [d, a], {}, name="%s_%s" % (xn, f))
        if any(cx.sym_def.get(f) is None for f in e.free_symbols):
            raise ExportError("input %s dim %d has size %s, whose symbols cannot be read from the inputs' sizes"
                              % (xn, i, e))
        cx.emit("_assert", [cx.emit("eq", [size, _sym_nodes(cx, e, "derived Dim")], {}, name="derived_eq"),
                            "derived Dim: %s.size()[%d] == %s" % (xn, i, e)], {}, name="derived_assert")
    # range constraints of the input symbols (and of derived expressions), and below the
    # program's guards: guard_bool nodes, the conditions torch.export traced the program under
    # (its 0/1 specialization, Dim.AUTO's [2, oo), its decisions on the model's Python branches),
    # which the report names as export's, not as checks the model itself makes; what an op of the
    # program requires is found again by the op's own check
    for e, r in rc.items():
        if not all(f in cx.sym_def for f in e.free_symbols):
            continue  # an unbacked symbol's range: asserted where the graph constrains it
        val = _sym_nodes(cx, e, "range constraint")
        lo, hi = _finite_int(r.lower), _finite_int(r.upper)
        if lo is not None and lo > _INT64_MAX:  # no int64 size reaches it (the graph holds int64)
            raise ExportError("the program's range constraint %s in [%s, %s]: its lower bound is past int64"
                              % (_cut(str(e), 200), _cut(str(r.lower), 40), _cut(str(r.upper), 40)))
        if lo is not None and lo > 0:
            cx.emit("guard_bool", [cx.emit("ge", [val, lo], {}, name="range_ge"), True], {},
                    name="torch_export_range")
        if hi is not None and hi < _INT64_MAX:
            cx.emit("guard_bool", [cx.emit("le", [val, hi], {}, name="range_le"), True], {},
                    name="torch_export_range")
    if program_guards:
        if not hasattr(ep, "_guards_code"):
            # the program's guards cannot be read: sizes where the model's Python code branches
            # differently could be accepted, so refuse rather than guess
            raise ExportError("this torch (%s) keeps no guards code on the ExportedProgram (ep._guards_code), so the "
                              "conditions export took from the model's Python code cannot be read; "
                              "from_exported(..., program_guards=False) reads the program without them (its guard "
                              "set may then accept sizes where the model takes another branch)" % torch.__version__)
        inputs = {u.name: u.name for u in user_inputs}
        bases = _source_bases(user_inputs)
        for g in list(ep._guards_code or []):
            cond = _guard_nodes(cx, g, inputs, bases)
            cx.emit("guard_bool", [cond, True], {}, name="torch_export_guard")

    # the ops
    outputs = []
    on_input = {nd: specs.get(nd.name, ("USER_INPUT",))[0] == "USER_INPUT"
                for nd in ep.graph.nodes if nd.op == "placeholder"}
    for nd in ep.graph.nodes:
        cx.cur = nd
        if nd.op == "placeholder":
            continue
        if nd.op == "output":
            kinds = _user_outputs(ep)
            flat = nd.args[0] if isinstance(nd.args[0], (list, tuple)) else [nd.args[0]]
            for k, o in zip(kinds, flat):
                if k != "USER_OUTPUT":
                    continue
                if isinstance(o, Node):
                    val = _arg(o, cx, nd)
                    if isinstance(val, list):
                        outputs.extend(val)
                    elif val is not None:
                        outputs.append(val)
                elif o is not None:
                    outputs.append(_scalar_json(o, cx, nd))
            continue
        if nd.op == "get_attr":
            raise cx.error(nd, "a get_attr node (%s): higher-order ops (torch.cond, while_loop, ...) and submodules "
                               "are not supported" % nd.target)
        if nd.op != "call_function":
            raise cx.error(nd, "a %s node is not expected in an exported program" % nd.op)
        t = nd.target
        if t is operator.getitem and isinstance(nd.args[0], Node) and isinstance(cx.vals.get(nd.args[0]), tuple):
            items = cx.vals[nd.args[0]]
            cx.vals[nd] = items[nd.args[1]]  # lazy: resolved where it is used
            continue
        # a tensor computed from parameters and constants alone (slices of a fused in_proj weight):
        # a "param" of its static sizes, as symshape.export writes it (only contiguous ones: a
        # param is contiguous in the engine)
        on_input[nd] = any(on_input.get(a, True) for a in nd.all_input_nodes)
        v = nd.meta.get("val")
        if (not on_input[nd] and isinstance(v, torch.Tensor) and _static_contiguous(v)
                and _dtype_name(v.dtype) in _DTYPES):
            cx.nodes.append({"name": cx.fresh(nd.name), "op": "param", "dtype": _dtype_name(v.dtype),
                             "shape": [int(x) for x in v.shape]})
            cx.vals[nd] = {"ref": cx.nodes[-1]["name"]}
            continue
        args = [_arg(a, cx, nd) for a in nd.args]
        kwargs = {k: _arg(a, cx, nd) for k, a in nd.kwargs.items()}
        if isinstance(t, torch._ops.OpOverload):
            p = _packet(t.name())
            if t.namespace != "aten":
                raise cx.error(nd, "%s is not an ATen op (custom ops are not supported)" % t.name())
            h = ATEN_TABLE.get(p)
            if h is None:
                if p in ATEN_REJECTED:
                    raise cx.error(nd, "aten.%s is not supported: %s" % (p, ATEN_REJECTED[p]))
                if engine_ops is not None and p in engine_ops:
                    h = _same(p)  # a non-core ATen op the engine has: its arguments as they are
                else:
                    raise cx.error(nd, "aten.%s is neither mapped to a symshape op nor explicitly rejected "
                                       "(symshape.export_program.ATEN_TABLE)" % p)
            cx.vals[nd] = h(cx, nd, args, kwargs)
            continue
        if isinstance(t, torch._ops.HigherOrderOperator):
            raise cx.error(nd, "the higher-order op %s is not supported" % t.name())
        if t in sym_funcs:
            cx.vals[nd] = cx.emit(sym_funcs[t], args, kwargs)
            continue
        nm = getattr(t, "__name__", str(t))
        if nm in _SYM_PASS and len(args) == 1 and not kwargs:
            cx.vals[nd] = cx.emit("pos", args, {})
            continue
        if nm in _SYM_REJECTED and _SYM_REJECTED[nm]:
            raise cx.error(nd, "%s: %s" % (nm, _SYM_REJECTED[nm]))
        if nm == "sym_sum":
            out = 0
            for x in args[0]:
                out = x if out == 0 else cx.emit("add", [out, x], {})
            cx.vals[nd] = out
            continue
        raise cx.error(nd, "the call of %s is not supported" % nm)

    import torch as _t
    return {"format": "symshape.graph", "version": 1,
            "name": name or "exported_program", "torch_version": _t.__version__,
            "origin": "symshape.from_exported: torch %s torch.export program (%s)" %
                      (_t.__version__, "with the program's guards" if program_guards else "without the program's guards"),
            "nodes": cx.nodes, "outputs": outputs}


def _engine_ops():
    try:
        from .exporter import _engine_ops as e
        return e()
    except Exception:  # noqa: BLE001 - no library: no pass-through check
        return None


def from_exported(ep, dynamic=None, name=None, program_guards=True, trace=True, **trace_kw):
    """Trace a torch.export ExportedProgram (``ep.run_decompositions()`` output, or any
    program whose ops the frontend maps): returns the GuardSet (``trace=False``: the graph
    document instead). ``dynamic``: None (the program's own symbolic dims, named and ranged
    as exported) or {input: [dim, ...]} to narrow or rename them (symshape.export's form; a
    dim the program made static cannot be made dynamic). Raises ExportError."""
    doc = from_exported_doc(ep, dynamic=dynamic, name=name, program_guards=program_guards,
                            engine_ops=_engine_ops())
    if not trace:
        return doc
    from .guards import trace as _trace
    return _trace(doc, **trace_kw)
