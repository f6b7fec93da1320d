"""A reference evaluator of concrete ONNX shapes, independent of symshape.

Runs a graph at concrete input shapes: every value gets its shape, and small
integer tensors (shape arithmetic) their values, computed with numpy by the
rules of onnx/docs/Operators.md. Used by the tests to check every value's
inferred shape. Raises RefError where the graph cannot run at those shapes.
"""
import math
import numpy as np
import onnx
from onnx import numpy_helper

SMALL = 1 << 16  # values are kept for tensors up to this many elements


class RefError(Exception):
    pass


class V:
    __slots__ = ("shape", "val", "elem")

    def __init__(self, shape, val=None, elem=1):
        self.shape = tuple(int(d) for d in shape)
        self.val = val
        self.elem = elem


def bcast(*shapes):
    r = max(len(s) for s in shapes)
    out = []
    for i in range(r):
        dims = [s[len(s) - r + i] for s in shapes if len(s) - r + i >= 0]
        ds = set(d for d in dims if d != 1)
        if len(ds) > 1:
            raise RefError("broadcast %s" % (shapes,))
        out.append(ds.pop() if ds else 1)
    return tuple(out)


def attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def window(n, a, shape, ksz, ceil=False):
    ns = len(shape) - 2
    s = a.get("strides", [1] * ns)
    d = a.get("dilations", [1] * ns)
    p = a.get("pads", [0] * (2 * ns))
    ap = a.get("auto_pad", b"NOTSET")
    ap = ap.decode() if isinstance(ap, bytes) else ap
    out = []
    for i in range(ns):
        x = shape[2 + i]
        ext = d[i] * (ksz[i] - 1) + 1
        if ap.startswith("SAME"):
            out.append(-(-x // s[i]))
            continue
        pads = 0 if ap == "VALID" else p[i] + p[i + ns]
        num = x + pads - ext
        if ceil:  # PyTorch pooling_output_shape_pad_lr: the window may overhang, the output must be >= 1
            o = (num + s[i] - 1) // s[i] + 1
            if (o - 1) * s[i] >= x + p[i]:
                o -= 1
            if o < 1:
                raise RefError("output size too small")
        else:
            if num < 0:
                raise RefError("window does not fit")
            o = num // s[i] + 1
        out.append(o)
    return out


def run(model, shapes, max_values=SMALL):
    """shapes: {input name: tuple}. Returns {value name: V}."""
    g = model.graph
    env = {}
    inits = set()
    for t in g.initializer:
        arr = numpy_helper.to_array(t) if (t.raw_data or t.int64_data or t.float_data or t.int32_data) else None
        env[t.name] = V(tuple(t.dims), arr if arr is not None and arr.size <= max_values else None, t.data_type)
        inits.add(t.name)
    for i in g.input:
        if i.name in inits:
            continue
        tt = i.type.tensor_type
        shp = tuple(shapes[i.name])
        if len(shp) != len(tt.shape.dim):
            raise RefError("rank of %s" % i.name)
        for d, dm in zip(shp, tt.shape.dim):
            if dm.HasField("dim_value") and dm.dim_value != d:
                raise RefError("static dim of %s" % i.name)
        env[i.name] = V(shp, None, tt.elem_type)
    run_nodes(g.node, env)
    return env


def run_nodes(nodes, env):
    for n in nodes:
        ins = [env[x] if x else None for x in n.input]
        outs = OPS.get(n.op_type)
        if outs is None:
            raise NotImplementedError("reference: op %s" % n.op_type)
        res = outs(n, attrs(n), ins)
        if isinstance(res, V):
            res = [res]
        for name, v in zip(n.output, res):
            if name:
                if v.val is not None and tuple(np.shape(v.val)) != v.shape:
                    raise AssertionError("reference bug at %s" % n.name)
                env[name] = v


def same(n, a, x):
    return V(x[0].shape, None, x[0].elem)


def ew(fn=None, elem=None):
    def f(n, a, x):
        xs = [v for v in x if v is not None]
        shp = bcast(*[v.shape for v in xs])
        val = None
        if fn is not None and all(v.val is not None for v in xs) and math.prod(shp) <= SMALL:
            val = np.asarray(fn(*[v.val for v in xs]))
            if val.shape != shp:
                val = np.broadcast_to(val, shp).copy()
        return V(shp, val, elem or xs[0].elem)
    return f


def idiv(a, b):
    if a.dtype.kind in "iu":
        return (np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))).astype(a.dtype)  # truncation
    return a / b


def op_shape(n, a, x):
    r = len(x[0].shape)
    s, e = a.get("start", 0), a.get("end", r)
    s, e = (s + r if s < 0 else s), (e + r if e < 0 else e)
    s, e = min(max(s, 0), r), min(max(e, 0), r)
    v = np.array(x[0].shape[s:e], dtype=np.int64)
    return V(v.shape, v, 7)


def op_constant(n, a, x):
    if "value" in a:
        arr = numpy_helper.to_array(a["value"])
        return V(arr.shape, arr if arr.size <= SMALL else None, a["value"].data_type)
    if "value_ints" in a:
        arr = np.array(a["value_ints"], dtype=np.int64)
        return V(arr.shape, arr, 7)
    if "value_int" in a:
        return V((), np.array(a["value_int"], dtype=np.int64), 7)
    if "value_float" in a:
        return V((), np.array(a["value_float"], dtype=np.float32), 1)
    raise NotImplementedError("Constant")


def op_gather(n, a, x):
    d, i = x
    ax = a.get("axis", 0)
    r = len(d.shape)
    ax = ax + r if ax < 0 else ax
    if i.val is not None:
        if np.any(i.val >= d.shape[ax]) or np.any(i.val < -d.shape[ax]):
            raise RefError("gather index")
    shp = d.shape[:ax] + i.shape + d.shape[ax + 1:]
    val = np.take(d.val, i.val, axis=ax) if d.val is not None and i.val is not None else None
    return V(shp, val, d.elem)


def axes_of(a, x, k):
    if "axes" in a:
        return list(a["axes"])
    if len(x) > k and x[k] is not None:
        return [int(v) for v in x[k].val]
    return None


def op_unsqueeze(n, a, x):
    axes = axes_of(a, x, 1)
    r = len(x[0].shape) + len(axes)
    axes = sorted(v + r if v < 0 else v for v in axes)
    shp = list(x[0].shape)
    for v in axes:
        shp.insert(v, 1)
    val = x[0].val.reshape(shp) if x[0].val is not None else None
    return V(shp, val, x[0].elem)


def op_squeeze(n, a, x):
    axes = axes_of(a, x, 1)
    r = len(x[0].shape)
    if axes is None:
        axes = [i for i, d in enumerate(x[0].shape) if d == 1]
    axes = [v + r if v < 0 else v for v in axes]
    for v in axes:
        if x[0].shape[v] != 1:
            raise RefError("squeeze")
    shp = [d for i, d in enumerate(x[0].shape) if i not in axes]
    val = x[0].val.reshape(shp) if x[0].val is not None else None
    return V(shp, val, x[0].elem)


def op_concat(n, a, x):
    ax = a["axis"]
    r = len(x[0].shape)
    ax = ax + r if ax < 0 else ax
    shp = list(x[0].shape)
    for v in x[1:]:
        for i in range(r):
            if i != ax and v.shape[i] != shp[i]:
                raise RefError("concat")
        shp[ax] += v.shape[ax]
    val = np.concatenate([v.val for v in x], axis=ax) if all(v.val is not None for v in x) else None
    return V(shp, val, x[0].elem)


def op_reshape(n, a, x):
    tgt = [int(v) for v in x[1].val]
    shp = []
    for i, d in enumerate(tgt):
        if d == 0 and not a.get("allowzero", 0):
            shp.append(x[0].shape[i])
        else:
            shp.append(d)
    tot = math.prod(x[0].shape)
    if -1 in shp:
        rest = math.prod(d for d in shp if d != -1)
        if rest == 0 or tot % rest:
            raise RefError("reshape")
        shp[shp.index(-1)] = tot // rest
    if math.prod(shp) != tot:
        raise RefError("reshape")
    val = x[0].val.reshape(shp) if x[0].val is not None else None
    return V(shp, val, x[0].elem)


def op_transpose(n, a, x):
    r = len(x[0].shape)
    p = a.get("perm", list(range(r))[::-1])
    return V([x[0].shape[i] for i in p], np.transpose(x[0].val, p) if x[0].val is not None else None, x[0].elem)


def op_cos(n, a, x):  # ConstantOfShape
    shp = [int(v) for v in x[0].val]
    if "value" in a:
        fill = numpy_helper.to_array(a["value"]).reshape(-1)[0]
        elem = a["value"].data_type
    else:
        fill, elem = np.float32(0), 1
    val = np.full(shp, fill) if math.prod(shp) <= SMALL else None
    return V(shp, val, elem)


def op_expand(n, a, x):
    tgt = tuple(int(v) for v in x[1].val)
    shp = bcast(x[0].shape, tgt)
    val = np.broadcast_to(x[0].val, shp).copy() if x[0].val is not None and math.prod(shp) <= SMALL else None
    return V(shp, val, x[0].elem)


def op_slice(n, a, x):
    d = x[0]
    r = len(d.shape)
    starts = [int(v) for v in x[1].val]
    ends = [int(v) for v in x[2].val]
    axes = [int(v) for v in x[3].val] if len(x) > 3 and x[3] is not None else list(range(len(starts)))
    steps = [int(v) for v in x[4].val] if len(x) > 4 and x[4] is not None else [1] * len(starts)
    shp = list(d.shape)
    sl = [slice(None)] * r
    for s, e, ax, st in zip(starts, ends, axes, steps):
        ax = ax + r if ax < 0 else ax
        dim = d.shape[ax]
        s = s + dim if s < 0 else s
        e = e + dim if e < 0 else e
        if st > 0:
            s, e = min(max(s, 0), dim), min(max(e, 0), dim)
            ln = max(0, -(-(e - s) // st))
        else:
            s, e = min(max(s, 0), dim - 1), min(max(e, -1), dim - 1)
            ln = max(0, -(-(s - e) // -st))
        shp[ax] = ln
        sl[ax] = slice(s, None if e < 0 else e, st) if st < 0 else slice(s, e, st)
    val = d.val[tuple(sl)] if d.val is not None else None
    return V(shp, val, d.elem)


def op_conv(n, a, x):
    X, W = x[0], x[1]
    k = a.get("kernel_shape", W.shape[2:])
    grp = a.get("group", 1)
    if X.shape[1] != W.shape[1] * grp:
        raise RefError("conv channels")
    return V([X.shape[0], W.shape[0]] + window(n, a, X.shape, k), None, X.elem)


def op_pool(n, a, x):
    X = x[0]
    o = [X.shape[0], X.shape[1]] + window(n, a, X.shape, a["kernel_shape"], a.get("ceil_mode", 0))
    return [V(o, None, X.elem), V(o, None, 7)]


def op_gpool(n, a, x):
    return V(list(x[0].shape[:2]) + [1] * (len(x[0].shape) - 2), None, x[0].elem)


def op_flatten(n, a, x):
    ax = a.get("axis", 1)
    s = x[0].shape
    ax = ax + len(s) if ax < 0 else ax
    return V([math.prod(s[:ax]), math.prod(s[ax:])], None, x[0].elem)


def op_gemm(n, a, x):
    A, B = x[0].shape, x[1].shape
    if a.get("transA", 0):
        A = A[::-1]
    if a.get("transB", 0):
        B = B[::-1]
    if A[1] != B[0]:
        raise RefError("gemm")
    return V([A[0], B[1]], None, x[0].elem)


def op_matmul(n, a, x):
    A, B = list(x[0].shape), list(x[1].shape)
    pa, pb = len(A) == 1, len(B) == 1
    if pa:
        A = [1] + A
    if pb:
        B = B + [1]
    if A[-1] != B[-2]:
        raise RefError("matmul")
    shp = list(bcast(tuple(A[:-2]), tuple(B[:-2]))) + [A[-2], B[-1]]
    if pa:
        shp.pop(-2)
    if pb:
        shp.pop(-1)
    return V(shp, None, x[0].elem)


def op_reduce(n, a, x):
    s = x[0].shape
    axes = axes_of(a, x, 1)
    keep = a.get("keepdims", 1)
    if not axes:
        axes = list(range(len(s)))
    axes = [v + len(s) if v < 0 else v for v in axes]
    shp = [1 if i in axes else d for i, d in enumerate(s) if keep or i not in axes]
    val = None
    if x[0].val is not None and n.op_type == "ReduceProd":
        val = np.prod(x[0].val, axis=tuple(axes), keepdims=bool(keep))
    return V(shp, val, x[0].elem)


def op_cast(n, a, x):
    to = a["to"]
    val = None
    if x[0].val is not None:
        np_t = (onnx.helper.tensor_dtype_to_np_dtype(to) if hasattr(onnx.helper, "tensor_dtype_to_np_dtype")
                else onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[to])
        val = x[0].val.astype(np_t)
    return V(x[0].shape, val, to)


def op_resize(n, a, x):
    X = x[0]
    if len(x) > 3 and x[3] is not None and x[3].shape != (0,):
        return V([int(v) for v in x[3].val], None, X.elem)
    sc = x[2].val
    return V([int(math.floor(d * float(s))) for d, s in zip(X.shape, sc)], None, X.elem)


def op_split(n, a, x):
    s = x[0].shape
    ax = a.get("axis", 0)
    ax = ax + len(s) if ax < 0 else ax
    if "split" in a:
        sp = list(a["split"])
    elif len(x) > 1 and x[1] is not None:
        sp = [int(v) for v in x[1].val]
    else:
        k = len(n.output)
        if s[ax] % k:
            raise RefError("split")
        sp = [s[ax] // k] * k
    if sum(sp) != s[ax]:
        raise RefError("split")
    return [V(s[:ax] + (p,) + s[ax + 1:], None, x[0].elem) for p in sp]


def op_rnn(n, a, x):
    X = x[0].shape
    H = a["hidden_size"]
    d = a.get("direction", b"forward")
    nd = 2 if (d.decode() if isinstance(d, bytes) else d) == "bidirectional" else 1
    if a.get("layout", 0):
        b, s = X[0], X[1]
        return [V([b, s, nd, H]), V([b, nd, H]), V([b, nd, H])]
    s, b = X[0], X[1]
    if x[1].shape[2] != X[2]:
        raise RefError("rnn input size")
    return [V([s, nd, b, H]), V([nd, b, H]), V([nd, b, H])]


def op_layernorm(n, a, x):
    s = x[0].shape
    ax = a.get("axis", -1)
    ax = ax + len(s) if ax < 0 else ax
    red = [d if i < ax else 1 for i, d in enumerate(s)]
    return [V(s, None, x[0].elem), V(red), V(red)]


def op_where(n, a, x):
    f = ew(lambda c, p, q: np.where(c, p, q))
    r = f(n, a, x)
    r.elem = x[1].elem
    return r


def op_range(n, a, x):
    s, l, d = (v.val.item() for v in x)
    ln = max(int(math.ceil((l - s) / d)), 0)
    return V([ln], np.arange(s, l, d) if ln <= SMALL else None, x[0].elem)


def op_mod(n, a, x):  # Mod-13: fmod=0 takes the divisor's sign (integers), fmod=1 the dividend's
    if a.get("fmod", 0):
        return ew(np.fmod)(n, a, x)
    if any(v.val is not None and np.any(v.val == 0) for v in x[1:2]):
        raise RefError("integer Mod by zero")
    return ew(np.mod)(n, a, x)


def op_pad(n, a, x):  # Pad-18/13/11: pads [x1_begin, ..., x1_end, ...] (attribute before 11), axes (18)
    s = list(x[0].shape)
    p = list(a["pads"]) if "pads" in a else [int(v) for v in x[1].val]
    axes = [int(v) for v in x[3].val] if len(x) > 3 and x[3] is not None else list(range(len(s)))
    m = len(axes)
    if len(p) != 2 * m:
        raise RefError("pad count")
    for i, ax in enumerate(axes):
        ax = ax + len(s) if ax < 0 else ax
        s[ax] += p[i] + p[i + m]
        if s[ax] < 0:
            raise RefError("pad")
    return V(s, None, x[0].elem)


def op_scatternd(n, a, x):  # ScatterND-18: data's shape; updates = indices[:-1] + data[k:]
    d, i, u = (v.shape for v in x)
    k = i[-1]
    if k > len(d) or tuple(u) != tuple(i[:-1]) + tuple(d[k:]):
        raise RefError("scatternd")
    return V(d, None, x[0].elem)


def op_dropout(n, a, x):
    return [V(x[0].shape, x[0].val, x[0].elem), V(x[0].shape, None, 9)]


OPS = {
    "Identity": lambda n, a, x: V(x[0].shape, x[0].val, x[0].elem),
    "Shape": op_shape, "Constant": op_constant, "Gather": op_gather,
    "Unsqueeze": op_unsqueeze, "Squeeze": op_squeeze, "Concat": op_concat,
    "Reshape": op_reshape, "Transpose": op_transpose, "ConstantOfShape": op_cos,
    "Expand": op_expand, "Slice": op_slice, "Conv": op_conv, "MaxPool": op_pool,
    "AveragePool": op_pool, "GlobalAveragePool": op_gpool, "GlobalMaxPool": op_gpool,
    "Flatten": op_flatten, "Gemm": op_gemm, "MatMul": op_matmul,
    "ReduceMean": op_reduce, "ReduceSum": op_reduce, "ReduceProd": op_reduce, "ReduceMax": op_reduce,
    "Cast": op_cast, "Resize": op_resize, "Split": op_split, "LSTM": op_rnn, "GRU": op_rnn,
    "LayerNormalization": op_layernorm, "Where": op_where, "Range": op_range, "Dropout": op_dropout,
    "Add": ew(np.add), "Sub": ew(np.subtract), "Mul": ew(np.multiply), "Div": ew(idiv),
    "Pow": ew(np.power), "Equal": ew(np.equal, 9), "Less": ew(np.less, 9), "Greater": ew(np.greater, 9),
    "Not": ew(np.logical_not, 9), "And": ew(np.logical_and, 9), "Or": ew(np.logical_or, 9),
    "Max": ew(np.maximum), "Min": ew(np.minimum), "Neg": ew(np.negative),
    "Relu": ew(), "Sigmoid": ew(), "Tanh": ew(), "HardSigmoid": ew(), "HardSwish": ew(), "Erf": ew(),
    "Sqrt": ew(), "Exp": ew(), "Log": ew(), "Softmax": ew(), "LogSoftmax": ew(), "Clip": same,
    "Mod": op_mod, "Pad": op_pad, "ScatterND": op_scatternd,
    "BatchNormalization": same, "InstanceNormalization": same, "LeakyRelu": ew(), "Abs": ew(),
}
