"""VideoPose3D temporal model (facebookresearch/VideoPose3D, commit 1afb1ca0, common/model.py TemporalModel) as
ACL_PyTorch/contrib/cv/pose_estimation/VideoPose3D exports it: vp3d_pth2onnx.py builds TemporalModel(17 joints, 2
features, 17 joints out, filter_widths [3, 3, 3, 3, 3], causal False, dropout 0.25, channels 1024, dense False) and
exports it at opset 11 with input '2d_poses' [2, 6115, 17, 2] (a sequence and its flipped copy), output '3d_preds', no
dynamic axes.

Own code with the model's operators at its full size: the input viewed as [N, T, 34] and permuted to [N, 34, T]; the
expand conv (kernel 3, no bias) + BN + ReLU; four residual blocks, each a dilated conv (kernel 3, dilation 3, 9, 27, 81,
no bias) + BN + ReLU and a 1x1 conv + BN + ReLU, added to the input sliced to the shrunken length
(x[:, :, pad : T - pad], T read at run time); the shrink 1x1 conv to 51 channels (with bias); permuted back and viewed
as [N, T', 17, 3] (T' = T - 242). Dropout is identity in eval mode.

Variants:
- `upstream` (default): Conv1d / BatchNorm1d on [N, C, T], as upstream;
- `recipe`: vp3d.patch: Conv2d with kernels (k, 1) and dilations d, BatchNorm2d, the [N, 34, T] tensor unsqueezed to
  [N, 34, T, 1] before the blocks and squeezed after the shrink conv.
"""
import torch
from torch import nn

OPSET = 11
JOINTS, FEATURES, CHANNELS = 17, 2, 1024
FILTER_WIDTHS = [3, 3, 3, 3, 3]
FRAMES = 6115


class TemporalModel(nn.Module):
    def __init__(self, lifted=False):
        super().__init__()
        self.lifted = lifted
        conv = nn.Conv2d if lifted else nn.Conv1d
        bn = nn.BatchNorm2d if lifted else nn.BatchNorm1d

        def kern(k):
            return (k, 1) if lifted else k

        self.expand_conv = conv(JOINTS * FEATURES, CHANNELS, kern(FILTER_WIDTHS[0]), bias=False)
        self.expand_bn = bn(CHANNELS, momentum=0.1)
        self.pad = [FILTER_WIDTHS[0] // 2]
        convs, bns = [], []
        dilation = FILTER_WIDTHS[0]
        for fw in FILTER_WIDTHS[1:]:
            self.pad.append((fw - 1) * dilation // 2)
            convs.append(conv(CHANNELS, CHANNELS, kern(fw), dilation=dilation, bias=False))
            bns.append(bn(CHANNELS, momentum=0.1))
            convs.append(conv(CHANNELS, CHANNELS, 1, dilation=1, bias=False))
            bns.append(bn(CHANNELS, momentum=0.1))
            dilation *= fw
        self.layers_conv = nn.ModuleList(convs)
        self.layers_bn = nn.ModuleList(bns)
        self.shrink = conv(CHANNELS, JOINTS * 3, 1)
        self.relu = nn.ReLU(inplace=True)
        self.drop = nn.Dropout(0.25)

    def forward(self, x):
        sz = x.shape[:3]
        x = x.view(x.shape[0], x.shape[1], -1).permute(0, 2, 1)
        if self.lifted:
            x = x.unsqueeze(-1)
        x = self.drop(self.relu(self.expand_bn(self.expand_conv(x))))
        for i in range(len(self.pad) - 1):
            pad = self.pad[i + 1]
            res = x[:, :, pad: x.shape[2] - pad]
            x = self.drop(self.relu(self.layers_bn[2 * i](self.layers_conv[2 * i](x))))
            x = res + self.drop(self.relu(self.layers_bn[2 * i + 1](self.layers_conv[2 * i + 1](x))))
        x = self.shrink(x)
        if self.lifted:
            x = x.squeeze(-1)
        return x.permute(0, 2, 1).view(sz[0], -1, JOINTS, 3)


def build(variant="upstream"):
    return TemporalModel(lifted=(variant == "recipe")).eval()


def example_inputs():
    return (torch.randn(2, FRAMES, JOINTS, FEATURES),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["2d_poses"], output_names=["3d_preds"],
                      opset_version=OPSET)
