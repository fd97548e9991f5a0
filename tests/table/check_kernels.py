#!/usr/bin/python3
"""The kernel each ATen row names is the one that computes the result (issue 28), and the ATen
universe covers the PyTorch releases torch_npu supports.

usage: check_kernels.py OPMAP TABLE

- no row names a fill or allocation helper (aclnnInplaceOne, aclnnInplaceZero, aclnnFill...)
  as its kernel unless the operator is itself a fill (ones, zeros, fill_, one_...): a helper
  that initialises a buffer is the first call in a kernel's source, not what computes it;
- `opmap table show aten::scaled_dot_product_attention` names the attention kernels
  (npu_fusion_attention, aclnnFlashAttentionScore) and no fill helper;
- the rows PyTorch 2.x adds or TorchScript's plumbing needs exist: aten::rms_norm (answered
  as what it decomposes to), the SDPA variants, ScalarImplicit/FloatImplicit/IntImplicit and
  prim::NumToTensor (structural);
- aten::softmax takes float16, bfloat16 and float32 (every current source lists them).
Exit 1 with what failed.
"""
import subprocess
import sys

import yaml

FILL_HELPERS = ("aclnnInplaceOne", "aclnnInplaceZero", "aclnnInplaceFill", "aclnnFill",
                "aclnnOnes", "aclnnZeros")
FILL_WORDS = ("fill", "one", "zero")


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    opmap, table = argv[1], argv[2]
    with open(table, encoding="utf-8") as f:
        ops = yaml.safe_load(f)["ops"]
    rows = {(r["domain"], r["op"]): r for r in ops if "since" not in r}
    bad = []
    for r in ops:
        aclnn = (r.get("ascend") or {}).get("aclnn") or ""
        if aclnn.startswith(FILL_HELPERS) and not any(w in r["op"] for w in FILL_WORDS):
            bad.append("%s::%s names the fill helper %s as its kernel" % (r["domain"], r["op"], aclnn))
    out = subprocess.run([opmap, "table", "show", "aten::scaled_dot_product_attention"],
                         stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout
    for want in ("npu_fusion_attention", "aclnnFlashAttentionScore"):
        if want not in out:
            bad.append("table show aten::scaled_dot_product_attention does not name %s" % want)
    if any(h in out for h in FILL_HELPERS):
        bad.append("table show aten::scaled_dot_product_attention names a fill helper")
    for dom, op, status in (("aten", "rms_norm", None),
                            ("aten", "scaled_dot_product_attention", None),
                            ("aten", "_scaled_dot_product_flash_attention", None),
                            ("aten", "_scaled_dot_product_efficient_attention", None),
                            ("aten", "ScalarImplicit", "structural"),
                            ("aten", "FloatImplicit", "structural"),
                            ("aten", "IntImplicit", "structural"),
                            ("prim", "NumToTensor", "structural")):
        r = rows.get((dom, op))
        if r is None:
            bad.append("no row for %s::%s" % (dom, op))
        elif status and r["status"] != status:
            bad.append("%s::%s is %s, not %s" % (dom, op, r["status"], status))
    rms = rows.get(("aten", "rms_norm")) or {}
    if (rms.get("ascend") or {}).get("engine") != "decomposed":
        bad.append("aten::rms_norm is not answered as what PyTorch decomposes it to")
    sm = set((rows.get(("aten", "softmax")) or {}).get("dtypes") or [])
    if not {"float16", "bfloat16", "float32"} <= sm:
        bad.append("aten::softmax dtypes %s lack one of float16, bfloat16, float32" % sorted(sm))
    for line in bad:
        print("FAIL", line)
    print("%d rows checked: %s" % (len(ops), "FAILED" if bad else "kernels and the ATen universe hold"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
