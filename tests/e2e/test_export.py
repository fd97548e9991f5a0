#!/usr/bin/python3
"""torch.export programs (.pt2) end to end: for every fixture of tests/fixtures/export, in
both layouts, opmap's operator histogram, node paths and source lines against what the
program's JSON says (read here with Python's json module, independently of opmap's
reader); the AOTInductor package refused with exit 3; dynamic dimensions as a finding;
every report format; hostile JSON (deep, huge numbers, long strings, bad UTF-8).

Usage: test_export.py OPMAP_BINARY   (run by ctest)
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import zipfile

OPMAP = None
HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "..", "fixtures", "export")
MODELS = ("resnet18", "transformer_block", "cond")


def run(*args):
    return subprocess.run([OPMAP] + list(args), capture_output=True, text=True, timeout=300)


def scan_json(path):
    proc = run("scan", "--format", "json", path)
    return proc, json.loads(proc.stdout) if proc.stdout.strip() else None


def program(name):
    with zipfile.ZipFile(os.path.join(FIX, name + ".pt2")) as z:
        return json.loads(z.read("package/models/model.json"))


def split_target(t):
    rest = t[len("torch.ops."):]
    ns, _, tail = rest.partition(".")
    op = tail.rsplit(".", 1)[0] if "." in tail else tail
    return ns, op


def module_path(meta):
    stack = (meta or {}).get("nn_module_stack")
    if not stack:
        return ""
    return stack.split(";")[-1].split(",")[1]


def installed(path):
    """Not the user's own code: an installed package, Python's library, generated code."""
    return ("/site-packages/" in path or "/dist-packages/" in path or path == "<string>" or
            path.startswith("<frozen ") or re.search(r"/lib/python[0-9][0-9.]*/", path))


def last_frame(trace):
    """file:line of a traceback's innermost frame of the user's own code (outside installed
    packages, inside the exporter's call), else of its last 'File "f", line N'."""
    if not trace or 'File "' not in trace:
        return None
    frames = []
    for m in re.finditer(r'File "([^"\n]*)", line ([0-9]+)', trace):
        frames.append((m.group(1), m.group(2)))
    tracer = [i for i, f in enumerate(frames)
              if re.search(r"/torch/(jit/_trace\.py|export/|_export/|_dynamo/|fx/)", f[0])]
    inner = frames[tracer[-1] + 1:] if tracer else frames  # the frames that call it are not
    user = [f for f in inner if not installed(f[0])]
    if user:
        return "%s:%s" % user[-1]
    tail = trace[trace.rindex('File "') + 6:]
    f, _, rest = tail.partition('", line ')
    return "%s:%s" % (f, rest.split(",")[0].split("\n")[0])


def expected(prog):
    """(histogram by (domain, op), node paths per op, source locations per op)."""
    hist, paths, locs = collections.Counter(), collections.defaultdict(list), \
        collections.defaultdict(set)

    def walk(g, prefix, fqn):
        for nd in g["nodes"]:
            key = split_target(nd["target"])
            hist[key] += 1
            meta = nd.get("metadata", {})
            mp = module_path(meta)
            rel = mp[len(fqn) + 1:] if fqn and mp.startswith(fqn + ".") else \
                ("" if mp == fqn else mp)
            outs = nd["outputs"]
            first = ""
            if outs:
                o = outs[0]
                v = next(iter(o.values()))
                if isinstance(v, list):
                    v = v[0] if v else {}
                first = v.get("name") or v.get("as_name") or ""
            seg = "/".join(p for p in (rel.replace(".", "/"), first) if p)
            paths[key].append(prefix + "/" + seg)
            loc = last_frame(meta.get("stack_trace"))
            if loc:
                locs[key].add(loc)
            for a in nd["inputs"]:
                if "as_graph" in a["arg"]:
                    ga = a["arg"]["as_graph"]
                    walk(ga["graph"], prefix + "/" + seg + "/" + ga["name"], mp or fqn)
    walk(prog["graph_module"]["graph"], "main", "")
    return hist, paths, locs


class Export(unittest.TestCase):
    def check_model(self, name, file):
        prog = program(name)
        hist, paths, locs = expected(prog)
        proc, rep = scan_json(os.path.join(FIX, file))
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        m = rep["models"][0]
        self.assertEqual(m["format"], "torch-export")
        got = {(o["domain"], o["op_type"]): o for o in m["operators"]}
        self.assertEqual({k: o["instances"] for k, o in got.items()}, dict(hist))
        for key, o in got.items():
            self.assertEqual(sorted(o["nodes"]), sorted(paths[key])[:len(o["nodes"])], key)
            self.assertTrue(set(o.get("locations", [])) <= locs[key], key)
            if locs[key]:
                self.assertTrue(o.get("locations"), key)

    def test_both_layouts(self):
        for name in MODELS:
            for file in (name + ".pt2", name + ".legacy.pt2"):
                with self.subTest(file=file):
                    self.check_model(name, file)

    def test_module_paths(self):
        proc, rep = scan_json(os.path.join(FIX, "resnet18.pt2"))
        ops = {o["op_type"]: o for o in rep["models"][0]["operators"]}
        self.assertIn("main/layer1/0/conv1/convolution_1", ops["convolution"]["nodes"])
        proc, rep = scan_json(os.path.join(FIX, "cond.pt2"))
        ops = {o["op_type"]: o for o in rep["models"][0]["operators"]}
        self.assertEqual(sorted(ops["linear"]["nodes"]),
                         ["main/getitem/false_graph_0/b/linear",
                          "main/getitem/true_graph_0/a/linear"])
        self.assertEqual(sorted(ops["linear"]["locations"]),
                         ["/work/cond_model.py:12", "/work/cond_model.py:14"])

    def test_custom_op_and_dynamic_dim(self):
        proc, rep = scan_json(os.path.join(FIX, "cond.pt2"))
        m = rep["models"][0]
        unmapped = {(u["domain"], u["op_type"]) for u in m["unmapped"]}
        self.assertIn(("mylib", "scale"), unmapped)
        # control flow and host arithmetic on symbolic sizes are structure (data/curated/
        # export.yaml): only the custom op is unmapped
        self.assertEqual(unmapped, {("mylib", "scale")})
        status = {(o["domain"], o["op_type"]): o["status"] for o in m["operators"]}
        self.assertEqual(status[("higher_order", "cond")], "structural")
        self.assertEqual(status[("aten", "sym_size")], "structural")
        risks = [r["message"] for r in m["risks"] if r["kind"] == "dynamic_shape"]
        self.assertTrue(any("s0[2..64]" in r for r in risks), risks)

    def test_aoti_refused(self):
        proc = run("scan", os.path.join(FIX, "aoti_package.pt2"))
        self.assertEqual(proc.returncode, 3)
        self.assertIn("an AOTInductor package", proc.stderr)
        self.assertIn("data/aotinductor/", proc.stderr)

    def test_every_report(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r")
            proc = run("scan", "--format", "text,json,html,markdown,csv,sarif,junit,atc-precheck",
                       "-o", out, os.path.join(FIX, "cond.pt2"))
            self.assertIn(proc.returncode, (0, 1), proc.stderr)
            files = sorted(os.listdir(out))
            self.assertEqual(len(files), 8, files)
            # ATC's pre-check reads ONNX only: the program is listed, with why it is not checked
            with open(os.path.join(out, "opmap-report.atc-precheck.json"), encoding="utf-8") as f:
                self.assertIn("export the model to ONNX", json.load(f)[0]["skipped"])
            with open(os.path.join(out, "opmap-report.json"), encoding="utf-8") as f:
                self.assertEqual(json.load(f)["models"][0]["format"], "torch-export")
            with open(os.path.join(out, "opmap-report.txt"), encoding="utf-8") as f:
                self.assertIn("mylib::scale", f.read())

    def hostile(self, text, code, needle):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "h.pt2")
            with zipfile.ZipFile(p, "w") as z:
                z.writestr("serialized_exported_program.json", text)
                z.writestr("version", "8.15")
            proc = run("scan", p)
            self.assertEqual(proc.returncode, code, proc.stderr)
            if code == 0:
                return
            self.assertIn("serialized_exported_program.json: offset", proc.stderr)
            self.assertIn(needle, proc.stderr)
            self.assertEqual(len(proc.stderr.strip().splitlines()) >= 1, True)

    def test_hostile_json(self):
        self.hostile("[" * 100000, 3, "JSON nested deeper than")
        # a 100,001-digit size: read, the dimension unknown (not a wrapped-around value)
        self.hostile('{"graph_module": {"graph": {"nodes": [], "inputs": [{"as_tensor": '
                     '{"name": "x"}}], "tensor_values": {"x": {"dtype": 7, "sizes": '
                     '[{"as_int": 1%s}]}}}}}' % ("0" * 100000), 0, "")
        self.hostile('{"a": "%s"}' % ("x" * (2 << 20)), 3, "over max_string_bytes")
        self.hostile(b'{"a": "\xff"}', 3, "malformed UTF-8")
        self.hostile('{"a": 1,}', 3, "trailing comma")
        self.hostile('{"a": "\\ud800"}', 3, "surrogate")


if __name__ == "__main__":
    OPMAP = sys.argv.pop(1)
    unittest.main(verbosity=1)
