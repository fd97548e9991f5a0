"""pix2pixHD generator (NVIDIA/pix2pixHD 5a2c8720) as ACL_PyTorch/contrib/cv/gan/Pix2pixHD exports it:
netG 'local' (LocalEnhancer, one enhancer), ngf 32, instance norm, Cityscapes label2city_1024p: 35 label
channels + 1 edge channel in, RGB out.

Own code with the upstream operators at the recipe's widths: the input pyramid by AvgPool2d(3, stride 2,
padding 1, count_include_pad=False); the global generator (ngf 64, 4 downsamplings, 9 residual blocks, 4
ConvTranspose2d upsamplings, final 7x7 conv dropped) on the half-size input; the enhancer's downsample
(ReflectionPad2d(3), 7x7 conv, IN, ReLU, 3x3 stride-2 conv, IN, ReLU) added to the global features, 3
residual blocks (ReflectionPad2d(1) + 3x3 conv + IN), ConvTranspose2d, ReflectionPad2d(3), 7x7 conv, Tanh.
InstanceNorm2d without affine or running statistics, as upstream's get_norm_layer('instance').

One variant (the recipe exports the upstream model unchanged). Export: opset 11, input 'input_concat',
output 'fake_image', dynamic batch; traced at 1x36x256x512 (the recipe's 1024x2048 only changes
constants: every pad, pool and conv here is size-independent).
"""
import torch
from torch import nn

OPSET = 11


def _norm(c):
    return nn.InstanceNorm2d(c, affine=False)


class ResnetBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.conv_block = nn.Sequential(
            nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, 3, padding=0), _norm(dim), nn.ReLU(True),
            nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, 3, padding=0), _norm(dim))

    def forward(self, x):
        return x + self.conv_block(x)


def global_generator(cin, ngf, n_down=4, n_blocks=9):
    m = [nn.ReflectionPad2d(3), nn.Conv2d(cin, ngf, 7, padding=0), _norm(ngf), nn.ReLU(True)]
    for i in range(n_down):
        mult = 2 ** i
        m += [nn.Conv2d(ngf * mult, ngf * mult * 2, 3, stride=2, padding=1), _norm(ngf * mult * 2), nn.ReLU(True)]
    mult = 2 ** n_down
    m += [ResnetBlock(ngf * mult) for _ in range(n_blocks)]
    for i in range(n_down):
        mult = 2 ** (n_down - i)
        m += [nn.ConvTranspose2d(ngf * mult, ngf * mult // 2, 3, stride=2, padding=1, output_padding=1),
              _norm(ngf * mult // 2), nn.ReLU(True)]
    return m     # the final ReflectionPad2d(3) + 7x7 conv + Tanh are not kept in the LocalEnhancer


class LocalEnhancer(nn.Module):
    def __init__(self, cin=36, cout=3, ngf=32, n_blocks_local=3):
        super().__init__()
        self.model = nn.Sequential(*global_generator(cin, ngf * 2))
        self.model1_1 = nn.Sequential(
            nn.ReflectionPad2d(3), nn.Conv2d(cin, ngf, 7, padding=0), _norm(ngf), nn.ReLU(True),
            nn.Conv2d(ngf, ngf * 2, 3, stride=2, padding=1), _norm(ngf * 2), nn.ReLU(True))
        self.model1_2 = nn.Sequential(
            *[ResnetBlock(ngf * 2) for _ in range(n_blocks_local)],
            nn.ConvTranspose2d(ngf * 2, ngf, 3, stride=2, padding=1, output_padding=1), _norm(ngf), nn.ReLU(True),
            nn.ReflectionPad2d(3), nn.Conv2d(ngf, cout, 7, padding=0), nn.Tanh())
        self.downsample = nn.AvgPool2d(3, stride=2, padding=[1, 1], count_include_pad=False)

    def forward(self, x):
        coarse = self.model(self.downsample(x))
        return self.model1_2(self.model1_1(x) + coarse)


def build(variant="upstream"):
    return LocalEnhancer().eval()


def example_inputs():
    return (torch.randn(1, 36, 256, 512),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["input_concat"],
                      output_names=["fake_image"], dynamic_axes={"input_concat": {0: "-1"}, "fake_image": {0: "-1"}},
                      opset_version=OPSET)
