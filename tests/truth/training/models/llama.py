"""Stand-in for Hugging Face transformers 4.33 LlamaForCausalLM (modeling_llama.py;
the recipe pins transformers==4.33.0 and ships an unpatched copy as
tasks/modeling_llama.py): RMSNorm computed in fp32 (pow/mean/rsqrt), rotary
embedding with cached cos/sin and rotate_half, causal + padding additive mask
filled with finfo.min, matmul/softmax(fp32) attention, SiLU-gated MLP, untied
lm_head. Written from the operator structure only; 2 layers, width 64, 4
heads, random weights. Returns logits (the loss is left out)."""
import math

import torch
from torch import nn
import torch.nn.functional as F

D, HEADS, FFN, LAYERS, VOCAB, MAXPOS, EPS = 64, 4, 172, 2, 128, 64, 1e-6


class RMSNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(D))

    def forward(self, h):
        dtype = h.dtype
        h = h.to(torch.float32)
        var = h.pow(2).mean(-1, keepdim=True)
        h = h * torch.rsqrt(var + EPS)
        return self.weight * h.to(dtype)


def rotate_half(x):
    x1 = x[..., : x.shape[-1] // 2]
    x2 = x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.hd = D // HEADS
        self.q_proj = nn.Linear(D, D, bias=False)
        self.k_proj = nn.Linear(D, D, bias=False)
        self.v_proj = nn.Linear(D, D, bias=False)
        self.o_proj = nn.Linear(D, D, bias=False)

    def forward(self, h, mask, cos, sin, position_ids):
        b, n, _ = h.size()
        q = self.q_proj(h).view(b, n, HEADS, self.hd).transpose(1, 2)
        k = self.k_proj(h).view(b, n, HEADS, self.hd).transpose(1, 2)
        v = self.v_proj(h).view(b, n, HEADS, self.hd).transpose(1, 2)
        c = cos[:, :, :n].squeeze(1).squeeze(0)[position_ids].unsqueeze(1)
        s = sin[:, :, :n].squeeze(1).squeeze(0)[position_ids].unsqueeze(1)
        q = (q * c) + (rotate_half(q) * s)
        k = (k * c) + (rotate_half(k) * s)
        w = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd)
        w = w + mask
        w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        o = torch.matmul(w, v).transpose(1, 2).contiguous().reshape(b, n, D)
        return self.o_proj(o)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(D, FFN, bias=False)
        self.up_proj = nn.Linear(D, FFN, bias=False)
        self.down_proj = nn.Linear(FFN, D, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_layernorm, self.post_attention_layernorm = RMSNorm(), RMSNorm()
        self.self_attn, self.mlp = Attention(), MLP()

    def forward(self, h, mask, cos, sin, pos):
        h = h + self.self_attn(self.input_layernorm(h), mask, cos, sin, pos)
        return h + self.mlp(self.post_attention_layernorm(h))


class Llama(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList([Layer() for _ in range(LAYERS)])
        self.norm = RMSNorm()
        self.lm_head = nn.Linear(D, VOCAB, bias=False)
        hd = D // HEADS
        inv_freq = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        t = torch.arange(MAXPOS, dtype=inv_freq.dtype)
        emb = torch.cat((torch.einsum("i,j->ij", t, inv_freq),) * 2, dim=-1)
        self.register_buffer('cos_cached', emb.cos()[None, None, :, :])
        self.register_buffer('sin_cached', emb.sin()[None, None, :, :])

    def forward(self, input_ids, attention_mask):
        b, n = input_ids.size()
        pos = torch.arange(0, n, dtype=torch.long).unsqueeze(0).view(-1, n)
        h = self.embed_tokens(input_ids)
        dtype = h.dtype
        minv = torch.finfo(dtype).min
        causal = torch.full((n, n), minv)
        cond = torch.arange(n)
        causal = causal.masked_fill(cond < (cond + 1).view(n, 1), 0).to(dtype)
        causal = causal[None, None, :, :].expand(b, 1, n, n)
        expanded = attention_mask[:, None, None, :].expand(b, 1, n, n).to(dtype)
        inverted = 1.0 - expanded
        mask = inverted.masked_fill(inverted.to(torch.bool), minv) + causal
        for layer in self.layers:
            h = layer(h, mask, self.cos_cached.to(dtype), self.sin_cached.to(dtype), pos)
        return self.lm_head(self.norm(h)).float()


def build():
    torch.manual_seed(0)
    return Llama().eval()


def example_inputs():
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(0, VOCAB, (2, 16), generator=g)
    mask = torch.ones(2, 16, dtype=torch.long)
    mask[1, 12:] = 0
    return ids, mask
