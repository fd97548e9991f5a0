"""GloRe ResNet-50 3D with global reasoning units (facebookresearch/GloRe 9c6a7340,
network/resnet50_3d_gcn_x5.py RESNET50_3D_GCN_X5, UCF-101, 101 classes) as the contrib GloRe recipe
exports it with its GloRe_pth2onnx.py (input 'image' [1,3,8,224,224] with a dynamic batch, output
'class', opset 11).

Operator structure (own code after the repository's network):
- conv1: Conv3d (3,5,5) stride (1,2,2) to 32, BN3d, ReLU, MaxPool3d (1,3,3) stride (1,2,2);
- RESIDUAL_BLOCKs of pre-activation BN_AC_CONV3D units (BN3d, ReLU, Conv3d): (kt,1,1) with kt 3
  where the block is 3-D, (1,3,3) with the block's stride, 1x1x1; first blocks add a 1x1x1 adapter;
  residual Add; stage strides (1,1,1), (2,2,2), (1,2,2), (1,2,2);
- GloRe_Unit after blocks 1 and 3 of conv3 and 1, 3, 5 of conv4: Conv3d 1x1x1 state and
  projection maps viewed [n, c, -1] (n read from x.size(0)), MatMul with the transposed projection,
  GCN (Conv1d over nodes on the permuted [n, node, state] tensor, Add, ReLU, Conv1d over states),
  MatMul back, view to [n, c, t, h, w] from x.size(), Conv3d 1x1x1 + BN3d, residual Add;
- tail BN3d + ReLU, AvgPool3d (4,7,7), dropout, view(h.shape[0], -1), Linear 101.
Depths 3,4,6,3 reduced to 2,3,2,2 with a GloRe unit after blocks 1 and 3 of conv3 and block 1 of
conv4 (same operators).
"""
import torch
from torch import nn

OPSET = 11
SECTIONS = {2: 2, 3: 3, 4: 2, 5: 2}      # upstream: 3, 4, 6, 3
GLORE_AFTER = {3: (1, 3), 4: (1,)}       # upstream: conv3 (1, 3), conv4 (1, 3, 5)


def bn_ac_conv(cin, cout, kernel=(1, 1, 1), pad=(0, 0, 0), stride=(1, 1, 1)):
    return nn.Sequential(nn.BatchNorm3d(cin, eps=1e-4), nn.ReLU(True),
                         nn.Conv3d(cin, cout, kernel, stride, pad, bias=False))


class ResidualBlock(nn.Module):
    def __init__(self, cin, mid, cout, stride=(1, 1, 1), first=False, use_3d=True):
        super().__init__()
        kt, pt = (3, 1) if use_3d else (1, 0)
        self.body = nn.Sequential(bn_ac_conv(cin, mid, (kt, 1, 1), (pt, 0, 0)),
                                  bn_ac_conv(mid, mid, (1, 3, 3), (0, 1, 1), stride),
                                  bn_ac_conv(mid, cout))
        self.conv_w1 = bn_ac_conv(cin, cout, stride=stride) if first else None

    def forward(self, x):
        h = self.body(x)
        return h + (x if self.conv_w1 is None else self.conv_w1(x))


class GCN(nn.Module):
    def __init__(self, num_state, num_node):
        super().__init__()
        self.conv1 = nn.Conv1d(num_node, num_node, kernel_size=1)
        self.relu = nn.ReLU(True)
        self.conv2 = nn.Conv1d(num_state, num_state, kernel_size=1, bias=False)

    def forward(self, x):
        h = self.conv1(x.permute(0, 2, 1).contiguous()).permute(0, 2, 1)
        return self.conv2(self.relu(h + x))


class GloReUnit(nn.Module):
    def __init__(self, cin, mid):
        super().__init__()
        self.num_s, self.num_n = 2 * mid, mid
        self.conv_state = nn.Conv3d(cin, self.num_s, 1)
        self.conv_proj = nn.Conv3d(cin, self.num_n, 1)
        self.gcn = GCN(self.num_s, self.num_n)
        self.conv_extend = nn.Conv3d(self.num_s, cin, 1, bias=False)
        self.blocker = nn.BatchNorm3d(cin, eps=1e-4)

    def forward(self, x):
        n = x.size(0)
        state = self.conv_state(x).view(n, self.num_s, -1)
        proj = self.conv_proj(x).view(n, self.num_n, -1)
        rel = self.gcn(torch.matmul(state, proj.permute(0, 2, 1)))
        state = torch.matmul(rel, proj).view(n, self.num_s, *x.size()[2:])
        return x + self.blocker(self.conv_extend(state))


class GloReNet(nn.Module):
    def __init__(self, num_classes=101):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv3d(3, 32, (3, 5, 5), (1, 2, 2), (1, 2, 2), bias=False),
                                   nn.BatchNorm3d(32, eps=1e-4), nn.ReLU(True),
                                   nn.MaxPool3d((1, 3, 3), (1, 2, 2), (0, 1, 1)))
        stages, cin, mid, cout = [], 32, 64, 256
        for sec, stride in zip((2, 3, 4, 5), ((1, 1, 1), (2, 2, 2), (1, 2, 2), (1, 2, 2))):
            blocks = []
            for i in range(1, SECTIONS[sec] + 1):
                use_3d = True if sec == 2 else (i == 2 if sec == 5 else bool(i % 2))
                blocks.append(ResidualBlock(cin if i == 1 else cout, mid, cout, stride if i == 1 else (1, 1, 1),
                                            first=(i == 1), use_3d=use_3d))
                if i in GLORE_AFTER.get(sec, ()):
                    blocks.append(GloReUnit(cout, mid))
            stages.append(nn.Sequential(*blocks))
            cin, mid, cout = cout, mid * 2, cout * 2
        self.stages = nn.Sequential(*stages)
        self.tail = nn.Sequential(nn.BatchNorm3d(2048, eps=1e-4), nn.ReLU(True))
        self.globalpool = nn.Sequential(nn.AvgPool3d((4, 7, 7), stride=(1, 1, 1)), nn.Dropout(0.5))
        self.classifier = nn.Linear(2048, num_classes)

    def forward(self, x):
        h = self.globalpool(self.tail(self.stages(self.conv1(x))))
        return self.classifier(h.view(h.shape[0], -1))


def build(variant="upstream"):
    return GloReNet().eval()


def example_inputs():
    return (torch.randn(1, 3, 8, 224, 224),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["image"], output_names=["class"],
                      dynamic_axes={"image": {0: "-1"}, "class": {0: "-1"}}, opset_version=OPSET)
