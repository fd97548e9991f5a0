"""Stand-in for NVIDIA DeepLearningExamples BERT (PyTorch/LanguageModeling/BERT,
modeling.py @499fb1c) as BertForQuestionAnswering, in the form run_squad.py
trains it (ACT2FN['bias_gelu'] -> bias_gelu_training) and without apex (so
BertLayerNorm takes its hand-written mean/sqrt path). Written from the
operator structure only; small sizes, random weights."""
import math

import torch
from torch import nn
import torch.nn.functional as F

HIDDEN, HEADS, INTER, LAYERS, VOCAB, MAXPOS, TYPES = 64, 4, 128, 2, 100, 32, 2


class TFLayerNorm(nn.Module):
    """mean / centred square / mean / sqrt / divide / affine (upstream non-apex path)."""

    def __init__(self, n, eps=1e-12):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.bias = nn.Parameter(torch.zeros(n))
        self.eps = eps

    def forward(self, x):
        u = x.mean(-1, keepdim=True)
        s = (x - u)
        s = s * s
        s = s.mean(-1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.eps)
        return self.weight * x + self.bias


class DenseGelu(nn.Module):
    """Linear without bias, then bias add and exact GELU (bias_gelu_training)."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in) * 0.02)
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        y = F.linear(x, self.weight, None)
        return F.gelu(self.bias + y)


class DenseTanh(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_out, n_in) * 0.02)
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        y = F.linear(x, self.weight, None)
        return torch.tanh(self.bias + y)


class Embeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.word = nn.Embedding(VOCAB, HIDDEN)
        self.pos = nn.Embedding(MAXPOS, HIDDEN)
        self.typ = nn.Embedding(TYPES, HIDDEN)
        self.norm = TFLayerNorm(HIDDEN)
        self.drop = nn.Dropout(0.1)

    def forward(self, ids, types):
        n = ids.size(1)
        pos = torch.arange(n, dtype=torch.long, device=ids.device)
        pos = pos.unsqueeze(0).expand_as(ids)
        e = self.word(ids) + self.pos(pos) + self.typ(types)
        return self.drop(self.norm(e))


class SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.d = HIDDEN // HEADS
        self.q = nn.Linear(HIDDEN, HIDDEN)
        self.k = nn.Linear(HIDDEN, HIDDEN)
        self.v = nn.Linear(HIDDEN, HIDDEN)
        self.drop = nn.Dropout(0.1)

    def split(self, x, perm):
        x = torch.reshape(x, x.size()[:-1] + (HEADS, self.d))
        return x.permute(*perm)

    def forward(self, h, mask):
        q = self.split(self.q(h), (0, 2, 1, 3))
        k = self.split(self.k(h), (0, 2, 3, 1))
        v = self.split(self.v(h), (0, 2, 1, 3))
        s = torch.matmul(q, k) / math.sqrt(self.d)
        s = s + mask
        p = self.drop(F.softmax(s, dim=-1))
        c = torch.matmul(p, v).permute(0, 2, 1, 3).contiguous()
        return torch.reshape(c, c.size()[:-2] + (HIDDEN,))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = SelfAttention()
        self.attn_out = nn.Linear(HIDDEN, HIDDEN)
        self.attn_drop = nn.Dropout(0.1)
        self.attn_norm = TFLayerNorm(HIDDEN)
        self.inter = DenseGelu(HIDDEN, INTER)
        self.out = nn.Linear(INTER, HIDDEN)
        self.out_drop = nn.Dropout(0.1)
        self.out_norm = TFLayerNorm(HIDDEN)

    def forward(self, h, mask):
        a = self.attn_norm(self.attn_drop(self.attn_out(self.attn(h, mask))) + h)
        return self.out_norm(self.out_drop(self.out(self.inter(a))) + a)


class BertQA(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = Embeddings()
        self.layers = nn.ModuleList([Layer() for _ in range(LAYERS)])
        self.pooler = DenseTanh(HIDDEN, HIDDEN)
        self.qa = nn.Linear(HIDDEN, 2)

    def forward(self, input_ids, token_type_ids, attention_mask):
        m = attention_mask.unsqueeze(1).unsqueeze(2)
        m = m.to(dtype=self.emb.word.weight.dtype)
        m = (1.0 - m) * -10000.0
        h = self.emb(input_ids, token_type_ids)
        for layer in self.layers:
            h = layer(h, m)
        pooled = self.pooler(h[:, 0])  # computed upstream, unused by the QA head
        logits = self.qa(h)
        start, end = logits.split(1, dim=-1)
        return start.squeeze(-1), end.squeeze(-1)


def build():
    torch.manual_seed(0)
    return BertQA().eval()


def example_inputs():
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, VOCAB, (2, 16), generator=g)
    types = torch.zeros(2, 16, dtype=torch.long)
    mask = torch.ones(2, 16, dtype=torch.long)
    return ids, types, mask
