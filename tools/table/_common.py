"""Shared helpers for the table importers (stdlib + PyYAML only).

Every importer reads its inputs through `Source`, which resolves the pinned
snapshot named in tools/table/sources.yaml:

* git sources: a bare git directory (default $OPMAP_MIRROR/Owner+Name/repo,
  $OPMAP_MIRROR defaulting to /work/.mirror), read at the pinned commit only;
* file sources: a local file whose sha256 (when given) must match.

`$OPMAP_SRC_<ID>` (id upper-cased, '-' -> '_') overrides one source's location.
"""
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_MIRROR = "/work/.mirror"


class SourceError(RuntimeError):
    pass


def load_sources_config(path=None):
    path = path or os.path.join(HERE, "sources.yaml")
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    return {s["id"]: s for s in doc["sources"]}


def _env_name(source_id):
    return "OPMAP_SRC_" + re.sub(r"[^A-Z0-9]", "_", source_id.upper())


class Source:
    """One pinned input."""

    _cache = {}

    def __init__(self, source_id, config=None, location=None):
        cfg = (config or load_sources_config())[source_id]
        self.id = source_id
        self.cfg = cfg
        self.commit = cfg.get("commit")
        self.is_git = "file" not in cfg
        loc = location or os.environ.get(_env_name(source_id))
        if self.is_git:
            if not loc:
                mirror = os.environ.get("OPMAP_MIRROR", DEFAULT_MIRROR)
                loc = os.path.join(mirror, cfg["repo"].split()[0].replace("/", "+"), "repo")
            self.location = loc
            if not os.path.isdir(loc):
                raise SourceError("%s: no git mirror at %s (fetch github:%s, or set %s)"
                                  % (source_id, loc, cfg["repo"].split()[0], _env_name(source_id)))
        else:
            path = loc or cfg["file"]
            if not os.path.isabs(path):
                path = os.path.join(ROOT, path)
            self.location = path
            if not os.path.exists(path):
                raise SourceError("%s: missing input file %s (set %s)" % (source_id, path, _env_name(source_id)))
            if cfg.get("sha256"):
                digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
                if digest != cfg["sha256"]:
                    raise SourceError("%s: %s has sha256 %s, sources.yaml pins %s"
                                      % (source_id, path, digest, cfg["sha256"]))

    # -- git access -------------------------------------------------------
    def _git(self, *args, binary=False):
        cmd = ["git", "--git-dir=" + self.location] + list(args)
        res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if res.returncode != 0:
            raise SourceError("%s: %s failed: %s" % (self.id, " ".join(cmd), res.stderr.decode(errors="replace")))
        return res.stdout if binary else res.stdout.decode("utf-8", errors="replace")

    def files(self, pattern="*"):
        """Paths (at the pinned commit) matching a glob (fnmatch, '*' crosses '/')."""
        key = (self.location, self.commit)
        if key not in Source._cache:
            out = self._git("ls-tree", "-r", "--name-only", "-z", self.commit)
            Source._cache[key] = sorted(p for p in out.split("\0") if p)
        return [p for p in Source._cache[key] if fnmatch.fnmatchcase(p, pattern)]

    def read(self, path):
        return self._git("show", "%s:%s" % (self.commit, path))

    def read_many(self, paths):
        """{path: text} for many paths, through one `git cat-file --batch`."""
        paths = list(paths)
        if not paths:
            return {}
        cmd = ["git", "--git-dir=" + self.location, "cat-file", "--batch"]
        req = "".join("%s:%s\n" % (self.commit, p) for p in paths).encode()
        res = subprocess.run(cmd, input=req, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if res.returncode != 0:
            raise SourceError("%s: cat-file failed: %s" % (self.id, res.stderr.decode(errors="replace")))
        data = res.stdout
        out = {}
        pos = 0
        for p in paths:
            nl = data.index(b"\n", pos)
            header = data[pos:nl].decode()
            pos = nl + 1
            if header.endswith(" missing"):
                raise SourceError("%s: %s missing at %s" % (self.id, p, self.commit))
            size = int(header.split()[-1])
            out[p] = data[pos:pos + size].decode("utf-8", errors="replace")
            pos += size + 1
        return out

    # -- plain files -------------------------------------------------------
    def read_file(self):
        with open(self.location, encoding="utf-8") as f:
            return f.read()


def split_top(text, opening="([{<", closing=")]}>"):
    """Split at the commas outside any bracket pair (C++ parameter lists, ATen schemas);
    empty trailing text is dropped, the parts are not stripped."""
    parts, depth, cur = [], 0, []
    for c in text:
        if c in opening:
            depth += 1
        elif c in closing:
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        parts.append("".join(cur))
    return parts


def strip_c_comments(text):
    """Remove // and /* */ comments, keeping string literals intact (CRLF -> LF)."""
    text = text.replace("\r\n", "\n")
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            out.append(" ")
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def dump_json(obj, stream=None):
    """Deterministic JSON (sorted keys, tuples/sets as sorted lists)."""
    def norm(o):
        if isinstance(o, dict):
            return {str(k) if not isinstance(k, tuple) else "|".join(map(str, k)): norm(v)
                    for k, v in o.items()}
        if isinstance(o, set):
            return sorted(norm(x) for x in o)
        if isinstance(o, (list, tuple)):
            return [norm(x) for x in o]
        return o
    json.dump(norm(obj), stream or sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
    (stream or sys.stdout).write("\n")


def importer_main(load, argv=None):
    """Standard CLI of an importer: print its normalised facts as JSON.

    usage: python3 import_X.py [--location SOURCE_ID=PATH ...] [--summary]
    """
    import argparse
    ap = argparse.ArgumentParser(description=load.__doc__)
    ap.add_argument("--location", action="append", default=[],
                    help="SOURCE_ID=PATH: read that source from PATH (git dir or file)")
    ap.add_argument("--summary", action="store_true", help="print counts only")
    args = ap.parse_args(argv)
    locs = dict(x.split("=", 1) for x in args.location)
    facts = load(locations=locs)
    if args.summary:
        dump_json({k: (len(v) if hasattr(v, "__len__") and not isinstance(v, str) else v)
                   for k, v in facts.items()})
    else:
        dump_json(facts)


def open_source(source_id, locations=None, config=None):
    return Source(source_id, config=config, location=(locations or {}).get(source_id))


# dtype names of the table schema
TABLE_DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64",
                "uint8", "uint16", "uint32", "uint64", "bool", "string", "complex64",
                "complex128", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                "float8_e5m2fnuz", "uint4", "int4", "float4_e2m1"]

GE_DTYPES = {
    "DT_FLOAT": "float32", "DT_FLOAT32": "float32", "DT_DOUBLE": "float64", "DT_FLOAT16": "float16",
    "DT_BF16": "bfloat16", "DT_BFLOAT16": "bfloat16", "DT_INT8": "int8", "DT_INT16": "int16",
    "DT_INT32": "int32", "DT_INT64": "int64", "DT_UINT8": "uint8", "DT_UINT16": "uint16",
    "DT_UINT32": "uint32", "DT_UINT64": "uint64", "DT_BOOL": "bool", "DT_STRING": "string",
    "DT_COMPLEX64": "complex64", "DT_COMPLEX128": "complex128",
    "DT_FLOAT8_E4M3FN": "float8_e4m3fn", "DT_FLOAT8_E5M2": "float8_e5m2",
    "DT_INT4": "int4", "DT_UINT4": "uint4", "DT_FLOAT4_E2M1": "float4_e2m1",
}

# free-text dtype tokens (docs) -> table dtype
TEXT_DTYPES = {
    "fp32": "float32", "float32": "float32", "float": "float32",
    "fp16": "float16", "float16": "float16", "half": "float16",
    "bf16": "bfloat16", "bfloat16": "bfloat16",
    "fp64": "float64", "float64": "float64", "double": "float64",
    "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
    "bool": "bool", "complex64": "complex64", "complex128": "complex128",
    "string": "string",
    "hifloat8": None, "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
    "fp8": None, "int4": "int4", "uint1": None,
}


def dtype_order(dts):
    return sorted(set(dts), key=TABLE_DTYPES.index)


def text_dtypes(text):
    """dtype names mentioned in a free-text note (Chinese or English docs)."""
    found = []
    for tok in re.findall(r"[A-Za-z][A-Za-z0-9_]*", text):
        d = TEXT_DTYPES.get(tok.lower())
        if d:
            found.append(d)
    return dtype_order(found)


# product names in hicann docs / Ascend/pytorch docs -> SoC id of the table.
# Only the product-family names are mapped; single products that merely carry
# "A2" in their name (Atlas 800I A2, A200I A2 Box, ...) are not guessed.
def product_soc(text):
    t = re.sub(r"<[^>]+>", "", text).replace(" ", "").replace("\u3000", "")
    if re.search(r"Ascend950(PR|DT)?", t):
        return "ascend950"
    if t.startswith("AtlasA3"):
        return "ascend910_93"
    if t.startswith("Atlas200I/500A2"):
        return "ascend310b"
    if t.startswith("AtlasA2"):
        return "ascend910b"
    if t.startswith("Atlas推理系列"):
        return "ascend310p"
    if t.startswith("Atlas训练系列"):
        return "ascend910"
    return None


def version_key(v):
    """'v2.10' -> (2, 10)."""
    m = re.match(r"v?(\d+)\.(\d+)", v)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)
