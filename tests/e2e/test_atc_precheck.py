#!/usr/bin/python3
"""`opmap scan --format atc-precheck` (docs/reports.md, "ATC pre-check"): the
check_result.json `atc --mode=3` would write, checked against the layout documented from
hicann/ge (docs/schema/atc-precheck.schema.json, python3-jsonschema) and byte for byte
against the way ATC dumps it (nlohmann::json, sorted keys, indent 2: what Python's
json.dumps(sort_keys=True, indent=2) writes too).

Real models (libonnx-testdata): one whose node is full passes; one whose Conv is at an
opset ATC parses no Conv at gets code 1; a subgraph's nodes are not listed; every model
of the tree validates. Models built here (tests/hostile's protobuf encoders): ATC's names
(a name's leading '/', unnamed nodes counted apart), repeated names (9 on both, in ATC's
order of causes), an unmapped operator, a call of a local function, an ATen fallback
node, Identity at opset 19 (structural, yet no parser plugin), graph inputs and
initializers as ATC adds them (dense ones only, one per name, FileConstant when
external), and where ATC stops. Several models, a model that is not ONNX and a file not
read give a list; opmap merge writes the same bytes as the scan.

Usage: test_atc_precheck.py OPMAP_BINARY   (run by ctest)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import jsonschema

OPMAP = None
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
sys.path.insert(0, os.path.join(ROOT, "tests", "hostile"))
import make_hostile as h  # noqa: E402  (protobuf encoders, no python3-onnx needed)
from report_schema import validate as validate_report  # noqa: E402

with open(os.path.join(ROOT, "docs", "schema", "atc-precheck.schema.json")) as f:
    SCHEMA = json.load(f)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)
VALIDATOR.check_schema(SCHEMA)

TYPE = [1, "The type is not supported."]
NAME = [9, "The name is repeated in the graph."]


def run(*args):
    return subprocess.run([OPMAP] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=900)


def node_model(name):
    return os.path.join(TESTDATA, name, "model.onnx")


def check_result(cr):
    """The totals and results the layout implies but a schema cannot say."""
    ops = cr.get("op", [])
    failed = [o for o in ops if any(c["code"] for c in o.get("cause", []))]
    assert cr["total"] == len(ops), cr
    assert cr["fail"] == len(failed) and cr["pass"] == cr["total"] - cr["fail"], cr
    for o in ops:  # opmap's own notes (code 0) come after ATC's causes
        codes = [c["code"] for c in o.get("cause", [])]
        assert codes == [c for c in codes if c] + [0] * codes.count(0), o
    return cr


def validate(doc):
    errors = list(VALIDATOR.iter_errors(doc))
    if errors:
        e = errors[0]
        raise AssertionError("not atc-precheck.schema.json at %s: %s" % (
            "/".join(str(p) for p in e.path), e.message))
    for entry in doc if isinstance(doc, list) else [{"check_result": doc}]:
        if "check_result" in entry:
            check_result(entry["check_result"])
    return doc


def atc(*args, rc=(0, 1)):
    """A scan's atc-precheck output: validated, and laid out as ATC dumps it."""
    proc = run("scan", "-q", "--format", "atc-precheck", *args)
    assert proc.returncode in rc, proc.stderr
    doc = validate(json.loads(proc.stdout))
    assert proc.stdout == json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False), \
        "not laid out as ATC's ModelSaver writes it"
    return doc


def causes(cr):
    return {o["name"]: [[c["code"], c["message"]] for c in o.get("cause", []) if c["code"]]
            for o in cr.get("op", [])}


def notes(cr, name):
    return [c["message"] for o in cr["op"] if o["name"] == name
            for c in o.get("cause", []) if c["code"] == 0]


def listed(cr):
    return [(o["name"], o["type"]) for o in cr.get("op", [])]


# ---- models built here -----------------------------------------------------------------

def attr_tensor(name, t):
    return h.f_len(1, name) + h.f_int(20, 4) + h.f_len(5, t)


def external(name, dims=(2,)):
    """A float tensor whose data is in a side file (data_location EXTERNAL)."""
    return (h.tensor(name, dims=dims) +
            h.f_len(13, h.f_len(1, "location") + h.f_len(2, name + ".bin")) + h.f_int(14, 1))


def sparse(name):
    values = h.tensor(name, dims=(1,), raw=b"\0\0\0\0")
    indices = h.tensor(name + "_idx", dims=(1,), dtype=7, raw=b"\0" * 8)
    return h.f_len(1, values) + h.f_len(2, indices) + h.f_int(3, 4)


def write(path, nodes, inputs=("x",), inits=(), opsets=(("", 17),), functions=(), extra=b""):
    g = h.graph(nodes, inputs=[h.value_info(i, 1, [1, 4]) for i in inputs],
                outputs=[h.value_info("y", 1, None)], inits=inits) + extra
    with open(path, "wb") as f:
        f.write(h.model(g, opsets=opsets, functions=functions))
    return path


class Real(unittest.TestCase):
    """libonnx-testdata's models."""

    def test_a_full_node_passes(self):
        self.assertEqual(atc(node_model("node/test_relu")), {
            "fail": 0, "name": "", "pass": 2, "result": "success", "total": 2,
            "op": [{"name": "Relu_0", "result": "success", "type": "ai.onnx::14::Relu"},
                   {"name": "x", "result": "success", "type": "Input"}]})

    def test_a_conv_at_an_opset_atc_has_no_parser_for(self):
        # exported at opset 6; ATC's Conv plugins register opset 8 and later
        cr = atc(node_model("pytorch-converted/test_Conv2d"))
        self.assertEqual(listed(cr), [("Conv_0", "ai.onnx::6::Conv"), ("0", "Input"),
                                      ("1_Initializer_0", "Constant"),
                                      ("2_Initializer_1", "Constant")])
        self.assertEqual(causes(cr)["Conv_0"], [TYPE])
        self.assertIn("nothing at opset 1-7: ATC parses Conv at opset 8", notes(cr, "Conv_0")[0])
        self.assertEqual((cr["result"], cr["fail"], cr["pass"]), ("failed", 1, 3))

    def test_the_example_of_docs_reports_md_is_what_opmap_writes(self):
        with open(os.path.join(ROOT, "docs", "reports.md"), encoding="utf-8") as f:
            page = f.read()
        section = page[page.index("## ATC pre-check"):]
        start = section.index("```json\n", section.index("pytorch-converted/test_Conv2d")) + 8
        example = section[start:section.index("\n```", start)]
        proc = run("scan", "-q", "--format", "atc-precheck",
                   node_model("pytorch-converted/test_Conv2d"))
        self.assertEqual(proc.stdout, example)

    def test_subgraph_nodes_are_not_listed(self):
        cr = atc(node_model("node/test_if"))  # its branches' Constants are not the main graph's
        self.assertEqual(listed(cr), [("If_0", "ai.onnx::11::If"), ("cond", "Input")])

    def test_a_dtype_or_attribute_limit_is_no_precheck_failure(self):
        # partial (dtype) and rewrite (cubic Resize) have a parser plugin: the pre-check passes
        cr = atc(node_model("node/test_resize_downsample_scales_cubic"))
        self.assertEqual(causes(cr)["Resize_0"], [])
        self.assertIn("expect it to pass here", notes(cr, "Resize_0")[0])
        self.assertEqual(cr["result"], "success")

    def test_every_model_of_the_tree(self):
        doc = atc(TESTDATA)
        self.assertGreater(len(doc), 1000)
        self.assertTrue(all("check_result" in e for e in doc if e["file"].endswith(".onnx")))
        codes = {c["code"] for e in doc for o in e["check_result"].get("op", [])
                 for c in o.get("cause", [])}
        self.assertEqual(codes, {0, 1})  # the tree repeats no name
        # each model's entry is what its own scan writes
        for e in doc[::97]:
            self.assertEqual(e["check_result"], atc(e["file"]), e["file"])

    def test_merge_writes_the_same_bytes(self):
        tmp = tempfile.mkdtemp(prefix="opmap-atc-merge-")
        self.addCleanup(shutil.rmtree, tmp)
        shards = [os.path.join(TESTDATA, "pytorch-converted"),
                  os.path.join(TESTDATA, "node", "test_if")]
        reports = []
        for i, d in enumerate(shards):
            reports.append(os.path.join(tmp, "%d.json" % i))
            proc = run("scan", "-q", "--format", "json", "-o", reports[-1], d)
            self.assertIn(proc.returncode, (0, 1), proc.stderr)
            with open(reports[-1]) as f:
                validate_report(json.load(f))
        one = run("scan", "-q", "--format", "atc-precheck", *shards)
        merged = run("merge", "-q", "--format", "atc-precheck", *reports)
        self.assertEqual((merged.stdout, merged.returncode), (one.stdout, one.returncode))
        single = run("merge", "-q", "--format", "atc-precheck", reports[1])
        self.assertEqual(single.stdout, run("scan", "-q", "--format", "atc-precheck",
                                            node_model("node/test_if")).stdout)


class Built(unittest.TestCase):
    """Models written here, each for one rule of ATC's parser."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="opmap-atc-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def test_names_repeats_and_an_unmapped_operator(self):
        m = write(self.path("m.onnx"), [
            h.node("Relu", "/conv1/Relu", ["x"], ["a"]),        # torch.onnx's leading '/'
            h.node("Relu", None, ["a"], ["b"]),                  # ATC's first unnamed node
            h.node("MyOp", "/custom/MyOp", ["b"], ["c"], domain="com.example"),
            h.node("Sigmoid", None, ["c"], ["d"]),               # ATC's second
            h.node("Relu", "/conv1/Relu", ["d"], ["e"]),         # a repeated name
            h.node("Foo", "twice", ["e"], ["f"], domain="com.example"),
            h.node("Bar", "twice", ["f"], ["y"], domain="com.example"),
        ], opsets=(("", 17), ("com.example", 1)))
        cr = atc(m)
        self.assertEqual([n for n, _ in listed(cr)], [
            "/conv1/Relu", "Relu_0", "/custom/MyOp", "Sigmoid_1", "/conv1/Relu", "twice",
            "twice", "x"])
        self.assertEqual(listed(cr)[2], ("/custom/MyOp", "com.example::1::MyOp"))
        per = [[[x["code"], x["message"]] for x in o.get("cause", []) if x["code"]]
               for o in cr["op"]]
        self.assertEqual(per, [
            [NAME], [], [TYPE], [], [NAME],
            [TYPE, NAME],   # the first of a name: its own type check, then the second's match
            [NAME, TYPE],   # a later one: the match first
            []])
        self.assertIn("unmapped", notes(cr, "/custom/MyOp")[0])
        self.assertEqual((cr["fail"], cr["pass"], cr["result"]), (5, 3, "failed"))

    def test_inputs_and_initializers_as_atc_adds_them(self):
        m = write(self.path("m.onnx"), [
            h.node("Add", "x", ["x", "w"], ["a"]),  # named like the graph input x
            h.node("Constant", "k", [], ["kc"], attrs=[attr_tensor("value", external("kv"))]),
            h.node("Add", "add2", ["a", "kc"], ["y"]),
        ], inputs=("x", "w", "q"),                   # w is an initializer too: no Input
           inits=[h.tensor("w", dims=(4,), raw=b"\0" * 16), external("big"),
                  h.tensor("a_first", dims=(1,), raw=b"\0" * 4),
                  h.tensor("w", dims=(4,), raw=b"\0" * 16)],  # a name given twice: once
           extra=h.f_len(15, sparse("sp")))        # sparse: ATC's parser never reads it
        cr = atc(m)
        self.assertEqual(listed(cr), [
            ("x", "ai.onnx::17::Add"), ("k", "FileConstant"), ("add2", "ai.onnx::17::Add"),
            ("x", "Input"), ("q", "Input"),
            ("a_first_Initializer_0", "Constant"), ("big_Initializer_1", "FileConstant"),
            ("w_Initializer_2", "Constant")])
        self.assertEqual(causes(cr)["x"], [NAME])  # both entries named x
        self.assertEqual([o["result"] for o in cr["op"]][:4],
                         ["failed", "success", "success", "failed"])

    def test_a_call_of_a_local_function(self):
        fn = h.function("Fn", "com.local", [h.node("Relu", "inner", ["a"], ["b"])])
        m = write(self.path("m.onnx"), [h.node("Fn", "call", ["x"], ["y"], domain="com.local")],
                  opsets=(("", 17), ("com.local", 1)), functions=[fn])
        cr = atc(m)
        self.assertEqual(listed(cr), [("call", "com.local::1::Fn"), ("x", "Input")])
        self.assertEqual(causes(cr)["call"], [TYPE])
        self.assertIn("does not expand local functions", notes(cr, "call")[0])

    def test_an_aten_fallback_node(self):
        m = write(self.path("m.onnx"), [
            h.node("ATen", "aten_relu", ["x"], ["y"], attrs=[h.attr_str("operator", "relu")],
                   domain="org.pytorch.aten")], opsets=(("", 17), ("org.pytorch.aten", 1)))
        cr = atc(m)
        self.assertEqual(listed(cr)[0], ("aten_relu", "org.pytorch.aten::1::ATen"))
        self.assertEqual(causes(cr)["aten_relu"], [TYPE])
        self.assertIn("ATen fallback", notes(cr, "aten_relu")[0])

    def test_identity_at_opset_19_is_structural_yet_unparsed(self):
        m = write(self.path("m.onnx"), [h.node("Identity", "id", ["x"], ["y"])],
                  opsets=(("", 19),))
        rep = json.loads(run("scan", "-q", "--format", "json", m).stdout)
        self.assertEqual(rep["models"][0]["operators"][0]["status"], "structural")
        cr = atc(m)
        self.assertEqual(causes(cr)["id"], [TYPE])
        self.assertIn("ATC parses Identity at opset 8-18 only", notes(cr, "id")[0])

    def test_where_atc_stops(self):
        # a main graph without inputs: ATC fails before its pre-check, which lists nothing
        m = write(self.path("none.onnx"), [h.node("Relu", "r", ["c"], ["y"])], inputs=())
        self.assertEqual(atc(m), {"fail": 0, "name": "", "pass": 0, "result": "success",
                                  "total": 0})
        # a domain the model does not import: the pre-check stops at that node
        m = write(self.path("domain.onnx"), [
            h.node("Relu", "r", ["x"], ["a"]), h.node("Foo", "f", ["a"], ["b"], domain="com.x"),
            h.node("Relu", "r2", ["b"], ["y"])])
        self.assertEqual(listed(atc(m)), [("r", "ai.onnx::17::Relu")])


class Several(unittest.TestCase):
    """More than one model, models that are not ONNX, files not read: a list."""

    def test_a_list_of_models_and_files(self):
        tmp = tempfile.mkdtemp(prefix="opmap-atc-several-")
        self.addCleanup(shutil.rmtree, tmp)
        d = os.path.join(tmp, "models")
        os.makedirs(d)
        relu = node_model("node/test_relu")
        shutil.copy(relu, os.path.join(d, "a.onnx"))
        with open(relu, "rb") as f:
            data = f.read()
        with open(os.path.join(d, "b.onnx"), "wb") as f:
            f.write(data[:len(data) // 2])  # cut in the middle: not read
        shutil.copy(os.path.join(ROOT, "tests", "fixtures", "export", "cond.pt2"), d)
        with open(os.path.join(d, "train.py"), "w") as f:
            f.write("import torch\nmodel.cuda()\n")
        doc = atc(d, rc=(3,))
        by_file = {os.path.basename(e["file"]): e for e in doc}
        self.assertEqual(by_file["a.onnx"]["check_result"], atc(relu))
        self.assertIn("torch-export: ATC's pre-check reads ONNX models", by_file["cond.pt2"]["skipped"])
        self.assertTrue(by_file["b.onnx"]["skipped"].startswith("not read: "))
        python = [e for e in doc if e.get("skipped", "").startswith("Python sources")]
        self.assertEqual(len(python), 1)
        self.assertEqual(doc[-1]["file"], os.path.join(d, "b.onnx"))  # files not read last


def main():
    global OPMAP
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    OPMAP = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)


if __name__ == "__main__":
    sys.exit(main())
