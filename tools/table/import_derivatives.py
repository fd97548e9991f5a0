#!/usr/bin/python3
"""Backward formulas: PyTorch's derivatives.yaml and op-plugin's (D16).

Sources: pytorch-derivatives-2.6, -2.14 (pytorch/pytorch tools/autograd/derivatives.yaml,
BSD-style), the copies Debian's python3-torch 2.6.0 and 2.14.1 ship
(torchgen/packaged/autograd/derivatives.yaml; Debian's 1.13.1 package has none, and
torch_npu 2.1 and later pair with PyTorch 2.x), and
op-plugin-derivatives (Ascend/op-plugin op_plugin/config/derivatives.yaml): the NPU
autograd functions torch_npu registers, for its npu_* ops and for the aten ops whose
backward it computes itself (gather, matmul, binary_cross_entropy_with_logits ...).

Per base op (name before the first '.'), per overload of the newest pinned release that
has an entry: what autograd computes for each differentiable input.

  * calls: every function a gradient formula names (`convolution_backward_symint(...)` ->
    `convolution_backward`, `.mm(` -> `mm`); which of them are ATen operators (and so
    have NPU kernels or not) is decided by the table builder against the rows;
  * not_implemented: inputs whose formula is `not_implemented(...)`: PyTorch has no
    derivative for them, training through them fails on any backend;
  * non_differentiable: inputs marked so (an index, a target);
  * differentiable: inputs with a formula other than the two above.

op-plugin entries carry their torch_npu version range (`version:`); an entry of op-plugin
for an aten op replaces PyTorch's on the NPU (torch_npu registers its own autograd kernel).

Facts:
  pytorch: {base: {"overloads": {ov: {"calls": [..], "not_implemented": [..],
                                      "non_differentiable": [..], "differentiable": [..]}},
                   "source": id of the newest release that has it, "since": version}}
  op_plugin: {base: {"overloads": {ov: {... , "versions": [first, last]}}, "source"}}
  autograd_kernels: [base]: op-plugin ops whose kernel is registered at AutogradPrivateUse1
                    (op_plugin_functions.yaml): differentiated through the ops it calls
"""
import re

import yaml

from _common import importer_main, open_source

VERSIONED = [("pytorch-derivatives-2.6", "2.6.0"), ("pytorch-derivatives-2.14", "2.14.1")]
NOT_INPUTS = {"name", "dispatch", "output_differentiability", "result", "version",
              "self_p", "self_t"}
CALL = re.compile(r"(?:\bat::|\.|\b)([A-Za-z_][A-Za-z0-9_]*)\s*\(")
# words a formula calls that are C++ or autograd plumbing, not operators
PLUMBING = {"grad", "grads", "if", "std", "defined", "sym_sizes", "sym_strides", "sizes",
            "strides", "options", "layout", "scalar_type", "dim", "size", "conj", "value",
            "has_value", "toDouble", "expect_int", "get", "tuple", "Tensor", "maybe_multiply",
            "handle_r_to_c", "not_implemented", "non_differentiable", "auto_linear",
            "auto_element_wise", "at", "c10", "optional", "make_tuple", "reverse_list",
            "is_same_size", "to", "contiguous", "requires_grad", "is_complex",
            "is_floating_point", "item", "numel", "sym_numel", "sym_size", "zeros_like_if",
            "TORCH_CHECK", "static_cast", "vector"}


def split_inputs(key):
    return [k.strip() for k in key.split(",") if k.strip()]


def parse(doc, with_version=False):
    """derivatives.yaml -> {base: {"overloads": {ov: facts}}}."""
    entries = doc["backward"] if isinstance(doc, dict) and "backward" in doc else doc
    ops = {}
    for e in entries or []:
        name = e["name"].split("(")[0].strip()
        base, _, ov = name.partition(".")
        rec = {"calls": set(), "not_implemented": [], "non_differentiable": [],
               "differentiable": []}
        items = dict(e)
        # per-dispatch formulas: `Default` is what every backend without its own key
        # (the NPU's PrivateUse1 among them) gets
        if isinstance(items.get("dispatch"), dict):
            items.update(items["dispatch"].get("Default") or {})
        for key, formula in items.items():
            if key in NOT_INPUTS or key.endswith("_p") or key.endswith("_t") or \
                    re.fullmatch(r"result\d*", key):
                continue        # forward-mode (jvp) formulas of the outputs
            text = str(formula)
            for inp in split_inputs(key):
                if text.strip() == "non_differentiable":
                    rec["non_differentiable"].append(inp)
                elif text.strip().startswith("not_implemented"):
                    rec["not_implemented"].append(inp)
                else:
                    rec["differentiable"].append(inp)
            if not text.strip().startswith(("not_implemented", "non_differentiable")):
                for m in CALL.finditer(text):
                    fn = re.sub(r"_symint$", "", m.group(1))
                    if fn not in PLUMBING and not fn[0].isupper():
                        rec["calls"].add(fn)
        rec["calls"] = sorted(rec["calls"])
        if with_version:
            v = e.get("version")
            rec["versions"] = v if isinstance(v, list) else [v]
        ops.setdefault(base, {"overloads": {}})["overloads"][ov or "default"] = rec
    return ops


def load(locations=None):
    """Every pinned PyTorch release's formulas (an op described by the newest that has it),
    and op-plugin's NPU autograd functions."""
    pytorch = {}
    for sid, ver in VERSIONED:
        src = open_source(sid, locations)
        for base, rec in parse(yaml.safe_load(src.read_file())).items():
            first = pytorch.get(base)
            rec["source"] = sid
            rec["since"] = first["since"] if first else ver
            pytorch[base] = rec
    src = open_source("op-plugin-derivatives", locations)
    doc = yaml.safe_load(src.read("op_plugin/config/derivatives.yaml"))
    op_plugin = parse(doc, with_version=True)
    for rec in op_plugin.values():
        rec["source"] = "op-plugin-derivatives"
    return {"pytorch": pytorch, "op_plugin": op_plugin,
            "autograd_kernels": autograd_kernels(open_source("op-plugin-functions", locations))}


def autograd_kernels(src):
    """op-plugin ops registered at AutogradPrivateUse1 (op_plugin_functions.yaml `dispatch:`):
    their kernel is differentiated through what it calls, not by a formula."""
    doc = yaml.safe_load(src.read("op_plugin/config/op_plugin_functions.yaml"))
    out = set()
    for section in doc.values() if isinstance(doc, dict) else []:
        for e in section if isinstance(section, list) else []:
            if isinstance(e, dict) and "AutogradPrivateUse1" in (e.get("dispatch") or {}):
                out.add(e["func"].split("(")[0].split(".")[0].strip())
    return sorted(out)


if __name__ == "__main__":
    importer_main(load)
