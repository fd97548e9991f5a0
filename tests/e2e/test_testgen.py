#!/usr/bin/python3
"""From prediction to proof (issue 22): `opmap testgen` writes, for a transformer (the
torch.export fixture) and a detection model (torchvision's Faster R-CNN exported to ONNX
here by torch 1.13, its shapes inferred by onnx), valid Python with one test per flagged
signature carrying the model's shapes and dtypes (held against the models' own files);
the generated tests pass here with --device cpu under /usr/bin/python3, through the
runner (no pytest) and called one by one; a results file with one pass and one failure
changes the JSON, text and HTML reports exactly as docs/testgen.md says; results are
matched by signature, never by position; merged shards keep the verification byte for
byte; results files that are not an NPU run, or not one at all, are refused; the hostile
corpus gives ASCII Python or a clean error.

Usage: test_testgen.py OPMAP_BINARY   (run by ctest)
"""
import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from report_schema import validate  # noqa: E402

OPMAP = None
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PY = "/usr/bin/python3"
PT2 = os.path.join(ROOT, "tests", "fixtures", "export", "transformer_block.pt2")
FORMATS = ["json", "text", "html", "markdown", "csv", "sarif", "junit"]

EXPORT = r'''
import sys, torch, torchvision, onnx
from onnx import shape_inference
torch.manual_seed(0)
m = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
    weights=None, weights_backbone=None).eval()
torch.onnx.export(m, ([torch.rand(3, 320, 320)],), sys.argv[1], opset_version=17)
onnx.save(shape_inference.infer_shapes(onnx.load(sys.argv[1])), sys.argv[1])
'''

# the module's CASES as JSON (T as {dtype, shape, values}, D as {"dim": name})
DUMP = r'''
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("m", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
def plain(a):
    if isinstance(a, m.T):
        return {"dtype": a.dtype, "values": a.values,
                "shape": [{"dim": d.name} if isinstance(d, m.D) else d for d in a.shape]}
    if isinstance(a, list):
        return [plain(x) for x in a]
    return a if a is None or isinstance(a, (int, float, str, bool)) else repr(a)
print(json.dumps([dict(id=c.id, op=c.op, signature=c.signature, kind=c.kind, target=c.target,
                       args=plain(c.args), nodes=list(c.nodes), instances=c.instances,
                       models=list(c.models), why=c.why, skip=c.skip) for c in m.CASES]))
'''

# each test function called as pytest would, without pytest
CALL_TESTS = r'''
import importlib.util, sys, unittest
spec = importlib.util.spec_from_file_location("m", sys.argv[1])
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
ran = skipped = 0
for name in sorted(n for n in dir(m) if n.startswith("test_")):
    try:
        getattr(m, name)()
        ran += 1
    except unittest.SkipTest:
        skipped += 1
print(ran, skipped)
'''


def test_id(op, signature):
    """The id opmap testgen gives the test of `signature` (om_sig_test_id): the operator as
    an identifier and 12 hex digits of the signature's FNV-1a hash."""
    h = 1469598103934665603
    for c in signature.encode():
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    ident = ""
    for ch in op:
        ok = ch.isascii() and ch.isalnum()
        if len(ident) >= 47:
            break
        if ok or (ident and ident[-1] != "_"):
            ident += ch if ok else "_"
    return "%s_%012x" % (ident, h & 0xFFFFFFFFFFFF)


def run(*args, **kw):
    return subprocess.run([OPMAP] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=1200, **kw)


def py(*args, env=None):
    return subprocess.run([PY] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=1800, env=env)


def scan_json(*args):
    proc = run("scan", "-q", "--format", "json", *args)
    assert proc.returncode in (0, 1), proc.stderr
    return validate(json.loads(proc.stdout))


def ops_of(report, model_index=0):
    return {"%s::%s" % (o["domain"], o["op_type"]): o
            for o in report["models"][model_index]["operators"]}


# Operators named with --ops, on top of what testgen takes by default: the transformer's
# kernels (every one full: the default takes none of them) and the detection model's shape
# and data-dependent operators
OPS = ["aten::mm", "aten::div", "aten::bmm", "aten::_softmax", "aten::relu",
       "aten::addmm", "Expand", "NonZero", "Resize"]


def chosen(op):
    """What testgen tests by default (docs/testgen.md), and the operators --ops names."""
    named = "%s::%s" % (op["domain"], op["op_type"]) in OPS or \
        (op["domain"] == "ai.onnx" and op["op_type"] in OPS)
    return (named or op["status"] in ("partial", "rewrite", "unmapped") or op["unpublished"] or
            set(op["flags"]) & {"precision", "performance"}) and op["status"] != "structural"


class Loop(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="opmap-testgen-")
        cls.onnx = os.path.join(cls.tmp, "fasterrcnn_mobilenet_v3_320.onnx")
        proc = py("-c", EXPORT, cls.onnx)
        assert proc.returncode == 0, proc.stderr[-3000:]
        cls.out = os.path.join(cls.tmp, "tests")
        proc = run("testgen", PT2, cls.onnx, "-o", cls.out, "--ops", ",".join(OPS))
        assert proc.returncode == 0, proc.stderr
        cls.summary = proc.stderr
        cls.module = os.path.join(cls.out, "test_opmap_ops.py")
        cls.runner = os.path.join(cls.out, "run_opmap_tests.py")
        proc = py("-c", DUMP, cls.module)
        assert proc.returncode == 0, proc.stderr[-3000:]
        cls.cases = json.loads(proc.stdout)
        cls.cpu_results = os.path.join(cls.tmp, "cpu.json")
        cls.cpu = py(cls.runner, "--device", "cpu", "-o", cls.cpu_results)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    # ---- the module ----

    def test_valid_python_one_test_per_flagged_signature(self):
        with open(self.module) as f:
            src = f.read()
        tree = ast.parse(src)  # valid Python
        tests = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)
                 and n.name.startswith("test_")]
        self.assertEqual(len(tests), len(self.cases))
        self.assertEqual(sorted(tests), sorted("test_" + c["id"] for c in self.cases))
        sigs = [c["signature"] for c in self.cases]
        self.assertEqual(len(sigs), len(set(sigs)), "one test per distinct signature")
        self.assertTrue(src.isascii())
        self.assertNotIn("import pytest", src)  # the runner needs no pytest
        # every instance of every flagged operator is in exactly one test, and only those
        report = scan_json(PT2, self.onnx)
        for m, model in enumerate((PT2, self.onnx)):
            ops = ops_of(report, m)
            got = {}
            for c in self.cases:
                if model in c["models"]:
                    got[c["op"]] = got.get(c["op"], 0) + c["instances"]
            want = {k: o["instances"] for k, o in ops.items() if chosen(o)}
            self.assertEqual(got, want, model)
        self.assertIn("%d tests for 2 models" % len(self.cases), self.summary)

    def test_transformer_shapes_and_dtypes_are_the_models(self):
        """Each case of the torch.export transformer against the program's own JSON: the
        node's tensor inputs, in order, with the dtype and sizes of tensor_values."""
        with zipfile.ZipFile(PT2) as z:
            prog = json.loads(z.read("package/models/model.json"))
        g = prog["graph_module"]["graph"]
        tv = g["tensor_values"]
        by_out = {n["outputs"][0].get("as_tensor", {}).get("name"): n for n in g["nodes"]
                  if n["outputs"]}
        dtypes = {7: "float32", 5: "int64", 6: "float16", 8: "float64", 12: "bool",
                  13: "bfloat16", 4: "int32"}
        cases = [c for c in self.cases if PT2 in c["models"]]
        self.assertGreaterEqual(len(cases), 5)
        for c in cases:
            self.assertIsNone(c["skip"], c["signature"])
            for path in c["nodes"]:
                node = by_out[path.split("/")[-1]]
                self.assertEqual("torch.ops." + c["target"].replace("::", "."), node["target"])
                want = [tv[i["arg"]["as_tensor"]["name"]] for i in node["inputs"]
                        if "as_tensor" in i["arg"]]
                got = [a for a in c["args"] if isinstance(a, dict)]
                self.assertEqual([(dtypes[t["dtype"]], [s["as_int"] for s in t["sizes"]])
                                  for t in want], [(a["dtype"], a["shape"]) for a in got],
                                 c["signature"])

    def test_detection_shapes_and_dtypes_are_the_models(self):
        """Each case of the ONNX Faster R-CNN against onnx's own reading of the file: every
        input of the node, its element type and dims (dim_param as the named dimension)."""
        import onnx
        m = onnx.load(self.onnx, load_external_data=False)
        types, nodes = {}, {}

        def walk(graph, prefix):
            """Every node with opmap's path (an If's branches as main/If_1/else_branch/...),
            and the types its graph declares."""
            for v in list(graph.input) + list(graph.value_info) + list(graph.output):
                t = v.type.tensor_type
                if t.HasField("shape"):
                    types[v.name] = (t.elem_type, [d.dim_value if d.HasField("dim_value") else
                                                   {"dim": d.dim_param} if d.dim_param else
                                                   {"dim": None} for d in t.shape.dim])
            for i in graph.initializer:
                types[i.name] = (i.data_type, list(i.dims))
            for n in graph.node:
                path = prefix + n.name.lstrip("/")
                nodes[path] = n
                for a in n.attribute:
                    if a.type == onnx.AttributeProto.GRAPH:
                        walk(a.g, "%s/%s/" % (path, a.name))

        walk(m.graph, "main/")
        names = {1: "float32", 7: "int64", 9: "bool", 6: "int32", 10: "float16"}
        cases = [c for c in self.cases if self.onnx in c["models"]]
        built = [c for c in cases if not c["skip"]]
        self.assertGreaterEqual(len(built), 10)
        self.assertTrue({"ai.onnx::Expand", "ai.onnx::NonZero", "ai.onnx::Resize"} <=
                        {c["op"] for c in built})
        for c in built:
            for path in c["nodes"]:
                node = nodes[path]
                self.assertEqual(c["target"], node.op_type)
                for k, name in enumerate(node.input):
                    if not name:
                        self.assertIsNone(c["args"][k])
                        continue
                    elem, dims = types[name]
                    self.assertEqual((c["args"][k]["dtype"], c["args"][k]["shape"]),
                                     (names[elem], dims), "%s input %d" % (path, k))
        # a case whose input the model leaves without a shape skips, saying so
        for c in cases:
            if c["skip"]:
                self.assertRegex(c["skip"], r"does not state|states neither|no ATen equivalent")

    # ---- running it here ----

    def test_passes_here_with_device_cpu(self):
        self.assertEqual(self.cpu.returncode, 0, self.cpu.stdout[-3000:] + self.cpu.stderr)
        with open(self.cpu_results) as f:
            res = json.load(f)
        self.assertEqual(res["schema"], "opmap-results/1")
        self.assertEqual((res["device"], res["chip"]), ("cpu", "cpu"))
        self.assertEqual([r["signature"] for r in res["results"]],
                         [c["signature"] for c in self.cases])
        outcomes = {}
        for r in res["results"]:
            outcomes[r["outcome"]] = outcomes.get(r["outcome"], 0) + 1
            if r["outcome"] == "pass":
                self.assertTrue(r["standard"])
                self.assertIsNotNone(r["cpu_ms"])
                self.assertIsNotNone(r["device_ms"])
        self.assertEqual(set(outcomes) - {"pass", "skipped"}, set(), outcomes)
        self.assertGreaterEqual(outcomes.get("pass", 0), 15)
        # every case the model fully states runs and passes
        for r, c in zip(res["results"], self.cases):
            if not c["skip"] and PT2 in c["models"]:
                self.assertEqual(r["outcome"], "pass", r)

    def test_test_functions_run_without_pytest(self):
        env = dict(os.environ, OPMAP_DEVICE="cpu")
        proc = py("-c", CALL_TESTS, self.module, env=env)
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        ran, skipped = map(int, proc.stdout.split())
        self.assertEqual(ran + skipped, len(self.cases))
        self.assertGreaterEqual(ran, 15)

    def test_without_torch_npu_it_says_so(self):
        proc = py(self.runner, "-o", os.path.join(self.tmp, "npu.json"))
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("torch_npu is not installed", proc.stderr)
        env = dict(os.environ)
        env.pop("OPMAP_DEVICE", None)
        proc = py("-c", CALL_TESTS, self.module, env=env)
        self.assertEqual(proc.stdout.split(), ["0", str(len(self.cases))])

    # ---- results back into the report ----

    def npu_results(self, entries, name):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump({"schema": "opmap-results/1", "device": "npu", "chip": "Ascend910B3",
                       "torch": "2.1.0", "torch_npu": "2.1.0.post3", "cann": "8.0.RC1",
                       "results": entries}, f)
        return path

    def one_pass_one_failure(self):
        with open(self.cpu_results) as f:
            res = {r["op"]: r for r in json.load(f)["results"]}
        ok, bad = dict(res["aten::mm"]), dict(res["aten::div"])
        bad.update(outcome="fail", max_abs_error=0.03125, max_rel_error=0.125,
                   message="output 0: 12 elements over rtol 9.54e-07")
        return self.npu_results([ok, bad], "one-pass-one-fail.json"), ok, bad

    def test_one_pass_one_failure_in_json_text_html(self):
        results, ok, bad = self.one_pass_one_failure()
        # full operators get a range here, so a pass visibly leaves its risk
        weight = ("--weight", "full=0.1:0.2:0.3")
        before = scan_json(PT2, *weight)
        after = scan_json(PT2, *weight, "--results", results)
        b, a = ops_of(before), ops_of(after)
        self.assertEqual(set(b), set(a))
        for key in b:
            if key in ("aten::mm", "aten::div"):
                continue
            self.assertEqual(a[key], b[key], key)  # nothing else changes
        mm, div = a["aten::mm"], a["aten::div"]
        self.assertEqual(mm["verification"]["state"], "pass")
        self.assertEqual(mm["effort"], {"min": 0.1, "expected": 0.1, "max": 0.1})
        # what the gate's --max-effort still counts
        self.assertEqual(mm["verification"]["effort_unverified"],
                         {"min": 0.1, "expected": 0.2, "max": 0.3})
        self.assertEqual(b["aten::mm"]["effort"], {"min": 0.1, "expected": 0.2, "max": 0.3})
        r = mm["verification"]["results"][0]
        self.assertEqual((r["signature"], r["chip"], r["family"], r["torch_npu"], r["cann"],
                          r["outcome"], r["instances"], r["example"]),
                         (ok["signature"], "Ascend910B3", "ascend910b", "2.1.0.post3",
                          "8.0.RC1", "pass", 1, "main/self_attn/mm"))
        self.assertEqual(div["verification"]["state"], "fail")
        self.assertEqual(div["effort"], b["aten::div"]["effort"])  # a failure stays a finding
        self.assertEqual(div["status"], b["aten::div"]["status"])
        self.assertEqual(div["flags"], b["aten::div"]["flags"])
        r = div["verification"]["results"][0]
        self.assertEqual((r["outcome"], r["max_abs_error"], r["max_rel_error"], r["message"]),
                         ("fail", 0.03125, 0.125, bad["message"]))
        est_b, est_a = before["models"][0]["estimate"], after["models"][0]["estimate"]
        self.assertEqual(est_a["min"], est_b["min"])
        self.assertAlmostEqual(est_b["expected"] - est_a["expected"], 0.1)
        self.assertAlmostEqual(est_b["max"] - est_a["max"], 0.2)

        text = run("scan", PT2, *weight, "--results", results).stdout
        plain = run("scan", PT2, *weight).stdout
        self.assertNotIn("verified", plain)
        self.assertIn("verified: 1 operator passes on the device, 1 fails, 0 partly verified",
                      text)
        block = lambda op: re.split(r"\n  [a-z]", text.split("\n  ", 1)[1].split(op, 1)[1], 1)[0]
        mm_block = block("aten::mm ")
        self.assertIn("verified: pass on Ascend910B3 (torch_npu 2.1.0.post3, CANN 8.0.RC1)",
                      mm_block)
        div_block = block("aten::div ")
        self.assertIn("verified: FAIL on Ascend910B3 (torch_npu 2.1.0.post3, CANN 8.0.RC1): "
                      "max abs error 0.0312, max rel error 0.125", div_block)
        self.assertIn(bad["message"], div_block)

        html = run("scan", "--format", "html", PT2, *weight, "--results", results).stdout
        plain = run("scan", "--format", "html", PT2, *weight).stdout
        for marker in ('title="verified on Ascend910B3 (torch_npu 2.1.0.post3, CANN '
                       '8.0.RC1): pass">verified</span>',
                       '>failed on NPU</span>', "<b>On the device:</b> failed on Ascend910B3",
                       "<b>Verified on the device:</b> 1 operator passes"):
            self.assertIn(marker, html)
            self.assertNotIn(marker, plain)

    def test_matched_by_signature_never_by_position(self):
        results, ok, bad = self.one_pass_one_failure()
        noise = dict(ok, op="aten::mm", signature="aten::mm.default@10(float32[3,3], "
                     "float32[3,3])")
        noise["id"] = test_id(noise["op"], noise["signature"])
        entries = [bad, noise, ok]
        random.Random(7).shuffle(entries)
        shuffled = self.npu_results(entries, "shuffled.json")
        one = run("scan", "--format", "json", PT2, "--results", results).stdout
        two = run("scan", "--format", "json", PT2, "--results", shuffled).stdout
        strip = lambda s: s.replace(shuffled, results)  # the results file is named in it
        self.assertEqual(strip(two), one)

    def test_merge_keeps_the_verification(self):
        results, _, _ = self.one_pass_one_failure()
        shards = []
        for i, model in enumerate((PT2, self.onnx)):
            out = os.path.join(self.tmp, "shard-%d.json" % i)
            proc = run("scan", "-q", "--results", results, "--format", "json", "-o", out,
                       model)
            self.assertIn(proc.returncode, (0, 1), proc.stderr)
            shards.append(out)
        one, merged = os.path.join(self.tmp, "one"), os.path.join(self.tmp, "merged")
        a = run("scan", "-q", "--results", results, "--format", ",".join(FORMATS), "-o", one,
                PT2, self.onnx)
        b = run("merge", "-q", "--format", ",".join(FORMATS), "-o", merged, *shards)
        self.assertEqual(a.returncode, b.returncode, b.stderr)
        for name in sorted(os.listdir(one)):
            with open(os.path.join(one, name), "rb") as x, open(os.path.join(merged, name),
                                                                "rb") as y:
                self.assertEqual(x.read(), y.read(), name)
        proc = run("merge", "--results", results, *shards)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--results is an option of `opmap scan`", proc.stderr)

    def test_results_refused(self):
        proc = run("scan", PT2, "--results", self.cpu_results)
        self.assertEqual(proc.returncode, 3)
        self.assertIn("device: 'cpu': only a run on the NPU verifies anything", proc.stderr)
        bad = os.path.join(self.tmp, "bad.json")
        with open(bad, "w") as f:
            f.write('{"schema": "opmap-results/1", "device": "npu", "chip": "Ascend910B3", '
                    '"torch_npu": "", "cann": "", "results": [{"op": "aten::mm"}]}')
        proc = run("scan", PT2, "--results", bad)
        self.assertEqual(proc.returncode, 3)
        self.assertRegex(proc.stderr, r"bad\.json: offset \d+: results\[0\]\.signature: missing")
        # results nobody ran: every signature marked passed, under tests testgen never wrote
        with open(self.cpu_results) as f:
            forged = [dict(r, outcome="pass", id="t%d" % i)
                      for i, r in enumerate(json.load(f)["results"])]
        proc = run("scan", PT2, "--results", self.npu_results(forged, "forged.json"))
        self.assertEqual(proc.returncode, 3)
        self.assertRegex(proc.stderr, r"forged\.json: offset \d+: results\[0\]\.id: 't0' is not "
                                      r"the test opmap testgen writes for this signature")

    def test_results_never_move_the_effort_gate(self):
        """A results file is evidence for the report: every signature passed narrows the
        report's estimate to its minimum, but --max-effort still counts the full range
        (docs/testgen.md), so a budget the model is over still fails."""
        with open(self.cpu_results) as f:
            passed = [dict(r, outcome="pass") for r in json.load(f)["results"]
                      if r["outcome"] in ("pass", "fail")]
        results = self.npu_results(passed, "all-passed.json")
        weight = ("--weight", "full=0.1:0.2:0.3", "--weight", "partial=0.5:0.8:1")
        before = scan_json(PT2, *weight)["models"][0]["estimate"]["expected"]
        after = scan_json(PT2, *weight, "--results", results)["models"][0]["estimate"]["expected"]
        self.assertLess(after, before)  # the report's estimate moved
        budget = "%.3f" % ((before + after) / 2)
        for extra in ((), ("--results", results)):
            proc = run("scan", "-q", "--format", "json", "-o", os.devnull, PT2, *weight,
                       "--fail-on", "effort", "--max-effort", budget, *extra)
            self.assertEqual(proc.returncode, 1, (extra, proc.stderr))
            self.assertIn("is over the limit of", proc.stderr)


class ShapesAndSwaps(unittest.TestCase):
    """Issue 32: an ONNX model exported without value_info (the Llama-style decoder of
    tests/fixtures/llm) gets runnable tests, the shapes opmap inferred said in each case;
    the fused-kernel swaps the scan advises get tests of their own (the written form
    against the fused kernel), with gradients in a training workload, and every one passes
    here with --device cpu."""
    LLM = os.path.join(ROOT, "tests", "fixtures", "llm")

    def generate(self, out, *args):
        proc = run("testgen", "-o", out, *args)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        proc = py("-c", DUMP, os.path.join(out, "test_opmap_ops.py"))
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        return json.loads(proc.stdout)

    def test_onnx_without_stored_shapes_runs(self):
        with tempfile.TemporaryDirectory() as out:
            onnx_model = os.path.join(self.LLM, "llama_kv.opset17.onnx")
            cases = self.generate(out, "--all", onnx_model)
            no_shape = [c for c in cases if c["skip"] and "does not state its shape" in c["skip"]]
            self.assertGreater(len(cases), 50)
            self.assertLessEqual(len(no_shape), len(cases) // 10, no_shape[:5])
            with open(os.path.join(out, "test_opmap_ops.py")) as f:
                self.assertIn("# shapes inferred by opmap, not stated by the model", f.read())
            res = os.path.join(out, "cpu.json")
            proc = py(os.path.join(out, "run_opmap_tests.py"), "--device", "cpu", "-o", res)
            self.assertEqual(proc.returncode, 0, proc.stdout[-2000:] + proc.stderr[-2000:])
            with open(res) as f:
                outcomes = [r["outcome"] for r in json.load(f)["results"]]
            self.assertNotIn("fail", outcomes)
            self.assertNotIn("error", outcomes)
            self.assertGreater(outcomes.count("pass"), len(outcomes) * 3 // 4)

    def test_swap_tests_for_the_advised_kernels(self):
        graph = os.path.join(self.LLM, "mixtral_kv.traced.graph.txt")
        for workload in ("inference", "training"):
            with tempfile.TemporaryDirectory() as out:
                cases = self.generate(out, "--workload", workload, graph)
                swaps = {c["target"]: c for c in cases if c["kind"] == "swap"}
                self.assertEqual(sorted(swaps), ["attention", "moe_router", "rmsnorm", "rotary",
                                                 "swiglu"], workload)
                for c in swaps.values():
                    self.assertIsNone(c["skip"], c)
                    self.assertEqual(c["id"], test_id(c["op"], c["signature"]))
                    self.assertEqual(c["signature"].endswith("+backward") or
                                     "+backward{" in c["signature"], workload == "training", c)
                self.assertEqual(swaps["rmsnorm"]["args"][1]["shape"],
                                 swaps["rmsnorm"]["args"][0]["shape"][-1:])
                res = os.path.join(out, "cpu.json")
                proc = py(os.path.join(out, "run_opmap_tests.py"), "--device", "cpu", "-o", res)
                self.assertEqual(proc.returncode, 0, proc.stdout[-2000:] + proc.stderr[-2000:])
                with open(res) as f:
                    got = {r["signature"]: r["outcome"] for r in json.load(f)["results"]}
                for c in swaps.values():
                    self.assertEqual(got[c["signature"]], "pass", c["signature"])
                with open(os.path.join(out, "test_opmap_ops.py")) as f:
                    src = f.read()
                self.assertEqual('"kernel": "npu_moe_gating_top_k"' in src, workload == "training")


class Hostile(unittest.TestCase):
    def test_hostile_models_give_valid_ascii_python_or_a_clean_error(self):
        """Every model of the hostile corpus, every operator: a module that is ASCII Python
        (names with quotes, newlines, escapes and bytes that are not UTF-8 stay inside
        their strings), or one error naming the file; never a crash."""
        cases = os.path.join(ROOT, "tests", "hostile", "cases")
        with tempfile.TemporaryDirectory() as out:
            written = 0
            for name in sorted(os.listdir(cases)):
                if not name.endswith((".onnx", ".pt", ".txt")):
                    continue
                proc = run("testgen", "--all", "-q", os.path.join(cases, name), "-o", out)
                self.assertIn(proc.returncode, (0, 3), name + proc.stderr)
                module = os.path.join(out, "test_opmap_ops.py")
                if proc.returncode == 0:
                    with open(module, "rb") as f:
                        src = f.read()
                    self.assertTrue(src.isascii(), name)
                    ast.parse(src.decode())
                    written += 1
                    os.remove(module)
                else:
                    self.assertEqual(proc.stderr.count("\n"), 1, proc.stderr)
            self.assertGreater(written, 10)


def main():
    global OPMAP
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    OPMAP = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)


if __name__ == "__main__":
    main()
