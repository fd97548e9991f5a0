"""Stand-in for the WeNet (wenet-e2e/wenet @ac9a261) hybrid CTC/attention
Conformer as configured by examples/aishell/s0/conf/train_conformer.yaml:
global CMVN, Conv2dSubsampling4, RelPositionalEncoding, pre-norm macaron
Conformer blocks (rel-pos self-attention with pos_bias_u/v, SiLU FFNs,
GLU/depthwise-conv/BatchNorm/SiLU conv module), pre-norm Transformer decoder,
CTC projection. Written from the operator structure only; 2 encoder + 2 decoder
blocks, width 64, random weights. Returns CTC log-probs and decoder logits
(the losses are left out: CTC loss has no ONNX export)."""
import math

import torch
from torch import nn

D, HEADS, FFN, VOCAB, FEATS, KERNEL = 64, 4, 128, 40, 80, 15


def make_pad_mask(lengths, max_len):
    b = lengths.size(0)
    seq = torch.arange(0, max_len, dtype=torch.int64, device=lengths.device)
    return seq.unsqueeze(0).expand(b, max_len) >= lengths.unsqueeze(-1)


def subsequent_mask(size):
    ar = torch.arange(size)
    return ar.expand(size, size) <= ar.unsqueeze(-1)


class MHA(nn.Module):
    def __init__(self, rel=False):
        super().__init__()
        self.dk, self.h, self.rel = D // HEADS, HEADS, rel
        self.linear_q, self.linear_k = nn.Linear(D, D), nn.Linear(D, D)
        self.linear_v, self.linear_out = nn.Linear(D, D), nn.Linear(D, D)
        self.dropout = nn.Dropout(0.0)
        if rel:
            self.linear_pos = nn.Linear(D, D, bias=False)
            self.pos_bias_u = nn.Parameter(torch.randn(HEADS, self.dk) * 0.1)
            self.pos_bias_v = nn.Parameter(torch.randn(HEADS, self.dk) * 0.1)

    def forward(self, query, key, value, mask, pos_emb=None):
        b = query.size(0)
        q = self.linear_q(query).view(b, -1, self.h, self.dk).transpose(1, 2)
        k = self.linear_k(key).view(b, -1, self.h, self.dk).transpose(1, 2)
        v = self.linear_v(value).view(b, -1, self.h, self.dk).transpose(1, 2)
        if self.rel:
            q = q.transpose(1, 2)
            p = self.linear_pos(pos_emb).view(pos_emb.size(0), -1, self.h, self.dk).transpose(1, 2)
            ac = torch.matmul((q + self.pos_bias_u).transpose(1, 2), k.transpose(-2, -1))
            bd = torch.matmul((q + self.pos_bias_v).transpose(1, 2), p.transpose(-2, -1))
            scores = (ac + bd) / math.sqrt(self.dk)
        else:
            scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.dk)
        mask = mask.unsqueeze(1).eq(0)
        mask = mask[:, :, :, :scores.size(-1)]
        scores = scores.masked_fill(mask, -float('inf'))
        attn = torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)
        x = torch.matmul(self.dropout(attn), v)
        x = x.transpose(1, 2).contiguous().view(b, -1, self.h * self.dk)
        return self.linear_out(x)


class FeedForward(nn.Module):
    def __init__(self, act):
        super().__init__()
        self.w_1, self.w_2 = nn.Linear(D, FFN), nn.Linear(FFN, D)
        self.act, self.dropout = act, nn.Dropout(0.1)

    def forward(self, x):
        return self.w_2(self.dropout(self.act(self.w_1(x))))


class ConvModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.pointwise_conv1 = nn.Conv1d(D, 2 * D, 1)
        self.depthwise_conv = nn.Conv1d(D, D, KERNEL, padding=(KERNEL - 1) // 2, groups=D)
        self.norm = nn.BatchNorm1d(D)
        self.pointwise_conv2 = nn.Conv1d(D, D, 1)
        self.act = nn.SiLU()

    def forward(self, x, mask_pad):
        x = x.transpose(1, 2)
        x = x.masked_fill(~mask_pad, 0.0)
        x = nn.functional.glu(self.pointwise_conv1(x), dim=1)
        x = self.act(self.norm(self.depthwise_conv(x)))
        x = self.pointwise_conv2(x)
        x = x.masked_fill(~mask_pad, 0.0)
        return x.transpose(1, 2)


class ConformerBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = MHA(rel=True)
        self.ff, self.ff_mac = FeedForward(nn.SiLU()), FeedForward(nn.SiLU())
        self.conv = ConvModule()
        self.norm_ff, self.norm_mha = nn.LayerNorm(D, eps=1e-5), nn.LayerNorm(D, eps=1e-5)
        self.norm_ff_macaron, self.norm_conv = nn.LayerNorm(D, eps=1e-5), nn.LayerNorm(D, eps=1e-5)
        self.norm_final = nn.LayerNorm(D, eps=1e-5)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x, mask, pos_emb, mask_pad):
        x = x + 0.5 * self.dropout(self.ff_mac(self.norm_ff_macaron(x)))
        y = self.norm_mha(x)
        x = x + self.dropout(self.attn(y, y, y, mask, pos_emb))
        x = x + self.dropout(self.conv(self.norm_conv(x), mask_pad))
        x = x + 0.5 * self.dropout(self.ff(self.norm_ff(x)))
        return self.norm_final(x)


class DecoderBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.self_attn, self.src_attn = MHA(), MHA()
        self.ff = FeedForward(nn.ReLU())
        self.norm1, self.norm2, self.norm3 = (nn.LayerNorm(D, eps=1e-5) for _ in range(3))
        self.dropout = nn.Dropout(0.1)

    def forward(self, x, tgt_mask, memory, memory_mask):
        y = self.norm1(x)
        x = x + self.dropout(self.self_attn(y, y, y, tgt_mask))
        y = self.norm2(x)
        x = x + self.dropout(self.src_attn(y, memory, memory, memory_mask))
        return x + self.dropout(self.ff(self.norm3(x)))


def sinusoid_table(n):
    pe = torch.zeros(n, D)
    pos = torch.arange(0, n, dtype=torch.float32).unsqueeze(1)
    div = torch.exp(torch.arange(0, D, 2, dtype=torch.float32) * -(math.log(10000.0) / D))
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    return pe.unsqueeze(0)


class WenetConformer(nn.Module):
    def __init__(self, blocks=2):
        super().__init__()
        self.register_buffer('cmvn_mean', torch.zeros(FEATS))
        self.register_buffer('cmvn_istd', torch.ones(FEATS))
        self.sub_conv = nn.Sequential(nn.Conv2d(1, D, 3, 2), nn.ReLU(), nn.Conv2d(D, D, 3, 2), nn.ReLU())
        self.sub_out = nn.Linear(D * (((FEATS - 1) // 2 - 1) // 2), D)
        self.register_buffer('pe', sinusoid_table(512))
        self.xscale = math.sqrt(D)
        self.pos_drop = nn.Dropout(0.1)
        self.encoders = nn.ModuleList([ConformerBlock() for _ in range(blocks)])
        self.after_norm = nn.LayerNorm(D, eps=1e-5)
        self.ctc_lo = nn.Linear(D, VOCAB)
        self.dec_embed = nn.Embedding(VOCAB, D)
        self.decoders = nn.ModuleList([DecoderBlock() for _ in range(blocks)])
        self.dec_norm = nn.LayerNorm(D, eps=1e-5)
        self.output_layer = nn.Linear(D, VOCAB)

    def forward(self, speech, speech_lengths, ys_in_pad, ys_in_lens):
        t = speech.size(1)
        masks = ~make_pad_mask(speech_lengths, t).unsqueeze(1)
        xs = (speech - self.cmvn_mean) * self.cmvn_istd
        xs = self.sub_conv(xs.unsqueeze(1))
        b, c, tt, f = xs.size()
        xs = self.sub_out(xs.transpose(1, 2).contiguous().view(b, tt, c * f))
        pos_emb = self.pe[:, 0:xs.size(1)]
        xs, pos_emb = self.pos_drop(xs * self.xscale), self.pos_drop(pos_emb)
        masks = masks[:, :, 2::2][:, :, 2::2]
        for layer in self.encoders:
            xs = layer(xs, masks, pos_emb, masks)
        enc = self.after_norm(xs)
        ctc_log_probs = torch.log_softmax(self.ctc_lo(enc), dim=2)
        maxlen = ys_in_pad.size(1)
        tgt_mask = ~make_pad_mask(ys_in_lens, maxlen).unsqueeze(1)
        tgt_mask = tgt_mask & subsequent_mask(maxlen).unsqueeze(0)
        x = self.dec_embed(ys_in_pad) * self.xscale + self.pe[:, 0:maxlen]
        x = self.pos_drop(x)
        for layer in self.decoders:
            x = layer(x, tgt_mask, enc, masks)
        return ctc_log_probs, self.output_layer(self.dec_norm(x))


def build():
    torch.manual_seed(0)
    return WenetConformer().eval()


def example_inputs():
    g = torch.Generator().manual_seed(0)
    speech = torch.randn(2, 64, FEATS, generator=g)
    speech_lengths = torch.tensor([64, 50])
    ys = torch.randint(0, VOCAB, (2, 8), generator=g)
    ys_lens = torch.tensor([8, 6])
    return speech, speech_lengths, ys, ys_lens
