"""TSM ResNet-50, 8 segments, Something-Something V2 (mmaction2 tsm_r50_1x1x8_50e_sthv2_rgb) as the
built-in recipe exports it through mmaction2 tools/deployment/pytorch2onnx.py --softmax
--shape ${bs} 48 3 256 256.

Operator structure (own code around torchvision's ResNet-50, the same 'pytorch' style
bottleneck network mmaction2 uses):
- input [N,48,3,256,256] reshaped to [N*48,3,256,256] (Recognizer2D.forward_dummy);
- in every bottleneck a temporal shift in front of conv1 ('blockres', num_segments 8, shift_div
  8): view to [-1,8,C,H*W], slice the first and second C/8 channels, zeros as 'fold - fold'
  (a Sub whose two inputs are the same tensor) sliced to one frame, the two folds shifted one
  frame back / forward with Slice + Concat on the segment axis, Concat along channels, view back;
- TSMHead: AdaptiveAvgPool2d(1), flatten, dropout, Linear(2048, 174), view to
  [-1, num_segments=8, 174] (the head's own num_segments, not the 48 views), mean over
  segments (average consensus), squeeze; --softmax adds a Softmax.
Export: opset 11, static [bs,48,3,256,256] (no dynamic axes), keep_initializers_as_inputs=True.
"""
import torch
from torch import nn
import torchvision

OPSET = 11
NUM_SEGMENTS = 8
NUM_VIEWS = 48
SHIFT_DIV = 8
NUM_CLASSES = 174


class TemporalShift(nn.Module):
    def __init__(self, net, num_segments=NUM_SEGMENTS, shift_div=SHIFT_DIV):
        super().__init__()
        self.net, self.num_segments, self.shift_div = net, num_segments, shift_div

    def forward(self, x):
        n, c, h, w = x.size()
        x = x.view(-1, self.num_segments, c, h * w)
        fold = c // self.shift_div
        left = x[:, :, :fold, :]
        mid = x[:, :, fold:2 * fold, :]
        right = x[:, :, 2 * fold:, :]
        blank = (left - left)[:, :1, :, :]
        left = torch.cat((left[:, 1:, :, :], blank), 1)
        blank = (mid - mid)[:, :1, :, :]
        mid = torch.cat((blank, mid[:, :-1, :, :]), 1)
        out = torch.cat((left, mid, right), 2).view(n, c, h, w)
        return self.net(out)


class TSMRecognizer(nn.Module):
    def __init__(self, softmax=True):
        super().__init__()
        r = torchvision.models.resnet50(weights=None)
        for layer in (r.layer1, r.layer2, r.layer3, r.layer4):
            for block in layer:
                block.conv1 = TemporalShift(block.conv1)
        self.backbone = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool,
                                      r.layer1, r.layer2, r.layer3, r.layer4)
        self.avg_pool = nn.AdaptiveAvgPool2d(1)
        self.dropout = nn.Dropout(0.5)
        self.fc_cls = nn.Linear(2048, NUM_CLASSES)
        self.softmax = softmax

    def forward(self, imgs):
        imgs = imgs.reshape((-1,) + imgs.shape[2:])
        x = self.avg_pool(self.backbone(imgs))
        x = self.fc_cls(self.dropout(torch.flatten(x, 1)))
        x = x.view((-1, NUM_SEGMENTS) + x.size()[1:]).mean(dim=1, keepdim=True).squeeze(1)
        if self.softmax:
            x = nn.functional.softmax(x, dim=1)
        return x


def build(variant="upstream"):
    return TSMRecognizer().eval()


def example_inputs():
    return (torch.randn(1, NUM_VIEWS, 3, 256, 256),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, export_params=True,
                      keep_initializers_as_inputs=True, opset_version=OPSET)
