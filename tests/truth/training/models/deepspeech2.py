"""Stand-in for SeanNaren/deepspeech.pytorch deepspeech_pytorch/model.py
(@d59cf3f, the version the recipe vendors): masked Conv2d/BatchNorm2d/Hardtanh
front end, bidirectional nn.LSTM layers over pack_padded_sequence with the two
directions summed, SequenceWise BatchNorm1d + bias-free Linear, softmax in eval.
Written from the operator structure only; 2 LSTM layers of 32 units, random
weights. The upstream per-sample Python mask loop is kept (the trace unrolls it)."""
import math

import torch
from torch import nn
import torch.nn.functional as F

HIDDEN, LAYERS, CLASSES, FREQ = 32, 2, 29, 161


class SequenceWise(nn.Module):
    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, x):
        t, n = x.size(0), x.size(1)
        return self.module(x.view(t * n, -1)).view(t, n, -1)


class MaskConv(nn.Module):
    def __init__(self, seq):
        super().__init__()
        self.seq_module = seq

    def forward(self, x, lengths):
        for module in self.seq_module:
            x = module(x)
            mask = torch.zeros(x.size(), dtype=torch.bool)
            for i, length in enumerate(lengths):
                length = int(length)
                if mask[i].size(2) - length > 0:
                    mask[i].narrow(2, length, mask[i].size(2) - length).fill_(1)
            x = x.masked_fill(mask, 0)
        return x


class BatchRNN(nn.Module):
    def __init__(self, n_in, batch_norm=True):
        super().__init__()
        self.batch_norm = SequenceWise(nn.BatchNorm1d(n_in)) if batch_norm else None
        self.rnn = nn.LSTM(input_size=n_in, hidden_size=HIDDEN, bidirectional=True, bias=True)

    def forward(self, x, lengths):
        if self.batch_norm is not None:
            x = self.batch_norm(x)
        x = nn.utils.rnn.pack_padded_sequence(x, lengths)
        x, _ = self.rnn(x)
        x, _ = nn.utils.rnn.pad_packed_sequence(x)
        return x.view(x.size(0), x.size(1), 2, -1).sum(2).view(x.size(0), x.size(1), -1)


class DeepSpeech2(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = MaskConv(nn.Sequential(
            nn.Conv2d(1, 32, kernel_size=(41, 11), stride=(2, 2), padding=(20, 5)),
            nn.BatchNorm2d(32), nn.Hardtanh(0, 20, inplace=True),
            nn.Conv2d(32, 32, kernel_size=(21, 11), stride=(2, 1), padding=(10, 5)),
            nn.BatchNorm2d(32), nn.Hardtanh(0, 20, inplace=True)))
        n = int(math.floor(FREQ + 2 * 20 - 41) / 2 + 1)
        n = int(math.floor(n + 2 * 10 - 21) / 2 + 1) * 32
        self.rnns = nn.ModuleList([BatchRNN(n, batch_norm=False)] +
                                  [BatchRNN(HIDDEN) for _ in range(LAYERS - 1)])
        self.fc = SequenceWise(nn.Sequential(nn.BatchNorm1d(HIDDEN), nn.Linear(HIDDEN, CLASSES, bias=False)))

    def get_seq_lens(self, lengths):
        for m in self.conv.modules():
            if type(m) == nn.Conv2d:
                lengths = (lengths + 2 * m.padding[1] - m.dilation[1] * (m.kernel_size[1] - 1) - 1) // m.stride[1] + 1
        return lengths.int()

    def forward(self, x, lengths):
        lengths = lengths.cpu().int()
        out_lengths = self.get_seq_lens(lengths)
        x = self.conv(x, out_lengths)
        s = x.size()
        x = x.view(s[0], s[1] * s[2], s[3]).transpose(1, 2).transpose(0, 1).contiguous()
        for rnn in self.rnns:
            x = rnn(x, out_lengths)
        x = self.fc(x).transpose(0, 1)
        return F.softmax(x, dim=-1), out_lengths  # InferenceBatchSoftmax: softmax in eval only


def build():
    torch.manual_seed(0)
    return DeepSpeech2().eval()


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return torch.randn(2, 1, FREQ, 50, generator=g), torch.tensor([50, 40])
