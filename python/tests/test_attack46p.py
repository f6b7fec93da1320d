"""Issue 38, the adversarial pass attack46p (Python/torch/deploy surfaces): the faults it found in
user-style models, each against real CPU execution at every point of a grid with the edges (0,
1, 2, primes, large), under the default and the relaxed policy.

- A non-finite Python float (float("-inf"), float("inf"), float("nan"); the graph format writes
  them as the strings "inf", "-inf", "nan") was refused by every binary op: torch.where(mask,
  scores, float("-inf")), x + float("inf"), clamp(min=float("-inf")), x >= float("inf"), ...
  ("operands must be tensors or numbers"): the whole model lost.
- torch.where(cond, scalar, scalar) (`torch.where(mask, 0.0, float("-inf"))`, the 2026 way to
  make an attention bias) was refused ("expected a tensor operand"): the condition's sizes, the
  scalars' promoted dtype (TensorCompare.cpp where(Tensor, Scalar, Scalar)).
- x.chunk(n, d) with an empty dim gives n empty pieces, as n pieces of a dim where the count is
  n; the trace at a non-empty example rejected the empty dim (rotate_half's chunk(2, -1)).
- nn.MultiheadAttention did not read the key's and value's widths: a memory of another width
  than the in-projection's (in_proj_weight.size(1), or kdim/vdim) was accepted under the relaxed
  policy, where the CPU fails (nn.TransformerDecoder's cross-attention, found by a region point)."""
import itertools

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import symshape
from models_util import POLICIES, run_real
from models_util import policy_kw as _kw

GRID = [(b, l) for b, l in itertools.product([0, 1, 2, 3], [0, 1, 2, 3, 5, 8])] + [(7, 13), (1, 31), (2, 64), (5, 97)]


class NonFinite(nn.Module):
    """Every binary op with a non-finite Python float, and where with two scalars (its dtype read
    by the op after it: embedding needs int64 indices, a bool mask selects, a float is cast)."""
    def forward(self, x, w):
        m = x > 0
        idx = torch.where(m, 1, 0)  # int64: a valid embedding index
        sel = x[torch.where(m, True, False)]  # bool: a mask, an unbacked length
        half = torch.where(m, 1, 0.5).long()  # float32, cast
        bias = torch.where(m, 0.0, float("-inf"))
        return (torch.where(m, x, float("-inf")).softmax(-1), x + float("inf"), float("-inf") - x,
                torch.clamp(x, min=float("-inf"), max=1.0), x >= float("nan"), x.pow(float("inf")),
                F.embedding(idx, w), sel, half, bias + x)


class RotateHalf(nn.Module):
    def forward(self, x):
        x1, x2 = x.chunk(2, dim=-1)
        a, b, c = x.chunk(3, dim=-1)
        return torch.cat((-x2, x1), dim=-1) + x, a, c


MODELS = [("non_finite", NonFinite, lambda b, l: {"x": torch.randn(b, l), "w": torch.randn(2, 3)}),
          ("rotate_half_chunk", RotateHalf, lambda b, l: {"x": torch.randn(b, l)})]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name,make,inputs", MODELS, ids=[m[0] for m in MODELS])
def test_against_the_cpu(name, make, inputs, policy):
    """Every grid point: accepted only where the CPU runs, with the CPU's output shapes (a
    data-dependent length is None); the counts are exact."""
    torch.manual_seed(0)
    model = make()
    gs = symshape.trace(symshape.export(model, inputs(3, 8), dynamic={"x": [0, 1]}, name=name), **(_kw(policy) or {}))
    accepted, ran = [], []
    for b, l in GRID:
        ok, real = run_real(model, inputs(b, l))
        sizes = {"x": [b, l], "w": [2, 3]} if name == "non_finite" else {"x": [b, l]}
        acc, why = gs.check(sizes)
        if ok:
            ran.append((b, l))
        if acc:
            accepted.append((b, l))
            assert ok, ((b, l), real)
            mine = gs.output_shapes(sizes)
            assert len(mine) == len(real) and all(
                len(m) == len(r) and all(u is None or u == v for u, v in zip(m, r)) for m, r in zip(mine, real)), \
                ((b, l), mine, real)
    # chunk(3) of 1, 2 or 4 gives fewer than 3 pieces: the model fails at 1 and 2 (a, b, c = ...),
    # and 4 is not on the grid; chunk(2) of 1 gives 1 piece (x1, x2 = ... fails)
    want_ran = len(GRID) if name == "non_finite" else len(GRID) - 8
    assert len(ran) == want_ran
    if policy == "relaxed":  # every size the CPU runs, the empty dim included
        assert accepted == ran
    elif name == "non_finite":  # 0 and 1 specialized away from the example [3, 8]
        assert accepted == [p for p in ran if p[0] >= 2 and p[1] >= 2]
    else:  # the same for the last dim; no guard reads the batch
        assert accepted == [p for p in ran if p[1] >= 2]
    if name == "non_finite":
        assert gs.output_shapes({"x": [2, 5], "w": [2, 3]}) == [[2, 5]] * 6 + [[2, 5, 3], [None], [2, 5], [2, 5]]
    else:
        assert gs.output_shapes({"x": [2, 0]}) == [[2, 0], [2, 0], [2, 0]]
        assert gs.output_shapes({"x": [2, 13]}) == [[2, 13], [2, 5], [2, 3]]


class CrossAttention(nn.Module):
    """nn.MultiheadAttention cross-attention on a memory whose width is dynamic: packed weights
    (key is value), separate weights (kdim/vdim), and key and value given apart."""
    def __init__(self, kind):
        super().__init__()
        torch.manual_seed(0)
        self.kind = kind
        self.m = nn.MultiheadAttention(16, 2, batch_first=True, kdim=12 if kind == "kdim" else None,
                                       vdim=12 if kind == "kdim" else None).eval()

    def forward(self, x, mem):
        v = mem * 2 if self.kind == "apart" else mem
        return self.m(x, mem, v, need_weights=self.kind != "packed")[0]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("kind", ["packed", "kdim", "apart"])
def test_mha_key_width(kind, policy):
    """The key's and value's last dims are the in-projection's (in_proj_weight.size(1), or kdim /
    vdim): a memory of another width fails on the CPU, and was accepted under the relaxed policy
    (the default one caught the packed case by duck sizing only)."""
    model = CrossAttention(kind)
    e = 12 if kind == "kdim" else 16
    gs = symshape.trace(symshape.export(model, {"x": torch.randn(2, 3, 16), "mem": torch.randn(2, 5, e)},
                                        dynamic={"x": [1], "mem": [1, 2]}), **(_kw(policy) or {}))
    accepted = []
    for s, w in itertools.product([0, 1, 2, 5, 7], [0, 1, 11, 12, 16, 17, 30]):
        ok, real = run_real(model, {"x": torch.randn(2, 3, 16), "mem": torch.randn(2, s, w)})
        acc, why = gs.check({"x": [2, 3, 16], "mem": [2, s, w]})
        assert ok == (w == e), ((s, w), real)
        if acc:
            assert ok, ((s, w), real)
            assert gs.output_shapes({"x": [2, 3, 16], "mem": [2, s, w]}) == real
            accepted.append((s, w))
        elif w != e:
            assert why == "mem.size()[2] == %d" % e or why.startswith("mem.size()[2] == x.size()[2]"), why
    # every memory length the CPU runs, 0 included, under both policies
    assert accepted == [(s, e) for s in [0, 1, 2, 5, 7]]


class ReadsStride(nn.Module):
    def forward(self, x):
        return x.transpose(0, 1).contiguous() * x.stride(0)


def test_corners_of_a_graph_that_reads_strides():
    """The corners of a graph with stride sources take the contiguous strides of each corner's
    sizes (the inputs the corners run with): they kept the example's value of a stride, which the
    set does not have (0), and every corner, the example too, was reported rejected by
    `x.size()[1] == x.stride()[0]`. Each corner is run on the CPU."""
    from symshape import deploy
    model = ReadsStride()
    gs = symshape.trace(symshape.export(model, {"x": torch.randn(3, 8)}), duck_sizing=False, specialize_01=False)
    r = deploy.Region(gs)
    assert [(c["label"], c["sizes"]["x"], c["accept"]) for c in r.corners] == [
        ("the example", [3, 8], True), ("x_0 = min (0)", [0, 8], True), ("x_0 = 1", [1, 8], True), ("x_0 = 2", [2, 8], True),
        ("x_1 = min (0)", [3, 0], True), ("x_1 = 1", [3, 1], True), ("x_1 = 2", [3, 2], True)]
    rows, unsound, conservative = deploy.run_corners(r, model)
    assert len(rows) == 7 and all(ran for _, ran, _ in rows) and not unsound and not conservative
    for c in r.corners:  # the same answer as the guard set's check of contiguous inputs
        assert gs.check({"x": c["sizes"]["x"]})[0] == c["accept"]


class RollHalf(nn.Module):
    def forward(self, x):
        return torch.roll(x, shifts=x.shape[-1] // 2, dims=-1), torch.roll(x, x.shape[0])


@pytest.mark.parametrize("policy", POLICIES)
def test_roll_by_a_size(policy):
    """torch.roll with a shift read from a size: torch's argument parser read the traced shift
    with __index__ (2.x: a guard_int pinning it, 26 of 29 CPU sizes lost) or refused it (1.13:
    "shifts must be tuple of ints, not _SyProxy"); recorded as one call, the shift stays
    symbolic (roll's sizes do not depend on it)."""
    model = RollHalf()
    gs = symshape.trace(symshape.export(model, {"x": torch.randn(3, 8)}, dynamic={"x": [0, 1]}), **(_kw(policy) or {}))
    assert not [g for g in gs.guards if g.kind == "guard_int" or "== 4" in g.text], [g.text for g in gs.guards]
    accepted = []
    for b, l in GRID:
        ok, real = run_real(model, {"x": torch.randn(b, l)})
        assert ok, ((b, l), real)
        if gs.check({"x": [b, l]})[0]:
            assert gs.output_shapes({"x": [b, l]}) == real == [[b, l], [b, l]]
            accepted.append((b, l))
    assert accepted == GRID  # no guard reads the sizes: every size, under both policies
