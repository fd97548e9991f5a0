"""Compact stand-in for the plain U-Net (archs.UNet) of 4uiiurz1/pytorch-nested-unet, the
upstream of ModelZoo-PyTorch contrib/cv/semantic_segmentation/UNet_for_PyTorch.

Written from the U-Net description and the upstream operator inventory, not copied:
double 3x3 conv + BatchNorm + ReLU blocks, 2x2 max pooling on the way down, bilinear x2
upsampling with align_corners=True (nn.Upsample with scale_factor) on the way up,
skip connections by channel concatenation, 1x1 output conv (one logit channel).
Five levels as upstream, with a quarter of the widths.
"""
import torch
from torch import nn


class DoubleConv(nn.Module):
    def __init__(self, cin, cmid, cout):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(cin, cmid, 3, padding=1), nn.BatchNorm2d(cmid), nn.ReLU(inplace=True),
            nn.Conv2d(cmid, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    def forward(self, x):
        return self.body(x)


class UNetStandIn(nn.Module):
    def __init__(self, classes=1, chans=3, widths=(8, 16, 32, 64, 128)):
        super().__init__()
        self.pool = nn.MaxPool2d(2, 2)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.down = nn.ModuleList()
        cin = chans
        for w in widths:
            self.down.append(DoubleConv(cin, w, w))
            cin = w
        self.upconv = nn.ModuleList()
        for i in range(len(widths) - 1, 0, -1):
            self.upconv.append(DoubleConv(widths[i - 1] + widths[i], widths[i - 1], widths[i - 1]))
        self.final = nn.Conv2d(widths[0], classes, 1)

    def forward(self, x):
        skips = []
        for i, block in enumerate(self.down):
            x = block(x if i == 0 else self.pool(x))
            skips.append(x)
        x = skips[-1]
        for j, block in enumerate(self.upconv):
            x = block(torch.cat([skips[-2 - j], self.up(x)], 1))
        return self.final(x)


def build():
    return UNetStandIn()


def example_inputs():
    return (torch.randn(2, 3, 96, 96),)
