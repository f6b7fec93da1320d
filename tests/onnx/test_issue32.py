"""Issue 32, the ONNX side, against onnxruntime (the ground truth):
  - a KV-cache decoder (total_seq == past_seq + seq): symshape infer traces it although the
    default example (224 for every dim) does not run it, names the relation it needs as a guard
    over the dim names, and never shows the env's symbols (s0, s1, ...) in a reason or an error;
    its guards accept exactly the points onnxruntime runs (>= 20 sizes, related and unrelated,
    default and relaxed policy): 0 soundness violations, 0 sizes thrown away;
  - flip (Slice with step -1) and Resize: every value's shape (infer --json, and the value_info
    that infer -o writes) is the simplified expression (no Max from the Slice clamp) and equals
    onnxruntime's shape at >= 20 sizes, sizes the formula-limit guards never decide included;
  - the Resize float-scale bounds (d <= 2^24) are named as symshape's limits, never reported as
    violations of a dynamic-dim spec, and never "required";
  - Slice with a positive step (x[:, :, 1:], [:-1], [2::2], [-3:]) by the rule both frontends share:
    every value's shape equals onnxruntime's at 24 sizes (0, 1, 2, 3 included), and the relaxed
    policy throws no size away;
  - Slice with a negative step by the same shared rule (sy_rule_slice_len_onnx: ONNX clamps the
    start to [0, dim - 1], Python to [-1, dim - 1]): flips with torch's ends (-INT64_MAX, INT64_MIN),
    [::-2], [-2:0:-1], [5:-10:-3], [-10:-10:-1] (onnxruntime takes element 0, Python nothing):
    every value's shape equals onnxruntime's at 26 sizes (0, 1, 2 included), no guard from a
    clamp, and the relaxed policy throws no size away;
  - halves of one dim in one sum (x[::2] next to x[n // 2 + 1:], concatenated): every shape, in
    infer --json and in the value_info of infer -o, holds at most one division atom of n under the
    default policy (2*n + Mod(n, 2) - 2, not 2*n - FloorDiv(n, 2) + CeilDiv(n, 2) - 2) and equals
    onnxruntime's at 24 sizes (0..11 included under the relaxed policy, whose shapes keep the
    slices' clamps for n = 0, 1); 0 violations, and the relaxed policy throws no size away.
usage: test_issue32.py SYMSHAPE CACHE_DIR   (SY_SKIP_TORCH_TESTS=1 or no onnxruntime: skip, exit 77)
"""
import ortcheck
ortcheck.skip_if_opted_out()
import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402

import torch
import onnx
ort = ortcheck.onnxruntime(3)

SYM, WORK, CHECKS, sh = ortcheck.start("issue32-torch-" + torch.__version__)
check = CHECKS.check
RELAXED = ["--no-duck-sizing", "--no-specialize-01"]
rng = random.Random(32)


class KV(torch.nn.Module):
    """one attention step of a decoder with a KV cache: keys and values are the cache (past_seq)
    concatenated with the new tokens' (seq); the attention mask covers both (total_seq)"""
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = (torch.nn.Linear(64, 64) for _ in range(3))

    def forward(self, x, past_k, past_v, mask):
        b, n, _ = x.shape
        q = self.q(x).view(b, n, 4, 16).transpose(1, 2)
        k = torch.cat([past_k, self.k(x).view(b, n, 4, 16).transpose(1, 2)], 2)
        v = torch.cat([past_v, self.v(x).view(b, n, 4, 16).transpose(1, 2)], 2)
        a = q @ k.transpose(-1, -2) / 4.0 + mask[:, None, None, :]
        return (a.softmax(-1) @ v).transpose(1, 2).reshape(b, n, 64), k, v


class FlipResize(torch.nn.Module):
    def forward(self, x):
        return torch.flip(x, [2]), torch.nn.functional.interpolate(x, scale_factor=2.0, mode="nearest")


def export(name, m, args, names, dyn):
    return ortcheck.torch_export(os.path.join(WORK, name + ".onnx"), m, args, names, dyn)


def session(path, extra=()):
    return ortcheck.session(ort, path, extra)


run = ortcheck.shapes_at
evaluate = ortcheck.evaluate


def probe(path, points, flags):
    """symshape probe's accept per point, against onnxruntime: (accepted, ran, violations, thrown away)"""
    plain = session(path)
    truth = []
    for p in points:
        o = run(plain, p)
        truth.append({"sizes": p, "ok": o is not None, **({"outputs": [o[x.name] for x in plain.get_outputs()]} if o else {})})
    pf = os.path.join(WORK, "points-%d.json" % rng.randrange(1 << 30))
    with open(pf, "w") as f:
        json.dump({"points": truth}, f)
    r = sh("probe", path, "--points", pf, "--json", *flags)
    check("probe %s %s exits 0" % (os.path.basename(path), flags), r.returncode == 0, r.stderr)
    lines = [json.loads(x) for x in r.stdout.splitlines()] if r.returncode == 0 else []
    acc = sum(1 for x in lines if x["accept"])
    ran = sum(1 for t in truth if t["ok"])
    viol = [x for x in lines if x.get("soundness_violation")]
    away = [t["sizes"] for t, x in zip(truth, lines) if t["ok"] and not x["accept"]]
    return acc, ran, viol, away, lines, truth


def values_match(path, flags, points, desc):
    """infer --json's values at each accepted point equal onnxruntime's shapes; returns the values"""
    r = sh("infer", path, "--json", *flags)
    check(desc + ": infer exits 0", r.returncode == 0, r.stderr)
    if r.returncode:
        return {}
    inf = json.loads(r.stdout)
    src = ortcheck.dim_sources(inf)
    sess = session(path, inf["values"])
    n = 0
    for p in points:
        got = run(sess, p)
        if got is None:
            continue
        env = {s: p[i][d] for s, (i, d) in src.items()}
        bad = [(v, dims) for v, dims in inf["values"].items() if v in got and [evaluate(d, env) for d in dims] != got[v]]
        check("%s at %s: every value's shape" % (desc, p), not bad, bad[:2])
        n += 1
    check(desc + ": >= 20 sizes run", n >= 20, n)
    return inf


# ---- 1. the KV-cache decoder
kv = export("kv_decoder", KV(), (torch.randn(2, 3, 64), torch.randn(2, 4, 5, 16), torch.randn(2, 4, 5, 16), torch.randn(2, 8)),
            ["x", "past_k", "past_v", "mask"],
            {"x": {0: "batch", 1: "seq"}, "past_k": {0: "batch", 2: "past_seq"}, "past_v": {0: "batch", 2: "past_seq"},
             "mask": {0: "batch", 1: "total_seq"}})


def kvp(b, n, p, t):
    return {"x": [b, n, 64], "past_k": [b, 4, p, 16], "past_v": [b, 4, p, 16], "mask": [b, t]}


pts = []
for _ in range(16):  # related: what a decoder is run at (prefill: past 0; decode: seq 1)
    b, n, p = rng.randint(1, 4), rng.choice([1, 1, rng.randint(2, 40)]), rng.choice([0, rng.randint(1, 60)])
    pts.append(kvp(b, n, p, p + n))
for _ in range(8):  # unrelated: onnxruntime refuses them (a broadcast of total_seq with past_seq + seq)
    b, n, p = rng.randint(1, 4), rng.randint(2, 20), rng.randint(1, 30)
    pts.append(kvp(b, n, p, p + n + rng.choice([-1, 1, 5])))
pts += [kvp(2, 224, 224, 448), kvp(1, 1, 0, 1), kvp(3, 1, 1, 2), kvp(2, 5, 7, 1)]  # the retried example, edges, mask of 1
for flags in ([], RELAXED):
    r = sh("infer", kv, *flags)
    check("kv %s: infer traces at a related example" % flags, r.returncode == 0, r.stderr)
    check("kv %s: the note names the example it traced at" % flags,
          "total_seq = 448 instead of 224" in r.stderr, r.stderr)
    rel = [ln for ln in r.stdout.splitlines() if "past_seq + seq == total_seq" in ln]
    check("kv %s: the relation is a guard over the dim names" % flags, len(rel) == 1, r.stdout[-1500:])
    check("kv %s: no internal symbol in a guard or a reason" % flags,
          not re.search(r"\bs\d+\b", r.stdout.split("guards:")[-1]), [ln for ln in r.stdout.splitlines() if re.search(r"\bs\d+\b", ln)][:3])
    acc, ran, viol, away, lines, truth = probe(kv, pts, flags)
    print("kv_decoder %s: %d points, onnxruntime runs %d, symshape accepts %d, %d violations, %d thrown away: %s" %
          ("relaxed" if flags else "default", len(pts), ran, acc, len(viol), len(away), away), file=sys.stderr)
    check("kv %s: 0 soundness violations" % flags, not viol, viol[:2])
    # the one branch the trace does not keep: the mask's total_seq == 1 broadcast against past_seq + seq
    # (the Add at the example took "equal"; a traced guard set keeps the branch of its example)
    other = [p for p in away if p["mask"][1] == 1 and p["past_k"][2] + p["x"][1] != 1]
    if flags:  # relaxed: every other size onnxruntime runs is accepted (past_seq 0 and seq 1 included)
        check("kv relaxed: no size thrown away but the mask's broadcast of 1", len(away) == len(other), away[:3])
    else:  # 0/1 specialization rejects a dim of 0 or 1 by policy (the default); nothing else
        check("kv default: only 0/1 sizes thrown away",
              all(min(p["x"][0], p["x"][1], p["past_k"][2], p["mask"][1]) < 2 for p in away), away[:3])
    check("kv %s: >= 20 points run" % flags, ran >= 20, ran)
values_match(kv, RELAXED, pts, "kv relaxed")
# the error at an example that does not run names the dims, not s0, s1, ...
r = sh("infer", kv, "--example", "x=2,3,64", "--example", "past_k=2,4,5,16", "--example", "mask=2,9")
check("kv, an example that does not run: exit 3 with the dim names", r.returncode == 3 and "past_seq + seq and total_seq" in r.stderr
      and not re.search(r"\bs\d+\b", r.stderr), r.stderr)

# ---- 2. flip and Resize: simplified shapes, written value_info, the limit guards
fr = export("flip_resize", FlipResize(), (torch.randn(2, 3, 20, 20),), ["x"], {"x": {0: "batch", 2: "h", 3: "w"}})
pts = [{"x": [rng.randint(1, 3), 3, rng.randint(1, 60), rng.randint(1, 60)]} for _ in range(22)] + \
      [{"x": [1, 3, 1, 1]}, {"x": [2, 3, 0, 5]}]
for flags in ([], RELAXED):
    inf = values_match(fr, flags, pts, "flip_resize %s" % flags)
    maxes = [(v, d) for v, d in inf.get("values", {}).items() if any(isinstance(x, str) and "Max(" in x for x in d)]
    check("flip_resize %s: no unsimplified Max in a shape" % flags, not maxes, maxes)
    lim = [g for g in inf.get("guards", []) if re.match(r"^(batch|h|w) <= 16777216$", g["guard"])]
    check("flip_resize %s: the Resize bounds are symshape's limits, not required" % flags,
          len(lim) == 3 and all(o.get("limit") and not o["required"] for g in lim for o in g["origins"]), lim)
    acc, ran, viol, away, _, _ = probe(fr, pts, flags)
    print("flip_resize %s: %d points, onnxruntime runs %d, symshape accepts %d, %d violations, %d thrown away" %
          ("relaxed" if flags else "default", len(pts), ran, acc, len(viol), len(away)), file=sys.stderr)
    check("flip_resize %s: 0 soundness violations" % flags, not viol, viol[:2])
    if flags:
        check("flip_resize relaxed: no size thrown away", not away, away[:3])
# a dynamic-dim spec: the limits are not the model's, so no violation (exit 0), and the text names them
for spec in ("x=0:batch,2:h,3:w", "x=0:batch@1..100000000,2:h,3:w"):
    r = sh("infer", fr, "--json", "--dynamic", spec)
    j = json.loads(r.stdout) if r.stdout.strip() else {}
    check("flip_resize --dynamic %s: no violation from symshape's limits" % spec, r.returncode == 0 and j.get("violations") == [],
          (r.returncode, j.get("violations"), r.stderr))
r = sh("infer", fr, "--dynamic", "x=0:batch,2:h,3:w")
check("flip_resize --dynamic: the text says whose limit it is",
      "a limit of symshape's formula, not of the model" in r.stdout and "violations of the dynamic-dim spec" not in r.stdout, r.stdout[-800:])
# infer -o: the written value_info (dim_params over the dim names) against onnxruntime
out = os.path.join(WORK, "flip_resize.out.onnx")
r = sh("infer", fr, "-o", out)
check("flip_resize infer -o exits 0", r.returncode == 0, r.stderr)
if r.returncode == 0:
    got = onnx.load(out)
    vis = {v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
           for v in list(got.graph.value_info) + list(got.graph.output)}
    check("flip_resize -o: no Max in a written dim", not any("Max(" in str(d) for d in vis.values()), vis)
    sess = session(out, vis)
    n = 0
    for p in pts:
        res = run(sess, p)
        if res is None:
            continue
        env = {"batch": p["x"][0], "h": p["x"][2], "w": p["x"][3]}
        bad = [(v, d) for v, d in vis.items() if v in res and [evaluate(x, env) for x in d] != res[v]]
        check("flip_resize -o at %s: value_info = onnxruntime's shapes" % p, not bad, bad[:2])
        n += 1
    check("flip_resize -o: >= 20 sizes run", n >= 20, n)

# ---- 3. Slice with a positive step: the rule the torch frontend shares (sy_rule_slice_len), no guard
class Slices(torch.nn.Module):
    def forward(self, x):
        return x[:, :, 1:], x[:, :, :-1], x[:, :, 2::2], x[:, :, -3:]


sl = export("slices", Slices(), (torch.randn(2, 3, 20),), ["x"], {"x": {0: "batch", 2: "n"}})
pts = [{"x": [rng.randint(1, 3), 3, rng.randint(0, 40)]} for _ in range(20)] + \
      [{"x": [1, 3, 0]}, {"x": [2, 3, 1]}, {"x": [1, 3, 2]}, {"x": [2, 3, 3]}]
for flags in ([], RELAXED):
    if flags:  # every point (0 and 1 stay symbolic; the default's n >= 2 rejects n = 0, 1 by a guard)
        values_match(sl, flags, pts, "slices %s" % flags)
    acc, ran, viol, away, _, _ = probe(sl, pts, flags)
    print("slices %s: %d points, onnxruntime runs %d, symshape accepts %d, %d violations, %d thrown away" %
          ("relaxed" if flags else "default", len(pts), ran, acc, len(viol), len(away)), file=sys.stderr)
    check("slices %s: 0 soundness violations" % flags, not viol, viol[:2])
    if flags:
        check("slices relaxed: no size thrown away", not away, away[:3])

# ---- 4. Slice with a negative step: the shared rule's ONNX clamps, no guard
I64MAX, I64MIN = 2**63 - 1, -2**63
NEG = [(-1, -I64MAX, -1), (-1, I64MIN, -1), (I64MAX, I64MIN, -1), (-1, I64MIN, -2), (-2, 0, -1), (5, -10, -3),
       (-10, -10, -1), (3, 1, -2), (-7, -9, -1), (I64MIN, -I64MAX, -1)]
nodes, inits, outs = [], [], []
for i, (a, b, st) in enumerate(NEG):
    for nm, v in (("s", a), ("e", b), ("t", st)):
        inits.append(onnx.helper.make_tensor("%s%d" % (nm, i), onnx.TensorProto.INT64, [1], [v]))
    inits.append(onnx.helper.make_tensor("a%d" % i, onnx.TensorProto.INT64, [1], [1]))
    nodes.append(onnx.helper.make_node("Slice", ["x", "s%d" % i, "e%d" % i, "a%d" % i, "t%d" % i], ["y%d" % i]))
    outs.append(onnx.helper.make_tensor_value_info("y%d" % i, onnx.TensorProto.FLOAT, None))
g = onnx.helper.make_graph(nodes, "neg_slices", [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["batch", "n"])],
                           outs, inits)
ns = os.path.join(WORK, "neg_slices.onnx")
onnx.save(onnx.helper.make_model(g, opset_imports=[onnx.helper.make_opsetid("", 13)]), ns)
pts = [{"x": [rng.randint(1, 3), rng.randint(0, 40)]} for _ in range(20)] + \
      [{"x": [1, 0]}, {"x": [2, 1]}, {"x": [1, 2]}, {"x": [2, 5]}, {"x": [1, 10]}, {"x": [3, 11]}]
for flags in ([], RELAXED):
    inf = values_match(ns, flags, pts if flags else [p for p in pts if p["x"][1] >= 2], "neg_slices %s" % flags)
    flips = {v: d for v, d in inf.get("values", {}).items() if v in ("y1", "y2")}
    check("neg_slices %s: a flip to INT64_MIN is n" % flags, all(d[1] == "n" for d in flips.values()) and len(flips) == 2, flips)
    acc, ran, viol, away, lines, _ = probe(ns, pts, flags)
    print("neg_slices %s: %d points, onnxruntime runs %d, symshape accepts %d, %d violations, %d thrown away" %
          ("relaxed" if flags else "default", len(pts), ran, acc, len(viol), len(away)), file=sys.stderr)
    check("neg_slices %s: 0 soundness violations" % flags, not viol, viol[:2])
    if flags:
        check("neg_slices relaxed: no size thrown away", not away, away[:3])

# ---- 5. halves of one dim in one sum: x[::2] (CeilDiv(n, 2) rows) next to x[n // 2 + 1:]
# (n - FloorDiv(n, 2) - 1): the concatenation is 2*n - 2 + Mod(n, 2), one division atom (rule
# ADD_HALVES, docs/algebra.md), where it printed 2*n - FloorDiv(n, 2) + CeilDiv(n, 2) - 2
class Halves(torch.nn.Module):
    def forward(self, x):
        return torch.cat([x[1:], x[x.shape[0] // 2 + 1:], x[::2]]).reshape(-1)


hv = export("halves", Halves(), (torch.randn(7, 16),), ["x"], {"x": {0: "n"}})
pts = [{"x": [n, 16]} for n in range(0, 12)] + [{"x": [rng.randint(12, 400), 16]} for _ in range(12)]
ATOMS = re.compile(r"\b(FloorDiv|CeilDiv|Mod)\(")
for flags in ([], RELAXED):
    inf = values_match(hv, flags, pts if flags else [p for p in pts if p["x"][0] >= 2], "halves %s" % flags)
    if not flags:  # n >= 2; relaxed keeps the slices' clamps for n = 0, 1 (Min/Max around the atoms)
        two = {v: d for v, d in inf.get("values", {}).items() if any(isinstance(x, str) and len(ATOMS.findall(x)) > 1 for x in d)}
        check("halves default: no shape with two division atoms of n", not two and inf.get("values"), two)
    acc, ran, viol, away, _, _ = probe(hv, pts, flags)
    print("halves %s: %d points, onnxruntime runs %d, symshape accepts %d, %d violations, %d thrown away" %
          ("relaxed" if flags else "default", len(pts), ran, acc, len(viol), len(away)), file=sys.stderr)
    check("halves %s: 0 soundness violations" % flags, not viol, viol[:2])
    if flags:
        check("halves relaxed: no size thrown away", not away, away[:3])
out = os.path.join(WORK, "halves.out.onnx")
r = sh("infer", hv, "-o", out)
check("halves infer -o exits 0", r.returncode == 0, r.stderr)
if r.returncode == 0:
    got = onnx.load(out)
    vis = {v.name: [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim]
           for v in list(got.graph.value_info) + list(got.graph.output)}
    two = {v: d for v, d in vis.items() if any(len(ATOMS.findall(str(x))) > 1 for x in d)}
    check("halves -o: no written dim with two division atoms", not two and vis, two)
    sess = session(out, vis)
    n = 0
    for p in pts[2:]:  # the default policy's n >= 2
        res = run(sess, p)
        if res is None:
            continue
        bad = [(v, d) for v, d in vis.items() if v in res and [evaluate(x, {"n": p["x"][0]}) for x in d] != res[v]]
        check("halves -o at %s: value_info = onnxruntime's shapes" % p, not bad, bad[:2])
        n += 1
    check("halves -o: >= 20 sizes run", n >= 20, n)

CHECKS.finish("torch %s, onnxruntime %s" % (torch.__version__, ort.__version__))
