"""symshape.diff(a, b): the semantic diff of two guard sets (include/symshape/diff.h,
docs/guards.md section 8).

Each side is a GuardSet, a graph (dict, or a path to its JSON), an ONNX model (a path ending
in .onnx) or a guard set in its JSON form ("format": "symshape.guards": a dict, or a path).
A graph or ONNX model is traced and its guard set minimized with default options (duck sizing
and 0/1 specialization unless turned off). The result is the "symshape.diff" document as a dict:
"verdict" ("equal", "narrows", "widens", "unknown"), "a_subset_b", "b_subset_a" ("true",
"false", "unknown"), "changes" with each guard's provenance in both versions, and witnesses
("inputs": {name: {"shape": [...], "dtype": code}}) that one side accepts and the other rejects.
"""
import ctypes
import json
import os
import threading
from ctypes import POINTER, Structure, byref, c_char_p, c_int, c_size_t, c_uint, c_void_p

from . import _lib as L
from ._lib import lib
from ._core import Context
from .errors import InvalidError
from .guards import GuardSet

P = c_void_p


def _f(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


_f("sy_diff_new", c_int, P, POINTER(P))
_f("sy_diff_free", P, P)
_f("sy_diff_set_gset", c_int, P, c_int, P)
_f("sy_diff_set_json", c_int, P, c_int, c_char_p, c_size_t, c_char_p)
_f("sy_diff_map", c_int, P, c_char_p, c_char_p)
_f("sy_diff_run", c_int, P)
_f("sy_diff_to_json", c_void_p, P)
_f("sy_onnx_available", c_int)


class _onnx_trace_options(Structure):  # onnx.h
    _fields_ = [("version", c_uint), ("nexamples", c_size_t), ("examples", c_void_p), ("nov", c_size_t),
                ("ov", c_void_p), ("concrete", c_int)]


class _OnnxSide:
    """An ONNX model traced in ctx, its minimized guard set in .gs (freed by close)."""

    def __init__(self, ctx, path, duck_sizing, specialize_01):
        self._ctx = ctx
        self.om = self.env = self.ot = self.gs = None
        if not lib.sy_onnx_available():
            raise L.LibraryNotFound("this libsymshape was built without the ONNX frontend")
        for name, res, args in (("sy_onnx_load_file", c_int, (P, c_char_p, POINTER(P))), ("sy_onnx_free", P, (P,)),
                                ("sy_onnx_trace_relate", c_int, (P, P, P, POINTER(_onnx_trace_options), POINTER(P), POINTER(P))),
                                ("sy_onnx_trace_free", P, (P,)), ("sy_onnx_trace_gset_inputs", P, (P, POINTER(c_size_t))),
                                ("sy_onnx_name", c_char_p, (P,)),
                                ("sy_gset_produce_inputs", c_int, (P, c_char_p, c_size_t, P, POINTER(P)))):
            _f(name, res, *args)
        h = ctx._h
        try:
            m = P()
            st = lib.sy_onnx_load_file(h, str(path).encode("utf-8"), byref(m))
            if st != 0:
                raise ctx._error(st)
            self.om = m.value
            opts = L.sy_env_options(L.SY_ENV_OPTIONS_VERSION, 1 if duck_sizing else 0, 1 if specialize_01 else 0)
            to = _onnx_trace_options(1, 0, None, 0, None, 0)
            e, t = P(), P()
            st = lib.sy_onnx_trace_relate(h, self.om, byref(opts), byref(to), byref(e), byref(t))
            if st != 0:
                raise ctx._error(st)
            self.env, self.ot = e.value, t.value
            n = c_size_t()
            ins = lib.sy_onnx_trace_gset_inputs(self.ot, byref(n))
            gs = P()
            st = lib.sy_gset_produce_inputs(self.env, lib.sy_onnx_name(self.om), n.value, ins, byref(gs))
            if st != 0:
                raise ctx._error(st)
            self.gs = gs.value
            st = lib.sy_gset_minimize(self.gs)
            if st != 0:
                raise ctx._error(st)
        except BaseException:
            self.close()
            raise

    def close(self):
        if self.gs:
            lib.sy_gset_free(self.gs)
        if self.ot:
            lib.sy_onnx_trace_free(self.ot)
        if self.env:
            lib.sy_env_free(self.env)
        if self.om:
            lib.sy_onnx_free(self.om)
        self.om = self.env = self.ot = self.gs = None


def diff(a, b, map=None, duck_sizing=True, specialize_01=True):
    """The semantic diff of a (old) and b (new); see the module's doc. map: {old_input: new_input}
    renames inputs of a before matching by name. Raises symshape.Error (FormatError for a
    malformed guard set JSON, with its location)."""
    ctx = Context()
    h = ctx._h
    d = P()
    st = lib.sy_diff_new(h, byref(d))
    if st != 0:
        raise ctx._error(st)
    keep = []
    try:
        for old, new in (map or {}).items():
            st = lib.sy_diff_map(d, str(old).encode("utf-8"), str(new).encode("utf-8"))
            if st != 0:
                raise ctx._error(st)
        for side, x in ((0, a), (1, b)):
            name = "<%s>" % "ab"[side]
            if isinstance(x, str) and x.endswith(".onnx"):
                o = _OnnxSide(ctx, x, duck_sizing, specialize_01)
                keep.append(o)
                st = lib.sy_diff_set_gset(d, side, o.gs)
                if st != 0:
                    raise ctx._error(st)
                continue
            if isinstance(x, str):
                name = x
                with open(x, "rb") as fp:
                    x = json.loads(fp.read().decode("utf-8"))
            if isinstance(x, dict) and x.get("format") == "symshape.guards":
                text = json.dumps(x).encode("utf-8")
                st = lib.sy_diff_set_json(d, side, text, len(text), name.encode("utf-8"))
                if st != 0:
                    raise ctx._error(st)
                continue
            if not isinstance(x, GuardSet):
                x = GuardSet(x, duck_sizing=duck_sizing, specialize_01=specialize_01)
            keep.append(x)
            x._live()
            st = lib.sy_diff_set_gset(d, side, x._gs)
            if st != 0:
                raise ctx._error(st)
        st = lib.sy_diff_run(d)
        if st != 0:
            raise ctx._error(st)
        return json.loads(ctx._take_str(lib.sy_diff_to_json(d)))
    finally:
        lib.sy_diff_free(d)
        for k in keep:
            if isinstance(k, _OnnxSide):
                k.close()


def exit_status(result):
    """The command's exit status for a diff result: 0 equal, 1 narrows, 5 unknown, 6 widens."""
    return {"equal": 0, "narrows": 1, "widens": 6}.get(result["verdict"], 5)


_f("sy_dispatch_new_json", c_int, P, c_size_t, POINTER(c_char_p), POINTER(c_size_t), POINTER(P))
_f("sy_dispatch_free", P, P)
_f("sy_dispatch_nsources", c_size_t, P)
_f("sy_dispatch_source", c_char_p, P, c_size_t)
_f("sy_dispatch_frame_len", c_size_t, P)
_f("sy_dispatch_run", ctypes.c_long, P, POINTER(ctypes.c_int64), c_size_t, POINTER(ctypes.c_int64))
_f("sy_dispatch_to_c", c_void_p, P, c_char_p)
_f("sy_gset_source_parse", c_int, c_char_p, POINTER(c_size_t), POINTER(c_size_t))


class Dispatcher:
    """One decision structure for N guard sets of one model (include/symshape/dispatch.h,
    docs/guards.md section 9): run(sizes) is the index of the first set accepting the sizes, or -1.
    run() may be called from several threads at once (each thread has its own frame).
    sets: GuardSets, guard-set JSON dicts or paths to them (the same sources in the same order)."""

    def __init__(self, sets):
        texts = []
        # the inputs' dtypes when run() is not told them: a GuardSet's own (its graph's), as
        # GuardSet.check; a JSON set has none (float32). A float32 default made every set
        # reject a model with a bool mask or an int64 token input (-1 where check accepts).
        self.dtypes = {}
        for x in sets:
            if isinstance(x, GuardSet):
                if not self.dtypes:
                    self.dtypes = {n: dt for n, dt, _ in x._inputs}
                texts.append(x.json().encode("utf-8"))
            elif isinstance(x, dict):
                texts.append(json.dumps(x).encode("utf-8"))
            elif isinstance(x, (str, bytes, os.PathLike)):
                with open(x, "rb") as fp:
                    texts.append(fp.read())
            else:  # open(3) reads and then closes the caller's file descriptor 3 (True: stdout)
                raise TypeError("Dispatcher: set %d is a %s, not a GuardSet, a guard-set JSON dict or a path"
                                % (len(texts), type(x).__name__))
        self._ctx = Context()
        self._d = None
        n = len(texts)
        arr = (c_char_p * max(n, 1))(*texts)
        lens = (c_size_t * max(n, 1))(*[len(t) for t in texts])
        d = P()
        st = lib.sy_dispatch_new_json(self._ctx._h, n, arr, lens, byref(d))
        if st != 0:
            raise self._ctx._error(st)
        self._d = d.value
        self.sources = [lib.sy_dispatch_source(self._d, i).decode("utf-8") for i in range(lib.sy_dispatch_nsources(self._d))]
        # one frame per thread (include/symshape/dispatch.h: the dispatcher is immutable, any
        # number of threads may run it at once, each with its own frame); a frame shared by
        # threads gave wrong entries (ctypes releases the GIL during sy_dispatch_run)
        self._frames = threading.local()
        self._frame_len = lib.sy_dispatch_frame_len(self._d)

    def close(self):
        if getattr(self, "_d", None):
            lib.sy_dispatch_free(self._d)
            self._d = None

    def __del__(self):
        self.close()

    def values(self, sizes, dtypes=None, strides=None):
        """The source values of {input: shape} (dtype codes from dtypes, default the first
        GuardSet's input dtypes, ``self.dtypes``, else float32 = 0).
        Sizes are ints in [0, 2**63) (TypeError / InvalidError otherwise: ctypes keeps an int64
        modulo 2**64, so 2**64 + 5 was dispatched as 5)."""
        if not isinstance(sizes, dict):
            raise TypeError("sizes must be a dict {input name: [size, ...]}")
        for name, shape in sizes.items():
            if isinstance(shape, (str, bytes)) or not hasattr(shape, "__len__"):
                raise TypeError("sizes of '%s' must be a list of ints, got %r" % (name, shape))
            for v in shape:
                if isinstance(v, bool) or not isinstance(v, int):
                    raise TypeError("sizes of '%s' must be ints, got %r" % (name, v))
                if v < 0 or v >= 2 ** 63:
                    raise InvalidError("sizes of '%s': %d is not a size (0 <= size < 2**63)" % (name, v))
        for name, v in (dtypes or {}).items():
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 2 ** 31:
                raise TypeError("dtypes['%s'] must be a dtype code (an int), got %r" % (name, v))
        dtypes = dict(self.dtypes, **(dtypes or {}))
        strides = strides or {}
        if not isinstance(strides, dict):
            raise TypeError("strides must be a dict {input name: [stride, ...]}")
        for name, st in strides.items():
            if name not in sizes or isinstance(st, (str, bytes)) or not hasattr(st, "__len__") or len(st) != len(sizes[name]):
                raise InvalidError("strides of '%s': one stride per dim of its sizes" % name)
            for v in st:
                if isinstance(v, bool) or not isinstance(v, int):
                    raise TypeError("strides of '%s' must be ints, got %r" % (name, v))
                if v < 0 or v >= 2 ** 63:
                    raise InvalidError("strides of '%s': %d is not a stride (0 <= stride < 2**63)" % (name, v))
        out = []
        for s in self.sources:
            nl, dim = c_size_t(), c_size_t()
            kind = lib.sy_gset_source_parse(s.encode("utf-8"), byref(nl), byref(dim))
            name = s[:nl.value]
            if kind < 0 or name not in sizes:
                raise ValueError("no value for source %s" % s)
            shape = sizes[name]
            if kind == 3:  # a stride: the given one, else the contiguous one (as GuardSet.check)
                d = dim.value
                if d >= len(shape):
                    out.append(0)
                elif name in strides:
                    out.append(strides[name][d])
                else:
                    acc = 1
                    for x in shape[d + 1:]:
                        acc *= x
                    if acc >= 2 ** 63:
                        raise InvalidError("sizes of '%s': its contiguous stride %d is past int64" % (name, d))
                    out.append(acc)
                continue
            out.append(len(shape) if kind == 0 else dtypes.get(name, 0) if kind == 1 else
                       (shape[dim.value] if dim.value < len(shape) else 0))
        return out

    def run(self, sizes, dtypes=None, strides=None):
        """The index of the first entry accepting {input: shape}, or -1. ``strides``
        ({input: [stride, ...]}) feeds the stride sources of sets that have them; an input not
        listed is contiguous (as GuardSet.check; a stride source was a ValueError)."""
        if not self._d:
            raise ValueError("the Dispatcher was closed")
        v = self.values(sizes, dtypes, strides)
        arr = (ctypes.c_int64 * max(len(v), 1))(*v)
        f = getattr(self._frames, "f", None)
        if f is None:
            f = self._frames.f = (ctypes.c_int64 * max(self._frame_len, 1))()
        return lib.sy_dispatch_run(self._d, arr, len(v), f)

    def c_code(self, prefix="dispatch"):
        """The dispatcher as C99 source: long PREFIX_dispatch(const int64_t *v)."""
        if not self._d:  # a closed one gave the library's bare "error"
            raise ValueError("the Dispatcher was closed")
        return self._ctx._take_str(lib.sy_dispatch_to_c(self._d, prefix.encode("utf-8")))
