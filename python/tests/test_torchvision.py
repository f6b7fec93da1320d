"""torchvision models: export, trace, and compare the guards with real CPU execution at >= 50
sampled input sizes each (25 under torch 1.13: the suite runs the same models at 50 sizes under
2.x; the 1.13 run checks the exporter and 1.13's kernels). Soundness: no point the guards accept
where torch fails or where the output shapes differ. Acceptance (accepted / points torch can run) is reported."""
import random
import zlib

import pytest
import torch
import torchvision
from torchvision import models as M

from models_util import soundness, spatial_points, write_table

N = 50 if int(torch.__version__.split(".")[0]) >= 2 else 25


def image_case(name, build, lo=1, hi=56, example=(37, 45), positional=False, extra=(), kind="classification"):
    def run():
        torch.manual_seed(0)
        model = build().eval()
        rng = random.Random(zlib.crc32(name.encode()))
        pts = spatial_points(rng, N, lo, hi, extra)
        if positional:
            class Pos(torch.nn.Module):  # a model whose forward names its input differently
                def __init__(self, m):
                    super().__init__()
                    self.m = m

                def forward(self, x):
                    return self.m(x)
            model = Pos(model).eval()
        mk = lambda hw: {"x": torch.randn(1, 3, hw[0], hw[1])}
        szs = lambda hw: {"x": [1, 3, hw[0], hw[1]]}
        row, gs, doc = soundness(name, model, mk, szs, pts, dynamic={"x": [2, 3]}, example=example,
                                 kind=kind)
        return row
    return run


def video_case(name, build, example=(3, 13, 17)):
    def run():
        torch.manual_seed(0)
        model = build().eval()
        rng = random.Random(zlib.crc32(name.encode()))
        pts = [(rng.randint(1, 4), rng.randint(1, 24), rng.randint(1, 24)) for _ in range(N)]
        mk = lambda p: {"x": torch.randn(1, 3, *p)}
        szs = lambda p: {"x": [1, 3, *p]}
        row, _, _ = soundness(name, model, mk, szs, pts, dynamic={"x": [2, 3, 4]}, example=example, kind="video")
        return row
    return run


CASES = {
    "alexnet": image_case("alexnet", M.alexnet, lo=40, hi=120, example=(67, 75)),
    "densenet121": image_case("densenet121", M.densenet121, lo=20, hi=44),
    "mobilenet_v3_small": image_case("mobilenet_v3_small", M.mobilenet_v3_small),
    "efficientnet_b0": image_case("efficientnet_b0", M.efficientnet_b0, hi=64),
    "regnet_y_400mf": image_case("regnet_y_400mf", M.regnet_y_400mf),
    "regnet_x_400mf": image_case("regnet_x_400mf", M.regnet_x_400mf, example=(29, 41)),
    "mnasnet0_5": image_case("mnasnet0_5", M.mnasnet0_5),
    "squeezenet1_1": image_case("squeezenet1_1", M.squeezenet1_1),
    "shufflenet_v2_x0_5": image_case("shufflenet_v2_x0_5", M.shufflenet_v2_x0_5),
    "deeplabv3_mobilenet_v3_large": image_case(
        "deeplabv3_mobilenet_v3_large", lambda: M.segmentation.deeplabv3_mobilenet_v3_large(weights_backbone=None),
        hi=48, kind="segmentation"),
    "lraspp_mobilenet_v3_large": image_case(
        "lraspp_mobilenet_v3_large", lambda: M.segmentation.lraspp_mobilenet_v3_large(weights_backbone=None),
        hi=48, positional=True, kind="segmentation"),
    "resnet18_fpn_backbone": image_case(
        "resnet18_fpn_backbone",
        lambda: torchvision.models.detection.backbone_utils.resnet_fpn_backbone(backbone_name="resnet18",
                                                                                weights=None), hi=64,
        kind="detection backbone"),
    "mc3_18": video_case("mc3_18", M.video.mc3_18),
}


@pytest.mark.parametrize("name", list(CASES))
def test_torchvision_model(name):
    CASES[name]()


