"""SpeechBrain speaker-id x-vector TDNN (templates/speaker_id: Xvector + Classifier) as the
built-in recipe exports it (feats_classify on Fbank features [N,1800,23]).

Operator structure (own code, hyperparams.yaml: 5 TDNN blocks, kernels 5,3,3,1,1, dilations
1,2,3,1,1, LeakyReLU, BatchNorm1d after the activation; StatisticsPooling; Linear to the
embedding; classifier LeakyReLU, BN, Linear, LeakyReLU, BN, Linear to 28 speakers,
log-softmax). Channel widths are reduced (same operators).
SpeechBrain conventions reproduced:
- Conv1d and BatchNorm1d take [N,T,C] and transpose to [N,C,T] and back around every layer;
- Conv1d padding="same" is an explicit F.pad (mode 'reflect' upstream) followed by an
  unpadded conv;
- StatisticsPooling: mean and std over time, plus gaussian noise on the mean built from
  torch.randn, normalised with torch.min / torch.max over the whole tensor (ReduceMin /
  ReduceMax without axes), then concat and unsqueeze(1);
- Softmax(apply_log=True) reshapes 3-D input to 2-D, LogSoftmax, reshapes back; squeeze(1).

variant="upstream" (default): speechbrain at 51a2becd as is.
variant="recipe": with modify.patch - Conv1d padding_mode 'constant', Xvector convs/BNs built
  with skip_transpose=True and one transpose at the start and one before StatisticsPooling.
Export: opset 11, static input 'feats' [64,1800,23] (no dynamic axes), output 'output'.
"""
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
INPUT_NAMES = ["feats"]
OUTPUT_NAMES = ["output"]
CH = [64, 64, 64, 64, 96]      # upstream 512, 512, 512, 512, 1500
EMB = 64                       # upstream 512
N_MELS, N_CLASSES = 23, 28


class SbConv1d(nn.Module):
    def __init__(self, cin, cout, k, d, padding_mode, skip_transpose):
        super().__init__()
        self.k, self.d, self.mode, self.skip = k, d, padding_mode, skip_transpose
        self.conv = nn.Conv1d(cin, cout, k, dilation=d, padding=0)

    def forward(self, x):
        if not self.skip:
            x = x.transpose(1, -1)
        p = self.d * (self.k - 1) // 2          # 'same' padding for stride 1
        x = F.pad(x, (p, p), mode=self.mode)
        y = self.conv(x)
        if not self.skip:
            y = y.transpose(1, -1)
        return y


class SbBatchNorm1d(nn.Module):
    def __init__(self, c, skip_transpose=False):
        super().__init__()
        self.skip = skip_transpose
        self.norm = nn.BatchNorm1d(c)

    def forward(self, x):
        if not self.skip:
            x = x.transpose(-1, 1)
        y = self.norm(x)
        if not self.skip:
            y = y.transpose(1, -1)
        return y


class StatsPool(nn.Module):
    eps = 1e-5

    def forward(self, x):                        # [N,T,C]
        mean = x.mean(dim=1)
        std = x.std(dim=1)
        noise = torch.randn(mean.size())
        noise = noise - torch.min(noise)
        noise = noise / torch.max(noise)
        noise = self.eps * ((1 - 9) * noise + 9)
        mean = mean + noise
        std = std + self.eps
        return torch.cat((mean, std), dim=1).unsqueeze(1)


class XvectorClassifier(nn.Module):
    def __init__(self, recipe=False):
        super().__init__()
        self.recipe = recipe
        mode = "constant" if recipe else "reflect"
        layers, cin = [], N_MELS
        for cout, k, d in zip(CH, [5, 3, 3, 1, 1], [1, 2, 3, 1, 1]):
            layers += [SbConv1d(cin, cout, k, d, mode, recipe), nn.LeakyReLU(),
                       SbBatchNorm1d(cout, recipe)]
            cin = cout
        self.tdnn = nn.ModuleList(layers)
        self.pool = StatsPool()
        self.emb = nn.Linear(2 * CH[-1], EMB)
        # classifier
        self.c_act = nn.LeakyReLU()
        self.c_norm = SbBatchNorm1d(EMB)
        self.c_lin = nn.Linear(EMB, EMB)
        self.c_act2 = nn.LeakyReLU()
        self.c_norm2 = SbBatchNorm1d(EMB)
        self.c_out = nn.Linear(EMB, N_CLASSES)

    def forward(self, feats):
        x = feats
        if self.recipe:
            x = x.transpose(1, -1)
        for layer in self.tdnn:
            x = layer(x)
        if self.recipe:
            x = x.transpose(1, -1)
        x = self.emb(self.pool(x))               # [N,1,EMB]
        x = self.c_norm(self.c_act(x))
        x = self.c_norm2(self.c_act2(self.c_lin(x)))
        x = self.c_out(x)
        n, t, c = x.shape
        x = F.log_softmax(x.reshape(n * t, c), dim=-1).reshape(n, t, c)
        return x.squeeze(1)


def build(variant="upstream"):
    return XvectorClassifier(recipe=(variant == "recipe")).eval()


def example_inputs():
    return (torch.randn(64, 1800, N_MELS),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=INPUT_NAMES,
                      output_names=OUTPUT_NAMES, export_params=True,
                      do_constant_folding=True, opset_version=OPSET)
