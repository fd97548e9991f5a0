"""I3D ResNet-50 with dot-product non-local blocks (mmaction2 i3d_nl_dot_product_r50_32x2x1_100e_kinetics400_rgb,
Kinetics-400) as the built-in I3D_nonlocal recipe exports it with mmaction2 tools/deployment/pytorch2onnx.py
--shape 1 10 3 32 256 256 (static, no dynamic axes, no softmax).

Operator structure (own code, mmaction2 ResNet3d conventions):
- input [1,10,3,32,H,W] reshaped to [10,3,32,H,W] (Recognizer3D.forward_dummy);
- conv1 Conv3d (5,7,7) stride (2,2,2) + BN3d + ReLU, MaxPool3d (1,3,3) stride (2,2,2);
  MaxPool3d (2,1,1) stride (2,1,1) after layer1;
- Bottleneck3d, inflate_style 3x1x1: conv1 (3,1,1) where inflated else 1x1x1, conv2 (1,3,3),
  conv3 1x1x1, BN3d, ReLU, residual Add; spatial stride 2 from layer2; non-local block
  (NonLocal3d after mmcv: dot_product, sub_sample, use_scale False, BN3d) after the Add of the
  blocks the config marks; depths reduced from 3,4,6,3 to 2,2,3,2 with inflate (1,1) (1,0)
  (1,0,1) (0,1) and non-local (0,0) (1,0) (1,0,0) (0,0) (same operators);
- I3DHead: AdaptiveAvgPool3d(1), dropout, view, Linear 400.
Export: opset 11, static; traced at [1,1,3,32,128,128] (export_input: one clip, smaller frames;
only constant values differ from the recipe's [1,10,3,32,256,256]).
"""
import torch
from torch import nn

OPSET = 11
INFLATE = [(1, 1), (1, 0), (1, 0, 1), (0, 1)]
NON_LOCAL = [(0, 0), (1, 0), (1, 0, 0), (0, 0)]
EXPORT_INPUT = (1, 1, 3, 32, 128, 128)


class NonLocal3d(nn.Module):
    """mmcv's _NonLocalNd / NonLocal3d, mode dot_product, sub_sample, use_scale False."""

    def __init__(self, c):
        super().__init__()
        self.inter = c // 2
        pool = nn.MaxPool3d(kernel_size=(1, 2, 2))
        self.g = nn.Sequential(nn.Conv3d(c, self.inter, 1), pool)
        self.theta = nn.Conv3d(c, self.inter, 1)
        self.phi = nn.Sequential(nn.Conv3d(c, self.inter, 1), pool)
        self.conv_out = nn.Sequential(nn.Conv3d(self.inter, c, 1, bias=False), nn.BatchNorm3d(c))

    def forward(self, x):
        n = x.size(0)
        g_x = self.g(x).view(n, self.inter, -1).permute(0, 2, 1)
        theta_x = self.theta(x).view(n, self.inter, -1).permute(0, 2, 1)
        phi_x = self.phi(x).view(n, self.inter, -1)
        pairwise = torch.matmul(theta_x, phi_x)
        pairwise /= pairwise.shape[-1]
        y = torch.matmul(pairwise, g_x)
        y = y.permute(0, 2, 1).contiguous().reshape(n, self.inter, *x.size()[2:])
        return x + self.conv_out(y)


class Bottleneck3d(nn.Module):
    def __init__(self, cin, planes, stride, inflate, non_local):
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
        self.non_local_block = NonLocal3d(out) if non_local else None

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.conv3(self.conv2(self.conv1(x))) + identity)
        return out if self.non_local_block is None else self.non_local_block(out)


class I3DNonLocal(nn.Module):
    def __init__(self, num_classes=400):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv3d(3, 64, (5, 7, 7), stride=(2, 2, 2), padding=(2, 3, 3), bias=False),
                                   nn.BatchNorm3d(64), nn.ReLU(True))
        self.maxpool = nn.MaxPool3d((1, 3, 3), stride=(2, 2, 2), padding=(0, 1, 1))
        self.pool2 = nn.MaxPool3d((2, 1, 1), stride=(2, 1, 1))
        layers, cin = [], 64
        for i, planes in enumerate([64, 128, 256, 512]):
            blocks = []
            for j, (inf, nl) in enumerate(zip(INFLATE[i], NON_LOCAL[i])):
                blocks.append(Bottleneck3d(cin, planes, 2 if (j == 0 and i > 0) else 1, inf, nl))
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
    return I3DNonLocal().eval()


def example_inputs():
    return (torch.randn(*EXPORT_INPUT),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, export_params=True, opset_version=OPSET)
