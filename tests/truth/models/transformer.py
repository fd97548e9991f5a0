"""Transformer seq2seq (jadore801120/attention-is-all-you-need-pytorch, commit 132907dd) in the
greedy-search Translator the contrib Transformer recipe's README writes, as it exports it.

Operator structure (own code, upstream transformer/Models.py, Layers.py, SubLayers.py, Modules.py):
- get_pad_mask: (seq != pad).unsqueeze(-2); get_subsequent_mask as patched by the recipe:
  1 - np.triu(ones((1, L, L)), 1) via torch.from_numpy, .bool() (a constant per step);
- Encoder / Decoder: Embedding (padding_idx), + sinusoid table [:, :L] (buffer), Dropout,
  nn.LayerNorm(eps 1e-6), then the layers;
- MultiHeadAttention: w_qs / w_ks / w_vs Linear without bias, view (b, l, n, d) and transpose(1, 2),
  mask.unsqueeze(1); ScaledDotProductAttention: matmul(q / temperature, k.transpose(2, 3)),
  masked_fill(mask == 0, -1e9), softmax, matmul v; transpose back, view, fc, += residual, LayerNorm;
- PositionwiseFeedForward: Linear, relu, Linear, += residual, LayerNorm;
- Translator (the README's greedy version): encoder once; gen_seq = blank_seqs.clone(); for step in
  1..max_seq_len-1: decoder over trg_seq, softmax(trg_word_prj(dec)), dec[0, -1, :].topk(1),
  gen_seq[0, step] = idx, trg_seq = gen_seq[:, :step + 1]; returns gen_seq[0].
Shared source/target embedding and projection as trained for Multi30k (-embs_share_weight
-proj_share_weight). Sizes reduced (d_model 64, d_inner 128, 2 layers, 4 heads, d_k = d_v = 16,
vocabulary 1000; upstream 512 / 2048 / 6 / 8 / 64 / ~9.5k); max_seq_len 15 as the recipe.
variant 'recipe' (default): the above. variant 'upstream_mask': torch.triu in get_subsequent_mask
(does NOT export at opset 11: no triu symbolic before opset 14). The upstream beam-search Translator
has no forward and is not offered.
Export: opset 11, input 'input' int64 [1, 15] (no dynamic axes), output 'output'.
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 11
MAX_SEQ_LEN = 15
VOCAB, D_MODEL, D_INNER, LAYERS, HEADS, D_K = 1000, 64, 128, 2, 4, 16
PAD, BOS, EOS = 1, 2, 3
TRIU = {"torch": False}


def get_pad_mask(seq, pad_idx):
    return (seq != pad_idx).unsqueeze(-2)


def get_subsequent_mask(seq):
    sz_b, len_s = seq.size()
    if TRIU["torch"]:
        return (1 - torch.triu(torch.ones((1, len_s, len_s), device=seq.device), diagonal=1)).bool()
    temp = np.triu(torch.ones((1, len_s, len_s)), 1)
    return (1 - torch.from_numpy(temp)).bool()


class PositionalEncoding(nn.Module):
    def __init__(self, d_hid, n_position=200):
        super().__init__()
        self.register_buffer("pos_table", self._table(n_position, d_hid))

    @staticmethod
    def _table(n_position, d_hid):
        def angles(pos):
            return [pos / np.power(10000, 2 * (j // 2) / d_hid) for j in range(d_hid)]
        t = np.array([angles(p) for p in range(n_position)])
        t[:, 0::2] = np.sin(t[:, 0::2])
        t[:, 1::2] = np.cos(t[:, 1::2])
        return torch.FloatTensor(t).unsqueeze(0)

    def forward(self, x):
        return x + self.pos_table[:, :x.size(1)].clone().detach()


class ScaledDotProductAttention(nn.Module):
    def __init__(self, temperature):
        super().__init__()
        self.temperature = temperature
        self.dropout = nn.Dropout(0.1)

    def forward(self, q, k, v, mask=None):
        attn = torch.matmul(q / self.temperature, k.transpose(2, 3))
        if mask is not None:
            attn = attn.masked_fill(mask == 0, -1e9)
        attn = self.dropout(F.softmax(attn, dim=-1))
        return torch.matmul(attn, v), attn


class MultiHeadAttention(nn.Module):
    def __init__(self, n_head=HEADS, d_model=D_MODEL, d_k=D_K, d_v=D_K):
        super().__init__()
        self.n_head, self.d_k, self.d_v = n_head, d_k, d_v
        self.w_qs = nn.Linear(d_model, n_head * d_k, bias=False)
        self.w_ks = nn.Linear(d_model, n_head * d_k, bias=False)
        self.w_vs = nn.Linear(d_model, n_head * d_v, bias=False)
        self.fc = nn.Linear(n_head * d_v, d_model, bias=False)
        self.attention = ScaledDotProductAttention(temperature=d_k ** 0.5)
        self.dropout = nn.Dropout(0.1)
        self.layer_norm = nn.LayerNorm(d_model, eps=1e-6)

    def forward(self, q, k, v, mask=None):
        d_k, d_v, n_head = self.d_k, self.d_v, self.n_head
        sz_b, len_q, len_k, len_v = q.size(0), q.size(1), k.size(1), v.size(1)
        residual = q
        q = self.w_qs(q).view(sz_b, len_q, n_head, d_k)
        k = self.w_ks(k).view(sz_b, len_k, n_head, d_k)
        v = self.w_vs(v).view(sz_b, len_v, n_head, d_v)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        if mask is not None:
            mask = mask.unsqueeze(1)
        q, attn = self.attention(q, k, v, mask=mask)
        q = q.transpose(1, 2).contiguous().view(sz_b, len_q, -1)
        q = self.dropout(self.fc(q))
        q += residual
        return self.layer_norm(q), attn


class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_in=D_MODEL, d_hid=D_INNER):
        super().__init__()
        self.w_1 = nn.Linear(d_in, d_hid)
        self.w_2 = nn.Linear(d_hid, d_in)
        self.layer_norm = nn.LayerNorm(d_in, eps=1e-6)
        self.dropout = nn.Dropout(0.1)

    def forward(self, x):
        residual = x
        x = self.dropout(self.w_2(F.relu(self.w_1(x))))
        x += residual
        return self.layer_norm(x)


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.slf_attn = MultiHeadAttention()
        self.pos_ffn = PositionwiseFeedForward()

    def forward(self, x, slf_attn_mask=None):
        x, a = self.slf_attn(x, x, x, mask=slf_attn_mask)
        return self.pos_ffn(x), a


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.slf_attn = MultiHeadAttention()
        self.enc_attn = MultiHeadAttention()
        self.pos_ffn = PositionwiseFeedForward()

    def forward(self, x, enc, slf_attn_mask=None, dec_enc_attn_mask=None):
        x, a1 = self.slf_attn(x, x, x, mask=slf_attn_mask)
        x, a2 = self.enc_attn(x, enc, enc, mask=dec_enc_attn_mask)
        return self.pos_ffn(x), a1, a2


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.src_word_emb = nn.Embedding(VOCAB, D_MODEL, padding_idx=PAD)
        self.position_enc = PositionalEncoding(D_MODEL)
        self.dropout = nn.Dropout(0.1)
        self.layer_stack = nn.ModuleList([EncoderLayer() for _ in range(LAYERS)])
        self.layer_norm = nn.LayerNorm(D_MODEL, eps=1e-6)

    def forward(self, src_seq, src_mask):
        x = self.layer_norm(self.dropout(self.position_enc(self.src_word_emb(src_seq))))
        for layer in self.layer_stack:
            x, _ = layer(x, slf_attn_mask=src_mask)
        return x,


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.trg_word_emb = nn.Embedding(VOCAB, D_MODEL, padding_idx=PAD)
        self.position_enc = PositionalEncoding(D_MODEL)
        self.dropout = nn.Dropout(0.1)
        self.layer_stack = nn.ModuleList([DecoderLayer() for _ in range(LAYERS)])
        self.layer_norm = nn.LayerNorm(D_MODEL, eps=1e-6)

    def forward(self, trg_seq, trg_mask, enc_output, src_mask):
        x = self.layer_norm(self.dropout(self.position_enc(self.trg_word_emb(trg_seq))))
        for layer in self.layer_stack:
            x, _, _ = layer(x, enc_output, slf_attn_mask=trg_mask, dec_enc_attn_mask=src_mask)
        return x,


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = Decoder()
        self.trg_word_prj = nn.Linear(D_MODEL, VOCAB, bias=False)
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)
        self.trg_word_prj.weight = self.decoder.trg_word_emb.weight
        self.encoder.src_word_emb.weight = self.decoder.trg_word_emb.weight


class Translator(nn.Module):
    """The README's greedy-search Translator (replacing upstream's beam search)."""

    def __init__(self, model, max_seq_len, src_pad_idx, trg_pad_idx, trg_bos_idx, trg_eos_idx):
        super().__init__()
        self.max_seq_len = max_seq_len
        self.trg_bos_idx = trg_bos_idx
        self.src_pad_idx = src_pad_idx
        self.model = model
        self.model.eval()
        self.register_buffer("init_seq", torch.LongTensor([[trg_bos_idx]]))
        self.register_buffer("blank_seqs", torch.full((1, max_seq_len), trg_pad_idx, dtype=torch.long))
        self.blank_seqs[:, 0] = self.trg_bos_idx

    def forward(self, src_seq):
        src_mask = get_pad_mask(src_seq, self.src_pad_idx)
        enc_output, *_ = self.model.encoder(src_seq, src_mask)
        gen_seq = self.blank_seqs.clone().detach()
        trg_seq = self.init_seq
        for step in range(1, self.max_seq_len):
            trg_mask = get_subsequent_mask(trg_seq)
            dec_output, *_ = self.model.decoder(trg_seq, trg_mask, enc_output, src_mask)
            dec_output = F.softmax(self.model.trg_word_prj(dec_output), dim=-1)
            _, best_k_idx = dec_output[0, -1, :].topk(1)
            gen_seq[0, step] = best_k_idx
            trg_seq = gen_seq[:, :step + 1]
        return gen_seq[0]


def build(variant="recipe"):
    TRIU["torch"] = variant == "upstream_mask"
    return Translator(Transformer(), MAX_SEQ_LEN, PAD, PAD, BOS, EOS).eval()


def example_inputs():
    return (torch.ones(1, MAX_SEQ_LEN).long(),)


def export(path, variant="recipe"):
    torch.manual_seed(0)
    model = build(variant)
    with torch.no_grad():
        torch.onnx.export(model, example_inputs(), path, input_names=["input"], output_names=["output"],
                          opset_version=OPSET)
