#!/usr/bin/python3
"""Writes the hostile-input corpus of tests/hostile/ (issue 9) and its manifest.

Every file is hand-encoded here (protobuf wire format, zip, pickle, YAML), so no torch and
no python3-onnx is needed and nothing a well-behaved writer would refuse is out of reach.
The only outside input is libonnx-testdata, whose real models are cut at many offsets.

Usage:
    make_hostile.py [OUT_DIR]          (default: the cases/ folder next to this script)

Writes OUT_DIR/*.onnx|*.yaml|*.pt|... and OUT_DIR/manifest.json. Each manifest entry says
how `opmap scan` must end on the file (tests/hostile/run_hostile.py checks it):

    file        the case file (relative to OUT_DIR)
    what        one line: what the file does
    table       true: the file is a table (--table FILE, scanning a small real model)
    expect      "error": exit 3, exactly one line on stderr naming the file and `where`
                "valid": exit 0 or 1, and the JSON report holds `diag` (a substring of a
                         diagnostic message) when given
    where       a regular expression the error line must match after the file name
                (the offset / line:column / entry, or what names the whole file)
    diag        see "valid"

Cases too big to commit (over ~400 KB) are not written here: run_hostile.py generates them
at run time with the functions below (see RUNTIME_CASES).
"""
import json
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")

# ---------------------------------------------------------------------------------------
# protobuf wire format
# ---------------------------------------------------------------------------------------


def varint(n):
    """Unsigned LEB128; n may be up to 2^64-1."""
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def tag(num, wt):
    return varint(num << 3 | wt)


def f_len(num, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return tag(num, 2) + varint(len(payload)) + payload


def f_int(num, v):
    return tag(num, 0) + varint(v & 0xFFFFFFFFFFFFFFFF)


# ONNX messages (field numbers: src/readers/onnx/onnx_fields.h)

def opset(domain, version):
    return (f_len(1, domain) if domain else b"") + f_int(2, version)


def attr_graph(name, g, many=False):
    if many:
        return f_len(1, name) + f_int(20, 10) + b"".join(f_len(11, x) for x in g)
    return f_len(1, name) + f_int(20, 5) + f_len(6, g)


def attr_str(name, s):
    return f_len(1, name) + f_int(20, 3) + f_len(4, s)


def node(op, name=None, inputs=(), outputs=(), attrs=(), domain=None):
    out = b"".join(f_len(1, i) for i in inputs) + b"".join(f_len(2, o) for o in outputs)
    if name is not None:
        out += f_len(3, name)
    if op is not None:
        out += f_len(4, op)
    out += b"".join(f_len(5, a) for a in attrs)
    if domain is not None:
        out += f_len(7, domain)
    return out


def tensor_type(elem, dims=None):
    shape = b""
    if dims is not None:
        shape = f_len(2, b"".join(f_len(1, f_int(1, d) if isinstance(d, int) else f_len(2, d))
                                  for d in dims))
    return f_len(1, f_int(1, elem) + shape)


def value_info(name, elem=1, dims=None):
    return f_len(1, name) + f_len(2, tensor_type(elem, dims))


def tensor(name, dims=(), dtype=1, raw=b""):
    out = b"".join(f_int(1, d) for d in dims) + f_int(2, dtype) + f_len(8, name)
    if raw:
        out += f_len(9, raw)
    return out


def graph(nodes, name="g", inputs=(), outputs=(), inits=()):
    return (b"".join(f_len(1, n) for n in nodes) + f_len(2, name) +
            b"".join(f_len(5, t) for t in inits) +
            b"".join(f_len(11, v) for v in inputs) + b"".join(f_len(12, v) for v in outputs))


def function(name, domain, nodes, opsets=(("", 17),)):
    return (f_len(1, name) + f_len(10, domain) + b"".join(f_len(7, n) for n in nodes) +
            b"".join(f_len(9, opset(d, v)) for d, v in opsets))


def model(g, opsets=(("", 17),), functions=(), ir=8, producer="hostile"):
    return (f_int(1, ir) + f_len(2, producer) + f_len(7, g) +
            b"".join(f_len(8, opset(d, v)) for d, v in opsets) +
            b"".join(f_len(25, fn) for fn in functions))


def relu_model():
    return model(graph([node("Relu", "r", ["x"], ["y"])], inputs=[value_info("x", 1, [2])],
                       outputs=[value_info("y", 1, [2])]))


# ---------------------------------------------------------------------------------------
# ONNX cases
# ---------------------------------------------------------------------------------------


def nested_if(levels):
    """`levels` If nodes (op_type and then_branch only), each holding the next; innermost:
    one Relu.

    Built as prefixes and suffixes around the innermost graph (each level's framing
    depends only on the length of what it wraps), so 40,000 levels take no quadratic time."""
    inner = graph([node("Relu", None, ["x"], ["y"])])
    size = len(inner)
    heads, tails = [], []
    name = f_len(2, "g")  # graph() writes the name after the nodes
    for _ in range(levels):
        # attribute: name, type GRAPH, then field 6 = the inner graph
        attr_head = f_len(1, "then_branch") + f_int(20, 5) + tag(6, 2) + varint(size)
        attr_len = len(attr_head) + size
        node_head = f_len(4, "If") + tag(5, 2) + varint(attr_len)
        node_len = len(node_head) + attr_len
        graph_head = tag(1, 2) + varint(node_len)
        heads.append(graph_head + node_head + attr_head)
        tails.append(name)
        size = len(graph_head) + node_len + len(name)
    return model(b"".join(reversed(heads)) + inner + b"".join(tails))


def fan_out(levels, leaf_nodes, subgraphs_per_leaf=0):
    """F0 calls F1 twice, F1 calls F2 twice, ... F(levels-1) holds `leaf_nodes` Relus (and
    one node with `subgraphs_per_leaf` empty subgraphs when asked): 2^levels expansions."""
    fns = []
    for i in range(levels):
        fns.append(function(f"F{i}", "fan", [node(f"F{i + 1}", None, ["x"], ["y"],
                                                  domain="fan")] * 2))
    leaf = [node("Relu", None, ["x"], ["y"])] * leaf_nodes
    if subgraphs_per_leaf:
        empty = graph([], name="e")
        leaf.append(node("If", None, ["c"], ["y"],
                         [attr_graph("branches", [empty] * subgraphs_per_leaf, many=True)]))
    fns.append(function(f"F{levels}", "fan", leaf))
    return model(graph([node("F0", "call", ["x"], ["y"], domain="fan")]),
                 opsets=(("", 17), ("fan", 1)), functions=fns)


def long_name_fan_out(levels, name_bytes):
    """Like fan_out, but the leaf calls an empty function through a node whose name is
    `name_bytes` long: each expansion would copy the name into the node path."""
    fns = []
    for i in range(levels):
        fns.append(function(f"F{i}", "fan", [node(f"F{i + 1}", None, ["x"], ["y"],
                                                  domain="fan")] * 2))
    fns.append(function(f"F{levels}", "fan",
                        [node("E", "n" * name_bytes, ["x"], ["y"], domain="fan")]))
    fns.append(function("E", "fan", []))
    return model(graph([node("F0", "call", ["x"], ["y"], domain="fan")]),
                 opsets=(("", 17), ("fan", 1)), functions=fns)


def recursive_functions(cycle):
    """Functions R0 -> R1 -> ... -> R(cycle-1) -> R0, each also holding one Relu."""
    fns = [function(f"R{i}", "rec", [node("Relu", None, ["x"], ["y"]),
                                     node(f"R{(i + 1) % cycle}", None, ["x"], ["y"],
                                          domain="rec")])
           for i in range(cycle)]
    return model(graph([node("R0", "call", ["x"], ["y"], domain="rec")]),
                 opsets=(("", 17), ("rec", 1)), functions=fns)


def inputs_vs_initializers(n):
    """n graph inputs and n initializers with distinct names: a quadratic name match
    between them (older exporters list initializers as inputs) must not be."""
    inputs = [value_info(f"i{k}") for k in range(n)]
    inits = [tensor(f"w{k}") for k in range(n)]
    return model(graph([node("Relu", None, ["i0"], ["y"])], inputs=inputs, inits=inits))


def header_then(payload_field):
    """ir_version, then one top-level field."""
    return f_int(1, 8) + payload_field


def onnx_cases():
    cases = []

    def add(name, data, what, expect="error", where=None, **kw):
        cases.append(dict(file=name, data=data, what=what, expect=expect, where=where, **kw))

    relu = relu_model()
    add("length_past_end.onnx", f_int(1, 8) + tag(7, 2) + varint(1 << 40) + b"xy",
        "ModelProto.graph declares 2^40 bytes, 2 follow", where=r"offset 2: .*past the end")
    add("length_2_63.onnx", f_int(1, 8) + tag(7, 2) + varint(1 << 63) + b"xy",
        "a length of 2^63", where=r"offset 2: .*past the end")
    add("length_2_64_minus_1.onnx", f_int(1, 8) + tag(7, 2) + varint((1 << 64) - 1) + b"xy",
        "a length of 2^64-1 (offset + length overflows)", where=r"offset 2: .*past the end")
    inner = node("Relu", None, ["x"], ["y"]) + tag(5, 2) + varint(1 << 62) + b"ab"
    g = f_len(1, inner)
    add("inner_length_past_end.onnx", f_int(1, 8) + f_len(7, g),
        "an attribute inside a node claims 2^62 bytes", where=r"offset \d+: .*past the end")
    add("varint_11_bytes.onnx", f_int(1, 8) + tag(5, 0) + b"\x80" * 10 + b"\x00",
        "an 11-byte varint", where=r"offset 3: .*varint")
    add("varint_10th_byte_overflow.onnx", f_int(1, 8) + tag(5, 0) + b"\xff" * 9 + b"\x02",
        "a 10-byte varint whose value needs 65 bits", where=r"offset 3: .*overflows 64 bits")
    add("truncated_varint.onnx", f_int(1, 8) + tag(5, 0) + b"\xff\xff",
        "a varint cut off by the end of the file", where=r"offset 3: .*truncated varint")
    add("group_wire_type.onnx", f_int(1, 8) + tag(7, 3),
        "the deprecated group wire type", where=r"offset 2: .*group")
    add("wire_type_7.onnx", f_int(1, 8) + tag(7, 7), "wire type 7 does not exist",
        where=r"offset 2: .*wire type")
    add("field_number_0.onnx", f_int(1, 8) + b"\x02\x00", "field number 0",
        where=r"offset 2: .*field number")
    add("graph_as_varint.onnx", f_int(1, 8) + f_int(7, 5),
        "ModelProto.graph written as a varint", where=r"offset 2: .*graph")
    add("fixed64_truncated.onnx", f_int(1, 8) + tag(9, 1) + b"\x01\x02",
        "a fixed64 cut off", where=r"offset 2: .*truncated fixed64")
    add("not_onnx_text.onnx", b"hello, I am not a model\n", "plain text",
        where=r"offset \d+: ")
    add("empty.onnx", b"", "an empty file", where=r"empty")
    add("no_graph.onnx", f_int(1, 8) + f_len(8, opset("", 17)), "a ModelProto without a graph",
        where=r"no graph")
    add("node_without_op_type.onnx", model(graph([node(None, "n", ["x"], ["y"])])),
        "a node with no op_type", where=r"offset \d+: .*no op_type")
    add("name_over_1mib_claim.onnx",
        f_int(1, 8) + f_len(7, f_len(1, tag(3, 2) + varint(2 << 20) + b"n" * 10)),
        "a node name claiming 2 MiB with 10 bytes present", where=r"offset \d+: .*past the end")
    # a node whose name holds newlines and terminal escapes, and which has no op_type: the
    # one-line error message must not carry them to the terminal
    add("error_message_escapes.onnx",
        model(graph([node(None, "evil\n\x1b[2J\x1b]0;pwned\x07\r\nopmap: fake", ["x"],
                          ["y"])])),
        "an error message quoting a name with newlines and escape sequences",
        where=r"offset \d+: .*no op_type", clean_stderr=True)
    add("string_attribute_without_s.onnx",
        model(graph([node("Pad", None, ["x", "p"], ["y"], [f_len(1, "mode") + f_int(20, 3)])])),
        "a Pad whose `mode` declares type STRING and has no value (the scan read a NULL "
        "string: found by fuzz_onnx)", expect="valid")
    # risk messages are built in a 512-byte buffer: these overflowed it (found by fuzz_onnx)
    add("risk_message_dims.onnx",
        model(graph([node("Relu", None, ["i" * 62], ["y"])],
                    inputs=[value_info("i" * 62, 1, ["d" * 40] * 12)])),
        "an input with twelve 40-byte symbolic dimensions (the dynamic-shape message ran "
        "past its buffer)", expect="valid")
    add("risk_message_reshape.onnx",
        model(graph([node("Reshape", None, ["x", "s"], ["y"])],
                    inits=[tensor("s", [4], 11, struct.pack("<4d", -1.0, 1e308, 1e190, 1.0))])),
        "a Reshape whose constant target holds -1, 1e308 and 1e190 (printed with 309 and 191 digits)",
        expect="valid")
    add("deep_if_10000.onnx", nested_if(10000), "10,000 nested If subgraphs",
        where=r"offset \d+: .*max_depth")
    add("deep_if_65.onnx", nested_if(65), "65 nested If subgraphs (one over max_depth)",
        where=r"offset \d+: .*max_depth")
    add("deep_if_64.onnx", nested_if(64), "64 nested If subgraphs (max_depth exactly)",
        expect="valid")
    deep_type = tensor_type(1)
    for _ in range(10000):
        deep_type = f_len(4, f_len(1, deep_type))  # sequence of sequence of ...
    add("deep_type_10000.onnx",
        model(f_len(1, node("Relu", None, ["x"], ["y"])) + f_len(2, "g") +
              f_len(11, f_len(1, "x") + f_len(2, deep_type))),
        "a value type nested 10,000 sequences deep", where=r"offset \d+: .*max_depth")
    add("recursive_self.onnx", recursive_functions(1),
        "a local function that calls itself (valid ONNX)", expect="valid",
        diag="recursive call")
    add("recursive_mutual.onnx", recursive_functions(3),
        "three local functions calling each other in a cycle", expect="valid",
        diag="recursive call")
    add("fan_out_40.onnx", fan_out(40, 1),
        "function fan-out: 40 levels of two calls each, one Relu at the bottom (2^40)",
        where=r"max_nodes")
    add("fan_out_40_empty.onnx", fan_out(40, 0),
        "function fan-out whose bottom function is empty: 2^41 calls, no instances",
        where=r"max_expansions")
    add("fan_out_20_subgraphs.onnx", fan_out(20, 0, 2000),
        "function fan-out whose bottom holds a node with 2,000 empty subgraphs",
        where=r"max_expansions")
    add("fan_out_long_names.onnx", long_name_fan_out(21, 100000),
        "function fan-out (2^22 calls, under max_expansions) through a call node with a 100 KB name",
        where=r"max_heap_bytes")
    add("external_data_bad_offset.onnx",
        model(graph([node("Relu", None, ["x"], ["y"])],
                    inits=[tensor("w") + f_len(13, f_len(1, "offset") + f_len(2, "-1")) +
                           f_int(14, 1)])),
        "external_data offset '-1'", where=r"offset \d+: .*not a number")
    add("external_data_huge.onnx",
        model(graph([node("Relu", None, ["x"], ["y"])],
                    inits=[tensor(f"w{i}") + f_len(13, f_len(1, "length") +
                                                     f_len(2, "18446744073709551615")) +
                           f_int(14, 1) for i in range(3)])),
        "external tensors whose lengths add up past 2^64", expect="valid")
    add("dims_2_63.onnx",
        model(graph([node("Reshape", None, ["x", "s"], ["y"])],
                    inits=[tensor("s", dims=[(1 << 63) + 5, 3], dtype=7, raw=b"\0" * 8)])),
        "a tensor whose dims multiply past 2^64", expect="valid")
    # many attributes, each with a packed ints list whose varints are all continuation bytes
    add("packed_ints_unterminated.onnx",
        model(graph([node("Relu", None, ["x"], ["y"],
                          [f_len(1, "a") + f_int(20, 7) + f_len(8, b"\x80" * 64)])])),
        "a packed ints attribute whose last varint never ends", where=r"offset \d+: .*varint")

    # truncations of real models: inside the graph field, so every cut is an error
    for rel in ("node/test_if/model.onnx", "node/test_loop11/model.onnx",
                "node/test_scan9_sum/model.onnx", "node/test_resize_upsample_scales_cubic/model.onnx",
                "pytorch-converted/test_PReLU_1d/model.onnx",
                "node/test_range_float_type_positive_delta_expanded/model.onnx"):
        path = os.path.join(TESTDATA, rel)
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        start, end = graph_span(data)
        base = rel.split("/")[1]
        step = max(1, (end - start) // 24)
        # (a cut right at `start` leaves a valid ModelProto without a graph: not a truncation)
        cuts = sorted(set(list(range(start + 1, end, step)) + [start + 1, start + 2, end - 1]))
        for cut in cuts:
            if start < cut < end:
                add(f"trunc/{base}.{cut}.onnx", data[:cut],
                    f"{rel} cut at byte {cut} (its graph spans [{start}, {end}))",
                    where=r"offset \d+: ")
    return cases


def graph_span(data):
    """[start, end) of the top-level graph field (tag included) of a ModelProto."""
    pos = 0
    while pos < len(data):
        t, p = read_varint(data, pos)
        wt, num = t & 7, t >> 3
        if wt == 0:
            _, p = read_varint(data, p)
        elif wt == 2:
            n, q = read_varint(data, p)
            if num == 7:
                return pos, q + n
            p = q + n
        elif wt == 1:
            p += 8
        elif wt == 5:
            p += 4
        else:
            raise ValueError("unexpected wire type")
        pos = p
    raise ValueError("no graph")


def read_varint(data, pos):
    v = shift = 0
    while True:
        b = data[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, pos


# ---------------------------------------------------------------------------------------
# output safety: model strings that try to be markup, formulas or terminal commands
# ---------------------------------------------------------------------------------------

EVIL = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "\"><svg onload=alert(1)>",
    "' onmouseover='alert(1)",
    "=cmd|' /C calc'!A0",
    "+SUM(1+1)*cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\x1b[2J\x1b[31mred\x1b]0;title\x07",
    "line1\nline2\r\n| md | table |",
    "`code` **bold** [link](javascript:alert(1))",
    "\u009b31mC1-CSI",
    "]]><x>&amp;&lt;",
    "\ufffe\uffffnonchar",   # valid UTF-8, but not XML 1.0 characters
]


def escaping_model():
    """Every string a report shows, from a model: node names, op types, domains, producer,
    graph inputs (names and symbolic dims), opset domains, external data locations."""
    nodes, fns = [], []
    for i, s in enumerate(EVIL):
        nodes.append(node(s, s, ["x"], [f"y{i}"], domain=s))          # unmapped op
        nodes.append(node("Relu", s, ["x"], [f"r{i}"]))                # mapped op, evil path
    sub = graph([node("Relu", EVIL[0], ["x"], ["z"])], name=EVIL[1])
    nodes.append(node("If", EVIL[2], ["c"], ["q"], [attr_graph(EVIL[3], sub)]))
    nodes.append(node("Rec", EVIL[4], ["x"], ["w"], domain="rec"))
    # bytes that are not UTF-8 (a lone 0xFF, an overlong '/', a UTF-16 surrogate)
    nodes.append(node(b"Bad\xff\xfeOp", b"n\xc0\xaf\xed\xa0\x80", ["x"], ["z"],
                      domain=b"bad\xffdomain"))
    fns.append(function("Rec", "rec", [node("Rec", EVIL[8], ["x"], ["w"], domain="rec")]))
    inputs = [value_info(s, 11, [s, 3]) for s in EVIL[:6]]          # float64, dynamic dims
    inits = [tensor(EVIL[5]) + f_len(13, f_len(1, "location") + f_len(2, EVIL[0])) + f_int(14, 1)]
    opsets = [("", 17), ("rec", 1)] + [(s, 1) for s in EVIL]
    return model(graph(nodes, name=EVIL[1], inputs=inputs, inits=inits), opsets=opsets,
                 functions=fns, producer=EVIL[0] + EVIL[8])


# ---------------------------------------------------------------------------------------
# YAML tables
# ---------------------------------------------------------------------------------------

def many_sources(n, dup=False):
    """A table with n sources and n rows naming one each (dup: the last source repeats the
    first id). Checking ids must not be quadratic in n."""
    src = "".join(f"  - {{id: s{i}, title: t}}\n" for i in range(n))
    if dup:
        return f"schema: 1\nsources:\n{src}  - {{id: s0, title: again}}\nops: []\n".encode()
    rows = "".join(f"  - {{domain: x, op: o{i}, status: full, sources: [s{n - 1 - i}]}}\n"
                   for i in range(n))
    return f"schema: 1\nsources:\n{src}ops:\n{rows}".encode()


def billion_laughs():
    lines = ['schema: 1', 'lol0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        lines.append(f"lol{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 9) + "]")
    lines.append("ops: *a9")
    return ("\n".join(lines) + "\n").encode()


def yaml_cases():
    cases = []

    def add(name, data, what, where, expect="error"):
        cases.append(dict(file=name, data=data, what=what, expect=expect, where=where,
                          table=True))

    add("billion_laughs.yaml", billion_laughs(), "YAML anchors and aliases (billion laughs)",
        where=r":2:7: anchors")
    add("alias_only.yaml", b"schema: 1\nops: *nowhere\n", "an alias without an anchor",
        where=r":\d+:\d+: ")
    add("deep_flow_10000.yaml", b"schema: 1\nops: " + b"[" * 10000 + b"]" * 10000 + b"\n",
        "a flow list nested 10,000 deep", where=r":2:\d+: YAML nested deeper than max_yaml_depth")
    add("deep_block_10000.yaml", b"schema: 1\nops:\n" + b"- " * 10000 + b"x\n",
        "a block list nested 10,000 deep (compact '- - - ...')",
        where=r":3:\d+: YAML nested deeper than max_yaml_depth")
    add("huge_scalar.yaml", b"schema: '" + b"9" * 300000 + b"'\nops: []\n",
        "a 300 KB scalar where an integer belongs", where=r":1:9: schema must be an integer")
    add("huge_key.yaml", b"schema: 1\n" + b"k" * 100000 + b": 1\nops: []\n",
        "a 100 KB key (over libyaml's simple-key limit)", where=r":2:\d+: ")
    add("two_documents.yaml", b"schema: 1\nops: []\n---\nschema: 1\nops: []\n",
        "two YAML documents", where=r":3:1: more than one YAML document")
    add("duplicate_keys.yaml", b"schema: 1\nops: []\nops: []\n", "a duplicate key",
        where=r":3:1: duplicate key 'ops'")
    add("tab_indent.yaml", b"schema: 1\nops:\n\t- x\n", "a tab in the indentation",
        where=r":3:\d+: ")
    add("bad_utf8.yaml", b"schema: 1\nops: [\xff\xfe]\n", "invalid UTF-8", where=r":2:7: ")
    add("nul_byte.yaml", b"schema: 1\x00\nops: []\n", "a NUL byte", where=r":1:10: ")
    add("escape_in_notes.yaml",
        b'schema: 1\nsources: [{id: s}]\nops:\n  - {domain: x, op: o, status: full, '
        b'sources: [s], notes: "\\e[2J\\e]0;pwned\\a"}\n',
        "a row whose notes are escape sequences (`opmap table show` printed them as they are)",
        where=r":4:\d+: notes holds a control character")
    add("escape_in_key.yaml", b'schema: 1\n"\\e[2J\\n\\u009bevil": 1\nops: []\n',
        "an unknown key holding escape sequences and a newline (quoted in the error)",
        where=r":2:1: unknown key")
    return cases


# ---------------------------------------------------------------------------------------
# zip archives and pickles (TorchScript containers)
# ---------------------------------------------------------------------------------------

def zip_entry(name, data, declared_size=None, declared_csize=None, method=0, offset=0):
    """(local header + data, central directory record) for one stored/deflated entry."""
    name = name.encode()
    crc = zlib.crc32(data) & 0xFFFFFFFF
    if method == 8:
        comp = zlib.compressobj(9, zlib.DEFLATED, -15)
        body = comp.compress(data) + comp.flush()
    else:
        body = data
    usize = len(data) if declared_size is None else declared_size
    csize = len(body) if declared_csize is None else declared_csize
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc,
                        min(csize, 0xFFFFFFFF), min(usize, 0xFFFFFFFF), len(name), 0) + name
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0, crc,
                          min(csize, 0xFFFFFFFF), min(usize, 0xFFFFFFFF), len(name), 0, 0, 0,
                          0, 0, offset) + name
    return local + body, central


def zip_archive(entries, overlap=False):
    """entries: list of (name, data, kwargs). overlap: every central record points at the
    first local header, so all entries share the same bytes."""
    out = b""
    centrals = []
    for name, data, kw in entries:
        off = 0 if overlap and centrals else len(out)
        local, central = zip_entry(name, data, offset=off, **kw)
        if not (overlap and centrals):
            out += local
        centrals.append(central)
    cd_off = len(out)
    cd = b"".join(centrals)
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(centrals), len(centrals), len(cd),
                       cd_off, 0)
    return out + cd + eocd


def pickle_bytes(body):
    """Protocol 2 pickle frame around `body`."""
    return b"\x80\x02" + body + b"."


TS_CODE = (b"class M(Module):\n"
           b"  __parameters__ = []\n"
           b"  __buffers__ = []\n"
           b"  training : bool\n"
           b"  def forward(self: __torch__.M,\n"
           b"    x: Tensor) -> Tensor:\n"
           b"    return torch.relu(x)\n")


def ts_archive(extra=(), data_pkl=None, debug_pkl=None, code=TS_CODE, overlap=False,
               **code_kw):
    """A minimal torch.jit.save archive: version, data.pkl (an __torch__.M object), the code of
    M (a forward calling relu) and, when given, its .debug_pkl. `code_kw` shapes the code
    entry's zip records (declared sizes, compression)."""
    root = "archive/"
    data_pkl = data_pkl if data_pkl is not None else pickle_bytes(
        b"c__torch__\nM\n)\x81}b")  # GLOBAL __torch__.M, EMPTY_TUPLE, NEWOBJ, EMPTY_DICT, BUILD
    entries = [(root + "data.pkl", data_pkl, {}),
               (root + "code/__torch__.py", code, code_kw)]
    if debug_pkl is not None:
        entries.append((root + "code/__torch__.py.debug_pkl", debug_pkl, {}))
    entries.append((root + "version", b"3\n", {}))
    return zip_archive(entries + list(extra), overlap=overlap)


def eocd_with_comment(archive, comment):
    """archive (ending in a comment-less end record) with `comment` as its comment."""
    return archive[:-2] + struct.pack("<H", len(comment)) + comment


def repeat_eocd_in_comment(archive, k=65535 // 22):
    """The end record copied k times into its own comment (by default until it is full),
    each copy's comment length reaching the end of the file."""
    rec = archive[-22:-2]
    copies = b"".join(rec + struct.pack("<H", (k - 1 - j) * 22) for j in range(k))
    return eocd_with_comment(archive, copies)


def as_zip64(archive, record_at=None):
    """A zip64 end record and locator before the end record, as torch.jit.save writes them,
    the end record's counts and offsets set to the zip64 markers."""
    n, cd_size, cd_off = struct.unpack("<HIIH", archive[-12:])[0:3]
    body = archive[:-22]
    at = len(body) if record_at is None else record_at
    z64 = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, n, n, cd_size, cd_off)
    loc = struct.pack("<IIQI", 0x07064B50, 0, at, 1)
    return body + z64 + loc + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF,
                                          0xFFFFFFFF, 0xFFFFFFFF, 0)


def overlapping_archive():
    """Two central-directory records of the same name length pointing at one local header:
    one compressed stream read as two entries (the overlapping-zip-bomb trick)."""
    body = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = b"#" * (1 << 20) + b"\n" + TS_CODE
    comp = body.compress(data) + body.flush()
    out = b""
    centrals = []
    local, central = zip_entry("archive/code/__torch__.py", data, method=8, offset=0)
    out += local
    centrals.append(central)
    _, c2 = zip_entry("archive/code/__torch__/a.py", data, method=8, offset=0)
    centrals.append(c2)
    v_local, v_central = zip_entry("archive/version", b"3\n", offset=len(out))
    out += v_local
    centrals.append(v_central)
    cd = b"".join(centrals)
    del comp
    return out + cd + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(centrals), len(centrals),
                                  len(cd), len(out), 0)


def debug_pkl(body):
    """A .debug_pkl whose pickle is `body` (protocol 2 header added)."""
    return b"\x80\x02" + body


def zip_cases():
    """TorchScript archives (zip + pickle). Each must be refused with one message naming the
    file and the entry or offset (exit 3), or, for the two that are valid, scanned."""
    cases = []

    def add(name, data, what, where=r"offset \d+: |:archive/|entry|TorchScript",
            expect="error"):
        cases.append(dict(file=name, data=data, what=what, expect=expect, where=where,
                          container=True))

    add("ts_valid.pt", ts_archive(), "a minimal valid archive (control case)", expect="valid")
    add("zip_bomb_declared.pt", ts_archive(declared_size=0xFFFFFFF0, method=8),
        "the code entry declares 4 GiB uncompressed (deflated from a few bytes)",
        where=r"archive/code/__torch__\.py.*(limit|max_|large|size)|offset \d+: ")
    add("zip_bomb_ratio.pt", ts_archive(code=TS_CODE + b"#" * (100 << 20), method=8),
        "a 100 MiB code entry (a comment) deflated to ~100 KB, its size declared honestly",
        where=r"archive/code/__torch__\.py.*(limit|max_|large)")
    add("zip_overlap.pt", overlapping_archive(),
        "two entries sharing one compressed stream (overlapping entries)",
        where=r"offset \d+: .*overlap")
    add("zip_size_lies.pt", ts_archive(declared_size=3),
        "the code entry declares 3 bytes but holds more",
        where=r"archive/code/__torch__\.py|offset \d+: ")
    add("zip_csize_past_end.pt", ts_archive(declared_csize=1 << 31),
        "the code entry's compressed size points 2 GiB past the end of the file",
        where=r"offset \d+: ")
    many = [(f"archive/extra/{i}", b"", {}) for i in range(1000)]
    add("zip_many_entries.pt", ts_archive(extra=many), "1,000 extra empty entries (valid)",
        expect="valid")
    add("zip_truncated_cd.pt", ts_archive()[:-30], "the central directory cut off",
        where=r"offset \d+: ")
    add("zip_only_eocd.pt", struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF,
                                        0xFFFFFFFF, 0xFFFFFFFF, 0),
        "an end record claiming 65,535 entries and a 4 GiB directory",
        where=r"offset \d+: ")
    # end records: torch's miniz takes the last signature in the last 69,584 bytes (libzip tried
    # every one against the whole directory: minutes); zip64 as torch.jit.save writes it
    fake_eocds = b"".join(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0, 0, 0, 0, 0)
                          for _ in range(65535 // 22))
    add("zip_comment_of_end_records.pt", eocd_with_comment(ts_archive(), fake_eocds),
        "2,978 fake end records in the archive comment (the last one, empty, is read)",
        where=r"no code/")
    many = ts_archive(extra=[(f"archive/extra/{i}", b"", {}) for i in range(2000)])
    add("zip_comment_of_real_end_records.pt", repeat_eocd_in_comment(many),
        "2,001 entries and 2,978 copies of the end record in the comment (valid)",
        expect="valid")
    add("zip64_markers.pt", as_zip64(ts_archive()),
        "a zip64 end record and locator, 0xFFFF / 0xFFFFFFFF in the end record (valid)",
        expect="valid")
    add("zip64_locator_past_end.pt", as_zip64(ts_archive(), record_at=1 << 62),
        "a zip64 locator pointing 2^62 bytes into the file", where=r"offset \d+: ")
    add("zip_duplicate_names.pt",
        ts_archive(extra=[("archive/CODE/__torch__.py", TS_CODE, {})]),
        "two code entries whose names differ only in case (torch reads either)",
        where=r"two entries named")
    # pickles: data.pkl is run as torch's unpickler runs it; .debug_pkl is interpreted
    add("pickle_data_huge_binunicode8.pt",
        ts_archive(data_pkl=b"\x80\x04\x8d" + struct.pack("<Q", 1 << 63) + b"abc"),
        "data.pkl: protocol 4, BINUNICODE8 declaring 2^63 bytes (torch reads protocol 2)",
        where=r"archive/data\.pkl: offset \d+: ")
    add("pickle_data_huge_binunicode.pt",
        ts_archive(data_pkl=b"\x80\x02X" + struct.pack("<I", 0xFFFFFFF0) + b"abc"),
        "data.pkl: BINUNICODE declaring 4 GiB", where=r"archive/data\.pkl: offset \d+: ")
    add("pickle_data_deep_marks.pt", ts_archive(data_pkl=b"\x80\x02" + b"(" * 100000 + b"."),
        "data.pkl: 100,000 MARKs", where=r"archive/data\.pkl: offset \d+: ")
    add("pickle_data_reduce_os_system.pt",
        ts_archive(data_pkl=b"\x80\x02cos\nsystem\nX\x02\x00\x00\x00id\x85R."),
        "data.pkl: os.system('id') through REDUCE (never called: an unknown type)",
        where=r"archive/data\.pkl: offset \d+: ")
    add("pickle_huge_binunicode8.pt",
        ts_archive(debug_pkl=debug_pkl(b"\x8d" + struct.pack("<Q", 1 << 63) + b"abc")),
        "debug_pkl: BINUNICODE8 declaring 2^63 bytes",
        where=r"debug_pkl.*|offset \d+: ")
    add("pickle_huge_binbytes.pt",
        ts_archive(debug_pkl=debug_pkl(b"B" + struct.pack("<I", 0xFFFFFFF0) + b"abc")),
        "debug_pkl: BINBYTES declaring 4 GiB", where=r"debug_pkl.*|offset \d+: ")
    add("pickle_huge_frame.pt",
        ts_archive(debug_pkl=b"\x80\x04\x95" + struct.pack("<Q", (1 << 64) - 1) + b"N."),
        "debug_pkl: FRAME declaring 2^64-1 bytes", where=r"debug_pkl.*|offset \d+: ")
    add("pickle_deep_lists.pt", ts_archive(debug_pkl=debug_pkl(b"]" * 100000 + b".")),
        "debug_pkl: 100,000 EMPTY_LISTs on the stack", where=r"debug_pkl.*|offset \d+: ")
    add("pickle_deep_marks.pt", ts_archive(debug_pkl=debug_pkl(b"(" * 100000 + b".")),
        "debug_pkl: 100,000 MARKs", where=r"debug_pkl.*|offset \d+: ")
    add("pickle_deep_nesting.pt",
        ts_archive(debug_pkl=debug_pkl(b"(" * 50000 + b"t" * 50000 + b".")),
        "debug_pkl: tuples nested 50,000 deep", where=r"debug_pkl.*|offset \d+: ")
    add("pickle_memo_huge_index.pt",
        ts_archive(debug_pkl=debug_pkl(b"N" + b"r" + struct.pack("<I", 0xFFFFFFFF) +
                                       b"j" + struct.pack("<I", 0xFFFFFFFF) + b".")),
        "debug_pkl: LONG_BINPUT/LONG_BINGET at memo index 2^32-1",
        where=r"debug_pkl.*|offset \d+: ")
    add("pickle_reduce_os_system.pt",
        ts_archive(debug_pkl=debug_pkl(b"cos\nsystem\nX\x02\x00\x00\x00id\x85R.")),
        "debug_pkl: os.system('id') through REDUCE (must never be called)",
        where=r"debug_pkl.*|offset \d+: ")
    add("pickle_truncated.pt", ts_archive(debug_pkl=debug_pkl(b"X\xff\x00\x00\x00ab")),
        "debug_pkl: a string cut off", where=r"debug_pkl.*|offset \d+: ")
    # code text
    add("code_deep_parens.pt",
        ts_archive(code=TS_CODE.replace(b"torch.relu(x)", b"(" * 10000 + b"x" + b")" * 10000)),
        "code: an expression nested 10,000 parentheses deep",
        where=r"archive/code/__torch__\.py:\d+:\d+: ")
    add("code_unterminated_string.pt", ts_archive(code=TS_CODE + b'    y = "abc\n'),
        "code: a string that never ends", where=r"archive/code/__torch__\.py:\d+:\d+: ")
    add("code_recursive_forward.pt",
        ts_archive(code=TS_CODE.replace(b"torch.relu(x)", b"self.forward(x)")),
        "code: forward calls itself (left as a prim::CallMethod, as torch does)",
        expect="valid")
    add("code_escapes_in_name.pt",
        ts_archive(code=TS_CODE.replace(b"torch.relu(x)", b"torch.\x1b[2Jevil(x)")),
        "code: an escape sequence inside a name (quoted in the error)",
        where=r"archive/code/__torch__\.py:\d+:\d+: ")
    return cases


def graph_text_cases():
    """Printed TorchScript graphs (str(module.graph))."""
    cases = []

    def add(name, data, what, where=r":\d+:\d+: |line \d+", expect="error"):
        cases.append(dict(file=name, data=data, what=what, expect=expect, where=where))

    ok = (b"graph(%x : Float(2, 3)):\n"
          b"  %y : Float(2, 3) = aten::relu(%x)\n"
          b"  return (%y)\n")
    add("graph_valid.txt", ok, "a minimal valid graph (control case)", expect="valid")
    blocks = b"graph(%c : bool, %x : Tensor):\n"
    depth = 10000
    for i in range(depth):
        blocks += b"  " * (i + 1) + b"%y" + str(i).encode() + b" : Tensor = prim::If(%c)\n"
        blocks += b"  " * (i + 2) + b"block0():\n"
        if blocks.__len__() > 380000:
            break
    add("graph_deep_if.txt", blocks, "prim::If blocks nested until the file is ~380 KB")
    add("graph_truncated.txt", ok[:40], "a graph cut in the middle of a node")
    add("graph_section_without_kind.txt",
        ok + b"with = graph(%y : Tensor):\n  return (%y)\n",
        "a `with ... = graph(` section line with no kind (its length came out as -1: "
        "found by fuzz_onnx)", where=r":4:1: ")
    add("graph_bad_type.txt", ok.replace(b"Float(2, 3))", b"Float(2, 99999999999999999999))"),
        "a dimension over 2^64 (read as unknown)", expect="valid")
    add("graph_long_line.txt", b"graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x" +
        b", %x" * 60000 + b")\n  return (%y)\n", "one node with 60,000 inputs", expect="valid")
    return cases


# ---------------------------------------------------------------------------------------
# run-time cases (too big to commit)
# ---------------------------------------------------------------------------------------

def big_table_over_limit():
    """A table over max_table_bytes (64 MiB): refused before parsing."""
    return b"schema: 1\nops: []\n#" + b"x" * (64 << 20) + b"\n"


def big_scalar_table():
    """A 32 MiB scalar (under the table limit): a schema error, quickly."""
    return b"schema: 1\nabout: {name: '" + b"n" * (32 << 20) + b"'}\nops: [1]\n"


def wide_graph(n):
    """n Relu nodes in one graph (for timing)."""
    return model(graph([node("Relu", None, ["x"], ["y"])] * n))


RUNTIME_CASES = [
    dict(file="inputs_vs_initializers.onnx", make=lambda: inputs_vs_initializers(200000),
         expect="valid", what="200,000 graph inputs and 200,000 initializers"),
    dict(file="many_functions.onnx",
         make=lambda: model(graph([node("Relu", None, ["x"], ["y"])]),
                            functions=[function(f"f{i}", "d", []) for i in range(200000)]),
         expect="valid", what="200,000 local functions"),
    dict(file="many_sources.yaml", make=lambda: many_sources(40000), table=True,
         expect="valid", what="40,000 sources and 40,000 rows naming one each"),
    dict(file="many_sources_dup.yaml", make=lambda: many_sources(100000, dup=True), table=True,
         expect="error", where=r":100003:5: source id 's0' defined twice",
         what="100,000 sources, the last repeating the first id"),
    dict(file="table_over_limit.yaml", make=big_table_over_limit, table=True, expect="error",
         where=r": file is \d+ bytes, over max_table_bytes", what="a 64 MiB table"),
    dict(file="table_huge_scalar.yaml", make=big_scalar_table, table=True, expect="error",
         where=r":3:\d+: ", what="a 32 MiB scalar in a table"),
]


# ---------------------------------------------------------------------------------------

def all_cases():
    return onnx_cases() + yaml_cases() + zip_cases() + graph_text_cases() + [
        dict(file="escaping.onnx", data=escaping_model(), expect="valid", escaping=True,
             what="node names, op types, domains, paths and producer holding markup, CSV "
                  "formulas, ANSI escapes and newlines (tests/hostile/check_escaping.py)")]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "cases")
    os.makedirs(os.path.join(out, "trunc"), exist_ok=True)
    manifest = []
    for c in all_cases():
        data = c.pop("data")
        assert len(data) <= 400 * 1024, (c["file"], len(data))
        with open(os.path.join(out, c["file"]), "wb") as f:
            f.write(data)
        c["size"] = len(data)
        manifest.append({k: v for k, v in c.items() if v is not None})
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    total = sum(c["size"] for c in manifest)
    print(f"make_hostile: {len(manifest)} cases, {total} bytes in {out}")


if __name__ == "__main__":
    main()
