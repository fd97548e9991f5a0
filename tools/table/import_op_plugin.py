#!/usr/bin/python3
"""torch_npu kernels of Ascend/op-plugin (D5, D6, D7).

Sources (Ascend/op-plugin, BSD-style):
  op-plugin-functions    op_plugin/config/op_plugin_functions.yaml: every
                         schema with its `acl_op` / `op_api` version ranges
                         (`all_version`, `[v2.1, newest]`, `v2.1`, `"v2.1, v2.2"`),
                         the `gen_opapi.exec` aclnn name and tags; plus the aclnn
                         names called (EXEC_NPU_CMD...) by each function in
                         op_plugin/ops/opapi/*.cpp (names only).
  op-plugin-deprecated   op_plugin/config/deprecated.yaml (name -> replace).
  op-plugin-unsupported  test/unsupported_ops_info_base.yaml (OpInfo name ->
                         test -> failing dtypes).

Sections: `official`, `autograd`, `quant` and the non-npu entries of `symint`
are aten ops (namespace aten); `custom` and npu entries of `symint` are
torch_npu custom ops (namespace npu).

Facts:
  versions: [v2.1, ..., v2.15]
  ops: {"ns|base": {"ns", "base", "overloads": {overload: {"acl_op": [vers],
                    "op_api": [vers], "exec": aclnn|None}}, "aclnn": [names],
                    "tags": [..], "sections": [..]}}
  deprecated: {"name.overload": replace-or-None}
  unsupported: {opinfo_name: {test: [dtypes]}}

Also writes tools/table/op_plugin_aten_ops.txt (aten base names, one a line)
when run with --write-list.
"""
import os
import re

import yaml

from _common import HERE, importer_main, open_source, strip_c_comments, version_key

FUNCS = "op_plugin/config/op_plugin_functions.yaml"
DEPRECATED = "op_plugin/config/deprecated.yaml"
UNSUPPORTED = "test/unsupported_ops_info_base.yaml"
LIST_FILE = os.path.join(HERE, "op_plugin_aten_ops.txt")


def expand_versions(spec, all_versions):
    """Version set of an acl_op / op_api field."""
    if spec is None or spec is False:
        return []
    newest = all_versions[-1]
    if spec == "all_version" or spec is True:
        return list(all_versions)
    if isinstance(spec, list):
        if len(spec) == 2:
            lo, hi = spec[0], (newest if spec[1] == "newest" else spec[1])
            return [v for v in all_versions if version_key(lo) <= version_key(v) <= version_key(hi)]
        return [v for v in spec if v in all_versions]
    if isinstance(spec, str):
        vs = [v.strip() for v in spec.split(",")]
        return [v for v in all_versions if v in vs]
    return []


FUNC_DEF = re.compile(r"^[A-Za-z_][\w:<>,\s\*&]*?\b(\w+)\s*\([^;{]*\)\s*(?:const\s*)?\{", re.M)
EXEC = re.compile(r"EXEC_\w*CMD\w*\(\s*(aclnn\w+)")


def opapi_aclnn(texts):
    """{cpp function name: set(aclnn names)} from op_plugin/ops/opapi sources."""
    out = {}
    for text in texts.values():
        text = strip_c_comments(text)
        defs = list(FUNC_DEF.finditer(text))
        for i, m in enumerate(defs):
            body = text[m.end(): defs[i + 1].start() if i + 1 < len(defs) else len(text)]
            names = set(EXEC.findall(body))
            if names:
                out.setdefault(m.group(1), set()).update(names)
    return out


def camel_to_snake(name):
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return s.lower()


def opapi_file_aclnn(texts):
    """{snake op name from the file name: set(aclnn)}; AddKernelNpuOpApi.cpp -> add."""
    out = {}
    for path, text in texts.items():
        stem = re.sub(r"Kernel\w*$", "", os.path.basename(path)[:-4])
        names = set(EXEC.findall(strip_c_comments(text)))
        if names:
            out.setdefault(camel_to_snake(stem), set()).update(names)
    return out


def load(locations=None):
    """op-plugin kernels (aten + npu custom), deprecations and OpInfo skip list."""
    src = open_source("op-plugin-functions", locations)
    doc = yaml.safe_load(src.read(FUNCS))
    versions = list(doc["all_version"])
    custom_names = {e["func"].split("(")[0].split(".")[0] for e in doc.get("custom", [])}
    ops = {}
    for section in ("official", "autograd", "quant", "symint", "custom"):
        for e in doc.get(section) or []:
            name = e["func"].split("(")[0].strip()
            base, _, overload = name.partition(".")
            overload = overload or "default"
            if section == "custom":
                ns = "npu"
            elif section == "symint":
                ns = "npu" if (base in custom_names or "npu" in base) else "aten"
            else:
                ns = "aten"
            rec = ops.setdefault("%s|%s" % (ns, base), {
                "ns": ns, "base": base, "overloads": {}, "aclnn": set(), "tags": set(),
                "sections": set()})
            rec["sections"].add(section)
            ov = rec["overloads"].setdefault(overload, {"acl_op": set(), "op_api": set(), "exec": None})
            ov["acl_op"].update(expand_versions(e.get("acl_op"), versions))
            ov["op_api"].update(expand_versions(e.get("op_api"), versions))
            ex = (e.get("gen_opapi") or {}).get("exec")
            if ex:
                ov["exec"] = ex.split(",")[0].strip()
                rec["aclnn"].add(ov["exec"])
            tags = e.get("tags")
            if tags:
                rec["tags"].update([tags] if isinstance(tags, str) else tags)
    # aclnn names called by the hand-written op_api kernels
    cpp = src.read_many(src.files("op_plugin/ops/opapi/*.cpp"))
    by_func = opapi_aclnn(cpp)
    by_file = opapi_file_aclnn(cpp)
    for rec in ops.values():
        base = rec["base"]
        for fn in (base, base + "_out", base + "_symint", base.rstrip("_")):
            rec["aclnn"].update(by_func.get(fn, ()))
        rec["aclnn"].update(by_file.get(base.strip("_"), ()))
    for rec in ops.values():
        for ov in rec["overloads"].values():
            ov["acl_op"] = sorted(ov["acl_op"], key=version_key)
            ov["op_api"] = sorted(ov["op_api"], key=version_key)
        rec["aclnn"] = sorted(rec["aclnn"])
        rec["tags"] = sorted(rec["tags"])
        rec["sections"] = sorted(rec["sections"])
    dep = yaml.safe_load(open_source("op-plugin-deprecated", locations).read(DEPRECATED))
    deprecated = {d["name"]: d.get("replace") for d in dep.get("deprecated", [])}
    unsup = yaml.safe_load(open_source("op-plugin-unsupported", locations).read(UNSUPPORTED)) or {}
    unsupported = {k: {t: [x for x in (v or []) if x] for t, v in (tests or {}).items()}
                   for k, tests in unsup.items() if isinstance(k, str)}
    return {"versions": versions, "ops": ops, "deprecated": deprecated, "unsupported": unsupported}


def write_list(facts, path=LIST_FILE):
    names = sorted({r["base"] for r in facts["ops"].values() if r["ns"] == "aten"})
    with open(path, "w", encoding="utf-8") as f:
        f.write("# aten base op names with an op-plugin kernel entry (official/autograd/quant/symint)\n")
        f.write("# generated by tools/table/import_op_plugin.py --write-list from the pinned op-plugin\n")
        for n in names:
            f.write(n + "\n")
    return len(names)


if __name__ == "__main__":
    import sys
    if "--write-list" in sys.argv:
        sys.argv.remove("--write-list")
        n = write_list(load())
        print("%d names written to %s" % (n, LIST_FILE))
    else:
        importer_main(load)
