"""The two frontends against each other (issue 34 item 2, "one rule, one room").

Each model (a conv and a max pool with ceil_mode, broadcasting adds, a reshape with -1, pads, slices)
is traced twice at the same example: by the torch frontend (symshape.export) and by the ONNX frontend
(torch.onnx.export, TorchScript exporter, dynamo=False, every dim dynamic; `symshape run -b json
--example`). The two minimized guard sets are compared by meaning (symshape.diff: A <= B and B <= A),
and:
  * every witness the diff finds is run: the side that accepts it runs there (torch on the CPU for
    the torch side, onnxruntime for the ONNX side), so neither frontend accepts a size its runtime
    cannot run;
  * at sample sizes around the example, each side's guard set accepts only sizes its runtime runs
    (symshape probe against the real outcome);
  * the verdict is "equal", except for the differences listed in KNOWN with their reason; a listed
    difference that disappears fails too, so that the list stays true.
The shared rules live in shapeenv/rules.c (broadcast dim, window output size, reshape's -1, pad)."""
import itertools
import json
import os
import subprocess
import tempfile

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import symshape

TORCH_MAJOR = int(torch.__version__.split(".")[0])
pytestmark = pytest.mark.skipif(TORCH_MAJOR < 2, reason="the ONNX side is exported with torch 2.x (dynamo=False)")
CLI = os.environ.get("SYMSHAPE_CLI")
# both sides without duck sizing: ONNX gives each dim_param its own symbol, while duck sizing would
# give x and y of the same example size one symbol on the torch side, and a broadcast of one symbol
# asks nothing; the rules are compared only where both frontends ask them
POLICY = ["--no-duck-sizing"]


class ConvPoolCeil(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.pool = nn.MaxPool2d(3, 2, ceil_mode=True)

    def forward(self, x):
        return self.pool(self.conv(x))


class PoolCeilPadded(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(3, 2, padding=1, ceil_mode=True)

    def forward(self, x):
        return self.pool(x)


class BcastAdd(nn.Module):
    def forward(self, x, y):
        return x + y


class BcastMul3(nn.Module):
    def forward(self, x, y, z):
        return (x * y) + z


class ReshapeInfer(nn.Module):
    def forward(self, x):
        return x.reshape(x.shape[0], -1, 4)


class ViewFlatten(nn.Module):
    def forward(self, x):
        return x.view(-1, x.shape[-1] * x.shape[-2])


class Pad(nn.Module):
    def forward(self, x):
        return F.pad(x, (1, 2, 0, 3))


class PadMultiple(nn.Module):
    def forward(self, x):
        w = x.shape[-1]
        return F.pad(x, (0, (4 - w % 4) % 4))


class Slice(nn.Module):
    def forward(self, x):
        return x[:, 1:-1, ::2]


# name -> (model, {input: example shape}, {input: sample shapes})
def cases():
    return {
        "conv_pool_ceil": (ConvPoolCeil(), {"x": (2, 3, 17, 18)},
                           {"x": [(1, 3, h, w) for h, w in itertools.product((1, 2, 3, 5, 6, 9, 16, 17), (2, 4, 7, 18))]}),
        "pool_ceil_padded": (PoolCeilPadded(), {"x": (2, 3, 9, 10)},
                             {"x": [(2, 3, h, w) for h, w in itertools.product((1, 2, 3, 4, 5, 8, 9), (1, 2, 6, 10, 11))]}),
        "bcast_add": (BcastAdd(), {"x": (3, 5), "y": (3, 5)},
                      {"x": [(a, b) for a, b in itertools.product((1, 2, 3), (1, 5, 6))],
                       "y": [(a, b) for a, b in itertools.product((1, 3), (1, 5))]}),
        "bcast_mul3": (BcastMul3(), {"x": (4, 6), "y": (6,), "z": (4, 1)},
                       {"x": [(4, 6), (2, 6), (4, 1)], "y": [(6,), (1,), (5,)], "z": [(4, 1), (4, 6), (2, 1)]}),
        "reshape_infer": (ReshapeInfer(), {"x": (2, 6, 4)},
                          {"x": [(a, b, c) for a, b, c in itertools.product((0, 1, 2), (0, 3, 6), (2, 4, 8))]}),
        "view_flatten": (ViewFlatten(), {"x": (2, 3, 5, 7)},
                         {"x": [(2, 3, 5, 7), (1, 1, 5, 7), (2, 3, 0, 7), (4, 2, 3, 3)]}),
        "pad": (Pad(), {"x": (2, 5, 6)}, {"x": [(2, 5, 6), (1, 1, 1), (3, 0, 2), (2, 4, 0)]}),
        "pad_multiple": (PadMultiple(), {"x": (2, 5, 6)}, {"x": [(2, 5, w) for w in (1, 2, 3, 4, 5, 8, 9)]}),
        "slice": (Slice(), {"x": (2, 7, 9)}, {"x": [(2, n, m) for n, m in itertools.product((1, 2, 3, 7), (1, 2, 9))]}),
    }


# Remaining differences between the frontends (a = torch, b = ONNX), each with its reason.
KNOWN = {
    # (pool_ceil_padded was listed here as "torch requires the channels non-zero, onnxruntime does
    # not"; onnxruntime refuses C = 0 when N > 0 too ("Only N can be zero", pool_attributes.h), which
    # the ONNX frontend now requires, and the two sets are equal)
    # the torch frontend's slice of dim 0 (x[:, ...], a full slice) proves stop - start >= 0 from
    # 0/1 specialization's range [2, oo) and so relies on it (2 <= x.size()[0]), although the slice
    # runs at 0 and 1; slice lengths are not a shared rule yet (torch decides emptiness with a
    # guard, ONNX Slice clamps with Max(0, ...) and negative steps)
    "slice": ("widens", "the torch frontend's full slice relies on the range of dim 0"),
    # the runtimes differ: with ceil_mode a window count of 0 runs in onnxruntime
    # (pool_attributes.h ComputeOutputSize only fails below 0), while ATen's pooling_output_shape
    # requires an output >= 1 ("Output size is too small"); each side's witnesses are run above
    "conv_pool_ceil": ("widens", "onnxruntime runs a ceil_mode pool whose output is 0, ATen does not"),
}


def sh(args):
    return subprocess.run(args, capture_output=True, text=True)


def onnx_export(model, ex, path):
    names = list(ex)
    args = tuple(torch.randn(*ex[n]) for n in names)
    dyn = {n: {i: "%s_d%d" % (n, i) for i in range(len(ex[n]))} for n in names}
    torch.onnx.export(model, args, path, opset_version=17, input_names=names, output_names=["out"],
                      dynamic_axes=dyn, dynamo=False)


def example_arg(ex):
    return [a for n, s in ex.items() for a in ("--example", "%s=%s" % (n, ",".join(map(str, s))))]


def onnx_guards(path, ex, out):
    r = sh([CLI, "run", path, *example_arg(ex), *POLICY, "-b", "json", "-o", out])
    assert r.returncode == 0, r.stderr
    with open(out) as f:
        return json.load(f)


def torch_runs(model, shapes):
    """the output shapes where the model runs on the CPU, else None"""
    try:
        with torch.no_grad():
            y = model(*[torch.randn(*s) for s in shapes.values()])
        return [list(y.shape)]
    except Exception:
        return None


def ort_runs(sess, shapes):
    """the output shapes where onnxruntime runs the model, else None"""
    try:
        return [list(y.shape) for y in sess.run(None, {n: torch.randn(*s).numpy() for n, s in shapes.items()})]
    except Exception:
        return None


def probe(path_or_doc, points, d, tag, extra=()):
    """symshape probe of a model at points [{input: shape}] with the ground truth [(ok)]: the violations"""
    src = path_or_doc
    if isinstance(path_or_doc, dict):
        src = os.path.join(d, tag + ".json")
        with open(src, "w") as f:
            json.dump(path_or_doc, f)
    pp = os.path.join(d, tag + ".points.json")
    with open(pp, "w") as f:
        json.dump({"points": [{"sizes": {n: list(s) for n, s in p.items()}, "ok": o is not None,
                               **({"outputs": o} if o is not None else {})} for p, o in points]}, f)
    r = sh([CLI, "probe", src, "--points", pp, "--json", *extra])
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    return [x for x in lines if x.get("soundness_violation")], sum(1 for x in lines if x["accept"])


@pytest.mark.parametrize("name", sorted(cases()))
def test_frontends_agree(name):
    if not CLI:
        pytest.skip("SYMSHAPE_CLI not set (ctest sets it)")
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    model, ex, samples = cases()[name]
    model.eval()
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as d:
        doc = symshape.export(model, {n: torch.randn(*s) for n, s in ex.items()})
        path = os.path.join(d, name + ".onnx")
        onnx_export(model, ex, path)
        og = onnx_guards(path, ex, os.path.join(d, name + ".guards.json"))
        sess = ort.InferenceSession(path)
        r = symshape.diff(doc, og, duck_sizing=False)
        # every witness: the accepting side's runtime runs it
        wits = [w for w in [r["narrowing_witness"], r["widening_witness"]] + [c["witness"] for c in r["changes"]] if w]
        for w in wits:
            shapes = {n: tuple(v["shape"]) for n, v in w["inputs"].items()}
            ok = torch_runs(model, shapes) if w["accepted_by"] == "a" else ort_runs(sess, shapes)
            assert ok is not None, "%s: accepted by %s at %s, but its runtime fails" % (name, "torch ONNX".split()[w["accepted_by"] == "b"], shapes)
        # sample sizes: each side accepts only what its runtime runs
        names = list(ex)
        pts = [dict(zip(names, p)) for p in itertools.product(*[samples[n] for n in names])]
        tv, ta = probe(doc, [(p, torch_runs(model, p)) for p in pts], d, "torch", POLICY)
        ov, oa = probe(path, [(p, ort_runs(sess, p)) for p in pts], d, "onnx", example_arg(ex) + POLICY)
        assert not tv and not ov, "%s: soundness violations: torch %s, onnx %s" % (name, tv[:2], ov[:2])
        print("%s: verdict %s, %d witnesses run, %d sample points (torch accepts %d, onnx %d)"
              % (name, r["verdict"], len(wits), len(pts), ta, oa))
        if name in KNOWN:
            assert r["verdict"] == KNOWN[name][0], "%s: the listed difference (%s) changed: %s" % (
                name, KNOWN[name][1], json.dumps(r, indent=1)[:3000])
        else:
            assert r["verdict"] == "equal", "%s: the frontends' guard sets differ:\n%s" % (name, json.dumps(r, indent=1)[:3000])
