#!/usr/bin/python3
"""Provenance of the table: >= 95 % of rows cite a source, all ids exist.

usage: check_provenance.py TABLE [MIN_SHARE]   (MIN_SHARE default 0.95)

A row counts as cited when its `sources:` list is non-empty (the reserved id
`curated` does not count: rows with only `curated:` are our own judgement).
Every id cited by a row or by a per-SoC entry must be declared in the table's
`sources:`; a row without sources must carry `curated:`.  Prints the share.
"""
import sys

import yaml


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    min_share = float(argv[2]) if len(argv) == 3 else 0.95
    with open(argv[1], encoding="utf-8") as f:
        table = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    declared = {s["id"] for s in table.get("sources") or []}
    problems = []
    cited = 0
    rows = table["ops"]
    for r in rows:
        name = "%s::%s%s" % (r["domain"], r["op"], "" if r.get("since") is None else "-%d" % r["since"])
        ids = [s for s in r.get("sources") or [] if s != "curated"]
        for e in (r.get("socs") or {}).values():
            for s in e.get("sources") or []:
                if s not in declared:
                    problems.append("%s: SoC entry cites unknown source %s" % (name, s))
        for s in r.get("sources") or []:
            if s not in declared:
                problems.append("%s: cites unknown source %s" % (name, s))
        if ids:
            cited += 1
        elif not r.get("curated"):
            problems.append("%s: neither sources nor curated" % name)
    share = cited / len(rows) if rows else 0.0
    if share < min_share:
        problems.append("only %.1f %% of rows cite a source (need %.0f %%)" % (100 * share, 100 * min_share))
    for p in problems:
        print("FAIL:", p)
    print("provenance: %d/%d rows (%.1f %%) cite a source; %d source ids declared"
          % (cited, len(rows), 100 * share, len(declared)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
