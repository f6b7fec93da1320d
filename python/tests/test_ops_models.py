"""Issue 12's eight small torch.nn models built from the ops it added (recurrent layers, max/min
with indices, unfold/fold, einsum, prelu, pixel_shuffle, cumsum, gather): each is exported with
symshape.export, traced, and checked against the real model on the CPU at >= 24 random sizes
(small ones included, so that some points fail on the CPU). A soundness violation is a point the
guards accept where the CPU fails or where the real output shapes differ from symshape's
(get_real_value); every model must have 0 and accept at least one point. The per-model table
(nodes, guards, points, CPU ran, accepted, violations) goes to $SYMSHAPE_MODEL_TABLE.

The models are not skipped when an op is missing: an UnsupportedError fails the test."""
import math
import random
import zlib

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from models_util import soundness

N = 24  # probe points per model


class BiLSTMTagger(nn.Module):
    """Embedding -> 2-layer bidirectional LSTM (batch_first) -> per-token tag scores."""
    def __init__(self, vocab=50, emb=12, hidden=10, tags=5):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, num_layers=2, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, tags)

    def forward(self, tokens):
        h, _ = self.lstm(self.emb(tokens))
        return F.log_softmax(self.out(h), dim=-1)


class GRUKeywordSpotter(nn.Module):
    """Log-mel frames (B, T, 20) -> conv front end over time -> GRU -> the last step -> keywords."""
    def __init__(self, mels=20, hidden=16, keywords=6):
        super().__init__()
        self.front = nn.Conv1d(mels, 24, kernel_size=3, stride=2)
        self.gru = nn.GRU(24, hidden, num_layers=2, batch_first=True)
        self.fc = nn.Linear(hidden, keywords)

    def forward(self, feats):
        x = F.relu(self.front(feats.transpose(1, 2))).transpose(1, 2)
        out, h = self.gru(x)
        return self.fc(out[:, -1]), h


class ESPCN(nn.Module):
    """Shi et al. 2016: feature maps at low resolution, then a sub-pixel convolution (pixel_shuffle)."""
    def __init__(self, r=3):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 5, padding=2)
        self.c2 = nn.Conv2d(16, 8, 3, padding=1)
        self.c3 = nn.Conv2d(8, r * r, 3, padding=1)
        self.shuffle = nn.PixelShuffle(r)

    def forward(self, x):
        x = torch.tanh(self.c1(x))
        x = torch.tanh(self.c2(x))
        return torch.sigmoid(self.shuffle(self.c3(x)))


class PReLUSeparator(nn.Module):
    """A Conv-TasNet-like separator: learned encoder (conv1d k=16 s=8), PReLU mask network,
    two source masks, transposed-conv decoder back to the waveform."""
    def __init__(self, n=32, sources=2):
        super().__init__()
        self.sources = sources
        self.enc = nn.Conv1d(1, n, 16, stride=8, bias=False)
        self.net = nn.Sequential(nn.Conv1d(n, n, 3, padding=1), nn.PReLU(n), nn.Conv1d(n, n, 3, padding=2, dilation=2),
                                 nn.PReLU(), nn.Conv1d(n, sources * n, 1))
        self.dec = nn.ConvTranspose1d(n, 1, 16, stride=8, bias=False)

    def forward(self, wav):
        w = F.prelu(self.enc(wav), torch.full((1,), 0.25))
        b, n, t = w.shape
        masks = torch.sigmoid(self.net(w)).view(b, self.sources, n, t)
        est = (masks * w.unsqueeze(1)).reshape(b * self.sources, n, t)
        return self.dec(est).view(b, self.sources, -1)


class UnfoldPatches(nn.Module):
    """Patch embedding twice: F.unfold (im2col) and Tensor.unfold along H then W; both give
    (B, L, C*k*k); plus F.fold back of the im2col columns."""
    def __init__(self, c=3, k=4, d=8):
        super().__init__()
        self.k = k
        self.proj = nn.Linear(c * k * k, d)

    def forward(self, x):
        b, c = x.shape[:2]
        k = self.k
        cols = F.unfold(x, kernel_size=k, stride=k)                      # (B, C*k*k, L)
        p = x.unfold(2, k, k).unfold(3, k, k)                             # (B, C, H', W', k, k)
        hp, wp = p.shape[2], p.shape[3]
        p = p.permute(0, 2, 3, 1, 4, 5).reshape(b, hp * wp, c * k * k)    # (B, L, C*k*k)
        tokens = self.proj(cols.transpose(1, 2) + p)
        back = F.fold(cols, output_size=(hp * k, wp * k), kernel_size=k, stride=k)
        return tokens, back


class EinsumAttention(nn.Module):
    """Multi-head self-attention written with einsum (q k^T and the weighted sum, with '...'),
    after a learned positional embedding of at most 10 positions (longer inputs fail)."""
    def __init__(self, d=16, heads=4, max_len=10):
        super().__init__()
        self.h = heads
        self.pos = nn.Parameter(torch.randn(max_len, d))
        self.qkv = nn.Linear(d, 3 * d)
        self.o = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        x = x + self.pos[:t]
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (z.reshape(b, t, self.h, d // self.h) for z in (q, k, v))
        s = torch.einsum("b q h d, b k h d -> b h q k", q, k) / math.sqrt(d // self.h)
        a = torch.einsum("...qk,...kd->...qd", s.softmax(dim=-1), v.transpose(1, 2))
        return self.o(a.transpose(1, 2).reshape(b, t, d)), torch.einsum("bii->b", s[:, 0])


class CumsumGather(nn.Module):
    """Indexing with cumsum and gather: features gathered at the argmax channel, positions
    from a cumsum, a cumulative mean over time relative to the first step (gather at index 0)
    plus the last step (x[:, -1]: an empty sequence fails)."""
    def __init__(self, c=6):
        super().__init__()
        self.score = nn.Linear(c, c)

    def forward(self, x):                                         # (B, T, C)
        s = self.score(x)
        idx = s.argmax(dim=-1, keepdim=True)                      # (B, T, 1)
        picked = torch.gather(x, 2, idx)                          # (B, T, 1)
        pos = torch.cumsum(torch.ones_like(idx), dim=1) - 1       # (B, T, 1): 0..T-1
        first = torch.gather(x, 1, torch.zeros_like(pos).expand(-1, -1, x.size(2)))
        cmean = torch.cumsum(x, dim=1) / (pos + 1)
        return picked.squeeze(-1), cmean - first + x[:, -1].unsqueeze(1)


class MaxOverTime(nn.Module):
    """Kim 2014 CNN text classifier: embedding, convs of widths 3 and 5, max over time
    (torch.max(dim) values and indices, and a full max), linear."""
    def __init__(self, vocab=40, emb=10, ch=8, classes=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.c3 = nn.Conv1d(emb, ch, 3)
        self.c5 = nn.Conv1d(emb, ch, 5)
        self.fc = nn.Linear(2 * ch, classes)

    def forward(self, tokens):
        e = self.emb(tokens).transpose(1, 2)
        m3, i3 = torch.max(F.relu(self.c3(e)), dim=2)
        m5 = F.relu(self.c5(e)).max(dim=-1).values
        peak = torch.max(e)
        return self.fc(torch.cat([m3, m5], dim=1)) + peak, i3


def rng_for(name):
    return random.Random(zlib.crc32(name.encode()))


# each model under the default policy and with sizes 0/1 kept symbolic and no duck sizing
# (the guards must then reject the small sizes where the CPU fails by themselves)
POLICIES = {"default": {}, "no_duck_no_01": {"duck_sizing": False, "specialize_01": False}}


@pytest.fixture(params=list(POLICIES))
def policy(request):
    return request.param


def run_model(name, model, make, sizes, points, example, dynamic, policy):
    torch.manual_seed(0)
    model.eval()
    label = name if policy == "default" else "%s (%s)" % (name, policy)
    row, gs, doc = soundness(label, model, make, sizes, points, dynamic=dynamic, example=example,
                             trace_kw=POLICIES[policy], kind="issue 12 ops")
    assert row["points"] >= 20
    assert row["torch_ok"] > 0 and row["torch_ok"] < row["points"]  # some points fail on the CPU
    return row


def pts2(name, lo1, hi1, lo2, hi2, extra=()):
    r = rng_for(name)
    pts = list(extra)
    while len(pts) < N:
        pts.append((r.randint(lo1, hi1), r.randint(lo2, hi2)))
    return pts


def test_bilstm_tagger(policy):
    pts = pts2("bilstm", 0, 4, 0, 12, extra=[(1, 1), (0, 3), (2, 0)])
    run_model("bilstm_tagger", BiLSTMTagger(), lambda p: {"tokens": torch.randint(0, 50, p)},
              lambda p: {"tokens": list(p)}, pts, (2, 7), {"tokens": [0, 1]}, policy)


def test_gru_keyword_spotter(policy):
    pts = pts2("gru", 0, 3, 0, 20, extra=[(1, 2), (1, 3), (2, 1)])
    run_model("gru_keyword_spotter", GRUKeywordSpotter(), lambda p: {"feats": torch.randn(p[0], p[1], 20)},
              lambda p: {"feats": [p[0], p[1], 20]}, pts, (2, 11), {"feats": [0, 1]}, policy)


def test_espcn_pixel_shuffle(policy):
    pts = pts2("espcn", 0, 20, 0, 20, extra=[(1, 1), (0, 5)])
    run_model("espcn_super_resolution", ESPCN(), lambda p: {"x": torch.randn(1, 1, *p)},
              lambda p: {"x": [1, 1, *p]}, pts, (9, 13), {"x": [2, 3]}, policy)


def test_prelu_separator(policy):
    pts = pts2("prelu", 1, 3, 0, 120, extra=[(1, 15), (1, 16), (2, 24), (1, 8)])
    run_model("prelu_audio_separator", PReLUSeparator(), lambda p: {"wav": torch.randn(p[0], 1, p[1])},
              lambda p: {"wav": [p[0], 1, p[1]]}, pts, (2, 101), {"wav": [0, 2]}, policy)


def test_unfold_patches(policy):
    pts = pts2("unfold", 0, 20, 0, 20, extra=[(3, 4), (4, 4), (8, 13)])
    run_model("unfold_patches", UnfoldPatches(), lambda p: {"x": torch.randn(2, 3, *p)},
              lambda p: {"x": [2, 3, *p]}, pts, (12, 17), {"x": [2, 3]}, policy)


def test_einsum_attention(policy):
    pts = pts2("einsum", 0, 4, 0, 14, extra=[(1, 1), (2, 0), (2, 10), (2, 11)])
    run_model("einsum_attention", EinsumAttention(), lambda p: {"x": torch.randn(p[0], p[1], 16)},
              lambda p: {"x": [p[0], p[1], 16]}, pts, (2, 6), {"x": [0, 1]}, policy)


def test_cumsum_gather(policy):
    pts = pts2("cumsum", 0, 4, 0, 12, extra=[(1, 1), (2, 0)])
    run_model("cumsum_gather", CumsumGather(), lambda p: {"x": torch.randn(p[0], p[1], 6)},
              lambda p: {"x": [p[0], p[1], 6]}, pts, (3, 5), {"x": [0, 1]}, policy)


def test_max_over_time(policy):
    pts = pts2("maxpool", 0, 4, 0, 12, extra=[(1, 3), (1, 4), (1, 5), (2, 0)])
    run_model("max_over_time_classifier", MaxOverTime(), lambda p: {"tokens": torch.randint(0, 40, p)},
              lambda p: {"tokens": list(p)}, pts, (2, 9), {"tokens": [0, 1]}, policy)
