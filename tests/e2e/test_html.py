#!/usr/bin/python3
"""The HTML report in a real browser: headless Chromium (Debian's chromium) opens each
report the suite produces, takes a screenshot, and the DOM after scripts ran must have
one table row per distinct operator, no console errors, and model strings shown as text
(a model whose names carry <script>, <img onerror=...> and quotes runs no script).

Usage: test_html.py OPMAP_BINARY   (run by ctest)
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

import onnx
from onnx import TensorProto, helper

from report_schema import validate

OPMAP = None
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-default-apps", "--enable-logging=stderr", "--v=0"]


def model(name):
    return os.path.join(TESTDATA, "node", name, "model.onnx")


class Browser:
    def __init__(self, tmp):
        self.profile = os.path.join(tmp, "profile")

    def run(self, url, *extra):
        proc = subprocess.run([CHROMIUM] + FLAGS + ["--user-data-dir=" + self.profile] +
                              list(extra) + [url], capture_output=True, text=True, timeout=120)
        console = [l for l in proc.stderr.splitlines() if ":CONSOLE" in l or "Uncaught" in l]
        return proc, console

    def dom(self, path):
        proc, console = self.run("file://" + path, "--dump-dom")
        return proc.stdout, console

    def screenshot(self, path, png):
        proc, console = self.run("file://" + path, "--screenshot=" + png, "--window-size=1300,1400")
        return console


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA PNG, with zlib alone."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, cur = line[0], bytearray(line[1:])
        for i in range(stride):
            a = cur[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                cur[i] = (cur[i] + a) & 255
            elif kind == 2:
                cur[i] = (cur[i] + b) & 255
            elif kind == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(cur[i:i + 3]) for i in range(0, stride, bpp)])
        prev = cur
    return width, height, rows


# Appended to a copy of a page with every <details> open: measures, after layout, whether
# anything inside a details cell reaches past it (data-cut-in-cells) or, that too, the
# table past its scroll box (data-cut), and writes the counts into the DOM for --dump-dom
# (the page's CSP allows inline scripts).
MEASURE = """<script>window.addEventListener('load',function(){var bad=0,cells=
document.querySelectorAll('td.d');cells.forEach(function(td){var r=td.getBoundingClientRect();
td.querySelectorAll('*').forEach(function(e){var q=e.getBoundingClientRect();if(q.width&&
(q.right>r.right+1||q.left<r.left-1))bad++;});});document.body.setAttribute(
'data-cut-in-cells',String(bad));document.querySelectorAll('.wide').forEach(
function(w){if(w.scrollWidth>w.clientWidth+1)bad++;});document.body.setAttribute(
'data-cut',String(bad));document.body.setAttribute('data-cells',String(cells.length));});
</script>"""


# Appended to a page with per-chip columns: after layout, counts the chip cells and those
# whose text takes more than one line (a word such as "unpublished" broken inside), from
# the client rectangles of each text node (one per line it is laid out on).
MEASURE_CHIPS = """<script>window.addEventListener('load',function(){var n=0,bad=0,words=0,ex=[];
document.querySelectorAll('#ops td.chip').forEach(function(td){n++;var w=document.createTreeWalker(
td,NodeFilter.SHOW_TEXT),t,lines=0;while((t=w.nextNode())){if(!t.data.trim())continue;words++;
var g=document.createRange();g.selectNodeContents(t);var rs=g.getClientRects(),tops={};
for(var i=0;i<rs.length;i++)if(rs[i].width)tops[Math.round(rs[i].top)]=1;
lines+=Object.keys(tops).length;}if(lines!==1){bad++;if(ex.length<3)ex.push(td.textContent+
' on '+lines+' lines');}});document.body.setAttribute('data-chip-cells',String(n));
document.body.setAttribute('data-chip-words',String(words));document.body.setAttribute(
'data-chip-broken',String(bad));document.body.setAttribute('data-chip-examples',ex.join('; '));});
</script>"""


def hostile_model(path):
    evil_name = "<script>document.title='pwned'</script>"
    evil_op = "<img src=x onerror=\"document.title='pwned2'\">"
    evil_domain = "x\"'><svg onload=alert(1)>"
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name=evil_name),
        helper.make_node(evil_op, ["a"], ["b"], name="n2\"><b>bold</b>", domain=evil_domain),
        helper.make_node("Sigmoid", ["b"], ["y"], name="=cmd|' /C calc'!A0"),
    ]
    graph = helper.make_graph(
        nodes, "g<script>",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid(evil_domain, 1)],
                          producer_name="<script>alert('producer')</script>")
    onnx.save(m, path)


@unittest.skipUnless(CHROMIUM, "chromium is not installed (tools/install-deps --test installs it)")
class Html(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="opmap-html-")
        self.browser = Browser(self.tmp)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def scan(self, out, *args):
        proc = subprocess.run([OPMAP, "scan", "--format", "json,html", "-o", out] + list(args),
                              capture_output=True, text=True)
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        with open(os.path.join(out, "opmap-report.json")) as f:
            return validate(json.load(f)), os.path.join(out, "opmap-report.html")

    def check_page(self, html, expected_rows):
        with open(html) as f:
            page = f.read()
        self.assertNotRegex(page, r"(?i)<(link|img|iframe)[^>]+(src|href)=\"?https?:",
                            "the page must load nothing from the network")
        self.assertIn("Content-Security-Policy", page)
        dom, console = self.browser.dom(html)
        self.assertEqual(console, [], "console messages: %s" % console)
        body = re.search(r'<table id="ops">.*?<tbody>(.*?)</tbody>', dom, re.S)
        self.assertIsNotNone(body, "no operator table in the DOM")
        self.assertEqual(body.group(1).count("<tr "), expected_rows)
        png = html + ".png"
        self.assertEqual(self.browser.screenshot(html, png), [])
        self.assertGreater(os.path.getsize(png), 10000)  # something was drawn
        return dom

    def test_single_model_with_every_chip(self):
        rep, html = self.scan(os.path.join(self.tmp, "one"), "--soc", "all", model("test_loop11"))
        dom = self.check_page(html, len(rep["models"][0]["operators"]))
        for chip in rep["chips"]:
            self.assertIn(chip, dom)
        self.assertIn("atc --model=", dom)
        self.assertIn("--soc_version=$SOC_VERSION", dom)  # families only: the part to pick
        self.assertIn("Ascend910B3", dom)

    def test_portfolio_of_several_models(self):
        d = os.path.join(self.tmp, "models")
        os.makedirs(d)
        for name in ("test_loop11", "test_if", "test_resize_upsample_scales_cubic", "test_relu"):
            shutil.copy(model(name), os.path.join(d, name + ".onnx"))
        rep, html = self.scan(os.path.join(self.tmp, "many"), d)
        dom = self.check_page(html, len(rep["portfolio"]["operators"]))
        self.assertIn('id="portfolio"', dom)
        for m in rep["models"]:
            self.assertIn(os.path.basename(m["file"]), dom)

    def test_a_registry_page_details_the_models_with_most_to_change(self):
        # past 100 models the page lists and details the 100 with the worst verdict, then
        # the most effort, then in report order, and sums up the rest in one row
        node = os.path.join(TESTDATA, "node")
        files = sorted(os.path.join(node, n, "model.onnx") for n in os.listdir(node))[:130]
        listing = os.path.join(self.tmp, "models.txt")
        with open(listing, "w") as f:
            f.write("".join(p + "\n" for p in files))
        rep, html = self.scan(os.path.join(self.tmp, "reg"), "--files-from", listing)
        rank = {"blocked": 0, "needs-work": 1, "ready": 2}
        models = rep["models"]
        self.assertEqual(len(models), 130)
        order = sorted(range(len(models)), key=lambda i: (rank[models[i]["headline"]["verdict"]],
                                                          -models[i]["estimate"]["expected"], i))
        shown, rest = sorted(order[:100]), order[100:]
        with open(html) as f:
            page = f.read()
        sections = re.findall(r"<h2>([^<]*)</h2>", page)
        self.assertEqual(sections, [models[i]["file"] for i in shown])
        counts = {v: sum(models[i]["headline"]["verdict"] == v for i in rest) for v in rank}
        self.assertIn("30 more models, not listed</td><td>%d blocked, %d needs work, %d ready" % (
            counts["blocked"], counts["needs-work"], counts["ready"]), page)
        self.assertIn("details the 100 models with the most to change", page)
        self.check_page(html, len(rep["portfolio"]["operators"]))

    def test_the_headline_comes_first_and_shows_its_colour(self):
        rep, html = self.scan(os.path.join(self.tmp, "h"), model("test_loop11"))
        dom = self.check_page(html, len(rep["models"][0]["operators"]))
        self.assertEqual(rep["headline"]["verdict"], "blocked")
        self.assertLess(dom.index('id="headline"'), dom.index('class="cards"'))
        self.assertIn('data-verdict="blocked"', dom)
        # the screenshot: the red verdict badge (#c62828) is drawn near the top of the page
        w, h, rows = png_pixels(html + ".png")
        red = sum(1 for y in range(min(h, 260)) for px in rows[y]
                  if abs(px[0] - 0xc6) < 12 and abs(px[1] - 0x28) < 12 and abs(px[2] - 0x28) < 12)
        self.assertGreater(red, 500, "no verdict badge drawn at the top")

    def test_portfolio_keeps_the_chip_columns_and_the_days_are_split(self):
        d = os.path.join(self.tmp, "models")
        os.makedirs(d)
        for name in ("test_loop11", "test_resize_upsample_scales_cubic", "test_relu",
                     "test_cast_DOUBLE_to_FLOAT"):
            shutil.copy(model(name), os.path.join(d, name + ".onnx"))
        rep, html = self.scan(os.path.join(self.tmp, "chips"), "--soc", "all", d)
        dom = self.check_page(html, len(rep["portfolio"]["operators"]))
        table = re.search(r'<table id="ops">(.*?)</table>', dom, re.S).group(1)
        head = re.search(r"<thead>(.*?)</thead>", table, re.S).group(1)
        self.assertEqual(head.count('class="chip"'), len(rep["chips"]))
        for chip in rep["chips"]:
            self.assertIn(">%s<" % chip, head)
        body = re.search(r"<tbody>(.*?)</tbody>", table, re.S).group(1)
        for row in re.findall(r"<tr .*?</tr>", body, re.S):
            cells = re.findall(r"<td[ >]", re.sub(r"<details>.*?</details>", "", row, flags=re.S))
            self.assertEqual(len(cells), 4 + len(rep["chips"]) + 3)
        # where the days go: by status and by reason, bars of different lengths
        for caption in ("by status", "by reason"):
            fig = re.search(r"<figure class=\"effort\"><figcaption>Where the days go: %s"
                            r".*?</figure>" % caption, dom, re.S)
            self.assertIsNotNone(fig, caption)
            widths = re.findall(r'<rect class="bar"[^>]* width="(\d+)"', fig.group(0))
            self.assertGreater(len(widths), 1, caption)
            self.assertGreater(len(set(widths)), 1, "%s: identical bars %s" % (caption, widths))
        by_status = re.search(r"Where the days go: by status.*?</figure>", dom, re.S).group(0)
        self.assertIn(">rewrite<", by_status)

    def test_opened_details_are_never_cut_off(self):
        pt = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                          "torchscript", "fasterrcnn_mobilenet_v3_large_320_fpn.scripted.pt")
        rep, html = self.scan(os.path.join(self.tmp, "details"), pt)
        with open(html) as f:
            page = f.read()
        opened = html.replace(".html", ".open.html")
        with open(opened, "w") as f:
            f.write(page.replace("<details>", "<details open>").replace("</body>",
                                                                        MEASURE + "</body>"))
        for width in (1300, 900):
            proc, console = self.browser.run("file://" + opened, "--dump-dom",
                                             "--window-size=%d,1400" % width)
            self.assertEqual(console, [])
            cut = re.search(r'data-cut="(\d+)"', proc.stdout)
            cells = re.search(r'data-cells="(\d+)"', proc.stdout)
            self.assertIsNotNone(cut, "the measuring script did not run")
            self.assertEqual(int(cells.group(1)), len(rep["models"][0]["operators"]))
            self.assertEqual(cut.group(1), "0", "content cut off at width %d" % width)

    def test_chip_cells_never_break_a_word(self):
        # every chip: 6 columns of badges and "unpublished", beside node paths that wrap
        pt = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures",
                          "torchscript", "fasterrcnn_mobilenet_v3_large_320_fpn.scripted.pt")
        rep, html = self.scan(os.path.join(self.tmp, "chipcells"), "--soc", "all", pt)
        ops = rep["models"][0]["operators"]
        unpublished = sum(1 for op in ops for c in op["chips"].values() if not c["published"])
        self.assertGreater(unpublished, 0, "no unpublished chip answer to lay out")
        with open(html) as f:
            page = f.read()
        measured = html.replace(".html", ".chips.html")
        with open(measured, "w") as f:
            f.write(page.replace("<details>", "<details open>").replace(
                "</body>", MEASURE_CHIPS + MEASURE + "</body>"))
        for width in (1300, 900):
            proc, console = self.browser.run("file://" + measured, "--dump-dom",
                                             "--window-size=%d,1400" % width)
            self.assertEqual(console, [])
            got = dict(re.findall(r'data-(chip-cells|chip-words|chip-broken|chip-examples|cells|'
                                  r'cut-in-cells)="([^"]*)"', proc.stdout))
            self.assertIn("chip-broken", got, "the measuring script did not run")
            self.assertEqual(int(got["chip-cells"]), len(ops) * len(rep["chips"]))
            self.assertEqual(int(got["chip-words"]), len(ops) * len(rep["chips"]))
            self.assertEqual(got["chip-broken"], "0", "chip cells broken at width %d: %s" %
                             (width, got["chip-examples"]))
            # the node paths of the opened details still wrap inside their cells (the six
            # chip columns may widen the table past the page: it scrolls in its box)
            self.assertEqual(int(got["cells"]), len(ops))
            self.assertEqual(got["cut-in-cells"], "0", "details cut off at width %d" % width)

    def test_hostile_names_are_shown_as_text(self):
        path = os.path.join(self.tmp, "evil.onnx")
        hostile_model(path)
        rep, html = self.scan(os.path.join(self.tmp, "evil"), path)
        dom = self.check_page(html, len(rep["models"][0]["operators"]))
        title = re.search(r"<title>(.*?)</title>", dom, re.S).group(1)
        self.assertTrue(title.startswith("opmap report"), title)
        self.assertNotIn("pwned", title)
        self.assertNotIn("<script>document", dom)
        self.assertNotIn("<img src=\"x\"", dom)
        self.assertNotIn("<svg onload", dom)
        self.assertNotIn("<b>bold</b>", dom)
        self.assertIn("&lt;script&gt;document.title=", dom)
        self.assertIn("&lt;img src=x onerror=", dom)
        self.assertEqual(len(re.findall(r"<script>", dom)), 1)  # only the page's own script


if __name__ == "__main__":
    OPMAP = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=1)
