"""ST-GCN (open-mmlab/mmskeleton b4c076ba, models.backbones.ST_GCN_18: 3 input channels, 400 classes,
edge importance weighting, openpose layout, spatial strategy; Kinetics-skeleton) as the built-in
STGCN_for_Pytorch recipe exports it with its stgcn_pth2onnx.py (input 'input1' [1,3,300,18,2] with
a dynamic batch, output 'output1', no opset given: torch 1.2's default, 9).

Operator structure (own code after mmskeleton's st_gcn_aaai18.py / gconv_origin.py):
- data_bn: [N,C,T,V,M] permuted to [N*M, V*C, T], BatchNorm1d(54), back to [N*M, C, T, V];
- ten st_gcn blocks (64 x4, 128 x3, 256 x3 channels, temporal stride 2 at the first 128 and 256):
  ConvTemporalGraphical (Conv2d (1,1) to 3*C, view [n,3,C,T,V], graph contraction with the
  3x18x18 adjacency A times the block's edge-importance parameter), tcn (BN2d, ReLU, Conv2d
  (9,1), BN2d, dropout), residual (identity or Conv2d 1x1 + BN2d; none in the first block),
  ReLU;
- global pooling avg_pool2d over [T', V], view [N, M, -1, 1, 1], mean over M, fcn Conv2d 1x1 to
  400, view [N, -1].
Variants: "recipe" (default) = stgcn.patch: the contraction written as forge_einsum (permute,
view to 2-D, matmul, view) and avg_pool2d's kernel the constant (75, 18); "upstream" =
torch.einsum('nkctv,kvw->nctw') and avg_pool2d(x, x.size()[2:]), which does NOT export as the recipe
exports (torch 1.13: aten::einsum has no ONNX symbolic before opset 12; and with the dynamic batch
avg_pool2d's kernel, read from x.size(), is not a constant, which AveragePool needs).
A is the spatial-strategy adjacency of the 18-joint openpose skeleton (hop-normalised; values
only, the operators do not depend on them).
"""
import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

OPSET = 9
EDGES = [(4, 3), (3, 2), (7, 6), (6, 5), (13, 12), (12, 11), (10, 9), (9, 8), (11, 5), (8, 2), (5, 1),
         (2, 1), (0, 1), (15, 0), (14, 0), (17, 15), (16, 14)]
V, CENTER = 18, 1


def spatial_adjacency():
    adj = np.eye(V)
    for i, j in EDGES:
        adj[i, j] = adj[j, i] = 1
    hop = np.full((V, V), np.inf)
    reach = [np.linalg.matrix_power(adj, d) for d in range(2)]
    for d in (1, 0):
        hop[np.stack(reach)[d] > 0] = d
    norm = adj / adj.sum(0, keepdims=True)
    a = np.zeros((3, V, V))
    for i in range(V):
        for j in range(V):
            if hop[j, i] <= 1:
                k = 0 if hop[j, CENTER] == hop[i, CENTER] else (1 if hop[j, CENTER] > hop[i, CENTER] else 2)
                a[k, j, i] = norm[j, i]
    return torch.tensor(a, dtype=torch.float32)


def forge_einsum(x, a):
    x = x.permute(0, 2, 3, 1, 4).contiguous()
    n, c, t, k, v = x.size()
    k, v, w = a.size()
    x = x.view(n * c * t, k * v)
    return torch.matmul(x, a.view(k * v, w)).view(n, c, t, w)


class GraphConv(nn.Module):
    def __init__(self, cin, cout, k, patched):
        super().__init__()
        self.k, self.patched = k, patched
        self.conv = nn.Conv2d(cin, cout * k, kernel_size=(1, 1))

    def forward(self, x, a):
        x = self.conv(x)
        n, kc, t, v = x.size()
        x = x.view(n, self.k, kc // self.k, t, v)
        x = forge_einsum(x, a) if self.patched else torch.einsum('nkctv,kvw->nctw', (x, a))
        return x.contiguous()


class STGCNBlock(nn.Module):
    def __init__(self, cin, cout, stride, patched, residual=True):
        super().__init__()
        self.gcn = GraphConv(cin, cout, 3, patched)
        self.tcn = nn.Sequential(nn.BatchNorm2d(cout), nn.ReLU(True), nn.Conv2d(cout, cout, (9, 1), (stride, 1), (4, 0)),
                                 nn.BatchNorm2d(cout), nn.Dropout(0, inplace=True))
        if not residual:
            self.residual = None
        elif cin == cout and stride == 1:
            self.residual = nn.Identity()
        else:
            self.residual = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=(stride, 1)), nn.BatchNorm2d(cout))
        self.relu = nn.ReLU(True)

    def forward(self, x, a):
        res = 0 if self.residual is None else self.residual(x)
        return self.relu(self.tcn(self.gcn(x, a)) + res)


class STGCN(nn.Module):
    def __init__(self, patched=True, num_class=400):
        super().__init__()
        self.patched = patched
        self.register_buffer("A", spatial_adjacency())
        self.data_bn = nn.BatchNorm1d(3 * V)
        spec = [(3, 64, 1, False), (64, 64, 1, True), (64, 64, 1, True), (64, 64, 1, True), (64, 128, 2, True),
                (128, 128, 1, True), (128, 128, 1, True), (128, 256, 2, True), (256, 256, 1, True),
                (256, 256, 1, True)]
        self.st_gcn_networks = nn.ModuleList([STGCNBlock(i, o, s, patched, r) for i, o, s, r in spec])
        self.edge_importance = nn.ParameterList([nn.Parameter(torch.ones(self.A.size())) for _ in spec])
        self.fcn = nn.Conv2d(256, num_class, kernel_size=1)

    def forward(self, x):
        n, c, t, v, m = x.size()
        x = x.permute(0, 4, 3, 1, 2).contiguous().view(n * m, v * c, t)
        x = self.data_bn(x)
        x = x.view(n, m, v, c, t).permute(0, 1, 3, 4, 2).contiguous().view(n * m, c, t, v)
        for gcn, importance in zip(self.st_gcn_networks, self.edge_importance):
            x = gcn(x, self.A * importance)
        x = F.avg_pool2d(x, (75, 18)) if self.patched else F.avg_pool2d(x, x.size()[2:])
        x = x.view(n, m, -1, 1, 1).mean(dim=1)
        x = self.fcn(x)
        return x.view(x.size(0), -1)


def build(variant="recipe"):
    return STGCN(patched=(variant == "recipe")).eval()


def example_inputs():
    return (torch.randn(1, 3, 300, 18, 2),)


def export(path, variant="recipe"):
    torch.manual_seed(0)
    torch.onnx.export(build(variant), example_inputs(), path, input_names=["input1"], output_names=["output1"],
                      dynamic_axes={"input1": {0: "-1"}, "output1": {0: "-1"}},
                      opset_version=OPSET)
