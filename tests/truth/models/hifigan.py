"""HiFi-GAN V2 generator (jik876/hifi-gan, LJ_FT_T2_V2 config) for the built-in recipe.

Operator structure (own code, weight norm already removed as the recipe does before export):
conv_pre k7 -> 4 x [LeakyReLU(0.1) -> transposed conv (rates 8,8,2,2, kernels 16,16,4,4,
channels 128->64->32->16->8) -> sum of three ResBlock1 (kernels 3,7,11, dilations 1,3,5; each
LeakyReLU -> dilated conv -> LeakyReLU -> conv -> Add) / 3] -> LeakyReLU(0.01) -> conv_post k7
-> Tanh.

variant="upstream" (default): the upstream model, Conv1d / ConvTranspose1d on [N,80,T],
  exported like the recipe (opset 11, dynamic batch and mel length).
variant="recipe": the recipe's pth2onnx.py rewrite, every conv a Conv2d / ConvTranspose2d with
  kernel (1,k), input [N,80,1,T] (dynamic axes 0 and 3), checkpoint weights unsqueezed.
"""
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
INPUT_NAMES = ["mel_spec"]
OUTPUT_NAMES = ["wavs"]
LRELU = 0.1
CFG = dict(upsample_rates=[8, 8, 2, 2], upsample_kernel_sizes=[16, 16, 4, 4],
           upsample_initial_channel=128, resblock_kernel_sizes=[3, 7, 11],
           resblock_dilation_sizes=[[1, 3, 5], [1, 3, 5], [1, 3, 5]])


def _pad(k, d=1):
    return (k * d - d) // 2


class _Convs:
    """Factory for 1-D (upstream) or (1,k) 2-D (recipe) convolutions."""

    def __init__(self, two_d):
        self.two_d = two_d

    def conv(self, cin, cout, k, d=1, p=None):
        p = _pad(k, d) if p is None else p
        if self.two_d:
            return nn.Conv2d(cin, cout, (1, k), 1, dilation=(1, d), padding=(0, p))
        return nn.Conv1d(cin, cout, k, 1, dilation=d, padding=p)

    def up(self, cin, cout, k, u):
        if self.two_d:
            return nn.ConvTranspose2d(cin, cout, (1, k), (1, u), padding=(0, (k - u) // 2))
        return nn.ConvTranspose1d(cin, cout, k, u, padding=(k - u) // 2)


class _ResBlock1(nn.Module):
    def __init__(self, f, ch, k, dil):
        super().__init__()
        self.c1 = nn.ModuleList([f.conv(ch, ch, k, d) for d in dil])
        self.c2 = nn.ModuleList([f.conv(ch, ch, k, 1) for _ in dil])

    def forward(self, x):
        for a, b in zip(self.c1, self.c2):
            t = b(F.leaky_relu(a(F.leaky_relu(x, LRELU)), LRELU))
            x = t + x
        return x


class Generator(nn.Module):
    def __init__(self, two_d=False, cfg=CFG):
        super().__init__()
        f = _Convs(two_d)
        ch = cfg["upsample_initial_channel"]
        self.n_k = len(cfg["resblock_kernel_sizes"])
        self.conv_pre = f.conv(80, ch, 7, 1, 3)
        self.ups = nn.ModuleList()
        self.blocks = nn.ModuleList()
        for i, (u, k) in enumerate(zip(cfg["upsample_rates"], cfg["upsample_kernel_sizes"])):
            cin, cout = ch // 2 ** i, ch // 2 ** (i + 1)
            self.ups.append(f.up(cin, cout, k, u))
            for rk, rd in zip(cfg["resblock_kernel_sizes"], cfg["resblock_dilation_sizes"]):
                self.blocks.append(_ResBlock1(f, cout, rk, rd))
        self.conv_post = f.conv(cout, 1, 7, 1, 3)

    def forward(self, x):
        x = self.conv_pre(x)
        for i, up in enumerate(self.ups):
            x = up(F.leaky_relu(x, LRELU))
            acc = None
            for j in range(self.n_k):
                y = self.blocks[i * self.n_k + j](x)
                acc = y if acc is None else acc + y
            x = acc / self.n_k
        x = self.conv_post(F.leaky_relu(x))
        return torch.tanh(x)


def build(variant="upstream"):
    return Generator(two_d=(variant == "recipe")).eval()


def example_inputs(variant="upstream"):
    if variant == "recipe":
        return (torch.randn(1, 80, 1, 1000),)
    return (torch.randn(1, 80, 1000),)


def dynamic_axes(variant="upstream"):
    t = 3 if variant == "recipe" else 2
    return {"mel_spec": {0: "batch_size", t: "mel_len"}}


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(variant), path, opset_version=OPSET,
                      do_constant_folding=True, input_names=INPUT_NAMES,
                      output_names=OUTPUT_NAMES, dynamic_axes=dynamic_axes(variant))
