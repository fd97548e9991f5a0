"""TinyBERT SST-2 classifier (huawei-noah/Pretrained-Language-Model TinyBERT/transformer/modeling.py,
TinyBertForSequenceClassification) as the contrib tinybert recipe exports it.

Operator structure (own code, the non-apex path of modeling.py):
- BertEmbeddings: word / position (arange(seq), unsqueeze(0).expand_as(input_ids)) / token-type
  Gathers, Add, BertLayerNorm;
- BertLayerNorm written out: u = mean(-1); s = (x - u).pow(2).mean(-1); (x - u) / sqrt(s + eps);
  weight * x + bias;
- extended mask: attention_mask.unsqueeze(1).unsqueeze(2).to(float), (1.0 - m) * -10000.0;
- BertSelfAttention: q/k/v Linear, view + permute(0,2,1,3), matmul(q, k.transpose(-1,-2)),
  / sqrt(head), + mask, Softmax, matmul v, permute, view; returns the context and the pre-softmax
  scores (att_output);
- BertSelfOutput / BertOutput: Linear, Add residual, LayerNorm; BertIntermediate: Linear + erf gelu
  (x * 0.5 * (1 + erf(x / sqrt(2))));
- BertEncoder collects the 5 hidden states (input of each layer and the last) and 4 score tensors;
- BertPooler: hidden_states[-1][:, 0], Linear, Tanh; classifier Linear(312, 2) on relu(pooled).
forward returns (logits, att_output, sequence_output): ten graph outputs, as the recipe's export.
Sizes of the SST-2 TinyBERT (4 layers, 312 hidden, 12 heads, 1200 FFN, 512 positions); vocabulary
30522 -> 1000 (only the word Gather table shrinks).
Export: opset 11, static inputs input_ids / segment_ids / input_mask int64 [bs, 64] (one export per
batch, no dynamic axes), output_names ['output'], OperatorExportTypes.ONNX.
"""
import math
import torch
from torch import nn

OPSET = 11
SEQ = 64
VOCAB, HIDDEN, LAYERS, HEADS, FFN, POS, LABELS = 1000, 312, 4, 12, 1200, 512, 2


class BertLayerNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-12):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.bias = nn.Parameter(torch.zeros(hidden_size))
        self.variance_epsilon = eps

    def forward(self, x):
        u = x.mean(-1, keepdim=True)
        s = (x - u).pow(2).mean(-1, keepdim=True)
        x = (x - u) / torch.sqrt(s + self.variance_epsilon)
        return self.weight * x + self.bias


def gelu(x):
    return x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))


class Embeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, HIDDEN, padding_idx=0)
        self.position_embeddings = nn.Embedding(POS, HIDDEN)
        self.token_type_embeddings = nn.Embedding(2, HIDDEN)
        self.LayerNorm = BertLayerNorm(HIDDEN)
        self.dropout = nn.Dropout(0.1)

    def forward(self, input_ids, token_type_ids):
        seq_length = input_ids.size(1)
        position_ids = torch.arange(seq_length, dtype=torch.long, device=input_ids.device)
        position_ids = position_ids.unsqueeze(0).expand_as(input_ids)
        e = self.word_embeddings(input_ids) + self.position_embeddings(position_ids) + \
            self.token_type_embeddings(token_type_ids)
        return self.dropout(self.LayerNorm(e))


class SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.num_attention_heads = HEADS
        self.attention_head_size = HIDDEN // HEADS
        self.all_head_size = HIDDEN
        self.query = nn.Linear(HIDDEN, HIDDEN)
        self.key = nn.Linear(HIDDEN, HIDDEN)
        self.value = nn.Linear(HIDDEN, HIDDEN)
        self.dropout = nn.Dropout(0.1)

    def transpose_for_scores(self, x):
        x = x.view(*(x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)))
        return x.permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        q = self.transpose_for_scores(self.query(hidden_states))
        k = self.transpose_for_scores(self.key(hidden_states))
        v = self.transpose_for_scores(self.value(hidden_states))
        scores = torch.matmul(q, k.transpose(-1, -2))
        scores = scores / math.sqrt(self.attention_head_size)
        scores = scores + attention_mask
        probs = self.dropout(nn.Softmax(dim=-1)(scores))
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(*(ctx.size()[:-2] + (self.all_head_size,)))
        return ctx, scores


class Output(nn.Module):
    def __init__(self, cin):
        super().__init__()
        self.dense = nn.Linear(cin, HIDDEN)
        self.LayerNorm = BertLayerNorm(HIDDEN)
        self.dropout = nn.Dropout(0.1)

    def forward(self, h, residual):
        return self.LayerNorm(self.dropout(self.dense(h)) + residual)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.self_attn = SelfAttention()
        self.attn_out = Output(HIDDEN)
        self.intermediate = nn.Linear(HIDDEN, FFN)
        self.output = Output(FFN)

    def forward(self, h, mask):
        ctx, att = self.self_attn(h, mask)
        a = self.attn_out(ctx, h)
        return self.output(gelu(self.intermediate(a)), a), att


class TinyBertForSequenceClassification(nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = Embeddings()
        self.layer = nn.ModuleList([Layer() for _ in range(LAYERS)])
        self.pooler = nn.Linear(HIDDEN, HIDDEN)
        self.dropout = nn.Dropout(0.1)
        self.classifier = nn.Linear(HIDDEN, LABELS)
        self.fit_dense = nn.Linear(HIDDEN, 768)   # used only with is_student=True

    def forward(self, input_ids, token_type_ids, attention_mask):
        m = attention_mask.unsqueeze(1).unsqueeze(2)
        m = m.to(dtype=next(self.parameters()).dtype)
        m = (1.0 - m) * -10000.0
        h = self.embeddings(input_ids, token_type_ids)
        layers, atts = [], []
        for layer in self.layer:
            layers.append(h)
            h, att = layer(h, m)
            atts.append(att)
        layers.append(h)
        pooled = torch.tanh(self.pooler(layers[-1][:, 0]))
        logits = self.classifier(torch.relu(pooled))
        return logits, atts, layers


def build(variant="upstream"):
    return TinyBertForSequenceClassification().eval()


def example_inputs(batch=1):
    ones = torch.ones(batch, SEQ).long()
    return (ones, ones.clone(), ones.clone())


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, export_params=True,
                      input_names=["input_ids", "segment_ids", "input_mask"], output_names=["output"],
                      operator_export_type=torch.onnx.OperatorExportTypes.ONNX,
                      opset_version=OPSET, verbose=False)
