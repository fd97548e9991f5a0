#!/usr/bin/python3
"""ATC ONNX parser registrations in the hicann operator repos (D2).

Sources: ops-math-onnx-plugin, ops-nn-onnx-plugin, ops-cv-onnx-plugin
(hicann/ops-* `**/framework/*_onnx_plugin.cpp`, CANN Open Software License 2.0).

Only facts are extracted, with a small parser (no code is kept):
  REGISTER_CUSTOM_OP("<CANN op>") ... .OriginOpType(... "<domain>::<opset>::<Op>" ...)
including registrations spelled through a local macro whose body stringises
its parameters (`REGISTER_CUSTOM_OP(#X) ... .OriginOpType(#Y)`).  The
ImplyType (TVM = AI Core TBE, CUSTOM, AI_CPU...) is kept as well.
`experimental/` trees are skipped (contributions outside the released set).

Subgraph ops (what the node becomes).  GE's ONNX parser replaces a node by
the function subgraph that the registration's `.ParseOpToGraphFn(F)` builds,
whatever CANN type the registration names: `PartitionedCall` always, and a
few direct types too (ReduceMean / ReduceSum / ... at opset 13+ rebuild
themselves, ReduceLogSum 13+ becomes ReduceSum + Log).  Such a registration
has `expanded: true`.  The op types of the subgraph are collected from F and,
transitively, from the file's own functions F calls (and from the other
callbacks of the statement, which build nothing in the pinned snapshots):
every `op::<Type>(` construction (the `ge::op` classes of the op protos,
type = class name) and `OperatorFactory::CreateOperator(<name>, "<Type>")`,
in first-appearance order, each callee's body walked in place of its call.
Every branch is kept, so where the plugin chooses between ops (by rank,
attribute, input count, platform) all alternatives are listed.  Graph
plumbing is dropped: `Data` (subgraph inputs), `Const`/`Constant` (attribute
values turned into inputs), `Identity` and `NoOp` (pass-through outputs the
graph optimiser removes).  Kept: everything else, including shape/layout
helpers (`Cast`, `Squeeze`, `Unsqueeze`, `Transpose`, `Shape`, ...), which are
real device ops.  A registration without F (`expanded: false`) becomes its
CANN op: `subgraph_ops` = [cann_op] followed by any op its callbacks construct
(none in the pinned snapshots).  An empty list means F builds only plumbing
or was not found.
`subgraph_note` (present only when known) states in our words the condition
under which each alternative is used; the notes are ours (SUBGRAPH_NOTES,
checked by hand against the plugin code at the pinned commits) and are only
emitted while the extracted list still contains every op they name.

Facts:
  registrations: [{"source", "file", "cann_op", "domain", "opset", "op", "imply_type",
                   "expanded": bool, "subgraph_ops": [CANN op type, ...],
                   ["subgraph_note": str]}]
"""
import re
import sys

from _common import importer_main, open_source, strip_c_comments

SOURCES = ["ops-math-onnx-plugin", "ops-nn-onnx-plugin", "ops-cv-onnx-plugin"]
ORIGIN = re.compile(r'"([A-Za-z_][\w.]*)::(\d+)::(\w+)"')
STMT = re.compile(r'REGISTER_CUSTOM_OP\(\s*"(\w+)"\s*\)(.*?);', re.S)
IMPLY = re.compile(r"ImplyType\(\s*ImplyType::(\w+)\s*\)")
MACRO = re.compile(r"#define\s+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)")

# callbacks of a registration statement whose functions may build operators
CALLBACK = re.compile(r"\.(\w+Fn)\(\s*([\w#]+)\s*\)")
TO_GRAPH = "ParseOpToGraphFn"
# operator constructions inside a function body
OP_CTOR = re.compile(r'\bop::([A-Z]\w*)\s*\(|OperatorFactory::CreateOperator\([^;]*?"(\w+)"\s*\)')
PLUMBING = {"Data", "Const", "Constant", "Identity", "NoOp"}
FUNC_HEAD = re.compile(r"\b([A-Za-z_]\w*)\s*\(([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*)\)\s*(?:const\s*)?\{")
NOT_FUNC = {"if", "for", "while", "switch", "catch", "return", "sizeof", "defined"}

# Condition notes: (plugin file name, ONNX op) -> [(first opset, last opset,
# ops the note names, note)].  Our own summary of the branches of the builder
# function at the pinned commits; "1-D ... via Unsqueeze/Squeeze" = the 1-D case
# is lifted to 2-D and back.
_POOL_1D = "1-D kernels lifted to 2-D via Unsqueeze/Squeeze"
SUBGRAPH_NOTES = {
    ("conv_onnx_plugin.cpp", "Conv"): [
        (1, 99, ["Conv2D", "Conv3D", "Unsqueeze", "Squeeze"],
         "Conv2D for 1-D/2-D kernels (%s), Conv3D for 3-D kernels (5-D input)" % _POOL_1D)],
    ("conv_transpose_onnx_plugin.cpp", "ConvTranspose"): [
        (1, 99, ["Conv2DTranspose", "Conv3DTranspose", "Unsqueeze", "Squeeze"],
         "Conv2DTranspose for 1-D/2-D kernels (%s), Conv3DTranspose for 3-D kernels" % _POOL_1D)],
    ("gemm_onnx_plugin.cpp", "Gemm"): [
        (1, 99, ["MatMulV2", "Add", "Muls"],
         "MatMulV2 (transA/transB as attributes); with C: + Add, and Muls on both terms unless "
         "alpha = beta = 1; without C only MatMulV2 (alpha not applied)")],
    ("max_pool_onnx_plugin.cpp", "MaxPool"): [
        (1, 99, ["MaxPoolV3", "MaxPool3D", "MaxPool", "TransposeD", "PadV2"],
         "MaxPoolV3 for 1-D/2-D kernels (%s); except on Ascend950, a kernel area > 255 or a stride "
         "> 63 uses MaxPool in NHWC (TransposeD in/out, PadV2 when padded); MaxPool3D for 3-D "
         "kernels" % _POOL_1D)],
    ("average_pool_onnx_plugin.cpp", "AveragePool"): [
        (1, 99, ["AvgPoolV2", "AvgPool3D"],
         "AvgPoolV2 for 1-D/2-D kernels (%s), AvgPool3D for 3-D kernels" % _POOL_1D)],
    ("lppool_onnx_plugin.cpp", "LpPool"): [
        (1, 99, ["Abs", "Power", "AvgPoolV2", "AvgPool3D", "AvgPool", "Muls"],
         "Abs, Power(p), average pool, Muls(kernel size), Power(1/p); pool = AvgPoolV2 for "
         "1-D/2-D kernels (AvgPool in NHWC via Transpose/PadV2 when kernel area > 255 or stride "
         "> 63), AvgPool3D for 3-D kernels")],
    ("concat_onnx_plugin.cpp", "Concat"): [
        (1, 99, ["ConcatD"], "ConcatD; a single input is passed through (Identity)")],
    ("max_onnx_plugin.cpp", "Max"): [
        (1, 99, ["Maximum"], "chain of pairwise Maximum; a single input is passed through")],
    ("min_onnx_plugin.cpp", "Min"): [
        (1, 99, ["Minimum"], "chain of pairwise Minimum; a single input is passed through")],
    ("mean_onnx_plugin.cpp", "Mean"): [
        (1, 99, ["AccumulateNV2", "Muls"], "AccumulateNV2 of the inputs, then Muls by 1/N")],
    ("resize_onnx_plugin.cpp", "Resize"): [
        (10, 10, ["ResizeNearestNeighborV2", "Resize"],
         "mode nearest: ResizeNearestNeighborV2 (Slice takes H, W of the size), linear: Resize; "
         "size = Shape x scales (Cast, Mul)"),
        (11, 99, ["ResizeNearestNeighborV2", "Resize"],
         "mode nearest: ResizeNearestNeighborV2 (Slice takes H, W of the size), linear/cubic: "
         "Resize; size = sizes input (Cast to int32) or Shape x scales")],
    ("split_onnx_plugin.cpp", "Split"): [
        (1, 99, ["Split", "SplitV"],
         "Split when neither split sizes nor num_outputs are given, else SplitV")],
    ("pad_onnx_plugin.cpp", "Pad"): [
        (1, 10, ["MirrorPad", "PadV3"], "MirrorPad for mode=reflect, PadV3 otherwise")],
    ("clip_onnx_plugin.cpp", "Clip"): [
        (1, 10, ["Cast", "ClipByValue"], "input Cast to float32, then ClipByValue"),
        (11, 99, ["ClipByValue", "Minimum", "Maximum"],
         "ClipByValue with min and max; Minimum with max only; Maximum with min only")],
    ("layer_normalization_onnx_plugin.cpp", "LayerNormalization"): [
        (1, 99, ["LayerNorm", "BroadcastTo", "Adds", "Rsqrt", "Cast"],
         "LayerNorm; Scale and B broadcast to the input shape (Shape, BroadcastTo); InvStdDev "
         "from Adds(epsilon) + Rsqrt; Mean/InvStdDev Cast to float32 when stash_type=1")],
    ("bitshift_onnx_plugin.cpp", "BitShift"): [
        (1, 99, ["RightShift", "LeftShift"], "RightShift for direction RIGHT, LeftShift for LEFT")],
    ("scatter_nd_onnx_plugin.cpp", "ScatterND"): [
        (1, 99, ["TensorMove", "ScatterNdUpdate", "ScatterNdAdd", "ScatterNdMax", "ScatterNdMin"],
         "data copied (TensorMove), then ScatterNdUpdate/Add/Max/Min for reduction "
         "none/add/max/min; reduction mul is rejected")],
    ("random_uniform_onnx_plugin.cpp", "RandomUniform"): [
        (1, 99, ["RandomUniformInt", "RandomUniform", "Muls", "Adds"],
         "RandomUniformInt for int32/int64 dtype, else RandomUniform scaled by Muls + Adds")],
}


def _macro_registrations(text):
    """Registrations made through `#define M(A, B, ...)` macros."""
    out = []
    for name, params, body in MACRO.findall(text):
        params = [p.strip() for p in params.split(",")]
        m_op = re.search(r"REGISTER_CUSTOM_OP\(\s*#(\w+)\s*\)", body)
        m_origin = re.search(r"OriginOpType\(\s*#(\w+)\s*\)", body)
        if not (m_op and m_origin):
            continue
        i_op, i_origin = params.index(m_op.group(1)), params.index(m_origin.group(1))
        imply = IMPLY.search(body)
        # callbacks named from a macro parameter (`Fn(Prefix##P)`) are resolved per use
        fns = []
        for kind, arg in CALLBACK.findall(body):
            parts = arg.split("##")
            fns.append((kind, [params.index(p) if p in params else p for p in parts]))
        for args in re.findall(r"^\s*%s\(([^)]*)\)" % re.escape(name), text, re.M):
            args = [a.strip() for a in args.split(",")]
            m = re.match(r"([A-Za-z_][\w.]*)::(\d+)::(\w+)$", args[i_origin])
            if m:
                callbacks = [(kind, "".join(args[p] if isinstance(p, int) else p for p in parts))
                             for kind, parts in fns]
                out.append((args[i_op], m.group(1), int(m.group(2)), m.group(3),
                            imply.group(1) if imply else None, callbacks))
    return out


def _block_end(text, start):
    """Index just past the `}` matching the `{` at text[start] (skips literals)."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _functions(text):
    """{name: body} of the file's function definitions (outermost ones; an
    overloaded name keeps all its bodies, concatenated in file order)."""
    funcs = {}
    pos = 0
    while True:
        m = FUNC_HEAD.search(text, pos)
        if not m:
            break
        brace = m.end() - 1
        if m.group(1) in NOT_FUNC:
            pos = m.end()
            continue
        end = _block_end(text, brace)
        funcs[m.group(1)] = funcs.get(m.group(1), "") + text[brace:end]
        pos = end
    return funcs


def _constructed_ops(funcs, name, seen=None):
    """Op types constructed by funcs[name] and the file functions it calls, in order."""
    seen = set() if seen is None else seen
    if name in seen or name not in funcs:
        return []
    seen.add(name)
    body = funcs[name]
    events = [(m.start(), "op", m.group(1) or m.group(2)) for m in OP_CTOR.finditer(body)]
    events += [(m.start(), "call", m.group(1))
               for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", body)
               if m.group(1) in funcs and m.group(1) != name]
    out = []
    for _pos, kind, val in sorted(events):
        for op in ([val] if kind == "op" else _constructed_ops(funcs, val, seen)):
            if op not in out:
                out.append(op)
    return out


def _subgraph_ops(cann, callbacks, funcs):
    """(expanded, ops) of one registration; callbacks = [(kind, function name)]."""
    expanded = any(kind == TO_GRAPH for kind, _fn in callbacks)
    ops = [] if expanded else [cann]
    for _kind, fn in callbacks:
        for op in _constructed_ops(funcs, fn):
            if op not in PLUMBING and op not in ops:
                ops.append(op)
    return expanded, ops


def parse_plugin(text):
    """[(cann_op, domain, opset, op, imply_type, (expanded, subgraph_ops))] of one plugin file."""
    text = strip_c_comments(text)
    funcs = _functions(text)
    regs = []
    for cann, body in STMT.findall(text):
        imply = IMPLY.search(body)
        ops = _subgraph_ops(cann, CALLBACK.findall(body), funcs)
        for dom, ver, op in ORIGIN.findall(body):
            regs.append((cann, dom, int(ver), op, imply.group(1) if imply else None, ops))
    for cann, dom, ver, op, imply, callbacks in _macro_registrations(text):
        regs.append((cann, dom, ver, op, imply, _subgraph_ops(cann, callbacks, funcs)))
    return regs


def _note(path, op, opset, ops):
    for lo, hi, needed, note in SUBGRAPH_NOTES.get((path.rsplit("/", 1)[-1], op), []):
        if not lo <= opset <= hi:
            continue
        missing = [o for o in needed if o not in ops]
        if missing:
            sys.stderr.write("import_hicann_plugins: note for %s %s %d dropped, %s not built\n"
                             % (path, op, opset, ", ".join(missing)))
            return None
        return note
    return None


def load(locations=None):
    """All ONNX-parser registrations found in the pinned hicann repos."""
    out = []
    for sid in SOURCES:
        src = open_source(sid, locations)
        paths = [p for p in src.files("*/framework/*_onnx_plugin.cpp")
                 if not p.startswith("experimental/")]
        texts = src.read_many(paths)
        for path in paths:
            for cann, dom, ver, op, imply, (expanded, ops) in parse_plugin(texts[path]):
                rec = {"source": sid, "file": path, "cann_op": cann, "domain": dom,
                       "opset": ver, "op": op, "imply_type": imply, "expanded": expanded,
                       "subgraph_ops": list(ops)}
                note = _note(path, op, ver, ops)
                if note:
                    rec["subgraph_note"] = note
                out.append(rec)
    out.sort(key=lambda r: (r["domain"], r["op"], r["opset"], r["source"], r["file"], r["cann_op"]))
    return {"registrations": out}


if __name__ == "__main__":
    importer_main(load)
