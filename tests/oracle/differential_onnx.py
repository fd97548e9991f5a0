#!/usr/bin/python3
"""opmap reads an ambiguous ONNX file as the runtime's own parser does (issue 16).

    differential_onnx.py OPMAP

Each case is a file protobuf accepts and onnx's checker passes, but that a reader can get
wrong: a ModelProto.graph given twice (protobuf merges the occurrences into one graph), a
graph split over two occurrences, a domain imported twice (the checker takes the last
import), a graph passed to a local function through ref_attr_name. The reference is
python3-onnx: onnx.load (libprotobuf's merge) and onnx.checker, and for functions the body
expanded at each call with the caller's attributes. opmap's per-operator instance counts and
opsets, and its graph inputs' dtypes and shapes, must equal the reference's, so no operator the runtime sees can pass the gate unseen.
"""
import json
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import AttributeProto, TensorProto, helper

OPMAP = None


def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n:
            return out


def field(num, payload):
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def vi(name):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, [2])


def graph_twice():
    """ModelProto.graph twice: the first occurrence holds an operator no table knows."""
    first = helper.make_graph([helper.make_node("EvilUnmappedOp", ["x"], ["t"], domain="com.evil")],
                              "g", [vi("x")], [])
    model = helper.make_model(helper.make_graph([helper.make_node("Relu", ["t"], ["y"])], "g", [],
                                                [vi("y")]),
                              opset_imports=[helper.make_opsetid("", 13),
                                             helper.make_opsetid("com.evil", 1)])
    return field(7, first.SerializeToString()) + model.SerializeToString()


def graph_split():
    """One graph's nodes split over three occurrences, with the ModelProto's other fields
    between them."""
    parts = [helper.make_graph([helper.make_node(op, [a], [b])], "g", [], [])
             for op, a, b in (("Relu", "x", "a"), ("Sigmoid", "a", "b"), ("Tanh", "b", "y"))]
    model = helper.make_model(helper.make_graph([], "g", [vi("x")], [vi("y")]),
                              opset_imports=[helper.make_opsetid("", 13)])
    raw = model.SerializeToString()
    return field(7, parts[0].SerializeToString()) + raw[:2] + raw[2:] + \
        field(7, parts[1].SerializeToString()) + field(7, parts[2].SerializeToString())


def opset_twice():
    """ai.onnx imported at 11 and then 13: Unsqueeze with its axes as an input is valid
    only at 13, and the checker passes it: the last import counts."""
    n = helper.make_node("Unsqueeze", ["x", "axes"], ["y"])
    g = helper.make_graph([n], "g", [vi("x")],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])],
                          initializer=[helper.make_tensor("axes", TensorProto.INT64, [1], [0])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 11), helper.make_opsetid("", 13)])
    return m.SerializeToString()


def ref_attr_graph():
    """A local function whose If takes its then_branch from the caller (ref_attr_name)."""
    cond = helper.make_node("Constant", [], ["c"],
                            value=helper.make_tensor("v", TensorProto.BOOL, [], [True]))
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else", [], [vi("e")])
    ifn = helper.make_node("If", ["c"], ["y"], else_branch=else_g)
    ref = AttributeProto()
    ref.name, ref.ref_attr_name, ref.type = "then_branch", "body", AttributeProto.GRAPH
    ifn.attribute.append(ref)
    fn = helper.make_function("local", "F", ["x"], ["y"], [cond, ifn],
                              [helper.make_opsetid("", 13)], attributes=["body"])
    body = helper.make_graph([helper.make_node("EvilUnmappedOp", ["x"], ["t"], domain="com.evil")],
                             "body", [], [vi("t")])
    call = helper.make_node("F", ["x"], ["y"], domain="local", body=body)
    g = helper.make_graph([call, helper.make_node("F", ["y"], ["z"], domain="local", body=body)],
                          "g", [vi("x")], [vi("z")])
    m = helper.make_model(g, functions=[fn],
                          opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1),
                                         helper.make_opsetid("com.evil", 1)])
    return m.SerializeToString()


def type_twice():
    """A graph input whose ValueInfoProto.type is given twice: protobuf merges them into
    float64 (the last elem_type) with the dims of both, [2, batch] (a dynamic dimension
    the first occurrence alone does not have)."""
    first = helper.make_tensor_type_proto(TensorProto.FLOAT, [2])
    second = helper.make_tensor_type_proto(TensorProto.DOUBLE, ["batch"])
    x = onnx.ValueInfoProto()
    x.name = "x"
    x_raw = x.SerializeToString() + field(2, first.SerializeToString()) + \
        field(2, second.SerializeToString())
    y = helper.make_tensor_value_info("y", TensorProto.DOUBLE, [2, "batch"])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [], [y])
    m = helper.make_model(helper.make_graph([], "g", [], []),
                          opset_imports=[helper.make_opsetid("", 13)])
    return m.SerializeToString() + field(7, g.SerializeToString() + field(11, x_raw))


CASES = [("graph_twice", graph_twice), ("graph_split", graph_split),
         ("opset_twice", opset_twice), ("ref_attr_graph", ref_attr_graph),
         ("type_twice", type_twice)]

DTYPES = {TensorProto.FLOAT: "float32", TensorProto.DOUBLE: "float64",
          TensorProto.INT64: "int64", TensorProto.BOOL: "bool"}


def reference_inputs(model):
    """[(name, dtype, dims)] of the graph's inputs as protobuf merged them."""
    out = []
    for v in model.graph.input:
        t = v.type.tensor_type
        dims = [d.dim_param if d.HasField("dim_param") else d.dim_value for d in t.shape.dim] \
            if t.HasField("shape") else None
        out.append((v.name, DTYPES.get(t.elem_type, str(t.elem_type)), dims))
    return out


def reference(model):
    """{(domain, op_type): [instances, opset]} as the runtime reads the model."""
    opsets = {}
    for o in model.opset_import:   # the checker's reading: the last import counts
        opsets[o.domain or "ai.onnx"] = o.version
    funcs = {(f.domain, f.name): f for f in model.functions}
    hist = {}

    def walk(nodes, caller_attrs, depth=0):
        assert depth < 50
        for n in nodes:
            key = (n.domain, n.op_type)
            if key in funcs:
                walk(funcs[key].node, {a.name: a for a in n.attribute}, depth + 1)
                continue
            d = n.domain or "ai.onnx"
            e = hist.setdefault((d, n.op_type), [0, opsets.get(d, 0)])
            e[0] += 1
            for a in n.attribute:
                if a.ref_attr_name:
                    a = caller_attrs.get(a.ref_attr_name, a)
                if a.type == AttributeProto.GRAPH or a.HasField("g"):
                    walk(a.g.node, caller_attrs, depth + 1)
                for g in a.graphs:
                    walk(g.node, caller_attrs, depth + 1)

    walk(model.graph.node, {})
    return hist


def opmap_view(path):
    """(histogram, inputs) as opmap reads the file."""
    proc = subprocess.run([OPMAP, "scan", "--format", "json", path], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    assert proc.returncode in (0, 1), proc.stderr
    m = json.loads(proc.stdout)["models"][0]
    hist = {(o["domain"], o["op_type"]): [o["instances"], o["opset"]] for o in m["operators"]}
    inputs = [(i["name"], i["dtype"], i["shape"]) for i in m["inputs"]]
    return hist, inputs


def main():
    global OPMAP
    OPMAP = os.path.abspath(sys.argv[1])
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in CASES:
            path = os.path.join(tmp, name + ".onnx")
            with open(path, "wb") as f:
                f.write(make())
            model = onnx.load(path)
            onnx.checker.check_model(model)   # every case is a valid model for the runtime
            want, got = (reference(model), reference_inputs(model)), opmap_view(path)
            if want != got:
                print("FAIL %s: python3-onnx reads %s %s, opmap %s %s"
                      % (name, sorted(want[0].items()), want[1], sorted(got[0].items()), got[1]))
                bad = 1
            else:
                print("ok   %s: %s %s" % (name, sorted(want[0].items()), want[1]))
    return bad


if __name__ == "__main__":
    sys.exit(main())
