"""RefineDet320 VGG16 VOC detector (luuuyi/RefineDet.PyTorch, build_refinedet('test', 320, 21)) after the contrib
RefineDet recipe's refinedet.patch: the test forward returns the raw ARM / ODM outputs and the prior table instead of
calling Detect_RefineDet (a legacy autograd.Function with Python NMS, which does not export).

Operator structure (own code, full widths): VGG16 (3x3 convs + ReLU, 2x2 pools, the third with ceil_mode, pool5 2x2,
conv6 3x3 dilation 3, conv7 1x1), L2Norm on conv4_3 (scale 10) and conv5_3 (scale 8):
x / (sqrt(sum(x^2, dim 1, keepdim)) + 1e-10) * weight[None, :, None, None].expand_as(x); extras (1x1 1024->256,
3x3 s2 256->512); ARM heads (3 anchors: 12 loc / 6 conf channels) on the four sources; transfer connection blocks from
the top (conv3x3-ReLU-conv3x3, + ConvTranspose2d(256, 256, 2, 2) of the upper TCB output, ReLU-conv3x3-ReLU); ODM heads
(12 loc / 63 conf); permute / view / cat; outputs view(N,-1,4), Softmax(view(N,-1,2)), view(N,-1,4),
Softmax(view(N,-1,21)) and the constant 6375x4 prior table.
Export: opset 11, input 'image' [N,3,320,320] dynamic batch, outputs arm_loc_data, arm_conf_data, odm_loc_data,
odm_conf_data, prior_data (all with a dynamic axis 0, as the recipe's script declares).
"""
import itertools
import math
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
INPUT_NAMES = ["image"]
OUTPUT_NAMES = ["arm_loc_data", "arm_conf_data", "odm_loc_data", "odm_conf_data", "prior_data"]
DYNAMIC_AXES = {n: {0: "-1"} for n in INPUT_NAMES + OUTPUT_NAMES}
# voc_refinedet['320']: feature maps, steps, min sizes, aspect ratio 2
FEATURE_MAPS, STEPS, MIN_SIZES = [40, 20, 10, 5], [8, 16, 32, 64], [32, 64, 128, 256]


def make_priors(image_size=320):
    out = []
    for f, step, ms in zip(FEATURE_MAPS, STEPS, MIN_SIZES):
        for i, j in itertools.product(range(f), repeat=2):
            fk = image_size / step
            cx, cy = (j + 0.5) / fk, (i + 0.5) / fk
            s = ms / image_size
            out += [[cx, cy, s, s], [cx, cy, s * math.sqrt(2), s / math.sqrt(2)],
                    [cx, cy, s / math.sqrt(2), s * math.sqrt(2)]]
    return torch.tensor(out).clamp(0.0, 1.0)


class L2Norm(nn.Module):
    def __init__(self, n, scale):
        super().__init__()
        self.eps = 1e-10
        self.weight = nn.Parameter(torch.full((n,), float(scale)))

    def forward(self, x):
        norm = x.pow(2).sum(dim=1, keepdim=True).sqrt() + self.eps
        x = torch.div(x, norm)
        return self.weight.unsqueeze(0).unsqueeze(2).unsqueeze(3).expand_as(x) * x


def vgg():
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
    layers += [nn.MaxPool2d(2, 2, 0), nn.Conv2d(512, 1024, 3, padding=3, dilation=3), nn.ReLU(inplace=True),
               nn.Conv2d(1024, 1024, 1), nn.ReLU(inplace=True)]
    return layers


class RefineDet(nn.Module):
    def __init__(self, num_classes=21):
        super().__init__()
        self.num_classes = num_classes
        self.register_buffer("priors", make_priors())
        self.vgg = nn.ModuleList(vgg())
        self.conv4_3_L2Norm = L2Norm(512, 10)
        self.conv5_3_L2Norm = L2Norm(512, 8)
        self.extras = nn.ModuleList([nn.Conv2d(1024, 256, 1), nn.Conv2d(256, 512, 3, stride=2, padding=1)])
        src = [512, 512, 1024, 512]
        self.arm_loc = nn.ModuleList([nn.Conv2d(c, 12, 3, padding=1) for c in src])
        self.arm_conf = nn.ModuleList([nn.Conv2d(c, 6, 3, padding=1) for c in src])
        self.odm_loc = nn.ModuleList([nn.Conv2d(256, 12, 3, padding=1) for _ in src])
        self.odm_conf = nn.ModuleList([nn.Conv2d(256, 3 * num_classes, 3, padding=1) for _ in src])
        tcb0, tcb1, tcb2 = [], [], []
        for k, c in enumerate(src):
            tcb0 += [nn.Conv2d(c, 256, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(256, 256, 3, padding=1)]
            tcb2 += [nn.ReLU(inplace=True), nn.Conv2d(256, 256, 3, padding=1), nn.ReLU(inplace=True)]
            if k != len(src) - 1:
                tcb1.append(nn.ConvTranspose2d(256, 256, 2, 2))
        self.tcb0, self.tcb1, self.tcb2 = nn.ModuleList(tcb0), nn.ModuleList(tcb1), nn.ModuleList(tcb2)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x):
        sources, tcb_source, arm_loc, arm_conf, odm_loc, odm_conf = [], [], [], [], [], []
        for k in range(30):
            x = self.vgg[k](x)
            if k == 22:
                sources.append(self.conv4_3_L2Norm(x))
            elif k == 29:
                sources.append(self.conv5_3_L2Norm(x))
        for k in range(30, len(self.vgg)):
            x = self.vgg[k](x)
        sources.append(x)
        for k, v in enumerate(self.extras):
            x = F.relu(v(x), inplace=True)
            if k % 2 == 1:
                sources.append(x)
        for s, l, c in zip(sources, self.arm_loc, self.arm_conf):
            arm_loc.append(l(s).permute(0, 2, 3, 1).contiguous())
            arm_conf.append(c(s).permute(0, 2, 3, 1).contiguous())
        arm_loc = torch.cat([o.view(o.size(0), -1) for o in arm_loc], 1)
        arm_conf = torch.cat([o.view(o.size(0), -1) for o in arm_conf], 1)
        p = None
        for k, v in enumerate(sources[::-1]):
            s = v
            for i in range(3):
                s = self.tcb0[(3 - k) * 3 + i](s)
            if k != 0:
                s += self.tcb1[3 - k](p)
            for i in range(3):
                s = self.tcb2[(3 - k) * 3 + i](s)
            p = s
            tcb_source.append(s)
        tcb_source.reverse()
        for s, l, c in zip(tcb_source, self.odm_loc, self.odm_conf):
            odm_loc.append(l(s).permute(0, 2, 3, 1).contiguous())
            odm_conf.append(c(s).permute(0, 2, 3, 1).contiguous())
        odm_loc = torch.cat([o.view(o.size(0), -1) for o in odm_loc], 1)
        odm_conf = torch.cat([o.view(o.size(0), -1) for o in odm_conf], 1)
        return (arm_loc.view(arm_loc.size(0), -1, 4),
                self.softmax(arm_conf.view(arm_conf.size(0), -1, 2)),
                odm_loc.view(odm_loc.size(0), -1, 4),
                self.softmax(odm_conf.view(odm_conf.size(0), -1, self.num_classes)),
                self.priors.type(type(x.data)))


def build(variant="recipe"):
    if variant != "recipe":
        raise ValueError("only the patched model exports (the unpatched test forward calls a legacy autograd.Function)")
    return RefineDet().eval()


def example_inputs():
    return (torch.randn(1, 3, 320, 320),)


def export(path, variant="recipe"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, verbose=False, input_names=INPUT_NAMES,
                      output_names=OUTPUT_NAMES, dynamic_axes=DYNAMIC_AXES, opset_version=OPSET)
