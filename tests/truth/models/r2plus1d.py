"""R(2+1)D ResNet-34 (mmaction2 r2plus1d_r34 with the recipe's config r2plus1d_r34_8x8x1_180e_ucf101_rgb2,
UCF-101) as the contrib R(2+1)D recipe exports it: mmaction2 (acce52d2) tools/deployment/pytorch2onnx.py
--shape 1 3 3 8 256 256, its torch.onnx.export given dynamic_axes={'0': {0: '-1'}} by hand (README).

Operator structure (own code, mmaction2 ResNet2Plus1d / Conv2plus1d conventions):
- input [N,3,3,8,H,W] (batch, 3 crops, C, T, H, W) reshaped to [N*3,3,8,H,W]
  (Recognizer3D.forward_dummy: imgs.reshape((-1,) + imgs.shape[2:]));
- every convolution is a Conv2plus1d: Conv3d (1,kh,kw) to mid channels
  3*cin*cout*kt*kh*kw / (cin*kh*kw + 3*cout*kt), BN3d, ReLU, Conv3d (kt,1,1), as ConvModule
  without bias, then BN3d (eps 1e-3) and ReLU where the module has them;
- stem Conv2plus1d (3,7,7) stride (1,2,2), MaxPool3d (1,3,3) stride (1,2,2); no pool2;
- BasicBlock3d, all inflated: Conv2plus1d (3,3,3) with stride (t,s,s), Conv2plus1d (3,3,3),
  downsample Conv2plus1d (1,1,1) + BN; spatial and temporal strides (1,2,2,2); depths reduced
  from 3,4,6,3 to 2,2,2,2 (same operators);
- I3DHead: AdaptiveAvgPool3d(1), dropout, view, Linear 101 (no --softmax in the command).
Export: opset 11, input named '0' (torch 1.5's default name, which the recipe's dynamic_axes
key and --input_shape use) with axis 0 dynamic, keep_initializers_as_inputs=True; traced at
[1,1,3,8,128,128] (one crop, smaller frames: only constants differ from [1,3,3,8,256,256]).
"""
import torch
from torch import nn

OPSET = 11
DEPTHS = [2, 2, 2, 2]          # ResNet-34: 3, 4, 6, 3
EXPORT_INPUT = (1, 1, 3, 8, 128, 128)


def _t(v):
    return v if isinstance(v, tuple) else (v, v, v)


class Conv2plus1d(nn.Module):
    def __init__(self, cin, cout, kernel, stride=1, padding=0):
        super().__init__()
        (kt, kh, kw), (st, sh, sw), (pt, ph, pw) = _t(kernel), _t(stride), _t(padding)
        mid = int(3 * (cin * cout * kt * kh * kw) / (cin * kh * kw + 3 * cout * kt))
        self.conv_s = nn.Conv3d(cin, mid, (1, kh, kw), (1, sh, sw), (0, ph, pw), bias=False)
        self.bn_s = nn.BatchNorm3d(mid)
        self.relu = nn.ReLU(True)
        self.conv_t = nn.Conv3d(mid, cout, (kt, 1, 1), (st, 1, 1), (pt, 0, 0), bias=False)

    def forward(self, x):
        return self.conv_t(self.relu(self.bn_s(self.conv_s(x))))


def conv_module(cin, cout, kernel, stride=1, padding=0, act=True):
    layers = [Conv2plus1d(cin, cout, kernel, stride, padding), nn.BatchNorm3d(cout, eps=1e-3)]
    return nn.Sequential(*(layers + [nn.ReLU(True)] if act else layers))


class BasicBlock3d(nn.Module):
    def __init__(self, cin, planes, s, t):
        super().__init__()
        self.conv1 = conv_module(cin, planes, 3, (t, s, s), 1)
        self.conv2 = conv_module(planes, planes, 3, 1, 1, act=False)
        self.downsample = None
        if s != 1 or t != 1 or cin != planes:
            self.downsample = conv_module(cin, planes, 1, (t, s, s), 0, act=False)
        self.relu = nn.ReLU(True)

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(self.conv2(self.conv1(x)) + identity)


class R2Plus1D(nn.Module):
    def __init__(self, num_classes=101):
        super().__init__()
        self.conv1 = conv_module(3, 64, (3, 7, 7), (1, 2, 2), (1, 3, 3))
        self.maxpool = nn.MaxPool3d((1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1))
        layers, cin = [], 64
        for i, planes in enumerate([64, 128, 256, 512]):
            s = t = 1 if i == 0 else 2
            blocks = [BasicBlock3d(cin, planes, s, t)]
            blocks += [BasicBlock3d(planes, planes, 1, 1) for _ in range(DEPTHS[i] - 1)]
            layers.append(nn.Sequential(*blocks))
            cin = planes
        self.layers = nn.Sequential(*layers)
        self.avg_pool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.dropout = nn.Dropout(0.5)
        self.fc_cls = nn.Linear(512, num_classes)

    def forward(self, imgs):
        x = imgs.reshape((-1,) + imgs.shape[2:])
        x = self.layers(self.maxpool(self.conv1(x)))
        x = self.dropout(self.avg_pool(x))
        return self.fc_cls(x.view(x.shape[0], -1))


def build(variant="upstream"):
    return R2Plus1D().eval()


def example_inputs():
    return (torch.randn(*EXPORT_INPUT),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["0"], export_params=True,
                      keep_initializers_as_inputs=True, opset_version=OPSET,
                      dynamic_axes={"0": {0: "-1"}})
