"""Tests of the Python binding (python/opmap), run by ctest with Debian's /usr/bin/python3:

    OPMAP_LIBRARY=build/src/libopmap.so OPMAP_CLI=build/opmap PYTHONPATH=python \\
        /usr/bin/python3 -m unittest discover -s python/tests

What the binding returns must equal what the CLI writes for the same models (the parsed
JSON report, text and the other formats byte for byte), and errors must carry the library's
own message, code and location.
"""
import errno
import json
import os
import subprocess
import tempfile
import threading
import unittest

import opmap

CLI = os.environ.get("OPMAP_CLI", "opmap")
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
HERE = os.path.dirname(os.path.abspath(__file__))
SMALL_TABLE = os.path.normpath(os.path.join(HERE, "..", "..", "tests", "fixtures", "tables",
                                            "small.yaml"))


def model(kind, name):
    return os.path.join(TESTDATA, kind, name, "model.onnx")


FIXTURES = os.path.normpath(os.path.join(HERE, "..", "..", "tests", "fixtures", "torchscript"))
ONNX_MODEL = model("pytorch-operator", "test_operator_basic")
IF_MODEL = model("node", "test_if")
MODELS = [os.path.join(FIXTURES, "efficientnet_b0.traced.pt"),
          os.path.join(FIXTURES, "resnet18.scripted.pt"),
          model("pytorch-operator", "test_operator_basic"),
          model("pytorch-converted", "test_Conv2d"),
          model("node", "test_if"),
          model("node", "test_loop11"),
          model("node", "test_layer_normalization_4d_axis_negative_1_expanded")]


def cli(*args, ok=(0, 1)):
    proc = subprocess.run([CLI] + list(args), capture_output=True)
    if proc.returncode not in ok:
        raise AssertionError("opmap %s exited %d: %s" % (" ".join(args), proc.returncode,
                                                          proc.stderr.decode()))
    return proc


def cli_json(*args):
    return json.loads(cli("scan", "--format", "json", *args).stdout)


def cli_error(*args):
    """The CLI's one-line error for a failing command, without its "opmap: " prefix."""
    proc = cli(*args, ok=(2, 3))
    lines = proc.stderr.decode().strip().splitlines()
    return lines[0][len("opmap: "):] if lines and lines[0].startswith("opmap: ") else ""


class Scan(unittest.TestCase):
    def test_one_model_equals_cli(self):
        for m in MODELS:
            with self.subTest(model=m):
                self.assertEqual(opmap.scan(m), cli_json(m))

    def test_several_models_equal_cli(self):
        got = opmap.scan(MODELS)
        self.assertEqual(got, cli_json(*MODELS))
        self.assertIn("portfolio", got)
        self.assertEqual([m["file"] for m in got["models"]], MODELS)

    def test_sources_equal_cli(self):
        """A project of Python sources gives the report `opmap scan DIR` gives."""
        proj = os.path.join(HERE, "..", "..", "tests", "data", "python-projects", "nanogpt")
        proj = os.path.normpath(proj)
        files = sorted(os.path.join(proj, f) for f in os.listdir(proj) if f.endswith(".py"))
        got = opmap.scan(MODELS[0], sources={proj: files})
        self.assertEqual(got, cli_json(MODELS[0], proj))
        self.assertEqual(got["models"][1]["format"], "python")
        ops = {o["op_type"] for o in got["models"][1]["operators"]}
        self.assertTrue({"string-nccl", "torch-cuda-amp", "cudnn-flags"} <= ops, ops)
        self.assertEqual(opmap.report([], sources={proj: files}), cli("scan", proj).stdout.decode())

    def test_path_like(self):
        import pathlib
        self.assertEqual(opmap.scan(pathlib.Path(MODELS[0])), cli_json(MODELS[0]))

    def test_chips(self):
        self.assertEqual(opmap.scan(MODELS[0], soc="all"), cli_json("--soc", "all", MODELS[0]))
        two = ["ascend910b", "ascend310p"]
        got = opmap.scan(MODELS[0], soc=two)
        self.assertEqual(got, cli_json("--soc", ",".join(two), MODELS[0]))
        self.assertEqual(got["chips"], two)
        self.assertEqual(opmap.scan(MODELS[0], soc="ascend310p"),
                         cli_json("--soc", "ascend310p", MODELS[0]))
        # an exact part, and a torch_npu version to answer for, as the CLI takes them
        got = opmap.scan(MODELS[0], soc="Ascend910B3", torch_npu="2.1")
        self.assertEqual(got, cli_json("--soc", "Ascend910B3", "--torch-npu", "2.1", MODELS[0]))
        self.assertEqual(got["socs"][0]["part"], "Ascend910B3")
        self.assertEqual(got["torch_npu"]["target"], "2.1")
        # graph mode (torch.compile with torchair), as --mode graph
        got = opmap.scan(MODELS[0], mode="graph")
        self.assertEqual(got, cli_json("--mode", "graph", MODELS[0]))
        self.assertEqual(got["mode"], "graph")
        self.assertEqual(opmap.scan(MODELS[0])["mode"], "eager")
        with self.assertRaises(opmap.InvalidArgument):
            opmap.scan(MODELS[0], mode="compiled")
        # the training workload, as --workload training
        got = opmap.scan(MODELS[0], workload="training")
        self.assertEqual(got, cli_json("--workload", "training", MODELS[0]))
        self.assertEqual(got["workload"], "training")
        self.assertEqual(opmap.scan(MODELS[0])["workload"], "inference")
        with self.assertRaises(opmap.InvalidArgument):
            opmap.scan(MODELS[0], workload="finetune")

    def test_table_file_and_object(self):
        want = cli_json("--table", SMALL_TABLE, IF_MODEL)
        self.assertEqual(opmap.scan(IF_MODEL, table=SMALL_TABLE), want)
        with opmap.Table(SMALL_TABLE) as t:
            self.assertEqual(opmap.scan(IF_MODEL, table=t), want)
            self.assertEqual(opmap.scan(IF_MODEL, table=t), want)  # the table is reusable

    def test_text_and_other_formats_equal_cli(self):
        self.assertEqual(opmap.report(MODELS[0]), cli("scan", MODELS[0]).stdout.decode())
        for fmt in ("json", "html", "markdown", "csv", "sarif", "junit", "atc-precheck"):
            proc = subprocess.run([CLI, "scan", "--format", fmt, MODELS[0]], capture_output=True)
            if proc.returncode == 2:
                continue  # a format this build's CLI does not write (yet)
            with self.subTest(format=fmt):
                self.assertEqual(opmap.report(MODELS[0], format=fmt), proc.stdout.decode())

    def test_threads(self):
        """Scans in parallel threads (the GIL is released in the library) agree."""
        want = opmap.scan(MODELS)
        got, errors = [None] * 6, []

        def work(i):
            try:
                got[i] = opmap.scan(MODELS)
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)
        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(got))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(got, [want] * len(got))


class Formats(unittest.TestCase):
    def test_registry_and_detect(self):
        names = [f["name"] for f in opmap.formats()]
        self.assertEqual(names, ["onnx", "torchscript", "torchscript-graph", "torch-export",
                                 "python"])
        self.assertIn("atc", opmap.formats()[0]["traits"])
        self.assertEqual(opmap.format_detect("dir/m.ONNX"), "onnx")
        self.assertEqual(opmap.format_detect("train.py"), "python")
        self.assertIsNone(opmap.format_detect("weights.bin"))
        with tempfile.TemporaryDirectory() as tmp:
            g = os.path.join(tmp, "g.txt")
            with open(g, "w") as f:
                f.write("graph(%x : Float(2)):\n")
            self.assertEqual(opmap.format_detect(g), "torchscript-graph")
            self.assertIsNone(opmap.format_detect(g, name_only=True))


class Estimate(unittest.TestCase):
    def test_one_model(self):
        rep = opmap.scan(MODELS[0])
        est = opmap.estimate(rep)
        want = rep["models"][0]["estimate"]
        for k in ("min", "expected", "max"):
            self.assertEqual(est[k], want[k])
            self.assertEqual(est["separately"][k], want[k])
        self.assertEqual(est["unit"], "person-days")
        self.assertEqual(est["models"], [dict(file=MODELS[0], **{k: want[k] for k in
                                                                 ("min", "expected", "max")})])

    def test_portfolio_from_report_and_from_library(self):
        rep = opmap.scan(MODELS)
        from_report = opmap.estimate(rep)
        for k in ("min", "expected", "max"):
            self.assertEqual(from_report[k], rep["portfolio"]["estimate"][k])
            self.assertEqual(from_report["separately"][k], rep["portfolio"]["separately"][k])
        # the same numbers straight from the C API (opmap_portfolio_estimate)
        self.assertEqual(opmap.estimate(MODELS), from_report)

    def test_shared_operators_counted_once(self):
        est = opmap.estimate([MODELS[0], MODELS[0]])
        self.assertEqual(est["expected"], est["models"][0]["expected"])
        self.assertEqual(est["separately"]["expected"], 2 * est["models"][0]["expected"])


class TableLookup(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.table = opmap.Table()

    @classmethod
    def tearDownClass(cls):
        cls.table.close()

    def test_facts(self):
        t = self.table
        self.assertEqual(t.origin, "built-in")
        lint = cli("table", "lint").stdout.decode()  # "built-in: ok, N rows, M sources"
        self.assertIn("ok, %d rows, %d sources" % (len(t), len(t.sources())), lint)
        self.assertIn(t.default_soc, t.socs)
        self.assertEqual(opmap.scan(MODELS[0])["table"]["name"], t.name)
        w = t.weights("rewrite")
        self.assertLessEqual(w["min"], w["expected"])
        self.assertLessEqual(w["expected"], w["max"])
        self.assertEqual(t.weights("structural"), {"min": 0, "expected": 0, "max": 0})

    def test_rows_agree_with_the_report(self):
        """lookup(domain, op_type, opset) is the row the scan used for each operator."""
        rep = opmap.scan(MODELS)
        seen = 0
        for m in rep["models"]:
            for op in m["operators"]:
                row = self.table.lookup(op["domain"], op["op_type"], op["opset"])
                if op["status"] == "unmapped" and op["since_version"] is None:
                    self.assertIsNone(row)
                    continue
                seen += 1
                self.assertIsNotNone(row, op)
                self.assertEqual(row["since"], op["since_version"] or 0)  # 0: unversioned
                self.assertEqual(row["sources"], op["sources"])
                self.assertEqual(row["op"], op["op_type"])
                self.assertEqual(row["notes"], op.get("notes", ""))
                if "ascend" in op:
                    self.assertEqual(row["ascend_op"], op["ascend"].get("op", ""))
                self.assertLessEqual(set(row["socs"]), set(self.table.socs))
        self.assertGreater(seen, 5)

    def test_unmapped_is_none(self):
        self.assertIsNone(self.table.lookup("com.example.nowhere", "NoSuchOp", 1))
        self.assertIsNone(self.table.lookup("ai.onnx", "NoSuchOp", 17))

    def test_row_shape(self):
        row = self.table.lookup("ai.onnx", "Conv", 17)
        self.assertEqual(row["domain"], "ai.onnx")
        self.assertIn(row["status"], opmap.STATUSES)
        self.assertLessEqual(row["since"], 17)
        for chip, answer in row["socs"].items():
            self.assertIn(answer["status"], opmap.STATUSES + ("unknown",))
        self.assertIsInstance(row["flags"], list)
        self.assertIsInstance(row["constraints"], list)
        self.assertGreater(row["line"], 0)
        self.assertEqual(self.table.lookup("", "Conv", 17), row)  # "" is ai.onnx

    def test_graph_answer(self):
        """An ATen row's graph-mode answer (torchair's converters); none on ONNX rows."""
        self.assertIsNone(self.table.lookup("ai.onnx", "Conv", 17)["graph"])
        roll = self.table.lookup("aten", "roll")["graph"]
        self.assertEqual(roll["status"], "stub")
        self.assertTrue(roll["where"].startswith("python/torchair/"))
        self.assertEqual(self.table.lookup("aten", "add_")["graph"]["via"], "add")

    def test_every_row(self):
        rows = list(self.table.rows())
        self.assertEqual(len(rows), len(self.table))
        self.assertEqual(rows[0]["line"], min(r["line"] for r in rows))

    def test_small_table_from_file_and_memory(self):
        with open(SMALL_TABLE, "rb") as f:
            data = f.read()
        with opmap.Table(SMALL_TABLE) as a, opmap.Table(data=data, name="small.yaml") as b:
            self.assertEqual(a.origin, SMALL_TABLE)
            self.assertEqual(b.origin, "small.yaml")
            self.assertEqual(a.name, "e2e test table")
            ra, rb = a.lookup("ai.onnx", "Add", 14), b.lookup("ai.onnx", "Add", 14)
            self.assertEqual(ra, rb)
            self.assertEqual((ra["status"], ra["since"], ra["hint"]),
                             ("partial", 14, "check broadcasting"))
            self.assertEqual(a.lookup("ai.onnx", "Add", 13)["since"], 7)
            self.assertIsNone(a.lookup("ai.onnx", "Add", 6))
        with self.assertRaises(ValueError):
            a.lookup("ai.onnx", "Add", 14)  # closed


class Errors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="opmap-py-")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, data):
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return path

    def test_missing_model(self):
        path = os.path.join(self.tmp.name, "nope.onnx")
        with self.assertRaises(opmap.FileError) as cm:
            opmap.scan(path)
        e = cm.exception
        self.assertIsInstance(e, opmap.Error)
        self.assertIsInstance(e, OSError)
        self.assertEqual(e.code, -3)
        self.assertEqual(e.sys_errno, errno.ENOENT)
        self.assertEqual(e.errno, errno.ENOENT)
        self.assertEqual(e.source, path)
        self.assertIsNone(e.offset)
        self.assertTrue(str(e).startswith(path + ": "), str(e))
        self.assertIn(os.strerror(errno.ENOENT), str(e))

    def test_malformed_model_has_library_message(self):
        path = self.write("random.onnx", bytes(range(256)) * 8)
        with self.assertRaises(opmap.Error) as cm:
            opmap.scan(path)
        e = cm.exception
        self.assertIn(type(e), (opmap.FormatError, opmap.UnsupportedError))
        self.assertEqual(str(e), cli_error("scan", path))
        self.assertEqual(e.source, path)

    def test_truncated_model_has_offset(self):
        with open(ONNX_MODEL, "rb") as f:
            data = f.read()
        path = self.write("cut.onnx", data[:len(data) // 2])
        with self.assertRaises(opmap.FormatError) as cm:
            opmap.scan(path)
        e = cm.exception
        self.assertIsNotNone(e.offset)
        self.assertIn("offset %d" % e.offset, str(e))
        self.assertEqual(str(e), cli_error("scan", path))

    def test_yaml_syntax_error_has_line_and_column(self):
        t = self.write("t.yaml", "schema: 1\nops:\n  - {domain: ai.onnx\n")
        with self.assertRaises(opmap.FormatError) as cm:
            opmap.Table(t)
        e = cm.exception
        self.assertGreater(e.line, 0)
        self.assertGreater(e.column, 0)
        self.assertTrue(str(e).startswith("%s:%d:%d: " % (t, e.line, e.column)), str(e))
        self.assertEqual(str(e), cli_error("table", "lint", t))
        with self.assertRaises(opmap.FormatError):
            opmap.scan(MODELS[0], table=t)

    def test_schema_error_has_line_and_column(self):
        t = self.write("t.yaml", "schema: 1\nops:\n  - {domain: ai.onnx, op: Relu, since: 1,"
                                 " stauts: full}\n")
        with self.assertRaises(opmap.TableError) as cm:
            opmap.Table(t)
        e = cm.exception
        self.assertEqual((e.code, e.status), (-6, "invalid table"))
        self.assertEqual(e.line, 3)
        self.assertGreater(e.column, 0)
        self.assertEqual(str(e), cli_error("table", "lint", t))
        self.assertEqual(str(e), cli_error("scan", "--table", t, MODELS[0]))

    def test_missing_table(self):
        t = os.path.join(self.tmp.name, "none.yaml")
        with self.assertRaises(opmap.FileError) as cm:
            opmap.Table(t)
        self.assertEqual(cm.exception.sys_errno, errno.ENOENT)
        self.assertEqual(str(cm.exception), cli_error("scan", "--table", t, MODELS[0]))

    def test_unknown_chip(self):
        with self.assertRaises(opmap.InvalidArgument) as cm:
            opmap.scan(MODELS[0], soc="ascend999")
        self.assertIsInstance(cm.exception, ValueError)
        self.assertEqual(str(cm.exception), cli_error("scan", "--soc", "ascend999", MODELS[0]))

    def test_unknown_format(self):
        with self.assertRaises(opmap.InvalidArgument):
            opmap.report(MODELS[0], format="pdf")

    def test_no_models(self):
        with self.assertRaises(opmap.InvalidArgument):
            opmap.scan([])


class Library(unittest.TestCase):
    def test_version_matches_cli(self):
        self.assertEqual("opmap " + opmap.version(), cli("--version").stdout.decode().strip())

    def test_library_path(self):
        want = os.environ.get("OPMAP_LIBRARY")
        if want:
            self.assertEqual(opmap.library_path(), os.path.realpath(want))

    def test_struct_layouts_match_the_headers(self):
        """The ctypes mirrors of the public structs have the C layout (sizes, offsets)."""
        cc, inc = os.environ.get("OPMAP_CC"), os.environ.get("OPMAP_INCLUDE")
        if not (cc and inc):
            self.skipTest("OPMAP_CC and OPMAP_INCLUDE not set")
        mirrors = {"opmap_error": opmap._Err, "opmap_scan_options": opmap._ScanOptions,
                   "opmap_effort": opmap._Effort, "opmap_summary": opmap._Summary,
                   "opmap_source_info": opmap._SourceInfo,
                   "opmap_row_soc_info": opmap._RowSocInfo,
                   "opmap_row_graph_info": opmap._RowGraphInfo}
        lines = []
        for cname, py in mirrors.items():
            lines.append('printf("%s %%zu\\n", sizeof(%s));' % (cname, cname))
            for field, _ in py._fields_:
                lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));'
                             % (cname, field, cname, field))
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "layout.c")
            with open(src, "w") as f:
                f.write("#include <stddef.h>\n#include <stdio.h>\n#include <opmap/opmap.h>\n"
                        "int main(void) {\n%s\nreturn 0;\n}\n" % "\n".join(lines))
            exe = os.path.join(d, "layout")
            subprocess.run([cc, "-std=c99", "-I", inc, src, "-o", exe], check=True)
            out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
        import ctypes
        want = dict(l.split() for l in out.splitlines())
        for cname, py in mirrors.items():
            self.assertEqual(int(want[cname]), ctypes.sizeof(py), cname)
            for field, _ in py._fields_:
                self.assertEqual(int(want["%s.%s" % (cname, field)]), getattr(py, field).offset,
                                 "%s.%s" % (cname, field))
        self.assertEqual(opmap._ScanOptions().version, 0)
        self.assertIn("OPMAP_SCAN_OPTIONS_VERSION 4",
                      open(os.path.join(inc, "opmap", "scan.h")).read())


if __name__ == "__main__":
    unittest.main()
