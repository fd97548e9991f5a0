"""ERFNet Cityscapes segmentation (Eromera/erfnet_pytorch eval/erfnet.py, 20 classes) as the
contrib recipe exports it.

Operator structure (own code, same module names so BatchNorm initializers keep 'bn' in their
names): DownsamplerBlock = Concat(conv3x3 s2, MaxPool 2x2) -> BatchNorm(eps 1e-3) -> ReLU;
non_bottleneck_1d = conv3x1 -> ReLU -> conv1x3 -> BN -> ReLU -> dilated conv3x1 -> ReLU ->
dilated conv1x3 -> BN -> (Dropout2d, no-op in eval) -> Add input -> ReLU; encoder 3->16->64
(5 blocks) ->128 (2 x dilations 2,4,8,16); decoder UpsamplerBlock (ConvTranspose2d 3x3 s2 +
BN + ReLU) 128->64, 2 blocks, 64->16, 2 blocks, ConvTranspose2d 2x2 s2 to 20 classes.
Export: opset 11, input 'actual_input_1' [N,3,512,1024] with dynamic batch, output 'output1'.
"""
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
INPUT_NAMES = ["actual_input_1"]
OUTPUT_NAMES = ["output1"]
DYNAMIC_AXES = {"actual_input_1": {0: "-1"}, "output1": {0: "-1"}}


class DownsamplerBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout - cin, 3, stride=2, padding=1)
        self.pool = nn.MaxPool2d(2, stride=2)
        self.bn = nn.BatchNorm2d(cout, eps=1e-3)

    def forward(self, x):
        return F.relu(self.bn(torch.cat([self.conv(x), self.pool(x)], 1)))


class NonBottleneck1d(nn.Module):
    def __init__(self, c, drop, d):
        super().__init__()
        self.conv3x1_1 = nn.Conv2d(c, c, (3, 1), padding=(1, 0))
        self.conv1x3_1 = nn.Conv2d(c, c, (1, 3), padding=(0, 1))
        self.bn1 = nn.BatchNorm2d(c, eps=1e-3)
        self.conv3x1_2 = nn.Conv2d(c, c, (3, 1), padding=(d, 0), dilation=(d, 1))
        self.conv1x3_2 = nn.Conv2d(c, c, (1, 3), padding=(0, d), dilation=(1, d))
        self.bn2 = nn.BatchNorm2d(c, eps=1e-3)
        self.dropout = nn.Dropout2d(drop)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1x3_1(F.relu(self.conv3x1_1(x)))))
        y = self.bn2(self.conv1x3_2(F.relu(self.conv3x1_2(y))))
        if self.dropout.p != 0:
            y = self.dropout(y)
        return F.relu(y + x)


class UpsamplerBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.ConvTranspose2d(cin, cout, 3, stride=2, padding=1, output_padding=1)
        self.bn = nn.BatchNorm2d(cout, eps=1e-3)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.initial_block = DownsamplerBlock(3, 16)
        layers = [DownsamplerBlock(16, 64)] + [NonBottleneck1d(64, 0.1, 1) for _ in range(5)]
        layers.append(DownsamplerBlock(64, 128))
        for _ in range(2):
            layers += [NonBottleneck1d(128, 0.1, d) for d in (2, 4, 8, 16)]
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        x = self.initial_block(x)
        for layer in self.layers:
            x = layer(x)
        return x


class Decoder(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.layers = nn.ModuleList([
            UpsamplerBlock(128, 64), NonBottleneck1d(64, 0, 1), NonBottleneck1d(64, 0, 1),
            UpsamplerBlock(64, 16), NonBottleneck1d(16, 0, 1), NonBottleneck1d(16, 0, 1)])
        self.output_conv = nn.ConvTranspose2d(16, num_classes, 2, stride=2)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.output_conv(x)


class ERFNetLike(nn.Module):
    def __init__(self, num_classes=20):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = Decoder(num_classes)

    def forward(self, x):
        return self.decoder(self.encoder(x))


def build(variant="upstream"):
    return ERFNetLike().eval()


def example_inputs():
    return (torch.randn(1, 3, 512, 1024),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=INPUT_NAMES,
                      dynamic_axes=DYNAMIC_AXES, output_names=OUTPUT_NAMES, opset_version=OPSET)
