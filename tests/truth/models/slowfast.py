"""SlowFast R50 8x8 (mmaction2 slowfast_r50_8x8x1_256e_kinetics400_rgb, Kinetics-400) as the contrib
recipe exports it with slowfast_pth2onnx.py (Recognizer3D.forward_dummy --softmax).

Operator structure (own code, mmaction2 ResNet3dSlowFast conventions):
- input [N,1,3,32,224,224] reshaped to [N,3,32,224,224];
- pathway inputs: variant "upstream" (default) = F.interpolate(x, mode='nearest',
  scale_factor=(1/8, 1, 1)) for the slow path and (1/1, 1, 1) for the fast path (5-D nearest
  Resize); variant "recipe" = slowfast.patch: x.index_select(2, torch.arange(0, t, step));
- slow stem Conv3d (1,7,7) stride (1,2,2) 64 ch, fast stem Conv3d (5,7,7) 8 ch, each BN3d +
  ReLU + MaxPool3d (1,3,3) stride (1,2,2);
- lateral connections (after the stem and after stages 1-3): Conv3d (7,1,1) stride (8,1,1)
  from the fast path (2x its channels, no norm/activation) concatenated to the slow path;
- bottleneck stages: slow path temporal kernel 3 (inflated) only in stages 3 and 4, fast path
  in all; spatial stride 2 from stage 2; depths reduced from 3,4,6,3 to 2,2,2,2 (same ops);
- SlowFastHead: AdaptiveAvgPool3d(1) on each path, Concat, dropout, flatten, Linear 400;
  forward_dummy's --softmax adds Softmax.
Export: opset 11, input 'video' [N,1,3,32,224,224] dynamic batch, output 'class',
keep_initializers_as_inputs=True (the recipe's script).
"""
import torch
from torch import nn

OPSET = 11
INPUT_NAMES = ["video"]
OUTPUT_NAMES = ["class"]
DYNAMIC_AXES = {"video": {0: "-1"}, "class": {0: "-1"}}
DEPTHS = [2, 2, 2, 2]          # upstream ResNet-50: 3, 4, 6, 3
RESAMPLE_RATE, SPEED_RATIO, FUSION_KERNEL = 8, 8, 7


class Bottleneck3d(nn.Module):
    expansion = 4

    def __init__(self, cin, planes, stride, t_kernel):
        super().__init__()
        out = planes * 4
        self.conv1 = nn.Sequential(nn.Conv3d(cin, planes, (t_kernel, 1, 1), padding=(t_kernel // 2, 0, 0),
                                             bias=False), nn.BatchNorm3d(planes), nn.ReLU(True))
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


def _stage(cin, planes, depth, stride, t_kernel):
    blocks = [Bottleneck3d(cin, planes, stride, t_kernel)]
    blocks += [Bottleneck3d(planes * 4, planes, 1, t_kernel) for _ in range(depth - 1)]
    return nn.Sequential(*blocks)


def _lateral(c):
    return nn.Conv3d(c, 2 * c, (FUSION_KERNEL, 1, 1), stride=(SPEED_RATIO, 1, 1),
                     padding=((FUSION_KERNEL - 1) // 2, 0, 0), bias=False)


class SlowFast(nn.Module):
    def __init__(self, patched=False, num_classes=400):
        super().__init__()
        self.patched = patched
        self.slow_stem = nn.Sequential(nn.Conv3d(3, 64, (1, 7, 7), stride=(1, 2, 2), padding=(0, 3, 3), bias=False),
                                       nn.BatchNorm3d(64), nn.ReLU(True),
                                       nn.MaxPool3d((1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)))
        self.fast_stem = nn.Sequential(nn.Conv3d(3, 8, (5, 7, 7), stride=(1, 2, 2), padding=(2, 3, 3), bias=False),
                                       nn.BatchNorm3d(8), nn.ReLU(True),
                                       nn.MaxPool3d((1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)))
        self.laterals = nn.ModuleList([_lateral(8), _lateral(32), _lateral(64), _lateral(128)])
        slow, fast = [], []
        s_in, f_in = 64 + 16, 8
        for i, (sp, fp) in enumerate(zip([64, 128, 256, 512], [8, 16, 32, 64])):
            stride = 1 if i == 0 else 2
            slow.append(_stage(s_in, sp, DEPTHS[i], stride, 3 if i >= 2 else 1))
            fast.append(_stage(f_in, fp, DEPTHS[i], stride, 3))
            f_in = fp * 4
            s_in = sp * 4 + (2 * f_in if i < 3 else 0)
        self.slow_layers, self.fast_layers = nn.ModuleList(slow), nn.ModuleList(fast)
        self.pool_slow = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.pool_fast = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.dropout = nn.Dropout(0.5)
        self.fc_cls = nn.Linear(2048 + 256, num_classes)

    def forward(self, imgs):
        x = imgs.reshape((-1,) + imgs.shape[2:])
        if self.patched:
            t = x.size(2)
            x_slow = x.index_select(2, torch.arange(0, t, RESAMPLE_RATE))
            x_fast = x.index_select(2, torch.arange(0, t, RESAMPLE_RATE // SPEED_RATIO))
        else:
            x_slow = nn.functional.interpolate(x, mode="nearest", scale_factor=(1.0 / RESAMPLE_RATE, 1.0, 1.0))
            x_fast = nn.functional.interpolate(
                x, mode="nearest", scale_factor=(1.0 / (RESAMPLE_RATE // SPEED_RATIO), 1.0, 1.0))
        x_slow, x_fast = self.slow_stem(x_slow), self.fast_stem(x_fast)
        x_slow = torch.cat((x_slow, self.laterals[0](x_fast)), dim=1)
        for i in range(4):
            x_slow, x_fast = self.slow_layers[i](x_slow), self.fast_layers[i](x_fast)
            if i < 3:
                x_slow = torch.cat((x_slow, self.laterals[i + 1](x_fast)), dim=1)
        x = torch.cat((self.pool_slow(x_slow), self.pool_fast(x_fast)), dim=1)
        x = self.fc_cls(self.dropout(x).view(x.size(0), -1))
        return nn.functional.softmax(x, dim=1)


def build(variant="upstream"):
    return SlowFast(patched=(variant == "recipe")).eval()


def example_inputs():
    return (torch.randn(1, 1, 3, 32, 224, 224),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=INPUT_NAMES,
                      output_names=OUTPUT_NAMES, dynamic_axes=DYNAMIC_AXES, export_params=True,
                      keep_initializers_as_inputs=True, opset_version=OPSET)
