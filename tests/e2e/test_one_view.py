#!/usr/bin/python3
"""What one format says, all say (issue 30), tried as a new user would with the CLI: a
traced Llama-style block, its ONNX export, training code beside it, an opset-6 model.

- every source line of the fused-kernel advice is in text, Markdown, HTML and SARIF (as a
  region); no SARIF location is in an installed torch/ package when a user frame exists;
- `opmap scan model.onnx train/` (a portfolio) says the fused-kernel advice in text;
- the HTML "On Ascend" column says what the JSON's `ascend.becomes` says, for every
  operator of every model, alone and in a portfolio;
- a portfolio's HTML headline is the overall verdict, never "All models";
- a model whose opset ATC cannot parse says "re-export at opset 8-18" first, before any
  coverage figure, in every format that has a headline;
- past 100 models, HTML and Markdown list the same 100 models with the most to change (the
  JSON report's worst verdicts, then most effort) and sum up the rest alike.

(tests/unit/test_view.c walks every fact of the view against every format.)

Usage: test_one_view.py OPMAP_BINARY   (run by ctest)
"""
import html
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

OPMAP = None
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LLM = os.path.join(ROOT, "tests", "fixtures", "llm")
TRAIN = os.path.join(ROOT, "tests", "data", "python-projects", "nanogpt")
TESTDATA = os.environ.get("OPMAP_TESTDATA", "/usr/share/libonnx-testdata/data")
OPSET6 = os.path.join(TESTDATA, "pytorch-converted", "test_Conv2d", "model.onnx")
FORMATS = ("text", "json", "html", "markdown", "sarif")
EXT = {"text": "txt", "json": "json", "html": "html", "markdown": "md", "sarif": "sarif"}


def installed(path):
    return ("/site-packages/" in path or "/dist-packages/" in path or
            re.search(r"/lib/python[0-9][0-9.]*/", path) is not None)


def reports(*paths):
    """Every format of one scan, by format name."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([OPMAP, "scan", *paths, "-q", "--format", ",".join(FORMATS),
                               "-o", tmp], capture_output=True, text=True, timeout=600)
        assert proc.returncode in (0, 1), proc.stderr
        out = {}
        for f in FORMATS:
            with open(os.path.join(tmp, "opmap-report." + EXT[f]), encoding="utf-8") as fh:
                out[f] = fh.read()
        return out


def sarif_regions(sarif):
    """(uri, startLine) of every physical location of every result."""
    got = []
    for r in json.loads(sarif)["runs"][0]["results"]:
        for loc in r["locations"]:
            p = loc["physicalLocation"]
            got.append((p["artifactLocation"]["uri"], p.get("region", {}).get("startLine")))
    return got


def asc_cells(page):
    """The text of each On Ascend cell of the operator table, in row order."""
    cells = re.findall(r'<td class="asc">(.*?)</td>', page, flags=re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in cells]


class OneView(unittest.TestCase):
    def test_advice_source_lines_reach_every_format(self):
        rep = reports(os.path.join(LLM, "llama_block.traced.pt"))
        model = json.loads(rep["json"])["models"][0]
        fused = [a for a in model["advice"] if a["kind"] == "fused"]
        self.assertGreaterEqual(len(fused), 4)
        regions = sarif_regions(rep["sarif"])
        md = rep["markdown"].replace("\\_", "_")
        for a in fused:
            for line in set(l for l in a["lines"] if l):
                with self.subTest(advice=a["id"], line=line):
                    self.assertIn(line, rep["text"])
                    self.assertIn(line, md)
                    self.assertIn(html.escape(line, quote=True), rep["html"])
                    f, _, n = line.rpartition(":")
                    self.assertIn(("file://" + f if f.startswith("/") else f, int(n)), regions)

    def test_sarif_points_at_the_users_frame(self):
        rep = reports(os.path.join(LLM, "llama_block.traced.pt"))
        regions = [(u, l) for u, l in sarif_regions(rep["sarif"]) if l]
        self.assertTrue(regions)
        for uri, line in regions:
            self.assertFalse(installed(uri), "%s:%s" % (uri, line))
        # the JSON's locations are the same user frames: torch's linear.py is no place
        for o in json.loads(rep["json"])["models"][0]["operators"]:
            for loc in o.get("locations") or []:
                if loc:
                    self.assertFalse(installed(loc), "%s::%s at %s" % (o["domain"],
                                                                      o["op_type"], loc))

    def test_text_of_a_model_and_its_training_code_has_the_advice(self):
        rep = reports(os.path.join(LLM, "llama_block.opset17.onnx"), TRAIN)
        models = json.loads(rep["json"])["models"]
        self.assertEqual(len(models), 2)
        for a in models[0]["advice"]:
            with self.subTest(advice=a["id"]):
                self.assertIn(a["message"], rep["text"])
                for place in a.get("places", [])[:3]:
                    self.assertIn(place, rep["text"])
        for step in models[0]["next"]["atc"]:
            self.assertIn(step["command"], rep["text"])

    def test_html_on_ascend_is_the_json_ascend(self):
        for paths in ((os.path.join(LLM, "llama_block.traced.pt"),),
                      (os.path.join(LLM, "llama_block.opset17.onnx"),),
                      (os.path.join(LLM, "llama_block.traced.pt"),
                       os.path.join(LLM, "llama_block.opset17.onnx"),
                       os.path.join(LLM, "mixtral_moe.traced.pt"), OPSET6)):
            with self.subTest(paths=[os.path.basename(p) for p in paths]):
                rep = reports(*paths)
                doc = json.loads(rep["json"])
                cells = asc_cells(rep["html"])
                if len(paths) == 1:
                    ops = doc["models"][0]["operators"]
                    self.assertEqual(len(cells), len(ops))
                    for o, cell in zip(ops, cells):
                        self.assertTrue(cell.startswith(o["ascend"]["becomes"]),
                                        (o["op_type"], cell, o["ascend"]))
                    continue
                rows = {(o["domain"], o["op_type"]): cell
                        for o, cell in zip(doc["portfolio"]["operators"], cells)}
                self.assertEqual(len(cells), len(doc["portfolio"]["operators"]))
                for m in doc["models"]:
                    for o in m["operators"]:
                        self.assertIn(o["ascend"]["becomes"], rows[(o["domain"], o["op_type"])],
                                      (m["file"], o["op_type"]))

    def test_portfolio_headline_is_the_overall_verdict(self):
        rep = reports(os.path.join(LLM, "llama_block.traced.pt"), OPSET6)
        self.assertNotIn("All models", rep["html"])
        verdict = json.loads(rep["json"])["headline"]["verdict"]
        self.assertIn('data-verdict="%s">Overall: ' % verdict, rep["html"])

    def test_reexport_first(self):
        rep = reports(OPSET6)
        want = "re-export at opset 8-18"
        lines = rep["text"].splitlines()
        self.assertTrue(lines[1].startswith("  first: " + want), lines[:3])
        self.assertIn("coverage", lines[2])
        self.assertIn(want, json.loads(rep["json"])["headline"]["reexport"])
        self.assertIn(want, json.loads(rep["json"])["models"][0]["headline"]["reexport"])
        md = rep["markdown"].splitlines()[2]
        self.assertLess(md.index(want), md.index("coverage"))
        page = rep["html"]
        self.assertLess(page.index(want), page.index('id="coverage"'))
        props = json.loads(rep["sarif"])["runs"][0]["properties"]
        self.assertIn(want, props["headline"]["reexport"])
        # a model ATC parses at its opset says nothing of it
        rep = reports(os.path.join(LLM, "llama_block.opset17.onnx"))
        self.assertNotIn("re-export", rep["text"])

    def test_html_and_markdown_list_the_same_models_past_100(self):
        node = os.path.join(TESTDATA, "node")
        files = sorted(os.path.join(node, n, "model.onnx") for n in os.listdir(node))[:130]
        with tempfile.TemporaryDirectory() as tmp:
            listing = os.path.join(tmp, "models.txt")
            with open(listing, "w") as f:
                f.write("".join(p + "\n" for p in files))
            rep = reports("--files-from", listing)
        models = json.loads(rep["json"])["models"]
        rank = {"blocked": 0, "needs-work": 1, "ready": 2}
        order = sorted(range(len(models)), key=lambda i: (rank[models[i]["headline"]["verdict"]],
                                                          -models[i]["estimate"]["expected"], i))
        want = [models[i]["file"] for i in sorted(order[:100])]
        cells = [l.split(" | ")[0][2:].replace("\\_", "_") for l in rep["markdown"].splitlines()
                 if l.startswith("| ")]
        rows = [c for c in cells if c in files]
        self.assertEqual(rows, want)
        self.assertEqual(re.findall(r"<h2>([^<]*)</h2>", rep["html"]), want)
        rest = [models[i]["headline"]["verdict"] for i in order[100:]]
        summed = "30 more models, not listed | %d blocked, %d needs work, %d ready" % (
            rest.count("blocked"), rest.count("needs-work"), rest.count("ready"))
        self.assertIn(summed, rep["markdown"])
        self.assertIn(summed.replace(" | ", "</td><td>"), rep["html"])


if __name__ == "__main__":
    OPMAP = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
