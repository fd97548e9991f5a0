"""EDSR x2 baseline (sanghyun-son/EDSR-PyTorch, src/model/edsr.py + common.py) as the contrib
super-resolution recipe exports it (n_resblocks 16, n_feats 64, res_scale 1, rgb_range 255).

Operator structure (own code): sub_mean (1x1 Conv with fixed weights) -> head 3x3 conv ->
16 x ResBlock (conv3x3, ReLU, conv3x3, .mul(res_scale), Add) -> conv3x3 -> Add (global skip)
-> Upsampler (conv3x3 to 4*n_feats + PixelShuffle(2)) -> conv3x3 to 3 channels -> add_mean
(1x1 Conv). At opset 9 torch writes PixelShuffle as Reshape -> Transpose -> Reshape.
Export: opset 9, static input (torch default name 'input.1') [1,3,1020,1020]; the builder's
example input is smaller (64x64) - only the Reshape constants differ.
"""
import torch
from torch import nn

OPSET = 9
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
    def __init__(self, n_resblocks=16, n_feats=64, res_scale=1.0, scale=2):
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
    return (torch.randn(1, 3, 64, 64),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, opset_version=OPSET, verbose=False)
