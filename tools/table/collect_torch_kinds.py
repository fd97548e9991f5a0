#!/usr/bin/python3
"""Collect the TorchScript node kinds that common models produce.

Traces AND scripts a fixed set of torchvision models and torch.nn modules
(random initialisation, weights=None: nothing is downloaded), walks
`inlined_graph` recursively through every block, and writes the union of
node kinds with their counts:

    # comment lines
    aten::add 42
    prim::Constant 1234

Usage: /usr/bin/python3 tools/table/collect_torch_kinds.py [OUT]
       (default OUT: tools/table/torch_kinds.txt next to this script)

The output only depends on the torch/torchvision versions (recorded in the
header), not on random weights: kinds are structural.
"""
import collections
import os
import sys
import warnings


def walk_block(block, counts):
    for node in block.nodes():
        counts[node.kind()] += 1
        for sub in node.blocks():
            walk_block(sub, counts)


def graph_kinds(module):
    counts = collections.Counter()
    walk_block(module.inlined_graph, counts)
    return counts


def models():
    """(name, factory, example inputs, modes) for every model we look at."""
    import torch
    import torchvision.models as tvm
    from torchvision.models import detection, segmentation

    def img(n=224):
        return (torch.randn(1, 3, n, n),)

    class MHA(torch.nn.Module):
        # nn.MultiheadAttention returns a tuple with Optional weights; wrap it so
        # both tracing and scripting see a plain module.
        def __init__(self):
            super().__init__()
            self.attn = torch.nn.MultiheadAttention(32, 4, batch_first=True)

        def forward(self, x):
            out, _ = self.attn(x, x, x)
            return out

    class LSTMNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(16, 32, num_layers=2, batch_first=True)
            self.fc = torch.nn.Linear(32, 4)

        def forward(self, x):
            y, _ = self.lstm(x)
            return self.fc(y[:, -1])

    def vit_small():
        from torchvision.models.vision_transformer import VisionTransformer
        return VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                                 num_heads=2, hidden_dim=32, mlp_dim=64,
                                 num_classes=10)

    def encoder():
        layer = torch.nn.TransformerEncoderLayer(d_model=32, nhead=4,
                                                 dim_feedforward=64,
                                                 batch_first=True)
        return torch.nn.TransformerEncoder(layer, num_layers=2)

    return [
        ("resnet18", lambda: tvm.resnet18(weights=None), img(), ("trace", "script")),
        ("mobilenet_v3_small", lambda: tvm.mobilenet_v3_small(weights=None), img(), ("trace", "script")),
        ("efficientnet_b0", lambda: tvm.efficientnet_b0(weights=None), img(), ("trace", "script")),
        ("vit_small", vit_small, img(32), ("trace", "script")),
        ("swin_t", lambda: tvm.swin_t(weights=None), img(), ("trace", "script")),
        ("inception_v3", lambda: tvm.inception_v3(weights=None, aux_logits=False,
                                                  init_weights=True), img(299),
         ("trace", "script")),
        ("fasterrcnn_mobilenet_v3_large_320_fpn",
         lambda: detection.fasterrcnn_mobilenet_v3_large_320_fpn(
             weights=None, weights_backbone=None), None, ("script",)),
        ("lraspp_mobilenet_v3_large",
         lambda: segmentation.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None),
         img(), ("trace", "script")),
        ("lstm", LSTMNet, (torch.randn(2, 5, 16),), ("trace", "script")),
        ("transformer_encoder", encoder, (torch.randn(2, 5, 32),), ("trace", "script")),
        ("multihead_attention", MHA, (torch.randn(2, 5, 32),), ("trace", "script")),
    ]


def main(argv):
    import torch
    import torchvision

    out = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                      "torch_kinds.txt")
    torch.manual_seed(0)
    warnings.simplefilter("ignore")
    total = collections.Counter()
    log = []
    for name, factory, inputs, modes in models():
        for mode in modes:
            try:
                model = factory().eval()
                with torch.no_grad():
                    if mode == "trace":
                        sm = torch.jit.trace(model, inputs, check_trace=False, strict=False)
                    else:
                        sm = torch.jit.script(model)
                c = graph_kinds(sm)
                total.update(c)
                log.append("%s/%s: %d kinds" % (name, mode, len(c)))
            except Exception as e:  # record, keep going
                msg = str(e).strip().splitlines()[0][:120] if str(e).strip() else type(e).__name__
                log.append("%s/%s: FAILED (%s)" % (name, mode, msg))
            print(log[-1], file=sys.stderr)
    with open(out, "w", encoding="utf-8") as f:
        f.write("# TorchScript node kinds (inlined_graph, recursive through blocks)\n")
        f.write("# generated by tools/table/collect_torch_kinds.py\n")
        f.write("# torch %s, torchvision %s\n" % (torch.__version__, torchvision.__version__))
        for line in log:
            f.write("# %s\n" % line)
        f.write("# kind count\n")
        for kind in sorted(total):
            f.write("%s %d\n" % (kind, total[kind]))
    print("%d kinds written to %s" % (len(total), out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
