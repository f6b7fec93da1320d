"""The prelude the onnxruntime-checked ONNX tests share (test_issue32.py, test_issue38.py,
test_types.py): the skips (SY_SKIP_TORCH_TESTS=1, no onnxruntime: exit 77), the list of checks
and its summary, the symshape runner, and a writer of one-output models. Apart from onnx_ref.py,
the numpy reference evaluator, which needs no onnxruntime and no symshape."""
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
