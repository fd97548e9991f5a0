"""TSN ResNet-50 (mmaction2 tsn_r50_1x1x3_75e_ucf101_rgb, UCF-101) as the contrib recipe exports it
with its tsn_ucf101_pytorch2onnx.py (Recognizer2D.forward_dummy, no --softmax).

Operator structure (own code around torchvision's ResNet-50, the same 'pytorch' style
bottleneck network mmaction2 uses):
- input [N,75,3,256,256] reshaped to [N*75,3,256,256] (imgs.reshape((-1,) + imgs.shape[2:]));
  num_segs = imgs.shape[0] // batches is traced from the input's shape;
- ResNet-50 backbone;
- TSNHead: AdaptiveAvgPool2d(1), dropout, flatten, Linear(2048, 101), view to
  [-1, num_segs, 101], average consensus (mean over segments, keepdim), squeeze.
Export: opset 11, input 'image' [N,75,3,256,256] dynamic batch, output 'class',
keep_initializers_as_inputs=True (the recipe's script).
"""
import torch
from torch import nn
import torchvision

OPSET = 11
NUM_CLASSES = 101
INPUT_NAMES = ["image"]
OUTPUT_NAMES = ["class"]
DYNAMIC_AXES = {"image": {0: "-1"}, "class": {0: "-1"}}


class TSNRecognizer(nn.Module):
    def __init__(self):
        super().__init__()
        r = torchvision.models.resnet50(weights=None)
        self.backbone = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool,
                                      r.layer1, r.layer2, r.layer3, r.layer4)
        self.avg_pool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(0.4)
        self.fc_cls = nn.Linear(2048, NUM_CLASSES)

    def forward(self, imgs):
        batches = imgs.shape[0]
        imgs = imgs.reshape((-1,) + imgs.shape[2:])
        num_segs = imgs.shape[0] // batches
        x = self.avg_pool(self.backbone(imgs))
        x = self.fc_cls(torch.flatten(self.dropout(x), 1))
        x = x.view((-1, num_segs) + x.shape[1:]).mean(dim=1, keepdim=True)
        return x.squeeze(1)


def build(variant="upstream"):
    return TSNRecognizer().eval()


def example_inputs():
    return (torch.randn(1, 75, 3, 256, 256),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=INPUT_NAMES,
                      output_names=OUTPUT_NAMES, dynamic_axes=DYNAMIC_AXES, export_params=True,
                      keep_initializers_as_inputs=True, opset_version=OPSET)
