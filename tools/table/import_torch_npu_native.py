#!/usr/bin/python3
"""aten ops implemented inside torch_npu itself (D10).

Source: torch-npu-native (Ascend/pytorch torch_npu/csrc/aten/npu_native_functions.yaml,
BSD-style).  `supported` and `symint` list aten op names (with overload);
`custom` lists torch_npu's own ops (namespace npu).  The file carries no
version ranges: these kernels exist in every torch_npu built from the pinned
commit.

Facts:
  ops: {"ns|base": {"ns", "base", "overloads": [..], "sections": [..]}}
"""
import yaml

from _common import importer_main, open_source

PATH = "torch_npu/csrc/aten/npu_native_functions.yaml"


def load(locations=None):
    """aten / npu ops registered by torch_npu's own native functions file."""
    doc = yaml.safe_load(open_source("torch-npu-native", locations).read(PATH))
    ops = {}
    for section in ("supported", "symint", "custom"):
        for e in doc.get(section) or []:
            name = e if isinstance(e, str) else e["func"]
            name = name.split("(")[0].strip()
            base, _, ov = name.partition(".")
            ns = "npu" if section == "custom" else "aten"
            rec = ops.setdefault("%s|%s" % (ns, base), {"ns": ns, "base": base, "overloads": set(),
                                                         "sections": set()})
            rec["overloads"].add(ov or "default")
            rec["sections"].add(section)
    for rec in ops.values():
        rec["overloads"] = sorted(rec["overloads"])
        rec["sections"] = sorted(rec["sections"])
    return {"ops": ops}


if __name__ == "__main__":
    importer_main(load)
