"""The backward answer of ATen and npu rows: what a training step runs for the operator's
gradient on the NPU (tools/table/import_derivatives.py). build_table.py calls
`annotate(builder)` once every row has its eager status; the rules are in
tools/table/README.md ("Backward") and docs/table-format.md ("backward").

Per row (aten or npu, not structural), `r.backward` = {status, via, ops, helpers, note,
grade, sources}:

* via `npu`: op-plugin registers its own autograd function for the op (its
  derivatives.yaml): the backward is what that function calls (npu_*_backward ...);
* via `pytorch`: PyTorch's derivatives.yaml (newest pinned release that has the op): the
  backward is what its gradient formulas call;
* `ops`: the functions called that are operators of the table (`aten::convolution_backward`);
  status is the worst eager status among them (a backward op with no NPU kernel makes the
  backward partial or rewrite, as the op's own row says); `helpers`: functions of PyTorch's
  autograd (FunctionsManual: `mm_mat1_backward`) built from ATen operators, not resolved
  further;
* `none`: nothing to differentiate (every input and output is non-differentiable, or the
  op returns no tensor, or it is a view or metadata query whose gradient is the identity on
  the alias); `decomposed`: CompositeImplicitAutograd, autograd differentiates what it
  decomposes into (an in-place op is answered by its functional form);
* `missing`: an npu op torch_npu registers no backward for: gradients cannot flow through
  it (inference-only unless nothing upstream needs a gradient);
* PyTorch formulas that are `not_implemented` for an input are noted: training through
  that input fails on every device, not only on Ascend.
"""

RANK = {"none": 0, "decomposed": 0, "full": 1, "partial": 2, "missing": 2, "rewrite": 3}


def _not_out(ovs):
    """The overloads autograd sees: out= variants are never differentiated."""
    return [o for k, o in ovs.items() if "out" not in k.split("_")] or list(ovs.values())


def _formula(der, op):
    """(via, facts) of the formula that answers for `op`: op-plugin's own autograd
    function first (torch_npu registers it for the NPU), then PyTorch's; an in-place op
    (`relu_`) by its functional form."""
    for name, suffix in ((op, ""), (op[:-1], "-functional")):
        if name != op and not (op.endswith("_") and not op.startswith("_")):
            break
        if name in der["op_plugin"]:
            return "npu" + suffix, der["op_plugin"][name]
        if name in der["pytorch"]:
            return "pytorch" + suffix, der["pytorch"][name]
    return None, None


def answer(builder, domain, op):
    """The backward answer of one row, as written to the table."""
    der = builder.f["derivatives"]
    nat = builder.f["native"]["ops"]
    n = nat.get(op)
    if n is None and op.endswith("_") and not op.startswith("_"):
        n = nat.get(op[:-1])
    via, rec = _formula(der, op)
    if not (via or "").startswith("npu") and n and \
            all(o["composite_implicit"] for o in _not_out(n["overloads"])):
        # a CompositeImplicitAutograd kernel covers the Autograd keys too: autograd runs
        # the decomposition, whatever formula a backend-specific entry (MPS) has
        return {"status": "decomposed", "note": "CompositeImplicitAutograd: autograd "
                "differentiates the operators it decomposes into, each with its own backward",
                "sources": [n["source"]]}
    if rec is None and op in der["autograd_kernels"]:
        inner = der["op_plugin"].get("_" + op)
        return {"status": "full" if inner else "decomposed",
                "note": "op-plugin registers its kernel at AutogradPrivateUse1: autograd "
                "differentiates what it calls%s" % (" (_%s, whose backward torch_npu "
                                                   "registers)" % op if inner else ""),
                "sources": ["op-plugin-derivatives", "op-plugin-functions"]}
    if rec is None:
        if domain == "npu":
            return {"status": "missing", "note": "torch_npu registers no backward for it "
                    "(op-plugin's derivatives.yaml has no entry): gradients cannot flow through "
                    "it; use it where nothing upstream needs a gradient (inference)",
                    "sources": ["op-plugin-derivatives"]}
        if n is None:
            return None
        if n["metadata"] or n["tensor_free"] or all(
                o["view"] or not o["returns_tensor"] for o in _not_out(n["overloads"])):
            return {"status": "none", "note": "a view, a metadata query or no tensor result: "
                    "no backward kernel runs", "sources": [n["source"]]}
        return {"status": "none", "note": "no derivative formula in the pinned PyTorch "
                "releases: autograd treats its result as not differentiable (integer, boolean "
                "or index results) or fails on every device alike", "sources": [
                    "pytorch-derivatives-2.14"]}
    ovs = rec["overloads"].values()
    calls = sorted({c for o in ovs for c in o["calls"]})
    differentiable = any(o["differentiable"] for o in ovs)
    not_impl = sorted({x for o in ovs for x in o["not_implemented"]})
    src = rec["source"]
    if not differentiable:
        out = {"status": "none", "note": "not differentiable (derivatives.yaml marks no input "
               "or output differentiable)", "sources": [src]}
        if not_impl:
            out["note"] += "; PyTorch implements no derivative for %s" % ", ".join(not_impl)
        return out
    ops, helpers, worst = [], [], "full"
    for c in calls:
        for dom in (("npu", "aten") if via.startswith("npu") else ("aten", "npu")):
            row = builder.rows.get((dom, c, None))
            if row is not None:
                ops.append("%s::%s" % (dom, c))
                st = "full" if row.status == "structural" else row.status
                if RANK[st] > RANK[worst]:
                    worst = st
                break
        else:
            helpers.append(c)
    out = {"status": worst, "via": via.replace("-functional", ""), "ops": ops, "sources": [src]}
    if helpers:
        out["helpers"] = helpers
    notes = []
    if via.endswith("-functional"):
        notes.append("answered by its functional form %s" % op[:-1])
    if via.startswith("npu"):
        notes.append("torch_npu's own autograd function (op-plugin derivatives.yaml)")
    if worst != "full":
        bad = [o for o in ops if builder.rows[(o.split("::")[0], o.split("::")[1], None)].status
               == worst]
        notes.append("its backward runs %s, %s on the NPU" % (", ".join(bad), worst))
    if not ops and helpers:
        notes.append("computed by PyTorch autograd helpers built from ATen operators (%s)"
                     % ", ".join(helpers[:4]))
    if not_impl:
        notes.append("PyTorch implements no derivative for %s (training through it fails on "
                     "every device)" % ", ".join(not_impl))
    if notes:
        out["note"] = "; ".join(notes)
    return out


def annotate(builder):
    """Sets r.backward on every aten and npu row that is not structural; returns how many."""
    n = 0
    for (dom, op, since), r in builder.rows.items():
        if dom not in ("aten", "npu") or since is not None or r.status == "structural":
            continue
        a = answer(builder, dom, op)
        if a:
            # read from a formula: the source's grade; inferred from its absence: derived
            a["grade"] = "kernel" if "via" in a else "derived"
            r.backward = a
            n += 1
    return n
