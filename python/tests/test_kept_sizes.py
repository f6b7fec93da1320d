"""Issue 32, sizes thrown away: idioms whose guards rejected sizes the model runs, because an op
asked a question whose answer does not change the result (expand of a [1, C] parameter to the
batch: "is the batch 1?", for the stride of a dim of size 1) or pinned the example's branch of a
size formula that is one expression (max_pool2d's ceil_mode "last window starts inside" rule).
Each model is exported once, traced under the default and the relaxed policy, and run on the
CPU at >= 20 sizes including the ones the old guards rejected: 0 soundness violations, and
every size that runs is accepted where the model itself has no guard on it."""
import math
import random

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from models_util import soundness

NO_POLICY = {"duck_sizing": False, "specialize_01": False}


class ClsToken(nn.Module):
    """ViT-style: a [1, 1, C] class token and a [1, C] query expanded to the batch."""

    def __init__(self):
        super().__init__()
        self.cls = nn.Parameter(torch.zeros(1, 1, 8))
        self.q = nn.Parameter(torch.zeros(1, 8))

    def forward(self, x):
        b = x.shape[0]
        t = torch.cat([self.cls.expand(b, -1, -1), x], dim=1)
        q = self.q.expand(x.shape[0], -1)
        return t.reshape(b, -1), (q.unsqueeze(1) * t).sum(-1)


@pytest.mark.parametrize("policy", ["default", "relaxed"])
def test_expand_of_a_size1_parameter(policy):
    rng = random.Random(11)
    pts = [(1, 3), (1, 1), (2, 5), (7, 1)] + [(rng.randint(1, 9), rng.randint(1, 9)) for _ in range(20)]
    row, gs, _ = soundness("expand_cls_token_" + policy, ClsToken(), lambda p: {"x": torch.randn(p[0], p[1], 8)},
                           lambda p: {"x": [p[0], p[1], 8]}, pts,
                           dynamic={"x": [{"dim": 0, "name": "batch", "min": 1}, {"dim": 1, "name": "t", "min": 1}]},
                           example=(4, 6), trace_kw=NO_POLICY if policy == "relaxed" else None, kind="issue 32 sizes")
    assert row["accepted"] == row["torch_ok"], (row, [g.text for g in gs.guards])


class CeilPool(nn.Module):
    def forward(self, x):
        a = F.max_pool2d(x, 3, 2, ceil_mode=True)
        b = F.max_pool2d(x, 2, 2, padding=1, ceil_mode=True)
        c = F.avg_pool2d(x, 3, 3, ceil_mode=True)
        return a, b, c


@pytest.mark.parametrize("policy", ["default", "relaxed"])
def test_ceil_mode_one_expression(policy):
    """googlenet's MaxPool2d(3, 2, ceil_mode=True) and friends: before, the trace pinned whether the
    last window starts inside (a parity guard on h and w), so about half of the sizes were rejected."""
    rng = random.Random(12)
    pts = [(3, 3), (4, 4), (5, 6), (6, 5), (7, 7), (8, 9)] + [(rng.randint(3, 60), rng.randint(3, 60)) for _ in range(24)]
    row, gs, _ = soundness("ceil_mode_pools_" + policy, CeilPool(), lambda p: {"x": torch.randn(1, 2, p[0], p[1])},
                           lambda p: {"x": [1, 2, p[0], p[1]]}, pts, dynamic={"x": [2, 3]}, example=(33, 40),
                           trace_kw=NO_POLICY if policy == "relaxed" else None, kind="issue 32 sizes")
    assert row["accepted"] == row["torch_ok"], (row, [g.text for g in gs.guards])


class TransposedView(nn.Module):
    """view of a transposed tensor: batch and channels stay one contiguous chunk (x.transpose(2, 3)
    keeps stride(0) == C * stride(1)), so view(B * C, W, H) runs at every batch; before, the view
    rule asked "is the batch 1?" before looking at the stride, a guard that rejected batch 1."""

    def forward(self, x):
        b, c, h, w = x.shape
        y = x.transpose(2, 3).view(b * c, w, h)
        return y, x.permute(0, 1, 3, 2).reshape(b * c, -1)


@pytest.mark.parametrize("policy", ["default", "relaxed"])
def test_view_of_transposed_keeps_batch_1(policy):
    rng = random.Random(13)
    pts = [(1, 3, 4, 5), (1, 1, 2, 2), (2, 1, 3, 3), (1, 2, 1, 7)] + \
        [(rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 9), rng.randint(1, 9)) for _ in range(20)]
    row, gs, _ = soundness("view_transposed_" + policy, TransposedView(), lambda p: {"x": torch.randn(*p)},
                           lambda p: {"x": list(p)}, pts,
                           dynamic={"x": [{"dim": d, "min": 1} for d in range(4)]}, example=(3, 4, 5, 6),
                           trace_kw=NO_POLICY if policy == "relaxed" else None, kind="issue 32 sizes")
    # every batch is kept; C, H or W of 1 are still rejected: the view rule asks "is the size 1?"
    # where the stride does not join the dims (a limit of ours: torch runs them)
    for p in pts:
        if min(p[1:]) >= 2:
            assert gs.check({"x": list(p)})[0], (p, [g.text for g in gs.guards])


class PadToWindow(nn.Module):
    """Swin-style pad to a multiple of the window, int(math.ceil(h / p) * p): int() of a traced int
    pinned h to its example's CeilDiv (15 <= h <= 21 for h = 20) before."""

    def forward(self, x):
        h, w = x.shape[2], x.shape[3]
        hp = int(math.ceil(h / 7) * 7)
        wp = math.ceil(w / 7) * 7
        y = F.pad(x, (0, wp - w, 0, hp - h))
        return y.view(x.shape[0], x.shape[1], hp // 7, 7, wp // 7, 7).permute(0, 2, 4, 3, 5, 1).reshape(-1, 49, 3)


def test_pad_to_window_multiple():
    rng = random.Random(14)
    pts = [(h, w) for h in (1, 7, 8, 14, 20, 21, 22, 29) for w in (8, 13, 14)] + \
        [(rng.randint(1, 60), rng.randint(8, 60)) for _ in range(16)]
    row, gs, _ = soundness("pad_to_window", PadToWindow(), lambda p: {"x": torch.randn(1, 3, p[0], p[1])},
                           lambda p: {"x": [1, 3, p[0], p[1]]}, pts, dynamic={"x": [0, 2, 3]}, example=(20, 30),
                           trace_kw=NO_POLICY, kind="issue 32 sizes")
    # every height is kept (the view's size-1 questions on the window counts remain for the width)
    for h in range(1, 40):
        assert gs.check({"x": [1, 3, h, 30]})[0], (h, [g.text for g in gs.guards])
