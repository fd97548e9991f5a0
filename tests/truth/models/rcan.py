"""RCAN x2 (yulunzhang/RCAN, RCAN_TestCode/code/model/rcan.py + common.py) as the contrib
super-resolution recipe exports it (scale 2, n_feats 64, reduction 16, rgb_range 255, res_scale 1).

Own code, same operators: sub_mean (1x1 Conv, fixed weights) -> head conv3x3 -> residual groups
(RCAB x n: conv3x3, ReLU, conv3x3, channel attention [AdaptiveAvgPool2d(1) -> 1x1 conv 64->4 -> ReLU
-> 1x1 conv 4->64 -> Sigmoid -> Mul], Add; conv3x3; group Add) -> conv3x3 -> global Add ->
Upsampler (conv3x3 to 4*n_feats + PixelShuffle(2)) -> conv3x3 to 3 -> add_mean (1x1 Conv).
Narrowed from 10 groups of 20 blocks to 2 groups of 3 (op types and attributes unchanged).
Export: opset 13 (PixelShuffle -> DepthToSpace), input 'image' / output 'HR_image', dynamic batch,
1x3x256x256.
"""
import torch
from torch import nn

OPSET = 13
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
    return nn.Conv2d(cin, cout, 3, padding=1, bias=True)


class CALayer(nn.Module):
    def __init__(self, c, reduction=16):
        super().__init__()
        self.avg_pool = nn.AdaptiveAvgPool2d(1)
        self.conv_du = nn.Sequential(nn.Conv2d(c, c // reduction, 1, padding=0, bias=True), nn.ReLU(inplace=True),
                                     nn.Conv2d(c // reduction, c, 1, padding=0, bias=True), nn.Sigmoid())

    def forward(self, x):
        return x * self.conv_du(self.avg_pool(x))


class RCAB(nn.Module):
    def __init__(self, c, reduction):
        super().__init__()
        self.body = nn.Sequential(conv3(c, c), nn.ReLU(True), conv3(c, c), CALayer(c, reduction))

    def forward(self, x):
        res = self.body(x)
        res += x
        return res


class ResidualGroup(nn.Module):
    def __init__(self, c, reduction, n_resblocks):
        super().__init__()
        self.body = nn.Sequential(*[RCAB(c, reduction) for _ in range(n_resblocks)], conv3(c, c))

    def forward(self, x):
        res = self.body(x)
        res += x
        return res


class RCAN(nn.Module):
    def __init__(self, n_resgroups=2, n_resblocks=3, n_feats=64, reduction=16, scale=2):
        super().__init__()
        self.sub_mean = MeanShift(-1)
        self.head = nn.Sequential(conv3(3, n_feats))
        self.body = nn.Sequential(*[ResidualGroup(n_feats, reduction, n_resblocks) for _ in range(n_resgroups)],
                                  conv3(n_feats, n_feats))
        self.tail = nn.Sequential(nn.Sequential(conv3(n_feats, 4 * n_feats), nn.PixelShuffle(scale)),
                                  conv3(n_feats, 3))
        self.add_mean = MeanShift(1)

    def forward(self, x):
        x = self.head(self.sub_mean(x))
        res = self.body(x)
        res += x
        return self.add_mean(self.tail(res))


def build(variant="upstream"):
    return RCAN().eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 256),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["image"], output_names=["HR_image"],
                      dynamic_axes={"image": {0: "-1"}, "HR_image": {0: "-1"}}, opset_version=OPSET, verbose=False)
