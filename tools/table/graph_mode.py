"""The graph-mode answer of ATen rows: what torchair's GE converters (torch.compile with
torchair, tools/table/import_torchair.py) do with the operator.  build_table.py calls
`annotate(builder)` once every row has its eager status; the rules are in
tools/table/README.md ("Graph mode") and docs/table-format.md ("graph").

Per row (aten, not structural), `r.graph` = {status, via?, declared, implemented, partial,
stub, counted, where?, note, grade, sources}:

* the overloads counted are those a torch.compile graph hands torchair: the schema torchair
  quotes returns a Tensor (overloads computing ints, floats, strings and lists are
  TorchScript's host arithmetic; factories such as zeros take no tensor but make one), it
  is not an out= variant (it mutates no argument but self: functionalization removes out=),
  and native_functions.yaml does not make it CompositeImplicitAutograd (PyTorch decomposes
  those before the backend sees them);
* implemented: every counted overload is; partial: some counted overload works, another
  raises for some inputs or only raises;
* otherwise, in order: an in-place op (`relu_`) whose functional op works is answered by
  it (`via`, functionalization); an op the curated file answers as another
  (`data/curated/graph.yaml`, `via`); an op whose every non-out overload is
  CompositeImplicitAutograd is `decomposed` (torchair never sees it; what it becomes has
  its own answers); registered converters that all raise are `stub`; no converter at all
  is `none`.
"""
import os
import re

import yaml

SOURCE = "torchair-converters"
NATIVE = "pytorch-native-functions"
STATUSES = ("implemented", "partial", "stub")


def _schema_parts(schema):
    """(argument text, return text) of 'aten::op.ov(args) -> ret', or None."""
    start = schema.find("(")
    depth = 0
    for i in range(start, len(schema)):
        depth += {"(": 1, ")": -1}.get(schema[i], 0)
        if depth == 0:
            return schema[start + 1:i], schema[i + 1:].lstrip(" ->")
    return None


def _mutates_other(args):
    """An argument other than self annotated as written (Tensor(a!) out): an out= variant."""
    for a in args.split(","):
        decl = a.split("=")[0].strip()
        if "!" in decl and not decl.endswith(" self"):
            return True
    return False


def counted(op, ov, e, nat):
    """Whether overload `ov` of `op` (torchair's entry e) can reach torchair: it returns a
    tensor, is no out= variant, and PyTorch does not decompose it first."""
    n = (nat or {}).get("overloads", {}).get(ov or "default")
    if n and n["composite_implicit"] and not n["composite_explicit"]:
        return False
    parts = _schema_parts(e["schema"]) if e["schema"] else None
    if not parts:
        return True
    args, ret = parts
    return bool(re.search(r"\bTensor\b", ret)) and not _mutates_other(args)


def _all_implicit(nat):
    """Every overload of the op that is not out= decomposes (CompositeImplicitAutograd)."""
    if not nat:
        return False
    ovs = [o for o in nat["overloads"].values()
           if not any("!" in a["type"] and a["name"] != "self" for a in o["args"])]
    return bool(ovs) and all(o["composite_implicit"] and not o["composite_explicit"] for o in ovs)


def _letter(typ):
    """One argument's kind in a signature: T tensor, N number (int, float, Scalar, bool,
    SymInt), s str, L list, O other; '?' when it may be None."""
    t = re.sub(r"\([a-z0-9!|\s]*\)", "", typ).strip()
    opt = t.endswith("?")
    t = t.rstrip("?")
    if re.search(r"\[\d*\]$", t):
        k = "L"
    elif t == "Tensor":
        k = "T"
    elif t in ("int", "float", "Scalar", "bool", "SymInt", "ScalarType", "Layout",
               "MemoryFormat"):
        k = "N"
    elif t == "str":
        k = "s"
    else:
        k = "O"
    return k + ("?" if opt else "")


def signatures(nat, ovs):
    """{overload: 'T,N,s?='}: the argument kinds, in the order TorchScript passes them
    (every argument, keyword-only ones too; '=' marks one with a default, which an archive's
    printed call may leave out), of the counted overloads native_functions.yaml has."""
    out = {}
    for ov in ovs:
        n = (nat or {}).get("overloads", {}).get(ov)
        if n is not None:
            out[ov] = ",".join(_letter(a["type"]) + ("=" if a["default"] is not None else "")
                               for a in n["args"])
    return out


def _short(op, ovs):
    return ", ".join("%s.%s" % (op, o) for o in ovs)


def direct(op, tor, nat):
    """The answer from op's own converters and the overloads counted, or None when no
    counted overload works."""
    ovs = {ov: e for ov, e in tor.items() if ov}
    g = {s: sorted(ov for ov, e in ovs.items() if e["status"] == s) for s in STATUSES}
    g["counted"] = sorted(ov for ov, e in ovs.items() if counted(op, ov, e, nat))
    g["declared"] = sum(e["declared"] for e in ovs.values())
    first = sorted(ovs.values(), key=lambda e: (e["file"], e["line"]))
    if first:
        g["where"] = "%s:%d" % (first[0]["file"], first[0]["line"])
    st = [ovs[o]["status"] for o in g["counted"]]
    if any(s in ("implemented", "partial") for s in st):
        g["status"] = "implemented" if all(s == "implemented" for s in st) else "partial"
        if g["status"] == "partial":
            # a TorchScript call names no overload: its arguments tell which it is
            g["sigs"] = signatures(nat, g["counted"])
        said = [("torchair converts %s", "implemented"), ("%s raise%s for some inputs", "partial"),
                ("%s only raise%s", "stub")]
        notes = []
        for text, status in said:
            these = [o for o in g["counted"] if ovs[o]["status"] == status]
            if these:
                notes.append(text % ((_short(op, these),) if status == "implemented" else
                                     (_short(op, these), "" if len(these) > 1 else "s")))
        g["note"] = "; ".join(notes) + "."
        g["grade"], g["sources"] = "kernel", [SOURCE]
    return g


def _by(g, status, via, note, grade, sources):
    # torchair's registry first: `where` and the commit reports name are its
    g.update(status=status, note=note, grade=grade, sources=[SOURCE] + sorted(set(sources) - {SOURCE}))
    if status == "decomposed" or via:
        g["counted"] = []   # answered by other operators' converters, not these
    if via:
        g["via"] = via


def resolve(op, tor, nat, answers, alias):
    """The graph answer of op; answers holds the ops resolved so far, alias the curated
    `as` entries."""
    g = direct(op, tor, nat)
    if "status" in g:
        return g
    base = op[:-1] if op.endswith("_") and not op.startswith("__") else None
    b = answers.get(base) if base else None
    if b and b["status"] in ("implemented", "partial"):
        _by(g, b["status"], base, "In-place: torch.compile's functionalization hands torchair aten::%s "
            "instead, whose converters answer: %s" % (base, b["note"]), "derived", {SOURCE, NATIVE})
    elif op in alias and alias[op]["as"] in answers:
        a, b = alias[op], answers[alias[op]["as"]]
        _by(g, b["status"], a["as"], "%s Answered as aten::%s: %s" % (a["curated"], a["as"], b["note"]),
            "derived", {SOURCE, "curated"} | set(a.get("sources", [])))
    elif _all_implicit(nat):
        _by(g, "decomposed", None, "PyTorch decomposes it (CompositeImplicitAutograd in native_functions.yaml) "
            "into other ATen operators before torchair converts the graph, so no converter of its own is "
            "reached; those operators have answers of their own.", "derived", {SOURCE, NATIVE})
    elif any(tor.get(ov) for ov in tor if ov):
        _by(g, "stub", None, "Every converter torchair registers for it only raises (%s)."
            % _short(op, sorted(ov for ov in tor if ov)), "kernel", {SOURCE})
    else:
        _by(g, "none", None, "torchair registers no converter for it.", "kernel", {SOURCE})
    return g


def load_alias(directory, cfg):
    """data/curated/graph.yaml: `graph_as`, ops a torch.compile graph holds under another
    name, each with its reason."""
    path = os.path.join(directory, "graph.yaml")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f) or {}
    out = {}
    for e in doc.get("graph_as", []):
        if not e.get("op") or not e.get("as") or not e.get("curated"):
            raise SystemExit("%s: a graph_as entry needs op, as and curated" % path)
        for x in e.get("sources", []):
            if x not in cfg:
                raise SystemExit("%s: %s: unknown source %s" % (path, e["op"], x))
        out[e["op"]] = e
    return out


def annotate(builder, curated_dir):
    """Sets r.graph on every aten row that is not structural; returns the rows the
    curated file changed (for docs/sources.md)."""
    tor = builder.f["torchair"]["ops"]
    nat = builder.f["native"]["ops"]
    alias = load_alias(curated_dir, builder.cfg)
    rows = {k[1]: r for k, r in builder.rows.items() if k[0] == "aten" and r.status != "structural"}
    for op in alias:
        if op not in rows or alias[op]["as"] not in rows:
            raise SystemExit("data/curated/graph.yaml: %s or %s is not an aten row" % (op, alias[op]["as"]))
    answers = {}
    # functional ops and alias targets first: in-place ops and aliases are answered by them
    order = sorted(rows, key=lambda o: (o in alias, o.endswith("_") and not o.startswith("__"), o))
    for op in order:
        answers[op] = resolve(op, tor.get(op, {}), nat.get(op), answers, alias)
    for op, r in rows.items():
        # cited by the graph answer's own evidence, not the row's `sources:` (what an eager
        # report lists for the operator)
        r.graph = answers[op]
    return sum(1 for op in alias if op in rows)
