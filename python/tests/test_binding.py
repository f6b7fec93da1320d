"""The ctypes binding without torch: expression round trips, every error path, agreement with
sympy on >= 10^4 random expressions at random points, GuardSet on the bundled models against
their probes, and flat memory over 10^5 objects."""
import gc
import json
import os
import random
import shutil
import subprocess
import sys

import pytest
import sympy

import symshape
from symshape import sympy_conv

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")


# ------------------------------------------------------------------ struct mirrors
# (C struct, ctypes mirror, header): the mirror must have the C layout field for field, since
# ctypes indexes arrays of them (a guard's origins) by its own size. A missing trailing field
# (sy_guard_origin.required) made origins[1] read 8 bytes early: a crash on any guard with two
# origins, which no corpus model has.
def _mirrors():
    from symshape import _lib
    return [("sy_loc", _lib.sy_loc), ("sy_guard_origin", _lib.sy_guard_origin),
            ("sy_gset_guard", _lib.sy_gset_guard), ("sy_gset_result", _lib.sy_gset_result),
            ("sy_gset_violation", _lib.sy_gset_violation),
            ("sy_env_options", _lib.sy_env_options), ("sy_backend_options", _lib.sy_backend_options),
            ("sy_graph_input", _lib.sy_graph_input), ("sy_tensor", _lib.sy_tensor), ("sy_value", _lib.sy_value)]


def test_struct_mirrors_match_the_c_layout(tmp_path):
    import ctypes
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        pytest.skip("no C compiler to read the C layout")
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "symshape/symshape.h"', "int main(void) {"]
    for cname, py in _mirrors():
        lines.append('printf("%s %%zu\\n", sizeof(%s));' % (cname, cname))
        for f in py._fields_:
            lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));' % (cname, f[0], cname, f[0]))
    lines += ["return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c11", "-I", os.path.join(ROOT, "include"), str(src), "-o", str(exe)], check=True)
    c = dict(l.rsplit(" ", 1) for l in subprocess.run([str(exe)], check=True, capture_output=True,
                                                       text=True).stdout.splitlines())
    for cname, py in _mirrors():
        assert int(c[cname]) == ctypes.sizeof(py), cname
        for f in py._fields_:
            assert int(c[cname + "." + f[0]]) == getattr(py, f[0]).offset, cname + "." + f[0]


def test_exact_range_bounds_keep_their_own_origins():
    # bilinear interpolate with recompute_scale_factor: two checks on one size, normalized into its
    # exact range; the min is the non-empty output's, the max the double-precision bound's
    x = {"name": "x", "op": "input", "dtype": "float32", "shape": [1, 2, 8, 8], "dynamic": [0, 1, 2, 3]}
    nodes = [x, {"name": "up", "op": "interpolate", "args": [{"ref": "x"}],
                 "kwargs": {"scale_factor": 0.5, "mode": "bilinear", "recompute_scale_factor": True}}]
    g = {"format": "symshape.graph", "version": 1, "name": "two", "nodes": nodes, "outputs": [{"ref": "up"}]}
    gs = symshape.GuardSet(g, duck_sizing=False, specialize_01=False)
    got = {gd.text: [o.reason.split(",")[0] for o in gd.provenance] for gd in gs.guards if "size()[2]" in gd.text}
    assert got == {"2 <= x.size()[2]": ["Input and output sizes should be greater than 0"],
                   "x.size()[2] <= 9007199254740992": ["float(x.size()[2]) * 0.5: symshape's exact formula for the double "
                                                       "product holds up to 9007199254740992 (a limit of symshape's "
                                                       "formula"]}, got


# ------------------------------------------------------------------ expressions
def test_parse_print_round_trip_and_identity():
    e = symshape.parse("FloorDiv(h + 2*3 - 1*(7 - 1) - 1, 2) + 1")
    assert str(e) == "CeilDiv(h, 2)"
    assert symshape.parse(str(e)) == e and hash(symshape.parse(str(e))) == hash(e)
    assert e == "CeilDiv(h, 2)" and e != symshape.parse("h")
    assert {e, symshape.parse("CeilDiv(h, 2)")} == {e}
    # another context: equal by canonical text
    assert symshape.Context().parse("CeilDiv(h, 2)") == e
    assert eval(e.python(), {}, {"h": 7}) == e.eval(h=7) == 4
    assert e.c() == "sy_floordiv(h + 1, 2)"
    assert e.free_symbols() == ["h"]
    assert int(symshape.parse("2**70")) == 2 ** 70
    r = symshape.parse("a < b")
    assert r.is_bool and str(r) == str(symshape.parse(str(r)))
    assert (symshape.parse("x") + 1) * 2 == symshape.parse("2*x + 2")
    assert symshape.parse("x") // 2 == symshape.parse("FloorDiv(x, 2)")
    assert (7 - symshape.parse("x")) % 3 == symshape.parse("Mod(7 - x, 3)")
    assert symshape.parse("x").rel("<=", 4) == symshape.parse("x <= 4")


def test_simplify_decide_bound_eval():
    assert str(symshape.parse("Mod(8*Mod(x, 4), 64)").simplify()) == "8*Mod(x, 4)"
    assert str(symshape.parse("Mod(x, 8)").simplify(assume=["0 <= x", "x < 8"])) == "x"
    assert symshape.parse("s != 1").decide(assume=["s >= 1"]) is None
    assert symshape.parse("s != 1").decide(assume=["s >= 2"]) is True
    assert symshape.parse("s == 1").decide(assume=["s >= 2"]) is False
    assert symshape.parse("Max(1, 1 + (w - 1)//2) == 1 + (w - 1)//2").decide(assume=["224 <= w <= 455"]) is True
    assert symshape.parse("FloorDiv(x, 4)").bound(assume=["0 <= x", "x <= 100"]) == (0, 25)
    assert symshape.parse("x").bound() == (None, None)
    assert symshape.parse("x + 1").bound(assume=["x >= 3"]) == (4, None)
    assert symshape.parse("Mod(-(2**70), 1000)").eval() == 576
    assert symshape.parse("a < b").eval(a=1, b=2) is True
    assert symshape.parse("FloorDiv(-7, 2)").eval() == -4 and symshape.parse("Mod(7, -2)").eval() == -1


def test_error_paths():
    with pytest.raises(symshape.FormatError) as ei:
        symshape.parse("1 + * 2")
    assert ei.value.status == "SY_EFORMAT" and ei.value.offset == 4 and ei.value.code == -6
    with pytest.raises(symshape.FormatError):
        symshape.parse("Foo(x)")
    with pytest.raises(symshape.DivisionByZeroError) as ei:
        symshape.parse("x // 0")
    assert ei.value.status == "SY_EDIVZERO"
    with pytest.raises(symshape.DivisionByZeroError):
        symshape.parse("FloorDiv(x, y)").eval(x=1, y=0)
    with pytest.raises(symshape.InvalidError) as ei:
        symshape.parse("x + y").eval(x=1)
    assert "y" in ei.value.message
    with pytest.raises(symshape.DivisionByZeroError):
        symshape.parse("FloorDiv(a, b - 1)").bound(assume=["a >= 1", "b >= 1"])
    with pytest.raises(symshape.QuotaError):
        symshape.parse("(a+b+c+d+e+f+g+h)**40")
    with pytest.raises(symshape.InvalidError):
        symshape.parse("x > 0").decide(assume=["x + 1"])  # an assumption that is not boolean
    with pytest.raises(TypeError):
        symshape.parse("x + 1").decide()
    with pytest.raises(TypeError):
        symshape.parse("x < 1").bound()
    with pytest.raises(TypeError):
        symshape.parse(3)
    with pytest.raises(TypeError):
        symshape.parse("x").eval(x="3")
    with pytest.raises(symshape.InvalidError):
        symshape.from_sympy(sympy.sin(sympy.Symbol("x")))
    with pytest.raises(symshape.InvalidError):
        symshape.from_sympy(sympy.Rational(1, 2))
    with pytest.raises(TypeError):
        symshape.from_sympy("x")
    # every Error is a symshape.Error and carries status/code/message
    for cls in (symshape.FormatError, symshape.DivisionByZeroError, symshape.QuotaError, symshape.InvalidError,
                symshape.UnsupportedError, symshape.VersionError):
        assert issubclass(cls, symshape.Error)


def test_library_not_found_is_a_clear_import_error():
    env = dict(os.environ, SYMSHAPE_LIB="/nonexistent/libsymshape.so")
    r = subprocess.run([sys.executable, "-c", "import symshape"], env=env, capture_output=True, text=True,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert r.returncode != 0
    assert "LibraryNotFound" in r.stderr and "/nonexistent/libsymshape.so" in r.stderr


def test_default_context_is_per_thread():
    """Issue 38, second pass: 8 threads calling symshape.parse (the default context) crashed the
    process (double free): ctypes releases the GIL, and they shared one context. Each thread now
    has its own; run in a subprocess so that a crash fails the test instead of the run."""
    code = """if True:
        import threading, symshape
        errs, ctxs = [], set()
        def work(i):
            try:
                ctxs.add(id(symshape.default_context()))
                for k in range(1500):
                    e = symshape.parse("FloorDiv(x%d + %d, 3) * %d + Max(y, %d)" % (i, k, k % 13, k))
                    s = e.simplify(["x%d >= 0" % i])
                    if e.eval(**{"x%d" % i: 7, "y": 3}) != s.eval(**{"x%d" % i: 7, "y": 3}):
                        errs.append("mismatch")
            except Exception as ex:
                errs.append(repr(ex))
        ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        assert not errs, errs[:3]
        assert len(ctxs) == 8, ctxs
        assert symshape.parse("x + 1") == symshape.parse("1 + x")
        print("ok")
    """
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.returncode, r.stdout, r.stderr[-2000:])


def test_library_path_not_utf8_is_a_clear_import_error():
    """Issue 38, second pass: SYMSHAPE_LIB naming a missing file whose path is not UTF-8 raised
    UnicodeDecodeError (ctypes decodes dlerror()'s message); it is LibraryNotFound, the bytes as \\xHH."""
    env = dict(os.environb)
    env[b"SYMSHAPE_LIB"] = b"/nonexistent/\xff\xfe/libsymshape.so"
    r = subprocess.run([sys.executable, "-c", "import symshape"], env=env, capture_output=True, text=True,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert r.returncode != 0
    assert "LibraryNotFound" in r.stderr and "/nonexistent/\\xff\\xfe/libsymshape.so" in r.stderr, r.stderr
    assert "UnicodeDecodeError" not in r.stderr


def test_a_library_that_is_not_libsymshape_is_a_clear_import_error():
    """Issue 38: a shared library without our symbols (another library, or an older libsymshape)
    gave a raw AttributeError from ctypes on import; it is LibraryNotFound naming the file and
    the missing function."""
    import ctypes.util
    other = ctypes.util.find_library("m") or ctypes.util.find_library("c")
    if not other:
        pytest.skip("no libm/libc to stand for a wrong library")
    env = dict(os.environ, SYMSHAPE_LIB=other)
    r = subprocess.run([sys.executable, "-c", "import symshape"], env=env, capture_output=True, text=True,
                       cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert r.returncode != 0
    assert "LibraryNotFound" in r.stderr and "does not define sy_ctx_new" in r.stderr, r.stderr
    assert "AttributeError" not in r.stderr


# ------------------------------------------------------------------ sympy
def test_sympy_names_and_round_trip():
    e = symshape.parse("FloorDiv(a, 3) + CeilDiv(a, b) - Mod(a, 4) + Min(a, b, 7) * Max(a, 2)")
    s = e.to_sympy()
    names = {type(x).__name__ for x in sympy.preorder_traversal(s)}
    assert {"FloorDiv", "CeilDiv", "Mod", "Min", "Max"} <= names
    assert symshape.from_sympy(s) == e
    r = symshape.parse("And(a <= 3, Or(b != 2, a == b))")
    assert symshape.from_sympy(r.to_sympy()) == r
    a, b = sympy.symbols("a b", integer=True)
    assert str(symshape.from_sympy(sympy.floor(a / 4))) == "FloorDiv(a, 4)"
    assert symshape.from_sympy(sympy.Lt(a, b)) == symshape.parse("a < b")
    assert symshape.from_sympy(sympy.Not(sympy.Eq(a, 1))) == symshape.parse("a != 1")


def _rand_tree(r, depth):
    """(text, python function of the point) of a random integer expression."""
    if depth == 0 or r.random() < 0.2:
        if r.random() < 0.5:
            v = r.randint(-6, 6)
            return "(%d)" % v, (lambda env, v=v: v)
        s = r.choice("abc")
        return s, (lambda env, s=s: env[s])
    op = r.choice(["+", "-", "*", "FloorDiv", "Mod", "CeilDiv", "Min", "Max", "pow"])
    x, fx = _rand_tree(r, depth - 1)
    y, fy = _rand_tree(r, depth - 1)
    if op in "+-*":
        f = {"+": lambda e: fx(e) + fy(e), "-": lambda e: fx(e) - fy(e), "*": lambda e: fx(e) * fy(e)}[op]
        return "(%s %s %s)" % (x, op, y), f
    if op == "FloorDiv":
        return "FloorDiv(%s, %s)" % (x, y), lambda e: fx(e) // fy(e)
    if op == "Mod":
        return "Mod(%s, %s)" % (x, y), lambda e: fx(e) % fy(e)
    if op == "CeilDiv":
        return "CeilDiv(%s, %s)" % (x, y), lambda e: -(-fx(e) // fy(e))
    if op == "Min":
        return "Min(%s, %s)" % (x, y), lambda e: min(fx(e), fy(e))
    if op == "Max":
        return "Max(%s, %s)" % (x, y), lambda e: max(fx(e), fy(e))
    k = r.randint(0, 3)
    return "(%s)**%d" % (x, k), lambda e: fx(e) ** k


def test_agreement_with_sympy_on_random_expressions():
    r = random.Random(20261201)
    syms = {n: sympy.Symbol(n, integer=True) for n in "abc"}
    compared = relations = 0
    ctx = symshape.Context()
    while compared < 10000:  # each expression at up to 4 random points
        text, ref = _rand_tree(r, r.randint(1, 4))
        if r.random() < 0.25:  # a relation between two integer expressions
            t2, ref2 = _rand_tree(r, 2)
            op = r.choice(["<", "<=", "==", "!=", ">", ">="])
            text = "%s %s %s" % (text, op, t2)
            ref = (lambda f1, f2, op: lambda e: {"<": f1(e) < f2(e), "<=": f1(e) <= f2(e), "==": f1(e) == f2(e),
                                                 "!=": f1(e) != f2(e), ">": f1(e) > f2(e),
                                                 ">=": f1(e) >= f2(e)}[op])(ref, ref2, op)
        try:
            e = ctx.parse(text)
        except symshape.DivisionByZeroError:
            continue  # a constant zero divisor: rejected at construction, like Python would at run time
        s = e.to_sympy()
        assert symshape.from_sympy(s, ctx) == e, text
        for _ in range(4):
            pt = {n: r.randint(-9, 9) for n in "abc"}
            try:
                want = ref(pt)
            except ZeroDivisionError:
                continue
            got = e.eval(**pt)
            sv = s.xreplace({syms[n]: sympy.Integer(v) for n, v in pt.items()})
            sv = bool(sv) if e.is_bool else int(sv)
            assert got == want == sv, "%s at %s: symshape %r, python %r, sympy %r" % (text, pt, got, want, sv)
            compared += 1
            relations += e.is_bool
    assert relations > 1000


# ------------------------------------------------------------------ models
SHARED_PROBES = os.path.join(os.environ.get("SYMSHAPE_SHARED_DIR") or os.path.join(os.path.dirname(ROOT), "shared"), "probes")


def _probes_path(model):
    for p in (os.path.join(EXAMPLES, model + ".probes.json"), os.path.join(SHARED_PROBES, model + ".probes.json")):
        if os.path.exists(p):
            return p
    return None


@pytest.mark.parametrize("model", ["resnet18", "shufflenet_v2_x1_0", "vit_b_16"])
def test_guardset_on_bundled_models_matches_probes(model):
    """check() and output_shapes() against the CPU-verified probes of the bundled models."""
    path = os.path.join(EXAMPLES, model + ".json")
    probes = _probes_path(model)
    if probes is None:
        pytest.skip("no probes for %s (examples/ or ../shared/probes)" % model)
    with open(probes) as f:
        points = json.load(f)["points"]
    gs = symshape.trace(path)
    assert gs.model and len(gs) == len(gs.guards) > 0
    accepted = 0
    for p in points:
        acc, failed = gs.check(p["sizes"])
        assert (failed is None) == acc
        if acc:
            accepted += 1
            assert p["ok"], p
            assert gs.output_shapes(p["sizes"]) == p["outputs"]
        else:
            assert failed in [g.text for g in gs.guards]
    assert accepted > 0
    # backends
    j = json.loads(gs.json())
    assert [g["text"] for g in j["guards"]] == [g.text for g in gs.guards]
    assert "guards_check" in gs.c_code() and "my_check" in gs.c_code(prefix="my")
    assert gs.bytecode()[:4] == b"SYBC" or len(gs.bytecode()) > 40
    assert gs.report().startswith("symshape guard report") and "Guards" in gs.markdown()
    g0 = gs.guards[0]
    assert g0.kind == "tensor_match" and g0.sources and isinstance(g0.provenance, list)


GRAPH = {"format": "symshape.graph", "version": 1, "name": "tiny", "nodes": [
    {"name": "x", "op": "input", "dtype": "float32", "shape": [4, 6], "dynamic": [0, 1]},
    {"name": "s1", "op": "size", "args": [{"ref": "x"}, 1]},
    {"name": "c", "op": "gt", "args": [{"ref": "s1"}, 5], "loc": {"file": "m.py", "line": 7, "function": "fwd"}},
    {"name": "gb", "op": "guard_bool", "args": [{"ref": "c"}, True],
     "loc": {"file": "m.py", "line": 7, "function": "fwd"}},
    {"name": "v", "op": "view", "args": [{"ref": "x"}, -1]}],
    "outputs": [{"ref": "v"}]}


def test_trace_guards_loc_check_output_shapes():
    gs = symshape.trace(GRAPH)
    rel = [g for g in gs.guards if g.provenance and g.provenance[0].node == "gb"]
    assert len(rel) == 1 and rel[0].loc == {"file": "m.py", "line": 7, "function": "fwd"}
    assert rel[0].text == "6 <= x.size()[1]" or "x.size()[1]" in rel[0].text
    assert "at m.py:7 in fwd" in gs.report()
    assert gs.check({"x": [3, 9]}) == (True, None)
    acc, failed = gs.check({"x": [3, 5]})
    assert not acc and "x.size()[1]" in failed
    assert gs.output_shapes({"x": [3, 9]}) == [[27]]
    # dynamic override: dim 1 static -> pinned to 6
    gs2 = symshape.trace(GRAPH, dynamic={"x": [0]})
    assert not gs2.check({"x": [3, 9]})[0] and gs2.check({"x": [3, 6]})[0]
    # policies
    gs3 = symshape.trace(GRAPH, duck_sizing=False, specialize_01=False)
    assert gs3.check({"x": [0, 9]})[0]
    # no decision read x.size()[0], so no range guard on it: size 0 is accepted, and right
    assert gs.check({"x": [0, 9]}) == (True, None) and gs.output_shapes({"x": [0, 9]}) == [[0]]
    # issue 38: an input whose numel is past int64 cannot exist; rejected with the reason (no guard failed)
    acc, why = gs.check({"x": [2**61, 9]})
    assert not acc and why.startswith("input x cannot exist: its numel 20752587082923245568 "), why
    assert gs.check({"x": [2**59, 9]}) == (True, None)


def test_trace_error_paths(tmp_path):
    with pytest.raises(symshape.FormatError):
        symshape.trace({"format": "nope", "version": 1, "nodes": [], "outputs": []})
    with pytest.raises(symshape.VersionError):
        symshape.trace(dict(GRAPH, version=2))
    with pytest.raises(symshape.FormatError) as ei:
        symshape.trace('{"format": "symshape.graph", "version": 1, "nodes": [}')
    assert "line 1" in str(ei.value)
    bad = json.loads(json.dumps(GRAPH))
    bad["nodes"].append({"name": "z", "op": "no_such_op", "args": [{"ref": "x"}]})
    with pytest.raises(symshape.UnsupportedError) as ei:
        symshape.trace(bad)
    assert "no_such_op" in str(ei.value) and ei.value.status == "SY_EUNSUPPORTED"
    bad = json.loads(json.dumps(GRAPH))
    bad["nodes"].append({"name": "z", "op": "view", "args": [{"ref": "x"}, 5, 5]})
    with pytest.raises(symshape.InvalidError) as ei:
        symshape.trace(bad)
    assert "node 'z'" in str(ei.value)
    bad = json.loads(json.dumps(GRAPH))
    bad["nodes"][2]["loc"] = {"line": 3}
    with pytest.raises(symshape.FormatError) as ei:
        symshape.trace(bad)
    assert "loc" in str(ei.value)
    with pytest.raises(symshape.InvalidError):
        symshape.trace(GRAPH, dynamic={"nope": [0]})
    with pytest.raises(symshape.InvalidError):
        symshape.trace(GRAPH, dynamic={"x": ["zz"]})
    with pytest.raises(OSError):
        symshape.trace(str(tmp_path / "missing.json"), dynamic={"x": [0]})
    with pytest.raises(OSError):
        symshape.trace(str(tmp_path / "missing.json"))
    with pytest.raises(TypeError):
        symshape.trace(42)
    gs = symshape.trace(GRAPH)
    with pytest.raises(symshape.InvalidError):
        gs.check({})
    with pytest.raises(symshape.InvalidError):
        gs.check({"x": [1, 2], "y": [3]})
    with pytest.raises(TypeError):
        gs.check({"x": [1.5, 2]})
    with pytest.raises(symshape.InvalidError):
        gs.check({"x": [-1, 2]})
    with pytest.raises(symshape.InvalidError) as ei:
        gs.output_shapes({"x": [5, 7, 1]})  # wrong rank
    with pytest.raises(symshape.InvalidError):
        gs.render("nope")
    gs.close()
    gs.close()
    with pytest.raises(symshape.InvalidError):
        gs.guards
    p = tmp_path / "g.json"
    p.write_text(json.dumps(GRAPH))
    assert symshape.trace(str(p)).check({"x": [2, 7]})[0]
    assert symshape.trace(p).check({"x": [2, 7]})[0]
    assert symshape.trace(json.dumps(GRAPH)).check({"x": [2, 7]})[0]


STRIDED = {"format": "symshape.graph", "version": 1, "name": "strided", "nodes": [
    {"name": "x", "op": "input", "dtype": "float32", "shape": [4, 6], "dynamic": [0, 1], "strides": [1, 4]},
    {"name": "s0", "op": "stride", "args": [{"ref": "x"}, 0]},
    {"name": "c", "op": "eq", "args": [{"ref": "s0"}, 1]},
    {"name": "gb", "op": "guard_bool", "args": [{"ref": "c"}, True]},
    {"name": "v", "op": "t", "args": [{"ref": "x"}]}], "outputs": [{"ref": "v"}]}


def test_strides_past_int64_and_non_ints_are_refused():
    """issue 38 (fourth pass): check(strides=...) put each stride in a ctypes int64 unchecked,
    which keeps it modulo 2**64: a stride of 2**64 + 1 was read as 1 and accepted by the guard
    x.stride()[0] == 1; True was read as 1. Strides are checked as sizes are."""
    gs = symshape.trace(STRIDED)
    assert "x.stride()[0] == 1" in [g.text for g in gs.guards]
    assert gs.check({"x": [4, 6]}, strides={"x": [1, 4]}) == (True, None)
    assert not gs.check({"x": [4, 6]}, strides={"x": [2, 8]})[0]
    for bad in ([2 ** 64 + 1, 4], [1, 4 - 2 ** 64], [-1, 4], [2 ** 63, 4]):
        with pytest.raises(symshape.InvalidError, match="is not a stride"):
            gs.check({"x": [4, 6]}, strides={"x": bad})
    for bad in ([True, 4], [1.0, 4], [None, 4]):
        with pytest.raises(TypeError, match="must be ints"):
            gs.check({"x": [4, 6]}, strides={"x": bad})
    with pytest.raises(TypeError, match="strides must be a dict"):
        gs.check({"x": [4, 6]}, strides=[1, 4])
    # render's names: a TypeError that says so, not AttributeError ('NoneType' has no 'encode')
    with pytest.raises(TypeError, match="backend must be a str"):
        gs.render(None)
    with pytest.raises(TypeError, match="prefix must be a str"):
        gs.c_code(5)


def test_truth_value_of_a_symbolic_expression_is_an_error():
    """issue 38 (fourth pass): Expr had no __bool__, so ``if parse("x >= 5"):`` was taken
    whatever x (Python's default True), and bool(parse("0")) was True. Constants have their
    truth value; a relation or an integer over symbols raises TypeError, as sympy does."""
    assert bool(symshape.parse("2 >= 1")) is True and bool(symshape.parse("1 >= 2")) is False
    assert bool(symshape.parse("0")) is False and bool(symshape.parse("x - x")) is False
    assert bool(symshape.parse("3")) is True
    for text in ("x >= 5", "x", "x != 1"):
        with pytest.raises(TypeError, match="truth value"):
            bool(symshape.parse(text))
    assert symshape.parse("x >= 5").decide() is None


def test_one_guardset_from_threads():
    """issue 38 (fourth pass): threads sharing one GuardSet bound their sizes in its one
    real-value memo (ctypes releases the GIL during each call), so output_shapes answered
    another thread's point: 2 wrong shapes in 1,800 calls of 6 threads. The set's methods now
    hold its lock; every answer is checked against the graph's own rule (view(-1): [a*b])."""
    import threading
    gs = symshape.trace(GRAPH)
    wrong, errors = [], []

    def run(k):
        try:
            for i in range(400):
                a, b = (i * 7 + k) % 13, (i * 5 + k) % 11
                acc, _ = gs.check({"x": [a, b]})
                if acc != (b > 5):
                    wrong.append(("check", a, b, acc))
                if acc and gs.output_shapes({"x": [a, b]}) != [[a * b]]:
                    wrong.append(("output_shapes", a, b))
                if i % 100 == 0:
                    gs.json()
        except Exception as e:  # noqa: BLE001 - any failure of a thread is reported
            errors.append(repr(e))
    ts = [threading.Thread(target=run, args=(k,)) for k in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors and not wrong, (errors[:3], wrong[:5], len(wrong))


def test_dispatcher_sizes_past_int64_are_refused():
    """issue 38 (fourth pass): Dispatcher.run put the sizes in a ctypes int64 array unchecked,
    which keeps them modulo 2**64: x = [2**64 + 5, 6] was dispatched as [5, 6] to the set
    accepting x.size()[0] <= 8 (a wrong accept); -3 and True were read too. Sizes are checked
    as GuardSet.check checks them."""
    from symshape.diff import Dispatcher

    def graph(lim):
        return {"format": "symshape.graph", "version": 1, "name": "lim%d" % lim, "nodes": [
            {"name": "x", "op": "input", "dtype": "float32", "shape": [4, 6], "dynamic": [0, 1]},
            {"name": "s0", "op": "size", "args": [{"ref": "x"}, 0]},
            {"name": "c", "op": "le", "args": [{"ref": "s0"}, lim]},
            {"name": "gb", "op": "guard_bool", "args": [{"ref": "c"}, True]}], "outputs": [{"ref": "x"}]}
    d = Dispatcher([symshape.trace(graph(8)), symshape.trace(graph(64))])
    assert [d.run({"x": [n, 6]}) for n in (4, 20, 100)] == [0, 1, -1]
    for bad in ([2 ** 64 + 5, 6], [-3, 6], [2 ** 63, 6]):
        with pytest.raises(symshape.InvalidError, match="is not a size"):
            d.run({"x": bad})
    for bad in ([True, 6], [4.0, 6], "46"):
        with pytest.raises(TypeError):
            d.run({"x": bad})
    with pytest.raises(TypeError):
        d.run(None)
    with pytest.raises(TypeError, match="dtype code"):
        d.run({"x": [4, 6]}, dtypes={"x": 2 ** 64})


def test_memory_report_values_past_int64_are_refused():
    """issue 38 (fourth pass): memory_report (`python3 -m symshape memory`) put --range bounds,
    --fix values and --relation factors in ctypes int64 arrays unchecked, which keep them modulo
    2**64: --range x_0=0..2**64+5 printed the peak at x_0 = 5 as 'proved the largest over the
    range', --fix x_1=2**64+6 gave the largest x_0 at x_1 = 6. Each is now refused (ValueError,
    the command's usage error); values that fit give what they gave."""
    from symshape.deploy import memory_report
    gs = symshape.trace(GRAPH, duck_sizing=False, specialize_01=False)
    big = 2 ** 64
    ok = memory_report(gs, ranges={"x_0": (0, 5)})
    assert "x_0 in [0, 5]" in ok and "proved" in ok, ok
    assert "largest x_0" in memory_report(gs, budgets=(1 << 20,), fix={"x_1": 6})
    for kw in ({"ranges": {"x_0": (0, big + 5)}}, {"ranges": {"x_0": (-1, 5)}},
               {"budgets": (1 << 20,), "fix": {"x_1": big + 6}},
               {"budgets": (1 << 20,), "relations": {"x_1": "%d*x_0" % big}},
               {"budgets": (1 << 20,), "relations": {"x_1": "x_0 + %d" % big}},
               {"budgets": (big + 1,)}, {"budgets": (-1,)}):
        with pytest.raises(ValueError):
            memory_report(gs, **kw)


def test_profile_texts_quote_input_names():
    """issue 38 (fourth pass): the profile formats wrote input names raw: a name with a quote
    and a newline ended the Python string of the torch-trt / openvino / ort texts and the rest
    ran as code, and a quote in the trtexec line ended the shell word. Now the Python texts
    parse to one statement list holding the exact names, the trtexec line splits into its three
    words, and the text lines stay one line per dim."""
    import ast
    import shlex
    from symshape.deploy import profiles
    names = ['x"\nimport os; os.system("echo PWNED") #', "y'; echo PWNED; '", "z\\", "plain_1"]
    g = {"format": "symshape.graph", "version": 1, "name": "inj", "outputs": [{"ref": n} for n in names],
         "nodes": [{"name": n, "op": "input", "dtype": "float32", "shape": [4, 6], "dynamic": [0, 1]} for n in names]}
    t = profiles(symshape.trace(g, duck_sizing=False, specialize_01=False), [])["texts"]
    for k in ("torch-trt", "openvino", "ort"):
        tree = ast.parse(t[k])
        assert [type(s).__name__ for s in tree.body] in (["Import", "Assign"], ["Expr"]), (k, t[k])
        strs = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        for n in names:
            assert any(n in v for v in strs), (k, n, strs)
    # a newline in a name stays a newline inside the shell's single quotes: the words read back
    # exact, the command spans lines
    cmd = t["trtexec"].split("\n", 1)[1] if t["trtexec"].startswith("#") else t["trtexec"]
    words = shlex.split(cmd)
    assert [w.split("=")[0] for w in words] == ["--minShapes", "--optShapes", "--maxShapes"], words
    assert all(n + ":" in w for n in names for w in words), words
    assert len(t["text"].splitlines()) == 2 + 2 * len(names), t["text"]


# ------------------------------------------------------------------ lifetimes
def _rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def test_1e5_objects_flat_rss():
    ctx0 = symshape.Context()
    facts = [ctx0.parse(t) for t in ("s1 >= 0", "s1 < 8")]

    made = [0]

    def burst(n):
        """n iterations, each making 2 Expr objects and a fact set (freed); a new context every
        10th iteration (freed with its expressions)."""
        ctx = ctx0
        for i in range(n):
            if i % 10 == 0:
                ctx = symshape.Context()
                made[0] += 1
            e = ctx.parse("FloorDiv(s0 + %d, 2) * Mod(s1, 8)" % (i % 97))
            s = e.simplify(assume=facts if ctx is ctx0 else ())
            str(s)
            made[0] += 3
            del e, s
        return ctx
    burst(5000)
    gc.collect()
    before = _rss_kb()
    made[0] = 0
    burst(34000)
    assert made[0] >= 100000
    gc.collect()
    mid = _rss_kb()
    for _ in range(2000):  # guard sets: graph, env, trace, set, realvals freed each time
        gs = symshape.trace(GRAPH)
        gs.check({"x": [2, 7]})
        gs.output_shapes({"x": [2, 7]})
        gs.report()
        del gs
    gc.collect()
    after = _rss_kb()
    assert mid - before < 4096, "RSS grew by %d kB over 1e5 iterations" % (mid - before)
    assert after - mid < 4096, "RSS grew by %d kB over 2000 guard sets" % (after - mid)


def test_html_backend_from_python():
    """The html backend is part of the library when it is built with cmark-gfm (issue 33):
    GuardSet.render("html") gives the same page as `symshape run -b html`."""
    import ctypes.util
    gs = symshape.trace(os.path.join(EXAMPLES, "vit_b_16.json"), dynamic={"x": ["0:batch", "2:h", "3:w"]})
    try:
        page = gs.render("html")
    except symshape.InvalidError as e:
        if "unknown backend" in str(e) and not ctypes.util.find_library("cmark-gfm"):
            pytest.skip("library built without cmark-gfm (no html backend)")
        raise
    except symshape.UnsupportedError as e:
        if shutil.which("dot") is None:
            pytest.skip("Graphviz's dot is not on PATH: %s" % e)
        raise
    text = page.decode("utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert "<svg" in text and 'id="guard-' in text
    assert "x.size()[2] == 224" in text  # the guard that pins h, with its fix
    assert "Constraints violated: 2." in text


def test_library_found_by_its_versioned_name(tmp_path):
    """A package directory holding only libsymshape.so.0.1 (the soname the build makes), as a wheel
    or a copy of the build's files has it: found without SYMSHAPE_LIB (issue 33)."""
    from symshape import _lib
    pkg = tmp_path / "symshape"
    shutil.copytree(os.path.join(ROOT, "python", "symshape"), str(pkg),
                    ignore=shutil.ignore_patterns("__pycache__", "*.so*"))
    shutil.copy(os.path.realpath(_lib.lib_path), str(pkg / "libsymshape.so.0.1"))
    env = {k: v for k, v in os.environ.items() if k != "SYMSHAPE_LIB"}
    env["PYTHONPATH"] = str(tmp_path)
    r = subprocess.run([sys.executable, "-c", "import symshape; print(symshape.lib_path)"], env=env,
                       capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(pkg / "libsymshape.so.0.1")


def test_guard_display_names_the_dtype():
    """Guard.display is for people (a dtype by name), Guard.text keeps the code that C and the
    bytecode read."""
    gs = symshape.trace(os.path.join(EXAMPLES, "resnet18.json"))
    dt = [g for g in gs.guards if g.text.startswith("x.dtype == ")]
    assert len(dt) == 1, [g.text for g in gs.guards]
    assert dt[0].text == "x.dtype == 0" and dt[0].display == "x.dtype == float32", (dt[0].text, dt[0].display)
    assert "float32" in repr(dt[0])
    for g in gs.guards:
        if "dtype" not in g.text:
            assert g.display == g.text


def test_features_are_the_library_s():
    """symshape.features() is the library's sy_version_features(): html exactly when the html
    backend is registered."""
    feats = symshape.features()
    assert set(feats) <= {"onnx", "html", "z3"}, feats
    assert ("html" in feats) == ("html" in symshape.backends()), (feats, symshape.backends())


@pytest.mark.parametrize("spec", ["0@0..0", "0:b@3..3", [{"dim": 0, "min": 4, "max": 4}], [{"dim": 0, "min": 5, "max": 3}],
                                  ["0@9..2"]])
def test_dynamic_range_of_one_size_or_none_is_refused(spec):
    """fix38: a declared range [0, 0] (or any min >= max) was accepted silently; torch.export's
    Dim asserts max > min, and so do the CLI's --dynamic and the graph reader."""
    from symshape._dynamic import normalize_dynamic_dims
    with pytest.raises(symshape.ExportError, match="a dynamic dim needs min < max"):
        normalize_dynamic_dims("x", spec)


def test_dynamic_range_of_two_sizes_is_kept():
    from symshape._dynamic import normalize_dynamic_dims
    assert normalize_dynamic_dims("x", "0@0..1,1:h@2..") == [{"dim": 0, "min": 0, "max": 1}, {"dim": 1, "name": "h", "min": 2}]
