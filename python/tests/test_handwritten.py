"""Hand-written models exercising what the exporter must record: size-dependent control flow,
view(x.size(0), -1), interpolate(size=y.shape[-2:]), padding up to a multiple of 8,
arange/triu masks, chunk/split, an LSTM, attention with a key-padding mask, .item(), unbind
loops and asserts. Each is exported, traced and compared with real CPU execution at >= 50
sampled sizes (0 soundness violations). A model whose graph uses an op the engine does not
know yet is skipped with the op named (the exporter itself must still succeed)."""
import random

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import symshape
from models_util import soundness

N = 50


class Branchy(nn.Module):
    """Size-dependent control flow: a different computation above a threshold."""
    def forward(self, x):
        if x.size(1) > 8:
            return x[:, :8] * 2
        return torch.cat([x, x], dim=1)


class ViewFlatten(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, stride=2)
        self.fc = nn.Linear(4 * 7 * 7, 5)

    def forward(self, x):
        y = self.conv(x)
        return self.fc(y.view(y.size(0), -1))


class InterpTo(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, stride=2, padding=1)

    def forward(self, x, y):
        z = self.conv(x)
        return F.interpolate(z, size=y.shape[-2:], mode="bilinear", align_corners=False) + y


class PadTo8(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 2, 8, stride=8)

    def forward(self, x):
        h, w = x.shape[-2:]
        ph = (8 - h % 8) % 8
        pw = (8 - w % 8) % 8
        x = F.pad(x, (0, pw, 0, ph))
        return self.conv(x)


class Masks(nn.Module):
    """Causal and length masks from arange/triu over the sequence length."""
    def forward(self, x):
        L = x.size(1)
        causal = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
        idx = torch.arange(L)
        scores = torch.matmul(x, x.transpose(1, 2))
        scores = scores.masked_fill(causal, float("-inf"))
        keep = (idx < L - 1)
        return torch.softmax(scores, dim=-1), keep


class ChunkSplit(nn.Module):
    def forward(self, x):
        a, b = x.chunk(2, dim=1)
        parts = torch.split(x, 3, dim=2)
        return a + b, torch.cat(parts, dim=2)


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 8, batch_first=True)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return out, h


class KeyPaddingAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 4)

    def forward(self, x, mask):
        out, _ = self.attn(x, x, x, key_padding_mask=mask, need_weights=False)
        return out


class ItemScale(nn.Module):
    """.item(): a data-dependent int (an unbacked symbol in the engine) that scales the output."""
    def forward(self, x):
        n = (x > 0).sum().item()
        return x * n


class UnbindAssert(nn.Module):
    """Python iteration over the dim-0 slices (len + guard_int + getitem) and an assert."""
    def forward(self, x):
        assert x.shape[-1] % 2 == 0, "last dim must be even"
        total = x[0] * 0
        for t in x:
            total = total + t
        return total


class UnbindLoop(nn.Module):
    def forward(self, x):
        total = x[0] * 0
        for t in x.unbind(0):
            total = total + t
        return total


def rng_for(name):
    return random.Random(sum(map(ord, name)))


def run_case(name, model, make, sizes, points, example, dynamic=None):
    torch.manual_seed(0)
    model.eval()
    try:
        soundness(name, model, make, sizes, points, dynamic=dynamic, example=example, kind="hand-written")
    except symshape.UnsupportedError as e:
        pytest.skip("engine lacks an op: %s" % e)


def test_branchy():
    r = rng_for("branchy")
    pts = [(r.randint(1, 4), r.randint(1, 16)) for _ in range(N)]
    run_case("branchy", Branchy(), lambda p: {"x": torch.randn(*p)}, lambda p: {"x": list(p)}, pts, (2, 12))


def test_view_flatten():
    r = rng_for("view")
    pts = [(r.randint(1, 3), r.choice([15, 16, 14, 13, 17])) for _ in range(N)]
    run_case("view_flatten", ViewFlatten(), lambda p: {"x": torch.randn(p[0], 3, p[1], p[1])},
             lambda p: {"x": [p[0], 3, p[1], p[1]]}, pts, (2, 16), dynamic={"x": [0, 2, 3]})


def test_interpolate_to_shape():
    r = rng_for("interp")
    pts = [(r.randint(1, 40), r.randint(1, 40), r.randint(1, 30), r.randint(1, 30)) for _ in range(N)]
    run_case("interpolate_to", InterpTo(),
             lambda p: {"x": torch.randn(1, 3, p[0], p[1]), "y": torch.randn(1, 3, p[2], p[3])},
             lambda p: {"x": [1, 3, p[0], p[1]], "y": [1, 3, p[2], p[3]]}, pts, (21, 26, 9, 13),
             dynamic={"x": [2, 3], "y": [2, 3]})


def test_pad_to_multiple_of_8():
    r = rng_for("pad8")
    pts = [(r.randint(1, 40), r.randint(1, 40)) for _ in range(N)] + [(16, 24), (8, 30), (21, 32)]
    run_case("pad_to_8", PadTo8(), lambda p: {"x": torch.randn(1, 3, *p)}, lambda p: {"x": [1, 3, *p]},
             pts, (21, 30), dynamic={"x": [2, 3]})
    # the pad amounts (8 - h % 8) % 8 are 0 at multiples of 8, where torch runs too: their signs are not
    # decided (constant_pad_nd only requires each padded dim >= 1 when some pad is positive), and the
    # padded dim is 8*CeilDiv(h, 8). Before: guards 1 <= Mod(7*x.size()[2], 8) rejected h = 8, 16, ...
    torch.manual_seed(0)
    gs = symshape.trace(symshape.export(PadTo8().eval(), {"x": torch.randn(1, 3, 21, 30)}, dynamic={"x": [2, 3]}, name="pad_to_8"))
    assert [g.text for g in gs.guards] == ["x.dim() == 4", "x.dtype == 0", "x.size()[0] == 1", "x.size()[1] == 3",
                                           "2 <= x.size()[2]", "2 <= x.size()[3]"], [g.text for g in gs.guards]
    assert gs.output_shapes({"x": [1, 3, 16, 24]}) == [[1, 2, 2, 3]]


def test_arange_triu_masks():
    r = rng_for("masks")
    pts = [(r.randint(1, 3), r.randint(1, 20)) for _ in range(N)]
    run_case("arange_triu_masks", Masks(), lambda p: {"x": torch.randn(p[0], p[1], 4)},
             lambda p: {"x": [p[0], p[1], 4]}, pts, (2, 7), dynamic={"x": [0, 1]})


def test_chunk_split():
    r = rng_for("chunk")
    pts = [(r.randint(1, 12), r.randint(1, 12)) for _ in range(N)]
    run_case("chunk_split", ChunkSplit(), lambda p: {"x": torch.randn(2, p[0], p[1])},
             lambda p: {"x": [2, p[0], p[1]]}, pts, (6, 9), dynamic={"x": [1, 2]})


def test_lstm():
    r = rng_for("lstm")
    pts = [(r.randint(1, 3), r.randint(1, 10)) for _ in range(N)]
    run_case("lstm", Lstm(), lambda p: {"x": torch.randn(p[0], p[1], 6)}, lambda p: {"x": [p[0], p[1], 6]},
             pts, (2, 5), dynamic={"x": [0, 1]})


def test_attention_key_padding_mask():
    r = rng_for("attn")
    pts = []
    for _ in range(N):
        L, B = r.randint(1, 9), r.randint(1, 3)
        mL, mB = (L, B) if r.random() < 0.8 else (r.randint(1, 9), r.randint(1, 3))
        pts.append((L, B, mB, mL))
    run_case("attention_key_padding", KeyPaddingAttention(),
             lambda p: {"x": torch.randn(p[0], p[1], 16), "mask": torch.zeros(p[2], p[3], dtype=torch.bool)},
             lambda p: {"x": [p[0], p[1], 16], "mask": [p[2], p[3]]}, pts, (5, 3, 3, 5),
             dynamic={"x": [0, 1], "mask": [0, 1]})


def test_item():
    r = rng_for("item")
    pts = [(r.randint(1, 5), r.randint(1, 7)) for _ in range(N)]
    run_case("item_scale", ItemScale(), lambda p: {"x": torch.randn(*p)}, lambda p: {"x": list(p)}, pts, (3, 4))


def test_unbind_loop_and_assert():
    r = rng_for("unbind")
    pts = [(r.randint(1, 5), r.randint(1, 9)) for _ in range(N)]
    run_case("unbind_assert", UnbindAssert(), lambda p: {"x": torch.randn(*p)}, lambda p: {"x": list(p)},
             pts, (3, 4))


def test_item_is_exported_as_data_dependent():
    doc = symshape.export(ItemScale(), {"x": torch.randn(3, 4)})
    assert [n["op"] for n in doc["nodes"] if n["op"] in ("item", "sum", "gt")] == ["gt", "sum", "item"]


def test_unbind_loop():
    r = rng_for("unbind_loop")
    pts = [(r.randint(1, 5), r.randint(1, 9)) for _ in range(N)]
    run_case("unbind_loop", UnbindLoop(), lambda p: {"x": torch.randn(*p)}, lambda p: {"x": list(p)}, pts, (3, 4))


def test_unbind_loop_records_len_and_guard_int():
    doc = symshape.export(UnbindLoop(), {"x": torch.randn(3, 4)})
    ops = [n["op"] for n in doc["nodes"]]
    assert "unbind" in ops and "len" in ops
    gi = [n for n in doc["nodes"] if n["op"] == "guard_int"]
    assert any(n["args"][1] == 3 for n in gi)
    doc = symshape.export(UnbindAssert(), {"x": torch.randn(3, 4)})
    ops = [n["op"] for n in doc["nodes"]]
    assert "len" in ops
    gi = [n for n in doc["nodes"] if n["op"] == "guard_int"]
    assert any(n["args"][1] == 3 for n in gi)
    gb = [n for n in doc["nodes"] if n["op"] == "guard_bool"]
    assert gb and gb[0]["loc"]["function"] == "forward" and gb[0]["loc"]["file"] == __file__
