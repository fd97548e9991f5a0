#!/usr/bin/python3
"""aten schemas and dispatch of PyTorch's native_functions.yaml (D15).

Sources: pytorch-native-functions, -2.6, -2.14 (pytorch/pytorch
aten/src/ATen/native/native_functions.yaml, BSD-style), the copies Debian's
python3-torch 1.13.1 (the torch the TorchScript kinds were collected with), 2.6.0
and 2.14.1 ship (torchgen/packaged/...), so the rows cover the ATen operators of
the PyTorch releases torch_npu 2.1 .. 2.15 pairs with, and say since when each
exists.  An op is described by the newest pinned release that has it.

Per base op (name before the first '.'), per overload:
  * composite_implicit: no `dispatch:` and no `structured_delegate:` (the
    implicit CompositeImplicitAutograd), or an explicit CompositeImplicitAutograd
    key -> the op is a decomposition into other aten ops on every backend;
  * composite_explicit: CompositeExplicitAutograd[NonFunctional] key -> a
    backend-agnostic kernel written in terms of other aten ops;
  * backends: the other dispatch keys (CPU, CUDA, ...);
  * tags (nondeterministic_seeded = random op), and whether the schema
    mentions Tensor at all.

  * metadata: every overload returns no tensor and runs without a device guard
    (size, dim, numel, stride, is_contiguous, ...): a query of the tensor's
    description on the host, no kernel;
  * the schema's arguments in order (TorchScript passes every argument of the
    matched schema by position, keyword-only ones included), with their types and
    defaults, and whether it returns a view of an input (`-> Tensor(a)` with an
    input `Tensor(a)`: an alias, no kernel runs).

Facts:
  versions: ["1.13.1", "2.6.0", "2.14.1"]
  ops: {base: {"overloads": {ov: {"composite_implicit", "composite_explicit",
                                   "backends", "structured_delegate",
                                   "args": [{"name", "type", "default"}], "view": bool,
                                   "returns_tensor": bool, "device_guard": bool}},
               "tags": [..], "tensor_free": bool, "metadata": bool,
               "since": first pinned version, "until": last pinned version (None: the newest),
               "source": the source id described, "classified_as": {version: kind} when
               the newest and an older release classify it differently}}
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


VERSIONED = [("pytorch-native-functions", "1.13.1"), ("pytorch-native-functions-2.6", "2.6.0"),
             ("pytorch-native-functions-2.14", "2.14.1")]


def parse(doc):
    """native_functions.yaml reduced to dispatch facts per aten base op."""
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
            "returns_tensor": bool(re.search(r"\bTensor\b", arg_list(func)[1])),
            "device_guard": e.get("device_guard", True) is not False,
        }
        tags = e.get("tags") or []
        rec["tags"].update([tags] if isinstance(tags, str) else tags)
        if re.search(r"\bTensor\b", func):
            rec["tensor_free"] = False
    for rec in ops.values():
        rec["tags"] = sorted(rec["tags"])
        ovs = rec["overloads"].values()
        rec["metadata"] = not rec["tensor_free"] and all(
            not o["returns_tensor"] and not o["device_guard"] for o in ovs)
    return ops


def kind(rec):
    """A coarse classification, to tell when releases disagree."""
    ovs = rec["overloads"].values()
    if rec["metadata"]:
        return "metadata"
    if rec["tensor_free"]:
        return "tensor-free"
    if all(o["composite_implicit"] for o in ovs):
        return "CompositeImplicitAutograd"
    return "kernel"


def load(locations=None):
    """Every pinned release's ops; each base described by the newest release that has it."""
    per = []
    for sid, ver in VERSIONED:
        src = open_source(sid, locations)
        per.append((sid, ver, parse(yaml.safe_load(src.read_file()))))
    ops = {}
    newest = per[-1][1]
    for sid, ver, vops in per:
        for base, rec in vops.items():
            first = ops.get(base)
            rec = dict(rec)
            rec["source"] = sid
            rec["since"] = first["since"] if first else ver
            rec["until"] = None if ver == newest else ver
            rec["classified_as"] = dict(first["classified_as"]) if first else {}
            rec["classified_as"][ver] = kind(rec)
            ops[base] = rec
    for rec in ops.values():
        if len(set(rec["classified_as"].values())) == 1:
            rec["classified_as"] = {}
    return {"versions": [v for _, v, _ in per], "ops": ops}


if __name__ == "__main__":
    importer_main(load)
