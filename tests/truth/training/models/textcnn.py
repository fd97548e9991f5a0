"""Stand-in for 649453932/Chinese-Text-Classification-Pytorch models/TextCNN.py
(Kim-style TextCNN: embedding, three Conv2d(1, F, (k, embed)) branches, ReLU,
squeeze, max_pool1d over the whole length, concat, dropout, linear). Written
from the operator structure; embed 300 is kept (the recipe's change depends on
it), filters reduced to 16, random weights."""
import torch
from torch import nn
import torch.nn.functional as F

VOCAB, EMBED, FILTERS, SIZES, PAD_SIZE, CLASSES = 100, 300, 16, (2, 3, 4), 32, 10


class TextCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMBED, padding_idx=VOCAB - 1)
        self.convs = nn.ModuleList([nn.Conv2d(1, FILTERS, (k, EMBED)) for k in SIZES])
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(FILTERS * len(SIZES), CLASSES)

    def conv_and_pool(self, x, conv):
        x = F.relu(conv(x)).squeeze(3)
        # upstream: F.max_pool1d(x, x.size(2)); int() only so torch.jit.trace accepts the size
        return F.max_pool1d(x, int(x.size(2))).squeeze(2)

    def forward(self, x):
        out = self.embedding(x).unsqueeze(1)
        out = torch.cat([self.conv_and_pool(out, conv) for conv in self.convs], 1)
        return self.fc(self.dropout(out))


def build():
    torch.manual_seed(0)
    return TextCNN().eval()


def example_inputs():
    g = torch.Generator().manual_seed(0)
    return (torch.randint(0, VOCAB, (2, PAD_SIZE), generator=g),)
