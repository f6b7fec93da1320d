"""ONNX benchmark: per model, side by side in one run,
  - symshape, in process (build/bench/bench_onnx): read (pre-scan + unpack),
    trace, guards; median wall and CPU time over --runs runs after a warm-up
    (the file is in the page cache), and the peak heap of a run: every byte
    malloc'ed by any library during read + trace + guards (bench_onnx counts
    them by interposing malloc); that minus the same figure for a one-node
    model (the fixed cost of a run), and the empty-context baseline
    (sy_ctx_new + sy_env_new alone, bench_onnx --empty), printed once;
  - symshape infer as a process: wall time (median) and peak RSS (GNU time);
  - the graph without its weights: the serialized ModelProto with every
    initializer's raw_data cleared (onnx's ByteSize, the reference of the
    memory goal), and what symshape's reader keeps (sy_onnx_sizes);
  - onnx.shape_inference.infer_shapes on the same file, without and with
    data_prop: onnx.load time, infer time (wall and CPU), values left fully
    shaped;
  - the speed-up per variant: onnx.load + infer_shapes over symshape's
    read + trace + guards, in wall time and in CPU time, and the machine's
    load average (2 cores shared: wall times vary with it, CPU times much
    less).

usage: /usr/bin/python3 bench/onnx_bench.py BUILD_DIR MODEL.onnx... [--runs N]   (scripts/deps.sh --bench)
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
    build, models = args[0], args[1:]
    sym, bench = os.path.join(build, "symshape"), os.path.join(build, "bench", "bench_onnx")
    peer_script = r'''
import onnx, sys, time, resource, json
p = sys.argv[1]
from onnx import helper as H, TensorProto as TP
w = H.make_model(H.make_graph([H.make_node("Relu", ["x"], ["y"])], "w", [H.make_tensor_value_info("x", TP.FLOAT, [1])],
                 [H.make_tensor_value_info("y", TP.FLOAT, None)]))
onnx.shape_inference.infer_shapes(w)  # warm-up: the first call pays a one-time setup
t = time.time(); c = time.process_time(); m = onnx.load(p); tl = time.time() - t; cl = time.process_time() - c
res = {"load_ms": tl * 1e3, "load_cpu_ms": cl * 1e3}
for dp in (False, True):
    t = time.time(); c = time.process_time(); g = onnx.shape_inference.infer_shapes(m, data_prop=dp)
    ti = time.time() - t; ci = time.process_time() - c
    names = set()
    for vi in list(g.graph.value_info) + list(g.graph.output) + list(g.graph.input):
        tt = vi.type.tensor_type
        if tt.HasField("shape") and all(d.HasField("dim_value") or (d.HasField("dim_param") and not d.dim_param.startswith("unk__")) for d in tt.shape.dim):
            names.add(vi.name)
    names |= {i.name for i in g.graph.initializer}
    res["dp" if dp else "plain"] = {"infer_ms": ti * 1e3, "cpu_ms": ci * 1e3, "full": len(names)}
for i in m.graph.initializer:
    i.ClearField("raw_data")
res["graph_bytes"] = m.ByteSize()
print(json.dumps(res))
'''
    import tempfile
    import onnx
    from onnx import helper as H, TensorProto as TP
    tiny = os.path.join(tempfile.mkdtemp(), "one_node.onnx")
    onnx.save(H.make_model(H.make_graph([H.make_node("Relu", ["x"], ["y"])], "one", [H.make_tensor_value_info("x", TP.FLOAT, ["n", 3])],
                                        [H.make_tensor_value_info("y", TP.FLOAT, None)]), opset_imports=[H.make_opsetid("", 14)]), tiny)
    fixed = json.loads(subprocess.run([bench, "--runs", "3", tiny], capture_output=True, text=True, check=True).stdout)["peak_heap_bytes"]
    empty = json.loads(subprocess.run([bench, "--empty"], capture_output=True, text=True, check=True).stdout)["empty_heap_bytes"]
    base = peak_child_kb([sym, "--version"])[1]
    print("load average at start: %.2f %.2f %.2f (1, 5, 15 min)" % os.getloadavg())
    print("fixed costs: empty context (sy_ctx_new + sy_env_new): %.1f KB peak heap; a one-node model (read + trace + guards): %.1f KB; "
          "peak RSS of 'symshape --version': %d KB" % (empty / 1e3, fixed / 1e3, base))
    print()
    print("| model | nodes | values exact / all | guards | symshape read / trace / guards ms | symshape total ms (CPU ms) "
          "| peak heap KB | heap - one-node KB | graph KB (onnx / reader) | (heap - one-node) / graph "
          "| infer process ms (peak RSS MB) | onnx load ms | infer_shapes ms (CPU) | data_prop ms (CPU) | fully shaped by onnx (plain / data_prop) "
          "| speed-up vs plain: wall (CPU) | vs data_prop: wall (CPU) | load avg |")
    print("|" + "---|" * 18)
    for p in models:
        br = subprocess.run([bench, "--runs", str(runs), p], capture_output=True, text=True)
        if br.returncode or not br.stdout.strip():
            print("| %s | bench_onnx failed: %s |" % (os.path.basename(p), br.stderr.strip()[:200]))
            continue
        b = json.loads(br.stdout.strip().splitlines()[-1])
        walls = []
        for _ in range(max(3, runs // 4)):
            t = time.time()
            r = subprocess.run([sym, "infer", p, "--json"], capture_output=True, text=True)
            walls.append((time.time() - t) * 1e3)
        if r.returncode not in (0, 1):
            print("| %s | infer error: %s |" % (os.path.basename(p), r.stderr.strip()[:200]))
            continue
        vals = json.loads(r.stdout)["values"]
        exact = sum(1 for d in vals.values() if not any(isinstance(x, str) and re.search(r"\bu\d+\b", x) for x in d))
        _, kb = peak_child_kb([sym, "infer", p, "--json"])
        pr = subprocess.run([sys.executable, "-c", peer_script, p], capture_output=True, text=True)
        if pr.returncode or not pr.stdout.strip():
            print("| %s | onnx.shape_inference failed: %s |" % (os.path.basename(p), pr.stderr.strip()[-200:].replace("\n", " ")))
            continue
        peer = json.loads(pr.stdout.strip().splitlines()[-1])
        heap = b["peak_heap_bytes"] - fixed
        pl, dp = peer["plain"], peer["dp"]
        print("| %s | %d | %d / %d | %d | %.2f / %.2f / %.2f | %.2f (%.2f) | %.0f | %.0f | %.0f / %.0f | %.2f | %.1f (%.1f) | %.1f "
              "| %.2f (%.2f) | %.2f (%.2f) | %d / %d | %.0fx (%.0fx) | %.0fx (%.0fx) | %.2f |" % (
                  os.path.basename(p), b["nodes"], exact, len(vals), b["guards"], b["read_ms"], b["trace_ms"], b["guards_ms"],
                  b["total_ms"], b["cpu_ms"], b["peak_heap_bytes"] / 1e3, heap / 1e3, peer["graph_bytes"] / 1e3, b["graph_bytes"] / 1e3,
                  heap / peer["graph_bytes"], statistics.median(walls), kb / 1024, peer["load_ms"], pl["infer_ms"], pl["cpu_ms"],
                  dp["infer_ms"], dp["cpu_ms"], pl["full"], dp["full"],
                  (peer["load_ms"] + pl["infer_ms"]) / b["total_ms"], (peer["load_cpu_ms"] + pl["cpu_ms"]) / b["cpu_ms"],
                  (peer["load_ms"] + dp["infer_ms"]) / b["total_ms"], (peer["load_cpu_ms"] + dp["cpu_ms"]) / b["cpu_ms"],
                  os.getloadavg()[0]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
