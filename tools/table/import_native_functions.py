#!/usr/bin/python3
"""aten schemas and dispatch of PyTorch's native_functions.yaml (D15).

Source: pytorch-native-functions (pytorch/pytorch
aten/src/ATen/native/native_functions.yaml, BSD-style).  The pinned copy is
the one Debian's python3-torch 1.13.1 ships (torchgen/packaged/...), the torch
the TorchScript kinds were collected with.

Per base op (name before the first '.'), per overload:
  * composite_implicit: no `dispatch:` and no `structured_delegate:` (the
    implicit CompositeImplicitAutograd), or an explicit CompositeImplicitAutograd
    key -> the op is a decomposition into other aten ops on every backend;
  * composite_explicit: CompositeExplicitAutograd[NonFunctional] key -> a
    backend-agnostic kernel written in terms of other aten ops;
  * backends: the other dispatch keys (CPU, CUDA, ...);
  * tags (nondeterministic_seeded = random op), and whether the schema
    mentions Tensor at all.

  * the schema's arguments in order (TorchScript passes every argument of the
    matched schema by position, keyword-only ones included), with their types and
    defaults, and whether it returns a view of an input (`-> Tensor(a)` with an
    input `Tensor(a)`: an alias, no kernel runs).

Facts:
  ops: {base: {"overloads": {ov: {"composite_implicit", "composite_explicit",
                                   "backends", "structured_delegate",
                                   "args": [{"name", "type", "default"}], "view": bool}},
               "tags": [..], "tensor_free": bool}}
"""
import re

import yaml

from _common import importer_main, open_source, split_top

COMPOSITE_EXPLICIT = {"CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional"}


def arg_list(func):
    """The text between the schema's outer parentheses (annotations may hold '->')."""
    start, depth = func.index("("), 0
    for i in range(start, len(func)):
        depth += {"(": 1, ")": -1}.get(func[i], 0)
        if depth == 0:
            return func[start + 1:i], func[i + 1:]
    raise ValueError("unbalanced schema: %s" % func)


def schema_args(func):
    """[{name, type, default}] in order; the keyword-only marker '*' is dropped."""
    inner = arg_list(func)[0]
    args = []
    for a in (x.strip() for x in split_top(inner, "([", ")]")):
        if a == "*":
            continue
        decl, _, default = a.partition("=")
        typ, _, name = decl.strip().rpartition(" ")
        args.append({"name": name, "type": typ.strip(), "default": default.strip() or None})
    return args


def returns_view(func):
    """`-> Tensor(a)` where an input is `Tensor(a)` (not `Tensor(a!)`): an alias."""
    args, ret = arg_list(func)
    m = re.search(r"Tensor\((\w)\)", ret)
    return bool(m) and ("Tensor(%s) " % m.group(1)) in args


def load(locations=None):
    """native_functions.yaml reduced to dispatch facts per aten base op."""
    src = open_source("pytorch-native-functions", locations)
    doc = yaml.safe_load(src.read_file())
    ops = {}
    for e in doc:
        func = e["func"]
        name = func.split("(")[0].strip()
        base, _, ov = name.partition(".")
        keys = set()
        for k in (e.get("dispatch") or {}):
            keys.update(x.strip() for x in k.split(","))
        implicit = ("dispatch" not in e and "structured_delegate" not in e) or \
            "CompositeImplicitAutograd" in keys
        rec = ops.setdefault(base, {"overloads": {}, "tags": set(), "tensor_free": True})
        rec["overloads"][ov or "default"] = {
            "composite_implicit": bool(implicit),
            "composite_explicit": bool(keys & COMPOSITE_EXPLICIT),
            "backends": sorted(keys - COMPOSITE_EXPLICIT - {"CompositeImplicitAutograd"}),
            "structured_delegate": e.get("structured_delegate"),
            "args": schema_args(func),
            "view": returns_view(func),
        }
        tags = e.get("tags") or []
        rec["tags"].update([tags] if isinstance(tags, str) else tags)
        if re.search(r"\bTensor\b", func):
            rec["tensor_free"] = False
    for rec in ops.values():
        rec["tags"] = sorted(rec["tags"])
    return {"ops": ops}


if __name__ == "__main__":
    importer_main(load)
