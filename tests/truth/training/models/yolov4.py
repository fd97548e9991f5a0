"""Compact stand-in for YOLOv4 as built by WongKinYiu/PyTorch_YOLOv4 (Darknet class driven by
cfg/yolov4.cfg), the upstream of ModelZoo-PyTorch built-in/cv/detection/YOLOV4_ID0396_for_PyTorch.

Written from the YOLOv4 paper and the upstream operator inventory, not copied. Upstream's
Mish comes from the mish_cuda CUDA extension (MishCuda); this stand-in expresses the same
function with nn.Mish (aten::mish), the closest ATen form. Kept:
  * CSPDarknet backbone: conv + BatchNorm + Mish, stride-2 downsampling, CSP stages
    (two 1x1 branches, residual units with a linear shortcut add, concat, 1x1 transition)
  * neck: conv + BatchNorm + LeakyReLU(0.1), SPP (max pools 5/9/13, stride 1, concat),
    nearest x2 upsampling, concatenation (route), stride-2 PAN downsampling
  * three YOLO heads: 1x1 conv with bias, view + permute + contiguous; eval decoding with
    sigmoid, grid offset (x*2 - 0.5 + grid), (x*2)**2 * anchor size, stride scaling written
    into slices in place, view, and the final concatenation of the three scales
Tiny widths, 3 classes, 3 anchors per scale; the operator set matters.
"""
from typing import List

import torch
from torch import nn


def conv(cin, cout, k=1, s=1, act="mish"):
    layers = [nn.Conv2d(cin, cout, k, s, k // 2, bias=False), nn.BatchNorm2d(cout)]
    if act == "mish":
        layers.append(nn.Mish())
    elif act == "leaky":
        layers.append(nn.LeakyReLU(0.1, inplace=True))
    return nn.Sequential(*layers)


class ResUnit(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a = conv(c, c, 1)
        self.b = conv(c, c, 3)

    def forward(self, x):
        return x + self.b(self.a(x))       # darknet [shortcut] with linear activation


class CSPStage(nn.Module):
    def __init__(self, cin, cout, n):
        super().__init__()
        self.down = conv(cin, cout, 3, 2)
        half = cout // 2
        self.split_a = conv(cout, half, 1)
        self.split_b = conv(cout, half, 1)
        self.res = nn.Sequential(*[ResUnit(half) for _ in range(n)])
        self.post_b = conv(half, half, 1)
        self.trans = conv(2 * half, cout, 1)

    def forward(self, x):
        x = self.down(x)
        b = self.post_b(self.res(self.split_b(x)))
        return self.trans(torch.cat([b, self.split_a(x)], 1))   # [route] concatenation


class YoloHead(nn.Module):
    def __init__(self, cin, anchors, stride, classes):
        super().__init__()
        self.na, self.no, self.stride = len(anchors), classes + 5, float(stride)
        self.pred = nn.Conv2d(cin, self.na * self.no, 1)
        self.register_buffer("anchor_wh", torch.tensor(anchors, dtype=torch.float32).view(1, -1, 1, 1, 2) / stride)

    def forward(self, x):
        bs, _, ny, nx = x.shape
        p = self.pred(x).view(bs, self.na, self.no, ny, nx).permute(0, 1, 3, 4, 2).contiguous()
        yv, xv = torch.meshgrid([torch.arange(ny, device=x.device), torch.arange(nx, device=x.device)], indexing="ij")
        grid = torch.stack((xv, yv), 2).view(1, 1, ny, nx, 2).float()
        io = p.sigmoid()
        io[..., :2] = io[..., :2] * 2.0 - 0.5 + grid
        io[..., 2:4] = (io[..., 2:4] * 2) ** 2 * self.anchor_wh
        io[..., :4] *= self.stride
        return io.view(bs, -1, self.no)


class YOLOv4StandIn(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.stem = conv(3, 8, 3)
        self.s1 = CSPStage(8, 16, 1)     # /2
        self.s2 = CSPStage(16, 32, 1)    # /4
        self.s3 = CSPStage(32, 32, 1)    # /8  -> P3
        self.s4 = CSPStage(32, 64, 1)    # /16 -> P4
        self.s5 = CSPStage(64, 64, 1)    # /32 -> P5
        self.spp_in = conv(64, 32, 1, act="leaky")
        self.pools = nn.ModuleList([nn.MaxPool2d(k, 1, k // 2) for k in (5, 9, 13)])
        self.spp_out = conv(128, 32, 1, act="leaky")
        self.up = nn.Upsample(scale_factor=2)
        self.lat4 = conv(64, 32, 1, act="leaky")
        self.fuse4 = conv(64, 32, 3, act="leaky")
        self.top4 = conv(32, 16, 1, act="leaky")
        self.lat3 = conv(32, 16, 1, act="leaky")
        self.fuse3 = conv(32, 16, 3, act="leaky")
        self.down3 = conv(16, 32, 3, 2, act="leaky")
        self.pan4 = conv(64, 32, 3, act="leaky")
        self.down4 = conv(32, 32, 3, 2, act="leaky")
        self.pan5 = conv(64, 32, 3, act="leaky")
        anchors = [[(12, 16), (19, 36), (40, 28)], [(36, 75), (76, 55), (72, 146)],
                   [(142, 110), (192, 243), (459, 401)]]
        self.heads = nn.ModuleList([YoloHead(16, anchors[0], 8, classes),
                                    YoloHead(32, anchors[1], 16, classes),
                                    YoloHead(32, anchors[2], 32, classes)])

    def forward(self, x):
        x = self.s2(self.s1(self.stem(x)))
        p3 = self.s3(x)
        p4 = self.s4(p3)
        p5 = self.s5(p4)
        t = self.spp_in(p5)
        t = self.spp_out(torch.cat([pool(t) for pool in self.pools] + [t], 1))
        n4 = self.fuse4(torch.cat([self.lat4(p4), self.up(t)], 1))
        n3 = self.fuse3(torch.cat([self.lat3(p3), self.up(self.top4(n4))], 1))
        m4 = self.pan4(torch.cat([self.down3(n3), n4], 1))
        m5 = self.pan5(torch.cat([self.down4(m4), t], 1))
        outs: List[torch.Tensor] = []
        for head, feat in zip(self.heads, (n3, m4, m5)):
            outs.append(head(feat))
        return torch.cat(outs, 1)


def build():
    return YOLOv4StandIn()


def example_inputs():
    return (torch.randn(2, 3, 128, 128),)
