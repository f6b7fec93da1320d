"""Models that need PyTorch 2.x or a recent torchvision (issue 31): each is exported with
symshape.export, traced, and checked against real CPU execution at sampled sizes (0 soundness
violations: every accepted size runs, with the output shapes symshape gives). The torchvision
models are built small (the same op pattern as the full-size model, a fraction of the width and
depth) so that the export and the CPU runs take seconds. They run under torch 1.13 too where it
has the module; what needs 2.x (scaled_dot_product_attention: 2.0, enable_gqa and nn.RMSNorm: 2.5)
is skipped there with the reason (pytest -rs prints it)."""
import random
import zlib

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from models_util import soundness
from symshape import ExportError

TORCH_MAJOR, TORCH_MINOR = (int(v) for v in torch.__version__.split(".")[:2])
NEEDS_2X = pytest.mark.skipif(TORCH_MAJOR < 2, reason="needs PyTorch 2.x (torch %s here)" % torch.__version__)
print("torch", torch.__version__)

N = 24


def rng_for(name):
    return random.Random(zlib.crc32(name.encode()))


def image_model(name, model, lo, hi, example, batch=(1, 3), dims=(0, 2, 3), channels=3, n=N, fixed_hw=False):
    """fixed_hw: the model asserts its image size (ViT, MaxViT): half the points vary the batch only."""
    torch.manual_seed(0)
    model = model.eval()
    rng = rng_for(name)
    pts = [(rng.randint(*batch), rng.randint(lo, hi), rng.randint(lo, hi)) for _ in range(n)]
    if fixed_hw:
        pts = pts[:n // 2] + [(rng.randint(1, 6), example[1], example[2]) for _ in range(n - n // 2)]
    pts.append(example)
    mk = lambda p: {"x": torch.randn(p[0], channels, p[1], p[2])}
    szs = lambda p: {"x": [p[0], channels, p[1], p[2]]}
    row, gs, doc = soundness(name, model, mk, szs, pts, dynamic={"x": list(dims)}, example=example, kind="recent torch")
    return row, gs, doc


def seq_model(name, model, make, sizes, points, example, dynamic):
    torch.manual_seed(0)
    row, gs, doc = soundness(name, model.eval(), make, sizes, points, dynamic=dynamic, example=example,
                             kind="recent torch")
    return row, gs, doc


# ---------------------------------------------------------------- torchvision, built small

def test_swin_t_small():
    """torchvision's swin_t pattern: F.pad of H and W up to multiples of the window, shifted windows,
    PatchMerging; its helpers are torch.fx.wrap'd (shifted_window_attention, _patch_merging_pad,
    _get_relative_position_bias), which the exporter traces into."""
    from torchvision.models.swin_transformer import SwinTransformer
    m = SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[1, 2], window_size=[7, 7],
                        stochastic_depth_prob=0.0, num_classes=10)
    image_model("swin_t_small", m, 16, 72, (2, 56, 60))


def test_swin_v2_t_small():
    """swin_v2_t (torchvision >= 0.14): SwinTransformerBlockV2 (cosine attention, log-spaced CPB MLP)
    and PatchMergingV2."""
    from torchvision.models.swin_transformer import PatchMergingV2, SwinTransformer, SwinTransformerBlockV2
    m = SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[1, 2], window_size=[8, 8],
                        stochastic_depth_prob=0.0, num_classes=10, block=SwinTransformerBlockV2,
                        downsample_layer=PatchMergingV2)
    image_model("swin_v2_t_small", m, 16, 72, (2, 64, 64))


def test_maxvit_small():
    """maxvit_t (torchvision >= 0.15): MBConv, block and grid attention over partitions of the
    feature map, which the model asserts are divisible by the partition size."""
    from torchvision.models.maxvit import MaxVit
    m = MaxVit(input_size=(64, 64), stem_channels=8, partition_size=4, block_channels=[16, 32], block_layers=[1, 1],
               head_dim=8, stochastic_depth_prob=0.0, num_classes=10)
    image_model("maxvit_small", m, 32, 96, (2, 64, 64), fixed_hw=True)


def test_vit_h14_shaped():
    """vit_h_14's pattern (patch 14, class token, positional embedding) at 2 layers, width 32."""
    from torchvision.models.vision_transformer import VisionTransformer
    m = VisionTransformer(image_size=56, patch_size=14, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
                          num_classes=10)
    image_model("vit_h14_shaped", m, 28, 84, (2, 56, 56), fixed_hw=True)


def test_convnext_small():
    """convnext_tiny's pattern (patchify stem, depthwise 7x7, LayerNorm2d over permuted channels,
    layer scale, downsampling) at two stages."""
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    m = ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, None, 1)], stochastic_depth_prob=0.0, num_classes=10)
    image_model("convnext_small", m, 8, 72, (2, 40, 48))


def test_efficientnet_v2_small():
    """efficientnet_v2_s's pattern (FusedMBConv, MBConv with squeeze-excitation) at two stages."""
    from torchvision.models.efficientnet import EfficientNet, FusedMBConvConfig, MBConvConfig
    m = EfficientNet([FusedMBConvConfig(1, 3, 1, 8, 8, 1), MBConvConfig(4, 3, 2, 8, 16, 1)], dropout=0.0,
                     last_channel=32, num_classes=10)
    image_model("efficientnet_v2_small", m, 4, 72, (2, 37, 45))


# ---------------------------------------------------------------- torch 2.x modules and functions

class SDPAttention(nn.Module):
    """Multi-head self-attention written the 2.x way: F.scaled_dot_product_attention on
    (B, heads, L, head_dim), heads split with view/transpose."""
    def __init__(self, d=32, heads=4, causal=False):
        super().__init__()
        self.qkv, self.out, self.h, self.causal = nn.Linear(d, 3 * d), nn.Linear(d, d), heads, causal

    def forward(self, x):
        b, l, d = x.shape
        q, k, v = self.qkv(x).view(b, l, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        return self.out(y.transpose(1, 2).reshape(b, l, d))


class GQADecoderBlock(nn.Module):
    """A decoder block with grouped-query attention (8 query heads over 2 key/value heads,
    enable_gqa, torch >= 2.5) and RMSNorm (torch >= 2.4), causal."""
    def __init__(self, d=32, hq=8, hkv=2):
        super().__init__()
        self.hq, self.hkv, self.hd = hq, hkv, d // hq
        self.norm1, self.norm2 = nn.RMSNorm(d), nn.RMSNorm(d)
        self.q, self.kv = nn.Linear(d, d), nn.Linear(d, 2 * hkv * self.hd)
        self.o, self.mlp = nn.Linear(d, d), nn.Sequential(nn.Linear(d, 4 * d), nn.SiLU(), nn.Linear(4 * d, d))

    def forward(self, x):
        b, l, _ = x.shape
        h = self.norm1(x)
        q = self.q(h).view(b, l, self.hq, self.hd).transpose(1, 2)
        k, v = self.kv(h).view(b, l, 2, self.hkv, self.hd).unbind(2)
        y = F.scaled_dot_product_attention(q, k.transpose(1, 2), v.transpose(1, 2), is_causal=True, enable_gqa=True)
        x = x + self.o(y.transpose(1, 2).reshape(b, l, -1))
        return x + self.mlp(self.norm2(x))


class EncoderWithPadMask(nn.Module):
    """nn.TransformerEncoder with a src_key_padding_mask built from the lengths, in eval mode (where
    the fast path turns the batch into a nested tensor)."""
    def __init__(self, nested=True):
        super().__init__()
        layer = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=nested)

    def forward(self, x):
        b, l, _ = x.shape
        mask = torch.arange(l).unsqueeze(0).expand(b, l) >= (l - 1)  # the last position is padding
        return self.enc(x, src_key_padding_mask=mask)


class Seq2Seq(nn.Module):
    """nn.Transformer with a causal tgt_mask and key padding masks, eval mode."""
    def __init__(self):
        super().__init__()
        self.t = nn.Transformer(16, 2, 1, 1, 32, dropout=0.0, batch_first=True)

    def forward(self, src, tgt):
        lt = tgt.shape[1]
        tgt_mask = nn.Transformer.generate_square_subsequent_mask(lt)
        pad = torch.zeros(src.shape[0], src.shape[1], dtype=torch.bool)
        return self.t(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=pad, memory_key_padding_mask=pad)


class MHAFastPath(nn.Module):
    """nn.MultiheadAttention, batch_first, need_weights=False, eval: 2.x's fused fast path."""
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x):
        return self.mha(x, x, x, need_weights=False)[0]


def seq_points(name, lo=1, hi=40, batch=(1, 4), n=N):
    rng = rng_for(name)
    return [(rng.randint(*batch), rng.randint(lo, hi)) for _ in range(n)]


def seq_case(name, model, d, example=(2, 9), **kw):
    pts = seq_points(name, **kw) + [example]
    return seq_model(name, model, lambda p: {"x": torch.randn(p[0], p[1], d)}, lambda p: {"x": [p[0], p[1], d]},
                     pts, example, {"x": [0, 1]})


@NEEDS_2X
def test_sdpa_attention():
    seq_case("sdpa_attention", SDPAttention(), 32)


@NEEDS_2X
def test_sdpa_causal():
    seq_case("sdpa_causal", SDPAttention(causal=True), 32)


@pytest.mark.skipif((TORCH_MAJOR, TORCH_MINOR) < (2, 5), reason="enable_gqa and nn.RMSNorm need torch >= 2.5")
def test_gqa_rmsnorm_decoder():
    seq_case("gqa_rmsnorm_decoder", GQADecoderBlock(), 32)


def test_transformer_encoder_padding_mask_eval():
    """2.1+: captured on the standard path (the fast path pads its nested result back to the input's
    size). Before 2.1 the fast path's sequence length is the longest unpadded row, a size that depends
    on the mask's values: export says so and what to change."""
    if (TORCH_MAJOR, TORCH_MINOR) < (2, 1):
        with pytest.raises(ExportError, match="enable_nested_tensor=False"):
            seq_case("transformer_encoder_padmask_eval", EncoderWithPadMask(), 16, lo=2)
        return
    seq_case("transformer_encoder_padmask_eval", EncoderWithPadMask(), 16, lo=2)


def test_transformer_encoder_padding_mask_eval_not_nested():
    seq_case("transformer_encoder_padmask_not_nested", EncoderWithPadMask(nested=False), 16, lo=2)


def test_mha_fast_path():
    seq_case("mha_fast_path", MHAFastPath(), 16)


@NEEDS_2X
def test_nn_transformer_masks_eval():
    rng = rng_for("nn_transformer_masks")
    pts = [(rng.randint(1, 4), rng.randint(1, 30), rng.randint(1, 30)) for _ in range(N)] + [(2, 9, 7)]
    seq_model("nn_transformer_masks_eval", Seq2Seq(),
              lambda p: {"src": torch.randn(p[0], p[1], 16), "tgt": torch.randn(p[0], p[2], 16)},
              lambda p: {"src": [p[0], p[1], 16], "tgt": [p[0], p[2], 16]}, pts, (2, 9, 7),
              {"src": [0, 1], "tgt": [0, 1]})
