"""Deployment (docs/deploy.md, issue 36): the largest valid region of a guard set as ready
specs (torch.export dynamic_shapes, JAX symbolic shapes, ONNX dim_params, the --dynamic
string), proved with the decision procedure (include/symshape/deploy.h).

``region(graph, dynamic=None)`` traces the graph under the most relaxed policy (no duck
sizing, no 0/1 specialization) and returns a Region; ``GuardSet.region()`` works on any
traced set. A Region owns nothing of C past its construction: the data is copied into
Python (``data``, the "symshape.region" JSON of docs/deploy.md) and the renderings are made
while the guard set lives."""
import json
import os
import random
from ctypes import (POINTER, byref, c_char_p as c_char_p_, c_int as c_int_, c_int64, c_long as c_long_, c_size_t, c_uint64,
                    c_void_p)

from ._lib import lib
from .errors import InvalidError, _line

__all__ = ["Region", "region", "profiles", "run_corners", "memory_report", "OnnxModel"]

FORMATS = {"text": 0, "torch": 1, "jax": 2, "onnx": 3, "spec": 4, "json": 5}


class Region:
    """A proved region: ``proved`` (bool), ``vars`` (list of {name, min, max}), ``dims`` (list
    of {input, dim, source, name, static, value | var, a, b, min, max, example}), ``kept`` (the
    guards kept as runtime checks: {guard, text, reason}), ``texts`` (format name -> text) and
    ``corners`` (the corner tests: {label, sizes, in_region, accept, guard})."""

    def __init__(self, gset, histogram=None, k=0, budgets=(), what="largest", max_size=0):
        if what not in MEMORY_WHAT:
            raise ValueError("what must be one of %s, got %r" % (", ".join(MEMORY_WHAT), what))
        gset._live()
        ctx = gset._ctx
        h = c_void_p()
        st = lib.sy_region_new(gset._gs, None, byref(h))
        if st != 0:
            raise ctx._error(st)
        try:
            self.texts = {}
            for name, code in FORMATS.items():
                p = lib.sy_region_format(h.value, code)
                self.texts[name] = ctx._take_str(p)
            self.data = json.loads(self.texts["json"])
            self.proved = bool(self.data["proved"])
            self.vars = self.data["vars"]
            self.dims = self.data["dims"]
            self.kept = self.data["kept"]
            self.profiles = _profiles(gset, h.value, histogram, k, max_size) if histogram is not None else None
            self.memory, self.largest = _memory(gset, h.value, self, budgets, MEMORY_WHAT[what])
            c = c_void_p()
            st = lib.sy_corners_new(gset._gs, h.value, byref(c))
            if st != 0:
                raise ctx._error(st)
            try:
                self.corners_json = ctx._take_str(lib.sy_corners_to_json(c.value))
                self.corners = json.loads(self.corners_json)["corners"]
            finally:
                lib.sy_corners_free(c.value)
        finally:
            lib.sy_region_free(h.value)
        self.nsources = len(gset.sources)

    def __str__(self):
        return self.texts["text"]

    def corners_text(self):
        """The corners as `symshape corners` prints them: per corner its label, the sizes of
        every input, in region or outside, accepted or the guard that rejects it."""
        out = []
        for c in self.corners:
            # names and guard texts as one line each (errors._line): a name's newline cannot forge a line
            line, seen = "%-48s " % _line(c["label"]), {}
            for i, d in enumerate(self.dims):
                first = i == 0 or self.dims[i - 1]["input"] != d["input"]
                k = seen.get(d["input"], 0)
                seen[d["input"]] = k + 1
                line += "%s%s%s%d" % ("] " if first and i else "", _line(d["input"]) if first else ",", "=[" if first else "",
                                      c["sizes"][d["input"]][k])
            out.append(line + "]  %s, %s%s\n" % ("in region" if c["in_region"] else "outside",
                                                 "accepted" if c["accept"] else "rejected: ", _line(c.get("guard") or "")))
        return "".join(out)

    def torch_spec(self):
        """The torch.export dynamic_shapes (a dict input -> {dim: Dim | Dim.STATIC | derived
        dim}) built by running the printed Python (``texts["torch"]``)."""
        ns = {}
        exec(compile(self.texts["torch"], "<symshape region>", "exec"), ns)
        return ns["dynamic_shapes"]

    def sizes(self, t):
        """The input shapes at variable values ``t`` (list, one per var): {input: [sizes]}."""
        if len(t) != len(self.vars):
            raise ValueError("sizes: %d values for %d variables (%s)" % (len(t), len(self.vars), ", ".join(v["name"] for v in self.vars)))
        shapes = {}
        for d in self.dims:
            v = d["value"] if d["static"] else d["a"] * t[d["var"]] + d["b"]
            shapes.setdefault(d["input"], []).append(v)
        return shapes

    def sample(self, n, cap=None, seed=0):
        """``n`` points of the region (variable values), each variable drawn uniformly from its
        range clipped to ``cap`` ({var name: max value} or one int for all) and to its min."""
        rnd = random.Random(seed)
        out = []
        for _ in range(n):
            t = []
            for v in self.vars:
                hi = v["max"]
                c = cap.get(v["name"]) if isinstance(cap, dict) else cap
                if c is not None and (hi is None or c < hi):
                    hi = max(c, v["min"])
                if hi is None:
                    hi = v["min"] + 64
                t.append(rnd.randint(v["min"], hi))
            out.append(t)
        return out


def region(graph, dynamic=None):
    """Trace ``graph`` (as symshape.trace) under the most relaxed policy and return its Region.
    ``graph`` may be an OnnxModel, or the path of an ``.onnx`` file (read by the C library's
    ONNX frontend, as `symshape region MODEL.onnx`; ``dynamic`` must then be None: the file
    declares its dims)."""
    if isinstance(graph, OnnxModel) or (isinstance(graph, (str, os.PathLike)) and os.fspath(graph).endswith(".onnx")):
        if dynamic is not None:
            raise InvalidError("region of an ONNX model: dynamic is for graphs (the ONNX file declares its dims)")
        if isinstance(graph, OnnxModel):
            return Region(graph)
        with OnnxModel(graph) as om:
            return Region(om)
    from .guards import trace
    gs = trace(graph, dynamic=dynamic, duck_sizing=False, specialize_01=False)
    try:
        return Region(gs)
    finally:
        gs.close()


PROFILE_FORMATS = {"text": 0, "trtexec": 1, "ort": 2, "torch-trt": 3, "openvino": 4, "json": 5}


def _profiles(gset, region_h, histogram, k, max_size=0):
    """the profiles of the region: {"data": the symshape.profiles JSON, "texts": format -> text}"""
    # -1 was "k = 18446744073709551615"; 2**64 was k = 0 (ctypes keeps it modulo 2**64)
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= 64:
        raise InvalidError("k %r is not a number of boxes (an int in [0, 64]; 0: one per group of pinned values, at most 4)" % (k,))
    if isinstance(histogram, (str, bytes, dict)) or not hasattr(histogram, "__iter__"):
        raise TypeError("histogram must be a list of {\"sizes\": {input: [size, ...]}, \"count\": N}")
    ctx = gset._ctx
    ns = len(gset.sources)
    rows, counts = [], []
    for entry in histogram:
        sizes, count = entry["sizes"], entry.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count < 2 ** 63:
            raise InvalidError("histogram entry %d: count %r is not an int in [0, 2**63)" % (len(counts), count))
        for name, _, shape in getattr(gset, "_inputs", ()):  # a GuardSet (OnnxModel._values checks its own)
            got = sizes.get(name) if isinstance(sizes, dict) else None
            if isinstance(got, (list, tuple)) and len(got) != len(shape):
                # as `symshape profile --histogram`: an error naming the entry, not a point counted as outside
                raise InvalidError("histogram entry %d: input '%s' has rank %d, the entry gives %d sizes"
                                   % (len(counts), name, len(shape), len(got)))
        vals = gset._values(sizes)
        rows.extend(vals)
        counts.append(count)
    n = len(counts)
    arr = (c_int64 * max(n * ns, 1))(*rows)
    cnt = (c_uint64 * max(n, 1))(*counts)
    from ._lib import sy_profile_options
    if isinstance(max_size, bool) or not isinstance(max_size, int) or not 0 <= max_size <= (2 ** 63 - 1) // 4:
        raise InvalidError("max_size %r is not an int in [0, (2**63 - 1) // 4] (0: 4 times the example)" % (max_size,))
    o = sy_profile_options(1, k, max_size)
    h = c_void_p()
    st = lib.sy_profiles_new(gset._gs, region_h, byref(o), n, arr, cnt, byref(h))
    if st != 0:
        raise ctx._error(st)
    try:
        texts = {name: ctx._take_str(lib.sy_profiles_format(h.value, code)) for name, code in PROFILE_FORMATS.items()}
    finally:
        lib.sy_profiles_free(h.value)
    return {"data": json.loads(texts["json"]), "texts": texts}


def profiles(gset, histogram, k=0, max_size=0):
    """Optimization profiles (docs/deploy.md) of ``gset``'s region from ``histogram`` (a list of
    {"sizes": {input: [sizes]}, "count": n}; [] for the one box of the region); ``k`` boxes (0:
    chosen); ``max_size``: without a histogram, the largest size of an unbounded dim (0: 4 times
    the example; as `symshape profile --max-size`). Returns {"data": the "symshape.profiles" JSON
    as a dict, "texts": {format: text}}."""
    return Region(gset, histogram=histogram, k=k, max_size=max_size).profiles


def run_corners(region, model, make=None):
    """Run ``model`` at each corner of ``region`` on the CPU (random float tensors of the corner's
    sizes, or ``make(sizes)`` -> kwargs). Returns (rows, unsound, conservative): every row is
    (corner, ran, error); unsound lists the corners the guards accept where the model fails,
    conservative the ones they reject where it runs. A corner whose inputs cannot be made on this
    machine (a max of 2^62 - 1: torch's "Storage size calculation overflowed", or out of memory)
    has ran None and the error, and is in neither list: the model was not run there."""
    import torch
    rows, unsound, conservative = [], [], []
    for c in region.corners:
        try:
            kw = make(c["sizes"]) if make else {k: torch.randn(*v) for k, v in c["sizes"].items()}
        except (RuntimeError, MemoryError, ValueError, OverflowError) as e:
            rows.append((c, None, "cannot make the inputs: %s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0])))
            continue
        try:
            with torch.no_grad():
                model(**kw)
            ran, err = True, None
        except Exception as e:  # noqa: BLE001 - any failure of the model counts
            ran, err = False, "%s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0])
        rows.append((c, ran, err))
        if c["accept"] and not ran:
            unsound.append((c, err))
        if not c["accept"] and ran:
            conservative.append(c)
    return rows, unsound, conservative


MEMORY_WHAT = {"largest": 0, "total": 1, "live": 2}  # sy_memory_what
_INT64_MAX = 2 ** 63 - 1


def _check_budget(b):
    """a budget in bytes: an int in [0, 2**64) (the C side's uint64; ctypes keeps it modulo 2**64)"""
    if isinstance(b, bool) or not isinstance(b, int) or not 0 <= b < 2 ** 64:
        raise ValueError("budget %r is not a byte count (an int in [0, 2**64))" % (b,))


def _memory(gset, region_h, region, budgets, what=0):
    """([{node, op, elem_bytes, bytes}], {budget: (best, proved)}): the memory envelopes (bytes as
    canonical text over the region's variables) and, per budget, the largest value of the first
    input's dim-0 variable with every activation fitting (the others at the example)."""
    from ctypes import c_int
    ctx = gset._ctx
    m = c_void_p()
    if isinstance(gset, OnnxModel):
        st = gset._memory_new(region_h, byref(m))[0]
    else:
        st = lib.sy_memory_new(gset._env, gset._graph, gset._trace, region_h, byref(m))
    if st != 0:
        raise ctx._error(st)
    try:
        vals = []
        for i in range(lib.sy_memory_size(m.value)):
            v = lib.sy_memory_at(m.value, i).contents
            vals.append({"node": v.node.decode(), "op": v.op.decode(), "elem_bytes": v.elem_bytes,
                         "bytes": ctx._take_str(lib.sy_expr_print(ctx._h, v.bytes, 0))})
        largest = {}
        nv = len(region.vars)
        fixed = [v["min"] for v in region.vars]
        var = None
        for d in region.dims:
            if d["static"]:
                continue
            if d["example"] >= 0 and (d["example"] - d["b"]) % d["a"] == 0:
                fixed[d["var"]] = (d["example"] - d["b"]) // d["a"]
            if var is None and d["dim"] == 0:
                var = d["var"]
        for b in budgets:
            if var is None:
                break
            _check_budget(b)
            best, proved = c_int64(), c_int()
            arr = (c_int64 * max(nv, 1))(*fixed)
            st = lib.sy_memory_largest(m.value, region_h, var, arr, what, b, byref(best), byref(proved))
            if st != 0:
                raise ctx._error(st)
            largest[b] = (best.value, bool(proved.value))
        return vals, largest
    finally:
        lib.sy_memory_free(m.value)


class RelatedExampleWarning(UserWarning):
    """OnnxModel traced at an example the library chose (OnnxModel.related): the model does not run
    where every dim is 224 (sy_onnx_trace_relate, docs/onnx.md "Related inputs")."""


class OnnxModel:
    """An ONNX model traced by the C library's ONNX frontend under the most relaxed policy (no duck
    sizing, no 0/1 specialization), with its minimized guard set: what `symshape memory MODEL.onnx`
    reads. memory_report(OnnxModel(path), ...) prints what that command prints; the values are the
    graph's named values, their element sizes from the ONNX element types, initializers weights.
    Region(OnnxModel(path)) (or ``.region()``), profiles(OnnxModel(path), ...) and the Region's
    corners are those of `symshape region|profile|corners MODEL.onnx`."""

    def __init__(self, path):
        from ._core import Context
        from ._lib import _f, sy_env_options
        _f("sy_onnx_load_file", c_int_, c_void_p, c_char_p_, POINTER(c_void_p))
        _f("sy_onnx_free", c_void_p, c_void_p)
        _f("sy_onnx_name", c_char_p_, c_void_p)
        _f("sy_onnx_nnodes", c_size_t, c_void_p)
        _f("sy_onnx_trace_relate", c_int_, c_void_p, c_void_p, c_void_p, c_void_p, POINTER(c_void_p), POINTER(c_void_p))
        _f("sy_onnx_trace_related", c_char_p_, c_void_p)
        _f("sy_onnx_trace_free", c_void_p, c_void_p)
        _f("sy_onnx_trace_gset_inputs", c_void_p, c_void_p, POINTER(c_size_t))
        _f("sy_onnx_trace_nvalues", c_size_t, c_void_p)
        _f("sy_onnx_trace_value_name", c_char_p_, c_void_p, c_size_t)
        _f("sy_onnx_trace_value", c_void_p, c_void_p, c_size_t)
        _f("sy_onnx_trace_value_role", c_int_, c_void_p, c_size_t)
        _f("sy_onnx_trace_value_elem_bytes", c_size_t, c_void_p, c_size_t)
        _f("sy_onnx_trace_value_life", c_int_, c_void_p, c_size_t, POINTER(c_size_t), POINTER(c_size_t))
        _f("sy_gset_produce_inputs", c_int_, c_void_p, c_char_p_, c_size_t, c_void_p, POINTER(c_void_p))
        self._ctx = Context()
        self._om = self._env = self._ot = self._gs = None
        h = self._ctx._h
        om = c_void_p()
        st = lib.sy_onnx_load_file(h, os.fsencode(path), byref(om))
        if st != 0:
            raise self._ctx._error(st)
        self._om = om.value
        opts = sy_env_options(1, 0, 0)
        env, ot = c_void_p(), c_void_p()
        st = lib.sy_onnx_trace_relate(h, self._om, byref(opts), None, byref(env), byref(ot))
        if st != 0:
            raise self._ctx._error(st)
        self._env, self._ot = env.value, ot.value
        rel = lib.sy_onnx_trace_related(self._ot)
        #: None, or the example the library chose where the model does not run at the default one (224
        #: for every dim: related inputs, issue 32), in dim names: "x_1 = 16 instead of 224 (the model
        #: needs x_1 == Min(16, x_1))"; the relation is among the guards
        self.related = rel.decode("utf-8", "replace") if rel else None
        if self.related:
            import warnings
            warnings.warn("%s: the model does not run at the default example (224 for every dim); traced at %s"
                          % (os.fsdecode(path), self.related), RelatedExampleWarning, stacklevel=2)
        n = c_size_t()
        ins = lib.sy_onnx_trace_gset_inputs(self._ot, byref(n))
        gs = c_void_p()
        st = lib.sy_gset_produce_inputs(self._env, lib.sy_onnx_name(self._om), n.value, ins, byref(gs))
        if st != 0:
            raise self._ctx._error(st)
        self._gs = gs.value
        st = lib.sy_gset_minimize(self._gs)
        if st != 0:
            raise self._ctx._error(st)

    @property
    def model(self):
        self._live()
        return lib.sy_onnx_name(self._om).decode("utf-8", "replace")

    def _live(self):
        if not self._gs:
            raise InvalidError("the OnnxModel was closed")

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def region(self):
        """The largest valid region of the model's guards (Region), as `symshape region MODEL.onnx`."""
        return Region(self)

    @property
    def sources(self):
        self._live()
        return [lib.sy_gset_source(self._gs, i).decode() for i in range(lib.sy_gset_nsources(self._gs))]

    def check(self, sizes):
        """(accepted, failed_guard): whether the guard set accepts inputs of these sizes ({input:
        [D, ...]}, every input named), and the text of the first failing guard (None on accept)."""
        from ._lib import sy_gset_result
        vals = self._values(sizes)
        res = sy_gset_result()
        st = lib.sy_gset_check_si(self._gs, (c_int64 * max(len(vals), 1))(*vals), len(vals), byref(res))
        if st != 0:
            raise self._ctx._error(st)
        if res.accept:
            return True, None
        if res.failed < 0:  # no guard failed: an input that cannot exist (its numel past int64)
            return False, (res.message or b"").decode("utf-8", "replace")
        return False, lib.sy_gset_at(self._gs, res.failed).contents.text.decode("utf-8", "replace")

    def _values(self, sizes):
        """the value of every source at these sizes ({input: [D, ...]}, every input named), the
        others at the example: as `symshape profile --histogram` reads an entry"""
        from ._lib import _f
        _f("sy_gset_source_parse", c_int_, c_char_p_, POINTER(c_size_t), POINTER(c_size_t))
        _f("sy_gset_source_example", c_int_, c_void_p, c_size_t, POINTER(c_int64))
        _f("sy_gset_find_source", c_long_, c_void_p, c_char_p_)
        self._live()
        if not isinstance(sizes, dict):
            raise InvalidError("sizes: expected a dict {input: [D, ...]}")
        n = lib.sy_gset_nsources(self._gs)
        row, ex, ins = [0] * n, c_int64(), {}
        for q in range(n):
            if lib.sy_gset_source_example(self._gs, q, byref(ex)):
                row[q] = ex.value
            src = lib.sy_gset_source(self._gs, q)
            nl = c_size_t()
            if lib.sy_gset_source_parse(src, byref(nl), None) == 0 and lib.sy_gset_source_example(self._gs, q, byref(ex)) \
                    and ex.value >= 0:
                name = src[:nl.value]
                ins[name.decode()] = [lib.sy_gset_find_source(self._gs, b"%s.size()[%d]" % (name, d)) for d in range(ex.value)]
        for k, shape in sizes.items():
            if k not in ins:
                raise InvalidError("the model has no input '%s'" % k)
            if not isinstance(shape, (list, tuple)) or len(shape) != len(ins[k]):
                raise InvalidError("input '%s' has rank %d, the entry gives %s sizes" % (
                    k, len(ins[k]), len(shape) if isinstance(shape, (list, tuple)) else "no"))
            for d, x in enumerate(shape):
                if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < 2 ** 63:
                    raise InvalidError("%s[%d] is not a size" % (k, d))
                if ins[k][d] >= 0:
                    row[ins[k][d]] = x
        for k in ins:
            if k not in sizes:
                raise InvalidError("input '%s' is missing" % k)
        return row

    def _memory_new(self, region_h, out):
        """sy_memory_new_values over the trace's values; (status, string tensors left out)"""
        from ._lib import sy_memory_input
        vals, strings = [], 0
        born, last = c_size_t(), c_size_t()
        for i in range(lib.sy_onnx_trace_nvalues(self._ot)):
            t = lib.sy_onnx_trace_value(self._ot, i)
            eb = lib.sy_onnx_trace_value_elem_bytes(self._ot, i)
            if not t or not lib.sy_onnx_trace_value_life(self._ot, i, byref(born), byref(last)):
                continue
            if not eb:
                strings += 1
                continue
            role = lib.sy_onnx_trace_value_role(self._ot, i)
            vals.append(sy_memory_input(lib.sy_onnx_trace_value_name(self._ot, i),
                                        b"param" if role == 2 else b"input" if role == 1 else b"onnx", t, eb,
                                        born.value, last.value))
        arr = (sy_memory_input * max(len(vals), 1))(*vals)
        return lib.sy_memory_new_values(self._env, max(lib.sy_onnx_nnodes(self._om), 1), len(vals), arr, region_h, out), strings

    def close(self):
        """Free the C objects now (idempotent)."""
        if getattr(self, "_gs", None):
            lib.sy_gset_free(self._gs)
            self._gs = None
        if getattr(self, "_ot", None):
            lib.sy_onnx_trace_free(self._ot)
            self._ot = None
        if getattr(self, "_env", None):
            lib.sy_env_free(self._env)
            self._env = None
        if getattr(self, "_om", None):
            lib.sy_onnx_free(self._om)
            self._om = None

    def __del__(self):
        self.close()


def _ties(ctx, names, vi, fix, relations):
    """(fixed values {index: v}, tie_a, tie_b) from fix {name: v} and relations {name: "A*VAR + B"}
    (VAR: the variable maximized, names[vi]; A >= 1), as `symshape memory --fix/--relation`"""
    fixed, ta, tb = {}, [0] * len(names), [0] * len(names)
    for what, d in (("--fix", fix or {}), ("--relation", relations or {})):
        for name, v in d.items():
            if name not in names:
                raise ValueError("%s: the region has no variable '%s'" % (what, name))
            k = names.index(name)
            if vi is None:
                raise ValueError("--fix, --relation: no variable to maximize")
            if k == vi:
                raise ValueError("%s: '%s' is the variable maximized (--var)" % (what, name))
            if k in fixed or ta[k]:
                raise ValueError("%s: '%s' is given twice (--fix, --relation)" % (what, name))
            if what == "--fix":
                if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= _INT64_MAX:
                    raise ValueError("--fix: %s=%r is not a size (0 <= size < 2**63)" % (name, v))
                fixed[k] = v
                continue
            var = names[vi]
            try:
                e = ctx.parse(str(v))
                b = int(e.eval(**{var: 0}) if var in {str(s) for s in e.free_symbols()} else e.eval())
                a = int(e.eval(**{var: 1}) if var in {str(s) for s in e.free_symbols()} else e.eval()) - b
                same = a >= 1 and ctx.parse("%d*%s + %d" % (a, var, b))._p == e._p  # canonical: one pointer
            except Exception:  # noqa: BLE001 - a syntax error or another symbol: not of the form
                same = False
            if not same:
                raise ValueError("--relation: '%s' is not A*%s + B with A >= 1 (the variable maximized, --var)" % (v, var))
            if a > _INT64_MAX or not -_INT64_MAX - 1 <= b <= _INT64_MAX:  # ctypes keeps an int64 modulo 2**64
                raise ValueError("--relation: '%s': A and B must fit int64" % (v,))
            ta[k], tb[k] = a, b
    return fixed, ta, tb


def memory_report(gset, var=None, budgets=(), total=False, top=5, live=False, ranges=None, fix=None, relations=None):
    """The text `symshape memory` prints for ``gset`` (traced under the most relaxed policy):
    the values' count, the ``top`` largest activations at the example with their bytes
    expressions, and per budget the largest value of variable ``var`` (default: the one of the
    first input's dim 0; the others at the example) such that every activation (``total``: their
    sum; ``live``: the sum of the ones live at each node in graph order) fits; with ``ranges``
    ({var name: (lo, hi)}), the peak of that measure over the box (sy_memory_peak); ``fix``
    ({var name: value}) holds other variables at other values than the example, ``relations``
    ({var name: "A*VAR + B"}) ties them to ``var`` (sy_memory_largest_tied: the largest batch with
    seq = 4*batch). ``gset``: a GuardSet, or an OnnxModel (an .onnx file). Raises ValueError for a
    ``var`` or a range's name the region does not have, or a relation not of that form."""
    from ctypes import c_int
    from ._core import parse
    from ._lib import _f
    if isinstance(top, bool) or not isinstance(top, int) or top < 0:  # nan or -1 printed no list, silently
        raise InvalidError("top %r is not a number of activations (an int >= 0)" % (top,))
    _f("sy_memory_nskipped", c_size_t, c_void_p)
    gset._live()
    ctx = gset._ctx
    h, m = c_void_p(), c_void_p()
    st = lib.sy_region_new(gset._gs, None, byref(h))
    if st != 0:
        raise ctx._error(st)
    try:
        data = json.loads(ctx._take_str(lib.sy_region_format(h.value, FORMATS["json"])))
        strings = 0
        if isinstance(gset, OnnxModel):
            st, strings = gset._memory_new(h.value, byref(m))
        else:
            st = lib.sy_memory_new(gset._env, gset._graph, gset._trace, h.value, byref(m))
        if st != 0:
            raise ctx._error(st)
        nv = len(data["vars"])
        fixed = [v["min"] for v in data["vars"]]
        vi = None
        for i, v in enumerate(data["vars"]):
            if var is not None and v["name"] == var:
                vi = i
        for d in data["dims"]:  # the example's values; the default variable: the first input's dim 0
            if d["static"]:
                continue
            if d["example"] >= 0 and (d["example"] - d["b"]) % d["a"] == 0:
                fixed[d["var"]] = (d["example"] - d["b"]) // d["a"]
            if var is None and vi is None and d["dim"] == 0:
                vi = d["var"]
        if var is not None and vi is None:
            raise ValueError("--var: the region has no variable '%s'" % var)
        vnames = [v["name"] for v in data["vars"]]
        fixv, ta, tb = _ties(ctx, vnames, vi, fix, relations)
        for k, x in fixv.items():
            fixed[k] = x
        n = lib.sy_memory_size(m.value)
        out = ["memory of %s: %d tensor values over the region's variables (%d left out: sizes not over them%s)\n"
               % (gset.model, n, lib.sy_memory_nskipped(m.value),
                  "; %d string tensors left out" % strings if strings else "")]
        env = {v["name"]: fixed[i] for i, v in enumerate(data["vars"])}
        acts = []
        for i in range(n):
            mv = lib.sy_memory_at(m.value, i).contents
            if mv.op.decode() == "param":
                continue
            text = ctx._take_str(lib.sy_expr_print(ctx._h, mv.bytes, 0))
            e = parse(text)
            names = {str(s) for s in e.free_symbols()}
            try:
                b = int(e.eval(**{k: v for k, v in env.items() if k in names}))
            except Exception:  # noqa: BLE001 - a value that does not evaluate at the example is not listed
                continue
            acts.append((-b, i, mv.node.decode(), b, text))
        acts.sort()
        if top > 0:
            out.append("largest activations at the example%s:\n" % (" (--fix values held)" if fix else ""))
            for _, _, node, b, text in acts[:top]:
                out.append("  %-24s %12d bytes = %s\n" % (node, b, text))
        if ranges:
            _f("sy_memory_peak", c_int, c_void_p, c_void_p, POINTER(c_int64), POINTER(c_int64), c_int,
               POINTER(c_uint64), POINTER(c_int))
            names = [v["name"] for v in data["vars"]]
            lo, hi = list(fixed), list(fixed)
            for name, (a, b) in ranges.items():
                if name not in names:
                    raise ValueError("--range: the region has no variable '%s'" % name)
                for x in (a, b):  # ctypes keeps an int64 modulo 2**64: 2**64 + 5 was read as 5
                    if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= _INT64_MAX:
                        raise ValueError("--range: %s=%r..%r: the bounds must be sizes (0 <= size < 2**63)" % (name, a, b))
                lo[names.index(name)], hi[names.index(name)] = a, b
            peak, proved = c_uint64(), c_int()
            st = lib.sy_memory_peak(m.value, h.value, (c_int64 * max(nv, 1))(*lo), (c_int64 * max(nv, 1))(*hi),
                                    2 if live else 1 if total else 0, byref(peak), byref(proved))
            if st != 0:
                raise ctx._error(st)
            out.append("peak of %s over %s: %d bytes (%s)\n" % (
                "the activations live at one node" if live else "all activations together" if total else "one activation",
                ", ".join("%s in [%d, %d]" % (nm, lo[i], hi[i]) for i, nm in enumerate(names)), peak.value,
                "proved the largest over the range; at its upper corner" if proved.value
                else "NOT proved: the value at the upper corner only"))
        if budgets and vi is None:
            out.append("no dynamic dim: every size is static, nothing to maximize\n")
        cond = ["%s = %s%s%s" % (vnames[k], "%d*" % ta[k] if ta[k] != 1 else "", vnames[vi], "%+d" % tb[k] if tb[k] else "")
                for k in range(nv) if ta[k]]
        cond += ["%s=%d" % (nm, (fix or {})[nm]) for nm in (fix or {})]
        cond = ", ".join(cond) + "; " if cond else ""
        for budget in budgets if vi is not None else ():
            _check_budget(budget)
            best, proved, stop = c_int64(), c_int(), c_int()
            arr = (c_int64 * max(nv, 1))(*fixed)
            tied = any(ta)
            st = lib.sy_memory_largest_tied(m.value, h.value, vi, arr, (c_int64 * max(nv, 1))(*ta) if tied else None,
                                            (c_int64 * max(nv, 1))(*tb) if tied else None,
                                            2 if live else 1 if total else 0, budget, byref(best), byref(proved), byref(stop))
            if st != 0:
                raise ctx._error(st)
            v = data["vars"][vi]
            line = "largest %s with %s <= %d bytes (%sthe others at the example): " % (
                v["name"], "the activations live at each node (graph order)" if live else
                "all activations together" if total else "every activation", budget, cond)
            if best.value < 0:
                line += "none (its minimum does not fit)"
            else:
                end = ("; it is the end of the variable's range" if stop.value == 1
                       else "; the search stops there (2^40): larger values may fit too"
                       if stop.value == 2 else "; one more does not fit")
                line += "%d%s (%s%s)" % (best.value, "".join(", %s = %d" % (vnames[k], ta[k] * best.value + tb[k])
                                                              for k in range(nv) if ta[k]),
                                         "proved for every value up to it" if proved.value else "NOT proved",
                                         end if proved.value else "")
            out.append(line + "\n")
        return "".join(out)
    finally:
        if m.value:
            lib.sy_memory_free(m.value)
        lib.sy_region_free(h.value)
