"""I3D ResNet-50 (mmaction2 i3d_r50_32x2x1_100e_kinetics400_rgb, Kinetics-400) as the built-in
I3D_for_Pytorch recipe exports it with mmaction2 tools/deployment/pytorch2onnx.py
--shape 1 30 3 32 256 256 (static, no dynamic axes, no softmax).

Operator structure (own code, mmaction2 ResNet3d conventions, the I3D_nonlocal builder without
its non-local blocks):
- input [1,30,3,32,H,W] reshaped to [30,3,32,H,W] (Recognizer3D.forward_dummy);
- conv1 Conv3d (5,7,7) stride (2,2,2) + BN3d + ReLU, MaxPool3d (1,3,3) stride (2,2,2);
  MaxPool3d (2,1,1) stride (2,1,1) after layer1 (with_pool2);
- Bottleneck3d, inflate_style 3x1x1: conv1 (3,1,1) where inflated else 1x1x1, conv2 (1,3,3),
  conv3 1x1x1, BN3d, ReLU, residual Add; spatial stride 2 from layer2; depths reduced from
  3,4,6,3 to 2,2,3,2 with inflate (1,1) (1,0) (1,0,1) (0,1) (config: (1,1,1) (1,0,1,0)
  (1,0,1,0,1,0) (0,1,0); same operators);
- I3DHead: AdaptiveAvgPool3d(1), dropout, view, Linear 400.
Export: opset 11, static; traced at [1,1,3,32,128,128] (one clip, smaller frames; only constant
values differ from the recipe's [1,30,3,32,256,256]).
"""
import torch
from torch import nn

OPSET = 11
INFLATE = [(1, 1), (1, 0), (1, 0, 1), (0, 1)]
EXPORT_INPUT = (1, 1, 3, 32, 128, 128)


class Bottleneck3d(nn.Module):
    def __init__(self, cin, planes, stride, inflate):
        super().__init__()
        out, t = planes * 4, (3 if inflate else 1)
        self.conv1 = nn.Sequential(nn.Conv3d(cin, planes, (t, 1, 1), padding=(t // 2, 0, 0), bias=False),
                                   nn.BatchNorm3d(planes), nn.ReLU(True))
        self.conv2 = nn.Sequential(nn.Conv3d(planes, planes, (1, 3, 3), stride=(1, stride, stride),
                                             padding=(0, 1, 1), bias=False), nn.BatchNorm3d(planes), nn.ReLU(True))
        self.conv3 = nn.Sequential(nn.Conv3d(planes, out, 1, bias=False), nn.BatchNorm3d(out))
        self.downsample = None
        if stride != 1 or cin != out:
            self.downsample = nn.Sequential(nn.Conv3d(cin, out, 1, stride=(1, stride, stride), bias=False),
                                            nn.BatchNorm3d(out))
        self.relu = nn.ReLU(True)

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(self.conv3(self.conv2(self.conv1(x))) + identity)


class I3D(nn.Module):
    def __init__(self, num_classes=400):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv3d(3, 64, (5, 7, 7), stride=(2, 2, 2), padding=(2, 3, 3), bias=False),
                                   nn.BatchNorm3d(64), nn.ReLU(True))
        self.maxpool = nn.MaxPool3d((1, 3, 3), stride=(2, 2, 2), padding=(0, 1, 1))
        self.pool2 = nn.MaxPool3d((2, 1, 1), stride=(2, 1, 1))
        layers, cin = [], 64
        for i, planes in enumerate([64, 128, 256, 512]):
            blocks = []
            for j, inf in enumerate(INFLATE[i]):
                blocks.append(Bottleneck3d(cin, planes, 2 if (j == 0 and i > 0) else 1, inf))
                cin = planes * 4
            layers.append(nn.Sequential(*blocks))
        self.layers = nn.ModuleList(layers)
        self.avg_pool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.dropout = nn.Dropout(0.5)
        self.fc_cls = nn.Linear(2048, num_classes)

    def forward(self, imgs):
        x = imgs.reshape((-1,) + imgs.shape[2:])
        x = self.maxpool(self.conv1(x))
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i == 0:
                x = self.pool2(x)
        x = self.dropout(self.avg_pool(x))
        return self.fc_cls(x.view(x.shape[0], -1))


def build(variant="upstream"):
    return I3D().eval()


def example_inputs():
    return (torch.randn(*EXPORT_INPUT),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, export_params=True,
                      keep_initializers_as_inputs=True, opset_version=OPSET)
