"""Compact stand-in for DETR (facebookresearch/detr, ResNet-50 backbone), the upstream of
ModelZoo-PyTorch contrib/cv/detection/DETR.

Written from the paper / upstream operator inventory, not copied. One forward pass covers
what a DETR evaluation step runs: backbone with frozen batch norm, the padding mask resized
to the feature map, the sine position encoding (bool mask negated and cumsum'ed, as upstream
does before the recipe cast it to float), input projection, a post-norm transformer encoder /
decoder built on nn.MultiheadAttention with key padding mask, class and box heads, and the
PostProcess step (softmax, max over classes, cxcywh -> xyxy, scaling by the image sizes).
Sizes are tiny (one bottleneck per stage, d_model 32, 1 encoder and 2 decoder layers,
10 queries); the operator set is what matters.
"""
import math

import torch
from torch import nn
import torch.nn.functional as F


class FrozenBN(nn.Module):
    """batch norm with fixed statistics, evaluated as x * scale + shift"""

    def __init__(self, n, eps=1e-5):
        super().__init__()
        self.eps = eps
        for name, val in (("weight", torch.ones(n)), ("bias", torch.zeros(n)),
                          ("running_mean", torch.zeros(n)), ("running_var", torch.ones(n))):
            self.register_buffer(name, val)

    def forward(self, x):
        scale = self.weight.reshape(1, -1, 1, 1) * (self.running_var.reshape(1, -1, 1, 1) + self.eps).rsqrt()
        shift = self.bias.reshape(1, -1, 1, 1) - self.running_mean.reshape(1, -1, 1, 1) * scale
        return x * scale + shift


class Bottleneck(nn.Module):
    def __init__(self, cin, mid, cout, stride):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(cin, mid, 1, bias=False), FrozenBN(mid)
        self.c2, self.b2 = nn.Conv2d(mid, mid, 3, stride, 1, bias=False), FrozenBN(mid)
        self.c3, self.b3 = nn.Conv2d(mid, cout, 1, bias=False), FrozenBN(cout)
        self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), FrozenBN(cout))
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.relu(self.b1(self.c1(x)))
        y = self.relu(self.b2(self.c2(y)))
        y = self.b3(self.c3(y))
        return self.relu(y + self.down(x))


class Backbone(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 7, 2, 3, bias=False), FrozenBN(width),
                                  nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
        chans, layers = width, []
        for i in range(4):
            layers.append(Bottleneck(chans, width * 2 ** i, width * 4 * 2 ** i, 1 if i == 0 else 2))
            chans = width * 4 * 2 ** i
        self.layers = nn.Sequential(*layers)
        self.out_channels = chans

    def forward(self, x):
        return self.layers(self.stem(x))


def sine_position(mask: torch.Tensor, npf: int, temperature: float = 10000.0):
    keep = ~mask
    ye = keep.cumsum(1, dtype=torch.float32)
    xe = keep.cumsum(2, dtype=torch.float32)
    eps, scale = 1e-6, 2 * math.pi
    ye = ye / (ye[:, -1:, :] + eps) * scale
    xe = xe / (xe[:, :, -1:] + eps) * scale
    dim_t = torch.arange(npf, dtype=torch.float32, device=mask.device)
    dim_t = temperature ** (2 * torch.div(dim_t, 2, rounding_mode="floor") / npf)
    px = xe[:, :, :, None] / dim_t
    py = ye[:, :, :, None] / dim_t
    px = torch.stack((px[:, :, :, 0::2].sin(), px[:, :, :, 1::2].cos()), dim=4).flatten(3)
    py = torch.stack((py[:, :, :, 0::2].sin(), py[:, :, :, 1::2].cos()), dim=4).flatten(3)
    return torch.cat((py, px), dim=3).permute(0, 3, 1, 2)


class EncLayer(nn.Module):
    def __init__(self, d, h, ff):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, h, dropout=0.1)
        self.l1, self.l2 = nn.Linear(d, ff), nn.Linear(ff, d)
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.d0, self.d1, self.d2 = nn.Dropout(0.1), nn.Dropout(0.1), nn.Dropout(0.1)

    def forward(self, src, pad, pos):
        qk = src + pos
        src = self.n1(src + self.d1(self.attn(qk, qk, value=src, key_padding_mask=pad)[0]))
        return self.n2(src + self.d2(self.l2(self.d0(F.relu(self.l1(src))))))


class DecLayer(nn.Module):
    def __init__(self, d, h, ff):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(d, h, dropout=0.1)
        self.cross_attn = nn.MultiheadAttention(d, h, dropout=0.1)
        self.l1, self.l2 = nn.Linear(d, ff), nn.Linear(ff, d)
        self.n1, self.n2, self.n3 = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.d0, self.d1, self.d2, self.d3 = (nn.Dropout(0.1) for _ in range(4))

    def forward(self, tgt, memory, pad, pos, qpos):
        qk = tgt + qpos
        tgt = self.n1(tgt + self.d1(self.self_attn(qk, qk, value=tgt)[0]))
        att = self.cross_attn(tgt + qpos, memory + pos, value=memory, key_padding_mask=pad)[0]
        tgt = self.n2(tgt + self.d2(att))
        return self.n3(tgt + self.d3(self.l2(self.d0(F.relu(self.l1(tgt))))))


class DETRStandIn(nn.Module):
    def __init__(self, d=32, heads=4, ff=64, queries=10, classes=5, dec_layers=2):
        super().__init__()
        self.backbone = Backbone()
        self.proj = nn.Conv2d(self.backbone.out_channels, d, 1)
        self.query = nn.Embedding(queries, d)
        self.enc = nn.ModuleList([EncLayer(d, heads, ff)])
        self.dec = nn.ModuleList([DecLayer(d, heads, ff) for _ in range(dec_layers)])
        self.dec_norm = nn.LayerNorm(d)
        self.cls = nn.Linear(d, classes + 1)
        self.box = nn.ModuleList([nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, 4)])

    def forward(self, images, target_sizes):
        b, _, h, w = images.shape
        # padding mask of a batch of equal-size images: ones, then image area cleared
        mask = torch.ones((b, h, w), dtype=torch.bool, device=images.device)
        mask[:, :h, :w] = False
        feat = self.backbone(images)
        fmask = F.interpolate(mask[None].float(), size=feat.shape[-2:]).to(torch.bool)[0]
        pos = sine_position(fmask, self.proj.out_channels // 2)

        src = self.proj(feat).flatten(2).permute(2, 0, 1)
        pos = pos.flatten(2).permute(2, 0, 1)
        pad = fmask.flatten(1)
        qpos = self.query.weight.unsqueeze(1).repeat(1, b, 1)
        memory = src
        for layer in self.enc:
            memory = layer(memory, pad, pos)
        tgt = torch.zeros_like(qpos)
        inter = []
        for layer in self.dec:
            tgt = layer(tgt, memory, pad, pos, qpos)
            inter.append(self.dec_norm(tgt))
        hs = torch.stack(inter).transpose(1, 2)

        logits = self.cls(hs)[-1]
        y = hs
        for i, lin in enumerate(self.box):
            y = F.relu(lin(y)) if i < len(self.box) - 1 else lin(y)
        boxes = y.sigmoid()[-1]

        # PostProcess
        prob = F.softmax(logits, -1)
        scores, labels = prob[..., :-1].max(-1)
        cx, cy, bw, bh = boxes.unbind(-1)
        xyxy = torch.stack([cx - 0.5 * bw, cy - 0.5 * bh, cx + 0.5 * bw, cy + 0.5 * bh], dim=-1)
        img_h, img_w = target_sizes.unbind(1)
        scale = torch.stack([img_w, img_h, img_w, img_h], dim=1)
        return scores, labels, xyxy * scale[:, None, :]


def build():
    return DETRStandIn()


def example_inputs():
    return (torch.randn(2, 3, 128, 160), torch.tensor([[480.0, 640.0], [600.0, 800.0]]))
