"""BERT-base SQuAD v1.1 QA model (NVIDIA DeepLearningExamples PyTorch/LanguageModeling/BERT
modeling.py, BertForQuestionAnswering) as the built-in Bert_Base_Uncased recipe exports it.

Operator structure (own code, NVIDIA's non-apex code path):
- embeddings: word / position (arange, expand) / token-type lookups (Gather), Add, LayerNorm;
- LayerNorm written out: u = mean(x, -1); s = (x - u) * (x - u) (two separate Subs of the same
  mean); mean(s, -1); (x - u) / sqrt(s + eps); weight * x + bias (the weight initializer is the
  FIRST input of the Mul);
- extended mask: unsqueeze(1).unsqueeze(2), cast, (1.0 - m) * -10000.0;
- self-attention: q/k/v Linear, reshape to heads, q/v permute(0,2,1,3), k permute(0,2,3,1),
  MatMul, Div by sqrt(head size), Add mask, Softmax, MatMul, permute, reshape; output Linear,
  Add residual, LayerNorm;
- FFN: LinearActivation = F.linear without bias (MatMul) then bias_gelu: x = bias + y,
  x * 0.5 * (1.0 + erf(x / 1.41421)); output Linear, Add, LayerNorm;
- QA head: Linear(hidden, 2), split(1, dim=-1), squeeze(-1) -> start / end logits.
Sizes reduced (hidden 64, 2 layers, 4 heads, FFN 256) - same operators; vocab padded to a
multiple of 8 as the recipe's script does (30522 -> 30528).
Export: opset 11, static inputs input_ids / token_type_ids / attention_mask int64 [bs,512]
(the recipe's dummy batch is its --batch_size; no dynamic axes), output names ['output'].
"""
import math
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
INPUT_NAMES = ["input_ids", "token_type_ids", "attention_mask"]
OUTPUT_NAMES = ["output"]
HIDDEN, LAYERS, HEADS, FFN = 64, 2, 4, 256
VOCAB = 30528
SEQ = 512


class LayerNorm(nn.Module):
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


class BiasGeluLinear(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(cout, cin) * 0.02)
        self.bias = nn.Parameter(torch.zeros(cout))

    def forward(self, x):
        y = F.linear(x, self.weight, None)
        x = self.bias + y
        return x * 0.5 * (1.0 + torch.erf(x / 1.41421))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = nn.Linear(HIDDEN, HIDDEN), nn.Linear(HIDDEN, HIDDEN), nn.Linear(HIDDEN, HIDDEN)
        self.o = nn.Linear(HIDDEN, HIDDEN)
        self.ln1 = LayerNorm(HIDDEN)
        self.inter = BiasGeluLinear(HIDDEN, FFN)
        self.out = nn.Linear(FFN, HIDDEN)
        self.ln2 = LayerNorm(HIDDEN)
        self.d = HIDDEN // HEADS

    def _heads(self, x, perm):
        x = torch.reshape(x, x.size()[:-1] + (HEADS, self.d))
        return x.permute(*perm)

    def forward(self, h, mask):
        q = self._heads(self.q(h), (0, 2, 1, 3))
        k = self._heads(self.k(h), (0, 2, 3, 1))
        v = self._heads(self.v(h), (0, 2, 1, 3))
        a = torch.matmul(q, k) / math.sqrt(self.d) + mask
        a = F.softmax(a, dim=-1)
        c = torch.matmul(a, v).permute(0, 2, 1, 3).contiguous()
        c = torch.reshape(c, c.size()[:-2] + (HIDDEN,))
        h = self.ln1(self.o(c) + h)
        return self.ln2(self.out(self.inter(h)) + h)


class BertQA(nn.Module):
    def __init__(self):
        super().__init__()
        self.word = nn.Embedding(VOCAB, HIDDEN)
        self.pos = nn.Embedding(512, HIDDEN)
        self.tok = nn.Embedding(2, HIDDEN)
        self.ln = LayerNorm(HIDDEN)
        self.layers = nn.ModuleList([Layer() for _ in range(LAYERS)])
        self.qa = nn.Linear(HIDDEN, 2)

    def forward(self, input_ids, token_type_ids, attention_mask):
        m = attention_mask.unsqueeze(1).unsqueeze(2).to(dtype=self.word.weight.dtype)
        m = (1.0 - m) * -10000.0
        pos = torch.arange(input_ids.size(1), dtype=torch.long).unsqueeze(0).expand_as(input_ids)
        h = self.ln(self.word(input_ids) + self.pos(pos) + self.tok(token_type_ids))
        for layer in self.layers:
            h = layer(h, m)
        start, end = self.qa(h).split(1, dim=-1)
        return start.squeeze(-1), end.squeeze(-1)


def build(variant="upstream"):
    return BertQA().eval()


def example_inputs(batch=1):
    ones = torch.ones(batch, SEQ).long()
    return (ones, ones.clone(), ones.clone())


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, verbose=False,
                      operator_export_type=torch.onnx.OperatorExportTypes.ONNX,
                      input_names=INPUT_NAMES, output_names=OUTPUT_NAMES, opset_version=OPSET)
