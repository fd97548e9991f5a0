#!/usr/bin/python3
"""--workload training|inference (issue 32) end to end:

- a training scan of a traced ResNet gives its convolution, max pool and linear a backward
  answer (JSON `backward`), and every report says the workload;
- an ONNX model scanned for training is answered for inference, and says so;
- on a Mixtral-style decoder, training advice names no npu kernel without a backward (each
  checked with `opmap table show`), while inference advice may (npu_moe_gating_top_k_softmax);
- shards scanned for training merge to the bytes of one scan; a report of another workload
  is refused; an unknown workload is a usage error.

    test_workload.py OPMAP
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(os.path.dirname(HERE), "fixtures")
RESNET = os.path.join(FIX, "torchscript", "resnet18.traced.pt")
MIXTRAL = os.path.join(FIX, "llm", "mixtral_kv.traced.pt")
ONNX = os.path.join(FIX, "llm", "llama_kv.opset17.onnx")
FORMATS = ("text", "json", "html", "markdown", "csv", "sarif", "junit")


def run(opmap, *args):
    return subprocess.run([opmap] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)


def scan_json(opmap, workload, *paths):
    p = run(opmap, "scan", "--workload", workload, "--format", "json", *paths)
    if p.returncode not in (0, 1):
        raise SystemExit("scan failed: %s" % p.stderr)
    return json.loads(p.stdout)


def has_backward(opmap, kernel, cache={}):
    if kernel not in cache:
        out = run(opmap, "table", "show", kernel).stdout
        m = re.search(r"^  backward:\s+(\w+)", out, re.M)
        cache[kernel] = bool(m) and m.group(1) not in ("missing", "rewrite")
    return cache[kernel]


def main(argv):
    opmap = argv[1]
    bad = []
    # a training scan of a traced ResNet: the backward of conv, max pool, linear
    d = scan_json(opmap, "training", RESNET)
    if d["workload"] != "training":
        bad.append("JSON workload %r" % d["workload"])
    ops = {o["op_type"]: o for o in d["models"][0]["operators"]}
    for name in ("_convolution", "max_pool2d", "linear"):
        b = ops.get(name, {}).get("backward")
        if not b or not b["status"]:
            bad.append("aten::%s has no backward answer: %s" % (name, ops.get(name)))
    if ops["_convolution"]["backward"]["ops"] != "aten::convolution_backward":
        bad.append("conv's backward: %s" % ops["_convolution"]["backward"])
    inf = scan_json(opmap, "inference", RESNET)
    if inf["workload"] != "inference" or any("backward" in o for o in inf["models"][0]["operators"]):
        bad.append("an inference scan carries backward answers")
    # every format names the workload
    for fmt in FORMATS:
        out = run(opmap, "scan", "--workload", "training", "--format", fmt, RESNET).stdout
        if "training" not in out:
            bad.append("format %s does not name the workload" % fmt)
    # ONNX: answered for inference, and it says so
    d = scan_json(opmap, "training", ONNX)
    notes = [r for r in d["models"][0]["risks"] if r["kind"] == "workload"]
    if d["workload"] != "training" or not notes or "inference" not in notes[0]["message"]:
        bad.append("ONNX training scan does not say it was answered for inference: %s" % notes)
    if any("backward" in o for o in d["models"][0]["operators"]):
        bad.append("ONNX operators carry backward answers")
    # Mixtral: training advice names no kernel without a backward; inference may
    for workload in ("training", "inference"):
        d = scan_json(opmap, workload, MIXTRAL)
        named = set()
        for a in d["models"][0]["advice"]:
            named |= set("npu::" + k for k in re.findall(r"torch_npu\.(npu_\w+)", a["action"]))
        untrainable = sorted(k for k in named if not has_backward(opmap, k))
        if workload == "training" and untrainable:
            bad.append("training advice names kernels without a backward: %s" % untrainable)
        if workload == "inference" and "npu::npu_moe_gating_top_k_softmax" not in named:
            bad.append("inference advice lost the inference MoE kernel: %s" % sorted(named))
        print("%s advice names %s" % (workload, ", ".join(sorted(named))))
    # merge: shards scanned for training merge to one scan's bytes; another workload refused
    with tempfile.TemporaryDirectory() as tmp:
        a, b, one = (os.path.join(tmp, n) for n in ("a.json", "b.json", "one.json"))
        for path, files in ((a, [RESNET]), (b, [MIXTRAL, ONNX]), (one, [RESNET, MIXTRAL, ONNX])):
            run(opmap, "scan", "--workload", "training", "--format", "json", "-o", path, *files)
        merged = run(opmap, "merge", "--format", "json", a, b)
        with open(one) as f:
            if merged.stdout != f.read():
                bad.append("merged training shards differ from one scan (%s)" % merged.stderr[:300])
        other = os.path.join(tmp, "c.json")
        run(opmap, "scan", "--format", "json", "-o", other, RESNET)
        p = run(opmap, "merge", "--format", "json", a, other)
        if p.returncode != 3 or "workload" not in p.stderr:
            bad.append("merge of two workloads: exit %d %s" % (p.returncode, p.stderr[:200]))
    p = run(opmap, "scan", "--workload", "finetune", RESNET)
    if p.returncode != 2 or "--workload" not in p.stderr:
        bad.append("--workload finetune: exit %d %s" % (p.returncode, p.stderr[:200]))
    for line in bad:
        print("FAIL", line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
