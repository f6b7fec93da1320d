#!/usr/bin/python3
"""A second, independent ground truth (issue 10): real models on the CPU.

For each model - torchvision models whose captured graphs are in the corpus
(resnet18, squeezenet1_0, mobilenet_v2, shufflenet_v2_x1_0, convnext_tiny,
googlenet; with random weights) and small hand-made nets with reflect/replicate
padding, k=5 convolutions, a 4x4 stride-4 stem, ceil-mode pooling and
upsampling (their graphs written here from the same layer list as the module) -
sample input sizes, ask `symshape probe` (default options and
--no-duck-sizing) which it accepts, and run the real model on the CPU at every
accepted point whose input holds at most 1e5 elements. An accepted point where
the CPU fails, or where the output shapes differ, is a failure.

usage: test_real_models.py SYMSHAPE_CLI CORPUS_DIR [CORPUS_DIR ...]
(SY_SKIP_TORCH_TESTS=1: skip, exit 77). A corpus model missing from every
CORPUS_DIR is skipped; at least 6 models must run.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

if os.environ.get("SY_SKIP_TORCH_TESTS") == "1":
    sys.exit(77)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import torchvision  # noqa: E402

torch.set_num_threads(1)
torch.manual_seed(0)
CLI, DIRS = sys.argv[1], sys.argv[2:]
MAX_ELEMS = 100_000
rng = random.Random(10)


# ---------------------------------------------------------------- hand-made nets
class Net(nn.Module):
    """A sequence of layers, exported to the graph format by graph()."""

    def __init__(self, name, cin, layers):
        super().__init__()
        self.name, self.cin, self.spec = name, cin, layers
        mods, c = [], cin
        for L in layers:
            if L[0] == "conv":
                _, cout, k, s, p, mode = L
                mods.append(nn.Conv2d(c, cout, k, stride=s, padding=p, padding_mode=mode))
                c = cout
            elif L[0] == "head":
                mods.append(nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(1), nn.Linear(c, L[1])))
            else:
                mods.append(None)
        self.mods = nn.ModuleList([m if m is not None else nn.Identity() for m in mods])

    def forward(self, x):
        for L, m in zip(self.spec, self.mods):
            if L[0] in ("conv", "head"):
                x = m(x)
            elif L[0] == "relu":
                x = F.relu(x)
            elif L[0] == "pad":
                x = F.pad(x, L[1], mode=L[2])
            elif L[0] == "maxpool":
                x = F.max_pool2d(x, L[1], stride=L[2], padding=L[3], ceil_mode=L[4])
            elif L[0] == "avgpool":
                x = F.avg_pool2d(x, L[1], stride=L[2], padding=L[3], ceil_mode=L[4])
            elif L[0] == "up":
                x = F.interpolate(x, scale_factor=L[1], mode=L[2])
        return x

    def graph(self, example):
        nodes = [{"name": "x", "op": "input", "dtype": "float32", "shape": example, "dynamic": [0, 2, 3]}]
        cur = "x"
        for i, (L, m) in enumerate(zip(self.spec, self.mods)):
            n = f"n{i}"
            if L[0] == "conv":
                _, cout, k, s, p, mode = L
                nodes += [{"name": f"{n}_w", "op": "param", "dtype": "float32", "shape": list(m.weight.shape)},
                          {"name": f"{n}_b", "op": "param", "dtype": "float32", "shape": [cout]}]
                pad = p
                if mode != "zeros":  # nn.Conv2d: F.pad(x, reversed padding twice, mode) then padding 0
                    nodes.append({"name": f"{n}_pad", "op": "pad", "args": [{"ref": cur}, [p, p, p, p]], "kwargs": {"mode": mode}})
                    cur, pad = f"{n}_pad", 0
                nodes.append({"name": n, "op": "conv2d", "args": [{"ref": cur}, {"ref": f"{n}_w"}, {"ref": f"{n}_b"}],
                              "kwargs": {"stride": s, "padding": pad, "dilation": 1, "groups": 1}})
            elif L[0] == "relu":
                nodes.append({"name": n, "op": "relu", "args": [{"ref": cur}]})
            elif L[0] == "pad":
                nodes.append({"name": n, "op": "pad", "args": [{"ref": cur}, L[1]], "kwargs": {"mode": L[2]}})
            elif L[0] in ("maxpool", "avgpool"):
                nodes.append({"name": n, "op": "max_pool2d" if L[0] == "maxpool" else "avg_pool2d", "args": [{"ref": cur}, L[1]],
                              "kwargs": {"stride": L[2], "padding": L[3], "ceil_mode": L[4]}})
            elif L[0] == "up":
                nodes.append({"name": n, "op": "interpolate", "args": [{"ref": cur}], "kwargs": {"scale_factor": L[1], "mode": L[2]}})
            elif L[0] == "head":
                lin = m[2]
                nodes += [{"name": f"{n}_p", "op": "adaptive_avg_pool2d", "args": [{"ref": cur}, 1]},
                          {"name": f"{n}_f", "op": "flatten", "args": [{"ref": f"{n}_p"}, 1]},
                          {"name": f"{n}_w", "op": "param", "dtype": "float32", "shape": list(lin.weight.shape)},
                          {"name": f"{n}_b", "op": "param", "dtype": "float32", "shape": list(lin.bias.shape)},
                          {"name": n, "op": "linear", "args": [{"ref": f"{n}_f"}, {"ref": f"{n}_w"}, {"ref": f"{n}_b"}]}]
            cur = n
        return {"format": "symshape.graph", "version": 1, "torch_version": torch.__version__, "name": self.name, "origin": "tests/kernels/test_real_models.py",
                "nodes": nodes, "outputs": [{"ref": cur}]}


NETS = [
    Net("reflect_k5", 3, [("conv", 8, 5, 1, 2, "reflect"), ("relu",), ("conv", 8, 5, 2, 0, "zeros"), ("pad", [0, 5, 0, 5], "reflect"),
                          ("conv", 4, 3, 1, 1, "reflect"), ("head", 10)]),
    Net("stem4x4", 3, [("conv", 8, 4, 4, 0, "zeros"), ("relu",), ("conv", 16, 2, 2, 0, "zeros"), ("conv", 16, 2, 2, 0, "zeros"),
                       ("head", 10)]),
    Net("pool_ceil", 3, [("conv", 8, 3, 2, 0, "zeros"), ("maxpool", 3, 2, 0, True), ("conv", 8, 3, 1, 1, "replicate"),
                         ("avgpool", 3, 2, 1, True), ("maxpool", 2, 2, 0, False), ("head", 10)]),
    Net("upsample_pad", 3, [("conv", 4, 3, 2, 1, "zeros"), ("up", 2.0, "nearest"), ("pad", [1, 2, 1, 2], "replicate"),
                            ("conv", 4, 5, 1, 0, "zeros"), ("up", 0.5, "bilinear"), ("conv", 4, 3, 1, 0, "circular")]),
]

TV = {"resnet18": lambda: torchvision.models.resnet18(),
      "squeezenet1_0": lambda: torchvision.models.squeezenet1_0(),
      "mobilenet_v2": lambda: torchvision.models.mobilenet_v2(),
      "shufflenet_v2_x1_0": lambda: torchvision.models.shufflenet_v2_x1_0(),
      "convnext_tiny": lambda: torchvision.models.convnext_tiny(),
      "googlenet": lambda: torchvision.models.googlenet(aux_logits=False, init_weights=False)}


def sample_points(n):
    """Small sizes, half of them square (duck sizing makes H == W a guard)."""
    pts = set()
    while len(pts) < n:
        b = rng.choice([1, 2])
        h = rng.choice([rng.randint(1, 40), rng.randint(1, 40), rng.randint(41, 180)])
        w = h if rng.random() < 0.5 else rng.choice([rng.randint(1, 40), rng.randint(41, 180)])
        if b * 3 * h * w <= MAX_ELEMS:
            pts.add((b, 3, h, w))
    return sorted(pts)


def flat_shapes(out):
    if isinstance(out, torch.Tensor):
        return [list(out.shape)]
    if isinstance(out, (tuple, list)):
        return [s for o in out for s in flat_shapes(o)]
    return []


failures, rows = 0, []
with tempfile.TemporaryDirectory() as tmp:
    models = []
    for name, make in TV.items():
        path = next((os.path.join(d, name + ".json") for d in DIRS if os.path.exists(os.path.join(d, name + ".json"))), None)
        if path:
            models.append((name, path, make))
        else:
            print(f"note: {name}: no captured graph in {DIRS}, skipped")
    for net in NETS:
        path = os.path.join(tmp, net.name + ".json")
        with open(path, "w") as f:
            json.dump(net.graph([2, 3, 64, 64]), f)
        models.append((net.name, path, lambda net=net: net))
    for name, path, make in models:
        pts = sample_points(36)
        pp = os.path.join(tmp, name + ".points.json")
        with open(pp, "w") as f:
            json.dump({"points": [{"sizes": {"x": list(p)}} for p in pts]}, f)
        accepted = {}
        for opts in ([], ["--no-duck-sizing"]):
            r = subprocess.run([CLI, "probe", path, "--points", pp, "--json"] + opts, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"FAIL {name}: probe {' '.join(opts)} exited {r.returncode}: {r.stderr.strip()[:300]}")
                failures += 1
                continue
            for p, line in zip(pts, r.stdout.splitlines()):
                res = json.loads(line)
                if res["accept"]:
                    accepted.setdefault(p, res["outputs"])
        model = make().eval()
        ran = ok = 0
        for p, want in sorted(accepted.items()):
            ran += 1
            try:
                with torch.no_grad():
                    got = flat_shapes(model(torch.randn(*p)))
            except Exception as e:  # noqa: BLE001 - a CPU failure at an accepted point is the bug we test for
                print(f"FAIL {name} x={list(p)}: accepted, but the CPU fails: {str(e).splitlines()[0][:200]}")
                failures += 1
                continue
            if got != want:
                print(f"FAIL {name} x={list(p)}: accepted with outputs {want}, the CPU gives {got}")
                failures += 1
                continue
            ok += 1
        rows.append((name, len(pts), len(accepted), ok))
    print("model                 sampled  accepted  CPU ran (of accepted)")
    for name, n, a, ok in rows:
        print(f"{name:22s} {n:7d} {a:9d} {ok:9d}")
    if len(rows) < 6:
        print(f"FAIL only {len(rows)} models ran (need >= 6)")
        failures += 1
    print(f"{len(rows)} models, {sum(r[2] for r in rows)} accepted points run on the CPU, {failures} failures")
    sys.exit(1 if failures else 0)
