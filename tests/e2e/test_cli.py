#!/usr/bin/python3
"""End-to-end tests of the opmap CLI on real models (libonnx-testdata) and bad inputs.

Usage: test_cli.py OPMAP_BINARY   (run by ctest)
"""
import ast
import json
import shlex
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import unittest

from report_schema import validate

OPMAP = None
HERE = os.path.dirname(os.path.abspath(__file__))
SMALL_TABLE = os.path.join(HERE, "..", "fixtures", "tables", "small.yaml")
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")


def model(name, kind="node"):
    return os.path.join(TESTDATA, kind, name, "model.onnx")


# OPMAP_VALGRIND=1 runs every command under valgrind: any memory error or leak makes the
# command exit 99, which no test accepts.
VALGRIND = ["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
            "--errors-for-leak-kinds=definite,indirect"] if os.environ.get("OPMAP_VALGRIND") else []


def run(*args, timeout=120):
    return subprocess.run(VALGRIND + [OPMAP] + list(args), capture_output=True, text=True,
                          timeout=timeout)


def scan_json(*args):
    proc = run("scan", "--format", "json", *args)
    return proc, (validate(json.loads(proc.stdout)) if proc.stdout.strip() else None)


# -- protobuf wire encoding, for hostile inputs python3-onnx would refuse to write --

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def nested_if_model(levels):
    graph = field(1, field(4, b"Relu"))  # innermost graph: one Relu
    for _ in range(levels):
        attr = field(1, b"then_branch") + varint(20 << 3) + varint(5) + field(6, graph)
        graph = field(1, field(4, b"If") + field(5, attr))
    opset = field(2 << 0, b"")  # placeholder, replaced below
    opset = varint(2 << 3) + varint(17)  # OperatorSetIdProto.version = 17
    return varint(1 << 3) + varint(8) + field(8, opset) + field(7, graph)


class Cli(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="opmap-e2e-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return path

    def assertInputError(self, proc, *needles):
        self.assertEqual(proc.returncode, 3, proc.stderr)
        self.assertEqual(proc.stderr.count("\n"), 1, "one clear message: " + proc.stderr)
        for n in needles:
            self.assertIn(n, proc.stderr)

    # --- basics ---

    def test_version_and_help(self):
        proc = run("--version")
        self.assertEqual(proc.returncode, 0)
        self.assertRegex(proc.stdout, r"^opmap \d+\.\d+\.\d+\n$")
        proc = run("--help")
        self.assertEqual(proc.returncode, 0)
        self.assertIn("exit codes", proc.stdout)
        self.assertIn("scan", proc.stdout)
        self.assertIn("--table", run("scan", "--help").stdout)

    def test_usage_errors_exit_2(self):
        self.assertEqual(run().returncode, 2)
        self.assertEqual(run("frobnicate").returncode, 2)
        self.assertEqual(run("scan").returncode, 2)
        self.assertEqual(run("scan", "--format", "xml", model("test_relu")).returncode, 2)
        self.assertEqual(run("scan", "--no-such-option", model("test_relu")).returncode, 2)

    # --- real models, JSON fields ---

    def test_json_report_of_a_model_with_subgraphs(self):
        proc, rep = scan_json("--table", SMALL_TABLE, model("test_if"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(rep["schema"], "opmap-report/5")
        self.assertEqual(rep["table"]["origin"], SMALL_TABLE)
        m = rep["models"][0]
        self.assertEqual(m["file"], model("test_if"))
        self.assertEqual(m["format"], "onnx")
        self.assertEqual(m["opset_imports"], [{"domain": "ai.onnx", "version": 11}])
        self.assertEqual(m["stats"]["graphs"], 3)
        ops = {o["op_type"]: o for o in m["operators"]}
        self.assertEqual(ops["If"]["nodes"], ["main/If_0"])
        self.assertEqual(sorted(ops["Constant"]["nodes"]),
                         ["main/If_0/else_branch/Constant_0", "main/If_0/then_branch/Constant_0"])
        self.assertEqual(ops["Constant"]["status"], "structural")
        self.assertEqual(ops["Constant"]["since_version"], 1)
        self.assertEqual(ops["If"]["opset"], 11)
        self.assertEqual(m["unmapped"], [])
        self.assertEqual(m["estimate"]["expected"], 0)  # structural: never estimated
        self.assertEqual(m["totals"]["instances"], 3)

    def test_unmapped_operator_fails_the_gate(self):
        proc, rep = scan_json("--table", SMALL_TABLE, model("test_sigmoid"))
        self.assertEqual(proc.returncode, 1)
        m = rep["models"][0]
        self.assertEqual(m["unmapped"], [{"domain": "ai.onnx", "op_type": "Sigmoid",
                                          "opset": 13, "instances": 1}])
        self.assertEqual(m["operators"][0]["status"], "unmapped")
        self.assertIsNone(m["operators"][0]["since_version"])
        self.assertEqual(m["estimate"]["expected"], 2.5)
        self.assertEqual(m["estimate"]["min"], 2)
        self.assertEqual(m["estimate"]["max"], 3)

    def test_estimate_adds_up_per_distinct_operator(self):
        # Loop (rewrite) holds Add (partial) and more; each distinct op counts once
        proc, rep = scan_json("--table", SMALL_TABLE, model("test_range_float_type_positive_delta_expanded"))
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        m = rep["models"][0]
        total = sum(o["effort"]["expected"] for o in m["operators"] if o["status"] != "structural")
        self.assertAlmostEqual(m["estimate"]["expected"], total, places=6)
        by = m["totals"]["by_status"]
        self.assertEqual(sum(v["operators"] for v in by.values()), len(m["operators"]))
        loop = [o for o in m["operators"] if o["op_type"] == "Loop"]
        self.assertEqual(loop[0]["status"], "rewrite")
        self.assertEqual(loop[0]["hint"], "unroll")
        adds = [o for o in m["operators"] if o["op_type"] == "Add"]
        self.assertTrue(all("/body/" in p for p in adds[0]["nodes"]))

    def test_inputs_and_outputs_with_shapes(self):
        proc, rep = scan_json(model("test_relu"))
        m = rep["models"][0]
        self.assertEqual(m["inputs"], [{"name": "x", "dtype": "float32", "shape": [3, 4, 5]}])
        self.assertEqual(m["outputs"][0]["name"], "y")

    def test_text_summary(self):
        proc = run("scan", "--table", SMALL_TABLE, model("test_if"))
        self.assertEqual(proc.returncode, 0)
        self.assertIn("structural", proc.stdout)
        self.assertIn("ai.onnx::If", proc.stdout)
        self.assertNotIn("\033[", proc.stdout)  # no colour when not a terminal

    def test_directory_scan_and_output_file(self):
        d = os.path.join(self.tmp, "models")
        os.makedirs(os.path.join(d, "sub"))
        shutil.copy(model("test_relu"), os.path.join(d, "a.onnx"))
        shutil.copy(model("test_if"), os.path.join(d, "sub", "b.ONNX"))
        self.write("models/notes.txt", "not a model")
        out = os.path.join(self.tmp, "r.json")
        proc = run("scan", "--table", SMALL_TABLE, "--format", "json", "-o", out, d)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(out) as f:
            rep = validate(json.load(f))
        self.assertEqual([os.path.relpath(m["file"], d) for m in rep["models"]],
                         ["a.onnx", "sub/b.ONNX"])
        self.assertEqual(rep["totals"]["models"], 2)
        self.assertEqual(oct(os.stat(out).st_mode & 0o777), oct(0o666 & ~current_umask()))
        self.assertEqual(sorted(os.listdir(self.tmp)), ["models", "r.json"])  # no temp left

    def test_unwritable_output_exits_4_and_leaves_nothing(self):
        out = os.path.join(self.tmp, "no", "such", "dir", "r.json")
        proc = run("scan", "-o", out, model("test_relu"))
        self.assertEqual(proc.returncode, 4)
        self.assertIn(out, proc.stderr)


    def test_output_never_replaces_what_is_not_a_regular_file(self):
        # `-o /dev/null` as root once turned the machine's /dev/null into a report file
        if os.geteuid() == 0:
            dev = os.path.join(self.tmp, "null")
            os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
            proc = run("scan", "-o", dev, model("test_relu"))
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertTrue(stat.S_ISCHR(os.lstat(dev).st_mode))
        # a FIFO is written through (a reader gets the whole report)
        fifo = os.path.join(self.tmp, "fifo")
        os.mkfifo(fifo)
        reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
        proc = run("scan", "-o", fifo, model("test_relu"))
        got = reader.communicate(timeout=120)[0].decode()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("ai.onnx::Relu", got)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
        # a symbolic link stays a link; the file it points to is replaced, keeping its mode
        target = self.write("target.txt", "old report")
        os.chmod(target, 0o640)
        link = os.path.join(self.tmp, "link.txt")
        os.symlink("target.txt", link)
        proc = run("scan", "-o", link, model("test_relu"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(os.path.islink(link))
        with open(target) as f:
            self.assertIn("ai.onnx::Relu", f.read())
        self.assertEqual(os.stat(target).st_mode & 0o777, 0o640)
        # a link to nothing is refused, not created through
        dangling = os.path.join(self.tmp, "dangling")
        os.symlink("nowhere", dangling)
        proc = run("scan", "-o", dangling, model("test_relu"))
        self.assertEqual(proc.returncode, 4)
        self.assertIn("dangling: a symbolic link to nothing", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "nowhere")))

    def test_full_device_exits_4(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        proc = run("scan", "-o", "/dev/full", model("test_relu"))
        self.assertEqual(proc.returncode, 4)
        self.assertIn("/dev/full: cannot write: No space left on device", proc.stderr)
        self.assertTrue(stat.S_ISCHR(os.lstat("/dev/full").st_mode))
        # every command's standard output counts, not only reports
        for args in (["table", "stats"], ["table", "show", "Relu"], ["table", "lint"],
                     ["--version"]):
            with open("/dev/full", "w") as full:
                proc = subprocess.run(VALGRIND + [OPMAP] + args, stdout=full,
                                      stderr=subprocess.PIPE, text=True, timeout=120)
            self.assertEqual(proc.returncode, 4, args)
            self.assertIn("cannot write to standard output", proc.stderr)
    # --- rules: constraints, chips, dtypes, segments (the built-in table's facts) ---

    def test_constraint_fires_with_the_actual_value_on_every_chip(self):
        proc, rep = scan_json("--soc", "all", model("test_resize_upsample_scales_cubic"))
        self.assertEqual(rep["chips"], ["ascend910b", "ascend910_93", "ascend310p", "ascend950",
                                        "ascend910", "ascend310b"])
        op = rep["models"][0]["operators"][0]
        self.assertEqual(op["op_type"], "Resize")
        self.assertEqual(op["status"], "rewrite")
        self.assertEqual({c["status"] for c in op["chips"].values()}, {"rewrite"})
        reason = [r for r in op["reasons"] if r["value"] == "mode=cubic"][0]
        self.assertEqual(reason["status"], "rewrite")
        self.assertEqual(reason["chips"], rep["chips"])
        self.assertEqual(reason["example"], "main/Resize_0")
        self.assertIn("nearest and linear", reason["message"])

    def test_flag_only_constraint(self):
        proc, rep = scan_json(model("test_reflect_pad"))
        op = rep["models"][0]["operators"][0]
        self.assertEqual((op["op_type"], op["status"]), ("Pad", "full"))
        self.assertEqual(op["reasons"][0]["value"], "mode=reflect")
        self.assertIsNone(op["reasons"][0]["status"])
        self.assertIn("performance", op["flags"])

    def test_two_chips_give_different_explained_answers(self):
        m = model("test_mod_mixed_sign_float64")
        proc, a = scan_json("--soc", "ascend910b", m)
        proc, b = scan_json("--soc", "ascend950", m)
        self.assertEqual(a["chips"], ["ascend910b"])
        op_a, op_b = a["models"][0]["operators"][0], b["models"][0]["operators"][0]
        self.assertEqual((op_a["op_type"], op_a["status"]), ("Mod", "full"))
        self.assertEqual(op_a["input_dtypes"], ["float64"])
        self.assertEqual(op_b["status"], "partial")
        self.assertEqual([r["value"] for r in op_b["reasons"]], ["dtype(input 0)=float64"])
        self.assertEqual(op_b["reasons"][0]["chips"], ["ascend950"])
        text = run("scan", "--soc", "ascend950", m).stdout
        self.assertIn("why: input 0 dtype float64", text)
        self.assertIn("kernel grade]", text)
        self.assertIn("for ascend950", text)

    def test_float64_is_reported_where_it_occurs(self):
        proc, rep = scan_json(model("test_cast_FLOAT_to_DOUBLE"))
        risks = rep["models"][0]["risks"]
        self.assertIn({"kind": "dtype", "level": "warning",
                       "message": "ai.onnx::Cast produces float64: Ascend largely lacks float64 "
                                  "kernels; keep the model in float32",
                       "where": "main/Cast_0", "restates_flag": False}, risks)

    def test_segment_split_inside_a_loop_body(self):
        import onnx
        from onnx import TensorProto, helper
        # Loop body: Relu -> Custom (no row: unmapped, so it runs nowhere on the NPU) -> Relu
        body = helper.make_graph(
            [helper.make_node("Relu", ["x_in"], ["a"], name="r1"),
             helper.make_node("Custom", ["a"], ["b"], name="custom", domain="com.example"),
             helper.make_node("Relu", ["b"], ["x_out"], name="r2"),
             helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep")],
            "body",
            [helper.make_tensor_value_info("i", TensorProto.INT64, []),
             helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
             helper.make_tensor_value_info("x_in", TensorProto.FLOAT, [4])],
            [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
             helper.make_tensor_value_info("x_out", TensorProto.FLOAT, [4])])
        graph = helper.make_graph(
            [helper.make_node("Loop", ["n", "c", "x"], ["y"], name="loop", body=body)], "g",
            [helper.make_tensor_value_info("n", TensorProto.INT64, []),
             helper.make_tensor_value_info("c", TensorProto.BOOL, []),
             helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
        path = self.write("loop.onnx", b"")
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16),
                                                          helper.make_opsetid("com.example", 1)]),
                  path)
        proc, rep = scan_json(path)
        seg = rep["models"][0]["segments"]
        graphs = {g["graph"]: g for g in seg["graphs"]}
        body = graphs["main/loop/body"]
        self.assertEqual((body["segments"], body["transitions"], body["npu_nodes"]), (2, 2, 2))
        self.assertIn({"node": "main/loop/body/custom", "op": "com.example::Custom",
                       "why": "unmapped: no row in the table"}, seg["breakers"])
        self.assertEqual(seg["breakers_total"], len(seg["breakers"]))
        self.assertEqual(seg["segments"], sum(g["segments"] for g in seg["graphs"]))

    def test_unknown_chip_is_a_usage_error(self):
        proc = run("scan", "--soc", "ascend999", model("test_relu"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("unknown chip 'ascend999'", proc.stderr)
        self.assertIn("the table has: ascend910b, ascend910_93, ascend310p", proc.stderr)
        # a table of many chips: the list is cut with "..." and the message still ends whole
        chips = ", ".join("chip%02d_abcdefghij" % i for i in range(40))
        t = self.write("t.yaml", "schema: 1\nabout: {socs: [%s]}\nops: []\n" % chips)
        proc = run("scan", "--table", t, "--soc", "x", model("test_relu"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("the table has: chip00_abcdefghij, chip01_abcdefghij", proc.stderr)
        self.assertTrue(proc.stderr.rstrip().endswith(", ...; or use all)"), proc.stderr)

    def test_a_chip_named_twice_is_answered_once(self):
        proc, rep = scan_json("--soc", "ascend310p,ascend910b,ascend310p", model("test_relu"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(rep["chips"], ["ascend310p", "ascend910b"])
        self.assertEqual(sorted(rep["models"][0]["operators"][0]["chips"]),
                         ["ascend310p", "ascend910b"])

    def test_table_chip_ids_are_plain_names(self):
        # --soc splits at commas and reserves "all"; reports print ids as keys and headings
        # (a chip named as\end910b once broke the JSON report: tests/unit/test_jsonw.c)
        for bad in ("a,b", "all", 'as\\\\end910b', "x y", ""):
            t = self.write("t.yaml", 'schema: 1\nabout: {socs: [ascend910b, "%s"]}\nops: []\n' % bad)
            self.assertInputError(run("scan", "--table", t, model("test_relu")),
                                  t + ":2:", "chip id '%s'" % bad.replace("\\\\", "\\"))
        t = self.write("t.yaml", "schema: 1\nabout: {socs: [ascend910b, Ascend-310P.v2_1]}\nops: []\n")
        proc, rep = scan_json("--table", t, "--soc", "all", model("test_relu"))
        self.assertEqual(rep["chips"], ["ascend910b", "Ascend-310P.v2_1"])

    # --- bad input: one clear message naming the file, exit 3, no crash ---

    def test_missing_file(self):
        p = os.path.join(self.tmp, "nope.onnx")
        self.assertInputError(run("scan", p), p, "No such file")

    def test_directory_without_models(self):
        self.write("readme.txt", "hello")
        self.assertInputError(run("scan", self.tmp), self.tmp, "no model files")

    def test_empty_file(self):
        p = self.write("empty.onnx", b"")
        self.assertInputError(run("scan", p), p, "empty")

    def test_random_bytes(self):
        p = self.write("random.onnx", os.urandom(4096))
        self.assertInputError(run("scan", p), p)

    def test_truncated_models(self):
        with open(model("test_if"), "rb") as f:
            data = f.read()
        for cut in (3, len(data) // 3, len(data) // 2, len(data) - 5):
            p = self.write(f"cut{cut}.onnx", data[:cut])
            proc = run("scan", p)
            self.assertInputError(proc, p, "offset")

    def test_length_past_the_end(self):
        p = self.write("liar.onnx", varint(8) + varint(7) + varint(7 << 3 | 2) + varint(1 << 40) + b"xy")
        self.assertInputError(run("scan", p), p, "offset 2", "past the end")

    def test_absurd_nesting_depth(self):
        # bounded by the depth limit, not by a clock: run()'s timeout only detects a hang
        p = self.write("deep.onnx", nested_if_model(10000))
        proc = run("scan", p)
        self.assertInputError(proc, p, "max_depth")

    def test_one_bad_model_among_good_ones(self):
        bad = self.write("bad.onnx", b"\x08")
        proc = run("scan", "--format", "json", model("test_relu"), bad)
        self.assertEqual(proc.returncode, 3)
        self.assertIn(bad, proc.stderr)
        self.assertEqual(len(validate(json.loads(proc.stdout))["models"]), 1)

    # --- bad tables: file:line:column ---

    def test_table_syntax_error(self):
        t = self.write("t.yaml", "schema: 1\nops:\n  - {domain: ai.onnx\n")
        self.assertInputError(run("scan", "--table", t, model("test_relu")), t + ":")
        self.assertRegex(run("scan", "--table", t, model("test_relu")).stderr,
                         r"t\.yaml:\d+:\d+: ")

    def test_table_unknown_status(self):
        t = self.write("t.yaml", "schema: 1\nops:\n  - {domain: ai.onnx, op: Relu, since: 1,"
                                 " status: fine, curated: x}\n")
        self.assertInputError(run("scan", "--table", t, model("test_relu")),
                              t + ":3:", "unknown status 'fine'")

    def test_table_duplicate_operator(self):
        t = self.write("t.yaml", "schema: 1\nops:\n"
                                 "  - {domain: ai.onnx, op: Relu, since: 6, status: full, curated: x}\n"
                                 "  - {domain: ai.onnx, op: Relu, since: 6, status: rewrite, curated: y}\n")
        self.assertInputError(run("scan", "--table", t, model("test_relu")),
                              t + ":4:5:", "duplicate row")

    def test_table_lint(self):
        proc = run("table", "lint")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("built-in: ok", proc.stdout)
        self.assertIn("every fact with a source and a grade", proc.stdout)
        proc = run("table", "lint", SMALL_TABLE)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        t = self.write("t.yaml", "schema: 1\nops: [1]\n")
        self.assertInputError(run("table", "lint", t), t + ":2:7:")

    def test_table_show_every_fact_with_its_grade(self):
        proc = run("table", "show", "aten::add")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = proc.stdout
        # op-plugin's skip list runs test_neg_view only in float64: no float64 partial from it
        self.assertNotIn("float64 fails", out)
        self.assertNotIn("constraint:", out)
        self.assertIn("status:      full  [kernel: op-plugin-functions]", out)
        self.assertIn("on Ascend:   aclnnAdd  [kernel: op-plugin-functions]", out)
        self.assertRegex(out, r"dtypes:      input 0: .*float64.*\[doc: torch-npu-api-docs\]")
        self.assertRegex(out, r"ascend910b   full  \[doc: torch-npu-api-docs\]")
        proc = run("table", "show", "aten::threshold")
        self.assertNotIn("flag:", proc.stdout)  # the guide's boundary claim: advisory only
        self.assertIn("Practice report", proc.stdout)
        self.assertIn("aclnnThreshold documents PyTorch's exact rule", proc.stdout)
        # what each operator becomes, read from the parser plugin
        proc = run("table", "show", "ai.onnx::Conv")
        self.assertIn("Conv2D", proc.stdout)
        self.assertIn("Conv3D", proc.stdout)
        proc = run("table", "show", "aten::native_layer_norm")
        self.assertIn("aclnnLayerNorm", proc.stdout)
        self.assertNotIn("on Ascend:   aclnnFastLayerNorm", proc.stdout)

    def scan_formats(self, out, *args):
        proc = run("scan", "--format", "text,json,html,markdown,csv,sarif,junit", "-o", out,
                   *args)
        self.assertIn(proc.returncode, (0, 1), proc.stderr)

        def read(ext):
            with open(os.path.join(out, "opmap-report." + ext), encoding="utf-8") as f:
                return f.read()
        return read

    def test_every_format_starts_with_the_headline(self):
        out = tempfile.mkdtemp(prefix="opmap-headline-")
        self.addCleanup(shutil.rmtree, out)
        read = self.scan_formats(out, model("test_resize_upsample_scales_cubic"))
        rep = validate(json.loads(read("json")))
        h = rep["headline"]
        self.assertEqual(list(rep)[:2], ["schema", "headline"])
        self.assertEqual(h["verdict"], "blocked")
        self.assertIn("rewrite", h["blocking"])
        # coverage is the segments' NPU nodes over the nodes placed (NPU or breaking)
        seg = rep["models"][0]["segments"]
        self.assertEqual(h["placed"], seg["npu_nodes"] + seg["breakers_total"])
        self.assertEqual(h["on_npu"], seg["npu_nodes"])
        self.assertAlmostEqual(h["coverage"], int(1000 * h["on_npu"] / h["placed"]) / 1000)
        self.assertLess(h["coverage"], 1)
        totals = rep["models"][0]["totals"]
        self.assertEqual(h["instances"], totals["instances"] -
                         totals["by_status"]["structural"]["instances"])
        self.assertEqual(h["operators_full"], totals["by_status"]["full"]["operators"])
        self.assertEqual(rep["models"][0]["headline"]["verdict"], "blocked")
        cov = "%g%%" % (h["coverage"] * 100)
        self.assertTrue(read("txt").startswith("verdict: blocked (rewrite)\n  coverage: " + cov),
                        read("txt")[:200])
        md = [l for l in read("md").splitlines() if l.strip()]
        self.assertTrue(md[1].startswith("**Verdict: blocked** (rewrite) · coverage **%s**" % cov),
                        md[1])
        csv_lines = read("csv").splitlines()
        self.assertTrue(csv_lines[0].startswith("verdict,coverage,model,"))
        self.assertTrue(csv_lines[1].startswith("blocked,%g," % h["coverage"]), csv_lines[1])
        self.assertTrue(all(l.startswith("blocked,") for l in csv_lines[2:]))
        run0 = json.loads(read("sarif"))["runs"][0]
        self.assertEqual(list(run0)[0], "properties")
        self.assertEqual(run0["properties"]["headline"]["verdict"], "blocked")
        self.assertEqual(run0["properties"]["headline"]["coverage"], h["coverage"])
        self.assertEqual(run0["properties"]["models"][0]["headline"]["verdict"], "blocked")
        xml = read("xml").splitlines()
        self.assertTrue(xml[1].startswith("<!-- opmap verdict: blocked (rewrite); coverage: " +
                                          cov), xml[1])
        self.assertIn('<property name="verdict" value="blocked"/>', read("xml"))
        page = read("html")
        self.assertLess(page.index('data-verdict="blocked"'), page.index('class="cards"'))
        self.assertIn('id="coverage">%s<' % cov, page)

    def test_the_headline_rule_is_configurable(self):
        m = model("test_cast_DOUBLE_to_FLOAT")

        def verdict(*args):
            proc, rep = scan_json(*args, m)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            return rep["headline"]

        h = verdict()
        self.assertEqual((h["verdict"], h["needs_work"]), ("needs-work", ["dtype"]))
        self.assertEqual(h["rule"]["blocked_on"],
                         ["unmapped", "rewrite", "unreadable", "source-rewrite",
                          "source-unscanned"])
        h = verdict("--blocked-on", "dtype")
        self.assertEqual((h["verdict"], h["blocking"]), ("blocked", ["dtype"]))
        self.assertEqual(h["rule"]["blocked_on"], ["dtype"])
        h = verdict("--needs-work-on", "precision")
        self.assertEqual(h["verdict"], "ready" if h["coverage"] == 1 else "needs-work")
        self.assertEqual(h["needs_work"], [])
        self.assertTrue(run("scan", "--needs-work-on", "precision", m).stdout.startswith(
            "verdict: %s" % h["verdict"].replace("-", " ")))
        for bad in (["--blocked-on", "nonsense"], ["--needs-work-on", "effort"]):
            proc = run("scan", *bad, m)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn(bad[0], proc.stderr)
        proc = run("baseline", "--blocked-on", "dtype", m)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("is an option of `opmap scan`", proc.stderr)

    def test_a_portfolio_has_a_headline_per_model_and_one_overall(self):
        out = tempfile.mkdtemp(prefix="opmap-headline-")
        self.addCleanup(shutil.rmtree, out)
        ready, blocked = model("test_relu"), model("test_loop11")
        read = self.scan_formats(out, ready, blocked)
        rep = validate(json.loads(read("json")))
        per = {m["file"]: m["headline"] for m in rep["models"]}
        self.assertEqual(per[ready]["verdict"], "ready")
        self.assertEqual(per[blocked]["verdict"], "blocked")
        h = rep["headline"]
        self.assertEqual((h["verdict"], h["models"]), ("blocked", 2))
        self.assertEqual(h["placed"], sum(p["placed"] for p in per.values()))
        self.assertEqual(h["on_npu"], sum(p["on_npu"] for p in per.values()))
        self.assertEqual(h["largest_share"], min(p["largest_share"] for p in per.values()))
        self.assertEqual(h["operators"], len([o for o in rep["portfolio"]["operators"]
                                              if o["status"] != "structural"]))
        text = read("txt")
        self.assertTrue(text.startswith("overall verdict: blocked"), text[:100])
        for path, p in per.items():
            tail = "/".join(path.split("/")[-2:])  # long paths keep their end
            line = [l for l in text.splitlines() if tail + " " in l][0]
            self.assertIn(" %s " % p["verdict"], line)
        md = read("md").replace("\\_", "_")  # Markdown escapes the paths' underscores
        self.assertIn("| %s | ready | 100%% |" % ready, md)
        self.assertIn("| %s | blocked |" % blocked, md)
        sarif = json.loads(read("sarif"))["runs"][0]["properties"]
        self.assertEqual([m["headline"]["verdict"] for m in sarif["models"]],
                         [per[m["file"]]["verdict"] for m in rep["models"]])
        self.assertTrue(read("xml").splitlines()[1].startswith("<!-- opmap overall verdict: "
                                                               "blocked"))
        self.assertIn("Overall: blocked", read("html"))
        self.assertNotIn("All models", read("html"))

    def test_text_why_lines_name_an_example_node(self):
        proc = run("scan", model("test_resize_upsample_scales_cubic"))
        why = [l for l in proc.stdout.splitlines() if l.strip().startswith("why:")]
        self.assertTrue(why)
        _, rep = scan_json(model("test_resize_upsample_scales_cubic"))
        examples = [r["example"] for o in rep["models"][0]["operators"]
                    for r in o.get("reasons", [])]
        self.assertTrue(examples)
        self.assertTrue(any(e in l for l in why for e in examples), why)

    def test_sarif_places_torchscript_findings_at_their_python_line(self):
        pt = os.path.join(HERE, "..", "fixtures", "torchscript", "controlflow.scripted.pt")
        proc = run("scan", "--format", "sarif", "--fail-on", "all", pt)
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        _, rep = scan_json(pt)
        first_line = {"%s::%s" % (o["domain"], o["op_type"]): o["locations"][0]
                      for o in rep["models"][0]["operators"] if o.get("locations")}
        placed = 0
        for res in json.loads(proc.stdout)["runs"][0]["results"]:
            loc = res["locations"][0]["physicalLocation"]
            if "relatedLocations" not in res:
                self.assertTrue(loc["artifactLocation"]["uri"].endswith(".pt"), res)
                continue
            placed += 1
            where = first_line[res["properties"]["operator"]]  # "file.py:12", as JSON says
            self.assertTrue(loc["artifactLocation"]["uri"].endswith(where.rsplit(":", 1)[0]))
            self.assertEqual(str(loc["region"]["startLine"]), where.rsplit(":", 1)[1])
            self.assertTrue(res["relatedLocations"][0]["physicalLocation"]["artifactLocation"]
                            ["uri"].endswith("controlflow.scripted.pt"))
            self.assertTrue(res["locations"][0]["logicalLocations"][0]["fullyQualifiedName"])
        self.assertGreater(placed, 0)

    def test_unpublished_apart_in_every_format(self):
        m = model("test_slice")
        proc, one = scan_json("--soc", "ascend950", m)
        proc, all_ = scan_json("--soc", "all", m)
        n = all_["models"][0]["unpublished"]["operators"]
        self.assertGreater(n, 0)
        op = all_["models"][0]["operators"][0]
        self.assertTrue(op["unpublished"])
        self.assertIn(False, [c["published"] for c in op["chips"].values()])
        # chips without a published answer never move the estimate, even where the row's
        # general answer is worse than the published one
        t = self.write("unp.yaml", "schema: 1\nsources: [{id: s, taken: t, grade: doc}]\nops:\n"
                       "  - {domain: ai.onnx, op: Relu, since: 14, status: rewrite, sources: [s],\n"
                       "     socs: {ascend910b: {status: full, sources: [s]},\n"
                       "            ascend950: {status: unknown}}}\n")
        relu = model("test_relu")
        _, a = scan_json("--table", t, "--soc", "ascend910b", relu)
        _, b = scan_json("--table", t, "--soc", "ascend910b,ascend950", relu)
        _, c = scan_json("--table", t, "--soc", "ascend950", relu)
        self.assertEqual(a["models"][0]["estimate"], b["models"][0]["estimate"])
        self.assertEqual(b["models"][0]["operators"][0]["status"], "full")
        self.assertEqual(b["models"][0]["unpublished"]["operators"], 1)
        self.assertEqual(c["models"][0]["operators"][0]["status"], "rewrite")  # all there is
        self.assertEqual(one["models"][0]["estimate"], all_["models"][0]["estimate"])
        out = os.path.join(self.tmp, "r")
        proc = run("scan", "--soc", "all", "--format", "text,json,html,markdown,csv,sarif,junit",
                   "-o", out, m)
        self.assertIn(proc.returncode, (0, 1), proc.stderr)

        def read(ext):
            with open(os.path.join(out, "opmap-report." + ext), encoding="utf-8") as f:
                return f.read()
        self.assertIn("unpublished: %d operator" % n, read("txt"))
        self.assertIn('"unpublished"', read("json"))
        self.assertIn("Unpublished chip answers", read("html"))
        self.assertIn("| Unpublished |", read("md"))
        self.assertIn(",unpublished,", read("csv").splitlines()[0])
        self.assertIn("unpublished", read("csv").splitlines()[2])  # after the headline row
        self.assertIn('"unpublishedOperators": %d' % n, read("sarif"))
        self.assertIn('name="unpublished_operators" value="%d"' % n, read("xml"))

    def test_table_lint_wants_a_source_and_grade_for_every_fact(self):
        head = ("schema: 1\nsources:\n  - {id: s, taken: t, grade: doc}\n  - {id: u, taken: t}\n"
                "ops:\n")
        row = "  - {domain: ai.onnx, op: Relu, since: 6, status: full, sources: [s]%s}\n"
        good = ", evidence: {status: {sources: [s]}}"
        cases = {
            "no evidence for the status": row % "",
            "a status citing a source without a grade":
                row % ", evidence: {status: {sources: [u]}}",
            "a constraint without a source":
                row % (good + ", constraints: [{when: {attr: a, eq: 1}, then: partial, message: m}]"),
            "a flag without evidence": row % (good + ", flags: [precision]"),
            "a dtype list without evidence": row % (good + ", dtypes: [float16]"),
            "a chip answer without a source": row % (good + ", socs: {ascend910b: {status: full}}"),
        }
        for what, text in cases.items():
            t = self.write("t.yaml", head + text)
            proc = run("table", "lint", t)
            self.assertEqual(proc.returncode, 1, what)
            self.assertIn("without a source or grade", proc.stderr, what)
        t = self.write("t.yaml", head.replace("  - {id: u, taken: t}\n", "") + row % (
            good + ", flags: [precision], evidence: {status: {sources: [s]}, "
            "flags.precision: {grade: practice, sources: [s]}}").replace(good + ", flags", ", flags"))
        proc = run("table", "lint", t)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        # a grade above every cited source's is refused by the loader itself
        t = self.write("t.yaml", head + row % ", evidence: {status: {grade: kernel, sources: [s]}}")
        self.assertInputError(run("table", "lint", t), "higher than any cited source")


# A printed TorchScript graph using aten::bitwise_left_shift, whose NPU kernel the
# built-in table gives from torch_npu 2.7 on (op-plugin's version lists), and aten::relu.
SHIFT_GRAPH = """graph(%self : __torch__.Net,
      %x.1 : Tensor):
  %2 : int = prim::Constant[value=1]()
  %y.1 : Tensor = aten::relu(%x.1)
  %z.1 : Tensor = aten::bitwise_left_shift(%y.1, %2)
  return (%z.1)
"""


class TorchNpu(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="opmap-e2e-")
        self.graph = os.path.join(self.tmp, "shift.graph.txt")
        with open(self.graph, "w") as f:
            f.write(SHIFT_GRAPH)
        # what the table says of the operator, read through the CLI, never hard-coded
        show = run("table", "show", "aten::bitwise_left_shift")
        self.assertEqual(show.returncode, 0, show.stderr)
        line = [l for l in show.stdout.splitlines() if l.strip().startswith("torch_npu:")][0]
        self.first = line.split()[1]  # "2.7 .. newest" -> "2.7"

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def op(self, report, name):
        return [o for o in report["models"][0]["operators"] if o["op_type"] == name][0]

    def test_target_before_the_kernel_changes_the_answer(self):
        proc, default = scan_json(self.graph)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        proc, old = scan_json("--torch-npu", "2.1", self.graph)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(self.op(default, "bitwise_left_shift")["status"], "full")
        shift = self.op(old, "bitwise_left_shift")
        self.assertEqual(shift["status"], "rewrite")
        self.assertIn("no NPU kernel before torch_npu %s" % self.first,
                      " ".join(r["message"] for r in shift["reasons"]))
        self.assertEqual(self.op(old, "relu")["status"], self.op(default, "relu")["status"])
        self.assertEqual(old["torch_npu"]["target"], "2.1")
        self.assertEqual(default["torch_npu"]["target"], "")
        self.assertGreater(old["totals"]["by_status"]["rewrite"]["operators"],
                           default["totals"]["by_status"]["rewrite"]["operators"])
        # the gate sees it: --fail-on rewrite fails at 2.1 only
        self.assertEqual(run("scan", "--fail-on", "rewrite", self.graph).returncode, 0)
        self.assertEqual(run("scan", "--fail-on", "rewrite", "--torch-npu", "2.1",
                             self.graph).returncode, 1)
        # a release of the kernel's line has it
        proc, rc = scan_json("--torch-npu", "v%s.0rc1" % self.first, self.graph)
        self.assertEqual(self.op(rc, "bitwise_left_shift")["status"], "full")

    def test_every_format_states_the_minimum(self):
        proc, rep = scan_json(self.graph)
        self.assertEqual(rep["torch_npu"]["needed"], self.first)
        self.assertEqual(rep["torch_npu"]["needed_by"], "aten::bitwise_left_shift")
        self.assertEqual(rep["models"][0]["torch_npu"],
                         {"needed": self.first, "needed_by": "aten::bitwise_left_shift"})
        for fmt in ("text", "html", "markdown", "csv", "sarif", "junit"):
            proc = run("scan", "--torch-npu", "2.1", "--format", fmt, self.graph)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertIn(self.first, proc.stdout, fmt)
            self.assertIn("2.1", proc.stdout, fmt)
        text = run("scan", self.graph).stdout
        self.assertIn("needs %s or later (aten::bitwise_left_shift)" % self.first, text)
        junit = run("scan", "--format", "junit", self.graph).stdout
        self.assertIn('<property name="torch_npu_needed" value="%s"/>' % self.first, junit)
        sarif = json.loads(run("scan", "--format", "sarif", self.graph).stdout)
        props = sarif["runs"][0]["invocations"][0]["properties"]["torch_npu"]
        self.assertEqual(props["needed"], self.first)
        csv_lines = run("scan", "--format", "csv", self.graph).stdout.splitlines()
        self.assertTrue(csv_lines[0].endswith(",torch_npu_target,model_torch_npu_min,mode"))
        # csv_lines[1] is the overall headline row: verdict and coverage, no other cell
        self.assertTrue(all(l.endswith(',"","%s",eager' % self.first) for l in csv_lines[2:]))

    def test_portfolio_minimum_per_model_and_overall(self):
        proc, rep = scan_json(self.graph, model("test_relu"))
        self.assertEqual(rep["torch_npu"]["needed"], self.first)
        self.assertTrue(rep["torch_npu"]["needed_by_model"].endswith("shift.graph.txt"))
        onnx = [m for m in rep["models"] if m["file"].endswith(".onnx")][0]
        self.assertEqual(onnx["torch_npu"], {"needed": "", "needed_by": ""})
        text = run("scan", self.graph, model("test_relu")).stdout
        self.assertIn("the models need %s or later" % self.first, text)

    def test_bad_versions_and_cann_are_usage_errors(self):
        proc = run("scan", "--torch-npu", "2.x", self.graph)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("is not a torch_npu version", proc.stderr)
        proc = run("scan", "--cann", "8.0", self.graph)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("no per-operator CANN version ranges", proc.stderr)

    def test_table_diff(self):
        proc = run("table", "diff", "--torch-npu", "2.1", self.first)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("aten::bitwise_left_shift", proc.stdout)
        proc = run("table", "diff", "--format", "json", "--torch-npu", "2.1", self.first)
        diff = json.loads(proc.stdout)
        gained = {(r["domain"], r["op"]) for r in diff["gained"]}
        self.assertIn(("aten", "bitwise_left_shift"), gained)
        back = json.loads(run("table", "diff", "--format", "json", "--torch-npu", self.first,
                              "2.1").stdout)
        self.assertEqual({(r["domain"], r["op"]) for r in back["lost"]}, gained)
        self.assertEqual({(r["domain"], r["op"]) for r in back["gained"]},
                         {(r["domain"], r["op"]) for r in diff["lost"]})
        # the same version twice changes nothing
        same = json.loads(run("table", "diff", "--format", "json", "--torch-npu", "2.6",
                              "2.6.0.post1").stdout)
        self.assertEqual((same["gained"], same["lost"]), ([], []))
        self.assertEqual(run("table", "diff", "--torch-npu", "2.1", "nope").returncode, 2)
        self.assertEqual(run("table", "diff", "2.1", "2.6").returncode, 2)


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask



class NextCommands(unittest.TestCase):
    """--soc with a part, the ATC command (text, JSON), dynamic dims, torch_npu, next steps."""

    CONV = model("test_conv_with_strides_padding")
    TS = os.path.join(HERE, "..", "fixtures", "torchscript", "controlflow.scripted.pt")

    def test_part_name_any_case(self):
        for name in ("Ascend910B3", "ascend910b3", "ASCEND910B3"):
            proc, rep = scan_json("--soc", name, self.CONV)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertEqual(rep["chips"], ["ascend910b"])
            self.assertEqual(rep["socs"][0]["family"], "ascend910b")
            self.assertEqual(rep["socs"][0]["part"], "Ascend910B3")
            atc = rep["models"][0]["next"]["atc"][0]
            self.assertEqual(atc["flags"]["soc_version"], "Ascend910B3")
            self.assertIn("--soc_version=Ascend910B3", atc["command"])
            self.assertEqual(atc["flags"]["framework"], "5")
        text = run("scan", "--soc", "ascend910b3", self.CONV).stdout
        self.assertIn("ascend910b (Ascend910B3)", text)
        self.assertIn("--soc_version=Ascend910B3", text)

    def test_family_gives_placeholder_and_parts(self):
        proc, rep = scan_json("--soc", "ascend910b", self.CONV)
        atc = rep["models"][0]["next"]["atc"][0]
        self.assertIsNone(atc["soc_version"])
        self.assertIn("--soc_version=$SOC_VERSION", atc["command"])
        self.assertIn("Ascend910B3", atc["soc_versions"])
        self.assertIn("Ascend910B3", atc["notes"])
        self.assertIsNone(rep["socs"][0]["part"])

    def test_unknown_part(self):
        proc = run("scan", "--soc", "Ascend910B9", self.CONV)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("unknown chip 'Ascend910B9'", proc.stderr)

    def test_dynamic_dims(self):
        import onnx
        from onnx import helper, TensorProto
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        cases = ((["N", 3, 8, 8], "--dynamic_batch_size", "x:-1,3,8,8"),
                 ([1, 3, "H", "W"], "--dynamic_image_size", "x:1,3,-1,-1"),
                 ([1, "T", 8, 8], "--dynamic_dims", "x:1,-1,8,8"))
        for shape, flag, want in cases:
            g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])
            path = os.path.join(d, "m.onnx")
            onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), path)
            proc, rep = scan_json("--soc", "Ascend310P3", path)
            atc = rep["models"][0]["next"]["atc"][0]
            self.assertEqual(atc["flags"]["input_shape"], want)
            self.assertEqual(atc["profile_flag"], flag)
            self.assertEqual(atc["dynamic_dims"], sum(1 for x in shape if isinstance(x, str)))
            self.assertIn(flag, atc["notes"])

    def test_torchscript_migration(self):
        proc, rep = scan_json(self.TS)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        steps = rep["models"][0]["next"]["torch_npu"]
        self.assertEqual(rep["models"][0]["next"]["atc"], [])
        self.assertTrue(any("import torch_npu" in x for x in steps))
        self.assertTrue(any("transfer_to_npu" in x for x in steps))
        self.assertTrue(any(".npu()" in x and "torch.jit.load" in x for x in steps))
        for fmt in ("text", "markdown", "html"):
            out = run("scan", "--format", fmt, self.TS).stdout
            self.assertIn("import torch_npu", out, fmt)
            self.assertIn("transfer_to_npu", out, fmt)

    def test_pasted_steps_keep_a_strange_file_name(self):
        """A file name with a quote, a backslash and a space stays one Python string in the
        torch_npu step and one shell word in the ATC command (both are pasted)."""
        with tempfile.TemporaryDirectory() as d:
            ts = os.path.join(d, 'we"ird \\name.pt')
            os.symlink(os.path.abspath(self.TS), ts)
            onnx = os.path.join(d, "it's here.onnx")
            os.symlink(model("test_relu"), onnx)
            proc, rep = scan_json(ts, onnx)
            steps = rep["models"][0]["next"]["torch_npu"]
            load = [x for x in steps if "torch.jit.load" in x][0]
            literal = load[load.index("torch.jit.load(") + len("torch.jit.load("):load.index(").npu()")]
            self.assertEqual(ast.literal_eval(literal), ts)
            cmd = rep["models"][1]["next"]["atc"][0]["command"]
            self.assertEqual(shlex.split(cmd)[1], "--model=" + onnx)

    def test_next_step_never_empty(self):
        proc, rep = scan_json(self.TS, self.CONV, "--soc", "all")
        for m in rep["models"]:
            for op in m["operators"]:
                if op["status"] in ("partial", "rewrite", "unmapped"):
                    self.assertTrue(op.get("next_step"), op["op_type"])
        md = run("scan", "--format", "markdown", self.TS, "--soc", "all").stdout
        for line in md.splitlines():
            if line.startswith("| ") and line.count("|") == 7 and "Status" not in line:
                self.assertNotEqual(line.rsplit("|", 2)[1].strip(), "", line)

if __name__ == "__main__":
    OPMAP = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=1)
