#!/usr/bin/python3
"""torchair's GE converters for ATen operators (graph mode: torch.compile with torchair).

Source: torchair-converters (Ascend/torchair, python/torchair/**.py, Apache-2.0).
torchair turns each FX node of a torch.compile graph into GE operators through the
converter registered for the node's OpOverload with `register_fx_node_ge_converter`
(python/torchair/_ge_concrete_graph/fx2ge_converter.py); many registrations only raise.

Method (after /work/research-21/classify_torchair.py, the issue's research): every .py
file under python/torchair/ at the pinned commit is parsed with `ast` (nothing imported or
run), and every registration of a `torch.ops.aten.<op>.<overload>` is classified by its
body (docstring removed):
  stub         every path ends in a `raise` (no return, no fall-through)
  partial      it can return, and some path raises an "unsupported" exception
               (NotImplementedError, or a message saying not implemented / not supported /
               unsupported / only support / no longer supported / unprocessed / redundant)
  implemented  it can return and raises nothing of that kind (argument checks aside)
Raises inside helpers the converter calls are not followed.  `declared` counts the
`Support(...)` cases of a `@declare_supported([...])` stacked above it.  `schema` is the
ATen schema torchair quotes in the converter's docstring ("NB: aten::add.out(...) -> ...").

Facts:
  {"commit", "ops": {base: {overload: {"status", "file", "line", "declared",
                                        "raise_kinds", "schema"}}}}
  an overload packet registered as such (`torch.ops.aten.sym_size`) has overload "".

`--write` also writes tools/table/torchair_converters.tsv, one line per registration,
which tests/table/check_graph.py holds the table's `graph:` facts against.
"""
import ast
import os
import re
import sys

from _common import HERE, importer_main, open_source

SOURCE = "torchair-converters"
ROOT_DIR = "python/torchair/"
TSV = os.path.join(HERE, "torchair_converters.tsv")
REG_NAMES = ("register_fx_node_ge_converter", "_register_fx_node_ge_converter")
DECL_NAME = "declare_supported"
UNSUPPORTED_MSG = re.compile(
    r"not\s+(yet\s+)?(be\s+|been\s+)?(implemented|supported)|not\s+support|unsupported|"
    r"only\s+support|no\s+longer\s+supported|unprocessed\s+parameters|redundant",
    re.IGNORECASE)
SCHEMA = re.compile(r"NB:\s*(aten::[A-Za-z0-9_.]+\(.*\)\s*->\s*.+)")


def call_name(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def raise_kind(node):
    exc = node.exc
    if exc is None:
        return "reraise"
    if isinstance(exc, ast.Name) and not exc.id.endswith(("Error", "Exception")):
        return "non-exception"          # `raise out` (aten.erfinv.out raises a GE tensor)
    name = call_name(exc.func) if isinstance(exc, ast.Call) else call_name(exc)
    msg = " ".join(n.value for n in ast.walk(exc) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    if name == "NotImplementedError":
        return "NotImplementedError"
    if UNSUPPORTED_MSG.search(msg):
        return "%s:unsupported" % name
    return "validation"


def walk_body(stmts):
    """ast.walk without descending into nested functions, lambdas or classes."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)


def outcomes(stmts):
    """How a statement list can end: 'fall', 'return', 'raise'."""
    result = set()
    for s in stmts:
        o = stmt_outcomes(s)
        result |= o - {"fall"}
        if "fall" not in o:
            return result
    return result | {"fall"}


def _loop_outcomes(s):
    body = outcomes(s.body)
    if isinstance(s, ast.While) and isinstance(s.test, ast.Constant) and s.test.value:
        broken = any(isinstance(n, ast.Break) for n in walk_body(s.body))
        return (body - {"fall"}) | ({"fall"} if broken else set())
    return body | {"fall"} | (outcomes(s.orelse) if s.orelse else set())


def _try_outcomes(s):
    o = outcomes(s.body)
    if s.orelse and "fall" in o:
        o = (o - {"fall"}) | outcomes(s.orelse)
    for h in s.handlers:
        o |= outcomes(h.body)
    if s.finalbody and "fall" not in outcomes(s.finalbody):
        o = outcomes(s.finalbody)
    return o


def stmt_outcomes(s):
    if isinstance(s, ast.Raise):
        return {"raise"}
    if isinstance(s, ast.Return):
        return {"return"}
    if isinstance(s, ast.If):
        return outcomes(s.body) | (outcomes(s.orelse) if s.orelse else {"fall"})
    if isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
        return _loop_outcomes(s)
    if isinstance(s, (ast.With, ast.AsyncWith)):
        return outcomes(s.body)
    if isinstance(s, ast.Try) or s.__class__.__name__ == "TryStar":
        return _try_outcomes(s)
    if s.__class__.__name__ == "Match":
        return set().union(*(outcomes(c.body) for c in s.cases)) | {"fall"}
    return {"fall"}


def classify(func):
    body = func.body
    doc = ast.get_docstring(func) or ""
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    kinds = sorted({raise_kind(n) for n in walk_body(body) if isinstance(n, ast.Raise)})
    out = outcomes(body) if body else {"fall"}
    if out == {"raise"}:
        status = "stub"
    elif any(k == "NotImplementedError" or k.endswith(":unsupported") for k in kinds):
        status = "partial"
    else:
        status = "implemented"
    m = SCHEMA.search(doc)
    return status, kinds, (m.group(1).strip() if m else "")


def declared_count(dec):
    if not dec.args:
        return 0
    arg = dec.args[0]
    if isinstance(arg, (ast.List, ast.Tuple)):
        return len(arg.elts)
    return sum(1 for n in ast.walk(arg) if isinstance(n, ast.Call) and call_name(n.func) == "Support")


def registrations(tree):
    """(op expression, line, function, declared) of every decorator registration, and of
    the functional form register_fx_node_ge_converter(op)(func)."""
    funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decs = node.decorator_list
            for i, dec in enumerate(decs):
                if isinstance(dec, ast.Call) and call_name(dec.func) in REG_NAMES and dec.args:
                    declared, j = 0, i - 1
                    while j >= 0 and isinstance(decs[j], ast.Call) and call_name(decs[j].func) == DECL_NAME:
                        declared += declared_count(decs[j])
                        j -= 1
                    yield dec.args[0], dec.lineno, node, declared
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Call) and \
                call_name(node.func.func) in REG_NAMES and node.func.args and node.args and \
                isinstance(node.args[0], ast.Name) and node.args[0].id in funcs:
            yield node.func.args[0], node.lineno, funcs[node.args[0].id], 0


def load(locations=None):
    """Every aten converter registration of the pinned torchair, classified."""
    src = open_source(SOURCE, locations)
    paths = [p for p in src.files(ROOT_DIR + "*") if p.endswith(".py")]
    ops = {}
    for path, text in sorted(src.read_many(paths).items()):
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for arg, line, func, declared in registrations(tree):
            target = ast.unparse(arg)
            parts = target.split(".")
            if parts[:3] != ["torch", "ops", "aten"] or len(parts) not in (4, 5):
                continue
            status, kinds, schema = classify(func)
            ov = parts[4] if len(parts) == 5 else ""
            ops.setdefault(parts[3], {})[ov] = {
                "status": status, "file": path, "line": line, "declared": declared,
                "raise_kinds": kinds, "schema": schema}
    return {"commit": src.commit, "ops": ops}


def write_tsv(facts, path=TSV):
    rows = [(base, ov, e) for base, ovs in facts["ops"].items() for ov, e in ovs.items()]
    rows.sort(key=lambda x: (x[2]["file"], x[2]["line"]))
    with open(path, "w", encoding="utf-8") as f:
        f.write("# torchair GE converters of ATen overloads at Ascend/torchair %s\n" % facts["commit"])
        f.write("# generated by tools/table/import_torchair.py --write; do not edit\n")
        f.write("aten_op\tstatus\tfile\tline\tdeclared\traise_kinds\tschema\n")
        for base, ov, e in rows:
            f.write("\t".join(["aten.%s%s" % (base, "." + ov if ov else ""), e["status"], e["file"],
                               str(e["line"]), str(e["declared"]), ",".join(e["raise_kinds"]),
                               e["schema"]]) + "\n")
    return len(rows)


if __name__ == "__main__":
    if "--write" in sys.argv:
        sys.argv.remove("--write")
        print("%d registrations written to %s" % (write_tsv(load()), TSV))
    else:
        importer_main(load)
