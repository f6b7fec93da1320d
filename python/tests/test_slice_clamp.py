"""Issue 32 item C: slices clamp as PyTorch does (shapeenv/rules.c sy_rule_slice_len, Min/Max, no
guard). x[1:] on a length L is Max(L - 1, 0): before, the trace recorded `1 <= L` (and x[:100]
`L <= 100`, x[-3:] `3 <= L`), so sizes PyTorch runs were rejected. Each model is exported at one
example, traced under the relaxed policy (sizes 0 and 1 stay symbolic) and the default one, and
compared with CPU execution at 40 sizes including 0, 1, 2 and sizes beyond the constants: 0
soundness violations, and every size the CPU runs is accepted under the relaxed policy."""
import random

import pytest
import torch
import torch.nn as nn

from models_util import soundness


class Slices(nn.Module):
    def forward(self, x):
        a = x[:, 1:]              # Max(L - 1, 0)
        b = x[:, :100]            # Min(100, L)
        c = x[:, -3:]             # Min(3, L)
        d = x[:, 2:-3]            # Max(Max(L - 3, 0) - 2, 0)
        e = x[:, 1::2]            # CeilDiv(Max(L - 1, 0), 2)
        f = x[:, 5:x.shape[1] - 1:3]
        return a, b, c, d, e, f


class Tail(nn.Module):
    """a sequence model's shift: logits[:, :-1] against labels[:, 1:] (both Max(L - 1, 0))"""

    def forward(self, x):
        return x[:, :-1] * 2 + x[:, 1:]


@pytest.mark.parametrize("model", [Slices, Tail])
def test_slices_clamp_like_torch(model):
    rng = random.Random(32)
    pts = [(2, 0), (1, 1), (3, 2), (2, 3), (1, 4), (2, 150), (1, 101), (2, 99)]
    while len(pts) < 40:
        pts.append((rng.randint(1, 4), rng.randint(0, 130)))
    mk = lambda p: {"x": torch.randn(p[0], p[1])}
    szs = lambda p: {"x": [p[0], p[1]]}
    rows = {}
    for relaxed in (False, True):
        kw = {"duck_sizing": not relaxed, "specialize_01": not relaxed}
        row, gs, _ = soundness("%s_%s" % (model.__name__, "relaxed" if relaxed else "default"), model().eval(), mk, szs,
                               pts, dynamic={"x": [0, 1]}, example=(2, 17), trace_kw=kw, kind="issue 32 slice")
        rows[relaxed] = row
    # every size the CPU runs is kept where 0 and 1 stay symbolic
    assert rows[True]["accepted"] == rows[True]["torch_ok"], rows[True]
    assert rows[True]["accepted"] >= rows[False]["accepted"]
