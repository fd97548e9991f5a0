#!/usr/bin/python3
"""`opmap merge`: JSON reports of shards of a real tree give, in every format, the bytes one
scan over the whole tree gives (stdout, stderr and exit code too); the gate's options apply
to the merge as to the scan; reports of another schema, opmap version, table, chip list or
mode, overlapping shards, edited totals and malformed JSON are refused with exit 3; registry
reports (--format registry) of the shards merge to one scan's registry report, under the gate
their scans had, with its exit code, and JSON shards merge into the same; the recipes of
docs/scale.md are run as written there (xargs -P, the indexed Job's pod, the RDD.pipe
partition script, and Dask on a real cluster: a scheduler and two workers on 127.0.0.1).

Usage: test_merge.py OPMAP_BINARY   (run by ctest)
"""
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import warnings

OPMAP = None
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
FIX = os.path.join(ROOT, "tests", "fixtures")
FORMATS = ["json", "text", "html", "markdown", "csv", "sarif", "junit", "atc-precheck"]
ENV = dict(os.environ, OPMAP_TODAY="2026-12-01")
HANG = 300  # seconds: a Dask cluster that has not started or stopped by then hangs

# a real tree in four shards, one directory argument or more each: libonnx-testdata and the
# TorchScript and torch.export fixtures (hostile archives among them: files not read)
SHARDS = [
    [os.path.join(TESTDATA, "node")],
    [os.path.join(TESTDATA, "pytorch-converted"), os.path.join(TESTDATA, "pytorch-operator")],
    [os.path.join(TESTDATA, "simple"), os.path.join(FIX, "export")],
    [os.path.join(FIX, "torchscript")],
]


def run(*args, cwd=None):
    return subprocess.run([OPMAP] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=1800, env=ENV, cwd=cwd)


def read(path):
    with open(path, "rb") as f:
        return f.read()


class Shards(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="opmap-merge-")
        cls.shard_reports = []
        for i, dirs in enumerate(SHARDS):
            out = os.path.join(cls.tmp, "shard-%d.json" % i)
            proc = run("scan", "-q", "--format", "json", "-o", out, *dirs)
            assert proc.returncode in (0, 1, 3), proc.stderr
            cls.shard_reports.append(out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def both(self, *options):
        """One scan over every shard's directories, and the merge of the shards' reports,
        each writing every format; returns the two runs and their report directories."""
        tag = str(abs(hash(options)))
        one, merged = os.path.join(self.tmp, "one-" + tag), os.path.join(self.tmp, "m-" + tag)
        dirs = [d for shard in SHARDS for d in shard]
        a = run("scan", "-q", "--format", ",".join(FORMATS), "-o", one, *options, *dirs)
        b = run("merge", "-q", "--format", ",".join(FORMATS), "-o", merged, *options,
                *self.shard_reports)
        return a, b, one, merged

    def assert_same(self, a, b, one, merged):
        self.assertEqual(a.returncode, b.returncode, b.stderr[-2000:])
        self.assertEqual(a.stderr, b.stderr)
        names = sorted(os.listdir(one))
        self.assertEqual(len(names), len(FORMATS))
        self.assertEqual(names, sorted(os.listdir(merged)))
        for name in names:
            self.assertEqual(read(os.path.join(one, name)), read(os.path.join(merged, name)),
                             name)

    def test_every_format_byte_identical(self):
        a, b, one, merged = self.both()
        self.assert_same(a, b, one, merged)
        rep = json.loads(read(os.path.join(merged, "opmap-report.json")))
        # the tree is real and large, and the hostile fixtures are files not read
        self.assertGreater(rep["totals"]["models"], 1000)
        self.assertTrue(rep["errors"])
        self.assertEqual(a.returncode, 3)  # files not read outrank the gate, as in the scan
        self.assertIn("portfolio", rep)

    def test_gate_and_headline_options_apply_to_the_merge(self):
        waivers = os.path.join(self.tmp, "waivers.yaml")
        proc = run("baseline", "-q", "--fail-on", "unmapped,rewrite", "-o", waivers,
                   *SHARDS[1])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for options in (("--fail-on", "all"), ("--max-effort", "5"),
                        ("--fail-on", "unmapped,rewrite", "--waivers", waivers),
                        ("--day-rate", "800", "--currency", "EUR"),
                        ("--blocked-on", "unmapped", "--needs-work-on", "partial,precision")):
            with self.subTest(options=options):
                self.assert_same(*self.both(*options))

    def test_scan_time_answers_kept(self):
        """What the scans answered for (--torch-npu, --soc with a part) is in the reports:
        the merge keeps it, and refuses reports answered for another target or part."""
        shards = []
        answer = ("--torch-npu", "2.1", "--soc", "Ascend910B3,ascend310p")
        for i, dirs in enumerate(SHARDS[1:3]):
            out = os.path.join(self.tmp, "tnpu-%d.json" % i)
            run("scan", "-q", *answer, "--format", "json", "-o", out, *dirs)
            shards.append(out)
        other = os.path.join(self.tmp, "b1.json")
        run("scan", "-q", "--torch-npu", "2.1", "--soc", "ascend910b1,ascend310p", "--format",
            "json", "-o", other, *SHARDS[0])
        self.refused(shards[0], other, why="where the first report has 'Ascend910B3' (--soc)")
        for fmt in FORMATS:
            one = run("scan", "-q", *answer, "--format", fmt, *(SHARDS[1] + SHARDS[2]))
            merged = run("merge", "--format", fmt, *shards)
            self.assertEqual(one.stdout, merged.stdout, fmt)
            self.assertEqual(one.returncode, merged.returncode)
        merged = run("merge", "--format", "json", *shards)
        self.assertTrue("--soc_version=Ascend910B3" in merged.stdout, "the part's ATC command")
        self.refused(shards[0], self.shard_reports[2], why="--torch-npu")

    def test_graph_mode_kept_and_mixed_modes_refused(self):
        """Shards scanned in graph mode (--mode graph) merge to the bytes one graph-mode scan
        writes, in every format; a report of the other mode is refused, either way round."""
        shards = []
        for i, dirs in enumerate(SHARDS[2:]):
            out = os.path.join(self.tmp, "graph-%d.json" % i)
            run("scan", "-q", "--mode", "graph", "--format", "json", "-o", out, *dirs)
            shards.append(out)
        for fmt in FORMATS:
            one = run("scan", "-q", "--mode", "graph", "--format", fmt, *(SHARDS[2] + SHARDS[3]))
            merged = run("merge", "--format", fmt, *shards)
            self.assertEqual(one.stdout, merged.stdout, fmt)
            self.assertEqual((one.returncode, one.stderr), (merged.returncode, merged.stderr))
        self.assertEqual(json.loads(run("merge", "--format", "json", *shards).stdout)["mode"],
                         "graph")
        self.refused(shards[0], self.shard_reports[0],
                     why="mode: 'eager', where the first report has 'graph' (--mode")
        self.refused(self.shard_reports[0], shards[1],
                     why="mode: 'graph', where the first report has 'eager' (--mode")

    def test_one_report_merges_to_itself(self):
        out = os.path.join(self.tmp, "self.json")
        proc = run("merge", "--format", "json", "-o", out, self.shard_reports[1])
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        self.assertEqual(read(out), read(self.shard_reports[1]))

    def edited(self, name, edit, base=None):
        rep = json.loads(read(base or self.shard_reports[1]))
        edit(rep)
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            json.dump(rep, f)
        return path

    def refused(self, *reports, why):
        proc = run("merge", "--format", "json", *reports)
        self.assertEqual(proc.returncode, 3, proc.stderr)
        self.assertEqual(proc.stdout, "")  # nothing half-merged is written
        self.assertIn(why, proc.stderr)
        return proc

    def test_mismatches_refused(self):
        first = self.shard_reports[0]
        cases = {
            "schema": (lambda r: r.update(schema="opmap-report/3"), "schema: 'opmap-report/3'"),
            "tool": (lambda r: r["tool"].update(version="0.0.1"), "tool.version: '0.0.1'"),
            "table": (lambda r: r["table"].update(version="2020.01.01"),
                      "table.version: '2020.01.01'"),
            "origin": (lambda r: r["table"].update(origin="my-table.yaml"), "table.origin"),
        }
        for name, (edit, why) in cases.items():
            with self.subTest(name):
                proc = self.refused(first, self.edited(name + ".json", edit), why=why)
                self.assertIn("cannot be merged", proc.stderr)

    def test_other_chips_refused(self):
        out = os.path.join(self.tmp, "all-chips.json")
        run("scan", "-q", "--soc", "all", "--format", "json", "-o", out, *SHARDS[2])
        self.refused(self.shard_reports[0], out, why="chips")

    def test_overlapping_shards_refused(self):
        proc = self.refused(self.shard_reports[1], self.shard_reports[2], self.shard_reports[1],
                            why="the shards overlap")
        self.assertIn("report 1", proc.stderr)

    def test_edited_reports_refused(self):
        def more_instances(r):
            r["models"][0]["operators"][0]["instances"] += 1

        def unknown_status(r):
            r["models"][0]["operators"][0]["status"] = "fine"

        def days_too_fine(r):
            r["models"][0]["operators"][0]["effort"]["max"] = 0.0001

        def no_row(r):
            r["models"][0]["operators"][0]["op_type"] = "NoSuchOperator"
            r["models"][0]["operators"][0]["status"] = "full"

        cases = [(more_instances, "models[0].totals: do not add up"),
                 (unknown_status, "models[0].operators[0].status: unknown value 'fine'"),
                 (days_too_fine, "models[0].operators[0].max: more than three decimals"),
                 (no_row, "which the table has no row for")]
        for edit, why in cases:
            with self.subTest(edit.__name__):
                proc = self.refused(self.edited(edit.__name__ + ".json", edit), why=why)
                self.assertIn("offset ", proc.stderr)

    def test_malformed_json_refused(self):
        text = read(self.shard_reports[3])
        cases = {"truncated": text[: len(text) // 2], "empty": b"", "not-json": b"graph(%x):",
                 "array": b"[]", "deep": b"[" * 100000 + b"]" * 100000}
        for name, data in cases.items():
            with self.subTest(name):
                path = os.path.join(self.tmp, name + ".json")
                with open(path, "wb") as f:
                    f.write(data)
                proc = self.refused(path, why=path)

    def test_scan_options_refused(self):
        for option in (["--soc", "all"], ["--weight", "partial=1"], ["-j", "2"],
                       ["--torch-npu", "2.6"], ["--files-from", "-"], ["--mode", "graph"]):
            with self.subTest(option):
                proc = run("merge", *option, self.shard_reports[0])
                self.assertEqual(proc.returncode, 2)
                self.assertIn("is an option of `opmap scan`, not of `opmap merge`", proc.stderr)
        proc = run("merge")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("give at least one JSON report", proc.stderr)


REGISTRY_SCHEMA = os.path.join(ROOT, "docs", "schema", "opmap-registry-1.schema.json")


def validate_registry(text):
    import jsonschema
    with open(REGISTRY_SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    rep = json.loads(text)
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(rep))
    if errors:
        raise AssertionError("registry report does not match %s at %s: %s" % (
            os.path.basename(REGISTRY_SCHEMA), "/".join(str(p) for p in errors[0].path),
            errors[0].message))
    return rep


class Registry(unittest.TestCase):
    """--format registry: the shards' registry reports merge to the bytes of one scan's, with
    the scan's exit code, under the gate's options the scans had (the headline's rule and the
    costs apply at the merge); JSON shards merge into the same registry report; a registry
    merge asked for another format, or given JSON and registry reports, is refused."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="opmap-registry-")
        cls.waivers = os.path.join(cls.tmp, "waivers.yaml")
        proc = run("baseline", "-q", "--fail-on", "unmapped,rewrite", "-o", cls.waivers,
                   *SHARDS[1])
        assert proc.returncode == 0, proc.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def scan_shards(self, tag, fmt, shards, *options):
        out = []
        for i, dirs in enumerate(shards):
            path = os.path.join(self.tmp, "%s-%d.%s.json" % (tag, i, fmt))
            proc = run("scan", "-q", "--format", fmt, "-o", path, *options, *dirs)
            self.assertIn(proc.returncode, (0, 1, 3), proc.stderr)
            out.append(path)
        return out

    def one_and_merged(self, tag, shards, scan_options, merge_options, fmt="registry"):
        one = os.path.join(self.tmp, tag + "-one.registry.json")
        merged = os.path.join(self.tmp, tag + "-merged.registry.json")
        dirs = [d for shard in shards for d in shard]
        a = run("scan", "-q", "--format", "registry", "-o", one, *merge_options, *dirs)
        parts = self.scan_shards(tag, fmt, shards, *scan_options)
        b = run("merge", "-q", "--format", "registry", "-o", merged, *merge_options, *parts)
        return a, b, one, merged

    def assert_same(self, a, b, one, merged):
        self.assertEqual(a.returncode, b.returncode, b.stderr[-2000:])
        self.assertEqual(read(one), read(merged))
        rep = validate_registry(read(merged))
        self.assertEqual(len(rep["models"]), rep["totals"]["models"])
        self.assertEqual(len(rep["operators"]), rep["totals"]["operators"])
        return rep

    def test_registry_shards_merge_to_one_scan(self):
        for i, (scan_opts, merge_opts) in enumerate((
                ((), ()),
                (("--fail-on", "all"), ("--fail-on", "all")),
                (("--fail-on", "unmapped,rewrite", "--waivers", self.waivers),
                 ("--fail-on", "unmapped,rewrite", "--waivers", self.waivers)),
                ((), ("--max-effort", "5", "--day-rate", "800", "--currency", "EUR")),
                ((), ("--blocked-on", "unmapped", "--needs-work-on", "partial,precision")))):
            with self.subTest(options=merge_opts):
                a, b, one, merged = self.one_and_merged("r%d" % i, SHARDS, scan_opts, merge_opts)
                rep = self.assert_same(a, b, one, merged)
                self.assertGreater(rep["totals"]["models"], 1000)
                self.assertTrue(rep["errors"])
                self.assertEqual(b.returncode, 3)  # files not read, as in the scan
        # a row a line: a model costs the bytes of its path and about 70 more
        size = len(read(merged))
        self.assertLess(size / rep["totals"]["models"], 400)

    def test_gate_exit_code(self):
        shards = [[os.path.join(TESTDATA, "node")], [os.path.join(TESTDATA, "simple")]]
        a, b, one, merged = self.one_and_merged("gate", shards, ("--fail-on", "rewrite"),
                                                ("--fail-on", "rewrite"))
        rep = self.assert_same(a, b, one, merged)
        self.assertEqual(b.returncode, 1)
        self.assertFalse(rep["gate"]["passed"])
        failing = rep["gate"]["failing"]
        self.assertIn("the gate fails: %d findings (registry reports count them" % failing,
                      b.stderr)
        self.assertIn("the gate fails: %d findings" % failing, a.stderr)
        # the gate the rows were judged by is the merge's: another is refused
        parts = sorted(os.path.join(self.tmp, p) for p in os.listdir(self.tmp)
                       if p.startswith("gate-") and p.endswith(".registry.json") and "-one" not
                       in p and "-merged" not in p)
        proc = run("merge", "-q", "--format", "registry", "-o", os.path.join(self.tmp, "x"),
                   *parts)
        self.assertEqual(proc.returncode, 3)
        self.assertIn("give the merge the --fail-on and --waivers its scans had", proc.stderr)
        self.assertIn("offset", proc.stderr)

    def test_json_shards_merge_into_a_registry(self):
        a, b, one, merged = self.one_and_merged("json", SHARDS, (), (), fmt="json")
        self.assert_same(a, b, one, merged)

    def test_other_formats_and_mixtures_refused(self):
        parts = self.scan_shards("mix", "registry", SHARDS[2:])
        jparts = self.scan_shards("mixj", "json", SHARDS[:1])
        proc = run("merge", "-q", "--format", "json", *parts)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("registry reports merge into a registry report only", proc.stderr)
        proc = run("merge", "-q", "--format", "registry", jparts[0], *parts)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("merge JSON reports or registry reports, not both", proc.stderr)

    def test_edited_registry_refused(self):
        parts = self.scan_shards("edit", "registry", SHARDS[2:3])
        text = read(parts[0]).decode()
        edited = os.path.join(self.tmp, "edited.registry.json")
        with open(edited, "w") as f:  # a row's verdict no longer follows from its counts
            f.write(text.replace('"ready",', '"blocked",', 1))
        proc = run("merge", "-q", "--format", "registry", "-o", os.path.join(self.tmp, "y"),
                   edited)
        self.assertEqual(proc.returncode, 3)
        self.assertRegex(proc.stderr, r"edited\.registry\.json: offset \d+: models\[\d+\]"
                         r"\.verdict: 'blocked', where its counts give")


class EveryModelAlone(unittest.TestCase):
    """One model's report merged alone writes what its scan wrote, in every format (a single
    model's text and HTML differ from a portfolio's): every fixture, every hostile case and
    a spread of libonnx-testdata, one at a time; hostile names (escapes, formulas, markup,
    bad UTF-8) included."""

    def models(self):
        out = []
        for d in (os.path.join(FIX, "torchscript"), os.path.join(FIX, "torchscript", "hostile"),
                  os.path.join(FIX, "torchscript", "memory"), os.path.join(FIX, "export"),
                  os.path.join(ROOT, "tests", "hostile", "cases")):
            if os.path.isdir(d):
                out += [os.path.join(d, f) for f in sorted(os.listdir(d))
                        if os.path.isfile(os.path.join(d, f)) and not f.endswith((".md", ".json"))]
        for sub in ("pytorch-converted", "simple"):
            d = os.path.join(TESTDATA, sub)
            out += [os.path.join(d, m, "model.onnx") for m in sorted(os.listdir(d))[::5]]
        return out

    def test_each_model_merges_to_its_own_report(self):
        with tempfile.TemporaryDirectory() as tmp:
            checked = 0
            for i, m in enumerate(self.models()):
                rep = os.path.join(tmp, "r%d.json" % i)
                scan = run("scan", "-q", "--soc", "all", "--format", "json", "-o", rep, m)
                if scan.returncode not in (0, 1, 3) or not os.path.exists(rep):
                    continue  # a usage error (not a model at all) writes no report
                # a name that is not UTF-8 reaches the JSON as U+FFFD (docs/scale.md), where
                # the scan's gate and text show '?': its models read back whole, the rest
                # shows U+FFFD
                lossy = "\ufffd" in read(rep).decode("utf-8")
                if lossy:
                    merged = run("merge", "--format", "json", rep)
                    self.assertEqual(json.loads(merged.stdout)["models"],
                                     json.loads(read(rep))["models"], m)
                for fmt in ([] if lossy else FORMATS):
                    one = subprocess.run([OPMAP, "scan", "-q", "--soc", "all", "--format", fmt, m],
                                         capture_output=True, env=ENV, timeout=600)
                    merged = subprocess.run([OPMAP, "merge", "--format", fmt, rep],
                                            capture_output=True, env=ENV, timeout=600)
                    self.assertEqual(one.stdout, merged.stdout, "%s, %s" % (m, fmt))
                    self.assertEqual(one.returncode, merged.returncode, m)
                checked += 1
                lossy_seen = getattr(self, "lossy_seen", 0) + lossy
                self.lossy_seen = lossy_seen
            self.assertGreater(checked, 100)
            self.assertLessEqual(getattr(self, "lossy_seen", 0), 3)  # the hostile names only


class FilesFrom(unittest.TestCase):
    """scan --files-from: a shard's list, read as the paths it names, or refused whole."""

    def list_file(self, tmp, data):
        path = os.path.join(tmp, "list.txt")
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_lines_are_paths(self):
        a = os.path.join(TESTDATA, "node", "test_relu", "model.onnx")
        b = os.path.join(TESTDATA, "node", "test_if", "model.onnx")
        with tempfile.TemporaryDirectory() as tmp:
            lst = self.list_file(tmp, (a + "\r\n\n" + b).encode())  # CRLF, a blank, no last end
            got = json.loads(run("scan", "--format", "json", "--files-from", lst).stdout)
            self.assertEqual([m["file"] for m in got["models"]], [a, b])
            piped = subprocess.run([OPMAP, "scan", "--format", "json", "--files-from", "-"],
                                   input=(a + "\n" + b + "\n").encode(), capture_output=True,
                                   env=ENV, timeout=600)
            self.assertEqual(json.loads(piped.stdout), got)

    def test_bad_lists_refused(self):
        a = os.path.join(TESTDATA, "node", "test_relu", "model.onnx").encode()
        cases = {"a NUL byte": a + b"\0.onnx\n", "longer than a path": b"x" * 5000 + b"\n",
                 "names no file": b"\n\n", "No such file": b"/no/such/model.onnx\n"}
        with tempfile.TemporaryDirectory() as tmp:
            for why, data in cases.items():
                with self.subTest(why):
                    proc = run("scan", "--files-from", self.list_file(tmp, data))
                    self.assertEqual(proc.returncode, 3, proc.stderr)
                    self.assertIn(why, proc.stderr)
                    self.assertEqual(proc.stdout, "")  # nothing scanned, no report


def recipe(name, lang="sh"):
    """The ```LANG block of docs/scale.md right after <!-- recipe: NAME -->."""
    with open(os.path.join(ROOT, "docs", "scale.md")) as f:
        doc = f.read()
    fence = "<!-- recipe: %s -->\n```%s\n" % (name, lang)
    at = doc.index(fence) + len(fence)
    return doc[at:doc.index("```", at)]


class Recipes(unittest.TestCase):
    """docs/scale.md's recipes, as written there, at small scale: the merge of what each
    leaves equals one scan over the same files in models.txt's order."""

    TREE = os.path.join(FIX, "torchscript")

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="opmap-recipe-")
        shim = os.path.join(self.tmp, "bin")
        os.mkdir(shim)
        os.symlink(OPMAP, os.path.join(shim, "opmap"))
        self.env = dict(ENV, PATH=shim + os.pathsep + os.environ["PATH"], TREE=self.TREE,
                        SHARDS="3", WORK=self.tmp)
        self.addCleanup(shutil.rmtree, self.tmp)  # after the cleanups added later: a cluster's stop

    def sh(self, script, stdin=None, **env):
        proc = subprocess.run(["sh", "-u", "-c", script], cwd=self.tmp, input=stdin,
                              env=dict(self.env, **env), capture_output=True, text=True,
                              timeout=1800)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return proc

    def models(self):
        """models.txt as the xargs recipe's first step writes it."""
        first = recipe("xargs").split("split -n")[0]
        self.sh(first)
        return [f for f in read(os.path.join(self.tmp, "models.txt")).decode().split("\n") if f]

    def assert_merges_to_one_scan(self, reports, files):
        self.assertGreaterEqual(len(reports), 2)
        merged = run("merge", "--format", "json", *reports, cwd=self.tmp)
        self.assertIn(merged.returncode, (0, 1, 3), merged.stderr)
        one = run("scan", "-q", "--format", "json", *files, cwd=self.tmp)
        self.assertEqual(merged.stdout, one.stdout)
        self.assertEqual(merged.returncode, one.returncode)
        self.assertGreaterEqual(json.loads(merged.stdout)["totals"]["models"], 15)

    def reports(self):
        return sorted(os.path.join(self.tmp, f) for f in os.listdir(self.tmp)
                      if f.startswith("shard-") and f.endswith(".json"))

    def test_xargs(self):
        self.sh(recipe("xargs"))
        files = [f for f in read(os.path.join(self.tmp, "models.txt")).decode().split("\n") if f]
        self.assertEqual(len(self.reports()), 3)
        merged = read(os.path.join(self.tmp, "merged", "opmap-report.json"))
        one = run("scan", "-q", "--format", "json", *files, cwd=self.tmp)
        self.assertEqual(merged.decode(), one.stdout)

    def test_indexed_job(self):
        files = self.models()
        for i in range(3):
            self.sh(recipe("indexed-job"), JOB_COMPLETION_INDEX=str(i))
        self.assertEqual(len(self.reports()), 3)
        self.assert_merges_to_one_scan(self.reports(), files)

    def test_spark_pipe(self):
        files = self.models()
        numbered = ["%d\t%s" % (i, f) for i, f in enumerate(files)]
        per = (len(numbered) + 3) // 4
        for k in range(4):  # four partitions, contiguous, one of them possibly empty
            part = numbered[k * per:(k + 1) * per]
            self.sh(recipe("spark-pipe"), stdin="".join(line + "\n" for line in part))
        self.assert_merges_to_one_scan(self.reports(), files)

    def test_dask(self):
        """The cluster block started as written (one scheduler, two workers, all on 127.0.0.1
        with ports 0), the client script run as written against it."""
        if importlib.util.find_spec("distributed") is None or not shutil.which("dask"):
            self.skipTest("python3-distributed is not installed (tools/install-deps --test "
                          "installs it)")
        from distributed import Client
        files = self.models()
        scheduler_file = os.path.join(self.tmp, "scheduler.json")
        cluster = dict(self.env, HOST="127.0.0.1", PORT="0", HTTP_PORT="0", TMPDIR=self.tmp)
        scheduler, worker = [c.strip() for c in recipe("dask-cluster").replace("\\\n", "")
                             .split("\n") if c.strip()]
        self.start(scheduler, cluster, "scheduler.log")
        deadline = time.monotonic() + HANG  # a hang detector, not a measure
        while not self.address(scheduler_file):
            if time.monotonic() > deadline:
                self.fail("the Dask scheduler did not start" + self.logs())
            time.sleep(0.2)
        self.start(worker, cluster, "worker-1.log")
        self.start(worker, cluster, "worker-2.log")
        with warnings.catch_warnings():  # tornado's DeprecationWarning in Dask 2022.12
            warnings.simplefilter("ignore", DeprecationWarning)
            with Client(scheduler_file=scheduler_file, timeout=HANG) as client:
                client.wait_for_workers(2, timeout=HANG)
                workers = set(client.scheduler_info()["workers"])

        with open(os.path.join(self.tmp, "scan-shards.py"), "w") as f:
            f.write(recipe("dask", "python"))
        proc = subprocess.run([sys.executable, "scan-shards.py"], cwd=self.tmp, env=self.env,
                              capture_output=True, text=True, timeout=1800)
        one = run("scan", "-q", "--format", "json", *files, cwd=self.tmp)
        self.assertEqual(proc.returncode, one.returncode, proc.stderr + self.logs())
        self.assertEqual(read(os.path.join(self.tmp, "merged", "opmap-report.json")).decode(),
                         one.stdout)
        self.assertGreaterEqual(json.loads(one.stdout)["totals"]["models"], 15)
        ran = dict(line.split(" ") for line in proc.stdout.splitlines())
        self.assertEqual(sorted(ran), [os.path.join(self.tmp, "shard-%03d" % i) for i in range(3)])
        self.assertEqual(set(ran.values()), workers)  # both workers scanned

    def start(self, command, env, log):
        """Runs a command of the cluster recipe in its own process group, stopped at cleanup
        (the group: a worker's nanny forks the worker)."""
        with open(os.path.join(self.tmp, log), "wb") as out:
            proc = subprocess.Popen(["sh", "-u", "-c", "exec " + command], cwd=self.tmp,
                                    env=env, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        self.addCleanup(stop, proc)

    @staticmethod
    def address(scheduler_file):
        """The scheduler's address once it has written the whole file, else None."""
        try:
            with open(scheduler_file) as f:
                return json.load(f)["address"]
        except (OSError, ValueError, KeyError):
            return None

    def logs(self):
        return "".join("\n--- %s\n%s" % (name, read(os.path.join(self.tmp, name))[-3000:]
                                          .decode(errors="replace"))
                       for name in sorted(os.listdir(self.tmp)) if name.endswith(".log"))


def stop(proc):
    """SIGTERM to the process group, SIGKILL to what is left of it."""
    for sig, wait in ((signal.SIGTERM, HANG), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            pass


if __name__ == "__main__":
    OPMAP = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
