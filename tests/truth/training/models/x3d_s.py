"""Compact stand-in for X3D-S from facebookresearch/SlowFast, the upstream of
ModelZoo-PyTorch contrib/cv/video/X3D.

Written from the X3D paper and the upstream operator inventory, not copied. Kept in the
upstream (CUDA) form, in particular the two grouped 3D convolutions the Ascend recipe
turned into dense ones:
  * stem: 1x3x3 spatial conv, then a 5x1x1 temporal conv with groups == channels
    (depthwise), BatchNorm3d, ReLU
  * X3D bottleneck: 1x1x1 conv/BN/ReLU, 3x3x3 channelwise conv (groups == channels)/BN,
    squeeze-excitation every other block (avg-pool, 1x1x1 conv, ReLU, 1x1x1 conv, sigmoid,
    multiply), swish (x * sigmoid(x)), 1x1x1 conv/BN, projection shortcut, add, ReLU
  * head: 1x1x1 conv/BN/ReLU, AvgPool3d, 1x1x1 conv without bias, ReLU, permute to
    channels-last, dropout, linear, softmax (eval), mean over T,H,W, view
Two stages of two blocks, small widths; the operator set matters, not the size.
"""
import torch
from torch import nn


class Swish(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)


class SqueezeExcite(nn.Module):
    def __init__(self, c, r):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.fc1 = nn.Conv3d(c, r, 1)
        self.act = nn.ReLU()
        self.fc2 = nn.Conv3d(r, c, 1)
        self.gate = nn.Sigmoid()

    def forward(self, x):
        return x * self.gate(self.fc2(self.act(self.fc1(self.pool(x)))))


class X3DBlock(nn.Module):
    def __init__(self, cin, inner, cout, stride, use_se):
        super().__init__()
        self.a = nn.Conv3d(cin, inner, 1, bias=False)
        self.a_bn = nn.BatchNorm3d(inner)
        self.a_relu = nn.ReLU(inplace=True)
        self.b = nn.Conv3d(inner, inner, (3, 3, 3), (1, stride, stride), (1, 1, 1),
                           groups=inner, bias=False)
        self.b_bn = nn.BatchNorm3d(inner)
        self.se = SqueezeExcite(inner, 8) if use_se else nn.Identity()
        self.b_act = Swish()
        self.c = nn.Conv3d(inner, cout, 1, bias=False)
        self.c_bn = nn.BatchNorm3d(cout)
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv3d(cin, cout, 1, (1, stride, stride), bias=False),
                                       nn.BatchNorm3d(cout))
        else:
            self.short = nn.Identity()
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.a_relu(self.a_bn(self.a(x)))
        y = self.b_act(self.se(self.b_bn(self.b(y))))
        y = self.c_bn(self.c(y))
        return self.relu(self.short(x) + y)


class X3DStandIn(nn.Module):
    def __init__(self, frames=4, size=32, width=12, classes=10):
        super().__init__()
        self.conv_xy = nn.Conv3d(3, width, (1, 3, 3), (1, 2, 2), (0, 1, 1), bias=False)
        self.conv_t = nn.Conv3d(width, width, (5, 1, 1), 1, (2, 0, 0), groups=width, bias=False)
        self.stem_bn = nn.BatchNorm3d(width)
        self.stem_relu = nn.ReLU(inplace=True)
        blocks, cin = [], width
        for cout in (24, 48):
            inner = int(cout * 2.25)
            blocks.append(X3DBlock(cin, inner, cout, 2, use_se=True))
            blocks.append(X3DBlock(cout, inner, cout, 1, use_se=False))
            cin = cout
        self.stages = nn.Sequential(*blocks)
        self.conv_5 = nn.Conv3d(cin, 96, 1, bias=False)
        self.conv_5_bn = nn.BatchNorm3d(96)
        self.conv_5_relu = nn.ReLU(inplace=True)
        self.pool = nn.AvgPool3d((frames, size // 8, size // 8), stride=1)
        self.lin_5 = nn.Conv3d(96, 128, 1, bias=False)
        self.lin_5_relu = nn.ReLU(inplace=True)
        self.dropout = nn.Dropout(0.5)
        self.proj = nn.Linear(128, classes)
        self.act = nn.Softmax(dim=4)

    def forward(self, x):
        x = self.stem_relu(self.stem_bn(self.conv_t(self.conv_xy(x))))
        x = self.stages(x)
        x = self.conv_5_relu(self.conv_5_bn(self.conv_5(x)))
        x = self.lin_5_relu(self.lin_5(self.pool(x)))
        x = x.permute((0, 2, 3, 4, 1))
        x = self.proj(self.dropout(x))
        if not self.training:
            x = self.act(x).mean([1, 2, 3])
        return x.view(x.shape[0], -1)


def build():
    return X3DStandIn()


def example_inputs():
    return (torch.randn(2, 3, 4, 32, 32),)
