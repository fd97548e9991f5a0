#!/usr/bin/python3
"""ABI hygiene of libopmap: what the shared library exports is exactly the reviewed list.

Usage: check_exports.py LIBOPMAP_SO LIBOPMAP_A EXPORTS_TXT INCLUDE_DIR ABI [API_MD]

- `nm -D --defined-only` of libopmap.so lists exactly the names in exports.txt: nothing
  internal leaks (hidden visibility + the version script), nothing public disappears;
- every exported symbol is a function named opmap_* in the version node OPMAP_<ABI>;
- the functions the public headers declare (OPMAP_API) are exactly that list too;
- the SONAME is libopmap.so.<ABI> (ABI = OPMAP_ABI_VERSION), and libopmap.a defines every
  exported function and no other global symbol: internal functions and tables and the
  generated onnx__* protobuf-c code are local there too, so a program linking libopmap.a
  beside its own protobuf-c code or names like ours meets no clash;
- docs/api.md (API_MD) names every exported function.

Adding a function to the API: declare it with OPMAP_API, then add its name to
tests/api/exports.txt (sorted) and mention it in docs/api.md in the same change.
"""
import os
import re
import subprocess
import sys


def nm(*args):
    return subprocess.run(["nm"] + list(args), check=True, capture_output=True,
                          text=True).stdout.splitlines()


def main():
    so, static, exports_txt, include_dir, major = sys.argv[1:6]
    problems = []
    with open(exports_txt) as f:
        expected = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    if expected != sorted(set(expected)):
        problems.append("exports.txt is not sorted and unique")
    expected = set(expected)

    exported, versions = {}, set()
    for line in nm("-D", "--defined-only", so):
        parts = line.split()
        if len(parts) < 3:
            continue
        kind, name = parts[1], parts[2]
        if kind == "A":  # the version node itself (OPMAP_<ABI>)
            versions.add(name)
            continue
        base, _, ver = name.partition("@")
        exported[base] = (kind, ver.lstrip("@"))
    for name, (kind, ver) in sorted(exported.items()):
        if not name.startswith("opmap_"):
            problems.append("exported but not opmap_*: %s" % name)
        if kind not in "T":
            problems.append("exported symbol is not a function (nm type %s): %s" % (kind, name))
        if ver and ver != "OPMAP_%s" % major:
            problems.append("%s is in version node %s, expected OPMAP_%s" % (name, ver, major))
    for name in sorted(set(exported) - expected):
        problems.append("exported but not in exports.txt: %s" % name)
    for name in sorted(expected - set(exported)):
        problems.append("in exports.txt but not exported: %s" % name)

    declared = set()
    for h in sorted(os.listdir(os.path.join(include_dir, "opmap"))):
        if not h.endswith(".h"):
            continue
        text = open(os.path.join(include_dir, "opmap", h)).read()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        for decl in re.findall(r"OPMAP_API\b(.*?);", text, flags=re.S):
            m = re.search(r"\b(opmap_\w+)\s*\(", decl)
            if m:
                declared.add(m.group(1))
            else:
                problems.append("%s: cannot read the declaration: OPMAP_API%s;" % (h, decl))
    for name in sorted(declared - expected):
        problems.append("declared (OPMAP_API) but not in exports.txt: %s" % name)
    for name in sorted(expected - declared):
        problems.append("in exports.txt but declared in no public header: %s" % name)

    dyn = subprocess.run(["readelf", "-d", so], check=True, capture_output=True,
                         text=True).stdout
    m = re.search(r"\(SONAME\)\s+Library soname: \[([^\]]+)\]", dyn)
    want = "libopmap.so.%s" % major
    if not m or m.group(1) != want:
        problems.append("SONAME is %s, expected %s" % (m.group(1) if m else "missing", want))

    defined, others = set(), set()
    for line in nm("-g", "--defined-only", static):
        parts = line.split()
        if len(parts) == 3 and parts[1] == "T" and parts[2].startswith("opmap_"):
            defined.add(parts[2])
        elif len(parts) == 3:
            others.add("%s (nm type %s)" % (parts[2], parts[1]))
    for name in sorted(expected - defined):
        problems.append("libopmap.a does not define %s" % name)
    for name in sorted(defined - expected):
        problems.append("libopmap.a defines %s, which is not in exports.txt" % name)
    if others:
        problems.append("libopmap.a defines %d global symbols that are not opmap_* functions, "
                        "e.g. %s" % (len(others), ", ".join(sorted(others)[:5])))

    if len(sys.argv) > 6:
        with open(sys.argv[6]) as f:
            doc = set(re.findall(r"\bopmap_\w+", f.read()))
        for name in sorted(expected - doc):
            problems.append("%s is not mentioned in %s" % (name, sys.argv[6]))

    if problems:
        print("\n".join("FAIL: " + p for p in problems))
        return 1
    print("ok: %d functions exported, all opmap_* in OPMAP_%s, matching exports.txt and the "
          "headers; SONAME %s; libopmap.a defines those %d and nothing else global"
          % (len(exported), major, want, len(defined)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
