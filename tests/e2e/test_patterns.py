#!/usr/bin/python3
"""Fused-kernel advice (issue 21, docs/patterns.md) end to end.

The LLM-style blocks of tests/fixtures/llm (tools/fixtures/make_llm_blocks.py; each exported
to ONNX at opsets 13 and 17 and traced to TorchScript) must give exactly the patterns and
counts tests/fixtures/llm/expected.yaml lists, written before the matcher existed, each with
its torch_npu replacement, sources, grade, effort and places, in JSON, text, Markdown and
HTML, and as gate findings of kind `advice` (failing only with --fail-on advice). CNNs get
none: torchvision's resnet50 exported here (random weights) and the CNN fixtures. A report
with fused advice merges back to the same bytes.

Usage: test_patterns.py OPMAP_BINARY   (run by ctest)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

OPMAP = None
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
LLM = os.path.join(ROOT, "tests", "fixtures", "llm")
TS = os.path.join(ROOT, "tests", "fixtures", "torchscript")
VARIANTS = ("opset13.onnx", "opset17.onnx", "traced.pt")


def run(*args):
    return subprocess.run([OPMAP] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=600)


def scan_json(*args):
    proc = run("scan", "-q", "--format", "json", *args)
    return proc, json.loads(proc.stdout)


def expected():
    """expected.yaml: `name:` then `  pattern: count` lines (a YAML subset, read by hand so
    the test needs no YAML module)."""
    out, name = {}, None
    with open(os.path.join(LLM, "expected.yaml")) as f:
        for line in f:
            line = line.split("#", 1)[0].rstrip()
            if not line.strip():
                continue
            if not line.startswith(" "):
                name = line.rstrip(":")
                out[name] = {}
            else:
                k, v = line.strip().split(":")
                out[name][k.strip()] = int(v)
    return out


def fused(report):
    return {a["id"]: a for m in report["models"] for a in m["advice"] if a["kind"] == "fused"}


class Fixtures(unittest.TestCase):
    def test_each_block_gives_what_the_reviewer_expected(self):
        want = expected()
        self.assertEqual(sorted(want), ["gpt_block", "llama_block", "mixtral_moe"])
        for name, counts in want.items():
            for v in VARIANTS:
                with self.subTest(model=name, variant=v):
                    proc, rep = scan_json(os.path.join(LLM, "%s.%s" % (name, v)))
                    self.assertEqual(proc.returncode, 0, proc.stderr)
                    got = fused(rep)
                    self.assertEqual({k: a["count"] for k, a in got.items()}, counts)
                    for a in got.values():
                        self.assertTrue(a["action"] and a["sources"] and a["grade"], a["id"])
                        self.assertEqual(len(a["places"]), a["count"])
                        self.assertEqual(len(a["lines"]), a["count"])
                        self.assertGreater(a["effort"]["expected"], 0)
                        if v.endswith(".onnx"):
                            self.assertTrue(a["atc"], a["id"])
                        else:  # traced: the Python line of each place
                            self.assertEqual(a["atc"], "")
                            self.assertTrue(all(l and "make_llm_blocks.py:" in l
                                                for l in a["lines"]), a["lines"])

    def test_replacements_and_chips(self):
        m = os.path.join(LLM, "llama_block.traced.pt")
        got = fused(scan_json(m)[1])
        self.assertIn("torch_npu.npu_rms_norm", got["rmsnorm"]["action"])
        self.assertIn("torch_npu.npu_rotary_mul", got["rotary"]["action"])
        self.assertIn("npu_fusion_attention", got["attention"]["action"])
        self.assertIn("torch_npu.npu_swiglu", got["swiglu"]["action"])
        self.assertNotIn("not documented", got["swiglu"]["action"])  # ascend910b
        # npu_swiglu is documented for Atlas A2 training only: not for the 310P
        got = fused(scan_json("--soc", "ascend310p", m)[1])
        self.assertIn("not documented for ascend310p", got["swiglu"]["action"])
        self.assertNotIn("not documented", got["rmsnorm"]["action"])

    def test_every_format_shows_them(self):
        m = os.path.join(LLM, "mixtral_moe.opset17.onnx")
        text = run("scan", m).stdout
        self.assertIn("advice, fused kernel (moe_router)", text)
        self.assertIn("use: torch_npu.npu_moe_gating_top_k_softmax", text)
        self.assertIn("fused kernels: 5 patterns to replace, 3.5 person-days", text)
        self.assertIn("fused kernel: MoE top-k routing", run("scan", "--format", "md", m).stdout)
        self.assertIn("fused kernel <b>swiglu</b>", run("scan", "--format", "html", m).stdout)
        sarif = json.loads(run("scan", "--format", "sarif", m).stdout)
        rules = {r["ruleId"] for r in sarif["runs"][0]["results"]}
        self.assertIn("opmap/advice", rules)

    def test_the_gate_fails_on_advice_only_when_asked(self):
        m = os.path.join(LLM, "gpt_block.opset13.onnx")
        proc, rep = scan_json(m)
        self.assertEqual(proc.returncode, 0)
        kinds = [f["kind"] for f in rep["gate"]["findings"]]
        self.assertEqual(kinds.count("advice"), 3)
        self.assertEqual(run("scan", "-q", "--fail-on", "advice", m).returncode, 1)

    def test_merge_gives_the_same_bytes(self):
        tmp = tempfile.mkdtemp(prefix="opmap-patterns-")
        try:
            a = os.path.join(tmp, "a.json")
            m = os.path.join(LLM, "mixtral_moe.traced.pt")
            run("scan", "-q", "--format", "json", "-o", a, m)
            for fmt in ("json", "text", "html", "markdown", "sarif"):
                self.assertEqual(run("merge", "-q", "--format", fmt, a).stdout,
                                 run("scan", "-q", "--format", fmt, m).stdout, fmt)
        finally:
            shutil.rmtree(tmp)


class Cnns(unittest.TestCase):
    def test_cnn_fixtures_get_none(self):
        for f in sorted(os.listdir(TS)):
            if f.endswith(".pt") and any(k in f for k in ("resnet", "mobilenet", "efficientnet",
                                                         "inception", "lraspp", "fasterrcnn")):
                with self.subTest(model=f):
                    self.assertEqual(fused(scan_json(os.path.join(TS, f))[1]), {})

    def test_resnet50_gets_none(self):
        tmp = tempfile.mkdtemp(prefix="opmap-resnet50-")
        try:
            out = os.path.join(tmp, "resnet50.onnx")
            code = ("import torch, torchvision; torch.manual_seed(0); "
                    "m = torchvision.models.resnet50(weights=None).eval(); "
                    "torch.onnx.export(m, torch.rand(1, 3, 224, 224), %r, opset_version=17)" % out)
            proc = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True,
                                  text=True, timeout=1200)
            self.assertEqual(proc.returncode, 0, proc.stderr[-2000:])
            proc, rep = scan_json(out)
            self.assertEqual(fused(rep), {})
            self.assertNotIn("advice", [f["kind"] for f in rep["gate"]["findings"]])
        finally:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    OPMAP = sys.argv.pop(1)
    unittest.main()
