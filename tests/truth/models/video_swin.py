"""Video Swin Transformer Small (SwinTransformer/Video-Swin-Transformer db018fb8,
swin_small_patch244_window877_kinetics400_1k, Kinetics-400) as the contrib Video-Swin-Transformer
recipe exports it: the repository's tools/deployment/pytorch2onnx.py --shape 1 12 3 32 224 224
(static; input name onnx::Reshape_0, the name its ATC command uses).

Operator structure (own code after the repository's SwinTransformer3D; einops' rearrange written
as the permute it traces to):
- input [1,12,3,32,224,224] (batch, 12 views, C, T, H, W) reshaped to [12,3,32,224,224];
- PatchEmbed3D: Conv3d (2,4,4) stride (2,4,4) to 96, flatten, LayerNorm, view back;
- four stages of SwinTransformerBlock3D pairs (window (8,7,7), the second block shifted by
  half a window; where a window spans a whole axis its shift there is 0, as get_window_size
  decides): LayerNorm, F.pad to whole windows (pads computed from the traced shape), torch.roll
  for the shift (Slice + Slice + Concat per axis, also for a shift of 0), window_partition
  (8-D view + permute), WindowAttention3D (qkv Linear, q * scale, q @ k^T, relative position
  bias gathered from its table, the precomputed shift mask added, Softmax, @ v, proj), window
  reverse, roll back, crop, residual; MLP (LayerNorm, Linear, GELU, Linear, residual);
  PatchMerging (four strided slices, Concat, LayerNorm, Linear) after stages 1-3; depths
  2,2,18,2 reduced to 2,2,2,2 (stage 3 has the same blocks; stage 4, where the spatial shift is
  0 and the recipe's graph edit works, is whole);
- final LayerNorm; I3DHead: AdaptiveAvgPool3d(1), dropout, view, Linear 400.
Export: opset 11, static, torch's default names (input onnx::Reshape_0); traced at
[1,1,3,32,224,224] (one view: only constants differ).
"""
from functools import reduce
from operator import mul

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
DEPTHS = (2, 2, 2, 2)          # Swin-S: 2, 2, 18, 2
HEADS = (3, 6, 12, 24)
EMBED, WINDOW, PATCH = 96, (8, 7, 7), (2, 4, 4)
EXPORT_INPUT = (1, 1, 3, 32, 224, 224)


def window_partition(x, ws):
    b, d, h, w, c = x.shape
    x = x.view(b, d // ws[0], ws[0], h // ws[1], ws[1], w // ws[2], ws[2], c)
    return x.permute(0, 1, 3, 5, 2, 4, 6, 7).contiguous().view(-1, reduce(mul, ws), c)


def window_reverse(windows, ws, b, d, h, w):
    x = windows.view(b, d // ws[0], h // ws[1], w // ws[2], ws[0], ws[1], ws[2], -1)
    return x.permute(0, 1, 4, 2, 5, 3, 6, 7).contiguous().view(b, d, h, w, -1)


def get_window_size(x_size, window_size, shift_size):
    ws, ss = list(window_size), list(shift_size)
    for i in range(len(x_size)):
        if x_size[i] <= window_size[i]:
            ws[i] = x_size[i]
            ss[i] = 0
    return tuple(ws), tuple(ss)


def compute_mask(d, h, w, ws, ss):
    img_mask = torch.zeros((1, d, h, w, 1))
    cnt = 0
    for ds in slice(-ws[0]), slice(-ws[0], -ss[0]), slice(-ss[0], None):
        for hs in slice(-ws[1]), slice(-ws[1], -ss[1]), slice(-ss[1], None):
            for wsl in slice(-ws[2]), slice(-ws[2], -ss[2]), slice(-ss[2], None):
                img_mask[:, ds, hs, wsl, :] = cnt
                cnt += 1
    mask_windows = window_partition(img_mask, ws).squeeze(-1)
    attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
    return attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))


class WindowAttention3D(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.relative_position_bias_table = nn.Parameter(
            torch.randn((2 * WINDOW[0] - 1) * (2 * WINDOW[1] - 1) * (2 * WINDOW[2] - 1), heads) * 0.02)
        coords = torch.stack(torch.meshgrid([torch.arange(s) for s in WINDOW], indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0).contiguous()
        rel[:, :, 0] += WINDOW[0] - 1
        rel[:, :, 1] += WINDOW[1] - 1
        rel[:, :, 2] += WINDOW[2] - 1
        rel[:, :, 0] *= (2 * WINDOW[1] - 1) * (2 * WINDOW[2] - 1)
        rel[:, :, 1] *= (2 * WINDOW[2] - 1)
        self.register_buffer("relative_position_index", rel.sum(-1))
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x, mask=None):
        b_, n, c = x.shape
        qkv = self.qkv(x).reshape(b_, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.relative_position_bias_table[self.relative_position_index[:n, :n].reshape(-1)].reshape(n, n, -1)
        attn = attn + bias.permute(2, 0, 1).contiguous().unsqueeze(0)
        if mask is not None:
            nw = mask.shape[0]
            attn = attn.view(b_ // nw, nw, self.heads, n, n) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.heads, n, n)
        attn = self.softmax(attn)
        return self.proj((attn @ v).transpose(1, 2).reshape(b_, n, c))


class Block3D(nn.Module):
    def __init__(self, dim, heads, shift):
        super().__init__()
        self.shift = tuple(s // 2 for s in WINDOW) if shift else (0, 0, 0)
        self.norm1 = nn.LayerNorm(dim)
        self.attn = WindowAttention3D(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Dropout(0.0),
                                 nn.Linear(4 * dim, dim), nn.Dropout(0.0))

    def part1(self, x, mask_matrix):
        b, d, h, w, c = x.shape
        ws, ss = get_window_size((d, h, w), WINDOW, self.shift)
        x = self.norm1(x)
        pad_d1 = (ws[0] - d % ws[0]) % ws[0]
        pad_b = (ws[1] - h % ws[1]) % ws[1]
        pad_r = (ws[2] - w % ws[2]) % ws[2]
        x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b, 0, pad_d1))
        _, dp, hp, wp, _ = x.shape
        if any(i > 0 for i in ss):
            x = torch.roll(x, shifts=(-ss[0], -ss[1], -ss[2]), dims=(1, 2, 3))
            attn_mask = mask_matrix
        else:
            attn_mask = None
        windows = self.attn(window_partition(x, ws), mask=attn_mask)
        x = window_reverse(windows.view(-1, *(ws + (c,))), ws, b, dp, hp, wp)
        if any(i > 0 for i in ss):
            x = torch.roll(x, shifts=(ss[0], ss[1], ss[2]), dims=(1, 2, 3))
        if pad_d1 > 0 or pad_r > 0 or pad_b > 0:
            x = x[:, :d, :h, :w, :].contiguous()
        return x

    def forward(self, x, mask_matrix):
        x = x + self.part1(x, mask_matrix)
        return x + self.mlp(self.norm2(x))


class PatchMerging(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(4 * dim)
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x):
        x0, x1 = x[:, :, 0::2, 0::2, :], x[:, :, 1::2, 0::2, :]
        x2, x3 = x[:, :, 0::2, 1::2, :], x[:, :, 1::2, 1::2, :]
        return self.reduction(self.norm(torch.cat([x0, x1, x2, x3], -1)))


class Stage(nn.Module):
    def __init__(self, dim, depth, heads, downsample):
        super().__init__()
        self.blocks = nn.ModuleList([Block3D(dim, heads, i % 2 == 1) for i in range(depth)])
        self.downsample = PatchMerging(dim) if downsample else None

    def forward(self, x):
        b, c, d, h, w = x.shape
        ws, ss = get_window_size((d, h, w), WINDOW, tuple(s // 2 for s in WINDOW))
        x = x.permute(0, 2, 3, 4, 1)        # rearrange 'b c d h w -> b d h w c'
        dp = int(np.ceil(d / ws[0])) * ws[0]
        hp = int(np.ceil(h / ws[1])) * ws[1]
        wp = int(np.ceil(w / ws[2])) * ws[2]
        attn_mask = compute_mask(dp, hp, wp, ws, ss)
        for blk in self.blocks:
            x = blk(x, attn_mask)
        x = x.view(b, d, h, w, -1)
        if self.downsample is not None:
            x = self.downsample(x)
        return x.permute(0, 4, 1, 2, 3)     # rearrange 'b d h w c -> b c d h w'


class VideoSwin(nn.Module):
    def __init__(self, num_classes=400):
        super().__init__()
        self.proj = nn.Conv3d(3, EMBED, PATCH, stride=PATCH)
        self.patch_norm = nn.LayerNorm(EMBED)
        self.stages = nn.ModuleList([Stage(EMBED * 2 ** i, DEPTHS[i], HEADS[i], i < 3) for i in range(4)])
        self.norm = nn.LayerNorm(EMBED * 8)
        self.avg_pool = nn.AdaptiveAvgPool3d((1, 1, 1))
        self.dropout = nn.Dropout(0.5)
        self.fc_cls = nn.Linear(EMBED * 8, num_classes)

    def forward(self, imgs):
        x = self.proj(imgs.reshape((-1,) + imgs.shape[2:]))
        d, wh, ww = x.size(2), x.size(3), x.size(4)
        x = self.patch_norm(x.flatten(2).transpose(1, 2)).transpose(1, 2).view(-1, EMBED, d, wh, ww)
        for stage in self.stages:
            x = stage(x.contiguous())
        x = self.norm(x.permute(0, 2, 3, 4, 1)).permute(0, 4, 1, 2, 3)
        x = self.dropout(self.avg_pool(x))
        return self.fc_cls(x.view(x.shape[0], -1))


def build(variant="upstream"):
    return VideoSwin().eval()


def example_inputs():
    return (torch.randn(*EXPORT_INPUT),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    with torch.no_grad():
        torch.onnx.export(build(variant), example_inputs(), path, opset_version=OPSET)
