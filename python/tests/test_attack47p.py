"""Issue 38, the adversarial pass attack47p (Python/torch/deploy surfaces): the faults it found in
user-style models, each against real CPU execution at every point of a grid with the edges (0,
1, 2, primes, large), under the default and the relaxed policy.

- A torch function parsed by torch's C argument parser (a builtin: torch.topk, torch.narrow,
  torch.select, torch.tril, torch.reshape, torch.bincount, torch.kthvalue, torch.full_like, ...)
  given a traced int: the parser matches the signature before it calls __torch_function__, so
  2.x read the int with __index__ (a guard_int: the size pinned to its example, 1 or 2 of 20
  sizes kept) and 1.13 refused it ("topk(): argument 'k' (position 2) must be int, not
  _SyProxy"), where the Tensor method (x.topk(k)) was recorded. Mixture-of-depths routing
  (torch.topk(w, T // 8)), top-k pooling, causal masks (torch.tril(ones, k)) hit it."""
import pytest
import torch
import torch.nn as nn

import symshape
from models_util import POLICIES, run_real
from models_util import policy_kw as _kw

SIZES = [0, 1, 2, 3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 31, 32, 33, 64, 97, 128, 255]

# f(x, k) with x [4, T] and k = T // 2, a traced int; torch.f called as a function
CASES = {
    "topk": lambda x, k: torch.topk(x, k, dim=1).values,
    "kthvalue": lambda x, k: torch.kthvalue(x, k + 1, dim=1).values,
    "narrow": lambda x, k: torch.narrow(x, 1, 0, k),
    "select": lambda x, k: torch.select(x, 1, k),
    "tril": lambda x, k: torch.tril(torch.ones(x.size(1), x.size(1)), k) @ x.t(),
    "reshape": lambda x, k: torch.reshape(x, (x.size(0) * x.size(1),)),
    "bincount": lambda x, k: torch.bincount(torch.arange(x.size(1)), minlength=k),
    "full_like": lambda x, k: torch.full_like(x, k),
}


class Call(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x, x.size(1) // 2)


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_torch_function_traced_int(name, policy):
    """Every size the CPU runs is accepted under the relaxed policy (before: the example's alone,
    or an ExportError under 1.13), with the CPU's output shapes; the default policy loses only
    0 and 1 (specialized)."""
    model = Call(CASES[name])
    gs = symshape.trace(symshape.export(model, {"x": torch.randn(4, 8)}, dynamic={"x": [1]}), **(_kw(policy) or {}))
    accepted, ran = [], []
    for t in SIZES:
        torch.manual_seed(0)
        ok, real = run_real(model, {"x": torch.randn(4, t)})
        acc, why = gs.check({"x": [4, t]})
        if ok:
            ran.append(t)
        if acc:
            accepted.append(t)
            assert ok, (t, real)
            mine = gs.output_shapes({"x": [4, t]})
            # bincount's length is max(values) + 1 or minlength: data, None
            assert mine == ([[None]] if name == "bincount" else real), (t, mine, real)
    # kthvalue and select need k + 1 <= T resp. k < T: T = 0 fails on the CPU
    assert ran == (SIZES[1:] if name in ("kthvalue", "select") else SIZES)
    # full_like reads no size of x but its fill value: nothing to specialize
    assert accepted == (ran if policy == "relaxed" or name == "full_like" else [t for t in ran if t >= 2])
