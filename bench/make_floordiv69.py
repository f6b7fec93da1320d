#!/usr/bin/env python3
"""Write the 69-node graph of issue 14's FloorDiv chain (tests/guards/data/floordiv_chain69.json).

Six layers of   Q = L**2 // 448;  A = 64*Q // 7;  T = (512 // (A + 1))*Q // 8;  LAYER = T*A // 7;
next L = LAYER // 4 (first L = x.size(0)), then narrow(x, 0, 0, LAYER6): 1 input, 1 size,
11 nodes per layer, 1 narrow = 69 nodes. The issue's chain divides by A itself, which is 0 at
some layer for every size (Q = 0 below L = 22, and L shrinks by about L**2/196 per layer or
collapses to 0 past L = 158), so every example size is a division by zero; the divisor A + 1
is >= 1 everywhere and keeps the chain's shape (same nodes, same sharing).
"""
import json
import sys


def node(name, op, *args):
    return {"name": name, "op": op, "args": list(args), "kwargs": {}}


def ref(n):
    return {"ref": n}


def graph(example):
    nodes = [{"name": "x", "op": "input", "dtype": "float32", "shape": [example], "dynamic": [0]},
             node("s", "size", ref("x"), 0)]
    L = "s"
    for k in range(1, 7):
        p = "l%d_" % k
        nodes += [node(p + "sq", "pow", ref(L), 2), node(p + "q", "floordiv", ref(p + "sq"), 448),
                  node(p + "q64", "mul", ref(p + "q"), 64), node(p + "a", "floordiv", ref(p + "q64"), 7),
                  node(p + "a1", "add", ref(p + "a"), 1), node(p + "d", "floordiv", 512, ref(p + "a1")),
                  node(p + "dq", "mul", ref(p + "d"), ref(p + "q")), node(p + "t", "floordiv", ref(p + "dq"), 8),
                  node(p + "ta", "mul", ref(p + "t"), ref(p + "a")), node(p + "layer", "floordiv", ref(p + "ta"), 7),
                  node(p + "next", "floordiv", ref(p + "layer"), 4)]
        L = p + "next"
    nodes.append(node("y", "narrow", ref("x"), 0, 0, ref("l6_layer")))
    return {"format": "symshape.graph", "version": 1, "nodes": nodes, "outputs": [ref("y")]}


if __name__ == "__main__":
    g = graph(int(sys.argv[2]) if len(sys.argv) > 2 else 1000)
    assert len(g["nodes"]) == 69
    with open(sys.argv[1] if len(sys.argv) > 1 else "floordiv_chain69.json", "w") as f:
        json.dump(g, f, indent=1)
        f.write("\n")
