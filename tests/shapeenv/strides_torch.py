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

# Declared input strides (the input's "strides" field): (name, shape, dynamic dims, layout, nodes, expect_ok_at_example).
# layout: "channels_last" or a list of strides (static; the shape must then be static too).
LAYOUT_CASES = [
    ("cl_view_fails", [2, 3, 4, 5], [0, 2, 3], "channels_last", [("v", "view", [R("x"), -1])], False),
    ("cl_view_merges_hw", [2, 3, 4, 5], [0, 2, 3], "channels_last", [("v", "view", [R("x"), 2, 3, -1])], True),
    ("cl_view_merges_chw_fails", [2, 3, 4, 5], [0, 2, 3], "channels_last", [("v", "view", [R("x"), 2, -1])], False),
    ("cl_permute_nhwc_view", [2, 3, 4, 5], [0, 2, 3], "channels_last",
     [("p", "permute", [R("x"), 0, 2, 3, 1]), ("v", "view", [R("p"), 2, -1])], True),
    ("cl_reshape_copies", [2, 3, 4, 5], [0, 2, 3], "channels_last",
     [("r", "reshape", [R("x"), 2, -1]), ("v", "view", [R("r"), -1])], True),
    ("cl_contiguous_view", [2, 3, 4, 5], [0, 2, 3], "channels_last",
     [("c", "contiguous", [R("x")]), ("v", "view", [R("c"), -1])], True),
    ("cl_is_contiguous_false", [2, 3, 4, 5], [0, 2, 3], "channels_last",
     [("c", "is_contiguous", [R("x")]), ("g", "guard_bool", [R("c"), False]), ("v", "relu", [R("x")])], True),
    ("cl_is_contiguous_channels_last", [2, 3, 4, 5], [0, 2, 3], "channels_last",
     [("c", "is_contiguous", [R("x"), "torch.channels_last"]), ("g", "guard_bool", [R("c"), True]), ("v", "relu", [R("x")])], True),
    ("cl_stride_read", [2, 3, 4, 5], [0, 2, 3], "channels_last",
     [("s", "stride", [R("x"), 0]), ("v", "new_zeros", [R("x"), R("s")])], True),
    ("contiguous_stride_read", [2, 3, 4], [0, 1, 2], None,
     [("s", "stride", [R("x")]), ("g", "getitem", [R("s"), 0]), ("v", "new_zeros", [R("x"), R("g")])], True),
    # the 3-D adaptive pools return a contiguous tensor for a channels_last_3d input (a view works)
    ("cl3d_adaptive_avg_pool3d_view", [2, 3, 4, 5, 6], [0], "channels_last_3d",
     [("p", "adaptive_avg_pool3d", [R("x"), 2]), ("v", "view", [R("p"), -1])], True),
    ("cl3d_adaptive_max_pool3d_view", [2, 3, 4, 5, 6], [0], "channels_last_3d",
     [("p", "adaptive_max_pool3d", [R("x"), 2]), ("v", "view", [R("p"), -1])], True),
    ("explicit_transposed_view_fails", [4, 6], [], [1, 4], [("v", "view", [R("x"), -1])], False),
    ("explicit_transposed_t_view", [4, 6], [], [1, 4], [("t", "t", [R("x")]), ("v", "view", [R("t"), -1])], True),
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


def make_input(shape, layout=None):
    if layout == "channels_last":
        return torch.randn(*shape).to(memory_format=torch.channels_last)
    if layout == "channels_last_3d":
        return torch.randn(*shape).to(memory_format=torch.channels_last_3d)
    if isinstance(layout, list):
        return torch.empty_strided(shape, layout).normal_()
    return torch.randn(*shape)


def torch_strides(shape, layout):
    return list(make_input(shape, layout).stride())


def run_torch(shape, nodes, layout=None):
    env = {"x": make_input(shape, layout)}
    try:
        for name, op, args in nodes:
            a = [torch_value(v, env) for v in args]
            if op == "guard_bool":
                if bool(a[0]) != a[1]:
                    raise RuntimeError("guard_bool: the recorded branch is not taken")
                env[name] = a[1]
                continue
            if op == "is_contiguous" and len(a) > 1:
                env[name] = a[0].is_contiguous(memory_format=getattr(torch, a[1].split(".")[-1]))
                continue
            if op == "getitem":
                env[name] = operator.getitem(a[0], a[1])
            elif op in ("add", "mul", "gt"):
                env[name] = getattr(operator, op)(a[0], a[1])
            elif op == "where":
                env[name] = torch.where(*a)
            elif op == "cat":
                env[name] = torch.cat(*a)
            elif op.startswith("adaptive_"):
                env[name] = getattr(torch.nn.functional, op)(*a)
            else:
                env[name] = getattr(torch.Tensor, op)(*a)
        return True, [list(env[nodes[-1][0]].shape)], None
    except RuntimeError as e:
        return False, None, str(e).split("\n")[0]


def graph(name, shape, dyn, nodes, layout=None):
    x = {"name": "x", "op": "input", "dtype": "float32", "shape": shape, "dynamic": dyn}
    if layout is not None:
        x["strides"] = layout
    return {"format": "symshape.graph", "version": 1, "torch_version": torch.__version__, "name": name,
            "nodes": [x] +
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
    fails += layout_cases()
    return 1 if fails else 0


def layout_cases():
    """Declared input strides: the trace at the example must agree with torch on a tensor of that
    layout; at sampled sizes, `probe --sizes --strides` (the layout's strides at those sizes) must
    accept only where torch runs, with torch's shapes, and a contiguous tensor of the same sizes
    (probe without --strides) must be rejected by the stride guards."""
    fails = acc_tot = ok_tot = pts_tot = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, shape, dyn, layout, nodes, expect in LAYOUT_CASES:
            ok, outs, err = run_torch(shape, nodes, layout)
            if ok != expect:
                print(f"{name}: the case's expectation is wrong: torch ok={ok} ({err})")
                fails += 1
            gpath = os.path.join(tmp, name + ".json")
            with open(gpath, "w") as f:
                json.dump(graph(name, shape, dyn, nodes, layout), f)
            r = subprocess.run([CLI, "run", gpath], capture_output=True, text=True)
            if (r.returncode == 0) != ok:
                print(f"{name}: symshape trace ok={r.returncode == 0}, torch ok={ok}: {r.stderr.strip() or err}")
                fails += 1
                continue
            if not ok:
                if "view size is not compatible" in err and err not in r.stderr:
                    print(f"{name}: symshape's error differs from torch's: {r.stderr.strip()} / {err}")
                    fails += 1
                print(f"{name}: both fail: {err}")
                continue
            acc = nok = 0
            sampled = points(shape, dyn)
            for s in sampled:
                pok, pouts, perr = run_torch(s, nodes, layout)
                st = torch_strides(s, layout)
                args = [CLI, "probe", gpath, "--json", "-s", "x=" + ",".join(map(str, s))]
                if layout is not None:
                    args += ["--strides", "x=" + ",".join(map(str, st))]
                r = subprocess.run(args, capture_output=True, text=True)
                line = json.loads(r.stdout.splitlines()[0]) if r.stdout.startswith("{") else None
                nok += pok
                if line is None:
                    print(f"{name} at {s}: probe failed: {r.stderr.strip()[:300]}")
                    fails += 1
                    continue
                acc += line["accept"]
                if line["accept"] and (not pok or line["outputs"] != pouts):
                    print(f"{name} at {s} strides {st}: SOUNDNESS: accepted, torch: {perr or pouts}, symshape: {line['outputs']}")
                    fails += 1
                if layout is not None and not isinstance(layout, list):
                    r2 = subprocess.run([CLI, "probe", gpath, "--json", "-s", "x=" + ",".join(map(str, s))],
                                        capture_output=True, text=True)
                    l2 = json.loads(r2.stdout.splitlines()[0])
                    if l2["accept"] and list(make_input(s).stride()) != st:
                        print(f"{name} at {s}: a contiguous tensor passes the stride guards of a {layout} graph")
                        fails += 1
            acc_tot += acc
            ok_tot += nok
            pts_tot += len(sampled)
            print(f"{name}: ok; {acc}/{len(sampled)} sampled points accepted, torch runs {nok}")
    print(f"{len(LAYOUT_CASES)} declared-layout cases, {pts_tot} sampled points: {acc_tot} accepted, torch runs {ok_tot}; "
          f"{fails} failures")
    return fails


if __name__ == "__main__":
    sys.exit(main())
