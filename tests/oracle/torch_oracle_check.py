#!/usr/bin/python3
"""Oracle: torch's own operator histogram for TorchScript fixtures, compared with opmap's.

Usage: torch_oracle_check.py OPMAP_BINARY FIXTURE_DIR [--no-live]

For every NAME.oracle.json in FIXTURE_DIR (written by tools/fixtures/make_torchscript.py:
the histogram of node kinds over torch.jit.load(full_archive).inlined_graph, blocks
included), opmap scans NAME.pt (the archive, weights stripped) and NAME.graph.txt (the
printed inlined graph) with --format json; the aten:: histogram opmap reports (the sum of
`instances` per aten operator of models[0].operators) must equal the oracle's aten_kinds
exactly, for both. prim:: kinds are structural and not compared (see docs/torchscript.md).
FIXTURE_DIR/memory/ (graph text printed from in-memory modules, make_torchscript.py
--memory) is checked the same way: there each oracle is of the graph its .graph.txt prints.

When /usr/bin/python3 can import torch (tools/install-deps installs it), four fixtures
(control flow, a scripted torchvision CNN, a traced attention block, a scripted LSTM) are also
regenerated into a temporary directory with make_torchscript.py and checked against that
live oracle, so the stored answers cannot drift from what torch says.

Prints one line per check and `torch oracle: N/M fixtures agree`; exits 1 on any
disagreement (or when opmap cannot read a fixture).
"""
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TORCH_PY = "/usr/bin/python3"
LIVE_VARIANTS = ("controlflow.scripted", "resnet18.scripted", "mha.traced", "lstm.scripted")


def opmap_aten(opmap, path):
    """opmap's aten:: histogram for one file, or (None, message) when it cannot read it."""
    p = subprocess.run([opmap, "scan", "--format", "json", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    try:
        doc = json.loads(p.stdout)
        ops = doc["models"][0]["operators"]
    except (ValueError, KeyError, IndexError) as e:
        return None, "unreadable JSON report: %s" % e
    hist = collections.Counter()
    for op in ops:
        if op.get("domain") == "aten":
            hist["aten::" + op["op_type"]] += op["instances"]
    return hist, None


def compare(label, want, got):
    """Prints the agreement of one check; returns True when the histograms are equal."""
    if got == want:
        print("  agree     %-58s %5d aten instances, %3d kinds" %
              (label, sum(want.values()), len(want)))
        return True
    diffs = []
    for k in sorted(set(want) | set(got)):
        if want.get(k, 0) != got.get(k, 0):
            diffs.append("%s torch %d opmap %d" % (k, want.get(k, 0), got.get(k, 0)))
    print("  DISAGREE  %-58s %s" % (label, "; ".join(diffs)))
    return False


def check_dir(opmap, directory, tag=""):
    results = []
    names = sorted(f[:-len(".oracle.json")] for f in os.listdir(directory)
                   if f.endswith(".oracle.json"))
    for name in names:
        with open(os.path.join(directory, name + ".oracle.json")) as f:
            want = collections.Counter(json.load(f)["aten_kinds"])
        for suffix, form in ((".pt", "archive"), (".graph.txt", "graph text")):
            path = os.path.join(directory, name + suffix)
            if not os.path.exists(path):
                continue
            label = "%s%s (%s)" % (tag, name, form)
            got, err = opmap_aten(opmap, path)
            if got is None:
                print("  ERROR     %-58s %s" % (label, err))
                results.append(False)
            else:
                results.append(compare(label, want, got))
    return results


def torch_available():
    if not os.path.exists(TORCH_PY):
        return False
    p = subprocess.run([TORCH_PY, "-c", "import torch"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return p.returncode == 0


def live_check(opmap):
    gen = os.path.join(REPO, "tools", "fixtures", "make_torchscript.py")
    with tempfile.TemporaryDirectory(prefix="opmap-torch-oracle-") as tmp:
        for variant in LIVE_VARIANTS:
            p = subprocess.run([TORCH_PY, gen, tmp, "--only", variant],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                print("  ERROR     live oracle: make_torchscript.py %s failed: %s" %
                      (variant, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]))
                return [False]
        return check_dir(opmap, tmp, tag="live ")


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.stderr.write("usage: torch_oracle_check.py OPMAP_BINARY FIXTURE_DIR [--no-live]\n")
        return 2
    opmap, directory = args
    results = check_dir(opmap, directory)
    # graph text printed from modules in memory (scopes, source comments, not inlined)
    memory = os.path.join(directory, "memory")
    if os.path.isdir(memory):
        results += check_dir(opmap, memory, tag="memory/")
    if "--no-live" not in argv:
        if torch_available():
            results += live_check(opmap)
        else:
            print("  (live oracle skipped: %s cannot import torch)" % TORCH_PY)
    agree = sum(1 for r in results if r)
    print("torch oracle: %d/%d fixtures agree" % (agree, len(results)))
    return 0 if results and agree == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
