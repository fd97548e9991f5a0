"""WaveGlow vocoder inference graph (NVIDIA/waveglow glow.py, waveglow_256channels_universal_v5:
12 flows, n_group 8, early output of 2 channels every 4 flows, WN with 8 layers, kernel 3)
as the contrib recipe exports it (model.forward = model.infer, opset 13, mel [1,80,T] with a
dynamic T, output audio [1, T*256]).

Operator structure of infer (own code, weight norm removed as the recipe does):
- ConvTranspose1d(80, 80, 1024, stride 256) upsampling, trim the last 768 samples, group the
  time axis by 8 and fold it into channels ([N,640,T*32]);
- gaussian noise for the 8 audio channels (4 at the start, +2 +2 at the early outputs);
- 12 flows in reverse: split audio in halves, WN(audio_0, spect) = 1x1 start conv, 8 dilated
  Conv1d (dilations 1..128) + conditioning slice, tanh * sigmoid gate (SlowFast-style
  scripted fused function), 1x1 res/skip convs, 1x1 end conv -> s, b; audio_1 = (audio_1 - b)
  / exp(s); Concat; inverse 1x1 conv (Conv1d with the precomputed inverse weight);
- permute and flatten to [N, T*256].
WN channels reduced from 256 to 32 (same operators).

variant="recipe" (DEFAULT): WaveGlow.patch applied - all noise drawn once at the start with
  torch.randn(N, 8, T*32) and sliced, unfold replaced by view/permute, sigma 0.9, explicit
  slice ends, final view with explicit sizes.
variant="upstream": the upstream infer with its unfold and per-stage noise; upstream draws the
  noise with torch.cuda.FloatTensor(...).normal_() (CUDA only), replaced here by
  spect.new_empty(...).normal_() so it can be traced on the CPU.
Export: opset 13, input 'mel' [1,80,T] (dynamic axis 2 'mel_seq'), output 'output_audio'
(dynamic axis 1). The example T is 16 (the recipe traces with T=1; small T only changes
constants).
"""
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 13
INPUT_NAMES = ["mel"]
OUTPUT_NAMES = ["output_audio"]
DYNAMIC_AXES = {"mel": {2: "mel_seq"}, "output_audio": {1: "audio_seq"}}
N_MEL, N_FLOWS, N_GROUP, EARLY_EVERY, EARLY_SIZE = 80, 12, 8, 4, 2
WN_LAYERS, WN_CH, WN_K = 8, 32, 3          # upstream WN channels 256


@torch.jit.script
def gated(input_a, input_b, n_channels):
    n = n_channels[0]
    in_act = input_a + input_b
    return torch.tanh(in_act[:, :n, :]) * torch.sigmoid(in_act[:, n:, :])


class WN(nn.Module):
    def __init__(self, n_in):
        super().__init__()
        self.start = nn.Conv1d(n_in, WN_CH, 1)
        self.end = nn.Conv1d(WN_CH, 2 * n_in, 1)
        self.cond = nn.Conv1d(N_MEL * N_GROUP, 2 * WN_CH * WN_LAYERS, 1)
        self.ins = nn.ModuleList()
        self.res_skip = nn.ModuleList()
        for i in range(WN_LAYERS):
            d = 2 ** i
            self.ins.append(nn.Conv1d(WN_CH, 2 * WN_CH, WN_K, dilation=d, padding=(WN_K * d - d) // 2))
            self.res_skip.append(nn.Conv1d(WN_CH, 2 * WN_CH if i < WN_LAYERS - 1 else WN_CH, 1))

    def forward(self, audio, spect):
        audio = self.start(audio)
        out = torch.zeros_like(audio)
        nch = torch.IntTensor([WN_CH])
        spect = self.cond(spect)
        for i in range(WN_LAYERS):
            off = i * 2 * WN_CH
            acts = gated(self.ins[i](audio), spect[:, off:off + 2 * WN_CH, :], nch)
            rs = self.res_skip[i](acts)
            if i < WN_LAYERS - 1:
                audio = audio + rs[:, :WN_CH, :]
                out = out + rs[:, WN_CH:, :]
            else:
                out = out + rs
        return self.end(out)


class InvConv(nn.Module):
    def __init__(self, c):
        super().__init__()
        w = torch.linalg.qr(torch.randn(c, c))[0]
        if torch.det(w) < 0:
            w[:, 0] = -w[:, 0]
        self.register_buffer("w_inverse", w.inverse()[..., None])

    def forward(self, z):
        return F.conv1d(z, self.w_inverse, bias=None, stride=1, padding=0)


class WaveGlowInfer(nn.Module):
    def __init__(self, recipe=True):
        super().__init__()
        self.recipe = recipe
        self.upsample = nn.ConvTranspose1d(N_MEL, N_MEL, 1024, stride=256)
        self.WN, self.convinv = nn.ModuleList(), nn.ModuleList()
        n_half, n_rem = N_GROUP // 2, N_GROUP
        for k in range(N_FLOWS):
            if k % EARLY_EVERY == 0 and k > 0:
                n_half -= EARLY_SIZE // 2
                n_rem -= EARLY_SIZE
            self.convinv.append(InvConv(n_rem))
            self.WN.append(WN(n_half))
        self.n_rem = n_rem

    def forward(self, spect):
        return self._recipe(spect) if self.recipe else self._upstream(spect)

    def _upstream(self, spect, sigma=1.0):
        spect = self.upsample(spect)
        cut = self.upsample.kernel_size[0] - self.upsample.stride[0]
        spect = spect[:, :, :-cut]
        spect = spect.unfold(2, N_GROUP, N_GROUP).permute(0, 2, 1, 3)
        spect = spect.contiguous().view(spect.size(0), spect.size(1), -1).permute(0, 2, 1)
        audio = spect.new_empty(spect.size(0), self.n_rem, spect.size(2)).normal_()
        audio = sigma * audio
        for k in reversed(range(N_FLOWS)):
            n_half = int(audio.size(1) / 2)
            a0, a1 = audio[:, :n_half, :], audio[:, n_half:, :]
            out = self.WN[k](a0, spect)
            s, b = out[:, n_half:, :], out[:, :n_half, :]
            audio = torch.cat([a0, (a1 - b) / torch.exp(s)], 1)
            audio = self.convinv[k](audio)
            if k % EARLY_EVERY == 0 and k > 0:
                z = spect.new_empty(spect.size(0), EARLY_SIZE, spect.size(2)).normal_()
                audio = torch.cat((sigma * z, audio), 1)
        return audio.permute(0, 2, 1).contiguous().view(audio.size(0), -1)

    def _recipe(self, spect, sigma=0.9):
        z = torch.randn(spect.size(0), N_GROUP, (spect.size(2) * 256) // N_GROUP)
        spect = self.upsample(spect)
        cut = self.upsample.kernel_size[0] - self.upsample.stride[0]
        spect = spect[:, :, :-cut]
        bs = spect.size(0)
        t = spect.size(2) // 8
        spect = spect.view((bs, N_MEL, t, N_GROUP)).permute(0, 2, 1, 3).contiguous()
        spect = spect.view((bs, t, N_GROUP * N_MEL)).permute(0, 2, 1).contiguous()
        audio = z[:, :self.n_rem, :]
        z = z[:, self.n_rem:N_GROUP, :]
        audio = sigma * audio
        for k in reversed(range(N_FLOWS)):
            n_half = int(audio.size(1) // 2)
            a0, a1 = audio[:, :n_half, :], audio[:, n_half:(n_half + n_half), :]
            out = self.WN[k](a0, spect)
            s, b = out[:, n_half:(n_half + n_half), :], out[:, :n_half, :]
            audio = torch.cat([a0, (a1 - b) / torch.exp(s)], 1)
            audio = self.convinv[k](audio)
            if k % EARLY_EVERY == 0 and k > 0:
                audio = torch.cat((z[:, :EARLY_SIZE, :], audio), 1)
                z = z[:, EARLY_SIZE:N_GROUP, :]
        return audio.permute(0, 2, 1).contiguous().view(bs, t * N_GROUP)


def build(variant="recipe"):
    return WaveGlowInfer(recipe=(variant != "upstream")).eval()


def example_inputs():
    return (torch.randn(1, N_MEL, 16),)


def export(path, variant="recipe"):
    torch.manual_seed(0)
    with torch.no_grad():
        torch.onnx.export(build(variant), example_inputs(), path, input_names=INPUT_NAMES,
                          export_params=True, opset_version=OPSET, output_names=OUTPUT_NAMES,
                          dynamic_axes=DYNAMIC_AXES)
