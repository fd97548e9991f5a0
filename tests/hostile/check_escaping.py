#!/usr/bin/python3
"""Every output of `opmap` on a model whose strings are attacks (ctest: hostile.escaping).

Usage: check_escaping.py OPMAP

tests/hostile/cases/escaping.onnx (make_hostile.escaping_model) names its nodes, operators,
domains, subgraph attributes, inputs, symbolic dimensions, external files and producer
with markup (<script>, <img onerror>, quotes breaking out of attributes), spreadsheet
formulas (= + - @), ANSI/OSC escape sequences, a C1 CSI, newlines and Markdown.

The formats checked are the ones `opmap scan --help` lists, so new formats are picked up
(and a format without a check here fails, until it gets one):

  every     valid UTF-8 (a name holds bytes that are not: they must not pass through)
  text      no control bytes but newline, no C1 controls
  json      parses; sarif, atc-precheck: parse
  registry  parses, and each model's and operator's row is one line that parses alone (a
            newline from a model must not split a row)
  html      parsed with html.parser: only the writer's tags, no on* attribute, no
            javascript: URL, one <script> (the writer's: the CSP allows inline script),
            none of the attack strings verbatim
  markdown  no control bytes; table rows whole (a newline from a model would end a row and
            start free Markdown); outside code spans no raw tag or javascript: link
  csv       parses (RFC 4180); no cell starts with = + - @ (or tab/CR): formulas are
            neutralised
  junit     well-formed XML; only JUnit elements

Also: standard error (the gate prints findings there), `opmap diff` text, and the waiver
file `opmap baseline` writes (a name must not inject YAML: the file loads back and covers
every finding, the one whose operator name is not UTF-8 included).
"""
import csv
import html.parser
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "cases", "escaping.onnx")
sys.path.insert(0, HERE)
from make_hostile import EVIL  # noqa: E402

HTML_TAGS = {
    "html", "head", "body", "meta", "title", "style", "script", "section", "div", "span", "p",
    "b", "i", "em", "strong", "small", "code", "pre", "ul", "ol", "li", "h1", "h2", "h3", "h4",
    "table", "thead", "tbody", "tfoot", "tr", "th", "td", "details", "summary", "figure",
    "figcaption", "svg", "rect", "text", "g", "line", "path", "circle", "option", "select",
    "input", "label", "button", "footer", "header", "main", "nav", "br", "hr", "a", "sub",
    "sup", "abbr", "caption", "col", "colgroup", "dl", "dt", "dd", "mark", "output",
}
JUNIT_TAGS = {"testsuites", "testsuite", "testcase", "failure", "skipped", "error",
              "properties", "property", "system-out", "system-err"}
ATTACKS = [s for s in EVIL if re.search(r"[<>\"']", s)]

problems = []


def fail(where, msg):
    problems.append(f"{where}: {msg}")


def formats_listed(opmap):
    help_text = subprocess.run([opmap, "scan", "--help"], capture_output=True,
                               text=True).stdout
    # the list may go on over indented lines; a parenthesis explains, it names nothing
    m = re.search(r"--format\s+\S+\s+(.*(?:\n {20,}\S.*)*)", help_text)
    if not m:
        return ["text", "json"]
    names = []
    for word in re.sub(r"\([^)]*\)", "", m.group(1)).split(","):
        word = word.strip()
        if re.fullmatch(r"[a-z][a-z-]*", word):
            names.append(word)
    return names


def check_terminal(where, data):
    if isinstance(data, str):
        data = data.encode()
    for i, b in enumerate(data):
        if (b < 0x20 and b != 0x0A) or b == 0x7F:
            fail(where, f"control byte 0x{b:02x} at {i}: {data[max(0, i - 30):i + 30]!r}")
            return
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(where, f"not UTF-8: {e}")
        return
    c1 = [c for c in text if 0x80 <= ord(c) <= 0x9F]
    if c1:
        fail(where, f"C1 control characters: {c1[:5]!r}")


class Tags(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []
        self.attrs = []
        self.scripts = 0

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.extend(attrs)
        if tag == "script":
            self.scripts += 1

    handle_startendtag = handle_starttag


def check_utf8(where, data):
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail(where, f"not UTF-8: {e}")


def check_html(where, data):
    check_utf8(where, data)
    text = data.decode("utf-8", "replace")
    p = Tags()
    p.feed(text)
    for t in set(p.tags) - HTML_TAGS:
        fail(where, f"a tag the writer never uses: <{t}>")
    for name, value in p.attrs:
        if name.lower().startswith("on"):
            fail(where, f"an event handler attribute: {name}={value!r}")
        if value and value.strip().lower().startswith("javascript:"):
            fail(where, f"a javascript: URL in {name}")
    if p.scripts > 1:
        fail(where, f"{p.scripts} script elements (the writer has one)")
    for a in ATTACKS:
        if a in text:
            fail(where, f"an attack string verbatim: {a!r}")
    check_no_controls(where, data)


def check_no_controls(where, data):
    for i, b in enumerate(data):
        if (b < 0x20 and b not in (0x0A, 0x09, 0x0D)) or b == 0x7F:
            fail(where, f"control byte 0x{b:02x} at {i}: {data[max(0, i - 30):i + 30]!r}")
            return


def check_markdown(where, data):
    check_utf8(where, data)
    check_no_controls(where, data.replace(b"\r", b"\x00") if b"\r" in data else data)
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    in_table = False
    for ln in lines:
        if in_table and not ln.strip():
            in_table = False
        elif in_table and not (ln.startswith("|") and ln.rstrip().endswith("|")):
            fail(where, f"a table row broken by a model string: {ln[:80]!r}")
        if ln.startswith("|---") or ln.startswith("| ---"):
            in_table = True
    outside = re.sub(r"`[^`\n]*`", "``", text)
    if re.search(r"<(script|img|svg|iframe)\b", outside, re.I):
        fail(where, "a raw tag outside code spans")
    if re.search(r"\]\(\s*javascript:", outside, re.I):
        fail(where, "a javascript: link outside code spans")


def check_csv(where, data):
    check_utf8(where, data)
    text = data.decode("utf-8", "replace")
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as e:
        fail(where, f"does not parse: {e}")
        return
    for r, row in enumerate(rows):
        for cell in row:
            if cell[:1] in ("=", "+", "@", "\t", "\r") or (
                    cell[:1] == "-" and not re.match(r"-[0-9.]", cell)):
                fail(where, f"row {r}: cell starts a formula: {cell[:60]!r}")


def check_junit(where, data):
    try:
        root = ET.fromstring(data)
    except ET.ParseError as e:
        fail(where, f"not well-formed XML: {e}")
        return
    for el in root.iter():
        if el.tag not in JUNIT_TAGS:
            fail(where, f"an element JUnit does not have: <{el.tag}>")


def check_json(where, data):
    check_utf8(where, data)
    try:
        json.loads(data)
    except ValueError as e:
        fail(where, f"not JSON: {e}")


def check_registry(where, data):
    check_json(where, data)
    lines = data.decode("utf-8", "replace").split("\n")
    for member, width in (('"models":[', 12), ('"operators":[', 9)):
        if member not in lines:
            fail(where, f"no line {member}")
            continue
        for line in lines[lines.index(member) + 1:]:
            if line == "],":
                break
            try:
                row = json.loads(line.rstrip(","))
            except ValueError as e:
                fail(where, f"a row of {member} is not one line of JSON: {e}")
                break
            if not isinstance(row, list) or len(row) != width:
                fail(where, f"a row of {member} is not an array of {width}")


CHECKS = {"text": lambda w, d: check_terminal(w, d), "json": check_json, "sarif": check_json,
          "html": check_html, "markdown": check_markdown, "csv": check_csv,
          "junit": check_junit, "atc-precheck": check_json, "registry": check_registry}


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    opmap = os.path.abspath(sys.argv[1])
    formats = formats_listed(opmap)
    with tempfile.TemporaryDirectory(prefix="opmap-escaping-") as tmp:
        # every listed format, one model and a portfolio of two (the same model twice)
        for models in ([MODEL], [MODEL, MODEL]):
            for fmt in formats:
                out = os.path.join(tmp, "report." + fmt)
                proc = subprocess.run([opmap, "scan", "-q", "--soc", "all", "--fail-on", "all",
                                       "--format", fmt, "-o", out] + models,
                                      capture_output=True)
                where = f"{fmt} ({len(models)} model{'s' if len(models) > 1 else ''})"
                check_terminal(where + " stderr", proc.stderr)
                if proc.returncode not in (0, 1):
                    fail(where, f"exit {proc.returncode}: {proc.stderr[:300]!r}")
                    continue
                with open(out, "rb") as f:
                    data = f.read()
                check = CHECKS.get(fmt)
                if not check:
                    fail(where, "no escaping check for this format: add one to check_escaping.py")
                else:
                    check(where, data)
        # text on a terminal-bound stdout too (no -o)
        proc = subprocess.run([opmap, "scan", "--fail-on", "all", MODEL], capture_output=True)
        check_terminal("text stdout", proc.stdout)
        check_terminal("text stderr", proc.stderr)
        # opmap diff: old report without the model, new with it
        old = os.path.join(tmp, "old.json")
        new = os.path.join(tmp, "new.json")
        relu = os.path.join(os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data"),
                            "node", "test_relu", "model.onnx")
        subprocess.run([opmap, "scan", "-q", "--format", "json", "-o", old, relu],
                       capture_output=True)
        subprocess.run([opmap, "scan", "-q", "--format", "json", "-o", new, MODEL],
                       capture_output=True)
        if os.path.exists(old) and os.path.exists(new):
            proc = subprocess.run([opmap, "diff", old, new], capture_output=True)
            if proc.returncode >= 2 and proc.returncode != 1:
                fail("diff", f"exit {proc.returncode}: {proc.stderr[:300]!r}")
            check_terminal("diff stdout", proc.stdout)
            check_terminal("diff stderr", proc.stderr)
        # opmap baseline: the waiver file must load back and cover every finding
        base = os.path.join(tmp, "waivers.yaml")
        proc = subprocess.run([opmap, "baseline", "--fail-on", "all", "-o", base, MODEL],
                              capture_output=True)
        if proc.returncode == 0 and os.path.exists(base):
            check_no_controls("baseline file", open(base, "rb").read())
            proc = subprocess.run([opmap, "scan", "-q", "--fail-on", "all", "--waivers", base,
                                   "--format", "json", MODEL], capture_output=True)
            # an operator name that is not UTF-8 has no YAML spelling: its waiver names the
            # node instead (with '?' for the bytes), so every finding is covered
            if proc.returncode != 0:
                fail("baseline", f"scanning with the baseline it wrote: exit {proc.returncode}"
                                 f": {proc.stderr[:400]!r}")
        elif proc.returncode != 2:  # 2: no baseline command in this build
            fail("baseline", f"exit {proc.returncode}: {proc.stderr[:300]!r}")
    for p in problems:
        print("FAIL " + p)
    print(f"check_escaping: formats {', '.join(formats)}; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
