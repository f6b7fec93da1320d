"""Issue 36's model test and table (docs/deploy.md, "Twelve models on the CPU"): for 11 PyTorch
models (torchvision resnet18, mobilenet_v3_small, squeezenet1_1, shufflenet_v2_x0_5 and a small
VisionTransformer; a UNet concatenating its skips and one cropping them; a transformer encoder; a
causal SDPA decoder; an LSTM tagger; a strided 1-D conv net) and an ONNX KV-cache decoder (run
with onnxruntime), each traced under the most relaxed policy:

- 200 points drawn inside the printed region (sizes capped for the CPU) run on the CPU: 0
  violations (a point only a kept check rejects is counted, not run);
- a point just past each face of the region (and one off each progression) is rejected by the
  guard set, which names the guard;
- profiles from a sample histogram (30 region points, counts 1..50, k = 3): every box is proved
  and 200 points drawn from the boxes run on the CPU;
- torch.export.export accepts the printed dynamic_shapes (the call the torch rendering prints);
- memory: the bytes expression of the model's output and of every leaf module's output equals
  torch's numel * element_size at >= 50 of the CPU runs (the ONNX decoder: every value's bytes,
  `symshape memory --json`, equals onnxruntime's tensor's nbytes); the largest batch whose every
  activation fits in 1 GiB and in 16 GiB, proved by the decision procedure;
- the ONNX decoder: the Python API (OnnxModel) and `python3 -m symshape region|corners` print what
  the C commands print (region, corners, profiles JSON).

And test_memory_batch_seq_relation: the largest batch of an attention layer with seq = 4*batch
(`memory --relation`), checked against the real tensors on the CPU at the answer and one past it.

The table (docs/deploy.md) is written to $SYMSHAPE_DEPLOY_TABLE when set. torch 2.x only (the
torch.export half, SDPA); under torch 1.13 every test is skipped."""
import json
import os
import random
import subprocess
import sys
import tempfile

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

# every test skipped (with the reason) under torch 1.13; not a module-level skip, which leaves
# pytest nothing collected (exit status 5, a ctest failure)
pytestmark = pytest.mark.skipif(int(torch.__version__.split(".")[0]) < 2, reason="needs torch 2.x (torch.export, "
                                "scaled_dot_product_attention); torch %s here" % torch.__version__)

import symshape  # noqa: E402
from symshape.deploy import Region  # noqa: E402
from symshape.exporter import export  # noqa: E402

from test_deploy import UNetCat, UNetCrop  # noqa: E402

torch.set_num_threads(1)  # a shared machine: one core per test process

N = 200          # CPU points inside the region, and again inside the profile boxes
NMEM = 50        # points where the bytes expressions are compared with torch
GIB = 1 << 30
TABLE = []


def _tv(name, **kw):
    return lambda: getattr(pytest.importorskip("torchvision").models, name)(**kw)


def _vit():
    from torchvision.models import VisionTransformer
    return VisionTransformer(image_size=32, patch_size=8, num_layers=1, num_heads=2, hidden_dim=16, mlp_dim=32)


def _encoder():
    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True, dropout=0.0)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


class CausalDecoder(nn.Module):
    """Two GPT-style blocks: causal F.scaled_dot_product_attention, heads split with view."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.h = heads
        self.qkv = nn.ModuleList([nn.Linear(d, 3 * d) for _ in range(2)])
        self.proj = nn.ModuleList([nn.Linear(d, d) for _ in range(2)])
        self.norm = nn.ModuleList([nn.LayerNorm(d) for _ in range(2)])
        self.head = nn.Linear(d, 50)

    def forward(self, x):
        b, t, d = x.shape
        for qkv, proj, norm in zip(self.qkv, self.proj, self.norm):
            q, k, v = qkv(norm(x)).view(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + proj(y.transpose(1, 2).reshape(b, t, d))
        return self.head(x)


class LSTMTagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 24, batch_first=True, bidirectional=True)
        self.out = nn.Linear(48, 9)

    def forward(self, x):
        return self.out(self.lstm(x)[0])


class Conv1dNet(nn.Module):
    """wav2letter-like: strided 1-D convolutions over (B, 8, L), then a pointwise classifier."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(8, 16, 11, stride=2, padding=5)
        self.c2 = nn.Conv1d(16, 16, 7, stride=2)
        self.c3 = nn.Conv1d(16, 12, 1)

    def forward(self, x):
        return self.c3(torch.relu(self.c2(torch.relu(self.c1(x)))))


# name, builder, example sizes, dynamic dims, the largest size sampled per dim (CPU time)
IMG = ({"x": [2, 3, 64, 64]}, {"x": [0, 2, 3]}, {"x": [3, 3, 64, 64]})
CASES = [
    ("resnet18", _tv("resnet18"), *IMG),
    ("mobilenet_v3_small", _tv("mobilenet_v3_small"), *IMG),
    ("squeezenet1_1", _tv("squeezenet1_1"), *IMG),
    ("shufflenet_v2_x0_5", _tv("shufflenet_v2_x0_5"), *IMG),
    ("vit_small", _vit, {"x": [2, 3, 32, 32]}, {"x": [0, 2, 3]}, {"x": [4, 3, 32, 32]}),
    ("unet_cat", UNetCat, {"x": [2, 3, 32, 40]}, {"x": [0, 2, 3]}, {"x": [3, 3, 64, 64]}),
    ("unet_crop", UNetCrop, {"x": [2, 3, 36, 44]}, {"x": [0, 2, 3]}, {"x": [3, 3, 64, 64]}),
    ("transformer_encoder", _encoder, {"src": [2, 7, 32]}, {"src": [0, 1]}, {"src": [4, 48, 32]}),
    ("causal_decoder", CausalDecoder, {"x": [2, 9, 32]}, {"x": [0, 1]}, {"x": [4, 48, 32]}),
    ("lstm_tagger", LSTMTagger, {"x": [2, 9, 16]}, {"x": [0, 1]}, {"x": [4, 48, 16]}),
    ("conv1d_net", Conv1dNet, {"x": [2, 8, 100]}, {"x": [0, 2]}, {"x": [4, 8, 400]}),
]

# torch.export's own tracer narrows these dims whatever the spec says (the CPU points of the region
# run there): {model: (Dim, the fix torch suggests, as a regex)}
TORCH_EXPORT_SPECIALIZES = {"lstm_tagger": ("x_1", r"x_1 = 9"),                          # aten.lstm: length 9
                            "mobilenet_v3_small": ("x_3", r"x_3 = Dim\('x_3', min=33\)")}  # W >= 33


def _runs(model, sizes):
    try:
        with torch.no_grad():
            model(**{k: torch.randn(*v) for k, v in sizes.items()})
        return True, None
    except Exception as e:  # noqa: BLE001 - any failure of the model counts
        return False, "%s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0])


def _cap(region, c):
    """a cap per variable: the largest t whose dims all stay within their caps c[input][dim]"""
    caps = {}
    for v_i, v in enumerate(region.vars):
        t = None
        for d in region.dims:
            if not d["static"] and d["var"] == v_i:
                k = (c[d["input"]][d["dim"]] - d["b"]) // d["a"]
                t = k if t is None else min(t, k)
        caps[v["name"]] = max(v["min"], t if t is not None else v["min"])
    return caps


def _faces(region, check, sizes_of):
    """[(sizes, guard)] for a point just past each finite face of each variable and one off each
    progression (the other variables at a small inside value); asserts each is rejected by a guard"""
    base = [min(max(v["min"], 2), v["max"] if v["max"] is not None else 10 ** 9) for v in region.vars]
    out = []
    for i, v in enumerate(region.vars):
        for side in ("min", "max"):
            if (side == "min" and v["min"] == 0) or (side == "max" and v["max"] is None):
                continue
            t = list(base)
            t[i] = v["min"] - 1 if side == "min" else v["max"] + 1
            sizes = sizes_of(t)
            if any(s < 0 for shp in sizes.values() for s in shp):
                continue
            acc, why = check(sizes)
            assert not acc and why, "%s past the %s face of %s accepted" % (sizes, side, v["name"])
            out.append((sizes, why))
        for d in region.dims:
            if d["static"] or d["var"] != i or d["a"] == 1:
                continue
            sizes = sizes_of(list(base))
            sizes[d["input"]][d["dim"]] += 1
            acc, why = check(sizes)
            assert not acc and why, "%s off the progression of %s accepted" % (sizes, d["name"])
            out.append((sizes, why))
    return out


def _histogram(region, caps, rnd):
    """a sample histogram: 30 entries over 3 base points of the region (capped as the CPU points),
    each with the first variable (the batch) drawn again; counts 1..50"""
    bases = region.sample(3, cap=caps, seed=rnd.randint(0, 10 ** 6))
    v0 = region.vars[0]
    hi0 = caps.get(v0["name"], v0["min"])
    hist = []
    for i in range(30):
        t = list(bases[i % 3])
        t[0] = rnd.randint(v0["min"], max(v0["min"], hi0))
        hist.append({"sizes": region.sizes(t), "count": rnd.randint(1, 50)})
    return hist


def _box_points(profiles, n, rnd):
    """n points drawn uniformly from the boxes, round robin: [{input: shape}]"""
    out = []
    boxes = profiles["profiles"]
    for i in range(n):
        box = boxes[i % len(boxes)]
        sizes = {}
        for d in box["dims"]:
            sizes.setdefault(d["input"], []).append(rnd.randint(d["min"], d["max"]))
        out.append(sizes)
    return out


def _row(name, dims, region_text, prof, inside, ran, faces, export_ok, mem_checked, largest):
    TABLE.append((name, dims, region_text, prof, inside, ran, faces, export_ok, mem_checked, largest))
    path = os.environ.get("SYMSHAPE_DEPLOY_TABLE")
    if not path:
        return
    with open(path, "w") as f:
        f.write("| model | dims | region (as printed) | profiles (sample histogram, k = 3) | CPU points inside: "
                "ran / run | faces rejected | torch.export | bytes == numel*size | largest batch 1 GiB / 16 GiB |\n")
        f.write("|---|---|---|---|---|---|---|---|---|\n")
        for r in TABLE:
            f.write("| %s |\n" % " | ".join(str(c) for c in r))


def _region_cell(region):
    parts = []
    for d in region.dims:
        if d["static"]:
            continue
        v = region.vars[d["var"]]
        form = d["name"] if d["a"] == 1 and d["b"] == 0 else "%s*%s%s" % (
            d["a"], v["name"], "" if d["b"] == 0 else "%+d" % d["b"])
        parts.append("%s[%d]=%s, %s in [%d, %s]" % (d["input"], d["dim"], form, v["name"], v["min"],
                                                    "oo" if v["max"] is None else v["max"]))
    kept = len(region.kept)
    return "; ".join(parts) + (" (%d kept)" % kept if kept else "") + ("" if region.proved else " NOT proved")


def _prof_cell(data):
    cells = []
    for p in data["profiles"]:
        shapes = {}
        for d in p["dims"]:
            shapes.setdefault(d["input"], []).append(
                str(d["min"]) if d["min"] == d["max"] else "%d..%d" % (d["min"], d["max"]))
        cells.append("%s (%.0f%%)" % (" ".join("%s:%s" % (k, "x".join(v)) for k, v in shapes.items()),
                                      100 * p["share"]))
    return "<br>".join(cells)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_model(case):
    name, build, example, dynamic, cap = case
    torch.manual_seed(0)
    model = build().eval()
    ex = {k: torch.randn(*v) for k, v in example.items()}
    doc = export(model, ex, dynamic=dynamic, name=name)
    gs = symshape.trace(doc, duck_sizing=False, specialize_01=False)
    rnd = random.Random(name)
    r0 = Region(gs)
    hist = _histogram(r0, _cap(r0, cap), rnd)
    region = Region(gs, histogram=hist, k=3, budgets=(GIB, 16 * GIB))
    assert region.proved, region.texts["text"]
    caps = _cap(region, cap)

    # memory: every leaf module's output and the model's output, against torch
    byname = {m["node"]: symshape.parse(m["bytes"]) for m in region.memory}
    real, hooks = {}, []
    for qn, mod in model.named_modules():
        node = qn.replace(".", "_")
        if qn and not list(mod.children()) and node in byname:
            hooks.append(mod.register_forward_hook(
                lambda m_, i_, o_, node=node: real.__setitem__(node, o_.numel() * o_.element_size())
                if isinstance(o_, torch.Tensor) else None))
    outs = [o.get("ref") for o in doc.get("outputs", []) if isinstance(o, dict)]
    out_node = outs[0] if len(outs) == 1 and outs[0] in byname else None
    assert hooks or out_node, "%s: no module output or graph output matched a graph node" % name

    # 200 points inside the region: the low corner, then random ones
    pts = region.sample(N, cap=caps, seed=1)
    pts[0] = [v["min"] for v in region.vars]
    fails, ran, kept_out, mem_points, compared = [], 0, 0, 0, 0
    try:
        for t in pts:
            sizes = region.sizes(t)
            acc, why = gs.check(sizes)
            if not acc:  # only a kept check may reject a point of the region
                assert why in {k["text"] for k in region.kept}, "%s: region point %s rejected by %s" % (name, sizes, why)
                kept_out += 1
                continue
            real.clear()
            try:
                with torch.no_grad():
                    y = model(**{k: torch.randn(*v) for k, v in sizes.items()})
            except Exception as e:  # noqa: BLE001 - any failure of the model counts
                fails.append((sizes, "%s: %s" % (type(e).__name__, (str(e).splitlines() or [""])[0])))
                continue
            ran += 1
            if mem_points >= NMEM:
                continue
            if out_node is not None and isinstance(y, torch.Tensor):
                real[out_node] = y.numel() * y.element_size()
            env = {v["name"]: t[i] for i, v in enumerate(region.vars)}
            for node, nbytes in real.items():
                e = byname[node]
                got = int(e.eval(**{k: v for k, v in env.items() if k in {str(s) for s in e.free_symbols()}}))
                assert got == nbytes, "%s: %s at %s: symshape %d bytes, torch %d" % (name, node, sizes, got, nbytes)
                compared += 1
            mem_points += 1
    finally:
        for h in hooks:
            h.remove()
    assert not fails, "%s: %d of %d region points failed on the CPU: %s" % (name, len(fails), len(pts), fails[:3])
    assert mem_points >= NMEM and compared >= NMEM, (name, mem_points, compared)

    faces = _faces(region, gs.check, region.sizes)
    for sizes, why in faces:  # past a face: the model may or may not run; off a progression it must not
        pass

    # profiles: proved boxes; 200 points from them run on the CPU
    data = region.profiles["data"]
    assert 1 <= len(data["profiles"]) <= 3, data
    box_ran = 0
    for sizes in _box_points(data, N, random.Random(name + "boxes")):
        acc, why = gs.check(sizes)
        assert acc, "%s: profile point %s rejected by %s" % (name, sizes, why)
        ok, err = _runs(model, sizes)
        assert ok, "%s: profile point %s failed on the CPU: %s" % (name, sizes, err)
        box_ran += 1

    # torch.export accepts the printed spec (the call the torch rendering prints)
    spec = region.torch_spec()
    assert "prefer_deferred_runtime_asserts_over_guards=True" in region.texts["torch"]
    export_cell = "accepted"
    if name in TORCH_EXPORT_SPECIALIZES:
        # torch.export's aten.lstm specializes the sequence length to the example's (its tracer,
        # not the model: the 200 CPU points above ran at other lengths), so it rejects any Dim there
        var, fix = TORCH_EXPORT_SPECIALIZES[name]
        with pytest.raises(Exception, match=r"Constraints violated \(%s\)[\s\S]*%s" % (var, fix)):
            torch.export.export(model, tuple(ex.values()), dynamic_shapes=spec,
                                prefer_deferred_runtime_asserts_over_guards=True)
        export_cell = "refused: torch.export's tracer narrows %s (its fix: %s)" % (var, fix.replace("\\", ""))
    else:
        ep = torch.export.export(model, tuple(ex.values()), dynamic_shapes=spec,
                                 prefer_deferred_runtime_asserts_over_guards=True)
        with torch.no_grad():
            ep.module()(*ex.values())

    largest = region.largest
    assert all(p for _, p in largest.values()), largest
    cell = " / ".join(str(largest[b][0]) if b in largest else "-" for b in (GIB, 16 * GIB))
    dims = ", ".join("%s%s" % (k, list(v)) for k, v in example.items())
    face_cell = "%d: %s" % (len(faces), "; ".join(sorted({w for _, w in faces}))[:160]) if faces else "0 (no finite face)"
    _row(name, dims + " dyn " + json.dumps(dynamic).replace('"', ""), _region_cell(region), _prof_cell(data),
         "%d of %d ran; boxes: %d of %d ran" % (ran, len(pts), box_ran, N) + (" (%d kept out)" % kept_out if kept_out else ""),
         "0 violations", face_cell, export_cell, "%d values at %d points" % (compared, mem_points), cell)


# ------------------------------------------------------------------ the ONNX KV-cache decoder

class KVDecoder(nn.Module):
    """One attention step with a KV cache: x (B, T, 32), past_k/past_v (B, 4, P, 8) -> the output
    (B, T, 32) and the new cache (B, 4, P + T, 8)."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x, past_k, past_v):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.h, self.hd).permute(2, 0, 3, 1, 4)
        k = torch.cat([past_k, k], 2)
        v = torch.cat([past_v, v], 2)
        att = torch.softmax(q @ k.transpose(-1, -2) / self.hd ** 0.5, -1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        return self.out(y), k, v


def _cli():
    lib = os.environ.get("SYMSHAPE_LIB")
    cli = os.path.join(os.path.dirname(lib), "symshape") if lib else None
    if not cli or not os.path.exists(cli):
        pytest.skip("the symshape CLI is not beside SYMSHAPE_LIB")
    return cli


def test_onnx_kv_cache_decoder():
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    cli = _cli()
    torch.manual_seed(0)
    m = KVDecoder().eval()
    ex = (torch.randn(2, 3, 32), torch.randn(2, 4, 5, 8), torch.randn(2, 4, 5, 8))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "kv.onnx")
        kw = {"dynamo": False} if "dynamo" in torch.onnx.export.__code__.co_varnames else {}
        torch.onnx.export(m, ex, path, input_names=["x", "past_k", "past_v"], output_names=["y", "k", "v"],
                          dynamic_axes={"x": {0: "b", 1: "t"}, "past_k": {0: "b", 2: "p"}, "past_v": {0: "b", 2: "p"}},
                          opset_version=17, **kw)
        p = subprocess.run([cli, "region", "-f", "json", path], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stdout + p.stderr
        reg = json.loads(p.stdout)
        p_region_json = p.stdout
        text = subprocess.run([cli, "region", path], capture_output=True, text=True, timeout=300).stdout
        assert reg["proved"], text
        vars_, dims = reg["vars"], reg["dims"]

        def sizes_of(t):
            out = {}
            for dd in dims:
                out.setdefault(dd["input"], []).append(dd["value"] if dd["static"] else dd["a"] * t[dd["var"]] + dd["b"])
            return out

        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        # memory: every value's bytes (symshape memory --json), against onnxruntime's tensors: the
        # model with every node output made a graph output (their types from ONNX shape inference)
        p = subprocess.run([cli, "memory", "--json", "--bytes", "1G", "--bytes", "16G", path], capture_output=True, text=True,
                           timeout=300)
        assert p.returncode == 0, p.stdout + p.stderr
        mem = json.loads(p.stdout)
        assert mem["left_out"] == 0 and mem["strings_left_out"] == 0, mem
        byname = {v["node"]: symshape.parse(v["bytes"]) for v in mem["values"] if v["op"] != "param"}
        import onnx
        full = onnx.load(path)
        inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(full).graph.value_info}
        have = {o.name for o in full.graph.output}
        for nd in full.graph.node:
            for o in nd.output:
                if o and o not in have and o in inferred:
                    full.graph.output.append(inferred[o])
                    have.add(o)
        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        sess_all = ort.InferenceSession(full.SerializeToString(), so, providers=["CPUExecutionProvider"])
        out_names = [o.name for o in sess_all.get_outputs()]
        assert len(set(out_names) & set(byname)) >= 20, (out_names, sorted(byname))
        mem_points, compared = 0, 0
        # the largest batch for 1 GiB and 16 GiB: proved, and the next one does not fit (its largest
        # value's bytes by the expressions at that point)
        largest = {}
        for q in mem["largest"]:
            assert q["proved"] and q["stop"] == "next_does_not_fit", q
            nxt = dict(q["at"], **{q["var"]: q["best"] + 1})
            over = max(int(e.eval(**{k: nxt[k] for k in {str(s) for s in e.free_symbols()}})) for e in byname.values())
            at = max(int(e.eval(**{k: q["at"][k] for k in {str(s) for s in e.free_symbols()}})) for e in byname.values())
            assert at <= q["budget"] < over, q
            largest[q["budget"]] = q["best"]
        # the Python command prints what the C command prints
        ptext = subprocess.run([cli, "memory", "--bytes", "1G", "--bytes", "16G", path], capture_output=True, text=True,
                               timeout=300).stdout
        from symshape.deploy import OnnxModel, memory_report
        om = OnnxModel(path)
        try:
            assert memory_report(om, budgets=(GIB, 16 * GIB)) == ptext
        finally:
            om.close()
        rnd = random.Random(36)
        fails, ran = [], 0
        for i in range(N):
            t = [rnd.randint(v["min"], max(v["min"], min(v["max"] if v["max"] is not None else 10 ** 9, 40)))
                 for v in vars_]
            if i == 0:
                t = [v["min"] for v in vars_]
            sizes = sizes_of(t)
            feeds = {k: torch.randn(*v).numpy() for k, v in sizes.items()}
            try:
                outs = sess.run(None, feeds)
                b, tt = sizes["x"][0], sizes["x"][1]
                pp = sizes["past_k"][2]
                assert list(outs[0].shape) == [b, tt, 32] and list(outs[1].shape) == [b, 4, pp + tt, 8]
                ran += 1
                if mem_points < NMEM:
                    env = {v["name"]: t[j] for j, v in enumerate(vars_)}
                    real = dict(zip(out_names, sess_all.run(None, feeds)))
                    real.update(feeds)
                    for nm, arr in real.items():
                        if nm in byname:
                            e = byname[nm]
                            got = int(e.eval(**{k: env[k] for k in {str(s) for s in e.free_symbols()}}))
                            assert got == arr.nbytes, (nm, sizes, got, arr.nbytes, arr.shape, arr.dtype)
                            compared += 1
                    mem_points += 1
            except Exception as e:  # noqa: BLE001
                fails.append((sizes, str(e).splitlines()[0]))
        assert not fails, fails[:3]
        # the corners: past each face and off each relation, with the guard that rejects them;
        # every accepted corner runs under onnxruntime
        p = subprocess.run([cli, "corners", "--json", path], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stdout + p.stderr
        p_corners = p.stdout
        faces = []
        for c in json.loads(p.stdout)["corners"]:
            if c["accept"]:  # a rejected corner's tensors need not exist (b = 2**58 - 1: x's numel is past int64)
                sess.run(None, {k: torch.randn(*v).numpy() for k, v in c["sizes"].items()})
            else:
                assert c["guard"], c
                faces.append(c["guard"])
        assert faces
        # profiles from a histogram of decode steps (t = 1) and prefill (t in 8..16)
        hist = []
        for _ in range(30):
            b, tt, pp = rnd.randint(1, 4), rnd.choice([1, 1, 1, rnd.randint(8, 16)]), rnd.randint(0, 40)
            hist.append({"sizes": {"x": [b, tt, 32], "past_k": [b, 4, pp, 8], "past_v": [b, 4, pp, 8]},
                         "count": rnd.randint(1, 50)})
        hpath = os.path.join(d, "h.json")
        with open(hpath, "w") as f:
            json.dump(hist, f)
        p = subprocess.run([cli, "profile", "-k", "3", "--histogram", hpath, "-f", "json", path],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stdout + p.stderr
        prof = json.loads(p.stdout)
        # the Python API and command on the .onnx print what the C commands print
        from symshape.deploy import OnnxModel, profiles
        with OnnxModel(path) as om:
            preg = om.region()
            assert preg.texts["json"] == p_region_json and preg.texts["text"] == text
            assert preg.corners_json == p_corners
            assert profiles(om, hist, k=3)["texts"]["json"] == p.stdout
        for args in (["region", "-f", "all"], ["corners"]):
            c = subprocess.run([cli] + args + [path], capture_output=True, text=True, timeout=300)
            pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([pkg] + ([os.environ["PYTHONPATH"]]
                                                                       if os.environ.get("PYTHONPATH") else [])))
            py = subprocess.run([sys.executable, "-m", "symshape"] + args + [path], capture_output=True, text=True,
                                timeout=300, env=env)
            assert (py.stdout, py.returncode) == (c.stdout, c.returncode), (args, py.stderr)
        box_ran = 0
        for sizes in _box_points(prof, N, random.Random(37)):
            feeds = {k: torch.randn(*v).numpy() for k, v in sizes.items()}
            sess.run(None, feeds)
            box_ran += 1
        _row("kv_cache_decoder (ONNX)", "x[2, 3, 32], past_k/past_v[2, 4, 5, 8] dyn b, t, p",
             "; ".join("%s in [%d, %s]" % (v["name"], v["min"], "oo" if v["max"] is None else v["max"]) for v in vars_)
             + (" (%d kept)" % len(reg["kept"]) if reg["kept"] else ""),
             _prof_cell(prof), "%d of %d ran; boxes: %d of %d ran (onnxruntime)" % (ran, N, box_ran, N), "0 violations",
             "%d corners: %s" % (len(faces), "; ".join(sorted(set(faces)))[:160]), "- (ONNX)",
             "%d values at %d points (onnxruntime)" % (compared, mem_points),
             "%d / %d" % (largest[GIB], largest[16 * GIB]))
        assert mem_points >= NMEM and compared >= 20 * NMEM, (mem_points, compared)


# ------------------------------------------------------------------ batch x seq under a relation

class Attention(nn.Module):
    """One attention layer whose scores (B, 4, T, T) are a real tensor (no fused kernel)."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.h, self.hd).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) * self.hd ** -0.5, -1)
        return self.out((att @ v).transpose(1, 2).reshape(b, t, d))


def _largest_real_tensor(model, sizes):
    """the bytes of the largest tensor an aten op makes (or an input) when model runs at sizes"""
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves

    class Largest(TorchDispatchMode):
        most = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            for o in tree_leaves(out):
                if isinstance(o, torch.Tensor):
                    Largest.most = max(Largest.most, o.numel() * o.element_size())
            return out

    feeds = {k: torch.randn(*v) for k, v in sizes.items()}
    Largest.most = max(t.numel() * t.element_size() for t in feeds.values())
    with torch.no_grad(), Largest():
        model(**feeds)
    return Largest.most


def test_memory_batch_seq_relation():
    """symshape memory --relation x_1=4*x_0 (and --fix x_1=64): the largest batch whose every
    activation fits 2 MiB, exact (the scan of the bytes expressions agrees), proved, and checked on
    the CPU: at the answer the largest real tensor fits, one batch more it does not, and both equal
    the expressions' largest value there. The Python command prints what the C command prints."""
    cli = _cli()
    torch.manual_seed(0)
    m = Attention().eval()
    doc = export(m, {"x": torch.randn(2, 9, 32)}, dynamic={"x": [0, 1]}, name="attention")
    budget = 2 << 20
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "attention.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        gs = symshape.trace(doc, duck_sizing=False, specialize_01=False)
        from symshape.deploy import memory_report
        checked = 0
        for args, kw, tie in ((["--relation", "x_1=4*x_0"], {"relations": {"x_1": "4*x_0"}}, lambda b: 4 * b),
                              (["--relation", "x_1=2*x_0+3"], {"relations": {"x_1": "2*x_0 + 3"}}, lambda b: 2 * b + 3),
                              (["--fix", "x_1=64"], {"fix": {"x_1": 64}}, lambda b: 64)):
            p = subprocess.run([cli, "memory", "--json", "--var", "x_0", "--bytes", str(budget)] + args + [path],
                               capture_output=True, text=True, timeout=300)
            assert p.returncode == 0, p.stdout + p.stderr
            mem = json.loads(p.stdout)
            (q,) = mem["largest"]
            assert q["proved"] and q["stop"] == "next_does_not_fit", q
            b = q["best"]
            assert q["at"] == {"x_0": b, "x_1": tie(b)}, q
            exprs = [symshape.parse(v["bytes"]) for v in mem["values"] if v["op"] != "param"]

            def most(bb):
                env = {"x_0": bb, "x_1": tie(bb)}
                return max(int(e.eval(**{k: env[k] for k in {str(s) for s in e.free_symbols()}})) for e in exprs)
            # exact: the scan of every batch up to the answer, and the next one
            assert all(most(bb) <= budget for bb in range(0, b + 1)) and most(b + 1) > budget, (args, b)
            # the CPU: the largest real tensor at b and b + 1
            for bb in (b, b + 1):
                real = _largest_real_tensor(m, {"x": [bb, tie(bb), 32]})
                assert real == most(bb), (args, bb, real, most(bb))
                checked += 1
            assert _largest_real_tensor(m, {"x": [b, tie(b), 32]}) <= budget < _largest_real_tensor(m, {"x": [b + 1, tie(b + 1), 32]})
            text = subprocess.run([cli, "memory", "--var", "x_0", "--bytes", str(budget)] + args + [path],
                                  capture_output=True, text=True, timeout=300).stdout
            assert memory_report(gs, var="x_0", budgets=(budget,), **kw) == text, (args, text)
            if "4*x_0" in args[1]:
                assert "largest x_0 with every activation <= %d bytes (x_1 = 4*x_0; the others at the example): %d, x_1 = %d " % (
                    budget, b, 4 * b) in text, text
        assert checked == 6
        gs.close()
