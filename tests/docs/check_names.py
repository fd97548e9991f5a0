#!/usr/bin/python3
"""Name lists from one place (issue 30): what the library's tables say, every copy says.

- the model formats: the library's registry (opmap_format_info_get, read through ctypes)
  is exactly the JSON Schema's `format` enum, the formats docs/report-json.md names, and the
  formats `opmap scan --help` lists; every file name ending of the registry is in
  docs/cli.md's account of a directory search;
- the report formats: opmap_report_format_name's list is exactly what `opmap scan --help`
  offers for --format (and `all`), and each is in docs/cli.md's --format row;
- the advice detectors: src/table/detectors.def is exactly tools/table/build_table.py's
  DETECTORS and docs/table-format.md's table of detectors, with the same words;
- the finding kinds: opmap_fail_kind_name's list is what `opmap scan --help` lists for
  --fail-on, and each is in docs/ci.md's list of finding kinds.

Usage: check_names.py OPMAP_BINARY LIBOPMAP_SO SOURCE_DIR
"""
import ctypes
import json
import os
import re
import subprocess
import sys


class FormatInfo(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("name", ctypes.c_char_p), ("title", ctypes.c_char_p),
                ("extensions", ctypes.c_char_p), ("traits", ctypes.c_uint)]


def registry(lib):
    """[(name, title, [extensions])] in format order, from the library."""
    lib.opmap_format_info_get.argtypes = [ctypes.c_int, ctypes.POINTER(FormatInfo)]
    out, i = [], 1
    while True:
        info = FormatInfo(size=ctypes.sizeof(FormatInfo))
        if lib.opmap_format_info_get(i, ctypes.byref(info)) != 0:
            return out
        out.append((info.name.decode(), info.title.decode(), info.extensions.decode().split()))
        i += 1


def library_list(lib, fn):
    f = getattr(lib, fn)
    f.restype = ctypes.c_char_p
    f.argtypes = [ctypes.c_uint]
    out, i = [], 0
    while True:
        name = f(i)
        if not name:
            return out
        out.append(name.decode())
        i += 1


def read(root, *path):
    with open(os.path.join(root, *path), encoding="utf-8") as f:
        return f.read()


def main():
    opmap, so, root = sys.argv[1:4]
    lib = ctypes.CDLL(so)
    problems = []
    usage = subprocess.run([opmap, "scan", "--help"], capture_output=True, text=True).stdout

    # the model formats
    formats = registry(lib)
    names = [f[0] for f in formats]
    if len(names) < 5:
        problems.append("the registry lists %s" % names)
    schema = json.loads(read(root, "docs", "schema", "opmap-report-5.schema.json"))
    enum = []

    def walk(v):
        if isinstance(v, dict):
            if "format" in v and isinstance(v["format"], dict) and "enum" in v["format"]:
                enum.append(v["format"]["enum"])
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    walk(schema)
    if enum != [names]:
        problems.append("the schema's format enum %s is not the registry's %s" % (enum, names))
    row = re.search(r"^\| `format` \|(.*)$", read(root, "docs", "report-json.md"), re.M)
    doc = re.findall(r"`([a-z-]+)`", row.group(1)) if row else []
    if doc != names:
        problems.append("docs/report-json.md's format row names %s, the registry %s" % (doc, names))
    section = usage.split("formats read", 1)[-1].split("\n\n", 1)[0]
    helped = re.findall(r"^  ([a-z-]+) ", section, re.M)
    if helped != names:
        problems.append("opmap scan --help lists the formats %s, the registry %s" % (helped, names))
    cli = read(root, "docs", "cli.md")
    search = re.search(r"^- A \*\*directory\*\*.*?(?=^- )", cli, re.M | re.S)
    for name, title, exts in formats:
        for e in exts:
            if not search or "`%s`" % e not in search.group(0):
                problems.append("docs/cli.md's directory search does not name %s (%s)" % (e, name))

    # the report formats
    reports = library_list(lib, "opmap_report_format_name")
    fmt_help = " ".join(usage.split("--format F[,F...]", 1)[-1].split("\n  -", 1)[0].split())
    offered = re.findall(r"[a-z][a-z-]*", fmt_help.split("(every format", 1)[0].replace("(default)", ""))
    if [x for x in offered if x != "or"] != reports + ["all"]:
        problems.append("opmap scan --help offers the formats %s, the library has %s" %
                        (offered, reports))
    row = re.search(r"^\| `--format F\[,F\.\.\.\]` \|(.*)$", cli, re.M)
    for r in reports + ["all"]:
        if not row or "`%s`" % r not in row.group(1):
            problems.append("docs/cli.md's --format row does not name %s" % r)

    # the advice detectors
    detectors = re.findall(r'^OM_DETECTOR\(\w+, "(\w+)", \w+,\s*"(.*?)"\)', read(
        root, "src", "table", "detectors.def"), re.M | re.S)
    sys.path.insert(0, os.path.join(root, "tools", "table"))
    import build_table  # noqa: E402 (the table builder's own list)
    if build_table.DETECTORS != [d[0] for d in detectors]:
        problems.append("build_table.py's DETECTORS %s, detectors.def %s" %
                        (build_table.DETECTORS, [d[0] for d in detectors]))
    table = re.findall(r"^\| `([a-z_0-9]+)` \| (.*) \|$", read(root, "docs", "table-format.md"),
                       re.M)
    want = [(n, " ".join(m.split())) for n, m in detectors]
    got = [g for g in table if g[0] in dict(want)]
    if got != want:
        problems.append("docs/table-format.md's detectors %s, detectors.def %s" % (got, want))

    # the finding kinds
    kinds = library_list(lib, "opmap_fail_kind_name")
    listed = " ".join(usage.split("--fail-on KINDS", 1)[-1].split("\n  -", 1)[0].split())
    listed = listed.split("comma-separated:", 1)[-1].split(";", 1)[0]
    listed = [k.strip() for k in listed.split(",")]
    if listed != kinds + ["all"]:
        problems.append("opmap scan --help lists the --fail-on kinds %s, the library %s" %
                        (listed, kinds))
    ci = read(root, "docs", "ci.md").split("Finding kinds:", 1)[-1].split("\n\n", 1)[0]
    for k in kinds + ["all"]:
        if "`%s`" % k not in ci:
            problems.append("docs/ci.md's finding kinds do not name %s" % k)

    if problems:
        print("\n".join("FAIL: " + p for p in problems))
        return 1
    print("ok: %d model formats, %d report formats, %d detectors, %d finding kinds agree" %
          (len(names), len(reports), len(detectors), len(kinds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
