"""SRCNN (yjn870/SRCNN-pytorch models.py, num_channels 1) as the contrib super-resolution recipe
exports it: conv 9x9 1->64 (pad 4), ReLU, conv 5x5 64->32 (pad 2), ReLU, conv 5x5 32->1 (pad 2).
Export: torch.onnx.export with no options under the recipe's torch 1.5, i.e. opset 9, torch's default
input name input.1, static 1x1x256x256.
"""
import torch
from torch import nn

OPSET = 9


class SRCNN(nn.Module):
    def __init__(self, num_channels=1):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channels, 64, kernel_size=9, padding=9 // 2)
        self.conv2 = nn.Conv2d(64, 32, kernel_size=5, padding=5 // 2)
        self.conv3 = nn.Conv2d(32, num_channels, kernel_size=5, padding=5 // 2)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        return self.conv3(x)


def build(variant="upstream"):
    return SRCNN().eval()


def example_inputs():
    return (torch.randn(1, 1, 256, 256),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, opset_version=OPSET)
