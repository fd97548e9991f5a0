"""LPRNet licence-plate recogniser (sirius-ai/LPRNet_Pytorch), as the built-in recipe exports it.

Operator structure rebuilt from the upstream model description (facts only, own code):
- backbone of Conv2d / BatchNorm2d / ReLU with "small basic blocks" (1x1, 3x1, 1x3, 1x1 convs);
- three nn.MaxPool3d layers with kernel (1, 3, 3) applied to the 4-D feature map, so the
  exported MaxPool carries a 3-D kernel on a 4-D tensor (the channel axis is pooled like a
  depth axis; strides (1,1,1), (2,1,2), (4,1,2));
- four kept feature maps, each AvgPool2d-ed (two of them), squared, divided by its global
  mean (torch.mean without dim -> ReduceMean without axes), concatenated, a 1x1 conv, and a
  mean over the height axis.
Export: opset 12, input 'input' [N,3,24,94] with dynamic batch, output 'output' [N,68,18].
"""
import torch
from torch import nn

OPSET = 12
INPUT_NAMES = ["input"]
OUTPUT_NAMES = ["output"]
DYNAMIC_AXES = {"input": {0: "-1"}, "output": {0: "-1"}}
NUM_CLASSES = 68            # len(CHARS) in the upstream data module (README: output N x 68 x 18)


class _SmallBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        mid = cout // 4
        self.body = nn.Sequential(
            nn.Conv2d(cin, mid, 1), nn.ReLU(),
            nn.Conv2d(mid, mid, (3, 1), padding=(1, 0)), nn.ReLU(),
            nn.Conv2d(mid, mid, (1, 3), padding=(0, 1)), nn.ReLU(),
            nn.Conv2d(mid, cout, 1))

    def forward(self, x):
        return self.body(x)


class LPRNetLike(nn.Module):
    KEEP = (2, 6, 13, 22)

    def __init__(self, num_classes=NUM_CLASSES):
        super().__init__()
        self.stages = nn.ModuleList([
            nn.Conv2d(3, 64, 3), nn.BatchNorm2d(64), nn.ReLU(),                        # 0-2
            nn.MaxPool3d((1, 3, 3), stride=(1, 1, 1)),                                  # 3
            _SmallBlock(64, 128), nn.BatchNorm2d(128), nn.ReLU(),                      # 4-6
            nn.MaxPool3d((1, 3, 3), stride=(2, 1, 2)),                                  # 7
            _SmallBlock(64, 256), nn.BatchNorm2d(256), nn.ReLU(),                      # 8-10
            _SmallBlock(256, 256), nn.BatchNorm2d(256), nn.ReLU(),                     # 11-13
            nn.MaxPool3d((1, 3, 3), stride=(4, 1, 2)),                                  # 14
            nn.Dropout(0.5),                                                            # 15
            nn.Conv2d(64, 256, (1, 4)), nn.BatchNorm2d(256), nn.ReLU(),                # 16-18
            nn.Dropout(0.5),                                                            # 19
            nn.Conv2d(256, num_classes, (13, 1)), nn.BatchNorm2d(num_classes), nn.ReLU(),  # 20-22
        ])
        self.head = nn.Conv2d(448 + num_classes, num_classes, 1)
        self.pool_a = nn.AvgPool2d(5, 5)
        self.pool_b = nn.AvgPool2d((4, 10), (4, 2))

    def forward(self, x):
        kept = []
        for i, layer in enumerate(self.stages):
            x = layer(x)
            if i in self.KEEP:
                kept.append(x)
        ctx = []
        for i, f in enumerate(kept):
            if i < 2:
                f = self.pool_a(f)
            elif i == 2:
                f = self.pool_b(f)
            energy = torch.mean(torch.pow(f, 2))      # global mean, no dim
            ctx.append(torch.div(f, energy))
        x = self.head(torch.cat(ctx, 1))
        return torch.mean(x, dim=2)


def build(variant="upstream"):
    return LPRNetLike().eval()


def example_inputs():
    return (torch.randn(1, 3, 24, 94),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, opset_version=OPSET,
                      input_names=INPUT_NAMES, output_names=OUTPUT_NAMES,
                      dynamic_axes=DYNAMIC_AXES)
