"""U-Net (milesial/Pytorch-UNet, bilinear=False, n_channels 3, n_classes 1) as the contrib
segmentation recipe exports it (Carvana, 572x572 input).

Operator structure (own code): DoubleConv = (Conv3x3 pad 1 -> BatchNorm -> ReLU) x 2; four
Down = MaxPool2d(2) + DoubleConv (64-128-256-512-1024); four Up = ConvTranspose2d k2 s2 (halves
channels) -> F.pad of the upsampled map by the size difference to the skip tensor, computed
from x.size() at run time (a Shape/Gather/Sub subgraph feeding Pad) -> Concat [skip, up] ->
DoubleConv; OutConv 1x1. At 572x572 two of the four pads are non-zero (71 vs 70, 143 vs 142).
Export: opset 11, input 'actual_input_1' [N,3,572,572] with dynamic batch, output 'output1'.
"""
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
INPUT_NAMES = ["actual_input_1"]
OUTPUT_NAMES = ["output1"]
DYNAMIC_AXES = {"actual_input_1": {0: "-1"}, "output1": {0: "-1"}}


def double_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(True))


class Up(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.up = nn.ConvTranspose2d(cin, cin // 2, 2, stride=2)
        self.conv = double_conv(cin, cout)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        dy = x2.size()[2] - x1.size()[2]
        dx = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [dx // 2, dx - dx // 2, dy // 2, dy - dy // 2])
        return self.conv(torch.cat([x2, x1], dim=1))


class UNetLike(nn.Module):
    def __init__(self, n_channels=3, n_classes=1, w=64):
        super().__init__()
        self.inc = double_conv(n_channels, w)
        self.downs = nn.ModuleList([nn.Sequential(nn.MaxPool2d(2), double_conv(w * 2 ** i, w * 2 ** (i + 1)))
                                    for i in range(4)])
        self.ups = nn.ModuleList([Up(w * 2 ** (i + 1), w * 2 ** i) for i in reversed(range(4))])
        self.outc = nn.Conv2d(w, n_classes, 1)

    def forward(self, x):
        skips = [self.inc(x)]
        for d in self.downs:
            skips.append(d(skips[-1]))
        x = skips.pop()
        for up in self.ups:
            x = up(x, skips.pop())
        return self.outc(x)


def build(variant="upstream"):
    return UNetLike().eval()


def example_inputs():
    return (torch.randn(1, 3, 572, 572),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=INPUT_NAMES,
                      dynamic_axes=DYNAMIC_AXES, output_names=OUTPUT_NAMES, opset_version=OPSET)
