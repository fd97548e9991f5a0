"""FLAVR 4x (tarun005/FLAVR d23f17cd, model/FLAVR_arch.py UNet_3D_3D with the unet_18 encoder, 4 input
frames, 3 interpolated frames, joinType concat, transposed-conv upsampling, no batch norm) as the built-in
FLAVR_for_PyTorch recipe exports it with its FLAVR_pth2onnx.py (four inputs input_0..input_3
[bs,3,224,224] and three outputs output_0..output_2, all dynamic on axis 0, opset 13, under no_grad).

Operator structure (own code after the repository's FLAVR_arch.py and resnet_3D.py):
- the four frames stacked on a time axis [N,3,4,H,W], minus their mean over (T, H, W);
- encoder (R3D-18 layout, biased convs, batch norm replaced by identity): stem Conv3d (3,7,7)
  stride (1,2,2) + ReLU; BasicBlocks of two Conv3d 3x3x3 and SEGating (AdaptiveAvgPool3d(1),
  Conv3d 1x1x1, Sigmoid, Mul), residual Add (Conv3d 1x1x1 downsample), ReLU; spatial strides
  1,2,2,1; returns the stem's and each layer's output;
- decoder: Conv_3d (Conv3d 3x3x3 + SEGating) and upConv3D (ConvTranspose3d (3,4,4) stride (1,2,2)
  + SEGating), LeakyReLU(0.2), each joined by Concat with the encoder feature of its scale;
- torch.unbind over time and Concat on channels, Conv2d 1x1 feature fuse, LeakyReLU, outconv:
  variant "upstream" (default) nn.ReflectionPad2d(3) (Pad mode reflect) + Conv2d 7x7 to 9 channels;
  variant "recipe" = fix.patch's pad_replace(3): the same reflection written as Slices, flips
  and Concats on H then W;
- torch.split into three RGB frames, each plus the mean.
Full size (R3D-18 is small), traced at the recipe's 224x224.
"""
import torch
from torch import nn

OPSET = 13
N_INPUTS, N_OUTPUTS = 4, 3


class SEGating(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.attn_layer = nn.Sequential(nn.Conv3d(c, c, 1), nn.Sigmoid())

    def forward(self, x):
        return x * self.attn_layer(self.pool(x))


class BasicBlock(nn.Module):
    def __init__(self, cin, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Sequential(nn.Conv3d(cin, planes, 3, stride, 1), nn.ReLU(inplace=True))
        self.conv2 = nn.Conv3d(planes, planes, 3, 1, 1)
        self.fg = SEGating(planes)
        self.downsample = nn.Conv3d(cin, planes, 1, stride, bias=False) if stride != 1 or cin != planes else None
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        residual = x if self.downsample is None else self.downsample(x)
        return self.relu(self.fg(self.conv2(self.conv1(x))) + residual)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv3d(3, 64, (3, 7, 7), (1, 2, 2), (1, 3, 3)), nn.ReLU())
        layers, cin = [], 64
        for planes, s in ((64, 1), (128, 2), (256, 2), (512, 1)):
            stride = (1, s, s)
            layers.append(nn.Sequential(BasicBlock(cin, planes, stride), BasicBlock(planes, planes)))
            cin = planes
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        outs = [self.stem(x)]
        for layer in self.layers:
            outs.append(layer(outs[-1]))
        return outs


class PadReplace(nn.Module):
    """fix.patch's pad_replace for padding 3: reflection by slicing, flipping and concatenating."""

    def __init__(self, d):
        super().__init__()
        self.d = d

    def forward(self, x):
        d = self.d
        y = torch.cat((torch.flip(x[:, :, 1:d + 1, :], [2]), x, torch.flip(x[:, :, -d - 1:-1, :], [2])), dim=2)
        return torch.cat((torch.flip(y[:, :, :, 1:d + 1], [3]), y, torch.flip(y[:, :, :, -d - 1:-1], [3])), dim=3)


def conv3d_se(cin, cout):
    return nn.Sequential(nn.Conv3d(cin, cout, 3, padding=1), SEGating(cout))


def upconv3d_se(cin, cout):
    return nn.Sequential(nn.ConvTranspose3d(cin, cout, (3, 4, 4), (1, 2, 2), (1, 1, 1)), SEGating(cout))


class FLAVR(nn.Module):
    def __init__(self, patched=False):
        super().__init__()
        self.lrelu = nn.LeakyReLU(0.2, True)
        self.encoder = Encoder()
        self.decoder = nn.ModuleList([conv3d_se(512, 256), upconv3d_se(512, 128), upconv3d_se(256, 64),
                                      conv3d_se(128, 64), upconv3d_se(128, 64)])
        self.feature_fuse = nn.Conv2d(64 * N_INPUTS, 64, 1, bias=False)
        self.outconv = nn.Sequential(PadReplace(3) if patched else nn.ReflectionPad2d(3),
                                     nn.Conv2d(64, 3 * N_OUTPUTS, 7))

    def forward(self, i0, i1, i2, i3):
        images = torch.stack([i0, i1, i2, i3], dim=2)
        mean_ = images.mean(2, keepdim=True).mean(3, keepdim=True).mean(4, keepdim=True)
        x0, x1, x2, x3, x4 = self.encoder(images - mean_)
        dx = torch.cat([self.lrelu(self.decoder[0](x4)), x3], dim=1)
        dx = torch.cat([self.lrelu(self.decoder[1](dx)), x2], dim=1)
        dx = torch.cat([self.lrelu(self.decoder[2](dx)), x1], dim=1)
        dx = torch.cat([self.lrelu(self.decoder[3](dx)), x0], dim=1)
        dx = torch.cat(torch.unbind(self.lrelu(self.decoder[4](dx)), 2), 1)
        out = self.outconv(self.lrelu(self.feature_fuse(dx)))
        mean_ = mean_.squeeze(2)
        return tuple(o + mean_ for o in torch.split(out, dim=1, split_size_or_sections=3))


def build(variant="upstream"):
    return FLAVR(patched=(variant == "recipe")).eval()


def example_inputs():
    return tuple(torch.randn(1, 3, 224, 224) for _ in range(N_INPUTS))


def export(path, variant="upstream"):
    torch.manual_seed(0)
    inputs = ["input_%d" % i for i in range(N_INPUTS)]
    outputs = ["output_%d" % i for i in range(N_OUTPUTS)]
    with torch.no_grad():
        torch.onnx.export(build(variant), example_inputs(), path, input_names=inputs, output_names=outputs,
                          dynamic_axes={n: {0: "-1"} for n in inputs + outputs}, export_params=True,
                          keep_initializers_as_inputs=False, opset_version=OPSET)
