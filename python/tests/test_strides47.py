"""strides47 (issue 38 leftovers): TensorIterator's output strides exactly as ATen computes them,
each model run on the CPU (torch 2.14.1 and 1.13) at 26 sizes with 0 and 1 on every dynamic dim,
under the default and the relaxed policy; every stride returned as an output size
(torch.zeros(stride)), so a wrong stride is a wrong output shape. The counts are asserted exactly.

TensorIterator (aten/src/ATen/TensorIterator.cpp compute_shape, compute_fast_setup_type,
compute_strides, reorder_dimensions, allocate_or_resize_outputs): the fast setup (contiguous,
channels_last, or the operands' common dense strides) only when every operand has the same shape
(a Python scalar is a 0-dim operand, so x * 2 never takes it); else the dims sorted by should_swap,
whose tie-break at equal strides puts a size-1 dim after a size-0 one: randn(0, 1, 6) * 2 has
strides (6, 0, 1). symshape gave (6, 6, 1), and a permuted [B, 0, C] through a unary op the
sorted order instead of the input's own strides."""
import random

import pytest
import torch

from models_util import POLICIES, check_points, run_real
from models_util import policy_kw as _kw

import symshape


def _st(*ys):
    return tuple(torch.zeros(y.stride(i)) for y in ys for i in range(y.dim()))


# layouts of a [B, T, C] input: (name, function)
LAYOUTS3 = [
    ("contig", lambda x: x),
    ("perm021", lambda x: x.permute(0, 2, 1)),
    ("perm102", lambda x: x.permute(1, 0, 2)),
    ("transpose01", lambda x: x.transpose(0, 1)),
    ("narrow2", lambda x: x[:, :, 1:]),
    ("step1", lambda x: x[:, ::2]),
    ("expand1", lambda x: x[:, :1].expand(-1, x.shape[1], -1)),
    ("unsq", lambda x: x[:, None, :, 0]),
]
# layouts of a [N, C, H, W] input
LAYOUTS4 = [
    ("cl", lambda x: x.contiguous(memory_format=torch.channels_last)),
    ("perm0231", lambda x: x.permute(0, 2, 3, 1)),
]

# elementwise families: (name, function of the laid-out tensor a)
OPS = [
    ("neg", lambda a: torch.neg(a)),
    ("relu", lambda a: torch.relu(a)),
    ("mul_scalar", lambda a: a * 2),
    ("add_0d", lambda a: a + torch.tensor(3.0)),
    ("add_self", lambda a: a + a),
    ("add_contig", lambda a: a + a.contiguous()),
    ("add_bcast_last", lambda a: a + a[..., :1]),
    ("add_bcast_row", lambda a: a[:1] + a),
    ("add_bias", lambda a: a + torch.ones(a.shape[-1])),
    ("where", lambda a: torch.where(a > 0, a, a.contiguous())),
    ("where_scalar", lambda a: torch.where(a > 0, a, 0.0)),
    ("clamp_t", lambda a: torch.clamp(a, min=a.contiguous())),
    ("promote", lambda a: a.long() * 2.5),
    ("inplace", lambda a: a.clone().add_(1)),
    ("float", lambda a: a.double() + 1),
]


class M(torch.nn.Module):
    def __init__(self, lay, op):
        super().__init__()
        self.lay, self.op = lay, op

    def forward(self, x):
        y = self.op(self.lay(x))
        return (y,) + _st(y)


def _pts(seed, n=26):
    """(B, T) points: every pair of {0, 1, 2} and random ones up to 5"""
    rng = random.Random(seed)
    pts = [(b, t) for b in (0, 1, 2) for t in (0, 1, 2)]
    while len(pts) < n:
        pts.append((rng.randint(0, 5), rng.randint(0, 5)))
    return pts


def _same(mine, real):
    return len(mine) == len(real) and all(list(a) == list(b) for a, b in zip(mine, real))


def measure(lay, op, policy, rank=3):
    """(points, CPU ok, accepted, stride differences, error of the trace or None)"""
    m = M(lay[1], op[1]).eval()
    shape = (lambda p: [p[0], p[1], 6]) if rank == 3 else (lambda p: [p[0], 4, p[1], p[1] + 1])
    dims = [0, 1] if rank == 3 else [0, 2, 3]
    pts = _pts(len(lay[0]) * 31 + len(op[0]))
    mk = lambda p: {"x": torch.randn(*shape(p))}  # noqa: E731
    try:
        doc = symshape.export(m, mk((3, 4)), dynamic={"x": dims}, name="%s_%s" % (lay[0], op[0]))
        gs = symshape.trace(doc, **(_kw(policy) or {}))
    except Exception as e:  # noqa: BLE001
        return len(pts), sum(run_real(m, mk(p))[0] for p in pts), 0, [], "%s: %s" % (type(e).__name__, e)
    ok, acc, bad = check_points(gs, m, mk, pts, shape, _same)
    return len(pts), ok, acc, bad, None


CASES = [(lay, op, 3) for lay in LAYOUTS3 for op in OPS] + [(lay, op, 4) for lay in LAYOUTS4 for op in OPS]


def run_all(policy):
    rows = []
    for lay, op, rank in CASES:
        n, ok, acc, bad, err = measure(lay, op, policy, rank)
        rows.append(("%s/%s" % (lay[0], op[0]), n, ok, acc, bad, err))
    return rows


# the pytest subset (the whole table, 2 x 26 x 150 points per torch version, runs as a script:
# python3 test_strides47.py, about 1 minute): layouts x families, both policies
SUB_LAYOUTS = ("contig", "perm021", "expand1", "narrow2", "cl")
SUB_OPS = ("mul_scalar", "neg", "add_bcast_last", "where_scalar", "promote", "inplace")
SUBSET = [(lay, op, rank) for lay, op, rank in CASES if lay[0] in SUB_LAYOUTS and op[0] in SUB_OPS]
# policy: accepted of the 780 points (every one of them runs on the CPU); no stride differs, every
# model traces. Before (main d673fd2, torch 2.14.1): default 411 accepted, 9 differences; relaxed
# 130 accepted, 4 differences, 25 of the 30 models refused a stride read (not modelled). relaxed
# 774 -> 780 with bcast47 (a broadcast whose sides share a symbol keeps every branch)
SUB_EXPECTED = {"default": 388, "relaxed": 780}


@pytest.mark.parametrize("policy", POLICIES)
def test_strides47(policy):
    acc = ok = 0
    bad, errs = [], []
    for lay, op, rank in SUBSET:
        n, o, a, b, err = measure(lay, op, policy, rank)
        assert n == 26
        ok += o
        acc += a
        bad += ["%s/%s %s" % (lay[0], op[0], x) for x in b]
        if err:
            errs.append("%s/%s: %s" % (lay[0], op[0], err))
    assert (ok, len(SUBSET)) == (780, 30)
    assert not errs, errs
    assert not bad, bad
    assert acc == SUB_EXPECTED[policy], acc


class CopyInto(torch.nn.Module):
    """self.copy_(src): src broadcasts into self, the result is self with its strides"""

    def __init__(self, transposed):
        super().__init__()
        self.transposed = transposed

    def forward(self, x, y):
        z = (x.transpose(1, 2) if self.transposed else x).clone()
        z.copy_(y)
        return (z + 1,) + _st(z)


# (x batch, y batch, length): y's batch 1, equal or not, with 0s
CPTS = [(b, m, t) for b in (0, 1, 2, 3) for m in (0, 1, 2, 3) for t in (0, 1, 2)]


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("transposed", [False, True])
def test_copy_(transposed, policy):
    """copy_ was an unknown op (the trace failed); now: exactly the sizes the CPU runs (relaxed),
    0/1-specialized ones dropped (default), every stride as on the CPU"""
    m = CopyInto(transposed).eval()
    mk = lambda p: {"x": torch.randn(p[0], 4, p[2]) if transposed else torch.randn(p[0], p[2], 4),  # noqa: E731
                    "y": torch.randn(p[1], p[2], 4)}
    doc = symshape.export(m, mk((3, 3, 2)), dynamic={"x": [0, 2] if transposed else [0, 1], "y": [0, 1]}, name="copy_")
    gs = symshape.trace(doc, **(_kw(policy) or {}))
    ok = acc = 0
    bad = []
    for p in CPTS:
        inp = mk(p)
        sizes = {k: list(v.shape) for k, v in inp.items()}
        a, _ = gs.check(sizes)
        r, real = run_real(m, inp)
        ok += r
        acc += a
        if a and (not r or gs.output_shapes(sizes) != real):
            bad.append((sizes, real))
    assert not bad, bad
    assert (len(CPTS), ok, acc) == (48, 21, 21 if policy == "relaxed" else 12)


class Windows(torch.nn.Module):
    """overlapping windows of a [B, T] signal: as_strided((B, T - 2, 3), (T, 1, 1))"""

    def forward(self, x):
        b, t = x.shape
        y = x.as_strided((b, t - 2, 3), (t, 1, 1))
        return (y + 0,) + _st(y)


class PastTheEnd(torch.nn.Module):
    """as_strided((B, 4), (T, 1), 2) runs only where the last window ends inside x's storage"""

    def forward(self, x):
        b, t = x.shape
        return x.as_strided((b, 4), (t, 1), 2) * 1


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("cls,want", [(Windows, (24, 12)), (PastTheEnd, (14, 4))], ids=["windows", "past_the_end"])
def test_as_strided(cls, want, policy):
    """as_strided was an unknown op; now its sizes, strides and the storage bound
    (checkInBoundsForStorage): exactly the sizes the CPU runs (relaxed), every stride as on the CPU"""
    m = cls().eval()
    doc = symshape.export(m, {"x": torch.randn(3, 6)}, dynamic={"x": [0, 1]}, name="as_strided")
    gs = symshape.trace(doc, **(_kw(policy) or {}))
    pts = [(b, t) for b in (0, 1, 2, 3) for t in range(8)]
    ok = acc = 0
    bad = []
    for p in pts:
        a, _ = gs.check({"x": list(p)})
        r, real = run_real(m, {"x": torch.randn(*p)})
        ok += r
        acc += a
        if a and (not r or gs.output_shapes({"x": list(p)}) != real):
            bad.append((p, real))
    assert not bad, bad
    assert (ok, acc) == (want[0], want[0] if policy == "relaxed" else want[1])


if __name__ == "__main__":
    import sys
    import time
    for policy in POLICIES:
        t0 = time.time()
        tot = [0, 0, 0, 0]
        for name, n, ok, acc, bad, err in run_all(policy):
            tot[0] += n; tot[1] += ok; tot[2] += acc; tot[3] += len(bad)
            if bad or err or acc < ok:
                print("%-8s %-26s pts %d ok %2d acc %2d diff %2d %s" % (policy, name, n, ok, acc, len(bad),
                      (err or "")[:120] or (bad[0][:160] if bad else "")))
            sys.stdout.flush()
        print("%s: points %d ok %d accepted %d differences %d (%.1f s)" % (policy, tot[0], tot[1], tot[2], tot[3], time.time() - t0))
