"""The exporter: a PyTorch model (nn.Module or function) to a symshape graph document
(docs/graph-format.md, "symshape.graph" version 1), by torch.fx symbolic tracing with the
concrete value of every node carried alongside its proxy.

How it works (docs/python.md has the user's view):
  * A torch.fx Tracer traces the model's forward with every nn.Module traced *through*
    (none is a leaf), so nn modules become the functional calls their forward makes, with the
    module's attributes as arguments (nn.Conv2d -> conv2d(input, weight, bias, stride, ...)).
    torch.nn.functional functions the engine knows (FUNCTIONAL_LEAVES, plus every F function
    the loaded library lists as an op) are recorded as single calls instead of being traced
    into, so their arguments are PyTorch's F signature.
  * Every recorded node is also executed on the example inputs (real tensors, CPU), so each
    proxy has a value. When Python code needs a concrete value - ``if x.size(0) > 1``,
    ``int(h)``, ``range(n)``, ``for t in x.unbind(0)``, ``assert h == 224`` - the value is
    used and the read is recorded: guard_bool(cond, value) for a bool, guard_int(x, value)
    for an int, len + guard_int for the length of a tensor or a list that is iterated.
  * Each node carries "loc": the innermost stack frame outside torch and this package.
  * Anything that cannot be captured faithfully raises ExportError naming the module path,
    the op and the user's source line: control flow on tensor *data*, values of types the
    format cannot hold, a model that fails at the example inputs, fx trace errors.

Only public torch.fx API is used (torch.fx.Tracer and its documented hooks create_proxy,
proxy, to_bool, iter, call_module, is_leaf_module, getattr and its proxy_buffer_attributes switch;
torch.fx.Proxy / torch.fx.proxy.Attribute; torch.fx.node.map_arg / map_aggregate). A module's
constant tensors are traced values (parameters, buffers, plain tensor attributes: _PlainTensorAttr),
and torch.Tensor's indexing and size methods are wrapped while tracing (_patch_real_tensor_methods).
The model is left as it was: its modules' attributes and buffer data are put back (_module_state).
Tested with PyTorch 1.13 (Debian 12 python3-torch 1.13.0a0, torchvision 0.14.1a0).
"""
import ast
import copy
import dis
import functools
import inspect
import itertools
import keyword
import linecache
import math
import operator
import os
import re
import sys
import threading
import types

import torch
import torch.fx
from torch.fx.node import Node, map_aggregate, map_arg
from torch.fx.proxy import Attribute, Proxy

from .errors import ExportError
from ._dynamic import normalize_dynamic_dims

__all__ = ["export", "export_to", "FUNCTIONAL_LEAVES", "normalize_dynamic_dims"]

#: torch.nn.functional functions recorded as one call (their F signature is what the engine's
#: op tables read), rather than traced into.
FUNCTIONAL_LEAVES = (
    "relu", "relu_", "relu6", "gelu", "silu", "sigmoid", "tanh", "hardswish", "hardsigmoid", "hardtanh",
    "leaky_relu", "elu", "dropout", "alpha_dropout", "feature_alpha_dropout", "dropout2d", "dropout3d",
    "softmax", "log_softmax", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
    "adaptive_max_pool2d", "linear", "embedding", "batch_norm", "layer_norm", "rms_norm", "group_norm", "instance_norm",
    "interpolate", "upsample", "multi_head_attention_forward", "scaled_dot_product_attention", "pad",
    "normalize", "softplus", "mish", "glu", "logsigmoid", "pixel_shuffle", "one_hot", "cross_entropy",
    "mse_loss", "embedding_bag", "unfold", "fold", "grid_sample", "affine_grid", "local_response_norm",
)

#: torch functions whose size or list arguments may be traced values that torch's argument
#: parser does not route through __torch_function__ (``torch.arange(x.size(1))``,
#: ``torch.cat(split_result)``, ``torch.roll(x, x.size(-1) // 2, -1)``: 2.x read the shift with
#: __index__, a guard_int, and 1.13 raised "shifts must be tuple of ints, not _SyProxy"):
#: recorded as one call when a proxy is among the arguments.
TORCH_WRAPPED = ("arange", "linspace", "logspace", "ones", "zeros", "empty", "full", "rand", "randn", "randint", "eye", "cat", "concat",
                 "stack", "hstack", "vstack", "broadcast_tensors", "meshgrid", "roll")

_DTYPES = {"float32", "float64", "float16", "bfloat16", "complex64", "complex128", "int64", "int32", "int16",
           "int8", "uint8", "bool"}

_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_ROOT_FILE = "<symshape-export>"


# ----------------------------------------------------------------------------- record ops
def guard_bool(cond, expected):
    """Graph record: capture took the branch where ``cond`` was ``expected``."""
    return expected


def _assert(cond, message):
    """Graph record: the model's own ``assert cond, message`` (the graph op ``_assert``)."""
    return None


#: torch functions that read a tensor's data only to pick a kernel, never a size: bool() of their
#: data is used as it is, without a guard. nn.Transformer* call _detect_is_causal_mask (torch >= 2.0)
#: to learn whether the attn_mask they were given is the causal one, which only selects the
#: attention kernel (is_causal); the output sizes are the same either way.
SHAPE_FREE_DATA_BOOLS = {("nn/modules/transformer.py", "_detect_is_causal_mask")}


def _shape_free_data_bool():
    f = sys._getframe(2)
    for _ in range(6):
        if f is None:
            return False
        fn = f.f_code.co_filename.replace(os.sep, "/")
        if fn.startswith(_TORCH_DIR.replace(os.sep, "/")) and any(
                fn.endswith(suffix) and f.f_code.co_name == name for suffix, name in SHAPE_FREE_DATA_BOOLS):
            return True
        f = f.f_back
    return False


def _user_frame():
    f = sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if not (fn.startswith(_TORCH_DIR) or fn.startswith(_PKG_DIR) or fn.startswith("<")):
            return f
        f = f.f_back
    return None


def _assert_message(frame):
    """The message of the user's ``assert`` whose test this bool() decides, or None when the
    bool() is not an assert's: the instruction that asked for it (frame.f_lasti) is a
    conditional jump whose false side is LOAD_ASSERTION_ERROR (``assert c`` and each operand of
    ``assert a and b``), so false raises and true goes on. The message is the constant string of
    ``assert c, "text"``; for a computed one (an f-string) the source text of its expression,
    without a message ``assert`` and the test's source text."""
    if frame is None:
        return None
    try:
        ins = list(dis.get_instructions(frame.f_code))
    except (TypeError, ValueError):
        return None
    at = {x.offset: k for k, x in enumerate(ins)}
    k = at.get(frame.f_lasti)
    if k is None or not ins[k].opname.startswith("POP_JUMP"):
        return None
    if ins[k].opname.endswith("IF_TRUE"):
        r = k + 1
    elif ins[k].opname.endswith("IF_FALSE"):
        r = at.get(ins[k].argval)
    else:
        return None
    if r is None or r >= len(ins) or ins[r].opname != "LOAD_ASSERTION_ERROR":
        return None
    if (r + 2 < len(ins) and ins[r + 1].opname == "LOAD_CONST" and isinstance(ins[r + 1].argval, str)
            and (ins[r + 2].opname.startswith("CALL") or ins[r + 2].opname == "PRECALL")):
        return ins[r + 1].argval
    src = "".join(linecache.getlines(frame.f_code.co_filename))
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError):
        tree = None
    line = frame.f_lineno
    for node in ast.walk(tree) if tree else ():
        if isinstance(node, ast.Assert) and node.lineno <= line <= (node.end_lineno or node.lineno):
            part = node.msg if node.msg is not None else node.test
            text = ast.get_source_segment(src, part) or ""
            return text if node.msg is not None else "assert " + text
    return "assertion at %s:%d" % (frame.f_code.co_filename, line)


def guard_int(value, expected):
    """Graph record: an int-valued expression was specialized to ``expected``."""
    return expected


def _len(x):
    return len(x)


_len.__name__ = "len"


def _int(x):
    return int(x)


_int.__name__ = "int"
_ABSENT = object()


class _IntMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, int)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, int)


class _TracedInt(int, metaclass=_IntMeta):
    """Stands for builtins.int in the user's module globals while tracing: ``int(p)`` of a
    traced value whose example is a float (``x.size(0) / 2``) is recorded as a call of
    ``int`` (truncation, computed symbolically by the engine) instead of being specialized;
    ``int(p)`` of a traced int (``int(math.ceil(h / 7) * 7)``) is ``p`` itself, as in Python
    (issue 32: it pinned h to its example's range); every other use is builtins.int itself
    (``isinstance(v, int)`` keeps working)."""

    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and not kwargs and isinstance(args[0], Proxy) and isinstance(args[0].tracer, _Tracer):
            p = args[0]
            v = p.tracer._val(p.node)
            if isinstance(v, float):
                return p.tracer.create_proxy("call_function", _int, (p,), {})
            if isinstance(v, int) and not isinstance(v, bool):
                return p
        return int(*args, **kwargs)


def _max(a, b):
    return max(a, b)


def _min(a, b):
    return min(a, b)


_max.__name__ = "max"
_min.__name__ = "min"


def _traced_minmax(builtin, rec):
    """Stands for builtins.max / builtins.min in the user's module globals while tracing:
    ``max(1, T // 8)`` with a traced int among two or more plain int arguments is recorded as
    the engine's ``max`` / ``min`` of sizes (torch.sym_max, what torch.export records), one call
    per pair; Python's max compared the values, a guard_bool that kept the example's branch
    (mixture-of-depths' k = max(1, int(T * 0.125)): T >= 16 only). Any other use (an iterable,
    key= or default=, tensors, floats) is the builtin itself."""
    def f(*args, **kwargs):
        if len(args) >= 2 and not kwargs:
            tr = None
            for a in args:
                if isinstance(a, Proxy) and isinstance(a.tracer, _Tracer):
                    tr = a.tracer
                    v = tr._val(a.node)
                elif isinstance(a, Proxy):
                    tr = None
                    break
                else:
                    v = a
                if not isinstance(v, int) or isinstance(v, bool):
                    tr = None
                    break
            if tr is not None:
                out = args[0]
                for a in args[1:]:
                    out = tr.create_proxy("call_function", rec, (out, a), {})
                return out
        return builtin(*args, **kwargs)
    f.__name__ = builtin.__name__
    return f


_TRACED_MAX = _traced_minmax(max, _max)
_TRACED_MIN = _traced_minmax(min, _min)


def _user_loc(frame=None):
    """The innermost frame outside torch, this package and generated code, as a loc dict."""
    f = frame or sys._getframe(1)
    while f is not None:
        fn = f.f_code.co_filename
        if not (fn.startswith(_TORCH_DIR) or fn.startswith(_PKG_DIR) or fn.startswith("<")):
            return {"file": fn, "line": f.f_lineno, "function": f.f_code.co_name}
        f = f.f_back
    return None


def _tb_loc(tb):
    loc = None
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename
        if not (fn.startswith(_TORCH_DIR) or fn.startswith(_PKG_DIR) or fn.startswith("<")):
            loc = {"file": fn, "line": tb.tb_lineno, "function": tb.tb_frame.f_code.co_name}
        tb = tb.tb_next
    return loc


def _dtype_name(dt):
    return str(dt).replace("torch.", "")


def _op_name(node):
    t = node.target
    if node.op == "call_method":
        return t
    if t is getattr:
        return "getattr"
    name = getattr(t, "__name__", None)
    if not isinstance(name, str) or not name:
        raise ExportError("cannot name the called object %r" % (t,), node.meta.get("sy_module"), None,
                          node.meta.get("sy_loc"))
    return name


def _same_storage(a, b):
    try:
        return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    except (AttributeError, RuntimeError):  # torch 1.13: storage()
        try:
            return a.storage().data_ptr() == b.storage().data_ptr()
        except Exception:  # noqa: BLE001 - no storage to compare: assume shared (refuse)
            return True


# ----------------------------------------------------------------------------- proxies
class _SyProxy(Proxy):
    """A Proxy whose concrete value is known (tracer._val(node)): Python reads of it are
    answered from the value and recorded as guards."""

    def __getattr__(self, k):
        return _SyAttribute(self, k)

    def __bool__(self):
        return self.tracer.to_bool(self)

    def __int__(self):
        return self.tracer.to_int(self, "int()")

    def __index__(self):
        return self.tracer.to_int(self, "index")

    def __float__(self):
        v = self.tracer.const_data(self)
        if v is not None:
            return float(v)
        return float(self.tracer.to_int(self, "float()"))

    def __len__(self):
        return self.tracer.to_len(self)

    def __iter__(self):
        return self.tracer.iter(self)

    def __contains__(self, item):
        raise self.tracer.error("'in' on a traced value is not supported", self.node)

    # ``x += y`` on a traced tensor: Tensor.__iadd__ is add_ (in place: y must expand into x's sizes,
    # the result has x's); torch.fx's Proxy has no in-place operators, so Python fell back to
    # ``x = x + y``, a two-way broadcast (relax38: x[1, T] += y[5, T] fails on the CPU and was
    # accepted). A traced int (a size) keeps Python's int semantics (NotImplemented: __add__).
    def _inplace(self, method, other):
        if not isinstance(self.tracer._val(self.node), torch.Tensor):
            return NotImplemented
        return self.tracer.create_proxy("call_method", method, (self, other), {})

    def __setitem__(self, key, value):
        """``x[idx] = v`` on a traced tensor: recorded as operator.setitem (graph op ``setitem``:
        the region's bounds and the value's broadcast are checked; x keeps its sizes). A value that
        shares x's memory (``y[1:] = y[:-1]``) is refused: torch raises where the two regions
        overlap, which depends on the sizes, and the graph cannot say which memory a value uses."""
        if isinstance(value, Proxy) and isinstance(value.tracer, _Tracer):
            xv, vv = self.tracer._val(self.node), self.tracer._val(value.node)
            if isinstance(xv, torch.Tensor) and isinstance(vv, torch.Tensor) and _same_storage(xv, vv):
                raise self.tracer.error("x[idx] = v where v is a view of x: torch refuses the copy at sizes where the "
                                        "two regions overlap, which the graph cannot check; write x[idx] = v.clone()",
                                        self.node)
        self.tracer.create_proxy("call_function", operator.setitem, (self, key, value), {})


# Python's augmented operators on a traced tensor and the in-place method each records (_inplace)
_INPLACE_OPERATORS = {"__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_",
                      "__ifloordiv__": "floor_divide_", "__imod__": "remainder_", "__ipow__": "pow_",
                      "__iand__": "bitwise_and_", "__ior__": "bitwise_or_", "__ixor__": "bitwise_xor_"}
for _name, _method in _INPLACE_OPERATORS.items():
    setattr(_SyProxy, _name, lambda self, other, _method=_method: self._inplace(_method, other))


class _SyAttribute(_SyProxy, Attribute):
    pass


# ----------------------------------------------------------------------------- tracer
def _unwrap_fx_wrapped(engine_ops):
    """torch.fx.wrap("f") (torchvision's swin: shifted_window_attention, _patch_merging_pad,
    _get_relative_position_bias; mvit: _unsqueeze, _squeeze, _add_rel_pos, ...) makes symbolic
    tracing record f as one node; the engine has ops for some (docs/ops.md 10a), so the capture
    traces into every wrapped function the engine has no op of that name for. torch.fx keeps the registrations in torch.fx._symbolic_trace._wrapped_fns_to_patch (a
    private name: a dict {(id(globals), name): globals} in torch 2.x, a list [(globals, name)] in
    1.13), which Tracer.trace reads when it starts: it is filtered for the trace and restored after.
    Returns the restore function (a no-op where the name is absent or of another type)."""
    import torch.fx._symbolic_trace as st
    saved = getattr(st, "_wrapped_fns_to_patch", None)
    if engine_ops is None:
        return lambda: None

    def keep(name, g):
        return name in engine_ops or str(g.get("__name__", "")).startswith("torch.fx")
    if isinstance(saved, dict):
        st._wrapped_fns_to_patch = {k: g for k, g in saved.items() if keep(k[1], g)}
    elif isinstance(saved, list):
        st._wrapped_fns_to_patch = [(g, n) for g, n in saved if keep(n, g)]
    else:
        return lambda: None

    def restore():
        st._wrapped_fns_to_patch = saved
    return restore


class _Tracer(torch.fx.Tracer):
    # A module's constant tensors are traced values (get_attr nodes, written as "param"), so every
    # method and operator applied to them with traced arguments is recorded: parameters (fx's
    # default), buffers (this switch, torch.fx.proxy.TracerBase) and plain tensor attributes
    # (_PlainTensorAttr). A real tensor there went through torch's C++ argument parser, which reads
    # a traced argument through __index__ / the sequence protocol instead of __torch_function__:
    # ``self.pe[positions]`` iterated the index (too many indices, or an unknown op __getitem__),
    # ``self.pe[:x.size(1)]`` and ``self.buf.expand(x.size(0), -1)`` pinned the size to its example.
    proxy_buffer_attributes = True

    def __init__(self, inputs, leaves):
        super().__init__(autowrap_modules=(math,), autowrap_functions=())
        self._inputs = inputs          # placeholder name -> example value
        self._vals = {}                # Node -> concrete value
        self._modstack = [""]
        self._mha_fastpath = False  # inside an nn.MultiheadAttention call that may take the fast path
        self._leaves = leaves          # id(orig F function) -> wrapper
        self._patched = []             # (dict, name, original)
        self._seen_globals = set()
        self._deps = _InputDeps()      # which nodes depend on an input
        self._const_proxies = {}       # qualified name -> get_attr proxy of a plain tensor attribute

    # --- module structure
    def is_leaf_module(self, m, qualname):
        return False

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """torch.fx's Tracer.getattr, with the parameter (buffer) found by identity in an index
        made once: fx scans root.named_parameters() on every access, quadratic in the layers
        (400 blocks of Linear + LayerNorm: 10.9 s to export, 3.3 s at 200; issue 38). Same
        names (the first of named_parameters / named_buffers, as fx) and the same proxies."""
        if isinstance(attr_val, torch.Tensor):
            idx = getattr(self, "_attr_index", None)
            if idx is None or idx[0] is not self.root:
                idx = self._attr_index = (self.root, {}, {})
                for n, p_ in self.root.named_parameters():
                    idx[1].setdefault(id(p_), n)
                for n, b in self.root.named_buffers():
                    idx[2].setdefault(id(b), n)
            n = idx[1].get(id(attr_val)) if isinstance(attr_val, torch.nn.Parameter) else None
            if n is None and self.proxy_buffer_attributes:
                n = idx[2].get(id(attr_val))
            if n is not None and not getattr(self, "param_shapes_constant", False):
                if n not in parameter_proxy_cache:
                    parameter_proxy_cache[n] = self.create_proxy("get_attr", n, (), {})
                return parameter_proxy_cache[n]
        return super().getattr(attr, attr_val, parameter_proxy_cache)

    def call_module(self, m, forward, args, kwargs):
        try:
            path = self.path_of_module(m)
        except NameError:
            path = "<%s not registered as a submodule>" % type(m).__name__
        if path.startswith("m."):
            path = path[2:]
        elif path == "m":
            path = ""
        fwd = getattr(type(m), "forward", None)
        if fwd is not None:
            self.patch_globals(getattr(fwd, "__globals__", None))
        self._modstack.append(path)
        fast = self._mha_fastpath
        self._mha_fastpath = _mha_fastpath_eligible(self, m, args, kwargs)
        try:
            return forward(*args, **kwargs)
        finally:
            self._modstack.pop()
            self._mha_fastpath = fast

    def patch_globals(self, g):
        """Record the F leaves in a module's globals too (``from torch.nn.functional import relu``)."""
        if g is None or id(g) in self._seen_globals:
            return
        self._seen_globals.add(id(g))
        for k, v in list(g.items()):
            w = self._leaves.get(id(v)) if callable(v) else None
            if w is not None and v is not w:
                self._patched.append((g, k, v))
                g[k] = w
        fn = g.get("__file__") or ""
        if "int" not in g and not (fn.startswith(_TORCH_DIR) or fn.startswith(_PKG_DIR)):
            # user code: int(x.size(0) / 2) is recorded as a call of int (builtins.int stays
            # for everything else; torch's own modules are not touched)
            self._patched.append((g, "int", _ABSENT))
            g["int"] = _TracedInt
            # max(1, T // 8): the engine's max of sizes, not a comparison (_traced_minmax)
            for name, f in (("max", _TRACED_MAX), ("min", _TRACED_MIN)):
                if name not in g:
                    self._patched.append((g, name, _ABSENT))
                    g[name] = f

    def unpatch(self):
        for g, k, v in reversed(self._patched):
            if v is _ABSENT:
                g.pop(k, None)
            else:
                g[k] = v
        self._patched = []

    # --- errors
    def error(self, msg, node=None, op=None):
        loc = node.meta.get("sy_loc") if node is not None else None
        return ExportError(msg, self._modstack[-1], op or (_op_name(node) if node is not None and
                                                          node.op.startswith("call") else op),
                           loc or _user_loc())

    # --- values
    def proxy(self, node):
        return _SyProxy(node, self)

    def _val(self, node):
        if node in self._vals:
            return self._vals[node]
        if node.op == "get_attr":
            v = _fetch_attr(self.root, node.target)
        elif node.op == "placeholder":
            v = self._inputs[node.target]
        else:
            v = self._run(node)
        self._vals[node] = v
        return v

    def _run(self, node):
        a = map_arg(node.args, self._val)
        k = map_arg(node.kwargs, self._val)
        try:
            with torch.no_grad():
                if node.op == "call_function":
                    return node.target(*a, **k)
                if node.op == "call_method":
                    return getattr(a[0], node.target)(*a[1:], **k)
        except ExportError:
            raise
        except Exception as e:
            raise ExportError("the model fails at the example inputs: %s: %s" % (type(e).__name__, e),
                              node.meta.get("sy_module"), _op_name(node), node.meta.get("sy_loc")) from e
        raise ExportError("unsupported node kind " + node.op, node.meta.get("sy_module"), None,
                          node.meta.get("sy_loc"))

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        node = super().create_node(kind, target, args, kwargs, name, type_expr)
        node.meta["sy_loc"] = _user_loc()
        node.meta["sy_module"] = self._modstack[-1]
        self._deps.add(node)
        if self._mha_fastpath and kind == "call_function" and getattr(target, "__name__", "") == "multi_head_attention_forward":
            node.meta["sy_mha_fastpath"] = True
        return node

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None, proxy_factory_fn=None):
        if kind == "call_method" and target in _CONST_READS and args and isinstance(args[0], Proxy) and \
                not any(isinstance(a, Proxy) for a in list(args[1:]) + list(kwargs.values())):
            v = self.const_data(args[0])
            if v is not None:  # the data of a constant: a Python value, as a real tensor gives
                return getattr(v, target)(*args[1:], **kwargs)
        if kind == "call_method" and isinstance(target, str) and target.endswith("_") and not target.startswith("_") \
                and args and isinstance(args[0], Proxy):
            self._refuse_partial_overlap(target, args, kwargs)
        p = super().create_proxy(kind, target, args, kwargs, name, type_expr, proxy_factory_fn)
        if kind != "output":
            self._val(p.node)
        return p

    def _refuse_partial_overlap(self, target, args, kwargs):
        """x.add_(v) where v is another view of x's memory (``z[1:].add_(z[:-1])``): ATen asserts that
        the written-to tensor and an input do not partly overlap (TensorIterator, MemoryOverlap.cpp
        assert_no_partial_overlap: "some elements of the input tensor and the written-to tensor
        refer to a single memory location"), an error at the sizes where the two regions overlap
        (z[1:] and z[:-1] from 3 rows), which the graph cannot check, as x[idx] = v (__setitem__).
        Refused; the same view (z.add_(z), a full overlap) is allowed."""
        sv = self._val(args[0].node)
        if not isinstance(sv, torch.Tensor):
            return
        for a in list(args[1:]) + list(kwargs.values()):
            if not (isinstance(a, Proxy) and isinstance(a.tracer, _Tracer)):
                continue
            v = self._val(a.node)
            if isinstance(v, torch.Tensor) and _same_storage(sv, v) and not (
                    v.data_ptr() == sv.data_ptr() and v.shape == sv.shape and v.stride() == sv.stride()):
                raise self.error("x.%s(v) where v is another view of x's memory: torch refuses it at sizes where "
                                 "the two regions overlap, which the graph cannot check; write x.%s(v.clone())"
                                 % (target, target), args[0].node, target)

    def const_proxy(self, qualname):
        """The get_attr proxy of the plain tensor attribute ``qualname`` (one per name)."""
        p = self._const_proxies.get(qualname)
        if p is None:
            p = self._const_proxies[qualname] = self.create_proxy("get_attr", qualname, (), {})
        return p

    def const_data(self, obj):
        """The tensor value of ``obj`` when it depends on no input (computed from parameters,
        buffers and constants alone), else None: its data is the same at every input size."""
        v = self._val(obj.node)
        if isinstance(v, torch.Tensor) and not self._deps.on_input.get(obj.node, True):
            return v
        return None

    # --- Python reads of values: recorded
    def _guard(self, fn, proxy, expected):
        return self.create_proxy("call_function", fn, (proxy, expected), {})

    def to_bool(self, obj):
        v = self._val(obj.node)
        if isinstance(v, torch.Tensor):
            if _shape_free_data_bool() or self.const_data(obj) is not None:
                return bool(v)
            raise self.error("data-dependent control flow: bool() of a tensor's data (the branch would be "
                             "fixed to this example's values)", obj.node)
        if not isinstance(v, (bool, int, list, tuple, type(None), torch.Size)):
            raise self.error("bool() of a %s value cannot be recorded" % type(v).__name__, obj.node)
        b = bool(v)
        msg = _assert_message(_user_frame()) if b and isinstance(v, bool) else None
        if msg is not None:  # the model's assert: recorded with its message (the report's reason)
            self.create_proxy("call_function", _assert, (obj, msg), {})
        else:
            self._guard(guard_bool, obj, b)
        return b

    def to_int(self, obj, what):
        v = self._val(obj.node)
        if self.const_data(obj) is not None:  # as torch: int() truncates, an index needs an integer tensor
            return operator.index(v) if what == "index" else int(v)
        if isinstance(v, torch.Tensor):
            raise self.error("%s of a tensor's data is data-dependent (use .item() and let the engine treat it "
                             "as unbacked)" % what, obj.node)
        if isinstance(v, bool):
            v = int(v)
        if not isinstance(v, int):
            raise self.error("%s of a %s value cannot be recorded (only ints are specialized with guard_int)"
                             % (what, type(v).__name__), obj.node)
        self._guard(guard_int, obj, v)
        return v

    def to_len(self, obj):
        v = self._val(obj.node)
        if isinstance(v, torch.Size):
            return len(v)  # the rank: fixed by the tensor-match guards
        if not isinstance(v, (torch.Tensor, list, tuple)):
            raise self.error("len() of a %s value cannot be recorded" % type(v).__name__, obj.node)
        if isinstance(v, torch.Tensor) and v.dim() == 0:
            raise self.error("len() of a 0-d tensor", obj.node)
        n = len(v)
        ln = self.create_proxy("call_function", _len, (obj,), {})
        self._guard(guard_int, ln, n)
        return n

    def iter(self, obj):
        n = self.to_len(obj)
        return iter([obj[i] for i in range(n)])

    def keys(self, obj):
        raise self.error("** unpacking of a traced value is not supported", obj.node)


#: Tensor methods that read a tensor's data into Python values: on a tensor computed from constants
#: alone they give the value itself (no node), since no input size can change it.
_CONST_READS = ("item", "tolist", "numpy")


class _PlainTensorAttr:
    """While tracing, a module's plain tensor attribute (a tensor in its ``__dict__``, neither a
    parameter nor a buffer: ``self.table = torch.randn(...)``) reads as its get_attr proxy, as
    parameters and buffers do (_Tracer.proxy_buffer_attributes). A data descriptor of a subclass
    made for that one instance (_proxy_plain_tensors), since Python finds such an attribute in the
    instance dict without calling Module.__getattr__, the hook torch.fx traces through. The dict
    keeps the value: an assignment in forward writes there and later reads get what was written."""

    def __init__(self, name, qualname, orig, tracer):
        self.name, self.qualname, self.orig, self.tracer = name, qualname, orig, tracer

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        try:
            v = obj.__dict__[self.name]
        except KeyError:
            raise AttributeError(self.name) from None
        return self.tracer.const_proxy(self.qualname) if v is self.orig else v

    def __set__(self, obj, value):
        obj.__dict__[self.name] = value

    def __delete__(self, obj):
        try:
            del obj.__dict__[self.name]
        except KeyError:
            raise AttributeError(self.name) from None


def _proxy_plain_tensors(root, tracer):
    """Give each module of ``root`` that has plain tensor attributes a class of its own, a subclass
    of its class (same name) with a _PlainTensorAttr for each; returns the function that gives the
    modules their classes back. Qualified names are those torch.fx gives such a tensor (its
    tensor_attrs: the module path from the root, then the attribute)."""
    swapped = []
    for path, mod in root.named_modules():
        attrs = {k: v for k, v in vars(mod).items() if isinstance(v, torch.Tensor)}
        if not attrs:
            continue
        cls = type(mod)
        ns = {k: _PlainTensorAttr(k, path + "." + k if path else k, v, tracer) for k, v in attrs.items()}
        ns["__module__"], ns["__qualname__"] = cls.__module__, cls.__qualname__
        try:
            mod.__class__ = type(cls.__name__, (cls,), ns)
        except TypeError:  # a class that cannot be subclassed or swapped: its tensors stay plain
            continue
        swapped.append((mod, cls))

    def restore():
        for mod, cls in reversed(swapped):
            mod.__class__ = cls
    return restore


def _module_state(model):
    """Snapshot of the attributes of every module of ``model`` (its instance dict, and the contents
    of the dicts, sets and lists in it: _parameters, _buffers, _modules, a user's cache dict);
    returns the function that puts them back. The capture runs forward once with traced values:
    an assignment there (self.state = x[-1:], self.cache["k"] = k, self.steps += 1) left a traced
    value in the user's module after export (its next real call computed with a proxy). The
    example values of the capture are computed on the module's own tensors, so an in-place op in
    forward (self.count += n, a running mean's mul_/add_, a KV cache written by slices) changed
    the data of a buffer or plain tensor attribute: their data is copied first (parameters are
    not: their size, and in-place writes to them in forward are rare) and written back, all of it
    (a kernel's own update, batch_norm's running statistics in training mode, does not move the
    tensor's version counter)."""
    saved, data = [], []
    if isinstance(model, torch.nn.Module):
        for mod in model.modules():
            d = vars(mod)
            saved.append((d, dict(d), {k: copy.copy(v) for k, v in d.items() if isinstance(v, (dict, set, list))}))
            for t in itertools.chain(d.get("_buffers", {}).values(), d.values(), d.get("_parameters", {}).values()):
                # parameters: only the integer ones, whose values an index reads (_param_values)
                if isinstance(t, torch.Tensor) and (not isinstance(t, torch.nn.Parameter) or t.dtype in _VALUE_DTYPES):
                    data.append((t, t.detach().clone()))

    def restore():
        """puts the state back; returns the ids of the tensors whose data the capture changed (a
        write the graph need not show: self._buffers["b"].add_(1), a hook's, b.data.copy_(...))"""
        changed = set()
        with torch.no_grad():
            for t, orig in data:
                if t.shape != orig.shape or t.dtype != orig.dtype or not torch.equal(t, orig):
                    changed.add(id(t))
                if isinstance(t, torch.nn.Parameter) and t.shape == orig.shape:
                    t.data.copy_(orig)
                elif t.shape == orig.shape:
                    t.copy_(orig)
                else:  # a resize_ in forward
                    t.set_(orig)
        for d, attrs, inner in saved:
            for k in [k for k in d if k not in attrs]:
                del d[k]
            d.update(attrs)
            for k, v in inner.items():
                if isinstance(v, list):
                    d[k][:] = v
                else:
                    d[k].clear()
                    d[k].update(v)
        return changed
    return restore


def _buffer_setattr(orig):
    """nn.Module.__setattr__ while tracing: a traced value assigned to a buffer's name
    (self.state = x[-1:], a recurrent state or cache kept in a buffer) replaces the buffer, as
    torch 2.x's Module.__setattr__ does for a value with __torch_function__; torch 1.13's accepts
    only a Tensor and asked torch.typename of the proxy for its TypeError, which failed the
    capture with "'Tensor' object has no attribute '__qualname__'"."""
    def __setattr__(self, name, value):
        bufs = self.__dict__.get("_buffers")
        if isinstance(value, Proxy) and bufs is not None and name in bufs:
            bufs[name] = value
            return
        orig(self, name, value)
    return __setattr__


# ----------------------------------------------------------------------------- helpers
def _fetch_attr(root, target):
    """The tensor a get_attr node names, read from the modules' own dicts (no __getattr__,
    which torch.fx patches while tracing)."""
    parts = target.split(".")
    mod = root
    for a in parts[:-1]:
        mod = mod.__dict__["_modules"][a]
    last = parts[-1]
    d = mod.__dict__
    for table in ("_parameters", "_buffers", "_modules"):
        if last in d.get(table, {}):
            return d[table][last]
    return d[last]


@functools.lru_cache(maxsize=1)
def _engine_ops():
    """The op names of the loaded engine (sy_env_op_names), or None without the library; read once."""
    try:
        from ._lib import lib
        from ctypes import POINTER, c_char_p
        lib.sy_env_op_names.restype = POINTER(c_char_p)
        lib.sy_env_op_names.argtypes = []
        arr = lib.sy_env_op_names()
        names, i = set(), 0
        while arr[i]:
            names.add(arr[i].decode())
            i += 1
        return names
    except Exception:
        return None


def _leaf_wrappers():
    """id(F function) -> wrapper recording one call_function node when a proxy is among the
    arguments (torch.fx's own autowrap does the same for math functions)."""
    import torch.nn.functional as F
    names = set(FUNCTIONAL_LEAVES) | (_engine_ops() or set())  # every op of the engine that is an F function
    out = {}
    for n in sorted(names):
        orig = F.__dict__.get(n)
        if orig is None or not callable(orig) or isinstance(orig, type):
            continue
        out[id(orig)] = (F.__dict__, n, orig, _make_wrapper(orig))
    for n in TORCH_WRAPPED:
        orig = torch.__dict__.get(n)
        if orig is not None and callable(orig) and id(orig) not in out:
            out[id(orig)] = (torch.__dict__, n, orig, _make_wrapper(orig))
    # every other torch function that is an engine op and parsed by torch's C argument parser
    # (a builtin): the parser matches the signature before it calls __torch_function__, so a traced
    # int in an int or size argument was read with __index__ (2.x: a guard_int pinning the size to its
    # example, torch.topk(x, x.size(1) // 2): 1 of 20 sizes kept) or refused (1.13: "topk(): argument
    # 'k' (position 2) must be int, not _SyProxy"), where the Tensor method (x.topk(k)) was recorded
    for n in sorted(_engine_ops() or ()):
        orig = torch.__dict__.get(n)
        if isinstance(orig, types.BuiltinFunctionType) and id(orig) not in out:
            out[id(orig)] = (torch.__dict__, n, orig, _make_wrapper(orig))
    import torch.nn.utils.rnn as rnn
    for n in ("pack_padded_sequence", "pack_sequence"):
        orig = rnn.__dict__.get(n)
        if orig is not None and callable(orig):
            out[id(orig)] = (rnn.__dict__, n, orig, _make_refusal(orig, _PACKED_MSG % n))
    return out


# pack_padded_sequence / pack_sequence on traced values: torch.as_tensor(lengths) reads the values
# (a TypeError about __cuda_array_interface__ on a proxy), and what follows has sizes taken from them
_PACKED_MSG = ("%s: a PackedSequence cannot be exported: its data has sum(lengths) rows and the RNN runs "
               "batch_sizes[t] sequences at step t, sizes read from the values of lengths, which a shape graph "
               "does not carry. To export, run the LSTM/GRU on the padded batch (out, h = rnn(x)) and mask the "
               "padded steps (mask = torch.arange(x.shape[1])[None, :] < lengths[:, None]; the last valid output "
               "of sequence i is out[i, lengths[i] - 1], while h then includes the padded steps), or keep the "
               "packing outside the exported module")


def _make_refusal(orig, msg):
    """A wrapper that refuses a call on traced values with msg (at the user's line), and calls orig
    on plain values."""
    @functools.wraps(orig)
    def wrapper(*args, **kwargs):
        tr = _find_tracer(args, kwargs)
        if tr is None:
            return orig(*args, **kwargs)
        raise tr.error(msg, op=orig.__name__)
    wrapper.__symshape_leaf__ = True
    return wrapper


def _find_tracer(args, kwargs):
    found = []

    def f(a):
        if isinstance(a, Proxy) and isinstance(a.tracer, _Tracer):
            found.append(a.tracer)
        return a

    map_aggregate(args, f)
    map_aggregate(kwargs, f)
    return found[0] if found else None


def _make_wrapper(orig):
    @functools.wraps(orig)
    def wrapper(*args, **kwargs):
        tr = _find_tracer(args, kwargs)
        if tr is None:
            return orig(*args, **kwargs)
        return tr.create_proxy("call_function", orig, args, kwargs)
    wrapper.__symshape_leaf__ = True
    return wrapper


def _finite(x):
    if isinstance(x, float) and not math.isfinite(x):
        return "inf" if x > 0 else ("-inf" if x < 0 else "nan")
    return x


# ----------------------------------------------------------------------------- export
def _bind_inputs(model, example_inputs):
    """(names, values, call code) for the root forward."""
    target = model.forward if isinstance(model, torch.nn.Module) else model
    if isinstance(example_inputs, dict):
        names = list(example_inputs)
        values = dict(example_inputs)
        call = ", ".join("%s=%s" % (n, n) for n in names)
    else:
        if isinstance(example_inputs, (torch.Tensor, int)):
            example_inputs = (example_inputs,)
        if not isinstance(example_inputs, (tuple, list)):
            raise ExportError("example_inputs must be a dict {name: Tensor or int} or a tuple, got %s"
                              % type(example_inputs).__name__)
        try:
            params = [p for p in inspect.signature(target).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            params = []
        names = []
        for i in range(len(example_inputs)):
            names.append(params[i].name if i < len(params) else "arg%d" % i)
        values = dict(zip(names, example_inputs))
        call = ", ".join(names)
    for n in names:
        if not isinstance(n, str) or not n.isidentifier() or keyword.iskeyword(n) or n in ("self", "m"):
            raise ExportError("input name %r is not usable (a Python identifier other than self/m)" % (n,))
        v = values[n]
        if isinstance(v, torch.Tensor):
            if _dtype_name(v.dtype) not in _DTYPES:
                raise ExportError("input %s has dtype %s, which the graph format does not have" % (n, v.dtype))
            if v.layout != torch.strided:
                raise ExportError("input %s is not a strided tensor (%s)" % (n, v.layout))
        elif isinstance(v, bool) or not isinstance(v, (int, float)) and v is not None:
            raise ExportError("input %s: example inputs must be tensors or ints, got %s" % (n, type(v).__name__))
    return names, values, call


def _make_root(model, names, call):
    src = "def forward(self, %s):\n    return self.%s(%s)\n" % (", ".join(names), "m" if isinstance(
        model, torch.nn.Module) else "fn", call)
    ns = {}
    exec(compile(src, _ROOT_FILE, "exec"), ns)
    cls = type("SymshapeRoot", (torch.nn.Module,), {"forward": ns["forward"]})
    root = cls()
    if isinstance(model, torch.nn.Module):
        root.m = model
    else:
        object.__setattr__(root, "fn", model)
    return root


def _value_json(v, where):
    """A literal argument value (not a node) in the format's VALUE form."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return _finite(v)
    if isinstance(v, Node):
        raise AssertionError("nodes are handled by the caller")
    if isinstance(v, (torch.Size, list, tuple)):
        return [_value_json(x, where) for x in v]
    if isinstance(v, slice):
        return {"slice": [_value_json(v.start, where), _value_json(v.stop, where), _value_json(v.step, where)]}
    if v is Ellipsis:
        return {"ellipsis": True}
    if isinstance(v, torch.dtype):
        return {"dtype": _dtype_name(v)}
    if isinstance(v, (torch.device, torch.memory_format, torch.layout)):
        return str(v)
    raise where("an argument of type %s cannot be written to the graph" % type(v).__name__)


def _strides_json(t):
    """An input's "strides" field (docs/graph-format.md): None for a contiguous tensor (the
    default), a memory format name for a dense channels_last(_3d) one, else the strides."""
    if t.is_contiguous():
        return None
    if t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last):
        return "channels_last"
    if t.dim() == 5 and t.is_contiguous(memory_format=torch.channels_last_3d):
        return "channels_last_3d"
    return list(t.stride())


def _example_json(v):
    if isinstance(v, torch.Tensor):
        return {"dtype": _dtype_name(v.dtype), "shape": list(v.shape)}
    if isinstance(v, bool) or isinstance(v, int):
        return {"value": v}
    if isinstance(v, torch.Size):
        return {"value": list(v)}
    if isinstance(v, (list, tuple)):
        if all(isinstance(x, int) and not isinstance(x, bool) for x in v):
            return {"value": list(v)}
        items = [_example_json(x) for x in v]
        return {"items": [i if i is not None else {"value": None} for i in items]}
    if isinstance(v, float) and math.isfinite(v):
        return {"value": v}
    return None


#: one capture at a time: it patches process-wide state (torch functions, nn.Module.__setattr__,
#: the user's module globals) and restores what it found, so two concurrent captures restored each
#: other's patches (4 threads exporting left torch.zeros, torch.eye, ... wrapped for good), and
#: torch.fx's own patcher is not thread-safe ("CURRENT_PATCHER is None in finally block")
_EXPORT_LOCK = threading.RLock()


def export(model, example_inputs, dynamic=None, name=None):
    """Export ``model`` (an nn.Module or a function) traced at ``example_inputs`` to a graph
    document (a dict, docs/graph-format.md).

    example_inputs: a dict {name: Tensor or int} (calls ``model(**inputs)``) or a tuple (calls
    ``model(*inputs)``; names from the forward signature). Int inputs are specialized (written
    as constants).
    dynamic: {name: [dim, ...]} - the dims of each tensor input that get symbols; dims may be
    dynamic-dim spec objects {"dim", "name", "min", "max"} or strings "D:NAME@MIN..MAX", passed
    through to the graph. None: every dim of every tensor input. Inputs not named are static.
    name: the model name (default: the class or function name).

    Raises ExportError for anything that cannot be captured (see the module docstring).
    Thread-safe: concurrent calls run one after the other."""
    with _EXPORT_LOCK:
        return _export(model, example_inputs, dynamic, name)


def _export(model, example_inputs, dynamic, name):
    if not (isinstance(model, torch.nn.Module) or callable(model)):
        raise ExportError("model must be an nn.Module or a function, got %s" % type(model).__name__)
    names, values, call = _bind_inputs(model, example_inputs)
    if dynamic is not None and not isinstance(dynamic, dict):
        raise ExportError("dynamic must be a dict {input name: [dim, ...]} or None")
    dyn = {}
    for n in names:
        v = values[n]
        if not isinstance(v, torch.Tensor):
            if dynamic and n in dynamic:
                raise ExportError("dynamic: input %s is not a tensor (int inputs are specialized)" % n)
            continue
        if dynamic is None:
            dyn[n] = list(range(v.dim()))
        else:
            dyn[n] = normalize_dynamic_dims(n, dynamic.get(n, []))
        for d in dyn[n]:
            k = d["dim"] if isinstance(d, dict) else d
            if not -v.dim() <= k < v.dim():
                raise ExportError("dynamic: input %s has %d dims, no dim %d" % (n, v.dim(), k))
    for n in (dynamic or {}):
        if n not in values:
            raise ExportError("dynamic: no input named %r (inputs: %s)" % (n, ", ".join(names)))

    root = _make_root(model, names, call)
    leaves = _leaf_wrappers()
    tracer = _Tracer(values, {k: w for k, (_, _, _, w) in leaves.items()})
    for _, (table, n, orig, w) in leaves.items():
        tracer._patched.append((table, n, orig))
        table[n] = w
    _patch_type_checks(tracer)
    _patch_real_tensor_methods(tracer)
    if not isinstance(model, torch.nn.Module):
        tracer.patch_globals(getattr(model, "__globals__", None))
    else:
        tracer.patch_globals(getattr(type(model).forward, "__globals__", None))
    was_training = None
    # torch >= 2.1: nn.TransformerEncoder(Layer) and nn.MultiheadAttention take a fused "fast path" in
    # eval mode, which first asks whether the key padding mask is left-aligned
    # (torch._nested_tensor_from_mask_left_aligned, a read of the mask's data) and runs on nested
    # tensors; its output sizes are those of the standard path. The capture takes the standard path
    # (public switch torch.backends.mha.set_fastpath_enabled), as torch.export does.
    mha = getattr(torch.backends, "mha", None)
    fast = mha.get_fastpath_enabled() if mha is not None and hasattr(mha, "get_fastpath_enabled") else None
    try:
        if fast:
            mha.set_fastpath_enabled(False)
        restore_wrapped = _unwrap_fx_wrapped(_engine_ops())
        restore_state = _module_state(model)
        restore_plain = _proxy_plain_tensors(root, tracer)
        orig_setattr = torch.nn.Module.__setattr__
        torch.nn.Module.__setattr__ = _buffer_setattr(orig_setattr)
        try:
            with torch.no_grad():
                graph = tracer.trace(root)
        finally:
            torch.nn.Module.__setattr__ = orig_setattr
            restore_plain()
            changed = restore_state()
            restore_wrapped()
        # a module tensor the capture changed without a write in the graph holds other values at
        # the next call: its get_attr roots are written (no "values" for it nor what is computed from it)
        for nd in graph.nodes:
            if nd.op == "get_attr" and id(tracer._val(nd)) in changed:
                tracer._deps.mutated.add(("get_attr", nd.target))
    except ExportError:
        raise
    except Exception as e:
        raise ExportError("%s: %s" % (type(e).__name__, e), tracer._modstack[-1], None,
                          _tb_loc(e.__traceback__)) from e
    finally:
        if fast:
            mha.set_fastpath_enabled(True)
        tracer.unpatch()
    doc = _to_document(graph, tracer, values, dyn, name or getattr(model, "__name__", None) or
                       type(model).__name__)
    return doc


def _mha_fastpath_eligible(tracer, m, args, kwargs):
    """Whether nn.MultiheadAttention m, called with args/kwargs, may take its fused fast path
    (torch._native_multi_head_attention) at run time: the module-level conditions of
    MultiheadAttention.forward (torch 2.x, torch/nn/modules/activation.py: batched self-attention,
    eval mode, batch_first, an even num_heads, the packed in-projection with its bias, no bias_k,
    no add_zero_attn). Whether it does also depends on the grad mode at run time
    (torch.is_grad_enabled() with parameters that require grad takes the Python path), which no
    guard can read: the op then accepts only the sizes both paths run (docs/ops.md)."""
    if not isinstance(m, torch.nn.MultiheadAttention) or int(torch.__version__.split(".")[0]) < 2:
        return False
    names = ("query", "key", "value")
    qkv = [args[i] if i < len(args) else kwargs.get(n) for i, n in enumerate(names)]
    q = qkv[0]
    if q is None or q is not qkv[1] or qkv[1] is not qkv[2] or not isinstance(q, torch.fx.Proxy):
        return False
    v = tracer._val(q.node)  # the example value (a proxy's ndim would be a traced read)
    return bool(isinstance(v, torch.Tensor) and v.dim() == 3 and not m.training and m.batch_first
                and m.num_heads % 2 == 0 and m.in_proj_weight is not None and m.in_proj_bias is not None
                and m.bias_k is None and not m.add_zero_attn and m._qkv_same_embed_dim)


#: Tensor methods whose size arguments torch's C++ argument parser reads through __index__ (1.13:
#: pinned to the example, guard_int) or refuses (2.x: "expand() takes 1 positional argument but 3
#: were given") when the tensor is a real one and a size is traced; none writes into the tensor
REAL_SIZE_METHODS = ("view", "reshape", "expand", "repeat", "tile", "narrow", "unflatten", "new_zeros", "new_ones",
                     "new_empty", "new_full")


def _patch_real_tensor_methods(tracer):
    """``t[idx]`` and ``t.expand(x.size(0), -1)`` (REAL_SIZE_METHODS) of a real tensor (one made in
    forward from constants, ``torch.ones(16, 3)``, or held in a list attribute) with a traced value
    among the arguments: recorded as getitem / the method, the tensor a constant (torch.fx's
    _tensor_constant, written as a "param"), as for a traced tensor. Tensor's C++ indexing read a
    traced index through the sequence protocol or __index__ instead (a tensor index iterated:
    "unknown op '__getitem__'"; ``[:x.size(1)]`` pinned to its example). Reads only: ``t[idx] = v``
    of a real tensor stays as it was (its later reads are real values, which a recorded write could
    not follow)."""
    for name in ("__getitem__",) + REAL_SIZE_METHODS:
        orig = getattr(torch.Tensor, name, None)
        if orig is None:
            continue

        def wrapper(self, *args, _orig=orig, _name=name, **kwargs):
            if not isinstance(self, Proxy) and _find_tracer(args, kwargs) is tracer:
                if _name == "__getitem__":
                    return tracer.create_proxy("call_function", operator.getitem, (self,) + args, {})
                return tracer.create_proxy("call_method", _name, (self,) + args, kwargs)
            return _orig(self, *args, **kwargs)
        functools.update_wrapper(wrapper, orig)
        tracer._patched.append((_TensorDict, name, torch.Tensor.__dict__.get(name, _ABSENT)))
        setattr(torch.Tensor, name, wrapper)


class _TensorAttrs:
    """torch.Tensor's attributes as the (dict, name, original) rows of _Tracer.unpatch: setting and
    removing set and delete the class attribute (a class's __dict__ is read-only)."""

    def __setitem__(self, k, v):
        setattr(torch.Tensor, k, v)

    def pop(self, k, default=None):
        if k in torch.Tensor.__dict__:
            delattr(torch.Tensor, k)


_TensorDict = _TensorAttrs()


def _patch_type_checks(tracer):
    """torch's own helpers that test ``isinstance(x, torch.Tensor)`` on what the model passes: a
    traced value is a Proxy there. torch.nn.functional._none_or_dtype (torch >= 2.0; called by
    nn.MultiheadAttention, nn.TransformerEncoder and nn.TransformerEncoderLayer on their masks)
    answers the dtype of a traced tensor from its example value: a tensor's dtype is fixed by the
    input dtypes, which the tensor-match guards check."""
    import torch.nn.functional as F
    orig = F.__dict__.get("_none_or_dtype")  # absent in torch 1.x

    def _none_or_dtype(input):
        if isinstance(input, Proxy) and isinstance(input.tracer, _Tracer):
            v = input.tracer._val(input.node)
            if isinstance(v, torch.Tensor):
                return v.dtype
        return orig(input)
    if orig is not None:
        tracer._patched.append((F.__dict__, "_none_or_dtype", orig))
        F.__dict__["_none_or_dtype"] = _none_or_dtype
    # nn.TransformerEncoder's fused fast path (eval mode, a key padding mask) first asks whether the
    # mask is left-aligned, a read of its data. torch 2.1+ has the switch used above; before it, the
    # fast path's output is to_padded_tensor(0.) of a nested tensor, whose sequence length is the
    # longest unpadded row: a size that depends on the mask's values (tests/test_torch2.py found it
    # on 1.13: x [2, 13, 16] with the last position padded gives [2, 12, 16]). That cannot be
    # captured: a precise error, with what to change.
    nt = torch.__dict__.get("_nested_tensor_from_mask_left_aligned")
    if nt is not None:
        def _left_aligned(*a, **k):
            if any(isinstance(x, Proxy) for x in a):
                raise tracer.error(
                    "nn.TransformerEncoder's fast path (eval mode with src_key_padding_mask, torch %s) returns a "
                    "sequence length that depends on the mask's values (to_padded_tensor of a nested tensor): "
                    "build the encoder with enable_nested_tensor=False, or use torch >= 2.1" % torch.__version__, None)
            return nt(*a, **k)
        tracer._patched.append((torch.__dict__, "_nested_tensor_from_mask_left_aligned", nt))
        torch.__dict__["_nested_tensor_from_mask_left_aligned"] = _left_aligned


def _mutates(nd):
    """An op that writes into its first argument: x[idx] = v, a method or function whose name ends
    in one underscore (add_, copy_, relu_), or an F function called with inplace=True."""
    if nd.op not in ("call_function", "call_method"):
        return False
    if nd.target in (operator.setitem,) or nd.target == "__setitem__":
        return True
    name = nd.target if isinstance(nd.target, str) else getattr(nd.target, "__name__", "")
    if isinstance(name, str) and name.endswith("_") and not name.endswith("__"):
        return True
    return nd.kwargs.get("inplace") is True


def _is_record_op(nd):
    """guard_bool / guard_int / _assert / len: records of the capture, never folded."""
    return nd.op == "call_function" and nd.target in (guard_bool, guard_int, _assert, _len)


def _field_index(v, field):
    """The position of a named field of a torch.return_types structseq (``max(dim).values``
    is item 0): the item that is the attribute's object. None when v is not one."""
    if not (isinstance(v, tuple) and hasattr(type(v), "n_fields") and isinstance(field, str)):
        return None
    a = getattr(v, field, None)
    for i, x in enumerate(v):
        if x is a:
            return i
    return None


def _sequence_as_tuple(seq, tracer):
    """treatSequenceAsTuple (torch/csrc/autograd/python_variable_indexing.cpp, 1.13 and 2.x)."""
    if len(seq) >= 32:
        return False
    for e in seq:
        v = tracer._val(e) if isinstance(e, Node) else e
        if isinstance(v, (torch.Tensor, list, tuple, slice)) or v is None or v is Ellipsis:
            return True
    return False


def _rewrite_call(nd, op, args, kwargs, tracer):
    """Calls the format spells differently from the fx graph, with the same PyTorch semantics:
    * ``getattr(r, "values")`` on a torch.return_types result (max, min, sort, topk, kthvalue,
      mode, median, cummax, cummin, aminmax, ...) is ``getitem(r, i)`` of that field;
    * ``tensor_split(x, t)`` with ``t`` a constant (a parameter, buffer or tensor constant) CPU
      int64 tensor of 0 or 1 dims: PyTorch reads its values (TensorShape.cpp: ``item()`` for 0
      dims, the data for 1 dim) and calls the int / int-list overload, so that is written with
      the values; a computed tensor stays a tensor (the engine gives its values unbacked symbols);
    * ``x[[0, 2]]``, a tensor indexed by a list of plain ints or bools, is one tensor index
      (python_variable_indexing.cpp treatSequenceAsTuple: a list is a tuple of indices only when
      an element is a tensor, a sequence, a slice, None or ...): written ``x[([0, 2],)]``, since
      the format writes tuples and lists alike."""
    if op in ("getitem", "setitem", "__getitem__", "__setitem__") and len(args) >= 2 and isinstance(args[1], list) \
            and isinstance(args[0], Node) and isinstance(tracer._val(args[0]), torch.Tensor) \
            and not _sequence_as_tuple(args[1], tracer):
        args = [args[0], (args[1],)] + list(args[2:])
    if op == "getattr" and len(args) == 2 and isinstance(args[0], Node):
        i = _field_index(tracer._val(args[0]), args[1])
        if i is not None:
            return "getitem", [args[0], i], {}
    if op == "tensor_split":
        key = 1 if len(args) > 1 else next((k for k in ("indices_or_sections", "tensor_indices_or_sections", "sections",
                                                         "indices") if k in kwargs), None)
        t = args[key] if isinstance(key, int) else kwargs.get(key) if key else None
        if isinstance(t, Node) and t.op == "get_attr":
            v = tracer._val(t)
            if isinstance(v, torch.Tensor) and v.dtype == torch.int64 and v.device.type == "cpu" and v.dim() <= 1:
                lit = int(v) if v.dim() == 0 else [int(e) for e in v.tolist()]
                if isinstance(key, int):
                    args = args[:1] + [lit] + args[2:]
                else:
                    kwargs = dict(kwargs)
                    del kwargs[key]
                    kwargs["indices_or_sections" if key == "tensor_indices_or_sections" else key] = lit
    return op, args, kwargs


class _InputDeps:
    """Which nodes' values depend on an input (a placeholder), directly or through their
    arguments. A tensor computed from parameters, buffers and constants alone (swin's relative
    position bias: a table indexed by a buffer) does not: the document writes it as a "param" of
    its example shape (static, as every param is) instead of as the call, which may use ops the
    engine lacks (advanced indexing), and a Python read of its data (``bool``, ``int``) is its
    value, with no guard, since no input size can change it.
    An in-place op or x[idx] = v whose arguments depend on an input writes into the tensor its
    first argument comes from (followed back through first arguments to a parameter or a constant:
    root[]): whatever is computed from that tensor afterwards depends on the input too (a buffer
    resized or filled with input data: b.resize_(x.shape), b[:n] = x). Fed each node as the tracer
    creates it (graph order), so linear in the nodes."""

    def __init__(self):
        self.on_input, self._root, self._tainted = {}, {}, set()
        self.mutated = set()  # the roots written by any in-place op (input-dependent or not)
        self.stable = {}  # nodes whose tensor holds the same values at every call (_param_values)
        self._known = None  # values_known of every node, made at its first call (the graph is complete)

    def add(self, nd):
        a0 = nd.args[0] if nd.op.startswith("call") and nd.args and isinstance(nd.args[0], Node) else None
        # a get_attr's root is its target: torch.fx makes a new get_attr node each time one real
        # tensor (a _tensor_constant) is an argument, and a write through one is a write to all
        root = self._root[nd] = (self._root.get(a0, a0) if a0 is not None else
                                 ("get_attr", nd.target) if nd.op == "get_attr" else nd)
        dep = self.on_input[nd] = (nd.op == "placeholder" or root in self._tainted or
                                   any(self.on_input.get(a, True) for a in nd.all_input_nodes))
        if dep and a0 is not None and _mutates(nd):
            self._tainted.add(root)
        if a0 is not None and _mutates(nd):
            self.mutated.add(root)
        # torch.add(a, 1, out=b) writes b (and whatever b is a view of)
        out = nd.kwargs.get("out") if nd.op.startswith("call") else None
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            if isinstance(o, Node):
                self.mutated.add(self._root.get(o, o))
                if dep:
                    self._tainted.add(self._root.get(o, o))
        # stable: not random nor uninitialized, computed from stable nodes only (a placeholder is
        # not: its values are data); whether its root is written is asked at the end (mutated)
        self.stable[nd] = (nd.op == "get_attr" or
                           (nd.op.startswith("call") and not _unstable_op(nd) and
                            all(self.stable.get(a, False) for a in nd.all_input_nodes)))

    def values_known(self, nd):
        """nd's tensor holds the values it has now at every call: stable, and neither it nor a
        stable node it was computed from has a root written anywhere in the graph (a buffer
        written in forward changes between calls; a tensor written after its use held other
        values at that use)"""
        if self._known is None:  # once, at the end, in creation order (arguments first): linear
            self._known = {}
            for n, st in self.stable.items():
                self._known[n] = (st and self._root.get(n) not in self.mutated and
                                  all(self._known.get(a, False) for a in n.all_input_nodes))
        return self._known.get(nd, False)


#: ops whose result differs between calls (random) or is uninitialized memory: a constant made by
#: one (or from one) has no known values
_UNSTABLE = ("rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "bernoulli",
             "multinomial", "normal", "poisson", "empty", "empty_like", "new_empty", "empty_strided",
             "new_empty_strided", "dropout", "rrelu")


def _unstable_op(nd):
    name = nd.target if isinstance(nd.target, str) else getattr(nd.target, "__name__", "")
    return not isinstance(name, str) or name in _UNSTABLE or name.endswith("_")


#: integer dtypes whose constant tensors carry "values" (docs/graph-format.md): an index's dtypes
_VALUE_DTYPES = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8)


def _param_values(j, v, nd, deps):
    """A param node j of an integer tensor v that holds the same values at every call gets
    "values": [least, greatest] (the engine checks it where it is an index, as an index from sizes:
    docs/ops.md section 9)."""
    if v.dtype in _VALUE_DTYPES and v.numel() > 0 and deps.values_known(nd):
        j["values"] = [int(v.min()), int(v.max())]
        # a row (every dim but the last 1: arange(L).expand(1, -1), HF position_ids) equal to an
        # arange: its step too, so that the engine tracks it as that arange and a slice of it
        # (position_ids[:, :T]) keeps exact bounds (docs/graph-format.md)
        if v.dim() >= 1 and all(d == 1 for d in v.shape[:-1]) and v.numel() >= 2:
            flat = v.reshape(-1).to(torch.int64)
            step = int(flat[1] - flat[0])
            if step != 0 and torch.equal(flat, flat[0] + step * torch.arange(flat.numel(), dtype=torch.int64)):
                j["values"].append(step)
    return j


def _to_document(graph, tracer, values, dyn, name):
    nodes = list(graph.nodes)
    reserved = set()
    names = {}
    for nd in nodes:  # inputs keep their names, params their qualified names
        if nd.op == "placeholder":
            names[nd] = nd.target
        elif nd.op == "get_attr":
            q = nd.target[2:] if nd.target.startswith("m.") else nd.target
            names[nd] = q
        else:
            continue
        reserved.add(names[nd])
    for nd in nodes:
        if nd in names or nd.op == "output":
            continue
        n, i = nd.name, 1
        while n in reserved:
            n = "%s_%d" % (nd.name, i)
            i += 1
        names[nd] = n
        reserved.add(n)

    def where_for(nd):
        def mk(msg):
            return ExportError(msg, nd.meta.get("sy_module"), _op_name(nd) if nd.op.startswith("call") else None,
                               nd.meta.get("sy_loc"))
        return mk

    def arg(v, nd):
        if isinstance(v, Node):
            return {"ref": names[v]}
        if isinstance(v, (list, tuple)):
            return [arg(x, nd) for x in v]
        if isinstance(v, dict):
            return {str(k): arg(x, nd) for k, x in v.items()}
        if isinstance(v, slice):
            return {"slice": [arg(v.start, nd), arg(v.stop, nd), arg(v.step, nd)]}
        return _value_json(v, where_for(nd))

    out_nodes = []
    outputs = []
    on_input = tracer._deps.on_input
    # the params written: torch.fx makes one get_attr node per use of a real tensor constant
    # (_tensor_constantN, one tensor object per name), which the document holds once (two param
    # nodes of one name: "node name '_tensor_constant0' is not unique")
    written = set()
    for nd in nodes:
        loc = nd.meta.get("sy_loc")
        if nd.op == "output":
            def flat(v):
                if isinstance(v, Node):
                    outputs.append({"ref": names[v]})
                elif isinstance(v, (list, tuple)):
                    for x in v:
                        flat(x)
                elif isinstance(v, dict):
                    for x in v.values():
                        flat(x)
                elif v is not None:
                    outputs.append(_value_json(v, where_for(nd)))
            flat(nd.args[0])
            continue
        v = tracer._val(nd)
        if nd.op == "placeholder":
            if isinstance(v, torch.Tensor):
                j = {"name": names[nd], "op": "input", "dtype": _dtype_name(v.dtype), "shape": list(v.shape),
                     "dynamic": [d if isinstance(d, dict) or d >= 0 else d + v.dim() for d in dyn.get(nd.target, [])]}
                st = _strides_json(v)
                if st is not None:
                    j["strides"] = st
            else:
                j = {"name": names[nd], "op": "constant", "value": _value_json(v, where_for(nd))}
        elif nd.op == "get_attr":
            if isinstance(v, torch.Tensor):
                if _dtype_name(v.dtype) not in _DTYPES:
                    raise where_for(nd)("parameter %s has dtype %s, which the graph format does not have"
                                        % (names[nd], v.dtype))
                j = _param_values({"name": names[nd], "op": "param", "dtype": _dtype_name(v.dtype), "shape": list(v.shape)},
                                  v, nd, tracer._deps)
                if names[nd] in written:
                    continue
                written.add(names[nd])
            else:
                j = {"name": names[nd], "op": "constant", "value": _value_json(v, where_for(nd))}
        elif (not on_input[nd] and nd.op.startswith("call") and isinstance(v, torch.Tensor) and v.is_contiguous()
              # only contiguous results: a param has contiguous strides in the engine
              and _dtype_name(v.dtype) in _DTYPES and not _is_record_op(nd)):
            j = _param_values({"name": names[nd], "op": "param", "dtype": _dtype_name(v.dtype), "shape": list(v.shape)},
                              v, nd, tracer._deps)
        else:
            if isinstance(nd.target, type):
                raise where_for(nd)("constructing a %s cannot be written to the graph" % nd.target.__name__)
            op, args, kwargs = _rewrite_call(nd, _op_name(nd), list(nd.args), dict(nd.kwargs), tracer)
            if nd.meta.get("sy_mha_fastpath"):
                kwargs["sy_fastpath"] = True  # graph-format.md: the module may take its fused path at run time
            j = {"name": names[nd], "op": op, "args": arg(args, nd), "kwargs": arg(kwargs, nd)}
            ex = _example_json(v)
            if ex is not None:
                j["example"] = ex
            elif not (v is None or isinstance(v, (float, str, torch.dtype, torch.device, list, tuple))):
                raise where_for(nd)("the value of this op is a %s, which the graph cannot hold" % type(v).__name__)
        if loc:
            j["loc"] = loc
        out_nodes.append(j)
    return {"format": "symshape.graph", "version": 1, "name": name, "torch_version": torch.__version__,
            "origin": "symshape.export: torch %s, torch.fx symbolic tracing with values carried alongside "
                      "proxies" % torch.__version__,
            "nodes": out_nodes, "outputs": outputs}


def export_to(path, model, example_inputs, dynamic=None, name=None):
    """export() and write the document to ``path`` (JSON); returns the document."""
    import json
    if not isinstance(path, (str, bytes, os.PathLike)):  # open(1) writes to stdout, then closes it
        raise TypeError("export_to: path must be a str, bytes or os.PathLike, got %s" % type(path).__name__)
    doc = export(model, example_inputs, dynamic, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return doc
