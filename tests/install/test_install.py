#!/usr/bin/python3
"""The installed tree: `cmake --install` into a temporary prefix, which is then moved
elsewhere (so anything that remembered the first prefix breaks), and used from there.

Usage: test_install.py PART   (run by ctest, one PART per test)
  layout        every file in its usual place; headers and table identical to the source;
                no path of the first prefix or the build tree left anywhere; the man page
                renders without warnings
  cli           the installed opmap runs from the moved tree with its own library, scans a
                real model exactly like the build tree's, honours --table
  pkgconfig     the example builds with pkg-config (shared, and static with --static) and
                runs on a real model, agreeing with the CLI's JSON
  find_package  the same with CMake's find_package(opmap) (opmap::opmap, opmap::opmap_static);
                the version file refuses another major version
  python        the installed binding finds the moved tree's library by itself and agrees
                with the CLI's JSON

Everything happens under a temporary directory, never in the system's prefixes.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ENV = os.environ
BUILD = ENV.get("OPMAP_BUILD_DIR", "")
SOURCE = ENV.get("OPMAP_SOURCE_DIR", "")
CLI = ENV.get("OPMAP_CLI", "")
TESTDATA = ENV.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
VERSION = ENV.get("OPMAP_VERSION", "")
CC = ENV.get("OPMAP_CC", "cc")
EXTRA = ENV.get("OPMAP_TEST_EXTRA_FLAGS", "").split()
LIBDIR = ENV.get("OPMAP_LIBDIR", "lib")
BINDIR = ENV.get("OPMAP_BINDIR", "bin")
INCLUDEDIR = ENV.get("OPMAP_INCLUDEDIR", "include")
DATADIR = ENV.get("OPMAP_DATADIR", "share")
MANDIR = ENV.get("OPMAP_MANDIR", "share/man")
PYTHONDIR = ENV.get("OPMAP_PYTHONDIR", "lib/python3/dist-packages")
MAJOR = VERSION.split(".")[0] if VERSION else "0"
# The SONAME follows the ABI generation (OPMAP_ABI_VERSION), not the release version.
ABI = ENV.get("OPMAP_ABI", "")

# Real models: torchvision's efficientnet_b0 (traced) and resnet18 (scripted) as TorchScript,
# and PyTorch's ONNX exports from libonnx-testdata.
FIXTURES = os.path.join(SOURCE, "tests", "fixtures", "torchscript")
MODELS = [os.path.join(FIXTURES, "efficientnet_b0.traced.pt"),
          os.path.join(FIXTURES, "resnet18.scripted.pt"),
          os.path.join(TESTDATA, "pytorch-operator", "test_operator_basic", "model.onnx"),
          os.path.join(TESTDATA, "pytorch-converted", "test_Conv2d", "model.onnx")]


def run(cmd, ok=(0,), **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    proc = subprocess.run(cmd, **kw)
    if ok is not None and proc.returncode not in ok:
        raise AssertionError("%s exited %d\nstdout:\n%s\nstderr:\n%s"
                             % (" ".join(cmd), proc.returncode, proc.stdout, proc.stderr))
    return proc


def clean_env(**extra):
    """The environment without anything pointing at the build tree."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "OPMAP_LIBRARY", "PYTHONPATH", "PKG_CONFIG_PATH",
                        "CMAKE_PREFIX_PATH")}
    env.update(extra)
    return env


def cli_json(model, *args):
    """The build tree's CLI: what the installed tree must agree with."""
    proc = run([CLI, "scan", "--format", "json", model] + list(args), ok=(0, 1))
    return proc.returncode, proc.stdout


class Installed(unittest.TestCase):
    """Installs into <tmp>/first, then moves the tree to <tmp>/moved/somewhere/else."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="opmap-install-")
        cls.first = os.path.join(cls.tmp, "first")
        run(["cmake", "--install", BUILD, "--prefix", cls.first])
        cls.prefix = os.path.join(cls.tmp, "moved", "somewhere", "else")
        os.makedirs(os.path.dirname(cls.prefix))
        shutil.move(cls.first, cls.prefix)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def p(self, *parts):
        return os.path.join(self.prefix, *parts)

    def check_example_output(self, out, model):
        """The example's lines agree with the CLI's JSON for the same model."""
        rc, text = cli_json(model)
        want = json.loads(text)["models"][0]
        ops = [l.split() for l in out.splitlines() if l.startswith("op ")]
        self.assertEqual(
            [(o[1], o[2], int(o[3].split("=")[1]), int(o[4].split("=")[1])) for o in ops],
            [(o["status"], "%s::%s" % (o["domain"], o["op_type"]), o["opset"], o["instances"])
             for o in want["operators"]])
        est = re.search(r"^estimate: (\S+) (\S+) (\S+) person-days$", out, re.M)
        self.assertIsNotNone(est, out)
        self.assertEqual([round(float(x) * 1000) for x in est.groups()],
                         [round(want["estimate"][k] * 1000) for k in ("min", "expected", "max")])
        self.assertIn("libopmap %s" % VERSION, out)
        self.assertIn("model: %s (%s)" % (model, want["format"]), out)

    def assert_not_linked_to_libopmap_so(self, exe):
        dyn = run(["readelf", "-d", exe]).stdout
        self.assertNotIn("libopmap.so", dyn)


class Layout(Installed):
    def test_files_in_place(self):
        libdir = self.p(LIBDIR)
        for rel in [os.path.join(BINDIR, "opmap"),
                    os.path.join(LIBDIR, "libopmap.so.%s" % VERSION),
                    os.path.join(LIBDIR, "libopmap.so.%s" % ABI),
                    os.path.join(LIBDIR, "libopmap.so"),
                    os.path.join(LIBDIR, "libopmap.a"),
                    os.path.join(LIBDIR, "pkgconfig", "opmap.pc"),
                    os.path.join(LIBDIR, "cmake", "opmap", "opmap-config.cmake"),
                    os.path.join(LIBDIR, "cmake", "opmap", "opmap-config-version.cmake"),
                    os.path.join(LIBDIR, "cmake", "opmap", "opmap-targets.cmake"),
                    os.path.join(INCLUDEDIR, "opmap", "opmap.h"),
                    os.path.join(DATADIR, "opmap", "op_map.yaml"),
                    os.path.join(MANDIR, "man1", "opmap.1"),
                    os.path.join(PYTHONDIR, "opmap", "__init__.py"),
                    os.path.join(PYTHONDIR, "opmap", "_install.py")]:
            self.assertTrue(os.path.exists(self.p(rel)), rel)
        self.assertEqual(os.readlink(os.path.join(libdir, "libopmap.so")),
                         "libopmap.so.%s" % ABI)
        self.assertEqual(os.readlink(os.path.join(libdir, "libopmap.so.%s" % ABI)),
                         "libopmap.so.%s" % VERSION)
        self.assertTrue(os.access(self.p(BINDIR, "opmap"), os.X_OK))

    def test_headers_and_table_identical_to_source(self):
        src = os.path.join(SOURCE, "include", "opmap")
        dst = self.p(INCLUDEDIR, "opmap")
        self.assertEqual(sorted(f for f in os.listdir(src) if f.endswith(".h")),
                         sorted(os.listdir(dst)))
        for h in os.listdir(dst):
            with open(os.path.join(src, h), "rb") as a, open(os.path.join(dst, h), "rb") as b:
                self.assertEqual(a.read(), b.read(), h)
        with open(os.path.join(SOURCE, "data", "op_map.yaml"), "rb") as a, \
                open(self.p(DATADIR, "opmap", "op_map.yaml"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_relocatable(self):
        """Nothing installed names the first prefix or the build tree."""
        needles = [self.first.encode(), os.path.realpath(BUILD).encode()]
        for root, _, files in os.walk(self.prefix):
            for f in files:
                path = os.path.join(root, f)
                if os.path.islink(path):
                    continue
                with open(path, "rb") as fh:
                    data = fh.read()
                if f.endswith((".a",)):
                    continue  # debug info may name the build tree; never used at run time
                if data.startswith(b"\x7fELF"):
                    data = run(["readelf", "-d", path]).stdout.encode()
                for n in needles:
                    self.assertNotIn(n, data, "%s names %s" % (path, n.decode()))
        dyn = run(["readelf", "-d", self.p(BINDIR, "opmap")]).stdout
        rel = os.path.relpath(self.p(LIBDIR), self.p(BINDIR))
        self.assertRegex(dyn, r"R(UN)?PATH.*\[\$ORIGIN/%s\]" % re.escape(rel))
        self.assertIn("Library soname: [libopmap.so.%s]" % ABI,
                      run(["readelf", "-d", self.p(LIBDIR, "libopmap.so")]).stdout)

    def test_man_page_renders_cleanly(self):
        if not shutil.which("groff"):
            self.skipTest("groff is not installed")
        proc = run(["groff", "-man", "-Tutf8", "-ww", "-z", self.p(MANDIR, "man1", "opmap.1")])
        self.assertEqual(proc.stderr, "")


class Cli(Installed):
    def test_version_and_own_library(self):
        exe = self.p(BINDIR, "opmap")
        out = run([exe, "--version"], env=clean_env()).stdout
        self.assertEqual(out.strip(), "opmap %s" % VERSION)
        ldd = run(["ldd", exe], env=clean_env()).stdout
        m = re.search(r"libopmap\.so\.%s => (\S+)" % ABI, ldd)
        self.assertIsNotNone(m, ldd)
        self.assertEqual(os.path.realpath(m.group(1)),
                         os.path.realpath(self.p(LIBDIR, "libopmap.so.%s" % VERSION)))

    def test_scan_equals_build_tree(self):
        exe = self.p(BINDIR, "opmap")
        for model in MODELS:
            rc, want = cli_json(model)
            proc = run([exe, "scan", "--format", "json", model], ok=(0, 1), env=clean_env())
            self.assertEqual(proc.returncode, rc)
            self.assertEqual(proc.stdout, want)

    def test_table_override(self):
        """--table with the installed copy of the table answers like the built-in one."""
        exe = self.p(BINDIR, "opmap")
        table = self.p(DATADIR, "opmap", "op_map.yaml")
        run([exe, "table", "lint", table], env=clean_env())
        for model in MODELS:
            _, want = cli_json(model)
            proc = run([exe, "scan", "--format", "json", "--table", table, model], ok=(0, 1),
                       env=clean_env())
            got, want = json.loads(proc.stdout), json.loads(want)
            self.assertEqual(got["table"]["origin"], table)
            got["table"]["origin"] = want["table"]["origin"]
            self.assertEqual(got, want)

    def test_bad_table_override_fails(self):
        exe = self.p(BINDIR, "opmap")
        proc = run([exe, "scan", "--table", self.p("no-such-table.yaml"), MODELS[0]], ok=(3,),
                   env=clean_env())
        self.assertIn("no-such-table.yaml", proc.stderr)


class PkgConfig(Installed):
    def pkg(self, *args):
        env = clean_env(PKG_CONFIG_PATH=self.p(LIBDIR, "pkgconfig"))
        return run(["pkg-config"] + list(args) + ["opmap"], env=env).stdout.split()

    def test_variables(self):
        self.assertEqual(self.pkg("--modversion"), [VERSION])
        libdir = self.pkg("--variable=libdir")[0]
        self.assertEqual(os.path.realpath(libdir), os.path.realpath(self.p(LIBDIR)))
        self.assertTrue(os.path.isfile(self.pkg("--variable=table")[0]))
        static = self.pkg("--static", "--libs")
        for lib in ("-lopmap", "-lprotobuf-c", "-lyaml", "-lcjson"):
            self.assertIn(lib, static)
        self.assertNotIn("-lyaml", self.pkg("--libs"))

    def test_example_shared(self):
        work = os.path.join(self.tmp, "example-pc")
        shutil.copytree(os.path.join(SOURCE, "examples"), work)
        libdir = os.path.realpath(self.pkg("--variable=libdir")[0])
        env = clean_env(PKG_CONFIG_PATH=self.p(LIBDIR, "pkgconfig"))
        run(["make", "-C", work, "CC=%s" % CC, "CFLAGS=-O2 -Wall -Wextra -Werror " +
             " ".join(EXTRA), "LDFLAGS=-Wl,-rpath,%s %s" % (libdir, " ".join(EXTRA))], env=env)
        exe = os.path.join(work, "scan_model")
        self.assertIn(os.path.join(libdir, "libopmap.so.%s" % ABI),
                      run(["ldd", exe], env=clean_env()).stdout)
        for model in MODELS:
            self.check_example_output(run([exe, model], env=clean_env()).stdout, model)

    def test_example_static(self):
        work = os.path.join(self.tmp, "example-pc-static")
        os.makedirs(work)
        exe = os.path.join(work, "scan_model")
        libs = ["-l:libopmap.a" if a == "-lopmap" else a for a in self.pkg("--static", "--libs")]
        run([CC, "-std=c99", "-Wall", "-Wextra", "-Werror"] + EXTRA + self.pkg("--cflags") +
            [os.path.join(SOURCE, "examples", "scan_model.c"), "-o", exe] + libs + EXTRA)
        self.assert_not_linked_to_libopmap_so(exe)
        for model in MODELS:
            self.check_example_output(run([exe, model], env=clean_env()).stdout, model)


class FindPackage(Installed):
    def build(self, name, *defs, source=None):
        work = os.path.join(self.tmp, name)
        args = ["cmake", "-S", source or os.path.join(SOURCE, "examples"), "-B", work,
                "-DCMAKE_PREFIX_PATH=%s" % self.prefix,
                "-DCMAKE_C_FLAGS=-Wall -Wextra -Werror %s" % " ".join(EXTRA),
                "-DCMAKE_EXE_LINKER_FLAGS=%s" % " ".join(EXTRA)] + list(defs)
        run(args, env=clean_env())
        run(["cmake", "--build", work], env=clean_env())
        return os.path.join(work, "scan_model")

    def test_example_shared(self):
        exe = self.build("example-cmake")
        self.assertIn(os.path.realpath(self.p(LIBDIR, "libopmap.so.%s" % ABI)),
                      [os.path.realpath(p) for p in
                       re.findall(r"=> (\S+)", run(["ldd", exe], env=clean_env()).stdout)])
        for model in MODELS:
            self.check_example_output(run([exe, model], env=clean_env()).stdout, model)
        # the example's third argument: the JSON report through opmap_report_write_file()
        report = os.path.join(self.tmp, "example-report.json")
        run([exe, MODELS[0], "", report], env=clean_env())  # "" = the table's default chip
        with open(report) as f:
            self.assertEqual(f.read(), cli_json(MODELS[0])[1])

    def test_example_static(self):
        exe = self.build("example-cmake-static", "-DOPMAP_EXAMPLE_STATIC=ON")
        self.assert_not_linked_to_libopmap_so(exe)
        for model in MODELS:
            self.check_example_output(run([exe, model], env=clean_env()).stdout, model)

    def test_version_file(self):
        proj = os.path.join(self.tmp, "want-version")
        os.makedirs(proj, exist_ok=True)
        major = int(MAJOR)
        for want, ok in (("%d.0" % major, True), ("%d" % (major + 1), False)):
            with open(os.path.join(proj, "CMakeLists.txt"), "w") as f:
                f.write("cmake_minimum_required(VERSION 3.18)\nproject(v LANGUAGES C)\n"
                        "find_package(opmap %s REQUIRED)\n"
                        "message(STATUS \"table=${opmap_TABLE}\")\n" % want)
            work = os.path.join(self.tmp, "want-version-build-%s" % want)
            proc = run(["cmake", "-S", proj, "-B", work, "-DCMAKE_PREFIX_PATH=%s" % self.prefix],
                       ok=None, env=clean_env())
            self.assertEqual(proc.returncode == 0, ok, proc.stdout + proc.stderr)
            if ok:
                table = re.search(r"table=(\S+)", proc.stdout).group(1)
                self.assertTrue(os.path.isfile(table), table)


class Python(Installed):
    def test_installed_binding(self):
        code = ("import json, sys, opmap\n"
                "print(json.dumps({'lib': opmap.library_path(), 'version': opmap.version(),"
                " 'reports': [opmap.scan(m) for m in sys.argv[1:]]}))\n")
        env = clean_env(PYTHONPATH=self.p(PYTHONDIR), PYTHONDONTWRITEBYTECODE="1")
        out = json.loads(run(["/usr/bin/python3", "-c", code] + MODELS, env=env,
                             cwd=self.tmp).stdout)
        self.assertEqual(os.path.realpath(out["lib"]),
                         os.path.realpath(self.p(LIBDIR, "libopmap.so.%s" % VERSION)))
        self.assertEqual(out["version"], VERSION)
        for model, rep in zip(MODELS, out["reports"]):
            self.assertEqual(rep, json.loads(cli_json(model)[1]))


PARTS = {"layout": Layout, "cli": Cli, "pkgconfig": PkgConfig, "find_package": FindPackage,
         "python": Python}

if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in PARTS:
        sys.exit("usage: test_install.py %s" % "|".join(PARTS))
    if not (BUILD and SOURCE and CLI and VERSION and ABI):
        sys.exit("run through ctest (OPMAP_BUILD_DIR, OPMAP_SOURCE_DIR, OPMAP_CLI, OPMAP_VERSION, OPMAP_ABI)")
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(PARTS[sys.argv[1]])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
