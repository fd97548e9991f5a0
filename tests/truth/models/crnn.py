"""CRNN text recogniser (Sierkinhane/CRNN_Chinese_Characters_Rec lib/models/crnn.py) for the
built-in CRNN_BuiltIn_for_Pytorch recipe (IIIT5K, 37 classes, 1x32x100 grey input).

Operator structure (own code): 7 Conv2d 3x3/2x2 with ReLU, BatchNorm after convs 2, 4, 6,
MaxPool2d 2x2 twice and (2,2) stride (2,1) pad (0,1) twice -> [N,512,1,26] -> squeeze(2) ->
permute to [26,N,512] -> two BidirectionalLSTM stages (LSTM hidden 256 + Linear on the
flattened [T*N, 512], view back) -> log_softmax over classes.

variant="upstream" (default): each stage is one nn.LSTM(bidirectional=True).
variant="recipe": the recipe's own crnn.py - each stage is two unidirectional nn.LSTM, the
  second fed torch.flip(x, [0]) and flipped back, outputs concatenated.
Export: opset 11, input 'actual_input_1' [N,1,32,100] (dynamic axis 0), output 'output1'
[26,N,37] (dynamic axis 1).
"""
import torch
from torch import nn

OPSET = 11
INPUT_NAMES = ["actual_input_1"]
OUTPUT_NAMES = ["output1"]
DYNAMIC_AXES = {"actual_input_1": {0: "-1"}, "output1": {1: "-1"}}


class BiLSTM(nn.Module):
    def __init__(self, nin, nh, nout, split):
        super().__init__()
        self.split = split
        if split:
            self.fw = nn.LSTM(nin, nh)
            self.bw = nn.LSTM(nin, nh)
        else:
            self.rnn = nn.LSTM(nin, nh, bidirectional=True)
        self.embedding = nn.Linear(nh * 2, nout)

    def forward(self, x):
        if self.split:
            f, _ = self.fw(x)
            b, _ = self.bw(torch.flip(x, [0]))
            rec = torch.cat((f, torch.flip(b, [0])), 2)
        else:
            rec, _ = self.rnn(x)
        t, n, h = rec.size()
        out = self.embedding(rec.view(t * n, h))
        return out.view(t, n, -1)


class CRNNLike(nn.Module):
    def __init__(self, nclass=37, nh=256, split=False):
        super().__init__()
        ks, ps = [3, 3, 3, 3, 3, 3, 2], [1, 1, 1, 1, 1, 1, 0]
        nm = [64, 128, 256, 256, 512, 512, 512]
        layers = []

        def conv_relu(i, bn=False):
            layers.append(nn.Conv2d(1 if i == 0 else nm[i - 1], nm[i], ks[i], 1, ps[i]))
            if bn:
                layers.append(nn.BatchNorm2d(nm[i]))
            layers.append(nn.ReLU(True))

        conv_relu(0); layers.append(nn.MaxPool2d(2, 2))
        conv_relu(1); layers.append(nn.MaxPool2d(2, 2))
        conv_relu(2, True); conv_relu(3); layers.append(nn.MaxPool2d((2, 2), (2, 1), (0, 1)))
        conv_relu(4, True); conv_relu(5); layers.append(nn.MaxPool2d((2, 2), (2, 1), (0, 1)))
        conv_relu(6, True)
        self.cnn = nn.Sequential(*layers)
        self.rnn = nn.Sequential(BiLSTM(512, nh, nh, split), BiLSTM(nh, nh, nclass, split))

    def forward(self, x):
        conv = self.cnn(x).squeeze(2).permute(2, 0, 1)
        return torch.nn.functional.log_softmax(self.rnn(conv), dim=2)


def build(variant="upstream"):
    return CRNNLike(split=(variant == "recipe")).eval()


def example_inputs():
    return (torch.randn(1, 1, 32, 100),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=INPUT_NAMES,
                      output_names=OUTPUT_NAMES, dynamic_axes=DYNAMIC_AXES, opset_version=OPSET)
