"""3D MobileNetV2 1.0x (okankop/Efficient-3DCNNs models/mobilenetv2.py, UCF-101, 16 frames of 112x112) as
the contrib Efficient-3DCNNs recipe exports it with its Efficient-3DCNNs_pth2onnx.py (classifier
Dropout(0.9) + Linear 101, input 'image' [1,3,16,112,112] with a dynamic batch, output 'class',
opset 11).

Operator structure (own code after the repository's MobileNetV2):
- conv_bn: Conv3d 3x3x3 stride (1,2,2) to 32, BN3d, ReLU6;
- inverted residual blocks (t, c, n, s): (1,16,1,1) (6,24,2,2) (6,32,3,2) (6,64,4,2) (6,96,3,1)
  (6,160,3,2) (6,320,1,1): pointwise Conv3d + BN3d + ReLU6 (expansion), depthwise Conv3d 3x3x3
  (groups = channels) + BN3d + ReLU6, pointwise-linear Conv3d + BN3d, residual Add where stride 1
  and channels equal;
- conv_1x1x1_bn to 1280, F.avg_pool3d(x, x.data.size()[-3:]), view(x.size(0), -1), Dropout,
  Linear 101.
Full width and depth (a small model).
"""
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
SETTING = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
           (6, 320, 1, 1)]


def conv_bn(cin, cout, k, stride, groups=1, act=True):
    layers = [nn.Conv3d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm3d(cout)]
    return layers + [nn.ReLU6(inplace=True)] if act else layers


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, t):
        super().__init__()
        hidden = round(cin * t)
        self.use_res = stride == 1 and cin == cout
        layers = [] if t == 1 else conv_bn(cin, hidden, 1, 1)
        layers += conv_bn(hidden, hidden, 3, stride, groups=hidden) + conv_bn(hidden, cout, 1, 1, act=False)
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res else self.conv(x)


class MobileNetV2_3D(nn.Module):
    def __init__(self, num_classes=101):
        super().__init__()
        features, cin = conv_bn(3, 32, 3, (1, 2, 2)), 32
        for t, c, n, s in SETTING:
            for i in range(n):
                features.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        features += conv_bn(cin, 1280, 1, 1)
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(0.9), nn.Linear(1280, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = F.avg_pool3d(x, x.data.size()[-3:])
        return self.classifier(x.view(x.size(0), -1))


def build(variant="upstream"):
    return MobileNetV2_3D().eval()


def example_inputs():
    return (torch.randn(1, 3, 16, 112, 112),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["image"], output_names=["class"],
                      dynamic_axes={"image": {0: "-1"}, "class": {0: "-1"}}, opset_version=OPSET)
