"""SSD MobileNetV1 300 VOC detector (qfgaohao/pytorch-ssd, create_mobilenetv1_ssd(21, is_test=True)) as the
contrib SSD-MobileNetV1 recipe exports it, box decoding included.

Operator structure (own code): MobileNetV1 trunk (conv_bn 3x3 s2, then 13 depthwise-separable blocks: 3x3 depthwise
conv + BN + ReLU, 1x1 conv + BN + ReLU), heads on the output of block 12 (512 ch, 19x19) and block 14 (1024 ch,
10x10), four extra blocks (1x1 conv, ReLU, 3x3 s2 conv, ReLU), six pairs of 3x3 class/box heads (6 anchors) each
permuted to NHWC and viewed to [N,-1,21] / [N,-1,4], concatenated (3000 priors); test mode appends Softmax over
classes and the SSD decode against a constant prior table, then corner form.
Export: opset 11, input 'image' [N,3,300,300] dynamic batch, outputs 'scores' [N,3000,21] and 'boxes' [N,3000,4].
"""
import itertools
import math
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
INPUT_NAMES = ["image"]
OUTPUT_NAMES = ["scores", "boxes"]
DYNAMIC_AXES = {"image": {0: "-1"}, "scores": {0: "-1"}, "boxes": {0: "-1"}}
SPECS = [(19, 16, (60, 105)), (10, 32, (105, 150)), (5, 64, (150, 195)), (3, 100, (195, 240)),
         (2, 150, (240, 285)), (1, 300, (285, 330))]


def make_priors(image_size=300):
    out = []
    for fm, shrink, (smin, smax) in SPECS:
        scale = image_size / shrink
        for j, i in itertools.product(range(fm), repeat=2):
            cx, cy = (i + 0.5) / scale, (j + 0.5) / scale
            out.append([cx, cy, smin / image_size, smin / image_size])
            s = math.sqrt(smax * smin) / image_size
            out.append([cx, cy, s, s])
            w = smin / image_size
            for r in (2, 3):
                r = math.sqrt(r)
                out += [[cx, cy, w * r, w / r], [cx, cy, w / r, w * r]]
    return torch.tensor(out).clamp(0.0, 1.0)


def conv_bn(inp, oup, stride):
    return nn.Sequential(nn.Conv2d(inp, oup, 3, stride, 1, bias=False), nn.BatchNorm2d(oup), nn.ReLU(inplace=True))


def conv_dw(inp, oup, stride):
    return nn.Sequential(nn.Conv2d(inp, inp, 3, stride, 1, groups=inp, bias=False), nn.BatchNorm2d(inp),
                         nn.ReLU(inplace=True),
                         nn.Conv2d(inp, oup, 1, 1, 0, bias=False), nn.BatchNorm2d(oup), nn.ReLU(inplace=True))


def mobilenet_v1():
    cfg = [(32, 64, 1), (64, 128, 2), (128, 128, 1), (128, 256, 2), (256, 256, 1), (256, 512, 2)] + \
          [(512, 512, 1)] * 5 + [(512, 1024, 2), (1024, 1024, 1)]
    return nn.Sequential(conv_bn(3, 32, 2), *[conv_dw(a, b, s) for a, b, s in cfg])


class MobileNetV1SSD(nn.Module):
    def __init__(self, num_classes=21):
        super().__init__()
        self.num_classes = num_classes
        self.base_net = mobilenet_v1()
        self.source_layer_indexes = [12, 14]
        ex = [(1024, 256, 512), (512, 128, 256), (256, 128, 256), (256, 128, 256)]
        self.extras = nn.ModuleList([nn.Sequential(nn.Conv2d(a, b, 1), nn.ReLU(), nn.Conv2d(b, c, 3, stride=2, padding=1),
                                                   nn.ReLU()) for a, b, c in ex])
        chans = [512, 1024, 512, 256, 256, 256]
        self.cls = nn.ModuleList([nn.Conv2d(c, 6 * num_classes, 3, padding=1) for c in chans])
        self.reg = nn.ModuleList([nn.Conv2d(c, 6 * 4, 3, padding=1) for c in chans])
        self.register_buffer("priors", make_priors())

    def _head(self, i, x):
        c = self.cls[i](x).permute(0, 2, 3, 1).contiguous()
        c = c.view(c.size(0), -1, self.num_classes)
        r = self.reg[i](x).permute(0, 2, 3, 1).contiguous()
        return c, r.view(r.size(0), -1, 4)

    def forward(self, x):
        confs, locs = [], []
        start, k = 0, 0
        for end in self.source_layer_indexes:
            for layer in self.base_net[start:end]:
                x = layer(x)
            start = end
            c, r = self._head(k, x); confs.append(c); locs.append(r); k += 1
        for layer in self.base_net[start:]:
            x = layer(x)
        for layer in self.extras:
            x = layer(x)
            c, r = self._head(k, x); confs.append(c); locs.append(r); k += 1
        conf = F.softmax(torch.cat(confs, 1), dim=2)
        loc = torch.cat(locs, 1)
        p = self.priors.unsqueeze(0)
        boxes = torch.cat([loc[..., :2] * 0.1 * p[..., 2:] + p[..., :2],
                           torch.exp(loc[..., 2:] * 0.2) * p[..., 2:]], dim=loc.dim() - 1)
        boxes = torch.cat([boxes[..., :2] - boxes[..., 2:] / 2,
                           boxes[..., :2] + boxes[..., 2:] / 2], boxes.dim() - 1)
        return conf, boxes


def build(variant="upstream"):
    return MobileNetV1SSD().eval()


def example_inputs():
    return (torch.randn(1, 3, 300, 300),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, verbose=False, input_names=INPUT_NAMES,
                      output_names=OUTPUT_NAMES, dynamic_axes=DYNAMIC_AXES, opset_version=OPSET)
