#!/usr/bin/python3
"""Runs `opmap scan` on every file of the hostile corpus and checks how it ends.

Usage: run_hostile.py OPMAP [CASE_SUBSTRING...]     (ctest: hostile.corpus)

For each entry of tests/hostile/cases/manifest.json (written by make_hostile.py), and for
the cases too big to commit (make_hostile.RUNTIME_CASES, generated into a temporary folder):

  expect "error"  exit 3; stderr is exactly one line, names the file and matches `where`
                  (the offset / line:column / entry); nothing but that line; no control
                  bytes in it;
  expect "valid"  exit 0 or 1 (the gate); the JSON report holds a diagnostic containing
                  `diag` when the manifest gives one;
  every case      finishes (a 60 s timeout detects a hang; no duration is asserted: the
                  slowest case is printed, and quadratic blow-ups such as many_sources.yaml
                  would take minutes); with -o FILE and an error, no temporary file is
                  left, and FILE is a report whose "errors" names the file and whose gate
                  is incomplete (a table error stops before any report: no FILE).

Archives (`container`: zip and pickle cases) are TorchScript input: without the TorchScript
reader they are "unsupported input", with it a format error naming the entry or offset;
either way exit 3 and one line.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
HANG = 60  # seconds: a hang detector, not a performance budget
# a small real model to scan when the case is a table
SMALL_MODEL = os.path.join(TESTDATA, "node", "test_relu", "model.onnx")

sys.path.insert(0, HERE)
import make_hostile  # noqa: E402


def run(opmap, case, path, tmp):
    """Runs one case; returns a list of problems (empty: the case passed)."""
    problems = []
    out = os.path.join(tmp, "report.json")
    args = [opmap, "scan", "-q", "--format", "json", "-o", out]
    args += ["--table", path, SMALL_MODEL] if case.get("table") else [path]
    try:
        proc = subprocess.run(args, capture_output=True, timeout=HANG)
    except subprocess.TimeoutExpired:
        return [f"still running after {HANG} s (a hang or a quadratic blow-up)"]
    if proc.returncode < 0 or proc.returncode >= 70:
        problems.append(f"crashed or failed internally: exit {proc.returncode}")
    stderr = proc.stderr.decode("utf-8", "replace")
    if b"\x1b" in proc.stderr or any(c < 0x20 and c not in (0x0a,) for c in proc.stderr):
        problems.append("stderr holds control bytes: " + repr(proc.stderr[:200]))
    if "AddressSanitizer" in stderr or "runtime error:" in stderr or "LeakSanitizer" in stderr:
        problems.append("sanitizer report:\n" + stderr[:2000])
    leftovers = [f for f in os.listdir(tmp) if f.startswith("report.json")]

    if case["expect"] == "error":
        lines = stderr.splitlines()
        if proc.returncode != 3:
            problems.append(f"exit {proc.returncode}, expected 3 (stderr: {stderr[:300]!r})")
        if len(lines) != 1:
            problems.append(f"{len(lines)} lines on stderr, expected one: {stderr[:500]!r}")
        elif not lines[0].startswith("opmap: " + path):
            problems.append(f"the message does not start with the file name: {lines[0][:300]!r}")
        else:
            rest = lines[0][len("opmap: " + path):]
            where = case.get("where")
            if case.get("container"):
                where = where or r"."
            if where and not re.search(where, rest):
                problems.append(f"message {rest[:300]!r} does not match {where!r}")
        # the report is still written, and says what could not be read (issue 16)
        if [f for f in leftovers if f != "report.json"]:
            problems.append(f"a temporary file was left behind: {leftovers}")
        if not case.get("table"):
            try:
                with open(out) as f:
                    rep = json.load(f)
                errs = rep["errors"]
                if [e["file"] for e in errs] != [path] or rep["gate"]["passed"] or \
                        not rep["gate"]["incomplete"]:
                    problems.append(f"the report does not list the file as unreadable: "
                                    f"{json.dumps(errs)[:300]} gate {rep['gate']}")
            except (OSError, ValueError, KeyError) as e:
                problems.append(f"no valid report listing the error: {e!r}")
        elif leftovers:
            problems.append(f"a report was left behind: {leftovers}")
    else:
        if proc.returncode not in (0, 1):
            problems.append(f"exit {proc.returncode}, expected 0 or 1: {stderr[:500]!r}")
        elif "report.json" not in leftovers:
            problems.append("no report written")
        else:
            with open(out, "rb") as f:
                try:
                    rep = json.load(f)
                except ValueError as e:
                    rep = None
                    problems.append(f"the report is not JSON: {e}")
            if rep is not None and case.get("diag"):
                diags = [d["message"] for m in rep["models"] for d in m.get("diagnostics", [])]
                if not any(case["diag"] in d for d in diags):
                    problems.append(f"no diagnostic containing {case['diag']!r}: {diags}")
        stray = [f for f in leftovers if f != "report.json"]
        if stray:
            problems.append(f"temporary files left behind: {stray}")
    for f in leftovers:
        os.unlink(os.path.join(tmp, f))
    return problems


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    opmap = os.path.abspath(sys.argv[1])
    only = sys.argv[2:]
    with open(os.path.join(CASES, "manifest.json")) as f:
        cases = json.load(f)
    failed = 0
    ran = 0
    slowest = (0.0, "")
    with tempfile.TemporaryDirectory(prefix="opmap-hostile-") as tmp:
        work = os.path.join(tmp, "out")
        big = os.path.join(tmp, "big")
        os.makedirs(work)
        os.makedirs(big)
        todo = [(c, os.path.join(CASES, c["file"])) for c in cases]
        for c in make_hostile.RUNTIME_CASES:
            if only and not any(o in c["file"] for o in only):
                continue
            path = os.path.join(big, c["file"])
            with open(path, "wb") as f:
                f.write(c["make"]())
            todo.append(({k: v for k, v in c.items() if k != "make"}, path))
        for case, path in todo:
            if only and not any(o in case["file"] for o in only):
                continue
            start = time.monotonic()
            problems = run(opmap, case, path, work)
            took = time.monotonic() - start
            slowest = max(slowest, (took, case["file"]))
            ran += 1
            if problems:
                failed += 1
                print(f"FAIL {case['file']} ({case['what']}):")
                for p in problems:
                    print("     " + p)
    print(f"run_hostile: {ran} cases, {failed} failed; slowest {slowest[1]} "
          f"({slowest[0]:.2f} s, for information)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
