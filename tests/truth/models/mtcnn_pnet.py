"""MTCNN's PNet (timesler/facenet-pytorch models/mtcnn.py) as ACL_PyTorch/contrib/cv/face/FaceNet's
MTCNN_pth2onnx.py exports it: opset 11, input 'image' with dynamic batch, H and W, two outputs named
['probs', 'reg'] (the forward returns the box regression first, so 'probs' holds the 4-channel regression and
'reg' the 2-channel face scores), dynamic axes 0, 2, 3 on all three.

Own code, upstream operators and widths: Conv 3->10 k3, PReLU(10), MaxPool 2 s2 ceil_mode, Conv 10->16 k3, PReLU(16),
Conv 16->32 k3, PReLU(32), then Conv 32->2 k1 (+ Softmax over the channel axis) and Conv 32->4 k1.

Variants: `upstream` (default: PNet with its Softmax(dim=1) on the score map) and `recipe` (mtcnn.patch's
PNet_truncated: the Softmax is left out of the graph and applied on the host after the OM).
"""
import torch
from torch import nn

OPSET = 11


class PNet(nn.Module):
    def __init__(self, truncated=False):
        super().__init__()
        self.truncated = truncated
        self.conv1 = nn.Conv2d(3, 10, kernel_size=3)
        self.prelu1 = nn.PReLU(10)
        self.pool1 = nn.MaxPool2d(2, 2, ceil_mode=True)
        self.conv2 = nn.Conv2d(10, 16, kernel_size=3)
        self.prelu2 = nn.PReLU(16)
        self.conv3 = nn.Conv2d(16, 32, kernel_size=3)
        self.prelu3 = nn.PReLU(32)
        self.conv4_1 = nn.Conv2d(32, 2, kernel_size=1)
        self.softmax4_1 = nn.Softmax(dim=1)
        self.conv4_2 = nn.Conv2d(32, 4, kernel_size=1)

    def forward(self, x):
        x = self.pool1(self.prelu1(self.conv1(x)))
        x = self.prelu3(self.conv3(self.prelu2(self.conv2(x))))
        a = self.conv4_1(x)
        if not self.truncated:
            a = self.softmax4_1(a)
        b = self.conv4_2(x)
        return b, a


def build(variant="upstream"):
    return PNet(truncated=(variant == "recipe")).eval()


def example_inputs():
    return (torch.randn(1, 3, 1229, 1000),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    axes = {0: "-1", 2: "-1", 3: "-1"}
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["image"], output_names=["probs", "reg"],
                      dynamic_axes={"image": axes, "probs": axes, "reg": axes}, opset_version=OPSET)
