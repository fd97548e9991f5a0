#!/usr/bin/python3
"""The training truth suite: opmap's answers on the PyTorch side (TorchScript archives, printed
graphs) against what Ascend's engineers changed in their own training recipes
(Ascend/ModelZoo-PyTorch PyTorch/built-in and PyTorch/contrib, labelled in
tests/truth/training/recipes/).

    check_training.py OPMAP [--cache DIR] [--write docs/accuracy.md] [--doc docs/accuracy.md]

Each recipe's model is built here (tests/truth/training_export.py: torchvision, torchaudio or
the stand-in module the recipe file names; random weights, eval mode) and saved traced,
scripted (where the code scripts), as the traced module's printed graph, and as ONNX; every
file is scanned. Then, per recipe:

- one answer: the ATen formats (traced, scripted, printed) get one verdict; the ONNX export's
  verdict is shown beside it, and where it differs the ONNX report must say why (a finding
  that names ATC, whose ahead-of-time compile is what differs);
- unchanged: a recipe that trained the upstream model code unchanged must be "ready" in every
  ATen format;
- caught: each change still called for by current torch_npu (`still_needed: true`, with
  `expect`) must be among the findings of every ATen format, naming its replacement
  (`expect.names`); changes marked `expect: {none: why}` are listed, not counted;
- findings: operator findings (partial, rewrite, unmapped) and required advice; one that no
  change still called for accounts for is a false alarm. A finding that a change whose need
  nobody can tell today (`still_needed: unknown`) accounts for is listed as undecided, not
  counted either way. Fused-kernel and optional advice is listed apart with whether the
  recipe took it.

Fails (exit 1) when a needed change is missed, when false alarms pass 1 in 20 findings, when
caught falls below 80 %, on a split ATen verdict, an unchanged recipe not ready, an ONNX
difference the report does not explain, or when --doc is given and that file does not say
what this run measured. --write regenerates this suite's section of the document (from the
heading MARK to the end; check_truth.py owns what comes before it).
"""
import argparse
import json
import os
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RECIPES = os.path.join(HERE, "training", "recipes")
ATEN_FORMATS = ("traced.pt", "scripted.pt", "traced.graph.txt")
FORMAT_NAMES = {"traced.pt": "traced", "scripted.pt": "scripted", "traced.graph.txt": "printed",
                "onnx": "ONNX"}
MAX_FALSE_ALARM_SHARE = 1 / 20
MIN_CAUGHT_SHARE = 0.8
# this suite's section of docs/accuracy.md, to its end; check_truth.py owns what precedes it
MARK = "## The PyTorch side: Ascend's training recipes"
FINDING_STATUSES = ("partial", "rewrite", "unmapped")
SEVERITY = {"ready": 0, "needs-work": 1, "blocked": 2}


def load_recipes():
    out = []
    for f in sorted(os.listdir(RECIPES)):
        if f.endswith(".yaml"):
            with open(os.path.join(RECIPES, f), encoding="utf-8") as fh:
                out.append(yaml.safe_load(fh))
    return out


def export(cache):
    """{name: {format: file name or "error: ..."/"skipped: ..."}} from training_export.py."""
    proc = subprocess.run([sys.executable, os.path.join(HERE, "training_export.py"), RECIPES, cache],
                          stdout=subprocess.PIPE, universal_newlines=True)
    if proc.returncode:
        raise SystemExit("training_export.py failed (%d)" % proc.returncode)
    files = {}
    for line in proc.stdout.splitlines():
        name, _, rest = line.split(None, 2)
        files[name] = json.loads(rest)
    return files


def scan(opmap, paths):
    proc = subprocess.run([opmap, "scan", "--format", "json"] + paths, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    if proc.returncode not in (0, 1):
        raise SystemExit("opmap scan failed (%d): %s" % (proc.returncode, proc.stderr))
    out = json.loads(proc.stdout)
    if out["errors"]:
        raise SystemExit("opmap could not read: %s" % out["errors"])
    return {os.path.basename(m["file"]): m for m in out["models"]}


def op_key(op):
    return "%s::%s" % (op["domain"], op["op_type"])


def text_of_op(op):
    return " ".join([op.get("hint", ""), op.get("next_step", ""), op["ascend"].get("how", "")] +
                    [r.get("message", "") for r in op.get("reasons", [])])


def evaluate(recipe, model):
    """One format of one recipe: each change with an `expect`, caught or not; the findings;
    which of them are false alarms or undecided; the advice given that is not a finding."""
    advice = {a["id"]: a for a in model["advice"]}
    ops = {op_key(o): o for o in model["operators"] if o["status"] in FINDING_STATUSES}
    needed, not_needed, explained, undecided_by = [], [], set(), set()
    for c in recipe.get("changes") or []:
        e = c.get("expect")
        if not e:
            continue
        if "none" in e:
            if c.get("still_needed") is True:
                not_needed.append((c, e["none"]))
            continue
        if "advice" in e:
            key = "advice:" + e["advice"]
            a = advice.get(e["advice"])
            ok = a is not None and e.get("names", "") in " ".join((a["action"], a["value"]))
        else:
            key = "op:" + e["op"]
            o = ops.get(e["op"])
            ok = (o is not None and o["status"] == e.get("status", o["status"]) and
                  e.get("names", "") in text_of_op(o))
        if c.get("still_needed") is True:
            explained.add(key)
            needed.append((c, e, ok))
        else:
            undecided_by.add(key)
    findings = ["op:" + k for k in sorted(ops)] + \
        ["advice:" + a["id"] for a in model["advice"] if a["kind"] in ("required", "custom_op")]
    false = [f for f in findings if f not in explained and f not in undecided_by]
    undecided = [f for f in findings if f not in explained and f in undecided_by]
    options = [(a["id"], "advice:" + a["id"] in explained) for a in model["advice"]
               if a["kind"] in ("optional", "fused")]
    return {"needed": needed, "not_needed": not_needed, "findings": findings, "false": false,
            "undecided": undecided, "options": options,
            "verdict": model["headline"]["verdict"], "model": model}


def onnx_reason(model):
    """What the ONNX report gives as the reason for its verdict: the findings that name ATC."""
    out = []
    for o in model["operators"]:
        if o["status"] in FINDING_STATUSES:
            out += [r["message"] for r in o.get("reasons", []) if "ATC" in r.get("message", "")]
    out += [r["message"] for r in model["risks"] if r["level"] == "warning" and "ATC" in r["message"]]
    return out


def summarise(recipes, files, models):
    rows = []
    for r in recipes:
        f = files.get(r["name"])
        if f is None:
            raise SystemExit("%s: not exported" % r["name"])
        per = {}
        for fmt in ATEN_FORMATS + ("onnx",):
            got = f.get(fmt, "skipped: not asked for")
            if got.startswith(("error:", "skipped:")):
                per[fmt] = got
            else:
                per[fmt] = evaluate(r, models[got])
        rows.append((r, per))
    return rows


def aten(per):
    return [(fmt, per[fmt]) for fmt in ATEN_FORMATS if isinstance(per[fmt], dict)]


def check(rows):
    """Problems as lines; an empty list when the suite holds."""
    bad = []
    for r, per in rows:
        forms = aten(per)
        if not forms:
            bad.append("%s: no ATen format could be saved" % r["name"])
            continue
        verdicts = sorted(set(e["verdict"] for _, e in forms))
        if len(verdicts) > 1:
            bad.append("%s: the ATen formats disagree: %s" % (r["name"], ", ".join(
                "%s %s" % (FORMAT_NAMES[f], e["verdict"]) for f, e in forms)))
        if r.get("unchanged") and verdicts != ["ready"]:
            bad.append("%s: trained unchanged, but %s" % (r["name"], ", ".join(
                "%s %s" % (FORMAT_NAMES[f], e["verdict"]) for f, e in forms)))
        for fmt, e in forms:
            for c, exp, ok in e["needed"]:
                if not ok:
                    bad.append("MISSED %s (%s): %s expected %s" % (r["name"], FORMAT_NAMES[fmt], c["id"], exp))
            for x in e["false"]:
                bad.append("FALSE ALARM %s (%s): %s" % (r["name"], FORMAT_NAMES[fmt], x))
        onnx = per["onnx"]
        if (isinstance(onnx, dict) and SEVERITY[onnx["verdict"]] > SEVERITY[verdicts[-1]] and
                not onnx_reason(onnx["model"])):
            bad.append("%s: ONNX is %s, the ATen formats %s, and the ONNX report does not say why"
                       % (r["name"], onnx["verdict"], "/".join(verdicts)))
    return bad


def totals(rows):
    """Counted on the ATen answer: a change is caught when every ATen format catches it; a
    false alarm counts once when any ATen format raises it."""
    t = {"needed": 0, "caught": 0, "findings": 0, "false": 0, "undecided": 0, "not_needed": 0,
         "onnx_needed": 0, "onnx_caught": 0}
    for r, per in rows:
        forms = aten(per)
        if not forms:
            continue
        first = forms[0][1]
        t["needed"] += len(first["needed"])
        t["caught"] += sum(1 for i in range(len(first["needed"]))
                           if all(e["needed"][i][2] for _, e in forms))
        t["findings"] += len(set(x for _, e in forms for x in e["findings"]))
        t["false"] += len(set(x for _, e in forms for x in e["false"]))
        t["undecided"] += len(set(x for _, e in forms for x in e["undecided"]))
        t["not_needed"] += len(first["not_needed"])
        if isinstance(per["onnx"], dict):
            t["onnx_needed"] += len(per["onnx"]["needed"])
            t["onnx_caught"] += sum(1 for x in per["onnx"]["needed"] if x[2])
    return t


def figure(n, d):
    return "%d of %d (%.0f %%)" % (n, d, 100.0 * n / d) if d else "0 of 0"


def plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def one_line(s, n=110):
    s = " ".join(str(s).split()).replace("|", "/")
    return s if len(s) <= n else s[:n - 3] + "..."


def render(rows):
    t = totals(rows)
    families = sorted(set(r.get("family", "?") for r, _ in rows))
    w = []
    w.append(MARK)
    w.append("")
    w.append("GENERATED by `tests/truth/check_training.py build/opmap --write docs/accuracy.md` "
             "(this section only); the test `truth.training` runs the same check and fails when "
             "this section no longer says what it measures.")
    w.append("")
    w.append("Ground truth: %d training recipes of Ascend/ModelZoo-PyTorch (commit 6a2804a3; "
             "`PyTorch/built-in`, `PyTorch/contrib`) across %s, each labelled in "
             "`tests/truth/training/recipes/` from the recipe's own scripts against the upstream "
             "code it started from: every operator-level change with its replacement, and for "
             "each whether current torch_npu still calls for it, with the source that says so. "
             "The models are built here (torchvision, torchaudio, or a stand-in module in "
             "`tests/truth/training/models/` that keeps the upstream code's operators; random "
             "weights, eval mode), saved traced, scripted where the code scripts, as the printed "
             "inlined graph and as ONNX (opset 13), and scanned with the built-in table for the "
             "default chip." % (len(rows), ", ".join(families)))
    w.append("")
    w.append("- **Caught**: %s changes still called for are among opmap's findings in every "
             "ATen format, naming the replacement." % figure(t["caught"], t["needed"]))
    w.append("- **False alarms**: %s findings (operator findings that are partial, rewrite or "
             "unmapped, and required advice) are things the recipe trained through unchanged, "
             "or changed only for an older torch_npu." % figure(t["false"], t["findings"]))
    w.append("- **Undecided**: %s %s a change whose need nobody can tell from current "
             "sources (listed below; not counted either way)." % (
                 plural(t["undecided"], "finding"), "matches" if t["undecided"] == 1 else "match"))
    w.append("- **Not visible in a model export**: %s still called for %s outside the forward "
             "pass (listed below; not counted)." % (plural(t["not_needed"], "change"),
                                                    "lives" if t["not_needed"] == 1 else "live"))
    w.append("- **Trained unchanged**: %d recipes; every one is `ready` in every ATen format."
             % sum(1 for r, _ in rows if r.get("unchanged")))
    w.append("- **ONNX exports of the same models** catch %s of the changes: what an ONNX export "
             "cannot carry (a custom autograd.Function is inlined by `torch.onnx.export`) or "
             "what ATC answers differently is in the table below." % figure(t["onnx_caught"], t["onnx_needed"]))
    w.append("")
    w.append("| model | family | recipe | trained unchanged | traced | scripted | printed | ONNX | "
             "needed, caught | findings | false alarms | fused / optional advice: taken by the "
             "recipe / not |")
    w.append("|---|---|---|---|---|---|---|---|---|---:|---:|---|")
    for r, per in rows:
        forms = aten(per)
        first = forms[0][1] if forms else None

        def cell(fmt):
            x = per[fmt]
            if isinstance(x, dict):
                return x["verdict"]
            return "not saved" if x.startswith("error:") else "-"
        caught = sum(1 for i in range(len(first["needed"]))
                     if all(e["needed"][i][2] for _, e in forms)) if first else 0
        findings = len(set(x for _, e in forms for x in e["findings"]))
        false = len(set(x for _, e in forms for x in e["false"]))
        opts = sorted(set(o for _, e in forms for o in e["options"]))
        taken = ", ".join(a for a, used in opts if used) or "-"
        not_taken = ", ".join(a for a, used in opts if not used) or "-"
        w.append("| %s | %s | `%s` | %s | %s | %s | %s | %s | %d / %d | %d | %d | %s / %s |" % (
            r["name"], r.get("family", ""), r["recipe"]["path"],
            "yes" if r.get("unchanged") else "no", cell("traced.pt"), cell("scripted.pt"),
            cell("traced.graph.txt"), cell("onnx"), caught,
            len(first["needed"]) if first else 0, findings, false, taken, not_taken))
    w.append("")
    w.append("`-`: the recipe's code does not script (the recipe file says why). `not saved`: the "
             "format could not be written from this module (below).")
    w.append("")
    w.append("### What each change still called for was caught as")
    w.append("")
    w.append("| model | change | what the recipe did | replacement | caught as (ATen formats) | ONNX |")
    w.append("|---|---|---|---|---|---|")
    for r, per in rows:
        forms = aten(per)
        if not forms:
            continue
        for i, (c, exp, _) in enumerate(forms[0][1]["needed"]):
            ok = all(e["needed"][i][2] for _, e in forms)
            got = ("advice `%s`" % exp["advice"]) if "advice" in exp else \
                ("`%s` %s" % (exp["op"], exp.get("status", "")))
            onnx = per["onnx"]
            ocell = "-" if not isinstance(onnx, dict) else \
                ("caught" if onnx["needed"][i][2] else "not in the export")
            w.append("| %s | %s | %s | %s | %s%s | %s |" % (
                r["name"], c["id"], one_line(c["what"]), one_line(c.get("replacement", ""), 70),
                got, "" if ok else " **MISSED**", ocell))
    w.append("")
    w.append("### False alarms")
    w.append("")
    fa = sorted(set((r["name"], x) for r, per in rows for _, e in aten(per) for x in e["false"]))
    if fa:
        for name, x in fa:
            w.append("- %s: %s" % (name, x))
    else:
        w.append("None in this run: every operator finding and required advice on the ATen side "
                 "is a change the recipe made and current torch_npu still calls for, or one "
                 "listed as undecided.")
    w.append("")
    w.append("### Undecided")
    w.append("")
    und = []
    for r, per in rows:
        for x in sorted(set(x for _, e in aten(per) for x in e["undecided"])):
            cs = [c["id"] for c in r.get("changes") or [] if c.get("expect") and
                  ("op:" + c["expect"].get("op", "") == x or "advice:" + c["expect"].get("advice", "") == x)]
            und.append("- %s: %s (change %s: `still_needed: unknown`, the recipe file says why)"
                       % (r["name"], x, ", ".join(cs)))
    w += und or ["None."]
    w.append("")
    w.append("### Not visible in a model export")
    w.append("")
    for r, per in rows:
        forms = aten(per)
        for c, why in (forms[0][1]["not_needed"] if forms else []):
            w.append("- %s (%s): %s" % (r["name"], c["id"], one_line(why, 400)))
    w.append("")
    w.append("### Where the ONNX export's answer differs, and why")
    w.append("")
    diff = []
    for r, per in rows:
        onnx = per["onnx"]
        forms = aten(per)
        if not isinstance(onnx, dict) or not forms:
            continue
        a = forms[0][1]
        if onnx["verdict"] == a["verdict"]:
            continue
        why = onnx_reason(onnx["model"])
        line = "- %s: ONNX %s, ATen %s." % (r["name"], onnx["verdict"], a["verdict"])
        if why:
            line += " The ONNX report says: %s" % one_line(why[0], 300)
        lost = sorted(set(x for _, e in forms for x in e["findings"]) - set(onnx["findings"]))
        if SEVERITY[onnx["verdict"]] < SEVERITY[a["verdict"]] and lost:
            line += (" The ONNX export does not carry %s: `torch.onnx.export` traced through "
                     "it, so no ONNX report can see what the ATen formats flag." % ", ".join(lost))
        diff.append(line)
    w += diff or ["None."]
    w.append("")
    w.append("### Formats that could not be saved")
    w.append("")
    ns = ["- %s, %s: %s" % (r["name"], FORMAT_NAMES[f], one_line(per[f][len("error: "):], 200))
          for r, per in rows for f in ATEN_FORMATS + ("onnx",)
          if isinstance(per[f], str) and per[f].startswith("error:")]
    w += ns or ["None."]
    w.append("")
    w.append("### Limits of this measure")
    w.append("")
    w.append("- The recipes are practice reports from older torch_npu and CANN; what they changed "
             "is ground truth for what their engineers met, and each change's `still_needed` is "
             "decided from current op-plugin / torch_npu sources, cited in the recipe file.")
    w.append("- Stand-in modules keep the upstream code's operators at a small size; where the "
             "upstream code could not be installed here (detectron2, fairseq, wenet, apex), the "
             "recipe file says what the stand-in keeps and what it leaves out.")
    w.append("- A scan sees the forward pass in eval mode; changes in the loss, the optimizer, the "
             "data pipeline or evaluation post-processing are listed in each recipe file "
             "(`training_code`) and not measured here.")
    w.append("")
    return "\n".join(w) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("opmap")
    ap.add_argument("--cache", default=os.environ.get("OPMAP_TRUTH_CACHE") and
                    os.path.join(os.environ["OPMAP_TRUTH_CACHE"], "training") or
                    os.path.join(os.path.expanduser("~"), ".cache", "opmap", "truth-training"))
    ap.add_argument("--write")
    ap.add_argument("--doc")
    args = ap.parse_args(argv)
    os.makedirs(args.cache, exist_ok=True)
    recipes = load_recipes()
    files = export(args.cache)
    paths = [os.path.join(args.cache, v) for f in files.values() for v in f.values()
             if not v.startswith(("error:", "skipped:"))]
    models = scan(os.path.abspath(args.opmap), paths)
    rows = summarise(recipes, files, models)
    text = render(rows)
    bad = check(rows)
    t = totals(rows)
    for line in bad:
        print(line)
    print("%d recipes: %d changes still called for, %d caught; %d findings, %d false alarms, "
          "%d undecided; ONNX %d of %d" % (len(rows), t["needed"], t["caught"], t["findings"],
                                           t["false"], t["undecided"], t["onnx_caught"], t["onnx_needed"]))
    if t["findings"] and t["false"] / t["findings"] > MAX_FALSE_ALARM_SHARE:
        print("false alarms over 1 in 20 findings")
        bad.append("false alarms")
    if t["needed"] and t["caught"] / t["needed"] < MIN_CAUGHT_SHARE:
        print("caught below 80 %")
        bad.append("caught")
    if args.write:
        before = ""
        if os.path.exists(args.write):
            with open(args.write, encoding="utf-8") as f:
                before = f.read().split(MARK)[0]
        with open(args.write, "w", encoding="utf-8") as f:
            f.write(before + text)
    if args.doc:
        with open(args.doc, encoding="utf-8") as f:
            doc = f.read()
            if MARK not in doc or MARK + doc.split(MARK, 1)[1] != text:
                print("%s does not say what this run measured: regenerate it with\n  %s %s --write %s"
                      % (args.doc, os.path.relpath(__file__, ROOT), args.opmap, args.doc))
                bad.append("doc")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
