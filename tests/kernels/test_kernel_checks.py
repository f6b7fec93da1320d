#!/usr/bin/python3
"""Op-level differential test against PyTorch's CPU kernels (issue 10).

For each case: a one-op graph (input x, optional params), a grid of small input
sizes, and the same op run by torch on the CPU with real tensors. At every point
symshape's real values (`probe` "outputs"/"error", computed without the guards)
must agree exactly with the CPU: it fails where the CPU fails and gives the same
output shape where the CPU runs. And the guard set traced at the example must
accept no point where the CPU fails.

usage: test_kernel_checks.py SYMSHAPE_CLI   (SY_SKIP_TORCH_TESTS=1: skip, exit 77)
"""
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time

if os.environ.get("SY_SKIP_TORCH_TESTS") == "1":
    sys.exit(77)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(1)

CLI = sys.argv[1]


def T(*shape):
    return torch.zeros(*shape)


# (name, input shape (example), dynamic dims, params {name: shape}, node fields, torch fn(x, params), grid per dim)
CASES = []


def case(name, example, dyn, node, fn, grid, params=None):
    CASES.append((name, example, dyn, params or {}, node, fn, grid))


R = [0, 1, 2, 3, 5]
# ---- convolution (Convolution.cpp check_shape_forward, _select_conv_backend)
for k, s, p, d in [(3, 2, 0, 1), (5, 1, 0, 1), (4, 4, 0, 1), (3, 1, 1, 2), (2, 2, 1, 1)]:
    kw = {"stride": s, "padding": p, "dilation": d}
    case(f"conv1d_k{k}s{s}p{p}d{d}", [2, 3, 9], [0, 2], {"op": "conv1d", "args": [{"ref": "x"}, {"ref": "w"}], "kwargs": kw},
         lambda x, P, kw=kw: F.conv1d(x, P["w"], **kw), [[0, 1, 2], None, list(range(0, 12))], {"w": [4, 3, k]})
    case(f"conv2d_k{k}s{s}p{p}d{d}", [2, 3, 9, 9], [0, 2, 3], {"op": "conv2d", "args": [{"ref": "x"}, {"ref": "w"}], "kwargs": kw},
         lambda x, P, kw=kw: F.conv2d(x, P["w"], **kw), [[0, 1, 2], None, list(range(0, 10)), [0, 1, 3, 8]], {"w": [4, 3, k, k]})
case("conv3d_k3", [2, 2, 5, 5, 5], [0, 2, 3, 4], {"op": "conv3d", "args": [{"ref": "x"}, {"ref": "w"}], "kwargs": {"padding": [1, 0, 0]}},
     lambda x, P: F.conv3d(x, P["w"], padding=[1, 0, 0]), [[0, 1], None, [0, 1, 2, 3], [0, 2, 3], [3, 4]], {"w": [3, 2, 3, 3, 3]})
case("conv2d_same_k4", [2, 3, 9, 9], [0, 2, 3], {"op": "conv2d", "args": [{"ref": "x"}, {"ref": "w"}], "kwargs": {"padding": "same"}},
     lambda x, P: F.conv2d(x, P["w"], padding="same"), [[0, 1], None, [0, 1, 2, 5], [0, 1, 4]], {"w": [4, 3, 4, 4]})
case("conv2d_unbatched", [3, 9, 9], [1, 2], {"op": "conv2d", "args": [{"ref": "x"}, {"ref": "w"}]},
     lambda x, P: F.conv2d(x, P["w"]), [None, R, [0, 3, 4]], {"w": [4, 3, 3, 3]})
for k, s, p, op_ in [(1, 1, 1, 0), (3, 2, 1, 1), (4, 2, 1, 0), (2, 1, 2, 0)]:
    kw = {"stride": s, "padding": p, "output_padding": op_}
    case(f"conv_transpose1d_k{k}s{s}p{p}", [2, 4, 9], [0, 2], {"op": "conv_transpose1d", "args": [{"ref": "x"}, {"ref": "w"}], "kwargs": kw},
         lambda x, P, kw=kw: F.conv_transpose1d(x, P["w"], **kw), [[0, 1, 2], None, R], {"w": [4, 5, k]})
    case(f"conv_transpose2d_k{k}s{s}p{p}", [2, 4, 9, 9], [0, 2, 3], {"op": "conv_transpose2d", "args": [{"ref": "x"}, {"ref": "w"}], "kwargs": kw},
         lambda x, P, kw=kw: F.conv_transpose2d(x, P["w"], **kw), [[0, 1], None, R, [0, 1, 4]], {"w": [4, 5, k, k]})
case("conv_transpose3d_p1", [2, 4, 3, 3, 3], [0, 2, 3, 4], {"op": "conv_transpose3d", "args": [{"ref": "x"}, {"ref": "w"}], "kwargs": {"padding": 1}},
     lambda x, P: F.conv_transpose3d(x, P["w"], padding=1), [[0, 1], None, [0, 1, 2, 3], [1, 3], [2, 3]], {"w": [4, 2, 1, 1, 1]})

# ---- padding (PadNd.cpp, ReflectionPad.cpp, ReplicationPadding.cpp)
for mode in ["constant", "reflect", "replicate", "circular"]:
    for pads in [[1, 2], [0, 3], [-1, 0], [-2, 1], [2, -3], [-1, -1]]:
        tag = "_".join(str(v).replace("-", "m") for v in pads)
        case(f"pad1d_{mode}_{tag}", [2, 3, 5], [0, 1, 2], {"op": "pad", "args": [{"ref": "x"}, pads], "kwargs": {"mode": mode}},
             lambda x, P, pads=pads, mode=mode: F.pad(x, pads, mode=mode), [[0, 1], [0, 2], R])
        case(f"pad1d_unbatched_{mode}_{tag}", [3, 5], [0, 1], {"op": "pad", "args": [{"ref": "x"}, pads], "kwargs": {"mode": mode}},
             lambda x, P, pads=pads, mode=mode: F.pad(x, pads, mode=mode), [[0, 2], R])
    for pads in [[1, 1, 2, 0], [-1, -1, 0, 0], [0, 0, -1, -1], [-1, -1, -1, -1], [2, 1, 1, -2]]:
        tag = "_".join(str(v).replace("-", "m") for v in pads)
        case(f"pad2d_{mode}_{tag}", [2, 3, 5, 5], [0, 1, 2, 3], {"op": "pad", "args": [{"ref": "x"}, pads], "kwargs": {"mode": mode}},
             lambda x, P, pads=pads, mode=mode: F.pad(x, pads, mode=mode), [[0, 1], [0, 2], [0, 1, 3], [0, 1, 2]])
        if mode in ("reflect", "replicate"):
            case(f"pad2d_unbatched_{mode}_{tag}", [3, 5, 5], [0, 1, 2], {"op": "pad", "args": [{"ref": "x"}, pads], "kwargs": {"mode": mode}},
                 lambda x, P, pads=pads, mode=mode: F.pad(x, pads, mode=mode), [[0, 2], [0, 1, 3], [0, 1, 3]])
    pads = [1, 1, 0, -1, 2, 1]
    case(f"pad3d_{mode}", [2, 2, 4, 4, 4], [0, 1, 2, 3, 4], {"op": "pad", "args": [{"ref": "x"}, pads], "kwargs": {"mode": mode}},
         lambda x, P, pads=pads, mode=mode: F.pad(x, pads, mode=mode), [[0, 1], [0, 2], [0, 1, 3], [0, 2], [0, 1, 2]])
    case(f"pad3d_unbatched_{mode}", [2, 4, 4, 4], [0, 1, 2, 3], {"op": "pad", "args": [{"ref": "x"}, pads], "kwargs": {"mode": mode}},
         lambda x, P, pads=pads, mode=mode: F.pad(x, pads, mode=mode), [[0, 2], [0, 1, 2, 3], [0, 1, 2], [0, 2]])
def grad_max_pool1d(x, **kw):
    with torch.enable_grad():
        return F.max_pool1d(x.requires_grad_(), **kw)


# ---- pooling (Pool.h pool2d_shape_check, pool3d_shape_check; MaxPooling.cpp max_pool1d)
for op in ["max_pool1d", "avg_pool1d"]:
    for k, s_, p_, cm in [(2, 2, 0, False), (3, 2, 1, True), (3, 1, 1, False), (2, 2, 1, True)]:
        kw = {"kernel_size": k, "stride": s_, "padding": p_, "ceil_mode": cm}
        fn = getattr(F, op)
        if op == "max_pool1d":  # without grad the CPU takes check_max_pool1d (output 0 allowed); symshape models the
            fn = grad_max_pool1d  # max_pool1d_with_indices path (>= 1), sound for both: compare with that one
        case(f"{op}_k{k}s{s_}p{p_}c{int(cm)}", [2, 3, 8], [0, 1, 2], {"op": op, "args": [{"ref": "x"}], "kwargs": kw},
             lambda x, P, fn=fn, kw=kw: fn(x, **kw), [[0, 1], [0, 2], R])
        case(f"{op}_unbatched_k{k}s{s_}p{p_}c{int(cm)}", [3, 8], [0, 1], {"op": op, "args": [{"ref": "x"}], "kwargs": kw},
             lambda x, P, fn=fn, kw=kw: fn(x, **kw), [[0, 2], R])
for op in ["max_pool2d", "avg_pool2d"]:
    for k, s_, p_, cm in [(2, 2, 0, False), (3, 2, 1, True), (3, 1, 1, False)]:
        kw = {"kernel_size": k, "stride": s_, "padding": p_, "ceil_mode": cm}
        fn = getattr(F, op)
        case(f"{op}_k{k}s{s_}p{p_}c{int(cm)}", [2, 3, 8, 8], [0, 1, 2, 3], {"op": op, "args": [{"ref": "x"}], "kwargs": kw},
             lambda x, P, fn=fn, kw=kw: fn(x, **kw), [[0, 1], [0, 2], R, [0, 1, 3]])
        case(f"{op}_unbatched_k{k}s{s_}p{p_}c{int(cm)}", [3, 8, 8], [0, 1, 2], {"op": op, "args": [{"ref": "x"}], "kwargs": kw},
             lambda x, P, fn=fn, kw=kw: fn(x, **kw), [[0, 2], R, [0, 1, 3]])
case("max_pool2d_dil2", [2, 3, 8, 8], [0, 2, 3], {"op": "max_pool2d", "args": [{"ref": "x"}, 2], "kwargs": {"stride": 1, "dilation": 2}},
     lambda x, P: F.max_pool2d(x, 2, stride=1, dilation=2), [[0, 1], None, R, [0, 3]])
for op in ["max_pool3d", "avg_pool3d"]:
    fn = getattr(F, op)
    case(f"{op}_k2", [2, 2, 4, 4, 4], [0, 1, 2, 3, 4], {"op": op, "args": [{"ref": "x"}, 2], "kwargs": {"padding": 1, "ceil_mode": True}},
         lambda x, P, fn=fn: fn(x, 2, padding=1, ceil_mode=True), [[0, 1], [0, 2], [0, 1, 2, 3], [0, 1, 3], [1, 2]])
    case(f"{op}_unbatched_k2", [2, 4, 4, 4], [0, 1, 2, 3], {"op": op, "args": [{"ref": "x"}, 2]},
         lambda x, P, fn=fn: fn(x, 2), [[0, 2], [0, 1, 2, 3], [0, 1, 3], [2]])
# ---- adaptive pooling (AdaptiveAveragePooling.cpp, AdaptiveMaxPooling2d.cpp, AdaptiveAveragePooling3d.cpp)
for op, nsp in [("adaptive_avg_pool1d", 1), ("adaptive_avg_pool2d", 2), ("adaptive_avg_pool3d", 3), ("adaptive_max_pool1d", 1),
                ("adaptive_max_pool2d", 2), ("adaptive_max_pool3d", 3)]:
    fn = getattr(F, op)
    for osz in [2, 0]:
        o = [osz] * nsp if nsp > 1 else osz
        case(f"{op}_{osz}", [2, 2] + [4] * nsp, list(range(nsp + 2)), {"op": op, "args": [{"ref": "x"}, o]},
             lambda x, P, fn=fn, o=o: fn(x, o), [[0, 1], [0, 2]] + [[0, 1, 3]] * nsp)
        case(f"{op}_unbatched_{osz}", [2] + [4] * nsp, list(range(nsp + 1)), {"op": op, "args": [{"ref": "x"}, o]},
             lambda x, P, fn=fn, o=o: fn(x, o), [[0, 2]] + [[0, 1, 3]] * nsp)
# ---- interpolate (torch/nn/functional.py interpolate; UpSample.h upsample_*_common_check; 'area': adaptive_avg_pool)
for mode, rank, scales in [("nearest", 3, [0.5, 2.0, None]), ("nearest", 4, [0.5, None]), ("nearest", 5, [2.0]), ("linear", 3, [2.0]),
                           ("bilinear", 4, [0.5, None]), ("bicubic", 4, [2.0]), ("trilinear", 5, [0.5]), ("area", 4, [0.5, None]),
                           ("nearest-exact", 4, [2.0]), ("bilinear", 3, [2.0]), ("linear", 4, [2.0])]:
    ex = [2, 2] + [4] * (rank - 2)
    grid = [[0, 1], [0, 2]] + [[0, 1, 3]] * (rank - 2)
    for sc in scales:
        kw = {"scale_factor": sc, "mode": mode} if sc else {"size": [3] * (rank - 2), "mode": mode}
        case(f"interpolate_{mode}_{rank}d_{sc or 'size'}", ex, list(range(rank)), {"op": "interpolate", "args": [{"ref": "x"}], "kwargs": kw},
             lambda x, P, kw=kw: F.interpolate(x, **kw), grid)
# ---- embedding (Embedding.cpp)
for rows in [0, 5]:
    case(f"embedding_rows{rows}", [2, 3], [0, 1], {"op": "embedding", "args": [{"ref": "x"}, {"ref": "w"}]},
         lambda x, P: F.embedding(x.long(), P["w"]), [[0, 2], [0, 3]], {"w": [rows, 4]})



def _onednn_empty(name, cpu):
    """torch 2.x runs a float32 transposed convolution through oneDNN when its heuristics pick it
    (mkldnn_conv_use_channels_last / use_mkldnn: batch > 1 or groups > 1, ...), and oneDNN accepts
    an output size of 0, where slow_conv_transpose (float64, batch 1) raises "Output size is too
    small". symshape keeps the slow kernel's rule (>= 1) for every backend: it rejects sizes that
    run, never the reverse. Only that case: a transposed conv whose CPU output has a 0 dim."""
    return (name.startswith("conv_transpose") and int(torch.__version__.split(".")[0]) >= 2
            and any(0 in s for s in cpu))


print(f"torch {torch.__version__} ({torch.__file__})", flush=True)
with tempfile.TemporaryDirectory() as tmp:
    failures = 0
    npoints = 0
    stricter = 0
    t_probe = t_cpu = 0.0
    for name, example, dyn, params, node, fn, grid in CASES:
        nodes = [{"name": "x", "op": "input", "dtype": "int64" if name.startswith("embedding") else "float32", "shape": example, "dynamic": dyn}]
        nodes += [{"name": n, "op": "param", "dtype": "float32", "shape": s} for n, s in params.items()]
        nodes.append(dict(node, name="o"))
        g = {"format": "symshape.graph", "version": 1, "torch_version": torch.__version__, "name": name, "nodes": nodes, "outputs": [{"ref": "o"}]}
        axes = [ax if ax is not None else [example[i]] for i, ax in enumerate(grid)]
        pts = [list(p) for p in itertools.product(*axes)]
        gp, pp = os.path.join(tmp, name + ".json"), os.path.join(tmp, name + ".probes.json")
        with open(gp, "w") as f:
            json.dump(g, f)
        with open(pp, "w") as f:
            json.dump({"points": [{"sizes": {"x": p}} for p in pts]}, f)
        t0 = time.process_time()
        r = subprocess.run([CLI, "probe", gp, "--points", pp, "--json"], capture_output=True, text=True)
        t_probe += time.process_time() - t0
        P = {n: torch.zeros(*s) for n, s in params.items()}
        traced = r.returncode == 0
        if not traced and r.returncode != 3:
            print(f"FAIL {name}: probe exited {r.returncode}: {r.stderr.strip()}")
            failures += 1
            continue
        lines = r.stdout.splitlines() if traced else [None] * len(pts)
        for p, line in zip(pts, lines):
            # a graph that cannot be traced at its example (exit 3, bad input)
            # rejects everything: the CPU must fail at every point
            res = json.loads(line) if traced else {"accept": False, "outputs": None, "error": r.stderr.strip()}
            t0 = time.process_time()
            try:
                with torch.no_grad():
                    out = fn(T(*p), P)
                cpu, cerr = [list(out.shape)], None
                if min(out.shape, default=0) < 0:  # PyTorch bug: a tensor with a negative size is no run
                    cpu, cerr = None, f"negative output size {list(out.shape)}"
            except Exception as e:  # noqa: BLE001 - any CPU failure is ground truth
                cpu, cerr = None, str(e).split("\n")[0]
            t_cpu += time.process_time() - t0
            npoints += 1
            if not traced:
                if p == example and cpu is not None:
                    print(f"FAIL {name}: the example does not trace ({res['error']}) but the CPU runs it")
                    failures += 1
                continue
            ours = res["outputs"]
            if cpu is None and ours is not None:
                print(f"FAIL {name} x={p}: CPU fails ({cerr}) but real values give {ours}")
                failures += 1
            elif cpu is not None and ours is None and _onednn_empty(name, cpu):
                stricter += 1  # a documented limit (docs/ops.md), counted and printed, not a soundness issue
            elif cpu is not None and ours != cpu:
                print(f"FAIL {name} x={p}: CPU gives {cpu}, real values {ours} ({res['error']})")
                failures += 1
            if res["accept"] and cpu is None:
                print(f"FAIL {name} x={p}: guards accept where the CPU fails ({cerr})")
                failures += 1
    print(f"{len(CASES)} cases, {npoints} points, {failures} failures (CPU time: torch {t_cpu:.1f} s); "
          f"{stricter} points where symshape rejects an empty transposed-conv output that torch {torch.__version__}'s "
          f"oneDNN backend runs (docs/ops.md, a known limit)")
    sys.exit(1 if failures else 0)
