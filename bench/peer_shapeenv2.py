#!/usr/bin/env python3
"""Peer: PyTorch 2.x's own ShapeEnv doing the shape work of a symshape graph (issue 35, item 3).

The port of ../shared/tools/peer_shapeenv13.py to the PyTorch 2.x API, with the same op subset
(conv/pool/norm/activation/add/cat/flatten/linear/dropout) and the same size formulas. Symbols
are made as dynamo makes them for an input's sizes: ShapeEnv.create_symbol(hint, source,
DimDynamic.DUCK) with the source TensorPropertySource(LocalSource(NAME), SIZE, i), so equal
hints share a symbol (duck sizing) and 0/1 hints are specialized; each shape equality a real
tracer checks goes through ShapeEnv.evaluate_expr (a guard when not statically known); then
produce_guards over the input size SymInts and their sources makes the guard texts, as
torch.export / dynamo do at the end of a capture. Timed: the whole of that, per model, in
process (fresh ShapeEnv each run); --reps N prints the median of N runs.

Prints, as the 1.13 peer: MODEL<TAB>nodes=N<TAB>guards=G<TAB>ms=T (guards: produce_guards'
count), so bench_peer can run it with --peer bench/peer_shapeenv2.py --python VENV_PYTHON.
Usage: peer_shapeenv2.py [--reps N] GRAPH.json...
"""
import json
import statistics
import sys
import time

import sympy
from torch._dynamo.source import LocalSource, TensorProperty, TensorPropertySource
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv
from torch.utils._sympy.functions import FloorDiv


def run(doc):
    env = ShapeEnv()
    vals = {}
    placeholders, sources = [], []

    def sym(name, i, v):
        src = TensorPropertySource(LocalSource(name), TensorProperty.SIZE, i)
        s = env.create_symbol(v, src, dynamic_dim=DimDynamic.DUCK)
        placeholders.append(env.create_symintnode(s, hint=v, source=src))
        sources.append(src)
        return s

    def eq(a, b):
        e = sympy.Eq(a, b)
        if e is sympy.true or e is sympy.false:
            return bool(e)
        return bool(env.evaluate_expr(e))

    def decide(c):
        if c is sympy.true or c is sympy.false:
            return bool(c)
        return bool(env.evaluate_expr(c))

    def ref(v):
        return vals[v["ref"]] if isinstance(v, dict) and "ref" in v else v
    for node in doc["nodes"]:
        op = node["op"]
        if op == "input":
            dyn = {d["dim"] if isinstance(d, dict) else d for d in node["dynamic"]}
            vals[node["name"]] = [sym(node["name"], i, d) if i in dyn else sympy.Integer(d)
                                  for i, d in enumerate(node["shape"])]
            continue
        if op == "param":
            vals[node["name"]] = [sympy.Integer(d) for d in node["shape"]]
            continue
        a = [ref(x) for x in node["args"]]
        kw = node.get("kwargs", {})
        x = a[0]
        if op in ("conv2d",):
            w = a[1]
            st, pd, dl = kw["stride"], kw["padding"], kw["dilation"]
            eq(x[1], w[1] * kw["groups"])
            out = [x[0], w[0]]
            for i in range(2):
                out.append(FloorDiv(x[2 + i] + 2 * pd[i] - dl[i] * (w[2 + i] - 1) - 1, st[i]) + 1)
        elif op in ("max_pool2d", "avg_pool2d"):
            P = lambda v, d: (list(v) if isinstance(v, list) else [v, v]) if v is not None else d
            k = P(kw.get("kernel_size", a[1] if len(a) > 1 else None), None)
            st = P(kw.get("stride", a[2] if len(a) > 2 else None), k) or k
            pd = P(kw.get("padding", a[3] if len(a) > 3 else 0), [0, 0])
            dl = P(kw.get("dilation", [1, 1]), [1, 1])
            out = list(x[:2])
            for i in range(2):
                num = x[2 + i] + 2 * pd[i] - dl[i] * (k[i] - 1) - 1
                if kw.get("ceil_mode"):
                    o = FloorDiv(num + st[i] - 1, st[i]) + 1
                    if decide(sympy.Ge((o - 1) * st[i], x[2 + i] + pd[i])):
                        o = o - 1
                else:
                    o = FloorDiv(num, st[i]) + 1
                out.append(o)
        elif op == "adaptive_avg_pool2d":
            out = list(x[:2]) + [sympy.Integer(v) for v in a[1]]
        elif op in ("batch_norm", "relu", "relu6", "dropout", "gelu", "silu", "sigmoid", "hardswish", "hardsigmoid", "layer_norm"):
            out = x
        elif op in ("add", "mul"):
            y = a[1]
            if isinstance(y, list):
                r = max(len(x), len(y)); xx = [sympy.Integer(1)] * (r - len(x)) + x; yy = [sympy.Integer(1)] * (r - len(y)) + y
                out = []
                for p, q in zip(xx, yy):
                    if p == 1: out.append(q)
                    elif q == 1: out.append(p)
                    else:
                        eq(p, q); out.append(p)
            else:
                out = x
        elif op == "cat":
            ts = a[0]; ts = [ref(t) for t in ts]; d = kw.get("dim", 1)
            out = list(ts[0])
            for t in ts[1:]:
                for i in range(len(out)):
                    if i != d: eq(out[i], t[i])
                out[d] = out[d] + t[d]
        elif op == "flatten":
            sd = kw.get("start_dim", a[1] if len(a) > 1 else 0)
            p = sympy.Integer(1)
            for v in x[sd:]: p = p * v
            out = list(x[:sd]) + [sympy.expand(p)]
        elif op == "linear":
            w = a[1]; eq(x[-1], w[1]); out = list(x[:-1]) + [w[0]]
        else:
            raise NotImplementedError(op)
        vals[node["name"]] = out
    return len(env.produce_guards(placeholders, sources))


def main(argv):
    reps = 1
    if argv[:1] == ["--reps"]:
        reps, argv = int(argv[1]), argv[2:]
    for f in argv:
        with open(f) as fh:
            doc = json.load(fh)
        times = []
        g = None
        try:
            for _ in range(reps):
                t = time.perf_counter()
                g = run(doc)
                times.append((time.perf_counter() - t) * 1e3)
        except NotImplementedError as e:
            print(doc["name"], "unsupported op", e)
            continue
        print("%s\tnodes=%d\tguards=%d\tms=%.1f" % (doc["name"], len(doc["nodes"]), g, statistics.median(times)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
