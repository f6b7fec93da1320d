#!/usr/bin/python3
"""Compare symshape's op shape rules with real PyTorch on the CPU.

For every case in cases.py: a one-op graph document (docs/graph-format.md)
with dynamic input dims is written, N random size points are drawn, PyTorch
runs the op on real CPU tensors at each point (the ground truth: output
shapes, or that it raised), and `symshape probe --points --json` evaluates
the same graph there. A case fails when, at any point,
  * symshape computes a result where torch raised, or raises where torch ran
    (real-value evaluation: the op's checks disagree with the kernel's);
  * the output shapes differ;
  * the guard set accepts a point where torch raised or the shapes differ
    (a soundness violation).
The expected values come from torch at test time, not from a table.

usage: torch_compare.py SYMSHAPE [--points N] [--seed S] [--only SUBSTR] [-v]
exit 0 when every case agrees, 1 otherwise.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

import warnings

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as C  # noqa: E402

DT = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64, "bool": torch.bool,
      "complex64": torch.complex64, "int32": torch.int32}


def make_tensor(dtype, shape, name=""):
    dt = DT[dtype]
    if name.startswith("prob"):  # values in [0, 1) (probabilities)
        return torch.rand(*shape, dtype=dt) if shape else torch.rand((), dtype=dt)
    if dt.is_complex or dt.is_floating_point:
        return torch.randn(*shape, dtype=dt) if shape else torch.randn((), dtype=dt)
    return torch.zeros(shape, dtype=dt)  # index tensors: 0 is a valid index into any non-empty dim


def resolve_fn(name):
    ns, _, attr = name.partition(".")
    if ns == "torch":
        return getattr(torch, attr)
    if ns == "F":
        return getattr(F, attr)
    if ns == "Tensor":  # a method, or the function of that name (F.celu_, torch.selu_)
        for owner in (torch.Tensor, torch, F):
            if hasattr(owner, attr):
                return getattr(owner, attr)
    if ns == "C":
        return getattr(C, attr)  # a helper in cases.py (e.g. the nn module an RNN op stands for)
    raise ValueError(name)


def flatten_out(v, out):
    if isinstance(v, torch.Tensor):
        out.append(list(v.shape))
    elif isinstance(v, (list, tuple)):
        for x in v:
            flatten_out(x, out)
    return out


def shape_at(decl, point):
    return [point[d] if isinstance(d, str) else d for d in decl]


def run_torch(case, point):
    env = {}
    for name, (dt, decl) in case["inputs"].items():
        env[name] = make_tensor(dt, shape_at(decl, point), name)
    for name, (dt, decl) in case.get("params", {}).items():
        env[name] = make_tensor(dt, decl)

    def val(a):
        if isinstance(a, str) and a.startswith("$"):
            return env[a[1:]]
        if isinstance(a, list):
            return [val(x) for x in a]
        if isinstance(a, dict) and "dtype" in a:
            return DT[a["dtype"]]
        if isinstance(a, dict) and "size" in a:  # x.size(d): a symbolic int in the graph
            return env[a["size"][0]].size(a["size"][1])
        if isinstance(a, dict) and "tuple" in a:
            return tuple(val(x) for x in a["tuple"])
        return a
    fn = resolve_fn(case["fn"])
    try:
        r = fn(*[val(a) for a in case["args"]], **{k: val(v) for k, v in case.get("kwargs", {}).items()})
    except (RuntimeError, ValueError, IndexError, TypeError, NotImplementedError, AssertionError) as e:
        return False, type(e).__name__ + ": " + str(e).splitlines()[0] if str(e) else type(e).__name__
    return True, flatten_out(r, [])


def graph_doc(case, example):
    nodes = []
    for name, (dt, decl) in case["inputs"].items():
        dyn = [i for i, d in enumerate(decl) if isinstance(d, str)]
        nodes.append({"name": name, "op": "input", "dtype": dt, "shape": shape_at(decl, example), "dynamic": dyn})
    for name, (dt, decl) in case.get("params", {}).items():
        nodes.append({"name": name, "op": "param", "dtype": dt, "shape": decl})

    def val(a):
        if isinstance(a, str) and a.startswith("$"):
            return {"ref": a[1:]}
        if isinstance(a, list):
            return [val(x) for x in a]
        if isinstance(a, dict) and "dtype" in a:
            return {"dtype": a["dtype"]}
        if isinstance(a, dict) and "size" in a:
            name = f"size_{len(nodes)}"
            nodes.append({"name": name, "op": "size", "args": [{"ref": a["size"][0]}, a["size"][1]]})
            return {"ref": name}
        if isinstance(a, dict) and "tuple" in a:
            return [val(x) for x in a["tuple"]]
        return a
    nodes.append({"name": "out", "op": case["op"], "args": [val(a) for a in case["args"]],
                  "kwargs": {k: val(v) for k, v in case.get("kwargs", {}).items()}})
    return {"format": "symshape.graph", "version": 1, "torch_version": torch.__version__, "name": case["name"], "origin": "tests/ops/torch_compare.py",
            "nodes": nodes, "outputs": [{"ref": "out"}]}


def sample(case, rng, lo_override=None):
    p = {}
    for letter, (lo, hi) in case["sizes"].items():
        p[letter] = rng.randint(lo if lo_override is None else max(lo, min(lo_override, hi)), hi)
    return p


def main():
    argv = sys.argv[1:]
    if not argv:
        print(__doc__)
        return 2
    symshape = argv[0]
    npts, seed, only, verbose = 24, 12345, None, False
    i = 1
    while i < len(argv):
        if argv[i] == "--points":
            npts = int(argv[i + 1]); i += 2
        elif argv[i] == "--seed":
            seed = int(argv[i + 1]); i += 2
        elif argv[i] == "--only":
            only = argv[i + 1]; i += 2
        elif argv[i] == "-v":
            verbose = True; i += 1
        else:
            print("unknown argument " + argv[i]); return 2
    print(f"torch {torch.__version__} ({torch.__file__})", flush=True)
    torch.manual_seed(0)
    warnings.simplefilter("ignore")
    failures, ncases, nops, tot_pts, tot_acc, tot_raise = [], 0, set(), 0, 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for case in C.CASES:
            if only and only not in case["name"]:
                continue
            rng = random.Random(f"{seed}:{case['name']}")
            ncases += 1
            if verbose:
                print("case", case["name"], flush=True)
            nops.add(case["op"])
            # the example (trace) point: torch must run there; prefer sizes >= 2 (no 0/1 specialization)
            example = None
            for attempt in range(200):
                cand = sample(case, rng, 2 if attempt < 150 else None)
                if run_torch(case, cand)[0]:
                    example = cand
                    break
            if example is None:
                # this torch rejects the call at every size (an op whose check is new in this
                # version, e.g. 2.x's stft without return_complex): symshape must reject the trace
                cand = sample(case, rng, 2)
                err = run_torch(case, cand)[1]
                gpath = os.path.join(tmp, case["name"] + ".json")
                with open(gpath, "w") as f:
                    json.dump(graph_doc(case, cand), f)
                r = subprocess.run([symshape, "run", gpath], capture_output=True, text=True)
                if r.returncode == 0:
                    failures.append(f"{case['name']}: torch {torch.__version__} raises at every size tried "
                                    f"({err}), symshape traces at {cand}")
                else:
                    tot_raise += 1
                    if verbose:
                        print(f"{case['name']}: torch and symshape both reject: {err} / {r.stderr.strip()[:200]}")
                continue
            pts = [sample(case, rng) for _ in range(npts)]
            truth = [run_torch(case, p) for p in pts]
            gpath = os.path.join(tmp, case["name"] + ".json")
            ppath = os.path.join(tmp, case["name"] + ".probes.json")
            with open(gpath, "w") as f:
                json.dump(graph_doc(case, example), f)
            probe_pts = []
            for p in pts:
                probe_pts.append({"sizes": {n: shape_at(d, p) for n, (_, d) in case["inputs"].items()}})
            with open(ppath, "w") as f:
                json.dump({"model": case["name"], "points": probe_pts}, f)
            r = subprocess.run([symshape, "probe", gpath, "--points", ppath, "--json"], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"{case['name']}: symshape probe exit {r.returncode}: {r.stderr.strip()[:300]}")
                continue
            lines = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
            if len(lines) != len(pts):
                failures.append(f"{case['name']}: expected {len(pts)} probe lines, got {len(lines)}")
                continue
            bad = []
            for p, (ok, res), got in zip(pts, truth, lines):
                sym_ok = got["error"] is None
                tot_pts += 1
                tot_acc += bool(got["accept"])
                tot_raise += not ok
                what = None
                if ok != sym_ok:
                    what = f"torch {'ran: ' + str(res) if ok else 'raised ' + res!r}, symshape {'ran: ' + str(got['outputs']) if sym_ok else 'raised ' + repr(got['error'])}"
                elif ok and got["outputs"] != res:
                    what = f"shapes differ: torch {res}, symshape {got['outputs']}"
                if got["accept"] and (not ok or got["outputs"] != res):
                    what = (what or "") + " [SOUNDNESS: the guards accept]"
                if what:
                    bad.append(f"  at {json.dumps(probe_pts[pts.index(p)]['sizes'])}: {what}")
                elif verbose:
                    print(f"{case['name']} {p}: ok={ok} accept={got['accept']} {res}")
            if bad:
                failures.append(f"{case['name']} ({case['op']}):\n" + "\n".join(bad[:6]) + (f"\n  ... {len(bad) - 6} more" if len(bad) > 6 else ""))
    print(f"{ncases} cases, {len(nops)} ops, {tot_pts} points ({tot_raise} where torch raises, {tot_acc} accepted by the guards)")
    for f in failures:
        print("FAIL " + f)
    print(f"{len(failures)} failing cases")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
