"""Compact stand-in for EfficientNet-B0 as implemented by lukemelas/EfficientNet-PyTorch (the
TensorFlow-compatible port), the upstream of ModelZoo-PyTorch
built-in/cv/classification/EfficientNet_for_PyTorch.

Written from the EfficientNet paper and the upstream operator inventory, not copied. Kept in
the upstream form the Ascend recipe changed: every convolution with a kernel larger than 1 is
preceded by an explicit TensorFlow-"SAME" zero padding (nn.ZeroPad2d, asymmetric for stride 2)
and runs with padding 0. Also kept: BatchNorm, swish (x * sigmoid(x); upstream trains with a
memory-efficient autograd Function computing the same forward), depthwise convs,
squeeze-excitation (adaptive avg pool, 1x1 convs, sigmoid gate), residual adds, head 1x1 conv,
adaptive avg pool, flatten, dropout, linear. Fewer blocks and narrower widths than B0.
"""
import math

import torch
from torch import nn
import torch.nn.functional as F


class Swish(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)


class SameConv(nn.Module):
    """conv with TF 'SAME' padding computed for a fixed input size, applied by ZeroPad2d"""

    def __init__(self, cin, cout, k, stride, size, groups=1, bias=False):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, stride, 0, groups=groups, bias=bias)
        out = math.ceil(size / stride)
        total = max((out - 1) * stride + k - size, 0)
        self.pad = nn.ZeroPad2d((total // 2, total - total // 2, total // 2, total - total // 2)) if total > 0 else nn.Identity()
        self.out_size = out

    def forward(self, x):
        return self.conv(self.pad(x))


class MBConv(nn.Module):
    def __init__(self, cin, cout, expand, k, stride, size):
        super().__init__()
        mid = cin * expand
        self.expand = expand != 1
        if self.expand:
            self.expand_conv = SameConv(cin, mid, 1, 1, size)
            self.bn0 = nn.BatchNorm2d(mid, momentum=0.01, eps=1e-3)
        else:
            self.expand_conv, self.bn0 = nn.Identity(), nn.Identity()
        self.dw = SameConv(mid, mid, k, stride, size, groups=mid)
        self.bn1 = nn.BatchNorm2d(mid, momentum=0.01, eps=1e-3)
        sq = max(1, cin // 4)
        self.se_reduce = nn.Conv2d(mid, sq, 1)
        self.se_expand = nn.Conv2d(sq, mid, 1)
        self.project = SameConv(mid, cout, 1, 1, self.dw.out_size)
        self.bn2 = nn.BatchNorm2d(cout, momentum=0.01, eps=1e-3)
        self.swish = Swish()
        self.skip = stride == 1 and cin == cout
        self.out_size = self.dw.out_size

    def forward(self, inputs):
        x = inputs
        if self.expand:
            x = self.swish(self.bn0(self.expand_conv(x)))
        x = self.swish(self.bn1(self.dw(x)))
        s = F.adaptive_avg_pool2d(x, 1)
        s = self.se_expand(self.swish(self.se_reduce(s)))
        x = torch.sigmoid(s) * x
        x = self.bn2(self.project(x))
        if self.skip:
            x = x + inputs            # drop_connect is the identity in eval
        return x


class EfficientNetStandIn(nn.Module):
    def __init__(self, size=64, classes=10):
        super().__init__()
        self.stem = SameConv(3, 16, 3, 2, size)
        self.bn0 = nn.BatchNorm2d(16, momentum=0.01, eps=1e-3)
        size = self.stem.out_size
        cfg = [(16, 8, 1, 3, 1), (8, 12, 6, 3, 2), (12, 12, 6, 3, 1), (12, 20, 6, 5, 2), (20, 20, 6, 5, 1)]
        blocks = []
        for cin, cout, e, k, s in cfg:
            blocks.append(MBConv(cin, cout, e, k, s, size))
            size = blocks[-1].out_size
        self.blocks = nn.Sequential(*blocks)
        self.head = SameConv(20, 64, 1, 1, size)
        self.bn1 = nn.BatchNorm2d(64, momentum=0.01, eps=1e-3)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.dropout = nn.Dropout(0.2)
        self.fc = nn.Linear(64, classes)
        self.swish = Swish()

    def forward(self, x):
        x = self.swish(self.bn0(self.stem(x)))
        x = self.blocks(x)
        x = self.swish(self.bn1(self.head(x)))
        x = torch.flatten(self.pool(x), start_dim=1)
        return self.fc(self.dropout(x))


def build():
    return EfficientNetStandIn()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)
