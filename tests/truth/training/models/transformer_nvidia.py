"""Stand-in for the NVIDIA DeepLearningExamples fairseq-based Transformer
(PyTorch/Translation/Transformer @be349d9: fairseq/models/transformer.py,
fairseq/modules/multihead_attention.py, sinusoidal_positional_embedding.py),
arch transformer_wmt_en_de with shared embeddings, default (non-fused) code
path: post-norm nn.LayerNorm, F.threshold ReLU, q/k/v projections as
addmm(beta=0) (what the upstream autograd Functions compute in forward),
attention with -inf masking whose two batched matmuls go through autograd
Functions, as upstream's StridedBmm1Func / StridedBmm2Func do (there they call
the CUDA extension strided_batched_gemm; here the same forward, torch.bmm, which
torch.jit.trace records as prim::PythonOp, the op a custom Function is).
Written from the operator structure only; 2+2 layers, width 32, random weights."""
import math

import torch
from torch import nn
import torch.nn.functional as F

D, HEADS, FFN_DIM, LAYERS, VOCAB, PAD = 32, 4, 64, 2, 50, 1


class StridedBmm(torch.autograd.Function):
    """The upstream attention's batched matmul: a custom Function (its backward computes
    both gradients with the same extension)."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return torch.bmm(a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return torch.bmm(grad, b.transpose(1, 2)), torch.bmm(a.transpose(1, 2), grad)


def sinusoid(n, dim, pad):
    half = dim // 2
    e = math.log(10000) / (half - 1)
    e = torch.exp(torch.arange(half, dtype=torch.float) * -e)
    e = torch.arange(n, dtype=torch.float).unsqueeze(1) * e.unsqueeze(0)
    e = torch.cat([torch.sin(e), torch.cos(e)], dim=1).view(n, -1)
    e[pad] = torch.zeros(e.shape[1])
    return e


class SinusoidalPositions(nn.Module):
    def __init__(self, left_pad, size=64):
        super().__init__()
        self.left_pad = left_pad
        self.register_buffer('weights', sinusoid(size, D, PAD))
        self.register_buffer('positions_buffer', torch.arange(PAD + 1, size + PAD + 1))

    def forward(self, tokens):
        bsz, n = tokens.size()
        mask = tokens.ne(PAD)
        positions = self.positions_buffer[:n].expand_as(tokens)
        if self.left_pad:
            positions = positions - mask.size(1) + mask.long().sum(dim=1).unsqueeze(1)
        positions = tokens.clone().masked_scatter_(mask, positions[mask])
        return self.weights.index_select(0, positions.view(-1)).view(bsz, n, -1).detach()


def proj(x, w, alpha):
    flat = x.contiguous().view(x.size(0) * x.size(1), x.size(2))
    return torch.addmm(flat, flat, w, beta=0.0, alpha=alpha).view(x.size(0), x.size(1), x.size(2))


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.hd = D // HEADS
        self.scaling = self.hd ** -0.5
        self.wq = nn.Parameter(torch.randn(D, D) * 0.1)
        self.wk = nn.Parameter(torch.randn(D, D) * 0.1)
        self.wv = nn.Parameter(torch.randn(D, D) * 0.1)
        self.out_proj = nn.Linear(D, D, bias=False)

    def forward(self, query, key, future_mask, key_padding_mask):
        tgt, bsz, _ = query.size()
        src = key.size(0)
        q = proj(query, self.wq, self.scaling)
        k = proj(key, self.wk, 1.0)
        v = proj(key, self.wv, 1.0)
        q = q.contiguous().view(tgt, bsz * HEADS, self.hd).transpose(0, 1)
        k = k.contiguous().view(src, bsz * HEADS, self.hd).transpose(0, 1)
        v = v.contiguous().view(src, bsz * HEADS, self.hd).transpose(0, 1)
        w = StridedBmm.apply(q, k.transpose(1, 2))
        if future_mask is not None:
            w = w + future_mask.unsqueeze(0)
        if key_padding_mask is not None:
            w = w.view(bsz, HEADS, tgt, src)
            w = w.float().masked_fill(key_padding_mask.unsqueeze(1).unsqueeze(2), float('-inf')).type_as(w)
            w = w.view(bsz * HEADS, tgt, src)
        w = F.softmax(w, dim=-1)
        w = F.dropout(w, p=0.1, training=self.training)
        a = StridedBmm.apply(w, v)
        a = a.transpose(0, 1).contiguous().view(tgt, bsz, D)
        return self.out_proj(a)


class FFN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(D, FFN_DIM)
        self.fc2 = nn.Linear(FFN_DIM, D)

    def forward(self, x):
        x = F.threshold(self.fc1(x), 0.0, 0.0)
        x = F.dropout(x, p=0.1, training=self.training)
        return self.fc2(x)


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn, self.ffn = Attention(), FFN()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)

    def forward(self, x, pad_mask):
        r = x
        x = self.attn(x, x, None, pad_mask)
        x = self.ln1(r + F.dropout(x, p=0.1, training=self.training))
        r = x
        x = self.ffn(x)
        return self.ln2(r + F.dropout(x, p=0.1, training=self.training))


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.self_attn, self.cross_attn, self.ffn = Attention(), Attention(), FFN()
        self.ln1, self.ln2, self.ln3 = nn.LayerNorm(D), nn.LayerNorm(D), nn.LayerNorm(D)

    def forward(self, x, enc, enc_pad, future):
        r = x
        x = self.self_attn(x, x, future, None)
        x = self.ln1(r + F.dropout(x, p=0.1, training=self.training))
        r = x
        x = self.cross_attn(x, enc, None, enc_pad)
        x = self.ln2(r + F.dropout(x, p=0.1, training=self.training))
        r = x
        x = self.ffn(x)
        return self.ln3(r + F.dropout(x, p=0.1, training=self.training))


class TransformerNMT(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D, padding_idx=PAD)  # shared by encoder, decoder, output
        self.scale = math.sqrt(D)
        self.enc_pos = SinusoidalPositions(left_pad=True)
        self.dec_pos = SinusoidalPositions(left_pad=False)
        self.enc = nn.ModuleList([EncoderLayer() for _ in range(LAYERS)])
        self.dec = nn.ModuleList([DecoderLayer() for _ in range(LAYERS)])
        # upstream buffered_mask(): triu(-inf) built once, cached, then sliced [:n, :n]
        self.register_buffer('future_mask', torch.triu(torch.full((64, 64), float('-inf')), 1))

    def forward(self, src_tokens, prev_output_tokens):
        x = self.scale * self.embed(src_tokens)
        x = x + self.enc_pos(src_tokens)
        x = F.dropout(x, p=0.1, training=self.training).transpose(0, 1)
        pad = src_tokens.eq(PAD)
        for layer in self.enc:
            x = layer(x, pad)
        enc = x
        n = prev_output_tokens.size(1)
        future = self.future_mask[:n, :n]
        y = self.scale * self.embed(prev_output_tokens)
        y = y + self.dec_pos(prev_output_tokens)
        y = F.dropout(y, p=0.1, training=self.training).transpose(0, 1)
        for layer in self.dec:
            y = layer(y, enc, pad, future)
        return F.linear(y.transpose(0, 1), self.embed.weight)


def build():
    torch.manual_seed(0)
    return TransformerNMT().eval()


def example_inputs():
    g = torch.Generator().manual_seed(0)
    src = torch.randint(4, VOCAB, (2, 12), generator=g)
    src[1, :3] = PAD  # left-padded source, so the padding mask path is traced
    tgt = torch.randint(4, VOCAB, (2, 10), generator=g)
    return src, tgt
