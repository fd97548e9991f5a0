"""FaceNet embedding network (timesler/facenet-pytorch InceptionResnetV1, pretrained='vggface2', classify=False) as
ACL_PyTorch/contrib/cv/face/FaceNet's FaceNet_pth2onnx.py exports it: opset 10, input 'image' [N,3,160,160],
output 'class' (the 512-d L2-normalised embedding), dynamic batch.

Own code with the upstream operators and widths (full depth): BasicConv2d = Conv (no bias) + BatchNorm (eps 1e-3) +
ReLU; stem 3x3 s2, 3x3, 3x3 p1, MaxPool 3 s2, 1x1, 3x3, 3x3 s2; 5 x Block35 (three branches, Concat, 1x1 conv with
bias, out * 0.17 + x, ReLU), Mixed_6a (two conv branches + MaxPool, Concat), 10 x Block17 (1x7 / 7x1 branch, * 0.10),
Mixed_7a (three conv branches + MaxPool), 5 x Block8 (1x3 / 3x1 branch, * 0.20) and a last Block8 without ReLU,
AdaptiveAvgPool2d(1), Dropout (identity in eval), view(N, -1), Linear 1792 -> 512 without bias, BatchNorm1d (eps 1e-3),
F.normalize(p=2, dim=1) (norm, clamp_min(1e-12): a Clip with only a min at opset 10, expand_as, Div).
The vggface2 logits layer exists in the upstream module but is not used when classify=False; it is left out.
"""
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 10


class BasicConv2d(nn.Module):
    def __init__(self, cin, cout, k, s, p=0):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, s, p, bias=False)
        self.bn = nn.BatchNorm2d(cout, eps=0.001)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))


class Residual(nn.Module):
    """Block35 / Block17 / Block8: parallel branches, Concat, 1x1 projection, scaled residual, optional ReLU."""

    def __init__(self, channels, branches, proj_in, scale, relu=True):
        super().__init__()
        self.branches = nn.ModuleList(nn.Sequential(*b) for b in branches)
        self.conv2d = nn.Conv2d(proj_in, channels, 1)
        self.scale = scale
        self.relu = nn.ReLU() if relu else None

    def forward(self, x):
        out = self.conv2d(torch.cat([b(x) for b in self.branches], 1))
        out = out * self.scale + x
        return self.relu(out) if self.relu is not None else out


def block35():
    return Residual(256, [[BasicConv2d(256, 32, 1, 1)],
                          [BasicConv2d(256, 32, 1, 1), BasicConv2d(32, 32, 3, 1, 1)],
                          [BasicConv2d(256, 32, 1, 1), BasicConv2d(32, 32, 3, 1, 1), BasicConv2d(32, 32, 3, 1, 1)]],
                    96, 0.17)


def block17():
    return Residual(896, [[BasicConv2d(896, 128, 1, 1)],
                          [BasicConv2d(896, 128, 1, 1), BasicConv2d(128, 128, (1, 7), 1, (0, 3)),
                           BasicConv2d(128, 128, (7, 1), 1, (3, 0))]], 256, 0.10)


def block8(scale=0.20, relu=True):
    return Residual(1792, [[BasicConv2d(1792, 192, 1, 1)],
                           [BasicConv2d(1792, 192, 1, 1), BasicConv2d(192, 192, (1, 3), 1, (0, 1)),
                            BasicConv2d(192, 192, (3, 1), 1, (1, 0))]], 384, scale, relu)


class Mixed(nn.Module):
    def __init__(self, branches):
        super().__init__()
        self.branches = nn.ModuleList(branches)

    def forward(self, x):
        return torch.cat([b(x) for b in self.branches], 1)


class InceptionResnetV1(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(
            BasicConv2d(3, 32, 3, 2), BasicConv2d(32, 32, 3, 1), BasicConv2d(32, 64, 3, 1, 1), nn.MaxPool2d(3, 2),
            BasicConv2d(64, 80, 1, 1), BasicConv2d(80, 192, 3, 1), BasicConv2d(192, 256, 3, 2))
        self.repeat_1 = nn.Sequential(*[block35() for _ in range(5)])
        self.mixed_6a = Mixed([BasicConv2d(256, 384, 3, 2),
                               nn.Sequential(BasicConv2d(256, 192, 1, 1), BasicConv2d(192, 192, 3, 1, 1),
                                             BasicConv2d(192, 256, 3, 2)),
                               nn.MaxPool2d(3, 2)])
        self.repeat_2 = nn.Sequential(*[block17() for _ in range(10)])
        self.mixed_7a = Mixed([nn.Sequential(BasicConv2d(896, 256, 1, 1), BasicConv2d(256, 384, 3, 2)),
                               nn.Sequential(BasicConv2d(896, 256, 1, 1), BasicConv2d(256, 256, 3, 2)),
                               nn.Sequential(BasicConv2d(896, 256, 1, 1), BasicConv2d(256, 256, 3, 1, 1),
                                             BasicConv2d(256, 256, 3, 2)),
                               nn.MaxPool2d(3, 2)])
        self.repeat_3 = nn.Sequential(*[block8() for _ in range(5)])
        self.block8 = block8(1.0, relu=False)
        self.avgpool_1a = nn.AdaptiveAvgPool2d(1)
        self.dropout = nn.Dropout(0.6)
        self.last_linear = nn.Linear(1792, 512, bias=False)
        self.last_bn = nn.BatchNorm1d(512, eps=0.001)

    def forward(self, x):
        x = self.stem(x)
        x = self.repeat_3(self.mixed_7a(self.repeat_2(self.mixed_6a(self.repeat_1(x)))))
        x = self.dropout(self.avgpool_1a(self.block8(x)))
        x = self.last_bn(self.last_linear(x.view(x.shape[0], -1)))
        return F.normalize(x, p=2, dim=1)


def build(variant="upstream"):
    return InceptionResnetV1().eval()


def example_inputs():
    return (torch.randn(1, 3, 160, 160),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["image"], output_names=["class"],
                      dynamic_axes={"image": {0: "-1"}, "class": {0: "-1"}}, opset_version=OPSET)
