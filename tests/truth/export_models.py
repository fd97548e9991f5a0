#!/usr/bin/python3
"""Export the truth suite's models as Ascend's recipes did: torchvision (or torch) builds with
random weights, torch.onnx.export at the recipe's opset, with a dynamic batch when the recipe
exported one; a recipe whose `build` names a `module` is exported by that builder in
models/ (the recipe's opset, input and output names, dynamic axes and export flags; `kwargs`
choose its variant). Nothing is downloaded.

    export_models.py RECIPES_DIR CACHE_DIR [NAME...]

Writes CACHE_DIR/<name>.onnx, skipping files already exported for the same recipe, script and
torch version (CACHE_DIR/<name>.stamp), and prints one line per model.
"""
import hashlib
import os
import sys
import time

import yaml


def lstm_ctc(num_class=63):
    """The recipe's CTC model as it describes it: two strided convs, four BatchRNN layers of
    two unidirectional LSTMs (one over the time-flipped input), BatchNorm1d, Linear,
    LogSoftmax. 63 classes: TIMIT's 61 phones + blank + UNK (the recipe does not say)."""
    import torch
    from torch import nn

    class BatchRNN(nn.Module):
        def __init__(self, size_in, hidden, norm):
            super().__init__()
            self.norm = nn.BatchNorm1d(size_in) if norm else None
            self.fwd = nn.LSTM(size_in, hidden, bias=False)
            self.bwd = nn.LSTM(size_in, hidden, bias=False)

        def forward(self, x):                       # [T, B, C]
            if self.norm is not None:
                t, b, c = x.size()
                x = self.norm(x.view(t * b, c)).view(t, b, c)
            f, _ = self.fwd(x)
            r, _ = self.bwd(torch.flip(x, [0]))
            return torch.cat([f, torch.flip(r, [0])], 2)

    class CTC(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Sequential(
                nn.Conv2d(1, 32, 3, stride=(1, 2), padding=1), nn.BatchNorm2d(32), nn.ReLU(),
                nn.Conv2d(32, 32, 3, stride=(2, 2), padding=1), nn.BatchNorm2d(32), nn.ReLU())
            self.rnns = nn.Sequential(BatchRNN(32 * 61, 384, False), BatchRNN(768, 384, True),
                                      BatchRNN(768, 384, True), BatchRNN(768, 384, True))
            self.norm = nn.BatchNorm1d(768)
            self.fc = nn.Linear(768, num_class, bias=False)
            self.out = nn.LogSoftmax(dim=-1)

        def forward(self, x):                       # [B, 390, 243]
            x = self.conv(x.unsqueeze(1))           # [B, 32, T', 61]
            b, c, t, f = x.size()
            x = x.permute(2, 0, 1, 3).contiguous().view(t, b, c * f)
            x = self.rnns(x)
            t, b, c = x.size()
            x = self.norm(x.view(t * b, c)).view(t, b, c)
            return self.out(self.fc(x))

    return CTC()


def build(recipe):
    import torch
    import torchvision
    b = recipe["build"]
    if "torchvision" in b:
        ctor = torchvision.models
        for part in b["torchvision"].split("."):
            ctor = getattr(ctor, part)
        model = ctor(weights=None, **(b.get("kwargs") or {}))
    elif recipe["name"] == "lstm_ctc":
        model = lstm_ctc()
    else:
        raise SystemExit("%s: no builder for %s" % (recipe["name"], b))
    return model.eval(), torch.randn(*(b.get("export_input") or b["input"]))


def load_module(name):
    """A builder of models/ (build, example_inputs, export(path, variant=...)): our own
    code keeping the operators of a recipe's model where it is not torchvision's."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models", name + ".py")
    spec = importlib.util.spec_from_file_location("truth_model_" + name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def export(recipe, path):
    import torch
    torch.manual_seed(0)
    if "module" in recipe["build"]:
        # the builder exports as the recipe does: its opset, names, dynamic axes, flags
        load_module(recipe["build"]["module"]).export(path, **(recipe["build"].get("kwargs") or {}))
        return
    model, x = build(recipe)
    exp = recipe["export"]
    dynamic = {"input": {0: "batch"}, "output": {0: "batch"}} if exp.get("dynamic_batch") else None
    if recipe["name"] == "lstm_ctc" and dynamic:
        dynamic = {"input": {0: "batch"}, "output": {1: "batch"}}
    # grad stays enabled: under no_grad torch 1.13 routes nn.MultiheadAttention to a fused
    # fast path that does not export
    torch.onnx.export(model, x, path, opset_version=exp.get("opset") or 11,
                      input_names=["input"], output_names=["output"], dynamic_axes=dynamic,
                      do_constant_folding=True)


def stamp_of(recipe_text):
    import torch
    import torchvision
    digest = hashlib.sha256(recipe_text.encode()).hexdigest()
    with open(__file__, "rb") as f:
        digest += hashlib.sha256(f.read()).hexdigest()
    module = yaml.safe_load(recipe_text)["build"].get("module")
    if module:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "models", module + ".py"),
                  "rb") as f:
            digest += hashlib.sha256(f.read()).hexdigest()
    return "%s torch %s torchvision %s\n" % (digest, torch.__version__, torchvision.__version__)


def export_cached(recipe, cache):
    """CACHE/<name>.onnx for a recipe (a dict shaped like a recipe file), exported unless the
    cache holds it for the same recipe, script and torch; returns (path, what was done)."""
    name = recipe["name"]
    out = os.path.join(cache, name + ".onnx")
    stamp = os.path.join(cache, name + ".stamp")
    want = stamp_of(yaml.safe_dump(recipe, sort_keys=True))
    if os.path.exists(out) and os.path.exists(stamp) and open(stamp).read() == want:
        return out, "cached"
    t = time.time()
    part = "%s.%d.part" % (out, os.getpid())   # another run may export the same model at once
    export(recipe, part)
    os.replace(part, out)
    with open(stamp + ".%d" % os.getpid(), "w") as f:
        f.write(want)
    os.replace(stamp + ".%d" % os.getpid(), stamp)
    return out, "exported at opset %s in %.1f s" % (recipe["export"].get("opset"), time.time() - t)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    recipes, cache = argv[1], argv[2]
    os.makedirs(cache, exist_ok=True)
    names = argv[3:] or sorted(f[:-5] for f in os.listdir(recipes) if f.endswith(".yaml"))
    for name in names:
        with open(os.path.join(recipes, name + ".yaml"), encoding="utf-8") as f:
            recipe = yaml.safe_load(f)
        print("%-22s %s" % (name, export_cached(recipe, cache)[1]))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
