"""Compact stand-in for DeepLabv3+ with a ResNet backbone from jfzhang95/pytorch-deeplab-xception,
the upstream of ModelZoo-PyTorch built-in/cv/semantic_segmentation/DeepLabv3+_ID1695_for_PyTorch.

Written from the DeepLabv3+ paper and the upstream operator inventory, not copied. Kept in
the upstream form the recipe later edited: every bilinear resize uses align_corners=True and
the decoder keeps its two Dropout layers (0.5 and 0.1); ASPP ends with Dropout(0.5).
Structure: ResNet stem (7x7 conv, BN, ReLU, 3x3 max pool), four bottleneck stages (one block
each, output stride 16, last stage dilated), ASPP with a 1x1 branch, three dilated 3x3 branches
and an image-pooling branch, decoder fusing the stride-4 low-level feature, final bilinear
resize to the input size. Widths are small; the operator set matters.
"""
import torch
from torch import nn
import torch.nn.functional as F


def cbr(cin, cout, k, stride=1, dilation=1):
    pad = 0 if k == 1 else dilation
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, pad, dilation=dilation, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Bottleneck(nn.Module):
    def __init__(self, cin, mid, stride, dilation):
        super().__init__()
        cout = mid * 4
        self.conv1, self.bn1 = nn.Conv2d(cin, mid, 1, bias=False), nn.BatchNorm2d(mid)
        self.conv2 = nn.Conv2d(mid, mid, 3, stride, dilation, dilation=dilation, bias=False)
        self.bn2 = nn.BatchNorm2d(mid)
        self.conv3, self.bn3 = nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return self.relu(y + self.down(x))


class DeepLabV3PlusStandIn(nn.Module):
    def __init__(self, classes=5, w=8):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, w, 7, 2, 3, bias=False), nn.BatchNorm2d(w),
                                  nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1))
        self.layer1 = Bottleneck(w, w, 1, 1)            # stride 4, low-level feature
        self.layer2 = Bottleneck(4 * w, 2 * w, 2, 1)    # stride 8
        self.layer3 = Bottleneck(8 * w, 4 * w, 2, 1)    # stride 16
        self.layer4 = Bottleneck(16 * w, 8 * w, 1, 2)   # stride 16, dilated
        c4, a = 32 * w, 16
        self.aspp1 = cbr(c4, a, 1)
        self.aspp2 = cbr(c4, a, 3, dilation=6)
        self.aspp3 = cbr(c4, a, 3, dilation=12)
        self.aspp4 = cbr(c4, a, 3, dilation=18)
        self.image_pool = nn.Sequential(nn.AdaptiveAvgPool2d((1, 1)), nn.Conv2d(c4, a, 1, bias=False),
                                        nn.BatchNorm2d(a), nn.ReLU(inplace=True))
        self.aspp_out = nn.Sequential(nn.Conv2d(5 * a, a, 1, bias=False), nn.BatchNorm2d(a),
                                      nn.ReLU(inplace=True), nn.Dropout(0.5))
        self.low = cbr(4 * w, 8, 1)
        self.head = nn.Sequential(
            nn.Conv2d(a + 8, a, 3, 1, 1, bias=False), nn.BatchNorm2d(a), nn.ReLU(inplace=True),
            nn.Dropout(0.5),
            nn.Conv2d(a, a, 3, 1, 1, bias=False), nn.BatchNorm2d(a), nn.ReLU(inplace=True),
            nn.Dropout(0.1),
            nn.Conv2d(a, classes, 1))

    def forward(self, inp):
        low = self.layer1(self.stem(inp))
        x = self.layer4(self.layer3(self.layer2(low)))
        pooled = self.image_pool(x)
        pooled = F.interpolate(pooled, size=x.size()[2:], mode="bilinear", align_corners=True)
        x = torch.cat((self.aspp1(x), self.aspp2(x), self.aspp3(x), self.aspp4(x), pooled), dim=1)
        x = self.aspp_out(x)
        low = self.low(low)
        x = F.interpolate(x, size=low.size()[2:], mode="bilinear", align_corners=True)
        x = self.head(torch.cat((x, low), dim=1))
        return F.interpolate(x, size=inp.size()[2:], mode="bilinear", align_corners=True)


def build():
    return DeepLabV3PlusStandIn()


def example_inputs():
    return (torch.randn(2, 3, 64, 64),)
