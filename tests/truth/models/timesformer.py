"""TimeSformer divided space-time (mmaction2 timesformer_divST_8x32x1_15e_kinetics400_rgb, Kinetics-400)
as the contrib TimeSformer recipe exports it: mmaction2 tools/deployment/pytorch2onnx.py (patched by
TimeSformer.patch: input 'imgs', output 'result', opset 11) --shape 1 3 3 8 224 224, no --softmax.

Operator structure (own code after mmaction2's TimeSformer / mmcv transformer layers; einops'
rearrange written as the reshape / permute it traces to, sizes read from .shape as einops does):
- input [1,3,3,8,224,224] (batch, 3 views, C, T, H, W) reshaped to [3,3,8,224,224];
- PatchEmbed: 'b c t h w -> (b t) c h w', Conv2d 16x16 stride 16 (768), flatten, transpose;
- class token expanded to the batch (Expand), Concat, + pos_embed; time embedding: tokens
  rearranged '(b t) p m -> (b p) t m', + time_embed, back to 'b (p t) m', Concat with the class
  tokens;
- layers of DividedTemporalAttentionWithNorm (LayerNorm, nn.MultiheadAttention over time,
  temporal_fc Linear, residual), DividedSpatialAttentionWithNorm (class token repeated per frame,
  LayerNorm, nn.MultiheadAttention over space, class-token mean over frames, residual) and
  FFNWithNorm (LayerNorm, Linear 3072, GELU, Linear, residual); 12 layers reduced to 2 (same
  operators);
- final LayerNorm (eps 1e-6), class token; TimeSformerHead Linear 400.
Export: opset 11, input 'imgs', output 'result', keep_initializers_as_inputs=True (mmaction2's
script); static; traced at [1,1,3,8,224,224] (one view: only constants differ). Exported with
grad enabled: under no_grad torch 1.13 routes nn.MultiheadAttention to a fused op that does not
export.
"""
import torch
from torch import nn

OPSET = 11
LAYERS = 2                     # upstream: 12
DIM, HEADS, FRAMES, PATCHES = 768, 12, 8, 196
EXPORT_INPUT = (1, 1, 3, 8, 224, 224)


class TemporalAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(DIM, eps=1e-6)
        self.attn = nn.MultiheadAttention(DIM, HEADS)
        self.temporal_fc = nn.Linear(DIM, DIM)

    def forward(self, query):
        init_cls_token = query[:, 0, :].unsqueeze(1)
        identity = query_t = query[:, 1:, :]
        b, pt, m = query_t.size()
        p, t = pt // FRAMES, FRAMES
        query_t = self.norm(query_t.reshape(b * p, t, m)).permute(1, 0, 2)
        res = self.attn(query_t, query_t, query_t)[0].permute(1, 0, 2)
        res = self.temporal_fc(res.contiguous()).reshape(b, p * t, m)
        return torch.cat((init_cls_token, identity + res), 1)


class SpatialAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(DIM, eps=1e-6)
        self.attn = nn.MultiheadAttention(DIM, HEADS)

    def forward(self, query):
        identity = query
        init_cls_token = query[:, 0, :].unsqueeze(1)
        query_s = query[:, 1:, :]
        b, pt, m = query_s.size()
        p, t = pt // FRAMES, FRAMES
        cls_token = init_cls_token.repeat(1, t, 1).reshape(b * t, m).unsqueeze(1)
        # rearrange 'b (p t) m -> (b t) p m'
        query_s = query_s.reshape(b, p, t, m).permute(0, 2, 1, 3).reshape(b * t, p, m)
        query_s = torch.cat((cls_token, query_s), 1)
        query_s = self.norm(query_s).permute(1, 0, 2)
        res = self.attn(query_s, query_s, query_s)[0].permute(1, 0, 2).contiguous()
        cls_token = torch.mean(res[:, 0, :].reshape(b, t, m), 1, True)
        # rearrange '(b t) p m -> b (p t) m'
        r = res[:, 1:, :]
        bt, p2, m2 = r.shape
        r = r.reshape(bt // t, t, p2, m2).permute(0, 2, 1, 3).reshape(bt // t, p2 * t, m2)
        return identity + torch.cat((cls_token, r), 1)


class FFNWithNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(DIM, eps=1e-6)
        self.layers = nn.Sequential(nn.Linear(DIM, 4 * DIM), nn.GELU(), nn.Dropout(0.0),
                                    nn.Linear(4 * DIM, DIM), nn.Dropout(0.0))

    def forward(self, x):
        return x + self.layers(self.norm(x))


class TimeSformer(nn.Module):
    def __init__(self, num_classes=400):
        super().__init__()
        self.projection = nn.Conv2d(3, DIM, 16, stride=16)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, DIM))
        self.pos_embed = nn.Parameter(torch.zeros(1, PATCHES + 1, DIM))
        self.time_embed = nn.Parameter(torch.zeros(1, FRAMES, DIM))
        self.layers = nn.ModuleList([nn.Sequential(TemporalAttention(), SpatialAttention(), FFNWithNorm())
                                     for _ in range(LAYERS)])
        self.norm = nn.LayerNorm(DIM, eps=1e-6)
        self.fc_cls = nn.Linear(DIM, num_classes)
        for p in (self.cls_token, self.pos_embed, self.time_embed):
            nn.init.normal_(p, std=0.02)

    def forward(self, imgs):
        x = imgs.reshape((-1,) + imgs.shape[2:])
        batches = x.shape[0]
        b, c, t, h, w = x.shape             # rearrange 'b c t h w -> (b t) c h w'
        x = x.permute(0, 2, 1, 3, 4).reshape(b * t, c, h, w)
        x = self.projection(x).flatten(2).transpose(1, 2)
        x = torch.cat((self.cls_token.expand(x.size(0), -1, -1), x), dim=1) + self.pos_embed
        cls_tokens = x[:batches, 0, :].unsqueeze(1)
        r = x[:, 1:, :]                     # rearrange '(b t) p m -> (b p) t m'
        bt, p, m = r.shape
        r = r.reshape(batches, bt // batches, p, m).permute(0, 2, 1, 3).reshape(batches * p, bt // batches, m)
        r = r + self.time_embed
        bp, t2, m = r.shape                 # rearrange '(b p) t m -> b (p t) m'
        r = r.reshape(batches, bp // batches, t2, m).reshape(batches, (bp // batches) * t2, m)
        x = torch.cat((cls_tokens, r), dim=1)
        for layer in self.layers:
            x = layer(x)
        return self.fc_cls(self.norm(x)[:, 0])


def build(variant="upstream"):
    return TimeSformer().eval()


def example_inputs():
    return (torch.randn(*EXPORT_INPUT),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["imgs"], output_names=["result"],
                      export_params=True, keep_initializers_as_inputs=True, opset_version=OPSET)
