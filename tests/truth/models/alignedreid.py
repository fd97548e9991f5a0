"""AlignedReID person re-identification (huanghoujing/AlignedReID-Re-Production-Pytorch aligned_reid/model/Model.py,
local_conv_out_channels 128, num_classes 751) as ACL_PyTorch/contrib/cv/face/AlignedReID's AlignedReID_pth2onnx.py
exports it: opset 11, input 'image' [N,3,256,128], outputs global_feat [N,2048], local_feat [N,8,128], logits [N,751];
dynamic_axes name 'image' (batch) and 'class' (no such output).

Own code over a ResNet-50 trunk (the upstream resnet.py is torchvision's ResNet-50 without avgpool / fc; torchvision's
is used here, same operators), then: global_feat = avg_pool2d over the whole [8, 4] map, view(N, -1); local_feat =
mean over W (keepdim), Conv 1x1 2048->128 with bias, BN, ReLU, squeeze(-1), permute(0, 2, 1); logits = Linear on
global_feat.

Variants: `upstream` (avg_pool2d's kernel is feat.size()[2:], read from the traced tensor) and `recipe` (all.patch:
the kernel as a list of Python ints). Default `recipe`: see the YAML's model_source for whether `upstream` exports.
"""
import torch
from torch import nn
import torch.nn.functional as F
import torchvision

OPSET = 11


class AlignedReID(nn.Module):
    def __init__(self, upstream=False, local_conv_out_channels=128, num_classes=751):
        super().__init__()
        r = torchvision.models.resnet50(weights=None)
        self.base = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool, r.layer1, r.layer2, r.layer3, r.layer4)
        self.upstream = upstream
        self.local_conv = nn.Conv2d(2048, local_conv_out_channels, 1)
        self.local_bn = nn.BatchNorm2d(local_conv_out_channels)
        self.local_relu = nn.ReLU()
        self.fc = nn.Linear(2048, num_classes)

    def forward(self, x):
        feat = self.base(x)
        if self.upstream:
            global_feat = F.avg_pool2d(feat, feat.size()[2:])
        else:
            global_feat = F.avg_pool2d(feat, [int(s) for s in feat.size()[2:]])
        global_feat = global_feat.view(global_feat.size(0), -1)
        local_feat = torch.mean(feat, -1, keepdim=True)
        local_feat = self.local_relu(self.local_bn(self.local_conv(local_feat)))
        local_feat = local_feat.squeeze(-1).permute(0, 2, 1)
        return global_feat, local_feat, self.fc(global_feat)


def build(variant="recipe"):
    return AlignedReID(upstream=(variant == "upstream")).eval()


def example_inputs():
    return (torch.randn(1, 3, 256, 128),)


def export(path, variant="recipe"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["image"],
                      output_names=["global_feat", "local_feat", "logits"],
                      dynamic_axes={"image": {0: "-1"}, "class": {0: "-1"}}, opset_version=OPSET)
