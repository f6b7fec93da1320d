"""Random index chains against onnxruntime (onnx47w): index tensors computed from the sizes of x [n, m]
(Range of scalars from Shape/Add/Mul/Div/Sub, then Slice with any starts/ends/steps including negative and
INT64-extreme ones, Add/Sub/Mul/Div with a scalar, Neg, Unsqueeze, Reshape, Flatten, Squeeze, Transpose, Expand,
Concat, Identity and Cast) into Gather, GatherElements, GatherND, ScatterND or ScatterElements, on a constant or
a symbolic data dim. Each model is run by onnxruntime (no graph optimization: the graph's semantics) at SIZES
points and probed by symshape at the same points under the default and the relaxed policy.

Counts: violations (symshape accepts, onnxruntime fails: must be 0), sizes thrown away (onnxruntime runs,
symshape rejects; under the default policy only n, m >= 2, its 0/1 specialization's class), models symshape
refuses at the example, and the classes of violations (the first node kinds of the chain).

usage: idx_chains.py SYMSHAPE WORKDIR [--models N] [--seed S] [--max-lost L]
  exit 0 when no violation and at most L sizes thrown away (default: no limit), else 1;
  77 when onnxruntime is missing or SY_SKIP_TORCH_TESTS=1.
"""
import argparse
import json
import os
import random
import sys

import ortcheck
ortcheck.skip_if_opted_out()
import numpy as np  # noqa: E402
import onnx  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402
ort = ortcheck.onnxruntime(4)

I64MAX, I64MIN, I32MAX = 2**63 - 1, -2**63, 2**31 - 1
SIZES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 24, 33]
RELAXED = ["--no-duck-sizing", "--no-specialize-01"]


class Gen:
    """one random model: nodes and int64 initializers, values named v0, v1, ...; index tensors are
    (name, rank)"""

    def __init__(self, rng):
        self.r = rng
        self.nodes, self.inits, self.k = [], [], 0
        self.kinds = []

    def fresh(self):
        self.k += 1
        return "v%d" % self.k

    def const(self, vals, shape=None):
        nm = self.fresh()
        vals = list(vals) if isinstance(vals, (list, tuple)) else [vals]
        self.inits.append(helper.make_tensor(nm, TensorProto.INT64, [len(vals)] if shape is None else shape, vals))
        return nm

    def node(self, op, ins, **attrs):
        out = self.fresh()
        self.nodes.append(helper.make_node(op, ins, [out], **attrs))
        return out

    def dim(self, i):  # n or m as a 0-d int64
        s = self.node("Shape", ["x"])
        return self.node("Gather", [s, self.const(i, [])])

    def scalar(self, depth=0):
        r = self.r
        c = r.random()
        if depth > 1 or c < 0.25:
            return self.const(r.choice([0, 0, 1, 2, 3, -1, -2, 5, 7, 12]), [])
        if c < 0.6:
            return self.dim(r.choice([0, 0, 1]))
        op = r.choice(["Add", "Sub", "Mul", "Div"])
        a = self.scalar(depth + 1)
        b = self.const(r.choice([1, 2, 3, -1, -2]) if op in ("Mul", "Div") else r.choice([0, 1, 2, -1, -3, 4]), [])
        return self.node(op, [a, b] if r.random() < 0.7 or op == "Div" else [b, a])

    def rng_(self):
        r = self.r
        d = r.choice([1, 1, 1, 2, 3, -1, -2])
        self.kinds.append("Range%+d" % d)
        a, b = self.scalar(), self.scalar()
        return self.node("Range", [a, b, self.const(d, [])]), 1

    def end(self):
        r = self.r
        c = r.random()
        if c < 0.15:
            self.kinds.append("far")
            return self.const(r.choice([I64MAX, I64MIN, I32MAX, -I64MAX, 2**62, -2**62]))
        if c < 0.35:
            return self.node("Unsqueeze", [self.scalar(1), self.const(0)])
        return self.const(r.choice([0, 1, 2, 3, 5, -1, -2, -3, -5, 10]))

    def step(self, t):
        r = self.r
        name, rank = t
        op = r.choice(["Slice"] * 5 + ["Arith"] * 3 + ["Neg", "Unsqueeze", "Reshape", "Flatten", "Squeeze", "Transpose",
                                                        "Expand", "Concat", "Identity", "Cast"])
        if op == "Slice":
            ax = r.randrange(rank)
            ins = [name, self.end(), self.end()]
            st = r.choice([None, 1, 1, 2, 3, -1, -1, -2])
            if st is not None or r.random() < 0.5:
                ins.append(self.const(r.choice([ax, ax - rank])))
                if st is not None:
                    ins.append(self.const(st))
            self.kinds.append("Slice%s" % ("" if st is None else "%+d" % st))
            return self.node("Slice", ins), rank
        self.kinds.append(op)
        if op == "Arith":
            o = r.choice(["Add", "Sub", "Mul", "Div"])
            s = self.const(r.choice([1, 2, 3, -1, -2]), []) if o in ("Mul", "Div") else self.scalar(1)
            self.kinds[-1] = o
            return self.node(o, [name, s] if r.random() < 0.6 or o == "Div" else [s, name]), rank
        if op == "Neg":
            return self.node("Neg", [name]), rank
        if op == "Identity":
            return self.node("Identity", [name]), rank
        if op == "Cast":
            return self.node("Cast", [name], to=TensorProto.INT64), rank
        if op == "Unsqueeze" and rank < 3:
            return self.node("Unsqueeze", [name, self.const(r.choice([0, -1]))]), rank + 1
        if op == "Reshape":
            sh = r.choice([[-1], [1, -1], [-1, 1]])
            return self.node("Reshape", [name, self.const(sh)]), len(sh)
        if op == "Flatten":
            return self.node("Flatten", [name], axis=r.choice([0, 1])), 2
        if op == "Squeeze" and rank >= 2:
            return self.node("Squeeze", [self.node("Reshape", [name, self.const([1, -1])]), self.const(0)]), 1
        if op == "Transpose" and rank == 2:
            return self.node("Transpose", [name]), 2
        if op == "Expand" and rank <= 2:
            col = r.random() < 0.5
            flat = self.node("Reshape", [name, self.const([-1, 1] if col else [1, -1])])
            k = r.choice([1, 2, 3])
            return self.node("Expand", [flat, self.const([1, k] if col else [k, 1])]), 2
        if op == "Concat":
            a = self.node("Reshape", [name, self.const([-1])])
            b, br = self.chain(1)
            b = self.node("Reshape", [b, self.const([-1])])
            return self.node("Concat", [a, b] if r.random() < 0.5 else [b, a], axis=0), 1
        self.kinds[-1] = "Identity"
        return self.node("Identity", [name]), rank

    def chain(self, depth=0):
        t = self.rng_()
        for _ in range(self.r.randrange(1, 4) if depth == 0 else self.r.randrange(0, 2)):
            t = self.step(t)
        return t

    def model(self):
        r = self.r
        name, rank = self.chain()
        sink = r.choice(["Gather", "Gather", "GatherElements", "GatherND", "ScatterND", "ScatterElements"])
        self.kinds.append(sink)
        sym = r.random() < 0.4  # the data dim is n or m (x itself), else a constant
        D = r.choice([1, 3, 5, 8, 12])
        flat = self.node("Reshape", [name, self.const([-1])])
        col = self.node("Reshape", [name, self.const([-1, 1])])
        if sink == "Gather":
            if sym:
                ax = r.choice([0, 1])
                out = self.node("Gather", ["x", name], axis=ax)
            else:
                out = self.node("Gather", ["W2", name])
        elif sink == "GatherElements":
            out = self.node("GatherElements", ["x" if sym else "W1", col], axis=0)
        elif sink == "GatherND":
            out = self.node("GatherND", ["x" if sym else "W2", col])
        elif sink == "ScatterND":
            upd = self.node("Cast", [flat], to=TensorProto.FLOAT)
            data = self.node("Reshape", ["x", self.const([-1])]) if sym else "W0"
            out = self.node("ScatterND", [data, col, upd])
        else:
            upd = self.node("Cast", [flat], to=TensorProto.FLOAT)
            data = self.node("Reshape", ["x", self.const([-1])]) if sym else "W0"
            out = self.node("ScatterElements", [data, flat, upd], axis=0)
        self.nodes.append(helper.make_node("Identity", [out], ["y"]))
        self.inits += [helper.make_tensor("W2", TensorProto.FLOAT, [D, 2], [0.0] * (2 * D)),
                       helper.make_tensor("W1", TensorProto.FLOAT, [D, 1], [0.0] * D),
                       helper.make_tensor("W0", TensorProto.FLOAT, [D], [0.0] * D)]
        used = {i for nd in self.nodes for i in nd.input}
        self.inits = [t for t in self.inits if t.name in used]
        g = helper.make_graph(self.nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "m"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        return m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("sym")
    ap.add_argument("work")
    ap.add_argument("--models", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=47)
    ap.add_argument("--max-lost", type=int, default=-1)
    ap.add_argument("--show", type=int, default=5, help="violations to print")
    ap.add_argument("--verbose", action="store_true", help="print the models onnxruntime and symshape refuse")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    sh = ortcheck.runner(a.sym)
    so = ort.SessionOptions()
    so.log_severity_level = 4
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    rng = random.Random(a.seed)
    tries = pts = viol = lost = refused = 0
    bad_models = 0
    classes = {}
    shown = 0
    for i in range(a.models):
        g = Gen(rng)
        m = g.model()
        path = os.path.join(a.work, "chain%d.onnx" % i)
        onnx.save(m, path)
        try:
            sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        except Exception as e:  # noqa: BLE001 - a model onnxruntime refuses at load (none expected)
            bad_models += 1
            if a.verbose:
                print("ORT REFUSES %s: %s" % (path, str(e)[:300]), file=sys.stderr)
            continue
        points = [(rng.choice(SIZES), rng.choice(SIZES)) for _ in range(20)] + [(0, 3), (1, 3), (3, 0), (3, 1), (2, 2)]
        truth = []
        for n, mm in points:
            try:
                sess.run(None, {"x": np.zeros((n, mm), np.float32)})
                truth.append(True)
            except Exception:  # noqa: BLE001 - the runtime refused the point
                truth.append(False)
        # the example: a point onnxruntime runs, n != m >= 2 (the default policy's class), else (relaxed only)
        # any point it runs
        ex = next(((n, mm) for (n, mm), t in zip(points, truth) if t and n >= 2 and mm >= 2 and n != mm), (5, 3))
        ex_rel = ex if ex != (5, 3) else next((p for p, t in zip(points, truth) if t), ex)
        pf = os.path.join(a.work, "chain%d.points.json" % i)
        with open(pf, "w") as f:
            json.dump({"points": [{"sizes": {"x": [n, mm]}} for n, mm in points]}, f)
        tries += 1
        for flags in ([], RELAXED):
            r = sh("probe", path, "--points", pf, "--json", "--example", "x=%d,%d" % (ex_rel if flags else ex), *flags)
            if r.returncode != 0:
                refused += 1
                acc = [False] * len(points)
                if a.verbose:
                    print("PROBE REFUSES %s %s at %s: %s" % (path, flags, ex, r.stderr.strip()[-300:]), file=sys.stderr)
            else:
                acc = [json.loads(x)["accept"] for x in r.stdout.splitlines()]
            for (n, mm), t, ac in zip(points, truth, acc):
                pts += 1
                if ac and not t:
                    viol += 1
                    k = "/".join(g.kinds)
                    classes[k] = classes.get(k, 0) + 1
                    if shown < a.show:
                        shown += 1
                        print("VIOLATION %s at x=[%d, %d] %s (example %s)" % (path, n, mm, flags, ex), file=sys.stderr)
                if t and not ac and (flags or (n >= 2 and mm >= 2)):
                    lost += 1
                    if a.verbose:
                        print("LOST %s at x=[%d, %d] %s (example %s)" % (path, n, mm, flags, ex), file=sys.stderr)
    print("index chains: %d models (%d refused by onnxruntime at load), %d points x 2 policies: %d violations, "
          "%d sizes thrown away, %d probes refused at the example" % (tries, bad_models, pts // 2, viol, lost, refused))
    for k, v in sorted(classes.items(), key=lambda kv: -kv[1])[:15]:
        print("  %5d %s" % (v, k))
    ok = viol == 0 and (a.max_lost < 0 or lost <= a.max_lost)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
