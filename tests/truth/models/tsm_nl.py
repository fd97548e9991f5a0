"""TSM ResNet-50 with dot-product non-local blocks (mmaction2 tsm_nl_dot_product_r50_1x1x8_50e_kinetics400_rgb,
Kinetics-400) as the contrib NonLocal recipe exports it with its pytorch2onnx.py --softmax.

Operator structure (own code around torchvision's ResNet-50):
- input [N,8,3,224,224] reshaped to [N*8,3,224,224] (Recognizer2D.forward_dummy);
- temporal shift in front of every bottleneck's conv1 (num_segments 8, shift_div 8; zeros as
  'fold - fold' sliced to one frame, Slice + Concat), as in tsm.py;
- non-local blocks after blocks 1, 3 of layer2 and 1, 3, 5 of layer3 (mmaction2 NL3DWrapper:
  view [n/8, 8, c, h, w], transpose to [n/8, c, 8, h, w], NonLocal3d, back), NonLocal3d after
  mmcv's (mode dot_product, reduction 2, use_scale False, sub_sample True, BN3d on conv_out):
  1x1x1 Conv3d g / theta / phi, MaxPool3d (1,2,2) after g and phi, views to [n, c/2, -1],
  permutes, MatMul, division by the key count, MatMul, permute + reshape, Conv3d + BN3d, Add;
- TSMHead: AdaptiveAvgPool2d(1), flatten, dropout, Linear(2048, 400), view [-1, 8, 400],
  average consensus, squeeze; --softmax adds Softmax.
Export: opset 11, input 'video' [N,8,3,224,224] dynamic batch, output 'class',
keep_initializers_as_inputs=True (the recipe's script).
"""
import torch
from torch import nn
import torchvision

OPSET = 11
NUM_SEGMENTS = 8
SHIFT_DIV = 8
NUM_CLASSES = 400
NON_LOCAL = {"layer2": (0, 2), "layer3": (0, 2, 4)}
INPUT_NAMES = ["video"]
OUTPUT_NAMES = ["class"]
DYNAMIC_AXES = {"video": {0: "-1"}, "class": {0: "-1"}}


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


class NonLocal3d(nn.Module):
    """mmcv's _NonLocalNd / NonLocal3d, mode dot_product, sub_sample, use_scale False."""

    def __init__(self, c):
        super().__init__()
        self.inter = c // 2
        pool = nn.MaxPool3d(kernel_size=(1, 2, 2))
        self.g = nn.Sequential(nn.Conv3d(c, self.inter, 1), pool)
        self.theta = nn.Conv3d(c, self.inter, 1)
        self.phi = nn.Sequential(nn.Conv3d(c, self.inter, 1), pool)
        self.conv_out = nn.Sequential(nn.Conv3d(self.inter, c, 1, bias=False), nn.BatchNorm3d(c))

    def forward(self, x):
        n = x.size(0)
        g_x = self.g(x).view(n, self.inter, -1).permute(0, 2, 1)
        theta_x = self.theta(x).view(n, self.inter, -1).permute(0, 2, 1)
        phi_x = self.phi(x).view(n, self.inter, -1)
        pairwise = torch.matmul(theta_x, phi_x)
        pairwise /= pairwise.shape[-1]
        y = torch.matmul(pairwise, g_x)
        y = y.permute(0, 2, 1).contiguous().reshape(n, self.inter, *x.size()[2:])
        return x + self.conv_out(y)


class NL3DWrapper(nn.Module):
    def __init__(self, block, c):
        super().__init__()
        self.block, self.non_local_block = block, NonLocal3d(c)

    def forward(self, x):
        x = self.block(x)
        n, c, h, w = x.size()
        x = x.view(n // NUM_SEGMENTS, NUM_SEGMENTS, c, h, w).transpose(1, 2).contiguous()
        x = self.non_local_block(x)
        return x.transpose(1, 2).contiguous().view(n, c, h, w)


class TSMNonLocal(nn.Module):
    def __init__(self, softmax=True):
        super().__init__()
        r = torchvision.models.resnet50(weights=None)
        for name in ("layer1", "layer2", "layer3", "layer4"):
            layer = getattr(r, name)
            for i, block in enumerate(layer):
                block.conv1 = TemporalShift(block.conv1)
                if i in NON_LOCAL.get(name, ()):
                    layer[i] = NL3DWrapper(block, block.conv3.out_channels)
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
    return TSMNonLocal().eval()


def example_inputs():
    return (torch.randn(1, NUM_SEGMENTS, 3, 224, 224),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=INPUT_NAMES,
                      output_names=OUTPUT_NAMES, dynamic_axes=DYNAMIC_AXES, export_params=True,
                      keep_initializers_as_inputs=True, opset_version=OPSET)
