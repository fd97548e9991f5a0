#!/usr/bin/python3
"""Ascend/pytorch documentation facts (D8, D9, D13).

Sources (Ascend/pytorch, BSD-style; facts only, never prose):
  torch-npu-api-docs       docs/zh/api/native_api/pytorch_<ver>/*.md: per torch
                           Python API, the ✔/✘ mark for Atlas A2 / Atlas A3 /
                           Ascend 950DT and the limitation notes, reduced to
                           facts: per-argument dtype lists (`x`仅支持...),
                           "may fall back to CPU", "inference only", and whether
                           other notes exist.  Also private_apis.md.
  torch-npu-inf-nan        appendixes/inf_nan_difference_apis.md (API names).
  torch-npu-deterministic  deterministic_computing_apis.md: APIs that are
                           nondeterministic unless deterministic mode is on
                           (table 1: A2/A3; table 2: 950).
  torch-npu-onnx-doc       docs/en/ONNX Operator List/Supported ONNX Operators.md
                           at its last commit (2022): per ONNX op the opsets,
                           the input dtypes and the [Restrictions] text, kept
                           as a short fingerprint for data/curated/onnx_restrictions.yaml
                           to match (the curated file holds our own wording).

Facts:
  apis:  {api: {"version", "file", "socs": {soc: bool}, "dtypes": {arg: [..]},
                "cpu_fallback", "inference_only", "other_notes"}}
         (newest documenting version wins; older versions fill gaps)
  inf_nan: [api, ...]
  deterministic: {api: [socs]}
  onnx_doc: {Op: {"opsets": [..], "dtypes": {input: [..]}, "restrictions": [text]}}
"""
import re

from _common import importer_main, open_source, product_soc, text_dtypes

API_DIR = "docs/zh/api/native_api"
VERSIONS = ["pytorch_2-13-0", "pytorch_2-12-0", "pytorch_2-11-0", "pytorch_2-7-1"]
ONNX_DOC = "docs/en/ONNX Operator List/Supported ONNX Operators.md"

API_LINK = re.compile(r"\*\*原生文档\*\*：\[([^\]]+)\]")
LIMIT = "**限制与说明**"
# "`x`仅支持fp32", "`query`、`key`、`value`仅支持bf16、fp16和fp32": each named argument
ARG_DTYPES = re.compile(r"((?:`[\w\"]+`\s*[、，,和及]?\s*)+)仅支持\s*([A-Za-z0-9_，,、 和及或]+)")


def parse_limit(text):
    facts = {"dtypes": {}, "cpu_fallback": False, "inference_only": False, "other_notes": False}
    rest = text
    for args, dts in ARG_DTYPES.findall(text):
        d = text_dtypes(re.sub(r"[和及或]", " ", dts))
        for arg in re.findall(r"`([\w\"]+)`", args):
            if d:
                facts["dtypes"].setdefault(arg.strip('"'), d)
        rest = rest.replace(dts, "").replace(args, "")
    if "回退至CPU" in text:
        facts["cpu_fallback"] = True
    if "仅支持推理场景" in text:
        facts["inference_only"] = True
    rest = re.sub(r"仅支持|可能回退至CPU执行|当前仅支持推理场景，不支持训练场景|[\s\-：:。，,]", "", rest)
    facts["other_notes"] = bool(rest)
    return facts


def parse_api_file(text):
    """[(api, {soc: bool}, limit_facts)] for one per-module doc page."""
    out = []
    links = list(API_LINK.finditer(text))
    for i, m in enumerate(links):
        end = links[i + 1].start() if i + 1 < len(links) else len(text)
        block = text[m.end():end]
        # stop at the next API heading inside the block
        h = re.search(r"^#{2,4} |^> <font", block, re.M)
        if h:
            block = block[:h.start()]
        socs = {}
        for prod, mark in re.findall(r"\|\s*<term>([^<]+)</term>\s*\|\s*([✔✘])\s*\|", block):
            soc = product_soc(prod)
            if soc:
                socs[soc] = mark == "✔"
        lim = None
        if LIMIT in block:
            lt = block[block.index(LIMIT) + len(LIMIT):]
            lt = re.split(r"</div>|^\*\*", lt, flags=re.M)[0]
            lt = re.split(r"```", lt)[0]
            lim = parse_limit(lt.lstrip("：: "))
        out.append((m.group(1).strip(), socs, lim))
    return out


def parse_private(text):
    """Private API table rows: (api, supported?, not-on-950?, dtypes)."""
    out = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("torch"):
            continue
        api = cells[0].replace("\\_", "_")
        support = next((c for c in cells[1:] if c.startswith("是") or c.startswith("否")), "")
        lim = cells[-1]
        socs = {}
        if support.startswith("是"):
            socs = {"ascend910b": True, "ascend910_93": True}
            socs["ascend950"] = "950" not in support
        elif support.startswith("否"):
            socs = {"ascend910b": False, "ascend910_93": False}
        d = text_dtypes(lim) if "支持" in lim else []
        out.append((api, socs, {"dtypes": {"*": d} if d else {}, "cpu_fallback": False,
                                "inference_only": False, "other_notes": bool(re.sub(r"支持|[A-Za-z0-9_，,\s]", "", lim))}))
    return out


def parse_onnx_doc(text):
    ops = {}
    for m in re.finditer(r'<h2 id="(\w+)md">([^<]+)</h2>(.*?)(?=<h2 id=|\Z)', text, re.S):
        name, body = m.group(2).strip(), m.group(3)
        opsets = sorted({int(v) for v in re.findall(r"[vV](\d+)",
                                                    (re.search(r"ONNX Opset Support\s*\n+\s*(.*)", body) or [None, ""])[1])})
        dtypes = {}
        inputs = re.search(r"\[Inputs\](.*?)\[Outputs\]", body, re.S)
        if inputs:
            for inp, desc in re.findall(r"^\s*(\w+)\s*:\s*(.+)$", inputs.group(1), re.M):
                d = text_dtypes(desc)
                if d:
                    dtypes[inp] = d
        restr = []
        r = re.search(r"\[Restrictions\](.*?)(?=###|\Z)", body, re.S)
        if r:
            restr = [" ".join(p.split()) for p in r.group(1).strip().split("\n\n") if p.strip()]
        ops[name] = {"opsets": opsets, "dtypes": dtypes, "restrictions": restr}
    return ops


def load(locations=None):
    """API support marks / limitations, inf-nan list, deterministic list, old ONNX doc."""
    src = open_source("torch-npu-api-docs", locations)
    apis = {}
    for ver in VERSIONS:                      # newest first: first writer wins
        paths = src.files("%s/%s/*.md" % (API_DIR, ver))
        texts = src.read_many(paths)
        for p in paths:
            for api, socs, lim in parse_api_file(texts[p]):
                if api in apis:
                    # fill SoC marks the newer page did not give
                    for s, v in socs.items():
                        apis[api]["socs"].setdefault(s, v)
                    continue
                rec = {"version": ver.replace("pytorch_", "").replace("-", "."),
                       "file": p, "socs": socs}
                rec.update(lim or {"dtypes": {}, "cpu_fallback": False, "inference_only": False,
                                   "other_notes": False})
                apis[api] = rec
    priv = src.read("%s/private_apis.md" % API_DIR)
    for api, socs, lim in parse_private(priv):
        if api not in apis:
            rec = {"version": "private_apis", "file": "%s/private_apis.md" % API_DIR, "socs": socs}
            rec.update(lim)
            apis[api] = rec

    text = open_source("torch-npu-inf-nan", locations).read(API_DIR + "/appendixes/inf_nan_difference_apis.md")
    inf_nan = sorted(set(re.findall(r"^\|\s*((?:torch|Tensor)[\w.]+)\s*\|", text, re.M)))

    text = open_source("torch-npu-deterministic", locations).read(API_DIR + "/deterministic_computing_apis.md")
    det = {}
    parts = re.split(r"\*\*表\s*(\d)\*\*", text)
    for i in range(1, len(parts) - 1, 2):
        socs = ["ascend910b", "ascend910_93"] if parts[i] == "1" else ["ascend950"]
        for api, extra in re.findall(r"^\|\s*`([^`]+)`\s*([^|]*)\|", parts[i + 1], re.M):
            key = api + (" (backward)" if "反向" in extra else "")
            det.setdefault(key, set()).update(socs)
    det = {k: sorted(v) for k, v in det.items()}

    osrc = open_source("torch-npu-onnx-doc", locations)
    onnx_doc = parse_onnx_doc(osrc.read(ONNX_DOC))
    return {"apis": apis, "inf_nan": inf_nan, "deterministic": det, "onnx_doc": onnx_doc}


if __name__ == "__main__":
    importer_main(load)
