"""Issue 32, strides of the views split_with_sizes, movedim, swapaxes, unflatten, unfold and
diagonal (shapeenv: their rows were "unmodelled view": a `view` after one of them failed with "the
strides of the input are not modelled"). Each op now computes its output strides as ATen does
(TensorShape.cpp: split_with_sizes is narrow per piece, movedim a permute, swapaxes a transpose,
unflatten self.view(shape), unfold as_strided with stride[d] * step and stride[d] appended,
diagonal dims erased and stride(dim1) + stride(dim2) appended).

Each model makes its input strided (a transpose or a slice), applies the op, then a `view`; the
`strides` variant also returns every stride of the op's result and of the views as an output size
(zeros(stride), size-1 dims included), so a wrong stride is a wrong output shape. Each is exported
once, traced under both policies and run on the CPU at 24 sizes (size 1 on each dynamic dim among
them): 0 soundness violations. The views are possible at every size, so under the relaxed policy
every size that runs is accepted when nothing reads the strides (reading a stride of a deferred
view decides its open questions: guards)."""
import random

import pytest
import torch
import torch.nn as nn

from models_util import POLICIES, soundness
from models_util import policy_kw as _kw


def _points(seed, lo_t=1, n=24):
    rng = random.Random(seed)
    pts = [(1, lo_t), (1, lo_t + 6), (5, lo_t), (2, lo_t + 1), (1, lo_t + 1), (2, lo_t)]
    while len(pts) < n:
        pts.append((rng.randint(1, 6), rng.randint(lo_t, lo_t + 30)))
    return pts


def _strides(*ys):
    return tuple(torch.zeros(y.stride(i)) for y in ys for i in range(y.dim()))


class _Op(nn.Module):
    def __init__(self, read_strides=False):
        super().__init__()
        self.read_strides = read_strides

    def out(self, results, *views):
        return tuple(results) + (_strides(*views) if self.read_strides else ())


class SplitWithSizes(_Op):
    """split_with_sizes([4, 8], -1)[1] of [B, T, 12] (strides (12T, 12, 1)), then views merging
    B with T and splitting the last dim."""

    def forward(self, x):
        b, t, _ = x.shape
        y = x.split_with_sizes([4, 8], dim=-1)[1]
        m = y.view(b * t, 8)
        s = y.view(b, t, 2, 4)
        return self.out((m * 2, s + 1), y, m, s)


class Movedim(_Op):
    """movedim(-1, 0) of [B, T, 6] (strides (1, 6T, 6)), then view(6, B * T) merging B with T."""

    def forward(self, x):
        b, t, c = x.shape
        y = x.movedim(-1, 0)
        v = y.view(c, b * t)
        return self.out((v + 1,), y, v)


class Swapaxes(_Op):
    """swapaxes(0, 1) of [B, T, 8] (strides (8, 8T, 1)), then view(T, B, 2, 4)."""

    def forward(self, x):
        b, t, _ = x.shape
        y = x.swapaxes(0, 1)
        v = y.view(t, b, 2, 4)
        return self.out((v * 1,), y, v)


class Unflatten(_Op):
    """unflatten of a transposed [B, 12, T] (strides (12T, 1, 12)): the 12 into (3, 4), T into
    (T, 1) (computeStride's stride of a size-1 dim), then view(B, 12, T) merging 3 and 4."""

    def forward(self, x):
        b, t, _ = x.shape
        y = x.transpose(1, 2).unflatten(1, (3, 4))
        z = y.unflatten(3, (t, 1))
        v = y.view(b, 12, t)
        return self.out((v + 1, z * 1), y, z, v)


class Unfold(_Op):
    """Tensor.unfold(1, 4, 2) of [B, T, 6] (strides (6T, 12, 1, 6)), of its transpose, then a view
    splitting the window dim in two."""

    def forward(self, x):
        b, _, c = x.shape
        y = x.unfold(1, 4, 2)
        w = x.transpose(1, 2).unfold(2, 3, 1)
        v = y.view(b, y.shape[1], c, 2, 2)
        return self.out((v * 1, w + 1), y, w, v)


class Diagonal(_Op):
    """diagonal(1, 1, 2) of [B, T, 9] (strides (9T, 10)) and diagonal(0, 0, 2) of its transpose,
    then view(B, L, 1) and view(1, B, L)."""

    def forward(self, x):
        b, _, _ = x.shape
        y = x.diagonal(1, 1, 2)
        z = x.transpose(0, 1).diagonal(0, 0, 2)
        v = y.view(b, y.shape[1], 1)
        u = y.view(1, b, y.shape[1])
        return self.out((v + 1, u * 1, z * 1), y, z, v, u)


# (name, model class, input shape of a point (B, T), the smallest T, every size kept when unread).
# unflatten is self.view(shape): its strides are deferred when the facts leave computeStride's
# questions open; the view of its result splits the questions of both views together
# (shapeenv/layout.c op_view_result), possible on every path, so its result is deferred in turn
# (relax38: before, the view decided the unflatten's questions at the example, 2 <= B and
# 2 <= T, and relaxed kept 17 of 24 sizes: the 7 with B or T equal to 1).
CASES = [
    ("split_with_sizes", SplitWithSizes, lambda p: [p[0], p[1], 12], 1, True),
    ("movedim", Movedim, lambda p: [p[0], p[1], 6], 1, True),
    ("swapaxes", Swapaxes, lambda p: [p[0], p[1], 8], 1, True),
    ("unflatten", Unflatten, lambda p: [p[0], p[1], 12], 1, True),
    ("unfold", Unfold, lambda p: [p[0], p[1], 6], 4, True),
    ("diagonal", Diagonal, lambda p: [p[0], p[1], 9], 1, True),
]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("read_strides", [False, True], ids=["unread", "strides"])
@pytest.mark.parametrize("name,cls,shape,lo_t,kept", CASES, ids=[c[0] for c in CASES])
def test_view_after_op_strides(name, cls, shape, lo_t, kept, read_strides, policy):
    pts = _points(len(name) * 13 + read_strides, lo_t)
    m = cls(read_strides).eval()
    ex = (3, lo_t + 4)
    row, gs, _ = soundness("view_ops_strides_%s_%s%s" % (name, policy, "_strides" if read_strides else ""), m,
                           lambda p: {"x": torch.randn(*shape(p))}, lambda p: {"x": shape(p)}, pts,
                           dynamic={"x": [0, 1]}, example=ex, trace_kw=_kw(policy), kind="issue 32 view op strides")
    assert row["torch_ok"] == len(pts), row  # the views succeed at every size
    if policy == "relaxed" and not read_strides and kept:
        # nothing reads the strides: the views ask nothing, every size that runs is accepted
        assert row["accepted"] == row["torch_ok"], (row, [g.text for g in gs.guards])
