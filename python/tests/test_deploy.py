"""Regions (docs/deploy.md, issue 36) against real CPU execution: for torchvision resnet18, a
UNet whose skip connections concatenate (sizes a multiple of 4), a UNet that crops its skips,
and a transformer encoder, the region printed by symshape (traced under the most relaxed
policy) is sampled at >= 200 points (sizes kept small for the CPU); the model runs at every
one (0 violations); a point just past each face of the region is rejected by the guard set,
which names the guard; and the torch.export dynamic_shapes that `region` prints is accepted
by torch.export.export (torch 2.x) on the same model without a constraint violation."""
import json
import random

import pytest
import torch
import torch.nn as nn

import symshape
import symshape.deploy
from symshape.exporter import export

torch.set_num_threads(1)  # a shared machine: one core per test process

N = 200


class UNetCat(nn.Module):
    """Two levels down (max-pool 2) and up (transposed conv, stride 2), each skip concatenated:
    the sizes must be multiples of 4."""

    def __init__(self):
        super().__init__()
        self.d1 = nn.Conv2d(3, 4, 3, padding=1)
        self.d2 = nn.Conv2d(4, 8, 3, padding=1)
        self.mid = nn.Conv2d(8, 8, 3, padding=1)
        self.u2 = nn.ConvTranspose2d(8, 8, 2, stride=2)
        self.c2 = nn.Conv2d(16, 4, 3, padding=1)
        self.u1 = nn.ConvTranspose2d(4, 4, 2, stride=2)
        self.c1 = nn.Conv2d(8, 2, 3, padding=1)

    def forward(self, x):
        a = torch.relu(self.d1(x))
        b = torch.relu(self.d2(nn.functional.max_pool2d(a, 2)))
        m = torch.relu(self.mid(nn.functional.max_pool2d(b, 2)))
        y = self.c2(torch.cat([self.u2(m), b], 1))
        return self.c1(torch.cat([self.u1(y), a], 1))


class UNetCrop(nn.Module):
    """The original U-Net's skip crops: valid convolutions, and each skip centre-cropped to the
    upsampled size before the concatenation."""

    def __init__(self):
        super().__init__()
        self.d1 = nn.Conv2d(3, 4, 3)
        self.d2 = nn.Conv2d(4, 8, 3)
        self.u1 = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.c1 = nn.Conv2d(8, 2, 3)

    def forward(self, x):
        a = torch.relu(self.d1(x))
        b = torch.relu(self.d2(nn.functional.max_pool2d(a, 2)))
        u = self.u1(b)
        dh = a.size(2) - u.size(2)
        dw = a.size(3) - u.size(3)
        s = a[:, :, dh // 2: dh // 2 + u.size(2), dw // 2: dw // 2 + u.size(3)]
        return self.c1(torch.cat([u, s], 1))


def _resnet18():
    tv = pytest.importorskip("torchvision")
    return tv.models.resnet18()


def _encoder():
    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, batch_first=True, dropout=0.0)
    return nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


# name, builder, example sizes, dynamic dims, the largest size sampled per dim (CPU time)
CASES = [
    ("resnet18", _resnet18, {"x": [2, 3, 64, 64]}, {"x": [0, 2, 3]}, {"x": [2, 3, 40, 40]}),
    ("unet_cat", UNetCat, {"x": [2, 3, 32, 40]}, {"x": [0, 2, 3]}, {"x": [2, 3, 48, 48]}),
    ("unet_crop", UNetCrop, {"x": [2, 3, 36, 44]}, {"x": [0, 2, 3]}, {"x": [2, 3, 64, 64]}),
    ("transformer_encoder", _encoder, {"src": [2, 7, 32]}, {"src": [0, 1]}, {"src": [3, 40, 32]}),
]


def _model(build):
    torch.manual_seed(0)
    return build().eval()


def _traced(name, model, example, dynamic):
    ex = {k: torch.randn(*v) for k, v in example.items()}
    doc = export(model, ex, dynamic=dynamic, name=name)
    gs = symshape.trace(doc, duck_sizing=False, specialize_01=False)
    return gs, gs.region()


def _runs(model, sizes):
    try:
        with torch.no_grad():
            model(**{k: torch.randn(*v) for k, v in sizes.items()})
        return True, None
    except Exception as e:  # noqa: BLE001 - any failure of the model counts
        return False, "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")


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


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_region_points_run_on_cpu(case):
    name, build, example, dynamic, cap = case
    model = _model(build)
    gs, region = _traced(name, model, example, dynamic)
    assert region.proved, region.texts["text"]
    pts = region.sample(N, cap=_cap(region, cap), seed=1)
    # the region's corners are among the points
    lo = [v["min"] for v in region.vars]
    pts[0] = lo
    fails = []
    for t in pts:
        sizes = region.sizes(t)
        acc, why = gs.check(sizes)
        if not acc:  # only a kept check may reject a point of the region
            kept = {k["text"] for k in region.kept}
            assert why in kept, "%s: region point %s rejected by %s, which the region claims to imply" % (name, sizes, why)
            continue
        ok, err = _runs(model, sizes)
        if not ok:
            fails.append((sizes, err))
    assert not fails, "%s: %d of %d region points failed on the CPU: %s" % (name, len(fails), len(pts), fails[:3])


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_points_past_each_face_are_rejected_by_a_named_guard(case):
    name, build, example, dynamic, cap = case
    model = _model(build)
    gs, region = _traced(name, model, example, dynamic)
    base = [min(max(v["min"], 2), v["max"] if v["max"] is not None else 10 ** 9) for v in region.vars]
    faces = 0
    for i, v in enumerate(region.vars):
        for side in ("min", "max"):
            if side == "min" and v["min"] == 0:
                continue
            if side == "max" and v["max"] is None:
                continue
            t = list(base)
            t[i] = v["min"] - 1 if side == "min" else v["max"] + 1
            sizes = region.sizes(t)
            if any(s < 0 for shp in sizes.values() for s in shp):
                continue
            acc, why = gs.check(sizes)
            assert not acc and why, "%s: %s past the %s face of %s accepted" % (name, sizes, side, v["name"])
            faces += 1
        # off the progression: one past a multiple
        for d in region.dims:
            if d["static"] or d["var"] != i or d["a"] == 1:
                continue
            t = list(base)
            sizes = region.sizes(t)
            sizes[d["input"]][d["dim"]] += 1
            acc, why = gs.check(sizes)
            assert not acc and why, "%s: %s off the progression of %s accepted" % (name, sizes, d["name"])
            ok, _ = _runs(model, sizes)
            assert not ok, "%s: the model runs at %s, off the progression %s" % (name, sizes, d["name"])
            faces += 1
    if name == "unet_cat":  # sizes a multiple of 4: the progression and the lower face
        assert faces >= 2
        assert any(d["a"] == 4 for d in region.dims if not d["static"]), region.texts["text"]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_torch_export_accepts_the_printed_spec(case):
    name, build, example, dynamic, cap = case
    if not hasattr(torch, "export") or int(torch.__version__.split(".")[0]) < 2:
        pytest.skip("torch.export needs torch 2.x (have %s)" % torch.__version__)
    model = _model(build)
    gs, region = _traced(name, model, example, dynamic)
    spec = region.torch_spec()
    ex = tuple(torch.randn(*v) for v in example.values())
    # the call the torch rendering prints: torch's tracer adds guards of its own that the region
    # does not need (0/1 tests of intermediate sizes, FloorDiv facts its solver cannot prove);
    # the flag makes them runtime asserts instead of a ConstraintViolationError
    assert "prefer_deferred_runtime_asserts_over_guards=True" in region.texts["torch"]
    ep = torch.export.export(model, ex, dynamic_shapes=spec, prefer_deferred_runtime_asserts_over_guards=True)
    assert ep is not None
    # the exported program runs at the example and at the region's low corner where torch's asserts allow it
    with torch.no_grad():
        ep.module()(*ex)


def test_profile_boxes_run_on_cpu():
    """profiles of the concatenating UNet from a histogram: every box proved inside the
    accepted set; 200 points drawn from the boxes all run on the CPU; H and W pinned per box
    (their variable is a progression 4*k, so a range would hold sizes the model rejects)."""
    from symshape.deploy import profiles
    model = _model(UNetCat)
    gs, region = _traced("unet_cat", model, {"x": [2, 3, 32, 40]}, {"x": [0, 2, 3]})
    hist = []
    for (h, w), c in [((32, 32), 40), ((48, 48), 25), ((32, 48), 10), ((30, 30), 7)]:
        for b in (1, 2, 3):
            hist.append({"sizes": {"x": [b, 3, h, w]}, "count": c})
    prof = profiles(gs, hist, k=3)
    data = prof["data"]
    assert len(data["profiles"]) == 3
    assert data["outside"] == 21  # 30x30: not a multiple of 4
    assert "--minShapes=x:1x3x32x32" in prof["texts"]["trtexec"]
    rnd = random.Random(5)
    ran = 0
    for box in data["profiles"]:
        dims = box["dims"]
        for d in dims:
            if d["dim"] in (2, 3):
                assert d["min"] == d["max"], box
        for _ in range(200 // len(data["profiles"]) + 1):
            shape = [rnd.randint(d["min"], d["max"]) for d in dims]
            acc, why = gs.check({"x": shape})
            assert acc, (shape, why)
            ok, err = _runs(model, {"x": shape})
            assert ok, (shape, err)
            ran += 1
    assert ran >= 200


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_corners_run_on_cpu(case):
    """every corner the guards accept runs on the CPU; each corner off a progression is
    rejected and fails (the model needs the progression)"""
    from symshape.deploy import run_corners
    name, build, example, dynamic, cap = case
    model = _model(build)
    gs, region = _traced(name, model, example, dynamic)
    # keep the CPU cost small: the corners at the example's sizes are cheap for these models
    rows, unsound, conservative = run_corners(region, model)
    assert rows and not unsound, "%s: corners the guards accept where the model fails: %s" % (name, unsound)
    for c, ran, err in rows:
        if "off its progression" in c["label"]:
            assert not c["accept"] and not ran, (c, err)
        if not c["accept"]:
            assert c["guard"], c


class _GroupNorm(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.group_norm(x, 2)


def test_group_norm_empty_spatial_dim_follows_the_torch_version():
    """Issue 38 (third pass): under the relaxed policy the region of F.group_norm reached H = 0
    and its corners [2, 4, 0, 12] were accepted, where PyTorch 2.x fails ('Expected HxW to be
    greater than 0, got 0'; 1.13 runs it). Every point's acceptance now equals the CPU's."""
    from symshape.deploy import region, run_corners
    model = _GroupNorm()
    doc = export(model, {"x": torch.randn(2, 4, 12, 12)}, name="group_norm")
    gs = symshape.trace(doc, dynamic={"x": [0, 1, 2, 3]}, duck_sizing=False, specialize_01=False)
    for shape in ([2, 4, 0, 12], [2, 4, 12, 0], [0, 4, 0, 3], [0, 4, 3, 3], [2, 0, 0, 3], [2, 4, 1, 1], [1, 2, 5, 7]):
        ok, err = _runs(model, {"x": shape})
        acc, why = gs.check({"x": shape})
        assert acc == ok, (shape, acc, why, ok, err)
    gs.close()
    rows, unsound, _ = run_corners(region(doc), model)
    assert rows and not unsound, unsound


class _Shuffle(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.pixel_shuffle(x, 2)


def test_corners_past_the_machine_are_not_run():
    """Issue 38 (third pass): pixel_shuffle's region bounds H and W by 2^62 - 1 (a later
    size's int64 limit), so its corners hold a size no tensor can have; run_corners raised
    torch's RuntimeError (Storage size calculation overflowed) instead of reporting them."""
    from symshape.deploy import region, run_corners
    model = _Shuffle()
    doc = symshape.export(model, (torch.randn(2, 4, 12, 12),), dynamic={"x": [0, 2, 3]}, name="shuffle")
    rows, unsound, conservative = run_corners(region(doc), model)
    huge = [(c, ran, err) for c, ran, err in rows if max(c["sizes"]["x"]) >= 2 ** 62 - 1]
    assert huge and all(ran is None and "cannot make the inputs" in err for _, ran, err in huge), huge
    assert not unsound and sum(ran is True for _, ran, _ in rows) >= 8, rows


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_memory_bytes_equal_the_real_tensors(case):
    """the bytes expression of every module output equals the real tensor's numel *
    element_size on the CPU at >= 50 region points; the largest batch for 1 GiB is proved"""
    from symshape.deploy import Region
    name, build, example, dynamic, cap = case
    model = _model(build)
    ex = {k: torch.randn(*v) for k, v in example.items()}
    doc = export(model, ex, dynamic=dynamic, name=name)
    gs = symshape.trace(doc, duck_sizing=False, specialize_01=False)
    region = Region(gs, budgets=(1 << 30,))
    best, proved = region.largest[1 << 30]
    assert best >= 1 and proved, region.largest
    byname = {m["node"]: symshape.parse(m["bytes"]) for m in region.memory}
    # the graph's node of each leaf module: its qualified name with dots as underscores
    real = {}
    hooks = []
    for qn, mod in model.named_modules():
        if qn and not list(mod.children()):
            node = qn.replace(".", "_")
            if node in byname:
                hooks.append(mod.register_forward_hook(
                    lambda m_, i_, o_, node=node: real.__setitem__(node, o_.numel() * o_.element_size())
                    if isinstance(o_, torch.Tensor) else None))
    # the model's output: the graph's output node (every model has one, whatever its modules)
    outs = [o.get("ref") for o in doc.get("outputs", []) if isinstance(o, dict)]
    out_node = outs[0] if len(outs) == 1 and outs[0] in byname else None
    assert hooks or out_node, "%s: no module output or graph output matched a graph node" % name
    checked = 0
    try:
        for t in region.sample(50, cap=_cap(region, cap), seed=3):
            sizes = region.sizes(t)
            if not gs.check(sizes)[0]:
                continue
            real.clear()
            with torch.no_grad():
                y = model(**{k: torch.randn(*v) for k, v in sizes.items()})
            if out_node is not None and isinstance(y, torch.Tensor):
                real[out_node] = y.numel() * y.element_size()
            env = {v["name"]: t[i] for i, v in enumerate(region.vars)}
            for node, nbytes in real.items():
                e = byname[node]
                got = int(e.eval(**{k: v for k, v in env.items() if k in {str(s) for s in e.free_symbols()}}))
                assert got == nbytes, "%s: %s at %s: symshape %d bytes, torch %d" % (name, node, sizes, got, nbytes)
                checked += 1
    finally:
        for h in hooks:
            h.remove()
    assert checked >= 50


def test_python_command_corners_run_and_region():
    """python3 -m symshape corners MOD:FN --run runs the model at each corner (0 unsound), and
    region -f torch prints the progression"""
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([here, os.path.dirname(here)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    base = [sys.executable, "-m", "symshape"]
    args = ["test_deploy:UNetCat", "--input", "x=2,3,32,40", "--dynamic", "x=0,2,3"]
    p = subprocess.run(base + ["corners"] + args + ["--run"], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "11 corners: 0 accepted where the model fails, 0 rejected where it runs" in p.stdout, p.stdout
    assert "rejected, fails: x.size()[2] == 4*FloorDiv(x.size()[2], 4) failed: x.size()[2] = 33" in p.stdout, p.stdout
    p = subprocess.run(base + ["region"] + args + ["-f", "torch"], env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert '"x": {0: x_0, 1: Dim.STATIC, 2: 4*x_2_k, 3: 4*x_3_k},' in p.stdout, p.stdout


def test_histogram_counts_are_checked():
    """Issue 38 (adversarial pass): a count of -1 became 2**64 - 1 through ctypes and 2**64 became
    0; counts adding up past 2**63 - 1 wrapped the total. Each is refused by name."""
    doc = {"format": "symshape.graph", "version": 1, "name": "t",
           "nodes": [{"name": "x", "op": "input", "dtype": "float32", "shape": [48], "dynamic": [0]},
                     {"name": "v", "op": "view", "args": [{"ref": "x"}, -1, 16]}],
           "outputs": [{"ref": "v"}]}
    gs = symshape.trace(doc, duck_sizing=False, specialize_01=False)
    for bad in (-1, 2 ** 64, 1.5, True):
        with pytest.raises(symshape.InvalidError, match="count"):
            symshape.deploy.profiles(gs, [{"sizes": {"x": [16]}, "count": bad}])
    with pytest.raises(symshape.Error, match="past 2\\^63"):
        symshape.deploy.profiles(gs, [{"sizes": {"x": [16]}, "count": 2 ** 63 - 1}, {"sizes": {"x": [32]}, "count": 1}])
    p = symshape.deploy.profiles(gs, [{"sizes": {"x": [16]}, "count": 2 ** 63 - 1}])
    assert p["data"]["total"] == 2 ** 63 - 1


def test_python_commands_profile_memory_region_all():
    """python3 -m symshape profile / memory / region -f all, as the C commands: -k 0 is a usage
    error naming --profiles; a histogram gives the trtexec lines; memory's largest batch for 1 GiB
    is the library's (26214 for the concatenating UNet at 32x40: 512*x_0*8*10 bytes, proved)"""
    import os
    import subprocess
    import sys
    import tempfile
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([here, os.path.dirname(here)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    base = [sys.executable, "-m", "symshape"]
    args = ["test_deploy:UNetCat", "--input", "x=2,3,32,40", "--dynamic", "x=0,2,3"]

    def run(cmd, *extra):
        return subprocess.run(base + [cmd] + args + list(extra), env=env, capture_output=True, text=True, timeout=600)
    p = run("profile", "-k", "0")
    assert p.returncode == 2 and "--profiles" in p.stderr and "1 .. 64" in p.stderr, p.stderr
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump([{"sizes": {"x": [1, 3, 32, 32]}, "count": 5}, {"sizes": {"x": [2, 3, 64, 64]}, "count": 2},
                   {"sizes": {"x": [1, 3, 30, 30]}, "count": 9}], f)
    try:
        p = run("profile", "--histogram", f.name, "-f", "trtexec")
    finally:
        os.unlink(f.name)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "--minShapes=x:1x3x32x32 --optShapes=x:1x3x32x32 --maxShapes=x:1x3x32x32" in p.stdout, p.stdout
    assert "covers 5 of 16" in p.stdout, p.stdout
    p = run("profile", "-f", "openvino")  # no histogram: one box over the region
    assert p.returncode == 0 and 'ov.PartialShape("[0..8,3,32,40]")' in p.stdout, p.stdout + p.stderr
    p = run("memory", "--bytes", "1G", "--top", "1")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "cat_1                           81920 bytes = 512*x_0*x_2_k*x_3_k" in p.stdout, p.stdout
    assert ("largest x_0 with every activation <= 1073741824 bytes (the others at the example): 26214 "
            "(proved for every value up to it; one more does not fit)") in p.stdout, p.stdout
    p = run("memory", "--top", "0", "--live", "--range", "x_0=1..8", "--range", "x_2_k=1..16")
    assert p.returncode == 0, p.stdout + p.stderr
    assert ("peak of the activations live at one node over x_0 in [1, 8], x_2_k in [1, 16], x_3_k in [10, 10]: "
            "1310720 bytes (proved the largest over the range; at its upper corner)") in p.stdout, p.stdout
    p = run("memory", "--bytes", "1X")
    assert p.returncode == 2 and "--bytes" in p.stderr, p.stderr
    # --max-size cuts the unbounded batch of the one box; --fix and --relation hold or tie a variable
    p = run("profile", "-f", "openvino", "--max-size", "20")
    assert p.returncode == 0 and 'ov.PartialShape("[0..20,3,32,40]")' in p.stdout, p.stdout + p.stderr
    p = run("profile", "--max-size", "0")
    assert p.returncode == 2 and "--max-size" in p.stderr, p.stderr
    p = run("memory", "--top", "0", "--bytes", "1G", "--fix", "x_2_k=16")  # 512*x_0*16*10 bytes
    assert p.returncode == 0, p.stdout + p.stderr
    assert ("largest x_0 with every activation <= 1073741824 bytes (x_2_k=16; the others at the example): %d "
            "(proved for every value up to it; one more does not fit)" % (2 ** 30 // (512 * 16 * 10))) in p.stdout, p.stdout
    p = run("memory", "--top", "0", "--bytes", "1G", "--relation", "x_2_k=x_0", "--relation", "x_3_k=x_0+1")
    assert p.returncode == 0, p.stdout + p.stderr
    best = max(b for b in range(1, 200) if 512 * b * b * (b + 1) <= 2 ** 30)
    assert ("(x_2_k = x_0, x_3_k = x_0+1; the others at the example): %d, x_2_k = %d, x_3_k = %d (proved"
            % (best, best, best + 1)) in p.stdout, p.stdout
    p = run("memory", "--bytes", "1G", "--relation", "x_2_k=x_0*x_0")
    assert p.returncode == 2 and "is not A*x_0 + B" in p.stderr, p.stderr
    p = run("memory", "--bytes", "1G", "--fix", "x_2_k=3", "--relation", "x_2_k=x_0")
    assert p.returncode == 2 and "given twice" in p.stderr, p.stderr
    p = run("region", "-f", "all")
    assert p.returncode == 0, p.stdout + p.stderr
    heads = [ln for ln in p.stdout.splitlines() if ln.startswith("== ")]
    assert heads == ["== text ==", "== torch ==", "== jax ==", "== onnx ==", "== spec =="], heads


def _refs(x, out):
    """the node names a graph JSON argument refers to (nested lists and dicts)"""
    if isinstance(x, dict):
        if "ref" in x and isinstance(x["ref"], str):
            out.append(x["ref"])
        for v in x.values():
            _refs(v, out)
    elif isinstance(x, list):
        for v in x:
            _refs(v, out)
    return out


@pytest.mark.parametrize("case", [c for c in CASES if c[0] in ("unet_cat", "transformer_encoder")], ids=lambda c: c[0])
def test_memory_live_sum_against_an_independent_sweep(case):
    """SY_MEM_LIVE: the largest batch whose live activations (a value lives from its node to its
    last reader, the outputs to the end) fit the budget, against a sweep written here from the
    graph JSON's refs, evaluating each value's bytes expression exactly: the peak at the answer fits
    and the peak one past it does not; proved; between the largest single activation's answer and
    the total's"""
    name, build, example, dynamic, cap = case
    model = _model(build)
    ex = {k: torch.randn(*v) for k, v in example.items()}
    doc = export(model, ex, dynamic=dynamic, name=name)
    gs = symshape.trace(doc, duck_sizing=False, specialize_01=False)
    budget = 1 << 24
    r_live = symshape.deploy.Region(gs, budgets=(budget,), what="live")
    r_max = symshape.deploy.Region(gs, budgets=(budget,), what="largest")
    r_tot = symshape.deploy.Region(gs, budgets=(budget,), what="total")
    best, proved = r_live.largest[budget]
    assert proved and best >= 1, r_live.largest
    assert r_tot.largest[budget][0] <= best <= r_max.largest[budget][0], (r_tot.largest, best, r_max.largest)
    nodes = [n["name"] for n in doc["nodes"]]
    pos = {n: i for i, n in enumerate(nodes)}
    last = list(range(len(nodes)))
    for i, n in enumerate(doc["nodes"]):
        for ref in _refs([n.get("args"), n.get("kwargs")], []):
            last[pos[ref]] = max(last[pos[ref]], i)
    for ref in _refs(doc.get("outputs"), []):
        last[pos[ref]] = len(nodes) - 1
    vals = [(pos[m["node"]], symshape.parse(m["bytes"])) for m in r_live.memory if m["op"] != "param"]
    fixed = {v["name"]: v["min"] for v in r_live.vars}
    for d in r_live.dims:
        if not d["static"] and d["example"] >= 0 and (d["example"] - d["b"]) % d["a"] == 0:
            fixed[r_live.vars[d["var"]]["name"]] = (d["example"] - d["b"]) // d["a"]
    batch = r_live.vars[next(d["var"] for d in r_live.dims if not d["static"] and d["dim"] == 0)]["name"]

    def peak(b):
        env = dict(fixed, **{batch: b})
        live = [0] * (len(nodes) + 1)
        for i, e in vals:
            nb = int(e.eval(**{k: v for k, v in env.items() if k in {str(s) for s in e.free_symbols()}}))
            live[i] += nb
            live[last[i] + 1] -= nb
        acc, top = 0, 0
        for x in live:
            acc += x
            top = max(top, acc)
        return top
    assert peak(best) <= budget < peak(best + 1), (name, best, peak(best), peak(best + 1))
