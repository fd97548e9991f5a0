#!/usr/bin/python3
"""The public headers read as the reference and give results one ABI shape (docs/api.md).

Usage: check_api_shape.py INCLUDE_DIR            check include/opmap/*.h
       check_api_shape.py --selftest INCLUDE_DIR  prove each rule fails on an injected fault

Fails when, in include/opmap/*.h:
- an OPMAP_API function, a typedef, an enum (and each of its constants) or a macro has no
  doc comment: a `/** ... */` right before it (for a macro, before the #if chain it is
  defined in), or a `/**< ... */` on its line. Include guards are exempt;
- a struct the library fills (a non-const `opmap_x *` parameter) or returns (by value or
  as a pointer) is neither opaque nor led by `size_t size`, unless it is one of EXEMPT;
- an item accessor (first parameter `const opmap_<obj> *`, a `size_t` index) is not
  `int f(const opmap_<obj> *o, [keys,] size_t i, T *out)` with T a size-led info struct,
  `const char *` or an opaque handle (`const opmap_x *`), or a count is not
  `size_t f_count(...)`;
- fewer than MIN_COMMENT_SHARE of the non-blank header lines carry a comment.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# Structs the library writes without a leading size, and why that is safe.
EXEMPT = {
    "opmap_error": "fixed size forever: grows into its reserved[64]",
    "opmap_effort": "three numbers, returned by value; never grows",
    "opmap_weights": "an options struct led by `version` (OPMAP_WEIGHTS_VERSION)",
    "opmap_limits": "part of opmap_ctx_options, laid out by OPMAP_CTX_OPTIONS_VERSION",
    "opmap_file_problem": "the caller's input to reports (opmap_report_options.problems), "
                          "laid out by OPMAP_REPORT_OPTIONS_VERSION; opmap_report_set_problems "
                          "hands back an array of them in that layout",
}
MIN_COMMENT_SHARE = 0.65  # 62% before issue 17, 68% after: no sliding back


def strip_comments(text):
    """The text with every comment blanked (newlines kept, so line numbers hold)."""
    return re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


class Header:
    def __init__(self, path):
        self.name = os.path.basename(path)
        self.text = open(path).read()
        self.code = strip_comments(self.text)
        self.lines = self.text.split("\n")
        self.code_lines = self.code.split("\n")

    def line_of(self, pos):
        return self.code.count("\n", 0, pos)

    def documented_before(self, line):
        """A /** comment ends right above `line` (0-based), blank lines not allowed."""
        k = line - 1
        while k >= 0 and not self.lines[k].strip():
            return False
        if k < 0 or not self.lines[k].rstrip().endswith("*/"):
            return False
        while k >= 0 and "/*" not in self.lines[k]:
            k -= 1
        return k >= 0 and "/**" in self.lines[k] and "/**<" not in self.lines[k]

    def trailing_doc(self, first, last):
        return any("/**<" in self.lines[k] for k in range(first, last + 1))

    def documented(self, first, last):
        return self.documented_before(first) or self.trailing_doc(first, last)


def split_params(params):
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    if cur.strip() and cur.strip() != "void":
        out.append(cur.strip())
    return out


def check(include_dir):
    problems = []
    headers = [Header(os.path.join(include_dir, "opmap", h))
               for h in sorted(os.listdir(os.path.join(include_dir, "opmap")))
               if h.endswith(".h")]
    structs, opaque, functions = {}, set(), []
    for h in headers:
        code = h.code
        where = lambda pos: "%s:%d" % (h.name, h.line_of(pos) + 1)
        # macros (not include guards), documented before them or their #if chain
        for k, line in enumerate(h.code_lines):
            m = re.match(r"\s*#\s*define\s+(\w+)", line)
            if not m:
                continue
            name = m.group(1)
            if name.endswith("_H") and k and re.match(r"\s*#\s*ifndef\s+%s\b" % name,
                                                       h.code_lines[k - 1]):
                continue
            first = k
            while first > 0 and h.code_lines[first - 1].lstrip().startswith("#"):
                first -= 1
            if not (h.documented(k, k) or h.documented_before(first)):
                problems.append("%s:%d: macro %s has no doc comment" % (h.name, k + 1, name))
        # typedefs and enums
        for m in re.finditer(r"\btypedef\b[^;{]*(\{)?", code):
            start = m.start()
            if m.group(1):
                depth, j = 0, m.end(1) - 1
                while True:
                    depth += code[j] == "{"
                    depth -= code[j] == "}"
                    j += 1
                    if depth == 0:
                        break
                end = code.index(";", j)
                body = code[m.end(1):j - 1]
            else:
                end = code.index(";", start)
                body = None
            decl = code[start:end]
            name = re.findall(r"(\w+)\s*(?:\)\s*\(.*\))?\s*$", re.sub(r"\{.*\}", "", decl,
                                                                       flags=re.S))
            fn = re.search(r"\(\s*\*\s*(\w+)\s*\)", decl)
            name = fn.group(1) if fn else (name[0] if name else "?")
            if not h.documented(h.line_of(start), h.line_of(start)):
                problems.append("%s: typedef %s has no doc comment" % (where(start), name))
            sm = re.match(r"typedef\s+struct\s+(\w+)", decl)
            if sm and body is None:
                opaque.add(name)
            elif sm:
                fields = [f.strip() for f in body.split(";") if f.strip()]
                structs[name] = (fields, where(start))
            if re.match(r"typedef\s+enum", decl) and body is not None:
                problems += enumerators(h, m.end(1), body, name)
        for m in re.finditer(r"(?<!typedef )\benum\s*(\w*)\s*\{", code):
            if re.search(r"typedef\s*$", code[:m.start()]):
                continue
            if not h.documented(h.line_of(m.start()), h.line_of(m.start())):
                problems.append("%s: enum %s has no doc comment" % (where(m.start()),
                                                                   m.group(1) or "{...}"))
            body = code[m.end():code.index("}", m.end())]
            problems += enumerators(h, m.end(), body, m.group(1) or "{...}")
        # functions
        for m in re.finditer(r"\bOPMAP_API\b(.*?);", code, flags=re.S):
            decl = " ".join(m.group(1).split())
            f = re.match(r"(.*?)\b(opmap_\w+)\s*\((.*)\)\s*$", decl)
            first, last = h.line_of(m.start()), h.line_of(m.end())
            if not f:
                problems.append("%s: cannot read OPMAP_API%s;" % (where(m.start()), m.group(1)))
                continue
            if not h.documented(first, last):
                problems.append("%s: %s has no doc comment" % (where(m.start()), f.group(2)))
            functions.append((f.group(1).strip(), f.group(2), split_params(f.group(3)),
                              where(m.start())))

    def sized(t):
        return t in structs and re.fullmatch(r"size_t\s+size", structs[t][0][0] or "")

    def struct_of(t):
        t = t.replace("const", "").replace("*", "").strip()
        return t if t in structs else None

    filled = {}
    for ret, name, params, at in functions:
        if struct_of(ret):
            filled.setdefault(struct_of(ret), "%s returns it (%s)" % (name, at))
        for p in params:
            pm = re.match(r"(const\s+)?(opmap_\w+)\s*\*\s*\w+$", p)
            if pm and not pm.group(1) and pm.group(2) in structs:
                filled.setdefault(pm.group(2), "%s fills it (%s)" % (name, at))
    for t, why in sorted(filled.items()):
        if not sized(t) and t not in EXEMPT:
            problems.append("%s: struct %s is filled by the library (%s) but its first field "
                            "is not `size_t size`" % (structs[t][1], t, why))

    for ret, name, params, at in functions:
        if name.endswith("_count") and ret != "size_t":
            problems.append("%s: %s returns %s, counts return size_t" % (at, name, ret))
        if not params or not re.match(r"const\s+opmap_\w+\s*\*\s*\w+$", params[0]):
            continue
        idx = [k for k, p in enumerate(params)
               if re.match(r"size_t\s+(\w+)$", p) and
               not re.match(r"size_t\s+(size|count|\w+_size)$", p)]
        if not idx:
            continue
        k = idx[0]
        bad = []
        if ret != "int":
            bad.append("returns %s, not int" % ret)
        if params[k] != "size_t i":
            bad.append("its index is `%s`, not `size_t i`" % params[k])
        if len(params) != k + 2:
            bad.append("the index is not followed by exactly one out parameter")
        else:
            out = params[-1]
            om = re.match(r"(const\s+)?(\w+)\s*(\*+)\s*out$", out)
            ok = om and ((om.group(3) == "**" and om.group(1) and
                          (om.group(2) == "char" or om.group(2) in opaque)) or
                         (om.group(3) == "*" and not om.group(1) and sized(om.group(2))))
            if not ok:
                bad.append("its out parameter `%s` is not `T *out` (T led by size_t size), "
                           "`const char **out` or `const <opaque> **out`" % out)
        if bad:
            problems.append("%s: item accessor %s: %s" % (at, name, "; ".join(bad)))

    total = commented = 0
    for h in headers:
        for raw, code in zip(h.lines, h.code_lines):
            if raw.strip():
                total += 1
                commented += raw.strip() != code.strip()
    share = commented / total if total else 0.0
    if share < MIN_COMMENT_SHARE:
        problems.append("only %.0f%% of the header lines carry a comment (at least %.0f%%)"
                        % (100 * share, 100 * MIN_COMMENT_SHARE))
    return problems, len(functions), len(filled), share


def enumerators(h, pos, body, enum):
    out = []
    for m in re.finditer(r"\b(OPMAP_\w+)\s*(=[^,]*)?(,|$)", body):
        line = h.line_of(pos + m.start())
        if not h.documented(line, line):
            out.append("%s:%d: %s (enum %s) has no doc comment" % (h.name, line + 1,
                                                                   m.group(1), enum))
    return out


INJECTIONS = [
    ("an undocumented declaration", "scan.h",
     "OPMAP_API int opmap_injected_undocumented(const opmap_result *res);\n",
     "opmap_injected_undocumented has no doc comment"),
    ("a filled struct without size", "scan.h",
     "/** injected */\ntypedef struct opmap_injected_info {\n    int x; /**< x */\n"
     "} opmap_injected_info;\n/** injected */\nOPMAP_API int opmap_injected_fill("
     "const opmap_result *res, opmap_injected_info *out);\n",
     "struct opmap_injected_info is filled by the library"),
    ("an accessor of the old shape", "scan.h",
     "/** injected */\nOPMAP_API const char *opmap_result_injected(const opmap_result *res, "
     "size_t i);\n",
     "item accessor opmap_result_injected: returns const char *, not int"),
    ("an accessor with level-or-minus-one out-pointers", "scan.h",
     "/** injected */\nOPMAP_API int opmap_result_injected2(const opmap_result *res, "
     "size_t i, const char **kind, const char **where);\n",
     "item accessor opmap_result_injected2: the index is not followed by exactly one out"),
    ("an undocumented macro", "version.h", "#define OPMAP_INJECTED_MACRO 1\n",
     "macro OPMAP_INJECTED_MACRO has no doc comment"),
]


def selftest(include_dir):
    problems, _, _, _ = check(include_dir)
    if problems:
        print("FAIL: the headers themselves do not pass:\n  " + "\n  ".join(problems))
        return 1
    bad = 0
    for what, header, text, expect in INJECTIONS:
        with tempfile.TemporaryDirectory() as d:
            shutil.copytree(os.path.join(include_dir, "opmap"), os.path.join(d, "opmap"))
            path = os.path.join(d, "opmap", header)
            src = open(path).read()
            at = src.rindex("OPMAP_END_DECL") if "OPMAP_END_DECL" in src else src.rindex("#endif")
            open(path, "w").write(src[:at] + text + "\n" + src[at:])
            got, _, _, _ = check(d)
            if any(expect in p for p in got):
                print("ok: %s is caught: %s" % (what, [p for p in got if expect in p][0]))
            else:
                print("FAIL: %s was not caught (want '%s', got %s)" % (what, expect, got))
                bad = 1
    return bad


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--selftest":
        return selftest(sys.argv[2])
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    problems, n_fn, n_filled, share = check(sys.argv[1])
    if problems:
        print("\n".join("FAIL: " + p for p in problems))
        return 1
    print("ok: %d OPMAP_API functions documented and of one shape; %d structs the library "
          "fills, each size-led or exempt; %.0f%% of header lines carry a comment"
          % (n_fn, n_filled, 100 * share))
    return 0


if __name__ == "__main__":
    sys.exit(main())
