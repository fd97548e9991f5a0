"""TextCNN sentence classifier (649453932/Chinese-Text-Classification-Pytorch, via the
ascend-textcnn fork) as the built-in recipe exports it.

Operator structure (own code): Embedding (Gather) of int64 token ids [N,32] -> Unsqueeze to
[N,1,32,300] -> three Conv2d(1, 256, (k, 300)) branches, k = 2, 3, 4 -> ReLU -> squeeze(3) to
3-D -> max_pool1d over the whole time axis (kernel 31/30/29) -> squeeze(2) -> Concat -> Linear
(Gemm) to 10 classes. Dropout is a no-op in eval.
Export: opset 11, input 'sentence' int64 [N,32] with dynamic batch, output 'class' [N,10].
The upstream pools with kernel x.size(2); torch 1.13's tracer hands max_pool1d a tensor there,
so the builder passes the same value as a python int (the exported kernel is the same constant).
"""
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
INPUT_NAMES = ["sentence"]
OUTPUT_NAMES = ["class"]
DYNAMIC_AXES = {"sentence": {0: "-1"}, "class": {0: "-1"}}
VOCAB = 4800        # vocabulary size of the THUCNews vocab.pkl is not stated; any size gives the same ops
EMBED = 300
PAD_SIZE = 32


class TextCNNLike(nn.Module):
    def __init__(self, n_vocab=VOCAB, embed=EMBED, filters=256, sizes=(2, 3, 4), classes=10):
        super().__init__()
        self.embedding = nn.Embedding(n_vocab, embed)
        self.convs = nn.ModuleList([nn.Conv2d(1, filters, (k, embed)) for k in sizes])
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(filters * len(sizes), classes)

    @staticmethod
    def _branch(x, conv):
        x = F.relu(conv(x)).squeeze(3)
        x = F.max_pool1d(x, int(x.size(2)))
        return x.squeeze(2)

    def forward(self, tokens):
        out = self.embedding(tokens).unsqueeze(1)
        out = torch.cat([self._branch(out, c) for c in self.convs], 1)
        return self.fc(self.dropout(out))


def build(variant="upstream"):
    return TextCNNLike().eval()


def example_inputs():
    return (torch.randint(100, (1, PAD_SIZE)),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, opset_version=OPSET,
                      input_names=INPUT_NAMES, output_names=OUTPUT_NAMES,
                      dynamic_axes=DYNAMIC_AXES)
