#!/usr/bin/python3
"""Build data/op_map.yaml (schema 1) and docs/sources.md from the pinned sources.

    /usr/bin/python3 tools/table/build_table.py            # write both files
    /usr/bin/python3 tools/table/build_table.py --check    # exit 1 if they would change

Options: --out FILE, --sources-md FILE, --kinds FILE (repeatable; default
tools/table/torch_kinds.txt plus tests/fixtures/torchscript/kinds.txt when it
exists), --location SOURCE_ID=PATH (repeatable; else $OPMAP_SRC_<ID> /
$OPMAP_MIRROR, see _common.py).

The derivation rules are documented in tools/table/README.md; every rule that
sets a status also writes the reason into the row's notes.  Output is
deterministic: rows sorted by (domain, op, since), keys in a fixed order,
sets sorted; re-running on the same inputs gives byte-identical files.
"""
import argparse
import collections
import glob
import json
import os
import re
import sys

import yaml

import import_hicann_defs
import import_hicann_plugins
import import_modelzoo
import import_msit_onnx_map
import import_mstt
import import_native_functions
import import_onnx_schemas
import import_op_plugin
import import_ort_cann
import import_surgeon
import import_torch_npu_docs
import import_torch_npu_native
import import_torchair
import backward
import graph_mode
import import_derivatives
from _common import HERE, ROOT, TABLE_DTYPES, load_sources_config, version_key

TABLE_VERSION = "2026.08.22"        # date of the newest pinned snapshot
SOCS = ["ascend910b", "ascend910_93", "ascend310p", "ascend950", "ascend910", "ascend310b"]
MAIN_SOCS = ["ascend910b", "ascend910_93", "ascend310p", "ascend950"]
SOC_NAMES = {"ascend910b": "Atlas A2", "ascend910_93": "Atlas A3", "ascend950": "Ascend 950",
             "ascend310p": "Atlas inference series (310P)", "ascend910": "Atlas training series (910)",
             "ascend310b": "Atlas 200I/500 A2 (310B)"}
FLAGS = ["precision", "nondeterministic", "rng", "performance", "dynamic_shape", "inf_nan", "deprecated"]
ENGINES = ["ai_core", "ai_cpu", "host", "decomposed", "cpu_fallback", "dvpp"]
STATUS_RANK = {"full": 0, "structural": 0, "partial": 1, "rewrite": 2}
PLUGIN_IDS = ["ops-math-onnx-plugin", "ops-nn-onnx-plugin", "ops-cv-onnx-plugin"]
ONNX_DOMAINS = ("ai.onnx", "ai.onnx.ml", "ai.onnx.preview.training")
ATC_MIN_OPSET = 8                    # ORT CANN EP lower bound; ATC spec lists opsets 8..13
ONNX_DEPRECATED_REPLACEMENT = {"Upsample": "Resize", "Scatter": "ScatterElements"}


# --------------------------------------------------------------------------- rows
class Row:
    def __init__(self, domain, op, since=None):
        self.domain, self.op, self.since = domain, op, since
        self.overloads = []
        self.torch_npu = None
        self.pytorch = None           # ATen rows: {"since": release[, "until": release]}
        self.status = None
        self.ascend = {}
        self.socs = {}
        self.dtypes = []
        self.flags = set()
        self.constraints = []
        self.hint = None
        self.notes = []
        self.sources = set()
        self.curated = []
        self.real_since = since
        self.no_registration = None   # (note, generic hint) of the "no ATC registration" verdict
        self.inputs = {}              # input index -> {"name", "dtypes", "sources"}
        # evidence per fact ("status", "ascend", "dtypes", "flags.<flag>"): a list of
        # (grade cap or None, sources); the fact's grade is the best piece's
        self.ev = {}

    @property
    def key(self):
        return (self.domain, self.op, self.since)

    def note(self, text):
        if text and text not in self.notes:
            self.notes.append(text)

    def cite(self, fact, *srcs, grade=None, replace=False):
        """Record that `srcs` support `fact`; `grade` caps what they are taken as (an
        inference drawn from a kernel source is derived)."""
        srcs = frozenset(s for s in srcs if s)
        if replace or fact not in self.ev:
            self.ev[fact] = []
        if srcs:
            self.ev[fact].append((grade, srcs))
        self.sources.update(srcs)

    def set_status(self, status, *srcs, grade=None):
        self.status = status
        self.cite("status", *srcs, grade=grade, replace=True)

    def worsen(self, status, *srcs, grade=None):
        if self.status is None or STATUS_RANK[status] > STATUS_RANK.get(self.status, 0):
            self.set_status(status, *srcs, grade=grade)
        elif status == self.status:
            self.cite("status", *srcs, grade=grade)

    def flag(self, name, *srcs, grade=None):
        self.flags.add(name)
        self.cite("flags." + name, *srcs, grade=grade)


def ranges(nums):
    """[8, 9, 10, 13] -> '8-10, 13'."""
    nums = sorted(set(nums))
    out, start, prev = [], None, None
    for n in nums:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append("%d" % start if start == prev else "%d-%d" % (start, prev))
            start = prev = n
    if start is not None:
        out.append("%d" % start if start == prev else "%d-%d" % (start, prev))
    return ", ".join(out)


def camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.strip("_").split("_"))


# --------------------------------------------------------------------------- evidence
GRADE_RANK = {"practice": 1, "derived": 2, "doc": 3, "kernel": 4}
GRADES = {}        # source id -> grade, from sources.yaml (set in main)


def grade_of(pieces):
    """The grade of a fact: its best piece's, each piece capped by its stated grade."""
    best = None
    for cap, srcs in pieces:
        g = max((GRADES[x] for x in srcs), key=GRADE_RANK.get)
        if cap and GRADE_RANK[cap] < GRADE_RANK[g]:
            g = cap
        if best is None or GRADE_RANK[g] > GRADE_RANK[best]:
            best = g
    return best


def evidence(pieces):
    """{grade, sources} of a fact, or None when nothing supports it."""
    if not pieces:
        return None
    return {"grade": grade_of(pieces), "sources": sorted(set().union(*(s for _, s in pieces)))}


# --------------------------------------------------------------------------- build
class Builder:
    def __init__(self, facts, cfg, kinds, jit_ops=None):
        self.f = facts
        self.cfg = cfg
        self.kinds = kinds
        self.jit_ops = jit_ops or {}
        self.rows = {}
        self.curated_used = collections.Counter()

    def row(self, domain, op, since=None, create=True):
        k = (domain, op, since)
        if k not in self.rows and create:
            self.rows[k] = Row(domain, op, since)
        return self.rows.get(k)

    # ------------------------------------------------------------------ ONNX
    def build_onnx(self):
        schemas = self.f["onnx"]["versions"]
        opset_max = self.f["onnx"]["opset_max"]
        versions = collections.defaultdict(list)
        for v in schemas.values():
            versions[(v["domain"], v["op"])].append(v["since"])
        # registrations: (domain, op) -> opset -> cann_op -> set(source)
        reg = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
        imply = collections.defaultdict(set)
        for r in self.f["plugins"]["registrations"]:
            reg[(r["domain"], r["op"])][r["opset"]][r["cann_op"]].append(r)
            if r["imply_type"]:
                imply[(r["domain"], r["op"], r["cann_op"])].add(r["imply_type"])
        msit = collections.defaultdict(dict)
        for key, cann in self.f["msit"]["entries"].items():
            dom, opset, op = key.split("|")
            msit[(dom, op)][int(opset)] = cann
        # Ascend-only op names (custom ops in ai.onnx, npu, onnxinfer, mmdeploy)
        for key in set(reg) | set(msit):
            if key not in versions:
                opsets = set(reg.get(key, {})) | set(msit.get(key, {}))
                versions[key].append(min(opsets))
        self.onnx_reg, self.onnx_msit = reg, msit
        ort = set(self.f["ort"]["ops"])
        doc = {k.lower(): (k, v) for k, v in self.f["docs"]["onnx_doc"].items()}
        for (dom, op), sinces in sorted(versions.items()):
            sinces = sorted(set(sinces))
            all_opsets = set(reg.get((dom, op), {})) | set(msit.get((dom, op), {}))
            top = opset_max.get(dom, max(all_opsets | set(sinces)))
            for i, since in enumerate(sinces):
                hi = sinces[i + 1] - 1 if i + 1 < len(sinces) else top
                hi = max(hi, since)
                schema = schemas.get("%s|%s|%d" % (dom, op, since))
                covered = set(reg.get((dom, op), {})) | set(msit.get((dom, op), {}))
                for lo2, hi2 in self._runs(dom, since, hi, covered):
                    self._onnx_row(dom, op, since, lo2, hi2, schema, reg.get((dom, op), {}),
                                   msit.get((dom, op), {}), all_opsets, imply, ort, doc)

    @staticmethod
    def _runs(dom, since, hi, covered):
        """Split [since, hi] into maximal runs of 'registered' / 'not registered' opsets.

        ONNX's lookup picks the row with the largest since <= the model's opset, so a
        run that starts after `since` becomes its own row keyed by its first opset:
        e.g. Add-14 is unchanged up to opset 22 but ATC registers it only up to 18, so
        Add gets a row at since 14 (full) and one at 19 (rewrite).
        """
        def state(o):
            if o in covered:
                return True
            return False
        runs = []
        for o in range(since, hi + 1):
            if runs and state(o) == runs[-1][2]:
                runs[-1][1] = o
            else:
                runs.append([o, o, state(o)])
        return [(a, b) for a, b, _ in runs]

    def _cann_info(self, cann_op):
        """(def entry, docs source id, readme support, unit) for a CANN op type."""
        d = self.f["defs"]["defs"].get(cann_op)
        if not d:
            return None, None, {}, None
        docs_id = d["source"].replace("-def", "-docs")
        support = self.f["defs"]["readme"].get("%s:%s" % (docs_id, d["dir"]), {})
        unit = self.f["defs"]["units"].get("%s:%s" % (docs_id, d["dir"]))
        return d, docs_id, support, unit

    def _onnx_row(self, dom, op, real_since, since, hi, schema, reg, msit, all_opsets, imply, ort, doc):
        r = self.row(dom, op, since)
        r.real_since = real_since
        span = list(range(since, hi + 1))
        if schema:
            r.sources.add(schema.get("origin", "onnx-registry"))
        if since != real_since:
            r.note("Opset split: ONNX's %s-%d is unchanged at opset %s, but ATC's registration changes at "
                   "opset %d, so this row answers for models importing opset %s." % (
                       op, real_since, ranges(span), since, ranges(span)))
        plug = {o: reg[o] for o in span if o in reg}
        ms = {o: msit[o] for o in span if o in msit}
        covered = set(plug) | set(ms)
        if schema and schema.get("deprecated"):
            r.flag("deprecated", "onnx-registry")
            repl = ONNX_DEPRECATED_REPLACEMENT.get(op)
            r.hint = "Deprecated in ONNX since opset %d%s: re-export the model." % (
                real_since, " (use %s)" % repl if repl else "")
        if not covered:
            # the three plugin repos and msit's map are complete registries: absence is a fact
            registries = PLUGIN_IDS + ["msit-onnx-map"]
            r.set_status("rewrite", *registries)
            verdict = ("No ATC ONNX parser registration for %s at opset %s in the pinned hicann plugins "
                       "(ops-math, ops-nn, ops-cv) or in msit's onnx.yaml map; both are complete registries, "
                       "so ATC rejects this node." % (op if dom == "ai.onnx" else "%s::%s" % (dom, op),
                                                      ranges(span)))
            r.note(verdict)
            generic_hint = None
            other = sorted(all_opsets)
            if other:
                # the operator itself runs on Ascend: exporting the model at an opset ATC
                # parses is the fix, work of the "partial" kind, not a rewrite of the model
                r.set_status("partial", *registries)
                r.note("ATC does parse %s at opset %s." % (op, ranges(other)))
                if not r.hint:
                    r.hint = "ATC registers %s at opset %s: re-export the model at one of those opsets." % (
                        op, ranges(other))
            elif schema and schema.get("function"):
                r.hint = ("ONNX defines %s-%d as a function: expand it into its primitive ops before "
                          "conversion (e.g. onnx.inliner / exporter function inlining)." % (op, real_since))
                r.sources.add("onnx-registry")
            elif not r.hint:
                generic_hint = r.hint = ("Replace %s with operators ATC supports, or add a CANN custom "
                                         "operator with an ATC ONNX parser plugin." % op)
            r.no_registration = (verdict, generic_hint)
            r.ascend["how"] = ("nothing at opset %s: ATC parses %s at opset %s only" % (ranges(span), op, ranges(other))
                               if other else "nothing: no ATC parser registration")
            r.cite("ascend", *registries)
            if dom == "ai.onnx" and op in ort and hi >= ATC_MIN_OPSET:
                r.note("ORT's CANN execution provider lists %s (by name, no opset), but it hands the node "
                       "to the same CANN ONNX parser." % op)
                r.sources.add("ort-cann-ep")
            return
        # CANN op types over the covered opsets (plugins first, msit for the rest), and what
        # each registration's parser function builds
        canns = collections.Counter()
        plugin_srcs = set()
        built, notes, expanded = [], [], set()
        for o in sorted(covered):
            if o in plug:
                for c, recs in plug[o].items():
                    canns[c] += 1
                    for x in recs:
                        plugin_srcs.add(x["source"])
                        if x["expanded"]:
                            expanded.add(c)
                        for b in x["subgraph_ops"]:
                            if b not in built:
                                built.append(b)
                        if x.get("subgraph_note") and x["subgraph_note"] not in notes:
                            notes.append(x["subgraph_note"])
            else:
                canns[ms[o]] += 1
        status_srcs = set(plugin_srcs) | ({"msit-onnx-map"} if ms else set())
        r.set_status("full", *status_srcs)
        if not plugin_srcs:
            r.note("Registered only in msit's onnx.yaml map; no pinned ATC parser plugin (hicann ops-math, "
                   "ops-nn, ops-cv) registers it at opset %s (the parser of a CANN release may carry plugins "
                   "outside these repos)." % ranges(covered))
        real = [c for c, _ in sorted(canns.items(), key=lambda x: (-x[1], x[0])) if c != "PartitionedCall"]
        if built:
            r.ascend["ops"] = built
            r.cite("ascend", *plugin_srcs)
        if notes:
            r.ascend["how"] = "; ".join(notes)
        if not real or (expanded and set(real) <= expanded):
            r.ascend["engine"] = "decomposed"
            r.cite("ascend", *(plugin_srcs or {"msit-onnx-map"}))
            r.note("ATC's parser replaces this node by a subgraph of CANN ops (%s)." % (
                ", ".join(built) if built else "PartitionedCall; the pinned plugins do not show which"))
            if not built:
                r.ascend["how"] = "a subgraph ATC's parser builds (PartitionedCall); no pinned plugin shows of what"
        if real:
            r.ascend["op"] = real[0]
            r.cite("ascend", *(plugin_srcs or {"msit-onnx-map"}))
            if len(real) > 1:
                r.note("CANN op types used across the opsets: %s." % ", ".join(real))
            if "PartitionedCall" in canns:
                r.note("Some opsets are expanded into a subgraph (PartitionedCall).")
        # msit vs plugins
        ms_only = sorted(o for o in ms if o not in plug)
        if plug and ms_only:
            r.note("msit's map also lists opset %s, which the pinned parser plugins do not register."
                   % ranges(ms_only))
        diff = sorted({(o, ms[o]) for o in ms if o in plug and ms[o] not in plug[o]})
        if diff:
            r.note("msit's map names another CANN op at opset %s (%s)." % (
                ranges([o for o, _ in diff]), ", ".join(sorted({c for _, c in diff}))))
        pl_only = sorted(o for o in plug if o not in ms)
        if ms and pl_only and min(pl_only) >= min(ms):
            r.note("Registered by the parser plugins but absent from msit's map at opset %s." % ranges(pl_only))
        # engine and per-SoC facts
        if real and r.ascend.get("engine") != "decomposed":
            main = real[0]
            kinds = imply.get((dom, op, main), set())
            d, docs_id, support, unit = self._cann_info(main)
            if "AI_CPU" in kinds:
                r.ascend["engine"] = "ai_cpu"
            elif "GELOCAL" in kinds:
                r.ascend["engine"] = "host"
                r.note("Handled by the graph engine on the host (GE local op: shape/metadata only).")
            elif unit == "ai_core" or (not unit and d and d["engine"] == "ai_core"):
                r.ascend["engine"] = "ai_core"
                r.cite("ascend", docs_id if unit else d["source"])
            elif unit == "ai_cpu" or (d and d["engine"] == "ai_cpu"):
                # the open-source repo only carries an AI CPU kernel for this op type; the
                # AI Core kernels of a CANN release are not in any pinned source, so no claim
                r.note("The open-source hicann/%s ships only an AI CPU kernel for CANN op %s (%s); "
                       "whether a CANN release adds an AI Core kernel is not covered by the pinned sources."
                       % ((docs_id or d["source"]).rsplit("-", 1)[0], main, d["dir"] if d else "op_list"))
                r.sources.add(docs_id if unit else d["source"])
            if r.ascend.get("engine") == "ai_cpu":
                r.worsen("partial", *plugin_srcs)
                r.flag("performance", *plugin_srcs)
                r.note("Runs on AI CPU, not AI Core.")
            if d:
                self._soc_from_def(r, d, docs_id, support, "CANN op %s" % main)
        # old ATC spec: the dtypes of each named input; a GE local (host) op moves no data
        # through a kernel, so the spec's list for its TBE kernel does not apply
        dk = doc.get(op.lower())
        if dom == "ai.onnx" and dk and since <= 13 and hi >= 8 and dk[1]["dtypes"]:
            if r.ascend.get("engine") == "host":
                r.note("The 2022 ATC operator spec lists input dtypes for a %s kernel; the parser registers "
                       "it as a GE local op (host, metadata only), so no kernel dtype list applies." % op)
                r.sources.add("torch-npu-onnx-doc")
            else:
                names = (schema or {}).get("inputs") or []
                for k, (name, dts) in enumerate(dk[1]["dtypes"].items()):
                    idx = next((i for i, n in enumerate(names) if n.lower() == name.lower()), None)
                    if idx is None:
                        idx = k if k < len(names) or not names else None
                    if idx is None or idx in r.inputs:
                        continue
                    r.inputs[idx] = {"name": name, "dtypes": dts, "sources": ["torch-npu-onnx-doc"]}
                    r.sources.add("torch-npu-onnx-doc")
        self._readme_dtypes(r, real[0] if real else (built[0] if len(built) == 1 else None), schema)
        if dom == "ai.onnx" and op in ort and hi >= ATC_MIN_OPSET:
            r.sources.add("ort-cann-ep")

    def _readme_dtypes(self, r, cann_op, schema):
        """Input dtypes from the CANN op's own README (hicann, 2026) over the 2022 ATC operator
        spec's lists: newer and about this op's kernel. The README's first input is the ONNX
        node's input 0; another is bound only when its name is the ONNX input's (README
        tables list some attributes as inputs, so positions past the first do not match). A
        disagreement is noted."""
        d = self.f["defs"]["defs"].get(cann_op) if cann_op else None
        if not d or r.ascend.get("engine") == "host":
            return
        docs_id = d["source"].replace("-def", "-docs")
        lists = self.f["defs"]["readme_dtypes"].get("%s:%s" % (docs_id, d["dir"]))
        names = (schema or {}).get("inputs") or []
        if not lists:
            return
        for k, (rname, dts) in enumerate(lists):
            idx = 0 if k == 0 else next((i for i, n in enumerate(names) if n.lower() == rname.lower()), None)
            if idx is None or not dts:
                continue
            old = r.inputs.get(idx)
            if old and set(old["dtypes"]) != set(dts):
                r.note("Input %d dtypes: the 2022 ATC operator spec lists %s; CANN op %s's README (%s) lists "
                       "%s, which the row takes (newer, about this kernel)." % (
                           idx, ", ".join(old["dtypes"]), cann_op, d["dir"], ", ".join(dts)))
            name = old["name"] if old else (names[idx] if idx < len(names) else "")
            r.inputs[idx] = {"name": name, "dtypes": list(dts), "sources": [docs_id]}
            r.sources.add(docs_id)
            if idx == 0:
                # the inputs ONNX types as input 0 (A and B of a comparison: T) take its list
                types = (schema or {}).get("input_types") or []
                for j in range(1, len(types)):
                    if types[j] == types[0] and j in r.inputs and \
                            set(r.inputs[j]["dtypes"]) != set(dts):
                        r.note("Input %d dtypes: ONNX types it as input 0 (%s), so the README's list "
                               "for input 0 stands for it too (the 2022 ATC operator spec lists %s)."
                               % (j, types[0], ", ".join(r.inputs[j]["dtypes"])))
                        r.inputs[j] = {"name": r.inputs[j]["name"], "dtypes": list(dts),
                                       "sources": [docs_id]}

    def _soc_from_def(self, r, d, docs_id, support, what):
        for soc in SOCS:
            dts = d["socs"].get(soc)
            mark = support.get(soc)
            if mark is True:
                e = {"status": "full", "sources": sorted({docs_id} | ({d["source"]} if dts else set()))}
                if dts:
                    e["dtypes"] = dts
                r.socs[soc] = e
                r.sources.add(docs_id)
            elif mark is False:
                r.socs[soc] = {"status": "unknown", "sources": [docs_id],
                               "note": "%s: the op README of hicann/%s marks this product as not supported by "
                                       "the open-source kernel; built-in kernels of a CANN release are not "
                                       "covered by any pinned source" % (what, docs_id.replace("-docs", ""))}
                r.sources.add(docs_id)
            elif soc in d["socs"]:
                e = {"status": "full", "sources": [d["source"]]}
                if dts:
                    e["dtypes"] = dts
                r.socs[soc] = e
                r.sources.add(d["source"])

    # ------------------------------------------------------------------ ATen / npu
    def build_torch(self):
        opp = self.f["op_plugin"]
        newest = opp["versions"][-1]
        nat = self.f["native"]["ops"]
        tnpu = self.f["torch_npu"]["ops"]
        kinds = self.kinds
        aten = set(nat)
        aten |= {r["base"] for r in opp["ops"].values() if r["ns"] == "aten"}
        aten |= {r["base"] for r in tnpu.values() if r["ns"] == "aten"}
        aten |= {k.split("::", 1)[1] for k in kinds if k.startswith("aten::")}
        aten |= {k.split("::", 1)[1] for k in self.jit_ops if k.startswith("aten::")}
        self.aten_names = aten
        api_index = self._api_index(aten)
        for base in sorted(aten):
            self._aten_row(base, opp["ops"].get("aten|" + base), tnpu.get("aten|" + base), nat.get(base),
                           "aten::" + base in kinds, newest, api_index.get(base, []))
        npu = {r["base"] for r in opp["ops"].values() if r["ns"] == "npu"}
        npu |= {r["base"] for r in tnpu.values() if r["ns"] == "npu"}
        npu |= {k.split("::", 1)[1] for k in kinds if k.startswith("npu::")}
        for base in sorted(npu):
            self._npu_row(base, opp["ops"].get("npu|" + base), tnpu.get("npu|" + base), newest)
        self._opinfo()
        self._flags_from_docs(aten)

    def _versions(self, rec):
        vs = set()
        for ov in rec["overloads"].values():
            vs.update(ov["acl_op"])
            vs.update(ov["op_api"])
            vs.update(ov.get("sparse", []))
        return sorted(vs, key=version_key)

    def _set_range(self, r, vs, newest):
        allv = self.f["op_plugin"]["versions"]
        r.torch_npu = {"min": vs[0].lstrip("v")}
        if vs[-1] != newest:
            r.torch_npu["max"] = vs[-1].lstrip("v")
            r.note("op-plugin has a kernel up to torch_npu %s only." % vs[-1].lstrip("v"))
        idx = [allv.index(v) for v in vs]
        if idx != list(range(idx[0], idx[-1] + 1)):
            gaps = [v.lstrip("v") for v in allv[idx[0]:idx[-1] + 1] if v not in vs]
            r.note("No op-plugin kernel for torch_npu %s within that range." % ", ".join(gaps))

    def _aclnn(self, r, rec, base):
        """The aclnn API that computes the op's output (op-plugin's kernel sources,
        import_op_plugin "what produces the output"), else the old guess; the ops the kernel
        dispatches to, when it computes through others."""
        best = rec.get("aclnn_main")
        routed = [p.split(" ", 1)[1] for p in rec.get("producers", []) if p.startswith("aten ")]
        if routed:
            names = [x.replace("aten::", "").replace("npu::", "torch_npu.") for x in routed]
            r.ascend["how"] = "op-plugin's kernel computes it through %s, as its dispatch conditions pick" % (
                ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else names[0])
            r.cite("ascend", "op-plugin-functions")
        if not best and rec.get("producers"):
            return None
        if not best:
            names = [n for n in rec["aclnn"] if re.match(r"aclnn[A-Z]\w*$", n) and
                     (import_op_plugin.FILL_OPS.search(base) or not import_op_plugin.FILL_APIS.match(n))]
            if not names:
                return None
            execs = sorted({ov["exec"] for ov in rec["overloads"].values() if ov.get("exec")})
            pref = "aclnn" + camel(base)
            best = next((n for n in execs if n in names), None) or (pref if pref in names else None) or \
                next((n for n in names if not n.startswith("aclnnInplace")), names[0])
            r.note("aclnn API guessed from the names op-plugin's kernels use (no kernel body calls one).")
        r.ascend["aclnn"] = best
        r.cite("ascend", "op-plugin-functions")
        others = [n for n in rec.get("aclnn_calls", []) if n != best]
        if others:
            r.note("The op_api kernel also calls %s." % ", ".join(others))
        return best

    def _aclnn_socs(self, r, aclnn, kernel_paths):
        info = self.f["defs"]["aclnn"].get(aclnn)
        if not info or not info["socs"]:
            return
        for soc in SOCS:
            if soc in r.socs:
                continue
            mark = info["socs"].get(soc)
            if mark is True:
                r.socs[soc] = {"status": "full", "sources": [info["source"]]}
                r.sources.add(info["source"])
            elif mark is False:
                note = "the %s API doc marks this product as not supported" % aclnn
                if "acl_op" in kernel_paths:
                    note += "; torch_npu may still run the op through its acl_op (graph) path, which no pinned source documents per chip"
                r.socs[soc] = {"status": "unknown", "sources": [info["source"]], "note": note}
                r.sources.add(info["source"])

    def _aten_row(self, base, rec, tn, nf, in_kinds, newest, apis):
        r = self.row("aten", base)
        ovs = set()
        kernel_paths = set()
        if rec:
            ovs.update(rec["overloads"])
            vs = self._versions(rec)
            for ov in rec["overloads"].values():
                if ov["acl_op"]:
                    kernel_paths.add("acl_op")
                if ov["op_api"]:
                    kernel_paths.add("op_api")
                if ov.get("sparse"):
                    kernel_paths.add("sparse")
        else:
            vs = []
        if tn:
            ovs.update(tn["overloads"])
        if not ovs and nf:
            ovs.update(nf["overloads"])
        r.overloads = sorted(ovs)
        r.schema = self._schema(nf)
        nsrc = nf["source"] if nf else "pytorch-native-functions"
        if nf:
            # since when PyTorch has it, among the pinned releases (1.13.1, 2.6.0, 2.14.1)
            r.pytorch = {"since": nf["since"]}
            if nf["until"]:
                r.pytorch["until"] = nf["until"]
                r.note("In PyTorch %s .. %s only: the newest pinned release (%s) no longer has it." % (
                    nf["since"], nf["until"], self.f["native"]["versions"][-1]))
            if nf["classified_as"]:
                r.note("PyTorch releases classify it differently: %s; the row follows the newest." % ", ".join(
                    "%s %s" % (v, k) for v, k in sorted(nf["classified_as"].items(), key=lambda x: version_key(x[0]))))
        view = bool(nf) and any(o["view"] for o in nf["overloads"].values())
        if nf and nf["metadata"] and not vs and not tn:
            r.set_status("structural", nsrc)
            r.note("Returns no tensor and runs without a device guard in every overload: a query of the "
                   "tensor's description (sizes, strides, dims) answered on the host; no kernel runs.")
        elif vs or tn:
            srcs = (["op-plugin-functions"] if vs else []) + (["torch-npu-native"] if tn else [])
            r.set_status("full", *srcs)
            if vs:
                self._set_range(r, vs, newest)
                paths = " and ".join(sorted(kernel_paths))
                r.note("op-plugin registers an NPU kernel (%s)." % paths)
            if tn:
                r.note("Implemented inside torch_npu (npu_native_functions.yaml).")
            aclnn = self._aclnn(r, rec, base) if rec else None
            if aclnn:
                self._aclnn_socs(r, aclnn, kernel_paths)
            elif r.ascend.get("how"):
                pass                      # computed through other ops (_aclnn said which)
            elif view:
                r.ascend["how"] = "a view of its input: no kernel computes it"
                r.cite("ascend", nsrc, *srcs)
            elif rec:
                r.ascend["how"] = ("op-plugin's %s kernel, which calls no aclnn API" % " and ".join(sorted(kernel_paths))
                                   if kernel_paths else "an op-plugin registration without a kernel range")
                r.cite("ascend", "op-plugin-functions")
            else:
                r.ascend["how"] = "a kernel inside torch_npu itself"
                r.cite("ascend", "torch-npu-native")
        elif nf and any(o["composite_implicit"] or o["composite_explicit"] or
                        (o["structured_delegate"] and o["structured_delegate"].split(".")[0] != base)
                        for o in nf["overloads"].values()):
            r.set_status("full", nsrc, "op-plugin-functions")
            r.ascend["engine"] = "decomposed"
            r.ascend["how"] = ("a view of its input: no kernel computes it" if view else
                               "decomposed by PyTorch into other ATen ops, each with its own NPU kernel")
            r.cite("ascend", nsrc)
            kinds = sorted({k for o in nf["overloads"].values() for k, on in
                            (("CompositeImplicitAutograd", o["composite_implicit"]),
                             ("CompositeExplicitAutograd", o["composite_explicit"])) if on})
            r.note("No NPU kernel in op-plugin or torch_npu; PyTorch runs it as a decomposition (%s) into "
                   "other aten ops, which need NPU kernels themselves." % "/".join(kinds or ["structured delegate"]))
        elif nf and nf["tensor_free"]:
            r.set_status("structural", nsrc)
            r.note("Takes and returns no tensors (host-side utility op); nothing runs on the NPU.")
        elif nf:
            r.set_status("partial", nsrc, "op-plugin-functions", "torch-npu-native")
            r.ascend["engine"] = "cpu_fallback"
            r.ascend["how"] = "the host CPU, through torch_npu's fallback (no NPU kernel)"
            r.cite("ascend", nsrc, "op-plugin-functions", "torch-npu-native")
            r.flag("performance", nsrc, "op-plugin-functions", "torch-npu-native")
            backends = sorted({b for o in nf["overloads"].values() for b in o["backends"]})
            r.note("No NPU kernel in op-plugin or torch_npu and no composite decomposition (PyTorch kernels: "
                   "%s): torch_npu falls back to the CPU with a warning (an error under "
                   "TORCH_NPU_FALLBACK_CPU_DISABLE=1)." % (", ".join(backends) or "none"))
            r.hint = "Keep it off the hot path or replace it with ops that have NPU kernels."
        else:
            # not an ATen native function of any pinned release: a TorchScript interpreter op
            jit = self.jit_ops.get("aten::" + base)
            if jit and jit["returns_tensor"]:
                # it makes a tensor: data/curated/torch.yaml says what it becomes
                r.sources.add("torch-jit-ops")
                r.note("Registered by TorchScript's interpreter, not an ATen native function; it returns "
                       "a tensor.")
            elif jit:
                r.set_status("structural", "torch-jit-ops")
                r.note("Registered by TorchScript's interpreter, not an ATen native function: it works on "
                       "lists, scalars, strings or a tensor's value and description, on the host; no NPU "
                       "kernel runs.")
            else:
                r.set_status("structural", "torch-kinds", nsrc)
                r.note("Not an ATen native function (TorchScript interpreter op on lists, scalars or "
                       "strings); it runs on the host.")
        rng = (nf and "nondeterministic_seeded" in nf["tags"]) or (rec and "nondeterministic_seeded" in rec["tags"])
        if rng:
            srcs = ([nsrc] if nf and "nondeterministic_seeded" in nf["tags"] else []) + \
                   (["op-plugin-functions"] if rec and "nondeterministic_seeded" in rec["tags"] else [])
            train, p = self._arg(r, "train"), self._arg(r, "p")
            dropout_p = self._arg(r, "dropout_p")
            if train is None and dropout_p is not None and "float" in dropout_p[1]:
                # attention's dropout: random only when dropout_p > 0 (0 in inference)
                r.constraints.append({
                    "when": {"attr": "dropout_p", "arg": dropout_p[0], "gt": 0}, "flag": "rng",
                    "message": "random when dropout_p > 0: the NPU random stream differs from CPU/CUDA",
                    "sources": srcs})
                r.note("Random op (nondeterministic_seeded) when dropout_p > 0; with dropout_p=0 it is "
                       "deterministic.")
            elif train is not None and "bool" in train[1]:
                # random only when training with p > 0: train=False (eval) or p=0 is an identity
                when = [{"attr": "train", "arg": train[0], "eq": 1}]
                if p is not None:
                    when.append({"attr": "p", "arg": p[0], "gt": 0})
                r.constraints.append({
                    "when": when if len(when) > 1 else when[0], "flag": "rng",
                    "message": "random in training mode (train=True): the NPU random stream differs "
                               "from CPU/CUDA", "sources": srcs})
                r.note("Random op (nondeterministic_seeded) when train=True; with train=False it "
                       "returns its input.")
            else:
                r.flag("rng", *srcs)
                r.note("Random op (nondeterministic_seeded): the NPU random stream differs from CPU/CUDA.")
        self._api_facts(r, apis, rec)

    @staticmethod
    def _schema(nf):
        """The arguments of the op's main overload (default, else the first), or []."""
        if not nf:
            return []
        ovs = nf["overloads"]
        main = ovs.get("default") or ovs[sorted(ovs)[0]]
        return main["args"]

    @staticmethod
    def _arg(r, name):
        """(position, type, default) of an argument in the row's ATen schema, or None."""
        for i, a in enumerate(getattr(r, "schema", []) or []):
            if a["name"] == name:
                return i, a["type"], a["default"]
        return None

    def _npu_row(self, base, rec, tn, newest):
        r = self.row("npu", base)
        ovs = set()
        vs = self._versions(rec) if rec else []
        if rec:
            ovs.update(rec["overloads"])
        if tn:
            ovs.update(tn["overloads"])
        r.overloads = sorted(ovs)
        srcs = (["op-plugin-functions"] if rec else []) + (["torch-npu-native"] if tn else [])
        r.set_status("full", *srcs)
        if vs:
            self._set_range(r, vs, newest)
            self._aclnn(r, rec, base.replace("npu_", "", 1))
            kp = {p for ov in rec["overloads"].values() for p in ("acl_op", "op_api") if ov[p]}
            if r.ascend.get("aclnn"):
                self._aclnn_socs(r, r.ascend["aclnn"], kp)
            r.note("torch_npu custom op (op-plugin %s kernel)." % " and ".join(sorted(kp)))
        elif rec:
            r.note("torch_npu custom op registered by op-plugin without an acl_op/op_api range (composite or "
                   "autograd-only registration).")
        if tn:
            r.note("Registered by torch_npu itself (npu_native_functions.yaml).")
        if rec and "nondeterministic_seeded" in rec["tags"]:
            r.flag("rng", "op-plugin-functions")
            r.note("Random op (nondeterministic_seeded).")
        if not rec and not tn:
            r.set_status("rewrite", "op-plugin-functions", "torch-npu-native")
            r.note("Not registered by the pinned op-plugin or torch_npu.")
        if base.startswith("npu_") and rec and not base.endswith("backward"):
            r.ascend["api"] = "torch_npu." + base
            r.cite("ascend", "op-plugin-functions")
        if not r.ascend and (rec or tn):
            r.ascend["how"] = ("a torch_npu custom kernel (op-plugin), no aclnn API named" if rec
                               else "a kernel inside torch_npu itself")
            r.cite("ascend", "op-plugin-functions" if rec else "torch-npu-native")
        dep = self.f["op_plugin"]["deprecated"]
        if base in dep:
            r.flag("deprecated", "op-plugin-deprecated")
            repl = dep[base]
            r.hint = ("Deprecated in torch_npu: use %s." % repl) if repl else \
                "Deprecated in torch_npu (no replacement named): move to standard torch ops."
            if r.status == "full":
                r.set_status("partial", "op-plugin-deprecated")
        else:
            dov = sorted(k.split(".", 1)[1] for k in dep if k.split(".", 1)[0] == base and "." in k)
            if dov:
                r.sources.add("op-plugin-deprecated")
                r.note("Deprecated overloads: %s (use %s)." % (", ".join(dov), dep["%s.%s" % (base, dov[0])]))

    # ---- torch Python API -> aten names
    @staticmethod
    def api_candidates(api):
        """[(aten base, priority)] an API name may lower to (smaller = closer)."""
        a = api.replace("\\_", "_").strip()
        out = []
        for prefix, pre, prio in (("torch.ops.aten.", "", 0), ("torch.nn.functional.", "", 1),
                                  ("torch.Tensor.", "", 2), ("Tensor.", "", 2),
                                  ("torch.linalg.", "linalg_", 0), ("torch.special.", "special_", 0),
                                  ("torch.fft.", "fft_", 0), ("torch.nn.", None, 3), ("torch.", "", 0)):
            if a.startswith(prefix):
                rest = a[len(prefix):]
                if "." in rest:
                    return []
                if pre is None:          # nn.Module class name
                    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", rest).lower()
                    for c in (rest.lower(), s, re.sub(r"_?\d+d$", "", s)):
                        out.append((c, prio))
                    return out
                return [(pre + rest, prio)]
        return []

    def _api_index(self, aten):
        apis = set(self.f["docs"]["apis"]) | set(self.f["mstt"]["supported"]) | set(self.f["mstt"]["unsupported"])
        idx = collections.defaultdict(list)
        for api in sorted(apis):
            for base, prio in self.api_candidates(api):
                if base in aten:
                    idx[base].append((prio, api))
                    break
        return {k: sorted(v) for k, v in idx.items()}

    def _dtypes(self, r, doc_apis):
        """Input 0's dtypes of an ATen row: every dtype a current source says the op takes,
        joined: the aclnn doc of the API that computes it (its parameter table) and the
        Ascend/pytorch API docs of the newest torch version documenting it (torch.softmax,
        nn.functional.softmax, nn.Softmax, Tensor.cumsum ...). A narrow list never beats a
        wider one of the same grade: torch.md says softmax takes fp32 only where
        nn.functional's page and aclnnSoftmax.md list fp16/bf16/fp32; aclnnCumsum.md has no
        bool where the API pages and op-plugin's kernel (which casts) take it. Lists that
        disagree are noted in the row."""
        docs = self.f["docs"]["apis"]
        lists = []
        for api in doc_apis:
            dts = docs[api]["dtypes"]
            first = dts.get("input") or dts.get("self") or dts.get("query") or \
                (next(iter(dts.values())) if dts else None)
            if first:
                lists.append((docs[api]["version"], api, docs[api]["file"].rsplit("/", 1)[-1], first))
        if lists:
            newest = max(version_key(v) for v, _, _, _ in lists)
            lists = [x for x in lists if version_key(x[0]) == newest]
        aclnn = r.ascend.get("aclnn")
        info = self.f["defs"]["aclnn"].get(aclnn) if aclnn else None
        if info and info.get("dtypes"):
            lists.append(("", aclnn, "%s.md" % aclnn, info["dtypes"]))
        if not lists:
            return
        r.dtypes = sorted({d for x in lists for d in x[3]}, key=TABLE_DTYPES.index)
        r.cite("dtypes", *sorted({info["source"] if x[1] == aclnn and info else "torch-npu-api-docs"
                                  for x in lists}), replace=True)
        narrow = sorted({"%s (%s) lists %s" % (f, a, ", ".join(d)) for _, a, f, d in lists
                         if set(d) != set(r.dtypes)})
        if narrow:
            r.note("Dtype lists disagree: %s; the row takes every dtype a source lists (%s)." % (
                "; ".join(narrow), ", ".join(r.dtypes)))

    def _api_facts(self, r, apis, rec):
        docs = self.f["docs"]["apis"]
        mstt = self.f["mstt"]
        doc_api = next((a for _, a in apis if a in docs), None)
        if doc_api:
            d = docs[doc_api]
            r.sources.add("torch-npu-api-docs")
            where = "Ascend/pytorch API doc (%s, torch %s)" % (doc_api, d["version"])
            for soc in ("ascend910b", "ascend910_93", "ascend950", "ascend910"):
                if soc not in d["socs"]:
                    continue
                old = r.socs.get(soc)
                if d["socs"][soc]:
                    e = {"status": "full", "sources": ["torch-npu-api-docs"]}
                    r.socs[soc] = e
                elif old and old["status"] == "full":
                    # the op's own kernel doc (aclnn, hicann) lists the chip: a published
                    # path exists; the general API page's mark is kept as a disagreement
                    r.note("Disagreement: %s marks %s as not supported; the %s doc of the kernel "
                           "that computes it lists it as supported, which the row takes." % (
                               where, SOC_NAMES[soc], r.ascend.get("aclnn", "aclnn")))
                    r.sources.add("torch-npu-api-docs")
                else:
                    r.socs[soc] = {"status": "rewrite", "sources": ["torch-npu-api-docs"],
                                   "note": "%s marks %s as not supported" % (where, SOC_NAMES[soc])}
            self._dtypes(r, [a for _, a in apis if a in docs])
            if d["cpu_fallback"]:
                r.flag("performance", "torch-npu-api-docs")
                r.worsen("partial", "torch-npu-api-docs")
                r.note("%s: may fall back to the CPU." % where)
            if d["inference_only"]:
                r.worsen("partial", "torch-npu-api-docs")
                r.note("%s: inference only, training not supported." % where)
            if d["other_notes"]:
                r.note("%s lists further limitations." % where)
        if not doc_api:
            self._dtypes(r, [])
        mapi = next((a for _, a in apis if a in mstt["supported"]), None)
        if mapi and not r.dtypes and mstt["supported"][mapi]["dtypes"]:
            r.dtypes = mstt["supported"][mapi]["dtypes"]
            r.cite("dtypes", "mstt-supported-ops", replace=True)
        elif mapi:
            r.sources.add("mstt-supported-ops")
        uapi = [a for _, a in apis if a in mstt["unsupported"]]
        if uapi:
            r.sources.add("mstt-unsupported-ops")
            vers = sorted({v for a in uapi for v in mstt["unsupported"][a]}, key=version_key)
            if r.status == "full" and r.ascend.get("engine") != "decomposed":
                r.note("Disagreement: PyTorch Analyse (mstt op_list %s) reports %s as unsupported although a "
                       "kernel is registered." % ("/".join(vers), ", ".join(uapi)))
            else:
                r.note("PyTorch Analyse (mstt op_list %s) reports %s as unsupported." % ("/".join(vers), ", ".join(uapi)))

    # ---- op-plugin OpInfo skip list
    def _opinfo(self):
        """What the NPU OpInfo skip list says, test by test (import_op_plugin.TEST_MEANING): an
        entry records that a test was skipped on the NPU for a dtype, never why, and the
        harness also fails a test on any exception. So no entry is a fact about a kernel: a
        test_compare_cpu entry becomes a note that op-plugin's tests do not compare the op
        with the CPU for that dtype (no flag, no status, no charge); harness tests (neg/conj
        views, out=, fake tensors) are dropped; others are noted as skipped."""
        meaning = import_op_plugin.TEST_MEANING
        unsup = self.f["op_plugin"]["unsupported"]
        for name, tests in sorted(unsup.items()):
            if name.startswith(("_refs.", "masked.", "sparse.", "__r")) or not tests:
                continue
            n = name
            for pre, rep in (("nn.functional.", ""), ("linalg.", "linalg_"), ("special.", "special_"),
                             ("fft.", "fft_")):
                if n.startswith(pre):
                    n = rep + n[len(pre):]
            if "." in n or ("aten", n, None) not in self.rows:
                continue
            r = self.rows[("aten", n, None)]
            if r.status == "structural":
                continue
            for test, dts in sorted(tests.items()):
                kind = meaning.get(test, ("unclear",))[0]
                if kind == "harness":
                    continue
                r.sources.add("op-plugin-unsupported")
                if kind == "precision":
                    r.note("Not compared against the CPU in op-plugin's tests for %s: %s is in its skip "
                           "list (OpInfo %s), which records no reason; this says nothing about the "
                           "kernel's numbers." % (", ".join(dts) or "any dtype", test, name))
                else:
                    r.note("OpInfo test %s is skipped on NPU for %s (OpInfo %s); the skip list records "
                           "no reason." % (test, ", ".join(dts) or "all dtypes", name))

    # ---- inf/nan, deterministic lists
    def _flags_from_docs(self, aten):
        docs = self.f["docs"]
        for api in docs["inf_nan"]:
            for base, _ in self.api_candidates(api)[:1]:
                r = self.rows.get(("aten", base, None))
                if r:
                    r.flag("inf_nan", "torch-npu-inf-nan")
                    r.note("inf/nan inputs are handled differently from native PyTorch (%s)." % api)
        for api, socs in sorted(docs["deterministic"].items()):
            backward = api.endswith(" (backward)")
            name = api.replace(" (backward)", "")
            cands = self.api_candidates(name)
            for base, _ in cands:
                r = self.rows.get(("aten", base, None))
                if r:
                    r.flag("nondeterministic", "torch-npu-deterministic")
                    r.note("Nondeterministic%s on %s unless torch.use_deterministic_algorithms(True) (%s)."
                           % (" backward" if backward else "",
                              ", ".join(SOC_NAMES[s] for s in SOCS if s in socs), name))
                    break

    # ------------------------------------------------------------------ other namespaces
    def build_kinds(self):
        # every prim:: operator TorchScript registers, and the kinds models produced
        for kind in sorted(k for k in self.jit_ops if k.startswith("prim::")):
            ns, _, op = kind.partition("::")
            if (ns, op, None) not in self.rows:
                self.row(ns, op).sources.add("torch-jit-ops")
        for kind in sorted(self.kinds):
            ns, _, op = kind.partition("::")
            if ns in ("aten", "npu"):
                continue
            if (ns, op, None) not in self.rows:
                r = self.row(ns, op)
                r.sources.add("torch-kinds")

    # ------------------------------------------------------------------ curated overlays
    def apply_curated(self, entries):
        """Overlay data/curated/*.yaml. Each entry has a grade (its own or its file's):
        its facts rest on its `sources` (our judgement, `curated`, when it names none) at
        that grade. A lower grade never overrides a higher one: an entry's status replaces
        the row's only when its grade is at least the status's (moving a row to structural,
        which costs nothing, is always allowed); otherwise the disagreement is noted. An entry
        marked `contradicted` (a current source says otherwise) becomes advice: its
        constraints turn into `then: note`, its flags and status into notes."""
        defaults = self.f["onnx"]["versions"]
        knowledges = set(self.f["surgeon"]["knowledges"])
        advice = set(self.f["mstt"]["precision"])
        for path, e, file_grade in entries:
            where = "%s: %s" % (os.path.relpath(path, ROOT), e.get("match"))
            if "curated" not in e:
                raise SystemExit("%s: entry without curated: reason" % where)
            grade = e.get("grade", file_grade)
            if grade not in GRADE_RANK:
                raise SystemExit("%s: entry without a grade (kernel, doc, derived, practice)" % where)
            if e.get("knowledge") and e["knowledge"] not in knowledges:
                raise SystemExit("%s: knowledge %s is not in the pinned msit snapshot" % (where, e["knowledge"]))
            if e.get("api") and e["api"] not in advice:
                raise SystemExit("%s: api %s is not in the pinned precision advice" % (where, e["api"]))
            srcs = list(e.get("sources", []))
            if grade == "practice" and "migration-guides" not in srcs:
                srcs.append("migration-guides")
            for x in srcs:
                if x not in self.cfg:
                    raise SystemExit("%s: unknown source id %s" % (where, x))
            if not srcs:
                srcs = ["curated"]
            contra = e.get("contradicted")
            if contra:
                for x in contra.get("sources", []):
                    if x not in self.cfg:
                        raise SystemExit("%s: unknown source id %s in contradicted" % (where, x))
            m = e["match"]
            dom, op, since = m["domain"], m["op"], m.get("since")
            if op == "*":
                if e.get("create") == "kinds":
                    for kind in list(self.kinds) + [k for k in self.jit_ops if k.startswith(dom + "::")]:
                        ns, _, name = kind.partition("::")
                        if ns == dom:
                            self.row(dom, name)
                targets = [r for k, r in sorted(self.rows.items(), key=lambda x: str(x[0])) if k[0] == dom]
            else:
                targets = [r for k, r in sorted(self.rows.items(), key=lambda x: str(x[0]))
                           if k[0] == dom and k[1] == op and (since is None or getattr(r, "real_since", k[2]) == since)]
                if not targets and e.get("create"):
                    targets = [self.row(dom, op, since)]
            if not targets:
                raise SystemExit("%s: matches no row" % where)
            self.curated_used[os.path.basename(path)] += len(targets)
            for r in targets:
                self._apply_entry(r, e, grade, srcs, contra, defaults)

    def _complete(self, r, w, defaults):
        """A condition as the table needs it: ONNX attribute defaults from the schema, ATen
        attributes with their position in the ATen schema (TorchScript passes them as
        arguments)."""
        w = dict(w)
        if "attr" in w and "default" not in w and r.since is not None and \
                "is" not in w and "count" not in w:
            sch = defaults.get("%s|%s|%d" % (r.domain, r.op, getattr(r, "real_since", r.since)))
            if sch is None:       # newer op version: borrow the default of the newest known one
                older = sorted((v for v in defaults.values() if v["domain"] == r.domain and
                                v["op"] == r.op and v["defaults"]), key=lambda v: v["since"])
                sch = older[-1] if older else None
            if sch and w["attr"] in sch["defaults"]:
                w["default"] = sch["defaults"][w["attr"]]
        if "attr" in w and r.since is None and r.domain == "aten" and "arg" not in w:
            arg = self._arg(r, w["attr"])
            if arg is None:
                raise SystemExit("%s::%s: constraint on '%s', which is no argument of its ATen "
                                 "schema" % (r.domain, r.op, w["attr"]))
            w["arg"] = arg[0]
        return w

    def _apply_entry(self, r, e, grade, srcs, contra, defaults):
        said = "%s (%s grade)" % (e["curated"], grade)
        if contra:
            why = "Not applied: %s" % contra["note"]
            r.sources.update(contra.get("sources", []))
        if e.get("status"):
            cur = grade_of(r.ev.get("status", [])) if r.status else None
            allowed = (cur is None or GRADE_RANK[grade] >= GRADE_RANK[cur] or e["status"] == "structural")
            if contra:
                r.note("Practice report: %s -> %s. %s" % (e["curated"], e["status"], why))
            elif not allowed:
                r.note("Disagreement: %s says %s; the %s-grade sources say %s, and a lower grade never "
                       "overrides a higher one." % (said, e["status"], cur, r.status))
            elif e["status"] != r.status or r.status is None:
                if r.no_registration and e["status"] != "rewrite":
                    # our judgement overrules the generated "ATC rejects this node": keep the
                    # fact (no registration) but drop the verdict and the generic rewrite hint
                    verdict, generic_hint = r.no_registration
                    fact = verdict.replace("; both are complete registries, so ATC rejects this node.",
                                           " (the curated judgement below says why that is no obstacle).")
                    r.notes = [fact if n == verdict else n for n in r.notes]
                    if r.hint == generic_hint:
                        r.hint = None
                    r.no_registration = None
                r.set_status(e["status"], *srcs, grade=grade)
        if e.get("engine"):
            r.ascend["engine"] = e["engine"]
            r.cite("ascend", *srcs, grade=grade)
        if e.get("how"):
            r.ascend["how"] = e["how"]
            r.cite("ascend", *srcs, grade=grade)
        for soc, se in sorted((e.get("socs") or {}).items()):
            # a chip's answer a source gives that no importer reaches (never over a
            # higher-grade entry of the same chip)
            if soc not in SOCS:
                raise SystemExit("curated entry %s: unknown chip %s" % (e.get("match"), soc))
            old = r.socs.get(soc)
            if old and old.get("sources") and GRADE_RANK[grade] < GRADE_RANK[grade_of([(None, frozenset(old["sources"]))])]:
                r.note("Disagreement: %s says %s on %s; a higher-grade source says %s." % (
                    said, se["status"], SOC_NAMES[soc], old["status"]))
                continue
            r.socs[soc] = {"status": se["status"], "sources": [x for x in srcs if x != "curated"],
                           "note": se["note"]}
        for f in e.get("flags", []):
            if contra:
                r.note("Practice report: %s (flag %s). %s" % (e["curated"], f, why))
            else:
                r.flag(f, *srcs, grade=grade)
        for c in e.get("constraints", []):
            c = json.loads(json.dumps(c))
            if isinstance(c["when"], list):
                c["when"] = [self._complete(r, w, defaults) for w in c["when"]]
            else:
                c["when"] = self._complete(r, c["when"], defaults)
            c["sources"] = srcs
            c["grade"] = grade
            if contra:
                c.pop("then", None)
                c.pop("flag", None)
                c["then"] = "note"
                c["message"] = "%s; %s" % (c["message"], contra["note"])
            if c not in r.constraints:
                r.constraints.append(c)
        if e.get("hint") and not contra:
            # a hint derived from the sources (re-export at opset X, deprecation) stays first
            r.hint = e["hint"] if not r.hint or e["hint"] in r.hint else "%s %s" % (r.hint, e["hint"])
        if e.get("notes"):
            r.note(e["notes"])
        r.sources.update(x for x in srcs if x != "curated")
        if e["curated"] not in r.curated:
            r.curated.append(e["curated"])

    # ------------------------------------------------------------------ finish
    def finish(self):
        for r in self.rows.values():
            if r.status is None:
                r.set_status("rewrite", "curated", grade="derived")
                r.note("No pinned source lists this operator for Ascend.")
                if not r.curated:
                    r.curated.append("no pinned source speaks for this operator; treated as needing a rewrite")
            if r.status == "structural":
                r.socs = {}
            if r.ascend.get("engine") == "cpu_fallback" and not r.ascend.get("how"):
                r.ascend["how"] = "the host CPU, through torch_npu's fallback (no NPU kernel)"
            if r.status in ("partial", "rewrite") and not r.hint and r.ascend.get("engine") == "cpu_fallback":
                r.hint = "Keep it off the hot path or replace it with ops that have NPU kernels."
            # main chips no source speaks for (only on rows that carry some chip facts)
            if r.socs:
                for soc in MAIN_SOCS:
                    if soc not in r.socs:
                        r.socs[soc] = {"status": "unknown", "note": "no pinned source speaks for this chip"}
            r.dtypes = [d for d in r.dtypes if d in TABLE_DTYPES]
            for i in r.inputs.values():
                i["dtypes"] = [d for d in i["dtypes"] if d in TABLE_DTYPES]
            r.inputs = {k: v for k, v in r.inputs.items() if v["dtypes"]}
            if not r.dtypes:
                r.ev.pop("dtypes", None)
            if not r.ascend:
                r.ev.pop("ascend", None)
            r.sources.discard("curated")
            self._check_evidence(r)

    @staticmethod
    def _check_evidence(r):
        """Every fact the row states rests on a source with a grade (opmap table lint checks
        the same on the written table)."""
        missing = []
        if not r.ev.get("status"):
            missing.append("status")
        if r.ascend and not r.ev.get("ascend"):
            missing.append("ascend")
        if r.dtypes and not r.ev.get("dtypes"):
            missing.append("dtypes")
        missing += ["flags.%s" % f for f in sorted(r.flags) if not r.ev.get("flags." + f)]
        missing += ["constraint '%s'" % c["message"][:40] for c in r.constraints if not c.get("sources")]
        missing += ["socs.%s" % k for k, e in r.socs.items() if e["status"] != "unknown" and not e.get("sources")]
        if missing:
            raise SystemExit("%s::%s%s: no evidence for %s" % (
                r.domain, r.op, "" if r.since is None else " since %d" % r.since, ", ".join(missing)))


# --------------------------------------------------------------------------- YAML output
PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SPECIAL = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"}


def q(s):
    if isinstance(s, bool):
        raise ValueError("booleans are not emitted")
    if isinstance(s, int):
        return str(s)
    if isinstance(s, float):
        if s == int(s) and abs(s) < 1e15:
            return "%.1f" % s
        t = repr(s)
        if "e" in t and "." not in t.split("e")[0]:
            m, ex = t.split("e")
            t = "%s.0e%s" % (m, ex)
        return t
    s = str(s)
    if PLAIN.match(s) and s.lower() not in SPECIAL:
        return s
    return json.dumps(s, ensure_ascii=False)


# the graph-mode answer's keys, in the order written (docs/table-format.md, "graph")
GRAPH_KEYS = ["status", "via", "declared", "implemented", "partial", "stub", "counted", "sigs",
              "where", "note", "grade", "sources"]
# the backward answer's keys, in the order written (docs/table-format.md, "backward")
BACKWARD_KEYS = ["status", "via", "ops", "helpers", "note", "grade", "sources"]
WHEN_ORDER = ["attr", "arg", "input", "output", "default", "grade", "index", "name"]


def flow(v):
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: (WHEN_ORDER.index(k) if k in WHEN_ORDER else len(WHEN_ORDER)))
        return "{" + ", ".join("%s: %s" % (k, flow(v[k])) for k in keys) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(flow(x) for x in v) + "]"
    return q(v)


def emit_row(r, out):
    w = out.append
    w("  - domain: %s" % q(r.domain))
    w("    op: %s" % q(r.op))
    if r.since is not None:
        w("    since: %d" % r.since)
    if r.overloads:
        w("    overloads: %s" % flow(r.overloads))
    if r.torch_npu:
        w("    torch_npu: %s" % flow(r.torch_npu))
    if r.pytorch:
        w("    pytorch: %s" % flow({k: r.pytorch[k] for k in ("since", "until") if k in r.pytorch}))
    w("    status: %s" % r.status)
    if r.ascend:
        w("    ascend: %s" % flow({k: r.ascend[k] for k in ("op", "aclnn", "api", "engine", "ops", "how")
                                   if k in r.ascend}))
    if r.socs:
        w("    socs:")
        for soc in SOCS:
            if soc in r.socs:
                e = dict(r.socs[soc])
                if e.get("sources") and e["status"] != "unknown":
                    e["grade"] = grade_of([(None, frozenset(e["sources"]))])
                w("      %s: %s" % (soc, flow({k: e[k] for k in ("status", "dtypes", "note", "grade", "sources")
                                              if k in e})))
    if r.dtypes:
        w("    dtypes: %s" % flow(r.dtypes))
    if r.inputs:
        w("    inputs:")
        for idx in sorted(r.inputs):
            i = r.inputs[idx]
            w("      - %s" % flow({"index": idx, "name": i["name"], "dtypes": i["dtypes"],
                                  "grade": grade_of([(None, frozenset(i["sources"]))]),
                                  "sources": sorted(i["sources"])}))
    if r.flags:
        w("    flags: %s" % flow([f for f in FLAGS if f in r.flags]))
    if r.constraints:
        w("    constraints:")
        for c in r.constraints:
            first = True
            c = dict(c)
            c["grade"] = grade_of([(c.get("grade"), frozenset(c["sources"]))])
            c["sources"] = sorted(set(c["sources"]))
            for k in ("when", "socs", "then", "flag", "message", "becomes", "grade", "sources"):
                if k in c:
                    w("      %s %s: %s" % ("-" if first else " ", k, flow(c[k])))
                    first = False
    ev = {}
    for fact in ["status", "ascend", "dtypes"] + ["flags." + f for f in FLAGS]:
        e = evidence(r.ev.get(fact))
        if e and (fact == "status" or (fact == "ascend" and r.ascend) or (fact == "dtypes" and r.dtypes)
                  or (fact.startswith("flags.") and fact[6:] in r.flags)):
            ev[fact] = e
    if ev:
        w("    evidence:")
        for fact, e in ev.items():
            w("      %s: %s" % (fact, flow(e)))
    if getattr(r, "graph", None):
        g = r.graph
        w("    graph: {%s}" % ", ".join("%s: %s" % (k, flow(g[k])) for k in GRAPH_KEYS
                                     if k in g and g[k] not in ([], None)))
    if getattr(r, "backward", None):
        g = r.backward
        w("    backward: {%s}" % ", ".join("%s: %s" % (k, flow(g[k])) for k in BACKWARD_KEYS
                                        if k in g and g[k] not in ([], None)))
    if r.hint:
        w("    hint: %s" % q(r.hint))
    if r.notes:
        w("    notes: %s" % q(" ".join(r.notes)))
    if r.sources:
        w("    sources: %s" % flow(sorted(r.sources)))
    if r.curated:
        w("    curated: %s" % q("; ".join(r.curated)))


def load_soc_parts(directory, cfg):
    """data/curated/soc_parts.yaml: per chip family, its exact parts and their sources."""
    path = os.path.join(directory, "soc_parts.yaml")
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f) or {}
    out = {}
    for soc, e in (doc.get("soc_parts") or {}).items():
        if soc not in SOCS:
            raise SystemExit("%s: %s is not a chip of about.socs" % (path, soc))
        for x in e.get("sources", []):
            if x not in cfg:
                raise SystemExit("%s: %s: unknown source %s" % (path, soc, x))
        if not e.get("parts") or not e.get("sources"):
            raise SystemExit("%s: %s needs parts and sources" % (path, soc))
        out[soc] = e
    return out


def render(rows, cfg, facts, cited, advice=(), soc_parts=None):
    out = []
    w = out.append
    w("# opmap compatibility table (schema 1) -- GENERATED by tools/table/build_table.py; do not edit.")
    w("# Edit data/curated/*.yaml or the importers and rebuild (see tools/table/README.md).")
    w("schema: 1")
    w("about:")
    w("  name: opmap built-in table")
    w("  version: %s" % q(TABLE_VERSION))
    w("  onnx_opset_max: %d" % facts["onnx"]["opset_max"]["ai.onnx"])
    vs = facts["op_plugin"]["versions"]
    w("  torch_npu: %s" % q("%s .. %s" % (vs[0].lstrip("v"), vs[-1].lstrip("v"))))
    w("  cann: %s" % q("hicann ops-* master of 2026-08 (CANN 9.0 line); ATC restrictions from the 2022 ATC operator spec"))
    w("  socs: %s" % flow(SOCS))
    w("  default_soc: ascend910b")
    if soc_parts:
        w("  soc_parts:")
        for soc in SOCS:
            if soc in soc_parts:
                e = soc_parts[soc]
                w("    %s: {parts: %s, sources: %s}" % (soc, flow(e["parts"]), flow(e["sources"])))
    w("weights:")
    for k, v in (("full", (0.1, 0.1, 0.1)), ("partial", (0.5, 0.8, 1.0)), ("rewrite", (2.0, 2.5, 3.0)),
                 ("unmapped", (2.0, 2.5, 3.0)), ("unpublished", (0.0, 0.2, 0.5))):
        w("  %s: {min: %s, expected: %s, max: %s}" % (k, q(v[0]), q(v[1]), q(v[2])))
    w("sources:")
    for sid in sorted(cfg):
        if sid not in cited:
            continue
        s = cfg[sid]
        w("  - id: %s" % q(sid))
        w("    repo: %s" % q(s["repo"]))
        w("    path: %s" % q("; ".join(s.get("paths", []))))
        w("    commit: %s" % q(s.get("commit") or ("v%s" % s["version"] if s.get("version") else "working tree")))
        w("    license: %s" % q(s["license"]))
        w("    taken: %s" % q(s["taken"]))
        w("    grade: %s" % s["grade"])
    w("  - id: curated")
    w("    taken: %s" % q("judgement of the opmap maintainers (data/curated/*.yaml), with the reason on each row"))
    w("    grade: derived")
    if advice:
        w("advice:")
        for a in advice:
            w("  - id: %s" % q(a["id"]))
            w("    detector: %s" % a["detector"])
            w("    kind: %s" % a["kind"])
            w("    message: %s" % q(a["message"]))
            w("    action: %s" % q(a["action"]))
            if a.get("recipes"):
                w("    recipes: %s" % flow(a["recipes"]))
            if a.get("notes"):
                w("    notes: %s" % q(a["notes"]))
            w("    grade: %s" % a["grade"])
            w("    sources: %s" % flow(sorted(a["sources"])))
    w("ops:")
    for r in rows:
        emit_row(r, out)
    return "\n".join(out) + "\n"


def render_sources_md(rows, cfg, counts, curated_counts, facts):
    out = []
    w = out.append
    w("# Sources of `data/op_map.yaml`")
    w("")
    w("Generated by `tools/table/build_table.py` from `tools/table/sources.yaml`; do not edit by hand.")
    w("Rebuild: see `tools/table/README.md`.  Only facts are taken from these sources (names, opsets,")
    w("dtypes, SoC marks, version ranges); restriction texts are summarised in our own words.")
    w("")
    w("Rows citing a source are counted once per row.  Total rows: %d." % len(rows))
    w("")
    w("| id | grade | repo | path(s) | commit / version | licence | rows citing |")
    w("|---|---|---|---|---|---|---|")
    for sid in sorted(cfg):
        s = cfg[sid]
        commit = s.get("commit") or ("v%s" % s["version"] if s.get("version") else "working tree")
        if s.get("commit"):
            commit = "`%s`" % commit
        w("| `%s` | %s | %s | %s | %s | %s | %d |" % (sid, s["grade"], s["repo"], "<br>".join("`%s`" % p for p in s.get("paths", [])),
                                               commit, s["license"], counts.get(sid, 0)))
    w("| `curated` | derived | data/curated/*.yaml (this repository) | %s | working tree | same as opmap | %d |"
      % ("<br>".join("`data/curated/%s` (%d rows)" % (k, v) for k, v in sorted(curated_counts.items())),
         sum(1 for r in rows if r.curated)))
    w("")
    w("## What each source contributes")
    w("")
    for sid in sorted(cfg):
        s = cfg[sid]
        reader = ("read by `tools/table/%s`" % s["importer"]) if s["importer"].endswith(".py") else \
            ("through %s" % s["importer"])
        w("- `%s` (%s grade; %s, %s): %s." % (sid, s["grade"], s["repo"], reader, s["taken"].rstrip(".")))
    w("")
    w("## Snapshots")
    w("")
    w("Git sources are read from bare mirrors (`fetch github:OWNER/NAME`, default")
    w("`/work/.mirror/OWNER+NAME/repo`) at the pinned commit only.  File sources:")
    w("")
    for sid in sorted(cfg):
        s = cfg[sid]
        if "file" in s:
            w("- `%s`: `%s`%s" % (sid, s["file"], " (sha256 `%s`)" % s["sha256"] if s.get("sha256") else ""))
    w("")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- main
def read_jit_ops(path):
    """{name: {takes_tensor, returns_tensor, overloads}} of tools/table/torch_jit_ops.txt."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, takes, gives, n = line.split()
            out[name] = {"takes_tensor": takes == "1", "returns_tensor": gives == "1", "overloads": int(n)}
    return out


def read_kinds(paths):
    kinds = {}
    for p in paths:
        with open(p, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                toks = line.split()
                kind = next((t for t in toks if "::" in t), None)
                if kind:
                    kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def load_detectors():
    """The advice detectors' names, from their one list: src/table/detectors.def."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "table",
                        "detectors.def")
    with open(path, encoding="utf-8") as f:
        return re.findall(r'^OM_DETECTOR\(\w+, "(\w+)"', f.read(), flags=re.M)


DETECTORS = load_detectors()   # src/rules/advice.c


def load_advice(directory, cfg, facts):
    """data/curated/advice.yaml, checked: known detectors and sources, recipe folders that
    exist in the pinned ModelZoo snapshot."""
    path = os.path.join(directory, "advice.yaml")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f) or {}
    recipes = set(facts["modelzoo"]["recipes"])
    out = []
    for e in doc.get("advice", []):
        where = "data/curated/advice.yaml: %s" % e.get("id")
        a = dict(e)
        a.setdefault("grade", doc.get("grade"))
        a.setdefault("sources", doc.get("sources", []))
        if a.get("kind") not in ("required", "optional", "custom_op"):
            raise SystemExit("%s: kind must be required, optional or custom_op" % where)
        if a["detector"] not in DETECTORS:
            raise SystemExit("%s: unknown detector %s" % (where, a["detector"]))
        if a["grade"] not in GRADE_RANK or not a["sources"]:
            raise SystemExit("%s: advice needs a grade and sources" % where)
        for x in a["sources"]:
            if x not in cfg:
                raise SystemExit("%s: unknown source id %s" % (where, x))
        for r in a.get("recipes", []):
            if r not in recipes:
                raise SystemExit("%s: recipe %s is not in the pinned ModelZoo snapshot" % (where, r))
        out.append(a)
    return out


def load_curated(directory):
    entries = []
    for path in sorted(glob.glob(os.path.join(directory, "*.yaml"))):
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f) or {}
        for e in doc.get("entries", []):
            entries.append((path, e, doc.get("grade")))
    return entries


def load_facts(locations):
    return {
        "onnx": import_onnx_schemas.load(locations),
        "msit": import_msit_onnx_map.load(locations),
        "plugins": import_hicann_plugins.load(locations),
        "defs": import_hicann_defs.load(locations),
        "op_plugin": import_op_plugin.load(locations),
        "torch_npu": import_torch_npu_native.load(locations),
        "docs": import_torch_npu_docs.load(locations),
        "mstt": import_mstt.load(locations),
        "native": import_native_functions.load(locations),
        "ort": import_ort_cann.load(locations),
        "surgeon": import_surgeon.load(locations),
        "modelzoo": import_modelzoo.load(locations),
        "torchair": import_torchair.load(locations),
        "derivatives": import_derivatives.load(locations),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "data", "op_map.yaml"))
    ap.add_argument("--sources-md", default=os.path.join(ROOT, "docs", "sources.md"))
    ap.add_argument("--curated", default=os.path.join(ROOT, "data", "curated"))
    ap.add_argument("--kinds", action="append", default=None)
    ap.add_argument("--location", action="append", default=[], help="SOURCE_ID=PATH")
    ap.add_argument("--check", action="store_true", help="do not write; exit 1 if the outputs would change")
    args = ap.parse_args(argv)
    if args.kinds is None:
        args.kinds = [os.path.join(HERE, "torch_kinds.txt")]
        fx = os.path.join(ROOT, "tests", "fixtures", "torchscript", "kinds.txt")
        if os.path.exists(fx):
            args.kinds.append(fx)
    locations = dict(x.split("=", 1) for x in args.location)
    cfg = load_sources_config()
    for sid, c in cfg.items():
        if c.get("grade") not in GRADE_RANK:
            raise SystemExit("tools/table/sources.yaml: source %s has no grade" % sid)
        GRADES[sid] = c["grade"]
    GRADES["curated"] = "derived"
    facts = load_facts(locations)
    b = Builder(facts, cfg, read_kinds(args.kinds), read_jit_ops(os.path.join(HERE, "torch_jit_ops.txt")))
    b.build_onnx()
    b.build_torch()
    b.build_kinds()
    b.apply_curated(load_curated(args.curated))
    n_graph = graph_mode.annotate(b, args.curated)
    if n_graph:
        b.curated_used["graph.yaml"] += n_graph
    backward.annotate(b)
    b.finish()
    rows = sorted(b.rows.values(), key=lambda r: (r.domain, r.op.lower(), r.op, -1 if r.since is None else r.since))
    counts = collections.Counter(s for r in rows for s in r.sources)
    for r in rows:
        # the graph-mode answer's sources: cited (declared, counted), not the row's own list
        for s in (getattr(r, "graph", None) and r.graph["sources"] or []) + \
                (getattr(r, "backward", None) and r.backward["sources"] or []):
            if s != "curated" and s not in r.sources:
                counts[s] += 1
        for e in r.socs.values():
            for s in e.get("sources", []):
                if s not in r.sources:
                    r.sources.add(s)
                    counts[s] += 1
    advice = load_advice(args.curated, cfg, facts)
    for a in advice:
        for x in a["sources"]:
            counts[x] += 0          # cited: declared in the table's sources
    soc_parts = load_soc_parts(args.curated, cfg)
    cited = set(counts) | {x for a in advice for x in a["sources"]}
    cited |= {x for e in soc_parts.values() for x in e["sources"]}
    text = render(rows, cfg, facts, cited, advice, soc_parts)
    md = render_sources_md(rows, cfg, counts, b.curated_used, facts)
    if args.check:
        same = all(os.path.exists(p) and open(p, encoding="utf-8").read() == t
                   for p, t in ((args.out, text), (args.sources_md, md)))
        print("table is %s" % ("up to date" if same else "OUT OF DATE"))
        return 0 if same else 1
    for p, t in ((args.out, text), (args.sources_md, md)):
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8") as f:
            f.write(t)
    st = collections.Counter((r.domain, r.status) for r in rows)
    print("%d rows written to %s (%d bytes)" % (len(rows), os.path.relpath(args.out, ROOT), len(text.encode())))
    for (d, s), n in sorted(st.items()):
        print("  %-26s %-10s %d" % (d, s, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
