#!/usr/bin/python3
"""opmap's ATC command against the ATC commands of Ascend's own recipes (tests/truth/recipes,
the `atc.flags` each recipe ran with).

    check_atc.py OPMAP [--cache DIR] [--doc docs/reports.md]

Each recipe's model is exported as check_truth.py exports it (export_models.py, cached in
DIR) and scanned with --format json; `models[].next.atc[0]` is held against the recipe's
flags:

- `--framework=5` on both sides;
- `--soc_version`: where the recipe writes a part (Ascend310P3) the model is scanned with that
  part's family (the part must be among the family's parts opmap lists) and with the part
  itself (opmap must write it as the recipe did); where the recipe leaves a placeholder
  (`Ascend${chip_name}`) opmap must leave one too, `$SOC_VERSION`, and say where the part is
  read (npu-smi's Name column, with Ascend before it);
- `--input_shape`: per input the name and every dimension. A recipe's variable (`${bs}`, `$i`)
  stands for a dimension opmap writes as -1 when the export is dynamic there, or as the
  export's number when it is static; a number stands for itself. Our exports name every
  input `input` (export_models.py, `input_names=["input"]`) where the recipes' exports chose
  `actual_input_1`, `image`, `input_0` or `366`; so the names are checked twice: opmap writes
  the name the file holds, and, on a copy of the model whose input is renamed to the
  recipe's name (a byte-level rewrite of the protobuf here, no onnx needed), opmap's whole
  `--input_shape` is the recipe's with each variable resolved as above;
- the profile: no recipe uses `--dynamic_batch_size`, `--dynamic_image_size`,
  `--dynamic_dims` or `--input_shape_range`; every one builds one OM per batch. Where the
  export is dynamic opmap writes -1 (a dynamic-shape OM), so its note must say how to build
  one OM per batch as the recipes did and name the profile option ATC's rules give
  (`--dynamic_batch_size` for a dynamic batch), and the `fix_batch` advice must be given.

EXPECT below is what each recipe should come to, written from the recipe files and
export_models.py before opmap was run on them; the test derives the same from the recipe
and fails when the two part (a recipe file edited) or when opmap's command does not match.

With --doc, the page must hold the result paragraph this run writes (line breaks aside);
without, the paragraph is printed. Exit 77 (skipped) only when a model is missing from the cache and cannot be exported here.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
RECIPES = os.path.join(HERE, "recipes")
SKIP = 77
HARNESS_INPUT = "input"     # export_models.py: torch.onnx.export(..., input_names=["input"])
PROFILE_FLAGS = ("--dynamic_batch_size", "--dynamic_image_size", "--dynamic_dims",
                 "--input_shape_range")

# How each recipe's --input_shape relates to our export of it, decided from the recipe file
# (export.dynamic_batch, build.input / export_input, atc.flags) before the first run:
#   variable  the export has a dynamic batch and the recipe writes it as a variable (one OM
#             per value): opmap's -1 is that variable; agreement
#   fixed     the export has a dynamic batch and the recipe's command fixes it (bs 1 in the
#             example; its results cover other batches, one OM each: the recipe file labels
#             a fix_batch modification): opmap writes -1 and must say how to fix it per OM
#             (note + fix_batch advice)
#   static    static export; the recipe's numbers (or variables: one export per value) are
#             the export's dims: agreement
#   traced    static export traced smaller than the recipe's input (build.export_input:
#             only constants differ); opmap writes the traced dims, the recipe its own
#             (build.input): differs by construction of this suite, not an opmap error
# soc: the family scanned for, where the recipe names a part; None: the default chip.
EXPECT = {
    "alexnet":            dict(shape="fixed", soc="ascend310p"),
    "convnext_tiny":      dict(shape="fixed"),
    "deeplabv3_resnet50": dict(shape="traced"),     # 256x512 traced, recipe 1024x2048
    "densenet121":        dict(shape="variable"),
    "googlenet":          dict(shape="variable"),
    "googlenet_contrib":  dict(shape="fixed"),
    "inception_v3":       dict(shape="variable"),
    "lstm_ctc":           dict(shape="variable"),
    "mnasnet1_0":         dict(shape="variable"),
    "mobilenet_v2":       dict(shape="variable"),
    "regnet_x_1_6gf":     dict(shape="fixed"),
    "resnet101":          dict(shape="variable"),
    "resnet152":          dict(shape="variable"),
    "resnet18":           dict(shape="variable"),
    "resnet34":           dict(shape="fixed"),
    "resnet50":           dict(shape="traced"),     # batch 1 traced, recipe bs64
    "resnext101_32x8d":   dict(shape="fixed"),
    "resnext50_32x4d":    dict(shape="variable"),
    "shufflenet_v2_x1_0": dict(shape="variable"),
    "squeezenet1_1":      dict(shape="variable"),
    "swin_t":             dict(shape="traced"),     # batch 1 traced, recipe bs16
    "vgg16":              dict(shape="fixed"),
    "vit_b_16":           dict(shape="static"),     # ${bs},3,${img_size},${img_size}: 1,224
    "wide_resnet101_2":   dict(shape="fixed"),
    "wide_resnet50_2":    dict(shape="fixed"),
}

VAR = re.compile(r"^\$(\{\w+\}|\w+)$")


def load_recipes():
    out = []
    for f in sorted(os.listdir(RECIPES)):
        if f.endswith(".yaml"):
            with open(os.path.join(RECIPES, f), encoding="utf-8") as fh:
                r = yaml.safe_load(fh)
            # the recipes EXPECT says something of (the first round's); issue 31's recipes
            # build gears, shape ranges and fixed shapes their own way and are not held
            # against opmap's command yet
            if r.get("atc") and r["name"] in EXPECT:
                out.append(r)
    return out


def recipe_flags(recipe):
    """{flag: value} of the recipe's atc flags; `--input-shape` (three recipes spell it so)
    read as --input_shape."""
    out = {}
    for f in recipe["atc"]["flags"]:
        k, _, v = f.partition("=")
        out["--" + k[2:].replace("-", "_")] = v
    return out


def parse_shape(text):
    """'a:1,3;b:-1' -> [('a', ['1', '3']), ('b', ['-1'])]."""
    out = []
    for part in text.split(";"):
        name, _, dims = part.rpartition(":")
        out.append((name, dims.split(",") if dims else []))
    return out


def expected(recipe):
    """What opmap should write for our export of the recipe: the one input's dims (-1 where
    dynamic), the recipe's category (as in EXPECT), and the dims the recipe's --input_shape
    resolves to (its variables as opmap should write them)."""
    b, exp = recipe["build"], recipe["export"]
    traced = list(b.get("export_input") or b["input"])
    dynamic = bool(exp.get("dynamic_batch"))
    mine = [-1 if (i == 0 and dynamic) else d for i, d in enumerate(traced)]
    ((_, theirs),) = parse_shape(recipe_flags(recipe)["--input_shape"])
    if len(theirs) != len(mine):
        raise SystemExit("%s: recipe's input_shape has rank %d, the export %d"
                         % (recipe["name"], len(theirs), len(mine)))
    cat = set()
    resolved = []
    for i, t in enumerate(theirs):
        var = VAR.match(t) is not None
        if not var and int(t) != b["input"][i]:
            raise SystemExit("%s: recipe's input_shape dim %d is %s, build.input says %d"
                             % (recipe["name"], i, t, b["input"][i]))
        if mine[i] == -1:
            cat.add("variable" if var else "fixed")
            resolved.append(-1)
        elif var or int(t) == mine[i]:
            cat.add("static")
            resolved.append(mine[i])
        else:
            cat.add("traced")
            resolved.append(int(t))
    # one category per recipe: the most telling dimension decides
    for c in ("fixed", "traced", "variable", "static"):
        if c in cat:
            return mine, c, resolved
    raise AssertionError


# --- a byte-level protobuf rewrite: the graph input renamed, everything else copied -------

def _varint(buf, i):
    n = s = 0
    while True:
        c = buf[i]
        i += 1
        n |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return n, i


def _enc(n):
    out = bytearray()
    while True:
        if n < 0x80:
            out.append(n)
            return bytes(out)
        out.append((n & 0x7F) | 0x80)
        n >>= 7


def _fields(buf, start, end):
    """(field, wire, payload start, payload end, record start) of each field in buf[start:end]."""
    i = start
    while i < end:
        rec = i
        key, i = _varint(buf, i)
        f, w = key >> 3, key & 7
        if w == 0:
            _, j = _varint(buf, i)
        elif w == 1:
            j = i + 8
        elif w == 5:
            j = i + 4
        elif w == 2:
            n, i = _varint(buf, i)
            j = i + n
        else:
            raise ValueError("wire type %d" % w)
        yield f, w, i, j, rec
        i = j


def _rewrite(buf, start, end, plan, old, new):
    """buf[start:end] with the fields plan names rewritten: plan {field: sub-plan} recurses,
    {field: None} is a string to rename when it equals old. Returns a list of chunks."""
    out = []
    for f, w, a, b, rec in _fields(buf, start, end):
        if w == 2 and f in plan:
            if plan[f] is None:
                body = [new] if bytes(buf[a:b]) == old else [buf[a:b]]
            else:
                body = _rewrite(buf, a, b, plan[f], old, new)
            out += [_enc((f << 3) | 2), _enc(sum(len(c) for c in body))] + body
        else:
            out.append(buf[rec:b])
    return out


VALUE_INFO = {1: None}                          # ValueInfoProto.name
NODE = {1: None, 2: None}                       # NodeProto.input, .output
GRAPH = {1: NODE, 11: VALUE_INFO, 12: VALUE_INFO, 13: VALUE_INFO}
MODEL = {7: GRAPH}                              # ModelProto.graph


def renamed_copy(src, dst, old, new):
    with open(src, "rb") as f:
        data = memoryview(f.read())
    with open(dst, "wb") as out:
        for c in _rewrite(data, 0, len(data), MODEL, old.encode(), new.encode()):
            out.write(c)


# --- the check --------------------------------------------------------------------------

def scan(opmap, path, soc=None):
    cmd = [opmap, "scan", "--format", "json"] + (["--soc", soc] if soc else []) + [path]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    if proc.returncode not in (0, 1):
        raise SystemExit("%s failed (%d): %s" % (" ".join(cmd), proc.returncode, proc.stderr))
    (model,) = json.loads(proc.stdout)["models"]
    return model


def check(opmap, recipe, path, tmp):
    """Problems with opmap's ATC command for this recipe (empty: agreement as expected) and
    a one-line outcome."""
    name = recipe["name"]
    want = EXPECT.get(name)
    if want is None:
        return ["no EXPECT entry: say what opmap should print for this recipe"], ""
    flags = recipe_flags(recipe)
    ((their_name, _),) = parse_shape(flags["--input_shape"])
    mine, cat, resolved = expected(recipe)
    bad = []
    if cat != want["shape"]:
        bad.append("EXPECT says %s, the recipe file gives %s" % (want["shape"], cat))
    if cat == "fixed" and not any(x["kind"] == "fix_batch" for x in recipe["modifications"]):
        bad.append("a fixed batch on a dynamic export, but the recipe labels no fix_batch")
    if flags.get("--framework") != "5":
        bad.append("the recipe's --framework is %r" % flags.get("--framework"))
    used = [f for f in PROFILE_FLAGS if f in flags]
    if used:
        bad.append("the recipe uses %s: EXPECT assumes one OM per batch" % used)

    their_soc = flags["--soc_version"]
    placeholder = "$" in their_soc
    if placeholder == bool(want.get("soc")):
        bad.append("recipe's --soc_version %s, EXPECT's soc %r" % (their_soc, want.get("soc")))
    m = scan(opmap, path, want.get("soc"))
    atc = m["next"]["atc"]
    if not atc:
        return bad + ["no ATC command"], ""
    a = atc[0]
    fl = a["flags"]
    if fl.get("framework") != "5":
        bad.append("framework %r" % fl.get("framework"))
    if fl.get("model") != path:
        bad.append("model %r, scanned %r" % (fl.get("model"), path))
    if fl.get("soc_version") != "$SOC_VERSION":
        bad.append("soc_version %r for a family: want $SOC_VERSION" % fl.get("soc_version"))
    if placeholder:
        if "npu-smi info shows it as the Name column, with Ascend before it" not in a["notes"]:
            bad.append("the note does not say where the part is read: %r" % a["notes"])
    else:
        if their_soc not in a.get("soc_versions", []):
            bad.append("%s not among %s's parts %s" % (their_soc, want["soc"], a.get("soc_versions")))
        part = scan(opmap, path, their_soc)["next"]["atc"][0]["flags"]["soc_version"]
        if part != their_soc:
            bad.append("--soc %s: soc_version %r" % (their_soc, part))

    mine_text = "%s:%s" % (HARNESS_INPUT, ",".join(str(d) for d in mine))
    if fl.get("input_shape") != mine_text:
        bad.append("input_shape %r, want %r" % (fl.get("input_shape"), mine_text))
    dynamic = sum(1 for d in mine if d == -1)
    advice = {x["id"] for x in m["advice"]}
    if dynamic:
        if a.get("profile_flag") != "--dynamic_batch_size" or a.get("dynamic_dims") != dynamic:
            bad.append("profile %r for %d dynamic dims" % (a.get("profile_flag"), a.get("dynamic_dims")))
        for words in ("--dynamic_batch_size", "in place of -1"):
            if words not in a["notes"]:
                bad.append("the note does not say %r: %r" % (words, a["notes"]))
        if "fix_batch" not in advice:
            bad.append("no fix_batch advice on a dynamic batch")
    else:
        if a.get("profile_flag") is not None or a.get("dynamic_dims"):
            bad.append("a profile %r on a static export" % a.get("profile_flag"))
        if "fix_batch" in advice:
            bad.append("fix_batch advice on a static export")

    # the recipe's own input name: opmap's whole --input_shape against the recipe's
    theirs_text = "%s:%s" % (their_name, ",".join(str(d) for d in resolved))
    if cat == "traced":
        exact = "differs: traced %s, recipe %s" % (",".join(map(str, mine)), flags["--input_shape"])
    else:
        if their_name == HARNESS_INPUT:
            got = fl.get("input_shape")
        else:
            copy = os.path.join(tmp, name + ".onnx")
            renamed_copy(path, copy, HARNESS_INPUT, their_name)
            try:
                got = scan(opmap, copy, want.get("soc"))["next"]["atc"][0]["flags"]["input_shape"]
            finally:
                os.unlink(copy)
        if got != theirs_text:
            bad.append("named as the recipe names it: input_shape %r, want %r" % (got, theirs_text))
        exact = "%s for %s" % (got, flags["--input_shape"])
    return bad, "%-9s %s" % (cat, exact)


def models(recipes, cache):
    """The cached exports, exported where missing or stale; None when a model is missing
    and cannot be exported here."""
    proc = subprocess.run([sys.executable, os.path.join(HERE, "export_models.py"), RECIPES, cache]
                          + [r["name"] for r in recipes])
    paths = {r["name"]: os.path.join(cache, r["name"] + ".onnx") for r in recipes}
    if proc.returncode:
        missing = [n for n, p in paths.items() if not os.path.exists(p)]
        if missing:
            print("SKIP: export failed and the cache %s lacks %s" % (cache, ", ".join(missing)))
            return None
        print("export failed (exit %d); checking the cached models" % proc.returncode)
    return paths


def paragraph(rows):
    """The result as docs/reports.md says it (--doc checks the page holds it)."""
    by = {}
    for r, cat in rows:
        by.setdefault(cat, []).append(r)
    n = len(rows)
    parts = [r for r, _ in rows if "$" not in recipe_flags(r)["--soc_version"]]
    agree = len(by.get("variable", [])) + len(by.get("static", []))
    traced = "; ".join("%s %s traced for %s" % (
        r["name"], "x".join(map(str, r["build"]["export_input"])),
        "x".join(map(str, r["build"]["input"]))) for r in by.get("traced", []))
    return (
        "**Against Ascend's recipes** (test `truth.atc`, `tests/truth/check_atc.py`): the ATC "
        "commands of the %d ModelZoo recipes of the first round in `tests/truth/recipes/` "
        "(classification, one segmentation and one speech model), held against opmap's for "
        "the same models as exported there. All %d agree on `--framework=5` and on "
        "`--soc_version`: %d recipe%s a part (%s), which `--soc` with that part writes and its "
        "family lists; the others leave a placeholder, as `$SOC_VERSION` does. `--input_shape` "
        "agrees on %d: the input's name (checked on a copy renamed to the recipe's name, as the "
        "exports here name every input `input`) and every dimension, a recipe's variable "
        "(`${bs}`) being -1 where the export is dynamic (%d) or the export's number where it is "
        "static (%d). %d differ by the recipe's choice: the export has a dynamic batch and the "
        "recipe's command shows one batch (1) where opmap writes -1; their results cover other "
        "batches, one OM each. No recipe uses `--dynamic_batch_size`, `--dynamic_image_size`, "
        "`--dynamic_dims` or `--input_shape_range`; every one builds one OM per batch, so with a "
        "dynamic dimension the note says to write the size in place of -1 before it names the "
        "profile option, and the `fix_batch` advice is given. %d differ by how this suite "
        "exports: traced smaller than the recipe's input, where only constants differ (%s); "
        "opmap writes the traced dimensions." % (
            n, n, len(parts), " writes" if len(parts) == 1 else "s write",
            ", ".join(sorted({recipe_flags(r)["--soc_version"] for r in parts})), agree,
            len(by.get("variable", [])), len(by.get("static", [])), len(by.get("fixed", [])),
            len(by.get("traced", [])), traced))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("opmap")
    ap.add_argument("--cache", default=os.environ.get("OPMAP_TRUTH_CACHE") or
                    os.path.join(os.path.expanduser("~"), ".cache", "opmap", "truth-models"))
    ap.add_argument("--doc", help="a page that must hold the result paragraph (docs/reports.md)")
    args = ap.parse_args(argv)
    opmap = os.path.abspath(args.opmap)
    recipes = load_recipes()
    stale = sorted(set(EXPECT) - {r["name"] for r in recipes if r.get("atc")})
    if stale:
        print("EXPECT names recipes with no atc section: %s" % stale)
        return 1
    paths = models(recipes, args.cache)
    if paths is None:
        return SKIP
    failed = 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="opmap-atc-") as tmp:
        for r in recipes:
            bad, outcome = check(opmap, r, os.path.abspath(paths[r["name"]]), tmp)
            print("%-20s %s" % (r["name"], outcome))
            for b in bad:
                print("  FAIL %s" % b)
            failed += bool(bad)
            rows.append((r, outcome.split()[0] if outcome else "?"))
    counts = {}
    for _, cat in rows:
        counts[cat] = counts.get(cat, 0) + 1
    print("%d recipes: %s; %d failed" % (len(rows), ", ".join(
        "%d %s" % (n, c) for c, n in sorted(counts.items())), failed))
    if failed:
        return 1
    text = paragraph(rows)
    if args.doc:
        with open(args.doc, encoding="utf-8") as f:
            if " ".join(text.split()) not in " ".join(f.read().split()):
                print("%s does not hold this result; the paragraph (any line breaks):\n\n%s"
                      % (args.doc, text))
                return 1
    else:
        print("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
