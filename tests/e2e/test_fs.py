#!/usr/bin/python3
"""What the file system does to a scan: directory walks through link loops, a model that
changes while it is read, and model paths spelled several ways (baselines, waivers).

Usage: test_fs.py OPMAP_BINARY   (run by ctest)
"""
import csv
import io
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

OPMAP = None
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
RELU = os.path.join(TESTDATA, "node", "test_relu", "model.onnx")


def run(*args, cwd=None, timeout=300):
    # the timeout only catches a hang (these runs take milliseconds)
    return subprocess.run([OPMAP] + list(args), capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, env=dict(os.environ, OPMAP_TODAY="2026-06-01"))


def csv_models(out):
    """The model column of a CSV report, one entry per operator row (the headline row, the
    first, has none)."""
    return [row["model"] for row in csv.DictReader(io.StringIO(out)) if row["model"]]


class Walk(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="opmap-fs-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_two_links_to_itself_list_the_model_once(self):
        d = os.path.join(self.tmp, "m")
        os.mkdir(d)
        shutil.copy(RELU, os.path.join(d, "x.onnx"))
        os.symlink(".", os.path.join(d, "a"))
        os.symlink(".", os.path.join(d, "b"))
        proc = run("scan", "--format", "csv", d)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(csv_models(proc.stdout), [os.path.join(d, "x.onnx")])
        for link in ("a", "b"):
            self.assertIn("note: %s: already searched as %s" % (os.path.join(d, link), d),
                          proc.stderr)

    def test_a_loop_further_down_ends(self):
        d = os.path.join(self.tmp, "m")
        deep = os.path.join(d, "sub", "deep")
        os.makedirs(deep)
        shutil.copy(RELU, os.path.join(d, "x.onnx"))
        shutil.copy(RELU, os.path.join(deep, "y.onnx"))
        os.symlink("../..", os.path.join(deep, "up"))       # back to m
        os.symlink("../../sub", os.path.join(deep, "side"))  # back to m/sub
        os.symlink(deep, os.path.join(d, "z"))               # deep again, absolute
        proc = run("scan", "--format", "csv", d, os.path.join(d, "sub"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(csv_models(proc.stdout),
                         [os.path.join(deep, "y.onnx"), os.path.join(d, "x.onnx")])
        self.assertEqual(proc.stderr.count("not searched again"), 4, proc.stderr)

    def test_a_directory_named_twice_is_not_an_empty_one(self):
        d = os.path.join(self.tmp, "m")
        os.mkdir(d)
        shutil.copy(RELU, os.path.join(d, "x.onnx"))
        proc = run("scan", "--format", "csv", d, d + "/")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(csv_models(proc.stdout), [os.path.join(d, "x.onnx")])

    def test_too_deep_is_an_error_not_a_silent_skip(self):
        d = os.path.join(self.tmp, "m")
        deep = os.path.join(d, *["d"] * 70)
        os.makedirs(deep)
        shutil.copy(RELU, os.path.join(deep, "x.onnx"))
        proc = run("scan", d)
        self.assertEqual(proc.returncode, 3, proc.stderr)
        self.assertIn("nested deeper than 64 levels", proc.stderr)


def unmapped_model(path):
    import onnx
    from onnx import TensorProto, helper
    node = helper.make_node("Mystery", ["x"], ["y"], name="m0", domain="com.example")
    graph = helper.make_graph([node], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                      helper.make_opsetid("com.example", 1)]),
              path)


def weights_model(path, floats, relus):
    """`relus` Relu nodes after an Add with an initializer of `floats` float32 values."""
    import onnx
    from onnx import TensorProto, helper
    w = helper.make_tensor("w", TensorProto.FLOAT, [floats], b"\x01\x00\x80\x3f" * floats,
                           raw=True)
    nodes = [helper.make_node("Add", ["x", "w"], ["t0"], name="add")]
    for i in range(relus):
        out = "y" if i == relus - 1 else "t%d" % (i + 1)
        nodes.append(helper.make_node("Relu", ["t%d" % i], [out], name="relu%d" % i))
    graph = helper.make_graph(nodes, "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [floats])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [floats])],
                              initializer=[w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


class Shrinking(unittest.TestCase):
    """A model truncated and rewritten while opmap reads it: a clean scan or exit 3 with a
    message, never a signal (a mapped file that shrinks ends in SIGBUS)."""

    RUNS = 150

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="opmap-fs-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def churn(self, path, stop):
        with open(path, "rb") as f:
            data = f.read()
        rng = random.Random(16)
        fd = os.open(path, os.O_WRONLY)
        try:
            while not stop.is_set():
                os.ftruncate(fd, rng.randrange(len(data)))
                os.pwrite(fd, data, 0)
        finally:
            os.close(fd)

    def scan_while_churning(self, floats, relus):
        path = os.path.join(self.tmp, "m.onnx")
        weights_model(path, floats, relus)
        stop = threading.Event()
        t = threading.Thread(target=self.churn, args=(path, stop))
        t.start()
        codes = {}
        try:
            for _ in range(self.RUNS):
                proc = run("scan", "-q", path)
                codes[proc.returncode] = codes.get(proc.returncode, 0) + 1
                self.assertIn(proc.returncode, (0, 3), proc.stderr)
                if proc.returncode == 3:
                    self.assertEqual(proc.stderr.count("\n"), 1, proc.stderr)
                    self.assertIn(path, proc.stderr)
        finally:
            stop.set()
            t.join()
        print("\n%d floats, %d nodes: exit codes %s" % (floats, relus, codes), file=sys.stderr)

    def test_a_large_model_read_lazily(self):
        # 3 MB of nodes, 4 MB of weights: read in chunks, truncated while the nodes are read
        self.scan_while_churning(1 << 20, 100000)

    def test_a_small_model_read_whole(self):
        self.scan_while_churning(8 << 10, 10)  # 32 KB: read in one go


class Spellings(unittest.TestCase):
    """A baseline or waiver matches a model however its path is spelled (docs/ci.md)."""

    def setUp(self):
        self.tmp = os.path.realpath(tempfile.mkdtemp(prefix="opmap-fs-"))
        os.mkdir(os.path.join(self.tmp, "models"))
        self.abs = os.path.join(self.tmp, "models", "a.onnx")
        unmapped_model(self.abs)
        self.spellings = ["models/a.onnx", "./models/a.onnx", "models//a.onnx",
                          "models/../models/./a.onnx", self.abs, "./models"]

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def baseline(self, spelling):
        proc = run("baseline", "-o", "w.yaml", spelling, cwd=self.tmp)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(self.tmp, "w.yaml")) as f:
            return f.read()

    def test_a_baseline_matches_every_spelling(self):
        self.assertEqual(run("scan", "models/a.onnx", cwd=self.tmp).returncode, 1)
        for written in self.spellings:
            text = self.baseline(written)
            self.assertIn('model: "models/a.onnx"', text, written)
            for checked in self.spellings:
                with self.subTest(written=written, checked=checked):
                    proc = run("scan", "--waivers", "w.yaml", checked, cwd=self.tmp)
                    self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_waiver_patterns_are_spelled_the_same_way(self):
        for pattern in ["./models/*.onnx", self.tmp + "/models/a.onnx", "models//a.*"]:
            with open(os.path.join(self.tmp, "w.yaml"), "w") as f:
                f.write('schema: 1\nwaivers:\n  - {op: "com.example::Mystery", model: "%s", '
                        'reason: r, owner: o, expires: "2030-01-01"}\n' % pattern)
            for checked in self.spellings:
                with self.subTest(pattern=pattern, checked=checked):
                    proc = run("scan", "--waivers", "w.yaml", checked, cwd=self.tmp)
                    self.assertEqual(proc.returncode, 0, proc.stderr)

    def test_paths_are_relative_to_the_working_directory(self):
        self.baseline("models/a.onnx")
        # from models/, the same file is "a.onnx": the baseline says "models/a.onnx"
        proc = run("scan", "--waivers", "../w.yaml", "a.onnx",
                   cwd=os.path.join(self.tmp, "models"))
        self.assertEqual(proc.returncode, 1, proc.stderr)


if __name__ == "__main__":
    OPMAP = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
