"""EDSR x2 full model (sanghyun-son/EDSR-PyTorch model.edsr.EDSR with n_resblocks 32,
n_feats 256, res_scale 0.1) as the built-in EDSR_Dynamic recipe exports it.

Same operator structure as edsr.py (own code): sub_mean 1x1 Conv -> head conv3x3 -> 32 x
ResBlock (conv, ReLU, conv, Mul by 0.1, Add) -> conv -> Add -> conv to 1024 + PixelShuffle(2)
-> conv to 3 -> add_mean 1x1 Conv. At opset 11 torch writes PixelShuffle as DepthToSpace.
The builder narrows n_feats to 64 and n_resblocks to 8 (same operators).
Export: opset 11, input 'image' [B,3,H,W] with dynamic B, H, W (traced at 1x3x256x256),
output 'out'.
"""
import torch
from torch import nn

OPSET = 11
INPUT_NAMES = ["image"]
OUTPUT_NAMES = ["out"]
DYNAMIC_AXES = {"image": {0: "B", 2: "H", 3: "W"}, "out": {0: "-1", 2: "-1", 3: "-1"}}
RGB_MEAN = (0.4488, 0.4371, 0.4040)
RGB_RANGE = 255


class MeanShift(nn.Conv2d):
    def __init__(self, sign):
        super().__init__(3, 3, 1)
        self.weight.data = torch.eye(3).view(3, 3, 1, 1)
        self.bias.data = sign * RGB_RANGE * torch.tensor(RGB_MEAN)
        for p in self.parameters():
            p.requires_grad = False


def conv3(cin, cout):
    return nn.Conv2d(cin, cout, 3, padding=1)


class ResBlock(nn.Module):
    def __init__(self, n, res_scale):
        super().__init__()
        self.body = nn.Sequential(conv3(n, n), nn.ReLU(True), conv3(n, n))
        self.res_scale = res_scale

    def forward(self, x):
        res = self.body(x).mul(self.res_scale)
        res += x
        return res


class EDSR(nn.Module):
    def __init__(self, n_resblocks=8, n_feats=64, res_scale=0.1, scale=2):
        super().__init__()
        self.sub_mean = MeanShift(-1)
        self.add_mean = MeanShift(1)
        self.head = nn.Sequential(conv3(3, n_feats))
        self.body = nn.Sequential(*[ResBlock(n_feats, res_scale) for _ in range(n_resblocks)],
                                  conv3(n_feats, n_feats))
        self.tail = nn.Sequential(conv3(n_feats, 4 * n_feats), nn.PixelShuffle(scale),
                                  conv3(n_feats, 3))

    def forward(self, x):
        x = self.head(self.sub_mean(x))
        res = self.body(x)
        res += x
        return self.add_mean(self.tail(res))


def build(variant="upstream"):
    return EDSR().eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 256),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, dynamic_axes=DYNAMIC_AXES,
                      verbose=False, opset_version=OPSET, input_names=INPUT_NAMES,
                      output_names=OUTPUT_NAMES)
