#!/usr/bin/python3
"""msit analyze's static ONNX map (D1): ONNX op + opset -> CANN op type.

Source: msit-onnx-map (Ascend/msit .../data/map_conf/onnx.yaml, Mulan PSL v2).
Keys look like `ai.onnx::<opset>::<Op>` (also `npu::1::NPU...`,
`onnxinfer::1::LSTMP`); the value is the CANN op type, `PartitionedCall`
meaning ATC's parser expands the node into a subgraph of other CANN ops.
Keys without an opset (one `aten::...` and one `torch.onnx.symbolic_...`
entry) are kept apart in `unversioned`.

Facts:
  entries: {"domain|opset|Op": cann_op}
  unversioned: {key: cann_op}
"""
import yaml

from _common import importer_main, open_source

PATH = "msit/components/analyze/model_evaluation/data/map_conf/onnx.yaml"


def load(locations=None):
    """msit ONNX map entries keyed domain|opset|op."""
    src = open_source("msit-onnx-map", locations)
    doc = yaml.safe_load(src.read(PATH))
    entries, unversioned = {}, {}
    for key, cann in doc.items():
        parts = key.split("::")
        if len(parts) == 3 and parts[1].isdigit():
            entries["%s|%d|%s" % (parts[0], int(parts[1]), parts[2])] = cann
        else:
            unversioned[key] = cann
    return {"entries": entries, "unversioned": unversioned}


if __name__ == "__main__":
    importer_main(load)
