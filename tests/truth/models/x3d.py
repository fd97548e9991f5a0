"""X3D-S video classifier (facebookresearch/SlowFast, configs/Kinetics/X3D_S.yaml, Kinetics-400)
as the contrib recipe exports it (input [N,3,13,182,182], test crop 182, 13 frames).

Operator structure (own code, SlowFast conventions):
- X3DStem: Conv3d (1,3,3) stride (1,2,2) -> depthwise Conv3d (5,1,1) -> BN3d -> ReLU (24 ch);
- four stages of X3DTransform residual blocks: 1x1x1 Conv3d -> BN -> ReLU -> channel-wise
  (groups = channels) Conv3d (3,3,3), spatial stride 2 in the first block of a stage -> BN ->
  SE on every other block (AdaptiveAvgPool3d(1), 1x1x1 conv, ReLU, 1x1x1 conv, Sigmoid, Mul) ->
  Swish -> 1x1x1 Conv3d -> BN; first block adds a strided 1x1x1 conv + BN shortcut; Add, ReLU.
  Widths 24/48/96/192, inner x2.25; depths reduced from 3,5,11,7 to 2,2,3,2 (same operators);
- X3DHead: 1x1x1 conv to 432 -> BN -> ReLU -> AvgPool3d kernel [13,5,5] stride 1 (pool size
  from TRAIN_CROP_SIZE 160 although the test crop is 182, so the map stays 1x2x2) -> 1x1x1 conv
  to 2048 -> ReLU -> permute (0,2,3,4,1) -> Linear 400 -> Softmax(dim=4) -> mean over
  [1,2,3] -> view.
variant="upstream" (default): Swish is SlowFast's SwishEfficient autograd.Function (no ONNX
  symbolic; torch 1.13 traces through its forward).
variant="recipe": x3d.patch - Swish written as x * torch.sigmoid(x).
Export: opset 11, input 'image' [N,3,13,182,182] dynamic batch, output 'class'.
"""
import math
import torch
from torch import nn

OPSET = 11
INPUT_NAMES = ["image"]
OUTPUT_NAMES = ["class"]
DYNAMIC_AXES = {"image": {0: "-1"}, "class": {0: "-1"}}
DEPTHS = [2, 2, 3, 2]          # upstream ceil(2.2 * [1, 2, 5, 3]) = [3, 5, 11, 7]


class _SwishFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad):
        x = ctx.saved_tensors[0]
        s = torch.sigmoid(x)
        return grad * (s * (1 + x * (1 - s)))


class Swish(nn.Module):
    def __init__(self, patched):
        super().__init__()
        self.patched = patched

    def forward(self, x):
        if self.patched:
            return x * torch.sigmoid(x)
        return _SwishFn.apply(x)


def _se_width(c, ratio=0.0625, divisor=8):
    w = c * ratio
    out = max(divisor, int(w + divisor / 2) // divisor * divisor)
    return out + divisor if out < 0.9 * w else out


class SE(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.avg_pool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.fc1 = nn.Conv3d(c, _se_width(c), 1)
        self.fc1_act = nn.ReLU()
        self.fc2 = nn.Conv3d(_se_width(c), c, 1)
        self.fc2_sig = nn.Sigmoid()

    def forward(self, x):
        return x * self.fc2_sig(self.fc2(self.fc1_act(self.fc1(self.avg_pool(x)))))


class X3DBlock(nn.Module):
    def __init__(self, cin, cout, inner, stride, idx, patched):
        super().__init__()
        layers = [nn.Conv3d(cin, inner, 1, bias=False), nn.BatchNorm3d(inner), nn.ReLU(True),
                  nn.Conv3d(inner, inner, (3, 3, 3), stride=(1, stride, stride), padding=1,
                            groups=inner, bias=False), nn.BatchNorm3d(inner)]
        if (idx + 1) % 2:
            layers.append(SE(inner))
        layers += [Swish(patched), nn.Conv3d(inner, cout, 1, bias=False), nn.BatchNorm3d(cout)]
        self.branch2 = nn.Sequential(*layers)
        self.branch1 = None
        if cin != cout or stride != 1:
            self.branch1 = nn.Sequential(nn.Conv3d(cin, cout, 1, stride=(1, stride, stride), bias=False),
                                         nn.BatchNorm3d(cout))
        self.relu = nn.ReLU(True)

    def forward(self, x):
        f = self.branch2(x)
        x = self.branch1(x) + f if self.branch1 is not None else x + f
        return self.relu(x)


class X3DLike(nn.Module):
    def __init__(self, patched=False, num_classes=400, frames=13, train_crop=160):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv3d(3, 24, (1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1), bias=False),
            nn.Conv3d(24, 24, (5, 1, 1), padding=(2, 0, 0), groups=24, bias=False),
            nn.BatchNorm3d(24), nn.ReLU(True))
        blocks, cin = [], 24
        for cout, depth in zip([24, 48, 96, 192], DEPTHS):
            inner = int(2.25 * cout)
            for i in range(depth):
                blocks.append(X3DBlock(cin, cout, inner, 2 if i == 0 else 1, i, patched))
                cin = cout
        self.stages = nn.Sequential(*blocks)
        inner = int(2.25 * 192)
        spat = int(math.ceil(train_crop / 32.0))
        self.conv_5 = nn.Sequential(nn.Conv3d(192, inner, 1, bias=False), nn.BatchNorm3d(inner), nn.ReLU(True))
        self.avg_pool = nn.AvgPool3d([frames, spat, spat], stride=1)
        self.lin_5 = nn.Conv3d(inner, 2048, 1, bias=False)
        self.lin_5_relu = nn.ReLU(True)
        self.dropout = nn.Dropout(0.5)
        self.projection = nn.Linear(2048, num_classes)
        self.act = nn.Softmax(dim=4)

    def forward(self, x):
        x = self.stages(self.stem(x))
        x = self.lin_5_relu(self.lin_5(self.avg_pool(self.conv_5(x))))
        x = self.projection(self.dropout(x.permute((0, 2, 3, 4, 1))))
        x = self.act(x).mean([1, 2, 3])
        return x.view(x.shape[0], -1)


def build(variant="upstream"):
    return X3DLike(patched=(variant == "recipe")).eval()


def example_inputs():
    return (torch.randn(1, 3, 13, 182, 182),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=INPUT_NAMES,
                      dynamic_axes=DYNAMIC_AXES, output_names=OUTPUT_NAMES, opset_version=OPSET)
