#!/usr/bin/python3
"""CANN op definitions and product-support docs of the hicann repos (D3, D4).

Sources (hicann/ops-math, ops-nn, ops-cv, ops-transformer; CANN Open Software
License 2.0; facts only):
  ops-*-def   `**/op_host/*_def.cpp` and `**/op_kernel_aicpu/*_def.cpp`:
              per OpDef class (= CANN op type) the SoCs of
              `this->AICore().AddConfig("<soc>"[, cfg])` and the dtypes of the
              FIRST input for each SoC (the config's own Input() override when it
              has one, else the class default); `this->AICPU()` marks an AI CPU op.
  ops-*-docs  `<opdir>/README.md` "产品支持情况" table (√/× per product),
              `<opdir>/docs/aclnn*.md` product-support list (支持/不支持), and
              `docs/[zh/]op_list.md` (AI Core / AI CPU unit per op directory).
  `experimental/` trees are skipped (contributions outside the released set).

Products map to SoC ids: Ascend 950PR/950DT -> ascend950, Atlas A3 ->
ascend910_93, Atlas A2 -> ascend910b, Atlas 200I/500 A2 -> ascend310b,
Atlas 推理系列 -> ascend310p, Atlas 训练系列 -> ascend910.  Kirin and other
chips are ignored.

Facts:
  defs:   {op_type: {"source", "file", "dir", "engine": ai_core|ai_cpu,
                     "socs": {soc: [dtypes] or null}}}
  readme: {"<source>:<dir>": {soc: true|false}}
  aclnn:  {aclnnName: {"source", "dir", "file", "socs": {soc: true|false},
                       "dtypes": [the first aclTensor input's 数据类型] or None}}
  units:  {"<source>:<dir>": "ai_core"|"ai_cpu"}
  readme_dtypes: {"<source>:<dir>": [(name, [dtypes] or None) of each input row of the
                  README's 参数说明 table]}
"""
import posixpath
import re

from _common import (GE_DTYPES, dtype_order, importer_main, open_source, product_soc,
                     strip_c_comments, text_dtypes)

REPOS = ["ops-math", "ops-nn", "ops-cv", "ops-transformer"]
SOCS = {"ascend910b", "ascend910_93", "ascend310p", "ascend950", "ascend910", "ascend310b"}

CLASS = re.compile(r"class\s+(\w+)\s*:\s*public\s+OpDef\s*\{")
ADD_CONFIG = re.compile(r'AddConfig\(\s*"([\w]+)"\s*(?:,\s*(\w+)\s*)?\)')
INPUT_CALL = re.compile(r'(\w+(?:->|\.))Input\(\s*"(\w+)"\s*\)')
DT_CALL = re.compile(r"\.DataType(?:List)?\(\s*(\{[^{}]*\}|[A-Za-z_][\w:]*)\s*\)")
LIST_DEF = re.compile(r"(\w+)\s*(?:=\s*)?\{([^{}]*DT_[^{}]*)\}")


def _dtypes(expr, lists):
    if expr.startswith("{"):
        body = expr
    else:
        body = lists.get(expr.split("::")[-1])
        if body is None:
            return None
    names = re.findall(r"DT_\w+", body)
    out = [GE_DTYPES[n] for n in names if n in GE_DTYPES]
    return dtype_order(out) if out else None


def _first_input_dtypes(body, owner, lists):
    """dtypes of the first Input("...") chained on `owner` ('this->' or 'cfg.')."""
    for m in INPUT_CALL.finditer(body):
        if m.group(1) != owner:
            continue
        end = body.find(";", m.end())
        chain = body[m.end():end if end > 0 else len(body)]
        d = DT_CALL.search(chain)
        if d:
            return _dtypes(d.group(1), lists)
        return None
    return None


def parse_def(text):
    """[(op_type, engine, {soc: dtypes})] for each OpDef class in a def file."""
    text = strip_c_comments(text)
    lists = {name: body for name, body in LIST_DEF.findall(text)}
    classes = list(CLASS.finditer(text))
    out = []
    for i, m in enumerate(classes):
        body = text[m.end(): classes[i + 1].start() if i + 1 < len(classes) else len(text)]
        default = _first_input_dtypes(body, "this->", lists)
        socs = {}
        for soc, cfg in ADD_CONFIG.findall(body):
            if soc not in SOCS:
                continue
            d = _first_input_dtypes(body, cfg + ".", lists) if cfg else None
            socs[soc] = d if d is not None else default
        engine = "ai_cpu" if "this->AICPU()" in body and "this->AICore()" not in body else "ai_core"
        out.append((m.group(1), engine, socs))
    return out


SECTION = re.compile(r"^##\s*产品支持情况\s*$(.*?)(?=^##\s)", re.M | re.S)


def parse_support(text):
    """{soc: bool} from a '产品支持情况' section (table rows or bullet list)."""
    m = SECTION.search(text.replace("\r\n", "\n") + "\n## end\n")
    if not m:
        return {}
    out = {}
    for line in m.group(1).splitlines():
        if "<term>" in line:
            prod = re.search(r"<term>(.*?)</term>", line).group(1)
            rest = line[line.index("</term>"):]
        elif line.startswith("|") and ("√" in line or "×" in line):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            prod, rest = cells[0], "|".join(cells[1:])
        else:
            continue
        soc = product_soc(prod)
        if soc is None:
            continue
        if soc in out:
            continue            # the product-family line comes first; keep it
        if "√" in rest or re.search(r"：\s*支持|:\s*支持", rest):
            out[soc] = True
        elif "×" in rest or "不支持" in rest:
            out[soc] = False
    return out


PARAM_TABLE = re.compile(r"<table\b.*?</table>", re.S)


def _cells(row):
    return [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)]


def parse_first_input_dtypes(text, readme=False):
    got = parse_input_dtypes(text, readme)
    return got[0][1] if got else None


def parse_input_dtypes(text, readme=False):
    """[(name, dtypes)] of the aclTensor inputs in order, from the GetWorkspaceSize parameter
    table of an aclnn doc (its 数据类型 column), or of the rows marked 输入 of an op README's
    parameter table (which may list attributes as inputs too); [] when there is none (an
    input whose cell names no dtype: None). Per-chip notes beside the table are not read."""
    proto = re.search(r"GetWorkspaceSize\s*\((.*?)\)", text, re.S)
    tensors = set(re.findall(r"\baclTensor\s*\*\s*(\w+)", proto.group(1))) if proto else set()
    for t in PARAM_TABLE.findall(text):
        rows = re.findall(r"<tr>(.*?)</tr>", t, re.S)
        if not rows:
            continue
        head = _cells(rows[0])
        if "数据类型" not in head or "参数名" not in head:
            continue
        col = head.index("数据类型")
        out = []
        for row in rows[1:]:
            cells = _cells(row)
            if len(cells) <= col or len(cells) < 2 or "输入" not in cells[1]:
                continue
            name = re.split(r"[（(\s]", cells[0])[0]
            if "aclTensorList" in cells[0] or not (
                    readme or "aclTensor*" in cells[0].replace(" ", "") or name in tensors):
                continue
            out.append((name, text_dtypes(cells[col].replace("、", " ").replace("，", " ")) or None))
        return out
    sec = re.search(r"^##\s*参数说明\s*$(.*?)(?=^##\s)", text + "\n## end\n", re.M | re.S)
    if sec and re.search(r"^\s*-\s*\w+（aclTensor\*", sec.group(1), re.M):
        # a bullet per parameter: "- self（aclTensor*，计算输入）..." then, per product line,
        # "数据类型支持FLOAT16、FLOAT32..."; the union of those lines
        out = []
        items = re.split(r"^\s{0,3}-\s+(?=\w+（)", sec.group(1), flags=re.M)
        for it in items[1:]:
            head = re.match(r"(\w+)（([^）]*)）", it)
            if not head or "aclTensor*" not in head.group(2).replace(" ", "") or \
                    "输入" not in head.group(2) or "aclTensorList" in head.group(2):
                continue
            lists = re.findall(r"数据类型支持([A-Z0-9_、，, ]+)", it)
            d = text_dtypes(" ".join(x.replace("、", " ").replace("，", " ") for x in lists))
            out.append((head.group(1), d or None))
        if out:
            return out
    if readme:                                  # a markdown table
        lines = [ln for ln in (sec.group(1).splitlines() if sec else []) if ln.strip().startswith("|")]
        if len(lines) > 2:
            head = [c.strip() for c in lines[0].strip().strip("|").split("|")]
            if "数据类型" in head and "参数名" in head:
                col = head.index("数据类型")
                out = []
                for ln in lines[2:]:
                    cells = [c.strip() for c in ln.strip().strip("|").split("|")]
                    if len(cells) > col and len(cells) > 1 and "输入" in cells[1]:
                        out.append((re.split(r"[（(\s]", cells[0])[0].strip("`"),
                                    text_dtypes(cells[col].replace("、", " ").replace("，", " ")) or None))
                return out
    return []


def parse_op_list(text, list_path):
    """{dir: unit} from docs/[zh/]op_list.md (HTML or markdown table)."""
    base = posixpath.dirname(list_path)
    out = {}
    rows = text.split("<tr>") if "<tr>" in text else text.splitlines()
    for row in rows:
        link = re.search(r'\(([^)]*README\.md)\)|href="([^"]*README\.md)"', row)
        if not link:
            continue
        rel = link.group(1) or link.group(2)
        d = posixpath.normpath(posixpath.join(base, posixpath.dirname(rel)))
        up = row.upper()
        if "AI CORE" in up:
            out[d] = "ai_core"          # "AI Core" or "AI CORE/AI CPU"
        elif "AI CPU" in up:
            out[d] = "ai_cpu"
    return out


def load(locations=None):
    """Per CANN op type: SoCs and dtypes; per op dir / aclnn API: product support."""
    defs, readme, aclnn, units, readme_dtypes = {}, {}, {}, {}, {}
    for repo in REPOS:
        dsrc = open_source(repo + "-def", locations)
        paths = dsrc.files("*/op_host/*_def.cpp") + dsrc.files("*/op_kernel_aicpu/*_def.cpp")
        paths = [p for p in paths if not p.startswith("experimental/")]
        texts = dsrc.read_many(sorted(set(paths)))
        for path in sorted(texts):
            opdir = path.split("/op_host/")[0].split("/op_kernel_aicpu/")[0]
            for op, engine, socs in parse_def(texts[path]):
                prev = defs.get(op)
                entry = {"source": dsrc.id, "file": path, "dir": opdir, "engine": engine, "socs": socs}
                if prev is None:
                    defs[op] = entry
                else:
                    # same op type defined twice (e.g. AI Core + AI CPU, or two repos):
                    # union the SoCs, prefer the AI Core definition's location
                    for soc, d in socs.items():
                        if soc not in prev["socs"] or prev["socs"][soc] is None:
                            prev["socs"][soc] = d
                    if prev["engine"] == "ai_cpu" and engine == "ai_core":
                        prev.update(source=dsrc.id, file=path, dir=opdir, engine="ai_core")
        doc = open_source(repo + "-docs", locations)
        mds = [p for p in doc.files("*README.md") if "/" in p and not p.startswith("experimental/")]
        ac = [p for p in doc.files("*/docs/aclnn*.md") if not p.startswith("experimental/")]
        lists = doc.files("docs/zh/op_list.md") + doc.files("docs/op_list.md")
        texts = doc.read_many(sorted(set(mds + ac + lists)))
        for p in mds:
            s = parse_support(texts[p])
            if s:
                readme["%s:%s" % (doc.id, posixpath.dirname(p))] = s
            d = parse_input_dtypes(texts[p], readme=True)
            if d and d[0][1]:
                readme_dtypes["%s:%s" % (doc.id, posixpath.dirname(p))] = d
        for p in ac:
            s = parse_support(texts[p])
            names = posixpath.basename(p)[:-3].split("&")
            d = p.split("/docs/")[0]
            for n in names:
                n = n.strip()
                if re.match(r"aclnn\w+$", n) and (n not in aclnn or not aclnn[n]["socs"]):
                    aclnn[n] = {"source": doc.id, "dir": d, "socs": s, "file": p,
                                "dtypes": parse_first_input_dtypes(texts[p]) if len(names) == 1 else None}
        for p in lists:
            for d, unit in parse_op_list(texts[p], p).items():
                units["%s:%s" % (doc.id, d)] = unit
    return {"defs": defs, "readme": readme, "aclnn": aclnn, "units": units, "readme_dtypes": readme_dtypes}


if __name__ == "__main__":
    importer_main(load)
