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
  - onnxruntime's symbolic_shape_infer.py (sympy), when given with
    --ort-script PATH or the environment variable SY_ORT_SYMBOLIC_SHAPE_INFER; by default the one
    in the installed onnxruntime package (onnxruntime/tools/symbolic_shape_infer.py: run the bench
    with the test venv's python, $(scripts/venv.sh))
    (it is not packaged by Debian; bench/README.md says where to get it):
    SymbolicShapeInference.infer_shapes on the loaded model with its command
    line's defaults (int_max 2**31 - 1, no auto_merge, no guess_output_rank),
    and when that raises, with auto_merge and guess_output_rank; in the same
    warm process (in a scratch directory: it saves what it could not finish
    in the current one), CPU and wall, or the exception it raises and the
    node it stopped at; without the script its column says "not given";
  - the speed-up against the slowest peer: the slowest of onnx.load +
    infer_shapes (each variant) and onnx.load + symbolic_shape_infer, over
    symshape's read + trace + guards, in CPU time and in wall time, and the
    machine's load average (2 cores shared: wall times vary with it, CPU
    times much less);
  - `symshape infer MODEL --json` and `symshape --version` as processes:
    median CPU time (user + system of the child, from wait4) and wall time
    over the runs (the file is in the page cache after the first).

usage: /usr/bin/python3 bench/onnx_bench.py BUILD_DIR MODEL.onnx... [--runs N] [--ort-script PATH]
       (scripts/deps.sh --bench)
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


def process_times(cmd, n):
    """median CPU (user + system of the child, wait4) and wall ms of n runs of cmd,
    stdout and stderr to /dev/null; posix_spawn, so no copy of Python's pages is counted"""
    cpu, wall = [], []
    devnull = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0), (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
    for _ in range(n):
        t = time.perf_counter()
        pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=devnull)
        _, st, ru = os.wait4(pid, 0)
        wall.append((time.perf_counter() - t) * 1e3)
        cpu.append((ru.ru_utime + ru.ru_stime) * 1e3)
        if os.waitstatus_to_exitcode(st) not in (0, 1):
            raise RuntimeError("%s exited with %d" % (" ".join(cmd), os.waitstatus_to_exitcode(st)))
    return statistics.median(cpu), statistics.median(wall)


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
    ort = os.environ.get("SY_ORT_SYMBOLIC_SHAPE_INFER") or None
    if "--ort-script" in args:
        i = args.index("--ort-script")
        ort = args[i + 1]
        del args[i:i + 2]
    if ort is None:  # the installed onnxruntime's own copy (the test venv has it: scripts/venv.sh)
        try:
            import importlib.util as _u
            _spec = _u.find_spec("onnxruntime.tools.symbolic_shape_infer")
            ort = _spec.origin if _spec else None
        except (ImportError, ValueError):
            ort = None
    if ort and not os.path.isfile(ort):
        sys.exit("onnx_bench.py: --ort-script %s: no such file" % ort)
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
    t = time.time(); c = time.process_time()
    try:
        g = onnx.shape_inference.infer_shapes(m, data_prop=dp)
    except Exception as e:  # onnx refuses the model: say so in its column; the other peers still run
        res["dp" if dp else "plain"] = {"cpu_ms": (time.process_time() - c) * 1e3, "infer_ms": (time.time() - t) * 1e3,
                                        "error": "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[-1][:120] if str(e).strip() else "")}
        continue
    ti = time.time() - t; ci = time.process_time() - c
    names = set()
    for vi in list(g.graph.value_info) + list(g.graph.output) + list(g.graph.input):
        tt = vi.type.tensor_type
        if tt.HasField("shape") and all(d.HasField("dim_value") or (d.HasField("dim_param") and not d.dim_param.startswith("unk__")) for d in tt.shape.dim):
            names.add(vi.name)
    names |= {i.name for i in g.graph.initializer}
    res["dp" if dp else "plain"] = {"infer_ms": ti * 1e3, "cpu_ms": ci * 1e3, "full": len(names)}
if len(sys.argv) > 2:
    # onnxruntime's symbolic_shape_infer.py, from the file given (not packaged by Debian), called as
    # its command line calls it with no option: int_max 2**31 - 1, auto_merge and guess_output_rank
    # off, verbose 0. When that raises, once more with --auto_merge --guess_output_rank (what its
    # error tells users to try): the time of a run that completes is the peer's time.
    import contextlib, importlib.util, io, logging, re, statistics
    spec = importlib.util.spec_from_file_location("symbolic_shape_infer", sys.argv[2])
    ssi = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ssi)
    # where it says why it stopped: printed by older versions, logged (at debug level) by newer ones
    stops = []
    class Stop(logging.Handler):
        def emit(self, rec):
            msg = rec.getMessage()
            if msg.startswith("Stopping at"):
                stops.append(msg)
    lg = getattr(ssi, "logger", None)
    if lg is not None:
        lg.addHandler(Stop())
        lg.setLevel(logging.DEBUG)
        lg.propagate = False

    def ort_run(merge):
        cpus, walls, out, err = [], [], None, None
        with contextlib.redirect_stdout(io.StringIO()):
            ssi.SymbolicShapeInference.infer_shapes(w, 2**31 - 1, merge, merge, 0)  # warm-up (sympy's caches)
        while not err and len(cpus) < 3 and sum(walls) < 2.0:
            del stops[:]
            t = time.time(); c = time.process_time()
            try:
                with contextlib.redirect_stdout(io.StringIO()) as log:
                    out = ssi.SymbolicShapeInference.infer_shapes(m, 2**31 - 1, merge, merge, 0)
            except Exception as e:
                err = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0][:120] if str(e).strip() else "")
                stop = stops + [l for l in log.getvalue().splitlines() if l.startswith("Stopping at")]
                if stop:
                    err += " (" + stop[0][:120] + ")"
            walls.append(time.time() - t); cpus.append(time.process_time() - c)
        r = {"cpu_ms": statistics.median(cpus) * 1e3, "wall_ms": statistics.median(walls) * 1e3, "runs": len(cpus)}
        if err:
            r["error"] = err
            return r
        if out is None:
            r["error"] = "returned None (opset below 7)"
            return r
        # a dim is exact when it is a dim_value or a dim_param without one of the script's fresh
        # symbols ('{op}_{node}_o{out}__d{dim}') or onnx's 'unk__N'
        fresh = re.compile(r"_o\d+__d\d+|unk__")
        shaped = set()
        for vi in list(out.graph.value_info) + list(out.graph.output) + list(out.graph.input):
            tt = vi.type.tensor_type
            if tt.HasField("shape") and all(d.HasField("dim_value") or (d.HasField("dim_param") and not fresh.search(d.dim_param))
                                            for d in tt.shape.dim):
                shaped.add(vi.name)
        r["full"] = len(shaped | {i.name for i in out.graph.initializer})
        return r
    r = ort_run(False)
    if "error" in r:
        r["merged"] = ort_run(True)
    res["ort"] = r
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
    nproc = max(5, runs)
    ver_cpu, ver_wall = process_times([sym, "--version"], 4 * nproc)
    print("load average at start: %.2f %.2f %.2f (1, 5, 15 min)" % os.getloadavg())
    print("fixed costs: empty context (sy_ctx_new + sy_env_new): %.1f KB peak heap; a one-node model (read + trace + guards): %.1f KB; "
          "peak RSS of 'symshape --version': %d KB; 'symshape --version' as a process: %.2f ms CPU (%.2f ms wall), median of %d"
          % (empty / 1e3, fixed / 1e3, base, ver_cpu, ver_wall, 4 * nproc))
    print("symbolic_shape_infer.py: %s" % (ort if ort else "not given (--ort-script PATH or SY_ORT_SYMBOLIC_SHAPE_INFER)"))
    print()
    print("| model | nodes | values exact / all | guards | symshape in process ms CPU (wall) | read / trace / guards ms "
          "| symshape infer process ms CPU (wall) | peak RSS MB | peak heap KB | heap - one-node KB | graph KB (onnx / reader) "
          "| (heap - one-node) / graph | onnx load ms CPU | infer_shapes ms CPU (wall) | data_prop ms CPU (wall) "
          "| fully shaped by onnx (plain / data_prop) | symbolic_shape_infer.py ms CPU (wall) | exactly shaped by it "
          "| slowest peer (load + infer, CPU ms) | speed-up vs slowest: CPU (wall) | load avg |")
    print("|" + "---|" * 21)
    for p in models:
        br = subprocess.run([bench, "--runs", str(runs), p], capture_output=True, text=True)
        if br.returncode or not br.stdout.strip():
            print("| %s | bench_onnx failed: %s |" % (os.path.basename(p), br.stderr.strip()[:200]))
            continue
        b = json.loads(br.stdout.strip().splitlines()[-1])
        r = subprocess.run([sym, "infer", p, "--json"], capture_output=True, text=True)
        if r.returncode not in (0, 1):
            print("| %s | infer error: %s |" % (os.path.basename(p), r.stderr.strip()[:200]))
            continue
        pcpu, pwall = process_times([sym, "infer", p, "--json"], nproc)
        vals = json.loads(r.stdout)["values"]
        exact = sum(1 for d in vals.values() if not any(isinstance(x, str) and re.search(r"\bu\d+\b", x) for x in d))
        _, kb = peak_child_kb([sym, "infer", p, "--json"])
        # in a scratch directory: symbolic_shape_infer.py saves the model it could not finish there
        # (sym_shape_infer_temp.onnx and its external data)
        with tempfile.TemporaryDirectory() as scratch:
            pr = subprocess.run([sys.executable, "-c", peer_script, os.path.abspath(p)] + ([os.path.abspath(ort)] if ort else []),
                                capture_output=True, text=True, cwd=scratch)
        if pr.returncode or not pr.stdout.strip():
            print("| %s | peer process failed: %s |" % (os.path.basename(p), pr.stderr.strip()[-200:].replace("\n", " ")))
            continue
        peer = json.loads(pr.stdout.strip().splitlines()[-1])
        heap = b["peak_heap_bytes"] - fixed
        pl, dp = peer["plain"], peer["dp"]
        # a peer that raises is no time to compare with: its column says why, it is not the slowest
        peers = {k: (peer["load_cpu_ms"] + v["cpu_ms"], peer["load_ms"] + v["infer_ms"])
                 for k, v in (("infer_shapes", pl), ("data_prop", dp)) if "error" not in v}
        onnx_col = ["fails: %s" % v["error"].replace("|", "/") if "error" in v else "%.2f (%.2f)" % (v["cpu_ms"], v["infer_ms"])
                    for v in (pl, dp)]
        full_col = "%s / %s" % tuple("-" if "error" in v else "%d" % v["full"] for v in (pl, dp))
        o = peer.get("ort")
        if not o:
            ort_col, ort_full = "not given", "-"
        else:
            # the run with the script's defaults; when it fails, the one with --auto_merge --guess_output_rank
            ok = o if "error" not in o else o["merged"] if "error" not in o["merged"] else None
            ort_col = "" if ok is o else "fails after %.1f ms CPU: %s; " % (o["cpu_ms"], o["error"].replace("|", "/"))
            if ok is None:
                m2 = o["merged"]
                ort_col += "with --auto_merge --guess_output_rank: fails after %.1f ms CPU: %s" % (m2["cpu_ms"], m2["error"].replace("|", "/"))
                ort_full = "-"
            else:
                ort_col += "%s%.1f (%.1f)" % ("" if ok is o else "with --auto_merge --guess_output_rank: ", ok["cpu_ms"], ok["wall_ms"])
                ort_full = "%d" % ok["full"]
                peers["symbolic_shape_infer"] = (peer["load_cpu_ms"] + ok["cpu_ms"], peer["load_ms"] + ok["wall_ms"])
        if peers:
            slow = max(peers, key=lambda k: peers[k][0])
            slow_col = "%s %.1f | %.0fx (%.0fx)" % (slow, peers[slow][0], peers[slow][0] / b["cpu_ms"], peers[slow][1] / b["total_ms"])
        else:
            slow_col = "- (every peer fails) | -"
        print("| %s | %d | %d / %d | %d | %.2f (%.2f) | %.2f / %.2f / %.2f | %.2f (%.2f) | %.1f | %.0f | %.0f | %.0f / %.0f | %.2f "
              "| %.1f | %s | %s | %s | %s | %s | %s | %.2f |" % (
                  os.path.basename(p), b["nodes"], exact, len(vals), b["guards"], b["cpu_ms"], b["total_ms"],
                  b["read_ms"], b["trace_ms"], b["guards_ms"], pcpu, pwall, kb / 1024,
                  b["peak_heap_bytes"] / 1e3, heap / 1e3, peer["graph_bytes"] / 1e3, b["graph_bytes"] / 1e3,
                  heap / peer["graph_bytes"], peer["load_cpu_ms"], onnx_col[0], onnx_col[1], full_col,
                  ort_col, ort_full, slow_col, os.getloadavg()[0]))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
