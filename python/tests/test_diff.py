"""symshape.diff on pairs from real edits (issue 37), each witness checked on the CPU.

Each pair is exported twice (before and after the edit), the two guard sets are diffed, and:
  * the verdict (and the command's exit status) is the intended one;
  * at every witness, the model of the side that accepts it runs on the CPU (a guard set never
    accepts a size the real model cannot run), and when the guard that rejects it on the other
    side was forced by the model itself (an op check or an _assert: "[required]"), that model
    fails there.
Pairs: with and without an assert, ceil_mode toggled, a pad-to-multiple added, exported at
batch 1 vs batch 4, ONNX opset 13 vs 17 (run with onnxruntime), torch 1.13 vs 2.x exports of one
model (the 1.13 export and run in /usr/bin/python3 when it has torch 1.13)."""
import json
import os
import subprocess
import sys
import tempfile

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import symshape
from symshape.diff import exit_status

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.dirname(HERE)
TORCH_MAJOR = int(torch.__version__.split(".")[0])
DTYPES = {0: torch.float32, 1: torch.float64, 2: torch.float16}


def inputs_at(w):
    return {k: torch.randn(*v["shape"], dtype=DTYPES.get(v.get("dtype", 0), torch.float32)) for k, v in w["inputs"].items()}


def runs(model, w):
    try:
        with torch.no_grad():
            model(**inputs_at(w))
        return True, ""
    except Exception as e:  # the model's own failure
        return False, str(e).splitlines()[0] if str(e) else type(e).__name__


def witnesses(r):
    out = [r["narrowing_witness"], r["widening_witness"]]
    out += [c["witness"] for c in r["changes"]]
    return [w for w in out if w]


def check_on_cpu(r, run_a, run_b):
    """run_a / run_b: witness -> (ran, message). Returns the number of witnesses checked."""
    n = 0
    for w in witnesses(r):
        acc, rej = (run_a, run_b) if w["accepted_by"] == "a" else (run_b, run_a)
        ok, msg = acc(w)
        assert ok, "accepted by %s at %s but the model fails: %s" % (w["accepted_by"], w["inputs"], msg)
        if "[required]" in w["rejected_by"]["origin"]:
            ok, msg = rej(w)
            assert not ok, "rejected by a required guard (%s) at %s but the model runs" % (w["rejected_by"]["text"], w["inputs"])
        n += 1
    return n


def export(model, **ex):
    torch.manual_seed(0)
    return symshape.export(model.eval() if isinstance(model, nn.Module) else model, ex)


class Feat(nn.Module):
    def __init__(self, check):
        super().__init__()
        self.check = check

    def forward(self, x):
        if self.check:
            torch._assert(x.shape[1] == 16, "need 16 features")
        return x.relu().sum(1)


def test_assert_added_narrows():
    a, b = Feat(False), Feat(True)
    r = symshape.diff(export(a, x=torch.randn(4, 16)), export(b, x=torch.randn(4, 16)))
    assert r["verdict"] == "narrows" and exit_status(r) == 1
    added = [c for c in r["changes"] if c["change"] in ("added", "narrowed")]
    assert any(c["b"]["text"] == "x.size()[1] == 16" and "[required]" in c["b"]["origin"] for c in added), r["changes"]
    w = r["narrowing_witness"]
    assert w["inputs"]["x"]["shape"][1] != 16
    assert check_on_cpu(r, lambda w: runs(a, w), lambda w: runs(b, w)) >= 1


class Pool(nn.Module):
    def __init__(self, ceil):
        super().__init__()
        self.p = nn.MaxPool2d(3, stride=2, ceil_mode=ceil)

    def forward(self, x):
        return self.p(x)


def test_ceil_mode_toggled():
    a, b = Pool(False), Pool(True)
    x = torch.randn(1, 2, 16, 16)
    r = symshape.diff(export(a, x=x), export(b, x=x))
    # ceil_mode keeps a last partial window: an input of 2 gives one output instead of none
    assert r["verdict"] == "widens" and exit_status(r) == 6, json.dumps(r, indent=1)
    assert [(c["change"], c["a"]["text"], c["b"]["text"]) for c in r["changes"]] == \
        [("widened", "3 <= x.size()[2]", "2 <= x.size()[2]")]
    assert r["widening_witness"]["inputs"]["x"]["shape"][2] == 2
    assert check_on_cpu(r, lambda w: runs(a, w), lambda w: runs(b, w)) >= 1


class Patches(nn.Module):
    def __init__(self, pad):
        super().__init__()
        self.pad = pad

    def forward(self, x):
        if self.pad:
            x = F.pad(x, (0, (8 - x.shape[1] % 8) % 8))
        return x.reshape(x.shape[0], -1, 8).sum(2)


def test_pad_to_multiple_added_widens():
    a, b = Patches(False), Patches(True)
    x = torch.randn(3, 32)
    r = symshape.diff(export(a, x=x), export(b, x=x))
    assert r["verdict"] == "widens" and exit_status(r) == 6, json.dumps(r, indent=1)
    (c,) = r["changes"]
    assert c["change"] == "dropped" and "Mod(x.size()[1], 8)" in c["a"]["text"] and "[required]" in c["a"]["origin"]
    w = r["widening_witness"]
    assert w["inputs"]["x"]["shape"][1] % 8 != 0
    assert check_on_cpu(r, lambda w: runs(a, w), lambda w: runs(b, w)) >= 1


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return self.conv(x).flatten(1).sum(1)


def test_batch_1_vs_batch_4():
    m = Head()
    r = symshape.diff(export(m, x=torch.randn(1, 3, 8, 8)), export(m, x=torch.randn(4, 3, 8, 8)))
    # batch 1 was specialized (0/1 specialization) and nothing else reads the batch: the batch-4
    # export accepts every batch, so it only widens
    assert r["verdict"] == "widens" and exit_status(r) == 6, json.dumps(r, indent=1)
    assert r["a_subset_b"] == "true" and r["b_subset_a"] == "false"
    (c,) = r["changes"]
    assert c["change"] == "dropped" and c["a"]["text"] == "x.size()[0] == 1" and "0/1 specialization" in c["a"]["why"]
    assert r["widening_witness"]["inputs"]["x"]["shape"][0] != 1
    assert check_on_cpu(r, lambda w: runs(m, w), lambda w: runs(m, w)) >= 1


def test_map_renamed_input():
    class A(nn.Module):
        def forward(self, x):
            return x.sum(1)

    class B(nn.Module):
        def forward(self, inp):
            return inp.sum(1)

    ga, gb = export(A(), x=torch.randn(3, 5)), export(B(), inp=torch.randn(3, 5))
    assert symshape.diff(ga, gb, map={"x": "inp"})["verdict"] == "equal"
    # without the map the inputs do not match: each side leaves the other's input free
    assert symshape.diff(ga, gb)["verdict"] != "equal"


class Norm(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2)
        self.ln = nn.LayerNorm(8)

    def forward(self, x):
        y = self.conv(x)
        return self.ln(y.permute(0, 2, 3, 1))


def onnx_export(model, x, opset, path):
    kw = {"dynamo": False} if TORCH_MAJOR >= 2 else {}
    torch.onnx.export(model, (x,), path, opset_version=opset, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch", 2: "h", 3: "w"}}, **kw)


@pytest.mark.skipif(TORCH_MAJOR < 2, reason="ONNX pair exported with torch 2.x")
def test_onnx_opset_13_vs_17():
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    m = Norm().eval()
    x = torch.randn(2, 3, 16, 16)
    with tempfile.TemporaryDirectory() as d:
        pa, pb = os.path.join(d, "m13.onnx"), os.path.join(d, "m17.onnx")
        onnx_export(m, x, 13, pa)
        onnx_export(m, x, 17, pb)
        r = symshape.diff(pa, pb)
        # opset 17 has LayerNormalization, 13 spells it out: the sizes accepted are the same
        assert r["verdict"] == "equal" and exit_status(r) == 0, json.dumps(r, indent=1)
        assert r["changes"] == [] or all(c["change"] == "restated" for c in r["changes"])
        # no witness to run: check the two models agree on the CPU at a few accepted sizes instead
        sa, sb = ort.InferenceSession(pa), ort.InferenceSession(pb)
        for h in (3, 7, 16, 33):
            xi = torch.randn(1, 3, h, h).numpy()
            ya, yb = sa.run(None, {"x": xi})[0], sb.run(None, {"x": xi})[0]
            assert ya.shape == yb.shape


PAD_SRC = """
import torch, torch.nn.functional as F
class Crop(torch.nn.Module):
    def forward(self, x):
        return F.pad(x, (0, 0, 1, 0))
"""


def torch113():
    py = "/usr/bin/python3"
    if not os.path.exists(py):
        return None
    p = subprocess.run([py, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True)
    return py if p.returncode == 0 and p.stdout.startswith("1.13") else None


@pytest.mark.skipif(TORCH_MAJOR < 2, reason="the 2.x side of the pair needs torch 2.x")
def test_torch_113_vs_2x_export():
    py = torch113()
    if not py:
        pytest.skip("no /usr/bin/python3 with torch 1.13")
    ns = {}
    exec(PAD_SRC, ns)
    m = ns["Crop"]()
    with tempfile.TemporaryDirectory() as d:
        g113 = os.path.join(d, "crop113.json")
        env = dict(os.environ, PYTHONPATH=PKG + os.pathsep + d)
        with open(os.path.join(d, "cropmod.py"), "w") as f:
            f.write(PAD_SRC)
        p = subprocess.run([py, "-m", "symshape", "export", "cropmod:Crop", "--input", "x=2,6", "-o", g113],
                           capture_output=True, text=True, env=env, cwd=d)
        assert p.returncode == 0, p.stderr
        doc113 = json.load(open(g113))
        assert doc113.get("torch_version", "").startswith("1.13")
        # sizes 0 and 1 stay symbolic (0/1 specialization would assume x.size()[1] >= 2 on both sides)
        r = symshape.diff(doc113, export(m, x=torch.randn(2, 6)), specialize_01=False)
        # 1.13's constant_pad_nd needs every padded dim (the last two) to end >= 1, 2.x lets one end at 0
        assert r["verdict"] == "widens" and exit_status(r) == 6, json.dumps(r, indent=1)
        w = r["widening_witness"]
        assert w["inputs"]["x"]["shape"][1] == 0

        def run113(w):
            shape = ",".join(str(v) for v in w["inputs"]["x"]["shape"])
            code = PAD_SRC + "\nCrop()(torch.randn(%s))\n" % shape
            q = subprocess.run([py, "-c", code], capture_output=True, text=True)
            return q.returncode == 0, q.stderr.strip().splitlines()[-1] if q.stderr.strip() else ""

        assert check_on_cpu(r, run113, lambda w: runs(m, w)) >= 1


def test_command_line_exit_statuses():
    a, b = Feat(False), Feat(True)
    with tempfile.TemporaryDirectory() as d:
        pa, pb = os.path.join(d, "a.json"), os.path.join(d, "b.json")
        json.dump(export(a, x=torch.randn(4, 16)), open(pa, "w"))
        json.dump(export(b, x=torch.randn(4, 16)), open(pb, "w"))
        env = dict(os.environ, PYTHONPATH=PKG)
        for args, code in (([pa, pb], 1), ([pb, pa], 6), ([pa, pa], 0)):
            p = subprocess.run([sys.executable, "-m", "symshape", "diff"] + args + ["--json"], capture_output=True,
                               text=True, env=env)
            assert p.returncode == code, p.stderr
            assert json.loads(p.stdout)["format"] == "symshape.diff"
        p = subprocess.run([sys.executable, "-m", "symshape", "diff", pa, pb, "--run", "__main__:nothing"],
                           capture_output=True, text=True, env=env)
        assert p.returncode == 3 and p.stderr.startswith("symshape: error: "), p.stderr


def _nl_graph(k, shape):
    name = 'x\n*/"<b>'
    return {"format": "symshape.graph", "version": 1, "name": "m\n*/" + k,
            "nodes": [{"name": name, "op": "input", "dtype": "float32", "shape": [2, 8, 4], "dynamic": [0, 1]},
                      {"name": "v", "op": "view", "args": [{"ref": name}, -1, shape[1]],
                       "example": {"dtype": "float32", "shape": shape}}],
            "outputs": [{"ref": "v"}]}


def test_text_outputs_escape_a_names_newline():
    """Issue 38 (fix38f): `python -m symshape diff`'s text and Region.corners_text() wrote a
    name's newline raw, so a model could forge a line ("*/..." starts one): now \\x0a, as the
    command line writes it (and corners_text is still the CLI's `corners` byte for byte)."""
    from symshape.deploy import Region
    with tempfile.TemporaryDirectory() as d:
        pa, pb = os.path.join(d, "a.json"), os.path.join(d, "b.json")
        json.dump(_nl_graph("A", [16, 4]), open(pa, "w"))
        json.dump(_nl_graph("B", [8, 8]), open(pb, "w"))
        env = dict(os.environ, PYTHONPATH=PKG)
        p = subprocess.run([sys.executable, "-m", "symshape", "diff", pa, pb], capture_output=True, text=True, env=env)
        assert p.returncode == 1, p.stderr
        lines = p.stdout.splitlines()
        assert not any(l.startswith("*/") for l in lines), p.stdout
        assert "A: m\\x0a*/A (" in p.stdout and 'x\\x0a*/"<b>.size()[' in p.stdout, p.stdout
        gs = symshape.trace(_nl_graph("A", [16, 4]), duck_sizing=False, specialize_01=False)
        text = Region(gs).corners_text()
        assert not any(l.startswith("*/") for l in text.splitlines()) and 'x\\x0a*/"<b>=[' in text, text
        cli = os.environ.get("SYMSHAPE_CLI")
        if cli:
            assert text == subprocess.run([cli, "corners", pa], capture_output=True, text=True).stdout


def test_dispatcher_buckets_against_each_set():
    """symshape.Dispatcher over batch buckets of one exported model: the entry it answers is the
    first whose guard set accepts (each set checked with GuardSet.check), and the model runs there."""
    m = Head()
    doc = export(m, x=torch.randn(4, 3, 8, 8))
    base = json.loads(symshape.trace(doc).json())
    b = base["sources"].index("x.size()[0]")
    sets, traced = [], []
    for lo, hi in ((2, 3), (4, 7), (8, 15)):
        s = json.loads(json.dumps(base))
        s["guards"] += [{"kind": "range", "expr": "%d <= _s%d" % (lo, b)}, {"kind": "range", "expr": "_s%d <= %d" % (b, hi)}]
        sets.append(s)
    d = symshape.Dispatcher(sets)
    gs = symshape.trace(doc)
    for batch in range(0, 18):
        for hw in (2, 3, 8, 11):
            sizes = {"x": [batch, 3, hw, hw]}
            want = next((i for i, (lo, hi) in enumerate(((2, 3), (4, 7), (8, 15))) if lo <= batch <= hi), -1)
            acc, _ = gs.check(sizes)
            if not acc:
                want = -1
            got = d.run(sizes)
            assert got == want, (sizes, got, want)
            if got >= 0:
                ok, msg = runs(m, {"inputs": {"x": {"shape": sizes["x"], "dtype": 0}}})
                assert ok, msg
    assert "long bk_dispatch(const int64_t *v)" in d.c_code("bk")
    d.close()


def test_dispatcher_run_from_threads():
    """Issue 38 (third pass): Dispatcher.run shared one frame between threads (ctypes releases
    the GIL during sy_dispatch_run), and 6 threads got 5 wrong entries in 144,000 calls; the C
    dispatcher allows concurrent runs with a frame per thread, as the binding now has."""
    import random
    import threading
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sets = [symshape.trace(os.path.join(root, "examples", m + ".json")) for m in ("resnet18", "vit_b_16")]
    d = symshape.Dispatcher(sets)
    r = random.Random(1)
    pts = [[r.choice([0, 1, 2, 3, 8]), 3, r.choice([224, 100, 32]), r.choice([224, 100, 32])] for _ in range(300)]
    want = [d.run({"x": p}) for p in pts]
    assert set(want) == {-1, 0, 1} or set(want) >= {-1, 0}, set(want)
    bad = []

    def work():
        for _ in range(80):
            for i, p in enumerate(pts):
                got = d.run({"x": p})
                if got != want[i]:
                    bad.append((p, got, want[i]))

    ts = [threading.Thread(target=work) for _ in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad, "%d wrong entries, e.g. %s" % (len(bad), bad[:3])
    d.close()
