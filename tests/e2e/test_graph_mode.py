#!/usr/bin/python3
"""Graph mode (torch.compile with torchair, issue 21): `opmap table show` gives an ATen
operator's graph-mode answer beside its eager one, for an operator torchair converts and one
it only stubs; `--mode graph` changes the status of exactly the stubbed operator of a
TorchScript fixture (and so the verdict and the gate), a torch.export program is answered
by each node's own overload, ONNX models are unchanged, and every report says its mode.

Usage: test_graph_mode.py OPMAP_BINARY   (run by ctest)
"""
import csv
import io
import json
import os
import subprocess
import sys
import unittest

OPMAP = None
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
FIX = os.path.join(ROOT, "tests", "fixtures")
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
ROLL = os.path.join(FIX, "torchscript", "roll.traced.pt")       # linear, relu, roll, add
RESNET_PT2 = os.path.join(FIX, "export", "resnet18.pt2")
TORCHAIR = "fced8842d149"   # the pinned torchair commit (tools/table/sources.yaml)


def run(*args, ok=(0, 1)):
    proc = subprocess.run([OPMAP] + list(args), capture_output=True, text=True, timeout=600)
    if proc.returncode not in ok:
        raise AssertionError("opmap %s: exit %d\n%s" % (" ".join(args), proc.returncode,
                                                        proc.stderr))
    return proc


def scan_json(*args):
    return json.loads(run("scan", "-q", "--format", "json", *args).stdout)


def statuses(rep, model=0):
    return {"%s::%s" % (o["domain"], o["op_type"]): o["status"]
            for o in rep["models"][model]["operators"]}


class TableShow(unittest.TestCase):
    def show(self, op):
        return run("table", "show", op, ok=(0,)).stdout

    def test_converted_operator(self):
        out = self.show("aten::native_layer_norm")
        self.assertIn("  status:      full", out)          # the eager answer
        self.assertIn("  graph mode:  full (torchair: implemented)  [kernel: torchair-converters]",
                      out)
        self.assertIn("torchair converts native_layer_norm.default.", out)
        self.assertIn("default implemented (counted), out stub", out)
        self.assertIn("ge_converter/aten/native_layer_norm.py:25 (Ascend/torchair@" + TORCHAIR,
                      out)

    def test_stubbed_operator(self):
        out = self.show("aten::roll")
        self.assertIn("  status:      full", out)
        self.assertIn("  graph mode:  rewrite (torchair: stub)  [kernel: torchair-converters]", out)
        self.assertIn("only raises (roll.default, roll.out)", out)
        self.assertIn("first converter python/torchair/_ge_concrete_graph/ge_converter/aten/"
                      "roll.py:4 (Ascend/torchair@" + TORCHAIR, out)
        # the eager answer's own sources do not change: torchair is the graph answer's
        self.assertNotIn("source:      torchair-converters", out)

    def test_answered_by_another_operator(self):
        out = self.show("aten::relu_")  # functionalized into relu
        self.assertIn("graph mode:  full (torchair: implemented, as aten::relu)  [derived: ", out)
        out = self.show("aten::linear")  # decomposed before torchair sees it
        self.assertIn("(torchair: decomposed)", out)
        self.assertIn("graph mode:  not answered (structural: no kernel runs)",
                      self.show("aten::append"))
        self.assertNotIn("graph mode", self.show("ai.onnx::Relu"))


class Scan(unittest.TestCase):
    def test_only_the_stubbed_operator_changes(self):
        eager, graph = scan_json(ROLL), scan_json("--mode", "graph", ROLL)
        self.assertEqual(eager["mode"], "eager")
        self.assertEqual(graph["mode"], "graph")
        before, after = statuses(eager), statuses(graph)
        self.assertEqual(before["aten::roll"], "full")
        self.assertEqual(after["aten::roll"], "rewrite")
        changed = sorted(k for k in before if before[k] != after[k])
        self.assertEqual(changed, ["aten::roll"])
        # eager: every operator has a kernel and none asks for work (linear's
        # non-determinism is informational)
        self.assertEqual(eager["headline"]["verdict"], "ready")
        self.assertEqual(graph["headline"]["verdict"], "blocked")
        roll = [o for o in graph["models"][0]["operators"] if o["op_type"] == "roll"][0]
        why = [r for r in roll["reasons"] if r["value"] == "graph: torchair stub"][0]
        self.assertIn("only raises for aten::roll (Ascend/torchair %s)" % TORCHAIR, why["message"])
        self.assertEqual(why["status"], "rewrite")
        self.assertEqual((why["grade"], why["sources"]), ("kernel", ["torchair-converters"]))
        # where it runs is the eager answer: still on the NPU, outside the compiled graph
        self.assertEqual(graph["models"][0]["segments"], eager["models"][0]["segments"])
        self.assertGreater(graph["models"][0]["estimate"]["expected"],
                           eager["models"][0]["estimate"]["expected"])

    def test_scalar_arithmetic_unchanged(self):
        """A scripted model's `int = aten::sub(...)` (TorchScript's arithmetic on ints) holds
        no tensor for torchair: graph mode leaves it alone, in an archive and in its printed
        graph."""
        for name in ("resnet18.scripted.pt", "resnet18.scripted.graph.txt"):
            with self.subTest(name):
                path = os.path.join(FIX, "torchscript", name)
                self.assertEqual(statuses(scan_json(path)), statuses(scan_json("--mode", "graph",
                                                                               path)))

    def test_gate(self):
        self.assertEqual(run("scan", "-q", "--fail-on", "rewrite", ROLL).returncode, 0)
        self.assertEqual(run("scan", "-q", "--fail-on", "rewrite", "--mode", "graph",
                             ROLL).returncode, 1)

    def test_eager_is_the_default(self):
        self.assertEqual(scan_json(ROLL), scan_json("--mode", "eager", ROLL))

    def test_export_by_overload(self):
        eager, graph = statuses(scan_json(RESNET_PT2)), statuses(scan_json("--mode", "graph",
                                                                           RESNET_PT2))
        self.assertEqual(eager["aten::native_batch_norm"], "full")
        self.assertEqual(graph["aten::native_batch_norm"], "rewrite")  # .default only raises
        self.assertEqual(graph["aten::convolution"], "full")
        self.assertEqual(graph["aten::relu_"], "full")   # relu_.default as relu.default

    def test_onnx_unchanged(self):
        model = os.path.join(TESTDATA, "pytorch-converted", "test_Conv2d", "model.onnx")
        if not os.path.exists(model):
            self.skipTest("libonnx-testdata not installed")
        eager, graph = scan_json(model), scan_json("--mode", "graph", model)
        self.assertEqual(graph.pop("mode"), "graph")
        eager.pop("mode")
        self.assertEqual(eager, graph)

    def test_every_format_says_graph_mode(self):
        text = run("scan", "--mode", "graph", ROLL).stdout
        self.assertIn("  mode: graph (torch.compile with torchair", text)
        self.assertNotIn("mode:", run("scan", ROLL).stdout)
        rows = list(csv.reader(io.StringIO(run("scan", "--mode", "graph", "--format", "csv",
                                               ROLL).stdout)))
        self.assertEqual(rows[0][-1], "mode")
        self.assertEqual({r[-1] for r in rows[2:]}, {"graph"})
        self.assertTrue(all(len(r) == len(rows[0]) for r in rows))
        for fmt, marker in (("markdown", "mode graph (torch.compile"),
                            ("html", "mode graph (torch.compile"),
                            ("junit", '<property name="mode" value="graph"/>'),
                            ("sarif", '"mode": "graph"')):
            with self.subTest(fmt):
                self.assertIn(marker, run("scan", "--mode", "graph", "--format", fmt,
                                          ROLL).stdout)

    def test_bad_mode(self):
        proc = run("scan", "--mode", "compiled", ROLL, ok=(2,))
        self.assertIn("--mode: 'compiled' is not eager or graph", proc.stderr)


if __name__ == "__main__":
    OPMAP = os.path.abspath(sys.argv.pop(1))
    unittest.main()
