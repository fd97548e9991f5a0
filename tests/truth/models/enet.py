"""ENet Cityscapes (19 classes) as ACL_PyTorch/contrib/cv/segmentation/ENet exports it: the recipe's own
enet.py, which is Tramac/awesome-semantic-segmentation-pytorch core/models/enet.py with the pooling
indices removed (AvgPool2d shortcut in the downsampling bottlenecks, nearest Upsample instead of
MaxUnpool2d) and ReLU instead of PReLU.

Own code, same operators and widths as the recipe's file: InitialBlock (3x3 s2 conv | 2x2 MaxPool ->
Concat -> BN -> act), Bottlenecks (1x1, 3x3 dilated / 5x1+1x5 asymmetric / 2x2 s2, 1x1, Dropout2d,
Add, act), UpsamplingBottlenecks (1x1 conv + BN + upsampling | 1x1, ConvTranspose 2x2 s2, 1x1, Add,
act), final ConvTranspose2d(16, 19, 2, 2). bottleneck3_5 is built and never called, as upstream.

Variants: `recipe` (default: the only one that exports) and `upstream` (MaxPool2d(return_indices=True),
MaxUnpool2d, PReLU) - does NOT export: torch has no ONNX symbolic for aten::max_unpool2d.
Export: opset 11, input 'image' / output 'class', dynamic batch, 1x3x480x480.
"""
import torch
from torch import nn

OPSET = 11
NCLASS = 19


def _act(upstream):
    return nn.PReLU() if upstream else nn.ReLU()


class InitialBlock(nn.Module):
    def __init__(self, out_channels, upstream):
        super().__init__()
        self.conv = nn.Conv2d(3, out_channels, 3, 2, 1, bias=False)
        self.maxpool = nn.MaxPool2d(2, 2)
        self.bn = nn.BatchNorm2d(out_channels + 3)
        self.act = _act(upstream)

    def forward(self, x):
        return self.act(self.bn(torch.cat([self.conv(x), self.maxpool(x)], dim=1)))


class Bottleneck(nn.Module):
    def __init__(self, cin, cmid, cout, dilation=1, asymmetric=False, downsampling=False, upstream=False):
        super().__init__()
        self.downsampling = downsampling
        self.upstream = upstream
        if downsampling:
            if upstream:
                self.maxpool = nn.MaxPool2d(2, 2, return_indices=True)
            else:
                self.avgpool = nn.AvgPool2d((2, 2), stride=(2, 2))
            self.conv_down = nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.conv1 = nn.Sequential(nn.Conv2d(cin, cmid, 1, bias=False), nn.BatchNorm2d(cmid), _act(upstream))
        if downsampling:
            conv2 = [nn.Conv2d(cmid, cmid, 2, stride=2, bias=False)]
        elif asymmetric:
            conv2 = [nn.Conv2d(cmid, cmid, (5, 1), padding=(2, 0), bias=False),
                     nn.Conv2d(cmid, cmid, (1, 5), padding=(0, 2), bias=False)]
        else:
            conv2 = [nn.Conv2d(cmid, cmid, 3, dilation=dilation, padding=dilation, bias=False)]
        self.conv2 = nn.Sequential(*conv2, nn.BatchNorm2d(cmid), _act(upstream))
        self.conv3 = nn.Sequential(nn.Conv2d(cmid, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.Dropout2d(0.1))
        self.act = _act(upstream)

    def forward(self, x):
        identity = x
        indices = None
        if self.downsampling:
            if self.upstream:
                identity, indices = self.maxpool(identity)
            else:
                identity = self.avgpool(identity)
            identity = self.conv_down(identity)
        out = self.act(self.conv3(self.conv2(self.conv1(x))) + identity)
        if self.downsampling and self.upstream:
            return out, indices
        return out


class UpsamplingBottleneck(nn.Module):
    def __init__(self, cin, cmid, cout, upstream=False):
        super().__init__()
        self.upstream = upstream
        self.conv = nn.Sequential(nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout))
        self.upsampling = nn.MaxUnpool2d(2) if upstream else nn.Upsample(scale_factor=2, mode="nearest")
        self.block = nn.Sequential(
            nn.Conv2d(cin, cmid, 1, bias=False), nn.BatchNorm2d(cmid), _act(upstream),
            nn.ConvTranspose2d(cmid, cmid, 2, 2, bias=False), nn.BatchNorm2d(cmid), _act(upstream),
            nn.Conv2d(cmid, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.Dropout2d(0.1))
        self.act = _act(upstream)

    def forward(self, x, indices=None):
        up = self.conv(x)
        up = self.upsampling(up, indices) if self.upstream else self.upsampling(up)
        return self.act(up + self.block(x))


class ENet(nn.Module):
    def __init__(self, nclass=NCLASS, upstream=False):
        super().__init__()
        u = upstream
        self.upstream = u
        self.initial = InitialBlock(13, u)
        self.bottleneck1_0 = Bottleneck(16, 16, 64, downsampling=True, upstream=u)
        for i in range(1, 5):
            setattr(self, "bottleneck1_%d" % i, Bottleneck(64, 16, 64, upstream=u))
        self.bottleneck2_0 = Bottleneck(64, 32, 128, downsampling=True, upstream=u)
        spec = [(1, False), (2, False), (1, True), (4, False), (1, False), (8, False), (1, True), (16, False)]
        for stage in (2, 3):
            for i, (d, asym) in enumerate(spec, start=1):
                setattr(self, "bottleneck%d_%d" % (stage, i),
                        Bottleneck(128, 32, 128, dilation=d, asymmetric=asym, upstream=u))
        self.bottleneck4_0 = UpsamplingBottleneck(128, 16, 64, upstream=u)
        self.bottleneck4_1 = Bottleneck(64, 16, 64, upstream=u)
        self.bottleneck4_2 = Bottleneck(64, 16, 64, upstream=u)
        self.bottleneck5_0 = UpsamplingBottleneck(64, 4, 16, upstream=u)
        self.bottleneck5_1 = Bottleneck(16, 4, 16, upstream=u)
        self.fullconv = nn.ConvTranspose2d(16, nclass, 2, 2, bias=False)

    def forward(self, x):
        x = self.initial(x)
        if self.upstream:
            x, idx1 = self.bottleneck1_0(x)
        else:
            x, idx1 = self.bottleneck1_0(x), None
        for i in range(1, 5):
            x = getattr(self, "bottleneck1_%d" % i)(x)
        if self.upstream:
            x, idx2 = self.bottleneck2_0(x)
        else:
            x, idx2 = self.bottleneck2_0(x), None
        for i in range(1, 9):
            x = getattr(self, "bottleneck2_%d" % i)(x)
        for i in (1, 2, 3, 4, 6, 7, 8):          # bottleneck3_5 is never called (as upstream)
            x = getattr(self, "bottleneck3_%d" % i)(x)
        x = self.bottleneck4_0(x, idx2)
        x = self.bottleneck4_2(self.bottleneck4_1(x))
        x = self.bottleneck5_0(x, idx1)
        x = self.bottleneck5_1(x)
        return tuple([self.fullconv(x)])


def build(variant="recipe"):
    return ENet(upstream=(variant == "upstream")).eval()


def example_inputs():
    return (torch.randn(1, 3, 480, 480),)


def export(path, variant="recipe"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["image"], output_names=["class"],
                      dynamic_axes={"image": {0: "-1"}, "class": {0: "-1"}}, opset_version=OPSET)
