"""TSM (Temporal Shift Module) ResNet-50, 8 segments, UCF-101 (mmaction2
tsm_k400_pretrained_r50_1x1x8_25e_ucf101_rgb) as the contrib recipe exports it through
mmaction2 tools/deployment/pytorch2onnx.py --softmax.

Operator structure (own code around torchvision's ResNet-50, which is the same 'pytorch'
style bottleneck network mmaction2 uses):
- input [N,8,3,224,224] reshaped to [N*8,3,224,224] (Recognizer2D.forward_dummy);
- in every bottleneck a temporal shift in front of conv1 ('blockres'): view to
  [N,8,C,H*W], slice the first C/8 and second C/8 channels, make zeros as
  'split - split' (a Sub whose two inputs are the same tensor) and slice one frame of it,
  shift the two folds one frame back / forward with Slice + Concat on the segment axis,
  Concat along channels and view back;
- TSMHead: AdaptiveAvgPool2d(1), flatten, Linear(2048, 101), view to [N,8,101], mean over
  segments (avg consensus), squeeze; --softmax adds a Softmax.
Export: opset 11, static [bs,8,3,224,224] (no dynamic axes), keep_initializers_as_inputs=True.
"""
import torch
from torch import nn
import torchvision

OPSET = 11
NUM_SEGMENTS = 8
SHIFT_DIV = 8
NUM_CLASSES = 101


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
        batches = imgs.shape[0]
        imgs = imgs.reshape((-1,) + imgs.shape[2:])
        num_segs = imgs.shape[0] // batches
        x = self.avg_pool(self.backbone(imgs))
        x = self.fc_cls(self.dropout(torch.flatten(x, 1)))
        x = x.view((-1, num_segs) + x.size()[1:]).mean(dim=1, keepdim=True).squeeze(1)
        if self.softmax:
            x = nn.functional.softmax(x, dim=1)
        return x


def build(variant="upstream"):
    return TSMRecognizer().eval()


def example_inputs():
    return (torch.randn(1, NUM_SEGMENTS, 3, 224, 224),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, export_params=True,
                      keep_initializers_as_inputs=True, opset_version=OPSET)
