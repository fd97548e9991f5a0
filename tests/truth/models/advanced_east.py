"""AdvancedEAST text detector (BaoWentz/AdvancedEAST-PyTorch), as the contrib recipe exports it.

Operator structure rebuilt from the upstream model description (facts only, own code):
- VGG16 with BatchNorm in four stages (64,64,M,128,128,M | 256x3,M | 512x3,M | 512x3,M);
- three merging stages: nn.UpsamplingNearest2d(scale_factor=2) of the upper map, concat with the
  lateral map, BN, 1x1 conv, ReLU, BN, 3x3 conv, ReLU (128, 64, 32 channels);
- BN, 3x3 conv 32 + ReLU, 1x1 heads of 1, 2 and 4 channels concatenated to [N,7,H/4,W/4].
Export: opset 10, input 'input_1' [N,3,736,736] with dynamic batch, output 'output_1'.
"""
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 10
INPUT_NAMES = ["input_1"]
OUTPUT_NAMES = ["output_1"]
DYNAMIC_AXES = {"input_1": {0: "-1"}, "output_1": {0: "-1"}}


def _vgg(cfg, cin):
    layers = []
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2d(2, 2))
        else:
            layers += [nn.Conv2d(cin, v, 3, padding=1), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            cin = v
    return nn.Sequential(*layers)


def _merge(cin, cout):
    return nn.Sequential(nn.BatchNorm2d(cin), nn.Conv2d(cin, cout, 1), nn.ReLU(),
                         nn.BatchNorm2d(cout), nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU())


class AdvancedEastLike(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer2 = _vgg([64, 64, "M", 128, 128, "M"], 3)
        self.layer3 = _vgg([256, 256, 256, "M"], 128)
        self.layer4 = _vgg([512, 512, 512, "M"], 256)
        self.layer5 = _vgg([512, 512, 512, "M"], 512)
        self.merging1 = _merge(1024, 128)
        self.merging2 = _merge(384, 64)
        self.merging3 = _merge(192, 32)
        self.last_bn = nn.BatchNorm2d(32)
        self.conv_last = nn.Conv2d(32, 32, 3, padding=1)
        self.inside = nn.Conv2d(32, 1, 1)
        self.code = nn.Conv2d(32, 2, 1)
        self.coord = nn.Conv2d(32, 4, 1)

    def forward(self, x):
        f4 = self.layer2(x)
        f3 = self.layer3(f4)
        f2 = self.layer4(f3)
        f1 = self.layer5(f2)
        up = nn.UpsamplingNearest2d(scale_factor=2)
        h = self.merging1(torch.cat((up(f1), f2), 1))
        h = self.merging2(torch.cat((up(h), f3), 1))
        h = self.merging3(torch.cat((up(h), f4), 1))
        y = F.relu(self.conv_last(self.last_bn(h)))
        return torch.cat((self.inside(y), self.code(y), self.coord(y)), 1)


def build(variant="upstream"):
    return AdvancedEastLike().eval()


def example_inputs():
    return (torch.randn(1, 3, 736, 736),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, opset_version=OPSET,
                      input_names=INPUT_NAMES, output_names=OUTPUT_NAMES,
                      dynamic_axes=DYNAMIC_AXES)
