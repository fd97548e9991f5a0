"""RawNet2 anti-spoofing baseline (asvspoof-challenge/2021 LA/Baseline-RawNet2) for the built-in recipe.

Operator structure (own code, config model_config_RawNet.yaml: first_conv 1024 -> 1025 taps,
filts [20, [20,20], [20,128], [128,128]], GRU 1024 x 3 layers, fc 1024, 2 classes):
- x.view(N,1,L) (Reshape) -> sinc filter bank: 20 band-pass filters of 1025 taps built in
  forward from numpy (mel-spaced band edges, hamming window) and applied with F.conv1d
  (a 1-D Conv with a 1025-wide kernel);
- abs -> max_pool1d(3) -> BatchNorm1d -> SELU;
- six residual blocks (Conv1d k3 pad1 / BN / LeakyReLU(0.3) / Conv1d k3, optional 1x1 Conv1d
  downsample, Add, MaxPool1d(3)), each followed by filter-wise attention: AdaptiveAvgPool1d(1),
  Linear, Sigmoid, x * y + y;
- BN -> SELU -> permute -> 3-layer GRU (batch_first) -> x[:, -1, :] (Gather with index -1) ->
  Linear -> Linear -> LogSoftmax.
The GRU hidden size is reduced (GRU_HIDDEN) - same operators, smaller weights.

variant="upstream" (default): the upstream SincConv, which writes each filter row into the
  tensor attribute band_pass inside forward (in-place writes end up in the trace).
variant="recipe": with the line the README adds to SincConv.forward
  (band_pass rebuilt with torch.from_numpy before use), so the filter bank is a constant.
Export: opset 11, static input 'input' [N,64600] (no dynamic axes), output 'output' [N,2].
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
INPUT_NAMES = ["input"]
OUTPUT_NAMES = ["output"]
GRU_HIDDEN = 64          # upstream 1024
FC_NODE = 64             # upstream 1024
NB_SAMP = 64600


def _to_mel(hz):
    return 2595 * np.log10(1 + hz / 700)


def _to_hz(mel):
    return 700 * (10 ** (mel / 2595) - 1)


class SincFilters(nn.Module):
    def __init__(self, out_channels=20, kernel_size=1024, sample_rate=16000, recipe_fix=False):
        super().__init__()
        if kernel_size % 2 == 0:
            kernel_size += 1
        self.c, self.k, self.sr = out_channels, kernel_size, sample_rate
        f = int(sample_rate / 2) * np.linspace(0, 1, 257)
        mel = np.linspace(_to_mel(f).min(), _to_mel(f).max(), out_channels + 1)
        self.edges = _to_hz(mel)
        self.taps = torch.arange(-(kernel_size - 1) / 2, (kernel_size - 1) / 2 + 1)
        self.band_pass = torch.zeros(out_channels, kernel_size)
        self.recipe_fix = recipe_fix

    def forward(self, x):
        for i in range(self.c):
            lo, hi = self.edges[i], self.edges[i + 1]
            h_hi = (2 * hi / self.sr) * np.sinc(2 * hi * self.taps.numpy() / self.sr)
            h_lo = (2 * lo / self.sr) * np.sinc(2 * lo * self.taps.numpy() / self.sr)
            window = torch.from_numpy(np.hamming(self.k)).float()
            self.band_pass[i, :] = window * torch.from_numpy(h_hi - h_lo).float()
        if self.recipe_fix:
            self.band_pass = torch.from_numpy(self.band_pass.numpy())
        filters = self.band_pass.view(self.c, 1, self.k)
        return F.conv1d(x, filters, stride=1, padding=0, dilation=1, bias=None, groups=1)


class ResBlock(nn.Module):
    def __init__(self, cin, cout, first=False):
        super().__init__()
        self.first = first
        if not first:
            self.bn1 = nn.BatchNorm1d(cin)     # upstream computes bn1/lrelu but feeds x to conv1
        self.lrelu = nn.LeakyReLU(0.3)
        self.conv1 = nn.Conv1d(cin, cout, 3, padding=1)
        self.bn2 = nn.BatchNorm1d(cout)
        self.conv2 = nn.Conv1d(cout, cout, 3, padding=1)
        self.down = nn.Conv1d(cin, cout, 1) if cin != cout else None
        self.mp = nn.MaxPool1d(3)

    def forward(self, x):
        identity = x
        if not self.first:
            _ = self.lrelu(self.bn1(x))        # dead value, as upstream
        out = self.conv2(self.lrelu(self.bn2(self.conv1(x))))
        if self.down is not None:
            identity = self.down(identity)
        out = out + identity
        return self.mp(out)


class RawNet2Like(nn.Module):
    def __init__(self, recipe_fix=False):
        super().__init__()
        self.sinc = SincFilters(20, 1024, recipe_fix=recipe_fix)
        self.first_bn = nn.BatchNorm1d(20)
        self.selu = nn.SELU()
        dims = [(20, 20, True), (20, 20, False), (20, 128, False),
                (128, 128, False), (128, 128, False), (128, 128, False)]
        self.blocks = nn.ModuleList([ResBlock(a, b, f) for a, b, f in dims])
        self.att = nn.ModuleList([nn.Linear(b, b) for _, b, _ in dims])
        self.avgpool = nn.AdaptiveAvgPool1d(1)
        self.bn_gru = nn.BatchNorm1d(128)
        self.gru = nn.GRU(128, GRU_HIDDEN, num_layers=3, batch_first=True)
        self.fc1 = nn.Linear(GRU_HIDDEN, FC_NODE)
        self.fc2 = nn.Linear(FC_NODE, 2)
        self.sig = nn.Sigmoid()
        self.logsoftmax = nn.LogSoftmax(dim=1)

    def forward(self, x):
        n, length = x.shape[0], x.shape[1]
        x = x.view(n, 1, length)
        x = self.sinc(x)
        x = F.max_pool1d(torch.abs(x), 3)
        x = self.selu(self.first_bn(x))
        for block, fc in zip(self.blocks, self.att):
            xb = block(x)
            y = self.avgpool(xb).view(xb.size(0), -1)
            y = self.sig(fc(y)).view(y.size(0), y.size(1), -1)
            x = xb * y + y
        x = self.selu(self.bn_gru(x)).permute(0, 2, 1)
        x, _ = self.gru(x)
        x = x[:, -1, :]
        return self.logsoftmax(self.fc2(self.fc1(x)))


def build(variant="upstream"):
    return RawNet2Like(recipe_fix=(variant == "recipe")).eval()


def example_inputs():
    return (torch.randn(1, NB_SAMP),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=INPUT_NAMES,
                      output_names=OUTPUT_NAMES, opset_version=OPSET, dynamic_axes=None,
                      export_params=True, do_constant_folding=True)
