"""ECAPA-TDNN speaker embedding (Joovvhan/ECAPA-TDNN), as the contrib recipe exports it (infer path).

Operator structure rebuilt from the upstream model description (facts only, own code):
- Conv1d 80->512 k5 p2, ReLU, BatchNorm1d (BN after ReLU: not folded at export);
- three SE-Res2Blocks (dilation 2, 3, 4): 1x1 Conv1d to 8x512, ReLU, BN, split into 8 groups of
  512, groups 1..7 each (plus the previous group's output from group 2 on) through a k3 dilated
  Conv1d + ReLU + BN, concat, 1x1 collapse, ReLU, BN, squeeze-excitation (mean over time,
  Linear 512->128, ReLU, Linear 128->512, Sigmoid, unsqueeze, Mul);
- dense residual sums, concat of the three block outputs, 1x1 Conv1d 1536, ReLU;
- attentive statistics pooling: transpose to [N,T,1536], Linear 1536->128, ReLU, Linear 128->1536,
  Softmax over time, weighted mean, weighted mean of squares minus squared mean, clamp(min 1e-4),
  Sqrt, concat; BN, Linear 3072->192, BN, division by torch.norm(dim 1).
Outputs: the normalised embedding [N,192] and the attention weights [N,T,1536].
Export: opset 12, input 'mel' [N,80,200] with dynamic batch, outputs 'output1', 'output2'.
"""
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 12
INPUT_NAMES = ["mel"]
OUTPUT_NAMES = ["output1", "output2"]
DYNAMIC_AXES = {"mel": {0: "-1"}, "output1": {0: "-1"}, "output2": {0: "-1"}}
H_CONV, H_ATT, H_FC = 512, 128, 192


class _StatPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = nn.Linear(3 * H_CONV, H_ATT)
        self.linear2 = nn.Linear(H_ATT, 3 * H_CONV)

    def forward(self, x):
        h = x.transpose(1, 2)
        a = F.softmax(self.linear2(F.relu(self.linear1(h))), dim=1)
        mean = torch.sum(a * h, dim=1)
        var = torch.sum(a * (h * h), dim=1) - mean * mean
        sigma = torch.sqrt(var.clamp(min=1e-4))
        return torch.cat((mean, sigma), 1), a


class _SERes2(nn.Module):
    def __init__(self, scale, k, d):
        super().__init__()
        pad = d * (k - 1) // 2
        self.expand = nn.Conv1d(H_CONV, H_CONV * scale, 1)
        self.bn_expand = nn.BatchNorm1d(H_CONV * scale)
        self.convs = nn.ModuleList([nn.Conv1d(H_CONV, H_CONV, k, dilation=d, padding=pad)
                                    for _ in range(scale - 1)])
        self.bns = nn.ModuleList([nn.BatchNorm1d(H_CONV) for _ in range(scale - 1)])
        self.collapse = nn.Conv1d(H_CONV * scale, H_CONV, 1)
        self.bn_collapse = nn.BatchNorm1d(H_CONV)
        self.fc_1 = nn.Linear(H_CONV, 128)
        self.fc_2 = nn.Linear(128, H_CONV)

    def forward(self, x):
        t = self.bn_expand(F.relu(self.expand(x)))
        outs, last = [], None
        for i, part in enumerate(torch.split(t, H_CONV, dim=1)):
            if i > 1:
                part = part + last
            if i > 0:
                part = self.bns[i - 1](F.relu(self.convs[i - 1](part)))
            outs.append(part)
            last = part
        t = self.bn_collapse(F.relu(self.collapse(torch.cat(outs, 1))))
        s = torch.sigmoid(self.fc_2(F.relu(self.fc_1(torch.mean(t, dim=2)))))
        return torch.unsqueeze(s, 2) * t


class EcapaLike(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_in = nn.Conv1d(80, H_CONV, 5, padding=2)
        self.bn_in = nn.BatchNorm1d(H_CONV)
        self.block1 = _SERes2(8, 3, 2)
        self.block2 = _SERes2(8, 3, 3)
        self.block3 = _SERes2(8, 3, 4)
        self.conv_out = nn.Conv1d(3 * H_CONV, 3 * H_CONV, 1)
        self.pool = _StatPool()
        self.bn_2 = nn.BatchNorm1d(H_CONV * 6)
        self.fc = nn.Linear(H_CONV * 6, H_FC)
        self.bn_3 = nn.BatchNorm1d(H_FC)

    def forward(self, x):
        t = self.bn_in(F.relu(self.conv_in(x)))
        t1 = self.block1(t) + t
        t2 = self.block2(t1) + t1 + t
        t3 = self.block3(t2) + t2 + t1 + t
        y = F.relu(self.conv_out(torch.cat([t1, t2, t3], 1)))
        y, a = self.pool(y)
        y = self.bn_3(self.fc(self.bn_2(y)))
        return y / torch.norm(y, dim=1, keepdim=True), a


def build(variant="upstream"):
    return EcapaLike().eval()


def example_inputs():
    return (torch.randn(1, 80, 200),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, opset_version=OPSET,
                      input_names=INPUT_NAMES, output_names=OUTPUT_NAMES,
                      dynamic_axes=DYNAMIC_AXES)
