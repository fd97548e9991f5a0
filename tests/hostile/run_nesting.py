#!/usr/bin/python3
"""Deep nesting and long chains in every text format opmap reads: each ends in one clear
error naming its limit (or, where the format keeps the construct opaque, a normal scan),
never a signal (issue 16: "no recursion without a bound").

Usage: run_nesting.py OPMAP     (ctest: hostile.nesting; also run in the ASan build)

Constructs, each 100,000 deep or long unless it would be quadratic to write:
- TorchScript code: attribute, subscript and call chains, nested parentheses, lists, dicts,
  tuples, unary minus, and nested `if` blocks (3,000 levels: the indentation is quadratic);
- printed TorchScript graphs: nested blocks (3,000), a constant list and a type nested
  100,000 deep (both read as opaque text), and a 2 MiB value name;
- YAML (waivers, table, weights): flow sequences, flow maps, block sequences;
- JSON (opmap diff): nested arrays.
Files are generated into a temporary folder (too big to commit). A timeout only detects a
hang; no duration is asserted.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_hostile  # noqa: E402

N = 100000
HANG = 120
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
SMALL_MODEL = os.path.join(TESTDATA, "node", "test_relu", "model.onnx")

CHAIN = "a chain of more than"
BRACKETS = "brackets nested deeper than max_depth"


def ts(expr):
    return make_hostile.ts_archive(code=make_hostile.TS_CODE.replace(b"torch.relu(x)", expr))


def ts_blocks(levels):
    lines = [b"  " * (i + 2) + b"if bool(x):" for i in range(levels)]
    lines.append(b"  " * (levels + 2) + b"x = torch.relu(x)")
    body = b"\n".join(lines) + b"\n    return x\n"
    return make_hostile.ts_archive(
        code=make_hostile.TS_CODE.replace(b"    return torch.relu(x)\n", body))


def graph_blocks(levels):
    g = ["graph(%x : Tensor):"]
    for i in range(levels):
        g.append("  " * (i + 1) + "%%y%d : Tensor = prim::If(%%c)" % i)
        g.append("  " * (i + 2) + "block0():")
    return ("\n".join(g) + "\n").encode()


# (name, file name, bytes, how to run it: "scan" | "waivers" | "table" | "weights" | "diff",
#  expected exit codes, a substring the one-line error must hold or None)
CASES = [
    ("ts attribute chain", "attr.pt", lambda: ts(b"x" + b".a" * N), "scan", {3}, CHAIN),
    ("ts subscript chain", "index.pt", lambda: ts(b"x" + b"[0]" * N), "scan", {3}, CHAIN),
    ("ts call chain", "call.pt", lambda: ts(b"x" + b"()" * N), "scan", {3}, CHAIN),
    ("ts parentheses", "parens.pt", lambda: ts(b"(" * N + b"x" + b")" * N), "scan", {3},
     BRACKETS),
    ("ts lists", "list.pt", lambda: ts(b"[" * N + b"x" + b"]" * N), "scan", {3}, BRACKETS),
    ("ts dicts", "dict.pt", lambda: ts(b"{1: " * N + b"x" + b"}" * N), "scan", {3}, BRACKETS),
    ("ts tuples", "tuple.pt", lambda: ts(b"(x, " * N + b"x" + b")" * N), "scan", {3},
     BRACKETS),
    ("ts unary minus", "unary.pt", lambda: ts(b"-" * N + b"x"), "scan", {3},
     "expression nested deeper than max_depth"),
    ("ts if blocks", "blocks.pt", lambda: ts_blocks(3000), "scan", {3},
     "code blocks nested deeper than max_depth"),
    ("graph blocks", "blocks.txt", lambda: graph_blocks(3000), "scan", {3},
     "blocks nested deeper than max_depth"),
    ("graph constant list", "list.txt",
     lambda: ("graph(%x : Tensor):\n  %y : int[] = prim::Constant[value=" + "[" * N + "1" +
              "]" * N + "]()\n  return (%y)\n").encode(), "scan", {0, 1}, None),
    ("graph nested type", "type.txt",
     lambda: ("graph(%x : " + "List[" * N + "int" + "]" * N + "):\n  return (%x)\n").encode(),
     "scan", {0, 1}, None),
    ("graph 2 MiB name", "name.txt",
     lambda: ("graph(%x : Tensor):\n  %" + "b" * (2 << 20) + " : Tensor = aten::relu(%x)\n"
              "  return (%x)\n").encode(), "scan", {3}, "over max_string_bytes"),
    ("yaml flow sequences", "flow.yaml",
     lambda: ("schema: 1\nwaivers: " + "[" * N + "]" * N + "\n").encode(), "waivers", {3},
     "max_yaml_depth"),
    ("yaml flow maps", "map.yaml",
     lambda: ("schema: 1\nwaivers: " + "{a: " * N + "1" + "}" * N + "\n").encode(), "table",
     {3}, "max_yaml_depth"),
    ("yaml block sequences", "block.yaml",
     lambda: ("unmapped: " + "".join("\n" + " " * i + "- " for i in range(1, 3000))).encode(),
     "weights", {3}, "max_yaml_depth"),
    ("json arrays (diff)", "deep.json",
     lambda: ('{"schema":"opmap-report/5","models":[' + "[" * N + "]" * N + "]}").encode(),
     "diff", {3}, "not JSON"),
]


def command(opmap, how, path):
    if how == "scan":
        return [opmap, "scan", "-q", path]
    if how == "waivers":
        return [opmap, "scan", "-q", "--waivers", path, SMALL_MODEL]
    if how == "table":
        return [opmap, "table", "lint", path]
    if how == "weights":
        return [opmap, "scan", "-q", "--weights", path, SMALL_MODEL]
    return [opmap, "diff", path, path]


def main():
    opmap = sys.argv[1]
    failed = 0
    with tempfile.TemporaryDirectory(prefix="opmap-nesting-") as tmp:
        for name, fname, make, how, codes, expect in CASES:
            path = os.path.join(tmp, fname)
            with open(path, "wb") as f:
                f.write(make())
            try:
                proc = subprocess.run(command(opmap, how, path), capture_output=True,
                                      text=True, errors="replace", timeout=HANG)
            except subprocess.TimeoutExpired:
                print("FAIL %s: still running after %d s" % (name, HANG))
                failed += 1
                continue
            lines = proc.stderr.splitlines()
            problems = []
            if proc.returncode not in codes:
                problems.append("exit %d, expected %s" % (proc.returncode, sorted(codes)))
            if "Sanitizer" in proc.stderr or "runtime error:" in proc.stderr:
                problems.append("sanitizer report")
            if expect is not None:
                if len(lines) != 1:
                    problems.append("%d lines on stderr, expected one" % len(lines))
                elif path not in lines[0] or expect not in lines[0]:
                    problems.append("the error does not name the file and %r" % expect)
            if problems:
                failed += 1
                print("FAIL %s: %s\n     %s" % (name, "; ".join(problems), proc.stderr[:400]))
            else:
                print("ok   %s: exit %d %s" % (name, proc.returncode,
                                               lines[0][:160] if lines else ""))
    print("%d of %d constructs failed" % (failed, len(CASES)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
