#!/usr/bin/python3
"""ONNX Runtime's CANN execution provider op list (D14).

Source: ort-cann-ep (microsoft/onnxruntime onnxruntime/core/providers/cann/cann_graph.cc,
MIT).  The repository snapshot is too large for the local mirror, so the
pinned input is a local excerpt of that file (path and sha256 in
sources.yaml); `SupportONNXModel` accepts these op types in the ai.onnx
domain when the model's ai.onnx opset is >= the lower bound.

Facts:
  ops: [op_type, ...]
  min_opset: N
"""
import re

from _common import importer_main, open_source


def load(locations=None):
    """ORT CANN EP supported op-type set and its opset lower bound."""
    text = open_source("ort-cann-ep", locations).read_file()
    body = re.search(r"cann_supported_ops\s*=\s*\{(.*?)\};", text, re.S).group(1)
    lb = re.search(r"lower_bound\s*=\s*(\d+)", text)
    return {"ops": sorted(set(re.findall(r'"(\w+)"', body))), "min_opset": int(lb.group(1)) if lb else 8}


if __name__ == "__main__":
    importer_main(load)
