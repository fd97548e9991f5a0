"""DEKR HRNet-W32 bottom-up pose estimator (HRNet/DEKR, commit 7a303139, config
w32_4x_reg03_bs10_512_adam_lr1e-3_coco_x140) as ACL_PyTorch/contrib/cv/pose_estimation/DEKR exports it after DEKR.patch:
DEKR_pth2onnx.py, opset 11, input 'image' [1, 3, 512, 512], outputs 'heatmap' and 'offset', dynamic_axes=None (a static
graph), enable_onnx_checker=False.

Own code with the model's operators: HRNet stem (two 3x3 s2 convs), layer1 (Bottlenecks to 256), transitions and
three multi-resolution stages of BasicBlocks (W32: 32/64/128/256 channels) whose fuse layers add 1x1 conv + BN +
nearest Upsample (x2, x4, x8) from lower resolutions and chains of 3x3 s2 convs from higher ones; the four branches
bilinearly upsampled (F.upsample, size of branch 0) and concatenated (480 channels); the heatmap head (1x1 conv to 32,
one BasicBlock, 1x1 conv to 17 joints + centre = 18) and the offset head (1x1 conv to 17 x 15 channels, then per joint a
15-channel slice, two AdaptBlocks and a 1x1 conv to 2; concatenated to 34). An AdaptBlock predicts a 2x2 transform per
pixel (3x3 conv to 4, permute, reshape to [N*H*W, 2, 2], matmul with the 2x9 regular grid, minus the grid, transpose,
reshape to [N, H, W, 18], permute) and a translation (3x3 conv to 2), adds the translation to the x / y offsets, runs a
3x3 deformable conv with those offsets, BN, residual add and ReLU.
Reduced: each stage has one module (upstream 1 / 4 / 3) and each branch 2 BasicBlocks (upstream 4); widths are W32's.

Variants:
- `recipe` (default): DEKR.patch: the translation added as torch.cat of nine copies (one Add), the offsets regrouped
  as [y offsets (odd channels), x offsets (even channels), a ones mask] and the deformable conv exported through an
  autograd.Function whose symbolic emits DeformableConv2D(input, weight, offset; strides, pads, dilations, groups,
  deformable_groups) in the default ONNX domain. torch 1.13's checker refuses that domain after the file is written
  (the recipe's torch 1.8 export passed enable_onnx_checker=False); export() swallows exactly that error.
- `upstream`: strided in-place adds offset[:, 0::2] += t[:, 0:1], offset[:, 1::2] += t[:, 1:2] and
  torchvision.ops.DeformConv2d - does NOT export (torchvision 0.9 .. 0.14 register no ONNX symbolic for
  torchvision::deform_conv2d).
"""
import os

import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
JOINTS, PER_KPT = 17, 15
STAGES = [[32, 64], [32, 64, 128], [32, 64, 128, 256]]
BLOCKS = 2


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        idt = x if self.downsample is None else self.downsample(x)
        y = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(y)) + idt)


class Bottleneck(nn.Module):
    def __init__(self, cin, planes, downsample=None):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(cin, planes, 1, bias=False), nn.BatchNorm2d(planes), nn.ReLU(inplace=True),
            nn.Conv2d(planes, planes, 3, 1, 1, bias=False), nn.BatchNorm2d(planes), nn.ReLU(inplace=True),
            nn.Conv2d(planes, planes * 4, 1, bias=False), nn.BatchNorm2d(planes * 4))
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        idt = x if self.downsample is None else self.downsample(x)
        return self.relu(self.body(x) + idt)


class DeformableConv2DOp(torch.autograd.Function):
    """The recipe's export path: a placeholder forward for tracing, DeformableConv2D as the symbolic."""

    @staticmethod
    def forward(ctx, x, offset, weight, stride, padding, dilation, groups, deform_groups):
        # plain ints: arithmetic on traced sizes inside the Function breaks torch 1.13's peephole pass
        n, h, w, k = int(x.shape[0]), int(x.shape[2]), int(x.shape[3]), int(weight.shape[2])
        oh = (h + 2 * padding - (dilation * (k - 1) + 1)) // stride + 1
        ow = (w + 2 * padding - (dilation * (k - 1) + 1)) // stride + 1
        return torch.zeros(n, int(weight.shape[0]), oh, ow)

    @staticmethod
    def symbolic(g, x, offset, weight, stride, padding, dilation, groups, deform_groups):
        return g.op("DeformableConv2D", x, weight, offset, strides_i=[stride, stride], pads_i=[padding, padding],
                    dilations_i=dilation, groups_i=groups, deformable_groups_i=deform_groups)


class AdaptBlock(nn.Module):
    def __init__(self, ch, upstream):
        super().__init__()
        self.upstream = upstream
        self.register_buffer("regular_matrix", torch.tensor([[-1, -1, -1, 0, 0, 0, 1, 1, 1],
                                                              [-1, 0, 1, -1, 0, 1, -1, 0, 1]]).float())
        self.transform_matrix_conv = nn.Conv2d(ch, 4, 3, 1, 1, bias=True)
        self.translation_conv = nn.Conv2d(ch, 2, 3, 1, 1, bias=True)
        if upstream:
            import torchvision
            self.adapt_conv = torchvision.ops.DeformConv2d(ch, ch, 3, 1, 1, 1, bias=False, groups=1)
        else:
            self.adapt_conv = nn.Conv2d(ch, ch, 3, 1, 1, bias=False)   # holds the weight only
        self.bn = nn.BatchNorm2d(ch)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        n, _, h, w = x.shape
        t = self.transform_matrix_conv(x).permute(0, 2, 3, 1).reshape((n * h * w, 2, 2))
        offset = torch.matmul(t, self.regular_matrix) - self.regular_matrix
        offset = offset.transpose(1, 2).reshape((n, h, w, 18)).permute(0, 3, 1, 2)
        translation = self.translation_conv(x)
        if self.upstream:
            offset[:, 0::2, :, :] += translation[:, 0:1, :, :]
            offset[:, 1::2, :, :] += translation[:, 1:2, :, :]
            out = self.adapt_conv(x, offset)
        else:
            offset += torch.cat([translation] * 9, dim=1)
            mask = torch.ones(offset.size(0), offset.size(1) // 2, offset.size(2), offset.size(3)).float()
            offset = torch.cat([offset[:, 1::2, :, :], offset[:, 0::2, :, :], mask], dim=1)
            out = DeformableConv2DOp.apply(x, offset, self.adapt_conv.weight, 1, 1, 1, 1, 1)
        return self.relu(self.bn(out) + x)


class HRModule(nn.Module):
    def __init__(self, channels):
        super().__init__()
        nb = len(channels)
        self.branches = nn.ModuleList(
            nn.Sequential(*[BasicBlock(c, c) for _ in range(BLOCKS)]) for c in channels)
        self.fuse = nn.ModuleList()
        for i in range(nb):
            row = nn.ModuleList()
            for j in range(nb):
                if j > i:
                    row.append(nn.Sequential(nn.Conv2d(channels[j], channels[i], 1, bias=False),
                                             nn.BatchNorm2d(channels[i]),
                                             nn.Upsample(scale_factor=2 ** (j - i), mode="nearest")))
                elif j == i:
                    row.append(nn.Identity())
                else:
                    convs = []
                    for k in range(i - j):
                        last = k == i - j - 1
                        cout = channels[i] if last else channels[j]
                        convs += [nn.Conv2d(channels[j], cout, 3, 2, 1, bias=False), nn.BatchNorm2d(cout)]
                        if not last:
                            convs.append(nn.ReLU(inplace=True))
                    row.append(nn.Sequential(*convs))
            self.fuse.append(row)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, xs):
        xs = [b(x) for b, x in zip(self.branches, xs)]
        out = []
        for i, row in enumerate(self.fuse):
            y = xs[0] if i == 0 else row[0](xs[0])
            for j in range(1, len(xs)):
                y = y + (xs[j] if i == j else row[j](xs[j]))
            out.append(self.relu(y))
        return out


def conv_bn_relu(cin, cout, k=3, s=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, k // 2, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class DEKR(nn.Module):
    def __init__(self, upstream=False):
        super().__init__()
        self.stem = nn.Sequential(conv_bn_relu(3, 64, 3, 2), conv_bn_relu(64, 64, 3, 2))
        down = nn.Sequential(nn.Conv2d(64, 256, 1, bias=False), nn.BatchNorm2d(256))
        self.layer1 = nn.Sequential(Bottleneck(64, 64, down), *[Bottleneck(256, 64) for _ in range(3)])
        self.transitions = nn.ModuleList()
        self.stages = nn.ModuleList()
        prev = [256]
        for chans in STAGES:
            tr = nn.ModuleList()
            for i, c in enumerate(chans):
                if i < len(prev):
                    tr.append(conv_bn_relu(prev[i], c) if prev[i] != c else nn.Identity())
                else:
                    tr.append(conv_bn_relu(prev[-1], c, 3, 2))
            self.transitions.append(tr)
            self.stages.append(HRModule(chans))
            prev = chans
        cat = sum(STAGES[-1])
        self.transition_heatmap = conv_bn_relu(cat, 32, 1)
        self.head_heatmap = nn.Sequential(BasicBlock(32, 32), nn.Conv2d(32, JOINTS + 1, 1))
        self.transition_offset = conv_bn_relu(cat, JOINTS * PER_KPT, 1)
        self.offset_feature_layers = nn.ModuleList(
            nn.Sequential(AdaptBlock(PER_KPT, upstream), AdaptBlock(PER_KPT, upstream)) for _ in range(JOINTS))
        self.offset_final_layer = nn.ModuleList(nn.Conv2d(PER_KPT, 2, 1) for _ in range(JOINTS))

    def forward(self, x):
        ys = [self.layer1(self.stem(x))]
        for tr, st in zip(self.transitions, self.stages):
            xs = [t(ys[i] if i < len(ys) else ys[-1]) for i, t in enumerate(tr)]
            ys = st(xs)
        h, w = ys[0].size(2), ys[0].size(3)
        x = torch.cat([ys[0]] + [F.upsample(y, size=(h, w), mode="bilinear") for y in ys[1:]], 1)
        heatmap = self.head_heatmap(self.transition_heatmap(x))
        feat = self.transition_offset(x)
        offsets = [self.offset_final_layer[j](self.offset_feature_layers[j](feat[:, j * PER_KPT:(j + 1) * PER_KPT]))
                   for j in range(JOINTS)]
        return heatmap, torch.cat(offsets, dim=1)


def build(variant="recipe"):
    return DEKR(upstream=(variant == "upstream")).eval()


def example_inputs():
    return (torch.randn(1, 3, 512, 512),)


def export(path, variant="recipe"):
    torch.manual_seed(0)
    try:
        torch.onnx.export(build(variant), example_inputs(), path, input_names=["image"],
                          output_names=["heatmap", "offset"], dynamic_axes=None, opset_version=OPSET)
    except Exception as err:            # the checker refuses DeformableConv2D in the default domain
        if "No Op registered" not in str(err) or not os.path.exists(path):
            raise
