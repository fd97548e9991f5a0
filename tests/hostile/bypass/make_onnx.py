#!/usr/bin/python3
"""Writes the crafted ONNX models of tests/hostile/bypass/ (issue 29) with python3-onnx.

Usage: make_onnx.py [OUT_DIR]            (default: this folder)

Model-local functions and attributes that a reader can get wrong, each hiding an operator
the table does not map (com.evil::EvilUnmappedOp) or a Resize in cubic mode (rewrite on
Ascend) where onnx's inliner and onnxruntime bind them; built by the same functions as
tests/oracle/differential_onnx.py, whose reference (the inliner's binding rules over the
protobuf python3-onnx reads) is the runtime's reading run_bypass.py checks them against.
The controls take the binding that runs nothing hidden.
"""
import os
import sys

from onnx import AttributeProto, TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "oracle"))
import differential_onnx as d  # noqa: E402

OUT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else HERE)


def resize_in_function(mode):
    """A local function whose Resize takes its `mode` from the caller (ref_attr_name); the
    call passes `mode`: cubic is rewrite on Ascend (ATC supports nearest and linear)."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 2, 2])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 1, 4, 4])
    scales = helper.make_node("Constant", [], ["s"],
                              value=helper.make_tensor("v", TensorProto.FLOAT, [4], [1, 1, 2, 2]))
    resize = helper.make_node("Resize", ["x", "", "s"], ["z"])
    ref = AttributeProto()
    ref.name, ref.ref_attr_name, ref.type = "mode", "mode", AttributeProto.STRING
    resize.attribute.append(ref)
    fn = helper.make_function("local", "Up", ["x"], ["z"], [scales, resize],
                              [helper.make_opsetid("", 13)], attributes=["mode"])
    call = helper.make_node("Up", ["x"], ["z"], domain="local", mode=mode)
    g = helper.make_graph([call], "g", [x], [z])
    return helper.make_model(g, functions=[fn],
                             opset_imports=[helper.make_opsetid("", 13),
                                            helper.make_opsetid("local", 1)]).SerializeToString()


CASES = {
    "fn_defined_twice.onnx": d.fn_defined_twice,
    "fn_default_graph.onnx": d.fn_default_graph,
    "ref_over_own_graph.onnx": d.ref_over_own_graph,
    "overloads.onnx": d.overloads,
    "overload_none_vs_named.onnx": d.overload_none_vs_named,
    "call_attr_twice.onnx": d.call_attr_twice,
    "resize_mode_twice.onnx": d.resize_mode_twice,
    "onehot_axis_twice.onnx": d.onehot_axis_twice,
    "fn_resize_mode_cubic.onnx": lambda: resize_in_function("cubic"),
    "control_fn_default_overridden.onnx": d.fn_default_overridden,
    "control_ref_unbound_dropped.onnx": d.ref_unbound_dropped,
    "control_fn_resize_mode_nearest.onnx": lambda: resize_in_function("nearest"),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, make in CASES.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(make())
        print("wrote", name)


if __name__ == "__main__":
    main()
