#!/usr/bin/python3
"""The gate sees what the runtime runs (issue 29; ctest: hostile.bypass).

Usage: run_bypass.py OPMAP

Every crafted input of this folder, and the cases built here at run time (Python sources,
testgen output, results files, file names, merged shards, directory entries), as an
attacker would try them against `opmap scan --fail-on unmapped,rewrite`:

  models    each crafted model that hides an operator from a reader that reads it otherwise
            than the runtime must fail the gate (exit 1, naming the operator) or be refused
            (exit 3, naming the field); each control must pass (exit 0). Where the runtime
            is here, it is the oracle: torch.jit.load and running the module shows the
            hidden path runs (it reaches x.cuda(), which raises on a machine without
            CUDA; the other path returns 2 * x); for ONNX, python3-onnx's reading with the inliner's binding rules
            (tests/oracle/differential_onnx.py) holds the hidden operator, and onnx's
            checker refuses the nodes that give an attribute twice.
  python    a file not scanned fails the source gate and --fail-on all, is printed with -q,
            and makes SARIF's executionSuccessful false; Latin-1 and cp1252 files, a 3 MiB
            literal and 200 nested brackets are scanned (CPython's own reading: ast.parse).
  testgen   a node of a namespace that is not an operator's is a skipped test; a link
            planted where testgen writes is replaced, its target untouched.
  results   a results file whose test ids are not testgen's is refused.
  stderr    a model named with ESC, CR, LF, C1 CSI and bidi overrides: no such byte on
            standard error or in the text report; SARIF texts hold no control character.
  merge     a shard whose models or errors were cut out is refused, naming the field.
  dirs      dangling and looping links, a FIFO and a socket named like models are files
            not read (exit 3), and the scan does not block on the FIFO.

The crafted models are written by make_onnx.py (python3-onnx) and make_torchscript.py
(torch); they are committed, so this runs without either.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OPMAP = None
GATE = ["--fail-on", "unmapped,rewrite"]
problems = []

# (file, expect, what the runtime runs that the gate must see): expect "fails" (exit 1,
# `op` among the failing findings), "refused" (exit 3, `op` in the message), "passes"
MODELS = [
    ("fn_defined_twice.onnx", "fails", "com.evil::EvilUnmappedOp"),
    ("fn_default_graph.onnx", "fails", "com.evil::EvilUnmappedOp"),
    ("ref_over_own_graph.onnx", "fails", "com.evil::EvilUnmappedOp"),
    ("overloads.onnx", "fails", "com.evil::EvilUnmappedOp"),
    ("overload_none_vs_named.onnx", "fails", "com.evil::EvilUnmappedOp"),
    ("fn_resize_mode_cubic.onnx", "fails", "ai.onnx::Resize"),
    ("call_attr_twice.onnx", "refused", "NodeProto.attribute: attribute 'body' is given twice"),
    ("resize_mode_twice.onnx", "refused", "NodeProto.attribute: attribute 'mode' is given twice"),
    ("onehot_axis_twice.onnx", "refused", "NodeProto.attribute: attribute 'axis' is given twice"),
    ("control_fn_default_overridden.onnx", "passes", None),
    ("control_ref_unbound_dropped.onnx", "passes", None),
    ("control_fn_resize_mode_nearest.onnx", "passes", None),
    ("len_str_bytes.pt", "fails", "aten::cuda"),
    ("float_mod.pt", "fails", "aten::cuda"),
    ("float_literal.pt", "fails", "aten::cuda"),
    ("interface_attr.pt", "fails", "aten::cuda"),
    ("interface_dict.pt", "fails", "aten::cuda"),
    ("interface_list.pt", "fails", "aten::cuda"),
    ("control_len_str.pt", "passes", None),
    ("control_interface.pt", "passes", None),
]


def problem(msg):
    problems.append(msg)
    print("FAIL " + msg)


def run(*args, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("timeout", 120)
    return subprocess.run([OPMAP] + list(args), **kw)


def clean(b):
    """Bytes a terminal must never get from a name: C0 (but LF), DEL, C1 as UTF-8, bidi."""
    text = b.decode("utf-8", "replace")
    return not re.search("[\x00-\x09\x0b-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069]", text)


def check_models(tmp):
    for name, expect, op in MODELS:
        path = os.path.join(HERE, name)
        out = os.path.join(tmp, "m.json")
        # the TorchScript cases with a table of their own operators (table.yaml): their
        # hidden operator is rewrite there whatever the built-in table says of it
        table = ["--table", os.path.join(HERE, "table.yaml")] if name.endswith(".pt") else []
        proc = run("scan", "-q", "--format", "json", "-o", out, path, *(GATE + table))
        err = proc.stderr.decode("utf-8", "replace")
        want = {"fails": 1, "refused": 3, "passes": 0}[expect]
        if proc.returncode != want:
            problem("%s: exit %d, expected %d (%s): %s" % (name, proc.returncode, want, expect,
                                                        err[:300]))
            continue
        if expect == "fails" and ("gate: " not in err or op not in err):
            problem("%s: the gate does not name %s: %s" % (name, op, err[:300]))
        if expect == "refused" and op not in err:
            problem("%s: the refusal does not name %r: %s" % (name, op, err[:300]))
        print("ok   %-36s %s%s" % (name, expect, " (" + op + ")" if op else ""))


def torch_oracle():
    """torch.jit.load and running each archive: the path the runtime takes."""
    code = r"""
import sys, torch
for path in sys.argv[1:]:
    try:
        y = torch.jit.load(path)(torch.ones(2))
        print(path, "plain" if float(y[0]) == 2.0 else "other")
    except Exception as e:
        if "cuda" not in str(e).lower() or torch.cuda.is_available():
            raise
        print(path, "hidden")
"""
    pts = [os.path.join(HERE, n) for n, _, _ in MODELS if n.endswith(".pt")]
    try:
        proc = subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True)
    except OSError:
        proc = None
    if not proc or proc.returncode != 0:
        print("skip torch oracle: /usr/bin/python3 has no torch")
        return
    proc = subprocess.run(["/usr/bin/python3", "-c", code] + pts, capture_output=True,
                          text=True, timeout=600)
    if proc.returncode != 0:
        problem("torch.jit.load failed: " + proc.stderr[-500:])
        return
    ran = dict(line.rsplit(" ", 1) for line in proc.stdout.splitlines())
    for name, expect, _ in MODELS:
        if not name.endswith(".pt"):
            continue
        want = "plain" if expect == "passes" else "hidden"
        got = ran.get(os.path.join(HERE, name))
        if got != want:
            problem("%s: torch runs the %s path, the case says %s" % (name, got, want))
        else:
            print("ok   torch runs the %s path of %s" % (got, name))


def onnx_oracle():
    """python3-onnx's reading, bound as the inliner binds: the hidden operator is run."""
    code = r"""
import sys, onnx
sys.path.insert(0, sys.argv[1])
import differential_onnx as d
for path in sys.argv[2:]:
    m = onnx.load(path)
    c = onnx.ModelProto()
    c.CopyFrom(m)
    c.ir_version = min(c.ir_version, onnx.IR_VERSION)  # 1.12's checker stops at IR 8
    try:
        onnx.checker.check_model(c)
        checked = "passes"
    except Exception as e:
        checked = "refuses" if isinstance(e, onnx.checker.ValidationError) else "n/a"
    ops = sorted("%s::%s" % k for k in d.reference(m))
    print(path, checked, ",".join(ops))
"""
    files = [os.path.join(HERE, n) for n, _, _ in MODELS if n.endswith(".onnx")]
    proc = subprocess.run(["/usr/bin/python3", "-c", "import onnx"], capture_output=True)
    if proc.returncode != 0:
        print("skip onnx oracle: /usr/bin/python3 has no onnx")
        return
    proc = subprocess.run(["/usr/bin/python3", "-c", code,
                           os.path.join(HERE, "..", "..", "oracle")] + files,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        problem("the onnx reference failed: " + proc.stderr[-500:])
        return
    seen = {}
    for line in proc.stdout.splitlines():
        path, checked, ops = line.split(" ", 2)
        seen[os.path.basename(path)] = (checked, ops.split(","))
    for name, expect, op in MODELS:
        if not name.endswith(".onnx") or expect == "refused":
            continue
        checked, ops = seen[name]
        if expect == "fails" and op not in ops and op != "ai.onnx::Resize":
            problem("%s: the runtime's reading does not run %s: %s" % (name, op, ops))
        if expect == "passes" and "com.evil::EvilUnmappedOp" in ops:
            problem("%s: a control whose runtime runs the hidden operator" % name)
    for name in ("resize_mode_twice.onnx", "onehot_axis_twice.onnx"):
        if seen[name][0] != "refuses":
            problem("%s: onnx's checker does not refuse it" % name)
    print("ok   python3-onnx's reading (the inliner's binding) runs what the gate reports")


def check_python(tmp):
    train = os.path.join(tmp, "train")
    os.makedirs(train)
    files = {
        "latin.py": "# -*- coding: latin-1 -*-\nimport torch\nx = 'caf\xe9'\n"
                    "torch.cuda.synchronize()\n".encode("latin-1"),
        "cp.py": "#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nimport torch\n"
                 "x = '\u20ac'\ntorch.cuda.synchronize()\n".encode("cp1252"),
        "big.py": b"import torch\nx = '" + b"a" * (3 << 20) + b"'\ntorch.cuda.synchronize()\n",
        "deep.py": b"import torch\ny = " + b"(" * 200 + b"1" + b")" * 200 + b"\ntorch.cuda.synchronize()\n",
    }
    for name, data in files.items():
        with open(os.path.join(train, name), "wb") as f:
            f.write(data)
    out = os.path.join(tmp, "py.json")
    proc = run("scan", "-q", "--format", "json", "-o", out, train, "--fail-on", "all")
    rep = json.load(open(out))
    src = rep["models"][0]
    if src["sources"]["not_scanned"] != 0:
        problem("python: files CPython reads were not scanned: %s" % src["diagnostics"])
    places = [p for o in src["operators"] for p in o["locations"]]
    for name in files:
        if not any(p.startswith(os.path.join(train, name)) for p in places):
            problem("python: %s was not read: its torch.cuda call is not found" % name)
    for name, data in (("koi.py", b"# coding: koi8-r\nimport torch\n"),
                       ("deeper.py", b"y = " + b"(" * 201 + b"1" + b")" * 201 + b"\n")):
        d = os.path.join(tmp, "p-" + name)
        os.makedirs(d)
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
        for fail_on in ("source-rewrite", "all"):
            sarif = os.path.join(tmp, "p.sarif")
            proc = run("scan", "-q", "--format", "sarif", "-o", sarif, d, "--fail-on", fail_on)
            err = proc.stderr.decode()
            s = json.load(open(sarif))
            inv = s["runs"][0]["invocations"][0]
            if proc.returncode != 1 or "warning: " not in err or "source-unscanned" not in err \
                    or inv["executionSuccessful"] or not inv["toolExecutionNotifications"]:
                problem("python: %s not scanned passes --fail-on %s (exit %d, %s, %s)"
                        % (name, fail_on, proc.returncode, err[:200], inv))
    print("ok   python: scanned what CPython reads; a file not scanned fails the source gate")


def check_testgen(tmp):
    graph = os.path.join(tmp, "lib.txt")
    with open(graph, "w") as f:
        f.write('graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):\n'
                '  %1 : str = prim::Constant[value="/tmp/opmap-evil.so"]()\n'
                '  %2 : NoneType = load_library::__call__(%1)\n'
                '  %3 : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = aten::relu(%x)\n'
                '  return (%3)\n')
    out = os.path.join(tmp, "tg")
    os.makedirs(out)
    victim = os.path.join(tmp, "victim.py")
    with open(victim, "w") as f:
        f.write("kept\n")
    os.symlink(victim, os.path.join(out, "test_opmap_ops.py"))
    proc = run("testgen", "-q", "--all", graph, "-o", out)
    if proc.returncode != 0:
        problem("testgen: exit %d: %s" % (proc.returncode, proc.stderr[:300]))
        return
    if open(victim).read() != "kept\n" or os.path.islink(os.path.join(out, "test_opmap_ops.py")):
        problem("testgen wrote through a planted link")
    module = open(os.path.join(out, "test_opmap_ops.py")).read()
    m = re.search(r'"load_library::__call__",\n(?:.*\n)*?\s+skip="([^"]*)"', module)
    if not m or "not an operator namespace of the table" not in m.group(1):
        problem("testgen: load_library::__call__ is not a skipped test")
    print("ok   testgen: only operator namespaces called; a planted link replaced, not followed")


def check_results(tmp):
    forged = os.path.join(tmp, "forged.json")
    with open(forged, "w") as f:
        json.dump({"schema": "opmap-results/1", "device": "npu", "chip": "Ascend910B3",
                   "torch_npu": "2.1.0", "cann": "8.0.RC1",
                   "results": [{"id": "t0", "op": "aten::relu",
                                "signature": "aten::relu@0(float32[2,3])", "outcome": "pass",
                                "standard": "binary", "max_abs_error": 0, "max_rel_error": 0,
                                "cpu_ms": None, "device_ms": None}]}, f)
    proc = run("scan", os.path.join(tmp, "lib.txt"), "--results", forged)
    if proc.returncode != 3 or b"results[0].id" not in proc.stderr:
        problem("results: a file of tests testgen did not write is read (exit %d)"
                % proc.returncode)
    print("ok   results: a file whose tests are not testgen's is refused")


def check_names(tmp):
    d = os.path.join(tmp, "names")
    os.makedirs(d)
    evil = "m\x1b[2J\x1b]0;x\x07\r\nopmap: gate passes\xc2\x9b31m\u202eevil\u2066.onnx"
    shutil.copy(os.path.join(HERE, "fn_defined_twice.onnx"), os.path.join(d, evil))
    proc = run("scan", d, *GATE)
    if not clean(proc.stderr) or not clean(proc.stdout):
        problem("names: control bytes or bidi overrides reach the terminal: %r"
                % (proc.stderr[:300],))
    sarif = os.path.join(tmp, "n.sarif")
    run("scan", "-q", "--format", "sarif", "-o", sarif, d, *GATE)
    texts = re.findall(r'"text": ("(?:[^"\\]|\\.)*")', open(sarif, encoding="utf-8").read())
    if any(not clean(json.loads(t).encode()) for t in texts):
        problem("names: a SARIF text holds a control character or a bidi override")
    print("ok   names: nothing from a file name drives the terminal or a report")


def check_merge(tmp):
    d = os.path.join(tmp, "shard")
    os.makedirs(d)
    shutil.copy(os.path.join(HERE, "control_fn_resize_mode_nearest.onnx"), d)
    with open(os.path.join(d, "bad.onnx"), "wb") as f:
        f.write(b"\xff\xff not a model")
    shard = os.path.join(tmp, "shard.json")
    run("scan", "-q", "--format", "json", "-o", shard, d)
    rep = json.load(open(shard))
    for key, field in (("models", "totals.models"), ("errors", "headline.files_not_read")):
        cut = dict(rep)
        cut[key] = []
        path = os.path.join(tmp, "cut-%s.json" % key)
        with open(path, "w") as f:
            json.dump(cut, f)
        proc = run("merge", "-q", "--format", "json", "-o", os.devnull, path)
        if proc.returncode != 3 or field.encode() not in proc.stderr:
            problem("merge: a shard without its %s is read (exit %d: %s)"
                    % (key, proc.returncode, proc.stderr[:200]))
    print("ok   merge: a shard whose totals and lists disagree is refused")


def check_dirs(tmp):
    d = os.path.join(tmp, "dir")
    os.makedirs(d)
    shutil.copy(os.path.join(HERE, "control_fn_resize_mode_nearest.onnx"), d)
    os.symlink("nothing.onnx", os.path.join(d, "dangling.onnx"))
    os.symlink("loop.pt", os.path.join(d, "loop.pt"))
    os.mkfifo(os.path.join(d, "fifo.pt2"))
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(os.path.join(d, "sock.onnx"))
    try:
        out = os.path.join(tmp, "dir.json")
        proc = run("scan", "-q", "--format", "json", "-o", out, d, timeout=60)
    finally:
        sock.close()
    files = sorted(os.path.basename(e["file"]) for e in json.load(open(out))["errors"])
    if proc.returncode != 3 or files != ["dangling.onnx", "fifo.pt2", "loop.pt", "sock.onnx"]:
        problem("dirs: entries named like models skipped silently (exit %d, errors %s)"
                % (proc.returncode, files))
    print("ok   dirs: links to nothing, loops, a FIFO and a socket are files not read")


def main():
    global OPMAP
    OPMAP = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="opmap-bypass-") as tmp:
        check_models(tmp)
        torch_oracle()
        onnx_oracle()
        check_python(tmp)
        check_testgen(tmp)
        check_results(tmp)
        check_names(tmp)
        check_merge(tmp)
        check_dirs(tmp)
    print("run_bypass: %d problem%s" % (len(problems), "" if len(problems) == 1 else "s"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
