"""FaceBoxes face detector (zisianw/FaceBoxes.PyTorch models/faceboxes.py, phase 'test', 2 classes) as
ACL_PyTorch/contrib/cv/face/FaceBoxes's faceboxes_pth2onnx.py exports it: opset 11, input 'image' [N,3,1024,1024],
outputs named ['class', 'loc'] (the forward returns loc [N, 21824, 4] first, then the Softmax scores [N, 21824, 2]),
dynamic batch on all three.

Own code, upstream operators and widths: RDCL = CRelu (Conv 7x7 s4 no bias, BN, Concat(x, -x), ReLU), MaxPool 3 s2 p1,
CRelu (5x5 s2), MaxPool 3 s2 p1; MSCL = three Inception modules (1x1 | AvgPool 3 s1 p1 + 1x1 | 1x1 + 3x3 |
1x1 + 3x3 + 3x3, Concat to 128), conv3 (1x1, 3x3 s2), conv4 (1x1, 3x3 s2), each Conv + BN + ReLU; multibox heads
(3x3 convs: 21 anchors on the first source, 1 on the others), permute to NHWC, view(N, -1), Concat, view(N, -1, 4)
and Softmax(dim=-1) over view(N, -1, 2).
"""
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11


class BasicConv2d(nn.Module):
    def __init__(self, cin, cout, **kw):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, bias=False, **kw)
        self.bn = nn.BatchNorm2d(cout, eps=1e-5)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class CRelu(nn.Module):
    def __init__(self, cin, cout, **kw):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, bias=False, **kw)
        self.bn = nn.BatchNorm2d(cout, eps=1e-5)

    def forward(self, x):
        x = self.bn(self.conv(x))
        return F.relu(torch.cat([x, -x], 1))


class Inception(nn.Module):
    def __init__(self):
        super().__init__()
        self.b1 = BasicConv2d(128, 32, kernel_size=1)
        self.b_pool = BasicConv2d(128, 32, kernel_size=1)
        self.b3 = nn.Sequential(BasicConv2d(128, 24, kernel_size=1), BasicConv2d(24, 32, kernel_size=3, padding=1))
        self.b33 = nn.Sequential(BasicConv2d(128, 24, kernel_size=1), BasicConv2d(24, 32, kernel_size=3, padding=1),
                                 BasicConv2d(32, 32, kernel_size=3, padding=1))

    def forward(self, x):
        pool = self.b_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))
        return torch.cat([self.b1(x), pool, self.b3(x), self.b33(x)], 1)


class FaceBoxes(nn.Module):
    def __init__(self, num_classes=2):
        super().__init__()
        self.num_classes = num_classes
        self.conv1 = CRelu(3, 24, kernel_size=7, stride=4, padding=3)
        self.conv2 = CRelu(48, 64, kernel_size=5, stride=2, padding=2)
        self.inception = nn.Sequential(Inception(), Inception(), Inception())
        self.conv3 = nn.Sequential(BasicConv2d(128, 128, kernel_size=1),
                                   BasicConv2d(128, 256, kernel_size=3, stride=2, padding=1))
        self.conv4 = nn.Sequential(BasicConv2d(256, 128, kernel_size=1),
                                   BasicConv2d(128, 256, kernel_size=3, stride=2, padding=1))
        self.loc = nn.ModuleList([nn.Conv2d(128, 21 * 4, 3, padding=1), nn.Conv2d(256, 4, 3, padding=1),
                                  nn.Conv2d(256, 4, 3, padding=1)])
        self.conf = nn.ModuleList([nn.Conv2d(128, 21 * num_classes, 3, padding=1),
                                   nn.Conv2d(256, num_classes, 3, padding=1),
                                   nn.Conv2d(256, num_classes, 3, padding=1)])
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x):
        x = F.max_pool2d(self.conv1(x), kernel_size=3, stride=2, padding=1)
        x = F.max_pool2d(self.conv2(x), kernel_size=3, stride=2, padding=1)
        s1 = self.inception(x)
        s2 = self.conv3(s1)
        s3 = self.conv4(s2)
        loc, conf = [], []
        for src, l, c in zip((s1, s2, s3), self.loc, self.conf):
            loc.append(l(src).permute(0, 2, 3, 1).contiguous())
            conf.append(c(src).permute(0, 2, 3, 1).contiguous())
        loc = torch.cat([o.view(o.size(0), -1) for o in loc], 1)
        conf = torch.cat([o.view(o.size(0), -1) for o in conf], 1)
        return loc.view(loc.size(0), -1, 4), self.softmax(conf.view(conf.size(0), -1, self.num_classes))


def build(variant="upstream"):
    return FaceBoxes().eval()


def example_inputs():
    return (torch.randn(1, 3, 1024, 1024),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    with torch.no_grad():
        torch.onnx.export(build(variant), example_inputs(), path, input_names=["image"], output_names=["class", "loc"],
                          dynamic_axes={"image": {0: "-1"}, "class": {0: "-1"}, "loc": {0: "-1"}},
                          opset_version=OPSET)
