"""torchaudio.models.wav2vec2_base(aux_num_out=32): torchaudio's port of the
fairseq wav2vec 2.0 BASE encoder with a CTC projection, the same network the
recipe fine-tunes (fairseq Wav2VecCtc, base_100h). Random weights.

Only change: the positional convolution's weight_norm forward pre-hook is
replaced by a module that computes torch._weight_norm(v, g, dim=2) in its own
forward, because torch.jit.trace in torch 1.13 cannot handle the WeightNorm hook
object. The traced operators are the same (weight norm recomputed every forward,
then conv1d)."""
import torch
from torch import nn
import torch.nn.functional as F
import torchaudio


class WeightNormConv1d(nn.Module):
    def __init__(self, conv):
        super().__init__()
        self.stride, self.padding, self.groups = conv.stride, conv.padding, conv.groups
        self.weight_g = nn.Parameter(conv.weight_g.detach().clone())
        self.weight_v = nn.Parameter(conv.weight_v.detach().clone())
        self.bias = nn.Parameter(conv.bias.detach().clone())

    def forward(self, x):
        w = torch._weight_norm(self.weight_v, self.weight_g, 2)
        return F.conv1d(x, w, self.bias, self.stride, self.padding, 1, self.groups)


class Logits(nn.Module):
    """Returns only the CTC logits (Wav2Vec2Model returns (logits, None) without lengths)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, waveforms):
        return self.model(waveforms)[0]


def build():
    torch.manual_seed(0)
    model = torchaudio.models.wav2vec2_base(aux_num_out=32)
    pos = model.encoder.transformer.pos_conv_embed
    pos.conv = WeightNormConv1d(pos.conv)
    return Logits(model).eval()


def example_inputs():
    return (torch.randn(2, 16000),)
