"""Ops whose result depends on tensor values, against torch 1.13 on the CPU (issue 12):

* tensor_split with a tensor of indices or sections (TensorShape.cpp: a CPU int64 tensor of 0 or
  1 dims). A computed 1-D tensor: its values are unbacked symbols u0, u1, ...; the piece sizes
  are exact expressions of them (Python slice clamping, negative indices wrap), checked by
  evaluating them at the real values of >= 20 random points per length. A constant tensor (a
  buffer): the exporter writes the int / list it stands for, compared with soundness(). The
  error cases PyTorch raises (dtype, rank) and the data-dependent 0-d sections (unsupported).
* istft's NOLA check on a given window: the part the sizes decide is exact; the part the
  window's values decide is a runtime assert in the guard set, never silently accepted."""
import random

import pytest
import torch

import symshape
from models_util import soundness

NO_POLICY = {"duck_sizing": False, "specialize_01": False}


class SplitBy(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x, idx):
        return torch.tensor_split(x, idx, dim=self.dim)


def _torch_pieces(x, idx, dim):
    try:
        return True, [list(p.shape) for p in torch.tensor_split(x, idx, dim=dim)]
    except RuntimeError as e:
        return False, str(e)


@pytest.mark.parametrize("k", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("dim", [0, 1])
def test_tensor_split_computed_indices(k, dim):
    rng = random.Random(1000 * k + dim)
    ex_x, ex_idx = torch.randn(7, 5), torch.tensor([rng.randint(-3, 6) for _ in range(k)], dtype=torch.int64)
    doc = symshape.export(SplitBy(dim), (ex_x, ex_idx), dynamic={"x": [0, 1], "idx": []})
    gs = symshape.trace(doc, **NO_POLICY)
    exprs = gs.output_exprs()
    assert len(exprs) == k + 1
    names = set()
    for shp in exprs:
        for e in shp:
            names |= {str(s) for s in e.free_symbols()}
    assert names <= {"s0", "s1"} | {"u%d" % i for i in range(k)}, names
    if k:
        assert any(n.startswith("u") for n in names)  # the piece sizes read the values
    for _ in range(24):
        a, b = rng.randint(0, 9), rng.randint(0, 9)
        L = (a, b)[dim]
        vals = [rng.randint(-L - 3, L + 3) for _ in range(k)]
        ok, real = _torch_pieces(torch.randn(a, b), torch.tensor(vals, dtype=torch.int64), dim)
        assert ok, real
        acc, failed = gs.check({"x": [a, b], "idx": [k]})
        assert acc, failed
        env = {"s0": a, "s1": b}
        env.update({"u%d" % i: v for i, v in enumerate(vals)})
        mine = [[e.eval(**{n: env[n] for n in map(str, e.free_symbols())}) for e in shp] for shp in exprs]
        assert mine == real, (a, b, vals, mine, real, [[str(e) for e in s] for s in exprs])


class SplitByBuffer(torch.nn.Module):
    def __init__(self, cuts):
        super().__init__()
        self.register_buffer("cuts", cuts)

    def forward(self, x):
        return torch.tensor_split(x, self.cuts, dim=1)


@pytest.mark.parametrize("cuts", [torch.tensor([2, -1]), torch.tensor([0, 3, 3, 9]), torch.tensor(3)],
                         ids=["indices", "indices_repeat", "sections_0d"])
def test_tensor_split_constant_tensor(cuts):
    model = SplitByBuffer(cuts).eval()
    doc = symshape.export(model, {"x": torch.randn(2, 7)}, dynamic={"x": [0, 1]})
    node = next(n for n in doc["nodes"] if n["op"] == "tensor_split")
    assert node["args"][1] == (int(cuts) if cuts.dim() == 0 else cuts.tolist())  # the values, not a ref
    rng = random.Random(cuts.numel())
    pts = [(rng.randint(0, 4), rng.randint(0, 12)) for _ in range(24)]
    row, _, _ = soundness("tensor_split buffer %s" % cuts.tolist(), model, lambda p: {"x": torch.randn(*p)},
                          lambda p: {"x": list(p)}, pts, example=(2, 7), dynamic={"x": [0, 1]}, trace_kw=NO_POLICY,
                          kind="op")
    assert row["torch_ok"] == len(pts)


@pytest.mark.parametrize("idx,msg", [
    (torch.tensor([1, 2], dtype=torch.int32), "to have dtype of long, but got"),
    (torch.tensor([[1, 2]]), "zero-dimensional or one-dimensional tensor, but got a tensor with 2 dims"),
])
def test_tensor_split_tensor_errors(idx, msg):
    with pytest.raises(RuntimeError, match=msg):
        torch.tensor_split(torch.randn(6, 4), idx)
    with pytest.raises(symshape.InvalidError, match=msg):
        symshape.trace(_split_doc(idx))


def test_tensor_split_computed_sections_unsupported():
    """A computed 0-d tensor of sections: torch runs it, but the number of outputs is its value."""
    assert len(torch.tensor_split(torch.randn(6, 4), torch.tensor(2))) == 2
    doc = symshape.export(SplitBy(0), (torch.randn(6, 4), torch.tensor(2)), dynamic={"x": [0], "idx": []})
    with pytest.raises(symshape.UnsupportedError, match="0-dim tensor of sections"):
        symshape.trace(doc)


def _split_doc(idx):
    """A hand-written graph (torch itself raises, so the exporter cannot run it)."""
    return {"format": "symshape.graph", "version": 1, "torch_version": torch.__version__, "name": "split_bad", "nodes": [
        {"name": "x", "op": "input", "dtype": "float32", "shape": [6, 4], "dynamic": [0]},
        {"name": "idx", "op": "input", "dtype": str(idx.dtype).replace("torch.", ""), "shape": list(idx.shape),
         "dynamic": []},
        {"name": "out", "op": "tensor_split", "args": [{"ref": "x"}, {"ref": "idx"}], "kwargs": {}}],
        "outputs": [{"ref": "out"}]}


class ISTFT(torch.nn.Module):
    def __init__(self, window, center):
        super().__init__()
        self.center = center
        if window is not None:
            self.register_buffer("win", window)
        else:
            self.win = None

    def forward(self, spec):
        return torch.istft(spec, 8, hop_length=2, window=self.win, center=self.center)


def _istft_points(rng):
    return [rng.randint(0, 9) for _ in range(24)]


@pytest.mark.parametrize("window,center", [(None, False), (None, True), ("hann", False), ("hann", True),
                                           ("hamming", False)])
def test_istft_window_values(window, center):
    """torch.hann_window(8)[0] == 0: with center=False the first output sample's envelope is 0
    and torch raises "window overlap add min" at every size; the hamming window has no zero.
    symshape decides what the sizes decide (the window's support, exactly as the ones window
    of window=None) and records the value part as a runtime assert, so a given window never
    passes silently; without a window there is no such assert and the check is exact."""
    w = {"hann": torch.hann_window(8), "hamming": torch.hamming_window(8), None: None}[window]
    model = ISTFT(w, center).eval()
    rng = random.Random("%s:%s" % (window, center))
    spec = lambda t: torch.randn(5, t, dtype=torch.complex64)  # noqa: E731
    if window == "hann" and not center:
        doc = _istft_doc(center)
    else:
        doc = symshape.export(model, {"spec": spec(6)}, dynamic={"spec": [1]})
    gs = symshape.trace(doc, **NO_POLICY)
    rt = [g for g in gs.guards if g.kind == "runtime_assert"]
    if window is None:
        assert not rt
    else:
        assert len(rt) == 1 and "window overlap add min" in rt[0].why and "window's values" in rt[0].why, rt
    n_acc = 0
    for t in _istft_points(rng):
        try:
            torch.istft(spec(t), 8, hop_length=2, window=w, center=center)
            ok = True
        except RuntimeError as e:
            ok, err = False, str(e)
        acc, _ = gs.check({"spec": [5, t]})
        n_acc += acc
        # the shape part, as window=None decides it
        ones_ok = True
        try:
            torch.istft(spec(t), 8, hop_length=2, center=center)
        except RuntimeError:
            ones_ok = False
        assert acc == ones_ok, (t, acc, ones_ok)
        if window == "hann" and not center:
            assert not ok  # the shape part rejects, or else the value part (the runtime assert) fails
            assert not acc or "window overlap add min" in err, (t, err)
        elif acc:
            assert ok, (t, err)
            assert gs.output_shapes({"spec": [5, t]}) == [list(torch.istft(spec(t), 8, hop_length=2, window=w,
                                                                          center=center).shape)]
    assert n_acc > 0


def _istft_doc(center):
    """torch raises at every size for hann + center=False, so the exporter cannot capture it:
    the same one-op graph by hand (the window a param of the model, as the exporter writes it)."""
    return {"format": "symshape.graph", "version": 1, "torch_version": torch.__version__, "name": "istft_hann", "nodes": [
        {"name": "spec", "op": "input", "dtype": "complex64", "shape": [5, 6], "dynamic": [1]},
        {"name": "win", "op": "param", "dtype": "float32", "shape": [8]},
        {"name": "out", "op": "istft", "args": [{"ref": "spec"}, 8],
         "kwargs": {"hop_length": 2, "window": {"ref": "win"}, "center": center}}],
        "outputs": [{"ref": "out"}]}


# ---------------------------------------------------------------- data-dependent lengths
class MaskedSelect(torch.nn.Module):
    def forward(self, x, mask):
        return torch.masked_select(x, mask), torch.nonzero(x > 0)


class RepeatInterleaveTensor(torch.nn.Module):
    def forward(self, x, reps):
        return torch.repeat_interleave(x, reps, dim=0)


def _unbacked_agree(gs, exprs, sizes, real):
    """Bind each unbacked symbol that is a whole output size to torch's size there, then every
    output size of symshape must equal torch's."""
    assert len(exprs) == len(real), (exprs, real)
    env = {}
    for shp, r in zip(exprs, real):
        assert len(shp) == len(r), (shp, r)
        for e, v in zip(shp, r):
            if str(e).startswith("u") and str(e)[1:].isdigit():
                env.setdefault(str(e), v)
    inputs = {"s%d" % i: v for i, v in enumerate(sizes)}
    env.update(inputs)
    return [[e.eval(**{n: env[n] for n in map(str, e.free_symbols())}) for e in shp] for shp in exprs] == real


@pytest.mark.parametrize("case", ["masked_select", "repeat_interleave"])
def test_unbacked_lengths(case):
    """masked_select / nonzero / repeat_interleave with tensor repeats: the length is an unbacked
    symbol; the guards must reject every point where torch raises (broadcasting of the mask, the
    repeats' length), and the other sizes must match torch with the symbol bound to its value."""
    rng = random.Random(case)
    if case == "masked_select":
        model, ex = MaskedSelect(), (torch.randn(4, 6), torch.rand(4, 6) > 0.5)
        dyn = {"x": [0, 1], "mask": [0, 1]}

        def point():
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            c = rng.choice([a, 1, rng.randint(1, 6)])
            d = rng.choice([b, 1, rng.randint(1, 6)])
            return (torch.randn(a, b), torch.rand(c, d) > 0.5), [a, b, c, d]
    else:
        model, ex = RepeatInterleaveTensor(), (torch.randn(4, 3), torch.tensor([1, 0, 2, 3]))
        dyn = {"x": [0], "reps": [0]}

        def point():
            a = rng.randint(1, 6)
            n = rng.choice([a, a, 1, rng.randint(1, 6)])
            return (torch.randn(a, 3), torch.randint(0, 4, (n,))), [a, n]
    doc = symshape.export(model, ex, dynamic=dyn)
    gs = symshape.trace(doc, **NO_POLICY)
    exprs = gs.output_exprs()
    accepted = raised = 0
    for _ in range(30):
        args, syms = point()
        try:
            with torch.no_grad():
                out = model(*args)
            real = [list(t.shape) for t in (out if isinstance(out, tuple) else (out,))]
            ok = True
        except RuntimeError as e:
            ok, real = False, str(e)
        raised += not ok
        acc, failed = gs.check({k: list(a.shape) for k, a in zip(dyn, args)})
        if acc:
            accepted += 1
            assert ok, (syms, real)
            assert _unbacked_agree(gs, exprs, syms, real), (syms, real, [[str(e) for e in s] for s in exprs])
    assert accepted > 0 and raised > 0, (accepted, raised)
