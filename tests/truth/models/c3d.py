"""C3D (mmaction2 c3d_sports1m_16x1x1_45e_ucf101_rgb, UCF-101) as the contrib C3D recipe exports it with
its C3D_pth2onnx.py (a copy of mmaction2's pytorch2onnx with input/output names and a dynamic batch;
Recognizer3D.forward_dummy with --softmax).

Operator structure (own code, mmaction2 C3D conventions):
- input [N,10,3,16,112,112] (batch, 10 clips, C, T, H, W) reshaped to [N*10,3,16,112,112];
- C3D backbone: Conv3d 3x3x3 (bias, ReLU; no norm) 64, MaxPool3d (1,2,2); 128, MaxPool3d (2,2,2);
  256 x2, MaxPool3d (2,2,2); 512 x2, MaxPool3d (2,2,2); 512 x2, MaxPool3d (2,2,2) padding (0,1,1);
  flatten, fc6 + ReLU + dropout, fc7 + ReLU + dropout;
- I3DHead with spatial_type None: dropout, view, Linear 101; forward_dummy's --softmax adds
  nn.functional.softmax (implicit dim: 1 on the 2-D scores).
fc6 / fc7 are 1024 wide here instead of 4096 (a smaller file; same operators).
Export: opset 11, input 'image' [N,10,3,16,112,112] dynamic batch, output 'class' (the recipe's
script; export_params and keep_initializers_as_inputs commented out there, so torch's defaults);
traced at [1,1,3,16,112,112] (one clip: only constants differ).
"""
import torch
from torch import nn

OPSET = 11
HIDDEN = 1024                   # upstream fc6 / fc7: 4096
EXPORT_INPUT = (1, 1, 3, 16, 112, 112)


def conv(cin, cout):
    return nn.Sequential(nn.Conv3d(cin, cout, 3, padding=1), nn.ReLU(True))


class C3D(nn.Module):
    def __init__(self, num_classes=101):
        super().__init__()
        self.features = nn.Sequential(
            conv(3, 64), nn.MaxPool3d((1, 2, 2), (1, 2, 2)),
            conv(64, 128), nn.MaxPool3d((2, 2, 2), (2, 2, 2)),
            conv(128, 256), conv(256, 256), nn.MaxPool3d((2, 2, 2), (2, 2, 2)),
            conv(256, 512), conv(512, 512), nn.MaxPool3d((2, 2, 2), (2, 2, 2)),
            conv(512, 512), conv(512, 512), nn.MaxPool3d((2, 2, 2), (2, 2, 2), padding=(0, 1, 1)))
        self.fc6 = nn.Linear(8192, HIDDEN)
        self.fc7 = nn.Linear(HIDDEN, HIDDEN)
        self.relu = nn.ReLU()
        self.dropout = nn.Dropout(0.5)
        self.head_dropout = nn.Dropout(0.5)
        self.fc_cls = nn.Linear(HIDDEN, num_classes)

    def forward(self, imgs):
        x = imgs.reshape((-1,) + imgs.shape[2:])
        x = self.features(x).flatten(start_dim=1)
        x = self.dropout(self.relu(self.fc6(x)))
        x = self.dropout(self.relu(self.fc7(x)))
        x = self.head_dropout(x)
        x = self.fc_cls(x.view(x.shape[0], -1))
        return nn.functional.softmax(x, dim=1)


def build(variant="upstream"):
    return C3D().eval()


def example_inputs():
    return (torch.randn(*EXPORT_INPUT),)


def export(path, variant="upstream"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["image"], output_names=["class"],
                      dynamic_axes={"image": {0: "-1"}, "class": {0: "-1"}}, opset_version=OPSET)
