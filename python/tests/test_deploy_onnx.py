"""Python `region`, `profile` and `corners` on an ONNX file (issue 36, docs/deploy.md): the API
(symshape.deploy.OnnxModel, region(path), profiles, Region.corners_text/corners_json) and
`python3 -m symshape region|profile|corners MODEL.onnx` print what the C commands print, byte for
byte; the points drawn inside the region and inside the profile boxes run under onnxruntime.

The model is built with onnx.helper: x, y [b, s] -> Add -> Reshape [0, -1, 4] (s a multiple of
4) -> Transpose, and Concat with x on axis 1 (a second output)."""
import json
import os
import random
import subprocess
import sys
import tempfile

import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
np = pytest.importorskip("numpy")

from symshape.deploy import OnnxModel, Region, profiles, region  # noqa: E402

NPOINTS = 60  # points run under onnxruntime inside the region, and again inside the profile boxes


def _cli():
    lib = os.environ.get("SYMSHAPE_LIB")
    cli = os.path.join(os.path.dirname(lib), "symshape") if lib else None
    if not cli or not os.path.exists(cli):
        pytest.skip("the symshape CLI is not beside SYMSHAPE_LIB")
    return cli


def _pyenv():
    """the environment of python3 -m symshape: this tree's package first (ctest sets no PYTHONPATH)"""
    env = dict(os.environ)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def _model(path):
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", "s"])
    r = helper.make_tensor_value_info("r", TensorProto.FLOAT, [None, None, None])
    c = helper.make_tensor_value_info("c", TensorProto.FLOAT, [None, None])
    shape = helper.make_tensor("shape", TensorProto.INT64, [3], [0, -1, 4])
    nodes = [helper.make_node("Add", ["x", "y"], ["z"]),
             helper.make_node("Reshape", ["z", "shape"], ["z3"]),
             helper.make_node("Transpose", ["z3"], ["r"], perm=[0, 2, 1]),
             helper.make_node("Concat", ["z", "x"], ["c"], axis=1)]
    g = helper.make_graph(nodes, "addreshape", [x, y], [r, c], initializer=[shape])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8  # what the onnxruntime of the test suite reads
    onnx.checker.check_model(m)
    onnx.save(m, path)


def _run(cli_args, cli, env):
    """(C stdout, C status, Python stdout, Python status) of one command"""
    c = subprocess.run([cli] + cli_args, capture_output=True, text=True, timeout=300)
    p = subprocess.run([sys.executable, "-m", "symshape"] + cli_args, capture_output=True, text=True, timeout=300, env=env)
    assert c.returncode in (0, 1), c.stderr
    return c.stdout, c.returncode, p.stdout, p.returncode, p.stderr


def _feeds(sizes, rnd):
    return {k: np.asarray([rnd.random() for _ in range(int(np.prod(v)))], dtype=np.float32).reshape(v)
            for k, v in sizes.items()}


def _run_points(sess, points, rnd):
    fails = []
    for sizes in points:
        try:
            r, c = sess.run(None, _feeds(sizes, rnd))
            b, s = sizes["x"]
            assert list(r.shape) == [b, 4, s // 4] and list(c.shape) == [b, 2 * s], (r.shape, c.shape)
        except Exception as e:  # noqa: BLE001 - any failure of the model is a violation
            fails.append((sizes, str(e).splitlines()[0] if str(e) else type(e).__name__))
    return fails


def boxes_of(prof, one, rnd):
    """NPOINTS points drawn from the boxes of each profiles result, round robin"""
    boxes = []
    for i in range(NPOINTS):
        for p in (prof, one):
            box = p["data"]["profiles"][i % len(p["data"]["profiles"])]
            sizes = {}
            for dd in box["dims"]:
                sizes.setdefault(dd["input"], []).append(rnd.randint(dd["min"], min(dd["max"], dd["min"] + 200)))
            boxes.append(sizes)
    return boxes


def test_onnx_region_profile_corners_match_cli_and_run():
    cli = _cli()
    env = _pyenv()
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "addreshape.onnx")
        _model(path)
        hist = [{"sizes": {"x": [b, s], "y": [b, s]}, "count": n}
                for b, s, n in ((1, 8, 40), (1, 12, 5), (4, 64, 20), (2, 16, 7), (8, 128, 3))]
        hpath = os.path.join(d, "h.json")
        with open(hpath, "w") as f:
            json.dump(hist, f)
        # the Python command prints what the C command prints, with its exit status
        for args in (["region", "-f", "all"], ["region", "-f", "json"], ["region"], ["region", "-f", "torch", "-f", "spec"],
                     ["profile", "-f", "all"], ["profile", "-f", "json", "--max-size", "100"],
                     ["profile", "--histogram", hpath, "-k", "2", "-f", "all"], ["profile", "--histogram", hpath, "-f", "json"],
                     ["corners"], ["corners", "--json"]):
            c, crc, p, prc, perr = _run(args + [path], cli, env)
            assert (p, prc) == (c, crc), (args, perr, c, p)
            assert c.strip(), args
        # the API: the same texts
        reg_json = json.loads(subprocess.run([cli, "region", "-f", "json", path], capture_output=True, text=True).stdout)
        with OnnxModel(path) as om:
            reg = Region(om)
            prof = profiles(om, hist, k=2)
            one = profiles(om, [])
            assert om.region().texts == reg.texts
        assert reg.data == reg_json and reg.proved
        assert region(path).texts == reg.texts
        for fmt in ("text", "torch", "jax", "onnx", "spec", "json"):
            c = subprocess.run([cli, "region", "-f", fmt, path], capture_output=True, text=True).stdout
            assert reg.texts[fmt] == c, fmt
        for fmt in ("text", "trtexec", "ort", "torch-trt", "openvino", "json"):
            c = subprocess.run([cli, "profile", "--histogram", hpath, "-k", "2", "-f", fmt, path], capture_output=True,
                               text=True).stdout
            assert prof["texts"][fmt] == c, fmt
            c = subprocess.run([cli, "profile", "-f", fmt, path], capture_output=True, text=True).stdout
            assert one["texts"][fmt] == c, fmt
        assert reg.corners_text() == subprocess.run([cli, "corners", path], capture_output=True, text=True).stdout
        assert reg.corners_json == subprocess.run([cli, "corners", "--json", path], capture_output=True, text=True).stdout
        # the region says what the model needs: y's sizes those of x, b >= 1 (Reshape's 0 and -1
        # with no elements), and b*(s mod 4) == 0 kept as a runtime check (b >= 1: s a multiple of 4)
        by = {(dd["input"], dd["dim"]): dd for dd in reg.dims}
        assert by[("y", 1)]["var"] == by[("x", 1)]["var"] and by[("y", 0)]["var"] == by[("x", 0)]["var"], reg.texts["text"]
        assert reg.vars[by[("x", 0)]["var"]]["min"] == 1, reg.texts["text"]
        assert [k["text"] for k in reg.kept] == ["x.size()[0]*Mod(x.size()[1], 4) == 0"], reg.kept
        # onnxruntime: points inside the region and inside every profile box run; each rejected
        # corner names its guard, each accepted one runs
        sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        rnd = random.Random(36)
        boxes = boxes_of(prof, one, rnd)
        # a region point the kept check rejects is counted, not run (the guard set rejects it)
        with OnnxModel(path) as om:
            drawn = [reg.sizes(t) for t in reg.sample(8 * NPOINTS, cap=40, seed=36)]
            verdicts = [om.check(sz) for sz in drawn]
            inside = [sz for sz, (ok, _) in zip(drawn, verdicts) if ok][:NPOINTS]
            assert all(g == reg.kept[0]["text"] for ok, g in verdicts if not ok), verdicts
            assert all(om.check(sz)[0] for sz in boxes), "a profile box holds a point the guards reject"
        assert len(inside) >= 50 and len(boxes) >= 100
        fails = _run_points(sess, inside + boxes, rnd)
        assert not fails, fails[:3]
        for c in reg.corners:
            if c["accept"]:
                assert not _run_points(sess, [c["sizes"]], rnd), c
            else:
                assert c["guard"], c


def test_onnx_python_command_usage():
    """--input/--dynamic and corners --run are for MODULE:CALLABLE: a usage error (2) on an .onnx"""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.onnx")
        _model(path)
        for args in (["corners", path, "--run"], ["region", path, "--input", "x=2,4"]):
            p = subprocess.run([sys.executable, "-m", "symshape"] + args, capture_output=True, text=True, timeout=300,
                               env=_pyenv())
            assert p.returncode == 2 and "MODEL.onnx" in p.stderr, (args, p.stderr)
        p = subprocess.run([sys.executable, "-m", "symshape", "region", os.path.join(d, "missing.onnx")],
                           capture_output=True, text=True, timeout=300, env=_pyenv())
        assert p.returncode == 3 and "missing.onnx" in p.stderr, p.stderr


def test_onnx_check_of_an_input_past_int64_says_so():
    """issue 38 (fourth pass): OnnxModel.check at sizes whose numel is past int64 (a corner of an
    unbounded region: [224, 3, 2^62 - 1, 224]) raised ValueError('NULL pointer access'): no guard
    fails there (sy_gset_check_si's failed is -1, its message says why) and the binding read
    guard -1. It rejects with that message, as GuardSet.check does. (onnx46: at [2^62, 8] the guard
    b <= 2^61 - 1 now fails first: Transpose's [b, 4, FloorDiv(s, 4)] may be empty, and onnxruntime's
    running element count 4*b must fit int64 then; [2^40, 2^30] passes it.)"""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.onnx")
        _model(path)
        with OnnxModel(path) as om:
            assert om.check({"x": [2, 8], "y": [2, 8]}) == (True, None)
            acc, why = om.check({"x": [2 ** 40, 2 ** 30], "y": [2 ** 40, 2 ** 30]})
            assert not acc and why.startswith("input x cannot exist: its numel"), why


def _pool_models(d):
    """(name, path, input rank) of MaxPool / AveragePool / LpPool (NOTSET, ceil_mode) and Resize
    to explicit sizes, each over an input x of all-symbolic dims"""
    from onnx import TensorProto, helper
    out = []

    def save(name, nodes, rank, inits=()):
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["d%d" % i for i in range(rank)])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
        m = helper.make_model(helper.make_graph(nodes, name, [x], [y], initializer=list(inits)),
                              opset_imports=[helper.make_opsetid("", 18)])
        m.ir_version = 8
        path = os.path.join(d, name + ".onnx")
        onnx.save(m, path)
        out.append((name, path, rank))
    save("maxpool", [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)], 4)
    save("avgpool", [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2], pads=[1, 1])], 3)
    save("lppool", [helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[1, 1], p=2)], 4)
    sizes = helper.make_tensor("sizes", onnx.TensorProto.INT64, [2], [5, 3])
    save("resize", [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], axes=[2, 3], mode="nearest")], 4, [sizes])
    return out


def test_onnx_pool_and_resize_of_empty_inputs_follow_onnxruntime():
    """issue 38 (fourth pass), regions of ONNX models run under onnxruntime (39 torch-exported
    models, 1,115 points): a pool's region reached C = 0 or a spatial dim 0 with N > 0, and
    Resize to explicit sizes an input dim 0, and the guards accepted them where onnxruntime
    fails ('Invalid input shape. Only N can be zero', 'Input dim is zero but required output
    dim is non-zero'): 34 unsound points. Now nothing accepted fails on a grid of sizes with 0s
    (270 sizes), and the sizes with an empty batch or no empty dim that run are accepted."""
    import itertools
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 4
    rnd = random.Random(38)
    with tempfile.TemporaryDirectory() as d:
        bad, n, kept = [], 0, 0
        for name, path, rank in _pool_models(d):
            sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
            with OnnxModel(path) as om:
                for shape in itertools.product(*[(0, 1, 3)] * rank):
                    shape = list(shape)
                    acc, why = om.check({"x": shape})
                    try:
                        sess.run(None, _feeds({"x": shape}, rnd))
                        ran = True
                    except Exception as e:  # noqa: BLE001 - any failure of the model counts
                        ran = str(e).splitlines()[-1][:120]
                    n += 1
                    if acc and ran is not True:
                        bad.append((name, shape, acc, why, ran))
                    if shape[0] == 0 and min(shape[1:]) > 0 or min(shape) > 0:
                        kept += ran is True
                        if ran is True and not acc:  # an empty batch runs, and is accepted
                            bad.append((name, shape, acc, why, ran))
        assert n == 3 * 81 + 27 and kept >= 60 and not bad, (kept, bad[:10])
