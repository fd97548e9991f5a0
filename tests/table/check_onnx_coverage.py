#!/usr/bin/python3
"""Every ONNX operator version known to python3-onnx has a row in the table.

usage: check_onnx_coverage.py TABLE

Checks each (domain, op_type, since_version) of
onnx.defs.get_all_schemas_with_history() for the domains ai.onnx ("" in the
registry) and ai.onnx.ml against the rows (domain, op, since) of TABLE, and
that about.onnx_opset_max covers the registry's opset.  Exit status 1 with the
list of missing versions on failure.
"""
import sys

import yaml
from onnx import defs

DOMAINS = {"": "ai.onnx", "ai.onnx.ml": "ai.onnx.ml"}


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        table = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    rows = {(r["domain"], r["op"], r.get("since")) for r in table["ops"]}
    want = sorted({(DOMAINS[s.domain], s.name, s.since_version)
                   for s in defs.get_all_schemas_with_history() if s.domain in DOMAINS})
    missing = [w for w in want if w not in rows]
    problems = ["no row for %s %s since %d" % m for m in missing]
    opset_max = (table.get("about") or {}).get("onnx_opset_max", 0)
    if opset_max < defs.onnx_opset_version():
        problems.append("about.onnx_opset_max %s < onnx registry opset %d" % (opset_max, defs.onnx_opset_version()))
    for p in problems:
        print("FAIL:", p)
    print("onnx coverage: %d/%d schema versions have a row" % (len(want) - len(missing), len(want)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
