"""The prelude the onnxruntime-checked ONNX tests share (test_issue32.py, test_related.py,
test_issue38.py, test_types.py): the skips (SY_SKIP_TORCH_TESTS=1, no onnxruntime: exit 77), the
command line (SYMSHAPE CACHE_DIR) and the work folder, the list of checks and its summary, the
symshape runner, the cached torch.onnx.export, the onnxruntime session that outputs every value,
and a writer of one-output models. Apart from onnx_ref.py, the numpy reference evaluator, which
needs no onnxruntime and no symshape."""
import os
import subprocess
import sys


def skip_if_opted_out():
    """exit 77 (skipped) under SY_SKIP_TORCH_TESTS=1: call before the heavy imports"""
    if os.environ.get("SY_SKIP_TORCH_TESTS") == "1":  # explicit opt-out only
        sys.exit(77)


def onnxruntime(severity):
    """the onnxruntime module with its default logger at severity; exit 77 where it is missing"""
    try:
        import onnxruntime as ort
    except ImportError:  # Debian's torch 1.13 side: no onnxruntime, no ground truth here
        print("no onnxruntime: skipped")
        sys.exit(77)
    ort.set_default_logger_severity(severity)
    return ort


class Checks:
    """check(desc, ok, detail) records a failure with its detail (600 characters at most);
    finish(versions) prints them and the count, and exits 1 when one failed"""

    def __init__(self):
        self.fails = []
        self.n = 0

    def check(self, desc, ok, detail=""):
        self.n += 1
        if not ok:
            self.fails.append("%s %s" % (desc, str(detail)[:600]))

    def finish(self, versions):
        for f in self.fails:
            print("FAIL:", f)
        print("%s: %d checks, %d failures" % (versions, self.n, len(self.fails)))
        sys.exit(1 if self.fails else 0)


def start(tag):
    """(SYM, WORK, CHECKS, sh) of a test run as `test_X.py SYMSHAPE CACHE_DIR`: the symshape binary,
    the folder CACHE_DIR/tag (made when missing; its files are kept across runs), a new Checks and
    the runner of SYMSHAPE"""
    sym = sys.argv[1]
    work = os.path.join(sys.argv[2], tag)
    os.makedirs(work, exist_ok=True)
    return sym, work, Checks(), runner(sym)


def torch_export(path, m, args, names, dyn):
    """path, made once (an existing file is the cache): torch.onnx.export of m.eval() at args (a
    tuple, or a function that makes it after the seed is set), input_names names, dynamic_axes dyn,
    opset 17, the TorchScript exporter (dynamo=False where torch has the flag), seed 0; written to
    path.tmp and renamed, so an interrupted export leaves no half file"""
    import torch
    if not os.path.exists(path):
        torch.manual_seed(0)
        kw = {"dynamo": False} if "dynamo" in torch.onnx.export.__code__.co_varnames else {}
        torch.onnx.export(m.eval(), args() if callable(args) else args, path + ".tmp", input_names=names,
                          dynamic_axes=dyn, opset_version=17, **kw)
        os.replace(path + ".tmp", path)
    return path


def session(ort, path, extra=(), threads=None, log=4):
    """an onnxruntime CPU session of the model at path with the values extra added as outputs
    (every value computed as the graph says: no graph optimization); threads: intra-op threads
    (None: onnxruntime's default); log: the session's log severity (4, none: a refused point is a
    finding, not a log line)"""
    import onnx
    m = onnx.load(path)
    have = {o.name for o in m.graph.output} | {i.name for i in m.graph.input} | {i.name for i in m.graph.initializer}
    for v in extra:
        if v not in have:
            m.graph.output.append(onnx.ValueInfoProto(name=v))
    so = ort.SessionOptions()
    so.log_severity_level = log
    if threads is not None:
        so.intra_op_num_threads = threads
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])


def shapes_at(sess, sizes, ints=()):
    """{value: shape} of every output of sess and every input at the input sizes ({input: shape};
    random inputs: float32, int64 in [0, 10) for the inputs named in ints), or None where
    onnxruntime refuses them"""
    import numpy as np
    feeds = {i.name: (np.random.randint(0, 10, size=sizes[i.name]).astype(np.int64) if i.name in ints
                      else np.random.randn(*sizes[i.name]).astype(np.float32)) for i in sess.get_inputs()}
    try:
        outs = sess.run(None, feeds)
    except Exception:  # noqa: BLE001 - the runtime refused the point
        return None
    r = {o.name: list(v.shape) for o, v in zip(sess.get_outputs(), outs)}
    r.update({k: list(v.shape) for k, v in feeds.items()})
    return r


NS = {"FloorDiv": lambda a, b: a // b, "Mod": lambda a, b: a % b, "CeilDiv": lambda a, b: -(-a // b), "Min": min, "Max": max}


def evaluate(d, env):
    """the value of the dim d of infer --json (an int, or an expression over the symbols) at env
    ({symbol: size})"""
    return d if isinstance(d, int) else eval(d, {"__builtins__": {}}, dict(NS, **env))


def dim_sources(inf):
    """{symbol: (input, dim)} of infer --json's symbols (their source: INPUT.size()[DIM])"""
    import re
    src = {}
    for s, info in inf["symbols"].items():
        mm = re.match(r"(.+)\.size\(\)\[(\d+)\]$", info["source"])
        src[s] = (mm.group(1), int(mm.group(2)))
    return src


def runner(sym):
    """sh(*args): the symshape binary sym run with args, output captured as text"""
    def sh(*cmd):
        return subprocess.run([sym, *cmd], capture_output=True, text=True)
    return sh


def save(work, name, nodes, inputs, inits=(), opset=17):
    """work/name.onnx: the graph of nodes with one float output "y" (shape left to inference),
    opset `opset`, IR version 8; returns its path"""
    import onnx
    from onnx import TensorProto, helper
    g = helper.make_graph(nodes, name, inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    path = os.path.join(work, name + ".onnx")
    onnx.save(m, path)
    return path
