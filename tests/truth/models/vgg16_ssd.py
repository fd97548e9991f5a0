"""VGG16-SSD300 VOC detector (qfgaohao/pytorch-ssd, create_vgg_ssd(21, is_test=True)) as the
built-in recipe exports it, box decoding included.

Operator structure (own code): VGG16 base (3x3 convs + ReLU, MaxPool 2x2, the third pool with
ceil_mode, pool5 3x3 s1 p1, dilated conv6 (d=6), conv7 1x1), a BatchNorm2d on the conv4_3
source, four extra blocks (1x1 conv, 3x3 conv), six pairs of 3x3 class/box heads each
permuted to NHWC and viewed to [N,-1,21] / [N,-1,4], concatenated (8732 priors); test mode
appends Softmax over classes and the SSD decode against a constant prior table
(cxcy = loc[..., :2] * 0.1 * wh_p + cxcy_p, wh = exp(loc[..., 2:] * 0.2) * wh_p, then
corner form = cat(cxcy - wh/2, cxcy + wh/2)).
Export: opset 11, input 'actual_input_1' [N,3,300,300] dynamic batch, outputs 'scores'
[N,8732,21] and 'boxes' [N,8732,4].
"""
import itertools
import math
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
INPUT_NAMES = ["actual_input_1"]
OUTPUT_NAMES = ["scores", "boxes"]
DYNAMIC_AXES = {"actual_input_1": {0: "-1"}, "scores": {0: "-1"}, "boxes": {0: "-1"}}
SPECS = [(38, 8, (30, 60), [2]), (19, 16, (60, 111), [2, 3]), (10, 32, (111, 162), [2, 3]),
         (5, 64, (162, 213), [2, 3]), (3, 100, (213, 264), [2]), (1, 300, (264, 315), [2])]


def make_priors(image_size=300):
    out = []
    for fm, shrink, (smin, smax), ratios in SPECS:
        scale = image_size / shrink
        for j, i in itertools.product(range(fm), repeat=2):
            cx, cy = (i + 0.5) / scale, (j + 0.5) / scale
            out.append([cx, cy, smin / image_size, smin / image_size])
            s = math.sqrt(smax * smin) / image_size
            out.append([cx, cy, s, s])
            w = smin / image_size
            for r in ratios:
                r = math.sqrt(r)
                out += [[cx, cy, w * r, w / r], [cx, cy, w / r, w * r]]
    return torch.tensor(out).clamp(0.0, 1.0)


def vgg_layers():
    cfg = [64, 64, 'M', 128, 128, 'M', 256, 256, 256, 'C', 512, 512, 512, 'M', 512, 512, 512]
    layers, cin = [], 3
    for v in cfg:
        if v == 'M':
            layers.append(nn.MaxPool2d(2, 2))
        elif v == 'C':
            layers.append(nn.MaxPool2d(2, 2, ceil_mode=True))
        else:
            layers += [nn.Conv2d(cin, v, 3, padding=1), nn.ReLU(inplace=True)]
            cin = v
    layers += [nn.MaxPool2d(3, 1, 1), nn.Conv2d(512, 1024, 3, padding=6, dilation=6),
               nn.ReLU(inplace=True), nn.Conv2d(1024, 1024, 1), nn.ReLU(inplace=True)]
    return layers


class VGGSSD(nn.Module):
    def __init__(self, num_classes=21):
        super().__init__()
        self.num_classes = num_classes
        self.base_net = nn.ModuleList(vgg_layers())
        self.src_bn = nn.BatchNorm2d(512)
        ex = [(1024, 256, 512, 2, 1), (512, 128, 256, 2, 1), (256, 128, 256, 1, 0), (256, 128, 256, 1, 0)]
        self.extras = nn.ModuleList([nn.Sequential(nn.Conv2d(a, b, 1), nn.ReLU(), nn.Conv2d(b, c, 3, stride=s, padding=p),
                                                   nn.ReLU()) for a, b, c, s, p in ex])
        chans, anchors = [512, 1024, 512, 256, 256, 256], [4, 6, 6, 6, 4, 4]
        self.cls = nn.ModuleList([nn.Conv2d(c, a * num_classes, 3, padding=1) for c, a in zip(chans, anchors)])
        self.reg = nn.ModuleList([nn.Conv2d(c, a * 4, 3, padding=1) for c, a in zip(chans, anchors)])
        self.register_buffer("priors", make_priors())

    def _head(self, i, x):
        c = self.cls[i](x).permute(0, 2, 3, 1).contiguous()
        c = c.view(c.size(0), -1, self.num_classes)
        r = self.reg[i](x).permute(0, 2, 3, 1).contiguous()
        return c, r.view(r.size(0), -1, 4)

    def forward(self, x):
        confs, locs = [], []
        for layer in self.base_net[:23]:
            x = layer(x)
        c, r = self._head(0, self.src_bn(x)); confs.append(c); locs.append(r)
        for layer in self.base_net[23:]:
            x = layer(x)
        c, r = self._head(1, x); confs.append(c); locs.append(r)
        for k, layer in enumerate(self.extras):
            x = layer(x)
            c, r = self._head(k + 2, x); confs.append(c); locs.append(r)
        conf = F.softmax(torch.cat(confs, 1), dim=2)
        loc = torch.cat(locs, 1)
        p = self.priors.unsqueeze(0)
        boxes = torch.cat([loc[..., :2] * 0.1 * p[..., 2:] + p[..., :2],
                           torch.exp(loc[..., 2:] * 0.2) * p[..., 2:]], dim=loc.dim() - 1)
        boxes = torch.cat([boxes[..., :2] - boxes[..., 2:] / 2,
                           boxes[..., :2] + boxes[..., 2:] / 2], boxes.dim() - 1)
        return conf, boxes


def build(variant="upstream"):
    return VGGSSD().eval()


def example_inputs():
    return (torch.randn(1, 3, 300, 300),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, verbose=False, input_names=INPUT_NAMES,
                      output_names=OUTPUT_NAMES, dynamic_axes=DYNAMIC_AXES, opset_version=OPSET)
