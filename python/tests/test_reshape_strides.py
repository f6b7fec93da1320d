"""Issue 32, sizes thrown away by reshape of a permuted tensor: reshape (flatten, ...) is a view when
computeStride succeeds and a contiguous copy otherwise, so its result's shape never depends on the
branch; symshape defers the branch's decisions until an op observes the strides (shapeenv/layout.c,
deferred strides). Each model is exported once, traced under the default and the relaxed policy and
run on the CPU at >= 24 sizes, size 1 on every dim that used to be guarded among them: 0 soundness
violations (an accepted size must run with the output shapes symshape reports; where a model turns
strides into sizes, those are checked through its outputs). Where nothing observes the strides,
every size that runs is accepted under the relaxed policy; where a .view or stride() observes them,
the guard stays (and must hold on the CPU)."""
import random

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from models_util import NO_POLICY, POLICIES, soundness
from models_util import policy_kw as _kw


def _nhw_points(seed, n=24):
    rng = random.Random(seed)
    pts = [(1, 1, 1), (1, 5, 7), (2, 1, 6), (3, 4, 1), (1, 1, 9), (2, 2, 2)]
    while len(pts) < n:
        pts.append((rng.randint(1, 4), rng.randint(1, 12), rng.randint(1, 12)))
    return pts


class DetHead(nn.Module):
    """(a) retinanet/ssdlite heads: x.permute(0, 2, 3, 1).reshape(N, -1, K) per level, then cat."""

    def forward(self, x):
        n = x.shape[0]
        a = x.permute(0, 2, 3, 1).reshape(n, -1, 3)
        y = F.avg_pool2d(x, 2, ceil_mode=True)
        b = y.permute(0, 2, 3, 1).reshape(n, -1, 3)
        return torch.cat([a, b], dim=1)


@pytest.mark.parametrize("policy", POLICIES)
def test_detection_head_cat(policy):
    row, gs, _ = soundness("reshape_det_head_" + policy, DetHead(), lambda p: {"x": torch.randn(p[0], 6, p[1], p[2])},
                           lambda p: {"x": [p[0], 6, p[1], p[2]]}, _nhw_points(1), dynamic={"x": [0, 2, 3]},
                           example=(2, 8, 6), trace_kw=_kw(policy), kind="issue 32 reshape")
    if policy == "relaxed":
        assert row["accepted"] == row["torch_ok"], (row, [g.text for g in gs.guards])


class ReshapeThenView(nn.Module):
    """(b) the view observes the reshape's strides: view(N, H, W * C) of a view of the permuted
    tensor fails unless W == 1 or C == 1 (PyTorch's error), so the guard stays."""

    def forward(self, x):
        n, c, h, w = x.shape
        y = x.permute(0, 2, 3, 1).reshape(n, h * w, c)
        return y.view(n, h, w * c)


@pytest.mark.parametrize("policy", POLICIES)
def test_reshape_then_view_keeps_the_guard(policy):
    def inputs(p):
        return {"x": torch.randn(p[0], 3, p[1], p[2])}

    pts = _nhw_points(2)
    row, gs, _ = soundness("reshape_then_view_" + policy, ReshapeThenView(), inputs, lambda p: {"x": [p[0], 3, p[1], p[2]]},
                           pts, dynamic={"x": [0, 2, 3]}, example=(2, 4, 1), trace_kw=_kw(policy), kind="issue 32 reshape")
    # the view fails on the CPU at some sizes: the guard that keeps them out is there
    assert row["torch_ok"] < len(pts), row


class ReshapeStrideValue(nn.Module):
    """(c) stride() and is_contiguous() of the reshape's result used as values: a view of the
    permuted tensor when H == 1 (then stride(0) is C*W), else a contiguous copy."""

    def forward(self, x):
        n, c, h, w = x.shape
        y = x.permute(0, 2, 1, 3).reshape(n, h, c * w)
        z = torch.zeros(y.stride(0), 2)
        if y.is_contiguous():
            return y * 2, z
        return y.sum(1), z


@pytest.mark.parametrize("policy", POLICIES)
def test_reshape_stride_read_as_value(policy):
    row, gs, _ = soundness("reshape_stride_value_" + policy, ReshapeStrideValue(),
                           lambda p: {"x": torch.randn(p[0], 3, p[1], p[2])}, lambda p: {"x": [p[0], 3, p[1], p[2]]},
                           _nhw_points(3), dynamic={"x": [0, 2, 3]}, example=(2, 4, 5), trace_kw=_kw(policy),
                           kind="issue 32 reshape")
    assert row["accepted"] < row["torch_ok"], row  # the strides are observed: the branch's guard stays


class ReshapeAddView(nn.Module):
    """(d) an elementwise op between the reshape and the view: add follows its first operand's
    strides (TensorIterator), so the view still observes the reshape's branch."""

    def forward(self, x, b):
        n, c, h, w = x.shape
        y = x.permute(0, 2, 3, 1).reshape(n, h * w, c)
        z = (y + b).relu()
        return z.view(n, h, w * c), (z * 2).sum(-1)


@pytest.mark.parametrize("policy", POLICIES)
def test_reshape_elementwise_then_view(policy):
    row, gs, _ = soundness("reshape_add_view_" + policy, ReshapeAddView(),
                           lambda p: {"x": torch.randn(p[0], 3, p[1], p[2]), "b": torch.randn(3)},
                           lambda p: {"x": [p[0], 3, p[1], p[2]], "b": [3]}, _nhw_points(4),
                           dynamic={"x": [0, 2, 3]}, example=(2, 4, 1), trace_kw=_kw(policy), kind="issue 32 reshape")


class ReshapeAddSum(nn.Module):
    """(d') the same without a view: nothing observes the strides, every size runs and is accepted."""

    def forward(self, x, b):
        n, c, h, w = x.shape
        y = x.permute(0, 2, 3, 1).reshape(n, h * w, c)
        z = (y + b).relu()
        return z[:, 1:].sum(-1), F.linear(z, torch.ones(5, 3))


@pytest.mark.parametrize("policy", POLICIES)
def test_reshape_elementwise_unobserved(policy):
    row, gs, _ = soundness("reshape_add_sum_" + policy, ReshapeAddSum(),
                           lambda p: {"x": torch.randn(p[0], 3, p[1], p[2]), "b": torch.randn(3)},
                           lambda p: {"x": [p[0], 3, p[1], p[2]], "b": [3]}, _nhw_points(5),
                           dynamic={"x": [0, 2, 3]}, example=(2, 4, 6), trace_kw=_kw(policy), kind="issue 32 reshape")
    if policy == "relaxed":
        assert row["accepted"] == row["torch_ok"], (row, [g.text for g in gs.guards])


class SwinWindows(nn.Module):
    """(e) swin's window partition and reverse (torchvision shifted_window_attention, written out):
    pad, view, permute, reshape to windows, linear, view back, permute, reshape, slice, contiguous."""

    def __init__(self, ws=4, c=8):
        super().__init__()
        self.ws = ws
        self.lin = nn.Linear(c, c)

    def forward(self, x):
        b, h, w, c = x.shape
        ws = self.ws
        ph, pw = (ws - h % ws) % ws, (ws - w % ws) % ws
        x = F.pad(x, (0, 0, 0, pw, 0, ph))
        _, H, W, _ = x.shape
        x = x.view(b, H // ws, ws, W // ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, ws * ws, c)
        x = self.lin(x)
        x = x.view(b, H // ws, W // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, H, W, c)
        return x[:, :h, :w, :].contiguous()


@pytest.mark.parametrize("policy", POLICIES)
def test_swin_window_partition(policy):
    rng = random.Random(6)
    pts = [(1, 1, 1), (1, 4, 4), (2, 1, 9), (3, 9, 1), (1, 3, 17), (2, 4, 1)]
    while len(pts) < 24:
        pts.append((rng.randint(1, 3), rng.randint(1, 20), rng.randint(1, 20)))
    row, gs, _ = soundness("reshape_swin_windows_" + policy, SwinWindows().eval(), lambda p: {"x": torch.randn(p[0], p[1], p[2], 8)},
                           lambda p: {"x": [p[0], p[1], p[2], 8]}, pts, dynamic={"x": [0, 1, 2]}, example=(2, 10, 13),
                           trace_kw=_kw(policy), kind="issue 32 reshape")
    if policy == "relaxed":
        assert row["accepted"] == row["torch_ok"], (row, [g.text for g in gs.guards])


class Attention(nn.Module):
    """(f) MHA-style: q/k/v views, transpose, matmul, transpose back, reshape, linear."""

    def __init__(self, e=16, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(e, 3 * e)
        self.proj = nn.Linear(e, e)

    def forward(self, x):
        b, t, e = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.reshape(b, t, self.heads, -1).transpose(1, 2)
        k = k.reshape(b, t, self.heads, -1).transpose(1, 2)
        v = v.reshape(b, t, self.heads, -1).transpose(1, 2)
        a = (q @ k.transpose(-2, -1)).softmax(-1)
        o = (a @ v).transpose(1, 2).reshape(b, t, e)
        return self.proj(o)


@pytest.mark.parametrize("policy", POLICIES)
def test_attention_transpose_reshape(policy):
    rng = random.Random(7)
    pts = [(1, 1), (1, 7), (5, 1), (2, 2)] + [(rng.randint(1, 6), rng.randint(1, 40)) for _ in range(20)]
    row, gs, _ = soundness("reshape_attention_" + policy, Attention().eval(), lambda p: {"x": torch.randn(p[0], p[1], 16)},
                           lambda p: {"x": [p[0], p[1], 16]}, pts, dynamic={"x": [0, 1]}, example=(3, 9),
                           trace_kw=_kw(policy), kind="issue 32 reshape")
    if policy == "relaxed":
        assert row["accepted"] == row["torch_ok"], (row, [g.text for g in gs.guards])


class RandomLayout(nn.Module):
    """A random chain of views, reshapes and elementwise ops on a 4-D input (seeded): permute,
    transpose, reshape/flatten/view merging two neighbour dims, view splitting one back, slices,
    add/mul/relu, clone, contiguous, linear. Views may fail on the CPU at some sizes."""

    def __init__(self, seed):
        super().__init__()
        rng = random.Random(seed)
        self.prog = []
        r = 4
        for _ in range(rng.randint(3, 7)):
            k = rng.choice(["permute", "transpose", "reshape", "flatten", "view", "slice", "add", "mul", "relu",
                            "clone", "contiguous", "linear", "split"])
            if k == "permute":
                p = list(range(r))
                rng.shuffle(p)
                self.prog.append((k, p))
            elif k == "transpose":
                self.prog.append((k, rng.sample(range(r), 2) if r > 1 else [0, 0]))
            elif k in ("reshape", "flatten", "view"):
                if r > 1:
                    self.prog.append((k, rng.randrange(r - 1)))
                    r -= 1
            elif k == "split":
                self.prog.append((k, rng.randrange(r)))
                r += 1
            elif k == "slice":
                self.prog.append((k, rng.randrange(r)))
            else:
                self.prog.append((k, None))

    def forward(self, x):
        y = x
        for k, a in self.prog:
            if k == "permute":
                y = y.permute(*a)
            elif k == "transpose":
                y = y.transpose(a[0], a[1])
            elif k in ("reshape", "view"):
                s = [y.shape[i] for i in range(y.dim())]
                new = s[:a] + [s[a] * s[a + 1]] + s[a + 2:]
                y = y.reshape(new) if k == "reshape" else y.view(new)
            elif k == "flatten":
                y = y.flatten(a, a + 1)
            elif k == "split":  # a view splitting dim a into (1, size): viewable at every layout
                s = [y.shape[i] for i in range(y.dim())]
                y = y.view(s[:a] + [1, s[a]] + s[a + 1:])
            elif k == "slice":
                idx = [slice(None)] * a + [slice(0, None, 1)]
                y = y[tuple(idx)]
            elif k == "add":
                y = y + y
            elif k == "mul":
                y = y * 2.0
            elif k == "relu":
                y = y.relu()
            elif k == "clone":
                y = y.clone()
            elif k == "contiguous":
                y = y.contiguous()
            elif k == "linear":
                y = y.sum(-1, keepdim=True) + y
        # the result's strides as sizes, every deferred decision observed and checked exactly; a dim
        # of size 1 gives 0 (its stride is free in PyTorch: x.contiguous() returns x when
        # is_contiguous(), which skips such dims, and keeps its stride there)
        return (y,) + tuple(torch.zeros(y.stride(i) * (y.size(i) - 1)) for i in range(y.dim()))


@pytest.mark.parametrize("seed", range(12))
def test_random_layout_chains(seed):
    """0 soundness violations at 24 sizes with size 1 on each dim, under the relaxed policy; the
    outputs hold the result's strides (of dims not of size 1) as sizes, so a wrong stride is a wrong
    output shape. A seed whose program fails at the example (a view that does not fit) or whose
    layout symshape does not model (UnsupportedError: the stride read is refused, not guessed) is
    replaced by the next one."""
    import symshape

    rng = random.Random(100 + seed)
    pts = [(1, 2, 3, 4), (2, 1, 3, 4), (2, 3, 1, 4), (2, 3, 4, 1), (1, 1, 1, 1)]
    while len(pts) < 24:
        pts.append(tuple(rng.randint(1, 5) for _ in range(4)))
    for attempt in range(20):
        s = seed + 1000 * attempt
        m = RandomLayout(s)
        try:
            m(torch.randn(2, 3, 4, 5))
        except RuntimeError:
            continue
        try:
            soundness("reshape_random_%d" % s, m, lambda p: {"x": torch.randn(*p)}, lambda p: {"x": list(p)}, pts,
                      dynamic={"x": [0, 1, 2, 3]}, example=(2, 3, 4, 5), trace_kw=NO_POLICY, kind="issue 32 reshape")
        except symshape.UnsupportedError:
            continue
        return
    pytest.fail("no program of seed %d runs at the example and traces" % seed)
