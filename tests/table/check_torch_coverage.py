#!/usr/bin/python3
"""Every TorchScript kind and every op-plugin aten op has a row in the table.

usage: check_torch_coverage.py TABLE KINDS_FILE [OPPLUGIN_LIST]

KINDS_FILE: one kind per line ("aten::add 42", "42 aten::add" or "aten::add";
'#' starts a comment); each `ns::name` needs a row with domain ns and op name
(no since).  OPPLUGIN_LIST (default tools/table/op_plugin_aten_ops.txt next to
the repository root): aten base names, one a line; each needs an aten row.
Exit status 1 with the list of missing rows on failure.
"""
import os
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_names(path, want_kind):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            toks = line.split()
            if want_kind:
                kind = next((t for t in toks if "::" in t), None)
                if kind:
                    out.append(kind)
            else:
                out.append(toks[0])
    return sorted(set(out))


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    table_path, kinds_path = argv[1], argv[2]
    list_path = argv[3] if len(argv) == 4 else os.path.join(ROOT, "tools", "table", "op_plugin_aten_ops.txt")
    with open(table_path, encoding="utf-8") as f:
        table = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    rows = {(r["domain"], r["op"]) for r in table["ops"] if r.get("since") is None}
    kinds = read_names(kinds_path, True)
    problems = []
    miss_k = [k for k in kinds if tuple(k.split("::", 1)) not in rows]
    problems += ["no row for kind %s" % k for k in miss_k]
    ops = read_names(list_path, False)
    miss_o = [o for o in ops if ("aten", o) not in rows]
    problems += ["no row for op-plugin aten op %s" % o for o in miss_o]
    for p in problems:
        print("FAIL:", p)
    print("torch coverage: %d/%d kinds, %d/%d op-plugin aten ops have a row"
          % (len(kinds) - len(miss_k), len(kinds), len(ops) - len(miss_o), len(ops)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
