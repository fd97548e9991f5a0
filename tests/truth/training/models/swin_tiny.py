"""Compact stand-in for the Swin Transformer of microsoft/Swin-Transformer (the upstream
of ModelZoo-PyTorch contrib/cv/classification/Swin-Transformer_for_PyTorch).

Written from the paper's description and the upstream operator inventory, not copied.
It keeps every operator kind the upstream forward pass uses, in the upstream (CUDA)
form that the Ascend recipe later rewrote:
  * patch embedding: conv2d, flatten(2), transpose, layer_norm, dropout(p=0)
  * shifted windows: torch.roll forward and back
  * window partition / reverse: view + permute + contiguous + view
  * window attention: linear qkv, reshape + permute, select, scalar scale, q @ k^T
    (transpose + matmul), relative position bias gathered by tensor indexing,
    additive shift mask, softmax, dropout, attn @ v, transpose + reshape, linear
  * MLP with nn.GELU, dropout
  * patch merging with strided slices + cat + layer_norm + linear(no bias)
  * head: layer_norm, adaptive_avg_pool1d over tokens, flatten, linear
Widths and depths are small (2 stages, 2 blocks each); the operator set matters.
"""
from typing import Optional

import torch
from torch import nn


def _to_windows(t: torch.Tensor, ws: int):
    b, h, w, c = t.shape
    t = t.view(b, h // ws, ws, w // ws, ws, c)
    return t.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, c)


def _from_windows(win: torch.Tensor, ws: int, h: int, w: int):
    b = int(win.shape[0] / (h * w / ws / ws))
    t = win.view(b, h // ws, w // ws, ws, ws, -1)
    return t.permute(0, 1, 3, 2, 4, 5).contiguous().view(b, h, w, -1)


class _Attention(nn.Module):
    def __init__(self, dim, ws, heads):
        super().__init__()
        self.ws, self.heads = ws, heads
        self.scale = (dim // heads) ** -0.5
        self.table = nn.Parameter(torch.randn((2 * ws - 1) ** 2, heads) * 0.02)
        ys, xs = torch.meshgrid(torch.arange(ws), torch.arange(ws), indexing="ij")
        pos = torch.stack([ys.flatten(), xs.flatten()])            # 2, N
        rel = (pos[:, :, None] - pos[:, None, :]).permute(1, 2, 0)  # N, N, 2
        rel = rel + (ws - 1)
        self.register_buffer("rel_index", rel[..., 0] * (2 * ws - 1) + rel[..., 1])
        self.qkv = nn.Linear(dim, dim * 3)
        self.attn_drop = nn.Dropout(0.0)
        self.proj = nn.Linear(dim, dim)
        self.proj_drop = nn.Dropout(0.0)

    def forward(self, x, mask: Optional[torch.Tensor] = None):
        bw, n, c = x.shape
        qkv = self.qkv(x).reshape(bw, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        q = q * self.scale
        attn = q @ k.transpose(-2, -1)
        bias = self.table[self.rel_index.view(-1)].view(n, n, -1)
        attn = attn + bias.permute(2, 0, 1).contiguous().unsqueeze(0)
        if mask is not None:
            nw = mask.shape[0]
            attn = attn.view(bw // nw, nw, self.heads, n, n) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.heads, n, n)
        attn = self.attn_drop(attn.softmax(dim=-1))
        out = (attn @ v).transpose(1, 2).reshape(bw, n, c)
        return self.proj_drop(self.proj(out))


class _Block(nn.Module):
    def __init__(self, dim, res, heads, ws, shift):
        super().__init__()
        self.res, self.ws, self.shift = res, ws, shift
        self.norm1 = nn.LayerNorm(dim)
        self.attn = _Attention(dim, ws, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Dropout(0.0),
                                 nn.Linear(4 * dim, dim), nn.Dropout(0.0))
        if shift > 0:
            regions = torch.zeros(1, res, res, 1)
            cuts = (slice(0, -ws), slice(-ws, -shift), slice(-shift, None))
            label = 0
            for hs in cuts:
                for wsl in cuts:
                    regions[:, hs, wsl, :] = label
                    label += 1
            ids = _to_windows(regions, ws).view(-1, ws * ws)
            m = ids.unsqueeze(1) - ids.unsqueeze(2)
            m = m.masked_fill(m != 0, -100.0).masked_fill(m == 0, 0.0)
            self.register_buffer("mask", m)
        else:
            self.mask = None

    def forward(self, x):
        h = w = self.res
        b, _, c = x.shape
        skip = x
        x = self.norm1(x).view(b, h, w, c)
        if self.shift > 0:
            x = torch.roll(x, shifts=(-self.shift, -self.shift), dims=(1, 2))
        win = _to_windows(x, self.ws).view(-1, self.ws * self.ws, c)
        win = self.attn(win, self.mask).view(-1, self.ws, self.ws, c)
        x = _from_windows(win, self.ws, h, w)
        if self.shift > 0:
            x = torch.roll(x, shifts=(self.shift, self.shift), dims=(1, 2))
        x = skip + x.view(b, h * w, c)          # drop path is the identity in eval
        return x + self.mlp(self.norm2(x))


class _Merge(nn.Module):
    def __init__(self, dim, res):
        super().__init__()
        self.res = res
        self.norm = nn.LayerNorm(4 * dim)
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x):
        b, _, c = x.shape
        x = x.view(b, self.res, self.res, c)
        parts = [x[:, 0::2, 0::2, :], x[:, 1::2, 0::2, :], x[:, 0::2, 1::2, :], x[:, 1::2, 1::2, :]]
        x = torch.cat(parts, -1).view(b, -1, 4 * c)
        return self.reduction(self.norm(x))


class SwinTiny(nn.Module):
    def __init__(self, img=64, patch=4, dim=32, depths=(2, 2), heads=(2, 4), ws=4, classes=10):
        super().__init__()
        self.embed = nn.Conv2d(3, dim, patch, patch)
        self.embed_norm = nn.LayerNorm(dim)
        self.pos_drop = nn.Dropout(0.0)
        res = img // patch
        stages = []
        for i, (depth, nh) in enumerate(zip(depths, heads)):
            blocks = [_Block(dim, res, nh, ws, 0 if j % 2 == 0 else ws // 2) for j in range(depth)]
            if i < len(depths) - 1:
                blocks.append(_Merge(dim, res))
                dim, res = dim * 2, res // 2
            stages.append(nn.Sequential(*blocks))
        self.stages = nn.Sequential(*stages)
        self.norm = nn.LayerNorm(dim)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)
        x = self.pos_drop(self.embed_norm(x))
        x = self.norm(self.stages(x))
        x = torch.flatten(self.pool(x.transpose(1, 2)), 1)
        return self.head(x)


def build():
    return SwinTiny()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)
