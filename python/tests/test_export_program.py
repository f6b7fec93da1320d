"""symshape.from_exported (issue 35): torch.export programs in. Each model is exported with
torch.export (named Dims or Dim.AUTO), decomposed to core ATen (run_decompositions), read by
from_exported and traced; its guard set is then checked against real CPU execution of the
original model at sampled sizes: every accepted point must run, with the output shapes
symshape gives (0 soundness violations), and some points must be accepted. Also: every op of
the installed torch's core ATen set is mapped or explicitly rejected, the status table in
docs/ops.md is the one generated from that list, and unsupported constructs fail with an
error naming the op. Skipped under PyTorch 1.13 (no torch.export)."""
import os
import random
import sys
import zlib

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

# every test is skipped (with the reason) under PyTorch 1.13, which has no torch.export; not a
# module-level skip, which leaves pytest nothing collected (exit status 5, a ctest failure)
HAS_EXPORT = hasattr(torch, "export") and hasattr(getattr(torch, "export", None), "Dim")
pytestmark = pytest.mark.skipif(not HAS_EXPORT, reason="torch.export needs PyTorch 2.x (torch %s here)" % torch.__version__)
if HAS_EXPORT:
    from torch.export import Dim, export
else:
    Dim = export = None

import symshape  # noqa: E402
from symshape import ExportError  # noqa: E402
from symshape.export_program import ATEN_REJECTED, ATEN_TABLE, aten_status, core_aten_ops  # noqa: E402
from models_util import TABLE, run_real  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def rng_for(name):
    return random.Random(zlib.crc32(name.encode()))


def check_program(name, model, example, dynamic_shapes, make, sizes_of, points, min_accepted=1, keep=(),
                  shapes=True):
    """Export, from_exported, and compare with the real model at every point. ``make(p)`` gives
    the model's inputs (a tuple), ``sizes_of(p)`` {input name: shape}; ``keep``: the program is
    read as export gives it, without run_decompositions (its non-core ops are the engine's);
    ``shapes=False``: outputs with data-dependent sizes, only acceptance is compared."""
    torch.manual_seed(0)
    model = model.eval() if isinstance(model, nn.Module) else model
    with torch.no_grad():
        ep = export(model, make(example), dynamic_shapes=dynamic_shapes)
        if not keep:
            ep = ep.run_decompositions()
    gs = symshape.from_exported(ep, name=name)
    assert gs.check(sizes_of(example))[0], "%s: the example point itself is rejected: %s" % (
        name, gs.check(sizes_of(example))[1])
    accepted = ran = 0
    violations = []
    for p in list(points) + [example]:
        sizes = sizes_of(p)
        acc, _ = gs.check(sizes)
        ok, real = run_real(model, make(p))
        ran += ok
        if not acc:
            continue
        accepted += 1
        if not ok:
            violations.append("%s: accepted but torch fails: %s" % (sizes, real))
            continue
        if not shapes:
            continue
        mine = gs.output_shapes(sizes)
        if mine != real:
            violations.append("%s: output shapes differ: symshape %s, torch %s" % (sizes, mine, real))
    TABLE.append({"model": name, "kind": "torch.export", "nodes": len(ep.graph.nodes), "guards": len(gs),
                  "points": len(points) + 1, "torch_ok": ran, "accepted": accepted, "violations": len(violations),
                  "acceptance": accepted / ran if ran else 0.0, "export_s": 0.0, "trace_s": 0.0})
    assert not violations, "%s: %d soundness violations:\n  %s" % (name, len(violations), "\n  ".join(violations[:20]))
    assert accepted >= min_accepted, "%s: only %d points accepted" % (name, accepted)
    return gs, ep


def image_points(name, n, b, lo, hi):
    r = rng_for(name)
    return [(r.randint(*b), r.randint(lo, hi), r.randint(lo, hi)) for _ in range(n)]


def image(name, model, example, ds, lo, hi, b=(1, 4), n=16, ch=3, min_accepted=1, keep=()):
    mk = lambda p: (torch.randn(p[0], ch, p[1], p[2]),)
    sz = lambda p: {"x": [p[0], ch, p[1], p[2]]}
    return check_program(name, model, example, ds, mk, sz, image_points(name, n, b, lo, hi), min_accepted, keep)


BATCH = Dim("batch", min=1, max=16) if HAS_EXPORT else None


# ---------------------------------------------------------------- torchvision

def test_resnet18():
    import torchvision
    gs, _ = image("resnet18", torchvision.models.resnet18(), (2, 64, 64),
                  {"x": {0: BATCH, 2: Dim.AUTO, 3: Dim.AUTO}}, 20, 100, min_accepted=4)
    texts = [g.text for g in gs.guards]
    assert "x.size()[1] == 3" in texts and "x.size()[0] <= 16" in texts, texts


def test_mobilenet_v2_small():
    """torchvision's MobileNetV2 with fewer inverted-residual stages (the same op pattern:
    depthwise convs, ReLU6, residual adds, adaptive pooling, dropout)."""
    from torchvision.models import MobileNetV2
    m = MobileNetV2(width_mult=0.25, inverted_residual_setting=[[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 1, 2]])
    image("mobilenet_v2_small", m, (2, 48, 40), {"x": {0: BATCH, 2: Dim("h", min=16, max=128), 3: Dim("w", min=16, max=128)}},
          4, 140, min_accepted=6)


# ---------------------------------------------------------------- transformers

def test_transformer_encoder():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, batch_first=True, dropout=0.0), 2,
                                enable_nested_tensor=False)
    r = rng_for("enc")
    pts = [(r.randint(1, 20), r.randint(1, 600)) for _ in range(16)]
    gs, _ = check_program("transformer_encoder", enc, (2, 10), {"src": {0: BATCH, 1: Dim("seq", min=2, max=512)}},
                          lambda p: (torch.randn(p[0], p[1], 32),), lambda p: {"src": [p[0], p[1], 32]}, pts, 4)
    assert "src.size()[1] <= 512" in [g.text for g in gs.guards]


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.d = nn.TransformerDecoderLayer(32, 4, 64, batch_first=True, dropout=0.0)

    def forward(self, tgt, memory):
        return self.d(tgt, memory)


def test_transformer_decoder_layer():
    r = rng_for("dec")
    pts = [(r.randint(1, 6), r.randint(1, 40), r.randint(1, 40), r.choice([0, 0, 1])) for _ in range(16)]
    # a point with d=1 gives memory a batch other than tgt's: torch fails, the guards must reject it
    mk = lambda p: (torch.randn(p[0], p[1], 32), torch.randn(p[0] + p[3], p[2], 32))
    sz = lambda p: {"tgt": [p[0], p[1], 32], "memory": [p[0] + p[3], p[2], 32]}
    gs, _ = check_program("transformer_decoder_layer", Decoder(), (2, 10, 7, 0),
                          {"tgt": {0: BATCH, 1: Dim("seq", max=512)}, "memory": {0: BATCH, 1: Dim("mem", max=256)}},
                          mk, sz, pts, 4)
    assert "memory.size()[0] == tgt.size()[0]" in [g.text for g in gs.guards]


# ---------------------------------------------------------------- hand-written

class UNet(nn.Module):
    """Two levels, transposed-conv upsampling, the skip centre-cropped to the upsampled size."""
    def __init__(self):
        super().__init__()
        self.d1 = nn.Conv2d(3, 8, 3)
        self.d2 = nn.Conv2d(8, 16, 3)
        self.up = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.out = nn.Conv2d(16, 2, 1)

    def forward(self, x):
        a = F.relu(self.d1(x))
        b = F.relu(self.d2(F.max_pool2d(a, 2)))
        u = self.up(b)
        dh = (a.shape[2] - u.shape[2]) // 2
        dw = (a.shape[3] - u.shape[3]) // 2
        crop = a[:, :, dh:dh + u.shape[2], dw:dw + u.shape[3]]
        return self.out(torch.cat([crop, u], 1))


def test_unet_skip_crop():
    image("unet_crop", UNet(), (2, 36, 44), {"x": {0: Dim.AUTO, 2: Dim.AUTO, 3: Dim.AUTO}}, 4, 90, min_accepted=6)


class Branchy(nn.Module):
    """Python control flow on sizes: export keeps one branch and records the condition."""
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 8)

    def forward(self, x):
        if x.shape[1] > 8:
            x = x[:, :8]
        else:
            x = F.pad(x, (0, 0, 0, 8 - x.shape[1]))
        return self.a(x).sum(1)


def test_size_dependent_branch():
    r = rng_for("branchy")
    pts = [(r.randint(1, 8), r.randint(1, 30)) for _ in range(24)]
    gs, _ = check_program("branchy", Branchy(), (2, 12), {"x": {0: BATCH, 1: Dim.AUTO}},
                          lambda p: (torch.randn(p[0], p[1], 16),), lambda p: {"x": [p[0], p[1], 16]}, pts, 4)
    # sizes <= 8 took the other branch at export: the program's guard must reject them
    assert not gs.check({"x": [2, 5, 16]})[0]


class Checked(nn.Module):
    """torch._check on a size and a reshape into heads that needs it."""
    def forward(self, x):
        torch._check(x.shape[1] % 4 == 0)
        b, n, c = x.shape
        return x.reshape(b, n // 4, 4, c).mean(2)


def test_torch_check_divisibility():
    r = rng_for("checked")
    pts = [(r.randint(1, 6), r.randint(2, 64)) for _ in range(24)]
    gs, _ = check_program("torch_check", Checked(), (2, 16), {"x": {0: BATCH, 1: 4 * Dim("quarter", min=1, max=32)}},
                          lambda p: (torch.randn(p[0], p[1], 8),), lambda p: {"x": [p[0], p[1], 8]}, pts, 4)
    assert not gs.check({"x": [2, 18, 8]})[0]


class Asserting(nn.Module):
    def forward(self, x, y):
        assert x.shape[0] == y.shape[0], "batch mismatch"
        torch._check(x.shape[1] >= 4)
        return torch.cat([x, y], 1)[:, 2:]


def test_asserts_and_shared_dim():
    r = rng_for("asserting")
    pts = [(r.randint(1, 6), r.randint(1, 20), r.randint(1, 20), r.choice([0, 0, 1])) for _ in range(24)]
    b = Dim("b", max=64)
    gs, _ = check_program("asserting", Asserting(), (2, 6, 3, 0), {"x": {0: b, 1: Dim.AUTO}, "y": {0: b, 1: Dim.AUTO}},
                          lambda p: (torch.randn(p[0], p[1]), torch.randn(p[0] + p[3], p[2])),
                          lambda p: {"x": [p[0], p[1]], "y": [p[0] + p[3], p[2]]}, pts, 4)
    assert "y.size()[0] == x.size()[0]" in [g.text for g in gs.guards] or \
        "x.size()[0] == y.size()[0]" in [g.text for g in gs.guards]


class Derived(nn.Module):
    """A derived Dim: x has twice y's length."""
    def forward(self, x, y):
        return x[:, ::2] + y


def test_derived_dim():
    r = rng_for("derived")
    pts = [(r.randint(1, 5), r.randint(2, 30), r.choice([0, 0, 1])) for _ in range(20)]
    n = Dim("n", min=2, max=100)
    gs, _ = check_program("derived_dim", Derived(), (2, 6, 0), {"x": {0: Dim.AUTO, 1: 2 * n}, "y": {0: Dim.AUTO, 1: n}},
                          lambda p: (torch.randn(p[0], 2 * p[1] + p[2]), torch.randn(p[0], p[1])),
                          lambda p: {"x": [p[0], 2 * p[1] + p[2]], "y": [p[0], p[1]]}, pts, 4)
    assert not gs.check({"x": [2, 13], "y": [2, 6]})[0]
    assert gs.check({"x": [3, 14], "y": [3, 7]})[0]


class Upsampler(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        y = F.interpolate(self.c(x), scale_factor=2, mode="nearest")
        y = F.pad(y, (1, 1, 1, 1), mode="reflect")
        return F.avg_pool2d(y, 2)


def test_interpolate_reflect_pad():
    """The default decompositions write nearest upsampling as advanced indexing (aten.index),
    which the engine lacks; the program as export gives it (before run_decompositions) keeps
    upsample_nearest2d.vec and reflection_pad2d, which are read (interpolate, pad)."""
    image("upsample_reflect", Upsampler(), (2, 10, 12), {"x": {0: BATCH, 2: Dim.AUTO, 3: Dim.AUTO}}, 1, 40, ch=4,
          min_accepted=6, keep=True)


class SeqConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 16)
        self.conv = nn.Conv1d(16, 32, 5, stride=2)
        self.norm = nn.LayerNorm(32)

    def forward(self, tokens):
        h = self.conv(self.emb(tokens).transpose(1, 2))
        h = self.norm(h.transpose(1, 2)).softmax(-1)
        return F.adaptive_avg_pool1d(h.transpose(1, 2), 4), h.argmax(-1)


def test_embedding_conv1d():
    r = rng_for("seqconv")
    pts = [(r.randint(1, 6), r.randint(1, 40)) for _ in range(24)]
    check_program("embedding_conv1d", SeqConv(), (2, 20), {"tokens": {0: BATCH, 1: Dim.AUTO}},
                  lambda p: (torch.randint(0, 50, (p[0], p[1])),), lambda p: {"tokens": [p[0], p[1]]}, pts, 6)


class GroupNormBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv3d(2, 8, 3, padding=1)
        self.g = nn.GroupNorm(4, 8)

    def forward(self, x):
        h = F.gelu(self.g(self.c(x)))
        return h.flatten(2).amax(-1), F.max_pool3d(h, 2)


def test_conv3d_groupnorm():
    r = rng_for("gn3d")
    pts = [(r.randint(1, 3), r.randint(3, 12), r.randint(3, 12), r.randint(3, 12)) for _ in range(16)]
    check_program("conv3d_groupnorm", GroupNormBlock(), (2, 6, 6, 6),
                  {"x": {0: Dim.AUTO, 2: Dim.AUTO, 3: Dim.AUTO, 4: Dim.AUTO}},
                  lambda p: (torch.randn(p[0], 2, p[1], p[2], p[3]),),
                  lambda p: {"x": [p[0], 2, p[1], p[2], p[3]]}, pts, 4)


class Unbacked(nn.Module):
    """A data-dependent size: nonzero() gives an unbacked length, used in a view."""
    def forward(self, x):
        idx = (x[:, 0] > 0).nonzero()
        return idx.reshape(-1, 1) * 2, x.sum(1)


def test_unbacked_nonzero():
    r = rng_for("unbacked")
    pts = [(r.randint(1, 20), r.randint(1, 8)) for _ in range(12)]
    gs, ep = check_program("unbacked_nonzero", Unbacked(), (4, 3), {"x": {0: Dim.AUTO, 1: Dim.AUTO}},
                           lambda p: (torch.randn(p[0], p[1]),), lambda p: {"x": [p[0], p[1]]}, pts, 4, shapes=False)
    assert any(n.target is torch.ops.aten.nonzero.default for n in ep.graph.nodes)
    doc = symshape.from_exported(ep, trace=False)
    assert any(n["op"] == "nonzero" for n in doc["nodes"])


# ---------------------------------------------------------------- ops, errors

def test_every_core_op_is_mapped_or_rejected():
    """Fails when the installed torch's core ATen set has an op that ATEN_TABLE neither maps nor
    ATEN_REJECTED refuses (add it to one of them, then regenerate docs/ops.md)."""
    from symshape.exporter import _engine_ops
    engine = _engine_ops()
    core = core_aten_ops()
    assert len(core) > 150, core
    missing = [o for o in core if aten_status(o, engine)[0] == "missing"]
    assert not missing, "core ATen ops neither mapped nor rejected: %s" % missing
    assert not set(ATEN_TABLE) & set(ATEN_REJECTED)


def test_ops_md_core_table_is_current(capsys):
    """docs/ops.md's core ATen table is what scripts/core_aten_status.py generates now (its main
    with --check, in this process: torch and the library are loaded already)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("core_aten_status", os.path.join(ROOT, "scripts", "core_aten_status.py"))
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    rc = script.main(["--check"])
    out, err = capsys.readouterr()
    assert rc == 0, out + err


class Rfft(nn.Module):
    def forward(self, x):
        return torch.fft.rfft(x)


def test_rejected_op_names_itself():
    ep = export(Rfft(), (torch.randn(5, 8),), dynamic_shapes=None).run_decompositions()
    with pytest.raises(ExportError) as e:
        symshape.from_exported(ep)
    assert "aten._fft_r2c" in str(e.value) and "FFT" in str(e.value)


class Indexing(nn.Module):
    def forward(self, x, i, m):
        return x[i], x[:, i], x[i, :, i], x[m]


def test_aten_index():
    """aten.index.Tensor (issue 32): x[i], x[:, i], x[i, :, i] (separated: the index dims first),
    a bool mask (its length data-dependent: only acceptance is compared)."""
    r = rng_for("aten_index")
    pts = [(r.randint(1, 6), r.randint(1, 6), r.randint(1, 5)) for _ in range(24)]
    n = lambda p: min(p[0], p[1], p[2])
    check_program("aten_index", Indexing(), (4, 5, 3),
                  {"x": {0: Dim("a", min=1), 1: Dim("b", min=1), 2: Dim("c", min=1)}, "i": {0: Dim("k", min=1)},
                   "m": {0: Dim("a", min=1), 1: Dim("b", min=1), 2: Dim("c", min=1)}},
                  lambda p: (torch.randn(p[0], p[1], p[2]), torch.randint(0, n(p), (2,)), torch.rand(*p) > 0.5),
                  lambda p: {"x": list(p), "i": [2], "m": list(p)}, pts, 12, shapes=False)


def test_nearest_upsample_and_reflect_pad_decomposed():
    """After run_decompositions, nearest upsampling and a 1-D reflect pad are aten.index /
    _unsafe_index with computed index tensors: read as the engine's index."""
    class M(nn.Module):
        def forward(self, x):
            y = F.interpolate(x, scale_factor=2, mode="nearest")
            return y, F.pad(x.flatten(2), (2, 1), mode="reflect")
    image("nearest_reflect_decomposed", M(), (2, 10, 12), {"x": {0: BATCH, 2: Dim.AUTO, 3: Dim.AUTO}}, 1, 40,
          ch=2, min_accepted=6)


def test_not_a_program():
    with pytest.raises(ExportError, match="ExportedProgram"):
        symshape.from_exported(nn.Linear(2, 2))


def test_dynamic_override_names_and_static_error():
    ep = export(Checked(), (torch.randn(2, 16, 8),), dynamic_shapes={"x": {0: BATCH, 1: Dim.AUTO}}).run_decompositions()
    doc = symshape.from_exported(ep, trace=False)
    x = [n for n in doc["nodes"] if n["name"] == "x"][0]
    assert x["dynamic"][0]["name"] == "batch" and x["dynamic"][0]["max"] == 16, x
    assert [d["dim"] for d in x["dynamic"]] == [0, 1]
    with pytest.raises(ExportError, match="static in the exported program"):
        symshape.from_exported(ep, dynamic={"x": [2]})
    doc = symshape.from_exported(ep, dynamic={"x": ["0:b"]}, trace=False)
    x = [n for n in doc["nodes"] if n["name"] == "x"][0]
    assert x["dynamic"] == [{"dim": 0, "name": "b", "min": 1, "max": 16}], x


class AdaptiveMax(nn.Module):
    def forward(self, x):
        a = F.adaptive_max_pool2d(x, (5, 3))
        b = F.adaptive_max_pool1d(x.flatten(2), 4)
        c, i = F.adaptive_max_pool2d(x, 2, return_indices=True)
        return a, b, c, i


def test_adaptive_max_pool_returns_values_and_indices():
    """Issue 38 (third pass): aten.adaptive_max_poolNd always returns (values, indices), and the
    program takes [0]; read as F.adaptive_max_poolNd (one tensor) the [0] indexed the batch, so
    the output shapes lost their batch dim ([4, 5, 3] for torch's [2, 4, 5, 3])."""
    image("adaptive_max", AdaptiveMax(), (2, 12, 12), {"x": {0: Dim.AUTO, 2: Dim.AUTO, 3: Dim.AUTO}}, 1, 30,
          min_accepted=8, ch=4)


class UniqueConsecutive(nn.Module):
    def forward(self, x):
        return torch.unique_consecutive(x).shape[0] + x.shape[0]


def test_unique_consecutive_returns_three_tensors():
    """aten.unique_consecutive always returns (values, inverse, counts); read as
    torch.unique_consecutive without return_inverse/return_counts (one tensor), the program's
    [0] took the first value, a 0-D tensor, and sym_size(.., 0) of it failed."""
    ep = export(UniqueConsecutive(), (torch.tensor([1, 1, 2, 3, 3]),), dynamic_shapes={"x": {0: Dim.AUTO}})
    gs = symshape.from_exported(ep.run_decompositions())
    assert gs.check({"x": [9]})[0]
    ((out,),) = gs.output_exprs()
    assert sorted(map(str, out.free_symbols())) == ["s0", "u0"], str(out)


class Unique2(nn.Module):
    def __init__(self, inverse, counts):
        super().__init__()
        self.inverse, self.counts = inverse, counts

    def forward(self, x):
        r = torch.unique(x, return_inverse=self.inverse, return_counts=self.counts)
        u = r[0] if isinstance(r, tuple) else r
        return (u * 2,) + (tuple(r[1:]) if isinstance(r, tuple) else ())


@pytest.mark.parametrize("inverse,counts", [(False, False), (True, False), (False, True), (True, True)])
def test_unique2_is_mapped(inverse, counts):
    """Issue 38 (fix38f): aten._unique2 (torch.unique) was unmapped in from_exported. Its values'
    length is an unbacked symbol u with 0 <= u <= numel (as the exporter's unique); the inverse has
    the input's shape and the counts (u,). Checked against torch on the CPU at random sizes and
    data: the symbolic shapes evaluated at the input's size and torch's own u."""
    if not hasattr(torch.ops.aten, "_unique2"):
        pytest.skip("no aten._unique2 in this torch")
    ep = export(Unique2(inverse, counts), (torch.tensor([1, 2, 2, 3, 5]),), dynamic_shapes={"x": {0: Dim.AUTO}})
    assert any(n.target is torch.ops.aten._unique2.default for n in ep.graph.nodes)
    doc = symshape.from_exported(ep, trace=False)
    assert any(n["op"] == "unique" for n in doc["nodes"])
    gs = symshape.from_exported(ep)
    outs = gs.output_exprs()
    assert len(outs) == 1 + inverse + counts
    r = rng_for("unique2_%d%d" % (inverse, counts))
    for _ in range(20):
        n = r.randint(2, 40)  # the program's own range of x.size()[0]: [2, oo) (torch's 0/1 specialization)
        x = torch.randint(0, r.randint(1, 12), (n,))
        assert gs.check({"x": [n]})[0]
        got = ep.module()(x)
        u = got[0].shape[0]
        for expr_shape, t in zip(outs, got):
            vals = [e.eval(**{str(sym): n if str(sym).startswith("s") else u for sym in e.free_symbols()})
                    for e in expr_shape]
            assert vals == list(t.shape), (vals, t.shape)
        assert 0 <= u <= n


class Unique2Raw(nn.Module):
    def forward(self, x):
        return torch.ops.aten._unique2.default(x)


def test_unique2_outputs_not_asked_for_are_empty():
    """aten._unique2 called directly returns all three tensors: the inverse and the counts not
    asked for are the (0,) int64 tensors of _unique2_cpu_template (not the input's shape, not (u,))."""
    if not hasattr(torch.ops.aten, "_unique2"):
        pytest.skip("no aten._unique2 in this torch")
    ep = export(Unique2Raw(), (torch.tensor([1, 2, 2, 3, 5]),), dynamic_shapes={"x": {0: Dim.AUTO}})
    gs = symshape.from_exported(ep)
    got = ep.module()(torch.tensor([4, 4, 1, 7, 7, 7, 2]))
    assert [list(t.shape) for t in got[1:]] == [[0], [0]] and got[1].dtype == torch.int64
    outs = gs.output_exprs()
    assert len(outs) == 3 and [[str(e) for e in o] for o in outs[1:]] == [["0"], ["0"]], outs


class ListAndClash(nn.Module):
    """forward(x, x_0) with x a list: torch names the placeholders x_0 (x[0]), x_1 (x[1]) and
    x_0_1 (the tensor x_0); the branch on x_0's size is guard L['x_0'].size()[0] >= 5."""
    def forward(self, x, x_0):
        head = x_0[:5] if x_0.shape[0] >= 5 else x_0
        return x[0][:, :3].sum() + head.sum() + x[1].sum()


def test_guard_paths_follow_the_program_sources():
    """Issue 38 (third pass): a guard of ep._guards_code was mapped to a placeholder by joining
    its path with '_', so L['x_0'] read x[0] (placeholder x_0), not the tensor x_0 (x_0_1):
    from_exported failed ('the branch recorded at capture is not taken here'), and where the
    sizes agreed it guarded the wrong tensor. Now the program's own sources name the input."""
    r = rng_for("clash")
    pts = [(r.randint(1, 6), r.randint(1, 8), r.randint(1, 5), r.randint(1, 12)) for _ in range(24)]
    mk = lambda p: ([torch.randn(p[0], p[1]), torch.randn(p[2])], torch.randn(p[3]))
    sz = lambda p: {"x_0": [p[0], p[1]], "x_1": [p[2]], "x_0_1": [p[3]]}
    gs, _ = check_program("list_and_clash", ListAndClash(), (2, 4, 3, 7),
                          {"x": [{0: Dim.AUTO, 1: Dim.AUTO}, {0: Dim.AUTO}], "x_0": {0: Dim.AUTO}}, mk, sz, pts, 4,
                          keep=True)  # torch 2.14's run_decompositions fails on list inputs (its _guards_fn)
    texts = [g.text for g in gs.guards]
    assert "5 <= x_0_1.size()[0]" in texts and not any("x_0.size()[0]" in t and "5" in t for t in texts), texts


class TupleOfOneDim(nn.Module):
    def forward(self, xs, d):
        return xs[0] + xs[1], d["k"] * 2


def test_tuple_items_sharing_a_dim_are_read():
    """Issue 38 (fourth pass): xs[0] and xs[1] of one Dim share a symbol whose var_to_sources
    lists L['xs'][0] only, so both placeholders claimed that path and from_exported refused the
    program ('names two inputs of the program'). The placeholder named as torch names the path
    (xs_0) is its; the equality and the Dim's max are guards; acceptance equals the program's."""
    r = rng_for("tuple_shared")
    pts = [(r.randint(0, 70), r.randint(0, 70), r.randint(0, 9)) for _ in range(20)]
    pts += [(p[0], p[0], p[2]) for p in pts]
    mk = lambda p: ((torch.randn(p[0], 4), torch.randn(p[1], 4)), {"k": torch.randn(p[2])})
    sz = lambda p: {"xs_0": [p[0], 4], "xs_1": [p[1], 4], "d_k": [p[2]]}
    b = Dim("b", min=0, max=64)
    gs, ep = check_program("tuple_shared", TupleOfOneDim(), (3, 3, 2), {"xs": ({0: b}, {0: b}), "d": {"k": {0: Dim.AUTO}}},
                           mk, sz, pts, 10, keep=True)
    texts = [g.text for g in gs.guards]
    assert "xs_0.size()[0] == xs_1.size()[0]" in texts and "xs_0.size()[0] <= 64" in texts, texts
    assert not gs.check(sz((5, 6, 3)))[0] and gs.check(sz((0, 0, 2)))[0]


# ---------------------------------------------------------------- python3 -m symshape --capture export

def run_cli(capsys, *args):
    """(exit status, stdout, stderr) of `python3 -m symshape ARGS`, run in this process: its main(),
    with torch and the exporter already imported (a subprocess each took 4 of this file's 18
    minutes at load 15: the interpreter, torch and torch.export's first use again). The command
    in subprocesses, as a user runs it (python -m, exit statuses, no traceback), is test_cli.py's."""
    from symshape.__main__ import main
    capsys.readouterr()
    try:
        rc = main(list(args))
    except SystemExit as e:  # argparse's usage errors
        rc = e.code
    out, err = capsys.readouterr()
    return rc, out, err


def test_cli_capture_export(tmp_path, capsys):
    rc, out, err = run_cli(capsys, "report", "cli_models:cat2", "--input", "x=2,3", "--input", "y=2,5", "--capture", "export",
                           "--dynamic", "x=0:b@1..64,1", "--dynamic", "y=0:b@1..64,1", "-b", "json")
    assert rc == 0, err
    import json
    j = json.loads(out)
    texts = [g["text"] for g in j["guards"]]
    assert "x.size()[0] <= 64" in texts, texts
    assert any("y.size()[0]" in t and "x.size()[0]" in t for t in texts), texts
    g = tmp_path / "g.json"
    rc, out, err = run_cli(capsys, "export", "cli_models:cat2", "--input", "x=2,3", "--input", "y=2,5", "--capture", "export",
                           "-o", str(g))
    assert rc == 0, err
    doc = json.loads(g.read_text())
    assert doc["origin"].startswith("symshape.from_exported")
    # torch.export's own failure: one line, exit 3
    rc, out, err = run_cli(capsys, "report", "cli_models:Pinned", "--input", "x=2,3,8,8", "--capture", "export",
                           "--dynamic", "x=2:h@2..64")
    assert rc == 3 and err.startswith("symshape: error: ") and "Traceback" not in err, (rc, err)


def test_cli_capture_export_of_a_plain_function(capsys):
    """issue 38 (fourth pass): --capture export of MODULE:FUNCTION (which --capture fx takes)
    failed with torch.export's 'Expected `mod` to be an instance of `torch.nn.Module`'; the
    function is now wrapped in a module whose forward has its signature"""
    rc, out, err = run_cli(capsys, "report", "cli_models:nonzero_rows", "--input", "x=3,4", "--capture", "export",
                           "--dynamic", "x=0,1", "-b", "json")
    assert rc == 0, err
    import json
    j = json.loads(out)
    assert j["model"] == "nonzero_rows" and "x.dim() == 2" in [g["text"] for g in j["guards"]], out[:400]


def test_cli_capture_export_labels_export_guards(capsys):
    """--capture export (issue 35): the report's dynamic-dim spec is the user's --dynamic, not the
    program's Dim.AUTO symbols (s53 in [2, oo)), so torch.export's own guards (its 0/1 tests on
    the halves of x[:, ::2] - x[:, 1::2], Dim.AUTO's [2, oo)) are no violation and exit 0; they are
    labelled as torch.export's (guard_bool at node torch_export_*), never as the model's _assert."""
    import json
    sys.path.insert(0, HERE)
    try:
        import cli_models
    finally:
        sys.path.pop(0)
    from symshape.__main__ import main
    for dyn in (["--dynamic", "x=0,1"], [], ["--dynamic", "x=0:b,1"]):
        rc = main(["report", "cli_models:strided", "--input", "x=2,6", "--capture", "export", "-b", "json",
                   "--quiet"] + dyn)
        out = capsys.readouterr().out
        assert rc == 0, (dyn, out)
        j = json.loads(out)
        assert not j.get("violations"), (dyn, j.get("violations"))
        # the 0/1 test of the odd half: export's parity guard reads Mod(x.size()[1], 2) == 0
        # (ADD_HALVES), and minimization rewrites FloorDiv(x.size()[1], 2) != 1 under it (FloorDiv
        # is exact there) to x.size()[1] != 2 (issue 32)
        g = [g for g in j["guards"] if g["text"] == "x.size()[1] != 2"]
        assert g and all(o["op"] == "guard_bool" and o["node"].startswith("torch_export_guard")
                         for o in g[0]["origins"]), g
        assert not any(o.get("op") == "_assert" for g in j["guards"] for o in g.get("origins", [])), j["guards"]
    # the document keeps the user's spec: bare indices unnamed, the user's name, no program symbol name
    ep = export(cli_models.strided(), (torch.randn(2, 6),), dynamic_shapes={"x": {0: Dim.AUTO, 1: Dim.AUTO}})
    ep = ep.run_decompositions()
    from symshape.export_program import from_exported_doc
    doc = from_exported_doc(ep, dynamic={"x": [0, {"dim": 1, "name": "n"}]}, user_spec=True)
    assert [n for n in doc["nodes"] if n["name"] == "x"][0]["dynamic"] == [0, {"dim": 1, "name": "n"}]
    # without user_spec (the Python API's default) the program's symbols name the dims, as before
    doc = from_exported_doc(ep)
    assert all(isinstance(d, dict) and d.get("min") == 2 for d in [n for n in doc["nodes"] if n["name"] == "x"][0]["dynamic"])
    # two dims of one program symbol given by index: the program's equality is a guard of export's
    ep = export(cli_models.cat2(), (), kwargs={"x": torch.randn(2, 3), "y": torch.randn(2, 5)},
                dynamic_shapes={"x": {0: Dim.AUTO, 1: Dim.AUTO}, "y": {0: Dim.AUTO, 1: Dim.AUTO}}).run_decompositions()
    doc = from_exported_doc(ep, dynamic={"x": [0, 1], "y": [0, 1]}, user_spec=True)
    assert any(n["op"] == "guard_bool" and n["name"].startswith("torch_export_same_symbol") for n in doc["nodes"]), doc
    gs = symshape.trace(doc, duck_sizing=False)
    assert gs.check({"x": [3, 4], "y": [3, 7]})[0] and not gs.check({"x": [3, 4], "y": [4, 7]})[0]


# ---------------------------------------------------------------- guard for guard (bench/guards_vs_torch.py)

def test_guards_vs_torch_export_small_models():
    """The guard-for-guard comparison (docs/guards.md section 8) on five fast models, 100 points
    each, against both PyTorch columns (torch.export, and torch.compile(dynamic=True) counted by
    recompiles): 0 symshape soundness violations, neither PyTorch column accepts a point the model
    cannot run, and, with distinct example sizes, no point that PyTorch accepts and symshape
    rejects. symshape.from_exported reads each exported program (run_decompositions) and is
    sound at the same points."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    try:
        import guards_vs_torch as g
    finally:
        sys.path.pop(0)
    ms = g.models()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the bench: small per-point runs, a loaded machine
    try:
        rows = [g.compare(name, ms[name], 100, with_from_exported=True)
                for name in ("cat2", "branchy", "squeeze_mean", "espcn", "heads_check")]
    finally:
        torch.set_num_threads(threads)
    for row in rows:
        name = row["model"]
        # symshape.from_exported reads PyTorch's own program: no error, sound, within PyTorch's points
        assert row["fe_error"] is None, (name, row["fe_error"])
        assert row["fe_viol"] == 0 and row["fe_beyond_torch"] == 0, (name, row["examples"]["fe_viol"],
                                                                      row["examples"]["fe_beyond_torch"])
        assert row["fe_accepted"] > 0, row
        assert row["sym_viol"] == 0, (name, row["examples"]["sym_viol"])
        assert row["torch_viol"] == 0, (name, row["examples"]["torch_viol"])
        assert row["compile_viol"] == 0, (name, row["examples"]["compile_viol"])
        assert row["only_torch"] == 0, (name, row["examples"]["only_torch"])
        assert row["c_only_compile"] == 0, (name, row["examples"]["c_only_compile"])
        assert row["both"] > 0 and row["c_both"] > 0, row
        # the compile column saw its guards: every model here has a dynamic dim guarded against 0/1
        assert row["compile_frames"] >= 1 and row["compile_kinds"].get("0/1", 0) >= 1, row["compile_kinds"]
    # the model's divisibility assert is a divisibility guard on all three sides
    assert row["compile_kinds"].get("divisibility") and row["sym_by_kind"].get("divisibility") \
        and row["export_by_kind"].get("divisibility"), row
    # points the compiled entry rejects are rejected by recompiling: the counts add up
    assert row["c_both"] + row["c_only_compile"] + row["c_only_symshape"] + row["c_neither"] == 100


def test_guard_kind_classifier():
    """bench/guards_vs_torch.guard_kind: the one classifier applied to the guards of all three."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    try:
        from guards_vs_torch import guard_kind
    finally:
        sys.path.pop(0)
    cases = {"2 <= L['x'].size()[0]": "0/1", "(L['x'].size()[1] // 4) != 1": "0/1",
             "FloorDiv(x.size()[1], 2) != 1": "0/1", "L['y'].size()[0] == L['x'].size()[0]": "duck equality",
             "(L['x'].size()[1] % 4) == 0": "divisibility", "Mod(x.size()[1], 4) == 0": "divisibility",
             "9 <= L['x'].size()[1]": "range", "L['x'].size()[1] != 2": "range", "x.size()[1] == 3": "static",
             "L['x'].stride()[0] == L['x'].size()[1]": "layout",
             "FloorDiv(x.size()[2], 4)*FloorDiv(x.size()[3], 4) <= 256": "relation"}
    for text, kind in cases.items():
        assert guard_kind(text) == kind, (text, guard_kind(text), kind)


# ---------------------------------------------------------------- one op family per model

class OneOp(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x)


def _scatter_into(x):
    y = x.clone()
    y[:, 1:] = 0  # functionalized: slice_scatter
    return y


ONE_OP = {
    "avg_pool1d": lambda x: F.avg_pool1d(x, 3, 2),
    "adaptive_avg_pool1d": lambda x: F.adaptive_avg_pool1d(x, 4),
    "var_std": lambda x: (x.var(-1), x.std(1, keepdim=True)),
    "sort_topk": lambda x: (x.sort(-1)[0], x.topk(2, -1)[1]),
    "cumsum_flip_repeat": lambda x: (x.cumsum(1), x.flip(-1), x.repeat(1, 2, 1)),
    "gather_index_select": lambda x: (x.gather(2, x.argmax(2, keepdim=True)),
                                      x.index_select(1, torch.tensor([0, 0]))),
    "pads": lambda x: (F.pad(x, (1, 2)), F.pad(x, (-1, 1), value=3.0)),  # reflect/replicate decompose to aten.index
    "reductions": lambda x: (x.amax(-1), x.prod(1), x.argmin(-1), x.sum(), x.mean((0, 2), keepdim=True)),
    "clamp_where": lambda x: (x.clamp(-1, 1), torch.where(x > 0, x, torch.zeros_like(x)), torch.full_like(x, 2.0)),
    "chunk_split": lambda x: x.chunk(2, -1) + x.split([1, x.shape[1] - 1], 1),
    "bmm_expand": lambda x: torch.bmm(x, x.transpose(1, 2)).unsqueeze(1).expand(-1, 2, -1, -1),
    "select_diag": lambda x: (x[:, 0], x[0].diagonal(), x[..., -1:]),
    "slice_scatter": _scatter_into,
    "arange_size": lambda x: x + torch.arange(x.shape[-1]),
    "softmax_log": lambda x: (x.softmax(1), x.log_softmax(-1)),
}


@pytest.mark.parametrize("name", sorted(ONE_OP))
def test_one_op_family(name):
    r = rng_for(name)
    pts = [(r.randint(1, 4), r.randint(1, 9), r.randint(1, 12)) for _ in range(10)]
    check_program("op_" + name, OneOp(ONE_OP[name]), (2, 3, 8), {"x": {0: Dim.AUTO, 1: Dim.AUTO, 2: Dim.AUTO}},
                  lambda p: (torch.randn(p[0], p[1], p[2]),), lambda p: {"x": [p[0], p[1], p[2]]}, pts, 1)


class CountSlice(nn.Module):
    """.item() of a sum of a bool tensor, _check_is_size'd: the sum is int64 (ReduceOps.cpp
    get_dtype_from_self, promote_integers), so the item is an integer, not a symbolic boolean."""
    def forward(self, x, n):
        k = (n > 0).sum().item()
        torch._check_is_size(k, max=x.shape[0])
        return x[:k]


def test_item_of_bool_sum_check_is_size():
    r = rng_for("count_slice")
    pts = [(b, r.randint(1, b)) for b in (r.randint(2, 12) for _ in range(20))]
    gs, _ = check_program("count_slice", CountSlice(), (6, 4), {"x": {0: Dim.AUTO}, "n": {0: Dim.AUTO}},
                          lambda p: (torch.randn(p[0], 3), torch.randn(p[1])), lambda p: {"x": [p[0], 3], "n": [p[1]]},
                          pts, 10, shapes=False)
    assert any("u0" in g.text or "u1" in g.text for g in gs.guards), [g.text for g in gs.guards]


class ScaledSlice(nn.Module):
    """A slice to a float fraction of a size, and a Python branch on it: the program has
    sym_float, a float product and math.trunc / math.floor in its graph and in its guards code
    (math.trunc(0.3*torch.sym_float(L['x'].size()[1])) > 2)."""
    def __init__(self, s, f):
        super().__init__()
        self.s, self.f = s, f

    def forward(self, x):
        k = self.f(self.s * torch.sym_float(x.shape[1]))
        return x[:, :k] if k > 2 else x


@pytest.mark.parametrize("scale,fn", [(0.3, "trunc"), (0.7, "floor")])
def test_program_guard_float_of_size(scale, fn):
    import math
    r = rng_for("scaled_%s" % fn)
    pts = [(r.randint(1, 4), r.randint(1, 120)) for _ in range(40)] + [(2, 9), (2, 10), (2, 4), (2, 5)]
    gs, ep = check_program("scaled_" + fn, ScaledSlice(scale, getattr(math, fn)), (2, 20), {"x": {0: Dim.AUTO, 1: Dim.AUTO}},
                           lambda p: (torch.randn(p[0], p[1]),), lambda p: {"x": [p[0], p[1]]}, pts, 20)
    assert any("trunc" in g or "floor" in g for g in ep._guards_code), ep._guards_code
    # the branch's boundary, exactly: k = fn(scale*n) > 2 first holds at n = 10 (0.3) / n = 5 (0.7)
    lo = 10 if scale == 0.3 else 5
    assert gs.check({"x": [2, lo]})[0] and not gs.check({"x": [2, lo - 1]})[0]


def test_program_without_guards_code_is_refused():
    """Without ep._guards_code (another torch) the program's Python-level conditions are unknown:
    an error, unless program_guards=False says to read it without them."""
    ep = export(Branchy(), (torch.randn(2, 12, 16),), dynamic_shapes={"x": {0: BATCH, 1: Dim.AUTO}}).run_decompositions()
    saved = ep._guards_code
    try:
        del ep._guards_code
        with pytest.raises(ExportError, match="program_guards=False"):
            symshape.from_exported(ep)
        gs = symshape.from_exported(ep, program_guards=False)
        assert len(gs) > 0
    finally:
        ep._guards_code = saved
    # with them: the branch export took (x.size(1) > 8) is a guard
    assert not symshape.from_exported(ep).check({"x": [2, 5, 16]})[0]


@pytest.mark.parametrize("n", [2000, 5000])
def test_program_guard_nested_past_the_recursion_limit(n):
    """A guard nested deeper than Python's recursion limit (a chain of 2000 or 5000 additions) is an
    ExportError naming it, cut to a few hundred characters (was: RecursionError from the reader's
    walk at 2000, from ast.parse at 5000; issue 38's second pass)."""
    ep = export(Branchy(), (torch.randn(2, 12, 16),), dynamic_shapes={"x": {0: BATCH, 1: Dim.AUTO}}).run_decompositions()
    saved = ep._guards_code
    try:
        ep._guards_code = list(saved) + ["L['x'].size()[0]" + " + 1" * n + " > 0"]
        with pytest.raises(ExportError, match="program_guards=False|cannot parse") as ei:
            symshape.from_exported(ep)
        assert "more characters" in str(ei.value) and len(str(ei.value)) < 1000
    finally:
        ep._guards_code = saved


# ---------------------------------------------------------------- mm family: output strides

class MMFamily(nn.Module):
    """aten.mm / addmm / bmm / baddbmm on transposed and step-sliced inputs: a [K, M], b [N, K],
    c [B, K, M], d [B, N, K], bias [N] (every dim dynamic)."""
    def forward(self, a, b, c, d, bias):
        A = torch.ops.aten
        x, y = a.t(), b.t()                      # [M, K], [K, N], transposed
        xs = a[:, ::2].t()                       # [ceil(M/2), K], step-sliced then transposed
        u, v = c.transpose(1, 2), d.transpose(1, 2)  # [B, M, K], [B, K, N]
        full = A.mm(y.t(), x.t()).t()            # [M, N] transposed (strides (1, N))
        bb = A.bmm(v.transpose(1, 2), u.transpose(1, 2)).transpose(1, 2)  # [B, M, N] transposed
        return (A.mm(x, y), A.mm(xs, y), A.addmm(bias, x, y), A.addmm(full, x, y, beta=2, alpha=0.5),
                A.addmm(bias[:1], xs, y), A.bmm(u, v), A.baddbmm(bb, u, v), A.baddbmm(bias, u, v, beta=0.5),
                A.bmm(u[:, ::2], v))


def test_mm_family_output_strides():
    """The strides symshape gives the outputs of mm / addmm / bmm / baddbmm as the export
    frontend maps them (ATEN_TABLE; addmm is mm + expand + add there) against x.stride() of the
    real CPU kernels (ATen LinearAlgebra.cpp: the structured meta functions of addmm / mm / bmm /
    baddbmm allocate a fresh contiguous result whatever the inputs' layouts), with transposed and
    step-sliced inputs, at 24 sizes, as exported (the eager kernels) and after run_decompositions
    (the decomposed program run by ep.module(), which differs from eager for baddbmm with a
    transposed self: torch._decomp's baddbmm is `self + bmm`, laid out as self; issue 35)."""
    torch.manual_seed(0)
    model = MMFamily().eval()
    mk = lambda p: dict(a=torch.randn(p[2], p[1]), b=torch.randn(p[3], p[2]), c=torch.randn(p[0], p[2], p[1]),
                        d=torch.randn(p[0], p[3], p[2]), bias=torch.randn(p[3]))
    names = ("a", "b", "c", "d", "bias")
    example = (2, 7, 3, 4)  # B, M, K, N: distinct, so that export gives each its own symbol
    ds = {n: {i: Dim.AUTO for i in range(t.dim())} for n, t in mk(example).items()}
    r = rng_for("mm_family")
    # sizes >= 2: the program's own guards are torch.export's [2, oo) ranges
    pts = [example] + [(r.randint(2, 5), r.randint(2, 12), r.randint(2, 12), r.randint(2, 12)) for _ in range(23)]
    from symshape.export_program import from_exported_doc
    for decompose in (False, True):
        with torch.no_grad():
            ep = export(model, (), kwargs=mk(example), dynamic_shapes=ds)
        if decompose:
            ep = ep.run_decompositions()
        doc = from_exported_doc(ep, name="mm_family")
        outs = doc["outputs"]
        ranks = [len(t.shape) for t in model(**mk(example))]
        assert len(outs) == len(ranks), outs
        # one stride node per output dim: the graph's outputs become the strides
        strides = []
        for k, (o, nd) in enumerate(zip(outs, ranks)):
            for i in range(nd):
                doc["nodes"].append({"name": "stride_%d_%d" % (k, i), "op": "stride", "args": [o, i]})
                strides.append({"ref": "stride_%d_%d" % (k, i)})
        doc["outputs"] = strides
        gs = symshape.trace(doc)
        checked = diffs = 0
        for p in pts:
            inputs = mk(p)
            sizes = {n: list(inputs[n].shape) for n in names}
            with torch.no_grad():
                eager = [list(t.stride()) for t in model(**inputs)]
                # the decomposed program is what symshape reads; its baddbmm is torch._decomp's
                # `self + bmm(batch1, batch2)`, whose result takes self's layout (TensorIterator:
                # the first operand's strides), where the eager kernel's is contiguous
                real = [list(t.stride()) for t in ep.module()(**inputs)] if decompose else eager
            if real != eager:
                diffs += 1
                assert [k for k, (x, y) in enumerate(zip(real, eager)) if x != y] == [6], (p, real, eager)
            acc, why = gs.check(sizes)
            assert acc, (p, why)
            mine = [v[0] for v in gs.output_shapes(sizes)]
            want = [s for st in real for s in st]
            assert mine == want, ("decompose=%s" % decompose, p, mine, want, real)
            checked += 1
        assert checked == len(pts), (decompose, checked)
        assert diffs == (len(pts) if decompose else 0), diffs


@pytest.mark.parametrize("guard", ["L['x'].size()[0] <= 99999999999999999999", "L['x'].size()[0] != -9223372036854775809",
                                   "L['x'].size()[1] < 2 ** 70"])
def test_program_guard_constant_past_int64(guard):
    """A constant past int64 in ep._guards_code is an ExportError naming the guard (was: a
    FormatError at a column of the generated JSON document, "too big integer"; issue 38)."""
    ep = export(Branchy(), (torch.randn(2, 12, 16),), dynamic_shapes={"x": {0: BATCH, 1: Dim.AUTO}}).run_decompositions()
    saved = ep._guards_code
    try:
        ep._guards_code = list(saved) + [guard]
        if "**" in guard:  # a power is computed in the graph (exactly): no constant past int64 to refuse
            gs = symshape.from_exported(ep)
            assert gs.check({"x": [2, 12, 16]})[0]
            return
        with pytest.raises(ExportError, match="past int64") as ei:
            symshape.from_exported(ep)
        assert guard in str(ei.value), str(ei.value)
    finally:
        ep._guards_code = saved


def test_program_guard_int64_min_constant():
    """-9223372036854775808 is an int64 (the unary minus of 2**63): read, not refused."""
    ep = export(Branchy(), (torch.randn(2, 12, 16),), dynamic_shapes={"x": {0: BATCH, 1: Dim.AUTO}}).run_decompositions()
    saved = ep._guards_code
    try:
        ep._guards_code = list(saved) + ["L['x'].size()[0] > -9223372036854775808"]
        gs = symshape.from_exported(ep)
        assert gs.check({"x": [2, 12, 16]})[0] and not gs.check({"x": [2, 5, 16]})[0]
    finally:
        ep._guards_code = saved


def test_range_constraint_lower_bound_past_int64():
    """A range constraint whose lower bound is past int64: an ExportError naming it."""
    from torch.utils._sympy.value_ranges import ValueRanges
    ep = export(Branchy(), (torch.randn(2, 12, 16),), dynamic_shapes={"x": {0: BATCH, 1: Dim.AUTO}}).run_decompositions()
    k = next(iter(ep.range_constraints))
    saved = ep.range_constraints[k]
    try:
        ep.range_constraints[k] = ValueRanges(2 ** 70, 2 ** 71)
        with pytest.raises(ExportError, match="range constraint .* lower bound is past int64"):
            symshape.from_exported(ep)
    finally:
        ep.range_constraints[k] = saved
