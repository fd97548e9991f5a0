#!/usr/bin/python3
"""One model, one answer on torchvision (issue 28): ResNet-50, MobileNetV3-Large, DenseNet-121,
EfficientNet-B0, ShuffleNetV2, SqueezeNet, GoogLeNet, MnasNet and RegNetY (torchvision 0.14,
random weights, eval mode), each saved traced, scripted, as both printed inlined graphs and as
ONNX (opset 13), must be "ready" in every format, and a printed graph must give the report of
the archive it was printed from (verdict, operators, statuses, estimate).

    check_one_answer.py OPMAP [--cache DIR]

The files are cached in DIR/one-answer (stamped with this script and torch's version).
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import warnings

MODELS = ("resnet50", "mobilenet_v3_large", "densenet121", "efficientnet_b0",
          "shufflenet_v2_x1_0", "squeezenet1_0", "googlenet", "mnasnet1_0", "regnet_y_400mf")
FORMATS = ("traced.pt", "scripted.pt", "traced.graph.txt", "scripted.graph.txt", "onnx")
PAIRS = (("traced.graph.txt", "traced.pt"), ("scripted.graph.txt", "scripted.pt"))


def export(name, cache):
    import torch
    import torchvision
    torch.manual_seed(0)
    kwargs = {"aux_logits": False, "init_weights": True} if name == "googlenet" else {}
    model = getattr(torchvision.models, name)(weights=None, **kwargs).eval()
    x = torch.rand(1, 3, 224, 224)
    base = os.path.join(cache, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.no_grad():
            traced = torch.jit.trace(model, (x,), check_trace=False)
        scripted = torch.jit.script(model)
        traced.save(base + ".traced.pt")
        scripted.save(base + ".scripted.pt")
        with open(base + ".traced.graph.txt", "w", encoding="utf-8") as f:
            f.write(str(traced.inlined_graph))
        with open(base + ".scripted.graph.txt", "w", encoding="utf-8") as f:
            f.write(str(scripted.inlined_graph))
        torch.onnx.export(model, (x,), base + ".onnx", opset_version=13)


def export_cached(cache):
    import torch
    with open(os.path.abspath(__file__), "rb") as f:
        want = "%s torch %s\n" % (hashlib.sha256(f.read()).hexdigest(), torch.__version__)
    for name in MODELS:
        stamp = os.path.join(cache, name + ".stamp")
        if os.path.exists(stamp):
            with open(stamp, encoding="utf-8") as f:
                if f.read() == want:
                    print("%-20s cached" % name)
                    continue
        export(name, cache)
        with open(stamp + ".tmp", "w", encoding="utf-8") as f:
            f.write(want)
        os.replace(stamp + ".tmp", stamp)
        print("%-20s exported" % name)
        sys.stdout.flush()


def operators(model):
    return sorted((o["domain"], o["op_type"], o["status"]) for o in model["operators"])


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("opmap")
    ap.add_argument("--cache", default=os.environ.get("OPMAP_TRUTH_CACHE") or
                    os.path.join(os.path.expanduser("~"), ".cache", "opmap", "truth-models"))
    args = ap.parse_args(argv)
    cache = os.path.join(args.cache, "one-answer")
    os.makedirs(cache, exist_ok=True)
    export_cached(cache)
    paths = [os.path.join(cache, "%s.%s" % (n, f)) for n in MODELS for f in FORMATS]
    proc = subprocess.run([args.opmap, "scan", "--format", "json"] + paths, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    if proc.returncode not in (0, 1):
        raise SystemExit("opmap scan failed (%d): %s" % (proc.returncode, proc.stderr))
    out = json.loads(proc.stdout)
    models = {os.path.basename(m["file"]): m for m in out["models"]}
    bad = ["could not read %s" % e for e in out["errors"]]
    for name in MODELS:
        got = {f: models.get("%s.%s" % (name, f)) for f in FORMATS}
        verdicts = {f: (m["headline"]["verdict"] if m else "not read") for f, m in got.items()}
        if set(verdicts.values()) != {"ready"}:
            bad.append("%s: %s" % (name, verdicts))
            for f, m in got.items():
                if m and m["headline"]["verdict"] != "ready":
                    bad.append("  %s.%s needs: %s; %s" % (
                        name, f, m["headline"]["needs_work"] + m["headline"]["blocking"],
                        [(o["op_type"], o["status"]) for o in m["operators"]
                         if o["status"] in ("partial", "rewrite", "unmapped")]))
        for printed, archive in PAIRS:
            a, b = got[printed], got[archive]
            if a and b and (operators(a) != operators(b) or a["estimate"] != b["estimate"]):
                bad.append("%s: %s and %s differ: %s; estimates %s vs %s" % (
                    name, printed, archive, set(operators(a)) ^ set(operators(b)),
                    a["estimate"]["expected"], b["estimate"]["expected"]))
        print("%-20s %s" % (name, " ".join("%s=%s" % (f, v) for f, v in verdicts.items())))
    for line in bad:
        print("FAIL", line)
    print("%d models x %d formats: %s" % (len(MODELS), len(FORMATS),
                                          "FAILED" if bad else "one answer, ready, everywhere"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
