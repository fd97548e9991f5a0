#!/usr/bin/python3
"""PyTorch Analyse knowledge base of Ascend/mstt (D11, D12).

Sources (mirror xiaobingling93-pixel/Ascend-mstt of Ascend/mstt, Mulan PSL v2):
  mstt-supported-ops     resource/supported_op_2_{1,6,7,8}.json: torch API ->
                         note ("-" = supported without note; otherwise a dtype
                         note such as "支持fp16，fp32").
  mstt-unsupported-ops   resource/op_list_2_{1,6,7,8}.json: torch APIs reported
                         as unsupported.
  mstt-precision-advice  resource/precision_performance_advice.json
                         (api_precision_dict): APIs with a precision warning;
                         the advice itself is not kept (our wording lives in
                         data/curated/precision.yaml).
  mstt-affinity          resource/affinity_list_1_11_0.json: function / class /
                         torch API -> torch_npu affinity replacement (names only).

Facts:
  supported:   {api: {"versions": [..], "dtypes": [..]}}   (dtypes from the newest note)
  unsupported: {api: [versions]}
  precision:   [api, ...]
  affinity:    {"section.name": replacement}
"""
import json

from _common import importer_main, open_source, text_dtypes

RES = "msfmktransplt/src/ms_fmk_transplt/resource/"
VERSIONS = ["2_1", "2_6", "2_7", "2_8"]


def load(locations=None):
    """PyTorch Analyse's supported / unsupported API lists and precision advice."""
    sup_src = open_source("mstt-supported-ops", locations)
    uns_src = open_source("mstt-unsupported-ops", locations)
    supported, unsupported = {}, {}
    for v in VERSIONS:
        ver = v.replace("_", ".")
        doc = json.loads(sup_src.read(RES + "supported_op_%s.json" % v))
        for api, note in doc.get("op_list", {}).items():
            rec = supported.setdefault(api, {"versions": [], "dtypes": []})
            rec["versions"].append(ver)
            d = text_dtypes(note) if note and note != "-" else []
            if d:
                rec["dtypes"] = d          # VERSIONS ascend: newest note wins
        doc = json.loads(uns_src.read(RES + "op_list_%s.json" % v))
        for api in doc.get("op_list", {}):
            unsupported.setdefault(api, []).append(ver)
    adv = json.loads(open_source("mstt-precision-advice", locations).read(RES + "precision_performance_advice.json"))
    precision = sorted(adv.get("api_precision_dict", {}))
    aff = json.loads(open_source("mstt-affinity", locations).read(RES + "affinity_list_1_11_0.json"))
    affinity = {}
    for section, entries in aff.items():
        for name, e in entries.items():
            target = e.get("affinity_function") or e.get("affinity_class") or e.get("affinity_api")
            if target:
                affinity["%s.%s" % (section, name)] = target
    return {"supported": supported, "unsupported": unsupported, "precision": precision,
            "affinity": affinity}


if __name__ == "__main__":
    importer_main(load)
