#!/usr/bin/python3
"""What the file system does to a scan: directory walks through link loops, a model that
changes while it is read, and model paths spelled several ways (baselines, waivers).

Usage: test_fs.py OPMAP_BINARY   (run by ctest)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

OPMAP = None
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
RELU = os.path.join(TESTDATA, "node", "test_relu", "model.onnx")


def run(*args, cwd=None, timeout=300):
    # the timeout only catches a hang (these runs take milliseconds)
    return subprocess.run([OPMAP] + list(args), capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, env=dict(os.environ, OPMAP_TODAY="2026-06-01"))


def csv_models(out):
    """The model column of a CSV report, one entry per operator row."""
    return [line.split(",")[0].strip('"') for line in out.splitlines()[1:]]


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


if __name__ == "__main__":
    OPMAP = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
