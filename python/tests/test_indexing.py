"""Issue 32: advanced (tensor) indexing against real CPU execution, under the torch this runs
with (the test runs under PyTorch 2.x and 1.13). x[:, idx], x[idx], x[i1, :, i2] (the index
dims move to the front when the index tensors are separated), x[..., idx], index tensors that
broadcast, bool masks (an unbacked length bound to torch's at each point), lists of ints or
bools, Python bools, 0-d tensors, x[idx] = v, Tensor.index_put_. Each model is exported once,
traced, and compared with the real model at >= 20 sizes (0 soundness violations: every accepted
point runs, with symshape's output shapes); and a seeded fuzz over random index tuples. Before
this change every one of them stopped at trace ("advanced (tensor) indexing is not supported")
or, for x[[0, 2]], computed x[0, 2]."""
import random

import pytest
import torch

import symshape
from models_util import TABLE, run_real, soundness

NO_POLICY = {"duck_sizing": False, "specialize_01": False}
TORCH1 = torch.__version__.startswith("1.")


def _bind_agree(exprs, syms, real):
    """symshape's output shapes with the input symbols s0.. bound to ``syms`` and each unbacked
    symbol that is a whole output size bound to torch's size there: equal to torch's."""
    if len(exprs) != len(real):
        return False
    env = {"s%d" % i: v for i, v in enumerate(syms)}
    for shp, r in zip(exprs, real):
        if len(shp) != len(r):
            return False
        for e, v in zip(shp, r):
            if str(e).startswith("u") and str(e)[1:].isdigit():
                env.setdefault(str(e), v)
    try:
        mine = [[e.eval(**{n: env[n] for n in map(str, e.free_symbols())}) for e in shp] for shp in exprs]
    except KeyError:
        return False
    return mine == real


def unbacked_soundness(name, model, make, sizes_of, syms_of, points, dynamic, example, trace_kw=NO_POLICY):
    """soundness() for outputs with a data-dependent length: every accepted point must run, and
    the output shapes must agree once the unbacked symbols are bound to torch's sizes."""
    doc = symshape.export(model, make(example), dynamic=dynamic, name=name)
    gs = symshape.trace(doc, **trace_kw)
    exprs = gs.output_exprs()
    accepted = ran = 0
    violations = []
    for p in points:
        acc, _ = gs.check(sizes_of(p))
        ok, real = run_real(model, make(p))
        ran += ok
        accepted += acc
        if acc and not ok:
            violations.append("%s: accepted but torch fails: %s" % (p, real))
        elif acc and not _bind_agree(exprs, syms_of(p), real):
            violations.append("%s: shapes differ: symshape %s, torch %s" % (p, [[str(e) for e in s] for s in exprs], real))
    TABLE.append({"model": name, "kind": "issue 32 indexing", "nodes": len(doc["nodes"]), "guards": len(gs),
                  "points": len(points), "torch_ok": ran, "accepted": accepted, "violations": len(violations),
                  "acceptance": accepted / ran if ran else 0.0, "export_s": 0.0, "trace_s": 0.0})
    assert not violations, "%s: %d violations:\n  %s" % (name, len(violations), "\n  ".join(violations[:10]))
    assert accepted > 0
    return accepted, ran


# ----------------------------------------------------------------------------- models
class Columns(torch.nn.Module):
    """x[:, idx], x[idx], x[..., idx] and x[None, idx] with an index of dynamic length."""

    def forward(self, x, idx):
        return x[:, idx], x[idx], x[..., idx], x[None, idx], x[1:, idx, ::2]


class Separated(torch.nn.Module):
    """Two index tensors that broadcast ([K, 1] and [M]): adjacent (in place) and separated by a
    slice (the broadcast dims go first), and an int between them."""

    def forward(self, x, a, b):
        return x[:, a, b], x[a, :, b], x[a, 0, b], x[:, a, None, b]


class ListsAndBools(torch.nn.Module):
    def forward(self, x):
        return x[[0, 2]], x[:, [True, False, True]], x[True], x[:, False], x[[0, 1], [1, 2]], x[[[0, 1]]]


class ZeroDim(torch.nn.Module):
    def forward(self, x, t):
        return x[t], x[:, t], x[t, :, None]


class SetItem(torch.nn.Module):
    def forward(self, x, idx, v):
        y = x.clone()
        y[idx] = v
        z = x.clone()
        z[:, idx] = 0.5
        w = x.clone()
        w.index_put_((idx,), v)
        return y, z, w


def _points(rng, n, gen, extra=()):
    pts = list(extra)
    while len(pts) < n:
        pts.append(gen(rng))
    return pts


@pytest.mark.parametrize("policy", ["default", "relaxed"])
def test_columns(policy):
    rng = random.Random(32)
    pts = _points(rng, 30, lambda r: (r.randint(0, 6), r.randint(0, 7), r.randint(1, 5), r.randint(0, 4)),
                  [(0, 3, 2, 2), (1, 1, 1, 1), (3, 0, 2, 0), (3, 0, 2, 1), (2, 5, 1, 0), (4, 4, 4, 1)])

    def make(p):
        n = min(p[0], p[1], p[2])  # idx indexes dims 0, 1 and 2
        return {"x": torch.randn(p[0], p[1], p[2]), "idx": torch.randint(0, max(n, 1), (p[3],))}
    row, gs, _ = soundness("index_columns_" + policy, Columns(), make,
                           lambda p: {"x": [p[0], p[1], p[2]], "idx": [p[3]]}, pts,
                           dynamic={"x": [0, 1, 2], "idx": [0]}, example=(4, 5, 3, 2),
                           trace_kw=NO_POLICY if policy == "relaxed" else None, kind="issue 32 indexing")
    if policy == "relaxed":
        # every point torch runs is accepted, except x.size(0) == 0: x[1:] pins the slice's clamping
        # branch (1 <= x.size(0)), a limit of the slice rule, not of indexing
        for p in pts:
            if p[0] and run_real(Columns(), make(p))[0]:
                assert gs.check({"x": list(p[:3]), "idx": [p[3]]})[0], (p, [g.text for g in gs.guards])


@pytest.mark.parametrize("policy", ["default", "relaxed"])
def test_separated_and_broadcast(policy):
    rng = random.Random(320)

    def gen(r):
        k, m = r.randint(1, 4), r.randint(1, 4)
        return (r.randint(1, 5), r.randint(1, 5), r.randint(1, 5), k, r.choice([m, 1, k]))
    pts = _points(rng, 30, gen, [(2, 3, 4, 3, 3), (2, 3, 4, 3, 1), (2, 3, 4, 1, 2), (5, 1, 1, 2, 2)])

    def make(p):
        lo = min(p[0], p[1], p[2])
        return {"x": torch.randn(p[0], p[1], p[2]), "a": torch.randint(0, lo, (p[3], 1)),
                "b": torch.randint(0, lo, (p[4],))}
    soundness("index_separated_" + policy, Separated(), make,
              lambda p: {"x": list(p[:3]), "a": [p[3], 1], "b": [p[4]]}, pts,
              dynamic={"x": [0, 1, 2], "a": [0], "b": [0]}, example=(3, 4, 5, 2, 3),
              trace_kw=NO_POLICY if policy == "relaxed" else None, kind="issue 32 indexing")


def test_lists_and_python_bools():
    rng = random.Random(3)
    pts = _points(rng, 24, lambda r: (r.randint(0, 6), r.randint(0, 6)), [(3, 3), (2, 3), (3, 2), (0, 3), (6, 6)])
    row, _, _ = soundness("index_lists_bools", ListsAndBools(), lambda p: {"x": torch.randn(*p)},
                          lambda p: {"x": list(p)}, pts, dynamic={"x": [0, 1]}, example=(4, 3),
                          trace_kw=NO_POLICY, kind="issue 32 indexing")
    assert row["accepted"] == row["torch_ok"], row


def test_zero_dim_index():
    rng = random.Random(4)
    pts = _points(rng, 24, lambda r: (r.randint(0, 5), r.randint(0, 5)), [(0, 2), (2, 0), (1, 1)])
    soundness("index_zero_dim", ZeroDim(), lambda p: {"x": torch.randn(p[0], p[1]), "t": torch.tensor(0)},
              lambda p: {"x": list(p), "t": []}, pts, dynamic={"x": [0, 1]}, example=(3, 4), trace_kw=NO_POLICY,
              kind="issue 32 indexing")


def test_setitem_and_index_put():
    rng = random.Random(5)

    def gen(r):
        k = r.randint(0, 4)
        return (r.randint(1, 5), r.randint(1, 5), k, r.choice([k, 1, r.randint(0, 4)]), r.randint(1, 5))
    pts = _points(rng, 30, gen, [(3, 4, 2, 2, 4), (3, 4, 2, 1, 4), (3, 4, 2, 3, 4), (3, 4, 2, 2, 3)])

    def make(p):
        lo = min(p[0], p[1])
        return {"x": torch.randn(p[0], p[1]), "idx": torch.randint(0, lo, (p[2],)), "v": torch.randn(p[3], p[4])}
    soundness("index_setitem", SetItem(), make, lambda p: {"x": [p[0], p[1]], "idx": [p[2]], "v": [p[3], p[4]]},
              pts, dynamic={"x": [0, 1], "idx": [0], "v": [0, 1]}, example=(5, 4, 2, 2, 4), trace_kw=NO_POLICY,
              kind="issue 32 indexing")


class Mask(torch.nn.Module):
    def forward(self, x, mask):
        return x[mask], x[:, mask[0]], x[mask, 0]


def test_bool_mask():
    """x[mask]: the length is torch's nonzero count (an unbacked symbol); a mask whose shape
    differs from the indexed dims is rejected (torch raises there)."""
    rng = random.Random(6)

    def gen(r):
        a, b = r.randint(0, 5), r.randint(0, 5)
        return (a, b, r.choice([b, r.randint(1, 3)]), r.choice([a, a, r.randint(0, 5)]), r.choice([b, b, r.randint(0, 5)]))
    # x[mask, 0]: the mask covers x's dims 0, 1 under 2.x, dims 0, 2 under 1.13 (its select comes first)
    pts = _points(rng, 30, gen, [(3, 4, 2, 3, 4), (3, 4, 4, 3, 3), (0, 4, 4, 0, 4), (2, 3, 3, 2, 3)])
    make = lambda p: {"x": torch.randn(p[0], p[1], p[2]), "mask": torch.rand(p[3], p[4]) > 0.5}
    acc, ran = unbacked_soundness("index_bool_mask", Mask(), make,
                                  lambda p: {"x": list(p[:3]), "mask": [p[3], p[4]]}, lambda p: list(p), pts,
                                  {"x": [0, 1, 2], "mask": [0, 1]}, (3, 4, 4, 3, 4))
    assert acc == ran, (acc, ran)


# ----------------------------------------------------------------------------- fuzz
class Spec(torch.nn.Module):
    """x[items] where "T<k>" items are the index tensors passed as inputs."""

    def __init__(self, items):
        super().__init__()
        self.items = items

    def forward(self, x, t0=None, t1=None, t2=None, t3=None):
        ts = (t0, t1, t2, t3)
        it = tuple(ts[int(i[1:])] if isinstance(i, str) else i for i in self.items)
        return x[it]


_PLAIN = [0, -1, slice(None), slice(1, None), slice(None, None, 2), None, Ellipsis, True, [0, 0]]


def _spec(rng):
    nd = rng.randint(1, 4)
    items, tensors = [], []
    for _ in range(rng.randint(1, nd)):
        k = rng.random()
        if k < 0.45:
            if len(tensors) >= 4:
                continue
            kind = rng.choice(["long", "long", "long", "mask", "zero"])
            if kind == "long":
                shape = [rng.randint(1, 3) for _ in range(rng.randint(1, 2))]
            elif kind == "mask":
                k = rng.randint(1, 2)
                shape = ("x", rng.randint(0, max(nd - k, 0)), k)  # x's sizes [off, off + k) at each point
            else:
                shape = []
            items.append("T%d" % len(tensors))
            tensors.append((kind, shape))
        else:
            it = rng.choice(_PLAIN)
            if (it is Ellipsis and Ellipsis in items) or len(tensors) >= 4:
                continue
            items.append(it)
    return nd, items, tensors


class _Sizes:
    def __init__(self, s):
        self.s = s

    def size(self):
        return self.s


_FUNCS = {"Or": lambda *a: any(a), "And": lambda *a: all(a), "Max": max, "Min": min, "FloorDiv": lambda a, b: a // b,
          "Mod": lambda a, b: a % b, "CeilDiv": lambda a, b: -(-a // b), "Not": lambda a: not a}


def _runtime_asserts_hold(gs, sizes, us):
    """The guard set's runtime asserts (on unbacked symbols u0, u1, ...) at these sizes, with
    each u bound to its real value: what the compiled artifact checks when it runs."""
    env = dict(_FUNCS)
    env.update({n: _Sizes(v) for n, v in sizes.items()})
    env.update({"u%d" % i: v for i, v in enumerate(us)})
    for g in gs.guards:
        if g.kind == "runtime_assert" and not eval(g.text.split("  [")[0], {"__builtins__": {}}, env):
            return False
    return True


def _mask_sizes(s, xs):
    _, off, k = s
    return [xs[i] if i < len(xs) else 2 for i in range(off, off + k)]


def _make_inputs(nd, items, tensors, xs, tsz, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*xs, generator=g)
    ts = []
    for (kind, _), s in zip(tensors, tsz):
        if kind == "mask":
            ts.append(torch.rand(*s, generator=g) > 0.5)
        else:
            ts.append(torch.zeros(s, dtype=torch.int64))  # index 0: valid in every non-empty dim
    return x, ts


def test_fuzz_index_tuples():
    """Random index tuples (ints, slices, None, ..., Python bools, lists, long tensors that
    broadcast, masks, 0-d tensors) on random sizes 0..4: every accepted point runs, with
    torch's shapes (masks: the unbacked length bound to torch's)."""
    rng = random.Random(3232)
    specs = runs = 0
    total_acc = total_ok = 0
    violations = []
    while specs < 60:
        nd, items, tensors = _spec(rng)
        # the example: sizes 2..4, masks as large as the dims they index when that is known
        xs = [rng.randint(2, 4) for _ in range(nd)]
        tsz = [_mask_sizes(s, xs) if k == "mask" else list(s) for k, s in tensors]
        x, ts = _make_inputs(nd, items, tensors, xs, tsz, 0)
        model = Spec(items)
        ok, _ = run_real(model, (x, *ts))
        if not ok:
            continue
        names = ["x"] + ["t%d" % i for i in range(len(ts))]
        try:
            doc = symshape.export(model, (x, *ts), dynamic={n: list(range(t.dim())) for n, t in zip(names, (x, *ts))})
            gs = symshape.trace(doc, **NO_POLICY)
        except symshape.Error as e:
            violations.append("%s on %s: trace failed: %s" % (items, xs, e))
            continue
        specs += 1
        exprs = gs.output_exprs()
        for j in range(20):
            pxs = [rng.randint(0, 4) for _ in range(nd)]
            ptsz = [[d if rng.random() < 0.8 else rng.randint(0, 4) for d in
                     (_mask_sizes(s, pxs) if k == "mask" else s)] for (k, s) in tensors]
            px, pts = _make_inputs(nd, items, tensors, pxs, ptsz, j + 1)
            sizes = {n: list(t.shape) for n, t in zip(names, (px, *pts))}
            acc, _ = gs.check(sizes)
            # the unbacked values in creation order: 0-d bool items (slicing), then the masks
            us = [int(t) for (k, _), t in zip(tensors, pts) if k == "zero" and t.dtype == torch.bool]
            us += [int(t.sum()) for (k, _), t in zip(tensors, pts) if k == "mask"]
            acc = acc and _runtime_asserts_hold(gs, sizes, us)
            ok, real = run_real(model, (px, *pts))
            runs += 1
            total_ok += ok
            total_acc += acc
            if acc and not ok:
                violations.append("%s at %s: accepted but torch fails: %s" % (items, sizes, real))
            elif acc and not _bind_agree(exprs, [v for n in names for v in sizes[n]], real):
                violations.append("%s at %s: shapes differ: %s vs torch %s" % (
                    items, sizes, [[str(e) for e in s] for s in exprs], real))
    TABLE.append({"model": "index_fuzz (60 index tuples)", "kind": "issue 32 indexing", "nodes": 0, "guards": 0,
                  "points": runs, "torch_ok": total_ok, "accepted": total_acc, "violations": len(violations),
                  "acceptance": total_acc / total_ok if total_ok else 0.0, "export_s": 0.0, "trace_s": 0.0})
    assert not violations, "%d violations:\n  %s" % (len(violations), "\n  ".join(violations[:15]))
    assert total_acc >= 0.5 * total_ok, (total_acc, total_ok)
