"""Index values that are a known function of sizes (shapeenv/values.c): GPT-2's learned position
embedding `wpe(torch.arange(T))` with a table of 16 rows runs only while T <= 16 (the CPU raises
"index out of range in self"); before, symshape accepted every T. Each model is exported once,
traced under the default and the relaxed policy and run on the CPU at >= 20 sizes including
T = 0, 1, 15, 16, 17: 0 soundness violations, and under the relaxed policy every size the CPU
runs is accepted (the bound is the model's own condition, not a limit of ours). Also index_select of
arange(T) rows of a dim of P rows (runs while T <= P)."""
import random

import pytest
import torch
import torch.nn as nn

from models_util import soundness

NO_POLICY = {"duck_sizing": False, "specialize_01": False}
ROWS = 16


class Emb(nn.Module):
    """the adversarial pass's reproducer: token + position embedding"""

    def __init__(self):
        super().__init__()
        self.e, self.p = nn.Embedding(11, 6), nn.Embedding(ROWS, 6)

    def forward(self, ids):
        pos = torch.arange(ids.size(1)).unsqueeze(0)
        return self.e(ids) + self.p(pos)


class EmbPast(nn.Module):
    """GPT-2 with a cache: positions past .. past + T - 1, past the cache's length"""

    def __init__(self):
        super().__init__()
        self.p = nn.Embedding(ROWS, 6)

    def forward(self, ids, kv):
        past = kv.size(2)
        pos = torch.arange(past, past + ids.size(1), dtype=torch.long)
        return self.p(pos.unsqueeze(0)) + ids.unsqueeze(-1)


class EmbExpand(nn.Module):
    """positions expanded to the batch, shifted by one, as (B, T) indices"""

    def __init__(self):
        super().__init__()
        self.p = nn.Embedding(ROWS, 6)

    def forward(self, ids):
        b, t = ids.shape
        pos = torch.arange(0, t, dtype=torch.long).unsqueeze(0).expand(b, -1)
        return self.p(pos[:, None] + 1)


class EmbClamped(nn.Module):
    """positions written in place (clamp_, a view's setitem) before the lookup: every T runs, so the
    bounds of arange must be forgotten at the write, not checked"""

    def __init__(self):
        super().__init__()
        self.p = nn.Embedding(ROWS, 6)

    def forward(self, ids):
        pos = torch.arange(ids.size(1))
        pos.clamp_(max=ROWS - 1)
        pos2 = torch.arange(ids.size(1)).unsqueeze(0)
        pos2[:, 8:] = 3
        return self.p(pos.unsqueeze(0)) + self.p(pos2)


class IdxSel(nn.Module):
    """index_select of the first T rows of the cache's dim 2 (P rows): runs while T <= P"""

    def forward(self, ids, kv):
        return kv.index_select(2, torch.arange(ids.size(1)) + 0)


class EmbData(nn.Module):
    """control: data indices only, never checked (every T runs with ids < 16)"""

    def __init__(self):
        super().__init__()
        self.p = nn.Embedding(ROWS, 6)

    def forward(self, ids):
        return self.p(ids)


def _points(rng, with_past):
    ts = [0, 1, 2, 14, 15, 16, 17, 18, 31] + [rng.randint(0, 40) for _ in range(13)]
    return [(rng.randint(1, 3), t) + ((rng.choice([0, 1, 2, 5, 14, 16]),) if with_past else ()) for t in ts]


CASES = {
    "emb_arange": (Emb, False),
    "emb_arange_past": (EmbPast, True),
    "emb_arange_expand": (EmbExpand, False),
    "emb_data_control": (EmbData, False),
    "emb_written_in_place": (EmbClamped, False),
    "index_select_arange": (IdxSel, True),
}


@pytest.mark.parametrize("policy", ["default", "relaxed"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_position_embedding_rows(name, policy):
    cls, with_past = CASES[name]
    torch.manual_seed(0)
    model = cls().eval()
    pts = _points(random.Random(name), with_past)

    def inputs(p):
        d = {"ids": torch.randint(0, 11, (p[0], p[1]))}
        if with_past:
            d["kv"] = torch.randn(p[0], 2, p[2], 4)
        return d

    def sizes(p):
        d = {"ids": [p[0], p[1]]}
        if with_past:
            d["kv"] = [p[0], 2, p[2], 4]
        return d

    dyn = {"ids": [0, 1]}
    if with_past:
        dyn["kv"] = [0, 2]
    row, gs, _ = soundness("index_values_%s_%s" % (name, policy), model, inputs, sizes, pts, dynamic=dyn,
                           example=(2, 5, 7) if with_past else (2, 5),
                           trace_kw=NO_POLICY if policy == "relaxed" else None, kind="index values")
    texts = [g.text for g in gs.guards]
    # the CPU itself rejects some of the points (T past the table), except for the control
    assert (row["torch_ok"] == len(pts)) == (name in ("emb_data_control", "emb_written_in_place")), (row, texts)
    if policy == "relaxed":
        assert row["accepted"] == row["torch_ok"], (row, texts)
