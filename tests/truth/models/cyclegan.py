"""CycleGAN generator (junyanz/pytorch-CycleGAN-and-pix2pix 9bcef69d, resnet_9blocks, instance norm, no
dropout) as ACL_PyTorch/contrib/cv/gan/CycleGAN exports it: maps <-> satellite, 3x256x256.

Own code, the upstream ResnetGenerator's operators at full width (ngf 64): pad + 7x7 conv + InstanceNorm
(affine off, no running stats, so the convs carry a bias) + ReLU, two 3x3 stride-2 convs, nine residual
blocks (pad 1, 3x3 conv, IN, ReLU, pad 1, 3x3 conv, IN, Add), two ConvTranspose2d (3x3, stride 2, output
padding 1), pad + 7x7 conv + Tanh.

Variants: `upstream` (default: nn.ReflectionPad2d everywhere, padding_type 'reflect') and `recipe`
(CycleGAN.patch: nn.ZeroPad2d(3) at both ends, and ResnetGenerator's default padding_type 'zero', so the
residual blocks pad inside their convs and have no Pad node).
Export: opset 11, one input per generator ('img_sat_maps' for G_A), output 'maps', dynamic batch.
"""
import torch
from torch import nn

OPSET = 11


class ResBlock(nn.Module):
    def __init__(self, dim, reflect):
        super().__init__()
        layers = []
        for last in (False, True):
            if reflect:
                layers += [nn.ReflectionPad2d(1), nn.Conv2d(dim, dim, 3, padding=0)]
            else:
                layers += [nn.Conv2d(dim, dim, 3, padding=1)]
            layers += [nn.InstanceNorm2d(dim)]
            if not last:
                layers += [nn.ReLU(True)]
        self.conv_block = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv_block(x)


class ResnetGenerator(nn.Module):
    def __init__(self, cin=3, cout=3, ngf=64, n_blocks=9, upstream=True):
        super().__init__()
        pad3 = nn.ReflectionPad2d if upstream else nn.ZeroPad2d
        m = [pad3(3), nn.Conv2d(cin, ngf, 7, padding=0), nn.InstanceNorm2d(ngf), nn.ReLU(True)]
        for i in range(2):
            mult = 2 ** i
            m += [nn.Conv2d(ngf * mult, ngf * mult * 2, 3, stride=2, padding=1),
                  nn.InstanceNorm2d(ngf * mult * 2), nn.ReLU(True)]
        for _ in range(n_blocks):
            m += [ResBlock(ngf * 4, reflect=upstream)]
        for i in range(2):
            mult = 2 ** (2 - i)
            m += [nn.ConvTranspose2d(ngf * mult, ngf * mult // 2, 3, stride=2, padding=1, output_padding=1),
                  nn.InstanceNorm2d(ngf * mult // 2), nn.ReLU(True)]
        m += [pad3(3), nn.Conv2d(ngf, cout, 7, padding=0), nn.Tanh()]
        self.model = nn.Sequential(*m)

    def forward(self, x):
        return self.model(x)


def build(variant="upstream"):
    return ResnetGenerator(upstream=(variant == "upstream")).eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 256),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["img_sat_maps"], output_names=["maps"],
                      dynamic_axes={"img_sat_maps": {0: "-1"}, "maps": {0: "-1"}}, opset_version=OPSET,
                      training=torch.onnx.TrainingMode.EVAL)
