#!/usr/bin/python3
"""Build and save the training-recipe truth suite's models (tests/truth/training/): each
recipe's model, as the recipe's upstream code builds it (a torchvision constructor, or the
stand-in module of tests/truth/training/models/<name>.py), with random weights, in eval
mode, saved four ways: traced (torch.jit.trace), scripted (torch.jit.script, where the
recipe file says the code scripts), the traced module's printed inlined graph, and ONNX
(opset 13, from the trace). Nothing is downloaded.

    training_export.py RECIPES_DIR CACHE_DIR [NAME...]

Writes CACHE_DIR/<name>.{traced.pt,scripted.pt,traced.graph.txt,onnx}, skipping a model
exported already for the same recipe file, model file, this script and torch
(CACHE_DIR/<name>.stamp); prints one line per model, and a format that fails to save with
its reason (the check reports it).
"""
import hashlib
import importlib.util
import json
import os
import sys
import warnings

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "training", "models")
FORMATS = ("traced.pt", "scripted.pt", "traced.graph.txt", "onnx")


def load_module(name):
    spec = importlib.util.spec_from_file_location("truth_model_" + name,
                                                  os.path.join(MODELS, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build(recipe):
    """(model in eval mode, example inputs tuple)."""
    import torch
    b = recipe["build"]
    torch.manual_seed(0)
    if "torchvision" in b:
        import torchvision
        ctor = torchvision.models
        for part in b["torchvision"].split("."):
            ctor = getattr(ctor, part)
        model = ctor(weights=None, **(b.get("kwargs") or {}))
        shapes = b.get("inputs") or [b["input"]]
        return model.eval(), tuple(torch.rand(*s) for s in shapes)
    if "torchaudio" in b:
        import torchaudio
        model = getattr(torchaudio.models, b["torchaudio"])(**(b.get("kwargs") or {}))
        shapes = b.get("inputs") or [b["input"]]
        return model.eval(), tuple(torch.rand(*s) for s in shapes)
    mod = load_module(b["module"])
    return mod.build().eval(), tuple(mod.example_inputs())


def stamp_of(recipe_path, recipe):
    import torch
    h = hashlib.sha256()
    for p in (recipe_path, __file__) + ((os.path.join(MODELS, recipe["build"]["module"] + ".py"),)
                                        if "module" in recipe["build"] else ()):
        with open(p, "rb") as f:
            h.update(f.read())
    return "%s torch %s\n" % (h.hexdigest(), torch.__version__)


def why(e):
    """An exception's first non-empty line, or its type."""
    lines = [ln for ln in str(e).splitlines() if ln.strip()]
    return (lines[0] if lines else type(e).__name__)[:200]


def export(recipe, cache):
    """Saves every format; returns {format: path or "error: ..."}."""
    import torch
    name = recipe["name"]
    out = {}
    model, args = build(recipe)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = None
        try:
            with torch.no_grad():
                traced = torch.jit.trace(model, args, check_trace=False, strict=False)
            with open(os.path.join(cache, name + ".traced.graph.txt"), "w") as f:
                f.write(str(traced.inlined_graph))
            out["traced.graph.txt"] = name + ".traced.graph.txt"
        except Exception as e:  # noqa: BLE001 - reported, not hidden
            out["traced.graph.txt"] = "error: %s" % why(e)
        try:
            if traced is None:
                raise RuntimeError("the trace failed")
            traced.save(os.path.join(cache, name + ".traced.pt"))
            out["traced.pt"] = name + ".traced.pt"
        except Exception as e:  # noqa: BLE001 - a custom autograd.Function cannot be saved
            out["traced.pt"] = "error: %s" % why(e)
        if recipe["build"].get("scriptable"):
            try:
                torch.jit.script(model).save(os.path.join(cache, name + ".scripted.pt"))
                out["scripted.pt"] = name + ".scripted.pt"
            except Exception as e:  # noqa: BLE001
                out["scripted.pt"] = "error: %s" % why(e)
        else:
            out["scripted.pt"] = "skipped: the recipe file says the code does not script"
        try:
            path = os.path.join(cache, name + ".onnx")
            torch.onnx.export(model, args, path, opset_version=13)
            out["onnx"] = name + ".onnx"
        except Exception as e:  # noqa: BLE001
            out["onnx"] = "error: %s" % why(e)
    for fmt, got in out.items():  # a save that failed may leave a partial file behind
        if got.startswith("error:") and os.path.exists(os.path.join(cache, name + "." + fmt)):
            os.remove(os.path.join(cache, name + "." + fmt))
    return out


def export_cached(recipe_path, cache):
    with open(recipe_path, encoding="utf-8") as f:
        recipe = yaml.safe_load(f)
    name = recipe["name"]
    stamp = os.path.join(cache, name + ".stamp")
    want = stamp_of(recipe_path, recipe)
    if os.path.exists(stamp):
        with open(stamp, encoding="utf-8") as f:
            lines = f.read().split("\n", 1)
        if lines[0] + "\n" == want:
            return recipe, json.loads(lines[1]), "cached"
    files = export(recipe, cache)
    with open(stamp + ".%d" % os.getpid(), "w", encoding="utf-8") as f:
        f.write(want + json.dumps(files, sort_keys=True))
    os.replace(stamp + ".%d" % os.getpid(), stamp)
    return recipe, files, "exported"


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    recipes, cache = argv[1], argv[2]
    os.makedirs(cache, exist_ok=True)
    names = argv[3:] or sorted(f[:-5] for f in os.listdir(recipes) if f.endswith(".yaml"))
    for name in names:
        recipe, files, what = export_cached(os.path.join(recipes, name + ".yaml"), cache)
        print("%-22s %s %s" % (name, what, json.dumps(files, sort_keys=True)))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
