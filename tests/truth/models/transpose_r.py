"""TransPose-R-A3 (yangsenius/TransPose, commit dab9007b, config TP_R_256x192_d256_h1024_enc3_mh8) as the contrib
recipe ACL_PyTorch/contrib/cv/pose_estimation/TransPose exports it: TransPose_pth2onnx.py builds the recipe folder's
own transpose_r.py (upstream lib/models/transpose_r.py; the recipe's copy only reformats the deconv block) and exports
it at opset 11 with a dynamic batch on the input only.

Own code, same operators and widths as the model: ResNet-50 stem (7x7 s2 conv, BN, ReLU, 3x3 s2 MaxPool) with the
first two Bottleneck stages (3 and 4 blocks, 256 / 512 channels), a 1x1 reduce conv to d_model 256, the feature map
flattened to [HW, N, 256] (x.shape read at run time: bs, c, h, w), three post-norm Transformer encoder layers
(nn.MultiheadAttention with 8 heads, query = key = x + sine position embedding [192, 1, 256] at every layer, value =
x; Linear 256 -> 1024 -> 256 with ReLU; two LayerNorms), permuted back and viewed as [bs, c, h, w], one
ConvTranspose2d 4x4 s2 + BN + ReLU, and a 1x1 conv to the 17 joint heatmaps [N, 17, 64, 48].

One variant: the recipe changes no model code (its patch touches training, data and config scripts only).
"""
import math

import torch
from torch import nn

OPSET = 11
D_MODEL, N_HEAD, FFN, ENC_LAYERS, JOINTS = 256, 8, 1024, 3, 17
IMAGE_W, IMAGE_H = 192, 256


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, cin, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        idt = x if self.downsample is None else self.downsample(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        return self.relu(self.bn3(self.conv3(y)) + idt)


def stage(cin, planes, blocks, stride):
    down = nn.Sequential(nn.Conv2d(cin, planes * 4, 1, stride, bias=False), nn.BatchNorm2d(planes * 4))
    layers = [Bottleneck(cin, planes, stride, down)]
    layers += [Bottleneck(planes * 4, planes) for _ in range(blocks - 1)]
    return nn.Sequential(*layers)


def sine_position_embedding(h, w, d_model, temperature=10000.0, scale=2 * math.pi):
    """[h*w, 1, d_model]: the DETR-style 2-D sine embedding, normalised cumulative row / column positions."""
    area = torch.ones(1, h, w)
    y = area.cumsum(1)
    x = area.cumsum(2)
    y = y / (y[:, -1:, :] + 1e-6) * scale
    x = x / (x[:, :, -1:] + 1e-6) * scale
    half = d_model // 2
    dim_t = torch.arange(half, dtype=torch.float32)
    dim_t = temperature ** (2 * torch.div(dim_t, 2, rounding_mode="floor") / half)
    px = x[..., None] / dim_t
    py = y[..., None] / dim_t
    px = torch.stack((px[..., 0::2].sin(), px[..., 1::2].cos()), dim=4).flatten(3)
    py = torch.stack((py[..., 0::2].sin(), py[..., 1::2].cos()), dim=4).flatten(3)
    pos = torch.cat((py, px), dim=3).permute(0, 3, 1, 2)
    return pos.flatten(2).permute(2, 0, 1)


class EncoderLayer(nn.Module):
    """Post-norm encoder layer: self-attention on (x + pos, x + pos, x), then the feed-forward block."""

    def __init__(self):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(D_MODEL, N_HEAD, dropout=0.1)
        self.linear1 = nn.Linear(D_MODEL, FFN)
        self.linear2 = nn.Linear(FFN, D_MODEL)
        self.norm1 = nn.LayerNorm(D_MODEL)
        self.norm2 = nn.LayerNorm(D_MODEL)
        self.dropout = nn.Dropout(0.1)
        self.relu = nn.ReLU()

    def forward(self, src, pos):
        q = k = src + pos
        src = self.norm1(src + self.dropout(self.self_attn(q, k, value=src)[0]))
        return self.norm2(src + self.dropout(self.linear2(self.dropout(self.relu(self.linear1(src))))))


class TransPoseR(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = stage(64, 64, 3, 1)
        self.layer2 = stage(256, 128, 4, 2)
        self.reduce = nn.Conv2d(512, D_MODEL, 1, bias=False)
        self.pos_embedding = nn.Parameter(sine_position_embedding(IMAGE_H // 8, IMAGE_W // 8, D_MODEL),
                                          requires_grad=False)
        self.layers = nn.ModuleList([EncoderLayer() for _ in range(ENC_LAYERS)])
        self.deconv_layers = nn.Sequential(
            nn.ConvTranspose2d(D_MODEL, D_MODEL, 4, stride=2, padding=1, output_padding=0, bias=False),
            nn.BatchNorm2d(D_MODEL), nn.ReLU(inplace=True))
        self.final_layer = nn.Conv2d(D_MODEL, JOINTS, 1)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.reduce(self.layer2(self.layer1(x)))
        bs, c, h, w = x.shape
        x = x.flatten(2).permute(2, 0, 1)
        for layer in self.layers:
            x = layer(x, self.pos_embedding)
        x = x.permute(1, 2, 0).contiguous().view(bs, c, h, w)
        return self.final_layer(self.deconv_layers(x))


def build(variant="upstream"):
    if variant != "upstream":
        raise ValueError("transpose_r has one variant")
    return TransPoseR().eval()


def example_inputs():
    return (torch.zeros(1, 3, IMAGE_H, IMAGE_W),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    # grad stays enabled: under no_grad torch 1.13 routes nn.MultiheadAttention to a fused path that does not export
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["input"], output_names=["output"],
                      dynamic_axes={"input": {0: "bs"}}, opset_version=OPSET)
