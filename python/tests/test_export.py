"""The exporter's contract: input forms, dynamic specs, loc, recorded size reads, nn modules
as functional ops, and ExportError (module path, op, source line) for what it cannot capture.
Also the command line (python3 -m symshape) in-process."""
import json
import os

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.functional import relu as imported_relu

import symshape
from symshape.__main__ import main as cli_main

HERE = os.path.abspath(__file__)


def ops(doc):
    return [n["op"] for n in doc["nodes"]]


class Small(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        y = imported_relu(self.bn(self.conv(x)))
        return y.mean(dim=(2, 3))


def test_document_and_nn_modules_as_functional_ops():
    doc = symshape.export(Small().eval(), {"x": torch.randn(2, 3, 9, 11)})
    assert doc["format"] == "symshape.graph" and doc["version"] == 1 and doc["name"] == "Small"
    x = doc["nodes"][0]
    assert x == {"name": "x", "op": "input", "dtype": "float32", "shape": [2, 3, 9, 11], "dynamic": [0, 1, 2, 3],
                 "loc": x.get("loc")} or x["op"] == "input"
    conv = next(n for n in doc["nodes"] if n["op"] == "conv2d")
    assert conv["args"][1] == {"ref": "conv.weight"} and conv["args"][3:] == [[1, 1], [1, 1], [1, 1], 1]
    bn = next(n for n in doc["nodes"] if n["op"] == "batch_norm")
    assert bn["args"][1] == {"ref": "bn.running_mean"} and bn["example"] == {"dtype": "float32",
                                                                              "shape": [2, 4, 9, 11]}
    assert "relu" in ops(doc)  # the from-import of F.relu is recorded as one call too
    params = {n["name"]: n for n in doc["nodes"] if n["op"] == "param"}
    assert params["conv.weight"]["shape"] == [4, 3, 3, 3]
    assert doc["outputs"] == [{"ref": next(n["name"] for n in doc["nodes"] if n["op"] == "mean")}]
    json.dumps(doc, allow_nan=False)  # strict JSON (no NaN/Infinity)
    gs = symshape.trace(doc)
    assert gs.check({"x": [1, 3, 5, 7]}) == (True, None)
    assert gs.output_shapes({"x": [1, 3, 5, 7]}) == [[1, 4]]
    assert not gs.check({"x": [1, 4, 5, 7]})[0]


def test_tuple_inputs_ints_functions_and_dynamic_forms(tmp_path):
    def fn(a, b, k):
        return a.view(a.size(0), -1) + b[:, :k]
    doc = symshape.export(fn, (torch.randn(2, 3, 4), torch.randn(2, 12), 12),
                          dynamic={"a": [0, {"dim": 2, "name": "w", "min": 1, "max": 64}], "b": "0:batch@1..8"})
    by = {n["name"]: n for n in doc["nodes"]}
    assert by["a"]["dynamic"] == [0, {"dim": 2, "name": "w", "min": 1, "max": 64}]
    assert by["b"]["dynamic"] == [{"dim": 0, "name": "batch", "min": 1, "max": 8}]
    assert by["k"]["op"] == "constant" and by["k"]["value"] == 12
    assert doc["name"] == "fn"
    doc2 = symshape.export(fn, {"a": torch.randn(2, 3, 4), "b": torch.randn(2, 12), "k": 12}, dynamic={"a": [0]})
    assert {n["name"]: n for n in doc2["nodes"]}["b"]["dynamic"] == []
    p = tmp_path / "g.json"
    symshape.export_to(str(p), fn, (torch.randn(2, 3, 4), torch.randn(2, 12), 12), dynamic={"a": [0], "b": [0]})
    gs = symshape.trace(str(p))
    assert gs.check({"a": [5, 3, 4], "b": [5, 12]})[0] and not gs.check({"a": [5, 3, 4], "b": [6, 12]})[0]
    # named, bounded dims (the dynamic-dim spec) go through export and trace(dynamic=...)
    doc3 = symshape.export(fn, (torch.randn(2, 3, 4), torch.randn(2, 12), 12),
                           dynamic={"a": ["0:batch@1..8"], "b": "0:batch@1..8"})
    gs3 = symshape.trace(doc3)
    assert gs3.check({"a": [1, 3, 4], "b": [1, 12]}) == (True, None)
    assert gs3.check({"a": [9, 3, 4], "b": [9, 12]}) == (False, "a.size()[0] <= 8")
    assert gs3.output_shapes({"a": [1, 3, 4], "b": [1, 12]}) == [[1, 12]]
    spec = {"dim": 0, "name": "n", "max": 4}
    gs4 = symshape.trace(doc3, dynamic={"a": [spec], "b": [spec]})
    assert gs4.check({"a": [4, 3, 4], "b": [4, 12]})[0] and not gs4.check({"a": [5, 3, 4], "b": [5, 12]})[0]


class Flow(nn.Module):
    def forward(self, x):
        n = int(x.shape[1])
        if x.size(0) > 1:
            x = x * 2
        for i in range(x.size(0)):
            x = x + i
        assert x.size(1) == n
        return x.reshape(-1, n)


def test_size_reads_are_recorded_with_loc():
    doc = symshape.export(Flow(), {"x": torch.randn(3, 5)})
    o = ops(doc)
    # int(x.shape[1]) of a traced int is the int itself (issue 32), range(x.size(0)) specializes
    assert o.count("guard_int") == 1 and o.count("guard_bool") == 2
    for n in doc["nodes"]:
        if n["op"] in ("guard_int", "guard_bool"):
            assert n["loc"]["file"] == HERE and n["loc"]["function"] == "forward" and n["loc"]["line"] > 0
    gs = symshape.trace(doc)
    locs = [g.loc for g in gs.guards if g.loc]
    assert locs and all(l["file"] == HERE for l in locs)
    assert "test_export.py:" in gs.report()
    assert gs.check({"x": [3, 5]})[0] and not gs.check({"x": [4, 5]})[0]  # range(x.size(0)) specialized
    assert gs.check({"x": [3, 6]})[0]  # the width is not pinned by int()


def test_asserts_keep_their_messages():
    # a Python assert on sizes exports as _assert with the model's message (the report's reason),
    # not as an anonymous guard_bool; a plain if stays guard_bool
    from models_util import Asserts  # not in a test module: pytest rewrites the asserts of those
    doc = symshape.export(Asserts(), {"x": torch.randn(3, 8)}, dynamic={"x": [0, 1]})
    msgs = [n["args"][1] for n in doc["nodes"] if n["op"] == "_assert"]
    assert msgs == ["width must be divisible by 4", "batch out of range", "batch out of range",
                    "assert x.shape[1] > 3", "f\"width {x.shape[1]} too large\""], msgs
    assert ops(doc).count("guard_bool") == 1
    gs = symshape.trace(doc)
    whys = [g.why for g in gs.guards]
    assert any("width must be divisible by 4" in w for w in whys), whys
    assert gs.check({"x": [3, 8]})[0] and not gs.check({"x": [3, 10]})[0] and not gs.check({"x": [65, 8]})[0]


class DataDependent(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


class Sub(nn.Module):
    def forward(self, x):
        return x.numpy()


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Sequential(nn.Identity(), Sub())

    def forward(self, x):
        return self.inner(x)


class Fails(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)


def test_export_errors_name_module_op_and_line():
    with pytest.raises(symshape.ExportError) as ei:
        symshape.export(DataDependent(), {"x": torch.randn(3)})
    e = ei.value
    assert "data-dependent control flow" in str(e) and e.loc["file"] == HERE and e.module == ""
    with pytest.raises(symshape.ExportError) as ei:
        symshape.export(Outer(), {"x": torch.randn(3)})
    assert ei.value.module == "inner.1" and ei.value.op == "numpy" and ei.value.loc["file"] == HERE
    with pytest.raises(symshape.ExportError) as ei:
        symshape.export(Fails(), {"x": torch.randn(2, 5)})
    assert ei.value.op == "linear" and ei.value.module == "fc" and "fails at the example" in str(ei.value)
    with pytest.raises(symshape.ExportError):
        symshape.export(Fails(), {"x": torch.randn(2, 3)}, dynamic={"x": [2]})
    with pytest.raises(symshape.ExportError):
        symshape.export(Fails(), {"x": torch.randn(2, 3)}, dynamic={"y": [0]})
    with pytest.raises(symshape.ExportError):
        symshape.export(Fails(), {"x": torch.randn(2, 3)}, dynamic={"x": ["0:@x"]})
    with pytest.raises(symshape.ExportError):
        symshape.export(Fails(), {"x": "not a tensor"})
    with pytest.raises(symshape.ExportError):
        symshape.export(Fails(), {"class": torch.randn(2, 3)})
    with pytest.raises(symshape.ExportError):
        symshape.export(Fails(), (torch.randn(2, 3).to_sparse(),))
    with pytest.raises(symshape.ExportError):
        symshape.export(42, {"x": torch.randn(2)})


def test_data_dependent_ops_export_as_such():
    def f(x):
        return x.nonzero(), torch.masked_select(x, x > 0), torch.unique(x), x.sum().item(), x.tolist()
    doc = symshape.export(f, {"x": torch.tensor([0.0, 1.5, -2.0])})
    o = ops(doc)
    for name in ("nonzero", "masked_select", "unique", "item", "tolist"):
        assert name in o


class ConstReads(nn.Module):
    """Python reads of the data of a module's constants (buffers, plain tensor attributes, traced values
    since pyg46): their values, with no guard and no unbacked symbol, as when they were real tensors"""

    def __init__(self):
        super().__init__()
        self.register_buffer("n", torch.tensor(3))
        self.register_buffer("scale", torch.tensor(2.5))
        self.cols = torch.tensor([4])
        self.last = None

    def forward(self, x):
        if self.n > 0 and bool((self.scale * 2).gt(1)):
            x = x * float(self.scale)
        y = x.reshape(-1, int(self.n)).repeat(self.n.item(), 1)
        self.last = y  # a plain attribute assigned in forward keeps what was written
        return self.last[:, :self.cols.tolist()[0] - 2], x.view(-1, *self.cols.numpy().tolist())


def test_constant_data_reads_are_values():
    m = ConstReads()
    cls = type(m)
    doc = symshape.export(m, {"x": torch.randn(4, 6)})
    assert type(m) is cls and isinstance(m.cols, torch.Tensor) and not isinstance(m.last, torch.Tensor)
    o = ops(doc)
    assert not {"item", "tolist", "numpy", "guard_bool", "guard_int"} & set(o), o
    assert {"n", "scale", "cols"} <= {n["name"] for n in doc["nodes"] if n["op"] == "param"}, doc["nodes"]
    gs = symshape.trace(doc)
    assert [g.text for g in gs.guards if "u0" in g.text] == []
    assert gs.check({"x": [5, 12]}) == (True, None)  # 60 elements: 3 | 60 and 4 | 60
    assert gs.check({"x": [5, 9]})[0] is False and gs.check({"x": [5, 8]})[0] is False
    assert gs.output_shapes({"x": [5, 12]}) == [[60, 2], [15, 4]]
    assert [list(t.shape) for t in m(torch.randn(5, 12))] == [[60, 2], [15, 4]]


def test_a_real_constant_used_twice_is_one_param():
    """torch.fx makes a get_attr node per use of a tensor made in forward (_tensor_constant0): the
    document held two param nodes of that name, which the reader refuses (not unique)"""
    def f(x):
        c = torch.ones(3)
        return x + c, x * c, torch.ones(16, 3)[:x.size(0)].expand(2, x.size(0), 3)
    doc = symshape.export(f, {"x": torch.randn(4, 3)})
    assert [n["name"] for n in doc["nodes"] if n["op"] == "param"] == ["_tensor_constant0", "_tensor_constant1"]
    assert "guard_int" not in ops(doc)
    gs = symshape.trace(doc)
    assert gs.output_shapes({"x": [7, 3]}) == [[7, 3], [7, 3], [2, 7, 3]]
    assert gs.check({"x": [17, 3]})[0] is False  # 16 rows: [:17] has 16, expand to 17 fails on the CPU


def test_output_shapes_of_data_dependent_outputs_are_none():
    """issue 38: output_shapes raised a bare TypeError ('not an integer constant: u0') on a
    data-dependent output; such a size is None (the input sizes cannot tell it), every other
    size is the CPU's, and output_exprs keeps the unbacked symbol"""
    def f(x):
        return x.nonzero(), torch.unique(x), torch.masked_select(x, x > 0), (x > 0).sum().item(), x.t()
    doc = symshape.export(f, {"x": torch.randn(4, 5)})
    gs = symshape.trace(doc)
    for shape in ([4, 5], [0, 3], [7, 1]):
        x = torch.randn(*shape)
        real = [list(t.shape) for t in f(x)[:3]] + [[int(f(x)[3])], list(f(x)[4].shape)]
        got = gs.output_shapes({"x": shape})
        assert len(got) == len(real)
        for g, r in zip(got, real):
            assert len(g) == len(r) and all(a is None or a == b for a, b in zip(g, r)), (shape, got, real)
        assert got[0] == [None, 2] and got[1] == [None] and got[2] == [None] and got[3] == [None]
        assert got[4] == shape[::-1]
    assert str(gs.output_exprs()[0][0]).startswith("u")


def test_non_finite_floats_are_strings():
    def f(x):
        return x.masked_fill(x > 0, float("-inf"))
    doc = symshape.export(f, {"x": torch.randn(2, 3)})
    mf = next(n for n in doc["nodes"] if n["op"] == "masked_fill")
    assert mf["args"][2] == "-inf"
    json.dumps(doc, allow_nan=False)


def test_cli_report_and_export(tmp_path, capsys):
    assert cli_main(["report", "torchvision.models:squeezenet1_1", "--input", "x=1,3,48,64",
                     "--dynamic", "x=2,3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("symshape guard report: squeezenet1_1") and "x.size()[2]" in out
    p = tmp_path / "s.json"
    assert cli_main(["export", "torchvision.models:squeezenet1_1", "--input", "x=1,3,48,64", "-o", str(p)]) == 0
    doc = json.loads(p.read_text())
    assert doc["nodes"][0]["dynamic"] == [0, 1, 2, 3]
    assert cli_main(["report", "torchvision.models:squeezenet1_1", "--input", "x=1,3,48,64", "-b", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["format"] == "symshape.guards"
    assert cli_main(["report", "no_such_module_xyz:f", "--input", "x=1"]) == 3  # bad input, as `symshape run`
    assert "no module named 'no_such_module_xyz'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as ei:
        cli_main(["report", "torchvision.models:squeezenet1_1", "--input", "x=1,a"])
    assert ei.value.code == 2
    with pytest.raises(SystemExit):
        cli_main(["report", "torchvision.models:squeezenet1_1", "--input", "x=1", "--dynamic", "y=0"])
    assert cli_main(["report", "torchvision.models:squeezenet1_1", "--input", "x=1,3,4,4"]) == 3
    assert "fails at the example" in capsys.readouterr().err
