"""PoseC3D (mmaction2 v0.24.1 slowonly_kinetics400_pretrained_r50_u48_120e_hmdb51_split1_keypoint,
HMDB-51 split 1) as the contrib PoseC3D recipe exports it: mmaction2 tools/deployment/pytorch2onnx.py
--shape ${bs} 20 17 48 56 56 (static, one ONNX per batch size, no --softmax).

Operator structure (own code, mmaction2 ResNet3dSlowOnly conventions):
- input [N,20,17,48,56,56] (batch, 20 clips, 17 keypoint heatmaps, T, H, W) reshaped to
  [N*20,17,48,56,56] (Recognizer3D.forward_dummy);
- stem Conv3d (1,7,7) stride 1 (17 -> 32) + BN3d + ReLU, MaxPool3d (1,3,3) stride 1 padding (0,1,1);
- three stages of Bottleneck3d (base 32 channels; planes 32, 64, 128; out 128, 256, 512),
  spatial stride 2 in each stage's first block, temporal stride 2 in the last stage, inflated
  (3,1,1) conv1 in stages 2 and 3 (inflate (0,1,1)); stage_blocks 4,6,3 reduced to 2,2,2 (same
  operators); no pool2;
- I3DHead: AdaptiveAvgPool3d(1), dropout, view, Linear 51.
Export: opset 11, static, torch's default names (input onnx::Reshape_0, the name the recipe's
ATC command uses), keep_initializers_as_inputs=True (mmaction2's script); traced at
[1,1,17,48,56,56] (one clip: only constants differ from [bs,20,17,48,56,56]).
"""
import torch
from torch import nn

OPSET = 11
BLOCKS = (2, 2, 2)             # upstream stage_blocks: 4, 6, 3
EXPORT_INPUT = (1, 1, 17, 48, 56, 56)


class Bottleneck3d(nn.Module):
    def __init__(self, cin, planes, s, t, inflate):
        super().__init__()
        out, k = planes * 4, (3 if inflate else 1)
        self.conv1 = nn.Sequential(nn.Conv3d(cin, planes, (k, 1, 1), padding=(k // 2, 0, 0), bias=False),
                                   nn.BatchNorm3d(planes), nn.ReLU(True))
        self.conv2 = nn.Sequential(nn.Conv3d(planes, planes, (1, 3, 3), stride=(t, s, s), padding=(0, 1, 1),
                                             bias=False), nn.BatchNorm3d(planes), nn.ReLU(True))
        self.conv3 = nn.Sequential(nn.Conv3d(planes, out, 1, bias=False), nn.BatchNorm3d(out))
        self.downsample = None
        if s != 1 or t != 1 or cin != out:
            self.downsample = nn.Sequential(nn.Conv3d(cin, out, 1, stride=(t, s, s), bias=False),
                                            nn.BatchNorm3d(out))
        self.relu = nn.ReLU(True)

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(self.conv3(self.conv2(self.conv1(x))) + identity)


class PoseC3D(nn.Module):
    def __init__(self, num_classes=51):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv3d(17, 32, (1, 7, 7), padding=(0, 3, 3), bias=False),
                                   nn.BatchNorm3d(32), nn.ReLU(True))
        self.maxpool = nn.MaxPool3d((1, 3, 3), stride=1, padding=(0, 1, 1))
        layers, cin = [], 32
        for i, (planes, t, inflate) in enumerate([(32, 1, 0), (64, 1, 1), (128, 2, 1)]):
            blocks = [Bottleneck3d(cin, planes, 2, t, inflate)]
            blocks += [Bottleneck3d(planes * 4, planes, 1, 1, inflate) for _ in range(BLOCKS[i] - 1)]
            layers.append(nn.Sequential(*blocks))
            cin = planes * 4
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
    return PoseC3D().eval()


def example_inputs():
    return (torch.randn(*EXPORT_INPUT),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, export_params=True,
                      keep_initializers_as_inputs=True, opset_version=OPSET)
