"""Issue 38, the verification pass verify46p (Python/torch side) of what landed on 2026-12-06: user
models that read strides at sizes 0 and 1, two-way broadcasts in chains, modules with buffers,
narrow-dtype aranges as indices, MultiheadAttention with kdim/vdim, each against real CPU execution
(torch 2.14.1 and 1.13) at >= 25 sizes under the default and the relaxed policy. The faults found,
each reproduced here:

- A forward that assigns a traced value to a buffer (``self.state = x[-1:]``, a recurrent state or
  a cache kept in a buffer) or changes the module's attributes (``self.count += n`` on a buffer,
  ``self.cache[k] = x``, ``self.steps += 1``, a plain tensor attribute reassigned): under 2.x the
  export left the traced value (a _SyProxy) in the user's module, so its next real call computed
  with a proxy (the output shapes were proxies, the CPU ground truth broken); under 1.13 the export
  failed with "AttributeError: 'Tensor' object has no attribute '__qualname__'" (1.13's
  Module.__setattr__ accepts only a Tensor for a buffer and asked torch.typename of the proxy for
  its TypeError). The exporter now gives a traced value assigned to a buffer's name to the buffer
  while tracing (as 2.x's Module.__setattr__ does for a value with __torch_function__) and puts
  every module's attributes back after the capture, on success and on error, and the data of its
  buffers (BatchNorm's running statistics in training mode changed with each export).
- int() of a bool read from sizes or strides (int(x.is_contiguous()), int(h > w)) was refused by
  the engine ("guard_int operands must be integers"): the model lost under both versions.
- z[1:].add_(z[:-1]) (an in-place op whose other operand is another view of self's memory) was
  accepted where ATen refuses the partial overlap (12 of 30 sizes): the export now refuses it."""
import copy
import itertools

import pytest
import torch
import torch.nn as nn

import symshape
from models_util import POLICIES, run_real
from models_util import policy_kw as _kw

SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 11, 13, 16, 17, 19, 23, 29, 31, 32, 37, 41, 64, 97, 100, 127, 128, 255]


class Stateful(nn.Module):
    """A recurrent state kept in a buffer and reassigned, a step counter buffer updated with +=,
    a cache dict, a Python counter and a plain tensor attribute reassigned, all in forward."""

    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(1, 4))
        self.register_buffer("count", torch.zeros((), dtype=torch.long))
        self.register_buffer("unused", None)
        self.cache = {}
        self.steps = 0
        self.last = torch.zeros(4)

    def forward(self, x):
        s = self.state
        self.state = x[-1:]
        self.count += x.size(0)
        self.cache["x"] = x
        self.steps += 1
        self.last = x.sum(0)
        return x + s, self.state * 2, self.last, self.count


class Fails(Stateful):
    def forward(self, x):
        self.state = x[-1:]
        self.cache["x"] = x
        if x.sum() > 0:  # a branch on the data: the capture stops here
            return x
        return x * 2


def _attrs(m):
    return {k: v for k, v in vars(m).items()}


@pytest.mark.parametrize("policy", POLICIES)
def test_buffer_assigned_in_forward(policy):
    """The export leaves the module as it was (the same objects, the same contents) and traces the
    assignment; the guards accept every size the CPU runs from the module's initial state (relaxed:
    all 25, the empty batch included; default: 0 and 1 specialized away) with the CPU's shapes."""
    model = Stateful()
    pristine = copy.deepcopy(model)
    before, buffers = _attrs(model), dict(model._buffers)
    gs = symshape.trace(symshape.export(model, {"x": torch.randn(3, 4)}), **(_kw(policy) or {}))
    assert _attrs(model) == before and all(model._buffers[k] is v for k, v in buffers.items())
    assert list(model._buffers) == ["state", "count", "unused"] and model.cache == {} and model.steps == 0
    assert int(model.count) == 0 and model.state.shape == (1, 4) and type(model) is Stateful
    accepted = []
    for b in SIZES:
        ok, real = run_real(copy.deepcopy(pristine), {"x": torch.randn(b, 4)})
        assert ok and real == [[b, 4], [min(b, 1), 4], [4], []], (b, real)
        if gs.check({"x": [b, 4]})[0]:
            assert gs.output_shapes({"x": [b, 4]}) == real, b
            accepted.append(b)
    assert accepted == (SIZES if policy == "relaxed" else [b for b in SIZES if b >= 2])
    # the module still runs as a plain torch module after the export
    assert run_real(model, {"x": torch.randn(5, 4)}) == (True, [[5, 4], [1, 4], [4], []])


def test_failed_export_restores_the_module():
    model = Fails()
    state = model.state
    with pytest.raises(symshape.ExportError):
        symshape.export(model, {"x": torch.randn(3, 4)})
    assert model.state is state and model.cache == {} and type(model) is Fails



class TrainBn(nn.Module):
    """BatchNorm in training mode (the kernel updates the running statistics in place without
    moving their version counter) and a buffer registered lazily in forward."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(4)

    def forward(self, x):
        if not hasattr(self, "lazy"):
            self.register_buffer("lazy", torch.ones(4))
        return self.bn(x) * self.lazy


def test_export_keeps_running_stats():
    model = TrainBn().train()
    before = copy.deepcopy(model.state_dict())
    gs = symshape.trace(symshape.export(model, {"x": torch.randn(5, 4) * 3 + 1}))
    after = model.state_dict()
    assert list(after) == list(before) and all(torch.equal(before[k], after[k]) for k in before)
    assert not hasattr(model, "lazy") and int(model.bn.num_batches_tracked) == 0
    assert gs.output_shapes({"x": [7, 4]}) == [[7, 4]]

class IntOfBool(nn.Module):
    def forward(self, x):
        return torch.zeros(int(x.t().is_contiguous()) + 1), torch.zeros(int(x.size(0) > x.size(1)) * 2), x


GRID = [(b, t) for b, t in itertools.product([0, 1, 2, 3, 5], [0, 1, 2, 3, 7])] + [(7, 13), (1, 31), (13, 2), (4, 4), (6, 1)]


@pytest.mark.parametrize("policy", POLICIES)
def test_int_of_a_symbolic_bool(policy):
    """int() of a bool read from sizes or strides (int(x.t().is_contiguous()), int(h > w)): the
    exporter records guard_int(bool, 0 or 1), which the engine refused ("guard_int operands must be
    integers": the whole model lost, both torch versions). Python's int of a bool is 0 or 1, so the
    recorded value pins the condition: accepted exactly where both bools are the example's."""
    model = IntOfBool()
    gs = symshape.trace(symshape.export(model, {"x": torch.randn(3, 5)}), **(_kw(policy) or {}))
    accepted = []
    for p in GRID:
        ok, real = run_real(model, {"x": torch.randn(*p)})
        assert ok, (p, real)
        if gs.check({"x": list(p)})[0]:
            assert gs.output_shapes({"x": list(p)}) == real, p
            accepted.append(p)
    want = [p for p in GRID if not torch.empty(p).t().is_contiguous() and p[0] <= p[1]]
    assert accepted == want and len(want) == 8
    assert gs.check({"x": [5, 3]}) == (False, "x.size()[0] <= x.size()[1]")


class ShiftAdd(nn.Module):
    def forward(self, x):
        z = x.clone()
        z[1:].add_(z[:-1])
        return z


class SelfAdd(nn.Module):
    def forward(self, x):
        z = x.clone()
        z.add_(z)
        z.mul_(z.sigmoid())
        return z


def test_inplace_of_an_overlapping_view_is_refused():
    """z[1:].add_(z[:-1]): ATen refuses an input that partly overlaps the written-to tensor
    (assert_no_partial_overlap), from 3 rows on; the guard set accepted 12 of 30 sizes where the CPU
    fails (both policies, both torch versions). The export is refused, as x[idx] = v with v a view
    of x; the same view (z.add_(z)) and another tensor are fine at every size."""
    ok, real = run_real(ShiftAdd(), {"x": torch.randn(3, 4)})
    assert not ok and "single memory location" in real
    with pytest.raises(symshape.ExportError, match=r"x\.add_\(v\) where v is another view of x's memory"):
        symshape.export(ShiftAdd(), {"x": torch.randn(2, 4)})
    gs = symshape.trace(symshape.export(SelfAdd(), {"x": torch.randn(3, 4)}), duck_sizing=False, specialize_01=False)
    for p in GRID:
        assert run_real(SelfAdd(), {"x": torch.randn(*p)}) == (True, [list(p)])
        assert gs.check({"x": list(p)})[0] and gs.output_shapes({"x": list(p)}) == [list(p)]
