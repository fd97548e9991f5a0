#!/usr/bin/python3
"""ONNX Runtime's CANN execution provider op list (D14).

Source: ort-cann-ep (microsoft/onnxruntime onnxruntime/core/providers/cann/cann_graph.cc,
MIT).  The repository snapshot is too large for the local mirror, so the
pinned input is tools/table/snapshots/ort_cann_supported_ops.txt, the facts
of that file at the pinned commit (sha256 in sources.yaml): `SupportONNXModel`
accepts these op types in the ai.onnx domain when the model's ai.onnx opset is
>= the lower bound.

Facts:
  ops: [op_type, ...]
  min_opset: N
"""
import re

from _common import importer_main, open_source


def load(locations=None):
    """ORT CANN EP supported op-type set and its opset lower bound."""
    text = open_source("ort-cann-ep", locations).read_file()
    lines = [l.strip() for l in text.splitlines() if l.strip() and not l.startswith("#")]
    lb = [int(l.split()[1]) for l in lines if l.startswith("lower_bound ")]
    ops = [l for l in lines if re.fullmatch(r"\w+", l)]
    return {"ops": sorted(set(ops)), "min_opset": lb[0] if lb else 8}


if __name__ == "__main__":
    importer_main(load)
