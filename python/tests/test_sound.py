"""Issue 10, end to end from torch models: true division of sizes followed by int() /
math.floor / math.ceil, negative-step slices of size lists, dtype comparisons
(nn.MultiheadAttention with a key padding mask). Each model is exported with symshape.export,
traced, and at every point of a grid: the guard set's verdict is compared with real PyTorch
(CPU). An accepted point where torch fails, or where the output shapes differ, is a soundness
violation; the exact acceptance count per model is asserted (the guards must not be
needlessly narrow either)."""
import itertools
import math

import pytest
import torch
import torch.nn as nn

import symshape


def _torch_shapes(model, inputs):
    try:
        with torch.no_grad():
            out = model(*inputs)
    except (RuntimeError, ValueError, IndexError) as e:
        return None, str(e)
    outs = out if isinstance(out, (tuple, list)) else [out]
    return [list(o.shape) for o in outs if isinstance(o, torch.Tensor)], None


def _sweep(model, make_inputs, example, points, dynamic=None, **trace_kw):
    """(doc, guard set, accepted points, violations, rejected points where torch runs): every
    point is run by torch and checked by the guards."""
    doc = symshape.export(model, make_inputs(*example), dynamic=dynamic)
    gs = symshape.trace(doc, **trace_kw)
    accepted, violations, narrow = 0, [], []
    names = [n["name"] for n in doc["nodes"] if n["op"] == "input"]
    for p in points:
        ins = make_inputs(*p)
        sizes = {n: list(t.shape) for n, t in zip(names, ins)}
        ok, _ = gs.check(sizes)
        want, err = _torch_shapes(model, ins)
        if ok:
            accepted += 1
            if want is None:
                violations.append((p, "accepted, torch fails: " + err))
            elif gs.output_shapes(sizes) != want:
                violations.append((p, "shapes %s != torch %s" % (gs.output_shapes(sizes), want)))
        elif want is not None:
            narrow.append(p)
    return doc, gs, accepted, violations, narrow


class TrueDiv(nn.Module):
    def forward(self, x):
        h = int(x.size(1) / 2)                 # truncation of a non-negative quotient: FloorDiv
        w = math.ceil(x.size(2) / 4)           # CeilDiv
        f = math.floor(x.size(2) / x.size(1))  # FloorDiv by a size
        t = int(-x.size(2) / 3) + 6            # truncation toward zero of a negative quotient
        return x.new_zeros(h, w, f, t), x.view(x.size(0), w, -1)  # view: w must divide sizes (1 = x.size(2) / 4)


def test_true_division_then_int_floor_ceil():
    grid = [(2, a, b) for a, b in itertools.product((1, 2, 3, 6, 7), (1, 4, 8, 9, 12, 17, 20, 21, 24))]
    doc, gs, acc, viol, narrow = _sweep(TrueDiv(), lambda n, a, b: (torch.randn(n, a, b),), (2, 6, 9), grid,
                                        duck_sizing=False, specialize_01=False)
    ops = [n["op"] for n in doc["nodes"]]
    assert {"truediv", "int", "ceil", "floor"} <= set(ops) and "guard_int" not in ops
    # accepted exactly where torch runs: b in {1, 4, 8, 9, 12, 20} (the view needs CeilDiv(b, 4) | a*b; b = 21, 24
    # give int(-b / 3) + 6 < 0; b = 17: 5 does not divide 17a)
    assert viol == [] and narrow == []
    assert acc == 5 * 6
    assert gs.output_shapes({"x": [2, 7, 20]}) == [[3, 5, 2, 0], [2, 5, 28]]
    assert not gs.check({"x": [2, 8, 21]})[0]  # int(-21 / 3) + 6 = -1: torch raises too


class SizeListReversed(nn.Module):
    def forward(self, x):
        s = x.size()[100000:-100000:-1]   # Python: the whole size, reversed
        r = x.size()[-1:0:-2]
        return x.new_zeros(s), x.new_zeros(r)


def test_negative_step_slice_of_size_list():
    grid = [(a, b, c) for a, b, c in itertools.product((1, 2, 5), (2, 3), (4, 7))]
    doc, gs, acc, viol, narrow = _sweep(SizeListReversed(), lambda a, b, c: (torch.randn(a, b, c),), (2, 5, 4), grid,
                                duck_sizing=False, specialize_01=False)
    assert viol == [] and narrow == [] and acc == len(grid)
    assert gs.output_shapes({"x": [2, 5, 7]}) == [[7, 5, 2], [7]]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        torch.randn(2, 3)[::-1]  # a tensor rejects it; symshape too (test_ops_wide)


class MHA(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 2, batch_first=True)

    def forward(self, x, mask):
        return self.attn(x, x, x, key_padding_mask=mask)[0]


def test_multihead_attention_with_key_padding_mask():
    m = MHA().eval()
    grid = [(n, l, lm) for n, l, lm in itertools.product((1, 2, 3), (1, 5, 8), (5, 8))]
    doc, gs, acc, viol, narrow = _sweep(m, lambda n, l, lm: (torch.randn(n, l, 16), torch.zeros(n, lm, dtype=torch.bool)),
                                (2, 5, 5), grid, dynamic={"x": [0, 1], "mask": [0, 1]}, duck_sizing=False,
                                specialize_01=False)
    ne = [n for n in doc["nodes"] if n["op"] == "ne"]
    assert ne and ne[0]["args"][1] == {"dtype": "bool"}  # dtype != torch.bool, compared by value
    assert viol == [] and narrow == []
    assert acc == 6  # exactly the points where the mask's length equals the sequence length
    # the same graph with the dtype spelled as a name ("bool", as hand-written graphs do)
    ne[0]["args"][1] = "bool"
    gs2 = symshape.trace(doc, duck_sizing=False, specialize_01=False)
    assert gs2.check({"x": [3, 8, 16], "mask": [3, 8]}) == (True, None)
    assert gs2.output_shapes({"x": [3, 8, 16], "mask": [3, 8]}) == [[3, 8, 16]]


class ChannelsLast(nn.Module):
    def forward(self, x):
        n = x.size(0)
        if x.is_contiguous(memory_format=torch.channels_last):
            return x.permute(0, 2, 3, 1).view(n, -1)  # a view only for an NHWC-dense input
        return x.view(n, -1)


def test_channels_last_input_strides():
    x = torch.randn(2, 3, 5, 7).to(memory_format=torch.channels_last)
    doc = symshape.export(ChannelsLast(), (x,), dynamic={"x": [0, 2, 3]})
    assert doc["nodes"][0]["strides"] == "channels_last"
    assert "is_contiguous" in [n["op"] for n in doc["nodes"]]
    gs = symshape.trace(doc)
    strides = [g.text for g in gs.guards if "stride" in g.text]
    assert sorted(strides) == ["3*x.size()[2]*x.size()[3] == x.stride()[0]", "3*x.size()[3] == x.stride()[2]",
                               "x.stride()[1] == 1", "x.stride()[3] == 3"]
    for n, h, w in ((2, 5, 7), (4, 9, 2), (3, 16, 16)):
        t = torch.randn(n, 3, h, w).to(memory_format=torch.channels_last)
        ok, failed = gs.check({"x": [n, 3, h, w]}, strides={"x": list(t.stride())})
        assert ok, failed
        assert gs.output_shapes({"x": [n, 3, h, w]}) == [list(ChannelsLast()(t).shape)]
        # the same sizes contiguous: the trace's layout does not hold, a stride guard rejects
        ok, failed = gs.check({"x": [n, 3, h, w]})
        assert not ok and "stride" in failed


def test_circular_pad_mixed_signs_never_accepts_what_torch_refuses():
    """F.pad(mode='circular') with pads of mixed signs: torch's _pad_circular copies the wrapped part
    from its own output, and refuses where the two regions overlap in memory (found by the
    adversarial pass of issue 31: pads (-1, 2) at width 2). symshape runs the kernel's copies for
    constant pads (ops_shape.c circular_runs): the same answer as torch at every width 0..6 and pad
    pair in -5..5 with mixed signs, under both torch versions."""
    import torch.nn.functional as F
    stricter = checked = 0
    for L in range(0, 7):
        for l in range(-5, 6):
            for r in range(-5, 6):
                if (l < 0) == (r < 0) or l == 0 or r == 0:
                    continue
                try:
                    F.pad(torch.randn(1, 1, L), (l, r), mode="circular")
                    ran = True
                except RuntimeError:
                    ran = False
                doc = {"format": "symshape.graph", "version": 1, "torch_version": torch.__version__, "nodes": [
                    {"name": "x", "op": "input", "dtype": "float32", "shape": [1, 1, L], "dynamic": []},
                    {"name": "o", "op": "pad", "args": [{"ref": "x"}, [l, r]], "kwargs": {"mode": "circular"}}],
                    "outputs": [{"ref": "o"}]}
                try:
                    symshape.trace(doc)
                    ours = True
                except symshape.Error:
                    ours = False
                checked += 1
                assert ran == ours, "circular pads (%d, %d) at width %d: torch %s, symshape %s" % (
                    l, r, L, "runs" if ran else "refuses", "accepts" if ours else "refuses")
                stricter += ran and not ours
    print("circular mixed-sign pads: %d checked, all agree with torch" % checked)
    assert checked == 350
