#!/usr/bin/python3
"""Python sources end to end (issue 20, docs/source-scan.md).

Real training code nobody here wrote (tests/data/python-projects: each project's files, its
licence, and expected.tsv, the CUDA-isms a migration engineer finds by reading, written
before the scanner ran): every expected row is found on its line by a rule of its kind;
nothing is found on a decoy line (a comment, a docstring, a message); every other finding is
one reviewed in reviewed.tsv (or a rule saying the code runs unchanged). Then the command: one report and one estimate over a model and
its code, SARIF results with file, line and column, the gate's source kinds, waivers on
source findings, merge of Python sources' reports and its refusals.

Usage: test_sources.py OPMAP_BINARY   (run by ctest)
"""
import csv
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
PROJECTS = os.path.join(ROOT, "tests", "data", "python-projects")
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
ENV = dict(os.environ, OPMAP_TODAY="2026-12-01")

# which rules may answer a row of each kind of expected.tsv
KIND_RULES = {
    "cuda-method": {"method-cuda", "attr-is-cuda"},
    "cuda-api": None,  # any torch-cuda-* rule
    "amp": {"torch-cuda-amp", "autocast-device-type-cuda", "import-apex-amp"},
    "device-string": {"to-cuda-string", "torch-device-cuda", "device-kwarg-cuda",
                      "map-location-cuda", "string-cuda-device", "autocast-device-type-cuda"},
    "nccl": {"backend-nccl", "init-process-group-nccl", "is-nccl-available",
             "process-group-nccl", "backend-nccl-constant", "string-nccl"},
    "cudnn": {"cudnn-flags", "cudnn-benchmark-limit", "cudnn-other", "import-cuda-module"},
    "tf32": {"cuda-matmul-tf32", "cuda-sdp-backends", "cufft-plan-cache", "backends-cuda-other",
             "import-cuda-module"},
    "extension": {"cpp-extension-cuda", "cpp-extension-load", "file-cu", "file-cuh"},
    "cuda-library": {"import-flash-attn", "import-xformers", "import-bitsandbytes",
                     "import-triton", "import-deepspeed-ops", "import-apex-optimizers",
                     "import-apex-other", "import-apex-amp"},
}


def rule_fits(kind, rule):
    allowed = KIND_RULES[kind]
    if allowed is None:
        return rule.startswith("torch-cuda-") or rule == "import-cuda-module"
    return rule in allowed


def run(*args, cwd=None):
    return subprocess.run([OPMAP] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=600, env=ENV, cwd=cwd)


def scan_json(*args, cwd=None):
    proc = run("scan", "-q", "--format", "json", *args, cwd=cwd)
    return proc, (json.loads(proc.stdout) if proc.stdout.strip() else None)


def rows(path):
    out = []
    if not os.path.exists(path):
        return out
    with open(path, newline="") as f:
        for r in csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            if not r or r[0].startswith("#"):
                continue
            out.append(r)
    return out


def projects():
    return sorted(d for d in os.listdir(PROJECTS)
                  if os.path.isdir(os.path.join(PROJECTS, d)) and
                  os.path.exists(os.path.join(PROJECTS, d, "expected.tsv")))


def findings(report):
    """(file, line) -> [rule, ...] from a report of one project scanned from its directory."""
    out = {}
    for m in report["models"]:
        assert m["format"] == "python", m["format"]
        for op in m["operators"]:
            for node, loc in zip(op["nodes"], op["locations"]):
                parts = loc.split(":")
                line = int(parts[1]) if len(parts) >= 3 else 0
                out.setdefault((parts[0], line), []).append(op["op_type"])
    return out


class RealProjects(unittest.TestCase):
    def test_there_are_five_projects_or_more(self):
        self.assertGreaterEqual(len(projects()), 5, projects())

    def check_project(self, name):
        base = os.path.join(PROJECTS, name)
        proc, rep = scan_json(".", cwd=base)
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        self.assertEqual(len(rep["models"]), 1)
        self.assertEqual(rep["models"][0]["sources"]["not_scanned"], 0,
                         rep["models"][0]["diagnostics"])
        found = findings(rep)
        seen = set()
        missed, decoys = [], []
        per_line = {}
        for r in rows(os.path.join(base, "expected.tsv")):
            file, line, kind = "./" + r[0], int(r[1]), r[2]
            if kind == "decoy":
                if (file, line) in found:
                    decoys.append("%s:%d %s <- %s" % (file, line, found[(file, line)], r[3]))
                seen.add((file, line))
                continue
            self.assertIn(kind, KIND_RULES, "%s: unknown kind %s" % (name, kind))
            per_line.setdefault((file, line), []).append((kind, r[3] if len(r) > 3 else ""))
        for key, want in per_line.items():
            # rows of one kind on a line need a finding each (two .cuda() calls, two
            # findings); rows of two kinds may name one finding (autocast's device_type='cuda'
            # is both amp and a device string)
            for kind in sorted({k for k, _ in want}):
                texts = [t for k, t in want if k == kind]
                fits = [g for g in found.get(key, []) if rule_fits(kind, g)]
                if len(fits) < len(texts):
                    missed.append("%s:%d %s %r (found: %s)" % (key[0], key[1], kind, texts,
                                                               found.get(key, [])))
            seen.add(key)
        reviewed = {("./" + r[0], int(r[1]), r[2]) for r in rows(os.path.join(base, "reviewed.tsv"))}
        # a rule that says the code runs unchanged (torch.optim.AdamW: a fused optimizer is
        # optional advice) claims no work: it may stand where the labels have nothing
        unchanged = {op["op_type"] for op in rep["models"][0]["operators"]
                     if op["rule_status"] == "unchanged"}
        extra = []
        for key, rules in sorted(found.items()):
            for rule in rules:
                if key not in seen and rule not in unchanged and \
                        (key[0], key[1], rule) not in reviewed:
                    extra.append("%s:%d %s" % (key[0], key[1], rule))
        self.assertEqual(missed, [], "%s: expected CUDA-isms not found" % name)
        self.assertEqual(decoys, [], "%s: findings on comment/string lines" % name)
        self.assertEqual(extra, [], "%s: findings neither expected nor reviewed" % name)
        return rep

    def test_every_project(self):
        for name in projects():
            with self.subTest(project=name):
                rep = self.check_project(name)
                # every finding carries its replacement (or says none is published) and a source
                for op in rep["models"][0]["operators"]:
                    self.assertTrue(op["ascend"]["becomes"], op["op_type"])
                    self.assertTrue(op["sources"], op["op_type"])
                    self.assertIn(op["grade"], ("kernel", "doc", "derived", "practice"))
                    self.assertIn(op["rule_status"], ("unchanged", "automatic", "renamed",
                                                      "manual", "rewrite", "unknown"))


class Command(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="opmap-sources-")
        cls.train = os.path.join(cls.tmp, "train")
        os.makedirs(os.path.join(cls.train, "ops"))
        with open(os.path.join(cls.train, "main.py"), "w") as f:
            f.write("import torch\nimport torch.distributed as dist\n"
                    "# torch.cuda.synchronize() here is a comment\n"
                    "dist.init_process_group(backend='nccl')\n"
                    "model = Net().cuda()\n"
                    "torch.cuda.nvtx.range_push('step')\n")
        with open(os.path.join(cls.train, "ops", "fused.cu"), "w") as f:
            f.write("__global__ void k() {}\n")
        cls.model = os.path.join(TESTDATA, "pytorch-converted", "test_Conv2d", "model.onnx")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_one_report_and_one_estimate_over_a_model_and_its_code(self):
        proc, rep = scan_json(self.model, self.train)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual([m["format"] for m in rep["models"]], ["onnx", "python"])
        py = rep["models"][1]
        self.assertEqual(py["file"], self.train)
        self.assertEqual(py["sources"], {"files": 2, "lines": 7, "not_scanned": 0})
        names = {op["op_type"]: op for op in py["operators"]}
        self.assertEqual(sorted(names), ["backend-nccl", "file-cu", "method-cuda",
                                         "torch-cuda-nvtx"])
        self.assertEqual(names["backend-nccl"]["locations"], [self.train + "/main.py:4:33"])
        self.assertEqual(names["backend-nccl"]["ascend"]["becomes"], 'backend="hccl"')
        self.assertEqual(names["file-cu"]["status"], "rewrite")
        self.assertEqual(names["torch-cuda-nvtx"]["status"], "unmapped")
        self.assertEqual(names["torch-cuda-nvtx"]["rule_status"], "unknown")
        # the portfolio: the model's and the code's operators, each adapted once
        own = sum(m["estimate"]["expected"] for m in rep["models"])
        self.assertAlmostEqual(rep["portfolio"]["estimate"]["expected"], own)
        code = rep["portfolio"]["training_code"]
        self.assertEqual(code["patterns"], 4)
        self.assertAlmostEqual(code["effort"]["expected"], py["estimate"]["expected"])
        text = run("scan", self.model, self.train).stdout
        self.assertIn("of which training code (4 patterns in Python sources): 2.9 person-days",
                      text)
        text = run("scan", self.train).stdout  # one model: its own block, every place
        self.assertIn("[python, 2 files, 7 lines]", text)
        self.assertIn("automatic  py::method-cuda", text)
        self.assertIn("at %s/main.py:5:14 .cuda" % self.train, text)

    def test_sarif_results_carry_file_line_and_column(self):
        proc = run("scan", "-q", "--format", "sarif", self.train)
        sarif = json.loads(proc.stdout)
        got = []
        for r in sarif["runs"][0]["results"]:
            loc = r["locations"][0]["physicalLocation"]
            got.append((r["ruleId"], loc["artifactLocation"]["uri"],
                        loc.get("region", {}).get("startLine"),
                        loc.get("region", {}).get("startColumn")))
        self.assertIn(("opmap/source-unknown", "file://%s/main.py" % self.train, 6, 1), got)
        self.assertIn(("opmap/source-rewrite", "file://%s/ops/fused.cu" % self.train, None, None),
                      got)

    def test_the_gate_has_source_kinds(self):
        self.assertEqual(run("scan", "-q", self.train).returncode, 0)  # default: unmapped
        proc = run("scan", "-q", "--fail-on", "source-rewrite", self.train)
        self.assertEqual(proc.returncode, 1)
        self.assertIn("source-rewrite: %s/ops/fused.cu (py::file-cu, 1 place) has no NPU path"
                      % self.train, proc.stderr)
        self.assertEqual(run("scan", "-q", "--fail-on", "rewrite", self.train).returncode, 0)
        waivers = os.path.join(self.tmp, "w.yaml")
        with open(waivers, "w") as f:
            f.write("waivers:\n  - op: \"py::file-cu\"\n    node: \"*/ops/*\"\n"
                    "    reason: \"ported by the kernel team\"\n    owner: \"k\"\n"
                    "    expires: \"2027-06-30\"\n")
        proc = run("scan", "-q", "--fail-on", "source-rewrite", "--waivers", waivers, self.train)
        self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_merge_reads_python_sources_back(self):
        a = os.path.join(self.tmp, "a.json")
        b = os.path.join(self.tmp, "b.json")
        run("scan", "-q", "--format", "json", "-o", a, self.model)
        run("scan", "-q", "--format", "json", "-o", b, self.train)
        for fmt in ("text", "json", "sarif", "html", "markdown", "csv", "junit", "atc-precheck"):
            one = run("scan", "-q", "--format", fmt, self.model, self.train)
            merged = run("merge", "-q", "--format", fmt, a, b)
            self.assertEqual((merged.stdout, merged.returncode), (one.stdout, one.returncode), fmt)
        with open(b) as f:
            rep = json.load(f)
        op = next(o for o in rep["models"][0]["operators"] if o["op_type"] == "file-cu")
        op["rule_status"] = "automatic"
        bad = os.path.join(self.tmp, "bad.json")
        with open(bad, "w") as f:
            json.dump(rep, f)
        proc = run("merge", "-q", bad)
        self.assertEqual(proc.returncode, 3)
        self.assertIn("other source rules", proc.stderr)
        op["rule_status"] = "rewrite"
        op["op_type"] = "no-such-rule"
        with open(bad, "w") as f:
            json.dump(rep, f)
        proc = run("merge", "-q", bad)
        self.assertEqual(proc.returncode, 3)
        self.assertIn("no source rule", proc.stderr)

    def test_a_file_that_does_not_tokenize_is_a_warning(self):
        d = os.path.join(self.tmp, "broken")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "py2.py"), "w") as f:
            f.write("print 'unterminated\nx.cuda()\n")
        with open(os.path.join(d, "ok.py"), "w") as f:
            f.write("x.cuda()\n")
        proc = run("scan", d)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("1 not scanned", proc.stdout)
        self.assertIn("warning: not scanned (invalid format)", proc.stdout)
        self.assertIn("py2.py:1:7", proc.stdout)

    def test_an_empty_directory_is_an_error(self):
        d = os.path.join(self.tmp, "empty")
        os.makedirs(d, exist_ok=True)
        proc = run("scan", d)
        self.assertEqual(proc.returncode, 3)
        self.assertIn("no model files", proc.stderr)
        self.assertIn("no sources (*.py, *.cu, *.cuh)", proc.stderr)


if __name__ == "__main__":
    OPMAP = sys.argv.pop(1)
    unittest.main()
