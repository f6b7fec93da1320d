"""lost46 (issue 38 leftovers, precision): sizes the CPU runs that the guards threw away, each
model against real CPU execution (torch 2.14.1 and 1.13) at >= 25 sizes (0, 1, 2, primes) under
the default and the relaxed policy, the counts asserted exactly.

- A two-way broadcast (x[n, 4] + y[m, 4], both dims of two inputs): ATen's infer_size accepts
  Or(n == 1, m == 1, n == m); the rule kept the example's branch (n == m at n = m = 3, n == 1 at
  n = 1), 6 of 16 CPU-ok sizes under the relaxed policy. Now the disjunction, with the result's
  size Max(n, m)*Min(1, n, m) (shapeenv/rules.c sy_rule_bcast_dim); against a parameter's
  constant 5, Or(n == 1, n == 5). The default policy's duck sizing and 0/1 specialization are
  policies and stay.
- index_add into an empty dim: 2.x returns before it reads an index when a self of rank > 1 is
  empty; 1.13's index_add with an empty index checks nothing else, and the rule decided "is the
  index empty?" at the example.
- local_response_norm decided "is the input empty?" whatever its size (only a size <= 0 needs
  it), prelu "a single weight?" (the result is the input's sizes either way): one requirement each;
  cat of x[n, 3] and a 1-D y[k] traced at k = 0 was refused (ATen skips an empty 1-D tensor).
- from_exported keeps torch.export's range of a Dim: min=1 accepts 1 (ep.range_constraints).
SDPA with empty scores (batch, L or S = 0) was measured here too: every combination of 0, 1, 2 /
0, 1, 3 / 0, 1, 5 the CPU runs is accepted already (math and fused paths, masks, is_causal)."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from models_util import POLICIES, assert_counts, soundness
from models_util import policy_kw as _kw

T2 = int(torch.__version__.split(".")[0]) >= 2

PTS = [(a, b) for a in (0, 1, 2, 3, 5) for b in (0, 1, 2, 3, 5)] + [(7, 7), (7, 1), (1, 7), (11, 13)]


class Add(nn.Module):
    def forward(self, a, b):
        return a + b


class AddThenUse(nn.Module):
    """The broadcast's size flows on: a reshape, a reduction, a product with an input."""

    def forward(self, a, b):
        y = a * b
        return y.reshape(-1, 2), y.sum(0), (y + a).mean(1), torch.cat([y, a], 1)


class AddParam(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = nn.Parameter(torch.zeros(5, 4))

    def forward(self, a):
        return a + self.pos


def _ab(p):
    return {"a": torch.randn(p[0], 4), "b": torch.randn(p[1], 4)}


def _ab_s(p):
    return {"a": [p[0], 4], "b": [p[1], 4]}


def _sq(p):
    return {"a": torch.randn(p[0], p[1]), "b": torch.randn(p[1], p[0])}


def _sq_s(p):
    return {"a": [p[0], p[1]], "b": [p[1], p[0]]}


AB = {"a": [0], "b": [0]}
# (name, model, inputs, sizes, points, example, dynamic, CPU-ok, accepted default, accepted relaxed)
BCAST = [
    ("add_ex33", Add, _ab, _ab_s, PTS, (3, 3), AB, 16, 6, 16),
    ("add_ex13", Add, _ab, _ab_s, PTS, (1, 3), AB, 16, 6, 16),
    ("add_ex31", Add, _ab, _ab_s, PTS, (3, 1), AB, 16, 6, 16),
    ("add_ex11", Add, _ab, _ab_s, PTS, (1, 1), AB, 16, 1, 16),
    ("add_both_dims", Add, _sq, _sq_s, PTS, (3, 3), {"a": [0, 1], "b": [0, 1]}, 16, 6, 16),
    ("mul_then_use", AddThenUse, _ab, _ab_s, PTS, (3, 3), AB, 11, 6, 11),
    ("mul_then_use_ex31", AddThenUse, _ab, _ab_s, PTS, (3, 1), AB, 11, 6, 11),
    ("add_param", AddParam, lambda p: {"a": torch.randn(p[0], 4)}, lambda p: {"a": [p[0], 4]}, PTS, (5, 0),
     {"a": [0]}, 11, 5, 11),
]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name,cls,inputs,sizes,points,example,dynamic,ok,acc_default,acc_relaxed", BCAST,
                         ids=[b[0] for b in BCAST])
def test_two_way_broadcast_keeps_every_branch(name, cls, inputs, sizes, points, example, dynamic, ok, acc_default,
                                              acc_relaxed, policy):
    torch.manual_seed(0)
    row, gs, _ = soundness("lost46_" + name, cls().eval(), inputs, sizes, points, dynamic=dynamic, example=example,
                           trace_kw=_kw(policy), kind="lost46")
    assert_counts(row, gs, ok, acc_default, acc_relaxed, policy, disjunction=True)


class Lrn(nn.Module):
    def forward(self, x):
        return F.local_response_norm(x, 2)


class Prelu(nn.Module):
    def forward(self, x, w):
        return F.prelu(x, w)


def _pw(p):
    return {"x": torch.randn(2, p[0], 3), "w": torch.rand(p[1])}


def _pw_s(p):
    return {"x": [2, p[0], 3], "w": [p[1]]}


# the rest of the class: a branch decided at the example where the kernel runs both and the result's
# sizes do not depend on it (name, model, inputs, sizes, example, dynamic, CPU-ok, accepted default, relaxed)
ONE_RESULT = [
    ("local_response_norm", Lrn, lambda p: {"x": torch.randn(p[0], p[1], 5)}, lambda p: {"x": [p[0], p[1], 5]}, (2, 3),
     {"x": [0, 1]}, 29, 29, 29),
    ("prelu_weights", Prelu, _pw, _pw_s, (3, 3), {"x": [1], "w": [0]}, 11, 6, 11),
    ("prelu_one_weight", Prelu, _pw, _pw_s, (3, 1), {"x": [1], "w": [0]}, 11, 6, 11),
]


class CatLegacy(nn.Module):
    """ATen's cat skips a 1-D tensor of size 0 among tensors of rank 2 (legacy, both versions)."""

    def forward(self, x, y):
        return torch.cat([y, x, y], 0) + 1


ONE_RESULT.append(("cat_legacy_empty", CatLegacy, lambda p: {"x": torch.randn(p[0], 3), "y": torch.randn(p[1])},
                   lambda p: {"x": [p[0], 3], "y": [p[1]]}, (2, 0), {"x": [0], "y": [0]}, 5, 5, 5))


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name,cls,inputs,sizes,example,dynamic,ok,acc_default,acc_relaxed", ONE_RESULT,
                         ids=[m[0] for m in ONE_RESULT])
def test_one_result_both_branches(name, cls, inputs, sizes, example, dynamic, ok, acc_default, acc_relaxed, policy):
    torch.manual_seed(0)
    row, gs, _ = soundness("lost46_" + name, cls().eval(), inputs, sizes, PTS, dynamic=dynamic, example=example,
                           trace_kw=_kw(policy), kind="lost46")
    assert_counts(row, gs, ok, acc_default, acc_relaxed, policy)


class IndexAdd(nn.Module):
    def forward(self, x, i, s):
        return x.index_add(0, i, s)


class IndexAddBcast(nn.Module):
    def forward(self, x, i, s):
        return x.index_add(0, i, s)


class IndexCopy(nn.Module):
    def forward(self, x, i, s):
        return x.index_copy(0, i, s)


class IndexFill(nn.Module):
    def forward(self, x, i):
        return x.index_fill(0, i, 1.0)


NK = [(n, k) for n in (0, 1, 2, 3, 5, 7) for k in (0, 1, 2, 3, 4)]
NKS = [(n, k, s) for n in (0, 2, 3) for k in (0, 2) for s in (1, 3, 4)] + [(1, 1, 1), (1, 0, 4), (5, 3, 1), (7, 0, 3),
                                                                           (0, 3, 3), (2, 5, 1), (5, 1, 5)]


def _idx(p):
    return {"x": torch.randn(p[0], 3), "i": torch.zeros(p[1], dtype=torch.long), "s": torch.randn(p[1], 3)}


def _idx_s(p):
    return {"x": [p[0], 3], "i": [p[1]], "s": [p[1], 3]}


def _idxb(p):
    return {"x": torch.randn(p[0], 3), "i": torch.zeros(p[1], dtype=torch.long), "s": torch.randn(p[1], p[2])}


def _idxb_s(p):
    return {"x": [p[0], 3], "i": [p[1]], "s": [p[1], p[2]]}


DX = {"x": [0], "i": [0], "s": [0]}
# (name, model, inputs, sizes, points, example, dynamic, {torch major: (CPU-ok, accepted default, accepted relaxed)})
INDEX = [
    ("index_add", IndexAdd, _idx, _idx_s, NK, (5, 3), DX, {2: (30, 30, 30), 1: (26, 12, 26)}),
    ("index_add_bcast", IndexAddBcast, _idxb, _idxb_s, NKS, (3, 2, 3), {"x": [0], "i": [0], "s": [0, 1]},
     {2: (8, 2, 8), 1: (18, 1, 18)}),
    ("index_copy", IndexCopy, _idx, _idx_s, NK, (5, 3), DX, {2: (26, 12, 26), 1: (26, 12, 26)}),
    ("index_fill", IndexFill, lambda p: {"x": torch.randn(p[0], 3), "i": torch.zeros(p[1], dtype=torch.long)},
     lambda p: {"x": [p[0], 3], "i": [p[1]]}, NK, (5, 3), {"x": [0], "i": [0]}, {2: (26, 12, 26), 1: (26, 12, 26)}),
]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name,cls,inputs,sizes,points,example,dynamic,want", INDEX, ids=[m[0] for m in INDEX])
def test_index_ops_into_an_empty_dim(name, cls, inputs, sizes, points, example, dynamic, want, policy):
    torch.manual_seed(0)
    row, gs, _ = soundness("lost46_" + name, cls().eval(), inputs, sizes, points, dynamic=dynamic, example=example,
                           trace_kw=_kw(policy), kind="lost46")
    ok, acc_default, acc_relaxed = want[2 if T2 else 1]
    assert_counts(row, gs, ok, acc_default, acc_relaxed, policy)


@pytest.mark.parametrize("lo", [None, 0, 1, 2])
def test_from_exported_keeps_the_dims_range(lo):
    """torch.export's range of Dim('n', min=lo) at example 2 is ep.range_constraints' (2.14.1:
    [lo, oo), [0, oo) without min); from_exported accepts exactly that range, 1 included when
    min <= 1, and every accepted size runs the program."""
    if not T2 or not hasattr(torch, "export"):
        pytest.skip("torch %s has no torch.export" % torch.__version__)
    import symshape
    from torch.export import Dim, export

    class M(nn.Module):
        def forward(self, x):
            return x.reshape(-1, 2).sum(1) + 1

    n = Dim("n") if lo is None else Dim("n", min=lo)
    ep = export(M(), (torch.randn(2, 4),), dynamic_shapes={"x": {0: n}})
    (r,) = ep.range_constraints.values()
    gs = symshape.from_exported(ep)
    got = [v for v in (0, 1, 2, 3, 7) if gs.check({"x": [v, 4]})[0]]
    assert got == [v for v in (0, 1, 2, 3, 7) if v >= int(r.lower)], (str(r), [g.text for g in gs.guards])
    for v in got:
        assert list(ep.module()(torch.randn(v, 4)).shape) == gs.output_shapes({"x": [v, 4]})[0]
