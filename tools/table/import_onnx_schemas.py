#!/usr/bin/python3
"""ONNX operator versions: the python3-onnx registry plus the v1.17 changelog.

Sources:
  onnx-registry   python3-onnx (Debian) `onnx.defs.get_all_schemas_with_history()`:
                  every (domain, op, since_version) up to opset 17, attribute
                  defaults, deprecation.  This is the one importer that imports a
                  package besides PyYAML (`onnx`), because the registry IS the
                  source the coverage test checks against.
  onnx-changelog  onnx/onnx docs/Changelog.md and Changelog-ml.md at tag v1.17.0:
                  the (op, since) pairs of newer opsets (ai.onnx 18-22, ai.onnx.ml
                  4-5) that onnx 1.12 does not know.

Facts:
  versions: {"domain|op|since": {"domain", "op", "since", "deprecated",
                                  "defaults": {attr: value}, "function": bool,
                                  "inputs": [formal input names],
                                  "origin"}}
            (function: ONNX defines a function body for this version, so the
             node can be expanded into primitive ops)
  opset_max: {"ai.onnx": 22, ...}
"""
import re

from _common import importer_main, open_source

DOMAIN_NAMES = {"": "ai.onnx"}
ONNX_OPSET_MAX = 22   # ai.onnx opset of onnx v1.17.0 (the pinned changelog)


def _attr_default(attr):
    """Python value of an onnx AttributeProto default, or None."""
    from onnx import helper
    dv = attr.default_value
    if dv is None or not dv.name:
        return None
    try:
        val = helper.get_attribute_value(dv)
    except Exception:
        return None
    if isinstance(val, bytes):
        val = val.decode("utf-8", errors="replace")
    if isinstance(val, (list, tuple)):
        val = [v.decode() if isinstance(v, bytes) else v for v in val]
        if not all(isinstance(v, (int, float, str)) for v in val):
            return None
        return list(val)
    if isinstance(val, float):
        # float32 defaults: keep a short decimal (1e-05, not 9.99999974738e-06)
        return float("%.7g" % val)
    if isinstance(val, (int, str)):
        return val
    return None


def load_registry():
    import onnx
    from onnx import defs
    out = {}
    for s in defs.get_all_schemas_with_history():
        domain = DOMAIN_NAMES.get(s.domain, s.domain)
        defaults = {}
        for name, attr in s.attributes.items():
            v = _attr_default(attr)
            if v is not None:
                defaults[name] = v
        out["%s|%s|%d" % (domain, s.name, s.since_version)] = {
            "domain": domain, "op": s.name, "since": s.since_version,
            "deprecated": bool(s.deprecated), "defaults": defaults,
            "inputs": [i.name for i in s.inputs],
            "input_types": [i.typeStr for i in s.inputs],
            "function": bool(getattr(s, "has_function", False)
                             or getattr(s, "has_context_dependent_function", False)),
            "origin": "onnx-registry",
        }
    return out, onnx.__version__, defs.onnx_opset_version()


ANCHOR = re.compile(r'^### <a name="([^"]+)-(\d+)"></a>', re.M)


def load_changelog(src):
    out = {}
    for path, default_domain in (("docs/Changelog.md", "ai.onnx"), ("docs/Changelog-ml.md", "ai.onnx.ml")):
        text = src.read(path)
        for name, ver in ANCHOR.findall(text):
            domain = default_domain
            for prefix in ("ai.onnx.preview.training", "ai.onnx.ml"):
                if name.startswith(prefix + "."):
                    domain, name = prefix, name[len(prefix) + 1:]
            out["%s|%s|%d" % (domain, name, int(ver))] = {
                "domain": domain, "op": name, "since": int(ver)}
    return out


def load(locations=None):
    """ONNX (domain, op, since_version) rows with attribute defaults."""
    open_source("onnx-registry", locations)      # checks the package is there
    reg, onnx_version, reg_opset = load_registry()
    log = load_changelog(open_source("onnx-changelog", locations))
    versions = dict(reg)
    added = 0
    for key, v in log.items():
        if key not in versions:
            versions[key] = dict(v, deprecated=False, defaults={}, function=False,
                                 inputs=[], origin="onnx-changelog")
            added += 1
    opset_max = {"ai.onnx": ONNX_OPSET_MAX}
    ml = [v["since"] for v in versions.values() if v["domain"] == "ai.onnx.ml"]
    opset_max["ai.onnx.ml"] = max(ml)
    return {"versions": versions, "opset_max": opset_max,
            "registry_onnx_version": onnx_version, "registry_opset": reg_opset,
            "changelog_added": added}


if __name__ == "__main__":
    importer_main(load)
