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
import subprocess
import sys
import tempfile
import unittest

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
