"""strides46 (issue 38 leftovers): strides exactly as ATen computes them, each model run on the CPU
(torch 2.14.1 and 1.13) at 26 sizes with 0 and 1 on every dynamic dim, under the default and the
relaxed policy, every stride of interest returned as an output size (torch.zeros(stride)), so a
wrong stride is a wrong output shape; the counts asserted exactly.

- Contiguous strides multiply Max(size, 1) (c10 TensorImpl empty_tensor_restride; TensorUtils.cpp
  computeStride_impl's numel 0 case): torch.empty(2, 3, 0, 5).stride() is (15, 5, 5, 1). symshape
  gave (0, 0, 5, 1), so every stride read of a tensor with an empty dim after it was wrong.
- contiguous() returns self where c10 counts the tensor contiguous (numel 0, or every dim of size
  other than 1 dense): x.transpose(1, 2) of [B, 1, C] is itself, (C, 1, C), not (C, 1, 1).
- unique(x, dim=d): the stacked rows in 2.x's moveaxis or 1.13's transpose order, the empty
  result contiguous.
- TensorIterator's tie-break (equal strides: the larger size goes later).

Measured before (main ab32bc0) -> after, the same under both torch versions: violations
default 8 -> 1, relaxed 87 -> 1; accepted default 216 -> 259, relaxed 359 -> 359; no model
accepts fewer sizes. strides47 (test_strides47.py) then made TensorIterator's layout exact at every
size: x * 2 of a contiguous [0, 1, 6] has strides (6, 0, 1) (input: violations 1 -> 0 under each
policy, 26 of 26 accepted), and an elementwise op of a permuted or channels_last tensor under the
relaxed policy is modelled (elementwise, channels_last_add: 0 -> 26 accepted; default elementwise
15 -> 11: its stride read now depends on the sizes 0 and 1, so it touches them, 2 <= B).
Left, asserted as it is: conv2d of a channels_last input is not modelled (a stride read is refused:
the trace fails, nothing accepted)."""
import random

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from models_util import POLICIES, check_points, run_real
from models_util import policy_kw as _kw

import symshape


def _st(*ys):
    return tuple(torch.zeros(y.stride(i)) for y in ys for i in range(y.dim()))


class Input(nn.Module):
    """the input's own strides and an elementwise result's (contiguous: TensorIterator's fast setup)"""

    def forward(self, x):
        y = x * 2
        return (y,) + _st(x, y)


class PermContig(nn.Module):
    def forward(self, x):
        y = x.permute(2, 0, 1).contiguous()
        return (y,) + _st(y)


class PermContigView(nn.Module):
    def forward(self, x):
        b, t, c = x.shape
        y = x.permute(0, 2, 1).contiguous().view(b, c * t)
        return (y,) + _st(y)


class PermContigViewUnread(nn.Module):
    def forward(self, x):
        b, t, c = x.shape
        return x.permute(0, 2, 1).contiguous().view(b * c, t) + 1


class NewZeros(nn.Module):
    def forward(self, x):
        b, t, c = x.shape
        z = x.new_zeros(b, t, c)
        e = torch.empty(b, c, t)
        return (z,) + _st(z, e)


class Cat(nn.Module):
    def forward(self, x):
        y = torch.cat([x, x], 1)
        return (y,) + _st(y)


class ReshapeCopy(nn.Module):
    def forward(self, x):
        b, t, c = x.shape
        y = x.transpose(1, 2).reshape(b, c * t)
        return (y,) + _st(y)


class ViewEmpty(nn.Module):
    def forward(self, x):
        b, t, c = x.shape
        y = x.view(b * t, c)
        z = x.view(b, t, 2, c // 2)
        return (y,) + _st(y, z)


class Flatten(nn.Module):
    def forward(self, x):
        y = x.permute(0, 2, 1).contiguous().flatten(1)
        z = x.flatten(0, 1)
        return (y,) + _st(y, z)


class Unsqueeze(nn.Module):
    def forward(self, x):
        y = x.contiguous().unsqueeze(1)
        z = x[:, None]
        return (y,) + _st(y, z)


class TransposeSize1Contig(nn.Module):
    """x.transpose(1, 2) of [B, T, C] is c10-contiguous where T == 1 (or the tensor is empty):
    contiguous() returns it, strides and all"""

    def forward(self, x):
        y = x.transpose(1, 2).contiguous()
        return (y,) + _st(y)


class SliceContig(nn.Module):
    """x[:, :1] of [B, T, C]: c10-contiguous where B <= 1 (T's stride is C*T, skipped at size 1)"""

    def forward(self, x):
        y = x[:, :1].contiguous()
        return (y + 1,) + _st(y)


class IsContiguous(nn.Module):
    def forward(self, x):
        y = x.transpose(1, 2)
        if y.is_contiguous():
            return y + 1
        return y * 2


class Elementwise(nn.Module):
    """TensorIterator on a permuted operand: dense in the operands' stride order (plain products)"""

    def forward(self, x):
        y = x.permute(0, 2, 1) + 1
        return (y,) + _st(y)


class Expand(nn.Module):
    def forward(self, x):
        b, t, c = x.shape
        y = x[:, :1].expand(b, t, c).contiguous()
        return (y,) + _st(y)


class ChannelsLastAdd(nn.Module):
    def forward(self, x):
        y = x.contiguous(memory_format=torch.channels_last)
        z = y + 1
        return (z,) + _st(y, z)


class ChannelsLastConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 6, 3, padding=1)

    def forward(self, x):
        y = self.conv(x.contiguous(memory_format=torch.channels_last))
        return (y,) + _st(y)


class UniqueDim(nn.Module):
    def forward(self, x):
        y = torch.unique(x, dim=1)
        return (y,) + _st(y)


def _pts3(seed, n=26):
    """(B, T) points: every pair of {0, 1, 2} and random ones up to 7"""
    rng = random.Random(seed)
    pts = [(b, t) for b in (0, 1, 2) for t in (0, 1, 2)]
    while len(pts) < n:
        pts.append((rng.randint(0, 7), rng.randint(0, 7)))
    return pts


def _pts4(seed, n=26):
    """(N, HW) points of a 4-D [N, 4, H, W] input, H = W = HW"""
    return _pts3(seed, n)


# (name, model, shape of a point, example point, dynamic dims)
M3 = lambda p: [p[0], p[1], 6]  # noqa: E731
M4 = lambda p: [p[0], 4, p[1], p[1] + 1]  # noqa: E731
MODELS = [
    ("input", Input, M3), ("perm_contig", PermContig, M3), ("perm_contig_view", PermContigView, M3),
    ("perm_contig_view_unread", PermContigViewUnread, M3), ("new_zeros", NewZeros, M3), ("cat", Cat, M3),
    ("reshape_copy", ReshapeCopy, M3), ("view_empty", ViewEmpty, M3), ("flatten", Flatten, M3),
    ("unsqueeze", Unsqueeze, M3), ("transpose_size1_contig", TransposeSize1Contig, M3),
    ("slice_contig", SliceContig, M3), ("is_contiguous", IsContiguous, M3), ("elementwise", Elementwise, M3),
    ("expand", Expand, M3), ("channels_last_add", ChannelsLastAdd, M4), ("channels_last_conv", ChannelsLastConv, M4),
    ("unique_dim", UniqueDim, M3),
]


def _same(mine, real):
    """equal shapes, a None of symshape's (an unbacked size: data-dependent) matching any size"""
    if len(mine) != len(real):
        return False
    return all(len(a) == len(b) and all(x is None or x == y for x, y in zip(a, b)) for a, b in zip(mine, real))


def measure(name, cls, shape, policy, dims=(0, 1)):
    """(points, CPU ok, accepted, violations, error of the trace or None)"""
    torch.manual_seed(0)
    m = cls().eval()
    pts = _pts3(len(name))
    ex = (3, 4)
    if name == "unique_dim":
        mk = lambda p: {"x": torch.randint(0, 2, shape(p)).float()}  # noqa: E731
    else:
        mk = lambda p: {"x": torch.randn(*shape(p))}  # noqa: E731
    try:
        doc = symshape.export(m, mk(ex), dynamic={"x": list(dims) if shape is M3 else [0, 2, 3]}, name=name)
        gs = symshape.trace(doc, **(_kw(policy) or {}))
    except Exception as e:  # noqa: BLE001
        return len(pts), sum(run_real(m, mk(p))[0] for p in pts), 0, [], "%s: %s" % (type(e).__name__, e)
    ok, acc, bad = check_points(gs, m, mk, pts, shape, _same)
    return len(pts), ok, acc, bad, None


# name: (CPU ok, default: accepted, violations, not modelled, relaxed: accepted, violations, not
# modelled), of 26 points; the same under torch 2.14.1 and 1.13
EXPECTED = {
    "input": (26, 26, 0, False, 26, 0, False),
    "perm_contig": (26, 11, 0, False, 26, 0, False),
    "perm_contig_view": (26, 12, 0, False, 26, 0, False),
    "perm_contig_view_unread": (26, 9, 0, False, 26, 0, False),
    "new_zeros": (26, 11, 0, False, 26, 0, False),
    "cat": (26, 26, 0, False, 26, 0, False),
    "reshape_copy": (26, 10, 0, False, 10, 0, False),
    "view_empty": (26, 12, 0, False, 26, 0, False),
    "flatten": (26, 26, 0, False, 26, 0, False),
    "unsqueeze": (26, 11, 0, False, 26, 0, False),
    "transpose_size1_contig": (26, 26, 0, False, 26, 0, False),
    "slice_contig": (26, 10, 0, False, 26, 0, False),
    "is_contiguous": (26, 13, 0, False, 16, 0, False),
    "elementwise": (26, 11, 0, False, 26, 0, False),
    "expand": (26, 9, 0, False, 26, 0, False),
    "channels_last_add": (26, 15, 0, False, 26, 0, False),
    "channels_last_conv": (23, 0, 0, True, 0, 0, True),
    "unique_dim": (21, 17, 0, False, 21, 0, False),
}


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name,cls,shape", MODELS, ids=[m[0] for m in MODELS])
def test_strides46(name, cls, shape, policy):
    n, ok, acc, bad, err = measure(name, cls, shape, policy)
    want = EXPECTED[name]
    w_acc, w_viol, w_unmodelled = want[1:4] if policy == "default" else want[4:7]
    assert n == 26 and ok == want[0], (n, ok)
    if w_unmodelled:
        assert err and "not modelled" in err, err
    else:
        assert err is None, err
    assert (acc, len(bad)) == (w_acc, w_viol), (acc, bad)


if __name__ == "__main__":
    import sys
    for policy in POLICIES:
        for name, cls, shape in MODELS:
            n, ok, acc, bad, err = measure(name, cls, shape, policy)
            print("%-8s %-26s pts %d ok %2d acc %2d viol %2d %s" % (policy, name, n, ok, acc, len(bad),
                  (err or "")[:150] or (bad[0][:150] if bad else "")))
            sys.stdout.flush()
