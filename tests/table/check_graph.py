#!/usr/bin/python3
"""The table's graph-mode answers against torchair's converters (docs/table-format.md, "graph").

usage: check_graph.py TABLE CONVERTERS_TSV

CONVERTERS_TSV is tools/table/torchair_converters.tsv, written by
tools/table/import_torchair.py --write from the pinned torchair; the check needs no mirror.
Every ATen row that is not structural has a `graph:`; its implemented/partial/stub lists are
exactly the overloads torchair registers for the op, by their converter's status; `declared`
is the sum of their Support cases and `where` the first registration; the status agrees with
the overloads counted (implemented: each counted one is; partial: one works, not every one;
stub: converters are registered, none counted works; none: nothing is registered); the
table's torchair-converters source is at the TSV's commit.
"""
import collections
import csv
import sys

import yaml

STATUSES = ("implemented", "partial", "stub")


def load_tsv(path):
    with open(path, encoding="utf-8") as f:
        head = f.readline()
        commit = head.split()[-1]
        lines = [line for line in f if not line.startswith("#")]
    ops = collections.defaultdict(dict)
    for r in csv.DictReader(lines, delimiter="\t"):
        parts = r["aten_op"].split(".")
        ops[parts[1]][parts[2] if len(parts) > 2 else ""] = r
    return commit, ops


def check_row(op, g, tor):
    bad = []
    ovs = {ov: e for ov, e in tor.items() if ov}
    for s in STATUSES:
        want = sorted(ov for ov, e in ovs.items() if e["status"] == s)
        if sorted(g.get(s, [])) != want:
            bad.append("%s: %s lists %s, torchair %s" % (op, s, g.get(s, []), want))
    if g.get("declared", 0) != sum(int(e["declared"]) for e in ovs.values()):
        bad.append("%s: declared %s" % (op, g.get("declared")))
    if ovs:
        first = min(ovs.values(), key=lambda e: (e["file"], int(e["line"])))
        if g.get("where") != "%s:%s" % (first["file"], first["line"]):
            bad.append("%s: where %s" % (op, g.get("where")))
    counted = [ovs[o]["status"] for o in g.get("counted", [])]
    works = [s for s in counted if s != "stub"]
    ok = {"implemented": bool(counted) and all(s == "implemented" for s in counted),
          "partial": bool(works) and not all(s == "implemented" for s in counted),
          "stub": bool(ovs) and not works,
          "none": not ovs}
    if "via" not in g and g["status"] in ok and not ok[g["status"]]:
        bad.append("%s: status %s does not follow from the overloads counted %s"
                   % (op, g["status"], g.get("counted")))
    return bad


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        table = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    commit, tor = load_tsv(argv[2])
    bad = []
    src = [s for s in table["sources"] if s["id"] == "torchair-converters"]
    if not src or src[0].get("commit") != commit:
        bad.append("the table's torchair-converters source is not at %s" % commit)
    rows = [r for r in table["ops"] if r["domain"] == "aten" and r["status"] != "structural"]
    for r in rows:
        if "graph" not in r:
            bad.append("aten::%s: no graph-mode answer" % r["op"])
            continue
        if r["graph"]["sources"][0] != "torchair-converters":
            bad.append("aten::%s: the graph answer's first source is not torchair's" % r["op"])
        bad += check_row(r["op"], r["graph"], tor.get(r["op"], {}))
    for line in bad[:40]:
        print(line, file=sys.stderr)
    counts = collections.Counter(r["graph"]["status"] for r in rows if "graph" in r)
    print("graph-mode answers of %d ATen rows: %s; %d problems"
          % (len(rows), ", ".join("%s %d" % kv for kv in sorted(counts.items())), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
