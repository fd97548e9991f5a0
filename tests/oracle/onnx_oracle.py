#!/usr/bin/python3
"""Oracle: python3-onnx's operator histogram for every model, compared with opmap's.

Usage: onnx_oracle.py OPMAP_BINARY DIR_OR_FILE...

For each .onnx file under the arguments, python3-onnx loads the model and counts
(domain, op_type) over every node opmap walks: the main graph, every subgraph held in
GRAPH/GRAPHS attributes to any depth, training graphs, and the body of a model-local
function at each call to it (the call node itself is replaced by the body, as opmap
does). opmap scans the same files in one run (--format json) and the two histograms must
be equal for every model. Prints how many agree; exits 1 on any disagreement.
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

import onnx


def canon(domain):
    return "ai.onnx" if domain in ("", "ai.onnx") else domain


def histogram(model):
    functions = {(canon(f.domain), f.name): f for f in model.functions}
    hist = collections.Counter()

    def walk_nodes(nodes, chain):
        for node in nodes:
            key = (canon(node.domain), node.op_type)
            fn = functions.get(key)
            if fn is not None:
                if key not in chain:  # recursion is reported, not expanded
                    walk_nodes(fn.node, chain | {key})
                continue
            hist[key] += 1
            for attr in node.attribute:
                if attr.HasField("g"):
                    walk_nodes(attr.g.node, chain)
                for g in attr.graphs:
                    walk_nodes(g.node, chain)

    walk_nodes(model.graph.node, frozenset())
    for info in model.training_info:
        if info.HasField("initialization"):
            walk_nodes(info.initialization.node, frozenset())
        if info.HasField("algorithm"):
            walk_nodes(info.algorithm.node, frozenset())
    return hist


def model_files(args):
    for arg in args:
        if os.path.isdir(arg):
            for root, dirs, files in os.walk(arg):
                dirs.sort()
                for name in sorted(files):
                    if name.lower().endswith(".onnx"):
                        yield os.path.join(root, name)
        else:
            yield arg


def main():
    opmap, args = sys.argv[1], sys.argv[2:]
    files = list(model_files(args))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        proc = subprocess.run([opmap, "scan", "--quiet", "--format", "json", "-o", out] + files,
                              stderr=subprocess.PIPE, text=True)
        if proc.returncode not in (0, 1):
            print(proc.stderr, end="")
            print(f"opmap exited {proc.returncode}")
            return 1
        with open(out) as f:
            report = json.load(f)
    try:  # the oracle's report is the suite's biggest: it must match the schema too
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
        from report_schema import validate
        validate(report)
    except ImportError:
        print("note: python3-jsonschema not installed; report not validated")
    ours = {}
    for m in report["models"]:
        h = collections.Counter()
        for op in m["operators"]:
            h[(op["domain"], op["op_type"])] += op["instances"]
        ours[m["file"]] = h

    agree, failures = 0, []
    for path in files:
        try:
            expected = histogram(onnx.load(path, load_external_data=False))
        except Exception as e:  # the oracle itself must read every file
            failures.append(f"{path}: python3-onnx cannot load it: {e}")
            continue
        got = ours.get(path)
        if got is None:
            failures.append(f"{path}: missing from opmap's report")
        elif got != expected:
            diff = sorted(set(got.items()) ^ set(expected.items()))
            failures.append(f"{path}: histograms differ: opmap-only/onnx-only {diff[:6]}")
        else:
            agree += 1
    for line in failures[:50]:
        print(line)
    print(f"onnx oracle: {agree}/{len(files)} models agree with python3-onnx")
    return 0 if agree == len(files) and files else 1


if __name__ == "__main__":
    sys.exit(main())
