"""relax38 (issue 38 leftovers): sizes the CPU runs that the guards threw away, and the soundness
faults found on the way, each model against real CPU execution (torch 2.14.1 and 1.13) at >= 20
sizes under the default and the relaxed policy, the counts asserted exactly.

- A dim expanded in place (expand / expand_as, masked_fill_, add_ and x += y, SDPA's mask added
  to the scores):
  ATen takes the target where the dim is 1 and requires equality elsewhere, the result is the
  target either way, so the requirement is Or(a == 1, a == t) (shapeenv ops_util.c
  op_require_expands). The example's branch was pinned before ("is the size 1?" first), and
  x += y was exported as x + y: a batch of 1 at the example accepted x[1, T] += y[5, T].
- F.scaled_dot_product_attention ignored attn_mask: a mask of another batch or length was
  accepted (torch 2.x only; 1.13 has no public SDPA).
- x.to / contiguous / clone(memory_format=torch.channels_last) kept x's row-major strides.
- nn.MultiheadAttention in eval mode (batch_first self-attention) takes its fused path under
  no_grad, which fails at batch or length 0 with a 3-D attn_mask whatever need_weights is.
The unflatten-then-view case is in test_view_ops_strides.py."""
import itertools

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from models_util import POLICIES, assert_counts, soundness
from models_util import policy_kw as _kw

T2 = int(torch.__version__.split(".")[0]) >= 2
CL = torch.channels_last

# (batch of the big operand, batch of the one that expands, length): 1s and equal batches both ways
BBT = [(b, m, t) for b in (1, 2, 3) for m in (1, 2, 3) for t in (1, 4)] + [(5, 1, 7), (5, 5, 7), (0, 1, 3), (1, 0, 3), (0, 0, 2)]


class ExpandAs(nn.Module):
    def forward(self, x, y):
        return x.expand_as(y) + 0


class MaskedFillInplace(nn.Module):
    def forward(self, x, mask):
        return x.clone().masked_fill_(mask, 0.0)


class AddInplace(nn.Module):
    def forward(self, x, y):
        x = x.clone()
        x.add_(y)
        return x


class IAdd(nn.Module):
    """x += y: in place on a tensor (torch.fx's Proxy has no __iadd__: it was exported as x + y)."""

    def forward(self, x, y):
        x = x.clone()
        x += y
        return x


class SdpaMask(nn.Module):
    def forward(self, q, mask):
        return F.scaled_dot_product_attention(q, q, q, attn_mask=mask)


def _ex(p):
    return {"x": torch.randn(p[1], p[2]), "y": torch.randn(p[0], p[2])}


def _xy(p):
    return {"x": torch.randn(p[0], p[2]), "y": torch.randn(p[1], p[2])}


def _mf(p):
    return {"x": torch.randn(p[0], p[2]), "mask": torch.rand(p[1], p[2]) > 0.3}


def _sdpa(p):
    return {"q": torch.randn(p[0], 2, p[2], 4), "mask": torch.rand(p[1], 1, p[2], p[2]) > 0.3}


# (name, model, inputs, sizes, example, dynamic, CPU-ok, accepted default, accepted relaxed)
EXPAND = [
    ("expand_as", ExpandAs, _ex, lambda p: {"x": [p[1], p[2]], "y": [p[0], p[2]]}, (3, 3, 4), None, 14, 3, 14),
    ("expand_as_ex1", ExpandAs, _ex, lambda p: {"x": [p[1], p[2]], "y": [p[0], p[2]]}, (3, 1, 4),
     {"x": [0, 1], "y": [0, 1]}, 14, 3, 14),
    ("add_", AddInplace, _xy, lambda p: {"x": [p[0], p[2]], "y": [p[1], p[2]]}, (3, 3, 4), None, 14, 8, 14),
    ("iadd_ex1", IAdd, _xy, lambda p: {"x": [p[0], p[2]], "y": [p[1], p[2]]}, (1, 1, 4), {"x": [0, 1], "y": [0, 1]},
     14, 2, 14),
    ("masked_fill_", MaskedFillInplace, _mf, lambda p: {"x": [p[0], p[2]], "mask": [p[1], p[2]]}, (3, 3, 4), None, 14, 8, 14),
    ("sdpa_mask", SdpaMask, _sdpa, lambda p: {"q": [p[0], 2, p[2], 4], "mask": [p[1], 1, p[2], p[2]]}, (3, 3, 4), None,
     14, 3, 14),
    ("sdpa_mask_ex1", SdpaMask, _sdpa, lambda p: {"q": [p[0], 2, p[2], 4], "mask": [p[1], 1, p[2], p[2]]}, (3, 1, 4),
     {"q": [0, 2], "mask": [0, 2, 3]}, 14, 8, 14),
]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name,cls,inputs,sizes,example,dynamic,ok,acc_default,acc_relaxed", EXPAND,
                         ids=[e[0] for e in EXPAND])
def test_expand_in_place_keeps_both_branches(name, cls, inputs, sizes, example, dynamic, ok, acc_default, acc_relaxed,
                                             policy):
    if cls is SdpaMask and not hasattr(F, "scaled_dot_product_attention"):
        pytest.skip("torch %s has no F.scaled_dot_product_attention" % torch.__version__)
    torch.manual_seed(0)
    row, gs, _ = soundness("relax38_" + name, cls().eval(), inputs, sizes, BBT, dynamic=dynamic, example=example,
                           trace_kw=_kw(policy), kind="relax38")
    assert_counts(row, gs, ok, acc_default, acc_relaxed, policy, disjunction=True)


def test_sdpa_mask_errors():
    """The mask's dtype, rank and is_causal are checked as the kernel does (2.14.1 messages)."""
    if not hasattr(F, "scaled_dot_product_attention"):
        pytest.skip("torch %s has no F.scaled_dot_product_attention" % torch.__version__)
    import symshape

    q = torch.randn(2, 2, 4, 8)
    for mask, kw, text in [(torch.zeros(4, 4, dtype=torch.float64), {}, "Expected attn_mask dtype to be bool"),
                           (torch.zeros(4, dtype=torch.bool), {}, "Dimension out of range"),
                           (torch.zeros(4, 4, dtype=torch.bool), {"is_causal": True}, "should not be set when is_causal")]:
        with pytest.raises(Exception):
            F.scaled_dot_product_attention(q, q, q, attn_mask=mask, **kw)  # the CPU refuses it

        def f(q, mask):
            return F.scaled_dot_product_attention(q, q, q, attn_mask=mask)
        doc = symshape.export(f, {"q": q, "mask": torch.zeros(4, 4, dtype=torch.bool)})
        for nd in doc["nodes"]:  # the refused mask and is_causal, written into the captured graph
            if nd["name"] == "mask":
                nd["dtype"], nd["shape"] = str(mask.dtype).replace("torch.", ""), list(mask.shape)
                nd["dynamic"] = list(range(mask.dim()))
            if nd["op"] == "scaled_dot_product_attention":
                nd["kwargs"].update(kw)
        with pytest.raises(symshape.Error, match=text):
            symshape.trace(doc)


# ------------------------------------------------------------------ memory formats
def _strides(*ts):
    return tuple(torch.zeros(t.stride(i)) for t in ts for i in range(t.dim()))


class ToChannelsLast(nn.Module):
    def forward(self, x):
        y = x.to(memory_format=CL)
        return (y + 1,) + _strides(y)


class ContiguousChannelsLast(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        y = x.contiguous(memory_format=CL)
        return (self.conv(y),) + _strides(y)


class CloneTo(nn.Module):
    """clone(channels_last), then to(contiguous_format): self when it is not strided like
    channels_last (is_channels_last_strides_2d), else a copy."""

    def forward(self, x):
        y = x.clone(memory_format=CL)
        z = y.to(memory_format=torch.contiguous_format)
        return _strides(y, z)


NHW = [(1, 1, 1), (2, 1, 1), (1, 2, 2), (3, 1, 5), (3, 5, 1), (2, 2, 1), (0, 1, 1), (1, 1, 3), (2, 3, 3), (4, 1, 1),
       (2, 4, 5), (3, 6, 2), (0, 5, 1), (1, 5, 4), (2, 1, 3), (4, 6, 6), (1, 2, 6), (3, 3, 5), (0, 6, 1), (2, 5, 2)]
NCH = [(2, c, h) for c in (1, 2, 3) for h in (1, 3)] + [(1, 1, 1), (0, 1, 2), (3, 4, 1), (1, 5, 5), (2, 4, 2), (0, 3, 3),
                                                        (4, 1, 4), (1, 2, 1), (3, 5, 3), (2, 6, 1), (1, 1, 5), (5, 2, 2),
                                                        (3, 1, 2), (2, 3, 5)]
# (name, model, input shape of a point, points, example, CPU-ok, accepted default, accepted relaxed)
MEMFMT = [
    ("to_channels_last", ToChannelsLast, lambda p: [p[0], 3, p[1], p[2]], NHW, (2, 4, 5), 20, 9, 20),
    ("to_channels_last_c", ToChannelsLast, lambda p: [p[0], p[1], p[2], p[2]], NCH, (2, 3, 4), 20, 8, 20),
    ("contiguous_channels_last", ContiguousChannelsLast, lambda p: [p[0], 3, p[1], p[2]], NHW, (2, 4, 5), 20, 6, 16),
    ("clone_then_to_contiguous", CloneTo, lambda p: [p[0], 3, p[1], p[2]], NHW, (2, 4, 5), 20, 6, 17),
    ("clone_then_to_contiguous_c", CloneTo, lambda p: [p[0], p[1], p[2], p[2]], NCH, (2, 3, 4), 20, 6, 16),
]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name,cls,shape,points,example,ok,acc_default,acc_relaxed", MEMFMT, ids=[m[0] for m in MEMFMT])
def test_memory_format_strides(name, cls, shape, points, example, ok, acc_default, acc_relaxed, policy):
    """Every stride of the result is an output size: a wrong stride is a wrong output shape."""
    torch.manual_seed(0)
    row, gs, _ = soundness("relax38_" + name, cls().eval(), lambda p: {"x": torch.randn(*shape(p))},
                           lambda p: {"x": shape(p)}, points, dynamic={"x": [0, 1, 2, 3]}, example=example,
                           trace_kw=_kw(policy), kind="relax38")
    assert_counts(row, gs, ok, acc_default, acc_relaxed, policy)


def test_memory_format_rank_error():
    import symshape

    doc = symshape.export(lambda x: x + 1, {"x": torch.randn(2, 3, 4)})
    for nd in doc["nodes"]:
        if nd["op"] == "add":
            nd["op"], nd["args"], nd["kwargs"] = "to", [nd["args"][0]], {"memory_format": "torch.channels_last"}
    with pytest.raises(Exception):
        torch.randn(2, 3, 4).to(memory_format=CL)
    with pytest.raises(symshape.Error, match="required rank 4 tensor to use channels_last format"):
        symshape.trace(doc)


# ------------------------------------------------------------------ nn.MultiheadAttention at 0
class Mha(nn.Module):
    def __init__(self, kind, need_weights):
        super().__init__()
        self.kind, self.nw = kind, need_weights
        self.m = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x, pad):
        b, t, _ = x.shape
        kw = {}
        if self.kind in ("kpm", "kpm_2d"):
            kw["key_padding_mask"] = pad
        if self.kind == "3d":
            kw["attn_mask"] = torch.zeros(b * 2, t, t).bool()
        if self.kind in ("2d", "kpm_2d"):
            kw["attn_mask"] = torch.triu(torch.ones(t, t), 1).bool()
        return self.m(x, x, x, need_weights=self.nw, **kw)[0]


BT = [(b, t) for b, t in itertools.product([0, 1, 2, 3], [0, 1, 2, 5])] + [(7, 13), (1, 31), (16, 1), (5, 0)]
# (kind, need_weights): relaxed accepted under torch 2.x (the CPU runs all 20 under 1.13, and
# under 2.x in eval mode with no_grad all but the 3-D mask's 8 zero points; with grad enabled the
# Python path fails need_weights=False with a key padding mask at 0 too, so those stay rejected)
MHA = [("none", False, 20), ("3d", True, 12), ("3d", False, 12), ("2d", False, 20), ("kpm", False, 12),
       ("kpm", True, 20), ("kpm_2d", False, 12)]


@pytest.mark.parametrize("kind,nw,acc2", MHA, ids=["%s_nw%d" % (m[0], m[1]) for m in MHA])
def test_mha_eval_at_zero(kind, nw, acc2):
    torch.manual_seed(0)
    model = Mha(kind, nw).eval()

    def inputs(p):
        return {"x": torch.randn(p[0], p[1], 8), "pad": torch.zeros(p[0], p[1], dtype=torch.bool)}

    row, gs, doc = soundness("relax38_mha_%s_nw%d" % (kind, nw), model, inputs,
                             lambda p: {"x": [p[0], p[1], 8], "pad": [p[0], p[1]]}, BT,
                             dynamic={"x": [0, 1], "pad": [0, 1]}, example=(2, 5), trace_kw=_kw("relaxed"),
                             kind="relax38")
    ok = 12 if T2 and kind == "3d" else 20
    assert (row["torch_ok"], row["accepted"]) == (ok, acc2 if T2 else 20), row
    marked = [nd for nd in doc["nodes"] if nd.get("kwargs", {}).get("sy_fastpath")]
    assert len(marked) == (1 if T2 else 0), marked
