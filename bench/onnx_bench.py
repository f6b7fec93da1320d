"""ONNX benchmark: per model, symshape infer (read + trace + guards; median of
runs, the figure symshape itself measures, and the wall time of the process)
and its peak RSS, next to onnx.shape_inference.infer_shapes (with and without
data_prop) on the same file: onnx.load time, infer time, peak RSS growth, and
how many values each leaves fully shaped (every dim a number or a named
expression; onnx's fresh unk__N dims and missing shapes do not count).

usage: /usr/bin/python3 bench/onnx_bench.py SYMSHAPE MODEL.onnx... [--runs N]   (scripts/deps.sh --bench)
       (the test suite caches its exports in BUILD/tests/onnx-cache/*.onnx;
        --export-vit DIR exports torchvision's full vit_b_16 with dynamic H/W)
"""
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time


def peak_child_kb(cmd):
    """peak RSS of one process, measured by GNU time (Debian package 'time':
    a small parent, so the fork before exec does not count Python's pages)"""
    r = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True)
    return r, int(r.stderr.strip().splitlines()[-1])


def export_vit(d):
    import torch
    import torchvision
    os.makedirs(d, exist_ok=True)
    m = torchvision.models.vit_b_16().eval()
    p = os.path.join(d, "vit_b_16_hw.onnx")
    with torch.enable_grad():
        torch.onnx.export(m, torch.randn(2, 3, 224, 224), p, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 2: "h", 3: "w"}}, opset_version=14)
    print(p)


def main():
    args = sys.argv[1:]
    if args and args[0] == "--export-vit":
        return export_vit(args[1])
    runs = 5
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    sym, models = args[0], args[1:]
    peer_script = r'''
import onnx, sys, time, resource, json
p = sys.argv[1]
from onnx import helper as H, TensorProto as TP
w = H.make_model(H.make_graph([H.make_node("Relu", ["x"], ["y"])], "w", [H.make_tensor_value_info("x", TP.FLOAT, [1])],
                 [H.make_tensor_value_info("y", TP.FLOAT, None)]))
onnx.shape_inference.infer_shapes(w)  # warm-up: the first call pays a one-time setup
r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.time(); m = onnx.load(p); tl = time.time() - t
res = {"load_ms": tl * 1e3}
for dp in (False, True):
    t = time.time(); g = onnx.shape_inference.infer_shapes(m, data_prop=dp); ti = time.time() - t
    full = 0
    names = set()
    for vi in list(g.graph.value_info) + list(g.graph.output) + list(g.graph.input):
        tt = vi.type.tensor_type
        if tt.HasField("shape") and all(d.HasField("dim_value") or (d.HasField("dim_param") and not d.dim_param.startswith("unk__")) for d in tt.shape.dim):
            names.add(vi.name)
    names |= {i.name for i in g.graph.initializer}
    res["dp" if dp else "plain"] = {"infer_ms": ti * 1e3, "full": len(names)}
res["rss_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - r0) / 1024
print(json.dumps(res))
'''
    print("| model | file MB | graph KB | nodes | values | symshape exact | symshape infer ms (median, in-process) | process wall ms | peak RSS MB | onnx load ms | infer_shapes ms | data_prop ms | onnx fully shaped (plain / data_prop) | speed-up vs slowest peer |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    base = peak_child_kb([sym, "--version"])[1]
    for p in models:
        times, walls = [], []
        for _ in range(runs):
            t = time.time()
            r = subprocess.run([sym, "infer", p, "--json", "--stats"], capture_output=True, text=True)
            walls.append((time.time() - t) * 1e3)
            if r.returncode:
                print("| %s | error: %s |" % (os.path.basename(p), r.stderr.strip()[:200]))
                break
            st = r.stderr.strip().splitlines()[-1]
            times.append(float(re.search(r"total ([0-9.]+) ms", st).group(1)))
        if not times:
            continue
        kept = int(re.search(r"graph bytes kept (\d+)", st).group(1))
        nodes = int(re.search(r"(\d+) nodes", st).group(1))
        j = json.loads(r.stdout)
        vals = j["values"]
        exact = sum(1 for d in vals.values() if not any(isinstance(x, str) and re.search(r"\bu\d+\b", x) for x in d))
        _, kb = peak_child_kb([sym, "infer", p, "--json"])
        pr = subprocess.run([sys.executable, "-c", peer_script, p], capture_output=True, text=True)
        if pr.returncode or not pr.stdout.strip():
            print("| %s | onnx.shape_inference failed: %s |" % (os.path.basename(p), pr.stderr.strip()[-200:].replace("\n", " ")))
            continue
        peer = json.loads(pr.stdout.strip().splitlines()[-1])
        slowest = max(peer["plain"]["infer_ms"], peer["dp"]["infer_ms"]) + peer["load_ms"]
        med = statistics.median(times)
        print("| %s | %.1f | %.0f | %d | %d | %d | %.2f | %.1f | %.1f (+%.1f over the bare process) | %.0f | %.1f | %.1f | %d / %d | %.0fx |" % (
            os.path.basename(p), os.path.getsize(p) / 1e6, kept / 1e3, nodes, len(vals), exact, med, statistics.median(walls),
            kb / 1024, (kb - base) / 1024, peer["load_ms"], peer["plain"]["infer_ms"], peer["dp"]["infer_ms"],
            peer["plain"]["full"], peer["dp"]["full"], slowest / med))


if __name__ == "__main__":
    main()
