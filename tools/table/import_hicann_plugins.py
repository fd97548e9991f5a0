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

Facts:
  registrations: [{"source", "file", "cann_op", "domain", "opset", "op", "imply_type"}]
"""
import re

from _common import importer_main, open_source, strip_c_comments

SOURCES = ["ops-math-onnx-plugin", "ops-nn-onnx-plugin", "ops-cv-onnx-plugin"]
ORIGIN = re.compile(r'"([A-Za-z_][\w.]*)::(\d+)::(\w+)"')
STMT = re.compile(r'REGISTER_CUSTOM_OP\(\s*"(\w+)"\s*\)(.*?);', re.S)
IMPLY = re.compile(r"ImplyType\(\s*ImplyType::(\w+)\s*\)")
MACRO = re.compile(r"#define\s+(\w+)\(([^)]*)\)((?:[^\n]*\\\n)*[^\n]*)")


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
        for args in re.findall(r"^\s*%s\(([^)]*)\)" % re.escape(name), text, re.M):
            args = [a.strip() for a in args.split(",")]
            m = re.match(r"([A-Za-z_][\w.]*)::(\d+)::(\w+)$", args[i_origin])
            if m:
                out.append((args[i_op], m.group(1), int(m.group(2)), m.group(3),
                            imply.group(1) if imply else None))
    return out


def parse_plugin(text):
    text = strip_c_comments(text)
    regs = []
    for cann, body in STMT.findall(text):
        imply = IMPLY.search(body)
        for dom, ver, op in ORIGIN.findall(body):
            regs.append((cann, dom, int(ver), op, imply.group(1) if imply else None))
    regs.extend(_macro_registrations(text))
    return regs


def load(locations=None):
    """All ONNX-parser registrations found in the pinned hicann repos."""
    out = []
    for sid in SOURCES:
        src = open_source(sid, locations)
        paths = [p for p in src.files("*/framework/*_onnx_plugin.cpp")
                 if not p.startswith("experimental/")]
        texts = src.read_many(paths)
        for path in paths:
            for cann, dom, ver, op, imply in parse_plugin(texts[path]):
                out.append({"source": sid, "file": path, "cann_op": cann, "domain": dom,
                            "opset": ver, "op": op, "imply_type": imply})
    out.sort(key=lambda r: (r["domain"], r["op"], r["opset"], r["source"], r["file"], r["cann_op"]))
    return {"registrations": out}


if __name__ == "__main__":
    importer_main(load)
