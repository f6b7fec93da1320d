"""symshape infer -o writes a model a user can load (issue 33 item 6): for an embedded model and
for models with external data (one file, one file per tensor, data in a subdirectory), written
next to the input, into another directory, and over the input itself, the output must pass
onnx.load + onnx.checker.check_model (by path: the external data is resolved) and run in
onnxruntime with the same results as the input model; its graph outputs' dims carry the same
dim_params as the value_info and the inputs (not the exporter's "Gemmy_dim_0"), and its
value_info is symshape's.
usage: test_output.py SYMSHAPE WORK_DIR   (SY_SKIP_TORCH_TESTS=1: skip, exit 77)
"""
import os as _os
import sys as _sys
if _os.environ.get("SY_SKIP_TORCH_TESTS") == "1":  # explicit opt-out only
    _sys.exit(77)
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
import onnx.numpy_helper
import torch
try:
    import onnxruntime as ort  # the PyTorch 2.x test venv has it
except ImportError:
    ort = None

SYM = sys.argv[1]
WORK = os.path.join(sys.argv[2], "onnx-output-torch-" + torch.__version__)
shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
fails = []
ncases = 0


def check(desc, ok, detail=""):
    global ncases
    ncases += 1
    if not ok:
        fails.append("%s %s" % (desc, detail))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x))).flatten(1)


torch.manual_seed(0)
src = os.path.join(WORK, "src")
os.makedirs(src)
emb = os.path.join(src, "net.onnx")
# dynamic_axes on the input only: the exporter names the output dim itself (e.g. "Gemmy_dim_0")
kw = {"dynamo": False} if "dynamo" in torch.onnx.export.__code__.co_varnames else {}
torch.onnx.export(Net().eval(), (torch.randn(2, 16),), emb, input_names=["x"], output_names=["y"],
                  dynamic_axes={"x": {0: "batch"}}, opset_version=17, **kw)
base = onnx.load(emb)
# torch 1.13's exporter (and 2.x's for an output without dynamic_axes in some graphs) names an output
# dim after the node: "Gemmy_dim_0". Written so here, whatever this torch names it.
base.graph.output[0].type.tensor_type.shape.dim[0].dim_param = "Gemmy_dim_0"
onnx.save(base, emb)
declared = [d.dim_param or d.dim_value for d in base.graph.output[0].type.tensor_type.shape.dim]
print("exporter's output dims:", declared)

# the external-data variants of the same model
variants = {"embedded": emb}
m = onnx.load(emb)
onnx.save_model(m, os.path.join(src, "one.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
                location="one.onnx.data", size_threshold=0)
variants["external, one file"] = os.path.join(src, "one.onnx")
m = onnx.load(emb)
onnx.save_model(m, os.path.join(src, "many.onnx"), save_as_external_data=True, all_tensors_to_one_file=False,
                size_threshold=0)
variants["external, a file per tensor"] = os.path.join(src, "many.onnx")
m = onnx.load(emb)
os.makedirs(os.path.join(src, "weights"))
onnx.save_model(m, os.path.join(src, "sub.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
                location="weights/sub.data", size_threshold=0)
variants["external, in a subdirectory"] = os.path.join(src, "sub.onnx")

x = np.random.RandomState(0).randn(5, 16).astype(np.float32)
want = ort.InferenceSession(emb).run(None, {"x": x})[0] if ort else None


def dims(vi):
    return [d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim]


for vname, path in variants.items():
    for where in ("beside", "other dir", "in place"):
        desc = "%s, %s:" % (vname, where)
        if where == "beside":
            out = path[:-5] + ".out.onnx"
        elif where == "other dir":
            d = os.path.join(WORK, "out-" + vname.replace(" ", "_").replace(",", ""))
            os.makedirs(d, exist_ok=True)
            out = os.path.join(d, "out.onnx")
        else:  # a copy of the model and its data, written over
            d = os.path.join(WORK, "inplace-" + vname.replace(" ", "_").replace(",", ""))
            shutil.copytree(src, d)
            path = out = os.path.join(d, os.path.basename(path))
        r = subprocess.run([SYM, "infer", path, "-o", out], capture_output=True, text=True)
        check(desc + " infer -o exits 0", r.returncode == 0, r.stderr)
        if r.returncode:
            continue
        try:
            got = onnx.load(out)  # loads the external data from the output's directory
            onnx.checker.check_model(out)
        except Exception as e:  # noqa: BLE001 - any failure is the finding
            check(desc + " onnx.load + checker", False, repr(e))
            continue
        check(desc + " onnx.load + checker", True)
        out_dims = dims(got.graph.output[0])
        in_dims = dims(got.graph.input[0])
        check(desc + " output dims named as the input's", out_dims == ["batch", 8], "%s" % out_dims)
        vis = {v.name: dims(v) for v in got.graph.value_info}
        check(desc + " value_info agrees with the output", vis and all(v[0] == "batch" for v in vis.values()), "%s" % vis)
        check(desc + " input untouched", in_dims == ["batch", 16], "%s" % in_dims)
        inits = {i.name: onnx.numpy_helper.to_array(i) for i in got.graph.initializer}
        ref = {i.name: onnx.numpy_helper.to_array(i) for i in base.graph.initializer}
        check(desc + " initializers equal", inits.keys() == ref.keys() and all(np.array_equal(inits[k], ref[k]) for k in ref))
        if ort:
            try:
                y = ort.InferenceSession(out).run(None, {"x": x})[0]
                check(desc + " onnxruntime runs it, same values", y.shape == (5, 8) and np.allclose(y, want), "%s" % (y.shape,))
            except Exception as e:  # noqa: BLE001
                check(desc + " onnxruntime", False, repr(e))

# a file of the data's name in the output directory that is not the data: an error, not overwritten
d = os.path.join(WORK, "clash")
os.makedirs(d)
with open(os.path.join(d, "one.onnx.data"), "wb") as f:
    f.write(b"not the weights")
r = subprocess.run([SYM, "infer", variants["external, one file"], "-o", os.path.join(d, "out.onnx")],
                   capture_output=True, text=True)
check("clash: exit 3, says why", r.returncode == 3 and "not overwritten" in r.stderr, r.stderr)
with open(os.path.join(d, "one.onnx.data"), "rb") as f:
    check("clash: the user's file kept", f.read() == b"not the weights")

for f in fails:
    print("FAIL:", f)
print("torch %s, onnx %s, onnxruntime %s: %d checks, %d failures" %
      (torch.__version__, onnx.__version__, ort.__version__ if ort else "absent", ncases, len(fails)))
sys.exit(1 if fails else 0)
