"""DBNet text detector (MhLiao/DB, ic15_resnet50_deform_thre: deformable ResNet-50 + SegDetector)
as the built-in DBNET recipe exports it, with db.diff applied.

Own code reproducing the exported operators:
- ResNet-50 trunk (torchvision layout) whose bottleneck conv2 in layers 2-4 is a modulated
  deformable conv (DCNv2): conv2_offset = Conv2d(planes, 27, 3, padding 1, stride = the block
  stride, as db.diff sets it), offset = first 18 channels, mask = sigmoid of the last 9;
  db.diff's ModulatedDeformConv.forward regroups the 18 offset channels (reshape to
  [N,9,2,H,W], take index 1 then index 0 -> 9 + 9 channels), concatenates the mask (27 channels)
  and calls a function whose ONNX symbolic is the CANN op DeformableConv2D(input, weight,
  offset) with attrs strides, pads, dilations (2 values each), groups and 'defomable_groups'
  (sic); followed by BatchNorm, ReLU;
- SegDetector head (inference path): 1x1 in-convs to 256, nearest x2 upsample + Add top-down,
  3x3 out-convs to 64 with nearest x8/x4/x2 upsampling, Concat, binarize = Conv3x3, BN, ReLU,
  ConvTranspose 2x2 s2, BN, ReLU, ConvTranspose 2x2 s2 to 1, Sigmoid.
There is no exportable upstream variant: upstream DCN is a CUDA extension without an ONNX
symbolic that raises NotImplementedError on CPU.
Export: opset 11, input 'actual_input_1' [N,3,736,1280] dynamic batch, output 'output1'.
DeformableConv2D is in the default ONNX domain, so the ONNX checker rejects the file (the
recipe exports with enable_onnx_checker=False); export() writes it anyway.
"""
import os
import torch
from torch import nn
import torchvision

OPSET = 11
INPUT_NAMES = ["actual_input_1"]
OUTPUT_NAMES = ["output1"]
DYNAMIC_AXES = {"actual_input_1": {0: "-1"}, "output1": {0: "-1"}}


class _DeformableConv2D(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, offset, stride, padding, dilation, groups, dgroups):
        n, _, h, w = x.shape
        oh = (h + 2 * padding - dilation * 2 - 1) // stride + 1
        ow = (w + 2 * padding - dilation * 2 - 1) // stride + 1
        return torch.rand(n, weight.shape[0], oh, ow)      # phony values, shape only

    @staticmethod
    def symbolic(g, x, weight, offset, stride, padding, dilation, groups, dgroups):
        return g.op("DeformableConv2D", x, weight, offset, strides_i=[stride, stride],
                    pads_i=[padding, padding], dilations_i=[dilation, dilation],
                    groups_i=groups, defomable_groups_i=dgroups)


class ModulatedDCN(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.stride = stride
        self.weight = nn.Parameter(torch.randn(cout, cin, 3, 3) * 0.01)
        self.conv2_offset = nn.Conv2d(cin, 27, 3, padding=1, stride=stride)

    def forward(self, x):
        om = self.conv2_offset(x)
        offset = om[:, :18, :, :]
        mask = om[:, -9:, :, :].sigmoid()
        n, c, h, w = int(offset.shape[0]), int(offset.shape[1]), int(offset.shape[2]), int(offset.shape[3])
        pairs = offset.reshape(n, -1, 2, h, w)
        off_x = pairs[:, :, 1, ...].reshape(n, c // 2, h, w)
        off_y = pairs[:, :, 0, ...].reshape(n, c // 2, h, w)
        offset = torch.cat((off_x, off_y, mask), 1)
        return _DeformableConv2D.apply(x, self.weight, offset, self.stride, 1, 1, 1, 1)


class SegDetector(nn.Module):
    def __init__(self, ins=(256, 512, 1024, 2048), c=256):
        super().__init__()
        self.in_convs = nn.ModuleList([nn.Conv2d(i, c, 1, bias=False) for i in ins])
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.outs = nn.ModuleList([
            nn.Conv2d(c, c // 4, 3, padding=1, bias=False),
            nn.Sequential(nn.Conv2d(c, c // 4, 3, padding=1, bias=False), nn.Upsample(scale_factor=2, mode="nearest")),
            nn.Sequential(nn.Conv2d(c, c // 4, 3, padding=1, bias=False), nn.Upsample(scale_factor=4, mode="nearest")),
            nn.Sequential(nn.Conv2d(c, c // 4, 3, padding=1, bias=False), nn.Upsample(scale_factor=8, mode="nearest"))])
        q = c // 4
        self.binarize = nn.Sequential(
            nn.Conv2d(c, q, 3, padding=1, bias=False), nn.BatchNorm2d(q), nn.ReLU(True),
            nn.ConvTranspose2d(q, q, 2, 2), nn.BatchNorm2d(q), nn.ReLU(True),
            nn.ConvTranspose2d(q, 1, 2, 2), nn.Sigmoid())

    def forward(self, feats):
        in2, in3, in4, in5 = [conv(f) for conv, f in zip(self.in_convs, feats)]
        out4 = self.up(in5) + in4
        out3 = self.up(out4) + in3
        out2 = self.up(out3) + in2
        p5, p4, p3, p2 = self.outs[3](in5), self.outs[2](out4), self.outs[1](out3), self.outs[0](out2)
        return self.binarize(torch.cat((p5, p4, p3, p2), 1))


class DBNetLike(nn.Module):
    def __init__(self):
        super().__init__()
        r = torchvision.models.resnet50(weights=None)
        for layer in (r.layer2, r.layer3, r.layer4):
            for block in layer:
                conv = block.conv2
                block.conv2 = ModulatedDCN(conv.in_channels, conv.out_channels, conv.stride[0])
        self.stem = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool)
        self.layers = nn.ModuleList([r.layer1, r.layer2, r.layer3, r.layer4])
        self.decoder = SegDetector()

    def forward(self, x):
        x = self.stem(x)
        feats = []
        for layer in self.layers:
            x = layer(x)
            feats.append(x)
        return self.decoder(feats)


def build(variant="recipe"):
    return DBNetLike().eval()


def example_inputs():
    return (torch.randn(1, 3, 736, 1280),)


def export(path, variant="recipe"):
    torch.manual_seed(0)
    try:
        torch.onnx.export(build(variant), example_inputs(), path, input_names=INPUT_NAMES,
                          dynamic_axes=DYNAMIC_AXES, output_names=OUTPUT_NAMES, opset_version=OPSET)
    except Exception as err:            # CheckerError / onnx ValidationError, depending on build
        if "No Op registered" not in str(err) or not os.path.exists(path):
            raise
