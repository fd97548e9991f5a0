"""BigGAN 128x128 ImageNet generator (ajbrock/BigGAN-PyTorch 98459431) as ACL_PyTorch/contrib/cv/gan/BigGAN
exports it: G_ch 96 (reduced here to 16), hierarchical latents (dim_z 120 in six chunks of 20), shared class
embedding of 128 outside the graph, attention at 64x64, spectral norm on every conv and linear (SN_eps 1e-6).

Own code with the upstream operators: spectrally normalised weights computed in the forward from the weight
and the stored singular vector u (one power-iteration step: MatMul, F.normalize (ReduceL2, Clip(min=eps),
Expand, Div), MatMul with W^T, the singular value, weight / sv), the first SN linear from a 20-d latent chunk to
16*ch x 4 x 4, five GBlocks (class-conditional BN: F.batch_norm on stored statistics, then * (1 + SNLinear(y))
+ SNLinear(y) with the 148-d y = [class embedding, latent chunk]; ReLU; nearest F.interpolate x2 on both paths;
3x3 SN convs; 1x1 SN shortcut conv; Add), the SA-GAN attention block after the 64x64 block (1x1 SN convs,
max_pool2d 2x2, views, bmm, softmax, bmm, gamma * o + x), output BN (F.batch_norm with gain and bias), ReLU,
3x3 SN conv to RGB, tanh.

Variants: `upstream` (default: forward(z [N,120], y [N,128]) splits z into six chunks with torch.split and
concatenates the class embedding to chunks 1..5 with torch.cat) and `recipe` (biggan.patch: forward(z [N,1,20],
ys [N,5,148]) takes the first chunk and the five concatenated vectors precomputed by the pre-processing,
z.view(-1, 20), ys.view(-1, 5, 148), and ys[:, index, :] per block).
Export: opset 11, inputs 'noise' and 'label', output 'image', dynamic batch, export defaults otherwise.
"""
import functools

import torch
import torch.nn.functional as F
from torch import nn

OPSET = 11
CH = 16            # the recipe's G_ch is 96
DIM_Z, CHUNK, SHARED = 120, 20, 128
SN_EPS, BN_EPS = 1e-6, 1e-5


def _power_iteration(w_mat, u, eps):
    with torch.no_grad():
        v = F.normalize(torch.matmul(u, w_mat), eps=eps)
        u = F.normalize(torch.matmul(v, w_mat.t()), eps=eps)
    return torch.squeeze(torch.matmul(torch.matmul(v, w_mat.t()), u.t()))


class _SN:
    def _sn_init(self, num_outputs, eps):
        self.sn_eps = eps
        self.register_buffer("u0", torch.randn(1, num_outputs))
        self.register_buffer("sv0", torch.ones(1))

    def W_(self):
        w_mat = self.weight.view(self.weight.size(0), -1)
        sv = _power_iteration(w_mat, self.u0, self.sn_eps)
        return self.weight / sv


class SNConv2d(nn.Conv2d, _SN):
    def __init__(self, cin, cout, kernel_size=3, padding=1, bias=True, eps=SN_EPS):
        nn.Conv2d.__init__(self, cin, cout, kernel_size, 1, padding, bias=bias)
        self._sn_init(cout, eps)

    def forward(self, x):
        return F.conv2d(x, self.W_(), self.bias, self.stride, self.padding, self.dilation, self.groups)


class SNLinear(nn.Linear, _SN):
    def __init__(self, cin, cout, bias=True, eps=SN_EPS):
        nn.Linear.__init__(self, cin, cout, bias)
        self._sn_init(cout, eps)

    def forward(self, x):
        return F.linear(x, self.W_(), self.bias)


class CCBN(nn.Module):
    def __init__(self, channels, input_size=SHARED + CHUNK):
        super().__init__()
        self.gain = SNLinear(input_size, channels, bias=False)
        self.bias = SNLinear(input_size, channels, bias=False)
        self.register_buffer("stored_mean", torch.zeros(channels))
        self.register_buffer("stored_var", torch.ones(channels))

    def forward(self, x, y):
        gain = (1 + self.gain(y)).view(y.size(0), -1, 1, 1)
        bias = self.bias(y).view(y.size(0), -1, 1, 1)
        out = F.batch_norm(x, self.stored_mean, self.stored_var, None, None, False, 0.1, BN_EPS)
        return out * gain + bias


class BN(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(channels))
        self.bias = nn.Parameter(torch.zeros(channels))
        self.register_buffer("stored_mean", torch.zeros(channels))
        self.register_buffer("stored_var", torch.ones(channels))

    def forward(self, x):
        return F.batch_norm(x, self.stored_mean, self.stored_var, self.gain, self.bias, False, 0.1, BN_EPS)


class GBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.upsample = functools.partial(F.interpolate, scale_factor=2)
        self.conv1 = SNConv2d(cin, cout)
        self.conv2 = SNConv2d(cout, cout)
        self.conv_sc = SNConv2d(cin, cout, kernel_size=1, padding=0)
        self.bn1 = CCBN(cin)
        self.bn2 = CCBN(cout)

    def forward(self, x, y):
        h = F.relu(self.bn1(x, y))
        h = self.upsample(h)
        x = self.upsample(x)
        h = self.conv2(F.relu(self.bn2(self.conv1(h), y)))
        return h + self.conv_sc(x)


class Attention(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.ch = ch
        self.theta = SNConv2d(ch, ch // 8, kernel_size=1, padding=0, bias=False)
        self.phi = SNConv2d(ch, ch // 8, kernel_size=1, padding=0, bias=False)
        self.g = SNConv2d(ch, ch // 2, kernel_size=1, padding=0, bias=False)
        self.o = SNConv2d(ch // 2, ch, kernel_size=1, padding=0, bias=False)
        self.gamma = nn.Parameter(torch.tensor(0.))

    def forward(self, x, y=None):
        theta = self.theta(x)
        phi = F.max_pool2d(self.phi(x), [2, 2])
        g = F.max_pool2d(self.g(x), [2, 2])
        theta = theta.view(-1, self.ch // 8, x.shape[2] * x.shape[3])
        phi = phi.view(-1, self.ch // 8, x.shape[2] * x.shape[3] // 4)
        g = g.view(-1, self.ch // 2, x.shape[2] * x.shape[3] // 4)
        beta = F.softmax(torch.bmm(theta.transpose(1, 2), phi), -1)
        o = self.o(torch.bmm(g, beta.transpose(1, 2)).view(-1, self.ch // 2, x.shape[2], x.shape[3]))
        return self.gamma * o + x


class Generator(nn.Module):
    def __init__(self, ch=CH, upstream=True):
        super().__init__()
        self.upstream = upstream
        cin = [ch * m for m in (16, 16, 8, 4, 2)]
        cout = [ch * m for m in (16, 8, 4, 2, 1)]
        resolution = [8, 16, 32, 64, 128]
        self.linear = SNLinear(CHUNK, cin[0] * 4 * 4)
        blocks = []
        for i in range(5):
            block = [GBlock(cin[i], cout[i])]
            if resolution[i] == 64:
                block.append(Attention(cout[i]))
            blocks.append(nn.ModuleList(block))
        self.blocks = nn.ModuleList(blocks)
        self.output_layer = nn.Sequential(BN(cout[-1]), nn.ReLU(), SNConv2d(cout[-1], 3))

    def forward(self, z, y):
        if self.upstream:
            zs = torch.split(z, CHUNK, 1)
            z = zs[0]
            ys = [torch.cat([y, item], 1) for item in zs[1:]]
        else:
            z = z.view(-1, CHUNK)
            y = y.view(-1, 5, SHARED + CHUNK)
        h = self.linear(z)
        h = h.view(h.size(0), -1, 4, 4)
        for index, blocklist in enumerate(self.blocks):
            yi = ys[index] if self.upstream else y[:, index, :]
            for block in blocklist:
                h = block(h, yi)
        return torch.tanh(self.output_layer(h))


def build(variant="upstream"):
    return Generator(upstream=(variant == "upstream")).eval()


def example_inputs(variant="upstream"):
    if variant == "recipe":
        return (torch.randn(1, 1, CHUNK), torch.randn(1, 5, SHARED + CHUNK))
    return (torch.randn(1, DIM_Z), torch.randn(1, SHARED))


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(variant), path, input_names=["noise", "label"],
                      output_names=["image"],
                      dynamic_axes={"noise": {0: "-1"}, "label": {0: "-1"}, "image": {0: "-1"}},
                      opset_version=OPSET)
