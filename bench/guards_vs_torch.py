#!/usr/bin/env python3
"""Guard for guard against PyTorch 2.x's own ShapeEnv (issue 35, item 2).

For each model: PyTorch captures it with torch.export (every dim Dim.AUTO, or the named Dims the
model needs) and symshape captures it with its own torch.fx exporter (symshape.export, every dim
dynamic, default policies: duck sizing and 0/1 specialization, as PyTorch). Both guard sets are
then run over the probe points (>= 100 per model, sizes drawn around the example, some of which
the model cannot run), with real CPU execution of the original model as the ground truth:

  * torch accepts a point when the exported program's input checks pass: the static dims, the
    dims sharing a symbol equal, every symbol (and derived expression) inside its
    range_constraints, and every guard of ep._guards_code true (what ExportedProgram.module()
    checks before it runs);
  * symshape accepts a point when GuardSet.check passes.

Counts per model: points, both, only torch, only symshape, neither; soundness violations of each
side (accepted, and the model fails or, for symshape, its output shapes differ from the ones
symshape computes); the number of guards each emits (torch: static dims + equalities + range
bounds + guards code; symshape: the minimized set, which also holds rank/dtype guards, counted
apart), and symshape's guards by kind.

--from-exported also reads each torch.export program (run_decompositions) with
symshape.from_exported and checks it at the same points (errors, violations, points beyond
torch.export's own).

Usage: SYMSHAPE_LIB=build/libsymshape.so python bench/guards_vs_torch.py [--points N] [--only NAME,...]
       [--markdown FILE] [--no-compile] [--from-exported]
Needs PyTorch 2.x (the venv of scripts/venv.sh) and torchvision.
"""
import argparse
import os
import random
import sys
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import symshape  # noqa: E402


# ----------------------------------------------------------------------------- models
class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 8)

    def forward(self, x):
        if x.shape[1] > 8:
            x = x[:, :8]
        else:
            x = F.pad(x, (0, 0, 0, 8 - x.shape[1]))
        return self.a(x).sum(1)


class Heads(nn.Module):
    def forward(self, x):
        assert x.shape[1] % 4 == 0, "tokens must be a multiple of 4"
        b, n, c = x.shape
        return x.reshape(b, n // 4, 4, c).mean(2)


class UNet(nn.Module):
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
        return self.out(torch.cat([a[:, :, dh:dh + u.shape[2], dw:dw + u.shape[3]], u], 1))


class Patches(nn.Module):
    """ViT-style patch embedding: conv stride 4, flatten, a class token, a learned position table
    sliced to the token count."""
    def __init__(self):
        super().__init__()
        self.p = nn.Conv2d(3, 16, 4, stride=4)
        self.cls = nn.Parameter(torch.zeros(1, 1, 16))
        self.pos = nn.Parameter(torch.zeros(1, 257, 16))

    def forward(self, x):
        t = self.p(x).flatten(2).transpose(1, 2)
        t = torch.cat([self.cls.expand(t.shape[0], -1, -1), t], 1)
        return t + self.pos[:, :t.shape[1]]


class Pyramid(nn.Module):
    """FPN-style top-down: upsample the coarse map to the fine map's size and add."""
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.c2 = nn.Conv2d(8, 8, 3, stride=2, padding=1)

    def forward(self, x):
        a = self.c1(x)
        b = self.c2(a)
        return a + F.interpolate(b, size=a.shape[-2:], mode="nearest")


class SegHead(nn.Module):
    """Segmentation head: backbone stride 8, bilinear back to the input size."""
    def __init__(self):
        super().__init__()
        self.b = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, stride=2, padding=1),
                               nn.ReLU(), nn.Conv2d(8, 4, 3, stride=2, padding=1))

    def forward(self, x):
        return F.interpolate(self.b(x), size=x.shape[-2:], mode="bilinear", align_corners=False)


class DetHead(nn.Module):
    """Detection head: anchors per cell, reshaped to (N, H*W*A, 4+C)."""
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 3 * 6, 3, padding=1)

    def forward(self, x):
        y = self.c(x)
        n, _, h, w = y.shape
        return y.view(n, 3, 6, h, w).permute(0, 3, 4, 1, 2).reshape(n, -1, 6)


class Video(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv3d(3, 8, (3, 3, 3), stride=(1, 2, 2), padding=1)

    def forward(self, x):
        return F.adaptive_avg_pool3d(F.relu(self.c(x)), 1).flatten(1)


class Cat2(nn.Module):
    def forward(self, x, y):
        return torch.cat([x, y], 1)


class Windows(nn.Module):
    """Swin-style window partition: pad H, W up to multiples of 4, then view into windows."""
    def forward(self, x):
        b, h, w, c = x.shape
        ph, pw = (4 - h % 4) % 4, (4 - w % 4) % 4
        x = F.pad(x, (0, 0, 0, pw, 0, ph))
        H, W = x.shape[1], x.shape[2]
        return x.view(b, H // 4, 4, W // 4, 4, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, 16, c)


class Conv1dText(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.Embedding(100, 16)
        self.c = nn.Conv1d(16, 8, 5)

    def forward(self, t):
        return self.c(self.e(t).transpose(1, 2)).amax(-1)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.d = nn.TransformerDecoderLayer(32, 4, 64, batch_first=True, dropout=0.0)

    def forward(self, tgt, memory):
        return self.d(tgt, memory)


class Squeeze(nn.Module):
    def forward(self, x):
        return x.mean(1).squeeze(1)


class Stride(nn.Module):
    def forward(self, x):
        return x[:, ::2] - x[:, 1::2]


class Tagger(nn.Module):
    """A bidirectional LSTM tagger over variable-length token sequences."""
    def __init__(self):
        super().__init__()
        self.e = nn.Embedding(100, 16)
        self.l = nn.LSTM(16, 8, batch_first=True, bidirectional=True)
        self.o = nn.Linear(16, 5)

    def forward(self, t):
        return self.o(self.l(self.e(t))[0])


class SuperRes(nn.Module):
    """ESPCN-style: conv to 4*C channels, pixel_shuffle(2)."""
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 12, 3, padding=1)

    def forward(self, x):
        return F.pixel_shuffle(self.c(x), 2)


class TvSeg(nn.Module):
    """torchvision's LR-ASPP segmentation model (MobileNetV3-Large backbone, random weights),
    its "out" map: the classifier upsampled back to the input size."""
    def __init__(self):
        super().__init__()
        from torchvision.models.segmentation import lraspp_mobilenet_v3_large
        self.m = lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=3)

    def forward(self, x):
        return self.m(x)["out"]


class TvRetinaHead(nn.Module):
    """torchvision's RetinaNet detection head over two pyramid levels: class logits and box
    regression per anchor, concatenated over the levels."""
    def __init__(self):
        super().__init__()
        from torchvision.models.detection.retinanet import RetinaNetHead
        self.h = RetinaNetHead(16, 3, 4)

    def forward(self, p3, p4):
        o = self.h([p3, p4])
        return o["cls_logits"], o["bbox_regression"]


def _img(name, ch=3, lo=8, hi=96, b=(1, 4)):
    return dict(make=lambda p: {"x": torch.randn(p[0], ch, p[1], p[2])},
                sizes=lambda p: {"x": [p[0], ch, p[1], p[2]]},
                gen=lambda r: (r.randint(*b), r.randint(lo, hi), r.randint(lo, hi)))


def models():
    import torchvision.models as tvm
    from torchvision.models import MobileNetV2
    m = {}
    m["resnet18"] = dict(build=lambda: tvm.resnet18(), example=(2, 64, 72), **_img("resnet18", lo=8, hi=120))
    m["mobilenet_v2_small"] = dict(build=lambda: MobileNetV2(width_mult=0.25, inverted_residual_setting=[
        [1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 1, 2]]), example=(2, 48, 40), **_img("mbv2", lo=4, hi=120))
    m["squeezenet_small"] = dict(build=lambda: tvm.squeezenet1_1(num_classes=10), example=(2, 64, 72),
                                 **_img("sq", lo=8, hi=120))
    m["shufflenet_small"] = dict(build=lambda: tvm.ShuffleNetV2([1, 1, 1], [8, 16, 32, 64, 128], num_classes=10),
                                 example=(2, 64, 72), **_img("shuf", lo=8, hi=120))
    m["unet_crop"] = dict(build=UNet, example=(2, 36, 44), **_img("unet", lo=4, hi=90))
    m["patch_embed"] = dict(build=Patches, example=(2, 32, 40), **_img("patch", lo=2, hi=72))
    m["fpn_topdown"] = dict(build=Pyramid, example=(2, 32, 40), **_img("fpn", lo=2, hi=80))
    m["seg_head"] = dict(build=SegHead, example=(2, 32, 40), **_img("seg", lo=2, hi=80))
    m["det_head"] = dict(build=DetHead, example=(2, 20, 24), **_img("det", lo=1, hi=60))
    m["video_conv3d"] = dict(build=Video, example=(2, 6, 16, 20),
                             make=lambda p: {"x": torch.randn(p[0], 3, p[1], p[2], p[3])},
                             sizes=lambda p: {"x": [p[0], 3, p[1], p[2], p[3]]},
                             gen=lambda r: (r.randint(1, 3), r.randint(1, 10), r.randint(1, 24), r.randint(1, 24)))
    m["transformer_encoder"] = dict(
        build=lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, batch_first=True, dropout=0.0), 2,
                                            enable_nested_tensor=False),
        example=(2, 10), make=lambda p: {"src": torch.randn(p[0], p[1], 32)}, sizes=lambda p: {"src": [p[0], p[1], 32]},
        gen=lambda r: (r.randint(1, 6), r.randint(1, 64)))
    m["transformer_decoder"] = dict(
        build=Decoder, example=(2, 10, 7, 0),
        make=lambda p: {"tgt": torch.randn(p[0], p[1], 32), "memory": torch.randn(p[0] + p[3], p[2], 32)},
        sizes=lambda p: {"tgt": [p[0], p[1], 32], "memory": [p[0] + p[3], p[2], 32]},
        gen=lambda r: (r.randint(1, 5), r.randint(1, 40), r.randint(1, 40), r.choice([0, 0, 0, 1])))
    m["branchy"] = dict(build=Branchy, example=(2, 12), make=lambda p: {"x": torch.randn(p[0], p[1], 16)},
                        sizes=lambda p: {"x": [p[0], p[1], 16]}, gen=lambda r: (r.randint(1, 6), r.randint(1, 30)))
    m["heads_check"] = dict(build=Heads, example=(2, 16), make=lambda p: {"x": torch.randn(p[0], p[1], 8)},
                            sizes=lambda p: {"x": [p[0], p[1], 8]}, gen=lambda r: (r.randint(1, 6), r.randint(1, 64)))
    m["cat2"] = dict(build=Cat2, example=(2, 3, 5, 0),
                     make=lambda p: {"x": torch.randn(p[0], p[1]), "y": torch.randn(p[0] + p[3], p[2])},
                     sizes=lambda p: {"x": [p[0], p[1]], "y": [p[0] + p[3], p[2]]},
                     gen=lambda r: (r.randint(1, 8), r.randint(1, 8), r.randint(1, 8), r.choice([0, 0, 1])))
    m["window_partition"] = dict(build=Windows, example=(2, 14, 10),
                                 make=lambda p: {"x": torch.randn(p[0], p[1], p[2], 8)},
                                 sizes=lambda p: {"x": [p[0], p[1], p[2], 8]},
                                 gen=lambda r: (r.randint(1, 4), r.randint(1, 40), r.randint(1, 40)))
    m["conv1d_text"] = dict(build=Conv1dText, example=(2, 20), make=lambda p: {"t": torch.randint(0, 100, (p[0], p[1]))},
                            sizes=lambda p: {"t": [p[0], p[1]]}, gen=lambda r: (r.randint(1, 6), r.randint(1, 40)))
    m["squeeze_mean"] = dict(build=Squeeze, example=(2, 3, 5), make=lambda p: {"x": torch.randn(p[0], p[1], p[2])},
                             sizes=lambda p: {"x": [p[0], p[1], p[2]]},
                             gen=lambda r: (r.randint(1, 4), r.randint(1, 4), r.randint(1, 4)))
    m["strided_diff"] = dict(build=Stride, example=(2, 6), make=lambda p: {"x": torch.randn(p[0], p[1])},
                             sizes=lambda p: {"x": [p[0], p[1]]}, gen=lambda r: (r.randint(1, 5), r.randint(1, 30)))
    m["lstm_tagger"] = dict(build=Tagger, example=(2, 12), make=lambda p: {"t": torch.randint(0, 100, (p[0], p[1]))},
                            sizes=lambda p: {"t": [p[0], p[1]]}, gen=lambda r: (r.randint(1, 6), r.randint(1, 40)))
    m["tv_lraspp_seg"] = dict(build=TvSeg, example=(2, 64, 72), **_img("lraspp", lo=8, hi=120))
    m["tv_retinanet_head"] = dict(
        build=TvRetinaHead, example=(2, 20, 24, 10, 12),
        make=lambda p: {"p3": torch.randn(p[0], 16, p[1], p[2]), "p4": torch.randn(p[0], 16, p[3], p[4])},
        sizes=lambda p: {"p3": [p[0], 16, p[1], p[2]], "p4": [p[0], 16, p[3], p[4]]},
        gen=lambda r: (r.randint(1, 3), r.randint(1, 40), r.randint(1, 40), r.randint(1, 20), r.randint(1, 20)))
    m["tv_r3d_18"] = dict(build=lambda: __import__("torchvision.models.video", fromlist=["r3d_18"]).r3d_18(num_classes=5),
                          example=(2, 4, 32, 40),
                          make=lambda p: {"x": torch.randn(p[0], 3, p[1], p[2], p[3])},
                          sizes=lambda p: {"x": [p[0], 3, p[1], p[2], p[3]]},
                          gen=lambda r: (r.randint(1, 2), r.randint(1, 8), r.randint(4, 48), r.randint(4, 48)))
    m["espcn"] = dict(build=SuperRes, example=(2, 20, 24), **_img("espcn", lo=1, hi=60))
    return m


# ----------------------------------------------------------------------------- the two sides
def torch_acceptor(ep):
    """A function {name: tensor} -> bool: the exported program's input checks (static dims,
    shared symbols, range_constraints, ep._guards_code)."""
    import sympy
    names = [s.arg.name for s in ep.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
    vals = {n.name: n.meta.get("val") for n in ep.graph.nodes if n.op == "placeholder"}
    rc = dict(ep.range_constraints)
    code = [compile(g, "<guard>", "eval") for g in (getattr(ep, "_guards_code", None) or [])]

    def accept(inputs):
        env = {}
        derived = []
        for n in names:
            v, t = vals[n], inputs[n]
            if not isinstance(v, torch.Tensor):
                continue
            if v.dim() != t.dim():
                return False
            for i, s in enumerate(v.shape):
                if isinstance(s, int):
                    if t.shape[i] != s:
                        return False
                    continue
                e = s.node.expr
                if isinstance(e, sympy.Symbol):
                    if env.setdefault(e, t.shape[i]) != t.shape[i]:
                        return False
                else:
                    derived.append((e, t.shape[i]))
        for e, size in derived:
            free = e.free_symbols
            if all(f in env for f in free):
                if int(e.xreplace({k: sympy.Integer(v) for k, v in env.items()})) != size:
                    return False
            elif len(free) == 1:  # a symbol seen only in a*s + b
                f = next(iter(free))
                sol = sympy.solve(sympy.Eq(e, size), f)
                if len(sol) != 1 or not sol[0].is_Integer:
                    return False
                env[f] = int(sol[0])
        for e, r in rc.items():
            if not all(f in env for f in e.free_symbols):
                continue
            x = int(e.xreplace({k: sympy.Integer(v) for k, v in env.items()}))
            lo, hi = r.lower, r.upper
            if (lo.is_Integer and x < int(lo)) or (hi.is_Integer and x > int(hi)):
                return False
        L = {n: inputs[n] for n in names}
        for c in code:
            if not eval(c, {"L": L, "torch": torch, "math": __import__("math")}):
                return False
        return True
    return accept


def torch_guard_count(ep):
    """static dims, shared-symbol equalities, finite range bounds, guards code."""
    import sympy
    static = eq = 0
    seen = set()
    for n in ep.graph.nodes:
        v = n.meta.get("val") if n.op == "placeholder" else None
        if not isinstance(v, torch.Tensor) or n.name not in {s.arg.name for s in ep.graph_signature.input_specs
                                                              if s.kind.name == "USER_INPUT"}:
            continue
        for s in v.shape:
            if isinstance(s, int):
                static += 1
            elif isinstance(s.node.expr, sympy.Symbol) and s.node.expr in seen:
                eq += 1
            else:
                seen.add(s.node.expr)
    rng = sum((r.lower.is_Integer and int(r.lower) > 0) + (r.upper.is_Integer and 1) for r in ep.range_constraints.values())
    return {"static": static, "equality": eq, "range": rng, "code": len(getattr(ep, "_guards_code", None) or [])}


# ----------------------------------------------------------------------------- torch.compile(dynamic=True)
def guard_kind(text):
    """The kind of one shape guard, the same classifier for both systems (issue 35 asks for guards
    counted by kind): "static" (one size pinned to a constant), "0/1" (a size or an expression of sizes tested against 0 or 1: `2 <= s`,
    `e != 1`), "duck equality" (two input sizes equal), "divisibility" (`e % k == 0`), "range" (one
    size against a constant), "relation" (anything else between sizes), "layout" (a stride)."""
    import re
    t = text.split("  #")[0].strip()
    if "stride()" in t:
        return "layout"
    if ("%" in t or "Mod(" in t) and t.endswith("== 0"):
        return "divisibility"
    nsize = len(re.findall(r"\.size\(\)\[\d+\]|\.shape\[\d+\]", t))
    if nsize == 1 and re.fullmatch(r"[\w\[\]'.()]+ == \d+", t):
        return "static"
    if nsize == 2 and re.fullmatch(r"[\w\[\]'.()]+ == [\w\[\]'.()]+", t):
        return "duck equality"
    if re.match(r"(2 <=|1 <) ", t) or re.search(r" (>= 2|> 1|!= 1|!= 0)$", t):
        return "0/1"
    if nsize == 1 and (re.match(r"-?\d+ (<=?|==|!=) ", t) or re.search(r" (<=?|>=?|==|!=) -?\d+$", t)):
        return "range"
    return "relation"


class CompileSide:
    """torch.compile(model, backend="eager", dynamic=True) compiled once at the example; a point is
    accepted when the compiled model runs it WITHOUT recompiling: with
    torch._dynamo.config.error_on_recompile a failed guard of any compiled frame (the model's
    forward and the resume frames after a graph break) raises RecompileError instead of compiling
    again, and the guard failure hook (guard_fail_fn) names the guard. The guards are read from
    the "guards" log artifact (the guard tree of every compiled frame)."""

    def __init__(self, model, example):
        import logging
        import torch._dynamo as D
        self.D, self.model = D, model
        self.fails, msgs = [], []

        class _H(logging.Handler):
            def emit(self, rec):
                msgs.append(rec.getMessage())
        D.reset()
        lg = logging.getLogger("torch._dynamo.guards.__guards")
        h, prop = _H(), lg.propagate
        torch._logging.set_logs(guards=True)
        lg.addHandler(h)
        lg.propagate = False
        try:
            self.cm = D.optimize("eager", dynamic=True, guard_fail_fn=lambda gf: self.fails.append(gf.reason))(model)
            with torch.no_grad():
                self.cm(**example)
        finally:
            lg.removeHandler(h)
            lg.propagate = prop
            torch._logging.set_logs()
        self.frames = sum("TREE_GUARD_MANAGER" in m for m in msgs)
        self.guards = []  # (kind, text)
        self.static = 0
        names = set(example)
        for m in msgs:
            for line in m.splitlines():
                if "LAMBDA_GUARD:" in line and ".size()" in line:
                    t = line.split("LAMBDA_GUARD:", 1)[1].split("  #")[0].strip()
                    self.guards.append((guard_kind(t), t))
                elif "TENSOR_MATCH:" in line:
                    src = line.split("check_tensor(", 1)[1].split(",", 1)[0]
                    if src.startswith("L['") and src[3:-2] in names:
                        sz = line.split("size=[", 1)[1].split("]", 1)[0]
                        self.static += sum(1 for v in sz.split(",") if v.strip() not in ("None", ""))

    def kinds(self):
        k = {}
        if self.static:
            k["static"] = self.static
        for kind, _ in self.guards:
            k[kind] = k.get(kind, 0) + 1
        return k

    def accepts(self, inputs):
        """(accepted, runs, failed guard): runs only meaningful when accepted."""
        D = self.D
        n = len(self.fails)
        D.config.error_on_recompile = True
        try:
            with torch.no_grad():
                self.cm(**inputs)
            ok = True
        except D.exc.RecompileError:
            return False, False, self.fails[n] if len(self.fails) > n else "?"
        except Exception:  # noqa: BLE001 - accepted by the guards, the model fails at this size
            ok = False
        finally:
            D.config.error_on_recompile = False
        if len(self.fails) > n:  # a guard failed and the frame fell back without raising
            return False, False, self.fails[n]
        return True, ok, None

    def close(self):
        self.D.reset()


def run_real(model, inputs):
    try:
        with torch.no_grad():
            out = model(**inputs)
    except Exception as e:  # noqa: BLE001 - the model cannot run at this size
        return False, str(e).splitlines()[0] if str(e) else type(e).__name__
    res = []

    def walk(v):
        if isinstance(v, torch.Tensor):
            res.append(list(v.shape))
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
    walk(out)
    return True, res


def compare(name, spec, npoints, with_compile=True, with_from_exported=False):
    torch.manual_seed(0)
    model = spec["build"]().eval()
    ex = spec["make"](spec["example"])
    t0 = time.perf_counter()
    ds = {k: {i: torch.export.Dim.AUTO for i in range(v.dim())} for k, v in ex.items()}
    with torch.no_grad():
        ep = torch.export.export(model, (), kwargs=ex, dynamic_shapes=ds)
    t1 = time.perf_counter()
    doc = symshape.export(model, ex, name=name)
    gs = symshape.trace(doc)
    t2 = time.perf_counter()
    tacc = torch_acceptor(ep)
    gse = None
    if with_from_exported:  # symshape reading PyTorch's own program (issue 35: must work on every model)
        try:
            gse = symshape.from_exported(ep.run_decompositions(), name=name)
            fe_error = None
        except Exception as e:  # noqa: BLE001 - reported per model
            fe_error = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:300] if str(e) else "")
    cside = None
    if with_compile:
        t3 = time.perf_counter()
        cside = CompileSide(model, ex)
        t4 = time.perf_counter()
    r = random.Random(zlib.crc32(name.encode()))
    pts = [spec["gen"](r) for _ in range(npoints)]
    row = dict(model=name, points=len(pts), both=0, only_torch=0, only_symshape=0, neither=0, torch_ok=0,
               sym_viol=0, torch_viol=0, torch_export_s=t1 - t0, symshape_s=t2 - t1)
    examples = {"only_torch": [], "only_symshape": [], "sym_viol": [], "torch_viol": []}
    if cside:
        row.update(c_both=0, c_only_compile=0, c_only_symshape=0, c_neither=0, compile_viol=0, compile_s=t4 - t3,
                   compile_frames=cside.frames, c_reject_by={})
        examples.update(c_only_compile=[], c_only_symshape=[], compile_viol=[])
    if with_from_exported:
        row.update(fe_error=fe_error, fe_accepted=0, fe_viol=0, fe_beyond_torch=0)
        examples.update(fe_viol=[], fe_beyond_torch=[])
    clock = time.perf_counter
    spent = dict(export_check=0.0, symshape_check=0.0, real=0.0, compile_run=0.0)
    for p in pts:
        inputs = spec["make"](p)
        sizes = spec["sizes"](p)
        c0 = clock()
        a_t = tacc(inputs)
        c1 = clock()
        a_s = gs.check(sizes)[0]
        c2 = clock()
        ok, real = run_real(model, inputs)
        c3 = clock()
        spent["export_check"] += c1 - c0
        spent["symshape_check"] += c2 - c1
        spent["real"] += c3 - c2
        row["torch_ok"] += ok
        key = "both" if a_t and a_s else "only_torch" if a_t else "only_symshape" if a_s else "neither"
        row[key] += 1
        if key in examples and len(examples[key]) < 3:
            examples[key].append(sizes)
        if a_s and (not ok or gs.output_shapes(sizes) != real):
            row["sym_viol"] += 1
            examples["sym_viol"].append((sizes, real))
        if a_t and not ok:
            row["torch_viol"] += 1
            examples["torch_viol"].append((sizes, real))
        if gse is not None and gse.check(sizes)[0]:
            row["fe_accepted"] += 1
            if not ok or gse.output_shapes(sizes) != real:
                row["fe_viol"] += 1
                examples["fe_viol"].append((sizes, real))
            if not a_t:  # from_exported keeps the program's guards: a subset of PyTorch's points
                row["fe_beyond_torch"] += 1
                examples["fe_beyond_torch"].append(sizes)
        if cside:
            c4 = clock()
            a_c, c_ok, failed = cside.accepts(inputs)
            spent["compile_run"] += clock() - c4
            ck = "c_both" if a_c and a_s else "c_only_compile" if a_c else "c_only_symshape" if a_s else "c_neither"
            row[ck] += 1
            if ck in examples and len(examples[ck]) < 3:
                examples[ck].append((sizes, failed.split("  #")[0]) if failed else sizes)
            if ck == "c_only_symshape":  # why compile rejected a point the model runs: the failed guard's kind
                fk = guard_kind(failed.split(": ", 1)[1] if ": " in failed else failed)
                row["c_reject_by"][fk] = row["c_reject_by"].get(fk, 0) + 1
            if a_c and (not ok or not c_ok):
                row["compile_viol"] += 1
                examples["compile_viol"].append((sizes, real))
    kinds = {}
    for g in gs.guards:
        kinds[g.kind] = kinds.get(g.kind, 0) + 1
    row["sym_guards"] = len(gs) - kinds.get("tensor_match", 0)
    row["sym_kinds"] = {k: v for k, v in kinds.items() if k != "tensor_match"}
    tg = torch_guard_count(ep)
    row["torch_guards"] = sum(tg.values())
    row["torch_kinds"] = tg
    ek = row["export_by_kind"] = {}
    for r in ep.range_constraints.values():  # Dim.AUTO's [2, oo) is its 0/1 specialization
        for k, on in (("0/1", r.lower.is_Integer and int(r.lower) == 2), ("range", r.lower.is_Integer and int(r.lower) > 2),
                      ("range", r.upper.is_Integer)):
            if on:
                ek[k] = ek.get(k, 0) + 1
    for c in getattr(ep, "_guards_code", None) or []:
        k = guard_kind(c)
        ek[k] = ek.get(k, 0) + 1
    row["sym_by_kind"] = {}
    for g in gs.guards:
        if g.kind != "tensor_match":
            k = guard_kind(g.text)
            row["sym_by_kind"][k] = row["sym_by_kind"].get(k, 0) + 1
    if cside:
        row["compile_guards"] = sum(cside.kinds().values())
        row["compile_kinds"] = cside.kinds()
        cside.close()
    row["examples"] = examples
    row["spent_s"] = {k: round(v, 2) for k, v in spent.items()}
    return row


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=100)
    ap.add_argument("--only")
    ap.add_argument("--markdown")
    ap.add_argument("--no-compile", action="store_true", help="skip the torch.compile(dynamic=True) column")
    ap.add_argument("--from-exported", action="store_true",
                    help="also read each torch.export program with symshape.from_exported and check it at the points")
    a = ap.parse_args(argv)
    # one intra-op thread: the per-point model runs are small, and on a loaded machine the
    # thread pool's synchronization dominated them (espcn: 13.7 s for 120 points at 2 threads)
    torch.set_num_threads(1)
    ms = models()
    names = a.only.split(",") if a.only else list(ms)
    rows = []
    for n in names:
        try:
            row = compare(n, ms[n], a.points, not a.no_compile, a.from_exported)
        except Exception as e:  # noqa: BLE001 - one model's failure is a row, not the end
            print("%s: %s: %s" % (n, type(e).__name__, str(e).splitlines()[0][:300] if str(e) else ""), flush=True)
            rows.append(dict(model=n, error="%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "")))
            continue
        print(n, {k: v for k, v in row.items() if k != "examples"}, flush=True)
        for k, v in row["examples"].items():
            if v:
                print("   ", k, v[:3], flush=True)
        rows.append(row)
    lines = ["| model | points | torch runs | both | only torch | only symshape | neither | symshape violations | "
             "torch accepts, model fails | guards torch | guards symshape | symshape by kind |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append("| %s | %s |  |  |  |  |  |  |  |  |  |  |" % (r["model"], r["error"]))
            continue
        lines.append("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d (%s) | %d | %s |" % (
            r["model"], r["points"], r["torch_ok"], r["both"], r["only_torch"], r["only_symshape"], r["neither"],
            r["sym_viol"], r["torch_viol"], r["torch_guards"],
            ", ".join("%s %d" % kv for kv in r["torch_kinds"].items() if kv[1]), r["sym_guards"],
            ", ".join("%s %d" % kv for kv in sorted(r["sym_kinds"].items()))))
    crow = [r for r in rows if "c_both" in r]
    if crow:
        kinds = ("static", "0/1", "duck equality", "divisibility", "range", "relation", "layout")
        lines += ["", "| model | torch.compile: both | only compile | only symshape | neither | compile accepts, model fails "
                  "| frames | guards compile | only symshape: compile's failed guard | guards export by kind | guards symshape by kind |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in crow:
            lines.append("| %s | %d | %d | %d | %d | %d | %d | %d (%s) | %s | %s | %s |" % (
                r["model"], r["c_both"], r["c_only_compile"], r["c_only_symshape"], r["c_neither"], r["compile_viol"],
                r["compile_frames"], r["compile_guards"],
                ", ".join("%s %d" % (k, r["compile_kinds"][k]) for k in kinds if r["compile_kinds"].get(k)),
                ", ".join("%s %d" % kv for kv in sorted(r["c_reject_by"].items())),
                ", ".join("%s %d" % (k, r["export_by_kind"][k]) for k in kinds if r["export_by_kind"].get(k)),
                ", ".join("%s %d" % (k, r["sym_by_kind"][k]) for k in kinds if r["sym_by_kind"].get(k))))
        tot = {k: sum(r[k] for r in crow) for k in ("points", "c_both", "c_only_compile", "c_only_symshape",
                                                    "c_neither", "compile_viol")}
        lines.append("| **all %d** | %d | %d | %d | %d | %d |  |  |  |  |  |" % (
            len(crow), tot["c_both"], tot["c_only_compile"], tot["c_only_symshape"], tot["c_neither"],
            tot["compile_viol"]))
    frow = [r for r in rows if "fe_error" in r]
    if frow:
        lines += ["", "| model | from_exported | accepted | violations | accepted beyond torch.export |", "|---|---|---|---|---|"]
        for r in frow:
            lines.append("| %s | %s | %d | %d | %d |" % (r["model"], r["fe_error"] or "ok", r["fe_accepted"], r["fe_viol"],
                                                     r["fe_beyond_torch"]))
    text = "\n".join(lines)
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text + "\n")
    return 1 if any(r.get("sym_viol") or r.get("fe_viol") for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
