"""Deployment (docs/deploy.md, issue 36): the largest valid region of a guard set as ready
specs (torch.export dynamic_shapes, JAX symbolic shapes, ONNX dim_params, the --dynamic
string), proved with the decision procedure (include/symshape/deploy.h).

``region(graph, dynamic=None)`` traces the graph under the most relaxed policy (no duck
sizing, no 0/1 specialization) and returns a Region; ``GuardSet.region()`` works on any
traced set. A Region owns nothing of C past its construction: the data is copied into
Python (``data``, the "symshape.region" JSON of docs/deploy.md) and the renderings are made
while the guard set lives."""
import json
import random
from ctypes import POINTER, byref, c_int64, c_size_t, c_uint64, c_void_p

from ._lib import lib
from .errors import InvalidError

__all__ = ["Region", "region", "profiles", "run_corners", "memory_report"]

FORMATS = {"text": 0, "torch": 1, "jax": 2, "onnx": 3, "spec": 4, "json": 5}


class Region:
    """A proved region: ``proved`` (bool), ``vars`` (list of {name, min, max}), ``dims`` (list
    of {input, dim, source, name, static, value | var, a, b, min, max, example}), ``kept`` (the
    guards kept as runtime checks: {guard, text, reason}), ``texts`` (format name -> text) and
    ``corners`` (the corner tests: {label, sizes, in_region, accept, guard})."""

    def __init__(self, gset, histogram=None, k=0, budgets=(), what="largest"):
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
            self.profiles = _profiles(gset, h.value, histogram, k) if histogram is not None else None
            self.memory, self.largest = _memory(gset, h.value, self, budgets, MEMORY_WHAT[what])
            c = c_void_p()
            st = lib.sy_corners_new(gset._gs, h.value, byref(c))
            if st != 0:
                raise ctx._error(st)
            try:
                self.corners = json.loads(ctx._take_str(lib.sy_corners_to_json(c.value)))["corners"]
            finally:
                lib.sy_corners_free(c.value)
        finally:
            lib.sy_region_free(h.value)
        self.nsources = len(gset.sources)

    def __str__(self):
        return self.texts["text"]

    def torch_spec(self):
        """The torch.export dynamic_shapes (a dict input -> {dim: Dim | Dim.STATIC | derived
        dim}) built by running the printed Python (``texts["torch"]``)."""
        ns = {}
        exec(compile(self.texts["torch"], "<symshape region>", "exec"), ns)
        return ns["dynamic_shapes"]

    def sizes(self, t):
        """The input shapes at variable values ``t`` (list, one per var): {input: [sizes]}."""
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
    """Trace ``graph`` (as symshape.trace) under the most relaxed policy and return its Region."""
    from .guards import trace
    gs = trace(graph, dynamic=dynamic, duck_sizing=False, specialize_01=False)
    try:
        return Region(gs)
    finally:
        gs.close()


PROFILE_FORMATS = {"text": 0, "trtexec": 1, "ort": 2, "torch-trt": 3, "openvino": 4, "json": 5}


def _profiles(gset, region_h, histogram, k):
    """the profiles of the region: {"data": the symshape.profiles JSON, "texts": format -> text}"""
    ctx = gset._ctx
    ns = len(gset.sources)
    rows, counts = [], []
    for entry in histogram:
        sizes, count = entry["sizes"], entry.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count < 2 ** 63:
            raise InvalidError("histogram entry %d: count %r is not an int in [0, 2**63)" % (len(counts), count))
        vals = gset._values(sizes)
        rows.extend(vals)
        counts.append(count)
    n = len(counts)
    arr = (c_int64 * max(n * ns, 1))(*rows)
    cnt = (c_uint64 * max(n, 1))(*counts)
    from ._lib import sy_profile_options
    o = sy_profile_options(1, k, 0)
    h = c_void_p()
    st = lib.sy_profiles_new(gset._gs, region_h, byref(o), n, arr, cnt, byref(h))
    if st != 0:
        raise ctx._error(st)
    try:
        texts = {name: ctx._take_str(lib.sy_profiles_format(h.value, code)) for name, code in PROFILE_FORMATS.items()}
    finally:
        lib.sy_profiles_free(h.value)
    return {"data": json.loads(texts["json"]), "texts": texts}


def profiles(gset, histogram, k=0):
    """Optimization profiles (docs/deploy.md) of ``gset``'s region from ``histogram`` (a list of
    {"sizes": {input: [sizes]}, "count": n}); ``k`` boxes (0: chosen). Returns {"data": the
    "symshape.profiles" JSON as a dict, "texts": {format: text}}."""
    return Region(gset, histogram=histogram, k=k).profiles


def run_corners(region, model, make=None):
    """Run ``model`` at each corner of ``region`` on the CPU (random float tensors of the corner's
    sizes, or ``make(sizes)`` -> kwargs). Returns (rows, unsound, conservative): every row is
    (corner, ran, error); unsound lists the corners the guards accept where the model fails,
    conservative the ones they reject where it runs."""
    import torch
    rows, unsound, conservative = [], [], []
    for c in region.corners:
        kw = make(c["sizes"]) if make else {k: torch.randn(*v) for k, v in c["sizes"].items()}
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


def _memory(gset, region_h, region, budgets, what=0):
    """([{node, op, elem_bytes, bytes}], {budget: (best, proved)}): the memory envelopes (bytes as
    canonical text over the region's variables) and, per budget, the largest value of the first
    input's dim-0 variable with every activation fitting (the others at the example)."""
    from ctypes import c_int
    ctx = gset._ctx
    m = c_void_p()
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
            best, proved = c_int64(), c_int()
            arr = (c_int64 * max(nv, 1))(*fixed)
            st = lib.sy_memory_largest(m.value, region_h, var, arr, what, b, byref(best), byref(proved))
            if st != 0:
                raise ctx._error(st)
            largest[b] = (best.value, bool(proved.value))
        return vals, largest
    finally:
        lib.sy_memory_free(m.value)


def memory_report(gset, var=None, budgets=(), total=False, top=5, live=False, ranges=None):
    """The text `symshape memory` prints for ``gset`` (traced under the most relaxed policy):
    the values' count, the ``top`` largest activations at the example with their bytes
    expressions, and per budget the largest value of variable ``var`` (default: the one of the
    first input's dim 0; the others at the example) such that every activation (``total``: their
    sum; ``live``: the sum of the ones live at each node in graph order) fits; with ``ranges``
    ({var name: (lo, hi)}), the peak of that measure over the box (sy_memory_peak). Raises
    ValueError for a ``var`` or a range's name the region does not have."""
    from ctypes import c_int
    from ._core import parse
    from ._lib import _f
    _f("sy_memory_nskipped", c_size_t, c_void_p)
    gset._live()
    ctx = gset._ctx
    h, m = c_void_p(), c_void_p()
    st = lib.sy_region_new(gset._gs, None, byref(h))
    if st != 0:
        raise ctx._error(st)
    try:
        data = json.loads(ctx._take_str(lib.sy_region_format(h.value, FORMATS["json"])))
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
        n = lib.sy_memory_size(m.value)
        out = ["memory of %s: %d tensor values over the region's variables (%d left out: sizes not over them)\n"
               % (gset.model, n, lib.sy_memory_nskipped(m.value))]
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
            out.append("largest activations at the example:\n")
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
        for budget in budgets if vi is not None else ():
            best, proved = c_int64(), c_int()
            arr = (c_int64 * max(nv, 1))(*fixed)
            st = lib.sy_memory_largest(m.value, h.value, vi, arr, 2 if live else 1 if total else 0, budget, byref(best),
                                       byref(proved))
            if st != 0:
                raise ctx._error(st)
            v = data["vars"][vi]
            line = "largest %s with %s <= %d bytes (the others at the example): " % (
                v["name"], "the activations live at each node (graph order)" if live else
                "all activations together" if total else "every activation", budget)
            if best.value < 0:
                line += "none (its minimum does not fit)"
            else:
                end = ("; it is the end of the variable's range" if v["max"] is not None and best.value == v["max"]
                       else "; the search stops there (2^40): larger values may fit too"
                       if v["max"] is None and best.value == 1 << 40 else "; one more does not fit")
                line += "%d (%s%s)" % (best.value, "proved for every value up to it" if proved.value else "NOT proved",
                                       end if proved.value else "")
            out.append(line + "\n")
        return "".join(out)
    finally:
        if m.value:
            lib.sy_memory_free(m.value)
        lib.sy_region_free(h.value)
