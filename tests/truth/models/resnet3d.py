"""3D ResNet-50 (kenshohara/3D-ResNets-PyTorch models/resnet.py, HMDB-51 fine-tuned, 51 classes) as the
contrib 3d_resnets recipe exports it with its 3D-ResNets_pth2onnx.py (static batch 10,
input 'input' [10,3,16,112,112], output 'output', opset 11, do_constant_folding).

Operator structure (own code after the repository's ResNet with its default options:
conv1_t_size 7, conv1_t_stride 1, max pool kept, shortcut B, widen factor 1):
- conv1 Conv3d (7,7,7) stride (1,2,2) + BN3d + ReLU, MaxPool3d 3 stride 2 padding 1;
- Bottleneck: Conv3d 1x1x1, BN, ReLU, Conv3d 3x3x3 (stride), BN, ReLU, Conv3d 1x1x1 (x4), BN,
  residual Add (downsample Conv3d 1x1x1 + BN), ReLU; stride 2 from layer2; layers 3,4,6,3
  reduced to 2,2,2,2 (same operators);
- pool: variant "upstream" (default) nn.AdaptiveAvgPool3d((1,1,1)) (GlobalAveragePool); variant
  "recipe" = resnet.patch: nn.AvgPool3d((1,4,4)) (AveragePool over the [1,4,4] map the 16x112x112
  clip leaves);
- view(x.size(0), -1), Linear 51.
Traced at [1,3,16,112,112] (the recipe's batch is 10: only constants differ).
"""
import torch
from torch import nn

OPSET = 11
LAYERS = (2, 2, 2, 2)          # ResNet-50: 3, 4, 6, 3
EXPORT_INPUT = (1, 3, 16, 112, 112)


class Bottleneck(nn.Module):
    def __init__(self, cin, planes, stride):
        super().__init__()
        out = planes * 4
        self.body = nn.Sequential(
            nn.Conv3d(cin, planes, 1, bias=False), nn.BatchNorm3d(planes), nn.ReLU(True),
            nn.Conv3d(planes, planes, 3, stride=stride, padding=1, bias=False), nn.BatchNorm3d(planes), nn.ReLU(True),
            nn.Conv3d(planes, out, 1, bias=False), nn.BatchNorm3d(out))
        self.downsample = None
        if stride != 1 or cin != out:
            self.downsample = nn.Sequential(nn.Conv3d(cin, out, 1, stride=stride, bias=False), nn.BatchNorm3d(out))
        self.relu = nn.ReLU(True)

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(self.body(x) + identity)


class ResNet3D(nn.Module):
    def __init__(self, patched=False, num_classes=51):
        super().__init__()
        self.conv1 = nn.Conv3d(3, 64, (7, 7, 7), stride=(1, 2, 2), padding=(3, 3, 3), bias=False)
        self.bn1 = nn.BatchNorm3d(64)
        self.relu = nn.ReLU(True)
        self.maxpool = nn.MaxPool3d(kernel_size=3, stride=2, padding=1)
        layers, cin = [], 64
        for i, planes in enumerate([64, 128, 256, 512]):
            blocks = [Bottleneck(cin, planes, 1 if i == 0 else 2)]
            blocks += [Bottleneck(planes * 4, planes, 1) for _ in range(LAYERS[i] - 1)]
            layers.append(nn.Sequential(*blocks))
            cin = planes * 4
        self.layers = nn.Sequential(*layers)
        self.avgpool = nn.AvgPool3d((1, 4, 4)) if patched else nn.AdaptiveAvgPool3d((1, 1, 1))
        self.fc = nn.Linear(2048, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.avgpool(self.layers(x))
        return self.fc(x.view(x.size(0), -1))


def build(variant="upstream"):
    return ResNet3D(patched=(variant == "recipe")).eval()


def example_inputs():
    return (torch.randn(*EXPORT_INPUT),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["input"], output_names=["output"],
                      export_params=True, do_constant_folding=True, opset_version=OPSET)
