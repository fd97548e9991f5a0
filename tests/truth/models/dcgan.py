"""DCGAN generator (eriklindernoren/PyTorch-GAN 36d3c77e, implementations/dcgan) as
ACL_PyTorch/contrib/cv/gan/DCGAN exports it: MNIST digits, latent 100, 1 channel, img_size 32.

Own code with the upstream Generator's operators: Linear(100, 128*8*8), view to [N,128,8,8] on the run-time
batch, BatchNorm2d(128), nearest Upsample x2, Conv 3x3, BatchNorm2d(eps 0.8), LeakyReLU(0.2), Upsample x2,
Conv 3x3, BatchNorm2d(eps 0.8), LeakyReLU, Conv 3x3 to 1 channel, Tanh.

Variants: `upstream` (default: noise [N,100], hidden conv width 64) and `recipe` (dcgan.patch: noise
[N,100,1,1] flattened by z.view(z.size(0), -1) at the start of forward; hidden conv width 32, the width of
the recipe's own checkpoint).
Export: opset 11, input 'noise', output 'image', dynamic batch.
"""
import torch
from torch import nn

OPSET = 11


class Generator(nn.Module):
    def __init__(self, img_size=32, latent_dim=100, channels=1, width=64, flatten=False):
        super().__init__()
        self.flatten = flatten
        self.init_size = img_size // 4
        self.l1 = nn.Sequential(nn.Linear(latent_dim, 128 * self.init_size ** 2))
        self.conv_blocks = nn.Sequential(
            nn.BatchNorm2d(128),
            nn.Upsample(scale_factor=2),
            nn.Conv2d(128, 128, 3, stride=1, padding=1),
            nn.BatchNorm2d(128, 0.8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Upsample(scale_factor=2),
            nn.Conv2d(128, width, 3, stride=1, padding=1),
            nn.BatchNorm2d(width, 0.8),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(width, channels, 3, stride=1, padding=1),
            nn.Tanh())

    def forward(self, z):
        if self.flatten:
            z = z.view(z.size(0), -1)
        out = self.l1(z)
        out = out.view(out.shape[0], 128, self.init_size, self.init_size)
        return self.conv_blocks(out)


def build(variant="upstream"):
    if variant == "recipe":
        return Generator(width=32, flatten=True).eval()
    return Generator().eval()


def example_inputs(variant="upstream"):
    return (torch.randn(1, 100, 1, 1) if variant == "recipe" else torch.randn(1, 100),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(variant), path, input_names=["noise"], output_names=["image"],
                      dynamic_axes={"noise": {0: "-1"}, "image": {0: "-1"}}, opset_version=OPSET)
