#!/usr/bin/python3
"""Views after views, checked against real PyTorch (CPU) - ctest 'strides_torch' (LABEL python).

Each case is a small graph (docs/graph-format.md) whose last node is a view
that only works for some strides. For each case:
  1. at the example sizes, symshape's trace must succeed exactly when PyTorch
     runs the case, and fail with PyTorch's own message for a view error;
  2. at sampled sizes (the dynamic dims scaled), `symshape probe` must not
     accept a point where PyTorch fails or where the output shapes differ
     (a soundness violation); the acceptance is printed.
Usage: strides_torch.py SYMSHAPE_CLI
"""
import json
import operator
import os
import subprocess
import sys
import tempfile

if os.environ.get("SY_SKIP_TORCH_TESTS") == "1":  # explicit opt-out only: a missing torch is a failure
    print("skipped: SY_SKIP_TORCH_TESTS=1")
    sys.exit(77)
import torch  # noqa: E402

CLI = sys.argv[1]
SL = lambda a, b, c: {"slice": [a, b, c]}
R = lambda n: {"ref": n}

# (name, input shape, dynamic dims, nodes [(name, op, args)], expect_ok_at_example)
CASES = [
    ("transpose_view_fails", [2, 3, 4, 6], [0, 2], [("t", "transpose", [R("x"), 1, 2]), ("v", "view", [R("t"), -1, 24])], False),
    ("transpose_view_split_last", [2, 3, 4, 6], [0, 2], [("t", "transpose", [R("x"), 1, 2]), ("v", "view", [R("t"), 2, -1, 3, 3, 2])], True),
    ("transpose_reshape_copies", [2, 3, 4, 6], [0, 2], [("t", "transpose", [R("x"), 1, 2]), ("v", "reshape", [R("t"), -1, 24]), ("w", "view", [R("v"), -1])], True),
    ("transpose_contiguous_view", [2, 3, 4, 6], [0, 1, 2], [("t", "transpose", [R("x"), 1, 2]), ("c", "contiguous", [R("t")]), ("v", "view", [R("c"), -1, 6])], True),
    ("permute_view_fails", [2, 3, 4, 5], [0, 2], [("p", "permute", [R("x"), 0, 2, 3, 1]), ("v", "view", [R("p"), 2, -1])], False),
    ("permute_view_keeps_chunks", [2, 3, 4, 5], [0, 2], [("p", "permute", [R("x"), 0, 2, 3, 1]), ("v", "view", [R("p"), 2, 4, 5, 3, 1])], True),
    ("slice_step_view_fails", [2, 4, 6], [], [("s", "getitem", [R("x"), [SL(None, None, None), SL(None, None, 2)]]), ("v", "view", [R("s"), -1])], False),
    ("slice_step_view_merges_outer", [2, 4, 6], [], [("s", "getitem", [R("x"), [SL(None, None, None), SL(None, None, 2)]]), ("v", "view", [R("s"), 4, 6])], True),
    ("slice_last_view_fails", [2, 4, 6], [0], [("s", "getitem", [R("x"), [{"ellipsis": True}, SL(1, None, None)]]), ("v", "view", [R("s"), -1])], False),
    ("expand_view_fails", [3, 1], [], [("e", "expand", [R("x"), 3, 4]), ("v", "view", [R("e"), 12])], False),
    ("expand_view_splits", [3, 1], [], [("e", "expand", [R("x"), 3, 4]), ("v", "view", [R("e"), 3, 2, 2])], True),
    ("narrow_view_fails", [2, 4], [], [("n", "narrow", [R("x"), 1, 0, 2]), ("v", "view", [R("n"), -1])], False),
    ("narrow_outer_view_ok", [4, 6], [1], [("n", "narrow", [R("x"), 0, 1, 2]), ("v", "view", [R("n"), -1])], True),
    ("select_view_fails", [2, 3, 4], [0, 2], [("s", "select", [R("x"), 1, 0]), ("v", "view", [R("s"), -1])], False),
    ("select_view_splits", [2, 3, 4], [0], [("s", "select", [R("x"), 1, 0]), ("v", "view", [R("s"), 2, 2, 2])], True),
    ("t_view_fails", [3, 5], [0, 1], [("t", "t", [R("x")]), ("v", "view", [R("t"), -1])], False),
    ("t_of_row_view_ok", [1, 5], [1], [("t", "t", [R("x")]), ("v", "view", [R("t"), -1])], True),
    ("relu_keeps_layout", [2, 3, 4], [0], [("t", "transpose", [R("x"), 1, 2]), ("r", "relu", [R("t")]), ("v", "view", [R("r"), 2, -1])], False),
    ("clone_keeps_layout", [2, 3, 4], [0], [("t", "transpose", [R("x"), 1, 2]), ("r", "clone", [R("t")]), ("v", "view", [R("r"), 2, -1])], False),
    ("softmax_is_contiguous", [2, 3, 4], [0], [("t", "transpose", [R("x"), 1, 2]), ("r", "softmax", [R("t"), -1]), ("v", "view", [R("r"), 2, -1])], True),
    ("add_first_operand_layout", [2, 3, 4], [0], [("t", "transpose", [R("x"), 1, 2]), ("c", "contiguous", [R("t")]), ("a", "add", [R("t"), R("c")]), ("v", "view", [R("a"), 2, -1])], False),
    ("add_contiguous_first", [2, 3, 4], [0], [("t", "transpose", [R("x"), 1, 2]), ("c", "contiguous", [R("t")]), ("a", "add", [R("c"), R("t")]), ("v", "view", [R("a"), 2, -1])], True),
    ("mul_scalar_keeps_layout", [2, 3, 4], [0], [("t", "transpose", [R("x"), 0, 2]), ("m", "mul", [R("t"), 2.0]), ("v", "view", [R("m"), -1])], False),
    ("unsqueeze_transposed_view", [2, 3, 4], [0], [("t", "transpose", [R("x"), 1, 2]), ("u", "unsqueeze", [R("t"), 1]), ("v", "view", [R("u"), 2, 4, 3])], True),
    ("squeeze_transposed_view_fails", [2, 1, 3], [0], [("t", "transpose", [R("x"), 0, 2]), ("s", "squeeze", [R("t")]), ("v", "view", [R("s"), -1])], False),
    ("chunk_inner_view_fails", [2, 4, 3], [0], [("c", "chunk", [R("x"), 2, 1]), ("g", "getitem", [R("c"), 1]), ("v", "view", [R("g"), -1])], False),
    ("chunk_outer_view_ok", [4, 3, 2], [1], [("c", "chunk", [R("x"), 2, 0]), ("g", "getitem", [R("c"), 1]), ("v", "view", [R("g"), -1])], True),
    ("flatten_copy_then_view", [2, 3, 4], [0, 2], [("t", "transpose", [R("x"), 0, 1]), ("f", "flatten", [R("t")]), ("v", "view", [R("f"), 3, -1])], True),
    ("split_view_fails", [2, 6], [0], [("s", "split", [R("x"), 3, 1]), ("g", "getitem", [R("s"), 0]), ("v", "view", [R("g"), -1])], False),
    ("cat_of_transposed_3d_is_contiguous", [2, 3, 4], [0], [("t", "transpose", [R("x"), 1, 2]), ("c", "cat", [[R("t"), R("t")], 1]), ("v", "view", [R("c"), -1])], True),
    ("matmul_is_contiguous", [2, 3, 4], [0], [("t", "transpose", [R("x"), 1, 2]), ("m", "matmul", [R("t"), R("x")]), ("v", "view", [R("m"), -1])], True),
    ("where_first_operand", [2, 3, 4], [0], [("t", "transpose", [R("x"), 1, 2]), ("c", "gt", [R("t"), 0.0]), ("w", "where", [R("c"), R("t"), 0.0]), ("v", "view", [R("w"), -1])], False),
    ("to_keeps_layout", [2, 3, 4], [0], [("t", "transpose", [R("x"), 1, 2]), ("d", "double", [R("t")]), ("v", "view", [R("d"), -1])], False),
    ("size1_dims_are_free", [2, 1, 4], [0, 2], [("t", "transpose", [R("x"), 0, 1]), ("v", "view", [R("t"), -1])], True),
    ("view_after_view_split", [6, 4], [0], [("a", "view", [R("x"), 2, 3, 4]), ("t", "transpose", [R("a"), 0, 1]), ("v", "view", [R("t"), 3, 2, 2, 2])], True),
    ("view_after_view_merge_fails", [6, 4], [0], [("a", "view", [R("x"), 2, 3, 4]), ("t", "transpose", [R("a"), 0, 1]), ("v", "view", [R("t"), 6, 4])], False),
]


def torch_value(v, env):
    if isinstance(v, dict):
        if "ref" in v:
            return env[v["ref"]]
        if "slice" in v:
            return slice(*[torch_value(p, env) for p in v["slice"]])
        if "ellipsis" in v:
            return Ellipsis
    if isinstance(v, list):
        return tuple(torch_value(p, env) for p in v) if v and isinstance(v[0], dict) and "slice" in v[0] or any(isinstance(p, dict) and ("slice" in p or "ellipsis" in p) for p in v) else [torch_value(p, env) for p in v]
    return v


def run_torch(shape, nodes):
    env = {"x": torch.randn(*shape)}
    try:
        for name, op, args in nodes:
            a = [torch_value(v, env) for v in args]
            if op == "getitem":
                env[name] = operator.getitem(a[0], a[1])
            elif op in ("add", "mul", "gt"):
                env[name] = getattr(operator, op)(a[0], a[1])
            elif op == "where":
                env[name] = torch.where(*a)
            elif op == "cat":
                env[name] = torch.cat(*a)
            else:
                env[name] = getattr(torch.Tensor, op)(*a)
        return True, [list(env[nodes[-1][0]].shape)], None
    except RuntimeError as e:
        return False, None, str(e).split("\n")[0]


def graph(name, shape, dyn, nodes):
    return {"format": "symshape.graph", "version": 1, "name": name,
            "nodes": [{"name": "x", "op": "input", "dtype": "float32", "shape": shape, "dynamic": dyn}] +
                     [{"name": n, "op": op, "args": args} for n, op, args in nodes],
            "outputs": [R(nodes[-1][0])]}


def points(shape, dyn):
    pts = []
    for f in (1, 2, 3):
        for g in (1, 2, 5):
            s = list(shape)
            for k, d in enumerate(dyn):
                s[d] = shape[d] * (f if k % 2 == 0 else g) + (1 if (f + g) % 3 == 0 else 0)
            if s not in pts:
                pts.append(s)
    return pts


def main():
    fails = 0
    tot_acc = tot_ok = tot_pts = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, shape, dyn, nodes, expect in CASES:
            ok, outs, err = run_torch(shape, nodes)
            if ok != expect:
                print(f"{name}: the case's expectation is wrong: torch ok={ok} ({err})")
                fails += 1
            gpath = os.path.join(tmp, name + ".json")
            with open(gpath, "w") as f:
                json.dump(graph(name, shape, dyn, nodes), f)
            r = subprocess.run([CLI, "run", gpath], capture_output=True, text=True)
            sok = r.returncode == 0
            if sok != ok:
                print(f"{name}: symshape trace ok={sok}, torch ok={ok}: {r.stderr.strip() or err}")
                fails += 1
                continue
            if not ok:
                if "view size is not compatible" in err and err not in r.stderr:
                    print(f"{name}: symshape's error differs from torch's: {r.stderr.strip()} / {err}")
                    fails += 1
                print(f"{name}: both fail: {err}")
                continue
            # sampled sizes: soundness of the guards the views recorded
            pts = []
            for s in points(shape, dyn):
                pok, pouts, perr = run_torch(s, nodes)
                p = {"sizes": {"x": s}, "ok": pok}
                if pok:
                    p["outputs"] = pouts
                else:
                    p["error"] = perr
                pts.append(p)
            ppath = os.path.join(tmp, name + ".probes.json")
            with open(ppath, "w") as f:
                json.dump({"model": name, "points": pts}, f)
            r = subprocess.run([CLI, "probe", gpath, "--points", ppath, "--json"], capture_output=True, text=True)
            lines = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
            viol = [l for l in lines if l.get("soundness_violation")]
            acc = sum(1 for l in lines if l.get("accept"))
            nok = sum(1 for p in pts if p["ok"])
            tot_acc += acc
            tot_ok += nok
            tot_pts += len(pts)
            if r.returncode != 0 or viol or len(lines) != len(pts):
                print(f"{name}: probe exit {r.returncode}, {len(viol)} soundness violations: {viol[:2]} {r.stderr.strip()[:300]}")
                fails += 1
            else:
                print(f"{name}: ok; {acc}/{len(pts)} sampled points accepted, torch runs {nok}")
    print(f"{len(CASES)} cases, {tot_pts} sampled points: {tot_acc} accepted, torch runs {tot_ok}; {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
