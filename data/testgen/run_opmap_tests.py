#!/usr/bin/env python3
"""run_opmap_tests.py: runs the tests opmap testgen wrote (test_opmap_ops.py beside this
script) without pytest, and writes the results file `opmap scan --results` reads
(schema opmap-results/1, docs/testgen.md): the chip, the torch_npu and CANN versions, and
per test its signature, pass or fail, the largest errors and the times measured.

    python3 run_opmap_tests.py                     # on the NPU: results-<chip>.json
    python3 run_opmap_tests.py -o results.json -k layer_norm
    python3 run_opmap_tests.py --device cpu        # no NPU: checks the tests themselves

Exit status: 0 when no test failed or errored, 1 when one did, 2 for a usage error.
Written by opmap testgen; the same for every model.
"""
import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

SCHEMA = "opmap-results/1"


def load(path):
    spec = importlib.util.spec_from_file_location("opmap_tests", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def ascii_name(s, limit=64):
    """What the results file may hold for a chip or version: printable ASCII, short."""
    s = "".join(c for c in str(s) if " " <= c <= "~").strip()
    return s[:limit]


def npu_smi_chip():
    """The chip's name from `npu-smi info` (its Name column, Ascend put before it)."""
    try:
        out = subprocess.run(["npu-smi", "info"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    for line in out.splitlines():
        m = re.match(r"^\|\s*\d+\s+(\S+)\s+\|", line)
        if m and not m.group(1).lower().startswith("name"):
            name = m.group(1)
            return name if name.lower().startswith("ascend") else "Ascend" + name
    return ""


def cann_version(torch, torch_npu):
    """CANN's version as torch_npu tells it (each way a torch_npu release has had)."""
    tries = (lambda: torch_npu.npu.utils.get_cann_version(module="CANN"),
             lambda: torch.version.cann,
             lambda: __import__("torch_npu.utils.collect_env",
                                fromlist=["get_cann_version"]).get_cann_version())
    for get in tries:
        try:
            v = get()
        except Exception:
            continue
        if v:
            return ascii_name(v)
    return ""


def environment(mod, device):
    import torch
    env = {"schema": SCHEMA, "generator": getattr(mod, "GENERATOR", "opmap testgen"),
           "device": device, "chip": "cpu", "torch": ascii_name(torch.__version__),
           "torch_npu": "", "cann": ""}
    if device == "npu":
        import torch_npu
        env["torch_npu"] = ascii_name(getattr(torch_npu, "__version__", ""))
        try:
            env["chip"] = ascii_name(torch.npu.get_device_name(0)) or npu_smi_chip()
        except Exception:
            env["chip"] = npu_smi_chip()
        env["cann"] = cann_version(torch, torch_npu)
    env["chip"] = env["chip"] or "unknown"
    return env


def write_new(path, text):
    """path written as a new file, following nothing: a file created beside it (O_EXCL),
    then renamed over whatever is there, so a link planted at the path is replaced, never
    written through."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                               prefix=".results-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=("npu", "cpu"), default="npu")
    ap.add_argument("--module", default=os.path.join(here, "test_opmap_ops.py"))
    ap.add_argument("-o", "--output", help="the results file (default results-<chip>.json)")
    ap.add_argument("-k", dest="pattern", help="only tests whose id or operator has this")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args()
    os.environ["OPMAP_DEVICE"] = args.device
    mod = load(args.module)
    mod.DEVICE = args.device
    if args.device == "npu":
        try:
            import torch_npu  # noqa: F401
        except ImportError:
            sys.exit("run_opmap_tests.py: torch_npu is not installed here; run on the NPU "
                     "machine, or with --device cpu to check the tests themselves")
    env = environment(mod, args.device)
    results, counts = [], {}
    for case in mod.CASES:
        if args.pattern and args.pattern not in case.id and args.pattern not in case.op:
            continue
        res = mod.run_case(case)
        results.append(res)
        counts[res["outcome"]] = counts.get(res["outcome"], 0) + 1
        if not args.quiet:
            print("%-7s %s  %s%s" % (res["outcome"].upper(), case.id, res["signature"],
                                     "  (%s)" % res["message"] if res["message"] else ""))
    env["results"] = results
    out = args.output or "results-%s.json" % re.sub(r"[^A-Za-z0-9._-]", "_", env["chip"])
    write_new(out, json.dumps(env, indent=1, allow_nan=False) + "\n")
    print("%d tests on %s: %s; results in %s" % (
        len(results), env["chip"],
        ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items())) or "none", out))
    return 1 if counts.get("fail") or counts.get("error") else 0


if __name__ == "__main__":
    sys.exit(main())
