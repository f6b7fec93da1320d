"""Models: trace a graph (a dict from symshape.export, a JSON string or a path) over a shape
environment and work with its guard set (include/symshape/graph.h, gset.h, backend.h, bc.h).

Ownership follows the C rules: a GuardSet owns one context and, in it, the graph, the env,
the trace and the minimized guard set; everything it returns is copied into Python objects,
and everything is freed in reverse order when the GuardSet is garbage-collected (or on
close())."""
import ctypes
import functools
import json
import os
import threading
from ctypes import POINTER, byref, c_char_p, c_int, c_int64, c_size_t, c_void_p

from . import _lib as L
from ._lib import lib
from ._core import Context, Expr
from .errors import Error, InvalidError

__all__ = ["trace", "GuardSet", "Guard", "Origin", "backends"]


class Origin:
    """One recording of a guard: the graph node, its op, the reason, how many times, and the
    user's source location (``loc``: {"file", "line", "function"} or None)."""
    __slots__ = ("node", "op", "reason", "count", "loc")

    def __init__(self, node, op, reason, count, loc):
        self.node, self.op, self.reason, self.count, self.loc = node, op, reason, count, loc

    def __repr__(self):
        return "Origin(node=%r, op=%r, reason=%r, count=%d, loc=%r)" % (self.node, self.op, self.reason,
                                                                     self.count, self.loc)


class Guard:
    """One guard of a set: ``text`` (PyTorch source notation, a dtype by its code as the
    generated C and the bytecode read it: "x.dtype == 0"), ``display`` (the same for people, a
    dtype by name: "x.dtype == float32"; else equal to text), ``kind`` ("tensor_match",
    "equality", "specialization", "range", "relation", "runtime_assert"), ``why``,
    ``provenance`` (list of Origin), ``loc`` (the first origin's source location or None),
    ``count`` and ``sources`` (the source texts it reads)."""
    __slots__ = ("index", "text", "kind", "why", "count", "provenance", "sources", "display")

    def __init__(self, index, text, kind, why, count, provenance, sources, display=None):
        self.index, self.text, self.kind, self.why = index, text, kind, why
        self.count, self.provenance, self.sources = count, provenance, sources
        self.display = display if display is not None else text

    @property
    def loc(self):
        for o in self.provenance:
            if o.loc:
                return o.loc
        return None

    def __repr__(self):
        return "Guard(%d, %r, kind=%r)" % (self.index, self.display, self.kind)


def _s(b):
    return None if b is None else b.decode("utf-8", "replace")


def _locked(fn):
    """run a GuardSet method holding the set's lock: its context, its real-value memo and its
    last check's values are one thread's at a time (ctypes releases the GIL during each C call;
    two threads' output_shapes bound their sizes in one memo and read each other's outputs)"""
    @functools.wraps(fn)
    def w(self, *a, **k):
        with self._lock:
            return fn(self, *a, **k)
    return w


def _graph_text(graph, dynamic):
    """(json text, display name) of a graph given as a dict, a JSON string or a path, with
    each input listed in ``dynamic`` given that dynamic list (ints, or the spec objects of
    docs/graph-format.md, passed through)."""
    if isinstance(graph, dict):
        doc, name = graph, graph.get("name") or "<graph>"
    elif isinstance(graph, (str, os.PathLike)) and not (isinstance(graph, str) and graph.lstrip().startswith("{")):
        path = os.fspath(graph)
        if dynamic is None:
            with open(path, "rb") as f:
                return f.read(), path
        with open(path, "r", encoding="utf-8") as f:
            doc = json.load(f)
        name = path
    elif isinstance(graph, str):
        doc, name = None, "<graph>"
        if dynamic is None:
            return graph.encode("utf-8"), name
        doc = json.loads(graph)
    else:
        raise TypeError("graph must be a dict, a JSON string or a path, got " + type(graph).__name__)
    if dynamic:
        if not isinstance(dynamic, dict):
            raise TypeError("dynamic must be a dict {input name: [dim, ...]}")
        doc = dict(doc)
        nodes = [dict(n) for n in doc.get("nodes", [])]
        inputs = {n.get("name"): n for n in nodes if n.get("op") == "input"}
        for k, dims in dynamic.items():
            if k not in inputs:
                raise InvalidError("dynamic: no input named '%s' (inputs: %s)" % (k, ", ".join(inputs) or "none"))
            inputs[k]["dynamic"] = _dyn_list(k, dims)
        doc["nodes"] = nodes
    return json.dumps(doc).encode("utf-8"), name


def _dyn_list(name, dims):
    from ._dynamic import normalize_dynamic_dims
    from .errors import ExportError
    try:
        return normalize_dynamic_dims(name, dims)
    except ExportError as e:
        raise InvalidError(e.reason) from None


class GuardSet:
    """The minimized guard set of a traced graph. Build with symshape.trace()."""

    def __init__(self, graph, dynamic=None, duck_sizing=True, specialize_01=True):
        self._lock = threading.RLock()
        self._ctx = Context()
        self._graph = self._env = self._trace = self._gs = None
        h = self._ctx._h
        text, name = _graph_text(graph, dynamic)
        g = c_void_p()
        st = lib.sy_graph_load_text(h, text, len(text), str(name).encode("utf-8"), byref(g))
        if st != 0:
            raise self._ctx._error(st)
        self._graph = g.value
        opts = L.sy_env_options(L.SY_ENV_OPTIONS_VERSION, 1 if duck_sizing else 0, 1 if specialize_01 else 0)
        self._env = lib.sy_env_new(h, byref(opts))
        if not self._env:
            raise self._ctx._error()
        t = c_void_p()
        st = lib.sy_env_trace(self._env, self._graph, 0, None, byref(t))
        if st != 0:
            raise self._ctx._error(st)
        self._trace = t.value
        gs = c_void_p()
        st = lib.sy_gset_produce(self._env, self._graph, byref(gs))
        if st != 0:
            raise self._ctx._error(st)
        self._gs = gs.value
        st = lib.sy_gset_minimize(self._gs)
        if st != 0:
            raise self._ctx._error(st)
        self._inputs = []
        for i in range(lib.sy_graph_ninputs(self._graph)):
            gi = lib.sy_graph_input_at(self._graph, i).contents
            self._inputs.append((_s(gi.name), gi.dtype, [gi.shape[k] for k in range(gi.ndim)]))
        self._guards = None
        self._rv = None

    # lifetime --------------------------------------------------------------
    @_locked
    def close(self):
        """Free the C objects now (idempotent). Later calls raise InvalidError."""
        if getattr(self, "_rv", None):
            lib.sy_realvals_free(self._rv)
            self._rv = None
        if getattr(self, "_gs", None):
            lib.sy_gset_free(self._gs)
            self._gs = None
        if getattr(self, "_trace", None):
            lib.sy_trace_free(self._trace)
            self._trace = None
        if getattr(self, "_env", None):
            lib.sy_env_free(self._env)
            self._env = None
        if getattr(self, "_graph", None):
            lib.sy_graph_free(self._graph)
            self._graph = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def _live(self):
        if not self._gs:
            raise InvalidError("the GuardSet was closed")

    # contents ----------------------------------------------------------------
    @property
    @_locked
    def model(self):
        self._live()
        return _s(lib.sy_graph_name(self._graph))

    @property
    def inputs(self):
        """[(name, example shape)] of the graph's inputs."""
        return [(n, list(s)) for n, _, s in self._inputs]

    @property
    @_locked
    def sources(self):
        self._live()
        return [_s(lib.sy_gset_source(self._gs, i)) for i in range(lib.sy_gset_nsources(self._gs))]

    @property
    @_locked
    def guards(self):
        """The guards, cheapest first (list of Guard)."""
        self._live()
        if self._guards is None:
            srcs = self.sources
            out = []
            for i in range(lib.sy_gset_size(self._gs)):
                g = lib.sy_gset_at(self._gs, i).contents
                prov = []
                for k in range(g.norigins):
                    o = g.origins[k]
                    loc = None
                    if o.loc.file:
                        loc = {"file": _s(o.loc.file), "line": o.loc.line or None, "function": _s(o.loc.function)}
                    prov.append(Origin(_s(o.node), _s(o.op), _s(o.reason), o.count, loc))
                out.append(Guard(i, _s(g.text), _s(lib.sy_gset_kind_name(g.kind)), _s(g.why), g.count, prov,
                                 [srcs[g.slots[k]] for k in range(g.nslots)], _s(g.display)))
            self._guards = out
        return list(self._guards)

    @_locked
    def __len__(self):
        self._live()
        return lib.sy_gset_size(self._gs)

    @property
    @_locked
    def violations(self):
        """The violations of the dynamic-dim spec (the dims declared with names or ranges) by the
        guard set, torch.export's "Constraints violated": a list of dicts {"guard" (its index in
        .guards), "kind" ("pinned", "narrowed", "equal", "function", "divisibility",
        "relation"), "dims", "message", "fix", "model_requires"}; empty when the spec holds."""
        self._live()
        out = []
        for i in range(lib.sy_gset_nviolations(self._gs)):
            v = lib.sy_gset_violation_at(self._gs, i).contents
            out.append({"guard": v.guard, "kind": _s(lib.sy_violation_kind_name(v.kind)), "dims": _s(v.dims),
                        "message": _s(v.message), "fix": _s(v.fix), "model_requires": bool(v.model_requires)})
        return out

    # backends ----------------------------------------------------------------
    @_locked
    def _render(self, backend, prefix=None):
        self._live()
        if not isinstance(backend, str):
            raise TypeError("backend must be a str (a name of symshape.backends()), got " + type(backend).__name__)
        if prefix is not None and not isinstance(prefix, str):
            raise TypeError("prefix must be a str, got " + type(prefix).__name__)
        opts = L.sy_backend_options(L.SY_BACKEND_OPTIONS_VERSION, prefix.encode() if prefix else None,
                                    self._env, self._graph)
        data, n = c_void_p(), c_size_t()
        st = lib.sy_backend_render(backend.encode(), self._gs, byref(opts), byref(data), byref(n))
        if st != 0:
            raise self._ctx._error(st)
        try:
            return ctypes.string_at(data, n.value)
        finally:
            lib.sy_mem_free(self._ctx._h, data)

    def render(self, backend, prefix=None):
        """Output of the named backend ("report", "markdown", "json", "c", "bytecode", "smtlib", and
        "html" in a library built with cmark-gfm) as bytes."""
        return self._render(backend, prefix)

    def report(self):
        return self._render("report").decode("utf-8")

    @_locked
    def _values(self, sizes):
        """the value of every source at these sizes (a list, sy_gset_nsources long)"""
        self.check(sizes)
        return self._last_values

    @_locked
    def region(self):
        """The largest valid region of this set (symshape.deploy.Region, docs/deploy.md). Trace
        with duck_sizing=False, specialize_01=False for the most relaxed one."""
        from .deploy import Region
        return Region(self)

    def markdown(self):
        return self._render("markdown").decode("utf-8")

    def json(self):
        """The stable JSON form (docs/guards.md), as a str."""
        return self._render("json").decode("utf-8")

    def c_code(self, prefix="guards"):
        return self._render("c", prefix).decode("utf-8")

    def bytecode(self):
        """The program for the built-in VM (docs/bytecode.md), as bytes."""
        return self._render("bytecode")

    # checks --------------------------------------------------------------------
    def _shapes(self, sizes):
        if not isinstance(sizes, dict):
            raise TypeError("sizes must be a dict {input name: [size, ...]}")
        known = {n for n, _, _ in self._inputs}
        for k in sizes:
            if k not in known:
                raise InvalidError("no input named '%s' (inputs: %s)" % (k, ", ".join(sorted(known))))
        out = []
        for name, dt, _ in self._inputs:
            if name not in sizes:
                raise InvalidError("sizes: input '%s' is missing" % name)
            sh = list(sizes[name])
            for v in sh:
                if isinstance(v, bool) or not isinstance(v, int):
                    raise TypeError("sizes of '%s' must be ints, got %r" % (name, v))
                if v < 0 or v >= 2 ** 63:
                    raise InvalidError("sizes of '%s': %d is not a size (0 <= size < 2**63)" % (name, v))
            out.append((name, dt, sh))
        return out

    @_locked
    def check(self, sizes, strides=None):
        """(accepted, failed_guard): whether the guards accept the inputs of these sizes (dtypes
        are the graph's), and the text of the first failing guard (None on accept).
        ``strides`` ({input: [stride, ...]}, optional): the inputs' strides, read by the stride
        guards of a graph that declares or reads strides; an input not listed is contiguous."""
        self._live()
        shp = self._shapes(sizes)
        n = len(shp)
        names = (c_char_p * n)(*[s[0].encode() for s in shp])
        ranks = (c_size_t * n)(*[len(s[2]) for s in shp])
        arrs = [(c_int64 * max(len(s[2]), 1))(*s[2]) for s in shp]
        ptrs = (POINTER(c_int64) * n)(*[ctypes.cast(a, POINTER(c_int64)) for a in arrs])
        dts = (c_int * n)(*[s[1] for s in shp])
        ns = lib.sy_gset_nsources(self._gs)
        vals = (c_int64 * max(ns, 1))()
        strides = strides or {}
        if not isinstance(strides, dict):
            raise TypeError("strides must be a dict {input name: [stride, ...]}")
        for k, v in strides.items():
            if k not in sizes or len(v) != len(sizes[k]):
                raise InvalidError("strides of '%s': one stride per dim of its sizes" % k)
            for x in v:  # ctypes stores an int64 modulo 2**64: 2**64 was read as stride 0
                if isinstance(x, bool) or not isinstance(x, int):
                    raise TypeError("strides of '%s' must be ints, got %r" % (k, x))
                if x < 0 or x >= 2 ** 63:
                    raise InvalidError("strides of '%s': %d is not a stride (0 <= stride < 2**63)" % (k, x))
        sarrs = [(c_int64 * max(len(s[2]), 1))(*strides[s[0]]) if s[0] in strides else None for s in shp]
        sptrs = (POINTER(c_int64) * n)(*[ctypes.cast(a, POINTER(c_int64)) if a is not None else None for a in sarrs])
        st = lib.sy_gset_values_from_tensors(self._gs, n, names, ranks, ptrs, sptrs, dts, vals)
        if st != 0:
            raise self._ctx._error(st)
        self._last_values = list(vals)[:ns]
        res = L.sy_gset_result()
        st = lib.sy_gset_check_si(self._gs, vals, ns, byref(res))
        if st != 0:
            raise self._ctx._error(st)
        if res.accept:
            return True, None
        if res.failed < 0:  # no guard failed: an input that cannot exist (its numel past int64)
            return False, _s(res.message)
        return False, _s(lib.sy_gset_at(self._gs, res.failed).contents.text)

    @_locked
    def output_shapes(self, sizes):
        """get_real_value: the shapes of the graph's outputs at these input sizes, one list per
        output (an int output gives [value], a list of tensors one list per tensor, flattened).
        A size that depends on the input values, not only on their sizes (the length of
        nonzero, unique, masked_select, an item() output: an unbacked u0, ...), is None: the
        sizes cannot tell it (output_exprs() gives it as an expression).
        Raises InvalidError (with the node, op and reason) when the graph cannot run there."""
        self._live()
        shp = self._shapes(sizes)
        if not self._rv:
            self._rv = lib.sy_realvals_new(self._ctx._h, self._graph)
            if not self._rv:
                raise self._ctx._error()
        for name, _, sh in shp:
            arr = (c_int64 * max(len(sh), 1))(*sh)
            st = lib.sy_realvals_bind(self._rv, name.encode(), len(sh), arr)
            if st != 0:
                raise self._ctx._error(st)
        out = []
        for i in range(lib.sy_realvals_noutputs(self._rv)):
            v = POINTER(L.sy_value)()
            st = lib.sy_realvals_output(self._rv, i, byref(v))
            if st != 0:
                raise self._ctx._error(st)
            self._flatten(v.contents, out, self._int_or_none)
        return out

    def _int_or_none(self, p):
        """the value of size p at bound sizes; None for a data-dependent one (free symbols left:
        only unbacked ones, since every input size is a constant here)"""
        e = Expr(self._ctx, p)
        try:
            return int(e)
        except TypeError:
            if e.free_symbols():
                return None
            raise

    @_locked
    def output_exprs(self):
        """The symbolic output shapes of the trace (at the example), flattened as in
        output_shapes(): one list of Expr per tensor output ([Expr] for an int output). Sizes
        are over the env's symbols: s0, s1, ... for the input dims in creation order, u0, u1,
        ... for unbacked (data-dependent) values; Expr.eval() gives their value at a point.
        The Expr objects belong to this GuardSet's context (valid until close())."""
        self._live()
        out = []
        for i in range(lib.sy_trace_noutputs(self._trace)):
            v = lib.sy_trace_output(self._trace, i)
            if not v:
                raise self._ctx._error()
            self._flatten(v.contents, out, lambda p: Expr(self._ctx, p))
        return out

    def _int(self, p):
        return int(Expr(self._ctx, p))

    def _flatten(self, v, out, conv=None):
        conv = conv or self._int
        if v.kind == L.V_TENSOR:
            t = v.u.t.contents
            out.append([conv(t.sizes[k]) for k in range(t.ndim)])
        elif v.kind == L.V_LIST:
            for k in range(v.u.list.n):
                self._flatten(v.u.list.items[k], out, conv)
        elif v.kind == L.V_INT:
            out.append([conv(v.u.i)])
        # None, bool, float, str, dtype outputs have no shape


def trace(graph, dynamic=None, duck_sizing=True, specialize_01=True):
    """Trace ``graph`` (a dict from symshape.export, a JSON string, or a path) with symbolic
    sizes and return its minimized GuardSet. ``dynamic`` ({input: [dim, ...]}) replaces the
    dynamic list of each input it names (dims as ints, or the dynamic-dim spec objects of
    docs/graph-format.md, passed through); other inputs keep the graph's own lists.
    ``duck_sizing`` and ``specialize_01`` are the ShapeEnv policies (docs/shapeenv.md).
    Library errors raise symshape.Error subclasses (FormatError for a malformed graph,
    UnsupportedError for an op the engine does not know, InvalidError when an op fails)."""
    return GuardSet(graph, dynamic, duck_sizing, specialize_01)


def backends():
    """The names of the registered backends, in registration order (the built-ins: "json", "c",
    "report", "markdown", "bytecode", "smtlib", and "html" in a library built with cmark-gfm)."""
    out = []
    for i in range(lib.sy_backend_count()):
        p = lib.sy_backend_at(i)
        if p:
            out.append(_s(p[0]))
    return out
