#!/usr/bin/python3
"""The CI gate end to end: every --fail-on value, --max-effort, waivers (match, no match,
expired), baseline round trip, diff, each exit code, SARIF 2.1.0 structure, JUnit XML
through a real XML parser, CSV and Markdown escaping, a directory scan of all of
libonnx-testdata, and --jobs.

Usage: test_gate.py OPMAP_BINARY   (run by ctest)
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

import onnx
from onnx import TensorProto, helper

from report_schema import validate

OPMAP = None
HERE = os.path.dirname(os.path.abspath(__file__))
GATE_TABLE = os.path.join(HERE, "..", "fixtures", "tables", "gate.yaml")
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
TODAY = "2026-06-01"


def run(*args, env=None):
    e = dict(os.environ, OPMAP_TODAY=TODAY)
    e.update(env or {})
    return subprocess.run([OPMAP] + list(args), capture_output=True, text=True, env=e,
                          timeout=300)


def chain_model(path, ops, dynamic=False, name_prefix="n"):
    """x -> ops[0] -> ops[1] ... -> y, float32 [2, 4] (or [batch, 4])."""
    nodes, prev = [], "x"
    for i, op in enumerate(ops):
        out = "y" if i == len(ops) - 1 else "t%d" % i
        nodes.append(helper.make_node(op, [prev], [out], name="%s%d_%s" % (name_prefix, i, op)))
        prev = out
    dims = ["batch", 4] if dynamic else [2, 4]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, dims)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


class Gate(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="opmap-gate-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def model(self, name, ops, **kw):
        return chain_model(self.path(name), ops, **kw)

    def scan(self, *args):
        return run("scan", "--table", GATE_TABLE, *args)

    # --- policy ---

    def test_every_fail_on_value(self):
        cases = [("unmapped", ["Relu", "Mystery"]), ("rewrite", ["Tanh"]), ("partial", ["Sigmoid"]),
                 ("precision", ["Abs"]), ("performance", ["Exp"]), ("rng", ["Log"]),
                 ("inf-nan", ["Sqrt"]), ("nondeterministic", ["Neg"]), ("deprecated", ["Floor"]),
                 ("dynamic-shape", ["Ceil"])]
        clean = self.model("clean.onnx", ["Relu"])
        for kind, ops in cases:
            m = self.model(kind + ".onnx", ops)
            with self.subTest(kind=kind):
                proc = self.scan("--fail-on", kind, m)
                self.assertEqual(proc.returncode, 1, proc.stderr)
                self.assertIn("opmap: gate: %s:" % kind, proc.stderr)
                self.assertIn("the gate fails: 1 finding", proc.stderr)
                self.assertEqual(self.scan("--fail-on", kind, clean).returncode, 0)
                others = [k for k, _ in cases if k != kind]
                # the finding is reported but does not fail a policy that does not name it
                expected = 1 if kind == "unmapped" else 0  # an unmapped op is unmapped whatever
                self.assertEqual(self.scan("--fail-on", ",".join(others), m).returncode,
                                 0 if kind != "unmapped" else 0 if "unmapped" not in others else expected)
        # dynamic dimensions of a graph input are a dynamic-shape finding too
        dyn = self.model("dyn.onnx", ["Relu"], dynamic=True)
        self.assertEqual(self.scan("--fail-on", "dynamic-shape", dyn).returncode, 1)
        # float64 values are a dtype finding
        m = self.path("f64.onnx")
        graph = helper.make_graph([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.DOUBLE)],
                                  "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                                  [helper.make_tensor_value_info("y", TensorProto.DOUBLE, [2])])
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), m)
        proc = self.scan("--fail-on", "dtype", m)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("float64", proc.stderr)
        # all, and the default (unmapped)
        self.assertEqual(self.scan("--fail-on", "all", self.model("abs.onnx", ["Abs"])).returncode, 1)
        self.assertEqual(self.scan(self.model("tanh.onnx", ["Tanh"])).returncode, 0)
        self.assertEqual(self.scan("--fail-on", "bogus", clean).returncode, 2)
        # "none" is not a kind: it would read as "nothing fails" but mean the default
        proc = self.scan("--fail-on", "none", clean)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("unknown finding kind 'none'", proc.stderr)

    def test_max_effort(self):
        m = self.model("m.onnx", ["Relu", "Tanh", "Sigmoid"])  # 0.1 + 2.5 + 0.8 = 3.4
        proc = self.scan("--max-effort", "3", m)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("3.400 person-days, is over the limit of 3.000", proc.stderr)
        self.assertEqual(self.scan("--max-effort", "3.4", m).returncode, 0)
        self.assertEqual(self.scan("--max-effort", "nope", m).returncode, 2)
        # weights change the estimate the limit sees
        self.assertEqual(self.scan("--max-effort", "3", "--weight", "rewrite=1:2:3", m).returncode, 0)
        # a budget gate alone: `effort` names no operator kind, so the unmapped op passes
        um = self.model("um.onnx", ["Relu", "Mystery"])  # 0.1 + 2.5 (unmapped as rewrite)
        self.assertEqual(self.scan(um).returncode, 1)
        self.assertEqual(self.scan("--fail-on", "effort", "--max-effort", "3", um).returncode, 0)
        proc = self.scan("--fail-on", "effort", "--max-effort", "2", um)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("opmap: gate: effort:", proc.stderr)
        self.assertNotIn("Mystery", proc.stderr)

    def test_baseline_does_not_waive_a_budget(self):
        m = self.model("m.onnx", ["Relu", "Tanh", "Sigmoid"])  # 3.4 person-days
        w = self.path("w.yaml")
        proc = run("baseline", "--table", GATE_TABLE, "--max-effort", "3", "-o", w, m)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("3.400 person-days, is over the limit of 3.000", proc.stderr)
        self.assertIn("raise --max-effort instead", proc.stderr)
        with open(w) as f:
            self.assertNotIn("kind: effort", f.read())
        # and the gate still fails on it, as baseline said
        self.assertEqual(self.scan("--max-effort", "3", "--waivers", w, m).returncode, 1)

    def test_options_of_the_other_command_are_refused(self):
        m = self.model("m.onnx", ["Relu"])
        for args, other in [(("scan", "--owner", "me"), "baseline"),
                            (("scan", "--expires", "2030-01-01"), "baseline"),
                            (("scan", "--reason", "x"), "baseline"),
                            (("baseline", "--format", "json"), "scan"),
                            (("baseline", "--waivers", "w.yaml"), "scan"),
                            (("baseline", "--day-rate", "100"), "scan"),
                            (("baseline", "--currency", "EUR"), "scan")]:
            with self.subTest(args=args):
                proc = run(*args, "--table", GATE_TABLE, m)
                self.assertEqual(proc.returncode, 2)
                self.assertIn("%s is an option of `opmap %s`" % (args[1], other),
                              proc.stderr.splitlines()[0])

    # --- waivers ---

    def waivers(self, body):
        return self.write("w.yaml", "schema: 1\nwaivers:\n" + body)

    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def test_waiver_match_no_match_and_expired(self):
        m = self.model("m.onnx", ["Relu", "Tanh"])
        base = ["--fail-on", "rewrite", m]
        self.assertEqual(self.scan(*base).returncode, 1)
        w = self.waivers('  - {op: "ai.onnx::Tanh", reason: "CANN 9 adds it", owner: ana, '
                         'expires: "2026-12-31"}\n')
        proc = self.scan("--waivers", w, "--format", "json", *base)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        finding = [f for f in validate(json.loads(proc.stdout))["gate"]["findings"]
                   if f["op_type"] == "Tanh"][0]
        self.assertFalse(finding["fails"])
        self.assertEqual(finding["waiver"], {"reason": "CANN 9 adds it", "owner": "ana",
                                             "expires": "2026-12-31", "expired": False})
        # patterns: a model or node pattern that does not match waives nothing
        for extra in ('model: "*/other.onnx"', 'node: "main/nothing*"', "kind: partial"):
            w = self.waivers('  - {op: Tanh, %s, reason: r, owner: o, expires: "2026-12-31"}\n' % extra)
            self.assertEqual(self.scan("--waivers", w, *base).returncode, 1, extra)
        for extra in ('model: "*/m.onnx"', 'node: "main/n1_*"', "kind: rewrite"):
            w = self.waivers('  - {op: Tanh, %s, reason: r, owner: o, expires: "2026-12-31"}\n' % extra)
            self.assertEqual(self.scan("--waivers", w, *base).returncode, 0, extra)
        # an expired waiver fails the gate by itself, even for a kind not in --fail-on
        w = self.waivers('  - {op: Tanh, reason: r, owner: o, expires: "2026-01-31"}\n')
        proc = self.scan("--waivers", w, m)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("its waiver has expired", proc.stderr)
        proc = run("scan", "--table", GATE_TABLE, "--waivers", w, m, env={"OPMAP_TODAY": "2026-01-15"})
        self.assertEqual(proc.returncode, 0)

    def test_bad_waiver_files(self):
        m = self.model("m.onnx", ["Relu"])
        for body, where, needle in [
                ('  - {op: Tanh, reason: r, owner: o}\n', ":3:5:", "missing required key 'expires'"),
                ('  - {op: Tanh, reason: r, owner: o, expires: 2026-13-01}\n', ":3:46:", "YYYY-MM-DD"),
                ('  - {op: Tanh, reason: r, owner: o, expires: "2026-01-01", colour: x}\n', ":3:60:",
                 "unknown key 'colour'"),
                ('  - {op: Tanh, kind: weird, reason: r, owner: o, expires: "2026-01-01"}\n', ":3:22:",
                 "unknown finding kind")]:
            w = self.waivers(body)
            proc = self.scan("--waivers", w, m)
            self.assertEqual(proc.returncode, 3, body)
            self.assertIn(w + where, proc.stderr)
            self.assertIn(needle, proc.stderr)

    def test_baseline_round_trip(self):
        d = self.path("models")
        os.makedirs(d)
        self.model("models/a.onnx", ["Relu", "Tanh", "Mystery"])
        self.model("models/b.onnx", ["Sigmoid", "Abs"], dynamic=True)
        policy = ["--fail-on", "unmapped,rewrite,partial,precision,dynamic-shape"]
        self.assertEqual(self.scan(*policy, d).returncode, 1)
        w = self.path("waivers.yaml")
        proc = run("baseline", "--table", GATE_TABLE, *policy, "--owner", "ci-team", "-o", w, d)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(w) as f:
            text = f.read()
        self.assertIn('owner: "ci-team"', text)
        self.assertIn('expires: "2026-08-30"', text)  # 90 days after OPMAP_TODAY
        self.assertEqual(text.count("  - op: "), 5)
        proc = self.scan(*policy, "--waivers", w, d)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        # a new finding still fails: the baseline accepts only what existed
        self.model("models/c.onnx", ["Tanh", "Floor"])
        self.model("models/a.onnx", ["Relu", "Tanh", "Mystery", "Other"])
        proc = self.scan(*policy, "--waivers", w, d)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("Other", proc.stderr)
        self.assertIn("c.onnx", proc.stderr)

    # --- diff ---

    def report(self, name, ops, *extra):
        m = self.model(name + ".onnx", ops)
        out = self.path(name + ".json")
        self.assertIn(self.scan("--format", "json", "-o", out, *extra, m).returncode, (0, 1))
        return out

    def test_diff(self):
        old = self.report("old", ["Relu", "Sigmoid", "Abs"])
        same = self.report("same", ["Relu", "Sigmoid", "Abs"])
        proc = run("diff", old, same)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("0 added, 0 removed, 0 changed; 0 new findings", proc.stdout)
        new = self.report("new", ["Relu", "Sigmoid", "Mystery", "Tanh"])
        proc = run("diff", old, new)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("+ ai.onnx::Mystery  unmapped (1 instance)  <- the policy fails on this",
                      proc.stdout)
        self.assertIn("- ai.onnx::Abs  full", proc.stdout)
        self.assertIn("2 added, 1 removed, 0 changed; 1 new finding", proc.stdout)
        # rewrite is not in the default policy; it is with --fail-on
        self.assertEqual(run("diff", old, self.report("rw", ["Relu", "Sigmoid", "Abs", "Tanh"])).returncode, 0)
        self.assertEqual(run("diff", "--fail-on", "rewrite", old, self.path("rw.json")).returncode, 1)
        # removing things is never a failure
        self.assertEqual(run("diff", new, old).returncode, 0)
        # a status that got worse
        worse = self.path("worse.yaml")
        with open(GATE_TABLE) as f:
            self.write("worse.yaml", f.read().replace("op: Sigmoid, since: 13, status: partial",
                                                       "op: Sigmoid, since: 13, status: rewrite"))
        m2 = self.model("old.onnx", ["Relu", "Sigmoid", "Abs"])
        out = self.path("worse.json")
        run("scan", "--table", worse, "--format", "json", "-o", out, m2)
        proc = run("diff", "--fail-on", "rewrite", "--format", "json", old, out)
        self.assertEqual(proc.returncode, 1)
        d = json.loads(proc.stdout)
        self.assertEqual(d["schema"], "opmap-diff/1")
        self.assertEqual(d["changed"][0]["old_status"], "partial")
        self.assertEqual(d["changed"][0]["new_status"], "rewrite")
        self.assertTrue(d["changed"][0]["fails"])
        # a model the new scan could not read is not "removed": it fails the diff
        torn = self.path("torn.onnx")
        with open(self.path("old.onnx"), "rb") as f, open(torn, "wb") as g:
            g.write(f.read()[:30])
        torn_report = self.path("torn.json")
        self.assertEqual(run("scan", "--table", GATE_TABLE, "--format", "json", "-o",
                             torn_report, torn).returncode, 3)
        proc = run("diff", old, torn_report)
        self.assertEqual(proc.returncode, 1, proc.stdout)
        self.assertIn("unreadable " + torn + ": ", proc.stdout)
        proc = run("diff", "--format", "json", old, torn_report)
        self.assertEqual(json.loads(proc.stdout)["unreadable"][0]["file"], torn)
        # bad input
        self.assertEqual(run("diff", old).returncode, 2)
        bad = self.write("bad.json", "{\"not\": 1}")
        proc = run("diff", old, bad)
        self.assertEqual(proc.returncode, 3)
        self.assertIn("not an opmap JSON report", proc.stderr)

    # --- exit codes ---

    def test_each_exit_code(self):
        clean = self.model("clean.onnx", ["Relu"])
        self.assertEqual(self.scan(clean).returncode, 0)
        self.assertEqual(self.scan(self.model("u.onnx", ["Mystery"])).returncode, 1)
        self.assertEqual(run("scan", "--nope", clean).returncode, 2)
        self.assertEqual(self.scan(self.path("missing.onnx")).returncode, 3)
        self.assertEqual(self.scan("-o", self.path("no/such/dir/r.txt"), clean).returncode, 4)
        self.assertEqual(self.scan("--format", "json,csv", clean).returncode, 2)  # needs -o DIR

    # --- files not read: every report says so, the gate is incomplete (issue 16) ---

    def checkpoint(self, name):
        """A torch.save archive (data.pkl, no code/): weights, not a model opmap reads."""
        import pickle
        import zipfile
        path = self.path(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("archive/data.pkl", pickle.dumps({"w": 1}, protocol=2))
            z.writestr("archive/version", "3\n")
        return path

    def test_one_unreadable_file_of_three_is_in_every_report(self):
        d = self.path("models")
        os.makedirs(d)
        chain_model(os.path.join(d, "a.onnx"), ["Relu"])
        chain_model(os.path.join(d, "c.onnx"), ["Relu"])
        with open(os.path.join(d, "c.onnx"), "rb") as f:
            data = f.read()
        with open(os.path.join(d, "b.onnx"), "wb") as f:
            f.write(data[:len(data) // 2])  # cut in the middle
        bad = os.path.join(d, "b.onnx")
        out = self.path("r")
        proc = self.scan("--format", "json,sarif,junit,text,markdown,html,csv,atc-precheck", "-o",
                         out, d)
        self.assertEqual(proc.returncode, 3, proc.stderr)
        with open(os.path.join(out, "opmap-report.json")) as f:
            rep = validate(json.load(f))
        self.assertEqual(len(rep["models"]), 2)
        self.assertEqual([e["file"] for e in rep["errors"]], [bad])
        self.assertEqual(rep["errors"][0]["status"], "invalid format")
        self.assertIn("offset", rep["errors"][0])
        self.assertFalse(rep["gate"]["passed"])
        self.assertTrue(rep["gate"]["incomplete"])
        unreadable = [f for f in rep["gate"]["findings"] if f["kind"] == "unreadable"]
        self.assertEqual([(f["model"], f["fails"]) for f in unreadable], [(bad, True)])
        with open(os.path.join(out, "opmap-report.sarif")) as f:
            inv = json.load(f)["runs"][0]["invocations"]
        self.assertFalse(inv[0]["executionSuccessful"])
        note = inv[0]["toolExecutionNotifications"][0]
        self.assertEqual(note["level"], "error")
        self.assertEqual(note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                         "file://" + bad)
        # where in the file the reader gave up, as the JSON report's error says
        self.assertEqual(note["locations"][0]["physicalLocation"]["region"]["byteOffset"],
                         rep["errors"][0]["offset"])
        root = ET.parse(os.path.join(out, "opmap-report.xml")).getroot()
        self.assertEqual(root.get("errors"), "1")
        errors = [c for c in root.iter("testcase") if c.find("error") is not None]
        self.assertEqual([c.get("name") for c in errors], [bad])
        for ext, marker in (("txt", "incomplete: 1 file could not be read"),
                            ("md", "FAIL (incomplete)"), ("html", "FAIL (incomplete)")):
            with open(os.path.join(out, "opmap-report." + ext)) as f:
                text = f.read()
            self.assertIn(marker, text, ext)
            self.assertIn("b.onnx", text, ext)
        with open(os.path.join(out, "opmap-report.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([r["status"] for r in rows if r["model"] == bad], ["unreadable"])
        with open(os.path.join(out, "opmap-report.atc-precheck.json")) as f:
            atc = json.load(f)
        self.assertEqual([e["file"] for e in atc if "skipped" in e], [bad])
        self.assertTrue(atc[-1]["skipped"].startswith("not read: "))
        # the gate passes on the two models alone: only the unreadable file fails it
        self.assertEqual(self.scan(os.path.join(d, "a.onnx"), os.path.join(d, "c.onnx"))
                         .returncode, 0)

    def test_a_directory_of_checkpoints_is_no_model_found(self):
        self.checkpoint("ck/a.pt")
        self.checkpoint("ck/sub/b.pt")
        proc = self.scan("--format", "json", "--fail-on", "all", self.path("ck"))
        self.assertEqual(proc.returncode, 3)
        self.assertIn("no model found: 2 files skipped", proc.stderr)
        rep = validate(json.loads(proc.stdout))
        self.assertEqual([s["file"] for s in rep["skipped"]],
                         [self.path("ck/a.pt"), self.path("ck/sub/b.pt")])
        self.assertIn("torch.save checkpoint", rep["skipped"][0]["reason"])
        self.assertFalse(rep["gate"]["passed"])
        self.assertTrue(rep["gate"]["incomplete"])
        self.assertEqual(run("baseline", self.path("ck")).returncode, 3)

    def test_fail_on_not_inlined(self):
        # a graph printed from module.graph: its calls are findings of their own kind, judged
        # only when asked for; the inlined print of the same module has none
        mem = os.path.join(HERE, "..", "fixtures", "torchscript", "memory")
        forward = os.path.join(mem, "resnet18.traced.forward.graph.txt")
        inlined = os.path.join(mem, "resnet18.traced.graph.txt")
        proc = run("scan", "--fail-on", "not-inlined", forward)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertIn("opmap: gate: not-inlined: graph not inlined: 10 calls", proc.stderr)
        self.assertEqual(run("scan", forward).returncode, 0)  # the default judges what it prints
        self.assertEqual(run("scan", "--fail-on", "not-inlined", inlined).returncode, 0)
        rep = validate(json.loads(run("scan", "--format", "json", forward).stdout))
        kinds = [f["kind"] for f in rep["gate"]["findings"]]
        self.assertEqual(kinds.count("not-inlined"), 1)

    def test_fail_on_skipped(self):
        os.makedirs(self.path("models"))
        clean = self.model("models/clean.onnx", ["Relu"])
        self.checkpoint("models/w.pt")
        d = self.path("models")
        proc = self.scan("--format", "json", d)
        self.assertEqual(proc.returncode, 0, proc.stderr)  # skipped files alone do not fail
        rep = validate(json.loads(proc.stdout))
        self.assertEqual([s["file"] for s in rep["skipped"]], [self.path("models/w.pt")])
        self.assertTrue(rep["gate"]["passed"])
        self.assertFalse(rep["gate"]["incomplete"])
        proc = self.scan("--fail-on", "skipped", d)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("gate: skipped:", proc.stderr)
        for fail_on, tag in (("skipped", "failure"), ("unmapped", "skipped")):
            root = ET.fromstring(self.scan("--format", "junit", "--fail-on", fail_on, d).stdout)
            case = [c for c in root.iter("testcase") if c.get("name") == self.path("models/w.pt")]
            self.assertIsNotNone(case[0].find(tag), fail_on)
            self.assertEqual(root.get("failures"), "1" if tag == "failure" else "0")
        self.assertEqual(self.scan("--fail-on", "skipped", clean).returncode, 0)
        # skipped files can be accepted like any finding: the baseline round trip
        base = self.path("base.yaml")
        self.assertEqual(run("baseline", "--table", GATE_TABLE, "--fail-on", "skipped", "-o",
                             base, d).returncode, 0)
        self.assertEqual(self.scan("--fail-on", "skipped", "--waivers", base, d).returncode, 0)
        # an unreadable file cannot be waived
        w = self.waivers('  - {op: "*", kind: unreadable, reason: r, owner: o, '
                         'expires: "2026-12-31"}\n')
        proc = self.scan("--waivers", w, clean)
        self.assertEqual(proc.returncode, 3)
        self.assertIn("cannot accept kind 'unreadable'", proc.stderr)

    # --- report formats ---

    def test_sarif_structure(self):
        m = self.model("m.onnx", ["Relu", "Tanh", "Mystery", "Abs"])
        w = self.waivers('  - {op: Mystery, reason: "vendor op", owner: o, expires: "2026-12-31"}\n')
        proc = self.scan("--format", "sarif", "--fail-on", "unmapped,rewrite", "--waivers", w, m)
        self.assertEqual(proc.returncode, 1)
        s = json.loads(proc.stdout)
        self.assertEqual(s["version"], "2.1.0")
        self.assertIn("sarif-2.1.0", s["$schema"])
        self.assertEqual(len(s["runs"]), 1)
        driver = s["runs"][0]["tool"]["driver"]
        self.assertEqual(driver["name"], "opmap")
        ids = [r["id"] for r in driver["rules"]]
        self.assertEqual(len(ids), len(set(ids)))
        for r in driver["rules"]:
            self.assertTrue(r["shortDescription"]["text"])
        results = s["runs"][0]["results"]
        self.assertEqual(len(results), 3)  # Tanh rewrite, Mystery unmapped, Abs precision
        for r in results:
            self.assertIn(r["ruleId"], ids)
            self.assertEqual(ids[r["ruleIndex"]], r["ruleId"])
            self.assertIn(r["level"], ("error", "warning", "note"))
            self.assertTrue(r["message"]["text"])
            loc = r["locations"][0]
            self.assertEqual(loc["physicalLocation"]["artifactLocation"]["uri"], "file://" + m)
            self.assertTrue(loc["logicalLocations"][0]["fullyQualifiedName"].startswith("main/"))
        by = {r["properties"]["operator"]: r for r in results}
        self.assertEqual(by["ai.onnx::Tanh"]["level"], "error")
        self.assertEqual(by["ai.onnx::Abs"]["level"], "warning")
        self.assertEqual(by["ai.onnx::Mystery"]["level"], "note")
        self.assertEqual(by["ai.onnx::Mystery"]["suppressions"][0]["kind"], "external")

    def test_junit_parses_with_a_real_xml_parser(self):
        m = self.model("m.onnx", ["Relu", "Tanh", "Mystery", "Abs"])
        proc = self.scan("--format", "junit", "--fail-on", "unmapped,rewrite", m)
        self.assertEqual(proc.returncode, 1)
        root = ET.fromstring(proc.stdout)
        self.assertEqual(root.tag, "testsuites")
        suites = root.findall("testsuite")
        self.assertEqual(len(suites), 1)
        cases = suites[0].findall("testcase")
        self.assertEqual(sorted(c.get("name") for c in cases),
                         ["ai.onnx::Abs", "ai.onnx::Mystery", "ai.onnx::Relu", "ai.onnx::Tanh"])
        failing = {c.get("name"): c.find("failure").get("type") for c in cases
                   if c.find("failure") is not None}
        self.assertEqual(failing, {"ai.onnx::Mystery": "unmapped", "ai.onnx::Tanh": "rewrite"})
        self.assertEqual(root.get("tests"), "4")
        self.assertEqual(root.get("failures"), "2")
        self.assertEqual(suites[0].get("failures"), "2")

    def test_csv_and_markdown_escape_model_strings(self):
        m = chain_model(self.path("e.onnx"), ["Relu", "Tanh"], name_prefix="=cmd|' /C calc'!A")
        out = self.path("out")
        proc = self.scan("--format", "csv,markdown", "-o", out, m)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(out, "opmap-report.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(rows[0]["verdict"], "blocked")  # the headline row: nothing else
        self.assertEqual(rows[0]["model"], "")
        rows = rows[1:]
        self.assertEqual(len(rows), 2)
        self.assertEqual({r["op_type"] for r in rows}, {"Relu", "Tanh"})
        for r in rows:
            self.assertTrue(r["first_node"].startswith("main/"))  # "main/=cmd..." is not a formula
            for cell in r.values():
                self.assertFalse(cell[:1] in ("=", "+", "-", "@"), cell)
        with open(os.path.join(out, "opmap-report.md")) as f:
            md = f.read()
        self.assertIn("| rewrite | `ai.onnx::Tanh` |", md)
        self.assertIn("**CI gate: PASS**", md)

    def test_day_rate_adds_costs(self):
        m = self.model("m.onnx", ["Relu", "Tanh"])  # 2.6 person-days expected
        proc = self.scan("--format", "json", "--day-rate", "800", "--currency", "EUR", m)
        rep = validate(json.loads(proc.stdout))
        self.assertEqual(rep["cost"], {"day_rate": 800, "currency": "EUR", "min": 1680,
                                       "expected": 2080, "max": 2480})
        # the default text report quotes the same cost beside the effort
        proc = self.scan("--day-rate", "800", "--currency", "EUR", m)
        self.assertIn("effort: 2.6 person-days (range 2.1 to 3.1), cost 2080 EUR (1680 to 2480)",
                      proc.stdout)
        self.assertNotIn("cost", self.scan(m).stdout)

    # --- external data: checked with stat only ---

    def external_model(self, location="w.bin"):
        import numpy as np
        w = helper.make_tensor("w", TensorProto.FLOAT, [64, 64],
                               np.arange(4096, dtype=np.float32).tobytes(), raw=True)
        graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])],
                                  [w])
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        d = self.path("ext")
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "m.onnx")
        onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                        location=location, size_threshold=0)
        return path, os.path.join(d, location)

    def test_external_data_side_files(self):
        path, side = self.external_model()
        proc = run("scan", "--format", "json", "--fail-on", "external-data", path)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        ext = validate(json.loads(proc.stdout))["models"][0]["external_data"]
        self.assertEqual(ext, [{"tensor": "w", "location": "w.bin", "offset": 0, "length": 16384,
                                "file": "ok"}])
        with open(side, "r+b") as f:   # short: the tensor no longer fits
            f.truncate(1000)
        proc = run("scan", "--format", "json", "--fail-on", "external-data", path)
        self.assertEqual(proc.returncode, 1)
        rep = validate(json.loads(proc.stdout))
        self.assertEqual(rep["models"][0]["external_data"][0]["file"], "short")
        self.assertIn("external data 'w.bin' of tensor 'w' is shorter", proc.stderr)
        os.remove(side)                # missing
        proc = run("scan", "--format", "json", path)
        self.assertEqual(proc.returncode, 0)  # reported, but not in the default policy
        rep = validate(json.loads(proc.stdout))
        self.assertEqual(rep["models"][0]["external_data"][0]["file"], "missing")
        self.assertTrue(any(r["kind"] == "external_data" and "is missing" in r["message"]
                            for r in rep["models"][0]["risks"]))

    def test_external_data_outside_the_model_directory_is_not_followed(self):
        path, _ = self.external_model()
        m = onnx.load(path, load_external_data=False)
        for entry in m.graph.initializer[0].external_data:
            if entry.key == "location":
                entry.value = "../../../etc/passwd"
        onnx.save(m, path)
        proc = run("scan", "--format", "json", path)
        rep = validate(json.loads(proc.stdout))
        self.assertEqual(rep["models"][0]["external_data"][0]["file"], "outside")

    # --- many models ---

    def test_directory_scan_of_all_testdata(self):
        files = sum(1 for _, _, fs in os.walk(TESTDATA) for f in fs if f.endswith(".onnx"))
        proc = run("scan", "--jobs", "2", TESTDATA)
        self.assertEqual(proc.returncode, 0, proc.stderr[-500:])  # every ONNX op has a row
        self.assertEqual(proc.stdout.count("operator instances"), 1)  # one summary
        self.assertIn("%d models," % files, proc.stdout)
        out = self.path("all.json")
        run("scan", "--format", "json", "-o", out, TESTDATA)
        with open(out) as f:
            rep = validate(json.load(f))
        self.assertEqual(rep["totals"]["models"], files)
        self.assertEqual(len(rep["models"]), files)

    def test_jobs_give_the_same_report(self):
        out1, out2 = self.path("j1.json"), self.path("j2.json")
        run("scan", "--format", "json", "-o", out1, os.path.join(TESTDATA, "pytorch-converted"))
        run("scan", "--format", "json", "--jobs", "4", "-o", out2,
            os.path.join(TESTDATA, "pytorch-converted"))
        with open(out1) as a, open(out2) as b:
            self.assertEqual(a.read(), b.read())


if __name__ == "__main__":
    OPMAP = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=1)
