#!/usr/bin/python3
"""No default-attribute false positive on torchvision models (issue 15): swin_t, maxvit_t,
vit_b_16, resnet50, mobilenet_v3_large and efficientnet_b0, exported here at opset 13 and 17
(random weights, cached like the truth suite's), report no partial for the operators every
model has; every operator they use says what it becomes on Ascend; and adding a chip whose
answers are unpublished does not change the estimate.

    check_defaults.py OPMAP [--cache DIR]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import export_models  # noqa: E402

MODELS = ["swin_t", "maxvit_t", "vit_b_16", "resnet50", "mobilenet_v3_large", "efficientnet_b0"]
NEVER_PARTIAL = ["LayerNormalization", "MatMul", "Reshape", "Unsqueeze", "Gemm", "Conv", "Add", "Mul"]


def scan(opmap, paths, soc):
    proc = subprocess.run([opmap, "scan", "--format", "json", "--soc", soc] + paths,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if proc.returncode not in (0, 1):
        raise SystemExit("opmap scan failed: %s" % proc.stderr)
    return json.loads(proc.stdout)["models"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("opmap")
    ap.add_argument("--cache", default=os.environ.get("OPMAP_TRUTH_CACHE") or
                    os.path.join(os.path.expanduser("~"), ".cache", "opmap", "truth-models"))
    args = ap.parse_args()
    os.makedirs(args.cache, exist_ok=True)
    paths = []
    for m in MODELS:
        for opset in (13, 17):
            recipe = {"name": "tv-%s-op%d" % (m, opset),
                      "build": {"torchvision": m, "input": [1, 3, 224, 224]},
                      "export": {"opset": opset, "dynamic_batch": False}}
            path, what = export_models.export_cached(recipe, args.cache)
            print("%-34s %s" % (recipe["name"], what))
            paths.append(path)
    bad = 0
    one = scan(args.opmap, paths, "ascend910b")
    for model in one:
        name = os.path.basename(model["file"])
        for op in model["operators"]:
            if op["domain"] == "ai.onnx" and op["op_type"] in NEVER_PARTIAL and op["status"] != "full":
                print("FAIL %s: %s is %s: %s" % (name, op["op_type"], op["status"],
                                                 [r["value"] for r in op["reasons"] if r["status"]]))
                bad = 1
            becomes = op.get("ascend", {}).get("becomes", "")
            if op["status"] in ("full", "partial") and becomes in ("", "-", "not published"):
                print("FAIL %s: %s says nothing of what it becomes" % (name, op["op_type"]))
                bad = 1
    # ascend310p and ascend950 answer some of these operators "unpublished" on top of 910b
    two = scan(args.opmap, paths, "ascend910b,ascend310p")
    for a, b in zip(one, two):
        if a["estimate"]["expected"] != b["estimate"]["expected"] and \
                all(o["chips"]["ascend310p"]["status"] == o["chips"]["ascend910b"]["status"] or
                    not o["chips"]["ascend310p"]["published"] for o in b["operators"]):
            print("FAIL %s: the estimate moved from %s to %s with a chip whose answers differ only "
                  "where unpublished" % (a["file"], a["estimate"]["expected"], b["estimate"]["expected"]))
            bad = 1
        if b["unpublished"]["operators"] < a["unpublished"]["operators"]:
            print("FAIL %s: fewer unpublished operators with more chips" % a["file"])
            bad = 1
    print("%d exports checked: %s" % (len(one), "FAILED" if bad else "no partial for %s" % ", ".join(NEVER_PARTIAL)))
    return bad


if __name__ == "__main__":
    sys.exit(main())
